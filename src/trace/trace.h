/*
 * trace.h - OTF2 archives in and out: definitions, per-location event streams
 * with lookahead, and a writer that carries every record over.
 *
 * Place in the data flow:
 *   OTF2 archive --up_trace_open--> definitions + one up_stream per location
 *   replay engine --up_writer_event (or up_stream_direct's direct path, which
 *   writes through the same writer)--> new OTF2 archive (same records, new
 *   timestamps), closed by up_writer_close, which copies every global
 *   definition of the input, writes fresh ClockProperties and the attributes
 *   added with up_writer_attr.
 *
 *   the archive's side files (the tracer's stall lists) --up_trace_stalls_open-->
 *   the compensate model: only this layer knows where and how they are stored.
 *
 * Memory: a stream holds a ring of decoded records (grown only as far as a
 * model looks ahead) plus OTF2's own chunk buffers; the writer holds at most
 * two OTF2 chunks per location.  Nothing holds a whole trace.
 *
 * Clock offsets and mapping tables of the local definitions are applied once,
 * by OTF2's reader; the records a stream delivers carry global ids and
 * synchronised timestamps, so the writer writes no mapping tables and no
 * clock offsets.
 */
#ifndef UNPERTURB_TRACE_H
#define UNPERTURB_TRACE_H

#include <otf2/otf2.h>

#include "trace/otf2_records.h"
#include "util/util.h"

/* ---- event records ------------------------------------------------------ */

typedef enum up_ev_kind {
#define UP_X_(K) UP_EV_##K,
    UP_OTF2_EVENTS(UP_X_)
#undef UP_X_
    UP_EV_COUNT_
} up_ev_kind;

/* One struct per kind, fields named as in the OTF2 API.  Array fields point
 * into storage owned by the stream slot. (unused_ keeps field-less kinds
 * legal C.) */
#define UP_FIELD_(t, n) t n;
#define UP_ARRAY_(t, n, c) t *n;
#define UP_X_(K) struct up_evf_##K { char unused_; UP_EVF_##K(UP_FIELD_, UP_ARRAY_) };
UP_OTF2_EVENTS(UP_X_)
#undef UP_X_
#undef UP_FIELD_
#undef UP_ARRAY_

typedef struct up_attr {
    OTF2_AttributeRef id;
    OTF2_Type type;
    OTF2_AttributeValue value;
} up_attr;

typedef struct up_event {
    uint64_t time;      /* measured timestamp (clock offsets applied), ticks */
    uint64_t t_out;     /* timestamp to write, set by the replay model */
    up_attr *attrs;     /* attribute list of the record, nattrs entries */
    uint32_t nattrs;
    uint16_t kind;      /* up_ev_kind */
    uint8_t rflags;     /* UP_REGION_* of an Enter/Leave's region (set by the
                         * replay engine before the model sees the record) */
    union {
#define UP_X_(K) struct up_evf_##K K;
        UP_OTF2_EVENTS(UP_X_)
#undef UP_X_
    } u;
    /* storage for attrs and array fields; owned by the ring slot (neither
     * attrs nor xbuf are set on the direct path, see up_stream_direct) */
    unsigned char *xbuf;
    size_t xcap;
} up_event;

/* The tracer's marks of the analysis window of a program traced without
 * MPI (src/tracer/life.c): overhead regions whose Leave (UP_WINDOW_BEGIN)
 * opens the window as MPI_Init's does and whose Enter (UP_WINDOW_END)
 * closes it as MPI_Finalize's; defs.c gives them those regions' flags. */
#define UP_WINDOW_BEGIN "UNPERTURB window begin"
#define UP_WINDOW_END "UNPERTURB window end"

/* "MpiSend", "Enter", ... */
const char *up_ev_kind_name(unsigned kind);

/* ---- definitions -------------------------------------------------------- */

