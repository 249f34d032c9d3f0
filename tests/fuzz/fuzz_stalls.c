/*
 * fuzz_stalls.c - fuzz target "stalls": the lists of stalled spins the
 * unperturb tracer leaves beside the event files (traces/<location>.stalls,
 * docs/tracer.md), read through src/trace/stalls.c by the compensate model
 * (src/model/compensate.c).
 *
 * Place in the data flow: beside a valid trace.  Two archives are written
 * once, with OTF2's own writer (src/tracegen.c); each input gives the
 * stalls lists of their locations and the options of the replay:
 *
 *   opt:1 n0:1 n1:1 n2:1 rest
 *
 * opt picks the archive (bit 0), the mode, the collective model and the
 * wildcard matching; location 0 gets the next 16 * n0 bytes, 1 the next
 * 16 * n1, 2 the next 16 * n2, 3 the rest (each cut at the input's end).
 *
 * A stalls list can be anything, the replay must still succeed and see
 * every record (stalls.c: "a list that cannot be read ends there").
 */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/compensate.h"
#include "replay/replay.h"
#include "trace/trace.h"
#include "tracegen/tracegen.h"

static char dirs[2][400];
static uint64_t nrecords[2];

/* 2 ranks: messages, a flush, a barrier, computation in between */
static void write_p2p(tg *g)
{
    uint64_t t = 100;
    unsigned i;
    for (i = 0; i < 2; i++) {
        tg_enter(g, i, 10, TG_MAIN);
        tg_enter(g, i, 20, TG_INIT);
        tg_leave(g, i, 90, TG_INIT);
    }
    for (i = 0; i < 20; i++, t += 500) {
        tg_enter(g, 0, t, TG_WORK);
        tg_leave(g, 0, t + 200, TG_WORK);
        tg_mpi_send(g, 0, t + 210, t + 220, t + 240, 1, i, i % 3 ? 64 : 65536);
        tg_mpi_recv(g, 1, t + 100, t + 300, t + 320, 0, i, i % 3 ? 64 : 65536);
        if (i % 5 == 4)
            tg_flush(g, 1, t + 330, t + 400);
        tg_mpi_coll(g, 0, TG_BARRIER, t + 410, t + 411, t + 450, t + 451,
                    OTF2_COLLECTIVE_OP_BARRIER, OTF2_UNDEFINED_UINT32, 0, 0);
        tg_mpi_coll(g, 1, TG_BARRIER, t + 420, t + 421, t + 450, t + 452,
                    OTF2_COLLECTIVE_OP_BARRIER, OTF2_UNDEFINED_UINT32, 0, 0);
    }
    for (i = 0; i < 2; i++) {
        tg_enter(g, i, t, TG_FINALIZE);
        tg_leave(g, i, t + 50, TG_FINALIZE);
        tg_leave(g, i, t + 60, TG_MAIN);
    }
}

/* 4 ranks on two nodes: collectives with roots, a synchronous send */
static void write_coll(tg *g)
{
    uint64_t t = 1000;
    unsigned i, r;
    for (r = 0; r < 4; r++) {
        tg_enter(g, r, 10, TG_MAIN);
        tg_enter(g, r, 20, TG_INIT);
        tg_leave(g, r, 90 + r, TG_INIT);
    }
    for (i = 0; i < 10; i++, t += 1000) {
        for (r = 0; r < 4; r++) {
            uint64_t u = t + 37 * r;
            tg_enter(g, r, u, TG_WORK);
            tg_leave(g, r, u + 100, TG_WORK);
            tg_mpi_coll(g, r, TG_BCAST, u + 110, u + 111, t + 300, t + 301 + r,
                        OTF2_COLLECTIVE_OP_BCAST, i % 4, r == i % 4 ? 96 : 0, r == i % 4 ? 0 : 32);
            tg_mpi_coll(g, r, TG_ALLREDUCE, t + 400 + r, t + 401 + r, t + 500, t + 501 + r,
                        OTF2_COLLECTIVE_OP_ALLREDUCE, OTF2_UNDEFINED_UINT32, 8, 8);
        }
        tg_enter(g, 0, t + 600, TG_SSEND);
        tg_send(g, 0, t + 601, 3, i, 128);
        tg_leave(g, 0, t + 700, TG_SSEND);
        tg_mpi_recv(g, 3, t + 650, t + 699, t + 701, 0, i, 128);
    }
    for (r = 0; r < 4; r++) {
        tg_enter(g, r, t, TG_FINALIZE);
        tg_leave(g, r, t + 50, TG_FINALIZE);
        tg_leave(g, r, t + 60, TG_MAIN);
    }
}

/* Sets both chunk sizes of the anchor to OTF2's least, 256 KiB (every
 * file here is smaller): the buffers of each run are 4 to 16 times
 * smaller, and the target several times faster. */
