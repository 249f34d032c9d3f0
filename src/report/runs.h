/*
 * runs.h - the printers of the pipelines' results (src/run/pipeline.h):
 * what `unperturb compensate`, `estimate`, `report` and `validate` print
 * and write once their pipeline has run.
 * Place in the data flow: last; reads a pipeline's result, writes text to a
 * FILE the caller chose and files at the output set's temporary names.
 */
#ifndef UNPERTURB_RUNS_H
#define UNPERTURB_RUNS_H

#include <stdio.h>

#include "report/profile_report.h"
#include "report/summary.h"
#include "run/pipeline.h"

/* ---- compensate ---- */
/* The summary's input (up_report_compensate_text, _json) of a compensation. */
up_comp_report up_report_comp_of(const up_run_comp *c, const char *input, const char *output);

/* ---- estimate (estimate_report.c) ---- */
/* The table of `unperturb estimate` (per_loc: also per location). */
void up_report_estimate_text(FILE *f, const up_estimate_report *r, bool per_loc);
/* The same and more as JSON (keys in docs/cli.md), written to `path`. */
up_status up_report_estimate_json(const up_estimate_report *r, const char *path, up_err *err);

/* ---- report ---- */
/* How `unperturb report` shows a result. */
typedef struct up_report_view {
    FILE *text;                 /* the text summary goes here (NULL: none) */
    const char *command;        /* the command line, for report.html's footer */
    size_t top;                 /* rows of long tables (0: 15 in text, 30 in HTML) */
} up_report_view;
/* The Fig. 2 breakdown of the two runs, then the text to v->text, the JSON
 * and report.html (with the pipeline's timelines) at the output set's
 * temporary names. */
up_status up_report_report_outputs(const up_run_rep *r, const up_run_rep_opts *o,
                                   const up_report_view *v, up_err *err);

/* ---- validate (validate_report.c) ---- */
/* The table of `unperturb validate` and the lines under it. */
void up_report_validate_table(FILE *f, const up_run_val *v);
/* table.txt, validate.json and plot.svg in v->dir, and the --json file at
 * its temporary name. */
up_status up_report_validate_files(const up_run_val *v, up_err *err);

#endif
