/*
 * test_simulate.c - `unperturb simulate`'s model (src/model/simulate.c) on
 * traces written here with OTF2's writer (tracegen.c), against predictions
 * worked out by hand in the comments: ping-pong, a rendezvous send,
 * cpu_ratio, compute from the CPU-time metric, a binomial broadcast on 8
 * ranks, the interrupt and polling policies; and a consistency check: a
 * discrete-event generator of its own (sharing no code with the simulator)
 * runs a ring/allreduce/barrier program on a machine and writes the trace
 * that machine would give; simulating it with the same machine must give
 * back every timestamp.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test.h"
#include "tutil.h"
#include "model/simulate.h"
#include "run/simrun.h"
#include "tracegen/tracegen.h"

#define NS 1000000000u

/* Simulates `dir` on *m, with the overheads of the calibration file `calib`
 * (NULL: the archive's), into `dir`/sim and loads the result. */
static int simulate_calib(const char *dir, const up_machine *m, const char *calib, tr_trace *out,
                          up_sim_summary *sum)
{
    char o[4096];
    up_err err = {0};
    up_simrun_opts opts;
    up_sim_summary s;
    snprintf(o, sizeof o, "%s/sim", dir);
    memset(&opts, 0, sizeof opts);
    opts.input = dir;
    opts.machine = m;
    opts.calibration = calib;
    opts.out_dir = o;
    up_rmtree(o);
    mkdir(o, 0777);
    opts.quiet = true;
    if (up_simrun_one(&opts, &s, &err) != UP_OK) {
        t_fail(__FILE__, __LINE__, "simulate %s: %s", dir, err.msg);
        return -1;
    }
    if (sum)
        *sum = s;
    else
        up_sim_summary_free(&s);
    if (tr_load(o, out) != 0) {
        t_fail(__FILE__, __LINE__, "cannot load %s", o);
        return -1;
    }
    return 0;
}

static int simulate(const char *dir, const up_machine *m, tr_trace *out, up_sim_summary *sum)
{
    return simulate_calib(dir, m, NULL, out, sum);
}

/* Two ranks, no MPI: Enter(main) 0, Enter(work) 100, Leave(work) 1100 (rank
 * 1: 2100), Leave(main) 1200 (2200). */
static void write_two_workers(const char *dir)
{
    tg *g = tg_open(dir, 2, NS, 0);
    unsigned r;
    for (r = 0; r < 2; r++) {
        tg_enter(g, r, 0, TG_MAIN);
        tg_enter(g, r, 100, TG_WORK);
        tg_leave(g, r, 1100 + 1000 * r, TG_WORK);
        tg_leave(g, r, 1200 + 1000 * r, TG_MAIN);
    }
    CHECK(tg_close(g) == 0);
}

#define EV(tr, rank, k) t_ev(&(tr), (uint64_t)(rank), (k))

/* rank 0: compute 1000, MPI_Send 500 B to 1, MPI_Recv 500 B from 1, 1000.
 * rank 1: MPI_Recv from 0 at 100, compute 300, MPI_Send 500 B to 0, 500.
 *   r0 send: Enter 1000, MpiSend 1000, Leave 1000 + o_s = 1100;
 *            arrives at 1100 + L 1000 + 500 B * 1 ns = 2600
 *   r1 recv: Enter 100, MpiRecv max(100, 2600) + o_r = 2800, Leave 2800
 *   r1 send: Enter 2800 + 300 = 3100, MpiSend 3100, Leave 3200;
 *            arrives 3200 + 1000 + 500 = 4700
 *   r0 recv: Enter 1100 + 100 = 1200, MpiRecv max(1200, 4700) + 200 = 4900
 *   r0 Leave(main) 4900 + 1000 = 5900; r1 Leave(main) 3200 + 500 = 3700 */
TEST(sim_ping_pong)
{
    const char *dir = t_dir("sim_pp");
    tg *g = tg_open(dir, 2, NS, 0);
    up_machine m = t_hand_machine();
    tr_trace o;
    up_sim_summary s;
    tg_enter(g, 0, 0, TG_MAIN);
    tg_mpi_send(g, 0, 1000, 1010, 1500, 1, 0, 500);
    tg_mpi_recv(g, 0, 1600, 5000, 5010, 1, 0, 500);
    tg_leave(g, 0, 6010, TG_MAIN);
    tg_enter(g, 1, 0, TG_MAIN);
    tg_mpi_recv(g, 1, 100, 3000, 3010, 0, 0, 500);
    tg_mpi_send(g, 1, 3310, 3320, 3400, 0, 0, 500);
    tg_leave(g, 1, 3900, TG_MAIN);
    CHECK(tg_close(g) == 0);
    if (simulate(dir, &m, &o, &s) != 0)
        return;
    CHECK_EQ(EV(o, 0, 1), 1000);
    CHECK_EQ(EV(o, 0, 2), 1000);
    CHECK_EQ(EV(o, 0, 3), 1100);
    CHECK_EQ(EV(o, 1, 1), 100);
    CHECK_EQ(EV(o, 1, 2), 2800);
    CHECK_EQ(EV(o, 1, 3), 2800);
    CHECK_EQ(EV(o, 1, 4), 3100);
    CHECK_EQ(EV(o, 1, 5), 3100);
    CHECK_EQ(EV(o, 1, 6), 3200);
    CHECK_EQ(EV(o, 1, 7), 3700);
    CHECK_EQ(EV(o, 0, 4), 1200);
    CHECK_EQ(EV(o, 0, 5), 4900);
    CHECK_EQ(EV(o, 0, 6), 4900);
    CHECK_EQ(EV(o, 0, 7), 5900);
    CHECK_NEAR(s.predicted_s, 5900e-9, 1e-15);
    CHECK_NEAR(s.measured_s, 6010e-9, 1e-15);
    CHECK_EQ(s.nranks, 2);
    up_sim_summary_free(&s);
    tr_free(&o);
}

