/*
 * summary.c - text and JSON summaries of a compensation run (summary.h).
 * Place in the data flow: after the replay; reads up_replay_result only.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "report/json.h"
#include "report/names.h"
#include "report/summary.h"

/* Seconds from the window start to t (0 when t lies before it). */
static double rel_s(const up_replay_result *r, uint64_t t, uint64_t start)
{
    return t > start ? up_ticks_s(r, t - start) : 0.0;
}

static uint64_t total_removed(const up_comp_report *rp)
{
    uint64_t s = 0;
    size_t i;
    for (i = 0; i < rp->res->nlocs; i++)
        s += rp->removed[i];
    return s;
}

/* What one remaining poll of a spin costs (docs/models.md, "Polling"). */
static const char *poll_cost_text(const up_comp_params *p)
{
    static char buf[64];
    if (p->test_ns > 0)
        snprintf(buf, sizeof buf, "%g ns (test_ns)", p->test_ns);
    else
        snprintf(buf, sizeof buf, "its spin's shortest call less O");
    return buf;
}

static const char *window_text(const up_replay_result *r)
{
    return r->window_marked ? UP_WINDOW_TEXT_MARKED : UP_WINDOW_TEXT_UNMARKED;
}

json_t *up_report_damage_json(const up_trace *t)
{
    json_t *a = json_array();
    const up_defs *d = up_trace_defs(t);
    size_t i;
    for (i = 0; a && i < up_trace_ndamage(t); i++) {
        const up_damage *dm = up_trace_damage(t, i);
        json_t *o = json_object();
        if (!o || json_array_append_new(a, o) != 0) {
            json_decref(a);
            return NULL;
        }
        json_object_set_new(o, "file", up_report_json_text(dm->file));
        json_object_set_new(o, "kind", json_string(dm->kind == UP_DAMAGE_FILE        ? "damaged"
                                                   : dm->kind == UP_DAMAGE_COUNT     ? "record_count"
                                                   : dm->kind == UP_DAMAGE_DUPLICATE ? "duplicate_definitions"
                                                                                     : "timestamps"));
        json_object_set_new(o, "location", dm->loc < 0 ? json_null()
                                                       : json_integer((json_int_t)d->locs[dm->loc].id));
        json_object_set_new(o, "offset", json_integer((json_int_t)dm->offset));
        json_object_set_new(o, "problem", up_report_json_text(dm->what));
        if (dm->events || dm->loc < 0)
            json_object_set_new(o, "records_kept", json_integer((json_int_t)dm->kept));
        if (dm->events) {
            json_object_set_new(o, "records_declared", json_integer((json_int_t)dm->declared));
            if (dm->kind == UP_DAMAGE_FILE && d->resolution && d->trace_length &&
                dm->t_last >= d->global_offset && dm->t_last - d->global_offset < d->trace_length)
                json_object_set_new(o, "time_lost_s",
                                    json_real((double)(d->global_offset + d->trace_length - dm->t_last) /
                                              (double)d->resolution));
        }
    }
    return a;
}

void up_report_repairs_text(FILE *f, const up_replay_result *r)
{
    up_repair_line rl[UP_REPAIR_LINES_MAX];
    size_t n = up_replay_repairs(r, rl), k;
    int pass;
    bool any;
    for (pass = 1; pass >= 0; pass--) {
        any = false;
        fprintf(f, pass ? "  repairs     " : "  model limits");
        for (k = 0; k < n; k++)
            if (rl[k].n && rl[k].kind->fix == (bool)pass) {
                fprintf(f, "%s %s %llu", any ? "," : "", rl[k].kind->name,
                        (unsigned long long)rl[k].n);
                any = true;
            }
        fprintf(f, "%s\n", any ? "" : " none");
    }
    if (r->unknown_records)
        fprintf(f, "  WARNING      %llu records of a newer OTF2 version could not be read and are missing from the output\n",
                (unsigned long long)r->unknown_records);
}

