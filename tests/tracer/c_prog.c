/*
 * c_prog.c - an MPI program with known communication, for the tracer's
 * end-to-end test (tests/tracer/run.sh).  On n ranks, rank r:
 *   1. MPI_Send 100 ints (400 B, tag 7) to r+1, MPI_Recv 100 ints from r-1
 *      (even ranks send first, odd ranks receive first);
 *   2. MPI_Isend 10 doubles (80 B, tag 8) to r+1, MPI_Irecv from r-1,
 *      MPI_Waitall on both;
 *   3. MPI_Sendrecv 1 int (4 B, tag 9) to r+1 from r-1;
 *   4. MPI_Allreduce of 1 double, MPI_Bcast of 10 ints from root 0, MPI_Barrier;
 *   5. MPI_Comm_split into even and odd ranks, MPI_Allreduce of 1 int on it,
 *      MPI_Comm_free.
 * Per rank: 3 sends (MpiSend x2, MpiIsend x1), 3 receives, 4 collectives
 * on MPI_COMM_WORLD (+1 Comm_split) and 1 on the split communicator.
 */
#include <mpi.h>
#include <stdio.h>

static int work(int n)
{
    volatile int s = 0;
    for (int i = 0; i < n; i++)
        s += i;
    return s;
}

int main(int argc, char **argv)
{
    int rank, size, buf[100] = {0}, in[100], x = 1, y = 0, b[10] = {0};
    double d[10] = {0}, e[10], one = 1, sum = 0;
    MPI_Request rq[2];
    MPI_Comm half;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    work(100000);
    if (rank % 2 == 0) {
        MPI_Send(buf, 100, MPI_INT, right, 7, MPI_COMM_WORLD);
        MPI_Recv(in, 100, MPI_INT, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(in, 100, MPI_INT, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, 100, MPI_INT, right, 7, MPI_COMM_WORLD);
    }
    MPI_Isend(d, 10, MPI_DOUBLE, right, 8, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(e, 10, MPI_DOUBLE, left, 8, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    MPI_Sendrecv(&x, 1, MPI_INT, right, 9, &y, 1, MPI_INT, left, 9, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast(b, 10, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, half);
    MPI_Comm_free(&half);
    work(100000);
    if (rank == 0)
        printf("c_prog: %d ranks, sum %.0f\n", size, sum);
    MPI_Finalize();
    return 0;
}
