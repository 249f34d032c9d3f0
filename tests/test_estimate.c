/*
 * test_estimate.c - the time-based models of Malony and Reed (Section 3,
 * `unperturb estimate`) on traces written by the tests, every expected
 * value worked out by hand in the comments, and on the bundled real traces
 * against the replay's window.  Clock: 1 tick = 1 ns.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "tutil.h"
#include "analysis/estimate.h"
#include "tracegen/tracegen.h"

#define NS 1000000000ull

static up_status est_run(const char *in, const up_comp_params *p, up_estimate *e)
{
    up_err err = {0};
    up_trace *t = NULL;
    up_status st = up_trace_open(in, &t, &err);
    if (st == UP_OK)
        st = up_estimate_run(t, p, e, &err);
    if (st != UP_OK)
        fprintf(stderr, "  estimate(%s): %s\n", in, err.msg);
    up_trace_close(t);
    return st;
}

/* The replay of `compensate --mode lower` without output. */
static up_status replay_run(const char *in, const up_comp_params *p, up_replay_result *res)
{
    up_err err = {0};
    up_trace *t = NULL;
    up_comp *m = NULL;
    up_comp_params q = *p;
    up_status st;
    q.mode = UP_MODE_LOWER;
    memset(res, 0, sizeof *res);
    if ((st = up_trace_open(in, &t, &err)) == UP_OK &&
        (st = up_comp_new(&q, t, &m, &err)) == UP_OK)
        st = up_replay_run(t, NULL, up_comp_ops(), m, NULL, res, &err);
    if (st != UP_OK)
        fprintf(stderr, "  replay(%s): %s\n", in, err.msg);
    up_comp_free(m);
    up_trace_close(t);
    return st;
}

#define CHECK_NS(x, want_ns) CHECK_NEAR((x) * 1e9, (double)(want_ns), 1e-6)

/* ---- two locations, one constant alpha: the four models differ ------------ */

/*
 * Location 0 ends early with few records, location 1 ends last with many.
 *   loc 0: Enter(MPI_Init) 0, Enter(work) 100, Leave(work) 110,
 *          Leave(MPI_Init) 120, Enter(work) 300, Leave(work) 900,
 *          Enter(MPI_Finalize) 950, Leave(MPI_Finalize) 1000
 *   loc 1: Enter(MPI_Init) 0, Leave(MPI_Init) 100,
 *          14 x (Enter(work) 200+50j, Leave(work) 220+50j), j = 0..13
 *          (the last Leave at 870), Enter(MPI_Finalize) 1000,
 *          Leave(MPI_Finalize) 1010
 * Window: the earliest end of MPI_Init, 100 (loc 1), to the latest start
 * of MPI_Finalize, 1000 (loc 1): T_m = 900.  Two ties test "records before
 * t": loc 0's Enter(work) at 100 is read before loc 1's Leave(MPI_Init) at
 * 100 (same time, lower location first) and lies in the window; loc 0's
 * Leave(MPI_Finalize) at 1000 is read before the window's end at 1000 and
 * lies outside.
 *   tau^0 = [100, 950) on loc 0: Enter(work) 100, Leave(work) 110,
 *           Leave(MPI_Init) 120, Enter(work) 300, Leave(work) 900: N_0 = 5,
 *           T_m(P_0) = 950 - 100 = 850
 *   tau^1 = [100, 1000) on loc 1: Leave(MPI_Init) + 28 work records:
 *           N_1 = 29, T_m(P_1) = 900
 *   window [100, 1000), all locations: 5 + Enter(MPI_Finalize) 950 of
 *           loc 0 + 29 = N = 35
 * alpha = 10 ns:
 *   3.1.1  DP = alpha N = 350; T_a = 900 - 350 = 550
 *   3.1.2  T_m(P_i) - alpha N_i: loc 0 850 - 50 = 800, loc 1 900 - 290 =
 *          610: the critical path is loc 0, N_max = 5; DP = DP^s + alpha
 *          N_max = 0 + 50; T_a = T_m - 50 = 850 (the paper subtracts the
 *          critical thread's DP from the whole T_m, although loc 0 ended
 *          50 before the window did)
 *   3.2.2  each thread from the basis (the window start): t_a(end_i) =
 *          T_m(P_i) - alpha c^i: loc 0 800, loc 1 610; the join takes the
 *          greatest: T_a = 800, critical loc 0
 *   3.2.1  eq. (2) over the whole trace in time order from the start:
 *          loc 0's end 950 has i-1 = 34 records before it in [100, 950)
 *          (5 of loc 0 and 29 of loc 1, whose last is at 870): 850 - 340 =
 *          510; loc 1's end 1000 has 35: 900 - 350 = 550.  T_a = 550,
 *          critical loc 1, 35 records.
 * The replay (lower mode, eq. (1) only: nothing waits) takes 10 from every
 * gap from each location's first record: start_a = min(loc 1's
 * Leave(MPI_Init) 100 - 10, loc 0's 120 - 30) = 90, end_a = max(loc 0's
 * Enter(MPI_Finalize) 950 - 60, loc 1's 1000 - 300) = 890: T_a = 800, the
 * 3.2.2 value (both locations had one record before the window, so the
 * start moves by the same 10 as in the model's basis).
 */
