/*
 * test_util.c - the hash map against a naive reference, calibration files,
 * the copy-time table and allocation failures (output sets: test_output.c).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "tracegen.h"
#include "tutil.h"

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
     * one drops it, and so does an O given for all kinds */
    up_comp_params_init(&p);
    CHECK_EQ(up_calibration_parse("[overhead]\nall = 100\n[overhead_by_location]\n0 = 5\n"
                                  "4294967301 = 2.5\n0 = 6\n", "calib", &p, &err), UP_OK);
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
        {"[overhead]\nenter = -5\n", "not a non-negative number"},
        {"[overhead]\nenterr = 5\n", "unknown key 'enterr'"},
        {"[copy]\nbig = 5\n", "unknown key 'big'"},
        {"[weird]\nx = 1\n", "unknown section"},
        {"[overhead]\nthis line is not ini\n", "not an INI line"},
        {"[copy]\n64 = 1\n64 = 2\n", "names size 64 twice"},
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
            st = up_comp_new(&p, up_trace_defs(t), &m, &err);
        if (st == UP_OK)
            st = up_replay_run(t, NULL, up_comp_ops(), m, &res, &err);
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
