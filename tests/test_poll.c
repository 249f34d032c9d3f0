/*
 * test_poll.c - the polling rules (docs/models.md, "Polling") on traces
 * written by the tests, every expected timestamp worked out by hand in the
 * comments.  Clock: 1 tick = 1 ns; O = 10 ns for every record kind; network
 * mode with S = 100 ns, no per-byte time, no copy time; one uninstrumented
 * MPI_Test costs test_ns = 20 ns.  Each case is also replayed with
 * --polls local, the rule before issue 21 (every poll local work).
 */
#include <string.h>

#include "test.h"
#include "tutil.h"
#include "tracegen/tracegen.h"

#define NS 1000000000ull

static up_comp_params poll_params(up_polls polls)
{
    up_comp_params p = t_params(10, UP_MODE_NETWORK, UP_COLLECTIVE_INDIVIDUAL);
    p.latency_ns = 100;
    p.network_set = true;
    p.test_ns = 20;
    p.polls = polls;
    return p;
}

/* Compensates `in` with *p into folder `tag` and checks location `loc`
 * against want[n]; fills the result for the counts (free it). */
static void run_params(const char *in, const up_comp_params *p, const char *tag, uint64_t loc,
                       const uint64_t *want, size_t n, up_replay_result *res)
{
    char out[4096];
    tr_trace t;
    memset(res, 0, sizeof *res);
    snprintf(out, sizeof out, "%s", t_dir(tag));
    if (t_compensate(in, out, p, res, NULL) != UP_OK) {
        CHECK(!"compensation failed");
        return;
    }
    if (tr_load(out, &t) != 0) {
        CHECK(!"cannot load the output");
        return;
    }
    CHECK_TIMES(&t, loc, want, n);
    tr_free(&t);
}

/* The same with poll_params(polls). */
static void run_case(const char *in, up_polls polls, uint64_t loc, const uint64_t *want, size_t n,
                     up_replay_result *res)
{
    up_comp_params p = poll_params(polls);
    run_params(in, &p, polls == UP_POLLS_LOCAL ? "local" : "model", loc, want, n, res);
}

/* Rank 0's sender: work 100..320 around an overhead region 110..310 (its
 * gaps removed whole), then MPI_Isend, MpiIsend at 340.  Approximated:
 * E(work) 100; E(flush) 110 -> 100; L(flush) 310 -> 100 (inside the
 * region); L(work) 320 -> 100 + 10 - 10; E(Isend) 330, MpiIsend 340,
 * L 350 -> 100; E(Finalize) 800 -> 100 + 450 - 10 = 540.  send_a = 100,
 * the message arrives at 100 + S = 200 (its measured transfer, to 720 less
 * the send's O, is longer: no cap). */
static void write_sender(tg *g, uint64_t send_t, unsigned dst, uint32_t tag)
{
    OTF2_EvtWriter *w = tg_writer(g, 0);
    tg_enter(g, 0, 100, TG_WORK);
    tg_enter(g, 0, 110, TG_FLUSH_REGION);
    tg_leave(g, 0, send_t - 30, TG_FLUSH_REGION);
    tg_leave(g, 0, send_t - 20, TG_WORK);
    tg_enter(g, 0, send_t - 10, TG_ISEND);
    CHECK(OTF2_EvtWriter_MpiIsend(w, NULL, send_t, dst, TG_COMM_WORLD, tag, 8, 1) == OTF2_SUCCESS);
    tg_leave(g, 0, send_t + 10, TG_ISEND);
    tg_enter(g, 0, 800, TG_FINALIZE);
}

/* Rank r posts MPI_Irecv(src, tag) as request req: E 100, request 110, L 120. */
static void write_irecv(tg *g, unsigned r, uint64_t req)
{
    tg_enter(g, r, 100, TG_IRECV);
    CHECK(OTF2_EvtWriter_MpiIrecvRequest(tg_writer(g, r), NULL, 110, req) == OTF2_SUCCESS);
    tg_leave(g, r, 120, TG_IRECV);
}

/* A failed poll call of region `reg` at t: Enter t, MpiRequestTest t + 10
 * (for MPI_Test), Leave t + 40. */
