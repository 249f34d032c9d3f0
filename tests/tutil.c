/*
 * tutil.c - shared helpers of the unit tests (see tutil.h).
 */
#include "tutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

up_status t_compensate(const char *in, const char *out, const up_comp_params *p,
                       up_replay_result *res, uint64_t **removed)
{
    up_err err = {0};
    up_trace *t = NULL;
    up_writer *w = NULL;
    up_comp *m = NULL;
    up_status st;
    size_t i;

    memset(res, 0, sizeof *res);
    if (removed)
        *removed = NULL;
    if ((st = up_trace_open(in, &t, &err)) != UP_OK)
        goto out;
    if ((st = up_writer_open(out, t, &w, &err)) != UP_OK)
        goto out;
    if ((st = up_comp_new(p, up_trace_defs(t), &m, &err)) != UP_OK)
        goto out;
    if ((st = up_replay_run(t, w, up_comp_ops(), m, res, &err)) != UP_OK)
        goto out;
    st = up_writer_close(w, t, res->t_min_a, res->t_max_a, "unperturb test", NULL, NULL, &err);
    w = NULL;
    if (st == UP_OK && removed) {
        *removed = calloc(res->nlocs ? res->nlocs : 1, sizeof **removed);
        for (i = 0; i < res->nlocs; i++)
            (*removed)[i] = up_comp_removed(m, i);
    }
out:
    if (st != UP_OK)
        fprintf(stderr, "  t_compensate(%s): %s\n", in, err.msg);
    up_writer_abort(w);
    up_comp_free(m);
    up_trace_close(t);
    return st;
}

up_comp_params t_params(double o_ns, up_mode mode, up_collective coll)
{
    up_comp_params p;
    unsigned k;
    up_comp_params_init(&p);
    for (k = 0; k < UP_RK_COUNT; k++)
        p.overhead_ns[k] = o_ns;
    p.overhead_set = true;
    p.mode = mode;
    p.collective = coll;
    return p;
}

double t_window_s(const up_replay_result *r, int which)
{
    return which == 0 ? up_ticks_s(r, r->end_m - r->start_m)
                      : up_ticks_s(r, r->end_a > r->start_a ? r->end_a - r->start_a : 0);
}

uint64_t t_ev(const tr_trace *t, uint64_t id, size_t k)
{
    const tr_loc *l = tr_loc_id(t, id);
    return l && k < l->n ? l->ev[k].t : UINT64_MAX;
}
