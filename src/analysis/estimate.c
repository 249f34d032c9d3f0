/*
 * estimate.c - the time-based perturbation models of Malony and Reed,
 * models-for-perturbation-analysis.md Section 3, from one pass over the
 * trace (no replay).
 *
 * Place in the data flow: reader streams -> [this pass] -> up_estimate ->
 * text and JSON (src/report/estimate_report.c).
 *
 * The metrics are those of Section 2.2:
 *   AE = T_m(I(P)) - T(P)                         eq. (1)
 *   DP = DP^s + DP^c, DP^s = sum over tau_m^s of T(I), DP^c likewise over
 *        the critical path tau_m^cp
 *   T_a(P) = T_m(I(P)) - DP
 * T_a is each model's estimate of T(P), so T_m - T_a is its estimate of AE.
 * T(I) of a record is its kind's O (the paper's alpha when one constant is
 * given: "alpha N" then is exactly the sum of the records' O); the measured
 * cost of buffer flushes and overhead regions is added as it was measured,
 * as the replay does (docs/models.md).
 *
 * Mapping onto a trace (docs/models.md, "Quick estimates without replay"):
 * time runs over the replay's window [start, end) (MPI_Init's end ..
 * MPI_Finalize's start).  Every location is a concurrent thread i of one
 * concurrent phase that the window start forks and the window end joins;
 * the window holds no sequential events, so DP^s = 0.  A record's overhead
 * lies after its timestamp, so a location's records in [start, end_i)
 * perturb its part of the window: tau^i, |tau^i| = N_i.
 *
 * The pass merges the streams in measured-time order with a heap, so that
 * the counts "records before time t" that the models need at the window
 * start (known when the first MPI_Init ends) and at each location's end are
 * read off running counters: memory is O(locations).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/estimate.h"
#include "util/heap.h"

static const struct {
    const char *name, *title, *section, *formula;
} models[UP_ESTIMATE_COUNT] = {
    [UP_ESTIMATE_SEQ_TOTAL] = {"sequential_total", "sequential total time", "3.1.1",
                          "T_a = T_m - alpha N"},
    [UP_ESTIMATE_CONC_TOTAL] = {"concurrent_total", "concurrent total time", "3.1.2",
                           "T_a = T_m - DP^s - alpha N_max"},
    [UP_ESTIMATE_SEQ_EVENT] = {"sequential_event", "sequential event time", "3.2.1",
                          "t_a(e_i) = t_m(e_i) - (i-1) alpha   (2)"},
    [UP_ESTIMATE_CONC_EVENT] = {"concurrent_event", "concurrent event time", "3.2.2",
                           "t_a(e_k^i) = t_m(e_k^i) - t_m(e_j^s) + t_a(e_j^s) - alpha c_k^i"},
};

const char *up_estimate_model_name(unsigned m) { return m < UP_ESTIMATE_COUNT ? models[m].name : "?"; }
const char *up_estimate_model_title(unsigned m) { return m < UP_ESTIMATE_COUNT ? models[m].title : "?"; }
const char *up_estimate_model_section(unsigned m) { return m < UP_ESTIMATE_COUNT ? models[m].section : "?"; }
const char *up_estimate_model_formula(unsigned m) { return m < UP_ESTIMATE_COUNT ? models[m].formula : "?"; }

/* ---- running tallies ---------------------------------------------------------- */

/* A tally that grows record by record, and its value before the records of
 * the current timestamp: the records with time < t, for any t at or after
 * the latest time seen, without keeping the records. */
typedef struct track {
    up_estimate_tally cum, before;
    uint64_t cur_t;
    bool seen;
} track;

static void track_at(track *k, uint64_t t)
{
    if (!k->seen || t != k->cur_t) {
        k->before = k->cum;
        k->cur_t = t;
        k->seen = true;
    }
}

/* The records with time < t (t no earlier than the latest time seen). */
static up_estimate_tally track_lt(const track *k, uint64_t t)
{
    return k->seen && k->cur_t >= t ? k->before : k->cum;
}

