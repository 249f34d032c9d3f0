/*
 * hybrid.c - OpenMP barriers, locks, idle threads, fork and join, the host
 * waiting for its device and the device idle (hybrid.h), from one pass over
 * every location's stream merged in measured-time order.
 *
 * Place in the data flow: up_run_report (src/run/report.c) -> here, after
 * the profile of the same run (its windows), -> src/report (text, JSON,
 * report.html).  Time order is what the cross-location figures need: a
 * barrier instance is complete when its last member enters, a lock's last
 * release is known when it is acquired again, a team's last begin and end
 * are known at its master's join.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/hybrid.h"
#include "util/heap.h"
#include "util/util.h"

static const char *const hy_names[UP_HY_COUNT] = {
    "omp_barrier", "lock_contention", "idle_threads", "fork", "join", "host_wait", "device_idle",
};
static const char *const hy_titles[UP_HY_COUNT] = {
    "OpenMP barrier wait", "Lock contention", "Idle threads", "Fork overhead", "Join overhead",
    "Host waiting for device", "Device idle",
};

const char *up_hy_name(unsigned m) { return m < UP_HY_COUNT ? hy_names[m] : "?"; }
const char *up_hy_title(unsigned m) { return m < UP_HY_COUNT ? hy_titles[m] : "?"; }

enum { RC_BARRIER = 1, RC_HOSTWAIT = 2 }; /* classes of regions */

typedef struct hframe {
    OTF2_RegionRef region;
    uint64_t enter;
    uint8_t cls;
} hframe;

typedef struct hteam_ref {
    OTF2_CommRef comm;
    uint32_t k;               /* its instance: the location's k-th begin on comm */
    uint32_t j;               /* barriers this location entered in it */
} hteam_ref;

typedef struct hloc {
    up_stream *s;
    hframe *st;
    size_t depth, cap;
    unsigned bar_depth, hw_depth;
    uint64_t hw_enter;
    hteam_ref *teams;
    size_t nteams, tcap;
    uint64_t span_start, in_team;
    bool had_team;            /* a ThreadTeamBegin seen */
    uint64_t reg_start, in_region; /* time inside regions (threads without team records) */
    bool has_fork;
    uint64_t fork_t;
    uint64_t *joinq;          /* team instances this location is master of, ended, not joined */
    size_t njoin, jcap;
    unsigned ncopy;
    uint64_t busy_start, busy;
} hloc;

typedef struct hmember {
    uint32_t loc;
    uint64_t enter;
} hmember;

typedef struct hbar {
    bool used;
    uint64_t k0, k1;          /* its key */
    uint32_t size, n;         /* size UINT32_MAX: the team's members are unknown */
    hmember *m;               /* n of size */
    size_t mcap;
} hbar;

typedef struct hteam {
    bool used;
    uint64_t key;             /* comm << 32 | k */
    uint32_t size, nbegin, nend;
    uint64_t last_begin, last_end;
    bool has_master;
    uint32_t master;
    uint64_t fork_t;
} hteam;

typedef struct hlock {
    bool held;
    uint32_t holder, last_loc;
    uint64_t last_release;
    bool released;
} hlock;

typedef struct hy {
    const up_defs *d;
    up_hybrid *H;
    hloc *L;
    uint8_t *rcls;            /* class by dense region id */
    up_map teams, bars, locks, kseq;
    hteam *tv;
    size_t ntv, tvcap;
    hbar *bv;
    size_t nbv, bvcap;
    hlock *lv;
    size_t nlv, lvcap;
    bool oom;
} hy;

static uint64_t clip(const up_hybrid_loc *w, uint64_t a, uint64_t b)
{
    uint64_t lo = a > w->win_start ? a : w->win_start, hi = b < w->win_end ? b : w->win_end;
    return hi > lo ? hi - lo : 0;
}

static uint8_t classify(const up_defs *d, OTF2_RegionRef r)
{
    const up_region_def *rg = up_defs_region(d, r);
    uint8_t c = 0;
    if (!rg)
        return 0;
    if (rg->paradigm == OTF2_PARADIGM_OPENMP &&
        (rg->role == OTF2_REGION_ROLE_BARRIER || rg->role == OTF2_REGION_ROLE_IMPLICIT_BARRIER))
        c |= RC_BARRIER;
    if (rg->paradigm == OTF2_PARADIGM_CUDA && rg->name &&
        (strstr(rg->name, "Synchronize") ||
         (strstr(rg->name, "Memcpy") && !strstr(rg->name, "Async"))))
        c |= RC_HOSTWAIT;
    return c;
}

