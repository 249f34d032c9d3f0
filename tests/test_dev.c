/*
 * test_dev.c - the device rules (src/replay/engine_dev.c; docs/models.md,
 * "Devices"): an accelerator stream follows the host that drives it.
 *
 * One process: a host thread (location 0) and a CUDA stream (location 1),
 * written the way Score-P's CUDA adapter writes them: a launch is the Enter
 * of cuLaunchKernel carrying CUDA_STREAM_REF, a kernel an Enter/Leave on the
 * stream, a copy an RmaPut .. RmaOpCompleteBlocking on the stream inside
 * the host's cuMemcpyDtoH_v2.  Every time below is worked out by hand; the
 * clock is 1 ns per tick.
 */
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#include "trace/chunks.h"
#include "test.h"
#include "run/simrun.h"
#include "tutil.h"

enum { R_MAIN, R_LAUNCH, R_SYNC, R_DTOH, R_KERN };
enum { E_ENTER, E_LEAVE, E_LAUNCH, E_PUT, E_DONE, E_WIN_CREATE, E_WIN_DESTROY };

typedef struct rec {
    int kind;       /* E_* */
    uint64_t t;
    int region;     /* R_* of an Enter/Leave */
} rec;

static void write_recs(OTF2_EvtWriter *w, const rec *r, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        OTF2_AttributeList *al = NULL;
        switch (r[i].kind) {
        case E_ENTER:
            OTF2_EvtWriter_Enter(w, NULL, r[i].t, (OTF2_RegionRef)r[i].region);
            break;
        case E_LAUNCH: /* Score-P names the stream on the launch's Enter */
            al = OTF2_AttributeList_New();
            OTF2_AttributeList_AddLocationRef(al, 0, 1);
            OTF2_EvtWriter_Enter(w, al, r[i].t, R_LAUNCH);
            OTF2_AttributeList_Delete(al);
            break;
        case E_LEAVE:
            OTF2_EvtWriter_Leave(w, NULL, r[i].t, (OTF2_RegionRef)r[i].region);
            break;
        case E_PUT:
            OTF2_EvtWriter_RmaPut(w, NULL, r[i].t, 0, 0, 4096, 42);
            break;
        case E_DONE:
            OTF2_EvtWriter_RmaOpCompleteBlocking(w, NULL, r[i].t, 0, 42);
            break;
        case E_WIN_CREATE:
            OTF2_EvtWriter_RmaWinCreate(w, NULL, r[i].t, 0);
            break;
        case E_WIN_DESTROY:
            OTF2_EvtWriter_RmaWinDestroy(w, NULL, r[i].t, 0);
            break;
        }
    }
}

