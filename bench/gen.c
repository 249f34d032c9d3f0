/*
 * gen.c - up-bench-gen [-a K] [-b N] DIR NEVENTS [NLOCS]: writes a
 * synthetic, causally consistent MPI trace of about NEVENTS records on NLOCS
 * ranks (default 16) for the benchmark (bench/run.sh), through
 * src/tracegen (OTF2's writer).  With -a every record carries an attribute
 * list of K entries, with -b the first record of the last rank N more
 * (tg_attrs; tests/linear/run.sh times the commands on such traces).
 *
 * Per rank: Enter(main) Enter/Leave(MPI_Init), then iterations, then
 * Enter/Leave(MPI_Finalize) Leave(main).  One iteration on each rank:
 *
 *   Enter(work) Enter(get_coords) Leave(get_coords) Leave(work)       compute
 *   Enter(MPI_Send) MpiSend(right neighbour) Leave(MPI_Send)          eager send
 *   Enter(MPI_Recv) MpiRecv(left neighbour) Leave(MPI_Recv)           receive
 *
 * and every COLL_EVERY-th iteration additionally
 *
 *   Enter(MPI_Allreduce) MpiCollectiveBegin MpiCollectiveEnd Leave    MPI_COMM_WORLD
 *
 * Timestamps (ns, resolution 1e9) follow a lockstep clock: every iteration
 * starts after the slowest rank finished the previous one; compute times and
 * small delays carry per-rank jitter from a fixed-seed PRNG, so the trace is
 * the same on every run.  A receive completes no earlier than its send plus
 * a latency and the transfer time; a collective ends after its last begin.
 *
 * Prints the exact number of records written.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracegen/tracegen.h"

#define COLL_EVERY 8
#define MSG_BYTES 1024u
#define MSG_TAG 1u
#define REC_ITER 10u  /* records per rank and iteration */
#define REC_COLL 4u   /* records of one collective on one rank */
#define REC_FRAME 6u  /* main, MPI_Init, MPI_Finalize enter/leave */

/* splitmix64: small, fast, reproducible */
static uint64_t prng_state = 0x9E3779B97F4A7C15ull;

