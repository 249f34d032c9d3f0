/*
 * test_util.c - the hash map against a naive reference, calibration files,
 * the copy-time table, allocation failures (output sets: test_output.c),
 * and text from outside: escaping, numbers in ranges, small files and lines
 * for inih.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "tutil.h"
#include "tracegen/tracegen.h"

TEST(map_matches_reference)
{
    /* random puts and deletes on a small key space, checked against an
     * array after every step; deletions exercise the backward shift */
    enum { N = 512 };
    uint64_t ref[N];
    bool in[N];
    up_map m;
    unsigned i, step, x = 12345;
    up_map_init(&m);
    memset(in, 0, sizeof in);
    for (step = 0; step < 20000; step++) {
        unsigned k;
        x = x * 1103515245u + 12345u;
        k = (x >> 8) % N;
        if ((x >> 20) % 3) {
            ref[k] = step;
            in[k] = true;
            CHECK(up_map_put(&m, k, k * 7 + 1, step));
        } else {
            CHECK(up_map_del(&m, k, k * 7 + 1) == in[k]);
            in[k] = false;
        }
        if (step % 997 == 0)
            for (i = 0; i < N; i++) {
                uint64_t *v = up_map_get(&m, i, i * 7 + 1);
                CHECK((v != NULL) == in[i]);
                if (v && in[i])
                    CHECK_EQ(*v, ref[i]);
            }
    }
    {
        size_t n = 0;
        uint64_t k0, k1, v;
        for (i = 0; i < m.cap; i++)
            if (up_map_at(&m, i, &k0, &k1, &v)) {
                n++;
                CHECK(in[k0]);
                CHECK_EQ(k1, k0 * 7 + 1);
            }
        for (i = 0; i < N; i++)
            n -= in[i];
        CHECK_EQ(n, 0);
    }
    CHECK(up_map_get(&m, 9999, 0) == NULL);
    up_map_free(&m);
}

static const char *write_text(const char *name, const char *text)
{
    static char path[4096];
    FILE *f;
    snprintf(path, sizeof path, "%s", t_dir(name));
    f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return path;
}

TEST(calibration_file_read)
{
    up_comp_params p;
    up_err err = {0};
    const char *path = write_text("calib.ini",
                                  "; written by hand\n"
                                  "[info]\nhost = test\n"
                                  "[overhead]\nall = 100\nsend = 250.5\n"
                                  "[copy]\n4096 = 0.2\n64 = 1.0\n1048576 = 0.1\n"
                                  "[network]\nlatency_ns = 3000\nns_per_byte = 0.5\nper_hop_ns = 40\neager_limit = 4096\n");
    up_comp_params_init(&p);
    CHECK_EQ(up_calibration_load(path, &p, &err), UP_OK);
    CHECK_NEAR(p.overhead_ns[UP_RK_ENTER], 100, 0);
    CHECK_NEAR(p.overhead_ns[UP_RK_SEND], 250.5, 0);
    CHECK_NEAR(p.overhead_ns[UP_RK_OTHER], 100, 0);
    CHECK_NEAR(p.overhead_ns[UP_RK_METRIC], 100, 0); /* from all */
    CHECK(p.overhead_set && p.copy_set && p.network_set);
    CHECK_EQ(p.ncopy, 3);
    CHECK_EQ(p.copy_bytes[0], 64); /* sorted by size */
    CHECK_NEAR(p.latency_ns, 3000, 0);
    CHECK_NEAR(p.per_hop_ns, 40, 0);
    /* C(size)*size: below the table 1.0 ns/byte; at 2080 bytes halfway
     * between 64 (1.0) and 4096 (0.2): 0.6 ns/byte; above: 0.1 */
    CHECK_NEAR(up_copy_ns(&p, 32), 32.0, 1e-9);
    CHECK_NEAR(up_copy_ns(&p, 2080), 2080 * 0.6, 1e-9);
    CHECK_NEAR(up_copy_ns(&p, 2 * 1048576), 0.1 * 2 * 1048576, 1e-6);
    CHECK_NEAR(up_copy_ns(&p, 0), 0, 0);
}

