/*
 * engine_p2p.c - the replay engine's point-to-point rules (engine_int.h)
 */
#include <string.h>

#include "replay/engine_int.h"

/* ---- messages ------------------------------------------------------------ */

static up_msg *msg_new(engine *E)
{
    up_msg *m = E->free_msgs;
    if (m)
        E->free_msgs = m->next;
    else
        m = up_malloc(sizeof *m);
    if (m)
        memset(m, 0, sizeof *m);
    return m;
}

static void sync_unref(up_sync *s)
{
    if (s && --s->refs == 0)
        up_free(s);
}

static void msg_free(engine *E, up_msg *m)
{
    sync_unref(m->sync);
    m->sync = NULL;
    m->next = E->free_msgs;
    E->free_msgs = m;
}

/* for engine_seam.c (engine_int.h) */
up_msg *up_eng_msg_new(engine *E) { return msg_new(E); }
void up_eng_msg_free(engine *E, up_msg *m) { msg_free(E, m); }

/* The message queue of key (k0, k1) (msg_key) */
msgq *up_eng_queue_get(engine *E, uint64_t k0, uint64_t k1, bool create)
{
    return up_eng_map_obj(&E->msgq, k0, k1, sizeof(msgq), create);
}

/* Empty queues stay in the map (most keys are reused at once: a loop sends
 * the same tag to the same peer again); when the map has grown past
 * sweep_at, the idle ones are dropped, so it holds no more keys than there
 * are messages in flight plus a constant. */
static void queues_sweep(engine *E)
{
    uint64_t k0, k1, v;
    size_t i = 0;
    if (E->msgq.len < E->sweep_at)
        return;
    while (i < E->msgq.cap) {
        if (up_map_at(&E->msgq, i, &k0, &k1, &v)) {
            msgq *q = (msgq *)(uintptr_t)v;
            if (!q->head && !q->posts && !q->skip && !q->waiting && !q->lent) {
                up_map_del(&E->msgq, k0, k1);
                up_free(q);
                continue; /* backward shift may have moved an entry into slot i */
            }
        }
        i++;
    }
    E->sweep_at = 2 * E->msgq.len > SWEEP_MIN ? 2 * E->msgq.len : SWEEP_MIN;
    E->qgen++;
}

/* queue_get through a one-entry cache of the location (`send` picks which) */
static msgq *queue_cached(engine *E, rloc *L, bool send, uint64_t k0, uint64_t k1, bool create)
{
    msgq *q;
    if (L->qgen == E->qgen) {
        if (send && L->qs && L->qs0 == k0 && L->qs1 == k1)
            return L->qs;
        if (!send && L->qr && L->qr0 == k0 && L->qr1 == k1)
            return L->qr;
    } else {
        L->qs = L->qr = NULL;
        L->qgen = E->qgen;
    }
    q = up_eng_queue_get(E, k0, k1, create);
    if (q && send)
        L->qs = q, L->qs0 = k0, L->qs1 = k1;
    else if (q)
        L->qr = q, L->qr0 = k0, L->qr1 = k1;
    return q;
}

/* ---- synchronous sends ------------------------------------------------------ */

/* ---- progress: where a receiver was inside MPI (docs/models.md, "Progress") --
 * Open MPI without an asynchronous progress thread moves a rendezvous
 * transfer only while its receiver is inside an MPI call that progresses
 * the library.  Each location keeps those calls in a ring, in measured
 * order; a synchronous send's completion looks up its receiver's last one
 * before it (pr_find).  The ring keeps every call that a send not yet
 * completed may still look up: those from the earliest replay position of
 * any location on, and the one before (pr_prune). */

#define PR_MIN 16u
#define PR_GROW 256u /* up to this (8 KiB) a full ring grows: no scan per 8 calls */
#define PR_MAX (1u << 20)

/* The earliest measured time from which a location may still complete a
 * synchronous send: its replay position, or an open send's time. */
static uint64_t pr_horizon(const engine *E)
{
    uint64_t h = UINT64_MAX;
    size_t j, k;
    if (E->part) /* another part's sender may still ask (engine_seam.c) */
        return 0;
    for (j = 0; j < E->n; j++) {
        const rloc *J = &E->L[j];
        if (J->state == S_DONE)
            continue;
        if (J->ls.prev_m < h)
            h = J->ls.prev_m;
        for (k = 0; k < J->nsync; k++)
            if (J->syncs[k]->send_m < h)
                h = J->syncs[k]->send_m;
    }
    return h;
}

/* A full ring: drop what no lookup can reach; past PR_GROW entries, when
 * that frees half of it, keep the ring (so the O(locations) horizon is
 * found once per half a ring of calls), else grow; out of memory, or at
 * PR_MAX, drop what it can or forget the oldest. */
