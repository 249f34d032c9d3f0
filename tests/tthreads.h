/*
 * tthreads.h - small traces of one process's CPU threads for the unit
 * tests of the thread rules (tests/test_omp.c, tests/test_pthreads.c),
 * written with OTF2's own writer, compensated, and every record's time
 * read back through OTF2's reader (tread.c skips locks, tasks and threads).
 *
 * The archive: one process of n CPU threads (location ids 0..n-1), 1 ns
 * ticks, the regions of tt_region, an OpenMP team of all its threads
 * (TT_TEAM, master 0, as Score-P writes one) and the thread contingent
 * (TT_CONTINGENT, a COMM_LOCATIONS group of paradigm PTHREAD, as our
 * tracer writes it: docs/tracer.md), the attributes of tt_attr.
 */
#ifndef UNPERTURB_TTHREADS_H
#define UNPERTURB_TTHREADS_H

#include <otf2/otf2.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/replay.h"

#define TT_MAXLOC 4
#define TT_MAXEV 64

typedef enum tt_region {
    TT_MAIN, TT_WORK,
    /* OpenMP (Score-P's roles) */
    TT_OMP_BAR, TT_OMP_TW, TT_OMP_ITASK, TT_OMP_CRIT, TT_OMP_SBLOCK, TT_OMP_TASK,
    /* POSIX threads (our tracer's roles) */
    TT_P_CREATE, TT_P_JOIN, TT_P_BAR, TT_P_LOCK, TT_P_UNLOCK, TT_P_CONDWAIT, TT_P_SIGNAL,
    TT_NREGIONS
} tt_region;

#define TT_TEAM 0
#define TT_CONTINGENT 1

/* OMPT_PARALLEL_REGION_ID (UINT64), unperturb::object, unperturb::count,
 * unperturb::team_index, unperturb::late_records (UINT32) */
typedef enum tt_attr { TT_ATTR_OMPT, TT_ATTR_OBJECT, TT_ATTR_COUNT, TT_ATTR_TINDEX, TT_ATTR_LATE } tt_attr;

typedef struct tt_writer {
    OTF2_Archive *ar;
    OTF2_EvtWriter *w[TT_MAXLOC];
    uint64_t nev[TT_MAXLOC];
    unsigned n;
} tt_writer;

/* An archive of n threads in dir; 0, or -1 */
int tt_open(tt_writer *o, const char *dir, unsigned n);
/* Writes the definitions (trace length `length`) and closes; 0, or -1 */
int tt_close(tt_writer *o, uint64_t length);
/* The writer of thread l for one record more (any OTF2_EvtWriter_ call) */
OTF2_EvtWriter *tt_rec(tt_writer *o, unsigned l);
void tt_enter(tt_writer *o, unsigned l, uint64_t t, tt_region r);
void tt_leave(tt_writer *o, unsigned l, uint64_t t, tt_region r);
/* The Enter of an OMPT implicit task of parallel region `id` */
void tt_enter_ompt(tt_writer *o, unsigned l, uint64_t t, uint64_t id);
/* The same as our OMPT tool writes it: with the thread's number in the
 * team (0: the master) and its late records (docs/tracer-openmp.md) */
void tt_enter_ompt_as(tt_writer *o, unsigned l, uint64_t t, uint64_t id, uint32_t index,
                      uint32_t late);
/* The Enter of pthread_barrier_wait on barrier `object` of count `count`,
 * as our tracer writes it */
void tt_enter_pbar(tt_writer *o, unsigned l, uint64_t t, uint32_t object, uint32_t count);
/* `k` pairs Enter/Leave(work), 10 ns apart from t: with O = 10 the
 * location's compensated time stays where it was (each gap is O); returns
 * the last Leave's time */
uint64_t tt_short_work(tt_writer *o, unsigned l, uint64_t t, unsigned k);

/* Every record's time of an archive, per location */
typedef struct tt_times {
    uint64_t t[TT_MAXLOC][TT_MAXEV];
    size_t n[TT_MAXLOC];
} tt_times;

/* Compensates the archive in `in` with O = 10 ns per record (lower mode)
 * and reads it back into *r; fills *res.  0, or -1 (said) */
int tt_compensate(const char *in, tt_times *r, up_replay_result *res);
/* Location l of *r has exactly the n times want[] (each mismatch said at
 * the caller's file and line) */
void tt_check_loc(const char *file, int line, const tt_times *r, unsigned l, const uint64_t *want,
                  size_t n);
#define TT_CHECK_LOC(r, l, want) \
    tt_check_loc(__FILE__, __LINE__, (r), (l), (want), sizeof(want) / sizeof(want)[0])

#endif
