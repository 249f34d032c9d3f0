/*
 * halo.c - Jacobi iteration for Laplace's equation on a square, with the
 * rows of the grid divided among the ranks: halo exchange with nonblocking
 * point-to-point calls, compute, and a global residual every few iterations.
 *
 *   halo [N [ITERATIONS [CHECK]]]
 *       N           interior points per side (default 768)
 *       ITERATIONS  Jacobi sweeps (default 5200)
 *       CHECK       an MPI_Allreduce of the residual every CHECK sweeps,
 *                   and after the last one (default 20)
 *
 * The grid has N x N interior points and a fixed boundary: 1 on the top
 * edge, 0.5 on the left, 0.25 on the right, 0 on the bottom; the interior
 * starts at 0.  Each rank owns N / ranks consecutive interior rows (the first
 * N % ranks ranks one more), plus a ghost row above and below.  A sweep:
 *   1. halo exchange: MPI_Irecv of both ghost rows from the neighbours,
 *      MPI_Isend of my first and last rows to them (MPI_PROC_NULL at the top
 *      and bottom edges), MPI_Waitall;
 *   2. unew[i][j] = 0.25 * (u[i-1][j] + u[i+1][j] + u[i][j-1] + u[i][j+1]),
 *      summed in that order, so every value is the same bit for bit on any
 *      number of ranks;
 *   3. on check sweeps, residual = sqrt(sum of (unew - u)^2) over the whole
 *      grid, by MPI_Allreduce.
 *
 * Rank 0 prints one line:
 *   halo: n=N iterations=I residual=R checksum=C
 * R is the residual of the last sweep and C the sum of all interior values
 * at the end (%.12e; their last digits depend on the order of the global
 * sums, hence slightly on the number of ranks).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define TOP 1.0
#define LEFT 0.5
#define RIGHT 0.25
#define BOTTOM 0.0

static int arg(int argc, char **argv, int i, int def)
{
    if (argc <= i)
        return def;
    char *end;
    long x = strtol(argv[i], &end, 10);
    return *end || x < 1 || x > 100000000 ? -1 : (int)x;
}

/* one sweep over rows 1..rows of u (rows + 2 by n + 2) into unew; returns
 * the sum of squared changes when wanted */
static double sweep(double *restrict unew, const double *restrict u, int rows, int n, int want)
{
    const size_t w = (size_t)n + 2;
    double change = 0.0;
    for (size_t i = 1; i <= (size_t)rows; i++)
        for (size_t j = 1; j <= (size_t)n; j++)
            unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] +
                                      u[i * w + j + 1]);
    if (want)
        for (size_t i = 1; i <= (size_t)rows; i++)
            for (size_t j = 1; j <= (size_t)n; j++) {
                double d = unew[i * w + j] - u[i * w + j];
                change += d * d;
            }
    return change;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int n = arg(argc, argv, 1, 768);
    int iterations = arg(argc, argv, 2, 5200);
    int check = arg(argc, argv, 3, 20);
    if (n < size || iterations < 0 || check < 0) {
        if (rank == 0)
            fprintf(stderr, "usage: halo [N(>=ranks) [ITERATIONS [CHECK]]]\n");
        MPI_Finalize();
        return 2;
    }

    const int rows = n / size + (rank < n % size);
    const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    const int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    const size_t w = (size_t)n + 2;
    double *u = calloc((size_t)(rows + 2) * w, sizeof *u);
    double *unew = calloc((size_t)(rows + 2) * w, sizeof *unew);
    if (!u || !unew) {
        fprintf(stderr, "halo: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    /* the fixed boundary, in both arrays: the edge columns of my rows, and
     * the top (bottom) edge as rank 0's (the last rank's) ghost row */
    for (int k = 0; k < 2; k++) {
        double *g = k ? unew : u;
        for (size_t i = 1; i <= (size_t)rows; i++) {
            g[i * w] = LEFT;
            g[i * w + w - 1] = RIGHT;
        }
        for (size_t j = 1; j <= (size_t)n; j++) {
            if (up == MPI_PROC_NULL)
                g[j] = TOP;
            if (down == MPI_PROC_NULL)
                g[(size_t)(rows + 1) * w + j] = BOTTOM;
        }
    }

    double residual = 0.0;
    for (int it = 1; it <= iterations; it++) {
        MPI_Request req[4];
        MPI_Irecv(&u[1], n, MPI_DOUBLE, up, 0, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(&u[(size_t)(rows + 1) * w + 1], n, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &req[1]);
        MPI_Isend(&u[w + 1], n, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &req[2]);
        MPI_Isend(&u[(size_t)rows * w + 1], n, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, &req[3]);
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);

        int want = it % check == 0 || it == iterations;
        double change = sweep(unew, u, rows, n, want);
        if (want) {
            double sum;
            MPI_Allreduce(&change, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            residual = sqrt(sum);
        }
        double *t = u;
        u = unew;
        unew = t;
    }

    double mine = 0.0, total = 0.0;
    for (size_t i = 1; i <= (size_t)rows; i++)
        for (size_t j = 1; j <= (size_t)n; j++)
            mine += u[i * w + j];
    MPI_Reduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("halo: n=%d iterations=%d residual=%.6e checksum=%.12e\n", n, iterations, residual, total);
    free(u);
    free(unew);
    MPI_Finalize();
    return 0;
}
