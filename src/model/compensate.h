/*
 * compensate.h - the overhead compensation model of Wolf, Malony, Shende and Morris
 * (trace-overhead-compensation-kojak.md, Section 3) with the communication
 * model of Sarukkai and Malony (spmd-perturbation-analysis.md, Section 3.3),
 * as a replay model (replay.h), and its parameters.
 *
 * Place in the data flow: the engine asks it for the approximated time of
 * every record.  Every formula, its source and every choice the papers leave
 * open are documented in docs/models.md.
 */
#ifndef UNPERTURB_COMPENSATE_H
#define UNPERTURB_COMPENSATE_H

#include "replay/replay.h"
#include "trace/calib.h" /* up_rk, up_calib, UP_LOC_OVH_MAX */

typedef enum up_mode {
    UP_MODE_LOWER,   /* eq. (9): communication no faster than two copies */
    UP_MODE_UPPER,   /* eq. (10): measured send-to-receive time */
    UP_MODE_NETWORK  /* Sarukkai: C_a = S + n*gamma + h*H, MAX of both cases */
} up_mode;

typedef enum up_collective {
    UP_COLLECTIVE_INDIVIDUAL, /* eq. (13) */
    UP_COLLECTIVE_SHARED      /* eq. (12) */
} up_collective;

/* The record kinds with an O of their own (up_rk) and their names are the
 * calibration format's (trace/calib.h). */
up_rk up_rk_of(unsigned ev_kind);                /* record kind -> O class */
const char *up_mode_name(up_mode m);
const char *up_collective_name(up_collective c);

#define UP_DEFAULT_EAGER_LIMIT 4096 /* Open MPI's shared-memory eager limit */
#define UP_DEFAULT_SPIN_GAP_NS 10.0 /* on average over a spin (docs/models.md, "Polling") */

typedef struct up_comp_params {
    up_mode mode;
    up_collective collective;
    double overhead_ns[UP_RK_COUNT];   /* O per record kind */
    /* C(size): per-byte copy time as a table over message size (linear
     * interpolation, constant beyond the ends); one point = constant. */
    size_t ncopy;
    uint64_t copy_bytes[UP_COPY_POINTS];
    double copy_ns_per_byte[UP_COPY_POINTS];
    /* network mode, Sarukkai's C_a = S + n*gamma + h*H */
    double latency_ns;       /* S */
    double ns_per_byte;      /* gamma */
    double per_hop_ns;       /* H; h = 0 within a node, 1 between nodes */
    bool network_set;        /* any of the three given */
    /* [network_by_size]: the one-way time of a message by size, copies at
     * both ends included, as the calibration's ping-pong measured it over
     * the sizes (and so the protocols: eager, rendezvous, single-copy).
     * When given, network mode takes it as the whole transfer 2C + C_a
     * (linear between points, the last slope beyond them). */
    size_t nnet;
    uint64_t net_bytes[UP_NET_POINTS];
    double net_ns[UP_NET_POINTS];
    /* sends of more bytes than this are synchronous (rendezvous): they
     * complete only after the receive was posted, like MPI_Ssend */
    double eager_limit;
    bool eager_set;
    up_wildcard wildcard;    /* matching of wildcard receives (replay.h) */
    up_replies replies;      /* ... and where replies to them go */
    up_rdv_progress progress; /* when a rendezvous transfer moves (replay.h) */
    /* polling (docs/models.md, "Polling") */
    up_polls polls;          /* UP_POLLS_MODEL (default) or UP_POLLS_LOCAL */
    double test_ns;          /* one failed MPI_Test without the tracer ([network]
                              * test_ns, measured by the calibration); 0: the
                              * spin's shortest measured poll less its O */
    double spin_gap_ns;      /* most program time between two polls of a spin
                              * (default UP_DEFAULT_SPIN_GAP_NS) */
    bool overhead_set;       /* any O given */
    bool copy_set;
    /* the range of O inside a program ([overhead_low], [overhead_high] of a
     * calibration): the bounds' modes use it (up_comp_params_resolve) */
    double overhead_low_ns[UP_RK_COUNT];
    double overhead_high_ns[UP_RK_COUNT];
    bool range_set;
    int overhead_end;        /* after resolve: -1 low, +1 high, 0 nominal O */
    /* [overhead_by_location]: ns every record of a location cost beyond O
     * (the tracer's --extra-ns spins that took longer in the run) */
    size_t nloc_ovh;
    uint64_t loc_ovh_id[UP_LOC_OVH_MAX];
    double loc_ovh_ns[UP_LOC_OVH_MAX];
    /* use the archive's stall lists: the intervals the unperturb tracer's
     * --extra-ns spins were stalled past their deadline, removed where they
     * lie (docs/tracer.md; read through up_trace_stalls_open).  Set with the
     * archive's calibration, cleared by an O from the command line. */
    bool archive_stalls;
} up_comp_params;