/* 10000 B > eager limit 4096: rendezvous.
 *   r0 MpiSend at 1000; its request reaches r1 at 1000 + o_s 100 + L 1000 = 2100;
 *   r1 posts (Enter MPI_Recv) at 3000, answers: max(2100, 3000) = 3000; the
 *   answer is back at 3000 + L = 4000 and the data leaves then:
 *   r0's Leave = 4000 + 10000 B * 1 = 14000, Leave(main) 14100;
 *   r1's data arrives 4000 + 1000 + 10000 = 15000, MpiRecv 15200, main 15300. */
TEST(sim_rendezvous)
{
    const char *dir = t_dir("sim_rdv");
    tg *g = tg_open(dir, 2, NS, 0);
    up_machine m = t_hand_machine();
    tr_trace o;
    tg_enter(g, 0, 0, TG_MAIN);
    tg_mpi_send(g, 0, 1000, 1010, 20000, 1, 0, 10000);
    tg_leave(g, 0, 20100, TG_MAIN);
    tg_enter(g, 1, 0, TG_MAIN);
    tg_mpi_recv(g, 1, 3000, 21000, 21010, 0, 0, 10000);
    tg_leave(g, 1, 21110, TG_MAIN);
    CHECK(tg_close(g) == 0);
    if (simulate(dir, &m, &o, NULL) != 0)
        return;
    CHECK_EQ(EV(o, 0, 2), 1000);
    CHECK_EQ(EV(o, 0, 3), 14000);
    CHECK_EQ(EV(o, 0, 4), 14100);
    CHECK_EQ(EV(o, 1, 1), 3000);
    CHECK_EQ(EV(o, 1, 2), 15200);
    CHECK_EQ(EV(o, 1, 4), 15300);
    tr_free(&o);
}

/* Rendezvous progress (docs/machine.md): rank 0's MPI_Send of 10000 B
 * (Enter 1000, MpiSend 1010, Leave 20000); rank 1 posts an MPI_Irecv (100,
 * request 110, 120), works outside MPI (130-4990) and enters MPI_Wait at
 * 5000 (its MpiIrecv 21000).  Rank 1: 0; Irecv 100, 100, 100 (the call's
 * rest takes no time); work 110, 4970; Enter(Wait) 4980.  Rank 0: MpiSend
 * 1000, its request reaches rank 1 at 1000 + o_s 100 + L 1000 = 2100 = x.
 *   mpi: rank 1 was outside MPI from t0 = max(send 1010, post 110) until
 *   its Wait (entered at 4980): the answer leaves then, is back at 5980;
 *   Leave(Send) 5980 + 10000 B = 15980, Leave(main) 16080; the data
 *   arrives at 5980 + 1000 + 10000 = 16980, MpiIrecv + o_r = 17180, main
 *   17280.
 *   interrupt (300 ns): answered at x + 300 = 2400, back 3400: Leave 13400;
 *   the data arrives 14400, MpiIrecv 14600.
 *   polling (a poll every 1000 ns, free): at the next poll, x + 1000 = 3100
 *   at most: back 4100, Leave 14100; MpiIrecv 4100 + 11000 + 200 = 15300.
 * Rank 1 already inside MPI_Wait at the send (entered at 500, before
 * 1010): answered at x under mpi, back 3100, Leave 13100, MpiIrecv 14300. */
static void progress_sim(bool in_mpi, up_progress_policy pol, uint64_t leave0, uint64_t recv1,
                         uint64_t waited)
{
    const char *dir = t_dir("sim_progress");
    tg *g = tg_open(dir, 2, NS, 0);
    up_machine m = t_hand_machine();
    OTF2_EvtWriter *w;
    up_sim_summary s;
    tr_trace o;
    m.progress = pol;
    m.interrupt_ns = 300;
    m.poll_chunk_ns = 1000;
    m.poll_ns = 0;
    tg_enter(g, 0, 0, TG_MAIN);
    tg_mpi_send(g, 0, 1000, 1010, 20000, 1, 0, 10000);
    tg_leave(g, 0, 20100, TG_MAIN);
    w = tg_writer(g, 1);
    tg_enter(g, 1, 0, TG_MAIN);
    tg_enter(g, 1, 100, TG_IRECV);
    CHECK(OTF2_EvtWriter_MpiIrecvRequest(w, NULL, 110, 1) == OTF2_SUCCESS);
    tg_leave(g, 1, 120, TG_IRECV);
    if (in_mpi) {
        tg_enter(g, 1, 500, TG_WAIT);
    } else {
        tg_enter(g, 1, 130, TG_WORK);
        tg_leave(g, 1, 4990, TG_WORK);
        tg_enter(g, 1, 5000, TG_WAIT);
    }
    CHECK(OTF2_EvtWriter_MpiIrecv(w, NULL, 21000, 0, TG_COMM_WORLD, 0, 10000, 1) == OTF2_SUCCESS);
    tg_leave(g, 1, 21010, TG_WAIT);
    tg_leave(g, 1, 21110, TG_MAIN);
    CHECK(tg_close(g) == 0);
    if (simulate(dir, &m, &o, &s) != 0)
        return;
    CHECK_EQ(EV(o, 0, 2), 1000);
    CHECK_EQ(EV(o, 0, 3), leave0);
    CHECK_EQ(EV(o, 0, 4), leave0 + 100);
    if (!in_mpi) {
        CHECK_EQ(EV(o, 1, 2), 100);
        CHECK_EQ(EV(o, 1, 5), 4970);
        CHECK_EQ(EV(o, 1, 6), 4980);
    }
    CHECK_EQ(EV(o, 1, in_mpi ? 5 : 7), recv1);
    CHECK_EQ(s.res.model_repairs[UP_MR_progress_waited], waited);
    CHECK_EQ(s.res.repairs[UP_REPAIR_progress_unknown], 0);
    up_sim_summary_free(&s);
    tr_free(&o);
}

