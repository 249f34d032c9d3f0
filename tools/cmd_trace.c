/*
 * cmd_trace.c - `unperturb trace`: run an unmodified MPI program with the
 * tracer preloaded, and `unperturb trace --recover DIR` (docs/tracer.md).
 * The run, its signals, the output set and the recovery of a run that died
 * are the run layer's (run/launch.h: up_run_trace); here the options and
 * what is printed.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "cmd.h"
#include "run/launch.h"

static void usage(FILE *f)
{
    fputs("usage: unperturb trace -o DIR [options] -- LAUNCHER... PROGRAM [ARGS]\n"
          "       unperturb trace --recover DIR\n"
          "Runs an MPI program with libunperturb-trace.so preloaded; writes one OTF2\n"
          "archive with the calibration compensate needs.\n"
          "  -o, --output DIR     the archive folder (written as DIR.tmp-HOST-PID, then renamed)\n"
          "      --functions      record functions of a program built with -finstrument-functions\n"
          "      --cpu-time       record the thread CPU time at every MPI call (a Metric\n"
          "                       record, ~200 ns each; used by unperturb simulate)\n"
          "      --filter FILE    exclude functions by name (globs, one per line; see docs/tracer.md)\n"
          "      --extra-ns N     spend N more ns per record (emulates heavier instrumentation)\n"
          "      --buffer-mb N    event buffer per rank, MiB (default 16); a full buffer is flushed\n"
          "  -f, --force          replace DIR if it is an earlier output of unperturb\n"
          "      --recover DIR    merge what a run that died left in DIR\n"
          "  -q, --quiet          print nothing but errors\n",
          f);
}

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
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'}, {"functions", no_argument, 0, 'F'},
        {"filter", required_argument, 0, 'L'}, {"extra-ns", required_argument, 0, 'x'},
        {"buffer-mb", required_argument, 0, 'b'}, {"force", no_argument, 0, 'f'},
        {"recover", required_argument, 0, 'R'}, {"quiet", no_argument, 0, 'q'},
        {"cpu-time", no_argument, 0, 'C'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    static const up_range extra_range = {0, 1e9, true, "ns"}, buffer_range = {1, 65536, true, "MiB"};
    const char *out = NULL, *filter = NULL, *extra = NULL, *bufmb = NULL, *rec = NULL;
    bool functions = false, force = false, quiet = false, cpu = false;
    up_run_tr_opts o;
    up_run_tr r;
    up_err err = {0};
    double v;
    char extra_s[32], bufmb_s[32], how[96];
    int c, rc = 1;

    memset(&o, 0, sizeof o);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+:o:fqh", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'F': functions = true; break;
        case 'C': cpu = true; break;
        case 'L': filter = optarg; break;
        case 'x':
            if ((rc = cmd_opt_num("trace", "--extra-ns", optarg, &extra_range, &v)))
                return rc;
            snprintf(extra_s, sizeof extra_s, "%.0f", v); /* the tracer reads digits only */
            extra = extra_s;
            break;
        case 'b':
            if ((rc = cmd_opt_num("trace", "--buffer-mb", optarg, &buffer_range, &v)))
                return rc;
            snprintf(bufmb_s, sizeof bufmb_s, "%.0f", v);
            bufmb = bufmb_s;
            break;
        case 'f': force = true; break;
        case 'R': rec = optarg; break;
        case 'q': quiet = true; break;
        case 'h': usage(stdout); return 0;
        default: return cmd_bad_option("trace", c, argv, opts);
        }
    }
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
