/*
 * upt.h - the tracer's internal interface (libunperturb-trace.so).
 *
 * Place in the data flow: measurement.  The PMPI wrappers (generated from the
 * table src/trace/mpi_calls.def into mpi_c_gen.c, C callers, and mpi_f_gen.c,
 * Fortran callers; the rest by hand in mpi_c_hand.c and mpi_f_hand.c; their
 * shared state in wrap.c, helpers in wrap.h), the function hooks (funcs.c:
 * -finstrument-functions and the manual API of <unperturb/region.h>) and the
 * calibration (calib.c) call the record functions below; tracer.c owns the
 * state: the per-rank OTF2 writer, the clock, the side file of definitions,
 * flushing, signals, and the merge into one archive at MPI_Finalize
 * (src/trace/merge.c, shared with `unperturb trace --recover`).
 *
 * The files depend one way: tracer.c on none of the others; funcs.c,
 * wrap.c on tracer.c; pthreads.c on tracer.c and funcs.c; calib.c on
 * tracer.c, funcs.c and pthreads.c; life.c, the start and end of a run inside
 * MPI_Init and MPI_Finalize (or the constructor and destructor without
 * MPI), on tracer.c, calib.c, funcs.c and pthreads.c; the
 * wrappers on all of them.
 *
 * One location per recording thread of an MPI rank (index << 32 | rank, the
 * thread that called MPI_Init being the rank's own; docs/tracer.md,
 * "Threads"); functions, manual regions and POSIX-thread calls (pthreads.c)
 * on every thread.  Without MPI (upt_solo) the run is rank 0 of 1.
 */
#ifndef UNPERTURB_UPT_H
#define UNPERTURB_UPT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <mpi.h>
#include <otf2/otf2.h>

#define UPT_EXPORT __attribute__((visibility("default")))

/* ---- the clock ------------------------------------------------------------
 * Timestamps are the CPU's time-stamp counter (rdtsc, about 15 ns here) when
 * the kernel itself uses it as its clock source (invariant, synchronised
 * across cores), else CLOCK_MONOTONIC through the vDSO (about 33 ns here).
 * UNPERTURB_CLOCK=tsc|monotonic overrides.  The tick rate is measured
 * against CLOCK_MONOTONIC over the whole run and becomes the archive's
 * timer resolution.  upt_ns() is for durations in ns (calibration, the
 * extra cost). */
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define UPT_HAVE_TSC 1
#else
#define UPT_HAVE_TSC 0
#endif

extern int upt_tsc; /* timestamps are TSC ticks */

__attribute__((no_instrument_function)) static inline uint64_t upt_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((no_instrument_function)) static inline uint64_t upt_now(void)
{
#if UPT_HAVE_TSC
    if (__builtin_expect(upt_tsc, 1))
        return __rdtsc();
#endif
    return upt_ns();
}

/* Decide the clock (idempotent; a constructor calls it, and hooks that may
 * run before it do too). */
void upt_clock_init(void);

/* ---- state ------------------------------------------------------------- */

/* Recording is on between the end of our MPI_Init wrapper's set-up and the
 * archive's close in MPI_Finalize (or a fatal signal).  Every record function
 * is a no-op while it is off, so hooks may fire before MPI_Init. */
extern int upt_on;
extern int upt_rank, upt_size;
/* Traced without MPI (docs/tracer.md, "Programs without MPI"): recording
 * from our constructor to our destructor, as rank 0 of 1; MPI_Init and
 * MPI_Finalize, if the program calls them (a singleton), only record. */
extern int upt_solo;

/* ---- regions ------------------------------------------------------------ */

/* The MPI functions we wrap: UPT_MPI_REGIONS(X), X(name, OTF2 region role),
 * generated from the table src/trace/mpi_calls.def.  Their region ids are
 * the same on every rank (the enum), so they need no unification. */
#include "tracer/mpi_regions.h"

enum {
#define X(name, role) UPT_R_##name,
    UPT_MPI_REGIONS(X)
#undef X
    UPT_R_FLUSH,     /* "TRACE BUFFER FLUSH": never entered, OTF2 writes BufferFlush */
    UPT_R_OVERHEAD,  /* "UNPERTURB tracer": the tracer's own work (symbol lookup, ...) */
    UPT_R_FIXED_     /* first id of a region defined at run time */
};

