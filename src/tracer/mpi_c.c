/*
 * mpi_c.c - PMPI wrappers for C callers, and the bookkeeping of
 * nonblocking requests that the Fortran wrappers (mpi_f.c) share.
 *
 * Records follow Score-P's order: Enter(region), MpiSend / MpiIsend /
 * MpiCollectiveBegin, the PMPI call, MpiRecv / MpiIrecv / completions /
 * MpiCollectiveEnd, Leave(region).  Peers and roots are ranks in the
 * communicator, as OTF2 defines them; MPI_PROC_NULL peers record no message.
 * One-sided communication (windows, epochs, transfers) follows Score-P too:
 * its section below and docs/tracer.md.
 * Without recording (before MPI_Init, after MPI_Finalize, other threads)
 * every wrapper is a plain call of its PMPI function.
 */
#include <stdlib.h>
#include <string.h>

#include "tracer/upt.h"

/* ---- requests ---------------------------------------------------------------- */

enum { REQ_SEND, REQ_RECV, REQ_COLL };

typedef struct reqent {
    MPI_Request r;      /* key; MPI_REQUEST_NULL marks a free slot */
    uint64_t id;        /* OTF2 request id of the current operation, 0 if inactive */
    uint64_t bytes;     /* persistent: message size; collective: bytes sent */
    uint64_t received;  /* collective: bytes received */
    uint32_t peer, comm, tag; /* collective: peer is the root */
    uint64_t seq;       /* insertion order among entries with the same handle */
    uint8_t kind;       /* REQ_SEND, REQ_RECV, REQ_COLL */
    uint8_t op;         /* collective: its OTF2_CollectiveOp */
    uint8_t wildcard;   /* receive: upt_wildcard() of its source and tag */
    bool persistent, tomb;
} reqent;

/* Open MPI hands out one shared handle for every send that completed at
 * once, so a handle may stand for several open operations: entries are not
 * unique, and a completion takes the oldest entry of its handle. */
static uint64_t req_seq;

static reqent *reqs;
static size_t nreq, reqcap; /* used slots (incl. tombstones), capacity (power of two) */

static size_t req_hash(MPI_Request r)
{
    uintptr_t x = (uintptr_t)r;
    x ^= x >> 17;
    x *= 0xed5ad4bbu;
    x ^= x >> 11;
    return (size_t)x;
}

static reqent *req_find(MPI_Request r)
{
    size_t i;
    reqent *best = NULL;
    if (!reqcap || r == MPI_REQUEST_NULL)
        return NULL;
    for (i = req_hash(r) & (reqcap - 1);; i = (i + 1) & (reqcap - 1)) {
        if (reqs[i].r == r && !reqs[i].tomb && (!best || reqs[i].seq < best->seq))
            best = &reqs[i];
        if (reqs[i].r == MPI_REQUEST_NULL && !reqs[i].tomb)
            return best;
    }
}

static reqent *req_add(MPI_Request r)
{
    size_t i;
    reqent *e;
    if (r == MPI_REQUEST_NULL)
        return NULL;
    if (2 * (nreq + 1) > reqcap) { /* rehash, dropping tombstones */
        size_t nc = reqcap ? reqcap * 2 : 256, j, live = 0;
        reqent *nr = malloc(nc * sizeof *nr);
        if (!nr)
            return NULL;
        for (j = 0; j < nc; j++)
            nr[j].r = MPI_REQUEST_NULL, nr[j].tomb = false;
        for (j = 0; j < reqcap; j++)
            if (reqs[j].r != MPI_REQUEST_NULL && !reqs[j].tomb) {
                for (i = req_hash(reqs[j].r) & (nc - 1); nr[i].r != MPI_REQUEST_NULL;
                     i = (i + 1) & (nc - 1))
                    ;
                nr[i] = reqs[j];
                live++;
            }
        free(reqs);
        reqs = nr, reqcap = nc, nreq = live;
    }
    for (i = req_hash(r) & (reqcap - 1); reqs[i].r != MPI_REQUEST_NULL && !reqs[i].tomb;
         i = (i + 1) & (reqcap - 1))
        ;
    if (reqs[i].r == MPI_REQUEST_NULL)
        nreq++;
    e = &reqs[i];
    memset(e, 0, sizeof *e);
    e->r = r;
    e->seq = ++req_seq;
    return e;
}

static void req_del(reqent *e)
{
    e->tomb = true; /* keep probing chains intact */
}

