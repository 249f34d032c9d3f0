/*
 * engine_coll.c - collectives
 */
#include <string.h>

#include "replay/engine_int.h"

static bool coll_ready(const engine *E, const up_coll *c, uint32_t me)
{
    if (c->forced)
        return true;
    if (E->ops->coll_wait_all)
        return c->arrived == c->n;
    switch (c->cls) {
    case UP_COLL_ONE_TO_N:
        return me == c->root || c->m[c->root].arrived;
    case UP_COLL_N_TO_ONE:
        return me != c->root || c->arrived == c->n;
    case UP_COLL_PREFIX: {
        uint32_t r;
        for (r = 0; r < me; r++)
            if (!c->m[r].arrived)
                return false;
        return true;
    }
    default:
        return c->arrived == c->n;
    }
}

static int wake_coll(engine *E, up_coll *c)
{
    uint32_t i;
    for (i = 0; i < c->n; i++) {
        rloc *L;
        if (!c->m[i].arrived)
            continue;
        L = &E->L[c->m[i].loc];
        if (L->state == S_WAIT && L->wait == W_COLL && L->wcoll == c &&
            coll_ready(E, c, L->wmember) && up_eng_make_runnable(E, c->m[i].loc) != 0)
            return -1;
    }
    return 0;
}


static void coll_free(up_coll *c)
{
    if (c) {
        up_free(c->m);
        up_free(c);
    }
}


/* Instance (a->key, seq) of the collective on a->comm (cd): the one there,
 * or made (*fresh) for its first arrival.  NULL: out of memory. */
static up_coll *coll_get(engine *E, const up_comm_def *cd, const coll_arrival *a, uint64_t seq,
                         bool lookup)
{
    uint64_t *v = lookup ? up_map_get(&E->colls, a->key, seq) : NULL;
    uint32_t n = cd->self ? 1 : cd->size;
    up_coll *c;
    if (v)
        return (up_coll *)(uintptr_t)*v;
    if (!(c = up_calloc(1, sizeof *c)) || !(c->m = up_calloc(n, sizeof *c->m))) {
        coll_free(c);
        return NULL;
    }
    c->comm = a->comm;
    c->key = a->key;
    c->seq = seq;
    c->op = a->op;
    c->cls = up_coll_class_of(a->op);
    c->n = n;
    c->root = UINT32_MAX;
    if (c->cls == UP_COLL_ONE_TO_N || c->cls == UP_COLL_N_TO_ONE) {
        if (a->root < n)
            c->root = a->root;
        else
            c->cls = UP_COLL_N_TO_N; /* rooted op without a valid root */
    }
    if (!up_map_put(&E->colls, c->key, seq, (uint64_t)(uintptr_t)c)) {
        coll_free(c);
        return NULL;
    }
    return c;
}

/* Member `rank` (location loc, held here or, in a partitioned replay, by
 * another part: engine_seam.c) arrives at c with what a tells; its waiting
 * members go on once what they depend on is there.  -1: out of memory. */
static int member_arrive(engine *E, up_coll *c, uint32_t rank, uint32_t loc, const coll_arrival *a)
{
    up_member *me = &c->m[rank];
    if (c->drained) { /* a member came after all: it waits for the rest again */
        c->drained = false;
        E->ndrained--;
    }
    me->arrived = true;
    c->arrived++;
    if (up_eng_holds(E, loc))
        c->held_arrived++;
    me->loc = loc;
    me->begin_m = a->begin_m;
    me->begin_a = a->begin_a;
    me->end_m = a->end_m;
    me->ovh_in = a->ovh_in;
    me->sent = a->sent;
    me->recvd = a->recvd;
    me->nonblocking = a->nonblocking;
    if (c->arrived == 1 || me->begin_m > c->m[c->j_last_m].begin_m)
        c->j_last_m = rank;
    if (c->arrived == 1 || me->end_m < c->m[c->l_first_end_m].end_m)
        c->l_first_end_m = rank;
    if (c->arrived == 1 || me->begin_a > c->max_begin_a)
        c->max_begin_a = me->begin_a;
    if ((c->arrived == c->n || c->cls == UP_COLL_PREFIX ||
         (c->cls == UP_COLL_ONE_TO_N && rank == c->root)) &&
        wake_coll(E, c) != 0)
        return -1;
    return 0;
}

