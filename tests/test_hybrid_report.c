/*
 * test_hybrid_report.c - the hybrid figures of `unperturb report`
 * (src/analysis/hybrid.c), the report's grouping of a process's threads and
 * streams (src/report/profile_report.c) and the tracks of `unperturb export
 * --perfetto` (src/report/perfetto.c), on a trace written here with OTF2's
 * writer and values worked out by hand.
 *
 * One process ("Process", no MPI), 1 GHz clock (ticks are ns):
 *   location 0 "Master thread" (CPU, process group 0)
 *   location 1 "OMP thread 1"  (CPU, process group 0)
 *   location 2 "CUDA[0:2]"     (accelerator stream, accelerator group 1
 *                               created by group 0)
 *
 *   master   1000 Enter main; 1100 ThreadFork; 1200 TeamBegin; 1210 Enter
 *            parallel; 1300 Enter critical, 1300 AcquireLock, 1400
 *            ReleaseLock, 1410 Leave critical; 1500 Enter barrier, 1850
 *            Leave; 1860 Leave parallel; 1900 TeamEnd; 2000 ThreadJoin;
 *            2100 Enter cuCtxSynchronize, 2500 Leave; 2600 Leave main
 *   thread 1 1250 TeamBegin; 1260 Enter parallel; 1350 Enter critical,
 *            1400 AcquireLock (held by the master until 1400), 1450
 *            ReleaseLock, 1460 Leave critical; 1800 Enter barrier (300 ns
 *            after the master), 1850 Leave; 1860 Leave parallel; 1950
 *            TeamEnd
 *   stream   1300 RmaGet, 1350 RmaOpCompleteBlocking (a copy of 50 ns);
 *            1450 Enter kernel, 2450 Leave (1 us)
 *
 * By hand (the window is the master's, [1000, 2600]: 1600 ns):
 *   OpenMP barrier wait  master 1800 - 1500 = 300, thread 0: 300 ns
 *   lock contention      thread 1: 1400 - 1350 = 50 ns, 1 of 2 acquisitions
 *   idle threads         thread 1: 1600 - (1950 - 1250) = 900 ns
 *   fork overhead        1250 - 1100 = 150 ns; join 2000 - 1950 = 50 ns
 *   host waiting         cuCtxSynchronize 2500 - 2100 = 400 ns, 1 call
 *   device idle          1600 - 50 - 1000 = 550 ns
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#include "trace/chunks.h"
#include "test.h"
#include "analysis/hybrid.h"
#include "report/perfetto.h"
#include "report/profile_report.h"
#include "run/pipeline.h"

enum { R_MAIN, R_PAR, R_CRIT, R_BAR, R_SYNC, R_KERNEL, NREG };
enum { COMM_TEAM = 0, COMM_CUDA = 1 };

static void write_hybrid(const char *dir)
{
    static const char *const names[NREG] = {"main", "!$omp parallel @a.c:1", "!$omp critical @a.c:2",
                                            "!$omp implicit barrier @a.c:3", "cuCtxSynchronize",
                                            "kernel"};
    static const OTF2_RegionRole roles[NREG] = {
        OTF2_REGION_ROLE_FUNCTION, OTF2_REGION_ROLE_PARALLEL, OTF2_REGION_ROLE_CRITICAL,
        OTF2_REGION_ROLE_IMPLICIT_BARRIER, OTF2_REGION_ROLE_WRAPPER, OTF2_REGION_ROLE_FUNCTION};
    static const OTF2_Paradigm pars[NREG] = {OTF2_PARADIGM_COMPILER, OTF2_PARADIGM_OPENMP,
                                             OTF2_PARADIGM_OPENMP, OTF2_PARADIGM_OPENMP,
                                             OTF2_PARADIGM_CUDA, OTF2_PARADIGM_CUDA};
    OTF2_Archive *ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 256 * 1024, 256 * 1024,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    OTF2_EvtWriter *m, *th, *s;
    OTF2_GlobalDefWriter *gw;
    uint64_t omp_locs[2] = {0, 1}, ranks2[2] = {0, 1}, cuda_locs[2] = {0, 2};
    unsigned r;
    CHECK(ar != NULL);
    if (!ar)
        return;
    OTF2_Archive_SetFlushCallbacks(ar, &up_otf2_flush_callbacks, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(ar);
    OTF2_Archive_OpenEvtFiles(ar);
    m = OTF2_Archive_GetEvtWriter(ar, 0);
    th = OTF2_Archive_GetEvtWriter(ar, 1);
    s = OTF2_Archive_GetEvtWriter(ar, 2);

    OTF2_EvtWriter_Enter(m, NULL, 1000, R_MAIN);
    OTF2_EvtWriter_ThreadFork(m, NULL, 1100, OTF2_PARADIGM_OPENMP, 2);
    OTF2_EvtWriter_ThreadTeamBegin(m, NULL, 1200, COMM_TEAM);
    OTF2_EvtWriter_Enter(m, NULL, 1210, R_PAR);
    OTF2_EvtWriter_Enter(m, NULL, 1300, R_CRIT);
    OTF2_EvtWriter_ThreadAcquireLock(m, NULL, 1300, OTF2_PARADIGM_OPENMP, 0, 1);
    OTF2_EvtWriter_ThreadReleaseLock(m, NULL, 1400, OTF2_PARADIGM_OPENMP, 0, 1);
    OTF2_EvtWriter_Leave(m, NULL, 1410, R_CRIT);
    OTF2_EvtWriter_Enter(m, NULL, 1500, R_BAR);
    OTF2_EvtWriter_Leave(m, NULL, 1850, R_BAR);
    OTF2_EvtWriter_Leave(m, NULL, 1860, R_PAR);
    OTF2_EvtWriter_ThreadTeamEnd(m, NULL, 1900, COMM_TEAM);
    OTF2_EvtWriter_ThreadJoin(m, NULL, 2000, OTF2_PARADIGM_OPENMP);
    OTF2_EvtWriter_Enter(m, NULL, 2100, R_SYNC);
    OTF2_EvtWriter_Leave(m, NULL, 2500, R_SYNC);
    OTF2_EvtWriter_Leave(m, NULL, 2600, R_MAIN);

    OTF2_EvtWriter_ThreadTeamBegin(th, NULL, 1250, COMM_TEAM);
    OTF2_EvtWriter_Enter(th, NULL, 1260, R_PAR);
    OTF2_EvtWriter_Enter(th, NULL, 1350, R_CRIT);
    OTF2_EvtWriter_ThreadAcquireLock(th, NULL, 1400, OTF2_PARADIGM_OPENMP, 0, 2);
    OTF2_EvtWriter_ThreadReleaseLock(th, NULL, 1450, OTF2_PARADIGM_OPENMP, 0, 2);
    OTF2_EvtWriter_Leave(th, NULL, 1460, R_CRIT);
    OTF2_EvtWriter_Enter(th, NULL, 1800, R_BAR);
    OTF2_EvtWriter_Leave(th, NULL, 1850, R_BAR);
    OTF2_EvtWriter_Leave(th, NULL, 1860, R_PAR);
    OTF2_EvtWriter_ThreadTeamEnd(th, NULL, 1950, COMM_TEAM);

    OTF2_EvtWriter_RmaGet(s, NULL, 1300, 0, 0, 4096, 42);
    OTF2_EvtWriter_RmaOpCompleteBlocking(s, NULL, 1350, 0, 42);
    OTF2_EvtWriter_Enter(s, NULL, 1450, R_KERNEL);
    OTF2_EvtWriter_Leave(s, NULL, 2450, R_KERNEL);

    OTF2_Archive_CloseEvtWriter(ar, m);
    OTF2_Archive_CloseEvtWriter(ar, th);
    OTF2_Archive_CloseEvtWriter(ar, s);
    OTF2_Archive_CloseEvtFiles(ar);

    gw = OTF2_Archive_GetGlobalDefWriter(ar);
    OTF2_GlobalDefWriter_WriteClockProperties(gw, 1000000000, 1000, 1600, OTF2_UNDEFINED_TIMESTAMP);
    OTF2_GlobalDefWriter_WriteString(gw, 0, "");
    for (r = 0; r < NREG; r++)
        OTF2_GlobalDefWriter_WriteString(gw, 1 + r, names[r]);
    OTF2_GlobalDefWriter_WriteString(gw, 10, "Master thread");
    OTF2_GlobalDefWriter_WriteString(gw, 11, "OMP thread 1");
    OTF2_GlobalDefWriter_WriteString(gw, 12, "CUDA[0:2]");
    OTF2_GlobalDefWriter_WriteString(gw, 13, "Process");
    OTF2_GlobalDefWriter_WriteString(gw, 14, "GPU");
    OTF2_GlobalDefWriter_WriteString(gw, 15, "node");
    for (r = 0; r < NREG; r++)
        OTF2_GlobalDefWriter_WriteRegion(gw, r, 1 + r, 1 + r, 0, roles[r], pars[r],
                                         OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, 15, 15, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteLocationGroup(gw, 0, 13, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocationGroup(gw, 1, 14, OTF2_LOCATION_GROUP_TYPE_ACCELERATOR, 0, 0);
    OTF2_GlobalDefWriter_WriteLocation(gw, 0, 10, OTF2_LOCATION_TYPE_CPU_THREAD, 16, 0);
    OTF2_GlobalDefWriter_WriteLocation(gw, 1, 11, OTF2_LOCATION_TYPE_CPU_THREAD, 10, 0);
    OTF2_GlobalDefWriter_WriteLocation(gw, 2, 12, OTF2_LOCATION_TYPE_ACCELERATOR_STREAM, 4, 1);
    OTF2_GlobalDefWriter_WriteGroup(gw, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_OPENMP,
                                    OTF2_GROUP_FLAG_NONE, 2, omp_locs);
    OTF2_GlobalDefWriter_WriteGroup(gw, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_OPENMP,
                                    OTF2_GROUP_FLAG_NONE, 2, ranks2);
    OTF2_GlobalDefWriter_WriteGroup(gw, 2, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_CUDA,
                                    OTF2_GROUP_FLAG_NONE, 2, cuda_locs);
    OTF2_GlobalDefWriter_WriteGroup(gw, 3, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_CUDA,
                                    OTF2_GROUP_FLAG_NONE, 2, ranks2);
    OTF2_GlobalDefWriter_WriteComm(gw, COMM_TEAM, 0, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    OTF2_GlobalDefWriter_WriteComm(gw, COMM_CUDA, 0, 3, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    OTF2_GlobalDefWriter_WriteRmaWin(gw, 0, 0, COMM_CUDA, OTF2_RMA_WIN_FLAG_NONE);
    CHECK(OTF2_Archive_Close(ar) == OTF2_SUCCESS);
}

/* The profile and the hybrid figures of the archive in dir. */
static bool analyse(const char *dir, up_profile *p, up_hybrid *h)
{
    up_trace *t = NULL;
    up_err err = {0};
    bool ok;
    memset(p, 0, sizeof *p);
    memset(h, 0, sizeof *h);
    if (up_trace_open(dir, &t, &err) != UP_OK) {
        t_fail(__FILE__, __LINE__, "open: %s", err.msg);
        return false;
    }
    ok = up_profile_run(t, NULL, p, &err) == UP_OK;
    up_trace_close(t);
    if (!ok || up_trace_open(dir, &t, &err) != UP_OK) {
        t_fail(__FILE__, __LINE__, "profile: %s", err.msg);
        return false;
    }
    ok = up_hybrid_run(t, p, h, &err) == UP_OK;
    up_trace_close(t);
    if (!ok)
        t_fail(__FILE__, __LINE__, "hybrid: %s", err.msg);
    return ok;
}

