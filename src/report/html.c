/*
 * html.c - report.html of `unperturb report` (profile_report.h): one
 * self-contained page, inline CSS and SVG, no scripts and no network, that
 * a Scalasca or Vampir user reads top-down: the two runs, their timelines
 * on one scale, where the overhead went (the breakdown of [K] Fig. 2, in
 * total and per location), the wait states, the call-path tree (drillable
 * with nested <details>, communication per peer at the MPI calls:
 * html_callpaths.c), the locations and the time-based estimates of Malony
 * and Reed.  docs/report.md describes the page.  This file holds the frame
 * and every section but the call paths (html_int.h).
 *
 * Place in the data flow: last.  Reads up_profile (profile.c), up_breakdown,
 * up_timeline (src/report/timeline.c draws them through up_timeline_svg)
 * and up_estimate (estimate.c); writes `path` (the command's temporary, see
 * up_outset in util.h) and removes it when a write fails.  Every string
 * that comes from a trace (region and location names, the window's
 * description, paths, the command) is escaped (names.h).
 *
 * Size: every long list is cut to the input's `top` rows (default 30) with
 * a summary line for the rest, and the call-path tree stops adding nodes
 * after a budget of bytes, so the page stays a few MB for 1000 locations
 * and thousands of call paths.  The JSON of `unperturb report` has
 * everything.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/html_int.h"
#include "report/plot.h"
#include "report/timeline.h"
#include "util/util.h"

#define NPART (2 + UP_WS_COUNT) /* execution, MPI not waiting, the wait states */

/* Colours: the timeline's (MPI red, the program's own code blue), wait
 * states in warm colours. */
static const char *const part_col[NPART] = {
    "#4c78a8", /* execution */
    "#d62728", /* MPI, not waiting */
    "#f76707", /* Late Sender */
    "#f2b705", /* Late Receiver */
    "#9c36b5", /* Wait at N x N */
    "#e64980", /* Wait at Barrier */
    "#a0522d", /* Late Broadcast */
    "#ff8a80", /* Early Reduce */
};


static double sec(const up_profile *p, uint64_t ticks)
{
    return up_profile_s(p, ticks);
}

static double run_s(const up_profile *p)
{
    return p->end > p->start ? sec(p, p->end - p->start) : 0.0;
}

static const char *part_title(unsigned k)
{
    return k == 0 ? "Execution" : k == 1 ? "MPI (not waiting)" : up_pattern_title(k - 2);
}

static up_breakdown_part part_of(const up_breakdown_loc *l, unsigned k)
{
    return k == 0 ? l->exec : k == 1 ? l->mpi_other : l->wait[k - 2];
}

static double part_diff(const up_breakdown_loc *l, unsigned k)
{
    up_breakdown_part p = part_of(l, k);
    return p.a_s - p.b_s;
}

/* ---- the page's frame ------------------------------------------------------ */

static const char css[] =
    ":root{--exec:#4c78a8;--mpi:#d62728;--wait:#f76707;--line:#d8dee4;--soft:#f6f8fa;--mute:#57606a}\n"
    "*{box-sizing:border-box}\n"
    "html{background:#eef1f4}\n"
    "body{margin:0;color:#1f2328;font:14px/1.45 system-ui,-apple-system,\"Segoe UI\",Roboto,"
    "\"Helvetica Neue\",\"Noto Sans\",\"Liberation Sans\",Arial,sans-serif}\n"
    "main{max-width:1200px;margin:0 auto;padding:28px 36px 40px;background:#fff;"
    "box-shadow:0 0 0 1px #d8dee4}\n"
    "h1{font-size:26px;margin:0 0 4px;font-weight:650}\n"
    "h1 small{font-size:14px;color:var(--mute);font-weight:400;margin-left:8px}\n"
    "h2{font-size:20px;margin:40px 0 6px;padding-bottom:6px;border-bottom:2px solid var(--line)}\n"
    "h3{font-size:15px;margin:22px 0 6px}\n"
    "p.note,.note{color:var(--mute);margin:4px 0 10px;max-width:80em}\n"
    "code,.path{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,\"Liberation Mono\",monospace;"
    "font-size:12.5px;overflow-wrap:anywhere}\n"
    "nav{margin:18px 0 0;padding:8px 0;border-top:1px solid var(--line);border-bottom:1px solid var(--line)}\n"
    "nav a{color:#0b5cad;text-decoration:none;margin-right:18px;font-weight:500}\n"
    "nav a:hover{text-decoration:underline}\n"
    ".cards{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:14px;margin-top:16px}\n"
    "@media (max-width:820px){.cards{grid-template-columns:1fr}main{padding:16px}}\n"
    ".card{border:1px solid var(--line);border-radius:8px;padding:12px 16px;background:#fff}\n"
    ".card .k{text-transform:uppercase;letter-spacing:.06em;font-size:11.5px;color:var(--mute);font-weight:600}\n"
    ".card .big{font-size:30px;font-weight:650;font-variant-numeric:tabular-nums;margin:2px 0}\n"
    ".card.hi{background:#f0f7ee;border-color:#b7dbb0}\n"
    ".card.hi .big{color:#1a7f37}\n"
    ".card dl{display:grid;grid-template-columns:auto 1fr;gap:1px 10px;margin:8px 0 0;font-size:13px}\n"
    ".card dt{color:var(--mute)}.card dd{margin:0;font-variant-numeric:tabular-nums}\n"
    ".cmp{margin-top:8px}.cmp div{height:8px;border-radius:4px;margin:3px 0;background:#8c959f}\n"
    ".cmp div.b{background:#2da44e}\n"
    ".warn{margin-top:14px;border:1px solid #eac54f;background:#fff8c5;border-radius:8px;padding:8px 14px}\n"
    ".warn table{width:auto}.warn td,.warn th{border:0;padding:1px 14px 1px 0;background:none}\n"
    "table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums;margin:6px 0}\n"
    "th,td{padding:4px 10px;border-bottom:1px solid #eaeef2;text-align:right;white-space:nowrap}\n"
    "th:first-child,td:first-child,th.l,td.l{text-align:left}\n"
    "thead th{background:var(--soft);font-weight:600;border-bottom:1px solid var(--line);font-size:13px}\n"
    "thead tr.grp th{background:#fff;border-bottom:0;color:var(--mute);font-weight:500;text-align:center}\n"
    "tbody tr:hover{background:#f6f8fa}\n"
    "tr.sum td{color:var(--mute);font-style:italic;border-top:1px solid var(--line)}\n"
    "tr.tot td{font-weight:600;border-top:1px solid var(--line)}\n"

    "td.pos{color:#1a7f37}td.neg{color:#cf222e}\n"
    ".sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:7px;vertical-align:-1px}\n"
    ".mini{display:flex;width:160px;height:7px;margin:2px 0;background:#f0f2f4;border-radius:2px;overflow:hidden}\n"
    ".mini i{display:block;height:100%}\n"
    ".tl{overflow-x:auto;margin:8px 0 14px}.tl svg{display:block;max-width:100%;height:auto}\n"
    ".fig{margin:8px 0 4px}\n"
    "svg.chart{display:block;max-width:100%;height:auto}\n"
    "svg text{font:12px system-ui,-apple-system,\"Segoe UI\",Roboto,\"Noto Sans\",\"Liberation Sans\",Arial,sans-serif;"
    "fill:#1f2328}\n"
    "svg .tick{fill:#57606a;font-size:11px;text-anchor:middle}\n"
    "svg .lbl{text-anchor:end}svg .val{font-variant-numeric:tabular-nums}\n"
    "svg .grid{stroke:#e6e9ec}svg .zero{stroke:#57606a}\n"
    "svg .ttl{font-weight:600;font-size:13px}\n"
    /* the call-path tree: every row a grid with the same columns */
    ".tree{border:1px solid var(--line);border-radius:6px;font-variant-numeric:tabular-nums;margin:8px 0}\n"
    ".tree .r{display:grid;grid-template-columns:minmax(18em,1fr) repeat(var(--nc),6.9em);"
    "align-items:center;column-gap:4px;padding:2px 10px;border-bottom:1px solid #f0f2f4;min-height:24px}\n"
    ".tree .r>span{text-align:right;white-space:nowrap}\n"
    ".tree .r>span.n{text-align:left;overflow:hidden;text-overflow:ellipsis;padding-left:calc(var(--d)*1.25em)}\n"
    ".tree .h{position:sticky;top:0;background:var(--soft);font-weight:600;font-size:13px;"
    "border-bottom:1px solid var(--line);z-index:1}\n"
    ".tree .h>span{white-space:normal;line-height:1.2}\n"
    ".tree .prog{font-weight:600;background:#fbfcfd}\n"
    ".tree summary{cursor:pointer;list-style:none}\n"
    ".tree summary::-webkit-details-marker{display:none}\n"
    ".tree summary:hover,.tree .leaf:hover{background:#f3f6f9}\n"
    ".tree .n::before{content:\"\";display:inline-block;width:1.1em;color:var(--mute)}\n"
    ".tree summary>.n::before{content:\"\\25b8\"}\n"
    ".tree details[open]>summary>.n::before{content:\"\\25be\"}\n"
    ".tree .k{display:inline-block;width:8px;height:8px;border-radius:2px;margin-right:6px;"
    "background:var(--exec);vertical-align:0}\n"
    ".tree .k.m{background:var(--mpi)}\n"
    ".tree .more{color:var(--mute);font-style:italic}\n"
    ".tree .pc{background:linear-gradient(90deg,#dbe6f3 var(--p),transparent 0) no-repeat;"
    "border-radius:2px;padding-right:3px}\n"
    ".tree .w{color:#c4540a}\n"
    ".comm{margin:2px 10px 8px calc(var(--d)*1.25em + 2.4em);border-left:3px solid var(--mpi);padding-left:8px}\n"
    ".comm table{width:auto;margin:2px 0;font-size:12.5px}.comm td,.comm th{padding:2px 9px}\n"
    ".comm caption{text-align:left;color:var(--mute);font-size:12px;padding:2px 0}\n"
    "footer{margin-top:44px;padding-top:10px;border-top:1px solid var(--line);color:var(--mute);font-size:12.5px}\n";

