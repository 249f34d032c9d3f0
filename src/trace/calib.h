/*
 * calib.h - the calibration format (docs/calibration.md): the INI text of
 * the platform constants compensation needs.  The unperturb tracer measures
 * them inside MPI_Init and `unperturb calibrate` runs the same measurement
 * (src/tracer/calib.c); the merge stores the text in the archive property
 * UP_CALIB_PROPERTY with [overhead_by_location] appended (merge.c); the
 * commands read it from there and from --calibration files, and the model
 * turns what they read into its parameters (src/model/calibration.c).
 *
 * Place in the data flow: beside the reader, as the stall lists are
 * (stalls.c).  Only src/trace knows the sections, the keys and the property:
 * calib.c names them and writes the text (plain libc: it is linked into the
 * tracer, which has no util), calib_read.c parses text into an up_calib,
 * plain data that says what the text gave and nothing of what it means.
 */
#ifndef UNPERTURB_TRACE_CALIB_H
#define UNPERTURB_TRACE_CALIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

/* The archive property that holds the calibration of a traced run. */
#define UP_CALIB_PROPERTY "UNPERTURB::CALIBRATION"

/* Record kinds with their own per-record overhead O: the keys of
 * [overhead], [overhead_low] and [overhead_high], in the order the tracer
 * writes them. */
typedef enum up_rk {
    UP_RK_ENTER,
    UP_RK_LEAVE,
    UP_RK_SEND,
    UP_RK_RECV,
    UP_RK_COLL_BEGIN,
    UP_RK_COLL_END,
    UP_RK_OTHER,
    UP_RK_METRIC,    /* Metric records (the tracer's --cpu-time); defaults to other */
    UP_RK_FN_ENTER,  /* Enter of a UP_REGION_USER region (function hooks, manual
                      * regions); defaults to enter */
    UP_RK_FN_LEAVE,  /* its Leave; defaults to leave */
    UP_RK_POLL_ENTER, /* Enter of a UP_REGION_POLL region (MPI_Test*, MPI_Iprobe,
                       * MPI_Improbe: thin wrappers, called in dense loops);
                       * defaults to enter */
    UP_RK_POLL_LEAVE, /* its Leave; defaults to leave */
    UP_RK_THREAD,    /* ThreadCreate/Begin/Wait/End, ThreadFork/Join, ThreadTeamBegin/End;
                      * defaults to other */
    UP_RK_LOCK,      /* ThreadAcquireLock/ReleaseLock (and OpenMP's older
                      * OmpAcquireLock/OmpReleaseLock); defaults to other */
    UP_RK_COUNT
} up_rk;

const char *up_rk_name(unsigned rk);             /* "enter", "leave", ... */
bool up_rk_parse(const char *name, up_rk *out);
/* "enter, leave, ..., thread or lock" into buf (for error messages) */
void up_rk_list(char *buf, size_t cap);

/* The sections, in the order error messages list them. */
enum {
    UP_CS_OVERHEAD,      /* O by kind; `all` for the kinds not named */
    UP_CS_LOW,           /* [overhead_low]: the range of O, its low end */
    UP_CS_HIGH,          /* [overhead_high]: its high end */
    UP_CS_BY_LOCATION,   /* [overhead_by_location]: ns beyond O by location id */
    UP_CS_COPY,          /* C(size): ns per byte by size, or ns_per_byte */
    UP_CS_NETWORK,       /* the keys UP_CN_* */
    UP_CS_BY_SIZE,       /* [network_by_size]: one-way ns by message size */
    UP_CS_INFO,          /* provenance, keys UP_CI_*: text, not used */
    UP_CS_COUNT
};
/* The keys of [network], in the order error messages list them. */
enum {
    UP_CN_LATENCY,       /* latency_ns: S */
    UP_CN_NS_PER_BYTE,   /* gamma */
    UP_CN_PER_HOP,       /* per_hop_ns: H */
    UP_CN_EAGER_LIMIT,   /* bytes */
    UP_CN_SEND_OVERHEAD, /* LogGP's o of a send, for simulate's machine files */
    UP_CN_RECV_OVERHEAD, /* ... and of a receive */
    UP_CN_TEST,          /* test_ns: one failed MPI_Test without the tracer */
    UP_CN_COUNT
};
/* The keys of [info]. */
enum { UP_CI_HOST, UP_CI_DATE, UP_CI_MODE, UP_CI_RANKS, UP_CI_EXTRA_NS, UP_CI_COUNT };

