/*
 * test_counts.c - records per region (src/analysis/counts.h), the
 * test of `unperturb validate` for a different execution: the comparison
 * rule on tables written here (the 1% edge on both sides, the floor of 100
 * records, regions missing from one table, the order of the list), and the
 * counting on traces written with OTF2's writer.  Every expected value is
 * worked out in the comments.
 */
#include <math.h>
#include <string.h>

#include "test.h"
#include "tutil.h"
#include "analysis/counts.h"
#include "tracegen/tracegen.h"
#include "tthreads.h"

/* A table of n entries, given sorted by name as up_counts_read makes them
 * (names copied: the test frees them to show the list owns its own). */
static up_counts *tab(const char *const *names, const uint64_t *n, size_t k)
{
    up_counts *c = up_calloc(1, sizeof *c);
    size_t i;
    c->v = up_calloc(k ? k : 1, sizeof *c->v);
    for (i = 0; i < k; i++) {
        c->v[i].name = up_strdup(names[i]);
        c->v[i].n = n[i];
        c->total += n[i];
    }
    c->n = k;
    return c;
}

/* the differing regions of one region counted ref times, then n times */
static size_t one(uint64_t ref, uint64_t n, up_count_diff *first)
{
    static const char *const nm[1] = {"MPI_Send"};
    up_counts *a = tab(nm, &ref, ref ? 1 : 0), *b = tab(nm, &n, n ? 1 : 0);
    up_count_diff *d = NULL;
    size_t k = 99;
    up_err err = {0};
    CHECK(up_counts_compare(a, b, &d, &k, &err) == UP_OK);
    if (k && first) {
        *first = d[0];
        first->name = NULL; /* the block is freed below */
        CHECK(!strcmp(d[0].name, "MPI_Send"));
    }
    CHECK((k == 0) == (d == NULL));
    up_free(d);
    up_counts_free(a);
    up_counts_free(b);
    return k;
}

/* The 1% edge: 200 records allow a difference of 2 (exactly 1%), not 3
 * (1.5%), either way; 100 records allow 1, not 2; 1000 allow 10, not 11
 * (+1.1%, the end-to-end test's row); 201 allow 2 (1% is 2.01), not 3. */
TEST(counts_edge_of_one_percent)
{
    up_count_diff d;
    CHECK_EQ(one(200, 200, NULL), 0);
    CHECK_EQ(one(200, 202, NULL), 0);
    CHECK_EQ(one(200, 198, NULL), 0);
    CHECK_EQ(one(200, 203, &d), 1);
    CHECK_EQ(d.ref, 200);
    CHECK_EQ(d.n, 203);
    CHECK_NEAR(d.rel, 0.015, 1e-12);
    CHECK_EQ(one(200, 197, &d), 1);
    CHECK_NEAR(d.rel, -0.015, 1e-12);
    CHECK_EQ(one(100, 101, NULL), 0);
    CHECK_EQ(one(100, 99, NULL), 0);
    CHECK_EQ(one(100, 102, &d), 1);
    CHECK_NEAR(d.rel, 0.02, 1e-12);
    CHECK_EQ(one(100, 98, NULL), 1);
    CHECK_EQ(one(1000, 1010, NULL), 0);
    CHECK_EQ(one(1000, 1011, &d), 1);
    CHECK_NEAR(d.rel, 0.011, 1e-12);
    CHECK_EQ(one(201, 203, NULL), 0);
    CHECK_EQ(one(201, 204, NULL), 1);
    CHECK_EQ(one(201, 198, NULL), 1);
    /* HPC Challenge's MPI_Sendrecv (issue 20): -72.8% */
    CHECK_EQ(one(23386, 6358, &d), 1);
    CHECK_NEAR(d.rel, (6358.0 - 23386.0) / 23386.0, 1e-12);
    CHECK(fabs(d.rel * 100 + 72.8) < 0.05);
    /* large counts: no overflow in the rule */
    CHECK_EQ(one(UINT64_MAX - 5, UINT64_MAX, NULL), 0);
    CHECK_EQ(one(UINT64_MAX / 2, UINT64_MAX, NULL), 1);
}

