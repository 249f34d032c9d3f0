/*
 * validate_report.c - what `unperturb validate` writes from its pipeline's
 * result (src/run/validate.c): the table (stdout and table.txt), the
 * records per region that tell executions apart, validate.json and Fig. 1
 * of [W] as plot.svg.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/json.h"
#include "report/names.h"
#include "report/plot.h"
#include "report/runs.h"

#define TOP_JSON 10 /* differing regions listed per run in the JSON */
#define TOP_TEXT 3  /* and in the line under the table */

/* "MPI_Sendrecv 23386 -> 6358 (-72.8%)" */
static void diff_text(char *buf, size_t cap, const up_count_diff *d)
{
    char rel[32];
    if (d->ref)
        snprintf(rel, sizeof rel, "%+.1f%%", 100 * d->rel);
    else
        snprintf(rel, sizeof rel, "not in the reference");
    snprintf(buf, cap, "%s %llu -> %llu (%s)", up_esc(d->name), (unsigned long long)d->ref,
             (unsigned long long)d->n, rel);
}

/* Under the table: one line per row whose traced runs are not the same
 * execution as the reference, its top regions by relative difference:
 *   np 2, extra 1000 ns: a different execution: MPI_Sendrecv 23386 -> 6358 (-72.8%), ...
 * or one line saying that every run kept within the rule. */
static void print_differences(FILE *f, const up_run_val *v)
{
    unsigned i, nflag = 0;
    char buf[1024];
    for (i = 0; i < v->nrows; i++) {
        int shown;
        nflag += up_run_val_differing(&v->rows[i], v->repeat, &shown) > 0;
    }
    if (!v->compared) {
        fprintf(f, "\nRecords per region: one traced run per rank count, nothing to compare it "
                   "with\n(give --repeat 2 or more, or two --extra-ns values).\n");
        return;
    }
    if (!nflag) {
        fprintf(f, "\nSame execution: every traced run has the records per region of the reference "
                   "run (the first traced\nrun at the smallest extra cost) within %d%% (regions "
                   "with %d records or more, all ranks).\n",
                UP_COUNTS_TOL_PCT, UP_COUNTS_FLOOR);
        return;
    }
    fprintf(f, "\nDifferent executions: Enter records per region (all ranks) differ by more than "
               "%d%% from those of the\nreference run, the first traced run at the smallest extra "
               "cost; regions with fewer than %d records\nin both are not compared.  T of these "
               "rows is another program's time: leave them out.\n",
            UP_COUNTS_TOL_PCT, UP_COUNTS_FLOOR);
    for (i = 0; i < v->nrows; i++) {
        const up_run_val_row *r = &v->rows[i];
        int shown;
        unsigned nd = up_run_val_differing(r, v->repeat, &shown), j;
        const up_count_diff *d;
        size_t n;
        if (!nd)
            continue;
        d = r->diff[shown];
        n = r->ndiff[shown];
        up_run_val_cfg_text(v->mpi, r->np, r->threads, buf, sizeof buf);
        fprintf(f, "%s, extra %u ns: a different execution: ", buf, r->extra);
        for (j = 0; j < n && j < TOP_TEXT; j++) {
            diff_text(buf, sizeof buf, &d[j]);
            fprintf(f, "%s%s", j ? ", " : "", buf);
        }
        if (n > TOP_TEXT)
            fprintf(f, ", and %zu more region%s", n - TOP_TEXT, n - TOP_TEXT > 1 ? "s" : "");
        fprintf(f, "; %u of %u traced runs differ (run %d shown), against extra %u ns run 1\n",
                nd, v->repeat, shown + 1, r->ref_extra);
    }
}

/* The order of the runs is a bias of its own (docs/validate.md): per rank
 * count, the dilation of the traced runs at the smallest extra cost
 * against the uninstrumented run of the same round */
