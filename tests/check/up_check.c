/*
 * up_check.c - up-check, a consistency checker for the OTF2 traces that
 * `unperturb compensate` writes.  A test utility, written independently of
 * the replay engine: it shares no code with src/, include/ or tools/ and
 * reads the archive with OTF2's global event reader only.
 *
 *   up-check [-q] OUT [--against IN]
 *
 * OUT and IN are experiment folders (DIR/traces.otf2) or anchor files.
 * Checks on OUT (tests/check/README.md has the rules in full):
 *   1. per location, timestamps never decrease;
 *   2. with --against IN: the same location ids, and per location the same
 *      number of records and the same sequence of record kinds;
 *   3. clock condition: every receive is at or after its send (sends and
 *      receives matched FIFO per sender, receiver, communicator and tag; a
 *      thread's MPI records count as its process's communicator rank);
 *   4. collectives: every End waits for the Begins its operation depends on
 *      (n-to-n, 1-to-n, n-to-1, prefix), blocking and nonblocking;
 *   5. threads: ThreadTeamBegin >= its ThreadFork, ThreadJoin >= every
 *      ThreadTeamEnd; ThreadBegin >= ThreadCreate, ThreadWait >= ThreadEnd.
 *   6. hybrid programs (MPI + OpenMP threads + GPU streams, as Score-P
 *      records them):
 *      barrier: no thread leaves an OpenMP team barrier (role BARRIER or
 *        IMPLICIT_BARRIER, paradigm OPENMP) before the team's last thread
 *        entered it; teams from ThreadTeamBegin/End, else (OMPT) from the
 *        attribute OMPT_PARALLEL_REGION_ID; nor a pthread barrier (role
 *        BARRIER, paradigm PTHREAD) before its instance's last enter, the
 *        barrier named by the attribute unperturb::object;
 *      lock: per process and lock, acquisition k+1 >= release k (Thread- and
 *        OmpAcquireLock/ReleaseLock, in acquisition order);
 *      device: a kernel or copy on an accelerator stream starts at or after
 *        the host call that issued it (paired in order, realigned at copies
 *        where the measurement lost records), and an OpenMP target region's
 *        device Enter at or after the host's outermost Enter of the region
 *        (paired in order per process and region); with --against, a
 *        violation only if earlier than in IN (clock skew), else a warning;
 *      device-overhead (with --against): kernel, copy and target activity
 *        durations on accelerator locations as in IN, within 1 tick.
 * Exit status: 0 all checks pass, 1 a violation, 2 usage or read error.
 *
 * The whole trace is loaded (9 bytes per record, plus 32-64 bytes per
 * message, collective, thread, barrier, lock or device record, and 24 bytes
 * per open Enter); fine for test traces.
 */
#include <otf2/otf2.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NONE UINT32_MAX
#define NO_WIN UINT32_MAX
#define MAX_EXAMPLES 5

/* ---- record kinds ---------------------------------------------------------
 * Every event record of OTF2 3.0, in the order of OTF2_GlobalEvtReaderCallbacks.h.
 * P(kind, its parameters): a callback that records only the kind and time.
 * S(kind): a callback written out below, which also keeps the record's fields. */
#define KINDS(P, S)                                                                       \
    P(BufferFlush, OTF2_TimeStamp a)                                                      \
    P(MeasurementOnOff, OTF2_MeasurementMode a)                                           \
    S(Enter)                                                                              \
    S(Leave)                                                                              \
    S(MpiSend)                                                                            \
    S(MpiIsend)                                                                           \
    P(MpiIsendComplete, uint64_t a)                                                       \
    P(MpiIrecvRequest, uint64_t a)                                                        \
    S(MpiRecv)                                                                            \
    S(MpiIrecv)                                                                           \
    P(MpiRequestTest, uint64_t a)                                                         \
    P(MpiRequestCancelled, uint64_t a)                                                    \
    S(MpiCollectiveBegin)                                                                 \
    S(MpiCollectiveEnd)                                                                   \
    S(OmpFork)                                                                            \
    S(OmpJoin)                                                                            \
    S(OmpAcquireLock)                                                                     \
    S(OmpReleaseLock)                                                                     \
    P(OmpTaskCreate, uint64_t a)                                                          \
    P(OmpTaskSwitch, uint64_t a)                                                          \
    P(OmpTaskComplete, uint64_t a)                                                        \
    P(Metric, OTF2_MetricRef a, uint8_t b, const OTF2_Type *c, const OTF2_MetricValue *d) \
    P(ParameterString, OTF2_ParameterRef a, OTF2_StringRef b)                             \
    P(ParameterInt, OTF2_ParameterRef a, int64_t b)                                       \
    P(ParameterUnsignedInt, OTF2_ParameterRef a, uint64_t b)                              \
    P(RmaWinCreate, OTF2_RmaWinRef a)                                                     \
    P(RmaWinDestroy, OTF2_RmaWinRef a)                                                    \
    S(RmaCollectiveBegin)                                                                 \
    S(RmaCollectiveEnd)                                                                   \
    P(RmaGroupSync, OTF2_RmaSyncLevel a, OTF2_RmaWinRef b, OTF2_GroupRef c)               \
    P(RmaRequestLock, OTF2_RmaWinRef a, uint32_t b, uint64_t c, OTF2_LockType d)          \
    P(RmaAcquireLock, OTF2_RmaWinRef a, uint32_t b, uint64_t c, OTF2_LockType d)          \
    P(RmaTryLock, OTF2_RmaWinRef a, uint32_t b, uint64_t c, OTF2_LockType d)              \
    P(RmaReleaseLock, OTF2_RmaWinRef a, uint32_t b, uint64_t c)                           \
    P(RmaSync, OTF2_RmaWinRef a, uint32_t b, OTF2_RmaSyncType c)                          \
    P(RmaWaitChange, OTF2_RmaWinRef a)                                                    \
    S(RmaPut)                                                                             \
    S(RmaGet)                                                                             \
    P(RmaAtomic, OTF2_RmaWinRef a, uint32_t b, OTF2_RmaAtomicType c, uint64_t d,          \
      uint64_t e, uint64_t f)                                                             \
    S(RmaOpCompleteBlocking)                                                              \
    P(RmaOpCompleteNonBlocking, OTF2_RmaWinRef a, uint64_t b)                             \
    P(RmaOpTest, OTF2_RmaWinRef a, uint64_t b)                                            \
    P(RmaOpCompleteRemote, OTF2_RmaWinRef a, uint64_t b)                                  \
    S(ThreadFork)                                                                         \
    S(ThreadJoin)                                                                         \
    S(ThreadTeamBegin)                                                                    \
    S(ThreadTeamEnd)                                                                      \
    S(ThreadAcquireLock)                                                                  \
    S(ThreadReleaseLock)                                                                  \
    P(ThreadTaskCreate, OTF2_CommRef a, uint32_t b, uint32_t c)                           \
    P(ThreadTaskSwitch, OTF2_CommRef a, uint32_t b, uint32_t c)                           \
    P(ThreadTaskComplete, OTF2_CommRef a, uint32_t b, uint32_t c)                         \
    S(ThreadCreate)                                                                       \
    S(ThreadBegin)                                                                        \
    S(ThreadWait)                                                                         \
    S(ThreadEnd)                                                                          \
    P(CallingContextEnter, OTF2_CallingContextRef a, uint32_t b)                          \
    P(CallingContextLeave, OTF2_CallingContextRef a)                                      \
    P(CallingContextSample, OTF2_CallingContextRef a, uint32_t b,                         \
      OTF2_InterruptGeneratorRef c)                                                       \
    P(IoCreateHandle, OTF2_IoHandleRef a, OTF2_IoAccessMode b, OTF2_IoCreationFlag c,     \
      OTF2_IoStatusFlag d)                                                                \
    P(IoDestroyHandle, OTF2_IoHandleRef a)                                                \
    P(IoDuplicateHandle, OTF2_IoHandleRef a, OTF2_IoHandleRef b, OTF2_IoStatusFlag c)     \
    P(IoSeek, OTF2_IoHandleRef a, int64_t b, OTF2_IoSeekOption c, uint64_t d)             \
    P(IoChangeStatusFlags, OTF2_IoHandleRef a, OTF2_IoStatusFlag b)                       \
    P(IoDeleteFile, OTF2_IoParadigmRef a, OTF2_IoFileRef b)                               \
    P(IoOperationBegin, OTF2_IoHandleRef a, OTF2_IoOperationMode b,                       \
      OTF2_IoOperationFlag c, uint64_t d, uint64_t e)                                     \
    P(IoOperationTest, OTF2_IoHandleRef a, uint64_t b)                                    \
    P(IoOperationIssued, OTF2_IoHandleRef a, uint64_t b)                                  \
    P(IoOperationComplete, OTF2_IoHandleRef a, uint64_t b, uint64_t c)                    \
    P(IoOperationCancelled, OTF2_IoHandleRef a, uint64_t b)                               \
    P(IoAcquireLock, OTF2_IoHandleRef a, OTF2_LockType b)                                 \
    P(IoReleaseLock, OTF2_IoHandleRef a, OTF2_LockType b)                                 \
    P(IoTryLock, OTF2_IoHandleRef a, OTF2_LockType b)                                     \
    P(ProgramBegin, OTF2_StringRef a, uint32_t b, const OTF2_StringRef *c)                \
    P(ProgramEnd, int64_t a)                                                              \
    S(NonBlockingCollectiveRequest)                                                       \
    S(NonBlockingCollectiveComplete)                                                      \
    P(CommCreate, OTF2_CommRef a)                                                         \
    P(CommDestroy, OTF2_CommRef a)

#define KIND_ENUM_P(name, ...) K_##name,
#define KIND_ENUM_S(name) K_##name,
enum { KINDS(KIND_ENUM_P, KIND_ENUM_S) K_Unknown, K_COUNT };

#define KIND_NAME_P(name, ...) #name,
#define KIND_NAME_S(name) #name,
static const char *const kind_names[K_COUNT] = {KINDS(KIND_NAME_P, KIND_NAME_S) "Unknown"};

/* ---- findings --------------------------------------------------------------
 * A class of violation or warning: a count and the first few examples. */
enum {
    V_TIME, V_LOCS, V_COUNT, V_KINDS, V_MSG, V_COLL, V_TEAM_BEGIN, V_TEAM_JOIN,
    V_THREAD_BEGIN, V_THREAD_WAIT, V_BARRIER, V_LOCK, V_DEVICE, V_DEVICE_OVERHEAD,
    W_FIRST,
    W_UNMATCHED_SEND = W_FIRST, W_UNMATCHED_RECV, W_COMM, W_COLL_UNPAIRED,
    W_COLL_INCOMPLETE, W_COLL_MISMATCH, W_COLL_ROOT, W_COLL_INTER, W_TEAM,
    W_THREAD_UNMATCHED, W_BARRIER_TEAM, W_BARRIER_AS_IN, W_LOCK_UNPAIRED, W_DEVICE_EARLY,
    W_DEVICE_UNPAIRED, W_UNKNOWN,
    N_CLASSES
};

static const struct {
    const char *id, *what;
} class_info[N_CLASSES] = {
    [V_TIME] = {"time", "timestamps that decrease on their location"},
    [V_LOCS] = {"locations", "locations not in both traces"},
    [V_COUNT] = {"count", "locations whose number of records differs"},
    [V_KINDS] = {"kinds", "locations whose sequence of record kinds differs"},
    [V_MSG] = {"message", "receives before their send"},
    [V_COLL] = {"collective", "collective ends before a begin they wait for"},
    [V_TEAM_BEGIN] = {"team-begin", "thread team begins before their fork"},
    [V_TEAM_JOIN] = {"team-join", "thread joins before a team member's end"},
    [V_THREAD_BEGIN] = {"thread-begin", "thread begins before their create"},
    [V_THREAD_WAIT] = {"thread-wait", "thread waits before the thread's end"},
    [V_BARRIER] = {"barrier", "threads that leave an OpenMP or pthread barrier before a member enters it"},
    [V_LOCK] = {"lock", "lock acquisitions before the previous holder's release"},
    [V_DEVICE] = {"device", "device activities that start before their launch (earlier than in IN)"},
    [V_DEVICE_OVERHEAD] = {"device-overhead", "device activities whose duration differs from IN"},
    [W_UNMATCHED_SEND] = {"unmatched-send", "sends without a receive"},
    [W_UNMATCHED_RECV] = {"unmatched-recv", "receives without a send"},
    [W_COMM] = {"comm", "records whose communicator or rank cannot be resolved"},
    [W_COLL_UNPAIRED] = {"coll-unpaired", "collective records without their begin/end or request/complete"},
    [W_COLL_INCOMPLETE] = {"coll-incomplete", "collective instances missing members"},
    [W_COLL_MISMATCH] = {"coll-mismatch", "collective instances whose members disagree on operation or root"},
    [W_COLL_ROOT] = {"coll-root", "rooted collectives without a valid root"},
    [W_COLL_INTER] = {"coll-inter", "collectives on intercommunicators (not checked)"},
    [W_TEAM] = {"team", "thread fork/team records that cannot be matched unambiguously"},
    [W_THREAD_UNMATCHED] = {"thread-unmatched", "thread create/begin/wait records without their partner"},
    [W_BARRIER_TEAM] = {"barrier-team", "barriers that cannot be grouped with their team's or barrier's"},
    [W_BARRIER_AS_IN] = {"barrier-as-in", "threads that leave an OpenMP or pthread barrier before a member enters it, as in IN"},
    [W_LOCK_UNPAIRED] = {"lock-unpaired", "lock acquisitions without their release, or acquired twice"},
    [W_DEVICE_EARLY] = {"device-early", "device activities that start before their launch (clock skew, as in IN)"},
    [W_DEVICE_UNPAIRED] = {"device-unpaired", "kernel launches and device activities left unpaired (lost records)"},
    [W_UNKNOWN] = {"unknown-record", "records of a kind unknown to this OTF2"},
};

typedef struct finding {
    uint64_t count;
    int nex;
    char ex[MAX_EXAMPLES][320];
} finding;

/* ---- the loaded trace ------------------------------------------------------ */
typedef struct nbreq {
    uint64_t id, t, idx;
} nbreq;

/* load-time state of hybrid programs (check 6) */
typedef struct frame {      /* an open Enter */
    uint64_t ompt;          /* OMPT_PARALLEL_REGION_ID of the innermost Enter carrying one */
    uint32_t bar;           /* the barrier this Enter opens (index into bars), or NONE */
    uint32_t act;           /* the kernel this Enter starts (index into acts), or NONE */
    uint32_t region;        /* the region entered */
    bool inbar;             /* inside a barrier region */
} frame;

typedef struct tframe {     /* an open thread team: communicator and instance */
    uint32_t comm;
    uint64_t inst;
} tframe;

typedef struct tcount {
    uint32_t comm;
    uint64_t n;
} tcount;

typedef struct pendcopy {   /* an RmaGet/RmaPut waiting for its RmaOpCompleteBlocking */
    uint32_t win, act;
    uint64_t match;
} pendcopy;

typedef struct loc {
    uint64_t id;
    uint64_t group;  /* its location group (process) */
    uint8_t ltype;   /* OTF2_LocationType */
    uint64_t n, cap;
    uint8_t *kind;   /* record kinds K_* */
    uint64_t *t;     /* timestamps */
    /* load-time state */
    bool cb_open;    /* a MpiCollectiveBegin waits for its End */
    uint64_t cb_t, cb_idx;
    bool rb_open;    /* an RmaCollectiveBegin (MPI_Win_fence) waits for its End */
    uint64_t rb_t, rb_idx;
    nbreq *req;      /* nonblocking collective requests not completed yet */
    size_t nreq, capreq;
    uint64_t *moved; /* records marked unperturb::poll = 2: completions that
                      * compensate moved to a later poll (docs/models.md) */
    size_t nmoved, capmoved;
    frame *stk;      /* open Enters */
    size_t nstk, capstk;
    tframe *team;    /* open thread teams */
    size_t nteam, capteam;
    tcount *tcnt;    /* ThreadTeamBegins so far, per team communicator */
    size_t ntcnt, captcnt;
    pendcopy *pc;    /* copies not completed yet */
    size_t npc, cappc;
} loc;

