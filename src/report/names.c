/*
 * names.c - names from traces, and other text from outside, in the JSON,
 * HTML and SVG the reports write (names.h): one form per kind of output,
 * the forms of up_text_form (src/util/text.c, docs/cli.md "Names in
 * outputs").  The one HTML and XML escape of src/report.
 *
 * Place in the data flow: last, beside the writers of summary.c,
 * profile_report.c, estimate_report.c, simulate_report.c,
 * validate_report.c, html*.c, timeline.c and plot.c.  (Terminals get
 * up_text_escape; perfetto.c writes its JSON itself, from up_text_form
 * too.)
 */
#include <jansson.h>
#include <stdlib.h>

#include "report/names.h"

json_t *up_report_json_name(const char *s)
{
    char buf[UP_NAME_BUF];
    up_text_form(buf, sizeof buf, s, UP_TEXT_UTF8);
    return json_string(buf);
}

json_t *up_report_json_text(const char *s)
{
    char *t;
    json_t *v;
    if (!s)
        return json_null();
    if (!(t = up_text_dup(s, UP_TEXT_UTF8 | UP_TEXT_WHOLE)))
        return NULL;
    v = json_string(t);
    up_free(t);
    return v;
}

/* how: 0 for a name, UP_TEXT_WHOLE for other text */
static void xml(FILE *f, const char *s, unsigned how)
{
    char buf[UP_NAME_BUF], *t = buf;
    const char *p;
    how |= UP_TEXT_SHOWN;
    if (up_text_form(buf, sizeof buf, s, how) >= sizeof buf && !(t = up_text_dup(s, how))) {
        fputs("(out of memory)", f); /* only UP_TEXT_WHOLE can be longer */
        return;
    }
    for (p = t; *p; p++)
        switch (*p) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*p, f);
        }
    if (t != buf)
        up_free(t);
}

void up_report_xml_name(FILE *f, const char *s) { xml(f, s, 0); }
void up_report_xml_text(FILE *f, const char *s) { xml(f, s, UP_TEXT_WHOLE); }
