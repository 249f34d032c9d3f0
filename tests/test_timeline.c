/*
 * test_timeline.c - the timelines of `unperturb report` (src/report/
 * timeline.c) on traces written here with OTF2's writer, whose answers are
 * worked out by hand: the default window (an iteration between collectives,
 * the fallbacks), --window and its errors, boxes clipped at the window's
 * edges, messages with an end in the window (also after it), grouped rows'
 * MPI fractions, the bound on boxes, the window mapped onto a shifted copy,
 * and the SVG as XML.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test.h"
#include "tutil.h"
#include "report/timeline.h"
#include "tracegen/tracegen.h"

#define NS 1000000000u

static up_trace *open_trace(const char *dir)
{
    up_trace *t = NULL;
    up_err err = {0};
    if (up_trace_open(dir, &t, &err) != UP_OK) {
        t_fail(__FILE__, __LINE__, "open %s: %s", dir, err.msg);
        return NULL;
    }
    return t;
}

/* The window of `dir` (o may be NULL: the default). */
static up_status window_of(const char *dir, const up_timeline_opts *o, up_timeline_win *w, up_err *err)
{
    up_timeline_opts def;
    up_trace *t = open_trace(dir);
    up_status s;
    if (!t)
        return UP_EIO;
    if (!o) {
        up_timeline_opts_init(&def);
        o = &def;
    }
    s = up_timeline_window(t, o, w, err);
    up_trace_close(t);
    return s;
}

/* Builds the timeline of window w; the trace stays open for the SVG. */
static up_trace *build(const char *dir, const up_timeline_win *w, const up_timeline_opts *o,
                       up_timeline *tl)
{
    up_err err = {0};
    up_trace *t = open_trace(dir);
    if (!t)
        return NULL;
    if (up_timeline_build(t, w, o, tl, &err) != UP_OK) {
        t_fail(__FILE__, __LINE__, "build %s: %s", dir, err.msg);
        up_trace_close(t);
        return NULL;
    }
    return t;
}

/* 2 ranks, 5 iterations of work and MPI_Allreduce inside main; rank 1 runs
 * 5 ticks later.  Messages from rank 0 to rank 1:
 *   tag 8  sent at 2008 (iteration 1), received at 3100 (iteration 2)
 *   tag 7  sent at 3305, received at 3400 (both in iteration 2)
 *   tag 10 sent at 3331 (iteration 2), received at 4620 (iteration 3)
 *   tag 9  sent at 5004, received at 5620 (iteration 4)
 * Rank 0 runs from 1000 to 6000 (midpoint 3500); its Allreduces begin at
 * 1700, 2700, 3700, 4700, 5700: the iteration holding the midpoint is the
 * second, [2700, 3700].  `shift` is added to every timestamp. */
static void write_iters(const char *dir, uint64_t shift)
{
    tg *g = tg_open(dir, 2, NS, 0);
    uint64_t S = shift;
    unsigned r, i;
    for (r = 0; r < 2; r++) {
        uint64_t o = S + 5 * r;
        tg_enter(g, r, 1000 + o, TG_MAIN);
        for (i = 0; i < 5; i++) {
            uint64_t b = 1000 + 1000 * (uint64_t)i + o;
            if (r == 0 && i == 1)
                tg_mpi_send(g, 0, b + 5, b + 8, b + 9, 1, 8, 64);
            if (r == 0 && i == 4)
                tg_mpi_send(g, 0, b + 2, b + 4, b + 6, 1, 9, 64);
            if (r == 1 && i == 2) {
                tg_mpi_recv(g, 1, 3015 + S, 3100 + S, 3101 + S, 0, 8, 64);
                tg_enter(g, 1, 3110 + S, TG_WORK);
                tg_leave(g, 1, 3300 + S, TG_WORK);
                tg_mpi_recv(g, 1, 3310 + S, 3400 + S, 3401 + S, 0, 7, 64);
            } else if (r == 0 && i == 2) {
                tg_enter(g, 0, 3010 + S, TG_WORK);
                tg_leave(g, 0, 3300 + S, TG_WORK);
                tg_mpi_send(g, 0, 3300 + S, 3305 + S, 3320 + S, 1, 7, 64);
                tg_mpi_send(g, 0, 3330 + S, 3331 + S, 3332 + S, 1, 10, 64);
            } else {
                tg_enter(g, r, b + 10, TG_WORK);
                tg_leave(g, r, b + 600, TG_WORK);
            }
            if (r == 1 && i == 3)
                tg_mpi_recv(g, 1, 4610 + S, 4620 + S, 4630 + S, 0, 10, 64);
            if (r == 1 && i == 4)
                tg_mpi_recv(g, 1, 5610 + S, 5620 + S, 5630 + S, 0, 9, 64);
            tg_mpi_coll(g, r, TG_ALLREDUCE, b + 700, b + 701, b + 899, b + 900,
                        OTF2_COLLECTIVE_OP_ALLREDUCE, OTF2_UNDEFINED_UINT32, 8, 8);
        }
        tg_leave(g, r, 6000 + o, TG_MAIN);
    }
    CHECK(tg_close(g) == 0);
}