static uint64_t prng(void)
{
    uint64_t z = (prng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* uniform in [0, n) */
static uint64_t jitter(uint64_t n)
{
    return n ? prng() % n : 0;
}

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    *v = strtoull(s, &end, 10);
    return end != s && !*end && !errno;
}

int main(int argc, char **argv)
{
    uint64_t nevents, nlocs64 = 16, budget, per_rank, iters, it, total;
    uint64_t T = 1000; /* start of the current lockstep phase, ns */
    uint64_t *t_send, *t_end, every = 0, once = 0;
    unsigned n, r;
    tg *g;
    int bad = 0;

    while (argc > 2 && (!strcmp(argv[1], "-a") || !strcmp(argv[1], "-b"))) {
        if (!parse_u64(argv[2], argv[1][1] == 'a' ? &every : &once) || every > 1000000 ||
            once > 1000000)
            bad = 1;
        argc -= 2;
        argv += 2;
    }
    if (bad || argc < 3 || argc > 4 || !parse_u64(argv[2], &nevents) ||
        (argc == 4 && !parse_u64(argv[3], &nlocs64)) || nlocs64 < 2 || nlocs64 > 65536) {
        fprintf(stderr, "usage: up-bench-gen [-a K] [-b N] DIR NEVENTS [NLOCS=16]  (NLOCS in 2..65536,\n"
                        "       K and N attributes on every record and on the last rank's first, at most 1000000)\n");
        return 2;
    }
    n = (unsigned)nlocs64;
    budget = nevents / n;
    if (budget < REC_FRAME + REC_ITER) {
        fprintf(stderr, "up-bench-gen: NEVENTS too small for %u ranks\n", n);
        return 2;
    }
    /* iterations that fit the per-rank budget, collectives included */
    per_rank = REC_FRAME;
    iters = 0;
    for (;;) {
        uint64_t cost = REC_ITER + ((iters + 1) % COLL_EVERY == 0 ? REC_COLL : 0);
        if (per_rank + cost > budget)
            break;
        per_rank += cost;
        iters++;
    }

    t_send = calloc(n, sizeof *t_send);
    t_end = calloc(n, sizeof *t_end);
    if (!t_send || !t_end) {
        fprintf(stderr, "up-bench-gen: out of memory\n");
        return 1;
    }
    if (!(g = tg_open(argv[1], n, 1000000000u, 0))) {
        fprintf(stderr, "up-bench-gen: cannot create '%s'\n", argv[1]);
        return 1;
    }
    tg_attrs(g, (unsigned)every, 0);

    /* MPI_Init: everyone enters at about the same time, leaves together */
    for (r = 0; r < n; r++) {
        uint64_t e = T + jitter(200);
        if (r == n - 1) /* -b: the first record of the last rank */
            tg_attrs(g, (unsigned)every, (unsigned)once);
        tg_enter(g, r, e - 100, TG_MAIN);
        tg_enter(g, r, e, TG_INIT);
        tg_leave(g, r, T + 20000 + jitter(100), TG_INIT);
    }
    T += 20200;

    for (it = 0; it < iters; it++) {
        uint64_t next = 0;
        /* compute and send; the send time of every rank is needed by its
         * right neighbour's receive */
        for (r = 0; r < n; r++) {
            uint64_t t0 = T + jitter(100);
            uint64_t t1 = t0 + 100 + jitter(50);          /* nested region */
            uint64_t t2 = t1 + 200 + jitter(100);
            uint64_t t3 = t0 + 5000 + jitter(2000);       /* end of compute */
            uint64_t s0 = t3 + 50 + jitter(20);
            tg_enter(g, r, t0, TG_WORK);
            tg_enter(g, r, t1, TG_GET_COORDS);
            tg_leave(g, r, t2, TG_GET_COORDS);
            tg_leave(g, r, t3, TG_WORK);
            t_send[r] = s0 + 150 + jitter(50);
            t_end[r] = t_send[r] + 200 + jitter(50);     /* leave MPI_Send */
            tg_mpi_send(g, r, s0, t_send[r], t_end[r], (r + 1) % n, MSG_TAG, MSG_BYTES);
        }
        /* receive from the left neighbour: after its send + transfer */
        for (r = 0; r < n; r++) {
            unsigned left = (r + n - 1) % n;
            uint64_t e = t_end[r] + 50 + jitter(20);
            uint64_t arrive = t_send[left] + 3000 + MSG_BYTES / 2 + jitter(1000);
            uint64_t rv = arrive > e + 150 ? arrive : e + 150 + jitter(50);
            uint64_t l = rv + 100 + jitter(50);
            tg_mpi_recv(g, r, e, rv, l, left, MSG_TAG, MSG_BYTES);
            t_end[r] = l;
            if (l > next)
                next = l;
        }
        if ((it + 1) % COLL_EVERY == 0) {
            uint64_t last_begin = 0, end_base;
            for (r = 0; r < n; r++) {
                t_send[r] = t_end[r] + 50 + jitter(50);  /* enter */
                t_end[r] = t_send[r] + 100 + jitter(50); /* begin */
                if (t_end[r] > last_begin)
                    last_begin = t_end[r];
            }
            end_base = last_begin + 3000;
            next = 0;
            for (r = 0; r < n; r++) {
                uint64_t ce = end_base + jitter(200);
                uint64_t l = ce + 100 + jitter(50);
                tg_mpi_coll(g, r, TG_ALLREDUCE, t_send[r], t_end[r], ce, l,
                            OTF2_COLLECTIVE_OP_ALLREDUCE, OTF2_UNDEFINED_UINT32, 8, 8);
                if (l > next)
                    next = l;
            }
        }
        T = next + 100; /* lockstep: the next iteration starts after the slowest */
    }

    for (r = 0; r < n; r++) {
        uint64_t e = T + jitter(200);
        tg_enter(g, r, e, TG_FINALIZE);
        tg_leave(g, r, T + 30000 + jitter(100), TG_FINALIZE);
        tg_leave(g, r, T + 30300 + jitter(100), TG_MAIN);
    }
    if (tg_close(g) != 0) {
        fprintf(stderr, "up-bench-gen: writing '%s' failed\n", argv[1]);
        return 1;
    }
    free(t_send);
    free(t_end);
    total = per_rank * n;
    printf("%" PRIu64 " records on %u locations (%" PRIu64 " iterations) in %s\n",
           total, n, iters, argv[1]);
    return 0;
}