static void print_paired(FILE *f, const up_run_val *v)
{
    unsigned i, e;
    fprintf(f, "\nPaired: (Tm - T)/T of each round's traced run at the smallest extra cost against the\n"
               "same round's uninstrumented run; the kinds ran in a shuffled order per round (seed %llu).\n",
            (unsigned long long)v->seed);
    for (i = 0; i < v->nnp; i++) {
        const up_run_val_row *r = &v->rows[i * v->nx], *best = r;
        double d[3], t[3];
        char cfg[48];
        for (e = 1; e < v->nx; e++)
            if (r[e].extra < best->extra)
                best = &r[e];
        up_run_val_paired(best, v->repeat, d);
        up_run_val_spread(best->T, v->repeat, t);
        up_run_val_cfg_text(v->mpi, best->np, best->threads, cfg, sizeof cfg);
        fprintf(f, "%s, extra %u ns: paired dilation %+.1f%% median (min %+.1f%%, max %+.1f%%) "
                   "over %u rounds; noise %.1f%%\n",
                cfg, best->extra, 100 * d[1], 100 * d[0], 100 * d[2], v->repeat,
                100 * (t[1] - t[0]) / t[0]);
    }
}

/* The first columns of a row: np as ever, and with --threads or without
 * MPI the thread count ("-": not given) and np ("-": no MPI) */
static void put_cfg(FILE *f, const up_run_val *v, const char *np, const char *thr)
{
    fprintf(f, "%4s ", np);
    if (v->threads_given || !v->mpi)
        fprintf(f, "%7s ", thr);
}

void up_report_validate_table(FILE *f, const up_run_val *v)
{
    unsigned i;
    if (!v->mpi)
        fprintf(f, "Without MPI: the window is the tracer's start to its end (the timing shim's, uninstrumented);\n"
                   "the OpenMP runtime of every run: %s.\n",
                v->omp_runs);
    else if (v->threads_given)
        fprintf(f, "The OpenMP runtime of every run: %s.\n", v->omp_runs);
    fprintf(f, "Fastest of %u runs each; times in seconds over the window %s;\n"
               "(median, max) of the runs in brackets.  delta_m = (Tm-T)/T, delta_a = |Ta-T|/T;\n"
               "noise = (median T - T)/T, how far apart the uninstrumented runs themselves are;\n"
               "netw runs: Ta_netw of every traced run, min (median, max);\n"
               "width = (Ta_upper - Ta_lower)/median T; inside: the median T lies in\n"
               "[Ta_lower - s, Ta_upper + s], s = max - min of the uninstrumented runs;\n"
               "(different execution): a traced run's records per region differ from the reference\n"
               "run's by more than %d%% (lines below the table).\n\n",
            v->repeat, v->mpi ? "MPI_Init..MPI_Finalize" : "of the tracer (constructor..destructor)",
            UP_COUNTS_TOL_PCT);
    put_cfg(f, v, "np", "threads");
    fprintf(f, "%8s  %-26s %-26s %9s %9s %9s %-26s %8s %8s %8s %8s %8s %8s  %s\n",
            "extra_ns", "T (median, max)", "Tm (median, max)", "Ta_lower", "Ta_upper", "Ta_netw",
            "netw runs (median, max)", "delta_m", "da_lower", "da_upper", "da_netw", "noise",
            "width", "inside");
    for (i = 0; i < v->nrows; i++) {
        const up_run_val_row *r = &v->rows[i];
        double t[3], m[3], n[3], T;
        char ts[64], ms[64], ns[64], np[16], thr[16];
        int shown;
        bool different = up_run_val_differing(r, v->repeat, &shown) > 0;
        up_run_val_spread(r->T, v->repeat, t);
        up_run_val_spread(r->Tm, v->repeat, m);
        up_run_val_spread(r->Tn, v->repeat, n);
        T = t[0];
        snprintf(ts, sizeof ts, "%.4f (%.4f, %.4f)", t[0], t[1], t[2]);
        snprintf(ms, sizeof ms, "%.4f (%.4f, %.4f)", m[0], m[1], m[2]);
        snprintf(ns, sizeof ns, "%.4f (%.4f, %.4f)", n[0], n[1], n[2]);
        snprintf(np, sizeof np, "%u", r->np);
        snprintf(thr, sizeof thr, "%u", r->threads);
        put_cfg(f, v, v->mpi ? np : "-", r->threads ? thr : "-");
        fprintf(f, "%8u  %-26s %-26s %9.4f %9.4f %9.4f %-26s %7.1f%% %7.1f%% %7.1f%% %7.1f%% %7.1f%% %7.1f%%  %s%s%s\n",
                r->extra, ts, ms, r->Ta[0], r->Ta[1], r->Ta[2], ns, 100 * (m[0] - T) / T,
                100 * fabs(r->Ta[0] - T) / T, 100 * fabs(r->Ta[1] - T) / T,
                100 * fabs(r->Ta[2] - T) / T, 100 * (t[1] - T) / T,
                100 * (r->Ta[1] - r->Ta[0]) / t[1], up_run_val_inside(r, t) ? "yes" : "no",
                up_run_val_oversubscribed(v, r) ? "  (oversubscribed)" : "",
                different ? "  (different execution)" : "");
    }
    print_paired(f, v);
    print_differences(f, v);
}