/* The floor: a region is compared only when one of its two counts is 100 or
 * more.  99 against 50 (or 0: missing) is not compared; 99 against 100 is,
 * and a difference of 1 is more than 1% of 99 (1.01%). */
TEST(counts_floor_of_one_hundred)
{
    up_count_diff d;
    CHECK_EQ(one(99, 50, NULL), 0);
    CHECK_EQ(one(50, 99, NULL), 0);
    CHECK_EQ(one(99, 0, NULL), 0);
    CHECK_EQ(one(0, 99, NULL), 0);
    CHECK_EQ(one(99, 99, NULL), 0);
    CHECK_EQ(one(99, 100, &d), 1);
    CHECK_NEAR(d.rel, 1.0 / 99, 1e-12);
    CHECK_EQ(one(100, 99, &d), 0); /* 1 is exactly 1% of 100 */
    CHECK_EQ(one(100, 98, &d), 1);
    /* missing from the reference: infinitely more; missing from the run: -100% */
    CHECK_EQ(one(0, 100, &d), 1);
    CHECK_EQ(d.ref, 0);
    CHECK_EQ(d.n, 100);
    CHECK(isinf(d.rel) && d.rel > 0);
    CHECK_EQ(one(100, 0, &d), 1);
    CHECK_NEAR(d.rel, -1.0, 1e-12);
}

/* Several regions: the list has the differing ones only, largest |relative
 * difference| first, ties by the larger difference in records, then by name.
 *   region        ref     run    compared  differs  rel
 *   MPI_Allreduce   4       9    no (floor)
 *   MPI_Bcast     300     330    yes       yes      +10%   (30 records)
 *   MPI_Irecv       -     120    yes       yes      +inf
 *   MPI_Isend     200     220    yes       yes      +10%   (20 records)
 *   MPI_Recv      150       -    yes       yes      -100%
 *   MPI_Send     1000     990    yes       no       -1% exactly
 *   MPI_Wait      500     450    yes       yes      -10%   (50 records)
 *   main            2       2    no (floor)
 * Order: Irecv (inf), Recv (1.0), then the three at 0.1: Wait (50),
 * Bcast (30), Isend (20). */
TEST(counts_list_and_order)
{
    static const char *const rn[] = {"MPI_Allreduce", "MPI_Bcast", "MPI_Isend", "MPI_Recv",
                                     "MPI_Send", "MPI_Wait", "main"};
    static const uint64_t rc[] = {4, 300, 200, 150, 1000, 500, 2};
    static const char *const un[] = {"MPI_Allreduce", "MPI_Bcast", "MPI_Irecv", "MPI_Isend",
                                     "MPI_Send", "MPI_Wait", "main"};
    static const uint64_t uc[] = {9, 330, 120, 220, 990, 450, 2};
    up_counts *a = tab(rn, rc, 7), *b = tab(un, uc, 7);
    up_count_diff *d = NULL;
    size_t k = 0;
    up_err err = {0};
    CHECK(up_counts_compare(a, b, &d, &k, &err) == UP_OK);
    up_counts_free(a); /* the list keeps its own names */
    up_counts_free(b);
    CHECK_EQ(k, 5);
    if (k == 5) {
        CHECK(!strcmp(d[0].name, "MPI_Irecv") && d[0].ref == 0 && d[0].n == 120 && isinf(d[0].rel));
        CHECK(!strcmp(d[1].name, "MPI_Recv") && d[1].ref == 150 && d[1].n == 0);
        CHECK_NEAR(d[1].rel, -1.0, 1e-12);
        CHECK(!strcmp(d[2].name, "MPI_Wait") && d[2].ref == 500 && d[2].n == 450);
        CHECK_NEAR(d[2].rel, -0.1, 1e-12);
        CHECK(!strcmp(d[3].name, "MPI_Bcast") && d[3].ref == 300 && d[3].n == 330);
        CHECK_NEAR(d[3].rel, 0.1, 1e-12);
        CHECK(!strcmp(d[4].name, "MPI_Isend") && d[4].ref == 200 && d[4].n == 220);
        CHECK_NEAR(d[4].rel, 0.1, 1e-12);
    }
    up_free(d);
    /* a table against itself, and two empty tables: nothing differs */
    a = tab(rn, rc, 7);
    CHECK(up_counts_compare(a, a, &d, &k, &err) == UP_OK);
    CHECK(k == 0 && d == NULL);
    b = tab(NULL, NULL, 0);
    CHECK(up_counts_compare(b, b, &d, &k, &err) == UP_OK);
    CHECK(k == 0 && d == NULL);
    /* against an empty table: the five regions of 100 or more, all -100% */
    CHECK(up_counts_compare(a, b, &d, &k, &err) == UP_OK);
    CHECK_EQ(k, 5);
    if (k == 5)
        CHECK(!strcmp(d[0].name, "MPI_Send") && d[0].ref == 1000 && d[0].n == 0);
    up_free(d);
    up_counts_free(a);
    up_counts_free(b);
}

