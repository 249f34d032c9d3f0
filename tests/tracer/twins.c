/*
 * tests/tracer/twins.c - every generated wrapper, called from C and then
 * through its Fortran symbol with the same arguments (Open MPI's Fortran
 * ABI: MPI_Fint handles by reference, the Fortran sentinels), each inside
 * the manual region "C NAME" or "F NAME".  tests/tracer/twins.sh traces it
 * on 3 ranks and asserts that the records of each pair are equal but for
 * times and ids, for every generated row of src/trace/mpi_calls.def, and
 * checks some sizes against numbers worked out by hand.
 *
 * Every rank runs every pair; inside one, the roles depend on the rank
 * (point to point: rank 0 sends to rank 1; rank 2 uses MPI_PROC_NULL
 * where a call takes a peer).  Requests are completed with the C MPI_Wait,
 * so each pair differs only in the wrapper under test.
 */
#define UP_REGION_OPTIONAL
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <unperturb/region.h>

/* Fortran's sentinels (libmpi) and entry points (libmpi_mpifh, or the
 * tracer's wrappers when it is preloaded); old-style declarations: any
 * argument list */
extern MPI_Fint mpi_fortran_in_place_, mpi_fortran_status_ignore_;
#define F_IN_PLACE ((void *)&mpi_fortran_in_place_)
#define F_STATUS_IGNORE (&mpi_fortran_status_ignore_)
#define FDECL(f) extern void f()
FDECL(mpi_send_); FDECL(mpi_bsend_); FDECL(mpi_ssend_); FDECL(mpi_rsend_);
FDECL(mpi_isend_); FDECL(mpi_ibsend_); FDECL(mpi_issend_); FDECL(mpi_irsend_);
FDECL(mpi_recv_); FDECL(mpi_irecv_); FDECL(mpi_sendrecv_); FDECL(mpi_sendrecv_replace_);
FDECL(mpi_probe_); FDECL(mpi_iprobe_); FDECL(mpi_send_init_); FDECL(mpi_bsend_init_);
FDECL(mpi_ssend_init_); FDECL(mpi_rsend_init_); FDECL(mpi_recv_init_); FDECL(mpi_cancel_);
FDECL(mpi_barrier_); FDECL(mpi_bcast_); FDECL(mpi_gather_); FDECL(mpi_gatherv_);
FDECL(mpi_scatter_); FDECL(mpi_scatterv_); FDECL(mpi_allgather_); FDECL(mpi_allgatherv_);
FDECL(mpi_alltoall_); FDECL(mpi_alltoallv_); FDECL(mpi_alltoallw_); FDECL(mpi_reduce_);
FDECL(mpi_allreduce_); FDECL(mpi_reduce_scatter_); FDECL(mpi_reduce_scatter_block_);
FDECL(mpi_scan_); FDECL(mpi_exscan_);
FDECL(mpi_ibarrier_); FDECL(mpi_ibcast_); FDECL(mpi_igather_); FDECL(mpi_igatherv_);
FDECL(mpi_iscatter_); FDECL(mpi_iscatterv_); FDECL(mpi_iallgather_); FDECL(mpi_iallgatherv_);
FDECL(mpi_ialltoall_); FDECL(mpi_ialltoallv_); FDECL(mpi_ialltoallw_); FDECL(mpi_ireduce_);
FDECL(mpi_iallreduce_); FDECL(mpi_ireduce_scatter_); FDECL(mpi_ireduce_scatter_block_);
FDECL(mpi_iscan_); FDECL(mpi_iexscan_);
FDECL(mpi_comm_split_); FDECL(mpi_comm_dup_); FDECL(mpi_comm_create_);
FDECL(mpi_comm_split_type_); FDECL(mpi_cart_create_);
FDECL(mpi_win_create_); FDECL(mpi_win_allocate_); FDECL(mpi_win_allocate_cptr_);
FDECL(mpi_win_allocate_shared_); FDECL(mpi_win_allocate_shared_cptr_);
FDECL(mpi_win_create_dynamic_);
FDECL(mpi_put_); FDECL(mpi_get_); FDECL(mpi_accumulate_); FDECL(mpi_get_accumulate_);
FDECL(mpi_fetch_and_op_); FDECL(mpi_compare_and_swap_);

/* one pair: the C statement, then the Fortran one, each in its region */
#define TWIN(NAME, C, F)                                                                  \
    do {                                                                                  \
        UP_REGION_BEGIN("C " NAME);                                                       \
        C;                                                                                \
        UP_REGION_END("C " NAME);                                                         \
        UP_REGION_BEGIN("F " NAME);                                                       \
        F;                                                                                \
        UP_REGION_END("F " NAME);                                                         \
        done++;                                                                           \
    } while (0)

