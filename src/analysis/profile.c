/*
 * profile.c - call-path profile, communication per peer and Scalasca's wait
 * states of one run (profile.h), as an identity model of the replay engine.
 *
 * Place in the data flow: up_replay_run(in, NULL, &prof_ops) -> here.  Every
 * record reaches exactly one of the model's callbacks with its measured time,
 * which it keeps (t_out = time): the engine contributes what a single pass
 * over each location cannot know, the other end of each message and the
 * members of each collective.  Per location the analysis keeps its open call
 * stack (bounded by the program's nesting, not the trace's length).
 */
#include <stdlib.h>
#include <string.h>

#include "model/compensate.h"
#include "analysis/profile.h"
#include "util/util.h"

static const char *const pattern_names[UP_WS_COUNT] = {
    "late_sender", "late_receiver", "wait_nxn", "wait_barrier", "late_broadcast", "early_reduce",
};
static const char *const pattern_titles[UP_WS_COUNT] = {
    "Late Sender", "Late Receiver", "Wait at N x N", "Wait at Barrier", "Late Broadcast",
    "Early Reduce",
};

const char *up_pattern_name(unsigned p) { return p < UP_WS_COUNT ? pattern_names[p] : "?"; }
const char *up_pattern_title(unsigned p) { return p < UP_WS_COUNT ? pattern_titles[p] : "?"; }

typedef struct frame {
    uint32_t cpath;
    uint32_t cl;          /* index of its (cpath, loc) entry */
    uint64_t enter;       /* measured Enter */
    uint64_t child;       /* clipped inclusive time of its children */
    uint64_t child_pre;   /* ... of those that ended before the window began */
} frame;

/* Time of a location before its window is known to begin.  A location's
 * window begins at the end of its MPI_Init; until that comes (it may never:
 * a trace without MPI_Init counts from its first record), what ends is kept
 * aside per (call path, location) and counted at the end only if it never
 * comes. */
typedef struct pend {
    uint32_t cl;
    uint64_t incl, excl, wait[UP_WS_COUNT];
} pend;

typedef struct ploc {
    frame *st;
    size_t depth, cap;
    unsigned in_mpi;      /* open MPI regions */
    uint64_t mpi_enter;   /* Enter of the outermost open MPI region */
    uint64_t ws, we;      /* its window: [end of MPI_Init, start of MPI_Finalize];
                           * ws UINT64_MAX until MPI_Init ends */
    bool started, ended;
    uint64_t first, last;
    up_map pmap;          /* cl -> index in pv */
    pend *pv;
    size_t npv, pvcap;
    uint64_t pend_mpi;
} ploc;

typedef struct prof {
    const up_defs *d;
    up_profile *P;
    ploc *L;
    up_map cpmap;         /* (parent, region) -> cpath index */
    up_map clmap;         /* (cpath, loc) -> cl index */
    up_map cmmap;         /* (cpath << 32 | loc, peer loc) -> comm index */
    size_t cpcap, clcap, cmcap;
    bool oom;
} prof;

static uint64_t min2(uint64_t a, uint64_t b) { return a < b ? a : b; }
static uint64_t max2(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* Length of [a, b) inside the location's window (before the window is
 * known to begin: up to its end). */
static uint64_t clip(const ploc *l, uint64_t a, uint64_t b)
{
    uint64_t lo = l->ws == UINT64_MAX ? a : max2(a, l->ws), hi = min2(b, l->we);
    return hi > lo ? hi - lo : 0;
}

static bool pre_window(const ploc *l) { return l->ws == UINT64_MAX; }

static pend *pend_of(prof *M, ploc *l, uint32_t cl)
{
    uint64_t *v = up_map_get(&l->pmap, cl, 0);
    pend *e;
    if (v)
        return &l->pv[*v];
    if (!up_grow((void **)&l->pv, &l->pvcap, l->npv + 1, sizeof *l->pv) ||
        !up_map_put(&l->pmap, cl, 0, l->npv)) {
        M->oom = true;
        return NULL;
    }
    e = &l->pv[l->npv++];
    memset(e, 0, sizeof *e);
    e->cl = cl;
    return e;
}

static bool is_mpi_region(const up_defs *d, OTF2_RegionRef r)
{
    const up_region_def *rg = up_defs_region(d, r);
    return rg && (rg->paradigm == OTF2_PARADIGM_MPI ||
                  (rg->name && strncmp(rg->name, "MPI_", 4) == 0));
}

