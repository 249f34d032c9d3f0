/*
 * test_report_html.c - report.html (src/report/html.c) from profiles,
 * a breakdown, timelines and an estimate built here by hand with known
 * numbers: the figures the page must show (the run-time reduction, a wait
 * state's row, the Fig. 2 shares, a call path inside its parent's
 * <details>, a peer's row, the estimates' errors), escaping of every
 * string from the trace, no scripts and no external resources, a bounded
 * size for 1000 locations and 5000 call paths, and no file left behind when
 * writing fails or memory runs out.  tests/report/chromium.sh renders a page
 * in headless Chromium: UNPERTURB_HTML_KEEP=DIR keeps the pages here in DIR
 * (sample.html, one.html, large.html) to open or screenshot.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test.h"
#include "report/profile_report.h"
#include "report/timeline.h"

/* ---- reading the page back ------------------------------------------------- */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *s = NULL;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (s = malloc((size_t)n + 1)) != NULL) {
        if (fread(s, 1, (size_t)n, f) != (size_t)n) {
            free(s);
            s = NULL;
        } else {
            s[n] = 0;
            if (len)
                *len = (size_t)n;
        }
    }
    fclose(f);
    return s;
}

/* the text of [p, end) with every tag replaced by one '|' (runs collapsed,
 * none at the ends): "<tr><td>a</td><td>b</td></tr>" -> "a|b" */
static char *cells(const char *p, const char *end)
{
    char *o = malloc((size_t)(end - p) + 1), *q = o;
    bool bar = true; /* no leading '|' */
    while (p < end) {
        if (*p == '<') {
            while (p < end && *p != '>')
                p++;
            p++;
            if (!bar)
                *q++ = '|';
            bar = true;
        } else {
            *q++ = *p++;
            bar = false;
        }
    }
    if (q > o && q[-1] == '|')
        q--;
    *q = 0;
    return o;
}

/* the cells of the table row, or call-path tree row, that contains `key`,
 * searched after `after` */
static char *row_of(const char *html, const char *after, const char *key)
{
    static const char *const open[] = {"<tr", "<summary", "<div class=\"r"};
    static const char *const close[] = {"</tr>", "</summary>", "</div>"};
    const char *p = strstr(html, after), *k, *s, *e;
    int w = -1, i;
    if (!p || !(k = strstr(p, key)))
        return strdup("");
    for (s = k; s > html && w < 0; s--)
        for (i = 0; i < 3 && w < 0; i++)
            if (!strncmp(s - 1, open[i], strlen(open[i])))
                w = i;
    if (w < 0 || !(e = strstr(k, close[w])))
        return strdup("");
    return cells(s, e);
}

/* [*s, *e): the <details> element whose summary holds `name` (searched after
 * `after`); false if there is none */
static bool details_of(const char *html, const char *after, const char *name, const char **s,
                       const char **e)
{
    const char *p = strstr(html, after), *k, *q;
    int depth = 0;
    if (!p || !(k = strstr(p, name)))
        return false;
    for (q = k; q > html && strncmp(q, "<details", 8) != 0; q--)
        ;
    if (q == html || strstr(q, "</summary>") < k)
        return false; /* `name` is not in this element's summary */
    *s = q;
    for (; *q; q++) {
        if (!strncmp(q, "<details", 8))
            depth++;
        else if (!strncmp(q, "</details>", 10) && --depth == 0) {
            *e = q + 10;
            return true;
        }
    }
    return false;
}

static bool within(const char *s, const char *e, const char *needle)
{
    const char *p = strstr(s, needle);
    return p && p + strlen(needle) <= e;
}

static size_t dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    size_t n = 0;
    if (!d)
        return 0;
    while ((de = readdir(d)))
        n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
    closedir(d);
    return n;
}

/* ---- the inputs ------------------------------------------------------------------ */

#define S(x) ((uint64_t)((x) * 1e6 + 0.5)) /* seconds -> ticks (resolution 1 MHz) */

typedef struct fixture {
    up_profile a, b;
    up_profile_loc la[4], lb[4];
    up_cpath ca[6], cb[6];
    up_comm ma[4], mb[4];
    up_breakdown_loc bl[4];
    up_breakdown bd;
    up_estimate est;
    up_defs defs;
    up_timeline_box box[2][4][2];
    up_timeline_row rows[2][4];
    up_timeline tl[2];
    up_html_input in;
} fixture;

