/*
 * simulate_report.c - the summaries and files of `unperturb simulate`
 * (simreport.h): text on a stream, JSON and CSV by jansson and stdio, SVG
 * by plot.c; every file written whole from memory (up_write_file).
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/json.h"
#include "report/names.h"
#include "report/plot.h"
#include "report/simreport.h"
#include "report/summary.h"

/* ---- small helpers ---------------------------------------------------------- */

/* A text written into memory, then to a file. */
typedef struct membuf {
    char *buf;
    size_t len;
    FILE *f;
} membuf;

static FILE *mem_open(membuf *mb)
{
    mb->buf = NULL, mb->len = 0;
    return mb->f = open_memstream(&mb->buf, &mb->len);
}

/* Closes the stream and writes it to dir/name (dir NULL: name). */
static up_status mem_write(membuf *mb, const char *dir, const char *name, bool ok, up_err *err)
{
    char path[PATH_MAX + 64];
    up_status st;
    if (dir)
        snprintf(path, sizeof path, "%s/%s", dir, name);
    else
        snprintf(path, sizeof path, "%s", name);
    if (!mb->f) {
        st = UP_ERR(err, UP_ENOMEM, "out of memory writing '%s'", up_output_name(path));
    } else if (fclose(mb->f) != 0 || !ok) {
        st = UP_ERR(err, UP_EIO, "cannot write '%s'", up_output_name(path));
    } else {
        st = up_write_file(path, mb->buf, mb->len, err);
    }
    mb->f = NULL;
    free(mb->buf);
    mb->buf = NULL;
    return st;
}

/* Text from outside (a path) in CSV: UTF-8 (up_text_form), quoted when it
 * holds a comma, a quote or a line break (RFC 4180) */
static void csv_str(FILE *f, const char *s)
{
    char *t = up_text_dup(s, UP_TEXT_UTF8 | UP_TEXT_WHOLE), *p;
    if (!t) {
        fputs("(out of memory)", f);
        return;
    }
    if (!strpbrk(t, ",\"\n\r")) {
        fputs(t, f);
    } else {
        fputc('"', f);
        for (p = t; *p; p++) {
            if (*p == '"')
                fputc('"', f);
            fputc(*p, f);
        }
        fputc('"', f);
    }
    up_free(t);
}

/* A number for JSON: null unless finite. */
static json_t *jnum(double v) { return up_report_json_real(v); }

/* Text from outside (a path, a --set) for JSON, whole; NULL is null. */
static json_t *jstr(const char *s) { return up_report_json_text(s); }

/* A file's path resolved if it exists, else as given. */
static json_t *jreal(const char *path)
{
    char rp[PATH_MAX];
    return jstr(realpath(path, rp) ? rp : path);
}

static up_status write_json(json_t *root, const char *dir, const char *name, up_err *err)
{
    char path[PATH_MAX + 64];
    if (dir)
        snprintf(path, sizeof path, "%s/%s", dir, name);
    else
        snprintf(path, sizeof path, "%s", name);
    return up_report_json_write(root, JSON_INDENT(2) | JSON_REAL_PRECISION(12), path, err);
}

static up_status write_svg(const char *dir, const char *name, const up_plot *p, up_err *err)
{
    membuf mb;
    FILE *f = mem_open(&mb);
    int rc = f ? up_plot_svg(f, p) : -1;
    return mem_write(&mb, dir, name, rc == 0, err);
}

static void sweep_label(char *buf, size_t cap, const up_sweep *s, double v)
{
    snprintf(buf, cap, "%s = %.12g", s->name, v);
}

/* ---- the machine ----------------------------------------------------------------- */

/* "key=value key=value" for the keys present, in order. */
static void kv_line(FILE *f, const up_machine *m, const char *const *keys)
{
    up_machine_param p;
    bool any = false;
    size_t i;
    for (; *keys; keys++)
        for (i = 0; up_machine_param_at(m, i, &p); i++)
            if (!strcmp(p.key, *keys)) {
                fprintf(f, "%s%s=%s", any ? " " : "", *keys, p.value);
                any = true;
                break;
            }
}

