/*
 * otf2ti.c - up-bench-otf2ti TRACE OUTDIR [FLOPS_PER_NS]: converts the MPI
 * part of an OTF2 trace into SimGrid's time-independent (TI) trace format,
 * the input of SMPI's offline replay (`smpirun -replay INDEX`), for the
 * simulate benchmark (bench/simulate.sh, bench/README.md).
 *
 * A standalone program that links only OTF2: it shares no code with src/.
 *
 * Writes OUTDIR/ti-<rank>.txt for every MPI rank and OUTDIR/index.txt, which
 * lists those files (absolute paths, rank order), one a line.  Every rank's
 * file holds one action a line, "<rank> <action> <args...>", with sizes in
 * bytes (`init` without arguments makes MPI_BYTE the replay's datatype):
 *
 *   <r> init                        first line
 *   <r> compute <flops>             time outside MPI: ns * FLOPS_PER_NS
 *   <r> send <dst> <tag> <bytes>    MpiSend        (ranks in MPI_COMM_WORLD)
 *   <r> recv <src> <tag> <bytes>    MpiRecv
 *   <r> isend <dst> <tag> <bytes>   MpiIsend
 *   <r> irecv <src> <tag> <bytes>   MpiIrecvRequest (peer and size from MpiIrecv)
 *   <r> wait <src> <dst> <tag>      MpiIsendComplete, MpiIrecv
 *   <r> barrier | bcast <bytes> <root> | reduce <bytes> 0 <root> |
 *       allreduce <bytes> 0 | allgather <s> <r> | alltoall <s> <r> |
 *       gather <s> <r> <root> | scatter <s> <r> <root>     MpiCollectiveEnd
 *   <r> finalize                    last line
 *
 * Compute: the time of a location outside MPI regions (regions of paradigm
 * MPI; nested regions count once), from its first record to its first MPI
 * Enter, between each MPI Leave and the next MPI Enter, and from its last
 * MPI Leave to its last record; consecutive intervals with no action between
 * them (MPI calls the format has no action for, such as MPI_Comm_rank, or
 * MPI_Init) make one compute action.  Converted at FLOPS_PER_NS (default 1, which
 * matches hosts of speed 1Gf: the replayed compute takes the traced time).
 * Time inside MPI calls is not written: the replay models it.
 *
 * Collective sizes follow the Score-P / unperturb tracer convention of
 * MpiCollectiveEnd (bytes this rank sends and receives in total) and are
 * turned into SMPI's per-peer counts.  Collectives on communicators other
 * than MPI_COMM_WORLD (the replay has only that one) are skipped; the
 * v-variants are replayed as their regular forms with the mean size;
 * reduce_scatter, scan and exscan as allreduce; communicator and window
 * creation are skipped.  Each is counted and reported on stderr.
 *
 * Prints on stdout: "<records> records, <actions> actions on <ranks> ranks".
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

static const char *prog = "up-bench-otf2ti";

static void die(const char *fmt, const char *a)
{
    fprintf(stderr, "%s: ", prog);
    fprintf(stderr, fmt, a);
    fputc('\n', stderr);
    exit(1);
}

static void die_rc(const char *what, OTF2_ErrorCode rc)
{
    fprintf(stderr, "%s: %s: %s (%s)\n", prog, what, OTF2_Error_GetName(rc),
            OTF2_Error_GetDescription(rc));
    exit(1);
}

static void *xrealloc(void *p, size_t n)
{
    if (!(p = realloc(p, n ? n : 1)))
        die("%s", "out of memory");
    return p;
}

/* ---- global definitions ------------------------------------------------- */

typedef struct group {
    uint64_t id;
    OTF2_GroupType type;
    OTF2_Paradigm paradigm;
    uint32_t n;
    uint64_t *members;
} group;

typedef struct comm {
    uint64_t id, group;
} comm;

typedef struct defs {
    uint64_t resolution;            /* ticks per second */
    uint64_t *locs;                 /* locations in definition order */
    size_t nlocs, caplocs;
    group *groups;
    size_t ngroups, capgroups;
    comm *comms;
    size_t ncomms, capcomms;
    uint8_t *region_mpi;            /* by region id: paradigm MPI */
    size_t nregions;
} defs;