uint64_t upt_bytes(int count, MPI_Datatype type)
{
    int size = 0;
    if (count <= 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS ||
        size < 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

uint64_t upt_isend_begin(uint32_t dest, uint32_t comm, uint32_t tag, uint64_t bytes)
{
    uint64_t id;
    if (!upt_on)
        return 0;
    id = upt_next_request();
    upt_isend(dest, comm, tag, bytes, id);
    return id;
}

void upt_req_isend(MPI_Request r, uint64_t id)
{
    reqent *e;
    if (!upt_on || !id || !(e = req_add(r)))
        return;
    e->kind = REQ_SEND;
    e->id = id;
}

void upt_req_irecv(MPI_Request r, uint32_t comm, unsigned wildcard)
{
    reqent *e;
    if (!upt_on || !(e = req_add(r)))
        return;
    e->kind = REQ_RECV;
    e->comm = comm;
    e->wildcard = (uint8_t)wildcard;
    e->id = upt_next_request();
    upt_irecv_request(e->id);
}

void upt_req_icoll(MPI_Request r, OTF2_CollectiveOp op, uint32_t comm, uint32_t root,
                   uint64_t sent, uint64_t received)
{
    reqent *e;
    if (!upt_on || !(e = req_add(r)))
        return;
    e->kind = REQ_COLL;
    e->op = (uint8_t)op;
    e->comm = comm, e->peer = root;
    e->bytes = sent, e->received = received;
    e->id = upt_next_request();
    upt_nbcoll_request(e->id);
}

void upt_req_persistent(MPI_Request r, bool send, uint32_t peer, uint32_t comm, uint32_t tag,
                        uint64_t bytes)
{
    reqent *e;
    if (!upt_on || !(e = req_add(r)))
        return;
    e->persistent = true;
    e->kind = send ? REQ_SEND : REQ_RECV;
    e->peer = peer, e->comm = comm, e->tag = tag, e->bytes = bytes;
    if (!send)
        e->wildcard = (uint8_t)upt_wildcard((int)peer, (int)tag);
}

void upt_req_start(MPI_Request r)
{
    reqent *e = req_find(r);
    if (!upt_on || !e || !e->persistent || e->peer == (uint32_t)MPI_PROC_NULL)
        return;
    e->id = upt_next_request();
    if (e->kind == REQ_SEND)
        upt_isend(e->peer, e->comm, e->tag, e->bytes, e->id);
    else
        upt_irecv_request(e->id);
}

void upt_req_completed(MPI_Request r, const MPI_Status *st)
{
    reqent *e = req_find(r);
    int cancelled = 0;
    if (!e)
        return;
    if (e->id) {
        if (st && PMPI_Test_cancelled(st, &cancelled) == MPI_SUCCESS && cancelled)
            upt_request_cancelled(e->id);
        else if (e->kind == REQ_SEND)
            upt_isend_complete(e->id);
        else if (e->kind == REQ_COLL)
            upt_nbcoll_complete((OTF2_CollectiveOp)e->op, e->comm, e->peer, e->bytes,
                                e->received, e->id);
        else if (st && st->MPI_SOURCE != MPI_PROC_NULL) {
            int n = 0;
            PMPI_Get_count(st, MPI_BYTE, &n);
            upt_irecv((uint32_t)st->MPI_SOURCE, e->comm, (uint32_t)st->MPI_TAG,
                      n > 0 ? (uint64_t)n : 0, e->id, e->wildcard);
        }
        e->id = 0;
    }
    if (!e->persistent)
        req_del(e);
}

void upt_req_tested(MPI_Request r)
{
    reqent *e = req_find(r);
    if (e && e->id)
        upt_request_test(e->id);
}

void upt_req_freed(MPI_Request r)
{
    reqent *e = req_find(r);
    if (e)
        req_del(e);
}

/* ---- one-sided communication: windows, epochs, open transfers -------------------
 * Score-P's conventions (scorep_mpi_rma_request.c; docs/tracer.md).  A
 * transfer gets a matching id from the request counter; the transfers of a
 * window to one target share it until a synchronisation completes them, one
 * id for those that complete at the target when they complete here (gets:
 * "combined") and one for the others (puts, atomics: "separate").  The
 * synchronisation writes, per id, RmaOpCompleteNonBlocking (local
 * completion) and RmaOpCompleteRemote when it completes the transfers at the
 * target too, before its own sync record:
 *   fence, complete, wait:    local; remote for combined ids; forgotten
 *   test that succeeds, flush_local(_all):
 *                             local; remote for combined ids, which are
 *                             forgotten (separate ones stay open)
 *   flush(_all), unlock(_all): local if not yet, remote; forgotten
 * In each call the ids are completed by target, separate before combined.
 * A window holds at most two open ids per target, so its memory is bounded
 * by its communicator's size.  Only the recording thread keeps this table. */

typedef struct rmaop {
    uint32_t target;
    bool combined;  /* completes remotely with its local completion (gets) */
    bool local;     /* RmaOpCompleteNonBlocking written */
    uint64_t id;
} rmaop;

typedef struct rmawin {
    MPI_Win w;
    uint32_t id;
    bool allocated;                          /* MPI_Win_allocate(_shared) */
    uint32_t group[2];                       /* of the access / exposure epoch */
    rmaop *ops;        /* open ids, by target, separate before combined */
    uint32_t nops, capops;
} rmawin;

static rmawin *wins;
static uint32_t nwins, capwins;

static rmawin *win_find(MPI_Win w)
{
    uint32_t i;
    if (w == MPI_WIN_NULL)
        return NULL;
    for (i = nwins; i-- > 0;)
        if (wins[i].w == w)
            return &wins[i];
    return NULL;
}

enum { DONE_EPOCH, DONE_LOCAL, DONE_FULL }; /* Score-P's three completions */

/* complete the open ids of `x` to `target` (or UPT_RMA_ALL) */
static void win_complete(rmawin *x, int target, int how)
{
    uint32_t i = 0, k = 0;
    for (i = 0; i < x->nops; i++) {
        rmaop *o = &x->ops[i];
        bool forget = true;
        if (target != UPT_RMA_ALL && o->target != (uint32_t)target) {
            x->ops[k++] = *o;
            continue;
        }
        if (!o->local) {
            upt_rma_op_complete_local(x->id, o->id);
            o->local = true;
            if (o->combined && how != DONE_FULL)
                upt_rma_op_complete_remote(x->id, o->id);
        }
        if (how == DONE_FULL)
            upt_rma_op_complete_remote(x->id, o->id);
        else if (how == DONE_LOCAL && !o->combined)
            forget = false;
        if (!forget)
            x->ops[k++] = *o;
    }
    x->nops = k;
}

void upt_rma_op(MPI_Win w, int target, int kind, OTF2_RmaAtomicType atype, uint64_t put,
                uint64_t got)
{
    rmawin *x;
    uint64_t id = 0;
    uint32_t i;
    bool combined = kind == UPT_RMA_GET, tracked = false;
    if (target == MPI_PROC_NULL || target < 0 || !upt_recording() || !(x = win_find(w)))
        return;
    /* the open id of (target, completion), or the place of a new one */
    for (i = 0; i < x->nops; i++)
        if (x->ops[i].target > (uint32_t)target ||
            (x->ops[i].target == (uint32_t)target && x->ops[i].combined >= combined))
            break;
    if (i < x->nops && x->ops[i].target == (uint32_t)target && x->ops[i].combined == combined) {
        id = x->ops[i].id;
        tracked = true;
    } else {
        id = upt_next_request();
        if (x->nops == x->capops) {
            uint32_t nc = x->capops ? 2 * x->capops : 4;
            rmaop *no = realloc(x->ops, nc * sizeof *no);
            if (no)
                x->ops = no, x->capops = nc;
        }
        if (x->nops < x->capops) {
            memmove(&x->ops[i + 1], &x->ops[i], (x->nops - i) * sizeof *x->ops);
            x->ops[i] = (rmaop){(uint32_t)target, combined, false, id};
            x->nops++;
            tracked = true;
        }
    }
    if (kind == UPT_RMA_PUT)
        upt_rma_put(x->id, (uint32_t)target, put, id);
    else if (kind == UPT_RMA_GET)
        upt_rma_get(x->id, (uint32_t)target, got, id);
    else
        upt_rma_atomic(x->id, (uint32_t)target, atype, put, got, id);
    if (!tracked) { /* out of memory: completed at once, so it is completed */
        upt_rma_op_complete_local(x->id, id);
        upt_rma_op_complete_remote(x->id, id);
    }
}

void upt_win_create_begin(void)
{
    upt_rma_coll_begin();
}

/* Score-P: RmaWinCreate, then the end of the collective that made it */
void upt_win_create_end(MPI_Win w, MPI_Comm comm, uint32_t region, bool allocated)
{
    uint32_t id = UINT32_MAX;
    if (w != MPI_WIN_NULL && upt_recording() &&
        (id = upt_win_define(upt_comm_id(comm), region)) != UINT32_MAX) {
        if (nwins == capwins) {
            uint32_t nc = capwins ? 2 * capwins : 8;
            rmawin *nw = realloc(wins, nc * sizeof *nw);
            if (nw)
                wins = nw, capwins = nc;
        }
        if (nwins < capwins) {
            rmawin *x = &wins[nwins++];
            memset(x, 0, sizeof *x);
            x->w = w, x->id = id, x->allocated = allocated;
            x->group[0] = x->group[1] = UINT32_MAX;
        }
        upt_rma_win_create(id);
    }
    /* a window that failed (or went unrecorded) ends with an undefined one */
    upt_rma_coll_end(allocated ? OTF2_COLLECTIVE_OP_CREATE_HANDLE_AND_ALLOCATE
                               : OTF2_COLLECTIVE_OP_CREATE_HANDLE,
                     OTF2_RMA_SYNC_LEVEL_PROCESS, id != UINT32_MAX ? id : OTF2_UNDEFINED_UINT32);
}

/* Ids still open at MPI_Win_free (no synchronisation completed them, which
 * MPI does not allow) are dropped without a record, as Score-P does. */
upt_win_freeing upt_win_free_begin(MPI_Win w)
{
    upt_win_freeing f = {OTF2_UNDEFINED_UINT32, OTF2_COLLECTIVE_OP_DESTROY_HANDLE};
    rmawin *x;
    if (upt_recording() && (x = win_find(w)) != NULL) { /* else nothing but Enter, Leave */
        upt_rma_coll_begin();
        f.id = x->id;
        if (x->allocated)
            f.op = OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE;
        free(x->ops);
        *x = wins[--nwins];
    }
    return f;
}

void upt_win_free_end(upt_win_freeing f)
{
    if (f.id == OTF2_UNDEFINED_UINT32)
        return;
    upt_rma_win_destroy(f.id);
    upt_rma_coll_end(f.op, OTF2_RMA_SYNC_LEVEL_PROCESS, f.id);
}

#define SYNC_FULL (OTF2_RMA_SYNC_LEVEL_MEMORY | OTF2_RMA_SYNC_LEVEL_PROCESS)

/* a fence of a window we do not know records nothing but Enter, Leave */
void upt_win_fence_begin(MPI_Win w)
{
    if (upt_recording() && win_find(w))
        upt_rma_coll_begin();
}

void upt_win_fence_end(MPI_Win w)
{
    rmawin *x;
    if (!upt_recording() || !(x = win_find(w)))
        return;
    win_complete(x, UPT_RMA_ALL, DONE_EPOCH);
    upt_rma_coll_end(OTF2_COLLECTIVE_OP_BARRIER, SYNC_FULL, x->id);
}

void upt_win_epoch_start(MPI_Win w, MPI_Group g, bool exposure)
{
    rmawin *x;
    uint32_t gid;
    if (!upt_recording() || !(x = win_find(w)) || (gid = upt_group_define(g)) == UINT32_MAX)
        return;
    x->group[exposure] = gid;
    upt_rma_group_sync(OTF2_RMA_SYNC_LEVEL_PROCESS, x->id, gid);
}

/* (an epoch whose group could not be defined has no RmaGroupSync records) */
void upt_win_epoch_end(MPI_Win w, bool exposure, bool test, bool done)
{
    rmawin *x;
    uint32_t g;
    if (!upt_recording() || !(x = win_find(w)))
        return;
    g = x->group[exposure];
    if (!done) {
        if (g != UINT32_MAX)
            upt_rma_group_sync(OTF2_RMA_SYNC_LEVEL_NONE, x->id, g);
        return;
    }
    win_complete(x, UPT_RMA_ALL, test ? DONE_LOCAL : DONE_EPOCH);
    if (g != UINT32_MAX)
        upt_rma_group_sync(SYNC_FULL, x->id, g);
    x->group[exposure] = UINT32_MAX;
}

/* the remote of a lock record: OTF2_UNDEFINED_UINT32 names every target */
#define REMOTE(rank) ((rank) == UPT_RMA_ALL ? OTF2_UNDEFINED_UINT32 : (uint32_t)(rank))

void upt_win_lock(MPI_Win w, int rank, bool exclusive)
{
    rmawin *x;
    if (rank != MPI_PROC_NULL && upt_recording() && (x = win_find(w)) != NULL)
        upt_rma_request_lock(x->id, REMOTE(rank),
                             exclusive ? OTF2_LOCK_EXCLUSIVE : OTF2_LOCK_SHARED);
}

void upt_win_unlock(MPI_Win w, int rank)
{
    rmawin *x;
    if (rank == MPI_PROC_NULL || !upt_recording() || !(x = win_find(w)))
        return;
    win_complete(x, rank, DONE_FULL);
    upt_rma_release_lock(x->id, REMOTE(rank));
}

void upt_win_flush(MPI_Win w, int rank, bool local)
{
    rmawin *x;
    if (rank != MPI_PROC_NULL && upt_recording() && (x = win_find(w)) != NULL)
        win_complete(x, rank, local ? DONE_LOCAL : DONE_FULL);
}

/* ---- helpers ------------------------------------------------------------------- */

static int comm_size(MPI_Comm c)
{
    int n = 0;
    PMPI_Comm_size(c, &n);
    return n;
}

static int comm_rank(MPI_Comm c)
{
    int n = 0;
    PMPI_Comm_rank(c, &n);
    return n;
}

static uint64_t sum_counts(const int *counts, int n, MPI_Datatype t)
{
    uint64_t s = 0;
    int i;
    if (!counts)
        return 0;
    for (i = 0; i < n; i++)
        s += upt_bytes(counts[i], t);
    return s;
}

#define ON() (upt_on)

/* ---- life cycle ------------------------------------------------------------------ */

UPT_EXPORT int MPI_Init(int *argc, char ***argv)
{
    uint64_t t = upt_now();
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        upt_init_from(UPT_R_MPI_Init, t);
    return rc;
}

UPT_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    uint64_t t = upt_now();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        upt_init_from(UPT_R_MPI_Init_thread, t);
    return rc;
}

UPT_EXPORT int MPI_Finalize(void)
{
    upt_finalize();
    return PMPI_Finalize();
}

UPT_EXPORT int MPI_Abort(MPI_Comm comm, int code)
{
    upt_enter(UPT_R_MPI_Abort);
    upt_abort();
    return PMPI_Abort(comm, code);
}

/* ---- point to point -------------------------------------------------------------- */

#define SEND_WRAPPER(NAME)                                                            \
    UPT_EXPORT int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest,  \
                              int tag, MPI_Comm comm)                                 \
    {                                                                                 \
        int rc;                                                                       \
        if (!ON())                                                                    \
            return PMPI_##NAME(buf, count, type, dest, tag, comm);                     \
        upt_enter(UPT_R_MPI_##NAME);                                                  \
        if (dest != MPI_PROC_NULL)                                                    \
            upt_send((uint32_t)dest, upt_comm_id(comm), (uint32_t)tag,                \
                     upt_bytes(count, type));                                         \
        rc = PMPI_##NAME(buf, count, type, dest, tag, comm);                           \
        upt_leave(UPT_R_MPI_##NAME);                                                  \
        return rc;                                                                    \
    }
SEND_WRAPPER(Send)
SEND_WRAPPER(Bsend)
SEND_WRAPPER(Ssend)
SEND_WRAPPER(Rsend)

#define ISEND_WRAPPER(NAME)                                                           \
    UPT_EXPORT int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest,  \
                              int tag, MPI_Comm comm, MPI_Request *req)               \
    {                                                                                 \
        int rc;                                                                       \
        uint64_t id = 0;                                                              \
        if (!ON())                                                                    \
            return PMPI_##NAME(buf, count, type, dest, tag, comm, req);                \
        upt_enter(UPT_R_MPI_##NAME);                                                  \
        if (dest != MPI_PROC_NULL)                                                    \
            id = upt_isend_begin((uint32_t)dest, upt_comm_id(comm), (uint32_t)tag,    \
                                 upt_bytes(count, type));                             \
        rc = PMPI_##NAME(buf, count, type, dest, tag, comm, req);                      \
        if (rc == MPI_SUCCESS)                                                        \
            upt_req_isend(*req, id);                                                  \
        upt_leave(UPT_R_MPI_##NAME);                                                  \
        return rc;                                                                    \
    }
ISEND_WRAPPER(Isend)
ISEND_WRAPPER(Ibsend)
ISEND_WRAPPER(Issend)
ISEND_WRAPPER(Irsend)

#define INIT_WRAPPER(NAME, SEND)                                                      \
    UPT_EXPORT int MPI_##NAME(INIT_BUF_##SEND buf, int count, MPI_Datatype type,        \
                              int peer, int tag, MPI_Comm comm, MPI_Request *req)     \
    {                                                                                 \
        int rc;                                                                       \
        if (!ON())                                                                    \
            return PMPI_##NAME(buf, count, type, peer, tag, comm, req);                \
        upt_enter(UPT_R_MPI_##NAME);                                                  \
        rc = PMPI_##NAME(buf, count, type, peer, tag, comm, req);                      \
        if (rc == MPI_SUCCESS)                                                        \
            upt_req_persistent(*req, SEND, (uint32_t)peer, upt_comm_id(comm),          \
                               (uint32_t)tag, upt_bytes(count, type));                \
        upt_leave(UPT_R_MPI_##NAME);                                                  \
        return rc;                                                                    \
    }
#define INIT_BUF_true const void *
#define INIT_BUF_false void *
INIT_WRAPPER(Send_init, true)
INIT_WRAPPER(Bsend_init, true)
INIT_WRAPPER(Ssend_init, true)
INIT_WRAPPER(Rsend_init, true)
INIT_WRAPPER(Recv_init, false)

/* MpiRecv of a finished receive; wildcard: upt_wildcard() of its arguments */
static void record_recv(const MPI_Status *st, uint32_t comm, unsigned wildcard)
{
    int n = 0;
    if (st->MPI_SOURCE == MPI_PROC_NULL)
        return;
    PMPI_Get_count(st, MPI_BYTE, &n);
    upt_recv((uint32_t)st->MPI_SOURCE, comm, (uint32_t)st->MPI_TAG, n > 0 ? (uint64_t)n : 0,
             wildcard);
}

UPT_EXPORT int MPI_Recv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
                        MPI_Status *status)
{
    MPI_Status st;
    int rc;
    if (!ON())
        return PMPI_Recv(buf, count, type, src, tag, comm, status);
    upt_enter(UPT_R_MPI_Recv);
    if (status == MPI_STATUS_IGNORE)
        status = &st;
    rc = PMPI_Recv(buf, count, type, src, tag, comm, status);
    if (rc == MPI_SUCCESS)
        record_recv(status, upt_comm_id(comm), upt_wildcard(src, tag));
    upt_leave(UPT_R_MPI_Recv);
    return rc;
}

UPT_EXPORT int MPI_Irecv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
                         MPI_Request *req)
{
    int rc;
    if (!ON())
        return PMPI_Irecv(buf, count, type, src, tag, comm, req);
    upt_enter(UPT_R_MPI_Irecv);
    rc = PMPI_Irecv(buf, count, type, src, tag, comm, req);
    if (rc == MPI_SUCCESS && src != MPI_PROC_NULL)
        upt_req_irecv(*req, upt_comm_id(comm), upt_wildcard(src, tag));
    upt_leave(UPT_R_MPI_Irecv);
    return rc;
}

UPT_EXPORT int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                            void *rbuf, int rcount, MPI_Datatype rtype, int src, int rtag,
                            MPI_Comm comm, MPI_Status *status)
{
    MPI_Status st;
    int rc;
    uint32_t c;
    if (!ON())
        return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm,
                             status);
    upt_enter(UPT_R_MPI_Sendrecv);
    c = upt_comm_id(comm);
    if (dest != MPI_PROC_NULL)
        upt_send((uint32_t)dest, c, (uint32_t)stag, upt_bytes(scount, stype));
    if (status == MPI_STATUS_IGNORE)
        status = &st;
    rc = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm,
                       status);
    if (rc == MPI_SUCCESS)
        record_recv(status, c, upt_wildcard(src, rtag));
    upt_leave(UPT_R_MPI_Sendrecv);
    return rc;
}

