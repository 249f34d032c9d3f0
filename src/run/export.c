/*
 * export.c - the pipeline of `unperturb export` (pipeline.h): the output
 * set and the input, opened; report/perfetto.c writes the JSON.
 */
#include <string.h>

#include "run/pipeline.h"

up_status up_run_export(const up_run_exp_opts *o, up_run_exp *r, up_err *err)
{
    up_status st;
    memset(r, 0, sizeof *r);
    if ((st = up_outset_new(&r->outs, o->force, err)) != UP_OK ||
        (st = up_outset_input(r->outs, o->input, true, err)) != UP_OK ||
        (st = up_outset_add(r->outs, o->output, UP_OUT_FILE, "--perfetto", NULL, err)) != UP_OK ||
        (st = up_outset_begin(r->outs, err)) != UP_OK)
        return st;
    return up_trace_open(o->input, &r->trace, err);
}

void up_run_exp_free(up_run_exp *r)
{
    up_outset_free(r->outs);
    up_trace_close(r->trace);
    memset(r, 0, sizeof *r);
}