static int me, n, done;
static MPI_Fint fw, fint, fsum, ierr;
static int buf[64], rbuf[64];
static MPI_Request rq;
static MPI_Fint frq;

static void check(MPI_Fint e, const char *what)
{
    if (e != MPI_SUCCESS) {
        fprintf(stderr, "twins: rank %d: %s failed (%d)\n", me, what, (int)e);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void wait_f(void) /* the request of the last Fortran call, with the C MPI_Wait */
{
    MPI_Request r;
    check(ierr, "Fortran call");
    r = MPI_Request_f2c(frq);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
}

static void wait_c(void)
{
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
}

/* ---- point to point ------------------------------------------------------------- */

/* rank 0 sends 5 ints with tag 1 through `send`; rank 1 receives them */
#define SENDS(NAME, CFN, FFN)                                                               \
    TWIN(NAME, { if (me == 0) CFN(buf, 5, MPI_INT, 1, 1, MPI_COMM_WORLD);                   \
                 else if (me == 1) MPI_Recv(rbuf, 5, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }, \
               { MPI_Fint c = 5; MPI_Fint d = 1; MPI_Fint t = 1;                                            \
                 if (me == 0) { FFN(buf, &c, &fint, &d, &t, &fw, &ierr); check(ierr, NAME); } \
                 else if (me == 1) MPI_Recv(rbuf, 5, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); })

#define ISENDS(NAME, CFN, FFN)                                                              \
    TWIN(NAME, { if (me == 0) { CFN(buf, 5, MPI_INT, 1, 1, MPI_COMM_WORLD, &rq); wait_c(); } \
                 else if (me == 1) MPI_Recv(rbuf, 5, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }, \
               { MPI_Fint c = 5; MPI_Fint d = 1; MPI_Fint t = 1;                                            \
                 if (me == 0) { FFN(buf, &c, &fint, &d, &t, &fw, &frq, &ierr); wait_f(); }  \
                 else if (me == 1) MPI_Recv(rbuf, 5, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); })

/* persistent sends: made, started once, waited for, freed */
#define INITS(NAME, CFN, FFN)                                                               \
    TWIN(NAME, { if (me == 0) { CFN(buf, 3, MPI_INT, 1, 2, MPI_COMM_WORLD, &rq); MPI_Start(&rq); \
                                wait_c(); MPI_Request_free(&rq); }                          \
                 else if (me == 1) MPI_Recv(rbuf, 3, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }, \
               { MPI_Fint c = 3; MPI_Fint d = 1; MPI_Fint t = 2;                                              \
                 if (me == 0) { MPI_Request r; FFN(buf, &c, &fint, &d, &t, &fw, &frq, &ierr); \
                                check(ierr, NAME); r = MPI_Request_f2c(frq); MPI_Start(&r); \
                                MPI_Wait(&r, MPI_STATUS_IGNORE); MPI_Request_free(&r); }    \
                 else if (me == 1) MPI_Recv(rbuf, 3, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); })

static void p2p(void)
{
    int peer = me == 0 ? 1 : me == 1 ? 0 : MPI_PROC_NULL;
    MPI_Fint fpeer = peer, c5 = 5, t1 = 1, t2 = 2, anys = MPI_ANY_SOURCE, anyt = MPI_ANY_TAG;
    MPI_Fint fst[sizeof(MPI_Status) / sizeof(MPI_Fint)], flag;
    int cflag;
    static char bbuf[4096];

    SENDS("MPI_Send", MPI_Send, mpi_send_);
    MPI_Buffer_attach(bbuf, sizeof bbuf);
    SENDS("MPI_Bsend", MPI_Bsend, mpi_bsend_);
    SENDS("MPI_Ssend", MPI_Ssend, mpi_ssend_);
    ISENDS("MPI_Isend", MPI_Isend, mpi_isend_);
    ISENDS("MPI_Ibsend", MPI_Ibsend, mpi_ibsend_);
    ISENDS("MPI_Issend", MPI_Issend, mpi_issend_);
    /* ready sends: the receive is posted before the barrier */
    TWIN("MPI_Rsend",
         { if (me == 1) MPI_Irecv(rbuf, 5, MPI_INT, 0, 1, MPI_COMM_WORLD, &rq);
           MPI_Barrier(MPI_COMM_WORLD);
           if (me == 0) MPI_Rsend(buf, 5, MPI_INT, 1, 1, MPI_COMM_WORLD);
           if (me == 1) wait_c(); },
         { MPI_Fint d = 1;
           if (me == 1) MPI_Irecv(rbuf, 5, MPI_INT, 0, 1, MPI_COMM_WORLD, &rq);
           MPI_Barrier(MPI_COMM_WORLD);
           if (me == 0) { mpi_rsend_(buf, &c5, &fint, &d, &t1, &fw, &ierr); check(ierr, "rsend"); }
           if (me == 1) wait_c(); });
    TWIN("MPI_Irsend",
         { if (me == 1) MPI_Irecv(rbuf, 5, MPI_INT, 0, 1, MPI_COMM_WORLD, &rq);
           MPI_Barrier(MPI_COMM_WORLD);
           if (me == 0) MPI_Irsend(buf, 5, MPI_INT, 1, 1, MPI_COMM_WORLD, &rq);
           if (me < 2) wait_c(); },
         { MPI_Fint d = 1;
           if (me == 1) MPI_Irecv(rbuf, 5, MPI_INT, 0, 1, MPI_COMM_WORLD, &rq);
           MPI_Barrier(MPI_COMM_WORLD);
           if (me == 0) { mpi_irsend_(buf, &c5, &fint, &d, &t1, &fw, &frq, &ierr); wait_f(); }
           if (me == 1) wait_c(); });
    /* receives: from MPI_ANY_SOURCE (Recv) and with MPI_ANY_TAG (Irecv) */
    TWIN("MPI_Recv",
         { if (me == 0) MPI_Send(buf, 5, MPI_INT, 1, 1, MPI_COMM_WORLD);
           else if (me == 1) MPI_Recv(rbuf, 5, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); },
         { if (me == 0) MPI_Send(buf, 5, MPI_INT, 1, 1, MPI_COMM_WORLD);
           else if (me == 1) { mpi_recv_(rbuf, &c5, &fint, &anys, &t1, &fw, F_STATUS_IGNORE, &ierr);
                               check(ierr, "recv"); } });
    TWIN("MPI_Irecv",
         { if (me == 0) MPI_Send(buf, 5, MPI_INT, 1, 1, MPI_COMM_WORLD);
           else if (me == 1) { MPI_Irecv(rbuf, 5, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &rq); wait_c(); } },
         { MPI_Fint s0 = 0;
           if (me == 0) MPI_Send(buf, 5, MPI_INT, 1, 1, MPI_COMM_WORLD);
           else if (me == 1) { mpi_irecv_(rbuf, &c5, &fint, &s0, &anyt, &fw, &frq, &ierr); wait_f(); } });
    /* exchanges between 0 and 1; rank 2 with MPI_PROC_NULL */
    TWIN("MPI_Sendrecv",
         MPI_Sendrecv(buf, 5, MPI_INT, peer, 1, rbuf, 5, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
         { MPI_Fint c4 = 5;
           mpi_sendrecv_(buf, &c5, &fint, &fpeer, &t1, rbuf, &c4, &fint, &fpeer, &t1, &fw, fst, &ierr);
           check(ierr, "sendrecv"); });
    TWIN("MPI_Sendrecv_replace",
         MPI_Sendrecv_replace(rbuf, 5, MPI_INT, peer, 2, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
         { mpi_sendrecv_replace_(rbuf, &c5, &fint, &fpeer, &t2, &fpeer, &t2, &fw, F_STATUS_IGNORE, &ierr);
           check(ierr, "sendrecv_replace"); });
    TWIN("MPI_Probe",
         { if (me == 0) MPI_Send(buf, 5, MPI_INT, 1, 1, MPI_COMM_WORLD);
           else if (me == 1) { MPI_Probe(0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                               MPI_Recv(rbuf, 5, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); } },
         { MPI_Fint s0 = 0;
           if (me == 0) MPI_Send(buf, 5, MPI_INT, 1, 1, MPI_COMM_WORLD);
           else if (me == 1) { mpi_probe_(&s0, &t1, &fw, fst, &ierr); check(ierr, "probe");
                               MPI_Recv(rbuf, 5, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); } });
    /* the message is there (MPI_Probe) before the Iprobe: one call, flag set */
    TWIN("MPI_Iprobe",
         { if (me == 0) MPI_Send(buf, 5, MPI_INT, 1, 1, MPI_COMM_WORLD);
           else if (me == 1) { MPI_Probe(0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                               MPI_Iprobe(0, 1, MPI_COMM_WORLD, &cflag, MPI_STATUS_IGNORE);
                               MPI_Recv(rbuf, 5, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); } },
         { MPI_Fint s0 = 0;
           if (me == 0) MPI_Send(buf, 5, MPI_INT, 1, 1, MPI_COMM_WORLD);
           else if (me == 1) { MPI_Probe(0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                               mpi_iprobe_(&s0, &t1, &fw, &flag, fst, &ierr); check(ierr, "iprobe");
                               if (!flag) { fprintf(stderr, "twins: iprobe found nothing\n"); MPI_Abort(MPI_COMM_WORLD, 1); }
                               MPI_Recv(rbuf, 5, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); } });
    INITS("MPI_Send_init", MPI_Send_init, mpi_send_init_);
    INITS("MPI_Bsend_init", MPI_Bsend_init, mpi_bsend_init_);
    INITS("MPI_Ssend_init", MPI_Ssend_init, mpi_ssend_init_);
    TWIN("MPI_Rsend_init",
         { if (me == 1) MPI_Irecv(rbuf, 3, MPI_INT, 0, 2, MPI_COMM_WORLD, &rq);
           if (me == 0) MPI_Rsend_init(buf, 3, MPI_INT, 1, 2, MPI_COMM_WORLD, &rq);
           MPI_Barrier(MPI_COMM_WORLD);
           if (me == 0) MPI_Start(&rq);
           if (me < 2) wait_c();
           if (me == 0) MPI_Request_free(&rq); },
         { MPI_Fint c3 = 3; MPI_Fint d = 1;
           if (me == 1) MPI_Irecv(rbuf, 3, MPI_INT, 0, 2, MPI_COMM_WORLD, &rq);
           if (me == 0) { mpi_rsend_init_(buf, &c3, &fint, &d, &t2, &fw, &frq, &ierr);
                          check(ierr, "rsend_init"); rq = MPI_Request_f2c(frq); }
           MPI_Barrier(MPI_COMM_WORLD);
           if (me == 0) MPI_Start(&rq);
           if (me < 2) wait_c();
           if (me == 0) MPI_Request_free(&rq); });
    TWIN("MPI_Recv_init",
         { if (me == 0) MPI_Send(buf, 3, MPI_INT, 1, 2, MPI_COMM_WORLD);
           else if (me == 1) { MPI_Recv_init(rbuf, 3, MPI_INT, 0, 2, MPI_COMM_WORLD, &rq);
                               MPI_Start(&rq); wait_c(); MPI_Request_free(&rq); } },
         { MPI_Fint c3 = 3; MPI_Fint s0 = 0;
           if (me == 0) MPI_Send(buf, 3, MPI_INT, 1, 2, MPI_COMM_WORLD);
           else if (me == 1) { mpi_recv_init_(rbuf, &c3, &fint, &s0, &t2, &fw, &frq, &ierr);
                               check(ierr, "recv_init"); rq = MPI_Request_f2c(frq);
                               MPI_Start(&rq); wait_c(); MPI_Request_free(&rq); } });
    /* a receive that never comes, cancelled: MpiRequestCancelled in the wait */
    TWIN("MPI_Cancel",
         { MPI_Irecv(rbuf, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &rq);
           MPI_Cancel(&rq); wait_c(); },
         { MPI_Irecv(rbuf, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &rq);
           frq = MPI_Request_c2f(rq); mpi_cancel_(&frq, &ierr); check(ierr, "cancel"); wait_c(); });
    MPI_Buffer_detach(&bbuf, &cflag);
}

/* ---- collectives ------------------------------------------------------------------
 * Counts chosen so that the sizes of tests/tracer/twins.sh can be worked
 * out by hand (n = 3, MPI_INT = 4 bytes). */

static int cnt[3] = {1, 2, 3}, dsp[3] = {0, 1, 3}, rcnt[3], rdsp[3];
static MPI_Datatype types[3];
static MPI_Fint ftypes[3];

/* a blocking collective and its nonblocking twin, with the same arguments
 * (C: a, F: fa), the nonblocking one completed by the C MPI_Wait */
#define COLLS(NAME, CFN, FFN, CARGS, FARGS)                                                 \
    TWIN(NAME, check(CFN CARGS, NAME), { FFN FARGS; check(ierr, NAME); })
#define ICOLLS(NAME, CFN, FFN, CARGS, FARGS)                                                \
    TWIN(NAME, { check(CFN CARGS, NAME); wait_c(); }, { FFN FARGS; wait_f(); })

static void colls(void)
{
    MPI_Fint c1 = 1, c2 = 2, c5 = 5, r0 = 0, r1 = 1, r2 = 2, fme1 = me + 1;
    int i;
    for (i = 0; i < 3; i++) {
        rcnt[i] = me + 1;
        rdsp[i] = i * (me + 1);
        types[i] = MPI_INT;
        ftypes[i] = fint;
    }
    TWIN("MPI_Barrier", MPI_Barrier(MPI_COMM_WORLD), { mpi_barrier_(&fw, &ierr); check(ierr, "barrier"); });
    TWIN("MPI_Ibarrier", { MPI_Ibarrier(MPI_COMM_WORLD, &rq); wait_c(); },
         { mpi_ibarrier_(&fw, &frq, &ierr); wait_f(); });

#define CA_ MPI_COMM_WORLD
#define FA_ &fw, &ierr
    /* the root of a bcast, a gather, ... : rank 0, 1 or 2 */
    COLLS("MPI_Bcast", MPI_Bcast, mpi_bcast_, (buf, 5, MPI_INT, 0, CA_), (buf, &c5, &fint, &r0, FA_));
    ICOLLS("MPI_Ibcast", MPI_Ibcast, mpi_ibcast_, (buf, 5, MPI_INT, 0, CA_, &rq),
           (buf, &c5, &fint, &r0, &fw, &frq, &ierr));
    COLLS("MPI_Gather", MPI_Gather, mpi_gather_, (buf, 2, MPI_INT, rbuf, 2, MPI_INT, 2, CA_),
          (buf, &c2, &fint, rbuf, &c2, &fint, &r2, FA_));
    ICOLLS("MPI_Igather", MPI_Igather, mpi_igather_, (buf, 2, MPI_INT, rbuf, 2, MPI_INT, 2, CA_, &rq),
           (buf, &c2, &fint, rbuf, &c2, &fint, &r2, &fw, &frq, &ierr));
    /* the root's own block in place */
    if (me == 2)
        COLLS("MPI_Gather/inplace", MPI_Gather, mpi_gather_, (MPI_IN_PLACE, 2, MPI_INT, rbuf, 2, MPI_INT, 2, CA_),
              (F_IN_PLACE, &c2, &fint, rbuf, &c2, &fint, &r2, FA_));
    else
        COLLS("MPI_Gather/inplace", MPI_Gather, mpi_gather_, (buf, 2, MPI_INT, rbuf, 2, MPI_INT, 2, CA_),
              (buf, &c2, &fint, rbuf, &c2, &fint, &r2, FA_));
    /* rank i sends i+1 ints to root 1 */
    COLLS("MPI_Gatherv", MPI_Gatherv, mpi_gatherv_, (buf, me + 1, MPI_INT, rbuf, cnt, dsp, MPI_INT, 1, CA_),
          (buf, &fme1, &fint, rbuf, cnt, dsp, &fint, &r1, FA_));
    ICOLLS("MPI_Igatherv", MPI_Igatherv, mpi_igatherv_,
           (buf, me + 1, MPI_INT, rbuf, cnt, dsp, MPI_INT, 1, CA_, &rq),
           (buf, &fme1, &fint, rbuf, cnt, dsp, &fint, &r1, &fw, &frq, &ierr));
    COLLS("MPI_Scatter", MPI_Scatter, mpi_scatter_, (buf, 2, MPI_INT, rbuf, 2, MPI_INT, 1, CA_),
          (buf, &c2, &fint, rbuf, &c2, &fint, &r1, FA_));
    ICOLLS("MPI_Iscatter", MPI_Iscatter, mpi_iscatter_, (buf, 2, MPI_INT, rbuf, 2, MPI_INT, 1, CA_, &rq),
           (buf, &c2, &fint, rbuf, &c2, &fint, &r1, &fw, &frq, &ierr));
    COLLS("MPI_Scatterv", MPI_Scatterv, mpi_scatterv_, (buf, cnt, dsp, MPI_INT, rbuf, me + 1, MPI_INT, 0, CA_),
          (buf, cnt, dsp, &fint, rbuf, &fme1, &fint, &r0, FA_));
    ICOLLS("MPI_Iscatterv", MPI_Iscatterv, mpi_iscatterv_,
           (buf, cnt, dsp, MPI_INT, rbuf, me + 1, MPI_INT, 0, CA_, &rq),
           (buf, cnt, dsp, &fint, rbuf, &fme1, &fint, &r0, &fw, &frq, &ierr));
    COLLS("MPI_Allgather", MPI_Allgather, mpi_allgather_, (buf, 2, MPI_INT, rbuf, 2, MPI_INT, CA_),
          (buf, &c2, &fint, rbuf, &c2, &fint, FA_));
    ICOLLS("MPI_Iallgather", MPI_Iallgather, mpi_iallgather_, (buf, 2, MPI_INT, rbuf, 2, MPI_INT, CA_, &rq),
           (buf, &c2, &fint, rbuf, &c2, &fint, &fw, &frq, &ierr));
    COLLS("MPI_Allgather/inplace", MPI_Allgather, mpi_allgather_, (MPI_IN_PLACE, 0, MPI_INT, rbuf, 2, MPI_INT, CA_),
          (F_IN_PLACE, &r0, &fint, rbuf, &c2, &fint, FA_));
    COLLS("MPI_Allgatherv", MPI_Allgatherv, mpi_allgatherv_, (buf, me + 1, MPI_INT, rbuf, cnt, dsp, MPI_INT, CA_),
          (buf, &fme1, &fint, rbuf, cnt, dsp, &fint, FA_));
    ICOLLS("MPI_Iallgatherv", MPI_Iallgatherv, mpi_iallgatherv_,
           (buf, me + 1, MPI_INT, rbuf, cnt, dsp, MPI_INT, CA_, &rq),
           (buf, &fme1, &fint, rbuf, cnt, dsp, &fint, &fw, &frq, &ierr));
    COLLS("MPI_Alltoall", MPI_Alltoall, mpi_alltoall_, (buf, 2, MPI_INT, rbuf, 2, MPI_INT, CA_),
          (buf, &c2, &fint, rbuf, &c2, &fint, FA_));
    ICOLLS("MPI_Ialltoall", MPI_Ialltoall, mpi_ialltoall_, (buf, 2, MPI_INT, rbuf, 2, MPI_INT, CA_, &rq),
           (buf, &c2, &fint, rbuf, &c2, &fint, &fw, &frq, &ierr));
    /* every rank sends j+1 ints to rank j, so rank i gets i+1 from each */
    COLLS("MPI_Alltoallv", MPI_Alltoallv, mpi_alltoallv_, (buf, cnt, dsp, MPI_INT, rbuf, rcnt, rdsp, MPI_INT, CA_),
          (buf, cnt, dsp, &fint, rbuf, rcnt, rdsp, &fint, FA_));
    ICOLLS("MPI_Ialltoallv", MPI_Ialltoallv, mpi_ialltoallv_,
           (buf, cnt, dsp, MPI_INT, rbuf, rcnt, rdsp, MPI_INT, CA_, &rq),
           (buf, cnt, dsp, &fint, rbuf, rcnt, rdsp, &fint, &fw, &frq, &ierr));
    {   /* Alltoallw: byte displacements */
        int sd[3] = {0, 4, 12}, rd[3] = {0, 4 * (me + 1), 8 * (me + 1)};
        COLLS("MPI_Alltoallw", MPI_Alltoallw, mpi_alltoallw_, (buf, cnt, sd, types, rbuf, rcnt, rd, types, CA_),
              (buf, cnt, sd, ftypes, rbuf, rcnt, rd, ftypes, FA_));
        ICOLLS("MPI_Ialltoallw", MPI_Ialltoallw, mpi_ialltoallw_,
               (buf, cnt, sd, types, rbuf, rcnt, rd, types, CA_, &rq),
               (buf, cnt, sd, ftypes, rbuf, rcnt, rd, ftypes, &fw, &frq, &ierr));
    }
    COLLS("MPI_Reduce", MPI_Reduce, mpi_reduce_, (buf, rbuf, 2, MPI_INT, MPI_SUM, 1, CA_),
          (buf, rbuf, &c2, &fint, &fsum, &r1, FA_));
    ICOLLS("MPI_Ireduce", MPI_Ireduce, mpi_ireduce_, (buf, rbuf, 2, MPI_INT, MPI_SUM, 1, CA_, &rq),
           (buf, rbuf, &c2, &fint, &fsum, &r1, &fw, &frq, &ierr));
    COLLS("MPI_Allreduce", MPI_Allreduce, mpi_allreduce_, (buf, rbuf, 2, MPI_INT, MPI_SUM, CA_),
          (buf, rbuf, &c2, &fint, &fsum, FA_));
    ICOLLS("MPI_Iallreduce", MPI_Iallreduce, mpi_iallreduce_, (buf, rbuf, 2, MPI_INT, MPI_SUM, CA_, &rq),
           (buf, rbuf, &c2, &fint, &fsum, &fw, &frq, &ierr));
    COLLS("MPI_Allreduce/inplace", MPI_Allreduce, mpi_allreduce_, (MPI_IN_PLACE, rbuf, 2, MPI_INT, MPI_SUM, CA_),
          (F_IN_PLACE, rbuf, &c2, &fint, &fsum, FA_));
    /* counts {1, 2, 3}: 6 ints sent, rank i gets i+1 */
    COLLS("MPI_Reduce_scatter", MPI_Reduce_scatter, mpi_reduce_scatter_, (buf, rbuf, cnt, MPI_INT, MPI_SUM, CA_),
          (buf, rbuf, cnt, &fint, &fsum, FA_));
    ICOLLS("MPI_Ireduce_scatter", MPI_Ireduce_scatter, mpi_ireduce_scatter_,
           (buf, rbuf, cnt, MPI_INT, MPI_SUM, CA_, &rq), (buf, rbuf, cnt, &fint, &fsum, &fw, &frq, &ierr));
    COLLS("MPI_Reduce_scatter/inplace", MPI_Reduce_scatter, mpi_reduce_scatter_,
          (MPI_IN_PLACE, buf, cnt, MPI_INT, MPI_SUM, CA_), (F_IN_PLACE, buf, cnt, &fint, &fsum, FA_));
    COLLS("MPI_Reduce_scatter_block", MPI_Reduce_scatter_block, mpi_reduce_scatter_block_,
          (buf, rbuf, 2, MPI_INT, MPI_SUM, CA_), (buf, rbuf, &c2, &fint, &fsum, FA_));
    ICOLLS("MPI_Ireduce_scatter_block", MPI_Ireduce_scatter_block, mpi_ireduce_scatter_block_,
           (buf, rbuf, 2, MPI_INT, MPI_SUM, CA_, &rq), (buf, rbuf, &c2, &fint, &fsum, &fw, &frq, &ierr));
    COLLS("MPI_Scan", MPI_Scan, mpi_scan_, (buf, rbuf, 2, MPI_INT, MPI_SUM, CA_), (buf, rbuf, &c2, &fint, &fsum, FA_));
    ICOLLS("MPI_Iscan", MPI_Iscan, mpi_iscan_, (buf, rbuf, 2, MPI_INT, MPI_SUM, CA_, &rq),
           (buf, rbuf, &c2, &fint, &fsum, &fw, &frq, &ierr));
    COLLS("MPI_Exscan", MPI_Exscan, mpi_exscan_, (buf, rbuf, 2, MPI_INT, MPI_SUM, CA_),
          (buf, rbuf, &c2, &fint, &fsum, FA_));
    ICOLLS("MPI_Iexscan", MPI_Iexscan, mpi_iexscan_, (buf, rbuf, 2, MPI_INT, MPI_SUM, CA_, &rq),
           (buf, rbuf, &c2, &fint, &fsum, &fw, &frq, &ierr));
    (void)c1;
#undef CA_
#undef FA_
}

/* ---- communicators and windows ----------------------------------------------------- */

static void comms(void)
{
    MPI_Comm c;
    MPI_Fint fc, color = me % 2, key = 0, st = MPI_COMM_TYPE_SHARED, finfo = MPI_Info_c2f(MPI_INFO_NULL);
    MPI_Fint nd = 1, dims[1] = {3}, per[1] = {0}, reo = 0, fg;
    MPI_Group g;
    int cdims[1] = {3}, cper[1] = {0};
    MPI_Comm_group(MPI_COMM_WORLD, &g);
    fg = MPI_Group_c2f(g);
#define FREE_F() do { check(ierr, "comm"); c = MPI_Comm_f2c(fc); MPI_Comm_free(&c); } while (0)
    TWIN("MPI_Comm_split", { MPI_Comm_split(MPI_COMM_WORLD, me % 2, 0, &c); MPI_Comm_free(&c); },
         { mpi_comm_split_(&fw, &color, &key, &fc, &ierr); FREE_F(); });
    TWIN("MPI_Comm_dup", { MPI_Comm_dup(MPI_COMM_WORLD, &c); MPI_Comm_free(&c); },
         { mpi_comm_dup_(&fw, &fc, &ierr); FREE_F(); });
    TWIN("MPI_Comm_create", { MPI_Comm_create(MPI_COMM_WORLD, g, &c); MPI_Comm_free(&c); },
         { mpi_comm_create_(&fw, &fg, &fc, &ierr); FREE_F(); });
    TWIN("MPI_Comm_split_type",
         { MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c); MPI_Comm_free(&c); },
         { mpi_comm_split_type_(&fw, &st, &key, &finfo, &fc, &ierr); FREE_F(); });
    TWIN("MPI_Cart_create", { MPI_Cart_create(MPI_COMM_WORLD, 1, cdims, cper, 0, &c); MPI_Comm_free(&c); },
         { mpi_cart_create_(&fw, &nd, dims, per, &reo, &fc, &ierr); FREE_F(); });
    MPI_Group_free(&g);
}

static void wins(void)
{
    MPI_Win w;
    MPI_Fint fwin, du = 4, finfo = MPI_Info_c2f(MPI_INFO_NULL);
    MPI_Aint sz = 64 * 4, disp = 1;
    void *base;
    int target = (me + 1) % n, one = 1, res[2];
    MPI_Fint ft = target, c2 = 2, c1 = 1;
#define WFREE_F() do { check(ierr, "win"); w = MPI_Win_f2c(fwin); MPI_Win_free(&w); } while (0)
    TWIN("MPI_Win_create", { MPI_Win_create(buf, sz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &w); MPI_Win_free(&w); },
         { mpi_win_create_(buf, &sz, &du, &finfo, &fw, &fwin, &ierr); WFREE_F(); });
    TWIN("MPI_Win_allocate", { MPI_Win_allocate(sz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w); MPI_Win_free(&w); },
         { mpi_win_allocate_(&sz, &du, &finfo, &fw, &base, &fwin, &ierr); WFREE_F(); });
    TWIN("MPI_Win_allocate/cptr", { MPI_Win_allocate(sz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w); MPI_Win_free(&w); },
         { mpi_win_allocate_cptr_(&sz, &du, &finfo, &fw, &base, &fwin, &ierr); WFREE_F(); });
    TWIN("MPI_Win_allocate_shared",
         { MPI_Win_allocate_shared(sz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w); MPI_Win_free(&w); },
         { mpi_win_allocate_shared_(&sz, &du, &finfo, &fw, &base, &fwin, &ierr); WFREE_F(); });
    TWIN("MPI_Win_allocate_shared/cptr",
         { MPI_Win_allocate_shared(sz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w); MPI_Win_free(&w); },
         { mpi_win_allocate_shared_cptr_(&sz, &du, &finfo, &fw, &base, &fwin, &ierr); WFREE_F(); });
    TWIN("MPI_Win_create_dynamic", { MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w); MPI_Win_free(&w); },
         { mpi_win_create_dynamic_(&finfo, &fw, &fwin, &ierr); WFREE_F(); });

    /* transfers: one window for all, each pair in its own lock epoch */
    MPI_Win_create(rbuf, sz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    fwin = MPI_Win_c2f(w);
#define EPOCH(X) do { MPI_Win_lock(MPI_LOCK_SHARED, target, 0, w); X; MPI_Win_unlock(target, w); } while (0)
    TWIN("MPI_Put", EPOCH(MPI_Put(buf, 2, MPI_INT, target, 1, 2, MPI_INT, w)),
         EPOCH({ mpi_put_(buf, &c2, &fint, &ft, &disp, &c2, &fint, &fwin, &ierr); check(ierr, "put"); }));
    TWIN("MPI_Get", EPOCH(MPI_Get(res, 2, MPI_INT, target, 1, 2, MPI_INT, w)),
         EPOCH({ mpi_get_(res, &c2, &fint, &ft, &disp, &c2, &fint, &fwin, &ierr); check(ierr, "get"); }));
    TWIN("MPI_Accumulate", EPOCH(MPI_Accumulate(buf, 2, MPI_INT, target, 1, 2, MPI_INT, MPI_SUM, w)),
         EPOCH({ mpi_accumulate_(buf, &c2, &fint, &ft, &disp, &c2, &fint, &fsum, &fwin, &ierr);
                 check(ierr, "accumulate"); }));
    TWIN("MPI_Get_accumulate",
         EPOCH(MPI_Get_accumulate(buf, 2, MPI_INT, res, 1, MPI_INT, target, 1, 2, MPI_INT, MPI_SUM, w)),
         EPOCH({ mpi_get_accumulate_(buf, &c2, &fint, res, &c1, &fint, &ft, &disp, &c2, &fint, &fsum, &fwin, &ierr);
                 check(ierr, "get_accumulate"); }));
    TWIN("MPI_Fetch_and_op", EPOCH(MPI_Fetch_and_op(&one, res, MPI_INT, target, 1, MPI_SUM, w)),
         EPOCH({ mpi_fetch_and_op_(&one, res, &fint, &ft, &disp, &fsum, &fwin, &ierr); check(ierr, "fetch_and_op"); }));
    TWIN("MPI_Compare_and_swap", EPOCH(MPI_Compare_and_swap(&one, buf, res, MPI_INT, target, 1, w)),
         EPOCH({ mpi_compare_and_swap_(&one, buf, res, &fint, &ft, &disp, &fwin, &ierr);
                 check(ierr, "compare_and_swap"); }));
    MPI_Win_free(&w);
}

int main(int argc, char **argv)
{
    int i;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (n != 3) {
        if (me == 0)
            fprintf(stderr, "twins: run on 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fw = MPI_Comm_c2f(MPI_COMM_WORLD);
    fint = MPI_Type_c2f(MPI_INT);
    fsum = MPI_Op_c2f(MPI_SUM);
    for (i = 0; i < 64; i++)
        buf[i] = i + 1;
    p2p();
    colls();
    comms();
    wins();
    if (me == 0)
        printf("twins: %d pairs\n", done);
    MPI_Finalize();
    return 0;
}
