/*
 * badgen.c - writes the small hand-made OTF2 traces that test up-check
 * (tests/check/run.sh), through OTF2's own writer.
 *
 *   up-check-gen DIR SCENARIO      writes DIR/traces.otf2
 *
 * Scenarios, each with what up-check must find:
 *   good        3 MPI ranks, an OpenMP thread, a pthread: messages on a world,
 *               a sub- (ranks reordered) and an intercommunicator, blocking,
 *               self and nonblocking collectives of every class, a fork/join
 *               and a pthread create/wait, a bcast of no bytes whose non-roots
 *               end before the root begins; all consistent: no violation, no
 *               warning
 *   bad         2 ranks: a receive before its send, a barrier end before the
 *               other rank's begin, a decreasing timestamp: exactly the classes
 *               time, message and collective
 *   badcoll     bcast, reduce, scan, exscan, a nonblocking allreduce and a fence, each
 *               with one end too early: 5 collective violations, nothing else
 *   badthreads  a team begin before its fork, a join before a team end, a
 *               pthread begin before its create, a wait before the thread's end
 *   altered     good with one record more on rank 1 and one kind changed on
 *               rank 2: against good, the classes count and kinds
 *   hybrid      2 ranks, an OpenMP thread and a CUDA stream on rank 0: team
 *               barriers, locks, kernels and a copy, messages from a thread;
 *               consistent, with warnings device-early 2, device-unpaired 1
 *   badhybrid   hybrid's records at other times: alone barrier, lock and
 *               message; against hybrid also device 2 and device-overhead 2
 *   ompt        one process recorded through OMPT (teams by parallel region
 *               id, one nested): consistent
 *   badompt     ompt with one thread leaving the nested team's barrier early
 *   offload     one process offloading OpenMP target regions (Score-P): a
 *               target data region, a targetmap the host enters nested twice,
 *               a targetupdate from a thread, two targets (one 3 ticks early),
 *               a targetupdate whose copy is lost; consistent, with warnings
 *               device-early 1, device-unpaired 1
 *   badoffload  offload's records at other times: against offload device 2
 *   pthreads    one process recorded as our tracer records POSIX threads
 *               (docs/tracer.md): two pthread_creates, a mutex and a
 *               pthread_cond_wait, a barrier of count 3 (unperturb::object,
 *               ::count), two joins; consistent, and written so that
 *               compensating it with O = 100 ns breaks the begin, join,
 *               lock and barrier orders unless the replay keeps them
 *   badpthreads pthreads with one thread leaving the barrier before the
 *               last thread entered it: barrier 1
 */
#include <otf2/otf2.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define NLOCS_MAX 7
#define NONE OTF2_UNDEFINED_UINT32

/* locations: ranks 0..2 are 0..2; the OpenMP thread and the pthread of rank 0
 * (in the OMPT scenarios, two more OpenMP threads); rank 0's CUDA stream (in
 * the offload scenarios its MIC [0:1]); rank 0's MIC [0:RDMA] */
#define L_OMP 3
#define L_PTH 4
#define L_GPU 5
#define L_RDMA 6
static const OTF2_LocationRef loc_ids[NLOCS_MAX] = {0, 1, 2, UINT64_C(1) << 32, UINT64_C(2) << 32,
                                                    UINT64_C(3) << 32, UINT64_C(4) << 32};

/* regions: 0 main; the hybrid scenarios' (check 6) */
enum { R_MAIN, R_IBAR, R_CUSYNC, R_LAUNCH, R_MEMCPY, R_KERNEL, R_BAR, R_WAITBAR, R_ITASK, R_TDATA,
       R_TMAP, R_TUPD, R_TARGET, R_DPAR, R_WORK, R_PCREATE, R_PJOIN, R_PBAR, R_PLOCK, R_PUNLOCK,
       R_PCOND, R_PSIGNAL, N_REGIONS };

/* communicators */
enum { WORLD, SELF, SUB, TEAM, CONTINGENT, INTER };

enum {
    ENTER, LEAVE, SEND, ISEND, ISEND_DONE, IRECV_REQ, RECV, IRECV, CBEGIN, CEND, NBREQ, NBDONE,
    FORK, JOIN, TBEGIN, TEND, CREATE, BEGIN, WAIT, END, FLUSH, RBEGIN, REND,
    ACQ, REL, OACQ, OREL, RGET, RPUT, RDONE,
    PACQ, PREL,  /* ThreadAcquireLock/ReleaseLock of model PTHREAD */
    PBENTER      /* the Enter of pthread_barrier_wait on barrier b of count c */
};

#define WIN 0   /* an RMA window on MPI_COMM_WORLD (fences: RBEGIN, REND) */

typedef struct ev {
    int loc, what;
    uint64_t t;
    uint32_t a, b, c;  /* peer/op/region/lock, comm, tag/root */
    uint64_t d;        /* request id, sequence number, lock order, OMPT parallel region id */
} ev;

/* good: every rule holds, with the tight cases (ends that may precede other
 * ranks' begins) that an over-eager checker would flag */
