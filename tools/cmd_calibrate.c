/*
 * cmd_calibrate.c - `unperturb calibrate -o FILE`: the thorough calibration
 * (docs/calibration.md), by running the MPI program unperturb-calibrate on
 * two ranks (run/launch.h: up_run_calibrate).  The traced run does a fast
 * one inside MPI_Init by itself.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "run/launch.h"

static void usage(FILE *f)
{
    fputs("usage: unperturb calibrate -o FILE [--extra-ns N] [--launcher \"mpirun ...\"]\n"
          "Measures per-record overhead, copy time C(size) from 64 B to 64 MiB, ping-pong\n"
          "latency and per-byte time between two ranks, and the eager limit; writes the\n"
          "INI file that `unperturb compensate --calibration` reads.\n"
          "  -o, --output FILE   where to write (through a temporary name; - : standard output)\n"
          "      --extra-ns N    as `unperturb trace --extra-ns`: included in the overheads\n"
          "      --launcher CMD  how to start 2 ranks (default: mpirun -np 2 --oversubscribe)\n"
          "  -f, --force         replace FILE if it exists\n",
          f);
}

int cmd_calibrate(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'}, {"extra-ns", required_argument, 0, 'x'},
        {"launcher", required_argument, 0, 'l'}, {"force", no_argument, 0, 'f'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    static const up_range extra_range = {0, 1e9, true, "ns"}; /* as `unperturb trace` */
    const char *out = NULL, *extra = "0", *launcher = NULL;
    char extra_s[32];
    double v;
    bool force = false;
    int c, rc = 1;
    up_err err = {0};
    up_run_cal_opts o;
    up_run_cal r;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:fh", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'x':
            if ((rc = cmd_opt_num("calibrate", "--extra-ns", optarg, &extra_range, &v)))
                return rc;
            snprintf(extra_s, sizeof extra_s, "%.0f", v); /* unperturb-calibrate reads digits */
            extra = extra_s;
            break;
        case 'l': launcher = optarg; break;
        case 'f': force = true; break;
        case 'h': usage(stdout); return 0;
        default: return cmd_bad_option("calibrate", c, argv, opts);
        }
    }
    if (!out)
        return cmd_usage("calibrate", "no output file given (-o FILE)%s", "");
    if (optind != argc)
        return cmd_usage("calibrate", "unexpected argument '%s'", up_esc(argv[optind]));
    o.output = out;
    o.extra_ns = extra;
    o.launcher = launcher;
    o.force = force;
    if (up_run_calibrate(&o, &r, &err) != UP_OK)
        rc = cmd_fail("calibrate", err.status == UP_EUSAGE ? 2 : 1, err.msg);
    else if (fwrite(r.text, 1, r.size, stdout) != r.size || fflush(stdout) != 0) {
        fprintf(stderr, "unperturb calibrate: cannot write to standard output: %s\n", strerror(errno));
        rc = 1;
    } else
        rc = 0;
    up_run_cal_free(&r);
    return rc;
}
