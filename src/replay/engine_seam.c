/*
 * engine_seam.c - what crosses between the parts of a partitioned replay
 * (engine_int.h; docs/design.md, "The seam").
 *
 * A partitioned replay runs one engine per part, each holding some of the
 * locations (owner[l]) with its own trace, model and writer: they share no
 * state.  What one location's replay gives another held elsewhere leaves
 * its part as a crossing, plain data in a byte buffer (xout); the driver,
 * up_replay_run_parts, delivers the crossings late and in an order of its
 * own (a fixed seed), and each part puts the crossings of one pair of
 * locations back in the order they were made (xseq, xheld).  When nothing
 * runs and nothing is in flight, the earliest waiting record over all parts
 * is released, as the serial replay releases its earliest.
 *
 * The crossings (plain data, below):
 *   X_MSG     a message reaches its receiver's part
 *   X_POST    a receive's post reaches a synchronous sender
 *   X_PROGQ/A a synchronous sender asks for its receiver's progress
 *             (docs/models.md, "Progress") and gets the answer
 *   X_COLL    a collective member's arrival or release reaches the other
 *             parts with members, which keep a copy of the instance
 *   X_END     a location's trace ended (a member that will never come)
 *   X_TOK     an RMA sync point; X_LOCK a lock release, to every part's
 *             copy of the lock state
 *   X_TEAM    a thread team member's begin or end
 *   X_OMP     OpenMP (engine_omp.c): a barrier's enter or first exit, a
 *             member joining an OMPT team, a lock's release, a task's
 *             creation or completion; POSIX threads (engine_pthr.c): a
 *             pthread barrier's as a barrier's, a thread's create and end;
 *             to the parts with members of the team (every part for locks,
 *             OMPT teams and POSIX threads); counted with the teams'
 *             crossings
 *   X_DEVQ    a host's launch or copy call reaches its stream's part;
 *   X_DEVD    the end of the activity paired with it reaches the host's
 *             (both go to the part's first location, as X_END does, so
 *             that they keep their order with the location's end)
 *   X_BODYQ/A a task farm's moved work, asked of the part holding the
 *             task's measured receiver
 *   X_SHARED  the model's changes to its shared state (simulate's links),
 *             to every part's model (up_model_ops.shared_take)
 * A decision that needs every part's locations behind it (a wildcard
 * receive's choice, a lock release) waits until nothing runs and nothing is
 * in flight (W_GLOBAL); the earliest is then granted, one at a time; then
 * the model's claims on shared resources (W_CLAIM), in (approximated time,
 * location) order.  A rule that would cross the seam another way stops the
 * partitioned replay with an error naming it (up_eng_x_outside).
 */
#include <string.h>

#include "replay/engine_int.h"

enum { X_MSG = 1, X_POST = 2, X_COLL = 3, X_END = 4, X_PROGQ = 5, X_PROGA = 6, X_TOK = 7, X_LOCK = 8,
       X_SHARED = 9, X_BODYQ = 10, X_BODYA = 11, X_TEAM = 12, X_DEVQ = 13, X_DEVD = 14,
       X_OMP = 15 };

/* Every crossing starts with this header; `len` bytes of payload follow. */
typedef struct xhead {
    uint32_t type, len;
    uint32_t from, to;  /* the locations it goes between */
    uint64_t seq;       /* crossings from `from` to `to` before it */
} xhead;

typedef struct xmsg {
    uint64_t send_m, send_a, exit_m, ovh_path, bytes, mdata[2];
    uint32_t src, dst, comm, tag;
    uint8_t exit_known, sync, blocking, pad_;
    uint32_t pad2_;
    uint64_t sync_id, req; /* the sender's synchronous send (sync) */
    /* re-matching (engine_wild.c): the key its send record named, its place
     * among that key's sends, its recorded receiver */
    uint64_t ok0, ok1, oseq;
    uint32_t odst;
    uint8_t task, retargeted, pad3_[2];
} xmsg;

typedef struct xcoll {
    uint64_t key, seq, begin_m, begin_a, end_m, ovh_in, sent, recvd;
    uint32_t comm, op, root, rank, loc;
    uint8_t nonblocking, forced, pad_[2];
} xcoll;

/* A question on receiver dst's progress for sender src's synchronous send
 * `id` (sent at send_m, posted at post_m, completing at t); kept by the
 * receiver's part until it can answer (xprogq is also its list entry) */
typedef struct xprogq {
    uint64_t id, t, send_m, post_m;
    uint32_t src, dst;
} xprogq;

typedef struct xproga {
    uint64_t id, prog_m, prog_a, mprog_m, mprog_a;
    uint32_t src;
    uint8_t known, has_prog, kind, rflags;
    uint8_t mprog_set, mprog_found, mprog_unknown, pad_[5];
} xproga;

/* An RMA sync point of `from` that `to` waits for (engine_rma.c) */
typedef struct xtok {
    uint64_t m, a;
    uint32_t from, to, win, kind;
} xtok;

