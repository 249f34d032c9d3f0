/*
 * test_export.c - `unperturb export --perfetto` (src/report/perfetto.c) on
 * traces written here with OTF2's writer, read back with jansson: JSON
 * string escapes, region names of every kind of byte, timestamps to the
 * tick, message flow ids, collectives, the window, allocation failures.
 * tests/export/run.sh checks the command on real traces with otf2-print.
 */
#include <jansson.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test.h"
#include "tutil.h"
#include "report/perfetto.h"
#include "tracegen/tracegen.h"

static json_t *load(const char *path)
{
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    if (!j)
        t_fail(__FILE__, __LINE__, "%s is not valid JSON: %s (line %d)", path, je.text, je.line);
    return j;
}

static up_status export_to(const char *in, const char *out, const up_export_opts *o,
                           up_export_stats *st, up_err *err)
{
    up_trace *t = NULL;
    up_status s = up_trace_open(in, &t, err);
    if (s == UP_OK)
        s = up_export_perfetto(t, out, o, st, err);
    up_trace_close(t);
    return s;
}

/* the i-th event of phase ph on thread tid (NULL if none) */
static json_t *nth(json_t *doc, const char *ph, long tid, size_t i)
{
    json_t *evs = json_object_get(doc, "traceEvents"), *e;
    size_t k;
    json_array_foreach(evs, k, e) {
        if (strcmp(json_string_value(json_object_get(e, "ph")), ph) != 0 ||
            (tid >= 0 && json_integer_value(json_object_get(e, "tid")) != tid))
            continue;
        if (i-- == 0)
            return e;
    }
    return NULL;
}

static size_t count(json_t *doc, const char *ph)
{
    json_t *evs = json_object_get(doc, "traceEvents"), *e;
    size_t k, n = 0;
    json_array_foreach(evs, k, e)
        n += !strcmp(json_string_value(json_object_get(e, "ph")), ph);
    return n;
}

static double ts(json_t *e) { return e ? json_number_value(json_object_get(e, "ts")) : -1; }

static const char *str(json_t *e, const char *key)
{
    const char *s = e ? json_string_value(json_object_get(e, key)) : NULL;
    return s ? s : "(none)";
}

TEST(json_quote_escapes)
{
    char buf[128];
    size_t n;
    n = up_json_quote(buf, sizeof buf, "a\"b\\c\n\t\x01\x1f" "d\x7f");
    CHECK(!strcmp(buf, "\"a\\\"b\\\\c\\n\\t\\u0001\\u001fd\x7f\""));
    CHECK_EQ(n, strlen(buf));
    /* valid UTF-8 (2, 3 and 4 bytes) is copied */
    up_json_quote(buf, sizeof buf, "\xc3\xbc \xe2\x9c\x93 \xf0\x9d\x84\x9e");
    CHECK(!strcmp(buf, "\"\xc3\xbc \xe2\x9c\x93 \xf0\x9d\x84\x9e\""));
    /* invalid: a lone byte, a truncated sequence, an overlong, a surrogate,
     * above U+10FFFF: every byte that starts no valid sequence as the four
     * characters \xNN (up_text_form), in JSON "\\xNN" */
    up_json_quote(buf, sizeof buf, "\xff|\xc3|\xc0\x80|\xed\xa0\x80|\xf4\x90\x80\x80");
    CHECK(!strcmp(buf, "\"\\\\xff|\\\\xc3|\\\\xc0\\\\x80|\\\\xed\\\\xa0\\\\x80|"
                       "\\\\xf4\\\\x90\\\\x80\\\\x80\""));
    /* like snprintf: the full length, a truncated but terminated buffer */
    n = up_json_quote(buf, 4, "abcdef");
    CHECK_EQ(n, 8);
    CHECK(!strcmp(buf, "\"ab"));
    CHECK_EQ(up_json_quote(NULL, 0, "\n"), 4);
}

static const char *const odd_names[] = {
    "plain", "with \"quotes\"", "back\\slash", "tab\there\nnewline", "ctl\x01\x1f",
    "\xc3\x9c" "berpr\xc3\xbc" "fung \xe2\x9c\x93 \xf0\x9d\x84\x9e", "bad \xff byte", "",
};
#define NODD (sizeof odd_names / sizeof odd_names[0])

