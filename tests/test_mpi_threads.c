/*
 * test_mpi_threads.c - MPI from any thread (docs/models.md): messages and
 * collectives recorded on CPU threads that are not their process's member
 * of MPI_COMM_WORLD, as Score-P records an MPI_THREAD_MULTIPLE program.
 * The archive is written with OTF2's own writer (tracegen has one location
 * per rank); every expected timestamp is worked out by hand in the comments.
 * Clock: 1 tick = 1 ns; O is the overhead of every record, in the gap after
 * it (docs/models.md).
 */
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#include "trace/chunks.h"
#include "test.h"
#include "run/simrun.h"
#include "tutil.h"

/* regions */
enum { R_MAIN, R_WORK, R_SEND, R_RECV, R_ALLREDUCE, R_BARRIER, NREGIONS };

/* Two processes ("rank 0", "rank 1") of two CPU threads each, locations
 *   0  rank 0, "Master thread"     1  rank 0, "OMP thread 1"
 *   2  rank 1, "Master thread"     3  rank 1, "OMP thread 1"
 * MPI_COMM_WORLD (comm 0) is the COMM_GROUP {0, 1} of the MPI
 * COMM_LOCATIONS {0, 2}: the master threads, as Score-P writes it.  Every
 * MPI record but L0's send and L2's are on other threads:
 *   L1 (rank 0, thread 1) sends A to rank 1, tag 5, at 110;
 *   L0 (rank 0, master)   sends B to rank 1, tag 5, at 210;
 *   L3 (rank 1, thread 1) receives from rank 0, tag 5, at 150: A, the first
 *                         sent (MPI's order on one key, here between two
 *                         threads: the measured one);
 *   L2 (rank 1, master)   receives from rank 0, tag 5, at 250: B;
 *                         and replies C to rank 0, tag 6, at 310;
 *   L1                    receives C from rank 1, tag 6, at 400;
 *   MPI_Allreduce: rank 0 on L1, rank 1 on L3 (both worker threads);
 *   MPI_Barrier:   rank 0 on L0, rank 1 on L3: rank 0's second collective
 *                  is on another thread than its first. */
static void main_events(OTF2_EvtWriter *const w[4]);