static uint32_t cpath_get(prof *M, uint32_t parent, OTF2_RegionRef region, unsigned depth)
{
    uint64_t *v = up_map_get(&M->cpmap, parent, region);
    up_profile *P = M->P;
    up_cpath *c;
    const up_region_def *rg;
    if (v)
        return (uint32_t)*v;
    if (!up_grow((void **)&P->cpaths, &M->cpcap, P->ncpaths + 1, sizeof *P->cpaths) ||
        !up_map_put(&M->cpmap, parent, region, P->ncpaths)) {
        M->oom = true;
        return UP_CP_ROOT;
    }
    c = &P->cpaths[P->ncpaths];
    memset(c, 0, sizeof *c);
    c->parent = parent;
    c->region = region;
    rg = up_defs_region(M->d, region);
    c->name = rg && rg->name ? rg->name : "(unknown region)";
    c->depth = depth;
    c->mpi = is_mpi_region(M->d, region);
    return (uint32_t)P->ncpaths++;
}

static uint32_t cl_get(prof *M, uint32_t cpath, uint32_t loc)
{
    uint64_t *v = up_map_get(&M->clmap, cpath, loc);
    up_profile *P = M->P;
    up_cpath_loc *e;
    if (v)
        return (uint32_t)*v;
    if (!up_grow((void **)&P->cl, &M->clcap, P->ncl + 1, sizeof *P->cl) ||
        !up_map_put(&M->clmap, cpath, loc, P->ncl)) {
        M->oom = true;
        return UINT32_MAX;
    }
    e = &P->cl[P->ncl];
    memset(e, 0, sizeof *e);
    e->cpath = cpath;
    e->loc = loc;
    P->cpaths[cpath].nlocs++;
    return (uint32_t)P->ncl++;
}

static up_comm *comm_get(prof *M, uint32_t cpath, uint32_t loc, uint32_t peer)
{
    uint64_t *v = up_map_get(&M->cmmap, (uint64_t)cpath << 32 | loc, peer);
    up_profile *P = M->P;
    up_comm *c;
    if (v)
        return &P->comm[*v];
    if (!up_grow((void **)&P->comm, &M->cmcap, P->ncomm + 1, sizeof *P->comm) ||
        !up_map_put(&M->cmmap, (uint64_t)cpath << 32 | loc, peer, P->ncomm)) {
        M->oom = true;
        return NULL;
    }
    c = &P->comm[P->ncomm++];
    memset(c, 0, sizeof *c);
    c->cpath = cpath;
    c->loc = loc;
    c->peer_loc = peer;
    c->peer = M->d->locs[peer].rank != UP_NO_RANK ? M->d->locs[peer].rank : (long)peer;
    return c;
}

/* Every record passes here first: the call stack, the window, MPI time. */
static void track(prof *M, uint32_t li, up_event *ev)
{
    ploc *l = &M->L[li];
    ev->t_out = ev->time;
    if (!l->started) {
        l->started = true;
        l->first = ev->time;
    }
    l->last = ev->time;
    if (ev->kind == UP_EV_Enter) {
        OTF2_RegionRef r = ev->u.Enter.region;
        unsigned fl = up_defs_region_flags(M->d, r);
        uint32_t parent = l->depth ? l->st[l->depth - 1].cpath : UP_CP_ROOT;
        frame *f;
        uint32_t cp;
        if ((fl & UP_REGION_MPI_FINALIZE) && !l->ended) {
            l->ended = true;
            l->we = ev->time;
        }
        if (parent == UP_CP_ROOT && l->depth) { /* under a path lost to OOM */
            M->oom = true;
            return;
        }
        cp = cpath_get(M, parent, r, (unsigned)l->depth);
        if (cp == UP_CP_ROOT)
            return;
        if (!up_grow((void **)&l->st, &l->cap, l->depth + 1, sizeof *l->st)) {
            M->oom = true;
            return;
        }
        f = &l->st[l->depth++];
        f->cpath = cp;
        f->cl = cl_get(M, cp, li);
        f->enter = ev->time;
        f->child = f->child_pre = 0;
        if (f->cl != UINT32_MAX)
            M->P->cl[f->cl].visits++;
        M->P->cpaths[cp].visits++;
        if (M->P->cpaths[cp].mpi && l->in_mpi++ == 0)
            l->mpi_enter = ev->time;
    } else if (ev->kind == UP_EV_Leave && l->depth) {
        frame *f = &l->st[--l->depth];
        up_cpath *c = &M->P->cpaths[f->cpath];
        uint64_t incl, excl, sub;
        bool pre;
        if ((up_defs_region_flags(M->d, ev->u.Leave.region) & UP_REGION_MPI_INIT) && pre_window(l))
            l->ws = ev->time;
        pre = pre_window(l);
        incl = clip(l, f->enter, ev->time);
        /* children that ended before the window began lie before it */
        sub = pre ? f->child + f->child_pre : f->child;
        excl = incl > sub ? incl - sub : 0;
        if (pre) {
            pend *e = f->cl != UINT32_MAX ? pend_of(M, l, f->cl) : NULL;
            if (e) {
                e->incl += incl;
                e->excl += excl;
            }
            if (l->depth)
                l->st[l->depth - 1].child_pre += incl;
        } else {
            c->incl += incl;
            c->excl += excl;
            if (f->cl != UINT32_MAX) {
                M->P->cl[f->cl].incl += incl;
                M->P->cl[f->cl].excl += excl;
            }
            if (l->depth)
                l->st[l->depth - 1].child += incl;
        }
        if (c->mpi && l->in_mpi && --l->in_mpi == 0) {
            if (pre)
                l->pend_mpi += clip(l, l->mpi_enter, ev->time);
            else
                M->P->locs[li].mpi += clip(l, l->mpi_enter, ev->time);
        }
    }
}