void up_simreport_machine(FILE *f, const up_experiment *ex)
{
    static const char *const proc[] = {"cpu_ratio", "compute", "progress", NULL};
    static const char *const net[] = {"latency_ns", "ns_per_byte", "per_hop_ns", "send_overhead_ns",
                                      "recv_overhead_ns", "eager_limit", NULL};
    static const char *const place[] = {"topology", "ranks_per_node", "placement", "node_latency_ns",
                                        "contention", NULL};
    static const char *const coll[] = {"barrier", "bcast", "allreduce", "alltoall", NULL};
    size_t i;
    fprintf(f, "  machine      ");
    if (ex->file)
        fprintf(f, "from the experiment %s", ex->file);
    else if (ex->machine_file)
        fprintf(f, "%s", ex->machine_file);
    else
        fprintf(f, "the defaults (no --machine)");
    for (i = 0; i < ex->nsets; i++)
        fprintf(f, "%s --set %s", i ? "," : (ex->machine_file ? ", then" : "; then"), ex->sets[i]);
    fprintf(f, "\n  processor    ");
    kv_line(f, &ex->m, proc);
    fprintf(f, "\n  network      ");
    kv_line(f, &ex->m, net);
    fprintf(f, "\n  nodes        ");
    kv_line(f, &ex->m, place);
    fprintf(f, "\n  collectives  ");
    kv_line(f, &ex->m, coll);
    fprintf(f, " (all parameters: --json, experiment.ini)\n");
}

/* {"key": value, ...}: numbers as numbers, yes/no as booleans. */
static json_t *machine_json(const up_machine *m)
{
    json_t *o = json_object();
    up_machine_param p;
    size_t i;
    for (i = 0; o && up_machine_param_at(m, i, &p); i++) {
        json_t *x;
        if (p.kind == UP_MPARAM_BOOL)
            x = p.num != 0 ? json_true() : json_false();
        else if (p.kind == UP_MPARAM_NUM && p.num == floor(p.num) && fabs(p.num) < 1e15)
            x = json_integer((json_int_t)p.num); /* written as a whole number */
        else if (p.kind == UP_MPARAM_NUM)
            x = json_real(p.num);
        else
            x = jstr(p.value);
        json_object_set_new(o, p.key, x);
    }
    return o;
}

static json_t *json_head(const up_experiment *ex)
{
    json_t *o = json_object(), *sets = json_array();
    size_t i;
    char *p;
    json_object_set_new(o, "tool", json_string("unperturb simulate"));
    json_object_set_new(o, "version", jstr(UP_VERSION));
    json_object_set_new(o, "experiment", ex->file ? jstr(ex->file) : json_null());
    json_object_set_new(o, "machine_file", ex->machine_file ? jreal(ex->machine_file) : json_null());
    for (i = 0; i < ex->nsets; i++)
        json_array_append_new(sets, jstr(ex->sets[i]));
    json_object_set_new(o, "set", sets);
    json_object_set_new(o, "calibration", ex->calib ? jreal(ex->calib) : json_null());
    p = ex->out ? up_experiment_abs_path(ex->out) : NULL;
    json_object_set_new(o, "output", p ? jstr(p) : json_null());
    free(p);
    json_object_set_new(o, "machine", machine_json(&ex->m));
    return o;
}

/* {"key", "from", "to", "step", "values"} of a sweep. */
static json_t *sweep_json(const up_sweep *sw)
{
    json_t *s = json_object(), *vals = json_array();
    size_t a;
    json_object_set_new(s, "key", jstr(sw->name));
    json_object_set_new(s, "from", json_real(sw->from));
    json_object_set_new(s, "to", json_real(sw->to));
    json_object_set_new(s, "step", json_real(sw->step));
    for (a = 0; a < sw->n; a++)
        json_array_append_new(vals, json_real(sw->v[a]));
    json_object_set_new(s, "values", vals);
    return s;
}

static const char *compute_text(bool cpu_time)
{
    return cpu_time ? "thread CPU time (the trace's cpu_time metric)"
                    : "wall time between MPI calls, less the tracer's overhead";
}

/* ---- one trace ------------------------------------------------------------------ */

static double rel_s(const up_replay_result *r, uint64_t t, uint64_t start)
{
    return t > start ? up_ticks_s(r, t - start) : 0.0;
}

