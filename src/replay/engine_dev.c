/*
 * engine_dev.c - the replay engine's device rules (engine_int.h;
 * docs/models.md, "Devices"): an accelerator stream's activities follow the
 * host that drives them.
 *
 * A device's records are written by its runtime from the device's own
 * clock, never delayed by the tracer; what moves them is the host: a kernel
 * cannot start before the host launched it, and a host call that waits for
 * the device (a blocking copy, a synchronisation) cannot return before what
 * it waits for ended.  So no record of a stream is charged an overhead, and
 * the rules are:
 *
 *   pairing   the host's issues to a stream (the Enter of a launch call,
 *             whose CUDA_STREAM_REF names the stream; the Enter of a copy
 *             call, on its process's only stream) are numbered in order,
 *             and so are the stream's activities (a kernel: an Enter at
 *             depth 0 until its Leave; a copy: an RmaGet or RmaPut until its
 *             RmaOpCompleteBlocking; Score-P's RmaGet copies host to device,
 *             RmaPut device to host).  An activity takes the oldest issue of
 *             its kind (a copy call named HtoD pairs with an RmaGet, DtoH
 *             with an RmaPut, another with either); issues before it have lost their
 *             activity (Score-P drops kernels from full activity buffers) and
 *             are dropped, counted (dev_issue_unpaired): a copy re-aligns
 *             the kernels.
 *   start     a paired activity starts at
 *                 max(issue_a + dev_time(LAT, start_m - (issue_m + O)),
 *                     end_a of the stream's previous activity),
 *             the call reaching the device after its Enter's overhead O;
 *             one issued while the stream was busy (issue_m < end_m of the
 *             previous activity <= start_m) waited for it, and starts at
 *                 max(prev_end_a + (start_m - prev_end_m), issue_a).
 *             A start measured before its issue is the device's clock
 *             running ahead of the host's (Score-P converts CUPTI's
 *             timestamps; casita-2_jacobi_blame_cpu_015's run several
 *             microseconds ahead): that lead is kept as measured, never
 *             grown.  Clipping it to 0 delays each such activity by the
 *             skew, and the host's waits inherit it: +0.93 % on that trace
 *             at 100 ns per record, where compensation must shorten it;
 *   duration  it keeps its measured duration (dev_time(DUR, d): simulate
 *             scales it with the accelerator's speed);
 *   waits     a host call that waits for issue q of a stream ends at
 *                 max(t_local - w_m, end_a(q) - max(0, end_m(q) - leave_m) + r_m)
 *             where t_local is the model's local time of its Leave, w_m the
 *             measured time it waited (clamp(end_m, enter_m, leave_m) -
 *             enter_m) and r_m its measured return latency (leave_m -
 *             end_m when the activity ended inside the call, else 0): a wait
 *             can shrink as well as grow.  An end measured after the call
 *             returned is clock skew, and is taken as the call's end.
 *   others    a stream's records outside an activity (RmaWinCreate, ...)
 *             take the shift of the host's next issue, or of the last paired
 *             activity when no issue comes any more.
 *   target    OpenMP offloading (Score-P's offload adapter) names the
 *             pairing by region: the host's outermost Enter of a target
 *             region issues a copy to every stream of its process, and the
 *             stream whose depth-0 Enter is that region takes it (the
 *             others drop theirs, uncounted); the host's records inside wait
 *             for the device's end, and the first measured at or after it
 *             (or the region's Leave) is timed as a host wait
 *             (up_eng_dev_twait_end).
 * An activity with no issue left once the host ended is kept at the
 * stream's last shift (dev_activity_unpaired); a host call released from a
 * wait the stream never answers is timed locally (dev_wait_released).
 */
#include <string.h>

#include "replay/engine_int.h"

#define NONE UINT32_MAX

/* The stream index of location l, or NONE */
static uint32_t stream_of_loc(const engine *E, uint32_t l)
{
    return l < E->n && E->dsof ? E->dsof[l] : NONE;
}

/* ---- set-up ------------------------------------------------------------------- */

/* Streams, their hosts and whether copies pair on them: one pass over the
 * locations for each process's first CPU thread and its streams */