static bool box_is(const up_timeline_box *b, uint64_t t0, uint64_t t1, OTF2_RegionRef r, unsigned kind,
                   unsigned depth)
{
    return b->t0 == t0 && b->t1 == t1 && b->region == r && b->kind == kind && b->depth == depth &&
           !b->mixed;
}

TEST(timeline_default_window_is_the_middle_iteration)
{
    char dir[4096];
    up_timeline_win w;
    up_err err = {0};
    snprintf(dir, sizeof dir, "%s", t_dir("in"));
    write_iters(dir, 0);
    if (window_of(dir, NULL, &w, &err) != UP_OK) {
        t_fail(__FILE__, __LINE__, "%s", err.msg);
        return;
    }
    CHECK_EQ(w.origin, 1000);
    CHECK_EQ(w.resolution, NS);
    CHECK_EQ(w.loc, 0);
    CHECK_EQ(w.t0, 2700);
    CHECK_EQ(w.t1, 3700);
    /* rank 0's records: 0 Enter(main); 1-6 iteration 0; 7-9 MPI_Send, 10-11
     * work, 12 Enter(MPI_Allreduce) at 2700, ..., 24 Enter(MPI_Allreduce) at 3700 */
    CHECK_EQ(w.rec0, 12);
    CHECK_EQ(w.rec1, 24);
    CHECK_EQ(w.nrecs, 13);
    CHECK_EQ(w.r0_t, 2700);
    CHECK_EQ(w.r1_t, 3700);
    CHECK(strstr(w.how, "iteration 2 of 4") != NULL);
    CHECK(strstr(w.how, "MPI_Allreduce") != NULL);
    CHECK(strstr(w.how, "rank 0") != NULL);
}

/* The run is from the end of MPI_Init to the start of MPI_Finalize: rank 0
 * in MPI_Init [100, 5000], Allreduces at 5100, 5200, 5300, 5400 and
 * MPI_Finalize at 5500; the midpoint 5250 is in the second iteration, not
 * (first and last records, 0 and 5700: 2850) in the first. */
TEST(timeline_default_window_skips_mpi_init)
{
    char dir[4096];
    up_timeline_win w;
    up_err err = {0};
    tg *g;
    unsigned i;
    snprintf(dir, sizeof dir, "%s", t_dir("in"));
    g = tg_open(dir, 1, NS, 0);
    tg_enter(g, 0, 0, TG_MAIN);
    tg_enter(g, 0, 100, TG_INIT);
    tg_leave(g, 0, 5000, TG_INIT);
    for (i = 0; i < 4; i++)
        tg_mpi_coll(g, 0, TG_ALLREDUCE, 5100 + 100 * i, 5101 + 100 * i, 5109 + 100 * i,
                    5110 + 100 * i, OTF2_COLLECTIVE_OP_ALLREDUCE, OTF2_UNDEFINED_UINT32, 8, 8);
    tg_enter(g, 0, 5500, TG_FINALIZE);
    tg_leave(g, 0, 5600, TG_FINALIZE);
    tg_leave(g, 0, 5700, TG_MAIN);
    CHECK(tg_close(g) == 0);
    CHECK(window_of(dir, NULL, &w, &err) == UP_OK);
    CHECK_EQ(w.t0, 5200);
    CHECK_EQ(w.t1, 5300);
    CHECK_EQ(w.rec0, 7);
    CHECK_EQ(w.rec1, 11);
    CHECK(strstr(w.how, "iteration 2 of 3 (MPI_Allreduce on rank 0)") != NULL);
}

/* 1 rank: main [100, 1100], three MPI_Barriers at 110, 130, 150, then work
 * at 200, 400, 600, 800 (100 each).  The Barriers end before the midpoint
 * 600, so the iterations run between the calls of work: the midpoint is the
 * start of the third, [600, 800].  Without work: the middle 10%. */