static void cpath(up_cpath *c, OTF2_RegionRef region, uint32_t parent, const char *name,
                  unsigned depth, bool mpi, uint64_t visits, double incl, double excl)
{
    memset(c, 0, sizeof *c);
    c->parent = parent;
    c->region = region; /* the same in both runs: up_profile_match matches them */
    c->name = name;
    c->depth = depth;
    c->mpi = mpi;
    c->visits = visits;
    c->incl = S(incl);
    c->excl = S(excl);
    c->nlocs = 4;
}

static void comm(up_comm *m, uint32_t cp, uint32_t loc, long peer, uint64_t sends, uint64_t recvs,
                 uint64_t bytes, double transfer, double delay)
{
    memset(m, 0, sizeof *m);
    m->cpath = cp;
    m->loc = loc;
    m->peer = peer;
    m->peer_loc = (uint32_t)peer;
    m->sends = sends;
    m->bytes_sent = sends ? bytes : 0;
    m->recvs = recvs;
    m->bytes_recvd = recvs ? bytes : 0;
    m->transfer = S(transfer);
    m->delay = S(delay);
}

/* the breakdown as up_breakdown_make defines it, from the profiles */
static void breakdown(const up_profile *a, const up_profile *b, up_breakdown_loc *locs, up_breakdown *bd)
{
    size_t i;
    unsigned k;
    memset(bd, 0, sizeof *bd);
    bd->nlocs = a->nlocs;
    bd->locs = locs;
    for (i = 0; i < a->nlocs; i++) {
        up_breakdown_loc *l = &locs[i];
        const up_profile_loc *pa = &a->locs[i], *pb = &b->locs[i];
        double wa = 0, wb = 0, ra = (double)a->resolution, rb = (double)b->resolution;
        memset(l, 0, sizeof *l);
        for (k = 0; k < UP_WS_COUNT; k++) {
            l->wait[k].a_s = (double)pa->wait[k] / ra;
            l->wait[k].b_s = (double)pb->wait[k] / rb;
            wa += l->wait[k].a_s;
            wb += l->wait[k].b_s;
            bd->total.wait[k].a_s += l->wait[k].a_s;
            bd->total.wait[k].b_s += l->wait[k].b_s;
        }
        l->time.a_s = (double)pa->time / ra;
        l->time.b_s = (double)pb->time / rb;
        l->exec.a_s = (double)(pa->time - pa->mpi) / ra;
        l->exec.b_s = (double)(pb->time - pb->mpi) / rb;
        l->mpi_other.a_s = (double)pa->mpi / ra - wa;
        l->mpi_other.b_s = (double)pb->mpi / rb - wb;
        bd->total.time.a_s += l->time.a_s;
        bd->total.time.b_s += l->time.b_s;
        bd->total.exec.a_s += l->exec.a_s;
        bd->total.exec.b_s += l->exec.b_s;
        bd->total.mpi_other.a_s += l->mpi_other.a_s;
        bd->total.mpi_other.b_s += l->mpi_other.b_s;
    }
}

static void prof_loc(up_profile_loc *l, long rank, double end, double mpi, unsigned pattern, double wait)
{
    memset(l, 0, sizeof *l);
    l->id = (OTF2_LocationRef)rank;
    l->rank = rank;
    l->process = (uint32_t)rank; /* one process per rank, as a real profile has */
    l->name = "Master thread";
    l->start = 0;
    l->end = S(end);
    l->time = S(end);
    l->mpi = S(mpi);
    l->wait[pattern] = S(wait);
    l->records = 1000;
}

/* Four ranks, 10 s measured and 8 s compensated (a reduction of 20.0%).
 * Rank 0 is a master receiving from three workers: its Late Sender wait
 * drops from 3 s to 1 s; the workers wait at an allreduce (N x N). */
