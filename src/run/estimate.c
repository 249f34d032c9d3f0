/*
 * estimate.c - the pipeline of `unperturb estimate`: the time-based models
 * of Malony and Reed (src/analysis/estimate.c) from one pass over the
 * trace, and with --compare the replay of `compensate --mode lower` without
 * output (up_run_compensate: the same parameters, the same path).
 */
#include <string.h>

#include "run/pipeline.h"

void up_run_est_opts_init(up_run_est_opts *o)
{
    memset(o, 0, sizeof *o);
    up_comp_cli_init(&o->cli);
}

up_status up_run_estimate(const up_run_est_opts *o, up_run_est *r, up_err *err)
{
    up_status st;
    memset(r, 0, sizeof *r);
    if ((st = up_outset_new(&r->outs, o->force, err)) != UP_OK ||
        (st = up_outset_input(r->outs, o->input, true, err)) != UP_OK ||
        (st = up_outset_input(r->outs, o->calibration, false, err)) != UP_OK ||
        (o->json && (st = up_outset_add(r->outs, o->json, UP_OUT_FILE, "--json", NULL, err)) != UP_OK) ||
        (st = up_outset_begin(r->outs, err)) != UP_OK)
        return st;
    if ((st = up_run_open(o->input, o->calibration, &o->cli, o->warn, o->warn_ctx, "estimating",
                          &r->trace, &r->params, r->source, err)) != UP_OK)
        return st;
    if (o->compare) {
        up_run_comp_opts c;
        up_run_comp_opts_init(&c);
        c.input = o->input;
        c.calibration = o->calibration;
        c.cli = o->cli;
        c.cli.mode_set = true;
        c.cli.mode = UP_MODE_LOWER;
        c.quiet = true;
        if ((st = up_run_compensate(&c, &r->replay, err)) != UP_OK)
            return st;
        r->have_replay = true;
        /* the replay's own copy of the trace: its names are not used */
        up_trace_close(r->replay.trace);
        r->replay.trace = NULL;
    }
    /* r->trace stays open: est.locs names point into its definitions */
    return up_estimate_run(r->trace, &r->params, &r->est, err);
}

up_estimate_report up_run_est_report(const up_run_est *r, const char *input)
{
    up_estimate_report e = {input, r->source, &r->params, &r->est,
                            r->have_replay ? &r->replay.res : NULL};
    return e;
}

void up_run_est_free(up_run_est *r)
{
    up_outset_free(r->outs);
    up_estimate_free(&r->est);
    up_run_comp_free(&r->replay);
    up_trace_close(r->trace);
    memset(r, 0, sizeof *r);
}
