/*
 * replay.h - the replay engine: advances every location in dataflow order and
 * asks a model for the new timestamp of each record.
 *
 * Place in the data flow: between the reader streams (trace.h) and the writer.
 * A location runs until a record depends on another location: a receive waits
 * for the approximated time of its matching send (MPI non-overtaking order on
 * communicator, sender, receiver and tag), a collective's end for the members
 * its class needs (all for n-to-n, the root for 1-to-n, all for the root of
 * n-to-1).  Runnable locations are taken in order of the measured time of
 * their next record, so a sender never runs far ahead of its receivers and the
 * queues of messages in flight stay as short as they were in the measured run.
 * Per-location record order never changes and output times never decrease.
 *
 * When every unfinished location waits (an inconsistent trace: a receive
 * without a send, a collective a member never reaches), the engine releases
 * the waiting record with the earliest measured time, lets the model time it
 * as a local record, and counts the repair.  It never aborts on a trace.
 */
#ifndef UNPERTURB_REPLAY_H
#define UNPERTURB_REPLAY_H

#include "trace/trace.h"

/* ---- repairs: what the replay had to fix or could not use ----------------- */

/* A kind of repair, as reports name and describe it. */
typedef struct up_repair_kind {
    const char *name;   /* its key in reports */
    const char *text;   /* what it counts */
    bool fix;           /* an inconsistency of the measured trace that was
                         * repaired; false: a limit the model applied */
    unsigned before;    /* a model's kind: reports list it before this
                         * engine kind (an up_repair; UP_REPAIR_COUNT: after
                         * them all), so that they keep the order in which
                         * the kinds were added, the engine's and the
                         * models' interleaved (up_replay_repairs) */
} up_repair_kind;

/* The engine's own repairs; a model declares its own kinds
 * (up_model_ops.repair_kinds).  name, description, 1 = an inconsistency of
 * the measured trace that was repaired, 0 = a limit the replay applied */
#define UP_REPAIRS(X)                                                                           \
    X(unmatched_recv, "receives without a matching send (timed as local records)", 1)          \
    X(unmatched_send, "sends never received", 1)                                                \
    X(late_send, "sends that came after their receive had been released", 1)                    \
    X(unresolved_peer, "messages or collectives whose ranks map to no location", 1)            \
    X(collective_incomplete, "collectives released before all members arrived", 1)             \
    X(collective_unpaired, "collective begin/end records without their partner", 1)            \
    X(decreasing_time, "input timestamps that went backwards on a location", 1)                \
    X(time_out_of_range, "input timestamps outside the clock properties' range", 1)           \
    X(time_spike, "input timestamps ahead of the records before and after them", 1)          \
    X(damaged_files, "damaged input files, read up to their damage (docs/cli.md)", 1)         \
    X(event_count, "event files holding another number of records than their location declares", 1) \
    X(duplicate_definitions, "global definitions of an id defined before (the first kept, the others left out)", 1) \
    X(sync_unposted, "synchronous sends completed without their receive being posted", 1)      \
    X(thread_unpaired, "thread team begins or joins released without their partners", 1)       \
    X(rma_unpaired, "RMA post/start/complete/wait synchronisations released without their partners", 1) \
    X(dev_issue_unpaired, "kernel launches, copies and OpenMP target regions whose device activity the trace does not hold", 1) \
    X(dev_activity_unpaired, "device activities without a launch or copy call (kept at the stream's last shift)", 1) \
    X(dev_wait_released, "host calls waiting for the device released without its activity", 1) \
    X(omp_barrier_released, "OpenMP barrier exits released before every member of the team entered", 1) \
    X(omp_barrier_unordered, "OpenMP barrier exits measured before the team's last enter (timed locally)", 1) \
    X(omp_lock_released, "OpenMP lock acquisitions released without the previous release", 1) \
    X(omp_task_unpaired, "OpenMP task switches and taskwaits released without their task's creation or completion", 1) \
    X(pthread_unpaired, "POSIX thread begins and joins released without their pthread_create or the thread's end", 1) \
    X(pthread_barrier_released, "pthread barrier exits released before the barrier's count of threads entered", 1) \
    X(pthread_barrier_local, "pthread barrier waits timed as local records: no barrier or count named, or an exit measured before the instance's last enter", 0) \
    X(output_clamped, "output timestamps raised to keep a location monotonic", 0)              \
    X(progress_unknown, "rendezvous sends whose receiver's MPI calls were not known, timed from the post", 0)