static uint8_t region_cls(const hy *Y, OTF2_RegionRef r)
{
    return r < Y->d->nregion_ids ? Y->rcls[r] : classify(Y->d, r);
}

bool up_hybrid_present(const up_defs *d)
{
    uint32_t *cpus;
    size_t i;
    bool yes = false;
    for (i = 0; i < d->nlocs; i++)
        if (d->locs[i].kind == UP_LOC_ACCELERATOR)
            return true;
    if (!d->nprocs || !(cpus = up_calloc(d->nprocs, sizeof *cpus)))
        return false;
    for (i = 0; i < d->nlocs && !yes; i++)
        if (d->locs[i].kind == UP_LOC_CPU && d->locs[i].process != UP_NO_PROCESS &&
            d->locs[i].process < d->nprocs && ++cpus[d->locs[i].process] > 1)
            yes = true;
    up_free(cpus);
    return yes;
}

/* ---- barriers -------------------------------------------------------------- */

static void bar_settle(hy *Y, hbar *b)
{
    uint64_t last = 0;
    uint32_t i;
    for (i = 0; i < b->n; i++)
        if (b->m[i].enter > last)
            last = b->m[i].enter;
    for (i = 0; i < b->n; i++) {
        up_hybrid_loc *w = &Y->H->locs[b->m[i].loc];
        w->t[UP_HY_OMP_BARRIER] += clip(w, b->m[i].enter, last);
        w->n[UP_HY_OMP_BARRIER]++;
    }
    Y->H->barriers++;
    up_map_del(&Y->bars, b->k0, b->k1);
    up_free(b->m);
    memset(b, 0, sizeof *b);
}

static void bar_enter(hy *Y, uint32_t li, uint64_t t)
{
    hloc *l = &Y->L[li];
    hteam_ref *tr;
    const up_comm_def *cd;
    uint64_t k0, k1, *v;
    hbar *b;
    size_t i;
    if (!l->nteams) /* a barrier outside any known team: no instance to match */
        return;
    tr = &l->teams[l->nteams - 1];
    k0 = (uint64_t)tr->comm << 32 | tr->k;
    k1 = tr->j++;
    if ((v = up_map_get(&Y->bars, k0, k1))) {
        b = &Y->bv[*v];
    } else {
        for (i = 0; i < Y->nbv && Y->bv[i].used; i++)
            ;
        if (i == Y->nbv) {
            if (!up_grow((void **)&Y->bv, &Y->bvcap, Y->nbv + 1, sizeof *Y->bv)) {
                Y->oom = true;
                return;
            }
            memset(&Y->bv[Y->nbv++], 0, sizeof *Y->bv);
        }
        b = &Y->bv[i];
        cd = up_defs_comm(Y->d, tr->comm);
        b->size = cd && cd->resolved && cd->size ? cd->size : UINT32_MAX;
        b->mcap = b->size == UINT32_MAX ? 1 : b->size;
        if (!(b->m = up_calloc(b->mcap, sizeof *b->m)) ||
            !up_map_put(&Y->bars, k0, k1, i)) {
            up_free(b->m);
            b->m = NULL;
            Y->oom = true;
            return;
        }
        b->used = true;
        b->k0 = k0;
        b->k1 = k1;
    }
    if (b->size == UINT32_MAX && /* members unknown: grow as they come */
        !up_grow((void **)&b->m, &b->mcap, (size_t)b->n + 1, sizeof *b->m)) {
        Y->oom = true;
        return;
    }
    if (b->n >= b->size) /* more members than the team has: a broken trace */
        return;
    b->m[b->n].loc = li;
    b->m[b->n++].enter = t;
    if (b->n == b->size)
        bar_settle(Y, b);
}

/* The barriers of a team instance that will see no more members. */
static void bars_of(hy *Y, uint64_t key)
{
    size_t i;
    for (i = 0; i < Y->nbv; i++)
        if (Y->bv[i].used && Y->bv[i].k0 == key)
            bar_settle(Y, &Y->bv[i]);
}