static void fixture_init(fixture *x)
{
    static const char *script = "<script>alert(1)</script>";
    unsigned r, w;
    memset(x, 0, sizeof *x);
    for (r = 0; r < 4; r++) {
        prof_loc(&x->la[r], r, 10, r ? 2 : 6, r ? UP_WS_WAIT_NXN : UP_WS_LATE_SENDER, r ? 0.5 : 3);
        prof_loc(&x->lb[r], r, 8, r ? 1.5 : 5, r ? UP_WS_WAIT_NXN : UP_WS_LATE_SENDER, r ? 0.25 : 1);
    }
    /* main > compute > <script>; main > MPI_Recv; main > MPI_Allreduce; main > MPI_Send */
    cpath(&x->ca[0], 0, UP_CP_ROOT, "main", 0, false, 4, 40, 2);
    cpath(&x->ca[1], 1, 0, "compute", 1, false, 400, 26, 20);
    cpath(&x->ca[2], 2, 1, script, 2, false, 400, 6, 6);
    cpath(&x->ca[3], 3, 0, "MPI_Recv", 1, true, 300, 6, 6);
    cpath(&x->ca[4], 4, 0, "MPI_Allreduce", 1, true, 100, 6, 6);
    cpath(&x->ca[5], 5, 0, "MPI_Send", 1, true, 300, 0.0005, 0.0005);
    x->ca[3].wait[UP_WS_LATE_SENDER] = S(3);
    x->ca[4].wait[UP_WS_WAIT_NXN] = S(1.5);
    cpath(&x->cb[0], 0, UP_CP_ROOT, "main", 0, false, 4, 32, 1.5);
    cpath(&x->cb[1], 1, 0, "compute", 1, false, 400, 20.5, 16);
    cpath(&x->cb[2], 2, 1, script, 2, false, 400, 4.5, 4.5);
    cpath(&x->cb[3], 3, 0, "MPI_Recv", 1, true, 300, 5, 5);
    cpath(&x->cb[4], 4, 0, "MPI_Allreduce", 1, true, 100, 5, 5);
    cpath(&x->cb[5], 5, 0, "MPI_Send", 1, true, 300, 0.0004, 0.0004);
    x->cb[3].wait[UP_WS_LATE_SENDER] = S(1);
    x->cb[4].wait[UP_WS_WAIT_NXN] = S(0.75);
    for (w = 1; w < 4; w++) {
        comm(&x->ma[w - 1], 3, 0, w, 0, 100, 409600, 0.001, 1);
        comm(&x->mb[w - 1], 3, 0, w, 0, 100, 409600, 0.001, w == 1 ? 0.25 : 0.5);
    }
    comm(&x->ma[3], 5, 1, 0, 100, 0, 409600, 0, 0);
    comm(&x->mb[3], 5, 1, 0, 100, 0, 409600, 0, 0);

    x->a.resolution = x->b.resolution = 1000000;
    x->a.window_marked = x->b.window_marked = true;
    x->a.end = S(10);
    x->b.end = S(8);
    x->a.events = 4000;
    x->b.events = 4000;
    x->a.nlocs = x->b.nlocs = 4;
    x->a.locs = x->la;
    x->b.locs = x->lb;
    x->a.ncpaths = x->b.ncpaths = 6;
    x->a.cpaths = x->ca;
    x->b.cpaths = x->cb;
    x->a.ncomm = x->b.ncomm = 4;
    x->a.comm = x->ma;
    x->b.comm = x->mb;
    x->a.repairs[UP_REPAIR_unmatched_recv] = 2;
    breakdown(&x->a, &x->b, x->bl, &x->bd);

    x->est.resolution = 1000000;
    x->est.window_marked = true;
    x->est.measured_s = 10;
    x->est.model[UP_ESTIMATE_SEQ_TOTAL].approximated_s = 6.5;
    x->est.model[UP_ESTIMATE_CONC_TOTAL].approximated_s = 8.4;
    x->est.model[UP_ESTIMATE_SEQ_EVENT].approximated_s = 6.5;
    x->est.model[UP_ESTIMATE_CONC_EVENT].approximated_s = 8.2;
    for (r = 0; r < UP_ESTIMATE_COUNT; r++)
        x->est.model[r].dp_s = 10 - x->est.model[r].approximated_s;

    x->in.path_a = "run&\"x'";
    x->in.path_b = "run-comp";
    x->in.label_a = "measured";
    x->in.label_b = "compensated";
    x->in.a = &x->a;
    x->in.b = &x->b;
    x->in.bd = &x->bd;
    x->in.est = &x->est;
    x->in.command = "unperturb report run --against run-comp -o <report>.html";
}