/* A user region (manual API, or a function named by the hooks), defined once
 * per (name, file, line) on this rank; returns its rank-local id, or
 * UINT32_MAX when recording is off or memory ran out. */
uint32_t upt_region_define(const char *name, const char *file, uint32_t line);
/* the same with a role and paradigm of its own (pthreads.c, ompt.c); any
 * thread may define regions */
uint32_t upt_region_define_as(const char *name, const char *file, uint32_t line,
                              OTF2_RegionRole role, OTF2_Paradigm paradigm);

/* ---- records ------------------------------------------------------------- */

void upt_enter(uint32_t region);
void upt_leave(uint32_t region);
void upt_enter_at(uint32_t region, uint64_t t); /* an Enter with a saved time */
/* `comm` is the communicator's local id (upt_comm_id); peers are ranks in it */
/* `wildcard`: the receive named MPI_ANY_SOURCE and/or MPI_ANY_TAG
 * (upt_wildcard); non-zero adds the attribute UPT_ATTR_WILDCARD to its
 * MpiRecv / MpiIrecv record */
void upt_send(uint32_t dest, uint32_t comm, uint32_t tag, uint64_t bytes);
void upt_recv(uint32_t src, uint32_t comm, uint32_t tag, uint64_t bytes, unsigned wildcard);
void upt_isend(uint32_t dest, uint32_t comm, uint32_t tag, uint64_t bytes, uint64_t req);
void upt_isend_complete(uint64_t req);
void upt_irecv_request(uint64_t req);
void upt_irecv(uint32_t src, uint32_t comm, uint32_t tag, uint64_t bytes, uint64_t req,
               unsigned wildcard);
void upt_request_test(uint64_t req);
void upt_request_cancelled(uint64_t req);
void upt_coll_begin(void);
void upt_coll_end(OTF2_CollectiveOp op, uint32_t comm, uint32_t root, uint64_t sent,
                  uint64_t received);
void upt_nbcoll_request(uint64_t req);
void upt_nbcoll_complete(OTF2_CollectiveOp op, uint32_t comm, uint32_t root, uint64_t sent,
                         uint64_t received, uint64_t req);
/* --cpu-time's Metric record of the thread CPU time at t (kind "metric") */
void upt_cpu_metric(uint64_t t);

/* Any other record, from the tracer's other files (pthreads.c, ompt.c), on
 * any thread:
 *     OTF2_EvtWriter *w = upt_rec_open();
 *     if (w)
 *         upt_rec_close(OTF2_EvtWriter_X(w, attrs, upt_now(), ...));
 * upt_rec_open: this thread's writer, its record begun (NULL: this thread
 * does not record now; nothing to close); upt_rec_close ends it (the extra
 * cost, a signal that came meanwhile).  Nothing else may be recorded in
 * between.  upt_rec_attrs: this thread's attribute list, for the record
 * being written only (NULL: none; OTF2 empties it with the record). */
OTF2_EvtWriter *upt_rec_open(void);
void upt_rec_close(OTF2_ErrorCode rc);
OTF2_AttributeList *upt_rec_attrs(void);
/* This thread's last records, when its location closes while the thread
 * still runs (the run ends) or as it ends: fn(w, arg) is called once, on
 * the closing thread, recording off, and writes with w directly (its
 * times no earlier than the thread's last record).  One per thread (the
 * OMPT tool's: the Leave records libomp reports only at the next fork). */
void upt_rec_atclose(void (*fn)(OTF2_EvtWriter *w, void *arg), void *arg);
/* An attribute for the merged archive's definitions: its id (fixed, the
 * same on every rank: UPT_ATTR_*), type, name and description (no tabs or
 * newlines); written to the side file when recording starts. */
void upt_attr_define(uint32_t id, OTF2_Type type, const char *name, const char *desc);

/* the metric class of the thread CPU time (--cpu-time, UNPERTURB_CPU_TIME=1) */
#define UPT_METRIC_CPU 0u

