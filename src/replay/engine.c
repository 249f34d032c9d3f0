/*
 * engine.c - the replay engine (see src/replay/replay.h).
 *
 * Place in the data flow: reader streams -> [engine + model] -> writer.
 * The engine owns the dependencies between locations (message queues,
 * collective instances, waiting and waking, deadlock release); the model owns
 * the formulas.  One location is advanced at a time; which one is decided by
 * a min-heap on the measured time of its next record.
 */
#include <string.h>

#include "replay/engine_int.h"


/* ---- heap of runnable locations ------------------------------------------ */

/* The schedule (up_replay_set_schedule): how many records a location runs
 * before it may yield, and which of two locations at the same measured time
 * runs first (the lower index, or the higher).  The results must not depend
 * on it (issue 23: a parallel replay will schedule otherwise); a test varies
 * both. */
static size_t sched_slice = SLICE_MIN;
static bool sched_reverse;

void up_replay_set_schedule(size_t slice, bool reverse)
{
    sched_slice = slice ? slice : SLICE_MIN;
    sched_reverse = reverse;
}

/* heap order: (key, loc) before (key2, loc2) */
static bool hbefore(uint64_t key, uint32_t loc, uint64_t key2, uint32_t loc2)
{
    return key < key2 || (key == key2 && (sched_reverse ? loc > loc2 : loc < loc2));
}

static void heap_push(engine *E, uint32_t loc, uint64_t key)
{
    size_t i = E->hn++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (hbefore(E->heap[p].key, E->heap[p].loc, key, loc))
            break;
        E->heap[i] = E->heap[p];
        i = p;
    }
    E->heap[i].key = key;
    E->heap[i].loc = loc;
}

static uint32_t heap_pop(engine *E)
{
    uint32_t top = E->heap[0].loc;
    hent last = E->heap[--E->hn];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= E->hn)
            break;
        if (c + 1 < E->hn &&
            hbefore(E->heap[c + 1].key, E->heap[c + 1].loc, E->heap[c].key, E->heap[c].loc))
            c++;
        if (hbefore(last.key, last.loc, E->heap[c].key, E->heap[c].loc))
            break;
        E->heap[i] = E->heap[c];
        i = c;
    }
    E->heap[i] = last;
    return top;
}

/* ---- the claims' heaps (claim_lagging, cw_wake) --------------------------------- */

/* A running location's clock for the claims: its last record's time, or
 * the time it defers at; 0 before its first record. */
static uint64_t claim_clock(const rloc *J)
{
    if (J->claiming || J->deferring)
        return J->defer_at;
    return J->ls.started ? J->ls.prev_a : 0;
}

static bool kh_less(const hent *x, const hent *y)
{
    return x->key < y->key || (x->key == y->key && x->loc < y->loc);
}

/* false: out of memory */
static bool kh_push(kheap *h, uint32_t loc, uint64_t key)
{
    hent e = {key, loc};
    size_t i;
    if (h->n == h->cap && !up_grow((void **)&h->a, &h->cap, h->n + 1, sizeof *h->a))
        return false;
    for (i = h->n++; i > 0 && kh_less(&e, &h->a[(i - 1) / 2]); i = (i - 1) / 2)
        h->a[i] = h->a[(i - 1) / 2];
    h->a[i] = e;
    return true;
}

static void kh_pop(kheap *h)
{
    hent last = h->a[--h->n];
    size_t i = 0, c;
    while ((c = 2 * i + 1) < h->n) {
        if (c + 1 < h->n && kh_less(&h->a[c + 1], &h->a[c]))
            c++;
        if (!kh_less(&h->a[c], &last))
            break;
        h->a[i] = h->a[c];
        i = c;
    }
    h->a[i] = last;
}

/* E->ch holds lower bounds of the clocks of the running locations, a
 * location possibly more than once: claim_lagging() raises a stale bound
 * when it reaches the top and drops those of locations that no longer run.
 * A clock only goes down when a location stops deferring, which pushes its
 * new clock; make_runnable pushes too.  Out of memory, the heap is given up
 * (E->ch_off) and claim_lagging() scans every location. */
static void ch_push(engine *E, uint32_t loc, uint64_t clock)
{
    if (!E->ch_off && !kh_push(&E->ch, loc, clock))
        E->ch_off = true;
}

/* A location runs again, or stopped deferring (its clock may have gone
 * down): its clock joins the heap.  Every running location once, when the
 * heap has grown past twice their number. */
static void ch_note(engine *E, uint32_t loc)
{
    size_t i;
    if (!E->ops->claim || E->ch_off)
        return;
    if (E->ch.n > 2 * E->n + 64) {
        E->ch.n = 0;
        for (i = 0; i < E->n; i++)
            if (E->L[i].state == S_RUN && i != loc)
                ch_push(E, (uint32_t)i, claim_clock(&E->L[i]));
    }
    ch_push(E, loc, claim_clock(&E->L[loc]));
}

/* Makes a location runnable (its head record decides its place). */
static uint64_t next_key(struct engine *E, struct rloc *L);

static int make_runnable(engine *E, uint32_t li)
{
    rloc *L = &E->L[li];
    if (L->state == S_WAIT)
        E->nwait--;
    L->state = S_RUN;
    L->wait = W_NONE;
    heap_push(E, li, next_key(E, L));
    ch_note(E, li);
    return 0;
}

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

/* The object of `size` bytes that map m holds under (k0, k1); with create,
 * a zeroed one is made and put there if there is none.  NULL: none, or out
 * of memory. */
static void *map_obj(up_map *m, uint64_t k0, uint64_t k1, size_t size, bool create)
{
    uint64_t *v = up_map_get(m, k0, k1);
    void *o;
    if (v || !create)
        return v ? (void *)(uintptr_t)*v : NULL;
    if (!(o = up_calloc(1, size)))
        return NULL;
    if (!up_map_put(m, k0, k1, (uint64_t)(uintptr_t)o)) {
        up_free(o);
        return NULL;
    }
    return o;
}

/* for engine_rma.c (engine_int.h); the engine's own calls stay static and
 * inlined */
int up_eng_make_runnable(engine *E, uint32_t li) { return make_runnable(E, li); }
void *up_eng_map_obj(up_map *m, uint64_t k0, uint64_t k1, size_t size, bool create)
{
    return map_obj(m, k0, k1, size, create);
}

static msgq *queue_get(engine *E, uint64_t k0, uint64_t k1, bool create)
{
    return map_obj(&E->msgq, k0, k1, sizeof(msgq), create);
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
    q = queue_get(E, k0, k1, create);
    if (q && send)
        L->qs = q, L->qs0 = k0, L->qs1 = k1;
    else if (q)
        L->qr = q, L->qr0 = k0, L->qr1 = k1;
    return q;
}

