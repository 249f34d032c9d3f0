/*
 * test_engine.c - the replay engine's own bookkeeping (src/replay/engine.c):
 * collective instances and thread teams on communicators whose group is one
 * location per location (MPI_COMM_SELF), communicators used by locations
 * that are not their members, definitions that list a location twice, and
 * members that never come.  The traces are written with OTF2's writer
 * (tracegen.c); every expected time is worked out by hand in the comments.
 * Clock: 1 tick = 1 ns; "O" is the overhead per record (docs/models.md).
 *
 * A location runs at least SLICE_MIN = 512 records before it yields
 * (docs/design.md, "Scheduling"): the traces put 255 Enter/Leave pairs
 * before the interesting records, so that a slice ends inside them and
 * another location runs in between.
 */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "tutil.h"
#include "analysis/profile.h"
#include "model/simulate.h"
#include "tracegen/tracegen.h"

#define NS 1000000000ull
#define NFILL 255 /* filler Enter/Leave pairs: 510 records */

/* 255 pairs Enter(work) at b+100+50k, Leave(work) at b+120+50k (k = 0..254;
 * the last Leave at b+12820).  With O = 10 eq. (1) gives Enter_k at
 * b+100+30k, Leave_k at b+110+30k (the first record keeps its time; each
 * gap of 20 and 30 loses 10), so the last Leave is at b+7730. */
static void fill(tg *g, unsigned r, uint64_t b)
{
    unsigned k;
    for (k = 0; k < NFILL; k++) {
        tg_enter(g, r, b + 100 + 50 * k, TG_WORK);
        tg_leave(g, r, b + 120 + 50 * k, TG_WORK);
    }
}

/* Expected times of fill(): compensated with O = 10 (comp) or as measured. */
static void fill_want(uint64_t *w, uint64_t b, int comp)
{
    unsigned k;
    for (k = 0; k < NFILL; k++) {
        w[2 * k] = b + 100 + (comp ? 30 : 50) * k;
        w[2 * k + 1] = b + (comp ? 110 + 30 * k : 120 + 50 * k);
    }
}

static int comp_load(const char *in, const char *tag, const up_comp_params *p,
                     up_replay_result *res, tr_trace *out)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", t_dir(tag));
    if (t_compensate(in, dir, p, res, NULL) != UP_OK)
        return -1;
    return tr_load(dir, out);
}

static unsigned repairs_total(const up_replay_result *res)
{
    up_repair_line rl[UP_REPAIR_LINES_MAX];
    size_t k, nrl = up_replay_repairs(res, rl);
    unsigned n = 0;
    for (k = 0; k < nrl; k++)
        if (rl[k].kind->fix)
            n += (unsigned)rl[k].n;
    return n;
}

/* ---- MPI_COMM_SELF: one instance per location --------------------------- */

/* Two ranks, each: the filler, then a collective on MPI_COMM_SELF:
 *   blocking:    Enter(Barrier) b+12900, CollBegin b+12910,
 *                CollEnd b+13000+d, Leave b+13010+d
 *   nonblocking: Enter(Iallreduce) b+12900, Request b+12910, Leave b+12920,
 *                Enter(Wait) b+12950, Complete b+13000+d, Leave b+13010+d
 * with b = 0, d = 0 on rank 0 and b = 1000, d = 100 on rank 1.  Rank 0's
 * slice ends right after it joined its instance (record 512); rank 1 runs
 * its whole collective before rank 0 comes back. */