/* A release of an epoch on target's window: every part keeps the latest */
typedef struct xlock {
    uint64_t m, a;
    uint32_t target, win;
    uint8_t exclusive, pad_[7];
} xlock;

/* A task farm's moved work (engine_wild.c): the work after receive `oseq`
 * on key (k0, k1) of its measured receiver odst, asked for by li */
typedef struct xbodyq {
    uint64_t k0, k1, oseq;
    uint32_t li, odst;
} xbodyq;

typedef struct xbodya {
    uint64_t body;
    uint32_t li;
    uint8_t found, pad_[3];
} xbodya;

/* A thread team member's begin (what 0; 1: the master's, at m, a) or end
 * (2, at a), to the other parts with members (engine_threads.c) */
typedef struct xteam {
    uint64_t key, seq, m, a;
    uint32_t comm, what;
} xteam;

/* A device issue (engine_dev.c) to stream s, or the end of its activity */
typedef struct xdev {
    uint64_t seq, m, a, o;
    uint32_t s;
    uint8_t kind, has_end, pad_[2];
    uint32_t region, pad2_;
} xdev;

typedef struct xend {
    uint32_t loc, pad_;
} xend;

typedef struct xpost {
    uint64_t id, post_m, post_a;
    uint32_t src;
    uint8_t by_request, pad_[3];
} xpost;

/* ---- the buffers -------------------------------------------------------------- */

static int xb_put(engine *E, struct xbuf *b, const void *p, size_t n)
{
    if (b->len + n > b->cap && !up_grow((void **)&b->b, &b->cap, b->len + n, 1)) {
        UP_ERR(E->err, UP_ENOMEM, "out of memory for a crossing");
        return STEP_ERROR;
    }
    memcpy(b->b + b->len, p, n);
    b->len += n;
    return STEP_OK;
}

/* Appends a crossing from location `from` to `to` (held by another part) */
static int x_send(engine *E, unsigned type, uint32_t from, uint32_t to, const void *pl, size_t n)
{
    xhead h;
    uint64_t *v = up_map_get(&E->xseq, from, to);
    memset(&h, 0, sizeof h);
    h.type = type;
    h.len = (uint32_t)n;
    h.from = from;
    h.to = to;
    h.seq = v ? *v : 0;
    if (!up_map_put(&E->xseq, from, to, h.seq + 1)) {
        UP_ERR(E->err, UP_ENOMEM, "out of memory for a crossing");
        return STEP_ERROR;
    }
    if (xb_put(E, &E->xout, &h, sizeof h) != STEP_OK || xb_put(E, &E->xout, pl, n) != STEP_OK)
        return STEP_ERROR;
    return STEP_OK;
}

int up_eng_x_outside(engine *E, const char *what)
{
    UP_ERR(E->err, UP_EINTERNAL, "partitioned replay: %s crosses the seam outside it (not yet "
                                 "built, docs/design.md \"The seam\")", what);
    return STEP_ERROR;
}

void up_eng_seam_free(engine *E)
{
    up_free(E->rep);
    E->rep = NULL;
    up_free(E->progq);
    E->progq = NULL;
    up_free(E->sbuf);
    E->sbuf = NULL;
    up_free(E->xout.b);
    up_free(E->xheld.b);
    memset(&E->xout, 0, sizeof E->xout);
    memset(&E->xheld, 0, sizeof E->xheld);
}

/* ---- the crossings ------------------------------------------------------------ */

/* Message m of location li goes to its receiver's part; m is freed here,
 * the sender keeps its synchronous send (the post comes back, X_POST). */
int up_eng_x_msg(engine *E, uint32_t li, up_msg *m, OTF2_CommRef comm, uint32_t tag)
{
    xmsg x;
    int r;
    memset(&x, 0, sizeof x);
    x.send_m = m->send_m, x.send_a = m->send_a, x.exit_m = m->exit_m;
    x.ovh_path = m->ovh_path, x.bytes = m->bytes;
    x.mdata[0] = m->mdata[0], x.mdata[1] = m->mdata[1];
    x.src = m->src, x.dst = m->dst, x.comm = comm, x.tag = tag;
    x.exit_known = m->exit_known;
    if (E->wild != UP_WILDCARD_PRESERVE) { /* the key, not this part's index of it */
        x.ok0 = E->chan[m->ochan].k0, x.ok1 = E->chan[m->ochan].k1;
        x.oseq = m->oseq, x.odst = m->odst;
        x.task = m->task, x.retargeted = m->retargeted;
    }
    if (m->sync) {
        x.sync = 1;
        x.blocking = m->sync->blocking;
        x.sync_id = m->sync->id;
        x.req = m->sync->req;
    }
    r = x_send(E, X_MSG, li, m->dst, &x, sizeof x);
    up_eng_msg_free(E, m);
    return r;
}

/* The receive of synchronous send s (this part's copy) was posted: to its sender */
int up_eng_x_post(engine *E, const up_sync *s)
{
    xpost x;
    memset(&x, 0, sizeof x);
    x.id = s->id, x.post_m = s->post_m, x.post_a = s->post_a;
    x.src = s->src;
    x.by_request = s->by_request;
    return x_send(E, X_POST, s->dst, s->src, &x, sizeof x) == STEP_OK ? 0 : -1;
}