static void page_head(hx *x)
{
    FILE *f = x->f;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>unperturb report: ",
          f);
    up_report_xml_text(f, x->in->path_a);
    if (x->b) {
        fputs(" vs ", f);
        up_report_xml_text(f, x->in->path_b);
    }
    /* the rows of processes and their locations: only pages that group them,
     * so that a pure MPI trace's page stays as it was */
    fprintf(f, "</title>\n<style>\n%s%s</style>\n</head>\n<body>\n<main>\n", css,
            up_report_grouped(x->a) || x->in->hy_a
                ? "tr.proc td{font-weight:600;background:#f6f8fa}\n"
                  "tr.sub td:first-child{padding-left:1.6em}\n"
                : "");
}

/* ---- 1. header ----------------------------------------------------------------- */

static void run_card(hx *x, const up_profile *p, const char *label, const char *path)
{
    FILE *f = x->f;
    double t = 0, mpi = 0, wait = 0;
    size_t i;
    unsigned k;
    for (i = 0; i < p->nlocs; i++) {
        t += sec(p, p->locs[i].time);
        mpi += sec(p, p->locs[i].mpi);
        for (k = 0; k < UP_WS_COUNT; k++)
            wait += sec(p, p->locs[i].wait[k]);
    }
    fputs("<div class=\"card\"><div class=\"k\">", f);
    up_report_xml_text(f, label);
    fprintf(f, "</div><div class=\"big\">%s</div><div class=\"path\">", up_html_ft(x, run_s(p)));
    up_report_xml_text(f, path);
    fprintf(f, "</div><dl><dt>locations</dt><dd>%s</dd><dt>events</dt><dd>%s</dd><dt>window</dt><dd>%s</dd>",
            up_html_fc(x, p->nlocs), up_html_fc(x, p->events),
            p->window_marked ? "MPI_Init &#8230; MPI_Finalize (marked)"
                             : "first &#8230; last record (not marked)");
    fprintf(f, "<dt>in MPI</dt><dd>%s of the locations&#8217; time</dd><dt>waiting</dt><dd>%s</dd></dl></div>\n",
            up_html_fpct(x, up_html_pct(mpi, t)), up_html_fpct(x, up_html_pct(wait, t)));
}

static void header(hx *x)
{
    FILE *f = x->f;
    const up_profile *a = x->a, *b = x->b;
    unsigned r;
    bool any = false;

    fputs("<header>\n<h1>Performance report<small>unperturb</small></h1>\n<p class=\"note\">", f);
    if (b) {
        fputs("The ", f);
        up_report_xml_text(f, x->la);
        fputs(" run <code>", f);
        up_report_xml_text(f, x->in->path_a);
        fputs("</code> against the ", f);
        up_report_xml_text(f, x->lb);
        fputs(" run <code>", f);
        up_report_xml_text(f, x->in->path_b);
        fputs("</code>: where the time went, and where the measurement's overhead went.", f);
    } else {
        fputs("The ", f);
        up_report_xml_text(f, x->la);
        fputs(" run <code>", f);
        up_report_xml_text(f, x->in->path_a);
        fputs("</code>.", f);
    }
    fputs("</p>\n<div class=\"cards\">\n", f);
    run_card(x, a, x->la, x->in->path_a);
    if (b) {
        double ta = x->run_a, tb = x->run_b, m = ta > tb ? ta : tb;
        run_card(x, b, x->lb, x->in->path_b);
        fprintf(f, "<div class=\"card hi\"><div class=\"k\">run time reduction</div><div class=\"big\">%s</div>"
                   "<div>%s less than ",
                up_html_fpct(x, up_html_pct(ta - tb, ta)), up_html_ft(x, ta - tb));
        up_report_xml_text(f, x->la);
        fprintf(f, "</div><div class=\"cmp\"><div style=\"width:%.1f%%\" title=\"", m > 0 ? 100 * ta / m : 0);
        up_report_xml_text(f, x->la);
        fprintf(f, "\"></div><div class=\"b\" style=\"width:%.1f%%\" title=\"", m > 0 ? 100 * tb / m : 0);
        up_report_xml_text(f, x->lb);
        fputs("\"></div></div></div>\n", f);
    }
    fputs("</div>\n", f);

    for (r = 0; r < UP_REPAIR_COUNT; r++)
        any = any || a->repairs[r] || (b && b->repairs[r]);
    if (any) {
        fputs("<div class=\"warn\"><b>Repairs.</b> The analysis had to repair inconsistencies of the "
              "trace; figures near them are less certain.\n<table><thead><tr><th>repair</th><th>",
              f);
        up_report_xml_text(f, x->la);
        fputs("</th>", f);
        if (b) {
            fputs("<th>", f);
            up_report_xml_text(f, x->lb);
            fputs("</th>", f);
        }
        fputs("<th class=\"l\">what</th></tr></thead><tbody>\n", f);
        for (r = 0; r < UP_REPAIR_COUNT; r++) {
            if (!a->repairs[r] && !(b && b->repairs[r]))
                continue;
            fprintf(f, "<tr><td><code>%s</code></td><td>%s</td>", up_repair_name(r),
                    up_html_fc(x, a->repairs[r]));
            if (b)
                fprintf(f, "<td>%s</td>", up_html_fc(x, b->repairs[r]));
            fputs("<td class=\"l\">", f);
            up_report_xml_text(f, up_repair_text(r));
            fputs("</td></tr>\n", f);
        }
        fputs("</tbody></table></div>\n", f);
    }

    fputs("<nav>", f);
    if (x->in->tl_a || x->in->tl_b)
        fputs("<a href=\"#timeline\">Timeline</a>", f);
    if (x->bd)
        fputs("<a href=\"#overhead\">Where the overhead went</a>", f);
    fputs("<a href=\"#waits\">Wait states</a><a href=\"#callpaths\">Call paths</a>"
          "<a href=\"#locations\">Locations</a>",
          f);
    if (x->in->hy_a)
        fputs("<a href=\"#hybrid\">Threads and devices</a>", f);
    if (x->in->est)
        fputs("<a href=\"#estimates\">Estimates</a>", f);
    fputs("</nav>\n</header>\n", f);
}