__attribute__((noinline, cold)) void up_eng_pr_full(engine *E, rloc *L)
{
    uint64_t h = pr_horizon(E);
    uint32_t drop = 0, ncap = L->prcap ? 2 * L->prcap : PR_MIN, i;
    pres *n = NULL;
    while (drop + 1 < L->prn && pr_at(L, drop + 1)->m < h)
        drop++;
    if ((ncap <= PR_GROW || drop < L->prn / 2) && ncap <= PR_MAX &&
        (n = up_malloc(ncap * sizeof *n))) {
        for (i = drop; i < L->prn; i++)
            n[i - drop] = *pr_at(L, i);
        up_free(L->pr);
        L->pr = n;
        L->prcap = ncap;
        L->prpos = 0;
        L->prn -= drop;
        return;
    }
    if (!drop && L->prcap) { /* out of memory or at PR_MAX: forget the oldest */
        drop = 1;
        L->pr_forgot = true;
    } else if (!L->prcap) {
        L->pr_forgot = true; /* not even the first: nothing is known */
    }
    L->prpos = (L->prpos + drop) & (L->prcap - 1);
    L->prn -= drop;
}

/* Receiver R has timed every record before measured time t */
static bool pr_ready(const engine *E, rloc *R, uint64_t t)
{
    up_event *ev;
    if (R->state == S_DONE || R->ls.prev_m >= t)
        return true;
    return up_stream_buffered(R->s) && up_stream_peek(R->s, 0, &ev, E->err) == UP_OK && ev &&
           ev->time >= t;
}

/* Where synchronous send s could first move: after its send and its post */
static uint64_t sync_t0(const up_sync *s)
{
    return s->send_m > s->post_m ? s->send_m : s->post_m;
}

/* Did R's i-th oldest progressing call come after t0 with R outside MPI
 * since t0 (the call before it, if any, had left by then)?  1 yes, 0 no,
 * -1 unknown (the call before it was forgotten). */
static int pr_first_after(const rloc *R, uint32_t i, uint64_t t0)
{
    if (pr_at(R, i)->m <= t0)
        return 0; /* R was in MPI since before t0 */
    if (i == 0)
        return R->pr_forgot ? -1 : 1;
    return pr_at(R, i - 1)->leave_m <= t0; /* the call before still open: it progressed */
}

/* Fills s->has_prog and s->prog_* from receiver R's last progressing call
 * that reached the library before measured time t (the completion), if it
 * came after both the send and the post with R outside MPI in between
 * (pr_first_after).  false when R's calls that far back were forgotten. */
static bool pr_find(rloc *R, up_sync *s, uint64_t t)
{
    uint32_t i = R->prn;
    const pres *p;
    int first;
    s->has_prog = false;
    while (i > 0 && pr_at(R, i - 1)->m >= t)
        i--;
    if (i == 0) /* none before t: R's calls all came later, or were forgotten */
        return !R->pr_forgot;
    if ((first = pr_first_after(R, i - 1, sync_t0(s))) <= 0)
        return first == 0;
    p = pr_at(R, i - 1);
    s->has_prog = true;
    s->prog_m = p->m;
    s->prog_a = p->a;
    s->prog_kind = p->kind;
    s->prog_rflags = p->rflags;
    return true;
}

/* Message m's receive was posted at (post_m, post_a) by location `by`
 * (UINT32_MAX: no receive, the message is dropped): a synchronous sender
 * waiting for it may go on.  Its receiver is the location that posted it,
 * which may be another thread of the process the send named (MPI from any
 * thread): the progress rule looks at that one's MPI calls. */
static int msg_posted(engine *E, up_msg *m, uint64_t post_m, uint64_t post_a, bool by_request,
                      uint32_t by)
{
    up_sync *s = m->sync;
    rloc *S;
    m->posted = true;
    if (!s || s->posted)
        return 0;
    s->posted = true;
    s->by_request = by_request;
    if (by != UINT32_MAX)
        s->dst = by;
    s->post_m = post_m;
    s->post_a = post_a;
    if (!up_eng_holds(E, s->src)) /* its sender's part holds the original */
        return up_eng_x_post(E, s);
    S = &E->L[s->src];
    if (S->state == S_WAIT && S->wait == W_SYNC && S->wsync == s)
        return up_eng_make_runnable(E, s->src);
    return 0;
}

/* A post reached the part that holds synchronous sender src (the seam,
 * engine_seam.c): its send `id`, if its call has not completed, may go on. */
int up_eng_sync_posted(engine *E, uint32_t src, uint64_t id, uint64_t post_m, uint64_t post_a,
                       bool by_request)
{
    rloc *S = &E->L[src];
    size_t i;
    for (i = 0; i < S->nsync && S->syncs[i]->id != id; i++)
        ;
    if (i == S->nsync || S->syncs[i]->posted)
        return 0; /* completed or dropped already, or posted */
    S->syncs[i]->posted = true;
    S->syncs[i]->by_request = by_request;
    S->syncs[i]->post_m = post_m;
    S->syncs[i]->post_a = post_a;
    if (S->state == S_WAIT && S->wait == W_SYNC && S->wsync == S->syncs[i])
        return up_eng_make_runnable(E, src);
    return 0;
}

/* A receive on q was posted: it pairs with the first message not yet
 * paired, or waits in q->posts for the next send (MPI matches receives in
 * the order they were posted). */
