/*
 * test_replay_odd.c - records the replay engine (src/replay/engine.c) met
 * in traces the "otf2" fuzz target made: possible in OTF2, never written by
 * Score-P or our tracer (thread teams on a self communicator, a request id
 * used twice).
 */
#include <stdlib.h>

#include "test.h"
#include "tutil.h"
#include "tracegen/tracegen.h"

/* A team on a self communicator (MPI_COMM_SELF's group type, COMM_SELF,
 * has no member list): its one member is the master.  team_wake read the
 * member list anyway, a NULL pointer: compensate crashed (SIGSEGV).
 * O = 10, lower, one location, by eq. (1): Enter(main) 0 -> 0, ThreadFork
 * 100 -> 90, ThreadTeamBegin 110 -> 90, Enter(work) 120 -> 90, Leave(work)
 * 150 -> 110, ThreadTeamEnd 160 -> 110, ThreadJoin 300 -> 240 (no thread
 * ends later), Leave(main) 400 -> 330. */
TEST(team_on_a_self_communicator_is_the_master_alone)
{
    static const uint64_t want[] = {0, 90, 90, 90, 110, 110, 240, 330};
    char in[4096], out[4096];
    tg *g;
    OTF2_EvtWriter *w;
    up_comp_params p = t_params(10, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    tr_trace t;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 1, 1000000000, 0);
    w = tg_writer(g, 0);
    tg_enter(g, 0, 0, TG_MAIN);
    CHECK(OTF2_EvtWriter_ThreadFork(w, NULL, 100, OTF2_PARADIGM_OPENMP, 1) == OTF2_SUCCESS);
    CHECK(OTF2_EvtWriter_ThreadTeamBegin(w, NULL, 110, TG_COMM_SELF) == OTF2_SUCCESS);
    tg_enter(g, 0, 120, TG_WORK);
    tg_leave(g, 0, 150, TG_WORK);
    CHECK(OTF2_EvtWriter_ThreadTeamEnd(w, NULL, 160, TG_COMM_SELF) == OTF2_SUCCESS);
    CHECK(OTF2_EvtWriter_ThreadJoin(w, NULL, 300, OTF2_PARADIGM_OPENMP) == OTF2_SUCCESS);
    tg_leave(g, 0, 400, TG_MAIN);
    CHECK(tg_close(g) == 0);
    snprintf(out, sizeof out, "%s", t_dir("out"));
    CHECK_EQ(t_compensate(in, out, &p, &res, NULL), UP_OK);
    CHECK_EQ(res.events, 8);
    CHECK_EQ(res.repairs[UP_REPAIR_thread_unpaired], 0);
    up_replay_result_free(&res);
    CHECK_EQ(tr_load(out, &t), 0);
    CHECK_TIMES(&t, 0, want, 8);
    tr_free(&t);
}

/* A nonblocking collective's request id used twice before a completion
 * (found by the "otf2" fuzz target: the second request's pending entry
 * replaced the first's, which leaked).  MPI reuses a request only once it
 * completed: the earlier request keeps the id, the later one is timed as a
 * local record and counted as an unpaired collective; every record is kept. */
TEST(nonblocking_collective_request_id_twice)
{
    char in[4096], out[4096];
    tg *g;
    up_comp_params p = t_params(10, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    g = tg_open(in, 1, 1000000000, 0);
    tg_enter(g, 0, 0, TG_MAIN);
    CHECK(OTF2_EvtWriter_NonBlockingCollectiveRequest(tg_writer(g, 0), NULL, 100, 5) == OTF2_SUCCESS);
    CHECK(OTF2_EvtWriter_NonBlockingCollectiveRequest(tg_writer(g, 0), NULL, 200, 5) == OTF2_SUCCESS);
    tg_leave(g, 0, 300, TG_MAIN);
    CHECK(tg_close(g) == 0);
    snprintf(out, sizeof out, "%s", t_dir("out"));
    CHECK_EQ(t_compensate(in, out, &p, &res, NULL), UP_OK);
    CHECK_EQ(res.events, 4);
    CHECK_EQ(res.repairs[UP_REPAIR_collective_unpaired], 1);
    up_replay_result_free(&res);
}
