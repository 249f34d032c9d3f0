/*
 * test_model.c - the compensation equations on traces written by the tests,
 * with every expected timestamp worked out by hand in the comments.
 * Clock: 1 tick = 1 ns.  "O" is the overhead per record; a record's O lies in
 * the gap after it (docs/models.md).
 */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "tutil.h"
#include "tracegen/tracegen.h"

#define NS 1000000000ull

/* Compensates `in` with *p into a fresh folder and loads the output. */
static int comp_load(const char *in, const char *tag, const up_comp_params *p,
                     up_replay_result *res, tr_trace *out, uint64_t **removed)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", t_dir(tag));
    if (t_compensate(in, dir, p, res, removed) != UP_OK)
        return -1;
    return tr_load(dir, out);
}

/* Repairs of every kind but the one named `except` (NULL: none), summed */
static uint64_t repairs_but(const up_replay_result *res, const char *except)
{
    up_repair_line rl[UP_REPAIR_LINES_MAX];
    size_t k, n = up_replay_repairs(res, rl);
    uint64_t sum = 0;
    for (k = 0; k < n; k++)
        if (!except || strcmp(rl[k].kind->name, except))
            sum += rl[k].n;
    return sum;
}

static void set_copy(up_comp_params *p, double ns_per_byte)
{
    p->ncopy = 1;
    p->copy_bytes[0] = 1;
    p->copy_ns_per_byte[0] = ns_per_byte;
    p->copy_set = true;
}

/* ---- (m.1)/(a.1): eqs. (2) and (3) -------------------------------------- */

static void write_m1a1(const char *dir, unsigned flags)
{
    tg *g = tg_open(dir, 2, NS, flags);
    tg_enter(g, 0, 0, TG_MAIN);
    tg_mpi_send(g, 0, 100, 110, 150, 1, 7, 8);
    tg_leave(g, 0, 300, TG_MAIN);
    tg_enter(g, 1, 0, TG_MAIN);
    tg_mpi_recv(g, 1, 50, 200, 210, 0, 7, 8);
    tg_leave(g, 1, 300, TG_MAIN);
    CHECK(tg_close(g) == 0);
}

/* Compensate the trace of write_m1a1 in `in` with O = 10 in every mode
 * (with the archive's stall lists if `stalls`) and check the times
 * of both locations, the overhead removed on each, and that nothing was
 * repaired or clamped. */
static void m1a1_every_mode(const char *in, bool stalls, const uint64_t *s,
                            const uint64_t *r, uint64_t rem0, uint64_t rem1)
{
    up_mode modes[] = {UP_MODE_LOWER, UP_MODE_UPPER, UP_MODE_NETWORK};
    unsigned i;
    for (i = 0; i < 3; i++) {
        up_comp_params p = t_params(10, modes[i], UP_COLLECTIVE_INDIVIDUAL);
        up_replay_result res;
        tr_trace out;
        uint64_t *rem;
        char tag[32];
        p.archive_stalls = stalls;
        snprintf(tag, sizeof tag, "out%u%s", i, stalls ? "-stalls" : "");
        if (comp_load(in, tag, &p, &res, &out, &rem) != 0) {
            CHECK(!"compensation failed");
            continue;
        }
        CHECK_TIMES(&out, 0, s, 5);
        CHECK_TIMES(&out, 1, r, 5);
        CHECK_EQ(rem[0], rem0);
        CHECK_EQ(rem[1], rem1);
        CHECK_EQ(res.model_repairs[UP_MR_clock_condition], 0);
        CHECK_EQ(res.model_repairs[UP_MR_overhead_clamped], 0);
        free(rem);
        tr_free(&out);
        up_replay_result_free(&res);
    }
}

TEST(eq_m1_a1_receiver_waits)
{
    /* O = 10.  Sender: 0; Enter(Send) 100-10 = 90; MpiSend 90+10-10 = 90;
     * Leave 90+40-10 = 120; Leave(main) 120+150-10 = 260.
     * Receiver: 0; Enter(Recv) 50-10 = 40.  (m.1) since enter.recv_m 50 <=
     * exit.send_m 150.  eq. (2) Comm_m = 200-110, less the send record's
     * overhead 10 = 80.  (a.1) 90+80 = 170 > enter.recv_a 40: eq. (3)
     * recv_a = 170.  Leave 170+10-10 = 170; Leave(main) 170+90-10 = 250.
     * The mode does not matter in (m.1). */
    static const uint64_t s[] = {0, 90, 90, 120, 260}, r[] = {0, 40, 170, 170, 250};
    char in[4096];
    snprintf(in, sizeof in, "%s", t_dir("in"));
    write_m1a1(in, 0);
    m1a1_every_mode(in, false, s, r, 40, 40); /* four gaps of 10 on each */
}