static int post_recv(engine *E, msgq *q, uint64_t post_m, uint64_t post_a, uint32_t li)
{
    up_msg *m;
    post *p;
    for (m = q->head; m; m = m->next)
        if (!m->posted)
            return msg_posted(E, m, post_m, post_a, true, li);
    if (!(p = up_malloc(sizeof *p)))
        return -1;
    p->m = post_m;
    p->a = post_a;
    p->loc = li;
    p->next = NULL;
    if (q->posts_tail)
        q->posts_tail->next = p;
    else
        q->posts = p;
    q->posts_tail = p;
    return 0;
}

static void posts_free(msgq *q)
{
    while (q->posts) {
        post *p = q->posts;
        q->posts = p->next;
        up_free(p);
    }
    q->posts_tail = NULL;
}

/* The head of queue q, taken by a receive. */
up_msg *up_eng_queue_pop(engine *E, msgq *q)
{
    up_msg *m = q->head;
    q->head = m->next;
    if (!q->head)
        q->tail = NULL;
    q->waiting = false;
    if (E->wild != UP_WILDCARD_PRESERVE)
        up_eng_group_unlink(E, m);
    return m;
}


/* ---- lookahead -------------------------------------------------------------- */

/* Measured time of the first Leave at or after buffered position `from` of a
 * location's stream (the end of a send call), or `fallback` when there is
 * none within reach. */
static int exit_time_from(engine *E, rloc *L, size_t from, uint64_t fallback, uint64_t *exit_m)
{
    size_t i;
    *exit_m = fallback;
    for (i = from; i < UP_STREAM_MAX_LOOKAHEAD; i++) {
        up_event *e;
        if (up_stream_peek(L->s, i, &e, E->err) != UP_OK)
            return -1;
        if (!e)
            break;
        if (e->kind == UP_EV_Leave) {
            *exit_m = e->time;
            break;
        }
    }
    return 0;
}

/* ... after the head record (the send itself is the head). */
static int exit_time(engine *E, rloc *L, uint64_t head_t, uint64_t *exit_m)
{
    return exit_time_from(E, L, 1, head_t, exit_m);
}

/* The location of `rank` in comm, as location li's message names it, and
 * the member li counts as there (*me: li, or its process's, MPI from any
 * thread): 1 with *loc and *me set; 0 when it maps to no location or li is
 * no member of comm (a message on a group it is not in has no partner:
 * timed as a local record, counted as an unresolved peer); -1 out of
 * memory; -2 li is another thread of its process than the member, in a
 * partitioned replay (not a crossing yet: said in E->err). */
UP_HOT_INLINE int peer_loc(engine *E, uint32_t li, OTF2_CommRef comm, uint32_t rank, uint32_t *me,
                           uint32_t *loc)
{
    int r = up_eng_member_of(E, li, comm, me);
    if (r <= 0)
        return r;
    if (*me != li && E->part) {
        up_eng_x_outside(E, "an MPI record on a thread that is not its process's member");
        return -2;
    }
    return up_defs_rank_loc(E->d, comm, rank, *me, loc) ? 1 : 0;
}

/* peer_loc's failure r (< 0) as a step */
static int peer_fail(engine *E, int r, const char *doing)
{
    if (r == -2)
        return STEP_ERROR;
    UP_ERR(E->err, UP_ENOMEM, "out of memory %s", doing);
    return STEP_ERROR;
}

/* ---- MPI from any thread (docs/models.md) -------------------------------------
 * A record can sit on any CPU thread of a process; its messages are keyed by
 * the process's member of the communicator.  MPI orders messages only per
 * sending thread; between the threads of one process the measured order is
 * used: their sends enter the queues, their receives take messages and
 * their collectives get their instances in the order of the records'
 * measured times (ties: the lower location first), whatever the schedule. */

/* The rings of CPU threads of each process (rloc.pnext) */
up_status up_eng_mates_init(engine *E)
{
    uint32_t nprocs = E->d->nprocs, *first, *last, p;
    size_t i;
    for (i = 0; i < E->n; i++)
        E->L[i].pnext = (uint32_t)i;
    if (!nprocs)
        return UP_OK;
    first = up_malloc(nprocs * sizeof *first);
    last = up_malloc(nprocs * sizeof *last);
    if (!first || !last) {
        up_free(first);
        up_free(last);
        return UP_ERR(E->err, UP_ENOMEM, "out of memory");
    }
    for (p = 0; p < nprocs; p++)
        last[p] = UINT32_MAX;
    for (i = 0; i < E->n; i++) {
        const up_loc_def *ld = &E->d->locs[i];
        if (ld->kind != UP_LOC_CPU || ld->gkind != UP_GROUP_PROCESS || ld->process >= nprocs)
            continue;
        p = ld->process;
        if (last[p] == UINT32_MAX)
            first[p] = (uint32_t)i;
        else
            E->L[last[p]].pnext = (uint32_t)i;
        last[p] = (uint32_t)i;
    }
    for (p = 0; p < nprocs; p++)
        if (last[p] != UINT32_MAX)
            E->L[last[p]].pnext = first[p];
    up_free(first);
    up_free(last);
    return UP_OK;
}