/* The innermost open call of a location (NULL outside any region). */
static frame *top(prof *M, uint32_t li)
{
    ploc *l = &M->L[li];
    return l->depth ? &l->st[l->depth - 1] : NULL;
}

/* A wait of pattern p in location li's current call, clipped to its window. */
static void add_wait(prof *M, uint32_t li, frame *f, unsigned p, uint64_t from, uint64_t to)
{
    uint64_t w = clip(&M->L[li], from, to);
    if (!w)
        return;
    if (pre_window(&M->L[li])) {
        pend *e = f && f->cl != UINT32_MAX ? pend_of(M, &M->L[li], f->cl) : NULL;
        if (e)
            e->wait[p] += w;
        return;
    }
    M->P->locs[li].wait[p] += w;
    if (f) {
        M->P->cpaths[f->cpath].wait[p] += w;
        if (f->cl != UINT32_MAX)
            M->P->cl[f->cl].wait[p] += w;
    }
}

static uint64_t p_record_ovh(void *m, uint32_t loc, const up_event *ev)
{
    (void)m, (void)loc, (void)ev;
    return 0;
}

static void p_local(void *m, uint32_t loc, const up_loc_state *ls, up_event *ev)
{
    (void)ls;
    track(m, loc, ev);
}

static void p_send(void *mp, uint32_t loc, const up_loc_state *ls, up_event *ev, up_msg *msg)
{
    prof *M = mp;
    frame *f;
    up_comm *c;
    (void)ls;
    track(M, loc, ev);
    f = top(M, loc);
    msg->mdata[0] = f ? f->enter : ev->time; /* enter.send */
    msg->mdata[1] = f ? f->cpath : UP_CP_ROOT;
    if (f && (c = comm_get(M, f->cpath, loc, msg->dst))) {
        c->sends++;
        c->bytes_sent += msg->bytes;
    }
}

/* A receive blocks unless it completes in a poll (the test family, the
 * nonblocking probes: UP_REGION_POLL of the table of MPI calls). */
static bool blocking_call(const prof *M, const up_cpath *c)
{
    return c->mpi && !(up_defs_region_flags(M->d, c->region) & UP_REGION_POLL);
}

static void p_recv(void *mp, uint32_t loc, const up_loc_state *ls, up_event *ev, const up_msg *msg)
{
    prof *M = mp;
    frame *f;
    uint64_t ls_wait = 0;
    up_comm *c;
    (void)ls;
    track(M, loc, ev);
    if (!msg)
        return;
    f = top(M, loc);
    if (f && blocking_call(M, &M->P->cpaths[f->cpath])) {
        /* Late Sender: min(enter.send, recv) - enter.recv */
        uint64_t until = min2(msg->mdata[0], ev->time);
        if (until > f->enter) {
            ls_wait = clip(&M->L[loc], f->enter, until);
            add_wait(M, loc, f, UP_WS_LATE_SENDER, f->enter, until);
        }
    }
    if (f && (c = comm_get(M, f->cpath, loc, msg->src))) {
        c->recvs++;
        c->bytes_recvd += msg->bytes;
        c->transfer += ev->time > msg->send_m ? ev->time - msg->send_m : 0;
        c->delay += ls_wait;
    }
}