UPT_EXPORT int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag,
                                    int src, int rtag, MPI_Comm comm, MPI_Status *status)
{
    MPI_Status st;
    int rc;
    uint32_t c;
    if (!ON())
        return PMPI_Sendrecv_replace(buf, count, type, dest, stag, src, rtag, comm, status);
    upt_enter(UPT_R_MPI_Sendrecv_replace);
    c = upt_comm_id(comm);
    if (dest != MPI_PROC_NULL)
        upt_send((uint32_t)dest, c, (uint32_t)stag, upt_bytes(count, type));
    if (status == MPI_STATUS_IGNORE)
        status = &st;
    rc = PMPI_Sendrecv_replace(buf, count, type, dest, stag, src, rtag, comm, status);
    if (rc == MPI_SUCCESS)
        record_recv(status, c, upt_wildcard(src, rtag));
    upt_leave(UPT_R_MPI_Sendrecv_replace);
    return rc;
}

UPT_EXPORT int MPI_Probe(int src, int tag, MPI_Comm comm, MPI_Status *status)
{
    int rc;
    if (!ON())
        return PMPI_Probe(src, tag, comm, status);
    upt_enter(UPT_R_MPI_Probe);
    rc = PMPI_Probe(src, tag, comm, status);
    upt_leave(UPT_R_MPI_Probe);
    return rc;
}

UPT_EXPORT int MPI_Iprobe(int src, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    int rc;
    if (!ON())
        return PMPI_Iprobe(src, tag, comm, flag, status);
    upt_enter(UPT_R_MPI_Iprobe);
    rc = PMPI_Iprobe(src, tag, comm, flag, status);
    upt_leave(UPT_R_MPI_Iprobe);
    return rc;
}

/* A matched probe hands the message to MPI_Mrecv, which has no communicator
 * argument: remember the communicator per message handle (a few at once),
 * and whether the probe named MPI_ANY_SOURCE or MPI_ANY_TAG: the receive
 * is as wildcard as the probe that matched its message. */
static struct { MPI_Message m; uint32_t comm; uint8_t wildcard; } probed[64];