up_status up_eng_dev_init(engine *E)
{
    const up_defs *d = E->d;
    uint32_t *host = NULL, *nstreams = NULL;
    size_t i, j;
    for (i = 0; i < d->nlocs; i++)
        E->nds += d->locs[i].kind == UP_LOC_ACCELERATOR;
    if (!E->nds)
        return UP_OK;
    E->has_stream_attr = up_defs_attr(d, "CUDA_STREAM_REF", OTF2_TYPE_LOCATION, &E->stream_attr);
    if (!(E->ds = up_calloc(E->nds, sizeof *E->ds)) ||
        !(E->dsof = up_calloc(d->nlocs, sizeof *E->dsof)) ||
        !(host = up_malloc((d->nprocs ? d->nprocs : 1) * sizeof *host)) ||
        !(nstreams = up_calloc(d->nprocs ? d->nprocs : 1, sizeof *nstreams))) {
        up_free(host);
        return UP_ERR(E->err, UP_ENOMEM, "out of memory");
    }
    for (i = 0; i < d->nprocs; i++)
        host[i] = NONE;
    for (i = d->nlocs; i-- > 0;) { /* downwards: the first CPU thread stays */
        uint32_t p = d->locs[i].process;
        if (p >= d->nprocs)
            continue;
        if (d->locs[i].kind == UP_LOC_CPU)
            host[p] = (uint32_t)i;
        else if (d->locs[i].kind == UP_LOC_ACCELERATOR)
            nstreams[p]++;
    }
    for (i = 0, j = 0; i < d->nlocs; i++) {
        uint32_t p = d->locs[i].process;
        E->dsof[i] = NONE;
        if (d->locs[i].kind != UP_LOC_ACCELERATOR)
            continue;
        E->ds[j].loc = (uint32_t)i;
        E->ds[j].host = p < d->nprocs ? host[p] : NONE;
        E->ds[j].copies = p < d->nprocs && nstreams[p] == 1; /* a process's only stream */
        E->dsof[i] = (uint32_t)j++;
        E->L[i].dev = DEVL_STREAM;
    }
    up_free(host);
    up_free(nstreams);
    return UP_OK;
}

void up_eng_dev_free(engine *E)
{
    uint32_t s;
    for (s = 0; s < E->nds; s++)
        up_free(E->ds[s].q);
    up_free(E->ds);
    up_free(E->dsof);
    E->ds = NULL, E->dsof = NULL;
    E->nds = 0;
}

static int drop_head(engine *E, uint32_t s);

/* Is region r an OpenMP target construct? */
static bool is_target(const engine *E, OTF2_RegionRef r)
{
    const up_region_def *rg = up_defs_region(E->d, r);
    return rg && (rg->flags & UP_REGION_DEV_TARGET);
}

/* ---- the host's side ---------------------------------------------------------- */

/* Hosts waiting for the device look again (dev_waits: some may wait) */
static void wake_hosts(engine *E)
{
    size_t i;
    if (!E->dev_waits)
        return;
    E->dev_waits = 0;
    for (i = 0; i < E->n; i++)
        if (E->L[i].state == S_WAIT && E->L[i].wait == W_DEV &&
            !(E->L[i].dev & DEVL_STREAM))
            up_eng_make_runnable(E, (uint32_t)i);
}

/* The activity of issue `seq` of stream s ended (has_end, at m, a) or was
 * dropped: here (the host's side), or crossed from the stream's part */
void up_eng_dev_done(engine *E, uint32_t s, uint64_t seq, bool has_end, uint64_t m, uint64_t a)
{
    dstream *ds = &E->ds[s];
    if (seq + 1 > ds->done)
        ds->done = seq + 1;
    if (has_end) {
        dev_end *e = &ds->ends[seq % DEV_ENDS];
        e->seq = seq, e->m = m, e->a = a, e->valid = true;
    }
    wake_hosts(E);
}