/* Location li arrives at the next instance of a collective on a->comm: the
 * k-th collective (blocking or nonblocking, in the order it started them) a
 * location calls on a communicator is the k-th instance, as MPI requires.
 * On a self-like communicator (MPI_COMM_SELF: every location is its only
 * member) each call is an instance of its own, never shared: it is keyed by
 * an engine-wide number instead of the location's count.  In a partitioned
 * replay the arrival crosses to the other parts with members (X_COLL).
 * MPI from any thread (docs/models.md): li may be another CPU thread of a
 * member's process; it arrives as that member (its rank), and the instances
 * are numbered per process (the member's count), in the measured order of
 * its threads' calls (up_eng_mates_first, before the join).
 * Returns 1 with *cp and *rankp set, 0 when li is no member of a->comm, -1
 * out of memory, -2 another error (in E->err). */
static int coll_join(engine *E, uint32_t li, const coll_arrival *a, up_coll **cp,
                     uint32_t *rankp)
{
    uint64_t *seqp, seq;
    const up_comm_def *cd;
    uint32_t rank;
    up_coll *c;
    int r = up_eng_rank_of(E, a->comm, li, &rank);
    if (r <= 0)
        return r;
    cd = up_defs_comm(E->d, a->comm);
    if (cd->self) {
        seq = E->self_seq++;
    } else {
        up_map *cs = &E->L[cd->members[rank]].collseq;
        if (cd->members[rank] != li && E->part) {
            up_eng_x_outside(E, "an MPI collective on a thread that is not its process's member");
            return -2;
        }
        if (!(seqp = up_map_get(cs, a->key, 0))) {
            if (!up_map_put(cs, a->key, 0, 0) || !(seqp = up_map_get(cs, a->key, 0)))
                return -1;
        }
        seq = (*seqp)++;
    }
    if (!(c = coll_get(E, cd, a, seq, !cd->self)))
        return -1;
    if (rank >= c->n || c->m[rank].arrived)
        return 0; /* cannot happen: one location per rank, one arrival per seq */
    if (member_arrive(E, c, rank, li, a) != 0)
        return -1;
    if (!up_eng_comm_held(E, a->comm) &&
        up_eng_x_coll(E, li, a, seq, rank, false) != STEP_OK) /* to the other parts */
        return -2;
    *cp = c;
    *rankp = rank;
    return 1;
}

/* An arrival (or, forced, a release) at instance (a->key, seq) crossed from
 * another part (engine_seam.c) */
int up_eng_coll_crossed(engine *E, const coll_arrival *a, uint64_t seq, uint32_t rank,
                        uint32_t loc, bool forced)
{
    const up_comm_def *cd = up_defs_comm(E->d, a->comm);
    up_coll *c;
    if (!cd || !cd->resolved || cd->self) {
        UP_ERR(E->err, UP_EINTERNAL, "partitioned replay: a collective on an unknown communicator");
        return STEP_ERROR;
    }
    if (!(c = coll_get(E, cd, a, seq, true))) {
        UP_ERR(E->err, UP_ENOMEM, "out of memory for a collective");
        return STEP_ERROR;
    }
    if (forced) {
        c->forced = true;
        return wake_coll(E, c) != 0 ? STEP_ERROR : STEP_OK;
    }
    if (rank >= c->n || c->m[rank].arrived)
        return STEP_OK; /* cannot happen, as in coll_join */
    return member_arrive(E, c, rank, loc, a) != 0 ? STEP_ERROR : STEP_OK;
}

/* The overhead of records [0, end_i) of a location's buffer, each counted
 * only up to end_m: a flush that the end record triggered lies after it
 * (that record keeps its earlier time). */
static uint64_t ovh_until(engine *E, rloc *L, size_t end_i, uint64_t end_m)
{
    uint64_t ovh = 0;
    size_t i;
    for (i = 0; i < end_i; i++) {
        up_event *e;
        uint64_t o;
        up_stream_peek(L->s, i, &e, E->err); /* buffered: cannot fail */
        set_rflags(E, e);
        o = E->ops->record_ovh(E->model, (uint32_t)(L - E->L), e);
        if (e->time + o > end_m)
            o = end_m > e->time ? end_m - e->time : 0;
        ovh += o;
    }
    return ovh;
}

