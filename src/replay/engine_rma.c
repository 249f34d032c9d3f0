/*
 * engine_rma.c - the replay engine's RMA rules (engine_int.h): general active
 * target synchronisation (MPI_Win_post/start/complete/wait) and passive
 * target locks, as dependencies between single records of two locations.
 * MPI_Win_fence is a collective (engine.c).
 */
#include <string.h>

#include "replay/engine_int.h"

/* ---- RMA: synchronisation of one-sided communication ------------------------ */

/* MPI_Win_fence is a collective (up_eng_coll_begin).  General active target
 * synchronisation (MPI_Win_post/start/complete/wait) and passive target
 * locks are dependencies between single records, timed like the end of a
 * late receiver's wait (ops->sync_end): the record depends on a sync point
 * (dep_m, dep_a) of another location; if it was measured waiting for it
 * (its call began before dep_m) the measured time from dep_m is reused, else
 * it is a local record no earlier than dep_a.  Puts, gets and their
 * completions are local records: they keep their place. */

enum { TOK_POST, TOK_COMPLETE };

typedef struct tok {
    uint64_t m, a;
    struct tok *next;
} tok;

typedef struct tokq {
    tok *head, *tail;
} tokq;

/* what an RmaGroupSync stands for: the MPI call around it */
enum { GS_NONE, GS_POST, GS_START, GS_COMPLETE, GS_WAIT };

static int group_sync_role(const engine *E, const rloc *L, const up_event *ev)
{
    const up_region_def *rg = up_defs_region(E->d, L->enter_region);
    unsigned f = rg ? rg->flags : 0;
    if (ev->u.RmaGroupSync.syncLevel == OTF2_RMA_SYNC_LEVEL_NONE)
        return GS_NONE; /* MPI_Win_test that found the epoch still open */
    return f & UP_REGION_WIN_POST       ? GS_POST
           : f & UP_REGION_WIN_START    ? GS_START
           : f & UP_REGION_WIN_COMPLETE ? GS_COMPLETE
           : f & UP_REGION_WIN_WAIT     ? GS_WAIT
                                        : GS_NONE;
}

static tokq *tokq_get(engine *E, uint32_t from, uint32_t to, OTF2_RmaWinRef win, int kind,
                      bool create)
{
    return up_eng_map_obj(&E->toks, (uint64_t)from << 32 | to, (uint64_t)win << 1 | (uint64_t)kind,
                   sizeof(tokq), create);
}

/* A sync point of `from` that `to` will wait for. */
int up_eng_tok_push(engine *E, uint32_t from, uint32_t to, OTF2_RmaWinRef win, int kind,
                    uint64_t m, uint64_t a)
{
    tokq *q;
    if (!up_eng_holds(E, to)) /* to its part (engine_seam.c) */
        return up_eng_x_tok(E, from, to, win, kind, m, a) == STEP_OK ? 0 : -2;
    q = tokq_get(E, from, to, win, kind, true);
    tok *t = q ? up_malloc(sizeof *t) : NULL;
    if (!t)
        return -1;
    t->m = m, t->a = a, t->next = NULL;
    if (q->tail)
        q->tail->next = t;
    else
        q->head = t;
    q->tail = t;
    if (E->L[to].state == S_WAIT && E->L[to].wait == W_RMA)
        return up_eng_make_runnable(E, to);
    return 0;
}

/* Times ev after the dependency (dep_m, dep_a), or locally if there is none
 * (dep_m 0).  `ref_m`: when the record's own wait began (its call's Enter,
 * or its lock request). */
static void time_after(engine *E, uint32_t li, up_event *ev, uint64_t ref_m, uint64_t dep_m,
                       uint64_t dep_a)
{
    rloc *L = &E->L[li];
    up_sync s;
    if ((!dep_m && !dep_a) || !E->ops->sync_end) {
        E->ops->local(E->model, li, &L->ls, ev);
        return;
    }
    memset(&s, 0, sizeof s);
    s.send_m = ref_m;
    s.post_m = dep_m;
    s.post_a = dep_a;
    s.posted = true;
    E->ops->sync_end(E->model, li, &L->ls, ev, &s);
}

#define RMA_GROUP_MAX 4096


/* An RmaGroupSync:
 *   post (target):      local; a POST token to every origin of its group
 *   start (origin):     takes a POST token from every target; it depends
 *                       on them only if it ended after them (MPI_Win_start
 *                       may return before the targets posted), but its
 *                       epoch does: the complete depends on them
 *   complete (origin):  after the posts; a COMPLETE token to every target
 *   wait/test (target): after a COMPLETE token of every origin */
