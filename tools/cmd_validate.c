/*
 * cmd_validate.c - `unperturb validate`: the papers' accuracy experiment on
 * the user's own program ([W] Section 5 and Fig. 1; [S] Section 4).  The
 * runs are src/run/validate.c's (docs/validate.md); this file parses the
 * options, finds this command and the timing shim, and prints and writes
 * the result with src/report/validate_report.c.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "report/runs.h"
#include "run/launch.h"

static const char usage_head[] =
    "usage: unperturb validate -o DIR [options] -- PROGRAM [ARGS]\n"
    "Runs a program (MPI, or alone with --no-mpi) uninstrumented and traced, keeps\n"
    "the fastest run of each, compensates the traced run in lower, upper and\n"
    "network mode, and compares.  A row whose traced runs' records per region\n"
    "differ by more than 1% from the first traced run at the smallest extra cost\n"
    "is flagged: a different execution.\n";

static const cmd_opt opts[] = {
    CMD_OPT_OUTPUT("DIR", "results (written as DIR.tmp-HOST-PID, then renamed)"),
    {"np", 0, "LIST", 'n', "rank counts, e.g. 2,4 (default 2)"},
    {"repeat", 0, "N", 'r', "runs of each kind per configuration (default 5)"},
    {"seed", 0, "N", 's', "the order of the kinds of run within each round is\n"
                          "shuffled from N (default 1; docs/validate.md)"},
    CMD_OPT_EXTRA_NS("LIST", "extra tracer cost per record, ns, e.g. 0,2000 (default 0)"),
    {"launcher", 0, "CMD", 'l', "how to start MPI programs (default \"mpirun\"; -np N is\n"
                                "added, and --oversubscribe / --allow-run-as-root for\n"
                                "mpirun when needed)"},
    {"no-mpi", 0, NULL, 'M', "run the program alone, without MPI: its window is\n"
                             "the tracer's start to its end (docs/validate.md)"},
    {"threads", 0, "LIST", 'T', "thread counts, e.g. 1,2: OMP_NUM_THREADS and the\n"
                                "word {threads} in ARGS; without MPI pinned to the\n"
                                "first cores"},
    {"functions", 0, NULL, 'F', "trace with --functions (program built with\n"
                                "-finstrument-functions)"},
    {"timeout", 0, "S", 't', "give up on a run after S seconds (default 600)"},
    CMD_OPT_JSON("also write the table as JSON to FILE"),
    CMD_OPT_FORCE(CMD_FORCE_DIR_HELP),
    CMD_OPT_QUIET("print only the table"),
    CMD_OPT_HELP_UNLISTED,
    CMD_OPT_END,
};

static const cmd_spec spec = {
    "validate", usage_head, NULL, 25, true, opts,
};

static const up_range R_NP = {1, 100000, true, "ranks"};
static const up_range R_THREADS = {1, 100000, true, "threads"};
static const up_range R_SEED = {0, 4294967295.0, true, ""};
static const up_range R_REPEAT = {1, UP_VAL_MAXREP, true, "runs"};
static const up_range R_TIMEOUT = {1, 604800, true, "s"}; /* a week */

/* "2,4,8" -> values in r; false with the usage error printed (the option's
 * name is opt). */
static bool parse_list(const char *opt, const char *s, const up_range *r, unsigned *v, unsigned *n)
{
    char tok[64], why[256], msg[1024];
    const char *p = s;
    *n = 0;
    for (;;) {
        size_t len = strcspn(p, ",");
        double x;
        snprintf(tok, sizeof tok, "%.*s", (int)(len < sizeof tok ? len : sizeof tok - 1), p);
        if (*n == UP_VAL_MAXV) {
            snprintf(msg, sizeof msg, "%s %s: more than %d values", opt, up_esc(s), UP_VAL_MAXV);
            cmd_usage("validate", "%s", msg);
            return false;
        }
        if (len >= sizeof tok || !up_num_parse(tok, r, &x, why, sizeof why)) {
            if (len >= sizeof tok)
                snprintf(why, sizeof why, "not a number");
            snprintf(msg, sizeof msg, "%s %s: '%s': %s", opt, up_esc(s), up_esc(tok), why);
            cmd_usage("validate", "%s", msg);
            return false;
        }
        v[(*n)++] = (unsigned)x;
        if (!p[len])
            return true;
        p += len + 1;
    }
}

static void say(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "unperturb validate: %s\n", msg);
}

/* compensate's --json summary of each compensation (report/) */
static up_status summary(void *ctx, const up_run_comp *c, const char *input, const char *output,
                         const char *path, up_err *err)
{
    up_comp_report rp = up_report_comp_of(c, input, output);
    (void)ctx;
    return up_report_compensate_json(&rp, path, err);
}

