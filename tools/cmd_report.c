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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "report/runs.h"
#include "run/pipeline.h"

static const char usage_head[] =
    "usage: unperturb report RUN [--against RUN2] [options]\n"
    "\n"
    "Profiles a trace: run time, time per call path (inclusive, exclusive,\n"
    "visits), MPI time, communication per call path and peer, and Scalasca's\n"
    "wait states (Late Sender, Late Receiver, Wait at N x N, Wait at Barrier,\n"
    "Late Broadcast, Early Reduce).  With --against, profiles both runs and\n"
    "shows where the difference went (Wolf et al., Fig. 2): RUN is usually the\n"
    "measured trace and RUN2 its compensated (or predicted) version.  RUN is an\n"
    "anchor file (traces.otf2) or the experiment folder holding it.\n"
    "\n";

static const cmd_opt opts[] = {
    {"against", 0, "RUN2", 'a', "the run to compare with"},
    {"html", 'o', "FILE", 'o', "write report.html: summary, both timelines of one\n"
                               "window, wait states, call paths (self-contained)"},
    CMD_OPT_JSON("write everything as JSON (keys in docs/report.md)"),
    CMD_OPT_FORCE("replace the -o and --json files if they exist"),
    {"window", 0, "START:END", 'w', "the timeline window, seconds from the trace start\n"
                                    "(default: one iteration near the middle)"},
    {"labels", 0, "A,B", 'L', "names of the two runs (default measured,compensated)"},
    {"top", 0, "N", 't', "rows of long tables (default 15 in text, 30 in HTML)"},
    CMD_OPT_OVERHEAD_NS("N", "per-record overhead for the time-based estimates"),
    CMD_OPT_CALIBRATION("per-kind overheads for them (default: the\n"
                        "calibration the unperturb tracer stored)"),
    CMD_OPT_QUIET(CMD_QUIET_HELP),
    CMD_OPT_HELP,
    CMD_OPT_END,
};

static const cmd_spec spec = {
    "report", usage_head, NULL, 29, false, opts,
};

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

int cmd_report(int argc, char **argv)
{
    char labels[2][64] = {"measured", "compensated"}, cmdline[1024] = "unperturb report";
    bool quiet = false;
    long top = 0;
    int opt, rc = 1, i;
    size_t len;
    up_run_rep_opts o;
    up_run_rep r;
    up_report_view v;
    up_err err = {0};
    cmd_opts p;

    memset(&r, 0, sizeof r);
    memset(&v, 0, sizeof v);
    up_run_rep_opts_init(&o);
    cmd_opts_begin(&p, &spec, argc, argv);
    while ((opt = cmd_opts_next(&p)) > 0) {
        switch (opt) {
        case 'a':
            o.path_b = optarg;
            break;
        case 'o':
            o.html = optarg;
            break;
        case 'j':
            o.json = optarg;
            break;
        case 'w': {
            char why[300], msg[1024];
            if (!parse_window(optarg, &o.window, why, sizeof why)) {
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
            double n;
            if ((rc = cmd_opt_num("report", "--top", optarg, &R_TOP, &n)))
                return rc;
            top = (long)n;
            break;
        }
        case 'O':
            if ((rc = cmd_opt_overhead("report", optarg, false, &o.cli)))
                return rc;
            break;
        case 'C':
            o.calibration = optarg;
            break;
        case 'f':
            o.force = true;
            break;
        case 'q':
            quiet = true;
            break;
        }
    }
    if (opt < 0)
        return p.status;
    if (optind != argc - 1)
        return cmd_one_input("report", argc, argv, optind);
    o.path_a = argv[optind];
    if (o.window.window_set && !o.html)
        return usage_fail("--window%s applies to the timelines of report.html: add -o FILE", "");
    for (i = 1, len = strlen(cmdline); i < argc && len + 2 < sizeof cmdline; i++) {
        int w = snprintf(cmdline + len, sizeof cmdline - len, " %s", argv[i]);
        len = w > 0 && (size_t)w < sizeof cmdline - len ? len + (size_t)w : sizeof cmdline - 1;
    }

    o.label_a = labels[0];
    o.label_b = labels[1];
    o.quiet = quiet;
    v.text = quiet ? NULL : stdout;
    v.command = cmdline;
    v.top = (size_t)top;

    if (up_run_report(&o, &r, &err) != UP_OK)
        goto fail;
    if (v.text && up_outset_stdout(r.outs))
        v.text = stderr; /* an output is standard output */
    if (up_report_report_outputs(&r, &o, &v, &err) != UP_OK || up_outset_commit(r.outs, &err) != UP_OK)
        goto fail;
    if (v.text && (o.json || o.html))
        fprintf(v.text, "\nwrote%s%s%s%s\n", o.json ? " " : "", o.json ? o.json : "", o.html ? " " : "",
                o.html ? o.html : "");
    rc = 0;
    goto done;
fail:
    rc = cmd_fail("report", err.status == UP_EUSAGE ? 2 : 1, err.msg);
done:
    up_run_rep_free(&r);
    return rc;
}
