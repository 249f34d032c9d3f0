/*
 * simreport.h - what `unperturb simulate` prints and writes
 * (docs/simulate.md): the text summaries on stdout, and the JSON, CSV and
 * SVG files of one trace, a sweep and a scaling experiment, from the result
 * structs of the run layer (run/simrun.h).
 *
 * Place in the data flow: run/simrun.h fills the results; tools/
 * cmd_simulate.c calls these to print them and to write them into the
 * output folder (the temporary of its output set).  Numbers keep the
 * formats the command always had.
 */
#ifndef UNPERTURB_SIMREPORT_H
#define UNPERTURB_SIMREPORT_H

#include <stdio.h>

#include "run/simrun.h"

/* "  machine ... processor ... network ... nodes ... collectives": where the
 * machine came from and its main parameters. */
void up_simreport_machine(FILE *f, const up_experiment *ex);

/* One trace: the summary, per-location ends (16 of them above 32). */
void up_simreport_single(FILE *f, const up_experiment *ex, const up_sim_summary *s);
/* Its JSON (the --json file). */
up_status up_simreport_single_json(const char *path, const up_experiment *ex, const up_sim_summary *s,
                                   up_err *err);

/* A sweep of one trace: the summary and its table. */
void up_simreport_sweep(FILE *f, const up_experiment *ex, const up_sweep_result *r);
/* dir/sweep.csv, dir/sweep.json and dir/time.svg. */
up_status up_simreport_sweep_files(const char *dir, const up_experiment *ex, const up_sweep_result *r,
                                   up_err *err);
/* sweep.json's text at path (the --json file). */
up_status up_simreport_sweep_json(const char *path, const up_experiment *ex, const up_sweep_result *r,
                                  up_err *err);

/* Scaling: the summary and the speedup table. */
void up_simreport_scaling(FILE *f, const up_experiment *ex, const up_scaling_result *r);
/* dir/scaling.csv, dir/scaling.json, dir/time.svg and dir/speedup.svg. */
up_status up_simreport_scaling_files(const char *dir, const up_experiment *ex, const up_scaling_result *r,
                                     up_err *err);
/* scaling.json's text at path (the --json file). */
up_status up_simreport_scaling_json(const char *path, const up_experiment *ex, const up_scaling_result *r,
                                    up_err *err);

#endif /* UNPERTURB_SIMREPORT_H */