/* one window of each run: iteration 3, 0.5 .. 0.6 s measured, 0.4 .. 0.48 s
 * compensated; a compute box then an MPI box per rank */
static void fixture_timelines(fixture *x)
{
    unsigned t, r;
    for (t = 0; t < 2; t++) {
        up_timeline *tl = &x->tl[t];
        uint64_t t0 = t ? S(0.4) : S(0.5), len = t ? S(0.08) : S(0.1);
        tl->resolution = 1000000;
        tl->win.t0 = t0;
        tl->win.t1 = t0 + len;
        tl->win.origin = 0;
        snprintf(tl->win.how, sizeof tl->win.how, "iteration 3 of 5 (MPI_Allreduce on rank 0)");
        tl->defs = &x->defs;
        tl->width_px = 1000;
        tl->nrows = 4;
        tl->rows = x->rows[t];
        for (r = 0; r < 4; r++) {
            up_timeline_row *row = &x->rows[t][r];
            uint64_t mid = t0 + len * (r ? 7 : 3) / 10;
            snprintf(row->label, sizeof row->label, "rank %u", r);
            row->loc0 = r;
            row->nlocs = 1;
            row->nbox = 2;
            row->box = x->box[t][r];
            row->box[0] = (up_timeline_box){.t0 = t0, .t1 = mid, .region = 1, .kind = UP_TIMELINE_USER};
            row->box[1] = (up_timeline_box){.t0 = mid, .t1 = t0 + len, .region = 2, .kind = UP_TIMELINE_MPI};
        }
    }
    x->in.tl_a = &x->tl[0];
    x->in.tl_b = &x->tl[1];
}

static char *render(const up_html_input *in, const char *name, size_t *len)
{
    up_err err;
    char dir[4096], path[4200];
    char *html;
    snprintf(dir, sizeof dir, "%s", t_dir(name));
    snprintf(path, sizeof path, "%s/report.html", dir);
    mkdir(dir, 0755);
    if (up_report_html(path, in, &err) != UP_OK) {
        t_fail(__FILE__, __LINE__, "up_report_html: %s", err.msg);
        return NULL;
    }
    CHECK_EQ(dir_entries(dir), 1); /* no temporary file left */
    html = slurp(path, len);
    CHECK(html != NULL);
    if (html && getenv("UNPERTURB_HTML_KEEP")) { /* a directory: keep the pages to look at */
        char keep[4200];
        FILE *f;
        snprintf(keep, sizeof keep, "%s/%s.html", getenv("UNPERTURB_HTML_KEEP"), name);
        if ((f = fopen(keep, "wb")) != NULL) {
            fwrite(html, 1, *len, f);
            fclose(f);
        }
    }
    return html;
}

static void check_row(const char *html, const char *after, const char *key, const char *want)
{
    char *got = row_of(html, after, key);
    if (!strstr(got, want))
        t_fail(__FILE__, __LINE__, "row of '%s': '%s' lacks '%s'", key, got, want);
    free(got);
}

/* ---- the tests ---------------------------------------------------------------------- */