static void probed_put(MPI_Message m, MPI_Comm comm, unsigned wildcard)
{
    size_t i;
    for (i = 0; i < 64; i++)
        if (probed[i].m == MPI_MESSAGE_NULL || probed[i].m == m || i == 63) {
            probed[i].m = m;
            probed[i].comm = upt_comm_id(comm);
            probed[i].wildcard = (uint8_t)wildcard;
            return;
        }
}

static uint32_t probed_take(MPI_Message m, unsigned *wildcard)
{
    size_t i;
    for (i = 0; i < 64; i++)
        if (probed[i].m == m) {
            probed[i].m = MPI_MESSAGE_NULL;
            *wildcard = probed[i].wildcard;
            return probed[i].comm;
        }
    *wildcard = 0;
    return UPT_COMM_WORLD; /* unknown: the usual case */
}

UPT_EXPORT int MPI_Mprobe(int src, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *status)
{
    int rc;
    if (!ON())
        return PMPI_Mprobe(src, tag, comm, msg, status);
    upt_enter(UPT_R_MPI_Mprobe);
    rc = PMPI_Mprobe(src, tag, comm, msg, status);
    if (rc == MPI_SUCCESS)
        probed_put(*msg, comm, upt_wildcard(src, tag));
    upt_leave(UPT_R_MPI_Mprobe);
    return rc;
}

UPT_EXPORT int MPI_Improbe(int src, int tag, MPI_Comm comm, int *flag, MPI_Message *msg,
                           MPI_Status *status)
{
    int rc;
    if (!ON())
        return PMPI_Improbe(src, tag, comm, flag, msg, status);
    upt_enter(UPT_R_MPI_Improbe);
    rc = PMPI_Improbe(src, tag, comm, flag, msg, status);
    if (rc == MPI_SUCCESS && *flag)
        probed_put(*msg, comm, upt_wildcard(src, tag));
    upt_leave(UPT_R_MPI_Improbe);
    return rc;
}

UPT_EXPORT int MPI_Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *msg,
                         MPI_Status *status)
{
    MPI_Status st;
    int rc;
    uint32_t c;
    unsigned wildcard;
    if (!ON())
        return PMPI_Mrecv(buf, count, type, msg, status);
    upt_enter(UPT_R_MPI_Mrecv);
    c = probed_take(*msg, &wildcard);
    if (status == MPI_STATUS_IGNORE)
        status = &st;
    rc = PMPI_Mrecv(buf, count, type, msg, status);
    if (rc == MPI_SUCCESS)
        record_recv(status, c, wildcard);
    upt_leave(UPT_R_MPI_Mrecv);
    return rc;
}

UPT_EXPORT int MPI_Imrecv(void *buf, int count, MPI_Datatype type, MPI_Message *msg,
                          MPI_Request *req)
{
    int rc;
    uint32_t c;
    unsigned wildcard;
    if (!ON())
        return PMPI_Imrecv(buf, count, type, msg, req);
    upt_enter(UPT_R_MPI_Imrecv);
    c = probed_take(*msg, &wildcard);
    rc = PMPI_Imrecv(buf, count, type, msg, req);
    if (rc == MPI_SUCCESS)
        upt_req_irecv(*req, c, wildcard);
    upt_leave(UPT_R_MPI_Imrecv);
    return rc;
}

UPT_EXPORT int MPI_Start(MPI_Request *req)
{
    int rc;
    if (!ON())
        return PMPI_Start(req);
    upt_enter(UPT_R_MPI_Start);
    upt_req_start(*req);
    rc = PMPI_Start(req);
    upt_leave(UPT_R_MPI_Start);
    return rc;
}

UPT_EXPORT int MPI_Startall(int n, MPI_Request reqs_[])
{
    int rc, i;
    if (!ON())
        return PMPI_Startall(n, reqs_);
    upt_enter(UPT_R_MPI_Startall);
    for (i = 0; i < n; i++)
        upt_req_start(reqs_[i]);
    rc = PMPI_Startall(n, reqs_);
    upt_leave(UPT_R_MPI_Startall);
    return rc;
}

/* ---- completion ------------------------------------------------------------------- */

/* Request arrays: the handles before the call (completion overwrites them)
 * and statuses of our own when the caller ignores them. */
typedef struct reqcopy {
    MPI_Request small_r[32];
    MPI_Status small_s[32];
    MPI_Request *r;
    MPI_Status *s;
} reqcopy;

static bool reqcopy_init(reqcopy *c, int n, const MPI_Request *reqs_)
{
    c->r = c->small_r, c->s = c->small_s;
    if (n > 32) {
        c->r = malloc((size_t)n * sizeof *c->r);
        c->s = malloc((size_t)n * sizeof *c->s);
        if (!c->r || !c->s) {
            free(c->r), free(c->s);
            c->r = NULL, c->s = NULL;
            return false;
        }
    }
    if (n > 0)
        memcpy(c->r, reqs_, (size_t)n * sizeof *c->r);
    return true;
}

static void reqcopy_free(reqcopy *c)
{
    if (c->r != c->small_r)
        free(c->r), free(c->s);
}

UPT_EXPORT int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    MPI_Status st;
    MPI_Request before;
    int rc;
    if (!ON())
        return PMPI_Wait(req, status);
    upt_enter(UPT_R_MPI_Wait);
    before = *req;
    if (status == MPI_STATUS_IGNORE)
        status = &st;
    rc = PMPI_Wait(req, status);
    if (rc == MPI_SUCCESS)
        upt_req_completed(before, status);
    upt_leave(UPT_R_MPI_Wait);
    return rc;
}

UPT_EXPORT int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    MPI_Status st;
    MPI_Request before;
    int rc;
    if (!ON())
        return PMPI_Test(req, flag, status);
    upt_enter(UPT_R_MPI_Test);
    before = *req;
    if (status == MPI_STATUS_IGNORE)
        status = &st;
    rc = PMPI_Test(req, flag, status);
    if (rc == MPI_SUCCESS) {
        if (*flag)
            upt_req_completed(before, status);
        else
            upt_req_tested(before);
    }
    upt_leave(UPT_R_MPI_Test);
    return rc;
}

UPT_EXPORT int MPI_Waitall(int n, MPI_Request reqs_[], MPI_Status statuses[])
{
    reqcopy c;
    MPI_Status *st;
    int rc, i;
    if (!ON() || !reqcopy_init(&c, n, reqs_))
        return PMPI_Waitall(n, reqs_, statuses);
    upt_enter(UPT_R_MPI_Waitall);
    st = statuses == MPI_STATUSES_IGNORE ? c.s : statuses;
    rc = PMPI_Waitall(n, reqs_, st);
    for (i = 0; i < n; i++)
        if (rc == MPI_SUCCESS || (rc == MPI_ERR_IN_STATUS && st[i].MPI_ERROR == MPI_SUCCESS))
            upt_req_completed(c.r[i], &st[i]);
    upt_leave(UPT_R_MPI_Waitall);
    reqcopy_free(&c);
    return rc;
}

UPT_EXPORT int MPI_Testall(int n, MPI_Request reqs_[], int *flag, MPI_Status statuses[])
{
    reqcopy c;
    MPI_Status *st;
    int rc, i;
    if (!ON() || !reqcopy_init(&c, n, reqs_))
        return PMPI_Testall(n, reqs_, flag, statuses);
    upt_enter(UPT_R_MPI_Testall);
    st = statuses == MPI_STATUSES_IGNORE ? c.s : statuses;
    rc = PMPI_Testall(n, reqs_, flag, st);
    for (i = 0; i < n && rc == MPI_SUCCESS; i++) {
        if (*flag)
            upt_req_completed(c.r[i], &st[i]);
        else
            upt_req_tested(c.r[i]);
    }
    upt_leave(UPT_R_MPI_Testall);
    reqcopy_free(&c);
    return rc;
}

UPT_EXPORT int MPI_Waitany(int n, MPI_Request reqs_[], int *index, MPI_Status *status)
{
    reqcopy c;
    MPI_Status st;
    int rc;
    if (!ON() || !reqcopy_init(&c, n, reqs_))
        return PMPI_Waitany(n, reqs_, index, status);
    upt_enter(UPT_R_MPI_Waitany);
    if (status == MPI_STATUS_IGNORE)
        status = &st;
    rc = PMPI_Waitany(n, reqs_, index, status);
    if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED && *index >= 0 && *index < n)
        upt_req_completed(c.r[*index], status);
    upt_leave(UPT_R_MPI_Waitany);
    reqcopy_free(&c);
    return rc;
}

UPT_EXPORT int MPI_Testany(int n, MPI_Request reqs_[], int *index, int *flag, MPI_Status *status)
{
    reqcopy c;
    MPI_Status st;
    int rc, i;
    if (!ON() || !reqcopy_init(&c, n, reqs_))
        return PMPI_Testany(n, reqs_, index, flag, status);
    upt_enter(UPT_R_MPI_Testany);
    if (status == MPI_STATUS_IGNORE)
        status = &st;
    rc = PMPI_Testany(n, reqs_, index, flag, status);
    if (rc == MPI_SUCCESS) {
        if (*flag && *index != MPI_UNDEFINED && *index >= 0 && *index < n)
            upt_req_completed(c.r[*index], status);
        else if (!*flag)
            for (i = 0; i < n; i++)
                upt_req_tested(c.r[i]);
    }
    upt_leave(UPT_R_MPI_Testany);
    reqcopy_free(&c);
    return rc;
}

