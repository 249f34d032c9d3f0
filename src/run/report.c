/*
 * report.c - the pipeline of `unperturb report`: the profile of each run
 * (src/analysis/profile.c: the replay engine with an identity model), the
 * time-based models of run a when some source gives O (up_run_params, as
 * compensate and estimate), and for report.html the timelines of one window
 * (src/analysis/timeline.c): the window chosen on run a, the same records'
 * window in run b; for traces of threads or devices, the hybrid figures of
 * each run (src/analysis/hybrid.c, in its profile's windows).  The breakdown, the text, the JSON and report.html are
 * the view's (src/report/runs.c).
 */
#include <stdio.h>
#include <string.h>

#include "run/pipeline.h"

void up_run_rep_opts_init(up_run_rep_opts *o)
{
    memset(o, 0, sizeof *o);
    up_comp_cli_init(&o->cli);
    up_timeline_opts_init(&o->window);
    o->label_a = "measured";
    o->label_b = "compensated";
}

/* One run: its trace stays open while the profile's names are in use. */
static up_status profile(const char *path, const char *label, bool quiet, up_trace **t,
                         up_profile *prof, up_err *err)
{
    up_progress pg;
    up_replay_observer obs = {.ctx = &pg, .progress = up_progress_update};
    char what[96];
    up_status st;
    if ((st = up_trace_open(path, t, err)) != UP_OK)
        return st;
    snprintf(what, sizeof what, "report: profiling %.40s", label);
    up_progress_init(&pg, what, quiet);
    st = up_profile_run(*t, &obs, prof, err);
    up_progress_end(&pg);
    up_trace_release_streams(*t); /* the profile needs only its names */
    return st;
}

/* Threads and devices: a second pass over the run, in its profile's
 * windows, only when the trace has them. */
static up_status hybrid(const char *path, const up_trace *tp, const up_profile *prof,
                        up_hybrid *hy, bool *has, up_err *err)
{
    up_trace *t = NULL;
    up_status st;
    if (!up_hybrid_present(up_trace_defs(tp)))
        return UP_OK;
    if ((st = up_trace_open(path, &t, err)) != UP_OK)
        return st;
    if ((st = up_hybrid_run(t, prof, hy, err)) == UP_OK)
        *has = true;
    up_trace_close(t);
    return st;
}

/* The estimates need overheads: given, or stored by the tracer. */
static up_status estimates(const up_run_rep_opts *o, up_run_rep *r, up_err *err)
{
    up_trace *t = NULL;
    up_comp_params p;
    char source[UP_RUN_SOURCE_MAX];
    up_status st;
    if ((st = up_trace_open(o->path_a, &t, err)) != UP_OK)
        return st;
    if ((st = up_run_params(t, o->calibration, &o->cli, &p, source, err)) == UP_OK &&
        p.overhead_set && (st = up_estimate_run(t, &p, &r->est, err)) == UP_OK)
        r->have_est = true;
    /* est.locs names point into t's definitions: the report uses only the
     * models' totals, so t can go */
    up_trace_close(t);
    return st;
}

/* The timeline of window w of the run at `path`; *t stays open (the
 * timeline's names point into its definitions). */
static up_status timeline(const char *path, const up_timeline_win *w, const up_timeline_opts *o,
                          up_trace **t, up_timeline *tl, bool *has, up_err *err)
{
    up_status st;
    if ((st = up_trace_open(path, t, err)) != UP_OK)
        return st;
    if ((st = up_timeline_build(*t, w, o, tl, err)) == UP_OK)
        *has = true;
    up_trace_release_streams(*t);
    return st;
}

/* The window of run a, and the same part of the program in run b. */
static up_status timelines(const up_run_rep_opts *o, up_run_rep *r, up_err *err)
{
    up_timeline_win wa, wb;
    up_trace *t = NULL;
    up_status st;
    if ((st = up_trace_open(o->path_a, &t, err)) != UP_OK)
        return st;
    st = up_timeline_window(t, &o->window, &wa, err);
    up_trace_close(t);
    if (st == UP_OK)
        st = timeline(o->path_a, &wa, &o->window, &r->tl_t_a, &r->tl_a, &r->have_tl_a, err);
    if (st != UP_OK || !r->have_b)
        return st;
    if ((st = up_trace_open(o->path_b, &t, err)) != UP_OK)
        return st;
    st = up_timeline_map_window(t, &wa, &wb, err);
    up_trace_close(t);
    if (st != UP_OK)
        return st;
    return timeline(o->path_b, &wb, &o->window, &r->tl_t_b, &r->tl_b, &r->have_tl_b, err);
}

up_status up_run_report(const up_run_rep_opts *o, up_run_rep *r, up_err *err)
{
    up_status st;
    memset(r, 0, sizeof *r);
    if ((st = up_outset_new(&r->outs, o->force, err)) != UP_OK ||
        (st = up_outset_input(r->outs, o->path_a, true, err)) != UP_OK ||
        (st = up_outset_input(r->outs, o->path_b, true, err)) != UP_OK ||
        (st = up_outset_input(r->outs, o->calibration, false, err)) != UP_OK ||
        (o->json && (st = up_outset_add(r->outs, o->json, UP_OUT_FILE, "--json", &r->o_json, err)) != UP_OK) ||
        (o->html && (st = up_outset_add(r->outs, o->html, UP_OUT_FILE, "-o", &r->o_html, err)) != UP_OK) ||
        (st = up_outset_begin(r->outs, err)) != UP_OK)
        return st;
    if ((st = profile(o->path_a, o->label_a, o->quiet, &r->t_a, &r->a, err)) != UP_OK ||
        (st = hybrid(o->path_a, r->t_a, &r->a, &r->hy_a, &r->have_hy_a, err)) != UP_OK)
        return st;
    if (o->path_b) {
        if ((st = profile(o->path_b, o->label_b, o->quiet, &r->t_b, &r->b, err)) != UP_OK)
            return st;
        r->have_b = true;
        if ((st = hybrid(o->path_b, r->t_b, &r->b, &r->hy_b, &r->have_hy_b, err)) != UP_OK)
            return st;
    }
    if ((st = estimates(o, r, err)) != UP_OK)
        return st;
    return o->html ? timelines(o, r, err) : UP_OK;
}

void up_run_rep_free(up_run_rep *r)
{
    up_outset_free(r->outs);
    up_estimate_free(&r->est);
    up_profile_free(&r->a);
    up_profile_free(&r->b);
    up_hybrid_free(&r->hy_a);
    up_hybrid_free(&r->hy_b);
    if (r->have_tl_a)
        up_timeline_free(&r->tl_a);
    if (r->have_tl_b)
        up_timeline_free(&r->tl_b);
    up_trace_close(r->t_a);
    up_trace_close(r->t_b);
    up_trace_close(r->tl_t_a);
    up_trace_close(r->tl_t_b);
    memset(r, 0, sizeof *r);
}
