/*
 * launch.c - the pipelines of `unperturb trace` and `unperturb calibrate`
 * (launch.h): each sets up an output set, launches a program (fork and
 * exec) that writes the output's temporary, waits for it, and commits.
 *
 * trace: the archive is written to DIR.tmp-<host>-<pid> and renamed to DIR
 * when the run is over.  While the program runs, SIGTERM and SIGHUP go to
 * it and SIGINT is left to the terminal, so that what it recorded is saved;
 * before and after, they remove the temporary.  A run that died before
 * MPI_Finalize (signal, MPI_Abort) left the per-rank files only; they are
 * merged here, with a warning, so nothing the program recorded is lost.
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

#include "run/launch.h"
#include "run/omp_runtime.h"

int up_run_near_exe(const char *env, const char *rel, char *out, size_t cap)
{
    const char *e = env ? getenv(env) : NULL;
    char exe[PATH_MAX];
    ssize_t n;
    if (e && *e) {
        snprintf(out, cap, "%s", e);
        return access(out, R_OK);
    }
    if ((n = readlink("/proc/self/exe", exe, sizeof exe - 1)) < 0) {
        snprintf(out, cap, "(cannot read /proc/self/exe)");
        return -1;
    }
    exe[n] = '\0';
    snprintf(out, cap, "%s/../%s", dirname(exe), rel);
    return access(out, R_OK);
}

void up_run_exec_child(const char *who, char *const *argv)
{
    up_signals_child();
    execvp(argv[0], argv);
    fprintf(stderr, "unperturb %s: cannot run '%s': %s\n", who, argv[0], strerror(errno));
    _exit(127);
}

/* ---- trace ------------------------------------------------------------------- */

up_status up_run_trace_recover(const char *dir, up_merge_info *info, up_err *err)
{
    char msg[1024];
    if (up_merge(dir, info, msg, sizeof msg) != 0)
        return UP_ERR(err, UP_EIO, "%s", msg);
    /* an earlier output of `trace` (its per-rank files kept for a retry):
     * its .unperturb-output lists what it holds now */
    return up_output_remark(dir, err);
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

static up_status set_env(const char *name, const char *value, up_err *err)
{
    if (setenv(name, value, 1) != 0)
        return UP_ERR(err, UP_EIO, "cannot set %s: %s", name, strerror(errno));
    return UP_OK;
}

/* The tracer's environment: preloaded, writing into the folder dir. */
static up_status tracer_env(const up_run_tr_opts *o, const char *lib, const char *dir, up_err *err)
{
    const char *old = getenv("LD_PRELOAD");
    char preload[2 * PATH_MAX];
    up_status st;
    snprintf(preload, sizeof preload, "%s%s%s", lib, old && *old ? ":" : "", old ? old : "");
    if ((st = set_env("LD_PRELOAD", preload, err)) != UP_OK || (st = set_env("UNPERTURB_DIR", dir, err)) != UP_OK ||
        (st = set_env("UNPERTURB_FUNCTIONS", o->functions ? "1" : "0", err)) != UP_OK ||
        (st = set_env("UNPERTURB_CPU_TIME", o->cpu_time ? "1" : "0", err)) != UP_OK ||
        (o->filter && (st = set_env("UNPERTURB_FILTER_FILE", o->filter, err)) != UP_OK) ||
        (o->extra_ns && (st = set_env("UNPERTURB_EXTRA_NS", o->extra_ns, err)) != UP_OK) ||
        (o->buffer_mb && (st = set_env("UNPERTURB_BUFFER_MB", o->buffer_mb, err)) != UP_OK))
        return st;
    return UP_OK;
}

/* An MPI launcher: its ranks call MPI_Init, and the tracer starts there.
 * Any other program is traced from its start without MPI (the tracer's
 * UNPERTURB_SOLO_PID: that process only, not what it runs). */
static bool is_launcher(const char *prog)
{
    static const char *const names[] = {"mpirun", "mpiexec", "orterun", "oshrun", "srun", "prun"};
    const char *b = strrchr(prog, '/');
    size_t i;
    b = b ? b + 1 : prog;
    for (i = 0; i < sizeof names / sizeof *names; i++)
        if (!strncmp(b, names[i], strlen(names[i])) &&
            (b[strlen(names[i])] == '\0' || b[strlen(names[i])] == '.'))
            return true;
    return false;
}

/* The program an MPI launcher runs: its first argument that is an
 * executable file (the options' values before it are not); NULL if none */
static const char *launched_program(char *const *prog)
{
    struct stat st;
    int i;
    for (i = 1; prog[i]; i++)
        if (prog[i][0] != '-' && stat(prog[i], &st) == 0 && S_ISREG(st.st_mode) &&
            access(prog[i], X_OK) == 0)
            return prog[i];
    return NULL;
}

/* OpenMP through OMPT (docs/tracer-openmp.md): a program built for GCC's
 * libgomp runs on LLVM's libomp, which `dir` (a scratch folder) then holds
 * as libgomp.so.1, first on LD_LIBRARY_PATH; or libomp is preloaded (the
 * plan's environment, up_omp_env, as validate's runs have it).  A program
 * whose OpenMP events will be lost says so. */
static up_status omp_env(const up_run_tr_opts *o, const char *dir, up_err *err)
{
    const char *prog = is_launcher(o->prog[0]) ? launched_program(o->prog) : o->prog[0], *val;
    char entry[3 * PATH_MAX];
    up_omp_plan plan;
    up_status s;
    if (!prog)
        return UP_OK;
    if ((s = up_omp_plan_for(prog, &plan, err)) != UP_OK)
        return s;
    if (plan.lost && o->warn)
        o->warn(o->warn_ctx, plan.msg);
    if (plan.route == UP_OMP_AS_IS)
        return UP_OK;
    if (plan.route == UP_OMP_LINK && (s = up_omp_link(&plan, dir, err)) != UP_OK)
        return s;
    if (!(val = up_omp_env(&plan, dir, entry, sizeof entry)))
        return UP_ERR(err, UP_EIO, "the OpenMP runtime's environment is too long");
    entry[val - entry - 1] = '\0'; /* NAME=value: the name alone */
    return set_env(entry, val, err);
}

/* Runs the program with the signals above; its wait status in *status. */
static up_status run_program(char *const *prog, int *status, up_err *err)
{
    struct sigaction sa, old_int, old_term, old_hup;
    pid_t pid;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGINT, &sa, &old_int);
    sa.sa_handler = forward;
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    if ((pid = fork()) == 0) {
        char me[32];
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        snprintf(me, sizeof me, "%ld", (long)getpid());
        if (!is_launcher(prog[0]) && setenv("UNPERTURB_SOLO_PID", me, 1) != 0)
            _exit(127);
        up_run_exec_child("trace", prog);
    }
    if (pid > 0) {
        child = pid;
        while (waitpid(pid, status, 0) < 0 && errno == EINTR)
            ;
        child = 0;
    }
    /* the output set's: remove the temporary */
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    if (pid < 0)
        return UP_ERR(err, UP_EIO, "fork: %s", strerror(errno));
    return UP_OK;
}

