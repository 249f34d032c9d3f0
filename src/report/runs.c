/*
 * runs.c - the printers of the pipelines' results (runs.h): each turns a
 * result of src/run/ into the text and files its command writes.
 */
#include <math.h>
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

/* ---- estimate ---- */

void up_report_estimate_text(FILE *f, const up_estimate_report *r, bool per_loc)
{
    const up_estimate *e = r->est;
    const up_comp_params *p = r->params;
    double tr = up_estimate_replay_s(r), tm = e->measured_s;
    size_t i, shown = e->nlocs <= 32 ? e->nlocs : 16;
    unsigned k;
    char rk[24];

    fprintf(f, "unperturb estimate: %s\n", r->input);
    fprintf(f, "  overhead     per record (ns):");
    for (k = 0; k < UP_RK_COUNT; k++)
        fprintf(f, " %s %g", up_rk_name(k), p->overhead_ns[k]);
    fprintf(f, " [%s]\n", r->params_source);
    fprintf(f, "  window       %s\n",
            e->window_marked ? "end of MPI_Init .. start of MPI_Finalize (marked in the trace)"
                             : "first .. last record over all locations (no MPI_Init/MPI_Finalize marks)");
    fprintf(f, "  measured     T_m %.9f s; %llu records in the window on %zu locations "
               "(%llu in all), mean O (alpha) %.4g ns\n",
            tm, (unsigned long long)e->records, e->nlocs,
            (unsigned long long)e->records_total, e->alpha_ns);
    if (e->window.n_measured || e->window.measured_ticks)
        fprintf(f, "  flushes      %.9f s of buffer flushes and overhead regions (%llu records), "
                   "measured: in every DP\n",
                e->measured_ovh_s, (unsigned long long)e->window.n_measured);
    if (e->decreasing_time)
        fprintf(f, "  WARNING      %llu timestamps go backwards on their location: counts near them are approximate\n",
                (unsigned long long)e->decreasing_time);
    if (e->unknown_records)
        fprintf(f, "  WARNING      %llu records of a newer OTF2 version could not be read\n",
                (unsigned long long)e->unknown_records);
    fprintf(f, "\n  %-29s %14s %14s %8s %14s %10s %12s%s\n", "model (Malony & Reed)", "T_a s",
            "AE=T_m-T_a s", "AE/T_m", "DP s", "N", "critical", r->replay ? "  vs replay" : "");
    for (k = 0; k < UP_ESTIMATE_COUNT; k++) {
        const up_estimate_value *v = &e->model[k];
        char name[64], crit[32], cmp[32];
        double err = up_estimate_error(r, k);
        snprintf(name, sizeof name, "%s %s", up_estimate_model_section(k), up_estimate_model_title(k));
        if (v->critical >= 0)
            snprintf(crit, sizeof crit, "%llu", (unsigned long long)e->locs[v->critical].id);
        else
            snprintf(crit, sizeof crit, "-");
        if (!r->replay)
            cmp[0] = 0;
        else if (isnan(err))
            snprintf(cmp, sizeof cmp, " %10s", "-");
        else
            snprintf(cmp, sizeof cmp, " %9.3g%%", 100.0 * err);
        fprintf(f, "  %-29s %14.9f %14.9f %7.3g%% %14.9f %10llu %12s%s\n", name,
                v->approximated_s, tm - v->approximated_s,
                tm > 0 ? 100.0 * (tm - v->approximated_s) / tm : 0.0, v->dp_s,
                (unsigned long long)v->records, crit, cmp);
    }
    if (r->replay)
        fprintf(f, "  %-29s %14.9f %14.9f %7.3g%%\n", "replay (compensate, lower)", tr, tm - tr,
                tm > 0 ? 100.0 * (tm - tr) / tm : 0.0);
    for (k = 0; k < UP_ESTIMATE_COUNT; k++)
        if (e->model[k].approximated_s < 0) {
            fputs(UP_ESTIMATE_NEGATIVE_NOTE "\n", f);
            break;
        }
    if (!per_loc)
        return;
    fprintf(f, "\n  %-12s %5s  %-20s %14s %10s %14s %14s %14s%s\n", "location", "rank", "name",
            "T_m(P_i) s", "records", "DP_i s", "eq.(2) end s", "3.2.2 end s",
            r->replay ? "   replay end s" : "");
    for (i = 0; i < shown; i++) {
        const up_estimate_loc *l = &e->locs[i];
        char rep[32] = "", nm[21];
        if (r->replay && i < r->replay->nlocs) {
            const up_replay_result *x = r->replay;
            snprintf(rep, sizeof rep, " %14.9f",
                     x->locs[i].end_a > x->start_a
                         ? (double)(x->locs[i].end_a - x->start_a) / (double)x->resolution : 0.0);
        }
        fprintf(f, "  %-12llu %5s  %-20s %14.9f %10llu %14.9f %14.9f %14.9f%s%s\n",
                (unsigned long long)l->id, up_report_rank_text(l->rank, rk, sizeof rk),
                up_text_escape(nm, sizeof nm, l->name ? l->name : "", 0),
                l->measured_s, (unsigned long long)l->records, l->dp_s, l->seq_event_end_s,
                l->conc_event_end_s, rep, l->counts_for_end ? "" : "  (does not end the window)");
    }
    if (shown < e->nlocs)
        fprintf(f, "  ... %zu more locations (all of them in --json)\n", e->nlocs - shown);
}