/* The parts and their first locations (crossings to a part go there) */
up_status up_eng_seam_init(engine *E)
{
    size_t i;
    for (i = 0; i < E->n; i++)
        if (E->owner[i] + 1 > E->nparts)
            E->nparts = E->owner[i] + 1;
    if (!(E->rep = up_calloc(E->nparts ? E->nparts : 1, sizeof *E->rep)))
        return UP_ERR(E->err, UP_ENOMEM, "out of memory");
    for (i = 0; i < E->nparts; i++)
        E->rep[i] = UINT32_MAX;
    for (i = E->n; i-- > 0;)
        E->rep[E->owner[i]] = (uint32_t)i;
    return UP_OK;
}

/* Does part p hold a member of comm (NULL comm def: every part)? */
static bool part_has(const engine *E, uint32_t p, const up_comm_def *cd)
{
    uint32_t r;
    if (!cd)
        return true;
    for (r = 0; r < cd->size; r++)
        if (cd->members[r] < E->n && E->owner[cd->members[r]] == p)
            return true;
    return false;
}

/* A crossing from location `from` to every other part (with a member of
 * comm, when cd is given) */
static int x_parts(engine *E, unsigned type, uint32_t from, const up_comm_def *cd, const void *pl,
                   size_t n)
{
    uint32_t p;
    for (p = 0; p < E->nparts; p++)
        if (p != E->self && E->rep[p] != UINT32_MAX && part_has(E, p, cd) &&
            x_send(E, type, from, E->rep[p], pl, n) != STEP_OK)
            return STEP_ERROR;
    return STEP_OK;
}

/* Member `rank` (location from) arrived at instance (a->key, seq), or
 * (forced) was released from it: to the other parts with members */
int up_eng_x_coll(engine *E, uint32_t from, const coll_arrival *a, uint64_t seq, uint32_t rank,
                  bool forced)
{
    xcoll x;
    memset(&x, 0, sizeof x);
    x.key = a->key, x.seq = seq, x.begin_m = a->begin_m, x.begin_a = a->begin_a;
    x.end_m = a->end_m, x.ovh_in = a->ovh_in, x.sent = a->sent, x.recvd = a->recvd;
    x.comm = a->comm, x.op = (uint32_t)a->op, x.root = a->root, x.rank = rank, x.loc = from;
    x.nonblocking = a->nonblocking, x.forced = forced;
    return x_parts(E, X_COLL, from, up_defs_comm(E->d, a->comm), &x, sizeof x);
}

/* Location li's trace ended: the other parts' instances stop waiting for it */
int up_eng_x_end(engine *E, uint32_t li)
{
    xend x;
    memset(&x, 0, sizeof x);
    x.loc = li;
    return x_parts(E, X_END, li, NULL, &x, sizeof x);
}

/* Synchronous send s completes at measured time t: its receiver's part is
 * asked for the receiver's progress (the sender waits, W_PROG) */
int up_eng_x_progq(engine *E, const up_sync *s, uint64_t t)
{
    xprogq x;
    memset(&x, 0, sizeof x);
    x.id = s->id, x.t = t, x.send_m = s->send_m, x.post_m = s->post_m;
    x.src = s->src, x.dst = s->dst;
    return x_send(E, X_PROGQ, s->src, s->dst, &x, sizeof x);
}

/* Answers the questions whose receivers have timed every record before
 * their completion, and those completing at or before `upto` (0: none)
 * whatever their receivers (not ready: unknown, as the serial replay
 * answers when nothing earlier can run). */
int up_eng_x_prog_flush(engine *E, uint64_t upto, size_t *answered)
{
    size_t i = 0;
    *answered = 0;
    while (i < E->nprogq) {
        xprogq *q = &E->progq[i];
        up_sync tmp;
        xproga a;
        bool known;
        memset(&tmp, 0, sizeof tmp);
        tmp.send_m = q->send_m, tmp.post_m = q->post_m;
        tmp.src = q->src, tmp.dst = q->dst;
        if (!up_eng_prog_answer(E, q->dst, &tmp, q->t, upto && q->t <= upto, &known)) {
            i++;
            continue;
        }
        memset(&a, 0, sizeof a);
        a.id = q->id, a.src = q->src, a.known = known, a.has_prog = tmp.has_prog;
        a.prog_m = tmp.prog_m, a.prog_a = tmp.prog_a;
        a.kind = tmp.prog_kind, a.rflags = tmp.prog_rflags;
        a.mprog_set = tmp.mprog_set, a.mprog_found = tmp.mprog_found;
        a.mprog_unknown = tmp.mprog_unknown, a.mprog_m = tmp.mprog_m, a.mprog_a = tmp.mprog_a;
        if (x_send(E, X_PROGA, q->dst, q->src, &a, sizeof a) != STEP_OK)
            return STEP_ERROR;
        E->progq[i] = E->progq[--E->nprogq];
        (*answered)++;
    }
    return STEP_OK;
}

