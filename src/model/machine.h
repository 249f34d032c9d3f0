/*
 * machine.h - the model of a target machine for `unperturb simulate`
 * (speedy-performance-extrapolation.md Section 3.3: processor, remote access
 * / network and barrier models), read from an INI file (docs/machine.md) and
 * changed by `--set key=value`.
 *
 * Place in the data flow: parsed by the command, read by the simulation
 * model (simulate.h) and the collective algorithms (collalgo.h).
 *
 * Every key is unique over all sections, so `--set latency_ns=5000` needs no
 * section name; the sections only group the keys in the file.  Times are ns,
 * sizes bytes, every number within its key's range (docs/machine.md).
 */
#ifndef UNPERTURB_MACHINE_H
#define UNPERTURB_MACHINE_H

#include <stdio.h>

#include "util/util.h"

/* How compute intervals (time between MPI calls) are taken from the trace. */
typedef enum up_compute_src {
    UP_COMPUTE_AUTO, /* thread CPU time when the trace has it, else wall time */
    UP_COMPUTE_WALL, /* measured wall time, less the tracer's overhead */
    UP_COMPUTE_CPU   /* thread CPU time (the tracer's --cpu-time); error if absent */
} up_compute_src;

/* When a process handles a message that arrives while it computes
 * (speedy Section 3.3: "no interrupt", "interrupt", "polling"). */
typedef enum up_progress_policy {
    UP_PROGRESS_MPI,       /* only inside MPI calls (no interrupt) */
    UP_PROGRESS_INTERRUPT, /* at once, interrupting the computation */
    UP_PROGRESS_POLLING    /* at the end of each compute chunk of poll_chunk_ns */
} up_progress_policy;

typedef enum up_topology {
    UP_TOPO_FULL,      /* every node one hop from every other */
    UP_TOPO_RING,      /* nodes on a bidirectional ring */
    UP_TOPO_TORUS2D,   /* dims[0] x dims[1], wrap-around */
    UP_TOPO_TORUS3D,   /* dims[0] x dims[1] x dims[2] */
    UP_TOPO_HYPERCUBE, /* hops = Hamming distance of node numbers */
    UP_TOPO_FATTREE    /* k-ary fat tree of switches, radix fat_tree_k */
} up_topology;

typedef enum up_placement {
    UP_PLACE_BLOCK,    /* ranks 0..r-1 on node 0, r..2r-1 on node 1, ... */
    UP_PLACE_CYCLIC    /* rank i on node i mod nodes */
} up_placement;

typedef enum up_barrier_algo {
    UP_BARRIER_LINEAR,        /* speedy's master-slave model, Table 1 */
    UP_BARRIER_TREE,          /* binomial gather to rank 0, binomial release */
    UP_BARRIER_DISSEMINATION  /* ceil(log2 n) rounds, rank i -> i + 2^k */
} up_barrier_algo;

/* Message-based algorithms of the other collectives. */
typedef enum up_coll_algo {
    UP_ALGO_LINEAR,             /* root sends to / receives from each in turn */
    UP_ALGO_BINOMIAL,           /* binomial tree rooted at the root */
    UP_ALGO_RECURSIVE_DOUBLING, /* log2 n pairwise exchange rounds */
    UP_ALGO_RING,               /* n-1 neighbour steps */
    UP_ALGO_PAIRWISE,           /* n-1 rounds, rank i exchanges with i +- k */
    UP_ALGO_COUNT_
} up_coll_algo;

/* Groups of MPI collective operations that share an algorithm setting. */
typedef enum up_coll_kind {
    UP_CK_BARRIER,
    UP_CK_BCAST,          /* bcast */
    UP_CK_SCATTER,        /* scatter, scatterv */
    UP_CK_GATHER,         /* gather, gatherv */
    UP_CK_REDUCE,         /* reduce */
    UP_CK_ALLREDUCE,      /* allreduce; also communicator creation/destruction */
    UP_CK_ALLGATHER,      /* allgather(v) */
    UP_CK_ALLTOALL,       /* alltoall(v/w) */
    UP_CK_REDUCE_SCATTER, /* reduce_scatter(_block) */
    UP_CK_SCAN,           /* scan, exscan */
    UP_CK_COUNT_
} up_coll_kind;

