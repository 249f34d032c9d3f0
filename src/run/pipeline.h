/*
 * pipeline.h - the pipelines of `unperturb compensate`, `estimate`, `report`,
 * `export` and `validate` (issue 23): each is one call with an options struct
 * and a result struct; the commands in tools/ only parse options into the
 * options, call the pipeline, and print its result with src/report/.  Those
 * of `simulate` are in simrun.h, of `trace` and `calibrate` in launch.h.
 *
 * Place in the data flow: above trace, replay, model and analysis, below
 * report.  A pipeline that writes declares its inputs and outputs in an
 * output set (up_outset) before any work and leaves it in its result, not
 * committed: the caller writes the outputs that report/ formats (--json,
 * report.html, the table) at up_outset_tmp of it, then commits them all in
 * one step (up_outset_commit) or frees the result, which removes them.
 * The pipelines never print; warnings go to a callback.
 */
#ifndef UNPERTURB_PIPELINE_H
#define UNPERTURB_PIPELINE_H

#include <limits.h>
#include <sched.h>
#include <stdio.h>

#include "analysis/counts.h"
#include "analysis/estimate.h"
#include "analysis/hybrid.h"
#include "analysis/profile.h"
#include "analysis/timeline.h"
#include "model/compensate.h"

/* A warning for the user, before the work it concerns (NULL: none). */
typedef void (*up_run_warn_fn)(void *ctx, const char *msg);

#define UP_RUN_SOURCE_MAX 256

/* The parameters of every command that takes them, by the precedence of
 * docs/calibration.md ("Where values come from"): the defaults, the
 * calibration the unperturb tracer stored in archive t, the file `calib`
 * (NULL: none), then the command line's values `cli` (NULL: none), and last
 * the bounds' end of the range of O for the mode (up_comp_params_resolve).
 * `source` (UP_RUN_SOURCE_MAX bytes) says where O came from: "archive",
 * "archive, FILE, --overhead-ns", ..., or "none given: O = 0" when no
 * source gave O (p->overhead_set is then false). */
up_status up_run_params(up_trace *t, const char *calib, const up_comp_cli *cli,
                        up_comp_params *p, char *source, up_err *err);
/* Opens input into *t and resolves its parameters (up_run_params); when no
 * source gives O, warns "... DOING with O = 0" through warn (NULL: not).
 * On failure *t may be open: the caller closes it. */
up_status up_run_open(const char *input, const char *calib, const up_comp_cli *cli,
                      up_run_warn_fn warn, void *wctx, const char *doing, up_trace **t,
                      up_comp_params *p, char *source, up_err *err);

/* ---- compensate ------------------------------------------------------------- */

typedef struct up_run_comp_opts {
    const char *input;       /* anchor file or the folder holding it */
    const char *output;      /* archive folder to write (-o); NULL: the replay
                              * only, and no output set */
    const char *json;        /* --json, declared in the output set; the caller
                              * writes it (NULL: none) */
    const char *calibration; /* --calibration (NULL: none) */
    up_comp_cli cli;         /* the command line's values */
    bool force;              /* replace existing outputs */
    bool quiet;              /* no progress bar */
    up_run_warn_fn warn;     /* "no per-record overhead given ..." */
    void *warn_ctx;
} up_run_comp_opts;

/* Defaults: nothing given (up_comp_cli_init). */
void up_run_comp_opts_init(up_run_comp_opts *o);

typedef struct up_run_comp {
    up_comp_params params;   /* as the replay used them (resolved) */
    char source[UP_RUN_SOURCE_MAX]; /* where O came from (up_run_params) */
    up_trace *trace;         /* the input, open: definitions, damage list */
    up_replay_result res;
    uint64_t *removed;       /* overhead removed per location, ticks */
    uint64_t nstalls, stall_ticks; /* stalls of the tracer's spins removed */
    uint64_t stall_lists_damaged;
    up_outset *outs;         /* output set (NULL without output) */
    size_t o_dir, o_json;    /* their indices in it */
} up_run_comp;

/* Compensates o->input: output set, parameters (up_run_params), the replay
 * with model "compensate", and the archive at the output's temporary name
 * with its description.  On failure the result holds what was done (free
 * it). */
up_status up_run_compensate(const up_run_comp_opts *o, up_run_comp *r, up_err *err);
void up_run_comp_free(up_run_comp *r);

/* ---- estimate --------------------------------------------------------------- */

typedef struct up_run_est_opts {
    const char *input;
    const char *json;        /* --json, declared in the output set (NULL: none) */
    const char *calibration;
    up_comp_cli cli;         /* --overhead-ns */
    bool compare;            /* also the replay of `compensate --mode lower` */
    bool force;
    up_run_warn_fn warn;
    void *warn_ctx;
} up_run_est_opts;

