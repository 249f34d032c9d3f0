/*
 * cmd_calibrate.c - `unperturb calibrate -o FILE`: the thorough calibration
 * (docs/calibration.md), by running the MPI program unperturb-calibrate on
 * two ranks (run/launch.h: up_run_calibrate).  The traced run does a fast
 * one inside MPI_Init by itself.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "run/launch.h"

static const char usage_head[] =
    "usage: unperturb calibrate -o FILE [--extra-ns N] [--launcher \"mpirun ...\"]\n"
    "Measures per-record overhead, copy time C(size) from 64 B to 64 MiB, ping-pong\n"
    "latency and per-byte time between two ranks, and the eager limit; writes the\n"
    "INI file that `unperturb compensate --calibration` reads.\n";

static const cmd_opt opts[] = {
    CMD_OPT_OUTPUT("FILE", "where to write (through a temporary name; - : standard output)"),
    CMD_OPT_EXTRA_NS("N", "as `unperturb trace --extra-ns`: included in the overheads"),
    {"launcher", 0, "CMD", 'l', "how to start 2 ranks (default: mpirun -np 2 --oversubscribe)"},
    CMD_OPT_FORCE("replace FILE if it exists"),
    CMD_OPT_HELP_UNLISTED,
    CMD_OPT_END,
};

static const cmd_spec spec = {
    "calibrate", usage_head, NULL, 22, false, opts,
};

int cmd_calibrate(int argc, char **argv)
{
    const char *out = NULL, *extra = "0", *launcher = NULL;
    char extra_s[32];
    bool force = false;
    int c, rc = 1;
    up_err err = {0};
    up_run_cal_opts o;
    up_run_cal r;
    cmd_opts p;

    cmd_opts_begin(&p, &spec, argc, argv);
    while ((c = cmd_opts_next(&p)) > 0) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'x':
            if ((rc = cmd_opt_digits("calibrate", "--extra-ns", optarg, &cmd_range_extra_ns, extra_s,
                                     sizeof extra_s)))
                return rc;
            extra = extra_s;
            break;
        case 'l': launcher = optarg; break;
        case 'f': force = true; break;
        }
    }
    if (c < 0)
        return p.status;
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
