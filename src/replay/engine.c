/*
 * engine.c - the replay engine (see src/replay/replay.h): its schedule, the
 * lower bounds of the locations' clocks, the table of record kinds, the loop.
 *
 * Place in the data flow: reader streams -> [engine + model] -> writer.
 * The engine owns the dependencies between locations (message queues,
 * collective instances, waiting and waking, deadlock release); the model owns
 * the formulas.  One location is advanced at a time; which one is decided by
 * a min-heap on the measured time of its next record.  The rules of each
 * concern are in the engine's other files (engine_int.h lists them).
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

/* A runnable location joins the schedule (room for every location is
 * reserved: it cannot fail). */
static void heap_push(engine *E, uint32_t loc, uint64_t key)
{
    up_heap_push(&E->heap, loc, key);
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

/* E->ch holds lower bounds of the clocks of the running locations, a
 * location possibly more than once: up_eng_claim_lagging() raises a stale bound
 * when it reaches the top and drops those of locations that no longer run.
 * A clock only goes down when a location stops deferring, which pushes its
 * new clock; make_runnable pushes too.  Out of memory, the heap is given up
 * (E->ch_off) and up_eng_claim_lagging() scans every location. */
static void ch_push(engine *E, uint32_t loc, uint64_t clock)
{
    if (!E->ch_off && !up_heap_push(&E->ch, loc, clock))
        E->ch_off = true;
}

/* A location runs again, or stopped deferring (its clock may have gone
 * down): its clock joins the heap.  Every running location once, when the
 * heap has grown past twice their number. */
void up_eng_ch_note(engine *E, uint32_t loc)
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
    up_eng_ch_note(E, li);
    return 0;
}

/* The object of `size` bytes that map m holds under (k0, k1); with create,
 * a zeroed one is made and put there if there is none.  NULL: none, or out
 * of memory. */
void *up_eng_map_obj(up_map *m, uint64_t k0, uint64_t k1, size_t size, bool create)
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

/* The counter of (k0, k1) in map m, made 0 when first asked for (NULL: out
 * of memory) */
uint64_t *up_eng_map_counter(up_map *m, uint64_t k0, uint64_t k1)
{
    uint64_t *v = up_map_get(m, k0, k1);
    if (!v && up_map_put(m, k0, k1, 0))
        v = up_map_get(m, k0, k1);
    return v;
}

/* Frees every object of map m (made by up_eng_map_obj), and the map */
void up_eng_map_free_objs(up_map *m)
{
    uint64_t k0, k1, v;
    size_t i;
    for (i = 0; i < m->cap; i++)
        if (up_map_at(m, i, &k0, &k1, &v))
            up_free((void *)(uintptr_t)v);
    up_map_free(m);
}

/* for the engine's other files (engine_int.h); its own calls stay static
 * and inlined */
int up_eng_make_runnable(engine *E, uint32_t li) { return make_runnable(E, li); }

/* Does this engine hold every member of comm (always, unless it is a part)? */
bool up_eng_comm_held(const engine *E, OTF2_CommRef comm)
{
    const up_comm_def *c = up_defs_comm(E->d, comm);
    uint32_t r, n;
    if (!E->part || !c || !c->resolved || c->self)
        return true;
    n = c->global_ranks ? c->world_size : c->size;
    for (r = 0; r < n; r++) {
        uint32_t j = c->global_ranks ? c->world[r] : c->members[r];
        if (j < E->n && !up_eng_holds(E, j))
            return false;
    }
    return true;
}

/* ---- lower bounds of the clocks: wildcards (the seam, docs/design.md) --------- */

/* A wildcard receive of location li on comm is decided in approximated
 * time (the virtual time of Li and Zhang): no member of comm that still
 * runs may send a message that would be chosen instead, i.e. each is past
 * `until` (its records only go forward).  Members waiting for a message or
 * a collective are not waited for: what they wait for may be this receive's
 * own reply.  true with *key the measured key to go behind (the first
 * lagging member's: the heap runs every smaller key first anyway).  Costs
 * one pass over the members per decision when none lags. */