static const ev good[] = {
    {0, ENTER, 10, 0, 0, 0, 0},
    {1, ENTER, 10, 0, 0, 0, 0},
    {2, ENTER, 10, 0, 0, 0, 0},
    {0, SEND, 100, 1, WORLD, 5, 0},
    {1, RECV, 150, 0, WORLD, 5, 0},
    /* SUB has ranks (2, 0): rank 0 is location 2, rank 1 is location 0 */
    {0, SEND, 200, 0, SUB, 7, 0},
    {2, IRECV_REQ, 180, 0, 0, 0, 4},
    {2, IRECV, 250, 1, SUB, 7, 4},
    /* barrier */
    {0, CBEGIN, 300, 0, 0, 0, 0}, {0, CEND, 330, OTF2_COLLECTIVE_OP_BARRIER, WORLD, NONE, 0},
    {1, CBEGIN, 310, 0, 0, 0, 0}, {1, CEND, 331, OTF2_COLLECTIVE_OP_BARRIER, WORLD, NONE, 0},
    {2, CBEGIN, 320, 0, 0, 0, 0}, {2, CEND, 332, OTF2_COLLECTIVE_OP_BARRIER, WORLD, NONE, 0},
    /* bcast from rank 1: non-roots end after the root's begin */
    {0, CBEGIN, 350, 0, 0, 0, 0}, {0, CEND, 401, OTF2_COLLECTIVE_OP_BCAST, WORLD, 1, 0},
    {1, CBEGIN, 400, 0, 0, 0, 0}, {1, CEND, 401, OTF2_COLLECTIVE_OP_BCAST, WORLD, 1, 0},
    {2, CBEGIN, 390, 0, 0, 0, 0}, {2, CEND, 402, OTF2_COLLECTIVE_OP_BCAST, WORLD, 1, 0},
    /* a bcast of no bytes (d = 1) from rank 1: ranks 0 and 2 end before the
     * root begins, as Open MPI returns from a count-0 MPI_Bcast at once */
    {0, CBEGIN, 410, 0, 0, 0, 0}, {0, CEND, 411, OTF2_COLLECTIVE_OP_BCAST, WORLD, 1, 1},
    {1, CBEGIN, 420, 0, 0, 0, 0}, {1, CEND, 421, OTF2_COLLECTIVE_OP_BCAST, WORLD, 1, 1},
    {2, CBEGIN, 410, 0, 0, 0, 0}, {2, CEND, 412, OTF2_COLLECTIVE_OP_BCAST, WORLD, 1, 1},
    /* reduce to rank 2: only the root waits */
    {0, CBEGIN, 500, 0, 0, 0, 0}, {0, CEND, 505, OTF2_COLLECTIVE_OP_REDUCE, WORLD, 2, 0},
    {1, CBEGIN, 510, 0, 0, 0, 0}, {1, CEND, 512, OTF2_COLLECTIVE_OP_REDUCE, WORLD, 2, 0},
    {2, CBEGIN, 520, 0, 0, 0, 0}, {2, CEND, 530, OTF2_COLLECTIVE_OP_REDUCE, WORLD, 2, 0},
    /* scan: rank r waits for ranks 0..r only */
    {0, CBEGIN, 600, 0, 0, 0, 0}, {0, CEND, 601, OTF2_COLLECTIVE_OP_SCAN, WORLD, NONE, 0},
    {1, CBEGIN, 650, 0, 0, 0, 0}, {1, CEND, 651, OTF2_COLLECTIVE_OP_SCAN, WORLD, NONE, 0},
    {2, CBEGIN, 620, 0, 0, 0, 0}, {2, CEND, 651, OTF2_COLLECTIVE_OP_SCAN, WORLD, NONE, 0},
    /* nonblocking allreduce, different request ids per rank */
    {0, NBREQ, 700, 0, 0, 0, 7}, {0, NBDONE, 730, OTF2_COLLECTIVE_OP_ALLREDUCE, WORLD, NONE, 7},
    {1, NBREQ, 710, 0, 0, 0, 9}, {1, NBDONE, 740, OTF2_COLLECTIVE_OP_ALLREDUCE, WORLD, NONE, 9},
    {2, NBREQ, 720, 0, 0, 0, 7}, {2, NBDONE, 750, OTF2_COLLECTIVE_OP_ALLREDUCE, WORLD, NONE, 7},
    /* an OpenMP parallel region */
    {0, FORK, 800, 0, 0, 0, 0}, {0, TBEGIN, 801, 0, TEAM, 0, 0},
    {L_OMP, TBEGIN, 802, 0, TEAM, 0, 0}, {L_OMP, TEND, 850, 0, TEAM, 0, 0},
    {0, TEND, 851, 0, TEAM, 0, 0}, {0, JOIN, 860, 0, 0, 0, 0},
    /* a pthread */
    {0, CREATE, 900, 0, CONTINGENT, 0, 1}, {L_PTH, BEGIN, 905, 0, CONTINGENT, 0, 1},
    {L_PTH, END, 950, 0, CONTINGENT, 0, 1}, {0, WAIT, 960, 0, CONTINGENT, 0, 1},
    /* an isend, a collective on MPI_COMM_SELF, an intercommunicator message */
    {0, ISEND, 970, 2, WORLD, 9, 3}, {0, ISEND_DONE, 975, 0, 0, 0, 3},
    {2, IRECV_REQ, 960, 0, 0, 0, 5}, {2, IRECV, 990, 0, WORLD, 9, 5},
    {0, CBEGIN, 980, 0, 0, 0, 0}, {0, CEND, 981, OTF2_COLLECTIVE_OP_BARRIER, SELF, NONE, 0},
    {1, SEND, 990, 0, INTER, 3, 0},   /* from group B to rank 0 of group A (location 0) */
    {0, RECV, 995, 0, INTER, 3, 0},   /* from rank 0 of group B (location 1) */
    /* MPI_Win_fence on WIN: a barrier on its communicator */
    {0, RBEGIN, 996, 0, 0, 0, 0}, {0, REND, 999, 0, 0, 0, 0},
    {1, RBEGIN, 997, 0, 0, 0, 0}, {1, REND, 999, 0, 0, 0, 0},
    {2, RBEGIN, 998, 0, 0, 0, 0}, {2, REND, 999, 0, 0, 0, 0},
    {0, LEAVE, 1000, 0, 0, 0, 0},
    {1, LEAVE, 1000, 0, 0, 0, 0},
    {2, LEAVE, 1000, 0, 0, 0, 0},
};

static const ev bad[] = {
    {0, ENTER, 10, 0, 0, 0, 0},
    {0, SEND, 110, 1, WORLD, 0, 0},
    {0, CBEGIN, 300, 0, 0, 0, 0},
    {0, CEND, 310, OTF2_COLLECTIVE_OP_BARRIER, WORLD, NONE, 0},  /* before rank 1 begins */
    {0, LEAVE, 320, 0, 0, 0, 0},  /* read as 305 (clock offsets below): decreases */
    {1, ENTER, 10, 0, 0, 0, 0},
    {1, RECV, 100, 0, WORLD, 0, 0},                              /* before its send */
    {1, CBEGIN, 320, 0, 0, 0, 0},
    {1, CEND, 330, OTF2_COLLECTIVE_OP_BARRIER, WORLD, NONE, 0},
    {1, LEAVE, 340, 0, 0, 0, 0},
};

static const ev badcoll[] = {
    /* bcast from rank 1: rank 0 ends before the root begins */
    {0, CBEGIN, 350, 0, 0, 0, 0}, {0, CEND, 390, OTF2_COLLECTIVE_OP_BCAST, WORLD, 1, 0},
    {1, CBEGIN, 400, 0, 0, 0, 0}, {1, CEND, 410, OTF2_COLLECTIVE_OP_BCAST, WORLD, 1, 0},
    {2, CBEGIN, 380, 0, 0, 0, 0}, {2, CEND, 420, OTF2_COLLECTIVE_OP_BCAST, WORLD, 1, 0},
    /* reduce to rank 2: the root ends before rank 1 begins */
    {0, CBEGIN, 500, 0, 0, 0, 0}, {0, CEND, 505, OTF2_COLLECTIVE_OP_REDUCE, WORLD, 2, 0},
    {1, CBEGIN, 540, 0, 0, 0, 0}, {1, CEND, 545, OTF2_COLLECTIVE_OP_REDUCE, WORLD, 2, 0},
    {2, CBEGIN, 520, 0, 0, 0, 0}, {2, CEND, 530, OTF2_COLLECTIVE_OP_REDUCE, WORLD, 2, 0},
    /* scan: rank 2 ends before rank 1 begins */
    {0, CBEGIN, 600, 0, 0, 0, 0}, {0, CEND, 601, OTF2_COLLECTIVE_OP_SCAN, WORLD, NONE, 0},
    {1, CBEGIN, 630, 0, 0, 0, 0}, {1, CEND, 640, OTF2_COLLECTIVE_OP_SCAN, WORLD, NONE, 0},
    {2, CBEGIN, 610, 0, 0, 0, 0}, {2, CEND, 620, OTF2_COLLECTIVE_OP_SCAN, WORLD, NONE, 0},
    /* exscan: rank 0 waits for nobody; rank 1 ends before rank 0 begins */
    {0, CBEGIN, 720, 0, 0, 0, 0}, {0, CEND, 721, OTF2_COLLECTIVE_OP_EXSCAN, WORLD, NONE, 0},
    {1, CBEGIN, 700, 0, 0, 0, 0}, {1, CEND, 710, OTF2_COLLECTIVE_OP_EXSCAN, WORLD, NONE, 0},
    {2, CBEGIN, 705, 0, 0, 0, 0}, {2, CEND, 730, OTF2_COLLECTIVE_OP_EXSCAN, WORLD, NONE, 0},
    /* nonblocking allreduce: rank 0 completes before rank 2's request */
    {0, NBREQ, 800, 0, 0, 0, 1}, {0, NBDONE, 805, OTF2_COLLECTIVE_OP_ALLREDUCE, WORLD, NONE, 1},
    {1, NBREQ, 801, 0, 0, 0, 1}, {1, NBDONE, 820, OTF2_COLLECTIVE_OP_ALLREDUCE, WORLD, NONE, 1},
    {2, NBREQ, 810, 0, 0, 0, 1}, {2, NBDONE, 830, OTF2_COLLECTIVE_OP_ALLREDUCE, WORLD, NONE, 1},
    /* MPI_Win_fence: rank 0 ends before rank 2 begins */
    {0, RBEGIN, 900, 0, 0, 0, 0}, {0, REND, 905, 0, 0, 0, 0},
    {1, RBEGIN, 901, 0, 0, 0, 0}, {1, REND, 920, 0, 0, 0, 0},
    {2, RBEGIN, 910, 0, 0, 0, 0}, {2, REND, 930, 0, 0, 0, 0},
};

