/*
 * test_farm_truth.c - a dynamic task farm of known truth (issue 22).
 *
 * Like tests/test_poll_truth.c, a discrete-event simulator of its own (no
 * code or formula shared with src/replay or src/model) runs an MPI program
 * twice: without records (the true run time T) and with O = 1 us per
 * record, written as an OTF2 trace with src/tracegen.  The trace is
 * compensated in network mode with each --wildcard and --replies rule, and the
 * approximated window and each worker's busy time are compared with the
 * untraced run's.
 *
 * The program (examples/farm.c's pattern): rank 0 is the master, ranks
 * 1..n-1 workers.  The master sends each worker one task (MPI_Send, tag 1),
 * then, until every task's result is in: MPI_Recv from MPI_ANY_SOURCE (tag
 * 2), SERVICE_NS of work, MPI_Send of the next task (or of a stop, tag 3) to
 * status.MPI_SOURCE.  A worker: MPI_Recv from 0 with MPI_ANY_TAG, the
 * task's work, MPI_Send of its result; after the stop it goes on.  Then MPI_Barrier and
 * MPI_Finalize.  Tasks are handed out in list order: TASKS_PER per worker,
 * 50-150 us each (a seeded xorshift) or all 100 us.
 *
 * The machine (both runs), times in ns, 1 tick = 1 ns:
 *   a message arrives L_NS after it left (8 and 16 B: eager, no per-byte
 *            cost);
 *   MPI_Send: the message leaves when the call starts and the call takes no
 *            time.  The tracer writes MpiSend before it calls MPI, so traced
 *            the message leaves at the MpiSend record + O;
 *   MPI_Recv: posted when the call starts (after the Enter's O), done at
 *            max(post, arrival); MpiRecv is written then, Leave after its O.
 *            MPI matches a wildcard receive with the message that arrived
 *            first (ties: the lower rank).  Each worker has at most one
 *            result in flight and gets its next task only from the master,
 *            so when the master posts, the arrival of every result it can
 *            still get before its next send is known: it takes the earliest
 *            (arrived or not).  That is the simulator's one choice point; it
 *            runs the master event by event and each worker's cycle as the
 *            master's send reaches it;
 *   MPI_Barrier: every rank leaves BARRIER_NS after the last one is inside
 *            (after its MpiCollectiveBegin's O);
 *   every rank leaves MPI_Init at T_INIT; T = latest Enter(MPI_Finalize) -
 *            T_INIT (docs/models.md, "Run time: the window").
 * Work is a gap, no records.  Busy time of a worker: the sum of the gaps
 * from the MpiRecv of a task to the worker's next MpiSend; untraced that is
 * the sum of the worker's task lengths, which is the truth.
 */
#include "test.h"
#include "tutil.h"
#include "tracegen/tracegen.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPMAX 16
#define TASKS_PER 30         /* tasks per worker on average */
#define NTMAX (TASKS_PER * (NPMAX - 1))

#define L_NS 3000u           /* latency of every message */
#define SERVICE_NS 10000u    /* the master's work per result */
#define BARRIER_NS 6000u     /* a gather and a release */
#define O_NS 1000u
#define T_INIT 1000u
#define FIN_NS 5000u         /* inside MPI_Finalize (after the window) */

#define TAG_TASK 1u
#define TAG_RESULT 2u
#define TAG_STOP 3u

/* issue 22's targets */
#define TOL_EQUAL 0.01       /* total, equal tasks */
#define TOL_VARY 0.03        /* total, varying tasks */
#define TOL_BUSY 0.05        /* each worker's busy time */

/* ---- the programs ------------------------------------------------------- */

typedef struct farm {
    unsigned np;
    size_t ntask;
    uint64_t len[NTMAX];
} farm;

/* xorshift64*: integer in [lo, hi] */
static uint64_t rnd(uint64_t *s, uint64_t lo, uint64_t hi)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return lo + (*s * 2685821657736338717ull >> 11) % (hi - lo + 1);
}

static void build_farm(farm *f, unsigned np, bool equal, uint64_t seed)
{
    uint64_t s = seed;
    size_t k;
    memset(f, 0, sizeof *f);
    f->np = np;
    f->ntask = (size_t)TASKS_PER * (np - 1);
    for (k = 0; k < f->ntask; k++)
        f->len[k] = equal ? 100000 : rnd(&s, 50000, 150000);
}