/* May li's record at measured time t go now (STEP_OK), or must it go
 * behind another thread of its process whose next record comes earlier
 * (STEP_DEFER, or STEP_DECLINED on the direct path)?  A thread that runs
 * is gone behind; one that waits only while a location behind t still
 * runs, which may release it (prog_wait's rule: whatever releases a waiting
 * location comes from one that runs); one that defers or parks is not (it
 * may wait for li).  li's key goes behind the thread's: a chain of threads
 * that went behind each other runs from its head, whatever the ties. */
int up_eng_mates_first(engine *E, uint32_t li, uint64_t t, bool direct)
{
    rloc *L = &E->L[li];
    uint32_t j;
    if (L->pnext == li) /* its process's only thread: a pure MPI trace */
        return STEP_OK;
    L->mate_wait = false;
    if (L->force) /* released: it goes on without what it waits for */
        return STEP_OK;
    for (j = L->pnext; j != li; j = E->L[j].pnext) {
        rloc *J = &E->L[j];
        up_event *e;
        if (J->state == S_DONE)
            continue;
        if (up_stream_peek(J->s, 0, &e, E->err) != UP_OK)
            return STEP_ERROR;
        if (!e || e->time > t || (e->time == t && j > li))
            continue;
        if (J->state == S_RUN ? J->deferring || J->claiming : !up_eng_behind(E, t))
            continue;
        if (direct)
            return STEP_DECLINED;
        if (J->state != S_RUN)
            L->defer_key = t; /* behind what runs before t */
        else
            L->defer_key = (J->mate_wait ? J->defer_key : e->time) + 1;
        L->mate_wait = true;
        return STEP_DEFER;
    }
    return STEP_OK;
}

/* ---- record handlers ---------------------------------------------------------- */

/* A send.  On the slow path the end of its call (exit.send_m, the first
 * Leave after it) is found by reading ahead; on the direct path it is not
 * known yet: the message waits in L->pend for the location's next Leave, or
 * for a receive that needs it first (resolve_exit). */
int up_eng_send(engine *E, uint32_t li, up_event **evp, bool direct)
{
    rloc *L = &E->L[li];
    up_event *ev = *evp;
    uint32_t rank, tag, dst, me;
    OTF2_CommRef comm;
    uint64_t bytes, exit_m, k0, k1, t;
    uint32_t odst, oc = 0;
    bool retarget = false, reply = false, kept;
    up_msg *m;
    int r;

    if (direct && L->reply_open)
        return STEP_DECLINED; /* may be a reply: step() (it needs the attributes) */
    if (ev->kind == UP_EV_MpiSend) {
        rank = ev->u.MpiSend.receiver, comm = ev->u.MpiSend.communicator;
        tag = ev->u.MpiSend.msgTag, bytes = ev->u.MpiSend.msgLength;
    } else {
        rank = ev->u.MpiIsend.receiver, comm = ev->u.MpiIsend.communicator;
        tag = ev->u.MpiIsend.msgTag, bytes = ev->u.MpiIsend.msgLength;
    }
    if ((r = peer_loc(E, li, comm, rank, &me, &dst)) <= 0) {
        if (r < 0)
            return peer_fail(E, r, "queueing a message");
        E->repairs[UP_REPAIR_unresolved_peer]++;
        E->ops->local(E->model, li, &L->ls, ev);
        return STEP_OK;
    }
    if (direct && !up_eng_holds(E, dst))
        return STEP_DECLINED; /* across the seam exit.send_m goes with it: step() reads it */
    if ((r = up_eng_mates_first(E, li, ev->time, direct)) != STEP_OK)
        return r; /* another thread of its process sends first */
    if ((r = claim_wait(E, li, ev, dst, NULL, NULL, direct)) != STEP_OK)
        return r;
    t = ev->time;
    exit_m = t;
    if (!direct) {
        if (exit_time(E, L, t, &exit_m) != 0 || up_stream_peek(L->s, 0, evp, E->err) != UP_OK)
            return STEP_ERROR;
        ev = *evp;
    }
    odst = dst;
    if (E->wild != UP_WILDCARD_PRESERVE) { /* task farms: the key as recorded */
        msg_key(me, dst, comm, tag, &k0, &k1);
        if ((oc = up_eng_chan_get(E, k0, k1)) == UINT32_MAX) {
            UP_ERR(E->err, UP_ENOMEM, "out of memory queueing a message");
            return STEP_ERROR;
        }
        reply = up_eng_reply_of(E, li, ev, comm, &dst, &retarget);
    }
    if (!(m = msg_new(E))) {
        UP_ERR(E->err, UP_ENOMEM, "out of memory queueing a message");
        return STEP_ERROR;
    }
    m->send_m = ev->time;
    m->exit_m = exit_m;
    m->exit_known = !direct;
    m->bytes = bytes;
    m->src = li;
    m->dst = dst;
    if (E->wild != UP_WILDCARD_PRESERVE) {
        m->ochan = oc;
        m->oseq = E->chan[oc].sent++;
        m->odst = odst;
        m->task = reply;
        m->retargeted = retarget;
    }
    E->ops->send(E->model, li, &L->ls, ev, m);
    m->send_a = ev->t_out;
    if ((L->enter_rflags & UP_REGION_SSEND) || bytes > E->eager) {
        up_sync *s;
        if ((L->nsync == L->synccap &&
             !up_grow((void **)&L->syncs, &L->synccap, L->nsync + 1, sizeof *L->syncs)) ||
            !(s = up_calloc(1, sizeof *s))) {
            msg_free(E, m);
            UP_ERR(E->err, UP_ENOMEM, "out of memory queueing a message");
            return STEP_ERROR;
        }
        s->send_m = m->send_m;
        s->send_a = m->send_a;
        s->bytes = bytes;
        s->src = li;
        s->dst = dst;
        s->blocking = ev->kind == UP_EV_MpiSend;
        s->req = ev->kind == UP_EV_MpiIsend ? ev->u.MpiIsend.requestID : 0;
        s->id = L->sync_seq++;
        s->refs = 2;
        m->sync = s;
        L->syncs[L->nsync++] = s;
    }

    if (!up_eng_holds(E, dst)) /* its receiver is another part's */
        return up_eng_x_msg(E, li, m, comm, tag);
    if (up_eng_msg_arrive(E, m, comm, tag, &kept) != STEP_OK)
        return STEP_ERROR;
    if (direct && kept) {
        if (L->npend == L->pendcap &&
            !up_grow((void **)&L->pend, &L->pendcap, L->npend + 1, sizeof *L->pend)) {
            UP_ERR(E->err, UP_ENOMEM, "out of memory queueing a message");
            return STEP_ERROR;
        }
        L->pend[L->npend++] = m;
    }
    return STEP_OK;
}

