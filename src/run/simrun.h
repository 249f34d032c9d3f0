/*
 * simrun.h - the pipeline of `unperturb simulate` (docs/simulate.md): the
 * experiment (inputs, machine, sweeps) and its file experiment.ini, the
 * values of a sweep, one simulation of one archive, sweeps of one trace and
 * scaling over several traces, each filling a result struct that
 * report/simreport.h prints and writes.
 *
 * Place in the data flow: tools/cmd_simulate.c parses the options into
 * up_run_sim_opts and calls up_run_simulate, which takes the experiment from
 * the command line or up_experiment_load, checks it (up_experiment_prepare),
 * and runs the simulations (up_simrun_one, up_simrun_sweep or
 * up_simrun_scaling; model/simulate.h) on the archives they open.
 *
 *   experiment.c  the experiment, its machine, its file format, the checks
 *                 before work
 *   sweep.c       KEY=FROM:TO:STEP values; scaling's order and speedups
 *   simrun.c      the simulations and the pipeline
 */
#ifndef UNPERTURB_SIMRUN_H
#define UNPERTURB_SIMRUN_H

#include <stdio.h>
#include <time.h>

#include "model/machine.h"
#include "model/simulate.h"

#define UP_SIM_MAX_SETS 64
#define UP_SIM_MAX_INPUTS 256
#define UP_SWEEP_MAX 1000     /* values of one sweep */
#define UP_SIM_MAX_SIMS 10000 /* simulations of one experiment (grid, scaling x sweep) */

/* ---- sweeps (sweep.c) ---------------------------------------------------- */

typedef struct up_sweep {
    const char *spec;  /* as given, for messages */
    char key[64];      /* as given (may hold a section: "network.latency_ns") */
    const char *name;  /* the key without a section: columns, labels */
    double from, to, step;
    size_t n;          /* values */
    double v[UP_SWEEP_MAX];
} up_sweep;

/* KEY=FROM:TO:STEP: value k is FROM + k*STEP (no accumulation) up to TO,
 * which counts within 1e-9 (and is then taken exactly); at most 1000 values;
 * every value is tried on a copy of m.  UP_EUSAGE with "--sweep 'ARG': why". */
up_status up_sweep_parse(const char *arg, const up_machine *m, up_sweep *s, up_err *err);

/* ---- the experiment (experiment.c) --------------------------------------- */

/* One experiment: from the command line or an experiment file. */
typedef struct up_experiment {
    const char *inputs[UP_SIM_MAX_INPUTS];
    size_t ninputs;
    const char *machine_file;   /* --machine (command line only) */
    const char *sets[UP_SIM_MAX_SETS]; /* --set, in order (command line only) */
    size_t nsets;
    const char *sweep_args[2];  /* KEY=FROM:TO:STEP as given */
    int sweep_lines[2];         /* their lines in the experiment file (0: command line) */
    size_t nsw;
    up_sweep sw[2];             /* filled by up_experiment_prepare */
    const char *calib, *out, *json;
    const char *file;           /* the experiment file read, or NULL */
    up_machine m;               /* the machine before any sweep */
    char **pool;                /* strings read from the file */
    size_t npool, cappool;
} up_experiment;

/* An empty experiment (no inputs, the default machine). */
void up_experiment_init(up_experiment *ex);
void up_experiment_free(up_experiment *ex);

/* Reads an experiment file into ex (up_experiment_init'ed; out and json
 * already set, by -o and --json, are kept): [experiment] gives the inputs,
 * sweeps, output, json and calibration (paths relative to the file's
 * folder), the other sections the machine (up_machine_parse, with the
 * file's line numbers).  UP_EFORMAT "FILE:LINE: why" for a bad line. */
up_status up_experiment_load(up_experiment *ex, const char *path, up_err *err);
/* The same from text; `path` names it and anchors relative paths. */
up_status up_experiment_parse(up_experiment *ex, const char *text, const char *path, up_err *err);

