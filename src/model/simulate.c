/*
 * simulate.c - trace-driven extrapolation as a replay model (simulate.h).
 *
 * Place in the data flow: up_replay_run(trace, writer, up_sim_ops()) -> here
 * for every record; collectives go on to collalgo.c, parameters come from
 * machine.c.  Source: Mohr, Malony, Shanmugam, speedy-performance-
 * extrapolation.md Section 3.3 (processor, remote access / network and
 * barrier models; message handling policies).  docs/machine.md, "How a run
 * is simulated", states every rule below with its reasons.
 *
 * A location alternates between computing and being inside MPI calls.
 *   compute   the time between records outside MPI calls, from the trace:
 *             the thread's CPU time (the tracer's --cpu-time metric) when
 *             there is one, else the wall time less the tracer's overhead
 *             (eq. 1 of trace-overhead-compensation-kojak.md), divided by
 *             cpu_ratio; polling adds poll_ns per poll_chunk_ns.
 *   MPI call  its measured duration is thrown away.  A call with a
 *             communication record is timed by the network model:
 *               send  at the call's clock; the sender is busy o_s after it;
 *                     eager: arrives at depart + wire(bytes), depart = send + o_s
 *                     rendezvous (above eager_limit, or MPI_Ssend): the request
 *                     reaches the receiver after one latency, it answers once
 *                     its receive is posted and, under progress = mpi, once
 *                     it is inside an MPI call (rdv_answer); the data leaves
 *                     one latency later
 *               recv  max(clock, arrival) + o_r
 *               collective  exit times by the algorithm (collalgo.c)
 *             A call without one (MPI_Comm_rank, MPI_Test, MPI_Init, ...)
 *             keeps its measured duration, scaled like compute.
 * Units: ticks of the archive's clock; ns parameters converted once.
 */
#include <math.h>
#include <string.h>

#include "model/collalgo.h"
#include "model/simulate.h"

typedef struct inmsg {
    const void *key;      /* the up_msg (an identity, never dereferenced) */
    uint64_t arrival;
    bool handled;
} inmsg;

typedef struct sloc {
    unsigned mpi;         /* open MPI regions */
    unsigned ovh_depth;   /* open overhead regions (buffer flushes) */
    bool modelled;        /* the open MPI call has a communication record */
    uint64_t busy;        /* the call's clock may not go below this (o_s) */
    uint64_t pend;        /* overhead of the previous record (eq. 1) */
    unsigned node;
    /* CPU time: a segment runs from the metric read inside one MPI call to
     * the one read before the next MPI call's Enter */
    bool seg_open;        /* v1 known, segment not yet closed */
    uint64_t v1;          /* CPU time read inside the previous call */
    uint64_t seg_ovh;     /* overhead of the records written since v1 */
    uint64_t seg_m, seg_a;/* measured / simulated time the segment began */
    double share;         /* CPU / wall of the previous segment */
    bool after_cpu;       /* the previous record was a CPU metric outside MPI:
                           * the gap to the Enter after it is the tracer's */
    bool call_cpu;        /* the open call began after a CPU metric ... */
    uint64_t call_v, call_ovh, call_a; /* ... read v (CPU), overhead since, Enter */
    uint64_t poll_carry;  /* polling: compute since the last poll, ticks */
    /* progress = mpi: the MPI calls that progress the library (rdv_answer),
     * the last PC_MAX in measured order; pc_send: the open call is a
     * blocking send, which progresses from its MpiSend */
    struct pcall { uint64_t enter_m, leave_m, enter_a; } *pc;
    uint32_t pcn, pccap, pcpos;
    bool pc_dropped, pc_send;
    inmsg *in;            /* eager messages on their way here (policies) */
    size_t nin, incap;
    uint64_t extra_o; /* added to every record's O here ([overhead_by_location]) */
} sloc;

/* one cached collective: members' exit times */
#define CCACHE 16
typedef struct ccache {
    const up_coll *c;
    uint64_t key, seq;
    uint32_t n;
    bool crossed;    /* computed by another part of a partitioned replay */
    uint64_t *exit;
} ccache;

/* One change to the state shared by all locations, logged for the other
 * parts of a partitioned replay: a free time (a = node or link id, b = the
 * time), or a collective's exits (a = key, b = seq, n times follow) */
struct shared_set {
    uint32_t kind, n;
    uint64_t a, b;
};

struct up_sim {
    up_machine m;
    const up_defs *d;
    double tpn;                       /* ticks per ns */
    up_ovh_table ovh;                 /* tracer overhead by record kind */
    uint64_t o_s, o_r, lat, nlat, hop, intr, poll_chunk, poll_cost, eager;
    uint64_t spin_gap;    /* polling rules (docs/models.md, "Polling"); 0: off */
    double g, ng;                     /* ticks per byte between / within nodes */
    bool use_cpu, used_cpu;
    unsigned nnodes;
    sloc *L;
    size_t n;
    uint64_t *out_free, *in_free;     /* contention: per node */
    up_map link_free;                 /* contention: per shared link (route) */
    /* a part of a partitioned replay (up_model_ops.shared_take): the links'
     * free times it set since the last take, to every other part's copy */
    bool log_shared;
    uint8_t *sl;      /* the log: records of struct shared_set, each followed
                       * by n exit times */
    size_t nsl, slcap;
    uint64_t *route;                  /* scratch: a route's links */
    unsigned route_cap;
    ccache cc[CCACHE];
    uint64_t *tmp_enter, *tmp_sent, *tmp_recvd;
    uint32_t tmp_cap;
    up_ca_barrier bar;
    uint64_t repairs[UP_MR_COUNT];    /* the models' kinds (compensate.h) */
    uint64_t eng_repairs[UP_REPAIR_COUNT]; /* the engine's kinds counted here */
    bool nomem;
    bool overflow;                    /* a time reached UP_TICKS_MAX */
};