typedef struct up_machine {
    /* [processor] */
    double cpu_ratio;            /* target speed / traced speed (2: compute halves) */
    up_compute_src compute;      /* compute = auto | wall | cpu */
    up_progress_policy progress; /* progress = mpi | interrupt | polling */
    double interrupt_ns;         /* cost of handling one interrupt */
    double poll_chunk_ns;        /* polling: compute chunk length (target time) */
    double poll_ns;              /* polling: cost of one poll */
    /* [accelerator] (docs/models.md, "Devices") */
    double accel_ratio;          /* speed_ratio: target / traced accelerator speed */
    double launch_latency_ns;    /* launch or copy call to the activity's start
                                  * (-1: as measured) */
    /* [network] LogGP-style point to point:
     *   arrival = depart + send_overhead + latency + hops * per_hop + bytes * ns_per_byte
     * (node_latency_ns / node_ns_per_byte between ranks on the same node) */
    double latency_ns;           /* L between nodes */
    double ns_per_byte;          /* G (bandwidth_gbs = 1 / ns_per_byte sets it too) */
    double per_hop_ns;           /* H, times the topology's hop count */
    double node_latency_ns;      /* L within a node (shared memory) */
    double node_ns_per_byte;     /* G within a node */
    double send_overhead_ns;     /* LogGP o at the sender (CPU busy) */
    double recv_overhead_ns;     /* LogGP o at the receiver */
    double eager_limit;          /* larger sends use rendezvous, bytes */
    bool contention;             /* one injection and one ejection link per node */
    up_topology topology;
    unsigned dims[3];            /* torus sizes (0: chosen from the node count) */
    unsigned fat_tree_k;         /* fat tree radix (nodes per leaf switch) */
    unsigned ranks_per_node;     /* placement: ranks that share a node */
    up_placement placement;
    /* [barrier] speedy Table 1 (used by the linear algorithm) */
    up_barrier_algo barrier;     /* barrier = linear | tree | dissemination */
    double entry_ns;             /* EntryTime: each process entering */
    double exit_ns;              /* ExitTime: each process leaving */
    double check_ns;             /* CheckTime: master checks for all arrived */
    double exit_check_ns;        /* ExitCheckTime: slave checks for release */
    double model_ns;             /* ModelTime: master starts lowering */
    bool barrier_by_msgs;        /* BarrierByMsgs: arrival/release are messages */
    double barrier_msg_size;     /* BarrierMsgSize, bytes */
    /* [collectives] */
    up_coll_algo algo[UP_CK_COUNT_]; /* bcast = binomial, ... (barrier unused) */
    double reduce_ns_per_byte;   /* combining cost of reductions */
} up_machine;

/* Defaults: the traced machine itself (cpu_ratio 1, zero-cost network is
 * NOT assumed: see docs/machine.md for every default). */
void up_machine_init(up_machine *m);
/* Reads an INI file; keys it holds replace those in *m.  Unknown sections or
 * keys, bad values: an error naming the file, line and key. */
up_status up_machine_load(const char *path, up_machine *m, up_err *err);
/* Same, from text; `what` names it in errors. */
up_status up_machine_parse(const char *text, const char *what, up_machine *m, up_err *err);
/* One "key=value" (--set); the key may be written "section.key". */
up_status up_machine_set(up_machine *m, const char *assignment, up_err *err);
/* Sets key to a number (sweeps); error if the key is not numeric. */
up_status up_machine_set_num(up_machine *m, const char *key, double v, up_err *err);
/* Every numeric parameter in its range (docs/machine.md): for models built
 * by code rather than read; UP_EUSAGE names the first one that is not. */
up_status up_machine_check(const up_machine *m, up_err *err);
/* The values a numeric parameter may take (docs/machine.md), for --sweep;
 * NULL if `key` is unknown or not numeric.  For bandwidth_gbs, its GB/s. */
const up_range *up_machine_range(const char *key);
/* Reads a numeric parameter (NAN if unknown or not numeric). */
double up_machine_get_num(const up_machine *m, const char *key);
/* One parameter as up_machine_write writes it. */
typedef struct up_machine_param {
    const char *section;  /* "network" */
    const char *key;      /* "latency_ns" */
    const char *doc;      /* the comment written before it */
    char value[64];       /* "1500", "yes", "binomial", "auto", "4x4" */
    enum { UP_MPARAM_NUM, UP_MPARAM_BOOL, UP_MPARAM_WORD } kind;
    double num;           /* UP_MPARAM_NUM: the value; BOOL: 1 or 0 */
} up_machine_param;
/* The i-th parameter of m (i from 0) in the order up_machine_write writes
 * them, section by section (bandwidth_gbs, another way to set ns_per_byte,
 * is not one); false past the last.  The machine's keys and values without
 * writing and reading INI. */
bool up_machine_param_at(const up_machine *m, size_t i, up_machine_param *p);
/* Writes every parameter as INI (sections and all keys), loadable again. */
int up_machine_write(FILE *f, const up_machine *m);

/* Node of an MPI rank by the placement (nranks: ranks in the run). */
unsigned up_machine_node_of(const up_machine *m, long rank, unsigned nranks);
/* Hops between two nodes in the topology (0 if the same node); nnodes is
 * the number of nodes in use (sizes a torus whose dims are 0). */
unsigned up_machine_hops(const up_machine *m, unsigned a, unsigned b, unsigned nnodes);

/* The directed links between switches or nodes that a message from node a
 * to node b shares with other traffic (contention), by dimension-order
 * routing: ring and torus the shorter way (+ on a tie), first dimension
 * first; hypercube the lowest differing bit first; none for full and fat
 * tree (full bisection: only the nodes' own links).  Writes up to cap link
 * ids to links and returns how many the route has (= the hops for ring,
 * torus and hypercube). */
unsigned up_machine_route(const up_machine *m, unsigned a, unsigned b, unsigned nnodes,
                          uint64_t *links, unsigned cap);

const char *up_coll_kind_name(up_coll_kind k);   /* "bcast", ... */
const char *up_coll_algo_name(up_coll_algo a);   /* "binomial", ... */
const char *up_barrier_algo_name(up_barrier_algo a);

#endif /* UNPERTURB_MACHINE_H */
