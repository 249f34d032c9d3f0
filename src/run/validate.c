/*
 * validate.c - the pipeline of `unperturb validate`: the papers' accuracy
 * experiment on the user's own program ([W] Section 5 and Fig. 1; [S]
 * Section 4).
 *
 * For every configuration (a rank count, and a thread count with
 * --threads) the program runs `repeat` times uninstrumented (timed by
 * libunperturb-time.so over the analysis window: end of MPI_Init to start
 * of MPI_Finalize, or without MPI (--no-mpi) from the timing shim's start
 * to its end, as the tracer marks it) and, alternating with those runs,
 * traced once per extra cost; every run on the OpenMP runtime the traced
 * runs have (run/omp_runtime.h), and without MPI on the first cores
 * (docs/validate.md, "Programs without MPI").  The fastest run of each kind is kept, as the paper does; the
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
#include <sched.h>
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
#include "run/omp_runtime.h"

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
                           unsigned threads, unsigned cores, bool root, char **argv, char *npbuf,
                           char *pebuf, size_t cap)
{
    int n = 0, i;
    const char *base = strrchr(launcher[0], '/');
    bool mpirun, over = false, asroot = false, bound = false;
    base = base ? base + 1 : launcher[0];
    mpirun = !strcmp(base, "mpirun") || !strcmp(base, "mpiexec") || !strcmp(base, "orterun");
    for (i = 0; i < nlauncher; i++) {
        over |= !strcmp(launcher[i], "--oversubscribe");
        asroot |= !strcmp(launcher[i], "--allow-run-as-root");
        bound |= !strncmp(launcher[i], "--map-by", 8) || !strncmp(launcher[i], "--bind-to", 9) ||
                 !strncmp(launcher[i], "-bind-to", 8) || !strncmp(launcher[i], "--cpus-per-proc", 15);
        argv[n++] = launcher[i];
    }
    if (mpirun && !asroot && root)
        argv[n++] = "--allow-run-as-root";
    if (mpirun && !over && np > cores)
        argv[n++] = "--oversubscribe";
    /* a rank's threads on cores of their own (Open MPI binds a rank to one
     * core by default when np <= 2), or, past the cores, anywhere */
    if (mpirun && !bound && threads > 1 && np * threads <= cores) {
        snprintf(pebuf, cap, "slot:PE=%u", threads);
        argv[n++] = "--map-by";
        argv[n++] = pebuf;
    } else if (mpirun && !bound && threads > 1) {
        argv[n++] = "--bind-to";
        argv[n++] = "none";
    }
    snprintf(npbuf, cap, "%u", np);
    argv[n++] = "-np";
    argv[n++] = npbuf;
    for (i = 0; prog[i] && n < UP_VAL_MAXARGV - 1; i++)
        argv[n++] = prog[i];
    argv[n] = NULL;
    return n;
}

void up_run_val_csv_header(FILE *f)
{
    fprintf(f, "np,extra_ns,run,kind,window_s,Ta_network_s,threads,openmp\n");
}

/* a thread count as runs.csv writes it: empty when --threads was not given */
static const char *csv_threads(unsigned threads, char *buf, size_t cap)
{
    if (!threads)
        return "";
    snprintf(buf, cap, "%u", threads);
    return buf;
}

void up_run_val_csv_untraced(FILE *f, unsigned np, unsigned threads, unsigned rep, double T,
                             const char *omp)
{
    char t[16];
    fprintf(f, "%u,,%u,uninstrumented,%.9f,,%s,%s\n", np, rep + 1, T, csv_threads(threads, t, sizeof t),
            omp);
}

void up_run_val_csv_traced(FILE *f, unsigned np, unsigned threads, unsigned extra, unsigned rep,
                           double Tm, double Ta, const char *omp)
{
    char t[16];
    fprintf(f, "%u,%u,%u,traced,%.9f,%.9f,%s,%s\n", np, extra, rep + 1, Tm, Ta,
            csv_threads(threads, t, sizeof t), omp);
}

/* The value of the last line `key=VALUE` of the timing shim's file (a few
 * lines, a regular file: up_text_file_read) into out; false if there is
 * none, or it does not fit. */
