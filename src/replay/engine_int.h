/*
 * engine_int.h - the replay engine's private header: its state (the engine,
 * each location's rloc) and the functions its files share.  Only
 * src/replay/engine*.c include it; everything else sees replay.h.
 *
 * The engine's files, one concern each (docs/design.md, "The engine's files"):
 *   engine.c          scheduling and the loop, the lower bounds of the
 *                     locations' clocks (lagging, claims), the table of record
 *                     kinds that drives both paths, a record's end
 *   engine_p2p.c      point-to-point: messages, synchronous sends, progress
 *   engine_wild.c     wildcard receives and task farms
 *   engine_coll.c     collectives, blocking and nonblocking
 *   engine_rma.c      RMA: general active target synchronisation and locks
 *   engine_threads.c  threads around fork and join
 *   engine_omp.c      OpenMP: barriers of a team, locks and critical
 *                     sections, tasks and taskwait (and the barrier and
 *                     lock rules POSIX threads share)
 *   engine_pthr.c     POSIX threads: a thread begins after its
 *                     pthread_create, pthread_join returns after its end,
 *                     which instance of a pthread barrier a wait is
 *   engine_dev.c      devices: accelerator streams follow the host that
 *                     drives them (launches, copies, synchronisations)
 *   engine_poll.c     polling: spins collapsed, completions held
 *   engine_seam.c     what crosses between the parts of a partitioned replay
 * (vocab.c, beside them, holds the replay's names and parsers: no state)
 */
#ifndef UNPERTURB_ENGINE_INT_H
#define UNPERTURB_ENGINE_INT_H

#include "replay/replay.h"
#include "util/heap.h"

#define SLICE_MIN 512     /* records a location runs before it may yield */
#define SWEEP_MIN 4096    /* message queues kept before empty ones are swept */
/* Polling: the longest pause between two calls of one run: more is program
 * work (a preemption inside a spin is shorter than this only rarely; then
 * the run ends there, and its polls keep their time) */
#define SPIN_PAUSE_NS 1000.0

enum { S_RUN, S_WAIT, S_DONE };
/* W_PROG, W_GLOBAL: waits of a partitioned replay (engine_seam.c) */
enum { W_NONE, W_MSG, W_COLL, W_SYNC, W_TEAM, W_RMA, W_PROG, W_GLOBAL, W_CLAIM, W_BODY, W_DEV,
       W_OMP };

/* rloc.dev: why every record of a location takes step() (engine_dev.c) */
enum { DEVL_STREAM = 1,  /* an accelerator stream */
       DEVL_TWAIT = 2 }; /* a host in an OpenMP target region, waiting for its device */

