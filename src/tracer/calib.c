/*
 * calib.c - the platform constants of [W] Section 4 ("the filter has a
 * component that measures platform constants"): per-record overhead O per
 * kind, copy time C(size), ping-pong latency S and per-byte time gamma, the
 * eager limit, and the cost of a failed MPI_Test without the tracer.  Every
 * figure is the minimum of several trials: the undisturbed cost, as the
 * paper does.  The text they are written as is src/trace's (trace/calib.h).
 *
 * Above tracer.c: the records are timed through its record functions, in a
 * scratch archive it opens for them (upt_scratch_begin), with its extra
 * cost paused and timed apart; tracer.c knows nothing of this file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "trace/calib.h"
#include "tracer/calib.h"
#include "tracer/funcs.h"
#include "tracer/upt.h"

/* ---- the cost of a record (O, [W] eq. (1)) ------------------------------------- */

/* One round of self-communication on MPI_COMM_SELF, through the wrappers
 * (`wrapped`) or straight to PMPI: MPI_Irecv, MPI_Isend, MPI_Waitall; ten
 * records when wrapped.  Returns the ns of `n` rounds. */
static double self_rounds(unsigned n, bool wrapped)
{
    int a = 1, b = 0;
    MPI_Request r[2];
    unsigned i;
    uint64_t t0 = upt_ns();
    for (i = 0; i < n; i++)
        if (wrapped) {
            MPI_Irecv(&b, 1, MPI_INT, 0, 7175, MPI_COMM_SELF, &r[0]);
            MPI_Isend(&a, 1, MPI_INT, 0, 7175, MPI_COMM_SELF, &r[1]);
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        } else {
            PMPI_Irecv(&b, 1, MPI_INT, 0, 7175, MPI_COMM_SELF, &r[0]);
            PMPI_Isend(&a, 1, MPI_INT, 0, 7175, MPI_COMM_SELF, &r[1]);
            PMPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        }
    return (double)(upt_ns() - t0);
}

/* The wrappers' own work besides their records (argument checks, the
 * request table, communicator and datatype lookups), per MPI call: three
 * wrapped calls cost their ten records plus three times this.  Measured as
 * wrapped minus PMPI rounds, less the records' calibrated cost. */
static double wrapper_glue(const double ns[UP_RK_COUNT], unsigned n, unsigned trials)
{
    double w = -1, p = -1, rec;
    unsigned t;
    for (t = 0; t < trials; t++) {
        double x = self_rounds(n, true) / n, y = self_rounds(n, false) / n;
        if (w < 0 || x < w)
            w = x;
        if (p < 0 || y < p)
            p = y;
    }
    /* Irecv: Enter, IrecvRequest (other), Leave; Isend: Enter, Isend, Leave;
     * Waitall: Enter, Irecv, IsendComplete (other), Leave */
    rec = 3 * ns[UP_RK_ENTER] + 3 * ns[UP_RK_LEAVE] + ns[UP_RK_SEND] + ns[UP_RK_RECV] + 2 * ns[UP_RK_OTHER];
    return w - p > rec ? (w - p - rec) / 3 : 0;
}

/* The glue of a POSIX-thread wrapper (pthreads.c: whose call, the object's
 * entry, the region's id), per call: mutex lock/unlock pairs through the
 * recording path less straight pairs, less their six records (an Enter, a
 * ThreadAcquireLock and a Leave each), halved; min over trials.  A run with
 * MPI keeps the MPI calls' glue for every Enter and Leave (docs/calibration.md). */
static double pthread_glue(const double ns[UP_RK_COUNT], unsigned n, unsigned trials)
{
    double best = -1, w, s;
    unsigned t;
    for (t = 0; t < trials; t++) {
        w = upt_pthread_probe(n, &s);
        if (best < 0 || w - s < best)
            best = w - s;
    }
    best -= 2 * (ns[UP_RK_ENTER] + ns[UP_RK_LEAVE] + ns[UP_RK_LOCK]);
    return best > 0 ? best / 2 : 0;
}

