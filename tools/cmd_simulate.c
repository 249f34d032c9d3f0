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
 * Here: the options and the output set.  The experiment, its file and the
 * simulations are the run layer's (run/simrun.h), what is printed and
 * written the report layer's (report/simreport.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

typedef struct job {
    up_experiment ex;
    bool force, quiet;
    up_outset *os;              /* the outputs: -o (o_dir), --json (o_json) */
    size_t o_dir, o_json;
} job;

static int usage_fail(const char *fmt, const char *arg) { return cmd_usage("simulate", fmt, arg); }
static int fail(int status, const char *msg) { return cmd_fail("simulate", status, msg); }
static int fail_err(const up_err *err) { return fail(err->status == UP_EUSAGE ? 2 : 1, err->msg); }

/* One line on stderr per simulation of a sweep or scaling, on a terminal. */
static void progress_line(void *ctx, size_t k, size_t n, const char *input, const char *what, double t)
{
    const job *j = ctx;
    if (!j->quiet && isatty(2))
        fprintf(stderr, "unperturb simulate: %zu/%zu %s%s%s: predicted %.9f s\n", k, n, input,
                *what ? ", " : "", what, t);
}

static int run_single(job *j)
{
    up_sim_summary s;
    up_simrun_opts o = {j->ex.inputs[0], &j->ex.m, j->ex.calib, NULL, j->quiet};
    up_err err = {0};
    int rc = 0;

    if (j->ex.out)
        o.out_dir = up_outset_tmp(j->os, j->o_dir); /* the archive, then experiment.ini beside it */
    if (up_simrun_one(&o, &s, &err) != UP_OK)
        return fail_err(&err);
    if ((j->ex.out && up_experiment_save(&j->ex, o.out_dir, &err) != UP_OK) ||
        (j->ex.json && up_simreport_single_json(up_outset_tmp(j->os, j->o_json), &j->ex, &s, &err) != UP_OK) ||
        up_outset_commit(j->os, &err) != UP_OK)
        rc = fail_err(&err);
    else if (!j->quiet)
        up_simreport_single(up_outset_stdout(j->os) ? stderr : stdout, &j->ex, &s);
    up_sim_summary_free(&s);
    return rc;
}

static int run_sweep(job *j)
{
    const char *dir = up_outset_tmp(j->os, j->o_dir);
    up_sweep_result r;
    up_err err = {0};
    int rc = 0;

    if (up_simrun_sweep(&j->ex, progress_line, j, &r, &err) != UP_OK ||
        up_simreport_sweep_files(dir, &j->ex, &r, &err) != UP_OK ||
        up_experiment_save(&j->ex, dir, &err) != UP_OK ||
        (j->ex.json && up_simreport_sweep_json(up_outset_tmp(j->os, j->o_json), &j->ex, &r, &err) != UP_OK) ||
        up_outset_commit(j->os, &err) != UP_OK)
        rc = fail_err(&err);
    else if (!j->quiet)
        up_simreport_sweep(up_outset_stdout(j->os) ? stderr : stdout, &j->ex, &r);
    up_sweep_result_free(&r);
    return rc;
}

static int run_scaling(job *j)
{
    const char *dir = up_outset_tmp(j->os, j->o_dir);
    up_scaling_result r;
    up_err err = {0};
    int rc = 0;

    memset(&r, 0, sizeof r);
    if (up_simrun_scaling(&j->ex, progress_line, j, &r, &err) != UP_OK ||
        up_simreport_scaling_files(dir, &j->ex, &r, &err) != UP_OK ||
        up_experiment_save(&j->ex, dir, &err) != UP_OK ||
        (j->ex.json && up_simreport_scaling_json(up_outset_tmp(j->os, j->o_json), &j->ex, &r, &err) != UP_OK) ||
        up_outset_commit(j->os, &err) != UP_OK)
        rc = fail_err(&err);
    else if (!j->quiet)
        up_simreport_scaling(up_outset_stdout(j->os) ? stderr : stdout, &j->ex, &r);
    up_scaling_result_free(&r);
    return rc;
}

/* The inputs, machine and sweeps of the command line (not --experiment). */
static int from_command_line(job *j, int argc, char **argv)
{
    up_experiment *ex = &j->ex;
    up_err err = {0};
    size_t i;
    if (optind >= argc)
        return usage_fail("no input trace given%s", "");
    if ((size_t)(argc - optind) > UP_SIM_MAX_INPUTS)
        return usage_fail("more than %s inputs", "256");
    for (; optind < argc; optind++)
        ex->inputs[ex->ninputs++] = argv[optind];
    if (ex->machine_file && up_machine_load(ex->machine_file, &ex->m, &err) != UP_OK)
        return fail_err(&err);
    for (i = 0; i < ex->nsets; i++)
        if (up_machine_set(&ex->m, ex->sets[i], &err) != UP_OK)
            return usage_fail("%s", err.msg); /* "--set KEY=VALUE: why" */
    return 0;
}

int cmd_simulate(int argc, char **argv)
{
    job *j;
    up_experiment *ex;
    up_err err = {0};
    const char *exp_file = NULL;
    cmd_opts p;
    size_t i;
    int opt, rc = 1;

    if (!(j = calloc(1, sizeof *j)))
        return fail(1, "out of memory");
    ex = &j->ex;
    up_experiment_init(ex);
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

    if (exp_file) {
        if (optind < argc || ex->machine_file || ex->nsets || ex->nsw || ex->calib) {
            rc = usage_fail("--experiment takes the inputs, machine, sweeps and calibration from %s; "
                            "only -o, --json, --force and --quiet may be added", exp_file);
            goto out;
        }
        if (up_experiment_load(ex, exp_file, &err) != UP_OK) {
            rc = fail(1, err.msg);
            goto out;
        }
    } else if ((rc = from_command_line(j, argc, argv)) != 0)
        goto out;

    /* sweeps, limits, -o, recordable paths, readable inputs, the calibration */
    if (up_experiment_prepare(ex, &err) != UP_OK) {
        rc = err.status == UP_EUSAGE ? usage_fail("%s", err.msg) : fail(1, err.msg);
        goto out;
    }
    /* what is read and written, checked before any work; outputs never replace an input */
    if (up_outset_new(&j->os, j->force, &err) != UP_OK)
        goto out_err;
    for (i = 0; i < ex->ninputs; i++)
        if (up_outset_input(j->os, ex->inputs[i], true, &err) != UP_OK)
            goto out_err;
    if (up_outset_input(j->os, ex->calib, false, &err) != UP_OK ||
        up_outset_input(j->os, ex->machine_file, false, &err) != UP_OK ||
        up_outset_input(j->os, ex->file, false, &err) != UP_OK ||
        (ex->out && up_outset_add(j->os, ex->out, UP_OUT_DIR, "-o", &j->o_dir, &err) != UP_OK) ||
        (ex->json && up_outset_add(j->os, ex->json, UP_OUT_FILE, "--json", &j->o_json, &err) != UP_OK) ||
        up_outset_begin(j->os, &err) != UP_OK)
        goto out_err;

    if (ex->ninputs > 1)
        rc = run_scaling(j);
    else if (ex->nsw)
        rc = run_sweep(j);
    else
        rc = run_single(j);
    goto out;
out_err:
    rc = fail_err(&err);
out:
    up_outset_free(j->os);
    up_experiment_free(ex);
    free(j);
    return rc;
}
