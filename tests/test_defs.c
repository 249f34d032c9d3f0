/*
 * test_defs.c - global definitions the reader (src/trace/defs.c) must
 * survive, found by the fuzz targets: archives written with OTF2's own
 * writer, with definitions OTF2's writer does not check.
 */
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#include "trace/chunks.h"
#include "test.h"
#include "trace/trace.h"

/* Two MPI ranks with one Enter/Leave each; the group and location group
 * definitions twice each, the second time with other contents:
 *   group 0 (COMM_LOCATIONS): {0, 1}, then {1}
 *   location group 0: node 1, then node 2 (location 0 is in it)
 *   location group 1: node 2, then node 1 (location 1) */
/* An archive in dir whose locations 0..nlocs-1 have one Enter (10) and one
 * Leave (20) of region 0 each, its event files closed: the caller writes the
 * global definitions and closes it.  NULL if OTF2 cannot open it. */
static OTF2_Archive *enter_leave_archive(const char *dir, unsigned nlocs)
{
    OTF2_Archive *ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 256 * 1024, 256 * 1024,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    unsigned r;
    CHECK(ar != NULL);
    if (!ar)
        return NULL;
    OTF2_Archive_SetFlushCallbacks(ar, &up_otf2_flush_callbacks, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(ar);
    OTF2_Archive_OpenEvtFiles(ar);
    for (r = 0; r < nlocs; r++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, r);
        OTF2_EvtWriter_Enter(w, NULL, 10, 0);
        OTF2_EvtWriter_Leave(w, NULL, 20, 0);
        OTF2_Archive_CloseEvtWriter(ar, w);
    }
    OTF2_Archive_CloseEvtFiles(ar);
    return ar;
}

/* The definitions every archive here starts with: the clock (1 GHz,
 * offset 10, length 11), strings 0 "" and 1 "main", region 0 "main".
 * Returns the writer for the rest. */
static OTF2_GlobalDefWriter *main_defs(OTF2_Archive *ar)
{
    OTF2_GlobalDefWriter *gw = OTF2_Archive_GetGlobalDefWriter(ar);
    OTF2_GlobalDefWriter_WriteClockProperties(gw, 1000000000, 10, 11, OTF2_UNDEFINED_TIMESTAMP);
    OTF2_GlobalDefWriter_WriteString(gw, 0, "");
    OTF2_GlobalDefWriter_WriteString(gw, 1, "main");
    OTF2_GlobalDefWriter_WriteRegion(gw, 0, 1, 1, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
                                     OTF2_REGION_FLAG_NONE, 0, 0, 0);
    return gw;
}

/* Location 0, "Master thread" (String 2): a CPU thread of process group 0
 * on node 0, for an archive of enter_leave_archive(dir, 1). */
