/*
 * estimate.h - the quick time-based perturbation models of Malony and Reed
 * (models-for-perturbation-analysis.md, Section 3), without a replay.
 *
 * Place in the data flow: OTF2 archive --up_trace_open--> one stream per
 * location --up_estimate_run--> counts of records by overhead kind inside
 * the run-time window --> the metrics of Section 2.2 (DP, T_a; AE) under the
 * four models of Section 3:
 *   3.1.1 sequential total time   T_a = T_m - alpha*N
 *   3.1.2 concurrent total time   T_a = T_m - DP^s - alpha*N_max
 *   3.2.1 sequential event time   t_a(e_i) = t_m(e_i) - (i-1)*alpha   eq. (2)
 *   3.2.2 concurrent event time   t_a(e_k^i) = t_m(e_k^i) - t_m(e_j^s)
 *                                              + t_a(e_j^s) - alpha*c_k^i
 * docs/models.md ("Quick estimates without replay") maps the paper's
 * sequential and concurrent events onto an MPI trace and says when the
 * models are wrong: they assume independent threads, so they ignore waiting
 * and causality, which is what the replay is for.
 *
 * One pass over all streams, merged in measured-time order (a heap of the
 * locations' next records): memory grows with the number of locations, not
 * with the trace's length.  The library never prints.
 */
#ifndef UNPERTURB_ESTIMATE_H
#define UNPERTURB_ESTIMATE_H

#include "model/compensate.h"

typedef enum up_estimate_model {
    UP_ESTIMATE_SEQ_TOTAL,   /* Section 3.1.1 */
    UP_ESTIMATE_CONC_TOTAL,  /* Section 3.1.2 */
    UP_ESTIMATE_SEQ_EVENT,   /* Section 3.2.1, eq. (2) */
    UP_ESTIMATE_CONC_EVENT,  /* Section 3.2.2 */
    UP_ESTIMATE_COUNT
} up_estimate_model;

const char *up_estimate_model_name(unsigned m);    /* "sequential_total", ... (JSON) */
const char *up_estimate_model_title(unsigned m);   /* "sequential total time", ... */
const char *up_estimate_model_section(unsigned m); /* "3.1.1", ... */
const char *up_estimate_model_formula(unsigned m); /* "T_a = T_m - alpha N", ... */

/* What every text that shows a negative T_a says beside it (estimate,
 * report, report.html): the estimate is the model's, not a run time. */
#define UP_ESTIMATE_NEGATIVE_NOTE                                                                     \
    "  note         a negative T_a is the model's figure, not a run time: it removes more "   \
    "overhead than the window lasted (the records' O exceeds the time between them; the "     \
    "sequential models also add up every location's records)"

/* Records and direct perturbation inside an interval of measured time. */
typedef struct up_estimate_tally {
    uint64_t n[UP_RK_COUNT]; /* records whose cost is their kind's O */
    uint64_t n_measured;     /* records whose cost was measured instead:
                              * BufferFlush records and the records of
                              * overhead regions ("TRACE BUFFER FLUSH", ...) */
    uint64_t measured_ticks; /* that measured cost: flush durations and
                              * overhead-region spans */
} up_estimate_tally;

/* One model's answer. */
typedef struct up_estimate_value {
    double approximated_s;   /* T_a(P) */
    double dp_s;             /* DP = DP^s + DP^c removed along its critical path */
    double dp_seq_s;         /* DP^s (the concurrent models: 0, see docs/models.md) */
    double dp_conc_s;        /* DP^c */
    uint64_t records;        /* the N (N_max, i-1, c_k^i) the model multiplies */
    long critical;           /* location index of the critical path, or -1 */
} up_estimate_value;

typedef struct up_estimate_loc {
    OTF2_LocationRef id;
    long rank;               /* UP_NO_RANK if none */
    up_loc_kind kind;        /* what it is (up_loc_def.kind) */
    uint32_t process;        /* its process, UP_NO_PROCESS if none */
    const char *name;        /* points into the definitions */
    uint64_t records_total;  /* every record of the location */
    bool started;            /* has records */
    bool has_window_end;     /* ended by its Enter(MPI_Finalize) */
    bool counts_for_end;     /* its end is a candidate for the window end (as
                              * in the replay: a location without
                              * MPI_Finalize does not count when others have it) */
    uint64_t end_m;          /* ticks: its end (MPI_Finalize's Enter, else its
                              * latest record) */
    double measured_s;       /* T_m(P_i) = end_i - window start (0 if before) */
    up_estimate_tally own;        /* its records in [window start, end_i) */
    up_estimate_tally all;        /* every location's records in [start, end_i) */
    uint64_t records;        /* |tau^i|: records in `own` */
    double dp_s;             /* DP of `own` */
    double dp_all_s;         /* DP of `all` */
    double seq_event_end_s;  /* eq. (2) at its end: T_m(P_i) - DP(all) */
    double conc_event_end_s; /* Section 3.2.2 at its end: T_m(P_i) - DP(own) */
} up_estimate_loc;

typedef struct up_estimate {
    uint64_t resolution;     /* ticks per second */
    bool window_marked;      /* MPI_Init and MPI_Finalize found */
    uint64_t start_m, end_m; /* the window, ticks */
    double measured_s;       /* T_m(I(P)) */
    up_estimate_tally window;     /* every record in [start, end) */
    uint64_t records;        /* N: records in the window */
    uint64_t records_total;  /* every record read */
    double measured_ovh_s;   /* flush and overhead-region time in the window */
    double alpha_ns;         /* mean O of the window's records (their O summed
                              * over their number; measured-cost records
                              * excluded) */
    up_estimate_value model[UP_ESTIMATE_COUNT];
    size_t nlocs;
    up_estimate_loc *locs;
    uint64_t decreasing_time;   /* timestamps that went backwards on a location */
    uint64_t unknown_records;   /* records OTF2 could not decode */
} up_estimate;

/* Reads every stream of `t` once (the trace is used up: open it again for a
 * replay) and fills *out (free with up_estimate_free).  The overhead of a
 * record is p->overhead_ns of its kind (up_rk_of; fn_enter/fn_leave for the
 * program's own regions), as in the replay. */
up_status up_estimate_run(up_trace *t, const up_comp_params *p, up_estimate *out,
                          up_err *err);
void up_estimate_free(up_estimate *e);

/* DP of a tally, seconds: the sum of its records' O plus the measured cost. */
double up_estimate_tally_dp_s(const up_estimate *e, const up_comp_params *p,
                         const up_estimate_tally *t);

/* What the text and the JSON of `unperturb estimate` describe
 * (src/report/estimate_report.c); replay may be NULL (no --compare). */
typedef struct up_estimate_report {
    const char *input;               /* as given by the user */
    const char *params_source;       /* where the overheads came from */
    const up_comp_params *params;
    const up_estimate *est;
    const up_replay_result *replay;  /* the replay's window, lower mode */
} up_estimate_report;

/* Relative error |T_a - T_replay| / T_replay of model m (NAN without a
 * replay or when T_replay is 0). */
double up_estimate_error(const up_estimate_report *r, unsigned m);
/* T_a of the replay, seconds (NAN without one). */
double up_estimate_replay_s(const up_estimate_report *r);

#endif /* UNPERTURB_ESTIMATE_H */
