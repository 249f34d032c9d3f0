/*
 * fwdgen.c - up-fwd-gen DIR: writes DIR/traces.otf2, a small MPI trace (3
 * ranks on two nodes: MPI_Init, an MPI_Ssend received with MPI_ANY_SOURCE, a
 * buffer flush, a barrier, CPU-time metrics, MPI_Finalize; an RMA window,
 * sub-communicators, an OpenMP team; the scenario of tests/test_defcopy.c)
 * whose global definitions all reference forward: each is written before
 * the definitions it references (src/tracegen.c, TG_FORWARD_REFS), as no
 * OTF2 reader takes them.  For tests/readers/run.sh: what unperturb writes
 * from it must be in reference order.
 */
#include <stdio.h>

#include "tracegen/tracegen.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: up-fwd-gen DIR\n");
        return 2;
    }
    if (tg_small_mpi(argv[1], TG_TWO_NODES | TG_RMA | TG_SUBCOMMS | TG_OMP_TEAM | TG_CPU_METRIC |
                                  TG_FORWARD_REFS) != 0) {
        fprintf(stderr, "up-fwd-gen: cannot write %s\n", argv[1]);
        return 1;
    }
    return 0;
}