/* Counting a trace written by OTF2's writer, 2 ranks:
 *   rank 0: MPI_Init, 150 x MPI_Sendrecv, TRACE BUFFER FLUSH, MPI_Finalize
 *   rank 1: MPI_Init, 100 x MPI_Sendrecv, 3 x MPI_Barrier, 7 x MPI_Test,
 *           5 x MPI_Iprobe, MPI_Finalize
 * Enter records per name, summed over ranks, the flush (an overhead
 * region), the polls (how long a rank waited) and the regions never
 * entered left out:
 *   MPI_Barrier 3, MPI_Finalize 2, MPI_Init 2, MPI_Sendrecv 250; total 257. */
static void write_two(const char *dir)
{
    tg *g = tg_open(dir, 2, 1000000000ull, 0);
    unsigned r, i;
    for (r = 0; r < 2; r++) {
        uint64_t t = 0;
        tg_enter(g, r, t++, TG_INIT);
        tg_leave(g, r, t++, TG_INIT);
        for (i = 0; i < (r ? 100u : 150u); i++) {
            tg_enter(g, r, t++, TG_SENDRECV);
            tg_leave(g, r, t++, TG_SENDRECV);
        }
        for (i = 0; r == 1 && i < 3; i++) {
            tg_enter(g, r, t++, TG_BARRIER);
            tg_leave(g, r, t++, TG_BARRIER);
        }
        for (i = 0; r == 1 && i < 12; i++) {
            tg_enter(g, r, t++, i < 7 ? TG_TEST : TG_IPROBE);
            tg_leave(g, r, t++, i < 7 ? TG_TEST : TG_IPROBE);
        }
        if (r == 0) {
            tg_enter(g, r, t++, TG_FLUSH_REGION);
            tg_leave(g, r, t++, TG_FLUSH_REGION);
        }
        tg_enter(g, r, t++, TG_FINALIZE);
        tg_leave(g, r, t++, TG_FINALIZE);
    }
    CHECK(tg_close(g) == 0);
}

