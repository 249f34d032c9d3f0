/*
 * test_schedule.c - the replay's results do not depend on its scheduling
 * (issue 23): how many records a location runs before it may yield, and
 * which of two locations at the same measured time runs first
 * (up_replay_set_schedule).  Every trace of tests/data is compensated, and
 * simulated one rank per node, without and with contention on the links
 * (taken in order of departure: up_model_ops.claim), under five schedules
 * (t_check_schedules); every output must equal the default schedule's,
 * record by record (kind, time, peer or region), with the same counts.
 * tests/test_farm_truth.c does the same with its farms, whose wildcard
 * receives are re-matched and whose replies follow.  A parallel replay will
 * schedule otherwise.
 */
#include <stdio.h>

#include "test.h"
#include "tutil.h"
#include "tracegen/tracegen.h"

/* One trace of tests/data: compensated, and simulated, under every schedule */
static void schedules_of(const char *name, const char *in, void *ctx)
{
    char what[256];
    up_comp_params p = t_params(20, UP_MODE_NETWORK, UP_COLLECTIVE_INDIVIDUAL);
    (void)ctx;
    t_check_schedules(name, in, &p);
    snprintf(what, sizeof what, "%.200s simulated", name);
    t_check_schedules(what, in, NULL);
    snprintf(what, sizeof what, "%.200s simulated, contention", name);
    t_check_schedules_contended(what, in);
}

TEST(schedule_real_traces)
{
    CHECK(t_each_data_trace(schedules_of, NULL) >= 9);
}