/* The archive in dir, its records written by events() */
static void write_trace_with(const char *dir, void (*events)(OTF2_EvtWriter *const w[4]))
{
    static const char *const names[NREGIONS] = {"main", "work", "MPI_Send", "MPI_Recv",
                                                "MPI_Allreduce", "MPI_Barrier"};
    static const OTF2_RegionRole roles[NREGIONS] = {
        OTF2_REGION_ROLE_FUNCTION, OTF2_REGION_ROLE_FUNCTION, OTF2_REGION_ROLE_POINT2POINT,
        OTF2_REGION_ROLE_POINT2POINT, OTF2_REGION_ROLE_COLL_ALL2ALL, OTF2_REGION_ROLE_BARRIER};
    static const char *const locname[4] = {"Master thread", "OMP thread 1", "Master thread",
                                           "OMP thread 1"};
    OTF2_Archive *ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 256 * 1024, 256 * 1024,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    OTF2_EvtWriter *w[4];
    OTF2_GlobalDefWriter *gw;
    uint64_t nev[4], masters[2] = {0, 2}, ranks[2] = {0, 1};
    unsigned l, r;
    CHECK(ar != NULL);
    if (!ar)
        return;
    OTF2_Archive_SetFlushCallbacks(ar, &up_otf2_flush_callbacks, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(ar);
    OTF2_Archive_OpenEvtFiles(ar);
    for (l = 0; l < 4; l++)
        w[l] = OTF2_Archive_GetEvtWriter(ar, l);
    events(w);
    for (l = 0; l < 4; l++) {
        OTF2_EvtWriter_GetNumberOfEvents(w[l], &nev[l]);
        OTF2_Archive_CloseEvtWriter(ar, w[l]);
    }
    OTF2_Archive_CloseEvtFiles(ar);
    gw = OTF2_Archive_GetGlobalDefWriter(ar);
    OTF2_GlobalDefWriter_WriteClockProperties(gw, 1000000000, 0, 20001, OTF2_UNDEFINED_TIMESTAMP);
    OTF2_GlobalDefWriter_WriteString(gw, 0, "");
    for (r = 0; r < NREGIONS; r++) {
        OTF2_GlobalDefWriter_WriteString(gw, 1 + r, names[r]);
        OTF2_GlobalDefWriter_WriteRegion(gw, r, 1 + r, 1 + r, 0, roles[r],
                                         r < R_SEND ? OTF2_PARADIGM_USER : OTF2_PARADIGM_MPI,
                                         OTF2_REGION_FLAG_NONE, 0, 0, 0);
    }
    OTF2_GlobalDefWriter_WriteString(gw, 10, "node");
    OTF2_GlobalDefWriter_WriteString(gw, 11, "rank 0");
    OTF2_GlobalDefWriter_WriteString(gw, 12, "rank 1");
    OTF2_GlobalDefWriter_WriteString(gw, 13, "Master thread");
    OTF2_GlobalDefWriter_WriteString(gw, 14, "OMP thread 1");
    OTF2_GlobalDefWriter_WriteString(gw, 15, "MPI_COMM_WORLD");
    OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, 10, 10, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (r = 0; r < 2; r++)
        OTF2_GlobalDefWriter_WriteLocationGroup(gw, r, 11 + r, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
    for (l = 0; l < 4; l++)
        OTF2_GlobalDefWriter_WriteLocation(gw, l, strcmp(locname[l], "Master thread") ? 14 : 13,
                                           OTF2_LOCATION_TYPE_CPU_THREAD, nev[l], l / 2);
    OTF2_GlobalDefWriter_WriteGroup(gw, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, masters);
    OTF2_GlobalDefWriter_WriteGroup(gw, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, ranks);
    OTF2_GlobalDefWriter_WriteComm(gw, 0, 15, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    CHECK(OTF2_Archive_Close(ar) == OTF2_SUCCESS);
}

static void main_events(OTF2_EvtWriter *const w[4])
{
    /* L0: rank 0, master */
    OTF2_EvtWriter_Enter(w[0], NULL, 0, R_MAIN);
    OTF2_EvtWriter_Enter(w[0], NULL, 200, R_SEND);
    OTF2_EvtWriter_MpiSend(w[0], NULL, 210, 1, 0, 5, 8); /* B */
    OTF2_EvtWriter_Leave(w[0], NULL, 220, R_SEND);
    OTF2_EvtWriter_Enter(w[0], NULL, 600, R_BARRIER);
    OTF2_EvtWriter_MpiCollectiveBegin(w[0], NULL, 610);
    OTF2_EvtWriter_MpiCollectiveEnd(w[0], NULL, 700, OTF2_COLLECTIVE_OP_BARRIER, 0,
                                    OTF2_UNDEFINED_UINT32, 0, 0);
    OTF2_EvtWriter_Leave(w[0], NULL, 710, R_BARRIER);
    OTF2_EvtWriter_Leave(w[0], NULL, 800, R_MAIN);
    /* L1: rank 0, thread 1 */
    OTF2_EvtWriter_Enter(w[1], NULL, 50, R_MAIN);
    OTF2_EvtWriter_Enter(w[1], NULL, 60, R_WORK);
    OTF2_EvtWriter_Leave(w[1], NULL, 80, R_WORK);
    OTF2_EvtWriter_Enter(w[1], NULL, 100, R_SEND);
    OTF2_EvtWriter_MpiSend(w[1], NULL, 110, 1, 0, 5, 8); /* A */
    OTF2_EvtWriter_Leave(w[1], NULL, 120, R_SEND);
    OTF2_EvtWriter_Enter(w[1], NULL, 300, R_RECV);
    OTF2_EvtWriter_MpiRecv(w[1], NULL, 400, 1, 0, 6, 8); /* C */
    OTF2_EvtWriter_Leave(w[1], NULL, 410, R_RECV);
    OTF2_EvtWriter_Enter(w[1], NULL, 450, R_ALLREDUCE);
    OTF2_EvtWriter_MpiCollectiveBegin(w[1], NULL, 460);
    OTF2_EvtWriter_MpiCollectiveEnd(w[1], NULL, 520, OTF2_COLLECTIVE_OP_ALLREDUCE, 0,
                                    OTF2_UNDEFINED_UINT32, 8, 8);
    OTF2_EvtWriter_Leave(w[1], NULL, 530, R_ALLREDUCE);
    OTF2_EvtWriter_Leave(w[1], NULL, 800, R_MAIN);
    /* L2: rank 1, master */
    OTF2_EvtWriter_Enter(w[2], NULL, 0, R_MAIN);
    OTF2_EvtWriter_Enter(w[2], NULL, 130, R_RECV);
    OTF2_EvtWriter_MpiRecv(w[2], NULL, 250, 0, 0, 5, 8); /* B */
    OTF2_EvtWriter_Leave(w[2], NULL, 260, R_RECV);
    OTF2_EvtWriter_Enter(w[2], NULL, 300, R_SEND);
    OTF2_EvtWriter_MpiSend(w[2], NULL, 310, 0, 0, 6, 8); /* C */
    OTF2_EvtWriter_Leave(w[2], NULL, 320, R_SEND);
    OTF2_EvtWriter_Leave(w[2], NULL, 800, R_MAIN);
    /* L3: rank 1, thread 1 */
    OTF2_EvtWriter_Enter(w[3], NULL, 50, R_MAIN);
    OTF2_EvtWriter_Enter(w[3], NULL, 115, R_RECV);
    OTF2_EvtWriter_MpiRecv(w[3], NULL, 150, 0, 0, 5, 8); /* A */
    OTF2_EvtWriter_Leave(w[3], NULL, 160, R_RECV);
    OTF2_EvtWriter_Enter(w[3], NULL, 440, R_ALLREDUCE);
    OTF2_EvtWriter_MpiCollectiveBegin(w[3], NULL, 450);
    OTF2_EvtWriter_MpiCollectiveEnd(w[3], NULL, 525, OTF2_COLLECTIVE_OP_ALLREDUCE, 0,
                                    OTF2_UNDEFINED_UINT32, 8, 8);
    OTF2_EvtWriter_Leave(w[3], NULL, 535, R_ALLREDUCE);
    OTF2_EvtWriter_Enter(w[3], NULL, 650, R_BARRIER);
    OTF2_EvtWriter_MpiCollectiveBegin(w[3], NULL, 660);
    OTF2_EvtWriter_MpiCollectiveEnd(w[3], NULL, 705, OTF2_COLLECTIVE_OP_BARRIER, 0,
                                    OTF2_UNDEFINED_UINT32, 0, 0);
    OTF2_EvtWriter_Leave(w[3], NULL, 715, R_BARRIER);
    OTF2_EvtWriter_Leave(w[3], NULL, 800, R_MAIN);
}

static void write_trace(const char *dir)
{
    write_trace_with(dir, main_events);
}

/* Every repair and model limit, summed */
static uint64_t all_repairs(const up_replay_result *res)
{
    up_repair_line rl[UP_REPAIR_LINES_MAX];
    size_t k, n = up_replay_repairs(res, rl);
    uint64_t sum = 0;
    for (k = 0; k < n; k++)
        sum += rl[k].n;
    return sum;
}

/* O = 10, upper mode (no receiver-side overhead in (m.1)), eq. (13).
 * Local records, eq. (1): t_a = prev_a + (t_m - prev_m) - 10; a location's
 * first record keeps its time.
 *
 * L0: Enter(main) 0; Enter(Send) 0+200-10 = 190; MpiSend B 190+10-10 = 190
 *     (send_a(B) = 190); Leave 190.
 * L1: Enter(main) 50; Enter(work) 50+10-10 = 50; Leave(work) 50+20-10 = 60;
 *     Enter(Send) 60+20-10 = 70; MpiSend A 70 (send_a(A) = 70); Leave 70;
 *     Enter(Recv) 70+180-10 = 240.
 * L3: Enter(main) 50; Enter(Recv) 50+65-10 = 105.  MpiRecv 150 takes A:
 *     enter.recv_m 115 <= exit.send_m 120, (m.1): Comm_m = 150-110-10 = 30;
 *     recv_a = max(70+30, ready_a 105 + C 0) = 105; Leave 105.
 *     (Had it taken B, sent at 210 after this receive, the clock condition
 *     would have raised it and counted a repair.)
 * L2: Enter(main) 0; Enter(Recv) 130-10 = 120.  MpiRecv 250 takes B:
 *     enter.recv_m 130 <= exit.send_m 220, (m.1): Comm_m = 250-210-10 = 30;
 *     recv_a = max(190+30, 120) = 220.  (Had it taken A: (m.2), exit 120 <
 *     130, upper: 70 + (250-110 - its Enter(Recv)'s 10) = 200.)
 *     Leave 220; Enter(Send) 220+40-10 = 250; MpiSend C 250 (send_a(C) =
 *     250); Leave 250; Leave(main) 250+480-10 = 720.
 * L1: MpiRecv 400 takes C: enter.recv_m 300 <= exit.send_m 320, (m.1):
 *     Comm_m = 400-310-10 = 80; recv_a = max(250+80, 240) = 330; Leave 330;
 *     Enter(Allreduce) 330+40-10 = 360; CollBegin 360.
 * L3: Enter(Allreduce) 105+280-10 = 375; CollBegin 375.
 * Allreduce (ranks 0 = L1, 1 = L3), eq. (13): j, the latest measured
 *     enter, is L1 (460); k, the latest approximated, L3 (375); O_in(j) = 10
 *     (its CollBegin).  exit_a = 375 + (exit_m - 460 - 10):
 *     L1: 375 + 520-470 = 425; L3: 375 + 525-470 = 430.
 * L1: Leave 425; Leave(main) 425+270-10 = 685.
 * L3: Leave 430; Enter(Barrier) 430+115-10 = 535; CollBegin 535.
 * L0: Enter(Barrier) 190+380-10 = 560; CollBegin 560.
 * Barrier (ranks 0 = L0, 1 = L3): j = L3 (660), k = L0 (560), O_in(j) = 10:
 *     exit_a = 560 + (exit_m - 660 - 10): L0: 560 + 700-670 = 590;
 *     L3: 560 + 705-670 = 595.
 * L0: Leave 590; Leave(main) 590+90-10 = 670.
 * L3: Leave 595; Leave(main) 595+85-10 = 670. */
static const uint64_t want0[] = {0, 190, 190, 190, 560, 560, 590, 590, 670};
static const uint64_t want1[] = {50, 50, 60, 70, 70, 70, 240, 330, 330, 360, 360, 425, 425, 685};
static const uint64_t want2[] = {0, 120, 220, 220, 250, 250, 250, 720};
static const uint64_t want3[] = {50, 105, 105, 105, 375, 375, 430, 430, 535, 535, 595, 595, 670};

/* Compensates `in` with *p into a fresh folder named `tag` and checks the
 * hand-worked times and that nothing was repaired */
static void check_compensated(const char *in, const char *tag, const up_comp_params *p)
{
    char out[4096];
    up_replay_result res;
    tr_trace tr;
    snprintf(out, sizeof out, "%s", t_dir(tag));
    if (t_compensate(in, out, p, &res, NULL) != UP_OK) {
        CHECK(!"compensation failed");
        return;
    }
    if (tr_load(out, &tr) != 0) {
        CHECK(!"cannot read the output");
        up_replay_result_free(&res);
        return;
    }
    CHECK_TIMES(&tr, 0, want0, sizeof want0 / sizeof *want0);
    CHECK_TIMES(&tr, 1, want1, sizeof want1 / sizeof *want1);
    CHECK_TIMES(&tr, 2, want2, sizeof want2 / sizeof *want2);
    CHECK_TIMES(&tr, 3, want3, sizeof want3 / sizeof *want3);
    CHECK_EQ(res.repairs[UP_REPAIR_unmatched_recv], 0);
    CHECK_EQ(res.repairs[UP_REPAIR_unmatched_send], 0);
    CHECK_EQ(res.repairs[UP_REPAIR_unresolved_peer], 0);
    CHECK_EQ(res.repairs[UP_REPAIR_collective_incomplete], 0);
    CHECK_EQ(all_repairs(&res), 0);
    CHECK_EQ(res.locs[1].process, 0);
    CHECK_EQ(res.locs[3].process, 1);
    tr_free(&tr);
    up_replay_result_free(&res);
}

TEST(mpi_threads_messages_and_collectives_on_worker_threads)
{
    char in[4096];
    up_comp_params p = t_params(10, UP_MODE_UPPER, UP_COLLECTIVE_INDIVIDUAL);
    snprintf(in, sizeof in, "%s", t_dir("in"));
    write_trace(in);
    check_compensated(in, "out", &p);
    /* the same matches through the re-matching queues (no wildcard is
     * marked: every receive keeps its measured sender) */
    p.wildcard = UP_WILDCARD_FIFO;
    check_compensated(in, "fifo", &p);
}

TEST(mpi_threads_order_does_not_depend_on_the_schedule)
{
    /* L0 reaches its send of B (210) while L1's send of A (110) is still
     * ahead of it, and L2 its receive (250) before L3's (150) under most
     * schedules: the measured order decides, whatever runs first */
    char in[4096];
    up_comp_params p = t_params(10, UP_MODE_UPPER, UP_COLLECTIVE_INDIVIDUAL);
    snprintf(in, sizeof in, "%s", t_dir("in"));
    write_trace(in);
    t_check_schedules("mpi threads", in, &p);
    p.mode = UP_MODE_LOWER;
    t_check_schedules("mpi threads, lower", in, &p);
    t_check_schedules("mpi threads, simulated", in, NULL);
}

/* simulate, progress = interrupt (docs/machine.md): an eager message is
 * filed with its destination's member of MPI_COMM_WORLD, the master thread,
 * whose computation may handle it before the receive.  Here a worker thread
 * receives it, and must take it off the master's list (left there, the list
 * grows with every such message, and the master is charged for it again).
 *   L0 (rank 0): MpiSend A to rank 1, tag 1, 8 B, at 1010.
 *   L3 (rank 1, worker): receives A (MpiRecv 5010), then sends B to rank 1
 *      (itself, the master thread receives), tag 9, at 5110.
 *   L2 (rank 1, master): receives B (MpiRecv 6010), then computes 6100-10000.
 * Machine: o_s 100, o_r 200, L 1000 ns, 1 ns/B, same node 10 ns, 0 ns/B,
 * interrupt 300 ns; no tracer overhead (the archive has no calibration).
 *   L0: 0; Enter(Send) 1000; MpiSend 1000; Leave 1100 (o_s); main 1180.
 *      A departs 1100, arrives 1100 + 1000 + 8 = 2108.
 *   L3: 0; Enter(Recv) 5000; MpiRecv max(5000, 2108) + o_r = 5200 (its
 *      master never computed across 2108: not handled); Leave 5200;
 *      Enter(Send) 5280; MpiSend 5280; Leave 5380; main 5460.
 *      B departs 5380, arrives 5390.
 *   L2: 0; Enter(Recv) 100; MpiRecv 5390 + 200 = 5590; Leave 5590;
 *      Enter(work) 5590 + 80 = 5670 (nothing left to handle: A was taken
 *      off by L3's receive, B by this one; left there, A would cost the
 *      master o_r + 300 here: 6170); Leave(work) 9570; main 9670. */
static void interrupt_events(OTF2_EvtWriter *const w[4])
{
    OTF2_EvtWriter_Enter(w[0], NULL, 0, R_MAIN);
    OTF2_EvtWriter_Enter(w[0], NULL, 1000, R_SEND);
    OTF2_EvtWriter_MpiSend(w[0], NULL, 1010, 1, 0, 1, 8);
    OTF2_EvtWriter_Leave(w[0], NULL, 1020, R_SEND);
    OTF2_EvtWriter_Leave(w[0], NULL, 1100, R_MAIN);
    OTF2_EvtWriter_Enter(w[1], NULL, 0, R_MAIN);
    OTF2_EvtWriter_Leave(w[1], NULL, 100, R_MAIN);
    OTF2_EvtWriter_Enter(w[2], NULL, 0, R_MAIN);
    OTF2_EvtWriter_Enter(w[2], NULL, 100, R_RECV);
    OTF2_EvtWriter_MpiRecv(w[2], NULL, 6010, 1, 0, 9, 8);
    OTF2_EvtWriter_Leave(w[2], NULL, 6020, R_RECV);
    OTF2_EvtWriter_Enter(w[2], NULL, 6100, R_WORK);
    OTF2_EvtWriter_Leave(w[2], NULL, 10000, R_WORK);
    OTF2_EvtWriter_Leave(w[2], NULL, 10100, R_MAIN);
    OTF2_EvtWriter_Enter(w[3], NULL, 0, R_MAIN);
    OTF2_EvtWriter_Enter(w[3], NULL, 5000, R_RECV);
    OTF2_EvtWriter_MpiRecv(w[3], NULL, 5010, 0, 0, 1, 8);
    OTF2_EvtWriter_Leave(w[3], NULL, 5020, R_RECV);
    OTF2_EvtWriter_Enter(w[3], NULL, 5100, R_SEND);
    OTF2_EvtWriter_MpiSend(w[3], NULL, 5110, 1, 0, 9, 8);
    OTF2_EvtWriter_Leave(w[3], NULL, 5120, R_SEND);
    OTF2_EvtWriter_Leave(w[3], NULL, 5200, R_MAIN);
}

TEST(mpi_threads_simulate_interrupt_on_a_worker_thread)
{
    static const uint64_t iwant0[] = {0, 1000, 1000, 1100, 1180};
    static const uint64_t iwant2[] = {0, 100, 5590, 5590, 5670, 9570, 9670};
    static const uint64_t iwant3[] = {0, 5000, 5200, 5200, 5280, 5280, 5380, 5460};
    char in[4096], out[4200];
    up_machine m;
    up_simrun_opts opts;
    up_sim_summary s;
    up_err err = {0};
    tr_trace o;
    memset(&o, 0, sizeof o);
    snprintf(in, sizeof in, "%s", t_dir("intr"));
    snprintf(out, sizeof out, "%s-sim", in);
    write_trace_with(in, interrupt_events);
    m = t_hand_machine();
    m.progress = UP_PROGRESS_INTERRUPT;
    m.interrupt_ns = 300;
    memset(&opts, 0, sizeof opts);
    opts.input = in;
    opts.machine = &m;
    opts.out_dir = out;
    opts.quiet = true;
    CHECK_EQ(up_simrun_one(&opts, &s, &err), UP_OK);
    if (tr_load(out, &o) != 0) {
        CHECK(!"cannot read the output");
        return;
    }
    CHECK_TIMES(&o, 0, iwant0, sizeof iwant0 / sizeof *iwant0);
    CHECK_TIMES(&o, 2, iwant2, sizeof iwant2 / sizeof *iwant2);
    CHECK_TIMES(&o, 3, iwant3, sizeof iwant3 / sizeof *iwant3);
    tr_free(&o);
    up_sim_summary_free(&s);
}
