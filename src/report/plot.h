/*
 * plot.h - small self-contained SVG line charts (validate's Fig. 1 of [W],
 * simulate's sweeps and speedups).  No scripts, no fonts to fetch: the file
 * opens in any browser without network access.
 * Place in the data flow: report (writes a FILE the caller opened).
 */
#ifndef UNPERTURB_PLOT_H
#define UNPERTURB_PLOT_H

#include <stddef.h>
#include <stdio.h>

typedef struct up_series {
    const char *name;      /* legend entry */
    const double *y;       /* one value per x; NAN: no point */
} up_series;

typedef struct up_panel {
    const char *title;     /* above the panel */
    size_t nx;
    const double *x;       /* ascending; drawn evenly spaced, labelled by value */
    size_t nseries;
    const up_series *series;
} up_panel;

typedef struct up_plot {
    const char *title;     /* above everything */
    const char *xlabel, *ylabel;
    size_t npanels;        /* side by side, sharing the legend and y label */
    const up_panel *panels;
} up_plot;

/* The step of an axis's ticks for about n of them over range: 1, 2 or 5
 * times a power of ten (1 when range is not a positive finite number).
 * Shared by the charts, report.html's histograms and the timelines. */
double up_plot_step(double range, double n);

/* Writes the chart; returns 0, or -1 if writing failed. */
int up_plot_svg(FILE *f, const up_plot *p);

#endif
