/*
 * test_profile.c - unperturb report's analysis (profile.h, report.h's
 * breakdown) on traces written by src/tracegen with hand-chosen times:
 * every expected value below is worked out by hand in the comment above it.
 */
#include <string.h>

#include "test.h"
#include "report/profile_report.h"
#include "tracegen/tracegen.h"

#define NS 1000000000ull

static up_trace *tr;

static int profile(const char *dir, up_profile *p)
{
    up_err err = {0};
    up_status st;
    tr = NULL;
    if ((st = up_trace_open(dir, &tr, &err)) == UP_OK)
        st = up_profile_run(tr, NULL, p, &err);
    if (st != UP_OK)
        fprintf(stderr, "    %s\n", err.msg);
    return st == UP_OK ? 0 : -1;
}

static void done(up_profile *p)
{
    up_profile_free(p);
    up_trace_close(tr);
}

/* The call path main > ... > name (a NULL-terminated list), or UP_CP_ROOT. */
static uint32_t find(const up_profile *p, const char *const *names)
{
    uint32_t parent = UP_CP_ROOT, i;
    for (; *names; names++) {
        for (i = 0; i < p->ncpaths; i++)
            if (p->cpaths[i].parent == parent && strcmp(p->cpaths[i].name, *names) == 0)
                break;
        if (i == p->ncpaths)
            return UP_CP_ROOT;
        parent = i;
    }
    return parent;
}

static const up_cpath_loc *cl_of(const up_profile *p, uint32_t cp, uint32_t loc)
{
    size_t i;
    for (i = 0; i < p->ncl; i++)
        if (p->cl[i].cpath == cp && p->cl[i].loc == loc)
            return &p->cl[i];
    return NULL;
}

/* Rank 0 sends at 510 (Enter MPI_Send 500); rank 1 entered MPI_Recv at 100
 * and receives at 600: one Late Sender of 500 - 100 = 400 at rank 1 in
 * main > MPI_Recv; transfer 600 - 510 = 90.  main: 0..1000 on both. */
TEST(profile_one_late_sender)
{
    const char *dir = t_dir("ls");
    tg *g = tg_open(dir, 2, NS, 0);
    static const char *const recv_path[] = {"main", "MPI_Recv", NULL};
    static const char *const send_path[] = {"main", "MPI_Send", NULL};
    up_profile p;
    uint32_t r, s;
    size_t i;
    tg_enter(g, 0, 0, TG_MAIN);
    tg_mpi_send(g, 0, 500, 510, 520, 1, 7, 64);
    tg_leave(g, 0, 1000, TG_MAIN);
    tg_enter(g, 1, 0, TG_MAIN);
    tg_mpi_recv(g, 1, 100, 600, 610, 0, 7, 64);
    tg_leave(g, 1, 1000, TG_MAIN);
    CHECK(tg_close(g) == 0);
    if (profile(dir, &p) != 0)
        return;
    CHECK_EQ(p.locs[1].wait[UP_WS_LATE_SENDER], 400);
    CHECK_EQ(p.locs[0].wait[UP_WS_LATE_SENDER], 0);
    CHECK_EQ(up_profile_wait_total(&p, UP_WS_LATE_RECEIVER), 0);
    r = find(&p, recv_path);
    s = find(&p, send_path);
    CHECK(r != UP_CP_ROOT && s != UP_CP_ROOT);
    if (r != UP_CP_ROOT && s != UP_CP_ROOT) {
        CHECK_EQ(p.cpaths[r].wait[UP_WS_LATE_SENDER], 400);
        CHECK_EQ(p.cpaths[r].incl, 510); /* 100 .. 610 */
        CHECK(p.cpaths[r].mpi);
        CHECK_EQ(p.cpaths[s].incl, 20);
    }
    /* MPI time: 20 on rank 0, 510 on rank 1; no MPI_Init: the window is
     * first .. last record, 1000 each */
    CHECK_EQ(p.locs[0].mpi, 20);
    CHECK_EQ(p.locs[1].mpi, 510);
    CHECK_EQ(p.locs[0].time, 1000);
    CHECK_EQ(p.ncomm, 2);
    for (i = 0; i < p.ncomm; i++) {
        const up_comm *c = &p.comm[i];
        if (c->loc == 0) { /* the send statement, peer rank 1 */
            CHECK_EQ(c->cpath, s);
            CHECK_EQ(c->peer, 1);
            CHECK_EQ(c->sends, 1);
            CHECK_EQ(c->bytes_sent, 64);
            CHECK_EQ(c->recvs, 0);
        } else {
            CHECK_EQ(c->cpath, r);
            CHECK_EQ(c->peer, 0);
            CHECK_EQ(c->recvs, 1);
            CHECK_EQ(c->bytes_recvd, 64);
            CHECK_EQ(c->transfer, 90);
            CHECK_EQ(c->delay, 400);
        }
    }
    done(&p);
}