void up_comp_params_init(up_comp_params *p);
/* One overhead O for every record kind (--overhead-ns). */
void up_comp_params_set_overhead(up_comp_params *p, double ns);

/* The command line's values, the last source of parameters (docs/
 * calibration.md, "Where values come from, in order of precedence": the
 * archive, then --calibration, then these; up_run_params applies them in
 * that order).  A field not given (a negative number, a false *_set) leaves
 * the value an earlier source gave. */
#define UP_CLI_MAX_OVERHEAD 32
typedef struct up_comp_cli {
    size_t noverhead;              /* --overhead-ns, in the order given */
    struct {
        bool all;                  /* every kind, else `kind` */
        up_rk kind;
        double ns;
    } overhead[UP_CLI_MAX_OVERHEAD];
    double copy_ns_per_byte, latency_ns, ns_per_byte, per_hop_ns, eager_limit;
    double test_ns, spin_gap_ns;
    bool mode_set, collective_set, wildcard_set, polls_set, replies_set, progress_set;
    up_mode mode;
    up_collective collective;
    up_wildcard wildcard;
    up_polls polls;
    up_replies replies;
    up_rdv_progress progress;
} up_comp_cli;

void up_comp_cli_init(up_comp_cli *c);
/* --overhead-ns N for every kind (false: too many given) */
bool up_comp_cli_overhead(up_comp_cli *c, double ns);
/* Applies *c over *p.  An O given on the command line drops what came
 * with the calibration's O: its range, the per-location costs and the stall
 * lists. */
void up_comp_params_apply_cli(up_comp_params *p, const up_comp_cli *c);
/* Once the mode is final: --mode lower removes the high end of the range
 * of O, --mode upper the low end (overhead_ns becomes that end); network
 * mode and parameters without a range keep the nominal O. */
void up_comp_params_resolve(up_comp_params *p);
/* A calibration over *p: the values it gives replace those in *p, with the
 * rules of docs/calibration.md (kinds that default to others, a range that
 * must hold O and goes with an [overhead] of its own, per-location costs
 * measured against the O they came with, a table that stated S or gamma
 * replace).  `what` names the source in errors. */
up_status up_calibration_apply(up_comp_params *p, const up_calib *c, const char *what, up_err *err);
/* Reads a calibration file (INI, docs/calibration.md) over *p
 * (up_calib_load, then up_calibration_apply).  Errors name the file, line
 * and key. */
up_status up_calibration_load(const char *path, up_comp_params *p, up_err *err);
/* Same, from INI text (an archive property); `what` names it in errors. */
up_status up_calibration_parse(const char *text, const char *what,
                               up_comp_params *p, up_err *err);
/* Copy time C(size(msg)) * size(msg) in ns. */
double up_copy_ns(const up_comp_params *p, uint64_t bytes);
/* The [network_by_size] time of a `bytes` message (ns); -1 without a table. */
double up_net_ns(const up_comp_params *p, uint64_t bytes);

/* The tracer's overhead O a record adds after its timestamp, in ticks,
 * looked up by record kind (both replay models remove it).  A BufferFlush
 * costs its whole duration instead; the Enter and Leave of a user region
 * (UP_REGION_USER) and of a poll region (UP_REGION_POLL) have kinds of
 * their own. */
