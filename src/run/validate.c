/*
 * validate.c - the pipeline of `unperturb validate`: the papers' accuracy
 * experiment on the user's own program ([W] Section 5 and Fig. 1; [S]
 * Section 4).
 *
 * For every rank count the program runs `repeat` times uninstrumented
 * (timed by libunperturb-time.so over the analysis window: end of MPI_Init
 * to start of MPI_Finalize) and, alternating with those runs, traced once per
 * extra cost.  The fastest run of each kind is kept, as the paper does; the
 * fastest traced run is compensated in lower, upper and network mode with
 * the calibration stored in its archive.  It runs the `unperturb trace`
 * command, compensates with the pipeline of `unperturb compensate` in this
 * process (which resolves its parameters as the command does, up_run_params,
 * and writes the same folders and --json summaries), and reads the records
 * per region of every traced run (src/analysis/counts.h): a run whose
 * counts differ by more than 1% from the reference run (the first traced
 * run at the smallest extra cost of its rank count) is a different
 * execution.  Writes log.txt, runs.csv and per
 * configuration the kept trace and its three compensations; the table,
 * validate.json and plot.svg are the view's (src/report/runs.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run/launch.h"

void up_run_val_opts_init(up_run_val_opts *o)
{
    memset(o, 0, sizeof *o);
    o->np[0] = 2, o->nnp = 1;
    o->extra[0] = 0, o->nx = 1;
    o->repeat = 5, o->timeout = 600, o->seed = 1;
    o->launcher = "mpirun";
    o->cores = 1;
}

/* ---- parts ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void up_run_val_spread(const double *x, unsigned n, double out[3])
{
    double s[UP_VAL_MAXREP];
    memcpy(s, x, n * sizeof *x);
    qsort(s, n, sizeof *s, cmp_double);
    out[0] = s[0];
    out[1] = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    out[2] = s[n - 1];
}

void up_run_val_paired(const up_run_val_row *r, unsigned n, double out[3])
{
    double d[UP_VAL_MAXREP];
    unsigned k;
    for (k = 0; k < n; k++)
        d[k] = (r->Tm[k] - r->T[k]) / r->T[k];
    up_run_val_spread(d, n, out);
}

int up_run_val_launch_argv(char *const *launcher, int nlauncher, char *const *prog, unsigned np,
                       unsigned cores, bool root, char **argv, char *npbuf, size_t npcap)
{
    int n = 0, i;
    const char *base = strrchr(launcher[0], '/');
    bool mpirun, over = false, asroot = false;
    base = base ? base + 1 : launcher[0];
    mpirun = !strcmp(base, "mpirun") || !strcmp(base, "mpiexec") || !strcmp(base, "orterun");
    for (i = 0; i < nlauncher; i++) {
        over |= !strcmp(launcher[i], "--oversubscribe");
        asroot |= !strcmp(launcher[i], "--allow-run-as-root");
        argv[n++] = launcher[i];
    }
    if (mpirun && !asroot && root)
        argv[n++] = "--allow-run-as-root";
    if (mpirun && !over && np > cores)
        argv[n++] = "--oversubscribe";
    snprintf(npbuf, npcap, "%u", np);
    argv[n++] = "-np";
    argv[n++] = npbuf;
    for (i = 0; prog[i] && n < UP_VAL_MAXARGV - 1; i++)
        argv[n++] = prog[i];
    argv[n] = NULL;
    return n;
}

void up_run_val_csv_header(FILE *f) { fprintf(f, "np,extra_ns,run,kind,window_s,Ta_network_s\n"); }

void up_run_val_csv_untraced(FILE *f, unsigned np, unsigned rep, double T)
{
    fprintf(f, "%u,,%u,uninstrumented,%.9f,\n", np, rep + 1, T);
}

void up_run_val_csv_traced(FILE *f, unsigned np, unsigned extra, unsigned rep, double Tm, double Ta)
{
    fprintf(f, "%u,%u,%u,traced,%.9f,%.9f\n", np, extra, rep + 1, Tm, Ta);
}

double up_run_val_read_window(const char *path)
{
    /* seconds as the shim writes them (S.SSSSSSSSS, negative only if its
     * clocks went wrong): a decimal number, like every number read */
    static const up_range R_WINDOW = {-1e9, 1e9, false, "s"};
    char *text, *p, why[128];
    double v = NAN;
    up_err e = {0};
    /* the shim's file: a few lines, a regular file (up_text_file_read) */
    if (up_text_file_read(path, "time file", 65536, &text, NULL, &e) != UP_OK)
        return NAN;
    for (p = text; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (!strncmp(p, "window_s=", 9)) {
            char *nl = strchr(p, '\n');
            if (nl)
                *nl = '\0';
            if (!up_num_parse(p + 9, &R_WINDOW, &v, why, sizeof why))
                v = NAN;
            if (nl)
                *nl = '\n';
        }
    up_free(text);
    return v;
}

