/*
 * tracegen.c - test/benchmark trace writer (see tracegen.h).  Uses only the
 * OTF2 writer API; shares no code with the rest of src/ (it includes none
 * of its headers: tools/dev/check-layers.sh).
 */
#include "tracegen.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tg {
    OTF2_Archive *ar;
    unsigned n, flags;
    bool wildcard;   /* tg_recv_wild was used: define the attribute */
    bool reply;      /* tg_send_reply was used: define the attribute */
    uint64_t res, tmin, tmax;
    OTF2_EvtWriter **w;
    uint64_t *nev;
    const char *rname[TG_NREGIONS]; /* tg_name_region (NULL: regions[].name) */
    const char **lname;             /* tg_name_location, per rank (NULL: "Master thread") */
    const char *world;              /* tg_name_world (NULL: "MPI_COMM_WORLD") */
    unsigned attrs_every, attrs_once; /* tg_attrs */
    uint64_t nlists;                  /* attribute lists written */
    OTF2_AttributeList *al;
};

static const struct {
    const char *name;
    OTF2_RegionRole role;
    OTF2_Paradigm paradigm;
} regions[TG_NREGIONS] = {
    [TG_MAIN] = {"main", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER},
    [TG_WORK] = {"work", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER},
    [TG_INIT] = {"MPI_Init", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI},
    [TG_FINALIZE] = {"MPI_Finalize", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI},
    [TG_SEND] = {"MPI_Send", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI},
    [TG_RECV] = {"MPI_Recv", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI},
    [TG_ISEND] = {"MPI_Isend", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI},
    [TG_IRECV] = {"MPI_Irecv", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI},
    [TG_WAIT] = {"MPI_Wait", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI},
    [TG_BARRIER] = {"MPI_Barrier", OTF2_REGION_ROLE_BARRIER, OTF2_PARADIGM_MPI},
    [TG_ALLREDUCE] = {"MPI_Allreduce", OTF2_REGION_ROLE_COLL_ALL2ALL, OTF2_PARADIGM_MPI},
    [TG_BCAST] = {"MPI_Bcast", OTF2_REGION_ROLE_COLL_ONE2ALL, OTF2_PARADIGM_MPI},
    [TG_REDUCE] = {"MPI_Reduce", OTF2_REGION_ROLE_COLL_ALL2ONE, OTF2_PARADIGM_MPI},
    [TG_FLUSH_REGION] = {"TRACE BUFFER FLUSH", OTF2_REGION_ROLE_ARTIFICIAL, OTF2_PARADIGM_MEASUREMENT_SYSTEM},
    [TG_SENDRECV] = {"MPI_Sendrecv", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI},
    [TG_GET_COORDS] = {"get_coords", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER},
    [TG_SSEND] = {"MPI_Ssend", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI},
    [TG_WIN_FENCE] = {"MPI_Win_fence", OTF2_REGION_ROLE_BARRIER, OTF2_PARADIGM_MPI},
    [TG_WIN_POST] = {"MPI_Win_post", OTF2_REGION_ROLE_RMA, OTF2_PARADIGM_MPI},
    [TG_WIN_START] = {"MPI_Win_start", OTF2_REGION_ROLE_RMA, OTF2_PARADIGM_MPI},
    [TG_WIN_COMPLETE] = {"MPI_Win_complete", OTF2_REGION_ROLE_RMA, OTF2_PARADIGM_MPI},
    [TG_WIN_WAIT] = {"MPI_Win_wait", OTF2_REGION_ROLE_RMA, OTF2_PARADIGM_MPI},
    [TG_WIN_LOCK] = {"MPI_Win_lock", OTF2_REGION_ROLE_RMA, OTF2_PARADIGM_MPI},
    [TG_WIN_UNLOCK] = {"MPI_Win_unlock", OTF2_REGION_ROLE_RMA, OTF2_PARADIGM_MPI},
    [TG_PUT] = {"MPI_Put", OTF2_REGION_ROLE_RMA, OTF2_PARADIGM_MPI},
    [TG_TEST] = {"MPI_Test", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI},
    [TG_TESTANY] = {"MPI_Testany", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI},
    [TG_IPROBE] = {"MPI_Iprobe", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI},
    [TG_CANCEL] = {"MPI_Cancel", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI},
    [TG_TESTALL] = {"MPI_Testall", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI},
};

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef l, void *c, bool f)
{
    (void)ud, (void)ft, (void)l, (void)c, (void)f;
    return OTF2_FLUSH;
}
static const OTF2_FlushCallbacks flush_cb = {pre_flush, NULL};

