/*
 * mpi_f.c - wrappers for Fortran callers of the `use mpi` module and of
 * `include 'mpif.h'`.  Place in the data flow: measurement, the Fortran twin
 * of mpi_c.c; both write through the record functions of upt.h and write the
 * same records for the same call.
 *
 * Why they exist: Open MPI's Fortran bindings (libmpi_mpifh) call the PMPI_
 * C functions directly, so the C wrappers never see a Fortran call.  Each
 * wrapper here takes the place of one of libmpi_mpifh's mpi_xxx_ entry points
 * (we are preloaded, so the program's calls bind to us) and calls its
 * profiling twin pmpi_xxx_ with the caller's arguments unchanged.  Passing
 * them through means the Fortran sentinels (MPI_IN_PLACE, MPI_BOTTOM,
 * MPI_STATUS_IGNORE, ...) need no conversion; we compare addresses with them
 * only where we read a buffer or a status ourselves.
 *
 * Not covered: the mpi_f08 module.  Its bindings (libmpi_usempif08, symbols
 * mpi_send_f08, ...) reach the C library through Open MPI's internal
 * ompi_xxx_f functions, through neither mpi_xxx_ nor MPI_Xxx, so calls made
 * through mpi_f08 are not recorded.
 *
 * Symbols: each wrapper is defined once, lower case with one underscore
 * (gfortran, ifort, flang: `call MPI_SEND` -> mpi_send_), and exported under
 * the other three spellings libmpi_mpifh exports too: mpi_send
 * (-fno-underscoring), mpi_send__ (-fsecond-underscore) and MPI_SEND
 * (upper-case compilers).  The pmpi_xxx_ functions are weak references, so
 * the tracer loads into a C program without libmpi_mpifh; a Fortran caller
 * implies the library that defines them.
 *
 * Records: as mpi_c.c writes them (its header and comments), with Fortran
 * handles converted by MPI_Xxx_f2c.  The completion calls read the C handles
 * of their requests before the call (completion sets the Fortran handle to
 * MPI_REQUEST_NULL) and supply statuses of their own when the caller passed
 * MPI_STATUS(ES)_IGNORE.  Collective byte counts follow mpi_c.c (Score-P's
 * way); an MPI_IN_PLACE buffer counts 0.
 *
 * Threads: the record functions drop calls from threads other than the one
 * that called MPI_Init; the only state kept here, the table of probed
 * messages, is per thread.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "tracer/upt.h"

/* Open MPI's sentinels, defined in libmpi: Fortran's MPI_IN_PLACE,
 * MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE are these common blocks, so the
 * wrappers receive their addresses.  A gfortran program defines the blocks
 * too (nm: B mpi_fortran_in_place_); the dynamic linker binds libmpi's and
 * our references to that one copy, so one address comparison suffices.  Only
 * the one-underscore spelling exists in libmpi, so Open MPI itself, and we,
 * recognise the sentinels of one-underscore compilers only. */
extern MPI_Fint mpi_fortran_in_place_;
extern MPI_Fint mpi_fortran_status_ignore_;
extern MPI_Fint mpi_fortran_statuses_ignore_;

/* Fortran's MPI_STATUS_SIZE: MPI-4 names it MPI_F_STATUS_SIZE; Open MPI 4
 * has no such macro, its Fortran status is the C one seen as integers. */
#ifdef MPI_F_STATUS_SIZE
#define FSTATUS MPI_F_STATUS_SIZE
#else
#define FSTATUS ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#endif

/* FORTRAN(mpi_send, MPI_SEND, (params)) { body } defines mpi_send_ with that
 * body, exports it under the other three spellings, and declares the
 * profiling entry point pmpi_send_ that the body calls. */
