/*
 * timeline.c - the Vampir-like timelines of `unperturb report` (timeline.h):
 * which window to draw, and the boxes and messages inside it, merged to the
 * drawing's resolution.  src/report/timeline.c draws them as SVG.
 *
 * Place in the data flow: OTF2 archive --reader streams--> [the window: one
 * location read once or twice] and [the timeline: every location read once,
 * merged in time order by a heap (util/heap.h)] --> up_timeline.
 *
 * Time: ticks of the archive.  "Seconds from the trace start" count from the
 * ClockProperties' global offset, as `unperturb export --window` does.
 *
 * Memory: per location its open regions and reader buffers; per row the
 * boxes, merged to the drawing's resolution (at most 2 width_px + 1 per row,
 * see emit()); the messages in flight (sends not yet received, one queue per
 * channel, capped at QUEUE_CAP); at most max_msgs messages kept.  Records
 * outside the window are read and dropped.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/timeline.h"
#include "util/heap.h"

#define WIDTH_MAX 20000u              /* width_px above this is a usage error */
#define STACK_MAX ((size_t)1 << 16)   /* open regions remembered per location */
#define QUEUE_CAP ((size_t)1 << 20)   /* message ends waiting for their partner */

void up_timeline_opts_init(up_timeline_opts *o)
{
    memset(o, 0, sizeof *o);
    o->width_px = 1000;
    o->max_rows = 64;
    o->max_msgs = 2000;
}

/* ---- small helpers ---------------------------------------------------------- */

static double ticks_s(uint64_t ticks, uint64_t res)
{
    return (double)ticks / (double)(res ? res : 1);
}

/* origin + s seconds in ticks, saturating */
static uint64_t s_ticks(uint64_t origin, uint64_t res, double s)
{
    long double v = (long double)s * (long double)(res ? res : 1);
    if (!(v < 1.8e19L) || v + (long double)origin >= 1.8e19L)
        return UINT64_MAX;
    return origin + (uint64_t)(v + 0.5L); /* v may pass llroundl's long long */
}

/* "rank 3", or the location's name, or "location <id>" */
static void loc_label(const up_defs *d, uint32_t li, char *buf, size_t n)
{
    const up_loc_def *l = &d->locs[li];
    if (l->rank != UP_NO_RANK)
        snprintf(buf, n, "rank %ld", l->rank);
    else if (l->name && *l->name) /* escaped: a cut never halves an escape */
        up_text_escape(buf, n, l->name, 0);
    else
        snprintf(buf, n, "location %llu", (unsigned long long)l->id);
}

double up_timeline_s(const up_timeline *tl, uint64_t ticks)
{
    return ticks_s(ticks, tl->resolution);
}

const char *up_timeline_region_name(const up_timeline *tl, OTF2_RegionRef r)
{
    const up_region_def *rg = up_defs_region(tl->defs, r);
    return rg && rg->name ? rg->name : "?";
}

static up_timeline_kind kind_of_def(const up_region_def *rg)
{
    if (!rg)
        return UP_TIMELINE_USER;
    if (rg->flags & UP_REGION_OVERHEAD)
        return UP_TIMELINE_OVERHEAD;
    if (rg->paradigm == OTF2_PARADIGM_MPI || (rg->name && !strncmp(rg->name, "MPI_", 4)))
        return UP_TIMELINE_MPI;
    return UP_TIMELINE_USER;
}

/* An MPI collective operation (the iterations' marker). */
static bool is_collective(const up_region_def *rg)
{
    if (rg->flags & (UP_REGION_MPI_INIT | UP_REGION_MPI_FINALIZE))
        return false;
    if (rg->paradigm == OTF2_PARADIGM_MPI &&
        (rg->role == OTF2_REGION_ROLE_BARRIER || rg->role == OTF2_REGION_ROLE_COLL_ONE2ALL ||
         rg->role == OTF2_REGION_ROLE_COLL_ALL2ONE || rg->role == OTF2_REGION_ROLE_COLL_ALL2ALL ||
         rg->role == OTF2_REGION_ROLE_COLL_OTHER))
        return true;
    return (rg->flags & UP_REGION_COLL) != 0; /* by name: the call table's class coll */
}

/* ---- the window ------------------------------------------------------------- */

/* The location that delimits the window: the lowest MPI rank (its first
 * location), preferring locations that declare records. */
/* The location a window is chosen on: rank 0's, or the lowest rank's, among
 * those that declare records; those that do not, and locations without a
 * rank, after them.  `skip` (may be NULL): locations already tried and found
 * empty (a damaged or missing event file), passed over; UINT32_MAX when
 * every location is. */
static uint32_t pick_loc(const up_defs *d, const bool *skip)
{
    int pass;
    size_t i, best;
    for (pass = 0; pass < 4; pass++) {
        best = SIZE_MAX;
        for (i = 0; i < d->nlocs; i++) {
            const up_loc_def *l = &d->locs[i];
            if (skip && skip[i])
                continue;
            if ((pass == 0 || pass == 2) && l->nevents == 0)
                continue;
            if (pass < 2 && l->rank == UP_NO_RANK)
                continue;
            if (best == SIZE_MAX || (l->rank != UP_NO_RANK && d->locs[best].rank != UP_NO_RANK &&
                                     l->rank < d->locs[best].rank))
                best = i;
        }
        if (best != SIZE_MAX)
            return (uint32_t)best;
    }
    return skip ? UINT32_MAX : 0;
}

enum { FIND_FIXED, FIND_ITER };

/* One pass over a location's records: the records inside a window known in
 * advance (FIND_FIXED), or inside the iteration, among the `nenter` Enters
 * of `region`, that holds `mid` (FIND_ITER: the window becomes known on the
 * way).  Also counts what the default window needs (count = true). */
