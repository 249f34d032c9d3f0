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
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#include "trace/chunks.h"
#include "test.h"
#include "tutil.h"

#define MAXLOC 4
#define MAXEV 64

/* regions */
enum { R_MAIN, R_WORK, R_BAR, R_TW, R_ITASK, R_CRIT, R_SBLOCK, R_N };
#define TEAM 0   /* the team's communicator */
#define ATTR 0   /* OMPT_PARALLEL_REGION_ID */

typedef struct ow {
    OTF2_Archive *ar;
    OTF2_EvtWriter *w[MAXLOC];
    uint64_t nev[MAXLOC];
    unsigned n;
} ow;

/* An archive of n CPU threads (location ids 0..n-1) of one process */
static int ow_open(ow *o, const char *dir, unsigned n)
{
    unsigned i;
    memset(o, 0, sizeof *o);
    o->n = n;
    o->ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                              OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!o->ar)
        return -1;
    OTF2_Archive_SetFlushCallbacks(o->ar, &up_otf2_flush_callbacks, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(o->ar);
    OTF2_Archive_OpenEvtFiles(o->ar);
    for (i = 0; i < n; i++)
        o->w[i] = OTF2_Archive_GetEvtWriter(o->ar, i);
    return 0;
}

static void en(ow *o, unsigned l, uint64_t t, unsigned r)
{
    OTF2_EvtWriter_Enter(o->w[l], NULL, t, r);
    o->nev[l]++;
}

static void lv(ow *o, unsigned l, uint64_t t, unsigned r)
{
    OTF2_EvtWriter_Leave(o->w[l], NULL, t, r);
    o->nev[l]++;
}

/* The Enter of an OMPT implicit task of parallel region `id` */
static void en_id(ow *o, unsigned l, uint64_t t, unsigned r, uint64_t id)
{
    OTF2_AttributeList *al = OTF2_AttributeList_New();
    OTF2_AttributeList_AddUint64(al, ATTR, id);
    OTF2_EvtWriter_Enter(o->w[l], al, t, r);
    OTF2_AttributeList_Delete(al);
    o->nev[l]++;
}

/* `k` pairs Enter/Leave(work), 10 ns apart from t: the location's
 * compensated time stays where it was (each gap is O) */
static uint64_t short_work(ow *o, unsigned l, uint64_t t, unsigned k)
{
    unsigned i;
    for (i = 0; i < k; i++) {
        en(o, l, t, R_WORK);
        lv(o, l, t + 10, R_WORK);
        t += 20;
    }
    return t - 10;
}

static void fork_(ow *o, unsigned l, uint64_t t)
{
    OTF2_EvtWriter_ThreadFork(o->w[l], NULL, t, OTF2_PARADIGM_OPENMP, o->n);
    o->nev[l]++;
}
static void join_(ow *o, unsigned l, uint64_t t)
{
    OTF2_EvtWriter_ThreadJoin(o->w[l], NULL, t, OTF2_PARADIGM_OPENMP);
    o->nev[l]++;
}
static void tbegin(ow *o, unsigned l, uint64_t t)
{
    OTF2_EvtWriter_ThreadTeamBegin(o->w[l], NULL, t, TEAM);
    o->nev[l]++;
}
static void tend(ow *o, unsigned l, uint64_t t)
{
    OTF2_EvtWriter_ThreadTeamEnd(o->w[l], NULL, t, TEAM);
    o->nev[l]++;
}