static int some(int which, int n, MPI_Request reqs_[], int *outcount, int indices[],
                MPI_Status statuses[])
{
    reqcopy c;
    MPI_Status *st;
    int rc, i;
    uint32_t region = which ? UPT_R_MPI_Testsome : UPT_R_MPI_Waitsome;
    if (!ON() || !reqcopy_init(&c, n, reqs_))
        return which ? PMPI_Testsome(n, reqs_, outcount, indices, statuses)
                     : PMPI_Waitsome(n, reqs_, outcount, indices, statuses);
    upt_enter(region);
    st = statuses == MPI_STATUSES_IGNORE ? c.s : statuses;
    rc = which ? PMPI_Testsome(n, reqs_, outcount, indices, st)
               : PMPI_Waitsome(n, reqs_, outcount, indices, st);
    if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED) {
        for (i = 0; i < *outcount; i++)
            if (indices[i] >= 0 && indices[i] < n)
                upt_req_completed(c.r[indices[i]], &st[i]);
        if (which && *outcount == 0)
            for (i = 0; i < n; i++)
                upt_req_tested(c.r[i]);
    }
    upt_leave(region);
    reqcopy_free(&c);
    return rc;
}

UPT_EXPORT int MPI_Waitsome(int n, MPI_Request reqs_[], int *outcount, int indices[],
                            MPI_Status statuses[])
{
    return some(0, n, reqs_, outcount, indices, statuses);
}

UPT_EXPORT int MPI_Testsome(int n, MPI_Request reqs_[], int *outcount, int indices[],
                            MPI_Status statuses[])
{
    return some(1, n, reqs_, outcount, indices, statuses);
}

UPT_EXPORT int MPI_Request_free(MPI_Request *req)
{
    int rc;
    if (!ON())
        return PMPI_Request_free(req);
    upt_enter(UPT_R_MPI_Request_free);
    upt_req_freed(*req);
    rc = PMPI_Request_free(req);
    upt_leave(UPT_R_MPI_Request_free);
    return rc;
}

UPT_EXPORT int MPI_Cancel(MPI_Request *req)
{
    int rc;
    if (!ON())
        return PMPI_Cancel(req);
    upt_enter(UPT_R_MPI_Cancel);
    rc = PMPI_Cancel(req);
    upt_leave(UPT_R_MPI_Cancel);
    return rc;
}

/* ---- collectives --------------------------------------------------------------------
 * sent / received: the bytes this rank contributes and gets, as Score-P
 * counts them (docs/tracer.md); MPI_IN_PLACE contributes nothing.  Each
 * nonblocking collective follows its blocking twin and counts the same:
 * Enter, NonBlockingCollectiveRequest, Leave; the operation, communicator,
 * root and sizes are kept with the request and recorded by the call that
 * completes it (upt_req_completed). */

#define COLL(REGION, OP, COMM, ROOT, SENT, RECVD, CALL)                                   \
    do {                                                                                  \
        int rc_;                                                                          \
        if (!ON())                                                                        \
            return CALL;                                                                  \
        upt_enter(REGION);                                                                \
        upt_coll_begin();                                                                 \
        rc_ = CALL;                                                                       \
        upt_coll_end(OP, upt_comm_id(COMM), ROOT, SENT, RECVD);                           \
        upt_leave(REGION);                                                                \
        return rc_;                                                                       \
    } while (0)

#define ICOLL(REGION, OP, COMM, ROOT, SENT, RECVD, CALL, REQ)                           \
    do {                                                                                  \
        int rc_;                                                                          \
        if (!ON())                                                                        \
            return CALL;                                                                  \
        upt_enter(REGION);                                                                \
        rc_ = CALL;                                                                       \
        if (rc_ == MPI_SUCCESS)                                                           \
            upt_req_icoll(*(REQ), OP, upt_comm_id(COMM), ROOT, SENT, RECVD);              \
        upt_leave(REGION);                                                                \
        return rc_;                                                                       \
    } while (0)

#define NOROOT OTF2_UNDEFINED_UINT32
#define INPLACE(buf, bytes) ((buf) == MPI_IN_PLACE ? 0 : (bytes))

UPT_EXPORT int MPI_Barrier(MPI_Comm comm)
{
    COLL(UPT_R_MPI_Barrier, OTF2_COLLECTIVE_OP_BARRIER, comm, NOROOT, 0, 0, PMPI_Barrier(comm));
}

UPT_EXPORT int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
    ICOLL(UPT_R_MPI_Ibarrier, OTF2_COLLECTIVE_OP_BARRIER, comm, NOROOT, 0, 0,
          PMPI_Ibarrier(comm, req), req);
}

UPT_EXPORT int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    uint64_t b = ON() ? upt_bytes(count, type) : 0;
    bool me = ON() && comm_rank(comm) == root;
    COLL(UPT_R_MPI_Bcast, OTF2_COLLECTIVE_OP_BCAST, comm, (uint32_t)root,
         me ? b * (uint64_t)(comm_size(comm) - 1) : 0, me ? 0 : b,
         PMPI_Bcast(buf, count, type, root, comm));
}

UPT_EXPORT int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                          MPI_Request *req)
{
    uint64_t b = ON() ? upt_bytes(count, type) : 0;
    bool me = ON() && comm_rank(comm) == root;
    ICOLL(UPT_R_MPI_Ibcast, OTF2_COLLECTIVE_OP_BCAST, comm, (uint32_t)root,
          me ? b * (uint64_t)(comm_size(comm) - 1) : 0, me ? 0 : b,
          PMPI_Ibcast(buf, count, type, root, comm, req), req);
}

UPT_EXPORT int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                          MPI_Datatype rtype, int root, MPI_Comm comm)
{
    bool me = ON() && comm_rank(comm) == root;
    COLL(UPT_R_MPI_Gather, OTF2_COLLECTIVE_OP_GATHER, comm, (uint32_t)root,
         ON() ? INPLACE(sbuf, upt_bytes(scount, stype)) : 0,
         me ? upt_bytes(rcount, rtype) * (uint64_t)comm_size(comm) : 0,
         PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm));
}

UPT_EXPORT int MPI_Igather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                           int rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
                           MPI_Request *req)
{
    bool me = ON() && comm_rank(comm) == root;
    ICOLL(UPT_R_MPI_Igather, OTF2_COLLECTIVE_OP_GATHER, comm, (uint32_t)root,
          ON() ? INPLACE(sbuf, upt_bytes(scount, stype)) : 0,
          me ? upt_bytes(rcount, rtype) * (uint64_t)comm_size(comm) : 0,
          PMPI_Igather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req), req);
}

UPT_EXPORT int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                           const int rcounts[], const int displs[], MPI_Datatype rtype, int root,
                           MPI_Comm comm)
{
    bool me = ON() && comm_rank(comm) == root;
    COLL(UPT_R_MPI_Gatherv, OTF2_COLLECTIVE_OP_GATHERV, comm, (uint32_t)root,
         ON() ? INPLACE(sbuf, upt_bytes(scount, stype)) : 0,
         me ? sum_counts(rcounts, comm_size(comm), rtype) : 0,
         PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm));
}

UPT_EXPORT int MPI_Igatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                            const int rcounts[], const int displs[], MPI_Datatype rtype, int root,
                            MPI_Comm comm, MPI_Request *req)
{
    bool me = ON() && comm_rank(comm) == root;
    ICOLL(UPT_R_MPI_Igatherv, OTF2_COLLECTIVE_OP_GATHERV, comm, (uint32_t)root,
          ON() ? INPLACE(sbuf, upt_bytes(scount, stype)) : 0,
          me ? sum_counts(rcounts, comm_size(comm), rtype) : 0,
          PMPI_Igatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, req), req);
}

UPT_EXPORT int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                           int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    bool me = ON() && comm_rank(comm) == root;
    COLL(UPT_R_MPI_Scatter, OTF2_COLLECTIVE_OP_SCATTER, comm, (uint32_t)root,
         me ? upt_bytes(scount, stype) * (uint64_t)comm_size(comm) : 0,
         ON() ? INPLACE(rbuf, upt_bytes(rcount, rtype)) : 0,
         PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm));
}

UPT_EXPORT int MPI_Iscatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                            int rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
                            MPI_Request *req)
{
    bool me = ON() && comm_rank(comm) == root;
    ICOLL(UPT_R_MPI_Iscatter, OTF2_COLLECTIVE_OP_SCATTER, comm, (uint32_t)root,
          me ? upt_bytes(scount, stype) * (uint64_t)comm_size(comm) : 0,
          ON() ? INPLACE(rbuf, upt_bytes(rcount, rtype)) : 0,
          PMPI_Iscatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req), req);
}

UPT_EXPORT int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[],
                            MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                            int root, MPI_Comm comm)
{
    bool me = ON() && comm_rank(comm) == root;
    COLL(UPT_R_MPI_Scatterv, OTF2_COLLECTIVE_OP_SCATTERV, comm, (uint32_t)root,
         me ? sum_counts(scounts, comm_size(comm), stype) : 0,
         ON() ? INPLACE(rbuf, upt_bytes(rcount, rtype)) : 0,
         PMPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm));
}

