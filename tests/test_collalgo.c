/*
 * test_collalgo.c - the collective algorithms of `unperturb simulate`
 * (collalgo.h, docs/collectives.md): every expected exit worked out by hand
 * in the comments from the message rule
 *   send at clock t:   clock = t + o_s, arrival = arrive(t + o_s)
 *   receive:           clock = max(clock, arrival) + o_r
 *   combine b bytes:   clock += llround(b * reduce_per_byte)
 * Unless a test says otherwise: o_s = 1, o_r = 2 and
 * arrive = depart + 10 + bytes (one tick per byte).
 */
#include <math.h>
#include <string.h>

#include "test.h"
#include "model/collalgo.h"

/* ---- the network of the tests -------------------------------------------- */

typedef struct tnet {
    uint64_t lat, per_byte;  /* arrive = depart + lat + bytes * per_byte */
    uint32_t n;              /* members, to check the indices */
    unsigned long calls;     /* messages */
    bool bad;                /* an index out of range, or from == to */
} tnet;

static uint64_t t_arrive(void *ctx, uint32_t from, uint32_t to, uint64_t bytes, uint64_t depart)
{
    tnet *t = ctx;
    t->calls++;
    if (from >= t->n || to >= t->n || from == to)
        t->bad = true;
    return depart + t->lat + bytes * t->per_byte;
}

static up_ca_net mknet(tnet *t, uint32_t n, uint64_t o_s, uint64_t o_r, uint64_t lat,
                       uint64_t per_byte, double rpb)
{
    up_ca_net net;
    memset(t, 0, sizeof *t);
    t->lat = lat, t->per_byte = per_byte, t->n = n;
    net.o_s = o_s, net.o_r = o_r;
    net.reduce_per_byte = rpb;
    net.arrive = t_arrive;
    net.ctx = t;
    return net;
}

/* the default network: o_s 1, o_r 2, arrive = depart + 10 + bytes */
static up_ca_net dnet(tnet *t, uint32_t n, double rpb) { return mknet(t, n, 1, 2, 10, 1, rpb); }

static up_ca_in mkin(up_coll_kind kind, unsigned algo, uint32_t n, uint32_t root,
                     const uint64_t *enter, const uint64_t *sent, const uint64_t *recvd)
{
    up_ca_in in;
    memset(&in, 0, sizeof in);
    in.kind = kind, in.algo = algo, in.n = n, in.root = root;
    in.enter = enter, in.sent = sent, in.recvd = recvd;
    return in;
}

static void run_ok(const up_ca_in *in, const up_ca_net *net, uint64_t *exit)
{
    up_err err = {0};
    up_status st = up_ca_times(in, net, exit, &err);
    CHECK_EQ(st, UP_OK);
    if (st != UP_OK)
        fprintf(stderr, "  up_ca_times: %s\n", err.msg);
}

static void check_exits(const uint64_t *got, const uint64_t *want, uint32_t n, int line)
{
    uint32_t i;
    for (i = 0; i < n; i++)
        if (got[i] != want[i])
            t_fail(__FILE__, line, "exit[%u] = %llu, want %llu", i, (unsigned long long)got[i],
                   (unsigned long long)want[i]);
}
#define CHECK_EXITS(got, want, n) check_exits((got), (want), (n), __LINE__)

/* ---- broadcast --------------------------------------------------------------- */

/*
 * Binomial broadcast, 8 members, root 0, 100 bytes: one hop is
 * o_s + 10 + 100 = 111 ticks from the sender's clock to the arrival.
 *   rel 0: sends to 4, 2, 1 at clocks 1, 2, 3: arrivals 111, 112, 113; exit 3
 *   rel 1: receives 113 -> 115; no children                       exit 115
 *   rel 2: receives 112 -> 114; sends to 3 at 115: arrival 225       exit 115
 *   rel 3: receives 225 -> 227                                      exit 227
 *   rel 4: receives 111 -> 113; sends to 6 at 114 (arrival 224), to 5 at
 *          115 (arrival 225)                                        exit 115
 *   rel 5: 225 -> 227; rel 6: 224 -> 226, sends to 7 at 227 (337): exit 227
 *   rel 7: 337 -> 339
 * The recorded bytes are the tracer's: the root sent 7 x 100, the others
 * received 100.
 */
TEST(collalgo_bcast_binomial_8)
{
    uint64_t enter[8] = {0}, sent[8] = {700}, recvd[8], exit[8];
    uint64_t want[8] = {3, 115, 115, 227, 115, 227, 227, 339};
    uint32_t i;
    tnet t;
    up_ca_net net = dnet(&t, 8, 0);
    up_ca_in in = mkin(UP_CK_BCAST, UP_ALGO_BINOMIAL, 8, 0, enter, sent, recvd);
    for (i = 0; i < 8; i++)
        recvd[i] = i ? 100 : 0;
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want, 8);
    CHECK_EQ(t.calls, 7);
    CHECK(!t.bad);
}

/*
 * The same with member 4 entering late, at 500: its subtree (5, 6, 7)
 * waits for it, the rest does not change.
 *   4: receives max(500, 111) + 2 = 502; sends to 6 at 503 (arrival 613),
 *      to 5 at 504 (arrival 614)                                    exit 504
 *   5: 614 + 2 = 616
 *   6: 613 + 2 = 615; sends to 7 at 616: arrival 726                exit 616
 *   7: 726 + 2 = 728
 */
TEST(collalgo_bcast_binomial_late_subtree)
{
    uint64_t enter[8] = {0, 0, 0, 0, 500, 0, 0, 0}, sent[8] = {700}, recvd[8], exit[8];
    uint64_t want[8] = {3, 115, 115, 227, 504, 616, 616, 728};
    uint32_t i;
    tnet t;
    up_ca_net net = dnet(&t, 8, 0);
    up_ca_in in = mkin(UP_CK_BCAST, UP_ALGO_BINOMIAL, 8, 0, enter, sent, recvd);
    for (i = 0; i < 8; i++)
        recvd[i] = i ? 100 : 0;
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want, 8);
}

