/*
 * funcs.h - internals of the function hooks (funcs.c) that the tracer's life
 * cycle (life.c), its calibration (calib.c) and the tests may use.  The hooks
 * themselves (__cyg_profile_func_enter/exit) and the manual API
 * (<unperturb/region.h>) need no header here.
 */
#ifndef UNPERTURB_FUNCS_H
#define UNPERTURB_FUNCS_H

#include <stdint.h>

/* ---- the filter --------------------------------------------------------------
 * Like Score-P's: shell globs (fnmatch) on function names, from the file named
 * by UNPERTURB_FILTER_FILE (one per line; '#' starts a comment; blank lines
 * ignored) and then from UNPERTURB_FILTER (separated by commas or white
 * space).  A glob excludes the functions it matches; "!glob" includes them
 * again; the last matching pattern decides.  A filter file that cannot be read
 * earns one warning on stderr and disables the whole filter. */

/* (Re)read the two variables.  upt_funcs_init() calls it. */
void upt_filter_load(void);
/* 1 if `name` is filtered out (loads the filter on first use). */
int upt_filter_excluded(const char *name);

/* ---- counters ------------------------------------------------------------------ */

struct upt_funcs_stats {
    uint64_t deep_calls;      /* calls beyond the shadow stack's depth: not recorded */
    uint64_t unmatched_exits; /* exits skipped (longjmp) or without an entry, repaired */
    uint64_t unmatched_ends;  /* up_region_end() that was not the innermost region: ignored */
    uint64_t functions;       /* distinct function addresses seen while recording */
    uint64_t filtered;        /* ... of which the filter excluded */
};
void upt_funcs_stats(struct upt_funcs_stats *st);

/* The entry time (upt_now) of the outermost frame saved before recording began
 * (main, usually), or UINT64_MAX: upt_funcs_init() writes Enter records this
 * early, so the trace's clock must start no later. */
uint64_t upt_funcs_earliest(void);

/* ---- life cycle -----------------------------------------------------------------
 * upt_funcs_init, once recording is on: Enter records of the functions already
 * running (main, with their saved times), set-up of the filter and the names;
 * upt_funcs_fini before the archive closes: Leave records of the functions
 * still running, their names flushed. */
void upt_funcs_init(void);
void upt_funcs_fini(void);
/* A thread other than main's and MPI's ends (pthreads.c, before its
 * ThreadEnd): Leave records of its functions and regions still open, and
 * it records no more functions. */
void upt_funcs_thread_end(void);
/* (calib.c) ns per Enter/Leave pair written through the compiler hooks, n
 * pairs back to back; -1 if this thread cannot record functions */
double upt_funcs_measure(unsigned n);

/* Optional: free the symbol tables (libdw's DWARF can be large), the address
 * cache and the filter after upt_funcs_fini(), from a normal MPI_Finalize (not
 * from a signal handler: it frees memory).  Hooks that fire later still
 * balance their stack but record nothing. */
void upt_funcs_free(void);

#endif