TEST(report_html_figures)
{
    fixture x;
    size_t len = 0;
    char *html;
    const char *s, *e, *s2, *e2;
    fixture_init(&x);
    fixture_timelines(&x);
    if (!(html = render(&x.in, "sample", &len)))
        return;

    /* 1. header: both runs, their times, the reduction, the repairs */
    CHECK(strstr(html, "<div class=\"big\">10.00 s</div>") != NULL);
    CHECK(strstr(html, "<div class=\"big\">8.000 s</div>") != NULL);
    CHECK(strstr(html, "<div class=\"big\">20.0%</div>") != NULL);
    CHECK(strstr(html, "MPI_Init &#8230; MPI_Finalize") != NULL);
    check_row(html, "class=\"warn\"", "unmatched_recv", "unmatched_recv|2|0|receives without a matching send");

    /* 2. the timelines, measured above compensated, titled with their runs
     * (the window is up_timeline_svg's subtitle) */
    s = strstr(html, "id=\"timeline\"");
    e = strstr(html, "id=\"overhead\"");
    CHECK(s && e && within(s, e, "measured: run&amp;&quot;x&#39;") && within(s, e, "compensated: run-comp"));
    CHECK(s && e && within(s, e, "iteration 3 of 5 (MPI_Allreduce on rank 0)"));
    CHECK(strstr(html, "measured: run&amp;") < strstr(html, "compensated: run-comp"));

    /* 3. Fig. 2: 40 s and 32 s of location time; Late Sender is 2 s of the
     * 8 s difference (25.0%), all of it at rank 0; execution 5.5 s */
    check_row(html, "class=\"bd\"", ">Total<", "Total|40.00 s|32.00 s|8.000 s|100.0%");
    check_row(html, "class=\"bd\"", ">Late Sender<", "Late Sender|3.000 s|1.000 s|2.000 s|25.0%|rank 0 (100.0% of it)");
    check_row(html, "class=\"bd\"", ">Execution<", "Execution|28.00 s|22.50 s|5.500 s|68.8%|rank 1 (27.3% of it)");
    check_row(html, "class=\"bd\"", ">MPI (not waiting)<", "MPI (not waiting)|7.500 s|7.750 s|-250.0 ms|-3.1%|rank 0 (-1.000 s)");
    CHECK(strstr(html, "<title>Late Sender 2.000 s (25.0%)</title>") != NULL);   /* the bar */
    CHECK(strstr(html, "<title>rank 0: Late Sender 2.000 s</title>") != NULL);   /* per location */
    CHECK(!within(strstr(html, "id=\"overhead\""), strstr(html, "id=\"waits\""), "Wait at Barrier"));

    /* 4. wait states: measured, compensated, difference, shares of 40 s and 32 s */
    check_row(html, "id=\"waits\"", ">Late Sender<", "Late Sender|3.000 s|1.000 s|2.000 s|7.5%|3.1%");
    check_row(html, "id=\"waits\"", ">Wait at N x N<", "Wait at N x N|1.500 s|750.0 ms|750.0 ms|3.8%|2.3%");
    check_row(html, "Largest wait states", "<td class=\"l\">rank 2</td>", "Wait at N x N|rank 2|500.0 ms|250.0 ms|250.0 ms");

    /* 5. call paths: nested <details>, the first two levels open */
    CHECK(details_of(html, "id=\"callpaths\"", ">main<", &s, &e));
    CHECK(details_of(html, "id=\"callpaths\"", ">compute<", &s2, &e2));
    if (!strncmp(s, "<details", 8) && !strncmp(s2, "<details", 8)) {
        CHECK(!strncmp(s, "<details open", 13));
        CHECK(!strncmp(s2, "<details open", 13));
        CHECK(s < s2 && e2 <= e);                               /* compute inside main */
        CHECK(within(s2, e2, "&lt;script&gt;alert(1)&lt;/script&gt;")); /* its callee */
        CHECK(!within(s2, e2, ">MPI_Recv<"));                    /* a sibling */
        CHECK(within(s, e, ">MPI_Recv<") && within(s, e, ">MPI_Send<"));
    }
    check_row(html, "id=\"callpaths\"", ">compute<", "compute|400|26.00 s|20.00 s|65.0%|20.50 s|5.500 s");
    check_row(html, "id=\"callpaths\"", ">MPI_Recv<", "MPI_Recv|300|6.000 s|6.000 s|15.0%|3.000 s|5.000 s|1.000 s");
    check_row(html, "id=\"callpaths\"", ">MPI_Allreduce<", "MPI_Allreduce|100|6.000 s|6.000 s|15.0%|1.500 s|5.000 s");
    check_row(html, "id=\"callpaths\"", ">MPI_Send<", "MPI_Send|300|500.0 \xc2\xb5s|500.0 \xc2\xb5s|0.0%|400.0 \xc2\xb5s|100.0 \xc2\xb5s");
    /* the peers of rank 0's receives, inside MPI_Recv's node: the delay and
     * the compensated one */
    CHECK(details_of(html, "id=\"callpaths\"", ">MPI_Recv<", &s, &e));
    check_row(s, "class=\"comm\"", "<td>rank 1</td>", "rank 0|rank 1|0|0 B|100|400.0 KiB|1.000 ms|1.000 s|250.0 ms");
    check_row(s, "class=\"comm\"", "<td>rank 3</td>", "rank 0|rank 3|0|0 B|100|400.0 KiB|1.000 ms|1.000 s|500.0 ms");
    CHECK(within(s, e, "<td>rank 3</td>"));
    check_row(html, "id=\"callpaths\"", "<td>rank 1</td><td>rank 0</td>", "rank 1|rank 0|100|400.0 KiB|0|0 B|0|0");

    /* 6. locations */
    check_row(html, "id=\"locations\"", "<td>rank 0</td>", "rank 0|10.00 s|6.000 s|3.000 s|8.000 s|5.000 s|1.000 s|2.000 s");
    check_row(html, "id=\"locations\"", "all 4 locations", "all 4 locations (sum)|40.00 s|12.00 s|4.500 s|32.00 s|9.500 s|1.750 s|8.000 s");

    /* 7. estimates: the concurrent total-time model is 5.0% above the replay's 8 s */
    check_row(html, "id=\"estimates\"", "<td class=\"l\">3.1.2</td>", "|3.1.2|8.400 s|1.600 s|+5.0%");
    check_row(html, "id=\"estimates\"", "<td class=\"l\">3.1.1</td>", "|3.1.1|6.500 s|3.500 s|-18.8%");

    /* 8. footer; everything escaped, nothing fetched, no scripts */
    CHECK(strstr(html, "unperturb report run --against run-comp -o &lt;report&gt;.html") != NULL);
    CHECK(strstr(html, "generated by unperturb " UP_VERSION) != NULL);
    CHECK(strstr(html, "run&amp;&quot;x&#39;") != NULL);
    CHECK(strstr(html, "run&\"") == NULL);
    CHECK(strcasestr(html, "<script") == NULL);
    CHECK(strcasestr(html, "javascript:") == NULL);
    CHECK(strcasestr(html, " src=") == NULL);
    CHECK(strcasestr(html, "href=\"http") == NULL && strcasestr(html, "href='http") == NULL);
    CHECK(strcasestr(html, "url(") == NULL && strcasestr(html, "@import") == NULL);
    CHECK(strcasestr(html, "<link") == NULL && strcasestr(html, "<img") == NULL);
    CHECK(strstr(html, "</html>\n") == html + len - 8);
    free(html);
}