TEST(timeline_default_window_fallbacks)
{
    char dir[4096];
    up_timeline_win w;
    up_err err = {0};
    tg *g;
    unsigned i;
    snprintf(dir, sizeof dir, "%s", t_dir("nested"));
    g = tg_open(dir, 1, NS, 0);
    tg_enter(g, 0, 100, TG_MAIN);
    for (i = 0; i < 3; i++) {
        tg_enter(g, 0, 110 + 20 * i, TG_BARRIER);
        tg_leave(g, 0, 115 + 20 * i, TG_BARRIER);
    }
    for (i = 0; i < 4; i++) {
        tg_enter(g, 0, 200 + 200 * i, TG_WORK);
        tg_leave(g, 0, 300 + 200 * i, TG_WORK);
    }
    tg_leave(g, 0, 1100, TG_MAIN);
    CHECK(tg_close(g) == 0);
    CHECK(window_of(dir, NULL, &w, &err) == UP_OK);
    CHECK_EQ(w.t0, 600);
    CHECK_EQ(w.t1, 800);
    CHECK_EQ(w.rec0, 11);
    CHECK_EQ(w.rec1, 13);
    CHECK(strstr(w.how, "iteration 3 of 3 (calls of work on rank 0)") != NULL);

    snprintf(dir, sizeof dir, "%s", t_dir("flat"));
    g = tg_open(dir, 1, NS, 0);
    tg_enter(g, 0, 100, TG_MAIN);
    tg_enter(g, 0, 500, TG_WORK);
    tg_leave(g, 0, 600, TG_WORK);
    tg_leave(g, 0, 1100, TG_MAIN);
    CHECK(tg_close(g) == 0);
    CHECK(window_of(dir, NULL, &w, &err) == UP_OK);
    CHECK_EQ(w.t0, 550);
    CHECK_EQ(w.t1, 650);
    CHECK_EQ(w.nrecs, 1); /* Leave(work) at 600 */
    CHECK_EQ(w.rec0, 2);
    CHECK(strstr(w.how, "middle 10%") != NULL);
}

TEST(timeline_boxes_are_the_innermost_regions)
{
    char dir[4096];
    up_timeline_win w;
    up_timeline_opts o;
    up_timeline tl;
    up_err err = {0};
    up_trace *t;
    const up_timeline_row *R;
    snprintf(dir, sizeof dir, "%s", t_dir("in"));
    write_iters(dir, 0);
    up_timeline_opts_init(&o);
    CHECK(window_of(dir, NULL, &w, &err) == UP_OK);
    if (!(t = build(dir, &w, &o, &tl)))
        return;
    CHECK(!tl.grouped);
    CHECK_EQ(tl.nrows, 2);
    CHECK(!strcmp(tl.rows[0].label, "rank 0"));
    CHECK(!strcmp(tl.rows[1].label, "rank 1"));
    R = &tl.rows[0];
    CHECK_EQ(R->nbox, 7);
    if (R->nbox == 7) {
        CHECK(box_is(&R->box[0], 2700, 2900, TG_ALLREDUCE, UP_TIMELINE_MPI, 1));
        CHECK(box_is(&R->box[1], 2900, 3010, TG_MAIN, UP_TIMELINE_USER, 0));
        CHECK(box_is(&R->box[2], 3010, 3300, TG_WORK, UP_TIMELINE_USER, 1));
        CHECK(box_is(&R->box[3], 3300, 3320, TG_SEND, UP_TIMELINE_MPI, 1));
        CHECK(box_is(&R->box[4], 3320, 3330, TG_MAIN, UP_TIMELINE_USER, 0));
        CHECK(box_is(&R->box[5], 3330, 3332, TG_SEND, UP_TIMELINE_MPI, 1));
        CHECK(box_is(&R->box[6], 3332, 3700, TG_MAIN, UP_TIMELINE_USER, 0));
    }
    /* rank 1: main was open since 1005, drawn from the window's start */
    R = &tl.rows[1];
    CHECK_EQ(R->nbox, 9);
    if (R->nbox == 9) {
        CHECK(box_is(&R->box[0], 2700, 2705, TG_MAIN, UP_TIMELINE_USER, 0));
        CHECK(box_is(&R->box[1], 2705, 2905, TG_ALLREDUCE, UP_TIMELINE_MPI, 1));
        CHECK(box_is(&R->box[3], 3015, 3101, TG_RECV, UP_TIMELINE_MPI, 1));
        CHECK(box_is(&R->box[7], 3310, 3401, TG_RECV, UP_TIMELINE_MPI, 1));
        CHECK(box_is(&R->box[8], 3401, 3700, TG_MAIN, UP_TIMELINE_USER, 0));
    }
    up_timeline_free(&tl);
    up_trace_close(t);

    /* --window 1.75e-6:2.65e-6 s from the start (1000): [2750, 3650], the
     * Allreduce and main clipped at the edges */
    o.window_set = true;
    o.start_s = 1.75e-6;
    o.end_s = 2.65e-6;
    CHECK(window_of(dir, &o, &w, &err) == UP_OK);
    CHECK_EQ(w.t0, 2750);
    CHECK_EQ(w.t1, 3650);
    CHECK_EQ(w.rec0, 14); /* MpiCollectiveEnd at 2899 */
    CHECK_EQ(w.rec1, 23); /* Leave(MPI_Send) at 3332 */
    CHECK(!strcmp(w.how, "--window 1.75e-06:2.65e-06"));
    if (!(t = build(dir, &w, &o, &tl)))
        return;
    R = &tl.rows[0];
    CHECK_EQ(R->nbox, 7);
    if (R->nbox == 7) {
        CHECK(box_is(&R->box[0], 2750, 2900, TG_ALLREDUCE, UP_TIMELINE_MPI, 1));
        CHECK(box_is(&R->box[6], 3332, 3650, TG_MAIN, UP_TIMELINE_USER, 0));
    }
    up_timeline_free(&tl);
    up_trace_close(t);
}