TEST(sim_rendezvous_waits_for_the_receivers_entry_into_mpi)
{
    progress_sim(false, UP_PROGRESS_MPI, 15980, 17180, 1);
    progress_sim(false, UP_PROGRESS_INTERRUPT, 13400, 14600, 0);
    progress_sim(false, UP_PROGRESS_POLLING, 14100, 15300, 1);
    progress_sim(true, UP_PROGRESS_MPI, 13100, 14300, 0);
}

/* cpu_ratio = 2: a twice as fast processor halves every compute interval:
 * 0, 100, 1100, 1200 -> 0, 50, 550, 600. */
TEST(sim_cpu_ratio_halves_compute)
{
    const char *dir = t_dir("sim_ratio");
    up_machine m = t_hand_machine();
    tr_trace o;
    write_two_workers(dir);
    m.cpu_ratio = 2;
    if (simulate(dir, &m, &o, NULL) != 0)
        return;
    CHECK_EQ(EV(o, 0, 1), 50);
    CHECK_EQ(EV(o, 0, 2), 550);
    CHECK_EQ(EV(o, 0, 3), 600);
    CHECK_EQ(EV(o, 1, 2), 1050);
    CHECK_EQ(EV(o, 1, 3), 1100);
    tr_free(&o);
}

/* A slower target: the compute intervals of write_two_workers over
 * cpu_ratio, worked by hand.  Rank 1 ends last, at 2200 ticks (1 ns) on the
 * traced machine, so the predicted window is 2200 ns / cpu_ratio:
 *   0.5:   rank 1 at 0, 200, 4200, 4400              -> 4.4 us
 *   0.001: rank 0 at 0, 100000, 1100000, 1200000;
 *          rank 1 at 0, 100000, 2100000, 2200000     -> 2.2 ms
 * The time grows as cpu_ratio falls; 1e-20 (which once overflowed the tick
 * conversion and predicted a faster run) is refused by its range. */
TEST(sim_cpu_ratio_slower_target_takes_longer)
{
    static const double ratios[] = {1000, 2, 1, 0.5, 0.01, 0.001};
    const char *dir = t_dir("sim_slow");
    up_machine m = t_hand_machine();
    up_sim_summary s;
    tr_trace o;
    double prev = 0;
    unsigned i;
    write_two_workers(dir);
    m.cpu_ratio = 0.001;
    if (simulate(dir, &m, &o, &s) != 0)
        return;
    CHECK_EQ(EV(o, 0, 1), 100000);
    CHECK_EQ(EV(o, 0, 2), 1100000);
    CHECK_EQ(EV(o, 0, 3), 1200000);
    CHECK_EQ(EV(o, 1, 1), 100000);
    CHECK_EQ(EV(o, 1, 2), 2100000);
    CHECK_EQ(EV(o, 1, 3), 2200000);
    CHECK_NEAR(s.predicted_s, 2.2e-3, 1e-15);
    up_sim_summary_free(&s);
    tr_free(&o);
    for (i = 0; i < sizeof ratios / sizeof ratios[0]; i++) {
        m.cpu_ratio = ratios[i];
        if (simulate(dir, &m, &o, &s) != 0)
            return;
        /* 2200 ns / ratio, rounded per interval: 100 / 1000 = 0.1 -> 0 */
        if (ratios[i] == 1000)
            CHECK_NEAR(s.predicted_s, 2e-9, 1e-18);
        else
            CHECK_NEAR(s.predicted_s, 2200e-9 / ratios[i], 1e-15);
        CHECK(s.predicted_s > prev);
        prev = s.predicted_s;
        if (ratios[i] == 0.5) {
            CHECK_EQ(EV(o, 1, 1), 200);
            CHECK_EQ(EV(o, 1, 2), 4200);
            CHECK_EQ(EV(o, 1, 3), 4400);
        }
        up_sim_summary_free(&s);
        tr_free(&o);
    }
}

/* A machine built in code is range-checked like a file: cpu_ratio 1e-20
 * and one above 1000 are refused with the range, before the replay. */