typedef enum up_repair {
#define UP_X_(name, text, fix) UP_REPAIR_##name,
    UP_REPAIRS(UP_X_)
#undef UP_X_
    UP_REPAIR_COUNT
} up_repair;

/* the engine's kinds */
const char *up_repair_name(unsigned r);
const char *up_repair_text(unsigned r);
bool up_repair_is_fix(unsigned r); /* an inconsistency of the trace */

/* the most kinds a model may declare */
#define UP_MODEL_REPAIRS_MAX 16

/* ---- what a model is given --------------------------------------------------- */

/* The engine's view of one location, for the model's formulas (ticks). */
typedef struct up_loc_state {
    bool started;               /* a record has been processed */
    uint64_t prev_m, prev_a;    /* previous record: measured / approximated */
    uint64_t enter_m, enter_a;  /* most recent Enter (enter.recv of the paper) */
    /* polling (docs/models.md, "Polling"): set while the engine hands the
     * model the first completion record of a spin's last poll */
    bool spin;                  /* the record completes a spin */
    uint64_t spin_a;            /* approximated start of the spin (its first poll's Enter) */
    uint64_t spin_poll_m;       /* shortest measured poll call of the spin, ticks */
} up_loc_state;

/* A synchronous send (MPI_Ssend, MPI_Issend, or more bytes than the eager
 * limit): its call cannot complete before the receive was posted. */
typedef struct up_sync {
    uint64_t send_m, send_a;    /* the send record */
    uint64_t post_m, post_a;    /* the receive's post: Enter of MPI_Recv, or
                                 * MpiIrecvRequest of an Irecv */
    uint64_t req;               /* MpiIsend request id (blocking: unused) */
    uint64_t bytes;             /* the message's length */
    uint32_t src, dst;          /* the sender's and receiver's locations */
    bool posted, blocking;
    bool by_request;            /* posted by an MpiIrecvRequest: the receiver
                                 * may be outside MPI after its post */
    /* progress (docs/models.md, "Progress"): when by_request and the
     * receiver was outside MPI from max(send, post) until it entered an MPI
     * call that was its last before the completion, has_prog is set with
     * the record at which that call reached the library (its Enter, or the
     * MpiSend of a blocking send) and the record's kind and region flags
     * (the model adds that record's overhead) */
    bool has_prog;
    uint8_t prog_asked;         /* (engine) a partitioned replay asked the
                                 * receiver's part: 1 asked, 2 answered */
    /* the model's view of the receiver's progress (up_model_ops.progress_of) */
    bool mprog_set, mprog_found, mprog_unknown;
    uint64_t mprog_m, mprog_a;
    uint8_t prog_kind, prog_rflags;
    uint64_t prog_m, prog_a;
    uint64_t id;                /* the sender's synchronous sends before it: its
                                 * name across the seam (docs/design.md) */
    int refs;                   /* the message and the sender hold it */
} up_sync;

/* A message in flight: posted by the send, consumed by its receive. */
typedef struct up_msg {
    uint64_t send_m, send_a;    /* the send record */
    uint64_t exit_m;            /* Leave ending the send call (exit.send_m) */
    bool exit_known;            /* (the engine resolves it before a receive) */
    uint64_t ovh_path;          /* overhead between the send and the transfer */
    uint64_t bytes;
    uint32_t src, dst;          /* location indices */
    bool posted;                /* its receive was posted */
    bool rematched;             /* taken by another receive than measured */
    bool at_entry;              /* a rendezvous that could only move once the
                                 * receiver entered the call that completes it
                                 * (docs/models.md, "Progress"): (m.2) */
    up_sync *sync;              /* NULL for an eager send */
    uint64_t mdata[2];          /* the model's own, set by its send() */
    struct up_msg *next;
    /* the engine's, for re-matching wildcard receives (up_wildcard) */
    OTF2_CommRef comm;
    uint32_t tag;
    void *q;                    /* its queue (sender, receiver, comm, tag) */
    struct up_msg *gprev, *gnext; /* messages to its receiver on comm */
    /* task farms (docs/models.md, "Task farms"): the key its send record
     * named (an index of the engine's) and its place among that key's
     * sends; task: a reply to a wildcard receive */
    uint32_t ochan, odst;
    uint64_t oseq;
    bool task, retargeted;
} up_msg;