TEST(timeline_messages_with_an_end_in_the_window)
{
    char dir[4096];
    up_timeline_win w;
    up_timeline_opts o;
    up_timeline tl;
    up_err err = {0};
    up_trace *t;
    snprintf(dir, sizeof dir, "%s", t_dir("in"));
    write_iters(dir, 0);
    up_timeline_opts_init(&o);
    CHECK(window_of(dir, NULL, &w, &err) == UP_OK);
    if (!(t = build(dir, &w, &o, &tl)))
        return;
    /* tag 8 (send before, receive inside), tag 7 (both inside), tag 10
     * (send inside, receive after); not tag 9 */
    CHECK_EQ(tl.msgs_in_window, 3);
    CHECK_EQ(tl.nmsgs, 3);
    if (tl.nmsgs == 3) {
        CHECK_EQ(tl.msgs[0].src_row, 0);
        CHECK_EQ(tl.msgs[0].dst_row, 1);
        CHECK_EQ(tl.msgs[0].t_send, 2008);
        CHECK_EQ(tl.msgs[0].t_recv, 3100);
        CHECK_EQ(tl.msgs[1].t_send, 3305);
        CHECK_EQ(tl.msgs[1].t_recv, 3400);
        CHECK_EQ(tl.msgs[2].t_send, 3331);
        CHECK_EQ(tl.msgs[2].t_recv, 4620);
        CHECK_EQ(tl.msgs[2].src_row, 0);
        CHECK_EQ(tl.msgs[2].dst_row, 1);
    }
    up_timeline_free(&tl);
    up_trace_close(t);
}

/* 100 messages from rank 0 to rank 1 (sent at 1000 + 10 i, received 5
 * later), at most 10 kept: every 16th, evenly spread. */
TEST(timeline_messages_are_thinned_evenly)
{
    char dir[4096];
    up_timeline_win w;
    up_timeline_opts o;
    up_timeline tl;
    up_err err = {0};
    up_trace *t;
    tg *g;
    unsigned i;
    snprintf(dir, sizeof dir, "%s", t_dir("in"));
    g = tg_open(dir, 2, NS, 0);
    for (i = 0; i < 100; i++) {
        tg_mpi_send(g, 0, 1000 + 10 * i, 1001 + 10 * i, 1002 + 10 * i, 1, 1, 4);
        tg_mpi_recv(g, 1, 1000 + 10 * i, 1006 + 10 * i, 1007 + 10 * i, 0, 1, 4);
    }
    CHECK(tg_close(g) == 0);
    up_timeline_opts_init(&o);
    o.window_set = true;
    o.start_s = 0;
    o.end_s = 1e-6;
    o.max_msgs = 10;
    CHECK(window_of(dir, &o, &w, &err) == UP_OK);
    if (!(t = build(dir, &w, &o, &tl)))
        return;
    CHECK_EQ(tl.msgs_in_window, 100);
    CHECK(tl.nmsgs >= 5 && tl.nmsgs <= 10);
    CHECK_EQ(tl.nmsgs, 7);
    for (i = 0; i < tl.nmsgs; i++) {
        CHECK_EQ(tl.msgs[i].t_send, 1001 + 160 * i);
        CHECK_EQ(tl.msgs[i].t_recv, 1006 + 160 * i);
    }
    up_timeline_free(&tl);
    up_trace_close(t);
}

TEST(timeline_window_errors)
{
    char dir[4096];
    up_timeline_win w;
    up_timeline_opts o;
    up_err err = {0};
    snprintf(dir, sizeof dir, "%s", t_dir("in"));
    write_iters(dir, 0);
    up_timeline_opts_init(&o);
    o.window_set = true;
    o.start_s = 1; /* the trace lasts 5 us */
    o.end_s = 2;
    CHECK(window_of(dir, &o, &w, &err) == UP_EUSAGE);
    CHECK(strstr(err.msg, "outside the trace") != NULL);
    o.start_s = 3e-6;
    o.end_s = 2e-6;
    CHECK(window_of(dir, &o, &w, &err) == UP_EUSAGE);
    CHECK(strstr(err.msg, "less than END") != NULL);
    o.start_s = -1;
    CHECK(window_of(dir, &o, &w, &err) == UP_EUSAGE);
    /* a window that runs past the end is cut there */
    o.start_s = 4e-6;
    o.end_s = 10;
    CHECK(window_of(dir, &o, &w, &err) == UP_OK);
    CHECK_EQ(w.t0, 5000);
    CHECK_EQ(w.t1, 1000 + 5006); /* origin + the trace's length */
    CHECK(strstr(w.how, "the trace ends") != NULL);
}