static int apply_proga(engine *E, const xproga *a)
{
    rloc *S = &E->L[a->src];
    up_sync *s = NULL;
    size_t i;
    for (i = 0; i < S->nsync; i++)
        if (S->syncs[i]->id == a->id)
            s = S->syncs[i];
    if (!s || s->prog_asked != 1) {
        UP_ERR(E->err, UP_EINTERNAL, "partitioned replay: an answer nobody asked for");
        return STEP_ERROR;
    }
    s->prog_asked = 2;
    s->has_prog = a->has_prog;
    s->prog_m = a->prog_m, s->prog_a = a->prog_a;
    s->prog_kind = a->kind, s->prog_rflags = a->rflags;
    s->mprog_set = a->mprog_set, s->mprog_found = a->mprog_found;
    s->mprog_unknown = a->mprog_unknown, s->mprog_m = a->mprog_m, s->mprog_a = a->mprog_a;
    if (!a->known)
        E->repairs[UP_REPAIR_progress_unknown]++;
    if (S->state == S_WAIT && S->wait == W_PROG && S->wsync == s)
        return up_eng_make_runnable(E, a->src) != 0 ? STEP_ERROR : STEP_OK;
    return STEP_OK;
}

int up_eng_x_tok(engine *E, uint32_t from, uint32_t to, OTF2_RmaWinRef win, int kind, uint64_t m,
                 uint64_t a)
{
    xtok x;
    memset(&x, 0, sizeof x);
    x.m = m, x.a = a, x.from = from, x.to = to, x.win = win, x.kind = (uint32_t)kind;
    return x_send(E, X_TOK, from, to, &x, sizeof x);
}

int up_eng_x_lock(engine *E, uint32_t from, uint32_t target, OTF2_RmaWinRef win, bool exclusive,
                  uint64_t m, uint64_t a)
{
    xlock x;
    memset(&x, 0, sizeof x);
    x.m = m, x.a = a, x.target = target, x.win = win, x.exclusive = exclusive;
    return x_parts(E, X_LOCK, from, NULL, &x, sizeof x);
}

/* A decision that needs every part's locations behind it in measured time
 * (a wildcard receive's choice, a lock release: up_eng_behind and
 * up_eng_lagging in the serial replay) waits for the whole replay to be
 * quiet; then the driver grants the earliest such decision, one at a time
 * (drive).  STEP_OK: granted now (once). */
int up_eng_x_global(engine *E, uint32_t li)
{
    rloc *L = &E->L[li];
    if (L->granted) {
        L->granted = false;
        return STEP_OK;
    }
    L->wait = W_GLOBAL;
    return STEP_BLOCKED;
}

int up_eng_x_bodyq(engine *E, uint32_t li, uint64_t k0, uint64_t k1, uint64_t oseq, uint32_t odst)
{
    xbodyq x;
    memset(&x, 0, sizeof x);
    x.k0 = k0, x.k1 = k1, x.oseq = oseq, x.li = li, x.odst = odst;
    return x_send(E, X_BODYQ, li, odst, &x, sizeof x);
}

int up_eng_x_team(engine *E, uint32_t from, OTF2_CommRef comm, uint64_t key, uint64_t seq,
                  unsigned what, uint64_t m, uint64_t a)
{
    xteam x;
    memset(&x, 0, sizeof x);
    x.key = key, x.seq = seq, x.m = m, x.a = a, x.comm = comm, x.what = what;
    return x_parts(E, X_TEAM, from, up_defs_comm(E->d, comm), &x, sizeof x);
}

/* An OpenMP crossing (engine_omp.c) of team comm (OTF2_UNDEFINED_COMM:
 * to every part) */
int up_eng_x_omp(engine *E, uint32_t from, OTF2_CommRef comm, const void *x, size_t len)
{
    const up_comm_def *cd = comm == OTF2_UNDEFINED_COMM ? NULL : up_defs_comm(E->d, comm);
    if (cd && cd->self)
        return STEP_OK; /* a team of one: nobody else needs it */
    return x_parts(E, X_OMP, from, cd, x, len);
}

/* Host `from` issued *is to stream s, held by another part */
int up_eng_x_dev_issue(engine *E, uint32_t from, uint32_t s, const dev_issue *is)
{
    xdev x;
    memset(&x, 0, sizeof x);
    x.seq = is->seq, x.m = is->m, x.a = is->a, x.o = is->o, x.s = s, x.kind = is->kind;
    x.region = is->region;
    return x_send(E, X_DEVQ, from, E->rep[E->owner[E->ds[s].loc]], &x, sizeof x);
}

/* Stream s's activity of issue seq ended (or was dropped): to its host's part */
int up_eng_x_dev_done(engine *E, uint32_t s, uint64_t seq, bool has_end, uint64_t m, uint64_t a)
{
    xdev x;
    memset(&x, 0, sizeof x);
    x.seq = seq, x.m = m, x.a = a, x.s = s, x.has_end = has_end;
    return x_send(E, X_DEVD, E->ds[s].loc, E->rep[E->owner[E->ds[s].host]], &x, sizeof x);
}