void up_simreport_single(FILE *f, const up_experiment *ex, const up_sim_summary *s)
{
    const up_replay_result *r = &s->res;
    size_t i, shown = r->nlocs <= 32 ? r->nlocs : 16;
    double ratio = s->measured_s > 0 ? s->predicted_s / s->measured_s : NAN;
    fprintf(f, "unperturb simulate: %s -> %s\n", ex->inputs[0], ex->out ? ex->out : "(no archive: -o DIR)");
    up_simreport_machine(f, ex);
    fprintf(f, "  compute      %s\n", compute_text(s->cpu_time));
    if (s->overhead_known)
        fprintf(f, "  overheads    the tracer's cost per record from %s\n", s->overhead_source);
    else
        fprintf(f, "  overheads    none known (no calibration in the archive, no --calibration): "
                   "wall-time compute keeps the tracer's cost\n");
    fprintf(f, "  run time     measured %.9f s, predicted %.9f s (%+.2f%%)\n", s->measured_s,
            s->predicted_s, 100.0 * (ratio - 1));
    fprintf(f, "  ranks        %ld on %zu locations\n", s->nranks, r->nlocs);
    if (r->wildcard != UP_WILDCARD_PRESERVE)
        fprintf(f, "  wildcard     fifo (the tracer marked them): %llu of %llu receives took another "
                   "message than measured\n", (unsigned long long)r->rematched,
                (unsigned long long)r->wildcard_recvs);
    up_report_repairs_text(f, r);
    fprintf(f, "  %-12s %5s  %-20s %16s %16s\n", "location", "rank", "name", "measured end s",
            "predicted end s");
    for (i = 0; i < shown; i++) {
        const up_loc_result *l = &r->locs[i];
        char rank[24], name[21];
        fprintf(f, "  %-12llu %5s  %-20s %16.9f %16.9f\n", (unsigned long long)l->id,
                up_report_rank_text(l->rank, rank, sizeof rank),
                up_text_escape(name, sizeof name, l->name ? l->name : "", 0), rel_s(r, l->end_m, r->start_m), rel_s(r, l->end_a, r->start_a));
    }
    if (shown < r->nlocs)
        fprintf(f, "  ... %zu more locations (all of them in --json)\n", r->nlocs - shown);
}

up_status up_simreport_single_json(const char *path, const up_experiment *ex, const up_sim_summary *s,
                                   up_err *err)
{
    const up_replay_result *r = &s->res;
    json_t *o = json_head(ex), *locs = json_array(), *rep = json_object();
    up_repair_line rl[UP_REPAIR_LINES_MAX];
    up_status st;
    size_t i, nrl;
    json_object_set_new(o, "input", jreal(ex->inputs[0]));
    json_object_set_new(o, "measured_time_s", jnum(s->measured_s));
    json_object_set_new(o, "predicted_time_s", jnum(s->predicted_s));
    json_object_set_new(o, "ratio", jnum(s->measured_s > 0 ? s->predicted_s / s->measured_s : NAN));
    json_object_set_new(o, "compute_source", jstr(s->cpu_time ? "cpu_time" : "wall_time"));
    json_object_set_new(o, "overhead_source", jstr(s->overhead_source));
    json_object_set_new(o, "ranks", json_integer(s->nranks));
    json_object_set_new(o, "locations", json_integer((json_int_t)r->nlocs));
    json_object_set_new(o, "events", json_integer((json_int_t)r->events));
    json_object_set_new(o, "window_marked", json_boolean(r->window_marked));
    json_object_set_new(o, "wildcard", jstr(up_wildcard_name(r->wildcard)));
    json_object_set_new(o, "wildcard_receives", json_integer((json_int_t)r->wildcard_recvs));
    json_object_set_new(o, "rematched_receives", json_integer((json_int_t)r->rematched));
    for (i = 0, nrl = up_replay_repairs(r, rl); i < nrl; i++)
        json_object_set_new(rep, rl[i].kind->name, json_integer((json_int_t)rl[i].n));
    json_object_set_new(o, "repairs", rep);
    for (i = 0; i < r->nlocs; i++) {
        const up_loc_result *l = &r->locs[i];
        json_t *x = up_report_json_loc(locs, l->id, l->rank, l->name);
        json_object_set_new(x, "records", json_integer((json_int_t)l->records));
        json_object_set_new(x, "measured_end_s", jnum(rel_s(r, l->end_m, r->start_m)));
        json_object_set_new(x, "predicted_end_s", jnum(rel_s(r, l->end_a, r->start_a)));
    }
    json_object_set_new(o, "per_location", locs);
    st = write_json(o, NULL, path, err);
    json_decref(o);
    return st;
}

/* ---- sweeps of one trace ---------------------------------------------------------- */

