/*
 * engine_poll.c - polling
 */
#include <string.h>

#include "replay/engine_int.h"

/* ---- polling (docs/models.md, "Polling") ------------------------------------ */

/* Records read ahead for the end of a spin; a longer spin is collapsed in
 * pieces of this reach (its end is not seen before its start is timed). */
#define SPIN_LOOKAHEAD 16384

enum { SPIN_NONE, SPIN_ENDS, SPIN_OPEN };

/* A run of poll calls from the head record (a poll call's Enter) on, each
 * less than the spin gap of program time after the one before. */
typedef struct spin_run {
    uint32_t calls;    /* complete calls seen */
    size_t last_enter; /* position of the last call's Enter */
    size_t last_leave; /* ... and of its Leave */
    uint64_t pmin;     /* shortest measured call */
    uint64_t between;  /* program time between its calls, summed (gaps less O) */
    int end;           /* SPIN_ENDS: its last call completed a request (not a
                        * cancelled one), or a probe's was followed by the
                        * call that receives; SPIN_OPEN: out of reach;
                        * SPIN_NONE: it ended without a completion */
} spin_run;

static bool probe_region(const engine *E, OTF2_RegionRef r)
{
    const up_region_def *rg = up_defs_region(E->d, r);
    return rg && (rg->flags & UP_REGION_PROBE);
}

static int spin_scan(engine *E, rloc *L, uint32_t li, spin_run *sr)
{
    size_t i = 0, j;
    up_event *e;
    memset(sr, 0, sizeof *sr);
    sr->pmin = UINT64_MAX;
    for (;;) {
        unsigned depth = 0;
        bool done = false, cancelled = false;
        uint64_t t0, t_leave, o;
        OTF2_RegionRef reg;
        unsigned fl;
        if (up_stream_peek(L->s, i, &e, E->err) != UP_OK)
            return -1;
        t0 = e->time;
        reg = e->u.Enter.region;
        for (j = i + 1;; j++) {
            if (j >= SPIN_LOOKAHEAD) {
                sr->end = sr->calls ? SPIN_OPEN : SPIN_NONE;
                return 0;
            }
            if (up_stream_peek(L->s, j, &e, E->err) != UP_OK)
                return -1;
            if (!e)
                return 0; /* the trace ends inside the call */
            if (e->kind == UP_EV_Enter)
                depth++;
            else if (e->kind == UP_EV_Leave) {
                if (!depth)
                    break;
                depth--;
            } else if (e->kind == UP_EV_MpiRequestCancelled)
                cancelled = true;
            else if (e->kind != UP_EV_MpiRequestTest)
                done = true;
        }
        sr->calls++;
        sr->last_enter = i;
        sr->last_leave = j;
        t_leave = e->time;
        if ((t_leave > t0 ? t_leave - t0 : 0) < sr->pmin)
            sr->pmin = t_leave > t0 ? t_leave - t0 : 0;
        if (done || cancelled) {
            sr->end = cancelled ? SPIN_NONE : SPIN_ENDS;
            return 0;
        }
        set_rflags(E, e); /* the Leave's O is a poll's */
        o = E->ops->record_ovh ? E->ops->record_ovh(E->model, li, e) : 0;
        if (j + 1 >= SPIN_LOOKAHEAD) {
            sr->end = SPIN_OPEN;
            return 0;
        }
        if (up_stream_peek(L->s, j + 1, &e, E->err) != UP_OK)
            return -1;
        if (!e || e->kind != UP_EV_Enter || (e->time > t_leave + o && e->time - t_leave - o > E->spin_pause))
            return 0;
        fl = up_defs_region_flags(E->d, e->u.Enter.region);
        if (fl & UP_REGION_POLL)
            sr->between += e->time > t_leave + o ? e->time - t_leave - o : 0;
        else {
            /* a probe that found its message, then the call that takes it */
            if ((fl & UP_REGION_MPI) && probe_region(E, reg))
                sr->end = SPIN_ENDS;
            return 0;
        }
        i = j + 1;
    }
}

/* Before the record's own handler: a record of a spin being collapsed takes
 * no time (STEP_OK, *mark set when it belongs to a collapsed call); a poll
 * call's Enter may start a spin (*start: it is the spin's first record).
 * STEP_DECLINED: the record's own handler times it. */
