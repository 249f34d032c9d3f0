/*
 * hybrid.c - MPI + OpenMP, for tests/validate/threads.sh: `unperturb
 * validate` of a hybrid program through the MPI path, its threads set by
 * OMP_NUM_THREADS (which validate's --threads passes through mpirun).
 *
 *   hybrid [ROUNDS]      (default 20)
 *
 * Each round every thread of every rank sums i * (rank + 1) for i in
 * [0, 200000) over its share of the loop (an OpenMP reduction), then the
 * main thread adds the ranks' sums with MPI_Allreduce
 * (MPI_THREAD_FUNNELED).  Per round the total is
 * (sum over ranks of (rank + 1)) * 199999 * 200000 / 2, checked exactly.
 * Prints "hybrid: ranks=R threads=T rounds=N" and "result: ok" (or FAIL)
 * on rank 0; exit status 1 when the check fails.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 200000L

int main(int argc, char **argv)
{
    int provided, rank, size, threads = 0;
    long rounds = argc > 1 ? atol(argv[1]) : 20, r, bad = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (r = 0; r < rounds; r++) {
        long long sum = 0, total = 0, want = (long long)size * (size + 1) / 2 * ((N - 1) * N / 2);
        long i;
#pragma omp parallel reduction(+ : sum)
        {
#pragma omp single
            threads = omp_get_num_threads();
#pragma omp for
            for (i = 0; i < N; i++)
                sum += i * (rank + 1L);
        }
        MPI_Allreduce(&sum, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        bad += total != want;
    }
    if (rank == 0) {
        printf("hybrid: ranks=%d threads=%d rounds=%ld\n", size, threads, rounds);
        if (bad)
            printf("result: FAIL %ld rounds\n", bad);
        else
            printf("result: ok\n");
    }
    MPI_Finalize();
    return bad != 0;
}