/* ---- the simulator ------------------------------------------------------ */

typedef struct sim {
    const farm *f;
    uint64_t o;                      /* O_NS or 0 */
    tg *g;                           /* NULL: no trace written */
    uint64_t clk[NPMAX];             /* time of the rank's next record */
    uint64_t res_arr[NPMAX];         /* arrival of the worker's result */
    bool out[NPMAX];                 /* a result in flight (or coming) */
    uint64_t busy[NPMAX], ran[NPMAX];
    uint64_t ready[NPMAX], c_enter[NPMAX], fin[NPMAX];
    uint64_t nrec, hash;
} sim;

/* every record: its time into the run's fingerprint, then its O */
static void rec_done(sim *s, unsigned r, unsigned what)
{
    uint64_t v[3] = {r, what, s->clk[r]};
    unsigned i;
    for (i = 0; i < 3; i++)
        s->hash = (s->hash ^ v[i]) * 1099511628211ull;
    s->nrec++;
    s->clk[r] += s->o;
}

static bool traced(const sim *s)
{
    return s->g && s->o;
}

static void rec_region(sim *s, unsigned r, tg_region_t reg, bool enter)
{
    if (traced(s)) {
        if (enter)
            tg_enter(s->g, r, s->clk[r], reg);
        else
            tg_leave(s->g, r, s->clk[r], reg);
    }
    rec_done(s, r, 2 * (unsigned)reg + enter);
}

/* MPI_Send from r; returns the message's arrival */
static uint64_t do_send(sim *s, unsigned r, unsigned dst, uint32_t tag, uint64_t bytes)
{
    uint64_t te, ts, arr;
    te = s->clk[r];
    rec_done(s, r, 100);
    ts = s->clk[r];
    rec_done(s, r, 101);
    arr = s->clk[r] + L_NS; /* it leaves after MpiSend's O */
    if (traced(s))
        tg_mpi_send(s->g, r, te, ts, s->clk[r], dst, tag, bytes);
    rec_done(s, r, 102);
    return arr;
}

/* MPI_Recv on r of the message from src that arrives at arr */
static void do_recv(sim *s, unsigned r, unsigned src, uint64_t arr, uint32_t tag,
                    uint64_t bytes, unsigned wild)
{
    uint64_t te = s->clk[r], tr;
    rec_done(s, r, 103);
    if (arr > s->clk[r]) /* posted at clk */
        s->clk[r] = arr;
    tr = s->clk[r];
    rec_done(s, r, 104);
    if (traced(s)) {
        tg_enter(s->g, r, te, TG_RECV);
        if (wild)
            tg_recv_wild(s->g, r, tr, src, tag, bytes, (uint8_t)wild);
        else
            tg_recv(s->g, r, tr, src, tag, bytes);
        tg_leave(s->g, r, s->clk[r], TG_RECV);
    }
    rec_done(s, r, 105);
}

/* The master sends task k (or a stop if k == ntask) to worker w; the
 * worker receives it and, for a task, works and sends its result. */
static void hand_out(sim *s, unsigned w, size_t k)
{
    bool stop = k >= s->f->ntask;
    uint32_t tag = stop ? TAG_STOP : TAG_TASK;
    uint64_t arr = do_send(s, 0, w, tag, 8);
    do_recv(s, w, 0, arr, tag, 8, 2); /* MPI_ANY_TAG */
    if (stop)
        return;
    s->clk[w] += s->f->len[k];
    s->busy[w] += s->f->len[k];
    s->ran[w]++;
    s->res_arr[w] = do_send(s, w, 0, TAG_RESULT, 16);
    s->out[w] = true;
}

static void sim_barrier(sim *s)
{
    uint64_t last = 0, end;
    unsigned r, np = s->f->np;
    for (r = 0; r < np; r++) {
        s->c_enter[r] = s->clk[r];
        rec_done(s, r, 106);
        rec_done(s, r, 107);
        s->ready[r] = s->clk[r];
        if (s->ready[r] > last)
            last = s->ready[r];
    }
    end = last + BARRIER_NS;
    for (r = 0; r < np; r++) {
        if (traced(s))
            tg_mpi_coll(s->g, r, TG_BARRIER, s->c_enter[r], s->c_enter[r] + s->o, end,
                        end + s->o, OTF2_COLLECTIVE_OP_BARRIER, OTF2_UNDEFINED_UINT32, 0, 0);
        s->clk[r] = end;
        rec_done(s, r, 108);
        rec_done(s, r, 109);
        s->fin[r] = s->clk[r];
        rec_region(s, r, TG_FINALIZE, true);
        s->clk[r] += FIN_NS;
        rec_region(s, r, TG_FINALIZE, false);
        rec_region(s, r, TG_MAIN, false);
    }
}

