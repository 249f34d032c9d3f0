/*
 * dense.c - up-bench-dense POLLS UNITS: records as dense as a polling loop
 * writes them (issue 20, item 4; bench/dense.sh).
 *
 * Two ranks (or any even number, in pairs).  Each posts an MPI_Irecv from
 * its partner that is sent only after the loop, then calls MPI_Test on it
 * POLLS times, with UNITS steps of a dependent integer chain (about 1 ns
 * each) of work between two calls.  Every test fails, so the loop is local
 * work and the tracer's records (Enter, MpiRequestTested, Leave per call)
 * are its only perturbation: a compensated run should recover the
 * uninstrumented one whatever the density.  Rank 0 prints the loop's time
 * per poll, measured inside the program.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static volatile uint64_t sink;

int main(int argc, char **argv)
{
    long polls = argc > 1 ? atol(argv[1]) : 1000000, units = argc > 2 ? atol(argv[2]) : 0, i, u;
    int rank, size, peer, flag = 0, token = 0, got = 0;
    uint64_t x = 88172645463325252ull;
    double t0, t1;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size % 2 || polls < 1 || units < 0) {
        if (rank == 0)
            fprintf(stderr, "usage: up-bench-dense POLLS UNITS (an even number of ranks)\n");
        MPI_Finalize();
        return 2;
    }
    peer = rank ^ 1;
    MPI_Irecv(&got, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, &req);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (i = 0; i < polls; i++) {
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        for (u = 0; u < units; u++) /* xorshift: each step needs the last */
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    }
    t1 = MPI_Wtime();
    sink = x + (uint64_t)flag;
    MPI_Send(&token, 1, MPI_INT, peer, 9, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rank == 0)
        printf("dense: %ld polls, %ld units between: %.1f ns per poll\n", polls, units,
               (t1 - t0) * 1e9 / (double)polls);
    MPI_Finalize();
    return 0;
}