/* A send that comes before the receive is entered: no Late Sender. */
TEST(profile_early_sender_is_no_wait)
{
    const char *dir = t_dir("early");
    tg *g = tg_open(dir, 2, NS, 0);
    up_profile p;
    tg_enter(g, 0, 0, TG_MAIN);
    tg_mpi_send(g, 0, 100, 110, 120, 1, 7, 64);
    tg_leave(g, 0, 1000, TG_MAIN);
    tg_enter(g, 1, 0, TG_MAIN);
    tg_mpi_recv(g, 1, 500, 505, 510, 0, 7, 64);
    tg_leave(g, 1, 1000, TG_MAIN);
    CHECK(tg_close(g) == 0);
    if (profile(dir, &p) != 0)
        return;
    CHECK_EQ(up_profile_wait_total(&p, UP_WS_LATE_SENDER), 0);
    CHECK_EQ(p.comm[1].delay, 0);
    CHECK_EQ(p.comm[1].transfer, 395);
    done(&p);
}

/* Barrier entered (MpiCollectiveBegin) at 101, 301, 201 on ranks 0..2,
 * ended at 310..312: waits 301 - 101 = 200, 0, 301 - 201 = 100. */
TEST(profile_barrier_waits)
{
    const char *dir = t_dir("barrier");
    tg *g = tg_open(dir, 3, NS, 0);
    static const char *const path[] = {"main", "MPI_Barrier", NULL};
    const uint64_t in[3] = {100, 300, 200};
    up_profile p;
    uint32_t cp;
    unsigned r;
    for (r = 0; r < 3; r++) {
        tg_enter(g, r, 0, TG_MAIN);
        tg_mpi_coll(g, r, TG_BARRIER, in[r], in[r] + 1, 310 + r, 320 + r,
                    OTF2_COLLECTIVE_OP_BARRIER, OTF2_UNDEFINED_UINT32, 0, 0);
        tg_leave(g, r, 1000, TG_MAIN);
    }
    CHECK(tg_close(g) == 0);
    if (profile(dir, &p) != 0)
        return;
    CHECK_EQ(p.locs[0].wait[UP_WS_WAIT_BARRIER], 200);
    CHECK_EQ(p.locs[1].wait[UP_WS_WAIT_BARRIER], 0);
    CHECK_EQ(p.locs[2].wait[UP_WS_WAIT_BARRIER], 100);
    CHECK_EQ(up_profile_wait_total(&p, UP_WS_WAIT_NXN), 0);
    cp = find(&p, path);
    CHECK(cp != UP_CP_ROOT);
    if (cp != UP_CP_ROOT) {
        const up_cpath_loc *e = cl_of(&p, cp, 2);
        CHECK_EQ(p.cpaths[cp].wait[UP_WS_WAIT_BARRIER], 300);
        CHECK_EQ(p.cpaths[cp].visits, 3);
        CHECK_EQ(p.cpaths[cp].nlocs, 3);
        /* inclusive 220 + 21 + 122 */
        CHECK_EQ(p.cpaths[cp].incl, 220 + 21 + 122);
        CHECK(e != NULL);
        if (e) {
            CHECK_EQ(e->wait[UP_WS_WAIT_BARRIER], 100);
            CHECK_EQ(e->incl, 122);
        }
    }
    done(&p);
}