static long online_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}

int cmd_validate(int argc, char **argv)
{
    static char exe[PATH_MAX], shim[PATH_MAX];
    up_run_val_opts o;
    up_run_val v;
    up_err err = {0};
    bool quiet = false, mpi_opt = false;
    ssize_t len;
    int c, rc = 1;
    double n;
    cmd_opts p;

    memset(&v, 0, sizeof v);
    up_run_val_opts_init(&o);
    cmd_opts_begin(&p, &spec, argc, argv);
    while ((c = cmd_opts_next(&p)) > 0) {
        switch (c) {
        case 'o': o.output = optarg; break;
        case 'n':
            if (!parse_list("--np", optarg, &R_NP, o.np, &o.nnp))
                return 2;
            mpi_opt = true;
            break;
        case 'T':
            if (!parse_list("--threads", optarg, &R_THREADS, o.threads, &o.nthreads))
                return 2;
            break;
        case 'M': o.no_mpi = true; break;
        case 'x':
            if (!parse_list("--extra-ns", optarg, &cmd_range_extra_ns, o.extra, &o.nx))
                return 2;
            break;
        case 'r':
            if ((rc = cmd_opt_num("validate", "--repeat", optarg, &R_REPEAT, &n)))
                return rc;
            o.repeat = (unsigned)n;
            break;
        case 't':
            if ((rc = cmd_opt_num("validate", "--timeout", optarg, &R_TIMEOUT, &n)))
                return rc;
            o.timeout = (unsigned)n;
            break;
        case 's':
            if ((rc = cmd_opt_num("validate", "--seed", optarg, &R_SEED, &n)))
                return rc;
            o.seed = (uint64_t)n;
            break;
        case 'l': o.launcher = optarg, mpi_opt = true; break;
        case 'F': o.functions = true; break;
        case 'j': o.json = optarg; break;
        case 'f': o.force = true; break;
        case 'q': quiet = true; break;
        }
    }
    if (c < 0)
        return p.status;
    if (!o.output)
        return cmd_usage("validate", "no output folder given (-o DIR)%s", "");
    if (optind >= argc)
        return cmd_usage("validate", "no program given (-- PROGRAM [ARGS])%s", "");
    o.prog = argv + optind;
    if (o.no_mpi && mpi_opt)
        return cmd_usage("validate", "--no-mpi runs the program alone: --np and --launcher are for MPI%s", "");
    if (!o.launcher[strspn(o.launcher, " \t")])
        return cmd_fail("validate", 2, "--launcher is empty");
    o.cores = (unsigned)online_cores();
    o.root = geteuid() == 0;
    if ((len = readlink("/proc/self/exe", exe, sizeof exe - 1)) < 0)
        return cmd_fail("validate", 1, "cannot find my own executable");
    exe[len] = '\0';
    o.exe = exe;
    if (up_run_near_exe("UNPERTURB_TIME_LIB", "lib/libunperturb-time.so", shim, sizeof shim) != 0) {
        fprintf(stderr, "unperturb validate: cannot find libunperturb-time.so (looked at '%s'); "
                        "set UNPERTURB_TIME_LIB\n", shim);
        return 1;
    }
    o.shim = shim;
    o.say = quiet ? NULL : say;
    o.summary = summary;

    if (up_run_validate(&o, &v, &err) != UP_OK) {
        if (err.msg[0])
            rc = cmd_fail("validate", err.status == UP_EUSAGE ? 2 : 1, err.msg);
        if (v.have_tail)
            fprintf(stderr, "---- the end of its output:\n%s%s----\n", v.tail,
                    v.tail[0] && v.tail[strlen(v.tail) - 1] != '\n' ? "\n" : "");
        if (v.interrupted) {
            int sig = v.interrupted;
            cmd_fail("validate", 1, "interrupted; nothing written");
            up_run_val_free(&v); /* the temporaries go, then the signal ends us */
            signal(sig, SIG_DFL);
            raise(sig);
            return 128 + sig;
        }
        goto out;
    }
    up_report_validate_table(up_outset_stdout(v.outs) ? stderr : stdout, &v);
    if (up_report_validate_files(&v, &err) != UP_OK || up_outset_commit(v.outs, &err) != UP_OK) {
        rc = cmd_fail("validate", 1, err.msg);
        goto out;
    }
    if (!quiet)
        fprintf(stderr, "unperturb validate: %s: table.txt, validate.json, plot.svg, runs.csv, and the kept traces\n",
                o.output);
    rc = 0;
out:
    up_run_val_free(&v);
    return rc;
}