OTF2_LocationRef tg_location(const tg *g, unsigned rank)
{
    return (g->flags & TG_SPARSE_IDS) ? ((uint64_t)rank << 32 | 5u) : rank;
}

tg *tg_open(const char *dir, unsigned nranks, uint64_t resolution, unsigned flags)
{
    tg *g = calloc(1, sizeof *g);
    unsigned r;
    if (!g)
        return NULL;
    g->n = nranks;
    g->flags = flags;
    g->res = resolution;
    g->tmin = UINT64_MAX;
    g->w = calloc(nranks, sizeof *g->w);
    g->nev = calloc(nranks, sizeof *g->nev);
    g->lname = calloc(nranks ? nranks : 1, sizeof *g->lname);
    g->ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                              OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!g->w || !g->nev || !g->lname || !g->ar) {
        fprintf(stderr, "tracegen: cannot create %s\n", dir);
        exit(99);
    }
    OTF2_Archive_SetFlushCallbacks(g->ar, &flush_cb, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(g->ar);
    /* its name before it moved to src/: the fuzz seeds and every archive
     * written here keep their bytes */
    OTF2_Archive_SetCreator(g->ar, "unperturb tests/tracegen");
    OTF2_Archive_OpenEvtFiles(g->ar);
    for (r = 0; r < nranks; r++)
        g->w[r] = OTF2_Archive_GetEvtWriter(g->ar, tg_location(g, r));
    return g;
}

OTF2_EvtWriter *tg_writer(tg *g, unsigned rank)
{
    g->nev[rank]++; /* the caller writes one record */
    return g->w[rank];
}

OTF2_Archive *tg_archive(tg *g) { return g->ar; }

void tg_name_region(tg *g, tg_region_t r, const char *name) { g->rname[r] = name; }
void tg_name_location(tg *g, unsigned rank, const char *name) { g->lname[rank] = name; }
void tg_name_world(tg *g, const char *name) { g->world = name; }
void tg_attrs(tg *g, unsigned every, unsigned once)
{
    g->attrs_every = every;
    g->attrs_once = once;
    if (!g->al && (every || once) && !(g->al = OTF2_AttributeList_New())) {
        fprintf(stderr, "tracegen: out of memory\n");
        exit(99);
    }
}

/* The attribute list of the next record (tg_attrs), or NULL.  OTF2's
 * writer empties it once the record is written. */
static OTF2_AttributeList *attrs(tg *g)
{
    unsigned n = g->attrs_every + g->attrs_once, i;
    uint64_t v = g->nlists;
    if (!n)
        return NULL;
    g->attrs_once = 0;
    g->nlists++;
    for (i = 0; i < n; i++) {
        OTF2_AttributeRef id = TG_ATTR_LIST + i;
        switch (i % 4) {
        case 0: OTF2_AttributeList_AddUint8(g->al, id, (uint8_t)(v + i)); break;
        case 1: OTF2_AttributeList_AddUint32(g->al, id, (uint32_t)(v * 7 + i)); break;
        case 2: OTF2_AttributeList_AddUint64(g->al, id, v << 20 | i); break;
        default: OTF2_AttributeList_AddDouble(g->al, id, (double)v + 0.5); break;
        }
    }
    return g->al;
}

static OTF2_EvtWriter *rec(tg *g, unsigned rank, uint64_t t)
{
    if (t < g->tmin)
        g->tmin = t;
    if (t > g->tmax)
        g->tmax = t;
    return tg_writer(g, rank);
}

void tg_enter(tg *g, unsigned rank, uint64_t t, tg_region_t r)
{
    OTF2_EvtWriter_Enter(rec(g, rank, t), attrs(g), t, (OTF2_RegionRef)r);
}

void tg_leave(tg *g, unsigned rank, uint64_t t, tg_region_t r)
{
    OTF2_EvtWriter_Leave(rec(g, rank, t), attrs(g), t, (OTF2_RegionRef)r);
}

