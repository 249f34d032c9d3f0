/*
 * test_sidefiles.c - the archive's side files, read through src/trace: the
 * stall lists the unperturb tracer leaves beside the event files
 * (up_trace_stalls_open, up_stalls_next; docs/tracer.md).  Lists written
 * here by hand, pairs of 64-bit words (start, length), read back with the
 * values worked out by hand; damaged lists end where they should, and say
 * so once; the compensate model counts them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test.h"
#include "tutil.h"
#include "trace/trace.h"
#include "tracegen/tracegen.h"

/* Two ranks (locations 0 and 1), each Enter(main) 10, Leave(main) 1000. */
static int write_two(const char *dir)
{
    tg *g = tg_open(dir, 2, 1000000000, 0);
    unsigned r;
    if (!g)
        return -1;
    for (r = 0; r < 2; r++) {
        tg_enter(g, r, 10, TG_MAIN);
        tg_leave(g, r, 1000, TG_MAIN);
    }
    return tg_close(g);
}

/* DIR/traces/<loc>.stalls: n pairs, then `tail` bytes of a partial one. */
static void write_list(const char *dir, unsigned loc, const uint64_t (*v)[2], size_t n, size_t tail)
{
    static const unsigned char part[15] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    char path[4200];
    FILE *f;
    snprintf(path, sizeof path, "%s/traces/%u.stalls", dir, loc);
    CHECK((f = fopen(path, "wb")) != NULL);
    if (!f)
        return;
    CHECK_EQ(n ? fwrite(v, sizeof *v, n, f) : 0, n);
    CHECK_EQ(tail ? fwrite(part, 1, tail, f) : 0, tail);
    CHECK_EQ(fclose(f), 0);
}

/* Opens list `loc` of archive `dir` and reads it: every stall into got
 * (up to cap), the last return value into *last.  Returns the stalls read,
 * or -1 if there is no list. */
static long read_list(const char *dir, unsigned loc, uint64_t (*got)[2], size_t cap, int *last)
{
    up_trace *t = NULL;
    up_stalls *l = NULL;
    up_err err = {0};
    uint64_t s, e;
    long n = 0;
    int r;
    CHECK_EQ(up_trace_open(dir, &t, &err), UP_OK);
    if (!t)
        return -2;
    CHECK_EQ(up_trace_stalls_open(t, up_trace_defs(t)->locs[loc].id, &l, &err), UP_OK);
    if (!l) {
        up_trace_close(t);
        return -1;
    }
    while ((r = up_stalls_next(l, &s, &e)) == 1) {
        if ((size_t)n < cap)
            got[n][0] = s, got[n][1] = e;
        n++;
    }
    *last = r;
    CHECK(s == UINT64_MAX && e == UINT64_MAX);
    /* ended: 0 from now on */
    CHECK_EQ(up_stalls_next(l, &s, &e), 0);
    CHECK_EQ(up_stalls_next(l, &s, &e), 0);
    up_stalls_close(l);
    up_trace_close(t);
    return n;
}

TEST(stall_list_read_back)
{
    /* [start, end): 100+20 = 120, 120 (starts where the last ended: not
     * damaged) + 5 = 125, 2^40 + 7; and the largest end there may be,
     * UINT64_MAX - 1, from a start of UINT64_MAX - 11 and a length of 10 */
    static const uint64_t v[][2] = {{100, 20}, {120, 5}, {(1ull << 40), 7}, {UINT64_MAX - 11, 10}};
    uint64_t got[8][2];
    int last = 9;
    char in[4096];
    snprintf(in, sizeof in, "%s", t_dir("in"));
    CHECK_EQ(write_two(in), 0);
    write_list(in, 0, v, 4, 0);
    CHECK_EQ(read_list(in, 0, got, 8, &last), 4);
    CHECK_EQ(last, 0);
    CHECK(got[0][0] == 100 && got[0][1] == 120);
    CHECK(got[1][0] == 120 && got[1][1] == 125);
    CHECK(got[2][0] == (1ull << 40) && got[2][1] == (1ull << 40) + 7);
    CHECK(got[3][0] == UINT64_MAX - 11 && got[3][1] == UINT64_MAX - 1);
    /* location 1 has none: no list */
    CHECK_EQ(read_list(in, 1, got, 8, &last), -1);
}

TEST(stall_list_none_empty_or_not_a_file)
{
    uint64_t got[1][2];
    int last = 9;
    char in[4096], path[4200];
    up_stalls *l;
    uint64_t s = 1, e = 1;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    CHECK_EQ(write_two(in), 0);
    write_list(in, 0, NULL, 0, 0); /* empty */
    CHECK_EQ(read_list(in, 0, got, 1, &last), -1);
    snprintf(path, sizeof path, "%s/traces/1.stalls", in);
    CHECK_EQ(mkdir(path, 0755), 0); /* a folder */
    CHECK_EQ(read_list(in, 1, got, 1, &last), -1);
    /* no list at all: next says the end */
    l = NULL;
    CHECK_EQ(up_stalls_next(l, &s, &e), 0);
    CHECK(s == UINT64_MAX && e == UINT64_MAX);
    up_stalls_close(NULL);
}

