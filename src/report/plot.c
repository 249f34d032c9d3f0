/*
 * plot.c - SVG line charts (plot.h).  Each panel has its own y axis from 0
 * to a round value above its largest point, x values evenly spaced.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/names.h"
#include "report/plot.h"

enum { PW = 360, PH = 260, ML = 64, MR = 16, MT = 64, MB = 52, GAP = 60 };

static const char *const colours[] = {"#000000", "#d62728", "#1f77b4", "#2ca02c",
                                      "#ff7f0e", "#9467bd", "#8c564b", "#e377c2"};
static const char *const dashes[] = {"", "6,3", "2,2", "8,3,2,3", "", "6,3", "2,2", ""};
#define NSTYLE (sizeof colours / sizeof *colours)

/* a round step (1, 2 or 5 times a power of ten) giving about 5 ticks */
double up_plot_step(double range, double n)
{
    double raw = range / n, p, m;
    if (!(raw > 0) || !isfinite(raw))
        return 1;
    p = pow(10, floor(log10(raw)));
    m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static void panel(FILE *f, const up_panel *pn, double ox, const char *xlabel)
{
    double ymax = 0, step, top;
    size_t i, s;
    for (s = 0; s < pn->nseries; s++)
        for (i = 0; i < pn->nx; i++)
            if (isfinite(pn->series[s].y[i]) && pn->series[s].y[i] > ymax)
                ymax = pn->series[s].y[i];
    step = up_plot_step(ymax, 5);
    top = ceil(ymax / step) * step;
    if (top < ymax * 1.05)
        top += step;
    fprintf(f, "<g transform=\"translate(%.0f,%d)\">\n", ox, MT);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fff\" stroke=\"#888\"/>\n",
            PW, PH);
    fputs("<text x=\"", f);
    fprintf(f, "%d\" y=\"-8\" text-anchor=\"middle\" font-weight=\"bold\">", PW / 2);
    up_report_xml_text(f, pn->title);
    fputs("</text>\n", f);
    for (double v = 0; v <= top + step / 2; v += step) {
        double y = PH - v / top * PH;
        fprintf(f, "<line x1=\"0\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>", PW, y, y);
        fprintf(f, "<text x=\"-6\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\">%g</text>\n",
                y, v);
    }
    for (i = 0; i < pn->nx; i++) {
        double x = pn->nx > 1 ? 30 + (double)i * (PW - 60) / (double)(pn->nx - 1) : PW / 2.0;
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n", x, PH + 18,
                pn->x[i]);
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", PW / 2, PH + 40);
    up_report_xml_text(f, xlabel);
    fputs("</text>\n", f);
    for (s = 0; s < pn->nseries; s++) {
        const char *c = colours[s % NSTYLE], *d = dashes[s % NSTYLE];
        int open = 0;
        for (i = 0; i < pn->nx; i++) { /* one polyline per run of defined points */
            double y = pn->series[s].y[i];
            double x = pn->nx > 1 ? 30 + (double)i * (PW - 60) / (double)(pn->nx - 1) : PW / 2.0;
            if (!isfinite(y)) {
                if (open)
                    fputs("\"/>\n", f);
                open = 0;
                continue;
            }
            if (!open)
                fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s%s%s points=\"",
                        c, *d ? " stroke-dasharray=\"" : "", d, *d ? "\"" : "");
            fprintf(f, "%.1f,%.1f ", x, PH - y / top * PH);
            open = 1;
        }
        if (open)
            fputs("\"/>\n", f);
        for (i = 0; i < pn->nx; i++) {
            double y = pn->series[s].y[i];
            double x = pn->nx > 1 ? 30 + (double)i * (PW - 60) / (double)(pn->nx - 1) : PW / 2.0;
            if (isfinite(y)) {
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>", x,
                        PH - y / top * PH, c);
                up_report_xml_text(f, pn->series[s].name);
                fprintf(f, ": %g</title></circle>\n", y);
            }
        }
    }
    fputs("</g>\n", f);
}

int up_plot_svg(FILE *f, const up_plot *p)
{
    size_t i, s;
    double w = ML + (double)p->npanels * (PW + GAP) - GAP + MR;
    double h = MT + PH + MB + 28, legend = ML;
    for (s = 0; p->npanels && s < p->panels[0].nseries; s++)
        legend += 40 + 7.0 * (double)strlen(p->panels[0].series[s].name);
    if (legend + MR > w)
        w = legend + MR; /* the legend is one line: widen for it */
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"#fafafa\"/>\n",
            w, h, w, h);
    fputs("<text x=\"12\" y=\"20\" font-size=\"15\" font-weight=\"bold\">", f);
    up_report_xml_text(f, p->title);
    fputs("</text>\n", f);
    /* the legend: the first panel's series names */
    if (p->npanels) {
        double x = ML;
        for (s = 0; s < p->panels[0].nseries; s++) {
            const char *name = p->panels[0].series[s].name, *d = dashes[s % NSTYLE];
            fprintf(f, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"36\" y2=\"36\" stroke=\"%s\" "
                       "stroke-width=\"2\"%s%s%s/>",
                    x, x + 24, colours[s % NSTYLE], *d ? " stroke-dasharray=\"" : "", d,
                    *d ? "\"" : "");
            fprintf(f, "<text x=\"%.0f\" y=\"40\">", x + 28);
            up_report_xml_text(f, name);
            fputs("</text>\n", f);
            x += 40 + 7.0 * (double)strlen(name);
        }
    }
    fprintf(f, "<text transform=\"translate(16,%d) rotate(-90)\" text-anchor=\"middle\">",
            MT + PH / 2);
    up_report_xml_text(f, p->ylabel);
    fputs("</text>\n", f);
    for (i = 0; i < p->npanels; i++)
        panel(f, &p->panels[i], ML + (double)i * (PW + GAP), p->xlabel);
    fputs("</svg>\n", f);
    return ferror(f) ? -1 : 0;
}