TEST(sim_cpu_ratio_out_of_range_is_refused)
{
    static const struct {
        double ratio;
        const char *msg;
    } bad[] = {
        {1e-20, "cpu_ratio = 1e-20: must be between 0.001 and 1000"},
        {0.0009, "cpu_ratio = 0.0009: must be between 0.001 and 1000"},
        {1e6, "cpu_ratio = 1e6: must be between 0.001 and 1000"},
        {0, "cpu_ratio = 0: must be between 0.001 and 1000"},
    };
    const char *dir = t_dir("sim_badratio");
    up_machine m = t_hand_machine();
    unsigned i;
    write_two_workers(dir);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        up_simrun_opts opts;
        up_sim_summary s;
        up_err err = {0};
        up_status st;
        memset(&opts, 0, sizeof opts);
        opts.input = dir;
        opts.machine = &m;
        opts.quiet = true;
        m.cpu_ratio = bad[i].ratio;
        st = up_simrun_one(&opts, &s, &err);
        CHECK_EQ(st, UP_EUSAGE);
        if (st == UP_OK)
            up_sim_summary_free(&s);
        if (strcmp(err.msg, bad[i].msg))
            t_fail(__FILE__, __LINE__, "message '%s', wanted '%s'", err.msg, bad[i].msg);
    }
}

/* A prediction beyond what the clock can count fails, naming the cause,
 * instead of wrapping: a compute gap of 2^55 ticks (417 days at 1 ns) on a
 * target 1000 times slower is 3.6e19 ticks, past 2^64 (the old conversion
 * gave 2^63 and a shorter run). */
TEST(sim_time_beyond_the_clock_is_an_error)
{
    const char *dir = t_dir("sim_overflow");
    up_machine m = t_hand_machine();
    up_simrun_opts opts;
    up_sim_summary s;
    up_err err = {0};
    up_status st;
    tg *g = tg_open(dir, 1, NS, 0);
    tg_enter(g, 0, 0, TG_MAIN);
    tg_enter(g, 0, 100, TG_WORK);
    tg_leave(g, 0, 100 + ((uint64_t)1 << 55), TG_WORK);
    tg_leave(g, 0, 200 + ((uint64_t)1 << 55), TG_MAIN);
    CHECK(tg_close(g) == 0);
    memset(&opts, 0, sizeof opts);
    opts.input = dir;
    opts.machine = &m;
    opts.quiet = true;
    m.cpu_ratio = 0.001;
    st = up_simrun_one(&opts, &s, &err);
    CHECK_EQ(st, UP_EFORMAT);
    if (st == UP_OK)
        up_sim_summary_free(&s);
    CHECK(strstr(err.msg, "a predicted time passed 2^62 ticks, all the trace's clock "
                          "(1000000000 ticks/s) can count: cpu_ratio 0.001") != NULL);
    /* the same trace on the traced machine's speed fits */
    m.cpu_ratio = 1;
    CHECK_EQ(up_simrun_one(&opts, &s, &err), UP_OK);
    CHECK_NEAR(s.predicted_s, (200 + (double)((uint64_t)1 << 55)) * 1e-9, 1e-6);
    up_sim_summary_free(&s);
}

/* The tracer's overhead from a calibration file: O = 10 for every kind,
 * 5 ns more on location 1 ([overhead_by_location]); compute = wall gap - O.
 *   rank 0: Enter(main) 0, Enter(work) 100 - 10 = 90, Leave(work)
 *           90 + 1000 - 10 = 1080, Leave(main) 1080 + 100 - 10 = 1170
 *   rank 1 (O = 15): 0, 85, 85 + 2000 - 15 = 2070, 2070 + 100 - 15 = 2155 */
TEST(sim_overhead_by_location)
{
    const char *dir = t_dir("sim_byloc");
    char calib[4096];
    up_machine m = t_hand_machine();
    tr_trace o;
    FILE *f;
    write_two_workers(dir);
    snprintf(calib, sizeof calib, "%s/calib.ini", dir);
    CHECK((f = fopen(calib, "w")) != NULL);
    if (!f)
        return;
    fputs("[overhead]\nall = 10\n[overhead_by_location]\n1 = 5\n", f);
    fclose(f);
    if (simulate_calib(dir, &m, calib, &o, NULL) != 0)
        return;
    CHECK_EQ(EV(o, 0, 1), 90);
    CHECK_EQ(EV(o, 0, 2), 1080);
    CHECK_EQ(EV(o, 0, 3), 1170);
    CHECK_EQ(EV(o, 1, 1), 85);
    CHECK_EQ(EV(o, 1, 2), 2070);
    CHECK_EQ(EV(o, 1, 3), 2155);
    tr_free(&o);
}

/* One rank traced while sharing its core: 2000 ns of wall time between
 * MPI_Init and MPI_Finalize, of which the CPU-time metric says it ran 1000.
 *   Enter(main) 0, Metric 100 (v 0), Enter(MPI_Init) 100, Metric 200 (v 50),
 *   Leave(MPI_Init) 200, Metric 2200 (v 1050), Enter(MPI_Finalize) 2200,
 *   Metric 2300 (v 1060), Leave(MPI_Finalize) 2300, Leave(main) 2400.
 * compute = cpu: MPI_Init, a call without communication, takes the CPU time
 * between the metrics around it, 50: its inner Metric and Leave at 150.  The
 * segment from the metric read in MPI_Init (50) to the one before
 * MPI_Finalize (1050) ran 1000 ns: Metric at 1150, and the Enter right after
 * the metric read for it at 1150 too; MPI_Finalize ran 10: 1160; Leave(main)
 * 100 ns later at the previous segment's CPU share 1000 / 2000: 1210.
 * compute = wall keeps 200, 2200, 2300, 2400. */
