/*
 * fuzz_analysis.c - fuzz target "analysis": the passes over a trace other
 * than compensation, on an archive built from the input as in "otf2".
 *
 * Place in the data flow: after the reader.  The options byte of the input
 * (fuzz.h) picks one pass: the estimates of `unperturb estimate` (and
 * their JSON), the profile of `report` (with its text, JSON and a
 * breakdown against itself), the timeline window and drawing, a simulation
 * on one of several machines (the second options byte picks the
 * collective algorithms), the Chrome trace-event export, or report.html.
 * Outputs go to the work folder or /dev/null.
 */
#include "fuzz.h"

#include <stdio.h>
#include <string.h>

#include "analysis/estimate.h"
#include "report/perfetto.h"
#include "model/machine.h"
#include "model/compensate.h"
#include "run/pipeline.h"
#include "analysis/profile.h"
#include "report/profile_report.h"
#include "report/runs.h"
#include "model/simulate.h"
#include "report/timeline.h"

static FILE *devnull(void)
{
    static FILE *f;
    if (!f)
        f = fopen("/dev/null", "w");
    FZ_CHECK(f != NULL, "cannot open /dev/null");
    return f;
}

static void expect_msg(up_status st, const up_err *err)
{
    FZ_CHECK(st == UP_OK || err->msg[0], "status %d without a message", (int)st);
    FZ_CHECK(st != UP_EINTERNAL, "an internal error: %s", err->msg);
}

static void params(up_trace *t, up_comp_params *p)
{
    char source[256];
    up_err err = {0};
    if (up_run_params(t, NULL, NULL, p, source, &err) != UP_OK)
        up_comp_params_init(p);
    if (!p->overhead_set)
        up_comp_params_set_overhead(p, 100);
}

static void run_estimate(const char *anchor)
{
    up_trace *t = NULL;
    up_comp_params p;
    up_estimate est;
    up_err err = {0};
    up_status st;
    if ((st = up_trace_open(anchor, &t, &err)) == UP_OK) {
        params(t, &p);
        if ((st = up_estimate_run(t, &p, &est, &err)) == UP_OK) {
            up_estimate_report r = {anchor, "fuzz", &p, &est, NULL};
            char path[400];
            unsigned mdl;
            for (mdl = 0; mdl < 4; mdl++)
                (void)up_estimate_error(&r, mdl);
            snprintf(path, sizeof path, "%s/estimate.json", fz_workdir());
            st = up_report_estimate_json(&r, path, &err);
            remove(path);
            up_estimate_free(&est);
        }
    }
    expect_msg(st, &err);
    up_trace_close(t);
}

static void run_profile(const char *anchor, bool html, unsigned opt)
{
    up_trace *t = NULL, *tl_t = NULL;
    up_profile prof;
    up_breakdown bd;
    up_timeline tl;
    up_timeline_opts o;
    up_timeline_win w;
    bool have_prof = false, have_bd = false, have_tl = false;
    up_err err = {0};
    up_status st;
    if ((st = up_trace_open(anchor, &t, &err)) == UP_OK &&
        (st = up_profile_run(t, NULL, &prof, &err)) == UP_OK) {
        have_prof = true;
        up_trace_release_streams(t);
        if ((st = up_breakdown_make(&prof, &prof, &bd, &err)) == UP_OK)
            have_bd = true;
    }
    expect_msg(st, &err);
    if (have_prof && html) {
        up_timeline_opts_init(&o);
        o.width_px = 50 + (opt & 0x3f) * 7;
        o.max_rows = 1 + (opt >> 6);
        up_trace_close(tl_t);
        tl_t = NULL;
        if ((st = up_trace_open(anchor, &tl_t, &err)) == UP_OK) {
            st = up_timeline_window(tl_t, &o, &w, &err);
            up_trace_close(tl_t);
            tl_t = NULL;
        }
        if (st == UP_OK && (st = up_trace_open(anchor, &tl_t, &err)) == UP_OK &&
            (st = up_timeline_build(tl_t, &w, &o, &tl, &err)) == UP_OK)
            have_tl = true;
        expect_msg(st, &err);
    }
    if (have_prof) {
        up_html_input in = {.path_a = anchor, .path_b = anchor, .label_a = "measured",
                            .label_b = "again", .a = &prof, .b = &prof,
                            .bd = have_bd ? &bd : NULL, .tl_a = have_tl ? &tl : NULL,
                            .tl_b = have_tl ? &tl : NULL, .command = "fuzz", .top = 30};
        char path[400];
        up_report_profile_text(devnull(), &in);
        snprintf(path, sizeof path, "%s/report.json", fz_workdir());
        st = up_report_json(path, &in, &err);
        expect_msg(st, &err);
        remove(path);
        if (html) {
            snprintf(path, sizeof path, "%s/report.html", fz_workdir());
            st = up_report_html(path, &in, &err);
            expect_msg(st, &err);
            remove(path);
        }
    }
    if (have_tl)
        up_timeline_free(&tl);
    if (have_bd)
        up_breakdown_free(&bd);
    if (have_prof)
        up_profile_free(&prof);
    up_trace_close(tl_t);
    up_trace_close(t);
}