/* Allreduce: begins 101, 151, 401 -> Wait at N x N 300, 250, 0.  Bcast with
 * root 1 beginning at 501, others at 451 and 431: Late Broadcast 50 and 70
 * at the non-roots (never at the root).  Reduce to root 0 beginning at 700
 * while the others begin at 900 and 800: Early Reduce 800 - 700 = 100 at
 * the root only. */
TEST(profile_collective_patterns)
{
    const char *dir = t_dir("colls");
    tg *g = tg_open(dir, 3, NS, 0);
    const uint64_t ar[3] = {100, 150, 400}, bc[3] = {450, 500, 430}, rd[3] = {700, 900, 800};
    up_profile p;
    unsigned r;
    for (r = 0; r < 3; r++) {
        tg_enter(g, r, 0, TG_MAIN);
        tg_mpi_coll(g, r, TG_ALLREDUCE, ar[r], ar[r] + 1, 420, 421, OTF2_COLLECTIVE_OP_ALLREDUCE,
                    OTF2_UNDEFINED_UINT32, 8, 8);
        tg_mpi_coll(g, r, TG_BCAST, bc[r], bc[r] + 1, 600, 601, OTF2_COLLECTIVE_OP_BCAST, 1,
                    r == 1 ? 16 : 0, r == 1 ? 0 : 16);
        tg_mpi_coll(g, r, TG_REDUCE, rd[r], rd[r] + 1, 950, 951, OTF2_COLLECTIVE_OP_REDUCE, 0,
                    8, r == 0 ? 24 : 0);
        tg_leave(g, r, 1000, TG_MAIN);
    }
    CHECK(tg_close(g) == 0);
    if (profile(dir, &p) != 0)
        return;
    CHECK_EQ(p.locs[0].wait[UP_WS_WAIT_NXN], 300);
    CHECK_EQ(p.locs[1].wait[UP_WS_WAIT_NXN], 250);
    CHECK_EQ(p.locs[2].wait[UP_WS_WAIT_NXN], 0);
    CHECK_EQ(p.locs[0].wait[UP_WS_LATE_BROADCAST], 50);
    CHECK_EQ(p.locs[1].wait[UP_WS_LATE_BROADCAST], 0);
    CHECK_EQ(p.locs[2].wait[UP_WS_LATE_BROADCAST], 70);
    CHECK_EQ(p.locs[0].wait[UP_WS_EARLY_REDUCE], 100);
    CHECK_EQ(p.locs[1].wait[UP_WS_EARLY_REDUCE], 0);
    CHECK_EQ(p.locs[2].wait[UP_WS_EARLY_REDUCE], 0);
    CHECK_EQ(up_profile_wait_total(&p, UP_WS_WAIT_BARRIER), 0);
    done(&p);
}

/* MPI_Ssend entered at 100 on rank 0, left at 520; the receive is posted
 * (Enter MPI_Recv) at 500: Late Receiver 400 at the sender.  The same with a
 * receive posted after the send's call ended is none. */