static const ev badthreads[] = {
    {0, FORK, 800, 0, 0, 0, 0}, {0, TBEGIN, 801, 0, TEAM, 0, 0},
    {L_OMP, TBEGIN, 790, 0, TEAM, 0, 0},   /* before the fork */
    {L_OMP, TEND, 870, 0, TEAM, 0, 0},     /* after the join */
    {0, TEND, 851, 0, TEAM, 0, 0}, {0, JOIN, 860, 0, 0, 0, 0},
    {0, CREATE, 900, 0, CONTINGENT, 0, 1},
    {L_PTH, BEGIN, 895, 0, CONTINGENT, 0, 1},  /* before its create */
    {L_PTH, END, 950, 0, CONTINGENT, 0, 1},
    {0, WAIT, 940, 0, CONTINGENT, 0, 1},       /* before the thread's end */
};

/* hybrid: 2 ranks, an OpenMP thread and a CUDA stream on rank 0; every
 * rule of hybrid programs holds.  The input of badhybrid, which has the
 * same records at other times. */
#define HYB_MAIN(l) {l, ENTER, 10, R_MAIN, 0, 0, 0}
#define HYB_END(l) {l, LEAVE, 1000, R_MAIN, 0, 0, 0}
static const ev hybrid[] = {
    HYB_MAIN(0), HYB_MAIN(1),
    /* a team of rank 0 and its thread with two barriers; cudaSynchronize
     * (IMPLICIT_BARRIER of CUDA) on the master is no team barrier */
    {0, FORK, 100, 0, 0, 0, 0}, {0, TBEGIN, 101, 0, TEAM, 0, 0},
    {L_OMP, TBEGIN, 102, 0, TEAM, 0, 0},
    {0, ENTER, 110, R_IBAR, 0, 0, 0}, {L_OMP, ENTER, 120, R_IBAR, 0, 0, 0},
    {0, LEAVE, 130, R_IBAR, 0, 0, 0}, {L_OMP, LEAVE, 131, R_IBAR, 0, 0, 0},
    {0, ENTER, 140, R_CUSYNC, 0, 0, 0}, {0, LEAVE, 145, R_CUSYNC, 0, 0, 0},
    {0, ENTER, 150, R_IBAR, 0, 0, 0}, {L_OMP, ENTER, 160, R_IBAR, 0, 0, 0},
    {0, LEAVE, 170, R_IBAR, 0, 0, 0}, {L_OMP, LEAVE, 171, R_IBAR, 0, 0, 0},
    /* lock 0 of rank 0: the master (order 1), then the thread (order 2);
     * rank 1's lock 0 (its own, order 1 again) overlaps both */
    {0, ACQ, 172, 0, 0, 0, 1}, {0, REL, 175, 0, 0, 0, 1},
    {L_OMP, ACQ, 176, 0, 0, 0, 2}, {L_OMP, REL, 178, 0, 0, 0, 2},
    {1, ACQ, 170, 0, 0, 0, 1}, {1, REL, 179, 0, 0, 0, 1},
    {L_OMP, TEND, 181, 0, TEAM, 0, 0}, {0, TEND, 182, 0, TEAM, 0, 0}, {0, JOIN, 190, 0, 0, 0, 0},
    /* CUDA: launch 1's kernel is lost; the copy realigns (launch 1 stays
     * unpaired), so kernel 2 pairs with launch 2; kernels 3 and 4 start 5
     * and 2 ticks before their launch (clock skew) */
    {0, ENTER, 200, R_LAUNCH, 0, 0, 0}, {0, LEAVE, 205, R_LAUNCH, 0, 0, 0},
    {0, ENTER, 210, R_MEMCPY, 0, 0, 0}, {L_GPU, RGET, 215, 0, 0, 0, 0},
    {L_GPU, RDONE, 235, 0, 0, 0, 0}, {0, LEAVE, 240, R_MEMCPY, 0, 0, 0},
    {0, ENTER, 250, R_LAUNCH, 0, 0, 0}, {0, LEAVE, 255, R_LAUNCH, 0, 0, 0},
    {L_GPU, ENTER, 260, R_KERNEL, 0, 0, 0}, {L_GPU, LEAVE, 300, R_KERNEL, 0, 0, 0},
    {L_GPU, ENTER, 305, R_KERNEL, 0, 0, 0},
    {0, ENTER, 310, R_LAUNCH, 0, 0, 0}, {0, LEAVE, 315, R_LAUNCH, 0, 0, 0},
    {L_GPU, LEAVE, 330, R_KERNEL, 0, 0, 0},
    {L_GPU, ENTER, 338, R_KERNEL, 0, 0, 0},
    {0, ENTER, 340, R_LAUNCH, 0, 0, 0}, {0, LEAVE, 345, R_LAUNCH, 0, 0, 0},
    {L_GPU, LEAVE, 360, R_KERNEL, 0, 0, 0},
    /* MPI from the thread: rank 0's thread sends to and receives from rank 1 */
    {L_OMP, SEND, 400, 1, WORLD, 3, 0}, {1, RECV, 410, 0, WORLD, 3, 0},
    {1, SEND, 420, 0, WORLD, 4, 0}, {L_OMP, RECV, 450, 1, WORLD, 4, 0},
    /* an OpenMP lock of OmpAcquireLock records */
    {L_OMP, OACQ, 500, 5, 0, 0, 1}, {L_OMP, OREL, 510, 5, 0, 0, 1},
    {0, OACQ, 520, 5, 0, 0, 2}, {0, OREL, 530, 5, 0, 0, 2},
    HYB_END(0), HYB_END(1),
};

/* badhybrid: hybrid with the same records at other times; against hybrid:
 * a thread leaves barrier 1 before the master enters it, the thread takes
 * lock 0 before the master releases it, rank 1 receives the thread's message
 * before it is sent, kernel 2 starts before its launch (not so in hybrid),
 * kernel 4 by more than in hybrid (4 ticks, 2 in hybrid), kernel 2 and the
 * copy last 2 and 3 ticks longer (kernel 3 one tick: allowed) */
static const ev badhybrid[] = {
    HYB_MAIN(0), HYB_MAIN(1),
    {0, FORK, 100, 0, 0, 0, 0}, {0, TBEGIN, 101, 0, TEAM, 0, 0},
    {L_OMP, TBEGIN, 102, 0, TEAM, 0, 0},
    {0, ENTER, 110, R_IBAR, 0, 0, 0}, {L_OMP, ENTER, 120, R_IBAR, 0, 0, 0},
    {0, LEAVE, 130, R_IBAR, 0, 0, 0}, {L_OMP, LEAVE, 131, R_IBAR, 0, 0, 0},
    {0, ENTER, 140, R_CUSYNC, 0, 0, 0}, {0, LEAVE, 145, R_CUSYNC, 0, 0, 0},
    {L_OMP, ENTER, 152, R_IBAR, 0, 0, 0}, {L_OMP, LEAVE, 155, R_IBAR, 0, 0, 0},  /* barrier */
    {0, ENTER, 158, R_IBAR, 0, 0, 0}, {0, LEAVE, 170, R_IBAR, 0, 0, 0},
    {0, ACQ, 172, 0, 0, 0, 1}, {0, REL, 175, 0, 0, 0, 1},
    {L_OMP, ACQ, 174, 0, 0, 0, 2}, {L_OMP, REL, 178, 0, 0, 0, 2},               /* lock */
    {1, ACQ, 170, 0, 0, 0, 1}, {1, REL, 179, 0, 0, 0, 1},
    {L_OMP, TEND, 181, 0, TEAM, 0, 0}, {0, TEND, 182, 0, TEAM, 0, 0}, {0, JOIN, 190, 0, 0, 0, 0},
    {0, ENTER, 200, R_LAUNCH, 0, 0, 0}, {0, LEAVE, 205, R_LAUNCH, 0, 0, 0},
    {0, ENTER, 210, R_MEMCPY, 0, 0, 0}, {L_GPU, RGET, 215, 0, 0, 0, 0},
    {L_GPU, RDONE, 238, 0, 0, 0, 0}, {0, LEAVE, 240, R_MEMCPY, 0, 0, 0},             /* +3 */
    {L_GPU, ENTER, 248, R_KERNEL, 0, 0, 0},                                        /* device */
    {0, ENTER, 250, R_LAUNCH, 0, 0, 0}, {0, LEAVE, 255, R_LAUNCH, 0, 0, 0},
    {L_GPU, LEAVE, 290, R_KERNEL, 0, 0, 0},                                        /* +2 */
    {L_GPU, ENTER, 305, R_KERNEL, 0, 0, 0},
    {0, ENTER, 310, R_LAUNCH, 0, 0, 0}, {0, LEAVE, 315, R_LAUNCH, 0, 0, 0},
    {L_GPU, LEAVE, 331, R_KERNEL, 0, 0, 0},                                        /* +1 */
    {L_GPU, ENTER, 336, R_KERNEL, 0, 0, 0},                                        /* device */
    {0, ENTER, 340, R_LAUNCH, 0, 0, 0}, {0, LEAVE, 345, R_LAUNCH, 0, 0, 0},
    {L_GPU, LEAVE, 358, R_KERNEL, 0, 0, 0},
    {1, RECV, 395, 0, WORLD, 3, 0}, {L_OMP, SEND, 400, 1, WORLD, 3, 0},            /* message */
    {1, SEND, 420, 0, WORLD, 4, 0}, {L_OMP, RECV, 450, 1, WORLD, 4, 0},
    {L_OMP, OACQ, 500, 5, 0, 0, 1}, {L_OMP, OREL, 510, 5, 0, 0, 1},
    {0, OACQ, 520, 5, 0, 0, 2}, {0, OREL, 530, 5, 0, 0, 2},
    HYB_END(0), HYB_END(1),
};