bool up_eng_lagging(engine *E, uint32_t li, OTF2_CommRef comm, uint64_t until, uint64_t *key)
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
bool up_eng_claim_lagging(engine *E, uint32_t li, uint64_t until, const up_coll *c)
{
    bool mine = false, lag = false;
    if (c || E->ch_off)
        return claim_scan(E, li, until, c);
    while (E->ch.n) { /* the top made exact: then it is the smallest clock */
        up_hent top = E->ch.a[0];
        const rloc *J = &E->L[top.loc];
        uint64_t clock;
        if (J->state != S_RUN) {
            up_heap_pop(&E->ch);
            continue;
        }
        clock = claim_clock(J);
        if (clock > top.key) {
            up_heap_pop(&E->ch);
            ch_push(E, top.loc, clock);
            continue;
        }
        if (top.loc == li) { /* not waited for: set aside */
            up_heap_pop(&E->ch);
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


/* A CPU thread of a process (MPI from any thread: one of them may call MPI
 * for the process) */
static bool proc_thread(const up_loc_def *ld)
{
    return ld->kind == UP_LOC_CPU && ld->gkind == UP_GROUP_PROCESS &&
           ld->process != UP_NO_PROCESS;
}

/* rankof's key of process p, beside its locations' (< 2^32) */
#define PROC_KEY(p) ((uint64_t)1 << 32 | (p))

/* The rank of location li in communicator comm: 1 with *rank set, 0 when
 * li is no member (or the communicator is unknown or unusable), -1 out of
 * memory.  Every location is rank 0 of a self-like communicator
 * (MPI_COMM_SELF).  A definition that lists a location twice is unusable:
 * that location's rank is not known, and the communicator's size counts a
 * member that can never come; its records are timed as local ones.
 * MPI from any thread (docs/models.md): an MPI communicator's members are
 * its processes' master threads, and another CPU thread of a process calls
 * MPI as that process, so a thread that is no member itself has its
 * process's rank: when exactly one member belongs to its process.  A
 * communicator with two members in one process (a thread team's, a CUDA
 * context's with its streams) names locations, not processes: no one
 * stands in for another there. */
int up_eng_rank_of(engine *E, OTF2_CommRef comm, uint32_t li, uint32_t *rank)
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
        /* first use of this communicator: index all its members, and each
         * member's process (UINT64_MAX: it has two) */
        uint64_t bad = 0;
        for (r = 0; r < c->size; r++) {
            const up_loc_def *ld = &E->d->locs[c->members[r]];
            if (up_map_get(&E->rankof, comm, c->members[r]))
                bad = 1;
            else if (!up_map_put(&E->rankof, comm, c->members[r], r))
                return -1;
            if (ld->process == UP_NO_PROCESS)
                continue;
            if ((v = up_map_get(&E->rankof, comm, PROC_KEY(ld->process))))
                *v = UINT64_MAX;
            else if (!up_map_put(&E->rankof, comm, PROC_KEY(ld->process), r))
                return -1;
        }
        if (!up_map_put(&E->rankof, comm, UINT64_MAX, bad) ||
            !(v = up_map_get(&E->rankof, comm, UINT64_MAX)))
            return -1;
    }
    if (*v) /* unusable */
        return 0;
    v = up_map_get(&E->rankof, comm, li);
    if (!v && proc_thread(&E->d->locs[li]) &&
        (v = up_map_get(&E->rankof, comm, PROC_KEY(E->d->locs[li].process))) && *v == UINT64_MAX)
        v = NULL;
    if (!v)
        return 0;
    *rank = (uint32_t)*v;
    return 1;
}


/* claim_wait (engine_int.h) with the model's claims */
int up_eng_claim_wait(engine *E, uint32_t li, const up_event *ev, uint32_t peer, const up_msg *m,
                      const up_coll *c, bool direct)
{
    rloc *L = &E->L[li];
    uint64_t until;
    if (E->part) { /* every part's claims in order: granted when all is quiet (engine_seam.c) */
        if (L->claim_granted) {
            L->claim_granted = false;
            return STEP_OK;
        }
        until = E->ops->claim(E->model, li, &L->ls, ev, peer, m, c);
        if (until == UINT64_MAX)
            return STEP_OK;
        if (direct)
            return STEP_DECLINED;
        L->claim_until = until;
        L->wait = W_CLAIM;
        return STEP_BLOCKED;
    }
    if (L->claiming) { /* its clock goes back to its last record's */
        L->claiming = false;
        up_eng_ch_note(E, li);
    }
    until = E->ops->claim(E->model, li, &L->ls, ev, peer, m, c);
    if (until == UINT64_MAX || !up_eng_claim_lagging(E, li, until, c))
        return STEP_OK;
    if (direct)
        return STEP_DECLINED;
    L->claiming = true;
    L->defer_at = until;
    L->park_coll = c;
    return STEP_PARK;
}

/* ---- one record ------------------------------------------------------------ */

/* The tail of every record: keep the location monotonic, note the window
 * marks and statistics, update the location state, write the record
 * (attributes from `al` on the direct path, from the record otherwise). */

/* The observer's turn (E->obs_wait ran out): with obs.record, every
 * record, which it is given; else every 65536th (no callback at all: the
 * wait is 2^64 - 1, never), for obs.progress.  So each record costs the
 * observer one decrement and one branch, whatever it asked for. */
__attribute__((noinline)) static void observe(engine *E, const rloc *L, unsigned kind, uint64_t t_m,
                                               uint64_t t_a)
{
    if (!E->obs.record) {
        E->done += E->obs_step;
        E->obs_wait = E->obs_step;
    } else {
        E->obs.record(E->obs.ctx, (uint32_t)(L - E->L), kind, t_m, t_a);
        E->done++;
        E->obs_wait = 1;
    }
    if (E->obs.progress && (E->done & 0xFFFF) == 0)
        E->obs.progress(E->obs.ctx, E->done, E->total);
}

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
    if (--E->obs_wait == 0)
        observe(E, L, kind, t_m, t_a);
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

/* for engine_poll.c (engine_int.h) */
uint64_t up_eng_finish_times(engine *E, rloc *L, unsigned kind, uint64_t t_m, uint64_t t_a,
                             unsigned rflags, OTF2_RegionRef region)
{
    return finish_times(E, L, kind, t_m, t_a, rflags, region);
}

int up_eng_finish_record(engine *E, uint32_t li, up_event *ev, bool direct)
{
    return finish_record(E, li, ev, direct);
}

static int step_record(engine *E, uint32_t li);

/* The regions whose Enter or Leave depends on other locations of its
 * process (UP_REGION_THREAD_MASK, UP_REGION_DEV_MASK): E->slow by region id,
 * NULL when the trace has none (the direct paths then test nothing more) */
static up_status slow_init(engine *E)
{
    const up_defs *d = E->d;
    size_t i;
    for (i = 0; i < d->nregion_ids; i++) {
        const up_region_def *rg = up_defs_region(d, (OTF2_RegionRef)i);
        if (!rg || !(rg->flags & (UP_REGION_THREAD_MASK | UP_REGION_DEV_MASK)))
            continue;
        if (!E->slow && !(E->slow = up_calloc(d->nregion_ids, 1)))
            return UP_ERR(E->err, UP_ENOMEM, "out of memory");
        E->slow[i] = 1;
    }
    return UP_OK;
}

/* The Enter or Leave of a region whose timing depends on other locations
 * of its process (E->slow): an OpenMP construct or a pthread barrier
 * (engine_omp.c) or a device call (engine_dev.c).  STEP_DECLINED: a local
 * record after all. */
static int region_rule(engine *E, uint32_t li, up_event **evp)
{
    OTF2_RegionRef r = (*evp)->kind == UP_EV_Enter ? (*evp)->u.Enter.region : (*evp)->u.Leave.region;
    const up_region_def *rg;
    if (r >= E->d->nregion_ids || !E->slow[r] || !(rg = up_defs_region(E->d, r)))
        return STEP_DECLINED;
    set_rflags(E, *evp);
    if (rg->flags & UP_REGION_DEV_MASK)
        return up_eng_dev_host(E, li, evp, rg->flags);
    return up_eng_omp_region(E, li, evp, rg->flags);
}

/* ---- the record kinds ----------------------------------------------------------
 * One table drives both paths.  A kind's handler (engine_int.h, rec_fn) times
 * a record that depends on other locations; a kind without one is a local
 * record (eq. 1), or may end synchronous sends (sync_end: the Leave of a
 * blocking send's call, MpiIsendComplete; MpiRequestCancelled drops one).
 * On the direct path (up_stream_direct) a kind goes to its handler with
 * direct = true (DIRECT_TRY: it may decline, STEP_DECLINED, and the record
 * takes step()), is timed locally (DIRECT_LOCAL), or always takes step()
 * (DIRECT_NEVER: it reads ahead in its stream, or may wait).  To add a kind:
 * a line here and its handler in the file of its concern
 * (docs/design.md, "Where to add"). */
enum { DIRECT_LOCAL, DIRECT_TRY, DIRECT_NEVER };
typedef struct rec_kind {
    rec_fn fn;
    uint8_t direct;
    bool sync_end;
} rec_kind;

static const rec_kind REC[UP_EV_COUNT_] = {
    /* point-to-point (engine_p2p.c; re-matching in engine_wild.c) */
    [UP_EV_MpiSend] = {up_eng_send, DIRECT_TRY, false},
    [UP_EV_MpiIsend] = {up_eng_send, DIRECT_TRY, false},
    [UP_EV_MpiRecv] = {up_eng_recv, DIRECT_TRY, false},
    [UP_EV_MpiIrecv] = {up_eng_recv, DIRECT_TRY, false},
    [UP_EV_MpiIrecvRequest] = {up_eng_irecv_request, DIRECT_NEVER, false},
    [UP_EV_Leave] = {NULL, DIRECT_LOCAL, true},
    [UP_EV_MpiIsendComplete] = {NULL, DIRECT_LOCAL, true},
    [UP_EV_MpiRequestCancelled] = {NULL, DIRECT_LOCAL, true},
    /* collectives (engine_coll.c) */
    [UP_EV_MpiCollectiveBegin] = {up_eng_coll_begin, DIRECT_NEVER, false},
    [UP_EV_MpiCollectiveEnd] = {up_eng_coll_end, DIRECT_NEVER, false},
    [UP_EV_RmaCollectiveBegin] = {up_eng_coll_begin, DIRECT_NEVER, false},
    [UP_EV_RmaCollectiveEnd] = {up_eng_coll_end, DIRECT_NEVER, false},
    [UP_EV_NonBlockingCollectiveRequest] = {up_eng_nbc_request, DIRECT_NEVER, false},
    [UP_EV_NonBlockingCollectiveComplete] = {up_eng_nbc_complete, DIRECT_NEVER, false},
    /* RMA (engine_rma.c) */
    [UP_EV_RmaGroupSync] = {up_eng_group_sync, DIRECT_NEVER, false},
    [UP_EV_RmaRequestLock] = {up_eng_lock, DIRECT_NEVER, false},
    [UP_EV_RmaAcquireLock] = {up_eng_lock, DIRECT_NEVER, false},
    [UP_EV_RmaTryLock] = {up_eng_lock, DIRECT_NEVER, false},
    [UP_EV_RmaReleaseLock] = {up_eng_unlock, DIRECT_NEVER, false},
    /* threads (engine_threads.c) */
    [UP_EV_ThreadFork] = {up_eng_fork, DIRECT_NEVER, false},
    [UP_EV_ThreadTeamBegin] = {up_eng_team, DIRECT_NEVER, false},
    [UP_EV_ThreadTeamEnd] = {up_eng_team, DIRECT_NEVER, false},
    [UP_EV_ThreadJoin] = {up_eng_join, DIRECT_NEVER, false},
    /* POSIX threads (engine_pthr.c) */
    [UP_EV_ThreadCreate] = {up_eng_pthr, DIRECT_NEVER, false},
    [UP_EV_ThreadBegin] = {up_eng_pthr, DIRECT_NEVER, false},
    [UP_EV_ThreadWait] = {up_eng_pthr, DIRECT_NEVER, false},
    [UP_EV_ThreadEnd] = {up_eng_pthr, DIRECT_NEVER, false},
    /* OpenMP locks (and pthread mutexes) and tasks (engine_omp.c) */
    [UP_EV_ThreadAcquireLock] = {up_eng_omp_lock, DIRECT_NEVER, false},
    [UP_EV_ThreadReleaseLock] = {up_eng_omp_lock, DIRECT_NEVER, false},
    [UP_EV_OmpAcquireLock] = {up_eng_omp_lock, DIRECT_NEVER, false},
    [UP_EV_OmpReleaseLock] = {up_eng_omp_lock, DIRECT_NEVER, false},
    [UP_EV_ThreadTaskCreate] = {up_eng_omp_task, DIRECT_NEVER, false},
    [UP_EV_ThreadTaskSwitch] = {up_eng_omp_task, DIRECT_NEVER, false},
    [UP_EV_ThreadTaskComplete] = {up_eng_omp_task, DIRECT_NEVER, false},
};

/* One buffered record (the slow path: lookahead, waiting). */
static int step(engine *E, uint32_t li)
{
    rloc *L = &E->L[li];
    uint64_t prev_m = L->ls.prev_m, prev_a = L->ls.prev_a;
    int64_t body_d = L->body_d;
    up_event *ev;
    int r;

    if (L->body == BODY_PENDING) { /* its moved work is asked for (engine_seam.c) */
        L->wait = W_BODY;
        return STEP_BLOCKED;
    }
    if (L->body != BODY_ON)
        return step_record(E, li);
    if (up_stream_peek(L->s, 0, &ev, E->err) != UP_OK)
        return STEP_ERROR;
    if (ev)
        up_eng_body_adjust(L, ev);
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
    if ((L->dev & DEVL_TWAIT) && (r = up_eng_dev_twait(E, li, ev)) != STEP_OK)
        return r; /* a host in a target region waits for its device (engine_dev.c) */
    /* (up_eng_poll_step changes nothing for a record that is not an Enter outside a spin) */
    if (E->spin_gap && (L->spin_left || L->spin_last || L->spin_on || ev->kind == UP_EV_Enter)) {
        r = up_eng_poll_step(E, li, &ev, &mark, &start);
        if (r == STEP_ERROR)
            return r;
        if (r == STEP_OK)
            goto timed;
    }
    if (L->dev & DEVL_STREAM) { /* an accelerator stream: every record (engine_dev.c) */
        r = up_eng_dev_record(E, li, &ev);
    } else if (REC[ev->kind].fn) {
        r = REC[ev->kind].fn(E, li, &ev, false);
    } else if (E->slow && (ev->kind == UP_EV_Enter || ev->kind == UP_EV_Leave) &&
               (r = region_rule(E, li, &ev)) != STEP_DECLINED) {
        ; /* a thread's or a device's call */
    } else { /* a local record, or the end of synchronous sends */
        set_rflags(E, ev);
        r = L->nsync ? up_eng_sync_end(E, li, ev) : STEP_DECLINED;
        if (r == STEP_DECLINED) {
            E->ops->local(E->model, li, &L->ls, ev);
            r = STEP_OK;
        }
    }
    if (r != STEP_OK)
        return r;
    L->wait = W_NONE;
timed:
    if (L->tw_apply)
        up_eng_dev_twait_end(E, li, ev);
    if (L->hold_now)
        r = up_eng_hold(E, li, ev);
    else {
        if (L->nheld && up_eng_held_flush(E, li, ev, false) != STEP_OK)
            return STEP_ERROR;
        r = mark ? up_eng_finish_marked(E, li, ev, mark) : finish_record(E, li, ev, false);
        if (start)
            L->ls.spin_a = ev->t_out;
    }
    if (r != STEP_OK)
        return r;
    if (L->body)
        up_eng_body_after(E, li, L, ev);
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
    const rec_kind *k;
    if (L->polling || L->body || L->dev || (ev->kind == UP_EV_Enter &&
                       (up_defs_region_flags(E->d, ev->u.Enter.region) & E->poll_flag)))
        return 0; /* polling, a moved task's work, a device: step() */
    if (E->slow && (ev->kind == UP_EV_Enter || ev->kind == UP_EV_Leave)) {
        OTF2_RegionRef r = ev->kind == UP_EV_Enter ? ev->u.Enter.region : ev->u.Leave.region;
        if (r >= E->d->nregion_ids || E->slow[r])
            return 0; /* a thread's or device's call: step() */
    }
    k = &REC[ev->kind];
    if (k->direct == DIRECT_NEVER)
        return 0;
    if (k->fn) {
        switch (k->fn(E, li, &ev, true)) {
        case STEP_OK:
            break;
        case STEP_DECLINED: /* it needs step(): a message to wait for, a claim */
            return 0;
        default:
            return -1;
        }
    } else {
        if (L->nsync && k->sync_end)
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
    if ((rflags & E->poll_flag) | L->polling | (L->body != BODY_NONE) | L->dev)
        return 0; /* polling, a moved task's work, a device: step() */
    if (E->slow && E->slow[region])
        return 0; /* a thread's or a device's call: step() */
    *t_out = finish_times(E, L, kind, t_m, E->ops->region(E->model, li, &L->ls, kind, t_m, rflags),
                          rflags, region);
    return 1;
}

/* ---- the loop ---------------------------------------------------------------- */

/* Every unfinished location waits: the one whose waiting record has the
 * earliest measured time (then the lowest index) is released.  *best is
 * UINT32_MAX when none waits with a record.  -1: a read failed. */
int up_eng_release_pick(engine *E, uint32_t *best, uint64_t *best_t)
{
    size_t i;
    *best = UINT32_MAX;
    *best_t = UINT64_MAX;
    for (i = 0; i < E->n; i++) {
        up_event *ev;
        if (E->L[i].state != S_WAIT)
            continue;
        if (up_stream_peek(E->L[i].s, 0, &ev, E->err) != UP_OK)
            return -1;
        if (ev && (*best == UINT32_MAX || ev->time < *best_t)) {
            *best = (uint32_t)i;
            *best_t = ev->time;
        }
    }
    return 0;
}

/* Releases waiting location li: its record goes on without what it waits for */
int up_eng_release(engine *E, uint32_t li)
{
    if (E->L[li].wait == W_MSG) {
        msgq *q = up_eng_queue_get(E, E->L[li].wk0, E->L[li].wk1, false);
        /* (the group of the receiving member of the key: li, or its
         * process's, MPI from any thread) */
        mgroup *g = up_eng_group_get(E, (uint32_t)E->L[li].wk0, (OTF2_CommRef)(E->L[li].wk1 >> 32),
                                     false);
        if (q)
            q->waiting = false;
        if (g)
            g->waiting = false;
    }
    E->L[li].force = true;
    return make_runnable(E, li);
}

static int release_one(engine *E)
{
    uint32_t best;
    uint64_t best_t;
    if (up_eng_release_pick(E, &best, &best_t) != 0)
        return -1;
    if (best == UINT32_MAX) {
        UP_ERR(E->err, UP_EINTERNAL, "replay stalled with no waiting record");
        return -1;
    }
    return up_eng_release(E, best);
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
        up_hent top = E->cw.a[0];
        rloc *L = &E->L[top.loc];
        if (up_eng_claim_lagging(E, top.loc, top.key, L->park_coll))
            return;
        up_heap_pop(&E->cw);
        heap_push(E, top.loc, next_key(E, L));
    }
}

int up_eng_run(engine *E)
{
    for (;;) {
        uint32_t li;
        rloc *L;
        size_t slice = 0;
        if (E->cw.n)
            cw_wake(E);
        if (E->heap.n == 0 && E->cw.n) {
            UP_ERR(E->err, UP_EINTERNAL, "replay stalled with a parked claim");
            return -1;
        }
        if (E->heap.n == 0) {
            if (E->nwait == 0 || E->part)
                return 0; /* (a part of a partitioned replay: its driver decides) */
            if (release_one(E) != 0)
                return -1;
            continue;
        }
        li = up_heap_pop(&E->heap).loc;
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
                if (!up_heap_push(&E->cw, li, L->defer_at)) {
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
                if (L->nheld && up_eng_held_flush(E, li, NULL, true) != STEP_OK)
                    return -1;
                if (E->part && up_eng_x_end(E, li) != STEP_OK)
                    return -1; /* the other parts' instances stop waiting for it */
                L->state = S_DONE;
                if (E->nds)
                    up_eng_dev_ended(E, li); /* its stream or its host goes on */
                if (E->ndrained)
                    up_eng_coll_sweep(E);
                while (L->npend) /* no Leave followed: exit.send_m = send_m */
                    L->pend[--L->npend]->exit_known = true;
                while (L->nsync) /* their calls never ended */
                    up_eng_sync_drop(L, L->nsync - 1);
                break;
            }
            if (slice >= sched_slice && E->heap.n) {
                uint64_t key = next_key(E, L);
                if (key > E->heap.a[0].key) {
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
    if (E->released)
        return;
    E->released = true;
    up_eng_p2p_free(E, count);
    up_eng_threads_free(E);
    up_eng_wild_free(E);
    up_eng_rma_free(E);
    up_eng_coll_free(E, count);
}

void up_eng_leftovers(engine *E, bool count) { release_leftovers(E, count); }

/* Records read from location i (by the part that holds it) */
static uint64_t loc_records(const engine *E, size_t i)
{
    return E->L[i].away ? E->L[i].away_records : up_stream_records(E->L[i].s);
}

up_status up_eng_finish(engine *E, up_replay_result *res)
{
    size_t i;
    bool any_init = false, any_fin = false;

    res->locs = up_calloc(E->n, sizeof *res->locs);
    res->nlocs = E->n;
    if (!res->locs)
        return UP_ERR(E->err, UP_ENOMEM, "out of memory");
    release_leftovers(E, true);

    res->resolution = E->d->resolution;
    res->t_min_a = UINT64_MAX;
    res->t_max_a = 0;
    for (i = 0; i < E->n; i++) {
        rloc *L = &E->L[i];
        res->events += loc_records(E, i);
        if (L->ls.started && L->first_a < res->t_min_a)
            res->t_min_a = L->first_a;
        if (L->ls.started && L->ls.prev_a > res->t_max_a)
            res->t_max_a = L->ls.prev_a; /* output times never decrease */
    }
    if (res->t_min_a == UINT64_MAX)
        res->t_min_a = 0;
    res->unknown_records = up_trace_unknown_records(E->in) + E->away_unknown;
    for (i = 0; i < E->n; i++) { /* timestamps the reader repaired (trace.h) */
        uint64_t fix[3];
        if (E->L[i].away)
            memcpy(fix, E->L[i].away_fix, sizeof fix);
        else
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
        lr->records = loc_records(E, i);
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
    up_eng_counts(E, res);
    return UP_OK;
}

/* What E, its model and its writer counted, added to res: the one way
 * repairs reach a result (every part's, in a partitioned replay) */
void up_eng_counts(const engine *E, up_replay_result *res)
{
    size_t i;
    for (i = 0; i < UP_REPAIR_COUNT; i++)
        res->repairs[i] += E->repairs[i];
    res->moved += E->repairs[UP_REPAIR_output_clamped];
    if (E->ops->engine_repairs) {
        const uint64_t *er = E->ops->engine_repairs(E->model);
        for (i = 0; i < UP_REPAIR_COUNT; i++)
            res->repairs[i] += er[i];
    }
    res->model_kinds = E->ops->repair_kinds;
    res->nmodel_kinds = E->ops->nrepair_kinds;
    if (E->ops->repairs) {
        const uint64_t *mr = E->ops->repairs(E->model);
        for (i = 0; i < E->ops->nrepair_kinds; i++)
            res->model_repairs[i] += mr[i];
    }
    if (E->out)
        res->repairs[UP_REPAIR_output_clamped] += up_writer_clamped(E->out);
    if (E->ops->max_shift) {
        uint64_t moved, s = E->ops->max_shift(E->model, &moved);
        res->moved += moved;
        if (s > res->max_shift)
            res->max_shift = s;
    }
}

/* Sets up engine E over trace `in` for the locations it holds (owner NULL:
 * every location; else those with owner[l] == self, the others away).
 * Returns UP_OK, or an error in E->err (up_eng_free cleans up either way). */
up_status up_eng_init(engine *E, up_trace *in, up_writer *out, const up_model_ops *ops,
                      void *model, const up_replay_observer *obs, const uint32_t *owner,
                      uint32_t self, up_err *err)
{
    size_t i;
    memset(E, 0, sizeof *E);
    if (obs)
        E->obs = *obs;
    /* (observe) */
    E->obs_step = E->obs.progress ? 0x10000 : UINT64_MAX;
    E->obs_wait = E->obs.record ? 1 : E->obs_step;
    E->in = in;
    E->out = out;
    E->d = up_trace_defs(in);
    E->ops = ops;
    E->model = model;
    E->n = E->d->nlocs;
    E->err = err;
    E->owner = owner;
    E->self = self;
    E->part = owner != NULL;
    E->sweep_at = SWEEP_MIN;
    if (ops->nrepair_kinds > UP_MODEL_REPAIRS_MAX)
        return UP_ERR(err, UP_EINTERNAL, "model %s: more than %d kinds of repair", ops->name,
                      UP_MODEL_REPAIRS_MAX);
    up_map_init(&E->msgq);
    up_map_init(&E->colls);
    up_map_init(&E->rankof);
    up_map_init(&E->teams);
    up_map_init(&E->groups);
    up_map_init(&E->chans);
    up_map_init(&E->bodies);
    up_map_init(&E->toks);
    up_map_init(&E->epochs);
    up_map_init(&E->locks);
    up_map_init(&E->xseq);
    E->wild = ops->wildcard ? ops->wildcard(model) : UP_WILDCARD_PRESERVE;
    if (E->wild == UP_WILDCARD_AUTO) /* fifo where the tracer marked the wildcards */
        E->wild = E->d->has_wildcard_attr ? UP_WILDCARD_FIFO : UP_WILDCARD_PRESERVE;
    E->follow = ops->replies && ops->replies(model) == UP_REPLIES_FOLLOW;
    E->eager = ops->eager_limit ? ops->eager_limit(model) : UINT64_MAX;
    E->prog = ops->sync_progress && ops->sync_progress(model);
    E->spin_gap = ops->spin_gap ? ops->spin_gap(model) : 0;
    E->spin_pause = up_ticks_round(SPIN_PAUSE_NS * (double)E->d->resolution / 1e9);
    if (E->spin_pause < E->spin_gap)
        E->spin_pause = E->spin_gap;
    E->poll_flag = E->spin_gap ? UP_REGION_POLL : 0;
    E->L = up_calloc(E->n, sizeof *E->L);
    E->heap.flip = sched_reverse ? UINT32_MAX : 0;
    (void)up_heap_reserve(&E->heap, E->n ? E->n : 1); /* failed: heap.a stays NULL */
    E->seen = up_calloc(E->n ? E->n : 1, sizeof *E->seen);
    if (!E->L || !E->heap.a || !E->seen)
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    if (E->part && up_eng_seam_init(E) != UP_OK)
        return err->status;
    if (slow_init(E) != UP_OK || up_eng_dev_init(E) != UP_OK || up_eng_mates_init(E) != UP_OK)
        return err->status;
    up_eng_omp_init(E);
    up_eng_pthr_init(E);
    for (i = 0; i < E->n; i++)
        if (up_eng_holds(E, (uint32_t)i))
            E->total += E->d->locs[i].nevents;
    for (i = 0; i < E->n; i++) {
        E->L[i].s = up_trace_stream(in, i);
        if (!up_eng_holds(E, (uint32_t)i)) { /* another part's: never runs here */
            E->L[i].state = S_DONE;
            E->L[i].away = true;
            continue;
        }
        E->L[i].state = S_WAIT; /* make_runnable counts it out again */
        E->nwait++;
        if (make_runnable(E, (uint32_t)i) != 0)
            return err->status;
    }
    return UP_OK;
}

/* Frees what up_eng_init and the replay made (after a failed replay, with
 * what it left queued) */
void up_eng_free(engine *E, bool failed)
{
    size_t i;
    if (failed)
        release_leftovers(E, false);
    while (E->free_msgs) {
        up_msg *m = E->free_msgs;
        E->free_msgs = m->next;
        up_free(m);
    }
    if (E->L)
        for (i = 0; i < E->n; i++) {
            while (E->L[i].nsync)
                up_eng_sync_drop(&E->L[i], E->L[i].nsync - 1);
            up_free(E->L[i].syncs);
            up_free(E->L[i].pend);
            up_free(E->L[i].held);
            up_free(E->L[i].pr);
            up_map_free(&E->L[i].collseq);
            up_map_free(&E->L[i].nbc);
            up_map_free(&E->L[i].nbpend);
            up_map_free(&E->L[i].teamseq);
        }
    up_map_free(&E->msgq);
    up_map_free(&E->colls);
    up_map_free(&E->rankof);
    up_map_free(&E->teams);
    up_map_free(&E->xseq);
    up_eng_seam_free(E);
    up_eng_dev_free(E);
    up_free(E->slow);
    up_free(E->L);
    up_heap_free(&E->heap);
    up_heap_free(&E->ch);
    up_heap_free(&E->cw);
    up_free(E->seen);
}

up_status up_replay_run(up_trace *in, up_writer *out, const up_model_ops *ops, void *model,
                        const up_replay_observer *obs, up_replay_result *res, up_err *err)
{
    engine E;
    up_status st;
    up_err local_err;

    memset(res, 0, sizeof *res);
    if (!err)
        err = &local_err;
    st = up_eng_init(&E, in, out, ops, model, obs, NULL, 0, err);
    if (st == UP_OK && up_eng_run(&E) != 0)
        st = err->status;
    if (st == UP_OK)
        st = up_eng_finish(&E, res);
    up_eng_free(&E, st != UP_OK);
    return st;
}

void up_replay_result_free(up_replay_result *res)
{
    up_free(res->locs);
    res->locs = NULL;
    res->nlocs = 0;
}