static OTF2_CallbackCode on_clock(void *ud, uint64_t res, uint64_t off, uint64_t len, uint64_t rt)
{
    (void)off, (void)len, (void)rt;
    ((defs *)ud)->resolution = res;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
                                     OTF2_LocationType type, uint64_t nevents,
                                     OTF2_LocationGroupRef lg)
{
    defs *d = ud;
    (void)name, (void)type, (void)nevents, (void)lg;
    if (d->nlocs == d->caplocs) {
        d->caplocs = d->caplocs ? 2 * d->caplocs : 64;
        d->locs = xrealloc(d->locs, d->caplocs * sizeof *d->locs);
    }
    d->locs[d->nlocs++] = self;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name,
                                   OTF2_StringRef cname, OTF2_StringRef desc, OTF2_RegionRole role,
                                   OTF2_Paradigm paradigm, OTF2_RegionFlag flags,
                                   OTF2_StringRef file, uint32_t b, uint32_t e)
{
    defs *d = ud;
    (void)name, (void)cname, (void)desc, (void)role, (void)flags, (void)file, (void)b, (void)e;
    if (self >= d->nregions) {
        size_t n = (size_t)self + 1;
        d->region_mpi = xrealloc(d->region_mpi, n);
        memset(d->region_mpi + d->nregions, 0, n - d->nregions);
        d->nregions = n;
    }
    d->region_mpi[self] = paradigm == OTF2_PARADIGM_MPI;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name,
                                  OTF2_GroupType type, OTF2_Paradigm paradigm,
                                  OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    defs *d = ud;
    group *g;
    (void)name, (void)flags;
    if (d->ngroups == d->capgroups) {
        d->capgroups = d->capgroups ? 2 * d->capgroups : 16;
        d->groups = xrealloc(d->groups, d->capgroups * sizeof *d->groups);
    }
    g = &d->groups[d->ngroups++];
    g->id = self;
    g->type = type;
    g->paradigm = paradigm;
    g->n = n;
    g->members = xrealloc(NULL, (n ? n : 1) * sizeof *members);
    if (n)
        memcpy(g->members, members, n * sizeof *members);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name,
                                 OTF2_GroupRef grp, OTF2_CommRef parent, OTF2_CommFlag flags)
{
    defs *d = ud;
    (void)name, (void)parent, (void)flags;
    if (d->ncomms == d->capcomms) {
        d->capcomms = d->capcomms ? 2 * d->capcomms : 16;
        d->comms = xrealloc(d->comms, d->capcomms * sizeof *d->comms);
    }
    d->comms[d->ncomms].id = self;
    d->comms[d->ncomms].group = grp;
    d->ncomms++;
    return OTF2_CALLBACK_SUCCESS;
}

static const group *find_group(const defs *d, uint64_t id)
{
    for (size_t i = 0; i < d->ngroups; i++)
        if (d->groups[i].id == id)
            return &d->groups[i];
    return NULL;
}

/* ---- communicators as world-rank tables --------------------------------- */

typedef struct cmap {
    uint64_t id;
    int self;            /* MPI_COMM_SELF-like: rank 0 is the caller */
    int world;           /* every world rank, in order */
    uint32_t n;
    const uint64_t *ranks;
} cmap;

static cmap *cmaps;
static size_t ncmaps;
static long nranks;

static const cmap *find_cmap(uint64_t id)
{
    static size_t last;
    if (last < ncmaps && cmaps[last].id == id)
        return &cmaps[last];
    for (size_t i = 0; i < ncmaps; i++)
        if (cmaps[i].id == id)
            return &cmaps[last = i];
    return NULL;
}

/* ---- per location conversion -------------------------------------------- */

typedef struct req {
    uint64_t id;
    int kind;            /* 's' isend, 'r' irecv */
    long line;           /* irecv: index of its placeholder in `pend` */
    long peer;           /* isend: destination (world rank) */
    uint32_t tag;        /* isend: tag */
} req;