static int write_odd(const char *dir)
{
    return t_write_named_regions(dir, odd_names, NODD, 5, 1000, "machine \"x\"", "thread\\1");
}

TEST(export_region_names_of_every_kind)
{
    char in[4096], out[4096];
    up_export_opts o = {0};
    up_export_stats st;
    up_err err = {0};
    json_t *doc, *e;
    unsigned r;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    snprintf(out, sizeof out, "%s.json", t_dir("out"));
    CHECK(write_odd(in) == 0);
    if (export_to(in, out, &o, &st, &err) != UP_OK) {
        t_fail(__FILE__, __LINE__, "export: %s", err.msg);
        return;
    }
    CHECK_EQ(st.begins, NODD);
    CHECK_EQ(st.ends, NODD);
    CHECK_EQ(st.records, 2 * NODD);
    if (!(doc = load(out)))
        return;
    for (r = 0; r < NODD; r++) {
        const char *want = strstr(odd_names[r], "\xff") ? "bad \\xff byte" : odd_names[r];
        e = nth(doc, "B", -1, r);
        CHECK(!strcmp(str(e, "name"), want));
        CHECK(!strcmp(str(e, "cat"), "user"));
        /* ts: microseconds from the global offset (100 ticks of 1 ns) */
        CHECK_NEAR(ts(e), (10.0 * r) / 1000.0, 1e-9);
        CHECK_NEAR(ts(nth(doc, "E", -1, r)), (5.0 + 10.0 * r) / 1000.0, 1e-9);
    }
    /* the location's name, with its id; no rank: a process per location group */
    e = nth(doc, "M", -1, 0);
    CHECK(!strcmp(str(e, "name"), "process_name"));
    CHECK(!strcmp(str(json_object_get(e, "args"), "name"), "process 0"));
    e = nth(doc, "M", -1, 2);
    CHECK(!strcmp(str(e, "name"), "thread_name"));
    CHECK(!strcmp(str(json_object_get(e, "args"), "name"), "thread\\1 (location 0)"));
    json_decref(doc);
}

/* rank 0 sends twice with tag 3 and once with tag 4, rank 1 receives them
 * (tag 4 first, then the two of tag 3), then both call MPI_Barrier.
 * Resolution 2.4e9 ticks/s: ts need 4 decimals. */
static void write_msgs(const char *dir)
{
    tg *g = tg_open(dir, 2, 2400000000u, 0);
    tg_enter(g, 0, 1000, TG_MAIN);
    tg_enter(g, 1, 1003, TG_MAIN);
    tg_mpi_send(g, 0, 2000, 2100, 2200, 1, 3, 8);
    tg_mpi_send(g, 0, 3000, 3100, 3200, 1, 3, 16);
    tg_mpi_send(g, 0, 4000, 4100, 4200, 1, 4, 32);
    tg_mpi_recv(g, 1, 2500, 4500, 4600, 0, 4, 32);
    tg_mpi_recv(g, 1, 4700, 4800, 4900, 0, 3, 8);
    tg_mpi_recv(g, 1, 5000, 5100, 5200, 0, 3, 16);
    tg_mpi_coll(g, 0, TG_BARRIER, 6000, 6001, 6500, 6600, OTF2_COLLECTIVE_OP_BARRIER,
                OTF2_UNDEFINED_UINT32, 0, 0);
    tg_mpi_coll(g, 1, TG_BARRIER, 6100, 6101, 6500, 6700, OTF2_COLLECTIVE_OP_BARRIER,
                OTF2_UNDEFINED_UINT32, 0, 0);
    tg_leave(g, 0, 7000, TG_MAIN);
    tg_leave(g, 1, 7003, TG_MAIN);
    CHECK(tg_close(g) == 0);
}