UPT_EXPORT int MPI_Iscatterv(const void *sbuf, const int scounts[], const int displs[],
                             MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                             int root, MPI_Comm comm, MPI_Request *req)
{
    bool me = ON() && comm_rank(comm) == root;
    ICOLL(UPT_R_MPI_Iscatterv, OTF2_COLLECTIVE_OP_SCATTERV, comm, (uint32_t)root,
          me ? sum_counts(scounts, comm_size(comm), stype) : 0,
          ON() ? INPLACE(rbuf, upt_bytes(rcount, rtype)) : 0,
          PMPI_Iscatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, req),
          req);
}

UPT_EXPORT int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                             int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    int n = ON() ? comm_size(comm) : 0;
    COLL(UPT_R_MPI_Allgather, OTF2_COLLECTIVE_OP_ALLGATHER, comm, NOROOT,
         ON() ? INPLACE(sbuf, upt_bytes(scount, stype)) * (uint64_t)n : 0,
         ON() ? upt_bytes(rcount, rtype) * (uint64_t)n : 0,
         PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm));
}

UPT_EXPORT int MPI_Iallgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                              int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    int n = ON() ? comm_size(comm) : 0;
    ICOLL(UPT_R_MPI_Iallgather, OTF2_COLLECTIVE_OP_ALLGATHER, comm, NOROOT,
          ON() ? INPLACE(sbuf, upt_bytes(scount, stype)) * (uint64_t)n : 0,
          ON() ? upt_bytes(rcount, rtype) * (uint64_t)n : 0,
          PMPI_Iallgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, req), req);
}

UPT_EXPORT int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                              const int rcounts[], const int displs[], MPI_Datatype rtype,
                              MPI_Comm comm)
{
    int n = ON() ? comm_size(comm) : 0;
    COLL(UPT_R_MPI_Allgatherv, OTF2_COLLECTIVE_OP_ALLGATHERV, comm, NOROOT,
         ON() ? INPLACE(sbuf, upt_bytes(scount, stype)) * (uint64_t)n : 0,
         ON() ? sum_counts(rcounts, n, rtype) : 0,
         PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm));
}

UPT_EXPORT int MPI_Iallgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                               const int rcounts[], const int displs[], MPI_Datatype rtype,
                               MPI_Comm comm, MPI_Request *req)
{
    int n = ON() ? comm_size(comm) : 0;
    ICOLL(UPT_R_MPI_Iallgatherv, OTF2_COLLECTIVE_OP_ALLGATHERV, comm, NOROOT,
          ON() ? INPLACE(sbuf, upt_bytes(scount, stype)) * (uint64_t)n : 0,
          ON() ? sum_counts(rcounts, n, rtype) : 0,
          PMPI_Iallgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, req), req);
}

UPT_EXPORT int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                            int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    int n = ON() ? comm_size(comm) : 0;
    COLL(UPT_R_MPI_Alltoall, OTF2_COLLECTIVE_OP_ALLTOALL, comm, NOROOT,
         ON() ? INPLACE(sbuf, upt_bytes(scount, stype) * (uint64_t)n) : 0,
         ON() ? upt_bytes(rcount, rtype) * (uint64_t)n : 0,
         PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm));
}

UPT_EXPORT int MPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                             int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    int n = ON() ? comm_size(comm) : 0;
    ICOLL(UPT_R_MPI_Ialltoall, OTF2_COLLECTIVE_OP_ALLTOALL, comm, NOROOT,
          ON() ? INPLACE(sbuf, upt_bytes(scount, stype) * (uint64_t)n) : 0,
          ON() ? upt_bytes(rcount, rtype) * (uint64_t)n : 0,
          PMPI_Ialltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm, req), req);
}

UPT_EXPORT int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                             MPI_Datatype stype, void *rbuf, const int rcounts[],
                             const int rdispls[], MPI_Datatype rtype, MPI_Comm comm)
{
    int n = ON() ? comm_size(comm) : 0;
    COLL(UPT_R_MPI_Alltoallv, OTF2_COLLECTIVE_OP_ALLTOALLV, comm, NOROOT,
         ON() && sbuf != MPI_IN_PLACE ? sum_counts(scounts, n, stype) : 0,
         ON() ? sum_counts(rcounts, n, rtype) : 0,
         PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm));
}

UPT_EXPORT int MPI_Ialltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                              MPI_Datatype stype, void *rbuf, const int rcounts[],
                              const int rdispls[], MPI_Datatype rtype, MPI_Comm comm,
                              MPI_Request *req)
{
    int n = ON() ? comm_size(comm) : 0;
    ICOLL(UPT_R_MPI_Ialltoallv, OTF2_COLLECTIVE_OP_ALLTOALLV, comm, NOROOT,
          ON() && sbuf != MPI_IN_PLACE ? sum_counts(scounts, n, stype) : 0,
          ON() ? sum_counts(rcounts, n, rtype) : 0,
          PMPI_Ialltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, req),
          req);
}

static uint64_t sum_w(const int *counts, const MPI_Datatype *types, int n)
{
    uint64_t s = 0;
    int i;
    if (!counts || !types)
        return 0;
    for (i = 0; i < n; i++)
        s += upt_bytes(counts[i], types[i]);
    return s;
}

UPT_EXPORT int MPI_Alltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                             const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
                             const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm)
{
    int n = ON() ? comm_size(comm) : 0;
    COLL(UPT_R_MPI_Alltoallw, OTF2_COLLECTIVE_OP_ALLTOALLW, comm, NOROOT,
         ON() && sbuf != MPI_IN_PLACE ? sum_w(scounts, stypes, n) : 0,
         ON() ? sum_w(rcounts, rtypes, n) : 0,
         PMPI_Alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm));
}

UPT_EXPORT int MPI_Ialltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                              const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
                              const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm,
                              MPI_Request *req)
{
    int n = ON() ? comm_size(comm) : 0;
    ICOLL(UPT_R_MPI_Ialltoallw, OTF2_COLLECTIVE_OP_ALLTOALLW, comm, NOROOT,
          ON() && sbuf != MPI_IN_PLACE ? sum_w(scounts, stypes, n) : 0,
          ON() ? sum_w(rcounts, rtypes, n) : 0,
          PMPI_Ialltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm,
                          req),
          req);
}

UPT_EXPORT int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                          int root, MPI_Comm comm)
{
    bool me = ON() && comm_rank(comm) == root;
    uint64_t b = ON() ? upt_bytes(count, type) : 0;
    COLL(UPT_R_MPI_Reduce, OTF2_COLLECTIVE_OP_REDUCE, comm, (uint32_t)root, INPLACE(sbuf, b),
         me ? b * (uint64_t)comm_size(comm) : 0,
         PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm));
}

UPT_EXPORT int MPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                           int root, MPI_Comm comm, MPI_Request *req)
{
    bool me = ON() && comm_rank(comm) == root;
    uint64_t b = ON() ? upt_bytes(count, type) : 0;
    ICOLL(UPT_R_MPI_Ireduce, OTF2_COLLECTIVE_OP_REDUCE, comm, (uint32_t)root, INPLACE(sbuf, b),
          me ? b * (uint64_t)comm_size(comm) : 0,
          PMPI_Ireduce(sbuf, rbuf, count, type, op, root, comm, req), req);
}

UPT_EXPORT int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                             MPI_Comm comm)
{
    uint64_t b = ON() ? upt_bytes(count, type) : 0;
    int n = ON() ? comm_size(comm) : 0;
    COLL(UPT_R_MPI_Allreduce, OTF2_COLLECTIVE_OP_ALLREDUCE, comm, NOROOT,
         INPLACE(sbuf, b) * (uint64_t)n, b * (uint64_t)n,
         PMPI_Allreduce(sbuf, rbuf, count, type, op, comm));
}

UPT_EXPORT int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
                              MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    uint64_t b = ON() ? upt_bytes(count, type) : 0;
    int n = ON() ? comm_size(comm) : 0;
    ICOLL(UPT_R_MPI_Iallreduce, OTF2_COLLECTIVE_OP_ALLREDUCE, comm, NOROOT,
          INPLACE(sbuf, b) * (uint64_t)n, b * (uint64_t)n,
          PMPI_Iallreduce(sbuf, rbuf, count, type, op, comm, req), req);
}

UPT_EXPORT int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[],
                                  MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    int n = ON() ? comm_size(comm) : 0, me = ON() ? comm_rank(comm) : 0;
    uint64_t total = ON() ? sum_counts(rcounts, n, type) : 0;
    COLL(UPT_R_MPI_Reduce_scatter, OTF2_COLLECTIVE_OP_REDUCE_SCATTER, comm, NOROOT,
         INPLACE(sbuf, total), ON() && rcounts ? upt_bytes(rcounts[me], type) * (uint64_t)n : 0,
         PMPI_Reduce_scatter(sbuf, rbuf, rcounts, type, op, comm));
}

UPT_EXPORT int MPI_Ireduce_scatter(const void *sbuf, void *rbuf, const int rcounts[],
                                   MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    int n = ON() ? comm_size(comm) : 0, me = ON() ? comm_rank(comm) : 0;
    uint64_t total = ON() ? sum_counts(rcounts, n, type) : 0;
    ICOLL(UPT_R_MPI_Ireduce_scatter, OTF2_COLLECTIVE_OP_REDUCE_SCATTER, comm, NOROOT,
          INPLACE(sbuf, total), ON() && rcounts ? upt_bytes(rcounts[me], type) * (uint64_t)n : 0,
          PMPI_Ireduce_scatter(sbuf, rbuf, rcounts, type, op, comm, req), req);
}