enum {
    UP_REGION_MPI_INIT = 1u << 0,     /* MPI_Init, MPI_Init_thread */
    UP_REGION_MPI_FINALIZE = 1u << 1, /* MPI_Finalize */
    UP_REGION_OVERHEAD = 1u << 2,     /* measurement overhead: removed whole */
    UP_REGION_USER = 1u << 3,         /* the program's own code (paradigm COMPILER or
                                       * USER): its Enter/Leave are kinds fn_enter/fn_leave */
    UP_REGION_SSEND = 1u << 4,        /* MPI_Ssend, MPI_Issend: synchronous sends */
    UP_REGION_MPI = 1u << 5,          /* an MPI call (paradigm MPI, or named MPI_*) */
    UP_REGION_POLL = 1u << 6,         /* MPI_Test, _Testany, _Testsome, _Testall, MPI_Iprobe,
                                       * MPI_Improbe: kinds poll_enter/poll_leave */
    UP_REGION_NOWAIT = 1u << 7,       /* MPI calls that start a transfer or ask a value and
                                       * never wait for a message: MPI_Isend, MPI_Irecv, MPI_Send,
                                       * MPI_Comm_rank, ... (docs/models.md, "Polling") */
    /* the flags above travel with every Enter and Leave (up_event.rflags);
     * those below only with the region's definition (up_region_def.flags) */
    UP_REGION_EVENT_MASK = 0xffu,
    UP_REGION_PROBE = 1u << 8,        /* MPI_Iprobe, MPI_Improbe */
    UP_REGION_COLL = 1u << 9,         /* a blocking collective (the call table's class coll) */
    UP_REGION_WIN_POST = 1u << 10,    /* MPI_Win_post: RMA's general active target */
    UP_REGION_WIN_START = 1u << 11,   /* MPI_Win_start */
    UP_REGION_WIN_COMPLETE = 1u << 12, /* MPI_Win_complete */
    UP_REGION_WIN_WAIT = 1u << 13,    /* MPI_Win_wait, MPI_Win_test */
    /* threads and devices (docs/models.md, "Hybrid programs"): regions whose
     * Enter or Leave depends on other locations of the process */
    UP_REGION_OMP_BARRIER = 1u << 14, /* an OpenMP team barrier: role BARRIER or
                                       * IMPLICIT_BARRIER, paradigm OPENMP */
    UP_REGION_OMP_PARALLEL = 1u << 15,/* an OpenMP parallel region (role PARALLEL) */
    UP_REGION_OMP_TASKWAIT = 1u << 16,/* taskwait (role TASK_WAIT, paradigm OPENMP) */
    UP_REGION_DEV_LAUNCH = 1u << 17,  /* a device call that enqueues work on a stream
                                       * and returns: cuLaunchKernel, cudaLaunchKernel,
                                       * cuMemcpy*Async (paradigm CUDA, by name) */
    UP_REGION_DEV_COPY = 1u << 18,    /* a blocking copy: cuMemcpy*, cudaMemcpy* (not Async) */
    UP_REGION_DEV_SYNC = 1u << 19,    /* a call that waits for the device: *Synchronize */
    UP_REGION_DEV_TARGET = 1u << 20,  /* an OpenMP target construct the device runs as a
                                       * region of the same definition: "!$omp target",
                                       * "!$omp targetmap", "!$omp targetupdate" (Score-P's
                                       * offload adapter), not "!$omp targetdata..." */
    UP_REGION_PTHREAD_BARRIER = 1u << 21, /* pthread_barrier_wait: role BARRIER, paradigm
                                           * PTHREAD (docs/tracer.md, "POSIX threads") */
    UP_REGION_OMP_MASK = UP_REGION_OMP_BARRIER | UP_REGION_OMP_PARALLEL | UP_REGION_OMP_TASKWAIT,
    UP_REGION_THREAD_MASK = UP_REGION_OMP_MASK | UP_REGION_PTHREAD_BARRIER,
    UP_REGION_DEV_MASK = UP_REGION_DEV_LAUNCH | UP_REGION_DEV_COPY | UP_REGION_DEV_SYNC |
                         UP_REGION_DEV_TARGET
};

