/*
 * c_hang.c - a run that does not reach MPI_Finalize, for the tracer's
 * robustness tests (tests/tracer/run.sh).  Every rank does ITER ring
 * exchanges (MPI_Send to r+1, MPI_Recv from r-1: 6 records each), then:
 *   abort: rank 1 calls MPI_Abort;  wait: every rank sleeps until killed;
 *   segv:  rank 0 dereferences NULL.
 * Usage: c_hang abort|wait|segv ITER
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size, x = 0, i, iter;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    iter = argc > 2 ? atoi(argv[2]) : 1000;
    for (i = 0; i < iter; i++) {
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        if (rank % 2 == 0) {
            MPI_Send(&x, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
            MPI_Recv(&x, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&x, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&x, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
        }
    }
    printf("c_hang: rank %d done with %d iterations\n", rank, iter);
    fflush(stdout);
    if (argc > 1 && !strcmp(argv[1], "abort")) {
        if (rank == 1)
            MPI_Abort(MPI_COMM_WORLD, 3);
        for (;;)
            sleep(1);
    } else if (argc > 1 && !strcmp(argv[1], "segv")) {
        if (rank == 0)
            raise(SIGSEGV);
        for (;;)
            sleep(1);
    } else {
        for (;;)
            sleep(1);
    }
    MPI_Finalize();
    return 0;
}