typedef struct finder {
    int mode;
    uint64_t t0, t1;               /* FIXED; ITER: set when decided */
    OTF2_RegionRef region;         /* ITER */
    uint64_t nenter, mid;
    bool stop_after;               /* FIXED: stop reading after t1 */
    /* the default window's counts (indexed by region index) */
    bool count;
    uint64_t *coll, *nested;       /* Enters: of collectives, at depth 1 */
    uint64_t *cspan, *nspan;       /* their first and last times, 2 per region */
    bool depth1;                   /* ITER: only Enters at depth 1 count */
    size_t depth;
    /* state */
    uint64_t cur_t, cur_idx, j, cand_t, cand_idx, cand_j, iter;
    bool started, have_cand;
    /* out */
    uint64_t n, first, last;       /* records read, first and last time */
    uint64_t init_end, fin_begin;  /* count: first Leave(MPI_Init), Enter(MPI_Finalize) */
    bool has_init, has_fin;
    uint64_t rec0, rec1, r0_t, r1_t, nrecs;
} finder;

static void find_record(finder *f, const up_defs *d, const up_event *ev, uint64_t i)
{
    uint64_t t = ev->time;
    size_t depth;
    if (!f->started || t != f->cur_t) {
        f->cur_t = t;
        f->cur_idx = i;
    }
    if (!f->started)
        f->first = t;
    f->started = true;
    f->last = t;
    f->n = i + 1;
    if (f->count && ev->kind == UP_EV_Leave && !f->has_init &&
        (up_defs_region_flags(d, ev->u.Leave.region) & UP_REGION_MPI_INIT)) {
        f->has_init = true;
        f->init_end = t;
    }
    depth = f->depth;
    if (ev->kind == UP_EV_Enter)
        f->depth++;
    else if (ev->kind == UP_EV_Leave && f->depth)
        f->depth--;
    if (f->count && ev->kind == UP_EV_Enter) {
        const up_region_def *rg = up_defs_region(d, ev->u.Enter.region);
        if (rg && (rg->flags & UP_REGION_MPI_FINALIZE) && !f->has_fin) {
            f->has_fin = true;
            f->fin_begin = t;
        }
        if (rg) {
            size_t ri = (size_t)(rg - d->regions);
            if (is_collective(rg)) {
                if (!f->coll[ri]++)
                    f->cspan[2 * ri] = t;
                f->cspan[2 * ri + 1] = t;
            }
            if (depth == 1) {
                if (!f->nested[ri]++)
                    f->nspan[2 * ri] = t;
                f->nspan[2 * ri + 1] = t;
            }
        }
    }
    if (f->mode == FIND_ITER && ev->kind == UP_EV_Enter && ev->u.Enter.region == f->region &&
        (!f->depth1 || depth == 1)) {
        if (f->j == 0 || (t <= f->mid && f->j + 1 < f->nenter)) {
            f->have_cand = true;
            f->cand_t = t;
            f->cand_idx = f->cur_idx;
            f->cand_j = f->j;
        } else { /* the iteration [cand, this Enter] holds the midpoint */
            f->mode = FIND_FIXED;
            f->t0 = f->cand_t;
            f->t1 = t;
            f->iter = f->cand_j + 1;
            f->rec0 = f->cand_idx;
            f->r0_t = f->cand_t;
            f->nrecs = 1; /* rec1 is set below */
        }
        f->j++;
    }
    if (f->mode == FIND_FIXED && t >= f->t0 && t <= f->t1) {
        if (!f->nrecs) {
            f->rec0 = i;
            f->r0_t = t;
        }
        f->rec1 = i;
        f->r1_t = t;
        f->nrecs = f->rec1 - f->rec0 + 1;
    }
}

/* Reads location `li` of `t` through f (from where its stream stands). */
static up_status find_run(up_trace *t, uint32_t li, finder *f, up_err *err)
{
    const up_defs *d = up_trace_defs(t);
    up_stream *s = up_trace_stream(t, li);
    up_event *ev;
    up_status st;
    for (;;) {
        if ((st = up_stream_peek(s, 0, &ev, err)) != UP_OK)
            return st;
        if (!ev)
            break;
        if (f->mode == FIND_FIXED && f->stop_after && ev->time > f->t1 && f->started)
            break;
        find_record(f, d, ev, up_stream_records(s));
        up_stream_pop(s);
    }
    /* the last Enter held the midpoint or came too soon: the last candidate
     * runs to the location's end */
    if (f->mode == FIND_ITER && f->have_cand) {
        f->mode = FIND_FIXED;
        f->t0 = f->cand_t;
        f->t1 = f->last > f->cand_t ? f->last : f->cand_t + 1;
        f->iter = f->cand_j + 1;
        f->rec0 = f->cand_idx;
        f->r0_t = f->cand_t;
        f->rec1 = f->n - 1;
        f->r1_t = f->last;
        f->nrecs = f->rec1 - f->rec0 + 1;
    }
    return UP_OK;
}

static void set_recs(up_timeline_win *w, const finder *f)
{
    w->nrecs = f->nrecs;
    w->rec0 = f->nrecs ? f->rec0 : 0;
    w->rec1 = f->nrecs ? f->rec1 : 0;
    w->r0_t = f->nrecs ? f->r0_t : 0;
    w->r1_t = f->nrecs ? f->r1_t : 0;
}

