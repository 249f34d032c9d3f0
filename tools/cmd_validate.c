/*
 * cmd_validate.c - `unperturb validate`: the papers' accuracy experiment on
 * the user's own program ([W] Section 5 and Fig. 1; [S] Section 4).
 *
 * For every rank count the program runs `--repeat` times uninstrumented
 * (timed by libunperturb-time.so over the analysis window: end of MPI_Init
 * to start of MPI_Finalize) and, alternating with those runs, traced once per
 * `--extra-ns` value.  The fastest run of each kind is kept, as the paper
 * does; the fastest traced run is compensated in lower, upper and network
 * mode with the calibration stored in its archive.  Only public interfaces
 * are used: the `unperturb trace` and `unperturb compensate` commands and
 * their JSON, and the library's reader for the records per region of every
 * traced run (src/analysis/counts.h): a run whose counts differ by
 * more than 1% from the reference run (the first traced run at the
 * smallest extra cost of its rank count) is a different execution, and its
 * row is flagged.  Output folder (docs/validate.md): table.txt,
 * validate.json, plot.svg, runs.csv, log.txt, and per configuration the
 * kept trace and its three compensations.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "analysis/counts.h"
#include "report/plot.h"
#include "util/util.h"

#define MAXV 16    /* values in --np and --extra-ns */
#define MAXREP 100
#define MAXARGV 256
#define TOP_JSON 10 /* differing regions listed per run in the JSON */
#define TOP_TEXT 3  /* and in the line under the table */

static void usage(FILE *f)
{
    fputs("usage: unperturb validate -o DIR [options] -- PROGRAM [ARGS]\n"
          "Runs an MPI program uninstrumented and traced, keeps the fastest run of each,\n"
          "compensates the traced run in lower, upper and network mode, and compares.\n"
          "A row whose traced runs' records per region differ by more than 1% from the\n"
          "first traced run at the smallest extra cost is flagged: a different execution.\n"
          "  -o, --output DIR       results (written as DIR.tmp-HOST-PID, then renamed)\n"
          "      --np LIST          rank counts, e.g. 2,4 (default 2)\n"
          "      --repeat N         runs of each kind per configuration (default 5)\n"
          "      --extra-ns LIST    extra tracer cost per record, ns, e.g. 0,2000 (default 0)\n"
          "      --launcher CMD     how to start MPI programs (default \"mpirun\"; -np N is\n"
          "                         added, and --oversubscribe / --allow-run-as-root for\n"
          "                         mpirun when needed)\n"
          "      --functions        trace with --functions (program built with\n"
          "                         -finstrument-functions)\n"
          "      --timeout S        give up on a run after S seconds (default 600)\n"
          "      --json FILE        also write the table as JSON to FILE\n"
          "      --force            replace DIR and the --json file if they exist\n"
          "  -q, --quiet            print only the table\n",
          f);
}

typedef struct row {
    unsigned np, extra;
    double T[MAXREP], Tm[MAXREP]; /* every run's window, s */
    double Tn[MAXREP];            /* every traced run's network-mode Ta, s */
    int best_traced;              /* repetition kept */
    double Ta[3];                 /* lower, upper, network */
    /* records per region of every traced run: the table until it is
     * compared with the reference run (the reference's own is kept), then
     * the regions that differ (NULL: none) */
    up_counts *cnt[MAXREP];
    uint64_t records[MAXREP];     /* Enter records counted, all regions */
    up_count_diff *diff[MAXREP];
    size_t ndiff[MAXREP];
    unsigned ref_extra;           /* the reference run: first run at this extra cost */
} row;

static struct {
    const char *out_final;
    char dir[PATH_MAX];           /* the temporary output folder */
    char exe[PATH_MAX];           /* this command */
    char shim[PATH_MAX];
    char *launcher[64];
    int nlauncher;
    char **prog;                  /* PROGRAM ARGS, NULL-terminated */
    bool functions, quiet;
    unsigned timeout, repeat, cores;
    unsigned long compared;       /* traced runs compared with a reference run */
    FILE *log, *csv;
} V;

static volatile sig_atomic_t interrupted;
static volatile pid_t running;

static void on_signal(int sig)
{
    interrupted = sig;
    if (running > 0)
        kill(-running, SIGTERM); /* the run's whole process group */
}

/* While runs go on, SIGINT, SIGTERM and SIGHUP stop them and end the command
 * the ordinary way (which removes the output set's temporaries); `old` keeps
 * the output set's handlers, put back with restore_signals. */
static const int stop_sigs[] = {SIGINT, SIGTERM, SIGHUP};
static struct sigaction old_sa[3];

static void catch_signals(void)
{
    struct sigaction sa;
    size_t i;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (i = 0; i < 3; i++)
        sigaction(stop_sigs[i], &sa, &old_sa[i]);
}

