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

/* One record of a test trace, on thread l at time t */
enum {
    P_ENTER, P_LEAVE, /* a: the region */
    P_WORK,           /* a short work pairs from t (tt_short_work) */
    P_CREATE,         /* pthread_create of thread a: Enter t, ThreadCreate t + 10, Leave t + 20 */
    P_BEGIN, P_END, P_WAIT, /* ThreadBegin, ThreadEnd, ThreadWait of thread a */
    P_ACQ, P_REL,     /* mutex LOCK (model PTHREAD), acquisition a */
    P_BAR             /* pthread_barrier_wait's Enter: barrier a, count b */
};
typedef struct prec {
    unsigned l, what;
    uint64_t t;
    uint32_t a, b;
} prec;

/* pthread_join of thread s: Enter at t, ThreadWait at w, Leave 10 later */
#define JOIN(l, t, w, s) \
    {l, P_ENTER, t, TT_P_JOIN, 0}, {l, P_WAIT, w, s, 0}, {l, P_LEAVE, (w) + 10, TT_P_JOIN, 0}
/* Enter and Leave of region r */
#define IN(l, t0, t1, r) {l, P_ENTER, t0, r, 0}, {l, P_LEAVE, t1, r, 0}

static void write_rec(tt_writer *o, const prec *p)
{
    switch (p->what) {
    case P_ENTER:
        tt_enter(o, p->l, p->t, p->a);
        break;
    case P_LEAVE:
        tt_leave(o, p->l, p->t, p->a);
        break;
    case P_WORK:
        tt_short_work(o, p->l, p->t, p->a);
        break;
    case P_CREATE:
        tt_enter(o, p->l, p->t, TT_P_CREATE);
        OTF2_EvtWriter_ThreadCreate(tt_rec(o, p->l), NULL, p->t + 10, TT_CONTINGENT, p->a);
        tt_leave(o, p->l, p->t + 20, TT_P_CREATE);
        break;
    case P_BEGIN:
        OTF2_EvtWriter_ThreadBegin(tt_rec(o, p->l), NULL, p->t, TT_CONTINGENT, p->a);
        break;
    case P_END:
        OTF2_EvtWriter_ThreadEnd(tt_rec(o, p->l), NULL, p->t, TT_CONTINGENT, p->a);
        break;
    case P_WAIT:
        OTF2_EvtWriter_ThreadWait(tt_rec(o, p->l), NULL, p->t, TT_CONTINGENT, p->a);
        break;
    case P_ACQ:
        OTF2_EvtWriter_ThreadAcquireLock(tt_rec(o, p->l), NULL, p->t, OTF2_PARADIGM_PTHREAD, LOCK,
                                         p->a);
        break;
    case P_REL:
        OTF2_EvtWriter_ThreadReleaseLock(tt_rec(o, p->l), NULL, p->t, OTF2_PARADIGM_PTHREAD, LOCK,
                                         p->a);
        break;
    default:
        tt_enter_pbar(o, p->l, p->t, p->a, p->b);
        break;
    }
}

/* What thread l's records must be compensated to */
typedef struct want {
    const uint64_t *t;
    size_t n;
} want;
#define W(a) {a, sizeof(a) / sizeof(a)[0]}

/* The trace of records p[0..n) (each thread's in time order) on nw
 * threads, compensated (O = 10): thread l's times must be w[l]; the same
 * under the replay's other schedules and by two parts.  Fills *res; 0, or
 * -1 (said, nothing to free). */