/* offload: one process offloading OpenMP target regions, as Score-P records
 * them: the host enters the region, the device stream (MIC [0:1] for target
 * and targetmap, MIC [0:RDMA] for targetupdate) enters the same region at
 * depth 0.  Every activity starts at or after its host Enter, but one target
 * 3 ticks before (clock skew).  The input of badoffload. */
static const ev offload[] = {
    {0, ENTER, 10, R_MAIN, 0, 0, 0},
    {0, ENTER, 20, R_TDATA, 0, 0, 0},   /* target data: issues nothing */
    /* the host enters the targetmap twice, nested: the outer Enter issues,
     * the device starts between the two */
    {0, ENTER, 30, R_TMAP, 0, 0, 0}, {L_GPU, ENTER, 32, R_TMAP, 0, 0, 0},
    {0, ENTER, 35, R_TMAP, 0, 0, 0},
    {L_GPU, ENTER, 40, R_DPAR, 0, 0, 0}, {L_GPU, LEAVE, 55, R_DPAR, 0, 0, 0},
    {L_GPU, LEAVE, 60, R_TMAP, 0, 0, 0},
    {0, LEAVE, 65, R_TMAP, 0, 0, 0}, {0, LEAVE, 70, R_TMAP, 0, 0, 0},
    /* a targetupdate from the thread: the copy starts at its Enter */
    {L_OMP, ENTER, 100, R_TUPD, 0, 0, 0}, {L_RDMA, ENTER, 100, R_TUPD, 0, 0, 0},
    {L_RDMA, LEAVE, 110, R_TUPD, 0, 0, 0}, {L_OMP, LEAVE, 112, R_TUPD, 0, 0, 0},
    {0, ENTER, 200, R_TARGET, 0, 0, 0}, {L_GPU, ENTER, 205, R_TARGET, 0, 0, 0},
    {L_GPU, ENTER, 210, R_DPAR, 0, 0, 0}, {L_GPU, LEAVE, 240, R_DPAR, 0, 0, 0},
    {L_GPU, LEAVE, 250, R_TARGET, 0, 0, 0}, {0, LEAVE, 255, R_TARGET, 0, 0, 0},
    {L_GPU, ENTER, 297, R_TARGET, 0, 0, 0}, {0, ENTER, 300, R_TARGET, 0, 0, 0},  /* skew */
    {L_GPU, LEAVE, 330, R_TARGET, 0, 0, 0}, {0, LEAVE, 335, R_TARGET, 0, 0, 0},
    /* a targetupdate whose copy the measurement lost: unpaired */
    {0, ENTER, 400, R_TUPD, 0, 0, 0}, {0, LEAVE, 410, R_TUPD, 0, 0, 0},
    {0, LEAVE, 900, R_TDATA, 0, 0, 0},
    {0, LEAVE, 1000, R_MAIN, 0, 0, 0},
};

/* badoffload: offload at other times; against offload: the targetmap's
 * activity starts before the host's outer Enter (not so in offload), the
 * second target's 5 ticks before its Enter (3 in offload); durations kept */
static const ev badoffload[] = {
    {0, ENTER, 10, R_MAIN, 0, 0, 0},
    {0, ENTER, 20, R_TDATA, 0, 0, 0},
    {L_GPU, ENTER, 28, R_TMAP, 0, 0, 0}, {0, ENTER, 30, R_TMAP, 0, 0, 0},     /* device */
    {0, ENTER, 35, R_TMAP, 0, 0, 0},
    {L_GPU, ENTER, 36, R_DPAR, 0, 0, 0}, {L_GPU, LEAVE, 51, R_DPAR, 0, 0, 0},
    {L_GPU, LEAVE, 56, R_TMAP, 0, 0, 0},
    {0, LEAVE, 65, R_TMAP, 0, 0, 0}, {0, LEAVE, 70, R_TMAP, 0, 0, 0},
    {L_OMP, ENTER, 100, R_TUPD, 0, 0, 0}, {L_RDMA, ENTER, 100, R_TUPD, 0, 0, 0},
    {L_RDMA, LEAVE, 110, R_TUPD, 0, 0, 0}, {L_OMP, LEAVE, 112, R_TUPD, 0, 0, 0},
    {0, ENTER, 200, R_TARGET, 0, 0, 0}, {L_GPU, ENTER, 205, R_TARGET, 0, 0, 0},
    {L_GPU, ENTER, 210, R_DPAR, 0, 0, 0}, {L_GPU, LEAVE, 240, R_DPAR, 0, 0, 0},
    {L_GPU, LEAVE, 250, R_TARGET, 0, 0, 0}, {0, LEAVE, 255, R_TARGET, 0, 0, 0},
    {L_GPU, ENTER, 295, R_TARGET, 0, 0, 0}, {0, ENTER, 300, R_TARGET, 0, 0, 0},  /* device */
    {L_GPU, LEAVE, 328, R_TARGET, 0, 0, 0}, {0, LEAVE, 335, R_TARGET, 0, 0, 0},
    {0, ENTER, 400, R_TUPD, 0, 0, 0}, {0, LEAVE, 410, R_TUPD, 0, 0, 0},
    {0, LEAVE, 900, R_TDATA, 0, 0, 0},
    {0, LEAVE, 1000, R_MAIN, 0, 0, 0},
};

/* ompt: one process recorded through OMPT, no ThreadTeamBegin/End: teams
 * are the threads whose implicit task carries the same parallel region id
 * (d).  Team 1 = {0, L_OMP}; L_OMP forks the nested team 2 = {L_OMP, L_PTH}.
 * The master's wait_barrier inside its barrier is not another barrier. */
static const ev ompt[] = {
    {0, ENTER, 10, R_MAIN, 0, 0, 0}, {0, ENTER, 20, R_ITASK, 0, 0, 1},
    {L_OMP, ENTER, 21, R_ITASK, 0, 0, 1}, {L_OMP, ENTER, 30, R_ITASK, 0, 0, 2},
    {L_PTH, ENTER, 31, R_ITASK, 0, 0, 2},
    {0, ENTER, 50, R_BAR, 0, 0, 0}, {0, ENTER, 51, R_WAITBAR, 0, 0, 0},
    {L_PTH, ENTER, 95, R_BAR, 0, 0, 0}, {L_OMP, ENTER, 100, R_BAR, 0, 0, 0},
    {L_OMP, LEAVE, 110, R_BAR, 0, 0, 0}, {L_PTH, LEAVE, 111, R_BAR, 0, 0, 0},
    {L_PTH, LEAVE, 115, R_ITASK, 0, 0, 0}, {L_OMP, LEAVE, 120, R_ITASK, 0, 0, 0},
    {L_OMP, ENTER, 150, R_BAR, 0, 0, 0},
    {0, LEAVE, 199, R_WAITBAR, 0, 0, 0}, {0, LEAVE, 200, R_BAR, 0, 0, 0},
    {L_OMP, LEAVE, 201, R_BAR, 0, 0, 0}, {L_OMP, LEAVE, 205, R_ITASK, 0, 0, 0},
    {0, LEAVE, 210, R_ITASK, 0, 0, 0}, {0, LEAVE, 1000, R_MAIN, 0, 0, 0},
};