TEST(calibration_metric_defaults_to_other)
{
    up_comp_params p;
    up_err err = {0};
    /* a file from before the kind "metric": metric takes other's value */
    up_comp_params_init(&p);
    CHECK_EQ(up_calibration_parse("[overhead]\nenter = 30\nother = 40\n", "old", &p, &err), UP_OK);
    CHECK_NEAR(p.overhead_ns[UP_RK_METRIC], 40, 0);
    CHECK_NEAR(p.overhead_ns[UP_RK_ENTER], 30, 0);
    up_comp_params_init(&p);
    CHECK_EQ(up_calibration_parse("[overhead]\nother = 40\nmetric = 580\n", "new", &p, &err), UP_OK);
    CHECK_NEAR(p.overhead_ns[UP_RK_METRIC], 580, 0);
    CHECK_NEAR(p.overhead_ns[UP_RK_OTHER], 40, 0);
    CHECK_EQ(up_rk_of(UP_EV_Metric), UP_RK_METRIC);
    CHECK_EQ(up_rk_of(UP_EV_ParameterInt), UP_RK_OTHER);
}

TEST(calibration_fn_kinds_default_to_enter_and_leave)
{
    up_comp_params p;
    up_err err = {0};
    /* a file from before fn_enter/fn_leave: they follow enter and leave,
     * ahead of "all" (which then only fills the rest) */
    up_comp_params_init(&p);
    CHECK_EQ(up_calibration_parse("[overhead]\nall = 99\nenter = 15\nleave = 16\n", "old", &p,
                                  &err), UP_OK);
    CHECK_NEAR(p.overhead_ns[UP_RK_FN_ENTER], 15, 0);
    CHECK_NEAR(p.overhead_ns[UP_RK_FN_LEAVE], 16, 0);
    CHECK_NEAR(p.overhead_ns[UP_RK_SEND], 99, 0);
    up_comp_params_init(&p);
    CHECK_EQ(up_calibration_parse("[overhead]\nenter = 15\nleave = 16\nfn_enter = 31\nfn_leave = 32\n",
                                  "new", &p, &err), UP_OK);
    CHECK_NEAR(p.overhead_ns[UP_RK_FN_ENTER], 31, 0);
    CHECK_NEAR(p.overhead_ns[UP_RK_FN_LEAVE], 32, 0);
    CHECK_NEAR(p.overhead_ns[UP_RK_ENTER], 15, 0);
    up_comp_params_init(&p);
    CHECK_EQ(up_calibration_parse("[overhead]\nall = 7\n", "all", &p, &err), UP_OK);
    CHECK_NEAR(p.overhead_ns[UP_RK_FN_LEAVE], 7, 0);
}

TEST(calibration_loggp_overheads_are_accepted_and_ignored)
{
    up_comp_params p, q;
    up_err err = {0};
    /* unperturb calibrate writes LogGP's o for simulate's machine files;
     * compensation reads the file and leaves them aside */
    up_comp_params_init(&p);
    CHECK_EQ(up_calibration_parse("[network]\nlatency_ns = 90\nsend_overhead_ns = 28\n"
                                  "recv_overhead_ns = 21\n", "calib", &p, &err), UP_OK);
    CHECK_NEAR(p.latency_ns, 90, 0);
    up_comp_params_init(&q);
    q.latency_ns = 90, q.network_set = true;
    CHECK(!memcmp(&p, &q, sizeof p));
    CHECK_EQ(up_calibration_parse("[network]\nsend_overhead = 28\n", "calib", &p, &err), UP_EFORMAT);
    CHECK(strstr(err.msg, "send_overhead_ns") != NULL);
}

