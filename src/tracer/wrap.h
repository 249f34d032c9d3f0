/*
 * wrap.h - what the MPI wrappers of both languages share: the byte counts,
 * the communicator's size and rank, the MpiRecv of a finished receive, and
 * Fortran's symbols and sentinels.  Place in the data flow: measurement.
 *
 * The wrappers: mpi_c_gen.c and mpi_f_gen.c, generated from the table
 * src/trace/mpi_calls.def by tools/dev/gen-mpi-wrappers.sh, and the calls
 * that do not fit the table, written by hand in mpi_c_hand.c and
 * mpi_f_hand.c.  wrap.c keeps the requests and windows they share.
 * Every helper here is written once and used by C and Fortran alike, so a
 * Fortran call and its C twin record the same sizes (tests/tracer/twins.sh).
 * The small ones are inline: the recording path calls nothing it did not
 * call before.
 */
#ifndef UNPERTURB_WRAP_H
#define UNPERTURB_WRAP_H

#include <stdbool.h>
#include <stdint.h>

#include "tracer/upt.h"

/* Open MPI's Fortran INTEGER is C's int: the count arrays of either
 * language are read as const int *. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint is not int");

/* ---- sizes -------------------------------------------------------------------- */

/* Bytes of `count` elements of `type` (0 for count <= 0, MPI_DATATYPE_NULL
 * or errors). */
static inline uint64_t upt_bytes(int count, MPI_Datatype type)
{
    int size = 0;
    if (count <= 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS ||
        size < 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

/* The bytes of the n counts of one type; 0 for a NULL array. */
static inline uint64_t upt_sum_counts(const int *counts, int n, MPI_Datatype t)
{
    uint64_t s = 0;
    int i;
    if (!counts)
        return 0;
    for (i = 0; i < n; i++)
        s += upt_bytes(counts[i], t);
    return s;
}

/* Alltoallw: the n counts of n types, C handles (upt_sum_w) or Fortran
 * handles (upt_sum_wf); 0 for NULL arrays. */
static inline uint64_t upt_sum_w(const int *counts, const MPI_Datatype *types, int n)
{
    uint64_t s = 0;
    int i;
    if (!counts || !types)
        return 0;
    for (i = 0; i < n; i++)
        s += upt_bytes(counts[i], types[i]);
    return s;
}

static inline uint64_t upt_sum_wf(const int *counts, const MPI_Fint *types, int n)
{
    uint64_t s = 0;
    int i;
    if (!counts || !types)
        return 0;
    for (i = 0; i < n; i++)
        s += upt_bytes(counts[i], MPI_Type_f2c(types[i]));
    return s;
}

/* ---- communicators ------------------------------------------------------------ */

/* A communicator PMPI may be asked about: Open MPI's MPI_Comm_f2c gives a
 * null pointer for a Fortran handle that names none, and asking PMPI about
 * it (or MPI_COMM_NULL) would invoke an error handler. */
static inline bool upt_comm_ok(MPI_Comm c)
{
    return c != MPI_COMM_NULL && c != (MPI_Comm)0;
}

/* its size (0) and this rank in it (-1) when it cannot be asked */
static inline int upt_comm_size(MPI_Comm c)
{
    int n = 0;
    if (!upt_comm_ok(c) || PMPI_Comm_size(c, &n) != MPI_SUCCESS)
        n = 0;
    return n;
}

static inline int upt_comm_rank(MPI_Comm c)
{
    int r = -1;
    if (!upt_comm_ok(c) || PMPI_Comm_rank(c, &r) != MPI_SUCCESS)
        r = -1;
    return r;
}

/* ---- receives ---------------------------------------------------------------- */

/* MpiRecv of a finished receive, from its status; nothing for a receive
 * from MPI_PROC_NULL.  wildcard: upt_wildcard() of its source and tag. */
static inline void upt_record_recv(const MPI_Status *st, uint32_t comm, unsigned wildcard)
{
    int n = 0;
    if (st->MPI_SOURCE == MPI_PROC_NULL)
        return;
    if (PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS)
        n = 0;
    upt_recv((uint32_t)st->MPI_SOURCE, comm, (uint32_t)st->MPI_TAG, n > 0 ? (uint64_t)n : 0,
             wildcard);
}

/* the same from a Fortran status */
static inline void upt_record_recv_f(const MPI_Fint *fst, uint32_t comm, unsigned wildcard)
{
    MPI_Status st;
    if (PMPI_Status_f2c(fst, &st) == MPI_SUCCESS)
        upt_record_recv(&st, comm, wildcard);
}

/* Matched probes (mpi_c_hand.c): MPI_Mrecv and MPI_Imrecv do not name the
 * communicator, so MPI_Mprobe/MPI_Improbe remember it per message, with
 * the probe's wildcard bits; an unknown message counts as MPI_COMM_WORLD's. */
void upt_probed_put(MPI_Message m, uint32_t comm, unsigned wildcard);
uint32_t upt_probed_take(MPI_Message m, unsigned *wildcard);

/* ---- Fortran ------------------------------------------------------------------
 * Open MPI's Fortran bindings (libmpi_mpifh) call the PMPI_ C functions
 * directly, so each Fortran call needs a wrapper of its own (mpi_f_gen.c,
 * mpi_f_hand.c; the header of mpi_f_hand.c explains them). */

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
#define UPT_FSTATUS MPI_F_STATUS_SIZE
#else
#define UPT_FSTATUS ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#endif

static inline bool upt_f_in_place(const void *buf)
{
    return buf == (const void *)&mpi_fortran_in_place_;
}

/* The caller's status, or `own` when it passed MPI_STATUS_IGNORE. */
static inline MPI_Fint *upt_f_status_or(MPI_Fint *status, MPI_Fint *own)
{
    return status == &mpi_fortran_status_ignore_ ? own : status;
}

/* a communicator a Fortran call created: registered unless null */
static inline void upt_comm_created_f(MPI_Fint comm)
{
    MPI_Comm c = MPI_Comm_f2c(comm);
    if (upt_comm_ok(c))
        upt_comm_created(c);
}

/* FORTRAN(mpi_send, MPI_SEND, (params)) { body } defines mpi_send_ with that
 * body, exports it under the other three spellings (mpi_send for
 * -fno-underscoring, mpi_send__ for -fsecond-underscore, MPI_SEND for
 * upper-case compilers), and declares the profiling entry point pmpi_send_
 * that the body calls: a weak reference, so the tracer loads into a C
 * program without libmpi_mpifh. */
#define FORTRAN(lower, UPPER, params)                                          \
    extern void p##lower##_ params __attribute__((weak));                      \
    UPT_EXPORT void lower##_ params;                                           \
    UPT_EXPORT void lower params __attribute__((alias(#lower "_")));           \
    UPT_EXPORT void lower##__ params __attribute__((alias(#lower "_")));       \
    UPT_EXPORT void UPPER params __attribute__((alias(#lower "_")));           \
    UPT_EXPORT void lower##_ params

#endif