static void run_timeline(const char *anchor, unsigned opt)
{
    up_trace *t = NULL;
    up_timeline_opts o;
    up_timeline_win w;
    up_timeline tl;
    up_err err = {0};
    up_status st;
    up_timeline_opts_init(&o);
    if (opt & 1) { /* --window START:END */
        o.window_set = true;
        o.start_s = (opt >> 1 & 3) * 1e-7;
        o.end_s = o.start_s + (opt >> 3 & 7) * 1e-6 + 1e-9;
    }
    if (opt & 0x40)
        o.max_rows = 1;
    if ((st = up_trace_open(anchor, &t, &err)) == UP_OK) {
        st = up_timeline_window(t, &o, &w, &err);
        up_trace_close(t);
        t = NULL;
    }
    if (st == UP_OK && (st = up_trace_open(anchor, &t, &err)) == UP_OK) {
        up_timeline_win w2;
        st = up_timeline_map_window(t, &w, &w2, &err);
        up_trace_close(t);
        t = NULL;
    }
    if (st == UP_OK && (st = up_trace_open(anchor, &t, &err)) == UP_OK &&
        (st = up_timeline_build(t, &w, &o, &tl, &err)) == UP_OK) {
        up_timeline_svg(devnull(), &tl, "fuzz", w.t1 - w.t0);
        up_timeline_free(&tl);
    }
    expect_msg(st, &err);
    up_trace_close(t);
}

/* The collective algorithms of the bits of opt2 (docs/collectives.md). */
static void set_algorithms(up_machine *m, unsigned opt2)
{
    static const char *const two[][3] = {{"bcast", "linear", "binomial"},
                                         {"scatter", "linear", "binomial"},
                                         {"gather", "linear", "binomial"},
                                         {"reduce", "linear", "binomial"},
                                         {"alltoall", "pairwise", "linear"},
                                         {"scan", "linear", "recursive_doubling"}};
    static const char *const three[] = {"ring", "recursive_doubling", "linear"};
    char set[96];
    up_err err = {0};
    unsigned k;
    for (k = 0; k < 6; k++) {
        snprintf(set, sizeof set, "%s=%s", two[k][0], two[k][1 + (opt2 >> k & 1)]);
        FZ_CHECK(up_machine_set(m, set, &err) == UP_OK, "%s", err.msg);
    }
    snprintf(set, sizeof set, "allgather=%s", three[(opt2 >> 6) % 3]);
    FZ_CHECK(up_machine_set(m, set, &err) == UP_OK, "%s", err.msg);
    snprintf(set, sizeof set, "reduce_scatter=%s", three[(opt2 >> 6) / 3 % 3]);
    FZ_CHECK(up_machine_set(m, set, &err) == UP_OK, "%s", err.msg);
    if (opt2 & 0x80)
        FZ_CHECK(up_machine_set(m, "barrier_by_msgs=no", &err) == UP_OK, "%s", err.msg);
}

