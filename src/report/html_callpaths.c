/*
 * html_callpaths.c - the call-path tree of report.html (html_int.h): the
 * program's call tree summed over locations, drillable with nested
 * <details>, run b's inclusive time beside run a's, and at the MPI calls
 * the point-to-point messages per location and peer.
 *
 * Size: at most `top` callees per call path and TREE_DEPTH levels, and no
 * node after TREE_BUDGET bytes of tree (then "not shown" lines): the page
 * stays a few MB for thousands of call paths.  The JSON has them all.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/html_int.h"

#define TREE_DEPTH 40           /* nested <details> shown below a top-level call path */
#define TREE_BUDGET (6L << 20)  /* bytes of call-path tree, then "not shown" lines */
#define COMM_ROWS 10            /* peer rows per MPI call path (at most top) */

/* children of call path i in kid[off[i + 1] .. off[i + 2]), of the top level
 * in kid[off[0] .. off[1]); each list by inclusive time, largest first */
typedef struct tree {
    uint32_t *off, *kid;
    kv *scratch;    /* the largest call path's communication entries */
} tree;

typedef struct kid_key {
    uint32_t slot, idx;
    uint64_t incl;
} kid_key;

static int kid_cmp(const void *p, const void *q)
{
    const kid_key *a = p, *b = q;
    if (a->slot != b->slot)
        return a->slot < b->slot ? -1 : 1;
    if (a->incl != b->incl)
        return a->incl > b->incl ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static up_status tree_make(const up_profile *p, tree *t, up_err *err)
{
    size_t n = p->ncpaths, i, most = 0, run = 0;
    kid_key *k = up_calloc(n ? n : 1, sizeof *k);
    t->off = up_calloc(n + 2, sizeof *t->off);
    t->kid = up_calloc(n ? n : 1, sizeof *t->kid);
    for (i = 0; i < p->ncomm; i++) {
        run = i > 0 && p->comm[i].cpath == p->comm[i - 1].cpath ? run + 1 : 1;
        most = run > most ? run : most;
    }
    t->scratch = up_calloc(most ? most : 1, sizeof *t->scratch);
    if (!k || !t->off || !t->kid || !t->scratch || n >= UINT32_MAX - 2) {
        up_free(k);
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    }
    for (i = 0; i < n; i++) {
        uint32_t par = p->cpaths[i].parent;
        k[i].slot = par < n && par != i ? par + 1 : 0;
        k[i].idx = (uint32_t)i;
        k[i].incl = p->cpaths[i].incl;
    }
    qsort(k, n, sizeof *k, kid_cmp);
    for (i = 0; i < n; i++) {
        t->kid[i] = k[i].idx;
        t->off[k[i].slot + 1]++;
    }
    for (i = 1; i < n + 2; i++)
        t->off[i] += t->off[i - 1];
    up_free(k);
    return UP_OK;
}

static void tree_free(tree *t)
{
    up_free(t->off);
    up_free(t->kid);
    up_free(t->scratch);
}

/* first communication entry of call path cp (comm is sorted by call path) */
static size_t comm_lb(const up_profile *p, uint32_t cp)
{
    size_t lo = 0, hi = p->ncomm;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (p->comm[m].cpath < cp)
            lo = m + 1;
        else
            hi = m;
    }
    return lo;
}

static const up_comm *comm_find(const up_profile *p, uint32_t cp, uint32_t loc, long peer)
{
    size_t lo = comm_lb(p, cp), hi = p->ncomm;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        const up_comm *c = &p->comm[m];
        if (c->cpath > cp || (c->cpath == cp && (c->loc > loc || (c->loc == loc && c->peer >= peer))))
            hi = m;
        else
            lo = m + 1;
    }
    return lo < p->ncomm && p->comm[lo].cpath == cp && p->comm[lo].loc == loc && p->comm[lo].peer == peer
               ? &p->comm[lo]
               : NULL;
}

static uint32_t match_b(const hx *x, uint32_t i)
{
    uint32_t j;
    if (!x->b)
        return UP_CP_ROOT;
    j = up_profile_match(x->a, i, x->b);
    return j < x->b->ncpaths ? j : UP_CP_ROOT;
}