static void write_self(const char *dir, int nonblocking)
{
    tg *g = tg_open(dir, 2, NS, 0);
    unsigned r;
    for (r = 0; r < 2; r++) {
        uint64_t b = 1000 * r, d = 100 * r;
        fill(g, r, b);
        if (!nonblocking) {
            tg_enter(g, r, b + 12900, TG_BARRIER);
            tg_coll_begin(g, r, b + 12910);
            tg_coll_end_comm(g, r, b + 13000 + d, OTF2_COLLECTIVE_OP_BARRIER, TG_COMM_SELF,
                             OTF2_UNDEFINED_UINT32, 0, 0);
            tg_leave(g, r, b + 13010 + d, TG_BARRIER);
        } else {
            tg_enter(g, r, b + 12900, TG_ALLREDUCE);
            CHECK(OTF2_EvtWriter_NonBlockingCollectiveRequest(tg_writer(g, r), NULL, b + 12910,
                                                              7) == OTF2_SUCCESS);
            tg_leave(g, r, b + 12920, TG_ALLREDUCE);
            tg_enter(g, r, b + 12950, TG_WAIT);
            CHECK(OTF2_EvtWriter_NonBlockingCollectiveComplete(
                      tg_writer(g, r), NULL, b + 13000 + d, OTF2_COLLECTIVE_OP_ALLREDUCE,
                      TG_COMM_SELF, OTF2_UNDEFINED_UINT32, 8, 8, 7) == OTF2_SUCCESS);
            tg_leave(g, r, b + 13010 + d, TG_WAIT);
        }
    }
    CHECK(tg_close(g) == 0);
}

/* Compensated, O = 10, in every mode and both collective models.  The
 * filler ends at b+7730 (fill()).  A collective of one member waits for
 * nobody, so its end is a local record.
 *   blocking: Enter b+7730+80-10 = b+7800; CollBegin b+7800; eq. (12) and
 *     (13) with j = k = l = the member itself: b+7800 + (b+13000+d -
 *     (b+12910) - O_in 10) = b+7880+d; Leave b+7880+d.
 *   nonblocking: Enter b+7800, Request b+7800, Leave b+7800, Enter(Wait)
 *     b+7800+30-10 = b+7820; the member entered its Wait after its own
 *     request (m.2): the complete is local, b+7820+50+d-10 = b+7860+d;
 *     Leave b+7860+d. */
static void self_compensated(int nonblocking)
{
    static const up_mode modes[] = {UP_MODE_LOWER, UP_MODE_UPPER, UP_MODE_NETWORK};
    static const up_collective colls[] = {UP_COLLECTIVE_INDIVIDUAL, UP_COLLECTIVE_SHARED};
    char in[4096];
    unsigned m, c, r;
    size_t n = 2 * NFILL + (nonblocking ? 6 : 4);
    snprintf(in, sizeof in, "%s", t_dir("in"));
    write_self(in, nonblocking);
    for (m = 0; m < 3; m++)
        for (c = 0; c < 2; c++) {
            up_comp_params p = t_params(10, modes[m], colls[c]);
            up_replay_result res;
            tr_trace out;
            char tag[32];
            snprintf(tag, sizeof tag, "out-%u-%u", m, c);
            if (comp_load(in, tag, &p, &res, &out) != 0) {
                CHECK(!"compensation failed");
                continue;
            }
            for (r = 0; r < 2; r++) {
                uint64_t w[2 * NFILL + 6], b = 1000 * r, d = 100 * r, *t = w + 2 * NFILL;
                fill_want(w, b, 1);
                if (!nonblocking) {
                    t[0] = t[1] = b + 7800;
                    t[2] = t[3] = b + 7880 + d;
                } else {
                    t[0] = t[1] = t[2] = b + 7800;
                    t[3] = b + 7820;
                    t[4] = t[5] = b + 7860 + d;
                }
                CHECK_TIMES(&out, r, w, n);
            }
            CHECK_EQ(res.events, 2 * n);
            CHECK_EQ(repairs_total(&res), 0);
            tr_free(&out);
            up_replay_result_free(&res);
        }
}

/* The trace of self_compensated, simulated on a machine without overheads
 * (the archive has no calibration: O = 0) and cpu_ratio 1: compute keeps its
 * measured time, an MPI call with a communication record takes none of its
 * measured time, and a collective of one member leaves when it entered.
 *   blocking: Enter b+12900, CollBegin b+12900, CollEnd b+12900, Leave b+12900
 *   nonblocking: Enter b+12900, Request b+12900, Leave b+12900, Enter(Wait)
 *     b+12900+30 = b+12930 (the compute between the calls), Complete
 *     max(clock b+12930, exit = the request b+12900) = b+12930, Leave b+12930. */