typedef struct lockey {
    uint64_t id;
    uint32_t idx;
} lockey;

typedef struct group {
    uint64_t id;
    uint8_t type;
    OTF2_Paradigm paradigm;
    OTF2_GroupFlag flags;
    uint32_t n;
    uint64_t *m;
} group;

typedef struct commdef {
    uint64_t id;
    bool inter;
    uint64_t ga, gb;
} commdef;

enum { C_UNDEF, C_INTRA, C_SELF, C_INTER, C_BAD };

typedef struct comm {
    uint64_t id;
    int kind;
    uint32_t nmem, nrank, nb;
    uint32_t *mem;       /* member locations (indices into locs) in rank order */
    uint32_t *rank2loc;  /* rank -> location; == mem unless GLOBAL_MEMBERS */
    uint32_t *memb;      /* intercommunicator: group B (mem is group A) */
    char why[160];       /* C_BAD: the reason */
} comm;

typedef struct p2p {
    uint32_t s, r, comm, tag;  /* sender and receiver: their communicator member locations */
    uint32_t at;               /* the location of the record (a thread of s or r) */
    uint64_t idx, t, gseq;     /* record index on its own location, time, global order */
} p2p;

typedef struct coll {
    uint32_t loc, comm, root;
    uint32_t win;              /* an RMA fence on this window, else NO_WIN */
    uint8_t op, nb;
    bool nobytes;              /* sent and received nothing (a count-0 MPI_Bcast) */
    uint64_t ib, ie, tb, te;   /* begin (or request) and end (or complete) */
    uint64_t seq;
} coll;

enum { T_FORK, T_JOIN, T_TBEGIN, T_TEND, T_CREATE, T_BEGIN, T_WAIT, T_END };

typedef struct thr {
    uint32_t loc, comm;
    uint8_t type;
    uint64_t seq, idx, t;
} thr;

/* ---- hybrid programs (check 6) */
typedef struct strdef {
    uint64_t id;
    char *s;
} strdef;

enum { R_BARRIER = 1, R_LAUNCH = 2, R_MEMCPY = 4, R_H2D = 8, R_D2H = 16, R_TARGET = 32,
       R_PBARRIER = 64 };

typedef struct regdef {
    uint64_t id, name;
    uint8_t role, paradigm, flags;  /* flags R_* */
} regdef;

typedef struct attrdef {
    uint64_t id, name;
    uint8_t type;
} attrdef;

enum { BM_TEAM, BM_OMPT, BM_PTHREAD };

typedef struct bar {        /* one thread's visit of an OpenMP or pthread barrier */
    uint8_t mode;           /* BM_TEAM: team communicator a, instance b; BM_OMPT:
                             * process a (location group), parallel region id b;
                             * BM_PTHREAD: process a, barrier (unperturb::object) b */
    bool left;
    uint32_t loc;
    uint64_t a, b, j;       /* j: the location's j-th barrier in that team */
    uint64_t ie, te, il, tl;
} bar;

typedef struct lockrec {
    uint64_t group;
    uint32_t loc, lock, order;
    uint8_t model;
    bool rel;
    uint64_t idx, t;
} lockrec;

enum { A_KERNEL, A_GET, A_PUT, A_TARGET };

typedef struct act {        /* an activity on an accelerator location */
    uint32_t loc;
    uint32_t region;        /* A_KERNEL, A_TARGET: the region entered */
    uint8_t type;           /* A_* */
    bool ended;
    uint64_t idx, t, iend, tend;
} act;

enum { H_LAUNCH, H_MEMCPY, H_TARGET };

typedef struct hostcall {   /* a kernel launch, a memory copy call or the outermost
                             * Enter of an OpenMP target region on a CPU location */
    uint32_t loc;
    uint32_t region;        /* the region entered */
    uint8_t type, flags;    /* H_*; region flags R_H2D, R_D2H */
    bool hasstream;
    uint64_t stream;        /* CUDA_STREAM_REF: a location id */
    uint64_t group, idx, t, gseq;
} hostcall;

typedef struct trace {
    const char *label;   /* as the user named it */
    char *anchor;
    bool full;           /* keep messages, collectives, threads */
    size_t nlocs;
    loc *locs;           /* in definition order */
    lockey *byid;        /* sorted by id */
    uint32_t last;       /* location of the last record (lookup cache) */
    size_t ngroups, ncommdefs, ncomms;
    group *groups;
    commdef *commdefs;
    comm *comms;         /* sorted by id */
    uint64_t *wins;      /* RMA windows: id << 32 | communicator */
    size_t nwins, capwins;
    p2p *send, *recv;
    size_t nsend, nrecv, capsend, caprecv;
    coll *coll;
    size_t ncoll, capcoll;
    thr *thr;
    size_t nthr, capthr;
    uint64_t nrec;
    /* the attribute "unperturb::poll" (UINT8), if defined */
    OTF2_StringRef pollname[4];
    size_t npollname;
    bool has_pollattr;
    OTF2_AttributeRef pollattr;
    bool bad;            /* a callback failed; err says why */
    char err[512];
    /* hybrid programs */
    strdef *strs;
    size_t nstrs, capstrs;
    regdef *regs;        /* sorted by id after the definitions */
    size_t nregs, capregs;
    attrdef *attrs;
    size_t nattrs, capattrs;
    bool has_ompt, has_stream, has_pobj;
    OTF2_AttributeRef ompt_attr, stream_attr, pobj_attr;
    uint32_t *rep;       /* per location: the location that stands for its process
                          * in MPI communicators (itself, or its process's MPI location) */
    bar *bars;
    size_t nbars, capbars;
    bar *bviol;          /* the barrier visits that broke the rule (check_barriers) */
    size_t nbviol, capbviol;
    lockrec *locks;
    size_t nlocks, caplocks;
    act *acts;
    size_t nacts, capacts;
    hostcall *hcs;
    size_t nhcs, caphcs;
    /* results */
    finding f[N_CLASSES];
    uint64_t messages, collectives, forks, threads, barriers, lockpairs, devpaired;
} trace;

static char otf2_msg[512];

static OTF2_ErrorCode on_otf2_error(void *ud, const char *file, uint64_t line, const char *fn,
                                    OTF2_ErrorCode code, const char *fmt, va_list va)
{
    (void)ud, (void)file, (void)line, (void)fn;
    vsnprintf(otf2_msg, sizeof otf2_msg, fmt, va);
    return code;
}

static const char *otf2_why(OTF2_ErrorCode rc)
{
    return otf2_msg[0] ? otf2_msg : OTF2_Error_GetDescription(rc);
}

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fprintf(stderr, "up-check: out of memory\n");
        exit(2);
    }
    return q;
}

/* qsort, but an empty array may be NULL */
static void sort_n(void *a, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(a, n, size, cmp);
}

#define GROW(arr, n, cap)                                                       \
    do {                                                                        \
        if ((n) == (cap)) {                                                     \
            (cap) = (cap) ? 2 * (cap) : 64;                                     \
            (arr) = xrealloc((arr), (cap) * sizeof *(arr));                     \
        }                                                                       \
    } while (0)

static void note(trace *tr, int cls, const char *fmt, ...)
{
    finding *f = &tr->f[cls];
    f->count++;
    if (f->nex < MAX_EXAMPLES) {
        va_list va;
        va_start(va, fmt);
        vsnprintf(f->ex[f->nex++], sizeof f->ex[0], fmt, va);
        va_end(va);
    }
}

/* ---- definitions ----------------------------------------------------------- */
static OTF2_CallbackCode def_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
                                      OTF2_LocationType type, uint64_t nev,
                                      OTF2_LocationGroupRef lg)
{
    trace *tr = ud;
    (void)name;
    tr->locs = xrealloc(tr->locs, (tr->nlocs + 1) * sizeof *tr->locs);
    memset(&tr->locs[tr->nlocs], 0, sizeof *tr->locs);
    tr->locs[tr->nlocs].id = self;
    tr->locs[tr->nlocs].group = lg;
    tr->locs[tr->nlocs].ltype = (uint8_t)type;
    if (nev > 0 && nev < (1u << 26)) {  /* a hint only; never trust it for much */
        tr->locs[tr->nlocs].cap = nev;
        tr->locs[tr->nlocs].kind = xrealloc(NULL, nev);
        tr->locs[tr->nlocs].t = xrealloc(NULL, nev * sizeof(uint64_t));
    }
    tr->nlocs++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name,
                                   OTF2_GroupType type, OTF2_Paradigm paradigm,
                                   OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    trace *tr = ud;
    group *g;
    (void)name;
    tr->groups = xrealloc(tr->groups, (tr->ngroups + 1) * sizeof *tr->groups);
    g = &tr->groups[tr->ngroups++];
    g->id = self;
    g->type = type;
    g->paradigm = paradigm;
    g->flags = flags;
    g->n = n;
    g->m = xrealloc(NULL, n * sizeof *g->m);
    if (n)
        memcpy(g->m, members, n * sizeof *g->m);
    return OTF2_CALLBACK_SUCCESS;
}

static void add_commdef(trace *tr, uint64_t id, bool inter, uint64_t ga, uint64_t gb)
{
    commdef *c;
    tr->commdefs = xrealloc(tr->commdefs, (tr->ncommdefs + 1) * sizeof *tr->commdefs);
    c = &tr->commdefs[tr->ncommdefs++];
    c->id = id;
    c->inter = inter;
    c->ga = ga;
    c->gb = gb;
}