/* The same for the test and probe family (issue 20, item 4): MPI_Test on a
 * receive that never comes, through the wrapper or straight to PMPI.  Its
 * wrapper is thinner than those of wrapper_glue (a request lookup, no
 * table insert or copy): in a loop of failed MPI_Test calls a poll cost
 * 42 ns traced, 35 of them its three records, while the glue above gave
 * every Enter and Leave 16 ns more.  Returns the glue per call, or -1;
 * *test_ns: one PMPI_Test, the uninstrumented call (issue 21), or -1. */
static double poll_glue(const double ns[UP_RK_COUNT], unsigned n, unsigned trials, double *test_ns)
{
    int b = 0, flag = 0;
    double w = -1, p = -1, rec;
    unsigned t, i;
    MPI_Request r;
    *test_ns = -1;
    if (MPI_Irecv(&b, 1, MPI_INT, 0, 7177, MPI_COMM_SELF, &r) != MPI_SUCCESS)
        return -1;
    for (t = 0; t < trials; t++) {
        uint64_t t0 = upt_ns(), t1;
        double x, y;
        for (i = 0; i < n; i++)
            MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        t1 = upt_ns();
        for (i = 0; i < n; i++)
            PMPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        x = (double)(t1 - t0) / n;
        y = (double)(upt_ns() - t1) / n;
        if (w < 0 || x < w)
            w = x;
        if (p < 0 || y < p)
            p = y;
    }
    MPI_Cancel(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    *test_ns = p;
    /* Enter, MpiRequestTest (other), Leave */
    rec = ns[UP_RK_ENTER] + ns[UP_RK_OTHER] + ns[UP_RK_LEAVE];
    return w - p > rec ? w - p - rec : 0;
}

/* ---- how much a record costs inside a program (the range of O) ------------------ */

/* Work a program does between records, for record_range(): a dependent
 * chain of floating-point operations (about 60 ns here) that the processor
 * can overlap a record with, and a pass that dirties 32 KiB (a first-level
 * data cache), after which the record finds its data gone.  64 KiB, or
 * reading instead of writing, gave the same range here, less steadily. */
static double range_sink;
static unsigned char range_buf[32 << 10];

static inline double range_work(int setting, double x)
{
    unsigned j;
    if (setting == 0)
        for (j = 0; j < 32; j++)
            x = x * 1.0000001 + 1e-9;
    else
        for (j = 0; j < sizeof range_buf; j += 64)
            range_buf[j]++;
    return x;
}

/* ns of n rounds, each of the work of `setting` (none: -1) followed by an
 * Enter/Leave pair of the tracer's own region when `records` */
static double range_rounds(int setting, unsigned n, bool records)
{
    double x = 1;
    unsigned i;
    uint64_t t0 = upt_ns();
    for (i = 0; i < n; i++) {
        if (setting >= 0)
            x = range_work(setting, x);
        if (records) {
            upt_enter(UPT_R_OVERHEAD);
            upt_leave(UPT_R_OVERHEAD);
        }
    }
    t0 = upt_ns() - t0;
    range_sink += x;
    return (double)t0;
}

/* The cost of an Enter/Leave pair between a program's work, as a ratio to
 * its cost back to back: *lo after work it overlaps (at most 1), *hi after
 * work that evicted its data (at least 1).  Each cost is the difference of
 * two minima over the trials, with and without the records. */
static void record_range(unsigned n, unsigned trials, double *lo, double *hi)
{
    double with[2] = {-1, -1}, without[2] = {-1, -1}, tight = -1, v;
    unsigned t;
    int s;
    for (t = 0; t < trials; t++) {
        v = range_rounds(-1, n, true);
        if (tight < 0 || v < tight)
            tight = v;
        for (s = 0; s < 2; s++) {
            v = range_rounds(s, n, true);
            if (with[s] < 0 || v < with[s])
                with[s] = v;
            v = range_rounds(s, n, false);
            if (without[s] < 0 || v < without[s])
                without[s] = v;
        }
    }
    *lo = tight > 0 ? (with[0] - without[0]) / tight : 1;
    *hi = tight > 0 ? (with[1] - without[1]) / tight : 1;
    if (getenv("UNPERTURB_CALIB_DEBUG"))
        upt_warn("range of O: an Enter/Leave pair costs %.1f ns back to back, %.1f after "
                 "overlapped work, %.1f after a cache eviction", tight / n,
                 (with[0] - without[0]) / n, (with[1] - without[1]) / n);
    *lo = *lo < 0 ? 0 : *lo > 1 ? 1 : *lo;
    *hi = *hi < 1 ? 1 : *hi;
}

/* The cost of one record of each kind, ns, the minimum over `trials` runs
 * of `n` back-to-back records written to a scratch archive that writes no
 * file (upt_scratch_begin); fn_enter and fn_leave: half an Enter/Leave pair
 * through the -finstrument-functions hooks.  lo and hi: the range of the
 * same costs inside a program (ns scaled by the cost of an Enter/Leave pair
 * after work it overlaps, and after work that evicted its data;
 * docs/calibration.md).  *test_ns: one failed PMPI_Test without the tracer,
 * the minimum over the same trials (-1: not measured).  0, or -1. */
static int measure_records(double ns[UP_RK_COUNT], double lo[UP_RK_COUNT], double hi[UP_RK_COUNT],
                           double *test_ns, unsigned n, unsigned trials)
{
    unsigned k, i, tr;
    uint64_t extra;

    *test_ns = -1;
    if (!upt_scratch_begin())
        return -1;
    for (k = 0; k < UP_RK_COUNT; k++)
        ns[k] = -1;
    /* the extra cost is timed on its own and added: thousands of records
     * with it would make a calibration of minutes */
    extra = upt_extra_swap(0);
    for (tr = 0; tr < trials; tr++) {
        double pair = upt_funcs_measure(n);
        /* the hooks' two halves are alike: half a pair each */
        if (pair >= 0 && (ns[UP_RK_FN_ENTER] < 0 || pair / 2 < ns[UP_RK_FN_ENTER]))
            ns[UP_RK_FN_ENTER] = ns[UP_RK_FN_LEAVE] = pair / 2;
        for (k = 0; k < UP_RK_COUNT; k++) {
            uint64_t t0, t1;
            if (k >= UP_RK_FN_ENTER && k <= UP_RK_POLL_LEAVE)
                continue; /* the hooks' above; the polls' from enter and leave below */
            t0 = upt_ns();
            for (i = 0; i < n; i++)
                switch (k) {
                /* a region without a metric record: that is kind "metric" */
                case UP_RK_ENTER: upt_enter(UPT_R_OVERHEAD); break;
                case UP_RK_LEAVE: upt_leave(UPT_R_OVERHEAD); break;
                case UP_RK_SEND: upt_send(1, UPT_COMM_WORLD, 7, 1024); break;
                case UP_RK_RECV: upt_recv(1, UPT_COMM_WORLD, 7, 1024, 0); break;
                case UP_RK_COLL_BEGIN: upt_coll_begin(); break;
                case UP_RK_COLL_END: upt_coll_end(OTF2_COLLECTIVE_OP_ALLREDUCE, UPT_COMM_WORLD,
                                                  OTF2_UNDEFINED_UINT32, 8, 8); break;
                case UP_RK_OTHER: upt_request_test(i); break;
                case UP_RK_THREAD: upt_thread_record_probe(i); break;
                case UP_RK_LOCK: upt_lock_record_probe(i); break;
                default: upt_cpu_metric(upt_now()); break; /* UP_RK_METRIC */
                }
            t1 = upt_ns();
            /* the clock read ending one record is the next one's start */
            if (ns[k] < 0 || (double)(t1 - t0) / n < ns[k])
                ns[k] = (double)(t1 - t0) / n;
        }
    }
    if (ns[UP_RK_FN_ENTER] < 0) /* no hooks on this thread: as plain Enter and Leave */
        ns[UP_RK_FN_ENTER] = ns[UP_RK_ENTER], ns[UP_RK_FN_LEAVE] = ns[UP_RK_LEAVE];
    {
        /* the glue of an MPI call lies around its Enter and its Leave; a
         * poll's (poll_glue) around its own */
        /* without MPI the wrapped calls are the POSIX-thread ones */
        double g = upt_solo ? pthread_glue(ns, n, trials) : wrapper_glue(ns, n / 5 ? n / 5 : 1, trials),
               pg = upt_solo ? g : poll_glue(ns, n, trials, test_ns);
        if (pg < 0)
            pg = g;
        ns[UP_RK_POLL_ENTER] = ns[UP_RK_ENTER] + pg / 2;
        ns[UP_RK_POLL_LEAVE] = ns[UP_RK_LEAVE] + pg / 2;
        ns[UP_RK_ENTER] += g / 2;
        ns[UP_RK_LEAVE] += g / 2;
    }
    {
        /* the range of O: the same records between a program's work */
        double rlo, rhi;
        record_range(n, trials, &rlo, &rhi);
        for (k = 0; k < UP_RK_COUNT; k++)
            lo[k] = ns[k] * rlo, hi[k] = ns[k] * rhi;
    }
    upt_extra_swap(extra);
    if (extra) {
        /* The spin as the run has it: right after a record.  An Enter/Leave
         * pair with spins, less the same pair without, per record; spins
         * timed back to back on their own came out 7-20 ns dearer at 883 ns
         * (the processor overlaps the end of a record with the spin). */
        unsigned pairs = extra >= 1000000 ? 1 : (unsigned)(1000000 / extra);
        double with = -1, without = -1, v;
        if (pairs > n)
            pairs = n;
        upt_spins_restart();
        for (tr = 0; tr < 5; tr++) {
            upt_extra_swap(0);
            v = range_rounds(-1, pairs, true);
            upt_extra_swap(extra);
            if (without < 0 || v < without)
                without = v;
            v = range_rounds(-1, pairs, true);
            if (with < 0 || v < with)
                with = v;
        }
        v = (with - without) / (2.0 * pairs);
        if (v < 0)
            v = 0;
        for (k = 0; k < UP_RK_COUNT; k++)
            ns[k] += v, lo[k] += v, hi[k] += v;
        /* the mean spin as the run's spins count it, for [overhead_by_location] */
        upt_spins_calibrated();
    }
    upt_scratch_end();
    return 0;
}

/* ---- copies and messages ------------------------------------------------------- */

/* ns per byte of memcpy for `size` bytes, min over trials; the loop copies
 * at least `min_total` bytes per trial so small sizes are timed in bulk */
static double copy_ns_per_byte(char *dst, const char *src, size_t size, unsigned trials,
                               size_t min_total)
{
    double best = -1;
    unsigned t;
    size_t reps = size >= min_total ? 1 : min_total / size, i;
    for (t = 0; t < trials; t++) {
        uint64_t t0 = upt_ns(), t1;
        for (i = 0; i < reps; i++) {
            memcpy(dst, src, size);
            __asm__ volatile("" : : "r"(dst) : "memory"); /* keep every copy */
        }
        t1 = upt_ns();
        double v = (double)(t1 - t0) / ((double)reps * (double)size);
        if (best < 0 || v < best)
            best = v;
    }
    return best;
}

/* One-way time of a `size`-byte message between ranks 0 and 1: half the
 * shortest round trip. */
static double pingpong(int rank, char *buf, int size, unsigned trips)
{
    double best = -1;
    unsigned k;
    for (k = 0; k < trips; k++) {
        uint64_t t0 = upt_ns();
        if (rank == 0) {
            PMPI_Send(buf, size, MPI_BYTE, 1, 7173, MPI_COMM_WORLD);
            PMPI_Recv(buf, size, MPI_BYTE, 1, 7174, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            PMPI_Recv(buf, size, MPI_BYTE, 0, 7173, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            PMPI_Send(buf, size, MPI_BYTE, 0, 7174, MPI_COMM_WORLD);
        }
        double v = (double)(upt_ns() - t0) / 2;
        if (best < 0 || v < best)
            best = v;
    }
    return best;
}

/* LogGP's o between ranks 0 and 1: the time of an eager send's call, per
 * send of a burst of 0-byte sends (rank 0), and of a receive whose message
 * has already arrived, per receive of a burst (rank 1, after a token sent
 * behind the burst came in); min over trials.  Rank 0 gets both. */
static void send_recv_overheads(int rank, char *buf, unsigned trials, double *os, double *orr)
{
    enum { BURST = 64, TAG = 7175, TOKEN = 7176 };
    double best_s = -1, best_r = -1;
    unsigned k, i;
    for (k = 0; k < trials; k++) {
        uint64_t t0;
        double v;
        if (rank == 0) { /* o_s: the receiver drains as fast as it can */
            t0 = upt_ns();
            for (i = 0; i < BURST; i++)
                PMPI_Send(buf, 0, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
            v = (double)(upt_ns() - t0) / BURST;
            best_s = best_s < 0 || v < best_s ? v : best_s;
            PMPI_Recv(buf, 0, MPI_BYTE, 1, TOKEN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (i = 0; i < BURST; i++) /* o_r: sent before the token */
                PMPI_Send(buf, 0, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
            PMPI_Send(buf, 0, MPI_BYTE, 1, TOKEN, MPI_COMM_WORLD);
            PMPI_Recv(buf, 0, MPI_BYTE, 1, TOKEN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (i = 0; i < BURST; i++)
                PMPI_Recv(buf, 0, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            PMPI_Send(buf, 0, MPI_BYTE, 0, TOKEN, MPI_COMM_WORLD);
            PMPI_Recv(buf, 0, MPI_BYTE, 0, TOKEN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            t0 = upt_ns();
            for (i = 0; i < BURST; i++)
                PMPI_Recv(buf, 0, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            v = (double)(upt_ns() - t0) / BURST;
            best_r = best_r < 0 || v < best_r ? v : best_r;
            PMPI_Send(buf, 0, MPI_BYTE, 0, TOKEN, MPI_COMM_WORLD);
        }
    }
    if (rank == 1)
        PMPI_Send(&best_r, 1, MPI_DOUBLE, 0, TOKEN, MPI_COMM_WORLD);
    else
        PMPI_Recv(&best_r, 1, MPI_DOUBLE, 1, TOKEN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    *os = best_s;
    *orr = best_r;
}

/* The eager limit of Open MPI's shared-memory transport, through the MPI
 * tool information interface; 0 if it cannot be read. */
static long eager_limit(void)
{
    static const char *const names[] = {"btl_vader_eager_limit", "btl_sm_eager_limit"};
    int provided, n = 0, i;
    long result = 0;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        return 0;
    MPI_T_cvar_get_num(&n);
    for (i = 0; i < n && !result; i++) {
        char name[256], desc[16];
        int nlen = sizeof name, dlen = sizeof desc, verb, bind, scope;
        MPI_Datatype dt;
        MPI_T_enum en;
        size_t j;
        if (MPI_T_cvar_get_info(i, name, &nlen, &verb, &dt, &en, desc, &dlen, &bind, &scope) !=
            MPI_SUCCESS)
            continue;
        for (j = 0; j < sizeof names / sizeof *names; j++)
            if (!strcmp(name, names[j])) {
                MPI_T_cvar_handle h;
                int count;
                unsigned long long v = 0;
                if (MPI_T_cvar_handle_alloc(i, NULL, &h, &count) != MPI_SUCCESS)
                    break;
                if (dt == MPI_INT) {
                    int x = 0;
                    if (MPI_T_cvar_read(h, &x) == MPI_SUCCESS)
                        v = (unsigned long long)x;
                } else if (dt == MPI_UNSIGNED || dt == MPI_UNSIGNED_LONG ||
                           dt == MPI_UNSIGNED_LONG_LONG || dt == MPI_LONG ||
                           dt == MPI_LONG_LONG || dt == MPI_COUNT) {
                    if (MPI_T_cvar_read(h, &v) != MPI_SUCCESS)
                        v = 0;
                }
                MPI_T_cvar_handle_free(&h);
                result = (long)v;
                break;
            }
    }
    MPI_T_finalize();
    return result;
}

/* The sizes of [network_by_size]: 0, 64 B, 256 B, 1 KiB, 4 KiB, 4 KiB + 1,
 * 16 KiB, ..., 16 MiB. */
enum { NNET = 12 };
static size_t net_size(unsigned i)
{
    return i == 0 ? 0 : i <= 4 ? (size_t)16 << (2 * i) : i == 5 ? 4097 : (size_t)16 << (2 * (i - 1));
}

int upt_calibrate(enum upt_calib_mode mode, char *ini, size_t cap)
{
    enum { NSIZES = 11 }; /* 64 B, 256 B, ..., 64 MiB */
    bool thorough = mode == UPT_CALIB_THOROUGH;
    double rec[UP_RK_COUNT], rlo[UP_RK_COUNT], rhi[UP_RK_COUNT], copy[NSIZES], net[4] = {-1, -1, -1, -1};
    double by_size[NNET], test = -1;
    size_t sizes[NSIZES], maxsize = thorough ? (size_t)64 << 20 : (size_t)1 << 20;
    unsigned i, nsizes = 0;
    int rank, size, ok;
    long eager;
    char *a = NULL, *b = NULL, host[256] = "", date[32] = "";
    uint64_t t_start = upt_ns();
    time_t now = time(NULL);
    struct tm tm;
    up_calib c;
    up_calib_info info;

    if (upt_solo) {
        rank = 0, size = 1;
    } else {
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        PMPI_Comm_size(MPI_COMM_WORLD, &size);
    }

    /* O per record kind, [W] eq. (1) */
    ok = measure_records(rec, rlo, rhi, &test, thorough ? 20000 : 500, thorough ? 20 : 40) == 0;

    /* C(size) */
    for (i = 0; i < NSIZES; i++)
        sizes[i] = (size_t)64 << (2 * i);
    /* one block, the destination 2 KiB off the source modulo 4 KiB: after
     * MPI_Init Open MPI's malloc takes both buffers from the heap 1 MiB +
     * 16 B apart, and a copy whose destination lies a few bytes after its
     * source modulo 4 KiB stalls on 4K aliasing (0.45-0.75 ns/B for 4-256
     * KiB here, against 0.02-0.09 for buffers apart; docs/tracer.md) */
    if ((a = malloc(2 * maxsize + 8192)))
        b = a + maxsize + 4096 + 2048;
    if (a && b) {
        memset(a, 1, maxsize), memset(b, 2, maxsize); /* fault the pages in first */
        for (i = 0; i < NSIZES && sizes[i] <= maxsize; i++, nsizes++)
            copy[i] = copy_ns_per_byte(b, a, sizes[i], thorough ? 7 : 3,
                                       thorough ? (size_t)4 << 20 : (size_t)256 << 10);
    }

    /* S and gamma: latency of a 0-byte message; gamma from 1 MiB (fast: 64 KiB).
     * The one-way time by size, [network_by_size]: 0 B, the copy sizes, and
     * one byte past Open MPI's shared-memory eager limit (4 KiB), so that
     * the table has the protocols the sizes use; up to 1 MiB (thorough
     * 16 MiB).  It holds the copies, as many as the protocol makes. */
    for (i = 0; i < NNET; i++)
        by_size[i] = -1;
    if (size >= 2 && rank < 2) {
        int big = thorough ? 1 << 20 : 64 << 10;
        char *buf = a ? a : malloc((size_t)big);
        if (buf) {
            pingpong(rank, buf, 0, 5); /* warm up the connection */
            net[0] = pingpong(rank, buf, 0, thorough ? 1000 : 20);
            net[1] = (pingpong(rank, buf, big, thorough ? 50 : 3) - net[0]) / big;
            if (net[1] < 0)
                net[1] = 0;
            for (i = 0; i < NNET && a; i++) {
                size_t n = net_size(i);
                if (n > maxsize || n > (thorough ? (size_t)16 << 20 : (size_t)1 << 20))
                    break;
                by_size[i] = pingpong(rank, buf, (int)n,
                                      n <= 4096 ? (thorough ? 200 : 20) : n <= (64 << 10) ? (thorough ? 50 : 5)
                                                                                        : (thorough ? 10 : 3));
            }
            if (thorough) /* for unperturb simulate's machine files */
                send_recv_overheads(rank, buf, 200, &net[2], &net[3]);
            if (buf != a)
                free(buf);
        }
    }
    /* MPI_T costs about 200 ms here (every component registers its
     * variables): only the thorough calibration asks it; the fast one takes
     * an explicit setting from the environment */
    if (thorough)
        eager = eager_limit();
    else {
        const char *e = getenv("OMPI_MCA_btl_vader_eager_limit");
        eager = e ? atol(e) : 0;
    }
    free(a); /* (b lies in a's block) */

    /* the cheapest rank is the least disturbed one; rank 0 has the network
     * (without MPI: this process's own figures) */
    {
        double all[2 * UP_RK_COUNT + NSIZES + 1], out[2 * UP_RK_COUNT + NSIZES + 1];
        int okall = 0;
        for (i = 0; i < UP_RK_COUNT; i++) {
            all[i] = ok ? rec[i] : 1e300;
            all[UP_RK_COUNT + i] = ok ? rlo[i] : 1e300;
        }
        for (i = 0; i < NSIZES; i++)
            all[2 * UP_RK_COUNT + i] = i < nsizes ? copy[i] : 1e300;
        all[2 * UP_RK_COUNT + NSIZES] = ok && test >= 0 ? test : 1e300;
        if (upt_solo)
            memcpy(out, all, sizeof out);
        else
            PMPI_Allreduce(all, out, 2 * UP_RK_COUNT + NSIZES + 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
        memcpy(rec, out, sizeof rec);
        memcpy(rlo, out + UP_RK_COUNT, sizeof rlo);
        memcpy(copy, out + 2 * UP_RK_COUNT, sizeof copy);
        test = out[2 * UP_RK_COUNT + NSIZES];
        /* the range's top is the dearest rank's */
        for (i = 0; i < UP_RK_COUNT; i++)
            all[i] = ok ? rhi[i] : -1;
        if (upt_solo) {
            memcpy(rhi, all, sizeof rhi);
            okall = ok;
        } else {
            PMPI_Allreduce(all, rhi, UP_RK_COUNT, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            PMPI_Allreduce(&ok, &okall, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            PMPI_Bcast(net, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            PMPI_Bcast(by_size, NNET, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        }
        ok = okall;
    }
    if (!ok)
        return -1;

    gethostname(host, sizeof host - 1);
    localtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
    memset(&c, 0, sizeof c);
    for (i = 0; i < UP_RK_COUNT; i++) {
        c.o_given[i] = c.low_given[i] = c.high_given[i] = true;
        c.o_ns[i] = rec[i], c.low_ns[i] = rlo[i], c.high_ns[i] = rhi[i];
    }
    for (i = 0; i < NSIZES; i++)
        if (copy[i] < 1e300) {
            c.copy_bytes[c.ncopy] = sizes[i];
            c.copy_ns_per_byte[c.ncopy++] = copy[i];
        }
    if (net[0] >= 0) {
        c.net_given[UP_CN_LATENCY] = c.net_given[UP_CN_NS_PER_BYTE] = true;
        c.net[UP_CN_LATENCY] = net[0], c.net[UP_CN_NS_PER_BYTE] = net[1];
    }
    c.net_given[UP_CN_PER_HOP] = true; /* one node: 0 */
    if (net[2] >= 0 && net[3] >= 0) { /* LogGP o, for unperturb simulate (docs/machine.md) */
        c.net_given[UP_CN_SEND_OVERHEAD] = c.net_given[UP_CN_RECV_OVERHEAD] = true;
        c.net[UP_CN_SEND_OVERHEAD] = net[2], c.net[UP_CN_RECV_OVERHEAD] = net[3];
    }
    if (eager > 0)
        c.net_given[UP_CN_EAGER_LIMIT] = true, c.net[UP_CN_EAGER_LIMIT] = (double)eager;
    if (test < 1e300) /* for the polls of compensate (docs/models.md, "Polling") */
        c.net_given[UP_CN_TEST] = true, c.net[UP_CN_TEST] = test;
    for (i = 0; i < NNET && by_size[i] >= 0; i++) {
        c.net_bytes[c.nnet] = net_size(i);
        c.net_ns[c.nnet++] = by_size[i];
    }
    info.host = host;
    info.date = date;
    info.mode = thorough ? "thorough" : "fast";
    info.ranks = size;
    info.extra_ns = (unsigned long long)upt_extra_ns();
    info.took_ms = (double)(upt_ns() - t_start) / 1e6;
    return up_calib_write(ini, cap, &c, &info);
}
