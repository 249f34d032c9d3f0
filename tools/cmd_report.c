/*
 * cmd_report.c - `unperturb report`: what happened in a run and, with
 * --against, what the overhead did: the Fig. 2 breakdown of Wolf et al.,
 * Scalasca's wait states, call-path statistics with communication per peer,
 * and report.html with the two timelines of one iteration.
 *
 * Passes over the traces (each streams, bounded memory): the profile of
 * each run (the replay engine with an identity model), the quick estimates
 * of run a when overheads are known, and for report.html the window and
 * the timeline of each run.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "report/report.h"

static const char usage_text[] =
    "usage: unperturb report RUN [--against RUN2] [options]\n"
    "\n"
    "Profiles a trace: run time, time per call path (inclusive, exclusive,\n"
    "visits), MPI time, communication per call path and peer, and Scalasca's\n"
    "wait states (Late Sender, Late Receiver, Wait at N x N, Wait at Barrier,\n"
    "Late Broadcast, Early Reduce).  With --against, profiles both runs and\n"
    "shows where the difference went (Wolf et al., Fig. 2): RUN is usually the\n"
    "measured trace and RUN2 its compensated (or predicted) version.  RUN is an\n"
    "anchor file (traces.otf2) or the experiment folder holding it.\n"
    "\n"
    "      --against RUN2         the run to compare with\n"
    "  -o, --html FILE            write report.html: summary, both timelines of one\n"
    "                             window, wait states, call paths (self-contained)\n"
    "      --json FILE            write everything as JSON (keys in docs/report.md)\n"
    "  -f, --force                replace the -o and --json files if they exist\n"
    "      --window START:END     the timeline window, seconds from the trace start\n"
    "                             (default: one iteration near the middle)\n"
    "      --labels A,B           names of the two runs (default measured,compensated)\n"
    "      --top N                rows of long tables (default 15 in text, 30 in HTML)\n"
    "      --overhead-ns N        per-record overhead for the time-based estimates\n"
    "      --calibration FILE     per-kind overheads for them (default: the\n"
    "                             calibration the unperturb tracer stored)\n"
    "  -q, --quiet                print nothing on success\n"
    "  -h, --help                 this text\n";

static int usage_fail(const char *fmt, const char *arg) { return cmd_usage("report", fmt, arg); }

static const up_range R_WINDOW_S = {0, 1e9, false, "s"}; /* seconds from the trace's start */
static const up_range R_TOP = {1, 100000, true, "rows"};

/* START:END; false with the reason in why. */
static bool parse_window(const char *s, up_timeline_opts *o, char *why, size_t cap)
{
    const char *c = strchr(s, ':');
    char start[64], w[256];
    if (!c || strchr(c + 1, ':') || (size_t)(c - s) >= sizeof start) {
        snprintf(why, cap, "expected START:END in seconds, 0 <= START < END");
        return false;
    }
    snprintf(start, sizeof start, "%.*s", (int)(c - s), s);
    if (!up_num_parse(start, &R_WINDOW_S, &o->start_s, w, sizeof w)) {
        snprintf(why, cap, "START %s%s", strncmp(w, "must", 4) ? "is " : "", w);
        return false;
    }
    if (!up_num_parse(c + 1, &R_WINDOW_S, &o->end_s, w, sizeof w)) {
        snprintf(why, cap, "END %s%s", strncmp(w, "must", 4) ? "is " : "", w);
        return false;
    }
    if (o->end_s <= o->start_s) {
        snprintf(why, cap, "END must be after START");
        return false;
    }
    o->window_set = true;
    return true;
}

/* One run: its trace stays open while the profile's names are in use. */
typedef struct run {
    const char *path;
    up_trace *t;
    up_profile prof;
    up_trace *tl_t;
    up_timeline tl;
    bool has_tl;
} run;

static up_status profile_run(run *r, const char *label, bool quiet, up_err *err)
{
    up_progress pg;
    char what[96];
    up_status st;
    if ((st = up_trace_open(r->path, &r->t, err)) != UP_OK)
        return st;
    snprintf(what, sizeof what, "report: profiling %.40s", label);
    up_progress_init(&pg, what, quiet);
    st = up_profile_run(r->t, up_progress_update, &pg, &r->prof, err);
    up_progress_end(&pg);
    up_trace_release_streams(r->t); /* the profile needs only its names */
    return st;
}

