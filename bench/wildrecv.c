/*
 * wildrecv.c - what one receive costs a farm's master as the number of its
 * peers grows (issue 22, item 0): MPI_Recv from MPI_ANY_SOURCE against
 * MPI_Recv from a named source, of a message that is already there.
 *
 *   mpirun -np N bench/wildrecv [MESSAGES]        (bench/wildrecv.sh runs N = 2..16)
 *
 * Every rank but 0 starts MESSAGES 8-byte sends to rank 0 (MPI_Isend) and
 * then waits in a barrier; rank 0 waits in the same barrier first, so the
 * messages are there (eager, in its unexpected queue, as far as the transport
 * took them in) before it receives.  It times each
 * receive on its own (clock_gettime around the call) and prints the minimum
 * and the median per call, for ANY_SOURCE and then for the named sources in
 * the order the messages came.  Oversubscribed runs share the cores, so
 * only the minimum and median of single calls mean something, not a whole
 * run's time.  Prints one line:
 *   wildrecv: np=N any_min_ns=A any_median_ns=B named_min_ns=C named_median_ns=D
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <mpi.h>

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* receive every message once, ANY_SOURCE (named == 0) or by source, and
 * keep each call's time in ns[] */
static void round_of(int size, int per, int named, double *ns)
{
    int i, src;
    long v;
    MPI_Status st;
    MPI_Barrier(MPI_COMM_WORLD); /* every message is here */
    for (i = 0; i < per * (size - 1); i++) {
        double t0;
        src = named ? 1 + i % (size - 1) : MPI_ANY_SOURCE;
        t0 = now_ns();
        MPI_Recv(&v, 1, MPI_LONG, src, 5, MPI_COMM_WORLD, &st);
        ns[i] = now_ns() - t0;
    }
}

int main(int argc, char **argv)
{
    int rank, size, per, named, i;
    long v = 7;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    per = argc > 1 ? atoi(argv[1]) : 200;
    if (per < 1 || size < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -np N (N >= 2) wildrecv [MESSAGES >= 1]\n");
        MPI_Finalize();
        return 2;
    }
    if (rank == 0) {
        int n = per * (size - 1);
        double *ns = malloc(2 * (size_t)n * sizeof *ns);
        if (!ns)
            MPI_Abort(MPI_COMM_WORLD, 1);
        for (named = 0; named < 2; named++)
            round_of(size, per, named, ns + (size_t)named * (size_t)n);
        for (named = 0; named < 2; named++)
            qsort(ns + (size_t)named * (size_t)n, (size_t)n, sizeof *ns, cmp);
        printf("wildrecv: np=%d any_min_ns=%.0f any_median_ns=%.0f named_min_ns=%.0f named_median_ns=%.0f\n",
               size, ns[0], ns[n / 2], ns[n], ns[n + n / 2]);
        free(ns);
    } else {
        /* MPI_Isend: a blocking send may wait for its receive (the transport
         * buffers only so many messages), which waits behind the barrier */
        MPI_Request *r = malloc((size_t)per * sizeof *r);
        if (!r)
            MPI_Abort(MPI_COMM_WORLD, 1);
        for (named = 0; named < 2; named++) {
            for (i = 0; i < per; i++)
                MPI_Isend(&v, 1, MPI_LONG, 0, 5, MPI_COMM_WORLD, &r[i]);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Waitall(per, r, MPI_STATUSES_IGNORE);
        }
        free(r);
    }
    MPI_Finalize();
    return 0;
}