static void small_chunks(const char *dir)
{
    char path[600];
    unsigned char cs[16], head[2];
    unsigned j;
    FILE *f;
    snprintf(path, sizeof path, "%s/traces.otf2", dir);
    f = fopen(path, "r+b");
    FZ_CHECK(f && fread(head, 1, 2, f) == 2, "cannot read %s", path);
    for (j = 0; j < 8; j++) /* in the anchor's byte order */
        cs[j] = cs[8 + j] = (unsigned char)((uint64_t)256 * 1024 >> (8 * (head[1] == 0x23 ? 7 - j : j)));
    FZ_CHECK(fseek(f, 12, SEEK_SET) == 0 && fwrite(cs, 1, 16, f) == 16 && fclose(f) == 0,
             "cannot write %s", path);
}

static void make_archive(unsigned k)
{
    tg *g;
    up_trace *t = NULL;
    up_err err = {0};
    size_t i;
    snprintf(dirs[k], sizeof dirs[k], "%s/s%u", fz_workdir(), k);
    g = tg_open(dirs[k], k ? 4 : 2, 1000000000, k ? TG_TWO_NODES : 0);
    FZ_CHECK(g != NULL, "cannot write %s", dirs[k]);
    (k ? write_coll : write_p2p)(g);
    FZ_CHECK(tg_close(g) == 0, "cannot write %s", dirs[k]);
    small_chunks(dirs[k]);
    FZ_CHECK(up_trace_open(dirs[k], &t, &err) == UP_OK, "%s", err.msg);
    for (i = 0; i < up_trace_defs(t)->nlocs; i++)
        nrecords[k] += up_trace_defs(t)->locs[i].nevents;
    up_trace_close(t);
}

static void remove_archives(void)
{
    char cmd[1000];
    if (!dirs[0][0])
        return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", dirs[0], dirs[1]);
    if (system(cmd) != 0)
        fprintf(stderr, "fuzz: cannot remove %s\n", cmd);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    make_archive(0);
    make_archive(1);
    atexit(remove_archives);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned opt = size ? data[0] : 0, k = opt & 1, loc, nlocs = k ? 4 : 2;
    size_t at = 4 < size ? 4 : size, n;
    char path[500];
    up_trace *t = NULL;
    up_comp *m = NULL;
    up_comp_params p;
    up_replay_result res;
    up_err err = {0};
    uint64_t count, ticks, damaged, entries = 0;

    if (!dirs[0][0])
        LLVMFuzzerInitialize(NULL, NULL);
    for (loc = 0; loc < 4; loc++) {
        n = loc < 3 ? (size > 1 + loc ? 16u * data[1 + loc] : 0) : size - at;
        if (n > size - at)
            n = size - at;
        snprintf(path, sizeof path, "%s/traces/%u.stalls", dirs[k], loc);
        if (loc < nlocs) {
            FILE *f = fopen(path, "wb");
            FZ_CHECK(f && fwrite(data + at, 1, n, f) == n && fclose(f) == 0, "cannot write %s", path);
            entries += n / 16;
        }
        at += n;
    }
    FZ_CHECK(up_trace_open(dirs[k], &t, &err) == UP_OK, "%s", err.msg);
    up_comp_params_init(&p);
    up_comp_params_set_overhead(&p, (opt >> 6) * 3.0);
    p.archive_stalls = true;
    p.mode = (up_mode)((opt >> 1) % 3);
    p.collective = (opt >> 3) & 1 ? UP_COLLECTIVE_SHARED : UP_COLLECTIVE_INDIVIDUAL;
    p.wildcard = (up_wildcard)((opt >> 4) % 3);
    up_comp_params_resolve(&p);
    FZ_CHECK(up_comp_new(&p, t, &m, &err) == UP_OK, "%s", err.msg);
    FZ_CHECK(up_replay_run(t, NULL, up_comp_ops(), m, NULL, &res, &err) == UP_OK, "%s", err.msg);
    FZ_CHECK(res.events == nrecords[k], "the replay saw %llu of %llu records",
             (unsigned long long)res.events, (unsigned long long)nrecords[k]);
    up_comp_stalls(m, &count, &ticks, &damaged);
    FZ_CHECK(count <= entries, "%llu stalls removed of %llu listed", (unsigned long long)count,
             (unsigned long long)entries);
    FZ_CHECK(damaged <= nlocs, "%llu damaged lists of %u", (unsigned long long)damaged, nlocs);
    up_replay_result_free(&res);
    up_comp_free(m);
    up_trace_close(t);
    for (loc = 0; loc < nlocs; loc++) {
        snprintf(path, sizeof path, "%s/traces/%u.stalls", dirs[k], loc);
        remove(path);
    }
    return 0;
}