static void p_coll_end(void *mp, uint32_t loc, const up_loc_state *ls, up_event *ev,
                       const up_coll *c, const up_member *self)
{
    prof *M = mp;
    frame *f;
    uint64_t until = 0;
    uint32_t i;
    (void)ls;
    track(M, loc, ev);
    f = top(M, loc);
    if (c->key != c->comm) /* an RMA fence: not one of Scalasca's MPI patterns here */
        return;
    switch (c->cls) {
    case UP_COLL_N_TO_N:
        for (i = 0; i < c->n; i++)
            if (c->m[i].arrived)
                until = max2(until, c->m[i].begin_m);
        add_wait(M, loc, f, c->op == OTF2_COLLECTIVE_OP_BARRIER ? UP_WS_WAIT_BARRIER : UP_WS_WAIT_NXN,
                 self->begin_m, min2(until, ev->time));
        break;
    case UP_COLL_ONE_TO_N:
        if (c->root < c->n && &c->m[c->root] != self && c->m[c->root].arrived)
            add_wait(M, loc, f, UP_WS_LATE_BROADCAST, self->begin_m,
                     min2(c->m[c->root].begin_m, ev->time));
        break;
    case UP_COLL_N_TO_ONE:
        if (c->root < c->n && &c->m[c->root] == self) {
            until = UINT64_MAX;
            for (i = 0; i < c->n; i++)
                if (i != c->root && c->m[i].arrived)
                    until = min2(until, c->m[i].begin_m);
            if (until != UINT64_MAX)
                add_wait(M, loc, f, UP_WS_EARLY_REDUCE, self->begin_m, min2(until, ev->time));
        }
        break;
    case UP_COLL_PREFIX:
        break;
    }
}

/* The end of a synchronous send's call: Late Receiver when the receive was
 * posted after the send began and before the call ended. */
static void p_sync_end(void *mp, uint32_t loc, const up_loc_state *ls, up_event *ev,
                       const up_sync *s)
{
    prof *M = mp;
    frame *f = top(M, loc); /* before track() pops the call this Leave ends */
    (void)ls;
    if (s && s->blocking && f && ev->kind == UP_EV_Leave && s->post_m > f->enter &&
        s->post_m < ev->time)
        add_wait(M, loc, f, UP_WS_LATE_RECEIVER, f->enter, s->post_m);
    track(M, loc, ev);
}

static uint64_t p_eager_limit(void *m)
{
    (void)m;
    return UP_DEFAULT_EAGER_LIMIT; /* larger sends may block: Late Receiver */
}

static const up_model_ops prof_ops = {
    .name = "profile",
    .record_ovh = p_record_ovh,
    .local = p_local,
    .send = p_send,
    .recv = p_recv,
    .coll_end = p_coll_end,
    .eager_limit = p_eager_limit,
    .sync_end = p_sync_end,
};

/* A location whose MPI_Init never ended: its window is first .. last record,
 * so what was kept aside counts. */
static void settle(prof *M, uint32_t li)
{
    ploc *l = &M->L[li];
    up_profile *P = M->P;
    size_t i;
    unsigned k;
    for (i = 0; i < l->npv; i++) {
        const pend *e = &l->pv[i];
        up_cpath_loc *c = &P->cl[e->cl];
        up_cpath *cp = &P->cpaths[c->cpath];
        c->incl += e->incl, c->excl += e->excl;
        cp->incl += e->incl, cp->excl += e->excl;
        for (k = 0; k < UP_WS_COUNT; k++) {
            c->wait[k] += e->wait[k];
            cp->wait[k] += e->wait[k];
            P->locs[li].wait[k] += e->wait[k];
        }
    }
    P->locs[li].mpi += l->pend_mpi;
}

static int cmp_cl(const void *a, const void *b)
{
    const up_cpath_loc *x = a, *y = b;
    if (x->cpath != y->cpath)
        return x->cpath < y->cpath ? -1 : 1;
    return x->loc < y->loc ? -1 : x->loc > y->loc;
}

static int cmp_comm(const void *a, const void *b)
{
    const up_comm *x = a, *y = b;
    if (x->cpath != y->cpath)
        return x->cpath < y->cpath ? -1 : 1;
    if (x->loc != y->loc)
        return x->loc < y->loc ? -1 : 1;
    return x->peer < y->peer ? -1 : x->peer > y->peer;
}

