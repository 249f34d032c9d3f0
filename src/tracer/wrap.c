/*
 * wrap.c - the state the MPI wrappers of both languages share (mpi_c_gen.c,
 * mpi_f_gen.c, mpi_c_hand.c, mpi_f_hand.c; wrap.h): the table of
 * nonblocking requests, the windows, epochs and open transfers of one-sided
 * communication, and the probed messages.
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

#include "tracer/wrap.h"

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

/* ---- matched probes: message -> communicator --------------------------------- */

/* Few messages are outstanding at once; a full table replaces its entries
 * in turn.  Per thread: only the recording thread records, but any thread
 * may probe. */
enum { NPROBED = 64 };
static _Thread_local struct {
    MPI_Message m;
    uint32_t comm;
    uint8_t wildcard;
    bool used;
} probed[NPROBED];
static _Thread_local unsigned probed_next;

void upt_probed_put(MPI_Message m, uint32_t comm, unsigned wildcard)
{
    unsigned i, slot;
    if (m == MPI_MESSAGE_NULL || m == MPI_MESSAGE_NO_PROC)
        return;
    for (i = 0; i < NPROBED; i++)
        if (!probed[i].used || probed[i].m == m)
            break;
    slot = i < NPROBED ? i : probed_next++ % NPROBED;
    probed[slot].m = m;
    probed[slot].comm = comm;
    probed[slot].wildcard = (uint8_t)wildcard;
    probed[slot].used = true;
}

uint32_t upt_probed_take(MPI_Message m, unsigned *wildcard)
{
    unsigned i;
    for (i = 0; i < NPROBED; i++)
        if (probed[i].used && probed[i].m == m) {
            probed[i].used = false;
            *wildcard = probed[i].wildcard;
            return probed[i].comm;
        }
    *wildcard = 0;
    return UPT_COMM_WORLD; /* unknown: the usual case */
}