static up_status timeline_run(run *r, const up_timeline_win *w, const up_timeline_opts *o, up_err *err)
{
    up_status st;
    if ((st = up_trace_open(r->path, &r->tl_t, err)) != UP_OK)
        return st;
    if ((st = up_timeline_build(r->tl_t, w, o, &r->tl, err)) == UP_OK)
        r->has_tl = true;
    up_trace_release_streams(r->tl_t);
    return st;
}

static up_status windows(run *a, run *b, const up_timeline_opts *o, up_err *err)
{
    up_timeline_win wa, wb;
    up_trace *t = NULL;
    up_status st;
    if ((st = up_trace_open(a->path, &t, err)) != UP_OK)
        return st;
    st = up_timeline_window(t, o, &wa, err);
    up_trace_close(t);
    if (st != UP_OK || (st = timeline_run(a, &wa, o, err)) != UP_OK || !b->path)
        return st;
    if ((st = up_trace_open(b->path, &t, err)) != UP_OK)
        return st;
    st = up_timeline_map_window(t, &wa, &wb, err);
    up_trace_close(t);
    if (st != UP_OK)
        return st;
    return timeline_run(b, &wb, o, err);
}

/* The estimates need overheads: given, or stored by the tracer. */
static up_status estimates(const char *path, const char *calib, bool have_o, double o_ns,
                           up_estimate *est, bool *done, up_err *err)
{
    up_trace *t = NULL;
    up_comp_params p;
    char source[256];
    up_status st;
    *done = false;
    if ((st = up_trace_open(path, &t, err)) != UP_OK)
        return st;
    if ((st = up_comp_params_load(&p, t, calib, source, sizeof source, err)) == UP_OK) {
        up_comp_cli cli;
        up_comp_cli_init(&cli);
        if (have_o)
            up_comp_cli_overhead(&cli, o_ns);
        up_comp_params_apply_cli(&p, &cli, source, sizeof source);
        if (p.overhead_set && (st = up_estimate_run(t, &p, est, err)) == UP_OK)
            *done = true;
    }
    /* est->locs names point into t's definitions: the report uses only the
     * models' totals, so t can go */
    up_trace_close(t);
    return st;
}

int cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {
        {"against", required_argument, NULL, 'a'},
        {"html", required_argument, NULL, 'o'},
        {"json", required_argument, NULL, 'j'},
        {"window", required_argument, NULL, 'w'},
        {"labels", required_argument, NULL, 'L'},
        {"top", required_argument, NULL, 't'},
        {"overhead-ns", required_argument, NULL, 'O'},
        {"calibration", required_argument, NULL, 'C'},
        {"force", no_argument, NULL, 'f'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *html = NULL, *json = NULL, *calib = NULL;
    char labels[2][64] = {"measured", "compensated"}, cmdline[1024] = "unperturb report";
    bool quiet = false, have_o = false, have_est = false, force = false;
    double o_ns = 0;
    long top = 0;
    int opt, rc = 1, i;
    size_t len;
    up_timeline_opts tlo;
    run a, b;
    up_breakdown bd;
    up_estimate est;
    up_err err = {0};
    up_outset *os = NULL;
    size_t o_json = 0, o_html = 0;

    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    memset(&bd, 0, sizeof bd);
    memset(&est, 0, sizeof est);
    up_timeline_opts_init(&tlo);
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":o:fqh", opts, NULL)) != -1) {
        switch (opt) {
        case 'a':
            b.path = optarg;
            break;
        case 'o':
            html = optarg;
            break;
        case 'j':
            json = optarg;
            break;
        case 'w': {
            char why[300], msg[1024];
            if (!parse_window(optarg, &tlo, why, sizeof why)) {
                snprintf(msg, sizeof msg, "--window %s: %s", up_esc(optarg), why);
                return usage_fail("%s", msg);
            }
            break;
        }
        case 'L': {
            const char *c = strchr(optarg, ',');
            if (!c || c == optarg || !c[1] || (size_t)(c - optarg) >= sizeof labels[0] ||
                strlen(c + 1) >= sizeof labels[1])
                return usage_fail("--labels '%s' is not two short names A,B", up_esc(optarg));
            snprintf(labels[0], sizeof labels[0], "%.*s", (int)(c - optarg), optarg);
            snprintf(labels[1], sizeof labels[1], "%s", c + 1);
            break;
        }
        case 't': {
            double v;
            if ((rc = cmd_opt_num("report", "--top", optarg, &R_TOP, &v)))
                return rc;
            top = (long)v;
            break;
        }
        case 'O':
            if ((rc = cmd_opt_num("report", "--overhead-ns", optarg, &UP_RANGE_NS, &o_ns)))
                return rc;
            have_o = true;
            break;
        case 'C':
            calib = optarg;
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
            return cmd_bad_option("report", opt, argv, opts);
        }
    }
    if (optind != argc - 1)
        return cmd_one_input("report", argc, argv, optind);
    a.path = argv[optind];
    if (tlo.window_set && !html)
        return usage_fail("--window%s applies to the timelines of report.html: add -o FILE", "");
    for (i = 1, len = strlen(cmdline); i < argc && len + 2 < sizeof cmdline; i++) {
        int w = snprintf(cmdline + len, sizeof cmdline - len, " %s", argv[i]);
        len = w > 0 && (size_t)w < sizeof cmdline - len ? len + (size_t)w : sizeof cmdline - 1;
    }

    if (up_outset_new(&os, force, &err) != UP_OK || up_outset_input(os, a.path, true, &err) != UP_OK ||
        up_outset_input(os, b.path, true, &err) != UP_OK || up_outset_input(os, calib, false, &err) != UP_OK ||
        (json && up_outset_add(os, json, UP_OUT_FILE, "--json", &o_json, &err) != UP_OK) ||
        (html && up_outset_add(os, html, UP_OUT_FILE, "-o", &o_html, &err) != UP_OK) ||
        up_outset_begin(os, &err) != UP_OK)
        goto fail;
    if (profile_run(&a, labels[0], quiet, &err) != UP_OK)
        goto fail;
    if (b.path && (profile_run(&b, labels[1], quiet, &err) != UP_OK ||
                   up_breakdown_make(&a.prof, &b.prof, &bd, &err) != UP_OK))
        goto fail;
    if (estimates(a.path, calib, have_o, o_ns, &est, &have_est, &err) != UP_OK)
        goto fail;
    if (html && windows(&a, &b, &tlo, &err) != UP_OK)
        goto fail;
    {
        up_html_input in;
        memset(&in, 0, sizeof in);
        in.path_a = a.path;
        in.path_b = b.path;
        in.label_a = labels[0];
        in.label_b = labels[1];
        in.a = &a.prof;
        in.b = b.path ? &b.prof : NULL;
        in.bd = b.path ? &bd : NULL;
        in.tl_a = a.has_tl ? &a.tl : NULL;
        in.tl_b = b.has_tl ? &b.tl : NULL;
        in.est = have_est ? &est : NULL;
        in.command = cmdline;
        in.top = (size_t)top;
        if (!quiet)
            up_report_profile_text(stdout, &in);
        if (json && up_report_json(up_outset_tmp(os, o_json), &in, &err) != UP_OK)
            goto fail;
        if (!top)
            in.top = 30;
        if (html && up_report_html(up_outset_tmp(os, o_html), &in, &err) != UP_OK)
            goto fail;
        if (up_outset_commit(os, &err) != UP_OK)
            goto fail;
        if (!quiet && (json || html))
            printf("\nwrote%s%s%s%s\n", json ? " " : "", json ? json : "", html ? " " : "",
                   html ? html : "");
    }
    rc = 0;
    goto done;
fail:
    rc = cmd_fail("report", err.status == UP_EUSAGE ? 2 : 1, err.msg);
done:
    up_outset_free(os);
    up_estimate_free(&est);
    up_breakdown_free(&bd);
    up_profile_free(&a.prof);
    up_profile_free(&b.prof);
    if (a.has_tl)
        up_timeline_free(&a.tl);
    if (b.has_tl)
        up_timeline_free(&b.tl);
    up_trace_close(a.t);
    up_trace_close(b.t);
    up_trace_close(a.tl_t);
    up_trace_close(b.tl_t);
    return rc;
}