/* ---- 2. timelines ------------------------------------------------------------------ */

static double tl_len_s(const up_timeline *t)
{
    double res = t->resolution ? (double)t->resolution : 1.0;
    return t->win.t1 > t->win.t0 ? (double)(t->win.t1 - t->win.t0) / res : 0.0;
}

/* up_timeline_svg writes the window (from-to, win.how) under the title */
static void timeline_one(hx *x, const up_timeline *t, const char *label, const char *path,
                         double span_s)
{
    char title[512];
    double span = span_s * (t->resolution ? (double)t->resolution : 1.0);
    snprintf(title, sizeof title, "%s: %.400s", label, path ? path : "");
    fputs("<div class=\"tl\">\n", x->f);
    up_timeline_svg(x->f, t, title, span >= 1.8e19 ? UINT64_MAX : span >= 1 ? (uint64_t)span : 1);
    fputs("</div>\n", x->f);
}

static void timelines(hx *x)
{
    const up_timeline *ta = x->in->tl_a, *tb = x->in->tl_b;
    double span = 0;
    if (!ta && !tb)
        return;
    if (ta)
        span = tl_len_s(ta);
    if (tb && tl_len_s(tb) > span)
        span = tl_len_s(tb);
    fputs("<section id=\"timeline\">\n<h2>Timeline</h2>\n<p class=\"note\">One window of each run "
          "on the same time scale (the longer window fills the width): MPI calls in red "
          "<span class=\"sw\" style=\"background:var(--mpi)\"></span>, the program&#8217;s regions "
          "in their own colours, and the messages between locations as lines.</p>\n",
          x->f);
    if (ta)
        timeline_one(x, ta, x->la, x->in->path_a, span);
    if (tb)
        timeline_one(x, tb, x->lb, x->in->path_b, span);
    fputs("</section>\n", x->f);
}

/* ---- SVG charts -------------------------------------------------------------------- */

enum { CW = 1100, CL = 200, CR = 170, CB = CW - CL - CR };

/* a round step (1, 2 or 5 times a power of ten) giving about 6 ticks */
static double xpos(double v, double lo, double hi)
{
    return CL + (v - lo) / (hi - lo) * CB;
}

static void svg_open(hx *x, int h, const char *label)
{
    fprintf(x->f, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"",
            CW, h, CW, h);
    up_report_xml_text(x->f, label);
    fputs("\">\n", x->f);
}

/* an axis label: v seconds in the unit of the axis' largest value `mag`,
 * no trailing zeros */
static const char *ftick(hx *x, double v, double mag)
{
    char *b = up_html_slot(x);
    double m = fabs(mag) * 1.0000001;
    if (v == 0)
        return "0";
    if (m >= 999.95)
        return up_html_ft(x, v);
    if (m >= 0.99995)
        snprintf(b, sizeof x->ring[0], "%.6g s", v);
    else if (m >= 0.99995e-3)
        snprintf(b, sizeof x->ring[0], "%.6g ms", v * 1e3);
    else if (m >= 0.99995e-6)
        snprintf(b, sizeof x->ring[0], "%.6g \xc2\xb5s", v * 1e6);
    else
        snprintf(b, sizeof x->ring[0], "%.6g ns", v * 1e9);
    return b;
}

/* vertical grid lines and their labels (seconds) over [lo, hi] */
static void axis(hx *x, double lo, double hi, int ytop, int ybot)
{
    double step = up_plot_step(hi - lo, 6), v;
    int i;
    for (i = 0, v = ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-6 && i < 40; i++, v += step) {
        double px = xpos(v, lo, hi);
        bool zero = fabs(v) < step * 1e-6;
        fprintf(x->f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" class=\"%s\"/>"
                      "<text x=\"%.1f\" y=\"%d\" class=\"tick\">%s</text>\n",
                px, px, ytop, ybot, zero ? "zero" : "grid", px, ybot + 14, ftick(x, zero ? 0 : v, fabs(lo) > fabs(hi) ? lo : hi));
    }
}

/* the colour legend of the parts in `show`, from y (draw: write it);
 * returns the height used */
static int legend(hx *x, int y, const bool *show, bool draw)
{
    double px = CL;
    unsigned k;
    int h = 18;
    for (k = 0; k < NPART; k++) {
        double w;
        if (!show[k])
            continue;
        w = 30.0 + 6.4 * (double)strlen(part_title(k));
        if (px + w > CW - 10 && px > CL) {
            px = CL;
            y += 18;
            h += 18;
        }
        if (draw) {
            fprintf(x->f, "<rect x=\"%.1f\" y=\"%d\" width=\"11\" height=\"11\" rx=\"2\" fill=\"%s\"/>"
                          "<text x=\"%.1f\" y=\"%d\">",
                    px, y, part_col[k], px + 16, y + 10);
            up_report_xml_text(x->f, part_title(k));
            fputs("</text>\n", x->f);
        }
        px += w;
    }
    return h;
}

static void rect_title(hx *x, double px, double y, double w, double h, const char *fill,
                       const char *what, const char *who, double v, double share)
{
    fprintf(x->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>", px, y,
            w > 0.3 ? w : 0.3, h, fill);
    if (who) {
        up_report_xml_text(x->f, who);
        fputs(": ", x->f);
    }
    up_report_xml_text(x->f, what);
    fprintf(x->f, " %s", up_html_ft(x, v));
    if (isfinite(share))
        fprintf(x->f, " (%s)", up_html_fpct(x, share));
    fputs("</title></rect>\n", x->f);
}

static void text_at(hx *x, double px, double y, const char *cls, const char *s)
{
    fprintf(x->f, "<text x=\"%.1f\" y=\"%.1f\" class=\"%s\">", px, y, cls);
    up_report_xml_text(x->f, s);
    fputs("</text>", x->f);
}

