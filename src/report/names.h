/*
 * names.h - names from traces, and other text from outside (paths, labels,
 * the command line), in the JSON, HTML and SVG the reports write: one form
 * per kind of output, the forms of up_text_form (src/util/text.c,
 * docs/cli.md "Names in outputs").  Terminals get up_text_escape.
 *
 * Place in the data flow: last, under every writer of src/report/.
 */
#ifndef UNPERTURB_NAMES_H
#define UNPERTURB_NAMES_H

#include <stdio.h>

#include "util/util.h"

struct json_t;

/* A name as a JSON string, a long one cut with its marker (NULL: ""). */
struct json_t *up_report_json_name(const char *s);
/* Other text as a JSON string, whole; NULL is null. */
struct json_t *up_report_json_text(const char *s);
/* The same for HTML and SVG (text and attribute values): in the form
 * terminals show (UP_TEXT_SHOWN), then <>&"' as entities; a name cut as
 * above, other text whole (NULL: nothing). */
void up_report_xml_name(FILE *f, const char *s);
void up_report_xml_text(FILE *f, const char *s);

/* The analysis window as the outputs name it: marked in the trace (by
 * MPI_Init and MPI_Finalize, or without MPI by the tracer's marks of its
 * start and end: trace.h), or first .. last record */
#define UP_WINDOW_TEXT_MARKED                                                                      \
    "end of MPI_Init .. start of MPI_Finalize, or the tracer's start .. end without MPI (marked in " \
    "the trace)"
#define UP_WINDOW_TEXT_UNMARKED "first .. last record over all locations (no MPI_Init/MPI_Finalize marks)"

#endif /* UNPERTURB_NAMES_H */