TEST(hybrid_metrics_by_hand)
{
    char dir[4096];
    up_profile p;
    up_hybrid h;
    snprintf(dir, sizeof dir, "%s", t_dir("hy"));
    write_hybrid(dir);
    if (!analyse(dir, &p, &h))
        return;
    CHECK(h.present);
    CHECK_EQ(h.nlocs, 3);
    CHECK_EQ(h.nthreads, 1);
    CHECK_EQ(h.ndevices, 1);
    CHECK_EQ(h.locs[0].role, UP_HY_MASTER);
    CHECK_EQ(h.locs[1].role, UP_HY_THREAD);
    CHECK_EQ(h.locs[2].role, UP_HY_DEVICE);
    CHECK_EQ(h.locs[1].master, 0);
    CHECK_EQ(h.locs[2].master, 0); /* the stream's process is its creator */
    CHECK_EQ(h.locs[1].win_start, 1000);
    CHECK_EQ(h.locs[2].win_end, 2600);
    /* barrier: the master waited 300 ns for thread 1 */
    CHECK_EQ(h.locs[0].t[UP_HY_OMP_BARRIER], 300);
    CHECK_EQ(h.locs[1].t[UP_HY_OMP_BARRIER], 0);
    CHECK_EQ(h.t[UP_HY_OMP_BARRIER], 300);
    CHECK_EQ(h.barriers, 1);
    /* lock: thread 1 asked at 1350, the master released at 1400 */
    CHECK_EQ(h.locs[1].t[UP_HY_LOCK], 50);
    CHECK_EQ(h.locs[0].t[UP_HY_LOCK], 0);
    CHECK_EQ(h.n[UP_HY_LOCK], 1);
    CHECK_EQ(h.acquisitions, 2);
    /* idle: 1600 ns window, 700 in the team */
    CHECK_EQ(h.locs[1].t[UP_HY_IDLE], 900);
    CHECK_EQ(h.locs[0].t[UP_HY_IDLE], 0);
    CHECK_EQ(h.t[UP_HY_IDLE], 900);
    /* fork and join at the master */
    CHECK_EQ(h.locs[0].t[UP_HY_FORK], 150);
    CHECK_EQ(h.locs[0].t[UP_HY_JOIN], 50);
    CHECK_EQ(h.n[UP_HY_FORK], 1);
    CHECK_EQ(h.n[UP_HY_JOIN], 1);
    /* the host waited 400 ns in cuCtxSynchronize */
    CHECK_EQ(h.locs[0].t[UP_HY_HOST_WAIT], 400);
    CHECK_EQ(h.n[UP_HY_HOST_WAIT], 1);
    /* the device: 1600 - 50 (copy) - 1000 (kernel) */
    CHECK_EQ(h.locs[2].t[UP_HY_DEVICE_IDLE], 550);
    CHECK_EQ(h.t[UP_HY_DEVICE_IDLE], 550);
    CHECK_NEAR(up_hybrid_s(&h, h.t[UP_HY_HOST_WAIT]), 400e-9, 1e-15);
    up_hybrid_free(&h);
    up_profile_free(&p);
}