/* The key of an RMA window's fences: never a communicator id (32 bits). */
#define WIN_KEY(win) ((uint64_t)1 << 32 | (uint64_t)(win))

/* An MpiCollectiveBegin, or an RmaCollectiveBegin (MPI_Win_fence, a
 * collective on the window's communicator; its RmaCollectiveEnd names the
 * window and the operation, a barrier). */
int up_eng_coll_begin(engine *E, uint32_t li, up_event **evp, bool direct)
{
    rloc *L = &E->L[li];
    up_event *e = NULL;
    size_t i, end_i = 0;
    coll_arrival a;
    bool rma = (*evp)->kind == UP_EV_RmaCollectiveBegin;
    unsigned begin_kind = rma ? UP_EV_RmaCollectiveBegin : UP_EV_MpiCollectiveBegin;
    unsigned end_kind = rma ? UP_EV_RmaCollectiveEnd : UP_EV_MpiCollectiveEnd;
    int r;
    (void)direct; /* never on the direct path (the record table) */

    /* the threads of a process join their instances in measured order */
    if ((r = up_eng_mates_first(E, li, (*evp)->time, false)) != STEP_OK)
        return r;
    for (i = 1; i < UP_STREAM_MAX_LOOKAHEAD; i++) {
        if (up_stream_peek(L->s, i, &e, E->err) != UP_OK)
            return STEP_ERROR;
        if (!e || e->kind == begin_kind)
            break;
        if (e->kind == end_kind) {
            end_i = i;
            break;
        }
    }
    if (up_stream_peek(L->s, 0, evp, E->err) != UP_OK)
        return STEP_ERROR;
    L->cur = NULL;
    L->cur_local = false;
    if (!end_i) {
        E->repairs[UP_REPAIR_collective_unpaired]++;
        E->ops->local(E->model, li, &L->ls, *evp);
        return STEP_OK;
    }
    up_stream_peek(L->s, end_i, &e, E->err); /* all buffered now: no growth, no error */
    memset(&a, 0, sizeof a);
    if (rma) {
        if (!up_defs_win_comm(E->d, e->u.RmaCollectiveEnd.win, &a.comm)) {
            L->cur_local = true; /* counted here; its end is timed locally */
            E->repairs[UP_REPAIR_unresolved_peer]++;
            E->ops->local(E->model, li, &L->ls, *evp);
            return STEP_OK;
        }
        a.key = WIN_KEY(e->u.RmaCollectiveEnd.win);
        a.op = e->u.RmaCollectiveEnd.collectiveOp;
        a.root = e->u.RmaCollectiveEnd.root;
        a.sent = e->u.RmaCollectiveEnd.bytesSent;
        a.recvd = e->u.RmaCollectiveEnd.bytesReceived;
    } else {
        a.comm = e->u.MpiCollectiveEnd.communicator;
        a.key = a.comm;
        a.op = e->u.MpiCollectiveEnd.collectiveOp;
        a.root = e->u.MpiCollectiveEnd.root;
        a.sent = e->u.MpiCollectiveEnd.sizeSent;
        a.recvd = e->u.MpiCollectiveEnd.sizeReceived;
    }
    a.end_m = e->time;
    a.ovh_in = ovh_until(E, L, end_i, a.end_m);
    up_stream_peek(L->s, 0, evp, E->err);

    E->ops->local(E->model, li, &L->ls, *evp);
    a.begin_m = (*evp)->time;
    a.begin_a = (*evp)->t_out;
    r = coll_join(E, li, &a, &L->cur, &L->cur_member);
    if (r == -2)
        return STEP_ERROR;
    if (r < 0) {
        UP_ERR(E->err, UP_ENOMEM, "out of memory for a collective");
        return STEP_ERROR;
    }
    if (r == 0) { /* not a member: counted here; its end is timed locally */
        L->cur = NULL;
        L->cur_local = true;
        E->repairs[UP_REPAIR_unresolved_peer]++;
    }
    return STEP_OK;
}

/* Is this the part that counts c's repairs (the one holding its rank 0)? */
static bool coll_home(const engine *E, const up_coll *c)
{
    const up_comm_def *cd;
    if (!E->part)
        return true;
    cd = up_defs_comm(E->d, c->comm);
    return !cd || cd->self || !cd->size || up_eng_holds(E, cd->members[0]);
}