static int apply_msg(engine *E, const xmsg *x)
{
    up_msg *m = up_eng_msg_new(E);
    bool kept;
    if (!m) {
        UP_ERR(E->err, UP_ENOMEM, "out of memory queueing a message");
        return STEP_ERROR;
    }
    m->send_m = x->send_m, m->send_a = x->send_a, m->exit_m = x->exit_m;
    m->exit_known = x->exit_known;
    m->ovh_path = x->ovh_path, m->bytes = x->bytes;
    m->mdata[0] = x->mdata[0], m->mdata[1] = x->mdata[1];
    m->src = x->src, m->dst = x->dst;
    if (E->wild != UP_WILDCARD_PRESERVE) {
        if ((m->ochan = up_eng_chan_get(E, x->ok0, x->ok1)) == UINT32_MAX) {
            up_eng_msg_free(E, m);
            UP_ERR(E->err, UP_ENOMEM, "out of memory queueing a message");
            return STEP_ERROR;
        }
        m->oseq = x->oseq, m->odst = x->odst;
        m->task = x->task, m->retargeted = x->retargeted;
    }
    if (x->sync) { /* this part's copy: its post is made here and sent back */
        up_sync *s = up_calloc(1, sizeof *s);
        if (!s) {
            up_eng_msg_free(E, m);
            UP_ERR(E->err, UP_ENOMEM, "out of memory queueing a message");
            return STEP_ERROR;
        }
        s->send_m = x->send_m, s->send_a = x->send_a, s->bytes = x->bytes;
        s->src = x->src, s->dst = x->dst, s->blocking = x->blocking;
        s->req = x->req, s->id = x->sync_id;
        s->refs = 1;
        m->sync = s;
    }
    return up_eng_msg_arrive(E, m, x->comm, x->tag, &kept);
}

/* Applies one crossing meant for this part */
static int apply(engine *E, const xhead *h, const uint8_t *pl)
{
    if (h->type == X_MSG && h->len == sizeof(xmsg)) {
        xmsg x;
        memcpy(&x, pl, sizeof x);
        E->x_msgs++;
        return apply_msg(E, &x);
    }
    if (h->type == X_POST && h->len == sizeof(xpost)) {
        xpost x;
        memcpy(&x, pl, sizeof x);
        E->x_posts++;
        return up_eng_sync_posted(E, x.src, x.id, x.post_m, x.post_a, x.by_request) == 0
                   ? STEP_OK : STEP_ERROR;
    }
    if (h->type == X_COLL && h->len == sizeof(xcoll)) {
        xcoll x;
        coll_arrival a;
        memcpy(&x, pl, sizeof x);
        memset(&a, 0, sizeof a);
        a.comm = x.comm, a.key = x.key, a.op = (OTF2_CollectiveOp)x.op, a.root = x.root;
        a.sent = x.sent, a.recvd = x.recvd, a.begin_m = x.begin_m, a.begin_a = x.begin_a;
        a.end_m = x.end_m, a.ovh_in = x.ovh_in, a.nonblocking = x.nonblocking;
        E->x_colls++;
        return up_eng_coll_crossed(E, &a, x.seq, x.rank, x.loc, x.forced);
    }
    if (h->type == X_PROGQ && h->len == sizeof(xprogq)) {
        if (E->nprogq == E->progqcap &&
            !up_grow((void **)&E->progq, &E->progqcap, E->nprogq + 1, sizeof *E->progq)) {
            UP_ERR(E->err, UP_ENOMEM, "out of memory for a crossing");
            return STEP_ERROR;
        }
        memcpy(&E->progq[E->nprogq++], pl, sizeof(xprogq));
        return STEP_OK;
    }
    if (h->type == X_PROGA && h->len == sizeof(xproga)) {
        xproga a;
        memcpy(&a, pl, sizeof a);
        E->x_progs++;
        return apply_proga(E, &a);
    }
    if (h->type == X_TOK && h->len == sizeof(xtok)) {
        xtok x;
        memcpy(&x, pl, sizeof x);
        E->x_rma++;
        return up_eng_tok_push(E, x.from, x.to, x.win, (int)x.kind, x.m, x.a) == 0 ? STEP_OK
                                                                                    : STEP_ERROR;
    }
    if (h->type == X_LOCK && h->len == sizeof(xlock)) {
        xlock x;
        memcpy(&x, pl, sizeof x);
        E->x_rma++;
        return up_eng_lock_released(E, x.target, x.win, x.exclusive, x.m, x.a);
    }
    if (h->type == X_SHARED) { /* another part's changes to the model's shared state */
        if (E->ops->shared_put)
            E->ops->shared_put(E->model, pl, h->len);
        E->x_shared++;
        return STEP_OK;
    }
    if (h->type == X_BODYQ && h->len == sizeof(xbodyq)) {
        xbodyq q;
        xbodya a;
        uint64_t body = 0;
        int r;
        memcpy(&q, pl, sizeof q);
        if ((r = up_eng_moved_body(E, q.k0, q.k1, q.oseq, q.odst, &body)) < 0)
            return STEP_ERROR;
        memset(&a, 0, sizeof a);
        a.body = body, a.li = q.li, a.found = r > 0;
        return x_send(E, X_BODYA, q.odst, q.li, &a, sizeof a);
    }
    if (h->type == X_BODYA && h->len == sizeof(xbodya)) {
        xbodya a;
        memcpy(&a, pl, sizeof a);
        E->x_bodies++;
        up_eng_body_answer(E, a.li, a.found, a.body);
        return STEP_OK;
    }
    if (h->type == X_TEAM && h->len == sizeof(xteam)) {
        xteam x;
        memcpy(&x, pl, sizeof x);
        E->x_teams++;
        return up_eng_team_crossed(E, x.comm, x.key, x.seq, x.what, x.m, x.a);
    }
    if (h->type == X_OMP) {
        E->x_teams++;
        return up_eng_omp_crossed(E, pl, h->len);
    }
    if ((h->type == X_DEVQ || h->type == X_DEVD) && h->len == sizeof(xdev)) {
        xdev x;
        memcpy(&x, pl, sizeof x);
        if (x.s >= E->nds) {
            UP_ERR(E->err, UP_EINTERNAL, "partitioned replay: a device crossing of no stream");
            return STEP_ERROR;
        }
        E->x_dev++;
        if (h->type == X_DEVD) {
            up_eng_dev_done(E, x.s, x.seq, x.has_end, x.m, x.a);
            return STEP_OK;
        } else {
            dev_issue is;
            memset(&is, 0, sizeof is);
            is.seq = x.seq, is.m = x.m, is.a = x.a, is.o = x.o, is.kind = x.kind;
            is.region = x.region;
            return up_eng_dev_issued(E, x.s, &is);
        }
    }
    if (h->type == X_END && h->len == sizeof(xend)) {
        xend x;
        memcpy(&x, pl, sizeof x);
        if (x.loc >= E->n || !E->L[x.loc].away) {
            UP_ERR(E->err, UP_EINTERNAL, "partitioned replay: the end of a location held here");
            return STEP_ERROR;
        }
        E->x_ends++;
        E->L[x.loc].away_ended = true;
        up_eng_dev_ended(E, x.loc);
        if (E->ndrained)
            up_eng_coll_sweep(E);
        return STEP_OK;
    }
    UP_ERR(E->err, UP_EINTERNAL, "partitioned replay: a crossing of unknown kind %u", h->type);
    return STEP_ERROR;
}