/* 200 ranks in 50 groups of 4; in [1000, 2000], ranks 4k .. 4k+3:
 *   4k    MPI_Barrier [1505, 2000)
 *   4k+1  MPI_Barrier [1250, 2000)
 *   4k+2  a buffer flush [1100, 1150]
 *   4k+3  MPI_Barrier [1500, 1750)
 * 100 columns of 10 ticks: MPI 0 before 1250, 1/4 to 1500, 2.5/4 in column
 * 50, 3/4 to 1750, 2/4 to the end; overhead 1/4 in columns 10-14. */
TEST(timeline_grouped_rows_mpi_fractions)
{
    char dir[4096];
    up_timeline_win w;
    up_timeline_opts o;
    up_timeline tl;
    up_err err = {0};
    up_trace *t;
    tg *g;
    unsigned r, c;
    snprintf(dir, sizeof dir, "%s", t_dir("in"));
    g = tg_open(dir, 200, NS, 0);
    for (r = 0; r < 200; r++) {
        tg_enter(g, r, 1000, TG_MAIN);
        switch (r % 4) {
        case 0:
            tg_enter(g, r, 1505, TG_BARRIER);
            tg_leave(g, r, 2000, TG_BARRIER);
            break;
        case 1:
            tg_enter(g, r, 1250, TG_BARRIER);
            tg_leave(g, r, 2000, TG_BARRIER);
            break;
        case 2:
            tg_flush(g, r, 1100, 1150);
            break;
        default:
            tg_enter(g, r, 1500, TG_BARRIER);
            tg_leave(g, r, 1750, TG_BARRIER);
        }
        tg_leave(g, r, 2000, TG_MAIN);
    }
    CHECK(tg_close(g) == 0);
    up_timeline_opts_init(&o);
    o.window_set = true;
    o.start_s = 0;
    o.end_s = 1e-6;
    o.width_px = 100;
    o.max_rows = 64;
    CHECK(window_of(dir, &o, &w, &err) == UP_OK);
    CHECK_EQ(w.t0, 1000);
    CHECK_EQ(w.t1, 2000);
    if (!(t = build(dir, &w, &o, &tl)))
        return;
    CHECK(tl.grouped);
    CHECK_EQ(tl.nrows, 50);
    CHECK(!strcmp(tl.rows[0].label, "ranks 0-3"));
    CHECK(!strcmp(tl.rows[49].label, "ranks 196-199"));
    for (r = 0; r < tl.nrows; r++) {
        const up_timeline_row *R = &tl.rows[r];
        CHECK_EQ(R->loc0, 4 * r);
        CHECK_EQ(R->nlocs, 4);
        CHECK_EQ(R->nbox, 0);
        if (!R->mpi_frac || !R->ovh_frac) {
            CHECK(R->mpi_frac && R->ovh_frac);
            continue;
        }
        for (c = 0; c < 100; c++) {
            double m = c < 25 ? 0 : c < 50 ? 0.25 : c == 50 ? 0.625 : c < 75 ? 0.75 : 0.5;
            double v = c >= 10 && c < 15 ? 0.25 : 0;
            if (R->mpi_frac[c] < m - 1e-6 || R->mpi_frac[c] > m + 1e-6 ||
                R->ovh_frac[c] < v - 1e-6 || R->ovh_frac[c] > v + 1e-6) {
                t_fail(__FILE__, __LINE__, "row %u column %u: mpi %g (want %g), overhead %g (want %g)",
                       r, c, (double)R->mpi_frac[c], m, (double)R->ovh_frac[c], v);
                r = (unsigned)tl.nrows; /* one report is enough */
                break;
            }
        }
    }
    up_timeline_free(&tl);
    up_trace_close(t);
}

/* 100,000 regions of 3 ticks every 10 ticks, every 7th an MPI_Barrier:
 * rank 0 inside main, rank 1 at the top level (gaps between them).  At
 * 1000 pixels, at most 2 * 1000 + 1 boxes per row, covering the run. */