void up_simreport_sweep(FILE *f, const up_experiment *ex, const up_sweep_result *r)
{
    size_t a, b, k;
    fprintf(f, "unperturb simulate: %s, %zu simulations -> %s\n", ex->inputs[0], r->n0 * r->n1, ex->out);
    up_simreport_machine(f, ex);
    fprintf(f, "  compute      %s\n", compute_text(r->first.cpu_time));
    for (k = 0; k < ex->nsw; k++)
        fprintf(f, "  sweep        %s from %.12g to %.12g step %.12g: %zu values\n", ex->sw[k].key,
                ex->sw[k].from, ex->sw[k].to, ex->sw[k].step, ex->sw[k].n);
    fprintf(f, "  measured     %.9f s (%ld ranks)\n", r->measured_s, r->first.nranks);
    fprintf(f, "  %14s", ex->sw[0].name);
    if (ex->nsw > 1)
        fprintf(f, " %14s", ex->sw[1].name);
    fprintf(f, " %16s %10s\n", "predicted s", "/measured");
    for (a = 0; a < r->n0; a++)
        for (b = 0; b < r->n1; b++) {
            double t = r->pred[a * r->n1 + b];
            fprintf(f, "  %14.12g", ex->sw[0].v[a]);
            if (ex->nsw > 1)
                fprintf(f, " %14.12g", ex->sw[1].v[b]);
            fprintf(f, " %16.9f %10.4f\n", t, r->measured_s > 0 ? t / r->measured_s : NAN);
        }
    fprintf(f, "  written      sweep.csv sweep.json time.svg experiment.ini\n");
}

static json_t *sweep_json_doc(const up_experiment *ex, const up_sweep_result *r)
{
    json_t *js = json_head(ex), *arr = json_array(), *sws = json_array();
    double measured = r->measured_s;
    size_t a, b, k;
    json_object_set_new(js, "input", jreal(ex->inputs[0]));
    json_object_set_new(js, "measured_time_s", jnum(measured));
    json_object_set_new(js, "ranks", json_integer(r->first.nranks));
    json_object_set_new(js, "locations", json_integer((json_int_t)r->first.nlocs));
    json_object_set_new(js, "compute_source", jstr(r->first.cpu_time ? "cpu_time" : "wall_time"));
    for (k = 0; k < ex->nsw; k++)
        json_array_append_new(sws, sweep_json(&ex->sw[k]));
    json_object_set_new(js, "sweeps", sws);
    for (a = 0, k = 0; a < r->n0; a++)
        for (b = 0; b < r->n1; b++, k++) {
            json_t *x = json_object();
            json_object_set_new(x, ex->sw[0].name, json_real(ex->sw[0].v[a]));
            if (ex->nsw > 1)
                json_object_set_new(x, ex->sw[1].name, json_real(ex->sw[1].v[b]));
            json_object_set_new(x, "predicted_time_s", jnum(r->pred[k]));
            json_object_set_new(x, "ratio", jnum(measured > 0 ? r->pred[k] / measured : NAN));
            json_array_append_new(arr, x);
        }
    json_object_set_new(js, "points", arr);
    return js;
}

up_status up_simreport_sweep_json(const char *path, const up_experiment *ex, const up_sweep_result *r,
                                  up_err *err)
{
    json_t *js = sweep_json_doc(ex, r);
    up_status st = write_json(js, NULL, path, err);
    json_decref(js);
    return st;
}