/* After the run: the archive, or the per-rank files merged into one. */
static up_status collect(const up_run_tr_opts *o, up_run_tr *r, up_outset *os, up_err *err)
{
    const char *tmp = up_outset_tmp(os, 0);
    char path[PATH_MAX + 32], how[96];
    struct stat st;
    up_merge_info info;
    up_status s;
    up_err e2 = {0};

    snprintf(path, sizeof path, "%s/traces.otf2", tmp);
    if (stat(path, &st) == 0)
        return UP_OK;
    snprintf(path, sizeof path, "%s/.upt", tmp);
    if (stat(path, &st) != 0)
        return UP_ERR(err, UP_EIO, "the program wrote no trace (is it dynamically linked? an MPI "
                      "program run by mpirun must call MPI_Init)");
    if (o->warn) {
        char msg[256];
        up_wait_text(r->status, how, sizeof how);
        snprintf(msg, sizeof msg, "the program ended before MPI_Finalize: %s; recovering what it recorded", how);
        o->warn(o->warn_ctx, msg);
    }
    if ((s = up_run_trace_recover(tmp, &info, err)) != UP_OK) {
        /* keep the per-rank files under the final name for a retry */
        r->kept = up_outset_commit(os, &e2) == UP_OK;
        return s;
    }
    return UP_OK;
}