/*
 * Root 5: relative rank rel is member (rel + 5) mod 8, so member (rel + 5)
 * mod 8 gets the exit of rel in collalgo_bcast_binomial_8.  The counts are
 * Score-P's (root: sent 8 x 100 and received 100; others received 100).
 */
TEST(collalgo_bcast_binomial_root)
{
    uint64_t enter[8] = {0}, sent[8] = {0}, recvd[8], exit[8];
    uint64_t rel_exit[8] = {3, 115, 115, 227, 115, 227, 227, 339}, want[8];
    uint32_t i;
    tnet t;
    up_ca_net net = dnet(&t, 8, 0);
    up_ca_in in = mkin(UP_CK_BCAST, UP_ALGO_BINOMIAL, 8, 5, enter, sent, recvd);
    sent[5] = 800;
    for (i = 0; i < 8; i++) {
        recvd[i] = 100;
        want[(i + 5) % 8] = rel_exit[i];
    }
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want, 8);
}

/*
 * Linear broadcast, 4 members, root 1, 100 bytes: the root sends to 0, 2, 3
 * at clocks 1, 2, 3: arrivals 111, 112, 113, receivers 113, 114, 115.
 */
TEST(collalgo_bcast_linear)
{
    uint64_t enter[4] = {0}, sent[4] = {0, 300, 0, 0}, recvd[4] = {100, 0, 100, 100}, exit[4];
    uint64_t want[4] = {113, 3, 114, 115};
    tnet t;
    up_ca_net net = dnet(&t, 4, 0);
    up_ca_in in = mkin(UP_CK_BCAST, UP_ALGO_LINEAR, 4, 1, enter, sent, recvd);
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want, 4);
    /* no receiver recorded anything: the root's sent / (n - 1) */
    memset(recvd, 0, sizeof recvd);
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want, 4);
}

/* ---- barriers ---------------------------------------------------------------- */

/*
 * speedy's linear master-slave barrier with the example values of Table 1,
 * ticks = microseconds: EntryTime 5 ms, ExitTime 5 ms, CheckTime 2 ms,
 * ExitCheckTime 2 ms, ModelTime 10 ms, BarrierByMsgs 1, BarrierMsgSize 16;
 * o_s = 0.1 ms, o_r = 0.2 ms, arrive = depart + 1 ms.  Members enter at
 * 0, 3, 7 and 1 ms; member 0 is the master.
 *   ready = enter + 5 ms:           5000, 8000, 12000, 6000
 *   slaves send their arrival message at ready: clocks 8100, 12100, 6100,
 *   arrivals at the master 9100, 13100, 7100
 *   master receives them in order of arrival from its ready 5000:
 *     max(5000, 7100) + 200 = 7300, max(7300, 9100) + 200 = 9300,
 *     max(9300, 13100) + 200 = 13300: all in at 13300
 *   checks at 5000 + k 2000 (k >= 1): the first at or after 13300 is 15000
 *   lowering starts at 15000 + 10000 = 25000
 *   releases to 1, 2, 3 leave at 25100, 25200, 25300 and arrive at
 *   26100, 26200, 26300; master exit 25300 + 5000 = 30300
 *   slave 1: checks at 8000 + k 2000: first >= 26100 is 28000 (k = 10)
 *   slave 2: 12000 + k 2000 >= 26200: 28000 (k = 8)
 *   slave 3: 6000 + k 2000 >= 26300: 28000 (k = 11)
 *   each: 28000 + o_r 200 + ExitTime 5000 = 33200
 */
TEST(collalgo_barrier_linear_table1)
{
    uint64_t enter[4] = {0, 3000, 7000, 1000}, exit[4];
    uint64_t want[4] = {30300, 33200, 33200, 33200};
    up_ca_barrier bar = {5000, 5000, 2000, 2000, 10000, true, 16};
    tnet t;
    up_ca_net net = mknet(&t, 4, 100, 200, 1000, 0, 0);
    up_ca_in in = mkin(UP_CK_BARRIER, UP_BARRIER_LINEAR, 4, UINT32_MAX, enter, NULL, NULL);
    in.bar = &bar;
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want, 4);
    CHECK_EQ(t.calls, 6);   /* 3 arrivals, 3 releases */
    CHECK(!t.bad);
}

/*
 * The same without messages (BarrierByMsgs 0) and ExitCheckTime 3 ms:
 *   arrivals at the master = ready: 8000, 12000, 6000; all in at 12000
 *   checks at 5000 + k 2000: first >= 12000 is 13000; lowering at 23000
 *   master exit 23000 + 5000 = 28000; every slave released at 23000
 *   slave 1: 8000 + k 3000 >= 23000: 23000 (k = 5)  -> 28000
 *   slave 2: 12000 + k 3000 >= 23000: 24000 (k = 4) -> 29000
 *   slave 3: 6000 + k 3000 >= 23000: 24000 (k = 6)  -> 29000
 * No o_s, o_r nor network without messages.
 */
TEST(collalgo_barrier_linear_no_msgs)
{
    uint64_t enter[4] = {0, 3000, 7000, 1000}, exit[4];
    uint64_t want[4] = {28000, 28000, 29000, 29000};
    up_ca_barrier bar = {5000, 5000, 2000, 3000, 10000, false, 16};
    tnet t;
    up_ca_net net = mknet(&t, 4, 100, 200, 1000, 0, 0);
    up_ca_in in = mkin(UP_CK_BARRIER, UP_BARRIER_LINEAR, 4, UINT32_MAX, enter, NULL, NULL);
    in.bar = &bar;
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want, 4);
    CHECK_EQ(t.calls, 0);
}