up_status up_simreport_sweep_files(const char *dir, const up_experiment *ex, const up_sweep_result *r,
                                   up_err *err)
{
    size_t n0 = r->n0, n1 = r->n1, a, b, k;
    double *ys = calloc(n0 * n1, sizeof *ys), *meas_line = calloc(n0, sizeof *meas_line);
    double measured = r->measured_s;
    up_series *series = calloc(n1 + 1, sizeof *series);
    char (*names)[64] = calloc(n1 + 1, sizeof *names);
    json_t *js = NULL;
    up_status st;
    membuf mb;
    FILE *f;

    if (!ys || !meas_line || !series || !names || !(f = mem_open(&mb))) {
        st = UP_ERR(err, UP_ENOMEM, "out of memory");
        goto done;
    }
    /* sweep.csv */
    fprintf(f, "%s,", ex->sw[0].name);
    if (ex->nsw > 1)
        fprintf(f, "%s,", ex->sw[1].name);
    fprintf(f, "predicted_time_s,measured_time_s,ratio\n");
    for (a = 0, k = 0; a < n0; a++)
        for (b = 0; b < n1; b++, k++) {
            fprintf(f, "%.12g,", ex->sw[0].v[a]);
            if (ex->nsw > 1)
                fprintf(f, "%.12g,", ex->sw[1].v[b]);
            fprintf(f, "%.9f,%.9f,%.6f\n", r->pred[k], measured, measured > 0 ? r->pred[k] / measured : NAN);
        }
    if ((st = mem_write(&mb, dir, "sweep.csv", !ferror(f), err)) != UP_OK)
        goto done;
    /* sweep.json */
    js = sweep_json_doc(ex, r);
    if ((st = write_json(js, dir, "sweep.json", err)) != UP_OK)
        goto done;
    /* time.svg: x the first key; a series per value of the second */
    for (b = 0; b < n1; b++) {
        for (a = 0; a < n0; a++)
            ys[b * n0 + a] = r->pred[a * n1 + b];
        if (ex->nsw > 1)
            sweep_label(names[b], sizeof names[b], &ex->sw[1], ex->sw[1].v[b]);
        else
            snprintf(names[b], sizeof names[b], "predicted");
        series[b] = (up_series){names[b], ys + b * n0};
    }
    for (a = 0; a < n0; a++)
        meas_line[a] = measured;
    snprintf(names[n1], sizeof names[n1], "measured (traced run)");
    series[n1] = (up_series){names[n1], meas_line};
    {
        up_panel panel = {NULL, n0, ex->sw[0].v, n1 + 1, series};
        up_plot p = {"Predicted execution time", ex->sw[0].name, "time, s", 1, &panel};
        st = write_svg(dir, "time.svg", &p, err);
    }
done:
    json_decref(js);
    free(ys);
    free(meas_line);
    free(series);
    free(names);
    return st;
}

/* ---- scaling: several traces ------------------------------------------------------- */

void up_simreport_scaling(FILE *f, const up_experiment *ex, const up_scaling_result *r)
{
    size_t ni = r->ni, v, i;
    long n0 = r->pt[r->ord[0]].nranks;
    fprintf(f, "unperturb simulate: %zu runs, %zu simulations -> %s\n", ni, r->nv * ni, ex->out);
    up_simreport_machine(f, ex);
    if (ex->nsw)
        fprintf(f, "  sweep        %s from %.12g to %.12g step %.12g: %zu values\n", ex->sw[0].key,
                ex->sw[0].from, ex->sw[0].to, ex->sw[0].step, ex->sw[0].n);
    fprintf(f, "  speedup      T(%ld) / T(n) * %ld, relative to the run with the fewest ranks\n", n0, n0);
    fprintf(f, "  ");
    if (ex->nsw)
        fprintf(f, "%14s ", ex->sw[0].name);
    fprintf(f, "%6s %14s %14s %9s %10s  %s\n", "ranks", "measured s", "predicted s", "speedup",
            "efficiency", "input");
    for (v = 0; v < r->nv; v++)
        for (i = 0; i < ni; i++) {
            fprintf(f, "  ");
            if (ex->nsw)
                fprintf(f, "%14.12g ", ex->sw[0].v[v]);
            fprintf(f, "%6ld %14.9f %14.9f %9.3f %10.3f  %s\n", r->pt[r->ord[i]].nranks, r->meas[i],
                    r->ts[v * ni + i], r->sp[v * ni + i], r->eff[v * ni + i], ex->inputs[r->ord[i]]);
        }
    fprintf(f, "  written      scaling.csv scaling.json time.svg speedup.svg experiment.ini\n");
}

static json_t *scaling_json_doc(const up_experiment *ex, const up_scaling_result *r)
{
    json_t *js = json_head(ex), *ins = json_array(), *arr = json_array();
    size_t ni = r->ni, i, v;
    for (i = 0; i < ni; i++)
        json_array_append_new(ins, jreal(ex->inputs[i]));
    json_object_set_new(js, "inputs", ins);
    json_object_set_new(js, "speedup_base_ranks", json_integer(r->pt[r->ord[0]].nranks));
    json_object_set_new(js, "sweep", ex->nsw ? sweep_json(&ex->sw[0]) : json_null());
    for (v = 0; v < r->nv; v++)
        for (i = 0; i < ni; i++) {
            json_t *o = json_object();
            const up_sim_point *p = &r->pt[v * ni + r->ord[i]];
            if (ex->nsw)
                json_object_set_new(o, ex->sw[0].name, json_real(ex->sw[0].v[v]));
            json_object_set_new(o, "input", jreal(ex->inputs[r->ord[i]]));
            json_object_set_new(o, "ranks", json_integer(p->nranks));
            json_object_set_new(o, "locations", json_integer((json_int_t)p->nlocs));
            json_object_set_new(o, "compute_source", jstr(p->cpu_time ? "cpu_time" : "wall_time"));
            json_object_set_new(o, "measured_time_s", jnum(r->meas[i]));
            json_object_set_new(o, "predicted_time_s", jnum(r->ts[v * ni + i]));
            json_object_set_new(o, "speedup", jnum(r->sp[v * ni + i]));
            json_object_set_new(o, "efficiency", jnum(r->eff[v * ni + i]));
            json_object_set_new(o, "measured_speedup", jnum(r->mspeed[i]));
            json_array_append_new(arr, o);
        }
    json_object_set_new(js, "runs", arr);
    return js;
}