bool up_run_val_inside(const up_run_val_row *r, const double t[3])
{
    double s = t[2] - t[0];
    return r->Ta[0] - s <= t[1] && t[1] <= r->Ta[1] + s;
}

unsigned up_run_val_differing(const up_run_val_row *r, unsigned repeat, int *shown)
{
    unsigned k, n = 0;
    *shown = -1;
    for (k = 0; k < repeat; k++) {
        if (!r->ndiff[k])
            continue;
        n++;
        if (*shown < 0 || fabs(r->diff[k][0].rel) > fabs(r->diff[*shown][0].rel))
            *shown = (int)k;
    }
    return n;
}

up_status up_run_val_compare_counts(up_run_val_row *rows, unsigned nx, unsigned ref, unsigned k,
                                unsigned long *compared, up_err *err)
{
    const up_counts *c0 = rows[ref].cnt[0];
    up_status st;
    unsigned e;
    for (e = 0; e < nx; e++) {
        up_run_val_row *r = &rows[e];
        r->ref_extra = rows[ref].extra;
        if (e == ref && k == 0)
            continue; /* the reference itself, kept for the rest */
        if ((st = up_counts_compare(c0, r->cnt[k], &r->diff[k], &r->ndiff[k], err)) != UP_OK)
            return st;
        (*compared)++;
        up_counts_free(r->cnt[k]);
        r->cnt[k] = NULL;
    }
    return UP_OK;
}

/* ---- runs ---- */

static volatile sig_atomic_t interrupted;
static volatile pid_t running;

static void on_signal(int sig)
{
    interrupted = sig;
    if (running > 0)
        kill(-running, SIGTERM); /* the run's whole process group */
}

/* While runs go on, SIGINT, SIGTERM and SIGHUP stop them and end the command
 * the ordinary way (which removes the output set's temporaries); `old_sa`
 * keeps the output set's handlers, put back with restore_signals. */
static const int stop_sigs[] = {SIGINT, SIGTERM, SIGHUP};
static struct sigaction old_sa[3];

static void catch_signals(void)
{
    struct sigaction sa;
    size_t i;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    interrupted = 0;
    for (i = 0; i < 3; i++)
        sigaction(stop_sigs[i], &sa, &old_sa[i]);
}

static void restore_signals(void)
{
    size_t i;
    for (i = 0; i < 3; i++)
        sigaction(stop_sigs[i], &old_sa[i], NULL);
}

/* What log.txt keeps of one run's output: the first LOG_HEAD bytes and the
 * last LOG_TAIL (a run that prints without end must not fill the disk: an
 * 84 MB log was seen), with a line that says how much was left out. */
#define LOG_HEAD ((size_t)256 << 10)
#define LOG_TAIL ((size_t)64 << 10)

typedef struct logcap {
    size_t head;      /* bytes written to the log from the start */
    char *ring;       /* the last LOG_TAIL bytes after those */
    size_t rpos;      /* bytes that went into the ring, in all */
} logcap;

static void log_take(logcap *c, FILE *log, const char *p, size_t n)
{
    size_t k;
    if (c->head < LOG_HEAD) {
        k = n < LOG_HEAD - c->head ? n : LOG_HEAD - c->head;
        fwrite(p, 1, k, log);
        c->head += k;
        p += k;
        n -= k;
    }
    for (; n && c->ring; p++, n--)
        c->ring[c->rpos++ % LOG_TAIL] = *p;
}