/* Runs farm f with O = o per record (0: uninstrumented), writing the
 * records to g if not NULL. */
static void sim_run(sim *s, const farm *f, uint64_t o, tg *g)
{
    unsigned r, w, np = f->np;
    size_t next = 0, left = f->ntask;
    memset(s, 0, sizeof *s);
    s->f = f;
    s->o = o;
    s->g = g;
    s->hash = 14695981039346656037ull;
    for (r = 0; r < np; r++) {
        rec_region(s, r, TG_MAIN, true);
        rec_region(s, r, TG_INIT, true);
        s->clk[r] = T_INIT;
        rec_region(s, r, TG_INIT, false);
    }
    for (w = 1; w < np; w++)
        hand_out(s, w, next < f->ntask ? next++ : f->ntask);
    while (left > 0) {
        unsigned best = 0;
        for (w = 1; w < np; w++)
            if (s->out[w] && (!best || s->res_arr[w] < s->res_arr[best]))
                best = w; /* the first to arrive; ties: the lower rank */
        do_recv(s, 0, best, s->res_arr[best], TAG_RESULT, 16, 1); /* MPI_ANY_SOURCE */
        s->out[best] = false;
        left--;
        s->clk[0] += SERVICE_NS;
        hand_out(s, best, next < f->ntask ? next++ : f->ntask);
    }
    sim_barrier(s);
}

static uint64_t sim_window(const sim *s)
{
    uint64_t m = 0;
    unsigned r;
    for (r = 0; r < s->f->np; r++)
        if (s->fin[r] > m)
            m = s->fin[r];
    return m - T_INIT;
}

/* ---- one variant: both runs, the trace, its compensation ----------------- */

/* Each worker's busy time in an archive: the gaps from a receive record to
 * the location's next Enter, summed (the work after a task, or after a
 * stop until MPI_Barrier: a task re-targeted onto a worker's last receive
 * is done there); false on a read error. */
static bool read_busy(const char *dir, unsigned np, uint64_t *busy)
{
    tr_trace t;
    unsigned w;
    if (tr_load(dir, &t) != 0)
        return false;
    for (w = 1; w < np; w++) {
        const tr_loc *l = tr_loc_id(&t, w);
        uint64_t since = 0;
        bool have = false;
        size_t i;
        busy[w] = 0;
        for (i = 0; l && i < l->n; i++)
            if (l->ev[i].kind == TR_RECV) {
                since = l->ev[i].t;
                have = true;
            } else if (l->ev[i].kind == TR_ENTER && have) {
                busy[w] += l->ev[i].t - since;
                have = false;
            }
    }
    tr_free(&t);
    return true;
}

typedef struct figures {
    uint64_t t_true, t_traced, nrec, hash;
    uint64_t busy_true[NPMAX], busy_traced[NPMAX], ran_true[NPMAX], ran_traced[NPMAX];
    uint64_t busy_in[NPMAX], busy_a[NPMAX]; /* read from the trace, the output */
    double t_a, err, busy_err;       /* busy_err: the largest |error| of a worker */
    double busy_same;                /* ... of a worker that ran as many tasks
                                      * traced as untraced */
    up_replay_result res;
} figures;

static uint64_t seed_of(unsigned np, bool equal)
{
    return 0x2545f4914f6cdd1dull ^ ((uint64_t)np << 32) ^ (uint64_t)equal;
}

static double rel(double a, double b)
{
    return (a - b) / b;
}

static char last_trace[4096]; /* the folder of the trace run_variant wrote last */

/* Runs variant (np, equal) and, if comp, compensates its trace with
 * wildcard rule wc and replies rp; false if a step failed. */