/* one run only: no second run's columns, no breakdown, no timelines, no estimates */
TEST(report_html_one_run)
{
    fixture x;
    size_t len = 0;
    char *html;
    fixture_init(&x);
    x.in.b = NULL;
    x.in.path_b = NULL;
    x.in.est = NULL;
    x.in.command = NULL;
    x.la[3].rank = 2; /* two threads of rank 2 */
    x.la[3].process = 2;
    x.la[2].name = "Master thread";
    x.la[3].name = "Pthread \"1\"";
    if (!(html = render(&x.in, "one", &len)))
        return;
    CHECK(strstr(html, "<td>rank 2, Master thread</td>") != NULL);
    CHECK(strstr(html, "<td>rank 2, Pthread &quot;1&quot;</td>") != NULL);
    CHECK(strstr(html, "<td>rank 1</td>") != NULL);
    /* the Locations table groups rank 2's two threads under their process */
    {
        const char *loc = strstr(html, "id=\"locations\""), *p, *m, *t;
        CHECK(loc && (p = strstr(loc, "<tr class=\"proc\"><td>rank 2 (2 locations, sum)</td>")) &&
              (m = strstr(p, "<tr class=\"sub\"><td>Master thread</td>")) &&
              (t = strstr(m, "<tr class=\"sub\"><td>Pthread &quot;1&quot;</td>")) &&
              !strstr(loc, "<td>rank 2, Master thread</td>"));
        CHECK(strstr(html, "tr.sub td:first-child") != NULL);
    }
    CHECK(strstr(html, "id=\"timeline\"") == NULL);
    CHECK(strstr(html, "id=\"overhead\"") == NULL);
    CHECK(strstr(html, "id=\"estimates\"") == NULL);
    CHECK(strstr(html, "reduction") == NULL);
    CHECK(strstr(html, "compensated") == NULL);
    check_row(html, "id=\"waits\"", ">Late Sender<", "Late Sender|3.000 s|7.5%");
    check_row(html, "id=\"callpaths\"", ">compute<", "compute|400|26.00 s|20.00 s|65.0%");
    check_row(html, "id=\"locations\"", "<td>rank 0</td>", "rank 0|10.00 s|6.000 s|3.000 s");
    CHECK(strstr(html, "generated by unperturb") != NULL);
    free(html);
}