TEST(timeline_boxes_bounded_by_width)
{
    char dir[4096];
    up_timeline_win w;
    up_timeline_opts o;
    up_timeline tl;
    up_err err = {0};
    up_trace *t;
    tg *g;
    unsigned r, i;
    size_t k;
    snprintf(dir, sizeof dir, "%s", t_dir("in"));
    g = tg_open(dir, 2, NS, 0);
    tg_enter(g, 0, 1000, TG_MAIN);
    for (r = 0; r < 2; r++)
        for (i = 0; i < 100000; i++) {
            tg_region_t reg = i % 7 == 0 ? TG_BARRIER : TG_WORK;
            tg_enter(g, r, 2000 + 10 * (uint64_t)i, reg);
            tg_leave(g, r, 2003 + 10 * (uint64_t)i, reg);
        }
    tg_leave(g, 0, 1003000, TG_MAIN);
    CHECK(tg_close(g) == 0);
    up_timeline_opts_init(&o);
    o.window_set = true;
    o.start_s = 0;
    o.end_s = 1.002e-3;
    CHECK(window_of(dir, &o, &w, &err) == UP_OK);
    if (!(t = build(dir, &w, &o, &tl)))
        return;
    for (r = 0; r < 2; r++) {
        const up_timeline_row *R = &tl.rows[r];
        uint64_t parts = 0;
        CHECK(R->nbox > 100);
        CHECK(R->nbox <= 2 * 1000 + 1);
        for (k = 0; k < R->nbox; k++) {
            CHECK(R->box[k].t0 < R->box[k].t1);
            CHECK(k == 0 || R->box[k].t0 >= R->box[k - 1].t1);
            parts += R->box[k].parts;
        }
        if (R->nbox) {
            CHECK_EQ(R->box[0].t0, r == 0 ? 1000 : 2000);
            CHECK_EQ(R->box[R->nbox - 1].t1, r == 0 ? 1003000 : 2000 + 10 * 99999 + 3);
        }
        /* rank 0: every region and the main between them; rank 1: the regions */
        CHECK_EQ(parts, r == 0 ? 200001 : 100000);
    }
    up_timeline_free(&tl);
    up_trace_close(t);
}

TEST(timeline_map_window_onto_shifted_copy)
{
    char a[4096], b[4096], c[4096];
    up_timeline_win wa, wb;
    up_timeline_opts o;
    up_err err = {0};
    up_trace *t;
    tg *g;
    snprintf(a, sizeof a, "%s", t_dir("a"));
    snprintf(b, sizeof b, "%s", t_dir("b"));
    snprintf(c, sizeof c, "%s", t_dir("c"));
    write_iters(a, 0);
    write_iters(b, 50000);
    g = tg_open(c, 1, NS, 0); /* fewer records on rank 0 */
    tg_enter(g, 0, 1000, TG_MAIN);
    tg_leave(g, 0, 9000, TG_MAIN);
    CHECK(tg_close(g) == 0);

    CHECK(window_of(a, NULL, &wa, &err) == UP_OK);
    if (!(t = open_trace(b)))
        return;
    CHECK(up_timeline_map_window(t, &wa, &wb, &err) == UP_OK);
    up_trace_close(t);
    CHECK_EQ(wb.origin, 51000);
    CHECK_EQ(wb.t0, 52700);
    CHECK_EQ(wb.t1, 53700);
    CHECK_EQ(wb.loc, 0);
    CHECK_EQ(wb.rec0, wa.rec0);
    CHECK_EQ(wb.rec1, wa.rec1);
    CHECK_EQ(wb.nrecs, wa.nrecs);
    CHECK(strstr(wb.how, "iteration 2 of 4") != NULL);

    /* --window: the margins before rec0 (2899) and after rec1 (3332) kept */
    up_timeline_opts_init(&o);
    o.window_set = true;
    o.start_s = 1.75e-6;
    o.end_s = 2.65e-6;
    CHECK(window_of(a, &o, &wa, &err) == UP_OK);
    if (!(t = open_trace(b)))
        return;
    CHECK(up_timeline_map_window(t, &wa, &wb, &err) == UP_OK);
    up_trace_close(t);
    CHECK_EQ(wb.t0, 52750);
    CHECK_EQ(wb.t1, 53650);
    CHECK_EQ(wb.r0_t, 52899);
    CHECK_EQ(wb.r1_t, 53332);

    /* too few records: the same offsets from the start */
    if (!(t = open_trace(c)))
        return;
    CHECK(up_timeline_map_window(t, &wa, &wb, &err) == UP_OK);
    up_trace_close(t);
    CHECK_EQ(wb.origin, 1000);
    CHECK_EQ(wb.t0, 2750);
    CHECK_EQ(wb.t1, 3650);
    CHECK(strstr(wb.how, "offsets") != NULL);
}

/* ---- SVG ---- */

/* Checks that `path` is well-formed XML: python's parser if there is one,
 * and in any case balanced tags. */