/* A message of key (k0, k1) came for member dst: its receiver waiting for
 * it (group: for any message of the key's communicator, re-matching) goes
 * on.  That is dst, or, MPI from any thread, any thread of dst's process
 * that waits on the key (they all look again: one takes it). */
static int wake_recvs(engine *E, uint32_t dst, uint64_t k0, uint64_t k1, bool group)
{
    uint32_t j = dst;
    if (E->L[dst].pnext == dst) {
        rloc *R = &E->L[dst];
        if (R->state == S_WAIT && (group || R->wait == W_MSG))
            return up_eng_make_runnable(E, dst);
        return 0;
    }
    do {
        rloc *J = &E->L[j];
        if (J->state == S_WAIT && J->wait == W_MSG && (uint32_t)J->wk0 == dst &&
            (group ? J->wk1 >> 32 == k1 >> 32 : J->wk0 == k0 && J->wk1 == k1) &&
            up_eng_make_runnable(E, j) != 0)
            return -1;
        j = J->pnext;
    } while (j != dst);
    return 0;
}

/* Message m (from m->src to m->dst on comm with tag) reaches its receiver's
 * queues: a posted receive pairs with it, a released one drops it (*kept
 * false), else it waits for its receive, which it wakes. */
int up_eng_msg_arrive(engine *E, up_msg *m, OTF2_CommRef comm, uint32_t tag, bool *kept)
{
    uint32_t dst = m->dst, from;
    uint64_t k0, k1;
    msgq *q;
    int r;
    *kept = false;
    /* its sender's member (the send found it: remembered) */
    if ((r = up_eng_member_of(E, m->src, comm, &from)) < 0) {
        msg_free(E, m);
        UP_ERR(E->err, UP_ENOMEM, "out of memory queueing a message");
        return STEP_ERROR;
    }
    if (r == 0)
        from = m->src; /* cannot happen: its send resolved it */
    msg_key(from, dst, comm, tag, &k0, &k1);
    queues_sweep(E);
    if (!(q = queue_cached(E, &E->L[m->src], true, k0, k1, true))) {
        msg_free(E, m);
        UP_ERR(E->err, UP_ENOMEM, "out of memory queueing a message");
        return STEP_ERROR;
    }
    q->from = from;
    if (q->skip) { /* its receive was released already (inconsistent trace) */
        q->skip--;
        E->repairs[UP_REPAIR_late_send]++;
        if (m->sync) /* no receive will post it: its sender is released */
            msg_posted(E, m, m->send_m, m->send_a, false, UINT32_MAX);
        msg_free(E, m);
        return STEP_OK;
    }
    if (q->posts) { /* its receive was posted before it was sent */
        post *p = q->posts;
        if (!(q->posts = p->next))
            q->posts_tail = NULL;
        msg_posted(E, m, p->m, p->a, true, p->loc);
        up_free(p);
    }
    *kept = true;
    if (q->tail)
        q->tail->next = m;
    else
        q->head = m;
    q->tail = m;
    if (E->wild != UP_WILDCARD_PRESERVE) {
        mgroup *g = up_eng_group_get(E, dst, comm, true);
        if (!g) {
            UP_ERR(E->err, UP_ENOMEM, "out of memory queueing a message");
            return STEP_ERROR;
        }
        m->comm = comm, m->tag = tag, m->q = q;
        m->gprev = g->tail;
        if (g->tail)
            g->tail->gnext = m;
        else
            g->head = m;
        g->tail = m;
        if (g->waiting) {
            g->waiting = q->waiting = false;
            if (wake_recvs(E, dst, k0, k1, true) != 0)
                return STEP_ERROR;
        }
    }
    if (q->waiting) {
        q->waiting = false;
        /* (a receiver woken for its group already runs: not twice into the heap) */
        if (wake_recvs(E, dst, k0, k1, false) != 0)
            return STEP_ERROR;
    }
    return STEP_OK;
}