/* How failed MPI_Test/Testany/Testsome/Testall/Iprobe/Improbe calls are
 * replayed (docs/models.md, "Polling"): MODEL collapses spins and lets a
 * completion in an interleaved poll loop move to the first poll after its
 * message arrived; LOCAL keeps every poll as local work (the rule before
 * issue 21, for comparison). */
typedef enum up_polls {
    UP_POLLS_MODEL,
    UP_POLLS_LOCAL
} up_polls;

const char *up_polls_name(up_polls p);   /* "model", "local" */
bool up_polls_parse(const char *s, up_polls *out);

/* How receives that named MPI_ANY_SOURCE or MPI_ANY_TAG (the tracer's
 * attribute "unperturb::wildcard") are matched in the approximated run
 * (Sarukkai and Malony Section 4.2): PRESERVE keeps the measured match;
 * FIFO takes, of the messages that could match, the one sent first in
 * approximated time; LIFO the one sent last before the receive was posted
 * (else the first sent after it).  A changed match rewrites the receive's
 * sender, tag and length. */
typedef enum up_wildcard {
    UP_WILDCARD_PRESERVE,
    UP_WILDCARD_FIFO,
    UP_WILDCARD_LIFO,
    UP_WILDCARD_AUTO    /* the default: FIFO when the trace marks its wildcard
                         * receives (the unperturb tracer), else PRESERVE */
} up_wildcard;

const char *up_wildcard_name(up_wildcard w);   /* "preserve", "fifo", "lifo", "auto" */
bool up_wildcard_parse(const char *s, up_wildcard *out);

/* Under FIFO or LIFO, where a reply to a re-matched wildcard receive goes
 * (docs/models.md, "Task farms"): FOLLOW sends it to the re-matched sender
 * and moves the task's work with it; MEASURED keeps the measured destination
 * (the rule before issue 22, for comparison). */
typedef enum up_replies {
    UP_REPLIES_FOLLOW,
    UP_REPLIES_MEASURED
} up_replies;

const char *up_replies_name(up_replies r);     /* "follow", "measured" */
bool up_replies_parse(const char *s, up_replies *out);

/* When a transfer above the eager limit moves (docs/models.md, "Progress"):
 * MPI only while its receiver is inside an MPI call after its post (Open
 * MPI without a progress thread); ASYNC as soon as the receive is posted
 * (an MPI with asynchronous progress, the rule before issue 32). */
typedef enum up_rdv_progress {
    UP_RDV_MPI,
    UP_RDV_ASYNC
} up_rdv_progress;

const char *up_rdv_progress_name(up_rdv_progress p); /* "mpi", "async" */
bool up_rdv_progress_parse(const char *s, up_rdv_progress *out);

typedef enum up_coll_class {
    UP_COLL_N_TO_N,  /* barrier, allreduce, allgather(v), alltoall(v/w), ... */
    UP_COLL_ONE_TO_N,/* bcast, scatter(v) */
    UP_COLL_N_TO_ONE,/* reduce, gather(v) */
    UP_COLL_PREFIX   /* scan, exscan: rank i waits for ranks 0..i-1 */
} up_coll_class;

up_coll_class up_coll_class_of(OTF2_CollectiveOp op);

/* One member of a collective instance. */
typedef struct up_member {
    uint64_t begin_m, begin_a;  /* MpiCollectiveBegin */
    uint64_t end_m;             /* MpiCollectiveEnd (measured) */
    uint64_t ovh_in;            /* overhead of its records in [begin, end) */
    uint64_t sent, recvd;       /* bytes, from MpiCollectiveEnd */
    uint32_t loc;
    bool arrived;
    bool nonblocking;           /* begin = NonBlockingCollectiveRequest,
                                 * end = NonBlockingCollectiveComplete */
} up_member;