void tg_send(tg *g, unsigned rank, uint64_t t, unsigned dst, uint32_t tag, uint64_t bytes)
{
    OTF2_EvtWriter_MpiSend(rec(g, rank, t), attrs(g), t, dst, TG_COMM_WORLD, tag, bytes);
}

void tg_recv(tg *g, unsigned rank, uint64_t t, unsigned src, uint32_t tag, uint64_t bytes)
{
    OTF2_EvtWriter_MpiRecv(rec(g, rank, t), attrs(g), t, src, TG_COMM_WORLD, tag, bytes);
}

void tg_coll_begin(tg *g, unsigned rank, uint64_t t)
{
    OTF2_EvtWriter_MpiCollectiveBegin(rec(g, rank, t), attrs(g), t);
}

void tg_coll_end(tg *g, unsigned rank, uint64_t t, OTF2_CollectiveOp op, uint32_t root,
                 uint64_t sent, uint64_t received)
{
    OTF2_EvtWriter_MpiCollectiveEnd(rec(g, rank, t), attrs(g), t, op, TG_COMM_WORLD, root, sent, received);
}

void tg_coll_end_comm(tg *g, unsigned rank, uint64_t t, OTF2_CollectiveOp op, OTF2_CommRef comm,
                      uint32_t root, uint64_t sent, uint64_t received)
{
    OTF2_EvtWriter_MpiCollectiveEnd(rec(g, rank, t), attrs(g), t, op, comm, root, sent, received);
}

void tg_flush(tg *g, unsigned rank, uint64_t t, uint64_t stop)
{
    OTF2_EvtWriter_BufferFlush(rec(g, rank, t), attrs(g), t, stop);
}

void tg_request_test(tg *g, unsigned rank, uint64_t t, uint64_t req)
{
    OTF2_EvtWriter_MpiRequestTest(rec(g, rank, t), attrs(g), t, req);
}

void tg_metric(tg *g, unsigned rank, uint64_t t, uint64_t value)
{
    OTF2_Type type = OTF2_TYPE_UINT64;
    OTF2_MetricValue v;
    v.unsigned_int = value;
    OTF2_EvtWriter_Metric(rec(g, rank, t), attrs(g), t, 0, 1, &type, &v);
}

void tg_mpi_send(tg *g, unsigned rank, uint64_t t_enter, uint64_t t_send, uint64_t t_leave,
                 unsigned dst, uint32_t tag, uint64_t bytes)
{
    tg_enter(g, rank, t_enter, TG_SEND);
    tg_send(g, rank, t_send, dst, tag, bytes);
    tg_leave(g, rank, t_leave, TG_SEND);
}

void tg_mpi_recv(tg *g, unsigned rank, uint64_t t_enter, uint64_t t_recv, uint64_t t_leave,
                 unsigned src, uint32_t tag, uint64_t bytes)
{
    tg_enter(g, rank, t_enter, TG_RECV);
    tg_recv(g, rank, t_recv, src, tag, bytes);
    tg_leave(g, rank, t_leave, TG_RECV);
}

void tg_mpi_coll(tg *g, unsigned rank, tg_region_t region, uint64_t t_enter, uint64_t t_begin,
                 uint64_t t_end, uint64_t t_leave, OTF2_CollectiveOp op, uint32_t root,
                 uint64_t sent, uint64_t received)
{
    tg_enter(g, rank, t_enter, region);
    tg_coll_begin(g, rank, t_begin);
    tg_coll_end(g, rank, t_end, op, root, sent, received);
    tg_leave(g, rank, t_leave, region);
}

void tg_recv_wild(tg *g, unsigned rank, uint64_t t, unsigned src, uint32_t tag, uint64_t bytes,
                  uint8_t bits)
{
    OTF2_AttributeList *al = OTF2_AttributeList_New();
    OTF2_AttributeList_AddUint8(al, TG_ATTR_WILDCARD, bits);
    OTF2_EvtWriter_MpiRecv(rec(g, rank, t), al, t, src, TG_COMM_WORLD, tag, bytes);
    OTF2_AttributeList_Delete(al);
    g->wildcard = true;
}