static void write_two(const char *dir)
{
    tg *g = tg_open(dir, 2, NS, 0);
    unsigned j;
    tg_enter(g, 0, 0, TG_INIT);
    tg_enter(g, 0, 100, TG_WORK);
    tg_leave(g, 0, 110, TG_WORK);
    tg_leave(g, 0, 120, TG_INIT);
    tg_enter(g, 0, 300, TG_WORK);
    tg_leave(g, 0, 900, TG_WORK);
    tg_enter(g, 0, 950, TG_FINALIZE);
    tg_leave(g, 0, 1000, TG_FINALIZE);
    tg_enter(g, 1, 0, TG_INIT);
    tg_leave(g, 1, 100, TG_INIT);
    for (j = 0; j < 14; j++) {
        tg_enter(g, 1, 200 + 50 * j, TG_WORK);
        tg_leave(g, 1, 220 + 50 * j, TG_WORK);
    }
    tg_enter(g, 1, 1000, TG_FINALIZE);
    tg_leave(g, 1, 1010, TG_FINALIZE);
    CHECK(tg_close(g) == 0);
}

TEST(estimate_two_locations_constant_alpha)
{
    char in[4096];
    up_comp_params p = t_params(10, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_estimate e;
    up_replay_result res;
    const up_estimate_value *m;

    snprintf(in, sizeof in, "%s", t_dir("in"));
    write_two(in);
    if (est_run(in, &p, &e) != UP_OK) {
        CHECK(!"estimate failed");
        return;
    }
    CHECK(e.window_marked);
    CHECK_EQ(e.start_m, 100);
    CHECK_EQ(e.end_m, 1000);
    CHECK_NS(e.measured_s, 900);
    CHECK_EQ(e.records, 35);
    CHECK_EQ(e.records_total, 8 + 32);
    CHECK_NEAR(e.alpha_ns, 10, 1e-9);
    CHECK_EQ(e.nlocs, 2);
    CHECK_EQ(e.locs[0].records, 5);
    CHECK_EQ(e.locs[1].records, 29);
    CHECK_EQ(e.locs[0].end_m, 950);
    CHECK_EQ(e.locs[1].end_m, 1000);
    CHECK_NS(e.locs[0].measured_s, 850);
    CHECK_NS(e.locs[1].measured_s, 900);
    CHECK_NS(e.locs[0].dp_s, 50);
    CHECK_NS(e.locs[1].dp_s, 290);
    CHECK_NS(e.locs[0].conc_event_end_s, 800);
    CHECK_NS(e.locs[1].conc_event_end_s, 610);
    CHECK_NS(e.locs[0].seq_event_end_s, 510);
    CHECK_NS(e.locs[1].seq_event_end_s, 550);

    m = &e.model[UP_ESTIMATE_SEQ_TOTAL];
    CHECK_NS(m->approximated_s, 550);
    CHECK_NS(m->dp_s, 350);
    CHECK_EQ(m->records, 35);
    CHECK(m->critical == -1);
    m = &e.model[UP_ESTIMATE_CONC_TOTAL];
    CHECK_NS(m->approximated_s, 850);
    CHECK_NS(m->dp_s, 50);
    CHECK_NS(m->dp_seq_s, 0);
    CHECK_NS(m->dp_conc_s, 50);
    CHECK_EQ(m->records, 5);
    CHECK(m->critical == 0);
    m = &e.model[UP_ESTIMATE_SEQ_EVENT];
    CHECK_NS(m->approximated_s, 550);
    CHECK_EQ(m->records, 35);
    CHECK(m->critical == 1);
    m = &e.model[UP_ESTIMATE_CONC_EVENT];
    CHECK_NS(m->approximated_s, 800);
    CHECK_EQ(m->records, 5);
    CHECK(m->critical == 0);

    /* against the replay: its window is the same; 3.2.2 agrees with it */
    if (replay_run(in, &p, &res) == UP_OK) {
        up_estimate_report r = {in, "test", &p, &e, &res};
        CHECK_EQ(res.start_m, e.start_m);
        CHECK_EQ(res.end_m, e.end_m);
        CHECK_EQ(res.start_a, 90);
        CHECK_EQ(res.end_a, 890);
        CHECK_NS(up_estimate_replay_s(&r), 800);
        CHECK_NEAR(up_estimate_error(&r, UP_ESTIMATE_CONC_EVENT), 0, 1e-9);
        CHECK_NEAR(up_estimate_error(&r, UP_ESTIMATE_SEQ_TOTAL), 250.0 / 800, 1e-9);
        CHECK_NEAR(up_estimate_error(&r, UP_ESTIMATE_CONC_TOTAL), 50.0 / 800, 1e-9);
        up_replay_result_free(&res);
    } else {
        CHECK(!"replay failed");
    }
    {   /* without a replay there is no error */
        up_estimate_report r = {in, "test", &p, &e, NULL};
        CHECK(isnan(up_estimate_error(&r, UP_ESTIMATE_SEQ_TOTAL)));
    }
    up_estimate_free(&e);
}

/* ---- per-kind O, flushes, overhead regions; no window marks --------------- */

/*
 * One location, no MPI_Init/MPI_Finalize: the window is the first to the
 * last record, [0, 1000), T_m = 1000.  Overheads (ns): enter 10, leave 6,
 * fn_enter 4, fn_leave 5 (main and work are USER regions), metric 7.
 *   Enter(main) 0                 fn_enter   4
 *   Metric 50                     metric     7
 *   Enter(work) 100               fn_enter   4
 *   BufferFlush 150, stop 400     measured 250
 *   Leave(work) 500               fn_leave   5
 *   Enter(TRACE BUFFER FLUSH) 600 measured, the region's span 600..700 = 100
 *   Enter(work) 650               inside the region: in the span
 *   Leave(work) 660               inside the region: in the span
 *   Leave(TRACE BUFFER FLUSH) 700 leave      6
 *   Enter(MPI_Barrier) 800        enter     10
 *   Leave(MPI_Barrier) 900        leave      6
 *   Leave(main) 1000              the end: its overhead lies after the window
 * N = 11 records in [0, 1000): 7 with a calibrated O summing to 42 ns
 * (alpha = 42/7 = 6 ns), 4 measured (BufferFlush, the region's Enter and
 * the two records inside it) costing 250 + 100 = 350 ns.
 * DP = 42 + 350 = 392 for every model (one location: the sequential and
 * concurrent models coincide); T_a = 1000 - 392 = 608.
 * The replay (eq. 1) gives the same: 0, 46, 89, 135, 135 + 350 - 250 = 235,
 * 330, 330, 330, 330, 424, 514, 608.
 */
TEST(estimate_per_kind_overheads_and_flushes)
{
    char in[4096];
    tg *g;
    up_comp_params p;
    up_estimate e;
    up_replay_result res;
    unsigned k;

    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 1, NS, 0);
    tg_enter(g, 0, 0, TG_MAIN);
    tg_metric(g, 0, 50, 1);
    tg_enter(g, 0, 100, TG_WORK);
    tg_flush(g, 0, 150, 400);
    tg_leave(g, 0, 500, TG_WORK);
    tg_enter(g, 0, 600, TG_FLUSH_REGION);
    tg_enter(g, 0, 650, TG_WORK);
    tg_leave(g, 0, 660, TG_WORK);
    tg_leave(g, 0, 700, TG_FLUSH_REGION);
    tg_enter(g, 0, 800, TG_BARRIER);
    tg_leave(g, 0, 900, TG_BARRIER);
    tg_leave(g, 0, 1000, TG_MAIN);
    CHECK(tg_close(g) == 0);

    p = t_params(0, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    p.overhead_ns[UP_RK_ENTER] = 10;
    p.overhead_ns[UP_RK_LEAVE] = 6;
    p.overhead_ns[UP_RK_FN_ENTER] = 4;
    p.overhead_ns[UP_RK_FN_LEAVE] = 5;
    p.overhead_ns[UP_RK_METRIC] = 7;
    if (est_run(in, &p, &e) != UP_OK) {
        CHECK(!"estimate failed");
        return;
    }
    CHECK(!e.window_marked);
    CHECK_EQ(e.start_m, 0);
    CHECK_EQ(e.end_m, 1000);
    CHECK_EQ(e.records, 11);
    CHECK_EQ(e.records_total, 12);
    CHECK_EQ(e.window.n_measured, 4);
    CHECK_EQ(e.window.measured_ticks, 350);
    CHECK_EQ(e.window.n[UP_RK_FN_ENTER], 2);
    CHECK_EQ(e.window.n[UP_RK_FN_LEAVE], 1);
    CHECK_EQ(e.window.n[UP_RK_METRIC], 1);
    CHECK_EQ(e.window.n[UP_RK_ENTER], 1);
    CHECK_EQ(e.window.n[UP_RK_LEAVE], 2);
    CHECK_NEAR(e.alpha_ns, 6, 1e-9);
    CHECK_NS(e.measured_ovh_s, 350);
    for (k = 0; k < UP_ESTIMATE_COUNT; k++) {
        CHECK_NS(e.model[k].approximated_s, 608);
        CHECK_NS(e.model[k].dp_s, 392);
    }
    if (replay_run(in, &p, &res) == UP_OK) {
        up_estimate_report r = {in, "test", &p, &e, &res};
        CHECK_EQ(res.end_a - res.start_a, 608);
        for (k = 0; k < UP_ESTIMATE_COUNT; k++)
            CHECK_NEAR(up_estimate_error(&r, k), 0, 1e-12);
        up_replay_result_free(&res);
    } else {
        CHECK(!"replay failed");
    }
    up_estimate_free(&e);
}

/* ---- the bundled real traces: the replay's window, N by the definition ---- */

/* One trace of tests/data: the window and the models against the replay;
 * *ctx counts the traces estimated. */
static void estimate_matches_replay(const char *name, const char *in, void *ctx)
{
    up_comp_params p = t_params(100, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_estimate e;
    up_replay_result res;
    size_t i;
    if (est_run(in, &p, &e) != UP_OK) {
        t_fail(__FILE__, __LINE__, "estimate failed on %s", name);
        return;
    }
    ++*(int *)ctx;
    if (replay_run(in, &p, &res) != UP_OK) {
        t_fail(__FILE__, __LINE__, "replay failed on %s", name);
        up_estimate_free(&e);
        return;
    }
    if (res.start_m != e.start_m || res.end_m != e.end_m || res.window_marked != e.window_marked)
        t_fail(__FILE__, __LINE__, "%s: window [%llu, %llu] != replay's [%llu, %llu]", name,
               (unsigned long long)e.start_m, (unsigned long long)e.end_m,
               (unsigned long long)res.start_m, (unsigned long long)res.end_m);
    CHECK_EQ(e.records_total, res.events);
    for (i = 0; i < e.nlocs && i < res.nlocs; i++)
        if (e.locs[i].started && e.locs[i].end_m != res.locs[i].end_m)
            t_fail(__FILE__, __LINE__, "%s: location %zu ends at %llu, replay %llu", name, i,
                   (unsigned long long)e.locs[i].end_m, (unsigned long long)res.locs[i].end_m);
    /* 3.1.1 with a constant alpha: T_m - alpha N - measured flushes */
    CHECK_NEAR(e.model[UP_ESTIMATE_SEQ_TOTAL].approximated_s,
               e.measured_s - 100e-9 * (double)(e.records - e.window.n_measured) - e.measured_ovh_s,
               1e-12);
    /* the concurrent models never remove more than the sequential one */
    CHECK(e.model[UP_ESTIMATE_CONC_TOTAL].dp_s <= e.model[UP_ESTIMATE_SEQ_TOTAL].dp_s + 1e-15);
    CHECK(e.model[UP_ESTIMATE_CONC_EVENT].approximated_s >= e.model[UP_ESTIMATE_SEQ_EVENT].approximated_s - 1e-15);
    up_replay_result_free(&res);
    up_estimate_free(&e);
}

TEST(estimate_real_traces_match_the_replay_window)
{
    int seen = 0;
    CHECK(t_each_data_trace(estimate_matches_replay, &seen) >= 9);
    CHECK(seen >= 9);
}

TEST(estimate_zero_overhead_keeps_the_measured_time)
{
    char in[4096];
    up_comp_params p = t_params(0, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_estimate e;
    unsigned k;
    snprintf(in, sizeof in, "%s", t_src("tests/data/casita-10_scorep_mpi_tags"));
    if (est_run(in, &p, &e) != UP_OK) {
        CHECK(!"estimate failed");
        return;
    }
    for (k = 0; k < UP_ESTIMATE_COUNT; k++)
        CHECK_NEAR(e.model[k].approximated_s, e.measured_s - e.measured_ovh_s, 1e-12);
    up_estimate_free(&e);
}

TEST(estimate_allocation_failures_are_reported)
{
    char in[4096];
    long n;
    int failures = 0, successes = 0;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    write_two(in);
    for (n = 0; n < 300; n += 2) {
        up_comp_params p = t_params(10, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
        up_estimate e;
        up_err err = {0};
        up_trace *t = NULL;
        up_status st;
        up_alloc_set_fail_after(n);
        st = up_trace_open(in, &t, &err);
        if (st == UP_OK)
            st = up_estimate_run(t, &p, &e, &err);
        up_alloc_set_fail_after(-1);
        if (st == UP_OK) {
            successes++;
            CHECK_EQ(e.records, 35);
            up_estimate_free(&e);
        } else {
            failures++;
            CHECK(st == UP_ENOMEM || st == UP_EFORMAT || st == UP_EOTF2);
            CHECK(err.msg[0] != 0);
        }
        up_trace_close(t);
    }
    CHECK(failures > 0);
    CHECK(successes > 0);
}
