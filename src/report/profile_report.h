/*
 * profile_report.h - what `unperturb report` shows (docs/report.md): the
 * breakdown of [K] Fig. 2 from two profiles, the text summary and the JSON
 * (profile_report.c), and report.html (html.c).
 * Place in the data flow: last; reads the profiles, estimates and timelines
 * of up_run_report, writes to a FILE the caller chose or to the output
 * set's temporary names.
 */
#ifndef UNPERTURB_PROFILE_REPORT_H
#define UNPERTURB_PROFILE_REPORT_H

#include <stdio.h>

#include "analysis/estimate.h"
#include "analysis/hybrid.h"
#include "analysis/profile.h"
#include "analysis/timeline.h"

/* One part of a run's time, summed over locations (seconds): in run a
 * (measured) and run b (compensated or another run). */
typedef struct up_breakdown_part {
    double a_s, b_s;
} up_breakdown_part;

/* The breakdown of the paper's Fig. 2 for one location or all of them:
 * time = exec + mpi_other + the wait states; the difference a - b of each
 * part says where the overhead went. */
typedef struct up_breakdown_loc {
    up_breakdown_part time;          /* the location's window */
    up_breakdown_part exec;          /* outside MPI calls */
    up_breakdown_part mpi_other;     /* inside MPI calls, not waiting */
    up_breakdown_part wait[UP_WS_COUNT];
} up_breakdown_loc;

typedef struct up_breakdown {
    up_breakdown_loc total;          /* summed over locations */
    size_t nlocs;             /* min of both runs' */
    up_breakdown_loc *locs;
} up_breakdown;

/* Fills *out from two profiles of the same program (locations matched by
 * index); free with up_breakdown_free. */
up_status up_breakdown_make(const up_profile *a, const up_profile *b, up_breakdown *out,
                            up_err *err);
void up_breakdown_free(up_breakdown *bd);

/* Everything report.html shows; b, bd, tl_a, tl_b and est may be NULL. */
typedef struct up_html_input {
    const char *path_a, *path_b;   /* the runs as the user named them */
    const char *label_a, *label_b; /* "measured", "compensated" */
    const up_profile *a, *b;
    const up_breakdown *bd;
    const up_timeline *tl_a, *tl_b;
    const up_estimate *est;        /* the time-based models on run a */
    const up_hybrid *hy_a, *hy_b;  /* threads and devices of each run (NULL: none) */
    const char *command;           /* the command line, for the footer */
    size_t top;                    /* rows in long tables (default 30) */
} up_html_input;

/* Locations grouped by process (docs/report.md): a process's threads and
 * streams under it.  up_proc_of: the process of location i (its
 * up_profile_loc.process, or UINT32_MAX - i for a location of none);
 * up_proc_size: how many locations the process of i has; up_proc_label:
 * "rank 3", or "process 2" for one of no rank, or the location's own label
 * for one of no process.  up_report_group_by_proc orders idx[0..n) so that
 * the locations of one process follow each other, processes in the order
 * of their first location in idx, each process's locations in their order
 * in idx. */
uint32_t up_proc_of(const up_profile *p, size_t i);
size_t up_proc_size(const up_profile *p, size_t i);
const char *up_proc_label(const up_profile *p, size_t i, char *buf, size_t cap);
bool up_report_grouped(const up_profile *p); /* some process has several locations */
up_status up_report_group_by_proc(const up_profile *p, uint32_t *idx, size_t n, up_err *err);

/* The text summary of `unperturb report` (docs/report.md). */
void up_report_profile_text(FILE *f, const up_html_input *in);
/* The same and more as JSON (keys in docs/report.md), written atomically. */
up_status up_report_json(const char *path, const up_html_input *in, up_err *err);

/* Writes report.html: one self-contained file (inline CSS and SVG, no
 * network), through a temporary name renamed on success. */
up_status up_report_html(const char *path, const up_html_input *in, up_err *err);

#endif /* UNPERTURB_PROFILE_REPORT_H */