static bool run_variant(unsigned np, bool equal, bool comp, up_wildcard wc, up_replies rp,
                        figures *f)
{
    static farm fm;
    static sim plain, instr;
    char name[64], trace[4096], out[4096];
    up_comp_params cp;
    unsigned w;
    tg *g;

    memset(f, 0, sizeof *f);
    build_farm(&fm, np, equal, seed_of(np, equal));
    sim_run(&plain, &fm, 0, NULL);
    snprintf(name, sizeof name, "np%u-%s-trace", np, equal ? "eq" : "var");
    snprintf(trace, sizeof trace, "%s", t_dir(name));
    snprintf(name, sizeof name, "np%u-%s-%s-%s", np, equal ? "eq" : "var", up_wildcard_name(wc),
             up_replies_name(rp));
    snprintf(out, sizeof out, "%s", t_dir(name));
    snprintf(last_trace, sizeof last_trace, "%s", trace);
    if (!(g = tg_open(trace, np, 1000000000u, 0)))
        return false;
    sim_run(&instr, &fm, O_NS, g);
    if (tg_close(g) != 0)
        return false;
    f->t_true = sim_window(&plain);
    f->t_traced = sim_window(&instr);
    f->nrec = instr.nrec;
    f->hash = instr.hash;
    for (w = 1; w < np; w++) {
        f->busy_true[w] = plain.busy[w];
        f->busy_traced[w] = instr.busy[w];
        f->ran_traced[w] = instr.ran[w];
        f->ran_true[w] = plain.ran[w];
    }
    if (!comp)
        return true;
    cp = t_params(O_NS, UP_MODE_NETWORK, UP_COLLECTIVE_INDIVIDUAL);
    cp.latency_ns = L_NS;
    cp.network_set = true;
    cp.wildcard = wc;
    cp.replies = rp;
    if (t_compensate(trace, out, &cp, &f->res, NULL) != UP_OK)
        return false;
    f->t_a = t_window_s(&f->res, 1);
    f->err = rel((double)(f->res.end_a - f->res.start_a), (double)f->t_true);
    if (!read_busy(trace, np, f->busy_in) || !read_busy(out, np, f->busy_a))
        return false;
    for (w = 1; w < np; w++) {
        double e = rel((double)f->busy_a[w], (double)f->busy_true[w]);
        e = e < 0 ? -e : e;
        if (e > f->busy_err)
            f->busy_err = e;
        if (f->ran_true[w] == f->ran_traced[w] && e > f->busy_same)
            f->busy_same = e;
    }
    return true;
}

static void print_head(up_wildcard wc, up_replies rp)
{
    printf("  wildcard %s: ranks tasks  T_ms  T_traced_ms  T_a_ms  error  busy_error (same "
           "count)  (records; wildcard receives, rematched; replies re-targeted, bodies moved, "
           "left)\n", up_wildcard_name(wc));
    printf("    (replies %s)\n", up_replies_name(rp));
}

static void print_row(unsigned np, bool equal, const figures *f)
{
    printf("    %2u %-5s  %.6f  %.6f  %.6f  %+.3f%%  %.3f%% (%.3f%%)  (%llu; %llu, %llu; %llu, "
           "%llu, %llu)\n", np, equal ? "equal" : "vary", (double)f->t_true * 1e-6,
           (double)f->t_traced * 1e-6, f->t_a * 1e3, 100.0 * f->err, 100.0 * f->busy_err,
           100.0 * f->busy_same, (unsigned long long)f->nrec,
           (unsigned long long)f->res.wildcard_recvs, (unsigned long long)f->res.rematched,
           (unsigned long long)f->res.retargeted, (unsigned long long)f->res.bodies_moved,
           (unsigned long long)f->res.bodies_lost);
}

static const unsigned nps[3] = {4, 8, 16};

/* Runs all six variants with rule wc, prints them, and leaves the figures
 * in fs[rank count][equal]. */
static void run_table(up_wildcard wc, up_replies rp, figures fs[3][2], bool ok[3][2])
{
    unsigned i, e;
    print_head(wc, rp);
    for (i = 0; i < 3; i++)
        for (e = 0; e < 2; e++) {
            ok[i][e] = run_variant(nps[i], e == 1, true, wc, rp, &fs[i][e]);
            CHECK(ok[i][e]);
            if (ok[i][e])
                print_row(nps[i], e == 1, &fs[i][e]);
            up_replay_result_free(&fs[i][e].res); /* the scalars stay */
        }
}

static double absd(double x)
{
    return x < 0 ? -x : x;
}

