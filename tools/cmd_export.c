/*
 * cmd_export.c - `unperturb export`: an OTF2 trace (measured or compensated,
 * Score-P or unperturb) as Chrome trace-event JSON for ui.perfetto.dev and
 * chrome://tracing: the output set and the input are the run layer's
 * (run/pipeline.h: up_run_export), the JSON src/report/perfetto.c's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "report/perfetto.h"
#include "run/pipeline.h"

#define MAX_RANGES 256

static const char usage_head[] =
    "usage: unperturb export TRACE --perfetto OUT.json [options]\n"
    "\n"
    "Writes an OTF2 trace as Chrome trace-event JSON: open OUT.json in\n"
    "https://ui.perfetto.dev (Open trace file) or chrome://tracing.  TRACE is an\n"
    "anchor file (traces.otf2) or the experiment folder holding it.  One process\n"
    "per MPI rank, one thread per location, a slice per region visit, an arrow\n"
    "per MPI message; ts in microseconds from the trace's start.\n"
    "\n";

static const cmd_opt opts[] = {
    {"perfetto", 0, "FILE", 'p', "the JSON file to write (required)"},
    {"window", 0, "START:END", 'w', "only the records from START to END seconds after\n"
                                    "the trace's start (either may be left out:\n"
                                    "'0.5:' is from 0.5 s to the end); regions open at\n"
                                    "an edge are cut there"},
    {"locations", 0, "LIST", 'l', "only these OTF2 location ids: comma-separated ids\n"
                                  "and ranges, e.g. 0,2,4-7 (messages to or from other\n"
                                  "locations keep only their own end)"},
    CMD_OPT_FORCE("replace FILE if it exists (never a file of TRACE)"),
    CMD_OPT_QUIET(CMD_QUIET_HELP),
    CMD_OPT_HELP,
    CMD_OPT_END,
};

static const cmd_spec spec = {
    "export", usage_head,
    "\n"
    "docs/cli.md lists what maps to what.\n",
    28, false, opts,
};

static int usage_fail(const char *fmt, const char *arg) { return cmd_usage("export", fmt, arg); }

static const up_range R_WINDOW_S = {0, 1e9, false, "s"}; /* seconds from the trace's start */

/* START:END, either side may be empty; false with the reason in why. */
static bool parse_window(const char *s, double *a, double *b, char *why, size_t cap)
{
    const char *c = strchr(s, ':');
    char start[64], w[256];
    if (!c || strchr(c + 1, ':') || (size_t)(c - s) >= sizeof start) {
        snprintf(why, cap, "expected START:END in seconds (either may be left out)");
        return false;
    }
    *a = 0;
    *b = HUGE_VAL;
    snprintf(start, sizeof start, "%.*s", (int)(c - s), s);
    if (*start && !up_num_parse(start, &R_WINDOW_S, a, w, sizeof w)) {
        snprintf(why, cap, "START %s%s", strncmp(w, "must", 4) ? "is " : "", w);
        return false;
    }
    if (c[1] && !up_num_parse(c + 1, &R_WINDOW_S, b, w, sizeof w)) {
        snprintf(why, cap, "END %s%s", strncmp(w, "must", 4) ? "is " : "", w);
        return false;
    }
    if (*b < *a) {
        snprintf(why, cap, "END is before START");
        return false;
    }
    return true;
}

/* A location id at s, up to the next '-' or ',' (*end): up_uint_parse's
 * decimal digits, 0 to 2^64 - 1. */
static bool parse_u64(const char *s, const char **end, uint64_t *v)
{
    char tok[32], why[128];
    size_t n = strcspn(s, "-,");
    *end = s + n;
    if (n >= sizeof tok)
        return false;
    memcpy(tok, s, n);
    tok[n] = '\0';
    return up_uint_parse(tok, UINT64_MAX, v, why, sizeof why);
}

/* 0,2,4-7 */
static bool parse_ranges(const char *s, up_id_range *r, size_t cap, size_t *n)
{
    *n = 0;
    for (;;) {
        const char *e;
        if (*n == cap || !parse_u64(s, &e, &r[*n].lo))
            return false;
        r[*n].hi = r[*n].lo;
        if (*e == '-' && (!parse_u64(e + 1, &e, &r[*n].hi) || r[*n].hi < r[*n].lo))
            return false;
        (*n)++;
        if (!*e)
            return true;
        if (*e != ',')
            return false;
        s = e + 1;
    }
}

int cmd_export(int argc, char **argv)
{
    static up_id_range ranges[MAX_RANGES];
    const char *out = NULL;
    up_export_opts eo;
    up_export_stats st;
    bool quiet = false, force = false;
    int opt, rc;
    up_err err = {0};
    up_run_exp_opts xo;
    up_run_exp r;
    cmd_opts p;

    memset(&eo, 0, sizeof eo);
    memset(&r, 0, sizeof r);
    cmd_opts_begin(&p, &spec, argc, argv);
    while ((opt = cmd_opts_next(&p)) > 0) {
        switch (opt) {
        case 'p':
            out = optarg;
            break;
        case 'w': {
            char why[300], msg[1024];
            if (!parse_window(optarg, &eo.start_s, &eo.end_s, why, sizeof why)) {
                snprintf(msg, sizeof msg, "--window %s: %s", up_esc(optarg), why);
                return usage_fail("%s", msg);
            }
            eo.window = true;
            break;
        }
        case 'l':
            if (!parse_ranges(optarg, ranges, MAX_RANGES, &eo.nlocs))
                return usage_fail("--locations '%s' is not a list of location ids and ranges (e.g. 0,2,4-7)",
                                  up_esc(optarg));
            eo.locs = ranges;
            break;
        case 'f':
            force = true;
            break;
        case 'q':
            quiet = true;
            break;
        }
    }
    if (opt < 0)
        return p.status;
    if (optind != argc - 1)
        return cmd_one_input("export", argc, argv, optind);
    if (!out)
        return usage_fail("no output given (--perfetto OUT.json)%s", "");
    if (!*out)
        return usage_fail("--perfetto needs a file name%s", "");
    xo.input = argv[optind];
    xo.output = out;
    xo.force = force;
    if (up_run_export(&xo, &r, &err) != UP_OK ||
        up_export_perfetto(r.trace, up_outset_tmp(r.outs, 0), &eo, &st, &err) != UP_OK ||
        up_outset_commit(r.outs, &err) != UP_OK) {
        rc = cmd_fail("export", err.status == UP_EUSAGE ? 2 : 1, err.msg);
        up_run_exp_free(&r);
        return rc;
    }
    if (!quiet) {
        FILE *f = up_outset_stdout(r.outs) ? stderr : stdout;
        fprintf(f, "unperturb export: %s -> %s: %llu events (slices B/E %llu/%llu, message flows s/f %llu/%llu, "
               "instants %llu, collectives %llu, metadata %llu) from %llu records on %zu locations",
               xo.input, out, (unsigned long long)st.events, (unsigned long long)st.begins,
               (unsigned long long)st.ends, (unsigned long long)st.flow_starts,
               (unsigned long long)st.flow_ends, (unsigned long long)st.instants,
               (unsigned long long)st.collectives, (unsigned long long)st.metadata,
               (unsigned long long)st.records, st.locations);
        if (st.unresolved)
            fprintf(f, "; %llu messages without flow (peer not resolvable)", (unsigned long long)st.unresolved);
        if (st.raised)
            fprintf(f, "; %llu timestamps raised to keep their location's order", (unsigned long long)st.raised);
        fprintf(f, "\n");
    }
    up_run_exp_free(&r);
    return 0;
}