TEST(calibration_range_of_o_feeds_the_bounds)
{
    up_comp_params p;
    up_err err = {0};
    /* [overhead_low]/[overhead_high]: kinds they do not name keep the
     * nominal O; lower removes the high end, upper the low end */
    up_comp_params_init(&p);
    CHECK_EQ(up_calibration_parse("[overhead]\nenter = 30\nother = 40\n"
                                  "[overhead_low]\nenter = 20\n"
                                  "[overhead_high]\nenter = 50\nother = 60\n",
                                  "calib", &p, &err), UP_OK);
    CHECK(p.range_set);
    CHECK_NEAR(p.overhead_low_ns[UP_RK_ENTER], 20, 0);
    CHECK_NEAR(p.overhead_low_ns[UP_RK_OTHER], 40, 0);
    CHECK_NEAR(p.overhead_high_ns[UP_RK_OTHER], 60, 0);
    CHECK_NEAR(p.overhead_high_ns[UP_RK_LEAVE], 0, 0); /* named nowhere */
    {
        up_comp_params q = p;
        q.mode = UP_MODE_LOWER;
        up_comp_params_resolve(&q);
        CHECK_EQ(q.overhead_end, 1);
        CHECK_NEAR(q.overhead_ns[UP_RK_ENTER], 50, 0);
        CHECK_NEAR(q.overhead_ns[UP_RK_OTHER], 60, 0);
        q = p;
        q.mode = UP_MODE_UPPER;
        up_comp_params_resolve(&q);
        CHECK_EQ(q.overhead_end, -1);
        CHECK_NEAR(q.overhead_ns[UP_RK_ENTER], 20, 0);
        CHECK_NEAR(q.overhead_ns[UP_RK_OTHER], 40, 0);
        q = p;
        q.mode = UP_MODE_NETWORK;
        up_comp_params_resolve(&q);
        CHECK_EQ(q.overhead_end, 0);
        CHECK_NEAR(q.overhead_ns[UP_RK_ENTER], 30, 0);
        /* an O given for every kind (--overhead-ns) has no range */
        q = p;
        q.mode = UP_MODE_LOWER;
        up_comp_params_set_overhead(&q, 7);
        up_comp_params_resolve(&q);
        CHECK_EQ(q.overhead_end, 0);
        CHECK_NEAR(q.overhead_ns[UP_RK_ENTER], 7, 0);
    }
    /* a later file with an [overhead] and no range drops the archive's */
    CHECK_EQ(up_calibration_parse("[overhead]\nenter = 33\n", "later", &p, &err), UP_OK);
    CHECK(!p.range_set);
    /* the range names kinds, not "all" */
    up_comp_params_init(&p);
    CHECK_EQ(up_calibration_parse("[overhead]\nall = 10\n[overhead_high]\nall = 12\n", "c", &p,
                                  &err), UP_EFORMAT);
    CHECK(strstr(err.msg, "unknown key 'all'") != NULL);
    /* a later file with only network constants keeps the range */
    CHECK_EQ(up_calibration_parse("[overhead]\nall = 10\n[overhead_high]\nsend = 12\n", "c", &p,
                                  &err), UP_OK);
    CHECK_EQ(up_calibration_parse("[network]\nlatency_ns = 5\n", "net", &p, &err), UP_OK);
    CHECK(p.range_set);
    CHECK_NEAR(p.overhead_high_ns[UP_RK_SEND], 12, 0);
    /* a range that does not hold the nominal O is an error naming the kind */
    up_comp_params_init(&p);
    CHECK_EQ(up_calibration_parse("[overhead]\nrecv = 30\n[overhead_low]\nrecv = 31\n", "bad.ini",
                                  &p, &err), UP_EFORMAT);
    CHECK(strstr(err.msg, "bad.ini") != NULL && strstr(err.msg, "recv") != NULL);
}

