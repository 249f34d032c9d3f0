/*
 * transpose.c - compute phases separated by distributed matrix transposes,
 * the "ocean" code of Sarukkai and Malony's Fig. 6; built with
 * -DTRANSPOSE_ANY it is transpose-any, their Fig. 7: the same program whose
 * receives accept any sender.
 *
 *   transpose [N [ITERATIONS [WORK]]]        (transpose-any takes the same)
 *       N           the matrix is N x N (default 512)
 *       ITERATIONS  compute phase + transpose, repeated (default 40)
 *       WORK        generator steps per element per compute phase (default 48)
 *
 * Each rank owns a block of consecutive rows (N / ranks, the first N % ranks
 * ranks one more).  Elements are integers mod P = 16777213 (a prime below
 * 2^24), so every step is exact and the result is the same on any number of
 * ranks.  A compute phase replaces every element A[i][j] by WORK steps of
 * x <- (48271 x + j + 1) mod P.  A transpose replaces A by its transpose:
 * rank r sends the part of its rows in rank d's column range to rank d,
 * already transposed, and places the block it gets from rank s in the
 * column range of rank s.  Deadlock-free order: all sends are MPI_Isend,
 * to r+1, r+2, ... (mod ranks); then one blocking MPI_Recv per other rank,
 * from r-1, r-2, ... in transpose, from MPI_ANY_SOURCE in transpose-any,
 * where the block's place comes from the status's MPI_SOURCE; then
 * MPI_Waitall on the sends.  Both variants compute the same matrix.
 *
 * Initially A[i][j] = (i N + j) mod P.  Rank 0 prints one line:
 *   transpose: n=N iterations=I checksum=C          (transpose-any: the same)
 * C = sum over i, j of A[i][j] (i N + j + 1), mod P, at the end.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#ifdef TRANSPOSE_ANY
#define NAME "transpose-any"
#else
#define NAME "transpose"
#endif

#define P 16777213u /* prime, < 2^24 */
#define MULT 48271u

/* rows owned by rank r of size ranks: [first(r), first(r) + count(r)) */
static int count(int n, int size, int r)
{
    return n / size + (r < n % size);
}

static int first(int n, int size, int r)
{
    return r * (n / size) + (r < n % size ? r : n % size);
}

static int arg(int argc, char **argv, int i, int def)
{
    if (argc <= i)
        return def;
    char *end;
    long x = strtol(argv[i], &end, 10);
    return *end || x < 1 || x > 1000000 ? -1 : (int)x;
}

/* one compute phase on rows [0, rows) of a (rows x n, row-major) */
static void compute(uint32_t *a, int rows, int n, int work)
{
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < n; j++) {
            uint64_t x = a[(size_t)i * n + j];
            for (int k = 0; k < work; k++)
                x = (x * MULT + (uint64_t)j + 1) % P;
            a[(size_t)i * n + j] = (uint32_t)x;
        }
}

/* pack the columns of rank d from my rows a (rows x n), transposed:
 * buf[jj][ii] = a[ii][c0 + jj], a (cols x rows) block */
static void pack(uint32_t *buf, const uint32_t *a, int rows, int n, int c0, int cols)
{
    for (int jj = 0; jj < cols; jj++)
        for (int ii = 0; ii < rows; ii++)
            buf[(size_t)jj * rows + ii] = a[(size_t)ii * n + c0 + jj];
}

/* place a block (my rows x cols) at columns [c0, c0 + cols) of b */
static void unpack(uint32_t *b, const uint32_t *buf, int rows, int n, int c0, int cols)
{
    for (int ii = 0; ii < rows; ii++)
        memcpy(&b[(size_t)ii * n + c0], &buf[(size_t)ii * cols], sizeof *buf * (size_t)cols);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int n = arg(argc, argv, 1, 512);
    int iterations = arg(argc, argv, 2, 40);
    int work = arg(argc, argv, 3, 48);
    if (n < size || iterations < 0 || work < 0) {
        if (rank == 0)
            fprintf(stderr, "usage: %s [N(>=ranks) [ITERATIONS [WORK]]]\n", NAME);
        MPI_Finalize();
        return 2;
    }

    const int rows = count(n, size, rank), row0 = first(n, size, rank);
    const int maxrows = count(n, size, 0);
    uint32_t *a = malloc(sizeof *a * (size_t)rows * n);
    uint32_t *b = malloc(sizeof *b * (size_t)rows * n);
    uint32_t *sendbuf = malloc(sizeof *sendbuf * (size_t)rows * n);         /* all outgoing blocks */
    uint32_t *recvbuf = malloc(sizeof *recvbuf * (size_t)rows * maxrows);   /* one incoming block */
    size_t *offset = calloc((size_t)size, sizeof *offset);                 /* block d in sendbuf */
    MPI_Request *req = malloc(sizeof *req * (size_t)size);
    if (!a || !b || !sendbuf || !recvbuf || !offset || !req) {
        fprintf(stderr, "%s: out of memory\n", NAME);
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < n; j++)
            a[(size_t)i * n + j] = (uint32_t)(((uint64_t)(row0 + i) * (uint64_t)n + (uint64_t)j) % P);
    for (int d = 0, off = 0; d < size; off += rows * count(n, size, d), d++)
        offset[d] = (size_t)off;

    for (int it = 0; it < iterations; it++) {
        compute(a, rows, n, work);

        /* transpose a into b */
        for (int d = 0; d < size; d++)
            pack(sendbuf + offset[d], a, rows, n, first(n, size, d), count(n, size, d));
        /* a rank can be one transpose ahead of me, never two: the parity of
         * the iteration keeps its next blocks out of my wildcard receives */
        int nreq = 0, tag = it % 2;
        for (int s = 1; s < size; s++) {
            int d = (rank + s) % size;
            MPI_Isend(sendbuf + offset[d], rows * count(n, size, d), MPI_UINT32_T, d, tag,
                      MPI_COMM_WORLD, &req[nreq++]);
        }
        unpack(b, sendbuf + offset[rank], rows, n, row0, rows); /* my own block */
        for (int s = 1; s < size; s++) {
            MPI_Status st;
            int got;
#ifdef TRANSPOSE_ANY
            MPI_Recv(recvbuf, rows * maxrows, MPI_UINT32_T, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st);
#else
            MPI_Recv(recvbuf, rows * maxrows, MPI_UINT32_T, (rank - s + size) % size, tag,
                     MPI_COMM_WORLD, &st);
#endif
            int src = st.MPI_SOURCE, cols = count(n, size, src);
            MPI_Get_count(&st, MPI_UINT32_T, &got);
            if (got != rows * cols) {
                fprintf(stderr, "%s: rank %d got %d elements from %d, expected %d\n", NAME, rank, got,
                        src, rows * cols);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            unpack(b, recvbuf, rows, n, first(n, size, src), cols);
        }
        MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
        uint32_t *t = a;
        a = b;
        b = t;
    }

    uint64_t sum = 0, total = 0;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < n; j++) {
            uint64_t w = ((uint64_t)(row0 + i) * (uint64_t)n + (uint64_t)j + 1) % P;
            sum = (sum + a[(size_t)i * n + j] * w) % P;
        }
    MPI_Reduce(&sum, &total, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s: n=%d iterations=%d checksum=%llu\n", NAME, n, iterations,
               (unsigned long long)(total % P));

    free(a);
    free(b);
    free(sendbuf);
    free(recvbuf);
    free(offset);
    free(req);
    MPI_Finalize();
    return 0;
}