/* (the stream's side) tells the host's side */
static int done(engine *E, uint32_t s, uint64_t seq, bool has_end, uint64_t m, uint64_t a)
{
    const dstream *ds = &E->ds[s];
    if (ds->host == NONE || up_eng_holds(E, ds->host)) {
        up_eng_dev_done(E, s, seq, has_end, m, a);
        return STEP_OK;
    }
    return up_eng_x_dev_done(E, s, seq, has_end, m, a);
}

/* The stream a launch or copy call of host li issues to: the one its
 * CUDA_STREAM_REF names, else (a copy: Score-P names no stream on copy
 * calls) its process's only stream; NONE: none known */
static uint32_t issue_stream(const engine *E, uint32_t li, const up_event *ev)
{
    uint32_t i, s;
    if (E->has_stream_attr)
        for (i = 0; i < ev->nattrs; i++)
            if (ev->attrs[i].id == E->stream_attr) {
                uint32_t l;
                if (up_defs_loc_index(E->d, ev->attrs[i].value.locationRef, &l) &&
                    (s = stream_of_loc(E, l)) != NONE)
                    return s;
            }
    for (s = 0; s < E->nds; s++)
        if (E->d->locs[E->ds[s].loc].process == E->d->locs[li].process &&
            E->d->locs[li].process != UP_NO_PROCESS && E->ds[s].copies)
            return s;
    return NONE;
}

/* A device call of li waits for every stream of its process, as issued so
 * far (a synchronisation; a blocking copy on a process with several
 * streams: CUDA's legacy default stream waits for all of them) */
static int wait_all(engine *E, uint32_t li)
{
    rloc *L = &E->L[li];
    uint32_t s;
    for (s = 0; s < E->nds && L->dw_n < DEV_WAIT_MAX; s++)
        if (E->d->locs[li].process != UP_NO_PROCESS &&
            E->d->locs[E->ds[s].loc].process == E->d->locs[li].process && E->ds[s].issued) {
            if (!up_eng_holds(E, E->ds[s].loc) && li != E->ds[s].host)
                return up_eng_x_outside(E, "a device synchronisation by a thread other than "
                                           "its stream's host");
            L->dw_s[L->dw_n] = s;
            L->dw_q[L->dw_n++] = E->ds[s].issued - 1;
        }
    return STEP_OK;
}

/* (the stream's side) issue *is reaches stream s: queued, the stream woken */
int up_eng_dev_issued(engine *E, uint32_t s, const dev_issue *is)
{
    dstream *ds = &E->ds[s];
    rloc *L = &E->L[ds->loc];
    /* target copies for regions the stream never runs: the oldest go */
    while (is->kind == DK_TARGET && ds->qn >= DEV_TARGET_MAX && ds->q[ds->qpos].kind == DK_TARGET)
        if (drop_head(E, s) != STEP_OK)
            return STEP_ERROR;
    if (ds->qn == ds->qcap) { /* grow the ring, oldest first again */
        size_t cap = ds->qcap ? 2 * ds->qcap : 16, k;
        dev_issue *q = up_malloc(cap * sizeof *q);
        if (!q) {
            UP_ERR(E->err, UP_ENOMEM, "out of memory for a device's work");
            return STEP_ERROR;
        }
        for (k = 0; k < ds->qn; k++)
            q[k] = ds->q[(ds->qpos + k) % ds->qcap];
        up_free(ds->q);
        ds->q = q, ds->qcap = cap, ds->qpos = 0;
    }
    ds->q[(ds->qpos + ds->qn++) % ds->qcap] = *is;
    if (L->state == S_WAIT && L->wait == W_DEV)
        up_eng_make_runnable(E, ds->loc);
    return STEP_OK;
}

static int issue(engine *E, uint32_t li, uint32_t s, uint8_t kind, uint32_t region,
                 const up_event *ev)
{
    dstream *ds = &E->ds[s];
    dev_issue is;
    memset(&is, 0, sizeof is);
    is.seq = ds->issued++;
    is.region = region;
    is.m = ev->time;
    /* the call reaches the device after its Enter record's overhead: the
     * measured latency to the activity holds it, the approximated not */
    is.o = up_eng_rec_ovh(E, li, ev);
    is.a = ev->t_out;
    is.kind = kind;
    if (up_eng_holds(E, ds->loc))
        return up_eng_dev_issued(E, s, &is);
    if (li != ds->host) /* only the host's issues cross, in its order */
        return up_eng_x_outside(E, "a device call from a thread other than its stream's host");
    return up_eng_x_dev_issue(E, li, s, &is);
}