TEST(sim_cpu_time_metric)
{
    const char *dir = t_dir("sim_cpu");
    tg *g = tg_open(dir, 1, NS, TG_CPU_METRIC);
    up_machine m = t_hand_machine();
    up_sim_summary s;
    tr_trace o;
    tg_enter(g, 0, 0, TG_MAIN);
    tg_metric(g, 0, 100, 0);
    tg_enter(g, 0, 100, TG_INIT);
    tg_metric(g, 0, 200, 50);
    tg_leave(g, 0, 200, TG_INIT);
    tg_metric(g, 0, 2200, 1050);
    tg_enter(g, 0, 2200, TG_FINALIZE);
    tg_metric(g, 0, 2300, 1060);
    tg_leave(g, 0, 2300, TG_FINALIZE);
    tg_leave(g, 0, 2400, TG_MAIN);
    CHECK(tg_close(g) == 0);
    m.compute = UP_COMPUTE_AUTO;
    if (simulate(dir, &m, &o, &s) != 0)
        return;
    CHECK(s.cpu_time);
    CHECK_EQ(EV(o, 0, 3), 150);
    CHECK_EQ(EV(o, 0, 4), 150);
    CHECK_EQ(EV(o, 0, 5), 1150);
    CHECK_EQ(EV(o, 0, 6), 1150);
    CHECK_EQ(EV(o, 0, 7), 1160);
    CHECK_EQ(EV(o, 0, 8), 1160);
    CHECK_EQ(EV(o, 0, 9), 1210);
    CHECK_NEAR(s.predicted_s, 1000e-9, 1e-15); /* MPI_Init end .. MPI_Finalize start */
    CHECK_NEAR(s.measured_s, 2000e-9, 1e-15);
    up_sim_summary_free(&s);
    tr_free(&o);
    m.compute = UP_COMPUTE_WALL;
    if (simulate(dir, &m, &o, &s) != 0)
        return;
    CHECK(!s.cpu_time);
    CHECK_EQ(EV(o, 0, 4), 200);
    CHECK_EQ(EV(o, 0, 5), 2200);
    CHECK_EQ(EV(o, 0, 9), 2400);
    up_sim_summary_free(&s);
    tr_free(&o);
}

/* MPI_Bcast of 100 B from rank 0 on 8 ranks, all entering at 1000, binomial
 * tree (rank 0 sends to 4, 2, 1; 4 to 6, 5; 2 to 3; 6 to 7).  A message
 * sent at t leaves at t + o_s and arrives L + 100 B later: t + 1200.
 *   0: sends at 1000, 1100, 1200 -> exit 1300; arrivals 4: 2200, 2: 2300, 1: 2400
 *   4: recv 2200 + o_r = 2400, sends at 2400 (6: 3600), 2500 (5: 3700) -> 2600
 *   2: recv 2500, send at 2500 (3: 3700) -> 2600;   1: recv 2600
 *   6: recv 3800, send at 3800 (7: 5000) -> 3900;   5: recv 3900;  3: recv 3900
 *   7: recv 5200.  Leave(main) 100 ns after each exit. */
TEST(sim_binomial_bcast_8_ranks)
{
    static const uint64_t ex[8] = {1300, 2600, 2600, 3900, 2600, 3900, 3900, 5200};
    const char *dir = t_dir("sim_bcast");
    tg *g = tg_open(dir, 8, NS, 0);
    up_machine m = t_hand_machine();
    tr_trace o;
    unsigned r;
    for (r = 0; r < 8; r++) {
        tg_enter(g, r, 0, TG_MAIN);
        tg_mpi_coll(g, r, TG_BCAST, 1000, 1001, 1500 + r, 1501 + r, OTF2_COLLECTIVE_OP_BCAST, 0,
                    r == 0 ? 700 : 0, r == 0 ? 0 : 100);
        tg_leave(g, r, 1601 + r, TG_MAIN);
    }
    CHECK(tg_close(g) == 0);
    m.algo[UP_CK_BCAST] = UP_ALGO_BINOMIAL;
    if (simulate(dir, &m, &o, NULL) != 0)
        return;
    for (r = 0; r < 8; r++) {
        CHECK_EQ(EV(o, r, 1), 1000);
        CHECK_EQ(EV(o, r, 2), 1000);
        CHECK_EQ(EV(o, r, 3), ex[r]);
        CHECK_EQ(EV(o, r, 4), ex[r]);
        CHECK_EQ(EV(o, r, 5), ex[r] + 100);
    }
    tr_free(&o);
}

/* A message (0 B) that arrives while its receiver computes.
 *   r0: MpiSend at 1000, arrives 1000 + o_s 100 + L 1000 = 2100.
 *   r1: Enter(main) 0, Enter(work) 500, Leave(work) 5000, MPI_Recv.
 * mpi (no interrupt): handled in MPI_Recv: 5000 + o_r = 5200.
 * interrupt (300 ns): handled at 2100 inside work, which ends
 *   5000 + o_r + 300 = 5500; MPI_Recv then finds it handled: 5500.
 * polling (a 10 ns poll every 1000 ns of compute): 500 ns then 4500 ns of
 *   compute hold 5 polls (5050), the message is handled at a poll: + o_r =
 *   5250; MPI_Recv at 5250. */