static void check_xml(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    size_t depth = 0, i;
    char cmd[8400];
    if (!f) {
        t_fail(__FILE__, __LINE__, "cannot read %s", path);
        return;
    }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        t_fail(__FILE__, __LINE__, "cannot read %s", path);
        fclose(f);
        free(buf);
        return;
    }
    buf[n] = 0;
    fclose(f);
    for (i = 0; i < (size_t)n; i++) {
        if (buf[i] != '<')
            continue;
        if (buf[i + 1] == '/') {
            if (depth == 0)
                t_fail(__FILE__, __LINE__, "%s: unbalanced </ at %zu", path, i);
            else
                depth--;
        } else {
            char *e = strchr(buf + i, '>');
            if (!e) {
                t_fail(__FILE__, __LINE__, "%s: unterminated tag at %zu", path, i);
                break;
            }
            if (e[-1] != '/')
                depth++;
        }
    }
    CHECK_EQ(depth, 0);
    free(buf);
    if (system("command -v python3 >/dev/null 2>&1") == 0) {
        snprintf(cmd, sizeof cmd,
                 "python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' '%s'",
                 path);
        if (system(cmd) != 0)
            t_fail(__FILE__, __LINE__, "%s is not well-formed XML", path);
    }
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        buf[n] = 0;
    fclose(f);
    return buf;
}

static void svg_to(const char *path, const up_timeline *tl, const char *title, uint64_t span)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        t_fail(__FILE__, __LINE__, "cannot write %s", path);
        return;
    }
    CHECK(up_timeline_svg(f, tl, title, span) == 0);
    fclose(f);
}

TEST(timeline_svg_is_xml_with_labels)
{
    char dir[4096], out[4200];
    up_timeline_win w;
    up_timeline_opts o;
    up_timeline tl;
    up_err err = {0};
    up_trace *t;
    char *s;
    snprintf(dir, sizeof dir, "%s", t_dir("in"));
    write_iters(dir, 0);
    up_timeline_opts_init(&o);
    CHECK(window_of(dir, NULL, &w, &err) == UP_OK);
    if (!(t = build(dir, &w, &o, &tl)))
        return;
    snprintf(out, sizeof out, "%s.svg", dir);
    svg_to(out, &tl, "measured <run> & \"more\"", 2 * (w.t1 - w.t0));
    check_xml(out);
    if ((s = slurp(out)) != NULL) {
        CHECK(!strncmp(s, "<svg ", 5));
        CHECK(strstr(s, "viewBox=") != NULL);
        CHECK(strstr(s, ">rank 0<") != NULL);
        CHECK(strstr(s, ">rank 1<") != NULL);
        CHECK(strstr(s, "<title>MPI_Allreduce") != NULL);
        CHECK(strstr(s, "measured &lt;run&gt; &amp; &quot;more&quot;") != NULL);
        CHECK(strstr(s, "iteration 2 of 4") != NULL);
        CHECK(strstr(s, "<script") == NULL);
        CHECK(strstr(s, "href") == NULL);
        free(s);
    }
    up_timeline_free(&tl);
    up_trace_close(t);
}

TEST(timeline_svg_grouped_and_large)
{
    char dir[4096], out[4200];
    up_timeline_win w;
    up_timeline_opts o;
    up_timeline tl;
    up_err err = {0};
    up_trace *t;
    tg *g;
    unsigned r, i;
    struct stat sb;
    char *s;
    /* 100 ranks (grouped by 2 at 64 rows), each with 2000 tiny regions and
     * a message to the next rank */
    snprintf(dir, sizeof dir, "%s", t_dir("in"));
    g = tg_open(dir, 100, NS, 0);
    for (r = 0; r < 100; r++) {
        tg_enter(g, r, 1000, TG_MAIN);
        for (i = 0; i < 2000; i++) {
            tg_region_t reg = (i + r) % 3 == 0 ? TG_ALLREDUCE : TG_WORK;
            tg_enter(g, r, 2000 + 10 * (uint64_t)i, reg);
            tg_leave(g, r, 2004 + 10 * (uint64_t)i, reg);
        }
        tg_mpi_send(g, r, 30000, 30001, 30002, (r + 1) % 100, 0, 8);
        tg_mpi_recv(g, r, 30003, 30050, 30051, (r + 99) % 100, 0, 8);
        tg_leave(g, r, 31000, TG_MAIN);
    }
    CHECK(tg_close(g) == 0);
    up_timeline_opts_init(&o);
    CHECK(window_of(dir, NULL, &w, &err) == UP_OK);
    o.window_set = true;
    o.start_s = 0;
    o.end_s = 30e-6;
    CHECK(window_of(dir, &o, &w, &err) == UP_OK);
    if (!(t = build(dir, &w, &o, &tl)))
        return;
    CHECK(tl.grouped);
    CHECK_EQ(tl.nrows, 50);
    CHECK_EQ(tl.msgs_in_window, 100);
    snprintf(out, sizeof out, "%s-grouped.svg", dir);
    svg_to(out, &tl, "grouped", 0);
    check_xml(out);
    CHECK(stat(out, &sb) == 0 && sb.st_size < 2 * 1024 * 1024);
    if ((s = slurp(out)) != NULL) {
        CHECK(strstr(s, ">ranks 0-1<") != NULL);
        CHECK(strstr(s, ">ranks 98-99<") != NULL);
        free(s);
    }
    up_timeline_free(&tl);
    up_trace_close(t);

    /* the same at 128 rows: one row per rank, too many boxes for tooltips */
    o.max_rows = 128;
    if (!(t = build(dir, &w, &o, &tl)))
        return;
    CHECK(!tl.grouped);
    CHECK_EQ(tl.nrows, 100);
    snprintf(out, sizeof out, "%s-rows.svg", dir);
    svg_to(out, &tl, "rows", 0);
    check_xml(out);
    CHECK(stat(out, &sb) == 0 && sb.st_size < 4 * 1024 * 1024);
    up_timeline_free(&tl);
    up_trace_close(t);
}

