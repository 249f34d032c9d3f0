/*
 * test_omp.c - the replay's OpenMP rules (src/replay/engine_omp.c;
 * docs/models.md, "OpenMP") on small traces written here with OTF2's raw
 * writer, compensated with O = 10 ns per record (lower mode), every
 * expected time worked out by hand.
 *
 * The model's local time (eq. 1) is t_a = prev_a + max(0, (t_m - prev_m) - O):
 * records 10 ns apart keep their distance 0 after compensation, so a
 * location with many of them loses more time than one without, which is
 * what moves a dependent record before its dependency when no rule holds
 * it.  Each test fails with its rule taken out: the times it checks after
 * the dependency are those of the local model alone then (said in each).
 */
#include <stdio.h>

#include <otf2/otf2.h>

#include "test.h"
#include "tthreads.h"

static void fork_(tt_writer *o, unsigned l, uint64_t t)
{
    OTF2_EvtWriter_ThreadFork(tt_rec(o, l), NULL, t, OTF2_PARADIGM_OPENMP, o->n);
}
static void join_(tt_writer *o, unsigned l, uint64_t t)
{
    OTF2_EvtWriter_ThreadJoin(tt_rec(o, l), NULL, t, OTF2_PARADIGM_OPENMP);
}
static void tbegin(tt_writer *o, unsigned l, uint64_t t)
{
    OTF2_EvtWriter_ThreadTeamBegin(tt_rec(o, l), NULL, t, TT_TEAM);
}
static void tend(tt_writer *o, unsigned l, uint64_t t)
{
    OTF2_EvtWriter_ThreadTeamEnd(tt_rec(o, l), NULL, t, TT_TEAM);
}

/* ---- barriers ----------------------------------------------------------------------- */

TEST(omp_barrier_exits_after_the_last_enter)
{
    /* A team of three (master 0, threads 1 and 2), O = 10.  A dependency
     * on another location takes effect once its record's overhead is over.
     * Master: Enter(main) 0 -> 0, ThreadFork 10 -> 0 (the team starts at
     *   10 + 10 = 20 measured), TeamBegin 20 -> 0, 4 short work pairs
     *   30..100 -> 0, Enter(barrier) 300 -> 0 + 200 - 10 = 190.
     * Thread 1: TeamBegin 25 -> fork_a + (25 - 20) = 5, Enter(work) 35 -> 5,
     *   Leave(work) 335 -> 5 + 300 - 10 = 295, Enter(barrier) 345 -> 295.
     * Thread 2: TeamBegin 27 -> 7, Enter(work) 37 -> 7, Leave(work) 237 ->
     *   197, Enter(barrier) 247 -> 197.
     * Last enter: thread 1, measured 345 (its overhead over at 355),
     * approximated 295.  First exit: thread 1 (395).  Section 4.2.2: a member
     * that waited leaves from the last enter by its measured exit latency,
     * not by its local time (that would keep the wait the others' overhead
     * made): thread 1 at 295 + (395 - 355) = 335; thread 2 at 295 + (398 -
     * 355) = 338; the master at 295 + (410 - 355) = 350 (locally 290:
     * before thread 1 entered).  Then: master TeamEnd 420 -> 350, Join 430:
     * the team's last end is the master's own (420, over at 430): 350 +
     * (430 - 430) = 350, Leave(main) 440 -> 350; thread 1 TeamEnd 405 ->
     * 335; thread 2 TeamEnd 408 -> 338. */
    static const uint64_t m0[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 190, 350, 350, 350, 350},
                          t1[] = {5, 5, 295, 295, 335, 335}, t2[] = {7, 7, 197, 197, 338, 338};
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
    fork_(&o, 0, 10);
    tbegin(&o, 0, 20);
    tt_short_work(&o, 0, 30, 4);
    tt_enter(&o, 0, 300, TT_OMP_BAR);
    tt_leave(&o, 0, 410, TT_OMP_BAR);
    tend(&o, 0, 420);
    join_(&o, 0, 430);
    tt_leave(&o, 0, 440, TT_MAIN);
    tbegin(&o, 1, 25);
    tt_enter(&o, 1, 35, TT_WORK);
    tt_leave(&o, 1, 335, TT_WORK);
    tt_enter(&o, 1, 345, TT_OMP_BAR);
    tt_leave(&o, 1, 395, TT_OMP_BAR);
    tend(&o, 1, 405);
    tbegin(&o, 2, 27);
    tt_enter(&o, 2, 37, TT_WORK);
    tt_leave(&o, 2, 237, TT_WORK);
    tt_enter(&o, 2, 247, TT_OMP_BAR);
    tt_leave(&o, 2, 398, TT_OMP_BAR);
    tend(&o, 2, 408);
    CHECK(tt_close(&o, 500) == 0);
    if (tt_compensate(in, &r, &res) != 0)
        return;
    TT_CHECK_LOC(&r, 0, m0);
    TT_CHECK_LOC(&r, 1, t1);
    TT_CHECK_LOC(&r, 2, t2);
    CHECK_EQ(res.repairs[UP_REPAIR_omp_barrier_released], 0);
    CHECK_EQ(res.repairs[UP_REPAIR_omp_barrier_unordered], 0);
    CHECK_EQ(res.repairs[UP_REPAIR_thread_unpaired], 0);
    up_replay_result_free(&res);
}

