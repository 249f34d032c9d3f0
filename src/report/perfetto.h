/*
 * perfetto.h - other trace formats out: Chrome trace-event JSON, which
 * ui.perfetto.dev and chrome://tracing open (`unperturb export --perfetto`).
 *
 * Place in the data flow: beside the replay, at the end.  Reads any OTF2
 * archive the reader opens (measured or compensated, Score-P or unperturb),
 * one location after the other, and writes one JSON file (the command's
 * temporary, see up_outset in util.h).  Memory: the reader's buffers, the open regions of one location, and
 * a counter per message channel (communicator, sender, receiver, tag); never
 * the trace's records.  What maps to what is in docs/cli.md.
 */
#ifndef UNPERTURB_PERFETTO_H
#define UNPERTURB_PERFETTO_H

#include "trace/trace.h"

/* An inclusive range of OTF2 location ids. */
typedef struct up_id_range {
    uint64_t lo, hi;
} up_id_range;

typedef struct up_export_opts {
    /* Only the records in [start_s, end_s], seconds from the trace's start
     * (end_s may be HUGE_VAL).  Regions open at a window edge are cut there. */
    bool window;
    double start_s, end_s;
    /* Only the locations whose OTF2 id lies in one of these ranges (NULL:
     * all).  A range that matches no location is a usage error. */
    const up_id_range *locs;
    size_t nlocs;
} up_export_opts;

typedef struct up_export_stats {
    uint64_t records;         /* records read */
    uint64_t events;          /* trace events written, all phases */
    uint64_t metadata;        /* "M": process and thread names, sort order */
    uint64_t begins, ends;    /* "B", "E": Enter, Leave (and cuts at the window) */
    uint64_t flow_starts;     /* "s": MpiSend, MpiIsend */
    uint64_t flow_ends;       /* "f": MpiRecv, MpiIrecv */
    uint64_t instants;        /* "i": other records, collectives outside a region */
    uint64_t collectives;     /* collective ends shown as args of their region */
    uint64_t unresolved;      /* messages on a communicator whose ranks are
                               * unknown (inter-communicators): no flow */
    uint64_t raised;          /* timestamps raised to their location's previous one */
    size_t locations;         /* locations exported */
    uint64_t origin;          /* ticks of ts = 0: the trace's start */
    uint64_t resolution;      /* ticks per second */
} up_export_stats;

/* Writes trace `t` (just opened: no record read yet) as Chrome trace-event
 * JSON to `path` (created or truncated; removed again on failure).  Fills
 * *st.  Which paths may be written is the command's business (up_outset). */
up_status up_export_perfetto(up_trace *t, const char *path, const up_export_opts *o,
                             up_export_stats *st, up_err *err);

/* Appends `s` as a JSON string (quotes included) to buf[0..cap); returns the
 * length the full result needs (like snprintf): control characters become
 * escapes, a byte that is not UTF-8 the four characters \xNN (in JSON
 * "\\xNN", the form UP_TEXT_UTF8 of up_text_form).  For tests and other
 * JSON writers. */
size_t up_json_quote(char *buf, size_t cap, const char *s);

#endif /* UNPERTURB_PERFETTO_H */