static void msg_key(uint32_t src, uint32_t dst, OTF2_CommRef comm, uint32_t tag,
                    uint64_t *k0, uint64_t *k1)
{
    *k0 = (uint64_t)src << 32 | dst;
    *k1 = (uint64_t)comm << 32 | tag;
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

static pres *pr_at(const rloc *L, uint32_t i) /* i-th oldest */
{
    return &L->pr[(L->prpos + i) & (L->prcap - 1)];
}

/* The earliest measured time from which a location may still complete a
 * synchronous send: its replay position, or an open send's time. */
static uint64_t pr_horizon(const engine *E)
{
    uint64_t h = UINT64_MAX;
    size_t j, k;
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
__attribute__((noinline, cold)) static void pr_full(engine *E, rloc *L)
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

UP_HOT_INLINE void pr_push(engine *E, rloc *L, uint64_t m, uint64_t a, unsigned kind, unsigned rflags)
{
    pres *p;
    if (L->prn == L->prcap) {
        pr_full(E, L);
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

/* Message m's receive was posted at (post_m, post_a): a synchronous sender
 * waiting for it may go on. */
static int msg_posted(engine *E, up_msg *m, uint64_t post_m, uint64_t post_a, bool by_request)
{
    up_sync *s = m->sync;
    rloc *S;
    m->posted = true;
    if (!s || s->posted)
        return 0;
    s->posted = true;
    s->by_request = by_request;
    s->post_m = post_m;
    s->post_a = post_a;
    S = &E->L[s->src];
    if (S->state == S_WAIT && S->wait == W_SYNC && S->wsync == s)
        return make_runnable(E, s->src);
    return 0;
}

/* A receive on q was posted: it pairs with the first message not yet
 * paired, or waits in q->posts for the next send (MPI matches receives in
 * the order they were posted). */
static int post_recv(engine *E, msgq *q, uint64_t post_m, uint64_t post_a)
{
    up_msg *m;
    post *p;
    for (m = q->head; m; m = m->next)
        if (!m->posted)
            return msg_posted(E, m, post_m, post_a, true);
    if (!(p = up_malloc(sizeof *p)))
        return -1;
    p->m = post_m;
    p->a = post_a;
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

/* ---- re-matching wildcard receives (up_wildcard) ---------------------------- */

enum { WILD_SOURCE = 1, WILD_TAG = 2 }; /* bits of the attribute unperturb::wildcard */

static int resolve_exit(engine *E, uint32_t li, up_msg *m, bool direct);
static int recv_done(engine *E, uint32_t li, up_event *ev, up_msg *m);

static mgroup *group_get(engine *E, uint32_t dst, OTF2_CommRef comm, bool create)
{
    return map_obj(&E->groups, dst, comm, sizeof(mgroup), create);
}

static void group_unlink(engine *E, up_msg *m)
{
    mgroup *g = group_get(E, m->dst, m->comm, false);
    if (!g)
        return;
    if (m->gprev)
        m->gprev->gnext = m->gnext;
    else
        g->head = m->gnext;
    if (m->gnext)
        m->gnext->gprev = m->gprev;
    else
        g->tail = m->gprev;
    m->gprev = m->gnext = NULL;
}

/* The head of queue q, taken by a receive. */
static up_msg *queue_pop(engine *E, msgq *q)
{
    up_msg *m = q->head;
    q->head = m->next;
    if (!q->head)
        q->tail = NULL;
    q->waiting = false;
    if (E->wild != UP_WILDCARD_PRESERVE)
        group_unlink(E, m);
    return m;
}

/* The value of the record's UINT8 attribute `id` (0: it has none) */
static uint8_t attr_uint8(const up_event *ev, OTF2_AttributeRef id)
{
    uint32_t i;
    for (i = 0; i < ev->nattrs; i++)
        if (ev->attrs[i].id == id && ev->attrs[i].type == OTF2_TYPE_UINT8)
            return ev->attrs[i].value.uint8;
    return 0;
}

/* The wildcard bits of a receive record (0: it named its sender and tag, or
 * the trace does not say). */
static unsigned wildcard_bits(const engine *E, const up_event *ev)
{
    if (!E->d->has_wildcard_attr)
        return 0;
    return attr_uint8(ev, E->d->wildcard_attr) & (WILD_SOURCE | WILD_TAG);
}

/* A canonical order of two messages sent at the same approximated time,
 * for a receive recorded from src: the recorded sender's first (a tie is
 * no reason to change the measured match), then the lower location, then
 * the earlier measured send. */
static bool msg_before(const up_msg *a, const up_msg *b, uint32_t src)
{
    if ((a->src == src) != (b->src == src))
        return a->src == src;
    return a->src != b->src ? a->src < b->src : a->send_m < b->send_m;
}

/* The message a receive on group g takes among its candidates: with
 * wildcard bits, every message it could match in MPI (sender src unless
 * WILD_SOURCE, tag unless WILD_TAG), of each sender only the first one
 * (non-overtaking); without (bits 0), the heads of the keys that owe
 * messages (lent < 0).  FIFO: the one sent first in approximated time; LIFO:
 * the one sent last no later than the receive's post (post_a), else the
 * first sent after it (Sarukkai and Malony Section 4.2). */
static up_msg *choose(engine *E, const mgroup *g, uint32_t src, uint32_t tag, unsigned bits,
                      uint64_t post_a)
{
    up_msg *m, *first = NULL, *last = NULL;
    if (++E->scan == 0) {
        memset(E->seen, 0, E->n * sizeof *E->seen);
        E->scan = 1;
    }
    for (m = g->head; m; m = m->gnext) {
        if (bits) {
            if ((!(bits & WILD_SOURCE) && m->src != src) || (!(bits & WILD_TAG) && m->tag != tag))
                continue;
            if (E->seen[m->src] == E->scan)
                continue; /* a later message of a sender already seen */
            E->seen[m->src] = E->scan;
        } else if (((msgq *)m->q)->lent >= 0 || ((msgq *)m->q)->head != m) {
            continue;
        }
        /* ties: msg_before, not the group's order, which is the replay's */
        if (!first || m->send_a < first->send_a ||
            (m->send_a == first->send_a && msg_before(m, first, src)))
            first = m;
        if (m->send_a <= post_a &&
            (!last || m->send_a > last->send_a ||
             (m->send_a == last->send_a && msg_before(m, last, src))))
            last = m;
    }
    return E->wild == UP_WILDCARD_LIFO && last ? last : first;
}

/* The event rank of location loc in communicator comm (inverse of
 * up_defs_rank_loc), or false. */
static bool event_rank(const engine *E, OTF2_CommRef comm, uint32_t loc, uint32_t *rank)
{
    const up_comm_def *c = up_defs_comm(E->d, comm);
    uint32_t r;
    if (!c || !c->resolved)
        return false;
    if (c->self) {
        *rank = 0;
        return true;
    }
    for (r = 0; r < (c->global_ranks ? c->world_size : c->size); r++)
        if ((c->global_ranks ? c->world[r] : c->members[r]) == loc) {
            *rank = r;
            return true;
        }
    return false;
}

/* ---- task farms: replies follow the re-matched receive ---------------------- */

/* A master that receives from MPI_ANY_SOURCE and sends the next task to
 * status.MPI_SOURCE (docs/models.md, "Task farms").  When fifo or lifo
 * re-matches such a receive, its reply goes to the re-matched sender, and
 * the receive that takes a task another location took in the measured run
 * does that task's measured work: the program time from the end of the
 * receive call to the next MPI call is that of the task's measured
 * receiver.  Records stay on their locations; only times move. */

typedef struct chan {
    uint64_t k0, k1;     /* the key as the records name it */
    uint64_t sent, recvd;/* send and receive records on it so far */
} chan;

static void recv_fields(const up_event *ev, uint32_t *rank, OTF2_CommRef *comm, uint32_t *tag);
static void set_rflags(engine *E, up_event *ev);

#define FIND_MAX 16384   /* records read ahead for a task's measured receive */
#define BODY_MAX 4096    /* ... and for the work after it */

/* The index of key (k0, k1) in E->chan, created at first use
 * (UINT32_MAX: out of memory). */
static uint32_t chan_get(engine *E, uint64_t k0, uint64_t k1)
{
    uint64_t *v = up_map_get(&E->chans, k0, k1);
    chan *c;
    if (v)
        return (uint32_t)(*v - 1);
    if ((E->nchan == E->chancap &&
         !up_grow((void **)&E->chan, &E->chancap, E->nchan + 1, sizeof *E->chan)) ||
        !up_map_put(&E->chans, k0, k1, E->nchan + 1))
        return UINT32_MAX;
    c = &E->chan[E->nchan];
    memset(c, 0, sizeof *c);
    c->k0 = k0, c->k1 = k1;
    return (uint32_t)E->nchan++;
}

/* The work after the receive at buffered position `from` of location li:
 * from the Leave that ends its call to the next Enter of an MPI call, less
 * the overhead of the records in between (program time, ticks).  1 found,
 * 0 not within reach, -1 error. */
static int body_scan(engine *E, uint32_t li, size_t from, uint64_t *body)
{
    rloc *S = &E->L[li];
    uint64_t leave_m = 0, ovh = 0;
    bool left = false;
    size_t i;
    for (i = from + 1; i < from + BODY_MAX && i < UP_STREAM_MAX_LOOKAHEAD; i++) {
        up_event *e;
        if (up_stream_peek(S->s, i, &e, E->err) != UP_OK)
            return -1;
        if (!e)
            return 0;
        if (left && e->kind == UP_EV_Enter &&
            (up_defs_region_flags(E->d, e->u.Enter.region) & UP_REGION_MPI)) {
            *body = sub0(e->time, leave_m);
            *body = sub0(*body, ovh);
            return 1;
        }
        if (!left && e->kind != UP_EV_Leave)
            continue;
        if (!left)
            left = true, leave_m = e->time;
        set_rflags(E, e); /* (a function's Enter and Leave have their own O) */
        ovh += E->ops->record_ovh(E->model, li, e);
    }
    return 0;
}

/* The buffered position of location li's n-th receive record (from its
 * head) on key (k0, k1).  1 found, 0 not within reach, -1 error. */
static int find_recv(engine *E, uint32_t li, uint64_t k0, uint64_t k1, uint64_t n, size_t *at)
{
    rloc *S = &E->L[li];
    size_t i;
    for (i = 0; i < FIND_MAX; i++) {
        up_event *e;
        uint32_t rank, tag, src;
        OTF2_CommRef comm;
        uint64_t e0, e1;
        if (up_stream_peek(S->s, i, &e, E->err) != UP_OK)
            return -1;
        if (!e)
            return 0;
        if (e->kind != UP_EV_MpiRecv && e->kind != UP_EV_MpiIrecv)
            continue;
        recv_fields(e, &rank, &comm, &tag);
        if (!up_defs_rank_loc(E->d, comm, rank, li, &src))
            continue;
        msg_key(src, li, comm, tag, &e0, &e1);
        if (e0 == k0 && e1 == k1 && n-- == 0) {
            *at = i;
            return 1;
        }
    }
    return 0;
}

/* The measured work after message m's measured receive: left in E->bodies
 * by its receiver if it passed that receive already, else read ahead in its
 * stream (and a 0 left in E->bodies: taken).  1 found, 0 not, -1 error. */
static int moved_body(engine *E, const up_msg *m, uint64_t *body)
{
    chan *c = &E->chan[m->ochan];
    uint64_t *v;
    size_t at;
    int r;
    if (m->oseq < c->recvd) {
        if (!(v = up_map_get(&E->bodies, m->ochan, m->oseq)) || !*v)
            return 0;
        *body = *v - 1;
        up_map_del(&E->bodies, m->ochan, m->oseq);
        return 1;
    }
    if ((r = find_recv(E, m->odst, c->k0, c->k1, m->oseq - c->recvd, &at)) <= 0 ||
        (r = body_scan(E, m->odst, at, body)) <= 0)
        return r;
    return up_map_put(&E->bodies, m->ochan, m->oseq, 0) ? 1 : -1;
}

/* Receive ev of location li, recorded as the seq-th on chan rc, takes
 * message m: if m is a task that another receive took in the measured run,
 * the work after this receive becomes that task's (L->body), and this
 * receive's own work is left for the receive that takes its measured task. */
static int task_taken(engine *E, uint32_t li, uint32_t rc, uint64_t seq, const up_msg *m)
{
    rloc *L = &E->L[li];
    uint64_t own, moved, *v;
    int r1, r2;
    if (!E->follow || !m->task || (m->ochan == rc && m->oseq == seq))
        return 0;
    if ((r1 = body_scan(E, li, 0, &own)) < 0 || (r1 && (r2 = moved_body(E, m, &moved)) < 0))
        return -1;
    if (r1) {
        if ((v = up_map_get(&E->bodies, rc, seq)) && !*v) /* taken already */
            up_map_del(&E->bodies, rc, seq);
        else if (!up_map_put(&E->bodies, rc, seq, own + 1))
            return -1;
    }
    if (!r1 || !r2) {
        E->bodies_lost++;
        return 0;
    }
    E->bodies_moved++;
    L->body_d = (int64_t)(moved - own);
    L->body = L->body_d ? BODY_ARMED : BODY_NONE;
    return 0;
}

/* Send ev of location li to dst on comm: a reply when li's last receive
 * named MPI_ANY_SOURCE and was the only one since li's previous reply, ev
 * is the first send after it, no collective ended in between (nothing
 * could have chosen another destination), and dst is its measured sender
 * (and, when the tracer marks replies, it marked this one).  A reply
 * follows a re-matched receive: *dst becomes its re-matched sender and the
 * record names it. */
static bool reply_of(engine *E, uint32_t li, up_event *ev, OTF2_CommRef comm, uint32_t *dst,
                     bool *retarget)
{
    rloc *L = &E->L[li];
    uint32_t rank;
    *retarget = false;
    if (!L->reply_open)
        return false;
    L->reply_open = false; /* the first send after the receive, or none */
    if (comm != L->reply_comm || *dst != L->reply_src)
        return false;
    if (E->d->has_reply_attr) {
        if (!attr_uint8(ev, E->d->reply_attr))
            return false;
        E->replies_marked++;
    } else {
        E->replies_inferred++;
    }
    L->unanswered = 0;
    if (!E->follow || L->reply_to == *dst || !event_rank(E, comm, L->reply_to, &rank))
        return true;
    if (ev->kind == UP_EV_MpiSend)
        ev->u.MpiSend.receiver = rank;
    else
        ev->u.MpiIsend.receiver = rank;
    *dst = L->reply_to;
    *retarget = true;
    E->retargeted++;
    return true;
}

/* A wildcard receive of location li on comm is decided in approximated
 * time (the virtual time of Li and Zhang): no member of comm that still
 * runs may send a message that would be chosen instead, i.e. each is past
 * `until` (its records only go forward).  Members waiting for a message or
 * a collective are not waited for: what they wait for may be this receive's
 * own reply.  true with *key the measured key to go behind (the first
 * lagging member's: the heap runs every smaller key first anyway).  Costs
 * one pass over the members per decision when none lags. */
static bool lagging(engine *E, uint32_t li, OTF2_CommRef comm, uint64_t until, uint64_t *key)
{
    const up_comm_def *c = up_defs_comm(E->d, comm);
    uint32_t r, n;
    if (!c || !c->resolved || c->self)
        return false;
    n = c->global_ranks ? c->world_size : c->size;
    for (r = 0; r < n; r++) {
        uint32_t j = c->global_ranks ? c->world[r] : c->members[r];
        rloc *J;
        if (j == li || j >= E->n)
            continue;
        J = &E->L[j];
        if (J->state != S_RUN || J->deferring || (J->ls.started && J->ls.prev_a >= until))
            continue;
        *key = next_key(E, J);
        return true;
    }
    return false;
}

/* ---- claims on shared resources (up_model_ops.claim) ------------------------- */

/* Location j might still claim before li claims at until */
static bool lags(const engine *E, uint32_t j, uint32_t li, uint64_t until)
{
    uint64_t clock = claim_clock(&E->L[j]);
    return clock < until || (clock == until && j < li);
}

/* claim_lagging over every location: for a collective (its members are
 * passed over), and when the heap was given up */
static bool claim_scan(engine *E, uint32_t li, uint64_t until, const up_coll *c)
{
    uint32_t j, k;
    for (j = 0; j < E->n; j++) {
        if (j == li || E->L[j].state != S_RUN || !lags(E, j, li, until))
            continue;
        if (c) {
            for (k = 0; k < c->n && c->m[k].loc != j; k++)
                ;
            if (k < c->n)
                continue;
        }
        return true;
    }
    return false;
}

/* The model's claims are served in ascending (approximated time, location)
 * order, whatever the schedule: true when location li, claiming at `until`,
 * must let a location that still runs go first.  Each location's records go forward in approximated time, so
 * one whose clock has passed `until` can claim nothing earlier.  Its clock
 * is its last record's time; for one deferring, the time it defers at (its
 * own claim, or the send time of the message its wildcard receive waits
 * for), which also orders any two deferring locations, so that no two wait
 * for each other.  Waiting locations are not waited for: what releases one
 * is a message or collective that a location which runs, or this claim,
 * has still to give it, at or after its clock.  Members of c (a collective
 * being ended) are in it.  The heap E->ch finds the smallest clock in
 * O(log n) amortized; a collective, once per instance, scans them all. */
static bool claim_lagging(engine *E, uint32_t li, uint64_t until, const up_coll *c)
{
    bool mine = false, lag = false;
    if (c || E->ch_off)
        return claim_scan(E, li, until, c);
    while (E->ch.n) { /* the top made exact: then it is the smallest clock */
        hent top = E->ch.a[0];
        const rloc *J = &E->L[top.loc];
        uint64_t clock;
        if (J->state != S_RUN) {
            kh_pop(&E->ch);
            continue;
        }
        clock = claim_clock(J);
        if (clock > top.key) {
            kh_pop(&E->ch);
            ch_push(E, top.loc, clock);
            continue;
        }
        if (top.loc == li) { /* not waited for: set aside */
            kh_pop(&E->ch);
            mine = true;
            continue;
        }
        lag = lags(E, top.loc, li, until);
        break;
    }
    if (mine)
        ch_push(E, li, claim_clock(&E->L[li]));
    if (E->ch_off) /* a push failed: the heap is incomplete */
        return claim_scan(E, li, until, c);
    return lag;
}

/* Asks the model whether the record ev of li takes a shared resource (peer,
 * m, c as for up_model_ops.claim); STEP_PARK when a location must go first
 * (STEP_DECLINED on the direct path, which cannot wait), else STEP_OK. */
static inline int claim_wait(engine *E, uint32_t li, const up_event *ev, uint32_t peer,
                      const up_msg *m, const up_coll *c, bool direct)
{
    rloc *L = &E->L[li];
    uint64_t until;
    if (!E->ops->claim) /* compensate: no claims, and nothing to reset */
        return STEP_OK;
    if (L->claiming) { /* its clock goes back to its last record's */
        L->claiming = false;
        ch_note(E, li);
    }
    until = E->ops->claim(E->model, li, &L->ls, ev, peer, m, c);
    if (until == UINT64_MAX || !claim_lagging(E, li, until, c))
        return STEP_OK;
    if (direct)
        return STEP_DECLINED;
    L->claiming = true;
    L->defer_at = until;
    L->park_coll = c;
    return STEP_PARK;
}
/* A message from src in group g (once replies were re-targeted, a receive
 * that names src and MPI_ANY_TAG takes the first, whatever its tag: the
 * tags a location receives in the approximated run are not the measured). */
static bool any_from(const mgroup *g, uint32_t src)
{
    const up_msg *m;
    for (m = g->head; m; m = m->gnext)
        if (m->src == src)
            return true;
    return false;
}

/* A receive recorded on key (src, li, comm, tag), re-matched:
 *  1. its recorded message was taken already by another receive (lent > 0):
 *     it takes a candidate of choose(), with its wildcard bits, else one
 *     owed by another key, else it waits for the group;
 *  2. a wildcard receive whose recorded message is here: choose();
 *  3. otherwise it waits for its recorded message, as when preserving.
 * Taking another key's message rewrites the receive's sender, tag and
 * length.  The counts of lent keep every receive matched: the sum over a
 * group is zero, so a key owed a message has one coming. */
static int recv_rematch(engine *E, uint32_t li, up_event **evp, OTF2_CommRef comm,
                        uint32_t src, uint32_t tag, uint64_t k0, uint64_t k1)
{
    rloc *L = &E->L[li];
    up_event *ev = *evp;
    unsigned bits = wildcard_bits(E, ev);
    msgq *q = queue_get(E, k0, k1, true);
    mgroup *g = group_get(E, li, comm, true);
    uint32_t rc = chan_get(E, k0, k1);
    uint64_t seq;
    bool retag;
    up_msg *m;
    int r;

    if (L->deferring) { /* its clock goes back to its last record's */
        L->deferring = false;
        ch_note(E, li);
    }
    if (!q || !g || rc == UINT32_MAX) {
        UP_ERR(E->err, UP_ENOMEM, "out of memory matching a receive");
        return STEP_ERROR;
    }
    /* a reply re-targeted here may carry another tag than recorded */
    retag = E->retargeted && (bits & WILD_TAG) && !(bits & WILD_SOURCE) &&
            any_from(g, src);
    if ((q->lent > 0 || (bits && q->head) || retag) && E->hn && E->heap[0].key < ev->time)
        return STEP_YIELD; /* let the senders behind it in measured time send first */
    if (q->lent > 0 || (bits && q->head) || retag)
        m = choose(E, g, src, tag, bits, L->ls.enter_a);
    else
        m = q->head;
    if (!m && q->lent > 0 && bits)
        m = choose(E, g, src, tag, 0, L->ls.enter_a);
    if (m && (bits & WILD_SOURCE)) {
        /* fifo: no earlier send may come; lifo: none up to the post either */
        uint64_t until = m->send_a, key = 0;
        if (E->wild == UP_WILDCARD_LIFO && until <= L->ls.enter_a)
            until = L->ls.enter_a;
        if (E->ops->claim) { /* with claims every location counts, and it parks */
            if (claim_lagging(E, li, until, NULL)) {
                L->defer_at = until;
                L->deferring = true;
                L->park_coll = NULL;
                return STEP_PARK;
            }
        } else if (lagging(E, li, comm, until, &key)) {
            L->defer_key = key + 1;
            L->defer_at = until;
            L->deferring = true;
            return STEP_DEFER;
        }
    }
    if (m && (r = claim_wait(E, li, ev, m->src, m, NULL, false)) != STEP_OK)
        return r;
    if (!m) {
        if (L->force) { /* released: no send will ever come before it */
            L->force = false;
            q->waiting = g->waiting = false;
            if (q->lent <= 0)
                q->skip++;
            E->repairs[UP_REPAIR_unmatched_recv]++;
            E->chan[rc].recvd++;
            L->reply_open = false;
            E->ops->recv(E->model, li, &L->ls, ev, NULL);
            return STEP_OK;
        }
        q->waiting = true;
        g->waiting = q->lent > 0 || (E->follow && (bits & WILD_TAG));
        L->wait = W_MSG;
        L->wk0 = k0;
        L->wk1 = k1;
        return STEP_BLOCKED;
    }
    if ((r = resolve_exit(E, li, m, false)) != STEP_OK)
        return r;
    if (m->src == li && up_stream_peek(L->s, 0, evp, E->err) != UP_OK)
        return STEP_ERROR; /* read ahead in our own stream: the head moved */
    ev = *evp;
    queue_pop(E, m->q);
    q->waiting = g->waiting = false;
    L->force = false; /* a release found its message after all */
    if (bits)
        E->wild_recvs++;
    seq = E->chan[rc].recvd;
    if (m->ochan != rc || m->oseq != seq) { /* not its measured message */
        m->rematched = true;
        E->rematched++;
    }
    if (task_taken(E, li, rc, seq, m) != 0) {
        UP_ERR(E->err, UP_ENOMEM, "out of memory matching a receive");
        return STEP_ERROR;
    }
    E->chan[rc].recvd = seq + 1;
    if (up_stream_peek(L->s, 0, evp, E->err) != UP_OK)
        return STEP_ERROR; /* task_taken read ahead in our own stream */
    ev = *evp;
    /* a reply to this receive goes to the sender it took (reply_of); a
     * receive is answered one at a time (the master of a farm), not several
     * MPI_ANY_SOURCE receives in a row (an exchange whose next sends do
     * not depend on the statuses) */
    L->reply_open = (bits & WILD_SOURCE) && L->unanswered == 0;
    if (bits & WILD_SOURCE)
        L->unanswered++;
    L->reply_src = src;
    L->reply_to = m->src;
    L->reply_comm = comm;
    if (m->q != q) {
        uint32_t rank = 0;
        ((msgq *)m->q)->lent++;
        q->lent--; /* (another key's message: m->rematched is set above) */
        event_rank(E, comm, m->src, &rank); /* known: m was sent to it on comm */
        if (ev->kind == UP_EV_MpiRecv)
            ev->u.MpiRecv.sender = rank, ev->u.MpiRecv.msgTag = m->tag,
            ev->u.MpiRecv.msgLength = m->bytes;
        else
            ev->u.MpiIrecv.sender = rank, ev->u.MpiIrecv.msgTag = m->tag,
            ev->u.MpiIrecv.msgLength = m->bytes;
    }
    return recv_done(E, li, ev, m);
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

/* The rank of location li in communicator comm: 1 with *rank set, 0 when
 * li is no member (or the communicator is unknown or unusable), -1 out of
 * memory.  Every location is rank 0 of a self-like communicator
 * (MPI_COMM_SELF).  A definition that lists a location twice is unusable:
 * that location's rank is not known, and the communicator's size counts a
 * member that can never come; its records are timed as local ones. */
static int rank_of(engine *E, OTF2_CommRef comm, uint32_t li, uint32_t *rank)
{
    const up_comm_def *c = up_defs_comm(E->d, comm);
    uint64_t *v;
    uint32_t r;
    if (!c || !c->resolved)
        return 0;
    if (c->self) {
        *rank = 0;
        return 1;
    }
    if (!(v = up_map_get(&E->rankof, comm, UINT64_MAX))) {
        /* first use of this communicator: index all its members */
        uint64_t bad = 0;
        for (r = 0; r < c->size; r++) {
            if (up_map_get(&E->rankof, comm, c->members[r]))
                bad = 1;
            else if (!up_map_put(&E->rankof, comm, c->members[r], r))
                return -1;
        }
        if (!up_map_put(&E->rankof, comm, UINT64_MAX, bad) ||
            !(v = up_map_get(&E->rankof, comm, UINT64_MAX)))
            return -1;
    }
    if (*v) /* unusable */
        return 0;
    v = up_map_get(&E->rankof, comm, li);
    if (!v)
        return 0;
    *rank = (uint32_t)*v;
    return 1;
}

int up_eng_rank_of(engine *E, OTF2_CommRef comm, uint32_t li, uint32_t *rank)
{
    return rank_of(E, comm, li, rank);
}

/* The location of `rank` in comm, as location li's message names it: 1 with
 * *loc set; 0 when it maps to no location or li is no member of comm (a
 * message on a group it is not in has no partner: timed as a local record,
 * counted as an unresolved peer); -1 out of memory.  The communicator li
 * was last found a member of is remembered: loops send on one. */
UP_HOT_INLINE int peer_loc(engine *E, rloc *L, uint32_t li, OTF2_CommRef comm, uint32_t rank,
                    uint32_t *loc)
{
    if (!L->mcomm_ok || L->mcomm != comm) {
        uint32_t me;
        int r = rank_of(E, comm, li, &me);
        if (r <= 0)
            return r;
        L->mcomm = comm;
        L->mcomm_ok = true;
    }
    return up_defs_rank_loc(E->d, comm, rank, li, loc) ? 1 : 0;
}

/* ---- record handlers ---------------------------------------------------------- */

/* A send.  On the slow path the end of its call (exit.send_m, the first
 * Leave after it) is found by reading ahead; on the direct path it is not
 * known yet: the message waits in L->pend for the location's next Leave, or
 * for a receive that needs it first (resolve_exit). */
static int do_send(engine *E, uint32_t li, up_event **evp, bool direct)
{
    rloc *L = &E->L[li];
    up_event *ev = *evp;
    uint32_t rank, tag, dst;
    OTF2_CommRef comm;
    uint64_t bytes, exit_m, k0, k1, t;
    uint32_t odst, oc = 0;
    bool retarget = false, reply = false;
    up_msg *m;
    msgq *q;
    int r;

    if (ev->kind == UP_EV_MpiSend) {
        rank = ev->u.MpiSend.receiver, comm = ev->u.MpiSend.communicator;
        tag = ev->u.MpiSend.msgTag, bytes = ev->u.MpiSend.msgLength;
    } else {
        rank = ev->u.MpiIsend.receiver, comm = ev->u.MpiIsend.communicator;
        tag = ev->u.MpiIsend.msgTag, bytes = ev->u.MpiIsend.msgLength;
    }
    if ((r = peer_loc(E, L, li, comm, rank, &dst)) <= 0) {
        if (r < 0) {
            UP_ERR(E->err, UP_ENOMEM, "out of memory queueing a message");
            return STEP_ERROR;
        }
        E->repairs[UP_REPAIR_unresolved_peer]++;
        E->ops->local(E->model, li, &L->ls, ev);
        return STEP_OK;
    }
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
        msg_key(li, dst, comm, tag, &k0, &k1);
        if ((oc = chan_get(E, k0, k1)) == UINT32_MAX) {
            UP_ERR(E->err, UP_ENOMEM, "out of memory queueing a message");
            return STEP_ERROR;
        }
        reply = reply_of(E, li, ev, comm, &dst, &retarget);
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
        s->refs = 2;
        m->sync = s;
        L->syncs[L->nsync++] = s;
    }

    msg_key(li, dst, comm, tag, &k0, &k1);
    queues_sweep(E);
    if (!(q = queue_cached(E, L, true, k0, k1, true))) {
        msg_free(E, m);
        UP_ERR(E->err, UP_ENOMEM, "out of memory queueing a message");
        return STEP_ERROR;
    }
    if (q->skip) { /* its receive was released already (inconsistent trace) */
        q->skip--;
        E->repairs[UP_REPAIR_late_send]++;
        if (m->sync) /* no receive will post it: its sender is released */
            msg_posted(E, m, m->send_m, m->send_a, false);
        msg_free(E, m);
        return STEP_OK;
    }
    if (q->posts) { /* its receive was posted before it was sent */
        post *p = q->posts;
        if (!(q->posts = p->next))
            q->posts_tail = NULL;
        msg_posted(E, m, p->m, p->a, true);
        up_free(p);
    }
    if (direct) {
        if (L->npend == L->pendcap &&
            !up_grow((void **)&L->pend, &L->pendcap, L->npend + 1, sizeof *L->pend)) {
            msg_free(E, m);
            UP_ERR(E->err, UP_ENOMEM, "out of memory queueing a message");
            return STEP_ERROR;
        }
        L->pend[L->npend++] = m;
    }
    if (q->tail)
        q->tail->next = m;
    else
        q->head = m;
    q->tail = m;
    if (E->wild != UP_WILDCARD_PRESERVE) {
        mgroup *g = group_get(E, dst, comm, true);
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
            if (E->L[dst].state == S_WAIT && make_runnable(E, dst) != 0)
                return STEP_ERROR;
        }
    }
    if (q->waiting) {
        q->waiting = false;
        /* (a receiver woken for its group already runs: not twice into the heap) */
        if (E->L[dst].state == S_WAIT && E->L[dst].wait == W_MSG && make_runnable(E, dst) != 0)
            return STEP_ERROR;
    }
    return STEP_OK;
}

/* Makes m->exit_m known: the first Leave among the sender's records not yet
 * processed (they all follow the send).  Reading ahead in another location's
 * stream is safe: it is not running, and it will take the buffered records
 * first.  A location cannot read ahead in its own stream while its records
 * are being handed over directly: STEP_DECLINED. */
static int resolve_exit(engine *E, uint32_t li, up_msg *m, bool direct)
{
    rloc *S = &E->L[m->src];
    size_t i;
    if (m->exit_known)
        return STEP_OK;
    if (direct && m->src == li)
        return STEP_DECLINED;
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

static void recv_fields(const up_event *ev, uint32_t *rank, OTF2_CommRef *comm, uint32_t *tag)
{
    if (ev->kind == UP_EV_MpiRecv) {
        *rank = ev->u.MpiRecv.sender, *comm = ev->u.MpiRecv.communicator, *tag = ev->u.MpiRecv.msgTag;
    } else {
        *rank = ev->u.MpiIrecv.sender, *comm = ev->u.MpiIrecv.communicator, *tag = ev->u.MpiIrecv.msgTag;
    }
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
static int recv_done(engine *E, uint32_t li, up_event *ev, up_msg *m)
{
    rloc *L = &E->L[li];
    m->at_entry = E->prog && at_entry(L, m);
    if (ev->kind == UP_EV_MpiIrecv)
        up_map_del(&E->iposted, li, ev->u.MpiIrecv.requestID);
    if (!m->posted) /* not posted at an MpiIrecvRequest: when its call began */
        msg_posted(E, m, L->ls.enter_m, L->ls.enter_a, false);
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
static int do_recv(engine *E, uint32_t li, up_event **evp, bool direct)
{
    up_event *ev = *evp;
    rloc *L = &E->L[li];
    uint32_t rank, tag, src;
    OTF2_CommRef comm;
    uint64_t k0, k1;
    msgq *q;
    int r;

    recv_fields(ev, &rank, &comm, &tag);
    if ((r = peer_loc(E, L, li, comm, rank, &src)) <= 0) {
        if (r < 0) {
            UP_ERR(E->err, UP_ENOMEM, "out of memory matching a receive");
            return STEP_ERROR;
        }
        E->repairs[UP_REPAIR_unresolved_peer]++;
        E->ops->recv(E->model, li, &L->ls, ev, NULL);
        return STEP_OK;
    }
    msg_key(src, li, comm, tag, &k0, &k1);
    if (E->wild != UP_WILDCARD_PRESERVE) /* needs the record's attributes */
        return direct ? STEP_DECLINED : recv_rematch(E, li, evp, comm, src, tag, k0, k1);
    q = queue_cached(E, L, false, k0, k1, false);
    if (q && q->head) {
        if ((r = resolve_exit(E, li, q->head, direct)) != STEP_OK)
            return r;
        if (!direct && q->head->src == li && up_stream_peek(L->s, 0, evp, E->err) != UP_OK)
            return STEP_ERROR; /* read ahead in our own stream: the head moved */
        if ((r = claim_wait(E, li, *evp, src, q->head, NULL, direct)) != STEP_OK)
            return r;
        return recv_done(E, li, *evp, queue_pop(E, q));
    }
    if (direct)
        return STEP_DECLINED;
    if (!(q = queue_get(E, k0, k1, true))) {
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
            coll_ready(E, c, L->wmember) && make_runnable(E, c->m[i].loc) != 0)
            return -1;
    }
    return 0;
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

static void coll_free(up_coll *c)
{
    if (c) {
        up_free(c->m);
        up_free(c);
    }
}

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

/* Location li arrives at the next instance of a collective on a.comm: the
 * k-th collective (blocking or nonblocking, in the order it started them) a
 * location calls on a communicator is the k-th instance, as MPI requires.
 * On a self-like communicator (MPI_COMM_SELF: every location is its only
 * member) each call is an instance of its own, never shared: it is keyed by
 * an engine-wide number instead of the location's count.
 * Returns 1 with *cp and *rankp set, 0 when li is no member of a.comm, -1 out
 * of memory. */
static int coll_join(engine *E, uint32_t li, const coll_arrival *a, up_coll **cp,
                     uint32_t *rankp)
{
    uint64_t *seqp, seq, *v = NULL;
    const up_comm_def *cd;
    uint32_t rank;
    up_member *me;
    up_coll *c;
    int r = rank_of(E, a->comm, li, &rank);
    if (r <= 0)
        return r;
    cd = up_defs_comm(E->d, a->comm);
    if (cd->self) {
        seq = E->self_seq++;
    } else {
        if (!(seqp = up_map_get(&E->collseq, li, a->key))) {
            if (!up_map_put(&E->collseq, li, a->key, 0) ||
                !(seqp = up_map_get(&E->collseq, li, a->key)))
                return -1;
        }
        seq = (*seqp)++;
        v = up_map_get(&E->colls, a->key, seq);
    }
    if (v) {
        c = (up_coll *)(uintptr_t)*v;
        if (rank >= c->n || c->m[rank].arrived)
            return 0; /* cannot happen: one location per rank, one arrival per seq */
        if (c->drained) { /* a member came after all: it waits for the rest again */
            c->drained = false;
            E->ndrained--;
        }
    } else {
        uint32_t n = cd->self ? 1 : cd->size;
        if (!(c = up_calloc(1, sizeof *c)) || !(c->m = up_calloc(n, sizeof *c->m))) {
            coll_free(c);
            return -1;
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
            return -1;
        }
    }
    me = &c->m[rank];
    me->arrived = true;
    c->arrived++;
    me->loc = li;
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
    *cp = c;
    *rankp = rank;
    return 1;
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
static int do_coll_begin(engine *E, uint32_t li, up_event **evp)
{
    rloc *L = &E->L[li];
    up_event *e = NULL;
    size_t i, end_i = 0;
    coll_arrival a;
    bool rma = (*evp)->kind == UP_EV_RmaCollectiveBegin;
    unsigned begin_kind = rma ? UP_EV_RmaCollectiveBegin : UP_EV_MpiCollectiveBegin;
    unsigned end_kind = rma ? UP_EV_RmaCollectiveEnd : UP_EV_MpiCollectiveEnd;
    int r;

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

/* Can a member still arrive at c?  Not when all have, nor when each one
 * missing is a location whose trace has ended: a trace cut short, or a
 * definition that lists a location that never calls the collective. */
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
        if (!c->m[r].arrived && E->L[cd->members[r]].state != S_DONE)
            return true;
    return false;
}

static void coll_release(engine *E, up_coll *c)
{
    if (c->drained)
        E->ndrained--;
    if (!c->forced && c->arrived < c->n) /* its members did not wait for the rest */
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
    if (++c->done < c->arrived)
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
static void coll_sweep(engine *E)
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
    }
    L->wcoll = NULL;
    return STEP_OK;
}

static int do_coll_end(engine *E, uint32_t li, up_event *ev)
{
    rloc *L = &E->L[li];
    up_coll *c = L->cur;
    int r;
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

static int do_nbc_request(engine *E, uint32_t li, up_event **evp)
{
    rloc *L = &E->L[li];
    uint64_t req = (*evp)->u.NonBlockingCollectiveRequest.requestID;
    up_event *e = NULL;
    size_t i, end_i = 0;
    coll_arrival a;
    up_coll *c;
    uint32_t rank;
    int r;

    if (up_map_get(&E->nbc, li, req) || up_map_get(&E->nbpend, li, req)) {
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
        if (!pa || !up_map_put(&E->nbpend, li, req, (uint64_t)(uintptr_t)pa)) {
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
    /* not a member (r == 0): counted here, its complete is timed locally
     * (NULL in E->nbc) */
    if (r < 0 || !up_map_put(&E->nbc, li, req, r > 0 ? (uint64_t)(uintptr_t)c : 0)) {
        UP_ERR(E->err, UP_ENOMEM, "out of memory for a collective");
        return STEP_ERROR;
    }
    if (r == 0)
        E->repairs[UP_REPAIR_unresolved_peer]++;
    return STEP_OK;
}

static int do_nbc_complete(engine *E, uint32_t li, up_event *ev)
{
    rloc *L = &E->L[li];
    uint64_t req = ev->u.NonBlockingCollectiveComplete.requestID;
    uint64_t *v = up_map_get(&E->nbc, li, req), *pv;
    uint32_t rank;
    up_coll *c;
    int r;
    if (!v && (pv = up_map_get(&E->nbpend, li, req))) { /* join now (do_nbc_request) */
        coll_arrival *pa = (coll_arrival *)(uintptr_t)*pv;
        nbc_completion(pa, ev);
        r = coll_join(E, li, pa, &c, &rank);
        up_map_del(&E->nbpend, li, req);
        up_free(pa);
        if (r < 0 || (r > 0 && !up_map_put(&E->nbc, li, req, (uint64_t)(uintptr_t)c))) {
            UP_ERR(E->err, UP_ENOMEM, "out of memory for a collective");
            return STEP_ERROR;
        }
        if (r == 0) { /* not a member */
            E->repairs[UP_REPAIR_unresolved_peer]++;
            E->ops->local(E->model, li, &L->ls, ev);
            return STEP_OK;
        }
        v = up_map_get(&E->nbc, li, req);
    }
    if (!v || !*v) { /* no request (counted), or one of no member (counted) */
        if (!v)
            E->repairs[UP_REPAIR_collective_unpaired]++;
        else
            up_map_del(&E->nbc, li, req);
        E->ops->local(E->model, li, &L->ls, ev);
        return STEP_OK;
    }
    c = (up_coll *)(uintptr_t)*v;
    if (rank_of(E, c->comm, li, &rank) <= 0) { /* it joined: cannot happen */
        UP_ERR(E->err, UP_EINTERNAL, "nonblocking collective lost its member");
        return STEP_ERROR;
    }
    if ((r = coll_wait(E, L, c, rank)) != STEP_OK)
        return r;
    if ((r = claim_wait(E, li, ev, UINT32_MAX, NULL, c, false)) != STEP_OK)
        return r;
    E->ops->coll_end(E->model, li, &L->ls, ev, c, &c->m[rank]);
    up_map_del(&E->nbc, li, req);
    coll_done(E, c);
    return STEP_OK;
}

/* An Irecv is posted at its MpiIrecvRequest, long before the MpiIrecv that
 * completes it names the sender and tag: these are looked for ahead, so that
 * a synchronous sender can go on as soon as the receive was posted, as in
 * MPI.  A request that is cancelled, or whose completion is out of reach,
 * posts nothing here (the completion posts it then). */
static int do_irecv_request(engine *E, uint32_t li, up_event **evp)
{
    rloc *L = &E->L[li];
    uint64_t req = (*evp)->u.MpiIrecvRequest.requestID, k0, k1;
    up_event *e = NULL;
    size_t i;
    uint32_t rank = 0, tag = 0, src = 0;
    OTF2_CommRef comm = 0;
    msgq *q;

    for (i = 1; i < UP_STREAM_MAX_LOOKAHEAD; i++) {
        if (up_stream_peek(L->s, i, &e, E->err) != UP_OK)
            return STEP_ERROR;
        if (!e || (e->kind == UP_EV_MpiIrecv && e->u.MpiIrecv.requestID == req) ||
            (e->kind == UP_EV_MpiRequestCancelled && e->u.MpiRequestCancelled.requestID == req))
            break;
    }
    if (e && e->kind == UP_EV_MpiIrecv && e->u.MpiIrecv.requestID == req) {
        int r;
        recv_fields(e, &rank, &comm, &tag);
        if ((r = peer_loc(E, L, li, comm, rank, &src)) < 0) {
            UP_ERR(E->err, UP_ENOMEM, "out of memory posting a receive");
            return STEP_ERROR;
        }
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
    msg_key(src, li, comm, tag, &k0, &k1);
    if (!(q = queue_get(E, k0, k1, true)) || post_recv(E, q, (*evp)->time, (*evp)->t_out) != 0 ||
        !up_map_put(&E->iposted, li, req, 1)) {
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

static void sync_drop(rloc *L, size_t i)
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
static int prog_wait(engine *E, up_sync *s, uint64_t t)
{
    rloc *R = &E->L[s->dst];
    if (!pr_ready(E, R, t)) {
        bool earlier = E->hn && E->heap[0].key < t;
        if (R->state == S_RUN ? !R->deferring && !R->claiming : earlier)
            return STEP_YIELD;
        s->has_prog = false;
        E->repairs[UP_REPAIR_progress_unknown]++;
        return STEP_OK;
    }
    if (!pr_find(R, s, t))
        E->repairs[UP_REPAIR_progress_unknown]++;
    return STEP_OK;
}

/* The record completing synchronous sends waits until their receives were
 * posted (the late-receiver wait of Sarukkai and Malony, Section 3.3); the
 * model times it from the latest post.  Returns STEP_DECLINED when the
 * record completes none of them. */
static int do_sync_end(engine *E, uint32_t li, up_event *ev)
{
    rloc *L = &E->L[li];
    const up_sync *last = NULL;
    bool any = false;
    size_t i;
    if (ev->kind == UP_EV_MpiRequestCancelled) {
        for (i = 0; i < L->nsync; i++)
            if (!L->syncs[i]->blocking && L->syncs[i]->req == ev->u.MpiRequestCancelled.requestID) {
                sync_drop(L, i);
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
            int r = prog_wait(E, s, ev->time);
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
            sync_drop(L, i);
    return STEP_OK;
}

/* ---- one record ------------------------------------------------------------ */

/* The tail of every record: keep the location monotonic, note the window
 * marks and statistics, update the location state, write the record
 * (attributes from `al` on the direct path, from the record otherwise). */

/* What every record's end updates on its location: the repairs of a time
 * going back, the Enter (enter.recv) and Leave (exit.send) the models use,
 * the analysis window, the previous times.  Returns the output time. */
UP_HOT_INLINE uint64_t finish_times(engine *E, rloc *L, unsigned kind, uint64_t t_m, uint64_t t_a,
                                    unsigned rflags, OTF2_RegionRef region)
{
    /* prev_m = prev_a = 0 before the first record: neither test fires */
    if (t_m < L->ls.prev_m)
        E->repairs[UP_REPAIR_decreasing_time]++;
    if (t_a < L->ls.prev_a) { /* a model may not go back */
        if (L->ls.prev_a - t_a > E->max_shift)
            E->max_shift = L->ls.prev_a - t_a;
        t_a = L->ls.prev_a;
        E->repairs[UP_REPAIR_output_clamped]++;
    }
    if (kind == UP_EV_Enter) {
        L->ls.enter_m = t_m;
        L->ls.enter_a = t_a;
        L->enter_rflags = (uint8_t)rflags;
        L->enter_region = region;
        if ((rflags & UP_REGION_MPI_FINALIZE) && !L->has_fin) {
            L->has_fin = true;
            L->fin_m = t_m;
            L->fin_a = t_a;
        }
        if ((rflags & UP_REGION_MPI) && E->prog)
            pr_enter(E, L, t_m, t_a, rflags);
    } else if (kind == UP_EV_Leave) {
        while (L->npend) /* exit.send_m of the sends in the call this Leave ends */
            L->pend[--L->npend]->exit_m = t_m, L->pend[L->npend]->exit_known = true;
        if (rflags & UP_REGION_MPI_INIT) {
            L->has_init = true;
            L->init_m = t_m;
            L->init_a = t_a;
        }
        if ((rflags & UP_REGION_MPI) && E->prog)
            pr_leave(L, t_m);
    } else if (kind == UP_EV_MpiSend && L->pr_send) { /* a blocking send reaches the library */
        L->pr_send = false;
        pr_push(E, L, t_m, t_a, kind, 0);
    }
    if (!L->ls.started) {
        /* before the first Enter, enter.recv is the first record */
        L->first_m = L->ls.enter_m = t_m;
        L->first_a = L->ls.enter_a = t_a;
        L->ls.started = true;
    }
    /* (the stream counts the records; the output is monotonic per location,
     * so the first and the last written time give its range) */
    if (t_m > L->ls.prev_m)
        L->ls.prev_m = t_m;
    L->ls.prev_a = t_a;
    if (E->ops->progress && (++E->done & 0xFFFF) == 0)
        E->ops->progress(E->model, E->done);
    return t_a;
}

UP_HOT_INLINE int finish_record(engine *E, uint32_t li, up_event *ev, bool direct)
{
    OTF2_RegionRef region = ev->kind == UP_EV_Enter ? ev->u.Enter.region : 0;
    ev->t_out = finish_times(E, &E->L[li], ev->kind, ev->time, ev->t_out, ev->rflags, region);
    /* on the direct path the stream's callback writes the record itself */
    if (E->out && !direct && up_writer_event(E->out, li, ev, E->err) != UP_OK)
        return STEP_ERROR;
    return STEP_OK;
}

/* ---- polling (docs/models.md, "Polling") ------------------------------------ */

/* Records read ahead for the end of a spin; a longer spin is collapsed in
 * pieces of this reach (its end is not seen before its start is timed). */
#define SPIN_LOOKAHEAD 16384
/* The longest pause between two calls of one run: more is program work (a
 * preemption inside a spin is shorter than this only rarely; then the run
 * ends there, and its polls keep their time) */
#define SPIN_PAUSE_NS 1000.0

enum { SPIN_NONE, SPIN_ENDS, SPIN_OPEN };

/* A run of poll calls from the head record (a poll call's Enter) on, each
 * less than the spin gap of program time after the one before. */
typedef struct spin_run {
    uint32_t calls;    /* complete calls seen */
    size_t last_enter; /* position of the last call's Enter */
    size_t last_leave; /* ... and of its Leave */
    uint64_t pmin;     /* shortest measured call */
    uint64_t between;  /* program time between its calls, summed (gaps less O) */
    int end;           /* SPIN_ENDS: its last call completed a request (not a
                        * cancelled one), or a probe's was followed by the
                        * call that receives; SPIN_OPEN: out of reach;
                        * SPIN_NONE: it ended without a completion */
} spin_run;

static bool probe_region(const engine *E, OTF2_RegionRef r)
{
    const up_region_def *rg = up_defs_region(E->d, r);
    return rg && (!strcmp(rg->name, "MPI_Iprobe") || !strcmp(rg->name, "MPI_Improbe"));
}

static int spin_scan(engine *E, rloc *L, uint32_t li, spin_run *sr)
{
    size_t i = 0, j;
    up_event *e;
    memset(sr, 0, sizeof *sr);
    sr->pmin = UINT64_MAX;
    for (;;) {
        unsigned depth = 0;
        bool done = false, cancelled = false;
        uint64_t t0, t_leave, o;
        OTF2_RegionRef reg;
        unsigned fl;
        if (up_stream_peek(L->s, i, &e, E->err) != UP_OK)
            return -1;
        t0 = e->time;
        reg = e->u.Enter.region;
        for (j = i + 1;; j++) {
            if (j >= SPIN_LOOKAHEAD) {
                sr->end = sr->calls ? SPIN_OPEN : SPIN_NONE;
                return 0;
            }
            if (up_stream_peek(L->s, j, &e, E->err) != UP_OK)
                return -1;
            if (!e)
                return 0; /* the trace ends inside the call */
            if (e->kind == UP_EV_Enter)
                depth++;
            else if (e->kind == UP_EV_Leave) {
                if (!depth)
                    break;
                depth--;
            } else if (e->kind == UP_EV_MpiRequestCancelled)
                cancelled = true;
            else if (e->kind != UP_EV_MpiRequestTest)
                done = true;
        }
        sr->calls++;
        sr->last_enter = i;
        sr->last_leave = j;
        t_leave = e->time;
        if ((t_leave > t0 ? t_leave - t0 : 0) < sr->pmin)
            sr->pmin = t_leave > t0 ? t_leave - t0 : 0;
        if (done || cancelled) {
            sr->end = cancelled ? SPIN_NONE : SPIN_ENDS;
            return 0;
        }
        set_rflags(E, e); /* the Leave's O is a poll's */
        o = E->ops->record_ovh ? E->ops->record_ovh(E->model, li, e) : 0;
        if (j + 1 >= SPIN_LOOKAHEAD) {
            sr->end = SPIN_OPEN;
            return 0;
        }
        if (up_stream_peek(L->s, j + 1, &e, E->err) != UP_OK)
            return -1;
        if (!e || e->kind != UP_EV_Enter || (e->time > t_leave + o && e->time - t_leave - o > E->spin_pause))
            return 0;
        fl = up_defs_region_flags(E->d, e->u.Enter.region);
        if (fl & UP_REGION_POLL)
            sr->between += e->time > t_leave + o ? e->time - t_leave - o : 0;
        else {
            /* a probe that found its message, then the call that takes it */
            if ((fl & UP_REGION_MPI) && probe_region(E, reg))
                sr->end = SPIN_ENDS;
            return 0;
        }
        i = j + 1;
    }
}

/* Before the record's own handler: a record of a spin being collapsed takes
 * no time (STEP_OK, *mark set when it belongs to a collapsed call); a poll
 * call's Enter may start a spin (*start: it is the spin's first record).
 * STEP_DECLINED: the record's own handler times it. */
static int poll_step(engine *E, uint32_t li, up_event **evp, unsigned *mark, bool *start)
{
    rloc *L = &E->L[li];
    up_event *ev = *evp, *e;
    spin_run sr;
    bool cont;
    if (L->spin_left) {
    collapse:
        L->spin_left--;
        set_rflags(E, ev);
        E->ops->local(E->model, li, &L->ls, ev);
        if (L->ls.started)
            ev->t_out = L->ls.prev_a;
        /* the last call's Enter: that call completes the spin, it stays */
        *mark = L->spin_left || !L->spin_last ? 1 : 0;
        return STEP_OK;
    }
    if (L->spin_last && ev->kind == UP_EV_Leave) /* the last call completed no message */
        L->spin_last = false;
    if (ev->kind != UP_EV_Enter || L->spin_last || ev->time < L->plain_until ||
        !(up_defs_region_flags(E->d, ev->u.Enter.region) & UP_REGION_POLL)) {
        L->spin_on = false;
        return STEP_DECLINED;
    }
    cont = L->spin_on;
    if (spin_scan(E, L, li, &sr) != 0 || up_stream_peek(L->s, 0, evp, E->err) != UP_OK)
        return STEP_ERROR;
    ev = *evp;
    L->spin_on = false;
    /* only the loop's own instructions between the calls: on average no more
     * than the spin gap (RandomAccess generates an update between two polls,
     * 10-25 ns more than a bare loop: work, not a wait) */
    if (sr.calls > 1 && sr.between / (sr.calls - 1) > E->spin_gap)
        sr.end = SPIN_NONE;
    if (sr.end == SPIN_NONE || (sr.calls < 2 && !cont)) {
        /* not a spin: an interleaved poll, or polls that ended otherwise */
        if (sr.calls > 1 && up_stream_peek(L->s, sr.last_leave, &e, E->err) == UP_OK && e)
            L->plain_until = e->time;
        if (up_stream_peek(L->s, 0, evp, E->err) != UP_OK)
            return STEP_ERROR;
        return STEP_DECLINED;
    }
    if (!cont) {
        E->spins++;
        L->spin_poll_m = sr.pmin;
    } else if (sr.pmin < L->spin_poll_m)
        L->spin_poll_m = sr.pmin;
    if (sr.end == SPIN_ENDS) {
        L->spin_left = (uint32_t)sr.last_enter;
        L->spin_last = true;
        E->polls_collapsed += sr.calls - 1;
    } else {
        L->spin_left = (uint32_t)sr.last_leave;
        L->spin_on = true;
        E->polls_collapsed += sr.calls;
    }
    if (cont) { /* the head goes on with a spin: no time either */
        L->spin_left++;
        goto collapse;
    }
    *start = true;
    return STEP_DECLINED;
}

/* The attribute unperturb::poll of the output, defined at its first use
 * (outputs without polls keep the input's definitions). */
static int poll_attr(engine *E)
{
    if (!E->has_poll_attr && E->out) {
        if (up_writer_attr(E->out, "unperturb::poll",
                           "polling (docs/models.md): 1 a poll call the approximated run did not "
                           "make, taking no time; 2 a completion moved here from an earlier poll",
                           OTF2_TYPE_UINT8, &E->poll_attr, E->err) != UP_OK)
            return STEP_ERROR;
        E->has_poll_attr = true;
    }
    return STEP_OK;
}

/* Writes a held completion at its due time (no earlier than the location's
 * last record): it moved there from the poll that measured it. */
static int held_write(engine *E, uint32_t li, size_t k)
{
    rloc *L = &E->L[li];
    held *h = &L->held[k];
    uint64_t t = h->due > L->ls.prev_a ? h->due : L->ls.prev_a;
    h->ev.t_out = t;
    h->ev.attrs = h->attrs;
    if (poll_attr(E) != STEP_OK)
        return STEP_ERROR;
    if (E->has_poll_attr && h->ev.nattrs < HELD_ATTRS) {
        up_attr *a = &h->attrs[h->ev.nattrs++];
        a->id = E->poll_attr;
        a->type = OTF2_TYPE_UINT8;
        a->value.uint8 = 2;
    }
    if (E->out && up_writer_event(E->out, li, &h->ev, E->err) != UP_OK)
        return STEP_ERROR;
    L->ls.prev_a = t;
    E->completions_moved++;
    memmove(&L->held[k], &L->held[k + 1], (L->nheld - k - 1) * sizeof *L->held);
    L->nheld--;
    return STEP_OK;
}

/* Record ev (timed, not yet written) may let held completions out: a poll
 * call ending at or after their time holds them; a call that may wait for a
 * message (any MPI call but a poll or one that never waits) waits for all. */
static int held_flush(engine *E, uint32_t li, up_event *ev, bool all)
{
    rloc *L = &E->L[li];
    if (!all && ev->kind == UP_EV_Leave && (ev->rflags & UP_REGION_POLL)) {
        while (L->nheld && L->held[0].due <= ev->t_out)
            if (held_write(E, li, 0) != STEP_OK)
                return STEP_ERROR;
        return STEP_OK;
    }
    if (!all && (ev->kind != UP_EV_Enter || !(ev->rflags & UP_REGION_MPI) ||
                 (ev->rflags & (UP_REGION_POLL | UP_REGION_NOWAIT))))
        return STEP_OK;
    while (L->nheld)
        if (held_write(E, li, 0) != STEP_OK)
            return STEP_ERROR;
    if (ev && ev->t_out < L->ls.prev_a)
        ev->t_out = L->ls.prev_a;
    return STEP_OK;
}

/* Record ev completes a receive whose message comes later than this poll
 * call: its place in the location's time is taken now, its record is
 * written later (held_flush), at the first poll at or after its message. */
static int hold(engine *E, uint32_t li, up_event *ev)
{
    rloc *L = &E->L[li];
    held *h;
    size_t k;
    L->hold_now = false;
    if (L->nheld == HELD_MAX && held_write(E, li, 0) != STEP_OK) /* bounded: the oldest waits */
        return STEP_ERROR;
    if (L->nheld == L->heldcap &&
        !up_grow((void **)&L->held, &L->heldcap, L->nheld + 1, sizeof *L->held)) {
        UP_ERR(E->err, UP_ENOMEM, "out of memory holding a completion");
        return STEP_ERROR;
    }
    for (k = L->nheld; k > 0 && L->held[k - 1].due > L->hold_t; k--)
        ;
    memmove(&L->held[k + 1], &L->held[k], (L->nheld - k) * sizeof *L->held);
    L->nheld++;
    h = &L->held[k];
    h->ev = *ev;
    h->ev.xbuf = NULL;
    h->ev.xcap = 0;
    h->ev.nattrs = ev->nattrs < HELD_ATTRS ? ev->nattrs : HELD_ATTRS - 1;
    if (h->ev.nattrs)
        memcpy(h->attrs, ev->attrs, h->ev.nattrs * sizeof *h->attrs);
    h->ev.attrs = h->attrs;
    h->due = L->hold_t;
    (void)finish_times(E, L, ev->kind, ev->time, ev->t_out, ev->rflags, 0);
    return STEP_OK;
}

/* finish_record, with the attribute unperturb::poll = mark added */
static int finish_marked(engine *E, uint32_t li, up_event *ev, unsigned mark)
{
    up_attr a[HELD_ATTRS + 1], *saved = ev->attrs;
    uint32_t n = ev->nattrs;
    int r;
    if (!mark || !E->out || n > HELD_ATTRS)
        return finish_record(E, li, ev, false);
    if (poll_attr(E) != STEP_OK)
        return STEP_ERROR;
    if (n)
        memcpy(a, ev->attrs, n * sizeof *a);
    a[n].id = E->poll_attr;
    a[n].type = OTF2_TYPE_UINT8;
    a[n].value.uint8 = (uint8_t)mark;
    ev->attrs = a;
    ev->nattrs = n + 1;
    r = finish_record(E, li, ev, false);
    ev->attrs = saved;
    ev->nattrs = n;
    return r;
}

/* A moved task's work (task_taken): record ev is timed as if the program
 * time since the previous record were longer by L->body_d (the previous
 * record's approximated time moves for the model), or, to take away,
 * shorter by as much as it has beyond the previous record's overhead (its
 * measured time moves), the rest from the gaps after it.  finish_times
 * resets both. */
static void body_adjust(rloc *L, const up_event *ev)
{
    uint64_t gap = sub0(ev->time, L->ls.prev_m), cut;
    if (L->body_d > 0) { /* the work begins later: the previous record ends later */
        L->ls.prev_a += (uint64_t)L->body_d;
        L->body_d = 0;
    } else {
        cut = sub0(gap, L->body_povh);
        if (cut > (uint64_t)-L->body_d)
            cut = (uint64_t)-L->body_d;
        L->ls.prev_m += cut;
        L->body_d += (int64_t)cut;
    }
}

/* After record ev of a location with a moved task's work: the work begins
 * after the receive call's Leave and ends at the next MPI call's Enter (what
 * it could not take away by then stays: counted in bodies_lost). */
static void body_after(engine *E, uint32_t li, rloc *L, const up_event *ev)
{
    if (L->body == BODY_ARMED) {
        if (ev->kind == UP_EV_Leave)
            L->body = BODY_ON;
    } else if (!L->body_d) {
        L->body = BODY_NONE;
    } else if (ev->kind == UP_EV_Enter && (ev->rflags & UP_REGION_MPI)) {
        L->body = BODY_NONE;
        E->bodies_lost++;
        E->bodies_moved--;
    }
    L->body_povh = E->ops->record_ovh(E->model, li, ev);
}

static int step_record(engine *E, uint32_t li);

/* One buffered record (the slow path: lookahead, waiting). */
static int step(engine *E, uint32_t li)
{
    rloc *L = &E->L[li];
    uint64_t prev_m = L->ls.prev_m, prev_a = L->ls.prev_a;
    int64_t body_d = L->body_d;
    up_event *ev;
    int r;

    if (L->body != BODY_ON)
        return step_record(E, li);
    if (up_stream_peek(L->s, 0, &ev, E->err) != UP_OK)
        return STEP_ERROR;
    if (ev)
        body_adjust(L, ev);
    if ((r = step_record(E, li)) != STEP_OK) /* not timed yet: again later */
        L->ls.prev_m = prev_m, L->ls.prev_a = prev_a, L->body_d = body_d;
    return r;
}

static int step_record(engine *E, uint32_t li)
{
    rloc *L = &E->L[li];
    up_event *ev;
    unsigned mark = 0;
    bool start = false;
    int r;

    if (up_stream_peek(L->s, 0, &ev, E->err) != UP_OK)
        return STEP_ERROR;
    if (!ev)
        return STEP_END;
    if (E->spin_gap) {
        r = poll_step(E, li, &ev, &mark, &start);
        if (r == STEP_ERROR)
            return r;
        if (r == STEP_OK)
            goto timed;
    }
    switch (ev->kind) {
    case UP_EV_MpiSend:
    case UP_EV_MpiIsend:
        r = do_send(E, li, &ev, false);
        break;
    case UP_EV_MpiRecv:
    case UP_EV_MpiIrecv:
        r = do_recv(E, li, &ev, false);
        break;
    case UP_EV_MpiCollectiveBegin:
    case UP_EV_RmaCollectiveBegin:
        r = do_coll_begin(E, li, &ev);
        break;
    case UP_EV_MpiCollectiveEnd:
    case UP_EV_RmaCollectiveEnd:
        L->reply_open = false; /* its data may choose the next destination */
        r = do_coll_end(E, li, ev);
        break;
    case UP_EV_NonBlockingCollectiveRequest:
        r = do_nbc_request(E, li, &ev);
        break;
    case UP_EV_NonBlockingCollectiveComplete:
        r = do_nbc_complete(E, li, ev);
        break;
    case UP_EV_MpiIrecvRequest:
        r = do_irecv_request(E, li, &ev);
        break;
    case UP_EV_ThreadTeamBegin:
    case UP_EV_ThreadTeamEnd:
        r = up_eng_team(E, li, ev);
        break;
    case UP_EV_RmaGroupSync:
        r = up_eng_group_sync(E, li, ev);
        break;
    case UP_EV_RmaRequestLock:
    case UP_EV_RmaAcquireLock:
    case UP_EV_RmaTryLock:
        r = up_eng_lock(E, li, ev);
        break;
    case UP_EV_RmaReleaseLock:
        r = up_eng_unlock(E, li, ev);
        break;
    case UP_EV_ThreadJoin:
        r = up_eng_join(E, li, ev);
        break;
    case UP_EV_ThreadFork:
        E->ops->local(E->model, li, &L->ls, ev);
        L->forked = true;
        L->fork_m = ev->time;
        L->fork_a = ev->t_out;
        r = STEP_OK;
        break;
    default:
        set_rflags(E, ev);
        r = L->nsync ? do_sync_end(E, li, ev) : STEP_DECLINED;
        if (r == STEP_DECLINED) {
            E->ops->local(E->model, li, &L->ls, ev);
            r = STEP_OK;
        }
    }
    if (r != STEP_OK)
        return r;
    L->wait = W_NONE;
timed:
    if (L->hold_now)
        r = hold(E, li, ev);
    else {
        if (L->nheld && held_flush(E, li, ev, false) != STEP_OK)
            return STEP_ERROR;
        r = finish_marked(E, li, ev, mark);
        if (start)
            L->ls.spin_a = ev->t_out;
    }
    if (r != STEP_OK)
        return r;
    if (L->body)
        body_after(E, li, L, ev);
    if (E->spin_gap) { /* poll calls never pass the direct path: only here */
        if (ev->kind == UP_EV_Enter)
            L->in_poll = (ev->rflags & UP_REGION_POLL) != 0;
        else if (ev->kind == UP_EV_Leave)
            L->in_poll = false;
        L->polling = L->in_poll || L->spin_on || L->nheld;
    }
    up_stream_pop(L->s);
    return STEP_OK;
}

/* The direct path (up_stream_direct): a record that needs nothing but its
 * own location, or a receive whose message is already there, is timed and
 * written while OTF2 decodes it.  Everything else is declined and goes
 * through step(). */
static int direct_record(void *ctx, uint32_t li, up_event *ev)
{
    engine *E = ctx;
    rloc *L = &E->L[li];
    if (L->polling || L->body || (ev->kind == UP_EV_Enter &&
                       (up_defs_region_flags(E->d, ev->u.Enter.region) & E->poll_flag)))
        return 0; /* polling: step() */
    switch (ev->kind) {
    case UP_EV_MpiCollectiveBegin:
    case UP_EV_MpiCollectiveEnd:
    case UP_EV_RmaCollectiveBegin:
    case UP_EV_RmaCollectiveEnd:
    case UP_EV_RmaGroupSync:
    case UP_EV_RmaRequestLock:
    case UP_EV_RmaAcquireLock:
    case UP_EV_RmaTryLock:
    case UP_EV_RmaReleaseLock:
    case UP_EV_NonBlockingCollectiveRequest:
    case UP_EV_NonBlockingCollectiveComplete:
    case UP_EV_MpiIrecvRequest:
    case UP_EV_ThreadTeamBegin:
    case UP_EV_ThreadTeamEnd:
    case UP_EV_ThreadJoin:
    case UP_EV_ThreadFork:
        return 0;
    case UP_EV_MpiSend:
    case UP_EV_MpiIsend:
        if (L->reply_open)
            return 0; /* may be a reply: step() (it needs the attributes) */
        switch (do_send(E, li, &ev, true)) {
        case STEP_OK:
            break;
        case STEP_DECLINED: /* a claim to wait for: step() */
            return 0;
        default:
            return -1;
        }
        break;
    case UP_EV_MpiRecv:
    case UP_EV_MpiIrecv:
        switch (do_recv(E, li, &ev, true)) {
        case STEP_OK:
            break;
        case STEP_DECLINED:
            return 0;
        default:
            return -1;
        }
        break;
    default:
        if (L->nsync && (ev->kind == UP_EV_Leave || ev->kind == UP_EV_MpiIsendComplete ||
                         ev->kind == UP_EV_MpiRequestCancelled))
            return 0; /* may complete a synchronous send: step() */
        set_rflags(E, ev);
        E->ops->local(E->model, li, &L->ls, ev);
    }
    return finish_record(E, li, ev, true) == STEP_OK ? 1 : -1;
}

/* The direct path of an Enter or Leave (up_direct_region_fn), through the
 * model's region op: the same as direct_record, without a decoded record. */
static int direct_region(void *ctx, uint32_t li, unsigned kind, uint64_t t_m,
                         OTF2_RegionRef region, uint64_t *t_out)
{
    engine *E = ctx;
    rloc *L = &E->L[li];
    unsigned rflags;
    if (region >= E->d->nregion_ids || (L->nsync && kind == UP_EV_Leave))
        return 0; /* direct_record: a sparse region id, or a synchronous send's end */
    rflags = E->d->region_flags[region];
    if ((rflags & E->poll_flag) | L->polling | (L->body != BODY_NONE))
        return 0; /* polling, or a moved task's work: step() */
    *t_out = finish_times(E, L, kind, t_m, E->ops->region(E->model, li, &L->ls, kind, t_m, rflags),
                          rflags, region);
    return 1;
}

/* ---- the loop ---------------------------------------------------------------- */

/* Every unfinished location waits: release the one whose waiting record has
 * the earliest measured time. */
static int release_one(engine *E)
{
    size_t i;
    uint32_t best = UINT32_MAX;
    uint64_t best_t = UINT64_MAX;
    for (i = 0; i < E->n; i++) {
        up_event *ev;
        if (E->L[i].state != S_WAIT)
            continue;
        if (up_stream_peek(E->L[i].s, 0, &ev, E->err) != UP_OK)
            return -1;
        if (ev && (best == UINT32_MAX || ev->time < best_t)) {
            best = (uint32_t)i;
            best_t = ev->time;
        }
    }
    if (best == UINT32_MAX) {
        UP_ERR(E->err, UP_EINTERNAL, "replay stalled with no waiting record");
        return -1;
    }
    if (E->L[best].wait == W_MSG) {
        msgq *q = queue_get(E, E->L[best].wk0, E->L[best].wk1, false);
        mgroup *g = group_get(E, best, (OTF2_CommRef)(E->L[best].wk1 >> 32), false);
        if (q)
            q->waiting = false;
        if (g)
            g->waiting = false;
    }
    E->L[best].force = true;
    return make_runnable(E, best);
}

/* Key of a runnable location in the heap: the measured time of its next
 * record if it is buffered, else of its last one (no read ahead for it). */
static uint64_t next_key(engine *E, rloc *L)
{
    up_event *ev;
    if (up_stream_buffered(L->s) && up_stream_peek(L->s, 0, &ev, E->err) == UP_OK && ev)
        return ev->time;
    return L->ls.prev_m;
}

/* Locations parked at a claim (STEP_PARK) whose turn has come go back into
 * the schedule, in (time, location) order.  The first that must still wait
 * stops the rest: whatever it waits for runs, so something can run. */
static void cw_wake(engine *E)
{
    while (E->cw.n) {
        hent top = E->cw.a[0];
        rloc *L = &E->L[top.loc];
        if (claim_lagging(E, top.loc, top.key, L->park_coll))
            return;
        kh_pop(&E->cw);
        heap_push(E, top.loc, next_key(E, L));
    }
}

static int run(engine *E)
{
    for (;;) {
        uint32_t li;
        rloc *L;
        size_t slice = 0;
        if (E->cw.n)
            cw_wake(E);
        if (E->hn == 0 && E->cw.n) {
            UP_ERR(E->err, UP_EINTERNAL, "replay stalled with a parked claim");
            return -1;
        }
        if (E->hn == 0) {
            if (E->nwait == 0)
                return 0;
            if (release_one(E) != 0)
                return -1;
            continue;
        }
        li = heap_pop(E);
        L = &E->L[li];
        for (;;) {
            int r;
            if (!up_stream_buffered(L->s) && !up_stream_at_end(L->s)) {
                size_t done = 0;
                if (up_stream_direct(L->s, sched_slice, direct_record,
                                     E->ops->region ? direct_region : NULL, E,
                                     E->out, &done,
                                     E->err) != UP_OK)
                    return -1;
                slice += done;
                r = up_stream_buffered(L->s) || !up_stream_at_end(L->s) ? STEP_OK : STEP_END;
                if (r == STEP_OK && !up_stream_buffered(L->s) && done < sched_slice &&
                    !up_stream_at_end(L->s)) {
                    UP_ERR(E->err, UP_EINTERNAL, "stream stopped without a reason");
                    return -1;
                }
            } else {
                r = step(E, li);
                slice++;
            }
            if (r == STEP_ERROR)
                return -1;
            if (r == STEP_YIELD || r == STEP_DEFER) {
                heap_push(E, li, r == STEP_DEFER ? L->defer_key : next_key(E, L));
                break;
            }
            if (r == STEP_PARK) {
                if (!kh_push(&E->cw, li, L->defer_at)) {
                    UP_ERR(E->err, UP_ENOMEM, "out of memory");
                    return -1;
                }
                break;
            }
            if (r == STEP_BLOCKED) {
                L->state = S_WAIT;
                E->nwait++;
                break;
            }
            if (r == STEP_END) {
                if (L->nheld && held_flush(E, li, NULL, true) != STEP_OK)
                    return -1;
                L->state = S_DONE;
                if (E->ndrained)
                    coll_sweep(E);
                while (L->npend) /* no Leave followed: exit.send_m = send_m */
                    L->pend[--L->npend]->exit_known = true;
                while (L->nsync) /* their calls never ended */
                    sync_drop(L, L->nsync - 1);
                break;
            }
            if (slice >= sched_slice && E->hn) {
                uint64_t key = next_key(E, L);
                if (key > E->heap[0].key) {
                    heap_push(E, li, key);
                    break;
                }
                slice = 0;
            }
        }
    }
}

/* Frees the message queues and collective instances still in the maps
 * (the maps themselves are freed by the caller).  After a complete run what
 * is left was never matched: counted as repairs when `count`. */
static void release_leftovers(engine *E, bool count)
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
    for (i = 0; i < E->teams.cap; i++)
        if (up_map_at(&E->teams, i, &k0, &k1, &v))
            up_free((team *)(uintptr_t)v);
    for (i = 0; i < E->groups.cap; i++)
        if (up_map_at(&E->groups, i, &k0, &k1, &v))
            up_free((mgroup *)(uintptr_t)v);
    up_map_free(&E->groups);
    up_map_free(&E->chans);
    up_map_free(&E->bodies);
    up_free(E->chan);
    up_eng_rma_free(E);
    for (i = 0; i < E->colls.cap; i++) {
        if (up_map_at(&E->colls, i, &k0, &k1, &v)) {
            up_coll *c = (up_coll *)(uintptr_t)v;
            if (count && !c->forced && c->arrived < c->n)
                E->repairs[UP_REPAIR_collective_incomplete]++;
            coll_free(c);
        }
    }
}

static void finish(engine *E, up_replay_result *res)
{
    size_t i;
    bool any_init = false, any_fin = false;

    release_leftovers(E, true);

    res->resolution = E->d->resolution;
    res->t_min_a = UINT64_MAX;
    res->t_max_a = 0;
    for (i = 0; i < E->n; i++) {
        rloc *L = &E->L[i];
        res->events += up_stream_records(L->s);
        if (L->ls.started && L->first_a < res->t_min_a)
            res->t_min_a = L->first_a;
        if (L->ls.started && L->ls.prev_a > res->t_max_a)
            res->t_max_a = L->ls.prev_a; /* output times never decrease */
    }
    if (res->t_min_a == UINT64_MAX)
        res->t_min_a = 0;
    res->unknown_records = up_trace_unknown_records(E->in);
    for (i = 0; i < E->n; i++) { /* timestamps the reader repaired (trace.h) */
        uint64_t fix[3];
        up_trace_time_repairs(E->in, i, fix);
        E->repairs[UP_REPAIR_decreasing_time] += fix[0];
        E->repairs[UP_REPAIR_time_out_of_range] += fix[1];
        E->repairs[UP_REPAIR_time_spike] += fix[2];
    }
    for (i = 0; i < up_trace_ndamage(E->in); i++) {
        const up_damage *dm = up_trace_damage(E->in, i);
        E->repairs[UP_REPAIR_damaged_files] += dm->kind == UP_DAMAGE_FILE;
        E->repairs[UP_REPAIR_event_count] += dm->kind == UP_DAMAGE_COUNT;
        E->repairs[UP_REPAIR_duplicate_definitions] += dm->kind == UP_DAMAGE_DUPLICATE ? dm->kept : 0;
    }
    res->start_m = res->start_a = UINT64_MAX;
    res->end_m = res->end_a = 0;
    for (i = 0; i < E->n; i++) {
        any_init |= E->L[i].has_init;
        any_fin |= E->L[i].has_fin;
    }
    /* The window (docs/models.md): from the earliest end of MPI_Init to the
     * latest start of MPI_Finalize when the trace marks them, else from the
     * first to the last record over all locations. */
    for (i = 0; i < E->n; i++) {
        rloc *L = &E->L[i];
        up_loc_result *lr = &res->locs[i];
        uint64_t s_m, s_a;
        lr->id = E->d->locs[i].id;
        lr->rank = E->d->locs[i].rank;
        lr->kind = E->d->locs[i].kind;
        lr->process = E->d->locs[i].process;
        lr->name = E->d->locs[i].name;
        lr->records = up_stream_records(L->s);
        if (!L->ls.started)
            continue;
        s_m = any_init ? (L->has_init ? L->init_m : UINT64_MAX) : L->first_m;
        s_a = any_init ? (L->has_init ? L->init_a : UINT64_MAX) : L->first_a;
        res->start_m = s_m < res->start_m ? s_m : res->start_m;
        res->start_a = s_a < res->start_a ? s_a : res->start_a;
        lr->has_window_end = any_fin && L->has_fin;
        lr->end_m = lr->has_window_end ? L->fin_m : L->ls.prev_m; /* prev_m: the latest */
        lr->end_a = lr->has_window_end ? L->fin_a : L->ls.prev_a;
        if (!any_fin || L->has_fin) {
            res->end_m = lr->end_m > res->end_m ? lr->end_m : res->end_m;
            res->end_a = lr->end_a > res->end_a ? lr->end_a : res->end_a;
        }
    }
    if (res->start_m == UINT64_MAX)
        res->start_m = res->start_a = res->end_m = res->end_a = 0;
    res->window_marked = any_init && any_fin;
    for (i = 0; i < UP_REPAIR_COUNT; i++)
        res->repairs[i] = E->repairs[i];
    if (E->ops->repairs) {
        const uint64_t *mr = E->ops->repairs(E->model);
        for (i = 0; i < UP_REPAIR_COUNT; i++)
            res->repairs[i] += mr[i];
    }
    if (E->out)
        res->repairs[UP_REPAIR_output_clamped] += up_writer_clamped(E->out);
    res->max_shift = E->max_shift;
    res->wildcard_recvs = E->wild_recvs;
    res->wildcard = E->wild;
    res->replies_marked = E->replies_marked;
    res->replies_inferred = E->replies_inferred;
    res->retargeted = E->retargeted;
    res->bodies_moved = E->bodies_moved;
    res->bodies_lost = E->bodies_lost;
    res->rematched = E->rematched;
    res->spins = E->spins;
    res->polls_collapsed = E->polls_collapsed;
    res->completions_moved = E->completions_moved;
    res->moved = E->repairs[UP_REPAIR_output_clamped];
    if (E->ops->max_shift) {
        uint64_t moved, s = E->ops->max_shift(E->model, &moved);
        res->moved += moved;
        if (s > res->max_shift)
            res->max_shift = s;
    }
}

up_status up_replay_run(up_trace *in, up_writer *out, const up_model_ops *ops,
                        void *model, up_replay_result *res, up_err *err)
{
    engine E;
    up_status st = UP_OK;
    size_t i;
    up_err local_err;

    memset(res, 0, sizeof *res);
    memset(&E, 0, sizeof E);
    if (!err)
        err = &local_err;
    E.in = in;
    E.out = out;
    E.d = up_trace_defs(in);
    E.ops = ops;
    E.model = model;
    E.n = E.d->nlocs;
    E.err = err;
    E.sweep_at = SWEEP_MIN;
    up_map_init(&E.msgq);
    up_map_init(&E.colls);
    up_map_init(&E.collseq);
    up_map_init(&E.rankof);
    up_map_init(&E.nbc);
    up_map_init(&E.nbpend);
    up_map_init(&E.iposted);
    up_map_init(&E.teams);
    up_map_init(&E.teamseq);
    up_map_init(&E.groups);
    up_map_init(&E.chans);
    up_map_init(&E.bodies);
    up_map_init(&E.toks);
    up_map_init(&E.epochs);
    up_map_init(&E.locks);
    E.wild = ops->wildcard ? ops->wildcard(model) : UP_WILDCARD_PRESERVE;
    if (E.wild == UP_WILDCARD_AUTO) /* fifo where the tracer marked the wildcards */
        E.wild = E.d->has_wildcard_attr ? UP_WILDCARD_FIFO : UP_WILDCARD_PRESERVE;
    E.follow = ops->replies && ops->replies(model) == UP_REPLIES_FOLLOW;
    E.eager = ops->eager_limit ? ops->eager_limit(model) : UINT64_MAX;
    E.prog = ops->sync_progress && ops->sync_progress(model);
    E.spin_gap = ops->spin_gap ? ops->spin_gap(model) : 0;
    E.spin_pause = up_ticks_round(SPIN_PAUSE_NS * (double)E.d->resolution / 1e9);
    if (E.spin_pause < E.spin_gap)
        E.spin_pause = E.spin_gap;
    E.poll_flag = E.spin_gap ? UP_REGION_POLL : 0;
    E.L = up_calloc(E.n, sizeof *E.L);
    E.heap = up_calloc(E.n, sizeof *E.heap);
    E.seen = up_calloc(E.n ? E.n : 1, sizeof *E.seen);
    res->locs = up_calloc(E.n, sizeof *res->locs);
    res->nlocs = E.n;
    if (!E.L || !E.heap || !E.seen || !res->locs) {
        st = UP_ERR(err, UP_ENOMEM, "out of memory");
        goto done;
    }
    for (i = 0; i < E.n; i++) {
        E.L[i].s = up_trace_stream(in, i);
        E.L[i].state = S_WAIT; /* make_runnable counts it out again */
        E.nwait++;
        if (make_runnable(&E, (uint32_t)i) != 0) {
            st = err->status;
            goto done;
        }
    }
    if (run(&E) != 0) {
        st = err->status;
        goto done;
    }
    finish(&E, res);
done:
    if (st != UP_OK) {
        release_leftovers(&E, false);
        up_replay_result_free(res);
    }
    while (E.free_msgs) {
        up_msg *m = E.free_msgs;
        E.free_msgs = m->next;
        up_free(m);
    }
    if (E.L)
        for (i = 0; i < E.n; i++) {
            while (E.L[i].nsync)
                sync_drop(&E.L[i], E.L[i].nsync - 1);
            up_free(E.L[i].syncs);
            up_free(E.L[i].pend);
            up_free(E.L[i].held);
            up_free(E.L[i].pr);
        }
    up_map_free(&E.msgq);
    up_map_free(&E.colls);
    up_map_free(&E.collseq);
    up_map_free(&E.rankof);
    for (i = 0; i < E.nbpend.cap; i++) {
        uint64_t k0, k1, v;
        if (up_map_at(&E.nbpend, i, &k0, &k1, &v))
            up_free((coll_arrival *)(uintptr_t)v);
    }
    up_map_free(&E.nbc);
    up_map_free(&E.nbpend);
    up_map_free(&E.iposted);
    up_map_free(&E.teams);
    up_map_free(&E.teamseq);
    up_free(E.L);
    up_free(E.heap);
    up_free(E.ch.a);
    up_free(E.cw.a);
    up_free(E.seen);
    return st;
}

void up_replay_result_free(up_replay_result *res)
{
    up_free(res->locs);
    res->locs = NULL;
    res->nlocs = 0;
}