/*
 * Master = the root (member 2), CheckTime = ExitCheckTime = 0 (detect at
 * once), messages on:
 *   ready 5000, 8000, 12000, 6000; slaves 0, 1, 3 send: arrivals 6100,
 *   9100, 7100; the master (ready 12000) receives 6100 -> 12200, 7100 ->
 *   12400, 9100 -> 12600; lowering at 12600 + 10000 = 22600
 *   releases to 0, 1, 3 leave at 22700, 22800, 22900: arrivals 23700,
 *   23800, 23900; master exit 22900 + 5000 = 27900
 *   slaves: arrival + 200 + 5000 = 28900, 29000, 29100
 */
TEST(collalgo_barrier_linear_root_nocheck)
{
    uint64_t enter[4] = {0, 3000, 7000, 1000}, exit[4];
    uint64_t want[4] = {28900, 29000, 27900, 29100};
    up_ca_barrier bar = {5000, 5000, 0, 0, 10000, true, 16};
    tnet t;
    up_ca_net net = mknet(&t, 4, 100, 200, 1000, 0, 0);
    up_ca_in in = mkin(UP_CK_BARRIER, UP_BARRIER_LINEAR, 4, 2, enter, NULL, NULL);
    in.bar = &bar;
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want, 4);
}

/*
 * The master receives the arrival messages in order of arrival, not of
 * rank: 40 members, all Table 1 times 0, o_s 0, o_r 1, arrive = depart.
 * Slave i enters at 100000 (40 - i), so the arrivals come in reverse rank
 * order 100000, 200000, ..., 3900000: each receive costs 1 and waits for
 * the next, so the master has all at 3900001 and releases at once; every
 * slave then receives its release: 3900002.  (In rank order the receives
 * would queue up behind the first, at 3900000, to 3900039.)
 */
TEST(collalgo_barrier_linear_arrival_order)
{
    enum { N = 40 };
    uint64_t enter[N] = {0}, exit[N], want[N] = {0};
    up_ca_barrier bar = {0, 0, 0, 0, 0, true, 16};
    uint32_t i;
    tnet t;
    up_ca_net net = mknet(&t, N, 0, 1, 0, 0, 0);
    up_ca_in in = mkin(UP_CK_BARRIER, UP_BARRIER_LINEAR, N, UINT32_MAX, enter, NULL, NULL);
    in.bar = &bar;
    for (i = 0; i < N; i++) {
        enter[i] = i ? 100000ull * (N - i) : 0;
        want[i] = i ? 3900002 : 3900001;
    }
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want, N);
}

/*
 * Dissemination on 5 members, 0 bytes (one hop: 1 + 10), member 1 enters
 * at 20, the others at 0.  Rounds k = 1, 2, 4: i sends to i + k, receives
 * from i - k.
 *   k = 1: clocks after sending 1, 21, 1, 1, 1; arrivals at 1..4, 0:
 *          11, 31, 11, 11, 11 (at 0 from 4) -> clocks 13, 23, 33, 13, 13
 *   k = 2: after sending 14, 24, 34, 14, 14; arrivals at 2, 3, 4, 0, 1:
 *          24, 34, 44, 24, 24 -> clocks 26, 26, 36, 36, 46
 *   k = 4: after sending 27, 27, 37, 37, 47; i sends to i - 1: arrivals at
 *          4, 0, 1, 2, 3: 37, 37, 47, 47, 57 -> 39, 49, 49, 59, 49
 */
TEST(collalgo_barrier_dissemination_5)
{
    uint64_t enter[5] = {0, 20, 0, 0, 0}, exit[5];
    uint64_t want[5] = {39, 49, 49, 59, 49};
    tnet t;
    up_ca_net net = dnet(&t, 5, 0);
    up_ca_in in = mkin(UP_CK_BARRIER, UP_BARRIER_DISSEMINATION, 5, UINT32_MAX, enter, NULL, NULL);
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want, 5);
    CHECK_EQ(t.calls, 15);
}

/*
 * Tree barrier on 4 members, member 2 enters at 30.
 * Gather to 0 (binomial, 0 bytes):
 *   3 sends to 2 at 1: arrival 11
 *   2 receives max(30, 11) + 2 = 32, sends to 0 at 33: arrival 43
 *   1 sends to 0 at 1: arrival 11
 *   0 receives from 1: 11 + 2 = 13, from 2: max(13, 43) + 2 = 45
 * Broadcast from 0:
 *   0 sends to 2 at 46 (arrival 56), to 1 at 47 (arrival 57): exit 47
 *   1: max(1, 57) + 2 = 59
 *   2: max(33, 56) + 2 = 58, sends to 3 at 59 (arrival 69): exit 59
 *   3: max(1, 69) + 2 = 71
 */
TEST(collalgo_barrier_tree_4)
{
    uint64_t enter[4] = {0, 0, 30, 0}, exit[4];
    uint64_t want[4] = {47, 59, 59, 71};
    tnet t;
    up_ca_net net = dnet(&t, 4, 0);
    up_ca_in in = mkin(UP_CK_BARRIER, UP_BARRIER_TREE, 4, UINT32_MAX, enter, NULL, NULL);
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want, 4);
    CHECK_EQ(t.calls, 6);
}

/* ---- allreduce --------------------------------------------------------------- */

/*
 * Recursive doubling on 4 members, 8 bytes (the tracer records 4 x 8 sent
 * and received), reduce_per_byte 0.5: combining costs 4; one hop 1 + 18.
 * Member 1 enters at 5.
 *   m = 1: 0<->1, 2<->3.  After sending: 1, 6, 1, 1; arrivals at 0: 24,
 *          at 1: 19, at 2: 19, at 3: 19.  Clocks: max(1, 24) + 2 + 4 = 30,
 *          max(6, 19) + 6 = 25, 25, 25
 *   m = 2: 0<->2, 1<->3.  After sending: 31, 26, 26, 26; arrivals at 0:
 *          44 (from 2), at 1: 44, at 2: 49 (from 0), at 3: 44.
 *          Clocks: max(31, 44) + 6 = 50, 50, max(26, 49) + 6 = 55, 50
 */