/* The outermost Enter of an OpenMP target region on CPU location li: a copy
 * of the issue to every stream of its process (the one that runs the region
 * takes it), and li waits for it (up_eng_dev_twait) */
static int target_issue(engine *E, uint32_t li, const up_event *ev)
{
    rloc *L = &E->L[li];
    uint32_t s, p = E->d->locs[li].process;
    for (s = 0; s < E->nds && L->dw_n < DEV_WAIT_MAX && p != UP_NO_PROCESS; s++) {
        if (E->d->locs[E->ds[s].loc].process != p)
            continue;
        if (issue(E, li, s, DK_TARGET, ev->u.Enter.region, ev) != STEP_OK)
            return STEP_ERROR;
        L->dw_s[L->dw_n] = s;
        L->dw_q[L->dw_n++] = E->ds[s].issued - 1;
    }
    L->tw_apply = false;
    if (L->dw_n)
        L->dev |= DEVL_TWAIT;
    return STEP_OK;
}

/* A record of host li while its target region waits for the device (before
 * it is timed): it waits until the stream that ran the region ended it; the
 * first record measured at or after that end, or the region's Leave, ends
 * the wait (up_eng_dev_twait_end) */
int up_eng_dev_twait(engine *E, uint32_t li, const up_event *ev)
{
    rloc *L = &E->L[li];
    bool last = ev->kind == UP_EV_Leave && L->dev_depth == 1 && is_target(E, ev->u.Leave.region);
    bool open = false;
    uint32_t i;
    L->tw_apply = false;
    for (i = 0; i < L->dw_n; i++) {
        const dstream *ds = &E->ds[L->dw_s[i]];
        const dev_end *e = &ds->ends[L->dw_q[i] % DEV_ENDS];
        if (e->valid && e->seq == L->dw_q[i]) { /* the stream that ran it */
            if (ev->time < e->m && !last)
                return STEP_OK; /* still running in the measured run */
            L->tw_apply = true;
            L->tw_end_m = e->m, L->tw_end_a = e->a;
            L->tw_prev_m = L->ls.prev_m, L->tw_prev_a = L->ls.prev_a;
            return STEP_OK;
        }
        if (ds->done <= L->dw_q[i] && up_eng_may_come(E, ds->loc))
            open = true;
    }
    if (open && !L->force) {
        L->wait = W_DEV;
        E->dev_waits++;
        return STEP_BLOCKED;
    }
    if (open) { /* the stream never answers: timed locally */
        L->force = false;
        E->repairs[UP_REPAIR_dev_wait_released]++;
    } else { /* no stream ran it */
        E->repairs[UP_REPAIR_dev_issue_unpaired]++;
    }
    L->dev &= (uint8_t)~DEVL_TWAIT;
    L->dw_n = 0;
    return STEP_OK;
}

/* ... the record that ends the wait, timed as a host wait (the header):
 *     max(t_local - w_m, end_a - max(0, end_m - t_m) + (t_m - end_m))
 * with w_m the part of its measured gap before the device's end */
void up_eng_dev_twait_end(engine *E, uint32_t li, up_event *ev)
{
    rloc *L = &E->L[li];
    uint64_t em = L->tw_end_m, w, t_nowait, t_dev;
    (void)E;
    w = em <= L->tw_prev_m ? 0 : (em < ev->time ? em : ev->time) - L->tw_prev_m;
    t_nowait = sub0(ev->t_out, w);
    if (t_nowait < L->tw_prev_a)
        t_nowait = L->tw_prev_a;
    t_dev = sub0(L->tw_end_a, sub0(em, ev->time)) + sub0(ev->time, em);
    ev->t_out = t_dev > t_nowait ? t_dev : t_nowait;
    L->tw_apply = false;
    L->dev &= (uint8_t)~DEVL_TWAIT;
    L->dw_n = 0;
}