/* badompt: ompt, but L_PTH leaves team 2's barrier before L_OMP enters it */
static const ev badompt[] = {
    {0, ENTER, 10, R_MAIN, 0, 0, 0}, {0, ENTER, 20, R_ITASK, 0, 0, 1},
    {L_OMP, ENTER, 21, R_ITASK, 0, 0, 1}, {L_OMP, ENTER, 30, R_ITASK, 0, 0, 2},
    {L_PTH, ENTER, 31, R_ITASK, 0, 0, 2},
    {0, ENTER, 50, R_BAR, 0, 0, 0}, {0, ENTER, 51, R_WAITBAR, 0, 0, 0},
    {L_PTH, ENTER, 95, R_BAR, 0, 0, 0}, {L_PTH, LEAVE, 99, R_BAR, 0, 0, 0},
    {L_OMP, ENTER, 100, R_BAR, 0, 0, 0}, {L_OMP, LEAVE, 110, R_BAR, 0, 0, 0},
    {L_PTH, LEAVE, 115, R_ITASK, 0, 0, 0}, {L_OMP, LEAVE, 120, R_ITASK, 0, 0, 0},
    {L_OMP, ENTER, 150, R_BAR, 0, 0, 0},
    {0, LEAVE, 199, R_WAITBAR, 0, 0, 0}, {0, LEAVE, 200, R_BAR, 0, 0, 0},
    {L_OMP, LEAVE, 201, R_BAR, 0, 0, 0}, {L_OMP, LEAVE, 205, R_ITASK, 0, 0, 0},
    {0, LEAVE, 210, R_ITASK, 0, 0, 0}, {0, LEAVE, 1000, R_MAIN, 0, 0, 0},
};

/* pthreads: main (location 0) creates threads 1 (L_PTH) and 2 (L_OMP),
 * waits on a condition variable that thread 1 signals, meets both at
 * barrier 1 of count 3 and joins them.  Main's records before pthread_create
 * are 10 ticks apart: compensated with O = 100 they shrink to nothing, and
 * without the replay's rules its reacquisition of the mutex, its barrier
 * exit and its first join would come before what they waited for. */
#define PTH_CONT {0, ENTER, 10, R_MAIN, 0, 0, 0}, \
    {0, ENTER, 20, R_WORK, 0, 0, 0}, {0, LEAVE, 30, R_WORK, 0, 0, 0}, \
    {0, ENTER, 40, R_WORK, 0, 0, 0}, {0, LEAVE, 50, R_WORK, 0, 0, 0}, \
    {0, ENTER, 60, R_WORK, 0, 0, 0}, {0, LEAVE, 70, R_WORK, 0, 0, 0}, \
    {0, ENTER, 120, R_PCREATE, 0, 0, 0}, {0, CREATE, 125, 0, CONTINGENT, 0, 1}, \
    {0, LEAVE, 130, R_PCREATE, 0, 0, 0}, \
    {L_PTH, BEGIN, 130, 0, CONTINGENT, 0, 1}, {L_PTH, ENTER, 140, R_WORK, 0, 0, 0}, \
    {0, ENTER, 140, R_PCREATE, 0, 0, 0}, {0, CREATE, 145, 0, CONTINGENT, 0, 2}, \
    {0, LEAVE, 150, R_PCREATE, 0, 0, 0}, \
    {L_OMP, BEGIN, 150, 0, CONTINGENT, 0, 2}, {L_OMP, ENTER, 160, R_WORK, 0, 0, 0}, \
    /* mutex 1: main (1), in pthread_cond_wait lets go (1) and takes it again (3) \
     * after thread 1 took it (2), signalled and let go (2) */ \
    {0, ENTER, 160, R_PLOCK, 0, 0, 0}, {0, PACQ, 165, 1, 0, 0, 1}, {0, LEAVE, 170, R_PLOCK, 0, 0, 0}, \
    {0, ENTER, 180, R_PCOND, 0, 0, 0}, {0, PREL, 185, 1, 0, 0, 1}, \
    {L_PTH, LEAVE, 500, R_WORK, 0, 0, 0}, \
    {L_PTH, ENTER, 510, R_PLOCK, 0, 0, 0}, {L_PTH, PACQ, 515, 1, 0, 0, 2}, \
    {L_PTH, LEAVE, 520, R_PLOCK, 0, 0, 0}, \
    {L_PTH, ENTER, 530, R_PSIGNAL, 0, 0, 0}, {L_PTH, LEAVE, 535, R_PSIGNAL, 0, 0, 0}, \
    {L_PTH, ENTER, 540, R_PUNLOCK, 0, 0, 0}, {L_PTH, PREL, 545, 1, 0, 0, 2}, \
    {L_PTH, LEAVE, 550, R_PUNLOCK, 0, 0, 0}, \
    {0, PACQ, 600, 1, 0, 0, 3}, {0, LEAVE, 605, R_PCOND, 0, 0, 0}, \
    {0, ENTER, 610, R_PUNLOCK, 0, 0, 0}, {0, PREL, 615, 1, 0, 0, 3}, \
    {0, LEAVE, 620, R_PUNLOCK, 0, 0, 0}, \
    /* barrier 1 of count 3: entered by main, thread 2, thread 1 */ \
    {0, PBENTER, 700, R_PBAR, 1, 3, 0}, \
    {L_OMP, LEAVE, 750, R_WORK, 0, 0, 0}, {L_OMP, PBENTER, 760, R_PBAR, 1, 3, 0}
#define PTH_END \
    {L_PTH, END, 820, 0, CONTINGENT, 0, 1}, \
    {0, LEAVE, 820, R_PBAR, 0, 0, 0}, \
    {0, ENTER, 830, R_PJOIN, 0, 0, 0}, {0, WAIT, 835, 0, CONTINGENT, 0, 1}, \
    {0, LEAVE, 840, R_PJOIN, 0, 0, 0}, \
    {L_OMP, END, 895, 0, CONTINGENT, 0, 2}, \
    {0, ENTER, 850, R_PJOIN, 0, 0, 0}, {0, WAIT, 900, 0, CONTINGENT, 0, 2}, \
    {0, LEAVE, 905, R_PJOIN, 0, 0, 0}, \
    {0, LEAVE, 1000, R_MAIN, 0, 0, 0}
static const ev pthreads[] = {
    PTH_CONT,
    {L_PTH, PBENTER, 800, R_PBAR, 1, 3, 0}, {L_PTH, LEAVE, 810, R_PBAR, 0, 0, 0},
    {L_OMP, LEAVE, 815, R_PBAR, 0, 0, 0},
    PTH_END,
};

/* badpthreads: pthreads, but thread 2 leaves the barrier before thread 1 enters it */
static const ev badpthreads[] = {
    PTH_CONT,
    {L_OMP, LEAVE, 790, R_PBAR, 0, 0, 0},
    {L_PTH, PBENTER, 800, R_PBAR, 1, 3, 0}, {L_PTH, LEAVE, 810, R_PBAR, 0, 0, 0},
    PTH_END,
};

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef l, void *c, bool final)
{
    (void)ud, (void)ft, (void)l, (void)c, (void)final;
    return OTF2_FLUSH;
}

static const OTF2_FlushCallbacks flush_cb = {pre_flush, NULL};

/* attributes CUDA_STREAM_REF, OMPT_PARALLEL_REGION_ID, unperturb::object, unperturb::count */
enum { A_STREAM, A_OMPT, A_POBJ, A_PCOUNT };