typedef struct up_region_def {
    const char *name;
    OTF2_RegionRole role;
    OTF2_Paradigm paradigm;
    unsigned flags; /* UP_REGION_* */
} up_region_def;

#define UP_NO_RANK (-1)

/* What a location is, from its OTF2 location type (read once, in defs.c) */
typedef enum up_loc_kind {
    UP_LOC_CPU,              /* a CPU thread */
    UP_LOC_ACCELERATOR,      /* an accelerator stream (and OTF2's deprecated GPU) */
    UP_LOC_METRIC,           /* a metric location */
    UP_LOC_OTHER             /* unknown */
} up_loc_kind;

/* What its location group is, from the OTF2 location-group type */
typedef enum up_group_kind {
    UP_GROUP_PROCESS,        /* a process (and OTF2's "unknown", which older
                              * writers give their processes) */
    UP_GROUP_ACCELERATOR,    /* an accelerator, created by a process */
    UP_GROUP_NONE            /* its group is not defined */
} up_group_kind;

#define UP_NO_PROCESS UINT32_MAX

typedef struct up_loc_def {
    OTF2_LocationRef id;     /* sparse 64-bit OTF2 id */
    const char *name;
    OTF2_LocationType type;
    OTF2_LocationGroupRef group;
    uint64_t nevents;        /* as declared by the Location definition */
    long rank;               /* MPI rank of its process, or UP_NO_RANK */
    uint32_t node;           /* system-tree node of its process (hop model) */
    up_loc_kind kind;
    up_group_kind gkind;
    uint32_t process;        /* dense index of the process it belongs to (an
                              * accelerator's: its creator's), numbered in
                              * the order of their first location;
                              * UP_NO_PROCESS when its group is not defined */
} up_loc_def;

typedef struct up_comm_def {
    OTF2_CommRef id;
    const char *name;
    bool self;               /* MPI_COMM_SELF-like: rank 0 is the caller */
    bool resolved;           /* members known */
    uint32_t size;
    uint32_t *members;       /* rank -> location index */
    bool global_ranks;       /* event ranks index the COMM_LOCATIONS group */
    uint32_t *world;         /* COMM_LOCATIONS of its paradigm (global_ranks) */
    uint32_t world_size;
} up_comm_def;

typedef struct up_defs {
    uint64_t resolution;     /* ticks per second */
    uint64_t global_offset, trace_length, realtime;
    size_t nlocs;
    up_loc_def *locs;        /* dense location index 0..nlocs-1 */
    uint32_t nprocs;         /* processes: up_loc_def.process < nprocs */
    up_map loc_index;        /* OTF2 location id -> index */
    size_t nregions, ncomms;
    up_region_def *regions;  /* indexed through region_index */
    up_comm_def *comms;
    up_map region_index, comm_index, strings, groups;
    up_map wins;             /* RMA window id -> its communicator */
    /* dense id -> index tables for the hot lookups (ids are dense in
     * unified definitions; UINT32_MAX = undefined) */
    uint32_t *region_by_id, *comm_by_id;
    uint32_t nregion_ids, ncomm_ids;
    uint8_t *region_flags;   /* UP_REGION_* by region id (nregion_ids) */
    /* the tracer's thread CPU-time metric (--cpu-time): member "cpu_time" */
    bool has_cpu_member, has_cpu_metric;
    OTF2_MetricMemberRef cpu_member;
    OTF2_MetricRef cpu_metric;
    /* what was read, for the report (nothing is dropped silently) */
    uint64_t n_global_defs, n_unknown_global_defs;
    /* definitions of an id already defined (String, Attribute, Region,
     * LocationGroup, Location, Group, Comm, RmaWin): each id keeps its
     * first, and the copies are left out of every output; dup_first names
     * the first such ("Location 1") */
    uint64_t n_dup_defs;
    char dup_first[48];
    uint64_t gdefs_intact;   /* global definition records found intact (scan.h) */
    uint64_t n_local_defs, n_clock_offsets, n_mapping_tables;
    uint32_t n_snapshots, n_thumbnails; /* auxiliary files, not copied */
    char *creator;
    /* the attribute "unperturb::wildcard" (UINT8: 1 MPI_ANY_SOURCE, 2
     * MPI_ANY_TAG) our tracer puts on receives that named a wildcard */
    bool has_wildcard_attr;
    OTF2_AttributeRef wildcard_attr;
    /* "unperturb::reply" (UINT8): the tracer marked the sends whose
     * destination was the source of the last MPI_ANY_SOURCE receive */
    bool has_reply_attr;
    OTF2_AttributeRef reply_attr;
    /* the largest String and Attribute ids defined (has_*: any at all), so
     * that the writer can add definitions with fresh ones (up_writer_attr) */
    bool has_strings, has_attrs;
    OTF2_StringRef max_string;
    OTF2_AttributeRef max_attr;
    up_map attrs;            /* Attribute id -> name's String id << 8 | OTF2_Type */
} up_defs;

