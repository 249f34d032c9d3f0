/*
 * compensate.c - overhead compensation as a replay model.
 *
 * Place in the data flow: called by the replay engine for every record.
 * Sources (docs/models.md has the full derivation and every choice made):
 *   Wolf et al., trace-overhead-compensation-kojak.md Section 3:
 *     eq. (1) independent events; eqs. (2)-(11) send/receive in cases
 *     (m.1)/(m.2) and (a.1)/(a.2); eqs. (12)/(13) n-to-n collectives;
 *     1-to-n through the point-to-point translation.
 *   Sarukkai & Malony, spmd-perturbation-analysis.md Section 3.3:
 *     C_a = S + n*gamma + h*H and t_a^r(E) = MAX{t_a^s(B) + C_a + 2c,
 *     t_a^r(B) + c} (network mode).
 * Units: ticks of the archive's clock throughout; ns parameters are converted
 * once (or per message, for sizes) and rounded to the nearest tick.
 *
 * The overhead O of a record is spent right after its timestamp is taken
 * (the tracer reads the clock, then writes the record), so it lies in the
 * gap between that record and the next one on its location.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/compensate.h"

/* Records remembered per location for the overhead sums (ovh_since): the
 * history starts at HIST_MIN entries and doubles when full, up to HIST_MAX
 * (64 KiB a location); past that the oldest are forgotten.  Powers of two. */
#define HIST_MIN 32u
#define HIST_MAX 4096u

typedef struct hist_ent {
    uint64_t t_m;        /* measured time of a record */
    uint64_t cum_before; /* overhead of all earlier records of the location */
} hist_ent;

typedef struct cloc {
    uint64_t pend;       /* overhead to remove from the next gap (eq. 1) */
    uint64_t fl_s, fl_e; /* the last flush, measured [time, stopTime]: the record
                          * that filled the buffer is written after the flush
                          * with its earlier timestamp, so the flush lies in the
                          * gaps that overlap it, not in the one after its record */
    unsigned depth;      /* open overhead regions (BUFFER FLUSH, ...) */
    uint64_t cum;        /* overhead of all records so far (upper mode only) */
    uint64_t removed;    /* time actually removed */
    hist_ent *h;         /* ring of the last hn records, hcap slots, next at hpos */
    unsigned hcap, hn, hpos;
    bool forgot;         /* records older than the ring's were dropped */
    uint64_t t_first;    /* the location's first record's measured time */
    uint64_t extra_o;    /* added to every record's O here ([overhead_by_location]) */
    uint64_t st_s, st_e; /* the next stall of its spins, measured [start, end);
                          * st_s = UINT64_MAX: none (no list, or its end) */
    up_stalls *st;       /* the rest of its stall list (up_trace_stalls_open) */
    /* polling: a poll call is open, and it completed something
     * (docs/models.md, "Polling") */
    bool poll_open, poll_done;
} cloc;

struct up_comp {
    up_comp_params p;
    const up_defs *d;
    double ticks_per_ns;
    uint64_t o[UP_RK_COUNT];
    up_ovh_table ovh;              /* O by record kind, ticks */
    cloc *L;
    size_t n;
    uint64_t repairs[UP_MR_COUNT];
    uint64_t max_shift;  /* largest clock-condition violation or min_transfer raise */
    uint64_t moved;      /* receives raised by either */
    uint64_t nstalls, stall_ticks; /* stalls passed, their time removed */
    uint64_t stall_lists_damaged;  /* lists dropped at a damaged entry */
};

/* ns as ticks, saturating (a message of 2^60 bytes in a damaged trace). */
static uint64_t ns_ticks(const up_comp *M, double ns)
{
    return up_ticks_round(ns * M->ticks_per_ns);
}