static void log_end(logcap *c, FILE *log)
{
    size_t kept = c->rpos < LOG_TAIL ? c->rpos : LOG_TAIL, first = c->rpos - kept;
    if (c->rpos > kept)
        fprintf(log, "\n[... %zu bytes of this run's output left out: log.txt keeps the first %zu KiB and "
                     "the last %zu KiB of each run ...]\n",
                c->rpos - kept, LOG_HEAD >> 10, LOG_TAIL >> 10);
    for (; first < c->rpos; first++)
        fputc(c->ring[first % LOG_TAIL], log);
    fflush(log);
}

/* Run argv in its own process group with `env` (NAME=VALUE, NULL-ended) added,
 * its output through a pipe into the log (log_take); returns its wait status
 * (0: it exited with 0), -1 if it could not be started, -2 on timeout. */
static int run(up_run_val *v, char *const *argv, char *const *env)
{
    pid_t pid;
    int status = 0, pfd[2];
    bool exited = false, eof = false, late = false;
    struct timespec t0, now, done_at = {0, 0};
    logcap cap = {0, NULL, 0};
    char buf[16384];
    size_t i;
    fflush(v->log);
    if (pipe2(pfd, O_CLOEXEC) != 0)
        return -1;
    if ((pid = fork()) < 0) {
        close(pfd[0]);
        close(pfd[1]);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        dup2(pfd[1], 1);
        dup2(pfd[1], 2);
        for (i = 0; env && env[i]; i++)
            putenv(env[i]);
        up_run_exec_child("validate", argv);
    }
    close(pfd[1]);
    setpgid(pid, pid);
    running = pid;
    cap.ring = malloc(LOG_TAIL); /* without it, only the head is kept */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* until the run has ended and its output is drained (what it started
     * and left behind may hold the pipe: 2 s more at most) */
    while (!exited || !eof) {
        struct pollfd pf = {pfd[0], POLLIN, 0};
        if (!eof && poll(&pf, 1, 20) > 0) {
            ssize_t n = read(pfd[0], buf, sizeof buf);
            if (n > 0)
                log_take(&cap, v->log, buf, (size_t)n);
            else if (n == 0 || errno != EINTR)
                eof = true;
        } else if (eof)
            nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (!exited) {
            pid_t r = waitpid(pid, &status, WNOHANG);
            if (r == pid || (r < 0 && errno != EINTR)) {
                exited = true;
                done_at = now;
            } else if (now.tv_sec - t0.tv_sec > (time_t)v->timeout) {
                kill(-pid, SIGKILL);
                waitpid(pid, &status, 0);
                late = true;
                break;
            }
        } else if (now.tv_sec - done_at.tv_sec > 2)
            break;
    }
    running = 0;
    log_end(&cap, v->log);
    free(cap.ring);
    close(pfd[0]);
    return late ? -2 : status;
}

/* the last bytes of the log (the failed run's output) into v->tail: the
 * output folder is not kept after a failure */
static void log_tail(up_run_val *v)
{
    char path[PATH_MAX + 16];
    FILE *f;
    long size;
    size_t n;
    snprintf(path, sizeof path, "%s/log.txt", v->dir);
    fflush(v->log);
    if (!(f = fopen(path, "r")))
        return;
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fseek(f, size > (long)sizeof v->tail - 1 ? size - (long)sizeof v->tail + 1 : 0, SEEK_SET);
    n = fread(v->tail, 1, sizeof v->tail - 1, f);
    v->tail[n] = '\0';
    v->have_tail = true;
    fclose(f);
}

/* A run that failed: rc as run() returned it. */
static up_status run_failed(up_run_val *v, const char *what, int rc, up_err *err)
{
    char how[96];
    if (rc == -2)
        UP_ERR(err, UP_EIO, "%s: no end after %u s (--timeout)", what, v->timeout);
    else if (rc == -1 || (WIFEXITED(rc) && WEXITSTATUS(rc) == 127))
        UP_ERR(err, UP_EIO, "%s could not be started", what);
    else if (WIFEXITED(rc))
        UP_ERR(err, UP_EIO, "%s failed with exit status %d", what, WEXITSTATUS(rc));
    else {
        up_wait_text(rc, how, sizeof how);
        UP_ERR(err, UP_EIO, "%s failed: %s", what, how);
    }
    log_tail(v);
    return UP_EIO;
}

