/*
 * test_names.c - names from traces in the outputs that are not OTF2
 * (docs/cli.md, "Names in outputs"): the forms of up_text_form, the JSON
 * strings and XML text of src/report/names.c, and export with a long name.
 * tests/names/run.sh runs every command on such names.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report/perfetto.h"
#include "report/names.h"
#include "test.h"
#include "tutil.h"

static void check_form_at(const char *file, int line, const char *in, unsigned how, const char *want)
{
    char out[UP_NAME_BUF];
    size_t n = up_text_form(out, sizeof out, in, how);
    if (strcmp(out, want) || n != strlen(want))
        t_fail(file, line, "form %u of '%s': '%s' (%zu), wanted '%s'", how, in, out, n, want);
}
#define CHECK_FORM(in, how, want) check_form_at(__FILE__, __LINE__, in, how, want)

TEST(names_form_utf8_and_shown)
{
    /* not UTF-8: bytes that never occur, a lone continuation byte, an
     * overlong '/', a surrogate, a sequence cut short, above U+10FFFF */
    CHECK_FORM("w\xff\xfe|\x80|\xc0\xaf|\xed\xa0\x80|\xe2\x9c|\xf4\x90\x80\x80", UP_TEXT_UTF8,
               "w\\xff\\xfe|\\x80|\\xc0\\xaf|\\xed\\xa0\\x80|\\xe2\\x9c|\\xf4\\x90\\x80\\x80");
    CHECK_FORM("w\xff\xfe|\x80|\xc0\xaf", UP_TEXT_SHOWN, "w\\xff\\xfe|\\x80|\\xc0\\xaf");
    /* valid UTF-8 stays in both forms: 2, 3 and 4 bytes, a backslash */
    CHECK_FORM("m\xc3\xa4in \xe2\x9c\x93 \xf0\x9d\x84\x9e \\x", UP_TEXT_UTF8,
               "m\xc3\xa4in \xe2\x9c\x93 \xf0\x9d\x84\x9e \\x");
    CHECK_FORM("m\xc3\xa4in \xe2\x9c\x93 \xf0\x9d\x84\x9e \\x", UP_TEXT_SHOWN,
               "m\xc3\xa4in \xe2\x9c\x93 \xf0\x9d\x84\x9e \\x");
    /* control characters, DEL, C1 CSI, a right-to-left override: as they are
     * for JSON and CSV (their writers escape what they must), \xNN where
     * people see them */
    CHECK_FORM("esc\x1b[31m\r\x07\n\t\x7f\xc2\x9b\xe2\x80\xae.", UP_TEXT_UTF8,
               "esc\x1b[31m\r\x07\n\t\x7f\xc2\x9b\xe2\x80\xae.");
    CHECK_FORM("esc\x1b[31m\r\x07\n\t\x7f\xc2\x9b\xe2\x80\xae.", UP_TEXT_SHOWN,
               "esc\\x1b[31m\\x0d\\x07\\x0a\\x09\\x7f\\xc2\\x9b\\xe2\\x80\\xae.");
    CHECK_FORM(NULL, UP_TEXT_UTF8, "");
    CHECK_FORM("", UP_TEXT_SHOWN, "");
    /* the form of a form is itself */
    {
        char once[64], twice[64];
        up_text_form(once, sizeof once, "x\x1b\xff\xc3\xa9", UP_TEXT_SHOWN);
        up_text_form(twice, sizeof twice, once, UP_TEXT_SHOWN);
        CHECK(!strcmp(once, twice));
        up_text_form(twice, sizeof twice, once, UP_TEXT_UTF8);
        CHECK(!strcmp(once, twice));
    }
    /* like snprintf: the whole length, a short buffer ends before an escape
     * or a character it cannot hold whole */
    {
        char b[8];
        CHECK_EQ(up_text_form(NULL, 0, "\xff", UP_TEXT_UTF8), 4);
        CHECK_EQ(up_text_form(b, 6, "ab\xff", UP_TEXT_UTF8), 6);
        CHECK(!strcmp(b, "ab"));
        CHECK_EQ(up_text_form(b, 4, "a\xc3\xa9", UP_TEXT_UTF8), 3);
        CHECK(!strcmp(b, "a\xc3\xa9"));
        CHECK_EQ(up_text_form(b, 3, "a\xc3\xa9", UP_TEXT_UTF8), 3);
        CHECK(!strcmp(b, "a"));
    }
    CHECK_EQ(up_text_utf8_len("\xe2\x9c\x93", 3), 3);
    CHECK_EQ(up_text_utf8_len("\xe2\x9c\x93", 2), 0);
    CHECK_EQ(up_text_utf8_len("\xc0\xaf", 2), 0);
    CHECK_EQ(up_text_utf8_len("a", 1), 1);
    CHECK_EQ(up_text_utf8_len("a", 0), 0);
}

/* n bytes of c, terminated (free it) */
static char *rep(char c, size_t n)
{
    char *s = malloc(n + 1);
    if (s) {
        memset(s, c, n);
        s[n] = '\0';
    }
    return s;
}