static OTF2_CallbackCode def_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name,
                                  OTF2_GroupRef group_, OTF2_CommRef parent, OTF2_CommFlag flags)
{
    (void)name, (void)parent, (void)flags;
    add_commdef(ud, self, false, group_, OTF2_UNDEFINED_GROUP);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_rmawin(void *ud, OTF2_RmaWinRef self, OTF2_StringRef name,
                                    OTF2_CommRef c, OTF2_RmaWinFlag flags)
{
    trace *tr = ud;
    (void)name, (void)flags;
    GROW(tr->wins, tr->nwins, tr->capwins);
    tr->wins[tr->nwins++] = (uint64_t)self << 32 | c;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_string(void *ud, OTF2_StringRef self, const char *s)
{
    trace *tr = ud;
    size_t n = strlen(s);
    if (!strcmp(s, "unperturb::poll") && tr->npollname < 4)
        tr->pollname[tr->npollname++] = self;
    GROW(tr->strs, tr->nstrs, tr->capstrs);
    tr->strs[tr->nstrs].id = self;
    tr->strs[tr->nstrs].s = xrealloc(NULL, n + 1);
    memcpy(tr->strs[tr->nstrs++].s, s, n + 1);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_attribute(void *ud, OTF2_AttributeRef self, OTF2_StringRef name,
                                       OTF2_StringRef desc, OTF2_Type type)
{
    trace *tr = ud;
    size_t i;
    (void)desc;
    for (i = 0; i < tr->npollname; i++)
        if (name == tr->pollname[i] && type == OTF2_TYPE_UINT8 && !tr->has_pollattr)
            tr->has_pollattr = true, tr->pollattr = self;
    GROW(tr->attrs, tr->nattrs, tr->capattrs);
    tr->attrs[tr->nattrs].id = self;
    tr->attrs[tr->nattrs].name = name;
    tr->attrs[tr->nattrs++].type = type;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name,
                                    OTF2_StringRef cname, OTF2_StringRef desc, OTF2_RegionRole role,
                                    OTF2_Paradigm paradigm, OTF2_RegionFlag flags, OTF2_StringRef file,
                                    uint32_t begin, uint32_t end)
{
    trace *tr = ud;
    (void)cname, (void)desc, (void)flags, (void)file, (void)begin, (void)end;
    GROW(tr->regs, tr->nregs, tr->capregs);
    tr->regs[tr->nregs].id = self;
    tr->regs[tr->nregs].name = name;
    tr->regs[tr->nregs].role = role;
    tr->regs[tr->nregs].paradigm = paradigm;
    tr->regs[tr->nregs++].flags = 0;
    return OTF2_CALLBACK_SUCCESS;
}

static int cmp_strdef(const void *a, const void *b)
{
    const strdef *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_regdef(const void *a, const void *b)
{
    const regdef *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

static const char *string_of(const trace *tr, uint64_t id)
{
    strdef key, *x;
    key.id = id;
    x = tr->nstrs ? bsearch(&key, tr->strs, tr->nstrs, sizeof *tr->strs, cmp_strdef) : NULL;
    return x ? x->s : "";
}

/* After the definitions (which may reference forward): the region classes
 * and attributes that the rules of hybrid programs use (check 6). */
static void resolve_hybrid_defs(trace *tr)
{
    size_t i;
    sort_n(tr->strs, tr->nstrs, sizeof *tr->strs, cmp_strdef);
    for (i = 0; i < tr->nregs; i++) {
        regdef *r = &tr->regs[i];
        const char *name = string_of(tr, r->name);
        if ((r->role == OTF2_REGION_ROLE_BARRIER || r->role == OTF2_REGION_ROLE_IMPLICIT_BARRIER) &&
            r->paradigm == OTF2_PARADIGM_OPENMP)
            r->flags |= R_BARRIER;
        if (r->role == OTF2_REGION_ROLE_BARRIER && r->paradigm == OTF2_PARADIGM_PTHREAD)
            r->flags |= R_PBARRIER;  /* pthread_barrier_wait (docs/tracer.md) */
        if (r->paradigm == OTF2_PARADIGM_CUDA && strstr(name, "Launch"))
            r->flags |= R_LAUNCH;
        if (r->paradigm == OTF2_PARADIGM_CUDA && strstr(name, "Memcpy")) {
            r->flags |= R_MEMCPY;
            if (strstr(name, "HtoD"))
                r->flags |= R_H2D;
            if (strstr(name, "DtoH"))
                r->flags |= R_D2H;
        }
        /* OpenMP offloading (Score-P): target, targetmap, targetupdate; a
         * target data region issues no device activity */
        if (!strncmp(name, "!$omp target", 12) && strncmp(name, "!$omp targetdata", 16))
            r->flags |= R_TARGET;
    }
    sort_n(tr->regs, tr->nregs, sizeof *tr->regs, cmp_regdef);
    for (i = 0; i < tr->nattrs; i++) {
        const attrdef *a = &tr->attrs[i];
        const char *name = string_of(tr, a->name);
        if (!tr->has_ompt && a->type == OTF2_TYPE_UINT64 && !strcmp(name, "OMPT_PARALLEL_REGION_ID"))
            tr->has_ompt = true, tr->ompt_attr = (OTF2_AttributeRef)a->id;
        if (!tr->has_stream && a->type == OTF2_TYPE_LOCATION && !strcmp(name, "CUDA_STREAM_REF"))
            tr->has_stream = true, tr->stream_attr = (OTF2_AttributeRef)a->id;
        if (!tr->has_pobj && a->type == OTF2_TYPE_UINT32 && !strcmp(name, "unperturb::object"))
            tr->has_pobj = true, tr->pobj_attr = (OTF2_AttributeRef)a->id;
    }
}

static uint8_t region_flags(const trace *tr, uint64_t id)
{
    regdef key, *x;
    key.id = id;
    x = tr->nregs ? bsearch(&key, tr->regs, tr->nregs, sizeof *tr->regs, cmp_regdef) : NULL;
    return x ? x->flags : 0;
}

static OTF2_CallbackCode def_intercomm(void *ud, OTF2_CommRef self, OTF2_StringRef name,
                                       OTF2_GroupRef ga, OTF2_GroupRef gb, OTF2_CommRef common,
                                       OTF2_CommFlag flags)
{
    (void)name, (void)common, (void)flags;
    add_commdef(ud, self, true, ga, gb);
    return OTF2_CALLBACK_SUCCESS;
}

static int cmp_lockey(const void *a, const void *b)
{
    const lockey *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

static uint32_t loc_index(const trace *tr, uint64_t id)
{
    size_t lo = 0, hi = tr->nlocs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (tr->byid[mid].id == id)
            return tr->byid[mid].idx;
        if (tr->byid[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NONE;
}

static const group *group_by_id(const trace *tr, uint64_t id)
{
    size_t i;
    for (i = 0; i < tr->ngroups; i++)
        if (tr->groups[i].id == id)
            return &tr->groups[i];
    return NULL;
}

/* The COMM_LOCATIONS group of a paradigm: the largest one, since some
 * Score-P versions define an empty second one for the same paradigm. */
static const group *comm_locations(const trace *tr, OTF2_Paradigm p)
{
    const group *best = NULL;
    size_t i;
    for (i = 0; i < tr->ngroups; i++) {
        const group *g = &tr->groups[i];
        if (g->type == OTF2_GROUP_TYPE_COMM_LOCATIONS && g->paradigm == p &&
            (!best || g->n > best->n))
            best = g;
    }
    return best;
}

/* Resolves a group's members to location indices; returns false with c->why. */
static bool group_locations(const trace *tr, comm *c, const group *g, uint32_t **out, uint32_t *n,
                            uint32_t **rank2loc, uint32_t *nrank)
{
    const group *cl = NULL;
    uint32_t i;
    *out = NULL;
    *n = 0;
    if (rank2loc)
        *rank2loc = NULL;
    if (g->type == OTF2_GROUP_TYPE_COMM_GROUP) {
        if (!(cl = comm_locations(tr, g->paradigm))) {
            snprintf(c->why, sizeof c->why, "group %" PRIu64 " has no COMM_LOCATIONS group of its paradigm %u",
                     g->id, (unsigned)g->paradigm);
            return false;
        }
    } else if (g->type != OTF2_GROUP_TYPE_COMM_LOCATIONS && g->type != OTF2_GROUP_TYPE_LOCATIONS) {
        snprintf(c->why, sizeof c->why, "group %" PRIu64 " has type %u, not a communicator group",
                 g->id, (unsigned)g->type);
        return false;
    }
    *out = xrealloc(NULL, g->n * sizeof **out);
    for (i = 0; i < g->n; i++) {
        uint64_t id = g->m[i];
        if (cl) {
            if (g->m[i] >= cl->n) {
                snprintf(c->why, sizeof c->why, "group %" PRIu64 " member %" PRIu64
                         " is past the end of COMM_LOCATIONS group %" PRIu64 " (%u members)",
                         g->id, g->m[i], cl->id, cl->n);
                goto bad;
            }
            id = cl->m[g->m[i]];
        }
        if (((*out)[i] = loc_index(tr, id)) == NONE) {
            snprintf(c->why, sizeof c->why, "group %" PRIu64 " names location %" PRIu64
                     ", which is not defined", g->id, id);
            goto bad;
        }
    }
    *n = g->n;
    if (rank2loc) {
        *rank2loc = *out;
        *nrank = *n;
        if (cl && (g->flags & OTF2_GROUP_FLAG_GLOBAL_MEMBERS)) {
            /* ranks in the events index the COMM_LOCATIONS group directly */
            *rank2loc = xrealloc(NULL, cl->n * sizeof **rank2loc);
            *nrank = cl->n;
            for (i = 0; i < cl->n; i++)
                if (((*rank2loc)[i] = loc_index(tr, cl->m[i])) == NONE) {
                    snprintf(c->why, sizeof c->why, "group %" PRIu64 " names location %" PRIu64
                             ", which is not defined", cl->id, cl->m[i]);
                    free(*rank2loc);
                    *rank2loc = NULL;
                    goto bad;
                }
        }
    }
    return true;
bad:
    free(*out);
    *out = NULL;
    *n = 0;
    return false;
}

static int cmp_comm(const void *a, const void *b)
{
    const comm *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

static void resolve_comms(trace *tr)
{
    size_t i;
    tr->comms = xrealloc(NULL, tr->ncommdefs * sizeof *tr->comms);
    tr->ncomms = tr->ncommdefs;
    for (i = 0; i < tr->ncommdefs; i++) {
        const commdef *d = &tr->commdefs[i];
        comm *c = &tr->comms[i];
        const group *ga = group_by_id(tr, d->ga);
        memset(c, 0, sizeof *c);
        c->id = d->id;
        c->kind = C_BAD;
        if (!ga) {
            snprintf(c->why, sizeof c->why, "its group %" PRIu64 " is not defined", d->ga);
            continue;
        }
        if (d->inter) {
            const group *gb = group_by_id(tr, d->gb);
            uint32_t nb;
            if (!gb) {
                snprintf(c->why, sizeof c->why, "its group %" PRIu64 " is not defined", d->gb);
                continue;
            }
            if (group_locations(tr, c, ga, &c->mem, &c->nmem, NULL, NULL)) {
                if (group_locations(tr, c, gb, &c->memb, &nb, NULL, NULL)) {
                    c->nb = nb;
                    c->kind = C_INTER;
                } else {
                    free(c->mem);
                    c->mem = NULL;
                    c->nmem = 0;
                }
            }
            continue;
        }
        if (ga->type == OTF2_GROUP_TYPE_COMM_SELF) {
            c->kind = C_SELF;
            continue;
        }
        if (group_locations(tr, c, ga, &c->mem, &c->nmem, &c->rank2loc, &c->nrank))
            c->kind = C_INTRA;
    }
    sort_n(tr->comms, tr->ncomms, sizeof *tr->comms, cmp_comm);
}

static const comm *comm_by_id(const trace *tr, uint64_t id)
{
    comm key;
    key.id = id;
    return tr->ncomms ? bsearch(&key, tr->comms, tr->ncomms, sizeof *tr->comms, cmp_comm) : NULL;
}

static uint32_t find_in(const uint32_t *a, uint32_t n, uint32_t x)
{
    uint32_t i;
    for (i = 0; i < n; i++)
        if (a[i] == x)
            return i;
    return NONE;
}

/* The location of `rank` in communicator `cid`, seen from location `self`;
 * NONE with a warning when it cannot be resolved. */
static uint32_t rank_location(trace *tr, uint32_t self, uint32_t at, uint32_t cid, uint32_t rank,
                              const char *kind, uint64_t idx)
{
    const comm *c = comm_by_id(tr, cid);
    const char *why = NULL;
    char buf[64];
    if (!c)
        why = "communicator not defined";
    else if (c->kind == C_BAD)
        why = c->why;
    else if (c->kind == C_SELF) {
        if (rank == 0)
            return self;
        why = "rank of a self communicator is not 0";
    } else if (c->kind == C_INTRA) {
        if (rank < c->nrank)
            return c->rank2loc[rank];
        snprintf(buf, sizeof buf, "rank past the communicator's %u ranks", c->nrank);
        why = buf;
    } else if (c->kind == C_INTER) {
        if (find_in(c->mem, c->nmem, self) != NONE && rank < c->nb)
            return c->memb[rank];
        if (find_in(c->memb, c->nb, self) != NONE && rank < c->nmem)
            return c->mem[rank];
        why = "location not in the intercommunicator, or rank out of range";
    }
    note(tr, W_COMM, "location %" PRIu64 " record %" PRIu64 " (%s): communicator %u rank %u: %s",
         tr->locs[at].id, idx, kind, cid, rank, why);
    return NONE;
}

typedef struct grouploc {
    uint64_t group;
    uint32_t loc;
} grouploc;

static int cmp_grouploc(const void *a, const void *b)
{
    const grouploc *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    return x->loc < y->loc ? -1 : x->loc > y->loc;
}

/* MPI calls can be recorded on any thread of a process, but communicators
 * list the processes' MPI locations (their master threads).  Each location
 * stands in communicators for the MPI location of its location group (the
 * first one in definition order), or for itself: in a pure MPI trace every
 * location stands for itself. */
static void resolve_reps(trace *tr)
{
    const group *mpi = comm_locations(tr, OTF2_PARADIGM_MPI);
    grouploc *gl = NULL;
    bool *ismpi;
    size_t i, n = 0;
    tr->rep = xrealloc(NULL, tr->nlocs * sizeof *tr->rep);
    for (i = 0; i < tr->nlocs; i++)
        tr->rep[i] = (uint32_t)i;
    if (!mpi || !mpi->n)
        return;
    ismpi = xrealloc(NULL, tr->nlocs * sizeof *ismpi);
    memset(ismpi, 0, tr->nlocs * sizeof *ismpi);
    gl = xrealloc(NULL, mpi->n * sizeof *gl);
    for (i = 0; i < mpi->n; i++) {
        uint32_t li = loc_index(tr, mpi->m[i]);
        if (li == NONE || ismpi[li])
            continue;
        ismpi[li] = true;
        if (tr->locs[li].group == OTF2_UNDEFINED_LOCATION_GROUP)
            continue;
        gl[n].group = tr->locs[li].group;
        gl[n++].loc = li;
    }
    sort_n(gl, n, sizeof *gl, cmp_grouploc);
    for (i = 0; i < tr->nlocs; i++) {
        size_t lo = 0, hi = n;
        if (ismpi[i] || tr->locs[i].group == OTF2_UNDEFINED_LOCATION_GROUP)
            continue;
        while (lo < hi) {  /* the first entry of the group */
            size_t mid = lo + (hi - lo) / 2;
            if (gl[mid].group < tr->locs[i].group)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < n && gl[lo].group == tr->locs[i].group)
            tr->rep[i] = gl[lo].loc;
    }
    free(gl);
    free(ismpi);
}

/* ---- events ---------------------------------------------------------------- */
/* Appends a record to its location; returns the location index or NONE. */
static uint32_t rec(trace *tr, OTF2_LocationRef id, OTF2_TimeStamp t, int kind, uint64_t *idx)
{
    uint32_t li = tr->last;
    loc *l;
    if (li >= tr->nlocs || tr->locs[li].id != id) {
        if ((li = loc_index(tr, id)) == NONE) {
            if (!tr->bad)
                snprintf(tr->err, sizeof tr->err, "an event of location %" PRIu64
                         ", which is not defined", id);
            tr->bad = true;
            return NONE;
        }
        tr->last = li;
    }
    l = &tr->locs[li];
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->kind = xrealloc(l->kind, l->cap);
        l->t = xrealloc(l->t, l->cap * sizeof *l->t);
    }
    l->kind[l->n] = (uint8_t)kind;
    l->t[l->n] = t;
    *idx = l->n++;
    tr->nrec++;
    return li;
}

#define CB_RESULT(tr) ((tr)->bad ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS)
#define EV_HDR OTF2_LocationRef lid, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al

static OTF2_CallbackCode plain(void *ud, OTF2_LocationRef lid, OTF2_TimeStamp t, int kind)
{
    uint64_t idx;
    rec(ud, lid, t, kind, &idx);
    return CB_RESULT((trace *)ud);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define PLAIN_CB_P(name, ...)                                                   \
    static OTF2_CallbackCode on_##name(EV_HDR, __VA_ARGS__)                     \
    {                                                                           \
        return plain(ud, lid, t, K_##name);                                     \
    }
#define PLAIN_CB_S(name)
KINDS(PLAIN_CB_P, PLAIN_CB_S)

static OTF2_CallbackCode on_Unknown(EV_HDR)
{
    trace *tr = ud;
    uint64_t idx;
    uint32_t li = rec(tr, lid, t, K_Unknown, &idx);
    if (li != NONE)
        note(tr, W_UNKNOWN, "location %" PRIu64 " record %" PRIu64 " t=%" PRIu64,
             tr->locs[li].id, idx, (uint64_t)t);
    return CB_RESULT(tr);
}

/* MPI_Win_fence: a barrier on the window's communicator, numbered per window */
static OTF2_CallbackCode on_RmaCollectiveBegin(EV_HDR)
{
    trace *tr = ud;
    uint64_t idx;
    uint32_t li = rec(tr, lid, t, K_RmaCollectiveBegin, &idx);
    (void)al;
    if (li != NONE && tr->full) {
        loc *l = &tr->locs[li];
        if (l->rb_open)
            note(tr, W_COLL_UNPAIRED, "location %" PRIu64 " record %" PRIu64
                 " (RmaCollectiveBegin) t=%" PRIu64 ": no RmaCollectiveEnd before the next begin",
                 l->id, l->rb_idx, l->rb_t);
        l->rb_open = true;
        l->rb_t = t;
        l->rb_idx = idx;
    }
    return CB_RESULT(tr);
}
#pragma GCC diagnostic pop

static void p2p_event(trace *tr, OTF2_LocationRef lid, OTF2_TimeStamp t, int kind, bool is_recv,
                      uint32_t peer, OTF2_CommRef c, uint32_t tag)
{
    uint64_t idx, gseq = tr->nrec;
    uint32_t li = rec(tr, lid, t, kind, &idx), other, self;
    p2p *m;
    if (li == NONE || !tr->full)
        return;
    self = tr->rep[li];
    if ((other = rank_location(tr, self, li, c, peer, kind_names[kind], idx)) == NONE)
        return;
    if (is_recv) {
        GROW(tr->recv, tr->nrecv, tr->caprecv);
        m = &tr->recv[tr->nrecv++];
        m->s = other;
        m->r = self;
    } else {
        GROW(tr->send, tr->nsend, tr->capsend);
        m = &tr->send[tr->nsend++];
        m->s = self;
        m->r = other;
    }
    m->at = li;
    m->comm = c;
    m->tag = tag;
    m->idx = idx;
    m->t = t;
    m->gseq = gseq;
}

static OTF2_CallbackCode on_MpiSend(EV_HDR, uint32_t receiver, OTF2_CommRef c, uint32_t tag,
                                    uint64_t len)
{
    (void)al, (void)len;
    p2p_event(ud, lid, t, K_MpiSend, false, receiver, c, tag);
    return CB_RESULT((trace *)ud);
}

static OTF2_CallbackCode on_MpiIsend(EV_HDR, uint32_t receiver, OTF2_CommRef c, uint32_t tag,
                                     uint64_t len, uint64_t req)
{
    (void)al, (void)len, (void)req;
    p2p_event(ud, lid, t, K_MpiIsend, false, receiver, c, tag);
    return CB_RESULT((trace *)ud);
}

static OTF2_CallbackCode on_MpiRecv(EV_HDR, uint32_t sender, OTF2_CommRef c, uint32_t tag,
                                    uint64_t len)
{
    (void)al, (void)len;
    p2p_event(ud, lid, t, K_MpiRecv, true, sender, c, tag);
    return CB_RESULT((trace *)ud);
}

static OTF2_CallbackCode on_MpiIrecv(EV_HDR, uint32_t sender, OTF2_CommRef c, uint32_t tag,
                                     uint64_t len, uint64_t req)
{
    trace *tr = ud;
    uint8_t v;
    (void)len, (void)req;
    p2p_event(ud, lid, t, K_MpiIrecv, true, sender, c, tag);
    if (tr->has_pollattr && al && tr->last < tr->nlocs &&
        OTF2_AttributeList_GetUint8(al, tr->pollattr, &v) == OTF2_SUCCESS && v == 2) {
        loc *l = &tr->locs[tr->last];
        GROW(l->moved, l->nmoved, l->capmoved);
        l->moved[l->nmoved++] = l->n - 1;
    }
    return CB_RESULT((trace *)ud);
}

static OTF2_CallbackCode on_MpiCollectiveBegin(EV_HDR)
{
    trace *tr = ud;
    uint64_t idx;
    uint32_t li = rec(tr, lid, t, K_MpiCollectiveBegin, &idx);
    (void)al;
    if (li != NONE && tr->full) {
        loc *l = &tr->locs[li];
        if (l->cb_open)
            note(tr, W_COLL_UNPAIRED, "location %" PRIu64 " record %" PRIu64
                 " (MpiCollectiveBegin) t=%" PRIu64 ": no MpiCollectiveEnd before the next begin",
                 l->id, l->cb_idx, l->cb_t);
        l->cb_open = true;
        l->cb_t = t;
        l->cb_idx = idx;
    }
    return CB_RESULT(tr);
}

static void add_coll(trace *tr, uint32_t li, uint64_t ib, uint64_t tb, uint64_t ie, uint64_t te,
                     OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root, bool nb)
{
    coll *x;
    GROW(tr->coll, tr->ncoll, tr->capcoll);
    x = &tr->coll[tr->ncoll++];
    x->loc = li;
    x->comm = c;
    x->root = root;
    x->op = op;
    x->nb = nb;
    x->ib = ib;
    x->tb = tb;
    x->ie = ie;
    x->te = te;
    x->seq = 0;
    x->win = NO_WIN;
    x->nobytes = false;
}

static OTF2_CallbackCode on_RmaCollectiveEnd(EV_HDR, OTF2_CollectiveOp op, OTF2_RmaSyncLevel lvl,
                                             OTF2_RmaWinRef w, uint32_t root, uint64_t sent,
                                             uint64_t received)
{
    trace *tr = ud;
    uint64_t idx;
    uint32_t li = rec(tr, lid, t, K_RmaCollectiveEnd, &idx);
    size_t i;
    (void)al, (void)lvl, (void)sent, (void)received;
    if (li != NONE && tr->full) {
        loc *l = &tr->locs[li];
        for (i = 0; i < tr->nwins && tr->wins[i] >> 32 != w; i++)
            ;
        if (!l->rb_open) {
            note(tr, W_COLL_UNPAIRED, "location %" PRIu64 " record %" PRIu64
                 " (RmaCollectiveEnd) t=%" PRIu64 ": no RmaCollectiveBegin", l->id, idx, (uint64_t)t);
        } else if (i == tr->nwins) {
            note(tr, W_COMM, "location %" PRIu64 " record %" PRIu64
                 " (RmaCollectiveEnd) t=%" PRIu64 ": window %u is not defined", l->id, idx,
                 (uint64_t)t, (unsigned)w);
        } else {
            add_coll(tr, li, l->rb_idx, l->rb_t, idx, t, op, (uint32_t)tr->wins[i], root, false);
            tr->coll[tr->ncoll - 1].win = w;
        }
        l->rb_open = false;
    }
    return CB_RESULT(tr);
}

static OTF2_CallbackCode on_MpiCollectiveEnd(EV_HDR, OTF2_CollectiveOp op, OTF2_CommRef c,
                                             uint32_t root, uint64_t sent, uint64_t received)
{
    trace *tr = ud;
    uint64_t idx;
    uint32_t li = rec(tr, lid, t, K_MpiCollectiveEnd, &idx);
    (void)al;
    if (li != NONE && tr->full) {
        loc *l = &tr->locs[li];
        if (!l->cb_open)
            note(tr, W_COLL_UNPAIRED, "location %" PRIu64 " record %" PRIu64
                 " (MpiCollectiveEnd) t=%" PRIu64 ": no MpiCollectiveBegin", l->id, idx, (uint64_t)t);
        else {
            add_coll(tr, li, l->cb_idx, l->cb_t, idx, t, op, c, root, false);
            tr->coll[tr->ncoll - 1].nobytes = !sent && !received;
        }
        l->cb_open = false;
    }
    return CB_RESULT(tr);
}

static OTF2_CallbackCode on_NonBlockingCollectiveRequest(EV_HDR, uint64_t req)
{
    trace *tr = ud;
    uint64_t idx;
    uint32_t li = rec(tr, lid, t, K_NonBlockingCollectiveRequest, &idx);
    (void)al;
    if (li != NONE && tr->full) {
        loc *l = &tr->locs[li];
        GROW(l->req, l->nreq, l->capreq);
        l->req[l->nreq].id = req;
        l->req[l->nreq].t = t;
        l->req[l->nreq].idx = idx;
        l->nreq++;
    }
    return CB_RESULT(tr);
}

static OTF2_CallbackCode on_NonBlockingCollectiveComplete(EV_HDR, OTF2_CollectiveOp op,
                                                          OTF2_CommRef c, uint32_t root,
                                                          uint64_t sent, uint64_t received,
                                                          uint64_t req)
{
    trace *tr = ud;
    uint64_t idx;
    uint32_t li = rec(tr, lid, t, K_NonBlockingCollectiveComplete, &idx);
    (void)al, (void)sent, (void)received;
    if (li != NONE && tr->full) {
        loc *l = &tr->locs[li];
        size_t i;
        for (i = 0; i < l->nreq && l->req[i].id != req; i++)
            ;
        if (i == l->nreq) {
            note(tr, W_COLL_UNPAIRED, "location %" PRIu64 " record %" PRIu64
                 " (NonBlockingCollectiveComplete) t=%" PRIu64 ": no request %" PRIu64,
                 l->id, idx, (uint64_t)t, req);
        } else {
            add_coll(tr, li, l->req[i].idx, l->req[i].t, idx, t, op, c, root, true);
            l->req[i] = l->req[--l->nreq];
        }
    }
    return CB_RESULT(tr);
}

static void thr_event(trace *tr, OTF2_LocationRef lid, OTF2_TimeStamp t, int kind, int type,
                      uint32_t c, uint64_t seq)
{
    uint64_t idx;
    uint32_t li = rec(tr, lid, t, kind, &idx);
    thr *x;
    if (li == NONE || !tr->full)
        return;
    GROW(tr->thr, tr->nthr, tr->capthr);
    x = &tr->thr[tr->nthr++];
    x->loc = li;
    x->comm = c;
    x->type = (uint8_t)type;
    x->seq = seq;
    x->idx = idx;
    x->t = t;
}

static OTF2_CallbackCode on_OmpFork(EV_HDR, uint32_t n)
{
    (void)al, (void)n;
    thr_event(ud, lid, t, K_OmpFork, T_FORK, NONE, 0);
    return CB_RESULT((trace *)ud);
}

static OTF2_CallbackCode on_OmpJoin(EV_HDR)
{
    (void)al;
    thr_event(ud, lid, t, K_OmpJoin, T_JOIN, NONE, 0);
    return CB_RESULT((trace *)ud);
}

static OTF2_CallbackCode on_ThreadFork(EV_HDR, OTF2_Paradigm model, uint32_t n)
{
    (void)al, (void)model, (void)n;
    thr_event(ud, lid, t, K_ThreadFork, T_FORK, NONE, 0);
    return CB_RESULT((trace *)ud);
}

static OTF2_CallbackCode on_ThreadJoin(EV_HDR, OTF2_Paradigm model)
{
    (void)al, (void)model;
    thr_event(ud, lid, t, K_ThreadJoin, T_JOIN, NONE, 0);
    return CB_RESULT((trace *)ud);
}

/* Thread teams open on each location, for the barriers (check 6): the k-th
 * ThreadTeamBegin of a team communicator on a location is instance k, as in
 * check 5. */
static OTF2_CallbackCode on_ThreadTeamBegin(EV_HDR, OTF2_CommRef team)
{
    trace *tr = ud;
    (void)al;
    thr_event(ud, lid, t, K_ThreadTeamBegin, T_TBEGIN, team, 0);
    if (!tr->bad && tr->full) {
        loc *l = &tr->locs[tr->last];
        size_t k;
        for (k = 0; k < l->ntcnt && l->tcnt[k].comm != team; k++)
            ;
        if (k == l->ntcnt) {
            GROW(l->tcnt, l->ntcnt, l->captcnt);
            l->tcnt[l->ntcnt].comm = team;
            l->tcnt[l->ntcnt++].n = 0;
        }
        GROW(l->team, l->nteam, l->capteam);
        l->team[l->nteam].comm = team;
        l->team[l->nteam++].inst = l->tcnt[k].n++;
    }
    return CB_RESULT(tr);
}

static OTF2_CallbackCode on_ThreadTeamEnd(EV_HDR, OTF2_CommRef team)
{
    trace *tr = ud;
    (void)al;
    thr_event(ud, lid, t, K_ThreadTeamEnd, T_TEND, team, 0);
    if (!tr->bad && tr->full) {
        loc *l = &tr->locs[tr->last];
        if (l->nteam && l->team[l->nteam - 1].comm == team)
            l->nteam--;  /* a mismatch is check 5's warning */
    }
    return CB_RESULT(tr);
}

/* ---- hybrid programs: barriers, locks, devices (check 6) -------------------- */
#define NO_ID UINT64_MAX

/* A barrier visit of location li opened by its Enter (idx, t): its index */
static uint32_t bar_visit(trace *tr, uint32_t li, uint8_t mode, uint64_t a, uint64_t b,
                          uint64_t idx, uint64_t t)
{
    GROW(tr->bars, tr->nbars, tr->capbars);
    tr->bars[tr->nbars] = (bar){.mode = mode, .loc = li, .a = a, .b = b, .ie = idx, .te = t};
    return (uint32_t)tr->nbars++;
}

static void hybrid_enter(trace *tr, uint32_t li, uint64_t idx, uint64_t t, uint64_t gseq,
                         OTF2_RegionRef region, const OTF2_AttributeList *al)
{
    loc *l = &tr->locs[li];
    uint8_t fl = region_flags(tr, region);
    const frame *up = l->nstk ? &l->stk[l->nstk - 1] : NULL;
    frame f;
    uint64_t v;
    uint32_t obj;
    f.ompt = up ? up->ompt : NO_ID;
    f.bar = f.act = NONE;
    f.region = region;
    f.inbar = up && up->inbar;
    if (tr->has_ompt && al && OTF2_AttributeList_GetUint64(al, tr->ompt_attr, &v) == OTF2_SUCCESS)
        f.ompt = v;
    if (l->ltype == OTF2_LOCATION_TYPE_ACCELERATOR_STREAM) {
        if (!up) {  /* a kernel or a target region: an Enter at call depth 0 */
            act *a;
            GROW(tr->acts, tr->nacts, tr->capacts);
            a = &tr->acts[tr->nacts];
            memset(a, 0, sizeof *a);
            a->loc = li;
            a->region = region;
            a->type = fl & R_TARGET ? A_TARGET : A_KERNEL;
            a->idx = idx;
            a->t = t;
            f.act = (uint32_t)tr->nacts++;
        }
    } else {
        if ((fl & R_BARRIER) && !f.inbar && l->nteam)
            f.bar = bar_visit(tr, li, BM_TEAM, l->team[l->nteam - 1].comm,
                              l->team[l->nteam - 1].inst, idx, t);
        else if ((fl & R_BARRIER) && !f.inbar && f.ompt != NO_ID)
            f.bar = bar_visit(tr, li, BM_OMPT, l->group, f.ompt, idx, t);
        else if ((fl & R_PBARRIER) && !f.inbar && tr->has_pobj && al &&
                 OTF2_AttributeList_GetUint32(al, tr->pobj_attr, &obj) == OTF2_SUCCESS)
            f.bar = bar_visit(tr, li, BM_PTHREAD, l->group, obj, idx, t);
        if (fl & (R_BARRIER | R_PBARRIER))
            f.inbar = true;
        if (fl & (R_LAUNCH | R_MEMCPY)) {
            OTF2_LocationRef sl = 0;
            bool has = tr->has_stream && al &&
                       OTF2_AttributeList_GetLocationRef(al, tr->stream_attr, &sl) == OTF2_SUCCESS;
            if ((fl & R_MEMCPY) || has) {
                hostcall *h;
                GROW(tr->hcs, tr->nhcs, tr->caphcs);
                h = &tr->hcs[tr->nhcs++];
                h->loc = li;
                h->region = region;
                h->type = (fl & R_LAUNCH) && has ? H_LAUNCH : H_MEMCPY;
                h->flags = fl & (R_H2D | R_D2H);
                h->hasstream = has;
                h->stream = sl;
                h->group = l->group;
                h->idx = idx;
                h->t = t;
                h->gseq = gseq;
            }
        }
        if (fl & R_TARGET) {  /* issues only outside an open Enter of the same region */
            size_t k;
            for (k = 0; k < l->nstk && l->stk[k].region != region; k++)
                ;
            if (k == l->nstk) {
                hostcall *h;
                GROW(tr->hcs, tr->nhcs, tr->caphcs);
                h = &tr->hcs[tr->nhcs++];
                memset(h, 0, sizeof *h);
                h->loc = li;
                h->region = region;
                h->type = H_TARGET;
                h->group = l->group;
                h->idx = idx;
                h->t = t;
                h->gseq = gseq;
            }
        }
    }
    GROW(l->stk, l->nstk, l->capstk);
    l->stk[l->nstk++] = f;
}

static OTF2_CallbackCode on_Enter(EV_HDR, OTF2_RegionRef region)
{
    trace *tr = ud;
    uint64_t idx, gseq = tr->nrec;
    uint32_t li = rec(tr, lid, t, K_Enter, &idx);
    if (li != NONE && tr->full)
        hybrid_enter(tr, li, idx, t, gseq, region, al);
    return CB_RESULT(tr);
}

static OTF2_CallbackCode on_Leave(EV_HDR, OTF2_RegionRef region)
{
    trace *tr = ud;
    uint64_t idx;
    uint32_t li = rec(tr, lid, t, K_Leave, &idx);
    (void)al, (void)region;
    if (li != NONE && tr->full && tr->locs[li].nstk) {
        loc *l = &tr->locs[li];
        const frame *f = &l->stk[--l->nstk];
        if (f->bar != NONE) {
            tr->bars[f->bar].left = true;
            tr->bars[f->bar].il = idx;
            tr->bars[f->bar].tl = t;
        }
        if (f->act != NONE) {
            tr->acts[f->act].ended = true;
            tr->acts[f->act].iend = idx;
            tr->acts[f->act].tend = t;
        }
    }
    return CB_RESULT(tr);
}

static void lock_event(trace *tr, OTF2_LocationRef lid, OTF2_TimeStamp t, int kind, OTF2_Paradigm model,
                       uint32_t lock, uint32_t order, bool rel)
{
    uint64_t idx;
    uint32_t li = rec(tr, lid, t, kind, &idx);
    lockrec *x;
    if (li == NONE || !tr->full)
        return;
    GROW(tr->locks, tr->nlocks, tr->caplocks);
    x = &tr->locks[tr->nlocks++];
    x->group = tr->locs[li].group;
    x->loc = li;
    x->lock = lock;
    x->order = order;
    x->model = model;
    x->rel = rel;
    x->idx = idx;
    x->t = t;
}

static OTF2_CallbackCode on_ThreadAcquireLock(EV_HDR, OTF2_Paradigm model, uint32_t lock, uint32_t order)
{
    (void)al;
    lock_event(ud, lid, t, K_ThreadAcquireLock, model, lock, order, false);
    return CB_RESULT((trace *)ud);
}

static OTF2_CallbackCode on_ThreadReleaseLock(EV_HDR, OTF2_Paradigm model, uint32_t lock, uint32_t order)
{
    (void)al;
    lock_event(ud, lid, t, K_ThreadReleaseLock, model, lock, order, true);
    return CB_RESULT((trace *)ud);
}

static OTF2_CallbackCode on_OmpAcquireLock(EV_HDR, uint32_t lock, uint32_t order)
{
    (void)al;
    lock_event(ud, lid, t, K_OmpAcquireLock, OTF2_PARADIGM_OPENMP, lock, order, false);
    return CB_RESULT((trace *)ud);
}

static OTF2_CallbackCode on_OmpReleaseLock(EV_HDR, uint32_t lock, uint32_t order)
{
    (void)al;
    lock_event(ud, lid, t, K_OmpReleaseLock, OTF2_PARADIGM_OPENMP, lock, order, true);
    return CB_RESULT((trace *)ud);
}

/* a copy on an accelerator location: RmaGet/RmaPut ... RmaOpCompleteBlocking */
static void copy_event(trace *tr, OTF2_LocationRef lid, OTF2_TimeStamp t, int kind, OTF2_RmaWinRef w,
                       uint64_t match)
{
    uint64_t idx;
    uint32_t li = rec(tr, lid, t, kind, &idx);
    loc *l;
    size_t k;
    if (li == NONE || !tr->full || tr->locs[li].ltype != OTF2_LOCATION_TYPE_ACCELERATOR_STREAM)
        return;
    l = &tr->locs[li];
    if (kind == K_RmaOpCompleteBlocking) {
        for (k = 0; k < l->npc && (l->pc[k].win != w || l->pc[k].match != match); k++)
            ;
        if (k < l->npc) {
            act *a = &tr->acts[l->pc[k].act];
            a->ended = true;
            a->iend = idx;
            a->tend = t;
            memmove(&l->pc[k], &l->pc[k + 1], (l->npc - k - 1) * sizeof *l->pc);
            l->npc--;
        }
        return;
    }
    GROW(tr->acts, tr->nacts, tr->capacts);
    memset(&tr->acts[tr->nacts], 0, sizeof *tr->acts);
    tr->acts[tr->nacts].loc = li;
    tr->acts[tr->nacts].type = kind == K_RmaGet ? A_GET : A_PUT;
    tr->acts[tr->nacts].idx = idx;
    tr->acts[tr->nacts].t = t;
    GROW(l->pc, l->npc, l->cappc);
    l->pc[l->npc].win = w;
    l->pc[l->npc].match = match;
    l->pc[l->npc++].act = (uint32_t)tr->nacts++;
}

static OTF2_CallbackCode on_RmaGet(EV_HDR, OTF2_RmaWinRef w, uint32_t remote, uint64_t bytes, uint64_t match)
{
    (void)al, (void)remote, (void)bytes;
    copy_event(ud, lid, t, K_RmaGet, w, match);
    return CB_RESULT((trace *)ud);
}

static OTF2_CallbackCode on_RmaPut(EV_HDR, OTF2_RmaWinRef w, uint32_t remote, uint64_t bytes, uint64_t match)
{
    (void)al, (void)remote, (void)bytes;
    copy_event(ud, lid, t, K_RmaPut, w, match);
    return CB_RESULT((trace *)ud);
}

static OTF2_CallbackCode on_RmaOpCompleteBlocking(EV_HDR, OTF2_RmaWinRef w, uint64_t match)
{
    (void)al;
    copy_event(ud, lid, t, K_RmaOpCompleteBlocking, w, match);
    return CB_RESULT((trace *)ud);
}

#define PTHREAD_CB(name, type)                                                  \
    static OTF2_CallbackCode on_##name(EV_HDR, OTF2_CommRef c, uint64_t seq)    \
    {                                                                           \
        (void)al;                                                               \
        thr_event(ud, lid, t, K_##name, type, c, seq);                          \
        return CB_RESULT((trace *)ud);                                          \
    }
PTHREAD_CB(ThreadCreate, T_CREATE)
PTHREAD_CB(ThreadBegin, T_BEGIN)
PTHREAD_CB(ThreadWait, T_WAIT)
PTHREAD_CB(ThreadEnd, T_END)

/* ---- loading ---------------------------------------------------------------- */
static int fail(trace *tr, const char *fmt, ...)
{
    va_list va;
    fprintf(stderr, "up-check: %s: ", tr->anchor ? tr->anchor : tr->label);
    va_start(va, fmt);
    vfprintf(stderr, fmt, va);
    va_end(va);
    fputc('\n', stderr);
    return -1;
}

static char *anchor_of(const char *arg)
{
    struct stat st;
    size_t n = strlen(arg);
    char *a;
    if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
        a = xrealloc(NULL, n + sizeof "/traces.otf2");
        memcpy(a, arg, n);
        memcpy(a + n, "/traces.otf2", sizeof "/traces.otf2");
        return a;
    }
    a = xrealloc(NULL, n + 1);
    memcpy(a, arg, n + 1);
    return a;
}

/* An OTF2 anchor starts with a chunk-header byte, an endianness byte and
 * "OTF2"; checking first gives a clear message, and OTF2 3.0.2 leaks the
 * archive it fails to open. */
static int check_signature(trace *tr)
{
    unsigned char head[7];
    size_t n;
    FILE *f = fopen(tr->anchor, "rb");
    if (!f)
        return fail(tr, "cannot open: %s", strerror(errno));
    n = fread(head, 1, sizeof head, f);
    fclose(f);
    if (n < sizeof head || memcmp(head + 2, "OTF2", 5) != 0)
        return fail(tr, "not an OTF2 archive (no OTF2 anchor signature)");
    return 0;
}

#define TRY(call, what)                                                         \
    do {                                                                        \
        OTF2_ErrorCode rc_ = (call);                                            \
        if (rc_ != OTF2_SUCCESS) {                                              \
            fail(tr, "%s: %s", what, otf2_why(rc_));                            \
            goto out;                                                           \
        }                                                                       \
    } while (0)

static int read_defs(trace *tr, OTF2_Reader *rd)
{
    int ret = -1;
    uint64_t n;
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(rd);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    if (!gdr || !cb) {
        fail(tr, "cannot read the global definitions: %s",
             otf2_msg[0] ? otf2_msg : "no global definition reader");
        goto out;
    }
    TRY(OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, def_location), "callbacks");
    TRY(OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, def_group), "callbacks");
    TRY(OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, def_comm), "callbacks");
    TRY(OTF2_GlobalDefReaderCallbacks_SetInterCommCallback(cb, def_intercomm), "callbacks");
    TRY(OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(cb, def_rmawin), "callbacks");
    TRY(OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, def_string), "callbacks");
    TRY(OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, def_attribute), "callbacks");
    TRY(OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, def_region), "callbacks");
    TRY(OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, cb, tr), "registering definition callbacks");
    TRY(OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &n), "reading the global definitions");
    ret = 0;
out:
    if (cb)
        OTF2_GlobalDefReaderCallbacks_Delete(cb);
    if (gdr && OTF2_Reader_CloseGlobalDefReader(rd, gdr) != OTF2_SUCCESS && ret == 0)
        ret = fail(tr, "closing the global definition reader: %s", otf2_why(OTF2_ERROR_INVALID));
    return ret;
}

static int register_events(trace *tr, OTF2_GlobalEvtReaderCallbacks *cb)
{
#define SET_P(name, ...) TRY(OTF2_GlobalEvtReaderCallbacks_Set##name##Callback(cb, on_##name), "callbacks");
#define SET_S(name) TRY(OTF2_GlobalEvtReaderCallbacks_Set##name##Callback(cb, on_##name), "callbacks");
    KINDS(SET_P, SET_S)
    TRY(OTF2_GlobalEvtReaderCallbacks_SetUnknownCallback(cb, on_Unknown), "callbacks");
    return 0;
out:
    return -1;
}

static int read_events(trace *tr, OTF2_Reader *rd)
{
    int ret = -1;
    size_t i;
    uint64_t n;
    bool defs;
    OTF2_GlobalEvtReader *ger = NULL;
    OTF2_GlobalEvtReaderCallbacks *cb = NULL;

    for (i = 0; i < tr->nlocs; i++)
        TRY(OTF2_Reader_SelectLocation(rd, tr->locs[i].id), "selecting the locations");
    /* Local definitions carry the clock offsets and mapping tables that OTF2
     * applies to the events of their location.  An archive may have none. */
    defs = OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS;
    TRY(OTF2_Reader_OpenEvtFiles(rd), "opening the event files");
    for (i = 0; i < tr->nlocs; i++) {
        if (defs) {
            OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, tr->locs[i].id);
            if (dr) {
                OTF2_ErrorCode rc = OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
                OTF2_ErrorCode rc2 = OTF2_Reader_CloseDefReader(rd, dr);
                if (rc != OTF2_SUCCESS || rc2 != OTF2_SUCCESS) {
                    fail(tr, "reading the local definitions of location %" PRIu64 ": %s",
                         tr->locs[i].id, otf2_why(rc != OTF2_SUCCESS ? rc : rc2));
                    goto out;
                }
            }
        }
        if (!OTF2_Reader_GetEvtReader(rd, tr->locs[i].id)) {
            fail(tr, "cannot open the events of location %" PRIu64 ": %s", tr->locs[i].id,
                 otf2_msg[0] ? otf2_msg : "no event reader");
            goto out;
        }
    }
    if (defs)
        TRY(OTF2_Reader_CloseDefFiles(rd), "closing the local definition files");
    if (!(ger = OTF2_Reader_GetGlobalEvtReader(rd)) || !(cb = OTF2_GlobalEvtReaderCallbacks_New())) {
        fail(tr, "cannot read the events: %s", otf2_msg[0] ? otf2_msg : "no global event reader");
        goto out;
    }
    if (register_events(tr, cb) != 0)
        goto out;
    TRY(OTF2_Reader_RegisterGlobalEvtCallbacks(rd, ger, cb, tr), "registering event callbacks");
    {
        OTF2_ErrorCode rc = OTF2_Reader_ReadAllGlobalEvents(rd, ger, &n);
        if (tr->bad) {
            fail(tr, "%s", tr->err);
            goto out;
        }
        if (rc != OTF2_SUCCESS) {
            fail(tr, "reading the events: %s", otf2_why(rc));
            goto out;
        }
    }
    ret = 0;
out:
    if (cb)
        OTF2_GlobalEvtReaderCallbacks_Delete(cb);
    if (ger && OTF2_Reader_CloseGlobalEvtReader(rd, ger) != OTF2_SUCCESS && ret == 0)
        ret = fail(tr, "closing the event reader: %s", otf2_why(OTF2_ERROR_INVALID));
    return ret;
}

static int trace_load(trace *tr, const char *arg, bool full)
{
    OTF2_Reader *rd;
    size_t i;
    int ret = -1;

    tr->label = arg;
    tr->full = full;
    tr->anchor = anchor_of(arg);
    if (check_signature(tr) != 0)
        return -1;
    otf2_msg[0] = 0;
    if (!(rd = OTF2_Reader_Open(tr->anchor)))
        return fail(tr, "cannot open: %s", otf2_msg[0] ? otf2_msg : "not an OTF2 archive");
    TRY(OTF2_Reader_SetSerialCollectiveCallbacks(rd), "cannot open");
    if (read_defs(tr, rd) != 0)
        goto out;
    if (tr->nlocs == 0) {
        fail(tr, "defines no locations");
        goto out;
    }
    tr->byid = xrealloc(NULL, tr->nlocs * sizeof *tr->byid);
    for (i = 0; i < tr->nlocs; i++) {
        tr->byid[i].id = tr->locs[i].id;
        tr->byid[i].idx = (uint32_t)i;
    }
    sort_n(tr->byid, tr->nlocs, sizeof *tr->byid, cmp_lockey);
    for (i = 1; i < tr->nlocs; i++)
        if (tr->byid[i].id == tr->byid[i - 1].id) {
            fail(tr, "location %" PRIu64 " is defined twice", tr->byid[i].id);
            goto out;
        }
    resolve_comms(tr);
    resolve_reps(tr);
    resolve_hybrid_defs(tr);
    if (read_events(tr, rd) != 0)
        goto out;
    ret = 0;
out:
    if (OTF2_Reader_Close(rd) != OTF2_SUCCESS && ret == 0)
        ret = fail(tr, "closing: %s", otf2_why(OTF2_ERROR_INVALID));
    return ret;
}

static void trace_free(trace *tr)
{
    size_t i;
    for (i = 0; i < tr->nlocs; i++) {
        free(tr->locs[i].kind);
        free(tr->locs[i].t);
        free(tr->locs[i].req);
        free(tr->locs[i].moved);
        free(tr->locs[i].stk);
        free(tr->locs[i].team);
        free(tr->locs[i].tcnt);
        free(tr->locs[i].pc);
    }
    for (i = 0; i < tr->nstrs; i++)
        free(tr->strs[i].s);
    free(tr->strs);
    free(tr->regs);
    free(tr->attrs);
    free(tr->rep);
    free(tr->bars);
    free(tr->bviol);
    free(tr->locks);
    free(tr->acts);
    free(tr->hcs);
    for (i = 0; i < tr->ngroups; i++)
        free(tr->groups[i].m);
    for (i = 0; i < tr->ncomms; i++) {
        if (tr->comms[i].rank2loc != tr->comms[i].mem)
            free(tr->comms[i].rank2loc);
        free(tr->comms[i].mem);
        free(tr->comms[i].memb);
    }
    free(tr->locs);
    free(tr->byid);
    free(tr->groups);
    free(tr->commdefs);
    free(tr->comms);
    free(tr->wins);
    free(tr->send);
    free(tr->recv);
    free(tr->coll);
    free(tr->thr);
    free(tr->anchor);
}

/* ---- check 1: per location, timestamps never decrease ---------------------- */
static void check_time(trace *tr)
{
    size_t i;
    uint64_t j;
    for (i = 0; i < tr->nlocs; i++) {
        const loc *l = &tr->locs[i];
        for (j = 1; j < l->n; j++)
            if (l->t[j] < l->t[j - 1])
                note(tr, V_TIME, "location %" PRIu64 " record %" PRIu64 " (%s) t=%" PRIu64
                     " < t=%" PRIu64 " of record %" PRIu64 " (%s), by %" PRIu64 " ticks",
                     l->id, j, kind_names[l->kind[j]], l->t[j], l->t[j - 1], j - 1,
                     kind_names[l->kind[j - 1]], l->t[j - 1] - l->t[j]);
    }
}

/* ---- check 2: the same locations, records and kinds as the input ----------- */
static void check_against(trace *out, const trace *in)
{
    size_t i;
    for (i = 0; i < in->nlocs; i++)
        if (loc_index(out, in->locs[i].id) == NONE)
            note(out, V_LOCS, "location %" PRIu64 " is in %s only", in->locs[i].id, in->label);
    for (i = 0; i < out->nlocs; i++) {
        const loc *o = &out->locs[i], *n;
        uint32_t k = loc_index(in, o->id);
        uint64_t j, m;
        if (k == NONE) {
            note(out, V_LOCS, "location %" PRIu64 " is in %s only", o->id, out->label);
            continue;
        }
        n = &in->locs[k];
        if (o->n != n->n)
            note(out, V_COUNT, "location %" PRIu64 ": %" PRIu64 " records in %s, %" PRIu64 " in %s",
                 o->id, n->n, in->label, o->n, out->label);
        if (o->nmoved) {
            /* completions moved to a later poll (marked in OUT): OUT without
             * them must be IN without as many MpiIrecv records.  Matching
             * equal kinds first is safe: only MpiIrecv is deleted, and
             * deleting one MpiIrecv or the next gives the same sequence. */
            uint64_t a = 0, b = 0, skip = 0;
            size_t mv = 0;
            for (;;) {
                while (mv < o->nmoved && o->moved[mv] == a)
                    mv++, a++;
                if (a == o->n || b == n->n)
                    break;
                if (o->kind[a] == n->kind[b])
                    a++, b++;
                else if (n->kind[b] == K_MpiIrecv && skip < o->nmoved)
                    skip++, b++;
                else
                    break;
            }
            while (b < n->n && n->kind[b] == K_MpiIrecv && skip < o->nmoved)
                skip++, b++;
            if (a < o->n || b < n->n || skip != o->nmoved)
                note(out, V_KINDS, "location %" PRIu64 " record %" PRIu64 ": %s in %s, %s in %s, with "
                     "%zu completions moved (t=%" PRIu64 ")", o->id, a,
                     b < n->n ? kind_names[n->kind[b]] : "the end", in->label,
                     a < o->n ? kind_names[o->kind[a]] : "the end", out->label, o->nmoved,
                     a < o->n ? o->t[a] : 0);
            continue;
        }
        m = o->n < n->n ? o->n : n->n;
        for (j = 0; j < m && o->kind[j] == n->kind[j]; j++)
            ;
        if (j < m)
            note(out, V_KINDS, "location %" PRIu64 " record %" PRIu64 ": %s in %s, %s in %s (t=%" PRIu64 ")",
                 o->id, j, kind_names[n->kind[j]], in->label, kind_names[o->kind[j]], out->label,
                 o->t[j]);
    }
}

/* ---- check 3: clock condition of point-to-point messages ------------------- */
static int cmp_p2p(const void *a, const void *b)
{
    const p2p *x = a, *y = b;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    if (x->r != y->r)
        return x->r < y->r ? -1 : 1;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->tag != y->tag)
        return x->tag < y->tag ? -1 : 1;
    /* the global reader's order: on one location, the record order */
    return x->gseq < y->gseq ? -1 : x->gseq > y->gseq;
}