typedef struct up_ovh_table {
    uint64_t kind[UP_EV_COUNT_];
    uint64_t fn[2];              /* Enter, Leave of a user region */
    uint64_t poll[2];            /* Enter, Leave of a poll region */
} up_ovh_table;

/* From the ns of p->overhead_ns, rounded to ticks. */
void up_ovh_table_init(up_ovh_table *t, const up_comp_params *p, double ticks_per_ns);

/* O of a record of `kind` other than a BufferFlush; rflags: UP_REGION_* of
 * an Enter/Leave's region. */
static inline uint64_t up_ovh_of_region(const up_ovh_table *t, unsigned kind, unsigned rflags)
{
    if ((kind == UP_EV_Enter || kind == UP_EV_Leave) && (rflags & (UP_REGION_USER | UP_REGION_POLL)))
        return (rflags & UP_REGION_USER) ? t->fn[kind == UP_EV_Leave] : t->poll[kind == UP_EV_Leave];
    return t->kind[kind];
}

static inline uint64_t up_ovh_of(const up_ovh_table *t, const up_event *ev)
{
    if (ev->kind == UP_EV_BufferFlush)
        return ev->u.BufferFlush.stopTime > ev->time ? ev->u.BufferFlush.stopTime - ev->time : 0;
    return up_ovh_of_region(t, ev->kind, ev->rflags);
}

/* ---- the models' repairs ----------------------------------------------------- */
/* What compensation and simulation repaired or limited beyond the engine's
 * own repairs (replay.h, UP_REPAIRS), declared to the engine through
 * up_model_ops.repair_kinds.  One list for both models: a JSON report lists
 * every kind, zero or not, so that the two reports name the same keys.
 * name, description, 1 = an inconsistency of the measured trace that was
 * repaired (0 = a limit the model applied), the engine kind reports list it
 * before (up_repair_kind.before) */
#define UP_MODEL_REPAIRS(X)                                                                     \
    X(clock_condition, "messages received (measured) before send + minimum transfer time", 1,   \
      unmatched_recv)                                                                           \
    X(collective_clock, "collective exits measured before the last member entered", 1,          \
      decreasing_time)                                                                          \
    X(min_transfer, "approximated receives raised to send + minimum transfer time", 0,          \
      output_clamped)                                                                           \
    X(overhead_clamped, "gaps shorter than the overhead to remove from them", 0, output_clamped) \
    X(transfer_capped, "modelled transfers longer than measured, cut to the measurement (network constants slower than these messages)", 0, \
      progress_unknown)                                                                         \
    X(overhead_history, "overhead sums reaching past the 4096 records remembered per location (bounded, docs/models.md)", 0, \
      progress_unknown)                                                                         \
    X(progress_waited, "rendezvous sends timed from their receiver's entry into MPI after its post (no asynchronous progress, docs/models.md)", 0, \
      progress_unknown)

typedef enum up_model_repair {
#define UP_X_(name, text, fix, before) UP_MR_##name,
    UP_MODEL_REPAIRS(UP_X_)
#undef UP_X_
    UP_MR_COUNT
} up_model_repair;

extern const up_repair_kind up_model_repair_kinds[UP_MR_COUNT];

typedef struct up_comp up_comp;

/* The model for archive `t` (its definitions; with p->archive_stalls, its
 * stall lists too). */
up_status up_comp_new(const up_comp_params *p, up_trace *t, up_comp **out, up_err *err);
void up_comp_free(up_comp *c);
const up_model_ops *up_comp_ops(void);
/* Overhead removed on location `loc`, ticks. */
uint64_t up_comp_removed(const up_comp *c, size_t loc);
/* Stalls of the tracer's spins found in the archive's stall lists, and their
 * time in ticks, removed so far (over all locations); lists that ended at a
 * damaged entry. */
void up_comp_stalls(const up_comp *c, uint64_t *count, uint64_t *ticks, uint64_t *damaged);

#endif /* UNPERTURB_COMPENSATE_H */