void up_run_est_opts_init(up_run_est_opts *o);

typedef struct up_run_est {
    up_comp_params params;
    char source[UP_RUN_SOURCE_MAX];
    up_trace *trace;         /* open: est.locs names point into its definitions */
    up_estimate est;
    up_run_comp replay;      /* with compare: compensate --mode lower, no output */
    bool have_replay;
    up_outset *outs;         /* --json is output 0 */
} up_run_est;

/* The time-based models of o->input (and with compare, the replay first,
 * through up_run_compensate). */
up_status up_run_estimate(const up_run_est_opts *o, up_run_est *r, up_err *err);
void up_run_est_free(up_run_est *r);
/* What up_report_estimate_json and the text print. */
up_estimate_report up_run_est_report(const up_run_est *r, const char *input);

/* ---- report ----------------------------------------------------------------- */

typedef struct up_run_rep_opts {
    const char *path_a, *path_b;    /* RUN, --against RUN2 (NULL: none) */
    const char *label_a, *label_b;  /* progress labels */
    const char *json, *html;        /* declared in the output set (NULL: none) */
    const char *calibration;
    up_comp_cli cli;                /* --overhead-ns */
    up_timeline_opts window;        /* report.html's timelines (with html) */
    bool force, quiet;
} up_run_rep_opts;

void up_run_rep_opts_init(up_run_rep_opts *o);

typedef struct up_run_rep {
    up_trace *t_a, *t_b;     /* open: the profiles' names point into them */
    up_profile a, b;         /* b: with path_b */
    bool have_b;
    up_hybrid hy_a, hy_b;    /* threads and devices (when up_hybrid_present) */
    bool have_hy_a, have_hy_b;
    up_estimate est;         /* the time-based models of run a, when O is known */
    bool have_est;
    up_timeline tl_a, tl_b;  /* with html: the window of run a (o->window), and
                              * the same part of the program in run b */
    bool have_tl_a, have_tl_b;
    up_trace *tl_t_a, *tl_t_b; /* open: the timelines' names point into them */
    up_outset *outs;
    size_t o_json, o_html;
} up_run_rep;

/* Profiles run a (and b), the estimates of run a when some source gives O
 * (up_run_params), and with o->html the timelines of report.html. */
up_status up_run_report(const up_run_rep_opts *o, up_run_rep *r, up_err *err);
void up_run_rep_free(up_run_rep *r);

/* ---- export ------------------------------------------------------------------ */

typedef struct up_run_exp_opts {
    const char *input;       /* TRACE */
    const char *output;      /* --perfetto FILE, declared in the output set */
    bool force;
} up_run_exp_opts;

typedef struct up_run_exp {
    up_trace *trace;         /* the input, open */
    up_outset *outs;         /* --perfetto is output 0 */
} up_run_exp;

/* The output set (the input, --perfetto), then o->input opened: the caller
 * writes the trace-event JSON (report/perfetto.h) at up_outset_tmp(r->outs, 0)
 * and commits.  Free r in any case. */
up_status up_run_export(const up_run_exp_opts *o, up_run_exp *r, up_err *err);
void up_run_exp_free(up_run_exp *r);

/* ---- validate ---------------------------------------------------------------- */

#define UP_VAL_MAXV 16     /* values in --np and --extra-ns */
#define UP_VAL_MAXREP 100  /* --repeat */
#define UP_VAL_MAXARGV 256 /* words of a launched command */
#define UP_VAL_MAXLAUNCHER 60

typedef struct up_run_val_opts {
    const char *output;      /* -o DIR */
    const char *json;        /* --json, declared in the output set (NULL: none) */
    unsigned np[UP_VAL_MAXV], nnp;       /* --np */
    unsigned extra[UP_VAL_MAXV], nx;     /* --extra-ns */
    unsigned repeat, timeout;            /* --repeat, --timeout (s) */
    uint64_t seed;           /* --seed: the order of the kinds of run in each round */
    const char *launcher;    /* --launcher: words separated by blanks */
    bool no_mpi;             /* --no-mpi: the program runs alone, its window
                              * from the tracer's start to its end
                              * (docs/validate.md, "Programs without MPI") */
    unsigned threads[UP_VAL_MAXV], nthreads; /* --threads (nthreads 0: not given):
                              * OMP_NUM_THREADS and the word {threads} of the
                              * program's arguments; a row per rank count and
                              * thread count */
    char **prog;             /* PROGRAM ARGS, NULL-terminated */
    bool functions, force;
    const char *exe;         /* this command, run as `trace` */
    const char *shim;        /* libunperturb-time.so */
    unsigned cores;          /* online cores: more ranks oversubscribe */
    bool root;               /* running as root (mpirun needs a flag) */
    up_run_warn_fn say;      /* a line of progress per run (NULL: none) */
    void *say_ctx;
    /* writes the summary of a compensation to path, as `compensate --json`
     * does (report/: up_report_compensate_json), beside its folder (NULL:
     * no summaries); input and output as up_run_compensate had them */
    up_status (*summary)(void *ctx, const up_run_comp *c, const char *input, const char *output,
                         const char *path, up_err *err);
    void *summary_ctx;
} up_run_val_opts;

