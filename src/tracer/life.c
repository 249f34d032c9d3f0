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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/trace.h"
#include "tracer/calib.h"
#include "tracer/funcs.h"
#include "tracer/upt.h"

void upt_init_from(uint32_t region, uint64_t t_enter)
{
    char ini[UPT_CALIB_MAX];
    uint64_t t_funcs = upt_funcs_earliest(); /* main() began before MPI_Init */
    if (upt_solo || !upt_open(t_enter < t_funcs ? t_enter : t_funcs))
        return;
    /* calibration inside MPI_Init, before the analysis window */
    upt_start(upt_calibrate(UPT_CALIB_FAST, ini, sizeof ini) == 0 ? ini : NULL);
    upt_funcs_init(); /* Enter records of the functions already running (main) */
    upt_window_open(region, t_enter);
}

void upt_finalize(void)
{
    if (upt_solo || !upt_window_close()) /* the analysis window closes here */
        return;
    upt_pthreads_report();
    upt_funcs_fini(); /* Leave records of the functions still running */
    upt_close();
    upt_funcs_free();
    upt_merge();
}

/* ---- programs without MPI (docs/tracer.md, "Programs without MPI") ------------
 * `unperturb trace -- ./prog` names the process to trace, UNPERTURB_SOLO_PID
 * (the program it runs, not whatever that starts: a shell, mpirun), or a
 * user sets UNPERTURB_SOLO=1.  Recording runs from our constructor, after
 * the clock's and the hooks', to our destructor, which runs after the
 * program's own (it was loaded first).  The analysis window is marked as
 * MPI_Init and MPI_Finalize mark it: the Leave of UP_WINDOW_BEGIN after the
 * calibration, the Enter of UP_WINDOW_END first thing in the destructor
 * (trace.h), so the compensated trace has the window that
 * libunperturb-time.so times from its own constructor to its destructor in
 * the uninstrumented run (docs/validate.md, "Programs without MPI"). */
static int solo_wanted(void)
{
    const char *pid = getenv("UNPERTURB_SOLO_PID"), *on = getenv("UNPERTURB_SOLO");
    if (pid && *pid)
        return atol(pid) == (long)getpid();
    return on && !strcmp(on, "1");
}

/* A mark of the window: an overhead region entered and left at once (the
 * analysis removes the tracer's time between the two) */
static void solo_mark(const char *name)
{
    uint32_t r = upt_region_define_as(name, NULL, 0, OTF2_REGION_ROLE_ARTIFICIAL,
                                      OTF2_PARADIGM_MEASUREMENT_SYSTEM);
    if (r == UINT32_MAX)
        return;
    upt_enter(r);
    upt_leave(r);
}

__attribute__((constructor(110))) static void solo_start(void)
{
    char ini[UPT_CALIB_MAX];
    uint64_t t;
    if (!solo_wanted())
        return;
    upt_clock_init();
    t = upt_now();
    if (!upt_open_solo(t))
        return;
    upt_start(upt_calibrate(UPT_CALIB_FAST, ini, sizeof ini) == 0 ? ini : NULL);
    upt_funcs_init();
    solo_mark(UP_WINDOW_BEGIN);
}

__attribute__((destructor)) static void solo_end(void)
{
    if (!upt_solo)
        return;
    solo_mark(UP_WINDOW_END);
    upt_pthreads_report();
    upt_funcs_fini();
    upt_close();
    upt_funcs_free();
    upt_merge();
}
