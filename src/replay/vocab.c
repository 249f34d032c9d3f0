/*
 * vocab.c - the replay's vocabulary (replay.h): the names, texts and
 * parsers of its enums and repairs, the list of a result's repairs the
 * reports print (the engine's kinds with the model's), and the class of a
 * collective operation.  No engine state.
 */
#include <string.h>

#include "replay/replay.h"

static const up_repair_kind engine_kinds[UP_REPAIR_COUNT] = {
#define X(name, text, fix) {#name, text, fix, UP_REPAIR_COUNT},
    UP_REPAIRS(X)
#undef X
};

const char *up_repair_name(unsigned r) { return r < UP_REPAIR_COUNT ? engine_kinds[r].name : "?"; }
const char *up_repair_text(unsigned r) { return r < UP_REPAIR_COUNT ? engine_kinds[r].text : "?"; }
bool up_repair_is_fix(unsigned r) { return r < UP_REPAIR_COUNT && engine_kinds[r].fix; }

size_t up_replay_repairs(const up_replay_result *r, up_repair_line *out)
{
    size_t n = 0;
    unsigned e, m;
    for (e = 0; e <= UP_REPAIR_COUNT; e++) {
        for (m = 0; m < r->nmodel_kinds; m++) {
            unsigned b = r->model_kinds[m].before;
            if (b == e || (e == UP_REPAIR_COUNT && b > e)) {
                out[n].kind = &r->model_kinds[m];
                out[n++].n = r->model_repairs[m];
            }
        }
        if (e < UP_REPAIR_COUNT) {
            out[n].kind = &engine_kinds[e];
            out[n++].n = r->repairs[e];
        }
    }
    return n;
}

const char *up_polls_name(up_polls p) { return p == UP_POLLS_LOCAL ? "local" : "model"; }

bool up_polls_parse(const char *s, up_polls *out)
{
    if (!strcmp(s, "model"))
        *out = UP_POLLS_MODEL;
    else if (!strcmp(s, "local"))
        *out = UP_POLLS_LOCAL;
    else
        return false;
    return true;
}

const char *up_replies_name(up_replies r) { return r == UP_REPLIES_MEASURED ? "measured" : "follow"; }

const char *up_rdv_progress_name(up_rdv_progress p) { return p == UP_RDV_ASYNC ? "async" : "mpi"; }

bool up_rdv_progress_parse(const char *s, up_rdv_progress *out)
{
    if (!strcmp(s, "mpi"))
        *out = UP_RDV_MPI;
    else if (!strcmp(s, "async"))
        *out = UP_RDV_ASYNC;
    else
        return false;
    return true;
}

bool up_replies_parse(const char *s, up_replies *out)
{
    if (!strcmp(s, "follow"))
        *out = UP_REPLIES_FOLLOW;
    else if (!strcmp(s, "measured"))
        *out = UP_REPLIES_MEASURED;
    else
        return false;
    return true;
}

const char *up_wildcard_name(up_wildcard w)
{
    return w == UP_WILDCARD_FIFO   ? "fifo"
           : w == UP_WILDCARD_LIFO ? "lifo"
           : w == UP_WILDCARD_AUTO ? "auto"
                                   : "preserve";
}

bool up_wildcard_parse(const char *s, up_wildcard *out)
{
    if (!strcmp(s, "preserve"))
        *out = UP_WILDCARD_PRESERVE;
    else if (!strcmp(s, "fifo"))
        *out = UP_WILDCARD_FIFO;
    else if (!strcmp(s, "lifo"))
        *out = UP_WILDCARD_LIFO;
    else if (!strcmp(s, "auto"))
        *out = UP_WILDCARD_AUTO;
    else
        return false;
    return true;
}

double up_ticks_s(const up_replay_result *r, uint64_t ticks)
{
    return (double)ticks / (double)r->resolution;
}

double up_replay_measured_s(const up_replay_result *r) { return up_ticks_s(r, r->end_m - r->start_m); }

double up_replay_approximated_s(const up_replay_result *r)
{
    return up_ticks_s(r, r->end_a > r->start_a ? r->end_a - r->start_a : 0);
}

up_coll_class up_coll_class_of(OTF2_CollectiveOp op)
{
    switch (op) {
    case OTF2_COLLECTIVE_OP_BCAST:
    case OTF2_COLLECTIVE_OP_SCATTER:
    case OTF2_COLLECTIVE_OP_SCATTERV:
        return UP_COLL_ONE_TO_N;
    case OTF2_COLLECTIVE_OP_REDUCE:
    case OTF2_COLLECTIVE_OP_GATHER:
    case OTF2_COLLECTIVE_OP_GATHERV:
        return UP_COLL_N_TO_ONE;
    case OTF2_COLLECTIVE_OP_SCAN:
    case OTF2_COLLECTIVE_OP_EXSCAN:
        return UP_COLL_PREFIX;
    default:
        return UP_COLL_N_TO_N;
    }
}