static int run(const char *file, int line, const char *what, const prec *p, size_t n,
               const want *w, unsigned nw, up_replay_result *res)
{
    up_comp_params cp = t_params(10, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    char in[4096];
    tt_writer o;
    tt_times r;
    size_t i;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    if (tt_open(&o, in, nw) != 0) {
        t_fail(file, line, "%s: cannot write the trace", what);
        return -1;
    }
    for (i = 0; i < n; i++)
        write_rec(&o, &p[i]);
    if (tt_close(&o, 1000) != 0) {
        t_fail(file, line, "%s: cannot write the trace", what);
        return -1;
    }
    if (tt_compensate(in, &r, res) != 0)
        return -1;
    for (i = 0; i < nw; i++)
        tt_check_loc(file, line, &r, (unsigned)i, w[i].t, w[i].n);
    t_check_schedules(what, in, &cp);
    if (t_check_partition(what, in, &cp) < 0)
        t_fail(file, line, "%s: the partitioned replay differs", what);
    return 0;
}
#define RUN(what, p, w, res) \
    run(__FILE__, __LINE__, what, p, sizeof(p) / sizeof(p)[0], w, sizeof(w) / sizeof(w)[0], res)

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
    static const prec tr[] = {
        {0, P_ENTER, 0, TT_MAIN, 0}, {0, P_WORK, 10, 4, 0}, {0, P_CREATE, 100, 1, 0},
        JOIN(0, 140, 400, 1), {0, P_LEAVE, 420, TT_MAIN, 0},
        {1, P_BEGIN, 125, 1, 0}, IN(1, 135, 335, TT_WORK), {1, P_END, 345, 1, 0},
    };
    static const uint64_t t0[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 10, 10, 20, 250, 250, 250},
                          t1[] = {15, 15, 205, 205};
    static const want w[] = {W(t0), W(t1)};
    up_replay_result res;
    if (RUN("pthread create/join", tr, w, &res) != 0)
        return;
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
    static const prec tr[] = {
        {0, P_ENTER, 0, TT_MAIN, 0}, {0, P_CREATE, 10, 1, 0}, {0, P_WORK, 40, 12, 0},
        JOIN(0, 280, 290, 1), {0, P_LEAVE, 310, TT_MAIN, 0},
        {1, P_BEGIN, 35, 1, 0}, IN(1, 45, 245, TT_WORK), {1, P_END, 255, 1, 0},
    };
    static const uint64_t t0[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                  0, 0, 0, 0, 0, 0, 0, 0, 0, 195, 195, 195},
                          t1[] = {5, 5, 195, 195};
    static const want w[] = {W(t0), W(t1)};
    up_replay_result res;
    if (RUN("pthread join after the end", tr, w, &res) != 0)
        return;
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
     *   Leave(main) 320 -> 280.  Without the rule (neither waits nor is
     *   counted) the times are the same, and the count 0. */
    static const prec tr[] = {
        {0, P_ENTER, 0, TT_MAIN, 0}, JOIN(0, 100, 300, 9), {0, P_LEAVE, 320, TT_MAIN, 0},
        {1, P_BEGIN, 50, 7, 0}, IN(1, 60, 160, TT_WORK), {1, P_END, 170, 7, 0},
    };
    static const uint64_t t0[] = {0, 90, 280, 280, 280}, t1[] = {50, 50, 140, 140};
    static const want w[] = {W(t0), W(t1)};
    up_replay_result res;
    if (RUN("pthread unpaired", tr, w, &res) != 0)
        return;
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
    static const prec tr[] = {
        {0, P_ENTER, 0, TT_MAIN, 0}, {0, P_WORK, 10, 4, 0}, {0, P_BAR, 200, 1, 2},
        {0, P_LEAVE, 310, TT_P_BAR, 0}, IN(0, 320, 420, TT_WORK), {0, P_BAR, 430, 1, 2},
        {0, P_LEAVE, 500, TT_P_BAR, 0}, {0, P_LEAVE, 510, TT_MAIN, 0},
        {1, P_ENTER, 0, TT_MAIN, 0}, IN(1, 10, 290, TT_WORK), {1, P_BAR, 300, 1, 2},
        {1, P_LEAVE, 305, TT_P_BAR, 0}, {1, P_WORK, 315, 4, 0}, {1, P_BAR, 490, 1, 2},
        {1, P_LEAVE, 495, TT_P_BAR, 0}, {1, P_LEAVE, 505, TT_MAIN, 0},
    };
    static const uint64_t t0[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 110, 270, 270, 360, 360, 365, 365},
                          t1[] = {0, 0, 270, 270, 270, 270, 270, 270, 270, 270, 270, 270, 270,
                                  365, 365, 365};
    static const want w[] = {W(t0), W(t1)};
    up_replay_result res;
    if (RUN("pthread barrier of two", tr, w, &res) != 0)
        return;
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
    static const prec tr[] = {
        {0, P_ENTER, 0, TT_MAIN, 0}, {0, P_WORK, 10, 4, 0}, {0, P_BAR, 150, 4, 3},
        {0, P_LEAVE, 420, TT_P_BAR, 0}, {0, P_LEAVE, 430, TT_MAIN, 0},
        {1, P_ENTER, 0, TT_MAIN, 0}, IN(1, 10, 300, TT_WORK), {1, P_BAR, 310, 4, 3},
        {1, P_LEAVE, 415, TT_P_BAR, 0}, {1, P_LEAVE, 425, TT_MAIN, 0},
        {2, P_ENTER, 0, TT_MAIN, 0}, {2, P_WORK, 10, 8, 0}, IN(2, 170, 390, TT_WORK),
        {2, P_BAR, 400, 4, 3}, {2, P_LEAVE, 410, TT_P_BAR, 0}, {2, P_LEAVE, 420, TT_MAIN, 0},
    };
    static const uint64_t t0[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 60, 290, 290},
                          t1[] = {0, 0, 280, 280, 285, 285},
                          t2[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 210, 210,
                                  280, 280};
    static const want w[] = {W(t0), W(t1), W(t2)};
    up_replay_result res;
    if (RUN("pthread barrier of three", tr, w, &res) != 0)
        return;
    CHECK_EQ(res.repairs[UP_REPAIR_pthread_barrier_released], 0);
    CHECK_EQ(res.repairs[UP_REPAIR_pthread_barrier_local], 0);
    up_replay_result_free(&res);
}