static int cmp_p2p_key(const p2p *x, const p2p *y)
{
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    if (x->r != y->r)
        return x->r < y->r ? -1 : 1;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->tag != y->tag)
        return x->tag < y->tag ? -1 : 1;
    return 0;
}

static void check_messages(trace *tr)
{
    size_t i = 0, j = 0;
    sort_n(tr->send, tr->nsend, sizeof *tr->send, cmp_p2p);
    sort_n(tr->recv, tr->nrecv, sizeof *tr->recv, cmp_p2p);
    while (i < tr->nsend || j < tr->nrecv) {
        const p2p *s = i < tr->nsend ? &tr->send[i] : NULL;
        const p2p *r = j < tr->nrecv ? &tr->recv[j] : NULL;
        int c = s && r ? cmp_p2p_key(s, r) : s ? -1 : 1;
        if (c < 0) {
            note(tr, W_UNMATCHED_SEND, "location %" PRIu64 " record %" PRIu64 " t=%" PRIu64
                 ": to location %" PRIu64 ", communicator %u, tag %u",
                 tr->locs[s->at].id, s->idx, s->t, tr->locs[s->r].id, s->comm, s->tag);
            i++;
        } else if (c > 0) {
            note(tr, W_UNMATCHED_RECV, "location %" PRIu64 " record %" PRIu64 " t=%" PRIu64
                 ": from location %" PRIu64 ", communicator %u, tag %u",
                 tr->locs[r->at].id, r->idx, r->t, tr->locs[r->s].id, r->comm, r->tag);
            j++;
        } else {
            if (r->t < s->t)
                note(tr, V_MSG, "location %" PRIu64 " record %" PRIu64 " (%s) t=%" PRIu64
                     " < send t=%" PRIu64 " at location %" PRIu64 " record %" PRIu64
                     " (%s), communicator %u, tag %u, by %" PRIu64 " ticks",
                     tr->locs[r->at].id, r->idx, kind_names[tr->locs[r->at].kind[r->idx]], r->t,
                     s->t, tr->locs[s->at].id, s->idx, kind_names[tr->locs[s->at].kind[s->idx]],
                     s->comm, s->tag, s->t - r->t);
            tr->messages++;
            i++;
            j++;
        }
    }
}