/* One execution of a collective on a communicator (k-th on that comm). */
typedef struct up_coll {
    OTF2_CommRef comm;
    uint64_t key;               /* comm, or 1 << 32 | window for an RMA fence */
    uint64_t seq;
    OTF2_CollectiveOp op;
    up_coll_class cls;
    uint32_t root;              /* member index of the root, or UINT32_MAX */
    uint32_t n, arrived, done;
    uint32_t held_arrived;      /* (engine) arrived members its part holds */
    bool forced;                /* released before all members arrived */
    bool drained;               /* (engine) every member that arrived is done,
                                 * one that has not may still come */
    /* aggregates over arrived members (eqs. 12, 13) */
    uint32_t j_last_m;          /* latest measured begin */
    uint32_t l_first_end_m;     /* earliest measured end */
    uint64_t max_begin_a;       /* latest approximated begin (process k) */
    up_member *m;               /* n members, in communicator rank order */
} up_coll;

/* A model computes ev->t_out (and may rewrite time-valued fields such as
 * BufferFlush.stopTime).  All times are ticks of the archive's clock. */
typedef struct up_model_ops {
    const char *name;
    /* overhead a record of location loc adds after its timestamp (for sums
     * over lookahead) */
    uint64_t (*record_ovh)(void *m, uint32_t loc, const up_event *ev);
    /* a record that depends only on its own location (eq. 1) */
    void (*local)(void *m, uint32_t loc, const up_loc_state *ls, up_event *ev);
    /* a send: times it and fills the model's fields of *msg (ovh_path) */
    void (*send)(void *m, uint32_t loc, const up_loc_state *ls, up_event *ev, up_msg *msg);
    /* a receive of *msg (msg NULL: released without a send, time it locally) */
    void (*recv)(void *m, uint32_t loc, const up_loc_state *ls, up_event *ev, const up_msg *msg);
    /* the end of collective *c for member *self */
    void (*coll_end)(void *m, uint32_t loc, const up_loc_state *ls, up_event *ev,
                     const up_coll *c, const up_member *self);
    /* the model's own kinds of repair (nrepair_kinds of them, at most
     * UP_MODEL_REPAIRS_MAX), and their counters in that order (may be NULL
     * without kinds) */
    const up_repair_kind *repair_kinds;
    unsigned nrepair_kinds;
    const uint64_t *(*repairs)(void *m);
    /* counters of the engine's kinds (UP_REPAIR_*) the model counts too,
     * e.g. simulate's own view of a receiver's progress (may be NULL) */
    const uint64_t *(*engine_repairs)(void *m);
    /* bytes above which a send is synchronous (UINT64_MAX: never) */
    uint64_t (*eager_limit)(void *m);
    /* the record that completes a synchronous send (the Leave of its call,
     * or its MpiIsendComplete), once the receive was posted (s NULL:
     * released without it, time it locally) */
    void (*sync_end)(void *m, uint32_t loc, const up_loc_state *ls, up_event *ev,
                     const up_sync *s);
    /* the receives the model raised to repair the clock condition or to keep
     * the minimum transfer time (*moved), and the largest raise (ticks), or
     * the measured violation if larger; may be NULL */
    uint64_t (*max_shift)(void *m, uint64_t *moved);
    /* how wildcard receives are matched (NULL: preserve; AUTO is resolved
     * by the engine) */
    up_wildcard (*wildcard)(void *m);
    /* every collective's end waits for all its members (a model whose
     * algorithms need every member's entry, e.g. a binomial broadcast) */
    bool coll_wait_all;
    /* optional, for speed: an Enter or Leave (kind UP_EV_*) at measured time
     * t_m in a region with flags rflags (UP_REGION_*), timed exactly as
     * local() would time it; returns the approximated time */
    uint64_t (*region)(void *m, uint32_t loc, const up_loc_state *ls, unsigned kind,
                       uint64_t t_m, unsigned rflags);
    /* the trace decides the protocol of the machine it was measured on: a
     * send whose call completed before its receive was posted was eager,
     * whatever its size (compensation).  false: eager_limit alone decides
     * (a simulation of another machine) */
    bool eager_from_trace;
    /* polling (may be NULL: every poll is a local record).  spin_gap: the
     * most program time (ticks, gaps less the Leave's overhead) between two
     * poll calls of one spin, on average over the spin; 0 turns the poll
     * rules off.  A spin's
     * completion reaches recv() with ls->spin set.  poll_recv: a receive
     * completed by a poll call of an interleaved loop (work between polls):
     * sets ev->t_out to its local time (eq. 1), as if nothing waited, and
     * returns the time its message is there in the approximated run; when
     * that is later, the engine moves the record to the first poll after it */
    uint64_t (*spin_gap)(void *m);
    uint64_t (*poll_recv)(void *m, uint32_t loc, const up_loc_state *ls, up_event *ev,
                          const up_msg *msg);
    /* where replies to re-matched wildcard receives go (NULL: measured) */
    up_replies (*replies)(void *m);
    /* shared resources, e.g. simulate's contended links, taken in a
     * canonical order: ascending approximated time, then location, whatever
     * the replay's schedule (docs/design.md, "Scheduling").  May be NULL.
     * Asked before a send (peer: its destination, msg NULL), before a
     * receive takes msg, and before the end of collective c; returns the
     * approximated time from which the record takes a shared resource, or
     * UINT64_MAX when it takes none.  The engine first runs every location
     * that might still take one earlier.  Pure: no state changes. */
    uint64_t (*claim)(void *m, uint32_t loc, const up_loc_state *ls, const up_event *ev,
                      uint32_t peer, const up_msg *msg, const up_coll *c);
    /* a rendezvous transfer moves only while its receiver is inside an MPI
     * call (no asynchronous progress): sync_end gets up_sync.has_prog.  May
     * be NULL (false) */
    bool (*sync_progress)(void *m);
    /* the model's own view of a receiver's progress for synchronous send s
     * completing at measured time t: fills s->mprog_* from what the model
     * keeps of location loc, the receiver (called where loc is replayed, so
     * that the sender's sync_end reads no other location's state: the seam,
     * docs/design.md).  May be NULL */
    void (*progress_of)(void *m, uint32_t loc, up_sync *s, uint64_t t);
    /* the model's state shared by all locations (simulate's links), in a
     * partitioned replay: shared_take(m, NULL, 0) starts a log of its
     * changes; shared_take(m, buf, cap) moves the log into buf as plain data
     * and returns its size (more than cap: nothing moved, ask again);
     * shared_put applies another part's log (in any order).  May be NULL */
    size_t (*shared_take)(void *m, void *buf, size_t cap);
    void (*shared_put)(void *m, const void *buf, size_t n);
    /* devices (docs/models.md, "Devices"): the approximated length of a
     * measured span d (ticks) of accelerator stream loc: an activity's
     * duration (UP_DEV_DUR) or its launch-to-start latency (UP_DEV_LAT).
     * May be NULL: kept as measured */
    uint64_t (*dev_time)(void *m, uint32_t loc, unsigned what, uint64_t d);
} up_model_ops;

