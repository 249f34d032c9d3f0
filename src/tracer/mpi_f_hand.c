/*
 * mpi_f_hand.c - wrappers for Fortran callers of the `use mpi` module and of
 * `include 'mpif.h'` that do not fit the table of MPI calls (rows of class
 * `hand` in src/trace/mpi_calls.def; the others are generated into
 * mpi_f_gen.c).  Place in the data flow: measurement, the Fortran twin of
 * mpi_c_hand.c; both write through the record functions of upt.h and the
 * helpers of wrap.h, and write the same records for the same call.
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
 * Records: as the C wrappers write them (wrap.c's header and comments), with Fortran
 * handles converted by MPI_Xxx_f2c.  The completion calls read the C handles
 * of their requests before the call (completion sets the Fortran handle to
 * MPI_REQUEST_NULL) and supply statuses of their own when the caller passed
 * MPI_STATUS(ES)_IGNORE.  Collective byte counts are the table's, for
 * both languages (Score-P's way); an MPI_IN_PLACE buffer counts 0.
 *
 * Threads: the record functions drop calls from threads other than the one
 * that called MPI_Init; the table of probed messages (wrap.c) is per thread.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "tracer/wrap.h"

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
    MPI_Fint st_small[NSMALL * UPT_FSTATUS];
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
        size_t ns = ignored ? (size_t)nst * (size_t)UPT_FSTATUS * sizeof(MPI_Fint) : 0;
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
    return st + (size_t)i * (size_t)UPT_FSTATUS;
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
    upt_close();
    pmpi_abort_(comm, errorcode, ierr);
}

/* ---- matched probes and receives ------------------------------------------------------ */

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
        upt_probed_put(MPI_Message_f2c(*message), upt_comm_id(MPI_Comm_f2c(*comm)),
                       upt_wildcard(*source, *tag));
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
        upt_probed_put(MPI_Message_f2c(*message), upt_comm_id(MPI_Comm_f2c(*comm)),
                       upt_wildcard(*source, *tag));
    upt_leave(UPT_R_MPI_Improbe);
}

/* The message handle is read before the call, which sets it to
 * MPI_MESSAGE_NULL. */
FORTRAN(mpi_mrecv, MPI_MRECV,
        (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *message, MPI_Fint *status,
         MPI_Fint *ierr))
{
    MPI_Fint own[UPT_FSTATUS], *st;
    uint32_t c;
    unsigned wildcard;
    if (!upt_on) {
        pmpi_mrecv_(buf, count, type, message, status, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Mrecv);
    c = upt_probed_take(MPI_Message_f2c(*message), &wildcard);
    st = upt_f_status_or(status, own);
    pmpi_mrecv_(buf, count, type, message, st, ierr);
    if (*ierr == MPI_SUCCESS)
        upt_record_recv_f(st, c, wildcard);
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
    c = upt_probed_take(MPI_Message_f2c(*message), &wildcard);
    pmpi_imrecv_(buf, count, type, message, request, ierr);
    if (*ierr == MPI_SUCCESS)
        upt_req_irecv(MPI_Request_f2c(*request), c, wildcard);
    upt_leave(UPT_R_MPI_Imrecv);
}

/* ---- persistent requests ------------------------------------------------------------------ */

/* Start records the MpiIsend / MpiIrecvRequest before the call, as in C. */
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
    MPI_Fint own[UPT_FSTATUS], *st;
    MPI_Request before;
    if (!upt_on) {
        pmpi_wait_(request, status, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Wait);
    before = MPI_Request_f2c(*request);
    st = upt_f_status_or(status, own);
    pmpi_wait_(request, st, ierr);
    if (*ierr == MPI_SUCCESS)
        completed(before, st, false);
    upt_leave(UPT_R_MPI_Wait);
}

FORTRAN(mpi_test, MPI_TEST, (MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr))
{
    MPI_Fint own[UPT_FSTATUS], *st;
    MPI_Request before;
    if (!upt_on) {
        pmpi_test_(request, flag, status, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Test);
    before = MPI_Request_f2c(*request);
    st = upt_f_status_or(status, own);
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

/* ---- communicators --------------------------------------------------------------------------- */

FORTRAN(mpi_comm_free, MPI_COMM_FREE, (MPI_Fint *comm, MPI_Fint *ierr))
{
    MPI_Comm c;
    if (!upt_on) {
        pmpi_comm_free_(comm, ierr);
        return;
    }
    upt_enter(UPT_R_MPI_Comm_free);
    c = MPI_Comm_f2c(*comm);
    if (upt_comm_ok(c))
        upt_comm_freed(c);
    pmpi_comm_free_(comm, ierr);
    upt_leave(UPT_R_MPI_Comm_free);
}

/* ---- one-sided communication: synchronisation ----------------------------------------------
 * The records of mpi_c_hand.c (and the bookkeeping of windows, epochs and
 * open transfers of wrap.c), with handles converted by MPI_Win_f2c and
 * MPI_Group_f2c.  As in C, only the thread that records keeps windows. */

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