TEST(profile_late_receiver)
{
    const char *dir = t_dir("lr");
    tg *g = tg_open(dir, 2, NS, 0);
    up_profile p;
    tg_enter(g, 0, 0, TG_MAIN);
    tg_enter(g, 0, 100, TG_SSEND);
    tg_send(g, 0, 110, 1, 3, 8);
    tg_leave(g, 0, 520, TG_SSEND);
    tg_enter(g, 0, 600, TG_SEND); /* eager, done before the receive: no wait */
    tg_send(g, 0, 605, 1, 4, 8);
    tg_leave(g, 0, 610, TG_SEND);
    tg_leave(g, 0, 1000, TG_MAIN);
    tg_enter(g, 1, 0, TG_MAIN);
    tg_mpi_recv(g, 1, 500, 515, 530, 0, 3, 8);
    tg_mpi_recv(g, 1, 700, 705, 710, 0, 4, 8);
    tg_leave(g, 1, 1000, TG_MAIN);
    CHECK(tg_close(g) == 0);
    if (profile(dir, &p) != 0)
        return;
    CHECK_EQ(p.locs[0].wait[UP_WS_LATE_RECEIVER], 400);
    CHECK_EQ(p.locs[1].wait[UP_WS_LATE_RECEIVER], 0);
    CHECK_EQ(up_profile_wait_total(&p, UP_WS_LATE_SENDER), 0);
    done(&p);
}

/* Call-site counts and the run-time window.  Rank 0: main 0..1000,
 * MPI_Init 0..100, then work three times (100-150, 200-260, 300-370) with
 * get_coords inside each (110-120, 210-230, 310-340), MPI_Finalize from 900.
 * The window is 100 .. 900: main inclusive 800, exclusive
 * 800 - (50 + 60 + 70) = 620; work 3 visits, inclusive 180, exclusive
 * 180 - 60 = 120; main > work > get_coords 3 visits, 60; MPI_Init and
 * MPI_Finalize one visit each, 0 s inside the window. */
TEST(profile_call_site_counts_and_window)
{
    const char *dir = t_dir("cs");
    tg *g = tg_open(dir, 1, NS, 0);
    static const char *const work[] = {"main", "work", NULL};
    static const char *const gc[] = {"main", "work", "get_coords", NULL};
    static const char *const mn[] = {"main", NULL};
    static const char *const init[] = {"main", "MPI_Init", NULL};
    const uint64_t w0[3] = {100, 200, 300}, wl[3] = {50, 60, 70}, gl[3] = {10, 20, 30};
    up_profile p;
    uint32_t cw, cg, cm, ci;
    unsigned i;
    tg_enter(g, 0, 0, TG_MAIN);
    tg_enter(g, 0, 0, TG_INIT);
    tg_leave(g, 0, 100, TG_INIT);
    for (i = 0; i < 3; i++) {
        tg_enter(g, 0, w0[i], TG_WORK);
        tg_enter(g, 0, w0[i] + 10, TG_GET_COORDS);
        tg_leave(g, 0, w0[i] + 10 + gl[i], TG_GET_COORDS);
        tg_leave(g, 0, w0[i] + wl[i], TG_WORK);
    }
    tg_enter(g, 0, 900, TG_FINALIZE);
    tg_leave(g, 0, 950, TG_FINALIZE);
    tg_leave(g, 0, 1000, TG_MAIN);
    CHECK(tg_close(g) == 0);
    if (profile(dir, &p) != 0)
        return;
    CHECK(p.window_marked);
    CHECK_EQ(p.locs[0].start, 100);
    CHECK_EQ(p.locs[0].end, 900);
    CHECK_EQ(p.locs[0].time, 800);
    CHECK_EQ(p.locs[0].mpi, 0);
    cw = find(&p, work), cg = find(&p, gc), cm = find(&p, mn), ci = find(&p, init);
    CHECK(cw != UP_CP_ROOT && cg != UP_CP_ROOT && cm != UP_CP_ROOT && ci != UP_CP_ROOT);
    if (cw == UP_CP_ROOT || cg == UP_CP_ROOT || cm == UP_CP_ROOT || ci == UP_CP_ROOT)
        goto out;
    CHECK_EQ(p.cpaths[cm].incl, 800);
    CHECK_EQ(p.cpaths[cm].excl, 620);
    CHECK_EQ(p.cpaths[cw].visits, 3);
    CHECK_EQ(p.cpaths[cw].incl, 180);
    CHECK_EQ(p.cpaths[cw].excl, 120);
    CHECK_EQ(p.cpaths[cw].depth, 1);
    CHECK_EQ(p.cpaths[cg].visits, 3);
    CHECK_EQ(p.cpaths[cg].incl, 60);
    CHECK_EQ(p.cpaths[cg].parent, cw);
    CHECK_EQ(p.cpaths[ci].visits, 1);
    CHECK_EQ(p.cpaths[ci].incl, 0);
out:
    done(&p);
}