TEST(export_flows_times_collectives)
{
    char in[4096], out[4096];
    up_export_opts o = {0};
    up_export_stats st;
    up_err err = {0};
    json_t *doc, *e, *args;
    const double us = 1e6 / 2400000000.0; /* one tick in us */
    long t0, t1;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    snprintf(out, sizeof out, "%s.json", t_dir("out"));
    write_msgs(in);
    if (export_to(in, out, &o, &st, &err) != UP_OK) {
        t_fail(__FILE__, __LINE__, "export: %s", err.msg);
        return;
    }
    CHECK_EQ(st.flow_starts, 3);
    CHECK_EQ(st.flow_ends, 3);
    CHECK_EQ(st.begins, 10);
    CHECK_EQ(st.ends, 10);
    CHECK_EQ(st.collectives, 2);
    CHECK_EQ(st.instants, 0);
    CHECK_EQ(st.unresolved, 0);
    CHECK_EQ(st.raised, 0);
    if (!(doc = load(out)))
        return;
    /* pid = rank + 1; the main threads have tid = pid */
    t0 = (long)json_integer_value(json_object_get(nth(doc, "B", -1, 0), "tid"));
    CHECK_EQ(t0, 1);
    t1 = 2;
    CHECK(nth(doc, "B", t1, 0) != NULL);
    /* ticks -> us from the global offset (1000), 4 decimals: 1003 -> 0.00125 */
    CHECK_NEAR(ts(nth(doc, "B", t1, 0)), 0.0013, 1e-12);
    CHECK_NEAR(ts(nth(doc, "s", t0, 0)), 1100 * us, 0.5e-4);
    CHECK_NEAR(ts(nth(doc, "f", t1, 0)), 3500 * us, 0.5e-4);
    /* the k-th send of a channel matches its k-th receive, whatever the order
     * of the channels: tag 3 #0, tag 3 #1, tag 4 #0 on the sender; tag 4,
     * tag 3 #0, tag 3 #1 on the receiver */
    CHECK(!strcmp(str(nth(doc, "s", t0, 0), "id"), str(nth(doc, "f", t1, 1), "id")));
    CHECK(!strcmp(str(nth(doc, "s", t0, 1), "id"), str(nth(doc, "f", t1, 2), "id")));
    CHECK(!strcmp(str(nth(doc, "s", t0, 2), "id"), str(nth(doc, "f", t1, 0), "id")));
    CHECK(strcmp(str(nth(doc, "s", t0, 0), "id"), str(nth(doc, "s", t0, 1), "id")) != 0);
    e = nth(doc, "f", t1, 0);
    CHECK(!strcmp(str(e, "bp"), "e"));
    CHECK(!strcmp(str(e, "name"), str(nth(doc, "s", t0, 0), "name")));
    CHECK(!strcmp(str(e, "cat"), str(nth(doc, "s", t0, 0), "cat")));
    CHECK_EQ(json_integer_value(json_object_get(json_object_get(e, "args"), "bytes")), 32);
    /* the barrier's args on the E of MPI_Barrier (the 5th region of rank 0) */
    e = nth(doc, "E", t0, 3);
    args = json_object_get(e, "args");
    CHECK(!strcmp(str(args, "collective"), "BARRIER"));
    CHECK(!strcmp(str(args, "comm_name"), "MPI_COMM_WORLD"));
    CHECK(json_object_get(args, "root") == NULL);
    CHECK_NEAR(ts(e), 5600 * us, 0.5e-4);
    CHECK(!strcmp(str(nth(doc, "B", t0, 4), "name"), "MPI_Barrier"));
    CHECK(!strcmp(str(nth(doc, "B", t0, 4), "cat"), "MPI"));
    json_decref(doc);

    /* a window from 3050 to 3850 ticks after the origin (4050..4850): on
     * rank 1 it cuts main and the first MPI_Recv at its start, the second
     * MPI_Recv and main at its end; every B has its E */
    o.window = true;
    o.start_s = 3050 / 2400000000.0;
    o.end_s = 3850 / 2400000000.0;
    if (export_to(in, out, &o, &st, &err) != UP_OK) {
        t_fail(__FILE__, __LINE__, "export: %s", err.msg);
        return;
    }
    if (!(doc = load(out)))
        return;
    CHECK_EQ(count(doc, "B"), count(doc, "E"));
    CHECK_EQ(st.begins, st.ends);
    CHECK_EQ(st.flow_starts, 1);  /* 4100 */
    CHECK_EQ(st.flow_ends, 2);    /* 4500, 4800 */
    CHECK_NEAR(ts(nth(doc, "B", t1, 0)), 3050 * us, 0.5e-4);
    CHECK(!strcmp(str(nth(doc, "B", t1, 1), "name"), "MPI_Recv"));
    CHECK(json_is_true(json_object_get(json_object_get(nth(doc, "B", t1, 1), "args"), "cut_at_window")));
    CHECK_NEAR(ts(nth(doc, "E", t1, 2)), 3850 * us, 0.5e-4);
    /* the receive of tag 4 in the window still matches its send's id
     * (sent at 4100, inside), counted from the trace's start */
    CHECK(!strcmp(str(nth(doc, "s", t0, 0), "id"), str(nth(doc, "f", t1, 0), "id")));
    json_decref(doc);

    /* one location only: its own half of every message */
    {
        up_id_range r = {1, 1};
        memset(&o, 0, sizeof o);
        o.locs = &r;
        o.nlocs = 1;
        CHECK(export_to(in, out, &o, &st, &err) == UP_OK);
        CHECK_EQ(st.locations, 1);
        CHECK_EQ(st.flow_starts, 0);
        CHECK_EQ(st.flow_ends, 3);
        r.lo = r.hi = 5;
        CHECK(export_to(in, out, &o, &st, &err) == UP_EUSAGE);
        CHECK(strstr(err.msg, "no location 5") != NULL);
    }
}

