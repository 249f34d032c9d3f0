/*
 * life.c - the tracer's start inside MPI_Init and its end inside
 * MPI_Finalize (docs/tracer.md, "What happens inside MPI_Init"), for the
 * wrappers of both languages (mpi_c_hand.c, mpi_f_hand.c).
 *
 * Place in the data flow: measurement, above the files whose steps it puts
 * in order: tracer.c (the archive, recording, the analysis window, the
 * merge), calib.c (the fast calibration) and funcs.c (the functions already
 * running when recording starts, and still running when it ends).  Those
 * know nothing of each other's life cycle, so none of them depends on
 * another that depends on it (upt.h).
 */
#include "tracer/calib.h"
#include "tracer/funcs.h"
#include "tracer/upt.h"

void upt_init_from(uint32_t region, uint64_t t_enter)
{
    char ini[UPT_CALIB_MAX];
    uint64_t t_funcs = upt_funcs_earliest(); /* main() began before MPI_Init */
    if (!upt_open(t_enter < t_funcs ? t_enter : t_funcs))
        return;
    /* calibration inside MPI_Init, before the analysis window */
    upt_start(upt_calibrate(UPT_CALIB_FAST, ini, sizeof ini) == 0 ? ini : NULL);
    upt_funcs_init(); /* Enter records of the functions already running (main) */
    upt_window_open(region, t_enter);
}

void upt_finalize(void)
{
    if (!upt_window_close()) /* the analysis window closes here */
        return;
    upt_funcs_fini(); /* Leave records of the functions still running */
    upt_close();
    upt_funcs_free();
    upt_merge();
}