TEST(sim_message_handling_policies)
{
    const char *dir = t_dir("sim_policy");
    tg *g = tg_open(dir, 2, NS, 0);
    up_machine m = t_hand_machine();
    tr_trace o;
    tg_enter(g, 0, 0, TG_MAIN);
    tg_mpi_send(g, 0, 1000, 1010, 1020, 1, 0, 0);
    tg_leave(g, 0, 1100, TG_MAIN);
    tg_enter(g, 1, 0, TG_MAIN);
    tg_enter(g, 1, 500, TG_WORK);
    tg_leave(g, 1, 5000, TG_WORK);
    tg_mpi_recv(g, 1, 5000, 5010, 5020, 0, 0, 0);
    tg_leave(g, 1, 5020, TG_MAIN);
    CHECK(tg_close(g) == 0);
    if (simulate(dir, &m, &o, NULL) != 0)
        return;
    CHECK_EQ(EV(o, 1, 2), 5000);
    CHECK_EQ(EV(o, 1, 4), 5200);
    tr_free(&o);
    m.progress = UP_PROGRESS_INTERRUPT;
    m.interrupt_ns = 300;
    if (simulate(dir, &m, &o, NULL) != 0)
        return;
    CHECK_EQ(EV(o, 1, 2), 5500);
    CHECK_EQ(EV(o, 1, 4), 5500);
    tr_free(&o);
    m.progress = UP_PROGRESS_POLLING;
    m.poll_chunk_ns = 1000;
    m.poll_ns = 10;
    if (simulate(dir, &m, &o, NULL) != 0)
        return;
    CHECK_EQ(EV(o, 1, 2), 5250);
    CHECK_EQ(EV(o, 1, 4), 5250);
    tr_free(&o);
}

/* ---- consistency: a generator of its own -------------------------------------------
 * The program: NR ranks, ITER iterations of
 *     compute c(r, i); MPI_Send B bytes to r+1; compute d(r, i); MPI_Recv from r-1;
 *     every 3rd iteration MPI_Allreduce of 8 bytes (recursive doubling),
 *     every 4th MPI_Barrier (dissemination),
 * between MPI_Init and MPI_Finalize, run on the machine below.  Ranks 2k and
 * 2k+1 share a node.  The generator is a lock-step discrete-event simulation
 * written from the rules of docs/machine.md, not from simulate.c. */
#define NR 4
#define ITER 12
#define GB 1000

typedef struct gmach {
    uint64_t os, orr, lat, nlat, hop;
    double g, ng;
} gmach;

static uint64_t g_wire(const gmach *M, unsigned a, unsigned b, uint64_t bytes)
{
    if (a / 2 == b / 2)
        return M->nlat + (uint64_t)((double)bytes * M->ng + 0.5);
    return M->lat + M->hop + (uint64_t)((double)bytes * M->g + 0.5);
}

/* one exchange round: every rank sends to to[r] and receives from from[r] */
static void g_round(const gmach *M, uint64_t *clk, const unsigned *to, const unsigned *from,
                    uint64_t bytes)
{
    uint64_t arr[NR], c2[NR];
    unsigned r;
    for (r = 0; r < NR; r++) {
        c2[r] = clk[r] + M->os;
        arr[to[r]] = c2[r] + g_wire(M, r, to[r], bytes);
    }
    for (r = 0; r < NR; r++) {
        (void)from;
        clk[r] = (c2[r] > arr[r] ? c2[r] : arr[r]) + M->orr;
    }
}

