/*
 * tracer.c - the tracer's state: per-rank OTF2 writer, records, the side file
 * of definitions, buffer flushes, signals, and the merge at MPI_Finalize.
 *
 * Place in the data flow: measurement (docs/tracer.md).  Each rank writes its
 * own one-location OTF2 archive under DIR/.upt/<rank>/ and appends every
 * definition it makes (regions, communicators, RMA windows and groups,
 * attributes, clock offsets) to the text file DIR/.upt/<rank>.defs as it
 * makes it.  At MPI_Finalize rank 0 merges
 * them into one archive in DIR (src/trace/merge.c); after a crash, a signal
 * or MPI_Abort `unperturb trace --recover DIR` does the same merge from what
 * reached the disk.  So no collective operation is needed to end a run, and
 * a run that never reached MPI_Finalize is not lost.
 *
 * Overhead accounting ([W] Sections 2-4): a buffer flush is recorded by
 * OTF2 itself as a BufferFlush record (post-flush callback); the tracer's
 * other own work is enclosed in the region "UNPERTURB tracer".  Both are
 * removed whole by compensation.
 *
 * This file depends on none of the tracer's others: the steps of MPI_Init
 * and MPI_Finalize are put in order by life.c, and the calibration (calib.c)
 * times the records through the functions of its last section.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <otf2/OTF2_Pthread_Locks.h>

#include "tracer/upt.h"
#include "trace/chunks.h"
#include "trace/merge.h"

int upt_on;
int upt_rank, upt_size;
int upt_solo;
int upt_tsc;
pthread_t upt_main_thread;
int upt_main_thread_set;

#define CHUNK_SIZE (1024 * 1024)

/* One recording thread: its OTF2 writer, location (index << 32 | rank, as
 * Score-P numbers threads; the thread that opened the run is index 0, the
 * rank's own location), and whether it is inside a record (a fatal signal
 * then waits for the record's end; close_local waits too). */
typedef struct tslot {
    OTF2_EvtWriter *w;
    OTF2_AttributeList *attrs; /* its records' attributes; OTF2 empties it after each */
    void (*atclose)(OTF2_EvtWriter *w, void *arg); /* upt_rec_atclose */
    void *atclose_arg;
    uint32_t idx;
    volatile sig_atomic_t busy;
} tslot;

static struct {
    OTF2_Archive *ar;
    tslot main;           /* the thread that called MPI_Init */
    char dir[PATH_MAX];   /* the run's archive folder */
    int side;             /* DIR/.upt/<rank>.defs, append-only */
    uint64_t extra_ns;    /* UNPERTURB_EXTRA_NS: spent after every record */
    uint64_t extra_ticks; /* the same in TSC ticks (0: spin on clock_gettime) */
    uint64_t next_req;    /* OTF2 request ids */
    bool closed;
    bool sync;            /* ranks on more than one node: measure clock offsets */
    bool cpu;             /* UNPERTURB_CPU_TIME=1: thread CPU time at MPI calls */
    /* the source and communicator of the last MPI_ANY_SOURCE receive, until
     * the first send to that source (marked a reply: UPT_ATTR_REPLY) */
    bool wild_open;
    uint32_t wild_src, wild_comm;
    /* regions defined at run time: (name, file, line) -> id */
    struct region { char *name, *file; uint32_t line; OTF2_RegionRole role; OTF2_Paradigm paradigm; } *regions;
    uint32_t nregions, regions_cap;
    /* communicators: MPI handle -> local id */
    struct comm { MPI_Comm c; uint32_t id; } *comms;
    uint32_t ncomms, comms_cap, next_comm;
    /* the same member list may name several communicators: their ordinal */
    struct ordinal { char *members; uint32_t n; } *ords;
    uint32_t nords, ords_cap;
    /* RMA windows: how many this rank created per communicator (local id) */
    struct winord { uint32_t comm, n; } *winords;
    uint32_t nwinords, winords_cap, next_win;
    /* groups of RmaGroupSync records: member lists (world ranks) -> id */
    char **groups;
    uint32_t ngroups, groups_cap, next_group;
} T = {.side = -1};

/* Every other thread that recorded (docs/tracer.md, "Threads"): its slot,
 * made at its first record (thread_join) and closed when it ends or the
 * run does.  `me` is this thread's (NULL before its first record; the
 * initial-exec model: one %fs-relative load, the library being loaded with
 * the program). */
#define THREADS_MAX UP_MERGE_THREADS_MAX
static pthread_mutex_t threads_mu = PTHREAD_MUTEX_INITIALIZER;
static tslot *threads[THREADS_MAX];
static uint32_t nthreads = 1;   /* indices handed out (0: the main thread) */
static bool threads_closed;
static pthread_key_t thread_key;
static bool thread_key_made;
static tslot no_slot;           /* a thread that may not record (w NULL) */
static _Thread_local tslot *me __attribute__((tls_model("initial-exec")));

/* A signal that arrived while a record was being written is handled when it
 * is done (the OTF2 buffer is not in a consistent state before). */
static volatile sig_atomic_t pending_signal;
static void fatal_signal(int sig);

void upt_warn(const char *fmt, ...)
{
    va_list ap;
    char buf[512];
    int n = snprintf(buf, sizeof buf, "unperturb-trace: rank %d: ", upt_rank);
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof buf)
        vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", buf);
}

/* ---- the clock (upt.h) ------------------------------------------------------ */

/* the first reference pair: (ticks, CLOCK_MONOTONIC ns) */
static uint64_t clock_t0, clock_ns0;
static int clock_decided;

static bool file_has(const char *path, const char *word)
{
    char buf[8192];
    size_t n;
    FILE *f = fopen(path, "r");
    bool found = false;
    if (!f)
        return false;
    while (!found && (n = fread(buf, 1, sizeof buf - 1, f)) > 0) {
        buf[n] = '\0';
        found = strstr(buf, word) != NULL;
    }
    fclose(f);
    return found;
}

/* The TSC only where the kernel trusts it as its own clock source: then it
 * is invariant and synchronised across cores. */
static bool tsc_usable(void)
{
#if UPT_HAVE_TSC
    const char *e = getenv("UNPERTURB_CLOCK");
    if (e && !strcmp(e, "monotonic"))
        return false;
    if (e && !strcmp(e, "tsc"))
        return true;
    return file_has("/sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc") &&
           file_has("/proc/cpuinfo", "constant_tsc") && file_has("/proc/cpuinfo", "nonstop_tsc");
#else
    return false;
#endif
}

void upt_clock_init(void)
{
    if (clock_decided)
        return;
    clock_decided = 1;
    upt_tsc = tsc_usable();
    clock_ns0 = upt_ns();
    clock_t0 = upt_now();
}

__attribute__((constructor(101))) static void clock_ctor(void) { upt_clock_init(); }

/* ticks per second since the first reference pair */
static double clock_rate(void)
{
    uint64_t ns, t;
    if (!upt_tsc)
        return 1e9;
    ns = upt_ns();
    t = upt_now();
    return ns > clock_ns0 ? (double)(t - clock_t0) * 1e9 / (double)(ns - clock_ns0) : 0;
}

/* ---- the side file: one write() per line, so a kill loses no whole line -- */

/* false if the line was not written */
static bool side_line(const char *fmt, ...)
{
    char buf[8192];
    va_list ap;
    int n;
    if (T.side < 0)
        return false;
    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf) {
        upt_warn("definition line too long, dropped");
        return false;
    }
    if (write(T.side, buf, (size_t)n) != n) {
        upt_warn("cannot write the definitions file: %s", strerror(errno));
        return false;
    }
    return true;
}

/* names in the side file are tab-separated fields: no tabs or newlines */
static void clean_field(char *s)
{
    for (; *s; s++)
        if (*s == '\t' || *s == '\n' || *s == '\r')
            *s = ' ';
}

/* ---- OTF2 callbacks --------------------------------------------------------- */