int up_eng_group_sync(engine *E, uint32_t li, up_event **evp, bool direct)
{
    up_event *ev = *evp;
    rloc *L = &E->L[li];
    OTF2_RmaWinRef win = ev->u.RmaGroupSync.win;
    int role = group_sync_role(E, L, ev);
    uint32_t members[RMA_GROUP_MAX];
    long n, k;
    uint64_t dep_m = 0, dep_a = 0, *v;
    (void)direct; /* never on the direct path (the record table) */

    if (role == GS_NONE) {
        E->ops->local(E->model, li, &L->ls, ev);
        return STEP_OK;
    }
    n = up_defs_group_locs(E->d, ev->u.RmaGroupSync.group, members, RMA_GROUP_MAX);
    if (n < 0 || n > RMA_GROUP_MAX) {
        E->repairs[UP_REPAIR_unresolved_peer]++;
        E->ops->local(E->model, li, &L->ls, ev);
        return STEP_OK;
    }
    if (role == GS_START || role == GS_WAIT) {
        int kind = role == GS_START ? TOK_POST : TOK_COMPLETE;
        bool missing = false;
        for (k = 0; k < n; k++) {
            tokq *q = members[k] == li ? NULL : tokq_get(E, members[k], li, win, kind, false);
            if (members[k] != li && (!q || !q->head))
                missing = true;
        }
        if (missing && !L->force) {
            L->wait = W_RMA;
            return STEP_BLOCKED;
        }
        if (missing) {
            L->force = false;
            E->repairs[UP_REPAIR_rma_unpaired]++;
        }
        for (k = 0; k < n; k++) {
            tokq *q = members[k] == li ? NULL : tokq_get(E, members[k], li, win, kind, false);
            tok *t = q ? q->head : NULL;
            if (!t)
                continue;
            dep_m = t->m > dep_m ? t->m : dep_m;
            dep_a = t->a > dep_a ? t->a : dep_a;
            if (!(q->head = t->next))
                q->tail = NULL;
            up_free(t);
        }
    }
    switch (role) {
    case GS_POST:
        E->ops->local(E->model, li, &L->ls, ev);
        for (k = 0; k < n; k++)
            if (members[k] != li && up_eng_tok_push(E, li, members[k], win, TOK_POST, ev->time, ev->t_out) != 0)
                goto nomem;
        break;
    case GS_START:
        /* the epoch's dependency, for its complete */
        if (!up_map_put(&E->epochs, li, win, dep_m) ||
            !up_map_put(&E->epochs, li | (uint64_t)1 << 32, win, dep_a))
            goto nomem;
        if (dep_m && dep_m <= ev->time)
            time_after(E, li, ev, L->ls.enter_m, dep_m, dep_a);
        else
            E->ops->local(E->model, li, &L->ls, ev);
        break;
    case GS_COMPLETE:
        if ((v = up_map_get(&E->epochs, li, win))) { /* the posts of its epoch */
            uint64_t *va = up_map_get(&E->epochs, li | (uint64_t)1 << 32, win);
            dep_m = *v;
            dep_a = va ? *va : 0;
            up_map_del(&E->epochs, li, win);
        }
        time_after(E, li, ev, L->ls.enter_m, dep_m, dep_a);
        for (k = 0; k < n; k++)
            if (members[k] != li &&
                up_eng_tok_push(E, li, members[k], win, TOK_COMPLETE, ev->time, ev->t_out) != 0)
                goto nomem;
        break;
    default: /* GS_WAIT */
        time_after(E, li, ev, L->ls.enter_m, dep_m, dep_a);
    }
    return STEP_OK;
nomem:
    UP_ERR(E->err, UP_ENOMEM, "out of memory for an RMA synchronisation");
    return STEP_ERROR;
}

/* Passive target: a lock request remembers when and how (exclusive or
 * shared) a location asked for a target's window; its RmaReleaseLock ends
 * the epoch.  Epochs on one target that exclude each other (one of them
 * exclusive) follow in their measured order: a release depends on the
 * latest earlier release it excludes, (m, a) kept per target and window. */
typedef struct lockreq {
    uint64_t m;
    bool exclusive;
    bool open;       /* requested, not released yet */
} lockreq;

typedef struct lockstate {
    uint64_t any_m, any_a;      /* the latest release of any epoch */
    uint64_t excl_m, excl_a;    /* of an exclusive epoch */
} lockstate;

int up_eng_lock(engine *E, uint32_t li, up_event **evp, bool direct)
{
    up_event *ev = *evp;
    rloc *L = &E->L[li];
    OTF2_RmaWinRef win;
    uint32_t remote;
    lockreq *rq;
    (void)direct; /* never on the direct path (the record table) */
    E->ops->local(E->model, li, &L->ls, ev);
    if (ev->kind == UP_EV_RmaRequestLock)
        win = ev->u.RmaRequestLock.win, remote = ev->u.RmaRequestLock.remote;
    else if (ev->kind == UP_EV_RmaAcquireLock)
        win = ev->u.RmaAcquireLock.win, remote = ev->u.RmaAcquireLock.remote;
    else
        win = ev->u.RmaTryLock.win, remote = ev->u.RmaTryLock.remote;
    if (!(rq = up_eng_map_obj(&E->locks, li, (uint64_t)win << 32 | remote, sizeof(lockreq), true))) {
        UP_ERR(E->err, UP_ENOMEM, "out of memory for an RMA lock");
        return STEP_ERROR;
    }
    if (rq->open && ev->kind != UP_EV_RmaRequestLock)
        return STEP_OK; /* acquired what it requested: the request's time stays */
    rq->open = true;
    rq->m = ev->time;
    rq->exclusive = (ev->kind == UP_EV_RmaRequestLock ? ev->u.RmaRequestLock.lockType
                     : ev->kind == UP_EV_RmaAcquireLock ? ev->u.RmaAcquireLock.lockType
                                                         : ev->u.RmaTryLock.lockType) ==
                    OTF2_LOCK_EXCLUSIVE;
    return STEP_OK;
}