static up_status window_given(up_trace *t, const up_timeline_opts *o, up_timeline_win *w, up_err *err)
{
    const up_defs *d = up_trace_defs(t);
    finder f;
    up_status st;
    uint64_t end;
    if (!(o->start_s >= 0) || !isfinite(o->start_s))
        return UP_ERR(err, UP_EUSAGE, "bad --window %g:%g: START must be 0 or more seconds",
                      o->start_s, o->end_s);
    if (!(o->end_s > o->start_s) || !isfinite(o->end_s))
        return UP_ERR(err, UP_EUSAGE, "bad --window %g:%g: START must be less than END",
                      o->start_s, o->end_s);
    w->t0 = s_ticks(w->origin, w->resolution, o->start_s);
    w->t1 = s_ticks(w->origin, w->resolution, o->end_s);
    memset(&f, 0, sizeof f);
    f.mode = FIND_FIXED;
    f.t0 = w->t0;
    f.t1 = w->t1;
    /* without a trace length, the trace's end is the location's last record */
    f.stop_after = d->trace_length > 0;
    if ((st = find_run(t, w->loc, &f, err)) != UP_OK)
        return st;
    end = d->trace_length > 0 ? w->origin + d->trace_length : 0;
    if (f.started && f.last > end)
        end = f.last;
    if (w->t0 >= end)
        return UP_ERR(err, UP_EUSAGE,
                      "--window %g:%g lies outside the trace: '%s' ends %.9g s after its start",
                      o->start_s, o->end_s, up_trace_anchor(t),
                      ticks_s(end > w->origin ? end - w->origin : 0, w->resolution));
    set_recs(w, &f);
    snprintf(w->how, sizeof w->how, "--window %g:%g", o->start_s, o->end_s);
    if (w->t1 > end) {
        w->t1 = end;
        snprintf(w->how, sizeof w->how, "--window %g:%g (the trace ends at %.6g s)", o->start_s,
                 o->end_s, ticks_s(end - w->origin, w->resolution));
    }
    return UP_OK;
}

/* The region with the most Enters (at least 3; the first of equals) whose
 * first and last Enter lie on either side of `mid`, or SIZE_MAX. */
static size_t marker(const uint64_t *count, const uint64_t *span, size_t n, uint64_t mid)
{
    size_t i, b = SIZE_MAX;
    for (i = 0; i < n; i++)
        if (count[i] >= 3 && span[2 * i] <= mid && mid < span[2 * i + 1] &&
            (b == SIZE_MAX || count[i] > count[b]))
            b = i;
    return b;
}

up_status up_timeline_window(up_trace *t, const up_timeline_opts *o, up_timeline_win *w, up_err *err)
{
    const up_defs *d = up_trace_defs(t);
    finder f, g;
    up_trace *t2 = NULL;
    up_status st;
    size_t ci, ni;
    uint64_t lo, hi;
    int rule;
    const char *name = "?";
    char where[41], nm[61]; /* escaped (loc_label, up_text_escape): cut whole */
    bool *tried = NULL;
    up_err local_err;

    if (!err)
        err = &local_err;
    memset(w, 0, sizeof *w);
    w->origin = d->global_offset;
    w->resolution = d->resolution ? d->resolution : 1;
    if (!d->nlocs)
        return UP_ERR(err, UP_EFORMAT, "'%s' has no locations to draw", up_trace_anchor(t));
    w->loc = pick_loc(d, NULL);
    if (o->window_set)
        return window_given(t, o, w, err);

    /* pass 1: counts, first and last record */
    memset(&f, 0, sizeof f);
    f.mode = FIND_FIXED;
    f.t0 = 1;
    f.t1 = 0; /* an empty window: nothing to find yet */
    f.count = true;
    f.coll = up_calloc(d->nregions ? d->nregions : 1, sizeof *f.coll);
    f.nested = up_calloc(d->nregions ? d->nregions : 1, sizeof *f.nested);
    f.cspan = up_calloc(d->nregions ? d->nregions : 1, 2 * sizeof *f.cspan);
    f.nspan = up_calloc(d->nregions ? d->nregions : 1, 2 * sizeof *f.nspan);
    if (!f.coll || !f.nested || !f.cspan || !f.nspan) {
        st = UP_ERR(err, UP_ENOMEM, "out of memory");
        goto done;
    }
    /* the preferred location, or, when its records are gone (a damaged or
     * missing event file), the next one that has some */
    if (!(tried = up_calloc(d->nlocs, sizeof *tried))) {
        st = UP_ERR(err, UP_ENOMEM, "out of memory");
        goto done;
    }
    for (;;) {
        if ((st = find_run(t, w->loc, &f, err)) != UP_OK)
            goto done;
        if (f.started)
            break;
        tried[w->loc] = true;
        if ((w->loc = pick_loc(d, tried)) == UINT32_MAX) {
            st = UP_ERR(err, UP_EFORMAT, "'%s' has no records on any location to choose a window from",
                        up_trace_anchor(t));
            goto done;
        }
    }
    loc_label(d, w->loc, where, sizeof where);

    /* pass 2, on a second reader of the same archive */
    if ((st = up_trace_open(up_trace_anchor(t), &t2, err)) != UP_OK)
        goto done;
    /* the run: from the end of MPI_Init to the start of MPI_Finalize where
     * the location has them (as `compensate` measures it), else from its
     * first record to its last */
    lo = f.has_init ? f.init_end : f.first;
    hi = f.has_fin && f.fin_begin > lo ? f.fin_begin : f.last;
    if (hi < lo)
        hi = lo;
    memset(&g, 0, sizeof g);
    g.mid = lo + (hi - lo) / 2;
    g.stop_after = true;
    ci = marker(f.coll, f.cspan, d->nregions, g.mid);
    ni = marker(f.nested, f.nspan, d->nregions, g.mid);
    if (ci != SIZE_MAX) {
        rule = 1; /* iterations between a collective's calls */
        g.nenter = f.coll[ci];
    } else if (ni != SIZE_MAX) {
        rule = 2; /* between the calls of a region called from the outermost */
        ci = ni;
        g.nenter = f.nested[ni];
        g.depth1 = true;
    } else {
        uint64_t len = hi - lo;
        rule = 3; /* the middle 10% */
        g.mode = FIND_FIXED;
        g.t0 = lo + len / 20 * 9 + len % 20 * 9 / 20;
        g.t1 = lo + len / 20 * 11 + len % 20 * 11 / 20;
        if (g.t1 <= g.t0)
            g.t1 = g.t0 + 1;
    }
    if (rule < 3) { /* the region's id: the definitions map ids to indices */
        uint64_t k0, k1, v;
        size_t i;
        g.mode = FIND_ITER;
        for (i = 0; i < d->region_index.cap; i++)
            if (up_map_at(&d->region_index, i, &k0, &k1, &v) && v == ci) {
                g.region = (OTF2_RegionRef)k0;
                break;
            }
        name = d->regions[ci].name ? d->regions[ci].name : "?";
    }
    if ((st = find_run(t2, w->loc, &g, err)) != UP_OK)
        goto done;
    w->t0 = g.t0;
    w->t1 = g.t1 > g.t0 ? g.t1 : g.t0 + 1;
    set_recs(w, &g);
    if (rule == 1)
        snprintf(w->how, sizeof w->how, "iteration %llu of %llu (%s on %s)",
                 (unsigned long long)g.iter, (unsigned long long)(g.nenter - 1),
                 up_text_escape(nm, sizeof nm, name, 0), where);
    else if (rule == 2)
        snprintf(w->how, sizeof w->how, "iteration %llu of %llu (calls of %s on %s)",
                 (unsigned long long)g.iter, (unsigned long long)(g.nenter - 1),
                 up_text_escape(nm, sizeof nm, name, 0), where);
    else
        snprintf(w->how, sizeof w->how, "the middle 10%% of the run of %s (no iterations found)",
                 where);
done:
    up_trace_close(t2);
    up_free(tried);
    up_free(f.coll);
    up_free(f.nested);
    up_free(f.cspan);
    up_free(f.nspan);
    return st;
}