void tg_send_reply(tg *g, unsigned rank, uint64_t t, unsigned dst, uint32_t tag, uint64_t bytes,
                   uint8_t mark)
{
    OTF2_AttributeList *al = OTF2_AttributeList_New();
    OTF2_AttributeList_AddUint8(al, TG_ATTR_REPLY, mark);
    OTF2_EvtWriter_MpiSend(rec(g, rank, t), al, t, dst, TG_COMM_WORLD, tag, bytes);
    OTF2_AttributeList_Delete(al);
    g->reply = true;
}

/* Sections of the global definitions: written in this order, or with
 * TG_FORWARD_REFS in the order of fwd_order (each definition before those
 * it references).  def_sections writes the definitions of one section
 * (SEC_ALL: of every section, in the order below); ids are the same
 * either way. */
enum {
    SEC_ALL = -1, SEC_STRING, SEC_ATTR, SEC_PARADIGM, SEC_REGION, SEC_MEMBER, SEC_METRIC,
    SEC_STN_ROOT, SEC_STN, SEC_LGROUP, SEC_LOCATION, SEC_COMMLOCS, SEC_GROUP, SEC_COMM_ROOT,
    SEC_COMM, SEC_WIN, SEC_DANGLING_USER, SEC_DANGLING
};
static const int fwd_order[] = {
    SEC_DANGLING_USER, SEC_DANGLING, SEC_WIN, SEC_COMM, SEC_COMM_ROOT, SEC_GROUP,
    SEC_COMMLOCS, SEC_LOCATION, SEC_LGROUP, SEC_STN, SEC_STN_ROOT, SEC_METRIC,
    SEC_MEMBER, SEC_REGION, SEC_PARADIGM, SEC_ATTR, SEC_STRING
};