static up_estimate_tally tally_sub(const up_estimate_tally *a, const up_estimate_tally *b)
{
    up_estimate_tally d;
    unsigned k;
    for (k = 0; k < UP_RK_COUNT; k++)
        d.n[k] = a->n[k] > b->n[k] ? a->n[k] - b->n[k] : 0;
    d.n_measured = a->n_measured > b->n_measured ? a->n_measured - b->n_measured : 0;
    d.measured_ticks = a->measured_ticks > b->measured_ticks ? a->measured_ticks - b->measured_ticks : 0;
    return d;
}

static uint64_t tally_records(const up_estimate_tally *t)
{
    uint64_t n = t->n_measured;
    unsigned k;
    for (k = 0; k < UP_RK_COUNT; k++)
        n += t->n[k];
    return n;
}

/* Sum of the calibrated O of the tally's records, ns. */
static double tally_o_ns(const up_comp_params *p, const up_estimate_tally *t)
{
    double s = 0;
    unsigned k;
    for (k = 0; k < UP_RK_COUNT; k++)
        s += (double)t->n[k] * p->overhead_ns[k];
    return s;
}

double up_estimate_tally_dp_s(const up_estimate *e, const up_comp_params *p, const up_estimate_tally *t)
{
    return tally_o_ns(p, t) * 1e-9 +
           (e->resolution ? (double)t->measured_ticks / (double)e->resolution : 0.0);
}

/* ---- the pass ------------------------------------------------------------------ */

typedef struct eloc {
    up_stream *s;
    track tr;                 /* this location's records */
    up_estimate_tally at_start;    /* its records before the window start */
    up_estimate_tally at_end;      /* its records before its end */
    up_estimate_tally all_at_end;  /* every location's records before its end */
    uint64_t last, fin;       /* latest time; its first Enter(MPI_Finalize) */
    uint64_t ovh_begin;       /* measured start of the open overhead region */
    unsigned depth;           /* open overhead regions */
    bool started, has_fin;
} eloc;

typedef struct pass {
    const up_defs *d;
    eloc *L;
    size_t n;
    up_heap heap;             /* the locations by the time of their next record */
    track all;                /* every location's records */
    up_estimate_tally all_at_start;
    bool have_start;
    uint64_t start, first;
    uint64_t decreasing;
} pass;

static void add_rk(eloc *L, track *all, unsigned rk)
{
    L->tr.cum.n[rk]++;
    all->cum.n[rk]++;
}

static void add_measured(eloc *L, track *all, uint64_t records, uint64_t ticks)
{
    L->tr.cum.n_measured += records;
    L->tr.cum.measured_ticks += ticks;
    all->cum.n_measured += records;
    all->cum.measured_ticks += ticks;
}

/* A record's cost, as the replay removes it (docs/models.md, "Where a
 * record's overhead lies"): O of its kind; a BufferFlush costs its measured
 * duration; an overhead region ("TRACE BUFFER FLUSH", "UNPERTURB ...") costs
 * its measured span from its Enter to its Leave, and the O of that Leave. */
static void account(pass *P, eloc *L, const up_event *ev)
{
    unsigned flags = 0, rk;
    if (ev->kind == UP_EV_Enter)
        flags = up_defs_region_flags(P->d, ev->u.Enter.region);
    else if (ev->kind == UP_EV_Leave)
        flags = up_defs_region_flags(P->d, ev->u.Leave.region);
    rk = up_rk_of(ev->kind);
    if (flags & UP_REGION_USER)
        rk = ev->kind == UP_EV_Enter ? UP_RK_FN_ENTER : UP_RK_FN_LEAVE;
    else if ((flags & UP_REGION_POLL) && (ev->kind == UP_EV_Enter || ev->kind == UP_EV_Leave))
        rk = ev->kind == UP_EV_Enter ? UP_RK_POLL_ENTER : UP_RK_POLL_LEAVE;

    if (ev->kind == UP_EV_Enter && (flags & UP_REGION_OVERHEAD)) {
        if (L->depth++ == 0)
            L->ovh_begin = ev->time;
        add_measured(L, &P->all, 1, 0);
    } else if (ev->kind == UP_EV_Leave && (flags & UP_REGION_OVERHEAD) && L->depth) {
        if (--L->depth == 0) {
            add_measured(L, &P->all, 0, ev->time > L->ovh_begin ? ev->time - L->ovh_begin : 0);
            add_rk(L, &P->all, rk);
        } else {
            add_measured(L, &P->all, 1, 0);
        }
    } else if (L->depth) {
        add_measured(L, &P->all, 1, 0); /* inside: the span covers it */
    } else if (ev->kind == UP_EV_BufferFlush) {
        uint64_t stop = ev->u.BufferFlush.stopTime;
        add_measured(L, &P->all, 1, stop > ev->time ? stop - ev->time : 0);
    } else {
        add_rk(L, &P->all, rk);
    }
}