/* The Enter or Leave of a device call (region flags fl) on CPU location li */
int up_eng_dev_host(engine *E, uint32_t li, up_event **evp, unsigned fl)
{
    up_event *ev = *evp;
    rloc *L = &E->L[li];
    uint64_t wait_m = 0, target = 0, t_nowait;
    bool any = false;
    uint32_t i;

    if (ev->kind == UP_EV_Enter) {
        E->ops->local(E->model, li, &L->ls, ev);
        if (L->dev_depth++) /* inside another device call: it issued already */
            return STEP_OK;
        L->dw_on = false;
        L->dw_n = 0;
        if (fl & UP_REGION_DEV_TARGET)
            return target_issue(E, li, ev);
        if (fl & (UP_REGION_DEV_LAUNCH | UP_REGION_DEV_COPY)) {
            const up_region_def *rg = up_defs_region(E->d, ev->u.Enter.region);
            uint32_t s = issue_stream(E, li, ev);
            uint8_t kind = DK_KERNEL;
            if ((fl & UP_REGION_DEV_COPY) || (rg && strstr(rg->name, "Memcpy")))
                kind = !rg ? DK_COPY : strstr(rg->name, "HtoD") ? DK_HTOD
                                     : strstr(rg->name, "DtoH") ? DK_DTOH : DK_COPY;
            if (s != NONE) {
                if (issue(E, li, s, kind, 0, ev) != STEP_OK)
                    return STEP_ERROR;
                if (fl & UP_REGION_DEV_COPY) { /* a blocking copy waits for itself */
                    L->dw_s[0] = s;
                    L->dw_q[0] = E->ds[s].issued - 1;
                    L->dw_n = 1;
                }
            } else if ((fl & UP_REGION_DEV_COPY) && wait_all(E, li) != STEP_OK) {
                return STEP_ERROR;
            }
        } else if ((fl & UP_REGION_DEV_SYNC) && wait_all(E, li) != STEP_OK) {
            return STEP_ERROR;
        }
        L->dw_on = L->dw_n > 0;
        L->dw_enter_m = ev->time;
        L->dw_enter_a = ev->t_out;
        return STEP_OK;
    }
    /* a Leave: the outermost device call's waits for the device */
    if (L->dev_depth != 1 || !L->dw_on) {
        if (L->dev_depth)
            L->dev_depth--;
        E->ops->local(E->model, li, &L->ls, ev);
        return STEP_OK;
    }
    for (i = 0; i < L->dw_n; i++) {
        const dstream *ds = &E->ds[L->dw_s[i]];
        if (ds->done > L->dw_q[i] || !up_eng_may_come(E, ds->loc))
            continue;
        if (L->force) { /* the stream never answers: timed locally */
            L->force = false;
            E->repairs[UP_REPAIR_dev_wait_released]++;
            L->dw_n = 0;
            break;
        }
        L->wait = W_DEV;
        E->dev_waits++;
        return STEP_BLOCKED;
    }
    L->dev_depth = 0;
    L->dw_on = false;
    E->ops->local(E->model, li, &L->ls, ev);
    /* the latest end waited for, measured; the latest target, approximated */
    for (i = 0; i < L->dw_n; i++) {
        const dstream *ds = &E->ds[L->dw_s[i]];
        const dev_end *e = &ds->ends[L->dw_q[i] % DEV_ENDS];
        uint64_t em, t, r;
        if (!e->valid || e->seq != L->dw_q[i])
            continue; /* dropped, or ended long ago: nothing to wait for */
        em = e->m;
        if (em > L->dw_enter_m && em - L->dw_enter_m > wait_m)
            wait_m = (em < ev->time ? em : ev->time) - L->dw_enter_m;
        /* r_m: the return latency when it ended inside the call */
        r = em >= L->dw_enter_m && em <= ev->time ? ev->time - em : 0;
        t = sub0(e->a, sub0(em, ev->time)) + r;
        if (!any || t > target)
            target = t;
        any = true;
    }
    if (!any)
        return STEP_OK;
    t_nowait = sub0(ev->t_out, wait_m);
    if (t_nowait < L->dw_enter_a)
        t_nowait = L->dw_enter_a;
    ev->t_out = target > t_nowait ? target : t_nowait;
    return STEP_OK;
}