/* Fig. 2, part 1: each run's time summed over locations, stacked by part */
static void chart_parts(hx *x)
{
    const up_breakdown_loc *t = &x->bd->total;
    double hi = 0, sum[2] = {0, 0};
    bool show[NPART];
    unsigned k, r;
    int y;
    for (k = 0; k < NPART; k++) {
        up_breakdown_part p = part_of(t, k);
        sum[0] += p.a_s > 0 ? p.a_s : 0;
        sum[1] += p.b_s > 0 ? p.b_s : 0;
        show[k] = p.a_s != 0 || p.b_s != 0;
    }
    hi = sum[0] > sum[1] ? sum[0] : sum[1];
    if (!(hi > 0))
        hi = 1;
    svg_open(x, 4 + 2 * 40 + 26 + legend(x, 0, show, false) + 4, "time by part");
    axis(x, 0, hi, 4, 4 + 2 * 40);
    for (r = 0, y = 12; r < 2; r++, y += 40) {
        double px = CL, tot = r ? t->time.b_s : t->time.a_s;
        const char *who = r ? x->lb : x->la;
        text_at(x, CL - 12, y + 19, "lbl", who);
        for (k = 0; k < NPART; k++) {
            up_breakdown_part p = part_of(t, k);
            double v = r ? p.b_s : p.a_s, w;
            if (!(v > 0))
                continue;
            w = v / hi * CB;
            rect_title(x, px, y, w, 26, part_col[k], part_title(k), who, v, up_html_pct(v, tot));
            px += w;
        }
        fprintf(x->f, "<text x=\"%d\" y=\"%d\" class=\"val\">%s</text>\n", CL + CB + 12, y + 19,
                up_html_ft(x, tot));
    }
    legend(x, 4 + 2 * 40 + 26, show, true);
    fputs("</svg>\n", x->f);
}

/* Fig. 2, part 2: the difference a - b of each part, % of the total difference */
static void chart_diff(hx *x)
{
    const up_breakdown_loc *t = &x->bd->total;
    double lo = 0, hi = 0, total = t->time.a_s - t->time.b_s;
    unsigned k, n = 1;
    int y, h;
    bool show[NPART];
    for (k = 0; k < NPART; k++) {
        up_breakdown_part p = part_of(t, k);
        double d = p.a_s - p.b_s;
        show[k] = p.a_s != 0 || p.b_s != 0;
        n += show[k];
        lo = d < lo ? d : lo;
        hi = d > hi ? d : hi;
    }
    lo = total < lo ? total : lo;
    hi = total > hi ? total : hi;
    if (!(hi > lo))
        hi = lo + 1;
    h = (int)n * 26 + 30;
    svg_open(x, h, "difference per part");
    axis(x, lo, hi, 2, (int)n * 26 + 6);
    for (k = 0, y = 8; k <= NPART; k++) {
        unsigned part = k - 1;
        double d = k == 0 ? total : part_diff(t, part), x0 = xpos(0, lo, hi), x1 = xpos(d, lo, hi);
        if (k > 0 && !show[part])
            continue;
        text_at(x, CL - 12, y + 14, "lbl", k == 0 ? "Total" : part_title(part));
        rect_title(x, x0 < x1 ? x0 : x1, y + 2, fabs(x1 - x0), 16, k == 0 ? "#57606a" : part_col[part],
                   k == 0 ? "Total" : part_title(part), NULL, d, up_html_pct(d, total));
        fprintf(x->f, "<text x=\"%d\" y=\"%d\" class=\"val\"%s>%s</text>"
                      "<text x=\"%d\" y=\"%d\" class=\"val\" text-anchor=\"end\"%s>%s</text>\n",
                CL + CB + 12, y + 14, k == 0 ? " font-weight=\"600\"" : "", up_html_ft(x, d), CW - 4, y + 14,
                k == 0 ? " font-weight=\"600\"" : "", up_html_fpct(x, up_html_pct(d, total)));
        y += 26;
    }
    fputs("</svg>\n", x->f);
}

/* Fig. 2, part 3: per location, the difference of each part, stacked (gains
 * right of zero, losses left); the top locations by change, the rest as
 * their mean */
static up_status chart_locs(hx *x, up_err *err)
{
    const up_breakdown *bd = x->bd;
    size_t n = bd->nlocs, shown, i, rows;
    kv *o;
    up_breakdown_loc rest;
    double lo = 0, hi = 0;
    bool show[NPART];
    unsigned k;
    int y;

    if (n == 0)
        return UP_OK;
    if (!(o = up_calloc(n, sizeof *o)))
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    for (i = 0; i < n; i++) {
        double s = 0;
        for (k = 0; k < NPART; k++)
            s += fabs(part_diff(&bd->locs[i], k));
        o[i].key = n > x->top ? s : -(double)i; /* few: in location order */
        o[i].i = (uint32_t)i;
    }
    qsort(o, n, sizeof *o, up_html_kv_desc);
    shown = n > x->top ? x->top : n;
    memset(&rest, 0, sizeof rest);
    for (i = shown; i < n; i++) {
        const up_breakdown_loc *l = &bd->locs[o[i].i];
        double m = 1.0 / (double)(n - shown);
        rest.time.a_s += l->time.a_s * m;
        rest.time.b_s += l->time.b_s * m;
        rest.exec.a_s += l->exec.a_s * m;
        rest.exec.b_s += l->exec.b_s * m;
        rest.mpi_other.a_s += l->mpi_other.a_s * m;
        rest.mpi_other.b_s += l->mpi_other.b_s * m;
        for (k = 0; k < UP_WS_COUNT; k++) {
            rest.wait[k].a_s += l->wait[k].a_s * m;
            rest.wait[k].b_s += l->wait[k].b_s * m;
        }
    }
    rows = shown + (n > shown);
    memset(show, 0, sizeof show);
    for (i = 0; i < rows; i++) {
        const up_breakdown_loc *l = i < shown ? &bd->locs[o[i].i] : &rest;
        double pos = 0, neg = 0;
        for (k = 0; k < NPART; k++) {
            double d = part_diff(l, k);
            up_breakdown_part p = part_of(l, k);
            show[k] = show[k] || p.a_s != 0 || p.b_s != 0;
            if (d > 0)
                pos += d;
            else
                neg += d;
        }
        hi = pos > hi ? pos : hi;
        lo = neg < lo ? neg : lo;
    }
    if (!(hi > lo))
        hi = lo + 1;
    svg_open(x, (int)rows * 20 + 30 + legend(x, 0, show, false) + 4, "difference per location");
    axis(x, lo, hi, 2, (int)rows * 20 + 6);
    for (i = 0, y = 6; i < rows; i++, y += 20) {
        const up_breakdown_loc *l = i < shown ? &bd->locs[o[i].i] : &rest;
        char lab[LABEL + 32];
        double pp = xpos(0, lo, hi), pn = pp, scale = CB / (hi - lo);
        if (i < shown)
            snprintf(lab, sizeof lab, "%s", up_html_loc_label(x, o[i].i));
        else
            snprintf(lab, sizeof lab, "%zu others (mean)", n - shown);
        text_at(x, CL - 12, y + 13, "lbl", lab);
        for (k = 0; k < NPART; k++) {
            double d = part_diff(l, k), w = fabs(d) * scale;
            if (d == 0)
                continue;
            if (d > 0) {
                rect_title(x, pp, y + 2, w, 14, part_col[k], part_title(k), lab, d, NAN);
                pp += w;
            } else {
                pn -= w;
                rect_title(x, pn, y + 2, w, 14, part_col[k], part_title(k), lab, d, NAN);
            }
        }
        fprintf(x->f, "<text x=\"%d\" y=\"%d\" class=\"val\">%s</text>\n", CL + CB + 12, y + 13,
                up_html_ft(x, l->time.a_s - l->time.b_s));
    }
    legend(x, (int)rows * 20 + 30, show, true);
    fputs("</svg>\n", x->f);
    up_free(o);
    return UP_OK;
}

