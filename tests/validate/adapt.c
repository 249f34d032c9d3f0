/*
 * adapt.c - an MPI program that is not the same execution when traced with
 * an extra cost (tests/validate/run.sh): as programs that size their loops
 * from measured time do (HPC Challenge), but deterministically, from the
 * tracer's UNPERTURB_EXTRA_NS (set by `unperturb trace --extra-ns E` when E
 * is not 0).
 *
 *   extra cost E   MPI_Sendrecv per rank   MPI_Barrier per rank
 *   unset or 0     1000                    2
 *   1 .. 999       1010 (+1.0%)            4
 *   1000 or more   1011 (+1.1%)            4
 *
 * On 2 ranks the first row gives 2000 Sendrecv records, the second 2020
 * (exactly 1% more: the same execution by validate's rule) and the third
 * 2022 (1.1% more: a different execution).  The barriers double, but with
 * fewer than 100 records they are not compared.
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

int main(int argc, char **argv)
{
    const char *e = getenv("UNPERTURB_EXTRA_NS");
    long extra = e ? atol(e) : 0, n = 1000, i, barriers = 2;
    int rank, size, peer, x = 0, y = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (extra > 0) {
        n += extra >= 1000 ? 11 : 10;
        barriers = 4;
    }
    peer = rank ^ 1;
    if (peer >= size)
        peer = rank; /* an odd last rank exchanges with itself */
    for (i = 0; i < barriers; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    for (i = 0; i < n; i++) {
        x = rank + (int)i;
        MPI_Sendrecv(&x, 1, MPI_INT, peer, 0, &y, 1, MPI_INT, peer, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    }
    if (rank == 0)
        printf("adapt: %ld exchanges, last %d\n", n, y);
    MPI_Finalize();
    return 0;
}