/* The attribute "unperturb::wildcard" (OTF2_TYPE_UINT8) of a receive that
 * named MPI_ANY_SOURCE (bit UPT_WILDCARD_SOURCE) and/or MPI_ANY_TAG (bit
 * UPT_WILDCARD_TAG).  Its id is the same on every rank. */
#define UPT_ATTR_WILDCARD 0u
#define UPT_ATTR_REPLY 1u    /* "unperturb::reply" on MpiSend/MpiIsend (tracer.c, reply_attrs) */
/* 2..15: the pthreads records' (pthreads.c); 16..31: the OMPT tool's (ompt.c) */
#define UPT_ATTR_PTHREADS_ 2u
#define UPT_ATTR_OMPT_ 16u
#define UPT_WILDCARD_SOURCE 1u
#define UPT_WILDCARD_TAG 2u

static inline unsigned upt_wildcard(int src, int tag)
{
    return (src == MPI_ANY_SOURCE ? UPT_WILDCARD_SOURCE : 0u) |
           (tag == MPI_ANY_TAG ? UPT_WILDCARD_TAG : 0u);
}

/* ---- communicators -------------------------------------------------------- */

#define UPT_COMM_WORLD 0u
#define UPT_COMM_SELF 1u
#define UPT_COMM_THREADS 2u /* the process's thread contingent (pthreads.c; docs/tracer.md) */
/* defines UPT_COMM_THREADS for the merge, once, before its first use */
void upt_threads_comm(void);
/* (pthreads.c) at the run's end: what was not recorded, one line on stderr */
void upt_pthreads_report(void);
/* (pthreads.c, for the calibration: calib.c) one record of kind "thread"
 * (a ThreadBegin) and of kind "lock" (a ThreadAcquireLock), written as the
 * wrappers write them */
void upt_thread_record_probe(uint64_t seq);
void upt_lock_record_probe(uint32_t order);
/* n lock/unlock pairs of a mutex of its own through the wrappers' recording
 * path (six records a pair) and n straight: ns per pair each (returned,
 * *straight) */
double upt_pthread_probe(unsigned n, double *straight);
/* The local id of a communicator (UPT_COMM_WORLD, UPT_COMM_SELF, or one that
 * the wrappers registered when it was created); UINT32_MAX if unknown. */
uint32_t upt_comm_id(MPI_Comm c);
/* Register a new communicator (collective creation returned it). */
void upt_comm_created(MPI_Comm c);
void upt_comm_freed(MPI_Comm c);

/* ---- one-sided communication (records: tracer.c; windows and epochs: wrap.c) --
 * As Score-P writes them with OTF2 (docs/tracer.md).  `win` is the window's
 * local id (upt_win_define), `group` a group's local id (upt_group_define);
 * `remote` is a rank in the window's communicator, OTF2_UNDEFINED_UINT32 for
 * all of them. */
void upt_rma_win_create(uint32_t win);
void upt_rma_win_destroy(uint32_t win);
void upt_rma_coll_begin(void); /* (OTF2 keeps no sync level here) */
void upt_rma_coll_end(OTF2_CollectiveOp op, OTF2_RmaSyncLevel level, uint32_t win);
void upt_rma_group_sync(OTF2_RmaSyncLevel level, uint32_t win, uint32_t group);
void upt_rma_request_lock(uint32_t win, uint32_t remote, OTF2_LockType type);
void upt_rma_release_lock(uint32_t win, uint32_t remote);
void upt_rma_put(uint32_t win, uint32_t remote, uint64_t bytes, uint64_t id);
void upt_rma_get(uint32_t win, uint32_t remote, uint64_t bytes, uint64_t id);
void upt_rma_atomic(uint32_t win, uint32_t remote, OTF2_RmaAtomicType type, uint64_t sent,
                    uint64_t received, uint64_t id);
void upt_rma_op_complete_local(uint32_t win, uint64_t id);  /* RmaOpCompleteNonBlocking */
void upt_rma_op_complete_remote(uint32_t win, uint64_t id); /* RmaOpCompleteRemote */

/* True on the thread whose records are written, while recording: the
 * window bookkeeping is touched on that thread only. */
bool upt_recording(void);
/* A new window on the communicator of local id `comm` (UINT32_MAX when the
 * tracer does not know it), made by the call of region `region`: defines
 * it in the side file and returns its local id, or UINT32_MAX.  Windows
 * are identified across ranks by their communicator and how many windows
 * this rank created on it before (creation is collective). */