static void def_sections(tg *g, OTF2_GlobalDefWriter *gw, int want, const uint64_t *members,
                         const uint64_t *ranks)
{
    OTF2_StringRef s = 0;
    unsigned r;
    char name[64];
    OTF2_StringRef s_empty, s_machine, s_node, s_nodeA, s_nodeB, s_master, s_mpi,
        s_world, s_self, s_region0;
#define D(sec, call)                          \
    do {                                      \
        if (want == SEC_ALL || want == (sec)) \
            call;                             \
    } while (0)

    D(SEC_STRING, OTF2_GlobalDefWriter_WriteString(gw, s, ""));
    s_empty = s++;
    D(SEC_STRING, OTF2_GlobalDefWriter_WriteString(gw, s, "machine"));
    s_machine = s++;
    D(SEC_STRING, OTF2_GlobalDefWriter_WriteString(gw, s, "node"));
    s_node = s++;
    D(SEC_STRING, OTF2_GlobalDefWriter_WriteString(gw, s, "nodeA"));
    s_nodeA = s++;
    D(SEC_STRING, OTF2_GlobalDefWriter_WriteString(gw, s, "nodeB"));
    s_nodeB = s++;
    D(SEC_STRING, OTF2_GlobalDefWriter_WriteString(gw, s, "Master thread"));
    s_master = s++;
    D(SEC_STRING, OTF2_GlobalDefWriter_WriteString(gw, s, "MPI"));
    s_mpi = s++;
    D(SEC_STRING, OTF2_GlobalDefWriter_WriteString(gw, s, g->world ? g->world : "MPI_COMM_WORLD"));
    s_world = s++;
    D(SEC_STRING, OTF2_GlobalDefWriter_WriteString(gw, s, "MPI_COMM_SELF"));
    s_self = s++;
    if (g->wildcard) { /* as the unperturb tracer defines it */
        D(SEC_STRING, OTF2_GlobalDefWriter_WriteString(gw, s, "unperturb::wildcard"));
        D(SEC_ATTR, OTF2_GlobalDefWriter_WriteAttribute(gw, TG_ATTR_WILDCARD, s, s_empty, OTF2_TYPE_UINT8));
        s++;
    }
    if (g->reply) { /* as the unperturb tracer defines it */
        D(SEC_STRING, OTF2_GlobalDefWriter_WriteString(gw, s, "unperturb::reply"));
        D(SEC_ATTR, OTF2_GlobalDefWriter_WriteAttribute(gw, TG_ATTR_REPLY, s, s_empty, OTF2_TYPE_UINT8));
        s++;
    }
    s_region0 = s;
    for (r = 0; r < TG_NREGIONS; r++)
        D(SEC_STRING, OTF2_GlobalDefWriter_WriteString(gw, s_region0 + r, g->rname[r] ? g->rname[r] : regions[r].name));
    s += TG_NREGIONS;
    D(SEC_PARADIGM, OTF2_GlobalDefWriter_WriteParadigm(gw, OTF2_PARADIGM_MPI, s_mpi,
                                                       OTF2_PARADIGM_CLASS_PROCESS));
    for (r = 0; r < TG_NREGIONS; r++)
        D(SEC_REGION, OTF2_GlobalDefWriter_WriteRegion(gw, r, s_region0 + r, s_region0 + r, s_empty,
                                                       regions[r].role, regions[r].paradigm,
                                                       OTF2_REGION_FLAG_NONE, s_empty, 0, 0));
    if (g->flags & TG_CPU_METRIC) { /* as the unperturb tracer's --cpu-time */
        D(SEC_STRING, OTF2_GlobalDefWriter_WriteString(gw, s, "cpu_time"));
        D(SEC_STRING, OTF2_GlobalDefWriter_WriteString(gw, s + 1, "s"));
        D(SEC_MEMBER, OTF2_GlobalDefWriter_WriteMetricMember(gw, 0, s, s, OTF2_METRIC_TYPE_OTHER,
                                                             OTF2_METRIC_ACCUMULATED_START,
                                                             OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL,
                                                             -9, s + 1));
        D(SEC_METRIC, OTF2_GlobalDefWriter_WriteMetricClass(gw, 0, 1, (OTF2_MetricMemberRef[]){0},
                                                            OTF2_METRIC_SYNCHRONOUS,
                                                            OTF2_RECORDER_KIND_CPU));
        s += 2;
    }
    D(SEC_STN_ROOT, OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, s_machine, s_machine,
                                                             OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    D(SEC_STN, OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 1, s_nodeA, s_node, 0));
    D(SEC_STN, OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 2, s_nodeB, s_node, 0));
    for (r = 0; r < g->n; r++) {
        snprintf(name, sizeof name, "MPI Rank %u", r);
        D(SEC_STRING, OTF2_GlobalDefWriter_WriteString(gw, s, name));
        D(SEC_LGROUP, OTF2_GlobalDefWriter_WriteLocationGroup(
                          gw, r, s, OTF2_LOCATION_GROUP_TYPE_PROCESS,
                          (g->flags & TG_TWO_NODES) && (r & 1) ? 2 : 1, OTF2_UNDEFINED_LOCATION_GROUP));
        s++;
    }
    for (r = 0; r < g->n; r++) {
        OTF2_StringRef ln = s_master;
        if (g->lname[r]) {
            D(SEC_STRING, OTF2_GlobalDefWriter_WriteString(gw, s, g->lname[r]));
            ln = s++;
        }
        D(SEC_LOCATION, OTF2_GlobalDefWriter_WriteLocation(gw, tg_location(g, r), ln,
                                                           OTF2_LOCATION_TYPE_CPU_THREAD, g->nev[r], r));
    }
    D(SEC_COMMLOCS, OTF2_GlobalDefWriter_WriteGroup(gw, 0, s_empty, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                                    OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, g->n, members));
    D(SEC_GROUP, OTF2_GlobalDefWriter_WriteGroup(gw, 1, s_empty, OTF2_GROUP_TYPE_COMM_GROUP,
                                                 OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, g->n, ranks));
    D(SEC_GROUP, OTF2_GlobalDefWriter_WriteGroup(gw, 2, s_empty, OTF2_GROUP_TYPE_COMM_SELF,
                                                 OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 0, NULL));
    D(SEC_COMM_ROOT, OTF2_GlobalDefWriter_WriteComm(gw, TG_COMM_WORLD, s_world, 1, OTF2_UNDEFINED_COMM,
                                                    OTF2_COMM_FLAG_NONE));
    D(SEC_COMM_ROOT, OTF2_GlobalDefWriter_WriteComm(gw, TG_COMM_SELF, s_self, 2, OTF2_UNDEFINED_COMM,
                                                    OTF2_COMM_FLAG_NONE));
    if (g->flags & TG_RMA) { /* window TG_WIN on MPI_COMM_WORLD; groups {0} and {1..n-1} */
        D(SEC_GROUP, OTF2_GlobalDefWriter_WriteGroup(gw, TG_GROUP_RANK0, s_empty, OTF2_GROUP_TYPE_COMM_GROUP,
                                                     OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 1, ranks));
        D(SEC_GROUP, OTF2_GlobalDefWriter_WriteGroup(gw, TG_GROUP_OTHERS, s_empty, OTF2_GROUP_TYPE_COMM_GROUP,
                                                     OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, g->n - 1, ranks + 1));
        D(SEC_WIN, OTF2_GlobalDefWriter_WriteRmaWin(gw, TG_WIN, s_world, TG_COMM_WORLD, OTF2_RMA_WIN_FLAG_NONE));
    }
    if ((g->flags & TG_SUBCOMMS) && g->n >= 2) {
        static const uint64_t dup[3] = {0, 0, 1};
        D(SEC_GROUP, OTF2_GlobalDefWriter_WriteGroup(gw, 7, s_empty, OTF2_GROUP_TYPE_COMM_GROUP,
                                                     OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 1, ranks));
        D(SEC_GROUP, OTF2_GlobalDefWriter_WriteGroup(gw, 8, s_empty, OTF2_GROUP_TYPE_COMM_GROUP,
                                                     OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 2, ranks));
        D(SEC_GROUP, OTF2_GlobalDefWriter_WriteGroup(gw, 9, s_empty, OTF2_GROUP_TYPE_COMM_GROUP,
                                                     OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 3, dup));
        D(SEC_COMM, OTF2_GlobalDefWriter_WriteComm(gw, TG_COMM_ONE, s_empty, 7, TG_COMM_WORLD, OTF2_COMM_FLAG_NONE));
        D(SEC_COMM, OTF2_GlobalDefWriter_WriteComm(gw, TG_COMM_PAIR, s_empty, 8, TG_COMM_WORLD, OTF2_COMM_FLAG_NONE));
        D(SEC_COMM, OTF2_GlobalDefWriter_WriteComm(gw, TG_COMM_DUP, s_empty, 9, TG_COMM_WORLD, OTF2_COMM_FLAG_NONE));
    }
    if (g->flags & TG_OMP_TEAM) { /* Score-P's layout of an OpenMP team */
        D(SEC_COMMLOCS, OTF2_GlobalDefWriter_WriteGroup(gw, 3, s_empty, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                                        OTF2_PARADIGM_OPENMP, OTF2_GROUP_FLAG_NONE, g->n, members));
        D(SEC_GROUP, OTF2_GlobalDefWriter_WriteGroup(gw, 4, s_empty, OTF2_GROUP_TYPE_COMM_GROUP,
                                                     OTF2_PARADIGM_OPENMP, OTF2_GROUP_FLAG_NONE, g->n, ranks));
        D(SEC_COMM_ROOT, OTF2_GlobalDefWriter_WriteComm(gw, TG_COMM_TEAM, s_empty, 4, OTF2_UNDEFINED_COMM,
                                                        OTF2_COMM_FLAG_NONE));
    }
    if (g->flags & TG_DANGLING_REF) {
        /* Callpaths 1 and 2, each the other's parent (a cycle); a Callpath,
         * then its Region, named by a String never defined */
        D(SEC_DANGLING_USER, OTF2_GlobalDefWriter_WriteCallpath(gw, 1, 2, TG_MAIN));
        D(SEC_DANGLING_USER, OTF2_GlobalDefWriter_WriteCallpath(gw, 2, 1, TG_MAIN));
        D(SEC_DANGLING_USER, OTF2_GlobalDefWriter_WriteCallpath(gw, TG_CALLPATH_DANGLING, OTF2_UNDEFINED_CALLPATH,
                                                                TG_REGION_DANGLING));
        D(SEC_DANGLING, OTF2_GlobalDefWriter_WriteRegion(gw, TG_REGION_DANGLING, TG_STRING_MISSING,
                                                         TG_STRING_MISSING, s_empty, OTF2_REGION_ROLE_FUNCTION,
                                                         OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, s_empty, 0, 0));
    }