const up_region_def *up_defs_region_slow_(const up_defs *d, OTF2_RegionRef r);
const up_comm_def *up_defs_comm_slow_(const up_defs *d, OTF2_CommRef c);

/* The region / communicator of an id, or NULL. */
static inline const up_region_def *up_defs_region(const up_defs *d, OTF2_RegionRef r)
{
    if (r < d->nregion_ids)
        return d->region_by_id[r] == UINT32_MAX ? NULL : &d->regions[d->region_by_id[r]];
    return up_defs_region_slow_(d, r);
}

static inline const up_comm_def *up_defs_comm(const up_defs *d, OTF2_CommRef c)
{
    if (c < d->ncomm_ids)
        return d->comm_by_id[c] == UINT32_MAX ? NULL : &d->comms[d->comm_by_id[c]];
    return up_defs_comm_slow_(d, c);
}

/* UP_REGION_* flags of a region id (0 if unknown). */
static inline unsigned up_defs_region_flags(const up_defs *d, OTF2_RegionRef r)
{
    const up_region_def *rg;
    if (r < d->nregion_ids)
        return d->region_flags[r];
    rg = up_defs_region_slow_(d, r);
    return rg ? rg->flags : 0;
}
/* The attribute named `name` of that type (the lowest id of several), or false */
bool up_defs_attr(const up_defs *d, const char *name, OTF2_Type type, OTF2_AttributeRef *ref);

/* Location index of an OTF2 location id, or false. */
bool up_defs_loc_index(const up_defs *d, OTF2_LocationRef id, uint32_t *idx);

/* Location index of `rank` in communicator `c`, as seen from location
 * `self` (needed for self-like communicators).  Returns false if unknown. */
static inline bool up_defs_rank_loc(const up_defs *d, OTF2_CommRef c, uint32_t rank,
                                    uint32_t self, uint32_t *loc)
{
    const up_comm_def *cd = up_defs_comm(d, c);
    if (!cd || !cd->resolved)
        return false;
    if (cd->self) {
        *loc = self;
        return rank == 0;
    }
    if (cd->global_ranks) {
        if (rank >= cd->world_size || cd->world[rank] == UINT32_MAX)
            return false;
        *loc = cd->world[rank];
        return true;
    }
    if (rank >= cd->size)
        return false;
    *loc = cd->members[rank];
    return true;
}
/* The communicator of RMA window `win`, or false. */
bool up_defs_win_comm(const up_defs *d, OTF2_RmaWinRef win, OTF2_CommRef *comm);

