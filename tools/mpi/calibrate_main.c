/*
 * calibrate_main.c - unperturb-calibrate, the MPI program behind
 * `unperturb calibrate` (run as `mpirun -np 2 unperturb-calibrate OUT
 * [EXTRA_NS]`): the thorough calibration, written by rank 0 to OUT.
 * It calls PMPI_Init directly, so the tracer linked into it stays off.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tracer/calib.h"
#include "tracer/upt.h"

int main(int argc, char **argv)
{
    char ini[UPT_CALIB_MAX];
    int rank = 0, rc;
    uint64_t extra = argc > 2 ? strtoull(argv[2], NULL, 10) : 0;
    FILE *f;
    if (argc < 2) {
        fprintf(stderr, "usage: unperturb-calibrate OUT [EXTRA_NS]\n");
        return 2;
    }
    if (extra) {
        char buf[32];
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)extra);
        setenv("UNPERTURB_EXTRA_NS", buf, 1);
    }
    PMPI_Init(&argc, &argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    upt_calib_extra_ns(extra);
    rc = upt_calibrate(UPT_CALIB_THOROUGH, ini, sizeof ini);
    if (rank == 0) {
        if (rc != 0)
            fprintf(stderr, "unperturb-calibrate: the measurement failed\n");
        else if (!(f = fopen(argv[1], "w")) || fputs(ini, f) < 0 || fclose(f) != 0) {
            fprintf(stderr, "unperturb-calibrate: cannot write '%s'\n", argv[1]);
            rc = 1;
        }
    }
    PMPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    PMPI_Finalize();
    return rc ? 1 : 0;
}
