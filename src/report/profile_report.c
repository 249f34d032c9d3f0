/*
 * profile_report.c - `unperturb report` as text and JSON (profile_report.h):
 * the Fig. 2 breakdown of two runs, wait states, call paths, communication
 * per peer.  (report.html is html.c.)
 *
 * Place in the data flow: last; reads up_profile / up_breakdown /
 * up_estimate, writes to a FILE or to a file written atomically.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/json.h"
#include "report/names.h"
#include "report/profile_report.h"

/* ---- breakdown (Wolf et al., Fig. 2) --------------------------------------- */

static void bd_add(up_breakdown_part *p, double a, double b)
{
    p->a_s += a;
    p->b_s += b;
}

/* One location's parts in one run: exec + mpi_other + waits = time. */
static void loc_parts(const up_profile *p, size_t i, double *time, double *exec, double *other,
                      double wait[UP_WS_COUNT])
{
    const up_profile_loc *l = &p->locs[i];
    uint64_t w = 0;
    unsigned k;
    for (k = 0; k < UP_WS_COUNT; k++) {
        wait[k] = up_profile_s(p, l->wait[k]);
        w += l->wait[k];
    }
    *time = up_profile_s(p, l->time);
    *exec = up_profile_s(p, l->time > l->mpi ? l->time - l->mpi : 0);
    /* waits lie inside MPI calls; a wait longer than the MPI time (clipping
     * at window edges) leaves no "not waiting" part */
    *other = up_profile_s(p, l->mpi > w ? l->mpi - w : 0);
}

up_status up_breakdown_make(const up_profile *a, const up_profile *b, up_breakdown *out,
                            up_err *err)
{
    size_t i, n = a->nlocs < b->nlocs ? a->nlocs : b->nlocs;
    unsigned k;
    memset(out, 0, sizeof *out);
    if (n && !(out->locs = up_calloc(n, sizeof *out->locs)))
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    out->nlocs = n;
    for (i = 0; i < n; i++) {
        double ta, ea, oa, wa[UP_WS_COUNT], tb, eb, ob, wb[UP_WS_COUNT];
        up_breakdown_loc *l = &out->locs[i];
        loc_parts(a, i, &ta, &ea, &oa, wa);
        loc_parts(b, i, &tb, &eb, &ob, wb);
        bd_add(&l->time, ta, tb);
        bd_add(&l->exec, ea, eb);
        bd_add(&l->mpi_other, oa, ob);
        bd_add(&out->total.time, ta, tb);
        bd_add(&out->total.exec, ea, eb);
        bd_add(&out->total.mpi_other, oa, ob);
        for (k = 0; k < UP_WS_COUNT; k++) {
            bd_add(&l->wait[k], wa[k], wb[k]);
            bd_add(&out->total.wait[k], wa[k], wb[k]);
        }
    }
    return UP_OK;
}

void up_breakdown_free(up_breakdown *bd)
{
    up_free(bd->locs);
    memset(bd, 0, sizeof *bd);
}

/* ---- locations by process ------------------------------------------------ */

uint32_t up_proc_of(const up_profile *p, size_t i)
{
    return p->locs[i].process != UP_NO_PROCESS ? p->locs[i].process : UINT32_MAX - (uint32_t)i;
}

size_t up_proc_size(const up_profile *p, size_t i)
{
    uint32_t pr = up_proc_of(p, i);
    size_t j, n = 0;
    for (j = 0; j < p->nlocs; j++)
        n += up_proc_of(p, j) == pr;
    return n;
}

bool up_report_grouped(const up_profile *p)
{
    size_t i;
    for (i = 1; i < p->nlocs; i++)
        if (p->locs[i].process != UP_NO_PROCESS && up_proc_size(p, i) > 1)
            return true;
    return false;
}

const char *up_proc_label(const up_profile *p, size_t i, char *buf, size_t cap)
{
    const up_profile_loc *l = &p->locs[i];
    size_t j;
    if (l->rank == UP_NO_RANK) /* the rank of another location of the process */
        for (j = 0; j < p->nlocs; j++)
            if (p->locs[j].rank != UP_NO_RANK && l->process != UP_NO_PROCESS &&
                p->locs[j].process == l->process) {
                l = &p->locs[j];
                break;
            }
    if (l->rank != UP_NO_RANK)
        snprintf(buf, cap, "rank %ld", l->rank);
    else if (l->process != UP_NO_PROCESS)
        snprintf(buf, cap, "process %u", (unsigned)l->process);
    else /* at most 40 bytes, escaped for the terminal */
        up_text_escape(buf, cap < 41 ? cap : 41, l->name ? l->name : "?", 0);
    return buf;
}

