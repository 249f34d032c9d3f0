/*
 * test_truth.c - a program of known truth.
 *
 * A small 4-rank MPI program (master/worker phases with imbalanced traced
 * function calls, Allreduce, Bcast, Reduce, a ring exchange, a Barrier) is
 * run twice on a discrete-event simulator of its own (below; it shares no
 * code or formulas with src/replay or src/model):
 *   - uninstrumented: no records, no overhead -> the true run time T;
 *   - instrumented: every record costs a fixed O ns after its timestamp,
 *     written as an OTF2 trace with tests/tracegen.
 * The trace is then compensated with the library in lower, upper and
 * network mode, and the approximated run time is compared with T.
 *
 * Machine (identical in both runs except for the records), times in ns,
 * trace resolution 1e9 ticks/s so 1 tick = 1 ns:
 *   network: a message of n bytes is C_a(n) = S + n*gamma in flight;
 *   copy:    c(n) = copy_per_byte * n at the sender and at the receiver;
 *   MPI_Send is eager: leaves at ts + O + c(n), data arrives C_a later;
 *   MPI_Recv completes at max(ready, arrival) + c(n);
 *   Barrier/Allreduce complete at max(ready_i) + D on all ranks;
 *   Bcast/Reduce: root/non-root copies and one message time C_a.
 * Run time = earliest Leave(MPI_Init) .. latest Enter(MPI_Finalize).
 */
#include "test.h"
#include "tracegen.h"
#include "tutil.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NP 4
#define NTAGS 4
#define QCAP 64
#define NITER 20

/* machine constants (ns); sizes are multiples of 4 so everything is integral */
#define S_NS 2000u           /* network latency S */
#define GAMMA_DIV 2u         /* gamma = 1/2 ns per byte */
#define COPY_DIV 4u          /* copy = 1/4 ns per byte */
#define D_NS (2u * (S_NS + 8u / GAMMA_DIV)) /* collective synchronisation */
#define O_NS 150u            /* per-record overhead of the instrumented run */
#define T_INIT 1000u         /* every rank leaves MPI_Init here */

#define TAG_WORK 0u
#define TAG_RESULT 1u
#define TAG_HALO 2u

static uint64_t copy_ns(uint64_t n)
{
    return n / COPY_DIV;
}

static uint64_t wire_ns(uint64_t n)
{
    return S_NS + n / GAMMA_DIV;
}

/* ---- the program: one sequential script per rank ----------------------- */

enum op_kind {
    OP_COMPUTE,  /* n = duration */
    OP_CALL,     /* Enter(get_coords), compute n, Leave(get_coords) */
    OP_SEND,     /* to peer, tag, n bytes */
    OP_RECV,     /* from peer, tag, n bytes */
    OP_ALLREDUCE,/* n bytes */
    OP_BARRIER,
    OP_BCAST,    /* root peer, n bytes */
    OP_REDUCE    /* root peer, n bytes from each rank */
};

typedef struct op {
    enum op_kind kind;
    unsigned peer;
    uint32_t tag;
    uint64_t n;
} op;

typedef struct script {
    op *v;
    size_t n, cap;
} script;

static void push(script *s, enum op_kind kind, unsigned peer, uint32_t tag, uint64_t n)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        op *v = realloc(s->v, cap * sizeof *v);
        if (!v) {
            fprintf(stderr, "test_truth: out of memory\n");
            exit(99);
        }
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n].kind = kind;
    s->v[s->n].peer = peer;
    s->v[s->n].tag = tag;
    s->v[s->n].n = n;
    s->n++;
}

/* deterministic pseudo-random integer in [lo, hi] */
static uint64_t rnd(uint32_t *state, uint64_t lo, uint64_t hi)
{
    *state = *state * 1664525u + 1013904223u;
    return lo + (uint64_t)(*state >> 8) % (hi - lo + 1);
}