/* One location without a rank, named and with regions named with every
 * kind of byte that XML does not take as it is. */
static const char *const odd[] = {
    "a<b>&c\"d'e", "ctl\x01\x1f", "bad \xff byte", "\xc3\xbc" "ber \xe2\x9c\x93", "",
};
#define NODD (sizeof odd / sizeof odd[0])

static int write_odd(const char *dir)
{
    return t_write_named_regions(dir, odd, NODD, 8, 100, "node", "thread <&> \xfe");
}

TEST(timeline_svg_escapes_names)
{
    char dir[4096], out[4200];
    up_timeline_win w;
    up_timeline_opts o;
    up_timeline tl;
    up_err err = {0};
    up_trace *t;
    char *s;
    snprintf(dir, sizeof dir, "%s", t_dir("in"));
    CHECK(write_odd(dir) == 0);
    up_timeline_opts_init(&o);
    if (window_of(dir, NULL, &w, &err) != UP_OK) {
        t_fail(__FILE__, __LINE__, "%s", err.msg);
        return;
    }
    /* no collective, nothing nested: the middle 10% of [100, 148] */
    CHECK(strstr(w.how, "middle 10%") != NULL);
    o.window_set = true;
    o.start_s = 0;
    o.end_s = 50e-9;
    CHECK(window_of(dir, &o, &w, &err) == UP_OK);
    if (!(t = build(dir, &w, &o, &tl)))
        return;
    CHECK(!strcmp(tl.rows[0].label, "thread <&> \\xfe")); /* escaped (docs/cli.md, "Names in outputs") */
    CHECK_EQ(tl.rows[0].nbox, NODD);
    snprintf(out, sizeof out, "%s.svg", dir);
    svg_to(out, &tl, "odd names \xff", 0);
    check_xml(out);
    if ((s = slurp(out)) != NULL) {
        CHECK(strstr(s, "a&lt;b&gt;&amp;c&quot;d&#39;e") != NULL);
        CHECK(strstr(s, "thread &lt;&amp;&gt; \\xfe") != NULL);
        CHECK(strstr(s, "ctl\\x01\\x1f") != NULL);
        CHECK(strstr(s, "bad \\xff byte") != NULL);
        CHECK(strstr(s, "odd names \\xff") != NULL);
        CHECK(strstr(s, "\xc3\xbc" "ber \xe2\x9c\x93") != NULL);
        free(s);
    }
    up_timeline_free(&tl);
    up_trace_close(t);
}

TEST(timeline_allocation_failures)
{
    char dir[4096];
    up_timeline_win w;
    up_timeline_opts o;
    long n;
    int ok = 0, failed = 0;
    snprintf(dir, sizeof dir, "%s", t_dir("in"));
    write_iters(dir, 0);
    up_timeline_opts_init(&o);
    for (n = 0; n < 400 && !ok; n++) {
        up_err err = {0};
        up_trace *t = open_trace(dir);
        up_status s;
        if (!t)
            return;
        up_alloc_set_fail_after(n);
        s = up_timeline_window(t, &o, &w, &err);
        up_alloc_set_fail_after(-1);
        up_trace_close(t);
        if (s != UP_OK) {
            CHECK(s == UP_ENOMEM || s == UP_EFORMAT || s == UP_EOTF2);
            failed++;
            continue;
        }
        CHECK_EQ(w.t0, 2700);
        ok++;
    }
    CHECK(ok > 0 && failed > 0);
    ok = failed = 0;
    for (n = 0; n < 400 && !ok; n++) {
        up_timeline tl;
        up_err err = {0};
        up_trace *t = open_trace(dir);
        up_status s;
        if (!t)
            return;
        up_alloc_set_fail_after(n);
        s = up_timeline_build(t, &w, &o, &tl, &err);
        up_alloc_set_fail_after(-1);
        up_trace_close(t);
        if (s != UP_OK) {
            CHECK(s == UP_ENOMEM || s == UP_EOTF2);
            CHECK(err.msg[0] != 0);
            failed++;
            continue;
        }
        CHECK_EQ(tl.msgs_in_window, 3);
        up_timeline_free(&tl);
        ok++;
    }
    CHECK(ok > 0 && failed > 0);
}