static int ow_close(ow *o, uint64_t length)
{
    static const struct {
        const char *name;
        OTF2_RegionRole role;
        OTF2_Paradigm paradigm;
    } rg[R_N] = {
        [R_MAIN] = {"main", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER},
        [R_WORK] = {"work", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER},
        [R_BAR] = {"!$omp implicit barrier", OTF2_REGION_ROLE_IMPLICIT_BARRIER, OTF2_PARADIGM_OPENMP},
        [R_TW] = {"!$omp taskwait", OTF2_REGION_ROLE_TASK_WAIT, OTF2_PARADIGM_OPENMP},
        [R_ITASK] = {"!$omp implicit_task", OTF2_REGION_ROLE_PARALLEL, OTF2_PARADIGM_OPENMP},
        [R_CRIT] = {"!$omp critical", OTF2_REGION_ROLE_CRITICAL, OTF2_PARADIGM_OPENMP},
        [R_SBLOCK] = {"!$omp critical sblock", OTF2_REGION_ROLE_CRITICAL_SBLOCK, OTF2_PARADIGM_OPENMP},
    };
    OTF2_GlobalDefWriter *gw;
    uint64_t members[MAXLOC], ranks[MAXLOC];
    unsigned i;
    enum { S_EMPTY = R_N, S_NODE, S_PROC, S_THREAD, S_ATTR };
    for (i = 0; i < o->n; i++)
        OTF2_Archive_CloseEvtWriter(o->ar, o->w[i]);
    OTF2_Archive_CloseEvtFiles(o->ar);
    OTF2_Archive_OpenDefFiles(o->ar);
    for (i = 0; i < o->n; i++)
        OTF2_Archive_CloseDefWriter(o->ar, OTF2_Archive_GetDefWriter(o->ar, i));
    OTF2_Archive_CloseDefFiles(o->ar);
    gw = OTF2_Archive_GetGlobalDefWriter(o->ar);
    OTF2_GlobalDefWriter_WriteClockProperties(gw, 1000000000, 0, length, OTF2_UNDEFINED_TIMESTAMP);
    for (i = 0; i < R_N; i++)
        OTF2_GlobalDefWriter_WriteString(gw, i, rg[i].name);
    OTF2_GlobalDefWriter_WriteString(gw, S_EMPTY, "");
    OTF2_GlobalDefWriter_WriteString(gw, S_NODE, "node");
    OTF2_GlobalDefWriter_WriteString(gw, S_PROC, "process");
    OTF2_GlobalDefWriter_WriteString(gw, S_THREAD, "thread");
    OTF2_GlobalDefWriter_WriteString(gw, S_ATTR, "OMPT_PARALLEL_REGION_ID");
    for (i = 0; i < R_N; i++)
        OTF2_GlobalDefWriter_WriteRegion(gw, i, i, i, S_EMPTY, rg[i].role, rg[i].paradigm,
                                         OTF2_REGION_FLAG_NONE, S_EMPTY, 0, 0);
    OTF2_GlobalDefWriter_WriteAttribute(gw, ATTR, S_ATTR, S_EMPTY, OTF2_TYPE_UINT64);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, S_NODE, S_NODE, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteLocationGroup(gw, 0, S_PROC, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    for (i = 0; i < o->n; i++) {
        OTF2_GlobalDefWriter_WriteLocation(gw, i, S_THREAD, OTF2_LOCATION_TYPE_CPU_THREAD, o->nev[i], 0);
        members[i] = i;
        ranks[i] = i;
    }
    /* Score-P's layout of an OpenMP team */
    OTF2_GlobalDefWriter_WriteGroup(gw, 0, S_EMPTY, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_OPENMP,
                                    OTF2_GROUP_FLAG_NONE, o->n, members);
    OTF2_GlobalDefWriter_WriteGroup(gw, 1, S_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_OPENMP,
                                    OTF2_GROUP_FLAG_NONE, o->n, ranks);
    OTF2_GlobalDefWriter_WriteComm(gw, TEAM, S_EMPTY, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    return OTF2_Archive_Close(o->ar) == OTF2_SUCCESS ? 0 : -1;
}

/* ---- reading every record's time back (tread skips locks and tasks) ---------------- */

typedef struct rd {
    uint64_t t[MAXLOC][MAXEV];
    size_t n[MAXLOC];
} rd;

static OTF2_CallbackCode put(OTF2_LocationRef l, uint64_t t, void *ud)
{
    rd *r = ud;
    if (l < MAXLOC && r->n[l] < MAXEV)
        r->t[l][r->n[l]++] = t;
    return OTF2_CALLBACK_SUCCESS;
}

#define HDR OTF2_LocationRef l, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al
static OTF2_CallbackCode c_region(HDR, OTF2_RegionRef r) { (void)al, (void)r; return put(l, t, ud); }
static OTF2_CallbackCode c_fork(HDR, OTF2_Paradigm p, uint32_t n) { (void)al, (void)p, (void)n; return put(l, t, ud); }
static OTF2_CallbackCode c_join(HDR, OTF2_Paradigm p) { (void)al, (void)p; return put(l, t, ud); }
static OTF2_CallbackCode c_team(HDR, OTF2_CommRef c) { (void)al, (void)c; return put(l, t, ud); }
static OTF2_CallbackCode c_lock(HDR, OTF2_Paradigm p, uint32_t id, uint32_t o)
{
    (void)al, (void)p, (void)id, (void)o;
    return put(l, t, ud);
}
static OTF2_CallbackCode c_olock(HDR, uint32_t id, uint32_t o) { (void)al, (void)id, (void)o; return put(l, t, ud); }
static OTF2_CallbackCode c_task(HDR, OTF2_CommRef c, uint32_t cr, uint32_t g)
{
    (void)al, (void)c, (void)cr, (void)g;
    return put(l, t, ud);
}

/* Every record's time of the archive in dir, per location */
static int rd_load(const char *dir, rd *r)
{
    char anchor[4200];
    OTF2_Reader *rdr;
    OTF2_GlobalEvtReader *ger;
    OTF2_GlobalEvtReaderCallbacks *cb;
    uint64_t nloc = 0, i, got = 0;
    memset(r, 0, sizeof *r);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    if (!(rdr = OTF2_Reader_Open(anchor)))
        return -1;
    OTF2_Reader_SetSerialCollectiveCallbacks(rdr);
    OTF2_Reader_GetNumberOfLocations(rdr, &nloc);
    for (i = 0; i < nloc && i < MAXLOC; i++)
        OTF2_Reader_SelectLocation(rdr, i);
    OTF2_Reader_OpenEvtFiles(rdr);
    for (i = 0; i < nloc && i < MAXLOC; i++)
        OTF2_Reader_GetEvtReader(rdr, i);
    ger = OTF2_Reader_GetGlobalEvtReader(rdr);
    cb = OTF2_GlobalEvtReaderCallbacks_New();
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, c_region);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, c_region);
    OTF2_GlobalEvtReaderCallbacks_SetThreadForkCallback(cb, c_fork);
    OTF2_GlobalEvtReaderCallbacks_SetThreadJoinCallback(cb, c_join);
    OTF2_GlobalEvtReaderCallbacks_SetThreadTeamBeginCallback(cb, c_team);
    OTF2_GlobalEvtReaderCallbacks_SetThreadTeamEndCallback(cb, c_team);
    OTF2_GlobalEvtReaderCallbacks_SetThreadAcquireLockCallback(cb, c_lock);
    OTF2_GlobalEvtReaderCallbacks_SetThreadReleaseLockCallback(cb, c_lock);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    OTF2_GlobalEvtReaderCallbacks_SetOmpAcquireLockCallback(cb, c_olock);
    OTF2_GlobalEvtReaderCallbacks_SetOmpReleaseLockCallback(cb, c_olock);
#pragma GCC diagnostic pop
    OTF2_GlobalEvtReaderCallbacks_SetThreadTaskCreateCallback(cb, c_task);
    OTF2_GlobalEvtReaderCallbacks_SetThreadTaskSwitchCallback(cb, c_task);
    OTF2_GlobalEvtReaderCallbacks_SetThreadTaskCompleteCallback(cb, c_task);
    OTF2_Reader_RegisterGlobalEvtCallbacks(rdr, ger, cb, r);
    OTF2_GlobalEvtReaderCallbacks_Delete(cb);
    OTF2_Reader_ReadAllGlobalEvents(rdr, ger, &got);
    OTF2_Reader_CloseGlobalEvtReader(rdr, ger);
    OTF2_Reader_CloseEvtFiles(rdr);
    OTF2_Reader_Close(rdr);
    return 0;
}

