/*
 * fwdgen.c - up-fwd-gen DIR: writes DIR/traces.otf2, a small MPI trace (3
 * ranks on two nodes: MPI_Init, an MPI_Ssend received with MPI_ANY_SOURCE, a
 * buffer flush, a barrier, CPU-time metrics, MPI_Finalize; an RMA window,
 * sub-communicators, an OpenMP team; the scenario of tests/test_defcopy.c)
 * whose global definitions all reference forward: each is written before
 * the definitions it references (tests/tracegen.c, TG_FORWARD_REFS), as no
 * OTF2 reader takes them.  For tests/readers/run.sh: what unperturb writes
 * from it must be in reference order.
 */
#include <stdio.h>

#include "../tracegen.h"

int main(int argc, char **argv)
{
    tg *g;
    unsigned r;
    if (argc != 2) {
        fprintf(stderr, "usage: up-fwd-gen DIR\n");
        return 2;
    }
    g = tg_open(argv[1], 3, 1000000000,
                TG_TWO_NODES | TG_RMA | TG_SUBCOMMS | TG_OMP_TEAM | TG_CPU_METRIC | TG_FORWARD_REFS);
    if (!g)
        return 1;
    for (r = 0; r < 3; r++) {
        tg_enter(g, r, 10, TG_MAIN);
        tg_enter(g, r, 20 + r, TG_INIT);
        tg_leave(g, r, 1000, TG_INIT);
        if (r == 0) { /* synchronous: it ends after the receive was posted */
            tg_enter(g, 0, 2000, TG_SSEND);
            tg_send(g, 0, 2500, 1, 7, 64);
            tg_leave(g, 0, 3000, TG_SSEND);
        }
        if (r == 1) {
            tg_enter(g, 1, 3500, TG_RECV);
            tg_recv_wild(g, 1, 4000, 0, 7, 64, 1);
            tg_leave(g, 1, 4500, TG_RECV);
        }
        if (r == 2) { /* the tracer's own time: removed */
            tg_enter(g, 2, 2000, TG_FLUSH_REGION);
            tg_leave(g, 2, 4000, TG_FLUSH_REGION);
        }
        tg_metric(g, r, 5000, 100000u * (r + 1));
        tg_mpi_coll(g, r, TG_BARRIER, 6000 + 100 * r, 6010 + 100 * r, 9000, 9100 + r,
                    OTF2_COLLECTIVE_OP_BARRIER, OTF2_UNDEFINED_UINT32, 0, 0);
        tg_enter(g, r, 10000, TG_FINALIZE);
        tg_leave(g, r, 11000 + r, TG_FINALIZE);
        tg_leave(g, r, 12000, TG_MAIN);
    }
    if (tg_close(g) != 0) {
        fprintf(stderr, "up-fwd-gen: cannot write %s\n", argv[1]);
        return 1;
    }
    return 0;
}