/* Member `member` of c was released: the other parts learn it (X_COLL) */
static int coll_force_cross(engine *E, const up_coll *c, uint32_t member)
{
    coll_arrival a;
    memset(&a, 0, sizeof a);
    a.comm = c->comm, a.key = c->key, a.op = c->op;
    a.root = c->root == UINT32_MAX ? c->n : c->root;
    return up_eng_x_coll(E, c->m[member].loc, &a, c->seq, member, true);
}

/* May member m of a communicator still come: it, or (MPI from any thread)
 * another CPU thread of its process */
static bool member_may_come(const engine *E, uint32_t m)
{
    uint32_t j = m;
    do {
        if (up_eng_may_come(E, j))
            return true;
        j = E->L[j].pnext;
    } while (j != m);
    return false;
}

/* Can a member still arrive at c?  Not when all have, nor when each one
 * missing is a process whose threads' traces have ended: a trace cut short,
 * or a definition that lists a location that never calls the collective. */
static bool coll_may_grow(const engine *E, const up_coll *c)
{
    const up_comm_def *cd;
    uint32_t r;
    if (c->arrived == c->n)
        return false;
    cd = up_defs_comm(E->d, c->comm);
    if (!cd || cd->self || cd->size < c->n)
        return false; /* cannot happen: an instance has members */
    for (r = 0; r < c->n; r++)
        if (!c->m[r].arrived && member_may_come(E, cd->members[r]))
            return true;
    return false;
}

static void coll_release(engine *E, up_coll *c)
{
    if (c->drained)
        E->ndrained--;
    if (!c->forced && c->arrived < c->n && coll_home(E, c)) /* its members did not wait */
        E->repairs[UP_REPAIR_collective_incomplete]++;
    up_map_del(&E->colls, c->key, c->seq);
    coll_free(c);
}

/* A member of c is done with it.  c is freed once every member that
 * arrived is done and no other can come, so that a member the trace lacks
 * does not keep every later instance alive (bounded memory on damaged
 * traces); while one may still come, c is counted in E->ndrained and
 * looked at again when a location's trace ends (coll_sweep). */
static void coll_done(engine *E, up_coll *c)
{
    if (++c->done < c->held_arrived) /* (in a serial replay every member is held) */
        return;
    if (!coll_may_grow(E, c)) {
        coll_release(E, c);
    } else if (!c->drained) {
        c->drained = true;
        E->ndrained++;
    }
}

/* A location's trace ended: free the drained instances that were waiting
 * only for members that can no longer come. */
void up_eng_coll_sweep(engine *E)
{
    uint64_t k0, k1, v;
    size_t i = 0;
    while (E->ndrained && i < E->colls.cap) {
        if (up_map_at(&E->colls, i, &k0, &k1, &v)) {
            up_coll *c = (up_coll *)(uintptr_t)v;
            if (c->drained && !coll_may_grow(E, c)) {
                coll_release(E, c);
                continue; /* backward shift may have moved an entry into slot i */
            }
        }
        i++;
    }
}

/* Member `member` of c (at location L) is at its end: STEP_OK when what it
 * depends on has arrived (or it was released: counted), else it waits. */
static int coll_wait(engine *E, rloc *L, up_coll *c, uint32_t member)
{
    if (!coll_ready(E, c, member)) {
        if (!L->force) {
            L->wait = W_COLL;
            L->wcoll = c;
            L->wmember = member;
            return STEP_BLOCKED;
        }
        L->force = false;
        c->forced = true;
        E->repairs[UP_REPAIR_collective_incomplete]++;
        if (wake_coll(E, c) != 0)
            return STEP_ERROR;
        if (!up_eng_comm_held(E, c->comm) && coll_force_cross(E, c, member) != STEP_OK)
            return STEP_ERROR; /* the other parts' members go on too */
    }
    L->wcoll = NULL;
    return STEP_OK;
}

