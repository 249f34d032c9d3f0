/*
 * engine_wild.c - wildcard receives and task farms (engine_int.h)
 */
#include <string.h>

#include "replay/engine_int.h"

/* ---- re-matching wildcard receives (up_wildcard) ---------------------------- */

enum { WILD_SOURCE = 1, WILD_TAG = 2 }; /* bits of the attribute unperturb::wildcard */


mgroup *up_eng_group_get(engine *E, uint32_t dst, OTF2_CommRef comm, bool create)
{
    return up_eng_map_obj(&E->groups, dst, comm, sizeof(mgroup), create);
}

void up_eng_group_unlink(engine *E, up_msg *m)
{
    mgroup *g = up_eng_group_get(E, m->dst, m->comm, false);
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

/* The sender of message m as receives name it: its process's member of
 * the communicator (its queue's key), which is the sending location itself
 * unless another thread of a process sent it (MPI from any thread) */
static uint32_t msg_from(const up_msg *m)
{
    return ((const msgq *)m->q)->from;
}

/* A canonical order of two messages sent at the same approximated time,
 * for a receive recorded from src: the recorded sender's first (a tie is
 * no reason to change the measured match), then the lower location, then
 * the earlier measured send. */
static bool msg_before(const up_msg *a, const up_msg *b, uint32_t src)
{
    if ((msg_from(a) == src) != (msg_from(b) == src))
        return msg_from(a) == src;
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
            if ((!(bits & WILD_SOURCE) && msg_from(m) != src) || (!(bits & WILD_TAG) && m->tag != tag))
                continue;
            if (E->seen[m->src] == E->scan)
                continue; /* a later message of a sender (thread) already seen */
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


#define FIND_MAX 16384   /* records read ahead for a task's measured receive */
#define BODY_MAX 4096    /* ... and for the work after it */

/* The index of key (k0, k1) in E->chan, created at first use
 * (UINT32_MAX: out of memory). */
uint32_t up_eng_chan_get(engine *E, uint64_t k0, uint64_t k1)
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
static int moved_body(engine *E, uint32_t ochan, uint64_t oseq, uint32_t odst, uint64_t *body)
{
    chan *c = &E->chan[ochan];
    uint64_t *v;
    size_t at;
    int r;
    if (oseq < c->recvd) {
        if (!(v = up_map_get(&E->bodies, ochan, oseq)) || !*v)
            return 0;
        *body = *v - 1;
        up_map_del(&E->bodies, ochan, oseq);
        return 1;
    }
    if ((r = find_recv(E, odst, c->k0, c->k1, oseq - c->recvd, &at)) <= 0 ||
        (r = body_scan(E, odst, at, body)) <= 0)
        return r;
    return up_map_put(&E->bodies, ochan, oseq, 0) ? 1 : -1;
}

/* A partitioned replay: another part asks for the measured work after
 * receive `oseq` on key (k0, k1) of location odst, held here (moved_body).
 * 1 found (*body), 0 not, -1 error. */
int up_eng_moved_body(engine *E, uint64_t k0, uint64_t k1, uint64_t oseq, uint32_t odst,
                      uint64_t *body)
{
    uint32_t oc = up_eng_chan_get(E, k0, k1);
    if (oc == UINT32_MAX) {
        UP_ERR(E->err, UP_ENOMEM, "out of memory matching a receive");
        return -1;
    }
    return moved_body(E, oc, oseq, odst, body);
}

/* The answer to a question on moved work (task_taken, across the seam) */
void up_eng_body_answer(engine *E, uint32_t li, bool found, uint64_t moved)
{
    rloc *L = &E->L[li];
    if (L->body != BODY_PENDING)
        return; /* cannot happen: one question at a time */
    if (!found) {
        E->bodies_lost++;
        L->body = BODY_NONE;
    } else {
        E->bodies_moved++;
        L->body_d = (int64_t)(moved - L->body_own);
        L->body = L->body_d ? BODY_ARMED : BODY_NONE;
    }
    if (L->state == S_WAIT && L->wait == W_BODY)
        up_eng_make_runnable(E, li);
}
/* This receive's own measured work, for the receive that takes its measured
 * task (unless that one took it already).  false: out of memory. */
static bool own_published(engine *E, uint32_t rc, uint64_t seq, uint64_t own)
{
    uint64_t *v;
    if ((v = up_map_get(&E->bodies, rc, seq)) && !*v) { /* taken already */
        up_map_del(&E->bodies, rc, seq);
        return true;
    }
    return up_map_put(&E->bodies, rc, seq, own + 1);
}

/* Receive ev of location li, recorded as the seq-th on chan rc, takes
 * message m: if m is a task that another receive took in the measured run,
 * the work after this receive becomes that task's (L->body), and this
 * receive's own work is left for the receive that takes its measured task. */
static int task_taken(engine *E, uint32_t li, uint32_t rc, uint64_t seq, const up_msg *m)
{
    rloc *L = &E->L[li];
    uint64_t own, moved;
    int r1, r2;
    if (!E->follow || !m->task || (m->ochan == rc && m->oseq == seq))
        return 0;
    if (!up_eng_holds(E, m->odst)) { /* its measured receiver's part answers (engine_seam.c) */
        if ((r1 = body_scan(E, li, 0, &own)) < 0)
            return -1;
        if (r1 && !own_published(E, rc, seq, own))
            return -1;
        if (!r1) {
            E->bodies_lost++;
            return 0;
        }
        L->body_own = own;
        L->body = BODY_PENDING; /* its next record waits for the answer */
        return up_eng_x_bodyq(E, li, E->chan[m->ochan].k0, E->chan[m->ochan].k1, m->oseq,
                              m->odst) == STEP_OK ? 0 : -1;
    }
    if ((r1 = body_scan(E, li, 0, &own)) < 0 ||
        (r1 && (r2 = moved_body(E, m->ochan, m->oseq, m->odst, &moved)) < 0))
        return -1;
    if (r1 && !own_published(E, rc, seq, own))
        return -1;
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
bool up_eng_reply_of(engine *E, uint32_t li, up_event *ev, OTF2_CommRef comm, uint32_t *dst,
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


/* A message from src in group g (once replies were re-targeted, a receive
 * that names src and MPI_ANY_TAG takes the first, whatever its tag: the
 * tags a location receives in the approximated run are not the measured). */
static bool any_from(const mgroup *g, uint32_t src)
{
    const up_msg *m;
    for (m = g->head; m; m = m->gnext)
        if (msg_from(m) == src)
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
int up_eng_recv_rematch(engine *E, uint32_t li, up_event **evp, OTF2_CommRef comm,
                        uint32_t src, uint32_t tag, uint64_t k0, uint64_t k1)
{
    rloc *L = &E->L[li];
    up_event *ev = *evp;
    unsigned bits = wildcard_bits(E, ev);
    msgq *q = up_eng_queue_get(E, k0, k1, true);
    /* the group of the receiving member of the key (li, or its process's) */
    mgroup *g = up_eng_group_get(E, (uint32_t)k0, comm, true);
    uint32_t rc = up_eng_chan_get(E, k0, k1);
    uint64_t seq;
    bool retag, decide, granted = false;
    up_msg *m;
    int r;

    if (L->deferring) { /* its clock goes back to its last record's */
        L->deferring = false;
        up_eng_ch_note(E, li);
    }
    if (!q || !g || rc == UINT32_MAX) {
        UP_ERR(E->err, UP_ENOMEM, "out of memory matching a receive");
        return STEP_ERROR;
    }
    /* a reply re-targeted here may carry another tag than recorded */
    retag = E->retargeted && (bits & WILD_TAG) && !(bits & WILD_SOURCE) &&
            any_from(g, src);
    decide = q->lent > 0 || (bits && q->head) || retag;
    if (decide && E->part) { /* every part's senders behind it first (engine_seam.c) */
        if ((r = up_eng_x_global(E, li)) != STEP_OK)
            return r;
        granted = true;
    }
    if (decide && !granted && up_eng_behind(E, ev->time))
        return STEP_YIELD; /* let the senders behind it in measured time send first */
    if (decide)
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
        if (E->ops->claim && !granted) { /* with claims every location counts, and it parks */
            if (up_eng_claim_lagging(E, li, until, NULL)) {
                L->defer_at = until;
                L->deferring = true;
                L->park_coll = NULL;
                return STEP_PARK;
            }
        } else if (!granted && up_eng_lagging(E, li, comm, until, &key)) {
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
    if ((r = up_eng_resolve_exit(E, li, m, false)) != STEP_OK)
        return r;
    if (m->src == li && up_stream_peek(L->s, 0, evp, E->err) != UP_OK)
        return STEP_ERROR; /* read ahead in our own stream: the head moved */
    ev = *evp;
    up_eng_queue_pop(E, m->q);
    q->waiting = g->waiting = false;
    L->force = false; /* a release found its message after all */
    if (bits)
        E->wild_recvs++;
    seq = E->chan[rc].recvd;
    if (m->ochan != rc || m->oseq != seq) { /* not its measured message */
        m->rematched = true;
        E->rematched++;
    }
    if ((r = task_taken(E, li, rc, seq, m)) != 0) {
        if (r != -2) /* (-2: the error is said) */
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
    L->reply_to = msg_from(m);
    L->reply_comm = comm;
    if (m->q != q) {
        uint32_t rank = 0;
        ((msgq *)m->q)->lent++;
        q->lent--; /* (another key's message: m->rematched is set above) */
        event_rank(E, comm, msg_from(m), &rank); /* known: m was sent to it on comm */
        if (ev->kind == UP_EV_MpiRecv)
            ev->u.MpiRecv.sender = rank, ev->u.MpiRecv.msgTag = m->tag,
            ev->u.MpiRecv.msgLength = m->bytes;
        else
            ev->u.MpiIrecv.sender = rank, ev->u.MpiIrecv.msgTag = m->tag,
            ev->u.MpiIrecv.msgLength = m->bytes;
    }
    return up_eng_recv_done(E, li, ev, m);
}

/* A moved task's work (task_taken): record ev is timed as if the program
 * time since the previous record were longer by L->body_d (the previous
 * record's approximated time moves for the model), or, to take away,
 * shorter by as much as it has beyond the previous record's overhead (its
 * measured time moves), the rest from the gaps after it.  finish_times
 * resets both. */
void up_eng_body_adjust(rloc *L, const up_event *ev)
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
void up_eng_body_after(engine *E, uint32_t li, rloc *L, const up_event *ev)
{
    if (L->body == BODY_PENDING) {
        /* its answer comes before its next record (step) */
    } else if (L->body == BODY_ARMED) {
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

/* The re-matching groups and the task farms' keys and bodies */
void up_eng_wild_free(engine *E)
{
    uint64_t k0, k1, v;
    size_t i;
    for (i = 0; i < E->groups.cap; i++)
        if (up_map_at(&E->groups, i, &k0, &k1, &v))
            up_free((mgroup *)(uintptr_t)v);
    up_map_free(&E->groups);
    up_map_free(&E->chans);
    up_map_free(&E->bodies);
    up_free(E->chan);
}
