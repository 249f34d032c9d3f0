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

#endif /* UNPERTURB_NAMES_H */
