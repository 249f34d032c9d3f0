/*
 * summary.h - the summary of a compensation (summary.c) for people (text)
 * and programs (JSON), and the parts of it that other summaries show too:
 * the damage found in an input, the repairs of a replay, a rank.
 * Place in the data flow: last; reads results, writes to a FILE the caller
 * chose or to a file written atomically (temporary name, then rename).
 */
#ifndef UNPERTURB_SUMMARY_H
#define UNPERTURB_SUMMARY_H

#include <stdio.h>

#include "model/compensate.h"

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

/* The short human summary of `unperturb compensate`. */
void up_report_compensate_text(FILE *f, const up_comp_report *r);
/* The same as JSON (keys documented in docs/cli.md), written to `path`. */
up_status up_report_compensate_json(const up_comp_report *r, const char *path,
                                    up_err *err);

#endif /* UNPERTURB_SUMMARY_H */