/* ---- 3. where the overhead went (Fig. 2) ------------------------------------------- */

static void th_runs(hx *x, const char *cls)
{
    fprintf(x->f, "<th%s>", cls);
    up_report_xml_text(x->f, x->la);
    fputs("</th>", x->f);
    if (x->b) {
        fprintf(x->f, "<th%s>", cls);
        up_report_xml_text(x->f, x->lb);
        fputs("</th>", x->f);
    }
}

/* a signed difference cell: positive (time removed) green, negative red */
static void td_diff(hx *x, double d)
{
    fprintf(x->f, "<td%s>%s</td>", d > 0 ? " class=\"pos\"" : d < 0 ? " class=\"neg\"" : "",
            up_html_ft(x, d));
}

static up_status overhead(hx *x, up_err *err)
{
    FILE *f = x->f;
    const up_breakdown *bd = x->bd;
    const up_breakdown_loc *t = &bd->total;
    double total = t->time.a_s - t->time.b_s;
    unsigned k;
    up_status s;

    fputs("<section id=\"overhead\">\n<h2>Where the overhead went</h2>\n<p class=\"note\">The time of "
          "every location inside the run-time window, summed, split into execution outside MPI, "
          "MPI calls not waiting, and Scalasca&#8217;s wait states. The difference of each part "
          "between the runs says where the measurement&#8217;s overhead went: directly into the "
          "program&#8217;s execution, or indirectly into waiting caused on other locations "
          "(Wolf et al., Fig. 2). Hover a bar for its value.</p>\n<h3>Time by part</h3>\n<div class=\"fig\">\n",
          f);
    chart_parts(x);
    fputs("</div>\n<h3>Difference per part (", f);
    up_report_xml_text(f, x->la);
    fputs(" &#8722; ", f);
    up_report_xml_text(f, x->lb);
    fputs("), share of the total difference</h3>\n<div class=\"fig\">\n", f);
    chart_diff(x);
    fputs("</div>\n<table class=\"bd\"><thead><tr><th>part</th>", f);
    th_runs(x, "");
    fputs("<th>difference</th><th>share</th><th class=\"l\">largest at</th></tr></thead><tbody>\n", f);
    for (k = 0; k <= NPART; k++) {
        up_breakdown_part p = k == 0 ? t->time : part_of(t, k - 1);
        double d = p.a_s - p.b_s, best = 0;
        size_t i, at = SIZE_MAX;
        if (k > 0 && p.a_s == 0 && p.b_s == 0)
            continue;
        for (i = 0; k > 0 && i < bd->nlocs; i++) {
            double di = part_diff(&bd->locs[i], k - 1);
            if (at == SIZE_MAX || (d >= 0 ? di > best : di < best))
                best = di, at = i;
        }
        fputs(k == 0 ? "<tr class=\"tot\"><td>" : "<tr><td>", f);
        if (k > 0)
            fprintf(f, "<i class=\"sw\" style=\"background:%s\"></i>", part_col[k - 1]);
        up_report_xml_text(f, k == 0 ? "Total" : part_title(k - 1));
        fprintf(f, "</td><td>%s</td><td>%s</td>", up_html_ft(x, p.a_s), up_html_ft(x, p.b_s));
        td_diff(x, d);
        fprintf(f, "<td>%s</td><td class=\"l\">", up_html_fpct(x, up_html_pct(d, total)));
        if (at != SIZE_MAX && best != 0 && d != 0) {
            double share = up_html_pct(best, d);
            up_report_xml_text(f, up_html_loc_label(x, at));
            if (share >= 0 && share <= 100.05)
                fprintf(f, " (%s of it)", up_html_fpct(x, share));
            else
                fprintf(f, " (%s)", up_html_ft(x, best));
        }
        fputs("</td></tr>\n", f);
    }
    fprintf(f, "</tbody></table>\n<h3>Difference per location</h3>\n<p class=\"note\">%s</p>\n"
               "<div class=\"fig\">\n",
            bd->nlocs > x->top ? "The locations that changed most (sum of the parts&#8217; differences), "
                                 "then the mean of the others. Right of zero: time the second run "
                                 "does not spend; left: time it spends more."
                               : "Right of zero: time the second run does not spend; left: time it "
                                 "spends more.");
    if ((s = chart_locs(x, err)) != UP_OK)
        return s;
    fputs("</div>\n</section>\n", f);
    return UP_OK;
}

/* ---- 4. wait states ------------------------------------------------------------------ */

static uint64_t loc_wait(const up_profile *p, size_t i, unsigned k)
{
    return p && i < p->nlocs ? p->locs[i].wait[k] : 0;
}

static up_status waits(hx *x, up_err *err)
{
    FILE *f = x->f;
    const up_profile *a = x->a, *b = x->b;
    unsigned k;
    size_t i, n = 0, shown, cap;
    kv *o;

    fputs("<section id=\"waits\">\n<h2>Wait states</h2>\n<p class=\"note\">Time a location spent "
          "waiting inside an MPI call for another location (Scalasca&#8217;s patterns), summed over "
          "locations; the share is of the locations&#8217; time.</p>\n"
          "<table><thead><tr><th>pattern</th>",
          f);
    th_runs(x, "");
    if (b)
        fputs("<th>difference</th>", f);
    fputs("<th>share, ", f);
    up_report_xml_text(f, x->la);
    fputs("</th>", f);
    if (b) {
        fputs("<th>share, ", f);
        up_report_xml_text(f, x->lb);
        fputs("</th>", f);
    }
    fputs("</tr></thead><tbody>\n", f);
    for (k = 0; k < UP_WS_COUNT; k++) {
        double wa = sec(a, up_profile_wait_total(a, k)), wb = b ? sec(b, up_profile_wait_total(b, k)) : 0;
        fprintf(f, "<tr><td><i class=\"sw\" style=\"background:%s\"></i>", part_col[k + 2]);
        up_report_xml_text(f, up_pattern_title(k));
        fprintf(f, "</td><td>%s</td>", up_html_ft(x, wa));
        if (b) {
            fprintf(f, "<td>%s</td>", up_html_ft(x, wb));
            td_diff(x, wa - wb);
        }
        fprintf(f, "<td>%s</td>", up_html_fpct(x, up_html_pct(wa, x->loc_a)));
        if (b)
            fprintf(f, "<td>%s</td>", up_html_fpct(x, up_html_pct(wb, x->loc_b)));
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);

    /* per location: the largest waits of either run */
    cap = a->nlocs * UP_WS_COUNT;
    if (!(o = up_calloc(cap ? cap : 1, sizeof *o)))
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    for (i = 0; i < a->nlocs; i++)
        for (k = 0; k < UP_WS_COUNT; k++) {
            double wa = sec(a, loc_wait(a, i, k)), wb = b ? sec(b, loc_wait(b, i, k)) : 0;
            if (wa > 0 || wb > 0) {
                o[n].key = wa > wb ? wa : wb;
                o[n++].i = (uint32_t)(i * UP_WS_COUNT + k);
            }
        }
    qsort(o, n, sizeof *o, up_html_kv_desc);
    shown = n > x->top ? x->top : n;
    if (n) {
        fputs("<h3>Largest wait states per location</h3>\n<table><thead><tr><th>pattern</th>"
              "<th class=\"l\">location</th>",
              f);
        th_runs(x, "");
        if (b)
            fputs("<th>difference</th>", f);
        fputs("</tr></thead><tbody>\n", f);
        for (i = 0; i < shown; i++) {
            size_t l = o[i].i / UP_WS_COUNT;
            unsigned p = (unsigned)(o[i].i % UP_WS_COUNT);
            double wa = sec(a, loc_wait(a, l, p)), wb = b ? sec(b, loc_wait(b, l, p)) : 0;
            fprintf(f, "<tr><td><i class=\"sw\" style=\"background:%s\"></i>", part_col[p + 2]);
            up_report_xml_text(f, up_pattern_title(p));
            fputs("</td><td class=\"l\">", f);
            up_report_xml_text(f, up_html_loc_label(x, l));
            fprintf(f, "</td><td>%s</td>", up_html_ft(x, wa));
            if (b) {
                fprintf(f, "<td>%s</td>", up_html_ft(x, wb));
                td_diff(x, wa - wb);
            }
            fputs("</tr>\n", f);
        }
        if (n > shown)
            fprintf(f, "<tr class=\"sum\"><td colspan=\"%d\">%s more (pattern, location) pairs with a wait "
                       "state; the JSON has all</td></tr>\n",
                    b ? 5 : 3, up_html_fc(x, n - shown));
        fputs("</tbody></table>\n", f);
    }
    fputs("</section>\n", f);
    up_free(o);
    return UP_OK;
}

