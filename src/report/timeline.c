/*
 * timeline.c - a timeline (src/analysis/timeline.h) drawn as one <svg>
 * element of report.html (timeline.h): a time axis, a row per location or
 * group (boxes coloured by region, or heat strips of the MPI share), the
 * messages, a legend.
 *
 * Place in the data flow: last; reads an up_timeline, writes to the FILE of
 * report.html.  Size: boxes get their own <title> tooltip up to TITLE_MAX of
 * them, then one path per colour; messages get arrowheads up to ARROWS_MAX.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/names.h"
#include "report/plot.h"
#include "report/timeline.h"

#define TITLE_MAX 3000                /* boxes with their own <title> tooltip */
#define ARROWS_MAX 400                /* messages drawn with arrowheads */

/* the layout, pixels */
enum { ML = 128, MR = 24, TOP = 48 };

#define MPI_COLOUR "#d62728"
#define OVH_COLOUR "#3b3b3b"

/* A user region's colour, from its id alone (the same in a compensated copy):
 * hues in golden-ratio steps through 35-320 degrees (no reds: those are MPI's),
 * in three shades. */
static const char *user_colour(OTF2_RegionRef r, char *buf, size_t n)
{
    double h = 35 + 285 * fmod((double)r * 0.6180339887, 1), s = r % 2 ? 0.45 : 0.55;
    double l = 0.60 + 0.07 * (double)((r / 2) % 3) - 0.07, c, x, m, rgb[3] = {0, 0, 0};
    int i = (int)(h / 60);
    c = (1 - fabs(2 * l - 1)) * s;
    x = c * (1 - fabs(fmod(h / 60, 2) - 1));
    m = l - c / 2;
    rgb[(7 - i) % 3] = x; /* hue sextant i: (c,x,0) (x,c,0) (0,c,x) (0,x,c) (x,0,c) (c,0,x) */
    rgb[(i + 1) / 2 % 3] = c;
    snprintf(buf, n, "#%02x%02x%02x", (unsigned)lround((rgb[0] + m) * 255),
             (unsigned)lround((rgb[1] + m) * 255), (unsigned)lround((rgb[2] + m) * 255));
    return buf;
}

static const char *box_colour(unsigned kind, OTF2_RegionRef r, char *buf, size_t n)
{
    if (kind == UP_TIMELINE_MPI)
        return MPI_COLOUR;
    if (kind == UP_TIMELINE_OVERHEAD)
        return OVH_COLOUR;
    return user_colour(r, buf, n);
}

/* a duration for people: "850 ns", "12.5 µs", "3.2 ms", "1.25 s" */
static void fmt_dur(char *buf, size_t n, double s)
{
    if (s >= 1)
        snprintf(buf, n, "%.4g s", s);
    else if (s >= 1e-3)
        snprintf(buf, n, "%.4g ms", s * 1e3);
    else if (s >= 1e-6)
        snprintf(buf, n, "%.4g &#181;s", s * 1e6);
    else
        snprintf(buf, n, "%.4g ns", s * 1e9);
}

/* a round step (1, 2 or 5 times a power of ten) giving about n ticks */
typedef struct geo {
    uint64_t t0, span;
    double dw;           /* drawing width, px */
    double rh, gap;      /* row height and the space between rows */
} geo;

static double gx(const geo *g, uint64_t t)
{
    double v = t >= g->t0 ? (double)(t - g->t0) : -(double)(g->t0 - t);
    return ML + v / (double)g->span * g->dw;
}

static double gy(const geo *g, size_t row) { return TOP + (double)row * (g->rh + g->gap); }

/* heat colour of an MPI share level 1..10: pale to Vampir red */
static void heat_colour(char *buf, size_t n, unsigned level, bool ovh)
{
    double f = (double)level / 10.0;
    unsigned r, g, b;
    if (ovh) { /* white to the overhead grey */
        r = g = b = (unsigned)lround(235 - f * (235 - 59));
    } else { /* #fcded6 to #b2182b */
        r = (unsigned)lround(252 - f * (252 - 178));
        g = (unsigned)lround(222 - f * (222 - 24));
        b = (unsigned)lround(214 - f * (214 - 43));
    }
    snprintf(buf, n, "#%02x%02x%02x", r, g, b);
}