/* Makes m->exit_m known: the first Leave among the sender's records not yet
 * processed (they all follow the send).  Reading ahead in another location's
 * stream is safe: it is not running, and it will take the buffered records
 * first.  A location cannot read ahead in its own stream while its records
 * are being handed over directly: STEP_DECLINED. */
int up_eng_resolve_exit(engine *E, uint32_t li, up_msg *m, bool direct)
{
    rloc *S = &E->L[m->src];
    size_t i;
    if (m->exit_known)
        return STEP_OK;
    if (direct && m->src == li)
        return STEP_DECLINED;
    if (!up_eng_holds(E, m->src)) /* cannot happen: it came with the message */
        return up_eng_x_outside(E, "the end of a send call");
    if (exit_time_from(E, S, 0, m->send_m, &m->exit_m) != 0)
        return STEP_ERROR;
    m->exit_known = true;
    for (i = 0; i < S->npend; i++)
        if (S->pend[i] == m) {
            S->pend[i] = S->pend[--S->npend];
            break;
        }
    return STEP_OK;
}

/* Two receive records on the same communicator, sender and tag. */
static bool same_channel(const up_event *a, const up_event *b)
{
    uint32_t ra, rb, ta, tb;
    OTF2_CommRef ca, cb;
    recv_fields(a, &ra, &ca, &ta);
    recv_fields(b, &rb, &cb, &tb);
    return ra == rb && ca == cb && ta == tb;
}

/* Progress: did rendezvous m move only once receiver L entered its current
 * call (its previous progressing call had left before the send and the
 * post, and this one came after both)? */
static bool at_entry(const rloc *L, const up_msg *m)
{
    const pres *cur;
    if (!m->sync || !m->sync->by_request || !L->prn)
        return false;
    cur = pr_at(L, L->prn - 1);
    return cur->m == L->ls.enter_m && cur->leave_m == UINT64_MAX &&
           pr_first_after(L, L->prn - 1, sync_t0(m->sync)) == 1;
}

/* Receive ev takes message m. */
int up_eng_recv_done(engine *E, uint32_t li, up_event *ev, up_msg *m)
{
    rloc *L = &E->L[li];
    m->dst = li; /* the receiving thread, which the model times (MPI from any thread) */
    m->at_entry = E->prog && at_entry(L, m);
    if (!m->posted) /* not posted at an MpiIrecvRequest: when its call began */
        msg_posted(E, m, L->ls.enter_m, L->ls.enter_a, false, li);
    if (L->spin_last) { /* the completion that ends a spin (docs/models.md, "Polling") */
        L->ls.spin = true;
        E->ops->recv(E->model, li, &L->ls, ev, m);
        L->ls.spin = false;
        L->spin_last = false;
    } else if (E->spin_gap && L->in_poll && E->ops->poll_recv) {
        /* a poll of an interleaved loop: the program does not wait here */
        uint64_t due = E->ops->poll_recv(E->model, li, &L->ls, ev, m);
        size_t k;
        /* not before a held completion from the same sender and tag: MPI
         * completes those in order (non-overtaking) */
        for (k = 0; k < L->nheld; k++)
            if (same_channel(&L->held[k].ev, ev) && L->held[k].due > due)
                due = L->held[k].due;
        if (due > ev->t_out)
            L->hold_now = true, L->hold_t = due;
    } else
        E->ops->recv(E->model, li, &L->ls, ev, m);
    msg_free(E, m);
    return STEP_OK;
}

/* direct: called on the direct path, where a missing message is not waited
 * for (STEP_DECLINED, nothing changed) but left to step(). */
