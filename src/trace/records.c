/*
 * records.c - every OTF2 event kind, expanded from the generated field lists
 * of otf2_records.h: the reader callbacks that store a record into a stream
 * slot (with the slot and the time check every record passes), the writer
 * dispatch, the plain-copy callbacks and the kind names (global definitions
 * are copied by defcopy.c).  reader.c fills the streams through these; they
 * use nothing of reader.c.
 * Place in the data flow: trace reading and writing.  Because all of these
 * come from one list, no record kind can be read but not written (or the
 * reverse), and none is skipped silently by OTF2 for want of a callback.
 */
#include <string.h>

#include "trace_int.h"

/* Old archives may hold the deprecated OmpFork/OmpJoin/... records; they are
 * written back as they came, so their deprecation does not concern us. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* ---- names ------------------------------------------------------------- */

static const char *const kind_names[] = {
#define X(K) #K,
    UP_OTF2_EVENTS(X)
#undef X
};

const char *up_ev_kind_name(unsigned kind)
{
    return kind < UP_EV_COUNT_ ? kind_names[kind] : "?";
}

/* ---- parameter-list building blocks ------------------------------------ */

#define P_F(t, n) , t n
#define P_A(t, n, c) , const t *n
#define NEED_F(t, n)
#define NEED_A(t, n, c) +(sizeof(t) * (size_t)(c) + 7u) / 8u * 8u
#define SET_F(t, n) f->n = n;
#define SET_A(t, n, c)                                                \
    f->n = (t *)(void *)xp;                                           \
    if ((size_t)(c)) {                                                \
        memcpy(xp, n, sizeof(t) * (size_t)(c));                       \
        xp += (sizeof(t) * (size_t)(c) + 7u) / 8u * 8u;               \
    }
#define DSET_A(t, n, c) f->n = (t *)(uintptr_t)n;
#define ARG_F(t, n) , f->n
#define ARG_A(t, n, c) , f->n
#define PASS_F(t, n) , n
#define PASS_A(t, n, c) , n

/* ---- a record's slot and time ------------------------------------------ */

/* The repair of a record's timestamp `t` (number `no`), when it runs
 * backwards, lies outside the clock range or in a spike. */
static uint64_t time_fix(up_stream *s, uint64_t t, uint64_t no)
{
    while (no > s->spike_last) { /* passed by records never delivered (unknown kinds) */
        s->spike_i++;
        up_stream_next_spike_(s);
    }
    if (no >= s->spike_first) { /* inside a spike (spikes come in order) */
        if (no == s->spike_last) {
            s->spike_i++;
            up_stream_next_spike_(s);
        }
        s->fix_spike++;
        return s->last_t;
    }
    if (t > s->t_hi || t < s->t_lo) { /* before the range is outside it too */
        s->fix_range++;
        return s->last_t;
    }
    if (t >= s->last_t) { /* (the spike passed above: nothing to repair) */
        s->last_t = t;
        return t;
    }
    s->fix_back++;
    return s->last_t;
}

/* Every record a stream delivers passes here: its number, and its time,
 * repaired where it cannot be right (docs/cli.md, "Damaged traces"). */
static inline uint64_t stream_time(up_stream *s, uint64_t t)
{
    uint64_t no = ++s->seq;
    if (__builtin_expect(t >= s->last_t && no < s->spike_first && t <= s->t_hi, 1)) {
        s->last_t = t;
        return t;
    }
    return time_fix(s, t, no);
}

/* Claims the next ring slot of stream `s` for a record of `kind` at `t`,
 * copies the attribute list, and reserves `arrays` bytes for array fields
 * (*xp points at them).  Returns NULL on allocation failure (the stream
 * remembers the error).  Never inlined: one copy instead of one per record
 * kind, and a symbol that tests/linear/run.sh counts instructions in. */