/* ---- the tests ------------------------------------------------------------ */

/* The simulator against hand-worked times: 3 ranks (2 workers), tasks of 50,
 * 100 and 70 us.
 * Uninstrumented: the master sends tasks 0 and 1 at 1000 (arrive 4000).
 * Worker 1 works 4000-54000 (result arrives 57000), worker 2 4000-104000
 * (107000).  The master posts at 1000 and takes worker 1's (57000),
 * serves until 67000 and sends task 2 (arrives 70000): worker 1 works until
 * 140000 (143000).  The master posts at 67000, takes worker 2's (107000),
 * -> 117000, stop to worker 2 (120000: in the Barrier at 120000); posts at
 * 117000, takes worker 1's (143000), -> 153000, stop (156000).  The
 * Barrier's last entry 156000, end 162000: T = 161000; busy 120000 and
 * 100000.
 * Traced (1000 ns per record): the master's sends Enter 2000, MpiSend
 * 3000, Leave 4000 (arrives 7000); Enter 5000, MpiSend 6000, Leave 7000
 * (10000); next record 8000.  Worker 1: Enter(MPI_Recv) 2000, MpiRecv
 * 7000, Leave 8000, works 9000-59000, Enter 59000, MpiSend 60000, Leave
 * 61000 (arrives 64000).  Worker 2: MpiRecv 10000, works 12000-112000,
 * MpiSend 113000 (arrives 117000).  The master: Enter 8000, MpiRecv 64000
 * (worker 1), Leave 65000, serves 66000-76000, task 2 MpiSend 77000
 * (arrives 81000), next 79000.  Worker 1: Enter 62000, MpiRecv 81000, works
 * 83000-153000, MpiSend 154000 (158000).  The master: MpiRecv 117000
 * (worker 2), serves 119000-129000, stop MpiSend 130000 (134000), next
 * 132000; worker 2: MpiRecv 134000, Enter(MPI_Barrier) 136000, ready
 * 138000.  The master: MpiRecv 158000 (worker 1), serves 160000-170000,
 * stop MpiSend 171000 (175000), Enter(MPI_Barrier) 173000, ready 175000;
 * worker 1: MpiRecv 175000, Enter(MPI_Barrier) 177000, ready 179000.  The
 * Barrier ends at 185000: MpiCollectiveEnd 185000, Leave 186000,
 * Enter(MPI_Finalize) 187000: T_traced = 186000. */
TEST(farm_truth_simulator_by_hand)
{
    static farm f;
    static sim s;
    memset(&f, 0, sizeof f);
    f.np = 3;
    f.ntask = 3;
    f.len[0] = 50000;
    f.len[1] = 100000;
    f.len[2] = 70000;
    sim_run(&s, &f, 0, NULL);
    CHECK_EQ(s.c_enter[0], 153000);
    CHECK_EQ(s.c_enter[1], 156000);
    CHECK_EQ(s.c_enter[2], 120000);
    CHECK_EQ(sim_window(&s), 161000);
    CHECK_EQ(s.busy[1], 120000);
    CHECK_EQ(s.busy[2], 100000);
    CHECK_EQ(s.ran[1], 2);
    sim_run(&s, &f, O_NS, NULL);
    CHECK_EQ(s.c_enter[0], 173000);
    CHECK_EQ(s.c_enter[1], 177000);
    CHECK_EQ(s.c_enter[2], 136000);
    CHECK_EQ(s.fin[0], 187000);
    CHECK_EQ(sim_window(&s), 186000);
    CHECK_EQ(s.busy[1], 120000);
    CHECK_EQ(s.ran[1], 2);
}

/* The tracer slows every variant down, each worker runs 20-40 tasks in
 * both runs, the same seed gives the same runs; the trace is what the
 * simulator measured (its window, and each worker's busy time read back by
 * the measure applied to the outputs), and the same variant compensated
 * twice gives the same result. */