TEST(counts_read_trace)
{
    char in[4096];
    up_counts *c = NULL;
    up_err err = {0};
    snprintf(in, sizeof in, "%s", t_dir("in"));
    write_two(in);
    CHECK(up_counts_read(in, &c, &err) == UP_OK);
    if (!c)
        return;
    CHECK_EQ(c->n, 4);
    CHECK_EQ(c->total, 257);
    if (c->n == 4) {
        CHECK(!strcmp(c->v[0].name, "MPI_Barrier") && c->v[0].n == 3);
        CHECK(!strcmp(c->v[1].name, "MPI_Finalize") && c->v[1].n == 2);
        CHECK(!strcmp(c->v[2].name, "MPI_Init") && c->v[2].n == 2);
        CHECK(!strcmp(c->v[3].name, "MPI_Sendrecv") && c->v[3].n == 250);
    }
    up_counts_free(c);
    up_counts_free(NULL);
    c = (up_counts *)1;
    CHECK(up_counts_read("/nonexistent/trace", &c, &err) == UP_EIO);
    CHECK(c == NULL);
    CHECK(strstr(err.msg, "/nonexistent/trace") != NULL);
}

/* Regions of one name are one entry (ids are per archive; names are what
 * two runs share): regions f, g, f, each entered once -> f 2, g 1. */
TEST(counts_same_name_one_entry)
{
    static const char *const names[] = {"f", "g", "f"};
    char in[4096];
    up_counts *c = NULL;
    up_err err = {0};
    snprintf(in, sizeof in, "%s", t_dir("in"));
    CHECK(t_write_named_regions(in, names, 3, 5, 100, "node", "thread") == 0);
    CHECK(up_counts_read(in, &c, &err) == UP_OK);
    if (!c)
        return;
    CHECK_EQ(c->n, 2);
    if (c->n == 2) {
        CHECK(!strcmp(c->v[0].name, "f") && c->v[0].n == 2);
        CHECK(!strcmp(c->v[1].name, "g") && c->v[1].n == 1);
    }
    CHECK_EQ(c->total, 3);
    up_counts_free(c);
}

/* A trace without MPI (one location of no rank, as `unperturb trace` writes
 * a program run alone) is counted as any other; the tracer's window marks
 * are overhead and left out: work 2, nothing else. */
TEST(counts_without_mpi)
{
    static const char *const names[] = {"work", UP_WINDOW_BEGIN, "work", UP_WINDOW_END};
    char in[4096];
    up_counts *c = NULL;
    up_err err = {0};
    snprintf(in, sizeof in, "%s", t_dir("in"));
    CHECK(t_write_named_regions(in, names, 4, 5, 100, "node", "Master thread") == 0);
    CHECK(up_counts_read(in, &c, &err) == UP_OK);
    if (!c)
        return;
    CHECK_EQ(c->n, 1);
    CHECK(c->n == 1 && !strcmp(c->v[0].name, "work") && c->v[0].n == 2);
    CHECK_EQ(c->total, 2);
    up_counts_free(c);
}

/* One process of three threads running a, b and c tasks ("!$omp task",
 * role TASK), and "work" (a plain function) 100 times on thread 0 in dir a
 * and on thread 1 elsewhere: its place is not compared */
static void write_shares(const char *dir, unsigned a, unsigned b, unsigned c)
{
    const unsigned k[3] = {a, b, c};
    tt_writer o;
    uint64_t end = 0;
    unsigned l, i;
    CHECK(tt_open(&o, dir, 3) == 0);
    for (l = 0; l < 3; l++) {
        uint64_t t = 10;
        for (i = 0; i < k[l]; i++, t += 20) {
            tt_enter(&o, l, t, TT_OMP_TASK);
            tt_leave(&o, l, t + 10, TT_OMP_TASK);
        }
        for (i = 0; i < 100 && l == (a == 120 ? 0u : 1u); i++, t += 20) {
            tt_enter(&o, l, t, TT_WORK);
            tt_leave(&o, l, t + 10, TT_WORK);
        }
        end = t > end ? t : end;
    }
    CHECK(tt_close(&o, end) == 0);
}

/* The threads' schedule: a process of three threads that ran 120, 80 and
 * 0 tasks has the entries "!$omp task" 200, "!$omp task [thread 1 by
 * count]" 120 and "[thread 2 by count]" 80 (no third: it is 0), work 100
 * (no shares: not a task), and a total of 300 (the shares are not counted
 * twice).  The same counts on other threads (80, 0, 120) are the same
 * schedule; 100, 100, 0 is another: both shares differ (20 / 120 = 16.7%,
 * 20 / 80 = 25%), the total does not; work on another thread is no
 * difference. */