int up_eng_poll_step(engine *E, uint32_t li, up_event **evp, unsigned *mark, bool *start)
{
    rloc *L = &E->L[li];
    up_event *ev = *evp, *e;
    spin_run sr;
    bool cont;
    if (L->spin_left) {
    collapse:
        L->spin_left--;
        set_rflags(E, ev);
        E->ops->local(E->model, li, &L->ls, ev);
        if (L->ls.started)
            ev->t_out = L->ls.prev_a;
        /* the last call's Enter: that call completes the spin, it stays */
        *mark = L->spin_left || !L->spin_last ? 1 : 0;
        return STEP_OK;
    }
    if (L->spin_last && ev->kind == UP_EV_Leave) /* the last call completed no message */
        L->spin_last = false;
    if (ev->kind != UP_EV_Enter || L->spin_last || ev->time < L->plain_until ||
        !(up_defs_region_flags(E->d, ev->u.Enter.region) & UP_REGION_POLL)) {
        L->spin_on = false;
        return STEP_DECLINED;
    }
    cont = L->spin_on;
    if (spin_scan(E, L, li, &sr) != 0 || up_stream_peek(L->s, 0, evp, E->err) != UP_OK)
        return STEP_ERROR;
    ev = *evp;
    L->spin_on = false;
    /* only the loop's own instructions between the calls: on average no more
     * than the spin gap (RandomAccess generates an update between two polls,
     * 10-25 ns more than a bare loop: work, not a wait) */
    if (sr.calls > 1 && sr.between / (sr.calls - 1) > E->spin_gap)
        sr.end = SPIN_NONE;
    if (sr.end == SPIN_NONE || (sr.calls < 2 && !cont)) {
        /* not a spin: an interleaved poll, or polls that ended otherwise */
        if (sr.calls > 1 && up_stream_peek(L->s, sr.last_leave, &e, E->err) == UP_OK && e)
            L->plain_until = e->time;
        if (up_stream_peek(L->s, 0, evp, E->err) != UP_OK)
            return STEP_ERROR;
        return STEP_DECLINED;
    }
    if (!cont) {
        E->spins++;
        L->spin_poll_m = sr.pmin;
    } else if (sr.pmin < L->spin_poll_m)
        L->spin_poll_m = sr.pmin;
    if (sr.end == SPIN_ENDS) {
        L->spin_left = (uint32_t)sr.last_enter;
        L->spin_last = true;
        E->polls_collapsed += sr.calls - 1;
    } else {
        L->spin_left = (uint32_t)sr.last_leave;
        L->spin_on = true;
        E->polls_collapsed += sr.calls;
    }
    if (cont) { /* the head goes on with a spin: no time either */
        L->spin_left++;
        goto collapse;
    }
    *start = true;
    return STEP_DECLINED;
}

/* The attribute unperturb::poll of the output, defined at its first use
 * (outputs without polls keep the input's definitions). */
static int poll_attr(engine *E)
{
    if (!E->has_poll_attr && E->out) {
        if (up_writer_attr(E->out, "unperturb::poll",
                           "polling (docs/models.md): 1 a poll call the approximated run did not "
                           "make, taking no time; 2 a completion moved here from an earlier poll",
                           OTF2_TYPE_UINT8, &E->poll_attr, E->err) != UP_OK)
            return STEP_ERROR;
        E->has_poll_attr = true;
    }
    return STEP_OK;
}

/* Writes a held completion at its due time (no earlier than the location's
 * last record): it moved there from the poll that measured it. */
static int held_write(engine *E, uint32_t li, size_t k)
{
    rloc *L = &E->L[li];
    held *h = &L->held[k];
    uint64_t t = h->due > L->ls.prev_a ? h->due : L->ls.prev_a;
    h->ev.t_out = t;
    h->ev.attrs = h->attrs;
    if (poll_attr(E) != STEP_OK)
        return STEP_ERROR;
    if (E->has_poll_attr && h->ev.nattrs < HELD_ATTRS) {
        up_attr *a = &h->attrs[h->ev.nattrs++];
        a->id = E->poll_attr;
        a->type = OTF2_TYPE_UINT8;
        a->value.uint8 = 2;
    }
    if (E->out && up_writer_event(E->out, li, &h->ev, E->err) != UP_OK)
        return STEP_ERROR;
    L->ls.prev_a = t;
    E->completions_moved++;
    memmove(&L->held[k], &L->held[k + 1], (L->nheld - k - 1) * sizeof *L->held);
    L->nheld--;
    return STEP_OK;
}