TEST(farm_truth_sanity)
{
    static farm fm;
    static sim a, b;
    static figures f, g;
    unsigned i, e, w;
    for (i = 0; i < 3; i++)
        for (e = 0; e < 2; e++) {
            bool ok = run_variant(nps[i], e == 1, false, UP_WILDCARD_PRESERVE, UP_REPLIES_FOLLOW, &f);
            CHECK(ok);
            if (!ok)
                continue;
            CHECK(f.t_traced > f.t_true);
            build_farm(&fm, nps[i], e == 1, seed_of(nps[i], e == 1));
            sim_run(&a, &fm, 0, NULL);
            sim_run(&b, &fm, O_NS, NULL);
            CHECK_EQ(sim_window(&a), f.t_true);
            CHECK_EQ(sim_window(&b), f.t_traced);
            CHECK_EQ(b.hash, f.hash);
            CHECK_EQ(b.nrec, f.nrec);
            for (w = 1; w < nps[i]; w++) {
                CHECK(a.ran[w] >= 20 && a.ran[w] <= 40);
                CHECK(b.ran[w] >= 20 && b.ran[w] <= 40);
            }
        }
    for (e = 0; e < 2; e++) {
        bool ok = run_variant(8, e == 1, true, UP_WILDCARD_FIFO, UP_REPLIES_FOLLOW, &f) &&
                  run_variant(8, e == 1, true, UP_WILDCARD_FIFO, UP_REPLIES_FOLLOW, &g);
        CHECK(ok);
        up_replay_result_free(&f.res); /* the scalars stay */
        up_replay_result_free(&g.res);
        if (!ok)
            continue;
        CHECK(f.res.window_marked);
        CHECK_NEAR(t_window_s(&f.res, 0), (double)f.t_traced * 1e-9, 1e-9);
        CHECK_EQ(f.res.end_a - f.res.start_a, g.res.end_a - g.res.start_a);
        CHECK_EQ(f.res.rematched, g.res.rematched);
        for (w = 1; w < 8; w++) {
            /* each task's gap, and the stop's gap to MPI_Barrier, holds
             * MpiRecv's and Leave's O */
            CHECK_EQ(f.busy_in[w], f.busy_traced[w] + 2 * O_NS * (f.ran_traced[w] + 1));
            CHECK_EQ(f.busy_a[w], g.busy_a[w]);
        }
    }
}

/* What every rule gives on every row: the wildcard receives were read
 * (fifo and lifo re-match the master's MPI_ANY_SOURCE receives and the
 * workers' MPI_ANY_TAG ones), every message is received, and every reply
 * of the master was found (inferred: tracegen does not mark them). */
static void check_row(up_wildcard wc, unsigned i, const figures *f)
{
    uint64_t tasks = (uint64_t)TASKS_PER * (nps[i] - 1);
    bool re = wc != UP_WILDCARD_PRESERVE;
    CHECK_EQ(f->res.wildcard_recvs, re ? 2 * tasks + nps[i] - 1 : 0);
    CHECK_EQ(f->res.repairs[UP_REPAIR_unmatched_recv] + f->res.repairs[UP_REPAIR_unmatched_send],
             0);
    CHECK_EQ(f->res.replies_marked, 0);
    CHECK_EQ(f->res.replies_inferred, re ? tasks : 0);
    CHECK_EQ(f->res.wildcard, re ? UP_WILDCARD_FIFO + (wc == UP_WILDCARD_LIFO) : UP_WILDCARD_PRESERVE);
}

/* The compensation of variant (np, equal) with the default options does not
 * depend on the replay's schedule (issue 23): re-matched receives, replies
 * that follow, moved work and all; nor does its simulation with contention
 * on the links (re-matched receives, replies kept). */
static void schedule_check(unsigned np, bool equal)
{
    char name[64];
    up_comp_params cp = t_params(O_NS, UP_MODE_NETWORK, UP_COLLECTIVE_INDIVIDUAL);
    figures f;
    if (!run_variant(np, equal, false, UP_WILDCARD_AUTO, UP_REPLIES_FOLLOW, &f)) {
        CHECK(!"the farm's trace");
        return;
    }
    snprintf(name, sizeof name, "farm np%u %s", np, equal ? "equal" : "varying");
    cp.latency_ns = L_NS;
    cp.network_set = true;
    t_check_schedules(name, last_trace, &cp);
    /* simulated with contention: wildcard receives and links both wait
     * for every location behind them (STEP_PARK) */
    snprintf(name, sizeof name, "farm np%u %s simulated, contention", np,
             equal ? "equal" : "varying");
    t_check_schedules_contended(name, last_trace);
}