TEST(collalgo_allreduce_rd_4)
{
    uint64_t enter[4] = {0, 5, 0, 0}, sent[4] = {32, 32, 32, 32}, exit[4];
    uint64_t want[4] = {50, 50, 55, 50};
    tnet t;
    up_ca_net net = dnet(&t, 4, 0.5);
    up_ca_in in = mkin(UP_CK_ALLREDUCE, UP_ALGO_RECURSIVE_DOUBLING, 4, UINT32_MAX, enter, sent,
                       sent);
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want, 4);
    CHECK_EQ(t.calls, 8);
}

/*
 * Recursive doubling on 6 members (not a power of two): p = 4, members 4
 * and 5 fold into 0 and 1 first and get the result back at the end.
 * 8 bytes, combining 4, all enter at 0.
 *   fold: 4 -> 0, 5 -> 1 sent at 1, arrive 19; 0, 1: 19 + 2 + 4 = 25;
 *         clocks 25, 25, 0, 0, 1, 1
 *   m = 1: 0<->1 sent at 26 arrive 44, 2<->3 sent at 1 arrive 19;
 *          clocks 44 + 6 = 50, 50, 19 + 6 = 25, 25
 *   m = 2: 0<->2, 1<->3: 0 and 1 send at 51 (arrive 69), 2 and 3 at 26
 *          (arrive 44); clocks max(51, 44) + 6 = 57, 57,
 *          max(26, 69) + 6 = 75, 75
 *   back: 0 -> 4, 1 -> 5 sent at 58, arrive 76; 4, 5: 76 + 2 = 78
 */
TEST(collalgo_allreduce_rd_6)
{
    uint64_t enter[6] = {0}, sent[6] = {48, 48, 48, 48, 48, 48}, exit[6];
    uint64_t want[6] = {58, 58, 75, 75, 78, 78};
    tnet t;
    up_ca_net net = dnet(&t, 6, 0.5);
    up_ca_in in = mkin(UP_CK_ALLREDUCE, UP_ALGO_RECURSIVE_DOUBLING, 6, UINT32_MAX, enter, sent,
                       sent);
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want, 6);
    CHECK_EQ(t.calls, 2 + 8 + 2);
}

/*
 * Ring on 3 members, 30 bytes (90 recorded): blocks of 10, combining 5,
 * one hop 1 + 20; all clocks stay equal, so a reduce-scatter round adds
 * 1 + 20 + 2 + 5 = 28 and an allgather round 23:
 *   0 -> 28 -> 56 -> 79 -> 102
 */
TEST(collalgo_allreduce_ring_3)
{
    uint64_t enter[3] = {0}, sent[3] = {90, 90, 90}, exit[3];
    uint64_t want[3] = {102, 102, 102};
    tnet t;
    up_ca_net net = dnet(&t, 3, 0.5);
    up_ca_in in = mkin(UP_CK_ALLREDUCE, UP_ALGO_RING, 3, UINT32_MAX, enter, sent, sent);
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want, 3);
    CHECK_EQ(t.calls, 12);
}

/* ---- allgather, alltoall ------------------------------------------------------ */

/*
 * Ring allgather on 3 members, blocks of 20 bytes (60 recorded); member 2
 * enters at 50; one hop 1 + 30.
 *   step 1: 0 -> 1 at 1 (arrival 31), 1 -> 2 at 1 (31), 2 -> 0 at 51 (81);
 *           clocks max(1, 81) + 2 = 83, max(1, 31) + 2 = 33,
 *           max(51, 31) + 2 = 53
 *   step 2: 0 -> 1 at 84 (114), 1 -> 2 at 34 (64), 2 -> 0 at 54 (84);
 *           clocks max(84, 84) + 2 = 86, max(34, 114) + 2 = 116,
 *           max(54, 64) + 2 = 66
 */
TEST(collalgo_allgather_ring_3)
{
    uint64_t enter[3] = {0, 0, 50}, sent[3] = {60, 60, 60}, exit[3];
    uint64_t want[3] = {86, 116, 66};
    tnet t;
    up_ca_net net = dnet(&t, 3, 0);
    up_ca_in in = mkin(UP_CK_ALLGATHER, UP_ALGO_RING, 3, UINT32_MAX, enter, sent, sent);
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want, 3);
}

/*
 * Recursive doubling allgather on 4, blocks of 10 (40 recorded), all at 0:
 *   m = 1: 10 bytes, one hop 21: clocks 1 + 20 + 2 = 23 (sent at 1, arr 21)
 *   m = 2: 20 bytes: sent at 24, arrive 54, clocks 56
 * On 3 members it is the ring: 2 steps of 1 + 20 + 2 = 23 -> 46.
 */
TEST(collalgo_allgather_rd)
{
    uint64_t enter[4] = {0}, sent[4] = {40, 40, 40, 40}, sent3[3] = {30, 30, 30}, exit[4];
    uint64_t want[4] = {56, 56, 56, 56}, want3[3] = {46, 46, 46};
    tnet t;
    up_ca_net net = dnet(&t, 4, 0);
    up_ca_in in = mkin(UP_CK_ALLGATHER, UP_ALGO_RECURSIVE_DOUBLING, 4, UINT32_MAX, enter, sent,
                       sent);
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want, 4);
    net = dnet(&t, 3, 0);
    in = mkin(UP_CK_ALLGATHER, UP_ALGO_RECURSIVE_DOUBLING, 3, UINT32_MAX, enter, sent3, sent3);
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want3, 3);
}

