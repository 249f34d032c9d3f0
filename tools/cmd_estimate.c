/*
 * cmd_estimate.c - `unperturb estimate`: the quick time-based models of
 * Malony and Reed (Section 3) from one pass over the trace, no replay; with
 * --compare also the replay (compensate --mode lower, no output) and each
 * model's error against it.
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
    "usage: unperturb estimate TRACE [options]\n"
    "\n"
    "Estimates the run time without the tracer's overhead with the time-based\n"
    "models of Malony and Reed (Section 3): sequential and concurrent total\n"
    "time, sequential (eq. 2) and concurrent event time.  One pass over the\n"
    "trace, no replay: the models assume independent locations and ignore\n"
    "waiting, which `unperturb compensate` models.  TRACE is an anchor file\n"
    "(traces.otf2) or the experiment folder holding it.\n"
    "\n";

static const cmd_opt opts[] = {
    CMD_OPT_OVERHEAD_NS("N", "overhead per trace record in ns (the paper's alpha)"),
    CMD_OPT_CALIBRATION("per-kind overheads from a calibration file"),
    {"compare", 0, NULL, 'c', "also run the replay (compensate --mode lower, no\n"
                              "output) and give each model's error against it"},
    {"per-location", 0, NULL, 'l', "also print the table per location"},
    CMD_OPT_JSON("also write the estimates as JSON"),
    CMD_OPT_FORCE("replace the --json file if it exists"),
    CMD_OPT_QUIET(CMD_QUIET_HELP),
    CMD_OPT_HELP,
    CMD_OPT_END,
};

static const cmd_spec spec = {
    "estimate", usage_head,
    "\n"
    "Overheads: the calibration stored in the archive by the unperturb tracer,\n"
    "then --calibration, then --overhead-ns.\n",
    29, false, opts,
};

static void warn(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "unperturb estimate: warning: %s\n", msg);
}

int cmd_estimate(int argc, char **argv)
{
    bool per_loc = false, quiet = false;
    cmd_opts p;
    int opt, rc = 1;
    up_err err = {0};
    up_run_est_opts o;
    up_run_est r;

    memset(&r, 0, sizeof r);
    up_run_est_opts_init(&o);
    cmd_opts_begin(&p, &spec, argc, argv);
    while ((opt = cmd_opts_next(&p)) > 0) {
        switch (opt) {
        case 'O':
            if ((rc = cmd_opt_overhead("estimate", optarg, false, &o.cli)))
                return rc;
            break;
        case 'C':
            o.calibration = optarg;
            break;
        case 'c':
            o.compare = true;
            break;
        case 'l':
            per_loc = true;
            break;
        case 'j':
            o.json = optarg;
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
        return cmd_one_input("estimate", argc, argv, optind);
    o.input = argv[optind];
    o.warn = warn;

    if (up_run_estimate(&o, &r, &err) != UP_OK)
        goto fail;
    {
        up_estimate_report e = up_run_est_report(&r, o.input);
        if (!quiet)
            up_report_estimate_text(up_outset_stdout(r.outs) ? stderr : stdout, &e, per_loc);
        if (o.json && up_report_estimate_json(&e, up_outset_tmp(r.outs, 0), &err) != UP_OK)
            goto fail;
        if (up_outset_commit(r.outs, &err) != UP_OK)
            goto fail;
    }
    rc = 0;
    goto done;
fail:
    rc = cmd_fail("estimate", err.status == UP_EUSAGE ? 2 : 1, err.msg);
done:
    up_run_est_free(&r);
    return rc;
}