TEST(stall_list_damaged_ends_there)
{
    static const uint64_t trunc[][2] = {{100, 20}, {200, 5}};
    static const uint64_t zero[][2] = {{100, 20}, {200, 0}, {300, 5}};
    static const uint64_t back[][2] = {{100, 50}, {140, 10}, {300, 5}}; /* 140 < 150 */
    static const uint64_t over[][2] = {{100, 50}, {UINT64_MAX - 10, 10}, {UINT64_MAX - 5, 1}};
    uint64_t got[4][2];
    int last = 9;
    char in[4096];
    snprintf(in, sizeof in, "%s", t_dir("in"));
    CHECK_EQ(write_two(in), 0);
    /* truncated: the whole entries, and then the end; a part of an entry
     * is not one, and not damage (nothing the tracer wrote is wrong) */
    write_list(in, 0, trunc, 2, 15);
    CHECK_EQ(read_list(in, 0, got, 4, &last), 2);
    CHECK_EQ(last, 0);
    CHECK(got[1][0] == 200 && got[1][1] == 205);
    write_list(in, 0, NULL, 0, 8); /* less than one entry: none */
    CHECK_EQ(read_list(in, 0, got, 4, &last), 0);
    CHECK_EQ(last, 0);
    /* a stall of no length: the one before it, then damage */
    write_list(in, 0, zero, 3, 0);
    CHECK_EQ(read_list(in, 0, got, 4, &last), 1);
    CHECK_EQ(last, -1);
    CHECK(got[0][0] == 100 && got[0][1] == 120);
    /* one that starts before the last one ended */
    write_list(in, 0, back, 3, 0);
    CHECK_EQ(read_list(in, 0, got, 4, &last), 1);
    CHECK_EQ(last, -1);
    CHECK(got[0][0] == 100 && got[0][1] == 150);
    /* one whose end would be UINT64_MAX (or past it) */
    write_list(in, 0, over, 3, 0);
    CHECK_EQ(read_list(in, 0, got, 4, &last), 1);
    CHECK_EQ(last, -1);
    /* damage first: nothing */
    write_list(in, 0, over + 1, 2, 0);
    CHECK_EQ(read_list(in, 0, got, 4, &last), 0);
    CHECK_EQ(last, -1);
}

TEST(stall_list_of_many_blocks)
{
    /* 200 stalls, read a block (64) at a time: stall i at 1000 i, i + 1
     * long; the 151st starts before the 150th ended */
    static uint64_t v[200][2];
    static uint64_t got[200][2];
    unsigned i;
    int last = 9;
    long n;
    char in[4096];
    snprintf(in, sizeof in, "%s", t_dir("in"));
    CHECK_EQ(write_two(in), 0);
    for (i = 0; i < 200; i++)
        v[i][0] = 1000ull * i, v[i][1] = i + 1;
    write_list(in, 1, v, 200, 0);
    CHECK_EQ(read_list(in, 1, got, 200, &last), 200);
    CHECK_EQ(last, 0);
    for (i = 0, n = 0; i < 200; i++)
        n += got[i][0] == 1000ull * i && got[i][1] == 1000ull * i + i + 1;
    CHECK_EQ(n, 200);
    v[150][0] = v[149][0] + v[149][1] - 1;
    write_list(in, 1, v, 200, 0);
    CHECK_EQ(read_list(in, 1, got, 200, &last), 150);
    CHECK_EQ(last, -1);
}

/* The compensate model reads the lists through src/trace with
 * p.archive_stalls, and counts the damaged ones: on the trace of
 * write_two, location 0's list [100, 120) [200, 200) is damaged after one
 * stall, location 1's [300, 340) is intact.  Without the flag, none. */
TEST(stall_lists_counted_by_the_model)
{
    static const uint64_t l0[][2] = {{100, 20}, {200, 0}}, l1[][2] = {{300, 40}};
    char in[4096];
    unsigned k;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    CHECK_EQ(write_two(in), 0);
    write_list(in, 0, l0, 2, 0);
    write_list(in, 1, l1, 1, 0);
    for (k = 0; k < 2; k++) {
        up_comp_params p = t_params(0, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
        up_trace *t = NULL;
        up_comp *m = NULL;
        up_replay_result res;
        up_err err = {0};
        uint64_t count = 9, ticks = 9, damaged = 9;
        p.archive_stalls = k == 0;
        CHECK_EQ(up_trace_open(in, &t, &err), UP_OK);
        if (!t)
            return;
        CHECK_EQ(up_comp_new(&p, t, &m, &err), UP_OK);
        if (m && up_replay_run(t, NULL, up_comp_ops(), m, NULL, &res, &err) == UP_OK) {
            up_comp_stalls(m, &count, &ticks, &damaged);
            CHECK_EQ(count, k == 0 ? 2 : 0);
            CHECK_EQ(ticks, k == 0 ? 60 : 0);
            CHECK_EQ(damaged, k == 0 ? 1 : 0);
            up_replay_result_free(&res);
        } else {
            t_fail(__FILE__, __LINE__, "%s", err.msg);
        }
        up_comp_free(m);
        up_trace_close(t);
    }
}