up_status up_profile_run(up_trace *t, const up_replay_observer *obs, up_profile *out,
                         up_err *err)
{
    const up_defs *d = up_trace_defs(t);
    up_replay_result res;
    prof M;
    up_status st;
    size_t i;

    memset(out, 0, sizeof *out);
    memset(&M, 0, sizeof M);
    M.d = d;
    M.P = out;
    up_map_init(&M.cpmap);
    up_map_init(&M.clmap);
    up_map_init(&M.cmmap);
    out->nlocs = d->nlocs;
    out->locs = up_calloc(d->nlocs, sizeof *out->locs);
    M.L = up_calloc(d->nlocs, sizeof *M.L);
    if (!out->locs || !M.L) {
        st = UP_ERR(err, UP_ENOMEM, "out of memory");
        goto done;
    }
    for (i = 0; i < d->nlocs; i++) {
        M.L[i].ws = M.L[i].we = UINT64_MAX;
        up_map_init(&M.L[i].pmap);
    }
    if ((st = up_replay_run(t, NULL, &prof_ops, &M, obs, &res, err)) != UP_OK)
        goto done;
    if (M.oom) {
        up_replay_result_free(&res);
        st = UP_ERR(err, UP_ENOMEM, "out of memory building the profile");
        goto done;
    }
    out->resolution = res.resolution;
    out->window_marked = res.window_marked;
    out->start = res.start_m;
    out->end = res.end_m;
    out->events = res.events;
    memcpy(out->repairs, res.repairs, sizeof out->repairs);
    for (i = 0; i < d->nlocs; i++) {
        up_profile_loc *pl = &out->locs[i];
        ploc *l = &M.L[i];
        pl->id = d->locs[i].id;
        pl->rank = d->locs[i].rank;
        pl->kind = d->locs[i].kind;
        pl->process = d->locs[i].process;
        pl->name = d->locs[i].name;
        pl->records = res.locs[i].records;
        if (!l->started)
            continue;
        if (pre_window(l))
            settle(&M, (uint32_t)i);
        pl->start = !pre_window(l) ? l->ws : l->first;
        pl->end = l->ended ? l->we : l->last;
        pl->time = pl->end > pl->start ? pl->end - pl->start : 0;
        /* a call still open at the end (a truncated trace) counts up to there */
        if (l->in_mpi)
            pl->mpi += clip(l, max2(l->mpi_enter, pl->start), l->last);
    }
    up_replay_result_free(&res);
    if (out->ncl)
        qsort(out->cl, out->ncl, sizeof *out->cl, cmp_cl);
    if (out->ncomm)
        qsort(out->comm, out->ncomm, sizeof *out->comm, cmp_comm);
done:
    if (M.L)
        for (i = 0; i < d->nlocs; i++) {
            up_free(M.L[i].st);
            up_free(M.L[i].pv);
            up_map_free(&M.L[i].pmap);
        }
    up_free(M.L);
    up_map_free(&M.cpmap);
    up_map_free(&M.clmap);
    up_map_free(&M.cmmap);
    if (st != UP_OK)
        up_profile_free(out);
    return st;
}

void up_profile_free(up_profile *p)
{
    up_free(p->locs);
    up_free(p->cpaths);
    up_free(p->cl);
    up_free(p->comm);
    memset(p, 0, sizeof *p);
}

double up_profile_s(const up_profile *p, uint64_t ticks)
{
    return p->resolution ? (double)ticks / (double)p->resolution : 0.0;
}

uint64_t up_profile_wait_total(const up_profile *p, unsigned pattern)
{
    uint64_t s = 0;
    size_t i;
    for (i = 0; i < p->nlocs && pattern < UP_WS_COUNT; i++)
        s += p->locs[i].wait[pattern];
    return s;
}

uint32_t up_profile_match(const up_profile *a, uint32_t i, const up_profile *b)
{
    uint32_t parent, j;
    if (i >= a->ncpaths)
        return UP_CP_ROOT;
    parent = a->cpaths[i].parent == UP_CP_ROOT ? UP_CP_ROOT
                                                : up_profile_match(a, a->cpaths[i].parent, b);
    if (a->cpaths[i].parent != UP_CP_ROOT && parent == UP_CP_ROOT)
        return UP_CP_ROOT;
    for (j = 0; j < b->ncpaths; j++)
        if (b->cpaths[j].parent == parent && b->cpaths[j].region == a->cpaths[i].region)
            return j;
    return UP_CP_ROOT;
}