/* The location indices of the members of group `g`: a group of locations,
 * or a group of ranks (COMM_GROUP, as RmaGroupSync names the processes of
 * an MPI_Group) resolved through its paradigm's COMM_LOCATIONS group.
 * Writes up to `cap` of them to `out` and returns how many there are, or
 * -1 if the group is unknown or cannot be resolved. */
long up_defs_group_locs(const up_defs *d, OTF2_GroupRef g, uint32_t *out, size_t cap);

/* ---- input archive and streams ------------------------------------------ */

typedef struct up_trace up_trace;
typedef struct up_stream up_stream;
typedef struct up_writer up_writer; /* the output archive (below) */

/* Opens `path`: an OTF2 anchor file or a directory holding traces.otf2.
 * Reads all global and local definitions and opens one stream per location.
 * Errors name the file and the problem. */
up_status up_trace_open(const char *path, up_trace **out, up_err *err);
void up_trace_close(up_trace *t);
/* Frees the streams and OTF2's reader buffers (about 2 MiB per location)
 * but keeps the definitions: afterwards only up_trace_defs, up_trace_anchor
 * and up_trace_close may be used.  For results that point into the
 * definitions while other traces are read. */
void up_trace_release_streams(up_trace *t);
const up_defs *up_trace_defs(const up_trace *t);
const char *up_trace_anchor(const up_trace *t);  /* resolved anchor path */
up_stream *up_trace_stream(up_trace *t, size_t loc);

/* The i-th buffered record of the stream (0 = next to process), reading
 * ahead as needed; *ev = NULL when the stream ends before it.  Pointers
 * stay valid until the next peek or pop on this stream. */
up_status up_stream_peek(up_stream *s, size_t i, up_event **ev, up_err *err);
void up_stream_pop(up_stream *s);
uint64_t up_stream_records(const up_stream *s); /* popped so far */
/* Value of an archive property ("NAMESPACE::NAME"), or NULL; free with up_free. */
char *up_trace_property(const up_trace *t, const char *name);
/* Records the OTF2 reader could not decode (newer OTF2 than ours). */
uint64_t up_trace_unknown_records(const up_trace *t);

/* ---- the archive's side files: stall lists (src/trace/stalls.c) ---------
 * The unperturb tracer leaves beside a location's event file the list of the
 * intervals its --extra-ns spins were stalled past their deadline
 * (docs/tracer.md, "Stalls of the spins").  Where it lies and how it is
 * stored is known here only. */
typedef struct up_stalls up_stalls;
/* The stall list of the location with OTF2 id `location_id`: *out = NULL if
 * the archive has none for it (no such file, not a regular file, empty).
 * Fails only out of memory. */
up_status up_trace_stalls_open(up_trace *t, uint64_t location_id, up_stalls **out,
                               up_err *err);
/* The next stall, measured [*start, *end) in ticks: 1.  0: the list ended
 * (its end, or it cannot be read further: what is left is not used); -1
 * (once): it ended at a damaged entry (a stall of no length, one that
 * overflows the clock, or one that starts before the last one ended), for
 * the caller to count.  After 0 or -1, 0 again; *start = *end = UINT64_MAX
 * unless 1.  `l` may be NULL (no list: 0). */
int up_stalls_next(up_stalls *l, uint64_t *start, uint64_t *end);
void up_stalls_close(up_stalls *l); /* NULL is fine */

/* ---- damage found in the input (docs/cli.md, "Damaged traces") ----------
 * Every file is checked as it is read (src/trace/scan.c); what is damaged
 * ends that file's usable part, and is listed here.  The list grows while
 * streams are read: an event file's end is known once its stream ends. */