/* ---- report ---- */

typedef struct tl_run {
    up_trace *t;
    up_timeline tl;
    bool has;
} tl_run;

static up_status timeline_run(const char *path, tl_run *r, const up_timeline_win *w,
                              const up_timeline_opts *o, up_err *err)
{
    up_status st;
    if ((st = up_trace_open(path, &r->t, err)) != UP_OK)
        return st;
    if ((st = up_timeline_build(r->t, w, o, &r->tl, err)) == UP_OK)
        r->has = true;
    up_trace_release_streams(r->t);
    return st;
}

/* the window of run a, and the same part of the program in run b */
static up_status windows(const char *path_a, const char *path_b, tl_run *a, tl_run *b,
                         const up_timeline_opts *o, up_err *err)
{
    up_timeline_win wa, wb;
    up_trace *t = NULL;
    up_status st;
    if ((st = up_trace_open(path_a, &t, err)) != UP_OK)
        return st;
    st = up_timeline_window(t, o, &wa, err);
    up_trace_close(t);
    if (st != UP_OK || (st = timeline_run(path_a, a, &wa, o, err)) != UP_OK || !path_b)
        return st;
    if ((st = up_trace_open(path_b, &t, err)) != UP_OK)
        return st;
    st = up_timeline_map_window(t, &wa, &wb, err);
    up_trace_close(t);
    if (st != UP_OK)
        return st;
    return timeline_run(path_b, b, &wb, o, err);
}

up_status up_report_report_outputs(const up_run_rep *r, const up_run_rep_opts *o,
                                   const up_report_view *v, up_err *err)
{
    up_breakdown bd;
    tl_run ta, tb;
    up_html_input in;
    up_status st = UP_OK;

    memset(&bd, 0, sizeof bd);
    memset(&ta, 0, sizeof ta);
    memset(&tb, 0, sizeof tb);
    if (r->have_b && (st = up_breakdown_make(&r->a, &r->b, &bd, err)) != UP_OK)
        goto out;
    if (o->html && (st = windows(o->path_a, r->have_b ? o->path_b : NULL, &ta, &tb, &v->window,
                                 err)) != UP_OK)
        goto out;
    memset(&in, 0, sizeof in);
    in.path_a = o->path_a;
    in.path_b = r->have_b ? o->path_b : NULL;
    in.label_a = o->label_a;
    in.label_b = o->label_b;
    in.a = &r->a;
    in.b = r->have_b ? &r->b : NULL;
    in.bd = r->have_b ? &bd : NULL;
    in.tl_a = ta.has ? &ta.tl : NULL;
    in.tl_b = tb.has ? &tb.tl : NULL;
    in.est = r->have_est ? &r->est : NULL;
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
    if (ta.has)
        up_timeline_free(&ta.tl);
    if (tb.has)
        up_timeline_free(&tb.tl);
    up_trace_close(ta.t);
    up_trace_close(tb.t);
    return st;
}