static void run_simulate(const char *anchor, unsigned opt, unsigned opt2)
{
    static const char *const topo[] = {"full", "ring", "torus2d", "torus3d", "hypercube", "fattree"};
    static const char *const prog[] = {"mpi", "interrupt", "polling"};
    static const char *const bar[] = {"linear", "tree", "dissemination"};
    static const char *const algo[] = {"linear", "binomial", "recursive_doubling", "ring", "pairwise"};
    up_machine m;
    up_trace *t = NULL;
    up_sim *S = NULL;
    up_comp_params p;
    up_replay_result res;
    up_err err = {0};
    up_status st;
    char set[96];
    up_machine_init(&m);
    snprintf(set, sizeof set, "topology=%s", topo[opt % 6]);
    FZ_CHECK(up_machine_set(&m, set, &err) == UP_OK, "%s", err.msg);
    snprintf(set, sizeof set, "progress=%s", prog[(opt / 6) % 3]);
    FZ_CHECK(up_machine_set(&m, set, &err) == UP_OK, "%s", err.msg);
    snprintf(set, sizeof set, "barrier=%s", bar[(opt / 18) % 3]);
    FZ_CHECK(up_machine_set(&m, set, &err) == UP_OK, "%s", err.msg);
    snprintf(set, sizeof set, "allreduce=%s", algo[(opt / 54) % 5]);
    if (up_machine_set(&m, set, &err) != UP_OK) /* not every algorithm fits every collective */
        err.msg[0] = 0;
    snprintf(set, sizeof set, "ranks_per_node=%u", 1 + (opt & 3));
    FZ_CHECK(up_machine_set(&m, set, &err) == UP_OK, "%s", err.msg);
    if (opt & 4)
        FZ_CHECK(up_machine_set(&m, "contention=yes", &err) == UP_OK, "%s", err.msg);
    set_algorithms(&m, opt2);
    if ((st = up_trace_open(anchor, &t, &err)) == UP_OK) {
        params(t, &p);
        if ((st = up_sim_new(&m, &p, up_trace_defs(t), &S, &err)) == UP_OK) {
            if ((st = up_replay_run(t, NULL, up_sim_ops(), S, NULL, &res, &err)) == UP_OK)
                up_replay_result_free(&res);
            up_sim_free(S);
        }
    }
    expect_msg(st, &err);
    up_trace_close(t);
}

static void run_export(const char *anchor, unsigned opt)
{
    up_trace *t = NULL;
    up_export_opts o;
    up_export_stats stats;
    up_id_range r = {0, 1};
    up_err err = {0};
    up_status st;
    char path[400];
    memset(&o, 0, sizeof o);
    if (opt & 1) {
        o.window = true;
        o.start_s = (opt >> 1 & 3) * 1e-7;
        o.end_s = o.start_s + (opt >> 3 & 7) * 1e-6;
    }
    if (opt & 0x40) {
        o.locs = &r;
        o.nlocs = 1;
    }
    snprintf(path, sizeof path, "%s/export.json", fz_workdir());
    if ((st = up_trace_open(anchor, &t, &err)) == UP_OK)
        st = up_export_perfetto(t, path, &o, &stats, &err);
    expect_msg(st, &err);
    up_trace_close(t);
    remove(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_member m[FZ_MAX_MEMBERS];
    size_t n = fz_parse(data, size, m, FZ_MAX_MEMBERS);
    const char *anchor = fz_archive_write(m, n);
    unsigned opt = fz_options(m, n);

    switch (opt % 6) {
    case 0: run_estimate(anchor); break;
    case 1: run_profile(anchor, false, opt / 6); break;
    case 2: run_timeline(anchor, opt / 6); break;
    case 3: run_simulate(anchor, opt / 6, fz_options2(m, n)); break;
    case 4: run_export(anchor, opt / 6); break;
    default: run_profile(anchor, true, opt / 6); break;
    }
    fz_archive_clear();
    return 0;
}