int up_eng_coll_end(engine *E, uint32_t li, up_event **evp, bool direct)
{
    up_event *ev = *evp;
    rloc *L = &E->L[li];
    up_coll *c = L->cur;
    int r;
    (void)direct; /* never on the direct path (the record table) */
    L->reply_open = false; /* its data may choose the next destination */
    if (!c) {
        if (!L->cur_local)
            E->repairs[UP_REPAIR_collective_unpaired]++;
        L->cur_local = false;
        E->ops->local(E->model, li, &L->ls, ev);
        return STEP_OK;
    }
    if ((r = coll_wait(E, L, c, L->cur_member)) != STEP_OK)
        return r;
    if ((r = claim_wait(E, li, ev, UINT32_MAX, NULL, c, false)) != STEP_OK)
        return r;
    E->ops->coll_end(E->model, li, &L->ls, ev, c, &c->m[L->cur_member]);
    L->cur = NULL;
    coll_done(E, c);
    return STEP_OK;
}

/* A nonblocking collective (OTF2 3.0): NonBlockingCollectiveRequest starts
 * it, NonBlockingCollectiveComplete with the same request id (inside the
 * Wait or Test that completed it) ends it and names the operation.  The
 * request is the member's enter, so the complete is looked for ahead in the
 * stream; the member arrives at its request, in the order the location
 * started its collectives.  A request whose complete is out of reach, or a
 * complete without a request, is timed as a local record. */
/* What a NonBlockingCollectiveComplete tells of its collective. */
static void nbc_completion(coll_arrival *a, const up_event *e)
{
    a->comm = e->u.NonBlockingCollectiveComplete.communicator;
    a->key = a->comm;
    a->op = e->u.NonBlockingCollectiveComplete.collectiveOp;
    a->root = e->u.NonBlockingCollectiveComplete.root;
    a->sent = e->u.NonBlockingCollectiveComplete.sizeSent;
    a->recvd = e->u.NonBlockingCollectiveComplete.sizeReceived;
    a->end_m = e->time;
}

int up_eng_nbc_request(engine *E, uint32_t li, up_event **evp, bool direct)
{
    rloc *L = &E->L[li];
    uint64_t req = (*evp)->u.NonBlockingCollectiveRequest.requestID;
    up_event *e = NULL;
    size_t i, end_i = 0;
    coll_arrival a;
    up_coll *c;
    uint32_t rank;
    int r;
    (void)direct; /* never on the direct path (the record table) */

    if ((r = up_eng_mates_first(E, li, (*evp)->time, false)) != STEP_OK)
        return r; /* (coll_begin) */
    if (up_map_get(&L->nbc, req, 0) || up_map_get(&L->nbpend, req, 0)) {
        /* its id is still in use by an earlier request (MPI reuses a request
         * only once it completed): the earlier one keeps it */
        E->repairs[UP_REPAIR_collective_unpaired]++;
        E->ops->local(E->model, li, &L->ls, *evp);
        return STEP_OK;
    }
    for (i = 1; i < UP_STREAM_MAX_LOOKAHEAD; i++) {
        if (up_stream_peek(L->s, i, &e, E->err) != UP_OK)
            return STEP_ERROR;
        if (!e)
            break;
        if (e->kind == UP_EV_NonBlockingCollectiveComplete &&
            e->u.NonBlockingCollectiveComplete.requestID == req) {
            end_i = i;
            break;
        }
    }
    if (up_stream_peek(L->s, 0, evp, E->err) != UP_OK)
        return STEP_ERROR;
    if (!end_i) {
        /* out of reach (a long MPI_Test loop): the member joins at its
         * completion, with the times of its request */
        coll_arrival *pa = up_calloc(1, sizeof *pa);
        E->ops->local(E->model, li, &L->ls, *evp);
        if (!pa || !up_map_put(&L->nbpend, req, 0, (uint64_t)(uintptr_t)pa)) {
            up_free(pa);
            UP_ERR(E->err, UP_ENOMEM, "out of memory for a collective");
            return STEP_ERROR;
        }
        pa->begin_m = (*evp)->time;
        pa->begin_a = (*evp)->t_out;
        pa->ovh_in = ovh_until(E, L, 1, UINT64_MAX);
        pa->nonblocking = true;
        return STEP_OK;
    }
    up_stream_peek(L->s, end_i, &e, E->err);
    memset(&a, 0, sizeof a);
    nbc_completion(&a, e);
    a.nonblocking = true;
    up_stream_peek(L->s, 0, evp, E->err);
    /* what delays this member's start: the request record's own overhead */
    a.ovh_in = ovh_until(E, L, 1, a.end_m);
    E->ops->local(E->model, li, &L->ls, *evp);
    a.begin_m = (*evp)->time;
    a.begin_a = (*evp)->t_out;
    r = coll_join(E, li, &a, &c, &rank);
    if (r == -2)
        return STEP_ERROR;
    /* not a member (r == 0): counted here, its complete is timed locally
     * (NULL in L->nbc) */
    if (r < 0 || !up_map_put(&L->nbc, req, 0, r > 0 ? (uint64_t)(uintptr_t)c : 0)) {
        UP_ERR(E->err, UP_ENOMEM, "out of memory for a collective");
        return STEP_ERROR;
    }
    if (r == 0)
        E->repairs[UP_REPAIR_unresolved_peer]++;
    return STEP_OK;
}