/* The machine of an experiment, read in this one place for the command line
 * and the experiment file: the defaults, then `text` (the machine sections of
 * an experiment file, named `what` in errors; up_experiment_parse passes
 * them) or else the file ex->machine_file (--machine), then each --set in
 * order.  A bad machine is the reader's error (UP_EFORMAT "FILE:LINE: why"),
 * a bad --set UP_EUSAGE "--set KEY=VALUE: why". */
up_status up_experiment_machine(up_experiment *ex, const char *text, const char *what, up_err *err);

/* Writes ex as an experiment file: the [experiment] section (inputs and the
 * calibration made absolute by realpath when they exist, output and json
 * made absolute, sweeps with numbers that read back exactly, created = now
 * in UTC) and the whole machine (up_machine_write).  Returns 0, or -1 if
 * writing failed. */
int up_experiment_write(FILE *f, const up_experiment *ex, time_t now);
/* up_experiment_write to dir/experiment.ini. */
up_status up_experiment_save(const up_experiment *ex, const char *dir, up_err *err);

/* The checks before any work, in this order: each sweep parses
 * (up_sweep_parse; from a file "FILE:LINE: why"), two sweeps have two keys,
 * several inputs have at most one sweep, at most 10000 simulations, a sweep
 * or several inputs have an output folder, the paths to record survive the
 * experiment file's format, every input is readable, the calibration file
 * loads.  UP_EUSAGE for a bad command line, else the error's status. */
up_status up_experiment_prepare(up_experiment *ex, up_err *err);

/* `path` made absolute without resolving it (it may not exist yet);
 * free() it.  NULL if out of memory or the folder is unknown. */
char *up_experiment_abs_path(const char *path);

/* ex's machine with the sweep values of point (a, b) set (b: of the second
 * sweep, if any). */
up_status up_experiment_machine_at(const up_experiment *ex, size_t a, size_t b, up_machine *m,
                                   up_err *err);

/* ---- one simulation (simrun.c) ------------------------------------------- */

typedef struct up_simrun_opts {
    const char *input;          /* anchor file or experiment folder */
    const up_machine *machine;
    const char *calibration;    /* overheads file, may be NULL: those stored in the archive */
    const char *out_dir;        /* a new empty folder for the predicted OTF2
                                 * archive, may be NULL: none */
    bool quiet;                 /* no progress bar */
} up_simrun_opts;

/* Opens the archive, takes the tracer's overheads (up_run_params: the
 * archive's, then --calibration's), simulates it (up_sim_trace) and with
 * out_dir writes the predicted archive.  Free *s with up_sim_summary_free. */
up_status up_simrun_one(const up_simrun_opts *o, up_sim_summary *s, up_err *err);

/* What sweeps and scaling keep of one simulation. */
typedef struct up_sim_point {
    double measured_s, predicted_s;
    long nranks;        /* the trace's ranks, else its locations */
    size_t nlocs;
    bool cpu_time;      /* compute came from the CPU-time metric */
} up_sim_point;

/* Called after simulation k (1..n) of `input`; `what` names the sweep
 * values ("latency_ns=1000", "" without a sweep). */
typedef void (*up_simrun_progress)(void *ctx, size_t k, size_t n, const char *input,
                                   const char *what, double predicted_s);

/* ---- sweeps of one trace (simrun.c) --------------------------------------- */

typedef struct up_sweep_result {
    size_t n0, n1;        /* values of the first sweep, of the second (1: none) */
    double *pred;         /* predicted time of point (a, b) at [a * n1 + b] */
    double measured_s;    /* the traced run */
    up_sim_point first;   /* the first simulation: ranks, locations, compute */
} up_sweep_result;

/* A simulation of ex->inputs[0] per sweep value (pair), the first sweep
 * varying slowest.  ex prepared. */
up_status up_simrun_sweep(const up_experiment *ex, up_simrun_progress fn, void *ctx,
                          up_sweep_result *r, up_err *err);
void up_sweep_result_free(up_sweep_result *r);