static void self_simulated(int nonblocking)
{
    char in[4096], o[4200];
    unsigned r;
    size_t n = 2 * NFILL + (nonblocking ? 6 : 4);
    up_sim_summary s;
    up_err err = {0};
    tr_trace out;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    write_self(in, nonblocking);
    snprintf(o, sizeof o, "%s/sim", in);
    if (t_simulate_wall(in, o, &s, &err) != UP_OK) {
        t_fail(__FILE__, __LINE__, "simulate: %s", err.msg);
        return;
    }
    CHECK(!s.overhead_known);
    CHECK_EQ(repairs_total(&s.res), 0);
    up_sim_summary_free(&s);
    if (tr_load(o, &out) != 0) {
        CHECK(!"cannot load the simulated trace");
        return;
    }
    for (r = 0; r < 2; r++) {
        uint64_t w[2 * NFILL + 6], b = 1000 * r, *t = w + 2 * NFILL;
        fill_want(w, b, 0);
        if (!nonblocking) {
            t[0] = t[1] = t[2] = t[3] = b + 12900;
        } else {
            t[0] = t[1] = t[2] = b + 12900;
            t[3] = t[4] = t[5] = b + 12930;
        }
        CHECK_TIMES(&out, r, w, n);
    }
    tr_free(&out);
}

/* report's analysis (the identity model) on the same trace: a collective of
 * one member has nobody to wait for, so no wait state. */
static void self_profiled(int nonblocking)
{
    char in[4096];
    up_trace *t = NULL;
    up_profile p;
    up_err err = {0};
    snprintf(in, sizeof in, "%s", t_dir("in"));
    write_self(in, nonblocking);
    if (up_trace_open(in, &t, &err) != UP_OK || up_profile_run(t, NULL, &p, &err) != UP_OK) {
        t_fail(__FILE__, __LINE__, "profile: %s", err.msg);
        up_trace_close(t);
        return;
    }
    CHECK_EQ(up_profile_wait_total(&p, UP_WS_WAIT_BARRIER), 0);
    CHECK_EQ(up_profile_wait_total(&p, UP_WS_WAIT_NXN), 0);
    CHECK_EQ(p.repairs[UP_REPAIR_collective_incomplete], 0);
    CHECK_EQ(p.repairs[UP_REPAIR_unresolved_peer], 0);
    up_profile_free(&p);
    up_trace_close(t);
}

TEST(self_barrier_instances_are_per_location) { self_compensated(0); }
TEST(self_nonblocking_instances_are_per_location) { self_compensated(1); }
TEST(self_barrier_simulated) { self_simulated(0); }
TEST(self_nonblocking_simulated) { self_simulated(1); }
TEST(self_barrier_profiled) { self_profiled(0); }
TEST(self_nonblocking_profiled) { self_profiled(1); }

/* A thread team on MPI_COMM_SELF (a team of one: the master alone), on two
 * locations.  Location r (b = 1000 r): Enter(main) b, ThreadFork b+10,
 * ThreadTeamBegin b+20, 254 pairs Enter(work) b+100+50k, Leave(work)
 * b+120+50k, ThreadTeamEnd b+12800, ThreadJoin b+12900, Leave(main)
 * b+13000.  Location 0's slice ends after its ThreadTeamEnd (record 512);
 * location 1 then begins and ends its own team before location 0 joins.
 * O = 10, lower: b, b, b (the team begins with the fork, b); Enter_k
 * b+70+30k, Leave_k b+80+30k (the last b+7670); TeamEnd b+7690; the join
 * waits for the team's ends, its own only: local b+7690+100-10 = b+7780
 * (sharing location 1's team would give 1000+7690 = 8690 at location 0);
 * Leave(main) b+7870. */