void up_report_compensate_text(FILE *f, const up_comp_report *rp)
{
    const up_replay_result *r = rp->res;
    const up_comp_params *p = rp->params;
    double tm = up_replay_measured_s(r), ta = up_replay_approximated_s(r);
    size_t i, shown = r->nlocs <= 32 ? r->nlocs : 16;
    unsigned k;

    fprintf(f, "unperturb compensate: %s -> %s\n", rp->input, rp->output);
    fprintf(f, "  model        mode %s, collectives %s; overhead per record (ns):",
            up_mode_name(p->mode), up_collective_name(p->collective));
    for (k = 0; k < UP_RK_COUNT; k++)
        fprintf(f, " %s %g", up_rk_name(k), p->overhead_ns[k]);
    fprintf(f, " [%s]\n", rp->params_source);
    if (p->nloc_ovh) {
        double most = 0;
        for (i = 0; i < p->nloc_ovh; i++)
            most = p->loc_ovh_ns[i] > most ? p->loc_ovh_ns[i] : most;
        fprintf(f, "               plus up to %g ns per record on %zu locations ([overhead_by_location]: "
                   "what their --extra-ns spins took beyond the calibration)\n", most, p->nloc_ovh);
    }
    if (rp->nstalls)
        fprintf(f, "               plus %llu stalls of the tracer's --extra-ns spins, %.6f s in all, "
                   "removed where they lie (<location>.stalls)\n",
                (unsigned long long)rp->nstalls, up_ticks_s(r, rp->stall_ticks));
    if (rp->stall_lists_damaged)
        fprintf(f, "  WARNING      %llu stalls lists damaged: read up to the damage, the stalls after it are not removed\n",
                (unsigned long long)rp->stall_lists_damaged);
    if (p->overhead_end)
        fprintf(f, "               the %s end of the calibrated range of O ([overhead_%s]), so that the %s bound %s\n",
                p->overhead_end > 0 ? "high" : "low", p->overhead_end > 0 ? "high" : "low",
                p->overhead_end > 0 ? "lower" : "upper",
                p->overhead_end > 0 ? "removes the dearest records measured"
                                    : "removes the cheapest");
    if (p->mode == UP_MODE_NETWORK && p->nnet)
        fprintf(f, "  network      one-way time by size from %llu B (%g ns) to %llu B (%g ns), %zu points, "
                   "copies included; %g ns/hop\n",
                (unsigned long long)p->net_bytes[0], p->net_ns[0],
                (unsigned long long)p->net_bytes[p->nnet - 1], p->net_ns[p->nnet - 1], p->nnet,
                p->per_hop_ns);
    else if (p->mode == UP_MODE_NETWORK)
        fprintf(f, "  network      latency %g ns, %g ns/byte, %g ns/hop%s\n", p->latency_ns,
                p->ns_per_byte, p->per_hop_ns,
                p->network_set ? "" : " (no network parameters given: same as --mode lower)");
    fprintf(f, "  protocol     sends above %g bytes and MPI_Ssend/MPI_Issend are synchronous%s\n",
            p->eager_limit, p->eager_set ? "" : " (default eager limit)");
    if (r->wildcard != UP_WILDCARD_PRESERVE)
        fprintf(f, "  wildcard     %s%s: %llu of %llu wildcard receives matched another send than "
                   "measured\n", up_wildcard_name(r->wildcard),
                p->wildcard == UP_WILDCARD_AUTO ? " (the tracer marked them)" : "",
                (unsigned long long)r->rematched, (unsigned long long)r->wildcard_recvs);
    else
        fprintf(f, "  wildcard     preserve: every receive keeps its measured send%s\n",
                p->wildcard == UP_WILDCARD_AUTO ? " (no wildcard receives marked)" : "");
    if (r->replies_marked || r->replies_inferred)
        fprintf(f, "  task farm    %llu replies (%llu marked by the tracer, %llu inferred), %llu sent to "
                   "the re-matched source (replies %s); %llu tasks' work moved with them, %llu "
                   "left as measured\n",
                (unsigned long long)(r->replies_marked + r->replies_inferred),
                (unsigned long long)r->replies_marked, (unsigned long long)r->replies_inferred,
                (unsigned long long)r->retargeted, up_replies_name(p->replies),
                (unsigned long long)r->bodies_moved,
                (unsigned long long)r->bodies_lost);
    if (p->polls == UP_POLLS_LOCAL)
        fprintf(f, "  polls        local: every MPI_Test/Iprobe that found nothing is local work\n");
    else
        fprintf(f, "  polls        %llu spins collapsed (%llu poll calls took no time), %llu completions "
                   "moved to a later poll; a poll costs %s, spin gap %g ns\n",
                (unsigned long long)r->spins, (unsigned long long)r->polls_collapsed,
                (unsigned long long)r->completions_moved, poll_cost_text(p), p->spin_gap_ns);
    fprintf(f, "  window       %s\n", window_text(r));
    fprintf(f, "  run time     measured %.9f s, approximated %.9f s (%+.2f%%)\n", tm, ta,
            tm > 0 ? 100.0 * (ta - tm) / tm : 0.0);
    fprintf(f, "  records      %llu on %zu locations; overhead removed %.9f s\n",
            (unsigned long long)r->events, r->nlocs, up_ticks_s(r, total_removed(rp)));
    up_report_repairs_text(f, r);
    if (r->moved)
        fprintf(f, "  moved        %llu records raised by repairs and limits, the largest shift %.9f s\n",
                (unsigned long long)r->moved, up_ticks_s(r, r->max_shift));
    if (rp->defs->n_snapshots || rp->defs->n_thumbnails)
        fprintf(f, "  note         the input's %u snapshots and %u thumbnails (auxiliary OTF2 files) are not carried over\n",
                rp->defs->n_snapshots, rp->defs->n_thumbnails);
    fprintf(f, "  %-12s %5s  %-20s %16s %16s %14s\n", "location", "rank", "name",
            "measured end s", "approx. end s", "removed s");
    for (i = 0; i < shown; i++) {
        const up_loc_result *l = &r->locs[i];
        char rank[24], name[21];
        fprintf(f, "  %-12llu %5s  %-20s %16.9f %16.9f %14.9f\n", (unsigned long long)l->id,
                up_report_rank_text(l->rank, rank, sizeof rank),
                up_text_escape(name, sizeof name, l->name ? l->name : "", 0),
                rel_s(r, l->end_m, r->start_m), rel_s(r, l->end_a, r->start_a),
                up_ticks_s(r, rp->removed[i]));
    }
    if (shown < r->nlocs)
        fprintf(f, "  ... %zu more locations (all of them in --json)\n", r->nlocs - shown);
}