TEST(pthread_barrier_without_count_is_local)
{
    /* pthread_barrier_wait regions whose Enter names no barrier (a trace
     * without our attributes), or a count of 0 (unknown): local records,
     * each counted; nothing waits.  O = 10.  Thread 0: Enter(main) 0, 4
     * short work pairs -> 0, Enter(barrier) 200 -> 110, Leave 310 -> 210
     * (before thread 1 entered: nothing says it waited for it), Leave(main)
     * 320 -> 210.  Thread 1: Enter(main) 0, Enter(work) 10 -> 0,
     * Leave(work) 290 -> 270, Enter(barrier) 300 -> 270, Leave 305 -> 270,
     * Leave(main) 315 -> 270.  With a count of 0 taken for a count, thread
     * 1's wait is an instance of its own, not counted. */
    static const prec tr[] = {
        {0, P_ENTER, 0, TT_MAIN, 0}, {0, P_WORK, 10, 4, 0}, IN(0, 200, 310, TT_P_BAR),
        {0, P_LEAVE, 320, TT_MAIN, 0},
        {1, P_ENTER, 0, TT_MAIN, 0}, IN(1, 10, 290, TT_WORK), {1, P_BAR, 300, 1, 0},
        {1, P_LEAVE, 305, TT_P_BAR, 0}, {1, P_LEAVE, 315, TT_MAIN, 0},
    };
    static const uint64_t t0[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 110, 210, 210},
                          t1[] = {0, 0, 270, 270, 270, 270};
    static const want w[] = {W(t0), W(t1)};
    up_replay_result res;
    if (RUN("pthread barrier without count", tr, w, &res) != 0)
        return;
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
    static const prec tr[] = {
        {0, P_ENTER, 0, TT_MAIN, 0}, {0, P_WORK, 10, 8, 0}, {0, P_ENTER, 170, TT_P_LOCK, 0},
        {0, P_ACQ, 180, 1, 0}, {0, P_LEAVE, 190, TT_P_LOCK, 0},
        {0, P_ENTER, 200, TT_P_CONDWAIT, 0}, {0, P_REL, 210, 1, 0}, {0, P_ACQ, 400, 3, 0},
        {0, P_LEAVE, 410, TT_P_CONDWAIT, 0}, {0, P_ENTER, 420, TT_P_UNLOCK, 0},
        {0, P_REL, 430, 3, 0}, {0, P_LEAVE, 440, TT_P_UNLOCK, 0}, {0, P_LEAVE, 450, TT_MAIN, 0},
        {1, P_ENTER, 0, TT_MAIN, 0}, IN(1, 10, 230, TT_WORK), {1, P_ENTER, 240, TT_P_LOCK, 0},
        {1, P_ACQ, 250, 2, 0}, {1, P_LEAVE, 260, TT_P_LOCK, 0}, IN(1, 270, 280, TT_P_SIGNAL),
        {1, P_ENTER, 290, TT_P_UNLOCK, 0}, {1, P_REL, 300, 2, 0}, {1, P_LEAVE, 310, TT_P_UNLOCK, 0},
        {1, P_LEAVE, 320, TT_MAIN, 0},
    };
    static const uint64_t t0[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                  0, 0, 0, 0, 300, 300, 300, 300, 300, 300},
                          t1[] = {0, 0, 210, 210, 210, 210, 210, 210, 210, 210, 210, 210};
    static const want w[] = {W(t0), W(t1)};
    up_replay_result res;
    if (RUN("pthread cond_wait", tr, w, &res) != 0)
        return;
    CHECK_EQ(res.repairs[UP_REPAIR_omp_lock_released], 0);
    up_replay_result_free(&res);
}
