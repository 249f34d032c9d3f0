/*
 * test_pthreads.c - the replay's rules for POSIX threads
 * (src/replay/engine_pthr.c, and the barrier and lock rules of
 * engine_omp.c they use; docs/models.md, "POSIX threads") on small traces
 * of one process written as docs/tracer.md has our tracer write them
 * (tthreads.h), compensated with O = 10 ns per record (lower mode), every
 * expected time worked out by hand.
 *
 * The model's local time (eq. 1) is t_a = prev_a + max(0, (t_m - prev_m) - O),
 * and a location's first record keeps its measured time: records 10 ns
 * apart keep their distance 0 after compensation, so a thread with many of
 * them loses more time than one without, which is what moves a dependent
 * record before its dependency when no rule holds it.  A dependency takes
 * effect once its record's overhead is over (t_m + O).  Each test says what
 * its times are with its rule taken out.  Each trace is also replayed
 * under the replay's other schedules and by two parts (a partitioned
 * replay: the threads of the process cut between them), which must give
 * the same records and counts.
 */
#include <stdio.h>

#include <otf2/otf2.h>

#include "test.h"
#include "tthreads.h"
#include "tutil.h"

#define LOCK 1 /* the mutex's number (lockID) */

/* pthread_create (its Enter, ThreadCreate(s), its Leave) on thread l */
static void p_create(tt_writer *o, unsigned l, uint64_t t, uint64_t s)
{
    tt_enter(o, l, t, TT_P_CREATE);
    OTF2_EvtWriter_ThreadCreate(tt_rec(o, l), NULL, t + 10, TT_CONTINGENT, s);
    tt_leave(o, l, t + 20, TT_P_CREATE);
}

/* pthread_join of thread s: Enter at t, ThreadWait at w, Leave 10 later */
static void p_join(tt_writer *o, unsigned l, uint64_t t, uint64_t w, uint64_t s)
{
    tt_enter(o, l, t, TT_P_JOIN);
    OTF2_EvtWriter_ThreadWait(tt_rec(o, l), NULL, w, TT_CONTINGENT, s);
    tt_leave(o, l, w + 10, TT_P_JOIN);
}

static void p_begin(tt_writer *o, unsigned l, uint64_t t, uint64_t s)
{
    OTF2_EvtWriter_ThreadBegin(tt_rec(o, l), NULL, t, TT_CONTINGENT, s);
}

static void p_end(tt_writer *o, unsigned l, uint64_t t, uint64_t s)
{
    OTF2_EvtWriter_ThreadEnd(tt_rec(o, l), NULL, t, TT_CONTINGENT, s);
}

static void p_lock(tt_writer *o, unsigned l, uint64_t t, bool acquire, uint32_t order)
{
    if (acquire)
        OTF2_EvtWriter_ThreadAcquireLock(tt_rec(o, l), NULL, t, OTF2_PARADIGM_PTHREAD, LOCK, order);
    else
        OTF2_EvtWriter_ThreadReleaseLock(tt_rec(o, l), NULL, t, OTF2_PARADIGM_PTHREAD, LOCK, order);
}

/* The trace in `in` compensated (O = 10), read back into *r; and the same
 * under the other schedules and by two parts */
