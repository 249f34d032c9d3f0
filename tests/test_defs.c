/*
 * test_defs.c - global definitions the reader (src/trace/defs.c) must
 * survive, found by the fuzz targets: archives written with OTF2's own
 * writer, with definitions OTF2's writer does not check.
 */
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#include "test.h"
#include "trace/trace.h"

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef l, void *c, bool f)
{
    (void)ud, (void)ft, (void)l, (void)c, (void)f;
    return OTF2_FLUSH;
}
static const OTF2_FlushCallbacks flush_cb = {pre_flush, NULL};

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
    OTF2_Archive_SetFlushCallbacks(ar, &flush_cb, NULL);
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
    OTF2_GlobalDefWriter_WriteString(gw, 2, "Master thread");
    OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, 0, 0, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteLocationGroup(gw, 0, 0, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocation(gw, 0, 2, OTF2_LOCATION_TYPE_CPU_THREAD, 2, 0);
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