int up_eng_recv(engine *E, uint32_t li, up_event **evp, bool direct)
{
    up_event *ev = *evp;
    rloc *L = &E->L[li];
    uint32_t rank, tag, src, me;
    OTF2_CommRef comm;
    uint64_t k0, k1;
    msgq *q;
    int r;

    recv_fields(ev, &rank, &comm, &tag);
    if ((r = peer_loc(E, li, comm, rank, &me, &src)) <= 0) {
        if (r < 0)
            return peer_fail(E, r, "matching a receive");
        E->repairs[UP_REPAIR_unresolved_peer]++;
        E->ops->recv(E->model, li, &L->ls, ev, NULL);
        return STEP_OK;
    }
    if ((r = up_eng_mates_first(E, li, ev->time, direct)) != STEP_OK)
        return r; /* another thread of its process receives first */
    msg_key(src, me, comm, tag, &k0, &k1);
    if (E->wild != UP_WILDCARD_PRESERVE) /* needs the record's attributes */
        return direct ? STEP_DECLINED : up_eng_recv_rematch(E, li, evp, comm, src, tag, k0, k1);
    q = queue_cached(E, L, false, k0, k1, false);
    if (q && q->head) {
        if ((r = up_eng_resolve_exit(E, li, q->head, direct)) != STEP_OK)
            return r;
        if (!direct && q->head->src == li && up_stream_peek(L->s, 0, evp, E->err) != UP_OK)
            return STEP_ERROR; /* read ahead in our own stream: the head moved */
        if ((r = claim_wait(E, li, *evp, src, q->head, NULL, direct)) != STEP_OK)
            return r;
        return up_eng_recv_done(E, li, *evp, up_eng_queue_pop(E, q));
    }
    if (direct)
        return STEP_DECLINED;
    if (!(q = up_eng_queue_get(E, k0, k1, true))) {
        UP_ERR(E->err, UP_ENOMEM, "out of memory waiting for a message");
        return STEP_ERROR;
    }
    if (L->force) { /* released: no send will ever come before it */
        L->force = false;
        q->waiting = false;
        q->skip++;
        E->repairs[UP_REPAIR_unmatched_recv]++;
        E->ops->recv(E->model, li, &L->ls, ev, NULL);
        return STEP_OK;
    }
    q->waiting = true;
    L->wait = W_MSG;
    L->wk0 = k0;
    L->wk1 = k1;
    return STEP_BLOCKED;
}

/* An Irecv is posted at its MpiIrecvRequest, long before the MpiIrecv that
 * completes it names the sender and tag: these are looked for ahead, so that
 * a synchronous sender can go on as soon as the receive was posted, as in
 * MPI.  A request that is cancelled, or whose completion is out of reach,
 * posts nothing here (the completion posts it then). */
int up_eng_irecv_request(engine *E, uint32_t li, up_event **evp, bool direct)
{
    rloc *L = &E->L[li];
    uint64_t req = (*evp)->u.MpiIrecvRequest.requestID, k0, k1;
    up_event *e = NULL;
    size_t i;
    uint32_t rank = 0, tag = 0, src = 0, me = li;
    OTF2_CommRef comm = 0;
    msgq *q;
    int r;
    (void)direct; /* never on the direct path (the record table) */

    /* posts pair with messages in the order its process's threads made them */
    if ((r = up_eng_mates_first(E, li, (*evp)->time, false)) != STEP_OK)
        return r;
    for (i = 1; i < UP_STREAM_MAX_LOOKAHEAD; i++) {
        if (up_stream_peek(L->s, i, &e, E->err) != UP_OK)
            return STEP_ERROR;
        if (!e || (e->kind == UP_EV_MpiIrecv && e->u.MpiIrecv.requestID == req) ||
            (e->kind == UP_EV_MpiRequestCancelled && e->u.MpiRequestCancelled.requestID == req))
            break;
    }
    if (e && e->kind == UP_EV_MpiIrecv && e->u.MpiIrecv.requestID == req) {
        recv_fields(e, &rank, &comm, &tag);
        if ((r = peer_loc(E, li, comm, rank, &me, &src)) < 0)
            return peer_fail(E, r, "posting a receive");
        if (r == 0) /* its MpiIrecv is counted */
            e = NULL;
    } else {
        e = NULL;
    }
    if (up_stream_peek(L->s, 0, evp, E->err) != UP_OK)
        return STEP_ERROR;
    E->ops->local(E->model, li, &L->ls, *evp);
    if (!e)
        return STEP_OK;
    msg_key(src, me, comm, tag, &k0, &k1);
    if (!(q = up_eng_queue_get(E, k0, k1, true)) ||
        post_recv(E, q, (*evp)->time, (*evp)->t_out, li) != 0) {
        UP_ERR(E->err, UP_ENOMEM, "out of memory posting a receive");
        return STEP_ERROR;
    }
    return STEP_OK;
}

/* Does record ev complete some of L's synchronous sends?  The Leave of the
 * call completes its blocking ones, MpiIsendComplete the one with its
 * request id; MpiRequestCancelled drops one. */
static bool sync_completes(const rloc *L, const up_event *ev, size_t i)
{
    const up_sync *s = L->syncs[i];
    if (ev->kind == UP_EV_Leave)
        return s->blocking;
    if (ev->kind == UP_EV_MpiIsendComplete)
        return !s->blocking && s->req == ev->u.MpiIsendComplete.requestID;
    return false;
}

void up_eng_sync_drop(rloc *L, size_t i)
{
    sync_unref(L->syncs[i]);
    memmove(&L->syncs[i], &L->syncs[i + 1], (L->nsync - i - 1) * sizeof *L->syncs);
    L->nsync--;
}

/* The approximated time a synchronous send's completion depends on: the
 * post, or its receiver's entry into MPI after it */
static uint64_t sync_dep_a(const up_sync *s)
{
    return s->has_prog && s->prog_a > s->post_a ? s->prog_a : s->post_a;
}