static void one_thread(OTF2_GlobalDefWriter *gw)
{
    OTF2_GlobalDefWriter_WriteString(gw, 2, "Master thread");
    OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, 0, 0, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteLocationGroup(gw, 0, 0, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocation(gw, 0, 2, OTF2_LOCATION_TYPE_CPU_THREAD, 2, 0);
}

static void write_twice(const char *dir)
{
    OTF2_Archive *ar = enter_leave_archive(dir, 2);
    OTF2_GlobalDefWriter *gw;
    uint64_t both[2] = {0, 1}, one[1] = {1};
    unsigned r;
    if (!ar)
        return;
    gw = main_defs(ar);
    OTF2_GlobalDefWriter_WriteString(gw, 2, "node");
    OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, 2, 2, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 1, 2, 2, 0);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 2, 2, 2, 0);
    OTF2_GlobalDefWriter_WriteLocationGroup(gw, 0, 0, OTF2_LOCATION_GROUP_TYPE_PROCESS, 1,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocationGroup(gw, 0, 0, OTF2_LOCATION_GROUP_TYPE_PROCESS, 2,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocationGroup(gw, 1, 0, OTF2_LOCATION_GROUP_TYPE_PROCESS, 2,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocationGroup(gw, 1, 0, OTF2_LOCATION_GROUP_TYPE_PROCESS, 1,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    for (r = 0; r < 2; r++)
        OTF2_GlobalDefWriter_WriteLocation(gw, r, 0, OTF2_LOCATION_TYPE_CPU_THREAD, 2, r);
    OTF2_GlobalDefWriter_WriteGroup(gw, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, both);
    OTF2_GlobalDefWriter_WriteGroup(gw, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 1, one);
    OTF2_GlobalDefWriter_WriteComm(gw, 0, 0, 0, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    CHECK(OTF2_Archive_Close(ar) == OTF2_SUCCESS);
}

/* A definition given twice keeps the first, as for locations (and nothing
 * of the second is left over: it leaked before). */
TEST(defs_a_group_or_location_group_twice_keeps_the_first)
{
    char dir[4096];
    up_trace *t = NULL;
    up_err err = {0};
    const up_defs *d;
    uint32_t locs[4], li = UINT32_MAX;
    snprintf(dir, sizeof dir, "%s", t_dir("twice"));
    write_twice(dir);
    CHECK_EQ(up_trace_open(dir, &t, &err), UP_OK);
    if (!t)
        return;
    d = up_trace_defs(t);
    CHECK_EQ(d->nlocs, 2);
    CHECK_EQ(up_defs_group_locs(d, 0, locs, 4), 2);
    CHECK_EQ(locs[0], 0);
    CHECK_EQ(locs[1], 1);
    CHECK(up_defs_rank_loc(d, 0, 1, 0, &li));
    CHECK_EQ(li, 1);
    CHECK_EQ(d->locs[0].rank, 0);
    CHECK_EQ(d->locs[1].rank, 1);
    CHECK_EQ(d->locs[0].node, 1);
    CHECK_EQ(d->locs[1].node, 2);
    up_trace_close(t);
}

/* A String defined again after definitions that use it: the first stays
 * (the second freed the first, which regions and locations still pointed
 * to: a use after free when report.html or the timeline named them). */
TEST(defs_a_string_defined_again_keeps_the_first)
{
    char dir[4096];
    OTF2_Archive *ar;
    OTF2_GlobalDefWriter *gw;
    up_trace *t = NULL;
    up_err err = {0};
    const up_region_def *rg;
    snprintf(dir, sizeof dir, "%s", t_dir("string"));
    if (!(ar = enter_leave_archive(dir, 1)))
        return;
    gw = main_defs(ar);
    one_thread(gw);
    OTF2_GlobalDefWriter_WriteString(gw, 1, "other");
    OTF2_GlobalDefWriter_WriteString(gw, 2, "another");
    CHECK(OTF2_Archive_Close(ar) == OTF2_SUCCESS);
    CHECK_EQ(up_trace_open(dir, &t, &err), UP_OK);
    if (!t)
        return;
    rg = up_defs_region(up_trace_defs(t), 0);
    CHECK(rg && rg->name && !strcmp(rg->name, "main"));
    CHECK(up_trace_defs(t)->nlocs == 1 && !strcmp(up_trace_defs(t)->locs[0].name, "Master thread"));
    up_trace_close(t);
}

/* Location kinds (issue 33, item 4).  Written here: location groups 0 and
 * 1 processes, 2 an accelerator created by process 1, 3 an accelerator
 * with no creator; locations
 *   0 CPU thread in 0            -> CPU, process group, process 0
 *   1 CPU thread in 1            -> CPU, process group, process 1
 *   2 accelerator stream in 2    -> accelerator, accelerator group, process 1
 *   3 metric location in 0       -> metric, process group, process 0
 *   4 CPU thread in 3            -> CPU, accelerator group, its own: process 2
 *   5 unknown type in group 9    -> other, no group, no process
 * (processes numbered in the order of their first location). */
static void write_kinds(const char *dir)
{
    OTF2_Archive *ar = enter_leave_archive(dir, 6);
    OTF2_GlobalDefWriter *gw;
    static const OTF2_LocationType type[6] = {
        OTF2_LOCATION_TYPE_CPU_THREAD, OTF2_LOCATION_TYPE_CPU_THREAD,
        OTF2_LOCATION_TYPE_ACCELERATOR_STREAM, OTF2_LOCATION_TYPE_METRIC,
        OTF2_LOCATION_TYPE_CPU_THREAD, OTF2_LOCATION_TYPE_UNKNOWN};
    static const OTF2_LocationGroupRef group[6] = {0, 1, 2, 0, 3, 9};
    unsigned l;
    if (!ar)
        return;
    gw = main_defs(ar);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, 0, 0, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteLocationGroup(gw, 0, 0, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocationGroup(gw, 1, 0, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocationGroup(gw, 2, 0, OTF2_LOCATION_GROUP_TYPE_ACCELERATOR, 0, 1);
    OTF2_GlobalDefWriter_WriteLocationGroup(gw, 3, 0, OTF2_LOCATION_GROUP_TYPE_ACCELERATOR, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    for (l = 0; l < 6; l++)
        OTF2_GlobalDefWriter_WriteLocation(gw, l, 0, type[l], 2, group[l]);
    CHECK(OTF2_Archive_Close(ar) == OTF2_SUCCESS);
}

TEST(defs_location_kinds_and_processes)
{
    static const up_loc_kind kind[6] = {UP_LOC_CPU, UP_LOC_CPU, UP_LOC_ACCELERATOR,
                                        UP_LOC_METRIC, UP_LOC_CPU, UP_LOC_OTHER};
    static const up_group_kind gkind[6] = {UP_GROUP_PROCESS, UP_GROUP_PROCESS,
                                           UP_GROUP_ACCELERATOR, UP_GROUP_PROCESS,
                                           UP_GROUP_ACCELERATOR, UP_GROUP_NONE};
    static const uint32_t process[6] = {0, 1, 1, 0, 2, UP_NO_PROCESS};
    char dir[4096];
    up_trace *t = NULL;
    up_err err = {0};
    const up_defs *d;
    unsigned l;
    snprintf(dir, sizeof dir, "%s", t_dir("kinds"));
    write_kinds(dir);
    CHECK_EQ(up_trace_open(dir, &t, &err), UP_OK);
    if (!t)
        return;
    d = up_trace_defs(t);
    CHECK_EQ(d->nlocs, 6);
    CHECK_EQ(d->nprocs, 3);
    for (l = 0; l < 6 && l < d->nlocs; l++) {
        CHECK_EQ(d->locs[l].kind, kind[l]);
        CHECK_EQ(d->locs[l].gkind, gkind[l]);
        CHECK_EQ(d->locs[l].process, process[l]);
    }
    up_trace_close(t);
}

/* A real Score-P trace (otf2-print -G): 2 processes "MPI Rank 0" and "MPI
 * Rank 1", each a master thread, three OpenMP threads and a CUDA stream
 * ("CUDA[0:2]", ACCELERATOR_STREAM) in the process's own group.  The
 * stream belongs to its process, and keeps the rank it had. */
TEST(defs_location_kinds_of_a_hybrid_score_p_trace)
{
    up_trace *t = NULL;
    up_err err = {0};
    const up_defs *d;
    size_t i, accel = 0;
    CHECK_EQ(up_trace_open(t_src("tests/data/casita-2_jacobi_blame_cpu_015"), &t, &err), UP_OK);
    if (!t)
        return;
    d = up_trace_defs(t);
    CHECK_EQ(d->nlocs, 10);
    CHECK_EQ(d->nprocs, 2);
    for (i = 0; i < d->nlocs; i++) {
        const up_loc_def *l = &d->locs[i];
        bool cuda = strncmp(l->name, "CUDA[", 5) == 0;
        CHECK_EQ(l->kind, cuda ? UP_LOC_ACCELERATOR : UP_LOC_CPU);
        CHECK_EQ(l->gkind, UP_GROUP_PROCESS);
        CHECK_EQ(l->process, (uint32_t)(l->id & 1)); /* ids: thread << 32 | rank */
        CHECK_EQ(l->rank, (long)(l->id & 1));
        accel += cuda;
    }
    CHECK_EQ(accel, 2);
    up_trace_close(t);
}

/* The UP_REGION_* flags of a region, from its name and paradigm: the MPI
 * call classes of src/trace/mpi_calls.def (INIT, FINALIZE, SSEND, PROBE,
 * COLL and the WIN_ flags whatever the paradigm; POLL and NOWAIT of MPI
 * regions only, also of calls the tracer does not wrap, which Score-P
 * traces hold), the overhead and user regions. */
TEST(defs_region_flags_by_name)
{
    enum { I = UP_REGION_MPI_INIT, F = UP_REGION_MPI_FINALIZE, O = UP_REGION_OVERHEAD,
           U = UP_REGION_USER, S = UP_REGION_SSEND, M = UP_REGION_MPI, P = UP_REGION_POLL,
           N = UP_REGION_NOWAIT, PR = UP_REGION_PROBE, C = UP_REGION_COLL,
           WP = UP_REGION_WIN_POST, WS = UP_REGION_WIN_START, WC = UP_REGION_WIN_COMPLETE,
           WW = UP_REGION_WIN_WAIT };
    static const struct {
        const char *name;
        OTF2_Paradigm paradigm;
        unsigned flags;
    } c[] = {
        {"MPI_Init", OTF2_PARADIGM_MPI, I | M},
        {"MPI_Init_thread", OTF2_PARADIGM_MPI, I | M},
        {"MPI_Finalize", OTF2_PARADIGM_MPI, F | M},
        {"MPI_Ssend", OTF2_PARADIGM_MPI, S | M},
        {"MPI_Issend", OTF2_PARADIGM_MPI, S | M | N},
        {"MPI_Test", OTF2_PARADIGM_MPI, P | M},
        {"MPI_Testany", OTF2_PARADIGM_MPI, P | M},
        {"MPI_Testsome", OTF2_PARADIGM_MPI, P | M},
        {"MPI_Testall", OTF2_PARADIGM_MPI, P | M},
        {"MPI_Iprobe", OTF2_PARADIGM_MPI, P | PR | M},
        {"MPI_Improbe", OTF2_PARADIGM_MPI, P | PR | M},
        {"MPI_Isend", OTF2_PARADIGM_MPI, N | M},
        {"MPI_Ibsend", OTF2_PARADIGM_MPI, N | M},
        {"MPI_Irsend", OTF2_PARADIGM_MPI, N | M},
        {"MPI_Irecv", OTF2_PARADIGM_MPI, N | M},
        {"MPI_Imrecv", OTF2_PARADIGM_MPI, N | M},
        {"MPI_Send", OTF2_PARADIGM_MPI, N | M},
        {"MPI_Bsend", OTF2_PARADIGM_MPI, N | M},
        {"MPI_Rsend", OTF2_PARADIGM_MPI, N | M},
        {"MPI_Send_init", OTF2_PARADIGM_MPI, N | M},
        {"MPI_Recv_init", OTF2_PARADIGM_MPI, N | M},
        {"MPI_Start", OTF2_PARADIGM_MPI, N | M},
        {"MPI_Startall", OTF2_PARADIGM_MPI, N | M},
        {"MPI_Request_free", OTF2_PARADIGM_MPI, N | M},
        /* not wrapped by the tracer */
        {"MPI_Comm_rank", OTF2_PARADIGM_MPI, N | M},
        {"MPI_Comm_size", OTF2_PARADIGM_MPI, N | M},
        {"MPI_Get_count", OTF2_PARADIGM_MPI, N | M},
        {"MPI_Wtime", OTF2_PARADIGM_MPI, N | M},
        {"MPI_Get_processor_name", OTF2_PARADIGM_MPI, N | M},
        /* wrapped, in no class */
        {"MPI_Ssend_init", OTF2_PARADIGM_MPI, M},
        {"MPI_Bsend_init", OTF2_PARADIGM_MPI, M},
        {"MPI_Probe", OTF2_PARADIGM_MPI, M},
        {"MPI_Wait", OTF2_PARADIGM_MPI, M},
        {"MPI_Recv", OTF2_PARADIGM_MPI, M},
        {"MPI_Win_fence", OTF2_PARADIGM_MPI, M},
        {"MPI_Iallreduce", OTF2_PARADIGM_MPI, M},
        /* blocking collectives (class coll), RMA's active target */
        {"MPI_Allreduce", OTF2_PARADIGM_MPI, C | M},
        {"MPI_Barrier", OTF2_PARADIGM_MPI, C | M},
        {"MPI_Exscan", OTF2_PARADIGM_MPI, C | M},
        {"MPI_Win_post", OTF2_PARADIGM_MPI, WP | M},
        {"MPI_Win_start", OTF2_PARADIGM_MPI, WS | M},
        {"MPI_Win_complete", OTF2_PARADIGM_MPI, WC | M},
        {"MPI_Win_wait", OTF2_PARADIGM_MPI, WW | M},
        {"MPI_Win_test", OTF2_PARADIGM_MPI, WW | M},
        {"mpi_test", OTF2_PARADIGM_MPI, M},
        /* named MPI_ in another paradigm */
        {"MPI_Testsome", OTF2_PARADIGM_UNKNOWN, P | M},
        {"MPI_Comm_rank", OTF2_PARADIGM_OPENMP, N | M},
        /* the program's own function of an MPI call's name: POLL and NOWAIT
         * only for MPI regions, the others whatever the paradigm (as the
         * engine's probes and RMA calls and the timeline's collectives
         * were found by name) */
        {"MPI_Comm_rank", OTF2_PARADIGM_USER, U},
        {"MPI_Iprobe", OTF2_PARADIGM_COMPILER, PR | U},
        {"MPI_Init", OTF2_PARADIGM_USER, I | U},
        {"MPI_Finalize", OTF2_PARADIGM_COMPILER, F | U},
        {"MPI_Issend", OTF2_PARADIGM_COMPILER, S | U},
        {"MPI_Improbe", OTF2_PARADIGM_USER, PR | U},
        {"MPI_Barrier", OTF2_PARADIGM_COMPILER, C | U},
        {"MPI_Win_post", OTF2_PARADIGM_USER, WP | U},
        /* overhead, user, other */
        {"TRACE BUFFER FLUSH", OTF2_PARADIGM_MEASUREMENT_SYSTEM, O},
        {"UNPERTURB flush", OTF2_PARADIGM_USER, O},
        /* the tracer's window marks without MPI (trace.h): overhead that
         * opens and closes the window as MPI_Init and MPI_Finalize do */
        {"UNPERTURB window begin", OTF2_PARADIGM_MEASUREMENT_SYSTEM, O | I},
        {"UNPERTURB window end", OTF2_PARADIGM_MEASUREMENT_SYSTEM, O | F},
        {"UNPERTURB window", OTF2_PARADIGM_MEASUREMENT_SYSTEM, O},
        {"MPI_Test", OTF2_PARADIGM_USER, U},
        {"compute", OTF2_PARADIGM_COMPILER, U},
        /* device calls (engine_dev.c), by name in paradigm CUDA only */
        {"cudaMemcpy", OTF2_PARADIGM_CUDA, UP_REGION_DEV_COPY},
        {"cuMemcpyHtoD_v2", OTF2_PARADIGM_CUDA, UP_REGION_DEV_COPY},
        {"cuMemcpyDtoHAsync_v2", OTF2_PARADIGM_CUDA, UP_REGION_DEV_LAUNCH},
        {"cuLaunchKernel", OTF2_PARADIGM_CUDA, UP_REGION_DEV_LAUNCH},
        {"cudaLaunchKernel", OTF2_PARADIGM_CUDA, UP_REGION_DEV_LAUNCH},
        {"cuCtxSynchronize", OTF2_PARADIGM_CUDA, UP_REGION_DEV_SYNC},
        {"cudaSynchronize", OTF2_PARADIGM_CUDA, UP_REGION_DEV_SYNC},
        {"cuMemAlloc_v2", OTF2_PARADIGM_CUDA, 0},
        {"cuMemcpyHtoD_v2", OTF2_PARADIGM_USER, U},
        /* OpenMP target constructs by Score-P's offload names (not target data) */
        {"!$omp targetmap @jacobi_target.c:174", OTF2_PARADIGM_OPENMP, UP_REGION_DEV_TARGET},
        {"!$omp target @jacobi_target.c:224", OTF2_PARADIGM_UNKNOWN, UP_REGION_DEV_TARGET},
        {"!$omp targetupdate @jacobi_target.c:207", OTF2_PARADIGM_OPENMP, UP_REGION_DEV_TARGET},
        {"!$omp targetdatamap @jacobi_target.c:92", OTF2_PARADIGM_OPENMP, 0},
    };
    enum { NC = sizeof c / sizeof c[0] };
    char dir[4096];
    OTF2_Archive *ar;
    OTF2_GlobalDefWriter *gw;
    up_trace *t = NULL;
    up_err err = {0};
    unsigned i;
    snprintf(dir, sizeof dir, "%s", t_dir("rflags"));
    if (!(ar = enter_leave_archive(dir, 1)))
        return;
    gw = main_defs(ar);
    one_thread(gw);
    for (i = 0; i < NC; i++) {
        OTF2_GlobalDefWriter_WriteString(gw, 3 + i, c[i].name);
        OTF2_GlobalDefWriter_WriteRegion(gw, 1 + i, 3 + i, 3 + i, 0, OTF2_REGION_ROLE_FUNCTION,
                                         c[i].paradigm, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    }
    CHECK(OTF2_Archive_Close(ar) == OTF2_SUCCESS);
    CHECK_EQ(up_trace_open(dir, &t, &err), UP_OK);
    if (!t)
        return;
    for (i = 0; i < NC; i++) {
        const up_region_def *rg = up_defs_region(up_trace_defs(t), 1 + i);
        CHECK(rg && !strcmp(rg->name, c[i].name));
        if (rg && rg->flags != c[i].flags)
            t_fail(__FILE__, __LINE__, "region %s of paradigm %d: flags %#x, not %#x", c[i].name,
                   (int)c[i].paradigm, rg->flags, c[i].flags);
        /* the flags an Enter or Leave carries: the low byte */
        CHECK_EQ(up_defs_region_flags(up_trace_defs(t), 1 + i), c[i].flags & UP_REGION_EVENT_MASK);
    }
    up_trace_close(t);
}