/* One record: the heap's first. */
static void record(pass *P, uint32_t li, const up_event *ev)
{
    eloc *L = &P->L[li];
    uint64_t t = ev->time;
    unsigned flags = 0;
    size_t j;

    if (L->started && t < L->last)
        P->decreasing++;
    track_at(&L->tr, t);
    track_at(&P->all, t);
    if (ev->kind == UP_EV_Enter)
        flags = up_defs_region_flags(P->d, ev->u.Enter.region);
    else if (ev->kind == UP_EV_Leave)
        flags = up_defs_region_flags(P->d, ev->u.Leave.region);
    /* The window starts at the earliest end of MPI_Init: the first one in
     * time order.  Every location's count so far is its count before it. */
    if (ev->kind == UP_EV_Leave && (flags & UP_REGION_MPI_INIT) && !P->have_start) {
        P->have_start = true;
        P->start = t;
        for (j = 0; j < P->n; j++)
            P->L[j].at_start = track_lt(&P->L[j].tr, t);
        P->all_at_start = track_lt(&P->all, t);
    }
    /* A location's end: its first Enter(MPI_Finalize) */
    if (ev->kind == UP_EV_Enter && (flags & UP_REGION_MPI_FINALIZE) && !L->has_fin) {
        L->has_fin = true;
        L->fin = t;
        L->at_end = track_lt(&L->tr, t);
        L->all_at_end = track_lt(&P->all, t);
    }
    account(P, L, ev);
    if (!L->started || t > L->last)
        L->last = t;
    if (!L->started && t < P->first)
        P->first = t;
    L->started = true;
}

static up_status run_pass(pass *P, up_trace *t, up_estimate *e, up_err *err)
{
    size_t i;
    up_event *ev;

    for (i = 0; i < P->n; i++) {
        eloc *L = &P->L[i];
        L->s = up_trace_stream(t, i);
        if (up_stream_peek(L->s, 0, &ev, err) != UP_OK)
            return err->status;
        if (ev)
            up_heap_push(&P->heap, (uint32_t)i, ev->time); /* room reserved */
    }
    while (P->heap.n) {
        uint32_t li = P->heap.a[0].loc;
        eloc *L = &P->L[li];
        up_stream_peek(L->s, 0, &ev, err); /* buffered: cannot fail */
        record(P, li, ev);
        up_stream_pop(L->s);
        if (up_stream_peek(L->s, 0, &ev, err) != UP_OK)
            return err->status;
        if (ev) {
            up_heap_rekey_top(&P->heap, ev->time);
            continue;
        }
        /* the location's last record: without MPI_Finalize it ends here */
        if (!L->has_fin) {
            L->at_end = track_lt(&L->tr, L->last);
            L->all_at_end = track_lt(&P->all, L->last);
        }
        up_heap_pop(&P->heap);
    }
    for (i = 0; i < P->n; i++)
        e->records_total += (e->locs[i].records_total = up_stream_records(P->L[i].s));
    return UP_OK;
}