up_status up_run_trace(const up_run_tr_opts *o, up_run_tr *r, up_err *err)
{
    char lib[PATH_MAX], abs[PATH_MAX];
    up_outset *os = NULL;
    struct stat st;
    size_t omp_dir = 0;
    up_status s;
    int i;

    memset(r, 0, sizeof *r);
    if (o->filter) { /* a regular file of at most 1 MiB, as the tracer reads it */
        char *text;
        if ((s = up_text_file_read(o->filter, "filter file", 1 << 20, &text, NULL, err)) != UP_OK)
            return s;
        up_free(text);
    }
    if (up_run_near_exe("UNPERTURB_TRACE_LIB", "lib/libunperturb-trace.so", lib, sizeof lib) != 0)
        return UP_ERR(err, UP_EIO, "cannot find libunperturb-trace.so (looked at '%s'); set UNPERTURB_TRACE_LIB",
                      lib);
    /* inputs: the filter and the program's files named on the command line */
    if ((s = up_outset_new(&os, o->force, err)) != UP_OK || (s = up_outset_input(os, o->filter, false, err)) != UP_OK)
        goto out;
    for (i = 0; o->prog[i]; i++)
        if (stat(o->prog[i], &st) == 0 && S_ISREG(st.st_mode) &&
            (s = up_outset_input(os, o->prog[i], false, err)) != UP_OK)
            goto out;
    if ((s = up_outset_add(os, o->output, UP_OUT_DIR, "-o", NULL, err)) != UP_OK ||
        (s = up_outset_scratch(os, &omp_dir, err)) != UP_OK || (s = up_outset_begin(os, err)) != UP_OK)
        goto out;
    if (!realpath(up_outset_tmp(os, 0), abs)) {
        s = UP_ERR(err, UP_EIO, "cannot resolve the output folder");
        goto out;
    }
    if ((s = tracer_env(o, lib, abs, err)) != UP_OK ||
        (s = omp_env(o, up_outset_tmp(os, omp_dir), err)) != UP_OK ||
        (s = run_program(o->prog, &r->status, err)) != UP_OK)
        goto out;
    if (WIFEXITED(r->status) && WEXITSTATUS(r->status) == 127) {
        s = UP_ERR(err, UP_EIO, "'%s' could not be run", o->prog[0]);
        goto out;
    }
    if ((s = collect(o, r, os, err)) == UP_OK)
        s = up_outset_commit(os, err);
out:
    up_outset_free(os);
    return s;
}

/* ---- calibrate ------------------------------------------------------------------ */

#define UP_CALIB_READ_MAX 65536

/* Runs args and waits for it: 0, or the error. */
static up_status measure(char *const *args, up_err *err)
{
    char how[96];
    int status;
    pid_t pid;
    if ((pid = fork()) == 0)
        up_run_exec_child("calibrate", args);
    if (pid < 0) {
        const char *why = strerror(errno); /* before up_esc */
        return UP_ERR(err, UP_EIO, "cannot start '%s': %s", up_esc(args[0]), why);
    }
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return UP_ERR(err, UP_EIO, "waiting for the measurement run: %s", strerror(errno));
    if (!WIFEXITED(status) || WEXITSTATUS(status)) {
        up_wait_text(status, how, sizeof how);
        return UP_ERR(err, UP_EIO, "the measurement run failed: %s", how);
    }
    return UP_OK;
}

up_status up_run_calibrate(const up_run_cal_opts *o, up_run_cal *r, up_err *err)
{
    char prog[PATH_MAX + 32], tmp[PATH_MAX + 32], *args[64], *lcopy = NULL;
    size_t scratch = 0;
    int n = 0;
    up_status s;

    memset(r, 0, sizeof *r);
    if (up_run_near_exe("UNPERTURB_CALIBRATE_PROG", "libexec/unperturb-calibrate", prog, sizeof prog) != 0 ||
        access(prog, X_OK) != 0)
        return UP_ERR(err, UP_EIO, "cannot find '%s' (set UNPERTURB_CALIBRATE_PROG)", prog);
    /* the measurement program writes FILE's temporary (or, for -o -, a
     * file in a private folder, printed when it is complete) */
    if ((s = up_outset_new(&r->outs, o->force, err)) != UP_OK ||
        (s = up_outset_add(r->outs, o->output, UP_OUT_FILE, "-o", NULL, err)) != UP_OK ||
        (!strcmp(o->output, "-") && (s = up_outset_scratch(r->outs, &scratch, err)) != UP_OK) ||
        (s = up_outset_begin(r->outs, err)) != UP_OK)
        return s;
    if (strcmp(o->output, "-"))
        snprintf(tmp, sizeof tmp, "%s", up_outset_tmp(r->outs, 0));
    else
        snprintf(tmp, sizeof tmp, "%s/calibration.ini", up_outset_tmp(r->outs, scratch));

    if (o->launcher) {
        char *save = NULL, *tok;
        if (!(lcopy = up_strdup(o->launcher)))
            return UP_ERR(err, UP_ENOMEM, "out of memory");
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
    args[n++] = (char *)o->extra_ns;
    args[n] = NULL;
    s = measure(args, err);
    up_free(lcopy);
    if (s != UP_OK)
        return s;
    if ((s = up_text_file_read(tmp, "calibration", UP_CALIB_READ_MAX, &r->text, &r->size, err)) != UP_OK) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return UP_ERR(err, s, "no result: %s", msg);
    }
    if (!r->size)
        return UP_ERR(err, UP_EIO, "empty result");
    return up_outset_commit(r->outs, err);
}

void up_run_cal_free(up_run_cal *r)
{
    up_free(r->text);
    up_outset_free(r->outs);
    memset(r, 0, sizeof *r);
}