static void failed_poll(tg *g, unsigned r, uint64_t t, tg_region_t reg, uint64_t req)
{
    tg_enter(g, r, t, reg);
    if (reg == TG_TEST)
        tg_request_test(g, r, t + 10, req);
    tg_leave(g, r, t + 40, reg);
}

/* ---- a spin ------------------------------------------------------------------ */

/* Rank 1 spins on MPI_Test: ten failed calls every 50 ns from 200 (the
 * Leave 10 ns before the next Enter: only its O between them), the
 * eleventh (Enter 700) completes the receive (MpiIrecv 720, Leave 740);
 * E(Finalize) 800. */
static void write_spin(const char *dir)
{
    tg *g = tg_open(dir, 2, NS, 0);
    unsigned k;
    write_sender(g, 340, 1, 5);
    write_irecv(g, 1, 1);
    for (k = 0; k < 10; k++)
        failed_poll(g, 1, 200 + 50 * k, TG_TEST, 1);
    tg_enter(g, 1, 700, TG_TEST);
    CHECK(OTF2_EvtWriter_MpiIrecv(tg_writer(g, 1), NULL, 720, 0, TG_COMM_WORLD, 5, 8, 1) == OTF2_SUCCESS);
    tg_leave(g, 1, 740, TG_TEST);
    tg_enter(g, 1, 800, TG_FINALIZE);
    CHECK(tg_close(g) == 0);
}

TEST(poll_spin_ends_at_the_first_poll_after_the_arrival)
{
    /* Rank 1: E(Irecv) 100, request 110, L 120 -> 100 (gaps of 10 = O).
     * The spin starts at E(Test) 200 -> 100 + 80 - 10 = 170 = spin_a.
     * Its ten failed calls (30 records) and the last call's Enter take no
     * time: 170.  The message arrives at 200: polls start at 170, 190,
     * 210, ...; the first at or after 200 is 210 (k = ceil(30 / 20) = 2),
     * it ends at 230: MpiIrecv 230.  L(Test) 740 -> 230 + 20 - 10 = 240;
     * E(Finalize) 800 -> 240 + 60 - 10 = 290. */
    uint64_t want[37];
    size_t i, n = 0;
    up_replay_result res;
    char in[4096];
    snprintf(in, sizeof in, "%s", t_dir("in"));
    write_spin(in);
    want[n++] = 100, want[n++] = 100, want[n++] = 100;
    for (i = 0; i < 31; i++)
        want[n++] = 170;
    want[n++] = 230, want[n++] = 240, want[n++] = 290;
    run_case(in, UP_POLLS_MODEL, 1, want, n, &res);
    CHECK_EQ(res.spins, 1);
    CHECK_EQ(res.polls_collapsed, 10);
    CHECK_EQ(res.completions_moved, 0);
    up_replay_result_free(&res);

    /* --polls local: every call keeps 50 - 3 O = 20 ns (E 170 + 20k, its
     * MpiRequestTest the same, L 190 + 20k): E(Test) 700 ->
     * 170 + 10 * 20 = 370; MpiIrecv (m.2): max(200, 370) = 370; L 380;
     * E(Finalize) 430. */
    n = 3;
    for (i = 0; i < 10; i++)
        want[n++] = 170 + 20 * i, want[n++] = 170 + 20 * i, want[n++] = 190 + 20 * i;
    want[n++] = 370, want[n++] = 370, want[n++] = 380, want[n++] = 430;
    run_case(in, UP_POLLS_LOCAL, 1, want, n, &res);
    CHECK_EQ(res.spins, 0);
    CHECK_EQ(res.polls_collapsed, 0);
    up_replay_result_free(&res);
}

/* ---- an interleaved loop -------------------------------------------------------- */