/* ---- locks and critical sections ---------------------------------------------------- */

/* Two threads of one process take lock 5 (acquisition 1 on thread 0,
 * acquisition 2 on thread 1); old: OmpAcquireLock/OmpReleaseLock inside
 * critical regions (a critical section), else ThreadAcquireLock. */
static void lock_case(bool old, const uint64_t *w0, size_t n0, const uint64_t *w1, size_t n1)
{
    char in[4096];
    tt_writer o;
    tt_times r;
    up_replay_result res;
    unsigned l;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    if (tt_open(&o, in, 2) != 0) {
        t_fail(__FILE__, __LINE__, "cannot write the trace");
        return;
    }
    for (l = 0; l < 2; l++) {
        uint64_t acq = l ? 210 : 100, rel = l ? 250 : 200;
        tt_enter(&o, l, 0, TT_MAIN);
        if (l)
            tt_short_work(&o, 1, 10, 4); /* 10 .. 80 */
        if (old)
            tt_enter(&o, l, acq - 5, TT_OMP_CRIT);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* the older records, as written */
        if (old)
            OTF2_EvtWriter_OmpAcquireLock(tt_rec(&o, l), NULL, acq, 5, l + 1);
        else
            OTF2_EvtWriter_ThreadAcquireLock(tt_rec(&o, l), NULL, acq, OTF2_PARADIGM_OPENMP, 5, l + 1);
        if (old)
            tt_enter(&o, l, acq + 10, TT_OMP_SBLOCK), tt_leave(&o, l, rel - 10, TT_OMP_SBLOCK);
        if (old)
            OTF2_EvtWriter_OmpReleaseLock(tt_rec(&o, l), NULL, rel, 5, l + 1);
        else
            OTF2_EvtWriter_ThreadReleaseLock(tt_rec(&o, l), NULL, rel, OTF2_PARADIGM_OPENMP, 5, l + 1);
#pragma GCC diagnostic pop
        if (old)
            tt_leave(&o, l, rel + 5, TT_OMP_CRIT);
        tt_leave(&o, l, 300, TT_MAIN);
    }
    CHECK(tt_close(&o, 400) == 0);
    if (tt_compensate(in, &r, &res) != 0)
        return;
    tt_check_loc(__FILE__, __LINE__, &r, 0, w0, n0);
    tt_check_loc(__FILE__, __LINE__, &r, 1, w1, n1);
    CHECK_EQ(res.repairs[UP_REPAIR_omp_lock_released], 0);
    up_replay_result_free(&res);
}