/* A row's records per region against the reference run: whether it is a
 * different execution, and per differing run its top regions */
static void json_counts(json_t *o, const up_run_val *v, const up_run_val_row *r)
{
    json_t *runs = json_array(), *diffs = json_array();
    unsigned k;
    size_t j;
    int shown;
    for (k = 0; k < v->repeat; k++)
        json_array_append_new(runs, json_integer((json_int_t)r->records[k]));
    for (k = 0; k < v->repeat; k++) {
        json_t *d, *regs;
        if (!r->ndiff[k])
            continue;
        d = json_object(), regs = json_array();
        for (j = 0; j < r->ndiff[k] && j < TOP_JSON; j++) {
            const up_count_diff *x = &r->diff[k][j];
            json_t *name = up_report_json_name(x->name);
            json_array_append_new(
                regs, json_pack("{s:o, s:I, s:I, s:o}", "region", name, "reference_count",
                                (json_int_t)x->ref, "count", (json_int_t)x->n, "relative",
                                x->ref ? json_real(x->rel) : json_null()));
        }
        json_object_set_new(d, "run", json_integer(k + 1));
        json_object_set_new(d, "regions_differing", json_integer((json_int_t)r->ndiff[k]));
        json_object_set_new(d, "regions", regs);
        json_array_append_new(diffs, d);
    }
    json_object_set_new(o, "different_execution", json_boolean(up_run_val_differing(r, v->repeat, &shown) > 0));
    json_object_set_new(o, "count_reference",
                        json_pack("{s:i, s:i}", "extra_ns", r->ref_extra, "run", 1));
    json_object_set_new(o, "runs_enter_records", runs);
    json_object_set_new(o, "count_differences", diffs);
}

/* Per round, where this row's traced run came in its round (0: first) */
static json_t *json_order(const up_run_val *v, const up_run_val_row *r)
{
    json_t *a = json_array();
    unsigned i = (unsigned)(r - v->rows) / v->nx, e = (unsigned)(r - v->rows) % v->nx, k, j;
    for (k = 0; k < v->repeat; k++) {
        for (j = 0; j <= v->nx && v->order[i][k][j] != e + 1; j++)
            ;
        json_array_append_new(a, json_integer(j));
    }
    return a;
}

/* The CPUs configuration i was pinned to, or null: not pinned by validate */
static json_t *json_cpus(const up_run_val *v, unsigned i)
{
    json_t *a;
    int c;
    if (!v->pinned[i])
        return json_null();
    a = json_array();
    for (c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &v->cpus[i]))
            json_array_append_new(a, json_integer(c));
    return a;
}

