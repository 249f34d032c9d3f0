/*
 * cmd_simulate.c - `unperturb simulate`: trace-driven extrapolation
 * (speedy-performance-extrapolation.md Sections 3-4; docs/simulate.md).
 *
 * One trace: one simulation on the machine model, a summary, and with -o
 * the predicted OTF2 archive.  One trace and one or two --sweep: a
 * simulation per value (per pair), a table, sweep.csv, sweep.json and
 * time.svg.  Several traces (runs at different rank counts): the speedup
 * table, scaling.csv, scaling.json, time.svg and speedup.svg, with one
 * --sweep a series per value (speedy's Fig. 7).  Every output folder gets
 * experiment.ini, which `--experiment FILE` runs again.
 *
 * Here: the options.  The experiment, its machine, its file, the output
 * set and the simulations are the run layer's (run/simrun.h: up_run_simulate),
 * what is printed and written the report layer's (report/simreport.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cmd.h"
#include "report/simreport.h"
#include "run/simrun.h"

static const char usage_head[] =
    "usage: unperturb simulate TRACE... [options]\n"
    "       unperturb simulate --experiment FILE [-o DIR] [--json FILE] [-f] [-q]\n"
    "\n"
    "Predicts the run of a traced MPI program on another machine: replays the\n"
    "trace on a machine model (docs/simulate.md; parameters: docs/machine.md).\n"
    "TRACE is an anchor file (traces.otf2) or the experiment folder holding it.\n"
    "  one TRACE            predicted time and per-location ends; with -o DIR also\n"
    "                       the predicted OTF2 archive DIR/traces.otf2\n"
    "  one TRACE, --sweep   a simulation per value, per pair with two (needs -o)\n"
    "  several TRACEs       runs at different rank counts: speedups (needs -o);\n"
    "                       with one --sweep, a series per value\n"
    "\n";

static const cmd_opt opts[] = {
    {"machine", 0, "FILE", 'M', "the target machine (INI); default: built-in defaults"},
    {"set", 0, "KEY=VALUE", 'S', "change one parameter after --machine; repeatable,\n"
                                 "applied in order"},
    {"sweep", 0, "KEY=FROM:TO:STEP", 'W', "step a numeric parameter (at most 1000 values);\n"
                                          "at most two, the first varies slowest"},
    CMD_OPT_CALIBRATION("tracer overheads to remove from wall-time compute\n"
                        "intervals (docs/calibration.md); default: those\n"
                        "the unperturb tracer stored in the archive"),
    {"experiment", 0, "FILE", 'E', "run a saved experiment.ini again (its inputs, sweeps,\n"
                                   "machine); -o, --json, -f, -q may be added"},
    CMD_OPT_JSON("also write the results as JSON"),
    CMD_OPT_OUTPUT("DIR", "output folder (must not exist, see --force)"),
    CMD_OPT_FORCE(CMD_FORCE_DIR_HELP),
    CMD_OPT_QUIET(CMD_QUIET_HELP),
    CMD_OPT_HELP,
    CMD_OPT_END,
};

static const cmd_spec spec = {
    "simulate", usage_head, NULL, 29, false, opts,
};

static int usage_fail(const char *fmt, const char *arg) { return cmd_usage("simulate", fmt, arg); }
static int fail(int status, const char *msg) { return cmd_fail("simulate", status, msg); }
static int fail_err(const up_err *err) { return fail(err->status == UP_EUSAGE ? 2 : 1, err->msg); }

/* One line on stderr per simulation of a sweep or scaling, on a terminal. */
static void progress_line(void *ctx, size_t k, size_t n, const char *input, const char *what, double t)
{
    const up_run_sim_opts *j = ctx;
    if (!j->quiet && isatty(2))
        fprintf(stderr, "unperturb simulate: %zu/%zu %s%s%s: predicted %.9f s\n", k, n, input,
                *what ? ", " : "", what, t);
}

/* The files of the result (report/simreport.h), the commit, the summary. */
static int finish(up_run_sim *r, bool quiet)
{
    const up_experiment *ex = &r->ex;
    const char *dir = ex->out ? up_outset_tmp(r->outs, r->o_dir) : NULL;
    const char *json = ex->json ? up_outset_tmp(r->outs, r->o_json) : NULL;
    FILE *f;
    up_err err = {0};
    up_status st = UP_OK;

    if (r->kind == UP_SIM_SWEEP)
        st = up_simreport_sweep_files(dir, ex, &r->sweep, &err);
    else if (r->kind == UP_SIM_SCALING)
        st = up_simreport_scaling_files(dir, ex, &r->scaling, &err);
    if (st == UP_OK && json)
        st = r->kind == UP_SIM_ONE     ? up_simreport_single_json(json, ex, &r->one, &err)
             : r->kind == UP_SIM_SWEEP ? up_simreport_sweep_json(json, ex, &r->sweep, &err)
                                       : up_simreport_scaling_json(json, ex, &r->scaling, &err);
    if (st != UP_OK || up_outset_commit(r->outs, &err) != UP_OK)
        return fail_err(&err);
    if (quiet)
        return 0;
    f = up_outset_stdout(r->outs) ? stderr : stdout;
    if (r->kind == UP_SIM_ONE)
        up_simreport_single(f, ex, &r->one);
    else if (r->kind == UP_SIM_SWEEP)
        up_simreport_sweep(f, ex, &r->sweep);
    else
        up_simreport_scaling(f, ex, &r->scaling);
    return 0;
}

int cmd_simulate(int argc, char **argv)
{
    up_run_sim_opts *j = calloc(1, sizeof *j);
    up_run_sim *r = calloc(1, sizeof *r);
    up_experiment *ex;
    up_err err = {0};
    const char *exp_file = NULL;
    cmd_opts p;
    int opt, rc = 1;

    if (!j || !r) {
        free(j);
        free(r);
        return fail(1, "out of memory");
    }
    up_run_sim_opts_init(j);
    ex = &j->ex;
    cmd_opts_begin(&p, &spec, argc, argv);
    while ((opt = cmd_opts_next(&p)) > 0) {
        switch (opt) {
        case 'M':
            ex->machine_file = optarg;
            break;
        case 'S':
            if (ex->nsets == UP_SIM_MAX_SETS) {
                rc = usage_fail("more than %s --set options", "64");
                goto out;
            }
            ex->sets[ex->nsets++] = optarg;
            break;
        case 'W':
            if (ex->nsw == 2) {
                rc = usage_fail("at most two --sweep options (a third: '%s')", up_esc(optarg));
                goto out;
            }
            ex->sweep_args[ex->nsw++] = optarg;
            break;
        case 'C':
            ex->calib = optarg;
            break;
        case 'E':
            exp_file = optarg;
            break;
        case 'j':
            ex->json = optarg;
            break;
        case 'o':
            ex->out = optarg;
            break;
        case 'f':
            j->force = true;
            break;
        case 'q':
            j->quiet = true;
            break;
        }
    }
    if (opt < 0) {
        rc = p.status;
        goto out;
    }

    j->experiment = exp_file;
    j->args = argv + optind;
    j->nargs = (size_t)(argc - optind);
    j->progress = progress_line;
    j->progress_ctx = j;
    if (up_run_simulate(j, r, &err) != UP_OK)
        rc = r->usage ? usage_fail("%s", err.msg) : fail_err(&err);
    else
        rc = finish(r, j->quiet);
out:
    up_run_sim_free(r);
    free(r);
    free(j);
    return rc;
}