TEST(calibration_overhead_by_location)
{
    up_comp_params p;
    up_err err = {0};
    /* what the tracer's --extra-ns spins took beyond the calibration, per
     * location id; a later source's list replaces it, an [overhead] without
     * one drops it, and so does an O given for all kinds; a location named
     * twice is an error (the last one won before issue 31) */
    up_comp_params_init(&p);
    CHECK_EQ(up_calibration_parse("[overhead]\nall = 100\n[overhead_by_location]\n0 = 5\n"
                                  "4294967301 = 2.5\n0 = 6\n", "calib", &p, &err), UP_EFORMAT);
    CHECK(!strcmp(err.msg, "calib:6: [overhead_by_location] location 0 is set twice (first at line 4)"));
    up_comp_params_init(&p);
    CHECK_EQ(up_calibration_parse("[overhead]\nall = 100\n[overhead_by_location]\n0 = 6\n"
                                  "4294967301 = 2.5\n", "calib", &p, &err), UP_OK);
    CHECK_EQ(p.nloc_ovh, 2);
    CHECK_EQ(p.loc_ovh_id[0], 0);
    CHECK_NEAR(p.loc_ovh_ns[0], 6, 0);
    CHECK_EQ(p.loc_ovh_id[1], 4294967301ull);
    CHECK_NEAR(p.loc_ovh_ns[1], 2.5, 0);
    CHECK_EQ(up_calibration_parse("[network]\nlatency_ns = 5\n", "net", &p, &err), UP_OK);
    CHECK_EQ(p.nloc_ovh, 2);
    CHECK_EQ(up_calibration_parse("[overhead_by_location]\n3 = 1\n", "c2", &p, &err), UP_OK);
    CHECK_EQ(p.nloc_ovh, 1);
    CHECK_EQ(p.loc_ovh_id[0], 3);
    CHECK_EQ(up_calibration_parse("[overhead]\nenter = 7\n", "c3", &p, &err), UP_OK);
    CHECK_EQ(p.nloc_ovh, 0);
    CHECK_EQ(up_calibration_parse("[overhead_by_location]\n3 = 1\n", "c4", &p, &err), UP_OK);
    up_comp_params_set_overhead(&p, 9);
    CHECK_EQ(p.nloc_ovh, 0);
    CHECK_EQ(up_calibration_parse("[overhead_by_location]\nrank0 = 1\n", "bad.ini", &p, &err),
             UP_EFORMAT);
    CHECK(strstr(err.msg, "bad.ini") != NULL && strstr(err.msg, "location id") != NULL);
}

TEST(calibration_errors_name_the_problem)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"[overhead]\nenter = -5\n", "bad0.ini:2: [overhead] enter = -5: must be between 0 and 1e9 ns"},
        {"[overhead]\nenterr = 5\n", "unknown key 'enterr'"},
        {"[copy]\nbig = 5\n", "unknown key 'big'"},
        {"[weird]\nx = 1\n", "unknown section"},
        {"[overhead]\nthis line is not ini\n", "not an INI line"},
        {"[copy]\n64 = 1\n64 = 2\n", "bad5.ini:3: [copy] size 64 is set twice (first at line 2)"},
    };
    unsigned i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        up_comp_params p;
        up_err err = {0};
        char name[32];
        const char *path;
        snprintf(name, sizeof name, "bad%u.ini", i);
        path = write_text(name, bad[i].text);
        up_comp_params_init(&p);
        CHECK(up_calibration_load(path, &p, &err) != UP_OK);
        CHECK(strstr(err.msg, bad[i].want) != NULL);
        CHECK(strstr(err.msg, "bad") != NULL); /* names the file */
    }
    {
        up_comp_params p;
        up_err err = {0};
        up_comp_params_init(&p);
        CHECK_EQ(up_calibration_load("/nonexistent/c.ini", &p, &err), UP_EIO);
        CHECK(strstr(err.msg, "/nonexistent/c.ini") != NULL);
    }
}

TEST(allocation_failures_are_reported)
{
    /* make the n-th allocation fail for growing n: every run must either
     * succeed or fail with UP_ENOMEM and a message, never crash or leak */
    char in[4096];
    tg *g;
    long n;
    int failures = 0, successes = 0;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 2, 1000000000, 0);
    tg_mpi_send(g, 0, 10, 20, 30, 1, 0, 8);
    tg_mpi_recv(g, 1, 5, 40, 50, 0, 0, 8);
    tg_mpi_coll(g, 0, TG_BARRIER, 60, 70, 80, 90, OTF2_COLLECTIVE_OP_BARRIER, OTF2_UNDEFINED_UINT32, 0, 0);
    tg_mpi_coll(g, 1, TG_BARRIER, 60, 70, 80, 90, OTF2_COLLECTIVE_OP_BARRIER, OTF2_UNDEFINED_UINT32, 0, 0);
    CHECK(tg_close(g) == 0);
    for (n = 0; n < 400; n += 3) {
        up_comp_params p = t_params(1, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
        up_replay_result res;
        up_err err = {0};
        up_trace *t = NULL;
        up_comp *m = NULL;
        up_status st;
        up_alloc_set_fail_after(n);
        st = up_trace_open(in, &t, &err);
        if (st == UP_OK)
            st = up_comp_new(&p, t, &m, &err);
        if (st == UP_OK)
            st = up_replay_run(t, NULL, up_comp_ops(), m, NULL, &res, &err);
        up_alloc_set_fail_after(-1);
        if (st == UP_OK) {
            successes++;
            CHECK_EQ(res.events, 14);
            up_replay_result_free(&res);
        } else {
            failures++;
            CHECK(st == UP_ENOMEM || st == UP_EFORMAT);
            CHECK(err.msg[0] != 0);
        }
        up_comp_free(m);
        up_trace_close(t);
    }
    CHECK(failures > 0);
    CHECK(successes > 0);
}