/* Two profiles of "one program": the breakdown's parts add up to the time
 * of each run, per location and in total, and the difference of a Late
 * Sender shows as that pattern's difference. */
TEST(profile_breakdown_adds_up)
{
    char da[4096], db[4096];
    tg *g;
    up_profile a, b;
    up_trace *ta;
    up_breakdown bd;
    up_err err = {0};
    unsigned k;
    size_t i;
    snprintf(da, sizeof da, "%s", t_dir("a"));
    snprintf(db, sizeof db, "%s", t_dir("b"));
    for (i = 0; i < 2; i++) { /* run b: the send 300 earlier */
        uint64_t d = i ? 300 : 0;
        g = tg_open(i ? db : da, 2, NS, 0);
        tg_enter(g, 0, 0, TG_MAIN);
        tg_mpi_send(g, 0, 500 - d, 510 - d, 520 - d, 1, 7, 64);
        tg_leave(g, 0, 1000 - d, TG_MAIN);
        tg_enter(g, 1, 0, TG_MAIN);
        tg_mpi_recv(g, 1, 100, 600 - d, 610 - d, 0, 7, 64);
        tg_leave(g, 1, 1000 - d, TG_MAIN);
        CHECK(tg_close(g) == 0);
    }
    if (profile(da, &a) != 0)
        return;
    ta = tr;
    if (profile(db, &b) != 0) {
        up_profile_free(&a);
        up_trace_close(ta);
        return;
    }
    CHECK(up_breakdown_make(&a, &b, &bd, &err) == UP_OK);
    CHECK_EQ(bd.nlocs, 2);
    for (i = 0; i <= bd.nlocs; i++) {
        const up_breakdown_loc *l = i < bd.nlocs ? &bd.locs[i] : &bd.total;
        double sa = l->exec.a_s + l->mpi_other.a_s, sb = l->exec.b_s + l->mpi_other.b_s;
        for (k = 0; k < UP_WS_COUNT; k++)
            sa += l->wait[k].a_s, sb += l->wait[k].b_s;
        CHECK_NEAR(sa, l->time.a_s, 1e-15);
        CHECK_NEAR(sb, l->time.b_s, 1e-15);
    }
    /* Late Sender 400 ns -> 100 ns at rank 1 */
    CHECK_NEAR(bd.locs[1].wait[UP_WS_LATE_SENDER].a_s, 400e-9, 1e-15);
    CHECK_NEAR(bd.locs[1].wait[UP_WS_LATE_SENDER].b_s, 100e-9, 1e-15);
    CHECK_NEAR(bd.total.time.a_s - bd.total.time.b_s, 600e-9, 1e-15);
    up_breakdown_free(&bd);
    up_profile_free(&a);
    up_trace_close(ta);
    done(&b);
}

/* Real Score-P trace (casita-4_mpi_ls_barr): rank 1's Late Sender equals
 * rank 0's Enter(MPI_Send) - rank 1's Enter(MPI_Recv) as otf2-print shows
 * them: 106116946908054 - 106107922094015 = 9024814039 ns. */
TEST(profile_real_trace_late_sender)
{
    up_profile p;
    if (profile(t_src("tests/data/casita-4_mpi_ls_barr"), &p) != 0)
        return;
    CHECK_EQ(p.nlocs, 4);
    CHECK_EQ(p.locs[1].wait[UP_WS_LATE_SENDER], 9024814039ull);
    CHECK(p.locs[0].wait[UP_WS_LATE_SENDER] == 0);
    CHECK(up_profile_wait_total(&p, UP_WS_WAIT_BARRIER) > 0);
    done(&p);
}