static __attribute__((noinline)) up_event *stream_slot(up_stream *s, unsigned kind, uint64_t t, OTF2_AttributeList *al,
                             size_t arrays, unsigned char **xp)
{
    up_event *e = &s->ring[(s->head + s->count) & (s->cap - 1)];
    uint32_t na = al ? OTF2_AttributeList_GetNumberOfElements(al) : 0, i;
    size_t abytes = ((size_t)na * sizeof(up_attr) + 7u) / 8u * 8u;
    size_t need = abytes + arrays;

    if (need > e->xcap) {
        unsigned char *nb = up_reallocarray(e->xbuf, need, 1);
        if (!nb) {
            s->nomem = true;
            return NULL;
        }
        e->xbuf = nb;
        e->xcap = need;
    }
    e->kind = (uint16_t)kind;
    e->rflags = 0; /* the slot may hold an earlier record's (set_rflags) */
    e->time = t;
    e->t_out = t;
    e->attrs = na ? (up_attr *)(void *)e->xbuf : NULL;
    /* taken from the front: libotf2's list is linked, and fetching entry i
     * by index walks i links (a record's list would cost its square).  The
     * list is libotf2's scratch for this record only: it empties it after
     * the callback anyway. */
    for (i = 0; i < na; i++)
        if (OTF2_AttributeList_PopAttribute(al, &e->attrs[i].id, &e->attrs[i].type,
                                            &e->attrs[i].value) != OTF2_SUCCESS)
            break;
    e->nattrs = i;
    *xp = abytes ? e->xbuf + abytes : e->xbuf; /* (no arithmetic on a NULL xbuf) */
    s->count++;
    return e;
}

/* ---- store into a stream slot ------------------------------------------ */

/* A record the direct path timed: it is done, and `rc` says how writing it
 * went (OTF2_SUCCESS without an output). */