#define FORTRAN(lower, UPPER, params)                                          \
    extern void p##lower##_ params __attribute__((weak));                      \
    UPT_EXPORT void lower##_ params;                                           \
    UPT_EXPORT void lower params __attribute__((alias(#lower "_")));           \
    UPT_EXPORT void lower##__ params __attribute__((alias(#lower "_")));       \
    UPT_EXPORT void UPPER params __attribute__((alias(#lower "_")));           \
    UPT_EXPORT void lower##_ params

#define NOROOT OTF2_UNDEFINED_UINT32

/* ---- helpers ------------------------------------------------------------------ */

static bool in_place(const void *buf)
{
    return buf == (const void *)&mpi_fortran_in_place_;
}

/* The caller's status, or `own` when it passed MPI_STATUS_IGNORE. */
static MPI_Fint *status_or(MPI_Fint *status, MPI_Fint *own)
{
    return status == &mpi_fortran_status_ignore_ ? own : status;
}

/* MPI_Comm_f2c gives a null pointer in Open MPI for a handle that names no
 * communicator; asking PMPI about it would invoke an error handler. */
static bool comm_ok(MPI_Comm c)
{
    return c != MPI_COMM_NULL && c != (MPI_Comm)0;
}

static uint32_t comm_id(MPI_Fint comm)
{
    MPI_Comm c = MPI_Comm_f2c(comm);
    return comm_ok(c) ? upt_comm_id(c) : UINT32_MAX;
}

static int comm_size(MPI_Fint comm)
{
    MPI_Comm c = MPI_Comm_f2c(comm);
    int n = 0;
    if (comm_ok(c) && PMPI_Comm_size(c, &n) != MPI_SUCCESS)
        n = 0;
    return n;
}

static int comm_rank(MPI_Fint comm)
{
    MPI_Comm c = MPI_Comm_f2c(comm);
    int r = -1;
    if (comm_ok(c) && PMPI_Comm_rank(c, &r) != MPI_SUCCESS)
        r = -1;
    return r;
}

static uint64_t fbytes(MPI_Fint count, MPI_Fint type)
{
    return count > 0 ? upt_bytes(count, MPI_Type_f2c(type)) : 0;
}

/* the bytes of n counts of one type */
static uint64_t sum_counts(const MPI_Fint *counts, int n, MPI_Fint type)
{
    uint64_t s = 0;
    int i;
    for (i = 0; i < n; i++)
        s += fbytes(counts[i], type);
    return s;
}

/* MpiSend of a blocking send, written before the call */
static void send_record(MPI_Fint dest, MPI_Fint tag, uint32_t comm, MPI_Fint count,
                        MPI_Fint type)
{
    if (dest != MPI_PROC_NULL)
        upt_send((uint32_t)dest, comm, (uint32_t)tag, fbytes(count, type));
}

/* MpiRecv of a finished receive, from its Fortran status; nothing for a
 * receive from MPI_PROC_NULL.  wildcard: upt_wildcard() of its source and
 * tag (Open MPI's Fortran MPI_ANY_SOURCE and MPI_ANY_TAG are C's). */
static void recv_record(const MPI_Fint *fst, uint32_t comm, unsigned wildcard)
{
    MPI_Status st;
    int n = 0;
    if (PMPI_Status_f2c(fst, &st) != MPI_SUCCESS || st.MPI_SOURCE == MPI_PROC_NULL)
        return;
    if (PMPI_Get_count(&st, MPI_BYTE, &n) != MPI_SUCCESS)
        n = 0;
    upt_recv((uint32_t)st.MPI_SOURCE, comm, (uint32_t)st.MPI_TAG, n > 0 ? (uint64_t)n : 0,
             wildcard);
}

/* ---- request arrays of the completion calls ---------------------------------- */

enum { NSMALL = 32 };

/* The C handles of the caller's requests, read before the call, and the
 * Fortran statuses the call fills: the caller's, or ours when it passed
 * MPI_STATUS(ES)_IGNORE.  On the stack up to NSMALL requests. */
typedef struct scratch {
    MPI_Request *c;
    MPI_Fint *st;
    void *heap;
    MPI_Request c_small[NSMALL];
    MPI_Fint st_small[NSMALL * FSTATUS];
} scratch;

/* n requests; nst statuses (n, or 1 for Waitany/Testany) of our own if
 * `ignored`.  False when out of memory: the caller then passes the call
 * through with Enter/Leave only. */
static bool scratch_get(scratch *s, int n, const MPI_Fint *freq, MPI_Fint *fst, bool ignored,
                        int nst)
{
    int i;
    s->heap = NULL;
    s->c = s->c_small;
    s->st = ignored ? s->st_small : fst;
    if (n < 0)
        n = 0;
    if (n > NSMALL || (ignored && nst > NSMALL)) {
        size_t nc = (size_t)n * sizeof(MPI_Request);
        size_t ns = ignored ? (size_t)nst * (size_t)FSTATUS * sizeof(MPI_Fint) : 0;
        if (!(s->heap = malloc(nc + ns)))
            return false;
        s->c = s->heap;
        if (ignored)
            s->st = (MPI_Fint *)(void *)((char *)s->heap + nc);
    }
    for (i = 0; i < n; i++)
        s->c[i] = MPI_Request_f2c(freq[i]);
    return true;
}

static void scratch_free(scratch *s)
{
    free(s->heap);
}

/* the i-th Fortran status of an array */
static MPI_Fint *nth(MPI_Fint *st, int i)
{
    return st + (size_t)i * (size_t)FSTATUS;
}

/* Request c completed with Fortran status fst.  in_status: the call returned
 * MPI_ERR_IN_STATUS, and only a status that says MPI_SUCCESS counts. */
static void completed(MPI_Request c, const MPI_Fint *fst, bool in_status)
{
    MPI_Status st;
    if (c == MPI_REQUEST_NULL || PMPI_Status_f2c(fst, &st) != MPI_SUCCESS)
        return;
    if (in_status && st.MPI_ERROR != MPI_SUCCESS)
        return;
    upt_req_completed(c, &st);
}

/* ---- matched probes: message -> communicator --------------------------------- */

/* MPI_Mrecv and MPI_Imrecv do not name the communicator, so Mprobe/Improbe
 * remember it per message, with the probe's wildcard bits.  Few messages
 * are outstanding at once; a full table drops its oldest entry.  An unknown
 * message counts as MPI_COMM_WORLD's, as in mpi_c.c. */
enum { NMSG = 16 };
static _Thread_local struct {
    MPI_Message m;
    uint32_t comm;
    uint8_t wildcard;
    bool used;
} msgs[NMSG];
static _Thread_local unsigned msg_next;

static void msg_put(MPI_Fint fmsg, uint32_t comm, unsigned wildcard)
{
    MPI_Message m = MPI_Message_f2c(fmsg);
    unsigned i, slot;
    if (m == MPI_MESSAGE_NULL || m == MPI_MESSAGE_NO_PROC)
        return;
    for (i = 0; i < NMSG; i++)
        if (!msgs[i].used || msgs[i].m == m)
            break;
    slot = i < NMSG ? i : msg_next++ % NMSG;
    msgs[slot].m = m;
    msgs[slot].comm = comm;
    msgs[slot].wildcard = (uint8_t)wildcard;
    msgs[slot].used = true;
}

static uint32_t msg_take(MPI_Fint fmsg, unsigned *wildcard)
{
    MPI_Message m = MPI_Message_f2c(fmsg);
    unsigned i;
    for (i = 0; i < NMSG; i++)
        if (msgs[i].used && msgs[i].m == m) {
            msgs[i].used = false;
            *wildcard = msgs[i].wildcard;
            return msgs[i].comm;
        }
    *wildcard = 0;
    return UPT_COMM_WORLD;
}

/* ---- life cycle ------------------------------------------------------------------ */

FORTRAN(mpi_init, MPI_INIT, (MPI_Fint *ierr))
{
    uint64_t t = upt_now();
    pmpi_init_(ierr);
    if (*ierr == MPI_SUCCESS)
        upt_init_from(UPT_R_MPI_Init, t);
}

FORTRAN(mpi_init_thread, MPI_INIT_THREAD,
        (MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr))
{
    uint64_t t = upt_now();
    pmpi_init_thread_(required, provided, ierr);
    if (*ierr == MPI_SUCCESS)
        upt_init_from(UPT_R_MPI_Init_thread, t);
}

FORTRAN(mpi_finalize, MPI_FINALIZE, (MPI_Fint *ierr))
{
    upt_finalize(); /* writes Enter and Leave of MPI_Finalize, closes, merges */
    pmpi_finalize_(ierr);
}

FORTRAN(mpi_abort, MPI_ABORT, (MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr))
{
    upt_enter(UPT_R_MPI_Abort);
    upt_abort();
    pmpi_abort_(comm, errorcode, ierr);
}

/* ---- point to point: blocking ------------------------------------------------------ */

typedef void send_fn(void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                     MPI_Fint *);

static void blocking_send(send_fn *f, uint32_t region, void *buf, MPI_Fint *count,
                          MPI_Fint *type, MPI_Fint *dest, MPI_Fint *tag, MPI_Fint *comm,
                          MPI_Fint *ierr)
{
    if (!upt_on) {
        f(buf, count, type, dest, tag, comm, ierr);
        return;
    }
    upt_enter(region);
    send_record(*dest, *tag, comm_id(*comm), *count, *type);
    f(buf, count, type, dest, tag, comm, ierr);
    upt_leave(region);
}

#define SEND_PARAMS                                                                \
    (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest, MPI_Fint *tag,     \
     MPI_Fint *comm, MPI_Fint *ierr)

FORTRAN(mpi_send, MPI_SEND, SEND_PARAMS)
{
    blocking_send(pmpi_send_, UPT_R_MPI_Send, buf, count, type, dest, tag, comm, ierr);
}

FORTRAN(mpi_bsend, MPI_BSEND, SEND_PARAMS)
{
    blocking_send(pmpi_bsend_, UPT_R_MPI_Bsend, buf, count, type, dest, tag, comm, ierr);
}

FORTRAN(mpi_ssend, MPI_SSEND, SEND_PARAMS)
{
    blocking_send(pmpi_ssend_, UPT_R_MPI_Ssend, buf, count, type, dest, tag, comm, ierr);
}

FORTRAN(mpi_rsend, MPI_RSEND, SEND_PARAMS)
{
    blocking_send(pmpi_rsend_, UPT_R_MPI_Rsend, buf, count, type, dest, tag, comm, ierr);
}

FORTRAN(mpi_recv, MPI_RECV,
        (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *source, MPI_Fint *tag,
         MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr))
{
    MPI_Fint own[FSTATUS], *st;
    if (!upt_on) {
        pmpi_recv_(buf, count, type, source, tag, comm, status, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Recv);
    st = status_or(status, own);
    pmpi_recv_(buf, count, type, source, tag, comm, st, ierr);
    if (*ierr == MPI_SUCCESS)
        recv_record(st, comm_id(*comm), upt_wildcard(*source, *tag));
    upt_leave(UPT_R_MPI_Recv);
}

FORTRAN(mpi_sendrecv, MPI_SENDRECV,
        (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, MPI_Fint *dest,
         MPI_Fint *sendtag, void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype,
         MPI_Fint *source, MPI_Fint *recvtag, MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr))
{
    MPI_Fint own[FSTATUS], *st;
    uint32_t c;
    if (!upt_on) {
        pmpi_sendrecv_(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                       source, recvtag, comm, status, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Sendrecv);
    c = comm_id(*comm);
    send_record(*dest, *sendtag, c, *sendcount, *sendtype);
    st = status_or(status, own);
    pmpi_sendrecv_(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                   source, recvtag, comm, st, ierr);
    if (*ierr == MPI_SUCCESS)
        recv_record(st, c, upt_wildcard(*source, *recvtag));
    upt_leave(UPT_R_MPI_Sendrecv);
}

FORTRAN(mpi_sendrecv_replace, MPI_SENDRECV_REPLACE,
        (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest, MPI_Fint *sendtag,
         MPI_Fint *source, MPI_Fint *recvtag, MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr))
{
    MPI_Fint own[FSTATUS], *st;
    uint32_t c;
    if (!upt_on) {
        pmpi_sendrecv_replace_(buf, count, type, dest, sendtag, source, recvtag, comm, status,
                               ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Sendrecv_replace);
    c = comm_id(*comm);
    send_record(*dest, *sendtag, c, *count, *type);
    st = status_or(status, own);
    pmpi_sendrecv_replace_(buf, count, type, dest, sendtag, source, recvtag, comm, st, ierr);
    if (*ierr == MPI_SUCCESS)
        recv_record(st, c, upt_wildcard(*source, *recvtag));
    upt_leave(UPT_R_MPI_Sendrecv_replace);
}

/* ---- probes and matched receives ----------------------------------------------------- */

FORTRAN(mpi_probe, MPI_PROBE,
        (MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr))
{
    if (!upt_on) {
        pmpi_probe_(source, tag, comm, status, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Probe);
    pmpi_probe_(source, tag, comm, status, ierr);
    upt_leave(UPT_R_MPI_Probe);
}

/* flag: a LOGICAL, which Open MPI sets to 0 or 1 (the compiler's .TRUE.) */
FORTRAN(mpi_iprobe, MPI_IPROBE,
        (MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *flag, MPI_Fint *status,
         MPI_Fint *ierr))
{
    if (!upt_on) {
        pmpi_iprobe_(source, tag, comm, flag, status, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Iprobe);
    pmpi_iprobe_(source, tag, comm, flag, status, ierr);
    upt_leave(UPT_R_MPI_Iprobe);
}

FORTRAN(mpi_mprobe, MPI_MPROBE,
        (MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *message, MPI_Fint *status,
         MPI_Fint *ierr))
{
    if (!upt_on) {
        pmpi_mprobe_(source, tag, comm, message, status, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Mprobe);
    pmpi_mprobe_(source, tag, comm, message, status, ierr);
    if (*ierr == MPI_SUCCESS)
        msg_put(*message, comm_id(*comm), upt_wildcard(*source, *tag));
    upt_leave(UPT_R_MPI_Mprobe);
}

FORTRAN(mpi_improbe, MPI_IMPROBE,
        (MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *flag, MPI_Fint *message,
         MPI_Fint *status, MPI_Fint *ierr))
{
    if (!upt_on) {
        pmpi_improbe_(source, tag, comm, flag, message, status, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Improbe);
    pmpi_improbe_(source, tag, comm, flag, message, status, ierr);
    if (*ierr == MPI_SUCCESS && *flag)
        msg_put(*message, comm_id(*comm), upt_wildcard(*source, *tag));
    upt_leave(UPT_R_MPI_Improbe);
}

/* The message handle is read before the call, which sets it to
 * MPI_MESSAGE_NULL. */
FORTRAN(mpi_mrecv, MPI_MRECV,
        (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *message, MPI_Fint *status,
         MPI_Fint *ierr))
{
    MPI_Fint own[FSTATUS], *st;
    uint32_t c;
    unsigned wildcard;
    if (!upt_on) {
        pmpi_mrecv_(buf, count, type, message, status, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Mrecv);
    c = msg_take(*message, &wildcard);
    st = status_or(status, own);
    pmpi_mrecv_(buf, count, type, message, st, ierr);
    if (*ierr == MPI_SUCCESS)
        recv_record(st, c, wildcard);
    upt_leave(UPT_R_MPI_Mrecv);
}

FORTRAN(mpi_imrecv, MPI_IMRECV,
        (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *message, MPI_Fint *request,
         MPI_Fint *ierr))
{
    uint32_t c;
    unsigned wildcard;
    if (!upt_on) {
        pmpi_imrecv_(buf, count, type, message, request, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Imrecv);
    c = msg_take(*message, &wildcard);
    pmpi_imrecv_(buf, count, type, message, request, ierr);
    if (*ierr == MPI_SUCCESS)
        upt_req_irecv(MPI_Request_f2c(*request), c, wildcard);
    upt_leave(UPT_R_MPI_Imrecv);
}

/* ---- point to point: nonblocking and persistent ------------------------------------------ */

typedef void isend_fn(void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                      MPI_Fint *, MPI_Fint *);

/* Isend and its kin; persistent: the *_init calls, which take the same
 * arguments (Recv_init too: peer is its source). */
static void nonblocking(isend_fn *f, uint32_t region, bool persistent, bool send, void *buf,
                        MPI_Fint *count, MPI_Fint *type, MPI_Fint *peer, MPI_Fint *tag,
                        MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    uint64_t id = 0;
    if (!upt_on) {
        f(buf, count, type, peer, tag, comm, request, ierr);
        return;
    }
    upt_enter(region);
    if (!persistent && *peer != MPI_PROC_NULL) /* the send's record before the call */
        id = upt_isend_begin((uint32_t)*peer, comm_id(*comm), (uint32_t)*tag, fbytes(*count, *type));
    f(buf, count, type, peer, tag, comm, request, ierr);
    if (*ierr == MPI_SUCCESS) {
        MPI_Request r = MPI_Request_f2c(*request);
        if (persistent)
            upt_req_persistent(r, send, (uint32_t)*peer, comm_id(*comm), (uint32_t)*tag,
                               fbytes(*count, *type));
        else
            upt_req_isend(r, id);
    }
    upt_leave(region);
}

#define ISEND_PARAMS                                                               \
    (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest, MPI_Fint *tag,     \
     MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)

FORTRAN(mpi_isend, MPI_ISEND, ISEND_PARAMS)
{
    nonblocking(pmpi_isend_, UPT_R_MPI_Isend, false, true, buf, count, type, dest, tag, comm,
                request, ierr);
}

FORTRAN(mpi_ibsend, MPI_IBSEND, ISEND_PARAMS)
{
    nonblocking(pmpi_ibsend_, UPT_R_MPI_Ibsend, false, true, buf, count, type, dest, tag, comm,
                request, ierr);
}

FORTRAN(mpi_issend, MPI_ISSEND, ISEND_PARAMS)
{
    nonblocking(pmpi_issend_, UPT_R_MPI_Issend, false, true, buf, count, type, dest, tag, comm,
                request, ierr);
}

FORTRAN(mpi_irsend, MPI_IRSEND, ISEND_PARAMS)
{
    nonblocking(pmpi_irsend_, UPT_R_MPI_Irsend, false, true, buf, count, type, dest, tag, comm,
                request, ierr);
}

FORTRAN(mpi_send_init, MPI_SEND_INIT, ISEND_PARAMS)
{
    nonblocking(pmpi_send_init_, UPT_R_MPI_Send_init, true, true, buf, count, type, dest, tag,
                comm, request, ierr);
}

FORTRAN(mpi_bsend_init, MPI_BSEND_INIT, ISEND_PARAMS)
{
    nonblocking(pmpi_bsend_init_, UPT_R_MPI_Bsend_init, true, true, buf, count, type, dest, tag,
                comm, request, ierr);
}

FORTRAN(mpi_ssend_init, MPI_SSEND_INIT, ISEND_PARAMS)
{
    nonblocking(pmpi_ssend_init_, UPT_R_MPI_Ssend_init, true, true, buf, count, type, dest, tag,
                comm, request, ierr);
}

FORTRAN(mpi_rsend_init, MPI_RSEND_INIT, ISEND_PARAMS)
{
    nonblocking(pmpi_rsend_init_, UPT_R_MPI_Rsend_init, true, true, buf, count, type, dest, tag,
                comm, request, ierr);
}

FORTRAN(mpi_recv_init, MPI_RECV_INIT,
        (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *source, MPI_Fint *tag,
         MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr))
{
    nonblocking(pmpi_recv_init_, UPT_R_MPI_Recv_init, true, false, buf, count, type, source, tag,
                comm, request, ierr);
}

FORTRAN(mpi_irecv, MPI_IRECV,
        (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *source, MPI_Fint *tag,
         MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr))
{
    if (!upt_on) {
        pmpi_irecv_(buf, count, type, source, tag, comm, request, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Irecv);
    pmpi_irecv_(buf, count, type, source, tag, comm, request, ierr);
    if (*ierr == MPI_SUCCESS && *source != MPI_PROC_NULL)
        upt_req_irecv(MPI_Request_f2c(*request), comm_id(*comm), upt_wildcard(*source, *tag));
    upt_leave(UPT_R_MPI_Irecv);
}

/* Start records the MpiIsend / MpiIrecvRequest before the call, as mpi_c.c. */
FORTRAN(mpi_start, MPI_START, (MPI_Fint *request, MPI_Fint *ierr))
{
    if (!upt_on) {
        pmpi_start_(request, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Start);
    upt_req_start(MPI_Request_f2c(*request));
    pmpi_start_(request, ierr);
    upt_leave(UPT_R_MPI_Start);
}

FORTRAN(mpi_startall, MPI_STARTALL, (MPI_Fint *count, MPI_Fint *requests, MPI_Fint *ierr))
{
    MPI_Fint i;
    if (!upt_on) {
        pmpi_startall_(count, requests, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Startall);
    for (i = 0; i < *count; i++)
        upt_req_start(MPI_Request_f2c(requests[i]));
    pmpi_startall_(count, requests, ierr);
    upt_leave(UPT_R_MPI_Startall);
}

/* ---- completion ------------------------------------------------------------------------- */

FORTRAN(mpi_wait, MPI_WAIT, (MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierr))
{
    MPI_Fint own[FSTATUS], *st;
    MPI_Request before;
    if (!upt_on) {
        pmpi_wait_(request, status, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Wait);
    before = MPI_Request_f2c(*request);
    st = status_or(status, own);
    pmpi_wait_(request, st, ierr);
    if (*ierr == MPI_SUCCESS)
        completed(before, st, false);
    upt_leave(UPT_R_MPI_Wait);
}

FORTRAN(mpi_test, MPI_TEST, (MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr))
{
    MPI_Fint own[FSTATUS], *st;
    MPI_Request before;
    if (!upt_on) {
        pmpi_test_(request, flag, status, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Test);
    before = MPI_Request_f2c(*request);
    st = status_or(status, own);
    pmpi_test_(request, flag, st, ierr);
    if (*ierr == MPI_SUCCESS) {
        if (*flag)
            completed(before, st, false);
        else
            upt_req_tested(before);
    }
    upt_leave(UPT_R_MPI_Test);
}

FORTRAN(mpi_waitall, MPI_WAITALL,
        (MPI_Fint *count, MPI_Fint *requests, MPI_Fint *statuses, MPI_Fint *ierr))
{
    scratch s;
    int i, n = *count;
    if (!upt_on) {
        pmpi_waitall_(count, requests, statuses, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Waitall);
    if (!scratch_get(&s, n, requests, statuses, statuses == &mpi_fortran_statuses_ignore_, n)) {
        pmpi_waitall_(count, requests, statuses, ierr);
    } else {
        pmpi_waitall_(count, requests, s.st, ierr);
        if (*ierr == MPI_SUCCESS || *ierr == MPI_ERR_IN_STATUS)
            for (i = 0; i < n; i++)
                completed(s.c[i], nth(s.st, i), *ierr == MPI_ERR_IN_STATUS);
        scratch_free(&s);
    }
    upt_leave(UPT_R_MPI_Waitall);
}

FORTRAN(mpi_testall, MPI_TESTALL,
        (MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag, MPI_Fint *statuses, MPI_Fint *ierr))
{
    scratch s;
    int i, n = *count;
    if (!upt_on) {
        pmpi_testall_(count, requests, flag, statuses, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Testall);
    if (!scratch_get(&s, n, requests, statuses, statuses == &mpi_fortran_statuses_ignore_, n)) {
        pmpi_testall_(count, requests, flag, statuses, ierr);
    } else {
        pmpi_testall_(count, requests, flag, s.st, ierr);
        for (i = 0; i < n && *ierr == MPI_SUCCESS; i++) {
            if (*flag)
                completed(s.c[i], nth(s.st, i), false);
            else if (s.c[i] != MPI_REQUEST_NULL)
                upt_req_tested(s.c[i]); /* not all complete: none completed */
        }
        scratch_free(&s);
    }
    upt_leave(UPT_R_MPI_Testall);
}

/* Waitany, Testany, Waitsome, Testsome: Fortran indices count from 1. */

FORTRAN(mpi_waitany, MPI_WAITANY,
        (MPI_Fint *count, MPI_Fint *requests, MPI_Fint *idx, MPI_Fint *status, MPI_Fint *ierr))
{
    scratch s;
    int n = *count;
    if (!upt_on) {
        pmpi_waitany_(count, requests, idx, status, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Waitany);
    if (!scratch_get(&s, n, requests, status, status == &mpi_fortran_status_ignore_, 1)) {
        pmpi_waitany_(count, requests, idx, status, ierr);
    } else {
        pmpi_waitany_(count, requests, idx, s.st, ierr);
        if (*ierr == MPI_SUCCESS && *idx != MPI_UNDEFINED && *idx >= 1 && *idx <= n)
            completed(s.c[*idx - 1], s.st, false);
        scratch_free(&s);
    }
    upt_leave(UPT_R_MPI_Waitany);
}

FORTRAN(mpi_testany, MPI_TESTANY,
        (MPI_Fint *count, MPI_Fint *requests, MPI_Fint *idx, MPI_Fint *flag, MPI_Fint *status,
         MPI_Fint *ierr))
{
    scratch s;
    int i, n = *count;
    if (!upt_on) {
        pmpi_testany_(count, requests, idx, flag, status, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Testany);
    if (!scratch_get(&s, n, requests, status, status == &mpi_fortran_status_ignore_, 1)) {
        pmpi_testany_(count, requests, idx, flag, status, ierr);
    } else {
        pmpi_testany_(count, requests, idx, flag, s.st, ierr);
        if (*ierr == MPI_SUCCESS) {
            if (*flag && *idx != MPI_UNDEFINED && *idx >= 1 && *idx <= n)
                completed(s.c[*idx - 1], s.st, false);
            else if (!*flag)
                for (i = 0; i < n; i++)
                    if (s.c[i] != MPI_REQUEST_NULL)
                        upt_req_tested(s.c[i]);
        }
        scratch_free(&s);
    }
    upt_leave(UPT_R_MPI_Testany);
}

/* After Waitsome / Testsome: the completed requests; a Testsome that
 * completed none tested them all. */
static void some_done(scratch *s, int n, MPI_Fint ierr, MPI_Fint outcount,
                      const MPI_Fint *indices, bool test)
{
    int k, i;
    if (ierr != MPI_SUCCESS || outcount == MPI_UNDEFINED)
        return;
    for (k = 0; k < outcount; k++) {
        i = indices[k] - 1;
        if (i >= 0 && i < n)
            completed(s->c[i], nth(s->st, k), false);
    }
    if (test && outcount == 0)
        for (i = 0; i < n; i++)
            if (s->c[i] != MPI_REQUEST_NULL)
                upt_req_tested(s->c[i]);
}

FORTRAN(mpi_waitsome, MPI_WAITSOME,
        (MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices,
         MPI_Fint *statuses, MPI_Fint *ierr))
{
    scratch s;
    int n = *incount;
    if (!upt_on) {
        pmpi_waitsome_(incount, requests, outcount, indices, statuses, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Waitsome);
    if (!scratch_get(&s, n, requests, statuses, statuses == &mpi_fortran_statuses_ignore_, n)) {
        pmpi_waitsome_(incount, requests, outcount, indices, statuses, ierr);
    } else {
        pmpi_waitsome_(incount, requests, outcount, indices, s.st, ierr);
        some_done(&s, n, *ierr, *outcount, indices, false);
        scratch_free(&s);
    }
    upt_leave(UPT_R_MPI_Waitsome);
}

FORTRAN(mpi_testsome, MPI_TESTSOME,
        (MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices,
         MPI_Fint *statuses, MPI_Fint *ierr))
{
    scratch s;
    int n = *incount;
    if (!upt_on) {
        pmpi_testsome_(incount, requests, outcount, indices, statuses, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Testsome);
    if (!scratch_get(&s, n, requests, statuses, statuses == &mpi_fortran_statuses_ignore_, n)) {
        pmpi_testsome_(incount, requests, outcount, indices, statuses, ierr);
    } else {
        pmpi_testsome_(incount, requests, outcount, indices, s.st, ierr);
        some_done(&s, n, *ierr, *outcount, indices, true);
        scratch_free(&s);
    }
    upt_leave(UPT_R_MPI_Testsome);
}

FORTRAN(mpi_request_free, MPI_REQUEST_FREE, (MPI_Fint *request, MPI_Fint *ierr))
{
    if (!upt_on) {
        pmpi_request_free_(request, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Request_free);
    upt_req_freed(MPI_Request_f2c(*request));
    pmpi_request_free_(request, ierr);
    upt_leave(UPT_R_MPI_Request_free);
}

/* Enter/Leave only: the Wait or Test that completes a cancelled request
 * records the cancellation (upt_req_completed reads it from the status). */
FORTRAN(mpi_cancel, MPI_CANCEL, (MPI_Fint *request, MPI_Fint *ierr))
{
    if (!upt_on) {
        pmpi_cancel_(request, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Cancel);
    pmpi_cancel_(request, ierr);
    upt_leave(UPT_R_MPI_Cancel);
}

/* ---- collectives ---------------------------------------------------------------------------
 * Each: Enter, MpiCollectiveBegin, the call, MpiCollectiveEnd, Leave; the byte
 * counts are mpi_c.c's (n: the communicator's size, me: this rank in it).
 * The nonblocking twin of each follows it and counts the same: Enter, the
 * call, NonBlockingCollectiveRequest, Leave (ICOLL_END); the completion call
 * records the rest. */

#define COLL_BEGIN(region)                                                         \
    do {                                                                           \
        upt_enter(region);                                                         \
        upt_coll_begin();                                                          \
    } while (0)

#define COLL_END(region, op, comm, root, sent, received)                           \
    do {                                                                           \
        upt_coll_end(op, comm_id(comm), root, sent, received);                     \
        upt_leave(region);                                                         \
    } while (0)

#define ICOLL_END(region, op, comm, root, sent, received, request, ierr)          \
    do {                                                                           \
        if ((ierr) == MPI_SUCCESS)                                                 \
            upt_req_icoll(MPI_Request_f2c(request), op, comm_id(comm), root, sent,  \
                          received);                                               \
        upt_leave(region);                                                         \
    } while (0)

FORTRAN(mpi_barrier, MPI_BARRIER, (MPI_Fint *comm, MPI_Fint *ierr))
{
    if (!upt_on) {
        pmpi_barrier_(comm, ierr);
        return;
    }
    COLL_BEGIN(UPT_R_MPI_Barrier);
    pmpi_barrier_(comm, ierr);
    COLL_END(UPT_R_MPI_Barrier, OTF2_COLLECTIVE_OP_BARRIER, *comm, NOROOT, 0, 0);
}

FORTRAN(mpi_ibarrier, MPI_IBARRIER, (MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr))
{
    if (!upt_on) {
        pmpi_ibarrier_(comm, request, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Ibarrier);
    pmpi_ibarrier_(comm, request, ierr);
    ICOLL_END(UPT_R_MPI_Ibarrier, OTF2_COLLECTIVE_OP_BARRIER, *comm, NOROOT, 0, 0, *request,
              *ierr);
}

/* root sends b to each other rank: b*(n-1); the others receive b */
FORTRAN(mpi_bcast, MPI_BCAST,
        (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root, MPI_Fint *comm,
         MPI_Fint *ierr))
{
    uint64_t b;
    int n;
    bool me;
    if (!upt_on) {
        pmpi_bcast_(buf, count, type, root, comm, ierr);
        return;
    }
    b = fbytes(*count, *type);
    n = comm_size(*comm);
    me = comm_rank(*comm) == *root;
    COLL_BEGIN(UPT_R_MPI_Bcast);
    pmpi_bcast_(buf, count, type, root, comm, ierr);
    COLL_END(UPT_R_MPI_Bcast, OTF2_COLLECTIVE_OP_BCAST, *comm, (uint32_t)*root,
             me && n > 0 ? b * (uint64_t)(n - 1) : 0, me ? 0 : b);
}

FORTRAN(mpi_ibcast, MPI_IBCAST,
        (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root, MPI_Fint *comm,
         MPI_Fint *request, MPI_Fint *ierr))
{
    uint64_t b;
    int n;
    bool me;
    if (!upt_on) {
        pmpi_ibcast_(buf, count, type, root, comm, request, ierr);
        return;
    }
    b = fbytes(*count, *type);
    n = comm_size(*comm);
    me = comm_rank(*comm) == *root;
    upt_enter(UPT_R_MPI_Ibcast);
    pmpi_ibcast_(buf, count, type, root, comm, request, ierr);
    ICOLL_END(UPT_R_MPI_Ibcast, OTF2_COLLECTIVE_OP_BCAST, *comm, (uint32_t)*root,
              me && n > 0 ? b * (uint64_t)(n - 1) : 0, me ? 0 : b, *request, *ierr);
}

FORTRAN(mpi_gather, MPI_GATHER,
        (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
         MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr))
{
    uint64_t s, r = 0;
    if (!upt_on) {
        pmpi_gather_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr);
        return;
    }
    s = in_place(sendbuf) ? 0 : fbytes(*sendcount, *sendtype);
    if (comm_rank(*comm) == *root)
        r = fbytes(*recvcount, *recvtype) * (uint64_t)comm_size(*comm);
    COLL_BEGIN(UPT_R_MPI_Gather);
    pmpi_gather_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr);
    COLL_END(UPT_R_MPI_Gather, OTF2_COLLECTIVE_OP_GATHER, *comm, (uint32_t)*root, s, r);
}

FORTRAN(mpi_igather, MPI_IGATHER,
        (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
         MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm,
         MPI_Fint *request, MPI_Fint *ierr))
{
    uint64_t s, r = 0;
    if (!upt_on) {
        pmpi_igather_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                      request, ierr);
        return;
    }
    s = in_place(sendbuf) ? 0 : fbytes(*sendcount, *sendtype);
    if (comm_rank(*comm) == *root)
        r = fbytes(*recvcount, *recvtype) * (uint64_t)comm_size(*comm);
    upt_enter(UPT_R_MPI_Igather);
    pmpi_igather_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request,
                  ierr);
    ICOLL_END(UPT_R_MPI_Igather, OTF2_COLLECTIVE_OP_GATHER, *comm, (uint32_t)*root, s, r,
              *request, *ierr);
}

FORTRAN(mpi_gatherv, MPI_GATHERV,
        (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
         MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *root,
         MPI_Fint *comm, MPI_Fint *ierr))
{
    uint64_t s, r = 0;
    if (!upt_on) {
        pmpi_gatherv_(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                      comm, ierr);
        return;
    }
    s = in_place(sendbuf) ? 0 : fbytes(*sendcount, *sendtype);
    if (comm_rank(*comm) == *root)
        r = sum_counts(recvcounts, comm_size(*comm), *recvtype);
    COLL_BEGIN(UPT_R_MPI_Gatherv);
    pmpi_gatherv_(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
                  ierr);
    COLL_END(UPT_R_MPI_Gatherv, OTF2_COLLECTIVE_OP_GATHERV, *comm, (uint32_t)*root, s, r);
}

FORTRAN(mpi_igatherv, MPI_IGATHERV,
        (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
         MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *root,
         MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr))
{
    uint64_t s, r = 0;
    if (!upt_on) {
        pmpi_igatherv_(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                       comm, request, ierr);
        return;
    }
    s = in_place(sendbuf) ? 0 : fbytes(*sendcount, *sendtype);
    if (comm_rank(*comm) == *root)
        r = sum_counts(recvcounts, comm_size(*comm), *recvtype);
    upt_enter(UPT_R_MPI_Igatherv);
    pmpi_igatherv_(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
                   request, ierr);
    ICOLL_END(UPT_R_MPI_Igatherv, OTF2_COLLECTIVE_OP_GATHERV, *comm, (uint32_t)*root, s, r,
              *request, *ierr);
}

FORTRAN(mpi_scatter, MPI_SCATTER,
        (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
         MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr))
{
    uint64_t s = 0, r;
    if (!upt_on) {
        pmpi_scatter_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                      ierr);
        return;
    }
    if (comm_rank(*comm) == *root)
        s = fbytes(*sendcount, *sendtype) * (uint64_t)comm_size(*comm);
    r = in_place(recvbuf) ? 0 : fbytes(*recvcount, *recvtype);
    COLL_BEGIN(UPT_R_MPI_Scatter);
    pmpi_scatter_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr);
    COLL_END(UPT_R_MPI_Scatter, OTF2_COLLECTIVE_OP_SCATTER, *comm, (uint32_t)*root, s, r);
}

FORTRAN(mpi_iscatter, MPI_ISCATTER,
        (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
         MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm,
         MPI_Fint *request, MPI_Fint *ierr))
{
    uint64_t s = 0, r;
    if (!upt_on) {
        pmpi_iscatter_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                       request, ierr);
        return;
    }
    if (comm_rank(*comm) == *root)
        s = fbytes(*sendcount, *sendtype) * (uint64_t)comm_size(*comm);
    r = in_place(recvbuf) ? 0 : fbytes(*recvcount, *recvtype);
    upt_enter(UPT_R_MPI_Iscatter);
    pmpi_iscatter_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                   request, ierr);
    ICOLL_END(UPT_R_MPI_Iscatter, OTF2_COLLECTIVE_OP_SCATTER, *comm, (uint32_t)*root, s, r,
              *request, *ierr);
}

FORTRAN(mpi_scatterv, MPI_SCATTERV,
        (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *displs, MPI_Fint *sendtype,
         void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm,
         MPI_Fint *ierr))
{
    uint64_t s = 0, r;
    if (!upt_on) {
        pmpi_scatterv_(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                       comm, ierr);
        return;
    }
    if (comm_rank(*comm) == *root)
        s = sum_counts(sendcounts, comm_size(*comm), *sendtype);
    r = in_place(recvbuf) ? 0 : fbytes(*recvcount, *recvtype);
    COLL_BEGIN(UPT_R_MPI_Scatterv);
    pmpi_scatterv_(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                   comm, ierr);
    COLL_END(UPT_R_MPI_Scatterv, OTF2_COLLECTIVE_OP_SCATTERV, *comm, (uint32_t)*root, s, r);
}

FORTRAN(mpi_iscatterv, MPI_ISCATTERV,
        (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *displs, MPI_Fint *sendtype,
         void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm,
         MPI_Fint *request, MPI_Fint *ierr))
{
    uint64_t s = 0, r;
    if (!upt_on) {
        pmpi_iscatterv_(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                        comm, request, ierr);
        return;
    }
    if (comm_rank(*comm) == *root)
        s = sum_counts(sendcounts, comm_size(*comm), *sendtype);
    r = in_place(recvbuf) ? 0 : fbytes(*recvcount, *recvtype);
    upt_enter(UPT_R_MPI_Iscatterv);
    pmpi_iscatterv_(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                    comm, request, ierr);
    ICOLL_END(UPT_R_MPI_Iscatterv, OTF2_COLLECTIVE_OP_SCATTERV, *comm, (uint32_t)*root, s, r,
              *request, *ierr);
}

/* each rank's block goes to all n: sb*n */
FORTRAN(mpi_allgather, MPI_ALLGATHER,
        (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
         MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr))
{
    uint64_t n, s, r;
    if (!upt_on) {
        pmpi_allgather_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr);
        return;
    }
    n = (uint64_t)comm_size(*comm);
    s = in_place(sendbuf) ? 0 : fbytes(*sendcount, *sendtype) * n;
    r = fbytes(*recvcount, *recvtype) * n;
    COLL_BEGIN(UPT_R_MPI_Allgather);
    pmpi_allgather_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr);
    COLL_END(UPT_R_MPI_Allgather, OTF2_COLLECTIVE_OP_ALLGATHER, *comm, NOROOT, s, r);
}

FORTRAN(mpi_iallgather, MPI_IALLGATHER,
        (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
         MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request,
         MPI_Fint *ierr))
{
    uint64_t n, s, r;
    if (!upt_on) {
        pmpi_iallgather_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request,
                         ierr);
        return;
    }
    n = (uint64_t)comm_size(*comm);
    s = in_place(sendbuf) ? 0 : fbytes(*sendcount, *sendtype) * n;
    r = fbytes(*recvcount, *recvtype) * n;
    upt_enter(UPT_R_MPI_Iallgather);
    pmpi_iallgather_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request,
                     ierr);
    ICOLL_END(UPT_R_MPI_Iallgather, OTF2_COLLECTIVE_OP_ALLGATHER, *comm, NOROOT, s, r, *request,
              *ierr);
}

FORTRAN(mpi_allgatherv, MPI_ALLGATHERV,
        (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
         MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm,
         MPI_Fint *ierr))
{
    int n;
    uint64_t s, r;
    if (!upt_on) {
        pmpi_allgatherv_(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                         ierr);
        return;
    }
    n = comm_size(*comm);
    s = in_place(sendbuf) ? 0 : fbytes(*sendcount, *sendtype) * (uint64_t)n;
    r = sum_counts(recvcounts, n, *recvtype);
    COLL_BEGIN(UPT_R_MPI_Allgatherv);
    pmpi_allgatherv_(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                     ierr);
    COLL_END(UPT_R_MPI_Allgatherv, OTF2_COLLECTIVE_OP_ALLGATHERV, *comm, NOROOT, s, r);
}

FORTRAN(mpi_iallgatherv, MPI_IALLGATHERV,
        (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
         MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm,
         MPI_Fint *request, MPI_Fint *ierr))
{
    int n;
    uint64_t s, r;
    if (!upt_on) {
        pmpi_iallgatherv_(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                          comm, request, ierr);
        return;
    }
    n = comm_size(*comm);
    s = in_place(sendbuf) ? 0 : fbytes(*sendcount, *sendtype) * (uint64_t)n;
    r = sum_counts(recvcounts, n, *recvtype);
    upt_enter(UPT_R_MPI_Iallgatherv);
    pmpi_iallgatherv_(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                      request, ierr);
    ICOLL_END(UPT_R_MPI_Iallgatherv, OTF2_COLLECTIVE_OP_ALLGATHERV, *comm, NOROOT, s, r, *request,
              *ierr);
}

FORTRAN(mpi_alltoall, MPI_ALLTOALL,
        (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
         MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr))
{
    uint64_t n, s, r;
    if (!upt_on) {
        pmpi_alltoall_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr);
        return;
    }
    n = (uint64_t)comm_size(*comm);
    s = in_place(sendbuf) ? 0 : fbytes(*sendcount, *sendtype) * n;
    r = fbytes(*recvcount, *recvtype) * n;
    COLL_BEGIN(UPT_R_MPI_Alltoall);
    pmpi_alltoall_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr);
    COLL_END(UPT_R_MPI_Alltoall, OTF2_COLLECTIVE_OP_ALLTOALL, *comm, NOROOT, s, r);
}

FORTRAN(mpi_ialltoall, MPI_IALLTOALL,
        (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
         MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request,
         MPI_Fint *ierr))
{
    uint64_t n, s, r;
    if (!upt_on) {
        pmpi_ialltoall_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request,
                        ierr);
        return;
    }
    n = (uint64_t)comm_size(*comm);
    s = in_place(sendbuf) ? 0 : fbytes(*sendcount, *sendtype) * n;
    r = fbytes(*recvcount, *recvtype) * n;
    upt_enter(UPT_R_MPI_Ialltoall);
    pmpi_ialltoall_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request,
                    ierr);
    ICOLL_END(UPT_R_MPI_Ialltoall, OTF2_COLLECTIVE_OP_ALLTOALL, *comm, NOROOT, s, r, *request,
              *ierr);
}

FORTRAN(mpi_alltoallv, MPI_ALLTOALLV,
        (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype,
         void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype,
         MPI_Fint *comm, MPI_Fint *ierr))
{
    int n;
    uint64_t s, r;
    if (!upt_on) {
        pmpi_alltoallv_(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                        recvtype, comm, ierr);
        return;
    }
    n = comm_size(*comm);
    s = in_place(sendbuf) ? 0 : sum_counts(sendcounts, n, *sendtype);
    r = sum_counts(recvcounts, n, *recvtype);
    COLL_BEGIN(UPT_R_MPI_Alltoallv);
    pmpi_alltoallv_(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                    recvtype, comm, ierr);
    COLL_END(UPT_R_MPI_Alltoallv, OTF2_COLLECTIVE_OP_ALLTOALLV, *comm, NOROOT, s, r);
}

FORTRAN(mpi_ialltoallv, MPI_IALLTOALLV,
        (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype,
         void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype,
         MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr))
{
    int n;
    uint64_t s, r;
    if (!upt_on) {
        pmpi_ialltoallv_(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                         recvtype, comm, request, ierr);
        return;
    }
    n = comm_size(*comm);
    s = in_place(sendbuf) ? 0 : sum_counts(sendcounts, n, *sendtype);
    r = sum_counts(recvcounts, n, *recvtype);
    upt_enter(UPT_R_MPI_Ialltoallv);
    pmpi_ialltoallv_(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                     recvtype, comm, request, ierr);
    ICOLL_END(UPT_R_MPI_Ialltoallv, OTF2_COLLECTIVE_OP_ALLTOALLV, *comm, NOROOT, s, r, *request,
              *ierr);
}

FORTRAN(mpi_alltoallw, MPI_ALLTOALLW,
        (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtypes,
         void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtypes,
         MPI_Fint *comm, MPI_Fint *ierr))
{
    int i, n;
    uint64_t s = 0, r = 0;
    if (!upt_on) {
        pmpi_alltoallw_(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                        recvtypes, comm, ierr);
        return;
    }
    n = comm_size(*comm);
    for (i = 0; i < n; i++) {
        if (!in_place(sendbuf))
            s += fbytes(sendcounts[i], sendtypes[i]);
        r += fbytes(recvcounts[i], recvtypes[i]);
    }
    COLL_BEGIN(UPT_R_MPI_Alltoallw);
    pmpi_alltoallw_(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                    recvtypes, comm, ierr);
    COLL_END(UPT_R_MPI_Alltoallw, OTF2_COLLECTIVE_OP_ALLTOALLW, *comm, NOROOT, s, r);
}

FORTRAN(mpi_ialltoallw, MPI_IALLTOALLW,
        (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtypes,
         void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtypes,
         MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr))
{
    int i, n;
    uint64_t s = 0, r = 0;
    if (!upt_on) {
        pmpi_ialltoallw_(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                         recvtypes, comm, request, ierr);
        return;
    }
    n = comm_size(*comm);
    for (i = 0; i < n; i++) {
        if (!in_place(sendbuf))
            s += fbytes(sendcounts[i], sendtypes[i]);
        r += fbytes(recvcounts[i], recvtypes[i]);
    }
    upt_enter(UPT_R_MPI_Ialltoallw);
    pmpi_ialltoallw_(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                     recvtypes, comm, request, ierr);
    ICOLL_END(UPT_R_MPI_Ialltoallw, OTF2_COLLECTIVE_OP_ALLTOALLW, *comm, NOROOT, s, r, *request,
              *ierr);
}

/* the root receives every rank's b: b*n */
FORTRAN(mpi_reduce, MPI_REDUCE,
        (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
         MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr))
{
    uint64_t b, r = 0;
    if (!upt_on) {
        pmpi_reduce_(sendbuf, recvbuf, count, type, op, root, comm, ierr);
        return;
    }
    b = fbytes(*count, *type);
    if (comm_rank(*comm) == *root)
        r = b * (uint64_t)comm_size(*comm);
    COLL_BEGIN(UPT_R_MPI_Reduce);
    pmpi_reduce_(sendbuf, recvbuf, count, type, op, root, comm, ierr);
    COLL_END(UPT_R_MPI_Reduce, OTF2_COLLECTIVE_OP_REDUCE, *comm, (uint32_t)*root,
             in_place(sendbuf) ? 0 : b, r);
}

FORTRAN(mpi_ireduce, MPI_IREDUCE,
        (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
         MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr))
{
    uint64_t b, r = 0;
    if (!upt_on) {
        pmpi_ireduce_(sendbuf, recvbuf, count, type, op, root, comm, request, ierr);
        return;
    }
    b = fbytes(*count, *type);
    if (comm_rank(*comm) == *root)
        r = b * (uint64_t)comm_size(*comm);
    upt_enter(UPT_R_MPI_Ireduce);
    pmpi_ireduce_(sendbuf, recvbuf, count, type, op, root, comm, request, ierr);
    ICOLL_END(UPT_R_MPI_Ireduce, OTF2_COLLECTIVE_OP_REDUCE, *comm, (uint32_t)*root,
              in_place(sendbuf) ? 0 : b, r, *request, *ierr);
}

/* b*n each way (the in-place send side 0) */
FORTRAN(mpi_allreduce, MPI_ALLREDUCE,
        (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
         MPI_Fint *comm, MPI_Fint *ierr))
{
    uint64_t b;
    if (!upt_on) {
        pmpi_allreduce_(sendbuf, recvbuf, count, type, op, comm, ierr);
        return;
    }
    b = fbytes(*count, *type) * (uint64_t)comm_size(*comm);
    COLL_BEGIN(UPT_R_MPI_Allreduce);
    pmpi_allreduce_(sendbuf, recvbuf, count, type, op, comm, ierr);
    COLL_END(UPT_R_MPI_Allreduce, OTF2_COLLECTIVE_OP_ALLREDUCE, *comm, NOROOT,
             in_place(sendbuf) ? 0 : b, b);
}

FORTRAN(mpi_iallreduce, MPI_IALLREDUCE,
        (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
         MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr))
{
    uint64_t b;
    if (!upt_on) {
        pmpi_iallreduce_(sendbuf, recvbuf, count, type, op, comm, request, ierr);
        return;
    }
    b = fbytes(*count, *type) * (uint64_t)comm_size(*comm);
    upt_enter(UPT_R_MPI_Iallreduce);
    pmpi_iallreduce_(sendbuf, recvbuf, count, type, op, comm, request, ierr);
    ICOLL_END(UPT_R_MPI_Iallreduce, OTF2_COLLECTIVE_OP_ALLREDUCE, *comm, NOROOT,
              in_place(sendbuf) ? 0 : b, b, *request, *ierr);
}

/* sent: the whole send buffer; received: this rank's block times n */
FORTRAN(mpi_reduce_scatter, MPI_REDUCE_SCATTER,
        (void *sendbuf, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *type, MPI_Fint *op,
         MPI_Fint *comm, MPI_Fint *ierr))
{
    int n, me;
    uint64_t s, r = 0;
    if (!upt_on) {
        pmpi_reduce_scatter_(sendbuf, recvbuf, recvcounts, type, op, comm, ierr);
        return;
    }
    n = comm_size(*comm);
    me = comm_rank(*comm);
    s = in_place(sendbuf) ? 0 : sum_counts(recvcounts, n, *type);
    if (me >= 0 && me < n)
        r = fbytes(recvcounts[me], *type) * (uint64_t)n;
    COLL_BEGIN(UPT_R_MPI_Reduce_scatter);
    pmpi_reduce_scatter_(sendbuf, recvbuf, recvcounts, type, op, comm, ierr);
    COLL_END(UPT_R_MPI_Reduce_scatter, OTF2_COLLECTIVE_OP_REDUCE_SCATTER, *comm, NOROOT, s, r);
}

FORTRAN(mpi_ireduce_scatter, MPI_IREDUCE_SCATTER,
        (void *sendbuf, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *type, MPI_Fint *op,
         MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr))
{
    int n, me;
    uint64_t s, r = 0;
    if (!upt_on) {
        pmpi_ireduce_scatter_(sendbuf, recvbuf, recvcounts, type, op, comm, request, ierr);
        return;
    }
    n = comm_size(*comm);
    me = comm_rank(*comm);
    s = in_place(sendbuf) ? 0 : sum_counts(recvcounts, n, *type);
    if (me >= 0 && me < n)
        r = fbytes(recvcounts[me], *type) * (uint64_t)n;
    upt_enter(UPT_R_MPI_Ireduce_scatter);
    pmpi_ireduce_scatter_(sendbuf, recvbuf, recvcounts, type, op, comm, request, ierr);
    ICOLL_END(UPT_R_MPI_Ireduce_scatter, OTF2_COLLECTIVE_OP_REDUCE_SCATTER, *comm, NOROOT, s, r,
              *request, *ierr);
}

FORTRAN(mpi_reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK,
        (void *sendbuf, void *recvbuf, MPI_Fint *recvcount, MPI_Fint *type, MPI_Fint *op,
         MPI_Fint *comm, MPI_Fint *ierr))
{
    uint64_t b;
    if (!upt_on) {
        pmpi_reduce_scatter_block_(sendbuf, recvbuf, recvcount, type, op, comm, ierr);
        return;
    }
    b = fbytes(*recvcount, *type) * (uint64_t)comm_size(*comm);
    COLL_BEGIN(UPT_R_MPI_Reduce_scatter_block);
    pmpi_reduce_scatter_block_(sendbuf, recvbuf, recvcount, type, op, comm, ierr);
    COLL_END(UPT_R_MPI_Reduce_scatter_block, OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, *comm,
             NOROOT, in_place(sendbuf) ? 0 : b, b);
}

FORTRAN(mpi_ireduce_scatter_block, MPI_IREDUCE_SCATTER_BLOCK,
        (void *sendbuf, void *recvbuf, MPI_Fint *recvcount, MPI_Fint *type, MPI_Fint *op,
         MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr))
{
    uint64_t b;
    if (!upt_on) {
        pmpi_ireduce_scatter_block_(sendbuf, recvbuf, recvcount, type, op, comm, request, ierr);
        return;
    }
    b = fbytes(*recvcount, *type) * (uint64_t)comm_size(*comm);
    upt_enter(UPT_R_MPI_Ireduce_scatter_block);
    pmpi_ireduce_scatter_block_(sendbuf, recvbuf, recvcount, type, op, comm, request, ierr);
    ICOLL_END(UPT_R_MPI_Ireduce_scatter_block, OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, *comm,
              NOROOT, in_place(sendbuf) ? 0 : b, b, *request, *ierr);
}

/* Scan: rank me's b goes to the n-me ranks from me on, and it gets the b of
 * me+1 ranks; Exscan: one fewer each way. */
typedef void scan_fn(void *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                     MPI_Fint *);

static void scan(scan_fn *f, uint32_t region, OTF2_CollectiveOp op, int exclusive, void *sendbuf,
                 void *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *rop, MPI_Fint *comm,
                 MPI_Fint *ierr)
{
    uint64_t b;
    int n, me;
    if (!upt_on) {
        f(sendbuf, recvbuf, count, type, rop, comm, ierr);
        return;
    }
    b = fbytes(*count, *type);
    n = comm_size(*comm);
    me = comm_rank(*comm);
    if (me < 0 || me >= n)
        n = me = 0;
    COLL_BEGIN(region);
    f(sendbuf, recvbuf, count, type, rop, comm, ierr);
    COLL_END(region, op, *comm, NOROOT, in_place(sendbuf) ? 0 : b * (uint64_t)(n - me - exclusive),
             b * (uint64_t)(me + 1 - exclusive));
}

FORTRAN(mpi_scan, MPI_SCAN,
        (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
         MPI_Fint *comm, MPI_Fint *ierr))
{
    scan(pmpi_scan_, UPT_R_MPI_Scan, OTF2_COLLECTIVE_OP_SCAN, 0, sendbuf, recvbuf, count, type, op,
         comm, ierr);
}

FORTRAN(mpi_exscan, MPI_EXSCAN,
        (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
         MPI_Fint *comm, MPI_Fint *ierr))
{
    scan(pmpi_exscan_, UPT_R_MPI_Exscan, OTF2_COLLECTIVE_OP_EXSCAN, 1, sendbuf, recvbuf, count,
         type, op, comm, ierr);
}

typedef void iscan_fn(void *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                      MPI_Fint *, MPI_Fint *);

static void iscan(iscan_fn *f, uint32_t region, OTF2_CollectiveOp op, int exclusive,
                  void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *rop,
                  MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    uint64_t b;
    int n, me;
    if (!upt_on) {
        f(sendbuf, recvbuf, count, type, rop, comm, request, ierr);
        return;
    }
    b = fbytes(*count, *type);
    n = comm_size(*comm);
    me = comm_rank(*comm);
    if (me < 0 || me >= n)
        n = me = 0;
    upt_enter(region);
    f(sendbuf, recvbuf, count, type, rop, comm, request, ierr);
    ICOLL_END(region, op, *comm, NOROOT, in_place(sendbuf) ? 0 : b * (uint64_t)(n - me - exclusive),
              b * (uint64_t)(me + 1 - exclusive), *request, *ierr);
}

FORTRAN(mpi_iscan, MPI_ISCAN,
        (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
         MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr))
{
    iscan(pmpi_iscan_, UPT_R_MPI_Iscan, OTF2_COLLECTIVE_OP_SCAN, 0, sendbuf, recvbuf, count, type,
          op, comm, request, ierr);
}

FORTRAN(mpi_iexscan, MPI_IEXSCAN,
        (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
         MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr))
{
    iscan(pmpi_iexscan_, UPT_R_MPI_Iexscan, OTF2_COLLECTIVE_OP_EXSCAN, 1, sendbuf, recvbuf, count,
          type, op, comm, request, ierr);
}

/* ---- communicators ---------------------------------------------------------------------------
 * Creation is collective over the parent's members: a collective
 * CREATE_HANDLE on the parent (as mpi_c.c, and Score-P), the new communicator
 * registered before its end. */

static void comm_new_end(uint32_t region, MPI_Fint ierr, MPI_Fint parent, MPI_Fint newcomm)
{
    if (ierr == MPI_SUCCESS) {
        MPI_Comm c = MPI_Comm_f2c(newcomm);
        if (comm_ok(c))
            upt_comm_created(c);
    }
    COLL_END(region, OTF2_COLLECTIVE_OP_CREATE_HANDLE, parent, NOROOT, 0, 0);
}

FORTRAN(mpi_comm_split, MPI_COMM_SPLIT,
        (MPI_Fint *comm, MPI_Fint *color, MPI_Fint *key, MPI_Fint *newcomm, MPI_Fint *ierr))
{
    if (!upt_on) {
        pmpi_comm_split_(comm, color, key, newcomm, ierr);
        return;
    }
    COLL_BEGIN(UPT_R_MPI_Comm_split);
    pmpi_comm_split_(comm, color, key, newcomm, ierr);
    comm_new_end(UPT_R_MPI_Comm_split, *ierr, *comm, *newcomm);
}

FORTRAN(mpi_comm_dup, MPI_COMM_DUP, (MPI_Fint *comm, MPI_Fint *newcomm, MPI_Fint *ierr))
{
    if (!upt_on) {
        pmpi_comm_dup_(comm, newcomm, ierr);
        return;
    }
    COLL_BEGIN(UPT_R_MPI_Comm_dup);
    pmpi_comm_dup_(comm, newcomm, ierr);
    comm_new_end(UPT_R_MPI_Comm_dup, *ierr, *comm, *newcomm);
}

FORTRAN(mpi_comm_create, MPI_COMM_CREATE,
        (MPI_Fint *comm, MPI_Fint *group, MPI_Fint *newcomm, MPI_Fint *ierr))
{
    if (!upt_on) {
        pmpi_comm_create_(comm, group, newcomm, ierr);
        return;
    }
    COLL_BEGIN(UPT_R_MPI_Comm_create);
    pmpi_comm_create_(comm, group, newcomm, ierr);
    comm_new_end(UPT_R_MPI_Comm_create, *ierr, *comm, *newcomm);
}

FORTRAN(mpi_comm_split_type, MPI_COMM_SPLIT_TYPE,
        (MPI_Fint *comm, MPI_Fint *split_type, MPI_Fint *key, MPI_Fint *info, MPI_Fint *newcomm,
         MPI_Fint *ierr))
{
    if (!upt_on) {
        pmpi_comm_split_type_(comm, split_type, key, info, newcomm, ierr);
        return;
    }
    COLL_BEGIN(UPT_R_MPI_Comm_split_type);
    pmpi_comm_split_type_(comm, split_type, key, info, newcomm, ierr);
    comm_new_end(UPT_R_MPI_Comm_split_type, *ierr, *comm, *newcomm);
}

/* periods and reorder are LOGICALs: passed through, never read */
FORTRAN(mpi_cart_create, MPI_CART_CREATE,
        (MPI_Fint *comm_old, MPI_Fint *ndims, MPI_Fint *dims, MPI_Fint *periods,
         MPI_Fint *reorder, MPI_Fint *comm_cart, MPI_Fint *ierr))
{
    if (!upt_on) {
        pmpi_cart_create_(comm_old, ndims, dims, periods, reorder, comm_cart, ierr);
        return;
    }
    COLL_BEGIN(UPT_R_MPI_Cart_create);
    pmpi_cart_create_(comm_old, ndims, dims, periods, reorder, comm_cart, ierr);
    comm_new_end(UPT_R_MPI_Cart_create, *ierr, *comm_old, *comm_cart);
}

FORTRAN(mpi_comm_free, MPI_COMM_FREE, (MPI_Fint *comm, MPI_Fint *ierr))
{
    MPI_Comm c;
    if (!upt_on) {
        pmpi_comm_free_(comm, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Comm_free);
    c = MPI_Comm_f2c(*comm);
    if (comm_ok(c))
        upt_comm_freed(c);
    pmpi_comm_free_(comm, ierr);
    upt_leave(UPT_R_MPI_Comm_free);
}

/* ---- one-sided communication ------------------------------------------------------------------
 * The records of mpi_c.c (and its bookkeeping of windows, epochs and open
 * transfers), with handles converted by MPI_Win_f2c, MPI_Comm_f2c and
 * MPI_Group_f2c.  Window sizes and target displacements are
 * INTEGER(KIND=MPI_ADDRESS_KIND), MPI_Aint here; they are passed through.
 * As in mpi_c.c, only the thread that records keeps windows. */

/* the end of a window's creation: the window, if made, then the Leave */
static void win_new_end(uint32_t region, MPI_Fint ierr, MPI_Fint comm, MPI_Fint win,
                        bool allocated)
{
    MPI_Comm c = MPI_Comm_f2c(comm);
    upt_win_create_end(ierr == MPI_SUCCESS ? MPI_Win_f2c(win) : MPI_WIN_NULL,
                       comm_ok(c) ? c : MPI_COMM_NULL, region, allocated);
    upt_leave(region);
}

FORTRAN(mpi_win_create, MPI_WIN_CREATE,
        (void *base, MPI_Aint *size, MPI_Fint *disp_unit, MPI_Fint *info, MPI_Fint *comm,
         MPI_Fint *win, MPI_Fint *ierr))
{
    if (!upt_recording()) {
        pmpi_win_create_(base, size, disp_unit, info, comm, win, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Win_create);
    upt_win_create_begin();
    pmpi_win_create_(base, size, disp_unit, info, comm, win, ierr);
    win_new_end(UPT_R_MPI_Win_create, *ierr, *comm, *win, false);
}

typedef void win_alloc_fn(MPI_Aint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *,
                          MPI_Fint *);

/* MPI_Win_allocate(_shared) and their TYPE(C_PTR) twins (_cptr), which
 * take the same arguments */
static void win_alloc(win_alloc_fn *f, uint32_t region, MPI_Aint *size, MPI_Fint *disp_unit,
                      MPI_Fint *info, MPI_Fint *comm, void *baseptr, MPI_Fint *win,
                      MPI_Fint *ierr)
{
    if (!upt_recording()) {
        f(size, disp_unit, info, comm, baseptr, win, ierr);
        return;
    }
    upt_enter(region);
    upt_win_create_begin();
    f(size, disp_unit, info, comm, baseptr, win, ierr);
    win_new_end(region, *ierr, *comm, *win, true);
}

#define WIN_ALLOC_PARAMS                                                                \
    (MPI_Aint *size, MPI_Fint *disp_unit, MPI_Fint *info, MPI_Fint *comm, void *baseptr,    \
     MPI_Fint *win, MPI_Fint *ierr)

FORTRAN(mpi_win_allocate, MPI_WIN_ALLOCATE, WIN_ALLOC_PARAMS)
{
    win_alloc(pmpi_win_allocate_, UPT_R_MPI_Win_allocate, size, disp_unit, info, comm, baseptr,
              win, ierr);
}

FORTRAN(mpi_win_allocate_cptr, MPI_WIN_ALLOCATE_CPTR, WIN_ALLOC_PARAMS)
{
    win_alloc(pmpi_win_allocate_cptr_, UPT_R_MPI_Win_allocate, size, disp_unit, info, comm,
              baseptr, win, ierr);
}

FORTRAN(mpi_win_allocate_shared, MPI_WIN_ALLOCATE_SHARED, WIN_ALLOC_PARAMS)
{
    win_alloc(pmpi_win_allocate_shared_, UPT_R_MPI_Win_allocate_shared, size, disp_unit, info,
              comm, baseptr, win, ierr);
}

FORTRAN(mpi_win_allocate_shared_cptr, MPI_WIN_ALLOCATE_SHARED_CPTR, WIN_ALLOC_PARAMS)
{
    win_alloc(pmpi_win_allocate_shared_cptr_, UPT_R_MPI_Win_allocate_shared, size, disp_unit,
              info, comm, baseptr, win, ierr);
}

FORTRAN(mpi_win_create_dynamic, MPI_WIN_CREATE_DYNAMIC,
        (MPI_Fint *info, MPI_Fint *comm, MPI_Fint *win, MPI_Fint *ierr))
{
    if (!upt_recording()) {
        pmpi_win_create_dynamic_(info, comm, win, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Win_create_dynamic);
    upt_win_create_begin();
    pmpi_win_create_dynamic_(info, comm, win, ierr);
    win_new_end(UPT_R_MPI_Win_create_dynamic, *ierr, *comm, *win, false);
}

/* the handle is read before the call, which sets it to MPI_WIN_NULL */
FORTRAN(mpi_win_free, MPI_WIN_FREE, (MPI_Fint *win, MPI_Fint *ierr))
{
    upt_win_freeing f;
    if (!upt_recording()) {
        pmpi_win_free_(win, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Win_free);
    f = upt_win_free_begin(MPI_Win_f2c(*win));
    pmpi_win_free_(win, ierr);
    upt_win_free_end(f);
    upt_leave(UPT_R_MPI_Win_free);
}

FORTRAN(mpi_win_fence, MPI_WIN_FENCE, (MPI_Fint *assert, MPI_Fint *win, MPI_Fint *ierr))
{
    if (!upt_recording()) {
        pmpi_win_fence_(assert, win, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Win_fence);
    upt_win_fence_begin(MPI_Win_f2c(*win));
    pmpi_win_fence_(assert, win, ierr);
    upt_win_fence_end(MPI_Win_f2c(*win));
    upt_leave(UPT_R_MPI_Win_fence);
}

typedef void win_epoch_fn(MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);

static void win_epoch_start(win_epoch_fn *f, uint32_t region, bool exposure, MPI_Fint *group,
                            MPI_Fint *assert, MPI_Fint *win, MPI_Fint *ierr)
{
    if (!upt_recording()) {
        f(group, assert, win, ierr);
        return;
    }
    upt_enter(region);
    f(group, assert, win, ierr);
    if (*ierr == MPI_SUCCESS)
        upt_win_epoch_start(MPI_Win_f2c(*win), MPI_Group_f2c(*group), exposure);
    upt_leave(region);
}

FORTRAN(mpi_win_post, MPI_WIN_POST,
        (MPI_Fint *group, MPI_Fint *assert, MPI_Fint *win, MPI_Fint *ierr))
{
    win_epoch_start(pmpi_win_post_, UPT_R_MPI_Win_post, true, group, assert, win, ierr);
}

FORTRAN(mpi_win_start, MPI_WIN_START,
        (MPI_Fint *group, MPI_Fint *assert, MPI_Fint *win, MPI_Fint *ierr))
{
    win_epoch_start(pmpi_win_start_, UPT_R_MPI_Win_start, false, group, assert, win, ierr);
}

typedef void win_fn(MPI_Fint *, MPI_Fint *);

/* MPI_Win_complete (the access epoch) and MPI_Win_wait (the exposure epoch) */
static void win_epoch_end(win_fn *f, uint32_t region, bool exposure, MPI_Fint *win,
                          MPI_Fint *ierr)
{
    if (!upt_recording()) {
        f(win, ierr);
        return;
    }
    upt_enter(region);
    f(win, ierr);
    if (*ierr == MPI_SUCCESS)
        upt_win_epoch_end(MPI_Win_f2c(*win), exposure, false, true);
    upt_leave(region);
}

FORTRAN(mpi_win_complete, MPI_WIN_COMPLETE, (MPI_Fint *win, MPI_Fint *ierr))
{
    win_epoch_end(pmpi_win_complete_, UPT_R_MPI_Win_complete, false, win, ierr);
}

FORTRAN(mpi_win_wait, MPI_WIN_WAIT, (MPI_Fint *win, MPI_Fint *ierr))
{
    win_epoch_end(pmpi_win_wait_, UPT_R_MPI_Win_wait, true, win, ierr);
}

/* flag: a LOGICAL, which Open MPI sets to 0 or 1 */
FORTRAN(mpi_win_test, MPI_WIN_TEST, (MPI_Fint *win, MPI_Fint *flag, MPI_Fint *ierr))
{
    if (!upt_recording()) {
        pmpi_win_test_(win, flag, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Win_test);
    pmpi_win_test_(win, flag, ierr);
    if (*ierr == MPI_SUCCESS)
        upt_win_epoch_end(MPI_Win_f2c(*win), true, true, *flag != 0);
    upt_leave(UPT_R_MPI_Win_test);
}

FORTRAN(mpi_win_lock, MPI_WIN_LOCK,
        (MPI_Fint *lock_type, MPI_Fint *rank, MPI_Fint *assert, MPI_Fint *win, MPI_Fint *ierr))
{
    if (!upt_recording()) {
        pmpi_win_lock_(lock_type, rank, assert, win, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Win_lock);
    upt_win_lock(MPI_Win_f2c(*win), *rank, *lock_type == MPI_LOCK_EXCLUSIVE);
    pmpi_win_lock_(lock_type, rank, assert, win, ierr);
    upt_leave(UPT_R_MPI_Win_lock);
}

FORTRAN(mpi_win_lock_all, MPI_WIN_LOCK_ALL, (MPI_Fint *assert, MPI_Fint *win, MPI_Fint *ierr))
{
    if (!upt_recording()) {
        pmpi_win_lock_all_(assert, win, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Win_lock_all);
    upt_win_lock(MPI_Win_f2c(*win), UPT_RMA_ALL, false);
    pmpi_win_lock_all_(assert, win, ierr);
    upt_leave(UPT_R_MPI_Win_lock_all);
}

typedef void win_rank_fn(MPI_Fint *, MPI_Fint *, MPI_Fint *);

/* unlock and flush to one rank (f2 == NULL) or to all (f1 == NULL); local:
 * the flush_local calls, which complete locally only */
static void win_passive(win_rank_fn *f1, win_fn *f2, uint32_t region, bool unlock, bool local,
                        MPI_Fint *rank, MPI_Fint *win, MPI_Fint *ierr)
{
    int r = f1 ? *rank : UPT_RMA_ALL;
    if (!upt_recording()) {
        if (f1)
            f1(rank, win, ierr);
        else
            f2(win, ierr);
        return;
    }
    upt_enter(region);
    if (f1)
        f1(rank, win, ierr);
    else
        f2(win, ierr);
    if (*ierr == MPI_SUCCESS) {
        if (unlock)
            upt_win_unlock(MPI_Win_f2c(*win), r);
        else
            upt_win_flush(MPI_Win_f2c(*win), r, local);
    }
    upt_leave(region);
}

FORTRAN(mpi_win_unlock, MPI_WIN_UNLOCK, (MPI_Fint *rank, MPI_Fint *win, MPI_Fint *ierr))
{
    win_passive(pmpi_win_unlock_, NULL, UPT_R_MPI_Win_unlock, true, false, rank, win, ierr);
}

FORTRAN(mpi_win_unlock_all, MPI_WIN_UNLOCK_ALL, (MPI_Fint *win, MPI_Fint *ierr))
{
    win_passive(NULL, pmpi_win_unlock_all_, UPT_R_MPI_Win_unlock_all, true, false, NULL, win,
                ierr);
}

FORTRAN(mpi_win_flush, MPI_WIN_FLUSH, (MPI_Fint *rank, MPI_Fint *win, MPI_Fint *ierr))
{
    win_passive(pmpi_win_flush_, NULL, UPT_R_MPI_Win_flush, false, false, rank, win, ierr);
}

FORTRAN(mpi_win_flush_all, MPI_WIN_FLUSH_ALL, (MPI_Fint *win, MPI_Fint *ierr))
{
    win_passive(NULL, pmpi_win_flush_all_, UPT_R_MPI_Win_flush_all, false, false, NULL, win,
                ierr);
}

FORTRAN(mpi_win_flush_local, MPI_WIN_FLUSH_LOCAL, (MPI_Fint *rank, MPI_Fint *win, MPI_Fint *ierr))
{
    win_passive(pmpi_win_flush_local_, NULL, UPT_R_MPI_Win_flush_local, false, true, rank, win,
                ierr);
}

FORTRAN(mpi_win_flush_local_all, MPI_WIN_FLUSH_LOCAL_ALL, (MPI_Fint *win, MPI_Fint *ierr))
{
    win_passive(NULL, pmpi_win_flush_local_all_, UPT_R_MPI_Win_flush_local_all, false, true, NULL,
                win, ierr);
}

/* transfers: the record before the call */
#define RMA_TRANSFER(REGION, WIN, TARGET, KIND, ATYPE, PUT, GOT, CALL)                      \
    do {                                                                                     \
        if (!upt_recording()) {                                                              \
            CALL;                                                                            \
            return;                                                                          \
        }                                                                                    \
        upt_enter(REGION);                                                                   \
        upt_rma_op(MPI_Win_f2c(WIN), TARGET, KIND, ATYPE, PUT, GOT);                         \
        CALL;                                                                                \
        upt_leave(REGION);                                                                   \
    } while (0)

#define PUT_PARAMS                                                                           \
    (void *origin, MPI_Fint *ocount, MPI_Fint *otype, MPI_Fint *target, MPI_Aint *disp,      \
     MPI_Fint *tcount, MPI_Fint *ttype, MPI_Fint *win, MPI_Fint *ierr)

FORTRAN(mpi_put, MPI_PUT, PUT_PARAMS)
{
    RMA_TRANSFER(UPT_R_MPI_Put, *win, *target, UPT_RMA_PUT, OTF2_RMA_ATOMIC_TYPE_ACCUMULATE,
                 fbytes(*ocount, *otype), 0,
                 pmpi_put_(origin, ocount, otype, target, disp, tcount, ttype, win, ierr));
}

FORTRAN(mpi_get, MPI_GET, PUT_PARAMS)
{
    RMA_TRANSFER(UPT_R_MPI_Get, *win, *target, UPT_RMA_GET, OTF2_RMA_ATOMIC_TYPE_ACCUMULATE, 0,
                 fbytes(*ocount, *otype),
                 pmpi_get_(origin, ocount, otype, target, disp, tcount, ttype, win, ierr));
}

FORTRAN(mpi_accumulate, MPI_ACCUMULATE,
        (void *origin, MPI_Fint *ocount, MPI_Fint *otype, MPI_Fint *target, MPI_Aint *disp,
         MPI_Fint *tcount, MPI_Fint *ttype, MPI_Fint *op, MPI_Fint *win, MPI_Fint *ierr))
{
    RMA_TRANSFER(UPT_R_MPI_Accumulate, *win, *target, UPT_RMA_ATOMIC,
                 OTF2_RMA_ATOMIC_TYPE_ACCUMULATE, fbytes(*ocount, *otype), 0,
                 pmpi_accumulate_(origin, ocount, otype, target, disp, tcount, ttype, op, win,
                                  ierr));
}

FORTRAN(mpi_get_accumulate, MPI_GET_ACCUMULATE,
        (void *origin, MPI_Fint *ocount, MPI_Fint *otype, void *result, MPI_Fint *rcount,
         MPI_Fint *rtype, MPI_Fint *target, MPI_Aint *disp, MPI_Fint *tcount, MPI_Fint *ttype,
         MPI_Fint *op, MPI_Fint *win, MPI_Fint *ierr))
{
    RMA_TRANSFER(UPT_R_MPI_Get_accumulate, *win, *target, UPT_RMA_ATOMIC,
                 OTF2_RMA_ATOMIC_TYPE_FETCH_AND_ACCUMULATE, fbytes(*ocount, *otype),
                 fbytes(*rcount, *rtype),
                 pmpi_get_accumulate_(origin, ocount, otype, result, rcount, rtype, target, disp,
                                      tcount, ttype, op, win, ierr));
}

FORTRAN(mpi_fetch_and_op, MPI_FETCH_AND_OP,
        (void *origin, void *result, MPI_Fint *type, MPI_Fint *target, MPI_Aint *disp,
         MPI_Fint *op, MPI_Fint *win, MPI_Fint *ierr))
{
    RMA_TRANSFER(UPT_R_MPI_Fetch_and_op, *win, *target, UPT_RMA_ATOMIC,
                 OTF2_RMA_ATOMIC_TYPE_FETCH_AND_ACCUMULATE, fbytes(1, *type), fbytes(1, *type),
                 pmpi_fetch_and_op_(origin, result, type, target, disp, op, win, ierr));
}

FORTRAN(mpi_compare_and_swap, MPI_COMPARE_AND_SWAP,
        (void *origin, void *compare, void *result, MPI_Fint *type, MPI_Fint *target,
         MPI_Aint *disp, MPI_Fint *win, MPI_Fint *ierr))
{
    RMA_TRANSFER(UPT_R_MPI_Compare_and_swap, *win, *target, UPT_RMA_ATOMIC,
                 OTF2_RMA_ATOMIC_TYPE_COMPARE_AND_SWAP, fbytes(1, *type), fbytes(1, *type),
                 pmpi_compare_and_swap_(origin, compare, result, type, target, disp, win, ierr));
}
