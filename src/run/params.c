/*
 * params.c - the one place that resolves a command's compensation
 * parameters (docs/calibration.md, "Where values come from, in order of
 * precedence"): compensate, estimate, report and, through compensate,
 * validate.  Place in the data flow: before every pipeline's first pass.
 */
#include <stdio.h>

#include "run/pipeline.h"

up_status up_run_params(up_trace *t, const char *calib, const up_comp_cli *cli,
                        up_comp_params *p, char *source, up_err *err)
{
    up_status st;
    if ((st = up_comp_params_load(p, t, calib, source, UP_RUN_SOURCE_MAX, err)) != UP_OK)
        return st;
    if (cli)
        up_comp_params_apply_cli(p, cli, source, UP_RUN_SOURCE_MAX);
    if (!p->overhead_set)
        snprintf(source, UP_RUN_SOURCE_MAX, "none given: O = 0");
    up_comp_params_resolve(p);
    return UP_OK;
}

up_status up_run_open(const char *input, const char *calib, const up_comp_cli *cli,
                      up_run_warn_fn warn, void *wctx, const char *doing, up_trace **t,
                      up_comp_params *p, char *source, up_err *err)
{
    up_status st;
    char msg[256];
    if ((st = up_trace_open(input, t, err)) != UP_OK ||
        (st = up_run_params(*t, calib, cli, p, source, err)) != UP_OK)
        return st;
    if (!p->overhead_set && warn) {
        snprintf(msg, sizeof msg, "no per-record overhead given (--overhead-ns, --calibration or a "
                                  "calibration stored by the unperturb tracer); %s with O = 0", doing);
        warn(wctx, msg);
    }
    return UP_OK;
}