static OTF2_ErrorCode write_ev(OTF2_EvtWriter *w, OTF2_AttributeList *al, const ev *e)
{
    OTF2_AttributeValue v;
    OTF2_ErrorCode rc;
    switch (e->what) {
    case ENTER:
        if (e->a == R_LAUNCH) {  /* a launch names the stream */
            v.locationRef = loc_ids[L_GPU];
            if ((rc = OTF2_AttributeList_AddAttribute(al, A_STREAM, OTF2_TYPE_LOCATION, v)) != OTF2_SUCCESS)
                return rc;
        }
        if (e->d) {
            v.uint64 = e->d;
            if ((rc = OTF2_AttributeList_AddAttribute(al, A_OMPT, OTF2_TYPE_UINT64, v)) != OTF2_SUCCESS)
                return rc;
        }
        return OTF2_EvtWriter_Enter(w, al, e->t, e->a);
    case PBENTER:
        v.uint32 = e->b;
        if ((rc = OTF2_AttributeList_AddAttribute(al, A_POBJ, OTF2_TYPE_UINT32, v)) != OTF2_SUCCESS)
            return rc;
        v.uint32 = e->c;
        if ((rc = OTF2_AttributeList_AddAttribute(al, A_PCOUNT, OTF2_TYPE_UINT32, v)) != OTF2_SUCCESS)
            return rc;
        return OTF2_EvtWriter_Enter(w, al, e->t, e->a);
    case LEAVE: return OTF2_EvtWriter_Leave(w, NULL, e->t, e->a);
    case ACQ: return OTF2_EvtWriter_ThreadAcquireLock(w, NULL, e->t, OTF2_PARADIGM_OPENMP, e->a, (uint32_t)e->d);
    case REL: return OTF2_EvtWriter_ThreadReleaseLock(w, NULL, e->t, OTF2_PARADIGM_OPENMP, e->a, (uint32_t)e->d);
    case PACQ: return OTF2_EvtWriter_ThreadAcquireLock(w, NULL, e->t, OTF2_PARADIGM_PTHREAD, e->a, (uint32_t)e->d);
    case PREL: return OTF2_EvtWriter_ThreadReleaseLock(w, NULL, e->t, OTF2_PARADIGM_PTHREAD, e->a, (uint32_t)e->d);
/* OTF2 3 deprecates the OpenMP records, but older traces have them */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    case OACQ: return OTF2_EvtWriter_OmpAcquireLock(w, NULL, e->t, e->a, (uint32_t)e->d);
    case OREL: return OTF2_EvtWriter_OmpReleaseLock(w, NULL, e->t, e->a, (uint32_t)e->d);
#pragma GCC diagnostic pop
    case RGET: return OTF2_EvtWriter_RmaGet(w, NULL, e->t, WIN, 0, 8, 42);
    case RPUT: return OTF2_EvtWriter_RmaPut(w, NULL, e->t, WIN, 0, 8, 42);
    case RDONE: return OTF2_EvtWriter_RmaOpCompleteBlocking(w, NULL, e->t, WIN, 42);
    case SEND: return OTF2_EvtWriter_MpiSend(w, NULL, e->t, e->a, e->b, e->c, 8);
    case ISEND: return OTF2_EvtWriter_MpiIsend(w, NULL, e->t, e->a, e->b, e->c, 8, e->d);
    case ISEND_DONE: return OTF2_EvtWriter_MpiIsendComplete(w, NULL, e->t, e->d);
    case IRECV_REQ: return OTF2_EvtWriter_MpiIrecvRequest(w, NULL, e->t, e->d);
    case RECV: return OTF2_EvtWriter_MpiRecv(w, NULL, e->t, e->a, e->b, e->c, 8);
    case IRECV: return OTF2_EvtWriter_MpiIrecv(w, NULL, e->t, e->a, e->b, e->c, 8, e->d);
    case CBEGIN: return OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, e->t);
    case CEND:
        return OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, e->t, (OTF2_CollectiveOp)e->a, e->b, e->c,
                                               e->d == 1 ? 0 : 8, e->d == 1 ? 0 : 8); /* d 1: no bytes */
    case NBREQ: return OTF2_EvtWriter_NonBlockingCollectiveRequest(w, NULL, e->t, e->d);
    case NBDONE:
        return OTF2_EvtWriter_NonBlockingCollectiveComplete(w, NULL, e->t, (OTF2_CollectiveOp)e->a,
                                                            e->b, e->c, 8, 8, e->d);
    case FORK: return OTF2_EvtWriter_ThreadFork(w, NULL, e->t, OTF2_PARADIGM_OPENMP, 2);
    case JOIN: return OTF2_EvtWriter_ThreadJoin(w, NULL, e->t, OTF2_PARADIGM_OPENMP);
    case TBEGIN: return OTF2_EvtWriter_ThreadTeamBegin(w, NULL, e->t, e->b);
    case TEND: return OTF2_EvtWriter_ThreadTeamEnd(w, NULL, e->t, e->b);
    case CREATE: return OTF2_EvtWriter_ThreadCreate(w, NULL, e->t, e->b, e->d);
    case BEGIN: return OTF2_EvtWriter_ThreadBegin(w, NULL, e->t, e->b, e->d);
    case WAIT: return OTF2_EvtWriter_ThreadWait(w, NULL, e->t, e->b, e->d);
    case END: return OTF2_EvtWriter_ThreadEnd(w, NULL, e->t, e->b, e->d);
    case FLUSH: return OTF2_EvtWriter_BufferFlush(w, NULL, e->t, e->t);
    case RBEGIN: return OTF2_EvtWriter_RmaCollectiveBegin(w, NULL, e->t);
    case REND:
        return OTF2_EvtWriter_RmaCollectiveEnd(w, NULL, e->t, OTF2_COLLECTIVE_OP_BARRIER,
                                               OTF2_RMA_SYNC_LEVEL_PROCESS | OTF2_RMA_SYNC_LEVEL_MEMORY,
                                               WIN, NONE, 0, 0);
    default: return OTF2_ERROR_INVALID_ARGUMENT;
    }
}

#define TRY(call)                                                               \
    do {                                                                        \
        OTF2_ErrorCode rc_ = (call);                                            \
        if (rc_ != OTF2_SUCCESS) {                                              \
            fprintf(stderr, "up-check-gen: %s: %s: %s\n", dir, #call,           \
                    OTF2_Error_GetDescription(rc_));                            \
            return 1;                                                           \
        }                                                                       \
    } while (0)

/* the locations of a scenario: bit l for location index l */
#define HAS(mask, l) (((mask) >> (l)) & 1u)
#define RANKS(n) ((1u << (n)) - 1u)
#define THREADS (1u << L_OMP | 1u << L_PTH)