/* ---- 5. call paths: html_callpaths.c ---- */

/* ---- 6. locations -------------------------------------------------------------------- */

static double loc_wait_s(const up_profile *p, size_t i)
{
    uint64_t w = 0;
    unsigned k;
    for (k = 0; k < UP_WS_COUNT; k++)
        w += p->locs[i].wait[k];
    return sec(p, w);
}

/* a small bar: execution, MPI not waiting, waiting, as shares of `max` */
static void mini(hx *x, double t, double mpi, double wait, double max)
{
    double e = t - mpi, m = mpi - wait;
    if (!(max > 0))
        return;
    fprintf(x->f, "<div class=\"mini\"><i style=\"width:%.1f%%;background:var(--exec)\"></i>"
                  "<i style=\"width:%.1f%%;background:var(--mpi)\"></i>"
                  "<i style=\"width:%.1f%%;background:var(--wait)\"></i></div>",
            e > 0 ? 100 * e / max : 0, m > 0 ? 100 * m / max : 0, wait > 0 ? 100 * wait / max : 0);
}

static void loc_row(hx *x, const char *label, const double *v, int nv, double max, const char *cls)
{
    FILE *f = x->f;
    int k;
    fprintf(f, "<tr%s><td>", cls);
    up_report_xml_text(f, label);
    fputs("</td>", f);
    for (k = 0; k < nv; k++)
        fprintf(f, "<td>%s</td>", up_html_ft(x, v[k]));
    if (x->b)
        td_diff(x, v[0] - v[3]);
    fputs("<td class=\"l\">", f);
    mini(x, v[0], v[1], v[2], max);
    if (x->b)
        mini(x, v[3], v[4], v[5], max);
    fputs("</td></tr>\n", f);
}

/* time, MPI, waiting of run a, then of run b (0 without it) */
static void loc_vals(const up_profile *a, const up_profile *b, size_t l, double v[6])
{
    v[0] = sec(a, a->locs[l].time);
    v[1] = sec(a, a->locs[l].mpi);
    v[2] = loc_wait_s(a, l);
    if (b && l < b->nlocs) {
        v[3] = sec(b, b->locs[l].time);
        v[4] = sec(b, b->locs[l].mpi);
        v[5] = loc_wait_s(b, l);
    } else
        v[3] = v[4] = v[5] = 0;
}

static up_status locations(hx *x, up_err *err)
{
    FILE *f = x->f;
    const up_profile *a = x->a, *b = x->b;
    size_t n = a->nlocs, i, shown;
    int nv = b ? 6 : 3, k;
    double max = 0, rest[6] = {0, 0, 0, 0, 0, 0}, all[6] = {0, 0, 0, 0, 0, 0};
    kv *o;

    if (!(o = up_calloc(n ? n : 1, sizeof *o)))
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    for (i = 0; i < n; i++) {
        double ta = sec(a, a->locs[i].time), tb = b && i < b->nlocs ? sec(b, b->locs[i].time) : 0;
        max = ta > max ? ta : max;
        max = tb > max ? tb : max;
        o[i].i = (uint32_t)i;
        o[i].key = n <= 2 * x->top ? -(double)i : b ? fabs(ta - tb) : loc_wait_s(a, i);
    }
    qsort(o, n, sizeof *o, up_html_kv_desc);
    shown = n <= 2 * x->top ? n : x->top;
    fputs("<section id=\"locations\">\n<h2>Locations</h2>\n<p class=\"note\">", f);
    if (n > shown)
        fprintf(f, "The %zu locations whose time changed most (of %s), then the others. ", shown,
                up_html_fc(x, n));
    fputs("Time is the location&#8217;s part of the run-time window; MPI is inside MPI calls "
          "(waiting included); the bars show execution, MPI and waiting of each run on one scale.</p>\n"
          "<table><thead>",
          f);
    if (b) {
        fputs("<tr class=\"grp\"><th></th><th colspan=\"3\">", f);
        up_report_xml_text(f, x->la);
        fputs("</th><th colspan=\"3\">", f);
        up_report_xml_text(f, x->lb);
        fputs("</th><th></th><th></th></tr>", f);
    }
    fputs("<tr><th>location</th><th>time</th><th>MPI</th><th>waiting</th>", f);
    if (b)
        fputs("<th>time</th><th>MPI</th><th>waiting</th><th>difference</th>", f);
    fputs("<th class=\"l\">composition</th></tr></thead><tbody>\n", f);
    for (i = 0; i < n; i++) {
        size_t l = o[i].i;
        double v[6];
        loc_vals(a, b, l, v);
        for (k = 0; k < 6; k++) {
            all[k] += v[k];
            if (i >= shown)
                rest[k] += v[k] / (double)(n - shown);
        }
    }
    if (up_report_grouped(a)) {
        uint32_t *idx = up_calloc(shown ? shown : 1, sizeof *idx);
        up_status st;
        if (!idx) {
            up_free(o);
            return UP_ERR(err, UP_ENOMEM, "out of memory");
        }
        for (i = 0; i < shown; i++)
            idx[i] = o[i].i;
        if ((st = up_report_group_by_proc(a, idx, shown, err)) != UP_OK) {
            up_free(idx);
            up_free(o);
            return st;
        }
        for (i = 0; i < shown; i++)
            o[i].i = idx[i];
        up_free(idx);
    }
    for (i = 0; i < shown; i++) {
        size_t l = o[i].i, j;
        uint32_t pr = up_proc_of(a, l);
        bool many = up_proc_size(a, l) > 1;
        double v[6];
        loc_vals(a, b, l, v);
        if (many && (i == 0 || up_proc_of(a, o[i - 1].i) != pr)) { /* the process: all its locations */
            double pv[6] = {0, 0, 0, 0, 0, 0}, w[6];
            char lab[96];
            size_t cnt = 0;
            for (j = 0; j < n; j++)
                if (up_proc_of(a, j) == pr) {
                    loc_vals(a, b, j, w);
                    for (k = 0; k < 6; k++)
                        pv[k] += w[k];
                    cnt++;
                }
            up_proc_label(a, l, lab, 64);
            snprintf(lab + strlen(lab), sizeof lab - strlen(lab), " (%zu locations, sum)", cnt);
            loc_row(x, lab, pv, nv, 0, " class=\"proc\"");
        }
        if (many) {
            char lab[LABEL];
            up_text_escape(lab, sizeof lab, a->locs[l].name && *a->locs[l].name ? a->locs[l].name : "?", 0);
            loc_row(x, lab, v, nv, max, " class=\"sub\"");
        } else
            loc_row(x, up_html_loc_label(x, l), v, nv, max, "");
    }
    if (n > shown) {
        char lab[64];
        snprintf(lab, sizeof lab, "%zu other locations (mean)", n - shown);
        loc_row(x, lab, rest, nv, max, " class=\"sum\"");
    }
    if (n > 1) {
        char lab[64];
        snprintf(lab, sizeof lab, "all %s locations (sum)", up_html_fc(x, n));
        loc_row(x, lab, all, nv, 0, " class=\"tot\"");
    }
    fputs("</tbody></table>\n</section>\n", f);
    up_free(o);
    return UP_OK;
}