/* Rank 0 sends at 2020 after plain work (no overhead region): E(work) 100,
 * L 2000 -> 1990, E(Isend) 2010, MpiIsend 2020, L 2030 -> 1990;
 * E(Finalize) 9000 -> 8950.  The message is there at 1990 + 100 = 2090.
 * Rank 1: MPI_Irecv 100-120 -> 100, an overhead region 130..630 -> 100
 * (its loop runs 500 ns earlier than measured), then seven iterations
 * k = 0..6 of work 300 ns and a poll: E(work) 640 + 400k, L(work)
 * 940 + 400k, E(Test) 950 + 400k, MpiRequestTest (or, for k = 4, the
 * completion MpiIrecv) 960 + 400k, L(Test) 990 + 400k; E(Finalize) 3440.
 * Between two polls lie 350 ns of program time (more than the spin gap):
 * not a spin. */
static void write_interleaved(const char *dir)
{
    tg *g = tg_open(dir, 2, NS, 0);
    OTF2_EvtWriter *w = tg_writer(g, 0);
    unsigned k;
    tg_enter(g, 0, 100, TG_WORK);
    tg_leave(g, 0, 2000, TG_WORK);
    tg_enter(g, 0, 2010, TG_ISEND);
    CHECK(OTF2_EvtWriter_MpiIsend(w, NULL, 2020, 1, TG_COMM_WORLD, 5, 8, 1) == OTF2_SUCCESS);
    tg_leave(g, 0, 2030, TG_ISEND);
    tg_enter(g, 0, 9000, TG_FINALIZE);
    write_irecv(g, 1, 1);
    tg_enter(g, 1, 130, TG_FLUSH_REGION);
    tg_leave(g, 1, 630, TG_FLUSH_REGION);
    for (k = 0; k < 7; k++) {
        uint64_t t = 640 + 400 * k;
        tg_enter(g, 1, t, TG_WORK);
        tg_leave(g, 1, t + 300, TG_WORK);
        tg_enter(g, 1, t + 310, TG_TEST);
        if (k == 4)
            CHECK(OTF2_EvtWriter_MpiIrecv(tg_writer(g, 1), NULL, t + 320, 0, TG_COMM_WORLD, 5, 8, 1) ==
                  OTF2_SUCCESS);
        else
            tg_request_test(g, 1, t + 320, 1);
        tg_leave(g, 1, t + 350, TG_TEST);
    }
    tg_enter(g, 1, 3440, TG_FINALIZE);
    CHECK(tg_close(g) == 0);
}

TEST(poll_interleaved_completion_moves_to_a_later_poll)
{
    /* Rank 1 approximated: 100 x 5 (Irecv and the overhead region), then
     * iteration k: E(work) 100 + 350k, L(work) 390 + 350k (300 - O),
     * E(Test) and its second record 390 + 350k, L(Test) 410 + 350k.
     * k = 4: E(Test) 1790, and the completion's local time 1790 is before
     * its message (2090): the program did not find it there.  Its record
     * leaves poll 4 (Enter 1790, Leave 1810) for the first poll ending at
     * or after 2090: poll 5 (E 2140, L 2160), written at max(2090, 2140)
     * = 2140 after that poll's MpiRequestTest.  Nothing waited: iteration 6
     * ends at L(Test) 2510, E(Finalize) 3440 -> 2510 + 50 - 10 = 2550. */
    uint64_t want[64];
    size_t n = 0, k;
    up_replay_result res;
    char in[4096];
    snprintf(in, sizeof in, "%s", t_dir("in"));
    write_interleaved(in);
    for (k = 0; k < 5; k++)
        want[n++] = 100;
    for (k = 0; k < 7; k++) {
        want[n++] = 100 + 350 * k, want[n++] = 390 + 350 * k, want[n++] = 390 + 350 * k;
        if (k != 4) /* poll 4 lost its completion; poll 5 has two records */
            want[n++] = 390 + 350 * k;
        if (k == 5)
            want[n++] = 2140;
        want[n++] = 410 + 350 * k;
    }
    want[n++] = 2550;
    run_case(in, UP_POLLS_MODEL, 1, want, n, &res);
    CHECK_EQ(res.spins, 0);
    CHECK_EQ(res.completions_moved, 1);
    up_replay_result_free(&res);

    /* --polls local: the completion waits in poll 4, MpiIrecv at 2090
     * (m.2: max(2090, 1790)), and every later record moves 300 later:
     * E(Finalize) 2850. */
    n = 0;
    for (k = 0; k < 5; k++)
        want[n++] = 100;
    for (k = 0; k < 7; k++) {
        uint64_t d = k >= 4 ? 300 : 0;
        want[n++] = 100 + 350 * k + (k > 4 ? d : 0), want[n++] = 390 + 350 * k + (k > 4 ? d : 0);
        want[n++] = 390 + 350 * k + (k > 4 ? d : 0);
        want[n++] = 390 + 350 * k + d;
        want[n++] = 410 + 350 * k + d;
    }
    want[n++] = 2850;
    run_case(in, UP_POLLS_LOCAL, 1, want, n, &res);
    CHECK_EQ(res.completions_moved, 0);
    up_replay_result_free(&res);
}