typedef struct gkey {
    size_t proc_pos, pos;
    uint32_t i;
} gkey;

static int cmp_gkey(const void *x, const void *y)
{
    const gkey *a = x, *b = y;
    if (a->proc_pos != b->proc_pos)
        return a->proc_pos < b->proc_pos ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

up_status up_report_group_by_proc(const up_profile *p, uint32_t *idx, size_t n, up_err *err)
{
    gkey *g;
    up_map first;
    size_t k;
    if (!n)
        return UP_OK;
    if (!(g = up_calloc(n, sizeof *g)))
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    up_map_init(&first);
    for (k = 0; k < n; k++) {
        uint32_t pr = up_proc_of(p, idx[k]);
        uint64_t *v = up_map_get(&first, pr, 0);
        if (!v && !up_map_put(&first, pr, 0, k)) {
            up_map_free(&first);
            up_free(g);
            return UP_ERR(err, UP_ENOMEM, "out of memory");
        }
        g[k].proc_pos = v ? (size_t)*v : k;
        g[k].pos = k;
        g[k].i = idx[k];
    }
    qsort(g, n, sizeof *g, cmp_gkey);
    for (k = 0; k < n; k++)
        idx[k] = g[k].i;
    up_map_free(&first);
    up_free(g);
    return UP_OK;
}

/* ---- text ---------------------------------------------------------------- */

static double run_s(const up_profile *p) { return up_profile_s(p, p->end > p->start ? p->end - p->start : 0); }

static const char *loc_label(const up_profile_loc *l, char *buf, size_t cap)
{
    if (l->rank != UP_NO_RANK)
        snprintf(buf, cap, "rank %ld", l->rank);
    else /* at most 40 bytes, escaped for the terminal */
        up_text_escape(buf, cap < 41 ? cap : 41, l->name ? l->name : "?", 0);
    return buf;
}

static void path_text(const up_profile *p, uint32_t i, char *buf, size_t cap)
{
    uint32_t chain[64];
    unsigned n = 0;
    size_t len = 0;
    while (i != UP_CP_ROOT && n < 64) {
        chain[n++] = i;
        i = p->cpaths[i].parent;
    }
    buf[0] = 0;
    while (n-- && len + 1 < cap) {
        char name[256]; /* escaped for the terminal, a long one cut */
        int w = snprintf(buf + len, cap - len, "%s%s", len ? " > " : "",
                         up_text_escape(name, sizeof name, p->cpaths[chain[n]].name, 0));
        if (w < 0)
            break;
        len += (size_t)w < cap - len ? (size_t)w : cap - len - 1;
    }
}

/* share: of the total difference, shown only when that is at least 1% of
 * the measured time (else the shares of parts that cancel are meaningless) */
static void part_row(FILE *f, const char *name, const up_breakdown_part *p, const up_breakdown_part *total)
{
    double d = p->a_s - p->b_s, dt = total->a_s - total->b_s;
    fprintf(f, "  %-22s %12.6f %12.6f %12.6f", name, p->a_s, p->b_s, d);
    if (fabs(dt) >= 0.01 * total->a_s && dt != 0)
        fprintf(f, " %7.1f%%", 100.0 * d / dt);
    else
        fprintf(f, " %8s", "-");
    fprintf(f, " %7.1f%%\n", total->a_s > 0 ? 100.0 * d / total->a_s : 0.0);
}

typedef struct ranked {
    double key;
    size_t i;
    unsigned k;
} ranked;

static int cmp_ranked(const void *x, const void *y)
{
    const ranked *a = x, *b = y;
    return a->key < b->key ? 1 : a->key > b->key ? -1 : (a->i > b->i) - (a->i < b->i);
}

/* A location's own name under its process, escaped for the terminal. */
static const char *sub_label(const up_profile_loc *l, char *buf, size_t cap)
{
    buf[0] = buf[1] = ' ';
    up_text_escape(buf + 2, cap - 2 < 41 ? cap - 2 : 41, l->name && *l->name ? l->name : "?", 0);
    return buf;
}

/* Wait states by (pattern, process), each process with several locations
 * followed by its locations that waited. */
static void waits_grouped(FILE *f, const up_html_input *in, size_t top)
{
    const up_profile *a = in->a, *b = in->b;
    size_t n = a->nlocs * UP_WS_COUNT, m = 0, i, j;
    ranked *r;
    char lab[64];
    unsigned k;
    if (!(r = up_calloc(n ? n : 1, sizeof *r)))
        return;
    for (k = 0; k < UP_WS_COUNT; k++)
        for (i = 0; i < a->nlocs; i++) {
            uint32_t pr = up_proc_of(a, i);
            uint64_t sa = 0, sb = 0;
            for (j = 0; j < i && up_proc_of(a, j) != pr; j++)
                ;
            if (j < i) /* not the process's first location */
                continue;
            for (j = i; j < a->nlocs; j++)
                if (up_proc_of(a, j) == pr) {
                    sa += a->locs[j].wait[k];
                    sb += b && j < b->nlocs ? b->locs[j].wait[k] : 0;
                }
            if (sa || sb) {
                r[m].key = up_profile_s(a, sa);
                r[m].i = i;
                r[m++].k = k;
            }
        }
    qsort(r, m, sizeof *r, cmp_ranked);
    if (m) {
        fprintf(f, "\nWait states by process and location (largest %zu of %zu)\n", m < top ? m : top, m);
        fprintf(f, "  %-18s %-12s %12s", "pattern", "location", in->label_a);
        if (b)
            fprintf(f, " %12s", in->label_b);
        fputc('\n', f);
    }
    for (i = 0; i < m && i < top; i++) {
        uint32_t pr = up_proc_of(a, r[i].i);
        bool many = up_proc_size(a, r[i].i) > 1;
        uint64_t sb = 0;
        for (j = 0; j < a->nlocs && b; j++)
            if (up_proc_of(a, j) == pr && j < b->nlocs)
                sb += b->locs[j].wait[r[i].k];
        fprintf(f, "  %-18s %-12s %12.6f", up_pattern_title(r[i].k),
                many ? up_proc_label(a, r[i].i, lab, sizeof lab) : loc_label(&a->locs[r[i].i], lab, sizeof lab),
                r[i].key);
        if (b)
            fprintf(f, " %12.6f", up_profile_s(b, sb));
        fputc('\n', f);
        for (j = 0; many && j < a->nlocs; j++) {
            uint64_t wa, wb;
            if (up_proc_of(a, j) != pr)
                continue;
            wa = a->locs[j].wait[r[i].k];
            wb = b && j < b->nlocs ? b->locs[j].wait[r[i].k] : 0;
            if (!wa && !wb)
                continue;
            fprintf(f, "  %-18s %-12s %12.6f", "", sub_label(&a->locs[j], lab, sizeof lab),
                    up_profile_s(a, wa));
            if (b)
                fprintf(f, " %12.6f", up_profile_s(b, wb));
            fputc('\n', f);
        }
    }
    up_free(r);
}

/* One run's hybrid figures per location, by process. */
static void hybrid_locs(FILE *f, const up_profile *p, const up_hybrid *h, const char *label)
{
    uint32_t *idx;
    size_t i, j, n = h->nlocs < p->nlocs ? h->nlocs : p->nlocs;
    char lab[64];
    unsigned k;
    if (!(idx = up_calloc(n ? n : 1, sizeof *idx)))
        return;
    for (i = 0; i < n; i++)
        idx[i] = (uint32_t)i;
    if (up_report_group_by_proc(p, idx, n, &(up_err){0}) != UP_OK) {
        up_free(idx);
        return;
    }
    fprintf(f, "\nHybrid by process and location, %s (seconds)\n", label);
    fprintf(f, "  %-24s %11s %11s %11s %11s %11s %11s %11s\n", "location", "omp barrier", "lock",
            "idle", "fork", "join", "host wait", "device idle");
    for (i = 0; i < n; i++) {
        size_t l = idx[i];
        uint32_t pr = up_proc_of(p, l);
        bool many = up_proc_size(p, l) > 1;
        if (many && (i == 0 || up_proc_of(p, idx[i - 1]) != pr)) { /* the process's line */
            uint64_t sum[UP_HY_COUNT] = {0};
            for (j = 0; j < n; j++)
                if (up_proc_of(p, j) == pr)
                    for (k = 0; k < UP_HY_COUNT; k++)
                        sum[k] += h->locs[j].t[k];
            fprintf(f, "  %-24s", up_proc_label(p, l, lab, sizeof lab));
            for (k = 0; k < UP_HY_COUNT; k++)
                fprintf(f, " %11.6f", up_hybrid_s(h, sum[k]));
            fputc('\n', f);
        }
        fprintf(f, "  %-24s", many ? sub_label(&p->locs[l], lab, sizeof lab)
                                   : loc_label(&p->locs[l], lab, sizeof lab));
        for (k = 0; k < UP_HY_COUNT; k++)
            fprintf(f, " %11.6f", up_hybrid_s(h, h->locs[l].t[k]));
        fputc('\n', f);
    }
    up_free(idx);
}

/* The section "Hybrid": only for traces of threads or devices. */
static void hybrid_text(FILE *f, const up_html_input *in)
{
    const up_hybrid *ha = in->hy_a, *hb = in->hy_b;
    unsigned k;
    if (!ha)
        return;
    fprintf(f, "\nHybrid: threads and devices (seconds summed over locations; %u threads besides "
               "the masters, %u accelerator streams)\n",
            ha->nthreads, ha->ndevices);
    fprintf(f, "  %-26s %12s", "", in->label_a);
    if (hb)
        fprintf(f, " %12s %12s", in->label_b, "difference");
    fprintf(f, "  %s\n", "count");
    for (k = 0; k < UP_HY_COUNT; k++) {
        double va = up_hybrid_s(ha, ha->t[k]);
        fprintf(f, "  %-26s %12.6f", up_hy_title(k), va);
        if (hb)
            fprintf(f, " %12.6f %12.6f", up_hybrid_s(hb, hb->t[k]), va - up_hybrid_s(hb, hb->t[k]));
        switch (k) {
        case UP_HY_OMP_BARRIER:
            fprintf(f, "  %llu barrier instances\n", (unsigned long long)ha->barriers);
            break;
        case UP_HY_LOCK:
            fprintf(f, "  %llu of %llu acquisitions contended", (unsigned long long)ha->n[k],
                    (unsigned long long)ha->acquisitions);
            if (hb)
                fprintf(f, " (%s: %llu)", in->label_b, (unsigned long long)hb->n[k]);
            fputc('\n', f);
            break;
        case UP_HY_FORK:
            fprintf(f, "  %llu forks\n", (unsigned long long)ha->n[k]);
            break;
        case UP_HY_JOIN:
            fprintf(f, "  %llu joins\n", (unsigned long long)ha->n[k]);
            break;
        case UP_HY_HOST_WAIT:
            fprintf(f, "  %llu calls\n", (unsigned long long)ha->n[k]);
            break;
        default:
            fputc('\n', f);
        }
    }
    hybrid_locs(f, in->a, ha, in->label_a);
    if (hb && in->b)
        hybrid_locs(f, in->b, hb, in->label_b);
}

void up_report_profile_text(FILE *f, const up_html_input *in)
{
    const up_profile *a = in->a, *b = in->b;
    size_t top = in->top ? in->top : 15, i, n;
    unsigned k;
    char lab[64], path[512];
    ranked *r;

    fprintf(f, "unperturb report: %s (%s)", in->path_a, in->label_a);
    if (b)
        fprintf(f, " vs %s (%s)", in->path_b, in->label_b);
    fputc('\n', f);
    fprintf(f, "  window       %s\n",
            a->window_marked ? UP_WINDOW_TEXT_MARKED
                             : "first .. last record over all locations");
    if (b) {
        double ta = run_s(a), tb = run_s(b);
        fprintf(f, "  run time     %.6f s %s, %.6f s %s (%+.1f%%)\n", ta, in->label_a, tb,
                in->label_b, ta > 0 ? 100.0 * (tb - ta) / ta : 0.0);
    } else {
        fprintf(f, "  run time     %.6f s\n", run_s(a));
    }
    fprintf(f, "  locations    %zu, %llu records\n", a->nlocs, (unsigned long long)a->events);
    for (k = 0; k < UP_REPAIR_COUNT; k++)
        if (a->repairs[k] && up_repair_is_fix(k))
            fprintf(f, "  repaired     %llu %s\n", (unsigned long long)a->repairs[k], up_repair_text(k));

    if (in->bd) {
        const up_breakdown_loc *t = &in->bd->total;
        fprintf(f, "\nWhere the time went (seconds summed over locations; Wolf et al. Fig. 2)\n");
        fprintf(f, "  %-22s %12s %12s %12s %8s %8s\n", "", in->label_a, in->label_b, "difference",
                "of diff", "of time");
        part_row(f, "execution", &t->exec, &t->time);
        part_row(f, "MPI, not waiting", &t->mpi_other, &t->time);
        for (k = 0; k < UP_WS_COUNT; k++)
            if (t->wait[k].a_s > 0 || t->wait[k].b_s > 0)
                part_row(f, up_pattern_title(k), &t->wait[k], &t->time);
        part_row(f, "total", &t->time, &t->time);
    } else {
        fprintf(f, "\nWait states (seconds summed over locations)\n");
        for (k = 0; k < UP_WS_COUNT; k++)
            fprintf(f, "  %-22s %12.6f\n", up_pattern_title(k), up_profile_s(a, up_profile_wait_total(a, k)));
    }

    /* wait states by location, largest first (by process when a process has
     * several locations) */
    n = a->nlocs * UP_WS_COUNT;
    if (up_report_grouped(a))
        waits_grouped(f, in, top);
    else if ((r = up_calloc(n ? n : 1, sizeof *r))) {
            size_t m = 0;
            for (i = 0; i < a->nlocs; i++)
                for (k = 0; k < UP_WS_COUNT; k++)
                    if (a->locs[i].wait[k] || (b && i < b->nlocs && b->locs[i].wait[k])) {
                        r[m].key = up_profile_s(a, a->locs[i].wait[k]);
                        r[m].i = i;
                        r[m++].k = k;
                    }
            qsort(r, m, sizeof *r, cmp_ranked);
            if (m) {
                fprintf(f, "\nWait states by location (largest %zu of %zu)\n", m < top ? m : top, m);
                fprintf(f, "  %-18s %-12s %12s", "pattern", "location", in->label_a);
                if (b)
                    fprintf(f, " %12s", in->label_b);
                fputc('\n', f);
                for (i = 0; i < m && i < top; i++) {
                    fprintf(f, "  %-18s %-12s %12.6f", up_pattern_title(r[i].k),
                            loc_label(&a->locs[r[i].i], lab, sizeof lab), r[i].key);
                    if (b && r[i].i < b->nlocs)
                        fprintf(f, " %12.6f", up_profile_s(b, b->locs[r[i].i].wait[r[i].k]));
                    fputc('\n', f);
                }
            }
            up_free(r);
        }

    hybrid_text(f, in);

    /* call paths by inclusive time */
    if ((r = up_calloc(a->ncpaths ? a->ncpaths : 1, sizeof *r))) {
        for (i = 0; i < a->ncpaths; i++) {
            r[i].key = (double)a->cpaths[i].incl;
            r[i].i = i;
        }
        qsort(r, a->ncpaths, sizeof *r, cmp_ranked);
        fprintf(f, "\nCall paths (largest %zu of %zu by inclusive time, summed over locations)\n",
                a->ncpaths < top ? a->ncpaths : top, a->ncpaths);
        fprintf(f, "  %10s %12s %12s %12s%s  %s\n", "visits", "incl s", "excl s", "wait s",
                b ? "  incl s (b)" : "", "call path");
        for (i = 0; i < a->ncpaths && i < top; i++) {
            const up_cpath *c = &a->cpaths[r[i].i];
            uint64_t w = 0;
            for (k = 0; k < UP_WS_COUNT; k++)
                w += c->wait[k];
            path_text(a, (uint32_t)r[i].i, path, sizeof path);
            fprintf(f, "  %10llu %12.6f %12.6f %12.6f", (unsigned long long)c->visits,
                    up_profile_s(a, c->incl), up_profile_s(a, c->excl), up_profile_s(a, w));
            if (b) {
                uint32_t j = up_profile_match(a, (uint32_t)r[i].i, b);
                if (j != UP_CP_ROOT)
                    fprintf(f, " %12.6f", up_profile_s(b, b->cpaths[j].incl));
                else
                    fprintf(f, " %12s", "-");
            }
            fprintf(f, "  %s\n", path);
        }
        up_free(r);
    }

    /* communication statements by bytes */
    if (a->ncomm && (r = up_calloc(a->ncomm, sizeof *r))) {
        for (i = 0; i < a->ncomm; i++) {
            r[i].key = (double)(a->comm[i].bytes_sent + a->comm[i].bytes_recvd);
            r[i].i = i;
        }
        qsort(r, a->ncomm, sizeof *r, cmp_ranked);
        fprintf(f, "\nCommunication per statement and peer (largest %zu of %zu by bytes)\n",
                a->ncomm < top ? a->ncomm : top, a->ncomm);
        fprintf(f, "  %-10s %6s %8s %12s %8s %12s %12s %12s  %s\n", "location", "peer", "sends",
                "bytes", "recvs", "bytes", "transfer s", "delay s", "call path");
        for (i = 0; i < a->ncomm && i < top; i++) {
            const up_comm *c = &a->comm[r[i].i];
            path_text(a, c->cpath, path, sizeof path);
            fprintf(f, "  %-10s %6ld %8llu %12llu %8llu %12llu %12.6f %12.6f  %s\n",
                    loc_label(&a->locs[c->loc], lab, sizeof lab), c->peer,
                    (unsigned long long)c->sends, (unsigned long long)c->bytes_sent,
                    (unsigned long long)c->recvs, (unsigned long long)c->bytes_recvd,
                    up_profile_s(a, c->transfer), up_profile_s(a, c->delay), path);
        }
        up_free(r);
    }

    if (in->est) {
        const up_estimate *e = in->est;
        double tb = b ? run_s(b) : NAN;
        fprintf(f, "\nTime-based estimates of %s (Malony & Reed, Section 3)%s\n", in->label_a,
                b ? "; error against the replay's T_a" : "");
        for (k = 0; k < UP_ESTIMATE_COUNT; k++) {
            double ta = e->model[k].approximated_s;
            fprintf(f, "  %-6s %-28s T_a %12.6f s", up_estimate_model_section(k), up_estimate_model_title(k), ta);
            if (b && tb > 0)
                fprintf(f, "  error %6.2f%%", 100.0 * fabs(ta - tb) / tb);
            fputc('\n', f);
        }
        for (k = 0; k < UP_ESTIMATE_COUNT; k++)
            if (e->model[k].approximated_s < 0) {
                fputs(UP_ESTIMATE_NEGATIVE_NOTE "\n", f);
                break;
            }
    }
}

/* ---- JSON ---------------------------------------------------------------- */

static json_t *parts_json(const up_breakdown_loc *l)
{
    json_t *o = json_object();
    unsigned k;
#define PART(name, p) \
    json_object_set_new(o, name, json_pack("{s:f,s:f,s:f}", "measured_s", (p).a_s, "compensated_s", \
                                           (p).b_s, "difference_s", (p).a_s - (p).b_s))
    PART("time", l->time);
    PART("execution", l->exec);
    PART("mpi_not_waiting", l->mpi_other);
    for (k = 0; k < UP_WS_COUNT; k++)
        PART(up_pattern_name(k), l->wait[k]);
#undef PART
    return o;
}

static json_t *waits_json(const up_profile *p, const uint64_t *w)
{
    json_t *o = json_object();
    unsigned k;
    for (k = 0; k < UP_WS_COUNT; k++)
        json_object_set_new(o, up_pattern_name(k), json_real(up_profile_s(p, w[k])));
    return o;
}

static json_t *run_json(const up_profile *p, const char *path, const char *label)
{
    json_t *o = json_object(), *locs = json_array(), *rep = json_object();
    size_t i;
    unsigned k;
    json_object_set_new(o, "path", up_report_json_text(path));
    json_object_set_new(o, "label", up_report_json_text(label));
    json_object_set_new(o, "run_time_s", json_real(run_s(p)));
    json_object_set_new(o, "window_marked", json_boolean(p->window_marked));
    json_object_set_new(o, "events", json_integer((json_int_t)p->events));
    for (k = 0; k < UP_REPAIR_COUNT; k++)
        if (p->repairs[k])
            json_object_set_new(rep, up_repair_name(k), json_integer((json_int_t)p->repairs[k]));
    json_object_set_new(o, "repairs", rep);
    for (i = 0; i < p->nlocs; i++) {
        const up_profile_loc *l = &p->locs[i];
        json_array_append_new(
            locs, json_pack("{s:I,s:o,s:o,s:f,s:f,s:o,s:I}", "location", (json_int_t)l->id,
                            "rank", up_report_json_rank(l->rank), "name", up_report_json_name(l->name),
                            "time_s", up_profile_s(p, l->time), "mpi_s", up_profile_s(p, l->mpi),
                            "wait_s", waits_json(p, l->wait), "records", (json_int_t)l->records));
    }
    json_object_set_new(o, "per_location", locs);
    return o;
}

static json_t *cpaths_json(const up_profile *a, const up_profile *b)
{
    json_t *arr = json_array();
    size_t i, c = 0, m = 0;
    for (i = 0; i < a->ncpaths; i++) {
        const up_cpath *cp = &a->cpaths[i];
        json_t *o = json_pack("{s:I,s:o,s:o,s:I,s:b,s:I,s:f,s:f,s:o,s:I}", "id", (json_int_t)i,
                              "parent", cp->parent == UP_CP_ROOT ? json_null() : json_integer(cp->parent),
                              "name", up_report_json_name(cp->name), "depth", (json_int_t)cp->depth, "mpi", cp->mpi,
                              "visits", (json_int_t)cp->visits, "inclusive_s",
                              up_profile_s(a, cp->incl), "exclusive_s", up_profile_s(a, cp->excl),
                              "wait_s", waits_json(a, cp->wait), "locations", (json_int_t)cp->nlocs);
        json_t *locs = json_array(), *comm = json_array();
        for (; c < a->ncl && a->cl[c].cpath < i; c++)
            ;
        for (; c < a->ncl && a->cl[c].cpath == i; c++) {
            const up_cpath_loc *e = &a->cl[c];
            json_array_append_new(locs, json_pack("{s:I,s:I,s:f,s:f,s:o}", "location",
                                                  (json_int_t)a->locs[e->loc].id, "visits",
                                                  (json_int_t)e->visits, "inclusive_s",
                                                  up_profile_s(a, e->incl), "exclusive_s",
                                                  up_profile_s(a, e->excl), "wait_s",
                                                  waits_json(a, e->wait)));
        }
        for (; m < a->ncomm && a->comm[m].cpath < i; m++)
            ;
        for (; m < a->ncomm && a->comm[m].cpath == i; m++) {
            const up_comm *e = &a->comm[m];
            json_array_append_new(
                comm, json_pack("{s:I,s:o,s:I,s:I,s:I,s:I,s:f,s:f}", "location",
                                (json_int_t)a->locs[e->loc].id, "peer_rank", up_report_json_rank(e->peer),
                                "sends", (json_int_t)e->sends, "bytes_sent",
                                (json_int_t)e->bytes_sent, "recvs", (json_int_t)e->recvs,
                                "bytes_received", (json_int_t)e->bytes_recvd, "transfer_s",
                                up_profile_s(a, e->transfer), "delay_s", up_profile_s(a, e->delay)));
        }
        json_object_set_new(o, "per_location", locs);
        json_object_set_new(o, "communication", comm);
        if (b) {
            uint32_t j = up_profile_match(a, (uint32_t)i, b);
            json_object_set_new(o, "compensated",
                                j == UP_CP_ROOT ? json_null()
                                                : json_pack("{s:I,s:f,s:f,s:o}", "visits",
                                                            (json_int_t)b->cpaths[j].visits,
                                                            "inclusive_s", up_profile_s(b, b->cpaths[j].incl),
                                                            "exclusive_s", up_profile_s(b, b->cpaths[j].excl),
                                                            "wait_s", waits_json(b, b->cpaths[j].wait)));
        }
        json_array_append_new(arr, o);
    }
    return arr;
}

static const char *const role_names[] = {"master", "thread", "device", "other"};

/* One figure of both runs: {measured_s, compensated_s[, counts]} */
static json_t *hy_pair(const up_hybrid *ha, const up_hybrid *hb, uint64_t ta, uint64_t tb,
                       bool count, uint64_t na, uint64_t nb)
{
    json_t *o = json_object();
    json_object_set_new(o, "measured_s", json_real(up_hybrid_s(ha, ta)));
    if (hb)
        json_object_set_new(o, "compensated_s", json_real(up_hybrid_s(hb, tb)));
    if (count) {
        json_object_set_new(o, "measured_count", json_integer((json_int_t)na));
        if (hb)
            json_object_set_new(o, "compensated_count", json_integer((json_int_t)nb));
    }
    return o;
}

static json_t *hybrid_json(const up_html_input *in)
{
    const up_hybrid *ha = in->hy_a, *hb = in->hy_b;
    const up_profile *a = in->a;
    json_t *o = json_object(), *tot = json_object(), *locs = json_array();
    size_t i;
    unsigned k;
    json_object_set_new(o, "threads", json_integer(ha->nthreads));
    json_object_set_new(o, "devices", json_integer(ha->ndevices));
    json_object_set_new(o, "lock_acquisitions", json_integer((json_int_t)ha->acquisitions));
    json_object_set_new(o, "barrier_instances", json_integer((json_int_t)ha->barriers));
    for (k = 0; k < UP_HY_COUNT; k++)
        json_object_set_new(tot, up_hy_name(k),
                            hy_pair(ha, hb, ha->t[k], hb ? hb->t[k] : 0,
                                    k != UP_HY_IDLE && k != UP_HY_DEVICE_IDLE, ha->n[k],
                                    hb ? hb->n[k] : 0));
    json_object_set_new(o, "total", tot);
    for (i = 0; i < ha->nlocs && i < a->nlocs; i++) {
        const up_profile_loc *l = &a->locs[i];
        const up_hybrid_loc *w = &ha->locs[i];
        const up_hybrid_loc *wb = hb && i < hb->nlocs ? &hb->locs[i] : NULL;
        json_t *e = up_report_json_loc(locs, l->id, l->rank, l->name);
        if (!e)
            break;
        json_object_set_new(e, "process", l->process != UP_NO_PROCESS ? json_integer(l->process) : json_null());
        json_object_set_new(e, "role", json_string(role_names[w->role]));
        json_object_set_new(e, "window_s", json_real(up_hybrid_s(ha, w->win_end > w->win_start ? w->win_end - w->win_start : 0)));
        for (k = 0; k < UP_HY_COUNT; k++)
            json_object_set_new(e, up_hy_name(k),
                                hy_pair(ha, wb ? hb : NULL, w->t[k], wb ? wb->t[k] : 0,
                                        k != UP_HY_IDLE && k != UP_HY_DEVICE_IDLE, w->n[k],
                                        wb ? wb->n[k] : 0));
    }
    json_object_set_new(o, "per_location", locs);
    return o;
}

up_status up_report_json(const char *path, const up_html_input *in, up_err *err)
{
    const up_profile *a = in->a, *b = in->b;
    json_t *root = json_object(), *ws = json_array();
    size_t i;
    unsigned k;
    up_status st;

    json_object_set_new(root, "measured", run_json(a, in->path_a, in->label_a));
    if (b)
        json_object_set_new(root, "compensated", run_json(b, in->path_b, in->label_b));
    /* per pattern and location: measured and compensated seconds */
    for (k = 0; k < UP_WS_COUNT; k++)
        for (i = 0; i < a->nlocs; i++) {
            const up_profile_loc *l = &a->locs[i];
            json_t *o = json_pack("{s:s,s:s,s:I,s:o,s:o,s:f}", "pattern", up_pattern_name(k),
                                  "title", up_pattern_title(k), "location", (json_int_t)l->id,
                                  "rank", up_report_json_rank(l->rank), "name", up_report_json_name(l->name),
                                  "measured_s", up_profile_s(a, l->wait[k]));
            if (b)
                json_object_set_new(o, "compensated_s",
                                    i < b->nlocs ? json_real(up_profile_s(b, b->locs[i].wait[k])) : json_null());
            json_array_append_new(ws, o);
        }
    json_object_set_new(root, "wait_states", ws);
    if (in->bd) {
        json_t *bd = json_object(), *locs = json_array();
        json_object_set_new(bd, "total", parts_json(&in->bd->total));
        for (i = 0; i < in->bd->nlocs; i++) {
            json_t *o = parts_json(&in->bd->locs[i]);
            json_object_set_new(o, "location", json_integer((json_int_t)a->locs[i].id));
            json_object_set_new(o, "rank", up_report_json_rank(a->locs[i].rank));
            json_array_append_new(locs, o);
        }
        json_object_set_new(bd, "per_location", locs);
        json_object_set_new(root, "breakdown", bd);
    }
    json_object_set_new(root, "callpaths", cpaths_json(a, b));
    if (in->hy_a)
        json_object_set_new(root, "hybrid", hybrid_json(in));
    if (in->est) {
        json_t *e = json_array();
        double tb = b ? run_s(b) : NAN;
        for (k = 0; k < UP_ESTIMATE_COUNT; k++) {
            double ta = in->est->model[k].approximated_s;
            json_array_append_new(e, json_pack("{s:s,s:s,s:f,s:f,s:o}", "model", up_estimate_model_name(k),
                                               "section", up_estimate_model_section(k), "approximated_s", ta,
                                               "dp_s", in->est->model[k].dp_s, "error_vs_replay",
                                               b && tb > 0 ? json_real(fabs(ta - tb) / tb) : json_null()));
        }
        json_object_set_new(root, "estimates", e);
    }
    st = up_report_json_write(root, JSON_INDENT(1) | JSON_REAL_PRECISION(12), path, err);
    json_decref(root);
    return st;
}