static up_status untraced(up_run_val *v, const up_run_val_opts *o, unsigned np, unsigned rep,
                          double *T, up_err *err)
{
    char *argv[UP_VAL_MAXARGV], npbuf[16], tf[PATH_MAX + 64], e_pre[2 * PATH_MAX + 32],
        e_tf[PATH_MAX + 96], *env[3], what[64];
    const char *old = getenv("LD_PRELOAD");
    int rc;
    snprintf(tf, sizeof tf, "%s/np%u/untraced-%u.time", v->dir, np, rep);
    snprintf(e_pre, sizeof e_pre, "LD_PRELOAD=%s%s%s", v->shim, old && *old ? ":" : "",
             old ? old : "");
    snprintf(e_tf, sizeof e_tf, "UNPERTURB_TIME_FILE=%s", tf);
    env[0] = e_pre, env[1] = e_tf, env[2] = NULL;
    up_run_val_launch_argv(v->launcher, v->nlauncher, v->prog, np, o->cores, o->root, argv, npbuf,
                       sizeof npbuf);
    fprintf(v->log, "== np %u, run %u, uninstrumented\n", np, rep + 1);
    if ((rc = run(v, argv, env)) != 0) {
        snprintf(what, sizeof what, "the uninstrumented run (np %u)", np);
        return run_failed(v, what, rc, err);
    }
    if (!isfinite(*T = up_run_val_read_window(tf))) {
        UP_ERR(err, UP_EIO, "the uninstrumented run (np %u) was not timed: no MPI_Init/MPI_Finalize seen by %s",
               np, v->shim);
        return UP_EIO;
    }
    up_run_val_csv_untraced(v->csv, np, rep, *T);
    return UP_OK;
}

/* What `unperturb compensate` printed when it ran as a child went to the
 * log: its warnings, the damage it found in the trace, and its error. */
static void log_warning(void *ctx, const char *msg)
{
    fprintf(((up_run_val *)ctx)->log, "unperturb compensate: warning: %s\n", msg);
}

static void log_damage(void *ctx, const up_trace *t, const up_damage *d)
{
    char line[1024];
    up_damage_line(t, d, line, sizeof line);
    log_warning(ctx, line);
}

/* A figure as compensate's JSON summary gives it (JSON_REAL_PRECISION(12),
 * report/summary.c): validate read Tm and Ta from there when compensate ran
 * as a child, and its table, JSON and runs.csv keep those figures. */
static double as_summary(double x)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%.12g", x);
    return strtod(buf, NULL);
}

/* `unperturb compensate TRACE -o OUT --mode MODE --json OUT.json -q`, in
 * this process (up_run_compensate, the summary by o->summary): the measured
 * and approximated windows.  As when it ran as a child, the folder's marker
 * names compensate, and a failure is its message in the log and the exit
 * status the command would have had.  A signal that came meanwhile (no run
 * to kill) stops the runs after it. */
static up_status compensate(up_run_val *v, const up_run_val_opts *o, const char *trace, const char *out,
                            up_mode mode, double *Tm, double *Ta, up_err *err)
{
    char json[PATH_MAX + 16], esc[4096];
    up_run_comp_opts co;
    up_run_comp c;
    up_damage_hook hook;
    void *hook_ctx;
    const char *was;
    up_err e = {0};
    up_status st;

    snprintf(json, sizeof json, "%s.json", out);
    fprintf(v->log, "== compensate %s (%s)\n", trace, up_mode_name(mode));
    up_run_comp_opts_init(&co);
    co.input = trace, co.output = out, co.json = o->summary ? json : NULL, co.quiet = true;
    co.cli.mode_set = true, co.cli.mode = mode;
    co.warn = log_warning, co.warn_ctx = v;
    was = up_output_command("compensate");
    hook = up_trace_damage_hook(&hook_ctx);
    up_trace_set_damage_hook(log_damage, v);
    st = up_run_compensate(&co, &c, &e);
    if (st == UP_OK && o->summary)
        st = o->summary(o->summary_ctx, &c, trace, out, up_outset_tmp(c.outs, c.o_json), &e);
    if (st == UP_OK)
        st = up_outset_commit(c.outs, &e);
    if (st == UP_OK) {
        *Tm = as_summary(up_replay_measured_s(&c.res));
        *Ta = as_summary(up_replay_approximated_s(&c.res));
    }
    up_run_comp_free(&c); /* (which closes the trace: repairs are reported then) */
    up_trace_set_damage_hook(hook, hook_ctx);
    up_output_command(was);
    if (st != UP_OK) {
        fprintf(v->log, "unperturb compensate: %s\n", up_text_escape(esc, sizeof esc, e.msg, 0));
        UP_ERR(err, UP_EIO, "unperturb compensate failed with exit status %d", e.status == UP_EUSAGE ? 2 : 1);
        log_tail(v);
        return UP_EIO;
    }
    fflush(v->log);
    if (interrupted) {
        err->status = UP_EIO;
        err->msg[0] = '\0';
        return UP_EIO;
    }
    return UP_OK;
}