/* The archive in dir: host records h[0..nh), stream records d[0..nd) */
static int write_dev_trace(const char *dir, const rec *h, size_t nh, const rec *d, size_t nd)
{
    static const char *const str[] = {"", "main", "cuLaunchKernel", "cuCtxSynchronize",
                                      "cuMemcpyDtoH_v2", "kern", "Master thread", "CUDA[0:1]",
                                      "Process 0", "CUDA_STREAM_REF", "node", "CUDA_GROUP"};
    OTF2_Archive *ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 256 * 1024, 256 * 1024,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    OTF2_GlobalDefWriter *gw;
    OTF2_EvtWriter *w;
    uint64_t members[2] = {0, 1};
    unsigned i;
    if (!ar)
        return -1;
    OTF2_Archive_SetFlushCallbacks(ar, &up_otf2_flush_callbacks, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(ar);
    OTF2_Archive_OpenEvtFiles(ar);
    w = OTF2_Archive_GetEvtWriter(ar, 0);
    write_recs(w, h, nh);
    OTF2_Archive_CloseEvtWriter(ar, w);
    w = OTF2_Archive_GetEvtWriter(ar, 1);
    write_recs(w, d, nd);
    OTF2_Archive_CloseEvtWriter(ar, w);
    OTF2_Archive_CloseEvtFiles(ar);
    gw = OTF2_Archive_GetGlobalDefWriter(ar);
    OTF2_GlobalDefWriter_WriteClockProperties(gw, 1000000000, 0, 100000, OTF2_UNDEFINED_TIMESTAMP);
    for (i = 0; i < sizeof str / sizeof *str; i++)
        OTF2_GlobalDefWriter_WriteString(gw, i, str[i]);
    OTF2_GlobalDefWriter_WriteRegion(gw, R_MAIN, 1, 1, 0, OTF2_REGION_ROLE_FUNCTION,
                                     OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(gw, R_LAUNCH, 2, 2, 0, OTF2_REGION_ROLE_WRAPPER,
                                     OTF2_PARADIGM_CUDA, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(gw, R_SYNC, 3, 3, 0, OTF2_REGION_ROLE_WRAPPER,
                                     OTF2_PARADIGM_CUDA, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(gw, R_DTOH, 4, 4, 0, OTF2_REGION_ROLE_WRAPPER,
                                     OTF2_PARADIGM_CUDA, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(gw, R_KERN, 5, 5, 0, OTF2_REGION_ROLE_FUNCTION,
                                     OTF2_PARADIGM_CUDA, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, 10, 10, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteLocationGroup(gw, 0, 8, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocation(gw, 0, 6, OTF2_LOCATION_TYPE_CPU_THREAD, nh, 0);
    OTF2_GlobalDefWriter_WriteLocation(gw, 1, 7, OTF2_LOCATION_TYPE_ACCELERATOR_STREAM, nd, 0);
    OTF2_GlobalDefWriter_WriteAttribute(gw, 0, 9, 0, OTF2_TYPE_LOCATION);
    OTF2_GlobalDefWriter_WriteGroup(gw, 0, 11, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_CUDA,
                                    OTF2_GROUP_FLAG_NONE, 2, members);
    OTF2_GlobalDefWriter_WriteGroup(gw, 1, 11, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_CUDA,
                                    OTF2_GROUP_FLAG_NONE, 2, members);
    OTF2_GlobalDefWriter_WriteComm(gw, 0, 0, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    OTF2_GlobalDefWriter_WriteRmaWin(gw, 0, 0, 0, OTF2_RMA_WIN_FLAG_NONE);
    return OTF2_Archive_Close(ar) == OTF2_SUCCESS ? 0 : -1;
}

/* A kernel launched and awaited, a second whose kernel the stream lost, a
 * blocking copy that re-aligns the pairing, a third kernel and a
 * synchronisation.  O = 100 ns per record, compensated (lower bound). */
static const rec host[] = {
    {E_ENTER, 0, R_MAIN},
    {E_LAUNCH, 1000, 0},   {E_LEAVE, 1500, R_LAUNCH},  /* issue 0: kernel */
    {E_LAUNCH, 2000, 0},   {E_LEAVE, 2500, R_LAUNCH},  /* issue 1: lost */
    {E_ENTER, 10000, R_DTOH}, {E_LEAVE, 14000, R_DTOH}, /* issue 2: copy */
    {E_LAUNCH, 15000, 0},  {E_LEAVE, 15500, R_LAUNCH}, /* issue 3: kernel */
    {E_ENTER, 16000, R_SYNC}, {E_LEAVE, 30000, R_SYNC},
    {E_LEAVE, 31000, R_MAIN},
};
static const rec stream[] = {
    {E_WIN_CREATE, 500, 0},
    {E_ENTER, 3000, R_KERN},  {E_LEAVE, 8000, R_KERN},  /* issue 0 */
    {E_PUT, 12000, 0},        {E_DONE, 13000, 0},       /* issue 2 (1 dropped) */
    {E_ENTER, 18000, R_KERN}, {E_LEAVE, 28000, R_KERN}, /* issue 3 */
    {E_WIN_DESTROY, 31000, 0},
};

static int run(const char *name, const rec *h, size_t nh, const rec *d, size_t nd,
               tr_trace *out, up_replay_result *res)
{
    char in[4096], o[4200];
    up_comp_params p = t_params(100, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    snprintf(in, sizeof in, "%s", t_dir(name));
    snprintf(o, sizeof o, "%s-out", in);
    if (write_dev_trace(in, h, nh, d, nd) != 0) {
        CHECK(!"cannot write the trace");
        return -1;
    }
    CHECK_EQ(t_compensate(in, o, &p, res, NULL), UP_OK);
    CHECK_EQ(tr_load(o, out), 0);
    return 0;
}

/* The host's records, eq. 1 with O = 100 after each: 0, 900, 1300, 1700,
 * 2100, 9500 (the copy's Enter).  A call reaches the device after its
 * Enter's overhead: issue 0 at measured 1000 + 100 = 1100, approximated 900;
 * issue 1 at (2100, 1700); issue 2, the copy, at (10100, 9500).  The stream:
 *   WinCreate 500: between activities, the shift of the host's next issue
 *     (issue 0: 900 - 1100 = -200): 300;
 *   kernel 0 [3000, 8000]: 900 + (3000 - 1100) = 2800, its duration kept:
 *     7800;
 *   the copy [12000, 13000]: issue 1 (a kernel) comes first and has lost its
 *     kernel: dropped (dev_issue_unpaired 1); issue 2: 9500 + 1900 = 11400,
 *     12400.
 * The copy's Leave 14000: local 9500 + 4000 - 100 = 13400; it waited
 *   13000 - 10000 = 3000 measured, so without it 10400; the copy ended at
 *   12400, and returned 14000 - 13000 = 1000 after it: max(10400, 13400) =
 *   13400 (the wait as measured: nothing was removed between the copy's
 *   issue and its wait).
 * Then 13400 + 1000 - 100 = 14300 (issue 3 at (15100, 14300)), 14700, 15100
 *   (the sync's Enter).
 * Kernel 2 [18000, 28000]: 14300 + (18000 - 15100) = 17200, 27200.
 * The sync's Leave 30000: local 15100 + 14000 - 100 = 29000, waited 28000 -
 *   16000 = 12000 (17000 without), ended 27200 + 2000: 29200 (the wait grows
 *   by the 200 removed after the kernel's issue: the launch's Leave and the
 *   sync's Enter).
 * main's Leave: 29200 + 1000 - 100 = 30100.  WinDestroy 31000: no issue
 *   comes any more: the last paired shift, 17200 - 18000 = -800: 30200. */
TEST(dev_pairing_shift_and_waits)
{
    static const uint64_t want_h[] = {0, 900, 1300, 1700, 2100, 9500, 13400, 14300, 14700,
                                      15100, 29200, 30100};
    static const uint64_t want_d[] = {300, 2800, 7800, 11400, 12400, 17200, 27200, 30200};
    tr_trace t;
    up_replay_result res;
    memset(&t, 0, sizeof t);
    if (run("dev_pairing", host, sizeof host / sizeof *host, stream, sizeof stream / sizeof *stream,
            &t, &res) != 0)
        return;
    CHECK_TIMES(&t, 0, want_h, sizeof want_h / sizeof *want_h);
    CHECK_TIMES(&t, 1, want_d, sizeof want_d / sizeof *want_d);
    CHECK_EQ(res.repairs[UP_REPAIR_dev_issue_unpaired], 1);
    CHECK_EQ(res.repairs[UP_REPAIR_dev_activity_unpaired], 0);
    CHECK_EQ(res.repairs[UP_REPAIR_dev_wait_released], 0);
    tr_free(&t);
    up_replay_result_free(&res);
}

/* simulate on a faster accelerator (speed_ratio 2: kernels and copies take
 * half their time) with a launch latency of 1000 ns, the host as measured
 * (no overhead given, cpu_ratio 1): the host's waits shrink.
 *   WinCreate 500: issue 0's shift, 0: 500.
 *   kernel 0: issue 0 at 1000 + 1000 = 2000, 5000 / 2 later: 4500.
 *   copy: issue 1 dropped; issue 2 at 10000 + 1000 = 11000, 11500.
 *   the copy's Leave: 14000 less its measured wait 3000 = 11000, or the
 *     copy's end 11500 + its return 1000 = 12500: 12500 (it waited 4000,
 *     now 2500).
 *   host: 13500 (issue 3), 14000, 14500 (the sync's Enter).
 *   kernel 2: 13500 + 1000 = 14500, 10000 / 2 later: 19500.
 *   the sync's Leave: 14500 + 14000 - 12000 = 16500, or 19500 + 2000:
 *     21500 (it waited 14000, now 7000).
 *   main's Leave 22500; WinDestroy 31000 - 3500 = 27500. */
TEST(dev_simulate_accelerator_speed)
{
    static const uint64_t want_h[] = {0, 1000, 1500, 2000, 2500, 10000, 12500, 13500, 14000,
                                      14500, 21500, 22500};
    static const uint64_t want_d[] = {500, 2000, 4500, 11000, 11500, 14500, 19500, 27500};
    char in[4096], o[4200];
    up_machine mach;
    up_simrun_opts opts;
    up_sim_summary s;
    up_err err = {0};
    tr_trace t;
    memset(&t, 0, sizeof t);
    memset(&s, 0, sizeof s);
    snprintf(in, sizeof in, "%s", t_dir("dev_sim"));
    snprintf(o, sizeof o, "%s-out", in);
    if (write_dev_trace(in, host, sizeof host / sizeof *host, stream,
                        sizeof stream / sizeof *stream) != 0) {
        CHECK(!"cannot write the trace");
        return;
    }
    up_machine_init(&mach);
    mach.compute = UP_COMPUTE_WALL;
    mach.accel_ratio = 2;
    mach.launch_latency_ns = 1000;
    memset(&opts, 0, sizeof opts);
    opts.input = in;
    opts.machine = &mach;
    opts.out_dir = o;
    opts.quiet = true;
    CHECK_EQ(up_simrun_one(&opts, &s, &err), UP_OK);
    CHECK_EQ(tr_load(o, &t), 0);
    CHECK_TIMES(&t, 0, want_h, sizeof want_h / sizeof *want_h);
    CHECK_TIMES(&t, 1, want_d, sizeof want_d / sizeof *want_d);
    tr_free(&t);
    up_sim_summary_free(&s);
}

/* ---- OpenMP offloading: the pairing the trace names ------------------------
 * Score-P's offload adapter (casita-1_xeonphi_jacobi_01) records a target
 * construct as a region the host enters and the device enters too, one
 * definition for both; the data movement of "target update" runs on a
 * stream of its own, and the host flushes the device's trace buffer inside
 * the construct ("!$omp offloading flush", measurement overhead).  One
 * process: host 0, streams 1 ("MIC [0:RDMA]") and 2 ("MIC [0:1]"). */
enum { T_MAIN, T_MAP, T_UPD, T_FLUSH, T_PAR };

static int write_target_trace(const char *dir, const rec *h, size_t nh, const rec *rdma,
                              size_t nr, const rec *mic, size_t nm)
{
    static const char *const str[] = {"", "main", "!$omp targetmap @t.c:1",
                                      "!$omp targetupdate @t.c:2", "!$omp offloading flush",
                                      "!$omp parallel @t.c:3", "Master thread", "MIC [0:RDMA]",
                                      "MIC [0:1]", "Process 0", "node"};
    static const struct { int role, paradigm; } rg[] = {
        [T_MAIN] = {OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER},
        [T_MAP] = {OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_OPENMP},
        [T_UPD] = {OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_OPENMP},
        [T_FLUSH] = {OTF2_REGION_ROLE_FLUSH, OTF2_PARADIGM_MEASUREMENT_SYSTEM},
        [T_PAR] = {OTF2_REGION_ROLE_PARALLEL, OTF2_PARADIGM_UNKNOWN},
    };
    static const OTF2_LocationType lt[] = {OTF2_LOCATION_TYPE_CPU_THREAD,
                                           OTF2_LOCATION_TYPE_ACCELERATOR_STREAM,
                                           OTF2_LOCATION_TYPE_ACCELERATOR_STREAM};
    const rec *recs[] = {h, rdma, mic};
    const size_t n[] = {nh, nr, nm};
    OTF2_Archive *ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 256 * 1024, 256 * 1024,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    OTF2_GlobalDefWriter *gw;
    unsigned i;
    if (!ar)
        return -1;
    OTF2_Archive_SetFlushCallbacks(ar, &up_otf2_flush_callbacks, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(ar);
    OTF2_Archive_OpenEvtFiles(ar);
    for (i = 0; i < 3; i++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, i);
        write_recs(w, recs[i], n[i]);
        OTF2_Archive_CloseEvtWriter(ar, w);
    }
    OTF2_Archive_CloseEvtFiles(ar);
    gw = OTF2_Archive_GetGlobalDefWriter(ar);
    OTF2_GlobalDefWriter_WriteClockProperties(gw, 1000000000, 0, 100000, OTF2_UNDEFINED_TIMESTAMP);
    for (i = 0; i < sizeof str / sizeof *str; i++)
        OTF2_GlobalDefWriter_WriteString(gw, i, str[i]);
    for (i = 0; i < sizeof rg / sizeof *rg; i++)
        OTF2_GlobalDefWriter_WriteRegion(gw, i, i + 1, i + 1, 0, (OTF2_RegionRole)rg[i].role,
                                         (OTF2_Paradigm)rg[i].paradigm, OTF2_REGION_FLAG_NONE, 0, 0,
                                         0);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, 10, 10, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteLocationGroup(gw, 0, 9, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    for (i = 0; i < 3; i++)
        OTF2_GlobalDefWriter_WriteLocation(gw, i, 6 + i, lt[i], n[i], 0);
    return OTF2_Archive_Close(ar) == OTF2_SUCCESS ? 0 : -1;
}

/* A target region entered twice nested (the outer Enter issues), run on
 * stream 2, with a buffer flush after it; a target update run on stream 1;
 * a target region no stream ran (the host fell back).  O = 100 per record,
 * compensated (lower bound); eq. 1 on the host unless said.
 *   host: 0; the outer Enter 1000: 900, issue (m 1000, o 100, a 900), a copy
 *     to each stream; the inner Enter 1200: 1000 (measured before the
 *     device's end: local).
 *   stream 2: its region's Enter 1500 takes the copy of its region: 900 +
 *     (1500 - 1100) = 1300; its records keep their measured durations: 1400,
 *     4800, 4900 (ended at measured 5100).
 *   host: the flush's Enter 5300 is the first record at or after the
 *     device's end: local 1000 + 4100 - 100 = 5000, the part of its gap
 *     that waited 5100 - 1200 = 3900, so 1100 without the wait; the device
 *     ended at 4900 and the host came 5300 - 5100 = 200 after it: max(1100,
 *     5100) = 5100.  The flush is overhead, removed whole: its Leave 5100.
 *     The inner Leave 8600: 5100 + 300 - 100 = 5300; the outer 8800: 5400.
 *   the update's Enter 9000: 5500, issue (9000, 100, 5500).
 *   stream 1: its region's Enter 9150 was blocked until then; the copy of
 *     the first region (stream 2's) is dropped, uncounted; 5500 + (9150 -
 *     9100) = 5550, its Leave 9300: 5700.
 *   host: the update's Leave 9400: local 5800, waited 9300 - 9000 = 300:
 *     5500; the device's end 5700 + 100 = 5800: 5800.
 *   a third target region, Enter 9500: 5800, Leave 9700: no stream runs it
 *     (both drop their copies when their records end): local, 5900, counted
 *     dev_issue_unpaired 1.  main's Leave 10000: 5900 + 300 - 100 = 6100. */
TEST(dev_target_named_pairing)
{
    static const rec h[] = {
        {E_ENTER, 0, T_MAIN},     {E_ENTER, 1000, T_MAP},   {E_ENTER, 1200, T_MAP},
        {E_ENTER, 5300, T_FLUSH}, {E_LEAVE, 8300, T_FLUSH}, {E_LEAVE, 8600, T_MAP},
        {E_LEAVE, 8800, T_MAP},   {E_ENTER, 9000, T_UPD},   {E_LEAVE, 9400, T_UPD},
        {E_ENTER, 9500, T_MAP},   {E_LEAVE, 9700, T_MAP},   {E_LEAVE, 10000, T_MAIN},
    };
    static const rec rdma[] = {{E_ENTER, 9150, T_UPD}, {E_LEAVE, 9300, T_UPD}};
    static const rec mic[] = {{E_ENTER, 1500, T_MAP}, {E_ENTER, 1600, T_PAR},
                              {E_LEAVE, 5000, T_PAR}, {E_LEAVE, 5100, T_MAP}};
    static const uint64_t want_h[] = {0, 900, 1000, 5100, 5100, 5300, 5400, 5500, 5800, 5800,
                                      5900, 6100};
    static const uint64_t want_r[] = {5550, 5700};
    static const uint64_t want_m[] = {1300, 1400, 4800, 4900};
    char in[4096], o[4200];
    up_comp_params p = t_params(100, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace t;
    memset(&t, 0, sizeof t);
    snprintf(in, sizeof in, "%s", t_dir("dev_target"));
    snprintf(o, sizeof o, "%s-out", in);
    if (write_target_trace(in, h, sizeof h / sizeof *h, rdma, sizeof rdma / sizeof *rdma, mic,
                           sizeof mic / sizeof *mic) != 0) {
        CHECK(!"cannot write the trace");
        return;
    }
    CHECK_EQ(t_compensate(in, o, &p, &res, NULL), UP_OK);
    CHECK_EQ(tr_load(o, &t), 0);
    CHECK_TIMES(&t, 0, want_h, sizeof want_h / sizeof *want_h);
    CHECK_TIMES(&t, 1, want_r, sizeof want_r / sizeof *want_r);
    CHECK_TIMES(&t, 2, want_m, sizeof want_m / sizeof *want_m);
    CHECK_EQ(res.repairs[UP_REPAIR_dev_issue_unpaired], 1);
    CHECK_EQ(res.repairs[UP_REPAIR_dev_activity_unpaired], 0);
    CHECK_EQ(res.repairs[UP_REPAIR_dev_wait_released], 0);
    tr_free(&t);
    up_replay_result_free(&res);
}