up_status up_timeline_map_window(up_trace *t, const up_timeline_win *a, up_timeline_win *w,
                                 up_err *err)
{
    const up_defs *d = up_trace_defs(t);
    up_stream *s;
    finder f;
    up_event *ev;
    up_status st;
    uint64_t ra = a->resolution ? a->resolution : 1, i = 0, r0 = 0, r1 = 0;
    bool have0 = false, have1 = false;
    double ratio;
    up_err local_err;

    if (!err)
        err = &local_err;
    memset(w, 0, sizeof *w);
    w->origin = d->global_offset;
    w->resolution = d->resolution ? d->resolution : 1;
    w->loc = a->loc;
    ratio = (double)w->resolution / (double)ra;
    if (a->t1 <= a->t0)
        return UP_ERR(err, UP_EUSAGE, "empty window [%llu, %llu]", (unsigned long long)a->t0,
                      (unsigned long long)a->t1);
    /* the same offsets from this trace's start, in case the records do not
     * match */
    w->t0 = w->origin + (uint64_t)llround((double)(a->t0 > a->origin ? a->t0 - a->origin : 0) * ratio);
    w->t1 = w->origin + (uint64_t)llround((double)(a->t1 > a->origin ? a->t1 - a->origin : 0) * ratio);
    if (w->t1 <= w->t0)
        w->t1 = w->t0 + 1;
    if (a->loc >= d->nlocs) {
        snprintf(w->how, sizeof w->how, "%.110s (same offsets: no location %u)", a->how, a->loc);
        return UP_OK;
    }
    memset(&f, 0, sizeof f);
    f.mode = FIND_FIXED;
    f.t0 = w->t0;
    f.t1 = w->t1;
    s = up_trace_stream(t, a->loc);
    for (;;) {
        uint64_t tv;
        if ((st = up_stream_peek(s, 0, &ev, err)) != UP_OK)
            return st;
        if (!ev)
            break;
        i = up_stream_records(s);
        tv = ev->time;
        if (a->nrecs && i == a->rec0) {
            r0 = tv;
            have0 = true;
        }
        if (a->nrecs && i == a->rec1) {
            r1 = tv;
            have1 = true;
        }
        find_record(&f, d, ev, i);
        up_stream_pop(s);
        if ((!a->nrecs || have1) && tv > f.t1)
            break;
    }
    if (have0 && have1) {
        uint64_t lead = a->r0_t > a->t0 ? a->r0_t - a->t0 : 0;
        uint64_t trail = a->t1 > a->r1_t ? a->t1 - a->r1_t : 0;
        uint64_t l2 = (uint64_t)llround((double)lead * ratio);
        uint64_t t2 = (uint64_t)llround((double)trail * ratio);
        w->t0 = r0 > l2 ? r0 - l2 : 0;
        w->t1 = r1 + t2 > w->t0 ? r1 + t2 : w->t0 + 1;
        w->rec0 = a->rec0;
        w->rec1 = a->rec1;
        w->nrecs = a->nrecs;
        w->r0_t = r0;
        w->r1_t = r1;
        snprintf(w->how, sizeof w->how, "%.130s, the same records", a->how);
    } else {
        set_recs(w, &f);
        snprintf(w->how, sizeof w->how, "%.120s, the same offsets from the start", a->how);
    }
    return UP_OK;
}

/* ---- building the timeline ---------------------------------------------------- */

/* a message end waiting for its partner: the k-th send or receive of its
 * channel */
typedef struct tl_end {
    uint64_t k, t;
    bool recv;
} tl_end;

typedef struct tl_chan {
    uint32_t src, dst;
    uint64_t sent, recvd;
    tl_end *q;                 /* ring of qcap (a power of two) */
    size_t qcap, qhead, qlen;
} tl_chan;

/* the box being merged on a row */
typedef struct tl_pend {
    bool open, mixed;
    uint64_t t0, t1;
    OTF2_RegionRef region;     /* its first interval's */
    uint16_t depth;
    uint8_t kind;
    uint32_t parts;
    uint64_t ticks[3];         /* by kind */
    struct {
        OTF2_RegionRef region;
        uint64_t len;
        uint16_t depth;
    } best[3];                 /* the longest interval of each kind */
} tl_pend;

typedef struct tl_loc {
    up_stream *s;
    uint64_t cur;              /* drawn up to here */
    uint64_t flush_end;
    OTF2_RegionRef *stack;
    size_t depth, scap;
    uint64_t pending_to;       /* in-window sends to it not yet received */
    uint32_t row;
    bool started, flushing;
} tl_loc;