static up_status traced(up_run_val *v, const up_run_val_opts *o, up_run_val_row *r, unsigned rep,
                        up_err *err)
{
    char *argv[UP_VAL_MAXARGV + 12], npbuf[16], out[PATH_MAX + 64], comp[PATH_MAX + 96], xb[24],
        what[96];
    int n = 0, rc;
    double Ta;
    up_status st;
    snprintf(out, sizeof out, "%s/np%u-x%u/trace-%u", v->dir, r->np, r->extra, rep);
    snprintf(xb, sizeof xb, "%u", r->extra);
    argv[n++] = (char *)v->exe, argv[n++] = "trace", argv[n++] = "-q", argv[n++] = "-o";
    argv[n++] = out, argv[n++] = "--extra-ns", argv[n++] = xb;
    if (v->functions)
        argv[n++] = "--functions";
    argv[n++] = "--";
    up_run_val_launch_argv(v->launcher, v->nlauncher, v->prog, r->np, o->cores, o->root, argv + n,
                       npbuf, sizeof npbuf);
    fprintf(v->log, "== np %u, run %u, traced, extra %u ns\n", r->np, rep + 1, r->extra);
    if ((rc = run(v, argv, NULL)) != 0) {
        snprintf(what, sizeof what, "the traced run (np %u, extra %u ns)", r->np, r->extra);
        return run_failed(v, what, rc, err);
    }
    if ((st = up_counts_read(out, &r->cnt[rep], err)) != UP_OK) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        UP_ERR(err, UP_EIO, "cannot count the records of the traced run (np %u, extra %u ns): %s",
               r->np, r->extra, msg);
        return UP_EIO;
    }
    r->records[rep] = r->cnt[rep]->total;
    snprintf(comp, sizeof comp, "%s-network", out);
    if ((st = compensate(v, o, out, comp, UP_MODE_NETWORK, &r->Tm[rep], &Ta, err)) != UP_OK)
        return st;
    r->Tn[rep] = Ta;
    up_run_val_csv_traced(v->csv, r->np, r->extra, rep, r->Tm[rep], Ta);
    if (r->best_traced < 0 || r->Tm[rep] < r->Tm[r->best_traced]) {
        char old[PATH_MAX + 64];
        if (r->best_traced >= 0) { /* keep only the fastest traced run */
            snprintf(old, sizeof old, "%s/np%u-x%u/trace-%d", v->dir, r->np, r->extra,
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
    return UP_OK;
}

/* the kept run becomes DIR/npN-xE/trace, its compensations lower/upper/network */
static up_status finish_row(up_run_val *v, const up_run_val_opts *o, up_run_val_row *r, up_err *err)
{
    char base[PATH_MAX + 32], from[PATH_MAX + 64], to[PATH_MAX + 64];
    double Tm;
    up_status st;
    r->Ta[2] = r->Tn[r->best_traced];
    snprintf(base, sizeof base, "%s/np%u-x%u", v->dir, r->np, r->extra);
    snprintf(from, sizeof from, "%s/trace-%d", base, r->best_traced);
    snprintf(to, sizeof to, "%s/trace", base);
    if (rename(from, to) != 0) {
        UP_ERR(err, UP_EIO, "cannot rename the kept trace");
        return UP_EIO;
    }
    snprintf(from, sizeof from, "%s/trace-%d-network", base, r->best_traced);
    snprintf(to, sizeof to, "%s/network", base);
    if (rename(from, to) != 0) {
        UP_ERR(err, UP_EIO, "cannot rename the kept compensation");
        return UP_EIO;
    }
    snprintf(from, sizeof from, "%s/trace-%d-network.json", base, r->best_traced);
    snprintf(to, sizeof to, "%s/network.json", base);
    rename(from, to);
    snprintf(from, sizeof from, "%s/trace", base);
    snprintf(to, sizeof to, "%s/lower", base);
    if ((st = compensate(v, o, from, to, UP_MODE_LOWER, &Tm, &r->Ta[0], err)) != UP_OK)
        return st;
    snprintf(to, sizeof to, "%s/upper", base);
    return compensate(v, o, from, to, UP_MODE_UPPER, &Tm, &r->Ta[1], err);
}

static void say(const up_run_val_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const up_run_val_opts *o, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    if (!o->say)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    o->say(o->say_ctx, msg);
}

/* the setup: launcher words, the program, rows, the output set, its
 * folders, log.txt and runs.csv */
static up_status begin(const up_run_val_opts *o, up_run_val *v, up_err *err)
{
    char path[PATH_MAX + 64];
    unsigned i, e;
    up_status st;
    v->prog = o->prog;
    v->repeat = o->repeat, v->cores = o->cores, v->functions = o->functions, v->seed = o->seed;
    v->timeout = o->timeout, v->exe = o->exe, v->shim = o->shim;
    memcpy(v->np, o->np, sizeof v->np), v->nnp = o->nnp;
    memcpy(v->extra, o->extra, sizeof v->extra), v->nx = o->nx;
    if (!(v->lcopy = up_strdup(o->launcher))) {
        UP_ERR(err, UP_ENOMEM, "out of memory");
        return UP_ENOMEM;
    }
    for (char *save = NULL, *tok = strtok_r(v->lcopy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
        if (v->nlauncher < UP_VAL_MAXLAUNCHER)
            v->launcher[v->nlauncher++] = tok;
    if (!v->nlauncher) {
        UP_ERR(err, UP_EUSAGE, "--launcher is empty");
        return UP_EUSAGE;
    }
    if (access(v->prog[0], X_OK) != 0 && strchr(v->prog[0], '/')) {
        /* (without a '/': found through PATH by the launcher) */
        UP_ERR(err, UP_EIO, "cannot run '%s': %s", v->prog[0], strerror(errno));
        return UP_EIO;
    }
    if (!(v->rows = up_calloc((size_t)o->nnp * o->nx, sizeof *v->rows))) {
        UP_ERR(err, UP_ENOMEM, "out of memory");
        return UP_ENOMEM;
    }
    if ((st = up_outset_new(&v->outs, o->force, err)) != UP_OK ||
        (access(v->prog[0], F_OK) == 0 && (st = up_outset_input(v->outs, v->prog[0], false, err)) != UP_OK) ||
        (st = up_outset_add(v->outs, o->output, UP_OUT_DIR, "-o", NULL, err)) != UP_OK ||
        (o->json && (st = up_outset_add(v->outs, o->json, UP_OUT_FILE, "--json", &v->o_json, err)) != UP_OK) ||
        (st = up_outset_begin(v->outs, err)) != UP_OK)
        return st;
    if (!realpath(up_outset_tmp(v->outs, 0), v->dir)) {
        UP_ERR(err, UP_EIO, "cannot resolve the output folder");
        return UP_EIO;
    }
    snprintf(path, sizeof path, "%s/log.txt", v->dir);
    if (!(v->log = fopen(path, "w"))) {
        UP_ERR(err, UP_EIO, "cannot write log.txt in the output folder");
        return UP_EIO;
    }
    snprintf(path, sizeof path, "%s/runs.csv", v->dir);
    if (!(v->csv = fopen(path, "w"))) {
        UP_ERR(err, UP_EIO, "cannot write runs.csv in the output folder");
        return UP_EIO;
    }
    up_run_val_csv_header(v->csv);
    for (i = 0; i < o->nnp; i++) {
        snprintf(path, sizeof path, "%s/np%u", v->dir, o->np[i]);
        mkdir(path, 0777);
        for (e = 0; e < o->nx; e++) {
            up_run_val_row *r = &v->rows[v->nrows++];
            r->np = o->np[i], r->extra = o->extra[e], r->best_traced = -1;
            snprintf(path, sizeof path, "%s/np%u-x%u", v->dir, o->np[i], o->extra[e]);
            mkdir(path, 0777);
        }
    }
    return UP_OK;
}

/* one splitmix64 step: the rounds' orders from the seed */
static uint64_t mix64(uint64_t *x)
{
    return up_mix64(*x += 0x9E3779B97F4A7C15ull);
}

/* The order of round k of rank count i: the n kinds (0 uninstrumented, e + 1
 * traced at extra[e]) shuffled by Fisher-Yates with splitmix64 seeded by
 * (seed, i, k) (docs/validate.md, "The order of the runs") */
void up_run_val_order(uint64_t seed, unsigned i, unsigned k, unsigned n, unsigned char *order)
{
    uint64_t x = seed ^ ((uint64_t)i << 48) ^ ((uint64_t)k << 32);
    unsigned j;
    for (j = 0; j < n; j++)
        order[j] = (unsigned char)j;
    mix64(&x);
    for (j = n; j > 1; j--) {
        unsigned r = (unsigned)(mix64(&x) % j);
        unsigned char t = order[j - 1];
        order[j - 1] = order[r];
        order[r] = t;
    }
}

/* Per round, the uninstrumented run and the traced run at each extra cost in
 * the round's order (up_run_val_order); the file system's dirty pages (the
 * last trace) are written back before every timed run (sync) */
static up_status runs(const up_run_val_opts *o, up_run_val *v, up_err *err)
{
    unsigned i, e, j, k, nx = o->nx, eref = 0;
    up_status st = UP_OK;
    for (e = 1; e < nx; e++) /* the reference of the record counts */
        if (o->extra[e] < o->extra[eref])
            eref = e;
    for (i = 0; i < o->nnp; i++) {
        up_run_val_row *first = &v->rows[i * nx];
        for (k = 0; k < o->repeat; k++) {
            unsigned char *ord = v->order[i][k];
            up_run_val_order(o->seed, i, k, nx + 1, ord);
            for (j = 0; j <= nx; j++) {
                double T = NAN;
                sync();
                if (interrupted)
                    goto stop;
                if (ord[j] == 0) {
                    if ((st = untraced(v, o, o->np[i], k, &T, err)) != UP_OK)
                        goto stop;
                    for (e = 0; e < nx; e++)
                        first[e].T[k] = T;
                    say(o, "np %u, run %u/%u: T %.4f s", o->np[i], k + 1, o->repeat, T);
                    continue;
                }
                e = ord[j] - 1u;
                if ((st = traced(v, o, &first[e], k, err)) != UP_OK)
                    goto stop;
                say(o, "np %u, run %u/%u: extra %u ns: Tm %.4f s", o->np[i], k + 1, o->repeat,
                    o->extra[e], first[e].Tm[k]);
            }
            fflush(v->csv);
            if ((st = up_run_val_compare_counts(first, nx, eref, k, &v->compared, err)) != UP_OK)
                return st;
        }
        for (e = 0; e < nx; e++)
            if ((st = finish_row(v, o, &first[e], err)) != UP_OK)
                goto stop;
    }
    return UP_OK;
stop:
    /* a run that failed says so (err, v->tail); stopped by a signal before
     * a run or after a compensation: no message of its own */
    v->interrupted = interrupted;
    if (st == UP_OK) {
        err->status = st = UP_EIO;
        err->msg[0] = '\0';
    }
    return st;
}

up_status up_run_validate(const up_run_val_opts *o, up_run_val *v, up_err *err)
{
    up_status st;
    memset(v, 0, sizeof *v);
    if ((st = begin(o, v, err)) != UP_OK)
        return st;
    catch_signals();
    st = runs(o, v, err);
    restore_signals();
    if (st != UP_OK)
        return st;
    fclose(v->log), v->log = NULL;
    fclose(v->csv), v->csv = NULL;
    return UP_OK;
}

void up_run_val_free(up_run_val *v)
{
    unsigned i, k;
    if (v->log)
        fclose(v->log);
    if (v->csv)
        fclose(v->csv);
    up_outset_free(v->outs);
    for (i = 0; v->rows && i < v->nrows; i++)
        for (k = 0; k < UP_VAL_MAXREP; k++) {
            up_counts_free(v->rows[i].cnt[k]);
            up_free(v->rows[i].diff[k]);
        }
    up_free(v->rows);
    up_free(v->lcopy);
    memset(v, 0, sizeof *v);
}