TEST(omp_lock_acquired_after_the_previous_release)
{
    /* O = 10.  Thread 0: Enter(main) 0 -> 0, Acquire(1) 100 -> 90,
     * Release(1) 200 -> 180 (the lock free at 210 measured), Leave(main) 300
     * -> 270.  Thread 1: Enter(main) 0 -> 0, 4 short work pairs 10..80 -> 0
     * each, Acquire(2) 210: it asked at 80 + 10 = 90, before the release,
     * and waited idle: Section 4.3.2 keeps the measured order and hand-off,
     * from the release: 180 + (210 - 210) = 180 (locally 0 + 130 - 10 = 120,
     * before the release).  Release(2) 250 -> 180 + 40 - 10 = 210,
     * Leave(main) 300 -> 210 + 50 - 10 = 250. */
    static const uint64_t w0[] = {0, 90, 180, 270},
                          w1[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 180, 210, 250};
    lock_case(false, w0, 4, w1, 12);
}

TEST(omp_critical_section_entered_after_the_previous_holder_left)
{
    /* Score-P's critical section: Enter(critical), OmpAcquireLock,
     * Enter/Leave(sblock), OmpReleaseLock, Leave(critical); O = 10.
     * Thread 0: main 0 -> 0, Enter(critical) 95 -> 85, Acquire(1) 100 -> 85,
     * Enter(sblock) 110 -> 85, Leave(sblock) 190 -> 155, Release(1) 200 ->
     * 155 (free at 210 measured), Leave(critical) 205 -> 155, Leave(main)
     * 300 -> 240.  Thread 1: main 0, 4 short work pairs -> 0,
     * Enter(critical) 205 -> 0 + 125 - 10 = 115: it asked at 215, after the
     * lock was free, so it did not wait; Acquire(2) 210 is locally 115,
     * before the release at 155: raised to it, 155.  Enter(sblock) 220 ->
     * 155, Leave(sblock) 240 -> 165, Release(2) 250 -> 165, Leave(critical)
     * 255 -> 165, Leave(main) 300 -> 165 + 45 - 10 = 200. */
    static const uint64_t w0[] = {0, 85, 85, 85, 155, 155, 155, 240},
                          w1[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 115, 155, 155, 165, 165, 165, 200};
    lock_case(true, w0, 8, w1, 16);
}

/* ---- tasks -------------------------------------------------------------------------- */

static void task_rec(tt_writer *o, unsigned l, int kind, uint64_t t, uint32_t gen)
{
    if (kind == 0)
        OTF2_EvtWriter_ThreadTaskCreate(tt_rec(o, l), NULL, t, TT_TEAM, 0, gen);
    else if (kind == 1)
        OTF2_EvtWriter_ThreadTaskSwitch(tt_rec(o, l), NULL, t, TT_TEAM, 0, gen);
    else
        OTF2_EvtWriter_ThreadTaskComplete(tt_rec(o, l), NULL, t, TT_TEAM, 0, gen);
}

TEST(omp_task_runs_no_earlier_than_its_creation)
{
    /* A team of two, O = 10.  Master: Enter(main) 0 -> 0, Fork 10 -> 0 (the
     * team starts at 20 measured), TeamBegin 20 -> 0, TaskCreate(gen 1) 100
     * -> 70, TeamEnd 400 -> 360, Join 410 -> 360 (the last end is its own),
     * Leave(main) 420 -> 360.  Thread 1: TeamBegin 25 -> 5, 4 short work
     * pairs 30..100 -> 5, TaskSwitch(gen 1) 130: locally 5 + 30 - 10 = 25,
     * before the task was created (70): 70.  Enter(work) 140 -> 70,
     * Leave(work) 340 -> 260, TaskComplete 350 -> 260, TeamEnd 360 -> 260. */
    static const uint64_t m0[] = {0, 0, 0, 70, 360, 360, 360},
                          t1[] = {5, 5, 5, 5, 5, 5, 5, 5, 5, 70, 70, 260, 260, 260};
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
    fork_(&o, 0, 10);
    tbegin(&o, 0, 20);
    task_rec(&o, 0, 0, 100, 1);
    tend(&o, 0, 400);
    join_(&o, 0, 410);
    tt_leave(&o, 0, 420, TT_MAIN);
    tbegin(&o, 1, 25);
    tt_short_work(&o, 1, 30, 4);
    task_rec(&o, 1, 1, 130, 1);
    tt_enter(&o, 1, 140, TT_WORK);
    tt_leave(&o, 1, 340, TT_WORK);
    task_rec(&o, 1, 2, 350, 1);
    tend(&o, 1, 360);
    CHECK(tt_close(&o, 500) == 0);
    if (tt_compensate(in, &r, &res) != 0)
        return;
    TT_CHECK_LOC(&r, 0, m0);
    TT_CHECK_LOC(&r, 1, t1);
    CHECK_EQ(res.repairs[UP_REPAIR_omp_task_unpaired], 0);
    up_replay_result_free(&res);
}