/* The library writes where it is told (which paths may be written is the
 * command's output set, test_output.c and tests/safety/run.sh); a write that
 * fails names the path and the system's reason. */
TEST(export_write_errors)
{
    char in[4096], out[4096], bad[4200];
    up_export_opts o = {0};
    up_export_stats st;
    up_err err = {0};
    struct stat sb;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    snprintf(out, sizeof out, "%s.json", t_dir("out"));
    write_msgs(in);
    CHECK(export_to(in, out, &o, &st, &err) == UP_OK);
    CHECK(export_to(in, in, &o, &st, &err) == UP_EIO);
    CHECK(strstr(err.msg, "Is a directory") != NULL);
    snprintf(bad, sizeof bad, "%s/no/such/x.json", in);
    CHECK(export_to(in, bad, &o, &st, &err) == UP_EIO);
    CHECK(strstr(err.msg, bad) && strstr(err.msg, "No such file or directory"));
    o.window = true;
    o.start_s = 2;
    o.end_s = 1;
    CHECK(export_to(in, bad, &o, &st, &err) == UP_EUSAGE);
    CHECK(stat(bad, &sb) != 0);
}

TEST(export_allocation_failures)
{
    char in[4096], out[4200], dir[4096];
    long n;
    int ok = 0, failed = 0;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    snprintf(dir, sizeof dir, "%s", t_dir("out"));
    snprintf(out, sizeof out, "%s/x.json", dir);
    write_msgs(in);
    CHECK(mkdir(dir, 0777) == 0);
    for (n = 0; n < 400; n += 2) {
        up_export_opts o = {0};
        up_export_stats st;
        up_err err = {0};
        up_trace *t = NULL;
        up_status s;
        DIR *dp;
        struct dirent *de;
        up_alloc_set_fail_after(n);
        s = up_trace_open(in, &t, &err);
        if (s == UP_OK)
            s = up_export_perfetto(t, out, &o, &st, &err);
        up_alloc_set_fail_after(-1);
        up_trace_close(t);
        if (s == UP_OK) {
            ok++;
            CHECK_EQ(st.flow_starts, 3);
        } else {
            failed++;
            CHECK(s == UP_ENOMEM || s == UP_EFORMAT);
            CHECK(err.msg[0] != 0);
        }
        /* a failed export leaves no file behind */
        if (s != UP_OK && (dp = opendir(dir)) != NULL) {
            while ((de = readdir(dp)) != NULL)
                if (de->d_name[0] != '.')
                    t_fail(__FILE__, __LINE__, "n=%ld left %s", n, de->d_name);
            closedir(dp);
        }
    }
    CHECK(ok > 0);
    CHECK(failed > 0);
}
