/*
 * html_int.h - report.html's private header: the page being written and the
 * formatters its files share.  Only src/report/html*.c include it; the rest
 * see profile_report.h.
 *
 * The page's files:
 *   html.c            the frame (CSS, head, footer, the file) and the
 *                     sections but one: the runs, the
 *                     timelines, where the overhead went, the wait states,
 *                     the locations, the estimates
 *   html_callpaths.c  the call-path tree, with communication per peer at
 *                     the MPI calls, cut at a budget of bytes
 *   html_fmt.c        the numbers' formats and the locations' labels
 */
#ifndef UNPERTURB_HTML_INT_H
#define UNPERTURB_HTML_INT_H

#include <stdio.h>

#include "report/names.h"
#include "report/profile_report.h"

#define LABEL 80                /* bytes of a location label */

/* The page being written. */
typedef struct hx {
    FILE *f;
    const up_html_input *in;
    const up_profile *a, *b;
    const up_breakdown *bd;
    size_t top;
    const char *la, *lb;    /* run labels */
    double run_a, run_b;    /* window lengths, s */
    double loc_a, loc_b;    /* location times summed, s */
    char (*lab)[LABEL];     /* location labels (a's locations) */
    bool tree_cut;          /* the call-path tree hit its budget */
    long tree_end;          /* file offset where the budget ends */
    char ring[16][48];      /* formatted numbers for one printf */
    unsigned ri;
} hx;

/* ---- html_fmt.c ---- */
/* indices 0..n-1 ordered by key, largest first (ties: smaller index first):
 * qsort with up_html_kv_desc */
typedef struct kv {
    double key;
    uint32_t i;
} kv;
int up_html_kv_desc(const void *p, const void *q);

/* Numbers for the page, in one of x's 16 slots (so that one printf may
 * take several): seconds with 4 significant digits in s, ms, µs or ns; a
 * count with thousands separators; bytes in B, KiB, MiB, ...; a percentage
 * ("&#8211;" where it is not finite). */
const char *up_html_ft(hx *x, double s);
/* the next of x's slots, sizeof x->ring[0] bytes, for a format of one's own */
char *up_html_slot(hx *x);
const char *up_html_fc(hx *x, uint64_t n);
const char *up_html_fbytes(hx *x, uint64_t n);
const char *up_html_fpct(hx *x, double p);
/* part of whole in percent (NAN of 0) */
double up_html_pct(double part, double whole);
/* location i's label: "rank 3", "rank 3, <name>" ("?" past run a's) */
const char *up_html_loc_label(const hx *x, size_t i);
/* x->lab: every location's label, made once */
up_status up_html_labels(hx *x, up_err *err);

/* ---- html_callpaths.c ---- */
/* The section "Call paths". */
up_status up_html_callpaths(hx *x, up_err *err);

#endif /* UNPERTURB_HTML_INT_H */