static int write_defs(const char *dir, OTF2_GlobalDefWriter *gw, int nranks, unsigned mask,
                      const uint64_t *nev)
{
    enum { S_EMPTY, S_MAIN, S_MACHINE, S_RANK0, S_RANK1, S_RANK2, S_MASTER, S_OMP, S_PTH, S_WORLD,
           S_IBAR, S_CUSYNC, S_LAUNCH, S_MEMCPY, S_KERNEL, S_BAR, S_WAITBAR, S_ITASK, S_STREAMREF,
           S_OMPTID, S_GPU, S_TDATA, S_TMAP, S_TUPD, S_TARGET, S_DPAR, S_MIC, S_RDMA, S_WORK,
           S_PCREATE, S_PJOIN, S_PBAR, S_PLOCK, S_PUNLOCK, S_PCOND, S_PSIGNAL, S_POBJ, S_PCOUNT };
    static const char *const strings[] = {"", "main", "machine", "MPI Rank 0", "MPI Rank 1",
                                          "MPI Rank 2", "Master thread", "OMP thread 1",
                                          "Pthread 1", "MPI_COMM_WORLD", "!$omp implicit barrier",
                                          "cudaSynchronize", "cuLaunchKernel", "cuMemcpyHtoD_v2",
                                          "kernel", "!$omp barrier", "!$omp wait_barrier",
                                          "!$omp implicit_task", "CUDA_STREAM_REF",
                                          "OMPT_PARALLEL_REGION_ID", "CUDA[0:7]",
                                          "!$omp targetdatamap @offload.c:10",
                                          "!$omp targetmap @offload.c:20",
                                          "!$omp targetupdate @offload.c:30",
                                          "!$omp target @offload.c:40",
                                          "!$omp parallel @offload.c:41", "MIC [0:1]", "MIC [0:RDMA]",
                                          "work", "pthread_create", "pthread_join",
                                          "pthread_barrier_wait", "pthread_mutex_lock",
                                          "pthread_mutex_unlock", "pthread_cond_wait",
                                          "pthread_cond_signal", "unperturb::object",
                                          "unperturb::count"};
    static const struct {
        uint32_t name;
        OTF2_RegionRole role;
        OTF2_Paradigm paradigm;
    } regions[N_REGIONS] = {
        [R_MAIN] = {S_MAIN, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER},
        [R_IBAR] = {S_IBAR, OTF2_REGION_ROLE_IMPLICIT_BARRIER, OTF2_PARADIGM_OPENMP},
        [R_CUSYNC] = {S_CUSYNC, OTF2_REGION_ROLE_IMPLICIT_BARRIER, OTF2_PARADIGM_CUDA},
        [R_LAUNCH] = {S_LAUNCH, OTF2_REGION_ROLE_WRAPPER, OTF2_PARADIGM_CUDA},
        [R_MEMCPY] = {S_MEMCPY, OTF2_REGION_ROLE_WRAPPER, OTF2_PARADIGM_CUDA},
        [R_KERNEL] = {S_KERNEL, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_CUDA},
        [R_BAR] = {S_BAR, OTF2_REGION_ROLE_BARRIER, OTF2_PARADIGM_OPENMP},
        [R_WAITBAR] = {S_WAITBAR, OTF2_REGION_ROLE_IMPLICIT_BARRIER, OTF2_PARADIGM_OPENMP},
        [R_ITASK] = {S_ITASK, OTF2_REGION_ROLE_PARALLEL, OTF2_PARADIGM_OPENMP},
        /* Score-P's offload adapter: some OPENMP, some WINTHREAD */
        [R_TDATA] = {S_TDATA, OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_OPENMP},
        [R_TMAP] = {S_TMAP, OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_WINTHREAD},
        [R_TUPD] = {S_TUPD, OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_OPENMP},
        [R_TARGET] = {S_TARGET, OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_WINTHREAD},
        [R_DPAR] = {S_DPAR, OTF2_REGION_ROLE_PARALLEL, OTF2_PARADIGM_WINTHREAD},
        [R_WORK] = {S_WORK, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER},
        /* our tracer's POSIX threads (docs/tracer.md) */
        [R_PCREATE] = {S_PCREATE, OTF2_REGION_ROLE_THREAD_CREATE, OTF2_PARADIGM_PTHREAD},
        [R_PJOIN] = {S_PJOIN, OTF2_REGION_ROLE_THREAD_WAIT, OTF2_PARADIGM_PTHREAD},
        [R_PBAR] = {S_PBAR, OTF2_REGION_ROLE_BARRIER, OTF2_PARADIGM_PTHREAD},
        [R_PLOCK] = {S_PLOCK, OTF2_REGION_ROLE_WRAPPER, OTF2_PARADIGM_PTHREAD},
        [R_PUNLOCK] = {S_PUNLOCK, OTF2_REGION_ROLE_WRAPPER, OTF2_PARADIGM_PTHREAD},
        [R_PCOND] = {S_PCOND, OTF2_REGION_ROLE_WRAPPER, OTF2_PARADIGM_PTHREAD},
        [R_PSIGNAL] = {S_PSIGNAL, OTF2_REGION_ROLE_WRAPPER, OTF2_PARADIGM_PTHREAD},
    };
    uint64_t all[NLOCS_MAX], idx[NLOCS_MAX];
    uint32_t i;
    for (i = 0; i < sizeof strings / sizeof strings[0]; i++)
        TRY(OTF2_GlobalDefWriter_WriteString(gw, i, strings[i]));
    for (i = 0; i < N_REGIONS; i++)
        TRY(OTF2_GlobalDefWriter_WriteRegion(gw, i, regions[i].name, regions[i].name, S_EMPTY,
                                             regions[i].role, regions[i].paradigm,
                                             OTF2_REGION_FLAG_NONE, S_EMPTY, 0, 0));
    TRY(OTF2_GlobalDefWriter_WriteAttribute(gw, A_STREAM, S_STREAMREF, S_EMPTY, OTF2_TYPE_LOCATION));
    TRY(OTF2_GlobalDefWriter_WriteAttribute(gw, A_OMPT, S_OMPTID, S_EMPTY, OTF2_TYPE_UINT64));
    TRY(OTF2_GlobalDefWriter_WriteAttribute(gw, A_POBJ, S_POBJ, S_EMPTY, OTF2_TYPE_UINT32));
    TRY(OTF2_GlobalDefWriter_WriteAttribute(gw, A_PCOUNT, S_PCOUNT, S_EMPTY, OTF2_TYPE_UINT32));
    TRY(OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, S_MACHINE, S_MACHINE,
                                                 OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    for (i = 0; i < (uint32_t)nranks; i++)
        TRY(OTF2_GlobalDefWriter_WriteLocationGroup(gw, i, S_RANK0 + i, OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                    0, OTF2_UNDEFINED_LOCATION_GROUP));
    for (i = 0; i < (uint32_t)nranks; i++)
        TRY(OTF2_GlobalDefWriter_WriteLocation(gw, loc_ids[i], S_MASTER, OTF2_LOCATION_TYPE_CPU_THREAD,
                                               nev[i], i));
    if (HAS(mask, L_OMP))
        TRY(OTF2_GlobalDefWriter_WriteLocation(gw, loc_ids[L_OMP], S_OMP, OTF2_LOCATION_TYPE_CPU_THREAD,
                                               nev[L_OMP], 0));
    if (HAS(mask, L_PTH))
        TRY(OTF2_GlobalDefWriter_WriteLocation(gw, loc_ids[L_PTH], S_PTH, OTF2_LOCATION_TYPE_CPU_THREAD,
                                               nev[L_PTH], 0));
    if (HAS(mask, L_GPU))
        TRY(OTF2_GlobalDefWriter_WriteLocation(gw, loc_ids[L_GPU], HAS(mask, L_RDMA) ? S_MIC : S_GPU,
                                               OTF2_LOCATION_TYPE_ACCELERATOR_STREAM, nev[L_GPU], 0));
    if (HAS(mask, L_RDMA))
        TRY(OTF2_GlobalDefWriter_WriteLocation(gw, loc_ids[L_RDMA], S_RDMA,
                                               OTF2_LOCATION_TYPE_ACCELERATOR_STREAM, nev[L_RDMA], 0));
    for (i = 0; i < (uint32_t)nranks; i++) {
        all[i] = loc_ids[i];
        idx[i] = i;
    }
    TRY(OTF2_GlobalDefWriter_WriteGroup(gw, 0, S_EMPTY, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)nranks, all));
    TRY(OTF2_GlobalDefWriter_WriteGroup(gw, 1, S_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP,
                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)nranks, idx));
    TRY(OTF2_GlobalDefWriter_WriteGroup(gw, 2, S_EMPTY, OTF2_GROUP_TYPE_COMM_SELF,
                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 0, NULL));
    TRY(OTF2_GlobalDefWriter_WriteComm(gw, WORLD, S_WORLD, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
    TRY(OTF2_GlobalDefWriter_WriteComm(gw, SELF, S_EMPTY, 2, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
    TRY(OTF2_GlobalDefWriter_WriteRmaWin(gw, WIN, S_EMPTY, WORLD, OTF2_RMA_WIN_FLAG_NONE));
    if (nranks >= 3) {
        static const uint64_t sub[] = {2, 0}, ga[] = {0}, gb[] = {1, 2};
        TRY(OTF2_GlobalDefWriter_WriteGroup(gw, 3, S_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP,
                                            OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 2, sub));
        TRY(OTF2_GlobalDefWriter_WriteComm(gw, SUB, S_EMPTY, 3, WORLD, OTF2_COMM_FLAG_NONE));
        TRY(OTF2_GlobalDefWriter_WriteGroup(gw, 8, S_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP,
                                            OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 1, ga));
        TRY(OTF2_GlobalDefWriter_WriteGroup(gw, 9, S_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP,
                                            OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 2, gb));
        TRY(OTF2_GlobalDefWriter_WriteInterComm(gw, INTER, S_EMPTY, 8, 9, WORLD, OTF2_COMM_FLAG_NONE));
    }
    if (HAS(mask, L_OMP)) {
        const uint64_t omp[] = {loc_ids[0], loc_ids[L_OMP]};
        static const uint64_t two[] = {0, 1};
        TRY(OTF2_GlobalDefWriter_WriteGroup(gw, 4, S_EMPTY, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                            OTF2_PARADIGM_OPENMP, OTF2_GROUP_FLAG_NONE, 2, omp));
        TRY(OTF2_GlobalDefWriter_WriteGroup(gw, 5, S_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP,
                                            OTF2_PARADIGM_OPENMP, OTF2_GROUP_FLAG_NONE, 2, two));
        TRY(OTF2_GlobalDefWriter_WriteComm(gw, TEAM, S_EMPTY, 5, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
    }
    if (HAS(mask, L_PTH)) {
        const uint64_t pth[] = {loc_ids[0], loc_ids[L_PTH]};
        static const uint64_t two[] = {0, 1};
        TRY(OTF2_GlobalDefWriter_WriteGroup(gw, 6, S_EMPTY, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                            OTF2_PARADIGM_PTHREAD, OTF2_GROUP_FLAG_NONE, 2, pth));
        TRY(OTF2_GlobalDefWriter_WriteGroup(gw, 7, S_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP,
                                            OTF2_PARADIGM_PTHREAD, OTF2_GROUP_FLAG_NONE, 2, two));
        TRY(OTF2_GlobalDefWriter_WriteComm(gw, CONTINGENT, S_EMPTY, 7, OTF2_UNDEFINED_COMM,
                                           OTF2_COMM_FLAG_NONE));
    }
    return 0;
}

static int generate(const char *dir, const ev *evs, size_t n, int nranks, unsigned mask, bool altered,
                    bool skew)
{
    OTF2_Archive *ar;
    OTF2_EvtWriter *w[NLOCS_MAX] = {NULL};
    OTF2_AttributeList *al;
    uint64_t nev[NLOCS_MAX] = {0}, tmin = UINT64_MAX, tmax = 0;
    int l;
    size_t i;

    if (!(ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                 OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE))) {
        fprintf(stderr, "up-check-gen: %s: cannot create the archive\n", dir);
        return 1;
    }
    TRY(OTF2_Archive_SetFlushCallbacks(ar, &flush_cb, NULL));
    TRY(OTF2_Archive_SetSerialCollectiveCallbacks(ar));
    TRY(OTF2_Archive_SetCreator(ar, "unperturb tests/check/badgen"));
    TRY(OTF2_Archive_OpenEvtFiles(ar));
    for (l = 0; l < NLOCS_MAX; l++)
        if (HAS(mask, l) && !(w[l] = OTF2_Archive_GetEvtWriter(ar, loc_ids[l]))) {
            fprintf(stderr, "up-check-gen: %s: no event writer\n", dir);
            return 1;
        }
    if (!(al = OTF2_AttributeList_New())) {
        fprintf(stderr, "up-check-gen: %s: no attribute list\n", dir);
        return 1;
    }
    for (i = 0; i < n; i++) {
        ev e = evs[i];
        if (altered && e.loc == 2 && e.what == ENTER)
            e.what = FLUSH;  /* the same count, another kind */
        TRY(write_ev(w[e.loc], al, &e));
        TRY(OTF2_AttributeList_RemoveAllAttributes(al));
        nev[e.loc]++;
        tmin = e.t < tmin ? e.t : tmin;
        tmax = e.t > tmax ? e.t : tmax;
    }
    if (altered) {  /* one record more */
        TRY(OTF2_EvtWriter_Enter(w[1], NULL, 1001, 0));
        nev[1]++;
        tmax = 1001;
    }
    OTF2_AttributeList_Delete(al);
    for (l = 0; l < NLOCS_MAX; l++)
        if (HAS(mask, l))
            TRY(OTF2_Archive_CloseEvtWriter(ar, w[l]));
    TRY(OTF2_Archive_CloseEvtFiles(ar));
    TRY(OTF2_Archive_OpenDefFiles(ar));
    for (l = 0; l < NLOCS_MAX; l++) {
        OTF2_DefWriter *dw;
        if (!HAS(mask, l))
            continue;
        dw = OTF2_Archive_GetDefWriter(ar, loc_ids[l]);
        if (!dw) {
            fprintf(stderr, "up-check-gen: %s: no definition writer\n", dir);
            return 1;
        }
        if (skew && l == 0) {
            /* OTF2's writer refuses a decreasing timestamp, but its reader
             * interpolates clock offsets: from 310 to 320 the offset falls
             * from 0 to -15 ticks, so 320 reads as 305, after 310 */
            TRY(OTF2_DefWriter_WriteClockOffset(dw, 0, 0, 0.0));
            TRY(OTF2_DefWriter_WriteClockOffset(dw, 310, 0, 0.0));
            TRY(OTF2_DefWriter_WriteClockOffset(dw, 320, -15, 0.0));
        }
        TRY(OTF2_Archive_CloseDefWriter(ar, dw));
    }
    TRY(OTF2_Archive_CloseDefFiles(ar));
    {
        OTF2_GlobalDefWriter *gw = OTF2_Archive_GetGlobalDefWriter(ar);
        if (!gw) {
            fprintf(stderr, "up-check-gen: %s: no global definition writer\n", dir);
            return 1;
        }
        TRY(OTF2_GlobalDefWriter_WriteClockProperties(gw, 1000000000, tmin, tmax - tmin + 1,
                                                      OTF2_UNDEFINED_TIMESTAMP));
        if (write_defs(dir, gw, nranks, mask, nev) != 0)
            return 1;
    }
    TRY(OTF2_Archive_Close(ar));
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir, *s;
    if (argc != 3) {
        fprintf(stderr, "usage: up-check-gen DIR good|bad|badcoll|badthreads|altered|hybrid|badhybrid|"
                        "ompt|badompt|offload|badoffload|pthreads|badpthreads\n");
        return 2;
    }
    dir = argv[1];
    s = argv[2];
#define N(a) (sizeof(a) / sizeof((a)[0]))
    if (!strcmp(s, "good"))
        return generate(dir, good, N(good), 3, RANKS(3) | THREADS, false, false);
    if (!strcmp(s, "altered"))
        return generate(dir, good, N(good), 3, RANKS(3) | THREADS, true, false);
    if (!strcmp(s, "bad"))
        return generate(dir, bad, N(bad), 2, RANKS(2), false, true);
    if (!strcmp(s, "badcoll"))
        return generate(dir, badcoll, N(badcoll), 3, RANKS(3), false, false);
    if (!strcmp(s, "badthreads"))
        return generate(dir, badthreads, N(badthreads), 3, RANKS(3) | THREADS, false, false);
    if (!strcmp(s, "hybrid"))
        return generate(dir, hybrid, N(hybrid), 2, RANKS(2) | 1u << L_OMP | 1u << L_GPU, false, false);
    if (!strcmp(s, "badhybrid"))
        return generate(dir, badhybrid, N(badhybrid), 2, RANKS(2) | 1u << L_OMP | 1u << L_GPU, false, false);
    if (!strcmp(s, "ompt"))
        return generate(dir, ompt, N(ompt), 1, RANKS(1) | THREADS, false, false);
    if (!strcmp(s, "badompt"))
        return generate(dir, badompt, N(badompt), 1, RANKS(1) | THREADS, false, false);
#define OFFLOAD (RANKS(1) | 1u << L_OMP | 1u << L_GPU | 1u << L_RDMA)
    if (!strcmp(s, "offload"))
        return generate(dir, offload, N(offload), 1, OFFLOAD, false, false);
    if (!strcmp(s, "badoffload"))
        return generate(dir, badoffload, N(badoffload), 1, OFFLOAD, false, false);
    if (!strcmp(s, "pthreads"))
        return generate(dir, pthreads, N(pthreads), 1, RANKS(1) | THREADS, false, false);
    if (!strcmp(s, "badpthreads"))
        return generate(dir, badpthreads, N(badpthreads), 1, RANKS(1) | THREADS, false, false);
    fprintf(stderr, "up-check-gen: unknown scenario '%s'\n", s);
    return 2;
}
