/*
 * counts.c - Enter records per region of a trace, and the comparison of two
 * such tables (src/analysis/counts.h): whether two traced runs of a
 * program are the same execution.  `unperturb validate` compares every
 * traced run with a reference run (docs/validate.md).
 *
 * Place in the data flow: OTF2 archive --reader (direct path, nothing
 * buffered, nothing written)--> a count per region index --> one entry per
 * region name.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/counts.h"

/* ---- counting ---------------------------------------------------------------- */

typedef struct tally {
    const up_defs *d;
    uint64_t *n;       /* per region index of the definitions (d->regions) */
    uint64_t *per;     /* per location and region index (NULL: no process
                        * has two threads, or too large: schedule_entries) */
    uint32_t loc;      /* the location being read */
    uint64_t unknown;  /* Enter records of an undefined region: not counted */
} tally;

/* the per-location table's bound (entries): larger traces compare totals only */
#define PER_MAX ((size_t)1 << 22)

static void count(tally *c, OTF2_RegionRef region)
{
    const up_region_def *rg = up_defs_region(c->d, region);
    if (!rg) {
        c->unknown++;
        return;
    }
    c->n[rg - c->d->regions]++;
    if (c->per)
        c->per[(size_t)c->loc * c->d->nregions + (size_t)(rg - c->d->regions)]++;
}

static int on_region(void *ctx, uint32_t loc, unsigned kind, uint64_t t, OTF2_RegionRef region,
                     uint64_t *t_out)
{
    (void)loc;
    if (kind == UP_EV_Enter)
        count(ctx, region);
    *t_out = t;
    return 1;
}

/* every other record (and an Enter the region path hands on) */
static int on_record(void *ctx, uint32_t loc, up_event *ev)
{
    (void)loc;
    if (ev->kind == UP_EV_Enter)
        count(ctx, ev->u.Enter.region);
    ev->t_out = ev->time;
    return 1;
}

static int desc_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x > y ? -1 : x < y;
}

/* A CPU location and its process, for the threads' schedule */
typedef struct pl { uint32_t process, loc; } pl;

static int by_process(const void *a, const void *b)
{
    const pl *x = a, *y = b;
    return x->process != y->process ? (x->process < y->process ? -1 : 1)
                                     : (x->loc < y->loc ? -1 : x->loc > y->loc);
}

/* The CPU locations of processes with two or more, grouped by process
 * (*n of them; NULL when there are none, or out of memory: *n is then 0) */
static pl *threaded(const up_defs *d, size_t *n)
{
    pl *v = up_calloc(d->nlocs ? d->nlocs : 1, sizeof *v);
    size_t li, i, j, m = 0;
    *n = 0;
    if (!v)
        return NULL;
    for (li = 0; li < d->nlocs; li++)
        if (d->locs[li].kind == UP_LOC_CPU && d->locs[li].process != UP_NO_PROCESS)
            v[m++] = (pl){d->locs[li].process, (uint32_t)li};
    qsort(v, m, sizeof *v, by_process);
    for (i = j = 0; i < m; i = j) { /* keep the processes of two or more */
        for (j = i + 1; j < m && v[j].process == v[i].process; j++)
            ;
        if (j - i >= 2) {
            memmove(&v[*n], &v[i], (j - i) * sizeof *v);
            *n += j - i;
        }
    }
    if (!*n) {
        up_free(v);
        return NULL;
    }
    return v;
}

/* The threads' schedule (docs/validate.md, "Different executions"): in a
 * process of several CPU threads, how the executions of task region i
 * (role TASK: which thread ran which task) split among them, as entries
 * "NAME [thread k by count]": the k-th largest of its threads' counts,
 * summed over the processes.  (Other regions whose place moves, a single,
 * a critical section's turn, are not compared: a trivial single moves from
 * run to run and costs nothing, and the records do not say what is
 * trivial.)  Threads are numbered by
 * their first records, which may come in another order in another run; the
 * sorted shares do not.  Two runs whose shares differ ran another schedule
 * (tasks or a dynamic loop's iterations went to other threads), which a
 * replay that keeps each record on its thread cannot undo.  Adds the
 * entries to t (room made by the caller); false: out of memory. */