/* ---- the stream's side ---------------------------------------------------------- */

/* May the host of stream ds still issue? */
static bool host_may_issue(const engine *E, const dstream *ds)
{
    return ds->host != NONE && up_eng_may_come(E, ds->host);
}

static uint64_t dev_time(engine *E, uint32_t li, unsigned what, uint64_t d)
{
    return E->ops->dev_time ? E->ops->dev_time(E->model, li, what, d) : d;
}

static uint64_t shift(uint64_t t, int64_t off)
{
    if (off < 0)
        return t > (uint64_t)-off ? t - (uint64_t)-off : 0;
    return t + (uint64_t)off;
}

/* Does an issue of kind ik pair with an activity of kind ak? */
static bool issue_fits(uint8_t ik, uint8_t ak)
{
    return ik == ak || (ik == DK_COPY && ak != DK_KERNEL);
}

/* Drops the oldest issue, its activity lost */
static int drop_head(engine *E, uint32_t s)
{
    dstream *ds = &E->ds[s];
    dev_issue is = ds->q[ds->qpos];
    ds->qpos = (ds->qpos + 1) % ds->qcap;
    ds->qn--;
    if (is.kind != DK_TARGET) /* a target copy: another stream ran it, or none (its host counts) */
        E->repairs[UP_REPAIR_dev_issue_unpaired]++;
    return done(E, s, is.seq, false, 0, 0);
}

/* The issue activity (kind, region) of stream s pairs with, taken from its
 * queue into *is: the oldest that fits, the older ones dropped; for a target
 * region the oldest copy of that region, the older copies (other regions,
 * run by other streams) dropped.  1: taken; 0: none (yet); -1: an error. */
static int take_issue(engine *E, uint32_t s, uint8_t kind, uint32_t region, dev_issue *is)
{
    dstream *ds = &E->ds[s];
    size_t k = 0;
#define QK(k) (ds->q[(ds->qpos + (k)) % ds->qcap])
    if (kind == DK_TARGET) {
        while (k < ds->qn && !(QK(k).kind == DK_TARGET && QK(k).region == region))
            k++;
        if (k == ds->qn)
            return 0; /* its region's issue is still to come */
    } else {
        while (k < ds->qn && !issue_fits(QK(k).kind, kind))
            k++;
    }
#undef QK
    while (k--)
        if (drop_head(E, s) != STEP_OK)
            return -1;
    if (!ds->qn)
        return 0;
    *is = ds->q[ds->qpos];
    ds->qpos = (ds->qpos + 1) % ds->qcap;
    ds->qn--;
    return 1;
}