/* The next crossing expected from `from` to `to` */
static uint64_t *expected(engine *E, uint32_t from, uint32_t to)
{
    uint64_t k0 = (uint64_t)from | (uint64_t)1 << 63, *v = up_map_get(&E->xseq, k0, to);
    if (!v && up_map_put(&E->xseq, k0, to, 0))
        v = up_map_get(&E->xseq, k0, to);
    return v;
}

/* One crossing (header and payload, as x_send wrote it) reaches this part:
 * applied in its pair's order, held until the ones before it came. */
static int deliver(engine *E, const uint8_t *x, size_t n)
{
    xhead h;
    uint64_t *want;
    bool again = true;
    memcpy(&h, x, sizeof h);
    if (!(want = expected(E, h.from, h.to))) {
        UP_ERR(E->err, UP_ENOMEM, "out of memory for a crossing");
        return STEP_ERROR;
    }
    if (h.seq != *want)
        return xb_put(E, &E->xheld, x, n);
    (*want)++; /* (before apply: a crossing it sends may move the map's slots) */
    if (apply(E, &h, x + sizeof h) != STEP_OK)
        return STEP_ERROR;
    while (again) { /* the held ones whose turn has come */
        size_t at = 0;
        again = false;
        while (at < E->xheld.len) {
            xhead g;
            size_t len;
            memcpy(&g, E->xheld.b + at, sizeof g);
            len = sizeof g + g.len;
            want = expected(E, g.from, g.to);
            if (want && g.seq == *want) {
                uint8_t *copy = up_malloc(len);
                if (!copy) {
                    UP_ERR(E->err, UP_ENOMEM, "out of memory for a crossing");
                    return STEP_ERROR;
                }
                memcpy(copy, E->xheld.b + at, len);
                memmove(E->xheld.b + at, E->xheld.b + at + len, E->xheld.len - at - len);
                E->xheld.len -= len;
                (*want)++;
                if (apply(E, &g, copy + sizeof g) != STEP_OK) {
                    up_free(copy);
                    return STEP_ERROR;
                }
                up_free(copy);
                again = true;
                continue;
            }
            at += len;
        }
    }
    return STEP_OK;
}

/* ---- the driver ------------------------------------------------------------------ */

/* A crossing in flight: its bytes and the part it goes to */
typedef struct flight {
    uint8_t *b;
    size_t n;
    uint32_t part;
} flight;

static uint64_t rnd(uint64_t *s) /* xorshift64* */
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