static bool schedule_entries(const tally *c, const pl *v, size_t nv, up_counts *t, size_t i)
{
    const up_defs *d = c->d;
    uint64_t *share = up_calloc(nv, sizeof *share);
    size_t a, b, k;
    char name[512];
    if (!share)
        return false;
    for (a = 0; a < nv; a = b) {
        for (b = a; b < nv && v[b].process == v[a].process; b++)
            share[b - a] = c->per[(size_t)v[b].loc * d->nregions + i];
        qsort(share, b - a, sizeof *share, desc_u64);
        for (k = 0; k < b - a && share[k]; k++) { /* (the rest are 0) */
            snprintf(name, sizeof name, "%s [thread %zu by count]",
                     d->regions[i].name ? d->regions[i].name : "", k + 1);
            if (!(t->v[t->n].name = up_strdup(name))) {
                up_free(share);
                return false;
            }
            t->v[t->n++].n = share[k];
        }
    }
    up_free(share);
    return true;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const up_region_count *)a)->name, ((const up_region_count *)b)->name);
}

void up_counts_free(up_counts *c)
{
    size_t i;
    if (!c)
        return;
    for (i = 0; i < c->n; i++)
        up_free(c->v[i].name);
    up_free(c->v);
    up_free(c);
}

/* the table from the per-index counts: one entry per name, overhead
 * regions and regions never entered left out; then the threads' schedule
 * (schedule_entries), which the total leaves out */
static up_status table(const tally *c, up_counts **out, up_err *err)
{
    const up_defs *d = c->d;
    up_counts *t = up_calloc(1, sizeof *t);
    size_t i, j, nv = 0;
    uint64_t total = 0;
    pl *v = c->per ? threaded(d, &nv) : NULL;
    if (!t || (d->nregions && !(t->v = up_calloc(d->nregions * (1 + nv), sizeof *t->v))))
        goto nomem;
    for (i = 0; i < d->nregions; i++) {
        /* the measurement's regions, and polls: how often a program polls
         * is how long it waited, which the tracer changes by design */
        if (!c->n[i] || (d->regions[i].flags & (UP_REGION_OVERHEAD | UP_REGION_POLL)))
            continue;
        if (!(t->v[t->n].name = up_strdup(d->regions[i].name ? d->regions[i].name : "")))
            goto nomem;
        t->v[t->n++].n = c->n[i];
        total += c->n[i];
        if (v && d->regions[i].role == OTF2_REGION_ROLE_TASK && !schedule_entries(c, v, nv, t, i))
            goto nomem;
    }
    up_free(v);
    if (t->n)
        qsort(t->v, t->n, sizeof *t->v, by_name);
    for (i = j = 0; i < t->n; i++) { /* regions of one name become one entry */
        if (j && !strcmp(t->v[j - 1].name, t->v[i].name)) {
            t->v[j - 1].n += t->v[i].n;
            up_free(t->v[i].name);
        } else {
            t->v[j++] = t->v[i];
        }
    }
    t->n = j;
    t->total = total;
    *out = t;
    return UP_OK;
nomem:
    up_counts_free(t);
    up_free(v);
    return UP_ERR(err, UP_ENOMEM, "out of memory");
}

up_status up_counts_read(const char *path, up_counts **out, up_err *err)
{
    up_trace *t = NULL;
    tally c = {0};
    up_status st;
    size_t li;
    *out = NULL;
    if ((st = up_trace_open(path, &t, err)) != UP_OK)
        return st;
    c.d = up_trace_defs(t);
    if (c.d->nregions && !(c.n = up_calloc(c.d->nregions, sizeof *c.n))) {
        up_trace_close(t);
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    }
    /* per location too, for the threads' schedule, within PER_MAX */
    if (c.d->nlocs > 1 && c.d->nregions && c.d->nlocs <= PER_MAX / c.d->nregions &&
        !(c.per = up_calloc(c.d->nlocs * c.d->nregions, sizeof *c.per))) {
        up_free(c.n);
        up_trace_close(t);
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    }
    for (li = 0; li < c.d->nlocs && st == UP_OK; li++) {
        up_stream *s = up_trace_stream(t, li);
        c.loc = (uint32_t)li;
        while (!up_stream_at_end(s)) {
            size_t done = 0;
            if ((st = up_stream_direct(s, (size_t)1 << 20, on_record, on_region, &c, NULL, &done,
                                       err)) != UP_OK)
                break;
            /* every record is taken, so the stream either read some or ended */
            if (!done && !up_stream_at_end(s)) {
                st = UP_ERR(err, UP_EINTERNAL, "the stream of location %zu stopped", li);
                break;
            }
        }
    }
    if (st == UP_OK)
        st = table(&c, out, err);
    up_free(c.n);
    up_free(c.per);
    up_trace_close(t);
    return st;
}