/* ---- teams, fork and join -------------------------------------------------- */

static void team_settle(hy *Y, hteam *tm, bool joined, uint64_t join_t)
{
    if (tm->has_master) {
        up_hybrid_loc *w = &Y->H->locs[tm->master];
        if (tm->nbegin) {
            w->t[UP_HY_FORK] += clip(w, tm->fork_t, tm->last_begin);
            w->n[UP_HY_FORK]++;
        }
        if (joined && tm->nend) {
            w->t[UP_HY_JOIN] += clip(w, tm->last_end, join_t);
            w->n[UP_HY_JOIN]++;
        }
    }
    bars_of(Y, tm->key);
    up_map_del(&Y->teams, tm->key, 0);
    memset(tm, 0, sizeof *tm);
}

static hteam *team_get(hy *Y, uint64_t key, OTF2_CommRef comm)
{
    uint64_t *v = up_map_get(&Y->teams, key, 0);
    const up_comm_def *cd;
    size_t i;
    hteam *tm;
    if (v)
        return &Y->tv[*v];
    for (i = 0; i < Y->ntv && Y->tv[i].used; i++)
        ;
    if (i == Y->ntv) {
        if (!up_grow((void **)&Y->tv, &Y->tvcap, Y->ntv + 1, sizeof *Y->tv)) {
            Y->oom = true;
            return NULL;
        }
        memset(&Y->tv[Y->ntv++], 0, sizeof *Y->tv);
    }
    if (!up_map_put(&Y->teams, key, 0, i)) {
        Y->oom = true;
        return NULL;
    }
    tm = &Y->tv[i];
    tm->used = true;
    tm->key = key;
    cd = up_defs_comm(Y->d, comm);
    tm->size = cd && cd->resolved && cd->size ? cd->size : UINT32_MAX;
    return tm;
}

static void team_begin(hy *Y, uint32_t li, uint64_t t, OTF2_CommRef comm)
{
    hloc *l = &Y->L[li];
    uint64_t *kv = up_map_get(&Y->kseq, li, comm), key;
    uint32_t k = kv ? (uint32_t)*kv : 0;
    hteam *tm;
    if (!up_map_put(&Y->kseq, li, comm, (uint64_t)k + 1) ||
        !up_grow((void **)&l->teams, &l->tcap, l->nteams + 1, sizeof *l->teams)) {
        Y->oom = true;
        return;
    }
    key = (uint64_t)comm << 32 | k;
    l->teams[l->nteams].comm = comm;
    l->teams[l->nteams].k = k;
    l->teams[l->nteams++].j = 0;
    if (l->nteams == 1)
        l->span_start = t;
    l->had_team = true;
    if (!(tm = team_get(Y, key, comm)))
        return;
    tm->nbegin++;
    if (t > tm->last_begin)
        tm->last_begin = t;
    if (l->has_fork && !tm->has_master) {
        tm->has_master = true;
        tm->master = li;
        tm->fork_t = l->fork_t;
        l->has_fork = false;
    }
}

static void team_end(hy *Y, uint32_t li, uint64_t t, OTF2_CommRef comm)
{
    hloc *l = &Y->L[li];
    uint64_t key, *v;
    hteam *tm;
    size_t i = l->nteams;
    while (i > 0 && l->teams[i - 1].comm != comm)
        i--;
    if (!i) /* an end without its begin */
        return;
    key = (uint64_t)comm << 32 | l->teams[i - 1].k;
    l->nteams = i - 1; /* teams begun inside it and not ended end here too */
    if (!l->nteams)
        l->in_team += clip(&Y->H->locs[li], l->span_start, t);
    if (!(v = up_map_get(&Y->teams, key, 0)))
        return;
    tm = &Y->tv[*v];
    tm->nend++;
    if (t > tm->last_end)
        tm->last_end = t;
    if (tm->has_master && tm->master == li) {
        if (!up_grow((void **)&l->joinq, &l->jcap, l->njoin + 1, sizeof *l->joinq)) {
            Y->oom = true;
            return;
        }
        l->joinq[l->njoin++] = key;
    } else if (!tm->has_master && tm->size != UINT32_MAX && tm->nend >= tm->size) {
        team_settle(Y, tm, false, 0);
    }
}