/* Defaults: --np 2, --repeat 5, --extra-ns 0, --timeout 600, mpirun. */
void up_run_val_opts_init(up_run_val_opts *o);

/* One configuration (rank count, extra cost): every run of it. */
typedef struct up_run_val_row {
    unsigned np, extra;
    unsigned threads;          /* --threads' value of the row (0: not given) */
    char name[48];             /* its folder: npN-xE, npN-tT-xE, tT-xE, alone-xE
                                * (up_run_val_cfg_name, then -xE) */
    double T[UP_VAL_MAXREP], Tm[UP_VAL_MAXREP]; /* every run's window, s */
    double Tn[UP_VAL_MAXREP];  /* every traced run's network-mode Ta, s */
    int best_traced;           /* repetition kept (fastest Tm) */
    double Ta[3];              /* lower, upper, network of the kept run */
    /* records per region of every traced run: the table until it is
     * compared with the reference run (the reference's own is kept), then
     * the regions that differ (NULL: none) */
    up_counts *cnt[UP_VAL_MAXREP];
    uint64_t records[UP_VAL_MAXREP]; /* Enter records counted, all regions */
    up_count_diff *diff[UP_VAL_MAXREP];
    size_t ndiff[UP_VAL_MAXREP];
    unsigned ref_extra;        /* the reference run: first run at this extra cost */
} up_run_val_row;

typedef struct up_run_val {
    /* what the table and JSON show besides the rows */
    char **prog;
    char *launcher[UP_VAL_MAXLAUNCHER];
    int nlauncher;
    unsigned repeat, cores;
    bool functions;
    uint64_t seed;
    /* per rank count and round, the kinds of run in the order they ran:
     * 0 uninstrumented, e + 1 traced at extra[e] */
    unsigned char order[UP_VAL_MAXV][UP_VAL_MAXREP][UP_VAL_MAXV + 1];
    /* the configurations i: every rank count of --np (1 without MPI) with
     * every thread count of --threads (thr[i] 0: not given) */
    unsigned np[UP_VAL_MAXV], thr[UP_VAL_MAXV], nnp, extra[UP_VAL_MAXV], nx;
    bool mpi;                  /* launched by MPI (not --no-mpi) */
    bool threads_given;        /* --threads */
    /* configuration i's CPU set, when validate pins it (without MPI, the
     * first thr[i] cores it may use): pinned[i] */
    cpu_set_t cpus[UP_VAL_MAXV];
    bool pinned[UP_VAL_MAXV];
    /* the OpenMP runtime of every run, uninstrumented or traced
     * (run/omp_runtime.h): the plan's message, what runs ("libomp",
     * "libgomp", "none", "not checked") and how ("link", "preload", "as is");
     * omp_seen: what the timing shim found loaded in the uninstrumented
     * runs ("": not yet) */
    char omp_msg[1024], omp_seen[16];
    const char *omp_runs, *omp_route;
    bool omp_lost;             /* the program's OpenMP events are not recorded */
    up_run_val_row *rows;          /* np-major: row i * nx + e */
    unsigned nrows;
    unsigned long compared;    /* traced runs compared with a reference run */
    char dir[PATH_MAX];        /* the output folder's temporary name, resolved */
    up_outset *outs;           /* -o is output 0, --json o_json */
    size_t o_json;
    int interrupted;           /* the signal that stopped the runs (0: none) */
    char tail[4096];           /* after a failed run: the end of its output */
    bool have_tail;
    /* private */
    char *lcopy;
    unsigned timeout;
    const char *exe, *shim;
    FILE *log, *csv;
    /* the environment of every run: NAME=VALUE of the OpenMP plan ("": none),
     * LD_PRELOAD with the shim first, OMP_PROC_BIND and OMP_PLACES ("":
     * the user's own) */
    char e_omp[2 * PATH_MAX + 32], e_shim[3 * PATH_MAX + 32], e_bind[32], e_places[32];
} up_run_val;

/* The experiment (docs/validate.md): per rank count, `repeat` times the
 * program uninstrumented (timed by the shim) and, alternating, traced at
 * each extra cost (`exe trace`), each traced run compensated in network
 * mode (up_run_compensate in this process, with its --json summary); the
 * fastest traced run is kept and compensated in lower and upper mode too.  Writes log.txt, runs.csv and
 * the kept traces into the output set's temporary folder (v->dir); the
 * caller writes table.txt, validate.json and plot.svg (src/report/runs.h)
 * and commits.  A failed run leaves the end of its output in v->tail.
 * While runs go on, SIGINT, SIGTERM and SIGHUP stop them: v->interrupted is
 * the signal, the status UP_EIO, and err->msg empty unless a run failed. */