static inline uint64_t sub0(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

/* One parallel region of a thread team (the k-th ThreadTeamBegin of its
 * members on the team's communicator); member 0 is the master. */
typedef struct team {
    OTF2_CommRef comm;
    uint64_t key, seq;    /* its key in E->teams: the comm, with the location
                           * for a team of MPI_COMM_SELF (team_key) */
    uint32_t n, begun, ended;
    bool root_begun;
    uint64_t root_m, root_a; /* the master's ThreadFork (else its ThreadTeamBegin) */
    uint64_t max_end_a;   /* the latest ThreadTeamEnd, approximated */
    uint64_t max_end_m;   /* ... measured, after its record's overhead */
    /* OpenMP (engine_omp.c): the team's barrier instances, by their number
     * j on each member within this team instance: bars[0] is number bar0
     * (a pthread barrier drops its finished instances from the front) */
    struct obar *bars;
    uint32_t nbars, bar0;
    bool ompt;            /* a team of OMPT_PARALLEL_REGION_ID (no
                           * communicator: its members are those that
                           * joined, begun) */
    bool pbar;            /* a pthread barrier (engine_pthr.c): no members,
                           * each instance waits for its count (obar.need) */
} team;

/* The keys of the teams no communicator names, in E->teams: an OMPT team
 * (TEAM_OMPT | process, parallel region id), a pthread barrier (TEAM_PBAR |
 * process, object).  A fork/join team's key is its communicator (32 bits)
 * or a location and a communicator, below bit 62. */
#define TEAM_OMPT ((uint64_t)1 << 63)
#define TEAM_PBAR ((uint64_t)1 << 62)

/* One barrier instance of a team (engine_omp.c; docs/models.md, "OpenMP") */
typedef struct obar {
    uint32_t entered;         /* members that entered, here or in other parts */
    uint32_t here;            /* ... held here, not left yet */
    uint32_t need;            /* a pthread barrier's count (0: the team's members) */
    uint64_t last_m, last_a;  /* the latest Enter: measured, approximated */
    uint64_t last_o;          /* ... its record's overhead (up_eng_rec_ovh) */
    uint64_t first_m;         /* the earliest measured exit of the members
                               * that entered ... */
    uint32_t first_loc;       /* ... its location (UINT32_MAX: none known) */
    bool first_done;          /* its Leave was timed, at first_a */
    uint64_t first_a;
    bool unordered;           /* counted: a measured exit before last_m */
} obar;

#define OMP_NEST 8            /* team nesting followed per thread */
/* Devices (engine_dev.c; docs/models.md, "Devices"): work a host issued
 * to a stream (a kernel launch, a copy), numbered per stream from 0 */
enum { DK_KERNEL = 1, DK_COPY = 2, DK_HTOD = 3, DK_DTOH = 4, /* DK_COPY: either way */
       DK_TARGET = 5 /* an OpenMP target region: a copy to every stream of the
                      * process, taken by the one that runs its region */ };
typedef struct dev_issue {
    uint64_t seq, m, a;   /* its number; the issuing call's Enter, measured
                           * and approximated */
    uint64_t o;           /* the Enter's overhead: the call reaches the
                           * device at m + o in the measured run */
    uint8_t kind;         /* DK_* */
    uint32_t region;      /* DK_TARGET: the region the device runs */
} dev_issue;

/* The end of an activity paired with issue `seq` (measured, approximated) */
typedef struct dev_end {
    uint64_t seq, m, a;
    bool valid;
} dev_end;

#define DEV_ENDS 64       /* ends a host can still ask for, per stream */
#define DEV_WAIT_MAX 8    /* streams one synchronisation waits for */
#define DEV_TARGET_MAX 64 /* target copies a stream keeps for regions it
                           * does not run (the oldest go first) */

/* One accelerator stream.  The stream's side lives where the stream is
 * replayed, the host's side where its host is (in a partitioned replay
 * each part keeps both, and uses its own side; engine_seam.c) */
typedef struct dstream {
    uint32_t loc;         /* the stream's location */
    uint32_t host;        /* its host: its process's first CPU thread
                           * (UINT32_MAX: none) */
    bool copies;          /* copy calls issue to it: the only stream of its
                           * process (Score-P names no stream on a copy) */
    /* the stream's side */
    dev_issue *q;         /* issues not yet paired, oldest first (a ring) */
    size_t qpos, qn, qcap;
    int depth;            /* Enter nesting on the stream */
    bool act;             /* an activity is open */
    uint8_t act_kind;
    bool act_paired;
    uint64_t act_seq, act_m, act_a; /* its issue, its start */
    int64_t off;          /* approximated minus measured start of its last
                           * paired activity */
    uint64_t prev_end_m, prev_end_a; /* the end of its previous activity */
    /* the host's side */
    uint64_t issued;      /* issues made */
    uint64_t done;        /* issues whose activity ended or that were
                           * dropped: those numbered below */
    dev_end ends[DEV_ENDS]; /* recent ends, by seq % DEV_ENDS */
} dstream;

/* STEP_YIELD: the record waits for locations behind it in measured time to
 * catch up (a wildcard receive chooses among the messages sent so far) */
/* STEP_DEFER: the same, for the locations that may still send an earlier
 * message in approximated time (up_eng_lagging): it goes back into the heap
 * behind them (L->defer_key) */
/* STEP_PARK: with the model's claims, it waits out of the schedule (E->cw)
 * until no running location is behind it in approximated time (cw_wake) */
enum { STEP_OK, STEP_BLOCKED, STEP_END, STEP_ERROR, STEP_DECLINED, STEP_YIELD, STEP_DEFER,
       STEP_PARK };

/* A receive posted (MpiIrecvRequest) before the send it will match. */
typedef struct post {
    uint64_t m, a;
    uint32_t loc;    /* the location that posted it (MPI from any thread) */
    struct post *next;
} post;

typedef struct msgq {
    up_msg *head, *tail;
    post *posts, *posts_tail; /* posted receives not yet paired with a send */
    uint32_t skip;   /* receives released without this key's next sends */
    bool waiting;    /* the receiver waits on this key */
    /* re-matching (up_wildcard): this key's messages taken by receives
     * recorded on other keys, less the receives recorded on this key that
     * took other keys' messages */
    int64_t lent;
    uint32_t from;   /* the sender in its key: its process's member location */
} msgq;

/* Re-matching: the messages in flight to one receiver on one communicator,
 * in the order the replay sent them (per sender, its send order). */
typedef struct mgroup {
    up_msg *head, *tail;
    bool waiting;    /* its receiver waits for any message of the group */
} mgroup;

typedef struct rloc {
    up_stream *s;
    up_loc_state ls;
    int state;
    bool force;      /* release the waiting record without its dependency */
    int wait;
    uint64_t wk0, wk1;
    up_coll *cur;    /* open collective (between its begin and its end) */
    bool cur_local;  /* ... or one timed as a local record (counted at its begin) */
    up_coll *wcoll;  /* the collective it waits for (W_COLL), as member wmember */
    uint32_t wmember;
    up_msg **pend;   /* its messages still waiting for the Leave ending their send call */
    size_t npend, pendcap;
    /* the queues its last send and receive used (loops reuse peer and tag),
     * valid while qgen equals the engine's */
    uint64_t qgen, qs0, qs1, qr0, qr1;
    msgq *qs, *qr;
    uint32_t cur_member;
    OTF2_CommRef mcomm; /* the last communicator it was found a member of */
    bool mcomm_ok;
    uint32_t mcomm_me;  /* ... and the member it counts as there: itself, or
                         * its process's (MPI from any thread, up_eng_rank_of) */
    /* MPI from any thread (docs/models.md): the next CPU thread of its
     * process, in a ring (itself: it is its process's only one) */
    uint32_t pnext;
    bool mate_wait;     /* it went behind a thread of its process
                         * (up_eng_mates_first): its heap key is defer_key */
    /* its synchronous sends whose call has not completed yet */
    up_sync **syncs;
    size_t nsync, synccap;
    up_sync *wsync;  /* the one it waits for (W_SYNC) */
    uint8_t enter_rflags; /* region flags of its most recent Enter */
    OTF2_RegionRef enter_region; /* ... and its region */
    team *wteam;     /* the team it waits for (W_TEAM) */
    team *join_team; /* the team it ended as master: its ThreadJoin waits for it */
    bool forked;     /* a ThreadFork since its last ThreadTeamBegin as master */
    uint64_t fork_m, fork_a;
    uint64_t first_m, first_a;  /* its first record (the last is ls.prev_*) */
    uint64_t init_m, init_a, fin_m, fin_a;
    bool has_init, has_fin;
    /* polling (docs/models.md, "Polling") */
    bool in_poll;        /* inside a poll call (its Enter seen, no Leave since) */
    bool polling;        /* in_poll, spin_on or held completions: every record
                          * takes the slow path (set by step(), the only path
                          * that changes them) */
    bool spin_on;        /* a spin runs past the lookahead: its next poll call continues it */
    bool spin_last;      /* the spin's last call is open: its first completion ends the spin */
    uint32_t spin_left;  /* records of the spin still to collapse (they take no time) */
    uint64_t plain_until;/* a run of polls found to be no spin ends at this measured
                          * time: its calls are not read ahead again (a run is
                          * scanned once, not once per call) */
    uint64_t spin_poll_m;/* shortest measured poll call of the spin */
    bool hold_now;       /* the record just timed completes later: hold it */
    uint64_t hold_t;     /* ... its message is there at this approximated time */
    struct held *held;   /* completions moved to a later poll, by due time */
    size_t nheld, heldcap;
    /* task farms (docs/models.md, "Task farms") */
    uint64_t defer_key;  /* STEP_DEFER: its key in the heap */
    const struct up_coll *park_coll; /* STEP_PARK at a collective's claim: its
                          * members are not waited for */
    bool deferring;      /* ... it waits for lagging members (up_eng_lagging does
                          * not wait for it: two such would wait forever) */
    bool claiming;       /* ... it waits to take a shared resource (the
                          * model's claim): up_eng_claim_lagging */
    uint64_t defer_at;   /* ... at this approximated time (the message's send
                          * time, or the claim's): none of its records comes earlier */
    uint32_t unanswered; /* its MPI_ANY_SOURCE receives since its last reply */
    bool reply_open;     /* its last receive named MPI_ANY_SOURCE and nothing
                          * since could have chosen another destination */
    uint32_t reply_src, reply_to; /* ... its measured and its re-matched sender */
    OTF2_CommRef reply_comm;
    int body;            /* BODY_*: the work after a moved task's receive */
    int64_t body_d;      /* ... program time still to add (< 0: to take away) */
    uint64_t body_own;   /* ... (pending) the receive's own work */
    uint64_t body_povh;  /* ... the overhead of the record before */
    /* progress (docs/models.md, "Progress"): its MPI calls that make the
     * library progress, oldest first, in a ring (pr_push, pr_full) */
    struct pres *pr;
    uint32_t prcap, prn, prpos;
    bool pr_forgot;      /* calls were dropped that a lookup might need */
    bool pr_send;        /* in a call that only progresses once its MpiSend
                          * (a blocking send) comes */
    /* its own numbering and requests (no other location reads them) */
    up_map collseq;      /* key (comm or window) -> its collectives on it so far */
    up_map nbc;          /* request id -> its nonblocking collective */
    up_map nbpend;       /* request id -> coll_arrival of a request whose
                          * completion was out of reach */
    up_map teamseq;      /* (team comm, 0) -> its ThreadTeamBegins so far;
                          * (object, 1) -> its waits at that pthread barrier */
    /* a location another part of a partitioned replay holds (engine_seam.c):
     * never run here; what finish() needs of it, copied at the merge */
    bool away, away_ended;
    bool granted;        /* W_GLOBAL: its decision may be taken now (engine_seam.c) */
    bool claim_granted;  /* W_CLAIM: its claim (at claim_until) may be served now */
    uint64_t claim_until;
    uint64_t away_records, away_fix[3];
    uint64_t sync_seq;   /* its synchronous sends so far (up_sync.id) */
    /* devices (engine_dev.c) */
    uint8_t dev;         /* DEVL_*: every record takes step() */
    uint8_t dev_depth;   /* (a host) nesting of its device calls */
    bool dw_on;          /* its outermost device call waits for the device */
    uint32_t dw_n;       /* ... for dw_n streams: (dw_s[i], up to issue dw_q[i]) */
    uint32_t dw_s[DEV_WAIT_MAX];
    uint64_t dw_q[DEV_WAIT_MAX];
    uint64_t dw_enter_m, dw_enter_a; /* ... the call's Enter */
    bool tw_apply;       /* DEVL_TWAIT: this record ends the wait, for the
                          * activity that ended at (tw_end_m, tw_end_a) */
    uint64_t tw_end_m, tw_end_a, tw_prev_m, tw_prev_a;
    /* OpenMP (engine_omp.c): the teams it is in, innermost last */
    team *omp_tm[OMP_NEST];
    uint32_t omp_nbar[OMP_NEST]; /* ... barriers it entered in each */
    uint32_t omp_tdepth[OMP_NEST]; /* ... (OMPT) the parallel depth that began it */
    uint32_t omp_nt;       /* teams on the stack (more than OMP_NEST: counted) */
    uint32_t omp_pdepth;   /* nesting of OMP_PARALLEL regions */
    uint32_t omp_bdepth;   /* nesting of barrier regions */
    uint32_t omp_wdepth;   /* nesting of taskwait regions */
    team *omp_btm;         /* the barrier it is in: its team, number */
    uint32_t omp_bj;
    uint64_t omp_exit_m;   /* ... its own measured exit (UINT64_MAX: not found) */
    bool omp_bar_on;
    bool omp_tw_on;        /* its taskwait waits for its tasks (omp_twk) */
    uint64_t omp_tw_enter_m; /* its outermost taskwait's Enter, measured */
    uint64_t omp_twk0, omp_twk1;
    uint64_t omp_wk0, omp_wk1; /* what it waits for (W_OMP) */
} rloc;

/* One MPI call of a location that made the library progress: where it
 * reached the library (its Enter, or the MpiSend of a blocking send: the
 * record's measured and approximated time, kind, region flags) and its
 * Leave's measured time (UINT64_MAX while open). */
typedef struct pres {
    uint64_t m, a, leave_m;
    uint8_t kind, rflags;
} pres;

/* armed: until the receive call's Leave; pending: in a partitioned replay,
 * the moved work's answer is still to come (engine_seam.c) */
enum { BODY_NONE, BODY_ARMED, BODY_ON, BODY_PENDING };

/* A completion of an interleaved poll loop whose message came after the poll
 * that measured it: written inside the first later poll call that ends at or
 * after `due`, or before the location's next call that may wait. */
#define HELD_MAX 64
#define HELD_ATTRS 8
typedef struct held {
    up_event ev;
    up_attr attrs[HELD_ATTRS];
    uint64_t due;
} held;

typedef struct engine {
    uint64_t obs_wait;          /* records until the observer's turn (observe) */
    up_replay_observer obs;     /* the caller's (zeroes: none) */
    uint64_t obs_step;          /* the wait without obs.record */
    uint64_t done;              /* records timed (for obs.progress; counted
                                 * in steps of obs_step) */
    uint64_t total;             /* records its locations declare (obs.progress) */
    up_trace *in;
    up_writer *out;
    const up_defs *d;
    const up_model_ops *ops;
    void *model;
    size_t n;
    rloc *L;
    up_heap heap;     /* the schedule: runnable locations by the measured time
                       * of their next record (ties: up_replay_set_schedule) */
    up_heap ch;       /* with ops->claim: lower bounds of the running
                       * locations' clocks (key: clock), up_eng_claim_lagging */
    up_heap cw;       /* locations parked at a claim (key: its time), cw_wake() */
    bool ch_off;      /* ... given up (out of memory): scans instead */
    up_map msgq, colls;
    up_map rankof;    /* (comm, location) -> its rank; (comm, UINT64_MAX) -> 0
                       * once indexed, 1 when the comm is unusable */
    uint64_t self_seq; /* instances of self-like communicators (coll_join) */
    size_t ndrained;  /* instances whose members that came are all done, while
                       * one that has not may still come (coll_done) */
    up_map teams;     /* (team comm, k) -> team */
    up_map groups;    /* (receiver, comm) -> mgroup, when re-matching */
    up_wildcard wild; /* matching of wildcard receives */
    bool follow;      /* replies follow re-matched receives (up_replies) */
    uint32_t *seen;   /* per location: last candidate scan that saw it */
    uint32_t scan;
    uint64_t wild_recvs, rematched;
    /* task farms: per key (sender, receiver, comm, tag) as the records name
     * it, its sends and receives so far (chans: key -> index + 1 in chan);
     * bodies: (chan, seq) -> 1 + the work after that receive, kept for the
     * receive that takes its message later (0: taken already) */
    up_map chans, bodies;
    struct chan *chan;
    size_t nchan, chancap;
    uint64_t replies_marked, replies_inferred, retargeted, bodies_moved, bodies_lost;
    up_map toks;      /* RMA: (from, to), (window, kind) -> tokq of sync points */
    up_map epochs;    /* RMA: (origin, window) -> the posts its access epoch waits for */
    up_map locks;     /* RMA: (location, window) -> its lock requests; (target
                       * location | 1 << 32, window) -> the target's last releases */
    uint64_t eager;   /* bytes above which a send is synchronous */
    bool prog;        /* ops->sync_progress: the progress rule is on */
    uint64_t max_shift; /* largest output_clamped raise */
    uint64_t spin_gap;  /* polling: most program time between two polls of a
                         * spin on average, ticks (0: every poll is a local record) */
    uint64_t spin_pause;/* ... and between any two of its polls (SPIN_PAUSE_NS) */
    unsigned poll_flag; /* UP_REGION_POLL when the rules are on, else 0 */
    uint64_t spins, polls_collapsed, completions_moved;
    bool has_poll_attr; /* the output marks collapsed polls and moved completions */
    OTF2_AttributeRef poll_attr;
    up_msg *free_msgs;
    size_t sweep_at;  /* sweep empty message queues when the map grows past it */
    uint64_t qgen;    /* bumped by each sweep: per-location queue caches expire */
    size_t nwait;
    uint64_t repairs[UP_REPAIR_COUNT];
    up_err *err;
    /* a part of a partitioned replay (engine_seam.c, docs/design.md "The
     * seam"): it holds the locations l with owner[l] == self; what crosses
     * to the others is appended to xout, as plain data */
    bool part;
    const uint32_t *owner;
    uint32_t self;
    up_map xseq;      /* (from, to) -> crossings sent, | 1 << 63: received (engine_seam.c) */
    struct xbuf {
        uint8_t *b;
        size_t len, cap;
    } xout, xheld;    /* crossings out; crossings in that came before their turn */
    uint64_t away_unknown; /* unknown records the other parts' readers met */
    bool released;    /* release_leftovers ran */
    uint64_t x_msgs, x_posts, x_colls, x_ends, x_progs, x_rma, x_shared, x_bodies, x_teams, x_grants; /* crossings
                               * applied here, by kind; decisions granted (W_GLOBAL, W_CLAIM) */
    uint8_t *sbuf;    /* the model's changes to its shared state (take_shared) */
    size_t sbufcap;
    struct xprogq *progq; /* questions on the progress of receivers held here */
    size_t nprogq, progqcap;
    uint32_t nparts, *rep; /* the parts, and the first location each holds
                            * (crossings to a part go to it, in one order) */
    /* threads and devices: regions whose Enter or Leave takes step()
     * (UP_REGION_OMP_MASK, UP_REGION_DEV_MASK), by region id; NULL when the
     * trace has none */
    uint8_t *slow;
    dstream *ds;      /* accelerator streams (engine_dev.c) */
    uint32_t nds;
    uint32_t *dsof;   /* location -> its stream's index, UINT32_MAX: none */
    bool has_stream_attr;
    OTF2_AttributeRef stream_attr; /* CUDA_STREAM_REF (a LOCATION) */
    uint32_t dev_waits; /* hosts waiting for the device (W_DEV) */
    uint64_t x_dev;   /* device crossings applied here */
    /* OpenMP (engine_omp.c) */
    up_map olocks;    /* (process, lock id) -> olock */
    up_map otasks;    /* (team comm, creator << 32 | generation) -> otask */
    up_map ocreators; /* (team comm, creator) -> ocreator */
    uint32_t omp_waits; /* locations waiting W_OMP */
    bool has_ompt_attr, has_tindex_attr, has_late_attr;
    OTF2_AttributeRef ompt_attr; /* OMPT_PARALLEL_REGION_ID (UINT64) */
    OTF2_AttributeRef tindex_attr; /* unperturb::team_index (UINT32; our OMPT tool's) */
    OTF2_AttributeRef late_attr;   /* unperturb::late_records (UINT32; likewise) */
    /* POSIX threads (engine_pthr.c) */
    up_map pthreads;  /* (process, s) -> pthr: the s-th pthread_create's thread */
    bool has_pobj_attr, has_pcount_attr;
    OTF2_AttributeRef pobj_attr, pcount_attr; /* unperturb::object, ::count (UINT32) */
} engine;

/* Does this engine hold location l (always, unless it is a part)? */
static inline bool up_eng_holds(const engine *E, uint32_t l)
{
    return !E->owner || E->owner[l] == E->self;
}

/* May location l still come to an instance: it runs here, or another part
 * has not said it ended (X_END) */
static inline bool up_eng_may_come(const engine *E, uint32_t l)
{
    return E->L[l].away ? !E->L[l].away_ended : E->L[l].state != S_DONE;
}

/* Task farms: per key (sender, receiver, comm, tag) as the records name it,
 * its sends and receives so far (engine_wild.c) */
typedef struct chan {
    uint64_t k0, k1;     /* the key as the records name it */
    uint64_t sent, recvd;/* send and receive records on it so far */
} chan;


/* What a member brings to a collective instance. */
typedef struct coll_arrival {
    OTF2_CommRef comm;
    uint64_t key;       /* instances are numbered per location and key: the
                         * communicator, or an RMA window (WIN_KEY) */
    OTF2_CollectiveOp op;
    uint32_t root;
    uint64_t sent, recvd;
    uint64_t begin_m, begin_a, end_m, ovh_in;
    bool nonblocking;
} coll_arrival;

/* A change to the state the thread rules share, crossing to the other parts
 * of a partitioned replay (X_OMP, engine_seam.c; made by up_eng_omp_cross) */
enum { OX_BAR_ENTER = 1, OX_BAR_FIRST = 2, OX_JOIN = 3, OX_LOCK = 4, OX_TASK_NEW = 5,
       OX_TASK_DONE = 6, OX_PCREATE = 7, OX_PEND = 8 };
typedef struct xomp {
    uint32_t kind, comm, loc;
    uint32_t need;        /* OX_BAR_ENTER: a pthread barrier's count */
    uint64_t key, seq;    /* the team (OX_BAR_*, OX_JOIN), the lock (key:
                           * process, seq: lock id), the task (seq: creator
                           * << 32 | generation), the thread (OX_PCREATE,
                           * OX_PEND; key: process, seq: s) */
    uint64_t j, m, a, x;  /* the barrier number; times; x: a measured exit,
                           * a lock's acquisition order */
    uint64_t o;           /* the record's overhead (OX_BAR_ENTER) */
} xomp;

/* ---- shared between the engine's files ------------------------------------- */

/* A record kind's handler (engine.c, the record table): times the head
 * record *evp of location li, which it may re-read (*evp moves when a
 * handler reads ahead in li's stream); direct: the record is being decoded
 * (up_stream_direct): no reading ahead, no waiting (STEP_DECLINED instead).
 * Returns a STEP_* */
typedef int (*rec_fn)(engine *E, uint32_t li, up_event **evp, bool direct);

/* engine.c: scheduling, claims, the record table and the loop */
up_status up_eng_init(engine *E, up_trace *in, up_writer *out, const up_model_ops *ops,
                      void *model, const up_replay_observer *obs, const uint32_t *owner,
                      uint32_t self, up_err *err);
int up_eng_run(engine *E);
up_status up_eng_finish(engine *E, up_replay_result *res);
void up_eng_free(engine *E, bool failed);
int up_eng_release_pick(engine *E, uint32_t *best, uint64_t *best_t);
int up_eng_release(engine *E, uint32_t li);
void up_eng_leftovers(engine *E, bool count);
void up_eng_counts(const engine *E, up_replay_result *res);
bool up_eng_comm_held(const engine *E, OTF2_CommRef comm);
int up_eng_make_runnable(engine *E, uint32_t li);
void *up_eng_map_obj(up_map *m, uint64_t k0, uint64_t k1, size_t size, bool create);
void up_eng_map_free_objs(up_map *m);
uint64_t *up_eng_map_counter(up_map *m, uint64_t k0, uint64_t k1);
int up_eng_rank_of(engine *E, OTF2_CommRef comm, uint32_t li, uint32_t *rank);
void up_eng_ch_note(engine *E, uint32_t loc);
bool up_eng_lagging(engine *E, uint32_t li, OTF2_CommRef comm, uint64_t until, uint64_t *key);
bool up_eng_claim_lagging(engine *E, uint32_t li, uint64_t until, const up_coll *c);
int up_eng_claim_wait(engine *E, uint32_t li, const up_event *ev, uint32_t peer, const up_msg *m,
                      const up_coll *c, bool direct);
uint64_t up_eng_finish_times(engine *E, rloc *L, unsigned kind, uint64_t t_m, uint64_t t_a,
                             unsigned rflags, OTF2_RegionRef region);
int up_eng_finish_record(engine *E, uint32_t li, up_event *ev, bool direct);

/* engine_p2p.c: messages, synchronous sends and progress */
int up_eng_send(engine *E, uint32_t li, up_event **evp, bool direct);
int up_eng_recv(engine *E, uint32_t li, up_event **evp, bool direct);
int up_eng_irecv_request(engine *E, uint32_t li, up_event **evp, bool direct);
int up_eng_sync_end(engine *E, uint32_t li, up_event *ev);
void up_eng_sync_drop(rloc *L, size_t i);
int up_eng_resolve_exit(engine *E, uint32_t li, up_msg *m, bool direct);
int up_eng_recv_done(engine *E, uint32_t li, up_event *ev, up_msg *m);
msgq *up_eng_queue_get(engine *E, uint64_t k0, uint64_t k1, bool create);
up_msg *up_eng_queue_pop(engine *E, msgq *q);
int up_eng_msg_arrive(engine *E, up_msg *m, OTF2_CommRef comm, uint32_t tag, bool *kept);
int up_eng_mates_first(engine *E, uint32_t li, uint64_t t, bool direct);
up_status up_eng_mates_init(engine *E);
int up_eng_sync_posted(engine *E, uint32_t src, uint64_t id, uint64_t post_m, uint64_t post_a,
                       bool by_request);
bool up_eng_prog_answer(engine *E, uint32_t rloc_i, up_sync *s, uint64_t t, bool now, bool *known);
up_msg *up_eng_msg_new(engine *E);
void up_eng_msg_free(engine *E, up_msg *m);
void up_eng_pr_full(engine *E, rloc *L);
void up_eng_p2p_free(engine *E, bool count);

/* engine_wild.c: wildcard receives and task farms */
int up_eng_recv_rematch(engine *E, uint32_t li, up_event **evp, OTF2_CommRef comm, uint32_t src,
                        uint32_t tag, uint64_t k0, uint64_t k1);
bool up_eng_reply_of(engine *E, uint32_t li, up_event *ev, OTF2_CommRef comm, uint32_t *dst,
                     bool *retarget);
uint32_t up_eng_chan_get(engine *E, uint64_t k0, uint64_t k1);
mgroup *up_eng_group_get(engine *E, uint32_t dst, OTF2_CommRef comm, bool create);
void up_eng_group_unlink(engine *E, up_msg *m);
void up_eng_body_adjust(rloc *L, const up_event *ev);
void up_eng_body_after(engine *E, uint32_t li, rloc *L, const up_event *ev);
void up_eng_wild_free(engine *E);
int up_eng_moved_body(engine *E, uint64_t k0, uint64_t k1, uint64_t oseq, uint32_t odst,
                      uint64_t *body);
void up_eng_body_answer(engine *E, uint32_t li, bool found, uint64_t moved);

/* engine_coll.c: collectives, blocking and nonblocking */
int up_eng_coll_begin(engine *E, uint32_t li, up_event **evp, bool direct);
int up_eng_coll_end(engine *E, uint32_t li, up_event **evp, bool direct);
int up_eng_nbc_request(engine *E, uint32_t li, up_event **evp, bool direct);
int up_eng_nbc_complete(engine *E, uint32_t li, up_event **evp, bool direct);
void up_eng_coll_sweep(engine *E);
void up_eng_coll_free(engine *E, bool count);
int up_eng_coll_crossed(engine *E, const coll_arrival *a, uint64_t seq, uint32_t rank,
                        uint32_t loc, bool forced);

/* engine_poll.c: polling */
int up_eng_poll_step(engine *E, uint32_t li, up_event **evp, unsigned *mark, bool *start);
int up_eng_hold(engine *E, uint32_t li, up_event *ev);
int up_eng_held_flush(engine *E, uint32_t li, up_event *ev, bool all);
int up_eng_finish_marked(engine *E, uint32_t li, up_event *ev, unsigned mark);

/* engine_seam.c: what crosses between the parts of a partitioned replay */
int up_eng_x_msg(engine *E, uint32_t li, up_msg *m, OTF2_CommRef comm, uint32_t tag);
int up_eng_x_post(engine *E, const up_sync *s);
int up_eng_x_outside(engine *E, const char *what);
int up_eng_x_coll(engine *E, uint32_t from, const coll_arrival *a, uint64_t seq, uint32_t rank,
                  bool forced);
int up_eng_x_end(engine *E, uint32_t li);
int up_eng_x_progq(engine *E, const up_sync *s, uint64_t t);
int up_eng_x_global(engine *E, uint32_t li);
int up_eng_x_team(engine *E, uint32_t from, OTF2_CommRef comm, uint64_t key, uint64_t seq,
                  unsigned what, uint64_t m, uint64_t a);
int up_eng_x_bodyq(engine *E, uint32_t li, uint64_t k0, uint64_t k1, uint64_t oseq, uint32_t odst);
int up_eng_x_tok(engine *E, uint32_t from, uint32_t to, OTF2_RmaWinRef win, int kind, uint64_t m,
                 uint64_t a);
int up_eng_x_lock(engine *E, uint32_t from, uint32_t target, OTF2_RmaWinRef win, bool exclusive,
                  uint64_t m, uint64_t a);
int up_eng_x_prog_flush(engine *E, uint64_t upto, size_t *answered);
int up_eng_x_dev_issue(engine *E, uint32_t from, uint32_t s, const dev_issue *is);
int up_eng_x_dev_done(engine *E, uint32_t s, uint64_t seq, bool has_end, uint64_t m, uint64_t a);
int up_eng_x_omp(engine *E, uint32_t from, OTF2_CommRef comm, const void *x, size_t len);
up_status up_eng_seam_init(engine *E);
void up_eng_seam_free(engine *E);

/* engine_rma.c */
int up_eng_group_sync(engine *E, uint32_t li, up_event **evp, bool direct);
int up_eng_lock(engine *E, uint32_t li, up_event **evp, bool direct);
int up_eng_unlock(engine *E, uint32_t li, up_event **evp, bool direct);
void up_eng_rma_free(engine *E);
int up_eng_tok_push(engine *E, uint32_t from, uint32_t to, OTF2_RmaWinRef win, int kind,
                    uint64_t m, uint64_t a);
int up_eng_lock_released(engine *E, uint32_t target, OTF2_RmaWinRef win, bool exclusive,
                         uint64_t m, uint64_t a);

/* engine_dev.c */
up_status up_eng_dev_init(engine *E);
void up_eng_dev_free(engine *E);
int up_eng_dev_record(engine *E, uint32_t li, up_event **evp);
int up_eng_dev_host(engine *E, uint32_t li, up_event **evp, unsigned flags);
int up_eng_dev_twait(engine *E, uint32_t li, const up_event *ev);
void up_eng_dev_twait_end(engine *E, uint32_t li, up_event *ev);
void up_eng_dev_ended(engine *E, uint32_t li);
int up_eng_dev_issued(engine *E, uint32_t s, const dev_issue *is);
void up_eng_dev_done(engine *E, uint32_t s, uint64_t seq, bool has_end, uint64_t m, uint64_t a);

/* engine_threads.c */
int up_eng_omp_region(engine *E, uint32_t li, up_event **evp, unsigned flags);
int up_eng_team(engine *E, uint32_t li, up_event **evp, bool direct);
int up_eng_join(engine *E, uint32_t li, up_event **evp, bool direct);
int up_eng_fork(engine *E, uint32_t li, up_event **evp, bool direct);
int up_eng_team_crossed(engine *E, OTF2_CommRef comm, uint64_t key, uint64_t seq, unsigned what,
                        uint64_t m, uint64_t a);
void up_eng_threads_free(engine *E);
team *up_eng_team_get(engine *E, const up_comm_def *cd, OTF2_CommRef comm, uint64_t key,
                      uint64_t seq);

/* engine_omp.c (and the waits of engine_pthr.c) */
void up_eng_omp_init(engine *E);
int up_eng_omp_wait(engine *E, rloc *L);
void up_eng_omp_wake(engine *E);
bool up_eng_omp_released(engine *E, rloc *L, unsigned repair);
int up_eng_omp_cross(engine *E, uint32_t from, OTF2_CommRef comm, xomp *o);
int up_eng_omp_lock(engine *E, uint32_t li, up_event **evp, bool direct);
int up_eng_omp_task(engine *E, uint32_t li, up_event **evp, bool direct);
void up_eng_omp_team_begin(engine *E, uint32_t li, team *tm);
void up_eng_omp_team_end(engine *E, uint32_t li, team *tm);
void up_eng_omp_team_free(team *tm);
void up_eng_omp_free(engine *E);
int up_eng_omp_crossed(engine *E, const void *x, size_t len);

/* engine_pthr.c */
void up_eng_pthr_init(engine *E);
int up_eng_pthr(engine *E, uint32_t li, up_event **evp, bool direct);
int up_eng_pthr_bar(engine *E, uint32_t li, const up_event *ev, uint64_t *key, uint64_t *obj,
                    uint64_t *j, uint32_t *need);
int up_eng_pthr_crossed(engine *E, const xomp *o);
void up_eng_pthr_free(engine *E);

/* ---- small helpers on the hot path, inlined wherever they are used ------------ */

/* Asks the model whether the record ev of li takes a shared resource (peer,
 * m, c as for up_model_ops.claim); STEP_PARK when a location must go first
 * (STEP_DECLINED on the direct path, which cannot wait), else STEP_OK. */
static inline int claim_wait(engine *E, uint32_t li, const up_event *ev, uint32_t peer,
                             const up_msg *m, const up_coll *c, bool direct)
{
    if (!E->ops->claim) /* compensate: no claims, and nothing to reset */
        return STEP_OK;
    return up_eng_claim_wait(E, li, ev, peer, m, c, direct);
}

/* The seam's lower bound in measured time (docs/design.md, "The seam"): a
 * runnable location's next record comes before measured time t, so a
 * decision that needs every record before t (a wildcard's candidates, a
 * receiver's progress, an RMA token) waits (STEP_YIELD) behind it. */
static inline bool up_eng_behind(const engine *E, uint64_t t)
{
    return E->heap.n && E->heap.a[0].key < t;
}

/* Progress (docs/models.md, "Progress"; engine_p2p.c): each location's
 * progressing MPI calls in a ring */
static inline pres *pr_at(const rloc *L, uint32_t i) /* i-th oldest */
{
    return &L->pr[(L->prpos + i) & (L->prcap - 1)];
}


UP_HOT_INLINE void pr_push(engine *E, rloc *L, uint64_t m, uint64_t a, unsigned kind, unsigned rflags)
{
    pres *p;
    if (L->prn == L->prcap) {
        up_eng_pr_full(E, L);
        if (L->prn == L->prcap)
            return; /* no memory at all: nothing is known */
    }
    p = pr_at(L, L->prn++);
    p->m = m;
    p->a = a;
    p->leave_m = UINT64_MAX;
    p->kind = (uint8_t)kind;
    p->rflags = (uint8_t)rflags;
}


/* What the Enter and Leave of an MPI call update (finish_times): a call
 * that may wait progresses from its Enter; a blocking send (its region
 * never waits for a message) from its MpiSend (pr_send); other calls that
 * never wait (MPI_Irecv, MPI_Isend, MPI_Comm_rank) not at all. */
static inline void pr_enter(engine *E, rloc *L, uint64_t t_m, uint64_t t_a, unsigned rflags)
{
    if (!(rflags & UP_REGION_NOWAIT))
        pr_push(E, L, t_m, t_a, UP_EV_Enter, rflags);
    else
        L->pr_send = true;
}


static inline void pr_leave(rloc *L, uint64_t t_m)
{
    L->pr_send = false;
    if (L->prn && pr_at(L, L->prn - 1)->leave_m == UINT64_MAX)
        pr_at(L, L->prn - 1)->leave_m = t_m;
}


/* The location that stands for li's process in comm: li itself when it is a
 * member (every location of a pure MPI trace), else its process's member
 * (MPI from any thread: up_eng_rank_of).  1 with *me set, 0 li's process is
 * no member, -1 out of memory.  Loops use one communicator: the last is
 * remembered. */
static inline int up_eng_member_of(engine *E, uint32_t li, OTF2_CommRef comm, uint32_t *me)
{
    rloc *L = &E->L[li];
    if (!L->mcomm_ok || L->mcomm != comm) {
        const up_comm_def *cd;
        uint32_t rank;
        int r = up_eng_rank_of(E, comm, li, &rank);
        if (r <= 0)
            return r;
        cd = up_defs_comm(E->d, comm);
        L->mcomm_me = cd->self ? li : cd->members[rank];
        L->mcomm = comm;
        L->mcomm_ok = true;
    }
    *me = L->mcomm_me;
    return 1;
}


/* A message's queue key: communicator, tag and the members of comm that
 * stand for the sending and the receiving process (up_eng_member_of) */
static inline void msg_key(uint32_t src, uint32_t dst, OTF2_CommRef comm, uint32_t tag,
                    uint64_t *k0, uint64_t *k1)
{
    *k0 = (uint64_t)src << 32 | dst;
    *k1 = (uint64_t)comm << 32 | tag;
}


static inline void recv_fields(const up_event *ev, uint32_t *rank, OTF2_CommRef *comm, uint32_t *tag)
{
    if (ev->kind == UP_EV_MpiRecv) {
        *rank = ev->u.MpiRecv.sender, *comm = ev->u.MpiRecv.communicator, *tag = ev->u.MpiRecv.msgTag;
    } else {
        *rank = ev->u.MpiIrecv.sender, *comm = ev->u.MpiIrecv.communicator, *tag = ev->u.MpiIrecv.msgTag;
    }
}


/* The overhead the model charges record ev of location li: what the record
 * delayed its location by in the measured run.  A dependency on another
 * location takes effect after it: a barrier's last enter, a lock's release,
 * a launch reach the others O after their record (docs/models.md) */
static inline uint64_t up_eng_rec_ovh(const engine *E, uint32_t li, const up_event *ev)
{
    return E->ops->record_ovh ? E->ops->record_ovh(E->model, li, ev) : 0;
}

/* Record ev of location L waited for a dependency another thread satisfied
 * at (dep_m, dep_a), dep_m after that record's overhead (docs/models.md,
 * "OpenMP").  idle: L was waiting when it came, and follows it by the
 * measured latency, no earlier than L's previous record ([M] Section 4: the
 * approximated event of a waiting thread is its signal's plus the
 * latency; its local time would keep the wait the others' overhead made):
 *     t_a = max(t_a(prev), dep_a + max(0, t_m - dep_m))
 * else L came later, and keeps its local time, raised to the dependency:
 *     t_a = max(t_local, dep_a)
 * (A location's first record has t_a(prev) = 0.) */
static inline void up_eng_follow(const rloc *L, up_event *ev, bool idle, uint64_t dep_m,
                                 uint64_t dep_a)
{
    if (idle) {
        uint64_t t = dep_a + sub0(ev->time, dep_m);
        ev->t_out = t > L->ls.prev_a ? t : L->ls.prev_a;
    } else if (ev->t_out < dep_a) {
        ev->t_out = dep_a;
    }
}

/* The value of attribute a of type `type` on record ev (NULL: none) */
static inline const OTF2_AttributeValue *up_eng_attr(const up_event *ev, OTF2_AttributeRef a,
                                                     OTF2_Type type)
{
    uint32_t i;
    for (i = 0; i < ev->nattrs; i++)
        if (ev->attrs[i].id == a && ev->attrs[i].type == type)
            return &ev->attrs[i].value;
    return NULL;
}

/* Region flags of an Enter/Leave, looked up once for engine and model;
 * every other record kind has 0 (only local records reach here with them). */
UP_HOT_INLINE void set_rflags(engine *E, up_event *ev)
{
    if (ev->kind == UP_EV_Enter)
        ev->rflags = (uint8_t)up_defs_region_flags(E->d, ev->u.Enter.region);
    else if (ev->kind == UP_EV_Leave)
        ev->rflags = (uint8_t)up_defs_region_flags(E->d, ev->u.Leave.region);
    else
        ev->rflags = 0;
}


#endif