enum { UP_DEV_DUR, UP_DEV_LAT };

/* What a replay tells its caller while it runs (up_replay_run's `obs`): a
 * pipeline's progress bar, or a consumer of every timed record.  Every
 * callback may be NULL; whatever is asked for, the observer costs a record
 * one decrement and one predictable branch (engine.c, observe). */
typedef struct up_replay_observer {
    void *ctx;                  /* the callbacks' first argument */
    /* every 65536 records: records timed so far, and those the definitions
     * declare (in a partitioned replay, each part's of its locations) */
    up_progress_fn progress;
    /* after each record is timed: its location (index), kind (UP_EV_*),
     * measured and approximated time.  A receive's completion that polling
     * holds for a later poll (docs/models.md, "Polling") is written later,
     * at its moved time */
    void (*record)(void *ctx, uint32_t loc, unsigned kind, uint64_t t_m, uint64_t t_a);
} up_replay_observer;

/* Test hook: the records a location runs before it may yield (0: the
 * default, 512) and, if reverse, the higher location index first among
 * locations at the same measured time.  Process-wide; the results must not
 * depend on it (tests/test_schedule.c). */
void up_replay_set_schedule(size_t slice, bool reverse);

/* ---- results ---------------------------------------------------------------- */

typedef struct up_loc_result {
    OTF2_LocationRef id;
    long rank;                 /* UP_NO_RANK if none */
    up_loc_kind kind;          /* what it is (up_loc_def.kind) */
    uint32_t process;          /* its process, UP_NO_PROCESS if none */
    const char *name;          /* points into the definitions */
    uint64_t records;
    uint64_t end_m, end_a;     /* ticks: end of this location in the window */
    bool has_window_end;       /* ended by MPI_Finalize's Enter */
} up_loc_result;