int up_eng_nbc_complete(engine *E, uint32_t li, up_event **evp, bool direct)
{
    up_event *ev = *evp;
    rloc *L = &E->L[li];
    uint64_t req = ev->u.NonBlockingCollectiveComplete.requestID;
    uint64_t *v = up_map_get(&L->nbc, req, 0), *pv;
    uint32_t rank;
    up_coll *c;
    int r;
    (void)direct; /* never on the direct path (the record table) */
    if (!v && (pv = up_map_get(&L->nbpend, req, 0))) { /* join now (up_eng_nbc_request) */
        coll_arrival *pa = (coll_arrival *)(uintptr_t)*pv;
        nbc_completion(pa, ev);
        r = coll_join(E, li, pa, &c, &rank);
        up_map_del(&L->nbpend, req, 0);
        up_free(pa);
        if (r == -2)
            return STEP_ERROR;
        if (r < 0 || (r > 0 && !up_map_put(&L->nbc, req, 0, (uint64_t)(uintptr_t)c))) {
            UP_ERR(E->err, UP_ENOMEM, "out of memory for a collective");
            return STEP_ERROR;
        }
        if (r == 0) { /* not a member */
            E->repairs[UP_REPAIR_unresolved_peer]++;
            E->ops->local(E->model, li, &L->ls, ev);
            return STEP_OK;
        }
        v = up_map_get(&L->nbc, req, 0);
    }
    if (!v || !*v) { /* no request (counted), or one of no member (counted) */
        if (!v)
            E->repairs[UP_REPAIR_collective_unpaired]++;
        else
            up_map_del(&L->nbc, req, 0);
        E->ops->local(E->model, li, &L->ls, ev);
        return STEP_OK;
    }
    c = (up_coll *)(uintptr_t)*v;
    if (up_eng_rank_of(E, c->comm, li, &rank) <= 0) { /* it joined: cannot happen */
        UP_ERR(E->err, UP_EINTERNAL, "nonblocking collective lost its member");
        return STEP_ERROR;
    }
    if ((r = coll_wait(E, L, c, rank)) != STEP_OK)
        return r;
    if ((r = claim_wait(E, li, ev, UINT32_MAX, NULL, c, false)) != STEP_OK)
        return r;
    E->ops->coll_end(E->model, li, &L->ls, ev, c, &c->m[rank]);
    up_map_del(&L->nbc, req, 0);
    coll_done(E, c);
    return STEP_OK;
}

/* The collective instances still open (counted as incomplete after a
 * complete run when `count`) and the nonblocking requests whose completion
 * never came (the maps themselves are freed by the caller). */
void up_eng_coll_free(engine *E, bool count)
{
    uint64_t k0, k1, v;
    size_t i, j;
    for (i = 0; i < E->colls.cap; i++) {
        if (up_map_at(&E->colls, i, &k0, &k1, &v)) {
            up_coll *c = (up_coll *)(uintptr_t)v;
            if (count && !c->forced && c->arrived < c->n && coll_home(E, c))
                E->repairs[UP_REPAIR_collective_incomplete]++;
            coll_free(c);
        }
    }
    for (j = 0; j < E->n; j++) {
        up_map *np = &E->L[j].nbpend;
        for (i = 0; i < np->cap; i++)
            if (up_map_at(np, i, &k0, &k1, &v))
                up_free((coll_arrival *)(uintptr_t)v);
    }
}