TEST(counts_threads_schedule)
{
    char a[4096], b[4096], c[4096];
    up_counts *ca = NULL, *cb = NULL, *cc = NULL;
    up_count_diff *d = NULL;
    size_t n = 99;
    up_err err = {0};
    snprintf(a, sizeof a, "%s", t_dir("a"));
    snprintf(b, sizeof b, "%s", t_dir("b"));
    snprintf(c, sizeof c, "%s", t_dir("c"));
    write_shares(a, 120, 80, 0);
    write_shares(b, 80, 0, 120);
    write_shares(c, 100, 100, 0);
    CHECK(up_counts_read(a, &ca, &err) == UP_OK);
    CHECK(up_counts_read(b, &cb, &err) == UP_OK);
    CHECK(up_counts_read(c, &cc, &err) == UP_OK);
    if (!ca || !cb || !cc)
        goto out;
    CHECK_EQ(ca->n, 4);
    CHECK_EQ(ca->total, 300);
    if (ca->n == 4) {
        CHECK(!strcmp(ca->v[0].name, "!$omp task") && ca->v[0].n == 200);
        CHECK(!strcmp(ca->v[1].name, "!$omp task [thread 1 by count]") && ca->v[1].n == 120);
        CHECK(!strcmp(ca->v[2].name, "!$omp task [thread 2 by count]") && ca->v[2].n == 80);
        CHECK(!strcmp(ca->v[3].name, "work") && ca->v[3].n == 100);
    }
    CHECK(up_counts_compare(ca, cb, &d, &n, &err) == UP_OK);
    CHECK_EQ(n, 0);
    up_free(d);
    CHECK(up_counts_compare(ca, cc, &d, &n, &err) == UP_OK);
    CHECK_EQ(n, 2);
    if (n == 2) {
        CHECK(!strcmp(d[0].name, "!$omp task [thread 2 by count]") && d[0].ref == 80 && d[0].n == 100);
        CHECK(!strcmp(d[1].name, "!$omp task [thread 1 by count]") && d[1].ref == 120 && d[1].n == 100);
    }
    up_free(d);
out:
    up_counts_free(ca);
    up_counts_free(cb);
    up_counts_free(cc);
}

/* Allocation failures: an error with a message, never a crash or a leak. */
TEST(counts_out_of_memory)
{
    static const char *const rn[] = {"MPI_Bcast", "MPI_Send"};
    static const uint64_t rc[] = {300, 1000}, uc[] = {400, 2000};
    char in[4096];
    long n;
    int failures = 0, successes = 0;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    write_two(in);
    for (n = 0; n < 400; n += 3) {
        up_counts *c = NULL;
        up_err err = {0};
        up_status st;
        up_alloc_set_fail_after(n);
        st = up_counts_read(in, &c, &err);
        up_alloc_set_fail_after(-1);
        if (st == UP_OK) {
            successes++;
            CHECK_EQ(c->total, 257);
        } else {
            failures++;
            CHECK(st == UP_ENOMEM || st == UP_EFORMAT || st == UP_EOTF2);
            CHECK(err.msg[0] != 0);
        }
        up_counts_free(c);
    }
    CHECK(failures > 0);
    CHECK(successes > 0);
    {
        up_counts *a = tab(rn, rc, 2), *b = tab(rn, uc, 2);
        up_count_diff *d = (up_count_diff *)1;
        size_t k = 7;
        up_err err = {0};
        up_alloc_set_fail_after(0);
        CHECK(up_counts_compare(a, b, &d, &k, &err) == UP_ENOMEM);
        up_alloc_set_fail_after(-1);
        CHECK(d == NULL && k == 0);
        up_counts_free(a);
        up_counts_free(b);
    }
}
