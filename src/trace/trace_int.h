/*
 * trace_int.h - internals shared by the files of src/trace/ (not installed).
 */
#ifndef UP_TRACE_INT_H
#define UP_TRACE_INT_H

#include "unperturb/trace.h"

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
};

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

/* Reads the global definitions of an open reader into `d`. */
up_status up_defs_read_(up_defs *d, OTF2_Reader *rd, const char *anchor,
                        up_err *err);
void up_defs_free_(up_defs *d);

/* Turns an OTF2 error code into an up_err naming `what`. */
up_status up_otf2_err_(up_err *err, OTF2_ErrorCode code, const char *what);

#endif