static bool read_key(const char *path, const char *key, char *out, size_t cap)
{
    char *text, *p;
    size_t klen = strlen(key), n;
    bool found = false;
    up_err e = {0};
    if (up_text_file_read(path, "time file", 65536, &text, NULL, &e) != UP_OK)
        return false;
    for (p = text; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (!strncmp(p, key, klen) && p[klen] == '=') {
            n = strcspn(p + klen + 1, "\n");
            found = n < cap;
            if (found)
                snprintf(out, cap, "%.*s", (int)n, p + klen + 1);
        }
    up_free(text);
    return found;
}

double up_run_val_read_window(const char *path)
{
    /* seconds as the shim writes them (S.SSSSSSSSS, negative only if its
     * clocks went wrong): a decimal number, like every number read */
    static const up_range R_WINDOW = {-1e9, 1e9, false, "s"};
    char s[128], why[128];
    double v;
    if (!read_key(path, "window_s", s, sizeof s) || !up_num_parse(s, &R_WINDOW, &v, why, sizeof why))
        return NAN;
    return v;
}

const char *up_run_val_read_openmp(const char *path)
{
    char s[PATH_MAX];
    const char *b;
    if (!read_key(path, "openmp", s, sizeof s))
        return "";
    if (!strcmp(s, "none"))
        return "none";
    b = strrchr(s, '/');
    b = b ? b + 1 : s;
    if (!strncmp(b, "libomp.so", 9) || !strncmp(b, "libiomp5.so", 11))
        return "libomp";
    return strncmp(b, "libgomp.so", 10) ? "other" : "libgomp";
}

void up_run_val_cfg_name(bool mpi, unsigned np, unsigned threads, char *buf, size_t cap)
{
    if (mpi && threads)
        snprintf(buf, cap, "np%u-t%u", np, threads);
    else if (mpi)
        snprintf(buf, cap, "np%u", np);
    else if (threads)
        snprintf(buf, cap, "t%u", threads);
    else
        snprintf(buf, cap, "alone");
}

void up_run_val_cfg_text(bool mpi, unsigned np, unsigned threads, char *buf, size_t cap)
{
    const char *s = threads == 1 ? "" : "s";
    if (mpi && threads)
        snprintf(buf, cap, "np %u, %u thread%s", np, threads, s);
    else if (mpi)
        snprintf(buf, cap, "np %u", np);
    else if (threads)
        snprintf(buf, cap, "%u thread%s", threads, s);
    else
        snprintf(buf, cap, "alone");
}

/* n bytes of s at *used in store; false when they do not fit */
static bool put(char *store, size_t cap, size_t *used, const char *s, size_t n)
{
    if (cap - *used < n)
        return false;
    memcpy(store + *used, s, n);
    *used += n;
    return true;
}

int up_run_val_subst(char *const *prog, unsigned threads, char **out, int max, char *store, size_t cap)
{
    static const char key[] = "{threads}";
    char num[16];
    size_t used = 0;
    int n;
    snprintf(num, sizeof num, "%u", threads);
    for (n = 0; prog[n]; n++) {
        const char *w = prog[n], *hit;
        if (n + 1 >= max)
            return -1;
        out[n] = prog[n];
        if (!threads || !strstr(w, key))
            continue;
        out[n] = store + used;
        for (; (hit = strstr(w, key)); w = hit + sizeof key - 1)
            if (!put(store, cap, &used, w, (size_t)(hit - w)) || !put(store, cap, &used, num, strlen(num)))
                return -1;
        if (!put(store, cap, &used, w, strlen(w) + 1))
            return -1;
    }
    out[n] = NULL;
    return n;
}

bool up_run_val_cpus(const cpu_set_t *allowed, unsigned n, cpu_set_t *out)
{
    unsigned k = 0;
    int c;
    CPU_ZERO(out);
    for (c = 0; c < CPU_SETSIZE && k < n; c++)
        if (CPU_ISSET(c, allowed)) {
            CPU_SET(c, out);
            k++;
        }
    if (!n || k < n) {
        CPU_ZERO(out);
        return false;
    }
    return true;
}

bool up_run_val_oversubscribed(const up_run_val *v, const up_run_val_row *r)
{
    return r->np * (r->threads ? r->threads : 1) > v->cores;
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
 * on the CPU set `cpus` (NULL: validate's own), as the process the tracer
 * or the timing shim takes alone when `solo` (UNPERTURB_SOLO_PID: its pid),
 * its output through a pipe into the log (log_take); returns its wait status
 * (0: it exited with 0), -1 if it could not be started, -2 on timeout. */
static int run(up_run_val *v, char *const *argv, char *const *env, const cpu_set_t *cpus, bool solo)
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
        if (solo) {
            char me[32];
            snprintf(me, sizeof me, "%ld", (long)getpid());
            setenv("UNPERTURB_SOLO_PID", me, 1);
        }
        if (cpus && sched_setaffinity(0, sizeof *cpus, cpus) != 0) {
            fprintf(stderr, "unperturb validate: cannot pin the run to its cores: %s\n", strerror(errno));
            _exit(127);
        }
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

/* The environment added to a run of configuration i: the OpenMP plan's
 * variable, for an uninstrumented run (e_tf: its UNPERTURB_TIME_FILE= entry)
 * LD_PRELOAD with the timing shim first, and with --threads
 * OMP_NUM_THREADS, OMP_PROC_BIND and OMP_PLACES (those two unless the
 * user's environment sets them).  env holds 7 entries. */
static void run_env(up_run_val *v, unsigned i, char *e_tf, char *e_thr, size_t cap, char **env)
{
    int n = 0;
    if (v->e_omp[0])
        env[n++] = v->e_omp;
    if (e_tf)
        env[n++] = v->e_shim, env[n++] = e_tf;
    if (v->thr[i]) {
        snprintf(e_thr, cap, "OMP_NUM_THREADS=%u", v->thr[i]);
        env[n++] = e_thr;
        if (v->e_bind[0])
            env[n++] = v->e_bind;
        if (v->e_places[0])
            env[n++] = v->e_places;
    }
    env[n] = NULL;
}

/* The words that run configuration i into argv (room for UP_VAL_MAXARGV):
 * the program's with {threads} replaced (kept in store), after the
 * launcher's with MPI (its numbers in nums, of ncap bytes, halved) */
static up_status run_words(up_run_val *v, const up_run_val_opts *o, unsigned i, char **argv,
                           char *nums, size_t ncap, char *store, size_t cap, up_err *err)
{
    char *prog[UP_VAL_MAXARGV];
    int n;
    if ((n = up_run_val_subst(v->prog, v->thr[i], prog, UP_VAL_MAXARGV, store, cap)) < 0)
        return UP_ERR(err, UP_EUSAGE, "the program's command line is too long");
    if (v->mpi)
        up_run_val_launch_argv(v->launcher, v->nlauncher, prog, v->np[i], v->thr[i], o->cores,
                               o->root, argv, nums, nums + ncap / 2, ncap / 2);
    else
        memcpy(argv, prog, ((size_t)n + 1) * sizeof *prog);
    return UP_OK;
}

static up_status untraced(up_run_val *v, const up_run_val_opts *o, unsigned i, unsigned rep,
                          double *T, up_err *err)
{
    char *argv[UP_VAL_MAXARGV], store[8192], npbuf[64], tf[PATH_MAX + 64], e_tf[PATH_MAX + 96],
        e_thr[40], *env[8], what[96], cfg[48], name[32];
    const char *seen;
    int rc;
    up_status st;
    up_run_val_cfg_name(v->mpi, v->np[i], v->thr[i], name, sizeof name);
    up_run_val_cfg_text(v->mpi, v->np[i], v->thr[i], cfg, sizeof cfg);
    snprintf(tf, sizeof tf, "%s/%s/untraced-%u.time", v->dir, name, rep);
    snprintf(e_tf, sizeof e_tf, "UNPERTURB_TIME_FILE=%s", tf);
    run_env(v, i, e_tf, e_thr, sizeof e_thr, env);
    if ((st = run_words(v, o, i, argv, npbuf, sizeof npbuf, store, sizeof store, err)) != UP_OK)
        return st;
    fprintf(v->log, "== %s, run %u, uninstrumented\n", cfg, rep + 1);
    snprintf(what, sizeof what, "the uninstrumented run (%s)", cfg);
    if ((rc = run(v, argv, env, v->pinned[i] ? &v->cpus[i] : NULL, !v->mpi)) != 0)
        return run_failed(v, what, rc, err);
    if (!isfinite(*T = up_run_val_read_window(tf)))
        return UP_ERR(err, UP_EIO, "%s was not timed: %s", what,
                      v->mpi ? "no MPI_Init/MPI_Finalize seen by the timing shim"
                             : "the timing shim wrote no file (is the program linked statically?)");
    /* the traced runs' runtime, which validate arranged for both kinds */
    seen = up_run_val_read_openmp(tf);
    if (strcmp(v->omp_route, "as is") && strcmp(seen, v->omp_runs))
        return UP_ERR(err, UP_EIO, "%s ran the OpenMP runtime %s, not %s as arranged for every run: %s",
                      what, *seen ? seen : "(not named by the timing shim)", v->omp_runs, v->omp_msg);
    snprintf(v->omp_seen, sizeof v->omp_seen, "%s", seen);
    fprintf(v->log, "== openmp: %s\n", *seen ? seen : "(not named by the timing shim)");
    up_run_val_csv_untraced(v->csv, v->np[i], v->thr[i], rep, *T, seen);
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

static up_status traced(up_run_val *v, const up_run_val_opts *o, unsigned i, up_run_val_row *r,
                        unsigned rep, up_err *err)
{
    char *argv[UP_VAL_MAXARGV + 12], store[8192], npbuf[64], out[PATH_MAX + 96], comp[PATH_MAX + 128],
        xb[24], what[128], cfg[48], e_thr[40], *env[8];
    int n = 0, rc;
    double Ta;
    up_status st;
    up_run_val_cfg_text(v->mpi, r->np, r->threads, cfg, sizeof cfg);
    snprintf(what, sizeof what, "the traced run (%s, extra %u ns)", cfg, r->extra);
    snprintf(out, sizeof out, "%s/%s/trace-%u", v->dir, r->name, rep);
    snprintf(xb, sizeof xb, "%u", r->extra);
    argv[n++] = (char *)v->exe, argv[n++] = "trace", argv[n++] = "-q", argv[n++] = "-o";
    argv[n++] = out, argv[n++] = "--extra-ns", argv[n++] = xb;
    if (v->functions)
        argv[n++] = "--functions";
    argv[n++] = "--";
    if ((st = run_words(v, o, i, argv + n, npbuf, sizeof npbuf, store, sizeof store, err)) != UP_OK)
        return st;
    run_env(v, i, NULL, e_thr, sizeof e_thr, env);
    fprintf(v->log, "== %s, run %u, traced, extra %u ns\n", cfg, rep + 1, r->extra);
    if ((rc = run(v, argv, env, v->pinned[i] ? &v->cpus[i] : NULL, false)) != 0)
        return run_failed(v, what, rc, err);
    if ((st = up_counts_read(out, &r->cnt[rep], err)) != UP_OK) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        UP_ERR(err, UP_EIO, "cannot count the records of %s: %s", what, msg);
        return UP_EIO;
    }
    r->records[rep] = r->cnt[rep]->total;
    snprintf(comp, sizeof comp, "%s-network", out);
    if ((st = compensate(v, o, out, comp, UP_MODE_NETWORK, &r->Tm[rep], &Ta, err)) != UP_OK)
        return st;
    r->Tn[rep] = Ta;
    up_run_val_csv_traced(v->csv, r->np, r->threads, r->extra, rep, r->Tm[rep], Ta, v->omp_runs);
    if (r->best_traced < 0 || r->Tm[rep] < r->Tm[r->best_traced]) {
        char old[PATH_MAX + 128];
        if (r->best_traced >= 0) { /* keep only the fastest traced run */
            snprintf(old, sizeof old, "%s/%s/trace-%d", v->dir, r->name, r->best_traced);
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

/* the kept run becomes DIR/NAME/trace (NAME: the row's folder, npN-xE...),
 * its compensations lower/upper/network */
static up_status finish_row(up_run_val *v, const up_run_val_opts *o, up_run_val_row *r, up_err *err)
{
    char base[PATH_MAX + 64], from[PATH_MAX + 96], to[PATH_MAX + 96];
    double Tm;
    up_status st;
    r->Ta[2] = r->Tn[r->best_traced];
    snprintf(base, sizeof base, "%s/%s", v->dir, r->name);
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

/* The configurations: every rank count (1 without MPI) with every thread
 * count (0: --threads not given); without MPI each pinned to the first
 * cores validate may use, when there are enough (docs/validate.md,
 * "Pinning") */
static up_status configurations(const up_run_val_opts *o, up_run_val *v, up_err *err)
{
    unsigned a, b, na = o->no_mpi ? 1 : o->nnp, nb = o->nthreads ? o->nthreads : 1;
    cpu_set_t allowed;
    bool mask = sched_getaffinity(0, sizeof allowed, &allowed) == 0;
    if (na * nb > UP_VAL_MAXV)
        return UP_ERR(err, UP_EUSAGE, "--np and --threads make %u configurations; at most %d", na * nb,
                      UP_VAL_MAXV);
    v->mpi = !o->no_mpi, v->threads_given = o->nthreads > 0;
    for (a = 0; a < na; a++)
        for (b = 0; b < nb; b++, v->nnp++) {
            v->np[v->nnp] = o->no_mpi ? 1 : o->np[a];
            v->thr[v->nnp] = o->nthreads ? o->threads[b] : 0;
            v->pinned[v->nnp] = o->no_mpi && mask && up_run_val_cpus(&allowed, v->thr[v->nnp], &v->cpus[v->nnp]);
        }
    return UP_OK;
}

/* The OpenMP runtime of every run (run/omp_runtime.h): the plan for the
 * program, and its variable and the timing shim's LD_PRELOAD in v (the
 * link of the link route in the scratch folder `dir`) */
static up_status openmp(up_run_val *v, const up_omp_plan *p, const char *dir, up_err *err)
{
    const char *val = NULL, *old = getenv("LD_PRELOAD");
    up_status st;
    if (p->route == UP_OMP_LINK && (st = up_omp_link(p, dir, err)) != UP_OK)
        return st;
    if (p->route != UP_OMP_AS_IS && !(val = up_omp_env(p, dir, v->e_omp, sizeof v->e_omp)))
        return UP_ERR(err, UP_EIO, "the OpenMP runtime's environment is too long");
    if (p->route == UP_OMP_PRELOAD)
        old = val; /* libomp, then what was preloaded */
    snprintf(v->e_shim, sizeof v->e_shim, "LD_PRELOAD=%s%s%s", v->shim, old && *old ? ":" : "",
             old ? old : "");
    snprintf(v->omp_msg, sizeof v->omp_msg, "%s", p->msg);
    v->omp_runs = up_omp_runs(p);
    v->omp_route = p->route == UP_OMP_LINK ? "link" : p->route == UP_OMP_PRELOAD ? "preload" : "as is";
    v->omp_lost = p->lost;
    fprintf(v->log, "== OpenMP runtime of every run: %s (%s): %s\n", v->omp_runs, v->omp_route, p->msg);
    return UP_OK;
}

/* OMP_PROC_BIND and OMP_PLACES of the runs with --threads, unless the
 * user's environment sets them; each configuration's pinning in the log */
static void binding(up_run_val *v)
{
    unsigned i;
    int c;
    if (v->threads_given && !getenv("OMP_PROC_BIND"))
        snprintf(v->e_bind, sizeof v->e_bind, "OMP_PROC_BIND=close");
    if (v->threads_given && !getenv("OMP_PLACES"))
        snprintf(v->e_places, sizeof v->e_places, "OMP_PLACES=cores");
    for (i = 0; i < v->nnp; i++) {
        char cfg[48];
        up_run_val_cfg_text(v->mpi, v->np[i], v->thr[i], cfg, sizeof cfg);
        fprintf(v->log, "== %s: ", cfg);
        if (!v->pinned[i])
            fprintf(v->log, "%s", v->mpi ? "the launcher binds the ranks" : "not pinned");
        else
            for (c = 0, fprintf(v->log, "pinned to CPUs"); c < CPU_SETSIZE; c++)
                if (CPU_ISSET(c, &v->cpus[i]))
                    fprintf(v->log, " %d", c);
        fprintf(v->log, "%s%s%s%s\n", v->thr[i] ? "; " : "", v->thr[i] ? "OMP_NUM_THREADS set" : "",
                v->e_bind[0] ? ", " : "", v->e_bind[0] ? "OMP_PROC_BIND=close, OMP_PLACES=cores" : "");
    }
}

/* the setup: launcher words, the program, configurations, rows, the output
 * set, its folders, log.txt, runs.csv and the environment of the runs */
static up_status begin(const up_run_val_opts *o, up_run_val *v, up_err *err)
{
    char path[PATH_MAX + 64];
    unsigned i, e;
    size_t scratch = 0;
    up_omp_plan plan;
    up_status st;
    v->prog = o->prog;
    v->repeat = o->repeat, v->cores = o->cores, v->functions = o->functions, v->seed = o->seed;
    v->timeout = o->timeout, v->exe = o->exe, v->shim = o->shim;
    memcpy(v->extra, o->extra, sizeof v->extra), v->nx = o->nx;
    if ((st = configurations(o, v, err)) != UP_OK)
        return st;
    if (!(v->lcopy = up_strdup(o->launcher))) {
        UP_ERR(err, UP_ENOMEM, "out of memory");
        return UP_ENOMEM;
    }
    for (char *save = NULL, *tok = strtok_r(v->lcopy, " \t", &save); v->mpi && tok;
         tok = strtok_r(NULL, " \t", &save))
        if (v->nlauncher < UP_VAL_MAXLAUNCHER)
            v->launcher[v->nlauncher++] = tok;
    if (v->mpi && !v->nlauncher) {
        UP_ERR(err, UP_EUSAGE, "--launcher is empty");
        return UP_EUSAGE;
    }
    if (access(v->prog[0], X_OK) != 0 && strchr(v->prog[0], '/')) {
        /* (without a '/': found through PATH by the launcher) */
        UP_ERR(err, UP_EIO, "cannot run '%s': %s", v->prog[0], strerror(errno));
        return UP_EIO;
    }
    if ((st = up_omp_plan_for(v->prog[0], &plan, err)) != UP_OK)
        return st;
    if (!(v->rows = up_calloc((size_t)v->nnp * o->nx, sizeof *v->rows))) {
        UP_ERR(err, UP_ENOMEM, "out of memory");
        return UP_ENOMEM;
    }
    if ((st = up_outset_new(&v->outs, o->force, err)) != UP_OK ||
        (access(v->prog[0], F_OK) == 0 && (st = up_outset_input(v->outs, v->prog[0], false, err)) != UP_OK) ||
        (st = up_outset_add(v->outs, o->output, UP_OUT_DIR, "-o", NULL, err)) != UP_OK ||
        (o->json && (st = up_outset_add(v->outs, o->json, UP_OUT_FILE, "--json", &v->o_json, err)) != UP_OK) ||
        (plan.route == UP_OMP_LINK && (st = up_outset_scratch(v->outs, &scratch, err)) != UP_OK) ||
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
    if ((st = openmp(v, &plan, up_outset_tmp(v->outs, scratch), err)) != UP_OK)
        return st;
    binding(v);
    for (i = 0; i < v->nnp; i++) {
        char name[32];
        up_run_val_cfg_name(v->mpi, v->np[i], v->thr[i], name, sizeof name);
        snprintf(path, sizeof path, "%s/%s", v->dir, name);
        mkdir(path, 0777);
        for (e = 0; e < o->nx; e++) {
            up_run_val_row *r = &v->rows[v->nrows++];
            r->np = v->np[i], r->threads = v->thr[i], r->extra = o->extra[e], r->best_traced = -1;
            snprintf(r->name, sizeof r->name, "%s-x%u", name, o->extra[e]);
            snprintf(path, sizeof path, "%s/%s", v->dir, r->name);
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

/* The order of round k of configuration i: the n kinds (0 uninstrumented, e + 1
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
    for (i = 0; i < v->nnp; i++) {
        up_run_val_row *first = &v->rows[i * nx];
        char cfg[48];
        up_run_val_cfg_text(v->mpi, v->np[i], v->thr[i], cfg, sizeof cfg);
        for (k = 0; k < o->repeat; k++) {
            unsigned char *ord = v->order[i][k];
            up_run_val_order(o->seed, i, k, nx + 1, ord);
            for (j = 0; j <= nx; j++) {
                double T = NAN;
                sync();
                if (interrupted)
                    goto stop;
                if (ord[j] == 0) {
                    if ((st = untraced(v, o, i, k, &T, err)) != UP_OK)
                        goto stop;
                    for (e = 0; e < nx; e++)
                        first[e].T[k] = T;
                    say(o, "%s, run %u/%u: T %.4f s", cfg, k + 1, o->repeat, T);
                    continue;
                }
                e = ord[j] - 1u;
                if ((st = traced(v, o, i, &first[e], k, err)) != UP_OK)
                    goto stop;
                say(o, "%s, run %u/%u: extra %u ns: Tm %.4f s", cfg, k + 1, o->repeat, o->extra[e],
                    first[e].Tm[k]);
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