/* Any record of accelerator stream li */
int up_eng_dev_record(engine *E, uint32_t li, up_event **evp)
{
    up_event *ev = *evp;
    rloc *L = &E->L[li];
    uint32_t s = E->dsof[li];
    dstream *ds = &E->ds[s];
    bool start = !ds->act && ((ev->kind == UP_EV_Enter && ds->depth == 0) ||
                              ev->kind == UP_EV_RmaGet || ev->kind == UP_EV_RmaPut);
    /* Score-P: RmaGet copies host to device, RmaPut device to host */
    uint8_t kind = ev->kind == UP_EV_Enter ? DK_KERNEL : ev->kind == UP_EV_RmaGet ? DK_HTOD : DK_DTOH;
    uint32_t region = ev->kind == UP_EV_Enter ? ev->u.Enter.region : 0;
    uint64_t t = 0;
    dev_issue is;
    int got;

    set_rflags(E, ev);
    if (start && ev->kind == UP_EV_Enter && is_target(E, region))
        kind = DK_TARGET;
    if (start && !ds->copies && ev->kind != UP_EV_Enter) {
        /* a copy on a process with several streams: no call names it (the
         * header); it keeps the stream's shift, after its previous activity */
        t = shift(ev->time, ds->off);
        if (t < ds->prev_end_a)
            t = ds->prev_end_a;
        ds->act_paired = false;
    } else if (start) {
        if ((got = take_issue(E, s, kind, region, &is)) < 0)
            return STEP_ERROR;
        if (got) {
            if (is.m + is.o < ds->prev_end_m && ev->time >= ds->prev_end_m) {
                /* issued while the stream was busy: it waited for the
                 * previous activity, and follows it by the measured gap */
                t = ds->prev_end_a + (ev->time - ds->prev_end_m);
                if (t < is.a)
                    t = is.a;
            } else if (ev->time >= is.m) {
                t = is.a + dev_time(E, li, UP_DEV_LAT, sub0(ev->time, is.m + is.o));
            } else { /* measured before its issue: the device's clock is
                      * ahead; that lead is kept, never grown (the header) */
                t = sub0(is.a, is.m - ev->time);
            }
            ds->act_paired = true;
            ds->act_seq = is.seq;
        } else if (host_may_issue(E, ds) && !L->force) {
            L->wait = W_DEV; /* its issue is still to come */
            return STEP_BLOCKED;
        } else {
            L->force = false;
            E->repairs[UP_REPAIR_dev_activity_unpaired]++;
            t = shift(ev->time, ds->off);
            ds->act_paired = false;
        }
        if (t < ds->prev_end_a)
            t = ds->prev_end_a;
        if (ds->act_paired)
            ds->off = (int64_t)(t - ev->time);
    }
    if (start) {
        if (t < L->ls.prev_a)
            t = L->ls.prev_a;
        ds->act = true;
        ds->act_kind = kind;
        ds->act_m = ev->time;
        ds->act_a = t;
        ds->depth = ev->kind == UP_EV_Enter;
        ev->t_out = t;
        return STEP_OK;
    }
    if (ds->act) { /* inside an activity: its measured duration */
        bool end;
        t = ds->act_a + dev_time(E, li, UP_DEV_DUR, sub0(ev->time, ds->act_m));
        ev->t_out = t < L->ls.prev_a ? L->ls.prev_a : t;
        if (ev->kind == UP_EV_Enter)
            ds->depth++;
        else if (ev->kind == UP_EV_Leave && ds->depth)
            ds->depth--;
        end = ds->act_kind == DK_KERNEL || ds->act_kind == DK_TARGET
                  ? ev->kind == UP_EV_Leave && ds->depth == 0
                                        : ev->kind == UP_EV_RmaOpCompleteBlocking && ds->depth == 0;
        if (end) {
            ds->act = false;
            ds->prev_end_m = ev->time;
            ds->prev_end_a = ev->t_out;
            if (ds->act_paired && done(E, s, ds->act_seq, true, ev->time, ev->t_out) != STEP_OK)
                return STEP_ERROR;
        }
        return STEP_OK;
    }
    /* between activities: the shift of the host's next issue */
    if (ds->qn) {
        const dev_issue *nx = &ds->q[ds->qpos];
        t = shift(ev->time, (int64_t)(nx->a - nx->m - nx->o));
    } else if (host_may_issue(E, ds) && !L->force) {
        L->wait = W_DEV;
        return STEP_BLOCKED;
    } else {
        L->force = false;
        t = shift(ev->time, ds->off);
    }
    if (ev->kind == UP_EV_Leave && ds->depth)
        ds->depth--;
    ev->t_out = t < L->ls.prev_a ? L->ls.prev_a : t;
    return STEP_OK;
}

/* Location li's records ended (here, or in another part: X_END): a stream
 * drops the issues left; its host, or the streams of a host, go on */
void up_eng_dev_ended(engine *E, uint32_t li)
{
    uint32_t s = stream_of_loc(E, li), k;
    if (!E->nds)
        return;
    if (s != NONE && up_eng_holds(E, li)) {
        while (E->ds[s].qn)
            (void)drop_head(E, s);
    }
    wake_hosts(E);
    for (k = 0; k < E->nds; k++) {
        rloc *D = &E->L[E->ds[k].loc];
        if (E->ds[k].host == li && D->state == S_WAIT && D->wait == W_DEV)
            up_eng_make_runnable(E, E->ds[k].loc);
    }
}
