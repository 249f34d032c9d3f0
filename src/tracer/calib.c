/*
 * calib.c - the platform constants of [W] Section 4 ("the filter has a
 * component that measures platform constants"): per-record overhead O per
 * kind, copy time C(size), ping-pong latency S and per-byte time gamma, the
 * eager limit, and the cost of a failed MPI_Test without the tracer.  Every figure is the minimum of several trials: the
 * undisturbed cost, as the paper does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tracer/calib.h"
#include "tracer/upt.h"

static const char *const kind_keys[UPT_NKINDS] = {"enter", "leave", "send", "recv",
                                                  "coll_begin", "coll_end", "other",
                                                  "metric", "fn_enter", "fn_leave",
                                                  "poll_enter", "poll_leave"};

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

#define APPEND(...)                                                              \
    do {                                                                         \
        int n_ = snprintf(ini + len, cap > len ? cap - len : 0, __VA_ARGS__);    \
        if (n_ < 0 || (size_t)n_ >= (cap > len ? cap - len : 0))                 \
            return -1;                                                           \
        len += (size_t)n_;                                                       \
    } while (0)

/* The sizes of [network_by_size]: 0, 64 B, 256 B, 1 KiB, 4 KiB, 4 KiB + 1,
 * 16 KiB, ..., 16 MiB. */
enum { NNET = 12 };
static size_t net_size(unsigned i)
{
    return i == 0 ? 0 : i <= 4 ? (size_t)16 << (2 * i) : i == 5 ? 4097 : (size_t)16 << (2 * (i - 1));
}

int upt_calibrate(enum upt_calib_mode mode, uint64_t extra_ns, char *ini,
                  size_t cap)
{
    enum { NSIZES = 11 }; /* 64 B, 256 B, ..., 64 MiB */
    bool thorough = mode == UPT_CALIB_THOROUGH;
    double rec[UPT_NKINDS], rlo[UPT_NKINDS], rhi[UPT_NKINDS], copy[NSIZES], net[4] = {-1, -1, -1, -1};
    double by_size[NNET], test = -1;
    size_t sizes[NSIZES], maxsize = thorough ? (size_t)64 << 20 : (size_t)1 << 20, len = 0;
    unsigned i, nsizes = 0;
    int rank, size, ok;
    long eager;
    char *a = NULL, *b = NULL, host[256] = "", date[32] = "";
    uint64_t t_start = upt_ns();
    time_t now = time(NULL);
    struct tm tm;

    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);

    /* O per record kind, [W] eq. (1) */
    ok = upt_measure_records(rec, rlo, rhi, &test, thorough ? 20000 : 500, thorough ? 20 : 40) == 0;

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

    /* the cheapest rank is the least disturbed one; rank 0 has the network */
    {
        double all[2 * UPT_NKINDS + NSIZES + 1], out[2 * UPT_NKINDS + NSIZES + 1];
        int okall = 0;
        for (i = 0; i < UPT_NKINDS; i++) {
            all[i] = ok ? rec[i] : 1e300;
            all[UPT_NKINDS + i] = ok ? rlo[i] : 1e300;
        }
        for (i = 0; i < NSIZES; i++)
            all[2 * UPT_NKINDS + i] = i < nsizes ? copy[i] : 1e300;
        all[2 * UPT_NKINDS + NSIZES] = ok && test >= 0 ? test : 1e300;
        PMPI_Allreduce(all, out, 2 * UPT_NKINDS + NSIZES + 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
        memcpy(rec, out, sizeof rec);
        memcpy(rlo, out + UPT_NKINDS, sizeof rlo);
        memcpy(copy, out + 2 * UPT_NKINDS, sizeof copy);
        test = out[2 * UPT_NKINDS + NSIZES];
        /* the range's top is the dearest rank's */
        for (i = 0; i < UPT_NKINDS; i++)
            all[i] = ok ? rhi[i] : -1;
        PMPI_Allreduce(all, rhi, UPT_NKINDS, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        PMPI_Allreduce(&ok, &okall, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        PMPI_Bcast(net, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        PMPI_Bcast(by_size, NNET, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        ok = okall;
    }
    if (!ok)
        return -1;

    gethostname(host, sizeof host - 1);
    localtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
    APPEND("; unperturb calibration (docs/calibration.md)\n[info]\n");
    APPEND("host = %s\ndate = %s\nmode = %s\nranks = %d\nextra_ns = %llu\n", host, date,
           thorough ? "thorough" : "fast", size, (unsigned long long)extra_ns);
    APPEND("[overhead]\n; ns per record, min over trials and ranks (includes extra_ns)\n");
    for (i = 0; i < UPT_NKINDS; i++)
        APPEND("%s = %.1f\n", kind_keys[i], rec[i]);
    APPEND("[overhead_low]\n; the same, each record after work it overlaps: the upper bound's O\n");
    for (i = 0; i < UPT_NKINDS; i++)
        APPEND("%s = %.1f\n", kind_keys[i], rlo[i]);
    APPEND("[overhead_high]\n; the same, each record after work that evicted its data: the lower bound's O\n");
    for (i = 0; i < UPT_NKINDS; i++)
        APPEND("%s = %.1f\n", kind_keys[i], rhi[i]);
    APPEND("[copy]\n; memcpy ns per byte by size in bytes\n");
    for (i = 0; i < NSIZES; i++)
        if (copy[i] < 1e300)
            APPEND("%zu = %.4f\n", sizes[i], copy[i]);
    APPEND("[network]\n");
    if (net[0] >= 0)
        APPEND("; ping-pong between ranks 0 and 1\nlatency_ns = %.0f\nns_per_byte = %.4f\n",
               net[0], net[1]);
    APPEND("per_hop_ns = 0\n");
    if (net[2] >= 0 && net[3] >= 0) /* LogGP o, for unperturb simulate (docs/machine.md) */
        APPEND("; the calls of an eager send and of a receive whose message is there\n"
               "send_overhead_ns = %.0f\nrecv_overhead_ns = %.0f\n", net[2], net[3]);
    if (eager > 0)
        APPEND("eager_limit = %ld\n", eager);
    if (test < 1e300) /* for the polls of compensate (docs/models.md, "Polling") */
        APPEND("; one failed MPI_Test without the tracer, on a receive that never comes\n"
               "test_ns = %.1f\n", test);
    if (by_size[0] >= 0) {
        APPEND("[network_by_size]\n; one-way ns of a message by size in bytes, ping-pong between ranks 0 "
               "and 1, copies included\n");
        for (i = 0; i < NNET && by_size[i] >= 0; i++)
            APPEND("%zu = %.0f\n", net_size(i), by_size[i]);
    }
    APPEND("; calibration took %.1f ms\n", (double)(upt_ns() - t_start) / 1e6);
    return 0;
}