/* A pure MPI trace has no hybrid section. */
TEST(hybrid_absent_from_pure_mpi)
{
    up_trace *t = NULL;
    up_err err = {0};
    CHECK(up_trace_open(t_src("tests/data/casita-4_mpi_ls_barr"), &t, &err) == UP_OK);
    if (!t)
        return;
    CHECK(!up_hybrid_present(up_trace_defs(t)));
    up_trace_close(t);
}

/* The line of the text that starts (after spaces) with `s`, from `from`. */
static const char *line_of(const char *text, const char *from, const char *s)
{
    const char *p = from ? from : text;
    while ((p = strstr(p, s))) {
        const char *q = p;
        while (q > text && q[-1] == ' ')
            q--;
        if (q == text || q[-1] == '\n')
            return p;
        p++;
    }
    return NULL;
}

TEST(hybrid_report_text_json_and_pipeline)
{
    char dir[4096], json[4200];
    up_run_rep_opts o;
    up_run_rep r;
    up_html_input in;
    up_err err = {0};
    char *text = NULL;
    size_t len = 0;
    FILE *f;
    const char *sec, *proc, *mst, *thr, *dev;
    json_t *doc, *hy;
    json_error_t je;
    snprintf(dir, sizeof dir, "%s", t_dir("hy"));
    write_hybrid(dir);
    up_run_rep_opts_init(&o);
    o.path_a = dir, o.path_b = dir, o.quiet = true;
    if (up_run_report(&o, &r, &err) != UP_OK) {
        t_fail(__FILE__, __LINE__, "report: %s", err.msg);
        up_run_rep_free(&r);
        return;
    }
    CHECK(r.have_hy_a && r.have_hy_b);
    CHECK_EQ(r.hy_b.t[UP_HY_OMP_BARRIER], 300); /* the same trace compared */
    memset(&in, 0, sizeof in);
    in.path_a = in.path_b = dir;
    in.label_a = "measured", in.label_b = "compensated";
    in.a = &r.a, in.b = &r.b;
    in.hy_a = &r.hy_a, in.hy_b = &r.hy_b;
    f = open_memstream(&text, &len);
    up_report_profile_text(f, &in);
    fclose(f);
    /* the section, its totals, then the locations under their process */
    CHECK((sec = strstr(text, "Hybrid: threads and devices")) != NULL);
    CHECK(strstr(text, "1 threads besides the masters, 1 accelerator streams") != NULL);
    CHECK(strstr(text, "1 barrier instances") != NULL);
    CHECK(strstr(text, "1 of 2 acquisitions contended") != NULL);
    CHECK((proc = line_of(text, sec, "process 0 ")) != NULL);
    CHECK((mst = line_of(text, proc, "Master thread")) != NULL);
    CHECK((thr = line_of(text, mst, "OMP thread 1")) != NULL);
    CHECK((dev = line_of(text, thr, "CUDA[0:2]")) != NULL);
    if (proc && mst && thr && dev) {
        /* indented two spaces more than the process, in this order, nothing between */
        CHECK(mst[-4] == ' ' && mst[-3] == ' ' && strchr(proc, '\n') + 1 == mst - 4);
        CHECK(strchr(mst, '\n') + 1 == thr - 4);
        CHECK(strchr(thr, '\n') + 1 == dev - 4);
        CHECK(strncmp(proc, "process 0 ", 10) == 0 && proc[-2] == ' ' && proc[-3] == '\n');
    }
    free(text);

    /* the JSON: each figure measured and compensated, per location with its process */
    snprintf(json, sizeof json, "%s/report.json", dir);
    CHECK(up_report_json(json, &in, &err) == UP_OK);
    doc = json_load_file(json, 0, &je);
    CHECK(doc != NULL);
    hy = json_object_get(doc, "hybrid");
    CHECK(hy != NULL);
    if (hy) {
        json_t *tot = json_object_get(hy, "total"), *locs = json_object_get(hy, "per_location");
        CHECK_NEAR(json_real_value(json_object_get(json_object_get(tot, "omp_barrier"), "measured_s")), 300e-9, 1e-15);
        CHECK_NEAR(json_real_value(json_object_get(json_object_get(tot, "omp_barrier"), "compensated_s")), 300e-9, 1e-15);
        CHECK_NEAR(json_real_value(json_object_get(json_object_get(tot, "lock_contention"), "measured_s")), 50e-9, 1e-15);
        CHECK_EQ(json_integer_value(json_object_get(json_object_get(tot, "lock_contention"), "measured_count")), 1);
        CHECK_NEAR(json_real_value(json_object_get(json_object_get(tot, "idle_threads"), "measured_s")), 900e-9, 1e-15);
        CHECK_NEAR(json_real_value(json_object_get(json_object_get(tot, "fork"), "measured_s")), 150e-9, 1e-15);
        CHECK_NEAR(json_real_value(json_object_get(json_object_get(tot, "join"), "measured_s")), 50e-9, 1e-15);
        CHECK_NEAR(json_real_value(json_object_get(json_object_get(tot, "host_wait"), "measured_s")), 400e-9, 1e-15);
        CHECK_NEAR(json_real_value(json_object_get(json_object_get(tot, "device_idle"), "measured_s")), 550e-9, 1e-15);
        CHECK_EQ(json_integer_value(json_object_get(hy, "lock_acquisitions")), 2);
        CHECK_EQ(json_array_size(locs), 3);
        CHECK(strcmp(json_string_value(json_object_get(json_array_get(locs, 2), "role")), "device") == 0);
        CHECK_EQ(json_integer_value(json_object_get(json_array_get(locs, 2), "process")), 0);
    }
    json_decref(doc);
    up_run_rep_free(&r);
}

