/*
 * timeline.h - a timeline of src/analysis/timeline.h drawn as SVG for
 * report.html.
 *
 * Place in the data flow: up_timeline (built by up_run_report) --
 * up_timeline_svg--> an <svg> element inside report.html (html.c).
 */
#ifndef UNPERTURB_REPORT_TIMELINE_H
#define UNPERTURB_REPORT_TIMELINE_H

#include <stdio.h>

#include "analysis/timeline.h"

/* Writes one <svg> element (no scripts, no external resources): a time axis
 * in seconds from the trace start, one row per up_timeline_row, message lines.
 * `span` ticks fill the width (pass the longer window of two timelines so
 * that they share a scale); `title` goes above it. Returns 0 or -1. */
int up_timeline_svg(FILE *f, const up_timeline *tl, const char *title, uint64_t span);

#endif /* UNPERTURB_REPORT_TIMELINE_H */