static json_t *json_table(const up_run_val *v)
{
    json_t *root = json_object(), *arr = json_array(), *prog = json_array(), *l = json_array();
    unsigned i;
    int k;
    for (k = 0; v->prog[k]; k++)
        json_array_append_new(prog, up_report_json_text(v->prog[k]));
    for (k = 0; k < v->nlauncher; k++)
        json_array_append_new(l, up_report_json_text(v->launcher[k]));
    json_object_set_new(root, "program", prog);
    json_object_set_new(root, "launcher", l);
    json_object_set_new(root, "repeat", json_integer(v->repeat));
    json_object_set_new(root, "seed", json_integer((json_int_t)v->seed));
    json_object_set_new(root, "cores", json_integer(v->cores));
    json_object_set_new(root, "functions", json_boolean(v->functions));
    json_object_set_new(root, "mpi", json_boolean(v->mpi));
    json_object_set_new(root, "openmp",
                        json_pack("{s:s, s:s, s:s, s:b, s:o}", "runs_on", v->omp_runs, "route",
                                  v->omp_route, "uninstrumented_ran", v->omp_seen, "events_lost",
                                  v->omp_lost, "message", up_report_json_text(v->omp_msg)));
    json_object_set_new(root, "count_rule",
                        json_pack("{s:s, s:f, s:i}", "reference",
                                  "the first traced run at the smallest extra_ns of its np",
                                  "tolerance", UP_COUNTS_TOL_PCT / 100.0, "floor",
                                  UP_COUNTS_FLOOR));
    for (i = 0; i < v->nrows; i++) {
        const up_run_val_row *r = &v->rows[i];
        json_t *o = json_object(), *runs_t = json_array(), *runs_m = json_array(),
               *runs_n = json_array();
        double t[3], m[3], n[3], d[3];
        unsigned k2;
        up_run_val_spread(r->T, v->repeat, t);
        up_run_val_spread(r->Tm, v->repeat, m);
        up_run_val_spread(r->Tn, v->repeat, n);
        for (k2 = 0; k2 < v->repeat; k2++) {
            json_array_append_new(runs_t, json_real(r->T[k2]));
            json_array_append_new(runs_m, json_real(r->Tm[k2]));
            json_array_append_new(runs_n, json_real(r->Tn[k2]));
        }
        json_object_set_new(o, "np", json_integer(r->np));
        json_object_set_new(o, "extra_ns", json_integer(r->extra));
        json_object_set_new(o, "threads", r->threads ? json_integer(r->threads) : json_null());
        json_object_set_new(o, "pinned_cpus", json_cpus(v, (unsigned)(r - v->rows) / v->nx));
        json_object_set_new(o, "oversubscribed", json_boolean(up_run_val_oversubscribed(v, r)));
        json_object_set_new(o, "T_s", json_real(t[0]));
        json_object_set_new(o, "T_median_s", json_real(t[1]));
        json_object_set_new(o, "T_max_s", json_real(t[2]));
        json_object_set_new(o, "Tm_s", json_real(m[0]));
        json_object_set_new(o, "Tm_median_s", json_real(m[1]));
        json_object_set_new(o, "Tm_max_s", json_real(m[2]));
        json_object_set_new(o, "Ta_lower_s", json_real(r->Ta[0]));
        json_object_set_new(o, "Ta_upper_s", json_real(r->Ta[1]));
        json_object_set_new(o, "Ta_network_s", json_real(r->Ta[2]));
        json_object_set_new(o, "Ta_network_runs_min_s", json_real(n[0]));
        json_object_set_new(o, "Ta_network_runs_median_s", json_real(n[1]));
        json_object_set_new(o, "Ta_network_runs_max_s", json_real(n[2]));
        json_object_set_new(o, "delta_m", json_real((m[0] - t[0]) / t[0]));
        json_object_set_new(o, "delta_a_lower", json_real(fabs(r->Ta[0] - t[0]) / t[0]));
        json_object_set_new(o, "delta_a_upper", json_real(fabs(r->Ta[1] - t[0]) / t[0]));
        json_object_set_new(o, "delta_a_network", json_real(fabs(r->Ta[2] - t[0]) / t[0]));
        json_object_set_new(o, "T_in_bounds", json_boolean(r->Ta[0] <= t[0] && t[0] <= r->Ta[1]));
        json_object_set_new(o, "T_noise", json_real((t[1] - t[0]) / t[0]));
        up_run_val_paired(r, v->repeat, d);
        json_object_set_new(o, "paired_delta_m_median", json_real(d[1]));
        json_object_set_new(o, "paired_delta_m_min", json_real(d[0]));
        json_object_set_new(o, "paired_delta_m_max", json_real(d[2]));
        json_object_set_new(o, "runs_order", json_order(v, r));
        json_object_set_new(o, "T_spread_s", json_real(t[2] - t[0]));
        json_object_set_new(o, "T_inside", json_boolean(up_run_val_inside(r, t)));
        json_object_set_new(o, "bounds_width", json_real((r->Ta[1] - r->Ta[0]) / t[1]));
        json_object_set_new(o, "runs_T_s", runs_t);
        json_object_set_new(o, "runs_Tm_s", runs_m);
        json_object_set_new(o, "runs_Ta_network_s", runs_n);
        json_object_set_new(o, "folder", up_report_json_text(r->name));
        json_counts(o, v, r);
        json_array_append_new(arr, o);
    }
    json_object_set_new(root, "rows", arr);
    return root;
}