/*
 * Pairwise all-to-all on 4 members, 5 bytes per peer (20 recorded); member
 * 3 enters at 40; one hop 1 + 15.
 *   k = 1 (i -> i + 1): sends at 1, 1, 1, 41: arrivals at 1, 2, 3: 16, at
 *          0: 56; clocks 58, 18, 18, max(41, 16) + 2 = 43
 *   k = 2 (i -> i + 2): sends at 59, 19, 19, 44: arrivals at 2: 74, at 3:
 *          34, at 0: 34, at 1: 59; clocks max(59, 34) + 2 = 61,
 *          max(19, 59) + 2 = 61, max(19, 74) + 2 = 76, max(44, 34) + 2 = 46
 *   k = 3 (i -> i - 1): sends at 62, 62, 77, 47: arrivals at 3: 77, at 0:
 *          77, at 1: 92, at 2: 62; clocks max(62, 77) + 2 = 79,
 *          max(62, 92) + 2 = 94, max(77, 62) + 2 = 79, max(47, 77) + 2 = 79
 */
TEST(collalgo_alltoall_pairwise_4)
{
    uint64_t enter[4] = {0, 0, 0, 40}, sent[4] = {20, 20, 20, 20}, exit[4];
    uint64_t want[4] = {79, 94, 79, 79};
    tnet t;
    up_ca_net net = dnet(&t, 4, 0);
    up_ca_in in = mkin(UP_CK_ALLTOALL, UP_ALGO_PAIRWISE, 4, UINT32_MAX, enter, sent, sent);
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want, 4);
    CHECK_EQ(t.calls, 12);
}

/*
 * Linear all-to-all on 3 members, 5 bytes per peer, all at 0: each posts
 * its two sends (clock 2); the q-th send of j (its destinations in rank
 * order) leaves at q: j = 0: to 1 at 1, to 2 at 2; j = 1: to 0 at 1, to 2
 * at 2; j = 2: to 0 at 1, to 1 at 2.  Arrival = departure + 15.
 *   0 receives from 1 (16): 18, from 2 (16): 20
 *   1 receives from 0 (16): 18, from 2 (17): 20
 *   2 receives from 0 (17): 19, from 1 (17): 21
 */
TEST(collalgo_alltoall_linear_3)
{
    uint64_t enter[3] = {0}, sent[3] = {15, 15, 15}, exit[3];
    uint64_t want[3] = {20, 20, 21};
    tnet t;
    up_ca_net net = dnet(&t, 3, 0);
    up_ca_in in = mkin(UP_CK_ALLTOALL, UP_ALGO_LINEAR, 3, UINT32_MAX, enter, sent, sent);
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want, 3);
    CHECK_EQ(t.calls, 6);
    CHECK(!t.bad);
}

/* ---- gather, scatter ---------------------------------------------------------- */

/*
 * Linear gather, 4 members, root 2, 10 bytes each, staggered entries
 * 30, 0, 5, 10; one hop 1 + 20.
 *   0 sends at 31 (arrival 51), 1 at 1 (21), 3 at 11 (31)
 *   root 2 receives in rank order from its entry 5: max(5, 51) + 2 = 53,
 *   max(53, 21) + 2 = 55, max(55, 31) + 2 = 57
 */
TEST(collalgo_gather_linear_staggered)
{
    uint64_t enter[4] = {30, 0, 5, 10}, sent[4] = {10, 10, 10, 10}, recvd[4] = {0, 0, 40, 0};
    uint64_t exit[4], want[4] = {31, 1, 57, 11};
    tnet t;
    up_ca_net net = dnet(&t, 4, 0);
    up_ca_in in = mkin(UP_CK_GATHER, UP_ALGO_LINEAR, 4, 2, enter, sent, recvd);
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want, 4);
}

/*
 * Binomial gatherv, 4 members, root 0, blocks 0, 10, 20, 30 (each member's
 * sent), all at 0:
 *   3 sends its block (30 bytes) to 2 at 1: arrival 41
 *   2 receives 41 + 2 = 43, sends 20 + 30 = 50 bytes to 0 at 44: arrival 104
 *   1 sends 10 bytes to 0 at 1: arrival 21
 *   0 receives from 1: 23, from 2: max(23, 104) + 2 = 106
 * Binomial scatterv, the same blocks (each member's recvd):
 *   0 sends 50 bytes to 2 at 1 (arrival 61), 10 bytes to 1 at 2 (22)
 *   1: 24;  2: 63, sends 30 bytes to 3 at 64 (arrival 104): exit 64
 *   3: 106
 */
TEST(collalgo_gatherv_scatterv_binomial)
{
    uint64_t enter[4] = {0}, blocks[4] = {0, 10, 20, 30}, root_bytes[4] = {60, 0, 0, 0};
    uint64_t exit[4], want_g[4] = {106, 1, 44, 1}, want_s[4] = {2, 24, 64, 106};
    tnet t;
    up_ca_net net = dnet(&t, 4, 0);
    up_ca_in in = mkin(UP_CK_GATHER, UP_ALGO_BINOMIAL, 4, 0, enter, blocks, root_bytes);
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want_g, 4);
    in = mkin(UP_CK_SCATTER, UP_ALGO_BINOMIAL, 4, 0, enter, root_bytes, blocks);
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want_s, 4);
}

/*
 * Linear scatter, 3 members, root 0, blocks of 10 (the root sent 30, the
 * others received 10): sends at 1 and 2, arrivals 21 and 22: 23, 24.
 */
TEST(collalgo_scatter_linear)
{
    uint64_t enter[3] = {0}, sent[3] = {30, 0, 0}, recvd[3] = {10, 10, 10}, exit[3];
    uint64_t want[3] = {2, 23, 24};
    tnet t;
    up_ca_net net = dnet(&t, 3, 0);
    up_ca_in in = mkin(UP_CK_SCATTER, UP_ALGO_LINEAR, 3, 0, enter, sent, recvd);
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want, 3);
}

/* ---- reduce -------------------------------------------------------------------- */

