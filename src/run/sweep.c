/*
 * sweep.c - the values of a sweep KEY=FROM:TO:STEP, and the order and
 * speedups of a scaling experiment (simrun.h; docs/simulate.md).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/simrun.h"

/* The name of a key without its section ("network.latency_ns"). */
static const char *key_name(const char *key)
{
    const char *dot = strrchr(key, '.');
    return dot ? dot + 1 : key;
}

/* One of FROM, TO and STEP (what) of a sweep: a decimal number in r
 * (up_num_parse); false with the message in err. */
static bool sweep_num(const char *arg, const char *what, const char *s, const up_range *r, double *v,
                      up_err *err)
{
    char why[256];
    if (up_num_parse(s, r, v, why, sizeof why))
        return true;
    UP_ERR(err, UP_EUSAGE, "--sweep '%s': %s %s: %s", up_esc(arg), what, up_esc(s), why);
    return false;
}

static up_status sweep_parse(const char *arg, const up_machine *m, up_sweep *s, up_err *err)
{
    const char *eq = strchr(arg, '=');
    const up_range *r;
    char *c1, *c2, buf[192];
    double tol, q;
    size_t k, n;
    up_machine t;
    up_range rstep;
    up_err e2 = {0};

    memset(s, 0, sizeof *s);
    s->spec = arg;
    if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof s->key)
        return UP_ERR(err, UP_EUSAGE, "--sweep '%s': expected KEY=FROM:TO:STEP, e.g. latency_ns=1000:10000:1000",
                      up_esc(arg));
    memcpy(s->key, arg, (size_t)(eq - arg));
    s->key[eq - arg] = 0;
    s->name = key_name(s->key);
    snprintf(buf, sizeof buf, "%s", eq + 1);
    if (!(c1 = strchr(buf, ':')) || !(c2 = strchr(c1 + 1, ':')) || strchr(c2 + 1, ':'))
        return UP_ERR(err, UP_EUSAGE, "--sweep '%s': expected KEY=FROM:TO:STEP (three numbers separated by ':')",
                      up_esc(arg));
    *c1 = *c2 = 0;
    if (!(r = up_machine_range(s->key)))
        return UP_ERR(err, UP_EUSAGE, "--sweep '%s': '%s' is not a numeric machine parameter (docs/machine.md "
                      "lists them; names, booleans and dims cannot be swept)", up_esc(arg), up_esc(s->key));
    /* FROM and TO in the key's range, STEP up to its width: decimal numbers
     * (up_num_parse, no hex, inf or nan), so that no value below can
     * overflow; a value outside the range names the key, as before */
    {
        char why[256];
        const char *sv[2] = {buf, c1 + 1};
        double *dv[2] = {&s->from, &s->to};
        for (k = 0; k < 2; k++)
            if (!up_num_parse(sv[k], r, dv[k], why, sizeof why))
                return UP_ERR(err, UP_EUSAGE, "--sweep '%s': %s = %s: %s", up_esc(arg), s->name,
                              up_esc(sv[k]), why);
    }
    rstep = *r;
    rstep.lo = 0;
    rstep.hi = r->hi - r->lo;
    if (!sweep_num(arg, "STEP", c2 + 1, &rstep, &s->step, err))
        return UP_EUSAGE;
    if (!(s->step > 0))
        return UP_ERR(err, UP_EUSAGE, "--sweep '%s': STEP must be greater than 0", up_esc(arg));
    if (s->from > s->to)
        return UP_ERR(err, UP_EUSAGE, "--sweep '%s': FROM is greater than TO", up_esc(arg));
    /* value k is FROM + k*STEP (no accumulation); TO counts within 1e-9
     * (of a STEP no longer than the range: FROM stays FROM) */
    tol = 1e-9 * fmax(fabs(s->to), fmin(s->step, s->to - s->from));
    q = (s->to - s->from) / s->step;
    if (!(q < UP_SWEEP_MAX + 1.0))
        return UP_ERR(err, UP_EUSAGE, "--sweep '%s': more than %d values", up_esc(arg), UP_SWEEP_MAX);
    for (n = 0, k = 0;; k++) {
        double v = s->from + (double)k * s->step;
        if (v > s->to + tol)
            break;
        if (fabs(v - s->to) <= tol)
            v = s->to;
        if (n == UP_SWEEP_MAX)
            return UP_ERR(err, UP_EUSAGE, "--sweep '%s': more than %d values", up_esc(arg), UP_SWEEP_MAX);
        s->v[n++] = v;
    }
    s->n = n;
    for (k = 0; k < n; k++) {
        t = *m;
        if (up_machine_set_num(&t, s->key, s->v[k], &e2) != UP_OK)
            return UP_ERR(err, UP_EUSAGE, "--sweep '%.100s': %.500s", up_esc(arg), e2.msg);
    }
    return UP_OK;
}