static inline OTF2_CallbackCode direct_written(up_stream *s, OTF2_ErrorCode rc)
{
    s->popped++;
    if (rc != OTF2_SUCCESS) {
        s->write_failed = s->stop = true;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* store_<Kind> takes a record whose time is already checked (a region_
 * callback may pass one on); on_<Kind> is the reader callback. */
#define X(K)                                                                  \
    static OTF2_CallbackCode store_##K(up_stream *s, OTF2_TimeStamp t,       \
                                       OTF2_AttributeList *al UP_EVF_##K(P_F, P_A)) \
    {                                                                         \
        size_t need = 0 UP_EVF_##K(NEED_F, NEED_A);                           \
        unsigned char *xp;                                                    \
        up_event *e;                                                          \
        if (s->direct && !s->count) {                                         \
            up_event d;                                                       \
            int r;                                                            \
            d.kind = UP_EV_##K;                                               \
            d.time = d.t_out = t;                                             \
            d.rflags = 0; /* the engine sets an Enter's or Leave's */        \
            d.attrs = NULL;                                                   \
            d.nattrs = 0;                                                     \
            /* no attrs or xbuf on the direct path: `al` goes to the       \
             * writer as it is */                                           \
            {                                                                 \
                struct up_evf_##K *f = &d.u.K;                                \
                (void)f;                                                      \
                UP_EVF_##K(SET_F, DSET_A)                                     \
            }                                                                 \
            r = s->direct(s->direct_ctx, s->loc, &d);                         \
            if (r > 0) {                                                      \
                const struct up_evf_##K *f = &d.u.K;                          \
                (void)f;                                                      \
                return direct_written(s, s->direct_out                        \
                                             ? up_writer_##K##_(s->direct_out, s->loc, al, \
                                                                d.t_out UP_EVF_##K(ARG_F, ARG_A)) \
                                             : OTF2_SUCCESS);                 \
            }                                                                 \
            s->stop = true; /* declined (or failed): buffer it and stop */    \
            if (r < 0) {                                                      \
                s->direct_failed = true;                                      \
                return OTF2_CALLBACK_INTERRUPT;                               \
            }                                                                 \
        }                                                                     \
        e = stream_slot(s, UP_EV_##K, t, al, need, &xp);                      \
        if (!e)                                                               \
            return OTF2_CALLBACK_INTERRUPT;                                   \
        {                                                                     \
            struct up_evf_##K *f = &e->u.K;                                   \
            (void)f;                                                          \
            UP_EVF_##K(SET_F, SET_A)                                          \
        }                                                                     \
        (void)xp;                                                             \
        return s->direct && s->stop ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS; \
    }                                                                         \
    static OTF2_CallbackCode on_##K(OTF2_LocationRef loc, OTF2_TimeStamp t,   \
                                    uint64_t pos, void *ud,                   \
                                    OTF2_AttributeList *al UP_EVF_##K(P_F, P_A)) \
    {                                                                         \
        up_stream *s = ud;                                                    \
        (void)loc;                                                            \
        (void)pos;                                                            \
        return store_##K(s, stream_time(s, t), al UP_EVF_##K(PASS_F, PASS_A)); \
    }
UP_OTF2_EVENTS(X)
#undef X

/* Enter and Leave on the direct path go to the stream's direct_region
 * function first, which needs no decoded record; what it hands back takes
 * the general way of store_Enter/store_Leave. */
#define REGION_X(K)                                                            \
    static OTF2_CallbackCode region_##K(OTF2_LocationRef loc, OTF2_TimeStamp t, \
                                        uint64_t pos, void *ud,                \
                                        OTF2_AttributeList *al, OTF2_RegionRef region) \
    {                                                                          \
        up_stream *s = ud;                                                     \
        uint64_t out;                                                          \
        (void)loc;                                                             \
        (void)pos;                                                             \
        t = stream_time(s, t);                                                 \
        if (s->direct_region && !s->count &&                                   \
            s->direct_region(s->direct_ctx, s->loc, UP_EV_##K, t, region, &out)) \
            return direct_written(s, s->direct_out                             \
                                         ? up_writer_##K##_(s->direct_out, s->loc, al, out, region) \
                                         : OTF2_SUCCESS);                      \
        return store_##K(s, t, al, region);                                    \
    }
REGION_X(Enter)
REGION_X(Leave)
#undef REGION_X

void up_store_evt_callbacks_(OTF2_EvtReaderCallbacks *cb)
{
#define X(K) OTF2_EvtReaderCallbacks_Set##K##Callback(cb, on_##K);
    UP_OTF2_EVENTS(X)
#undef X
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, region_Enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, region_Leave);
}

/* ---- write a stored record --------------------------------------------- */

OTF2_ErrorCode up_write_event_(OTF2_EvtWriter *w, OTF2_AttributeList *al,
                               uint64_t t, const up_event *e)
{
    switch (e->kind) {
#define X(K)                                                          \
    case UP_EV_##K: {                                                 \
        const struct up_evf_##K *f = &e->u.K;                         \
        (void)f;                                                      \
        return OTF2_EvtWriter_##K(w, al, t UP_EVF_##K(ARG_F, ARG_A)); \
    }
        UP_OTF2_EVENTS(X)
#undef X
    default:
        return OTF2_ERROR_INVALID_ARGUMENT;
    }
}

/* ---- plain copy: reader callback -> writer, nothing stored ------------- */

#define X(K)                                                                  \
    static OTF2_CallbackCode copy_##K(OTF2_LocationRef loc, OTF2_TimeStamp t, \
                                      uint64_t pos, void *ud,                 \
                                      OTF2_AttributeList *al UP_EVF_##K(P_F, P_A)) \
    {                                                                         \
        (void)loc;                                                            \
        (void)pos;                                                            \
        return OTF2_EvtWriter_##K((OTF2_EvtWriter *)ud, al, t                 \
                                  UP_EVF_##K(PASS_F, PASS_A)) == OTF2_SUCCESS \
                   ? OTF2_CALLBACK_SUCCESS                                    \
                   : OTF2_CALLBACK_ERROR;                                     \
    }
UP_OTF2_EVENTS(X)
#undef X

void up_copy_evt_callbacks(OTF2_EvtReaderCallbacks *cb)
{
#define X(K) OTF2_EvtReaderCallbacks_Set##K##Callback(cb, copy_##K);
    UP_OTF2_EVENTS(X)
#undef X
}