up_status up_run_validate(const up_run_val_opts *o, up_run_val *v, up_err *err);
void up_run_val_free(up_run_val *v);

/* Its parts, for tests. */
/* min, median, max of n values (n >= 1) */
void up_run_val_spread(const double *x, unsigned n, double out[3]);
/* min, median, max over the rounds of the paired dilation (Tm - T) / T of
 * each round's traced run against the same round's uninstrumented run */
void up_run_val_paired(const up_run_val_row *r, unsigned n, double out[3]);
/* round k's order of the n kinds of run of rank count i (validate.c) */
void up_run_val_order(uint64_t seed, unsigned i, unsigned k, unsigned n, unsigned char *order);
/* The words that launch the program on np ranks: the launcher's, then for
 * mpirun (mpiexec, orterun) --allow-run-as-root as root, --oversubscribe
 * past `cores`, and with threads > 1 (--threads) unless the launcher's
 * words bind already (--map-by, --bind-to, --cpus-per-proc): --map-by
 * slot:PE=T when np * T cores are there, else --bind-to none; then -np N
 * and the program's words; NULL-terminated in argv (UP_VAL_MAXARGV words;
 * N written to npbuf, slot:PE=T to pebuf, each of cap bytes); returns
 * their number. */
int up_run_val_launch_argv(char *const *launcher, int nlauncher, char *const *prog, unsigned np,
                           unsigned threads, unsigned cores, bool root, char **argv, char *npbuf,
                           char *pebuf, size_t cap);
/* The rows of runs.csv (header:
 * np,extra_ns,run,kind,window_s,Ta_network_s,threads,openmp); rep counts
 * from 0, threads 0 is left empty; omp: the OpenMP runtime of the run. */
void up_run_val_csv_header(FILE *f);
void up_run_val_csv_untraced(FILE *f, unsigned np, unsigned threads, unsigned rep, double T,
                             const char *omp);
void up_run_val_csv_traced(FILE *f, unsigned np, unsigned threads, unsigned extra, unsigned rep,
                           double Tm, double Ta, const char *omp);
/* window_s= of the timing shim's file; NAN if there is none */
double up_run_val_read_window(const char *path);
/* The OpenMP runtime the timing shim's file names (openmp=PATH): "libomp"
 * for LLVM's libomp or Intel's libiomp5, "libgomp", "none", "other" for
 * another library; "" when the file names none (an older shim). */
const char *up_run_val_read_openmp(const char *path);
/* A configuration's folder name (mpi: launched by MPI; threads 0: no
 * --threads): npN, npN-tT, tT, alone; and its name in the text: "np N",
 * "np N, T threads", "T threads", "alone". */
void up_run_val_cfg_name(bool mpi, unsigned np, unsigned threads, char *buf, size_t cap);
void up_run_val_cfg_text(bool mpi, unsigned np, unsigned threads, char *buf, size_t cap);
/* The program's words for `threads` (0: as given): every "{threads}" in an
 * argument replaced by the number, the new words kept in store; NULL-ended
 * in out (at most max words with the NULL).  -1 when out or store is too
 * small, else the number of words. */
int up_run_val_subst(char *const *prog, unsigned threads, char **out, int max, char *store, size_t cap);
/* The CPU set of a run of n threads pinned without MPI: the first n CPUs of
 * `allowed` (the set validate itself may run on).  false (out empty) when
 * allowed has fewer than n, or n is 0: the run is not pinned. */
bool up_run_val_cpus(const cpu_set_t *allowed, unsigned n, cpu_set_t *out);
/* More ranks x threads than cores: the row is oversubscribed. */
bool up_run_val_oversubscribed(const up_run_val *v, const up_run_val_row *r);
/* Honest bounds (issue 20, item 5): the median T (t: min, median, max of the
 * uninstrumented runs) lies in [lower - s, upper + s], s = max - min. */
bool up_run_val_inside(const up_run_val_row *r, const double t[3]);
/* The traced runs of a row that differ from the reference; *shown: the one
 * whose top region differs most (-1: none). */
unsigned up_run_val_differing(const up_run_val_row *r, unsigned repeat, int *shown);
/* Repetition k of one rank count is done (rows: its nx rows; ref: the row
 * of the smallest extra cost): every traced run of it is compared with the
 * reference run, the first traced run of row ref, and its table freed;
 * *compared counts the comparisons. */
up_status up_run_val_compare_counts(up_run_val_row *rows, unsigned nx, unsigned ref, unsigned k,
                                unsigned long *compared, up_err *err);

#endif
