/*
 * cmd_estimate.c - `unperturb estimate`: the quick time-based models of
 * Malony and Reed (Section 3) from one pass over the trace, no replay; with
 * --compare also the replay (compensate --mode lower, no output) and each
 * model's error against it.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "analysis/estimate.h"

static const char usage_text[] =
    "usage: unperturb estimate TRACE [options]\n"
    "\n"
    "Estimates the run time without the tracer's overhead with the time-based\n"
    "models of Malony and Reed (Section 3): sequential and concurrent total\n"
    "time, sequential (eq. 2) and concurrent event time.  One pass over the\n"
    "trace, no replay: the models assume independent locations and ignore\n"
    "waiting, which `unperturb compensate` models.  TRACE is an anchor file\n"
    "(traces.otf2) or the experiment folder holding it.\n"
    "\n"
    "      --overhead-ns N        overhead per trace record in ns (the paper's alpha)\n"
    "      --calibration FILE     per-kind overheads from a calibration file\n"
    "      --compare              also run the replay (compensate --mode lower, no\n"
    "                             output) and give each model's error against it\n"
    "      --per-location         also print the table per location\n"
    "      --json FILE            also write the estimates as JSON\n"
    "  -f, --force                replace the --json file if it exists\n"
    "  -q, --quiet                print nothing on success\n"
    "  -h, --help                 this text\n"
    "\n"
    "Overheads: the calibration stored in the archive by the unperturb tracer,\n"
    "then --calibration, then --overhead-ns.\n";

static const char *rank_text(long rank, char *buf, size_t cap)
{
    if (rank == UP_NO_RANK)
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%ld", rank);
    return buf;
}

static void print_text(FILE *f, const up_estimate_report *r, bool per_loc)
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
        char rep[32] = "";
        if (r->replay && i < r->replay->nlocs) {
            const up_replay_result *x = r->replay;
            snprintf(rep, sizeof rep, " %14.9f",
                     x->locs[i].end_a > x->start_a
                         ? (double)(x->locs[i].end_a - x->start_a) / (double)x->resolution : 0.0);
        }
        fprintf(f, "  %-12llu %5s  %-20.20s %14.9f %10llu %14.9f %14.9f %14.9f%s%s\n",
                (unsigned long long)l->id, rank_text(l->rank, rk, sizeof rk), l->name,
                l->measured_s, (unsigned long long)l->records, l->dp_s, l->seq_event_end_s,
                l->conc_event_end_s, rep, l->counts_for_end ? "" : "  (does not end the window)");
    }
    if (shown < e->nlocs)
        fprintf(f, "  ... %zu more locations (all of them in --json)\n", e->nlocs - shown);
}

/* The replay of `unperturb compensate --mode lower`, without output. */
static up_status run_replay(const char *input, const up_comp_params *p, up_replay_result *res,
                            up_err *err)
{
    up_trace *t = NULL;
    up_comp *m = NULL;
    up_comp_params q = *p;
    up_status st;
    q.mode = UP_MODE_LOWER;
    if ((st = up_trace_open(input, &t, err)) == UP_OK &&
        (st = up_comp_new(&q, t, &m, err)) == UP_OK)
        st = up_replay_run(t, NULL, up_comp_ops(), m, res, err);
    up_comp_free(m);
    up_trace_close(t);
    return st;
}

int cmd_estimate(int argc, char **argv)
{
    static const struct option opts[] = {
        {"overhead-ns", required_argument, NULL, 'O'},
        {"calibration", required_argument, NULL, 'C'},
        {"compare", no_argument, NULL, 'c'},
        {"per-location", no_argument, NULL, 'l'},
        {"json", required_argument, NULL, 'j'},
        {"force", no_argument, NULL, 'f'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *calib = NULL, *json = NULL, *input;
    bool compare = false, per_loc = false, quiet = false, have_o = false, force = false;
    double o_ns = 0;
    up_comp_cli cli;
    char source[256] = "";
    int opt, rc = 1;
    up_err err = {0};
    up_trace *t = NULL;
    up_comp_params p;
    up_estimate est;
    up_replay_result res;
    up_outset *os = NULL;

    memset(&est, 0, sizeof est);
    memset(&res, 0, sizeof res);
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":fqh", opts, NULL)) != -1) {
        switch (opt) {
        case 'O':
            if ((rc = cmd_opt_num("estimate", "--overhead-ns", optarg, &UP_RANGE_NS, &o_ns)))
                return rc;
            have_o = true;
            break;
        case 'C':
            calib = optarg;
            break;
        case 'c':
            compare = true;
            break;
        case 'l':
            per_loc = true;
            break;
        case 'j':
            json = optarg;
            break;
        case 'f':
            force = true;
            break;
        case 'q':
            quiet = true;
            break;
        case 'h':
            fputs(usage_text, stdout);
            return 0;
        default:
            return cmd_bad_option("estimate", opt, argv, opts);
        }
    }
    if (optind != argc - 1)
        return cmd_one_input("estimate", argc, argv, optind);
    input = argv[optind];

    if (up_outset_new(&os, force, &err) != UP_OK || up_outset_input(os, input, true, &err) != UP_OK ||
        up_outset_input(os, calib, false, &err) != UP_OK ||
        (json && up_outset_add(os, json, UP_OUT_FILE, "--json", NULL, &err) != UP_OK) ||
        up_outset_begin(os, &err) != UP_OK)
        goto fail;
    if (up_trace_open(input, &t, &err) != UP_OK)
        goto fail;

    /* parameters: archive < --calibration < --overhead-ns (as compensate) */
    if (up_comp_params_load(&p, t, calib, source, sizeof source, &err) != UP_OK)
        goto fail;
    up_comp_cli_init(&cli);
    if (have_o)
        up_comp_cli_overhead(&cli, o_ns);
    up_comp_params_apply_cli(&p, &cli, source, sizeof source);
    if (!p.overhead_set) {
        snprintf(source, sizeof source, "none given: O = 0");
        fprintf(stderr, "unperturb estimate: warning: no per-record overhead given (--overhead-ns, "
                        "--calibration or a calibration stored by the unperturb tracer); "
                        "estimating with O = 0\n");
    }

    /* the replay reads its own copy of the trace (and closes it: the names
     * in res.locs are not used); `t` stays open, est.locs names point into
     * its definitions */
    if (compare && run_replay(input, &p, &res, &err) != UP_OK)
        goto fail;
    if (up_estimate_run(t, &p, &est, &err) != UP_OK)
        goto fail;
    {
        up_estimate_report r = {input, source, &p, &est, compare ? &res : NULL};
        if (!quiet)
            print_text(stdout, &r, per_loc);
        if (json && up_estimate_json(&r, up_outset_tmp(os, 0), &err) != UP_OK)
            goto fail;
        if (up_outset_commit(os, &err) != UP_OK)
            goto fail;
    }
    rc = 0;
    goto done;
fail:
    rc = cmd_fail("estimate", err.status == UP_EUSAGE ? 2 : 1, err.msg);
done:
    up_outset_free(os);
    up_estimate_free(&est);
    up_replay_result_free(&res);
    up_trace_close(t);
    return rc;
}