static void build_program(script sc[NP])
{
    static const uint64_t calls[3] = {110, 190, 270};
    uint32_t rng = 20240601u;
    unsigned it, r, w;
    uint64_t k, nc;

    for (it = 0; it < NITER; it++) {
        /* master/worker phase */
        push(&sc[0], OP_COMPUTE, 0, 0, 800);
        for (w = 1; w < NP; w++)
            push(&sc[0], OP_SEND, w, TAG_WORK, 1024);
        for (k = 0; k < 30; k++) {
            push(&sc[0], OP_COMPUTE, 0, 0, rnd(&rng, 200, 400));
            push(&sc[0], OP_CALL, 0, 0, rnd(&rng, 200, 400));
        }
        for (w = 1; w < NP; w++)
            push(&sc[0], OP_RECV, w, TAG_RESULT, 64);
        for (w = 1; w < NP; w++) {
            push(&sc[w], OP_RECV, 0, TAG_WORK, 1024);
            nc = calls[(w - 1 + it) % 3] + (it * 7u) % 20u;
            for (k = 0; k < nc; k++) {
                push(&sc[w], OP_COMPUTE, 0, 0, rnd(&rng, 200, 400));
                push(&sc[w], OP_CALL, 0, 0, rnd(&rng, 200, 400));
            }
            push(&sc[w], OP_SEND, 0, TAG_RESULT, 64);
        }
        for (r = 0; r < NP; r++) {
            push(&sc[r], OP_COMPUTE, 0, 0, rnd(&rng, 300, 900));
            push(&sc[r], OP_ALLREDUCE, 0, 0, 8);
        }
        if (it % 4 == 3) {
            for (r = 0; r < NP; r++) {
                push(&sc[r], OP_COMPUTE, 0, 0, rnd(&rng, 500, 3000));
                push(&sc[r], OP_BCAST, 0, 0, 256);
                push(&sc[r], OP_COMPUTE, 0, 0, rnd(&rng, 1000, 6000));
                push(&sc[r], OP_REDUCE, 0, 0, 64);
                push(&sc[r], OP_COMPUTE, 0, 0, rnd(&rng, 200, 2000));
                push(&sc[r], OP_SEND, (r + 1) % NP, TAG_HALO, 512);
                push(&sc[r], OP_RECV, (r + NP - 1) % NP, TAG_HALO, 512);
            }
        }
    }
    for (r = 0; r < NP; r++) {
        push(&sc[r], OP_COMPUTE, 0, 0, rnd(&rng, 200, 1200));
        push(&sc[r], OP_BARRIER, 0, 0, 0);
    }
}

/* ---- the simulator ------------------------------------------------------ */

typedef struct sim {
    uint64_t o;           /* per-record overhead: O_NS or 0 */
    tg *g;                /* trace writer, NULL when uninstrumented */
    const script *sc;
    uint64_t clk[NP];
    size_t pc[NP];
    bool posted[NP];      /* waiting inside a collective */
    bool done[NP];
    uint64_t fin_enter[NP];
    /* messages in flight: arrival times per (src, dst, tag), FIFO */
    uint64_t q[NP][NP][NTAGS][QCAP];
    size_t qh[NP][NP][NTAGS], qt[NP][NP][NTAGS];
    /* the pending collective */
    unsigned arrived;
    uint64_t c_enter[NP], c_begin[NP], c_ready[NP];
    bool error;
} sim;

/* a region record at the rank's clock, then its overhead */
static void rec_enter(sim *s, unsigned r, tg_region_t reg)
{
    if (s->g)
        tg_enter(s->g, r, s->clk[r], reg);
    s->clk[r] += s->o;
}

static void rec_leave(sim *s, unsigned r, tg_region_t reg)
{
    if (s->g)
        tg_leave(s->g, r, s->clk[r], reg);
    s->clk[r] += s->o;
}

static void sim_start(sim *s, unsigned r)
{
    s->clk[r] = 0;
    rec_enter(s, r, TG_MAIN);
    rec_enter(s, r, TG_INIT);
    s->clk[r] = T_INIT;
    rec_leave(s, r, TG_INIT);
}

static void sim_finish(sim *s, unsigned r)
{
    s->fin_enter[r] = s->clk[r];
    rec_enter(s, r, TG_FINALIZE);
    s->clk[r] += 5000;
    rec_leave(s, r, TG_FINALIZE);
    rec_leave(s, r, TG_MAIN);
}

