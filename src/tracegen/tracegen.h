/*
 * tracegen.h - writes small OTF2 MPI traces for tests and benchmarks, with
 * timestamps chosen by the caller, through OTF2's own writer (no unperturb
 * code involved, so tests check the library against OTF2, not itself).
 *
 * The archive has `nranks` MPI ranks, one location each (location id
 * `rank`, or `rank << 32 | 5` with TG_SPARSE_IDS), MPI_COMM_WORLD (comm 0,
 * world ranks) and MPI_COMM_SELF (comm 1), and the regions of tg_region_t.
 * Timestamps are ticks of `resolution` per second.
 *
 * It is part of no product (libunperturb, the tracer): src/tracegen is the
 * one folder of src/ that only tests/ and bench/ may include, and it
 * includes no header of src/ (tools/dev/check-layers.sh), so that the
 * traces that test the library do not come from the library.
 */
#ifndef UNPERTURB_TRACEGEN_H
#define UNPERTURB_TRACEGEN_H

#include <otf2/otf2.h>
#include <stdint.h>

typedef struct tg tg;

enum {
    TG_SPARSE_IDS = 1,   /* 64-bit location ids far apart */
    TG_TWO_NODES = 2,    /* even ranks on node A, odd ranks on node B */
    TG_OMP_TEAM = 4,     /* also an OpenMP thread team (comm TG_COMM_TEAM) of all
                          * locations, location 0 its master */
    TG_CPU_METRIC = 16,  /* define metric class 0 as the tracer's "cpu_time" (tg_metric) */
    TG_RMA = 8,          /* an RMA window TG_WIN on MPI_COMM_WORLD, and the MPI
                          * groups TG_GROUP_RANK0 = {0}, TG_GROUP_OTHERS = {1..n-1} */
    TG_SUBCOMMS = 32,    /* MPI communicators TG_COMM_ONE = {rank 0}, TG_COMM_PAIR =
                          * {ranks 0, 1} and TG_COMM_DUP = {0, 0, 1} (rank 0 listed
                          * twice: a broken definition); needs 2 ranks or more */
    TG_FORWARD_REFS = 64, /* the same global definitions, each written before
                           * those it references (Strings last, Comms before
                           * their Groups, children before their parents...): an
                           * archive OTF2's Python reader refuses */
    TG_DANGLING_REF = 128 /* also, last, Callpaths 1 and 2, each the other's
                           * parent (a cycle), Callpath TG_CALLPATH_DANGLING,
                           * then its Region TG_REGION_DANGLING, named by String
                           * TG_STRING_MISSING, which is not defined */
};

#define TG_REGION_DANGLING 100
#define TG_CALLPATH_DANGLING 0
#define TG_STRING_MISSING 9999

#define TG_WIN 0
#define TG_GROUP_RANK0 5
#define TG_GROUP_OTHERS 6

typedef enum tg_region_t {
    TG_MAIN, TG_WORK, TG_INIT, TG_FINALIZE, TG_SEND, TG_RECV, TG_ISEND,
    TG_IRECV, TG_WAIT, TG_BARRIER, TG_ALLREDUCE, TG_BCAST, TG_REDUCE,
    TG_FLUSH_REGION, TG_SENDRECV, TG_GET_COORDS, TG_SSEND, TG_WIN_FENCE, TG_WIN_POST,
    TG_WIN_START, TG_WIN_COMPLETE, TG_WIN_WAIT, TG_WIN_LOCK, TG_WIN_UNLOCK, TG_PUT, TG_TEST,
    TG_TESTANY, TG_IPROBE, TG_CANCEL, TG_TESTALL,
    TG_NREGIONS
} tg_region_t;

#define TG_COMM_WORLD 0
#define TG_COMM_SELF 1
#define TG_COMM_TEAM 2
#define TG_COMM_ONE 3
#define TG_COMM_PAIR 4
#define TG_COMM_DUP 5

tg *tg_open(const char *dir, unsigned nranks, uint64_t resolution, unsigned flags);
/* Writes the definitions and closes; returns 0 on success. */
int tg_close(tg *g);
OTF2_EvtWriter *tg_writer(tg *g, unsigned rank);
/* The archive being written (for properties; tests/fuzz/tool.c). */
OTF2_Archive *tg_archive(tg *g);
OTF2_LocationRef tg_location(const tg *g, unsigned rank);
/* Names of the caller's choice instead of tracegen's (any bytes but NUL; the
 * caller keeps them alive until tg_close): region r, the location of
 * `rank`, communicator MPI_COMM_WORLD.  Each gets a String definition of its
 * own; names that are equal are written twice. */