/* Record ev (timed, not yet written) may let held completions out: a poll
 * call ending at or after their time holds them; a call that may wait for a
 * message (any MPI call but a poll or one that never waits) waits for all. */
int up_eng_held_flush(engine *E, uint32_t li, up_event *ev, bool all)
{
    rloc *L = &E->L[li];
    if (!all && ev->kind == UP_EV_Leave && (ev->rflags & UP_REGION_POLL)) {
        while (L->nheld && L->held[0].due <= ev->t_out)
            if (held_write(E, li, 0) != STEP_OK)
                return STEP_ERROR;
        return STEP_OK;
    }
    if (!all && (ev->kind != UP_EV_Enter || !(ev->rflags & UP_REGION_MPI) ||
                 (ev->rflags & (UP_REGION_POLL | UP_REGION_NOWAIT))))
        return STEP_OK;
    while (L->nheld)
        if (held_write(E, li, 0) != STEP_OK)
            return STEP_ERROR;
    if (ev && ev->t_out < L->ls.prev_a)
        ev->t_out = L->ls.prev_a;
    return STEP_OK;
}

/* Record ev completes a receive whose message comes later than this poll
 * call: its place in the location's time is taken now, its record is
 * written later (held_flush), at the first poll at or after its message. */
int up_eng_hold(engine *E, uint32_t li, up_event *ev)
{
    rloc *L = &E->L[li];
    held *h;
    size_t k;
    L->hold_now = false;
    if (L->nheld == HELD_MAX && held_write(E, li, 0) != STEP_OK) /* bounded: the oldest waits */
        return STEP_ERROR;
    if (L->nheld == L->heldcap &&
        !up_grow((void **)&L->held, &L->heldcap, L->nheld + 1, sizeof *L->held)) {
        UP_ERR(E->err, UP_ENOMEM, "out of memory holding a completion");
        return STEP_ERROR;
    }
    for (k = L->nheld; k > 0 && L->held[k - 1].due > L->hold_t; k--)
        ;
    memmove(&L->held[k + 1], &L->held[k], (L->nheld - k) * sizeof *L->held);
    L->nheld++;
    h = &L->held[k];
    h->ev = *ev;
    h->ev.xbuf = NULL;
    h->ev.xcap = 0;
    h->ev.nattrs = ev->nattrs < HELD_ATTRS ? ev->nattrs : HELD_ATTRS - 1;
    if (h->ev.nattrs)
        memcpy(h->attrs, ev->attrs, h->ev.nattrs * sizeof *h->attrs);
    h->ev.attrs = h->attrs;
    h->due = L->hold_t;
    (void)up_eng_finish_times(E, L, ev->kind, ev->time, ev->t_out, ev->rflags, 0);
    return STEP_OK;
}

/* finish_record, with the attribute unperturb::poll = mark added */
int up_eng_finish_marked(engine *E, uint32_t li, up_event *ev, unsigned mark)
{
    up_attr a[HELD_ATTRS + 1], *saved = ev->attrs;
    uint32_t n = ev->nattrs;
    int r;
    if (!mark || !E->out || n > HELD_ATTRS)
        return up_eng_finish_record(E, li, ev, false);
    if (poll_attr(E) != STEP_OK)
        return STEP_ERROR;
    if (n)
        memcpy(a, ev->attrs, n * sizeof *a);
    a[n].id = E->poll_attr;
    a[n].type = OTF2_TYPE_UINT8;
    a[n].value.uint8 = (uint8_t)mark;
    ev->attrs = a;
    ev->nattrs = n + 1;
    r = up_eng_finish_record(E, li, ev, false);
    ev->attrs = saved;
    ev->nattrs = n;
    return r;
}

