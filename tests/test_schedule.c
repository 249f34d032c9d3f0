/*
 * test_schedule.c - the replay's results do not depend on its scheduling
 * (issue 23): how many records a location runs before it may yield, and
 * which of two locations at the same measured time runs first
 * (up_replay_set_schedule).  Every trace of tests/data is compensated, and
 * simulated one rank per node (without contention, whose links are taken in
 * the replay's order: docs/machine.md), under five schedules
 * (t_check_schedules); every output must equal the default schedule's,
 * record by record (kind, time, peer or region), with the same counts.
 * tests/test_farm_truth.c does the same with its farms, whose wildcard
 * receives are re-matched and whose replies follow.  A parallel replay will
 * schedule otherwise.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "test.h"
#include "tracegen.h"
#include "tutil.h"

TEST(schedule_real_traces)
{
    char data[4096];
    DIR *dir;
    struct dirent *de;
    int seen = 0;
    snprintf(data, sizeof data, "%s", t_src("tests/data"));
    if (!(dir = opendir(data))) {
        CHECK(!"tests/data is readable");
        return;
    }
    while ((de = readdir(dir)) != NULL) {
        char in[8192], name[256];
        struct stat sb;
        up_comp_params p = t_params(20, UP_MODE_NETWORK, UP_COLLECTIVE_INDIVIDUAL);
        if (de->d_name[0] == '.')
            continue;
        snprintf(in, sizeof in, "%s/%s", data, de->d_name);
        if (stat(in, &sb) != 0 || !S_ISDIR(sb.st_mode))
            continue; /* README.md */
        t_check_schedules(de->d_name, in, &p);
        snprintf(name, sizeof name, "%.200s simulated", de->d_name);
        t_check_schedules(name, in, NULL);
        seen++;
    }
    closedir(dir);
    CHECK(seen >= 9);
}
