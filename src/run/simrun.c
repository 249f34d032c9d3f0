/*
 * simrun.c - the simulations of `unperturb simulate` (simrun.h): one trace,
 * a sweep of one trace, scaling over several traces, and the pipeline that
 * chooses among them.  Opens the archives and the predicted archive's
 * writer; the model (model/simulate.h) replays.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/pipeline.h"
#include "run/simrun.h"

up_status up_simrun_one(const up_simrun_opts *o, up_sim_summary *s, up_err *err)
{
    up_trace *t = NULL;
    up_writer *w = NULL;
    up_sim *S = NULL;
    up_comp_params p;
    up_progress pg;
    up_replay_observer obs = {.ctx = &pg, .progress = up_progress_update};
    up_status st;
    char source[UP_RUN_SOURCE_MAX] = "", desc[512];
    bool known;

    memset(s, 0, sizeof *s);
    if ((st = up_trace_open(o->input, &t, err)) != UP_OK)
        goto done;
    /* the tracer's overheads: stored in the archive, then --calibration (the
     * one precedence of every command; simulate has no --overhead-ns) */
    if ((st = up_run_params(t, o->calibration, NULL, &p, source, err)) != UP_OK)
        goto done;
    known = p.overhead_set;
    if ((st = up_sim_new(o->machine, &p, up_trace_defs(t), &S, err)) != UP_OK)
        goto done;
    if (o->out_dir && (st = up_writer_open(o->out_dir, t, &w, err)) != UP_OK)
        goto done;
    up_progress_init(&pg, "simulate:", o->quiet);
    st = up_sim_trace(S, t, w, &obs, o->input, s, err);
    up_progress_end(&pg);
    if (st != UP_OK)
        goto done;
    s->overhead_known = known;
    snprintf(s->overhead_source, sizeof s->overhead_source, "%s", known ? source : "none");
    if (w) {
        up_writer *wc = w;
        w = NULL;
        snprintf(desc, sizeof desc,
                 "predicted by unperturb %s simulate: cpu_ratio %g, latency %g ns, %g ns/byte",
                 UP_VERSION, o->machine->cpu_ratio, o->machine->latency_ns, o->machine->ns_per_byte);
        if ((st = up_writer_close(wc, t, s->res.t_min_a, s->res.t_max_a, desc, "UNPERTURB::SIMULATED",
                                  "simulate", err)) != UP_OK)
            up_sim_summary_free(s);
    }
done:
    up_writer_abort(w);
    up_sim_free(S);
    up_trace_close(t);
    return st;
}

/* One simulation, no archive, no progress bar: what sweeps keep. */
static up_status simulate_point(const up_experiment *ex, const char *input, const up_machine *m,
                                up_sim_point *p, up_err *err)
{
    up_simrun_opts o = {input, m, ex->calib, NULL, true};
    up_sim_summary s;
    up_status st = up_simrun_one(&o, &s, err);
    if (st == UP_OK) {
        p->measured_s = s.measured_s;
        p->predicted_s = s.predicted_s;
        p->nranks = s.nranks > 0 ? s.nranks : (long)s.res.nlocs;
        p->nlocs = s.res.nlocs;
        p->cpu_time = s.cpu_time;
        up_sim_summary_free(&s);
    }
    return st;
}

up_status up_simrun_sweep(const up_experiment *ex, up_simrun_progress fn, void *ctx,
                          up_sweep_result *r, up_err *err)
{
    size_t a, b, k, npts;
    char what[160];
    up_status st;

    memset(r, 0, sizeof *r);
    r->n0 = ex->sw[0].n;
    r->n1 = ex->nsw > 1 ? ex->sw[1].n : 1;
    r->measured_s = NAN;
    npts = r->n0 * r->n1;
    if (!(r->pred = calloc(npts, sizeof *r->pred)))
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    for (a = 0, k = 0; a < r->n0; a++)
        for (b = 0; b < r->n1; b++, k++) {
            up_machine m;
            up_sim_point p;
            if ((st = up_experiment_machine_at(ex, a, b, &m, err)) != UP_OK ||
                (st = simulate_point(ex, ex->inputs[0], &m, &p, err)) != UP_OK)
                return st;
            if (k == 0)
                r->first = p, r->measured_s = p.measured_s;
            r->pred[k] = p.predicted_s;
            if (fn) {
                snprintf(what, sizeof what, "%s=%.12g", ex->sw[0].name, ex->sw[0].v[a]);
                if (ex->nsw > 1)
                    snprintf(what + strlen(what), sizeof what - strlen(what), " %s=%.12g", ex->sw[1].name,
                             ex->sw[1].v[b]);
                fn(ctx, k + 1, npts, ex->inputs[0], what, p.predicted_s);
            }
        }
    return UP_OK;
}

void up_sweep_result_free(up_sweep_result *r)
{
    free(r->pred);
    memset(r, 0, sizeof *r);
}