typedef struct tl_build {
    const up_defs *d;
    up_timeline *tl;
    up_err *err;
    uint64_t t0, t1;
    double px;                 /* ticks per pixel column */
    unsigned W;
    tl_loc *L;
    size_t n;
    up_heap heap;              /* locations by the time of their next record */
    tl_pend *pend;             /* by row */
    size_t *boxcap;            /* by row */
    double *acc_mpi, *acc_ovh; /* grouped: nrows x W, pixel-columns of time */
    uint8_t *kind;             /* by region index */
    up_map chmap;
    tl_chan *ch;
    size_t nch, chcap, queued;
    uint64_t pending;          /* in-window sends not yet received */
    size_t maxmsgs, msgcap;
    uint64_t stride, found;
    bool nomem;
} tl_build;

static unsigned kind_of(const tl_build *B, OTF2_RegionRef r)
{
    const up_region_def *rg = up_defs_region(B->d, r);
    return rg ? B->kind[rg - B->d->regions] : UP_TIMELINE_USER;
}

/* The pending box of row `ri` becomes a box. */
static void close_box(tl_build *B, uint32_t ri)
{
    tl_pend *p = &B->pend[ri];
    up_timeline_row *R = &B->tl->rows[ri];
    up_timeline_box *b;
    if (!p->open)
        return;
    p->open = false;
    if (!up_grow((void **)&R->box, &B->boxcap[ri], R->nbox + 1, sizeof *R->box)) {
        B->nomem = true;
        return;
    }
    b = &R->box[R->nbox++];
    memset(b, 0, sizeof *b);
    b->t0 = p->t0;
    b->t1 = p->t1;
    b->parts = p->parts;
    b->mixed = p->mixed;
    if (!p->mixed) {
        b->region = p->region;
        b->depth = p->depth;
        b->kind = p->kind;
    } else { /* the kind with the most time (MPI first among equals) */
        unsigned k = UP_TIMELINE_MPI;
        if (p->ticks[UP_TIMELINE_OVERHEAD] > p->ticks[k])
            k = UP_TIMELINE_OVERHEAD;
        if (p->ticks[UP_TIMELINE_USER] > p->ticks[k])
            k = UP_TIMELINE_USER;
        b->kind = (uint8_t)k;
        b->region = p->best[k].region;
        b->depth = p->best[k].depth;
    }
}

static void pend_add(tl_pend *p, uint64_t a, uint64_t b, OTF2_RegionRef r, unsigned kind,
                     uint16_t depth)
{
    uint64_t len = b - a;
    if (!p->open) {
        memset(p, 0, sizeof *p);
        p->open = true;
        p->t0 = a;
        p->region = r;
        p->depth = depth;
        p->kind = (uint8_t)kind;
    } else if (r != p->region || kind != p->kind)
        p->mixed = true;
    p->t1 = b;
    p->parts++;
    p->ticks[kind] += len;
    if (len > p->best[kind].len || p->best[kind].len == 0) {
        p->best[kind].region = r;
        p->best[kind].len = len;
        p->best[kind].depth = depth;
    }
}

/* Interval [a, b) of a single-location row in region r.  Boxes merge when
 * contiguous in the same region, or when both are narrower than a pixel and
 * less than a pixel apart: then of any two neighbours one is at least a
 * pixel wide or a pixel away, so a row holds at most 2 W + 1 boxes. */
static void emit(tl_build *B, uint32_t ri, uint64_t a, uint64_t b, OTF2_RegionRef r,
                 unsigned kind, uint16_t depth)
{
    tl_pend *p = &B->pend[ri];
    if (p->open) {
        bool same = !p->mixed && p->region == r && p->kind == kind && p->depth == depth &&
                    p->t1 == a;
        bool narrow = (double)(p->t1 - p->t0) < B->px && (double)(b - a) < B->px &&
                      a >= p->t1 && (double)(a - p->t1) < B->px;
        if (!same && !narrow)
            close_box(B, ri);
    }
    pend_add(p, a, b, r, kind, depth);
}

/* Interval [a, b) of a grouped row: pixel-columns of MPI and overhead time. */
static void accumulate(tl_build *B, uint32_t ri, uint64_t a, uint64_t b, unsigned kind)
{
    double *acc, x0, x1;
    size_t c;
    if (kind == UP_TIMELINE_USER)
        return;
    acc = (kind == UP_TIMELINE_MPI ? B->acc_mpi : B->acc_ovh) + (size_t)ri * B->W;
    x0 = (double)(a - B->t0) / B->px;
    x1 = (double)(b - B->t0) / B->px;
    if (x1 > (double)B->W)
        x1 = (double)B->W;
    for (c = (size_t)x0; c < B->W && (double)c < x1; c++) {
        double lo = (double)c > x0 ? (double)c : x0;
        double hi = (double)(c + 1) < x1 ? (double)(c + 1) : x1;
        if (hi > lo)
            acc[c] += hi - lo;
    }
}

/* The location's state held from L->cur to t (clipped to the window). */
static void interval(tl_build *B, tl_loc *L, uint64_t a, uint64_t b)
{
    OTF2_RegionRef r;
    unsigned kind;
    uint16_t depth;
    if (a < B->t0)
        a = B->t0;
    if (b > B->t1)
        b = B->t1;
    if (a >= b)
        return;
    if (L->flushing) {
        r = OTF2_UNDEFINED_REGION;
        kind = UP_TIMELINE_OVERHEAD;
        depth = (uint16_t)(L->depth < UINT16_MAX ? L->depth : UINT16_MAX);
    } else if (L->depth) {
        size_t top = L->depth <= L->scap ? L->depth : L->scap;
        if (!top)
            return;
        r = L->stack[top - 1];
        kind = kind_of(B, r);
        depth = (uint16_t)(L->depth - 1 < UINT16_MAX ? L->depth - 1 : UINT16_MAX);
    } else
        return; /* outside every region: nothing drawn */
    if (B->tl->grouped)
        accumulate(B, L->row, a, b, kind);
    else
        emit(B, L->row, a, b, r, kind, depth);
}

static void advance(tl_build *B, tl_loc *L, uint64_t t)
{
    if (!L->started) {
        L->started = true;
        L->cur = t;
        return;
    }
    if (t <= L->cur)
        return;
    if (L->flushing && L->flush_end < t) {
        if (L->flush_end > L->cur) {
            interval(B, L, L->cur, L->flush_end);
            L->cur = L->flush_end;
        }
        L->flushing = false;
    }
    interval(B, L, L->cur, t);
    L->cur = t;
}