/* Progress (docs/models.md, "Progress"): the completion at measured time t
 * of L's synchronous send s depends on the MPI calls its receiver made up
 * to t.  Waits (STEP_YIELD) until the receiver has timed them; a receiver
 * that waits itself while nothing earlier can run is not waited for (the
 * send is timed from its post, counted as progress_unknown). */
static int prog_wait(engine *E, uint32_t li, up_sync *s, uint64_t t)
{
    rloc *R = &E->L[s->dst];
    if (!up_eng_holds(E, s->dst)) { /* the receiver's part answers (engine_seam.c) */
        if (s->prog_asked == 2)
            return STEP_OK;
        if (!s->prog_asked && up_eng_x_progq(E, s, t) != STEP_OK)
            return STEP_ERROR;
        s->prog_asked = 1;
        E->L[li].wait = W_PROG;
        E->L[li].wsync = s;
        return STEP_BLOCKED;
    }
    if (!pr_ready(E, R, t)) {
        bool earlier = up_eng_behind(E, t);
        if (R->state == S_RUN ? !R->deferring && !R->claiming : earlier)
            return STEP_YIELD;
        s->has_prog = false;
        E->repairs[UP_REPAIR_progress_unknown]++;
    } else if (!pr_find(R, s, t)) {
        E->repairs[UP_REPAIR_progress_unknown]++;
    }
    if (E->ops->progress_of) /* the model's own view, taken where R is replayed */
        E->ops->progress_of(E->model, s->dst, s, t);
    return STEP_OK;
}

/* A partitioned replay: sender li's question about the progress of its
 * receiver R (held here) for synchronous send `s` (its send and post times,
 * completion at t).  false: R has not timed every record before t yet (and
 * not `now`: at the end, answered as unknown, as the serial replay does
 * when nothing earlier can run).  *known false: R's calls that far back were
 * forgotten, or not ready. */
bool up_eng_prog_answer(engine *E, uint32_t rloc_i, up_sync *s, uint64_t t, bool now, bool *known)
{
    rloc *R = &E->L[rloc_i];
    *known = false;
    s->has_prog = false;
    if (!pr_ready(E, R, t)) {
        if (!now)
            return false;
    } else {
        *known = pr_find(R, s, t);
    }
    if (E->ops->progress_of)
        E->ops->progress_of(E->model, rloc_i, s, t);
    return true;
}
/* The record completing synchronous sends waits until their receives were
 * posted (the late-receiver wait of Sarukkai and Malony, Section 3.3); the
 * model times it from the latest post.  Returns STEP_DECLINED when the
 * record completes none of them. */
int up_eng_sync_end(engine *E, uint32_t li, up_event *ev)
{
    rloc *L = &E->L[li];
    const up_sync *last = NULL;
    bool any = false;
    size_t i;
    if (ev->kind == UP_EV_MpiRequestCancelled) {
        for (i = 0; i < L->nsync; i++)
            if (!L->syncs[i]->blocking && L->syncs[i]->req == ev->u.MpiRequestCancelled.requestID) {
                up_eng_sync_drop(L, i);
                break;
            }
        return STEP_DECLINED;
    }
    for (i = 0; i < L->nsync; i++) {
        up_sync *s = L->syncs[i];
        if (!sync_completes(L, ev, i))
            continue;
        any = true;
        if (!s->posted) {
            if (!L->force) {
                L->wait = W_SYNC;
                L->wsync = s;
                return STEP_BLOCKED;
            }
            L->force = false; /* its receive never came: complete without it */
            s->posted = true;
            s->post_m = s->send_m;
            s->post_a = s->send_a;
            E->repairs[UP_REPAIR_sync_unposted]++;
        }
        if (s->post_m > ev->time && E->ops->eager_from_trace)
            continue; /* the call completed before its receive was posted:
                       * the library buffered the message (eager, whatever
                       * its size), so the completion waited for nothing */
        if (E->prog && s->by_request && s->bytes && s->dst != li) {
            int r = prog_wait(E, li, s, ev->time);
            if (r != STEP_OK)
                return r;
        }
        if (!last || sync_dep_a(s) > sync_dep_a(last))
            last = s;
    }
    if (!any)
        return STEP_DECLINED;
    L->wsync = NULL;
    E->ops->sync_end(E->model, li, &L->ls, ev, last);
    for (i = L->nsync; i-- > 0;)
        if (sync_completes(L, ev, i))
            up_eng_sync_drop(L, i);
    return STEP_OK;
}

/* The messages and posted receives still queued (the map itself is freed
 * by the caller); after a complete run, counted as unmatched sends when
 * `count`. */
void up_eng_p2p_free(engine *E, bool count)
{
    uint64_t k0, k1, v;
    size_t i;
    for (i = 0; i < E->msgq.cap; i++) {
        if (up_map_at(&E->msgq, i, &k0, &k1, &v)) {
            msgq *q = (msgq *)(uintptr_t)v;
            while (q->head) {
                up_msg *m = q->head;
                q->head = m->next;
                if (count)
                    E->repairs[UP_REPAIR_unmatched_send]++;
                sync_unref(m->sync);
                up_free(m);
            }
            posts_free(q);
            up_free(q);
        }
    }
}