up_status up_sweep_parse(const char *arg, const up_machine *m, up_sweep *s, up_err *err)
{
    up_status st = sweep_parse(arg, m, s, err);
    if (st != UP_OK && strlen(err->msg) > 699)
        err->msg[699] = 0; /* the length the command's message always had */
    return st;
}

/* ---- scaling ---------------------------------------------------------------------- */

up_status up_scaling_alloc(up_scaling_result *r, size_t ni, size_t nv, up_err *err)
{
    memset(r, 0, sizeof *r);
    r->ni = ni, r->nv = nv;
    if (!(r->pt = calloc(nv * ni, sizeof *r->pt)) || !(r->ord = calloc(ni, sizeof *r->ord)) ||
        !(r->x = calloc(ni, sizeof *r->x)) || !(r->meas = calloc(ni, sizeof *r->meas)) ||
        !(r->mspeed = calloc(ni, sizeof *r->mspeed)) || !(r->ts = calloc(nv * ni, sizeof *r->ts)) ||
        !(r->sp = calloc(nv * ni, sizeof *r->sp)) || !(r->eff = calloc(nv * ni, sizeof *r->eff))) {
        up_scaling_result_free(r);
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    }
    return UP_OK;
}

void up_scaling_result_free(up_scaling_result *r)
{
    free(r->pt);
    free(r->ord);
    free(r->x);
    free(r->meas);
    free(r->mspeed);
    free(r->ts);
    free(r->sp);
    free(r->eff);
    memset(r, 0, sizeof *r);
}

up_status up_scaling_order(const up_sim_point *row, size_t ni, const char *const *inputs, size_t *ord,
                           up_err *err)
{
    size_t i;
    for (i = 0; i < ni; i++) { /* insertion: stable for equal counts */
        size_t p = i;
        while (p > 0 && row[ord[p - 1]].nranks > row[i].nranks) {
            ord[p] = ord[p - 1];
            p--;
        }
        ord[p] = i;
    }
    for (i = 1; i < ni; i++)
        if (row[ord[i]].nranks == row[ord[i - 1]].nranks)
            return UP_ERR(err, UP_EFORMAT, "'%s' and '%s' both have %ld ranks: scaling takes one run per "
                          "rank count", inputs[ord[i - 1]], inputs[ord[i]], row[ord[i]].nranks);
    return UP_OK;
}

void up_scaling_speedups(up_scaling_result *r)
{
    size_t ni = r->ni, i, v;
    const up_sim_point *p0 = &r->pt[r->ord[0]];
    for (i = 0; i < ni; i++) {
        r->x[i] = (double)r->pt[r->ord[i]].nranks;
        r->meas[i] = r->pt[r->ord[i]].measured_s;
        for (v = 0; v < r->nv; v++) {
            const up_sim_point *b = &r->pt[v * ni + r->ord[0]], *p = &r->pt[v * ni + r->ord[i]];
            r->ts[v * ni + i] = p->predicted_s;
            r->sp[v * ni + i] = p->predicted_s > 0 ? b->predicted_s / p->predicted_s * (double)p0->nranks : NAN;
            r->eff[v * ni + i] = r->sp[v * ni + i] / r->x[i];
        }
    }
    for (i = 0; i < ni; i++)
        r->mspeed[i] = r->meas[i] > 0 ? r->meas[0] / r->meas[i] * r->x[0] : NAN;
}
