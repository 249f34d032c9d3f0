/*
 * tool.c - up-fuzz-tool: the seeds of the OTF2 fuzz targets, and their
 * inputs turned back into archives (tests/fuzz/README.md).
 *
 *   up-fuzz-tool pack [-s] DIR|ANCHOR OUT
 *                                       an archive -> one container file; -s
 *                                       sets its chunk sizes to OTF2's least,
 *                                       256 KiB, when every chunk fits (the
 *                                       fuzzer runs several times faster)
 *   up-fuzz-tool unpack IN DIR          a container -> an archive in DIR
 *   up-fuzz-tool options IN OUT N       a copy of IN with options byte N
 *                                       (fuzz.h: the mode of "otf2", the pass
 *                                       of "analysis")
 *   up-fuzz-tool gen OUTDIR             writes test archives with OTF2's own
 *                                       writer (src/tracegen.c) and packs
 *                                       each into OUTDIR/tg-<name>
 *
 * Place in the data flow: beside the fuzz targets; not part of a run.  A
 * packed file of more than one chunk keeps of each chunk only what comes
 * before its end-of-chunk mark (the rest is a hole again when unpacked).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "trace/scan.h"
#include "tracegen/tracegen.h"

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    uint8_t *b = NULL;
    long len;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (b = malloc((size_t)len + 1)) && fread(b, 1, (size_t)len, f) == (size_t)len) {
        *n = (size_t)len;
    } else {
        free(b);
        b = NULL;
    }
    fclose(f);
    return b;
}

/* ---- pack ------------------------------------------------------------------ */

typedef struct pack {
    fz_member m[FZ_MAX_MEMBERS];
    uint8_t *own[FZ_MAX_MEMBERS];
    size_t n;
    uint64_t chunk_evt, chunk_def;
} pack;

static int add_member(pack *p, unsigned tag, unsigned loc, const uint8_t *d, size_t len)
{
    if (p->n == FZ_MAX_MEMBERS) {
        fprintf(stderr, "up-fuzz-tool: more than %d files\n", FZ_MAX_MEMBERS);
        return -1;
    }
    p->m[p->n].tag = tag;
    p->m[p->n].loc = loc;
    p->m[p->n].data = d;
    p->m[p->n].len = len;
    p->n++;
    return 0;
}

/* A chunked file: one member per chunk, each cut after its end mark. */
static int add_chunked(pack *p, const char *path, unsigned kind, unsigned loc)
{
    uint64_t cs = kind == FZ_EVENTS ? p->chunk_evt : p->chunk_def;
    size_t n, at, i = 0;
    uint8_t *d = slurp(path, &n);
    if (!d)
        return errno == ENOENT ? 0 : -1;
    p->own[p->n] = d;
    for (at = 0; at < n || at == 0; at += cs, i++) {
        size_t len = n - at < cs ? n - at : cs;
        if (at + len < n) { /* not the last chunk: up to its end mark */
            fz_tok t[4096];
            size_t k = fz_tokens(d + at, len, kind == FZ_EVENTS, t, 4096);
            if (k && t[k - 1].kind == FZ_TOK_END)
                len = t[k - 1].off + 1;
        }
        if (add_member(p, kind | (i ? FZ_CONT : 0), loc, d + at, len) != 0)
            return -1;
        if (n == 0)
            break;
    }
    return 0;
}

