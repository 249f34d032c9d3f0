/*
 * collalgo.c - exit times of collectives by message-based algorithms
 * (collalgo.h).  STUB: being written (issue 7).
 */
#include "unperturb/collalgo.h"

up_coll_kind up_ca_kind_of(OTF2_CollectiveOp op)
{
    switch (op) {
    case OTF2_COLLECTIVE_OP_BARRIER: return UP_CK_BARRIER;
    case OTF2_COLLECTIVE_OP_BCAST: return UP_CK_BCAST;
    default: return UP_CK_ALLREDUCE;
    }
}

up_status up_ca_times(const up_ca_in *in, const up_ca_net *net, uint64_t *exit, up_err *err)
{
    uint64_t mx = 0;
    uint32_t i;
    (void)net, (void)err;
    for (i = 0; i < in->n; i++)
        mx = in->enter[i] > mx ? in->enter[i] : mx;
    for (i = 0; i < in->n; i++)
        exit[i] = mx;
    return UP_OK;
}
