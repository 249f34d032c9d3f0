/*
 * trace_int.h - internals shared by the files of src/trace/ (not installed).
 */
#ifndef UP_TRACE_INT_H
#define UP_TRACE_INT_H

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
    OTF2_EvtWriter *direct_out;
    uint64_t direct_done; /* popped when up_stream_direct began */
    bool stop, direct_failed, write_failed;
    /* what libotf2 may read (scan.h): records delivered so far, the event
     * file's walk, its path */
    uint64_t seq;
    up_scan scan;
    char *path;
    /* timestamp repairs: the last time delivered, the spike being passed */
    uint64_t last_t, t_hi; /* t_hi: the last time the clock properties allow */
    size_t spike_i;
    uint64_t spike_first, spike_last; /* UINT64_MAX: none ahead */
    uint64_t fix_back, fix_range, fix_spike;
};

/* The repair of a record's timestamp `t` (number `no`), when it runs
 * backwards, lies outside the clock range or in a spike (reader.c). */
uint64_t up_stream_time_fix_(up_stream *s, uint64_t t, uint64_t no);

/* Every record a stream delivers passes here: its number, and its time,
 * repaired where it cannot be right (docs/cli.md, "Damaged traces"). */
static inline uint64_t up_stream_time_(up_stream *s, uint64_t t)
{
    uint64_t no = ++s->seq;
    if (__builtin_expect(t >= s->last_t && no < s->spike_first && t <= s->t_hi, 1)) {
        s->last_t = t;
        return t;
    }
    return up_stream_time_fix_(s, t, no);
}

/* Claims the next ring slot of stream `s` for a record of `kind` at `t`,
 * copies the attribute list, and reserves `arrays` bytes for array fields
 * (*xp points at them).  Returns NULL on allocation failure (the stream
 * remembers the error). */
up_event *up_stream_slot_(void *s, unsigned kind, uint64_t t,
                          OTF2_AttributeList *al, size_t arrays,
                          unsigned char **xp);
void up_store_evt_callbacks_(OTF2_EvtReaderCallbacks *cb);
OTF2_ErrorCode up_write_event_(OTF2_EvtWriter *w, OTF2_AttributeList *al,
                               uint64_t t, const up_event *e);

/* The folder of the archive's files: the anchor's path without ".otf2". */
const char *up_trace_dir_(const up_trace *t);

/* Reads the global definitions of an open reader into `d`, at most `cap`
 * of them (the intact ones). */
up_status up_defs_read_(up_defs *d, OTF2_Reader *rd, const char *anchor,
                        uint64_t cap, up_err *err);
void up_defs_free_(up_defs *d);
/* The attribute the input defines with `name` and `type` (the lowest id if
 * several do), or false. */
bool up_defs_attr_find_(const up_defs *d, const char *name, OTF2_Type type,
                        OTF2_AttributeRef *ref);

/* Turns an OTF2 error code into an up_err naming `what`. */
up_status up_otf2_err_(up_err *err, OTF2_ErrorCode code, const char *what);

#endif