up_status up_simreport_scaling_json(const char *path, const up_experiment *ex, const up_scaling_result *r,
                                    up_err *err)
{
    json_t *js = scaling_json_doc(ex, r);
    up_status st = write_json(js, NULL, path, err);
    json_decref(js);
    return st;
}

up_status up_simreport_scaling_files(const char *dir, const up_experiment *ex, const up_scaling_result *r,
                                     up_err *err)
{
    size_t ni = r->ni, nv = r->nv, v, i;
    up_series *tser = calloc(nv + 1, sizeof *tser), *sser = calloc(nv + 1, sizeof *sser);
    char (*names)[64] = calloc(nv + 2, sizeof *names), rp[PATH_MAX];
    json_t *js = NULL;
    up_status st;
    membuf mb;
    FILE *f;

    if (!tser || !sser || !names || !(f = mem_open(&mb))) {
        st = UP_ERR(err, UP_ENOMEM, "out of memory");
        goto done;
    }
    /* scaling.csv */
    if (ex->nsw)
        fprintf(f, "%s,", ex->sw[0].name);
    fprintf(f, "ranks,input,measured_time_s,predicted_time_s,speedup,efficiency,measured_speedup\n");
    for (v = 0; v < nv; v++)
        for (i = 0; i < ni; i++) {
            const char *in = ex->inputs[r->ord[i]];
            if (ex->nsw)
                fprintf(f, "%.12g,", ex->sw[0].v[v]);
            fprintf(f, "%ld,", r->pt[r->ord[i]].nranks);
            csv_str(f, realpath(in, rp) ? rp : in);
            fprintf(f, ",%.9f,%.9f,%.6f,%.6f,%.6f\n", r->meas[i], r->ts[v * ni + i], r->sp[v * ni + i],
                    r->eff[v * ni + i], r->mspeed[i]);
        }
    if ((st = mem_write(&mb, dir, "scaling.csv", !ferror(f), err)) != UP_OK)
        goto done;
    /* scaling.json */
    js = scaling_json_doc(ex, r);
    if ((st = write_json(js, dir, "scaling.json", err)) != UP_OK)
        goto done;
    /* time.svg and speedup.svg: x the rank counts, a series per sweep value */
    for (v = 0; v < nv; v++) {
        if (ex->nsw)
            sweep_label(names[v], sizeof names[v], &ex->sw[0], ex->sw[0].v[v]);
        else
            snprintf(names[v], sizeof names[v], "predicted");
        tser[v] = (up_series){names[v], r->ts + v * ni};
        sser[v] = (up_series){names[v], r->sp + v * ni};
    }
    snprintf(names[nv], sizeof names[nv], "measured (traced runs)");
    tser[nv] = (up_series){names[nv], r->meas};
    snprintf(names[nv + 1], sizeof names[nv + 1], "ideal");
    sser[nv] = (up_series){names[nv + 1], r->x}; /* ideal: speedup n at n ranks */
    {
        up_panel tp = {NULL, ni, r->x, nv + 1, tser}, spn = {NULL, ni, r->x, nv + 1, sser};
        up_plot p1 = {"Predicted execution time", "MPI ranks", "time, s", 1, &tp};
        up_plot p2 = {"Predicted speedup", "MPI ranks", "speedup", 1, &spn};
        if ((st = write_svg(dir, "time.svg", &p1, err)) == UP_OK)
            st = write_svg(dir, "speedup.svg", &p2, err);
    }
done:
    json_decref(js);
    free(tser);
    free(sser);
    free(names);
    return st;
}
