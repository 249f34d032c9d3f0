/*
 * runs.c - the printers of the pipelines' results (runs.h): each turns a
 * result of src/run/ into the text and files its command writes.
 */
#include <stdio.h>
#include <string.h>

#include "report/runs.h"

up_comp_report up_report_comp_of(const up_run_comp *c, const char *input, const char *output)
{
    up_comp_report rp = {input,          output,   &c->params,   c->source,
                         up_trace_defs(c->trace), &c->res, c->removed, c->nstalls,
                         c->stall_ticks, c->stall_lists_damaged, c->trace};
    return rp;
}

/* ---- report ---- */

up_status up_report_report_outputs(const up_run_rep *r, const up_run_rep_opts *o,
                                   const up_report_view *v, up_err *err)
{
    up_breakdown bd;
    up_html_input in;
    up_status st = UP_OK;

    memset(&bd, 0, sizeof bd);
    if (r->have_b && (st = up_breakdown_make(&r->a, &r->b, &bd, err)) != UP_OK)
        goto out;
    memset(&in, 0, sizeof in);
    in.path_a = o->path_a;
    in.path_b = r->have_b ? o->path_b : NULL;
    in.label_a = o->label_a;
    in.label_b = o->label_b;
    in.a = &r->a;
    in.b = r->have_b ? &r->b : NULL;
    in.bd = r->have_b ? &bd : NULL;
    in.tl_a = r->have_tl_a ? &r->tl_a : NULL;
    in.tl_b = r->have_tl_b ? &r->tl_b : NULL;
    in.est = r->have_est ? &r->est : NULL;
    in.hy_a = r->have_hy_a && r->hy_a.present ? &r->hy_a : NULL;
    in.hy_b = in.hy_a && r->have_b && r->have_hy_b ? &r->hy_b : NULL;
    in.command = v->command;
    in.top = v->top;
    if (v->text)
        up_report_profile_text(v->text, &in);
    if (o->json && (st = up_report_json(up_outset_tmp(r->outs, r->o_json), &in, err)) != UP_OK)
        goto out;
    if (!v->top)
        in.top = 30;
    if (o->html)
        st = up_report_html(up_outset_tmp(r->outs, r->o_html), &in, err);
out:
    up_breakdown_free(&bd);
    return st;
}