/*
 * Binomial reduce, 4 members, root 1, 8 bytes, reduce_per_byte 0.3125:
 * combining 8 bytes costs llround(2.5) = 3.  Relative ranks: member 1 is
 * rel 0, 2 rel 1, 3 rel 2, 0 rel 3.  One hop 1 + 18.
 *   rel 3 (member 0) sends to rel 2 (member 3) at 1: arrival 19
 *   rel 2 (member 3) receives 19 + 2 + 3 = 24, sends to rel 0 at 25: 43
 *   rel 1 (member 2) sends to rel 0 at 1: 19
 *   rel 0 (member 1) receives from rel 1: 19 + 5 = 24, from rel 2:
 *   max(24, 43) + 5 = 48
 */
TEST(collalgo_reduce_binomial)
{
    uint64_t enter[4] = {0}, sent[4] = {8, 8, 8, 8}, recvd[4] = {0, 32, 0, 0}, exit[4];
    uint64_t want[4] = {1, 48, 1, 25};
    tnet t;
    up_ca_net net = dnet(&t, 4, 0.3125);
    up_ca_in in = mkin(UP_CK_REDUCE, UP_ALGO_BINOMIAL, 4, 1, enter, sent, recvd);
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want, 4);
}

/*
 * Linear reduce, 3 members, root 0, same costs: 1 and 2 send at 1 (19);
 * the root: 19 + 2 + 3 = 24, then 24 + 5 = 29.
 */
TEST(collalgo_reduce_linear)
{
    uint64_t enter[3] = {0}, sent[3] = {8, 8, 8}, exit[3];
    uint64_t want[3] = {29, 1, 1};
    tnet t;
    up_ca_net net = dnet(&t, 3, 0.3125);
    up_ca_in in = mkin(UP_CK_REDUCE, UP_ALGO_LINEAR, 3, 0, enter, sent, NULL);
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want, 3);
}

/* ---- reduce_scatter -------------------------------------------------------------- */

/*
 * Recursive halving on 3 members (p = 2), 24 bytes in all (sent 24),
 * reduce_per_byte 0.5, all at 0:
 *   fold: 2 sends 24 bytes to 0 at 1: arrival 35; 0: 35 + 2 + 12 = 49
 *   m = 1: half, 12 bytes: 0 sends at 50 (arrival 72), 1 at 1 (23);
 *          0: max(50, 23) + 2 + 6 = 58, 1: max(1, 72) + 8 = 80
 *   back: 0 sends member 2's block, 8 bytes, at 59: arrival 77; 2: 79
 */
TEST(collalgo_reduce_scatter_rd_3)
{
    uint64_t enter[3] = {0}, sent[3] = {24, 24, 24}, exit[3];
    uint64_t want[3] = {59, 80, 79};
    tnet t;
    up_ca_net net = dnet(&t, 3, 0.5);
    up_ca_in in = mkin(UP_CK_REDUCE_SCATTER, UP_ALGO_RECURSIVE_DOUBLING, 3, UINT32_MAX, enter,
                       sent, sent);
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want, 3);
}

/* ---- scan ---------------------------------------------------------------------- */

/*
 * Scan chain on 4 members, 8 bytes (member i recorded sent (4 - i) 8,
 * received (i + 1) 8), reduce_per_byte 0.5 (4 per combine), all at 0:
 *   0 sends at 1: arrival 19                                      exit 1
 *   1: 19 + 2 + 4 = 25, sends at 26: 44                           exit 26
 *   2: 44 + 6 = 50, sends at 51: 69                               exit 51
 *   3: 69 + 6 = 75
 * Exscan (sent (3 - i) 8, received i 8): the last member keeps the prefix
 * it receives without combining: 69 + 2 = 71.
 */
TEST(collalgo_scan_linear_4)
{
    uint64_t enter[4] = {0}, sent[4] = {32, 24, 16, 8}, recvd[4] = {8, 16, 24, 32}, exit[4];
    uint64_t xsent[4] = {24, 16, 8, 0}, xrecvd[4] = {0, 8, 16, 24};
    uint64_t want[4] = {1, 26, 51, 75}, xwant[4] = {1, 26, 51, 71};
    tnet t;
    up_ca_net net = dnet(&t, 4, 0.5);
    up_ca_in in = mkin(UP_CK_SCAN, UP_ALGO_LINEAR, 4, UINT32_MAX, enter, sent, recvd);
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want, 4);
    in = mkin(UP_CK_SCAN, UP_ALGO_LINEAR, 4, UINT32_MAX, enter, xsent, xrecvd);
    in.exscan = true;
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, xwant, 4);
}

/*
 * Recursive doubling scan on 3 members, 8 bytes, combining 4, all at 0:
 *   m = 1: 0<->1 sent at 1, arrive 19: both 19 + 6 = 25; 2 has no partner
 *   m = 2: 0<->2: 0 sends at 26 (arrival 44), 2 at 1 (19);
 *          0: max(26, 19) + 6 = 32, 2: max(1, 44) + 6 = 50; 1 idle: 25
 */
TEST(collalgo_scan_rd_3)
{
    uint64_t enter[3] = {0}, sent[3] = {24, 16, 8}, recvd[3] = {8, 16, 24}, exit[3];
    uint64_t want[3] = {32, 25, 50};
    tnet t;
    up_ca_net net = dnet(&t, 3, 0.5);
    up_ca_in in = mkin(UP_CK_SCAN, UP_ALGO_RECURSIVE_DOUBLING, 3, UINT32_MAX, enter, sent, recvd);
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, want, 3);
}

/* ---- edges ---------------------------------------------------------------------- */