static void check_loc(const char *file, int line, const rd *r, unsigned l, const uint64_t *want, size_t n)
{
    size_t i;
    if (r->n[l] != n)
        t_fail(file, line, "location %u: %zu records, want %zu", l, r->n[l], n);
    for (i = 0; i < n && i < r->n[l]; i++)
        if (r->t[l][i] != want[i])
            t_fail(file, line, "location %u record %zu: got %llu, want %llu", l, i,
                   (unsigned long long)r->t[l][i], (unsigned long long)want[i]);
}
#define CHECK_LOC(r, l, want) check_loc(__FILE__, __LINE__, (r), (l), (want), sizeof(want) / sizeof(want)[0])

/* Compensates dir/in with O = 10 (lower) into dir/out and reads it back */
static int comp(const char *in, rd *r, up_replay_result *res)
{
    char out[4096];
    up_comp_params p = t_params(10, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    snprintf(out, sizeof out, "%s", t_dir("out"));
    if (t_compensate(in, out, &p, res, NULL) != UP_OK)
        return -1;
    return rd_load(out, r);
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
    ow o;
    rd r;
    up_replay_result res;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    if (ow_open(&o, in, 3) != 0) {
        t_fail(__FILE__, __LINE__, "cannot write the trace");
        return;
    }
    en(&o, 0, 0, R_MAIN);
    fork_(&o, 0, 10);
    tbegin(&o, 0, 20);
    short_work(&o, 0, 30, 4);
    en(&o, 0, 300, R_BAR);
    lv(&o, 0, 410, R_BAR);
    tend(&o, 0, 420);
    join_(&o, 0, 430);
    lv(&o, 0, 440, R_MAIN);
    tbegin(&o, 1, 25);
    en(&o, 1, 35, R_WORK);
    lv(&o, 1, 335, R_WORK);
    en(&o, 1, 345, R_BAR);
    lv(&o, 1, 395, R_BAR);
    tend(&o, 1, 405);
    tbegin(&o, 2, 27);
    en(&o, 2, 37, R_WORK);
    lv(&o, 2, 237, R_WORK);
    en(&o, 2, 247, R_BAR);
    lv(&o, 2, 398, R_BAR);
    tend(&o, 2, 408);
    CHECK(ow_close(&o, 500) == 0);
    if (comp(in, &r, &res) != 0) {
        t_fail(__FILE__, __LINE__, "compensation failed");
        return;
    }
    CHECK_LOC(&r, 0, m0);
    CHECK_LOC(&r, 1, t1);
    CHECK_LOC(&r, 2, t2);
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
    ow o;
    rd r;
    up_replay_result res;
    unsigned l;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    if (ow_open(&o, in, 2) != 0) {
        t_fail(__FILE__, __LINE__, "cannot write the trace");
        return;
    }
    for (l = 0; l < 2; l++) {
        uint64_t acq = l ? 210 : 100, rel = l ? 250 : 200;
        en(&o, l, 0, R_MAIN);
        if (l)
            short_work(&o, 1, 10, 4); /* 10 .. 80 */
        if (old)
            en(&o, l, acq - 5, R_CRIT);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* the older records, as written */
        if (old)
            OTF2_EvtWriter_OmpAcquireLock(o.w[l], NULL, acq, 5, l + 1);
        else
            OTF2_EvtWriter_ThreadAcquireLock(o.w[l], NULL, acq, OTF2_PARADIGM_OPENMP, 5, l + 1);
        o.nev[l]++;
        if (old)
            en(&o, l, acq + 10, R_SBLOCK), lv(&o, l, rel - 10, R_SBLOCK);
        if (old)
            OTF2_EvtWriter_OmpReleaseLock(o.w[l], NULL, rel, 5, l + 1);
        else
            OTF2_EvtWriter_ThreadReleaseLock(o.w[l], NULL, rel, OTF2_PARADIGM_OPENMP, 5, l + 1);
#pragma GCC diagnostic pop
        o.nev[l]++;
        if (old)
            lv(&o, l, rel + 5, R_CRIT);
        lv(&o, l, 300, R_MAIN);
    }
    CHECK(ow_close(&o, 400) == 0);
    if (comp(in, &r, &res) != 0) {
        t_fail(__FILE__, __LINE__, "compensation failed");
        return;
    }
    check_loc(__FILE__, __LINE__, &r, 0, w0, n0);
    check_loc(__FILE__, __LINE__, &r, 1, w1, n1);
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

static void task_rec(ow *o, unsigned l, int kind, uint64_t t, uint32_t gen)
{
    if (kind == 0)
        OTF2_EvtWriter_ThreadTaskCreate(o->w[l], NULL, t, TEAM, 0, gen);
    else if (kind == 1)
        OTF2_EvtWriter_ThreadTaskSwitch(o->w[l], NULL, t, TEAM, 0, gen);
    else
        OTF2_EvtWriter_ThreadTaskComplete(o->w[l], NULL, t, TEAM, 0, gen);
    o->nev[l]++;
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
    ow o;
    rd r;
    up_replay_result res;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    if (ow_open(&o, in, 2) != 0) {
        t_fail(__FILE__, __LINE__, "cannot write the trace");
        return;
    }
    en(&o, 0, 0, R_MAIN);
    fork_(&o, 0, 10);
    tbegin(&o, 0, 20);
    task_rec(&o, 0, 0, 100, 1);
    tend(&o, 0, 400);
    join_(&o, 0, 410);
    lv(&o, 0, 420, R_MAIN);
    tbegin(&o, 1, 25);
    short_work(&o, 1, 30, 4);
    task_rec(&o, 1, 1, 130, 1);
    en(&o, 1, 140, R_WORK);
    lv(&o, 1, 340, R_WORK);
    task_rec(&o, 1, 2, 350, 1);
    tend(&o, 1, 360);
    CHECK(ow_close(&o, 500) == 0);
    if (comp(in, &r, &res) != 0) {
        t_fail(__FILE__, __LINE__, "compensation failed");
        return;
    }
    CHECK_LOC(&r, 0, m0);
    CHECK_LOC(&r, 1, t1);
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
    ow o;
    rd r;
    up_replay_result res;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    if (ow_open(&o, in, 2) != 0) {
        t_fail(__FILE__, __LINE__, "cannot write the trace");
        return;
    }
    en(&o, 0, 0, R_MAIN);
    fork_(&o, 0, 10);
    tbegin(&o, 0, 20);
    task_rec(&o, 0, 0, 30, 1);
    short_work(&o, 0, 40, 4);
    en(&o, 0, 120, R_TW);
    lv(&o, 0, 400, R_TW);
    tend(&o, 0, 410);
    join_(&o, 0, 420);
    lv(&o, 0, 430, R_MAIN);
    tbegin(&o, 1, 25);
    task_rec(&o, 1, 1, 45, 1);
    en(&o, 1, 55, R_WORK);
    lv(&o, 1, 385, R_WORK);
    task_rec(&o, 1, 2, 395, 1);
    tend(&o, 1, 405);
    CHECK(ow_close(&o, 500) == 0);
    if (comp(in, &r, &res) != 0) {
        t_fail(__FILE__, __LINE__, "compensation failed");
        return;
    }
    CHECK_LOC(&r, 0, m0);
    CHECK_LOC(&r, 1, t1);
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
    ow o;
    rd r;
    up_replay_result res;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    if (ow_open(&o, in, 2) != 0) {
        t_fail(__FILE__, __LINE__, "cannot write the trace");
        return;
    }
    en(&o, 0, 0, R_MAIN);
    en_id(&o, 0, 10, R_ITASK, 7);
    short_work(&o, 0, 20, 4);
    en(&o, 0, 200, R_BAR);
    lv(&o, 0, 300, R_BAR);
    lv(&o, 0, 310, R_ITASK);
    lv(&o, 0, 320, R_MAIN);
    en_id(&o, 1, 15, R_ITASK, 7);
    en(&o, 1, 25, R_WORK);
    lv(&o, 1, 265, R_WORK);
    en(&o, 1, 275, R_BAR);
    lv(&o, 1, 285, R_BAR);
    lv(&o, 1, 295, R_ITASK);
    CHECK(ow_close(&o, 400) == 0);
    if (comp(in, &r, &res) != 0) {
        t_fail(__FILE__, __LINE__, "compensation failed");
        return;
    }
    CHECK_LOC(&r, 0, m0);
    CHECK_LOC(&r, 1, t1);
    CHECK_EQ(res.repairs[UP_REPAIR_omp_barrier_released], 0);
    up_replay_result_free(&res);
}