static int run(const char *what, const char *in, tt_times *r, up_replay_result *res)
{
    up_comp_params p = t_params(10, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    if (tt_compensate(in, r, res) != 0)
        return -1;
    t_check_schedules(what, in, &p);
    CHECK(t_check_partition(what, in, &p) >= 0);
    return 0;
}

/* ---- create and begin, end and join -------------------------------------------------- */

TEST(pthread_begin_follows_its_create_and_join_its_end)
{
    /* O = 10.  Thread 0 creates thread 1 (s = 1) after records that shrink,
     * and joins it while it still runs.
     * Thread 0: Enter(main) 0 -> 0, 4 short work pairs 10..80 -> 0,
     *   Enter(pthread_create) 100 -> 0 + 20 - 10 = 10, ThreadCreate 110 ->
     *   10 (the thread exists from 110 + 10 = 120 measured, 10
     *   approximated), Leave 120 -> 10, Enter(pthread_join) 140 -> 20.
     * Thread 1: ThreadBegin 125, its first record: from the create, by its
     *   measured distance, 10 + (125 - 120) = 15 (without the rule it keeps
     *   its measured time, 125); Enter(work) 135 -> 15, Leave(work) 335 ->
     *   15 + 200 - 10 = 205, ThreadEnd 345 -> 205 (the thread is gone at
     *   355 measured, 205 approximated).
     * Thread 0's ThreadWait 400: the end (355) came after its previous
     *   record (pthread_join's Enter, 140): it waited idle, and follows the
     *   end, 205 + (400 - 355) = 250 (locally 20 + 260 - 10 = 270, which
     *   keeps the wait thread 1's overhead made), Leave(join) 410 -> 250,
     *   Leave(main) 420 -> 250.  With the begin rule taken out, thread 1 is
     *   125, 125, 315, 315 and the wait 315 + 45 = 360, Leave 360, 360. */
    static const uint64_t t0[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 10, 10, 20, 250, 250, 250},
                          t1[] = {15, 15, 205, 205};
    char in[4096];
    tt_writer o;
    tt_times r;
    up_replay_result res;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    if (tt_open(&o, in, 2) != 0) {
        t_fail(__FILE__, __LINE__, "cannot write the trace");
        return;
    }
    tt_enter(&o, 0, 0, TT_MAIN);
    tt_short_work(&o, 0, 10, 4);
    p_create(&o, 0, 100, 1);
    p_join(&o, 0, 140, 400, 1);
    tt_leave(&o, 0, 420, TT_MAIN);
    p_begin(&o, 1, 125, 1);
    tt_enter(&o, 1, 135, TT_WORK);
    tt_leave(&o, 1, 335, TT_WORK);
    p_end(&o, 1, 345, 1);
    CHECK(tt_close(&o, 500) == 0);
    if (run("pthread create/join", in, &r, &res) != 0)
        return;
    TT_CHECK_LOC(&r, 0, t0);
    TT_CHECK_LOC(&r, 1, t1);
    CHECK_EQ(res.repairs[UP_REPAIR_pthread_unpaired], 0);
    up_replay_result_free(&res);
}

TEST(pthread_join_of_an_ended_thread_no_earlier_than_its_end)
{
    /* O = 10.  The joiner comes after the thread ended: it did not wait,
     * keeps its local time, raised to the end.
     * Thread 0: Enter(main) 0 -> 0, Enter(pthread_create) 10 -> 0,
     *   ThreadCreate 20 -> 0 (the thread exists from 30), Leave 30 -> 0, 12
     *   short work pairs 40..270 -> 0, Enter(pthread_join) 280 -> 0.
     * Thread 1: ThreadBegin 35 -> 0 + (35 - 30) = 5, Enter(work) 45 -> 5,
     *   Leave(work) 245 -> 195, ThreadEnd 255 -> 195 (gone at 265).
     * Thread 0's ThreadWait 290: the end (265) came before its previous
     *   record (280): no wait; locally 0 + 10 - 10 = 0, raised to the end,
     *   195 (without the rule 0: before the thread ended), Leave(join) 300
     *   -> 195, Leave(main) 310 -> 195. */
    static const uint64_t t0[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                  0, 0, 0, 0, 0, 0, 0, 0, 0, 195, 195, 195},
                          t1[] = {5, 5, 195, 195};
    char in[4096];
    tt_writer o;
    tt_times r;
    up_replay_result res;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    if (tt_open(&o, in, 2) != 0) {
        t_fail(__FILE__, __LINE__, "cannot write the trace");
        return;
    }
    tt_enter(&o, 0, 0, TT_MAIN);
    p_create(&o, 0, 10, 1);
    tt_short_work(&o, 0, 40, 12);
    p_join(&o, 0, 280, 290, 1);
    tt_leave(&o, 0, 310, TT_MAIN);
    p_begin(&o, 1, 35, 1);
    tt_enter(&o, 1, 45, TT_WORK);
    tt_leave(&o, 1, 245, TT_WORK);
    p_end(&o, 1, 255, 1);
    CHECK(tt_close(&o, 500) == 0);
    if (run("pthread join after the end", in, &r, &res) != 0)
        return;
    TT_CHECK_LOC(&r, 0, t0);
    TT_CHECK_LOC(&r, 1, t1);
    CHECK_EQ(res.repairs[UP_REPAIR_pthread_unpaired], 0);
    up_replay_result_free(&res);
}

TEST(pthread_begin_without_create_and_join_without_end_released)
{
    /* A thread whose ThreadCreate the trace lost (s = 7), and a join of a
     * thread (s = 9) whose ThreadEnd it lost: both wait until nothing else
     * can run, then are released (the earlier first) with their local
     * times and counted; the replay ends.  O = 10.
     * Thread 1: ThreadBegin 50 keeps its time, 50; Enter(work) 60 -> 50,
     *   Leave(work) 160 -> 140, ThreadEnd 170 -> 140.
     * Thread 0: Enter(main) 0 -> 0, Enter(pthread_join) 100 -> 90,
     *   ThreadWait 300 -> 90 + 200 - 10 = 280, Leave(join) 310 -> 280,
     *   Leave(main) 320 -> 280. */
    static const uint64_t t0[] = {0, 90, 280, 280, 280}, t1[] = {50, 50, 140, 140};
    char in[4096];
    tt_writer o;
    tt_times r;
    up_replay_result res;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    if (tt_open(&o, in, 2) != 0) {
        t_fail(__FILE__, __LINE__, "cannot write the trace");
        return;
    }
    tt_enter(&o, 0, 0, TT_MAIN);
    p_join(&o, 0, 100, 300, 9);
    tt_leave(&o, 0, 320, TT_MAIN);
    p_begin(&o, 1, 50, 7);
    tt_enter(&o, 1, 60, TT_WORK);
    tt_leave(&o, 1, 160, TT_WORK);
    p_end(&o, 1, 170, 7);
    CHECK(tt_close(&o, 500) == 0);
    if (run("pthread unpaired", in, &r, &res) != 0)
        return;
    TT_CHECK_LOC(&r, 0, t0);
    TT_CHECK_LOC(&r, 1, t1);
    CHECK_EQ(res.repairs[UP_REPAIR_pthread_unpaired], 2);
    up_replay_result_free(&res);
}

/* ---- barriers ----------------------------------------------------------------------- */

TEST(pthread_barrier_of_two_exits_after_the_last_enter)
{
    /* Barrier 1 of count 2, waited at twice by threads 0 and 1 (instances
     * 0 and 1), O = 10.
     * Instance 0.  Thread 0: Enter(main) 0 -> 0, 4 short work pairs
     *   10..80 -> 0, Enter(barrier) 200 -> 0 + 120 - 10 = 110.  Thread 1:
     *   Enter(main) 0 -> 0, Enter(work) 10 -> 0, Leave(work) 290 -> 270,
     *   Enter(barrier) 300 -> 270: the last enter, measured 300 (over at
     *   310), approximated 270.  Section 4.2.2: thread 1, the first to exit
     *   (305), at 270 + max(0, 305 - 310) = 270; thread 0, which waited, at
     *   270 + (310 - 310) = 270 (locally 110 + 110 - 10 = 210: before
     *   thread 1 entered).
     * Instance 1.  Thread 0: Enter(work) 320 -> 270, Leave(work) 420 ->
     *   360, Enter(barrier) 430 -> 360.  Thread 1: 4 short work pairs
     *   315..385 -> 270, Enter(barrier) 490 -> 270 + 105 - 10 = 365, the
     *   last enter (over at 500); first exit thread 1 (495): 365 + 0 = 365;
     *   thread 0 365 + (500 - 500) = 365.  Leave(main): thread 0 510 ->
     *   365, thread 1 505 -> 365.  With the rule taken out, thread 0 is
     *   210 after instance 0, then 210, 300, 300, 360, 360. */
    static const uint64_t t0[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 110, 270, 270, 360, 360, 365, 365},
                          t1[] = {0, 0, 270, 270, 270, 270, 270, 270, 270, 270, 270, 270, 270,
                                  365, 365, 365};
    char in[4096];
    tt_writer o;
    tt_times r;
    up_replay_result res;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    if (tt_open(&o, in, 2) != 0) {
        t_fail(__FILE__, __LINE__, "cannot write the trace");
        return;
    }
    tt_enter(&o, 0, 0, TT_MAIN);
    tt_short_work(&o, 0, 10, 4);
    tt_enter_pbar(&o, 0, 200, 1, 2);
    tt_leave(&o, 0, 310, TT_P_BAR);
    tt_enter(&o, 0, 320, TT_WORK);
    tt_leave(&o, 0, 420, TT_WORK);
    tt_enter_pbar(&o, 0, 430, 1, 2);
    tt_leave(&o, 0, 500, TT_P_BAR);
    tt_leave(&o, 0, 510, TT_MAIN);
    tt_enter(&o, 1, 0, TT_MAIN);
    tt_enter(&o, 1, 10, TT_WORK);
    tt_leave(&o, 1, 290, TT_WORK);
    tt_enter_pbar(&o, 1, 300, 1, 2);
    tt_leave(&o, 1, 305, TT_P_BAR);
    tt_short_work(&o, 1, 315, 4);
    tt_enter_pbar(&o, 1, 490, 1, 2);
    tt_leave(&o, 1, 495, TT_P_BAR);
    tt_leave(&o, 1, 505, TT_MAIN);
    CHECK(tt_close(&o, 600) == 0);
    if (run("pthread barrier of two", in, &r, &res) != 0)
        return;
    TT_CHECK_LOC(&r, 0, t0);
    TT_CHECK_LOC(&r, 1, t1);
    CHECK_EQ(res.repairs[UP_REPAIR_pthread_barrier_released], 0);
    CHECK_EQ(res.repairs[UP_REPAIR_pthread_barrier_local], 0);
    up_replay_result_free(&res);
}

TEST(pthread_barrier_of_three_exits_after_the_last_enter)
{
    /* Barrier 4 of count 3, threads 0, 1, 2; O = 10.  The last enter
     * measured (thread 2) is not the last approximated (thread 1).
     * Thread 0: Enter(main) 0 -> 0, 4 short work pairs 10..80 -> 0,
     *   Enter(barrier) 150 -> 0 + 70 - 10 = 60.
     * Thread 1: Enter(main) 0, Enter(work) 10 -> 0, Leave(work) 300 -> 280,
     *   Enter(barrier) 310 -> 280.
     * Thread 2: Enter(main) 0, 8 short work pairs 10..160 -> 0, Enter(work)
     *   170 -> 0, Leave(work) 390 -> 210, Enter(barrier) 400 -> 210.
     * The latest measured enter is 400 (over at 410), the latest
     * approximated 280.  Section 4.2.2: thread 2 exits first (410): 280 +
     * (410 - 410) = 280; thread 1 (415) 280 + 5 = 285; thread 0 (420) 280 +
     * 10 = 290.  Leave(main): thread 0 430 -> 290, thread 1 425 -> 285,
     * thread 2 420 -> 280.  With the rule taken out the exits are local:
     * thread 0 60 + 270 - 10 = 320, thread 1 280 + 105 - 10 = 375, thread 2
     * 210 (before thread 1 entered). */
    static const uint64_t t0[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 60, 290, 290},
                          t1[] = {0, 0, 280, 280, 285, 285},
                          t2[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 210, 210,
                                  280, 280};
    char in[4096];
    tt_writer o;
    tt_times r;
    up_replay_result res;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    if (tt_open(&o, in, 3) != 0) {
        t_fail(__FILE__, __LINE__, "cannot write the trace");
        return;
    }
    tt_enter(&o, 0, 0, TT_MAIN);
    tt_short_work(&o, 0, 10, 4);
    tt_enter_pbar(&o, 0, 150, 4, 3);
    tt_leave(&o, 0, 420, TT_P_BAR);
    tt_leave(&o, 0, 430, TT_MAIN);
    tt_enter(&o, 1, 0, TT_MAIN);
    tt_enter(&o, 1, 10, TT_WORK);
    tt_leave(&o, 1, 300, TT_WORK);
    tt_enter_pbar(&o, 1, 310, 4, 3);
    tt_leave(&o, 1, 415, TT_P_BAR);
    tt_leave(&o, 1, 425, TT_MAIN);
    tt_enter(&o, 2, 0, TT_MAIN);
    tt_short_work(&o, 2, 10, 8);
    tt_enter(&o, 2, 170, TT_WORK);
    tt_leave(&o, 2, 390, TT_WORK);
    tt_enter_pbar(&o, 2, 400, 4, 3);
    tt_leave(&o, 2, 410, TT_P_BAR);
    tt_leave(&o, 2, 420, TT_MAIN);
    CHECK(tt_close(&o, 600) == 0);
    if (run("pthread barrier of three", in, &r, &res) != 0)
        return;
    TT_CHECK_LOC(&r, 0, t0);
    TT_CHECK_LOC(&r, 1, t1);
    TT_CHECK_LOC(&r, 2, t2);
    CHECK_EQ(res.repairs[UP_REPAIR_pthread_barrier_released], 0);
    CHECK_EQ(res.repairs[UP_REPAIR_pthread_barrier_local], 0);
    up_replay_result_free(&res);
}

TEST(pthread_barrier_without_count_is_local)
{
    /* pthread_barrier_wait regions whose Enter names no barrier (a trace
     * without our attributes): local records, each counted; nothing waits.
     * O = 10.  Thread 0: Enter(main) 0, 4 short work pairs -> 0,
     * Enter(barrier) 200 -> 110, Leave 310 -> 210 (before thread 1
     * entered: nothing knows it waited for it), Leave(main) 320 -> 210.
     * Thread 1: Enter(main) 0, Enter(work) 10 -> 0, Leave(work) 290 ->
     * 270, Enter(barrier) 300 -> 270, Leave 305 -> 270, Leave(main) 315 ->
     * 270.  With waits for an unknown count (the rule taken out), the
     * exits would be released, not local, and counted so. */
    static const uint64_t t0[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 110, 210, 210},
                          t1[] = {0, 0, 270, 270, 270, 270};
    char in[4096];
    tt_writer o;
    tt_times r;
    up_replay_result res;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    if (tt_open(&o, in, 2) != 0) {
        t_fail(__FILE__, __LINE__, "cannot write the trace");
        return;
    }
    tt_enter(&o, 0, 0, TT_MAIN);
    tt_short_work(&o, 0, 10, 4);
    tt_enter(&o, 0, 200, TT_P_BAR);
    tt_leave(&o, 0, 310, TT_P_BAR);
    tt_leave(&o, 0, 320, TT_MAIN);
    tt_enter(&o, 1, 0, TT_MAIN);
    tt_enter(&o, 1, 10, TT_WORK);
    tt_leave(&o, 1, 290, TT_WORK);
    tt_enter_pbar(&o, 1, 300, 1, 0); /* a count of 0: unknown */
    tt_leave(&o, 1, 305, TT_P_BAR);
    tt_leave(&o, 1, 315, TT_MAIN);
    CHECK(tt_close(&o, 600) == 0);
    if (run("pthread barrier without count", in, &r, &res) != 0)
        return;
    TT_CHECK_LOC(&r, 0, t0);
    TT_CHECK_LOC(&r, 1, t1);
    CHECK_EQ(res.repairs[UP_REPAIR_pthread_barrier_local], 2);
    CHECK_EQ(res.repairs[UP_REPAIR_pthread_barrier_released], 0);
    up_replay_result_free(&res);
}

/* ---- mutexes and condition variables ------------------------------------------------ */

TEST(pthread_cond_wait_reacquires_after_the_signallers_unlock)
{
    /* Thread 0 locks mutex 1 (acquisition 1) and waits on a condition
     * variable: pthread_cond_wait releases the mutex (release 1) and, once
     * signalled, takes it again (acquisition 3).  Thread 1 takes it in
     * between (acquisition 2), signals and unlocks (release 2).  Model
     * PTHREAD, O = 10.
     * Thread 0: Enter(main) 0, 8 short work pairs 10..160 -> 0,
     *   Enter(mutex_lock) 170, Acquire(1) 180, Leave 190, Enter(cond_wait)
     *   200, Release(1) 210: all 0 (the mutex free at 220 measured, 0
     *   approximated).
     * Thread 1: Enter(main) 0, Enter(work) 10 -> 0, Leave(work) 230 ->
     *   210, Enter(mutex_lock) 240 -> 210, Acquire(2) 250: it asked at 240
     *   + 10, after the mutex was free, so it did not wait: locally 210,
     *   no earlier than release 1 (0): 210; Leave 260, Enter(cond_signal)
     *   270, Leave 280, Enter(mutex_unlock) 290, Release(2) 300 (free at
     *   310 measured, 210 approximated), Leave 310, Leave(main) 320: 210.
     * Thread 0's Acquire(3) 400: it asked (its Release 1 at 210, + 10)
     *   before release 2 (310) and waited idle: Section 4.3.2 times it from
     *   the release by the measured hand-off, 210 + (400 - 310) = 300
     *   (locally 0 + 190 - 10 = 180: before thread 1 let go of the mutex).
     *   Leave(cond_wait) 410, Enter(mutex_unlock) 420, Release(3) 430,
     *   Leave 440, Leave(main) 450: 300. */
    static const uint64_t t0[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                  0, 0, 0, 0, 300, 300, 300, 300, 300, 300},
                          t1[] = {0, 0, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210};
    char in[4096];
    tt_writer o;
    tt_times r;
    up_replay_result res;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    if (tt_open(&o, in, 2) != 0) {
        t_fail(__FILE__, __LINE__, "cannot write the trace");
        return;
    }
    tt_enter(&o, 0, 0, TT_MAIN);
    tt_short_work(&o, 0, 10, 8);
    tt_enter(&o, 0, 170, TT_P_LOCK);
    p_lock(&o, 0, 180, true, 1);
    tt_leave(&o, 0, 190, TT_P_LOCK);
    tt_enter(&o, 0, 200, TT_P_CONDWAIT);
    p_lock(&o, 0, 210, false, 1);
    p_lock(&o, 0, 400, true, 3);
    tt_leave(&o, 0, 410, TT_P_CONDWAIT);
    tt_enter(&o, 0, 420, TT_P_UNLOCK);
    p_lock(&o, 0, 430, false, 3);
    tt_leave(&o, 0, 440, TT_P_UNLOCK);
    tt_leave(&o, 0, 450, TT_MAIN);
    tt_enter(&o, 1, 0, TT_MAIN);
    tt_enter(&o, 1, 10, TT_WORK);
    tt_leave(&o, 1, 230, TT_WORK);
    tt_enter(&o, 1, 240, TT_P_LOCK);
    p_lock(&o, 1, 250, true, 2);
    tt_leave(&o, 1, 260, TT_P_LOCK);
    tt_enter(&o, 1, 270, TT_P_SIGNAL);
    tt_leave(&o, 1, 280, TT_P_SIGNAL);
    tt_enter(&o, 1, 290, TT_P_UNLOCK);
    p_lock(&o, 1, 300, false, 2);
    tt_leave(&o, 1, 310, TT_P_UNLOCK);
    tt_leave(&o, 1, 320, TT_MAIN);
    CHECK(tt_close(&o, 600) == 0);
    if (run("pthread cond_wait", in, &r, &res) != 0)
        return;
    TT_CHECK_LOC(&r, 0, t0);
    TT_CHECK_LOC(&r, 1, t1);
    CHECK_EQ(res.repairs[UP_REPAIR_omp_lock_released], 0);
    up_replay_result_free(&res);
}