typedef struct state {
    FILE *f;
    long rank;
    double ns_per_tick, flops_per_ns;
    const uint8_t *region_mpi;
    size_t nregions;
    double flops;        /* compute not written yet (consecutive ones merge) */
    int depth;           /* open MPI regions */
    int started;
    uint64_t t_free;     /* when the location last left MPI (or its first record) */
    uint64_t t_last;     /* its last record */
    uint64_t actions;
    /* outstanding nonblocking requests */
    req *reqs;
    size_t nreqs, capreqs;
    /* lines held back while an irecv's peer is not known yet (NULL: placeholder) */
    char **pend;
    long npend, cappend, unresolved;
} state;

static uint64_t n_skipped_comm, n_approx, n_skipped_other, n_unmatched;

static void out_line(state *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_line(state *s, const char *text);

/* Writes the pending compute, if any, as one action. */
static void flush_compute(state *s)
{
    char buf[64];
    if (s->flops > 0) {
        snprintf(buf, sizeof buf, "compute %.15g", s->flops);
        s->flops = 0;
        add_line(s, buf);
    }
}

static void out_line(state *s, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf)
        die("%s", "TI line too long");
    flush_compute(s);
    add_line(s, buf);
}

static void add_line(state *s, const char *text)
{
    s->actions++;
    if (!s->unresolved) {
        fprintf(s->f, "%ld %s\n", s->rank, text);
        return;
    }
    if (s->npend == s->cappend) {
        s->cappend = s->cappend ? 2 * s->cappend : 64;
        s->pend = xrealloc(s->pend, (size_t)s->cappend * sizeof *s->pend);
    }
    if (!(s->pend[s->npend++] = strdup(text)))
        die("%s", "out of memory");
}

static long placeholder(state *s)
{
    flush_compute(s);
    if (s->npend == s->cappend) {
        s->cappend = s->cappend ? 2 * s->cappend : 64;
        s->pend = xrealloc(s->pend, (size_t)s->cappend * sizeof *s->pend);
    }
    s->pend[s->npend] = NULL;
    s->unresolved++;
    s->actions++;
    return s->npend++;
}

/* Writes the held-back lines once no placeholder is left open. */
static void flush_pend(state *s)
{
    if (s->unresolved)
        return;
    for (long i = 0; i < s->npend; i++) {
        if (s->pend[i])
            fprintf(s->f, "%ld %s\n", s->rank, s->pend[i]);
        free(s->pend[i]);
    }
    s->npend = 0;
}

static void resolve(state *s, long line, const char *text)
{
    if (text) {
        if (!(s->pend[line] = strdup(text)))
            die("%s", "out of memory");
    } else {             /* cancelled: drop the placeholder */
        s->pend[line] = NULL;
        s->actions--;
    }
    s->unresolved--;
    flush_pend(s);
}

static void add_req(state *s, uint64_t id, int kind, long line, long peer, uint32_t tag)
{
    if (s->nreqs == s->capreqs) {
        s->capreqs = s->capreqs ? 2 * s->capreqs : 16;
        s->reqs = xrealloc(s->reqs, s->capreqs * sizeof *s->reqs);
    }
    s->reqs[s->nreqs].id = id;
    s->reqs[s->nreqs].kind = kind;
    s->reqs[s->nreqs].line = line;
    s->reqs[s->nreqs].peer = peer;
    s->reqs[s->nreqs].tag = tag;
    s->nreqs++;
}

static int take_req(state *s, uint64_t id, req *out)
{
    for (size_t i = s->nreqs; i-- > 0;)
        if (s->reqs[i].id == id) {
            *out = s->reqs[i];
            s->reqs[i] = s->reqs[--s->nreqs];
            return 1;
        }
    return 0;
}

/* World rank of `peer` in communicator `c`; -1 if unknown. */
static long world_of(const state *s, uint64_t c, uint32_t peer)
{
    const cmap *m = find_cmap(c);
    if (!m)
        return -1;
    if (m->self)
        return peer == 0 ? s->rank : -1;
    if (m->world)
        return peer < m->n ? (long)peer : -1;
    return peer < m->n ? (long)m->ranks[peer] : -1;
}

static void compute(state *s, uint64_t t)
{
    if (t > s->t_free)
        s->flops += (double)(t - s->t_free) * s->ns_per_tick * s->flops_per_ns;
}

static void first(state *s, uint64_t t)
{
    if (!s->started) {
        s->started = 1;
        s->t_free = t;
    }
    s->t_last = t;
}

