/*
 * estimate_report.c - what `unperturb estimate` prints and writes (runs.h):
 * the table of the time-based models of Malony and Reed
 * (src/analysis/estimate.c), per location on request, beside the replay
 * with --compare, and the same as JSON (keys in docs/cli.md).
 *
 * Place in the data flow: last; reads an up_estimate_report, writes text
 * to a FILE the caller chose and the JSON at the output set's temporary
 * name.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>

#include "report/json.h"
#include "report/names.h"
#include "report/runs.h"

/* ---- text ---------------------------------------------------------------------- */

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
            e->window_marked ? UP_WINDOW_TEXT_MARKED : UP_WINDOW_TEXT_UNMARKED);
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

/* ---- JSON ---------------------------------------------------------------------- */

static int put(json_t *o, const char *k, json_t *v) { return json_object_set_new(o, k, v); }

static json_t *loc_ref(const up_estimate *e, long i)
{
    return i >= 0 ? json_integer((json_int_t)e->locs[i].id) : json_null();
}

up_status up_report_estimate_json(const up_estimate_report *r, const char *path, up_err *err)
{
    const up_estimate *e = r->est;
    const up_comp_params *p = r->params;
    const up_replay_result *x = r->replay;
    json_t *root = json_object(), *win, *ovh, *ons, *kinds, *ms, *locs, *rep = NULL;
    double tr = up_estimate_replay_s(r), res = e->resolution ? (double)e->resolution : 1.0;
    up_status st;
    size_t i;
    unsigned k;

    if (!root)
        return UP_ERR(err, UP_ENOMEM, "out of memory writing '%s'", up_output_name(path));
    win = up_report_json_child(root, "window", json_object());
    ovh = up_report_json_child(root, "overhead", json_object());
    ons = ovh ? up_report_json_child(ovh, "overhead_ns", json_object()) : NULL;
    kinds = up_report_json_child(root, "records_by_kind", json_object());
    ms = up_report_json_child(root, "models", json_array());
    locs = up_report_json_child(root, "per_location", json_array());
    if (x && !(rep = up_report_json_child(root, "replay", json_object())))
        goto nomem;
    if (!win || !ovh || !ons || !kinds || !ms || !locs)
        goto nomem;
    if (!x)
        put(root, "replay", json_null());
    put(root, "tool", json_string("unperturb estimate"));
    put(root, "version", json_string(UP_VERSION));
    put(root, "input", up_report_json_text(r->input));
    put(root, "measured_time_s", json_real(e->measured_s));
    put(root, "records", json_integer((json_int_t)e->records));
    put(root, "records_total", json_integer((json_int_t)e->records_total));
    put(root, "measured_overhead_records", json_integer((json_int_t)e->window.n_measured));
    put(root, "measured_overhead_s", json_real(e->measured_ovh_s));
    put(root, "locations", json_integer((json_int_t)e->nlocs));
    put(root, "decreasing_time", json_integer((json_int_t)e->decreasing_time));
    put(root, "unknown_records", json_integer((json_int_t)e->unknown_records));
    put(win, "marked", json_boolean(e->window_marked));
    put(win, "description",
        json_string(e->window_marked ? UP_WINDOW_TEXT_MARKED : UP_WINDOW_TEXT_UNMARKED));
    put(win, "resolution_ticks_per_s", json_integer((json_int_t)e->resolution));
    put(win, "start_ticks", json_integer((json_int_t)e->start_m));
    put(win, "end_ticks", json_integer((json_int_t)e->end_m));
    put(ovh, "source", up_report_json_text(r->params_source));
    put(ovh, "alpha_ns", json_real(e->alpha_ns));
    for (k = 0; k < UP_RK_COUNT; k++) {
        put(ons, up_rk_name(k), json_real(p->overhead_ns[k]));
        put(kinds, up_rk_name(k), json_integer((json_int_t)e->window.n[k]));
    }
    for (k = 0; k < UP_ESTIMATE_COUNT; k++) {
        const up_estimate_value *v = &e->model[k];
        json_t *o = json_object();
        if (!o || json_array_append_new(ms, o) != 0)
            goto nomem;
        put(o, "name", json_string(up_estimate_model_name(k)));
        put(o, "title", json_string(up_estimate_model_title(k)));
        put(o, "section", json_string(up_estimate_model_section(k)));
        put(o, "formula", json_string(up_estimate_model_formula(k)));
        put(o, "approximated_time_s", json_real(v->approximated_s));
        put(o, "absolute_error_s", json_real(e->measured_s - v->approximated_s));
        put(o, "direct_perturbation_s", json_real(v->dp_s));
        put(o, "dp_sequential_s", json_real(v->dp_seq_s));
        put(o, "dp_concurrent_s", json_real(v->dp_conc_s));
        put(o, "records", json_integer((json_int_t)v->records));
        put(o, "critical_location", loc_ref(e, v->critical));
        put(o, "error_vs_replay", up_report_json_real(up_estimate_error(r, k)));
        put(o, "difference_vs_replay_s", up_report_json_real(v->approximated_s - tr));
    }
    if (x) {
        put(rep, "mode", json_string("lower"));
        put(rep, "measured_time_s",
            json_real((double)(x->end_m > x->start_m ? x->end_m - x->start_m : 0) / res));
        put(rep, "approximated_time_s", up_report_json_real(tr));
        put(rep, "absolute_error_s", up_report_json_real(e->measured_s - tr));
    }
    for (i = 0; i < e->nlocs; i++) {
        const up_estimate_loc *l = &e->locs[i];
        json_t *o = up_report_json_loc(locs, l->id, l->rank, l->name);
        if (!o)
            goto nomem;
        put(o, "records_total", json_integer((json_int_t)l->records_total));
        put(o, "ends_window", json_boolean(l->counts_for_end));
        put(o, "measured_end_s", json_real(l->measured_s));
        put(o, "records", json_integer((json_int_t)l->records));
        put(o, "direct_perturbation_s", json_real(l->dp_s));
        put(o, "sequential_event_end_s", json_real(l->seq_event_end_s));
        put(o, "concurrent_event_end_s", json_real(l->conc_event_end_s));
        if (x && i < x->nlocs)
            put(o, "replay_end_s",
                json_real(x->locs[i].end_a > x->start_a
                              ? (double)(x->locs[i].end_a - x->start_a) / res : 0.0));
    }
    st = up_report_json_write(root, JSON_INDENT(2) | JSON_REAL_PRECISION(12), path, err);
    json_decref(root);
    return st;
nomem:
    json_decref(root);
    return UP_ERR(err, UP_ENOMEM, "out of memory writing '%s'", up_output_name(path));
}
