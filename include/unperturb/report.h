/*
 * report.h - summaries of a replay for people (text) and programs (JSON).
 * Place in the data flow: last; reads results, writes to a FILE the caller
 * chose or to a file written atomically (temporary name, then rename).
 */
#ifndef UNPERTURB_REPORT_H
#define UNPERTURB_REPORT_H

#include <stdio.h>

#include "unperturb/model.h"

typedef struct up_comp_report {
    const char *input;              /* as given by the user */
    const char *output;             /* output folder */
    const up_comp_params *params;
    const char *params_source;      /* where the overheads came from */
    const up_defs *defs;
    const up_replay_result *res;
    const uint64_t *removed;        /* overhead removed per location, ticks */
} up_comp_report;

/* The short human summary of `unperturb compensate`. */
void up_report_compensate_text(FILE *f, const up_comp_report *r);
/* The same as JSON (keys documented in docs/cli.md), written to `path`. */
up_status up_report_compensate_json(const up_comp_report *r, const char *path,
                                    up_err *err);

#endif