static OTF2_CallbackCode ev_enter(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef r)
{
    state *s = ud;
    (void)loc, (void)pos, (void)al;
    first(s, t);
    if (r < s->nregions && s->region_mpi[r]) {
        if (s->depth++ == 0)
            compute(s, t);
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_leave(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef r)
{
    state *s = ud;
    (void)loc, (void)pos, (void)al;
    first(s, t);
    if (r < s->nregions && s->region_mpi[r] && s->depth > 0) {
        if (--s->depth == 0)
            s->t_free = t;
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* A send, receive or isend to or from `peer` of communicator c: one action
 * line; returns the peer's world rank, or -1 (counted) if it has none. */
static long p2p_line(state *s, OTF2_TimeStamp t, const char *action, OTF2_CommRef c,
                     uint32_t peer, uint32_t tag, uint64_t len)
{
    long w = world_of(s, c, peer);
    first(s, t);
    if (w < 0)
        n_unmatched++;
    else
        out_line(s, "%s %ld %" PRIu32 " %" PRIu64, action, w, tag, len);
    return w;
}

static OTF2_CallbackCode ev_send(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                                 OTF2_AttributeList *al, uint32_t peer, OTF2_CommRef c,
                                 uint32_t tag, uint64_t len)
{
    (void)loc, (void)pos, (void)al;
    p2p_line(ud, t, "send", c, peer, tag, len);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_recv(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                                 OTF2_AttributeList *al, uint32_t peer, OTF2_CommRef c,
                                 uint32_t tag, uint64_t len)
{
    (void)loc, (void)pos, (void)al;
    p2p_line(ud, t, "recv", c, peer, tag, len);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_isend(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                                  OTF2_AttributeList *al, uint32_t peer, OTF2_CommRef c,
                                  uint32_t tag, uint64_t len, uint64_t id)
{
    long w;
    (void)loc, (void)pos, (void)al;
    if ((w = p2p_line(ud, t, "isend", c, peer, tag, len)) >= 0)
        add_req(ud, id, 's', -1, w, tag); /* its wait names (src, dst, tag) */
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_isend_complete(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                           void *ud, OTF2_AttributeList *al, uint64_t id)
{
    state *s = ud;
    req q;
    (void)loc, (void)pos, (void)al;
    first(s, t);
    if (!take_req(s, id, &q) || q.kind != 's') {
        n_unmatched++;
        return OTF2_CALLBACK_SUCCESS;
    }
    out_line(s, "wait %ld %ld %" PRIu32, s->rank, q.peer, q.tag);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_irecv_request(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                          void *ud, OTF2_AttributeList *al, uint64_t id)
{
    state *s = ud;
    (void)loc, (void)pos, (void)al;
    first(s, t);
    add_req(s, id, 'r', placeholder(s), -1, 0);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_irecv(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                                  OTF2_AttributeList *al, uint32_t peer, OTF2_CommRef c,
                                  uint32_t tag, uint64_t len, uint64_t id)
{
    state *s = ud;
    long w = world_of(s, c, peer);
    char buf[96];
    req q;
    (void)loc, (void)pos, (void)al;
    first(s, t);
    if (!take_req(s, id, &q) || q.kind != 'r') {
        n_unmatched++;
        return OTF2_CALLBACK_SUCCESS;
    }
    if (w < 0) {
        n_unmatched++;
        resolve(s, q.line, NULL);
        return OTF2_CALLBACK_SUCCESS;
    }
    snprintf(buf, sizeof buf, "irecv %ld %" PRIu32 " %" PRIu64, w, tag, len);
    resolve(s, q.line, buf);
    out_line(s, "wait %ld %ld %" PRIu32, w, s->rank, tag);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_cancelled(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                      void *ud, OTF2_AttributeList *al, uint64_t id)
{
    state *s = ud;
    req q;
    (void)loc, (void)pos, (void)al;
    first(s, t);
    if (take_req(s, id, &q) && q.kind == 'r')
        resolve(s, q.line, NULL);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_coll_begin(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                       void *ud, OTF2_AttributeList *al)
{
    (void)loc, (void)pos, (void)al;
    first(ud, t);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_coll_end(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                     void *ud, OTF2_AttributeList *al, OTF2_CollectiveOp op,
                                     OTF2_CommRef c, uint32_t root, uint64_t sent, uint64_t recvd)
{
    state *s = ud;
    const cmap *m = find_cmap(c);
    uint64_t n = (uint64_t)nranks;
    long wroot;
    (void)loc, (void)pos, (void)al;
    first(s, t);
    if (op == OTF2_COLLECTIVE_OP_CREATE_HANDLE || op == OTF2_COLLECTIVE_OP_DESTROY_HANDLE ||
        op == OTF2_COLLECTIVE_OP_ALLOCATE || op == OTF2_COLLECTIVE_OP_DEALLOCATE ||
        op == OTF2_COLLECTIVE_OP_CREATE_HANDLE_AND_ALLOCATE ||
        op == OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE) {
        n_skipped_other++;
        return OTF2_CALLBACK_SUCCESS;
    }
    if (!m || !m->world) {
        n_skipped_comm++;
        return OTF2_CALLBACK_SUCCESS;
    }
    wroot = root < n ? (long)root : 0;
    switch (op) {
    case OTF2_COLLECTIVE_OP_BARRIER:
        out_line(s, "barrier");
        break;
    case OTF2_COLLECTIVE_OP_BCAST:
        out_line(s, "bcast %" PRIu64 " %ld", s->rank == wroot ? (n > 1 ? sent / (n - 1) : sent) : recvd,
                 wroot);
        break;
    case OTF2_COLLECTIVE_OP_REDUCE:
        out_line(s, "reduce %" PRIu64 " 0 %ld", sent, wroot);
        break;
    case OTF2_COLLECTIVE_OP_ALLREDUCE:
        out_line(s, "allreduce %" PRIu64 " 0", sent > recvd ? sent : recvd);
        break;
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
    case OTF2_COLLECTIVE_OP_SCAN:
    case OTF2_COLLECTIVE_OP_EXSCAN:
        n_approx++;
        out_line(s, "allreduce %" PRIu64 " 0", sent > recvd ? sent : recvd);
        break;
    case OTF2_COLLECTIVE_OP_ALLGATHERV:
        n_approx++;
        /* fall through */
    case OTF2_COLLECTIVE_OP_ALLGATHER:
        out_line(s, "allgather %" PRIu64 " %" PRIu64, sent / n, recvd / n);
        break;
    case OTF2_COLLECTIVE_OP_ALLTOALLV:
    case OTF2_COLLECTIVE_OP_ALLTOALLW:
        n_approx++;
        /* fall through */
    case OTF2_COLLECTIVE_OP_ALLTOALL:
        out_line(s, "alltoall %" PRIu64 " %" PRIu64, sent / n, recvd / n);
        break;
    case OTF2_COLLECTIVE_OP_GATHERV:
        n_approx++;
        /* fall through */
    case OTF2_COLLECTIVE_OP_GATHER:
        out_line(s, "gather %" PRIu64 " %" PRIu64 " %ld", sent, s->rank == wroot ? recvd / n : sent,
                 wroot);
        break;
    case OTF2_COLLECTIVE_OP_SCATTERV:
        n_approx++;
        /* fall through */
    case OTF2_COLLECTIVE_OP_SCATTER:
        out_line(s, "scatter %" PRIu64 " %" PRIu64 " %ld", s->rank == wroot ? sent / n : recvd,
                 recvd, wroot);
        break;
    default:
        n_skipped_other++;
        break;
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* ---- main ------------------------------------------------------------------ */

static char *anchor_of(const char *path)
{
    struct stat st;
    size_t n = strlen(path) + sizeof "/traces.otf2";
    char *a = xrealloc(NULL, n);
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(a, n, "%s/traces.otf2", path);
    else
        snprintf(a, n, "%s", path);
    return a;
}

int main(int argc, char **argv)
{
    OTF2_Reader *rd;
    OTF2_GlobalDefReader *gr;
    OTF2_GlobalDefReaderCallbacks *gcb;
    OTF2_EvtReaderCallbacks *ecb;
    OTF2_ErrorCode rc;
    defs d = {0};
    const group *locs_g = NULL;
    long *rank_of;   /* by index in d.locs; -1: not an MPI rank */
    char dir[PATH_MAX], path[PATH_MAX + 32];
    uint64_t n, records = 0, actions = 0;
    double flops_per_ns = 1;
    int defs_open;
    FILE *idx;
    char *anchor, *end;
    size_t i;

    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: %s TRACE OUTDIR [FLOPS_PER_NS=1]\n", prog);
        return 2;
    }
    if (argc == 4) {
        errno = 0;
        flops_per_ns = strtod(argv[3], &end);
        if (end == argv[3] || *end || errno || !(flops_per_ns > 0)) {
            fprintf(stderr, "%s: bad FLOPS_PER_NS '%s'\n", prog, argv[3]);
            return 2;
        }
    }
    if (mkdir(argv[2], 0777) != 0 && errno != EEXIST)
        die("cannot create '%s'", argv[2]);
    if (!realpath(argv[2], dir))
        die("cannot resolve '%s'", argv[2]);

    anchor = anchor_of(argv[1]);
    if (!(rd = OTF2_Reader_Open(anchor)))
        die("cannot open '%s'", anchor);
    if ((rc = OTF2_Reader_SetSerialCollectiveCallbacks(rd)) != OTF2_SUCCESS)
        die_rc("OTF2_Reader_SetSerialCollectiveCallbacks", rc);

    /* global definitions */
    d.resolution = 1000000000u;
    if (!(gr = OTF2_Reader_GetGlobalDefReader(rd)) || !(gcb = OTF2_GlobalDefReaderCallbacks_New()))
        die("cannot read the global definitions of '%s'", anchor);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(gcb, on_clock);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, on_location);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(gcb, on_region);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(gcb, on_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(gcb, on_comm);
    if ((rc = OTF2_Reader_RegisterGlobalDefCallbacks(rd, gr, gcb, &d)) != OTF2_SUCCESS ||
        (rc = OTF2_Reader_ReadAllGlobalDefinitions(rd, gr, &n)) != OTF2_SUCCESS ||
        (rc = OTF2_Reader_CloseGlobalDefReader(rd, gr)) != OTF2_SUCCESS)
        die_rc("reading the global definitions", rc);
    OTF2_GlobalDefReaderCallbacks_Delete(gcb);
    if (!d.resolution)
        d.resolution = 1000000000u;

    /* MPI ranks: the MPI COMM_LOCATIONS group (rank i = member i), else
     * every location in definition order */
    for (i = 0; i < d.ngroups; i++)
        if (d.groups[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS &&
            d.groups[i].paradigm == OTF2_PARADIGM_MPI)
            locs_g = &d.groups[i];
    rank_of = xrealloc(NULL, (d.nlocs ? d.nlocs : 1) * sizeof *rank_of);
    nranks = locs_g ? (long)locs_g->n : (long)d.nlocs;
    for (i = 0; i < d.nlocs; i++) {
        rank_of[i] = locs_g ? -1 : (long)i;
        if (locs_g)
            for (uint32_t k = 0; k < locs_g->n; k++)
                if (locs_g->members[k] == d.locs[i]) {
                    rank_of[i] = (long)k;
                    break;
                }
    }
    if (nranks < 1)
        die("%s: no MPI ranks", anchor);

    /* communicators: world-rank tables */
    cmaps = xrealloc(NULL, (d.ncomms ? d.ncomms : 1) * sizeof *cmaps);
    for (i = 0; i < d.ncomms; i++) {
        const group *g = find_group(&d, d.comms[i].group);
        cmap *m = &cmaps[ncmaps++];
        memset(m, 0, sizeof *m);
        m->id = d.comms[i].id;
        if (!g)
            continue;
        if (g->type == OTF2_GROUP_TYPE_COMM_SELF) {
            m->self = 1;
            m->n = 1;
            continue;
        }
        m->n = g->n;
        m->ranks = g->members;
        m->world = g->n == (uint64_t)nranks;
        for (uint32_t k = 0; m->world && k < g->n; k++)
            m->world = g->members[k] == k;
    }

    /* events, one location after the other */
    for (i = 0; i < d.nlocs; i++)
        if (rank_of[i] >= 0 && (rc = OTF2_Reader_SelectLocation(rd, d.locs[i])) != OTF2_SUCCESS)
            die_rc("OTF2_Reader_SelectLocation", rc);
    defs_open = OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS;
    if ((rc = OTF2_Reader_OpenEvtFiles(rd)) != OTF2_SUCCESS)
        die_rc("OTF2_Reader_OpenEvtFiles", rc);
    if (!(ecb = OTF2_EvtReaderCallbacks_New()))
        die("%s", "out of memory");
    OTF2_EvtReaderCallbacks_SetEnterCallback(ecb, ev_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(ecb, ev_leave);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(ecb, ev_send);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(ecb, ev_recv);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(ecb, ev_isend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(ecb, ev_isend_complete);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(ecb, ev_irecv_request);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(ecb, ev_irecv);
    OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(ecb, ev_cancelled);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(ecb, ev_coll_begin);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(ecb, ev_coll_end);

    for (i = 0; i < d.nlocs; i++) {
        OTF2_EvtReader *er;
        state s;
        static char iobuf[1 << 20];
        if (rank_of[i] < 0)
            continue;
        if (defs_open) {
            OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, d.locs[i]);
            if (dr) {
                if ((rc = OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n)) != OTF2_SUCCESS)
                    die_rc("reading local definitions", rc);
                OTF2_Reader_CloseDefReader(rd, dr);
            }
        }
        if (!(er = OTF2_Reader_GetEvtReader(rd, d.locs[i])))
            die("%s", "no event reader for a location");
        memset(&s, 0, sizeof s);
        s.rank = rank_of[i];
        s.ns_per_tick = 1e9 / (double)d.resolution;
        s.flops_per_ns = flops_per_ns;
        s.region_mpi = d.region_mpi;
        s.nregions = d.nregions;
        snprintf(path, sizeof path, "%s/ti-%ld.txt", dir, s.rank);
        if (!(s.f = fopen(path, "w")))
            die("cannot create '%s'", path);
        setvbuf(s.f, iobuf, _IOFBF, sizeof iobuf);
        out_line(&s, "init");
        if ((rc = OTF2_Reader_RegisterEvtCallbacks(rd, er, ecb, &s)) != OTF2_SUCCESS)
            die_rc("OTF2_Reader_RegisterEvtCallbacks", rc);
        n = 0;
        if ((rc = OTF2_Reader_ReadAllLocalEvents(rd, er, &n)) != OTF2_SUCCESS)
            die_rc("reading events", rc);
        records += n;
        OTF2_Reader_CloseEvtReader(rd, er);
        /* requests never completed: their placeholders go */
        for (size_t k = 0; k < s.nreqs; k++) {
            if (s.reqs[k].kind == 'r')
                resolve(&s, s.reqs[k].line, NULL);
            n_unmatched++;
        }
        if (s.depth == 0 && s.started)
            compute(&s, s.t_last);
        out_line(&s, "finalize");
        flush_pend(&s);
        if (fclose(s.f) != 0)
            die("writing '%s' failed", path);
        actions += s.actions;
        free(s.reqs);
        free(s.pend);
    }
    if (defs_open)
        OTF2_Reader_CloseDefFiles(rd);
    OTF2_Reader_CloseEvtFiles(rd);
    OTF2_EvtReaderCallbacks_Delete(ecb);
    OTF2_Reader_Close(rd);

    snprintf(path, sizeof path, "%s/index.txt", dir);
    if (!(idx = fopen(path, "w")))
        die("cannot create '%s'", path);
    for (long r = 0; r < nranks; r++)
        fprintf(idx, "%s/ti-%ld.txt\n", dir, r);
    if (fclose(idx) != 0)
        die("writing '%s' failed", path);

    if (n_skipped_comm || n_approx || n_skipped_other || n_unmatched)
        fprintf(stderr,
                "%s: %" PRIu64 " collectives on sub-communicators skipped, %" PRIu64
                " approximated, %" PRIu64 " other collective records skipped, %" PRIu64
                " unmatched point-to-point records\n",
                prog, n_skipped_comm, n_approx, n_skipped_other, n_unmatched);
    printf("%" PRIu64 " records, %" PRIu64 " actions on %ld ranks\n", records, actions, nranks);
    for (i = 0; i < d.ngroups; i++)
        free(d.groups[i].members);
    free(d.groups);
    free(d.comms);
    free(d.locs);
    free(d.region_mpi);
    free(cmaps);
    free(rank_of);
    free(anchor);
    return 0;
}
