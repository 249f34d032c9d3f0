/*
 * cmd_trace.c - `unperturb trace`: run an unmodified MPI program with the
 * tracer preloaded, and `unperturb trace --recover DIR` (docs/tracer.md).
 *
 * The archive is written to DIR.tmp-<host>-<pid> (an output set, util.h)
 * and renamed to DIR when the run is over.  While the program runs, SIGTERM
 * and SIGHUP go to it and SIGINT is left to the terminal, so that what it
 * recorded is saved; before and after, they remove the temporary.  A run
 * that died before MPI_Finalize (signal, MPI_Abort) left the per-rank files
 * only; they are merged here, with a warning, so nothing the program
 * recorded is lost.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "trace/merge.h"
#include "util/util.h"

static const char usage_head[] =
    "usage: unperturb trace -o DIR [options] -- LAUNCHER... PROGRAM [ARGS]\n"
    "       unperturb trace --recover DIR\n"
    "Runs an MPI program with libunperturb-trace.so preloaded; writes one OTF2\n"
    "archive with the calibration compensate needs.\n";

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
    char err[1024];
    up_merge_info info;
    up_err e = {0};
    if (up_merge(dir, &info, err, sizeof err) != 0)
        return cmd_fail("trace", 1, err);
    /* an earlier output of `trace` (its per-rank files kept for a retry):
     * its .unperturb-output lists what it holds now */
    if (up_output_remark(dir, &e) != UP_OK)
        return cmd_fail("trace", 1, e.msg);
    if (!quiet)
        printf("unperturb trace: recovered %s: %d of %d ranks left records, %d closed "
               "their trace (%llu records counted)\n",
               dir, info.ranks_found, info.ranks, info.ranks_ended, info.events);
    return 0;
}

static volatile pid_t child;

/* SIGTERM and SIGHUP for us go to the program (mpirun passes them to the
 * ranks, whose handlers flush); then we save what they recorded.  The
 * terminal's SIGINT reaches the program by itself. */
static void forward(int sig)
{
    if (child > 0)
        kill(child, sig);
}

static int setenv_u(const char *name, const char *value)
{
    if (setenv(name, value, 1) != 0) {
        fprintf(stderr, "unperturb trace: cannot set %s: %s\n", name, strerror(errno));
        return -1;
    }
    return 0;
}