/* Check 1: the default options (--wildcard auto: fifo, the trace marks its
 * wildcard receives; --replies follow) meet issue 22's targets: the total
 * within 1% with equal tasks (exact: the order did not change) and 3% with
 * varying ones (+1.6%, +2.4%, +0.4%); each worker that ran as many tasks
 * traced as untraced within 5% of its true busy time (at most 3.5%).  A
 * worker the tracer gave fewer tasks cannot get its true ones back: its
 * records are its own (docs/models.md, "Task farms"), so the busy time of
 * every worker is up to 10% off (8 ranks: one worker ran 29 tasks traced,
 * 33 untraced). */
TEST(farm_truth_default)
{
    static figures fs[3][2];
    bool ok[3][2];
    unsigned i, e, w;
    run_table(UP_WILDCARD_AUTO, UP_REPLIES_FOLLOW, fs, ok);
    schedule_check(16, false);
    for (i = 0; i < 3; i++)
        for (e = 0; e < 2; e++)
            if (ok[i][e]) {
                const figures *f = &fs[i][e];
                check_row(UP_WILDCARD_FIFO, i, f);
                CHECK(absd(f->err) < (e ? TOL_EQUAL : TOL_VARY));
                CHECK(f->busy_same < TOL_BUSY);
                CHECK(f->busy_err < 0.11);
                if (e) { /* the same round-robin traced and untraced: exact */
                    CHECK_EQ(f->res.retargeted, 0);
                    for (w = 1; w < nps[i]; w++)
                        CHECK_EQ(f->busy_a[w], f->busy_true[w]);
                } else {
                    CHECK(f->res.retargeted > f->res.replies_inferred / 2);
                    CHECK(f->res.bodies_moved >= f->res.retargeted);
                }
            }
}

/* Check 2: the same check fails with the replies fixed to their measured
 * destinations, by preserving the measured matches or by --replies
 * measured: then each worker runs the tasks it ran traced, and at 16 ranks
 * with varying tasks a worker that ran as many tasks traced as untraced is
 * 8.9% off (the totals stay within the targets: +0.9%, and +0.000% with
 * fifo re-matching alone). */
TEST(farm_truth_measured_order)
{
    static figures pr[3][2], me[3][2];
    bool okp[3][2], okm[3][2];
    unsigned i, e, w;
    run_table(UP_WILDCARD_PRESERVE, UP_REPLIES_FOLLOW, pr, okp);
    run_table(UP_WILDCARD_FIFO, UP_REPLIES_MEASURED, me, okm);
    for (i = 0; i < 3; i++)
        for (e = 0; e < 2; e++) {
            if (okp[i][e]) {
                check_row(UP_WILDCARD_PRESERVE, i, &pr[i][e]);
                CHECK(absd(pr[i][e].err) < (e ? TOL_EQUAL : TOL_VARY));
                for (w = 1; w < nps[i]; w++)
                    CHECK_EQ(pr[i][e].busy_a[w], pr[i][e].busy_traced[w]);
            }
            if (okm[i][e]) {
                check_row(UP_WILDCARD_FIFO, i, &me[i][e]);
                CHECK_EQ(me[i][e].res.retargeted, 0);
                CHECK(absd(me[i][e].err) < 0.001);
                for (w = 1; w < nps[i]; w++)
                    CHECK_EQ(me[i][e].busy_a[w], me[i][e].busy_traced[w]);
            }
        }
    CHECK(okp[2][0] && pr[2][0].busy_same > TOL_BUSY);
    CHECK(okm[2][0] && me[2][0].busy_same > TOL_BUSY);
}

/* Check 3: --wildcard lifo, printed for the spread of the rules.  With
 * replies that follow, the master serves the newest request first and
 * starves the others: at 16 ranks the total is 17-47% late; exact with equal
 * tasks at 4 and 8 ranks.  Every message is still received. */
TEST(farm_truth_lifo)
{
    static figures fs[3][2];
    bool ok[3][2];
    unsigned i, e;
    run_table(UP_WILDCARD_LIFO, UP_REPLIES_FOLLOW, fs, ok);
    for (i = 0; i < 3; i++)
        for (e = 0; e < 2; e++)
            if (ok[i][e]) {
                check_row(UP_WILDCARD_LIFO, i, &fs[i][e]);
                if (e && i < 2)
                    CHECK(absd(fs[i][e].err) < TOL_EQUAL);
            }
}