/* ---- MPI_Testany over two requests ------------------------------------------------ */

TEST(poll_testany_spin_over_two_requests)
{
    /* Ranks 0 and 1 send to rank 2 (tag 5): rank 0's MpiIsend at 340 ->
     * 100 as in write_sender, arriving at 200; rank 1's the same at 540
     * (its overhead region 110..510) -> 100, arriving at 200 too.  Rank 2
     * posts two MPI_Irecv (requests 1 and 2, E 100 .. L 120 and E 130 ..
     * L 150 -> 100) and spins on MPI_Testany (Enter, Leave 40 ns apart,
     * no record inside a failed call): six failed calls at 200 + 50k,
     * the seventh (Enter 500) completes rank 0's receive (MpiIrecv 520,
     * Leave 540), then five failed calls at 600 + 50k and the sixth (Enter
     * 850) completes rank 1's (MpiIrecv 870, Leave 890); E(Finalize) 950.
     * Approximated: the first spin starts at E 200 -> 100 + 50 - 10 = 140;
     * 13 records at 140; its polls start at 140, 160, 180, 200: the one at
     * 200 finds the message (k = 3), MpiIrecv 220, Leave 540 -> 230.  The
     * second spin starts at E 600 -> 230 + 60 - 10 = 280 > 200: k = 0,
     * MpiIrecv 300, Leave 310, E(Finalize) 950 -> 310 + 60 - 10 = 360. */
    static const uint64_t want[] = {100, 100, 100, 100, 100, 100, 140, 140, 140, 140, 140, 140, 140,
                                    140, 140, 140, 140, 140, 140, 220, 230, 280, 280, 280, 280,
                                    280, 280, 280, 280, 280, 280, 280, 300, 310, 360};
    tg *g;
    unsigned k;
    up_replay_result res;
    char in[4096];
    OTF2_EvtWriter *w;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 3, NS, 0);
    write_sender(g, 340, 2, 5);
    w = tg_writer(g, 1);
    tg_enter(g, 1, 100, TG_WORK);
    tg_enter(g, 1, 110, TG_FLUSH_REGION);
    tg_leave(g, 1, 510, TG_FLUSH_REGION);
    tg_leave(g, 1, 520, TG_WORK);
    tg_enter(g, 1, 530, TG_ISEND);
    CHECK(OTF2_EvtWriter_MpiIsend(w, NULL, 540, 2, TG_COMM_WORLD, 5, 8, 1) == OTF2_SUCCESS);
    tg_leave(g, 1, 550, TG_ISEND);
    tg_enter(g, 1, 960, TG_FINALIZE);
    w = tg_writer(g, 2);
    write_irecv(g, 2, 1);
    tg_enter(g, 2, 130, TG_IRECV);
    CHECK(OTF2_EvtWriter_MpiIrecvRequest(w, NULL, 140, 2) == OTF2_SUCCESS);
    tg_leave(g, 2, 150, TG_IRECV);
    for (k = 0; k < 6; k++)
        failed_poll(g, 2, 200 + 50 * k, TG_TESTANY, 0);
    tg_enter(g, 2, 500, TG_TESTANY);
    CHECK(OTF2_EvtWriter_MpiIrecv(w, NULL, 520, 0, TG_COMM_WORLD, 5, 8, 1) == OTF2_SUCCESS);
    tg_leave(g, 2, 540, TG_TESTANY);
    for (k = 0; k < 5; k++)
        failed_poll(g, 2, 600 + 50 * k, TG_TESTANY, 0);
    tg_enter(g, 2, 850, TG_TESTANY);
    CHECK(OTF2_EvtWriter_MpiIrecv(w, NULL, 870, 1, TG_COMM_WORLD, 5, 8, 2) == OTF2_SUCCESS);
    tg_leave(g, 2, 890, TG_TESTANY);
    tg_enter(g, 2, 950, TG_FINALIZE);
    CHECK(tg_close(g) == 0);
    run_case(in, UP_POLLS_MODEL, 2, want, sizeof want / sizeof want[0], &res);
    CHECK_EQ(res.spins, 2);
    CHECK_EQ(res.polls_collapsed, 11);
    up_replay_result_free(&res);
}