/* ---- messages ---- */

static bool in_window(const tl_build *B, uint64_t t) { return t >= B->t0 && t <= B->t1; }

static void found(tl_build *B, uint32_t src, uint32_t dst, uint64_t ts, uint64_t tr)
{
    up_timeline *tl = B->tl;
    up_timeline_msg *m;
    if (!in_window(B, ts) && !in_window(B, tr))
        return;
    tl->msgs_in_window++;
    if (B->found++ % B->stride != 0 || !B->maxmsgs)
        return;
    if (tl->nmsgs == B->maxmsgs) {
        size_t i, j;
        if (B->maxmsgs < 2)
            return;
        /* keep every other one: those kept are every (2 stride)-th found */
        for (i = j = 0; i < tl->nmsgs; i += 2)
            tl->msgs[j++] = tl->msgs[i];
        tl->nmsgs = j;
        B->stride *= 2;
        if ((B->found - 1) % B->stride != 0)
            return;
    }
    if (!up_grow((void **)&tl->msgs, &B->msgcap, tl->nmsgs + 1, sizeof *tl->msgs)) {
        B->nomem = true;
        return;
    }
    m = &tl->msgs[tl->nmsgs++];
    m->src_row = B->L[src].row;
    m->dst_row = B->L[dst].row;
    m->t_send = ts;
    m->t_recv = tr;
}

static tl_chan *channel(tl_build *B, OTF2_CommRef comm, uint32_t tag, uint32_t src, uint32_t dst)
{
    uint64_t k0 = (uint64_t)comm << 32 | tag, k1 = (uint64_t)src << 32 | dst;
    uint64_t *v = up_map_get(&B->chmap, k0, k1);
    tl_chan *c;
    if (v)
        return &B->ch[*v];
    if (!up_grow((void **)&B->ch, &B->chcap, B->nch + 1, sizeof *B->ch) ||
        !up_map_put(&B->chmap, k0, k1, B->nch)) {
        B->nomem = true;
        return NULL;
    }
    c = &B->ch[B->nch++];
    memset(c, 0, sizeof *c);
    c->src = src;
    c->dst = dst;
    return c;
}

static void q_pop(tl_build *B, tl_chan *c)
{
    tl_end *e = &c->q[c->qhead];
    if (!e->recv && in_window(B, e->t) && B->pending) {
        B->pending--;
        if (B->L[c->dst].pending_to)
            B->L[c->dst].pending_to--;
    }
    c->qhead = (c->qhead + 1) & (c->qcap - 1);
    c->qlen--;
    B->queued--;
}

static void q_push(tl_build *B, tl_chan *c, uint64_t k, uint64_t t, bool recv)
{
    tl_end *e;
    if (B->queued >= QUEUE_CAP)
        return; /* lost: its partner finds nothing */
    if (c->qlen == c->qcap) {
        size_t ncap = c->qcap ? 2 * c->qcap : 4, i;
        tl_end *nq = up_calloc(ncap, sizeof *nq);
        if (!nq) {
            B->nomem = true;
            return;
        }
        for (i = 0; i < c->qlen; i++)
            nq[i] = c->q[(c->qhead + i) & (c->qcap - 1)];
        up_free(c->q);
        c->q = nq;
        c->qcap = ncap;
        c->qhead = 0;
    }
    e = &c->q[(c->qhead + c->qlen) & (c->qcap - 1)];
    e->k = k;
    e->t = t;
    e->recv = recv;
    c->qlen++;
    B->queued++;
    if (!recv && in_window(B, t)) {
        B->pending++;
        B->L[c->dst].pending_to++;
    }
}

/* The partner of the k-th send (recv = false) or receive; its time, or false. */
static bool q_match(tl_build *B, tl_chan *c, uint64_t k, bool recv, uint64_t *t)
{
    while (c->qlen && c->q[c->qhead].k < k)
        q_pop(B, c); /* partners that were lost */
    if (c->qlen && c->q[c->qhead].k == k && c->q[c->qhead].recv != recv) {
        *t = c->q[c->qhead].t;
        q_pop(B, c);
        return true;
    }
    return false;
}

/* A send (recv = false) or receive on location li; `late`: after the
 * window, only receives are matched and nothing is queued. */
static void message(tl_build *B, uint32_t li, bool recv, OTF2_CommRef comm, uint32_t peer,
                    uint32_t tag, uint64_t t, bool late)
{
    uint32_t other;
    tl_chan *c;
    uint64_t k, pt;
    if (!up_defs_rank_loc(B->d, comm, peer, li, &other) || other >= B->n)
        return;
    if (!(c = recv ? channel(B, comm, tag, other, li) : channel(B, comm, tag, li, other)))
        return;
    if (recv) {
        k = c->recvd++;
        if (k < c->sent) {
            if (q_match(B, c, k, true, &pt))
                found(B, other, li, pt, t);
        } else if (!late)
            q_push(B, c, k, t, true);
    } else {
        k = c->sent++;
        if (k < c->recvd) {
            if (q_match(B, c, k, false, &pt))
                found(B, li, other, t, pt);
        } else
            q_push(B, c, k, t, false);
    }
}

static void push_region(tl_build *B, tl_loc *L, OTF2_RegionRef r)
{
    if (L->depth < L->scap)
        L->stack[L->depth] = r;
    else if (L->depth < STACK_MAX) {
        if (up_grow((void **)&L->stack, &L->scap, L->depth + 1, sizeof *L->stack))
            L->stack[L->depth] = r;
        else
            B->nomem = true;
    }
    L->depth++; /* deeper than STACK_MAX: counted, not remembered */
}