extern const char *const up_calib_sections[UP_CS_COUNT];
extern const char *const up_calib_net_keys[UP_CN_COUNT];
extern const char *const up_calib_info_keys[UP_CI_COUNT];
/* The n names as "a, b, c" with `last` before the last one (", " or
 * " or "), each between `open` and `close` ("[" "]" for sections). */
void up_calib_list(char *buf, size_t cap, const char *const *names, unsigned n, const char *open,
                   const char *close, const char *last);

#define UP_COPY_POINTS 64   /* [copy] */
#define UP_NET_POINTS 32    /* [network_by_size] */
/* At most this many locations in [overhead_by_location]; the merge leaves
 * the section out of a run with more ranks */
#define UP_LOC_OVH_MAX 1024

/* What a calibration's text gives: each value with whether it was given.
 * Tables are sorted by size. */
typedef struct up_calib {
    bool o_given[UP_RK_COUNT];      /* [overhead] */
    double o_ns[UP_RK_COUNT];
    bool all_given;                 /* [overhead] all */
    double all_ns;
    bool low_given[UP_RK_COUNT];    /* [overhead_low] */
    double low_ns[UP_RK_COUNT];
    bool high_given[UP_RK_COUNT];   /* [overhead_high] */
    double high_ns[UP_RK_COUNT];
    bool net_given[UP_CN_COUNT];    /* [network] */
    double net[UP_CN_COUNT];
    size_t ncopy;                   /* [copy]; ns_per_byte is size 0 */
    uint64_t copy_bytes[UP_COPY_POINTS];
    double copy_ns_per_byte[UP_COPY_POINTS];
    size_t nnet;                    /* [network_by_size] */
    uint64_t net_bytes[UP_NET_POINTS];
    double net_ns[UP_NET_POINTS];
    bool loc_given;                 /* [overhead_by_location] has an entry */
    size_t nloc;
    uint64_t loc_id[UP_LOC_OVH_MAX];
    double loc_ns[UP_LOC_OVH_MAX];
} up_calib;

/* ---- writing (calib.c) ------------------------------------------------------- */

/* The [info] of a measurement, and how long it took. */
typedef struct up_calib_info {
    const char *host, *date, *mode; /* mode: "fast" or "thorough" */
    int ranks;
    unsigned long long extra_ns;
    double took_ms;
} up_calib_info;

/* The text of a measurement into buf (cap bytes): [info], [overhead],
 * [overhead_low], [overhead_high], [copy], [network] and, when it has
 * points, [network_by_size] of *c, and a last comment with its duration.
 * 0, or -1 when it does not fit. */
int up_calib_write(char *buf, size_t cap, const up_calib *c, const up_calib_info *info);
/* `text` (malloc'ed) with [overhead_by_location] of the n locations
 * appended: id[i] cost ns[i] more per record.  Frees text; NULL when out
 * of memory. */
char *up_calib_add_by_location(char *text, size_t n, const uint64_t *id, const double *ns);

/* ---- reading (calib_read.c) -------------------------------------------------- */

/* Parses INI text into *c; `what` names it in errors ("FILE:LINE: [section]
 * ...": a file's path, or "the calibration stored in 'ANCHOR'"). */
up_status up_calib_parse(const char *text, const char *what, up_calib *c, up_err *err);
/* The same from the file at path (a regular file of at most 1 MiB). */
up_status up_calib_load(const char *path, up_calib *c, up_err *err);

#endif