/* ---- comparing -------------------------------------------------------------- */

/* |n - ref| > UP_COUNTS_TOL_PCT % of ref, without overflow: for whole
 * numbers, 100 d > p ref  <=>  d > floor(p ref / 100) */
static bool differs(uint64_t ref, uint64_t n)
{
    uint64_t d = n > ref ? n - ref : ref - n;
    if (ref < UP_COUNTS_FLOOR && n < UP_COUNTS_FLOOR)
        return false;
    return d > ref / 100 * UP_COUNTS_TOL_PCT + ref % 100 * UP_COUNTS_TOL_PCT / 100;
}

static double fabs_rel(const up_count_diff *x) { return fabs(x->rel); }

static int by_difference(const void *a, const void *b)
{
    const up_count_diff *x = a, *y = b;
    double rx = fabs_rel(x), ry = fabs_rel(y);
    uint64_t dx = x->n > x->ref ? x->n - x->ref : x->ref - x->n;
    uint64_t dy = y->n > y->ref ? y->n - y->ref : y->ref - y->n;
    if (rx != ry)
        return rx > ry ? -1 : 1;
    if (dx != dy)
        return dx > dy ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* The next region of either sorted table (a region missing from one has 0
 * records there); false after the last. */
static bool walk(const up_counts *ref, const up_counts *run, size_t *i, size_t *j,
                 const char **name, uint64_t *a, uint64_t *b)
{
    int c;
    if (*i == ref->n && *j == run->n)
        return false;
    c = *i == ref->n ? 1 : *j == run->n ? -1 : strcmp(ref->v[*i].name, run->v[*j].name);
    *name = c <= 0 ? ref->v[*i].name : run->v[*j].name;
    *a = c <= 0 ? ref->v[*i].n : 0;
    *b = c >= 0 ? run->v[*j].n : 0;
    *i += c <= 0;
    *j += c >= 0;
    return true;
}

up_status up_counts_compare(const up_counts *ref, const up_counts *run, up_count_diff **out,
                            size_t *n, up_err *err)
{
    size_t k = 0, bytes = 0, len, i = 0, j = 0;
    up_count_diff *v;
    const char *name;
    uint64_t a, b;
    char *names;
    *out = NULL;
    *n = 0;
    /* first the size: the entries, then their names */
    while (walk(ref, run, &i, &j, &name, &a, &b)) {
        if (!differs(a, b))
            continue;
        len = strlen(name) + 1;
        if (bytes > SIZE_MAX - len - sizeof *v)
            return UP_ERR(err, UP_ENOMEM, "out of memory");
        bytes += len + sizeof *v;
        k++;
    }
    if (!k)
        return UP_OK;
    if (!(v = up_malloc(bytes)))
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    names = (char *)(v + k);
    k = i = j = 0;
    while (walk(ref, run, &i, &j, &name, &a, &b)) {
        if (!differs(a, b))
            continue;
        len = strlen(name) + 1;
        memcpy(names, name, len);
        v[k].name = names;
        names += len;
        v[k].ref = a;
        v[k].n = b;
        v[k].rel = a ? ((double)b - (double)a) / (double)a : INFINITY;
        k++;
    }
    qsort(v, k, sizeof *v, by_difference);
    *out = v;
    *n = k;
    return UP_OK;
}
