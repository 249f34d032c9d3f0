/*
 * trace_int.h - internals shared by the files of src/trace/ (not installed).
 */
#ifndef UNPERTURB_TRACE_INT_H
#define UNPERTURB_TRACE_INT_H

#include "trace/trace.h"
#include "scan.h"

struct up_stream {
    up_trace *t;
    uint32_t loc;
    OTF2_EvtReader *rd;
    up_event *ring;
    size_t cap, head, count;
    bool eof, nomem;
    uint64_t popped;
    /* direct processing (up_stream_direct) */
    up_direct_fn direct;
    up_direct_region_fn direct_region;
    void *direct_ctx;
    up_writer *direct_out; /* location index s->loc of it */
    uint64_t direct_done; /* popped when up_stream_direct began */
    bool stop, direct_failed, write_failed;
    /* what libotf2 may read (scan.h): records delivered so far, the event
     * file's walk, its path */
    uint64_t seq;
    up_scan scan;
    char *path;
    /* timestamp repairs (records.c): the last time delivered, the spike
     * being passed */
    uint64_t last_t;
    uint64_t t_lo, t_hi; /* the first and last time the clock properties allow */
    size_t spike_i;
    uint64_t spike_first, spike_last; /* UINT64_MAX: none ahead */
    uint64_t fix_back, fix_range, fix_spike;
};

/* The next spike of the chunk the stream walked last, or none: after each
 * walk (reader.c) and as records pass the spikes (records.c). */
static inline void up_stream_next_spike_(up_stream *s)
{
    if (s->spike_i < s->scan.nspikes) {
        s->spike_first = s->scan.spikes[s->spike_i].first;
        s->spike_last = s->scan.spikes[s->spike_i].last;
    } else {
        s->spike_first = s->spike_last = UINT64_MAX;
    }
}

/* The reader callbacks that store each record into its stream (user data:
 * the up_stream), or hand it to the stream's direct function. */
void up_store_evt_callbacks_(OTF2_EvtReaderCallbacks *cb);
OTF2_ErrorCode up_write_event_(OTF2_EvtWriter *w, OTF2_AttributeList *al,
                               uint64_t t, const up_event *e);

/* The folder of the archive's files: the anchor's path without ".otf2". */
const char *up_trace_dir_(const up_trace *t);

/* ---- the writer (writer.c) ---------------------------------------------
 * Every record of an output archive is written through these: the
 * buffered path's up_writer_event and the direct path of up_stream_direct
 * (records.c, up_writer_<Kind>_), so that the writer sees them all. */

/* An attribute the input does not define, written after its definitions. */
typedef struct up_new_attr_ {
    char *name, *desc;
    OTF2_Type type;
    OTF2_AttributeRef ref;
    OTF2_StringRef sname, sdesc;
} up_new_attr_;

struct up_writer {
    char *dir;
    OTF2_Archive *ar;
    const up_defs *defs;    /* the input's */
    size_t nlocs;
    up_new_attr_ *attrs;
    size_t nattrs, cap_attrs;
    uint64_t next_string, next_attr; /* fresh ids: past the input's largest */
    OTF2_EvtWriter **ew;
    uint64_t *nevents;      /* records written per location, when closed */
    uint64_t *last_t;       /* the last time written per location */
    OTF2_AttributeList *al;
    uint64_t clamped;
    bool evt_open;
};

/* The time a record of location `loc` is written with: `t`, raised to the
 * last one written there if it would decrease (counted: up_writer_clamped).
 * The replay engine guarantees non-decreasing times per location, so this
 * only guards against a broken caller. */
static inline uint64_t up_writer_time_(up_writer *w, size_t loc, uint64_t t)
{
    uint64_t last = w->last_t[loc];
    if (__builtin_expect(t < last, 0)) {
        t = last;
        w->clamped++;
    }
    w->last_t[loc] = t;
    return t;
}

/* up_writer_<Kind>_(w, loc, al, t, fields...): writes a record of that kind
 * on location `loc` at time t (through up_writer_time_), with the attribute
 * list `al` (may be NULL). */
#define UP_WP_F_(t, n) , t n
#define UP_WP_A_(t, n, c) , const t *n
#define UP_WA_F_(t, n) , n
#define UP_WA_A_(t, n, c) , n
#define UP_X_(K)                                                                   \
    static inline OTF2_ErrorCode up_writer_##K##_(up_writer *w, size_t loc,        \
                                                  OTF2_AttributeList *al,          \
                                                  uint64_t t UP_EVF_##K(UP_WP_F_, UP_WP_A_)) \
    {                                                                              \
        return OTF2_EvtWriter_##K(w->ew[loc], al, up_writer_time_(w, loc, t)       \
                                  UP_EVF_##K(UP_WA_F_, UP_WA_A_));                 \
    }
/* old archives' deprecated OmpFork/OmpJoin/... are written back as they came */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
UP_OTF2_EVENTS(UP_X_)
#pragma GCC diagnostic pop
#undef UP_X_
#undef UP_WP_F_
#undef UP_WP_A_
#undef UP_WA_F_
#undef UP_WA_A_

/* Reads the global definitions of an open reader into `d`, at most `cap`
 * of them (the intact ones). */
up_status up_defs_read_(up_defs *d, OTF2_Reader *rd, const char *anchor,
                        uint64_t cap, up_err *err);
void up_defs_free_(up_defs *d);
/* The attribute the input defines with `name` and `type` (the lowest id if
 * several do), or false. */
bool up_defs_attr_find_(const up_defs *d, const char *name, OTF2_Type type,
                        OTF2_AttributeRef *ref);

/* Turns an OTF2 error code into an up_err naming `what`, with OTF2's last
 * message (otf2_error.c). */
up_status up_otf2_err_(up_err *err, OTF2_ErrorCode code, const char *what);
/* Forgets OTF2's last message: before a call whose failure it is to name. */
void up_otf2_clear_(void);
/* OTF2's last message, or `otherwise` if it gave none since. */
const char *up_otf2_msg_(const char *otherwise);

#endif