static lockstate *lockstate_get(engine *E, uint32_t target, OTF2_RmaWinRef win)
{
    return up_eng_map_obj(&E->locks, (uint64_t)target | (uint64_t)1 << 32, win, sizeof(lockstate), true);
}

int up_eng_unlock(engine *E, uint32_t li, up_event **evp, bool direct)
{
    up_event *ev = *evp;
    rloc *L = &E->L[li];
    OTF2_RmaWinRef win = ev->u.RmaReleaseLock.win;
    uint32_t remote = ev->u.RmaReleaseLock.remote, r, first, last, t;
    lockreq *rq = up_eng_map_obj(&E->locks, li, (uint64_t)win << 32 | remote, sizeof(lockreq), false);
    uint64_t dep_m = 0, dep_a = 0;
    OTF2_CommRef comm;
    const up_comm_def *cd;
    (void)direct; /* never on the direct path (the record table) */

    if (!rq || !rq->open || !up_defs_win_comm(E->d, win, &comm) || !(cd = up_defs_comm(E->d, comm)) ||
        !cd->resolved) {
        E->ops->local(E->model, li, &L->ls, ev);
        return STEP_OK;
    }
    if (E->part) { /* every part's releases earlier in measured time first (engine_seam.c) */
        int g = up_eng_x_global(E, li);
        if (g != STEP_OK)
            return g;
    } else if (up_eng_behind(E, ev->time)) {
        return STEP_YIELD; /* releases earlier in measured time go first */
    }
    /* one target, or all of them (MPI_Win_unlock_all) */
    first = remote == OTF2_UNDEFINED_UINT32 ? 0 : remote;
    last = remote == OTF2_UNDEFINED_UINT32 ? (cd->self ? 1 : cd->size) : remote + 1;
    for (r = first; r < last; r++) {
        lockstate *s;
        if (!up_defs_rank_loc(E->d, comm, r, li, &t) || !(s = lockstate_get(E, t, win)))
            continue;
        if (rq->exclusive && s->any_m && s->any_m < ev->time) {
            dep_m = s->any_m > dep_m ? s->any_m : dep_m;
            dep_a = s->any_a > dep_a ? s->any_a : dep_a;
        } else if (!rq->exclusive && s->excl_m && s->excl_m < ev->time) {
            dep_m = s->excl_m > dep_m ? s->excl_m : dep_m;
            dep_a = s->excl_a > dep_a ? s->excl_a : dep_a;
        }
    }
    time_after(E, li, ev, rq->m, dep_m, dep_a);
    rq->open = false;
    for (r = first; r < last; r++) {
        if (!up_defs_rank_loc(E->d, comm, r, li, &t))
            continue;
        if (up_eng_lock_released(E, t, win, rq->exclusive, ev->time, ev->t_out) != STEP_OK)
            return STEP_ERROR;
        if (E->part && up_eng_x_lock(E, li, t, win, rq->exclusive, ev->time, ev->t_out) != STEP_OK)
            return STEP_ERROR; /* the other parts' copies of the lock state */
    }
    return STEP_OK;
}

/* A release of an epoch on target's window at (m, a): the latest releases */
int up_eng_lock_released(engine *E, uint32_t target, OTF2_RmaWinRef win, bool exclusive,
                         uint64_t m, uint64_t a)
{
    lockstate *s = lockstate_get(E, target, win);
    if (!s) {
        UP_ERR(E->err, UP_ENOMEM, "out of memory for an RMA lock");
        return STEP_ERROR;
    }
    if (m >= s->any_m)
        s->any_m = m, s->any_a = a;
    if (exclusive && m >= s->excl_m)
        s->excl_m = m, s->excl_a = a;
    return STEP_OK;
}

void up_eng_rma_free(engine *E)
{
    size_t i;
    uint64_t k0, k1, v;
    for (i = 0; i < E->toks.cap; i++)
        if (up_map_at(&E->toks, i, &k0, &k1, &v)) {
            tokq *q = (tokq *)(uintptr_t)v;
            while (q->head) {
                tok *t = q->head;
                q->head = t->next;
                up_free(t);
            }
            up_free(q);
        }
    for (i = 0; i < E->locks.cap; i++)
        if (up_map_at(&E->locks, i, &k0, &k1, &v))
            up_free((void *)(uintptr_t)v);
    up_map_free(&E->toks);
    up_map_free(&E->epochs);
    up_map_free(&E->locks);
}
