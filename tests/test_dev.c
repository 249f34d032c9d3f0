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

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef l, void *c, bool f)
{
    (void)ud, (void)ft, (void)l, (void)c, (void)f;
    return OTF2_FLUSH;
}
static const OTF2_FlushCallbacks flush_cb = {pre_flush, NULL};

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
    OTF2_Archive_SetFlushCallbacks(ar, &flush_cb, NULL);
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