static int cmd_pack(const char *in, const char *out, bool small)
{
    pack p = {0};
    char anchor[4096], base[4096], path[8400];
    struct stat st;
    size_t an, size, i;
    uint8_t *a, *buf;
    DIR *dir;
    struct dirent *e;
    unsigned j;
    FILE *f;

    if (stat(in, &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(anchor, sizeof anchor, "%s/traces.otf2", in);
    else
        snprintf(anchor, sizeof anchor, "%s", in);
    if (!(a = slurp(anchor, &an)) || an < 28) {
        fprintf(stderr, "up-fuzz-tool: cannot read the anchor %s\n", anchor);
        return 1;
    }
    for (j = 0; j < 8; j++) {
        p.chunk_evt |= (uint64_t)a[12 + (a[1] == 0x23 ? 7 - j : j)] << (8 * j);
        p.chunk_def |= (uint64_t)a[20 + (a[1] == 0x23 ? 7 - j : j)] << (8 * j);
    }
    snprintf(base, sizeof base, "%.*s", (int)(strlen(anchor) - 5), anchor); /* .../traces */
    p.own[0] = a;
    add_member(&p, FZ_ANCHOR, 0, a, an);
    snprintf(path, sizeof path, "%s.def", base);
    if (add_chunked(&p, path, FZ_GDEFS, 0) != 0)
        return 1;
    if (!(dir = opendir(base))) {
        fprintf(stderr, "up-fuzz-tool: cannot read %s\n", base);
        return 1;
    }
    while ((e = readdir(dir))) { /* <loc>.def, <loc>.evt, <loc>.stalls for loc < 256 */
        char *end;
        unsigned long loc = strtoul(e->d_name, &end, 10);
        unsigned kind;
        if (end == e->d_name || loc > 255)
            continue;
        if (!strcmp(end, ".def"))
            kind = FZ_LDEFS;
        else if (!strcmp(end, ".evt"))
            kind = FZ_EVENTS;
        else if (!strcmp(end, ".stalls"))
            kind = FZ_STALLS;
        else
            continue;
        snprintf(path, sizeof path, "%s/%s", base, e->d_name);
        if (kind == FZ_STALLS) {
            size_t sn;
            uint8_t *s = slurp(path, &sn);
            if (!s || (p.own[p.n] = s, add_member(&p, kind, (unsigned)loc, s, sn)) != 0)
                return 1;
        } else if (add_chunked(&p, path, kind, (unsigned)loc) != 0) {
            return 1;
        }
    }
    closedir(dir);
    for (i = 0; small && i < p.n; i++)
        small = p.m[i].len <= 256u * 1024u;
    if (small) { /* both chunk sizes 256 KiB, in the anchor's byte order */
        for (j = 0; j < 8; j++)
            a[12 + j] = a[20 + j] = (uint8_t)((uint64_t)256 * 1024 >> (8 * (a[1] == 0x23 ? 7 - j : j)));
    }
    for (size = 0, i = 0; i < p.n; i++)
        size += FZ_HEAD + p.m[i].len;
    if (!(buf = malloc(size ? size : 1)) || fz_serialize(p.m, p.n, buf, size) != size ||
        !(f = fopen(out, "wb")) || fwrite(buf, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "up-fuzz-tool: cannot write %s\n", out);
        return 1;
    }
    for (i = 0; i < FZ_MAX_MEMBERS; i++)
        free(p.own[i]);
    free(buf);
    return 0;
}

static int cmd_unpack(const char *in, const char *dir)
{
    fz_member m[FZ_MAX_MEMBERS];
    size_t n, k;
    uint8_t *d = slurp(in, &n);
    if (!d) {
        fprintf(stderr, "up-fuzz-tool: cannot read %s\n", in);
        return 1;
    }
    k = fz_parse(d, n, m, FZ_MAX_MEMBERS);
    if ((mkdir(dir, 0755) != 0 && errno != EEXIST) || fz_archive_write_to(dir, m, k) != 0) {
        fprintf(stderr, "up-fuzz-tool: cannot write %s: %s\n", dir, strerror(errno));
        free(d);
        return 1;
    }
    printf("%s/traces.otf2 (options byte %u)\n", dir, fz_options(m, k));
    free(d);
    return 0;
}

static int cmd_options(const char *in, const char *out, const char *num)
{
    fz_member m[FZ_MAX_MEMBERS];
    size_t n, k, i;
    uint8_t *d = slurp(in, &n), *buf = malloc(n + 1);
    FILE *f;
    int rc = 1;
    if (!d || !buf) {
        fprintf(stderr, "up-fuzz-tool: cannot read %s\n", in);
    } else {
        k = fz_parse(d, n, m, FZ_MAX_MEMBERS);
        for (i = 0; i < k && fz_kind(m[i].tag) != FZ_ANCHOR; i++)
            ;
        if (i < k)
            m[i].loc = (unsigned)strtoul(num, NULL, 0) & 0xffu;
        n = fz_serialize(m, k, buf, n);
        if ((f = fopen(out, "wb")) && fwrite(buf, 1, n, f) == n && fclose(f) == 0)
            rc = 0;
        else
            fprintf(stderr, "up-fuzz-tool: cannot write %s\n", out);
    }
    free(d);
    free(buf);
    return rc;
}

/* ---- gen: archives written by OTF2 itself ---------------------------------------- */

static void frame(tg *g, unsigned n, uint64_t t0, uint64_t t1)
{
    unsigned r;
    for (r = 0; r < n; r++) {
        tg_enter(g, r, t0, TG_MAIN);
        tg_enter(g, r, t0 + 1, TG_INIT);
        tg_leave(g, r, t0 + 5, TG_INIT);
    }
    (void)t1;
}

static void unframe(tg *g, unsigned n, uint64_t t1)
{
    unsigned r;
    for (r = 0; r < n; r++) {
        tg_enter(g, r, t1, TG_FINALIZE);
        tg_leave(g, r, t1 + 5, TG_FINALIZE);
        tg_leave(g, r, t1 + 6, TG_MAIN);
    }
}

/* point to point, a barrier, a flush, a wildcard receive */
static void gen_p2p(tg *g)
{
    frame(g, 2, 100, 0);
    tg_mpi_send(g, 0, 110, 120, 130, 1, 7, 64);
    tg_mpi_recv(g, 1, 105, 140, 150, 0, 7, 64);
    tg_flush(g, 0, 160, 200);
    tg_enter(g, 1, 160, TG_RECV);
    tg_recv_wild(g, 1, 230, 0, 8, 1 << 20, 3);
    tg_leave(g, 1, 240, TG_RECV);
    tg_mpi_send(g, 0, 210, 220, 250, 1, 8, 1 << 20);
    tg_mpi_coll(g, 0, TG_BARRIER, 300, 301, 320, 321, OTF2_COLLECTIVE_OP_BARRIER, OTF2_UNDEFINED_UINT32, 0, 0);
    tg_mpi_coll(g, 1, TG_BARRIER, 310, 311, 320, 322, OTF2_COLLECTIVE_OP_BARRIER, OTF2_UNDEFINED_UINT32, 0, 0);
    unframe(g, 2, 400);
}

/* collectives of every class and a synchronous send, on two nodes */
static void gen_coll(tg *g)
{
    unsigned r;
    frame(g, 4, 1000, 0);
    for (r = 0; r < 4; r++) {
        uint64_t t = 1100 + 10 * r;
        tg_mpi_coll(g, r, TG_BCAST, t, t + 1, t + 50, t + 51, OTF2_COLLECTIVE_OP_BCAST, 0, r ? 0 : 96, r ? 32 : 0);
        tg_mpi_coll(g, r, TG_REDUCE, t + 100, t + 101, t + 150, t + 151, OTF2_COLLECTIVE_OP_REDUCE, 2, 8, r == 2 ? 32 : 0);
        tg_mpi_coll(g, r, TG_ALLREDUCE, t + 200, t + 201, t + 260, t + 261, OTF2_COLLECTIVE_OP_ALLREDUCE,
                    OTF2_UNDEFINED_UINT32, 8, 8);
    }
    tg_enter(g, 0, 1500, TG_SSEND);
    tg_send(g, 0, 1501, 3, 1, 100000);
    tg_leave(g, 0, 1600, TG_SSEND);
    tg_mpi_recv(g, 3, 1550, 1599, 1601, 0, 1, 100000);
    tg_enter(g, 1, 1500, TG_SENDRECV);
    tg_send(g, 1, 1501, 2, 3, 10);
    tg_recv(g, 1, 1520, 2, 3, 10);
    tg_leave(g, 1, 1521, TG_SENDRECV);
    tg_enter(g, 2, 1500, TG_SENDRECV);
    tg_send(g, 2, 1501, 1, 3, 10);
    tg_recv(g, 2, 1520, 1, 3, 10);
    tg_leave(g, 2, 1521, TG_SENDRECV);
    unframe(g, 4, 2000);
}

/* nonblocking point to point and collectives, communicator records */
static void gen_nonblocking(tg *g)
{
    frame(g, 2, 10, 0);
    tg_enter(g, 0, 20, TG_ISEND);
    OTF2_EvtWriter_MpiIsend(tg_writer(g, 0), NULL, 21, 1, TG_COMM_WORLD, 4, 128, 77);
    tg_leave(g, 0, 22, TG_ISEND);
    tg_enter(g, 1, 20, TG_IRECV);
    OTF2_EvtWriter_MpiIrecvRequest(tg_writer(g, 1), NULL, 21, 78);
    tg_leave(g, 1, 22, TG_IRECV);
    tg_enter(g, 0, 30, TG_WAIT);
    OTF2_EvtWriter_MpiRequestTest(tg_writer(g, 0), NULL, 31, 77);
    OTF2_EvtWriter_MpiIsendComplete(tg_writer(g, 0), NULL, 32, 77);
    tg_leave(g, 0, 33, TG_WAIT);
    tg_enter(g, 1, 30, TG_WAIT);
    OTF2_EvtWriter_MpiIrecv(tg_writer(g, 1), NULL, 40, 0, TG_COMM_WORLD, 4, 128, 78);
    tg_leave(g, 1, 41, TG_WAIT);
    tg_enter(g, 1, 42, TG_IRECV);
    OTF2_EvtWriter_MpiIrecvRequest(tg_writer(g, 1), NULL, 43, 79);
    tg_leave(g, 1, 44, TG_IRECV);
    OTF2_EvtWriter_MpiRequestCancelled(tg_writer(g, 1), NULL, 45, 79);
    for (unsigned r = 0; r < 2; r++) {
        OTF2_EvtWriter_NonBlockingCollectiveRequest(tg_writer(g, r), NULL, 50, 90 + r);
        OTF2_EvtWriter_NonBlockingCollectiveComplete(tg_writer(g, r), NULL, 60 + r, OTF2_COLLECTIVE_OP_ALLREDUCE,
                                                     TG_COMM_WORLD, OTF2_UNDEFINED_UINT32, 8, 8, 90 + r);
        OTF2_EvtWriter_CommCreate(tg_writer(g, r), NULL, 70, TG_COMM_SELF);
        OTF2_EvtWriter_CommDestroy(tg_writer(g, r), NULL, 71, TG_COMM_SELF);
    }
    unframe(g, 2, 100);
}

/* one-sided communication */
static void gen_rma(tg *g)
{
    unsigned r;
    frame(g, 2, 10, 0);
    for (r = 0; r < 2; r++) {
        OTF2_EvtWriter_RmaWinCreate(tg_writer(g, r), NULL, 20, TG_WIN);
        tg_enter(g, r, 21, TG_WIN_FENCE);
        OTF2_EvtWriter_RmaCollectiveBegin(tg_writer(g, r), NULL, 22);
        OTF2_EvtWriter_RmaCollectiveEnd(tg_writer(g, r), NULL, 30 + r, OTF2_COLLECTIVE_OP_BARRIER,
                                        OTF2_RMA_SYNC_LEVEL_PROCESS, TG_WIN, OTF2_UNDEFINED_UINT32, 0, 0);
        tg_leave(g, r, 32, TG_WIN_FENCE);
    }
    tg_enter(g, 0, 40, TG_WIN_START);
    OTF2_EvtWriter_RmaGroupSync(tg_writer(g, 0), NULL, 41, OTF2_RMA_SYNC_LEVEL_PROCESS, TG_WIN, TG_GROUP_OTHERS);
    tg_leave(g, 0, 42, TG_WIN_START);
    tg_enter(g, 1, 40, TG_WIN_POST);
    OTF2_EvtWriter_RmaGroupSync(tg_writer(g, 1), NULL, 41, OTF2_RMA_SYNC_LEVEL_PROCESS, TG_WIN, TG_GROUP_RANK0);
    tg_leave(g, 1, 42, TG_WIN_POST);
    tg_enter(g, 0, 50, TG_PUT);
    OTF2_EvtWriter_RmaPut(tg_writer(g, 0), NULL, 51, TG_WIN, 1, 4096, 5);
    OTF2_EvtWriter_RmaGet(tg_writer(g, 0), NULL, 52, TG_WIN, 1, 64, 6);
    OTF2_EvtWriter_RmaAtomic(tg_writer(g, 0), NULL, 53, TG_WIN, 1, OTF2_RMA_ATOMIC_TYPE_ACCUMULATE, 8, 0, 7);
    OTF2_EvtWriter_RmaOpCompleteBlocking(tg_writer(g, 0), NULL, 54, TG_WIN, 5);
    tg_leave(g, 0, 55, TG_PUT);
    tg_enter(g, 0, 60, TG_WIN_LOCK);
    OTF2_EvtWriter_RmaRequestLock(tg_writer(g, 0), NULL, 61, TG_WIN, 1, 3, OTF2_LOCK_EXCLUSIVE);
    OTF2_EvtWriter_RmaAcquireLock(tg_writer(g, 0), NULL, 62, TG_WIN, 1, 3, OTF2_LOCK_EXCLUSIVE);
    tg_leave(g, 0, 63, TG_WIN_LOCK);
    tg_enter(g, 0, 64, TG_WIN_UNLOCK);
    OTF2_EvtWriter_RmaReleaseLock(tg_writer(g, 0), NULL, 65, TG_WIN, 1, 3);
    OTF2_EvtWriter_RmaSync(tg_writer(g, 0), NULL, 66, TG_WIN, 1, OTF2_RMA_SYNC_TYPE_MEMORY);
    tg_leave(g, 0, 67, TG_WIN_UNLOCK);
    tg_enter(g, 0, 70, TG_WIN_COMPLETE);
    OTF2_EvtWriter_RmaCollectiveBegin(tg_writer(g, 0), NULL, 71);
    OTF2_EvtWriter_RmaCollectiveEnd(tg_writer(g, 0), NULL, 75, OTF2_COLLECTIVE_OP_BARRIER,
                                    OTF2_RMA_SYNC_LEVEL_PROCESS, TG_WIN, OTF2_UNDEFINED_UINT32, 0, 0);
    tg_leave(g, 0, 76, TG_WIN_COMPLETE);
    tg_enter(g, 1, 70, TG_WIN_WAIT);
    OTF2_EvtWriter_RmaCollectiveBegin(tg_writer(g, 1), NULL, 71);
    OTF2_EvtWriter_RmaCollectiveEnd(tg_writer(g, 1), NULL, 77, OTF2_COLLECTIVE_OP_BARRIER,
                                    OTF2_RMA_SYNC_LEVEL_PROCESS, TG_WIN, OTF2_UNDEFINED_UINT32, 0, 0);
    tg_leave(g, 1, 78, TG_WIN_WAIT);
    for (r = 0; r < 2; r++)
        OTF2_EvtWriter_RmaWinDestroy(tg_writer(g, r), NULL, 80, TG_WIN);
    unframe(g, 2, 100);
}

/* threads of an OpenMP team, the deprecated OpenMP records */
static void gen_threads(tg *g)
{
    unsigned r;
    tg_enter(g, 0, 10, TG_MAIN);
    OTF2_EvtWriter_ThreadFork(tg_writer(g, 0), NULL, 11, OTF2_PARADIGM_OPENMP, 2);
    for (r = 0; r < 2; r++) {
        OTF2_EvtWriter_ThreadTeamBegin(tg_writer(g, r), NULL, 12, TG_COMM_TEAM);
        tg_enter(g, r, 13, TG_WORK);
        OTF2_EvtWriter_ThreadAcquireLock(tg_writer(g, r), NULL, 14 + 2 * r, OTF2_PARADIGM_OPENMP, 1, r);
        OTF2_EvtWriter_ThreadReleaseLock(tg_writer(g, r), NULL, 15 + 2 * r, OTF2_PARADIGM_OPENMP, 1, r);
        OTF2_EvtWriter_ThreadTaskCreate(tg_writer(g, r), NULL, 20, TG_COMM_TEAM, r, 1);
        OTF2_EvtWriter_ThreadTaskSwitch(tg_writer(g, r), NULL, 21, TG_COMM_TEAM, r, 1);
        OTF2_EvtWriter_ThreadTaskComplete(tg_writer(g, r), NULL, 22, TG_COMM_TEAM, r, 1);
        tg_leave(g, r, 30, TG_WORK);
        OTF2_EvtWriter_ThreadTeamEnd(tg_writer(g, r), NULL, 31, TG_COMM_TEAM);
    }
    OTF2_EvtWriter_ThreadJoin(tg_writer(g, 0), NULL, 32, OTF2_PARADIGM_OPENMP);
    OTF2_EvtWriter_ThreadCreate(tg_writer(g, 0), NULL, 40, TG_COMM_TEAM, 1);
    OTF2_EvtWriter_ThreadBegin(tg_writer(g, 1), NULL, 41, TG_COMM_TEAM, 1);
    OTF2_EvtWriter_ThreadEnd(tg_writer(g, 1), NULL, 42, TG_COMM_TEAM, 1);
    OTF2_EvtWriter_ThreadWait(tg_writer(g, 0), NULL, 43, TG_COMM_TEAM, 1);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    OTF2_EvtWriter_OmpFork(tg_writer(g, 0), NULL, 50, 2);
    OTF2_EvtWriter_OmpAcquireLock(tg_writer(g, 0), NULL, 51, 2, 0);
    OTF2_EvtWriter_OmpReleaseLock(tg_writer(g, 0), NULL, 52, 2, 0);
    OTF2_EvtWriter_OmpTaskCreate(tg_writer(g, 0), NULL, 53, 9);
    OTF2_EvtWriter_OmpTaskSwitch(tg_writer(g, 0), NULL, 54, 9);
    OTF2_EvtWriter_OmpTaskComplete(tg_writer(g, 0), NULL, 55, 9);
    OTF2_EvtWriter_OmpJoin(tg_writer(g, 0), NULL, 56);
#pragma GCC diagnostic pop
    tg_leave(g, 0, 60, TG_MAIN);
}

/* metrics, attributes of every type, program and parameter records */
static void gen_misc(tg *g)
{
    OTF2_AttributeList *al = OTF2_AttributeList_New();
    OTF2_StringRef args[2] = {0, 1};
    OTF2_EvtWriter_ProgramBegin(tg_writer(g, 0), NULL, 5, 1, 2, args);
    frame(g, 2, 10, 0);
    tg_metric(g, 0, 16, 1000);
    tg_metric(g, 1, 16, 2000);
    OTF2_AttributeList_AddUint8(al, 0, 1);
    OTF2_AttributeList_AddInt16(al, 1, -2);
    OTF2_AttributeList_AddUint32(al, 2, 70000);
    OTF2_AttributeList_AddInt64(al, 3, -5);
    OTF2_AttributeList_AddDouble(al, 4, 2.5);
    OTF2_AttributeList_AddFloat(al, 5, 1.5f);
    OTF2_AttributeList_AddStringRef(al, 6, 2);
    OTF2_AttributeList_AddLocationRef(al, 7, 1);
    OTF2_EvtWriter_Enter(tg_writer(g, 0), al, 20, TG_WORK);
    OTF2_EvtWriter_ParameterInt(tg_writer(g, 0), NULL, 21, 0, -7);
    OTF2_EvtWriter_ParameterString(tg_writer(g, 0), NULL, 22, 1, 3);
    OTF2_EvtWriter_ParameterUnsignedInt(tg_writer(g, 0), NULL, 23, 2, 7);
    OTF2_EvtWriter_MeasurementOnOff(tg_writer(g, 0), NULL, 24, OTF2_MEASUREMENT_OFF);
    OTF2_EvtWriter_MeasurementOnOff(tg_writer(g, 0), NULL, 30, OTF2_MEASUREMENT_ON);
    OTF2_EvtWriter_CallingContextSample(tg_writer(g, 0), NULL, 31, 0, 1, 0);
    OTF2_EvtWriter_CallingContextEnter(tg_writer(g, 0), NULL, 32, 0, 1);
    OTF2_EvtWriter_CallingContextLeave(tg_writer(g, 0), NULL, 33, 0);
    OTF2_EvtWriter_IoOperationBegin(tg_writer(g, 0), NULL, 34, 0, OTF2_IO_OPERATION_MODE_READ,
                                    OTF2_IO_OPERATION_FLAG_NONE, 100, 1);
    OTF2_EvtWriter_IoOperationComplete(tg_writer(g, 0), NULL, 35, 0, 100, 1);
    tg_leave(g, 0, 40, TG_WORK);
    tg_metric(g, 0, 41, 31000);
    tg_metric(g, 1, 41, 32000);
    tg_mpi_send(g, 0, 50, 51, 52, 1, 0, 4);
    tg_mpi_recv(g, 1, 45, 53, 54, 0, 0, 4);
    unframe(g, 2, 60);
    OTF2_EvtWriter_ProgramEnd(tg_writer(g, 0), NULL, 70, 0);
    OTF2_AttributeList_Delete(al);
}

/* attribute lists: a few entries of each type on point-to-point records,
 * and lists of UP_SCAN_MAX_ATTRS - 1 and UP_SCAN_MAX_ATTRS entries (the
 * most a list may hold; libotf2 reads one in time of its square) */
static void gen_attrs(tg *g)
{
    unsigned k;
    tg_attrs(g, 0, UP_SCAN_MAX_ATTRS);
    tg_enter(g, 0, 10, TG_MAIN);
    tg_attrs(g, 0, UP_SCAN_MAX_ATTRS - 1);
    tg_enter(g, 1, 10, TG_MAIN);
    for (k = 1; k <= 4; k++) {
        tg_attrs(g, k, 0);
        tg_mpi_send(g, 0, 10 + 10 * k, 12 + 10 * k, 14 + 10 * k, 1, k, 8 * k);
        tg_mpi_recv(g, 1, 11 + 10 * k, 15 + 10 * k, 16 + 10 * k, 0, k, 8 * k);
    }
    tg_attrs(g, 0, 0);
    tg_leave(g, 0, 70, TG_MAIN);
    tg_leave(g, 1, 70, TG_MAIN);
}

/* a list of one entry more than UP_SCAN_MAX_ATTRS on location 1's third
 * record: damage, the location ends there */
static void gen_attrs_long(tg *g)
{
    unsigned r;
    for (r = 0; r < 2; r++) {
        tg_attrs(g, 2, 0);
        tg_enter(g, r, 10, TG_MAIN);
        tg_enter(g, r, 11, TG_INIT);
        if (r == 1)
            tg_attrs(g, 0, UP_SCAN_MAX_ATTRS + 1);
        tg_leave(g, r, 15, TG_INIT);
        tg_attrs(g, 1, 0);
    }
    tg_mpi_send(g, 0, 20, 21, 22, 1, 3, 64);
    tg_mpi_recv(g, 1, 20, 23, 24, 0, 3, 64);
    tg_attrs(g, 0, 0);
    unframe(g, 2, 30);
}

/* as the unperturb tracer leaves it: a calibration property, stalls lists */
static void gen_tracer(tg *g)
{
    OTF2_Archive_SetProperty(tg_archive(g), "UNPERTURB::CALIBRATION",
                             "[overhead]\nall = 20\nsend = 40\n[overhead_low]\nenter = 10\n"
                             "[overhead_high]\nenter = 30\n[copy]\n1 = 0.5\n1024 = 0.25\n"
                             "[network]\nlatency_ns = 1000\n[overhead_by_location]\n1 = 5\n", true);
    gen_p2p(g);
}

typedef struct scenario {
    const char *name;
    unsigned nranks, flags;
    uint64_t resolution;
    void (*fn)(tg *g);
} scenario;

static const scenario scenarios[] = {
    {"p2p", 2, 0, 1000000000, gen_p2p},
    {"coll", 4, TG_TWO_NODES, 1000000000, gen_coll},
    {"nonblocking", 2, 0, 1000, gen_nonblocking},
    {"rma", 2, TG_RMA, 1000000000, gen_rma},
    {"threads", 2, TG_OMP_TEAM, 1000000000, gen_threads},
    {"misc", 2, TG_CPU_METRIC, 1000000000, gen_misc},
    {"tracer", 2, 0, 1000000000, gen_tracer},
    {"attrs", 2, 0, 1000000000, gen_attrs},
    {"attrs-long", 2, 0, 1000000000, gen_attrs_long},
};

/* stalls lists for the tracer scenario: (start, length) pairs */
static int write_stalls(const char *dir)
{
    static const uint64_t s0[][2] = {{112, 3}, {161, 10}, {305, 2}};
    static const uint64_t s1[][2] = {{141, 4}};
    char p[4300];
    FILE *f;
    snprintf(p, sizeof p, "%s/traces/0.stalls", dir);
    if (!(f = fopen(p, "wb")) || fwrite(s0, sizeof s0, 1, f) != 1 || fclose(f) != 0)
        return -1;
    snprintf(p, sizeof p, "%s/traces/1.stalls", dir);
    if (!(f = fopen(p, "wb")) || fwrite(s1, sizeof s1, 1, f) != 1 || fclose(f) != 0)
        return -1;
    return 0;
}

/* The event file of location `loc` split into two chunks after its k-th
 * record (the container's next-chunk members): a file of two chunks
 * without a megabyte of records. */
static int split_events(const char *packed, const char *out, unsigned loc, size_t k)
{
    fz_member m[FZ_MAX_MEMBERS + 1];
    size_t n, len, i, j, nt, nrec = 0, cut = 0;
    uint8_t *d = slurp(packed, &len), *c0 = NULL, *c1 = NULL, *buf = NULL;
    uint8_t ts[9] = {0};
    fz_tok t[4096];
    int rc = -1;
    FILE *f;
    if (!d)
        return -1;
    n = fz_parse(d, len, m, FZ_MAX_MEMBERS);
    for (i = 0; i < n && !(fz_kind(m[i].tag) == FZ_EVENTS && m[i].loc == loc); i++)
        ;
    if (i == n || m[i].len < 18)
        goto out;
    nt = fz_tokens(m[i].data, m[i].len, true, t, 4096);
    for (j = 1; j < nt && t[j].kind != FZ_TOK_END; j++) {
        if (t[j].kind == FZ_TOK_TIME)
            memcpy(ts, m[i].data + t[j].off, 9);
        if (t[j].kind == FZ_TOK_RECORD && ++nrec == k) {
            cut = t[j].off + t[j].len;
            break;
        }
    }
    if (!cut || ts[0] != 0x05 || !(c0 = malloc(cut + 1)) || !(c1 = malloc(m[i].len - cut + 27)))
        goto out;
    {
        size_t rest = m[i].len - cut;
        uint64_t first, last, l0, f1;
        memcpy(&first, m[i].data + 2, 8); /* (little endian, as written here) */
        memcpy(&last, m[i].data + 10, 8);
        l0 = first + k - 1;
        f1 = first + k;
        /* chunk 0: its header ends at record k, then the records, 00 */
        memcpy(c0, m[i].data, cut);
        memcpy(c0 + 10, &l0, 8);
        c0[cut] = 0x00;
        /* chunk 1: a header from record k + 1, the last timestamp again
         * unless one follows anyway (OTF2 reads no two in a row), the rest */
        size_t t1 = m[i].data[cut] == 0x05 ? 0 : 9;
        memcpy(c1, m[i].data, 2);
        memcpy(c1 + 2, &f1, 8);
        memcpy(c1 + 10, &last, 8);
        memcpy(c1 + 18, ts, t1);
        memcpy(c1 + 18 + t1, m[i].data + cut, rest);
        memmove(m + i + 2, m + i + 1, (n - i - 1) * sizeof *m);
        m[i].data = c0;
        m[i].len = cut + 1;
        m[i + 1] = (fz_member){FZ_EVENTS | FZ_CONT, loc, c1, rest + 18 + t1};
    }
    n++;
    if (!(buf = malloc(len + 64)) || !(len = fz_serialize(m, n, buf, len + 64)) ||
        !(f = fopen(out, "wb")) || fwrite(buf, 1, len, f) != len || fclose(f) != 0)
        goto out;
    rc = 0;
out:
    free(d);
    free(c0);
    free(c1);
    free(buf);
    return rc;
}

static int cmd_gen(const char *outdir)
{
    char tmp[] = "/tmp/up-fuzz-gen.XXXXXX", dir[4200], out[4200], cmd[8600];
    size_t i;
    int rc = 0;
    if (!mkdtemp(tmp)) {
        fprintf(stderr, "up-fuzz-tool: cannot make a temporary folder\n");
        return 1;
    }
    for (i = 0; i < sizeof scenarios / sizeof *scenarios; i++) {
        const scenario *s = &scenarios[i];
        tg *g;
        snprintf(dir, sizeof dir, "%s/%s", tmp, s->name);
        if (!(g = tg_open(dir, s->nranks, s->resolution, s->flags)))
            return 1;
        s->fn(g);
        if (tg_close(g) != 0 || (s->fn == gen_tracer && write_stalls(dir) != 0)) {
            fprintf(stderr, "up-fuzz-tool: cannot write %s\n", dir);
            rc = 1;
            continue;
        }
        snprintf(out, sizeof out, "%s/tg-%s", outdir, s->name);
        if (cmd_pack(dir, out, true) != 0)
            rc = 1;
        if (s->fn == gen_p2p) {
            snprintf(dir, sizeof dir, "%s/tg-%s-2chunks", outdir, s->name);
            if (split_events(out, dir, 0, 5) != 0) {
                fprintf(stderr, "up-fuzz-tool: cannot split %s\n", out);
                rc = 1;
            }
        }
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        rc = 1;
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "pack"))
        return cmd_pack(argv[2], argv[3], false);
    if (argc == 5 && !strcmp(argv[1], "pack") && !strcmp(argv[2], "-s"))
        return cmd_pack(argv[3], argv[4], true);
    if (argc == 4 && !strcmp(argv[1], "unpack"))
        return cmd_unpack(argv[2], argv[3]);
    if (argc == 5 && !strcmp(argv[1], "options"))
        return cmd_options(argv[2], argv[3], argv[4]);
    if (argc == 3 && !strcmp(argv[1], "gen"))
        return cmd_gen(argv[2]);
    fprintf(stderr, "usage: up-fuzz-tool pack [-s] DIR|ANCHOR OUT\n"
                    "       up-fuzz-tool unpack IN DIR\n"
                    "       up-fuzz-tool options IN OUT N\n"
                    "       up-fuzz-tool gen OUTDIR\n");
    return 2;
}