/* The event buffer of the run's archive, allocated and written once inside
 * MPI_Init (prefault_buffer): a page first touched while recording costs a
 * page fault inside some record's interval, which no calibrated O covers
 * (about 1 us each here, one per 300 records).  Written with 0x5a, not zeros:
 * pages of zeros cost 1.6-3 us each again at their first record on a
 * virtual machine (docs/tracer.md, bench/dense.sh). */
static struct {
    void **chunks;
    size_t n;
} pool;

/* A chunk of an OTF2 buffer (src/trace/chunks.c): for the run's archive's
 * events a pre-faulted one while the pool lasts, else fresh memory faulted
 * in now, not record by record. */
static void *chunk_alloc(up_chunks *c, size_t size);
static void chunk_free(up_chunks *c, void *chunk, size_t size)
{
    (void)c, (void)size;
    free(chunk);
}

/* the run's archive: its event buffer UNPERTURB_BUFFER_MB chunks (set in
 * upt_open); the calibration's scratch archive (upt_scratch_begin) */
static up_chunks run_chunks = {0, 64, chunk_alloc, chunk_free},
                 scratch_chunks = {0, 64, chunk_alloc, chunk_free};

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER; /* threads share the pool */

static void *chunk_alloc(up_chunks *c, size_t size)
{
    void *chunk = NULL;
    if (c == &run_chunks && size == CHUNK_SIZE) {
        pthread_mutex_lock(&pool_mu);
        if (pool.n)
            chunk = pool.chunks[--pool.n]; /* the run's archive: a pre-faulted chunk */
        pthread_mutex_unlock(&pool_mu);
        if (chunk)
            return chunk;
    }
    if ((chunk = malloc(size)) != NULL)
        memset(chunk, 0x5a, size);
    return chunk;
}

static void prefault_buffer(void)
{
    size_t i;
    if (!(pool.chunks = calloc(run_chunks.events_max, sizeof *pool.chunks)))
        return;
    for (i = 0; i < run_chunks.events_max; i++) {
        void *c = malloc(CHUNK_SIZE);
        if (!c)
            break;
        memset(c, 0x5a, CHUNK_SIZE);
        pool.chunks[pool.n++] = c;
    }
}

/* OTF2 writes a BufferFlush record from the pre-flush time to this one */
static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType type, OTF2_LocationRef loc)
{
    (void)ud, (void)type, (void)loc;
    return upt_now();
}

static const OTF2_FlushCallbacks flush_callbacks = {up_otf2_pre_flush, post_flush};

/* ---- records ---------------------------------------------------------------- */

static bool thread_join(void);
static void thread_gone(void *p);

/* Is this thread recording?  A thread's first record gives it a writer. */
static inline bool recording(void)
{
    tslot *s = me;
    if (__builtin_expect(s != NULL, 1))
        return upt_on && s->w;
    return upt_on && thread_join();
}

/* A record begins.  Another thread's is marked busy before recording is
 * looked at again, so close_threads, which turns recording off before it
 * looks at the marks, either sees the mark or is seen here (false: the run
 * closed meanwhile) */
static inline bool rec_begin(void)
{
    me->busy = 1;
    if (__builtin_expect(me == &T.main, 1))
        return true; /* the main thread closes its own writer: no fence on its path */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (__builtin_expect(!upt_on, 0)) {
        me->busy = 0;
        return false;
    }
    return true;
}

/* What the extra cost's spins really took in this run (UNPERTURB_CALIB_DEBUG
 * prints it at exit).  A spin ends at its deadline on the clock, but when the
 * thread is stalled inside it (preempted, an interrupt) and the stall lasts
 * past the deadline, it ends later.  A spin that ended more than STALL_NS
 * late is a stall: its interval, from the deadline to the end, goes to
 * its thread's list, DIR/.upt/<rank>.stalls for the rank's own thread and
 * <rank>-<index>.stalls for another (the merge moves each next to its
 * location's events), which compensate removes where it lies
 * (docs/tracer.md).  The other spins' mean, against the calibration's, gives
 * [overhead_by_location]. */
#define STALL_NS 1000
#define STALL_BUF 256
static uint64_t spin_ticks, spins;
static double spin_cal_ticks; /* the calibration's mean spin, as counted here */
static uint64_t stall_min;    /* STALL_NS in clock units; 0 before the run */
static uint64_t stall_buf[STALL_BUF][2]; /* start, length, in clock units */
static uint32_t stall_idx[STALL_BUF];    /* the thread's index (tslot) */
static unsigned nstall;
static uint64_t stall_total, stall_count;
static int stall_fd = -1;

__attribute__((destructor)) static void spin_report(void)
{
    if (spins && T.extra_ticks && getenv("UNPERTURB_CALIB_DEBUG"))
        upt_warn("%llu spins of --extra-ns took %.1f ticks on average, %llu asked (%.2f%% more); "
                 "%llu more were stalls, %.0f ticks in all",
                 (unsigned long long)spins, (double)spin_ticks / (double)spins,
                 (unsigned long long)T.extra_ticks,
                 100.0 * ((double)spin_ticks / (double)spins / (double)T.extra_ticks - 1),
                 (unsigned long long)stall_count, (double)stall_total);
}

/* n stalls of thread idx to its list (pairs of 64-bit words in host byte
 * order: start, length): the rank's own thread's file stays open, another
 * thread's is opened for each flush (stalls are rare) */
static bool stall_write(uint32_t idx, const uint64_t (*e)[2], unsigned n)
{
    char path[PATH_MAX + 64];
    size_t len = n * sizeof *e;
    int fd = idx ? -1 : stall_fd;
    bool ok;
    if (fd < 0) {
        if (idx)
            snprintf(path, sizeof path, "%s/.upt/%d-%u.stalls", T.dir, upt_rank, idx);
        else
            snprintf(path, sizeof path, "%s/.upt/%d.stalls", T.dir, upt_rank);
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
        if (!idx)
            stall_fd = fd;
    }
    ok = fd >= 0 && write(fd, e, len) == (ssize_t)len;
    if (idx && fd >= 0)
        close(fd);
    return ok;
}

/* The buffered stalls to their threads' lists.  false if some could not be
 * written: the merge then sees fewer stalls, and removes less. */
static bool stall_flush(void)
{
    uint64_t e[STALL_BUF][2];
    unsigned i, j, n;
    bool ok = true;
    for (i = 0; i < nstall; i++) {
        uint32_t idx = stall_idx[i];
        if (idx == UINT32_MAX)
            continue; /* written with an earlier one's thread */
        for (n = 0, j = i; j < nstall; j++)
            if (stall_idx[j] == idx) {
                memcpy(e[n++], stall_buf[j], sizeof e[0]);
                stall_idx[j] = UINT32_MAX;
            }
        ok &= stall_write(idx, (const uint64_t(*)[2])e, n);
    }
    nstall = 0;
    return ok;
}

/* A spin that should have ended at `deadline` ended at `end` (any thread:
 * stalls are rare, a lock is cheap enough) */
static pthread_mutex_t stall_mu = PTHREAD_MUTEX_INITIALIZER;

static void stall_note(uint64_t deadline, uint64_t end)
{
    pthread_mutex_lock(&stall_mu);
    if (nstall == STALL_BUF) {
        if (!stall_flush())
            upt_warn("cannot write the stalls file: %s", strerror(errno));
        end = upt_now(); /* the write is part of this record's overhead */
    }
    stall_buf[nstall][0] = deadline;
    stall_buf[nstall][1] = end - deadline;
    stall_idx[nstall++] = me ? me->idx : 0;
    stall_total += end - deadline;
    stall_count++;
    pthread_mutex_unlock(&stall_mu);
}

/* UNPERTURB_EXTRA_NS: emulate heavier instrumentation.  On the TSC where
 * that is the clock: no memory access, unlike clock_gettime (the vDSO's data
 * page), so the run cannot make it dearer than the calibration found it. */