static uint64_t sub0(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }
static uint64_t max2(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t min2(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Overhead a record adds after its timestamp: O of its kind, plus what the
 * location's records cost beyond it ([overhead_by_location]); a BufferFlush
 * costs its whole duration instead (the flush record's own writing is part
 * of that duration). */
UP_HOT_INLINE uint64_t loc_ovh(const up_comp *M, const cloc *c, const up_event *ev)
{
    return up_ovh_of(&M->ovh, ev) + (ev->kind != UP_EV_BufferFlush ? c->extra_o : 0);
}

static uint64_t c_record_ovh(void *mp, uint32_t loc, const up_event *ev)
{
    const up_comp *M = mp;
    return loc_ovh(M, &M->L[loc], ev);
}

/* Overhead of the location's records that lies in [t0, now): the
 * interval's share that a model must not reuse.  That is the O of the
 * records with timestamps from t0 on, and the part after t0 of the O of the
 * record just before it (a receiver whose Enter was written before the send
 * was still paying for it when the message came).  Exact while t0 lies within
 * the remembered records: all of them up to HIST_MAX, e.g. an MPI_Waitall
 * completing thousands of receives.  Older than those (counted as the model
 * limit overhead_history), the forgotten records' share of [t0, oldest) is
 * bounded: at most all their O, and no more than the interval itself; lower
 * takes that most (it must not remove less than the truth), upper none
 * (it must not remove more), network their average rate over the interval. */
static uint64_t ovh_since(up_comp *M, const cloc *c, uint64_t t0)
{
    uint64_t found = c->cum, after = c->cum; /* cum after the entry looked at */
    unsigned i;
    const hist_ent *e = NULL;
    for (i = 0; i < c->hn; i++) {
        e = &c->h[(c->hpos + c->hcap - 1 - i) & (c->hcap - 1)];
        if (e->t_m < t0) {
            uint64_t o = after - e->cum_before, end = e->t_m + o;
            return c->cum - found + (end > t0 ? end - t0 : 0);
        }
        found = after = e->cum_before;
    }
    if (c->forgot && e) { /* e: the oldest remembered, after t0 */
        uint64_t most = min2(e->cum_before, e->t_m - t0), span = e->t_m - c->t_first;
        M->repairs[UP_MR_overhead_history]++;
        if (M->p.mode == UP_MODE_LOWER)
            found -= most;
        else if (M->p.mode != UP_MODE_UPPER && span) {
            double avg = (double)e->cum_before * (double)(e->t_m - t0) / (double)span;
            found -= avg < (double)most ? (uint64_t)avg : most;
        }
    }
    return c->cum - found; /* nothing forgotten: from the first record on */
}

/* A full history doubles, or past HIST_MAX (or out of memory: the sums
 * then take the bounded path sooner, and say so) forgets its oldest record. */
__attribute__((noinline, cold)) static void hist_grow(cloc *c)
{
    unsigned ncap = c->hcap ? 2 * c->hcap : HIST_MIN, i;
    hist_ent *h = ncap <= HIST_MAX ? up_malloc(ncap * sizeof *h) : NULL;
    if (!h) {
        c->forgot = true;
        if (!c->hcap) /* not even the first: remember nothing */
            return;
        c->hn--; /* the oldest slot is overwritten next */
        return;
    }
    for (i = 0; i < c->hn; i++) /* oldest first */
        h[i] = c->h[(c->hpos + c->hcap - c->hn + i) & (c->hcap - 1)];
    up_free(c->h);
    c->h = h;
    c->hcap = ncap;
    c->hpos = c->hn & (ncap - 1);
}

/* Bookkeeping after a record at measured time t_m got its time, with
 * overhead o: the receiver-side sums of (m.1) and eq. (10) look back
 * (ovh_since). */
UP_HOT_INLINE void remember(cloc *c, uint64_t t_m, uint64_t o)
{
    if (c->hn == c->hcap) {
        if (c->hcap == HIST_MAX) { /* full for good: forget the oldest (the
                                    * common case on long traces, kept inline) */
            c->hn--;
            c->forgot = true;
        } else {
            if (!c->hn && !c->forgot)
                c->t_first = t_m;
            hist_grow(c);
            if (!c->hcap) {
                c->cum += o;
                return;
            }
        }
    }
    c->h[c->hpos].t_m = t_m;
    c->h[c->hpos].cum_before = c->cum;
    c->hpos = (c->hpos + 1) & (c->hcap - 1);
    c->hn++;
    c->cum += o;
}

/* ... and for a record other than a BufferFlush: its overhead is pending
 * for the next gap, overhead regions open and close. */
UP_HOT_INLINE void account_rec(cloc *c, unsigned kind, unsigned rflags, uint64_t t_m, uint64_t o)
{
    remember(c, t_m, o);
    c->pend = o;
    if (kind == UP_EV_Enter && (rflags & UP_REGION_OVERHEAD))
        c->depth++;
    else if (kind == UP_EV_Leave && c->depth && (rflags & UP_REGION_OVERHEAD))
        c->depth--;
}

/* ... for any record; a flush shrinks to nothing. */
UP_HOT_INLINE void account(up_comp *M, cloc *c, up_event *ev)
{
    uint64_t o = loc_ovh(M, c, ev);
    if (ev->kind == UP_EV_BufferFlush) {
        remember(c, ev->time, o);
        c->fl_s = ev->time; /* measured, not calibrated: removed where it lies */
        c->fl_e = ev->time + o;
        c->pend = 0;
        ev->u.BufferFlush.stopTime = ev->t_out; /* its duration is removed */
        return;
    }
    account_rec(c, ev->kind, ev->rflags, ev->time, o);
    if (__builtin_expect(c->poll_open, 0) && ev->kind != UP_EV_Enter && ev->kind != UP_EV_Leave &&
        ev->kind != UP_EV_MpiRequestTest)
        c->poll_done = true; /* the poll call completed something */
}

/* The location's next stall into st_s/st_e (UINT64_MAX: no more).  A list
 * that cannot be read ends there: less is removed, as without a list.  So
 * does one that is damaged (up_stalls_next): it is counted. */
static void stall_next(up_comp *M, cloc *c)
{
    int r = up_stalls_next(c->st, &c->st_s, &c->st_e);
    if (r <= 0 && c->st) {
        if (r < 0)
            M->stall_lists_damaged++;
        up_stalls_close(c->st);
        c->st = NULL;
    }
}

/* Stall time of the location in the gap [a, b): it is the tracer's, like a
 * flush, removed where it lies (all modes).  Stalls ending by b are passed;
 * it also counts towards the overhead sums of ovh_since(), as part of the
 * record before the gap, whose spin it stalled. */
__attribute__((noinline, cold)) static uint64_t gap_stalls(up_comp *M, cloc *c, uint64_t a, uint64_t b, bool to_cum)
{
    uint64_t sum = 0;
    while (c->st_s < b) {
        uint64_t lo = max2(c->st_s, a), hi = min2(c->st_e, b);
        if (hi > lo)
            sum += hi - lo;
        if (c->st_e > b)
            break; /* it goes on into the next gap */
        M->nstalls++;
        stall_next(M, c);
    }
    M->stall_ticks += sum;
    if (to_cum)
        c->cum += sum;
    return sum;
}

/* Eq. (1): event_a^i = event_a^{i-1} + (event_m^i - event_m^{i-1}) - O,
 * with O the overhead of record i-1 (or the whole gap inside an overhead
 * region).  A location's first record keeps its measured time. */
UP_HOT_INLINE uint64_t local_time_x(up_comp *M, cloc *c, const up_loc_state *ls, uint64_t t_m,
                                   bool with_stalls)
{
    uint64_t gap, rem;
    if (!ls->started)
        return t_m;
    gap = sub0(t_m, ls->prev_m);
    if (c->depth) {
        rem = gap;
        c->cum += gap; /* time inside an overhead region is overhead too */
        if (with_stalls && c->st_s < t_m) /* stalls in it are counted with it */
            gap_stalls(M, c, ls->prev_m, t_m, false);
    } else {
        /* the previous record's O, and the part of a flush in this gap */
        uint64_t lo = max2(c->fl_s, ls->prev_m), hi = min2(c->fl_e, t_m);
        uint64_t fl = hi > lo ? hi - lo : 0;
        if (with_stalls && __builtin_expect(c->st_s < t_m, 0))
            fl += gap_stalls(M, c, ls->prev_m, t_m, true);
        rem = fl + c->pend;
        if (rem > gap) { /* the calibrated O did not fit: a model limit */
            rem = gap;
            M->repairs[UP_MR_overhead_clamped]++;
        }
    }
    c->removed += rem;
    return ls->prev_a + gap - rem;
}

UP_HOT_INLINE uint64_t local_time(up_comp *M, cloc *c, const up_loc_state *ls, uint64_t t_m)
{
    return local_time_x(M, c, ls, t_m, true);
}

/* c_local with a stall before the record (see c_region_stalled) */
__attribute__((noinline)) static void c_local_stalled(up_comp *M, cloc *c,
                                                      const up_loc_state *ls, up_event *ev)
{
    ev->t_out = local_time(M, c, ls, ev->time);
    account(M, c, ev);
}

static uint64_t poll_cost_ticks(const up_comp *M, const cloc *c, uint64_t spin_poll_m);

/* A poll call's records with the rules (--polls model): a call that found
 * nothing holds no program work, only MPI's and the tracer's, so it lasts
 * no longer than an uninstrumented MPI_Test (test_ns) in network and lower
 * mode; its measured time less O, if shorter.  upper keeps the measured
 * time less O (eq. 1), the bound's own. */
static void poll_local(up_comp *M, cloc *c, const up_loc_state *ls, up_event *ev)
{
    bool leave = ev->kind == UP_EV_Leave && (ev->rflags & UP_REGION_POLL);
    uint64_t t = local_time(M, c, ls, ev->time);
    if (leave && c->poll_open && !c->poll_done && M->p.mode != UP_MODE_UPPER && M->p.test_ns > 0 &&
        ls->started) {
        /* from the call's Enter as written (a spin's last call: its start) */
        uint64_t cap = ls->enter_a + poll_cost_ticks(M, c, 0);
        if (t > cap)
            t = max2(cap, ls->prev_a);
    }
    ev->t_out = t;
    account(M, c, ev);
    if (ev->kind == UP_EV_Enter && (ev->rflags & UP_REGION_POLL)) {
        c->poll_open = true;
        c->poll_done = false;
    } else if (ev->kind == UP_EV_Leave)
        c->poll_open = false;
}

static void c_local(void *mp, uint32_t loc, const up_loc_state *ls, up_event *ev)
{
    up_comp *M = mp;
    cloc *c = &M->L[loc];
    if (__builtin_expect(c->poll_open || (ev->rflags & UP_REGION_POLL), 0) &&
        M->p.polls == UP_POLLS_MODEL) {
        poll_local(M, c, ls, ev);
        return;
    }
    if (__builtin_expect(c->st_s < ev->time, 0)) {
        c_local_stalled(M, c, ls, ev);
        return;
    }
    ev->t_out = local_time_x(M, c, ls, ev->time, false);
    account(M, c, ev);
}

/* c_local of an Enter or Leave, from its fields (the engine's fast path) */
UP_HOT_INLINE uint64_t region_time(up_comp *M, cloc *c, const up_loc_state *ls, unsigned kind,
                                  uint64_t t_m, unsigned rflags, bool with_stalls)
{
    uint64_t t_a = local_time_x(M, c, ls, t_m, with_stalls);
    account_rec(c, kind, rflags, t_m, up_ovh_of_region(&M->ovh, kind, rflags) + c->extra_o);
    return t_a;
}

/* ... with a stall before it: apart, so that c_region calls nothing and
 * needs no stack frame on its common path */
__attribute__((noinline)) static uint64_t c_region_stalled(up_comp *M, cloc *c,
                                                           const up_loc_state *ls, unsigned kind,
                                                           uint64_t t_m, unsigned rflags)
{
    return region_time(M, c, ls, kind, t_m, rflags, true);
}

static uint64_t c_region(void *mp, uint32_t loc, const up_loc_state *ls, unsigned kind,
                         uint64_t t_m, unsigned rflags)
{
    up_comp *M = mp;
    cloc *c = &M->L[loc];
    if (__builtin_expect(c->st_s < t_m, 0))
        return c_region_stalled(M, c, ls, kind, t_m, rflags);
    return region_time(M, c, ls, kind, t_m, rflags, false);
}

static void c_send(void *mp, uint32_t loc, const up_loc_state *ls, up_event *ev, up_msg *msg)
{
    up_comp *M = mp;
    cloc *c = &M->L[loc];
    c_local(mp, loc, ls, ev);
    /* the tracer writes the send record before calling MPI: its overhead
     * delays the transfer and is inside the measured send-to-receive time,
     * with a stall of its spin (the next stall, if it starts by the
     * record's O and a microsecond's slack) */
    msg->ovh_path = M->o[UP_RK_SEND] + c->extra_o;
    if (c->st_s >= ev->time && c->st_s <= ev->time + msg->ovh_path + ns_ticks(M, 1000))
        msg->ovh_path += c->st_e - c->st_s;
    /* ... and a flush after its timestamp: the send record filled the
     * buffer, took its time before the flush and is written after it (the
     * last flush ends after the send's time only then), and the message
     * left once the flush was done */
    if (c->fl_e > ev->time)
        msg->ovh_path += c->fl_e - max2(c->fl_s, ev->time);
}

static unsigned hops(const up_comp *M, uint32_t a, uint32_t b)
{
    uint32_t na = M->d->locs[a].node, nb = M->d->locs[b].node;
    if (a == b || (na == nb && na != OTF2_UNDEFINED_SYSTEM_TREE_NODE))
        return 0;
    return 1;
}

/* Sarukkai's C_a = S + n*gamma + h*H in network mode, 0 in the bounds' modes */
/* The minimum transfer time of a message, send to receive complete, with
 * cp the copy time at one end: 2C in lower and upper mode; in network mode
 * Sarukkai's 2C + C_a, C_a = S + n*gamma + h*H, or, from a calibration
 * with [network_by_size], the ping-pong's one-way time of that size plus
 * h*H: the copies are inside that measure, however many the protocol
 * makes (two for eager and rendezvous, one for a single-copy transport),
 * so they are not added again. */
static uint64_t xfer_ticks(const up_comp *M, uint64_t bytes, unsigned h, uint64_t cp)
{
    double t;
    if (M->p.mode != UP_MODE_NETWORK)
        return 2 * cp;
    t = up_net_ns(&M->p, bytes);
    if (t < 0)
        return 2 * cp + ns_ticks(M, M->p.latency_ns + (double)bytes * M->p.ns_per_byte +
                                        (double)h * M->p.per_hop_ns);
    return ns_ticks(M, t + (double)h * M->p.per_hop_ns);
}

/* A measured message never takes longer in the approximated run than its
 * measurement allows: `mx`, the measured bound on its transfer, caps the
 * modelled minimum `xf` (network constants slower than these messages are
 * counted as the model limit transfer_capped), never below the two copies
 * the clock condition asks for. */
static uint64_t xfer_capped(up_comp *M, uint64_t xf, uint64_t mx, uint64_t cp)
{
    uint64_t cap = max2(mx, 2 * cp);
    if (xf <= cap)
        return xf;
    M->repairs[UP_MR_transfer_capped]++;
    return cap;
}

/* The receiving end of one transfer: Wolf eqs. (2)-(11), Sarukkai Fig. 4.
 *   send_m/send_a  the send event (send := enter.send for collectives)
 *   exit_m         measured end of the send call (exit.send)
 *   ovh_path       overhead between the send event and the transfer
 *   recv_m         measured receive event (recv := exit.recv)
 *   enter_m        measured enter.recv
 *   ready_m/ready_a  measured and approximated time of the receiver's previous
 *                  record; ready_a >= enter.recv_a and the receive cannot
 *                  complete before it
 * The receiver's copy C after ready_a (eqs. 4, 8) is no longer than the
 * measured gap from ready_m to recv_m: a message that arrived while the
 * receiver was in another MPI call (LAMMPS: both ranks' MPI_Send of 35-70 KB
 * progress each other's receives, whose MPI_Wait then returns 50 ns after
 * its Enter) was copied there, inside measured time that stays; charged
 * again after the Wait's Enter, every exchange lengthened both ranks by a
 * copy (+0.13% on a 1.3 s run, lower mode, no repair). */
static uint64_t p2p(up_comp *M, cloc *c, uint64_t send_m, uint64_t send_a,
                    uint64_t exit_m, uint64_t ovh_path, uint64_t bytes,
                    uint64_t recv_m, uint64_t enter_m, uint64_t ready_m, uint64_t ready_a,
                    unsigned h, bool measured)
{
    uint64_t cp0 = ns_ticks(M, up_copy_ns(&M->p, bytes)); /* C(size(msg)) * size(msg) */
    uint64_t cp = min2(cp0, sub0(recv_m, ready_m));     /* the receiver's copy */
    uint64_t xf = xfer_ticks(M, bytes, h, cp0), t, tmin; /* 2C + C_a */
    bool moved = false;

    if (!measured) /* re-matched (--wildcard): this pair was never measured */
        return max2(send_a + xf, ready_a + cp);
    if (recv_m < send_m + 2 * cp0) { /* measured trace violates it */
        M->repairs[UP_MR_clock_condition]++;
        M->max_shift = max2(M->max_shift, send_m + 2 * cp0 - recv_m);
        moved = true;
    }

    if (enter_m <= exit_m) {
        /* (m.1): eq. (2) Comm_m = recv_m - send_m, less the overhead on the
         * transfer's path; (a.1) eq. (3) send_a + Comm_m, (a.2) eq. (4)
         * enter.recv_a + C, as one MAX (docs/models.md) */
        uint64_t comm = sub0(recv_m, send_m + ovh_path), comm_m = comm;
        /* The receiver's records since the send lie on the interval too,
         * e.g. a completion record written in the same MPI_Waitall before
         * this one's.  Whether they delayed the receive (the message was
         * there) or not (it came later) is unknown: lower and network
         * remove them, upper keeps them. */
        if (M->p.mode != UP_MODE_UPPER)
            comm = sub0(comm, ovh_since(M, c, send_m));
        t = max2(send_a + comm, ready_a + cp);
        /* the receiver waited: the transfer took at most Comm_m (before
         * the receiver's own records, which may or may not have delayed it) */
        if (M->p.mode == UP_MODE_NETWORK)
            xf = xfer_capped(M, xf, comm_m, cp0);
    } else if (M->p.mode == UP_MODE_LOWER) {
        /* (m.2) eqs. (6), (8), (9), (11): max(2C, Comm^min) */
        t = max2(send_a + 2 * cp0, ready_a + cp);
    } else if (M->p.mode == UP_MODE_UPPER) {
        /* (m.2) eqs. (5), (8), (10), (11): the receiver was late, so its own
         * records since the send lie on the measured interval */
        uint64_t up = sub0(recv_m, send_m + ovh_since(M, c, send_m));
        t = max2(send_a + up, ready_a + cp);
    } else {
        /* Sarukkai, Fig. 4: MAX{t_a^s(B) + C_a + 2c, t_a^r(B) + c}; the
         * message was there by recv_m, so it took at most recv_m - send_m
         * less the send's O on its path (the receiver's own records since
         * the send did not slow a message in flight) */
        xf = xfer_capped(M, xf, sub0(recv_m, send_m + ovh_path), cp0);
        t = max2(send_a + xf, ready_a + cp);
    }
    /* never before the send plus the modelled minimum transfer time */
    tmin = xf;
    if (t < send_a + tmin) {
        M->max_shift = max2(M->max_shift, send_a + tmin - t);
        t = send_a + tmin;
        M->repairs[UP_MR_min_transfer]++;
        moved = true;
    }
    M->moved += moved;
    return max2(t, ready_a);
}

/* The receive's own eq.-(1) bookkeeping: its predecessor's overhead is not
 * part of the receive's time (the formulas start from ready_a). */
static void consume_pending(up_comp *M, cloc *c, const up_loc_state *ls, const up_event *ev)
{
    if (ls->started) {
        uint64_t gap = sub0(ev->time, ls->prev_m), o = c->pend;
        if (c->st_s < ev->time) /* into the overhead sums the formulas use */
            o += gap_stalls(M, c, ls->prev_m, ev->time, true);
        c->removed += o < gap ? o : gap;
    }
}

/* ---- polling (docs/models.md, "Polling") ---------------------------------- */

/* When the message of a receive completed by a poll is there in the
 * approximated run: send_a plus its transfer, which no poll measured (the
 * poll that found it came at some point after it arrived).  network: the
 * modelled transfer, no longer than the measured send-to-completion time
 * less the send's O on its path; lower: the two copies; upper: that whole
 * measured time, as if the message had needed all of it. */
static uint64_t poll_arrival(up_comp *M, uint32_t loc, const up_event *ev, const up_msg *msg)
{
    uint64_t bytes = ev->kind == UP_EV_MpiRecv ? ev->u.MpiRecv.msgLength : ev->u.MpiIrecv.msgLength;
    uint64_t cp = ns_ticks(M, up_copy_ns(&M->p, bytes));
    uint64_t meas = max2(sub0(ev->time, msg->send_m + msg->ovh_path), 2 * cp);
    uint64_t xf = xfer_ticks(M, bytes, hops(M, msg->src, loc), cp);
    if (msg->rematched) /* never measured (--wildcard): the model alone */
        return msg->send_a + xf;
    switch (M->p.mode) {
    case UP_MODE_LOWER:
        return msg->send_a + 2 * cp;
    case UP_MODE_UPPER:
        return msg->send_a + meas;
    default:
        return msg->send_a + xfer_capped(M, xf, meas, cp);
    }
}

/* The cost of one poll call that remains in the approximated run: an
 * uninstrumented MPI_Test as the calibration measured it, else the spin's
 * shortest measured call less its records' overhead. */
static uint64_t poll_cost_ticks(const up_comp *M, const cloc *c, uint64_t spin_poll_m)
{
    uint64_t p;
    if (M->p.test_ns > 0)
        p = ns_ticks(M, M->p.test_ns);
    else
        p = sub0(spin_poll_m, M->ovh.poll[0] + c->extra_o);
    return p ? p : 1;
}

/* The completion that ends a spin: the spin's polls start at spin_a and one
 * every poll cost p; the first whose start is at or after the message's
 * arrival finds it and ends p later.  So the completion is at
 *     spin_a + p * (ceil((arrival - spin_a) / p) + 1),
 * never before spin_a + p; the failed polls before it, whatever their
 * number in the trace, take no time of their own (the engine wrote them
 * at spin_a). */
static void spin_recv(up_comp *M, uint32_t loc, const up_loc_state *ls, up_event *ev,
                      const up_msg *msg)
{
    cloc *c = &M->L[loc];
    uint64_t arr = poll_arrival(M, loc, ev, msg), p = poll_cost_ticks(M, c, ls->spin_poll_m), k = 0;
    consume_pending(M, c, ls, ev);
    if (arr > ls->spin_a)
        k = (arr - ls->spin_a + p - 1) / p;
    ev->t_out = max2(ls->spin_a + (k + 1) * p, ls->prev_a);
    account(M, c, ev);
}

/* A receive completed by a poll of an interleaved loop: the program did not
 * wait in that poll, so the record keeps its local time (eq. 1); returned
 * is when its message is there, for the engine to move it later. */
static uint64_t c_poll_recv(void *mp, uint32_t loc, const up_loc_state *ls, up_event *ev,
                            const up_msg *msg)
{
    up_comp *M = mp;
    c_local(mp, loc, ls, ev);
    return ls->started ? poll_arrival(M, loc, ev, msg) : 0;
}

static uint64_t c_spin_gap(void *mp)
{
    up_comp *M = mp;
    uint64_t g;
    if (M->p.polls == UP_POLLS_LOCAL)
        return 0;
    g = ns_ticks(M, M->p.spin_gap_ns);
    return g ? g : 1;
}

static void c_recv(void *mp, uint32_t loc, const up_loc_state *ls, up_event *ev,
                   const up_msg *msg)
{
    up_comp *M = mp;
    cloc *c = &M->L[loc];
    uint64_t bytes;
    if (!msg || !ls->started) {
        c_local(mp, loc, ls, ev);
        return;
    }
    if (ls->spin) {
        spin_recv(M, loc, ls, ev, msg);
        return;
    }
    bytes = ev->kind == UP_EV_MpiRecv ? ev->u.MpiRecv.msgLength : ev->u.MpiIrecv.msgLength;
    consume_pending(M, c, ls, ev);
    /* a rendezvous that moved only once this call was entered (progress):
     * the receiver did not wait for the sender, (m.2), whatever the send
     * call's end (it waited for this receiver) */
    ev->t_out = p2p(M, c, msg->send_m, msg->send_a,
                    msg->at_entry ? min2(msg->exit_m, sub0(ls->enter_m, 1)) : msg->exit_m,
                    msg->ovh_path, bytes,
                    ev->time, ls->enter_m, ls->prev_m, ls->prev_a, hops(M, msg->src, loc), !msg->rematched);
    account(M, c, ev);
}

/* Record ev ends a wait for a dependency that happened at dep_m (measured)
 * and dep_a (approximated).  If the location was already waiting then
 * (`waited`, the case (m.1) of a receive), the measured time from the
 * dependency to ev is reused, less the dependency's own overhead ovh_dep and,
 * in lower and network mode, the location's overhead since dep_m (upper keeps
 * it):  ev_a = max(ready_a, dep_a + (ev_m - dep_m - ovh_dep - O_self(dep_m))).
 * Otherwise (m.2) ev is a local record (eq. 1), no earlier than dep_a. */
static uint64_t after_dep(up_comp *M, cloc *c, const up_loc_state *ls, const up_event *ev,
                          bool waited, uint64_t dep_m, uint64_t dep_a, uint64_t ovh_dep)
{
    uint64_t d;
    if (!waited)
        return max2(local_time(M, c, ls, ev->time), dep_a);
    consume_pending(M, c, ls, ev); /* first: a stall in the gap joins the sums */
    d = sub0(ev->time, dep_m + ovh_dep);
    if (M->p.mode != UP_MODE_UPPER)
        d = sub0(d, ovh_since(M, c, dep_m));
    return max2(ls->prev_a, dep_a + d);
}

/* Does member `me` of c wait for member r's enter (the engine's coll_ready)? */
static bool coll_dep(const up_coll *co, uint32_t me, uint32_t r)
{
    switch (co->cls) {
    case UP_COLL_ONE_TO_N:
        return me != co->root && r == co->root;
    case UP_COLL_N_TO_ONE:
        return me == co->root;
    case UP_COLL_PREFIX:
        return r <= me; /* scan: 0..me; exscan waits for 0..me-1, and itself
                         * adds nothing: its own enter is before its end */
    default:
        return true;
    }
}

/* The end of a member that depends on a set of enters, by the rule of eq.
 * (13) over that set: j is the dependency with the latest measured enter,
 * k the latest approximated enter, and
 *   exit_a^i = enter_a^k + (exit_m^i - enter_m^j - O_in(j) - O_i(enter_m^j))
 * where O_i(t) is the overhead of the member's own records since t (the
 * principle of docs/models.md; upper mode keeps it, as in (m.1)).  That
 * holds when the member was already waiting for j (the Enter of the call
 * that completed it came before enter_m^j: the case (m.1) of a receive).
 * Otherwise the operation had completed before the member asked (m.2): the
 * end is a local record (eq. 1), no earlier than enter_a^k.  Used for the prefix
 * operations and for every nonblocking collective, whose request and
 * completion lie in different calls. */
static uint64_t coll_by_deps(up_comp *M, cloc *c, const up_loc_state *ls, const up_event *ev,
                             const up_coll *co, const up_member *self, uint32_t me)
{
    uint64_t k_a = 0;
    const up_member *j = NULL;
    uint32_t r;
    for (r = 0; r < co->n; r++) {
        const up_member *m = &co->m[r];
        if (!m->arrived || !coll_dep(co, me, r))
            continue;
        if (!j || m->begin_m > j->begin_m)
            j = m;
        k_a = max2(k_a, m->begin_a);
    }
    if (!j) /* depends on nobody: a local record */
        return local_time(M, c, ls, ev->time);
    if (self->end_m < j->begin_m && ls->enter_m <= j->begin_m)
        M->repairs[UP_MR_collective_clock]++;
    /* (m.1) when it was waiting in its call already, else (m.2) */
    return after_dep(M, c, ls, ev, ls->enter_m <= j->begin_m, j->begin_m, k_a, j->ovh_in);
}

static void c_coll_end(void *mp, uint32_t loc, const up_loc_state *ls, up_event *ev,
                       const up_coll *co, const up_member *self)
{
    up_comp *M = mp;
    cloc *c = &M->L[loc];
    uint32_t me = (uint32_t)(self - co->m), i;
    uint64_t t = 0;
    bool any = false;

    if (!ls->started) {
        c_local(mp, loc, ls, ev);
        return;
    }
    if (self->nonblocking || co->cls == UP_COLL_PREFIX) {
        ev->t_out = max2(coll_by_deps(M, c, ls, ev, co, self, me), ls->prev_a);
        account(M, c, ev);
        return;
    }
    switch (co->cls) {
    case UP_COLL_PREFIX:
        break;
    case UP_COLL_N_TO_N: {
        /* j: latest measured enter, k: latest approximated enter, l: earliest
         * measured exit.  eq. (12): exit_a = enter_a^k + (exit_m^l - enter_m^j)
         * eq. (13): exit_a^i = enter_a^k + (exit_m^i - enter_m^j); the
         * synchronisation time first loses the overhead of j's records inside
         * the operation. */
        const up_member *j = &co->m[co->j_last_m], *l = &co->m[co->l_first_end_m];
        uint64_t exit_ref = M->p.collective == UP_COLLECTIVE_SHARED ? l->end_m : self->end_m;
        if (self->end_m < j->begin_m)
            M->repairs[UP_MR_collective_clock]++;
        t = co->max_begin_a + sub0(exit_ref, j->begin_m + j->ovh_in);
        any = true;
        break;
    }
    case UP_COLL_ONE_TO_N: {
        /* send := enter.send of the root, recv := exit.recv of the member;
         * the size is what this member received */
        const up_member *r = &co->m[co->root];
        /* no bytes, no transfer: Open MPI returns from an MPI_Bcast of
         * count 0 at once (HPC Challenge's non-roots left before the root
         * entered), so the member's exit is a local record */
        if (me == co->root || !r->arrived || (!self->recvd && !r->sent))
            break;
        t = p2p(M, c, r->begin_m, r->begin_a, r->end_m, r->ovh_in, self->recvd,
                ev->time, self->begin_m, ls->prev_m, ls->prev_a, hops(M, r->loc, loc), true);
        any = true;
        break;
    }
    case UP_COLL_N_TO_ONE:
        /* the mirror image (docs/models.md): the root receives from every
         * member, send := enter.send of that member, and leaves after the
         * last of these transfers */
        if (me != co->root)
            break;
        for (i = 0; i < co->n; i++) {
            const up_member *s = &co->m[i];
            uint64_t ts;
            if (i == me || !s->arrived || !s->sent) /* no bytes, no transfer */
                continue;
            ts = p2p(M, c, s->begin_m, s->begin_a, s->end_m, s->ovh_in, s->sent,
                     ev->time, self->begin_m, ls->prev_m, ls->prev_a, hops(M, s->loc, loc), true);
            t = any ? max2(t, ts) : ts;
            any = true;
        }
        break;
    }
    if (!any) {
        c_local(mp, loc, ls, ev);
        return;
    }
    consume_pending(M, c, ls, ev);
    ev->t_out = max2(t, ls->prev_a);
    account(M, c, ev);
}

static const uint64_t *c_repairs(void *mp) { return ((up_comp *)mp)->repairs; }

static uint64_t c_max_shift(void *mp, uint64_t *moved)
{
    *moved = ((up_comp *)mp)->moved;
    return ((up_comp *)mp)->max_shift;
}

static uint64_t c_eager_limit(void *mp)
{
    double e = ((up_comp *)mp)->p.eager_limit;
    return e < 0 ? 0 : e >= 1.8e19 ? UINT64_MAX : (uint64_t)e;
}

/* Progress (docs/models.md, "Progress"): with no asynchronous progress a
 * rendezvous transfer moves only while the receiver is inside an MPI call.
 * The engine found the receiver's last MPI call before this completion, P,
 * and that it came after the send and the post with the receiver outside
 * MPI in between.  The receiver reached the library at P_in = P_m + O(P)
 * (its records at the call's start were the tracer's).  When that lies
 * after the send and the post (t0), before the completion, and the sender
 * wrote no record since, the sender was waiting for the receiver: the time
 * from P_in to the completion is reused as in (m.1), less the sender's own
 * overhead since P_in (lower and network; upper keeps it):
 *     exit_a = max(ready_a, P_a + (exit_m - P_in - O_s(P_in)))
 * The receiver's lateness itself, which held the tracer's time, is not
 * reused: P_a is where the approximated receiver enters MPI. */
static bool prog_waited(up_comp *M, cloc *c, const up_loc_state *ls, const up_event *ev,
                        const up_sync *s, uint64_t *t, uint64_t *in_m)
{
    const cloc *r = &M->L[s->dst];
    uint64_t t0 = max2(s->send_m, s->post_m), in, wait;
    in = s->prog_m + up_ovh_of_region(&M->ovh, s->prog_kind, s->prog_rflags) + r->extra_o;
    if (M->p.progress == UP_RDV_ASYNC || in <= t0 || in >= ev->time || in <= ls->prev_m)
        return false;
    consume_pending(M, c, ls, ev); /* first: a stall in the gap joins the sums */
    wait = ev->time - in;
    if (M->p.mode != UP_MODE_UPPER)
        wait = sub0(wait, ovh_since(M, c, in));
    *t = max2(ls->prev_a, s->prog_a + wait);
    *in_m = in;
    return true;
}

/* The record completing a synchronous send (the Leave of MPI_Ssend, or the
 * MpiIsendComplete of an MPI_Issend or of a send above the eager limit):
 * blocked synchronous communication, Sarukkai and Malony Section 3.3.
 * The sender cannot finish before the receive was posted (post).  When the
 * receiver posted after the send in the measured run (a late receiver) and
 * the sender wrote no record since the post, the sender was waiting: the
 * time from the post to the completion is reused like Comm_m of (m.1), less
 * the sender's own overhead since the post (lower and network; upper keeps
 * it):
 *     exit_a = max(ready_a, post_a + (exit_m - post_m - O_s(post_m)))
 * A record the sender wrote after the post (the completion of a receive in
 * the same MPI_Waitall: the tracer writes them all once the call returned)
 * shows that the wait was over by then; the interval from the post also
 * holds the wait for that receive's message, which its own record already
 * accounts for.  Then, and when the receive was waiting already, the
 * completion is a local record (eq. 1).  Either way it comes no earlier
 * than post_a plus the modelled minimum transfer time of the message (2C,
 * and C_a in network mode). */
static void c_sync_end(void *mp, uint32_t loc, const up_loc_state *ls, up_event *ev,
                       const up_sync *s)
{
    up_comp *M = mp;
    cloc *c = &M->L[loc];
    uint64_t t, base_m, base_a;
    if (!ls->started || !s) {
        c_local(mp, loc, ls, ev);
        return;
    }
    base_m = s->post_m, base_a = s->post_a; /* where the transfer can start */
    if (s->has_prog && prog_waited(M, c, ls, ev, s, &t, &base_m)) {
        M->repairs[UP_MR_progress_waited]++;
        base_a = s->prog_a;
    } else if (s->post_m > s->send_m && s->post_m > ls->prev_m) { /* waiting for a late receiver */
        uint64_t wait = sub0(ev->time, s->post_m);
        consume_pending(M, c, ls, ev); /* first: a stall in the gap joins the sums */
        if (M->p.mode != UP_MODE_UPPER)
            wait = sub0(wait, ovh_since(M, c, s->post_m));
        t = max2(ls->prev_a, s->post_a + wait);
    } else {
        t = max2(local_time(M, c, ls, ev->time), s->post_a);
    }
    if (s->bytes) { /* a message (RMA sync points have none) */
        uint64_t cp = ns_ticks(M, up_copy_ns(&M->p, s->bytes));
        uint64_t tmin = xfer_ticks(M, s->bytes, hops(M, s->src, s->dst), cp);
        if (base_m != s->post_m) /* from the receiver's entry into MPI: that
                                  * measured interval held the whole transfer */
            tmin = min2(tmin, ev->time - base_m);
        else if (M->p.mode == UP_MODE_NETWORK && ev->time > base_m) /* no longer than measured */
            tmin = xfer_capped(M, tmin, ev->time - base_m, cp);
        t = max2(t, base_a + tmin);
    }
    ev->t_out = t;
    account(M, c, ev);
}

static up_wildcard c_wildcard(void *mp) { return ((up_comp *)mp)->p.wildcard; }
static bool c_sync_progress(void *mp) { return ((up_comp *)mp)->p.progress == UP_RDV_MPI; }
static up_replies c_replies(void *mp) { return ((up_comp *)mp)->p.replies; }

/* the models' repairs (compensate.h), here with the model that counts most of
 * them; simulate.c declares them too */
const up_repair_kind up_model_repair_kinds[UP_MR_COUNT] = {
#define X(name, text, fix, before) {#name, text, fix, UP_REPAIR_##before},
    UP_MODEL_REPAIRS(X)
#undef X
};

static const up_model_ops comp_ops = {
    .name = "compensate",
    .record_ovh = c_record_ovh,
    .local = c_local,
    .send = c_send,
    .recv = c_recv,
    .coll_end = c_coll_end,
    .repair_kinds = up_model_repair_kinds,
    .nrepair_kinds = UP_MR_COUNT,
    .repairs = c_repairs,
    .eager_limit = c_eager_limit,
    .sync_end = c_sync_end,
    .max_shift = c_max_shift,
    .wildcard = c_wildcard,
    .region = c_region,
    .eager_from_trace = true,
    .spin_gap = c_spin_gap,
    .poll_recv = c_poll_recv,
    .replies = c_replies,
    .sync_progress = c_sync_progress,
};

const up_model_ops *up_comp_ops(void) { return &comp_ops; }

up_status up_comp_new(const up_comp_params *p, up_trace *t, up_comp **out, up_err *err)
{
    const up_defs *d = up_trace_defs(t);
    up_comp *M;
    unsigned i;
    *out = NULL;
    if (!(M = up_calloc(1, sizeof *M)) || !(M->L = up_calloc(d->nlocs, sizeof *M->L))) {
        up_free(M);
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    }
    M->p = *p;
    M->d = d;
    M->n = d->nlocs;
    M->ticks_per_ns = (double)d->resolution / 1e9;
    for (i = 0; i < UP_RK_COUNT; i++)
        M->o[i] = ns_ticks(M, p->overhead_ns[i]);
    up_ovh_table_init(&M->ovh, p, M->ticks_per_ns);
    for (i = 0; i < d->nlocs; i++) { /* [overhead_by_location] */
        size_t k;
        for (k = 0; k < p->nloc_ovh; k++)
            if (p->loc_ovh_id[k] == d->locs[i].id)
                M->L[i].extra_o = ns_ticks(M, p->loc_ovh_ns[k]);
    }
    for (i = 0; i < d->nlocs; i++) { /* the archive's stall lists */
        cloc *c = &M->L[i];
        c->st_s = c->st_e = UINT64_MAX;
        if (!p->archive_stalls)
            continue;
        if (up_trace_stalls_open(t, d->locs[i].id, &c->st, err) != UP_OK) {
            up_comp_free(M);
            return err ? err->status : UP_ENOMEM;
        }
        if (c->st)
            stall_next(M, c);
    }
    *out = M;
    return UP_OK;
}

void up_comp_free(up_comp *M)
{
    if (M) {
        size_t i;
        for (i = 0; i < M->n; i++) {
            up_free(M->L[i].h);
            up_stalls_close(M->L[i].st);
        }
        up_free(M->L);
        up_free(M);
    }
}

void up_comp_stalls(const up_comp *M, uint64_t *count, uint64_t *ticks, uint64_t *damaged)
{
    *damaged = M->stall_lists_damaged;
    *count = M->nstalls;
    *ticks = M->stall_ticks;
}

uint64_t up_comp_removed(const up_comp *M, size_t loc)
{
    return loc < M->n ? M->L[loc].removed : 0;
}
