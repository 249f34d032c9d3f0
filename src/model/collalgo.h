/*
 * collalgo.h - exit times of one collective operation by a message-based
 * algorithm, for `unperturb simulate` (docs/machine.md, "Collectives").
 *
 * Place in the data flow: the simulation model (simulate.c) calls it once
 * per collective instance with every member's approximated entry time and
 * gets every member's exit time.  Pure computation, no I/O.
 *
 * Message rule (the same as the simulator's point-to-point model):
 *   - a send of b bytes from member a at a's clock t: a's clock becomes
 *     t + o_s; the message arrives at arrive(a, dst, b, t + o_s);
 *   - a receive on member d: d's clock = max(clock_d, arrival) + o_r;
 *   - combining b received bytes in a reduction: clock += b * reduce cost;
 *   - an exchange step (send to p, receive from p) is the send, then the
 *     receive.
 * A member's exit is its clock after its last step.  All times are ticks.
 */
#ifndef UNPERTURB_COLLALGO_H
#define UNPERTURB_COLLALGO_H

#include <otf2/otf2.h>

#include "model/machine.h"

typedef struct up_ca_net {
    uint64_t o_s, o_r;          /* LogGP send / receive overhead, ticks */
    double reduce_per_byte;     /* ticks per combined byte */
    /* arrival time at member `to` of `bytes` leaving member `from` at
     * `depart` (latency, hops, bandwidth, contention: the caller's) */
    uint64_t (*arrive)(void *ctx, uint32_t from, uint32_t to, uint64_t bytes, uint64_t depart);
    void *ctx;
} up_ca_net;

/* speedy Table 1, in ticks (the linear barrier) */
typedef struct up_ca_barrier {
    uint64_t entry, exit, check, exit_check, model;
    bool by_msgs;
    uint64_t msg_size;
} up_ca_barrier;

typedef struct up_ca_in {
    up_coll_kind kind;
    unsigned algo;              /* up_coll_algo; up_barrier_algo for UP_CK_BARRIER */
    uint32_t n;                 /* members, in communicator rank order */
    uint32_t root;              /* member index of the root; UINT32_MAX if none */
    bool exscan;                /* UP_CK_SCAN: exclusive */
    const uint64_t *enter;      /* n: each member's entry time */
    const uint64_t *sent;       /* n: bytes sent, as its MpiCollectiveEnd says */
    const uint64_t *recvd;      /* n: bytes received, likewise */
    const up_ca_barrier *bar;   /* the linear barrier's parameters */
} up_ca_in;

/* The group of an OTF2 collective operation. */
up_coll_kind up_ca_kind_of(OTF2_CollectiveOp op);

/* Fills exit[0..n-1] (each >= enter[i]).  An algorithm that does not apply
 * to the kind (e.g. ring for a bcast) falls back to the kind's default
 * (docs/machine.md).  Returns UP_OK or UP_ENOMEM. */
up_status up_ca_times(const up_ca_in *in, const up_ca_net *net, uint64_t *exit, up_err *err);

#endif /* UNPERTURB_COLLALGO_H */