TEST(collalgo_single_member)
{
    uint64_t enter[1] = {1234}, bytes[1] = {100}, exit[1];
    up_ca_barrier bar = {5000, 5000, 2000, 2000, 10000, true, 16};
    unsigned k, a;
    tnet t;
    up_ca_net net = dnet(&t, 1, 0.5);
    for (k = 0; k < UP_CK_COUNT_; k++)
        for (a = 0; a < UP_ALGO_COUNT_; a++) {
            up_ca_in in = mkin((up_coll_kind)k, a, 1, 0, enter, bytes, bytes);
            in.bar = &bar;
            exit[0] = 0;
            run_ok(&in, &net, exit);
            CHECK_EQ(exit[0], 1234);
        }
    CHECK_EQ(t.calls, 0);
    {   /* no members: nothing to do */
        up_ca_in in = mkin(UP_CK_BCAST, UP_ALGO_BINOMIAL, 0, 0, NULL, NULL, NULL);
        run_ok(&in, &net, exit);
    }
}

/* An algorithm the kind does not have is the kind's default. */
TEST(collalgo_fallback)
{
    uint64_t enter[8] = {0, 0, 0, 0, 500, 0, 0, 0}, sent[8] = {700}, recvd[8];
    uint64_t exit[8], ref[8];
    uint64_t benter[4] = {0, 3000, 7000, 1000}, bwant[4] = {30300, 33200, 33200, 33200};
    up_ca_barrier bar = {5000, 5000, 2000, 2000, 10000, true, 16};
    uint32_t i;
    tnet t;
    up_ca_net net = dnet(&t, 8, 0);
    up_ca_in in = mkin(UP_CK_BCAST, UP_ALGO_RING, 8, 0, enter, sent, recvd);
    for (i = 0; i < 8; i++)
        recvd[i] = i ? 100 : 0;
    run_ok(&in, &net, exit);   /* ring: not a bcast algorithm -> binomial */
    in.algo = UP_ALGO_BINOMIAL;
    run_ok(&in, &net, ref);
    CHECK_EXITS(exit, ref, 8);
    in.algo = 77;
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, ref, 8);

    /* alltoall binomial -> pairwise */
    in = mkin(UP_CK_ALLTOALL, UP_ALGO_BINOMIAL, 8, UINT32_MAX, enter, recvd, recvd);
    run_ok(&in, &net, exit);
    in.algo = UP_ALGO_PAIRWISE;
    run_ok(&in, &net, ref);
    CHECK_EXITS(exit, ref, 8);

    /* scan ring -> linear chain; allgather pairwise -> ring */
    in = mkin(UP_CK_SCAN, UP_ALGO_RING, 8, UINT32_MAX, enter, recvd, recvd);
    run_ok(&in, &net, exit);
    in.algo = UP_ALGO_LINEAR;
    run_ok(&in, &net, ref);
    CHECK_EXITS(exit, ref, 8);
    in = mkin(UP_CK_ALLGATHER, UP_ALGO_PAIRWISE, 8, UINT32_MAX, enter, recvd, recvd);
    run_ok(&in, &net, exit);
    in.algo = UP_ALGO_RING;
    run_ok(&in, &net, ref);
    CHECK_EXITS(exit, ref, 8);

    /* an unknown barrier algorithm is the linear barrier (Table 1 case) */
    net = mknet(&t, 4, 100, 200, 1000, 0, 0);
    in = mkin(UP_CK_BARRIER, 9, 4, UINT32_MAX, benter, NULL, NULL);
    in.bar = &bar;
    run_ok(&in, &net, exit);
    CHECK_EXITS(exit, bwant, 4);
}

TEST(collalgo_kind_of)
{
    CHECK_EQ(up_ca_kind_of(OTF2_COLLECTIVE_OP_BARRIER), UP_CK_BARRIER);
    CHECK_EQ(up_ca_kind_of(OTF2_COLLECTIVE_OP_BCAST), UP_CK_BCAST);
    CHECK_EQ(up_ca_kind_of(OTF2_COLLECTIVE_OP_GATHER), UP_CK_GATHER);
    CHECK_EQ(up_ca_kind_of(OTF2_COLLECTIVE_OP_GATHERV), UP_CK_GATHER);
    CHECK_EQ(up_ca_kind_of(OTF2_COLLECTIVE_OP_SCATTER), UP_CK_SCATTER);
    CHECK_EQ(up_ca_kind_of(OTF2_COLLECTIVE_OP_SCATTERV), UP_CK_SCATTER);
    CHECK_EQ(up_ca_kind_of(OTF2_COLLECTIVE_OP_ALLGATHER), UP_CK_ALLGATHER);
    CHECK_EQ(up_ca_kind_of(OTF2_COLLECTIVE_OP_ALLGATHERV), UP_CK_ALLGATHER);
    CHECK_EQ(up_ca_kind_of(OTF2_COLLECTIVE_OP_ALLTOALL), UP_CK_ALLTOALL);
    CHECK_EQ(up_ca_kind_of(OTF2_COLLECTIVE_OP_ALLTOALLV), UP_CK_ALLTOALL);
    CHECK_EQ(up_ca_kind_of(OTF2_COLLECTIVE_OP_ALLTOALLW), UP_CK_ALLTOALL);
    CHECK_EQ(up_ca_kind_of(OTF2_COLLECTIVE_OP_ALLREDUCE), UP_CK_ALLREDUCE);
    CHECK_EQ(up_ca_kind_of(OTF2_COLLECTIVE_OP_REDUCE), UP_CK_REDUCE);
    CHECK_EQ(up_ca_kind_of(OTF2_COLLECTIVE_OP_REDUCE_SCATTER), UP_CK_REDUCE_SCATTER);
    CHECK_EQ(up_ca_kind_of(OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK), UP_CK_REDUCE_SCATTER);
    CHECK_EQ(up_ca_kind_of(OTF2_COLLECTIVE_OP_SCAN), UP_CK_SCAN);
    CHECK_EQ(up_ca_kind_of(OTF2_COLLECTIVE_OP_EXSCAN), UP_CK_SCAN);
    CHECK_EQ(up_ca_kind_of(OTF2_COLLECTIVE_OP_CREATE_HANDLE), UP_CK_ALLREDUCE);
    CHECK_EQ(up_ca_kind_of(OTF2_COLLECTIVE_OP_DESTROY_HANDLE), UP_CK_ALLREDUCE);
    CHECK_EQ(up_ca_kind_of(OTF2_COLLECTIVE_OP_ALLOCATE), UP_CK_ALLREDUCE);
    CHECK_EQ(up_ca_kind_of(OTF2_COLLECTIVE_OP_DEALLOCATE), UP_CK_ALLREDUCE);
    CHECK_EQ(up_ca_kind_of(OTF2_COLLECTIVE_OP_CREATE_HANDLE_AND_ALLOCATE), UP_CK_ALLREDUCE);
    CHECK_EQ(up_ca_kind_of(OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE), UP_CK_ALLREDUCE);
    CHECK_EQ(up_ca_kind_of((OTF2_CollectiveOp)200), UP_CK_ALLREDUCE);
}

