/*
 * tutil.h - shared helpers of the unit tests.
 */
#ifndef UNPERTURB_TUTIL_H
#define UNPERTURB_TUTIL_H

#include "model/compensate.h"
#include "model/simulate.h"
#include "tread.h"

/* Compensates archive folder `in` into folder `out` (must not exist) with
 * parameters *p through the library API; fills *res (free with
 * up_replay_result_free) and, if removed != NULL, a malloc'd array of the
 * overhead removed per location (ticks).  Returns the status. */
up_status t_compensate(const char *in, const char *out, const up_comp_params *p,
                       up_replay_result *res, uint64_t **removed);
/* The same with the replay ops `ops` (a variant of up_comp_ops()), telling
 * obs (may be NULL) how the replay goes. */
up_status t_compensate_ops(const char *in, const char *out, const up_comp_params *p,
                           const up_model_ops *ops, const up_replay_observer *obs,
                           up_replay_result *res, uint64_t **removed);

/* Simulates archive folder `in` into folder `out` (NULL: no archive) on the
 * built-in machine with cpu_ratio 1, wall-time compute and MPI progress;
 * fills *s (free with up_sim_summary_free) and *err.  Returns the status. */
up_status t_simulate_wall(const char *in, const char *out, up_sim_summary *s, up_err *err);

/* Calls fn(name, folder, ctx) for every trace folder of tests/data; returns
 * how many, or -1 (reported) if tests/data cannot be read. */
int t_each_data_trace(void (*fn)(const char *name, const char *dir, void *ctx), void *ctx);

/* Compensates archive folder `in` with *p (p NULL: simulates it on the
 * built-in machine, one rank per node, no contention) under the replay's
 * default schedule and under five others (up_replay_set_schedule: slices of
 * 1, 7, 512 and 100000 records, ties to the lower or the higher location),
 * and reports, naming `what`, every output or count that differs from the
 * default's. */
void t_check_schedules(const char *what, const char *in, const up_comp_params *p);
/* `in` compensated with *p by two engine instances, half of the processes
 * each (tests/test_partition.c): the records and counts of the serial
 * replay, under every schedule and three seeds.  Returns the task farms'
 * moved work that crossed between the parts, or -1 (failures said). */
long t_check_partition(const char *what, const char *in, const up_comp_params *p);
/* t_check_schedules, simulated with contention on the links */
void t_check_schedules_contended(const char *what, const char *in);

/* Parameters with every per-record overhead = o_ns, the given mode and
 * collective model, no copy time, no network. */
up_comp_params t_params(double o_ns, up_mode mode, up_collective coll);
/* The machine of the hand-worked simulate tests: every rank on its own node,
 * L = 1000 ns, 1 ns/byte, o_s = 100, o_r = 200, same node 10 ns, eager 4096,
 * progress = mpi, compute as measured (wall) */
up_machine t_hand_machine(void);

/* Window length of a result in seconds, measured (which=0) or approximated. */
double t_window_s(const up_replay_result *r, int which);

/* Time of the k-th event of the location with OTF2 id `id` in a loaded trace
 * (UINT64_MAX if there is none). */
uint64_t t_ev(const tr_trace *t, uint64_t id, size_t k);

/* The location with OTF2 id `id` has exactly n events, at times want[0..n-1];
 * every mismatch is reported at the caller's file and line. */
void t_check_times(const char *file, int line, const tr_trace *t, uint64_t id,
                   const uint64_t *want, size_t n);
#define CHECK_TIMES(t, id, want, n) t_check_times(__FILE__, __LINE__, (t), (id), (want), (n))

/* A one-location archive (location 0, no rank) whose location is named
 * `thread`, its process `node`, and whose n regions are named names[i]:
 * region i is entered at 100 + 10 i and left leave_dt later.  Clock: 1 ns
 * ticks from 100 for `length`.  Written by OTF2's raw writer, so names reach
 * the reader exactly as given.  Returns 0 on success. */
int t_write_named_regions(const char *dir, const char *const *names, unsigned n,
                          uint64_t leave_dt, uint64_t length, const char *node,
                          const char *thread);

#endif