/* ---- 6b. hybrid: threads and devices ---------------------------------------------- */

static void hy_cell(hx *x, const up_hybrid *ha, const up_hybrid *hb, uint64_t ta, uint64_t tb)
{
    fprintf(x->f, "<td>%s", up_html_ft(x, up_hybrid_s(ha, ta)));
    if (hb)
        fprintf(x->f, "<br><span class=\"note\">%s</span>", up_html_ft(x, up_hybrid_s(hb, tb)));
    fputs("</td>", x->f);
}

static up_status hybrid(hx *x, up_err *err)
{
    FILE *f = x->f;
    const up_hybrid *ha = x->in->hy_a, *hb = x->in->hy_b;
    const up_profile *a = x->a;
    size_t n = ha->nlocs < a->nlocs ? ha->nlocs : a->nlocs, i, j, shown;
    uint32_t *idx;
    up_status st;
    unsigned k;
    fputs("<section id=\"hybrid\">\n<h2>Threads and devices</h2>\n<p class=\"note\">", f);
    fprintf(f, "%s OpenMP threads besides the masters, %s accelerator streams. ",
            up_html_fc(x, ha->nthreads), up_html_fc(x, ha->ndevices));
    fputs("Barrier wait: each thread&#8217;s time from its entry into an OpenMP barrier to the "
          "team&#8217;s last entry. Lock contention: request to acquisition of a lock another "
          "thread held. Idle threads: a thread&#8217;s window outside its parallel regions. "
          "Fork and join: the master&#8217;s fork to the team&#8217;s last begin, the last end to "
          "the join. Host waiting: CUDA calls that wait for the device. Device idle: a "
          "stream&#8217;s window outside kernels and copies.</p>\n<table><thead><tr><th>metric</th><th>",
          f);
    up_report_xml_text(f, x->la);
    fputs("</th>", f);
    if (hb) {
        fputs("<th>", f);
        up_report_xml_text(f, x->lb);
        fputs("</th><th>difference</th>", f);
    }
    fputs("<th class=\"l\">count</th></tr></thead><tbody>\n", f);
    for (k = 0; k < UP_HY_COUNT; k++) {
        double va = up_hybrid_s(ha, ha->t[k]);
        fprintf(f, "<tr><td>%s</td><td>%s</td>", up_hy_title(k), up_html_ft(x, va));
        if (hb) {
            double vb = up_hybrid_s(hb, hb->t[k]);
            fprintf(f, "<td>%s</td>", up_html_ft(x, vb));
            td_diff(x, va - vb);
        }
        fputs("<td class=\"l\">", f);
        if (k == UP_HY_OMP_BARRIER)
            fprintf(f, "%s barrier instances", up_html_fc(x, ha->barriers));
        else if (k == UP_HY_LOCK)
            fprintf(f, "%s of %s acquisitions contended", up_html_fc(x, ha->n[k]),
                    up_html_fc(x, ha->acquisitions));
        else if (k == UP_HY_FORK || k == UP_HY_JOIN)
            fprintf(f, "%s", up_html_fc(x, ha->n[k]));
        else if (k == UP_HY_HOST_WAIT)
            fprintf(f, "%s calls", up_html_fc(x, ha->n[k]));
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table>\n", f);

    /* per location, by process; at most 2 x top locations */
    shown = n <= 2 * x->top ? n : 2 * x->top;
    if (!(idx = up_calloc(n ? n : 1, sizeof *idx)))
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    for (i = 0; i < n; i++)
        idx[i] = (uint32_t)i;
    if ((st = up_report_group_by_proc(a, idx, n, err)) != UP_OK) {
        up_free(idx);
        return st;
    }
    fputs("<p class=\"note\">Per process and location", f);
    if (hb) {
        fputs(" (second line: ", f);
        up_report_xml_text(f, x->lb);
        fputs(")", f);
    }
    if (shown < n)
        fprintf(f, "; the first %zu of %s locations", shown, up_html_fc(x, n));
    fputs(".</p>\n<table><thead><tr><th>location</th>", f);
    for (k = 0; k < UP_HY_COUNT; k++)
        fprintf(f, "<th>%s</th>", up_hy_title(k));
    fputs("</tr></thead><tbody>\n", f);
    for (i = 0; i < shown; i++) {
        size_t l = idx[i];
        uint32_t pr = up_proc_of(a, l);
        bool many = up_proc_size(a, l) > 1;
        char lab[LABEL];
        if (many && (i == 0 || up_proc_of(a, idx[i - 1]) != pr)) {
            uint64_t sa[UP_HY_COUNT] = {0}, sb[UP_HY_COUNT] = {0};
            for (j = 0; j < n; j++)
                if (up_proc_of(a, j) == pr)
                    for (k = 0; k < UP_HY_COUNT; k++) {
                        sa[k] += ha->locs[j].t[k];
                        sb[k] += hb && j < hb->nlocs ? hb->locs[j].t[k] : 0;
                    }
            fputs("<tr class=\"proc\"><td>", f);
            up_report_xml_text(f, up_proc_label(a, l, lab, sizeof lab));
            fputs("</td>", f);
            for (k = 0; k < UP_HY_COUNT; k++)
                hy_cell(x, ha, hb, sa[k], sb[k]);
            fputs("</tr>\n", f);
        }
        fprintf(f, "<tr%s><td>", many ? " class=\"sub\"" : "");
        if (many)
            up_text_escape(lab, sizeof lab, a->locs[l].name && *a->locs[l].name ? a->locs[l].name : "?", 0);
        up_report_xml_text(f, many ? lab : up_html_loc_label(x, l));
        fputs("</td>", f);
        for (k = 0; k < UP_HY_COUNT; k++)
            hy_cell(x, ha, hb, ha->locs[l].t[k], hb && l < hb->nlocs ? hb->locs[l].t[k] : 0);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n</section>\n", f);
    up_free(idx);
    return UP_OK;
}

/* ---- 7. estimates -------------------------------------------------------------------- */

static void estimates(hx *x)
{
    FILE *f = x->f;
    const up_estimate *e = x->in->est;
    double tb = x->b ? x->run_b : NAN, hi = e->measured_s;
    unsigned m, r;
    int y, rows = UP_ESTIMATE_COUNT + 1 + (x->b != NULL);

    for (m = 0; m < UP_ESTIMATE_COUNT; m++)
        hi = e->model[m].approximated_s > hi ? e->model[m].approximated_s : hi;
    hi = tb > hi ? tb : hi;
    if (!(hi > 0))
        hi = 1;
    fputs("<section id=\"estimates\">\n<h2>Estimates without replay</h2>\n<p class=\"note\">The "
          "time-based perturbation models of Malony and Reed on the ",
          f);
    up_report_xml_text(f, x->la);
    fputs(" run: the run time they approximate from the number of records and the overhead per "
          "record, without waiting or causality",
          f);
    if (x->b) {
        fputs(", and their error against the ", f);
        up_report_xml_text(f, x->lb);
        fputs(" run", f);
    }
    fputs(".</p>\n<div class=\"fig\">\n", f);
    svg_open(x, rows * 24 + 26, "estimates");
    axis(x, 0, hi, 2, rows * 24 + 4);
    for (r = 0, y = 6; r < (unsigned)rows; r++, y += 24) {
        char lab[96];
        double v;
        const char *col = "#2f9e99";
        if (r == 0) {
            snprintf(lab, sizeof lab, "%s", x->la);
            v = e->measured_s, col = "#8c959f";
        } else if (r <= UP_ESTIMATE_COUNT) {
            snprintf(lab, sizeof lab, "%s %s", up_estimate_model_section(r - 1), up_estimate_model_title(r - 1));
            v = e->model[r - 1].approximated_s;
        } else {
            snprintf(lab, sizeof lab, "%s (replay)", x->lb);
            v = tb, col = "#2da44e";
        }
        text_at(x, CL - 12, y + 14, "lbl", lab);
        rect_title(x, CL, y + 3, isfinite(v) && v > 0 ? v / hi * CB : 0, 15, col, lab, NULL, v, NAN);
        fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"val\">%s</text>", CL + CB + 12, y + 14, up_html_ft(x, v));
        if (r > 0 && r <= UP_ESTIMATE_COUNT && x->b)
            fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"val\" text-anchor=\"end\">%s%s</text>", CW - 4, y + 14,
                    v > tb ? "+" : "", up_html_fpct(x, up_html_pct(v - tb, tb)));
        fputc('\n', f);
    }
    fputs("</svg>\n</div>\n<table><thead><tr><th>model</th><th class=\"l\">section</th>"
          "<th>approximated run time</th><th>perturbation removed</th>",
          f);
    if (x->b) {
        fputs("<th>error against ", f);
        up_report_xml_text(f, x->lb);
        fputs("</th>", f);
    }
    fputs("</tr></thead><tbody>\n", f);
    fprintf(f, "<tr class=\"sum\"><td>measured</td><td></td><td>%s</td><td></td>%s</tr>\n",
            up_html_ft(x, e->measured_s), x->b ? "<td></td>" : "");
    for (m = 0; m < UP_ESTIMATE_COUNT; m++) {
        double v = e->model[m].approximated_s;
        fputs("<tr><td>", f);
        up_report_xml_text(f, up_estimate_model_title(m));
        fputs("</td><td class=\"l\">", f);
        up_report_xml_text(f, up_estimate_model_section(m));
        fprintf(f, "</td><td>%s</td><td>%s</td>", up_html_ft(x, v), up_html_ft(x, e->model[m].dp_s));
        if (x->b)
            fprintf(f, "<td>%s%s</td>", v > tb ? "+" : "", up_html_fpct(x, up_html_pct(v - tb, tb)));
        fputs("</tr>\n", f);
    }
    if (x->b) {
        fputs("<tr class=\"tot\"><td>", f);
        up_report_xml_text(f, x->lb);
        fprintf(f, " (replay)</td><td></td><td>%s</td><td>%s</td><td></td></tr>\n", up_html_ft(x, tb),
                up_html_ft(x, x->run_a - tb));
    }
    fputs("</tbody></table>\n", f);
    for (m = 0; m < UP_ESTIMATE_COUNT; m++)
        if (e->model[m].approximated_s < 0) {
            fputs("<p class=\"note\">A negative approximated run time is the model's figure, not a run "
                  "time: it removes more overhead than the window lasted (the records' O exceeds the "
                  "time between them; the sequential models also add up every location's records, as "
                  "if one thread had written them all).</p>\n",
                  f);
            break;
        }
    fputs("</section>\n", f);
}