UPT_EXPORT int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
                                        MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    int n = ON() ? comm_size(comm) : 0;
    uint64_t b = ON() ? upt_bytes(rcount, type) : 0;
    COLL(UPT_R_MPI_Reduce_scatter_block, OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, comm, NOROOT,
         INPLACE(sbuf, b * (uint64_t)n), b * (uint64_t)n,
         PMPI_Reduce_scatter_block(sbuf, rbuf, rcount, type, op, comm));
}

UPT_EXPORT int MPI_Ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
                                         MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                         MPI_Request *req)
{
    int n = ON() ? comm_size(comm) : 0;
    uint64_t b = ON() ? upt_bytes(rcount, type) : 0;
    ICOLL(UPT_R_MPI_Ireduce_scatter_block, OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, comm, NOROOT,
          INPLACE(sbuf, b * (uint64_t)n), b * (uint64_t)n,
          PMPI_Ireduce_scatter_block(sbuf, rbuf, rcount, type, op, comm, req), req);
}

UPT_EXPORT int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                        MPI_Comm comm)
{
    uint64_t b = ON() ? upt_bytes(count, type) : 0;
    int me = ON() ? comm_rank(comm) : 0, n = ON() ? comm_size(comm) : 0;
    COLL(UPT_R_MPI_Scan, OTF2_COLLECTIVE_OP_SCAN, comm, NOROOT,
         INPLACE(sbuf, b) * (uint64_t)(n - me), b * (uint64_t)(me + 1),
         PMPI_Scan(sbuf, rbuf, count, type, op, comm));
}

UPT_EXPORT int MPI_Iscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                         MPI_Comm comm, MPI_Request *req)
{
    uint64_t b = ON() ? upt_bytes(count, type) : 0;
    int me = ON() ? comm_rank(comm) : 0, n = ON() ? comm_size(comm) : 0;
    ICOLL(UPT_R_MPI_Iscan, OTF2_COLLECTIVE_OP_SCAN, comm, NOROOT,
          INPLACE(sbuf, b) * (uint64_t)(n - me), b * (uint64_t)(me + 1),
          PMPI_Iscan(sbuf, rbuf, count, type, op, comm, req), req);
}

UPT_EXPORT int MPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                          MPI_Comm comm)
{
    uint64_t b = ON() ? upt_bytes(count, type) : 0;
    int me = ON() ? comm_rank(comm) : 0, n = ON() ? comm_size(comm) : 0;
    COLL(UPT_R_MPI_Exscan, OTF2_COLLECTIVE_OP_EXSCAN, comm, NOROOT,
         INPLACE(sbuf, b) * (uint64_t)(n - me - 1), b * (uint64_t)me,
         PMPI_Exscan(sbuf, rbuf, count, type, op, comm));
}

UPT_EXPORT int MPI_Iexscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                           MPI_Comm comm, MPI_Request *req)
{
    uint64_t b = ON() ? upt_bytes(count, type) : 0;
    int me = ON() ? comm_rank(comm) : 0, n = ON() ? comm_size(comm) : 0;
    ICOLL(UPT_R_MPI_Iexscan, OTF2_COLLECTIVE_OP_EXSCAN, comm, NOROOT,
          INPLACE(sbuf, b) * (uint64_t)(n - me - 1), b * (uint64_t)me,
          PMPI_Iexscan(sbuf, rbuf, count, type, op, comm, req), req);
}

/* ---- communicators ------------------------------------------------------------------
 * Creation is collective over the members: Score-P records it as a
 * collective of type CREATE_HANDLE on the parent. */

#define COMM_NEW(REGION, PARENT, NEWCOMM, CALL)                                          \
    do {                                                                                \
        int rc_;                                                                        \
        if (!ON())                                                                      \
            return CALL;                                                                \
        upt_enter(REGION);                                                              \
        upt_coll_begin();                                                               \
        rc_ = CALL;                                                                     \
        if (rc_ == MPI_SUCCESS)                                                         \
            upt_comm_created(*(NEWCOMM));                                               \
        upt_coll_end(OTF2_COLLECTIVE_OP_CREATE_HANDLE, upt_comm_id(PARENT), NOROOT, 0, 0); \
        upt_leave(REGION);                                                              \
        return rc_;                                                                     \
    } while (0)

UPT_EXPORT int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    COMM_NEW(UPT_R_MPI_Comm_split, comm, newcomm, PMPI_Comm_split(comm, color, key, newcomm));
}

UPT_EXPORT int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    COMM_NEW(UPT_R_MPI_Comm_dup, comm, newcomm, PMPI_Comm_dup(comm, newcomm));
}

UPT_EXPORT int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    COMM_NEW(UPT_R_MPI_Comm_create, comm, newcomm, PMPI_Comm_create(comm, group, newcomm));
}

UPT_EXPORT int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info,
                                   MPI_Comm *newcomm)
{
    COMM_NEW(UPT_R_MPI_Comm_split_type, comm, newcomm,
             PMPI_Comm_split_type(comm, type, key, info, newcomm));
}

UPT_EXPORT int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                               int reorder, MPI_Comm *newcomm)
{
    COMM_NEW(UPT_R_MPI_Cart_create, comm, newcomm,
             PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm));
}

UPT_EXPORT int MPI_Comm_free(MPI_Comm *comm)
{
    int rc;
    if (!ON())
        return PMPI_Comm_free(comm);
    upt_enter(UPT_R_MPI_Comm_free);
    upt_comm_freed(*comm);
    rc = PMPI_Comm_free(comm);
    upt_leave(UPT_R_MPI_Comm_free);
    return rc;
}

/* ---- one-sided communication ----------------------------------------------------------
 * Records as Score-P writes them (docs/tracer.md); the bookkeeping is above
 * (windows, epochs, open transfers).  Only the recording thread records or
 * keeps windows: RMA_ON() is upt_recording(), not ON(). */

#define RMA_ON() upt_recording()

#define WIN_NEW(REGION, COMM, WIN, ALLOCATED, CALL)                                     \
    do {                                                                                \
        int rc_;                                                                        \
        if (!RMA_ON())                                                                  \
            return CALL;                                                                \
        upt_enter(REGION);                                                              \
        upt_win_create_begin();                                                         \
        rc_ = CALL;                                                                     \
        upt_win_create_end(rc_ == MPI_SUCCESS ? *(WIN) : MPI_WIN_NULL, COMM, REGION,    \
                           ALLOCATED);                                                  \
        upt_leave(REGION);                                                              \
        return rc_;                                                                     \
    } while (0)

UPT_EXPORT int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                              MPI_Comm comm, MPI_Win *win)
{
    WIN_NEW(UPT_R_MPI_Win_create, comm, win, false,
            PMPI_Win_create(base, size, disp_unit, info, comm, win));
}

UPT_EXPORT int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                void *baseptr, MPI_Win *win)
{
    WIN_NEW(UPT_R_MPI_Win_allocate, comm, win, true,
            PMPI_Win_allocate(size, disp_unit, info, comm, baseptr, win));
}

UPT_EXPORT int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info,
                                       MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    WIN_NEW(UPT_R_MPI_Win_allocate_shared, comm, win, true,
            PMPI_Win_allocate_shared(size, disp_unit, info, comm, baseptr, win));
}

UPT_EXPORT int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    WIN_NEW(UPT_R_MPI_Win_create_dynamic, comm, win, false,
            PMPI_Win_create_dynamic(info, comm, win));
}

UPT_EXPORT int MPI_Win_free(MPI_Win *win)
{
    upt_win_freeing f;
    int rc;
    if (!RMA_ON())
        return PMPI_Win_free(win);
    upt_enter(UPT_R_MPI_Win_free);
    f = upt_win_free_begin(*win);
    rc = PMPI_Win_free(win);
    upt_win_free_end(f);
    upt_leave(UPT_R_MPI_Win_free);
    return rc;
}

UPT_EXPORT int MPI_Win_fence(int assert, MPI_Win win)
{
    int rc;
    if (!RMA_ON())
        return PMPI_Win_fence(assert, win);
    upt_enter(UPT_R_MPI_Win_fence);
    upt_win_fence_begin(win);
    rc = PMPI_Win_fence(assert, win);
    upt_win_fence_end(win);
    upt_leave(UPT_R_MPI_Win_fence);
    return rc;
}

/* MPI_Win_start and MPI_Win_post open an epoch with a group; `exposure`
 * tells which */
static int epoch_start(uint32_t region, bool exposure, MPI_Group group, int assert, MPI_Win win)
{
    int rc;
    if (!RMA_ON())
        return exposure ? PMPI_Win_post(group, assert, win) : PMPI_Win_start(group, assert, win);
    upt_enter(region);
    rc = exposure ? PMPI_Win_post(group, assert, win) : PMPI_Win_start(group, assert, win);
    if (rc == MPI_SUCCESS)
        upt_win_epoch_start(win, group, exposure);
    upt_leave(region);
    return rc;
}

UPT_EXPORT int MPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    return epoch_start(UPT_R_MPI_Win_post, true, group, assert, win);
}