static void record(tl_build *B, uint32_t li, const up_event *e)
{
    tl_loc *L = &B->L[li];
    switch (e->kind) {
    case UP_EV_Enter:
        advance(B, L, e->time);
        push_region(B, L, e->u.Enter.region);
        break;
    case UP_EV_Leave:
        advance(B, L, e->time);
        if (L->depth)
            L->depth--;
        break;
    case UP_EV_BufferFlush:
        advance(B, L, e->time);
        L->flushing = true;
        L->flush_end = e->u.BufferFlush.stopTime > e->time ? e->u.BufferFlush.stopTime : e->time;
        break;
    case UP_EV_MpiSend:
        message(B, li, false, e->u.MpiSend.communicator, e->u.MpiSend.receiver,
                e->u.MpiSend.msgTag, e->time, false);
        break;
    case UP_EV_MpiIsend:
        message(B, li, false, e->u.MpiIsend.communicator, e->u.MpiIsend.receiver,
                e->u.MpiIsend.msgTag, e->time, false);
        break;
    case UP_EV_MpiRecv:
        message(B, li, true, e->u.MpiRecv.communicator, e->u.MpiRecv.sender,
                e->u.MpiRecv.msgTag, e->time, false);
        break;
    case UP_EV_MpiIrecv:
        message(B, li, true, e->u.MpiIrecv.communicator, e->u.MpiIrecv.sender,
                e->u.MpiIrecv.msgTag, e->time, false);
        break;
    default:
        break;
    }
}

/* after the window: only receives that may match an in-window send */
static void record_late(tl_build *B, uint32_t li, const up_event *e)
{
    if (e->kind == UP_EV_MpiRecv)
        message(B, li, true, e->u.MpiRecv.communicator, e->u.MpiRecv.sender,
                e->u.MpiRecv.msgTag, e->time, true);
    else if (e->kind == UP_EV_MpiIrecv)
        message(B, li, true, e->u.MpiIrecv.communicator, e->u.MpiIrecv.sender,
                e->u.MpiIrecv.msgTag, e->time, true);
}

static up_status setup_rows(tl_build *B, const up_timeline_opts *o)
{
    const up_defs *d = B->d;
    up_timeline *tl = B->tl;
    size_t nrows, g = 1, i, r;
    up_map ranks;
    unsigned max_rows = o->max_rows ? o->max_rows : 64;

    if (d->nlocs > max_rows) {
        g = (d->nlocs + max_rows - 1) / max_rows;
        tl->grouped = true;
    }
    nrows = (d->nlocs + g - 1) / g;
    if (!(tl->rows = up_calloc(nrows ? nrows : 1, sizeof *tl->rows)) ||
        !(B->pend = up_calloc(nrows ? nrows : 1, sizeof *B->pend)) ||
        !(B->boxcap = up_calloc(nrows ? nrows : 1, sizeof *B->boxcap)))
        return UP_ERR(B->err, UP_ENOMEM, "out of memory");
    tl->nrows = nrows;
    if (tl->grouped) {
        if (!(B->acc_mpi = up_calloc(nrows * B->W, sizeof *B->acc_mpi)) ||
            !(B->acc_ovh = up_calloc(nrows * B->W, sizeof *B->acc_ovh)))
            return UP_ERR(B->err, UP_ENOMEM, "out of memory");
        for (r = 0; r < nrows; r++)
            if (!(tl->rows[r].mpi_frac = up_calloc(B->W, sizeof(float))) ||
                !(tl->rows[r].ovh_frac = up_calloc(B->W, sizeof(float))))
                return UP_ERR(B->err, UP_ENOMEM, "out of memory");
    }
    /* ranks with more than one location name their locations too */
    up_map_init(&ranks);
    for (i = 0; i < d->nlocs; i++)
        if (d->locs[i].rank != UP_NO_RANK) {
            uint64_t *v = up_map_get(&ranks, (uint64_t)d->locs[i].rank, 0);
            if (!up_map_put(&ranks, (uint64_t)d->locs[i].rank, 0, v ? *v + 1 : 1)) {
                up_map_free(&ranks);
                return UP_ERR(B->err, UP_ENOMEM, "out of memory");
            }
        }
    for (r = 0; r < nrows; r++) {
        up_timeline_row *R = &tl->rows[r];
        size_t a = r * g, b = a + g < d->nlocs ? a + g : d->nlocs;
        R->loc0 = (uint32_t)a;
        R->nlocs = (uint32_t)(b - a);
        for (i = a; i < b; i++)
            B->L[i].row = (uint32_t)r;
        if (b - a == 1) {
            const up_loc_def *l = &d->locs[a];
            uint64_t *v = l->rank != UP_NO_RANK ? up_map_get(&ranks, (uint64_t)l->rank, 0) : NULL;
            if (v && *v > 1) { /* the name escaped, at most 40 bytes of what is left */
                size_t w = (size_t)snprintf(R->label, sizeof R->label, "rank %ld ", l->rank);
                if (w < sizeof R->label)
                    up_text_escape(R->label + w, sizeof R->label - w < 41 ? sizeof R->label - w : 41,
                                   l->name ? l->name : "", 0);
            } else
                loc_label(d, (uint32_t)a, R->label, sizeof R->label);
        } else if (d->locs[a].rank != UP_NO_RANK && d->locs[a].rank == d->locs[b - 1].rank)
            snprintf(R->label, sizeof R->label, "rank %ld (%zu locations)", d->locs[a].rank,
                     b - a);
        else if (d->locs[a].rank != UP_NO_RANK && d->locs[b - 1].rank != UP_NO_RANK)
            snprintf(R->label, sizeof R->label, "ranks %ld-%ld", d->locs[a].rank,
                     d->locs[b - 1].rank);
        else
            snprintf(R->label, sizeof R->label, "locations %zu-%zu", a, b - 1);
    }
    up_map_free(&ranks);
    return UP_OK;
}

/* The next record of li: *more false at its end, else *t its time. */
static up_status pull(tl_build *B, uint32_t li, bool *more, uint64_t *t)
{
    up_event *ev;
    up_status st;
    up_stream_pop(B->L[li].s);
    if ((st = up_stream_peek(B->L[li].s, 0, &ev, B->err)) != UP_OK)
        return st;
    *more = ev != NULL;
    if (ev)
        *t = ev->time;
    return UP_OK;
}