/* ---- check 4: collectives ---------------------------------------------------- */
static const char *const op_names[] = {
    "BARRIER", "BCAST", "GATHER", "GATHERV", "SCATTER", "SCATTERV", "ALLGATHER",
    "ALLGATHERV", "ALLTOALL", "ALLTOALLV", "ALLTOALLW", "ALLREDUCE", "REDUCE",
    "REDUCE_SCATTER", "SCAN", "EXSCAN", "REDUCE_SCATTER_BLOCK", "CREATE_HANDLE",
    "DESTROY_HANDLE", "ALLOCATE", "DEALLOCATE", "CREATE_HANDLE_AND_ALLOCATE",
    "DESTROY_HANDLE_AND_DEALLOCATE"};

static const char *op_name(unsigned op)
{
    return op < sizeof op_names / sizeof op_names[0] ? op_names[op] : "(unknown op)";
}

enum { CL_N2N, CL_1TON, CL_NTO1, CL_SCAN, CL_EXSCAN };

static int op_class(unsigned op)
{
    switch (op) {
    case OTF2_COLLECTIVE_OP_BCAST:
    case OTF2_COLLECTIVE_OP_SCATTER:
    case OTF2_COLLECTIVE_OP_SCATTERV:
        return CL_1TON;
    case OTF2_COLLECTIVE_OP_REDUCE:
    case OTF2_COLLECTIVE_OP_GATHER:
    case OTF2_COLLECTIVE_OP_GATHERV:
        return CL_NTO1;
    case OTF2_COLLECTIVE_OP_SCAN:
        return CL_SCAN;
    case OTF2_COLLECTIVE_OP_EXSCAN:
        return CL_EXSCAN;
    default:
        return CL_N2N;
    }
}

