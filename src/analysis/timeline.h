/*
 * timeline.h - a Vampir-like timeline of one window of a run: per location
 * (or per group of locations when there are too many to draw) the regions
 * it was in, and the messages between them, ready to draw as SVG.
 *
 * Place in the data flow: OTF2 archive --up_trace_open--> one stream per
 * location --up_timeline_build--> boxes merged to the drawing's resolution
 * --up_timeline_svg (src/report/timeline.h)--> an <svg> element inside
 * report.html; up_run_report (src/run/report.c) builds them.
 * Memory is bounded by rows x width_px boxes and max_msgs messages, whatever
 * the trace's length: records outside the window are read and dropped.
 */
#ifndef UNPERTURB_TIMELINE_H
#define UNPERTURB_TIMELINE_H

#include "trace/trace.h"

typedef enum up_timeline_kind {
    UP_TIMELINE_USER,     /* the program's own code (any non-MPI region) */
    UP_TIMELINE_MPI,      /* inside an MPI call */
    UP_TIMELINE_OVERHEAD  /* measurement overhead (BufferFlush, overhead regions) */
} up_timeline_kind;

/* The window: [t0, t1] in ticks of the archive, plus how it was chosen. */
typedef struct up_timeline_win {
    uint64_t t0, t1;
    uint64_t origin;          /* the trace's start (ClockProperties offset) */
    uint32_t loc;             /* the location whose records delimit it */
    uint64_t rec0, rec1;      /* its first and last record inside the window
                               * (indices among that location's records) */
    char how[160];            /* "iteration 12 of 25 (MPI_Allreduce on rank 0)",
                               * "--window 0.5:0.6", ... */
    /* added by src/analysis/timeline.c: */
    uint64_t resolution;      /* ticks per second of the archive */
    uint64_t nrecs;           /* records of `loc` inside [t0, t1]; 0: none, and
                               * rec0, rec1, r0_t, r1_t mean nothing */
    uint64_t r0_t, r1_t;      /* times of records rec0 and rec1 */
} up_timeline_win;

typedef struct up_timeline_opts {
    bool window_set;          /* --window START:END given */
    double start_s, end_s;    /* seconds from the trace start */
    unsigned width_px;        /* drawing resolution (default 1000) */
    unsigned max_rows;        /* more locations are grouped (default 64) */
    size_t max_msgs;          /* message lines kept (default 2000) */
} up_timeline_opts;

void up_timeline_opts_init(up_timeline_opts *o);

/* One drawn interval: a region visit (clipped to the window), merged with
 * neighbours where narrower than a pixel. */
typedef struct up_timeline_box {
    uint64_t t0, t1;
    OTF2_RegionRef region;    /* the innermost region (for the colour/tooltip);
                               * OTF2_UNDEFINED_REGION: a BufferFlush record */
    uint16_t depth;           /* nesting depth (0 = outermost) */
    uint8_t kind;             /* up_timeline_kind */
    uint8_t mixed;            /* 1: sub-pixel intervals of several regions merged;
                               * region, kind and depth are those of the kind
                               * with the most time in it */
    uint32_t parts;           /* intervals merged into it (1: one) */
} up_timeline_box;

typedef struct up_timeline_row {
    char label[64];           /* "rank 3", "ranks 64-127" */
    uint32_t loc0, nlocs;     /* location indices [loc0, loc0 + nlocs) */
    size_t nbox;
    up_timeline_box *box;           /* single-location rows */
    float *mpi_frac;          /* grouped rows: width_px fractions of the
                               * group's time in MPI per pixel column */
    float *ovh_frac;          /* ... and in measurement overhead */
} up_timeline_row;

typedef struct up_timeline_msg {
    uint32_t src_row, dst_row;
    uint64_t t_send, t_recv;  /* send record, receive record */
} up_timeline_msg;

typedef struct up_timeline {
    uint64_t resolution;      /* ticks per second */
    up_timeline_win win;
    const up_defs *defs;      /* for region names (owned by the trace) */
    unsigned width_px;
    bool grouped;             /* rows are groups of locations */
    size_t nrows;
    up_timeline_row *rows;
    size_t nmsgs;
    up_timeline_msg *msgs;
    uint64_t msgs_in_window;  /* all messages with an end in the window */
} up_timeline;

/* Chooses the window of run `t` (reads it; open it again afterwards):
 * o->window_set: [start_s, end_s] from the trace start; otherwise one
 * iteration near the middle of the run (docs/report.md says how). */
up_status up_timeline_window(up_trace *t, const up_timeline_opts *o, up_timeline_win *w,
                             up_err *err);
/* The same records' window in another run of the same program (a
 * compensated or predicted trace of `a`'s run): the times of records
 * rec0..rec1 of location `loc` in `t`; if `t` has fewer records there, the
 * same offsets from its own start. */
up_status up_timeline_map_window(up_trace *t, const up_timeline_win *a, up_timeline_win *w,
                                 up_err *err);
/* Reads `t` once and builds the timeline of window *w. */
up_status up_timeline_build(up_trace *t, const up_timeline_win *w, const up_timeline_opts *o,
                            up_timeline *out, up_err *err);
void up_timeline_free(up_timeline *tl);

/* Seconds of `ticks` at the timeline's resolution; the name of region r
 * ("?" when it has none). */
double up_timeline_s(const up_timeline *tl, uint64_t ticks);
const char *up_timeline_region_name(const up_timeline *tl, OTF2_RegionRef r);

#endif /* UNPERTURB_TIMELINE_H */
