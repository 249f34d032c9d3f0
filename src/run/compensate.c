/*
 * compensate.c - the pipeline of `unperturb compensate`: OTF2 archive in,
 * the replay with model "compensate" (src/model/compensate.c), OTF2 archive
 * out at its temporary name; the summary's figures in the result
 * (src/report/ prints them).  Also the replay of `estimate --compare`.
 */
#include <stdio.h>
#include <string.h>

#include "run/pipeline.h"

void up_run_comp_opts_init(up_run_comp_opts *o)
{
    memset(o, 0, sizeof *o);
    up_comp_cli_init(&o->cli);
}

/* the archive's description: what was done, with which O */
static void describe(const up_comp_params *p, char *desc, size_t cap, char *prop, size_t pcap)
{
    snprintf(desc, cap,
             "overhead compensated by unperturb %s: mode %s, collectives %s, O(ns) enter %g leave %g send %g recv %g coll_begin %g coll_end %g other %g metric %g fn_enter %g fn_leave %g",
             UP_VERSION, up_mode_name(p->mode), up_collective_name(p->collective),
             p->overhead_ns[UP_RK_ENTER], p->overhead_ns[UP_RK_LEAVE], p->overhead_ns[UP_RK_SEND],
             p->overhead_ns[UP_RK_RECV], p->overhead_ns[UP_RK_COLL_BEGIN],
             p->overhead_ns[UP_RK_COLL_END], p->overhead_ns[UP_RK_OTHER],
             p->overhead_ns[UP_RK_METRIC], p->overhead_ns[UP_RK_FN_ENTER],
             p->overhead_ns[UP_RK_FN_LEAVE]);
    snprintf(prop, pcap, "mode=%s;collective=%s", up_mode_name(p->mode),
             up_collective_name(p->collective));
}

up_status up_run_compensate(const up_run_comp_opts *o, up_run_comp *r, up_err *err)
{
    up_status st;
    up_writer *w = NULL;
    up_comp *model = NULL;
    up_progress pg;
    up_replay_observer obs = {.ctx = &pg, .progress = up_progress_update};
    char desc[1024], prop[128];
    size_t i;

    memset(r, 0, sizeof *r);
    /* what is read and written, checked before any work */
    if (o->output &&
        ((st = up_outset_new(&r->outs, o->force, err)) != UP_OK ||
         (st = up_outset_input(r->outs, o->input, true, err)) != UP_OK ||
         (st = up_outset_input(r->outs, o->calibration, false, err)) != UP_OK ||
         (st = up_outset_add(r->outs, o->output, UP_OUT_DIR, "-o", &r->o_dir, err)) != UP_OK ||
         (o->json && (st = up_outset_add(r->outs, o->json, UP_OUT_FILE, "--json", &r->o_json, err)) != UP_OK) ||
         (st = up_outset_begin(r->outs, err)) != UP_OK))
        return st;
    if ((st = up_run_open(o->input, o->calibration, &o->cli, o->warn, o->warn_ctx, "compensating",
                          &r->trace, &r->params, r->source, err)) != UP_OK)
        return st;

    if (o->output && (st = up_writer_open(up_outset_tmp(r->outs, r->o_dir), r->trace, &w, err)) != UP_OK)
        return st;
    if ((st = up_comp_new(&r->params, r->trace, &model, err)) != UP_OK)
        goto out;
    up_progress_init(&pg, "compensate:", o->quiet);
    st = up_replay_run(r->trace, w, up_comp_ops(), model, &obs, &r->res, err);
    up_progress_end(&pg);
    if (st != UP_OK) {
        if (w)
            up_writer_explain(w, st, err);
        goto out;
    }
    if (w) {
        up_writer *wc = w;
        w = NULL; /* closed (or freed) by up_writer_close in any case */
        describe(&r->params, desc, sizeof desc, prop, sizeof prop);
        if ((st = up_writer_close(wc, r->trace, r->res.t_min_a, r->res.t_max_a, desc,
                                  "UNPERTURB::COMPENSATED", prop, err)) != UP_OK)
            goto out;
    }
    if (!(r->removed = up_calloc(r->res.nlocs ? r->res.nlocs : 1, sizeof *r->removed))) {
        UP_ERR(err, UP_ENOMEM, "out of memory");
        st = UP_ENOMEM;
        goto out;
    }
    for (i = 0; i < r->res.nlocs; i++)
        r->removed[i] = up_comp_removed(model, i);
    up_comp_stalls(model, &r->nstalls, &r->stall_ticks, &r->stall_lists_damaged);
out:
    up_writer_abort(w);
    up_comp_free(model);
    return st;
}

void up_run_comp_free(up_run_comp *r)
{
    up_free(r->removed);
    up_outset_free(r->outs);
    up_replay_result_free(&r->res);
    up_trace_close(r->trace);
    memset(r, 0, sizeof *r);
}