/* Executes the next operation of rank r if it can; false when it is blocked
 * or finished. */
static bool sim_step(sim *s, unsigned r)
{
    const op *p;
    uint64_t o = s->o, *t = &s->clk[r];

    if (s->done[r] || s->error)
        return false;
    if (s->pc[r] == s->sc[r].n) {
        sim_finish(s, r);
        s->done[r] = true;
        return true;
    }
    p = &s->sc[r].v[s->pc[r]];
    switch (p->kind) {
    case OP_COMPUTE:
        *t += p->n;
        break;
    case OP_CALL:
        rec_enter(s, r, TG_GET_COORDS);
        *t += p->n;
        rec_leave(s, r, TG_GET_COORDS);
        break;
    case OP_SEND: {
        uint64_t te = *t, ts = te + o, tl = ts + o + copy_ns(p->n);
        size_t *qt = &s->qt[r][p->peer][p->tag];
        if (*qt - s->qh[r][p->peer][p->tag] == QCAP) {
            fprintf(stderr, "  test_truth: message queue full\n");
            s->error = true;
            return false;
        }
        s->q[r][p->peer][p->tag][*qt % QCAP] = tl + wire_ns(p->n);
        (*qt)++;
        if (s->g)
            tg_mpi_send(s->g, r, te, ts, tl, p->peer, p->tag, p->n);
        *t = tl + o;
        break;
    }
    case OP_RECV: {
        size_t *qh = &s->qh[p->peer][r][p->tag];
        uint64_t te = *t, ready = te + o, arr, tr, tl;
        if (*qh == s->qt[p->peer][r][p->tag])
            return false; /* not sent yet */
        arr = s->q[p->peer][r][p->tag][*qh % QCAP];
        (*qh)++;
        tr = (ready > arr ? ready : arr) + copy_ns(p->n);
        tl = tr + o;
        if (s->g)
            tg_mpi_recv(s->g, r, te, tr, tl, p->peer, p->tag, p->n);
        *t = tl + o;
        break;
    }
    case OP_ALLREDUCE:
    case OP_BARRIER:
    case OP_BCAST:
    case OP_REDUCE:
        if (s->posted[r])
            return false; /* waits for the others */
        s->c_enter[r] = *t;
        s->c_begin[r] = *t + o;
        s->c_ready[r] = s->c_begin[r] + o;
        s->posted[r] = true;
        s->arrived++;
        /* the Enter and Begin records are written with the rest at the end */
        return true;
    }
    s->pc[r]++;
    return true;
}

/* All ranks are inside the same collective: time its completion. */
static void sim_collective(sim *s)
{
    const op *p0 = &s->sc[0].v[s->pc[0]], *p;
    uint64_t end[NP], sent[NP], recvd[NP], m = 0;
    unsigned r, root = p0->peer;
    tg_region_t reg = TG_ALLREDUCE;
    OTF2_CollectiveOp cop = OTF2_COLLECTIVE_OP_ALLREDUCE;
    uint32_t oroot = OTF2_UNDEFINED_UINT32;

    for (r = 0; r < NP; r++) {
        p = &s->sc[r].v[s->pc[r]];
        if (p->kind != p0->kind || p->peer != p0->peer || p->n != p0->n) {
            fprintf(stderr, "  test_truth: ranks disagree on a collective\n");
            s->error = true;
            return;
        }
    }
    switch (p0->kind) {
    case OP_ALLREDUCE:
    case OP_BARRIER:
        for (r = 0; r < NP; r++)
            if (s->c_ready[r] > m)
                m = s->c_ready[r];
        for (r = 0; r < NP; r++) {
            end[r] = m + D_NS;
            sent[r] = recvd[r] = p0->n;
        }
        if (p0->kind == OP_BARRIER) {
            reg = TG_BARRIER;
            cop = OTF2_COLLECTIVE_OP_BARRIER;
        }
        break;
    case OP_BCAST: {
        uint64_t arr;
        end[root] = s->c_ready[root] + copy_ns(p0->n);
        arr = end[root] + wire_ns(p0->n);
        for (r = 0; r < NP; r++) {
            if (r != root)
                end[r] = (s->c_ready[r] > arr ? s->c_ready[r] : arr) + copy_ns(p0->n);
            sent[r] = r == root ? p0->n * (NP - 1) : 0;
            recvd[r] = r == root ? 0 : p0->n;
        }
        reg = TG_BCAST;
        cop = OTF2_COLLECTIVE_OP_BCAST;
        oroot = root;
        break;
    }
    default: /* OP_REDUCE */
        m = s->c_ready[root];
        for (r = 0; r < NP; r++) {
            if (r == root)
                continue;
            end[r] = s->c_ready[r] + copy_ns(p0->n);
            if (end[r] + wire_ns(p0->n) > m)
                m = end[r] + wire_ns(p0->n);
        }
        end[root] = m + copy_ns(p0->n);
        for (r = 0; r < NP; r++) {
            sent[r] = r == root ? 0 : p0->n;
            recvd[r] = r == root ? p0->n * (NP - 1) : 0;
        }
        reg = TG_REDUCE;
        cop = OTF2_COLLECTIVE_OP_REDUCE;
        oroot = root;
        break;
    }
    for (r = 0; r < NP; r++) {
        if (s->g)
            tg_mpi_coll(s->g, r, reg, s->c_enter[r], s->c_begin[r], end[r], end[r] + s->o,
                        cop, oroot, sent[r], recvd[r]);
        s->clk[r] = end[r] + 2 * s->o;
        s->posted[r] = false;
        s->pc[r]++;
    }
    s->arrived = 0;
}