/* More than the stack scratch: the heap, and its failure. */
TEST(collalgo_large_and_enomem)
{
    enum { N = 100 };
    uint64_t enter[N] = {0}, bytes[N], exit[N];
    uint32_t i;
    up_err err = {0};
    tnet t;
    up_ca_net net = dnet(&t, N, 0);
    up_ca_in in = mkin(UP_CK_BCAST, UP_ALGO_BINOMIAL, N, 0, enter, bytes, bytes);
    for (i = 0; i < N; i++)
        bytes[i] = 0;
    run_ok(&in, &net, exit);
    /* 0 bytes, all at 0: depth of member i = its number of set bits, each
     * hop at least 1 + 10 + 2 */
    for (i = 1; i < N; i++)
        CHECK(exit[i] >= 13u * (unsigned)__builtin_popcount(i));
    CHECK_EQ(t.calls, N - 1);
    up_alloc_set_fail_after(0);
    CHECK_EQ(up_ca_times(&in, &net, exit, &err), UP_ENOMEM);
    up_alloc_set_fail_after(-1);
    CHECK_EQ(err.status, UP_ENOMEM);
    in.kind = UP_CK_COUNT_;
    CHECK_EQ(up_ca_times(&in, &net, exit, &err), UP_EINTERNAL);
}

/* ---- properties ----------------------------------------------------------------- */

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

/*
 * Random entries and byte counts, every kind and algorithm, sizes around
 * the powers of two and the stack scratch: every exit >= its entry, every
 * message between two different members; for a broadcast or scatter no
 * non-root leaves before the root entered plus one message (o_s + latency
 * + o_r); for a gather or reduce the root not before the last entry plus
 * one message.
 */
TEST(collalgo_properties)
{
    static const uint32_t sizes[] = {2, 3, 4, 5, 7, 8, 9, 16, 31, 64, 65, 100, 257};
    enum { MAXN = 257 };
    static uint64_t enter[MAXN], sent[MAXN], recvd[MAXN], exit[MAXN];
    uint64_t seed = 88172645463325252ull;
    unsigned s, k, a, rep;
    for (s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (rep = 0; rep < 3; rep++)
            for (k = 0; k < UP_CK_COUNT_; k++)
                for (a = 0; a < UP_ALGO_COUNT_ + 1; a++) {
                    uint32_t n = sizes[s], i, root = (uint32_t)(rnd(&seed) % n);
                    uint64_t last = 0;
                    up_ca_barrier bar;
                    tnet t;
                    up_ca_net net = mknet(&t, n, 1 + rnd(&seed) % 5, 1 + rnd(&seed) % 5,
                                          10 + rnd(&seed) % 50, rnd(&seed) % 2, 0.25);
                    up_ca_in in = mkin((up_coll_kind)k, a, n, rep == 2 ? UINT32_MAX : root,
                                       enter, sent, recvd);
                    bar.entry = rnd(&seed) % 100, bar.exit = rnd(&seed) % 100;
                    bar.check = rnd(&seed) % 20, bar.exit_check = rnd(&seed) % 20;
                    bar.model = rnd(&seed) % 100, bar.by_msgs = rnd(&seed) % 2;
                    bar.msg_size = 16;
                    in.bar = &bar;
                    in.exscan = rep == 1;
                    if (rep == 2)
                        root = 0;
                    for (i = 0; i < n; i++) {
                        enter[i] = 1000 + rnd(&seed) % 1000;
                        sent[i] = rnd(&seed) % 4096;
                        recvd[i] = rnd(&seed) % 4096;
                        last = enter[i] > last ? enter[i] : last;
                    }
                    if (k == UP_CK_BCAST || k == UP_CK_SCATTER)
                        for (i = 0; i < n; i++)
                            recvd[i] = i == root ? 0 : 1 + rnd(&seed) % 4096;
                    run_ok(&in, &net, exit);
                    CHECK(!t.bad);
                    for (i = 0; i < n; i++) {
                        if (exit[i] < enter[i])
                            t_fail(__FILE__, __LINE__, "kind %u algo %u n %u: exit[%u] %llu < %llu",
                                   k, a, n, i, (unsigned long long)exit[i],
                                   (unsigned long long)enter[i]);
                        if ((k == UP_CK_BCAST || k == UP_CK_SCATTER) && i != root &&
                            exit[i] < enter[root] + net.o_s + t.lat + net.o_r)
                            t_fail(__FILE__, __LINE__, "kind %u algo %u n %u: member %u left early",
                                   k, a, n, i);
                    }
                    if ((k == UP_CK_GATHER || k == UP_CK_REDUCE) &&
                        exit[root] < last + net.o_s + t.lat + net.o_r &&
                        !(enter[root] == last))
                        t_fail(__FILE__, __LINE__, "kind %u algo %u n %u: root left early", k, a, n);
                }
}