static int put(json_t *o, const char *k, json_t *v) { return json_object_set_new(o, k, v); }

up_status up_report_compensate_json(const up_comp_report *rp, const char *path,
                                    up_err *err)
{
    const up_replay_result *r = rp->res;
    const up_comp_params *p = rp->params;
    json_t *root = json_object(), *rep, *locs, *par, *ovh, *copy, *win;
    up_repair_line rl[UP_REPAIR_LINES_MAX];
    up_status st;
    size_t i, nrl;
    unsigned k;

    if (!root)
        return UP_ERR(err, UP_ENOMEM, "out of memory writing '%s'", up_output_name(path));
    put(root, "moved_records", json_integer((json_int_t)r->moved));
    put(root, "wildcard", json_string(up_wildcard_name(r->wildcard)));
    put(root, "replies", json_string(up_replies_name(p->replies)));
    put(root, "progress", json_string(up_rdv_progress_name(p->progress)));
    put(root, "wildcard_receives", json_integer((json_int_t)r->wildcard_recvs));
    put(root, "rematched_receives", json_integer((json_int_t)r->rematched));
    put(root, "replies_marked", json_integer((json_int_t)r->replies_marked));
    put(root, "replies_inferred", json_integer((json_int_t)r->replies_inferred));
    put(root, "replies_retargeted", json_integer((json_int_t)r->retargeted));
    put(root, "task_bodies_moved", json_integer((json_int_t)r->bodies_moved));
    put(root, "task_bodies_left", json_integer((json_int_t)r->bodies_lost));
    put(root, "largest_shift_s", json_real(up_ticks_s(r, r->max_shift)));
    put(root, "polls", json_string(up_polls_name(p->polls)));
    put(root, "spins", json_integer((json_int_t)r->spins));
    put(root, "polls_collapsed", json_integer((json_int_t)r->polls_collapsed));
    put(root, "completions_moved", json_integer((json_int_t)r->completions_moved));
    rep = up_report_json_child(root, "repairs", json_object());
    win = up_report_json_child(root, "window", json_object());
    par = up_report_json_child(root, "parameters", json_object());
    locs = up_report_json_child(root, "per_location", json_array());
    ovh = par ? up_report_json_child(par, "overhead_ns", json_object()) : NULL;
    copy = par ? up_report_json_child(par, "copy", json_array()) : NULL;
    if (!rep || !win || !par || !locs || !ovh || !copy)
        goto nomem;
    put(root, "tool", json_string("unperturb compensate"));
    put(root, "version", json_string(UP_VERSION));
    put(root, "input", up_report_json_text(rp->input));
    put(root, "output", up_report_json_text(rp->output));
    put(root, "mode", json_string(up_mode_name(p->mode)));
    put(root, "collective", json_string(up_collective_name(p->collective)));
    put(root, "measured_time_s", json_real(up_replay_measured_s(r)));
    put(root, "approximated_time_s", json_real(up_replay_approximated_s(r)));
    put(root, "overhead_removed_s", json_real(up_ticks_s(r, total_removed(rp))));
    put(root, "locations", json_integer((json_int_t)r->nlocs));
    put(root, "events", json_integer((json_int_t)r->events));
    put(root, "unknown_records", json_integer((json_int_t)r->unknown_records));
    if (rp->in)
        put(root, "input_damage", up_report_damage_json(rp->in));
    put(root, "snapshots_not_copied", json_integer((json_int_t)rp->defs->n_snapshots));
    put(root, "thumbnails_not_copied", json_integer((json_int_t)rp->defs->n_thumbnails));
    put(win, "marked", json_boolean(r->window_marked));
    put(win, "description", json_string(window_text(r)));
    put(win, "resolution_ticks_per_s", json_integer((json_int_t)r->resolution));
    for (i = 0, nrl = up_replay_repairs(r, rl); i < nrl; i++)
        put(rep, rl[i].kind->name, json_integer((json_int_t)rl[i].n));
    for (k = 0; k < UP_RK_COUNT; k++)
        put(ovh, up_rk_name(k), json_real(p->overhead_ns[k]));
    for (i = 0; i < p->ncopy; i++) {
        json_t *pt = json_object();
        if (!pt || json_array_append_new(copy, pt) != 0)
            goto nomem;
        put(pt, "bytes", json_integer((json_int_t)p->copy_bytes[i]));
        put(pt, "ns_per_byte", json_real(p->copy_ns_per_byte[i]));
    }
    {
        json_t *nb = up_report_json_child(par, "network_by_size", json_array());
        for (i = 0; nb && i < p->nnet; i++) {
            json_t *pt = json_object();
            if (!pt || json_array_append_new(nb, pt) != 0)
                goto nomem;
            put(pt, "bytes", json_integer((json_int_t)p->net_bytes[i]));
            put(pt, "ns", json_real(p->net_ns[i]));
        }
    }
    put(par, "latency_ns", json_real(p->latency_ns));
    put(par, "ns_per_byte", json_real(p->ns_per_byte));
    put(par, "per_hop_ns", json_real(p->per_hop_ns));
    put(par, "eager_limit_bytes", json_real(p->eager_limit));
    put(par, "test_ns", json_real(p->test_ns));
    put(par, "spin_gap_ns", json_real(p->spin_gap_ns));
    put(par, "source", up_report_json_text(rp->params_source));
    {
        json_t *bl = up_report_json_child(par, "overhead_by_location_ns", json_object());
        char key[32];
        for (i = 0; bl && i < p->nloc_ovh; i++) {
            snprintf(key, sizeof key, "%llu", (unsigned long long)p->loc_ovh_id[i]);
            put(bl, key, json_real(p->loc_ovh_ns[i]));
        }
    }
    put(par, "stalls", json_integer((json_int_t)rp->nstalls));
    put(par, "stalls_s", json_real(up_ticks_s(r, rp->stall_ticks)));
    put(par, "stall_lists_damaged", json_integer((json_int_t)rp->stall_lists_damaged));
    put(par, "overhead_end", json_string(p->overhead_end > 0   ? "high"
                                         : p->overhead_end < 0 ? "low"
                                                               : "nominal"));
    for (i = 0; i < r->nlocs; i++) {
        const up_loc_result *l = &r->locs[i];
        json_t *o = up_report_json_loc(locs, l->id, l->rank, l->name);
        if (!o)
            goto nomem;
        put(o, "records", json_integer((json_int_t)l->records));
        put(o, "measured_end_s", json_real(rel_s(r, l->end_m, r->start_m)));
        put(o, "approximated_end_s", json_real(rel_s(r, l->end_a, r->start_a)));
        put(o, "overhead_removed_s", json_real(up_ticks_s(r, rp->removed[i])));
    }
    st = up_report_json_write(root, JSON_INDENT(2) | JSON_REAL_PRECISION(12), path, err);
    json_decref(root);
    return st;
nomem:
    json_decref(root);
    return UP_ERR(err, UP_ENOMEM, "out of memory writing '%s'", up_output_name(path));
}

const char *up_report_rank_text(long rank, char *buf, size_t cap)
{
    if (rank == UP_NO_RANK)
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%ld", rank);
    return buf;
}
