/*
 * report.h - summaries of a replay for people (text) and programs (JSON).
 * Place in the data flow: last; reads results, writes to a FILE the caller
 * chose or to a file written atomically (temporary name, then rename).
 */
#ifndef UNPERTURB_REPORT_H
#define UNPERTURB_REPORT_H

#include <stdio.h>

#include "model/model.h"

typedef struct up_comp_report {
    const char *input;              /* as given by the user */
    const char *output;             /* output folder */
    const up_comp_params *params;
    const char *params_source;      /* where the overheads came from */
    const up_defs *defs;
    const up_replay_result *res;
    const uint64_t *removed;        /* overhead removed per location, ticks */
    uint64_t nstalls, stall_ticks;  /* stalls of the tracer's spins removed (up_comp_stalls) */
    uint64_t stall_lists_damaged;   /* stalls lists read up to a damaged entry */
    const up_trace *in;             /* for its damage list (may be NULL) */
} up_comp_report;

/* The damage found in an input as a JSON array (docs/cli.md, "Damaged
 * traces"): file, location, offset, problem, records kept and declared,
 * time lost; NULL when out of memory. */
struct json_t;
struct json_t *up_report_damage_json(const up_trace *t);

/* The "repairs" and "model limits" lines of a replay's summary (counts by
 * kind, the engine's and the model's: up_replay_repairs; or "none"), and a
 * warning for unreadable records. */
void up_report_repairs_text(FILE *f, const up_replay_result *r);
/* A rank column's cell: the rank, or "-" for a location of no MPI rank;
 * returns buf. */
const char *up_report_rank_text(long rank, char *buf, size_t cap);

/* Names from traces and other text from outside in the reports' outputs
 * (names.c; the forms of up_text_form, docs/cli.md "Names in outputs"):
 * a name as a JSON string (a long one cut, with its marker); other text
 * (paths, labels) whole as a JSON string, NULL as null; either as HTML or
 * SVG text (UP_TEXT_SHOWN, then <>&"' as entities; how may add
 * UP_TEXT_WHOLE).  The JSON ones return NULL only when out of memory. */
struct json_t *up_report_json_name(const char *s);
struct json_t *up_report_json_text(const char *s);
void up_report_xml(FILE *f, const char *s, unsigned how);
/* The short human summary of `unperturb compensate`. */
void up_report_compensate_text(FILE *f, const up_comp_report *r);
/* The same as JSON (keys documented in docs/cli.md), written to `path`. */
up_status up_report_compensate_json(const up_comp_report *r, const char *path,
                                    up_err *err);

/* ---- unperturb report -------------------------------------------------------- */

#include "analysis/estimate.h"
#include "analysis/profile.h"
#include "report/timeline.h"

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
    const char *command;           /* the command line, for the footer */
    size_t top;                    /* rows in long tables (default 30) */
} up_html_input;

/* The text summary of `unperturb report` (docs/report.md). */
void up_report_profile_text(FILE *f, const up_html_input *in);
/* The same and more as JSON (keys in docs/report.md), written atomically. */
up_status up_report_json(const char *path, const up_html_input *in, up_err *err);

/* Writes report.html: one self-contained file (inline CSS and SVG, no
 * network), through a temporary name renamed on success. */
up_status up_report_html(const char *path, const up_html_input *in, up_err *err);

#endif