typedef struct up_damage {
    long loc;               /* location index, or -1: the global definitions */
    char *file;             /* the damaged file */
    uint64_t offset;        /* where, in bytes from its start */
    char *what;             /* the problem, one line */
    bool events;            /* an event file (kept/declared/t_last are set) */
    uint64_t kept;          /* records read before the damage */
    uint64_t declared;      /* records its Location definition declares */
    uint64_t t_last;        /* the last timestamp kept (ticks) */
    enum {
        UP_DAMAGE_FILE,     /* the file is damaged from `offset` on */
        UP_DAMAGE_COUNT,    /* intact, but holds another number of records than declared */
        UP_DAMAGE_TIMES,    /* timestamps repaired (what says how many; reported once
                             * the location's stream is released) */
        UP_DAMAGE_DUPLICATE /* global definitions of ids defined before (kept: how
                             * many): each id keeps its first */
    } kind;
} up_damage;
size_t up_trace_ndamage(const up_trace *t);
const up_damage *up_trace_damage(const up_trace *t, size_t i);

/* A function the command installs to hear of damage as it is found (the
 * libraries never print): called once per damaged file, and once per
 * location whose timestamps were repaired, when its streams are released
 * (d->what then says how many; d->file is its event file). */
typedef void (*up_damage_hook)(void *ctx, const up_trace *t, const up_damage *d);
void up_trace_set_damage_hook(up_damage_hook fn, void *ctx);
/* The hook installed (NULL: none) and its ctx, to put back after a change. */
up_damage_hook up_trace_damage_hook(void **ctx);
/* One line for a damage entry: "'FILE': WHAT; N of M records kept, ..." */
void up_damage_line(const up_trace *t, const up_damage *d, char *buf, size_t cap);

/* Timestamps repaired on location `loc` so far: [0] running backwards,
 * [1] outside the clock properties' range, [2] spikes (a timestamp ahead
 * of those before and after it).  Each takes the time of the record before. */
void up_trace_time_repairs(const up_trace *t, size_t loc, uint64_t out[3]);

/* Direct processing: while nothing is buffered, each record read is handed
 * to fn as it is decoded (array fields point into OTF2's buffers, valid
 * during the call).  fn returns 1 if it timed the record (ev->t_out, and
 * possibly time-valued fields): the record is then written at once to `out`
 * (if not NULL: a writer opened for this stream's trace, on the stream's
 * location) with its attributes, through the writer as up_writer_event
 * writes (the same clamp, counted by up_writer_clamped); 0 to decline it (it
 * is buffered: peek(0) returns it, and reading stops); -1 on error (reading
 * stops; the caller's error context says why).  Reads at most `max` records;
 * *done = records processed by fn. */
typedef int (*up_direct_fn)(void *ctx, uint32_t loc, up_event *ev);
/* The faster form for Enter and Leave, the bulk of most traces (NULL: fn
 * takes them too): gets the record's fields (kind UP_EV_Enter or
 * UP_EV_Leave), returns 1 with *t_out set, or 0 to hand the record to fn. */
typedef int (*up_direct_region_fn)(void *ctx, uint32_t loc, unsigned kind, uint64_t t,
                                   OTF2_RegionRef region, uint64_t *t_out);
up_status up_stream_direct(up_stream *s, size_t max, up_direct_fn fn,
                           up_direct_region_fn fn_region, void *ctx,
                           up_writer *out, size_t *done, up_err *err);
/* Records buffered (decoded but not popped); true once the location's last
 * record has been read. */
size_t up_stream_buffered(const up_stream *s);
bool up_stream_at_end(const up_stream *s);

/* Lookahead limit: a model never needs more records than this ahead. */
#define UP_STREAM_MAX_LOOKAHEAD 65536

/* ---- output archive ------------------------------------------------------ */

/* Creates a new archive `dir`/traces.otf2 (`dir` is a new, empty folder,
 * usually the temporary of an output set) for the locations of `in`. */
up_status up_writer_open(const char *dir, const up_trace *in, up_writer **out,
                         up_err *err);
/* Writes `ev` on location index `loc` with timestamp ev->t_out (raised to the
 * previous one written on that location if it would decrease). */