static void comm_table(hx *x, const tree *t, uint32_t cp, size_t c0)
{
    FILE *f = x->f;
    const up_profile *a = x->a, *b = x->b;
    size_t n = 0, i, shown, lim = x->top < COMM_ROWS ? x->top : COMM_ROWS;
    uint32_t jb = match_b(x, cp);
    uint64_t sends = 0, recvs = 0, bytes = 0, delay = 0;

    for (i = c0; i < a->ncomm && a->comm[i].cpath == cp; i++, n++) {
        const up_comm *c = &a->comm[i];
        t->scratch[n].key = (double)c->delay + (double)(c->bytes_sent + c->bytes_recvd) * 1e-13;
        t->scratch[n].i = (uint32_t)(i - c0);
    }
    qsort(t->scratch, n, sizeof *t->scratch, up_html_kv_desc);
    shown = n > lim ? lim : n;
    fputs("<div class=\"comm\"><table><caption>point-to-point messages of this call, per location and "
          "peer (largest synchronisation delay first)</caption><thead><tr><th>location</th><th>peer</th>"
          "<th>sends</th><th>bytes sent</th><th>receives</th><th>bytes received</th><th>transmission</th>"
          "<th>sync. delay</th>",
          f);
    if (b) {
        fputs("<th>delay, ", f);
        up_report_xml_text(f, x->lb);
        fputs("</th>", f);
    }
    fputs("</tr></thead><tbody>\n", f);
    for (i = 0; i < n; i++) {
        const up_comm *c = &a->comm[c0 + t->scratch[i].i];
        if (i >= shown) {
            sends += c->sends;
            recvs += c->recvs;
            bytes += c->bytes_sent + c->bytes_recvd;
            delay += c->delay;
            continue;
        }
        fputs("<tr><td>", f);
        up_report_xml_text(f, up_html_loc_label(x, c->loc));
        fputs("</td><td>", f);
        if (c->peer_loc < a->nlocs)
            up_report_xml_text(f, up_html_loc_label(x, c->peer_loc));
        else
            fprintf(f, "rank %ld", c->peer);
        fprintf(f, "</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>",
                up_html_fc(x, c->sends), up_html_fbytes(x, c->bytes_sent), up_html_fc(x, c->recvs),
                up_html_fbytes(x, c->bytes_recvd), up_html_ft(x, up_profile_s(a, c->transfer)),
                up_html_ft(x, up_profile_s(a, c->delay)));
        if (b) {
            const up_comm *cb = jb != UP_CP_ROOT ? comm_find(b, jb, c->loc, c->peer) : NULL;
            fprintf(f, "<td>%s</td>", cb ? up_html_ft(x, up_profile_s(b, cb->delay)) : "&#8211;");
        }
        fputs("</tr>\n", f);
    }
    if (n > shown)
        fprintf(f, "<tr class=\"sum\"><td colspan=\"%d\">%s more location&#8211;peer pairs: %s sends, %s "
                   "receives, %s, delay %s</td></tr>\n",
                b ? 9 : 8, up_html_fc(x, n - shown), up_html_fc(x, sends), up_html_fc(x, recvs),
                up_html_fbytes(x, bytes), up_html_ft(x, up_profile_s(a, delay)));
    fputs("</tbody></table></div>\n", f);
}

/* the numeric cells of a tree row */
static void tree_cells(hx *x, const char *visits, double incl, double excl, double wait, double incl_b)
{
    FILE *f = x->f;
    double p = up_html_pct(incl, x->loc_a);
    fprintf(f, "<span>%s</span><span>%s</span><span>%s</span><span class=\"pc\" style=\"--p:%.1f%%\">%s</span>"
               "<span class=\"w\">%s</span>",
            visits, up_html_ft(x, incl), up_html_ft(x, excl),
            isfinite(p) ? (p < 0 ? 0 : p > 100 ? 100 : p) : 0, up_html_fpct(x, p),
            wait > 0 ? up_html_ft(x, wait) : "");
    if (x->b) {
        fprintf(f, "<span>%s</span><span>%s</span>", up_html_ft(x, incl_b),
                isfinite(incl_b) ? up_html_ft(x, incl - incl_b) : "");
    }
}

static bool over_budget(hx *x)
{
    long pos;
    if (x->tree_cut)
        return true;
    pos = ftell(x->f);
    if (pos >= 0 && pos > x->tree_end)
        x->tree_cut = true;
    return x->tree_cut;
}

static void tree_children(hx *x, const tree *t, uint32_t k0, uint32_t k1, unsigned d);