TEST(names_form_cuts_long_names)
{
    char *s = rep('a', 2000), *want = rep('a', 1100), out[UP_NAME_BUF], *d;
    size_t n;
    if (!s || !want) {
        CHECK(!"out of memory");
        free(s), free(want);
        return;
    }
    /* 1024 bytes are whole; more are cut to 1024 and marked with the length
     * and the FNV-1a hash of every byte (hashes by python3) */
    s[UP_NAME_MAX] = '\0';
    CHECK_FORM(s, UP_TEXT_UTF8, s);
    s[UP_NAME_MAX] = 'a';
    s[1025] = '\0';
    strcpy(want + 1024, "...[1025 bytes, #5ec6a52c]");
    CHECK_FORM(s, UP_TEXT_UTF8, want);
    s[1025] = 'a';
    strcpy(want + 1024, "...[2000 bytes, #28534c55]");
    CHECK_FORM(s, UP_TEXT_SHOWN, want);
    /* UP_TEXT_WHOLE: paths are never cut */
    n = up_text_form(NULL, 0, s, UP_TEXT_UTF8 | UP_TEXT_WHOLE);
    CHECK_EQ(n, 2000);
    CHECK((d = up_text_dup(s, UP_TEXT_UTF8 | UP_TEXT_WHOLE)) && !strcmp(d, s));
    up_free(d);
    /* never half a character: é would end at byte 1025 */
    strcpy(s + 1023, "\xc3\xa9" "b");
    memset(want, 'a', 1023);
    strcpy(want + 1023, "...[1026 bytes, #a0417380]");
    CHECK_FORM(s, UP_TEXT_UTF8, want);
    /* the longest form: 1024 bytes that are not UTF-8 fit UP_NAME_BUF */
    memset(s, '\xff', 1025);
    s[1025] = '\0';
    n = up_text_form(out, sizeof out, s, UP_TEXT_UTF8);
    CHECK_EQ(n, 4096 + strlen("...[1025 bytes, #6a7cde4e]"));
    CHECK(n < UP_NAME_BUF && !strcmp(out + 4096, "...[1025 bytes, #6a7cde4e]"));
    CHECK(!strncmp(out, "\\xff\\xff", 8));
    free(s);
    free(want);
}

TEST(names_json_and_xml)
{
    json_t *a = json_array();
    char *text, *buf = NULL;
    size_t len = 0;
    FILE *f;
    json_array_append_new(a, up_report_json_name("loc\xff\x1b]0;t\x07"));
    json_array_append_new(a, up_report_json_name(NULL));
    json_array_append_new(a, up_report_json_text("/tmp/in\xffput/h"));
    json_array_append_new(a, up_report_json_text(NULL));
    json_array_append_new(a, up_report_json_name("m\xc3\xa4in \xe2\x9c\x93"));
    text = json_dumps(a, JSON_COMPACT);
    CHECK(text && !strcmp(text, "[\"loc\\\\xff\\u001B]0;t\\u0007\",\"\",\"/tmp/in\\\\xffput/h\",null,"
                                "\"m\xc3\xa4in \xe2\x9c\x93\"]"));
    free(text);
    json_decref(a);
    if (!(f = open_memstream(&buf, &len))) {
        CHECK(!"open_memstream");
        return;
    }
    up_report_xml_name(f, "a<b>&\"'\x01\xff\xe2\x80\xae \xc3\xa4");
    fputc('|', f);
    up_report_xml_text(f, NULL);
    fclose(f);
    CHECK(buf && !strcmp(buf, "a&lt;b&gt;&amp;&quot;&#39;\\x01\\xff\\xe2\\x80\\xae \xc3\xa4|"));
    free(buf);
}

/* export: a region named by 5000 bytes, entered 40 times, and a location
 * named by the same: every slice carries the cut name, so the file stays
 * small; the marker's hash by python3 */
TEST(names_export_cuts_long_names)
{
    char in[4096], out[4200], *names[40], *want = rep('r', 1100);
    char *big = rep('r', 5000);
    up_export_opts o = {0};
    up_export_stats st;
    up_err err = {0};
    up_trace *t = NULL;
    struct stat sb;
    json_t *doc, *ev;
    size_t i, nb = 0, nt = 0;
    if (!big || !want) {
        CHECK(!"out of memory");
        free(big), free(want);
        return;
    }
    for (i = 0; i < 40; i++)
        names[i] = big; /* 40 regions, one name */
    snprintf(in, sizeof in, "%s", t_dir("in"));
    snprintf(out, sizeof out, "%s.json", t_dir("out"));
    CHECK(t_write_named_regions(in, (const char *const *)names, 40, 5, 1000, "node", big) == 0);
    if (up_trace_open(in, &t, &err) != UP_OK || up_export_perfetto(t, out, &o, &st, &err) != UP_OK) {
        t_fail(__FILE__, __LINE__, "export: %s", err.msg);
        up_trace_close(t);
        free(big), free(want);
        return;
    }
    up_trace_close(t);
    CHECK(stat(out, &sb) == 0 && sb.st_size < 64 * 1024);
    strcpy(want + 1024, "...[5000 bytes, #1f4a9545]");
    if ((doc = json_load_file(out, 0, NULL)) != NULL) {
        json_array_foreach(json_object_get(doc, "traceEvents"), i, ev) {
            const char *ph = json_string_value(json_object_get(ev, "ph"));
            const char *nm = json_string_value(json_object_get(ev, "name"));
            if (ph && !strcmp(ph, "B")) {
                CHECK(nm && !strcmp(nm, want));
                nb++;
            }
            if (nm && !strcmp(nm, "thread_name")) {
                const char *tn = json_string_value(json_object_get(json_object_get(ev, "args"), "name"));
                CHECK(tn && !strncmp(tn, want, strlen(want)) && !strcmp(tn + strlen(want), " (location 0)"));
                nt++;
            }
        }
        json_decref(doc);
    } else
        CHECK(!"the export is JSON");
    CHECK_EQ(nb, 40);
    CHECK_EQ(nt, 1);
    free(big);
    free(want);
}