/* The changes part E's model made to its shared state go to the others */
static int take_shared(engine *E, up_err *err)
{
    size_t n;
    if (!E->ops->shared_take)
        return 0;
    if (!E->sbuf && !up_grow((void **)&E->sbuf, &E->sbufcap, 4096, 1)) {
        UP_ERR(err, UP_ENOMEM, "out of memory for a crossing");
        return -1;
    }
    while ((n = E->ops->shared_take(E->model, E->sbuf, E->sbufcap)) > E->sbufcap)
        if (!up_grow((void **)&E->sbuf, &E->sbufcap, n, 1)) {
            UP_ERR(err, UP_ENOMEM, "out of memory for a crossing");
            return -1;
        }
    if (n && E->rep && x_parts(E, X_SHARED, E->rep[E->self], NULL, E->sbuf, n) != STEP_OK)
        return -1;
    return 0;
}

/* Moves part E's crossings out into the flights */
static int take_out(engine *E, const uint32_t *owner, flight **f, size_t *nf, size_t *cap,
                    up_err *err)
{
    size_t at = 0;
    while (at < E->xout.len) {
        xhead h;
        size_t len;
        memcpy(&h, E->xout.b + at, sizeof h);
        len = sizeof h + h.len;
        if ((*nf == *cap && !up_grow((void **)f, cap, *nf + 1, sizeof **f)) ||
            !((*f)[*nf].b = up_malloc(len))) {
            UP_ERR(err, UP_ENOMEM, "out of memory for a crossing");
            return -1;
        }
        memcpy((*f)[*nf].b, E->xout.b + at, len);
        (*f)[*nf].n = len;
        (*f)[*nf].part = owner[h.to];
        (*nf)++;
        at += len;
    }
    E->xout.len = 0;
    return 0;
}

/* What finish() needs of the locations part P holds, copied into part 0 */
static void merge_part(engine *E0, engine *P)
{
    size_t i;
    for (i = 0; i < P->n; i++) {
        rloc *A = &E0->L[i];
        const rloc *B = &P->L[i];
        if (B->away)
            continue;
        A->ls = B->ls;
        A->first_m = B->first_m, A->first_a = B->first_a;
        A->has_init = B->has_init, A->init_m = B->init_m, A->init_a = B->init_a;
        A->has_fin = B->has_fin, A->fin_m = B->fin_m, A->fin_a = B->fin_a;
        A->away_records = up_stream_records(B->s);
        up_trace_time_repairs(P->in, i, A->away_fix);
    }
    E0->away_unknown += up_trace_unknown_records(P->in);
    if (P->max_shift > E0->max_shift)
        E0->max_shift = P->max_shift;
    E0->wild_recvs += P->wild_recvs, E0->rematched += P->rematched;
    E0->replies_marked += P->replies_marked, E0->replies_inferred += P->replies_inferred;
    E0->retargeted += P->retargeted;
    E0->bodies_moved += P->bodies_moved, E0->bodies_lost += P->bodies_lost;
    E0->spins += P->spins, E0->polls_collapsed += P->polls_collapsed;
    E0->completions_moved += P->completions_moved;
}


/* The earliest location waiting for the replay to be quiet (W_GLOBAL): its
 * head record's measured time, then its index (UINT32_MAX: none) */
static int global_first(engine *E, size_t np, uint32_t *best, uint64_t *best_t)
{
    size_t k, i;
    *best = UINT32_MAX;
    *best_t = UINT64_MAX;
    for (k = 0; k < np; k++)
        for (i = 0; i < E[k].n; i++) {
            const rloc *L = &E[k].L[i];
            up_event *ev;
            if (L->away || L->state != S_WAIT || L->wait != W_GLOBAL)
                continue;
            if (up_stream_peek(L->s, 0, &ev, E[k].err) != UP_OK || !ev)
                return -1;
            if (ev->time < *best_t || (ev->time == *best_t && i < *best))
                *best = (uint32_t)i, *best_t = ev->time;
        }
    return 0;
}

/* The earliest claim waiting for the replay to be quiet (W_CLAIM): its
 * approximated time, then its location (UINT32_MAX: none) */
static int claim_first(engine *E, size_t np, uint32_t *best)
{
    size_t k, i;
    uint64_t t = UINT64_MAX;
    *best = UINT32_MAX;
    for (k = 0; k < np; k++)
        for (i = 0; i < E[k].n; i++) {
            const rloc *L = &E[k].L[i];
            if (L->away || L->state != S_WAIT || L->wait != W_CLAIM)
                continue;
            if (L->claim_until < t || (L->claim_until == t && i < *best))
                *best = (uint32_t)i, t = L->claim_until;
        }
    return 0;
}

