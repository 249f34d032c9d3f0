/*
 * poll.c - updates exchanged among all ranks, completed by polling, as a
 * random-access update benchmark does (HPC Challenge's RandomAccess): the
 * example of a program that does not block in MPI_Wait but polls
 * (issue 21; docs/examples.md).
 *
 *   poll [CHUNK [ROUNDS [WORK]]]
 *       CHUNK   local updates between two polls; 0: a spin (poll until every
 *               receive completed, then do the round's local work)
 *               (default 1000: about 1-2 us of work between polls)
 *       ROUNDS  rounds (default 2000)
 *       WORK    local updates per rank and round (default 200000)
 *
 * Each round every rank posts one MPI_Irecv from every other rank, sends
 * each of them a batch of updates with MPI_Isend (256 to 4096 values of 4
 * bytes, 1 to 16 KiB, the size a function of round, sender and receiver:
 * eager and rendezvous messages), and then polls: MPI_Testany over its
 * receives, with CHUNK of its WORK local updates between two polls, until
 * every receive completed (applying each batch as it comes) and the local
 * work is done; MPI_Waitall completes the sends.  How often a rank polls
 * depends on when the messages arrive; what it computes does not.
 *
 * An update adds its value v to table[v mod 1024] (mod 2^31).  Values are
 * MINSTD steps, v = 48271 x mod (2^31 - 1), of
 *     x = (1000003 r + 10007 s + 101 d + k + 1) mod (2^31 - 1)   batch k of s to d
 *     x = (7919 r + 104729 s + j + 1) mod (2^31 - 1)            local j of rank s
 * in round r; a batch holds n = 256 + (48271 (r + 31 s + 977 d + 1) mod
 * (2^31 - 1)) mod 3841 values.  Rank 0 prints one line:
 *   poll: rounds=R chunk=C updates=U checksum=S
 * U = all updates applied, S = the sum of every rank's table mod 2^31, so
 * a function of ROUNDS, WORK and the number of ranks only (an awk line in
 * tests/examples/run.sh computes it).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define TABLE 1024
#define MINSTD_M 2147483647u
#define MOD31 2147483648u /* table values mod 2^31 */
#define MAXBATCH 4096

static long arg(int argc, char **argv, int i, long def, long lo)
{
    char *end;
    long x;
    if (argc <= i)
        return def;
    x = strtol(argv[i], &end, 10);
    return *end || x < lo || x > 1000000000L ? -1 : x;
}

static uint32_t minstd(uint64_t x) { return (uint32_t)(x % MINSTD_M * 48271u % MINSTD_M); }

static uint32_t batch_len(long r, int s, int d)
{
    return 256u + minstd((uint64_t)r + 31u * (uint64_t)s + 977u * (uint64_t)d + 1u) % 3841u;
}

static uint32_t table[TABLE];

static void apply(uint32_t v) { table[v % TABLE] = (uint32_t)((table[v % TABLE] + (uint64_t)v) % MOD31); }

int main(int argc, char **argv)
{
    int rank, size, i, p, done = 0, idx, flag;
    long chunk, rounds, work, r, j, updates = 0, all = 0;
    uint32_t **out, **in;
    MPI_Request *rreq, *sreq;
    uint64_t sum = 0, total = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    chunk = arg(argc, argv, 1, 1000, 0);
    rounds = arg(argc, argv, 2, 2000, 1);
    work = arg(argc, argv, 3, 200000, 0);
    if (chunk < 0 || rounds < 0 || work < 0 || size < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: poll [CHUNK [ROUNDS [WORK]]] on 2 or more ranks\n");
        MPI_Finalize();
        return 2;
    }
    out = malloc((size_t)size * sizeof *out);
    in = malloc((size_t)size * sizeof *in);
    rreq = malloc((size_t)size * sizeof *rreq);
    sreq = malloc((size_t)size * sizeof *sreq);
    for (p = 0; out && in && p < size; p++) {
        out[p] = malloc(MAXBATCH * sizeof **out);
        in[p] = malloc(MAXBATCH * sizeof **in);
        if (!out[p] || !in[p])
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (!out || !in || !rreq || !sreq)
        MPI_Abort(MPI_COMM_WORLD, 1);

    for (r = 0; r < rounds; r++) {
        long left = work;
        for (p = 0; p < size; p++) {
            rreq[p] = sreq[p] = MPI_REQUEST_NULL;
            if (p == rank)
                continue;
            MPI_Irecv(in[p], (int)batch_len(r, p, rank), MPI_UINT32_T, p, (int)(r % 32768),
                      MPI_COMM_WORLD, &rreq[p]);
        }
        for (p = 0; p < size; p++) {
            uint32_t n = batch_len(r, rank, p), k;
            if (p == rank)
                continue;
            for (k = 0; k < n; k++)
                out[p][k] = minstd(1000003u * (uint64_t)r + 10007u * (uint64_t)rank + 101u * (uint64_t)p + k + 1u);
            MPI_Isend(out[p], (int)n, MPI_UINT32_T, p, (int)(r % 32768), MPI_COMM_WORLD, &sreq[p]);
        }
        j = 0;
        done = 0;
        while (done < size - 1 || left > 0) {
            long c = done < size - 1 ? (chunk < left ? chunk : left) : left;
            for (i = 0; i < c; i++, j++) /* local work */
                apply(minstd(7919u * (uint64_t)r + 104729u * (uint64_t)rank + (uint64_t)j + 1u));
            updates += c;
            left -= c;
            if (done == size - 1)
                continue;
            MPI_Testany(size, rreq, &idx, &flag, MPI_STATUS_IGNORE);
            if (flag && idx != MPI_UNDEFINED) {
                uint32_t n = batch_len(r, idx, rank), k;
                for (k = 0; k < n; k++)
                    apply(in[idx][k]);
                updates += n;
                done++;
            }
        }
        MPI_Waitall(size, sreq, MPI_STATUSES_IGNORE);
    }

    for (i = 0; i < TABLE; i++)
        sum = (sum + table[i]) % MOD31;
    MPI_Reduce(&sum, &total, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&updates, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("poll: rounds=%ld chunk=%ld updates=%ld checksum=%llu\n", rounds, chunk, all,
               (unsigned long long)(total % MOD31));
    for (p = 0; p < size; p++) {
        free(out[p]);
        free(in[p]);
    }
    free(out);
    free(in);
    free(rreq);
    free(sreq);
    MPI_Finalize();
    return 0;
}