TEST(self_thread_teams_are_per_location)
{
    char in[4096];
    tg *g;
    unsigned r, k;
    up_comp_params p = t_params(10, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 2, NS, 0);
    for (r = 0; r < 2; r++) {
        uint64_t b = 1000 * r;
        tg_enter(g, r, b, TG_MAIN);
        CHECK(OTF2_EvtWriter_ThreadFork(tg_writer(g, r), NULL, b + 10, OTF2_PARADIGM_OPENMP, 1) ==
              OTF2_SUCCESS);
        CHECK(OTF2_EvtWriter_ThreadTeamBegin(tg_writer(g, r), NULL, b + 20, TG_COMM_SELF) ==
              OTF2_SUCCESS);
        for (k = 0; k < NFILL - 1; k++) {
            tg_enter(g, r, b + 100 + 50 * k, TG_WORK);
            tg_leave(g, r, b + 120 + 50 * k, TG_WORK);
        }
        CHECK(OTF2_EvtWriter_ThreadTeamEnd(tg_writer(g, r), NULL, b + 12800, TG_COMM_SELF) ==
              OTF2_SUCCESS);
        CHECK(OTF2_EvtWriter_ThreadJoin(tg_writer(g, r), NULL, b + 12900, OTF2_PARADIGM_OPENMP) ==
              OTF2_SUCCESS);
        tg_leave(g, r, b + 13000, TG_MAIN);
    }
    CHECK(tg_close(g) == 0);
    if (comp_load(in, "out", &p, &res, &out) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    for (r = 0; r < 2; r++) {
        uint64_t w[2 * NFILL + 4], b = 1000 * r, *t = w + 3 + 2 * (NFILL - 1);
        w[0] = w[1] = w[2] = b;
        for (k = 0; k < NFILL - 1; k++)
            w[3 + 2 * k] = b + 70 + 30 * k, w[4 + 2 * k] = b + 80 + 30 * k;
        t[0] = b + 7690;
        t[1] = b + 7780;
        t[2] = b + 7870;
        CHECK_TIMES(&out, r, w, 2 * NFILL + 4);
    }
    CHECK_EQ(repairs_total(&res), 0);
    tr_free(&out);
    up_replay_result_free(&res);
}

/* ---- communicators used by locations that are not their members --------- */

static void mpi_p2p(tg *g, unsigned r, int send, uint64_t t, uint32_t peer, OTF2_CommRef comm,
                    uint32_t tag)
{
    tg_enter(g, r, t, send ? TG_SEND : TG_RECV);
    if (send)
        CHECK(OTF2_EvtWriter_MpiSend(tg_writer(g, r), NULL, t + 10, peer, comm, tag, 8) ==
              OTF2_SUCCESS);
    else
        CHECK(OTF2_EvtWriter_MpiRecv(tg_writer(g, r), NULL, t + 10, peer, comm, tag, 8) ==
              OTF2_SUCCESS);
    tg_leave(g, r, t + 20, send ? TG_SEND : TG_RECV);
}

static void barrier_on(tg *g, unsigned r, uint64_t t, uint64_t end, OTF2_CommRef comm)
{
    tg_enter(g, r, t, TG_BARRIER);
    tg_coll_begin(g, r, t + 10);
    tg_coll_end_comm(g, r, end, OTF2_COLLECTIVE_OP_BARRIER, comm, OTF2_UNDEFINED_UINT32, 0, 0);
    tg_leave(g, r, end + 10, TG_BARRIER);
}

/* Three ranks; TG_COMM_PAIR = {0, 1}.  Ranks 0 and 1: Enter(main) 0, a
 * barrier on it (Enter 100, Begin 110, End 200, Leave 210), Leave(main) 300.
 * Rank 2, no member: Enter(main) 0, a barrier on it (100, 110, 150, 160), a
 * send to "rank 0" of it (200, 210, 220), a receive from "rank 1" of it (300,
 * 310, 320), Leave(main) 400.  Its three records name ranks of a group it is
 * not in: each is timed as a local record and counted as an unresolved peer
 * (its send must not reach rank 0's queues, its receive must not wait).
 * O = 10, lower.  Ranks 0, 1: 0, 90, 90; eq. (13) with j = rank 0 (the first
 * of the equal begins 110), k_a = 90: 90 + (200 - 110 - 10) = 170; 170;
 * Leave(main) 170+90-10 = 250.  Rank 2, eq. (1): 0, 90, 90, 120, 120, 150,
 * 150, 150, 220, 220, 220, 290. */
TEST(non_member_records_are_repaired_locally)
{
    static const uint64_t w01[] = {0, 90, 90, 170, 170, 250},
                          w2[] = {0, 90, 90, 120, 120, 150, 150, 150, 220, 220, 220, 290};
    char in[4096];
    tg *g;
    unsigned r;
    up_comp_params p = t_params(10, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 3, NS, TG_SUBCOMMS);
    for (r = 0; r < 2; r++) {
        tg_enter(g, r, 0, TG_MAIN);
        barrier_on(g, r, 100, 200, TG_COMM_PAIR);
        tg_leave(g, r, 300, TG_MAIN);
    }
    tg_enter(g, 2, 0, TG_MAIN);
    barrier_on(g, 2, 100, 150, TG_COMM_PAIR);
    mpi_p2p(g, 2, 1, 200, 0, TG_COMM_PAIR, 5);
    mpi_p2p(g, 2, 0, 300, 1, TG_COMM_PAIR, 6);
    tg_leave(g, 2, 400, TG_MAIN);
    CHECK(tg_close(g) == 0);
    if (comp_load(in, "out", &p, &res, &out) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    CHECK_TIMES(&out, 0, w01, 6);
    CHECK_TIMES(&out, 1, w01, 6);
    CHECK_TIMES(&out, 2, w2, 12);
    CHECK_EQ(res.repairs[UP_REPAIR_unresolved_peer], 3);
    CHECK_EQ(repairs_total(&res), 3); /* nothing unmatched, no collective released */
    tr_free(&out);
    up_replay_result_free(&res);
}

/* TG_COMM_ONE = {rank 0}, used by both ranks for a barrier after the filler
 * (as a trace that defines a one-member communicator once but uses it on
 * every rank).  Rank 0 is its member: an instance of one member, its own.
 * Rank 1 is not: its barrier is a local record, counted.  Both give the
 * times of self_compensated's blocking case (eq. (12)/(13) with one member
 * is eq. (1)): b+7800, b+7800, b+7880+d, b+7880+d. */
TEST(one_member_comm_used_by_another_rank)
{
    char in[4096];
    tg *g;
    unsigned r;
    up_comp_params p = t_params(10, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 2, NS, TG_SUBCOMMS);
    for (r = 0; r < 2; r++) {
        uint64_t b = 1000 * r, d = 100 * r;
        fill(g, r, b);
        barrier_on(g, r, b + 12900, b + 13000 + d, TG_COMM_ONE);
    }
    CHECK(tg_close(g) == 0);
    if (comp_load(in, "out", &p, &res, &out) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    for (r = 0; r < 2; r++) {
        uint64_t w[2 * NFILL + 4], b = 1000 * r, d = 100 * r, *t = w + 2 * NFILL;
        fill_want(w, b, 1);
        t[0] = t[1] = b + 7800;
        t[2] = t[3] = b + 7880 + d;
        CHECK_TIMES(&out, r, w, 2 * NFILL + 4);
    }
    CHECK_EQ(res.repairs[UP_REPAIR_unresolved_peer], 1);
    CHECK_EQ(repairs_total(&res), 1);
    tr_free(&out);
    up_replay_result_free(&res);
}

/* TG_COMM_DUP lists rank 0 twice ({0, 0, 1}): no location can be told its
 * rank, and a member count of 3 would wait for a third member that cannot
 * come.  The communicator is unusable: both barriers on it are local
 * records, counted as unresolved peers, and nothing waits or is released.
 * O = 10: Enter(Barrier) 100 -> 100 (first record), Begin 100, End
 * 100+90-10 = 180, Leave 180. */
TEST(comm_listing_a_location_twice_is_unusable)
{
    static const uint64_t w[] = {100, 100, 180, 180};
    char in[4096];
    tg *g;
    unsigned r;
    up_comp_params p = t_params(10, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 2, NS, TG_SUBCOMMS);
    for (r = 0; r < 2; r++)
        barrier_on(g, r, 100, 200, TG_COMM_DUP);
    CHECK(tg_close(g) == 0);
    if (comp_load(in, "out", &p, &res, &out) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    CHECK_TIMES(&out, 0, w, 4);
    CHECK_TIMES(&out, 1, w, 4);
    CHECK_EQ(res.repairs[UP_REPAIR_unresolved_peer], 2);
    CHECK_EQ(res.repairs[UP_REPAIR_collective_incomplete], 0);
    CHECK_EQ(repairs_total(&res), 2);
    tr_free(&out);
    up_replay_result_free(&res);
}

/* ---- nonblocking requests ------------------------------------------------- */

/* One rank: Enter(main) 0, two NonBlockingCollectiveRequests with the same
 * id 7 at 100 and 110 (the first one not completed yet: a damaged trace),
 * 70 000 MpiRequestTest records at 120 (the completion is out of the
 * lookahead's reach: the first request waits for it in the engine's list),
 * Enter(Wait) 150, two NonBlockingCollectiveCompletes of an Iallreduce on
 * MPI_COMM_SELF with id 7 at 200 and 210, Leave(Wait) 220, Leave(main) 300.
 * The first request keeps the id: it completes at the first complete; the
 * second request and the second complete have no partner (2 counted).
 * O = 10, lower, eq. (1): 0, 90, 90; the tests 90 (gaps of 0 lose nothing
 * more: a model limit, not counted as a fix); Enter(Wait) 90+30-10 = 110;
 * the first complete entered its Wait after its request (m.2): local,
 * 110+50-10 = 150; then 150, 150, and Leave(main) 150+80-10 = 220. */
TEST(nonblocking_request_id_reused_before_completion)
{
    enum { NTEST = 70000 };
    char in[4096];
    up_comp_params p = t_params(10, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    const tr_loc *l;
    tg *g;
    unsigned i;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 1, NS, 0);
    tg_enter(g, 0, 0, TG_MAIN);
    CHECK(OTF2_EvtWriter_NonBlockingCollectiveRequest(tg_writer(g, 0), NULL, 100, 7) == OTF2_SUCCESS);
    CHECK(OTF2_EvtWriter_NonBlockingCollectiveRequest(tg_writer(g, 0), NULL, 110, 7) == OTF2_SUCCESS);
    for (i = 0; i < NTEST; i++)
        CHECK(OTF2_EvtWriter_MpiRequestTest(tg_writer(g, 0), NULL, 120, 7) == OTF2_SUCCESS);
    tg_enter(g, 0, 150, TG_WAIT);
    for (i = 0; i < 2; i++)
        CHECK(OTF2_EvtWriter_NonBlockingCollectiveComplete(
                  tg_writer(g, 0), NULL, 200 + 10 * i, OTF2_COLLECTIVE_OP_ALLREDUCE, TG_COMM_SELF,
                  OTF2_UNDEFINED_UINT32, 8, 8, 7) == OTF2_SUCCESS);
    tg_leave(g, 0, 220, TG_WAIT);
    tg_leave(g, 0, 300, TG_MAIN);
    CHECK(tg_close(g) == 0);
    if (comp_load(in, "out", &p, &res, &out) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    l = tr_loc_id(&out, 0);
    CHECK(l && l->n == NTEST + 8);
    if (l && l->n == NTEST + 8) {
        static const uint64_t head[] = {0, 90, 90, 90}, tail[] = {90, 110, 150, 150, 150, 220};
        for (i = 0; i < 4; i++)
            CHECK_EQ(l->ev[i].t, head[i]);
        for (i = 0; i < 6; i++)
            CHECK_EQ(l->ev[NTEST + 2 + i].t, tail[i]);
    }
    CHECK_EQ(res.repairs[UP_REPAIR_collective_unpaired], 2);
    CHECK_EQ(repairs_total(&res), 2);
    tr_free(&out);
    up_replay_result_free(&res);
}

/* ---- members that never come ----------------------------------------------- */

#if defined(__SANITIZE_ADDRESS__)
#define HAVE_ASAN_BYTES 1
size_t __sanitizer_get_current_allocated_bytes(void); /* libasan */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_ASAN_BYTES 1
size_t __sanitizer_get_current_allocated_bytes(void);
#endif
#endif

/* heap in use, sampled by the engine's progress calls (every 65536 records) */
static size_t heap_first, heap_last;
static unsigned heap_samples;

static void sample_heap(void *ctx, uint64_t done, uint64_t total)
{
    (void)ctx, (void)done, (void)total;
#ifdef HAVE_ASAN_BYTES
    heap_last = __sanitizer_get_current_allocated_bytes();
    if (!heap_samples++)
        heap_first = heap_last;
#endif
}

/* Three ranks on MPI_COMM_WORLD; rank 2's trace ends at once (Enter(main) 0,
 * Leave(main) 10: a trace cut short), ranks 0 and 1 then call 60 000
 * barriers (k: Enter 100+100k, Begin +10, End +50, Leave +60).  Each
 * barrier waits for rank 2 until the replay releases it (counted: 60 000).
 * Every member that came is done with it then, and the one missing has
 * ended: the instance must be freed at once, not kept to the end of the
 * run, so the heap in use does not grow with the number of barriers.  Times, O = 10, lower:
 * ranks 0 and 1 are alike; barrier 0: Enter 100 (first record), Begin 100;
 * the release keeps eq. (13) over the members that came: 100 + (150 - 110 -
 * 10) = 130, Leave 130; each further barrier adds 100 - 40 = 60 (its four
 * records lose 40): Enter(k) = 100 + 60k, End(k) = 130 + 60k. */
TEST(collectives_missing_an_ended_member_are_freed)
{
    enum { K = 60000 };
    char in[4096];
    tg *g;
    unsigned r, k;
    up_comp_params p = t_params(10, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_observer obs = {.progress = sample_heap};
    up_replay_result res;
    tr_trace out;
    char o[4200];
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 3, NS, 0);
    for (r = 0; r < 2; r++)
        for (k = 0; k < K; k++)
            tg_mpi_coll(g, r, TG_BARRIER, 100 + 100 * (uint64_t)k, 110 + 100 * (uint64_t)k,
                        150 + 100 * (uint64_t)k, 160 + 100 * (uint64_t)k,
                        OTF2_COLLECTIVE_OP_BARRIER, OTF2_UNDEFINED_UINT32, 0, 0);
    tg_enter(g, 2, 0, TG_MAIN);
    tg_leave(g, 2, 10, TG_MAIN);
    CHECK(tg_close(g) == 0);
    heap_samples = 0;
    snprintf(o, sizeof o, "%s-out", in);
    up_rmtree(o);
    if (t_compensate_ops(in, o, &p, up_comp_ops(), &obs, &res, NULL) != UP_OK ||
        tr_load(o, &out) != 0) {
        CHECK(!"compensation failed");
        return;
    }
    for (r = 0; r < 2; r++) {
        const tr_loc *l = tr_loc_id(&out, r);
        CHECK(l && l->n == 4 * K);
        if (!l || l->n != 4 * K)
            continue;
        for (k = 0; k < K; k += K / 8) {
            CHECK_EQ(l->ev[4 * k].t, 100 + 60 * (uint64_t)k);
            CHECK_EQ(l->ev[4 * k + 2].t, 130 + 60 * (uint64_t)k);
        }
    }
    CHECK_EQ(res.repairs[UP_REPAIR_collective_incomplete], K);
    CHECK_EQ(repairs_total(&res), K);
#ifdef HAVE_ASAN_BYTES
    /* between the first and the last sample 49 152 barriers are released:
     * kept, they take about 400 bytes each under ASan (20 MB); freed, the
     * heap moves only with OTF2's buffers (one 2 MiB step here) */
    CHECK(heap_samples >= 7);
    if (heap_last > heap_first + (6u << 20))
        t_fail(__FILE__, __LINE__, "heap grew by %zu bytes over %u samples", heap_last - heap_first,
               heap_samples);
#endif
    tr_free(&out);
    up_replay_result_free(&res);
    up_rmtree(o);
}

/* ---- the observer (up_replay_observer) ------------------------------------- */

typedef struct watch {
    uint64_t n[2];          /* records seen per location */
    uint64_t *t_a[2];       /* their approximated times */
    uint64_t bad;           /* records out of place (location, kind, measured time) */
    uint64_t progress, done, total;
} watch;

enum { WATCH_PAIRS = 20000 }; /* per rank: 40 000 records, then a message */

static void watch_record(void *ctx, uint32_t loc, unsigned kind, uint64_t t_m, uint64_t t_a)
{
    watch *w = ctx;
    uint64_t k = loc < 2 ? w->n[loc] : 0;
    /* rank r's k-th record (k < 2 * WATCH_PAIRS): fill pair k / 2 at 100k
     * (Enter) and 100k + 50 (Leave) */
    if (loc >= 2 || (k < 2 * WATCH_PAIRS && (kind != (k % 2 ? UP_EV_Leave : UP_EV_Enter) ||
                                             t_m != 100 * (k / 2) + 50 * (k % 2))))
        w->bad++;
    if (loc < 2 && k < 2 * WATCH_PAIRS + 3)
        w->t_a[loc][k] = t_a;
    if (loc < 2)
        w->n[loc]++;
}

static void watch_progress(void *ctx, uint64_t done, uint64_t total)
{
    watch *w = ctx;
    w->progress++;
    w->done = done;
    w->total = total;
}

/* Two ranks of 20 000 Enter/Leave pairs each (pair k at 100k and 100k+50),
 * then a message from rank 0 to rank 1: the record callback sees every
 * record once, at its location and measured time, with the approximated
 * time written; progress comes every 65 536 records, with the records the
 * definitions declare, whether or not a record callback is there. */
TEST(observer_sees_every_record)
{
    const uint64_t end = 100 * (uint64_t)WATCH_PAIRS;
    char in[4096];
    tg *g;
    unsigned r, k, pass;
    up_comp_params p = t_params(10, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace out;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 2, NS, 0);
    for (r = 0; r < 2; r++)
        for (k = 0; k < WATCH_PAIRS; k++) {
            tg_enter(g, r, 100 * (uint64_t)k, TG_WORK);
            tg_leave(g, r, 100 * (uint64_t)k + 50, TG_WORK);
        }
    tg_mpi_send(g, 0, end, end + 10, end + 20, 1, 7, 8);
    tg_mpi_recv(g, 1, end, end + 30, end + 40, 0, 7, 8);
    CHECK(tg_close(g) == 0);
    for (pass = 0; pass < 2; pass++) { /* with the record callback, then without */
        watch w;
        up_replay_observer obs = {.ctx = &w, .progress = watch_progress,
                                  .record = pass ? NULL : watch_record};
        char o[4200];
        memset(&w, 0, sizeof w);
        for (r = 0; r < 2; r++)
            w.t_a[r] = calloc(2 * WATCH_PAIRS + 3, sizeof *w.t_a[r]);
        snprintf(o, sizeof o, "%s-out%u", in, pass);
        if (!w.t_a[0] || !w.t_a[1] ||
            t_compensate_ops(in, o, &p, up_comp_ops(), &obs, &res, NULL) != UP_OK ||
            tr_load(o, &out) != 0) {
            CHECK(!"compensation failed");
            free(w.t_a[0]), free(w.t_a[1]);
            return;
        }
        CHECK_EQ(res.events, 4 * WATCH_PAIRS + 6);
        CHECK_EQ(w.progress, res.events / 65536);
        CHECK_EQ(w.done, 65536);
        CHECK_EQ(w.total, res.events);
        CHECK_EQ(w.bad, 0);
        for (r = 0; r < 2; r++) {
            const tr_loc *l = tr_loc_id(&out, r);
            CHECK_EQ(w.n[r], pass ? 0 : res.locs[r].records);
            CHECK(l && l->n == res.locs[r].records);
            for (k = 0; !pass && l && k < l->n && k < w.n[r]; k++)
                if (w.t_a[r][k] != l->ev[k].t) {
                    t_fail(__FILE__, __LINE__, "rank %u record %u: %llu seen, %llu written", r, k,
                           (unsigned long long)w.t_a[r][k], (unsigned long long)l->ev[k].t);
                    break;
                }
        }
        free(w.t_a[0]), free(w.t_a[1]);
        tr_free(&out);
        up_replay_result_free(&res);
        up_rmtree(o);
    }
}