/* Runs the parts until none can go on and nothing is in flight */
static int drive(engine *E, size_t np, const uint32_t *owner, uint64_t seed, up_err *err)
{
    flight *f = NULL;
    size_t nf = 0, cap = 0, k;
    uint64_t s = seed ? seed : 0x9E3779B97F4A7C15ULL;
    int ret = -1;
    for (;;) {
        bool waits = false;
        uint32_t best = UINT32_MAX;
        uint64_t best_t = UINT64_MAX;
        size_t answered = 0, a;
        for (k = 0; k < np; k++)
            if (up_eng_run(&E[k]) != 0 || up_eng_x_prog_flush(&E[k], 0, &a) != STEP_OK ||
                take_shared(&E[k], err) != 0 || take_out(&E[k], owner, &f, &nf, &cap, err) != 0)
                goto out;
        if (nf) { /* some of those in flight arrive, in an order of their own */
            size_t d = 1 + (size_t)(rnd(&s) % nf);
            while (d--) {
                size_t r = (size_t)(rnd(&s) % nf);
                flight x = f[r];
                int rc;
                f[r] = f[--nf];
                rc = deliver(&E[x.part], x.b, x.n);
                up_free(x.b);
                if (rc != STEP_OK)
                    goto out;
            }
            continue;
        }
        /* nothing runs, nothing is in flight.  The earliest decision waiting
         * for that (W_GLOBAL, measured time g) goes first, but the progress
         * still asked for at or before g is unknown first (its receivers
         * wait, and nothing earlier can run: the serial replay's rule) */
        if (global_first(E, np, &best, &best_t) != 0)
            goto out;
        for (k = 0; k < np; k++) {
            if (up_eng_x_prog_flush(&E[k], best_t, &a) != STEP_OK ||
                take_out(&E[k], owner, &f, &nf, &cap, err) != 0)
                goto out;
            answered += a;
        }
        if (answered)
            continue;
        if (best != UINT32_MAX) {
            E[owner[best]].L[best].granted = true;
            E[owner[best]].x_grants++;
            if (up_eng_make_runnable(&E[owner[best]], best) != 0)
                goto out;
            continue;
        }
        if (claim_first(E, np, &best) == 0 && best != UINT32_MAX) { /* then the claims */
            E[owner[best]].L[best].claim_granted = true;
            E[owner[best]].x_grants++;
            if (up_eng_make_runnable(&E[owner[best]], best) != 0)
                goto out;
            continue;
        }
        for (k = 0; k < np; k++) {
            uint32_t b;
            uint64_t t;
            if (!E[k].nwait)
                continue;
            waits = true;
            if (up_eng_release_pick(&E[k], &b, &t) != 0)
                goto out;
            if (b != UINT32_MAX && (best == UINT32_MAX || t < best_t || (t == best_t && b < best)))
                best = b, best_t = t;
        }
        if (!waits)
            break;
        if (best == UINT32_MAX) {
            UP_ERR(err, UP_EINTERNAL, "replay stalled with no waiting record");
            goto out;
        }
        if (up_eng_release(&E[owner[best]], best) != 0)
            goto out;
    }
    ret = 0;
out:
    while (nf)
        up_free(f[--nf].b);
    up_free(f);
    return ret;
}

up_status up_replay_run_parts(const up_replay_part *parts, size_t np, const uint32_t *owner,
                              const up_model_ops *ops, const up_replay_observer *obs,
                              uint64_t seed, up_replay_result *res, up_err *err)
{
    engine *E;
    up_status st = UP_OK;
    size_t k, inited = 0, i;

    memset(res, 0, sizeof *res);
    if (!np)
        return UP_ERR(err, UP_EUSAGE, "partitioned replay: no parts");
    for (i = 0; i < up_trace_defs(parts[0].in)->nlocs; i++)
        if (owner[i] >= np)
            return UP_ERR(err, UP_EUSAGE, "partitioned replay: location %zu has no part", i);
    if (!(E = up_calloc(np, sizeof *E)))
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    for (k = 0; k < np && st == UP_OK; k++, inited++)
        st = up_eng_init(&E[k], parts[k].in, parts[k].out, ops, parts[k].model, obs, owner,
                         (uint32_t)k, err);
    for (k = 0; st == UP_OK && k < np; k++)
        if (ops->shared_take) /* the model logs changes to its shared state */
            ops->shared_take(parts[k].model, NULL, 0);
    if (st == UP_OK && drive(E, np, owner, seed, err) != 0)
        st = err->status;
    if (st == UP_OK) {
        for (k = 1; k < np; k++) {
            up_eng_leftovers(&E[k], true);
            merge_part(&E[0], &E[k]);
        }
        st = up_eng_finish(&E[0], res);
        for (k = 0; st == UP_OK && k < np; k++) {
            if (k) /* (part 0's are in already) */
                up_eng_counts(&E[k], res);
            res->x_msgs += E[k].x_msgs;
            res->x_posts += E[k].x_posts;
            res->x_colls += E[k].x_colls;
            res->x_ends += E[k].x_ends;
            res->x_progs += E[k].x_progs;
            res->x_rma += E[k].x_rma;
            res->x_shared += E[k].x_shared;
            res->x_bodies += E[k].x_bodies;
            res->x_teams += E[k].x_teams;
            res->x_dev += E[k].x_dev;
            res->x_grants += E[k].x_grants;
        }
    }
    for (k = 0; k < inited; k++)
        up_eng_free(&E[k], st != UP_OK);
    up_free(E);
    return st;
}