static inline void extra_spin(uint64_t ns)
{
    uint64_t t, n, e;
#if UPT_HAVE_TSC
    if (T.extra_ticks) {
        t = __rdtsc(), n = T.extra_ticks;
        while ((e = __rdtsc()) - t < n)
            ;
        goto done;
    }
#endif
    t = upt_ns(), n = ns;
    while ((e = upt_ns()) - t < n)
        ;
done:
    if (stall_min && e - t - n > stall_min) {
        stall_note(t + n, e);
        return;
    }
    __atomic_fetch_add(&spin_ticks, e - t, __ATOMIC_RELAXED); /* (threads spin too) */
    __atomic_fetch_add(&spins, 1, __ATOMIC_RELAXED);
}

static void set_extra(uint64_t ns)
{
    double rate = upt_tsc ? clock_rate() : 0; /* ticks per s */
    T.extra_ns = ns;
    T.extra_ticks = rate > 1e6 ? (uint64_t)((double)ns * rate / 1e9 + 0.5) : 0;
}

static inline void rec_end(OTF2_ErrorCode rc)
{
    if (T.extra_ns)
        extra_spin(T.extra_ns);
    me->busy = 0;
    if (rc != OTF2_SUCCESS) {
        upt_warn("cannot write a record (%s); recording stops", OTF2_Error_GetName(rc));
        upt_on = 0;
    }
    if (pending_signal)
        fatal_signal(pending_signal);
}

#define RECORD(call)                                                          \
    do {                                                                      \
        if (!recording() || !rec_begin())                                     \
            return;                                                           \
        rec_end(call);                                                        \
    } while (0)

/* --cpu-time: a Metric record (class UPT_METRIC_CPU, the thread's CPU time
 * in ns) with the same timestamp just before the Enter and the Leave of an
 * MPI call, as Score-P writes its synchronous metrics.  It is a record of
 * its own, with its own calibrated cost (kind "metric"). */
void upt_cpu_metric(uint64_t t)
{
    static const OTF2_Type type = OTF2_TYPE_UINT64;
    struct timespec ts;
    OTF2_MetricValue v;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    v.unsigned_int = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    RECORD(OTF2_EvtWriter_Metric(me->w, NULL, t, UPT_METRIC_CPU, 1, &type, &v));
}

/* The timestamp of an Enter or Leave of region r; for an MPI region under
 * --cpu-time, after the metric record written just before it. */
static inline uint64_t region_stamp(uint32_t r)
{
    uint64_t t = upt_now();
    if (T.cpu && r < UPT_R_FLUSH) {
        upt_cpu_metric(t);
        t = upt_now(); /* the Enter/Leave comes after the metric record's cost */
    }
    return t;
}

/* (the stamp is taken before RECORD: the metric record is a record of its
 * own, and must not run inside this one's signal deferral) */
void upt_enter(uint32_t r)
{
    uint64_t t = region_stamp(r);
    RECORD(OTF2_EvtWriter_Enter(me->w, NULL, t, r));
}

void upt_enter_at(uint32_t r, uint64_t t) { RECORD(OTF2_EvtWriter_Enter(me->w, NULL, t, r)); }

void upt_leave(uint32_t r)
{
    uint64_t t = region_stamp(r);
    RECORD(OTF2_EvtWriter_Leave(me->w, NULL, t, r));
}

/* The attribute list of a send: UPT_ATTR_REPLY when it is the first send
 * to the source of the last MPI_ANY_SOURCE receive on its communicator (a
 * farm's reply to status.MPI_SOURCE; issue 22), else NULL.  Called inside
 * RECORD only, like wildcard_attrs. */
static OTF2_AttributeList *reply_attrs(uint32_t dest, uint32_t comm)
{
    if (!T.wild_open || dest != T.wild_src || comm != T.wild_comm)
        return NULL;
    T.wild_open = false;
    if (!me->attrs || OTF2_AttributeList_AddUint8(me->attrs, UPT_ATTR_REPLY, 1) != OTF2_SUCCESS)
        return NULL;
    return me->attrs;
}

/* A receive that named MPI_ANY_SOURCE took a message from src. */
static void wild_source(uint32_t src, uint32_t comm, unsigned wildcard)
{
    if (wildcard & 1)
        T.wild_open = true, T.wild_src = src, T.wild_comm = comm;
}

void upt_send(uint32_t dest, uint32_t comm, uint32_t tag, uint64_t bytes)
{
    RECORD(OTF2_EvtWriter_MpiSend(me->w, reply_attrs(dest, comm), upt_now(), dest, comm, tag, bytes));
}

/* The attribute list of a receive: NULL for a plain one, else the thread's with
 * its wildcard bits.  Called inside RECORD only, so a list filled here is
 * always written (and emptied by OTF2) right away. */
static OTF2_AttributeList *wildcard_attrs(unsigned wildcard)
{
    if (!wildcard || !me->attrs ||
        OTF2_AttributeList_AddUint8(me->attrs, UPT_ATTR_WILDCARD, (uint8_t)wildcard) != OTF2_SUCCESS)
        return NULL; /* (a failed add added nothing) */
    return me->attrs;
}

void upt_recv(uint32_t src, uint32_t comm, uint32_t tag, uint64_t bytes, unsigned wildcard)
{
    RECORD(OTF2_EvtWriter_MpiRecv(me->w, wildcard_attrs(wildcard), upt_now(), src, comm, tag,
                                  bytes));
    wild_source(src, comm, wildcard);
}

void upt_isend(uint32_t dest, uint32_t comm, uint32_t tag, uint64_t bytes, uint64_t req)
{
    RECORD(OTF2_EvtWriter_MpiIsend(me->w, reply_attrs(dest, comm), upt_now(), dest, comm, tag,
                                   bytes, req));
}

void upt_isend_complete(uint64_t req)
{
    RECORD(OTF2_EvtWriter_MpiIsendComplete(me->w, NULL, upt_now(), req));
}

void upt_irecv_request(uint64_t req)
{
    RECORD(OTF2_EvtWriter_MpiIrecvRequest(me->w, NULL, upt_now(), req));
}

void upt_irecv(uint32_t src, uint32_t comm, uint32_t tag, uint64_t bytes, uint64_t req,
               unsigned wildcard)
{
    RECORD(OTF2_EvtWriter_MpiIrecv(me->w, wildcard_attrs(wildcard), upt_now(), src, comm, tag,
                                   bytes, req));
    wild_source(src, comm, wildcard);
}

void upt_request_test(uint64_t req)
{
    RECORD(OTF2_EvtWriter_MpiRequestTest(me->w, NULL, upt_now(), req));
}

void upt_request_cancelled(uint64_t req)
{
    RECORD(OTF2_EvtWriter_MpiRequestCancelled(me->w, NULL, upt_now(), req));
}

void upt_coll_begin(void) { RECORD(OTF2_EvtWriter_MpiCollectiveBegin(me->w, NULL, upt_now())); }

void upt_coll_end(OTF2_CollectiveOp op, uint32_t comm, uint32_t root, uint64_t sent,
                  uint64_t received)
{
    RECORD(OTF2_EvtWriter_MpiCollectiveEnd(me->w, NULL, upt_now(), op, comm, root, sent, received));
}

/* Nonblocking collectives, as Score-P writes them with OTF2 3: the request
 * inside the starting call (MPI_Ibcast, ...), the operation with its sizes
 * inside the call that completes it (MPI_Wait, ...). */
void upt_nbcoll_request(uint64_t req)
{
    RECORD(OTF2_EvtWriter_NonBlockingCollectiveRequest(me->w, NULL, upt_now(), req));
}

void upt_nbcoll_complete(OTF2_CollectiveOp op, uint32_t comm, uint32_t root, uint64_t sent,
                         uint64_t received, uint64_t req)
{
    RECORD(OTF2_EvtWriter_NonBlockingCollectiveComplete(me->w, NULL, upt_now(), op, comm, root,
                                                        sent, received, req));
}

