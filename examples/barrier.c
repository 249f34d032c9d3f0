/*
 * barrier.c - unequal local work, then a barrier, repeated: the program of
 * Sarukkai and Malony's Fig. 5 (perturbation of barrier waiting times).
 *
 *   barrier [ITERATIONS [UNIT]]
 *       ITERATIONS  work + MPI_Barrier steps (default 1000)
 *       UNIT        generator steps per work unit (default 38000)
 *
 * In iteration it (0-based) rank r does units(r, it) = 2 + (3r + 5it) mod 7
 * work units, so every rank waits in the barrier for the slowest one, and
 * which rank is slowest changes from iteration to iteration.  A work unit is
 * UNIT steps of the "minimal standard" generator x <- 48271 x mod (2^31 - 1),
 * which cannot be skipped: each step needs the previous one.  Rank r starts
 * from x = r + 1 and carries x across iterations, so after the run
 * x_r = 48271^(UNIT * U_r) (r + 1) mod (2^31 - 1), U_r its total units.
 *
 * Rank 0 prints one line:
 *   barrier: checksum=C units=U iterations=I
 * C = sum over ranks of x_r (exact), U = sum over ranks of U_r.  Both can be
 * predicted by modular exponentiation (tests/examples/run.sh does it in awk).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define MINSTD_A 48271u
#define MINSTD_M 2147483647u

static long units(int rank, int it)
{
    return 2 + (3L * rank + 5L * it) % 7;
}

/* n steps of the generator from x */
static uint64_t work(uint64_t x, long n)
{
    for (long i = 0; i < n; i++)
        x = x * MINSTD_A % MINSTD_M;
    return x;
}

static long arg(int argc, char **argv, int i, long def)
{
    if (argc <= i)
        return def;
    char *end;
    long x = strtol(argv[i], &end, 10);
    return *end || x < 1 || x > 1000000000L ? -1 : x;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    long iterations = arg(argc, argv, 1, 1000);
    long unit = arg(argc, argv, 2, 38000);
    if (iterations < 0 || unit < 0) {
        if (rank == 0)
            fprintf(stderr, "usage: barrier [ITERATIONS [UNIT]]\n");
        MPI_Finalize();
        return 2;
    }

    uint64_t x = (uint64_t)rank + 1;
    uint64_t done = 0; /* units of this rank */
    for (long it = 0; it < iterations; it++) {
        long n = units(rank, (int)(it % 7));
        x = work(x, n * unit);
        done += (uint64_t)n;
        MPI_Barrier(MPI_COMM_WORLD);
    }

    uint64_t mine[2] = {x, done}, sum[2];
    MPI_Reduce(mine, sum, 2, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("barrier: checksum=%llu units=%llu iterations=%ld\n", (unsigned long long)sum[0],
               (unsigned long long)sum[1], iterations);
    MPI_Finalize();
    return 0;
}