uint32_t upt_win_define(uint32_t comm, uint32_t region);
/* The local id of the group of processes `g` (world ranks in its order),
 * defined in the side file on first use; UINT32_MAX if it cannot be. */
uint32_t upt_group_define(MPI_Group g);

/* The wrappers' side (wrap.c, shared by both languages).  Each writes the
 * records that belong between the Enter and the Leave of its call. */
enum { UPT_RMA_PUT, UPT_RMA_GET, UPT_RMA_ATOMIC };
/* window creation: before the PMPI call, then after it (w: the new window,
 * MPI_WIN_NULL if it failed) */
void upt_win_create_begin(void);
void upt_win_create_end(MPI_Win w, MPI_Comm comm, uint32_t region, bool allocated);
/* MPI_Win_free: before the PMPI call (returns what _end needs), after it.
 * These and the calls below record nothing for a window the tracer does
 * not know (made by another thread, or not defined). */
typedef struct upt_win_freeing { uint32_t id; OTF2_CollectiveOp op; } upt_win_freeing;
upt_win_freeing upt_win_free_begin(MPI_Win w);
void upt_win_free_end(upt_win_freeing f);
/* MPI_Win_fence: before the PMPI call, after it */
void upt_win_fence_begin(MPI_Win w);
void upt_win_fence_end(MPI_Win w);
/* MPI_Win_start (access) / MPI_Win_post (exposure), after the PMPI call */
void upt_win_epoch_start(MPI_Win w, MPI_Group g, bool exposure);
/* MPI_Win_complete (access) / MPI_Win_wait, MPI_Win_test (exposure, test),
 * after the PMPI call; done: the epoch ended (false: a test that found it
 * open) */
void upt_win_epoch_end(MPI_Win w, bool exposure, bool test, bool done);
/* `rank` of the *_all calls: every target (MPI_PROC_NULL: no target) */
#define UPT_RMA_ALL INT32_MIN
/* MPI_Win_lock / MPI_Win_lock_all (rank UPT_RMA_ALL), before the PMPI call */
void upt_win_lock(MPI_Win w, int rank, bool exclusive);
/* MPI_Win_unlock / MPI_Win_unlock_all, after the PMPI call */
void upt_win_unlock(MPI_Win w, int rank);
/* MPI_Win_flush(_all), or with `local` MPI_Win_flush_local(_all), after
 * the PMPI call */
void upt_win_flush(MPI_Win w, int rank, bool local);
/* A transfer to `target` (a rank of the window's communicator; nothing for
 * MPI_PROC_NULL), before the PMPI call: RmaPut, RmaGet or RmaAtomic (of
 * `atype`), bytes put and got. */
void upt_rma_op(MPI_Win w, int target, int kind, OTF2_RmaAtomicType atype, uint64_t put,
                uint64_t got);

/* ---- nonblocking requests (wrap.c) ---------------------------------------- */

/* A nonblocking send is about to start: records MpiIsend before the MPI
 * call, as a blocking send's record (a receiver on the same node may
 * complete the receive before the call returns: a record written after it
 * broke the clock condition in HPC Challenge), and returns its request id
 * (0 when not recording).  upt_req_isend remembers the request once the
 * call gave it. */
uint64_t upt_isend_begin(uint32_t dest, uint32_t comm, uint32_t tag, uint64_t bytes);
void upt_req_isend(MPI_Request r, uint64_t id);
/* A nonblocking receive was started: records MpiIrecvRequest and remembers
 * the request. */
void upt_req_irecv(MPI_Request r, uint32_t comm, unsigned wildcard);
/* A nonblocking collective was started: records NonBlockingCollectiveRequest
 * and remembers what its completion records (sizes as the blocking twin's). */
void upt_req_icoll(MPI_Request r, OTF2_CollectiveOp op, uint32_t comm, uint32_t root,
                   uint64_t sent, uint64_t received);
/* A persistent request was created (records nothing); MPI_Start of it
 * records as a nonblocking send or receive would. */