up_status up_writer_event(up_writer *w, size_t loc, up_event *ev, up_err *err);
/* An attribute for records of the output that the input may not define:
 * the id of the input's Attribute of that name and type if it has one (the
 * lowest, if several), else a fresh id past the input's largest, whose
 * definition (and two fresh Strings, `name` and `desc`; NULL: "") is
 * written at close after the copied definitions.  Asked again for the
 * same name and type, the same id.  Records carry it through ev->attrs
 * (up_writer_event), or on the direct path through the list the caller
 * hands OTF2.  Fails only out of memory or when the input used the largest
 * ids. */
up_status up_writer_attr(up_writer *w, const char *name, const char *desc, OTF2_Type type,
                         OTF2_AttributeRef *ref, up_err *err);
/* Finishes the archive: closes event files, writes local definition files,
 * copies every global definition of `in` (ClockProperties replaced by
 * [t_min, t_max]), then the attributes of up_writer_attr, and sets
 * creator/description/properties.  `description` and `property`
 * (NAME=VALUE, may be NULL) describe what was done.  `in` is the trace the
 * writer was opened for.  Frees the writer in any case. */
up_status up_writer_close(up_writer *w, const up_trace *in, uint64_t t_min,
                          uint64_t t_max, const char *description,
                          const char *prop_name, const char *prop_value,
                          up_err *err);
/* Frees a writer after an error (the caller removes the directory). */
void up_writer_abort(up_writer *w);
/* After a failed replay into the archive (a write on the direct path of
 * up_stream_direct names only the location): when the output's file system
 * is the cause (read-only, full, quota, permission, I/O error), replaces the
 * message by "cannot write '<dir>': <the system's reason>", `dir` named by
 * up_output_name; else leaves it.  Returns the status to report.  The
 * writer's own calls do this by themselves. */
up_status up_writer_explain(const up_writer *w, up_status st, up_err *err);
uint64_t up_writer_clamped(const up_writer *w); /* timestamps raised */

/* Creates an OTF2 archive `dir`/traces.otf2 for writing the way unperturb
 * writes: bounded memory per location, no BufferFlush records of its own,
 * serial collectives.  (up_writer_open uses it; so does the benchmark's plain
 * copy, so that both write alike.) */
up_status up_otf2_archive_create(const char *dir, OTF2_Archive **out, up_err *err);

/* ---- plain copy (the benchmark baseline, and the definition copy) -------- */

/* Callbacks that write each record straight to the OTF2_EvtWriter* given as
 * user data. */
void up_copy_evt_callbacks(OTF2_EvtReaderCallbacks *cb);

/* A copy of global definitions into `gw` in reference order (defcopy.c):
 * each definition is written after every definition it references; an
 * input already in that order is copied unchanged.  If `defs` and `nevents`
 * are set, a Location definition declares nevents[i] records, i its index in
 * defs (what was written, not what the input declared).  Feed it with a
 * global definition reader whose callbacks up_copy_def_callbacks set (user
 * data: the up_def_copy; ClockProperties included unless the caller sets its
 * own callback); then up_def_copy_finish writes the definitions still
 * waiting for one the input does not have (in input order) and returns the
 * copy's first failure; up_def_copy_status returns it without writing. */
typedef struct up_def_copy up_def_copy;
up_status up_def_copy_open(OTF2_GlobalDefWriter *gw, const up_defs *defs, const uint64_t *nevents,
                           up_def_copy **out, up_err *err);
void up_copy_def_callbacks(OTF2_GlobalDefReaderCallbacks *cb);
up_status up_def_copy_finish(up_def_copy *c, up_err *err);
up_status up_def_copy_status(const up_def_copy *c, up_err *err);
void up_def_copy_free(up_def_copy *c);

/* The last message OTF2 reported through its error callback ("" if none). */
const char *up_otf2_last_error(void);
/* Installs the error callback that keeps OTF2 from printing to stderr. */
void up_otf2_quiet(void);

#endif /* UNPERTURB_TRACE_H */
