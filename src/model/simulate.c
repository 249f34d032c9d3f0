/*
 * simulate.c - trace-driven extrapolation as a replay model (simulate.h).
 * STUB: being written (issue 7).
 */
#include <string.h>

#include "unperturb/simulate.h"

up_status up_sim_run(const up_sim_run_opts *o, up_sim_summary *s, up_err *err)
{
    memset(s, 0, sizeof *s);
    return UP_ERR(err, UP_EUSAGE, "%s: simulate is not implemented yet", o->input);
}

void up_sim_summary_free(up_sim_summary *s) { up_replay_result_free(&s->res); }