typedef struct up_replay_result {
    uint64_t resolution;       /* ticks per second */
    bool window_marked;        /* MPI_Init / MPI_Finalize found */
    uint64_t start_m, end_m;   /* measured window */
    uint64_t start_a, end_a;   /* approximated window */
    uint64_t t_min_a, t_max_a; /* extreme output timestamps */
    uint64_t events;
    size_t nlocs;
    up_loc_result *locs;
    uint64_t repairs[UP_REPAIR_COUNT];           /* the engine's kinds */
    /* the model's kinds (up_model_ops.repair_kinds) and their counts */
    const up_repair_kind *model_kinds;
    unsigned nmodel_kinds;
    uint64_t model_repairs[UP_MODEL_REPAIRS_MAX];
    /* records raised by repairs and limits (clock condition, minimum
     * transfer, a model going back), and the largest raise, ticks */
    uint64_t moved, max_shift;
    /* wildcard receives seen while re-matching (fifo, lifo), and how many
     * of them got another message than in the measured run */
    uint64_t wildcard_recvs, rematched;
    up_wildcard wildcard;      /* the rule applied (AUTO resolved) */
    /* polling: spins collapsed, their failed poll calls that took no time,
     * completions moved to a later poll of an interleaved loop */
    uint64_t spins, polls_collapsed, completions_moved;
    /* a partitioned replay (up_replay_run_parts): crossings delivered, by kind */
    uint64_t x_msgs, x_posts, x_colls, x_ends, x_progs, x_rma, x_shared, x_bodies, x_teams, x_dev;
    uint64_t x_grants;
    /* task farms (fifo, lifo): sends found to reply to a wildcard receive
     * (marked by the tracer, or inferred), replies sent to the re-matched
     * source instead, and receives of a task whose work moved with it (or
     * could not be followed: left as measured) */
    uint64_t replies_marked, replies_inferred, retargeted, bodies_moved, bodies_lost;
    uint64_t unknown_records;
} up_replay_result;

/* Replays every record of `in`, timing it with `ops`/`model`, and writes it to
 * `out` (may be NULL: analysis only), telling `obs` (may be NULL) how it
 * goes.  Fills *res (free with up_replay_result_free). */
up_status up_replay_run(up_trace *in, up_writer *out, const up_model_ops *ops, void *model,
                        const up_replay_observer *obs, up_replay_result *res, up_err *err);

/* A partitioned replay (docs/design.md, "The seam"): np engine instances,
 * part k holding the locations l with owner[l] == k, each with its own
 * trace, writer and model (they share no state); what crosses between
 * parts goes as plain data through byte buffers, delivered late and
 * reordered by `seed`.  The results are merged into *res; each writer gets
 * the records of its part's locations.  For the partition test: a crossing
 * the seam does not carry yet is an error naming it. */
typedef struct up_replay_part {
    up_trace *in;
    up_writer *out;
    void *model;
} up_replay_part;

up_status up_replay_run_parts(const up_replay_part *parts, size_t np, const uint32_t *owner,
                              const up_model_ops *ops, const up_replay_observer *obs,
                              uint64_t seed, up_replay_result *res, up_err *err);
void up_replay_result_free(up_replay_result *res);

/* One line of a replay's repairs in a report. */
typedef struct up_repair_line {
    const up_repair_kind *kind;
    uint64_t n;
} up_repair_line;

#define UP_REPAIR_LINES_MAX (UP_REPAIR_COUNT + UP_MODEL_REPAIRS_MAX)

/* The repairs of r as reports list them, zero or not: the engine's kinds
 * in their order, each of the model's before the engine kind it names
 * (up_repair_kind.before).  Fills out[] (UP_REPAIR_LINES_MAX at most) and
 * returns how many. */
size_t up_replay_repairs(const up_replay_result *r, up_repair_line *out);

/* Helpers for reports: seconds of a tick difference. */
double up_ticks_s(const up_replay_result *r, uint64_t ticks);
/* The run time of the measured trace (end_m - start_m) and of the
 * approximated one (end_a - start_a, 0 when empty), in seconds. */
double up_replay_measured_s(const up_replay_result *r);
double up_replay_approximated_s(const up_replay_result *r);

#endif /* UNPERTURB_REPLAY_H */