void upt_req_persistent(MPI_Request r, bool send, uint32_t peer, uint32_t comm, uint32_t tag,
                        uint64_t bytes);
void upt_req_start(MPI_Request r);
/* `r` (its handle before the completing call) completed with status `st`
 * (never MPI_STATUS_IGNORE: pass a status of your own): records
 * MpiIsendComplete, MpiIrecv, NonBlockingCollectiveComplete or
 * MpiRequestCancelled, and forgets a non-persistent request. Unknown
 * requests (PROC_NULL, ...) are ignored. */
void upt_req_completed(MPI_Request r, const MPI_Status *st);
/* A test of `r` found it incomplete: records MpiRequestTest. */
void upt_req_tested(MPI_Request r);
/* MPI_Request_free: forget it (a started request's completion is not seen). */
void upt_req_freed(MPI_Request r);

/* ---- the tracer's own work ----------------------------------------------- */

/* Enclose the tracer's own expensive work (resolving a symbol, ...) in the
 * region "UNPERTURB tracer", so compensation removes it whole. */
void upt_overhead_begin(void);
void upt_overhead_end(void);

/* A fresh OTF2 request id for this location. */
uint64_t upt_next_request(void);
/* One line on stderr, "unperturb-trace: rank N: ..." */
void upt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- for the calibration of the record path (tracer.c; calib.c uses them) --
 * The calibration times records as the run writes them: through the record
 * functions above, into a scratch archive whose buffer is encoded exactly as
 * the run's and whose flushes write nothing.  upt_scratch_begin sends every
 * record there, recording on, from this thread, until upt_scratch_end puts
 * the run's writer and state back (false: no scratch archive, nothing
 * changed). */
bool upt_scratch_begin(void);
void upt_scratch_end(void);
/* UNPERTURB_EXTRA_NS, the extra cost spent after every record, ns; swap:
 * set another (0: none) and return it, its spin's length in clock ticks
 * unchanged (the calibration times records without it, then the spin) */
uint64_t upt_extra_ns(void);
uint64_t upt_extra_swap(uint64_t ns);
/* the extra cost per record outside a traced run (unperturb-calibrate) */
void upt_calib_extra_ns(uint64_t ns);
/* The spins of the extra cost are counted from upt_spins_restart on;
 * upt_spins_calibrated takes their mean as the calibration's spin (what
 * [overhead_by_location] compares the run's with) and counts the run's. */
void upt_spins_restart(void);
void upt_spins_calibrated(void);

/* ---- life cycle: MPI_Init and MPI_Finalize (life.c, over tracer.c) ----------- */

/* After PMPI_Init(_thread) returned: the run's archive opened, the
 * calibration measured, recording on, then Enter(region) at t_enter (taken
 * before PMPI_Init) and, after a barrier on MPI_COMM_WORLD, its Leave,
 * which opens the analysis window.  Collective over MPI_COMM_WORLD on every
 * rank, traced or not: a rank that cannot create its trace makes every rank
 * give up (docs/tracer.md). */
void upt_init_from(uint32_t region, uint64_t t_enter);
void upt_finalize(void); /* before PMPI_Finalize: close, merge on rank 0 */

/* Its steps in tracer.c.  upt_open: the run's folder, this rank's archive
 * and definitions file, the fixed definitions (the clock starts at
 * t_start), the clock offsets on more than one node; false on every rank
 * when the run is not traced.  upt_start: rank 0 keeps the calibration's
 * text for the merge (NULL: none), then the clock, the signal handlers,
 * recording on.  upt_window_open: Enter(region) at t_enter, the barrier,
 * its Leave. */
bool upt_open(uint64_t t_start);
bool upt_open_solo(uint64_t t_start); /* the same without MPI (upt_solo) */
void upt_start(const char *calibration);
void upt_window_open(uint32_t region, uint64_t t_enter);
/* upt_window_close: Enter and Leave of MPI_Finalize (the clock offsets
 * again between them); false when the run is not traced or was closed.
 * upt_close: this rank's archive closed, every record so far on disk (also
 * MPI_Abort and fatal signals).  upt_merge: after a barrier, rank 0 merges
 * the run into one archive. */
bool upt_window_close(void);
void upt_close(void);
void upt_merge(void);

#endif