static void thread_join(hy *Y, uint32_t li, uint64_t t)
{
    hloc *l = &Y->L[li];
    uint64_t *v;
    if (!l->njoin)
        return;
    if ((v = up_map_get(&Y->teams, l->joinq[--l->njoin], 0)))
        team_settle(Y, &Y->tv[*v], true, t);
}

/* ---- locks ------------------------------------------------------------------- */

static hlock *lock_get(hy *Y, OTF2_Paradigm model, uint32_t id)
{
    uint64_t *v = up_map_get(&Y->locks, model, id);
    if (v)
        return &Y->lv[*v];
    if (!up_grow((void **)&Y->lv, &Y->lvcap, Y->nlv + 1, sizeof *Y->lv) ||
        !up_map_put(&Y->locks, model, id, Y->nlv)) {
        Y->oom = true;
        return NULL;
    }
    memset(&Y->lv[Y->nlv], 0, sizeof *Y->lv);
    return &Y->lv[Y->nlv++];
}

static void lock_acquire(hy *Y, uint32_t li, uint64_t t, OTF2_Paradigm model, uint32_t id)
{
    hloc *l = &Y->L[li];
    hlock *k = lock_get(Y, model, id);
    uint64_t req = l->depth ? l->st[l->depth - 1].enter : t;
    Y->H->acquisitions++;
    if (!k)
        return;
    if ((k->held && k->holder != li) ||
        (k->released && k->last_loc != li && k->last_release > req)) {
        up_hybrid_loc *w = &Y->H->locs[li];
        w->t[UP_HY_LOCK] += clip(w, req, t);
        w->n[UP_HY_LOCK]++;
    }
    k->held = true;
    k->holder = li;
}

static void lock_release(hy *Y, uint32_t li, uint64_t t, OTF2_Paradigm model, uint32_t id)
{
    hlock *k = lock_get(Y, model, id);
    if (!k)
        return;
    k->held = false;
    k->released = true;
    k->last_loc = li;
    k->last_release = t;
}

/* ---- one record ---------------------------------------------------------------- */

static void dev_busy(hy *Y, uint32_t li, uint64_t t, bool was)
{
    hloc *l = &Y->L[li];
    bool now = l->depth > 0 || l->ncopy > 0;
    if (!was && now)
        l->busy_start = t;
    else if (was && !now)
        l->busy += clip(&Y->H->locs[li], l->busy_start, t);
}

static void record(hy *Y, uint32_t li, const up_event *ev)
{
    hloc *l = &Y->L[li];
    up_hy_role role = Y->H->locs[li].role;
    bool was = l->depth > 0 || l->ncopy > 0;
    uint64_t t = ev->time;
    switch (ev->kind) {
    case UP_EV_Enter: {
        uint8_t c = region_cls(Y, ev->u.Enter.region);
        if (!up_grow((void **)&l->st, &l->cap, l->depth + 1, sizeof *l->st)) {
            Y->oom = true;
            return;
        }
        l->st[l->depth].region = ev->u.Enter.region;
        l->st[l->depth].enter = t;
        l->st[l->depth++].cls = c;
        if (l->depth == 1)
            l->reg_start = t;
        if (role == UP_HY_DEVICE) {
            dev_busy(Y, li, t, was);
            break;
        }
        if ((c & RC_BARRIER) && l->bar_depth++ == 0)
            bar_enter(Y, li, t);
        if ((c & RC_HOSTWAIT) && l->hw_depth++ == 0)
            l->hw_enter = t;
        break;
    }
    case UP_EV_Leave: {
        uint8_t c;
        if (!l->depth)
            break;
        c = l->st[--l->depth].cls;
        if (!l->depth)
            l->in_region += clip(&Y->H->locs[li], l->reg_start, t);
        if (role == UP_HY_DEVICE) {
            dev_busy(Y, li, t, was);
            break;
        }
        if ((c & RC_BARRIER) && l->bar_depth)
            l->bar_depth--;
        if ((c & RC_HOSTWAIT) && l->hw_depth && --l->hw_depth == 0) {
            up_hybrid_loc *w = &Y->H->locs[li];
            w->t[UP_HY_HOST_WAIT] += clip(w, l->hw_enter, t);
            w->n[UP_HY_HOST_WAIT]++;
        }
        break;
    }
    case UP_EV_RmaGet:
    case UP_EV_RmaPut:
        if (role == UP_HY_DEVICE) {
            l->ncopy++;
            dev_busy(Y, li, t, was);
        }
        break;
    case UP_EV_RmaOpCompleteBlocking:
        if (role == UP_HY_DEVICE && l->ncopy) {
            l->ncopy--;
            dev_busy(Y, li, t, was);
        }
        break;
    case UP_EV_ThreadFork:
        l->has_fork = true;
        l->fork_t = t;
        break;
    case UP_EV_ThreadJoin:
        thread_join(Y, li, t);
        break;
    case UP_EV_ThreadTeamBegin:
        team_begin(Y, li, t, ev->u.ThreadTeamBegin.threadTeam);
        break;
    case UP_EV_ThreadTeamEnd:
        team_end(Y, li, t, ev->u.ThreadTeamEnd.threadTeam);
        break;
    case UP_EV_ThreadAcquireLock:
        lock_acquire(Y, li, t, ev->u.ThreadAcquireLock.model, ev->u.ThreadAcquireLock.lockID);
        break;
    case UP_EV_ThreadReleaseLock:
        lock_release(Y, li, t, ev->u.ThreadReleaseLock.model, ev->u.ThreadReleaseLock.lockID);
        break;
    default:
        break;
    }
}

