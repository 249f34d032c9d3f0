/*
 * records.c - every OTF2 event kind, expanded from the generated field lists
 * of otf2_records.h: the reader callbacks that store a record into a stream
 * slot, the writer dispatch, the plain-copy callbacks and the kind names
 * (global definitions are copied by defcopy.c).
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
        void *ud = s;                                                         \
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
        e = up_stream_slot_(ud, UP_EV_##K, t, al, need, &xp);                 \
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
        return store_##K(s, up_stream_time_(s, t), al UP_EVF_##K(PASS_F, PASS_A)); \
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
        t = up_stream_time_(s, t);                                             \
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
