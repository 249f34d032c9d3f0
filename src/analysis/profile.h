/*
 * profile.h - what happened in one run: time per call path and location,
 * MPI time, communication per call path and peer, and Scalasca's wait states.
 *
 * Place in the data flow: OTF2 archive --up_trace_open--> the replay engine
 * with an identity model (every record keeps its measured time; the engine
 * does the message matching, collectives, wildcards, RMA) --> this analysis,
 * which sees every record with its call path and every matched transfer with
 * both ends.  No output archive is written.  Memory grows with locations x
 * call paths x peers, never with the trace's length.
 *
 * Wait states (Scalasca's definitions, docs/report.md):
 *   Late Sender     a blocking receive (MPI_Recv, or the MPI_Wait* that
 *                   completes an MPI_Irecv) entered before its send:
 *                   min(enter.send, recv) - enter.recv, at the receiver
 *   Late Receiver   a blocking send still running when its receive was
 *                   posted later: post.recv - enter.send, at the sender
 *   Wait at N x N   n-to-n collectives except barriers (allreduce,
 *                   allgather, alltoall, ...): latest begin - own begin
 *   Wait at Barrier MPI_Barrier: the same
 *   Late Broadcast  1-to-n (bcast, scatter) at a non-root: begin.root - own begin
 *   Early Reduce    n-to-1 (reduce, gather) at the root: earliest other
 *                   begin - begin.root
 * Every wait is clipped to the call it lies in (never longer than the call).
 */
#ifndef UNPERTURB_PROFILE_H
#define UNPERTURB_PROFILE_H

#include "replay/replay.h"

typedef enum up_pattern {
    UP_WS_LATE_SENDER,
    UP_WS_LATE_RECEIVER,
    UP_WS_WAIT_NXN,
    UP_WS_WAIT_BARRIER,
    UP_WS_LATE_BROADCAST,
    UP_WS_EARLY_REDUCE,
    UP_WS_COUNT
} up_pattern;

const char *up_pattern_name(unsigned p);  /* "late_sender", ... (JSON keys) */
const char *up_pattern_title(unsigned p); /* "Late Sender", ... */

#define UP_CP_ROOT UINT32_MAX /* parent of a top-level call path */

/* One call path: a region reached through its parents (the tree's nodes;
 * the call path of an MPI call is its call site).  Sums over locations. */
typedef struct up_cpath {
    uint32_t parent;          /* index, or UP_CP_ROOT */
    OTF2_RegionRef region;
    const char *name;         /* the region's name, points into the definitions */
    unsigned depth;           /* 0 for top level */
    bool mpi;                 /* an MPI call (paradigm MPI) */
    uint64_t visits;
    uint64_t incl, excl;      /* ticks, summed over locations */
    uint64_t wait[UP_WS_COUNT];/* ticks of each pattern in calls of this path */
    uint32_t nlocs;           /* locations that visited it */
} up_cpath;

/* One (call path, location): the per-location view of a call path. */
typedef struct up_cpath_loc {
    uint32_t cpath, loc;
    uint64_t visits;
    uint64_t incl, excl;
    uint64_t wait[UP_WS_COUNT];
} up_cpath_loc;

/* Point-to-point traffic of one communication statement (call path) on one
 * location with one peer (scalable-monitoring-virtual-clock.txt 6.1-6.4):
 * the sender's side counts sends and bytes; the receiver's side counts
 * receives, bytes, transmission time (send record to receive record) and
 * synchronisation delay (its Late Sender wait). */
typedef struct up_comm {
    uint32_t cpath, loc;
    long peer;                /* the peer's rank (location index if none) */
    uint32_t peer_loc;
    uint64_t sends, bytes_sent;
    uint64_t recvs, bytes_recvd;
    uint64_t transfer;        /* ticks, summed over receives */
    uint64_t delay;           /* ticks, summed over receives */
} up_comm;

typedef struct up_profile_loc {
    OTF2_LocationRef id;
    long rank;                /* UP_NO_RANK if none */
    up_loc_kind kind;         /* what it is (up_loc_def.kind) */
    uint32_t process;         /* its process, UP_NO_PROCESS if none */
    const char *name;
    uint64_t start, end;      /* its part of the run-time window, ticks */
    uint64_t time;            /* end - start */
    uint64_t mpi;             /* time inside MPI calls (outermost), ticks */
    uint64_t wait[UP_WS_COUNT];
    uint64_t records;
} up_profile_loc;

typedef struct up_profile {
    uint64_t resolution;      /* ticks per second */
    bool window_marked;       /* MPI_Init / MPI_Finalize found */
    uint64_t start, end;      /* run-time window, ticks (as the replay's) */
    uint64_t events;
    size_t nlocs;
    up_profile_loc *locs;
    size_t ncpaths;
    up_cpath *cpaths;         /* parents before children */
    size_t ncl;
    up_cpath_loc *cl;         /* sorted by (cpath, loc) */
    size_t ncomm;
    up_comm *comm;            /* sorted by (cpath, loc, peer) */
    uint64_t repairs[UP_REPAIR_COUNT]; /* what the engine had to repair */
} up_profile;

/* Reads `t` once (open it again for another pass) and fills *out (free with
 * up_profile_free).  Only time inside the run-time window counts (docs/models.md):
 * a region visit is clipped to it.  obs (may be NULL) is told how the
 * replay goes. */
up_status up_profile_run(up_trace *t, const up_replay_observer *obs, up_profile *out,
                         up_err *err);
void up_profile_free(up_profile *p);

double up_profile_s(const up_profile *p, uint64_t ticks);
/* Sum over locations of one pattern, ticks. */
uint64_t up_profile_wait_total(const up_profile *p, unsigned pattern);
/* The call path of `b` that has the same region path as a's cpath `i`, or
 * UP_CP_ROOT if b has none (matches two runs of one program). */
uint32_t up_profile_match(const up_profile *a, uint32_t i, const up_profile *b);

#endif /* UNPERTURB_PROFILE_H */