/* ---- text from outside (src/util/text.c) ---------------------------------- */

static void check_esc_at(const char *file, int line, const char *in, size_t cap, size_t max,
                         const char *want)
{
    char out[256];
    up_text_escape(out, cap, in, max);
    if (strcmp(out, want))
        t_fail(file, line, "escaped '%s', wanted '%s'", out, want);
}
#define CHECK_ESC(in, cap, max, want) check_esc_at(__FILE__, __LINE__, in, cap, max, want)

TEST(text_escape_makes_every_byte_printable)
{
    char once[256], twice[256];
    /* control characters, DEL, an escape sequence */
    CHECK_ESC("a\tb\nc\rd\x01\x7f", 256, 0, "a\\x09b\\x0ac\\x0dd\\x01\\x7f");
    CHECK_ESC("\x1b[2J", 256, 0, "\\x1b[2J");
    /* UTF-8 that prints stays: é, €, a 4-byte emoji */
    CHECK_ESC("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 256, 0, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    /* not UTF-8: a lone continuation byte, an overlong '/', a surrogate, a
     * cut sequence, bytes that never occur */
    CHECK_ESC("\x80", 256, 0, "\\x80");
    CHECK_ESC("\xc0\xaf", 256, 0, "\\xc0\\xaf");
    CHECK_ESC("\xed\xa0\x80", 256, 0, "\\xed\\xa0\\x80");
    CHECK_ESC("\xe2\x82", 256, 0, "\\xe2\\x82");
    CHECK_ESC("\xfe\xff", 256, 0, "\\xfe\\xff");
    /* UTF-8 that does not print or turns text around: C1 NEL, RLO, LRI */
    CHECK_ESC("\xc2\x85", 256, 0, "\\xc2\\x85");
    CHECK_ESC("a\xe2\x80\xaez", 256, 0, "a\\xe2\\x80\\xaez");
    CHECK_ESC("\xe2\x81\xa6", 256, 0, "\\xe2\\x81\\xa6");
    /* cut to `max` input bytes or to the buffer, marked "..." */
    CHECK_ESC("abcdefgh", 256, 3, "abc...");
    CHECK_ESC("abcdefgh", 8, 0, "abcd...");
    CHECK_ESC("abcdefg", 8, 0, "abcdefg");
    CHECK_ESC("ab\x01", 6, 0, "ab...");
    CHECK_ESC("\xc3\xa9\xc3\xa9", 256, 3, "\xc3\xa9..."); /* never half a character */
    CHECK_ESC("", 256, 0, "");
    CHECK_ESC("abc", 1, 0, "");
    /* escaped text escapes to itself */
    up_text_escape(once, sizeof once, "x\x1b\xff\xc3\xa9\\x41", 0);
    up_text_escape(twice, sizeof twice, once, 0);
    CHECK(!strcmp(once, "x\\x1b\\xff\xc3\xa9\\x41"));
    CHECK(!strcmp(once, twice));
    /* up_esc: rotating buffers, at most 200 bytes shown */
    {
        const char *a = up_esc("\x01"), *b = up_esc("\x02");
        char longs[400];
        CHECK(!strcmp(a, "\\x01") && !strcmp(b, "\\x02"));
        memset(longs, 'x', sizeof longs - 1);
        longs[sizeof longs - 1] = '\0';
        CHECK_EQ(strlen(up_esc(longs)), 203);
        CHECK(!strcmp(up_esc(NULL), "(null)"));
    }
}

TEST(text_numbers_within_a_range)
{
    static const up_range mib = {1, 65536, true, "MiB"}, ratio = {0.001, 1000, false, ""};
    char why[256], rt[128];
    double v = -1;
    up_range_text(rt, sizeof rt, &UP_RANGE_NS);
    CHECK(!strcmp(rt, "between 0 and 1e9 ns"));
    up_range_text(rt, sizeof rt, &UP_RANGE_NS_PER_BYTE);
    CHECK(!strcmp(rt, "between 0 and 1e6 ns/byte"));
    up_range_text(rt, sizeof rt, &UP_RANGE_BYTES);
    CHECK(!strcmp(rt, "a whole number between 0 and 2^53 bytes"));
    up_range_text(rt, sizeof rt, &mib);
    CHECK(!strcmp(rt, "a whole number between 1 and 65536 MiB"));
    up_range_text(rt, sizeof rt, &ratio);
    CHECK(!strcmp(rt, "between 0.001 and 1000"));
    /* accepted: the ends, exponents, a sign, -0 as 0 */
    CHECK(up_num_parse("0", &UP_RANGE_NS, &v, why, sizeof why) && v == 0);
    CHECK(up_num_parse("1e9", &UP_RANGE_NS, &v, why, sizeof why) && v == 1e9);
    CHECK(up_num_parse("+2.5e2", &UP_RANGE_NS, &v, why, sizeof why) && v == 250);
    CHECK(up_num_parse("-0", &UP_RANGE_NS, &v, why, sizeof why) && v == 0 && !signbit(v));
    CHECK(up_num_parse("9007199254740992", &UP_RANGE_BYTES, &v, why, sizeof why));
    CHECK(up_num_parse("1e3", &mib, &v, why, sizeof why) && v == 1000);
    /* refused, with the reason */
    v = 7;
    CHECK(!up_num_parse("1e300", &UP_RANGE_NS, &v, why, sizeof why));
    CHECK(!strcmp(why, "must be between 0 and 1e9 ns"));
    CHECK(v == 7); /* untouched */
    CHECK(!up_num_parse("1.5", &UP_RANGE_BYTES, &v, why, sizeof why));
    CHECK(!strcmp(why, "must be a whole number between 0 and 2^53 bytes"));
    CHECK(!up_num_parse("9007199254740994", &UP_RANGE_BYTES, &v, why, sizeof why));
    CHECK(!up_num_parse("0", &mib, &v, why, sizeof why));
    CHECK(!strcmp(why, "must be a whole number between 1 and 65536 MiB"));
    CHECK(!up_num_parse("1e-20", &ratio, &v, why, sizeof why));
    CHECK(!strcmp(why, "must be between 0.001 and 1000"));
    CHECK(!up_num_parse("-1", &UP_RANGE_NS, &v, why, sizeof why));
    CHECK(!up_num_parse("inf", &UP_RANGE_NS, &v, why, sizeof why));
    CHECK(!strcmp(why, "must be between 0 and 1e9 ns"));
    {
        static const char *const nan_like[] = {"", "abc", "nan", "5 ns", " 5", "5 ", "0x10", "1e", "--1"};
        unsigned i;
        for (i = 0; i < sizeof nan_like / sizeof nan_like[0]; i++) {
            if (up_num_parse(nan_like[i], &UP_RANGE_NS, &v, why, sizeof why))
                t_fail(__FILE__, __LINE__, "'%s' accepted", nan_like[i]);
            else if (strcmp(why, "not a number (must be between 0 and 1e9 ns)"))
                t_fail(__FILE__, __LINE__, "'%s': %s", nan_like[i], why);
        }
    }
    CHECK(up_range_check(&ratio, 1, why, sizeof why));
    CHECK(!up_range_check(&ratio, NAN, why, sizeof why));
    up_num_text(rt, sizeof rt, 1e-6);
    CHECK(!strcmp(rt, "1e-6"));
    up_num_text(rt, sizeof rt, 1.5e10);
    CHECK(!strcmp(rt, "1.5e10"));
}

TEST(text_ticks_saturate)
{
    CHECK_EQ(up_ticks_round(-5), 0);
    CHECK_EQ(up_ticks_round(NAN), 0);
    CHECK_EQ(up_ticks_round(0.49), 0);
    CHECK_EQ(up_ticks_round(2.5), 3);
    CHECK_EQ(up_ticks_round(1e18), 1000000000000000000ull);
    CHECK_EQ(up_ticks_round(4611686018427387904.0), UP_TICKS_MAX);
    CHECK_EQ(up_ticks_round(1e300), UP_TICKS_MAX);
    CHECK_EQ(up_ticks_round(INFINITY), UP_TICKS_MAX);
    CHECK_EQ(UP_TICKS_MAX, 4611686018427387904ull);
}

TEST(text_file_read_takes_regular_files_only)
{
    char dir[4096], path[4200], *text = NULL;
    size_t len = 0;
    up_err err = {0};
    FILE *f;
    snprintf(dir, sizeof dir, "%s", t_dir("d"));
    CHECK(mkdir(dir, 0700) == 0);
    /* a directory, a device, a FIFO: refused at once */
    CHECK_EQ(up_text_file_read(dir, "machine file", 100, &text, &len, &err), UP_EIO);
    CHECK(strstr(err.msg, "it is a directory, not a file") != NULL);
    CHECK_EQ(up_text_file_read("/dev/zero", "machine file", 100, &text, &len, &err), UP_EIO);
    CHECK(!strcmp(err.msg, "cannot read the machine file '/dev/zero': it is a character device, not "
                           "a regular file"));
    snprintf(path, sizeof path, "%s/fifo", dir);
    CHECK(mkfifo(path, 0600) == 0);
    CHECK_EQ(up_text_file_read(path, "machine file", 100, &text, &len, &err), UP_EIO);
    CHECK(strstr(err.msg, "it is a FIFO (named pipe), not a regular file") != NULL);
    CHECK(text == NULL);
    /* exactly `max` bytes are read; one more is refused */
    snprintf(path, sizeof path, "%s/f.ini", dir);
    CHECK((f = fopen(path, "w")) != NULL);
    if (!f)
        return;
    fputs("0123456789\nabcdefghi", f); /* 20 bytes */
    fclose(f);
    CHECK_EQ(up_text_file_read(path, "machine file", 20, &text, &len, &err), UP_OK);
    CHECK_EQ(len, 20);
    CHECK(text && !strcmp(text, "0123456789\nabcdefghi"));
    up_free(text);
    CHECK_EQ(up_text_file_read(path, "machine file", 19, &text, &len, &err), UP_EIO);
    CHECK(strstr(err.msg, "larger than 19 bytes, the limit for a machine file") != NULL);
    CHECK_EQ(up_text_file_read(path, "machine file", 2048, &text, NULL, &err), UP_OK);
    up_free(text);
}

TEST(text_lines_for_inih)
{
    char buf[8];
    up_lines l;
    /* one line per call; blanks before a line dropped; CR LF and a last
     * line without newline; a line longer than the buffer comes empty */
    up_lines_init(&l, "ab\r\n  cd\n\n1234567\n12345678\r\nxyz", true);
    CHECK(up_lines_read(buf, sizeof buf, &l) && !strcmp(buf, "ab") && l.line == 1);
    CHECK(up_lines_read(buf, sizeof buf, &l) && !strcmp(buf, "cd") && l.line == 2);
    CHECK(up_lines_read(buf, sizeof buf, &l) && !strcmp(buf, "") && l.line == 3);
    CHECK(up_lines_read(buf, sizeof buf, &l) && !strcmp(buf, "1234567") && l.too_long == 0);
    CHECK(up_lines_read(buf, sizeof buf, &l) && !strcmp(buf, "") && l.line == 5);
    CHECK_EQ(l.too_long, 5);
    CHECK_EQ(l.limit, 7);
    CHECK(up_lines_read(buf, sizeof buf, &l) && !strcmp(buf, "xyz") && l.line == 6);
    CHECK(up_lines_read(buf, sizeof buf, &l) == NULL);
    CHECK_EQ(l.too_long, 5); /* the first one */
    /* 7 characters and a CR fit a buffer of 8; indentation kept if asked */
    up_lines_init(&l, "1234567\r\n  x", false);
    CHECK(up_lines_read(buf, sizeof buf, &l) && !strcmp(buf, "1234567") && !l.too_long);
    CHECK(up_lines_read(buf, sizeof buf, &l) && !strcmp(buf, "  x"));
    up_lines_init(&l, "", true);
    CHECK(up_lines_read(buf, sizeof buf, &l) == NULL);
}
