/*
 * c_exit.c - an MPI program that fails after MPI_Init: `c_exit N` ends with
 * exit status N after MPI_Finalize, `c_exit segv` raises SIGSEGV before it.
 * tests/tracer/run.sh checks what `unperturb trace` says and returns
 * (docs/cli.md: 1 and one line with the status or the signal's name).
 */
#include <mpi.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Barrier(MPI_COMM_WORLD);
    if (argc > 1 && !strcmp(argv[1], "segv"))
        raise(SIGSEGV);
    MPI_Finalize();
    return argc > 1 ? atoi(argv[1]) : 0;
}