int cmd_trace(int argc, char **argv)
{
    static const up_range buffer_range = {1, 65536, true, "MiB"};
    const char *out = NULL, *filter = NULL, *extra = NULL, *bufmb = NULL, *rec = NULL;
    bool functions = false, force = false, quiet = false, cpu = false;
    char lib[PATH_MAX], preload[2 * PATH_MAX], abs[PATH_MAX], anchor[PATH_MAX + 32];
    const char *tmp;
    up_outset *os = NULL;
    up_err err = {0};
    struct stat st;
    struct sigaction sa, old_int, old_term, old_hup;
    pid_t pid;
    double v;
    char extra_s[32], bufmb_s[32];
    int c, i, status = 0, rc = 1;
    cmd_opts p;

    cmd_opts_begin(&p, &spec, argc, argv);
    while ((c = cmd_opts_next(&p)) > 0) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'F': functions = true; break;
        case 'C': cpu = true; break;
        case 'L': filter = optarg; break;
        case 'x':
            if ((rc = cmd_opt_num("trace", "--extra-ns", optarg, &cmd_range_extra_ns, &v)))
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
    if (filter) { /* a regular file of at most 1 MiB, as the tracer reads it */
        char *text;
        if (up_text_file_read(filter, "filter file", 1 << 20, &text, NULL, &err) != UP_OK)
            return cmd_fail("trace", 1, err.msg);
        up_free(text);
    }
    if (cmd_near_exe("UNPERTURB_TRACE_LIB", "lib/libunperturb-trace.so", lib, sizeof lib) != 0) {
        fprintf(stderr, "unperturb trace: cannot find libunperturb-trace.so (looked at '%s'); "
                        "set UNPERTURB_TRACE_LIB\n", lib);
        return 1;
    }
    /* inputs: the filter and the program's files named on the command line */
    if (up_outset_new(&os, force, &err) != UP_OK || up_outset_input(os, filter, false, &err) != UP_OK)
        goto fail_set;
    for (i = optind; i < argc; i++)
        if (stat(argv[i], &st) == 0 && S_ISREG(st.st_mode) && up_outset_input(os, argv[i], false, &err) != UP_OK)
            goto fail_set;
    if (up_outset_add(os, out, UP_OUT_DIR, "-o", NULL, &err) != UP_OK || up_outset_begin(os, &err) != UP_OK)
        goto fail_set;
    tmp = up_outset_tmp(os, 0);
    if (!realpath(tmp, abs)) {
        up_outset_free(os);
        return cmd_fail("trace", 1, "cannot resolve the output folder");
    }
    {
        const char *old = getenv("LD_PRELOAD");
        snprintf(preload, sizeof preload, "%s%s%s", lib, old && *old ? ":" : "", old ? old : "");
    }
    if (setenv_u("LD_PRELOAD", preload) || setenv_u("UNPERTURB_DIR", abs) ||
        setenv_u("UNPERTURB_FUNCTIONS", functions ? "1" : "0") ||
        setenv_u("UNPERTURB_CPU_TIME", cpu ? "1" : "0") ||
        (filter && setenv_u("UNPERTURB_FILTER_FILE", filter)) ||
        (extra && setenv_u("UNPERTURB_EXTRA_NS", extra)) ||
        (bufmb && setenv_u("UNPERTURB_BUFFER_MB", bufmb)))
        goto out;

    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGINT, &sa, &old_int);
    sa.sa_handler = forward;
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    if ((pid = fork()) < 0) {
        fprintf(stderr, "unperturb trace: fork: %s\n", strerror(errno));
        goto out;
    }
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        up_signals_child();
        execvp(argv[optind], argv + optind);
        fprintf(stderr, "unperturb trace: cannot run '%s': %s\n", argv[optind], strerror(errno));
        _exit(127);
    }
    child = pid;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    child = 0;
    sigaction(SIGINT, &old_int, NULL); /* the output set's: remove the temporary */
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        fprintf(stderr, "unperturb trace: '%s' could not be run\n", argv[optind]);
        goto out;
    }

    snprintf(anchor, sizeof anchor, "%s/traces.otf2", tmp);
    if (stat(anchor, &st) != 0) {
        char upt[PATH_MAX + 32];
        snprintf(upt, sizeof upt, "%s/.upt", tmp);
        if (stat(upt, &st) != 0) {
            fprintf(stderr, "unperturb trace: the program wrote no trace (is it an MPI program, "
                            "dynamically linked, that calls MPI_Init?)\n");
            goto out;
        }
        {
            char how[96];
            up_wait_text(status, how, sizeof how);
            fprintf(stderr, "unperturb trace: warning: the program ended before MPI_Finalize: %s; "
                            "recovering what it recorded\n", how);
        }
        if (recover(tmp, true) != 0) {
            /* keep the per-rank files under the final name for a retry */
            if (up_outset_commit(os, &err) == UP_OK)
                fprintf(stderr, "unperturb trace: the per-rank records are in %s/.upt; "
                                "retry with 'unperturb trace --recover %s'\n", out, out);
            goto out;
        }
    }
    if (up_outset_commit(os, &err) != UP_OK) {
        cmd_fail("trace", 1, err.msg);
        goto out;
    }
    if (!quiet)
        printf("unperturb trace: %s/traces.otf2\n", out);
    /* the program's failure is the command's, as 1 (128 + N is ours only) */
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        rc = 0;
    else {
        char how[96];
        up_wait_text(status, how, sizeof how);
        fprintf(stderr, "unperturb trace: the program failed: %s; its trace is kept in %s\n", how, out);
        rc = 1;
    }
out:
    up_outset_free(os);
    return rc;
fail_set:
    rc = cmd_fail("trace", err.status == UP_EUSAGE ? 2 : 1, err.msg);
    up_outset_free(os);
    return rc;
}