static void restore_signals(void)
{
    size_t i;
    for (i = 0; i < 3; i++)
        sigaction(stop_sigs[i], &old_sa[i], NULL);
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    va_list ap;
    if (V.quiet)
        return;
    va_start(ap, fmt);
    fputs("unperturb validate: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static const up_range R_NP = {1, 100000, true, "ranks"};
static const up_range R_EXTRA = {0, 1e9, true, "ns"}; /* as `unperturb trace --extra-ns` */
static const up_range R_REPEAT = {1, MAXREP, true, "runs"};
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
        if (*n == MAXV) {
            snprintf(msg, sizeof msg, "%s %s: more than %d values", opt, up_esc(s), MAXV);
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

/* Run argv in its own process group with `env` (NAME=VALUE, NULL-ended) added,
 * output to the log; returns the exit status (128+signal), -1 if it could not
 * be started, -2 on timeout. */
static int run(char *const *argv, char *const *env)
{
    pid_t pid;
    int status = 0;
    struct timespec t0, now, nap = {0, 20 * 1000 * 1000};
    size_t i;
    fflush(V.log);
    if ((pid = fork()) < 0)
        return -1;
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        dup2(fileno(V.log), 1);
        dup2(fileno(V.log), 2);
        for (i = 0; env && env[i]; i++)
            putenv(env[i]);
        execvp(argv[0], argv);
        fprintf(stderr, "unperturb validate: cannot run '%s': %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    running = pid;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            break;
        if (r < 0 && errno != EINTR)
            break;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - t0.tv_sec > (time_t)V.timeout) {
            kill(-pid, SIGKILL);
            waitpid(pid, &status, 0);
            running = 0;
            return -2;
        }
        nanosleep(&nap, NULL);
    }
    running = 0;
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

/* the last lines of the log (the failed run's output) on stderr: the
 * output folder is not kept after a failure */
static void log_tail(void)
{
    char path[PATH_MAX + 16], buf[4096];
    FILE *f;
    long size;
    size_t n;
    snprintf(path, sizeof path, "%s/log.txt", V.dir);
    fflush(V.log);
    if (!(f = fopen(path, "r")))
        return;
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fseek(f, size > (long)sizeof buf - 1 ? size - (long)sizeof buf + 1 : 0, SEEK_SET);
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    fprintf(stderr, "---- the end of its output:\n%s%s----\n", buf,
            n && buf[n - 1] != '\n' ? "\n" : "");
}

static int run_failed(const char *what, int rc)
{
    char msg[512];
    if (rc == -2)
        snprintf(msg, sizeof msg, "%s: no end after %u s (--timeout)", what, V.timeout);
    else if (rc == 127 || rc == -1)
        snprintf(msg, sizeof msg, "%s could not be started", what);
    else
        snprintf(msg, sizeof msg, "%s failed with exit status %d", what, rc);
    cmd_fail("validate", 1, msg);
    log_tail();
    return 1;
}

/* the launcher words, then -np N (and the flags mpirun needs here) */
static int launch_argv(char **argv, unsigned np, char *npbuf, size_t npcap)
{
    int n = 0, i;
    const char *base = strrchr(V.launcher[0], '/');
    bool mpirun, over = false, root = false;
    base = base ? base + 1 : V.launcher[0];
    mpirun = !strcmp(base, "mpirun") || !strcmp(base, "mpiexec") || !strcmp(base, "orterun");
    for (i = 0; i < V.nlauncher; i++) {
        over |= !strcmp(V.launcher[i], "--oversubscribe");
        root |= !strcmp(V.launcher[i], "--allow-run-as-root");
        argv[n++] = V.launcher[i];
    }
    if (mpirun && !root && geteuid() == 0)
        argv[n++] = "--allow-run-as-root";
    if (mpirun && !over && np > V.cores)
        argv[n++] = "--oversubscribe";
    snprintf(npbuf, npcap, "%u", np);
    argv[n++] = "-np";
    argv[n++] = npbuf;
    for (i = 0; V.prog[i] && n < MAXARGV - 1; i++)
        argv[n++] = V.prog[i];
    argv[n] = NULL;
    return n;
}

/* window_s from the timing shim's file; NAN if missing */
static double read_window(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[256];
    double v = NAN;
    if (!f)
        return NAN;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "window_s=", 9))
            v = strtod(line + 9, NULL);
    fclose(f);
    return v;
}

static int untraced(unsigned np, unsigned rep, double *T)
{
    char *argv[MAXARGV], npbuf[16], tf[PATH_MAX + 64], e_pre[2 * PATH_MAX + 32],
        e_tf[PATH_MAX + 96], *env[3], what[64];
    const char *old = getenv("LD_PRELOAD");
    int rc;
    snprintf(tf, sizeof tf, "%s/np%u/untraced-%u.time", V.dir, np, rep);
    snprintf(e_pre, sizeof e_pre, "LD_PRELOAD=%s%s%s", V.shim, old && *old ? ":" : "",
             old ? old : "");
    snprintf(e_tf, sizeof e_tf, "UNPERTURB_TIME_FILE=%s", tf);
    env[0] = e_pre, env[1] = e_tf, env[2] = NULL;
    launch_argv(argv, np, npbuf, sizeof npbuf);
    fprintf(V.log, "== np %u, run %u, uninstrumented\n", np, rep + 1);
    if ((rc = run(argv, env)) != 0) {
        snprintf(what, sizeof what, "the uninstrumented run (np %u)", np);
        return run_failed(what, rc);
    }
    if (!isfinite(*T = read_window(tf))) {
        fprintf(stderr, "unperturb validate: the uninstrumented run (np %u) was not timed: "
                        "no MPI_Init/MPI_Finalize seen by %s\n", np, V.shim);
        return 1;
    }
    fprintf(V.csv, "%u,,%u,uninstrumented,%.9f,\n", np, rep + 1, *T);
    return 0;
}

/* `unperturb compensate TRACE -o OUT --mode MODE --json OUT.json`: the
 * measured and approximated windows */
static int compensate(const char *trace, const char *out, const char *mode, double *Tm,
                      double *Ta)
{
    char json[PATH_MAX + 16], *argv[12];
    json_t *root;
    json_error_t je;
    int rc, n = 0;
    snprintf(json, sizeof json, "%s.json", out);
    argv[n++] = V.exe, argv[n++] = "compensate", argv[n++] = (char *)trace;
    argv[n++] = "-o", argv[n++] = (char *)out, argv[n++] = "--mode", argv[n++] = (char *)mode;
    argv[n++] = "--json", argv[n++] = json, argv[n++] = "-q", argv[n] = NULL;
    fprintf(V.log, "== compensate %s (%s)\n", trace, mode);
    if ((rc = run(argv, NULL)) != 0)
        return run_failed("unperturb compensate", rc);
    if (!(root = json_load_file(json, 0, &je))) {
        fprintf(stderr, "unperturb validate: %s: %s\n", json, je.text);
        return 1;
    }
    *Tm = json_number_value(json_object_get(root, "measured_time_s"));
    *Ta = json_number_value(json_object_get(root, "approximated_time_s"));
    json_decref(root);
    return 0;
}

static int traced(row *r, unsigned rep)
{
    char *argv[MAXARGV + 12], npbuf[16], out[PATH_MAX + 64], comp[PATH_MAX + 96], xb[24],
        what[96];
    int n = 0, rc;
    double Ta;
    up_err err = {0};
    snprintf(out, sizeof out, "%s/np%u-x%u/trace-%u", V.dir, r->np, r->extra, rep);
    snprintf(xb, sizeof xb, "%u", r->extra);
    argv[n++] = V.exe, argv[n++] = "trace", argv[n++] = "-q", argv[n++] = "-o";
    argv[n++] = out, argv[n++] = "--extra-ns", argv[n++] = xb;
    if (V.functions)
        argv[n++] = "--functions";
    argv[n++] = "--";
    launch_argv(argv + n, r->np, npbuf, sizeof npbuf);
    fprintf(V.log, "== np %u, run %u, traced, extra %u ns\n", r->np, rep + 1, r->extra);
    if ((rc = run(argv, NULL)) != 0) {
        snprintf(what, sizeof what, "the traced run (np %u, extra %u ns)", r->np, r->extra);
        return run_failed(what, rc);
    }
    if (up_counts_read(out, &r->cnt[rep], &err) != UP_OK) {
        fprintf(stderr, "unperturb validate: cannot count the records of the traced run (np %u, "
                        "extra %u ns): %s\n", r->np, r->extra, err.msg);
        return 1;
    }
    r->records[rep] = r->cnt[rep]->total;
    snprintf(comp, sizeof comp, "%s-network", out);
    if ((rc = compensate(out, comp, "network", &r->Tm[rep], &Ta)) != 0)
        return rc;
    r->Tn[rep] = Ta;
    fprintf(V.csv, "%u,%u,%u,traced,%.9f,%.9f\n", r->np, r->extra, rep + 1, r->Tm[rep], Ta);
    if (r->best_traced < 0 || r->Tm[rep] < r->Tm[r->best_traced]) {
        char old[PATH_MAX + 64];
        if (r->best_traced >= 0) { /* keep only the fastest traced run */
            snprintf(old, sizeof old, "%s/np%u-x%u/trace-%d", V.dir, r->np, r->extra,
                     r->best_traced);
            up_rmtree(old);
            snprintf(old + strlen(old), sizeof old - strlen(old), "-network");
            up_rmtree(old);
            snprintf(old + strlen(old), sizeof old - strlen(old), ".json");
            unlink(old);
        }
        r->best_traced = (int)rep;
    } else {
        up_rmtree(out);
        up_rmtree(comp);
        snprintf(comp + strlen(comp), sizeof comp - strlen(comp), ".json");
        unlink(comp);
    }
    return 0;
}

/* the kept run becomes DIR/npN-xE/trace, its compensations lower/upper/network */
static int finish_row(row *r)
{
    char base[PATH_MAX + 32], from[PATH_MAX + 64], to[PATH_MAX + 64];
    double Tm;
    r->Ta[2] = r->Tn[r->best_traced];
    snprintf(base, sizeof base, "%s/np%u-x%u", V.dir, r->np, r->extra);
    snprintf(from, sizeof from, "%s/trace-%d", base, r->best_traced);
    snprintf(to, sizeof to, "%s/trace", base);
    if (rename(from, to) != 0)
        return cmd_fail("validate", 1, "cannot rename the kept trace");
    snprintf(from, sizeof from, "%s/trace-%d-network", base, r->best_traced);
    snprintf(to, sizeof to, "%s/network", base);
    if (rename(from, to) != 0)
        return cmd_fail("validate", 1, "cannot rename the kept compensation");
    snprintf(from, sizeof from, "%s/trace-%d-network.json", base, r->best_traced);
    snprintf(to, sizeof to, "%s/network.json", base);
    rename(from, to);
    snprintf(from, sizeof from, "%s/trace", base);
    snprintf(to, sizeof to, "%s/lower", base);
    if (compensate(from, to, "lower", &Tm, &r->Ta[0]) != 0)
        return 1;
    snprintf(to, sizeof to, "%s/upper", base);
    if (compensate(from, to, "upper", &Tm, &r->Ta[1]) != 0)
        return 1;
    return 0;
}

/* Repetition k of one rank count is done (rows: its nx rows; ref: the row
 * of the smallest extra cost): every traced run of it is compared with the
 * reference run, the first traced run of row ref, and its table freed. */
static int compare_counts(row *rows, unsigned nx, unsigned ref, unsigned k)
{
    const up_counts *c0 = rows[ref].cnt[0];
    up_err err = {0};
    unsigned e;
    for (e = 0; e < nx; e++) {
        row *r = &rows[e];
        r->ref_extra = rows[ref].extra;
        if (e == ref && k == 0)
            continue; /* the reference itself, kept for the rest */
        if (up_counts_compare(c0, r->cnt[k], &r->diff[k], &r->ndiff[k], &err) != UP_OK)
            return cmd_fail("validate", 1, err.msg);
        V.compared++;
        up_counts_free(r->cnt[k]);
        r->cnt[k] = NULL;
    }
    return 0;
}

/* traced runs of a row that differ from the reference; *shown: the one
 * whose top region differs most (-1: none) */
static unsigned differing_runs(const row *r, int *shown)
{
    unsigned k, n = 0;
    *shown = -1;
    for (k = 0; k < V.repeat; k++) {
        if (!r->ndiff[k])
            continue;
        n++;
        if (*shown < 0 || fabs(r->diff[k][0].rel) > fabs(r->diff[*shown][0].rel))
            *shown = (int)k;
    }
    return n;
}

/* "MPI_Sendrecv 23386 -> 6358 (-72.8%)" */
static void diff_text(char *buf, size_t cap, const up_count_diff *d)
{
    char rel[32];
    if (d->ref)
        snprintf(rel, sizeof rel, "%+.1f%%", 100 * d->rel);
    else
        snprintf(rel, sizeof rel, "not in the reference");
    snprintf(buf, cap, "%s %llu -> %llu (%s)", up_esc(d->name), (unsigned long long)d->ref,
             (unsigned long long)d->n, rel);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* min, median, max of n values */
static void spread(const double *v, unsigned n, double out[3])
{
    double s[MAXREP];
    memcpy(s, v, n * sizeof *v);
    qsort(s, n, sizeof *s, cmp_double);
    out[0] = s[0];
    out[1] = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    out[2] = s[n - 1];
}

/* Under the table: one line per row whose traced runs are not the same
 * execution as the reference, its top regions by relative difference:
 *   np 2, extra 1000 ns: a different execution: MPI_Sendrecv 23386 -> 6358 (-72.8%), ...
 * or one line saying that every run kept within the rule. */
static void print_differences(FILE *f, const row *rows, unsigned nrows)
{
    unsigned i, nflag = 0;
    char buf[1024];
    for (i = 0; i < nrows; i++) {
        int shown;
        nflag += differing_runs(&rows[i], &shown) > 0;
    }
    if (!V.compared) {
        fprintf(f, "\nRecords per region: one traced run per rank count, nothing to compare it "
                   "with\n(give --repeat 2 or more, or two --extra-ns values).\n");
        return;
    }
    if (!nflag) {
        fprintf(f, "\nSame execution: every traced run has the records per region of the reference "
                   "run (the first traced\nrun at the smallest extra cost) within %d%% (regions "
                   "with %d records or more, all ranks).\n",
                UP_COUNTS_TOL_PCT, UP_COUNTS_FLOOR);
        return;
    }
    fprintf(f, "\nDifferent executions: Enter records per region (all ranks) differ by more than "
               "%d%% from those of the\nreference run, the first traced run at the smallest extra "
               "cost; regions with fewer than %d records\nin both are not compared.  T of these "
               "rows is another program's time: leave them out.\n",
            UP_COUNTS_TOL_PCT, UP_COUNTS_FLOOR);
    for (i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        int shown;
        unsigned nd = differing_runs(r, &shown), j;
        const up_count_diff *d;
        size_t n;
        if (!nd)
            continue;
        d = r->diff[shown];
        n = r->ndiff[shown];
        fprintf(f, "np %u, extra %u ns: a different execution: ", r->np, r->extra);
        for (j = 0; j < n && j < TOP_TEXT; j++) {
            diff_text(buf, sizeof buf, &d[j]);
            fprintf(f, "%s%s", j ? ", " : "", buf);
        }
        if (n > TOP_TEXT)
            fprintf(f, ", and %zu more region%s", n - TOP_TEXT, n - TOP_TEXT > 1 ? "s" : "");
        fprintf(f, "; %u of %u traced runs differ (run %d shown), against extra %u ns run 1\n",
                nd, V.repeat, shown + 1, r->ref_extra);
    }
}

/* Honest bounds (issue 20, item 5): the uninstrumented runs spread by
 * s = max - min themselves, so the median T counts as inside when it lies
 * in [lower - s, upper + s]; t: min, median, max of the runs. */
static bool inside_with_spread(const row *r, const double t[3])
{
    double s = t[2] - t[0];
    return r->Ta[0] - s <= t[1] && t[1] <= r->Ta[1] + s;
}

static void print_table(FILE *f, const row *rows, unsigned nrows)
{
    unsigned i;
    fprintf(f, "Fastest of %u runs each; times in seconds over the window MPI_Init..MPI_Finalize;\n"
               "(median, max) of the runs in brackets.  delta_m = (Tm-T)/T, delta_a = |Ta-T|/T;\n"
               "noise = (median T - T)/T, how far apart the uninstrumented runs themselves are;\n"
               "netw runs: Ta_netw of every traced run, min (median, max);\n"
               "width = (Ta_upper - Ta_lower)/median T; inside: the median T lies in\n"
               "[Ta_lower - s, Ta_upper + s], s = max - min of the uninstrumented runs;\n"
               "(different execution): a traced run's records per region differ from the reference\n"
               "run's by more than %d%% (lines below the table).\n\n",
            V.repeat, UP_COUNTS_TOL_PCT);
    fprintf(f, "%4s %8s  %-26s %-26s %9s %9s %9s %-26s %8s %8s %8s %8s %8s %8s  %s\n", "np",
            "extra_ns", "T (median, max)", "Tm (median, max)", "Ta_lower", "Ta_upper", "Ta_netw",
            "netw runs (median, max)", "delta_m", "da_lower", "da_upper", "da_netw", "noise",
            "width", "inside");
    for (i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        double t[3], m[3], n[3], T;
        char ts[64], ms[64], ns[64];
        int shown;
        bool different = differing_runs(r, &shown) > 0;
        spread(r->T, V.repeat, t);
        spread(r->Tm, V.repeat, m);
        spread(r->Tn, V.repeat, n);
        T = t[0];
        snprintf(ts, sizeof ts, "%.4f (%.4f, %.4f)", t[0], t[1], t[2]);
        snprintf(ms, sizeof ms, "%.4f (%.4f, %.4f)", m[0], m[1], m[2]);
        snprintf(ns, sizeof ns, "%.4f (%.4f, %.4f)", n[0], n[1], n[2]);
        fprintf(f, "%4u %8u  %-26s %-26s %9.4f %9.4f %9.4f %-26s %7.1f%% %7.1f%% %7.1f%% %7.1f%% %7.1f%% %7.1f%%  %s%s%s\n",
                r->np, r->extra, ts, ms, r->Ta[0], r->Ta[1], r->Ta[2], ns, 100 * (m[0] - T) / T,
                100 * fabs(r->Ta[0] - T) / T, 100 * fabs(r->Ta[1] - T) / T,
                100 * fabs(r->Ta[2] - T) / T, 100 * (t[1] - T) / T,
                100 * (r->Ta[1] - r->Ta[0]) / t[1], inside_with_spread(r, t) ? "yes" : "no",
                r->np > V.cores ? "  (oversubscribed)" : "",
                different ? "  (different execution)" : "");
    }
    print_differences(f, rows, nrows);
}

/* A row's records per region against the reference run: whether it is a
 * different execution, and per differing run its top regions */
static void json_counts(json_t *o, const row *r)
{
    json_t *runs = json_array(), *diffs = json_array();
    unsigned k;
    size_t j;
    int shown;
    for (k = 0; k < V.repeat; k++)
        json_array_append_new(runs, json_integer((json_int_t)r->records[k]));
    for (k = 0; k < V.repeat; k++) {
        json_t *d, *regs;
        if (!r->ndiff[k])
            continue;
        d = json_object(), regs = json_array();
        for (j = 0; j < r->ndiff[k] && j < TOP_JSON; j++) {
            const up_count_diff *x = &r->diff[k][j];
            json_t *name = json_string(x->name);
            if (!name) { /* not UTF-8: the bytes escaped as the messages show them */
                char esc[1024];
                name = json_string(up_text_escape(esc, sizeof esc, x->name, 0));
            }
            json_array_append_new(
                regs, json_pack("{s:o, s:I, s:I, s:o}", "region", name, "reference_count",
                                (json_int_t)x->ref, "count", (json_int_t)x->n, "relative",
                                x->ref ? json_real(x->rel) : json_null()));
        }
        json_object_set_new(d, "run", json_integer(k + 1));
        json_object_set_new(d, "regions_differing", json_integer((json_int_t)r->ndiff[k]));
        json_object_set_new(d, "regions", regs);
        json_array_append_new(diffs, d);
    }
    json_object_set_new(o, "different_execution", json_boolean(differing_runs(r, &shown) > 0));
    json_object_set_new(o, "count_reference",
                        json_pack("{s:i, s:i}", "extra_ns", r->ref_extra, "run", 1));
    json_object_set_new(o, "runs_enter_records", runs);
    json_object_set_new(o, "count_differences", diffs);
}

static json_t *json_table(const row *rows, unsigned nrows)
{
    json_t *root = json_object(), *arr = json_array(), *prog = json_array(), *l = json_array();
    unsigned i;
    int k;
    for (k = 0; V.prog[k]; k++)
        json_array_append_new(prog, json_string(V.prog[k]));
    for (k = 0; k < V.nlauncher; k++)
        json_array_append_new(l, json_string(V.launcher[k]));
    json_object_set_new(root, "program", prog);
    json_object_set_new(root, "launcher", l);
    json_object_set_new(root, "repeat", json_integer(V.repeat));
    json_object_set_new(root, "cores", json_integer(V.cores));
    json_object_set_new(root, "functions", json_boolean(V.functions));
    json_object_set_new(root, "count_rule",
                        json_pack("{s:s, s:f, s:i}", "reference",
                                  "the first traced run at the smallest extra_ns of its np",
                                  "tolerance", UP_COUNTS_TOL_PCT / 100.0, "floor",
                                  UP_COUNTS_FLOOR));
    for (i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        json_t *o = json_object(), *runs_t = json_array(), *runs_m = json_array(),
               *runs_n = json_array();
        double t[3], m[3], n[3];
        unsigned k2;
        char path[64];
        spread(r->T, V.repeat, t);
        spread(r->Tm, V.repeat, m);
        spread(r->Tn, V.repeat, n);
        for (k2 = 0; k2 < V.repeat; k2++) {
            json_array_append_new(runs_t, json_real(r->T[k2]));
            json_array_append_new(runs_m, json_real(r->Tm[k2]));
            json_array_append_new(runs_n, json_real(r->Tn[k2]));
        }
        snprintf(path, sizeof path, "np%u-x%u", r->np, r->extra);
        json_object_set_new(o, "np", json_integer(r->np));
        json_object_set_new(o, "extra_ns", json_integer(r->extra));
        json_object_set_new(o, "oversubscribed", json_boolean(r->np > V.cores));
        json_object_set_new(o, "T_s", json_real(t[0]));
        json_object_set_new(o, "T_median_s", json_real(t[1]));
        json_object_set_new(o, "T_max_s", json_real(t[2]));
        json_object_set_new(o, "Tm_s", json_real(m[0]));
        json_object_set_new(o, "Tm_median_s", json_real(m[1]));
        json_object_set_new(o, "Tm_max_s", json_real(m[2]));
        json_object_set_new(o, "Ta_lower_s", json_real(r->Ta[0]));
        json_object_set_new(o, "Ta_upper_s", json_real(r->Ta[1]));
        json_object_set_new(o, "Ta_network_s", json_real(r->Ta[2]));
        json_object_set_new(o, "Ta_network_runs_min_s", json_real(n[0]));
        json_object_set_new(o, "Ta_network_runs_median_s", json_real(n[1]));
        json_object_set_new(o, "Ta_network_runs_max_s", json_real(n[2]));
        json_object_set_new(o, "delta_m", json_real((m[0] - t[0]) / t[0]));
        json_object_set_new(o, "delta_a_lower", json_real(fabs(r->Ta[0] - t[0]) / t[0]));
        json_object_set_new(o, "delta_a_upper", json_real(fabs(r->Ta[1] - t[0]) / t[0]));
        json_object_set_new(o, "delta_a_network", json_real(fabs(r->Ta[2] - t[0]) / t[0]));
        json_object_set_new(o, "T_in_bounds", json_boolean(r->Ta[0] <= t[0] && t[0] <= r->Ta[1]));
        json_object_set_new(o, "T_noise", json_real((t[1] - t[0]) / t[0]));
        json_object_set_new(o, "T_spread_s", json_real(t[2] - t[0]));
        json_object_set_new(o, "T_inside", json_boolean(inside_with_spread(r, t)));
        json_object_set_new(o, "bounds_width", json_real((r->Ta[1] - r->Ta[0]) / t[1]));
        json_object_set_new(o, "runs_T_s", runs_t);
        json_object_set_new(o, "runs_Tm_s", runs_m);
        json_object_set_new(o, "runs_Ta_network_s", runs_n);
        json_object_set_new(o, "folder", json_string(path));
        json_counts(o, r);
        json_array_append_new(arr, o);
    }
    json_object_set_new(root, "rows", arr);
    return root;
}

/* Fig. 1 of [W]: time against rank count, one panel per extra cost */
static int write_plot(const char *path, const row *rows, unsigned nrows, const unsigned *nps,
                      unsigned nnp, const unsigned *extras, unsigned nx)
{
    static const char *const names[5] = {"uninstrumented T", "measured Tm", "lower Ta",
                                          "upper Ta", "network Ta"};
    double x[MAXV], y[MAXV][5][MAXV];
    up_series series[MAXV][5];
    up_panel panels[MAXV];
    char titles[MAXV][64];
    up_plot p;
    FILE *f;
    unsigned e, i, k, s;
    for (i = 0; i < nnp; i++)
        x[i] = nps[i];
    for (e = 0; e < nx; e++) {
        for (i = 0; i < nnp; i++) {
            for (s = 0; s < 5; s++)
                y[e][s][i] = NAN;
            for (k = 0; k < nrows; k++)
                if (rows[k].np == nps[i] && rows[k].extra == extras[e]) {
                    double t[3], m[3];
                    spread(rows[k].T, V.repeat, t);
                    spread(rows[k].Tm, V.repeat, m);
                    y[e][0][i] = t[0], y[e][1][i] = m[0];
                    y[e][2][i] = rows[k].Ta[0], y[e][3][i] = rows[k].Ta[1];
                    y[e][4][i] = rows[k].Ta[2];
                }
        }
        for (s = 0; s < 5; s++)
            series[e][s] = (up_series){names[s], y[e][s]};
        snprintf(titles[e], sizeof titles[e], "extra cost %u ns per record", extras[e]);
        panels[e] = (up_panel){titles[e], nnp, x, 5, series[e]};
    }
    p = (up_plot){"Measured and approximated run time (fastest of each)", "MPI ranks",
                  "time, s", nx, panels};
    if (!(f = fopen(path, "w")))
        return -1;
    if (up_plot_svg(f, &p) != 0) {
        fclose(f);
        return -1;
    }
    return fclose(f);
}

static long online_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}

int cmd_validate(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'}, {"np", required_argument, 0, 'n'},
        {"repeat", required_argument, 0, 'r'}, {"extra-ns", required_argument, 0, 'x'},
        {"launcher", required_argument, 0, 'l'}, {"functions", no_argument, 0, 'F'},
        {"timeout", required_argument, 0, 't'}, {"json", required_argument, 0, 'j'},
        {"force", no_argument, 0, 'f'}, {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    unsigned nps[MAXV] = {2}, nnp = 1, extras[MAXV] = {0}, nx = 1, i, e, k, nrows = 0, eref = 0;
    const char *json_path = NULL, *launcher = "mpirun";
    char *lcopy = NULL, path[PATH_MAX + 64];
    bool force = false;
    row *rows = NULL;
    up_outset *os = NULL;
    size_t o_json = 0;
    up_err err = {0};
    json_t *js = NULL;
    char *jtext = NULL;
    FILE *tf;
    ssize_t len;
    int c, rc = 1;
    double v;

    V.repeat = 5, V.timeout = 600;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+:o:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'o': V.out_final = optarg; break;
        case 'n':
            if (!parse_list("--np", optarg, &R_NP, nps, &nnp))
                return 2;
            break;
        case 'x':
            if (!parse_list("--extra-ns", optarg, &R_EXTRA, extras, &nx))
                return 2;
            break;
        case 'r':
            if ((rc = cmd_opt_num("validate", "--repeat", optarg, &R_REPEAT, &v)))
                return rc;
            V.repeat = (unsigned)v;
            break;
        case 't':
            if ((rc = cmd_opt_num("validate", "--timeout", optarg, &R_TIMEOUT, &v)))
                return rc;
            V.timeout = (unsigned)v;
            break;
        case 'l': launcher = optarg; break;
        case 'F': V.functions = true; break;
        case 'j': json_path = optarg; break;
        case 'f': force = true; break;
        case 'q': V.quiet = true; break;
        case 'h': usage(stdout); return 0;
        default: return cmd_bad_option("validate", c, argv, opts);
        }
    }
    rc = 1;
    if (!V.out_final)
        return cmd_usage("validate", "no output folder given (-o DIR)%s", "");
    if (optind >= argc)
        return cmd_usage("validate", "no program given (-- PROGRAM [ARGS])%s", "");
    V.prog = argv + optind;
    if (!(lcopy = strdup(launcher)))
        return cmd_fail("validate", 1, "out of memory");
    for (char *tok = strtok(lcopy, " \t"); tok; tok = strtok(NULL, " \t"))
        if (V.nlauncher < 60)
            V.launcher[V.nlauncher++] = tok;
    if (!V.nlauncher) {
        free(lcopy);
        return cmd_fail("validate", 2, "--launcher is empty");
    }
    V.cores = (unsigned)online_cores();
    if ((len = readlink("/proc/self/exe", V.exe, sizeof V.exe - 1)) < 0) {
        free(lcopy);
        return cmd_fail("validate", 1, "cannot find my own executable");
    }
    V.exe[len] = '\0';
    if (cmd_near_exe("UNPERTURB_TIME_LIB", "lib/libunperturb-time.so", V.shim, sizeof V.shim) != 0) {
        fprintf(stderr, "unperturb validate: cannot find libunperturb-time.so (looked at '%s'); "
                        "set UNPERTURB_TIME_LIB\n", V.shim);
        free(lcopy);
        return 1;
    }
    if (access(V.prog[0], X_OK) != 0 && !strchr(V.prog[0], '/')) {
        /* found through PATH by the launcher; nothing to check here */
    } else if (access(V.prog[0], X_OK) != 0) {
        fprintf(stderr, "unperturb validate: cannot run '%s': %s\n", V.prog[0], strerror(errno));
        free(lcopy);
        return 1;
    }
    if (!(rows = calloc((size_t)nnp * nx, sizeof *rows))) {
        free(lcopy);
        return cmd_fail("validate", 1, "out of memory");
    }
    if (up_outset_new(&os, force, &err) != UP_OK ||
        (access(V.prog[0], F_OK) == 0 && up_outset_input(os, V.prog[0], false, &err) != UP_OK) ||
        up_outset_add(os, V.out_final, UP_OUT_DIR, "-o", NULL, &err) != UP_OK ||
        (json_path && up_outset_add(os, json_path, UP_OUT_FILE, "--json", &o_json, &err) != UP_OK) ||
        up_outset_begin(os, &err) != UP_OK) {
        rc = cmd_fail("validate", err.status == UP_EUSAGE ? 2 : 1, err.msg);
        goto out;
    }
    if (!realpath(up_outset_tmp(os, 0), V.dir)) {
        rc = cmd_fail("validate", 1, "cannot resolve the output folder");
        goto out;
    }
    snprintf(path, sizeof path, "%s/log.txt", V.dir);
    if (!(V.log = fopen(path, "w"))) {
        rc = cmd_fail("validate", 1, "cannot write log.txt in the output folder");
        goto out;
    }
    snprintf(path, sizeof path, "%s/runs.csv", V.dir);
    if (!(V.csv = fopen(path, "w"))) {
        rc = cmd_fail("validate", 1, "cannot write runs.csv in the output folder");
        goto out;
    }
    fprintf(V.csv, "np,extra_ns,run,kind,window_s,Ta_network_s\n");
    for (i = 0; i < nnp; i++) {
        snprintf(path, sizeof path, "%s/np%u", V.dir, nps[i]);
        mkdir(path, 0777);
        for (e = 0; e < nx; e++) {
            row *r = &rows[nrows++];
            r->np = nps[i], r->extra = extras[e], r->best_traced = -1;
            snprintf(path, sizeof path, "%s/np%u-x%u", V.dir, nps[i], extras[e]);
            mkdir(path, 0777);
        }
    }
    for (e = 1; e < nx; e++) /* the reference of the record counts */
        if (extras[e] < extras[eref])
            eref = e;
    catch_signals();

    /* alternate: per repetition, uninstrumented then traced at each extra cost */
    for (i = 0; i < nnp; i++) {
        for (k = 0; k < V.repeat; k++) {
            row *first = &rows[i * nx];
            double T = NAN;
            if (interrupted || (rc = untraced(nps[i], k, &T)) != 0)
                goto interrupted_or_failed;
            for (e = 0; e < nx; e++)
                rows[i * nx + e].T[k] = T;
            for (e = 0; e < nx; e++) {
                if (interrupted || (rc = traced(&first[e], k)) != 0)
                    goto interrupted_or_failed;
                say("np %u, run %u/%u: T %.4f s, extra %u ns: Tm %.4f s", nps[i], k + 1,
                    V.repeat, T, extras[e], first[e].Tm[k]);
            }
            fflush(V.csv);
            if ((rc = compare_counts(&rows[i * nx], nx, eref, k)) != 0)
                goto out;
        }
        for (e = 0; e < nx; e++)
            if ((rc = finish_row(&rows[i * nx + e])) != 0)
                goto out;
    }
    restore_signals();

    print_table(stdout, rows, nrows);
    snprintf(path, sizeof path, "%s/table.txt", V.dir);
    if ((tf = fopen(path, "w"))) {
        print_table(tf, rows, nrows);
        fclose(tf);
    }
    js = json_table(rows, nrows);
    snprintf(path, sizeof path, "%s/validate.json", V.dir);
    if (!(jtext = json_dumps(js, JSON_INDENT(2))) ||
        up_write_file(path, jtext, strlen(jtext), &err) != UP_OK ||
        (json_path && up_write_file(up_outset_tmp(os, o_json), jtext, strlen(jtext), &err) != UP_OK)) {
        rc = cmd_fail("validate", 1, jtext ? err.msg : "out of memory");
        goto out;
    }
    snprintf(path, sizeof path, "%s/plot.svg", V.dir);
    if (write_plot(path, rows, nrows, nps, nnp, extras, nx) != 0) {
        rc = cmd_fail("validate", 1, "cannot write plot.svg");
        goto out;
    }
    fclose(V.log), V.log = NULL;
    fclose(V.csv), V.csv = NULL;
    if (up_outset_commit(os, &err) != UP_OK) {
        rc = cmd_fail("validate", 1, err.msg);
        goto out;
    }
    say("%s: table.txt, validate.json, plot.svg, runs.csv, and the kept traces", V.out_final);
    rc = 0;
    goto out;

interrupted_or_failed:
    if (interrupted) {
        cmd_fail("validate", 1, "interrupted; nothing written");
        if (V.log)
            fclose(V.log);
        if (V.csv)
            fclose(V.csv);
        up_outset_free(os); /* the temporaries go, then the signal ends us */
        signal(interrupted, SIG_DFL);
        raise(interrupted);
        rc = 128 + interrupted;
        V.log = V.csv = NULL;
        os = NULL;
    }
out:
    if (V.log)
        fclose(V.log);
    if (V.csv)
        fclose(V.csv);
    json_decref(js);
    free(jtext);
    up_outset_free(os);
    for (i = 0; rows && i < nrows; i++)
        for (k = 0; k < MAXREP; k++) {
            up_counts_free(rows[i].cnt[k]);
            up_free(rows[i].diff[k]);
        }
    free(rows);
    free(lcopy);
    return rc;
}