/* one heat strip: runs of columns of equal level (tenths) drawn as
 * horizontal strokes, one path per level */
static void heat_strip(FILE *f, const float *frac, unsigned W, double x0, double dw, double y,
                       double h, bool ovh)
{
    unsigned level, c, c0;
    char col[16];
    for (level = 1; level <= 10; level++) {
        bool any = false;
        for (c = 0; c < W;) {
            if ((unsigned)lround((double)frac[c] * 10) != level) {
                c++;
                continue;
            }
            c0 = c;
            while (c < W && (unsigned)lround((double)frac[c] * 10) == level)
                c++;
            if (!any) {
                heat_colour(col, sizeof col, level, ovh);
                fprintf(f, "<path stroke=\"%s\" stroke-width=\"%.1f\" d=\"", col, h);
                any = true;
            }
            fprintf(f, "M%.1f %.1fH%.1f", x0 + (double)c0 * dw / (double)W, y + h / 2,
                    x0 + (double)c * dw / (double)W);
        }
        if (any)
            fputs("\"/>\n", f);
    }
}

typedef struct keyed {
    uint32_t key, pos;
} keyed;

static int keyed_cmp(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static uint32_t colour_key(const up_timeline_box *b)
{
    return b->kind == UP_TIMELINE_MPI ? UINT32_MAX - 1 : b->kind == UP_TIMELINE_OVERHEAD ? UINT32_MAX : b->region;
}

/* A row's boxes without tooltips: one stroked path per colour, a short
 * "M x y H x" per box (small files whatever the number of rows). */
static void boxes_by_colour(FILE *f, const geo *g, const up_timeline_row *R, double y)
{
    keyed *k = R->nbox ? up_calloc(R->nbox, sizeof *k) : NULL;
    size_t i, j, n = R->nbox;
    char col[16];
    for (i = 0; k && i < n; i++) {
        k[i].key = colour_key(&R->box[i]);
        k[i].pos = (uint32_t)i;
    }
    if (k)
        qsort(k, n, sizeof *k, keyed_cmp);
    for (i = 0; i < n; i = j) {
        const up_timeline_box *b = &R->box[k ? k[i].pos : i];
        fprintf(f, "<path stroke=\"%s\" stroke-width=\"%.1f\" d=\"",
                box_colour(b->kind, b->region, col, sizeof col), g->rh);
        for (j = i; j < n && (k ? k[j].key == k[i].key : j == i); j++) {
            const up_timeline_box *c = &R->box[k ? k[j].pos : j];
            double x0 = gx(g, c->t0), x1 = gx(g, c->t1);
            if (x1 - x0 < 0.6)
                x1 = x0 + 0.6;
            fprintf(f, "M%.1f %.1fH%.1f", x0, y + g->rh / 2, x1);
        }
        fputs("\"/>\n", f);
    }
    up_free(k);
}

int up_timeline_svg(FILE *f, const up_timeline *tl, const char *title, uint64_t span)
{
    const up_timeline_win *w = &tl->win;
    uint64_t own = w->t1 > w->t0 ? w->t1 - w->t0 : 1;
    geo g;
    size_t r, i, nbox = 0, k;
    double width, height, yaxis, step, s0, s1, v, x;
    int dec;
    char buf[64], b2[64], col[16];
    bool titles;
    /* the user regions with the most time, for the legend */
    enum { NLEG = 6 };
    OTF2_RegionRef leg[NLEG];
    uint64_t legt[NLEG];
    size_t nleg = 0;
    bool any_ovh = false, any_mpi = false;

    memset(&g, 0, sizeof g);
    g.t0 = w->t0;
    g.span = span > own ? span : own;
    g.dw = (double)(tl->width_px ? tl->width_px : 1000);
    g.rh = tl->nrows <= 8 ? 22 : tl->nrows <= 16 ? 16 : tl->nrows <= 32 ? 12 : 9;
    g.gap = tl->nrows <= 16 ? 3 : 1;
    for (r = 0; r < tl->nrows; r++)
        nbox += tl->rows[r].nbox;
    titles = nbox <= TITLE_MAX;
    width = ML + g.dw + MR;
    yaxis = gy(&g, tl->nrows) + 2;
    height = yaxis + 62;

    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"11\">\n",
            width, height, width, height);
    fputs("<rect width=\"100%\" height=\"100%\" fill=\"#fafafa\"/>\n", f);
    fputs("<text x=\"12\" y=\"18\" font-size=\"14\" font-weight=\"bold\">", f);
    up_report_xml_text(f, title);
    fputs("</text>\n", f);
    /* what the window is */
    fmt_dur(buf, sizeof buf, up_timeline_s(tl, own));
    dec = (int)ceil(-log10(up_timeline_s(tl, own))) + 3; /* 4 digits of the window */
    dec = dec < 0 ? 0 : dec > 12 ? 12 : dec;
    fprintf(f, "<text x=\"12\" y=\"35\" fill=\"#555\">%.*f&#8211;%.*f s (%s): ", dec,
            up_timeline_s(tl, w->t0 > w->origin ? w->t0 - w->origin : 0), dec,
            up_timeline_s(tl, w->t1 > w->origin ? w->t1 - w->origin : 0), buf);
    up_report_xml_text(f, w->how);
    fprintf(f, "; %llu message%s", (unsigned long long)tl->msgs_in_window,
            tl->msgs_in_window == 1 ? "" : "s");
    if (tl->nmsgs < tl->msgs_in_window)
        fprintf(f, " (%zu drawn)", tl->nmsgs);
    fputs("</text>\n", f);

    /* the time axis: ticks in seconds from the trace start, grid behind */
    s0 = up_timeline_s(tl, w->t0 > w->origin ? w->t0 - w->origin : 0);
    s1 = s0 + up_timeline_s(tl, g.span);
    step = up_plot_step(s1 - s0, 8);
    dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    if (dec > 12)
        dec = 12;
    fprintf(f, "<line x1=\"%d\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n", ML,
            ML + g.dw, yaxis, yaxis);
    for (k = 0, v = ceil(s0 / step - 1e-9) * step; v <= s1 + step * 1e-9 && k < 100;
         k++, v = (ceil(s0 / step - 1e-9) + (double)k) * step) {
        if (fabs(v) < step * 1e-6)
            v = 0; /* not "-0.0" */
        x = ML + (v - s0) / (s1 - s0) * g.dw;
        if (x < ML - 0.5 || x > ML + g.dw + 0.5)
            continue;
        fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
                   "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.*f</text>\n",
                x, x, TOP - 2, yaxis, x, x, yaxis, yaxis + 4, x, yaxis + 16, dec, v);
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#555\">"
               "seconds from the trace start</text>\n", ML + g.dw / 2, yaxis + 30);

    /* rows */
    for (r = 0; r < tl->nrows; r++) {
        const up_timeline_row *R = &tl->rows[r];
        double y = gy(&g, r), wx = gx(&g, w->t1) - ML;
        fputs("<g><title>", f);
        up_report_xml_text(f, R->label);
        fputs("</title>", f);
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\""
                   "%s>",
                ML - 6, y + g.rh / 2, g.rh < 12 ? " font-size=\"9\"" : "");
        up_report_xml_text(f, R->label);
        fputs("</text>", f);
        fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#ececec\"/>\n",
                ML, y, wx, g.rh);
        if (tl->grouped && R->mpi_frac) {
            double ho = 0;
            for (i = 0; i < tl->width_px && R->ovh_frac; i++)
                if (R->ovh_frac[i] >= 0.05f) {
                    ho = g.rh >= 12 ? 3 : 2;
                    any_ovh = true;
                    break;
                }
            for (i = 0; i < tl->width_px; i++)
                if (R->mpi_frac[i] >= 0.05f) {
                    any_mpi = true;
                    break;
                }
            /* the columns span the own window: wx pixels of the drawing */
            heat_strip(f, R->mpi_frac, tl->width_px, ML, wx, y, g.rh - ho, false);
            if (ho > 0)
                heat_strip(f, R->ovh_frac, tl->width_px, ML, wx, y + g.rh - ho, ho, true);
        } else if (titles) {
            for (i = 0; i < R->nbox; i++) {
                const up_timeline_box *b = &R->box[i];
                double x0 = gx(&g, b->t0), x1 = gx(&g, b->t1);
                if (x1 - x0 < 0.6)
                    x1 = x0 + 0.6;
                fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
                           "fill=\"%s\"><title>",
                        x0, y, x1 - x0, g.rh, box_colour(b->kind, b->region, col, sizeof col));
                up_report_xml_name(f, b->region == OTF2_UNDEFINED_REGION
                                ? "buffer flush"
                                : up_timeline_region_name(tl, b->region));
                if (b->mixed)
                    fputs(" and others", f);
                fmt_dur(buf, sizeof buf, up_timeline_s(tl, b->t1 - b->t0));
                fprintf(f, "\n%s", buf);
                if (b->parts > 1 && b->mixed)
                    fprintf(f, " (%u intervals merged)", b->parts);
                fputs("</title></rect>\n", f);
            }
        } else
            boxes_by_colour(f, &g, R, y);
        fputs("</g>\n", f);
        /* legend bookkeeping */
        for (i = 0; i < R->nbox; i++) {
            const up_timeline_box *b = &R->box[i];
            any_mpi |= b->kind == UP_TIMELINE_MPI;
            any_ovh |= b->kind == UP_TIMELINE_OVERHEAD;
            if (b->kind != UP_TIMELINE_USER)
                continue;
            for (k = 0; k < nleg && leg[k] != b->region; k++)
                ;
            if (k < nleg)
                legt[k] += b->t1 - b->t0;
            else if (nleg < NLEG) {
                leg[nleg] = b->region;
                legt[nleg++] = b->t1 - b->t0;
            } else { /* replace the smallest if this one is longer */
                size_t m = 0;
                for (k = 1; k < NLEG; k++)
                    if (legt[k] < legt[m])
                        m = k;
                if (b->t1 - b->t0 > legt[m]) {
                    leg[m] = b->region;
                    legt[m] = b->t1 - b->t0;
                }
            }
        }
    }

    /* messages: one path of lines, one of arrowheads at the receive */
    if (tl->nmsgs) {
        double xa = gx(&g, w->t0), xb = gx(&g, w->t1);
        bool few = tl->nmsgs <= ARROWS_MAX;
        fprintf(f, "<path stroke=\"#000\" stroke-width=\"%.1f\" stroke-opacity=\"%s\" "
                   "fill=\"none\" d=\"",
                tl->grouped || !few ? 0.5 : 0.8, few ? "0.85" : "0.6");
        for (i = 0; i < tl->nmsgs; i++) {
            const up_timeline_msg *m = &tl->msgs[i];
            double x0 = gx(&g, m->t_send), x1 = gx(&g, m->t_recv);
            double y0 = gy(&g, m->src_row) + g.rh / 2, y1 = gy(&g, m->dst_row) + g.rh / 2;
            double ca = 0, cb = 1; /* clip the segment to [xa, xb] */
            if (x1 != x0) {
                double ta = (xa - x0) / (x1 - x0), tb = (xb - x0) / (x1 - x0);
                double lo = ta < tb ? ta : tb, hi = ta < tb ? tb : ta;
                ca = lo > 0 ? lo : 0;
                cb = hi < 1 ? hi : 1;
                if (ca >= cb)
                    continue;
            } else if (x0 < xa || x0 > xb)
                continue;
            fprintf(f, "M%.1f %.1fL%.1f %.1f", x0 + ca * (x1 - x0), y0 + ca * (y1 - y0),
                    x0 + cb * (x1 - x0), y0 + cb * (y1 - y0));
        }
        fputs("\"/>\n", f);
        if (few)
            fputs("<path fill=\"#000\" d=\"", f);
        for (i = 0; few && i < tl->nmsgs; i++) {
            const up_timeline_msg *m = &tl->msgs[i];
            double x0 = gx(&g, m->t_send), x1 = gx(&g, m->t_recv);
            double y0 = gy(&g, m->src_row) + g.rh / 2, y1 = gy(&g, m->dst_row) + g.rh / 2;
            double dx = x1 - x0, dy = y1 - y0, len = sqrt(dx * dx + dy * dy), ux, uy;
            if (m->t_recv < w->t0 || m->t_recv > w->t1 || len < 1)
                continue;
            ux = dx / len;
            uy = dy / len;
            fprintf(f, "M%.1f %.1fL%.1f %.1fL%.1f %.1fz", x1, y1, x1 - 5 * ux - 2 * uy,
                    y1 - 5 * uy + 2 * ux, x1 - 5 * ux + 2 * uy, y1 - 5 * uy - 2 * ux);
        }
        if (few)
            fputs("\"/>\n", f);
    }
    if (gx(&g, w->t1) < ML + g.dw - 1) /* the end of a window shorter than the other's */
        fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%.1f\" stroke=\"#888\" "
                   "stroke-dasharray=\"3,2\"/>\n",
                gx(&g, w->t1), gx(&g, w->t1), TOP - 2, yaxis);

    /* legend */
    {
        double lx = ML, ly = yaxis + 44;
        size_t a, b;
        for (a = 0; a < nleg; a++) /* longest first */
            for (b = a + 1; b < nleg; b++)
                if (legt[b] > legt[a]) {
                    OTF2_RegionRef tr = leg[a];
                    uint64_t tt = legt[a];
                    leg[a] = leg[b], legt[a] = legt[b];
                    leg[b] = tr, legt[b] = tt;
                }
        fputs("<g>", f);
        if (tl->grouped) {
            fprintf(f, "<text x=\"%.0f\" y=\"%.1f\">time in MPI per group: 10%%</text>", lx,
                    ly + 4);
            lx += 160;
            for (a = 1; a <= 10; a += 3) {
                heat_colour(buf, sizeof buf, (unsigned)a, false);
                fprintf(f, "<rect x=\"%.0f\" y=\"%.1f\" width=\"22\" height=\"10\" fill=\"%s\"/>",
                        lx, ly - 5, buf);
                lx += 22;
            }
            fprintf(f, "<text x=\"%.0f\" y=\"%.1f\">100%%</text>", lx + 4, ly + 4);
            lx += 50;
            if (any_ovh) {
                heat_colour(buf, sizeof buf, 10, true);
                fprintf(f, "<rect x=\"%.0f\" y=\"%.1f\" width=\"12\" height=\"10\" fill=\"%s\"/>"
                           "<text x=\"%.0f\" y=\"%.1f\">overhead (lower band)</text>",
                        lx, ly - 5, buf, lx + 16, ly + 4);
                lx += 150;
            }
        } else {
            if (any_mpi || !nleg) {
                fprintf(f, "<rect x=\"%.0f\" y=\"%.1f\" width=\"12\" height=\"10\" fill=\"%s\"/>"
                           "<text x=\"%.0f\" y=\"%.1f\">MPI</text>",
                        lx, ly - 5, MPI_COLOUR, lx + 16, ly + 4);
                lx += 52;
            }
            if (any_ovh) {
                fprintf(f, "<rect x=\"%.0f\" y=\"%.1f\" width=\"12\" height=\"10\" fill=\"%s\"/>"
                           "<text x=\"%.0f\" y=\"%.1f\">measurement overhead</text>",
                        lx, ly - 5, OVH_COLOUR, lx + 16, ly + 4);
                lx += 150;
            }
            for (a = 0; a < nleg && lx < ML + g.dw - 140; a++) {
                size_t len;
                /* at most 28 bytes, escaped, a cut marked "..." */
                up_text_escape(b2, 29, up_timeline_region_name(tl, leg[a]), 0);
                len = strlen(b2);
                fprintf(f, "<rect x=\"%.0f\" y=\"%.1f\" width=\"12\" height=\"10\" fill=\"%s\"/>"
                           "<text x=\"%.0f\" y=\"%.1f\">",
                        lx, ly - 5, box_colour(UP_TIMELINE_USER, leg[a], col, sizeof col), lx + 16,
                        ly + 4);
                up_report_xml_text(f, b2);
                fputs("</text>", f);
                lx += 28 + 6.5 * (double)len;
            }
        }
        if (tl->nmsgs)
            fprintf(f, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#000\"/>"
                       "<text x=\"%.0f\" y=\"%.1f\">message</text>",
                    lx, lx + 18, ly, ly, lx + 22, ly + 4);
        fputs("</g>\n", f);
    }
    fputs("</svg>\n", f);
    return ferror(f) ? -1 : 0;
}