/* The four models from the tallies (Section 3). */
static void models_eval(up_estimate *e, const up_comp_params *p)
{
    const double tm = e->measured_s;
    long c = -1, s = -1;
    size_t i;
    up_estimate_value *v;

    for (i = 0; i < e->nlocs; i++) {
        up_estimate_loc *l = &e->locs[i];
        if (!l->counts_for_end)
            continue;
        if (c < 0 || l->conc_event_end_s > e->locs[c].conc_event_end_s)
            c = (long)i;
        if (s < 0 || l->seq_event_end_s > e->locs[s].seq_event_end_s)
            s = (long)i;
    }

    /* 3.1.1: all perturbation is direct (AE = DP) and every record costs
     * alpha: DP = alpha N over every record of the window, all locations
     * taken as one sequential program; T_a = T_m - alpha N. */
    v = &e->model[UP_ESTIMATE_SEQ_TOTAL];
    v->dp_seq_s = v->dp_s = up_estimate_tally_dp_s(e, p, &e->window);
    v->dp_conc_s = 0;
    v->records = e->records;
    v->critical = -1;
    v->approximated_s = tm - v->dp_s;

    /* 3.1.2: the critical path is the thread with the longest time after its
     * direct perturbation is removed: max over i of T_m(P_i) - alpha |tau^i|;
     * DP = DP^s + alpha N_max with N_max = |tau^max|, DP^s = 0 (no sequential
     * events in the window); T_a = T_m - DP^s - alpha N_max. */
    v = &e->model[UP_ESTIMATE_CONC_TOTAL];
    v->critical = c;
    v->dp_seq_s = 0;
    v->dp_conc_s = c >= 0 ? e->locs[c].dp_s : 0;
    v->dp_s = v->dp_seq_s + v->dp_conc_s;
    v->records = c >= 0 ? e->locs[c].records : 0;
    v->approximated_s = tm - v->dp_s;

    /* 3.2.1, eq. (2): t_a(e_i) = t_m(e_i) - (i-1) alpha over the trace as one
     * time-ordered sequence from the window start (e_1, t_a = t_m).  At a
     * location's end, i-1 is the number of records of every location in
     * [start, end_i); T_a is the latest approximated end. */
    v = &e->model[UP_ESTIMATE_SEQ_EVENT];
    v->critical = s;
    v->dp_seq_s = v->dp_s = s >= 0 ? e->locs[s].dp_all_s : 0;
    v->dp_conc_s = 0;
    v->records = s >= 0 ? tally_records(&e->locs[s].all) : 0;
    v->approximated_s = s >= 0 ? e->locs[s].seq_event_end_s : 0;

    /* 3.2.2: the time basis of a concurrent event e_k^i is the last
     * sequential event e_j^s, here the window start (t_a = t_m: the fork);
     * rule 1 (first event, c = 0) and rule 2 give
     *   t_a(e_k^i) = t_m(e_k^i) - t_m(e_j^s) + t_a(e_j^s) - alpha c_k^i
     * with c_k^i the records of thread i from the basis up to e_k^i.  The
     * first sequential event after the phase (the window end) takes as its
     * basis the concurrent event with the greatest t_a (sequential rule 1):
     * T_a = max over i of T_m(P_i) - alpha c^i(end_i). */
    v = &e->model[UP_ESTIMATE_CONC_EVENT];
    v->critical = c;
    v->dp_seq_s = 0;
    v->dp_conc_s = v->dp_s = c >= 0 ? e->locs[c].dp_s : 0;
    v->records = c >= 0 ? e->locs[c].records : 0;
    v->approximated_s = c >= 0 ? e->locs[c].conc_event_end_s : 0;
}