/* ---- MPI_Iprobe, then MPI_Recv ------------------------------------------------------ */

TEST(poll_iprobe_spin_then_recv)
{
    /* Rank 1 spins on MPI_Iprobe (Enter, Leave 40 ns later, no record):
     * eight calls at 200 + 50k, the last of which (Enter 550, Leave 590)
     * found the message; MPI_Recv follows (Enter 600, MpiRecv 620, Leave
     * 630); E(Finalize) 800.  Approximated: E(Irecv)... no receive posted
     * before: rank 1 starts with E(work) 100, L(work) 190 -> 180; the spin
     * starts at E 200 -> 180 + 10 - 10 = 180; seven failed calls and the
     * last one's Enter at 180; its Leave 590: eq. (1) gives 180 + 40 - 10
     * = 210, but a poll call without a completion record lasts no longer
     * than test_ns: 200; E(Recv) 600 -> 200 + 10 - 10 = 200; MpiRecv
     * (m.2): max(send_a 100 + 100, 200) = 200; Leave 630 -> 200;
     * E(Finalize) 800 -> 200 + 170 - 10 = 360.  With --polls local the
     * calls keep 40 - 10 + 10 - 10
     * = 30 each: E(Recv) 180 + 8 * 30 = 420, MpiRecv 420, L 420,
     * E(Finalize) 580. */
    uint64_t want[24];
    size_t n = 0, k;
    tg *g;
    up_replay_result res;
    char in[4096];
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 2, NS, 0);
    write_sender(g, 340, 1, 5);
    tg_enter(g, 1, 100, TG_WORK);
    tg_leave(g, 1, 190, TG_WORK);
    for (k = 0; k < 8; k++)
        failed_poll(g, 1, 200 + 50 * k, TG_IPROBE, 0);
    tg_mpi_recv(g, 1, 600, 620, 630, 0, 5, 8);
    tg_enter(g, 1, 800, TG_FINALIZE);
    CHECK(tg_close(g) == 0);
    want[n++] = 100, want[n++] = 180;
    for (k = 0; k < 16; k++)
        want[n++] = 180;
    want[n - 1] = 200; /* the last probe's Leave */
    want[n++] = 200, want[n++] = 200, want[n++] = 200, want[n++] = 360;
    run_case(in, UP_POLLS_MODEL, 1, want, n, &res);
    CHECK_EQ(res.spins, 1);
    CHECK_EQ(res.polls_collapsed, 7);
    up_replay_result_free(&res);
    n = 2;
    for (k = 0; k < 8; k++)
        want[n++] = 180 + 30 * k, want[n++] = 210 + 30 * k;
    want[n++] = 420, want[n++] = 420, want[n++] = 420, want[n++] = 580;
    run_case(in, UP_POLLS_LOCAL, 1, want, n, &res);
    up_replay_result_free(&res);
}

/* ---- a spin that ends in a cancelled request ----------------------------------------- */