static bool is_self(const trace *tr, uint32_t cid)
{
    const comm *c = comm_by_id(tr, cid);
    return c && c->kind == C_SELF;
}

/* per (location, communicator) in the order of the Begin (or Request) */
static int cmp_coll_loc(const void *a, const void *b)
{
    const coll *x = a, *y = b;
    if (x->loc != y->loc)
        return x->loc < y->loc ? -1 : 1;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->win != y->win)
        return x->win < y->win ? -1 : 1;
    return x->ib < y->ib ? -1 : x->ib > y->ib;
}

/* instances: (communicator, sequence number), then location; the sequence
 * numbers of a self communicator count per location (set by check_colls) */
static int cmp_coll_inst(const void *a, const void *b)
{
    const coll *x = a, *y = b;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->win != y->win)
        return x->win < y->win ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return x->loc < y->loc ? -1 : x->loc > y->loc;
}

typedef struct member {
    uint32_t rank;
    const coll *c;
} member;

static int cmp_member(const void *a, const void *b)
{
    const member *x = a, *y = b;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static void coll_late(trace *tr, const coll *e, uint32_t er, const coll *b, uint32_t br, uint64_t seq)
{
    note(tr, V_COLL, "communicator %u instance %" PRIu64 " (%s): location %" PRIu64 " (rank %u) record %"
         PRIu64 " (%s) t=%" PRIu64 " < begin t=%" PRIu64 " of location %" PRIu64 " (rank %u) record %"
         PRIu64 ", by %" PRIu64 " ticks",
         e->comm, seq, op_name(e->op), tr->locs[e->loc].id, er, e->ie,
         e->nb ? "NonBlockingCollectiveComplete" : e->win != NO_WIN ? "RmaCollectiveEnd" : "MpiCollectiveEnd",
         e->te, b->tb,
         tr->locs[b->loc].id, br, b->ib, b->tb - e->te);
}

static void check_instance(trace *tr, const comm *c, const coll *g, size_t n, uint32_t *rank_of,
                           member *mem)
{
    size_t i, k = 0;
    uint64_t seq = g[0].seq;
    const coll *x0 = NULL;
    uint32_t r;
    int cls;

    tr->collectives++;
    if (!c || c->kind == C_BAD) {
        note(tr, W_COMM, "communicator %u instance %" PRIu64 " (%s) at location %" PRIu64 " record %"
             PRIu64 ": %s", g[0].comm, seq, op_name(g[0].op), tr->locs[g[0].loc].id, g[0].ie,
             c ? c->why : "communicator not defined");
        return;
    }
    if (c->kind == C_SELF)
        return;
    if (c->kind == C_INTER) {
        note(tr, W_COLL_INTER, "communicator %u instance %" PRIu64 " (%s)", g[0].comm, seq,
             op_name(g[0].op));
        return;
    }
    for (r = 0; r < c->nmem; r++)
        rank_of[c->mem[r]] = r;
    for (i = 0; i < n; i++) {
        if (rank_of[g[i].loc] == NONE) {
            note(tr, W_COMM, "communicator %u instance %" PRIu64 " (%s): location %" PRIu64
                 " record %" PRIu64 " is not a member", g[i].comm, seq, op_name(g[i].op),
                 tr->locs[g[i].loc].id, g[i].ie);
            continue;
        }
        mem[k].rank = rank_of[g[i].loc];
        mem[k++].c = &g[i];
        if (!x0)
            x0 = &g[i];
        else if (g[i].op != x0->op || g[i].root != x0->root)
            note(tr, W_COLL_MISMATCH, "communicator %u instance %" PRIu64 ": location %" PRIu64
                 " has %s root %u, location %" PRIu64 " has %s root %u", g[i].comm, seq,
                 tr->locs[x0->loc].id, op_name(x0->op), x0->root, tr->locs[g[i].loc].id,
                 op_name(g[i].op), g[i].root);
    }
    if (k < c->nmem)
        note(tr, W_COLL_INCOMPLETE, "communicator %u instance %" PRIu64 " (%s): %zu of %u members",
             g[0].comm, seq, op_name(g[0].op), k, c->nmem);
    if (!x0)
        goto done;
    sort_n(mem, k, sizeof *mem, cmp_member);
    cls = op_class(x0->op);
    if (cls == CL_N2N) {
        size_t b = 0;
        for (i = 1; i < k; i++)
            if (mem[i].c->tb > mem[b].c->tb)
                b = i;
        for (i = 0; i < k; i++)
            if (mem[i].c->te < mem[b].c->tb)
                coll_late(tr, mem[i].c, mem[i].rank, mem[b].c, mem[b].rank, seq);
    } else if (cls == CL_1TON || cls == CL_NTO1) {
        uint32_t root = NONE;
        if (x0->root < c->nrank)
            root = rank_of[c->rank2loc[x0->root]];
        if (root == NONE) {
            note(tr, W_COLL_ROOT, "communicator %u instance %" PRIu64 " (%s): root %u", x0->comm,
                 seq, op_name(x0->op), x0->root);
            goto done;
        }
        for (i = 0; i < k && mem[i].rank != root; i++)
            ;
        if (i == k)
            goto done;  /* the root is missing: reported as incomplete */
        /* a member and root that move no bytes (a count-0 MPI_Bcast, which
         * MPI returns from at once) wait for nothing (docs/models.md) */
        if (cls == CL_1TON) {
            size_t ri = i;
            for (i = 0; i < k; i++)
                if (i != ri && mem[i].c->te < mem[ri].c->tb &&
                    !(mem[i].c->nobytes && mem[ri].c->nobytes))
                    coll_late(tr, mem[i].c, mem[i].rank, mem[ri].c, root, seq);
        } else {
            size_t ri = i, b = i;
            for (i = 0; i < k; i++)
                if (i != ri && !mem[i].c->nobytes && mem[i].c->tb > mem[b].c->tb)
                    b = i;
            if (mem[ri].c->te < mem[b].c->tb)
                coll_late(tr, mem[ri].c, root, mem[b].c, mem[b].rank, seq);
        }
    } else {
        /* prefix: rank r waits for ranks 0..r (SCAN) or 0..r-1 (EXSCAN) */
        size_t b = NONE;
        for (i = 0; i < k; i++) {
            if (cls == CL_SCAN && (b == NONE || mem[i].c->tb > mem[b].c->tb))
                b = i;
            if (b != NONE && mem[i].c->te < mem[b].c->tb)
                coll_late(tr, mem[i].c, mem[i].rank, mem[b].c, mem[b].rank, seq);
            if (cls == CL_EXSCAN && (b == NONE || mem[i].c->tb > mem[b].c->tb))
                b = i;
        }
    }
done:
    for (r = 0; r < c->nmem; r++)
        rank_of[c->mem[r]] = NONE;
}

static void check_colls(trace *tr)
{
    size_t i, j, maxn = 0;
    uint32_t *rank_of;
    member *mem;

    for (i = 0; i < tr->nlocs; i++) {
        const loc *l = &tr->locs[i];
        if (l->cb_open)
            note(tr, W_COLL_UNPAIRED, "location %" PRIu64 " record %" PRIu64
                 " (MpiCollectiveBegin) t=%" PRIu64 ": no MpiCollectiveEnd", l->id, l->cb_idx, l->cb_t);
        for (j = 0; j < l->nreq; j++)
            note(tr, W_COLL_UNPAIRED, "location %" PRIu64 " record %" PRIu64
                 " (NonBlockingCollectiveRequest) t=%" PRIu64 ": request %" PRIu64 " never completes",
                 l->id, l->req[j].idx, l->req[j].t, l->req[j].id);
    }
    /* sequence numbers per location and communicator, blocking and
     * nonblocking alike, in the order they were started (as MPI orders them) */
    sort_n(tr->coll, tr->ncoll, sizeof *tr->coll, cmp_coll_loc);
    for (i = 0; i < tr->ncoll; i++) {
        coll *x = &tr->coll[i];
        x->seq = i > 0 && x[-1].loc == x->loc && x[-1].comm == x->comm && x[-1].win == x->win
                     ? x[-1].seq + 1 : 0;
    }
    /* a self communicator's instances are each location's own: make them unique */
    for (i = 0; i < tr->ncoll; i++)
        if (is_self(tr, tr->coll[i].comm))
            tr->coll[i].seq = tr->coll[i].seq * tr->nlocs + tr->coll[i].loc;
    sort_n(tr->coll, tr->ncoll, sizeof *tr->coll, cmp_coll_inst);
    rank_of = xrealloc(NULL, tr->nlocs * sizeof *rank_of);
    for (i = 0; i < tr->nlocs; i++)
        rank_of[i] = NONE;
    for (i = 0; i < tr->ncoll; i = j) {
        for (j = i + 1; j < tr->ncoll && tr->coll[j].comm == tr->coll[i].comm &&
                        tr->coll[j].win == tr->coll[i].win && tr->coll[j].seq == tr->coll[i].seq; j++)
            ;
        if (j - i > maxn)
            maxn = j - i;
    }
    mem = xrealloc(NULL, maxn * sizeof *mem);
    for (i = 0; i < tr->ncoll; i = j) {
        for (j = i + 1; j < tr->ncoll && tr->coll[j].comm == tr->coll[i].comm &&
                        tr->coll[j].win == tr->coll[i].win && tr->coll[j].seq == tr->coll[i].seq; j++)
            ;
        check_instance(tr, comm_by_id(tr, tr->coll[i].comm), &tr->coll[i], j - i, rank_of, mem);
    }
    free(mem);
    free(rank_of);
}

/* ---- check 5: threads -------------------------------------------------------- */
typedef struct fork_ {
    uint64_t t, idx, inst;
    uint32_t team;
} fork_;

typedef struct tinst {
    uint32_t comm, loc;
    uint64_t inst, tb, ib, te, ie;
    bool ended;
} tinst;

typedef struct minst {
    uint32_t comm, loc;
    uint64_t inst, tf, ifk, tj, ij;
} minst;

typedef struct counter {
    uint32_t comm;
    uint64_t n;
} counter;

static int cmp_thr_loc(const void *a, const void *b)
{
    const thr *x = a, *y = b;
    if (x->loc != y->loc)
        return x->loc < y->loc ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int cmp_tinst(const void *a, const void *b)
{
    const tinst *x = a, *y = b;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->inst != y->inst)
        return x->inst < y->inst ? -1 : 1;
    return x->loc < y->loc ? -1 : x->loc > y->loc;
}

static int cmp_minst(const void *a, const void *b)
{
    const minst *x = a, *y = b;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    return x->inst < y->inst ? -1 : x->inst > y->inst;
}

static int cmp_pthread(const void *a, const void *b)
{
    const thr *x = a, *y = b;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    return cmp_thr_loc(a, b);
}

static void check_teams(trace *tr)
{
    fork_ *fk = NULL;
    size_t nfk = 0, capfk = 0;
    size_t *open = NULL, nopen = 0, capopen = 0;
    counter *cnt = NULL;
    size_t ncnt = 0, capcnt = 0;
    tinst *ti = NULL;
    size_t nti = 0, capti = 0;
    minst *mi = NULL;
    size_t nmi = 0, capmi = 0;
    size_t i, j, k;

    for (i = 0; i < tr->nthr; i = j) {
        uint32_t li = tr->thr[i].loc;
        const loc *l = &tr->locs[li];
        nfk = nopen = ncnt = 0;
        for (j = i; j < tr->nthr && tr->thr[j].loc == li; j++) {
            const thr *x = &tr->thr[j];
            switch (x->type) {
            case T_FORK:
                GROW(fk, nfk, capfk);
                fk[nfk].t = x->t;
                fk[nfk].idx = x->idx;
                fk[nfk].team = NONE;
                fk[nfk++].inst = 0;
                break;
            case T_TBEGIN:
                for (k = 0; k < ncnt && cnt[k].comm != x->comm; k++)
                    ;
                if (k == ncnt) {
                    GROW(cnt, ncnt, capcnt);
                    cnt[ncnt].comm = x->comm;
                    cnt[ncnt++].n = 0;
                }
                GROW(ti, nti, capti);
                ti[nti].comm = x->comm;
                ti[nti].loc = li;
                ti[nti].inst = cnt[k].n++;
                ti[nti].tb = x->t;
                ti[nti].ib = x->idx;
                ti[nti].te = ti[nti].ie = 0;
                ti[nti].ended = false;
                if (nfk > 0 && fk[nfk - 1].team == NONE) {
                    fk[nfk - 1].team = x->comm;
                    fk[nfk - 1].inst = ti[nti].inst;
                }
                GROW(open, nopen, capopen);
                open[nopen++] = nti++;
                break;
            case T_TEND:
                if (nopen == 0 || ti[open[nopen - 1]].comm != x->comm) {
                    note(tr, W_TEAM, "location %" PRIu64 " record %" PRIu64
                         " (ThreadTeamEnd) of team %u: no ThreadTeamBegin of that team open",
                         l->id, x->idx, x->comm);
                    break;
                }
                ti[open[nopen - 1]].te = x->t;
                ti[open[nopen - 1]].ie = x->idx;
                ti[open[nopen - 1]].ended = true;
                nopen--;
                break;
            case T_JOIN:
                if (nfk == 0) {
                    note(tr, W_TEAM, "location %" PRIu64 " record %" PRIu64 " (ThreadJoin): no fork",
                         l->id, x->idx);
                    break;
                }
                nfk--;
                if (fk[nfk].team == NONE) {
                    note(tr, W_TEAM, "location %" PRIu64 " record %" PRIu64
                         " (ThreadFork): no ThreadTeamBegin on the forking location before its join",
                         l->id, fk[nfk].idx);
                    break;
                }
                GROW(mi, nmi, capmi);
                mi[nmi].comm = fk[nfk].team;
                mi[nmi].loc = li;
                mi[nmi].inst = fk[nfk].inst;
                mi[nmi].tf = fk[nfk].t;
                mi[nmi].ifk = fk[nfk].idx;
                mi[nmi].tj = x->t;
                mi[nmi++].ij = x->idx;
                break;
            default:
                break;
            }
        }
        for (k = 0; k < nfk; k++)
            note(tr, W_TEAM, "location %" PRIu64 " record %" PRIu64 " (ThreadFork): no join",
                 l->id, fk[k].idx);
        for (k = 0; k < nopen; k++)
            note(tr, W_TEAM, "location %" PRIu64 " record %" PRIu64 " (ThreadTeamBegin): no end",
                 l->id, ti[open[k]].ib);
    }
    sort_n(ti, nti, sizeof *ti, cmp_tinst);
    sort_n(mi, nmi, sizeof *mi, cmp_minst);
    for (i = 0; i < nmi; i++) {
        const minst *m = &mi[i];
        const comm *c = comm_by_id(tr, m->comm);
        uint32_t r;
        if ((i > 0 && cmp_minst(&mi[i - 1], m) == 0) || (i + 1 < nmi && cmp_minst(&mi[i + 1], m) == 0)) {
            note(tr, W_TEAM, "team %u instance %" PRIu64 ": forked by more than one location "
                 "(location %" PRIu64 " record %" PRIu64 ")", m->comm, m->inst, tr->locs[m->loc].id, m->ifk);
            continue;
        }
        if (!c || c->kind != C_INTRA) {
            note(tr, W_TEAM, "team %u (forked at location %" PRIu64 " record %" PRIu64 "): %s",
                 m->comm, tr->locs[m->loc].id, m->ifk,
                 !c ? "communicator not defined" : c->kind == C_BAD ? c->why : "not a team communicator");
            continue;
        }
        if (find_in(c->mem, c->nmem, m->loc) == NONE) {
            note(tr, W_TEAM, "team %u: forking location %" PRIu64 " is not a member", m->comm,
                 tr->locs[m->loc].id);
            continue;
        }
        tr->forks++;
        for (r = 0; r < c->nmem; r++) {
            tinst key, *x;
            key.comm = m->comm;
            key.inst = m->inst;
            key.loc = c->mem[r];
            x = nti ? bsearch(&key, ti, nti, sizeof *ti, cmp_tinst) : NULL;
            if (!x) {
                note(tr, W_TEAM, "team %u instance %" PRIu64 " (fork at location %" PRIu64 " record %"
                     PRIu64 "): member location %" PRIu64 " has no ThreadTeamBegin for it",
                     m->comm, m->inst, tr->locs[m->loc].id, m->ifk, tr->locs[c->mem[r]].id);
                continue;
            }
            if (x->tb < m->tf)
                note(tr, V_TEAM_BEGIN, "team %u instance %" PRIu64 ": location %" PRIu64 " record %"
                     PRIu64 " (ThreadTeamBegin) t=%" PRIu64 " < fork t=%" PRIu64 " at location %"
                     PRIu64 " record %" PRIu64 ", by %" PRIu64 " ticks",
                     m->comm, m->inst, tr->locs[x->loc].id, x->ib, x->tb, m->tf,
                     tr->locs[m->loc].id, m->ifk, m->tf - x->tb);
            if (x->ended && m->tj < x->te)
                note(tr, V_TEAM_JOIN, "team %u instance %" PRIu64 ": location %" PRIu64 " record %"
                     PRIu64 " (ThreadJoin) t=%" PRIu64 " < team end t=%" PRIu64 " at location %"
                     PRIu64 " record %" PRIu64 ", by %" PRIu64 " ticks",
                     m->comm, m->inst, tr->locs[m->loc].id, m->ij, m->tj, x->te,
                     tr->locs[x->loc].id, x->ie, x->te - m->tj);
        }
    }
    /* team instances that no fork claims */
    for (i = 0; i < nti; i = j) {
        minst key;
        for (j = i + 1; j < nti && ti[j].comm == ti[i].comm && ti[j].inst == ti[i].inst; j++)
            ;
        key.comm = ti[i].comm;
        key.inst = ti[i].inst;
        if (!nmi || !bsearch(&key, mi, nmi, sizeof *mi, cmp_minst))
            note(tr, W_TEAM, "team %u instance %" PRIu64 " (location %" PRIu64 " record %" PRIu64
                 "): no fork on any member", ti[i].comm, ti[i].inst, tr->locs[ti[i].loc].id, ti[i].ib);
    }
    free(fk);
    free(open);
    free(cnt);
    free(ti);
    free(mi);
}

static void check_pthreads(trace *tr)
{
    size_t i, j, n = 0;
    thr *p;
    for (i = 0; i < tr->nthr; i++)
        if (tr->thr[i].type >= T_CREATE)
            n++;
    if (!n)
        return;
    p = xrealloc(NULL, n * sizeof *p);
    for (i = n = 0; i < tr->nthr; i++)
        if (tr->thr[i].type >= T_CREATE)
            p[n++] = tr->thr[i];
    sort_n(p, n, sizeof *p, cmp_pthread);
    for (i = 0; i < n; i = j) {
        const thr *by[T_END + 1] = {NULL};
        for (j = i; j < n && p[j].comm == p[i].comm && p[j].seq == p[i].seq; j++) {
            if (by[p[j].type])
                note(tr, W_THREAD_UNMATCHED, "location %" PRIu64 " record %" PRIu64
                     ": a second %s of contingent %u sequence %" PRIu64, tr->locs[p[j].loc].id,
                     p[j].idx, kind_names[tr->locs[p[j].loc].kind[p[j].idx]], p[j].comm, p[j].seq);
            else
                by[p[j].type] = &p[j];
        }
        if (by[T_CREATE] && by[T_BEGIN]) {
            tr->threads++;
            if (by[T_BEGIN]->t < by[T_CREATE]->t)
                note(tr, V_THREAD_BEGIN, "contingent %u sequence %" PRIu64 ": location %" PRIu64
                     " record %" PRIu64 " (ThreadBegin) t=%" PRIu64 " < create t=%" PRIu64
                     " at location %" PRIu64 " record %" PRIu64 ", by %" PRIu64 " ticks",
                     p[i].comm, p[i].seq, tr->locs[by[T_BEGIN]->loc].id, by[T_BEGIN]->idx,
                     by[T_BEGIN]->t, by[T_CREATE]->t, tr->locs[by[T_CREATE]->loc].id,
                     by[T_CREATE]->idx, by[T_CREATE]->t - by[T_BEGIN]->t);
        } else {
            const thr *x = by[T_CREATE] ? by[T_CREATE] : by[T_BEGIN];
            if (x)
                note(tr, W_THREAD_UNMATCHED, "contingent %u sequence %" PRIu64 ": location %" PRIu64
                     " record %" PRIu64 " (%s) has no %s", p[i].comm, p[i].seq, tr->locs[x->loc].id,
                     x->idx, by[T_CREATE] ? "ThreadCreate" : "ThreadBegin",
                     by[T_CREATE] ? "ThreadBegin" : "ThreadCreate");
        }
        if (by[T_WAIT] && by[T_END]) {
            if (by[T_WAIT]->t < by[T_END]->t)
                note(tr, V_THREAD_WAIT, "contingent %u sequence %" PRIu64 ": location %" PRIu64
                     " record %" PRIu64 " (ThreadWait) t=%" PRIu64 " < thread end t=%" PRIu64
                     " at location %" PRIu64 " record %" PRIu64 ", by %" PRIu64 " ticks",
                     p[i].comm, p[i].seq, tr->locs[by[T_WAIT]->loc].id, by[T_WAIT]->idx,
                     by[T_WAIT]->t, by[T_END]->t, tr->locs[by[T_END]->loc].id, by[T_END]->idx,
                     by[T_END]->t - by[T_WAIT]->t);
        } else if (by[T_WAIT]) {
            /* a ThreadEnd without a wait is a detached thread: fine */
            note(tr, W_THREAD_UNMATCHED, "contingent %u sequence %" PRIu64 ": location %" PRIu64
                 " record %" PRIu64 " (ThreadWait) has no ThreadEnd", p[i].comm, p[i].seq,
                 tr->locs[by[T_WAIT]->loc].id, by[T_WAIT]->idx);
        }
    }
    free(p);
}

static void check_threads(trace *tr)
{
    sort_n(tr->thr, tr->nthr, sizeof *tr->thr, cmp_thr_loc);
    check_teams(tr);
    check_pthreads(tr);
}

/* ---- check 6: hybrid programs ------------------------------------------------- */
static void note_n(trace *tr, int cls, uint64_t n, const char *fmt, ...)
{
    finding *f = &tr->f[cls];
    if (!n)
        return;
    f->count += n;
    if (f->nex < MAX_EXAMPLES) {
        va_list va;
        va_start(va, fmt);
        vsnprintf(f->ex[f->nex++], sizeof f->ex[0], fmt, va);
        va_end(va);
    }
}

static int cmp_bar_team(const bar *x, const bar *y)
{
    if (x->mode != y->mode)
        return x->mode < y->mode ? -1 : 1;
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    if (x->b != y->b)
        return x->b < y->b ? -1 : 1;
    return 0;
}

/* per team and location, in record order: numbers the barriers j */
static int cmp_bar_loc(const void *a, const void *b)
{
    const bar *x = a, *y = b;
    int c = cmp_bar_team(x, y);
    if (c)
        return c;
    if (x->loc != y->loc)
        return x->loc < y->loc ? -1 : 1;
    return x->ie < y->ie ? -1 : x->ie > y->ie;
}

/* instances: team, j, location */
static int cmp_bar_inst(const void *a, const void *b)
{
    const bar *x = a, *y = b;
    int c = cmp_bar_team(x, y);
    if (c)
        return c;
    if (x->j != y->j)
        return x->j < y->j ? -1 : 1;
    return x->loc < y->loc ? -1 : x->loc > y->loc;
}

static void bar_team_name(const bar *b, char *buf, size_t n)
{
    if (b->mode == BM_TEAM)
        snprintf(buf, n, "team %" PRIu64 " instance %" PRIu64, b->a, b->b);
    else if (b->mode == BM_OMPT)
        snprintf(buf, n, "process %" PRIu64 " OMPT parallel region %" PRIu64, b->a, b->b);
    else
        snprintf(buf, n, "process %" PRIu64 " pthread barrier %" PRIu64, b->a, b->b);
}

/* Did IN's barrier visit like b (same team, barrier and location) break the rule? */
static bool bar_broken_in(const trace *in, const bar *b)
{
    size_t i;
    for (i = 0; in && i < in->nbviol; i++)
        if (!cmp_bar_team(&in->bviol[i], b) && in->bviol[i].j == b->j &&
            in->bviol[i].loc == b->loc)
            return true;
    return false;
}

/* OpenMP barriers: no thread leaves one before the last of its team entered
 * it; pthread barriers: no thread leaves an instance (the j-th wait of each
 * thread on the barrier) before its last enter.  With IN (checked first), a
 * visit that broke the rule in IN too is a warning (LLVM's join barrier lets
 * the workers leave at once, as the OMPT trace
 * casita-1_scorep-ompt-host-nested measured them) */
static void check_barriers(trace *tr, const trace *in)
{
    size_t i, j, k, t0, nmem;
    char name[96];
    sort_n(tr->bars, tr->nbars, sizeof *tr->bars, cmp_bar_loc);
    for (i = 0; i < tr->nbars; i++) {
        bar *x = &tr->bars[i];
        x->j = i > 0 && !cmp_bar_team(&x[-1], x) && x[-1].loc == x->loc ? x[-1].j + 1 : 0;
    }
    sort_n(tr->bars, tr->nbars, sizeof *tr->bars, cmp_bar_inst);
    for (t0 = 0; t0 < tr->nbars; t0 = k) {
        /* one team: its members are the locations with a barrier in it */
        for (k = t0 + 1; k < tr->nbars && !cmp_bar_team(&tr->bars[k], &tr->bars[t0]); k++)
            ;
        nmem = 0;
        for (i = t0; i < k; i++)
            if (tr->bars[i].j == 0)
                nmem++;
        for (i = t0; i < k; i = j) {
            const bar *last;
            for (j = i + 1; j < k && tr->bars[j].j == tr->bars[i].j; j++)
                ;
            tr->barriers++;
            bar_team_name(&tr->bars[i], name, sizeof name);
            if (j - i < nmem)
                note(tr, W_BARRIER_TEAM, "%s barrier %" PRIu64 ": %zu of the team's %zu threads "
                     "(location %" PRIu64 " record %" PRIu64 ")", name, tr->bars[i].j, j - i, nmem,
                     tr->locs[tr->bars[i].loc].id, tr->bars[i].ie);
            last = &tr->bars[i];
            for (size_t m = i; m < j; m++)
                if (tr->bars[m].te > last->te)
                    last = &tr->bars[m];
            for (size_t m = i; m < j; m++) {
                const bar *b = &tr->bars[m];
                if (!b->left)
                    note(tr, W_BARRIER_TEAM, "%s barrier %" PRIu64 ": location %" PRIu64 " record %"
                         PRIu64 " (Enter) has no Leave", name, b->j, tr->locs[b->loc].id, b->ie);
                else if (b->tl < last->te) {
                    GROW(tr->bviol, tr->nbviol, tr->capbviol);
                    tr->bviol[tr->nbviol++] = *b;
                    note(tr, bar_broken_in(in, b) ? W_BARRIER_AS_IN : V_BARRIER,
                         "%s barrier %" PRIu64 ": location %" PRIu64 " record %" PRIu64
                         " (Leave) t=%" PRIu64 " < enter t=%" PRIu64 " of location %" PRIu64
                         " record %" PRIu64 ", by %" PRIu64 " ticks",
                         name, b->j, tr->locs[b->loc].id, b->il, b->tl, last->te,
                         tr->locs[last->loc].id, last->ie, last->te - b->tl);
                }
            }
        }
    }
}

static int cmp_lock(const void *a, const void *b)
{
    const lockrec *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    if (x->model != y->model)
        return x->model < y->model ? -1 : 1;
    if (x->lock != y->lock)
        return x->lock < y->lock ? -1 : 1;
    if (x->order != y->order)
        return x->order < y->order ? -1 : 1;
    if (x->rel != y->rel)
        return x->rel ? 1 : -1;
    if (x->loc != y->loc)
        return x->loc < y->loc ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Locks, per process (lock ids are process-local), paradigm and lock id, in
 * acquisition order: acquisition k+1 is at or after release k.  The holder
 * itself may acquire again before it releases (nested locks). */
static void check_locks(trace *tr)
{
    size_t i, j;
    const lockrec *pa = NULL, *pr = NULL;  /* the previous acquisition and its release */
    sort_n(tr->locks, tr->nlocks, sizeof *tr->locks, cmp_lock);
    for (i = 0; i < tr->nlocks; i = j) {
        const lockrec *x = &tr->locks[i], *acq = NULL, *rel = NULL;
        for (j = i; j < tr->nlocks && tr->locks[j].group == x->group && tr->locks[j].model == x->model &&
                    tr->locks[j].lock == x->lock && tr->locks[j].order == x->order; j++) {
            const lockrec *y = &tr->locks[j];
            if ((y->rel ? rel : acq) != NULL) {
                note(tr, W_LOCK_UNPAIRED, "process %" PRIu64 " lock %u order %u: location %" PRIu64
                     " record %" PRIu64 " is a second %s", y->group, y->lock, y->order,
                     tr->locs[y->loc].id, y->idx, kind_names[tr->locs[y->loc].kind[y->idx]]);
                continue;
            }
            if (y->rel)
                rel = y;
            else
                acq = y;
        }
        if (pa && (pa->group != x->group || pa->model != x->model || pa->lock != x->lock))
            pa = pr = NULL;  /* another lock */
        if (!acq) {
            note(tr, W_LOCK_UNPAIRED, "process %" PRIu64 " lock %u order %u: location %" PRIu64
                 " record %" PRIu64 " releases without an acquisition", x->group, x->lock, x->order,
                 tr->locs[rel->loc].id, rel->idx);
            pa = pr = NULL;
            continue;
        }
        tr->lockpairs++;
        if (pa && pr && acq->loc != pa->loc && acq->t < pr->t)
            note(tr, V_LOCK, "process %" PRIu64 " lock %u: location %" PRIu64 " record %" PRIu64
                 " (%s, order %u) t=%" PRIu64 " < release t=%" PRIu64 " of order %u at location %"
                 PRIu64 " record %" PRIu64 ", by %" PRIu64 " ticks", x->group, x->lock,
                 tr->locs[acq->loc].id, acq->idx, kind_names[tr->locs[acq->loc].kind[acq->idx]],
                 acq->order, acq->t, pr->t, pr->order, tr->locs[pr->loc].id, pr->idx, pr->t - acq->t);
        if (!rel)
            note(tr, W_LOCK_UNPAIRED, "process %" PRIu64 " lock %u order %u: location %" PRIu64
                 " record %" PRIu64 " acquires without a release", x->group, x->lock, x->order,
                 tr->locs[acq->loc].id, acq->idx);
        pa = acq;
        pr = rel;
    }
}

static int cmp_act(const void *a, const void *b)
{
    const act *x = a, *y = b;
    if (x->loc != y->loc)
        return x->loc < y->loc ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int cmp_hc(const void *a, const void *b)
{
    const hostcall *x = a, *y = b;
    return x->gseq < y->gseq ? -1 : x->gseq > y->gseq;
}

/* the time of record idx of OUT's location li in IN, if IN has that location
 * with as many records */
static bool in_time(const trace *out, const trace *in, uint32_t li, uint64_t idx, uint64_t *t)
{
    uint32_t k;
    if (!in || (k = loc_index(in, out->locs[li].id)) == NONE || in->locs[k].n != out->locs[li].n)
        return false;
    *t = in->locs[k].t[idx];
    return true;
}

static const char *const act_names[] = {"kernel", "copy (RmaGet)", "copy (RmaPut)", "target region"};
static const char *const call_names[] = {"launch", "copy call", "host Enter"};

/* a device activity and the host call that issued it */
static void check_pair(trace *tr, const trace *in, const act *a, const hostcall *h)
{
    uint64_t early = h->t > a->t ? h->t - a->t : 0, ia, ih, early_in = 0;
    bool have_in = in_time(tr, in, a->loc, a->idx, &ia) && in_time(tr, in, h->loc, h->idx, &ih);
    char extra[64];
    int cls;
    tr->devpaired++;
    if (!early)
        return;
    if (have_in)
        early_in = ih > ia ? ih - ia : 0;
    cls = !in || (have_in && early <= early_in) ? W_DEVICE_EARLY : V_DEVICE;
    if (!have_in)
        extra[0] = 0;
    else if (early_in)
        snprintf(extra, sizeof extra, ", in IN by %" PRIu64, early_in);
    else
        snprintf(extra, sizeof extra, ", in IN not early");
    note(tr, cls, "location %" PRIu64 " record %" PRIu64 " (%s) t=%" PRIu64 " < its %s t=%" PRIu64
         " at location %" PRIu64 " record %" PRIu64 ", by %" PRIu64 " ticks%s",
         tr->locs[a->loc].id, a->idx, act_names[a->type], a->t,
         call_names[h->type], h->t, tr->locs[h->loc].id, h->idx, early, extra);
}

typedef struct tkey {       /* a target activity or host Enter, for pairing */
    uint64_t group, t, seq;
    uint32_t region, i;     /* i: index into acts or hcs */
} tkey;

static int cmp_tkey(const void *a, const void *b)
{
    const tkey *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    if (x->region != y->region)
        return x->region < y->region ? -1 : 1;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* OpenMP offloading (Score-P): per process and target region, the device's
 * Enters of the region at call depth 0 pair in time order with the host's
 * outermost Enters of it (any CPU thread of the process); surplus on either
 * side stays unpaired.  Processes without target activities (no device, or
 * host fallback) are not checked. */
static void check_targets(trace *tr, const trace *in)
{
    size_t i, j, na = 0, nh = 0, ea, eh;
    tkey *a = xrealloc(NULL, (tr->nacts ? tr->nacts : 1) * sizeof *a);
    tkey *h = xrealloc(NULL, (tr->nhcs ? tr->nhcs : 1) * sizeof *h);
    for (i = 0; i < tr->nacts; i++)
        if (tr->acts[i].type == A_TARGET) {
            const act *x = &tr->acts[i];
            tkey k = {tr->locs[x->loc].group, x->t, i, x->region, (uint32_t)i};
            a[na++] = k;
        }
    for (i = 0; i < tr->nhcs; i++)
        if (tr->hcs[i].type == H_TARGET) {
            const hostcall *x = &tr->hcs[i];
            tkey k = {x->group, x->t, x->gseq, x->region, (uint32_t)i};
            h[nh++] = k;
        }
    sort_n(a, na, sizeof *a, cmp_tkey);
    sort_n(h, nh, sizeof *h, cmp_tkey);
    for (i = j = 0; i < na; i = ea, j = eh) {
        uint64_t g = a[i].group;
        size_t p, q, uh = 0, ua = 0;
        for (ea = i; ea < na && a[ea].group == g; ea++)
            ;
        for (; j < nh && h[j].group < g; j++)
            ;
        for (eh = j; eh < nh && h[eh].group == g; eh++)
            ;
        for (p = i, q = j; p < ea || q < eh;) {  /* per region, both sorted by it */
            uint32_t r = q == eh || (p < ea && a[p].region <= h[q].region) ? a[p].region : h[q].region;
            for (; p < ea && q < eh && a[p].region == r && h[q].region == r; p++, q++)
                check_pair(tr, in, &tr->acts[a[p].i], &tr->hcs[h[q].i]);
            for (; p < ea && a[p].region == r; p++)
                ua++;
            for (; q < eh && h[q].region == r; q++)
                uh++;
        }
        note_n(tr, W_DEVICE_UNPAIRED, uh + ua, "process %" PRIu64 ": %zu host Enters of target regions, "
               "%zu target activities: %zu Enters and %zu activities unpaired", g, eh - j, ea - i, uh, ua);
    }
    free(a);
    free(h);
}

/* Devices: per accelerator stream, its activities (kernels: Enters at call
 * depth 0; copies: RmaGet/RmaPut) are paired in order with the calls that
 * issued them: the kernel launches that name the stream (CUDA_STREAM_REF)
 * and the copy calls of the stream's process.  Each activity takes the next
 * call of its type after the last paired one; the calls skipped lost their
 * activity (records lost by the measurement) and stay unpaired.  OpenMP
 * target regions are paired by check_targets. */
static void check_device(trace *tr, const trace *in)
{
    size_t i, j, ia, na, nh;
    hostcall *h = NULL;
    sort_n(tr->acts, tr->nacts, sizeof *tr->acts, cmp_act);
    sort_n(tr->hcs, tr->nhcs, sizeof *tr->hcs, cmp_hc);
    /* device-overhead: durations as in IN */
    if (in)
        for (i = 0; i < tr->nacts; i++) {
            const act *a = &tr->acts[i];
            uint64_t ib, ie, dout, din;
            if (!a->ended || !in_time(tr, in, a->loc, a->idx, &ib) || !in_time(tr, in, a->loc, a->iend, &ie))
                continue;
            dout = a->tend - a->t;
            din = ie - ib;
            if (dout > din + 1 || din > dout + 1)
                note(tr, V_DEVICE_OVERHEAD, "location %" PRIu64 " records %" PRIu64 "-%" PRIu64
                     " (%s): %" PRIu64 " ticks, %" PRIu64 " in IN", tr->locs[a->loc].id, a->idx,
                     a->iend, act_names[a->type], dout, din);
        }
    h = xrealloc(NULL, (tr->nhcs ? tr->nhcs : 1) * sizeof *h);
    for (ia = 0; ia < tr->nacts; ia = na) {
        uint32_t li = tr->acts[ia].loc;
        const loc *l = &tr->locs[li];
        size_t hp = 0, nlaunch = 0, ul = 0, ua = 0, uc = 0, ncall = 0, nk = 0, nt = 0;
        for (na = ia; na < tr->nacts && tr->acts[na].loc == li; na++)
            ;
        /* the stream's calls: launches naming it, copy calls of its process */
        for (i = nh = 0; i < tr->nhcs; i++) {
            const hostcall *x = &tr->hcs[i];
            if (x->type == H_TARGET)
                continue;
            if (x->type == H_LAUNCH ? x->stream == l->id
                                    : x->group == l->group && (!x->hasstream || x->stream == l->id))
                h[nh++] = *x;
        }
        for (i = 0; i < nh; i++)
            nlaunch += h[i].type == H_LAUNCH;
        if (!nlaunch)
            continue;  /* no kernel launched on it: not a stream of this model */
        for (i = ia; i < na; i++) {
            const act *a = &tr->acts[i];
            if (a->type == A_TARGET) {  /* check_targets' */
                nt++;
                continue;
            }
            nk += a->type == A_KERNEL;
            for (j = hp; j < nh; j++) {
                const hostcall *x = &h[j];
                if (a->type == A_KERNEL ? x->type == H_LAUNCH
                    : x->type == H_MEMCPY && !(x->flags & (a->type == A_GET ? R_D2H : R_H2D)))
                    break;
            }
            if (j == nh) {
                ua++;
                continue;
            }
            for (; hp < j; hp++) {
                ul += h[hp].type == H_LAUNCH;
                uc += h[hp].type == H_MEMCPY;
            }
            hp = j + 1;
            ncall += h[j].type == H_MEMCPY;
            check_pair(tr, in, a, &h[j]);
        }
        for (; hp < nh; hp++) {
            ul += h[hp].type == H_LAUNCH;
            uc += h[hp].type == H_MEMCPY;
        }
        note_n(tr, W_DEVICE_UNPAIRED, ul + ua, "stream location %" PRIu64 ": %zu launches, %zu kernels, "
               "%zu copies: %zu launches and %zu activities unpaired; %zu copy calls paired, %zu not",
               l->id, nlaunch, nk, na - ia - nk - nt, ul, ua, ncall, uc);
    }
    free(h);
    check_targets(tr, in);
}

/* ---- report ------------------------------------------------------------------ */
static void print_class(const trace *tr, int cls, bool violation)
{
    const finding *f = &tr->f[cls];
    int i;
    printf("up-check: %s: %s [%s] %" PRIu64 " %s\n", tr->label, violation ? "VIOLATION" : "warning",
           class_info[cls].id, f->count, class_info[cls].what);
    for (i = 0; i < f->nex; i++)
        printf("    %s\n", f->ex[i]);
    if (f->count > (uint64_t)f->nex)
        printf("    ... and %" PRIu64 " more\n", f->count - (uint64_t)f->nex);
}

static int report(const trace *tr, bool quiet)
{
    uint64_t nv = 0, nw = 0;
    int c;
    for (c = 0; c < W_FIRST; c++)
        nv += tr->f[c].count;
    for (c = W_FIRST; c < N_CLASSES; c++)
        nw += tr->f[c].count;
    for (c = 0; c < W_FIRST; c++)
        if (tr->f[c].count)
            print_class(tr, c, true);
    if (!quiet)
        for (c = W_FIRST; c < N_CLASSES; c++)
            if (tr->f[c].count)
                print_class(tr, c, false);
    if (quiet && nv == 0)
        return 0;
    printf("up-check: %s: %zu locations, %" PRIu64 " records, %" PRIu64 " messages, %" PRIu64
           " collectives", tr->label, tr->nlocs, tr->nrec, tr->messages, tr->collectives);
    if (tr->forks)
        printf(", %" PRIu64 " forks", tr->forks);
    if (tr->threads)
        printf(", %" PRIu64 " threads", tr->threads);
    if (tr->barriers)
        printf(", %" PRIu64 " barriers", tr->barriers);
    if (tr->lockpairs)
        printf(", %" PRIu64 " lock acquisitions", tr->lockpairs);
    if (tr->devpaired)
        printf(", %" PRIu64 " device activities", tr->devpaired);
    if (nv)
        printf(": %" PRIu64 " violation%s", nv, nv == 1 ? "" : "s");
    else
        printf(": ok");
    if (nw)
        printf(", %" PRIu64 " warning%s", nw, nw == 1 ? "" : "s");
    printf("\n");
    return nv ? 1 : 0;
}

static int usage(FILE *f, int status)
{
    fprintf(f, "usage: up-check [-q] OUT [--against IN]\n"
               "\n"
               "Checks an OTF2 trace (an experiment folder or its traces.otf2) for\n"
               "decreasing timestamps, receives before their send, collectives and\n"
               "thread teams that end before what they wait for, OpenMP barriers left\n"
               "before the team's last thread entered, locks taken before their\n"
               "release, device activities before their launch; with --against, that\n"
               "OUT has the locations, record counts and record kinds of IN, device\n"
               "activities no earlier before their launch and no shorter or longer.\n"
               "\n"
               "  -q, --quiet        print violations only\n"
               "  --against IN       the trace OUT was made from\n"
               "\n"
               "Exit status: 0 ok, 1 violations, 2 usage or read error.\n");
    return status;
}

int main(int argc, char **argv)
{
    const char *out = NULL, *in = NULL;
    bool quiet = false;
    trace tout, tin;
    int i, status = 2;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet"))
            quiet = true;
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return usage(stdout, 0);
        else if (!strcmp(argv[i], "--against")) {
            if (++i == argc || in) {
                fprintf(stderr, "up-check: --against needs one trace\n");
                return usage(stderr, 2);
            }
            in = argv[i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "up-check: unknown option '%s'\n", argv[i]);
            return usage(stderr, 2);
        } else if (out) {
            fprintf(stderr, "up-check: more than one trace to check ('%s')\n", argv[i]);
            return usage(stderr, 2);
        } else
            out = argv[i];
    }
    if (!out)
        return usage(stderr, 2);
    OTF2_Error_RegisterCallback(on_otf2_error, NULL);
    memset(&tout, 0, sizeof tout);
    memset(&tin, 0, sizeof tin);
    if (trace_load(&tout, out, true) != 0)
        goto done;
    if (in && trace_load(&tin, in, true) != 0)
        goto done;
    if (in)
        check_barriers(&tin, NULL); /* its broken visits, for check_barriers(&tout) */
    check_time(&tout);
    if (in)
        check_against(&tout, &tin);
    check_messages(&tout);
    check_colls(&tout);
    check_threads(&tout);
    check_barriers(&tout, in ? &tin : NULL);
    check_locks(&tout);
    check_device(&tout, in ? &tin : NULL);
    status = report(&tout, quiet);
done:
    trace_free(&tout);
    trace_free(&tin);
    return status;
}
