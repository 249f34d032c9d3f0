/*
 * ring.c - neighbour exchange around a ring with nonblocking calls: many
 * small messages and a little compute, the message-heavy example (also used
 * to measure the tracer's cost per record).
 *
 *   ring [ITERATIONS [WORK]]
 *       ITERATIONS  exchange + compute steps (default 100000)
 *       WORK        generator steps per value per iteration (default 72)
 *
 * Rank r holds K = 32 integers mod P = 16777213 (a prime below 2^24), so all
 * arithmetic is exact.  Each iteration it sends them to both neighbours
 * (left = r - 1, right = r + 1, mod ranks; 128-byte messages) and receives
 * theirs: MPI_Irecv from the left and the right, MPI_Isend to the right and
 * the left, MPI_Waitall of the four (tags tell the two directions apart, so
 * it also works on 2 ranks, where left and right are the same rank).  Then,
 * with L and R the neighbours' values,
 *     v[k] <- (48271 v[k] + L[k] + 2 R[(k + 1) mod K] + it) mod P
 * followed by WORK steps of v[k] <- (69621 v[k] + k + 1) mod P.
 *
 * Initially v[k] = r K + k + 1.  Rank 0 prints one line:
 *   ring: iterations=I checksum=C
 * C = sum over ranks r and k of v_r[k] (r K + k + 1), mod P, at the end;
 * a function of ITERATIONS, WORK and the number of ranks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define K 32
#define P 16777213u /* prime, < 2^24 */
#define TAG_RIGHTWARD 0 /* travelling to the right neighbour */
#define TAG_LEFTWARD 1

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

    long iterations = arg(argc, argv, 1, 100000);
    long work = arg(argc, argv, 2, 72);
    if (iterations < 0 || work < 0) {
        if (rank == 0)
            fprintf(stderr, "usage: ring [ITERATIONS [WORK]]\n");
        MPI_Finalize();
        return 2;
    }

    const int left = (rank + size - 1) % size, right = (rank + 1) % size;
    uint32_t v[K], from_left[K], from_right[K];
    for (int k = 0; k < K; k++)
        v[k] = (uint32_t)(rank * K + k + 1);

    for (long it = 0; it < iterations; it++) {
        MPI_Request req[4];
        MPI_Irecv(from_left, K, MPI_UINT32_T, left, TAG_RIGHTWARD, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(from_right, K, MPI_UINT32_T, right, TAG_LEFTWARD, MPI_COMM_WORLD, &req[1]);
        MPI_Isend(v, K, MPI_UINT32_T, right, TAG_RIGHTWARD, MPI_COMM_WORLD, &req[2]);
        MPI_Isend(v, K, MPI_UINT32_T, left, TAG_LEFTWARD, MPI_COMM_WORLD, &req[3]);
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);

        for (int k = 0; k < K; k++) {
            uint64_t x = ((uint64_t)v[k] * 48271u + from_left[k] + 2u * (uint64_t)from_right[(k + 1) % K] +
                          (uint64_t)it) % P;
            for (long w = 0; w < work; w++)
                x = (x * 69621u + (uint64_t)k + 1) % P;
            v[k] = (uint32_t)x;
        }
    }

    uint64_t sum = 0, total = 0;
    for (int k = 0; k < K; k++)
        sum = (sum + (uint64_t)v[k] * (uint64_t)(rank * K + k + 1)) % P;
    MPI_Reduce(&sum, &total, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ring: iterations=%ld checksum=%llu\n", iterations, (unsigned long long)(total % P));
    MPI_Finalize();
    return 0;
}
