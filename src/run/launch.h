/*
 * launch.h - the pipelines that launch a program: `unperturb trace` (the MPI
 * program with the tracer preloaded; docs/tracer.md) and `unperturb
 * calibrate` (unperturb-calibrate on two ranks; docs/calibration.md), in the
 * style of pipeline.h: an options struct, a result struct, an output set,
 * warnings through a callback, no printing (but for the message of a child
 * that cannot exec, on its own stderr).  `validate` launches programs too;
 * it is in pipeline.h.
 *
 * Place in the data flow: above trace (the merge of a run's per-rank
 * files), below the commands tools/cmd_trace.c and tools/cmd_calibrate.c.
 */
#ifndef UNPERTURB_LAUNCH_H
#define UNPERTURB_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>

#include "run/pipeline.h"
#include "trace/merge.h"

/* A file installed with the command: PREFIX/<rel> for PREFIX/bin/unperturb
 * (also build/<rel> in the build tree); the environment variable `env`
 * overrides.  Writes the path to `out` and returns 0 if it is readable. */
int up_run_near_exe(const char *env, const char *rel, char *out, size_t cap);

/* In a forked child: runs argv (execvp) with the signal dispositions the
 * command found (up_signals_child); if it cannot, says so on stderr
 * ("unperturb WHO: cannot run 'PROGRAM': why") and exits with 127. */
_Noreturn void up_run_exec_child(const char *who, char *const *argv);

/* ---- trace ------------------------------------------------------------------- */

typedef struct up_run_tr_opts {
    const char *output;      /* -o DIR */
    const char *filter;      /* --filter FILE (NULL: none) */
    const char *extra_ns;    /* --extra-ns, digits (NULL: the tracer's default) */
    const char *buffer_mb;   /* --buffer-mb, digits (NULL: the tracer's default) */
    bool functions, cpu_time, force;
    char *const *prog;       /* LAUNCHER... PROGRAM [ARGS], NULL-terminated */
    up_run_warn_fn warn;     /* "the program ended before MPI_Finalize: ..." */
    void *warn_ctx;
} up_run_tr_opts;

typedef struct up_run_tr {
    int status;              /* the program's wait status */
    bool kept;               /* it ended before MPI_Finalize and the merge of
                              * its per-rank files failed: they were committed
                              * to -o, for `trace --recover` */
} up_run_tr;

/* Checks the filter file (as the tracer reads it), finds
 * libunperturb-trace.so (up_run_near_exe, UNPERTURB_TRACE_LIB), declares
 * the output set (the filter and the program's files named on the command
 * line are inputs), sets the tracer's environment and runs the program
 * with SIGTERM and SIGHUP forwarded to it and SIGINT left to the terminal;
 * a run that left per-rank files only is merged, with a warning.  Commits
 * the archive (nothing of report/ goes with it); a program that failed
 * after writing its trace is no error of the pipeline: r->status says.
 * Also commits the per-rank files when their merge failed (r->kept), and
 * returns the merge's error. */
up_status up_run_trace(const up_run_tr_opts *o, up_run_tr *r, up_err *err);
/* `trace --recover DIR`: merges what a run that died left in dir, and writes
 * the marker of an earlier output of `trace` anew (up_output_remark). */
up_status up_run_trace_recover(const char *dir, up_merge_info *info, up_err *err);

/* ---- calibrate ------------------------------------------------------------------ */

typedef struct up_run_cal_opts {
    const char *output;      /* -o FILE; "-": standard output */
    const char *extra_ns;    /* --extra-ns, digits ("0") */
    const char *launcher;    /* --launcher: words separated by blanks (NULL:
                              * mpirun -np 2 --oversubscribe, and
                              * --allow-run-as-root as root) */
    bool force;
} up_run_cal_opts;

typedef struct up_run_cal {
    char *text;              /* the calibration file written */
    size_t size;
    up_outset *outs;         /* -o is output 0 */
} up_run_cal;

/* Finds unperturb-calibrate (up_run_near_exe, UNPERTURB_CALIBRATE_PROG),
 * declares the output set (for -o -, a scratch folder), runs it on two
 * ranks writing the output's temporary, reads what it wrote and commits it.
 * The caller prints r->text.  Free r in any case. */
up_status up_run_calibrate(const up_run_cal_opts *o, up_run_cal *r, up_err *err);
void up_run_cal_free(up_run_cal *r);

#endif /* UNPERTURB_LAUNCH_H */