TEST(poll_spin_ended_by_a_cancel_is_not_collapsed)
{
    /* Rank 1 tests its receive five times (200 + 50k, as in write_spin),
     * gives up: MPI_Cancel (Enter 450, Leave 470), and a last MPI_Test
     * (Enter 480, MpiRequestCancelled 490, Leave 500); E(Finalize) 800.
     * No message ended the polls: the program chose to stop, so they keep
     * their time, as with --polls local: call k at E 170 + 20k, its
     * MpiRequestTest the same, L 190 + 20k (30 - O); E(Cancel) 450 ->
     * 270 + 10 - 10 = 270, L 470 -> 280; E(Test), MpiRequestCancelled and
     * L 280; E(Finalize) 800 -> 280 + 300 - 10 = 570.  The sender's
     * message stays unreceived (counted), as in the trace. */
    uint64_t want[32];
    size_t n = 0, k;
    tg *g;
    up_replay_result res;
    char in[4096];
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 2, NS, 0);
    write_sender(g, 340, 1, 5);
    write_irecv(g, 1, 1);
    for (k = 0; k < 5; k++)
        failed_poll(g, 1, 200 + 50 * k, TG_TEST, 1);
    tg_enter(g, 1, 450, TG_CANCEL);
    tg_leave(g, 1, 470, TG_CANCEL);
    tg_enter(g, 1, 480, TG_TEST);
    CHECK(OTF2_EvtWriter_MpiRequestCancelled(tg_writer(g, 1), NULL, 490, 1) == OTF2_SUCCESS);
    tg_leave(g, 1, 500, TG_TEST);
    tg_enter(g, 1, 800, TG_FINALIZE);
    CHECK(tg_close(g) == 0);
    want[n++] = 100, want[n++] = 100, want[n++] = 100;
    for (k = 0; k < 5; k++)
        want[n++] = 170 + 20 * k, want[n++] = 170 + 20 * k, want[n++] = 190 + 20 * k;
    want[n++] = 270, want[n++] = 280, want[n++] = 280, want[n++] = 280, want[n++] = 280,
    want[n++] = 570;
    run_case(in, UP_POLLS_MODEL, 1, want, n, &res);
    CHECK_EQ(res.spins, 0);
    CHECK_EQ(res.polls_collapsed, 0);
    CHECK_EQ(res.repairs[UP_REPAIR_unmatched_send], 1);
    up_replay_result_free(&res);
    run_case(in, UP_POLLS_LOCAL, 1, want, n, &res);
    up_replay_result_free(&res);
}

/* ---- a failed poll call lasts an uninstrumented MPI_Test --------------------------- */

TEST(poll_failed_call_costs_test_ns)
{
    /* One rank: work 100..200, a failed MPI_Test that took 200 ns (Enter
     * 210, MpiRequestTest 220, Leave 410: MPI's progress, or records dearer
     * than their O), E(Finalize) 420.  Approximated: L(work) 190, E(Test)
     * and MpiRequestTest 190; the Leave by eq. (1) 190 + 190 - 10 = 370,
     * but a call that completed nothing holds no program work: it lasts no
     * longer than test_ns, 190 + 20 = 210; E(Finalize) 210.  upper keeps
     * eq. (1) (370, 370), and so does --polls local. */
    static const uint64_t model[] = {100, 190, 190, 190, 210, 210};
    static const uint64_t local[] = {100, 190, 190, 190, 370, 370};
    char in[4096];
    tg *g;
    up_replay_result res;
    up_comp_params p = poll_params(UP_POLLS_MODEL);
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 1, NS, 0);
    tg_enter(g, 0, 100, TG_WORK);
    tg_leave(g, 0, 200, TG_WORK);
    tg_enter(g, 0, 210, TG_TEST);
    tg_request_test(g, 0, 220, 1);
    tg_leave(g, 0, 410, TG_TEST);
    tg_enter(g, 0, 420, TG_FINALIZE);
    CHECK(tg_close(g) == 0);
    run_case(in, UP_POLLS_MODEL, 0, model, 6, &res);
    up_replay_result_free(&res);
    run_case(in, UP_POLLS_LOCAL, 0, local, 6, &res);
    up_replay_result_free(&res);
    p.mode = UP_MODE_UPPER;
    run_params(in, &p, "upper", 0, local, 6, &res);
    up_replay_result_free(&res);
}