/* ---- the pass ---------------------------------------------------------------- */

/* Roles and windows: a location counts in its process master's window. */
static void roles(hy *Y, const up_profile *p)
{
    const up_defs *d = Y->d;
    up_hybrid *H = Y->H;
    size_t i, j;
    for (i = 0; i < d->nlocs; i++) {
        up_hybrid_loc *w = &H->locs[i];
        const up_loc_def *l = &d->locs[i];
        w->master = (uint32_t)i;
        if (l->kind == UP_LOC_ACCELERATOR)
            w->role = UP_HY_DEVICE, H->ndevices++;
        else if (l->kind != UP_LOC_CPU)
            w->role = UP_HY_OTHER;
        else
            w->role = UP_HY_MASTER;
        if (l->process != UP_NO_PROCESS && l->kind != UP_LOC_METRIC)
            for (j = 0; j < d->nlocs; j++)
                if (d->locs[j].process == l->process && d->locs[j].kind == UP_LOC_CPU) {
                    w->master = (uint32_t)j;
                    break;
                }
        if (w->role == UP_HY_MASTER && w->master != i)
            w->role = UP_HY_THREAD, H->nthreads++;
        if (i < p->nlocs && w->master < p->nlocs) {
            const up_profile_loc *m = &p->locs[w->master];
            if (m->end <= m->start && w->master != i)
                m = &p->locs[i]; /* its master never ran */
            w->win_start = m->start;
            w->win_end = m->end;
        }
    }
}

static up_status pass(hy *Y, up_trace *t, up_err *err)
{
    const up_defs *d = Y->d;
    up_heap heap = {0};
    up_event *ev;
    size_t i;
    up_status st = UP_OK;
    if (!up_heap_reserve(&heap, d->nlocs ? d->nlocs : 1))
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    for (i = 0; i < d->nlocs; i++) {
        Y->L[i].s = up_trace_stream(t, i);
        if ((st = up_stream_peek(Y->L[i].s, 0, &ev, err)) != UP_OK)
            goto done;
        if (ev)
            up_heap_push(&heap, (uint32_t)i, ev->time); /* room reserved */
    }
    while (heap.n && !Y->oom) {
        uint32_t li = heap.a[0].loc;
        hloc *l = &Y->L[li];
        up_stream_peek(l->s, 0, &ev, err); /* buffered: cannot fail */
        record(Y, li, ev);
        up_stream_pop(l->s);
        if ((st = up_stream_peek(l->s, 0, &ev, err)) != UP_OK)
            goto done;
        if (ev)
            up_heap_rekey_top(&heap, ev->time);
        else
            up_heap_pop(&heap);
    }
done:
    up_heap_free(&heap);
    return st;
}

