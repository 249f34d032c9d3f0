/*
 * html_fmt.c - report.html's numbers and labels (html_int.h): seconds,
 * counts, bytes and percentages in a ring of slots so that one printf may
 * take several, the locations' labels, and the order of ranked tables.
 * Shared by html.c and html_callpaths.c, which depend on it and never on
 * each other's insides.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/html_int.h"
#include "util/util.h"

char *up_html_slot(hx *x)
{
    return x->ring[x->ri++ % (sizeof x->ring / sizeof *x->ring)];
}

/* digits with thousands separators: "1234567" -> "1,234,567" (in place, b
 * holds at least 48 bytes, the digits may follow a '-') */
static void group(char *b)
{
    char d[48];
    size_t len, i, o = 0, skip = b[0] == '-';
    snprintf(d, sizeof d, "%s", b);
    len = strlen(d);
    for (i = 0; i < len; i++) {
        if (i > skip && (len - i) % 3 == 0)
            b[o++] = ',';
        b[o++] = d[i];
    }
    b[o] = 0;
}

/* seconds with 4 significant digits in s, ms, us or ns; whole seconds from
 * 1,000 s on */
const char *up_html_ft(hx *x, double s)
{
    char *b = up_html_slot(x);
    double m = fabs(s), v;
    const char *u;
    if (!isfinite(s))
        return "&#8211;";
    if (m < 5e-10)
        return "0";
    if (m >= 999.95 && m < 1e15) {
        snprintf(b, sizeof x->ring[0], "%.0f", s);
        group(b);
        strcat(b, " s");
        return b;
    }
    if (m >= 0.99995)
        v = s, u = "s";
    else if (m >= 0.99995e-3)
        v = s * 1e3, u = "ms";
    else if (m >= 0.99995e-6)
        v = s * 1e6, u = "\xc2\xb5s";
    else
        v = s * 1e9, u = "ns";
    m = fabs(v);
    if (!strcmp(u, "ns"))
        snprintf(b, sizeof x->ring[0], "%.0f %s", v, u);
    else
        snprintf(b, sizeof x->ring[0], m >= 99.995 ? "%.1f %s" : m >= 9.9995 ? "%.2f %s" : "%.3f %s",
                 v, u);
    return b;
}

/* a count with thousands separators */
const char *up_html_fc(hx *x, uint64_t n)
{
    char *b = up_html_slot(x);
    snprintf(b, sizeof x->ring[0], "%llu", (unsigned long long)n);
    group(b);
    return b;
}

const char *up_html_fbytes(hx *x, uint64_t n)
{
    static const char *const u[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
    char *b = up_html_slot(x);
    double v = (double)n;
    unsigned k = 0;
    if (n < 1024) {
        snprintf(b, sizeof x->ring[0], "%llu B", (unsigned long long)n);
        return b;
    }
    for (v /= 1024; v >= 1023.95 && k < 4; k++)
        v /= 1024;
    snprintf(b, sizeof x->ring[0], "%.1f %s", v, u[k]);
    return b;
}

const char *up_html_fpct(hx *x, double p)
{
    char *b = up_html_slot(x);
    if (!isfinite(p))
        return "&#8211;";
    snprintf(b, sizeof x->ring[0], "%.1f%%", p);
    return b;
}

double up_html_pct(double part, double whole)
{
    return whole != 0 ? 100.0 * part / whole : NAN;
}

const char *up_html_loc_label(const hx *x, size_t i)
{
    return i < x->a->nlocs ? x->lab[i] : "?";
}

static int long_cmp(const void *p, const void *q)
{
    long a = *(const long *)p, b = *(const long *)q;
    return a < b ? -1 : a > b;
}

/* "rank 3", or "rank 3, <name>" when the rank has several locations (threads) */
up_status up_html_labels(hx *x, up_err *err)
{
    const up_profile *a = x->a;
    long *r;
    size_t i, n = 0;
    if (!(x->lab = up_calloc(a->nlocs ? a->nlocs : 1, sizeof *x->lab)) ||
        !(r = up_calloc(a->nlocs ? a->nlocs : 1, sizeof *r)))
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    for (i = 0; i < a->nlocs; i++)
        if (a->locs[i].rank != UP_NO_RANK)
            r[n++] = a->locs[i].rank;
    qsort(r, n, sizeof *r, long_cmp);
    for (i = 0; i < a->nlocs; i++) {
        const up_profile_loc *l = &a->locs[i];
        size_t lo = 0, hi = n;
        if (l->rank == UP_NO_RANK) {
            if (l->name && *l->name) /* escaped here: LABEL cuts no escape in half */
                up_text_escape(x->lab[i], LABEL, l->name, 0);
            else
                snprintf(x->lab[i], LABEL, "location %zu", i);
            continue;
        }
        while (lo < hi) { /* the first of this rank */
            size_t m = lo + (hi - lo) / 2;
            if (r[m] < l->rank)
                lo = m + 1;
            else
                hi = m;
        }
        if (lo + 1 < n && r[lo + 1] == l->rank && l->name && *l->name) {
            int w = snprintf(x->lab[i], LABEL, "rank %ld, ", l->rank);
            if (w > 0 && w < LABEL)
                up_text_escape(x->lab[i] + w, LABEL - (size_t)w, l->name, 0);
        } else
            snprintf(x->lab[i], LABEL, "rank %ld", l->rank);
    }
    up_free(r);
    return UP_OK;
}

int up_html_kv_desc(const void *p, const void *q)
{
    const kv *a = p, *b = q;
    if (a->key != b->key)
        return a->key > b->key ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}