TEST(omp_taskwait_ends_after_its_tasks_completed)
{
    /* A team of two, O = 10.  Master: Enter(main) 0, Fork 10, TeamBegin 20,
     * TaskCreate(gen 1) 30, 4 short work pairs 40..110, Enter(taskwait) 120:
     * all 0; its Leave 400 is locally 0 + 280 - 10 = 270.  Thread 1:
     * TeamBegin 25 -> 5 (the team starts at 20), TaskSwitch(gen 1) 45 -> 15
     * (after the creation at 0), Enter(work) 55 -> 15, Leave(work) 385 ->
     * 335, TaskComplete 395 -> 335 (complete at 405 measured), TeamEnd 405
     * -> 335.  The taskwait waited idle for the completion: from it, by the
     * measured return latency, 335 + max(0, 400 - 405) = 335 (locally 270,
     * before it).  Master TeamEnd 410 -> 335, Join 420: the team's last end
     * is the master's own (over at 420): 335 + (420 - 420) = 335,
     * Leave(main) 430 -> 335. */
    static const uint64_t m0[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 335, 335, 335, 335},
                          t1[] = {5, 15, 15, 335, 335, 335};
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
    fork_(&o, 0, 10);
    tbegin(&o, 0, 20);
    task_rec(&o, 0, 0, 30, 1);
    tt_short_work(&o, 0, 40, 4);
    tt_enter(&o, 0, 120, TT_OMP_TW);
    tt_leave(&o, 0, 400, TT_OMP_TW);
    tend(&o, 0, 410);
    join_(&o, 0, 420);
    tt_leave(&o, 0, 430, TT_MAIN);
    tbegin(&o, 1, 25);
    task_rec(&o, 1, 1, 45, 1);
    tt_enter(&o, 1, 55, TT_WORK);
    tt_leave(&o, 1, 385, TT_WORK);
    task_rec(&o, 1, 2, 395, 1);
    tend(&o, 1, 405);
    CHECK(tt_close(&o, 500) == 0);
    if (tt_compensate(in, &r, &res) != 0)
        return;
    TT_CHECK_LOC(&r, 0, m0);
    TT_CHECK_LOC(&r, 1, t1);
    CHECK_EQ(res.repairs[UP_REPAIR_omp_task_unpaired], 0);
    up_replay_result_free(&res);
}

/* ---- teams of OMPT traces ---------------------------------------------------------- */