/* What is still open at the end: spans to the window's end, instances with
 * the members that came. */
static void finish(hy *Y)
{
    up_hybrid *H = Y->H;
    size_t i;
    unsigned k;
    for (i = 0; i < Y->ntv; i++)
        if (Y->tv[i].used)
            team_settle(Y, &Y->tv[i], false, 0);
    for (i = 0; i < Y->nbv; i++)
        if (Y->bv[i].used)
            bar_settle(Y, &Y->bv[i]);
    for (i = 0; i < H->nlocs; i++) {
        hloc *l = &Y->L[i];
        up_hybrid_loc *w = &H->locs[i];
        uint64_t win = w->win_end > w->win_start ? w->win_end - w->win_start : 0;
        if (l->nteams)
            l->in_team += clip(w, l->span_start, UINT64_MAX);
        if (w->role == UP_HY_DEVICE && (l->depth || l->ncopy))
            l->busy += clip(w, l->busy_start, UINT64_MAX);
        if (l->depth)
            l->in_region += clip(w, l->reg_start, UINT64_MAX);
        if (!l->had_team) /* no team records (OMPT): busy while in a region */
            l->in_team = l->in_region;
        if (w->role == UP_HY_THREAD)
            w->t[UP_HY_IDLE] = win > l->in_team ? win - l->in_team : 0;
        if (w->role == UP_HY_DEVICE)
            w->t[UP_HY_DEVICE_IDLE] = win > l->busy ? win - l->busy : 0;
        for (k = 0; k < UP_HY_COUNT; k++) {
            H->t[k] += w->t[k];
            H->n[k] += w->n[k];
        }
    }
}

up_status up_hybrid_run(up_trace *t, const up_profile *p, up_hybrid *out, up_err *err)
{
    const up_defs *d = up_trace_defs(t);
    hy Y;
    up_status st = UP_OK;
    size_t i;
    memset(out, 0, sizeof *out);
    memset(&Y, 0, sizeof Y);
    Y.d = d;
    Y.H = out;
    up_map_init(&Y.teams);
    up_map_init(&Y.bars);
    up_map_init(&Y.locks);
    up_map_init(&Y.kseq);
    out->present = up_hybrid_present(d);
    out->resolution = p->resolution ? p->resolution : d->resolution;
    out->nlocs = d->nlocs;
    out->locs = up_calloc(d->nlocs ? d->nlocs : 1, sizeof *out->locs);
    Y.L = up_calloc(d->nlocs ? d->nlocs : 1, sizeof *Y.L);
    Y.rcls = up_calloc(d->nregion_ids ? d->nregion_ids : 1, 1);
    if (!out->locs || !Y.L || !Y.rcls) {
        st = UP_ERR(err, UP_ENOMEM, "out of memory");
        goto done;
    }
    for (i = 0; i < d->nregion_ids; i++)
        Y.rcls[i] = classify(d, (OTF2_RegionRef)i);
    roles(&Y, p);
    if ((st = pass(&Y, t, err)) != UP_OK)
        goto done;
    if (!Y.oom)
        finish(&Y);
    if (Y.oom)
        st = UP_ERR(err, UP_ENOMEM, "out of memory in the hybrid analysis");
done:
    if (Y.L)
        for (i = 0; i < d->nlocs; i++) {
            up_free(Y.L[i].st);
            up_free(Y.L[i].teams);
            up_free(Y.L[i].joinq);
        }
    for (i = 0; i < Y.nbv; i++)
        up_free(Y.bv[i].m);
    up_free(Y.L);
    up_free(Y.rcls);
    up_free(Y.tv);
    up_free(Y.bv);
    up_free(Y.lv);
    up_map_free(&Y.teams);
    up_map_free(&Y.bars);
    up_map_free(&Y.locks);
    up_map_free(&Y.kseq);
    if (st != UP_OK)
        up_hybrid_free(out);
    return st;
}

void up_hybrid_free(up_hybrid *h)
{
    up_free(h->locs);
    memset(h, 0, sizeof *h);
}

double up_hybrid_s(const up_hybrid *h, uint64_t ticks)
{
    return h->resolution ? (double)ticks / (double)h->resolution : 0.0;
}
