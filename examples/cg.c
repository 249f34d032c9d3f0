/*
 * cg.c - conjugate gradients on the 5-point Laplacian of a wide grid, the
 * rows divided among the ranks: each iteration exchanges whole grid rows
 * (large messages, above the eager limit) with MPI_Irecv, MPI_Send and
 * MPI_Wait, and sums its two dot products by point-to-point messages
 * through rank 0 (issue 32: the pattern of a real program whose traced runs
 * were compensated 25-35% too long).
 *
 *   cg [W [ROWS [ITERATIONS]]]
 *       W           grid points per row (default 7000: a row is 56 000 bytes)
 *       ROWS        grid rows per rank (default 12)
 *       ITERATIONS  CG iterations (default 2000), no convergence test;
 *                   CG restarts from x = 0 every 50 iterations, so that r.r
 *                   never underflows
 *
 * The system is A x = b on a W x (ROWS * ranks) grid with zero Dirichlet
 * boundary, A the 5-point Laplacian (4 on the diagonal, -1 for each
 * neighbour) and b = 1 everywhere; x starts at 0.  An iteration:
 *   1. MPI_Irecv of the ghost row from each neighbour rank (the one above,
 *      the one below; none at the edges);
 *   2. MPI_Send of my first row up, then of my last row down;
 *   3. MPI_Wait on each receive;
 *   4. q = A p, and my part of p.q;
 *   5. p.q summed by point-to-point: every other rank MPI_Send's its part to
 *      rank 0, which MPI_Recv's them in rank order, adds them (rank order,
 *      so the sum is the same bit for bit on every run) and MPI_Send's the
 *      sum back; the others MPI_Recv it;
 *   6. x += alpha p, r -= alpha q, and r.r summed the same way;
 *   7. p = r + beta p.
 * Every 50 iterations x, r and p start again from 0, b and b: the solve
 * restarts (RESTART).
 *
 * With CG_TIMING set in the environment, every rank also prints the time
 * its compute phases took (steps 4, 6 and 7, CLOCK_MONOTONIC, summed) on
 * stderr: `cg: rank R compute S s`.
 *
 * Rank 0 prints one line:
 *   cg: w=W rows=R iterations=I rr=RR checksum=C
 * RR is r.r after the last iteration and C the sum of x over the grid
 * (%.12e; both summed in rank order, so they depend on the number of ranks
 * only through the partial sums).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <mpi.h>

#define RESTART 50

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int arg(int argc, char **argv, int i, int def)
{
    if (argc <= i)
        return def;
    char *end;
    long x = strtol(argv[i], &end, 10);
    return *end || x < 1 || x > 100000000 ? -1 : (int)x;
}

/* the sum over the ranks of mine, by point-to-point through rank 0 */
static double sum(double mine, int rank, int size)
{
    double total = mine, part;
    if (rank == 0) {
        for (int r = 1; r < size; r++) {
            MPI_Recv(&part, 1, MPI_DOUBLE, r, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            total += part;
        }
        for (int r = 1; r < size; r++)
            MPI_Send(&total, 1, MPI_DOUBLE, r, 3, MPI_COMM_WORLD);
    } else {
        MPI_Send(&mine, 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
        MPI_Recv(&total, 1, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    return total;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int w = arg(argc, argv, 1, 7000);
    int rows = arg(argc, argv, 2, 12);
    int iterations = arg(argc, argv, 3, 2000);
    if (w < 1 || rows < 1 || iterations < 0) {
        if (rank == 0)
            fprintf(stderr, "usage: cg [W [ROWS [ITERATIONS]]]\n");
        MPI_Finalize();
        return 2;
    }
    const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    const int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    /* p has a ghost row above and below and a zero column at each end */
    const size_t pw = (size_t)w + 2, n = (size_t)rows * (size_t)w;
    double *p = calloc((size_t)(rows + 2) * pw, sizeof *p);
    double *x = calloc(n, sizeof *x), *r = malloc(n * sizeof *r), *q = malloc(n * sizeof *q);
    if (!p || !x || !r || !q) {
        fprintf(stderr, "cg: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    double rr = 0.0, busy = 0.0, t0;
    const int timing = getenv("CG_TIMING") != NULL;
    for (int it = 0; it < iterations; it++) {
        if (it % RESTART == 0) {
            rr = 0.0;
            for (size_t i = 0; i < (size_t)rows; i++)
                for (size_t j = 0; j < (size_t)w; j++) {
                    x[i * w + j] = 0.0;
                    r[i * w + j] = 1.0; /* r = b - A x, x = 0 */
                    p[(i + 1) * pw + j + 1] = 1.0;
                    rr += 1.0;
                }
            rr = sum(rr, rank, size);
        }
        MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        if (up != MPI_PROC_NULL)
            MPI_Irecv(&p[1], w, MPI_DOUBLE, up, 0, MPI_COMM_WORLD, &req[0]);
        if (down != MPI_PROC_NULL)
            MPI_Irecv(&p[(size_t)(rows + 1) * pw + 1], w, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &req[1]);
        if (up != MPI_PROC_NULL)
            MPI_Send(&p[pw + 1], w, MPI_DOUBLE, up, 1, MPI_COMM_WORLD);
        if (down != MPI_PROC_NULL)
            MPI_Send(&p[(size_t)rows * pw + 1], w, MPI_DOUBLE, down, 0, MPI_COMM_WORLD);
        for (int k = 0; k < 2; k++)
            if (req[k] != MPI_REQUEST_NULL)
                MPI_Wait(&req[k], MPI_STATUS_IGNORE);

        double pq = 0.0;
        t0 = timing ? now() : 0.0;
        for (size_t i = 1; i <= (size_t)rows; i++)
            for (size_t j = 1; j <= (size_t)w; j++) {
                const double *c = &p[i * pw + j];
                double v = 4.0 * c[0] - c[-1] - c[1] - c[-(ptrdiff_t)pw] - c[pw];
                q[(i - 1) * w + j - 1] = v;
                pq += c[0] * v;
            }
        if (timing)
            busy += now() - t0;
        double alpha = rr / sum(pq, rank, size);
        double mine = 0.0;
        t0 = timing ? now() : 0.0;
        for (size_t k = 0; k < n; k++) {
            x[k] += alpha * p[(k / w + 1) * pw + k % w + 1];
            r[k] -= alpha * q[k];
            mine += r[k] * r[k];
        }
        if (timing)
            busy += now() - t0;
        double rr_new = sum(mine, rank, size);
        double beta = rr_new / rr;
        rr = rr_new;
        t0 = timing ? now() : 0.0;
        for (size_t i = 0; i < (size_t)rows; i++)
            for (size_t j = 0; j < (size_t)w; j++)
                p[(i + 1) * pw + j + 1] = r[i * w + j] + beta * p[(i + 1) * pw + j + 1];
        if (timing)
            busy += now() - t0;
    }
    if (timing)
        fprintf(stderr, "cg: rank %d compute %.6f s\n", rank, busy);

    double mine = 0.0;
    for (size_t k = 0; k < n; k++)
        mine += x[k];
    double checksum = sum(mine, rank, size);
    if (rank == 0)
        printf("cg: w=%d rows=%d iterations=%d rr=%.6e checksum=%.12e\n", w, rows, iterations, rr,
               checksum);
    free(p);
    free(x);
    free(r);
    free(q);
    MPI_Finalize();
    return 0;
}