#undef D
}

int tg_close(tg *g)
{
    OTF2_GlobalDefWriter *gw;
    unsigned r;
    size_t i;
    uint64_t *members = calloc(g->n ? g->n : 1, sizeof *members);
    uint64_t *ranks = calloc(g->n ? g->n : 1, sizeof *ranks);
    int rc = 0;

    /* the Location definitions declare what was written (tests also write
     * through their own OTF2 calls, which tg_writer does not count) */
    for (r = 0; r < g->n; r++)
        OTF2_EvtWriter_GetNumberOfEvents(g->w[r], &g->nev[r]);
    for (r = 0; r < g->n; r++)
        if (OTF2_Archive_CloseEvtWriter(g->ar, g->w[r]) != OTF2_SUCCESS)
            rc = -1;
    OTF2_Archive_CloseEvtFiles(g->ar);
    OTF2_Archive_OpenDefFiles(g->ar);
    for (r = 0; r < g->n; r++)
        OTF2_Archive_CloseDefWriter(g->ar, OTF2_Archive_GetDefWriter(g->ar, tg_location(g, r)));
    OTF2_Archive_CloseDefFiles(g->ar);

    gw = OTF2_Archive_GetGlobalDefWriter(g->ar);
    OTF2_GlobalDefWriter_WriteClockProperties(gw, g->res, g->tmin == UINT64_MAX ? 0 : g->tmin,
                                              g->tmax >= g->tmin ? g->tmax - g->tmin + 1 : 0,
                                              OTF2_UNDEFINED_TIMESTAMP);
    for (r = 0; r < g->n; r++) {
        members[r] = tg_location(g, r);
        ranks[r] = r;
    }
    if (g->flags & TG_FORWARD_REFS)
        for (i = 0; i < sizeof fwd_order / sizeof fwd_order[0]; i++)
            def_sections(g, gw, fwd_order[i], members, ranks);
    else
        def_sections(g, gw, SEC_ALL, members, ranks);
    if (OTF2_Archive_Close(g->ar) != OTF2_SUCCESS)
        rc = -1;
    free(members);
    free(ranks);
    free(g->w);
    free(g->nev);
    free(g->lname);
    if (g->al)
        OTF2_AttributeList_Delete(g->al);
    free(g);
    return rc;
}