/* ---- 8. footer, and the file ------------------------------------------------------------ */

static void footer(hx *x)
{
    FILE *f = x->f;
    fputs("<footer>", f);
    if (x->in->command) {
        fputs("<div><code>", f);
        up_report_xml_text(f, x->in->command);
        fputs("</code></div>", f);
    }
#ifdef UP_VERSION
    fputs("<div>generated by unperturb " UP_VERSION "</div>", f);
#else
    fputs("<div>generated by unperturb</div>", f);
#endif
    fputs("</footer>\n</main>\n</body>\n</html>\n", f);
}

static up_status page(hx *x, up_err *err)
{
    up_status s;
    page_head(x);
    header(x);
    timelines(x);
    if (x->bd && (s = overhead(x, err)) != UP_OK)
        return s;
    if ((s = waits(x, err)) != UP_OK || (s = up_html_callpaths(x, err)) != UP_OK ||
        (s = locations(x, err)) != UP_OK)
        return s;
    if (x->in->hy_a && (s = hybrid(x, err)) != UP_OK)
        return s;
    if (x->in->est)
        estimates(x);
    footer(x);
    return UP_OK;
}

up_status up_report_html(const char *path, const up_html_input *in, up_err *err)
{
    hx x;
    up_status s = UP_OK;
    bool opened = false;
    size_t i;
    int rc;

    if (!path || !in || !in->a)
        return UP_ERR(err, UP_EUSAGE, "report.html needs an output path and a profile");
    memset(&x, 0, sizeof x);
    x.in = in;
    x.a = in->a;
    x.b = in->b;
    x.bd = in->b ? in->bd : NULL;
    x.top = in->top ? in->top : 30;
    x.la = in->label_a ? in->label_a : "measured";
    x.lb = in->label_b ? in->label_b : "compensated";
    x.run_a = run_s(x.a);
    x.run_b = x.b ? run_s(x.b) : NAN;
    for (i = 0; i < x.a->nlocs; i++)
        x.loc_a += sec(x.a, x.a->locs[i].time);
    for (i = 0; x.b && i < x.b->nlocs; i++)
        x.loc_b += sec(x.b, x.b->locs[i].time);
    if ((s = up_html_labels(&x, err)) != UP_OK)
        goto done;

    if (!(x.f = up_output_fopen(path))) {
        s = UP_ERR(err, UP_EIO, "cannot write '%s': %s", up_output_name(path), strerror(errno));
        goto done;
    }
    opened = true;
    if ((s = page(&x, err)) != UP_OK)
        goto done;
    if (fflush(x.f) != 0 || ferror(x.f)) {
        s = UP_ERR(err, UP_EIO, "cannot write '%s': %s", up_output_name(path), strerror(errno ? errno : EIO));
        goto done;
    }
    rc = fclose(x.f);
    x.f = NULL;
    if (rc != 0) {
        s = UP_ERR(err, UP_EIO, "cannot write '%s': %s", up_output_name(path), strerror(errno));
        goto done;
    }

done:
    if (x.f)
        fclose(x.f);
    if (s != UP_OK && opened)
        up_output_remove(path);
    up_free(x.lab);
    return s;
}