/* One-sided communication, as Score-P writes it (docs/tracer.md). */
void upt_rma_win_create(uint32_t win)
{
    RECORD(OTF2_EvtWriter_RmaWinCreate(me->w, NULL, upt_now(), win));
}

void upt_rma_win_destroy(uint32_t win)
{
    RECORD(OTF2_EvtWriter_RmaWinDestroy(me->w, NULL, upt_now(), win));
}

void upt_rma_coll_begin(void) { RECORD(OTF2_EvtWriter_RmaCollectiveBegin(me->w, NULL, upt_now())); }

void upt_rma_coll_end(OTF2_CollectiveOp op, OTF2_RmaSyncLevel level, uint32_t win)
{
    RECORD(OTF2_EvtWriter_RmaCollectiveEnd(me->w, NULL, upt_now(), op, level, win,
                                           OTF2_UNDEFINED_UINT32, 0, 0));
}

void upt_rma_group_sync(OTF2_RmaSyncLevel level, uint32_t win, uint32_t group)
{
    RECORD(OTF2_EvtWriter_RmaGroupSync(me->w, NULL, upt_now(), level, win, group));
}

/* lock id 0: MPI names a lock by its window and target */
void upt_rma_request_lock(uint32_t win, uint32_t remote, OTF2_LockType type)
{
    RECORD(OTF2_EvtWriter_RmaRequestLock(me->w, NULL, upt_now(), win, remote, 0, type));
}

void upt_rma_release_lock(uint32_t win, uint32_t remote)
{
    RECORD(OTF2_EvtWriter_RmaReleaseLock(me->w, NULL, upt_now(), win, remote, 0));
}

void upt_rma_put(uint32_t win, uint32_t remote, uint64_t bytes, uint64_t id)
{
    RECORD(OTF2_EvtWriter_RmaPut(me->w, NULL, upt_now(), win, remote, bytes, id));
}

void upt_rma_get(uint32_t win, uint32_t remote, uint64_t bytes, uint64_t id)
{
    RECORD(OTF2_EvtWriter_RmaGet(me->w, NULL, upt_now(), win, remote, bytes, id));
}

void upt_rma_atomic(uint32_t win, uint32_t remote, OTF2_RmaAtomicType type, uint64_t sent,
                    uint64_t received, uint64_t id)
{
    RECORD(OTF2_EvtWriter_RmaAtomic(me->w, NULL, upt_now(), win, remote, type, sent, received, id));
}

void upt_rma_op_complete_local(uint32_t win, uint64_t id)
{
    RECORD(OTF2_EvtWriter_RmaOpCompleteNonBlocking(me->w, NULL, upt_now(), win, id));
}

void upt_rma_op_complete_remote(uint32_t win, uint64_t id)
{
    RECORD(OTF2_EvtWriter_RmaOpCompleteRemote(me->w, NULL, upt_now(), win, id));
}

bool upt_recording(void) { return recording(); }

OTF2_EvtWriter *upt_rec_open(void)
{
    if (!recording() || !rec_begin())
        return NULL;
    return me->w;
}

void upt_rec_close(OTF2_ErrorCode rc) { rec_end(rc); }

OTF2_AttributeList *upt_rec_attrs(void) { return me ? me->attrs : NULL; }

void upt_rec_atclose(void (*fn)(OTF2_EvtWriter *w, void *arg), void *arg)
{
    if (me && me->w)
        me->atclose = fn, me->atclose_arg = arg;
}

void upt_threads_comm(void)
{
    static atomic_int done;
    if (!atomic_exchange(&done, 1))
        side_line("comm\t%u\tt\t0\t\n", UPT_COMM_THREADS);
}

void upt_overhead_begin(void) { upt_enter(UPT_R_OVERHEAD); }
void upt_overhead_end(void) { upt_leave(UPT_R_OVERHEAD); }

uint64_t upt_next_request(void) { return __atomic_add_fetch(&T.next_req, 1, __ATOMIC_RELAXED); }

/* ---- regions ------------------------------------------------------------------ */

static void side_region(uint32_t id, int role, int paradigm, const char *name, const char *file,
                        uint32_t line)
{
    char n[4096], f[4096];
    snprintf(n, sizeof n, "%s", name);
    snprintf(f, sizeof f, "%s", file ? file : "");
    clean_field(n);
    clean_field(f);
    side_line("region\t%u\t%d\t%d\t%u\t%s\t%s\n", id, role, paradigm, line, n, f);
}

static pthread_mutex_t regions_mu = PTHREAD_MUTEX_INITIALIZER; /* threads define regions */

static uint32_t region_define(const char *name, const char *file, uint32_t line,
                              OTF2_RegionRole role, OTF2_Paradigm paradigm)
{
    uint32_t i;
    struct region *r;
    if (T.side < 0 || !name)
        return UINT32_MAX;
    /* a linear search: regions are defined once each, then cached by the
     * callers (funcs.c caches per address and per name pointer) */
    for (i = 0; i < T.nregions; i++) {
        r = &T.regions[i];
        if (r->line == line && r->role == role && r->paradigm == paradigm &&
            !strcmp(r->name, name) && !strcmp(r->file ? r->file : "", file ? file : ""))
            return UPT_R_FIXED_ + i;
    }
    if (T.nregions == T.regions_cap) {
        uint32_t cap = T.regions_cap ? 2 * T.regions_cap : 64;
        struct region *nr = realloc(T.regions, cap * sizeof *nr);
        if (!nr)
            return UINT32_MAX;
        T.regions = nr, T.regions_cap = cap;
    }
    r = &T.regions[T.nregions];
    if (!(r->name = strdup(name)) || !(r->file = file ? strdup(file) : NULL) != !file) {
        free(r->name);
        return UINT32_MAX;
    }
    r->line = line;
    r->role = role;
    r->paradigm = paradigm;
    side_region(UPT_R_FIXED_ + T.nregions, role, paradigm, name, file, line);
    return UPT_R_FIXED_ + T.nregions++;
}

uint32_t upt_region_define_as(const char *name, const char *file, uint32_t line,
                              OTF2_RegionRole role, OTF2_Paradigm paradigm)
{
    uint32_t id;
    pthread_mutex_lock(&regions_mu);
    id = region_define(name, file, line, role, paradigm);
    pthread_mutex_unlock(&regions_mu);
    return id;
}

uint32_t upt_region_define(const char *name, const char *file, uint32_t line)
{
    return upt_region_define_as(name, file, line, OTF2_REGION_ROLE_FUNCTION,
                                OTF2_PARADIGM_COMPILER);
}

static const struct { const char *name; OTF2_RegionRole role; } mpi[] = {
#define X(name, role) {#name, OTF2_REGION_ROLE_##role},
    UPT_MPI_REGIONS(X)
#undef X
};

static void define_fixed_regions(void)
{
    uint32_t i;
    for (i = 0; i < sizeof mpi / sizeof *mpi; i++)
        side_region(i, mpi[i].role, OTF2_PARADIGM_MPI, mpi[i].name, "MPI", 0);
    side_region(UPT_R_FLUSH, OTF2_REGION_ROLE_ARTIFICIAL, OTF2_PARADIGM_MEASUREMENT_SYSTEM,
                "TRACE BUFFER FLUSH", NULL, 0);
    side_region(UPT_R_OVERHEAD, OTF2_REGION_ROLE_ARTIFICIAL, OTF2_PARADIGM_MEASUREMENT_SYSTEM,
                "UNPERTURB tracer", NULL, 0);
}

/* attributes: id, OTF2 type, name, description (no tabs) */
void upt_attr_define(uint32_t id, OTF2_Type type, const char *name, const char *desc)
{
    side_line("attribute\t%u\t%d\t%s\t%s\n", id, (int)type, name, desc);
}

