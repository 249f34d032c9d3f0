/*
 * simulate.h - trace-driven extrapolation (speedy-performance-extrapolation.md
 * Section 3): replays a trace on a model of another machine (machine.h) and
 * predicts its timestamps.
 *
 * Place in the data flow: a replay model (replay.h) like compensation.  The
 * computation between MPI calls is taken from the trace (CPU time when
 * recorded, else wall time less the tracer's overhead) and scaled by the
 * processor model; every MPI call is timed by the network, barrier and
 * collective models instead of its measured duration.  docs/machine.md
 * documents the rules.
 */
#ifndef UNPERTURB_SIMULATE_H
#define UNPERTURB_SIMULATE_H

#include "model/machine.h"
#include "model/compensate.h"

typedef struct up_sim up_sim;

/* A simulation model for the trace with definitions d.  `ovh` gives the
 * tracer's per-record overhead to remove from wall-time compute intervals
 * (overhead_ns and the per-location loc_ovh_*; may be NULL: none). */
up_status up_sim_new(const up_machine *m, const up_comp_params *ovh, const up_defs *d,
                     up_sim **out, up_err *err);
void up_sim_free(up_sim *s);
const up_model_ops *up_sim_ops(void);
/* Did compute intervals come from the CPU-time metric (any location)? */
bool up_sim_used_cpu_time(const up_sim *s);

/* What one simulation of one trace gives. */
typedef struct up_sim_summary {
    up_replay_result res;       /* start_a/end_a: predicted window; locs[].end_a */
    double measured_s, predicted_s;
    bool cpu_time;              /* compute came from the CPU-time metric */
    long nranks;                /* MPI ranks in the trace */
    bool owns_names;            /* res.locs[].name are copies (freed with it) */
    bool overhead_known;        /* the tracer's per-record cost was given */
    char overhead_source[256];  /* where it came from ("archive", a file, ...) */
} up_sim_summary;

/* Replays the opened trace t (the one S was made for: up_sim_new with its
 * definitions) on S's machine into the writer w (may be NULL: no archive;
 * not closed here), telling obs (may be NULL: nobody) how it goes.  `what`
 * names the trace in errors.  Fills *s but for
 * overhead_known and overhead_source (the caller knows where the overheads
 * came from); the location names are copies, so *s outlives t.  On error *s
 * is freed.  Opening the trace and the writer is the run layer's
 * (run/simrun.h: up_simrun_one). */
up_status up_sim_trace(up_sim *S, up_trace *t, up_writer *w, const up_replay_observer *obs,
                       const char *what, up_sim_summary *s, up_err *err);
void up_sim_summary_free(up_sim_summary *s);

#endif /* UNPERTURB_SIMULATE_H */
