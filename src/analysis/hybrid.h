/*
 * hybrid.h - what the threads and devices of a hybrid run (MPI + OpenMP +
 * accelerator streams) did: the figures Scalasca users expect
 * (docs/report.md, "Hybrid"), per location and summed.
 *
 * Place in the data flow: OTF2 archive --reader--> every location's stream
 * merged in measured-time order (a heap, as the estimate and the timelines)
 * --> here; the windows come from the run's profile (profile.h): a thread
 * or stream counts in the window of its process's master thread.  No
 * replay, no model: the measured run and its compensation or prediction
 * (same records, new times) are analysed alike.
 *
 * Memory: per location its open regions and open teams (the program's
 * nesting), per open team instance and per open barrier instance an entry
 * per member (the team's size), per lock one entry; never the trace's
 * length.
 *
 * Metrics, each in ticks per location (definitions in docs/report.md):
 *   OMP_BARRIER  OpenMP barriers (regions of role BARRIER or IMPLICIT_BARRIER
 *                and paradigm OPENMP, the outermost open one): per barrier
 *                instance (the j-th barrier of every member within the k-th
 *                instance of a team), each member's time from its Enter to
 *                the last member's Enter
 *   LOCK         lock contention: the time from the request (the Enter of
 *                the innermost open region: the critical construct, the
 *                omp_set_lock call) to ThreadAcquireLock, of the
 *                acquisitions that found the lock held by another location
 *                (its last release by another location came after the
 *                request); n: those acquisitions
 *   IDLE         each non-master CPU thread of a process: the window's time
 *                outside its ThreadTeamBegin .. ThreadTeamEnd spans (a
 *                thread with no team records, as in OMPT traces: outside
 *                its regions)
 *   FORK         at the master: ThreadFork -> the team instance's last
 *                ThreadTeamBegin; n: forks
 *   JOIN         at the master: the instance's last ThreadTeamEnd ->
 *                ThreadJoin; n: joins
 *   HOST_WAIT    on CPU locations: calls of paradigm CUDA that wait for the
 *                device (a name containing "Synchronize", or "Memcpy" but
 *                not "Async"), the outermost open one; n: calls
 *   DEVICE_IDLE  per accelerator location: the window's time covered by no
 *                kernel (an Enter .. Leave at depth 0) and no copy (RmaGet
 *                or RmaPut .. RmaOpCompleteBlocking)
 * All are clipped to the location's window.
 */
#ifndef UNPERTURB_HYBRID_H
#define UNPERTURB_HYBRID_H

#include "analysis/profile.h"

typedef enum up_hy_metric {
    UP_HY_OMP_BARRIER,
    UP_HY_LOCK,
    UP_HY_IDLE,
    UP_HY_FORK,
    UP_HY_JOIN,
    UP_HY_HOST_WAIT,
    UP_HY_DEVICE_IDLE,
    UP_HY_COUNT
} up_hy_metric;

const char *up_hy_name(unsigned m);  /* "omp_barrier", ... (JSON keys) */
const char *up_hy_title(unsigned m); /* "OpenMP barrier wait", ... */

/* The role a location plays in its process. */
typedef enum up_hy_role {
    UP_HY_MASTER,             /* the process's first CPU location */
    UP_HY_THREAD,             /* another CPU location of the process */
    UP_HY_DEVICE,             /* an accelerator location */
    UP_HY_OTHER               /* metric locations, unknown kinds */
} up_hy_role;

typedef struct up_hybrid_loc {
    up_hy_role role;
    uint32_t master;          /* location index whose window counts (itself if none) */
    uint64_t win_start, win_end; /* that window, ticks */
    uint64_t t[UP_HY_COUNT];  /* ticks */
    uint64_t n[UP_HY_COUNT];  /* instances (see above; 0 for IDLE and DEVICE_IDLE) */
} up_hybrid_loc;

typedef struct up_hybrid {
    bool present;             /* the trace has threads or devices */
    uint64_t resolution;      /* ticks per second */
    size_t nlocs;
    up_hybrid_loc *locs;      /* by location index */
    uint64_t t[UP_HY_COUNT];  /* summed over locations */
    uint64_t n[UP_HY_COUNT];
    uint64_t acquisitions;    /* all ThreadAcquireLock records */
    uint64_t barriers;        /* barrier instances completed */
    uint32_t nthreads, ndevices; /* non-master CPU threads, accelerator locations */
} up_hybrid;

/* True when some process has more than one CPU location or any location
 * is an accelerator: a trace of threads or devices. */
bool up_hybrid_present(const up_defs *d);

/* Reads `t` once (just opened: no record read yet; open it again for
 * another pass) with the windows of its profile `p` (up_profile_run on the
 * same archive) and fills *out (free with up_hybrid_free). */
up_status up_hybrid_run(up_trace *t, const up_profile *p, up_hybrid *out, up_err *err);
void up_hybrid_free(up_hybrid *h);

double up_hybrid_s(const up_hybrid *h, uint64_t ticks);

#endif /* UNPERTURB_HYBRID_H */