static up_status run(tl_build *B, up_trace *t)
{
    up_heap *h = &B->heap;
    up_event *ev;
    up_status st;
    size_t i, j;
    uint64_t next = 0;
    bool more;

    for (i = 0; i < B->n; i++) {
        tl_loc *L = &B->L[i];
        L->s = up_trace_stream(t, i);
        if ((st = up_stream_peek(L->s, 0, &ev, B->err)) != UP_OK)
            return st;
        if (ev) { /* room for every location is reserved */
            h->a[h->n].key = ev->time;
            h->a[h->n++].loc = (uint32_t)i;
        }
    }
    up_heap_make(h);
    /* the records up to the window's end, in time order */
    while (h->n && !B->nomem) {
        uint32_t li = h->a[0].loc;
        if (h->a[0].key > B->t1)
            break;
        up_stream_peek(B->L[li].s, 0, &ev, B->err); /* buffered: cannot fail */
        record(B, li, ev);
        if ((st = pull(B, li, &more, &next)) != UP_OK)
            return st;
        if (more) {
            up_heap_rekey_top(h, next);
            continue;
        }
        /* its last record: a buffer flush still runs to its end */
        if (B->L[li].flushing)
            advance(B, &B->L[li], B->L[li].flush_end);
        up_heap_pop(h);
    }
    /* regions still open at the window's end are drawn to it */
    for (i = 0; i < h->n; i++)
        advance(B, &B->L[h->a[i].loc], B->t1);
    for (i = 0; i < B->tl->nrows && !B->tl->grouped; i++)
        close_box(B, (uint32_t)i);
    /* after it: the receives of in-window sends, on their receivers only */
    for (i = j = 0; i < h->n; i++)
        if (B->L[h->a[i].loc].pending_to)
            h->a[j++] = h->a[i];
    h->n = j;
    up_heap_make(h);
    while (h->n && B->pending && !B->nomem) {
        uint32_t li = h->a[0].loc;
        up_stream_peek(B->L[li].s, 0, &ev, B->err);
        record_late(B, li, ev);
        if ((st = pull(B, li, &more, &next)) != UP_OK)
            return st;
        if (more && B->L[li].pending_to)
            up_heap_rekey_top(h, next);
        else
            up_heap_pop(h);
    }
    return UP_OK;
}

up_status up_timeline_build(up_trace *t, const up_timeline_win *w, const up_timeline_opts *o,
                            up_timeline *out, up_err *err)
{
    const up_defs *d = up_trace_defs(t);
    tl_build B;
    up_status st = UP_OK;
    size_t i, r, c;
    up_err local_err;

    if (!err)
        err = &local_err;
    memset(out, 0, sizeof *out);
    memset(&B, 0, sizeof B);
    up_map_init(&B.chmap);
    if (w->t1 <= w->t0)
        return UP_ERR(err, UP_EUSAGE, "empty timeline window [%llu, %llu]",
                      (unsigned long long)w->t0, (unsigned long long)w->t1);
    if (o->width_px > WIDTH_MAX)
        return UP_ERR(err, UP_EUSAGE, "timeline width %u px is more than %u", o->width_px,
                      WIDTH_MAX);
    out->resolution = d->resolution ? d->resolution : 1;
    out->win = *w;
    out->defs = d;
    out->width_px = o->width_px ? o->width_px : 1000;
    B.d = d;
    B.tl = out;
    B.err = err;
    B.t0 = w->t0;
    B.t1 = w->t1;
    B.W = out->width_px;
    B.px = (double)(w->t1 - w->t0) / (double)B.W;
    B.n = d->nlocs;
    B.stride = 1;
    B.maxmsgs = o->max_msgs;
    if (!(B.L = up_calloc(B.n ? B.n : 1, sizeof *B.L)) ||
        !up_heap_reserve(&B.heap, B.n ? B.n : 1) ||
        !(B.kind = up_calloc(d->nregions ? d->nregions : 1, 1))) {
        st = UP_ERR(err, UP_ENOMEM, "out of memory");
        goto done;
    }
    for (i = 0; i < d->nregions; i++)
        B.kind[i] = (uint8_t)kind_of_def(&d->regions[i]);
    if ((st = setup_rows(&B, o)) != UP_OK)
        goto done;
    if ((st = run(&B, t)) != UP_OK)
        goto done;
    if (B.nomem) {
        st = UP_ERR(err, UP_ENOMEM, "out of memory drawing the timeline");
        goto done;
    }
    for (r = 0; out->grouped && r < out->nrows; r++) {
        up_timeline_row *R = &out->rows[r];
        double n = R->nlocs ? (double)R->nlocs : 1.0;
        for (c = 0; c < B.W; c++) {
            double m = B.acc_mpi[r * B.W + c] / n, v = B.acc_ovh[r * B.W + c] / n;
            R->mpi_frac[c] = (float)(m < 1 ? m : 1);
            R->ovh_frac[c] = (float)(v < 1 ? v : 1);
        }
    }
done:
    for (i = 0; B.L && i < B.n; i++)
        up_free(B.L[i].stack);
    for (i = 0; i < B.nch; i++)
        up_free(B.ch[i].q);
    up_free(B.ch);
    up_map_free(&B.chmap);
    up_free(B.L);
    up_heap_free(&B.heap);
    up_free(B.kind);
    up_free(B.pend);
    up_free(B.boxcap);
    up_free(B.acc_mpi);
    up_free(B.acc_ovh);
    if (st != UP_OK)
        up_timeline_free(out);
    return st;
}

void up_timeline_free(up_timeline *tl)
{
    size_t r;
    if (!tl)
        return;
    for (r = 0; tl->rows && r < tl->nrows; r++) {
        up_free(tl->rows[r].box);
        up_free(tl->rows[r].mpi_frac);
        up_free(tl->rows[r].ovh_frac);
    }
    up_free(tl->rows);
    up_free(tl->msgs);
    tl->rows = NULL;
    tl->msgs = NULL;
    tl->nrows = tl->nmsgs = 0;
}