up_status up_simrun_scaling(const up_experiment *ex, up_simrun_progress fn, void *ctx,
                            up_scaling_result *r, up_err *err)
{
    size_t ni = ex->ninputs, nv = ex->nsw ? ex->sw[0].n : 1, v, i, k;
    char what[160];
    up_status st;

    if ((st = up_scaling_alloc(r, ni, nv, err)) != UP_OK)
        return st;
    for (v = 0, k = 0; v < nv; v++) {
        up_machine m;
        if ((st = up_experiment_machine_at(ex, v, 0, &m, err)) != UP_OK)
            return st;
        for (i = 0; i < ni; i++, k++) {
            if ((st = simulate_point(ex, ex->inputs[i], &m, &r->pt[v * ni + i], err)) != UP_OK)
                return st;
            if (fn) {
                what[0] = 0;
                if (ex->nsw)
                    snprintf(what, sizeof what, "%s=%.12g", ex->sw[0].name, ex->sw[0].v[v]);
                fn(ctx, k + 1, nv * ni, ex->inputs[i], what, r->pt[v * ni + i].predicted_s);
            }
        }
        /* order by rank count, one run per rank count: known after the first value */
        if (v == 0 && (st = up_scaling_order(r->pt, ni, ex->inputs, r->ord, err)) != UP_OK)
            return st;
    }
    up_scaling_speedups(r);
    return UP_OK;
}

/* ---- the pipeline ------------------------------------------------------------------ */

void up_run_sim_opts_init(up_run_sim_opts *o)
{
    memset(o, 0, sizeof *o);
    up_experiment_init(&o->ex);
}

/* An error of the command line: the caller points to --help. */
static up_status bad_usage(up_run_sim *r, up_status st)
{
    r->usage = true;
    return st;
}

/* The inputs, machine and sweeps of the command line or of the experiment
 * file, checked; UP_EUSAGE with r->usage for a bad command line. */
static up_status experiment(const up_run_sim_opts *o, up_run_sim *r, up_err *err)
{
    up_experiment *ex = &r->ex;
    up_status st;
    size_t i;

    *ex = o->ex;
    if (o->experiment) {
        if (o->nargs || ex->machine_file || ex->nsets || ex->nsw || ex->calib)
            return bad_usage(r, UP_ERR(err, UP_EUSAGE, "--experiment takes the inputs, machine, sweeps and "
                                       "calibration from %s; only -o, --json, --force and --quiet may be "
                                       "added", o->experiment));
        if ((st = up_experiment_load(ex, o->experiment, err)) != UP_OK)
            return st;
    } else {
        if (!o->nargs)
            return bad_usage(r, UP_ERR(err, UP_EUSAGE, "no input trace given"));
        if (o->nargs > UP_SIM_MAX_INPUTS)
            return bad_usage(r, UP_ERR(err, UP_EUSAGE, "more than %d inputs", UP_SIM_MAX_INPUTS));
        for (i = 0; i < o->nargs; i++)
            ex->inputs[ex->ninputs++] = o->args[i];
        if ((st = up_experiment_machine(ex, NULL, NULL, err)) != UP_OK)
            return st == UP_EUSAGE ? bad_usage(r, st) : st;
    }
    /* sweeps, limits, -o, recordable paths, readable inputs, the calibration */
    if ((st = up_experiment_prepare(ex, err)) != UP_OK && err->status == UP_EUSAGE)
        r->usage = true;
    return st;
}

up_status up_run_simulate(const up_run_sim_opts *o, up_run_sim *r, up_err *err)
{
    up_experiment *ex = &r->ex;
    const char *dir;
    up_status st;
    size_t i;

    memset(r, 0, sizeof *r);
    if ((st = experiment(o, r, err)) != UP_OK)
        return st;
    /* what is read and written, checked before any work; outputs never replace an input */
    if ((st = up_outset_new(&r->outs, o->force, err)) != UP_OK)
        return st;
    for (i = 0; i < ex->ninputs; i++)
        if ((st = up_outset_input(r->outs, ex->inputs[i], true, err)) != UP_OK)
            return st;
    if ((st = up_outset_input(r->outs, ex->calib, false, err)) != UP_OK ||
        (st = up_outset_input(r->outs, ex->machine_file, false, err)) != UP_OK ||
        (st = up_outset_input(r->outs, ex->file, false, err)) != UP_OK ||
        (ex->out && (st = up_outset_add(r->outs, ex->out, UP_OUT_DIR, "-o", &r->o_dir, err)) != UP_OK) ||
        (ex->json && (st = up_outset_add(r->outs, ex->json, UP_OUT_FILE, "--json", &r->o_json, err)) != UP_OK) ||
        (st = up_outset_begin(r->outs, err)) != UP_OK)
        return st;

    dir = ex->out ? up_outset_tmp(r->outs, r->o_dir) : NULL;
    if (ex->ninputs > 1) {
        r->kind = UP_SIM_SCALING;
        st = up_simrun_scaling(ex, o->progress, o->progress_ctx, &r->scaling, err);
    } else if (ex->nsw) {
        r->kind = UP_SIM_SWEEP;
        st = up_simrun_sweep(ex, o->progress, o->progress_ctx, &r->sweep, err);
    } else {
        up_simrun_opts so = {ex->inputs[0], &ex->m, ex->calib, dir, o->quiet};
        r->kind = UP_SIM_ONE;
        st = up_simrun_one(&so, &r->one, err); /* the archive, then experiment.ini beside it */
    }
    if (st == UP_OK && dir)
        st = up_experiment_save(ex, dir, err);
    return st;
}

void up_run_sim_free(up_run_sim *r)
{
    up_sim_summary_free(&r->one);
    up_sweep_result_free(&r->sweep);
    up_scaling_result_free(&r->scaling);
    up_outset_free(r->outs);
    up_experiment_free(&r->ex);
    memset(r, 0, sizeof *r);
}