static void tree_node(hx *x, const tree *t, uint32_t i, unsigned d)
{
    FILE *f = x->f;
    const up_profile *a = x->a;
    const up_cpath *c = &a->cpaths[i];
    uint32_t k0 = t->off[i + 1], k1 = t->off[i + 2], jb = match_b(x, i);
    size_t c0 = c->mpi ? comm_lb(a, i) : a->ncomm;
    bool comm = c0 < a->ncomm && a->comm[c0].cpath == i, open = k1 > k0 || comm;
    uint64_t w = 0;
    unsigned k;
    for (k = 0; k < UP_WS_COUNT; k++)
        w += c->wait[k];
    if (open)
        fprintf(f, "<details%s style=\"--d:%u\"><summary class=\"r\">", d < 2 ? " open" : "", d);
    else
        fprintf(f, "<div class=\"r leaf\" style=\"--d:%u\">", d);
    fputs("<span class=\"n\"", f);
    if (c->name && strlen(c->name) > 40) {
        fputs(" title=\"", f);
        up_report_xml_name(f, c->name);
        fputc('"', f);
    }
    fprintf(f, "><i class=\"k%s\"></i>", c->mpi ? " m" : "");
    if (c->name && *c->name)
        up_report_xml_name(f, c->name);
    else
        fprintf(f, "region %u", (unsigned)c->region);
    fputs("</span>", f);
    tree_cells(x, up_html_fc(x, c->visits), up_profile_s(a, c->incl), up_profile_s(a, c->excl),
               up_profile_s(a, w), jb != UP_CP_ROOT ? up_profile_s(x->b, x->b->cpaths[jb].incl) : NAN);
    if (!open) {
        fputs("</div>\n", f);
        return;
    }
    fputs("</summary>\n", f);
    if (comm)
        comm_table(x, t, i, c0);
    tree_children(x, t, k0, k1, d + 1);
    fputs("</details>\n", f);
}

static void tree_children(hx *x, const tree *t, uint32_t k0, uint32_t k1, unsigned d)
{
    const up_profile *a = x->a;
    uint32_t k, shown = 0;
    const char *why = "the JSON has all";
    uint64_t incl = 0;
    for (k = k0; k < k1; k++, shown++) {
        if (shown >= x->top)
            break;
        if (d > TREE_DEPTH) {
            why = "nested too deep to show";
            break;
        }
        if (over_budget(x)) {
            why = "the page&#8217;s size limit is reached";
            break;
        }
        tree_node(x, t, t->kid[k], d);
    }
    if (k == k1)
        return;
    for (shown = 0; k + shown < k1; shown++)
        incl += a->cpaths[t->kid[k + shown]].incl;
    fprintf(x->f, "<div class=\"r more\" style=\"--d:%u\"><span class=\"n\">&#8230; %s more call path%s "
                  "(%s)</span><span></span><span>%s</span></div>\n",
            d, up_html_fc(x, shown), shown == 1 ? "" : "s", why, up_html_ft(x, up_profile_s(a, incl)));
}

up_status up_html_callpaths(hx *x, up_err *err)
{
    FILE *f = x->f;
    const up_profile *a = x->a, *b = x->b;
    tree t;
    up_status s;
    unsigned k;
    size_t i;
    double w = 0;
    long pos;

    memset(&t, 0, sizeof t);
    if ((s = tree_make(a, &t, err)) != UP_OK) {
        tree_free(&t);
        return s;
    }
    pos = ftell(f);
    x->tree_end = pos >= 0 ? pos + TREE_BUDGET : LONG_MAX;
    for (i = 0; i < a->nlocs; i++)
        for (k = 0; k < UP_WS_COUNT; k++)
            w += up_profile_s(a, a->locs[i].wait[k]);
    fprintf(f, "<section id=\"callpaths\">\n<h2>Call paths</h2>\n<p class=\"note\">The program&#8217;s "
               "call tree, summed over locations: click a row to open or close it. Inclusive time "
               "contains the callees, exclusive does not; waiting is the wait states inside the "
               "call. At most %zu callees per call path are shown, the largest first. "
               "<span class=\"sw\" style=\"background:var(--mpi)\"></span>MPI call "
               "<span class=\"sw\" style=\"background:var(--exec)\"></span>the program&#8217;s code</p>\n"
               "<div class=\"tree\" style=\"--nc:%d\">\n<div class=\"r h\"><span class=\"n\">call path</span>"
               "<span>visits</span><span>inclusive</span><span>exclusive</span><span>%% of total</span>"
               "<span>waiting</span>",
            x->top, b ? 7 : 5);
    if (b) {
        fputs("<span>inclusive, ", f);
        up_report_xml_text(f, x->lb);
        fputs("</span><span>difference</span>", f);
    }
    fputs("</div>\n<div class=\"r prog\" style=\"--d:0\"><span class=\"n\">program (all locations)</span>", f);
    tree_cells(x, "", x->loc_a, NAN, w, b ? x->loc_b : NAN);
    fputs("</div>\n", f);
    tree_children(x, &t, t.off[0], t.off[1], 0);
    fputs("</div>\n", f);
    if (x->tree_cut)
        fputs("<p class=\"note\">The tree was cut to keep this page small; the JSON has every call "
              "path.</p>\n",
              f);
    fputs("</section>\n", f);
    tree_free(&t);
    return UP_OK;
}