TEST(sim_consistency_with_independent_generator)
{
    const char *dir = t_dir("sim_consist");
    const gmach M = {120, 80, 1500, 300, 50, 0.5, 0.25};
    tg *g = tg_open(dir, NR, NS, 0);
    uint64_t clk[NR], arr[NR];
    unsigned r, i, k, to[NR], from[NR];
    up_machine m;
    tr_trace in, o;
    size_t l, e;

    for (r = 0; r < NR; r++) {
        tg_enter(g, r, 10 * r, TG_MAIN);
        tg_enter(g, r, 10 * r + 5, TG_INIT);
        tg_leave(g, r, 10 * r + 1000, TG_INIT);
        clk[r] = 10 * r + 1000;
    }
    for (i = 0; i < ITER; i++) {
        for (r = 0; r < NR; r++) { /* compute, then MPI_Send (eager) */
            uint64_t c = 1000 + (r * 7919u + i * 104729u) % 5000u, t;
            unsigned dst = (r + 1) % NR;
            t = clk[r] + c;
            tg_mpi_send(g, r, t, t, t + M.os, dst, 1, GB);
            arr[dst] = t + M.os + g_wire(&M, r, dst, GB);
            clk[r] = t + M.os;
        }
        for (r = 0; r < NR; r++) { /* compute, then MPI_Recv */
            uint64_t d = 10 + (r + i) % 50u, t = clk[r] + d, done;
            done = (t > arr[r] ? t : arr[r]) + M.orr;
            tg_mpi_recv(g, r, t, done, done, (r + NR - 1) % NR, 1, GB);
            clk[r] = done;
        }
        if (i % 3 == 2) { /* allreduce: rounds with partner r ^ 2^k */
            uint64_t enter[NR];
            for (r = 0; r < NR; r++)
                enter[r] = clk[r] += 200 + 37 * r;
            for (k = 1; k < NR; k <<= 1) {
                for (r = 0; r < NR; r++)
                    to[r] = from[r] = r ^ k;
                g_round(&M, clk, to, from, 8);
            }
            for (r = 0; r < NR; r++)
                tg_mpi_coll(g, r, TG_ALLREDUCE, enter[r], enter[r], clk[r], clk[r],
                            OTF2_COLLECTIVE_OP_ALLREDUCE, OTF2_UNDEFINED_UINT32, 8 * NR,
                            8 * NR); /* as the tracer and Score-P: n x count */
        }
        if (i % 4 == 3) { /* dissemination barrier: to r + 2^k, from r - 2^k */
            uint64_t enter[NR];
            for (r = 0; r < NR; r++)
                enter[r] = clk[r] += 100 + 11 * r;
            for (k = 1; k < NR; k <<= 1) {
                for (r = 0; r < NR; r++) {
                    to[r] = (r + k) % NR;
                    from[r] = (r + NR - k) % NR;
                }
                g_round(&M, clk, to, from, 0);
            }
            for (r = 0; r < NR; r++)
                tg_mpi_coll(g, r, TG_BARRIER, enter[r], enter[r], clk[r], clk[r],
                            OTF2_COLLECTIVE_OP_BARRIER, OTF2_UNDEFINED_UINT32, 0, 0);
        }
    }
    for (r = 0; r < NR; r++) {
        tg_enter(g, r, clk[r] + 300, TG_FINALIZE);
        tg_leave(g, r, clk[r] + 800, TG_FINALIZE);
        tg_leave(g, r, clk[r] + 810, TG_MAIN);
    }
    CHECK(tg_close(g) == 0);

    up_machine_init(&m);
    m.cpu_ratio = 1;
    m.compute = UP_COMPUTE_WALL;
    m.progress = UP_PROGRESS_MPI;
    m.send_overhead_ns = (double)M.os;
    m.recv_overhead_ns = (double)M.orr;
    m.latency_ns = (double)M.lat;
    m.node_latency_ns = (double)M.nlat;
    m.per_hop_ns = (double)M.hop;
    m.ns_per_byte = M.g;
    m.node_ns_per_byte = M.ng;
    m.eager_limit = 4096;
    m.contention = false;
    m.topology = UP_TOPO_FULL;
    m.ranks_per_node = 2;
    m.placement = UP_PLACE_BLOCK;
    m.barrier = UP_BARRIER_DISSEMINATION;
    m.algo[UP_CK_ALLREDUCE] = UP_ALGO_RECURSIVE_DOUBLING;
    m.reduce_ns_per_byte = 0;
    if (simulate(dir, &m, &o, NULL) != 0)
        return;
    if (tr_load(dir, &in) != 0) {
        CHECK(!"cannot load the generated trace");
        tr_free(&o);
        return;
    }
    CHECK_EQ(o.nlocs, in.nlocs);
    for (l = 0; l < in.nlocs && l < o.nlocs; l++) {
        unsigned bad = 0;
        CHECK_EQ(o.locs[l].n, in.locs[l].n);
        for (e = 0; e < in.locs[l].n && e < o.locs[l].n; e++)
            if (o.locs[l].ev[e].t != in.locs[l].ev[e].t && bad++ < 3)
                t_fail(__FILE__, __LINE__, "location %zu record %zu: simulated %llu, generated %llu",
                       l, e, (unsigned long long)o.locs[l].ev[e].t,
                       (unsigned long long)in.locs[l].ev[e].t);
    }
    tr_free(&in);
    tr_free(&o);
}

/* Contention on a ring of 5 nodes (one rank each, H = 100, 1000 B: 1000 ns
 * on a link).  0 -> 2 goes 0 1 2 and 1 -> 3 goes 1 2 3: both need the link
 * leaving node 1.
 *   r0 sends at 1000, leaves 1100, holds its links until 2100; head at node
 *   2 after L + 2 H: 2300, tail 3300; r2's MpiRecv 3300 + o_r = 3500.
 *   r1 sends at 1001, leaves 1101, waits for link 1+ until 2100, holds it to
 *   3100; head at node 3 at 2100 + 1000 + 2 x 100 = 3300, tail 4300; r3's
 *   MpiRecv 4500.  Without contention r3's would be 1101 + 1200 + 1000 + 200
 *   = 3501. */
TEST(sim_contention_on_ring_links)
{
    const char *dir = t_dir("sim_ring");
    tg *g = tg_open(dir, 5, NS, 0);
    up_machine m = t_hand_machine();
    tr_trace o;
    unsigned r;
    tg_enter(g, 0, 0, TG_MAIN);
    tg_mpi_send(g, 0, 1000, 1000, 1100, 2, 0, 1000);
    tg_leave(g, 0, 1200, TG_MAIN);
    tg_enter(g, 1, 1, TG_MAIN);
    tg_mpi_send(g, 1, 1001, 1001, 1101, 3, 0, 1000);
    tg_leave(g, 1, 1201, TG_MAIN);
    for (r = 2; r < 4; r++) {
        tg_enter(g, r, 0, TG_MAIN);
        tg_mpi_recv(g, r, 100, 5000, 5000, r - 2, 0, 1000);
        tg_leave(g, r, 5000, TG_MAIN);
    }
    tg_enter(g, 4, 0, TG_MAIN);
    tg_leave(g, 4, 5000, TG_MAIN);
    CHECK(tg_close(g) == 0);
    m.topology = UP_TOPO_RING;
    m.per_hop_ns = 100;
    m.contention = true;
    if (simulate(dir, &m, &o, NULL) != 0)
        return;
    CHECK_EQ(EV(o, 2, 2), 3500);
    CHECK_EQ(EV(o, 3, 2), 4500);
    tr_free(&o);
    m.contention = false;
    if (simulate(dir, &m, &o, NULL) != 0)
        return;
    CHECK_EQ(EV(o, 2, 2), 3500);
    CHECK_EQ(EV(o, 3, 2), 3501);
    tr_free(&o);
}