static void define_attributes(void)
{
    upt_attr_define(UPT_ATTR_WILDCARD, OTF2_TYPE_UINT8, "unperturb::wildcard",
                    "MPI_ANY_SOURCE (1) and/or MPI_ANY_TAG (2) receive");
    upt_attr_define(UPT_ATTR_REPLY, OTF2_TYPE_UINT8, "unperturb::reply",
                    "the first send to the source of the last MPI_ANY_SOURCE receive on its "
                    "communicator (1)");
}

/* ---- communicators ------------------------------------------------------------ */

uint32_t upt_comm_id(MPI_Comm c)
{
    uint32_t i;
    if (c == MPI_COMM_WORLD)
        return UPT_COMM_WORLD;
    if (c == MPI_COMM_SELF)
        return UPT_COMM_SELF;
    for (i = T.ncomms; i-- > 0;) /* newest first: usually the one in use */
        if (T.comms[i].c == c)
            return T.comms[i].id;
    return UINT32_MAX;
}

/* A communicator is identified across ranks by its members (world ranks, in
 * its rank order) and how many communicators with the same members this
 * rank created before: blocking creation is collective over the members, so
 * every member counts the same.  No communication is needed. */
void upt_comm_created(MPI_Comm c)
{
    MPI_Group g, wg;
    int n = 0, i, *in = NULL, *out = NULL, inter = 0;
    char *members = NULL;
    size_t len = 0, cap = 0;
    uint32_t ord = 0, id;

    if (T.side < 0 || c == MPI_COMM_NULL)
        return;
    if (PMPI_Comm_test_inter(c, &inter) != MPI_SUCCESS || inter)
        return; /* intercommunicators are not recorded (docs/tracer.md) */
    if (PMPI_Comm_group(c, &g) != MPI_SUCCESS)
        return;
    PMPI_Comm_group(MPI_COMM_WORLD, &wg);
    PMPI_Group_size(g, &n);
    in = malloc((size_t)n * sizeof *in);
    out = malloc((size_t)n * sizeof *out);
    cap = (size_t)n * 12 + 1;
    members = malloc(cap);
    if (in && out && members) {
        for (i = 0; i < n; i++)
            in[i] = i;
        PMPI_Group_translate_ranks(g, n, in, wg, out);
        members[0] = '\0';
        for (i = 0; i < n; i++)
            len += (size_t)snprintf(members + len, cap - len, i ? ",%d" : "%d", out[i]);
        for (i = 0; i < (int)T.nords; i++)
            if (!strcmp(T.ords[i].members, members))
                break;
        if (i == (int)T.nords) {
            if (T.nords == T.ords_cap) {
                uint32_t nc = T.ords_cap ? 2 * T.ords_cap : 16;
                struct ordinal *no = realloc(T.ords, nc * sizeof *no);
                if (!no)
                    goto done;
                T.ords = no, T.ords_cap = nc;
            }
            T.ords[T.nords].members = members;
            T.ords[T.nords++].n = 0;
            members = NULL;
        }
        ord = T.ords[i].n++;
        if (T.ncomms == T.comms_cap) {
            uint32_t nc = T.comms_cap ? 2 * T.comms_cap : 16;
            struct comm *ncm = realloc(T.comms, nc * sizeof *ncm);
            if (!ncm)
                goto done;
            T.comms = ncm, T.comms_cap = nc;
        }
        id = T.next_comm++;
        T.comms[T.ncomms].c = c;
        T.comms[T.ncomms++].id = id;
        side_line("comm\t%u\tc\t%u\t%s\n", id, ord, T.ords[i].members);
    }
done:
    free(in);
    free(out);
    free(members);
    PMPI_Group_free(&g);
    PMPI_Group_free(&wg);
}

void upt_comm_freed(MPI_Comm c)
{
    uint32_t i;
    for (i = 0; i < T.ncomms; i++)
        if (T.comms[i].c == c) {
            /* the handle may be reused; the id stays defined */
            T.comms[i] = T.comms[--T.ncomms];
            return;
        }
}

/* ---- RMA windows and groups ---------------------------------------------------- */

/* Window creation is collective over the communicator, in the same order on
 * every member, so (communicator, ordinal) names a window on every rank
 * alike, as (members, ordinal) does a communicator.  Its name is Score-P's:
 * the creating function's, with "_window" appended. */
uint32_t upt_win_define(uint32_t comm, uint32_t region)
{
    uint32_t i, ord = 0, id;
    char c[16];
    if (T.side < 0 || region >= sizeof mpi / sizeof *mpi)
        return UINT32_MAX;
    if (comm != UINT32_MAX) {
        for (i = 0; i < T.nwinords && T.winords[i].comm != comm; i++)
            ;
        if (i == T.nwinords) {
            if (T.nwinords == T.winords_cap) {
                uint32_t nc = T.winords_cap ? 2 * T.winords_cap : 8;
                struct winord *nw = realloc(T.winords, nc * sizeof *nw);
                if (!nw)
                    return UINT32_MAX;
                T.winords = nw, T.winords_cap = nc;
            }
            T.winords[T.nwinords].comm = comm;
            T.winords[T.nwinords++].n = 0;
        }
        ord = T.winords[i].n++;
        snprintf(c, sizeof c, "%u", comm);
    } else {
        snprintf(c, sizeof c, "-"); /* unknown communicator: a window of this rank alone */
    }
    id = T.next_win++;
    /* an undefined window is not recorded at all */
    return side_line("win\t%u\t%s\t%u\t%s_window\n", id, c, ord, mpi[region].name) ? id
                                                                                    : UINT32_MAX;
}

/* Score-P defines the group of an MPI_Group as the world ranks of its
 * processes, in the group's order (an OTF2 Group of type COMM_GROUP; its
 * members index MPI_COMM_WORLD's COMM_LOCATIONS group). */
uint32_t upt_group_define(MPI_Group g)
{
    MPI_Group wg;
    int n = 0, i, *in = NULL, *out = NULL;
    char *members = NULL;
    size_t len = 0, cap;
    uint32_t id = UINT32_MAX, k;

    if (T.side < 0 || g == MPI_GROUP_NULL || PMPI_Group_size(g, &n) != MPI_SUCCESS || n < 0)
        return UINT32_MAX;
    if (PMPI_Comm_group(MPI_COMM_WORLD, &wg) != MPI_SUCCESS)
        return UINT32_MAX;
    in = malloc((size_t)(n ? n : 1) * sizeof *in);
    out = malloc((size_t)(n ? n : 1) * sizeof *out);
    cap = (size_t)n * 12 + 1;
    if (!in || !out || !(members = malloc(cap)))
        goto done;
    for (i = 0; i < n; i++)
        in[i] = i;
    if (n && PMPI_Group_translate_ranks(g, n, in, wg, out) != MPI_SUCCESS)
        goto done;
    members[0] = '\0';
    for (i = 0; i < n; i++) {
        if (out[i] == MPI_UNDEFINED || out[i] < 0)
            goto done; /* a process outside MPI_COMM_WORLD */
        len += (size_t)snprintf(members + len, cap - len, i ? ",%d" : "%d", out[i]);
    }
    for (k = 0; k < T.ngroups; k++)
        if (!strcmp(T.groups[k], members)) {
            id = k;
            goto done;
        }
    /* at most 4096 remembered; past that each use defines a group again */
    if (T.ngroups == T.groups_cap && T.groups_cap < 4096) {
        uint32_t nc = T.groups_cap ? 2 * T.groups_cap : 16;
        char **ng = realloc(T.groups, nc * sizeof *ng);
        if (ng)
            T.groups = ng, T.groups_cap = nc;
    }
    id = T.next_group++;
    if (!side_line("group\t%u\t%s\n", id, members)) {
        T.next_group--;
        id = UINT32_MAX; /* an undefined group is never named */
        goto done;
    }
    if (T.ngroups < T.groups_cap && T.ngroups == id) {
        T.groups[T.ngroups++] = members;
        members = NULL;
    }
done:
    free(in);
    free(out);
    free(members);
    PMPI_Group_free(&wg);
    return id;
}