/* ---- scaling: several traces (simrun.c, sweep.c) --------------------------- */

typedef struct up_scaling_result {
    size_t ni, nv;        /* inputs; values of the sweep (1: none) */
    up_sim_point *pt;     /* [v * ni + i], i in input order */
    size_t *ord;          /* ord[i]: the input with the i-th fewest ranks */
    /* by rank order (i: ord[i]) */
    double *x;            /* ranks */
    double *meas;         /* measured time */
    double *mspeed;       /* measured speedup meas[0] / meas[i] * x[0] */
    double *ts, *sp, *eff;/* [v * ni + i]: predicted time, speedup, speedup / ranks */
} up_scaling_result;

/* Room for ni inputs and nv sweep values. */
up_status up_scaling_alloc(up_scaling_result *r, size_t ni, size_t nv, up_err *err);
void up_scaling_result_free(up_scaling_result *r);
/* Orders the inputs by the ranks of row (ni points, input order) into ord;
 * UP_EFORMAT if two have the same rank count (inputs name them). */
up_status up_scaling_order(const up_sim_point *row, size_t ni, const char *const *inputs,
                           size_t *ord, up_err *err);
/* From r->pt and r->ord: x, meas, mspeed, ts, and the speedup relative to
 * the run with the fewest ranks n0, T(n0) / T(n) * n0, per sweep value
 * (NAN where T(n) is 0), and the efficiency speedup / n. */
void up_scaling_speedups(up_scaling_result *r);

/* Every input at every sweep value (the sweep's outer), ordered by ranks
 * after the first value's simulations. ex prepared. */
up_status up_simrun_scaling(const up_experiment *ex, up_simrun_progress fn, void *ctx,
                            up_scaling_result *r, up_err *err);

/* ---- the pipeline of `unperturb simulate` (simrun.c) ----------------------- */

typedef struct up_run_sim_opts {
    /* the command line's experiment: machine_file, sets, sweep_args, calib,
     * out, json (up_experiment_init'ed; the inputs are args) */
    up_experiment ex;
    const char *experiment;      /* --experiment FILE (NULL: the command line's) */
    char *const *args;           /* the inputs as given (TRACE...) */
    size_t nargs;
    bool force, quiet;
    up_simrun_progress progress; /* after each simulation of a sweep or scaling (NULL: none) */
    void *progress_ctx;
} up_run_sim_opts;

void up_run_sim_opts_init(up_run_sim_opts *o);

typedef enum up_sim_kind {
    UP_SIM_ONE,      /* one input, no sweep */
    UP_SIM_SWEEP,    /* one input, one or two sweeps */
    UP_SIM_SCALING   /* several inputs */
} up_sim_kind;

typedef struct up_run_sim {
    up_experiment ex;         /* as run, prepared: the command line's, or the
                               * file's with -o and --json of the command line */
    up_sim_kind kind;
    up_sim_summary one;       /* UP_SIM_ONE */
    up_sweep_result sweep;    /* UP_SIM_SWEEP */
    up_scaling_result scaling;/* UP_SIM_SCALING */
    bool usage;               /* the error is the command line's (the caller
                               * points to --help) */
    up_outset *outs;          /* -o (o_dir), --json (o_json) */
    size_t o_dir, o_json;
} up_run_sim;

/* The experiment of the command line (inputs, --machine and --set through
 * up_experiment_machine) or of o->experiment (up_experiment_load, which
 * reads its machine the same way), checked (up_experiment_prepare); the
 * output set; then the simulations of its kind, with -o the predicted
 * archive (UP_SIM_ONE) and experiment.ini in the output folder's temporary.
 * The caller writes what report/simreport.h formats (sweep.csv, scaling.csv,
 * the plots, --json) at up_outset_tmp of r->outs, then commits.  Free r in
 * any case. */
up_status up_run_simulate(const up_run_sim_opts *o, up_run_sim *r, up_err *err);
void up_run_sim_free(up_run_sim *r);

#endif /* UNPERTURB_SIMRUN_H */
