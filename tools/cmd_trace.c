/*
 * cmd_trace.c - `unperturb trace`: run an unmodified MPI program with the
 * tracer preloaded, and `unperturb trace --recover DIR` (docs/tracer.md).
 * The run, its signals, the output set and the recovery of a run that died
 * are the run layer's (run/launch.h: up_run_trace); here the options and
 * what is printed.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "cmd.h"
#include "run/launch.h"

static const char usage_head[] =
    "usage: unperturb trace -o DIR [options] -- LAUNCHER... PROGRAM [ARGS]\n"
    "       unperturb trace -o DIR [options] -- PROGRAM [ARGS]\n"
    "       unperturb trace --recover DIR\n"
    "Runs a program with libunperturb-trace.so preloaded; writes one OTF2\n"
    "archive with the calibration compensate needs.  Under an MPI launcher\n"
    "(mpirun, mpiexec, srun, ...) every rank from MPI_Init to MPI_Finalize;\n"
    "without one, the program from its start to its exit.  Every thread:\n"
    "MPI calls, POSIX-thread calls, OpenMP through OMPT (a libgomp program\n"
    "is run on LLVM's libomp; docs/tracer.md).\n";

static const cmd_opt opts[] = {
    CMD_OPT_OUTPUT("DIR", "the archive folder (written as DIR.tmp-HOST-PID, then renamed)"),
    {"functions", 0, NULL, 'F', "record functions of a program built with -finstrument-functions"},
    {"cpu-time", 0, NULL, 'C', "record the thread CPU time at every MPI call (a Metric\n"
                               "record, ~200 ns each; used by unperturb simulate)"},
    {"filter", 0, "FILE", 'L', "exclude functions by name (globs, one per line; see docs/tracer.md)"},
    CMD_OPT_EXTRA_NS("N", "spend N more ns per record (emulates heavier instrumentation)"),
    {"buffer-mb", 0, "N", 'b', "event buffer per rank, MiB (default 16); a full buffer is flushed"},
    CMD_OPT_FORCE("replace DIR if it is an earlier output of unperturb"),
    {"recover", 0, "DIR", 'R', "merge what a run that died left in DIR"},
    CMD_OPT_QUIET("print nothing but errors"),
    CMD_OPT_HELP_UNLISTED,
    CMD_OPT_END,
};

static const cmd_spec spec = {
    "trace", usage_head, NULL, 23, true, opts,
};

static int recover(const char *dir, bool quiet)
{
    up_merge_info info;
    up_err err = {0};
    if (up_run_trace_recover(dir, &info, &err) != UP_OK)
        return cmd_fail("trace", 1, err.msg);
    if (!quiet)
        printf("unperturb trace: recovered %s: %d of %d ranks left records, %d closed "
               "their trace (%llu records counted)\n",
               dir, info.ranks_found, info.ranks, info.ranks_ended, info.events);
    return 0;
}

static void warn(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "unperturb trace: warning: %s\n", msg);
}

int cmd_trace(int argc, char **argv)
{
    static const up_range buffer_range = {1, 65536, true, "MiB"};
    const char *out = NULL, *filter = NULL, *extra = NULL, *bufmb = NULL, *rec = NULL;
    bool functions = false, force = false, quiet = false, cpu = false;
    up_run_tr_opts o;
    up_run_tr r;
    up_err err = {0};
    char extra_s[32], bufmb_s[32], how[96];
    int c, rc = 1;
    cmd_opts p;

    memset(&o, 0, sizeof o);
    cmd_opts_begin(&p, &spec, argc, argv);
    while ((c = cmd_opts_next(&p)) > 0) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'F': functions = true; break;
        case 'C': cpu = true; break;
        case 'L': filter = optarg; break;
        case 'x':
            if ((rc = cmd_opt_digits("trace", "--extra-ns", optarg, &cmd_range_extra_ns, extra_s,
                                     sizeof extra_s)))
                return rc;
            extra = extra_s;
            break;
        case 'b':
            if ((rc = cmd_opt_digits("trace", "--buffer-mb", optarg, &buffer_range, bufmb_s, sizeof bufmb_s)))
                return rc;
            bufmb = bufmb_s;
            break;
        case 'f': force = true; break;
        case 'R': rec = optarg; break;
        case 'q': quiet = true; break;
        }
    }
    if (c < 0)
        return p.status;
    rc = 1;
    if (rec)
        return recover(rec, quiet);
    if (!out)
        return cmd_usage("trace", "no output folder given (-o DIR)%s", "");
    if (optind >= argc)
        return cmd_usage("trace", "no program given (-- LAUNCHER... PROGRAM [ARGS])%s", "");
    o.output = out;
    o.filter = filter;
    o.extra_ns = extra;
    o.buffer_mb = bufmb;
    o.functions = functions;
    o.cpu_time = cpu;
    o.force = force;
    o.prog = argv + optind;
    o.warn = warn;
    if (up_run_trace(&o, &r, &err) != UP_OK) {
        rc = cmd_fail("trace", err.status == UP_EUSAGE ? 2 : 1, err.msg);
        if (r.kept)
            fprintf(stderr, "unperturb trace: the per-rank records are in %s/.upt; "
                            "retry with 'unperturb trace --recover %s'\n", out, out);
        return rc;
    }
    if (!quiet)
        printf("unperturb trace: %s/traces.otf2\n", out);
    /* the program's failure is the command's, as 1 (128 + N is ours only) */
    if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0)
        return 0;
    up_wait_text(r.status, how, sizeof how);
    fprintf(stderr, "unperturb trace: the program failed: %s; its trace is kept in %s\n", how, out);
    return 1;
}