/* 1000 locations, 5000 call paths (main > 49 phases > 101 calls, every
 * other one MPI with two peers per location): under 10 MB, long lists cut */
TEST(report_html_large)
{
    enum { NL = 1000, NC = 5000, NPH = 49 };
    up_profile a, b;
    up_breakdown bd;
    up_html_input in;
    up_comm *m;
    size_t len = 0, i, nm = 0, k;
    char *html;
    static char names[NC][24];

    memset(&a, 0, sizeof a);
    a.resolution = 1000000000;
    a.window_marked = true;
    a.end = 20000000000ull;
    a.events = 123456789;
    a.nlocs = NL;
    a.ncpaths = NC;
    a.locs = calloc(NL, sizeof *a.locs);
    a.cpaths = calloc(NC, sizeof *a.cpaths);
    bd.locs = calloc(NL, sizeof *bd.locs);
    m = calloc((size_t)(NC / 10 + 1) * NL, sizeof *m);
    if (!a.locs || !a.cpaths || !bd.locs || !m) {
        t_fail(__FILE__, __LINE__, "out of memory");
        return;
    }
    for (i = 0; i < NL; i++) {
        up_profile_loc *l = &a.locs[i];
        l->rank = (long)i;
        l->process = (uint32_t)i;
        l->name = "Master thread";
        l->end = l->time = 20000000000ull - i * 1000;
        l->mpi = 5000000000ull + i * 1000000;
        l->wait[i % UP_WS_COUNT] = 1000000ull * i;
    }
    for (i = 0; i < NC; i++) {
        up_cpath *c = &a.cpaths[i];
        c->parent = i == 0 ? UP_CP_ROOT : i <= NPH ? 0 : (uint32_t)(1 + (i - NPH - 1) % NPH);
        c->depth = i == 0 ? 0 : i <= NPH ? 1 : 2;
        c->mpi = c->depth == 2 && i % 2;
        snprintf(names[i], sizeof names[i], c->mpi ? "MPI_Sendrecv_%zu" : "phase_<%zu>", i);
        c->name = names[i];
        c->region = (OTF2_RegionRef)i;
        c->visits = 1000 + i;
        c->incl = (uint64_t)(NC - i) * 1000000;
        c->excl = c->incl / 2;
        c->nlocs = NL;
        for (k = 0; c->mpi && i % 10 == 1 && k < NL; k++) {
            comm(&m[nm++], (uint32_t)i, (uint32_t)k, (long)((k + 1) % NL), 10, 10, 1 << 20, 0.001, 0.0001 * (double)(k % 7));
        }
    }
    a.comm = m;
    a.ncomm = nm;
    /* the second run: 20% shorter, less MPI time, half the waiting */
    b = a;
    b.end = a.end / 5 * 4;
    b.locs = calloc(NL, sizeof *b.locs);
    b.cpaths = calloc(NC, sizeof *b.cpaths);
    if (!b.locs || !b.cpaths) {
        t_fail(__FILE__, __LINE__, "out of memory");
        return;
    }
    for (i = 0; i < NL; i++) {
        b.locs[i] = a.locs[i];
        b.locs[i].end = b.locs[i].time = a.locs[i].time / 5 * 4;
        b.locs[i].mpi = a.locs[i].mpi / 10 * 9;
        for (k = 0; k < UP_WS_COUNT; k++)
            b.locs[i].wait[k] = a.locs[i].wait[k] / 2;
    }
    for (i = 0; i < NC; i++) {
        b.cpaths[i] = a.cpaths[i];
        b.cpaths[i].incl = a.cpaths[i].incl / 5 * 4;
    }
    breakdown(&a, &b, bd.locs, &bd);
    memset(&in, 0, sizeof in);
    in.path_a = "big";
    in.path_b = "big-comp";
    in.label_a = "measured";
    in.label_b = "compensated";
    in.a = &a;
    in.b = &b;
    in.bd = &bd;
    if ((html = render(&in, "large", &len)) != NULL) {
        CHECK(len < 10u << 20);
        CHECK(strstr(html, "970 others (mean)") != NULL);          /* Fig. 2 per location */
        CHECK(strstr(html, "970 other locations (mean)") != NULL); /* location table */
        CHECK(strstr(html, "more call paths") != NULL);
        CHECK(strstr(html, "more location&#8211;peer pairs") != NULL);
        CHECK(strstr(html, "phase_&lt;1&gt;") != NULL);
        CHECK(strstr(html, "</html>\n") == html + len - 8);
        printf("      report.html of %u locations and %u call paths: %zu bytes\n", NL, NC, len);
        free(html);
    }
    free(m);
    free(b.locs);
    free(b.cpaths);
    free(bd.locs);
    free(a.locs);
    free(a.cpaths);
}