/* 3 ranks: MPI_Init, an MPI_Ssend 0 -> 1 received with MPI_ANY_SOURCE
 * after the send began, a buffer flush (Score-P's "TRACE BUFFER FLUSH") on
 * rank 2, a barrier, CPU-time metrics (TG_CPU_METRIC), MPI_Finalize; the
 * tg_open flags `flags` (tests/test_defcopy.c, tests/readers/fwdgen.c) */
int tg_small_mpi(const char *dir, unsigned flags)
{
    tg *g = tg_open(dir, 3, 1000000000, flags);
    unsigned r;
    if (!g)
        return -1;
    for (r = 0; r < 3; r++) {
        tg_enter(g, r, 10, TG_MAIN);
        tg_enter(g, r, 20 + r, TG_INIT);
        tg_leave(g, r, 1000, TG_INIT);
        if (r == 0) { /* synchronous: it ends after the receive was posted */
            tg_enter(g, 0, 2000, TG_SSEND);
            tg_send(g, 0, 2500, 1, 7, 64);
            tg_leave(g, 0, 3000, TG_SSEND);
        }
        if (r == 1) {
            tg_enter(g, 1, 3500, TG_RECV);
            tg_recv_wild(g, 1, 4000, 0, 7, 64, 1);
            tg_leave(g, 1, 4500, TG_RECV);
        }
        if (r == 2) { /* the tracer's own time: removed */
            tg_enter(g, 2, 2000, TG_FLUSH_REGION);
            tg_leave(g, 2, 4000, TG_FLUSH_REGION);
        }
        tg_metric(g, r, 5000, 100000u * (r + 1));
        tg_mpi_coll(g, r, TG_BARRIER, 6000 + 100 * r, 6010 + 100 * r, 9000, 9100 + r,
                    OTF2_COLLECTIVE_OP_BARRIER, OTF2_UNDEFINED_UINT32, 0, 0);
        tg_enter(g, r, 10000, TG_FINALIZE);
        tg_leave(g, r, 11000 + r, TG_FINALIZE);
        tg_leave(g, r, 12000, TG_MAIN);
    }
    return tg_close(g);
}