up_status up_estimate_run(up_trace *t, const up_comp_params *p, up_estimate *e, up_err *err)
{
    const up_defs *d = up_trace_defs(t);
    pass P;
    up_status st;
    size_t i;
    bool any_fin = false;
    double o_ns, res;
    up_err local_err;

    if (!err)
        err = &local_err;
    memset(e, 0, sizeof *e);
    memset(&P, 0, sizeof P);
    P.d = d;
    P.n = d->nlocs;
    P.first = UINT64_MAX;
    e->resolution = d->resolution;
    e->nlocs = d->nlocs;
    P.L = up_calloc(P.n ? P.n : 1, sizeof *P.L);
    (void)up_heap_reserve(&P.heap, P.n ? P.n : 1); /* failed: heap.a stays NULL */
    e->locs = up_calloc(P.n ? P.n : 1, sizeof *e->locs);
    if (!P.L || !P.heap.a || !e->locs) {
        st = UP_ERR(err, UP_ENOMEM, "out of memory");
        goto done;
    }
    if ((st = run_pass(&P, t, e, err)) != UP_OK)
        goto done;
    e->decreasing_time = P.decreasing;
    e->unknown_records = up_trace_unknown_records(t);

    /* The window, as the replay takes it (docs/models.md): the earliest end
     * of MPI_Init (else the first record) to the latest start of
     * MPI_Finalize (else the last record); a location without MPI_Finalize
     * does not end the window when others have one. */
    for (i = 0; i < P.n; i++)
        any_fin |= P.L[i].has_fin;
    e->start_m = P.have_start ? P.start : (P.first == UINT64_MAX ? 0 : P.first);
    e->window_marked = P.have_start && any_fin;
    for (i = 0; i < P.n; i++) {
        eloc *L = &P.L[i];
        up_estimate_loc *l = &e->locs[i];
        l->id = d->locs[i].id;
        l->rank = d->locs[i].rank;
        l->kind = d->locs[i].kind;
        l->process = d->locs[i].process;
        l->name = d->locs[i].name;
        l->started = L->started;
        if (!L->started)
            continue;
        l->has_window_end = any_fin && L->has_fin;
        l->end_m = L->has_fin ? L->fin : L->last;
        l->counts_for_end = !any_fin || L->has_fin;
        if (l->counts_for_end && l->end_m > e->end_m)
            e->end_m = l->end_m;
    }
    if (e->end_m < e->start_m)
        e->end_m = e->start_m;
    res = e->resolution ? (double)e->resolution : 1.0;
    e->measured_s = (double)(e->end_m - e->start_m) / res;

    for (i = 0; i < P.n; i++) {
        eloc *L = &P.L[i];
        up_estimate_loc *l = &e->locs[i];
        if (!l->started || l->end_m <= e->start_m)
            continue; /* ended before the window: nothing of it inside */
        l->measured_s = (double)(l->end_m - e->start_m) / res;  /* T_m(P_i) */
        l->own = tally_sub(&L->at_end, &L->at_start);           /* tau^i */
        l->all = tally_sub(&L->all_at_end, &P.all_at_start);
        l->records = tally_records(&l->own);                    /* |tau^i| */
        l->dp_s = up_estimate_tally_dp_s(e, p, &l->own);
        l->dp_all_s = up_estimate_tally_dp_s(e, p, &l->all);
        l->seq_event_end_s = l->measured_s - l->dp_all_s;       /* eq. (2) */
        l->conc_event_end_s = l->measured_s - l->dp_s;          /* 3.2.2 */
        if (l->counts_for_end && l->end_m == e->end_m)
            e->window = l->all; /* [start, end) */
    }
    e->records = tally_records(&e->window);
    e->measured_ovh_s = (double)e->window.measured_ticks / res;
    o_ns = tally_o_ns(p, &e->window);
    e->alpha_ns = e->records > e->window.n_measured
                      ? o_ns / (double)(e->records - e->window.n_measured) : 0.0;
    models_eval(e, p);
done:
    up_free(P.L);
    up_heap_free(&P.heap);
    if (st != UP_OK)
        up_estimate_free(e);
    return st;
}

void up_estimate_free(up_estimate *e)
{
    up_free(e->locs);
    e->locs = NULL;
    e->nlocs = 0;
}

/* ---- against the replay -------------------------------------------------- */

double up_estimate_replay_s(const up_estimate_report *r)
{
    const up_replay_result *x = r->replay;
    if (!x || !x->resolution)
        return NAN;
    return x->end_a > x->start_a ? (double)(x->end_a - x->start_a) / (double)x->resolution : 0.0;
}

double up_estimate_error(const up_estimate_report *r, unsigned m)
{
    double tr = up_estimate_replay_s(r);
    if (m >= UP_ESTIMATE_COUNT || isnan(tr) || tr <= 0)
        return NAN;
    return fabs(r->est->model[m].approximated_s - tr) / tr;
}