TEST(omp_ompt_team_from_the_parallel_region_id)
{
    /* No team records: the implicit tasks' OMPT_PARALLEL_REGION_ID (7) makes
     * threads 0 and 1 one team.  O = 10.  Thread 0: Enter(main) 0 -> 0,
     * Enter(implicit_task) 10 -> 0, 4 short work pairs 20..90 -> 0,
     * Enter(barrier) 200 -> 0 + 110 - 10 = 100.  Thread 1: its first record,
     * Enter(implicit_task) 15, keeps its time: 15; Enter(work) 25 -> 15,
     * Leave(work) 265 -> 245, Enter(barrier) 275 -> 245.  Last enter: 275
     * measured (over at 285), 245 approximated; first exit: thread 1 (285):
     * 245 + (285 - 285) = 245; thread 0, which waited: 245 + (300 - 285) =
     * 260 (locally 190, before thread 1 entered).  Thread 0's
     * Leave(implicit_task) 310 -> 260, Leave(main) 320 -> 260; thread 1's
     * Leave(implicit_task) 295 -> 245. */
    static const uint64_t m0[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 100, 260, 260, 260},
                          t1[] = {15, 15, 245, 245, 245, 245};
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
    tt_enter_ompt(&o, 0, 10, 7);
    tt_short_work(&o, 0, 20, 4);
    tt_enter(&o, 0, 200, TT_OMP_BAR);
    tt_leave(&o, 0, 300, TT_OMP_BAR);
    tt_leave(&o, 0, 310, TT_OMP_ITASK);
    tt_leave(&o, 0, 320, TT_MAIN);
    tt_enter_ompt(&o, 1, 15, 7);
    tt_enter(&o, 1, 25, TT_WORK);
    tt_leave(&o, 1, 265, TT_WORK);
    tt_enter(&o, 1, 275, TT_OMP_BAR);
    tt_leave(&o, 1, 285, TT_OMP_BAR);
    tt_leave(&o, 1, 295, TT_OMP_ITASK);
    CHECK(tt_close(&o, 400) == 0);
    if (tt_compensate(in, &r, &res) != 0)
        return;
    TT_CHECK_LOC(&r, 0, m0);
    TT_CHECK_LOC(&r, 1, t1);
    CHECK_EQ(res.repairs[UP_REPAIR_omp_barrier_released], 0);
    up_replay_result_free(&res);
}

/* Our OMPT tool names each thread's place in its team (unperturb::team_index)
 * and the records it wrote after the fork with earlier times
 * (unperturb::late_records): a worker waited idle in the runtime for its
 * master's Enter (the fork) and follows it by its measured start latency
 * less those records' overhead (docs/models.md, "OpenMP").  O = 10.
 * Thread 0 (master): Enter(work) 0 -> 0, Leave(work) 50 -> 40,
 * Enter(implicit_task, index 0) 100 -> 40 + 50 - 10 = 80: the fork, at
 * 110 measured after its overhead, 80 approximated; Leave 200 -> 170.
 * Thread 1: Enter(work) 0 -> 0, Leave(work) 10 -> 0, Enter(implicit_task,
 * index 1, 2 late records) 150: locally 0 + 140 - 10 = 130; it follows the
 * fork: 80 + (150 - (110 + 2 x 10)) = 100 (120 without the late records'
 * overhead; 130 as a local record); Leave 250 -> 100 + 90 = 190. */
TEST(omp_ompt_worker_follows_its_master)
{
    static const uint64_t m0[] = {0, 40, 80, 170}, t1[] = {0, 0, 100, 190};
    char in[4096];
    tt_writer o;
    tt_times r;
    up_replay_result res;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    if (tt_open(&o, in, 2) != 0) {
        t_fail(__FILE__, __LINE__, "cannot write the trace");
        return;
    }
    tt_enter(&o, 0, 0, TT_WORK);
    tt_leave(&o, 0, 50, TT_WORK);
    tt_enter_ompt_as(&o, 0, 100, 3, 0, 0);
    tt_leave(&o, 0, 200, TT_OMP_ITASK);
    tt_enter(&o, 1, 0, TT_WORK);
    tt_leave(&o, 1, 10, TT_WORK);
    tt_enter_ompt_as(&o, 1, 150, 3, 1, 2);
    tt_leave(&o, 1, 250, TT_OMP_ITASK);
    CHECK(tt_close(&o, 300) == 0);
    if (tt_compensate(in, &r, &res) != 0)
        return;
    TT_CHECK_LOC(&r, 0, m0);
    TT_CHECK_LOC(&r, 1, t1);
    CHECK_EQ(res.repairs[UP_REPAIR_thread_unpaired], 0);
    up_replay_result_free(&res);
}