void tg_name_region(tg *g, tg_region_t r, const char *name);
void tg_name_location(tg *g, unsigned rank, const char *name);
void tg_name_world(tg *g, const char *name);

void tg_enter(tg *g, unsigned rank, uint64_t t, tg_region_t r);
void tg_leave(tg *g, unsigned rank, uint64_t t, tg_region_t r);
void tg_send(tg *g, unsigned rank, uint64_t t, unsigned dst, uint32_t tag, uint64_t bytes);
void tg_recv(tg *g, unsigned rank, uint64_t t, unsigned src, uint32_t tag, uint64_t bytes);
void tg_coll_begin(tg *g, unsigned rank, uint64_t t);
void tg_coll_end(tg *g, unsigned rank, uint64_t t, OTF2_CollectiveOp op, uint32_t root,
                 uint64_t sent, uint64_t received);
/* an MpiCollectiveEnd on communicator `comm` */
void tg_coll_end_comm(tg *g, unsigned rank, uint64_t t, OTF2_CollectiveOp op, OTF2_CommRef comm,
                      uint32_t root, uint64_t sent, uint64_t received);
/* an MpiRecv with the attribute "unperturb::wildcard" = bits (1 ANY_SOURCE,
 * 2 ANY_TAG), as the unperturb tracer writes a wildcard receive */
#define TG_ATTR_WILDCARD 0
void tg_recv_wild(tg *g, unsigned rank, uint64_t t, unsigned src, uint32_t tag, uint64_t bytes,
                  uint8_t bits);
/* an MpiSend with the attribute "unperturb::reply" = mark, as the unperturb
 * tracer writes (mark 1) a farm's reply to the source of a wildcard receive;
 * once used, tg_close defines the attribute */
#define TG_ATTR_REPLY 1
void tg_send_reply(tg *g, unsigned rank, uint64_t t, unsigned dst, uint32_t tag, uint64_t bytes,
                   uint8_t mark);
/* Attribute lists on the records written through tg_enter .. tg_metric
 * (and the tg_mpi_* helpers): from now on each carries `every` attributes,
 * and the next one written also `once` more (a long list: 0 for none).
 * The attributes are TG_ATTR_LIST + i, of UINT8, UINT32, UINT64 and DOUBLE
 * in turn, left undefined (otf2-print shows them as INVALID); their values
 * change from record to record.  OTF2's writer takes time in the square of
 * a list's length. */
#define TG_ATTR_LIST 16
void tg_attrs(tg *g, unsigned every, unsigned once);
void tg_flush(tg *g, unsigned rank, uint64_t t, uint64_t stop);
/* An MpiRequestTest (a failed MPI_Test of request `req`). */
void tg_request_test(tg *g, unsigned rank, uint64_t t, uint64_t req);
/* a Metric record of class 0 with one UINT64 value (the tracer's --cpu-time) */
void tg_metric(tg *g, unsigned rank, uint64_t t, uint64_t value);

/* Enter(MPI_Send) MpiSend Leave; Enter(MPI_Recv) MpiRecv Leave */
void tg_mpi_send(tg *g, unsigned rank, uint64_t t_enter, uint64_t t_send, uint64_t t_leave,
                 unsigned dst, uint32_t tag, uint64_t bytes);
void tg_mpi_recv(tg *g, unsigned rank, uint64_t t_enter, uint64_t t_recv, uint64_t t_leave,
                 unsigned src, uint32_t tag, uint64_t bytes);
/* Enter(region) MpiCollectiveBegin MpiCollectiveEnd Leave on MPI_COMM_WORLD */
void tg_mpi_coll(tg *g, unsigned rank, tg_region_t region, uint64_t t_enter, uint64_t t_begin,
                 uint64_t t_end, uint64_t t_leave, OTF2_CollectiveOp op, uint32_t root,
                 uint64_t sent, uint64_t received);

/* A small MPI trace in `dir` (3 ranks: MPI_Init, an MPI_Ssend 0 -> 1
 * received with MPI_ANY_SOURCE, a buffer flush on rank 2, a barrier, CPU-time
 * metrics with TG_CPU_METRIC, MPI_Finalize), written with the tg_open flags
 * `flags`; 0, or -1. */
int tg_small_mpi(const char *dir, unsigned flags);

#endif