TEST(range_of_o_opens_the_bounds_of_an_m1_trace)
{
    /* The trace of eq_m1_a1_receiver_waits, with a calibrated range of O:
     * nominal 5, low 0, high 10.  It has only an (m.1) receive, so the
     * paper's two bounds would coincide; with the range, lower removes
     * O = 10 (the times worked out above) and upper O = 0, which gives back
     * the input: receiver Comm_m = 200-110 = 90, recv_a = 110+90 = 200. */
    static const uint64_t lo_s[] = {0, 90, 90, 120, 260}, lo_r[] = {0, 40, 170, 170, 250};
    static const uint64_t up_s[] = {0, 100, 110, 150, 300}, up_r[] = {0, 50, 200, 210, 300};
    char in[4096];
    unsigned i, k;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    write_m1a1(in, 0);
    for (i = 0; i < 2; i++) {
        up_comp_params p = t_params(5, i ? UP_MODE_UPPER : UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
        up_replay_result res;
        tr_trace out;
        uint64_t *rem;
        for (k = 0; k < UP_RK_COUNT; k++)
            p.overhead_low_ns[k] = 0, p.overhead_high_ns[k] = 10;
        p.range_set = true;
        up_comp_params_resolve(&p);
        if (comp_load(in, i ? "upper" : "lower", &p, &res, &out, &rem) != 0) {
            CHECK(!"compensation failed");
            continue;
        }
        CHECK_TIMES(&out, 0, i ? up_s : lo_s, 5);
        CHECK_TIMES(&out, 1, i ? up_r : lo_r, 5);
        CHECK_EQ(rem[0], i ? 0 : 40);
        free(rem);
        tr_free(&out);
        up_replay_result_free(&res);
    }
}

TEST(overhead_by_location_adds_to_every_record_there)
{
    /* The trace of eq_m1_a1_receiver_waits with O = 10 and 5 ns more on
     * location 1 ([overhead_by_location]: its --extra-ns spins ran long).
     * Sender unchanged.  Receiver, O = 15: 0; Enter(Recv) 50-15 = 35;
     * MpiRecv (m.1): Comm = 200-110-10 = 80, 90+80 = 170; Leave 210: the
     * gap of 10 < 15 is removed whole -> 170 (clamped); Leave(main)
     * 170+90-15 = 245. */
    static const uint64_t s[] = {0, 90, 90, 120, 260}, r[] = {0, 35, 170, 170, 245};
    char in[4096];
    up_comp_params p = t_params(10, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    write_m1a1(in, 0);
    p.nloc_ovh = 1;
    p.loc_ovh_id[0] = 1;
    p.loc_ovh_ns[0] = 5;
    if (comp_load(in, "out", &p, &res, &out, NULL) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    CHECK_TIMES(&out, 0, s, 5);
    CHECK_TIMES(&out, 1, r, 5);
    CHECK_EQ(res.model_repairs[UP_MR_overhead_clamped], 1);
    tr_free(&out);
    up_replay_result_free(&res);
}

/* a <location>.stalls list: pairs of 64-bit words, start and length */
static void write_stalls(const char *dir, unsigned loc, const uint64_t *v, size_t n)
{
    char path[4200];
    FILE *f;
    snprintf(path, sizeof path, "%s/traces/%u.stalls", dir, loc);
    CHECK((f = fopen(path, "wb")) != NULL);
    if (f) {
        CHECK(fwrite(v, sizeof *v, 2 * n, f) == 2 * n);
        fclose(f);
    }
}

TEST(stalls_are_removed_where_they_lie)
{
    /* The trace of eq_m1_a1_receiver_waits with O = 10 and a stall of each
     * location's spins (tracer.md): on 0, [120, 140) in the spin of its
     * MpiSend (110), on 1, [230, 260) after its Leave(Recv) (210).
     * Sender: 0; Enter(Send) 90; MpiSend 90; Leave(Send) 90+40-10-20 = 100;
     * Leave(main) 100+150-10 = 240.  The stall delayed the transfer: the
     * message's path holds 10+20, so (m.1) Comm = 200-110-30 = 60.
     * Receiver: 0; Enter(Recv) 40; MpiRecv 90+60 = 150; Leave(Recv) 150;
     * Leave(main) 150+90-10-30 = 200.  The same in every mode: stalls are
     * measured, not modelled. */
    static const uint64_t s[] = {0, 90, 90, 100, 240}, r[] = {0, 40, 150, 150, 200};
    static const uint64_t s0[] = {0, 90, 90, 120, 260}, r0[] = {0, 40, 170, 170, 250};
    static const uint64_t st0[] = {120, 20}, st1[] = {230, 30};
    char in[2048];
    snprintf(in, sizeof in, "%s", t_dir("in"));
    write_m1a1(in, 0);
    write_stalls(in, 0, st0, 1);
    write_stalls(in, 1, st1, 1);
    /* removed: 10 + 10 + 30 + 10 on 0, 10 + 10 + 10 + 40 on 1 */
    m1a1_every_mode(in, true, s, r, 60, 70);
    /* without the lists: eq_m1_a1_receiver_waits's times */
    m1a1_every_mode(in, false, s0, r0, 40, 40);
}

TEST(sparse_location_ids)
{
    /* the same trace with 64-bit location ids far apart */
    static const uint64_t s[] = {0, 90, 90, 120, 260}, r[] = {0, 40, 170, 170, 250};
    char in[4096];
    up_comp_params p = t_params(10, UP_MODE_UPPER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    write_m1a1(in, TG_SPARSE_IDS);
    if (comp_load(in, "out", &p, &res, &out, NULL) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    CHECK_TIMES(&out, (uint64_t)0 << 32 | 5, s, 5);
    CHECK_TIMES(&out, (uint64_t)1 << 32 | 5, r, 5);
    CHECK_EQ(res.locs[1].id, (uint64_t)1 << 32 | 5);
    CHECK_EQ(res.locs[1].rank, 1);
    tr_free(&out);
    up_replay_result_free(&res);
}

/* ---- (m.1)/(a.2): eq. (4) ------------------------------------------------ */

TEST(eq_m1_a2_message_waits)
{
    /* O = 50, copy 0.5 ns/byte, 100 bytes: C = 50.
     * Sender: 0; work 50, 100, 150, 200; Enter(Send) 250; MpiSend gap 10 <
     * O: all of it removed (clamped) -> 250; Leave 250+90-50 = 290.
     * Receiver: 0; Enter(Recv) 500-50 = 450.  (m.1): 500 <= 600.  Comm_m =
     * 620-510-50 = 60; 250+60 = 310 <= 450 + C: (a.2), eq. (4) recv_a =
     * enter.recv_a + C = 500.  Leave: gap 10 < O -> 500. */
    static const uint64_t s[] = {0, 50, 100, 150, 200, 250, 250, 290}, r[] = {0, 450, 500, 500};
    char in[4096];
    tg *g;
    up_comp_params p = t_params(50, UP_MODE_UPPER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 2, NS, 0);
    tg_enter(g, 0, 0, TG_MAIN);
    tg_enter(g, 0, 100, TG_WORK);
    tg_leave(g, 0, 200, TG_WORK);
    tg_enter(g, 0, 300, TG_WORK);
    tg_leave(g, 0, 400, TG_WORK);
    tg_mpi_send(g, 0, 500, 510, 600, 1, 3, 100);
    tg_enter(g, 1, 0, TG_MAIN);
    tg_mpi_recv(g, 1, 500, 620, 630, 0, 3, 100);
    CHECK(tg_close(g) == 0);
    set_copy(&p, 0.5);
    if (comp_load(in, "out", &p, &res, &out, NULL) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    CHECK_TIMES(&out, 0, s, 8);
    CHECK_TIMES(&out, 1, r, 4);
    CHECK_EQ(res.model_repairs[UP_MR_overhead_clamped], 2);
    CHECK_EQ(res.model_repairs[UP_MR_min_transfer], 0);
    tr_free(&out);
    up_replay_result_free(&res);
}

/* ---- (m.2): eqs. (5)-(11) and Sarukkai's network model -------------------- */

static void write_m2(const char *dir, unsigned flags)
{
    tg *g = tg_open(dir, 2, NS, flags);
    tg_enter(g, 0, 0, TG_MAIN);
    tg_mpi_send(g, 0, 300, 310, 350, 1, 1, 100);
    tg_leave(g, 0, 1000, TG_MAIN);
    tg_enter(g, 1, 0, TG_MAIN);
    tg_enter(g, 1, 100, TG_WORK);
    tg_leave(g, 1, 200, TG_WORK);
    tg_mpi_recv(g, 1, 400, 600, 650, 0, 1, 100);
    tg_leave(g, 1, 1000, TG_MAIN);
    CHECK(tg_close(g) == 0);
}

static void m2_check(const up_comp_params *p, unsigned flags, uint64_t want_recv, uint64_t want_capped);

static void m2_case(up_mode mode, double lat, double hop, unsigned flags, uint64_t want_recv)
{
    /* O = 40, C = 0.1 ns/byte * 100 = 10.
     * Sender: 0; Enter(Send) 300-40 = 260; MpiSend gap 10 < O -> 260;
     * Leave 260+40-40 = 260; Leave(main) 260+650-40 = 870.
     * Receiver: 0; work 60, 120; Enter(Recv) 120+200-40 = 280.  (m.2):
     * enter.recv_m 400 > exit.send_m 350.  Comm^min (eq. 8) puts recv_a
     * at least at enter.recv_a + C = 290.
     *   lower, eq. (9): max(260 + 2C, 290) = 290
     *   upper, eq. (10): recv_m - send_m = 290, less the receiver's overhead
     *     since the send (its Enter at 400: 40) = 250; max(260+250, 290) = 510
     *   network: C_a = S + n*gamma + h*H = 30 + 100*0.2 (+ 100 between nodes)
     *     = 50 (150); MAX{260 + C_a + 2C, 280 + C} = 330 (430)
     * Then Leave(Recv) +50-40 = +10 and Leave(main) +350-40 = +310. */
    up_comp_params p = t_params(40, mode, UP_COLLECTIVE_INDIVIDUAL);
    set_copy(&p, 0.1);
    p.latency_ns = lat;
    p.ns_per_byte = 0.2;
    p.per_hop_ns = hop;
    m2_check(&p, flags, want_recv, 0);
}

static void m2_check(const up_comp_params *p, unsigned flags, uint64_t want_recv, uint64_t want_capped)
{
    char in[4096];
    up_replay_result res;
    tr_trace out;
    uint64_t r[7] = {0, 60, 120, 280, want_recv, want_recv + 10, want_recv + 320};
    static const uint64_t s[] = {0, 260, 260, 260, 870};
    snprintf(in, sizeof in, "%s", t_dir("in"));
    write_m2(in, flags);
    if (comp_load(in, "out", p, &res, &out, NULL) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    CHECK_TIMES(&out, 0, s, 5);
    CHECK_TIMES(&out, 1, r, 7);
    /* window: first..last record (no MPI_Init/MPI_Finalize marks) */
    CHECK(!res.window_marked);
    CHECK_EQ(res.end_m - res.start_m, 1000);
    CHECK_EQ(res.end_a - res.start_a, r[6] > 870 ? r[6] : 870);
    CHECK_EQ(res.model_repairs[UP_MR_transfer_capped], want_capped);
    tr_free(&out);
    up_replay_result_free(&res);
}

TEST(eq_m2_lower_eq9) { m2_case(UP_MODE_LOWER, 30, 0, 0, 290); }
TEST(eq_m2_upper_eq10) { m2_case(UP_MODE_UPPER, 30, 0, 0, 510); }
TEST(eq_m2_network_sarukkai) { m2_case(UP_MODE_NETWORK, 30, 0, 0, 330); }
TEST(eq_m2_network_hops) { m2_case(UP_MODE_NETWORK, 30, 100, TG_TWO_NODES, 430); }

/* The same trace with [network_by_size] (0 B: 20 ns, 1000 B: 220 ns): the
 * ping-pong's one-way time of 100 bytes, 20 + 100*0.2 = 40, is the whole
 * transfer, copies included: MAX{260 + 40, 280 + C} = 300, not 260 + 40 +
 * 2C = 320; between nodes + H = 100: 400.  S and gamma are not used. */
static void m2_by_size(unsigned flags, double hop, uint64_t want_recv)
{
    up_comp_params p = t_params(40, UP_MODE_NETWORK, UP_COLLECTIVE_INDIVIDUAL);
    set_copy(&p, 0.1);
    p.latency_ns = 5000;
    p.ns_per_byte = 50;
    p.per_hop_ns = hop;
    p.nnet = 2;
    p.net_bytes[0] = 0, p.net_ns[0] = 20;
    p.net_bytes[1] = 1000, p.net_ns[1] = 220;
    m2_check(&p, flags, want_recv, 0);
}
TEST(eq_m2_network_by_size_counts_the_copies_once) { m2_by_size(0, 0, 300); }
TEST(eq_m2_network_by_size_between_nodes) { m2_by_size(TG_TWO_NODES, 100, 400); }

TEST(eq_m2_network_transfer_never_longer_than_measured)
{
    /* S = 1000: 260 + 1000 + 2C = 1280, but the message was measured
     * there by recv_m 600: it took at most 600 - send_m 310, less the send
     * record's O on its path (40) = 250 (the receiver's own records since
     * the send, its Enter at 400, did not slow a message in flight).  Cut
     * to it, and counted: 260 + 250 = 510. */
    up_comp_params p = t_params(40, UP_MODE_NETWORK, UP_COLLECTIVE_INDIVIDUAL);
    set_copy(&p, 0.1);
    p.latency_ns = 1000;
    m2_check(&p, 0, 510, 1);
}

/* ---- n-to-n collectives: eqs. (12) and (13) ------------------------------ */

static void write_allreduce(const char *dir)
{
    static const uint64_t E[3] = {100, 300, 200}, X[3] = {350, 345, 360};
    tg *g = tg_open(dir, 3, NS, 0);
    unsigned i;
    for (i = 0; i < 3; i++) {
        tg_enter(g, i, 0, TG_MAIN);
        tg_enter(g, i, 10, TG_WORK);
        tg_leave(g, i, E[i], TG_WORK);
        tg_mpi_coll(g, i, TG_ALLREDUCE, E[i] + 10, E[i] + 20, X[i], X[i] + 10,
                    OTF2_COLLECTIVE_OP_ALLREDUCE, OTF2_UNDEFINED_UINT32, 8, 8);
    }
    CHECK(tg_close(g) == 0);
}

static void allreduce_case(up_collective coll, const uint64_t exit_a[3])
{
    /* O = 10.  Rank i: 0; Enter(work) 0; Leave(work) E_i-20; Enter(Allreduce)
     * and CollectiveBegin E_i-20: 80, 280, 180 (measured begins 120, 320,
     * 220).  j = k = rank 1 (latest measured and approximated begin), l =
     * rank 1 (earliest measured end, 345).  The synchronisation time loses
     * the overhead of j's CollectiveBegin record (10).
     *   eq. (12): 280 + (345 - 320 - 10) = 295 for all
     *   eq. (13): 280 + (X_i - 320 - 10) = 300, 295, 310 */
    char in[4096];
    up_comp_params p = t_params(10, UP_MODE_UPPER, coll);
    up_replay_result res;
    tr_trace out;
    static const uint64_t E[3] = {100, 300, 200};
    unsigned i;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    write_allreduce(in);
    if (comp_load(in, "out", &p, &res, &out, NULL) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    for (i = 0; i < 3; i++) {
        uint64_t w[7] = {0, 0, E[i] - 20, E[i] - 20, E[i] - 20, exit_a[i], exit_a[i]};
        CHECK_TIMES(&out, i, w, 7);
    }
    CHECK_EQ(res.model_repairs[UP_MR_collective_clock], 0);
    CHECK_EQ(res.repairs[UP_REPAIR_collective_incomplete], 0);
    tr_free(&out);
    up_replay_result_free(&res);
}

TEST(eq12_shared_collective)
{
    static const uint64_t x[3] = {295, 295, 295};
    allreduce_case(UP_COLLECTIVE_SHARED, x);
}

TEST(eq13_individual_collective)
{
    static const uint64_t x[3] = {300, 295, 310};
    allreduce_case(UP_COLLECTIVE_INDIVIDUAL, x);
}

/* ---- 1-to-n: point-to-point translation (send := enter.send) ------------- */

static void bcast_case(up_mode mode, uint64_t want_r1, uint64_t want_r2)
{
    /* O = 10, C = 0.1 ns/byte * 100 = 10.  Root 0: 0, 90, CollBegin 90 (send_a;
     * send_m 110), CollEnd local 90+40-10 = 120 (exit.send_m 150), Leave 120.
     * Rank 1: 0, 40, CollBegin 40 (enter.recv_m 60 <= 150: m.1); Comm_m =
     * 200-110 less the root's overhead in its call (10) = 80: 90+80 = 170,
     * in network mode too: the modelled minimum transfer time C_a + 2C =
     * 100 + 20 = 120 is longer than the measured 80 and is cut to it
     * (counted as transfer_capped; it raised the receive to 210 before).
     * Rank 2: 0; work 10, 180; Enter 270; CollBegin 270 (310 > 150: m.2):
     *   lower: max(90 + 2C, 270 + C) = 280
     *   upper: 430-110 less rank 2's overhead since 110 (Leave(work),
     *     Enter, CollBegin: 30) = 290: max(90+290, 280) = 380
     *   network (S = 100, gamma = 0): max(90+100+2C, 280) = 280 */
    char in[4096];
    tg *g;
    up_comp_params p = t_params(10, mode, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    static const uint64_t r0[] = {0, 90, 90, 120, 120};
    uint64_t r1[5] = {0, 40, 40, want_r1, want_r1};
    uint64_t r2[7] = {0, 10, 180, 270, 270, want_r2, want_r2};
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 3, NS, 0);
    tg_enter(g, 0, 0, TG_MAIN);
    tg_mpi_coll(g, 0, TG_BCAST, 100, 110, 150, 160, OTF2_COLLECTIVE_OP_BCAST, 0, 200, 0);
    tg_enter(g, 1, 0, TG_MAIN);
    tg_mpi_coll(g, 1, TG_BCAST, 50, 60, 200, 210, OTF2_COLLECTIVE_OP_BCAST, 0, 0, 100);
    tg_enter(g, 2, 0, TG_MAIN);
    tg_enter(g, 2, 20, TG_WORK);
    tg_leave(g, 2, 200, TG_WORK);
    tg_mpi_coll(g, 2, TG_BCAST, 300, 310, 430, 440, OTF2_COLLECTIVE_OP_BCAST, 0, 0, 100);
    CHECK(tg_close(g) == 0);
    set_copy(&p, 0.1);
    p.latency_ns = 100;
    if (comp_load(in, "out", &p, &res, &out, NULL) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    CHECK_TIMES(&out, 0, r0, 5);
    CHECK_TIMES(&out, 1, r1, 5);
    CHECK_TIMES(&out, 2, r2, 7);
    CHECK_EQ(res.model_repairs[UP_MR_min_transfer], 0);
    CHECK_EQ(res.model_repairs[UP_MR_transfer_capped], mode == UP_MODE_NETWORK ? 1 : 0);
    tr_free(&out);
    up_replay_result_free(&res);
}

TEST(one_to_n_bcast_lower) { bcast_case(UP_MODE_LOWER, 170, 280); }
TEST(one_to_n_bcast_upper) { bcast_case(UP_MODE_UPPER, 170, 380); }
TEST(one_to_n_bcast_network) { bcast_case(UP_MODE_NETWORK, 170, 280); }

TEST(one_to_n_without_bytes_is_local)
{
    /* An MPI_Bcast of count 0: Open MPI returns at once, and rank 1 left it
     * before the root entered (HPC Challenge).  O = 10.  Root 0: Enter(main)
     * 0, Enter(Bcast) 300 -> 290, begin 310 -> 290, end 320 -> 290, Leave
     * 330 -> 290.  Rank 1: 0, Enter 50 -> 40, begin 60 -> 40, end 90 -> 60,
     * Leave 100 -> 60: local records, no wait for the root, nothing
     * repaired (before: the end waited for the root, counted as a clock
     * condition repair). */
    static const uint64_t r0[] = {0, 290, 290, 290, 290}, r1[] = {0, 40, 40, 60, 60};
    char in[4096];
    tg *g;
    up_comp_params p = t_params(10, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 2, NS, 0);
    tg_enter(g, 0, 0, TG_MAIN);
    tg_mpi_coll(g, 0, TG_BCAST, 300, 310, 320, 330, OTF2_COLLECTIVE_OP_BCAST, 0, 0, 0);
    tg_enter(g, 1, 0, TG_MAIN);
    tg_mpi_coll(g, 1, TG_BCAST, 50, 60, 90, 100, OTF2_COLLECTIVE_OP_BCAST, 0, 0, 0);
    CHECK(tg_close(g) == 0);
    if (comp_load(in, "out", &p, &res, &out, NULL) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    CHECK_TIMES(&out, 0, r0, 5);
    CHECK_TIMES(&out, 1, r1, 5);
    CHECK_EQ(res.model_repairs[UP_MR_clock_condition], 0);
    CHECK_EQ(res.model_repairs[UP_MR_min_transfer], 0);
    tr_free(&out);
    up_replay_result_free(&res);
}

/* ---- n-to-1: the mirror image (docs/models.md) ---------------------------- */

TEST(n_to_one_reduce)
{
    /* O = 10, C = 10.  Rank 1: 0, 190, CollBegin 190 (begin_m 210), CollEnd
     * local 190+20-10 = 200, Leave 200.  Rank 2: 0, work 0, 270, Enter 270,
     * CollBegin 270 (begin_m 310), CollEnd 280, Leave 280.  Root 0: 0, 90,
     * CollBegin 90 (enter.recv_m 110); it receives from each member:
     *   from 1: m.1 (110 <= 230): Comm = 400-210-10 = 180: 190+180 = 370
     *   from 2: m.1 (110 <= 330): Comm = 400-310-10 = 80:  270+80  = 350
     * and leaves after the last: 370; Leave 370. */
    static const uint64_t r0[] = {0, 90, 90, 370, 370}, r1[] = {0, 190, 190, 200, 200},
                          r2[] = {0, 0, 270, 270, 270, 280, 280};
    char in[4096];
    tg *g;
    up_comp_params p = t_params(10, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 3, NS, 0);
    tg_enter(g, 0, 0, TG_MAIN);
    tg_mpi_coll(g, 0, TG_REDUCE, 100, 110, 400, 410, OTF2_COLLECTIVE_OP_REDUCE, 0, 0, 200);
    tg_enter(g, 1, 0, TG_MAIN);
    tg_mpi_coll(g, 1, TG_REDUCE, 200, 210, 230, 240, OTF2_COLLECTIVE_OP_REDUCE, 0, 100, 0);
    tg_enter(g, 2, 0, TG_MAIN);
    tg_enter(g, 2, 10, TG_WORK);
    tg_leave(g, 2, 290, TG_WORK);
    tg_mpi_coll(g, 2, TG_REDUCE, 300, 310, 330, 340, OTF2_COLLECTIVE_OP_REDUCE, 0, 100, 0);
    CHECK(tg_close(g) == 0);
    set_copy(&p, 0.1);
    if (comp_load(in, "out", &p, &res, &out, NULL) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    CHECK_TIMES(&out, 0, r0, 5);
    CHECK_TIMES(&out, 1, r1, 5);
    CHECK_TIMES(&out, 2, r2, 7);
    tr_free(&out);
    up_replay_result_free(&res);
}

/* ---- prefix operations: rank i waits for ranks 0..i ----------------------- */

TEST(scan_waits_for_the_ranks_below)
{
    /* O = 10, upper.  Rank 0 works first: Enter(work) 10 -> 0, Leave(work)
     * 290 -> 270, Enter(scan) 300 -> 270, CollBegin 310 -> 270.  Ranks 1, 2:
     * Enter 100/500 -> 90/490, CollBegin 110/510 -> 90/490.  Each member's
     * end waits for ranks 0..i; j has the latest measured begin among them,
     * k_a the latest approximated begin, and each one entered before j
     * began, so it waited (m.1): end_a^i = k_a + (X_i - begin_m^j - 10)
     *   rank 0: j = 0, k_a = 270: 270 + (350 - 320) = 300;
     *   rank 1: j = 0, k_a = 270: 270 + (400 - 320) = 350;
     *   rank 2: j = 2, k_a = 490: 490 + (560 - 520) = 530.
     * As n-to-n, ranks 0 and 1 would have waited for rank 2 (490). */
    static const uint64_t r0[] = {0, 0, 270, 270, 270, 300, 300},
                          r1[] = {0, 90, 90, 350, 350}, r2[] = {0, 490, 490, 530, 530};
    char in[4096];
    tg *g;
    up_comp_params p = t_params(10, UP_MODE_UPPER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 3, NS, 0);
    tg_enter(g, 0, 0, TG_MAIN);
    tg_enter(g, 0, 10, TG_WORK);
    tg_leave(g, 0, 290, TG_WORK);
    tg_mpi_coll(g, 0, TG_ALLREDUCE, 300, 310, 350, 360, OTF2_COLLECTIVE_OP_SCAN,
                OTF2_UNDEFINED_UINT32, 8, 8);
    tg_enter(g, 1, 0, TG_MAIN);
    tg_mpi_coll(g, 1, TG_ALLREDUCE, 100, 110, 400, 410, OTF2_COLLECTIVE_OP_SCAN,
                OTF2_UNDEFINED_UINT32, 8, 8);
    tg_enter(g, 2, 0, TG_MAIN);
    tg_mpi_coll(g, 2, TG_ALLREDUCE, 500, 510, 560, 570, OTF2_COLLECTIVE_OP_SCAN,
                OTF2_UNDEFINED_UINT32, 8, 8);
    CHECK(tg_close(g) == 0);
    if (comp_load(in, "out", &p, &res, &out, NULL) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    CHECK_TIMES(&out, 0, r0, 7);
    CHECK_TIMES(&out, 1, r1, 5);
    CHECK_TIMES(&out, 2, r2, 5);
    CHECK_EQ(res.model_repairs[UP_MR_collective_clock], 0);
    CHECK_EQ(res.repairs[UP_REPAIR_collective_incomplete], 0);
    tr_free(&out);
    up_replay_result_free(&res);
}

/* ---- nonblocking collectives (NonBlockingCollectiveRequest/Complete) ------ */

/* Rank r: Enter(main) 0, Request R_r, Enter(wait) W_r, Complete C_r, Leave
 * C_r + 10; an Iallreduce on MPI_COMM_WORLD with request id 100 + r. */
static void write_iallreduce(const char *dir, OTF2_CollectiveOp op, uint32_t root)
{
    static const uint64_t R[3] = {100, 300, 200}, W[3] = {150, 310, 500}, C[3] = {400, 420, 510};
    tg *g = tg_open(dir, 3, NS, 0);
    unsigned r;
    for (r = 0; r < 3; r++) {
        OTF2_EvtWriter *w = tg_writer(g, r);
        tg_enter(g, r, 0, TG_MAIN);
        CHECK(OTF2_EvtWriter_NonBlockingCollectiveRequest(w, NULL, R[r], 100 + r) == OTF2_SUCCESS);
        tg_enter(g, r, W[r], TG_WAIT);
        CHECK(OTF2_EvtWriter_NonBlockingCollectiveComplete(w, NULL, C[r], op, TG_COMM_WORLD, root,
                                                           8, 8, 100 + r) == OTF2_SUCCESS);
        tg_leave(g, r, C[r] + 10, TG_WAIT);
    }
    CHECK(tg_close(g) == 0);
}

static void iallreduce_case(OTF2_CollectiveOp op, uint32_t root, const uint64_t want_c[3])
{
    char in[4096];
    up_comp_params p = t_params(10, UP_MODE_UPPER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    static const uint64_t R_a[3] = {90, 290, 190}, W_a[3] = {130, 290, 480};
    unsigned r;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    write_iallreduce(in, op, root);
    if (comp_load(in, "out", &p, &res, &out, NULL) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    for (r = 0; r < 3; r++) {
        uint64_t w[5] = {0, R_a[r], W_a[r], want_c[r], want_c[r]};
        CHECK_TIMES(&out, r, w, 5);
    }
    CHECK_EQ(res.repairs[UP_REPAIR_collective_unpaired], 0);
    CHECK_EQ(res.repairs[UP_REPAIR_collective_incomplete], 0);
    tr_free(&out);
    up_replay_result_free(&res);
}

TEST(nonblocking_allreduce_completes_after_the_last_request)
{
    /* O = 10, upper.  Eq. (1): requests at 90, 290, 190; Enter(wait) at 130,
     * 290, 480; the completes' local times would be 370, 390, 480.  j = rank
     * 1 (latest measured request, 300), k_a = 290, O_in(j) = 10.
     *   rank 0 entered its Wait (150) before 300: it waited (m.1):
     *     290 + (400 - 300 - 10) = 380, not its local 370;
     *   ranks 1 and 2 entered their Waits after 300 (m.2): local, >= 290:
     *     390 and 480. */
    static const uint64_t c[3] = {380, 390, 480};
    iallreduce_case(OTF2_COLLECTIVE_OP_ALLREDUCE, OTF2_UNDEFINED_UINT32, c);
}

TEST(nonblocking_completion_beyond_the_lookahead)
{
    /* The allreduce above, with 70 000 MpiRequestTest records at 120 on rank
     * 0 between its request and its Wait: its completion is out of the
     * lookahead's reach, so rank 0 joins the instance at its completion,
     * with its request's times.  Eq. (1): the first test 90 + 20 - 10 =
     * 100, the others 100 (gaps of 0), Enter(wait) 100 + 30 - 10 = 120; the
     * completion still waited for rank 1: 290 + 90 = 380. */
    enum { NTEST = 70000 };
    static const uint64_t r1[] = {0, 290, 290, 390, 390}, r2[] = {0, 190, 480, 480, 480};
    static const uint64_t R[3] = {100, 300, 200}, W[3] = {150, 310, 500}, C[3] = {400, 420, 510};
    char in[4096];
    up_comp_params p = t_params(10, UP_MODE_UPPER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    const tr_loc *l0;
    tg *g;
    unsigned r, i;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 3, NS, 0);
    for (r = 0; r < 3; r++) {
        OTF2_EvtWriter *w = tg_writer(g, r);
        tg_enter(g, r, 0, TG_MAIN);
        CHECK(OTF2_EvtWriter_NonBlockingCollectiveRequest(w, NULL, R[r], 100 + r) == OTF2_SUCCESS);
        for (i = 0; r == 0 && i < NTEST; i++)
            CHECK(OTF2_EvtWriter_MpiRequestTest(w, NULL, 120, 100) == OTF2_SUCCESS);
        tg_enter(g, r, W[r], TG_WAIT);
        CHECK(OTF2_EvtWriter_NonBlockingCollectiveComplete(w, NULL, C[r], OTF2_COLLECTIVE_OP_ALLREDUCE,
                                                           TG_COMM_WORLD, OTF2_UNDEFINED_UINT32,
                                                           8, 8, 100 + r) == OTF2_SUCCESS);
        tg_leave(g, r, C[r] + 10, TG_WAIT);
    }
    CHECK(tg_close(g) == 0);
    if (comp_load(in, "out", &p, &res, &out, NULL) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    l0 = tr_loc_id(&out, 0);
    CHECK(l0 && l0->n == NTEST + 5);
    if (l0 && l0->n == NTEST + 5) {
        CHECK_EQ(l0->ev[2].t, 100);
        CHECK_EQ(l0->ev[NTEST + 1].t, 100);
        CHECK_EQ(l0->ev[NTEST + 2].t, 120);
        CHECK_EQ(l0->ev[NTEST + 3].t, 380);
        CHECK_EQ(l0->ev[NTEST + 4].t, 380);
    }
    CHECK_TIMES(&out, 1, r1, 5);
    CHECK_TIMES(&out, 2, r2, 5);
    CHECK_EQ(res.repairs[UP_REPAIR_collective_unpaired], 0);
    CHECK_EQ(res.repairs[UP_REPAIR_collective_incomplete], 0);
    tr_free(&out);
    up_replay_result_free(&res);
}

TEST(nonblocking_bcast_waits_for_the_root_only)
{
    /* Ibcast from root 0: the root waits for nobody: local 370 (an
     * allreduce gave 380); ranks 1 and 2 entered their Waits after the
     * root's request (100): local 390 and 480. */
    static const uint64_t c[3] = {370, 390, 480};
    iallreduce_case(OTF2_COLLECTIVE_OP_BCAST, 0, c);
}

TEST(nonblocking_reduce_root_waits_for_all)
{
    /* Ireduce to root 2: rank 0 waits for nobody: local 370 (an allreduce
     * gave 380); the root entered its Wait (500) after the last request
     * (300): local 480 (>= k_a 290); rank 1: local 390. */
    static const uint64_t c[3] = {370, 390, 480};
    iallreduce_case(OTF2_COLLECTIVE_OP_REDUCE, 2, c);
}

/* ---- synchronous sends: the late-receiver wait ---------------------------- */

static void ssend_case(tg_region_t region, uint64_t bytes, uint64_t want_leave)
{
    /* O = 10, lower, no copy time.  Rank 0: Enter(send call) 100 -> 90,
     * MpiSend 110 -> 90, Leave 400.  Rank 1 works (two regions, so that it
     * loses more overhead than rank 0) and posts its receive late: Enter(work)
     * 10, 100, 110, 290 -> 0, 80, 80, 250; Enter(MPI_Recv) 300 -> 250 (the
     * post); MpiRecv 390: (m.1), Comm = 390 - (110 + 10) less rank 1's
     * overhead since 110 (30) = 240: max(90 + 240, 250) = 330; Leave 330.
     * A synchronous send (MPI_Ssend, or more bytes than the eager limit)
     * had a late receiver (post 300 > send 110): its Leave is
     *   max(90, post_a + (400 - 300)) = 250 + 100 = 350,
     * where an eager send's Leave is local: 90 + (400 - 110) - 10 = 370.
 * Both Leave(main) at 500 are local. */
    static const uint64_t r1[] = {0, 0, 80, 80, 250, 250, 330, 330, 420};
    uint64_t r0[] = {0, 90, 90, want_leave, want_leave};
    char in[4096];
    tg *g;
    up_comp_params p = t_params(10, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 2, NS, 0);
    tg_enter(g, 0, 0, TG_MAIN);
    tg_enter(g, 0, 100, region);
    tg_send(g, 0, 110, 1, 3, bytes);
    tg_leave(g, 0, 400, region);
    tg_leave(g, 0, 500, TG_MAIN);
    tg_enter(g, 1, 0, TG_MAIN);
    tg_enter(g, 1, 10, TG_WORK);
    tg_leave(g, 1, 100, TG_WORK);
    tg_enter(g, 1, 110, TG_WORK);
    tg_leave(g, 1, 290, TG_WORK);
    tg_mpi_recv(g, 1, 300, 390, 400, 0, 3, bytes);
    tg_leave(g, 1, 500, TG_MAIN);
    CHECK(tg_close(g) == 0);
    if (comp_load(in, "out", &p, &res, &out, NULL) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    r0[4] = want_leave + 100 - 10; /* Leave(main) 500: local */
    CHECK_TIMES(&out, 0, r0, 5);
    CHECK_TIMES(&out, 1, r1, 9);
    CHECK_EQ(res.repairs[UP_REPAIR_sync_unposted], 0);
    tr_free(&out);
    up_replay_result_free(&res);
}

TEST(ssend_waits_for_a_late_receiver) { ssend_case(TG_SSEND, 8, 350); }
TEST(send_above_the_eager_limit_is_synchronous) { ssend_case(TG_SEND, 8192, 350); }
TEST(eager_send_does_not_wait) { ssend_case(TG_SEND, 8, 370); }

TEST(send_above_the_eager_limit_completed_before_the_post_was_eager)
{
    /* 8 KiB, above the eager limit (4096), but its MPI_Send returned at 150,
     * before rank 1 posted the receive at 300: the library buffered it, the
     * trace says so (issue 20, model error 1).  O = 10, lower.  Rank 0:
     * Enter(main) 0, Enter(MPI_Send) 100 -> 90, send 110 -> 90, Leave 150 ->
     * 90 + 40 - 10 = 120 (local; it was 250, the receive's post), Leave(main)
     * 500 -> 460.  No repair. */
    static const uint64_t r0[] = {0, 90, 90, 120, 460};
    char in[4096];
    tg *g;
    up_comp_params p = t_params(10, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 2, NS, 0);
    tg_enter(g, 0, 0, TG_MAIN);
    tg_mpi_send(g, 0, 100, 110, 150, 1, 3, 8192);
    tg_leave(g, 0, 500, TG_MAIN);
    tg_enter(g, 1, 0, TG_MAIN);
    tg_enter(g, 1, 10, TG_WORK);
    tg_leave(g, 1, 290, TG_WORK);
    tg_mpi_recv(g, 1, 300, 390, 400, 0, 3, 8192);
    tg_leave(g, 1, 500, TG_MAIN);
    CHECK(tg_close(g) == 0);
    if (comp_load(in, "out", &p, &res, &out, NULL) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    CHECK_TIMES(&out, 0, r0, 5);
    CHECK_EQ(repairs_but(&res, NULL), 0);
    tr_free(&out);
    up_replay_result_free(&res);
}

/* Progress (docs/models.md, "Progress"): rank 1 posts an MPI_Irecv (its
 * request at 20), works outside MPI in two user regions whose records are
 * the tracer's time, and enters MPI_Wait at 310; rank 0's MPI_Send of 8192
 * bytes (above the eager limit) began at 60 and returned at 390, once rank
 * 1 was inside MPI (in = 310 + O = 320).  O = 10, lower, no copy time.
 *   Rank 1: 0; Irecv 10, 20, 30 -> 0; work 40 -> 0, 100 -> 50, 110 -> 50,
 *   300 -> 230; Enter(Wait) 310 -> 230 = P_a; MpiIrecv 400: its transfer
 *   could only move once the Wait was entered, so the receiver did not
 *   wait for the sender, (m.2) lower: max(send_a 40 + 2C 0, ready_a 230 +
 *   C 0) = 230; Leave 410 -> 230; Leave(main) 500 -> 310.
 *   Rank 0: 0; Enter(Send) 50 -> 40; MpiSend 60 -> 40; Leave 390: the
 *   receiver's entry after the post and the send, so
 *   max(40, P_a + (390 - in - O_s(in))) = 230 + 70 = 300 (with --progress
 *   async the call is a local record: 40 + 330 - 10 = 360); Leave(main)
 *   500 -> 300 + 110 - 10 = 400 (async 460).
 * When rank 1 is already inside MPI (its Wait entered at 50, before the
 * send at 60), nothing waited for it: the local time, 360, in both. */
static void progress_case(bool async, bool in_mpi, const uint64_t want0[5],
                          const uint64_t want1[11], uint64_t waited)
{
    char in[4096];
    tg *g;
    up_comp_params p = t_params(10, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    OTF2_EvtWriter *w;
    p.progress = async ? UP_RDV_ASYNC : UP_RDV_MPI;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 2, NS, 0);
    tg_enter(g, 0, 0, TG_MAIN);
    tg_mpi_send(g, 0, 50, 60, 390, 1, 3, 8192);
    tg_leave(g, 0, 500, TG_MAIN);
    w = tg_writer(g, 1);
    tg_enter(g, 1, 0, TG_MAIN);
    tg_enter(g, 1, 10, TG_IRECV);
    CHECK(OTF2_EvtWriter_MpiIrecvRequest(w, NULL, 20, 1) == OTF2_SUCCESS);
    tg_leave(g, 1, 30, TG_IRECV);
    if (in_mpi) { /* the whole wait inside MPI_Wait */
        tg_enter(g, 1, 40, TG_WAIT);
        tg_enter(g, 1, 50, TG_WORK); /* (a callback's region) */
        tg_leave(g, 1, 100, TG_WORK);
        tg_enter(g, 1, 110, TG_WORK);
        tg_leave(g, 1, 290, TG_WORK);
        tg_leave(g, 1, 300, TG_WAIT);
        tg_enter(g, 1, 310, TG_WAIT);
    } else {
        tg_enter(g, 1, 40, TG_WORK);
        tg_leave(g, 1, 100, TG_WORK);
        tg_enter(g, 1, 110, TG_WORK);
        tg_leave(g, 1, 300, TG_WORK);
        tg_enter(g, 1, 310, TG_WAIT);
    }
    CHECK(OTF2_EvtWriter_MpiIrecv(w, NULL, 400, 0, TG_COMM_WORLD, 3, 8192, 1) == OTF2_SUCCESS);
    tg_leave(g, 1, 410, TG_WAIT);
    tg_leave(g, 1, 500, TG_MAIN);
    CHECK(tg_close(g) == 0);
    if (comp_load(in, "out", &p, &res, &out, NULL) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    CHECK_TIMES(&out, 0, want0, 5);
    CHECK_TIMES(&out, 1, want1, in_mpi ? 14 : 12);
    CHECK_EQ(res.model_repairs[UP_MR_progress_waited], waited);
    CHECK_EQ(repairs_but(&res, "progress_waited"), 0);
    tr_free(&out);
    up_replay_result_free(&res);
}

TEST(rendezvous_send_waits_for_the_receivers_entry_into_mpi)
{
    static const uint64_t r0[] = {0, 40, 40, 300, 400};
    static const uint64_t r0_async[] = {0, 40, 40, 360, 460};
    /* async keeps (m.1) for the receive, exit.send 390 >= enter 310:
     * send_a 40 + (400 - 60 - O_path 10 - O_r(60) 40) = 330 */
    static const uint64_t r1[] = {0, 0, 0, 0, 0, 50, 50, 230, 230, 230, 230, 310};
    static const uint64_t r1_async[] = {0, 0, 0, 0, 0, 50, 50, 230, 230, 330, 330, 410};
    progress_case(false, false, r0, r1, 1);
    progress_case(true, false, r0_async, r1_async, 0);
}

TEST(rendezvous_send_to_a_receiver_inside_mpi_is_local)
{
    /* Rank 1: 0; Irecv -> 0; Enter(Wait) 40 -> 0; work 50 -> 0, 100 -> 40,
     * 110 -> 40, 290 -> 210; Leave(Wait) 300, Enter(Wait) 310 -> 210; its
     * Wait was open at the send (60): the sender waited for nobody, local
     * 360.  MpiIrecv 400, (m.1) as before: 40 + (400 - 60 - 10 - O_r(60)
     * 50) = 320; Leave 410 -> 320; Leave(main) 500 -> 400. */
    static const uint64_t r0[] = {0, 40, 40, 360, 460};
    static const uint64_t r1[] = {0, 0, 0, 0, 0, 0, 40, 40, 210, 210, 210, 320, 320, 400};
    progress_case(false, true, r0, r1, 0);
}

/* The completion of a synchronous MPI_Isend inside an MPI_Waitall that
 * also completes a receive.  Rank 1 posts the receive late (MPI_Recv at
 * 480, after work) and then sends rank 0 an eager message (MpiSend 520).
 * Rank 0's Waitall returns at 600 and writes MpiIrecv (600) and
 * MpiIsendComplete (610): the measured interval from the post (480) to 610
 * also holds the wait for rank 1's eager message, which the MpiIrecv record
 * accounts for.  So the completion follows the MpiIrecv by eq. (1), no
 * earlier than the post: not post_a + (610 - 480 - O). */
static void sync_waitall_case(up_mode mode, double copy, const uint64_t want0[12])
{
    char in[4096];
    tg *g;
    up_comp_params p = t_params(10, mode, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    OTF2_EvtWriter *w;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 2, NS, 0);
    w = tg_writer(g, 0);
    tg_enter(g, 0, 0, TG_MAIN);
    tg_enter(g, 0, 100, TG_ISEND);
    CHECK(OTF2_EvtWriter_MpiIsend(w, NULL, 110, 1, TG_COMM_WORLD, 3, 8192, 1) == OTF2_SUCCESS);
    tg_leave(g, 0, 120, TG_ISEND);
    tg_enter(g, 0, 130, TG_IRECV);
    CHECK(OTF2_EvtWriter_MpiIrecvRequest(w, NULL, 140, 2) == OTF2_SUCCESS);
    tg_leave(g, 0, 150, TG_IRECV);
    tg_enter(g, 0, 160, TG_WAIT);
    CHECK(OTF2_EvtWriter_MpiIrecv(w, NULL, 600, 1, TG_COMM_WORLD, 4, 8, 2) == OTF2_SUCCESS);
    CHECK(OTF2_EvtWriter_MpiIsendComplete(w, NULL, 610, 1) == OTF2_SUCCESS);
    tg_leave(g, 0, 620, TG_WAIT);
    tg_leave(g, 0, 700, TG_MAIN);
    tg_enter(g, 1, 0, TG_MAIN);
    tg_enter(g, 1, 10, TG_WORK);
    tg_leave(g, 1, 250, TG_WORK);
    tg_enter(g, 1, 260, TG_WORK);
    tg_leave(g, 1, 470, TG_WORK);
    tg_mpi_recv(g, 1, 480, 490, 500, 0, 3, 8192);
    tg_mpi_send(g, 1, 510, 520, 530, 0, 4, 8);
    tg_leave(g, 1, 700, TG_MAIN);
    CHECK(tg_close(g) == 0);
    if (copy > 0)
        set_copy(&p, copy);
    if (comp_load(in, "out", &p, &res, &out, NULL) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    CHECK_TIMES(&out, 0, want0, 12);
    CHECK_EQ(res.repairs[UP_REPAIR_sync_unposted], 0);
    tr_free(&out);
    up_replay_result_free(&res);
}

TEST(sync_isend_completed_after_a_receive_in_the_same_waitall)
{
    /* O = 10, lower, no copy time.  Rank 0: 0; Enter(Isend) 100 -> 90; its
     * records 10 apart -> 90 up to Enter(Waitall) 160 -> 90.  Rank 1: 0;
     * work 10, 250, 260, 470 -> 0, 230, 230, 430; Enter(MPI_Recv) 480 -> 430
     * (the post, post_a 430); MpiRecv 490, Leave 500 -> 430 (m.2: Comm
     * lower max(0, ...)); Enter(MPI_Send) 510, MpiSend 520 -> 430.
     * Rank 0's MpiIrecv 600: (m.1) since enter 160 <= exit.send 530;
     * Comm = 600 - (520 + 10) = 70: 430 + 70 = 500.  MpiIsendComplete 610:
     * a record since the post (MpiIrecv at 600 > 480), so eq. (1):
     * 500 + 10 - 10 = 500, >= post_a 430: 500 (the reused wait would have
     * given 430 + (610 - 480 - 10) = 550).  Leave 620 -> 500;
     * Leave(main) 700 -> 500 + 80 - 10 = 570. */
    static const uint64_t want[] = {0, 90, 90, 90, 90, 90, 90, 90, 500, 500, 500, 570};
    sync_waitall_case(UP_MODE_LOWER, 0, want);
}

TEST(sync_completion_no_earlier_than_post_plus_two_copies)
{
    /* The same with C = 0.1 ns/byte: 2C of the 8192-byte message is 1638.4
     * -> 1638 ticks, so MpiIsendComplete >= post_a + 1638.  With copy time
     * rank 1's receive and rank 0's receive move as well: MpiRecv of the
     * 8192 bytes, (m.2) lower: max(send_a 90 + 2C 1638, ready 430 + C 819)
     * = 1728; Leave 1728; MpiSend 1728 (rank 1's send call starts after);
     * rank 0's MpiIrecv of 8 bytes (C = 0.8 -> 1 tick, 2C -> 2): (m.1)
     * Comm 70: max(1728 + 70, 90 + 1) = 1798.  MpiIsendComplete: eq. (1)
     * 1798, against post_a 430 + 1638 = 2068: 2068.  Leave 2068;
     * Leave(main) 2068 + 80 - 10 = 2138. */
    static const uint64_t want[] = {0, 90, 90, 90, 90, 90, 90, 90, 1798, 2068, 2068, 2138};
    sync_waitall_case(UP_MODE_LOWER, 0.1, want);
}

/* ---- wildcard receives: --wildcard fifo|lifo (Sarukkai Section 4.2) ----- */

/* O = 100, lower.  Rank 1 sends to 0 at 460 after no records; rank 2 at
 * 560 after four work records, so that, compensated, rank 2 sent first:
 *   rank 1: Enter(main) 0 -> 0; Enter(MPI_Send) 450 -> 350; MpiSend 460 and
 *           Leave 470 -> 350 (gaps of 10 < O); Leave(main) 2000 -> 1780
 *   rank 2: 0; work 110, 220, 330, 440 -> 10, 20, 30, 40; Enter(MPI_Send)
 *           550 -> 50; MpiSend 560, Leave 570 -> 50; Leave(main) 2000 -> 1380
 * Rank 0 receives twice with MPI_ANY_SOURCE (its first Enter(MPI_Recv) at
 * `post`): measured, first rank 1's message (at 600), then rank 2's (800). */
static void write_wild(const char *dir, uint64_t post, bool wild)
{
    tg *g = tg_open(dir, 3, NS, 0);
    tg_enter(g, 1, 0, TG_MAIN);
    tg_mpi_send(g, 1, 450, 460, 470, 0, 5, 8);
    tg_leave(g, 1, 2000, TG_MAIN);
    tg_enter(g, 2, 0, TG_MAIN);
    tg_enter(g, 2, 110, TG_WORK);
    tg_leave(g, 2, 220, TG_WORK);
    tg_enter(g, 2, 330, TG_WORK);
    tg_leave(g, 2, 440, TG_WORK);
    tg_mpi_send(g, 2, 550, 560, 570, 0, 5, 8);
    tg_leave(g, 2, 2000, TG_MAIN);
    tg_enter(g, 0, 0, TG_MAIN);
    tg_enter(g, 0, post, TG_RECV);
    if (wild)
        tg_recv_wild(g, 0, 600, 1, 5, 8, 1);
    else
        tg_recv(g, 0, 600, 1, 5, 8);
    tg_leave(g, 0, 610, TG_RECV);
    tg_enter(g, 0, 720, TG_RECV);
    if (wild)
        tg_recv_wild(g, 0, 800, 2, 5, 8, 1);
    else
        tg_recv(g, 0, 800, 2, 5, 8);
    tg_leave(g, 0, 810, TG_RECV);
    tg_leave(g, 0, 2000, TG_MAIN);
    CHECK(tg_close(g) == 0);
}

/* The senders of location 0's receive records, in order. */
static void check_senders(const tr_trace *t, uint64_t first, uint64_t second)
{
    const tr_loc *l = tr_loc_id(t, 0);
    uint64_t got[2] = {UINT64_MAX, UINT64_MAX};
    size_t i, n = 0;
    CHECK(l != NULL);
    for (i = 0; l && i < l->n; i++)
        if (l->ev[i].kind == TR_RECV && n < 2)
            got[n++] = l->ev[i].aux;
    CHECK_EQ(n, 2);
    CHECK_EQ(got[0], first);
    CHECK_EQ(got[1], second);
}

static void wild_case(uint64_t post, bool wild, up_wildcard w, const uint64_t *m0,
                      uint64_t first, uint64_t second, uint64_t rematched)
{
    static const uint64_t t1[] = {0, 350, 350, 350, 1780},
                          t2[] = {0, 10, 20, 30, 40, 50, 50, 50, 1380};
    char in[4096];
    up_comp_params p = t_params(100, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    write_wild(in, post, wild);
    p.wildcard = w;
    if (comp_load(in, "out", &p, &res, &out, NULL) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    CHECK_TIMES(&out, 1, t1, 5);
    CHECK_TIMES(&out, 2, t2, 9);
    if (m0)
        CHECK_TIMES(&out, 0, m0, 8);
    check_senders(&out, first, second);
    CHECK_EQ(res.rematched, rematched);
    CHECK_EQ(res.wildcard_recvs, wild && w != UP_WILDCARD_PRESERVE ? 2 : 0);
    CHECK_EQ(res.repairs[UP_REPAIR_unmatched_recv] + res.repairs[UP_REPAIR_unmatched_send], 0);
    tr_free(&out);
    up_replay_result_free(&res);
}

TEST(any_source_fifo_changes_the_match)
{
    /* Rank 0 posts at 100 -> 0.  FIFO: its first receive takes the message
     * sent first, rank 2's (send_a 50), timed by the model alone (the pair
     * was never measured): max(send_a + 2C, ready_a) = max(50, 0) = 50;
     * Leave 610 -> 50; Enter 720 -> 50 + 110 - 100 = 60; the second receive
     * (recorded from rank 2, whose message is gone) takes rank 1's:
     * max(350, 60) = 350; Leave -> 350; Leave(main) -> 350 + 1190 - 100 =
     * 1440.  Both receive records now name the other sender. */
    static const uint64_t m0[] = {0, 0, 50, 50, 60, 350, 350, 1440};
    wild_case(100, true, UP_WILDCARD_FIFO, m0, 2, 1, 2);
}

TEST(any_source_preserve_keeps_the_match)
{
    wild_case(100, true, UP_WILDCARD_PRESERVE, NULL, 1, 2, 0);
}

TEST(receive_without_wildcard_is_not_rematched)
{
    wild_case(100, false, UP_WILDCARD_FIFO, NULL, 1, 2, 0);
}

TEST(any_source_lifo_takes_the_last_sent_before_the_post)
{
    /* Rank 0 posts at 500 -> 400, after both sends (50 and 350).  LIFO
     * takes the last sent before the post, rank 1's, which is the measured
     * match: nothing changes.  (m.2) lower: max(350, 400) = 400; Leave 400;
     * Enter 720 -> 410; rank 2's: max(50, 410) = 410; 410; 410 + 1190 -
     * 100 = 1500. */
    static const uint64_t m0[] = {0, 400, 400, 400, 410, 410, 410, 1500};
    wild_case(500, true, UP_WILDCARD_LIFO, m0, 1, 2, 0);
}

TEST(any_source_fifo_after_the_post)
{
    /* The same trace with FIFO: rank 2's message (sent first) goes to the
     * first receive: max(50, 400) = 400, then rank 1's: max(350, 410). */
    static const uint64_t m0[] = {0, 400, 400, 400, 410, 410, 410, 1500};
    wild_case(500, true, UP_WILDCARD_FIFO, m0, 2, 1, 2);
}

/* ---- RMA: fence, post/start/complete/wait, locks ------------------------- */

TEST(fence_is_an_n_to_n_collective_on_the_window)
{
    /* The trace of eq13_individual_collective with MPI_Win_fence
     * (RmaCollectiveBegin/End on a window of MPI_COMM_WORLD) instead of
     * MPI_Allreduce: upper, O = 10, eq. (13): 280 + (X_i - 320 - 10). */
    static const uint64_t E[3] = {100, 300, 200}, X[3] = {350, 345, 360}, x[3] = {300, 295, 310};
    char in[4096];
    up_comp_params p = t_params(10, UP_MODE_UPPER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    tg *g;
    unsigned i;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 3, NS, TG_RMA);
    for (i = 0; i < 3; i++) {
        tg_enter(g, i, 0, TG_MAIN);
        tg_enter(g, i, 10, TG_WORK);
        tg_leave(g, i, E[i], TG_WORK);
        tg_enter(g, i, E[i] + 10, TG_WIN_FENCE);
        CHECK(OTF2_EvtWriter_RmaCollectiveBegin(tg_writer(g, i), NULL, E[i] + 20) == OTF2_SUCCESS);
        CHECK(OTF2_EvtWriter_RmaCollectiveEnd(tg_writer(g, i), NULL, X[i], OTF2_COLLECTIVE_OP_BARRIER,
                                              OTF2_RMA_SYNC_LEVEL_PROCESS | OTF2_RMA_SYNC_LEVEL_MEMORY,
                                              TG_WIN, OTF2_UNDEFINED_UINT32, 0, 0) == OTF2_SUCCESS);
        tg_leave(g, i, X[i] + 10, TG_WIN_FENCE);
    }
    CHECK(tg_close(g) == 0);
    if (comp_load(in, "out", &p, &res, &out, NULL) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    for (i = 0; i < 3; i++) {
        uint64_t w[7] = {0, 0, E[i] - 20, E[i] - 20, E[i] - 20, x[i], x[i]};
        CHECK_TIMES(&out, i, w, 7);
    }
    CHECK_EQ(res.repairs[UP_REPAIR_collective_unpaired], 0);
    CHECK_EQ(res.repairs[UP_REPAIR_collective_incomplete], 0);
    CHECK_EQ(res.repairs[UP_REPAIR_unresolved_peer], 0);
    tr_free(&out);
    up_replay_result_free(&res);
}

static void group_sync(tg *g, unsigned rank, uint64_t t, OTF2_RmaSyncLevel level, OTF2_GroupRef grp)
{
    CHECK(OTF2_EvtWriter_RmaGroupSync(tg_writer(g, rank), NULL, t, level, TG_WIN, grp) == OTF2_SUCCESS);
}

TEST(pscw_start_waits_for_the_post_and_wait_for_the_complete)
{
    /* O = 10, lower.  Rank 0 (target): 0; work 10 -> 0, 300 -> 280;
     * MPI_Win_post 310..330 -> 280 (its RmaGroupSync at 320: the post);
     * Enter(MPI_Win_wait) 340 -> 280.  Rank 1 (origin): 0; Enter(MPI_Win_start)
     * 100 -> 90; its RmaGroupSync at 350 came after the post (320): it waited
     * since 100, so the measured 350 - 320 = 30 is reused (no overhead of
     * rank 1 since 320): 280 + 30 = 310; Leave 310; a put 370..390 -> 310;
     * Enter(MPI_Win_complete) 400 -> 310; its RmaGroupSync at 500 did not wait
     * for the post (400 > 320): local, 310 + 100 - 10 = 400; Leave 400;
     * Leave(main) 700 -> 400 + 190 - 10 = 580.  Rank 0's wait (RmaGroupSync at
     * 600) waited since 340 for the complete (500): 400 + (600 - 500) = 500;
     * Leave 500; Leave(main) 500 + 90 - 10 = 580.  Without the dependency it
     * would be a local 280 + 260 - 10 = 530. */
    static const uint64_t r0[] = {0, 0, 280, 280, 280, 280, 280, 500, 500, 580},
                          r1[] = {0, 90, 310, 310, 310, 310, 310, 310, 400, 400, 580};
    const OTF2_RmaSyncLevel ps = OTF2_RMA_SYNC_LEVEL_PROCESS,
                            pm = OTF2_RMA_SYNC_LEVEL_PROCESS | OTF2_RMA_SYNC_LEVEL_MEMORY;
    char in[4096];
    up_comp_params p = t_params(10, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    tg *g;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 2, NS, TG_RMA);
    tg_enter(g, 0, 0, TG_MAIN);
    tg_enter(g, 0, 10, TG_WORK);
    tg_leave(g, 0, 300, TG_WORK);
    tg_enter(g, 0, 310, TG_WIN_POST);
    group_sync(g, 0, 320, ps, TG_GROUP_OTHERS);
    tg_leave(g, 0, 330, TG_WIN_POST);
    tg_enter(g, 0, 340, TG_WIN_WAIT);
    group_sync(g, 0, 600, pm, TG_GROUP_OTHERS);
    tg_leave(g, 0, 610, TG_WIN_WAIT);
    tg_leave(g, 0, 700, TG_MAIN);
    tg_enter(g, 1, 0, TG_MAIN);
    tg_enter(g, 1, 100, TG_WIN_START);
    group_sync(g, 1, 350, ps, TG_GROUP_RANK0);
    tg_leave(g, 1, 360, TG_WIN_START);
    tg_enter(g, 1, 370, TG_PUT);
    CHECK(OTF2_EvtWriter_RmaPut(tg_writer(g, 1), NULL, 380, TG_WIN, 0, 64, 1) == OTF2_SUCCESS);
    tg_leave(g, 1, 390, TG_PUT);
    tg_enter(g, 1, 400, TG_WIN_COMPLETE);
    group_sync(g, 1, 500, pm, TG_GROUP_RANK0);
    tg_leave(g, 1, 510, TG_WIN_COMPLETE);
    tg_leave(g, 1, 700, TG_MAIN);
    CHECK(tg_close(g) == 0);
    if (comp_load(in, "out", &p, &res, &out, NULL) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    CHECK_TIMES(&out, 0, r0, 10);
    CHECK_TIMES(&out, 1, r1, 11);
    CHECK_EQ(res.repairs[UP_REPAIR_rma_unpaired], 0);
    CHECK_EQ(res.repairs[UP_REPAIR_unresolved_peer], 0);
    tr_free(&out);
    up_replay_result_free(&res);
}

static void lock_case(OTF2_LockType type, uint64_t want)
{
    /* O = 10, lower.  Ranks 1 and 2 lock rank 0's window.  Rank 1: 0;
     * MPI_Win_lock 100..120 (request at 110) -> 90; a put 130..150 -> 90;
     * Enter(MPI_Win_unlock) 160 -> 90; RmaReleaseLock 400 -> 90 + 240 - 10 =
     * 320 (no epoch before it); Leave 320; Leave(main) 1000 -> 900.  Rank 2:
     * 0; lock 200..220 (request 210) -> 190; Enter(unlock) 230 -> 190;
     * RmaReleaseLock at 600.  Exclusive: it requested (210) while rank 1 held
     * the lock until 400, so it waited; 600 - 400 = 200 is reused: 320 + 200 =
     * 520.  Shared: the epochs overlap, no dependency: local 190 + 370 - 10 =
     * 550. */
    uint64_t r2[] = {0, 190, 190, 190, 190, want, want, want + 390 - 10};
    static const uint64_t r1[] = {0, 90, 90, 90, 90, 90, 90, 90, 320, 320, 900};
    char in[4096];
    up_comp_params p = t_params(10, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    tg *g;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 3, NS, TG_RMA);
    tg_enter(g, 0, 0, TG_MAIN);
    tg_leave(g, 0, 1000, TG_MAIN);
    tg_enter(g, 1, 0, TG_MAIN);
    tg_enter(g, 1, 100, TG_WIN_LOCK);
    CHECK(OTF2_EvtWriter_RmaRequestLock(tg_writer(g, 1), NULL, 110, TG_WIN, 0, 0, type) == OTF2_SUCCESS);
    tg_leave(g, 1, 120, TG_WIN_LOCK);
    tg_enter(g, 1, 130, TG_PUT);
    CHECK(OTF2_EvtWriter_RmaPut(tg_writer(g, 1), NULL, 140, TG_WIN, 0, 64, 1) == OTF2_SUCCESS);
    tg_leave(g, 1, 150, TG_PUT);
    tg_enter(g, 1, 160, TG_WIN_UNLOCK);
    CHECK(OTF2_EvtWriter_RmaReleaseLock(tg_writer(g, 1), NULL, 400, TG_WIN, 0, 0) == OTF2_SUCCESS);
    tg_leave(g, 1, 410, TG_WIN_UNLOCK);
    tg_leave(g, 1, 1000, TG_MAIN);
    tg_enter(g, 2, 0, TG_MAIN);
    tg_enter(g, 2, 200, TG_WIN_LOCK);
    CHECK(OTF2_EvtWriter_RmaRequestLock(tg_writer(g, 2), NULL, 210, TG_WIN, 0, 0, type) == OTF2_SUCCESS);
    tg_leave(g, 2, 220, TG_WIN_LOCK);
    tg_enter(g, 2, 230, TG_WIN_UNLOCK);
    CHECK(OTF2_EvtWriter_RmaReleaseLock(tg_writer(g, 2), NULL, 600, TG_WIN, 0, 0) == OTF2_SUCCESS);
    tg_leave(g, 2, 610, TG_WIN_UNLOCK);
    tg_leave(g, 2, 1000, TG_MAIN);
    CHECK(tg_close(g) == 0);
    if (comp_load(in, "out", &p, &res, &out, NULL) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    CHECK_TIMES(&out, 1, r1, 11);
    CHECK_TIMES(&out, 2, r2, 8);
    tr_free(&out);
    up_replay_result_free(&res);
}

TEST(exclusive_lock_waits_for_the_previous_release) { lock_case(OTF2_LOCK_EXCLUSIVE, 520); }
TEST(shared_locks_do_not_wait_for_each_other) { lock_case(OTF2_LOCK_SHARED, 550); }

/* ---- threads: fork and join --------------------------------------------- */

TEST(thread_events_stay_inside_fork_and_join)
{
    /* O = 10, lower.  Master (location 0): Enter(main) 0, ThreadFork 100,
     * ThreadTeamBegin 110, two short work regions 120..150, ThreadTeamEnd 160,
     * ThreadJoin 300: eq. (1) gives 0, 90, 90, 90, 90, 90, 90, 90 and a local
     * join at 90 + 140 - 10 = 220.  The team starts once the fork record's
     * overhead is over, at 110 measured.  Thread (location 1): ThreadTeamBegin
     * 115 waited idle for the fork: fork_a + its measured distance from the
     * fork's end, 90 + (115 - 110) = 95; Enter(work) 120 -> 95 (the gap of 5
     * cannot lose O: a model limit); Leave(work) 280 -> 95 + 160 - 10 = 245;
     * ThreadTeamEnd 290 -> 245 (over at 300).  The join came after the
     * team's last end (300 measured), so the master waited: 245 + (300 -
     * 300) = 245, not 220; Leave(main) 400 -> 245 + 100 - 10 = 335. */
    static const uint64_t m0[] = {0, 90, 90, 90, 90, 90, 90, 90, 245, 335},
                          t1[] = {95, 95, 245, 245};
    char in[4096];
    tg *g;
    OTF2_EvtWriter *w0, *w1;
    up_comp_params p = t_params(10, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 2, NS, TG_OMP_TEAM);
    w0 = tg_writer(g, 0);
    w1 = tg_writer(g, 1);
    tg_enter(g, 0, 0, TG_MAIN);
    CHECK(OTF2_EvtWriter_ThreadFork(w0, NULL, 100, OTF2_PARADIGM_OPENMP, 2) == OTF2_SUCCESS);
    CHECK(OTF2_EvtWriter_ThreadTeamBegin(w0, NULL, 110, TG_COMM_TEAM) == OTF2_SUCCESS);
    tg_enter(g, 0, 120, TG_WORK);
    tg_leave(g, 0, 130, TG_WORK);
    tg_enter(g, 0, 140, TG_WORK);
    tg_leave(g, 0, 150, TG_WORK);
    CHECK(OTF2_EvtWriter_ThreadTeamEnd(w0, NULL, 160, TG_COMM_TEAM) == OTF2_SUCCESS);
    CHECK(OTF2_EvtWriter_ThreadJoin(w0, NULL, 300, OTF2_PARADIGM_OPENMP) == OTF2_SUCCESS);
    tg_leave(g, 0, 400, TG_MAIN);
    CHECK(OTF2_EvtWriter_ThreadTeamBegin(w1, NULL, 115, TG_COMM_TEAM) == OTF2_SUCCESS);
    tg_enter(g, 1, 120, TG_WORK);
    tg_leave(g, 1, 280, TG_WORK);
    CHECK(OTF2_EvtWriter_ThreadTeamEnd(w1, NULL, 290, TG_COMM_TEAM) == OTF2_SUCCESS);
    CHECK(tg_close(g) == 0);
    if (comp_load(in, "out", &p, &res, &out, NULL) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    CHECK_TIMES(&out, 0, m0, 10);
    CHECK_TIMES(&out, 1, t1, 4);
    CHECK_EQ(res.repairs[UP_REPAIR_thread_unpaired], 0);
    tr_free(&out);
    up_replay_result_free(&res);
}

/* ---- overhead records ----------------------------------------------------- */

TEST(buffer_flush_and_overhead_region_removed)
{
    /* O = 10.  0; Enter(work) 90; BufferFlush 90+50-10 = 130, its stop time
     * becomes 130 (duration removed); Leave(work): gap 550 loses the flush's
     * 500 -> 180; Enter(TRACE BUFFER FLUSH) 180+100-10 = 270; its Leave: the
     * whole region is removed -> 270; Enter(work) 360; Leave(work) 450;
     * Leave(main) 540.  Removed in all: 1600 - 540 = 1060. */
    static const uint64_t w[] = {0, 90, 130, 180, 270, 270, 360, 450, 540};
    char in[4096];
    tg *g;
    up_comp_params p = t_params(10, UP_MODE_UPPER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    uint64_t *rem;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 1, NS, 0);
    tg_enter(g, 0, 0, TG_MAIN);
    tg_enter(g, 0, 100, TG_WORK);
    tg_flush(g, 0, 150, 650);
    tg_leave(g, 0, 700, TG_WORK);
    tg_enter(g, 0, 800, TG_FLUSH_REGION);
    tg_leave(g, 0, 1300, TG_FLUSH_REGION);
    tg_enter(g, 0, 1400, TG_WORK);
    tg_leave(g, 0, 1500, TG_WORK);
    tg_leave(g, 0, 1600, TG_MAIN);
    CHECK(tg_close(g) == 0);
    if (comp_load(in, "out", &p, &res, &out, &rem) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    CHECK_TIMES(&out, 0, w, 9);
    if (out.locs[0].n > 2) {
        CHECK_EQ(out.locs[0].ev[2].kind, TR_FLUSH);
        CHECK_EQ(out.locs[0].ev[2].aux, 130); /* stop time */
    }
    CHECK_EQ(rem[0], 1060);
    free(rem);
    tr_free(&out);
    up_replay_result_free(&res);
}

/* Compensate `in` with O = o_ns in lower and in upper mode and compare
 * location `loc`'s first n output times with `lo` and `up`. */
static void check_lower_upper(const char *in, double o_ns, uint64_t loc, const uint64_t *lo,
                              const uint64_t *up, size_t n)
{
    int k;
    for (k = 0; k < 2; k++) {
        up_comp_params p = t_params(o_ns, k ? UP_MODE_UPPER : UP_MODE_LOWER,
                                    UP_COLLECTIVE_INDIVIDUAL);
        up_replay_result res;
        tr_trace out;
        if (comp_load(in, k ? "up" : "lo", &p, &res, &out, NULL) != 0) {
            CHECK(!"compensation failed");
            continue;
        }
        CHECK_TIMES(&out, loc, k ? up : lo, n);
        tr_free(&out);
        up_replay_result_free(&res);
    }
}

TEST(receiver_records_since_the_send_leave_comm_m_in_lower_not_upper)
{
    /* Two messages completed in one call (as in MPI_Waitall): the second
     * receive record is written after the first one's overhead.  O = 50.
     * Rank 0: Enter 100, sends at 200 and 300, Leave 400 -> 100, 150, 200,
     * 250.  Rank 1 entered at 0, so both are case (m.1).  recv0 at 500:
     * Comm_m = 500-200-50 = 250 -> 150+250 = 400.  recv1 at 600: Comm_m =
     * 600-300-50 = 250; in lower mode it also loses the O of recv0 (measured
     * after 300, on the interval): 200 -> max(200+200, 400) = 400, Leave 450.
     * Upper keeps it: 200+250 = 450, Leave 500. */
    static const uint64_t lo[] = {0, 400, 400, 450}, up[] = {0, 400, 450, 500};
    char in[4096];
    tg *g;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 2, NS, 0);
    tg_enter(g, 0, 100, TG_SEND);
    tg_send(g, 0, 200, 1, 0, 8);
    tg_send(g, 0, 300, 1, 1, 8);
    tg_leave(g, 0, 400, TG_SEND);
    tg_enter(g, 1, 0, TG_RECV);
    tg_recv(g, 1, 500, 0, 0, 8);
    tg_recv(g, 1, 600, 0, 1, 8);
    tg_leave(g, 1, 700, TG_RECV);
    CHECK(tg_close(g) == 0);
    check_lower_upper(in, 50, 1, lo, up, 4);
}

TEST(receiver_overhead_running_past_the_send_counts_in_part)
{
    /* O = 100.  Rank 0: Enter 0, send 200, Leave 400 -> 0, 100, 200.  Rank 1
     * enters at 150 (its first record keeps that time) and was paying for
     * that Enter until 250, after the send at 200: 50 of it lies on the
     * transfer.  recv at 500, (m.1): Comm_m = 500-200-100 = 200; lower
     * removes the 50 too: max(100+150, 150) = 250, Leave 250+100-100 = 250.
     * Upper keeps it: 300, 300. */
    static const uint64_t lo[] = {150, 250, 250}, up[] = {150, 300, 300};
    char in[4096];
    tg *g;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 2, NS, 0);
    tg_mpi_send(g, 0, 0, 200, 400, 1, 0, 8);
    tg_mpi_recv(g, 1, 150, 500, 600, 0, 0, 8);
    CHECK(tg_close(g) == 0);
    check_lower_upper(in, 100, 1, lo, up, 3);
}

/* n messages completed in one call, as in an MPI_Waitall with n requests.
 * O = 10.  Rank 0: Enter(MPI_Send) 0, sends at 10(i+1), Leave 10(n+1): every
 * gap is 10 and loses its O, so all of rank 0 is at 0.  Rank 1: Enter(Wait)
 * 0, receives at B + 100i with B = 10(n+1) + 1000 (after every send), Leave
 * B + 100n: all (m.1).  Lower, receive i: Comm_m = (B + 100i) - 10(i+1) -
 * 10 (the send's O on the path) - 10i (the O of receives 0..i-1, written
 * after the send) = B - 20 + 80i from send_a 0, later than the receive
 * before it.  Upper keeps the 10i: B - 20 + 90i.  Leave: + 100 - 10. */
static uint64_t waitall_trace(const char *in, unsigned n)
{
    tg *g = tg_open(in, 2, NS, 0);
    uint64_t b = 10 * (n + 1) + 1000;
    unsigned i;
    tg_enter(g, 0, 0, TG_SEND);
    for (i = 0; i < n; i++)
        tg_send(g, 0, 10 * (i + 1), 1, i, 8);
    tg_leave(g, 0, 10 * (n + 1), TG_SEND);
    tg_enter(g, 1, 0, TG_WAIT);
    for (i = 0; i < n; i++)
        tg_recv(g, 1, b + 100 * i, 0, i, 8);
    tg_leave(g, 1, b + 100 * n, TG_WAIT);
    CHECK(tg_close(g) == 0);
    return b;
}

TEST(overhead_sums_hold_past_32_records)
{
    /* 48 receives, B = 1490.  HIST 32 forgot the O of the oldest receives
     * and counted 320 instead of 10i from receive 32 on: receive 47 at
     * 1470 + 90*47 - 320 = 5380 in lower mode, a "lower" bound above the
     * truth, 1470 + 80*47 = 5230. */
    enum { N = 48 };
    uint64_t lo[N + 2], up[N + 2], b;
    char in[4096];
    unsigned i;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    b = waitall_trace(in, N);
    lo[0] = up[0] = 0;
    for (i = 0; i < N; i++) {
        lo[i + 1] = b - 20 + 80 * i;
        up[i + 1] = b - 20 + 90 * i;
    }
    lo[N + 1] = lo[N] + 90;
    up[N + 1] = up[N] + 90;
    CHECK_EQ(lo[N], 5230);
    check_lower_upper(in, 10, 1, lo, up, N + 2);
}

TEST(overhead_sums_past_the_history_stay_bounds)
{
    /* 5000 receives, 904 more than the 4096 records remembered.  Receive
     * i >= 4096 reaches past them: the oldest remembered is receive
     * i - 4096, and the forgotten O in [send, it) is at most all O before
     * it, 10 (Enter) + 10(i - 4096), less than the interval.  Lower takes
     * that most: 10 more than the truth (the Enter's O, which ended at 10,
     * before the send), so B - 30 + 80i, still below the truth; upper does
     * not use the sums in (m.1) and stays exact.  904 sums counted. */
    enum { N = 5000, K = 4096 };
    uint64_t *lo = malloc((N + 2) * sizeof *lo), *up = malloc((N + 2) * sizeof *up), b;
    char in[4096];
    unsigned i, k;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    b = waitall_trace(in, N);
    lo[0] = up[0] = 0;
    for (i = 0; i < N; i++) {
        lo[i + 1] = b - 20 + 80 * i - (i >= K ? 10 : 0);
        up[i + 1] = b - 20 + 90 * i;
    }
    lo[N + 1] = lo[N] + 90;
    up[N + 1] = up[N] + 90;
    check_lower_upper(in, 10, 1, lo, up, N + 2);
    for (k = 0; k < 2; k++) {
        up_comp_params p = t_params(10, k ? UP_MODE_UPPER : UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
        up_replay_result res;
        if (t_compensate(in, t_dir("out"), &p, &res, NULL) != UP_OK) {
            CHECK(!"compensation failed");
            continue;
        }
        CHECK_EQ(res.model_repairs[UP_MR_overhead_history], k ? 0 : N - K);
        up_replay_result_free(&res);
    }
    free(lo);
    free(up);
}

TEST(flush_before_a_record_with_its_time_is_removed_from_a_later_gap)
{
    /* The tracer's way: the Leave that filled the buffer took its time (200)
     * before the flush and is written after it.  O = 10.  0; Enter(work) 90;
     * BufferFlush 90+100-10 = 180, stop time 180; Leave(work) gap 0, which
     * does not overlap the flush -> 180; Enter(work): its gap (200, 750]
     * overlaps the flush [200, 700] by 500, so it loses 10 + 500 -> 220;
     * Leave(work) 310; Leave(main) 350.  Removed 550, nothing clamped. */
    static const uint64_t w[] = {0, 90, 180, 180, 220, 310, 350};
    char in[4096];
    tg *g;
    up_comp_params p = t_params(10, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    uint64_t *rem;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 1, NS, 0);
    tg_enter(g, 0, 0, TG_MAIN);
    tg_enter(g, 0, 100, TG_WORK);
    tg_flush(g, 0, 200, 700);
    tg_leave(g, 0, 200, TG_WORK);
    tg_enter(g, 0, 750, TG_WORK);
    tg_leave(g, 0, 850, TG_WORK);
    tg_leave(g, 0, 900, TG_MAIN);
    CHECK(tg_close(g) == 0);
    if (comp_load(in, "out", &p, &res, &out, &rem) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    CHECK_TIMES(&out, 0, w, 7);
    CHECK_EQ(rem[0], 550);
    CHECK_EQ(res.model_repairs[UP_MR_overhead_clamped], 0);
    free(rem);
    tr_free(&out);
    up_replay_result_free(&res);
}

TEST(flush_written_with_a_send_time_is_on_the_message_path)
{
    /* The send record filled the buffer: its time (150) was taken before
     * the flush [150, 1150], and the message left after it (issue 20, model
     * error 2).  O = 0, a message of 0 bytes (no copy cost).  Rank 0: Enter
     * main 0, Enter(MPI_Send) 100, BufferFlush 150, send 150, Leave 1200 ->
     * 200 (its gap loses the flush), Leave main 1300 -> 300.  Rank 1 waits
     * in MPI_Recv from 50; the message arrives at 1170, 20 after the flush
     * ended: (m.1) Comm_m = 1170 - 150 - 1000 (the flush on the path) = 20,
     * recv 150 + 20 = 170 (it was 1170: the receiver still waited for the
     * flush), Leave 180, Leave main 300.  Upper the same (the receiver has
     * no records after the send). */
    static const uint64_t r1[] = {0, 50, 170, 180, 300}, r0[] = {0, 100, 150, 150, 200, 300};
    char in[4096];
    tg *g;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 2, NS, 0);
    tg_enter(g, 0, 0, TG_MAIN);
    tg_enter(g, 0, 100, TG_SEND);
    tg_flush(g, 0, 150, 1150);
    tg_send(g, 0, 150, 1, 0, 0);
    tg_leave(g, 0, 1200, TG_SEND);
    tg_leave(g, 0, 1300, TG_MAIN);
    tg_enter(g, 1, 0, TG_MAIN);
    tg_mpi_recv(g, 1, 50, 1170, 1180, 0, 0, 0);
    tg_leave(g, 1, 1300, TG_MAIN);
    CHECK(tg_close(g) == 0);
    check_lower_upper(in, 0, 1, r1, r1, 5);
    check_lower_upper(in, 0, 0, r0, r0, 6);
}

TEST(function_regions_use_the_fn_kinds)
{
    /* enter = leave = 10 for the MPI region, fn_enter = 30 and fn_leave = 40
     * for the program's own regions (paradigm USER).  0; Enter(MPI_Send)
     * 100-30 = 70; its Leave 70+100-10 = 160; Enter(work) 160+100-10 = 250;
     * Leave(work) 250+100-30 = 320; Leave(main) 320+100-40 = 380. */
    static const uint64_t w[] = {0, 70, 160, 250, 320, 380};
    char in[4096];
    tg *g;
    up_comp_params p = t_params(10, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    uint64_t *rem;
    p.overhead_ns[UP_RK_FN_ENTER] = 30;
    p.overhead_ns[UP_RK_FN_LEAVE] = 40;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 1, NS, 0);
    tg_enter(g, 0, 0, TG_MAIN);
    tg_enter(g, 0, 100, TG_SEND);
    tg_leave(g, 0, 200, TG_SEND);
    tg_enter(g, 0, 300, TG_WORK);
    tg_leave(g, 0, 400, TG_WORK);
    tg_leave(g, 0, 500, TG_MAIN);
    CHECK(tg_close(g) == 0);
    if (comp_load(in, "out", &p, &res, &out, &rem) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    CHECK_TIMES(&out, 0, w, 6);
    CHECK_EQ(rem[0], 120);
    free(rem);
    tr_free(&out);
    up_replay_result_free(&res);
}

TEST(poll_regions_use_the_poll_kinds)
{
    /* enter = leave = 10, other = 10; poll_enter = 4, poll_leave = 6 for
     * MPI_Test (and MPI_Testany, ..., MPI_Iprobe: UP_REGION_POLL).  0;
     * Enter(MPI_Test) 100-10 = 90; MpiRequestTest 90+20-4 = 106; Leave
     * 106+20-10 = 116; Enter(MPI_Send) 116+60-6 = 170; Leave 170+100-10 =
     * 260; Leave(main) 260+100-10 = 350.  Removed 10+4+10+6+10+10 = 50. */
    static const uint64_t w[] = {0, 90, 106, 116, 170, 260, 350};
    char in[4096];
    tg *g;
    up_comp_params p = t_params(10, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    uint64_t *rem;
    p.overhead_ns[UP_RK_POLL_ENTER] = 4;
    p.overhead_ns[UP_RK_POLL_LEAVE] = 6;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 1, NS, 0);
    tg_enter(g, 0, 0, TG_MAIN);
    tg_enter(g, 0, 100, TG_TEST);
    tg_request_test(g, 0, 120, 1);
    tg_leave(g, 0, 140, TG_TEST);
    tg_enter(g, 0, 200, TG_SEND);
    tg_leave(g, 0, 300, TG_SEND);
    tg_leave(g, 0, 400, TG_MAIN);
    CHECK(tg_close(g) == 0);
    if (comp_load(in, "out", &p, &res, &out, &rem) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    CHECK_TIMES(&out, 0, w, 7);
    CHECK_EQ(rem[0], 50);
    free(rem);
    tr_free(&out);
    up_replay_result_free(&res);
}

TEST(metric_records_have_their_own_overhead)
{
    /* O = 10 for every kind but metric = 100 (the --cpu-time clock read).
     * Gaps lose the O of the record before them: 0; Metric 100-10 = 90;
     * Enter(work) 90+200-100 = 190; Metric 190+200-10 = 380; Leave(work)
     * 380+200-100 = 480; Leave(main) 480+100-10 = 570. */
    static const uint64_t w[] = {0, 90, 190, 380, 480, 570};
    char in[4096];
    tg *g;
    up_comp_params p = t_params(10, UP_MODE_UPPER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    uint64_t *rem;
    p.overhead_ns[UP_RK_METRIC] = 100;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 1, NS, 0);
    tg_enter(g, 0, 0, TG_MAIN);
    tg_metric(g, 0, 100, 5000);
    tg_enter(g, 0, 300, TG_WORK);
    tg_metric(g, 0, 500, 5400);
    tg_leave(g, 0, 700, TG_WORK);
    tg_leave(g, 0, 800, TG_MAIN);
    CHECK(tg_close(g) == 0);
    if (comp_load(in, "out", &p, &res, &out, &rem) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    CHECK_TIMES(&out, 0, w, 6);
    CHECK_EQ(rem[0], 230);
    free(rem);
    tr_free(&out);
    up_replay_result_free(&res);
}

/* ---- repairs -------------------------------------------------------------- */

TEST(clock_condition_repaired)
{
    /* The receive is measured 100 ns before its send (clock skew).  With O = 0
     * and no copy time: (m.1) (300 <= 510), Comm_m = max(0, 400-500) = 0,
     * recv_a = max(500, 300) = 500: the receive moves to its send; counted.
     * With C = 10 the minimum transfer 2C also applies: 520.  One record
     * moved; the largest shift is the measured violation, send + 2C - recv:
     * 100, then 120. */
    char in[4096];
    tg *g;
    int k;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 2, NS, 0);
    tg_mpi_send(g, 0, 490, 500, 510, 1, 0, 100);
    tg_mpi_recv(g, 1, 300, 400, 410, 0, 0, 100);
    CHECK(tg_close(g) == 0);
    for (k = 0; k < 2; k++) {
        up_comp_params p = t_params(0, UP_MODE_UPPER, UP_COLLECTIVE_INDIVIDUAL);
        up_replay_result res;
        tr_trace out;
        uint64_t want = k ? 520 : 500;
        uint64_t r[3] = {300, want, want + 10};
        if (k)
            set_copy(&p, 0.1);
        if (comp_load(in, k ? "out1" : "out0", &p, &res, &out, NULL) != 0) {
            CHECK(!"compensation failed");
            continue;
        }
        CHECK_TIMES(&out, 1, r, 3);
        CHECK_EQ(res.model_repairs[UP_MR_clock_condition], 1);
        CHECK_EQ(res.model_repairs[UP_MR_min_transfer], k ? 1 : 0);
        CHECK_EQ(res.moved, 1);
        CHECK_EQ(res.max_shift, k ? 120 : 100);
        tr_free(&out);
        up_replay_result_free(&res);
    }
}

TEST(unmatched_messages_repaired_not_fatal)
{
    /* rank 0 sends tag 1 that nobody receives; rank 1 receives tag 2 that
     * nobody sends: the receive is released and timed as a local record
     * (O = 0: unchanged), both are counted, every record is written. */
    static const uint64_t r0[] = {10, 20, 30, 40}, r1[] = {0, 15, 25, 35, 45};
    char in[4096];
    tg *g;
    up_comp_params p = t_params(0, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 2, NS, 0);
    tg_mpi_send(g, 0, 10, 20, 30, 1, 1, 8);
    tg_enter(g, 0, 40, TG_WORK);
    tg_enter(g, 1, 0, TG_MAIN);
    tg_mpi_recv(g, 1, 15, 25, 35, 0, 2, 8);
    tg_leave(g, 1, 45, TG_MAIN);
    CHECK(tg_close(g) == 0);
    if (comp_load(in, "out", &p, &res, &out, NULL) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    CHECK_TIMES(&out, 0, r0, 4);
    CHECK_TIMES(&out, 1, r1, 5);
    CHECK_EQ(res.repairs[UP_REPAIR_unmatched_recv], 1);
    CHECK_EQ(res.repairs[UP_REPAIR_unmatched_send], 1);
    CHECK_EQ(res.events, 9);
    tr_free(&out);
    up_replay_result_free(&res);
}

TEST(receive_before_send_in_a_cycle_is_released)
{
    /* Both ranks receive first and send afterwards (impossible in a real run:
     * a broken trace).  The replay releases the earliest receive, its send
     * comes later and is counted as late; nothing deadlocks. */
    char in[4096];
    tg *g;
    up_comp_params p = t_params(0, UP_MODE_UPPER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 2, NS, 0);
    tg_mpi_recv(g, 0, 100, 110, 120, 1, 0, 8);
    tg_mpi_send(g, 0, 130, 140, 150, 1, 0, 8);
    tg_mpi_recv(g, 1, 105, 115, 125, 0, 0, 8);
    tg_mpi_send(g, 1, 135, 145, 155, 0, 0, 8);
    CHECK(tg_close(g) == 0);
    if (comp_load(in, "out", &p, &res, &out, NULL) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    CHECK_EQ(res.events, 12);
    CHECK_EQ(res.repairs[UP_REPAIR_unmatched_recv], 1);
    CHECK_EQ(res.repairs[UP_REPAIR_late_send], 1);
    CHECK_EQ(out.locs[0].n, 6);
    CHECK_EQ(out.locs[1].n, 6);
    /* the other receive matched the released side's send: not before it */
    CHECK(t_ev(&out, 1, 1) >= t_ev(&out, 0, 4));
    tr_free(&out);
    up_replay_result_free(&res);
}

TEST(collective_with_missing_member_released)
{
    /* rank 2's trace ends before the barrier the others enter */
    char in[4096];
    tg *g;
    unsigned i;
    up_comp_params p = t_params(5, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 3, NS, 0);
    for (i = 0; i < 2; i++)
        tg_mpi_coll(g, i, TG_BARRIER, 100 + i, 110 + i, 200, 210, OTF2_COLLECTIVE_OP_BARRIER,
                    OTF2_UNDEFINED_UINT32, 0, 0);
    tg_enter(g, 2, 50, TG_WORK);
    CHECK(tg_close(g) == 0);
    if (comp_load(in, "out", &p, &res, &out, NULL) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    CHECK_EQ(res.events, 9);
    CHECK_EQ(res.repairs[UP_REPAIR_collective_incomplete], 1);
    tr_free(&out);
    up_replay_result_free(&res);
}

/* ---- identity --------------------------------------------------------------- */

TEST(receiver_copy_no_longer_than_its_measured_gap)
{
    /* O = 0, C = 0.1 ns/byte * 1000 = 100.  Rank 0: Enter(Send) 0, send 10,
     * Leave 20.  Rank 1 works until 500, enters MPI_Recv at 500 and has the
     * message 5 later: it was copied while rank 1 was elsewhere (in MPI
     * progress), so eq. (8)'s enter.recv_a + C is at most enter.recv_a + 5.
     * (m.2) in every mode: lower max(10 + 2C, 500 + 5) = 505; upper and
     * network the same.  With no overhead the output is the input; before,
     * the receive came at 600 and the Leave at 605. */
    static const uint64_t r1[] = {0, 500, 500, 505, 510};
    unsigned k;
    char in[4096];
    tg *g;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 2, NS, 0);
    tg_mpi_send(g, 0, 0, 10, 20, 1, 0, 1000);
    tg_enter(g, 1, 0, TG_WORK);
    tg_leave(g, 1, 500, TG_WORK);
    tg_mpi_recv(g, 1, 500, 505, 510, 0, 0, 1000);
    CHECK(tg_close(g) == 0);
    for (k = 0; k < 3; k++) {
        up_comp_params p = t_params(0, k == 0 ? UP_MODE_LOWER : k == 1 ? UP_MODE_UPPER : UP_MODE_NETWORK,
                                    UP_COLLECTIVE_INDIVIDUAL);
        up_replay_result res;
        tr_trace out;
        set_copy(&p, 0.1);
        if (comp_load(in, "out", &p, &res, &out, NULL) != 0) {
            CHECK(!"compensation failed");
            continue;
        }
        CHECK_TIMES(&out, 1, r1, 5);
        CHECK_EQ(res.end_a - res.start_a, res.end_m - res.start_m);
        tr_free(&out);
        up_replay_result_free(&res);
    }
}

TEST(identity_zero_overhead_upper_individual)
{
    /* A consistent 4-rank trace with every pattern the model knows: with
     * O = 0, no copy time, --mode upper --collective individual, every
     * output timestamp equals its input timestamp. */
    char in[4096], outd[4096];
    tg *g;
    tr_trace a, b;
    up_comp_params p = t_params(0, UP_MODE_UPPER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    unsigned r, it;
    size_t i, k;
    uint64_t t;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    snprintf(outd, sizeof outd, "%s", t_dir("out"));
    g = tg_open(in, 4, NS, TG_SPARSE_IDS);
    for (r = 0; r < 4; r++) {
        tg_enter(g, r, 0, TG_MAIN);
        tg_enter(g, r, 10 + r, TG_INIT);
        tg_leave(g, r, 1000, TG_INIT);
    }
    t = 1000;
    for (it = 0; it < 5; it++) {
        uint64_t base = t + 100;
        for (r = 0; r < 4; r++) { /* unequal work, then a ring exchange */
            uint64_t w = base + 50 * ((r + it) % 4);
            tg_enter(g, r, base + 1, TG_WORK);
            tg_leave(g, r, w, TG_WORK);
            tg_mpi_send(g, r, w + 5, w + 10, w + 20, (r + 1) % 4, it, 64);
        }
        for (r = 0; r < 4; r++) {
            unsigned src = (r + 3) % 4;
            uint64_t ws = base + 50 * ((src + it) % 4) + 10;
            uint64_t e = base + 50 * ((r + it) % 4) + 25;
            uint64_t done = (e > ws ? e : ws) + 30;
            tg_mpi_recv(g, r, e, done, done + 5, src, it, 64);
        }
        for (r = 0; r < 4; r++) /* a barrier, a bcast, a reduce */
            tg_mpi_coll(g, r, TG_BARRIER, base + 400 + r, base + 401 + r, base + 500 + 2 * r,
                        base + 510 + 2 * r, OTF2_COLLECTIVE_OP_BARRIER, OTF2_UNDEFINED_UINT32, 0, 0);
        for (r = 0; r < 4; r++)
            tg_mpi_coll(g, r, TG_BCAST, base + 600 + 3 * r, base + 601 + 3 * r,
                        base + (r ? 700 + r : 620), base + (r ? 710 + r : 630),
                        OTF2_COLLECTIVE_OP_BCAST, 0, r ? 0 : 300, r ? 100 : 0);
        for (r = 0; r < 4; r++)
            tg_mpi_coll(g, r, TG_REDUCE, base + 800 + 7 * r, base + 801 + 7 * r,
                        base + (r ? 820 + 7 * r : 900), base + (r ? 830 + 7 * r : 910),
                        OTF2_COLLECTIVE_OP_REDUCE, 0, r ? 8 : 0, r ? 0 : 24);
        t = base + 1000;
    }
    for (r = 0; r < 4; r++) {
        tg_enter(g, r, t + 10 * r, TG_FINALIZE);
        tg_leave(g, r, t + 100, TG_FINALIZE);
        tg_leave(g, r, t + 110, TG_MAIN);
    }
    CHECK(tg_close(g) == 0);
    if (t_compensate(in, outd, &p, &res, NULL) != UP_OK || tr_load(in, &a) || tr_load(outd, &b)) {
        CHECK(!"compensation failed");
        return;
    }
    CHECK_EQ(a.nlocs, b.nlocs);
    for (i = 0; i < a.nlocs && i < b.nlocs; i++) {
        CHECK_EQ(a.locs[i].id, b.locs[i].id);
        CHECK_EQ(a.locs[i].n, b.locs[i].n);
        for (k = 0; k < a.locs[i].n && k < b.locs[i].n; k++)
            if (a.locs[i].ev[k].t != b.locs[i].ev[k].t || a.locs[i].ev[k].kind != b.locs[i].ev[k].kind) {
                t_fail(__FILE__, __LINE__, "location %zu event %zu: %llu became %llu", i, k,
                       (unsigned long long)a.locs[i].ev[k].t, (unsigned long long)b.locs[i].ev[k].t);
                break;
            }
    }
    CHECK_EQ(repairs_but(&res, NULL), 0);
    /* the window is marked: end of MPI_Init (1000) to the last MPI_Finalize */
    CHECK(res.window_marked);
    CHECK_EQ(res.start_m, 1000);
    CHECK_EQ(res.end_m, t + 30);
    CHECK_EQ(res.end_a, res.end_m);
    tr_free(&a);
    tr_free(&b);
    up_replay_result_free(&res);
}

/* Reports list the repairs in the order the kinds were added, the engine's
 * and the models' interleaved (up_repair_kind.before): the keys of every
 * JSON report and the order of the summary's lines.  Compensation and
 * simulation declare the same kinds, so that their reports name the same
 * keys. */
TEST(repairs_listed_in_the_order_of_the_reports)
{
    static const char *const want[] = {
        "clock_condition", "unmatched_recv", "unmatched_send", "late_send", "unresolved_peer",
        "collective_incomplete", "collective_unpaired", "collective_clock", "decreasing_time",
        "time_out_of_range", "time_spike", "damaged_files", "event_count", "duplicate_definitions",
        "sync_unposted", "thread_unpaired", "rma_unpaired", "dev_issue_unpaired",
        "dev_activity_unpaired", "dev_wait_released", "omp_barrier_released",
        "omp_barrier_unordered", "omp_lock_released", "omp_task_unpaired", "pthread_unpaired",
        "pthread_barrier_released", "pthread_barrier_local", "min_transfer",
        "overhead_clamped",
        "output_clamped", "transfer_capped", "overhead_history", "progress_waited",
        "progress_unknown",
    };
    const up_model_ops *ops[2] = {up_comp_ops(), up_sim_ops()};
    up_repair_line rl[UP_REPAIR_LINES_MAX];
    up_replay_result r;
    size_t i, k, n;
    for (i = 0; i < 2; i++) {
        memset(&r, 0, sizeof r);
        r.model_kinds = ops[i]->repair_kinds;
        r.nmodel_kinds = ops[i]->nrepair_kinds;
        for (k = 0; k < r.nmodel_kinds; k++)
            r.model_repairs[k] = 100 + k;
        for (k = 0; k < UP_REPAIR_COUNT; k++)
            r.repairs[k] = k;
        n = up_replay_repairs(&r, rl);
        CHECK_EQ(n, sizeof want / sizeof *want);
        for (k = 0; k < n && k < sizeof want / sizeof *want; k++) {
            uint64_t c = rl[k].n; /* the count says which kind it is */
            CHECK(!strcmp(rl[k].kind->name, want[k]));
            if (c >= 100)
                CHECK(rl[k].kind == &r.model_kinds[c - 100]);
            else
                CHECK(!strcmp(rl[k].kind->name, up_repair_name((unsigned)c)));
        }
    }
}

/* The window of a program traced without MPI: the tracer's marks (trace.h)
 * open and close it as MPI_Init and MPI_Finalize do.  Regions of 5 ns, one
 * every 10 ns from 100: before (100-105), UNPERTURB window begin (110-115),
 * work (120-125), UNPERTURB window end (130-135), after (140-145).  The
 * window is 115 (the Leave of the begin mark) .. 130 (the Enter of the end
 * mark); the two marks are overhead, removed whole: with no overhead per
 * record the begin mark's 5 ns go, so the approximated window is 110 ..
 * 125, 15 ns as measured. */
TEST(window_marked_without_mpi)
{
    static const char *const names[] = {"before", UP_WINDOW_BEGIN, "work", UP_WINDOW_END, "after"};
    char in[4096], out[4096];
    up_comp_params p = t_params(0, UP_MODE_NETWORK, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    snprintf(out, sizeof out, "%s", t_dir("out"));
    CHECK(t_write_named_regions(in, names, 5, 5, 100, "node", "Master thread") == 0);
    if (t_compensate(in, out, &p, &res, NULL) != UP_OK) {
        CHECK(!"compensation failed");
        return;
    }
    CHECK(res.window_marked);
    CHECK_EQ(res.start_m, 115);
    CHECK_EQ(res.end_m, 130);
    CHECK_EQ(res.start_a, 110);
    CHECK_EQ(res.end_a, 125);
    up_replay_result_free(&res);
}