/* a write that fails leaves nothing behind */
TEST(report_html_errors)
{
    fixture x;
    up_err err;
    char path[4096];
    const char *dir;
    up_status s;
    struct stat st;
    long n;

    fixture_init(&x);
    dir = t_dir("missing");
    snprintf(path, sizeof path, "%s/no/such/dir/report.html", dir);
    CHECK_EQ(up_report_html(path, &x.in, &err), UP_EIO);
    CHECK(strstr(err.msg, "report.html") != NULL);
    CHECK(stat(path, &st) != 0);

    /* the output is a directory: the rename fails, the temporary goes */
    dir = t_dir("isdir");
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/report.html", dir);
    mkdir(path, 0755);
    CHECK_EQ(up_report_html(path, &x.in, &err), UP_EIO);
    CHECK_EQ(dir_entries(dir), 1);

    CHECK_EQ(up_report_html(path, NULL, &err), UP_EUSAGE);

    /* every allocation failing in turn: out of memory, and no file */
    dir = t_dir("nomem");
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/report.html", dir);
    for (n = 0; n < 1000; n++) {
        up_alloc_set_fail_after(n);
        s = up_report_html(path, &x.in, &err);
        up_alloc_set_fail_after(-1);
        if (s == UP_OK)
            break;
        CHECK_EQ(s, UP_ENOMEM);
        CHECK_EQ(dir_entries(dir), 0);
    }
    CHECK_EQ(s, UP_OK);
    CHECK(n > 0);
}

/* 40000 call paths under main and --top 100000: the tree stops at its
 * budget, with a note, and the page stays under 10 MB */
TEST(report_html_budget)
{
    enum { NC = 40001 };
    fixture x;
    up_cpath *c = calloc(NC, sizeof *c);
    static char names[NC][16];
    size_t len = 0, i;
    char *html;
    fixture_init(&x);
    if (!c) {
        t_fail(__FILE__, __LINE__, "out of memory");
        return;
    }
    cpath(&c[0], 0, UP_CP_ROOT, "main", 0, false, 4, 40, 1);
    for (i = 1; i < NC; i++) {
        snprintf(names[i], sizeof names[i], "f%zu", i);
        cpath(&c[i], (OTF2_RegionRef)i, 0, names[i], 1, false, 1, 0.001, 0.001);
    }
    x.a.cpaths = c;
    x.a.ncpaths = NC;
    x.a.ncomm = 0;
    x.in.b = NULL;
    x.in.top = 100000;
    if ((html = render(&x.in, "budget", &len)) != NULL) {
        CHECK(len < 10u << 20);
        CHECK(strstr(html, "f1<") != NULL);
        CHECK(strstr(html, "f40000<") == NULL);
        CHECK(strstr(html, "more call paths (the page&#8217;s size limit is reached)") != NULL);
        CHECK(strstr(html, "The tree was cut") != NULL);
        CHECK(strstr(html, "</html>\n") == html + len - 8);
        free(html);
    }
    free(c);
}