/* ---- clock offsets against rank 0 (more than one node) ----------------------- */

/* Cristian's method: the round trip with the smallest time gives the offset
 * of rank 0's clock at its midpoint.  Rank 0 serves every rank in turn. */
static void clock_sync(void)
{
    enum { TRIPS = 10 };
    int r, k;
    if (upt_rank == 0) {
        for (r = 1; r < upt_size; r++)
            for (k = 0; k < TRIPS; k++) {
                uint64_t t;
                PMPI_Recv(&t, 1, MPI_UINT64_T, r, 7171, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                t = upt_now();
                PMPI_Send(&t, 1, MPI_UINT64_T, r, 7172, MPI_COMM_WORLD);
            }
        side_line("offset\t%llu\t0\t0\n", (unsigned long long)upt_now());
    } else {
        uint64_t best_rtt = UINT64_MAX, t_mid = 0;
        int64_t best_off = 0;
        for (k = 0; k < TRIPS; k++) {
            uint64_t t0 = upt_now(), t_remote, t1;
            PMPI_Send(&t0, 1, MPI_UINT64_T, 0, 7171, MPI_COMM_WORLD);
            PMPI_Recv(&t_remote, 1, MPI_UINT64_T, 0, 7172, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            t1 = upt_now();
            if (t1 - t0 < best_rtt) {
                best_rtt = t1 - t0;
                t_mid = t0 + (t1 - t0) / 2;
                best_off = (int64_t)(t_remote - t_mid);
            }
        }
        /* OTF2: global time = local time + offset */
        side_line("offset\t%llu\t%lld\t%.1f\n", (unsigned long long)t_mid, (long long)best_off,
                  (double)best_rtt / 2);
    }
}

static bool need_clock_sync(void)
{
    const char *e = getenv("UNPERTURB_CLOCK_SYNC");
    char host[256] = "";
    unsigned long h = 5381, *all;
    int i;
    bool many = false;
    if (e && *e)
        return strcmp(e, "0") != 0;
    gethostname(host, sizeof host - 1);
    for (i = 0; host[i]; i++)
        h = h * 33 + (unsigned char)host[i];
    if (!(all = malloc((size_t)upt_size * sizeof *all)))
        return false;
    PMPI_Allgather(&h, 1, MPI_UNSIGNED_LONG, all, 1, MPI_UNSIGNED_LONG, MPI_COMM_WORLD);
    for (i = 1; i < upt_size; i++)
        many |= all[i] != all[0];
    free(all);
    return many;
}

/* ---- life cycle ------------------------------------------------------------------ */

static uint64_t env_u64(const char *name, uint64_t dflt)
{
    const char *e = getenv(name);
    char *end;
    unsigned long long v;
    if (!e || !*e)
        return dflt;
    errno = 0;
    v = strtoull(e, &end, 10);
    if (errno || *end || e[0] == '-') {
        if (upt_rank == 0)
            upt_warn("%s='%s' is not a non-negative integer; using %llu", name, e,
                     (unsigned long long)dflt);
        return dflt;
    }
    return v;
}

/* The run's folder: UNPERTURB_DIR, else unperturb-YYYYMMDD_HHMMSS_<pid>
 * chosen by rank 0 (so all ranks agree). */
static bool choose_dir(void)
{
    const char *e = getenv("UNPERTURB_DIR");
    char buf[PATH_MAX] = "";
    if (e && *e)
        snprintf(buf, sizeof buf, "%s", e);
    else if (upt_rank == 0) { /* (the only one without MPI) */
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        snprintf(buf, sizeof buf, "unperturb-%04d%02d%02d_%02d%02d%02d_%d", tm.tm_year + 1900,
                 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)getpid());
    }
    if (!(e && *e) && !upt_solo)
        PMPI_Bcast(buf, sizeof buf, MPI_CHAR, 0, MPI_COMM_WORLD);
    snprintf(T.dir, sizeof T.dir, "%s", buf);
    return T.dir[0] != '\0';
}

static int mkdir_p(const char *path)
{
    char tmp[PATH_MAX + 64], *p;
    snprintf(tmp, sizeof tmp, "%s", path);
    for (p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(tmp, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

static bool open_archive(void)
{
    char path[PATH_MAX + 64];
    OTF2_ErrorCode rc;
    snprintf(path, sizeof path, "%s/.upt", T.dir);
    if (mkdir_p(path) != 0) {
        upt_warn("cannot create '%s': %s; the run is not traced", path, strerror(errno));
        return false;
    }
    snprintf(path, sizeof path, "%s/.upt/%d.defs", T.dir, upt_rank);
    if ((T.side = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0666)) < 0) {
        upt_warn("cannot create '%s': %s; the run is not traced", path, strerror(errno));
        return false;
    }
    snprintf(path, sizeof path, "%s/.upt/%d", T.dir, upt_rank);
    T.ar = OTF2_Archive_Open(path, "traces", OTF2_FILEMODE_WRITE, CHUNK_SIZE, 4 * CHUNK_SIZE,
                             OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!T.ar) {
        upt_warn("cannot create the OTF2 archive '%s'; the run is not traced", path);
        return false;
    }
    if ((rc = OTF2_Archive_SetFlushCallbacks(T.ar, &flush_callbacks, NULL)) != OTF2_SUCCESS ||
        (rc = OTF2_Archive_SetMemoryCallbacks(T.ar, &up_chunk_callbacks, &run_chunks)) != OTF2_SUCCESS ||
        (rc = OTF2_Archive_SetSerialCollectiveCallbacks(T.ar)) != OTF2_SUCCESS ||
        (rc = OTF2_Pthread_Archive_SetLockingCallbacks(T.ar, NULL)) != OTF2_SUCCESS ||
        (rc = OTF2_Archive_OpenEvtFiles(T.ar)) != OTF2_SUCCESS ||
        !(T.main.w = OTF2_Archive_GetEvtWriter(T.ar, (OTF2_LocationRef)upt_rank))) {
        upt_warn("cannot set up the OTF2 archive '%s'; the run is not traced", path);
        return false;
    }
    return true;
}

static void install_signals(void)
{
    static const int sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGFPE, SIGABRT};
    struct sigaction sa;
    size_t i;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fatal_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    for (i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction old;
        /* keep a handler the program installed before MPI_Init */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_DFL)
            continue;
        sigaction(sigs[i], &sa, NULL);
    }
}


/* This rank records nothing (it, or another rank, could not create its
 * trace): the files it created go, so that `unperturb trace` finds no
 * half-made run to recover.  Folders only when empty: one that holds
 * anything else is not ours. */
static void abandon_local(void)
{
    char path[PATH_MAX + 64];
    bool made_ar = T.ar != NULL, made_side = T.side >= 0;
    T.closed = true;
    if (T.main.w)
        OTF2_Archive_CloseEvtWriter(T.ar, T.main.w);
    T.main.w = NULL;
    if (T.ar) {
        OTF2_Archive_CloseEvtFiles(T.ar);
        OTF2_Archive_Close(T.ar);
    }
    T.ar = NULL;
    if (T.side >= 0)
        close(T.side);
    T.side = -1;
    if (made_ar) { /* what OTF2 wrote for an archive without events */
        snprintf(path, sizeof path, "%s/.upt/%d/traces/%d.evt", T.dir, upt_rank, upt_rank);
        unlink(path);
        snprintf(path, sizeof path, "%s/.upt/%d/traces.otf2", T.dir, upt_rank);
        unlink(path);
        snprintf(path, sizeof path, "%s/.upt/%d/traces", T.dir, upt_rank);
        rmdir(path);
        snprintf(path, sizeof path, "%s/.upt/%d", T.dir, upt_rank);
        rmdir(path);
    }
    if (made_side) {
        snprintf(path, sizeof path, "%s/.upt/%d.defs", T.dir, upt_rank);
        unlink(path);
    }
    if (T.dir[0]) { /* the last rank to get here finds it empty */
        snprintf(path, sizeof path, "%s/.upt", T.dir);
        rmdir(path);
    }
}

/* Test hook (docs/tracer.md): UNPERTURB_TEST_INIT_DELAY_MS=N makes rank
 * UNPERTURB_TEST_INIT_DELAY_RANK (default 1) end its start-up work N ms
 * late, as a rank that a loaded machine slowed down inside MPI_Init. */
static void test_init_delay(void)
{
    uint64_t ms = env_u64("UNPERTURB_TEST_INIT_DELAY_MS", 0);
    struct timespec ts;
    if (!ms || env_u64("UNPERTURB_TEST_INIT_DELAY_RANK", 1) != (uint64_t)upt_rank)
        return;
    ts.tv_sec = (time_t)(ms / 1000);
    ts.tv_nsec = (long)(ms % 1000) * 1000000;
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* upt_open and upt_open_solo: with MPI (collective over MPI_COMM_WORLD) or
 * without (rank 0 of 1) */
static bool open_run(uint64_t t_start, bool with_mpi)
{
    char host[256] = "";
    int opened, all = 0;
    if (T.ar || T.closed)
        return false;
    if (with_mpi) {
        PMPI_Comm_rank(MPI_COMM_WORLD, &upt_rank);
        PMPI_Comm_size(MPI_COMM_WORLD, &upt_size);
    } else {
        upt_rank = 0, upt_size = 1, upt_solo = 1;
    }
    upt_main_thread = pthread_self();
    upt_main_thread_set = 1;
    me = &T.main;
    if (!thread_key_made)
        thread_key_made = pthread_key_create(&thread_key, thread_gone) == 0;
    set_extra(env_u64("UNPERTURB_EXTRA_NS", 0));
    run_chunks.events_max = (size_t)env_u64("UNPERTURB_BUFFER_MB", 16);
    T.cpu = env_u64("UNPERTURB_CPU_TIME", 0) != 0;
    if (run_chunks.events_max < 1)
        run_chunks.events_max = 1;
    T.next_comm = UPT_COMM_THREADS + 1;
    /* Every rank traces, or none: what follows (the clock check, the
     * calibration, the barrier at the end, the one before the merge) is
     * collective over MPI_COMM_WORLD, and a rank that gave up alone would
     * leave the others waiting in it while it runs the program. */
    opened = choose_dir() && open_archive();
    if (!with_mpi)
        all = opened;
    else if (PMPI_Allreduce(&opened, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
        all = 0;
    if (!all) {
        if (opened)
            upt_warn("another rank could not create its trace; the run is not traced");
        abandon_local();
        return false;
    }
    prefault_buffer();
    gethostname(host, sizeof host - 1);
    clean_field(host);
    side_line("unperturb-defs\t1\n");
    side_line("rank\t%d\t%d\t%s\t%d\n", upt_rank, upt_size, host, (int)getpid());
    if (!with_mpi)
        side_line("solo\n");
    side_line("chunk\t%d\n", CHUNK_SIZE);
    side_line("start\t%llu\n", (unsigned long long)t_start);
    define_fixed_regions();
    if ((T.main.attrs = OTF2_AttributeList_New()) != NULL)
        define_attributes();
    else
        upt_warn("out of memory: wildcard receives are recorded without their attribute");
    side_line("comm\t%u\tw\t0\t\n", UPT_COMM_WORLD);
    side_line("comm\t%u\ts\t0\t%d\n", UPT_COMM_SELF, upt_rank);
    if (T.cpu)
        side_line("metric\tcpu\n");

    if (with_mpi && (T.sync = need_clock_sync()))
        clock_sync();
    return true;
}

bool upt_open(uint64_t t_start) { return open_run(t_start, true); }
bool upt_open_solo(uint64_t t_start) { return open_run(t_start, false); }

/* A child of fork() without exec has a copy of the run: it records
 * nothing and closes nothing (the files are the parent's) */
static void forked_child(void)
{
    upt_on = 0;
    upt_solo = 0;
    T.closed = true;
    T.ar = NULL;
    if (T.side >= 0)
        close(T.side);
    T.side = -1;
}

void upt_start(const char *calibration)
{
    static bool atfork;
    if (!atfork)
        atfork = pthread_atfork(NULL, NULL, forked_child) == 0;
    if (calibration && upt_rank == 0) { /* for the merge */
        char path[PATH_MAX + 64];
        int fd;
        snprintf(path, sizeof path, "%s/.upt/calibration.ini", T.dir);
        if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) >= 0) {
            if (write(fd, calibration, strlen(calibration)) < 0)
                upt_warn("cannot write '%s'", path);
            close(fd);
        }
    }
    /* the timer: a first rate now (for a run that dies), the exact one at
     * the end; a TSC rate from a short interval is still within 1e-4 */
    side_line("clock\t%s\t%llu\t%llu\t%.3f\n", upt_tsc ? "tsc" : "ns",
              (unsigned long long)clock_t0, (unsigned long long)clock_ns0, clock_rate());
    install_signals();
    /* spins that end a microsecond late from here on are stalls */
    stall_min = T.extra_ticks ? (uint64_t)(STALL_NS * clock_rate() / 1e9)
                : upt_tsc ? 0 /* spins on another clock than the trace's: no list */
                          : STALL_NS;
    upt_on = 1;
}

void upt_window_open(uint32_t region, uint64_t t_enter)
{
    upt_enter_at(region, t_enter);
    test_init_delay();
    /* Start-up in step: the ranks leave MPI_Init together, as they do
     * without the tracer (Open MPI's MPI_Init ends with a fence), and not
     * when each one's share of the work above ends: 16 ms apart on a
     * loaded machine, and the first message then waited for the late rank
     * in the window, where compensation cannot tell it from the program's
     * own waiting (issue 20).  After the clock offsets were measured, so
     * the Leave records that follow are comparable. */
    if (PMPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS)
        upt_warn("the barrier at the end of MPI_Init failed; the ranks may leave it apart");
    upt_leave(region);     /* the analysis window opens here */
}

/* ---- threads ---------------------------------------------------------------- */

/* Thread s's writer closes: its last records (upt_rec_atclose), then every
 * record reaches the disk, and the side file says how many (threads_mu
 * held, or the main thread's own) */
static void thread_close(tslot *s)
{
    uint64_t n = 0;
    if (!s->w)
        return;
    if (s->atclose)
        s->atclose(s->w, s->atclose_arg);
    OTF2_EvtWriter_GetNumberOfEvents(s->w, &n);
    OTF2_Archive_CloseEvtWriter(T.ar, s->w);
    s->w = NULL;
    if (s->attrs)
        OTF2_AttributeList_Delete(s->attrs);
    s->attrs = NULL;
    side_line("thread\t%u\t%llu\n", s->idx, (unsigned long long)n);
}

/* A thread that recorded ends (its key's destructor) */
static void thread_gone(void *p)
{
    tslot *s = p;
    pthread_mutex_lock(&threads_mu);
    if (!threads_closed) {
        thread_close(s);
        threads[s->idx] = NULL;
        free(s);
    }
    pthread_mutex_unlock(&threads_mu);
    me = &no_slot;
}

/* This thread's first record: a location of its own in this rank's archive,
 * the next index.  false: it records nothing (the run is closing, too many
 * threads, no memory), and never asks again. */
static bool thread_join(void)
{
    tslot *s = NULL;
    OTF2_EvtWriter *w = NULL;
    pthread_mutex_lock(&threads_mu);
    if (!threads_closed && T.ar && nthreads < THREADS_MAX && thread_key_made &&
        (s = calloc(1, sizeof *s)) != NULL) {
        s->idx = nthreads;
        w = OTF2_Archive_GetEvtWriter(T.ar, (OTF2_LocationRef)s->idx << 32 | (uint32_t)upt_rank);
        if (w && pthread_setspecific(thread_key, s) == 0) {
            s->w = w;
            s->attrs = OTF2_AttributeList_New(); /* (NULL: records without attributes) */
            threads[nthreads++] = s;
            side_line("thread\t%u\tbegin\n", s->idx);
        } else {
            if (w)
                OTF2_Archive_CloseEvtWriter(T.ar, w);
            free(s);
            s = NULL;
        }
    }
    if (!s && nthreads == THREADS_MAX && !threads_closed)
        upt_warn("more than %d threads: the others are not recorded", THREADS_MAX);
    pthread_mutex_unlock(&threads_mu);
    me = s ? s : &no_slot;
    return s != NULL && upt_on;
}

/* The run ends: every other thread's writer closes, after the record it may
 * be writing (recording is off: no new one begins) */
static void close_threads(void)
{
    uint32_t i;
    int tries = 1000;
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* recording is off (rec_begin) */
    /* (from a fatal signal, the interrupted thread may hold the lock: the
     * other threads' records are then lost, never waited for) */
    while (pthread_mutex_trylock(&threads_mu) != 0)
        if (!tries--)
            return;
        else
            sched_yield();
    threads_closed = true;
    for (i = 1; i < nthreads; i++) {
        tslot *s = threads[i];
        int spins_left = 1000000;
        if (!s || s == me)
            continue;
        while (s->busy && spins_left--)
            sched_yield();
        thread_close(s);
    }
    pthread_mutex_unlock(&threads_mu);
}

/* Close this rank's archive: every record so far reaches the disk. */
static void close_local(void)
{
    if (!T.ar || T.closed)
        return;
    T.closed = true;
    upt_on = 0;
    close_threads();
    if (T.main.w) {
        uint64_t n = 0;
        if (T.main.atclose)
            T.main.atclose(T.main.w, T.main.atclose_arg);
        OTF2_EvtWriter_GetNumberOfEvents(T.main.w, &n);
        OTF2_Archive_CloseEvtWriter(T.ar, T.main.w);
        T.main.w = NULL;
        OTF2_Archive_CloseEvtFiles(T.ar);
        side_line("rate\t%.3f\n", clock_rate());
        if (spins && spin_cal_ticks > 0 && clock_rate() > 0) { /* what the run's spins took */
            double ns_per = T.extra_ticks ? 1e9 / clock_rate() : 1;
            side_line("spin\t%.1f\t%.1f\n", (double)spin_ticks / (double)spins * ns_per,
                      spin_cal_ticks * ns_per);
        }
        stall_min = 0;
        if (!stall_flush())
            upt_warn("cannot write the stalls file: %s", strerror(errno));
        if (stall_fd >= 0)
            close(stall_fd);
        stall_fd = -1;
        side_line("end\t%llu\t%llu\n", (unsigned long long)n, (unsigned long long)upt_now());
    }
    OTF2_Archive_Close(T.ar);
    T.ar = NULL;
    if (T.main.attrs)
        OTF2_AttributeList_Delete(T.main.attrs);
    T.main.attrs = NULL;
    while (pool.n) /* chunks the run never needed */
        free(pool.chunks[--pool.n]);
    free(pool.chunks);
    pool.chunks = NULL;
    if (T.side >= 0)
        close(T.side);
    T.side = -1;
}

bool upt_window_close(void)
{
    if (!T.ar || T.closed)
        return false;
    upt_enter(UPT_R_MPI_Finalize); /* the analysis window closes here */
    if (T.sync) /* decided at init: no second Allgather here */
        clock_sync();
    upt_leave(UPT_R_MPI_Finalize);
    return true;
}

void upt_close(void)
{
    close_local();
}

void upt_merge(void)
{
    if (!upt_solo)
        PMPI_Barrier(MPI_COMM_WORLD);
    if (upt_rank == 0) {
        char err[512];
        if (up_merge(T.dir, NULL, err, sizeof err) != 0)
            upt_warn("%s (the per-rank traces stay in %s/.upt; retry with "
                     "'unperturb trace --recover %s')", err, T.dir, T.dir);
    }
}

static void fatal_signal(int sig)
{
    if (me && me->busy) { /* finish the record first: rec_end() calls us again */
        pending_signal = sig;
        return;
    }
    pending_signal = 0;
    close_local();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* ---- for the calibration of the record path (calib.c) --------------------------- */

static struct {
    char path[32];           /* its folder, which OTF2 leaves empty */
    OTF2_Archive *ar;
    OTF2_EvtWriter *w;       /* the run's writer, */
    tslot *me;               /* this thread's slot, */
    int on, thread_set;      /* upt_on, upt_main_thread_set */
    pthread_t thread;        /* and upt_main_thread, while it lasts */
} scratch;

bool upt_scratch_begin(void)
{
    OTF2_EvtWriter *w;
    snprintf(scratch.path, sizeof scratch.path, "/tmp/unperturb-calib-XXXXXX");
    if (!mkdtemp(scratch.path))
        return false;
    scratch_chunks.events_max = run_chunks.events_max ? run_chunks.events_max : 4;
    /* OTF2_SUBSTRATE_NONE: the records are encoded into the buffer exactly
     * as in the run, and flushes write nothing */
    scratch.ar = OTF2_Archive_Open(scratch.path, "calib", OTF2_FILEMODE_WRITE, CHUNK_SIZE, CHUNK_SIZE,
                                   OTF2_SUBSTRATE_NONE, OTF2_COMPRESSION_NONE);
    if (!scratch.ar)
        goto fail;
    if (OTF2_Archive_SetFlushCallbacks(scratch.ar, &flush_callbacks, NULL) != OTF2_SUCCESS ||
        OTF2_Archive_SetMemoryCallbacks(scratch.ar, &up_chunk_callbacks, &scratch_chunks) !=
            OTF2_SUCCESS ||
        OTF2_Archive_SetSerialCollectiveCallbacks(scratch.ar) != OTF2_SUCCESS ||
        OTF2_Archive_OpenEvtFiles(scratch.ar) != OTF2_SUCCESS ||
        !(w = OTF2_Archive_GetEvtWriter(scratch.ar, 0))) {
        OTF2_Archive_Close(scratch.ar);
        goto fail;
    }
    scratch.w = T.main.w, scratch.on = upt_on, scratch.me = me;
    scratch.thread = upt_main_thread, scratch.thread_set = upt_main_thread_set;
    T.main.w = w;
    me = &T.main;
    upt_on = 1;
    upt_main_thread = pthread_self();
    upt_main_thread_set = 1;
    return true;
fail:
    rmdir(scratch.path);
    return false;
}

void upt_scratch_end(void)
{
    OTF2_EvtWriter *w = T.main.w;
    T.main.w = scratch.w;
    me = scratch.me;
    upt_on = scratch.on;
    upt_main_thread = scratch.thread;
    upt_main_thread_set = scratch.thread_set;
    OTF2_Archive_CloseEvtWriter(scratch.ar, w);
    OTF2_Archive_CloseEvtFiles(scratch.ar);
    OTF2_Archive_Close(scratch.ar);
    rmdir(scratch.path); /* SUBSTRATE_NONE wrote nothing in it */
}

uint64_t upt_extra_ns(void) { return T.extra_ns; }

uint64_t upt_extra_swap(uint64_t ns)
{
    uint64_t was = T.extra_ns;
    T.extra_ns = ns;
    return was;
}

void upt_spins_restart(void)
{
    spin_ticks = spins = 0;
}

void upt_spins_calibrated(void)
{
    spin_cal_ticks = spins ? (double)spin_ticks / (double)spins : 0;
    spin_ticks = spins = 0; /* from here on: the run's spins */
}

void upt_calib_extra_ns(uint64_t ns)
{
    set_extra(ns);
}
