/*
 * cmd_calibrate.c - `unperturb calibrate -o FILE`: the thorough calibration
 * (docs/calibration.md), by running the MPI program unperturb-calibrate on
 * two ranks.  The traced run does a fast one inside MPI_Init by itself.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "util/util.h"

#define UP_CALIB_READ_MAX 65536

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
    double v;
    bool force = false;
    char prog[PATH_MAX + 32], *text = NULL, tmp[PATH_MAX + 32];
    size_t scratch = 0;
    char *args[64], *lcopy = NULL;
    int c, n = 0, status, rc = 1;
    pid_t pid;
    size_t size = 0;
    up_err err = {0};
    up_outset *os = NULL;
    cmd_opts p;

    cmd_opts_begin(&p, &spec, argc, argv);
    while ((c = cmd_opts_next(&p)) > 0) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'x':
            if ((rc = cmd_opt_num("calibrate", "--extra-ns", optarg, &cmd_range_extra_ns, &v)))
                return rc;
            snprintf(extra_s, sizeof extra_s, "%.0f", v); /* unperturb-calibrate reads digits */
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
    if (cmd_near_exe("UNPERTURB_CALIBRATE_PROG", "libexec/unperturb-calibrate", prog, sizeof prog) != 0 ||
        access(prog, X_OK) != 0) {
        fprintf(stderr, "unperturb calibrate: cannot find '%s' (set UNPERTURB_CALIBRATE_PROG)\n", prog);
        return 1;
    }
    /* the measurement program writes FILE's temporary (or, for -o -, a
     * file in a private folder, printed when it is complete) */
    if (up_outset_new(&os, force, &err) != UP_OK ||
        up_outset_add(os, out, UP_OUT_FILE, "-o", NULL, &err) != UP_OK ||
        (!strcmp(out, "-") && up_outset_scratch(os, &scratch, &err) != UP_OK) ||
        up_outset_begin(os, &err) != UP_OK) {
        rc = cmd_fail("calibrate", err.status == UP_EUSAGE ? 2 : 1, err.msg);
        up_outset_free(os);
        return rc;
    }
    if (strcmp(out, "-"))
        snprintf(tmp, sizeof tmp, "%s", up_outset_tmp(os, 0));
    else
        snprintf(tmp, sizeof tmp, "%s/calibration.ini", up_outset_tmp(os, scratch));
    rc = 1; /* (the options' parsers left 0) */

    if (launcher) {
        char *save = NULL, *tok;
        lcopy = strdup(launcher);
        for (tok = strtok_r(lcopy, " \t", &save); tok && n < 56; tok = strtok_r(NULL, " \t", &save))
            args[n++] = tok;
    } else {
        args[n++] = "mpirun";
        args[n++] = "-np";
        args[n++] = "2";
        args[n++] = "--oversubscribe";
        if (getuid() == 0)
            args[n++] = "--allow-run-as-root";
    }
    args[n++] = prog;
    args[n++] = tmp;
    args[n++] = (char *)extra;
    args[n] = NULL;
    if ((pid = fork()) == 0) {
        up_signals_child();
        execvp(args[0], args);
        fprintf(stderr, "unperturb calibrate: cannot run '%s': %s\n", args[0], strerror(errno));
        _exit(127);
    }
    if (pid < 0) {
        fprintf(stderr, "unperturb calibrate: cannot start '%s': %s\n", up_esc(args[0]), strerror(errno));
        goto out;
    }
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            fprintf(stderr, "unperturb calibrate: waiting for the measurement run: %s\n", strerror(errno));
            goto out;
        }
    if (!WIFEXITED(status) || WEXITSTATUS(status)) {
        char how[96];
        up_wait_text(status, how, sizeof how);
        fprintf(stderr, "unperturb calibrate: the measurement run failed: %s\n", how);
        goto out;
    }
    if (up_text_file_read(tmp, "calibration", UP_CALIB_READ_MAX, &text, &size, &err) != UP_OK) {
        fprintf(stderr, "unperturb calibrate: no result: %s\n", err.msg);
        goto out;
    }
    if (!size) {
        fprintf(stderr, "unperturb calibrate: empty result\n");
        goto out;
    }
    if (up_outset_commit(os, &err) != UP_OK) {
        cmd_fail("calibrate", 1, err.msg);
        goto out;
    }
    if (fwrite(text, 1, size, stdout) != size || fflush(stdout) != 0) {
        fprintf(stderr, "unperturb calibrate: cannot write to standard output: %s\n", strerror(errno));
        goto out;
    }
    rc = 0;
out:
    up_free(text);
    free(lcopy);
    up_outset_free(os);
    return rc;
}