/* Runs the program; false on deadlock or inconsistency. */
static bool sim_run(sim *s)
{
    unsigned r;
    for (r = 0; r < NP; r++)
        sim_start(s, r);
    for (;;) {
        bool progress = false, all = true;
        for (r = 0; r < NP; r++)
            while (sim_step(s, r))
                progress = true;
        if (s->error)
            return false;
        if (s->arrived == NP) {
            sim_collective(s);
            if (s->error)
                return false;
            progress = true;
        }
        for (r = 0; r < NP; r++)
            all = all && s->done[r];
        if (all)
            return true;
        if (!progress) {
            fprintf(stderr, "  test_truth: deadlock at pc");
            for (r = 0; r < NP; r++)
                fprintf(stderr, " %zu", s->pc[r]);
            fputc('\n', stderr);
            return false;
        }
    }
}

static uint64_t sim_window(const sim *s)
{
    uint64_t m = 0;
    unsigned r;
    for (r = 0; r < NP; r++)
        if (s->fin_enter[r] > m)
            m = s->fin_enter[r];
    return m - T_INIT;
}

/* ---- compensation --------------------------------------------------------- */

static bool compensate(const char *in, const char *out, up_mode mode, up_replay_result *res)
{
    up_comp_params p = t_params(O_NS, mode, UP_COLLECTIVE_INDIVIDUAL);
    p.ncopy = 1;
    p.copy_bytes[0] = 1;
    p.copy_ns_per_byte[0] = 1.0 / COPY_DIV;
    p.copy_set = true;
    if (mode == UP_MODE_NETWORK) {
        p.latency_ns = S_NS;
        p.ns_per_byte = 1.0 / GAMMA_DIV;
        p.network_set = true;
    }
    return t_compensate(in, out, &p, res, NULL) == UP_OK;
}

static void print_result(const char *what, const up_replay_result *res, uint64_t t_true_ns)
{
    unsigned k;
    double a = t_window_s(res, 1), t_true = (double)t_true_ns * 1e-9;
    int64_t d = (int64_t)(res->end_a - res->start_a) - (int64_t)t_true_ns;
    printf("  %-8s T_a = %.6f ms  error %+.3f%% (%+lld ns)", what, a * 1e3,
           100.0 * (a - t_true) / t_true, (long long)d);
    for (k = 0; k < UP_REPAIR_COUNT; k++)
        if (res->repairs[k])
            printf("  [%s: %llu]", up_repair_name(k), (unsigned long long)res->repairs[k]);
    printf("\n");
}