/* An inconsistent trace: rank 1 receives a message rank 0 never sent.  The
 * simulation goes on, times the receive as a local record (its call keeps
 * its measured 100 ns) and counts the repair. */
TEST(sim_repairs_unmatched_receive)
{
    const char *dir = t_dir("sim_unmatched");
    tg *g = tg_open(dir, 2, NS, 0);
    up_machine m = t_hand_machine();
    up_sim_summary s;
    tr_trace o;
    tg_enter(g, 0, 0, TG_MAIN);
    tg_leave(g, 0, 1000, TG_MAIN);
    tg_enter(g, 1, 0, TG_MAIN);
    tg_mpi_recv(g, 1, 500, 600, 600, 0, 0, 8);
    tg_leave(g, 1, 700, TG_MAIN);
    CHECK(tg_close(g) == 0);
    if (simulate(dir, &m, &o, &s) != 0)
        return;
    CHECK_EQ(s.res.repairs[UP_REPAIR_unmatched_recv], 1);
    CHECK_EQ(EV(o, 1, 2), 600);
    CHECK_EQ(EV(o, 1, 4), 700);
    up_sim_summary_free(&s);
    tr_free(&o);
}

/* Polling (docs/machine.md, "Polling"): a spin on the target.  poll_ns =
 * 50, no tracer overhead (no calibration).
 *   rank 0: MPI_Isend of 8 B: Enter 1000, MpiIsend 1010, Leave 1020;
 *           simulated: MpiIsend 1000, the call busy to 1100 (o_s), the
 *           message arrives at 1100 + L 1000 + 8 = 2108; Leave 1100;
 *           Leave(main) 3000 -> 1100 + 1980 = 3080.
 *   rank 1: MPI_Irecv 100..120 -> 100; then 20 failed MPI_Test calls at
 *           200 + 50k (Enter, MpiRequestTest + 10, Leave + 40) and the
 *           21st (Enter 1200) completes it (MpiIrecv 1210, Leave 1240);
 *           Leave(main) 2000.  The spin starts at 100 + 80 = 180; its 60
 *           records after the first and the last call's Enter take no
 *           time; the target polls at 180, 230, ...: the first at or after
 *           2108 starts at 180 + 39 * 50 = 2130 and ends at 2180, + o_r
 *           200: MpiIrecv 2380; Leave 2380 (the rest of a timed call);
 *           Leave(main) 2380 + 760 = 3140.  Before issue 21 each failed
 *           call kept its 50 ns and the receive, in the call entered at
 *           180 + 20 * 50 = 1180, waited for the message: max(1180, 2108)
 *           + 200 = 2308, 72 ns before the target's poll finds it. */
TEST(sim_spin_polls_on_the_target)
{
    const char *dir = t_dir("sim_spin");
    tg *g = tg_open(dir, 2, NS, 0);
    up_machine m = t_hand_machine();
    OTF2_EvtWriter *w;
    tr_trace o;
    unsigned k;
    m.poll_ns = 50;
    tg_enter(g, 0, 0, TG_MAIN);
    tg_enter(g, 0, 1000, TG_ISEND);
    CHECK(OTF2_EvtWriter_MpiIsend(tg_writer(g, 0), NULL, 1010, 1, TG_COMM_WORLD, 5, 8, 1) ==
          OTF2_SUCCESS);
    tg_leave(g, 0, 1020, TG_ISEND);
    tg_leave(g, 0, 3000, TG_MAIN);
    w = tg_writer(g, 1);
    tg_enter(g, 1, 0, TG_MAIN);
    tg_enter(g, 1, 100, TG_IRECV);
    CHECK(OTF2_EvtWriter_MpiIrecvRequest(w, NULL, 110, 1) == OTF2_SUCCESS);
    tg_leave(g, 1, 120, TG_IRECV);
    for (k = 0; k < 20; k++) {
        tg_enter(g, 1, 200 + 50 * k, TG_TEST);
        tg_request_test(g, 1, 210 + 50 * k, 1);
        tg_leave(g, 1, 240 + 50 * k, TG_TEST);
    }
    tg_enter(g, 1, 1200, TG_TEST);
    CHECK(OTF2_EvtWriter_MpiIrecv(w, NULL, 1210, 0, TG_COMM_WORLD, 5, 8, 1) == OTF2_SUCCESS);
    tg_leave(g, 1, 1240, TG_TEST);
    tg_leave(g, 1, 2000, TG_MAIN);
    CHECK(tg_close(g) == 0);
    if (simulate(dir, &m, &o, NULL) != 0)
        return;
    CHECK_EQ(EV(o, 0, 2), 1000);
    CHECK_EQ(EV(o, 0, 3), 1100);
    CHECK_EQ(EV(o, 0, 4), 3080);
    CHECK_EQ(EV(o, 1, 4), 180);  /* the spin's first Enter */
    CHECK_EQ(EV(o, 1, 64), 180); /* the last call's Enter */
    CHECK_EQ(EV(o, 1, 65), 2380);
    CHECK_EQ(EV(o, 1, 66), 2380);
    CHECK_EQ(EV(o, 1, 67), 3140);
    tr_free(&o);
}