static uint64_t max2(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t sub0(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

/* t rounded to ticks; a time that does not fit (UP_TICKS_MAX) fails the run. */
static uint64_t tk(up_sim *S, double t)
{
    uint64_t v = up_ticks_round(t);
    if (v == UP_TICKS_MAX)
        S->overflow = true;
    return v;
}

static uint64_t ticks(up_sim *S, double ns) { return tk(S, ns * S->tpn); }

/* Compute of c ticks on the target: c / cpu_ratio. */
static uint64_t on_target(up_sim *S, uint64_t c)
{
    return S->m.cpu_ratio == 1 ? c : tk(S, (double)c / S->m.cpu_ratio);
}

/* ---- the tracer's overhead (eq. 1) ------------------------------------------ */

static uint64_t s_record_ovh(void *mp, uint32_t loc, const up_event *ev)
{
    const up_sim *S = mp;
    return up_ovh_of(&S->ovh, ev) + (ev->kind != UP_EV_BufferFlush ? S->L[loc].extra_o : 0);
}

/* Target time of a measured wall-time gap: less the previous record's
 * overhead (all of it inside an overhead region), over cpu_ratio. */
static uint64_t scaled(up_sim *S, const sloc *l, uint64_t gap)
{
    return on_target(S, l->ovh_depth ? 0 : sub0(gap, l->pend));
}

/* Polling: a poll every poll_chunk of compute, poll_cost each. */
static uint64_t poll_cost(up_sim *S, sloc *l, uint64_t c)
{
    uint64_t k;
    if (S->m.progress != UP_PROGRESS_POLLING || !S->poll_chunk)
        return 0;
    l->poll_carry += c;
    k = l->poll_carry / S->poll_chunk;
    l->poll_carry %= S->poll_chunk;
    return k * S->poll_cost;
}

/* Messages that arrived while the location computed up to t: handled there
 * under the interrupt and polling policies (o_r, plus interrupt_ns), which
 * lengthens the computation.  Returns the new t. */
static uint64_t handle_arrivals(up_sim *S, sloc *l, uint64_t t)
{
    size_t i;
    bool again = true;
    if (S->m.progress == UP_PROGRESS_MPI)
        return t;
    while (again) { /* handling one can let the next one in */
        again = false;
        for (i = 0; i < l->nin; i++)
            if (!l->in[i].handled && l->in[i].arrival <= t) {
                l->in[i].handled = true;
                t += S->o_r + (S->m.progress == UP_PROGRESS_INTERRUPT ? S->intr : 0);
                again = true;
            }
    }
    return t;
}

/* ---- network ----------------------------------------------------------------- */

/* Latency alone, from location a to b: a rendezvous request or answer, and
 * every message's head. */
static uint64_t hop_lat(up_sim *S, uint32_t a, uint32_t b)
{
    unsigned na = S->L[a].node, nb = S->L[b].node;
    if (na == nb)
        return S->nlat;
    return S->lat + S->hop * up_machine_hops(&S->m, na, nb, S->nnodes);
}

enum { SH_OUT, SH_IN, SH_LINK, SH_COLL };

/* A link's free time was set: logged for the other parts of a partitioned
 * replay (up_model_ops.shared_take) */
static void shared_note(up_sim *S, uint32_t kind, uint64_t a, uint64_t b, uint32_t n,
                        const uint64_t *v)
{
    struct shared_set e;
    size_t len = sizeof e + (size_t)n * sizeof *v;
    if (!S->log_shared)
        return;
    if (S->nsl + len > S->slcap && !up_grow((void **)&S->sl, &S->slcap, S->nsl + len, 1)) {
        S->nomem = true;
        return;
    }
    memset(&e, 0, sizeof e);
    e.kind = kind, e.n = n, e.a = a, e.b = b;
    memcpy(S->sl + S->nsl, &e, sizeof e);
    if (n)
        memcpy(S->sl + S->nsl + sizeof e, v, (size_t)n * sizeof *v);
    S->nsl += len;
}

/* Arrival of `bytes` leaving location a at `depart` for location b. */
static uint64_t wire(up_sim *S, uint32_t a, uint32_t b, uint64_t bytes, uint64_t depart)
{
    unsigned na = S->L[a].node, nb = S->L[b].node;
    uint64_t ser, start, rx;
    if (na == nb)
        return depart + S->nlat + tk(S, (double)bytes * S->ng);
    ser = tk(S, (double)bytes * S->g);
    start = depart;
    if (S->m.contention) { /* the sender's link, then every shared link on
                            * the route: the message holds them all for
                            * bytes x G once the last of them is free */
        unsigned k, nl = up_machine_route(&S->m, na, nb, S->nnodes, S->route, S->route_cap);
        if (nl > S->route_cap)
            nl = S->route_cap;
        start = max2(start, S->out_free[na]);
        for (k = 0; k < nl; k++) {
            uint64_t *f = up_map_get(&S->link_free, S->route[k], 0);
            if (f)
                start = max2(start, *f);
        }
        for (k = 0; k < nl; k++) {
            if (!up_map_put(&S->link_free, S->route[k], 0, start + ser))
                S->nomem = true;
            shared_note(S, SH_LINK, S->route[k], start + ser, 0, NULL);
        }
    }
    rx = start + hop_lat(S, a, b);
    if (S->m.contention) {
        S->out_free[na] = start + ser;
        rx = max2(rx, S->in_free[nb]);
        S->in_free[nb] = rx + ser;
        shared_note(S, SH_OUT, na, start + ser, 0, NULL);
        shared_note(S, SH_IN, nb, rx + ser, 0, NULL);
    }
    return rx + ser;
}

/* up_model_ops.shared_take: the free times set since the last take, as
 * plain data (buf NULL: start logging them) */
static size_t s_shared_take(void *mp, void *buf, size_t cap)
{
    up_sim *S = mp;
    size_t n = S->nsl;
    if (!buf) {
        S->log_shared = true;
        return 0;
    }
    if (n > cap)
        return n; /* (the caller grows its buffer and asks again) */
    if (n)
        memcpy(buf, S->sl, n);
    S->nsl = 0;
    return n;
}

/* up_model_ops.shared_put: another part's free times; each only grows, so
 * the latest of the two is kept, whatever the order they come in */
static void s_shared_put(void *mp, const void *buf, size_t n)
{
    up_sim *S = mp;
    const uint8_t *p = buf;
    size_t i = 0;
    while (i + sizeof(struct shared_set) <= n) {
        struct shared_set e;
        uint64_t *f;
        memcpy(&e, p + i, sizeof e);
        i += sizeof e;
        if ((size_t)e.n * sizeof(uint64_t) > n - i)
            break; /* cannot happen: a record is whole */
        if (e.kind == SH_OUT && e.a < S->nnodes)
            S->out_free[e.a] = max2(S->out_free[e.a], e.b);
        else if (e.kind == SH_IN && e.a < S->nnodes)
            S->in_free[e.a] = max2(S->in_free[e.a], e.b);
        else if (e.kind == SH_LINK && (!(f = up_map_get(&S->link_free, e.a, 0)) || *f < e.b) &&
                 !up_map_put(&S->link_free, e.a, 0, e.b))
            S->nomem = true;
        else if (e.kind == SH_COLL && e.n) { /* computed there once: not again here */
            ccache *c = &S->cc[(e.a * 31 + e.b) % CCACHE];
            uint64_t *v = c->n >= e.n && c->exit ? c->exit
                                                 : up_reallocarray(c->exit, e.n, sizeof *v);
            if (!v) {
                S->nomem = true;
            } else {
                memcpy(v, p + i, (size_t)e.n * sizeof *v);
                c->exit = v, c->c = NULL, c->key = e.a, c->seq = e.b, c->n = e.n;
                c->crossed = true;
            }
        }
        i += (size_t)e.n * sizeof(uint64_t);
    }
}

/* ---- progress (docs/machine.md, "Rendezvous progress") ---------------------
 * Under progress = mpi a rendezvous request is answered only while its
 * receiver is inside an MPI call that progresses the library (an MPI
 * without a progress thread, as Open MPI 4.1 here; compensate's rule,
 * docs/models.md "Progress").  Each location keeps its last PC_MAX such
 * calls in measured order: the calls that may wait, from their Enter, and
 * blocking sends from their MpiSend (the engine's ring, engine.c). */
#define PC_MIN 16u
#define PC_MAX 256u  /* 6 KiB a location: memory stays bounded on many ranks */

static struct pcall *pc_at(const sloc *l, uint32_t i) /* i-th oldest */
{
    return &l->pc[(l->pcpos + i) & (l->pccap - 1)];
}

static void pc_push(up_sim *S, sloc *l, uint64_t m, uint64_t a)
{
    struct pcall *p;
    if (l->pcn == l->pccap) {
        if (l->pccap < PC_MAX) {
            uint32_t ncap = l->pccap ? 2 * l->pccap : PC_MIN, i;
            struct pcall *n = up_malloc(ncap * sizeof *n);
            if (!n) {
                S->nomem = true;
                return;
            }
            for (i = 0; i < l->pcn; i++)
                n[i] = *pc_at(l, i);
            up_free(l->pc);
            l->pc = n;
            l->pccap = ncap;
            l->pcpos = 0;
        } else { /* forget the oldest */
            l->pcpos = (l->pcpos + 1) & (l->pccap - 1);
            l->pcn--;
            l->pc_dropped = true;
        }
    }
    p = pc_at(l, l->pcn++);
    p->enter_m = m;
    p->leave_m = UINT64_MAX;
    p->enter_a = a;
}

enum { ANS_AT_ONCE, ANS_WAITED, ANS_UNKNOWN };

/* The first call of receiver r that was open at t0 or entered after it
 * (its leave after t0): *found, with its entry; *unknown when an older one
 * was forgotten (it may have been open at t0) */
static void pc_first_open(const sloc *r, uint64_t t0, bool *found, uint64_t *enter_m,
                          uint64_t *enter_a, bool *unknown)
{
    const struct pcall *c = NULL;
    uint32_t i;
    for (i = r->pcn; i > 0 && pc_at(r, i - 1)->leave_m > t0; i--)
        c = pc_at(r, i - 1);
    *found = c != NULL;
    *enter_m = c ? c->enter_m : 0;
    *enter_a = c ? c->enter_a : 0;
    *unknown = i == 0 && r->pc_dropped;
}

/* When receiver dst answers the request of rendezvous s that reached it at
 * req, judged at measured time t (the record that needs it: the engine has
 * replayed the receiver's records before t, prog_wait).  x = max(req,
 * post_a).  mpi: the receiver's progressing call that was open at t0 =
 * max(send_m, post_m), or else the first it entered after t0 and before t,
 * is where the transfer moved, as in the measured run: max(x, its entry);
 * no such call known: x.  interrupt: x + interrupt_ns.  polling: that
 * call's entry or the next poll, at most poll_chunk_ns after x.  *how says
 * which (ANS_*).  At the sender (sync_end) the call is the one the
 * receiver's replay found (s->mprog_*, s_progress_of). */
static uint64_t rdv_answer(up_sim *S, uint32_t dst, uint64_t req, const up_sync *s,
                           uint64_t post_m, uint64_t post_a, uint64_t t, bool at_sender, int *how)
{
    uint64_t x = max2(req, post_a), t0 = max2(s->send_m, post_m), a, cm, ca;
    bool found, unknown;
    *how = ANS_AT_ONCE;
    if (S->m.progress == UP_PROGRESS_INTERRUPT)
        return x + S->intr;
    if (at_sender && s->mprog_set) /* found where the receiver is replayed (s_progress_of) */
        found = s->mprog_found, cm = s->mprog_m, ca = s->mprog_a, unknown = s->mprog_unknown;
    else
        pc_first_open(&S->L[dst], t0, &found, &cm, &ca, &unknown);
    if (!found || cm <= t0 || cm >= t || ca <= x)
        return x; /* in MPI at t0, or no call before t, or entered in time */
    if (unknown) {
        *how = ANS_UNKNOWN; /* an older call may have been open */
        return x;
    }
    a = ca;
    if (S->m.progress == UP_PROGRESS_POLLING && S->poll_chunk && a - x > S->poll_chunk)
        a = x + S->poll_chunk;
    *how = ANS_WAITED;
    return a;
}

/* up_model_ops.progress_of: the receiver's first call open at or after
 * max(send, post) */
static void s_progress_of(void *mp, uint32_t loc, up_sync *s, uint64_t t)
{
    up_sim *S = mp;
    (void)t;
    if (loc >= S->n)
        return;
    pc_first_open(&S->L[loc], max2(s->send_m, s->post_m), &s->mprog_found, &s->mprog_m,
                  &s->mprog_a, &s->mprog_unknown);
    s->mprog_set = true;
}

/* Rendezvous: when the data leaves the sender.  The request leaves at
 * send + o_s and takes one latency; the receiver answers once its receive is
 * posted (post_a) and it progresses (rdv_answer); the answer takes one
 * latency back. */
static uint64_t rdv_depart(up_sim *S, uint32_t src, uint32_t dst, uint64_t send_a,
                           const up_sync *s, uint64_t post_m, uint64_t post_a, uint64_t t,
                           bool at_sender, int *how)
{
    uint64_t req = send_a + S->o_s + hop_lat(S, src, dst);
    return rdv_answer(S, dst, req, s, post_m, post_a, t, at_sender, how) + hop_lat(S, dst, src);
}

/* ---- records ------------------------------------------------------------------- */

static bool is_cpu_metric(const up_sim *S, const up_event *ev)
{
    return S->use_cpu && ev->kind == UP_EV_Metric && ev->u.Metric.metric == S->d->cpu_metric &&
           ev->u.Metric.numberOfMetrics == 1 && ev->u.Metric.typeIDs[0] == OTF2_TYPE_UINT64;
}

/* Bookkeeping after a record got its time. */
static void account(up_sim *S, sloc *l, up_event *ev)
{
    uint64_t o = up_ovh_of(&S->ovh, ev) + (ev->kind != UP_EV_BufferFlush ? l->extra_o : 0);
    if (ev->t_out >= UP_TICKS_MAX) /* sums of times below it: caught before they wrap */
        S->overflow = true;
    l->pend = o;
    l->seg_ovh += o;
    l->call_ovh += o;
    if (ev->kind == UP_EV_BufferFlush) {
        ev->u.BufferFlush.stopTime = ev->t_out; /* removed whole */
        l->pend = 0;
    } else if (ev->kind == UP_EV_Enter) {
        if (ev->rflags & UP_REGION_OVERHEAD)
            l->ovh_depth++;
        if (ev->rflags & UP_REGION_MPI && l->mpi++ == 0) {
            l->modelled = false;
            l->busy = ev->t_out;
            l->call_a = ev->t_out;
            if (ev->rflags & UP_REGION_NOWAIT)
                l->pc_send = true; /* a blocking send: from its MpiSend */
            else
                pc_push(S, l, ev->time, ev->t_out);
        }
    } else if (ev->kind == UP_EV_Leave) {
        if (ev->rflags & UP_REGION_OVERHEAD && l->ovh_depth)
            l->ovh_depth--;
        if (ev->rflags & UP_REGION_MPI && l->mpi && --l->mpi == 0) {
            l->pc_send = false;
            if (l->pcn && pc_at(l, l->pcn - 1)->leave_m == UINT64_MAX)
                pc_at(l, l->pcn - 1)->leave_m = ev->time;
            if (l->seg_open) {
                l->seg_m = ev->time; /* compute begins */
                l->seg_a = ev->t_out;
            }
        }
    }
}

/* Time of a record that depends only on its own location. */
static uint64_t local_time(up_sim *S, sloc *l, const up_loc_state *ls, const up_event *ev)
{
    uint64_t gap, t, c;
    if (!ls->started)
        return ev->time; /* a location's first record keeps its time */
    if (l->mpi) {
        if (l->modelled) /* the rest of a timed call takes no time */
            return max2(ls->prev_a, l->busy);
        if (is_cpu_metric(S, ev) && l->call_cpu && l->mpi == 1) {
            /* a call without communication, bracketed by CPU metrics: its
             * CPU time, less the tracer's records inside it */
            uint64_t cpu_ns = sub0(ev->u.Metric.metricValues[0].unsigned_int, l->call_v);
            uint64_t ct = sub0(ticks(S, (double)cpu_ns), l->call_ovh);
            c = on_target(S, ct);
            return max2(ls->prev_a, l->call_a + c);
        }
        return ls->prev_a + scaled(S, l, sub0(ev->time, ls->prev_m));
    }
    if (l->after_cpu) { /* Enter right after the metric read for it */
        l->after_cpu = false;
        return ls->prev_a;
    }
    /* compute */
    gap = sub0(ev->time, ls->prev_m);
    if (is_cpu_metric(S, ev) && l->seg_open) {
        /* the segment's CPU time, less the tracer's records inside it */
        uint64_t cpu_ns = sub0(ev->u.Metric.metricValues[0].unsigned_int, l->v1);
        uint64_t wall = sub0(ev->time, l->seg_m);
        uint64_t ct = sub0(ticks(S, (double)cpu_ns), l->seg_ovh);
        l->share = wall ? fmin(1.0, (double)ct / (double)wall) : 1.0;
        c = on_target(S, ct);
        t = max2(ls->prev_a, l->seg_a + c);
        l->seg_open = false;
        S->used_cpu = true;
        c = t - ls->prev_a;
    } else {
        c = scaled(S, l, gap);
        if (l->seg_open && l->share < 1.0) /* inside a CPU segment: its share */
            c = tk(S, (double)c * l->share);
        t = ls->prev_a + c;
    }
    t += poll_cost(S, l, c);
    return handle_arrivals(S, l, t);
}

static void s_local(void *mp, uint32_t loc, const up_loc_state *ls, up_event *ev)
{
    up_sim *S = mp;
    sloc *l = &S->L[loc];
    switch (ev->kind) { /* records that make a call a communication call */
    case UP_EV_MpiIrecvRequest:
    case UP_EV_MpiIsendComplete:
    case UP_EV_MpiCollectiveBegin:
    case UP_EV_NonBlockingCollectiveRequest:
    case UP_EV_MpiRequestCancelled:
        if (l->mpi && ls->started) {
            l->modelled = true;
            l->busy = max2(l->busy, ls->prev_a);
        }
        break;
    default:
        break;
    }
    bool follows_metric = l->after_cpu;
    ev->t_out = local_time(S, l, ls, ev);
    if (is_cpu_metric(S, ev) && !l->mpi) { /* read for the next call's Enter */
        l->call_v = ev->u.Metric.metricValues[0].unsigned_int;
        l->call_ovh = 0;
        l->after_cpu = true;
    } else if (ev->kind == UP_EV_Enter && !l->mpi && (ev->rflags & UP_REGION_MPI)) {
        l->call_cpu = follows_metric; /* (account opens the call after this) */
    }
    if (is_cpu_metric(S, ev) && l->mpi) { /* read inside a call: a segment begins */
        l->v1 = ev->u.Metric.metricValues[0].unsigned_int;
        l->seg_open = true;
        l->seg_ovh = 0;
        l->seg_m = ev->time;
        l->seg_a = ev->t_out;
        l->share = l->share > 0 ? l->share : 1.0;
    }
    account(S, l, ev);
}

/* A communication record inside a call: the call's clock. */
static uint64_t call_clock(sloc *l, const up_loc_state *ls, const up_event *ev)
{
    if (!ls->started)
        return ev->time;
    l->modelled = true;
    return max2(ls->prev_a, l->busy);
}

static bool push_in(up_sim *S, sloc *l, const void *key, uint64_t arrival)
{
    if (l->nin == l->incap &&
        !up_grow((void **)&l->in, &l->incap, l->nin + 1, sizeof *l->in)) {
        S->nomem = true;
        return false;
    }
    l->in[l->nin].key = key;
    l->in[l->nin].arrival = arrival;
    l->in[l->nin].handled = false;
    l->nin++;
    return true;
}

/* Was the message handled during computation (and forget it)? */
static bool pop_in(sloc *l, const void *key)
{
    size_t i;
    for (i = 0; i < l->nin; i++)
        if (l->in[i].key == key) {
            bool h = l->in[i].handled;
            l->in[i] = l->in[--l->nin];
            return h;
        }
    return false;
}

static void s_send(void *mp, uint32_t loc, const up_loc_state *ls, up_event *ev, up_msg *msg)
{
    up_sim *S = mp;
    sloc *l = &S->L[loc];
    uint64_t t = call_clock(l, ls, ev);
    ev->t_out = t;
    l->busy = t + S->o_s;
    if (l->pc_send && ev->kind == UP_EV_MpiSend) { /* the send reached the library */
        l->pc_send = false;
        pc_push(S, l, ev->time, t);
    }
    /* mdata[0]: arrival of an eager message; a rendezvous one is timed when
     * its receive is posted (the engine's sync) */
    if (msg->bytes <= S->eager && msg->dst < S->n) {
        msg->mdata[0] = wire(S, loc, msg->dst, msg->bytes, t + S->o_s);
        if (S->m.progress != UP_PROGRESS_MPI && push_in(S, &S->L[msg->dst], msg, msg->mdata[0]))
            msg->mdata[1] = (uint64_t)msg->dst + 1; /* filed there (mdata[1] - 1) */
    }
    account(S, l, ev);
}

/* When the message of receive ev is there; *o_r: what handling it costs
 * the receive, o_r unless a poll or an interrupt during computation handled
 * it already (progress = interrupt or polling). */
static uint64_t arrival(up_sim *S, uint32_t loc, const up_event *ev, const up_msg *msg,
                        uint64_t *o_r)
{
    *o_r = S->o_r;
    if (msg->sync) { /* rendezvous: the data left after the answer */
        int how;
        const up_sync *s = msg->sync;
        uint64_t dep = rdv_depart(S, msg->src, loc, msg->send_a, s, s->post_m, s->post_a,
                                  ev->time, false, &how);
        return wire(S, msg->src, loc, msg->bytes, dep);
    }
    /* taken off the list of the location it was filed with: its
     * destination's member of the communicator, which may be another thread
     * than the one receiving it (docs/models.md, "MPI from any thread") */
    if (msg->mdata[1] && msg->mdata[1] - 1 < S->n && pop_in(&S->L[msg->mdata[1] - 1], msg))
        *o_r = 0;
    return msg->mdata[0];
}

/* The completion that ends a spin (docs/models.md, "Polling"): the spin's
 * polls start at spin_a, one every poll_ns of the target; the first that
 * starts at or after the arrival finds the message and ends poll_ns later,
 * plus the handling cost. */
static void spin_recv(up_sim *S, uint32_t loc, const up_loc_state *ls, up_event *ev,
                      const up_msg *msg)
{
    sloc *l = &S->L[loc];
    uint64_t o_r, arr = arrival(S, loc, ev, msg, &o_r), p = S->poll_cost ? S->poll_cost : 1, k = 0;
    (void)call_clock(l, ls, ev);
    if (arr > ls->spin_a)
        k = (arr - ls->spin_a + p - 1) / p;
    ev->t_out = max2(ls->spin_a + (k + 1) * p, ls->prev_a) + o_r;
    l->busy = ev->t_out;
    account(S, l, ev);
}

/* A receive completed by a poll of an interleaved loop: timed where the
 * poll is, as if nothing waited; returns when its message is there (the
 * engine moves the record to the first later poll when that is later). */
static uint64_t s_poll_recv(void *mp, uint32_t loc, const up_loc_state *ls, up_event *ev,
                            const up_msg *msg)
{
    up_sim *S = mp;
    sloc *l = &S->L[loc];
    uint64_t o_r, arr;
    if (!ls->started) {
        s_local(mp, loc, ls, ev);
        return 0;
    }
    arr = arrival(S, loc, ev, msg, &o_r);
    ev->t_out = call_clock(l, ls, ev) + o_r;
    l->busy = ev->t_out;
    account(S, l, ev);
    return arr + o_r;
}

static uint64_t s_spin_gap(void *mp) { return ((up_sim *)mp)->spin_gap; }

static void s_recv(void *mp, uint32_t loc, const up_loc_state *ls, up_event *ev,
                   const up_msg *msg)
{
    up_sim *S = mp;
    sloc *l = &S->L[loc];
    uint64_t t, arr, o_r;
    if (!msg || !ls->started) {
        s_local(mp, loc, ls, ev);
        return;
    }
    if (ls->spin) {
        spin_recv(S, loc, ls, ev, msg);
        return;
    }
    t = call_clock(l, ls, ev);
    arr = arrival(S, loc, ev, msg, &o_r);
    ev->t_out = max2(t, arr) + o_r;
    l->busy = ev->t_out;
    account(S, l, ev);
}

/* The end of a rendezvous or synchronous send (its Leave or
 * MpiIsendComplete): the last byte leaves the sender.  RMA synchronisation
 * (the engine's other use of sync_end): after the partner's sync point and
 * one latency. */
static void s_sync_end(void *mp, uint32_t loc, const up_loc_state *ls, up_event *ev,
                       const up_sync *s)
{
    up_sim *S = mp;
    sloc *l = &S->L[loc];
    uint64_t t;
    if (!ls->started || !s) {
        s_local(mp, loc, ls, ev);
        return;
    }
    t = call_clock(l, ls, ev);
    if ((ev->kind == UP_EV_Leave || ev->kind == UP_EV_MpiIsendComplete) && s->src == loc &&
        s->dst < S->n) {
        int how;
        uint64_t dep = rdv_depart(S, loc, s->dst, s->send_a, s, s->post_m, s->post_a, ev->time,
                                  true, &how);
        uint64_t ser = S->L[loc].node == S->L[s->dst].node
                           ? tk(S, (double)s->bytes * S->ng)
                           : tk(S, (double)s->bytes * S->g);
        t = max2(t, dep + ser);
        if (how == ANS_WAITED)
            S->repairs[UP_MR_progress_waited]++;
        else if (how == ANS_UNKNOWN)
            S->eng_repairs[UP_REPAIR_progress_unknown]++;
    } else {
        t = max2(t, s->post_a + S->lat);
    }
    ev->t_out = t;
    l->busy = t;
    account(S, l, ev);
}

/* ---- collectives ------------------------------------------------------------------ */

typedef struct coll_ctx {
    up_sim *S;
    const up_coll *c;
} coll_ctx;

static uint64_t ca_arrive(void *ctx, uint32_t from, uint32_t to, uint64_t bytes, uint64_t depart)
{
    coll_ctx *x = ctx;
    return wire(x->S, x->c->m[from].loc, x->c->m[to].loc, bytes, depart);
}

static unsigned algo_of(const up_sim *S, up_coll_kind k)
{
    return k == UP_CK_BARRIER ? (unsigned)S->m.barrier : (unsigned)S->m.algo[k];
}

/* Exit times of every member of c, computed once per instance. */
static const uint64_t *coll_exits(up_sim *S, const up_coll *c, up_err *err)
{
    ccache *e = &S->cc[(c->key * 31 + c->seq) % CCACHE];
    up_ca_in in;
    up_ca_net net;
    coll_ctx x = {S, c};
    uint32_t i;
    if (e->exit && (e->c == c || e->crossed) && e->key == c->key && e->seq == c->seq &&
        e->n == c->n)
        return e->exit;
    if (c->n > S->tmp_cap) {
        uint64_t **v[3] = {&S->tmp_enter, &S->tmp_sent, &S->tmp_recvd};
        for (i = 0; i < 3; i++) {
            uint64_t *a = up_reallocarray(*v[i], c->n, sizeof *a);
            if (!a)
                return NULL;
            *v[i] = a;
        }
        S->tmp_cap = c->n;
    }
    if (e->n < c->n || !e->exit) {
        uint64_t *v = up_reallocarray(e->exit, c->n, sizeof *v);
        if (!v)
            return NULL;
        e->exit = v;
    }
    e->c = c, e->key = c->key, e->seq = c->seq, e->n = c->n, e->crossed = false;
    for (i = 0; i < c->n; i++) {
        const up_member *m = &c->m[i];
        S->tmp_enter[i] = m->begin_a;
        S->tmp_sent[i] = m->sent;
        S->tmp_recvd[i] = m->recvd;
    }
    memset(&in, 0, sizeof in);
    in.kind = up_ca_kind_of(c->op);
    in.algo = algo_of(S, in.kind);
    in.n = c->n;
    in.root = c->root;
    in.exscan = c->op == OTF2_COLLECTIVE_OP_EXSCAN;
    in.enter = S->tmp_enter;
    in.sent = S->tmp_sent;
    in.recvd = S->tmp_recvd;
    in.bar = &S->bar;
    net.o_s = S->o_s;
    net.o_r = S->o_r;
    net.reduce_per_byte = S->m.reduce_ns_per_byte * S->tpn;
    net.arrive = ca_arrive;
    net.ctx = &x;
    if (up_ca_times(&in, &net, e->exit, err) != UP_OK) {
        e->c = NULL;
        return NULL;
    }
    shared_note(S, SH_COLL, c->key, c->seq, c->n, e->exit); /* once for every part */
    return e->exit;
}

static void s_coll_end(void *mp, uint32_t loc, const up_loc_state *ls, up_event *ev,
                       const up_coll *c, const up_member *self)
{
    up_sim *S = mp;
    sloc *l = &S->L[loc];
    const uint64_t *ex;
    uint64_t t;
    up_err err;
    if (!ls->started || c->forced || !c->n) {
        s_local(mp, loc, ls, ev);
        return;
    }
    t = call_clock(l, ls, ev);
    if (!(ex = coll_exits(S, c, &err))) {
        S->nomem = true;
        ev->t_out = t;
    } else {
        ev->t_out = max2(t, ex[self - c->m]);
    }
    l->busy = ev->t_out;
    account(S, l, ev);
}

/* With contention, every message between nodes takes links: its claim is
 * when it departs (up_model_ops.claim), so that links are taken in the
 * order of departure whatever the replay's schedule.  An eager send departs
 * at its call's clock plus o_s, a rendezvous message when the receive's
 * answer is back (its receive claims), a collective's messages once its last
 * member is in (the first member to end it claims for all: the exits are
 * computed once). */
static uint64_t s_claim(void *mp, uint32_t loc, const up_loc_state *ls, const up_event *ev,
                        uint32_t peer, const up_msg *msg, const up_coll *c)
{
    up_sim *S = mp;
    if (!S->m.contention)
        return UINT64_MAX;
    if (c) {
        const ccache *e = &S->cc[(c->key * 31 + c->seq) % CCACHE];
        if (!ls->started || c->forced || !c->n ||
            (e->exit && (e->c == c || e->crossed) && e->key == c->key && e->seq == c->seq &&
             e->n == c->n))
            return UINT64_MAX;
        return c->max_begin_a;
    }
    if (msg) {
        const up_sync *s = msg->sync;
        if (!s || msg->src >= S->n || S->L[msg->src].node == S->L[loc].node)
            return UINT64_MAX;
        int how;
        return rdv_depart(S, msg->src, loc, msg->send_a, s, s->posted ? s->post_m : ev->time,
                          s->posted ? s->post_a : ls->enter_a, ev->time, false, &how);
    }
    uint64_t bytes = ev->kind == UP_EV_MpiSend ? ev->u.MpiSend.msgLength : ev->u.MpiIsend.msgLength;
    if (bytes > S->eager || peer >= S->n || S->L[peer].node == S->L[loc].node)
        return UINT64_MAX;
    return (ls->started ? max2(ls->prev_a, S->L[loc].busy) : ev->time) + S->o_s;
}

/* ---- the rest of the interface ------------------------------------------------------ */

static const uint64_t *s_repairs(void *mp) { return ((up_sim *)mp)->repairs; }
static const uint64_t *s_eng_repairs(void *mp) { return ((up_sim *)mp)->eng_repairs; }
static uint64_t s_eager(void *mp) { return ((up_sim *)mp)->eager; }

/* Wildcard receives are re-matched by predicted send time where the trace
 * marks them (a one-core trace fixes the order of a one-core run); replies
 * keep their measured destinations and work: the moved work of a task is
 * wall time, which a simulation from CPU time cannot use (docs/simulate.md,
 * "Wildcard receives"). */
static up_wildcard s_wildcard(void *mp)
{
    (void)mp;
    return UP_WILDCARD_AUTO;
}

/* the engine makes a rendezvous's completion wait until its receiver's
 * calls before it were replayed (rdv_answer) */
static bool s_sync_progress(void *mp)
{
    return ((up_sim *)mp)->m.progress != UP_PROGRESS_INTERRUPT;
}

static up_replies s_replies(void *mp)
{
    (void)mp;
    return UP_REPLIES_MEASURED;
}

/* Devices (docs/models.md, "Devices"): an activity's duration over the
 * accelerator's speed_ratio; the launch-to-start latency as measured, or
 * the machine's launch_latency_ns */
static uint64_t s_dev_time(void *m, uint32_t loc, unsigned what, uint64_t d)
{
    up_sim *S = m;
    (void)loc;
    if (what == UP_DEV_LAT)
        return S->m.launch_latency_ns < 0 ? d : ticks(S, S->m.launch_latency_ns);
    return S->m.accel_ratio == 1 ? d : tk(S, (double)d / S->m.accel_ratio);
}

static const up_model_ops sim_ops = {
    .name = "simulate",
    .record_ovh = s_record_ovh,
    .local = s_local,
    .send = s_send,
    .recv = s_recv,
    .coll_end = s_coll_end,
    .repair_kinds = up_model_repair_kinds,
    .nrepair_kinds = UP_MR_COUNT,
    .repairs = s_repairs,
    .engine_repairs = s_eng_repairs,
    .eager_limit = s_eager,
    .sync_end = s_sync_end,
    .max_shift = NULL,
    .wildcard = s_wildcard,
    .coll_wait_all = true,
    .spin_gap = s_spin_gap,
    .poll_recv = s_poll_recv,
    .replies = s_replies,
    .claim = s_claim,
    .sync_progress = s_sync_progress,
    .progress_of = s_progress_of,
    .shared_take = s_shared_take,
    .shared_put = s_shared_put,
    .dev_time = s_dev_time,
};

const up_model_ops *up_sim_ops(void) { return &sim_ops; }

bool up_sim_used_cpu_time(const up_sim *s) { return s->used_cpu; }

up_status up_sim_new(const up_machine *m, const up_comp_params *ovh, const up_defs *d,
                     up_sim **out, up_err *err)
{
    up_sim *S;
    size_t i;
    long nranks = 0;
    *out = NULL;
    if (m->compute == UP_COMPUTE_CPU && !d->has_cpu_metric)
        return UP_ERR(err, UP_EUSAGE,
                      "compute = cpu, but the trace has no thread CPU-time metric (trace it with "
                      "`unperturb trace --cpu-time`, or set compute = auto or wall)");
    if (up_machine_check(m, err) != UP_OK)
        return err ? err->status : UP_EUSAGE;
    if (!(S = up_calloc(1, sizeof *S)) || !(S->L = up_calloc(d->nlocs ? d->nlocs : 1, sizeof *S->L))) {
        up_free(S);
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    }
    S->m = *m;
    S->d = d;
    S->n = d->nlocs;
    S->tpn = (double)d->resolution / 1e9;
    if (ovh) {
        size_t j, k;
        up_ovh_table_init(&S->ovh, ovh, S->tpn);
        for (j = 0; j < d->nlocs; j++) /* [overhead_by_location] */
            for (k = 0; k < ovh->nloc_ovh; k++)
                if (ovh->loc_ovh_id[k] == d->locs[j].id)
                    S->L[j].extra_o = ticks(S, ovh->loc_ovh_ns[k]);
    }
    S->o_s = ticks(S, m->send_overhead_ns);
    S->o_r = ticks(S, m->recv_overhead_ns);
    S->lat = ticks(S, m->latency_ns);
    S->nlat = ticks(S, m->node_latency_ns);
    S->hop = ticks(S, m->per_hop_ns);
    S->intr = ticks(S, m->interrupt_ns);
    S->poll_chunk = ticks(S, m->poll_chunk_ns);
    S->poll_cost = ticks(S, m->poll_ns);
    /* the trace's spins: program time between polls as the trace measured
     * it, less the tracer's overhead (not scaled to the target) */
    if (!ovh || ovh->polls == UP_POLLS_MODEL) {
        S->spin_gap = ticks(S, ovh ? ovh->spin_gap_ns : UP_DEFAULT_SPIN_GAP_NS);
        if (!S->spin_gap)
            S->spin_gap = 1;
    }
    S->g = m->ns_per_byte * S->tpn;
    S->ng = m->node_ns_per_byte * S->tpn;
    S->eager = m->eager_limit >= 1.8e19 ? UINT64_MAX : (uint64_t)m->eager_limit;
    S->use_cpu = m->compute != UP_COMPUTE_WALL && d->has_cpu_metric;
    S->bar.entry = ticks(S, m->entry_ns);
    S->bar.exit = ticks(S, m->exit_ns);
    S->bar.check = ticks(S, m->check_ns);
    S->bar.exit_check = ticks(S, m->exit_check_ns);
    S->bar.model = ticks(S, m->model_ns);
    S->bar.by_msgs = m->barrier_by_msgs;
    S->bar.msg_size = (uint64_t)m->barrier_msg_size;
    for (i = 0; i < d->nlocs; i++)
        if (d->locs[i].rank != UP_NO_RANK && d->locs[i].rank + 1 > nranks)
            nranks = d->locs[i].rank + 1;
    {
        unsigned rpn = m->ranks_per_node ? m->ranks_per_node : 1;
        S->nnodes = nranks ? (unsigned)((nranks + rpn - 1) / rpn) : 1;
    }
    for (i = 0; i < d->nlocs; i++) {
        long r = d->locs[i].rank;
        S->L[i].node = up_machine_node_of(m, r == UP_NO_RANK ? 0 : r, (unsigned)(nranks ? nranks : 1));
        S->L[i].share = 1.0;
    }
    up_map_init(&S->link_free);
    S->route_cap = S->nnodes + 64; /* a ring's longest route is nnodes / 2 */
    if (m->contention && (!(S->out_free = up_calloc(S->nnodes, sizeof *S->out_free)) ||
                          !(S->in_free = up_calloc(S->nnodes, sizeof *S->in_free)) ||
                          !(S->route = up_calloc(S->route_cap, sizeof *S->route)))) {
        up_sim_free(S);
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    }
    *out = S;
    return UP_OK;
}

void up_sim_free(up_sim *S)
{
    size_t i;
    if (!S)
        return;
    for (i = 0; i < S->n; i++) {
        up_free(S->L[i].in);
        up_free(S->L[i].pc);
    }
    for (i = 0; i < CCACHE; i++)
        up_free(S->cc[i].exit);
    up_free(S->tmp_enter);
    up_free(S->tmp_sent);
    up_free(S->tmp_recvd);
    up_free(S->out_free);
    up_free(S->in_free);
    up_free(S->route);
    up_map_free(&S->link_free);
    up_free(S->sl);
    up_free(S->L);
    up_free(S);
}

/* ---- one run --------------------------------------------------------------------------- */

up_status up_sim_trace(up_sim *S, up_trace *t, up_writer *w, const up_replay_observer *obs,
                       const char *what, up_sim_summary *s, up_err *err)
{
    const up_machine *m = &S->m;
    up_status st;
    size_t i;

    memset(s, 0, sizeof *s);
    if ((st = up_replay_run(t, w, up_sim_ops(), S, obs, &s->res, err)) != UP_OK) {
        st = up_writer_explain(w, st, err);
        goto done;
    }
    if (S->nomem) {
        st = UP_ERR(err, UP_ENOMEM, "out of memory simulating '%s'", up_esc(what));
        goto done;
    }
    if (S->overflow) {
        st = UP_ERR(err, UP_EFORMAT,
                    "simulating '%s': a predicted time passed 2^62 ticks, all the trace's clock "
                    "(%llu ticks/s) can count: cpu_ratio %g and ns_per_byte %g stretch this "
                    "trace too far", up_esc(what), (unsigned long long)s->res.resolution,
                    m->cpu_ratio, m->ns_per_byte);
        goto done;
    }
    s->measured_s = up_ticks_s(&s->res, sub0(s->res.end_m, s->res.start_m));
    s->predicted_s = up_ticks_s(&s->res, sub0(s->res.end_a, s->res.start_a));
    s->cpu_time = S->used_cpu;
    for (i = 0; i < s->res.nlocs; i++) {
        up_loc_result *lr = &s->res.locs[i];
        if (lr->rank != UP_NO_RANK && lr->rank + 1 > s->nranks)
            s->nranks = lr->rank + 1;
    }
    /* the names point into the definitions, which go with the trace */
    for (i = 0; i < s->res.nlocs; i++) {
        char *nm = up_strdup(s->res.locs[i].name ? s->res.locs[i].name : "");
        if (!nm) {
            st = UP_ERR(err, UP_ENOMEM, "out of memory");
            s->res.locs[i].name = NULL;
            continue;
        }
        s->res.locs[i].name = nm;
        s->owns_names = true;
    }
done:
    if (st != UP_OK)
        up_sim_summary_free(s);
    return st;
}

void up_sim_summary_free(up_sim_summary *s)
{
    size_t i;
    if (s->owns_names)
        for (i = 0; i < s->res.nlocs; i++)
            up_free((char *)s->res.locs[i].name);
    s->owns_names = false;
    up_replay_result_free(&s->res);
}