TEST(truth_known_program)
{
    static sim plain, instr; /* large: keep them off the stack */
    script sc[NP];
    char trace[4096], out_lo[4096], out_up[4096], out_nw[4096];
    up_replay_result lo, up, nw;
    double t_true, t_m, a_lo, a_up, a_nw;
    bool ok_lo, ok_up, ok_nw;
    unsigned r;
    size_t i;
    tg *g;

    memset(sc, 0, sizeof sc);
    build_program(sc);

    /* uninstrumented: the truth */
    memset(&plain, 0, sizeof plain);
    plain.o = 0;
    plain.g = NULL;
    plain.sc = sc;
    CHECK(sim_run(&plain));

    /* instrumented: the trace */
    snprintf(trace, sizeof trace, "%s", t_dir("trace"));
    snprintf(out_lo, sizeof out_lo, "%s", t_dir("lower"));
    snprintf(out_up, sizeof out_up, "%s", t_dir("upper"));
    snprintf(out_nw, sizeof out_nw, "%s", t_dir("network"));
    g = tg_open(trace, NP, 1000000000u, 0);
    CHECK(g != NULL);
    if (!g)
        goto out;
    memset(&instr, 0, sizeof instr);
    instr.o = O_NS;
    instr.g = g;
    instr.sc = sc;
    CHECK(sim_run(&instr));
    CHECK_EQ(tg_close(g), 0);
    if (instr.error || plain.error)
        goto out;

    t_true = (double)sim_window(&plain) * 1e-9;
    t_m = (double)sim_window(&instr) * 1e-9;

    ok_lo = compensate(trace, out_lo, UP_MODE_LOWER, &lo);
    ok_up = compensate(trace, out_up, UP_MODE_UPPER, &up);
    ok_nw = compensate(trace, out_nw, UP_MODE_NETWORK, &nw);
    CHECK(ok_lo);
    CHECK(ok_up);
    CHECK(ok_nw);
    if (ok_lo && ok_up && ok_nw) {
        a_lo = t_window_s(&lo, 1);
        a_up = t_window_s(&up, 1);
        a_nw = t_window_s(&nw, 1);
        printf("  known truth: %d ranks, O = %u ns, S = %u ns, gamma = %.2f ns/B, copy = %.2f ns/B,"
               " D = %u ns\n", NP, O_NS, S_NS, 1.0 / GAMMA_DIV, 1.0 / COPY_DIV, D_NS);
        printf("  T   (uninstrumented) = %.6f ms\n", t_true * 1e3);
        printf("  T_m (instrumented)   = %.6f ms  dilation T_m/T = %.4f  (library: %.6f ms)\n",
               t_m * 1e3, t_m / t_true, t_window_s(&nw, 0) * 1e3);
        print_result("lower", &lo, sim_window(&plain));
        print_result("upper", &up, sim_window(&plain));
        print_result("network", &nw, sim_window(&plain));
        printf("  per rank: Enter(MPI_Finalize) - 1000 ns: true / measured / network  (us)\n");
        for (i = 0; i < nw.nlocs; i++) {
            long rk = nw.locs[i].rank;
            if (rk < 0 || rk >= NP)
                continue;
            printf("    rank %ld: %10.3f %10.3f %10.3f\n", rk,
                   (double)(plain.fin_enter[rk] - T_INIT) * 1e-3,
                   (double)(instr.fin_enter[rk] - T_INIT) * 1e-3,
                   (double)(nw.locs[i].end_a - nw.start_a) * 1e-3);
        }

        /* the trace is what the simulator measured */
        CHECK(nw.window_marked);
        CHECK_NEAR(t_window_s(&nw, 0), t_m, 1e-9);
        /* 3: the instrumentation perturbed the run */
        CHECK(t_m / t_true >= 1.15);
        CHECK(a_lo < t_m);
        CHECK(a_up < t_m);
        /* 2: the bounds bracket the truth */
        CHECK(a_lo <= t_true);
        CHECK(t_true <= a_up);
        /* 1: network mode recovers the truth */
        CHECK((a_nw > t_true ? a_nw - t_true : t_true - a_nw) / t_true < 0.01);
    }
    up_replay_result_free(&lo);
    up_replay_result_free(&up);
    up_replay_result_free(&nw);
out:
    for (r = 0; r < NP; r++)
        free(sc[r].v);
}