/* Fig. 1 of [W]: time against rank count (without MPI the thread count, with
 * both ranks x threads), one panel per extra cost */
static int write_plot(const char *path, const up_run_val *v)
{
    static const char *const names[5] = {"uninstrumented T", "measured Tm", "lower Ta",
                                          "upper Ta", "network Ta"};
    double x[UP_VAL_MAXV], y[UP_VAL_MAXV][5][UP_VAL_MAXV];
    up_series series[UP_VAL_MAXV][5];
    up_panel panels[UP_VAL_MAXV];
    char titles[UP_VAL_MAXV][64];
    up_plot p;
    FILE *f;
    unsigned e, i, s;
    for (i = 0; i < v->nnp; i++)
        x[i] = v->np[i] * (v->thr[i] ? v->thr[i] : 1);
    for (e = 0; e < v->nx; e++) {
        for (i = 0; i < v->nnp; i++) { /* rows are configuration-major */
            const up_run_val_row *r = &v->rows[i * v->nx + e];
            double t[3], m[3];
            up_run_val_spread(r->T, v->repeat, t);
            up_run_val_spread(r->Tm, v->repeat, m);
            y[e][0][i] = t[0], y[e][1][i] = m[0];
            y[e][2][i] = r->Ta[0], y[e][3][i] = r->Ta[1], y[e][4][i] = r->Ta[2];
        }
        for (s = 0; s < 5; s++)
            series[e][s] = (up_series){names[s], y[e][s]};
        snprintf(titles[e], sizeof titles[e], "extra cost %u ns per record", v->extra[e]);
        panels[e] = (up_panel){titles[e], v->nnp, x, 5, series[e]};
    }
    p = (up_plot){"Measured and approximated run time (fastest of each)",
                  !v->mpi ? "threads" : v->threads_given ? "MPI ranks x threads" : "MPI ranks",
                  "time, s", v->nx, panels};
    if (!(f = fopen(path, "w")))
        return -1;
    if (up_plot_svg(f, &p) != 0) {
        fclose(f);
        return -1;
    }
    return fclose(f);
}

up_status up_report_validate_files(const up_run_val *v, up_err *err)
{
    char path[PATH_MAX + 64];
    json_t *js;
    FILE *tf;
    up_status st;
    snprintf(path, sizeof path, "%s/table.txt", v->dir);
    if ((tf = fopen(path, "w"))) {
        up_report_validate_table(tf, v);
        fclose(tf);
    }
    js = json_table(v);
    snprintf(path, sizeof path, "%s/validate.json", v->dir);
    if ((st = up_report_json_write(js, JSON_INDENT(2), path, err)) == UP_OK && v->o_json)
        st = up_report_json_write(js, JSON_INDENT(2), up_outset_tmp(v->outs, v->o_json), err);
    if (st == UP_OK) {
        snprintf(path, sizeof path, "%s/plot.svg", v->dir);
        if (write_plot(path, v) != 0)
            st = UP_ERR(err, UP_EIO, "cannot write plot.svg");
    }
    json_decref(js);
    return st;
}