UPT_EXPORT int MPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    return epoch_start(UPT_R_MPI_Win_start, false, group, assert, win);
}

UPT_EXPORT int MPI_Win_complete(MPI_Win win)
{
    int rc;
    if (!RMA_ON())
        return PMPI_Win_complete(win);
    upt_enter(UPT_R_MPI_Win_complete);
    rc = PMPI_Win_complete(win);
    if (rc == MPI_SUCCESS)
        upt_win_epoch_end(win, false, false, true);
    upt_leave(UPT_R_MPI_Win_complete);
    return rc;
}

UPT_EXPORT int MPI_Win_wait(MPI_Win win)
{
    int rc;
    if (!RMA_ON())
        return PMPI_Win_wait(win);
    upt_enter(UPT_R_MPI_Win_wait);
    rc = PMPI_Win_wait(win);
    if (rc == MPI_SUCCESS)
        upt_win_epoch_end(win, true, false, true);
    upt_leave(UPT_R_MPI_Win_wait);
    return rc;
}

UPT_EXPORT int MPI_Win_test(MPI_Win win, int *flag)
{
    int rc;
    if (!RMA_ON())
        return PMPI_Win_test(win, flag);
    upt_enter(UPT_R_MPI_Win_test);
    rc = PMPI_Win_test(win, flag);
    if (rc == MPI_SUCCESS)
        upt_win_epoch_end(win, true, true, *flag != 0);
    upt_leave(UPT_R_MPI_Win_test);
    return rc;
}

/* passive target: the lock is requested before the call, released after */
UPT_EXPORT int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    int rc;
    if (!RMA_ON())
        return PMPI_Win_lock(lock_type, rank, assert, win);
    upt_enter(UPT_R_MPI_Win_lock);
    upt_win_lock(win, rank, lock_type == MPI_LOCK_EXCLUSIVE);
    rc = PMPI_Win_lock(lock_type, rank, assert, win);
    upt_leave(UPT_R_MPI_Win_lock);
    return rc;
}

UPT_EXPORT int MPI_Win_lock_all(int assert, MPI_Win win)
{
    int rc;
    if (!RMA_ON())
        return PMPI_Win_lock_all(assert, win);
    upt_enter(UPT_R_MPI_Win_lock_all);
    upt_win_lock(win, UPT_RMA_ALL, false);
    rc = PMPI_Win_lock_all(assert, win);
    upt_leave(UPT_R_MPI_Win_lock_all);
    return rc;
}

/* unlock, unlock_all, flush, flush_all (`rank` UPT_RMA_ALL for the _all
 * calls): the transfers they complete, then for an unlock its release */
static int passive_end(uint32_t region, bool unlock, int rank, MPI_Win win)
{
    int rc;
    bool all = rank == UPT_RMA_ALL;
#define PASSIVE_CALL                                                                     \
    (unlock ? (all ? PMPI_Win_unlock_all(win) : PMPI_Win_unlock(rank, win))              \
            : (all ? PMPI_Win_flush_all(win) : PMPI_Win_flush(rank, win)))
    if (!RMA_ON())
        return PASSIVE_CALL;
    upt_enter(region);
    rc = PASSIVE_CALL;
#undef PASSIVE_CALL
    if (rc == MPI_SUCCESS) {
        if (unlock)
            upt_win_unlock(win, rank);
        else
            upt_win_flush(win, rank, false);
    }
    upt_leave(region);
    return rc;
}

UPT_EXPORT int MPI_Win_unlock(int rank, MPI_Win win)
{
    return passive_end(UPT_R_MPI_Win_unlock, true, rank, win);
}

UPT_EXPORT int MPI_Win_unlock_all(MPI_Win win)
{
    return passive_end(UPT_R_MPI_Win_unlock_all, true, UPT_RMA_ALL, win);
}

UPT_EXPORT int MPI_Win_flush(int rank, MPI_Win win)
{
    return passive_end(UPT_R_MPI_Win_flush, false, rank, win);
}

UPT_EXPORT int MPI_Win_flush_all(MPI_Win win)
{
    return passive_end(UPT_R_MPI_Win_flush_all, false, UPT_RMA_ALL, win);
}

/* local completion: the separate ids stay open until a flush, an unlock or
 * an epoch's end completes them at the target */
UPT_EXPORT int MPI_Win_flush_local(int rank, MPI_Win win)
{
    int rc;
    if (!RMA_ON())
        return PMPI_Win_flush_local(rank, win);
    upt_enter(UPT_R_MPI_Win_flush_local);
    rc = PMPI_Win_flush_local(rank, win);
    if (rc == MPI_SUCCESS)
        upt_win_flush(win, rank, true);
    upt_leave(UPT_R_MPI_Win_flush_local);
    return rc;
}

UPT_EXPORT int MPI_Win_flush_local_all(MPI_Win win)
{
    int rc;
    if (!RMA_ON())
        return PMPI_Win_flush_local_all(win);
    upt_enter(UPT_R_MPI_Win_flush_local_all);
    rc = PMPI_Win_flush_local_all(win);
    if (rc == MPI_SUCCESS)
        upt_win_flush(win, UPT_RMA_ALL, true);
    upt_leave(UPT_R_MPI_Win_flush_local_all);
    return rc;
}

/* transfers: the record between the Enter and the PMPI call, as Score-P */
#define RMA_OP(REGION, WIN, TARGET, KIND, ATYPE, PUT, GOT, CALL)                       \
    do {                                                                               \
        int rc_;                                                                       \
        if (!RMA_ON())                                                                 \
            return CALL;                                                               \
        upt_enter(REGION);                                                             \
        upt_rma_op(WIN, TARGET, KIND, ATYPE, PUT, GOT);                                \
        rc_ = CALL;                                                                    \
        upt_leave(REGION);                                                             \
        return rc_;                                                                    \
    } while (0)

UPT_EXPORT int MPI_Put(const void *origin, int ocount, MPI_Datatype otype, int target,
                       MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Win win)
{
    RMA_OP(UPT_R_MPI_Put, win, target, UPT_RMA_PUT, OTF2_RMA_ATOMIC_TYPE_ACCUMULATE,
           RMA_ON() ? upt_bytes(ocount, otype) : 0, 0,
           PMPI_Put(origin, ocount, otype, target, disp, tcount, ttype, win));
}

UPT_EXPORT int MPI_Get(void *origin, int ocount, MPI_Datatype otype, int target, MPI_Aint disp,
                       int tcount, MPI_Datatype ttype, MPI_Win win)
{
    RMA_OP(UPT_R_MPI_Get, win, target, UPT_RMA_GET, OTF2_RMA_ATOMIC_TYPE_ACCUMULATE, 0,
           RMA_ON() ? upt_bytes(ocount, otype) : 0,
           PMPI_Get(origin, ocount, otype, target, disp, tcount, ttype, win));
}

UPT_EXPORT int MPI_Accumulate(const void *origin, int ocount, MPI_Datatype otype, int target,
                              MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op,
                              MPI_Win win)
{
    RMA_OP(UPT_R_MPI_Accumulate, win, target, UPT_RMA_ATOMIC, OTF2_RMA_ATOMIC_TYPE_ACCUMULATE,
           RMA_ON() ? upt_bytes(ocount, otype) : 0, 0,
           PMPI_Accumulate(origin, ocount, otype, target, disp, tcount, ttype, op, win));
}

UPT_EXPORT int MPI_Get_accumulate(const void *origin, int ocount, MPI_Datatype otype,
                                  void *result, int rcount, MPI_Datatype rtype, int target,
                                  MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op,
                                  MPI_Win win)
{
    RMA_OP(UPT_R_MPI_Get_accumulate, win, target, UPT_RMA_ATOMIC,
           OTF2_RMA_ATOMIC_TYPE_FETCH_AND_ACCUMULATE, RMA_ON() ? upt_bytes(ocount, otype) : 0,
           RMA_ON() ? upt_bytes(rcount, rtype) : 0,
           PMPI_Get_accumulate(origin, ocount, otype, result, rcount, rtype, target, disp, tcount,
                               ttype, op, win));
}

UPT_EXPORT int MPI_Fetch_and_op(const void *origin, void *result, MPI_Datatype type, int target,
                                MPI_Aint disp, MPI_Op op, MPI_Win win)
{
    uint64_t b = RMA_ON() ? upt_bytes(1, type) : 0;
    RMA_OP(UPT_R_MPI_Fetch_and_op, win, target, UPT_RMA_ATOMIC,
           OTF2_RMA_ATOMIC_TYPE_FETCH_AND_ACCUMULATE, b, b,
           PMPI_Fetch_and_op(origin, result, type, target, disp, op, win));
}

UPT_EXPORT int MPI_Compare_and_swap(const void *origin, const void *compare, void *result,
                                    MPI_Datatype type, int target, MPI_Aint disp, MPI_Win win)
{
    uint64_t b = RMA_ON() ? upt_bytes(1, type) : 0;
    RMA_OP(UPT_R_MPI_Compare_and_swap, win, target, UPT_RMA_ATOMIC,
           OTF2_RMA_ATOMIC_TYPE_COMPARE_AND_SWAP, b, b,
           PMPI_Compare_and_swap(origin, compare, result, type, target, disp, win));
}