/* export --perfetto: one pid for the process, the stream (in an
 * accelerator group) a track under it, each track named. */
TEST(hybrid_perfetto_tracks_under_the_process)
{
    char dir[4096], out[4200];
    up_trace *t = NULL;
    up_err err = {0};
    up_export_stats st;
    up_export_opts eo;
    json_t *doc, *ev;
    json_error_t je;
    size_t i;
    long pid[3] = {-1, -1, -1}, tid[3] = {-1, -1, -1}, procs = 0;
    snprintf(dir, sizeof dir, "%s", t_dir("hy"));
    write_hybrid(dir);
    snprintf(out, sizeof out, "%s/p.json", dir);
    memset(&eo, 0, sizeof eo);
    CHECK(up_trace_open(dir, &t, &err) == UP_OK);
    if (!t)
        return;
    CHECK(up_export_perfetto(t, out, &eo, &st, &err) == UP_OK);
    up_trace_close(t);
    doc = json_load_file(out, 0, &je);
    CHECK(doc != NULL);
    ev = json_object_get(doc, "traceEvents");
    for (i = 0; i < json_array_size(ev); i++) {
        json_t *e = json_array_get(ev, i), *args = json_object_get(e, "args");
        const char *name = json_string_value(json_object_get(e, "name"));
        if (!name || strcmp(json_string_value(json_object_get(e, "ph")), "M") != 0)
            continue;
        if (strcmp(name, "process_name") == 0) {
            procs++;
            CHECK(strcmp(json_string_value(json_object_get(args, "name")), "process 0") == 0);
        }
        if (strcmp(name, "thread_name") == 0) {
            long loc = (long)json_integer_value(json_object_get(args, "location"));
            if (loc >= 0 && loc < 3) {
                pid[loc] = (long)json_integer_value(json_object_get(e, "pid"));
                tid[loc] = (long)json_integer_value(json_object_get(e, "tid"));
            }
        }
    }
    CHECK_EQ(procs, 1);
    CHECK(pid[0] > 0 && pid[0] == pid[1] && pid[0] == pid[2]);
    CHECK(tid[0] == pid[0] && tid[1] != tid[0] && tid[2] != tid[0] && tid[1] != tid[2]);
    json_decref(doc);
}
