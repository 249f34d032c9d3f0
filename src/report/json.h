/*
 * json.h - the JSON files the reports write (jansson documents): the one
 * tail that turns a document into a file, and the small builders the
 * writers share.  Names and other text from outside become JSON strings
 * through names.h.
 *
 * Place in the data flow: last, under summary.c, estimate_report.c,
 * profile_report.c, simulate_report.c and validate_report.c.  (perfetto.c
 * streams its JSON itself: a trace's events do not fit a document.)
 */
#ifndef UNPERTURB_JSON_H
#define UNPERTURB_JSON_H

#include <jansson.h>

#include "util/util.h"

/* Writes `root` (not consumed; NULL: out of memory while building it) as
 * json_dumps(root, flags) text to `path` (up_write_file: a temporary of the
 * output set, or "-"); an error names the path. */
up_status up_report_json_write(const json_t *root, size_t flags, const char *path, up_err *err);

/* Attaches a new object or array `v` to `parent` under `key` and returns
 * it (a borrowed reference), or NULL when either allocation failed. */
json_t *up_report_json_child(json_t *parent, const char *key, json_t *v);

/* A number, or null where it is not finite (json_real refuses NaN). */
json_t *up_report_json_real(double x);
/* A rank, or null for a location of no MPI rank (UP_NO_RANK). */
json_t *up_report_json_rank(long rank);
/* A location's entry in a per-location array: a new object appended to
 * `arr` with its "location" (OTF2 id), "rank" and "name"; NULL when out of
 * memory. */
json_t *up_report_json_loc(json_t *arr, uint64_t id, long rank, const char *name);

#endif /* UNPERTURB_JSON_H */
