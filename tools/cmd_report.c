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
#include "report/runs.h"
#include "run/pipeline.h"

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
    char labels[2][64] = {"measured", "compensated"}, cmdline[1024] = "unperturb report";
    bool quiet = false;
    double o_ns = 0;
    long top = 0;
    int opt, rc = 1, i;
    size_t len;
    up_run_rep_opts o;
    up_run_rep r;
    up_report_view v;
    up_err err = {0};

    memset(&r, 0, sizeof r);
    memset(&v, 0, sizeof v);
    up_run_rep_opts_init(&o);
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":o:fqh", opts, NULL)) != -1) {
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
            if ((rc = cmd_opt_num("report", "--overhead-ns", optarg, &UP_RANGE_NS, &o_ns)))
                return rc;
            o.cli.noverhead = 0; /* one O for every kind: the last given */
            up_comp_cli_overhead(&o.cli, o_ns);
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
        case 'h':
            fputs(usage_text, stdout);
            return 0;
        default:
            return cmd_bad_option("report", opt, argv, opts);
        }
    }
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
