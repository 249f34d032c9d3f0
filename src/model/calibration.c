/*
 * calibration.c - the compensation parameters (compensate.h) and what each of
 * their sources gives: a calibration (docs/calibration.md; its text is
 * src/trace's, read into an up_calib by src/trace/calib_read.c) and the
 * command line's values; the bounds' end of the range of O for the mode;
 * the tables C(size) and [network_by_size]; O by record kind.  The order
 * of the sources is up_run_params's (src/run/params.c).
 */
#include <math.h>
#include <string.h>

#include "model/compensate.h"

up_rk up_rk_of(unsigned k)
{
    switch (k) {
    case UP_EV_Enter:
    case UP_EV_CallingContextEnter:
        return UP_RK_ENTER;
    case UP_EV_Leave:
    case UP_EV_CallingContextLeave:
        return UP_RK_LEAVE;
    case UP_EV_MpiSend:
    case UP_EV_MpiIsend:
        return UP_RK_SEND;
    case UP_EV_MpiRecv:
    case UP_EV_MpiIrecv:
        return UP_RK_RECV;
    case UP_EV_MpiCollectiveBegin:
    case UP_EV_NonBlockingCollectiveRequest:
    case UP_EV_RmaCollectiveBegin:
        return UP_RK_COLL_BEGIN;
    case UP_EV_MpiCollectiveEnd:
    case UP_EV_NonBlockingCollectiveComplete:
    case UP_EV_RmaCollectiveEnd:
        return UP_RK_COLL_END;
    case UP_EV_Metric:
        return UP_RK_METRIC;
    case UP_EV_ThreadCreate:
    case UP_EV_ThreadBegin:
    case UP_EV_ThreadWait:
    case UP_EV_ThreadEnd:
    case UP_EV_ThreadFork:
    case UP_EV_ThreadJoin:
    case UP_EV_ThreadTeamBegin:
    case UP_EV_ThreadTeamEnd:
        return UP_RK_THREAD;
    case UP_EV_ThreadAcquireLock:
    case UP_EV_ThreadReleaseLock:
    case UP_EV_OmpAcquireLock:
    case UP_EV_OmpReleaseLock:
        return UP_RK_LOCK;
    default:
        return UP_RK_OTHER;
    }
}

const char *up_mode_name(up_mode m)
{
    return m == UP_MODE_LOWER ? "lower" : m == UP_MODE_UPPER ? "upper" : "network";
}

const char *up_collective_name(up_collective c)
{
    return c == UP_COLLECTIVE_SHARED ? "shared" : "individual";
}

void up_comp_params_set_overhead(up_comp_params *p, double ns)
{
    up_comp_cli c;
    up_comp_cli_init(&c);
    up_comp_cli_overhead(&c, ns);
    up_comp_params_apply_cli(p, &c);
}

void up_comp_cli_init(up_comp_cli *c)
{
    memset(c, 0, sizeof *c);
    c->copy_ns_per_byte = c->latency_ns = c->ns_per_byte = c->per_hop_ns = -1;
    c->eager_limit = c->test_ns = c->spin_gap_ns = -1;
}

bool up_comp_cli_overhead(up_comp_cli *c, double ns)
{
    if (c->noverhead == UP_CLI_MAX_OVERHEAD)
        return false;
    c->overhead[c->noverhead].all = true;
    c->overhead[c->noverhead].ns = ns;
    c->noverhead++;
    return true;
}

void up_comp_params_apply_cli(up_comp_params *p, const up_comp_cli *c)
{
    size_t i;
    unsigned k;
    for (i = 0; i < c->noverhead; i++) {
        for (k = 0; k < UP_RK_COUNT; k++)
            if (c->overhead[i].all || c->overhead[i].kind == k)
                p->overhead_ns[k] = c->overhead[i].ns;
        p->overhead_set = true;
        p->range_set = false; /* O given: no range, nothing measured per location */
        p->nloc_ovh = 0;
        p->archive_stalls = false;
    }
    if (c->copy_ns_per_byte >= 0) {
        p->ncopy = 1;
        p->copy_bytes[0] = 1;
        p->copy_ns_per_byte[0] = c->copy_ns_per_byte;
        p->copy_set = true;
    }
    /* S or gamma given: they replace a [network_by_size] table, which
     * would otherwise take precedence over them (docs/calibration.md) */
    if (c->latency_ns >= 0)
        p->latency_ns = c->latency_ns, p->network_set = true, p->nnet = 0;
    if (c->ns_per_byte >= 0)
        p->ns_per_byte = c->ns_per_byte, p->network_set = true, p->nnet = 0;
    if (c->per_hop_ns >= 0)
        p->per_hop_ns = c->per_hop_ns, p->network_set = true;
    if (c->eager_limit >= 0)
        p->eager_limit = c->eager_limit, p->eager_set = true;
    if (c->mode_set)
        p->mode = c->mode;
    if (c->collective_set)
        p->collective = c->collective;
    if (c->wildcard_set)
        p->wildcard = c->wildcard;
    if (c->polls_set)
        p->polls = c->polls;
    if (c->replies_set)
        p->replies = c->replies;
    if (c->progress_set)
        p->progress = c->progress;
    if (c->test_ns >= 0)
        p->test_ns = c->test_ns;
    if (c->spin_gap_ns >= 0)
        p->spin_gap_ns = c->spin_gap_ns;
}

void up_comp_params_resolve(up_comp_params *p)
{
    p->overhead_end = 0;
    if (!p->range_set || p->mode == UP_MODE_NETWORK)
        return;
    p->overhead_end = p->mode == UP_MODE_LOWER ? 1 : -1;
    memcpy(p->overhead_ns, p->overhead_end > 0 ? p->overhead_high_ns : p->overhead_low_ns,
           sizeof p->overhead_ns);
}

void up_ovh_table_init(up_ovh_table *t, const up_comp_params *p, double ticks_per_ns)
{
    uint64_t o[UP_RK_COUNT];
    unsigned i;
    for (i = 0; i < UP_RK_COUNT; i++)
        o[i] = up_ticks_round(p->overhead_ns[i] * ticks_per_ns);
    for (i = 0; i < UP_EV_COUNT_; i++)
        t->kind[i] = o[up_rk_of(i)];
    t->kind[UP_EV_BufferFlush] = 0; /* a flush costs its duration instead */
    t->fn[0] = o[UP_RK_FN_ENTER];
    t->fn[1] = o[UP_RK_FN_LEAVE];
    t->poll[0] = o[UP_RK_POLL_ENTER];
    t->poll[1] = o[UP_RK_POLL_LEAVE];
}

void up_comp_params_init(up_comp_params *p)
{
    memset(p, 0, sizeof *p);
    p->mode = UP_MODE_NETWORK;
    p->collective = UP_COLLECTIVE_INDIVIDUAL;
    p->eager_limit = UP_DEFAULT_EAGER_LIMIT;
    p->spin_gap_ns = UP_DEFAULT_SPIN_GAP_NS;
    p->wildcard = UP_WILDCARD_AUTO;
}

double up_copy_ns(const up_comp_params *p, uint64_t bytes)
{
    size_t i;
    double per_byte;
    if (p->ncopy == 0 || bytes == 0)
        return 0.0;
    if (p->ncopy == 1 || bytes <= p->copy_bytes[0]) {
        per_byte = p->copy_ns_per_byte[0];
    } else if (bytes >= p->copy_bytes[p->ncopy - 1]) {
        per_byte = p->copy_ns_per_byte[p->ncopy - 1];
    } else {
        for (i = 1; bytes > p->copy_bytes[i]; i++)
            ;
        {
            double x0 = (double)p->copy_bytes[i - 1], x1 = (double)p->copy_bytes[i];
            double y0 = p->copy_ns_per_byte[i - 1], y1 = p->copy_ns_per_byte[i];
            per_byte = y0 + (y1 - y0) * (((double)bytes - x0) / (x1 - x0)); /* a fraction first: no overflow */
        }
    }
    return per_byte * (double)bytes;
}

double up_net_ns(const up_comp_params *p, uint64_t bytes)
{
    size_t i;
    double x0, x1, y0, y1;
    if (p->nnet == 0)
        return -1;
    if (p->nnet == 1 || bytes <= p->net_bytes[0])
        return p->net_ns[0];
    for (i = 1; i < p->nnet - 1 && bytes > p->net_bytes[i]; i++)
        ;
    x0 = (double)p->net_bytes[i - 1], x1 = (double)p->net_bytes[i];
    y0 = p->net_ns[i - 1], y1 = p->net_ns[i];
    /* between the points, or on the last segment's line beyond them; a
     * table that falls with size (noise) gives no less than its last point */
    return fmax(y0 + (y1 - y0) * (((double)bytes - x0) / (x1 - x0)),
                bytes > p->net_bytes[p->nnet - 1] ? y1 : 0);
}

/* ---- a calibration over the parameters ------------------------------------- */

up_status up_calibration_apply(up_comp_params *p, const up_calib *c, const char *what, up_err *err)
{
    size_t i;
    bool any = false, own = false;
    /* [network]: the LogGP overheads are for simulate's machine files, and
     * test_ns is no network constant */
    if (c->net_given[UP_CN_TEST])
        p->test_ns = c->net[UP_CN_TEST];
    if (c->net_given[UP_CN_LATENCY])
        p->latency_ns = c->net[UP_CN_LATENCY], p->network_set = true;
    if (c->net_given[UP_CN_NS_PER_BYTE])
        p->ns_per_byte = c->net[UP_CN_NS_PER_BYTE], p->network_set = true;
    if (c->net_given[UP_CN_PER_HOP])
        p->per_hop_ns = c->net[UP_CN_PER_HOP], p->network_set = true;
    if (c->net_given[UP_CN_EAGER_LIMIT])
        p->eager_limit = c->net[UP_CN_EAGER_LIMIT], p->eager_set = p->network_set = true;
    if (c->loc_given) { /* this source's list replaces an earlier one */
        memcpy(p->loc_ovh_id, c->loc_id, c->nloc * sizeof *c->loc_id);
        memcpy(p->loc_ovh_ns, c->loc_ns, c->nloc * sizeof *c->loc_ns);
        p->nloc_ovh = c->nloc;
    }
    for (i = 0; i < UP_RK_COUNT; i++) {
        if (c->o_given[i])
            p->overhead_ns[i] = c->o_ns[i], p->overhead_set = true;
        else if ((i == UP_RK_FN_ENTER || i == UP_RK_FN_LEAVE) &&
                 c->o_given[i - UP_RK_FN_ENTER]) /* files from before fn_*: as enter/leave */
            p->overhead_ns[i] = c->o_ns[i - UP_RK_FN_ENTER], p->overhead_set = true;
        else if ((i == UP_RK_POLL_ENTER || i == UP_RK_POLL_LEAVE) &&
                 c->o_given[i - UP_RK_POLL_ENTER]) /* files from before poll_*: as enter/leave */
            p->overhead_ns[i] = c->o_ns[i - UP_RK_POLL_ENTER], p->overhead_set = true;
        else if (c->all_given)
            p->overhead_ns[i] = c->all_ns, p->overhead_set = true;
        else if ((i == UP_RK_METRIC || i == UP_RK_THREAD || i == UP_RK_LOCK) &&
                 c->o_given[UP_RK_OTHER]) /* files from before them: as other */
            p->overhead_ns[i] = c->o_ns[UP_RK_OTHER];
    }
    /* the range: kinds it does not name keep the nominal O; an [overhead]
     * without a range drops the range an earlier source gave */
    for (i = 0; i < UP_RK_COUNT; i++)
        any |= c->low_given[i] || c->high_given[i], own |= c->o_given[i];
    if (any) {
        for (i = 0; i < UP_RK_COUNT; i++) {
            p->overhead_low_ns[i] = c->low_given[i] ? c->low_ns[i] : p->overhead_ns[i];
            p->overhead_high_ns[i] = c->high_given[i] ? c->high_ns[i] : p->overhead_ns[i];
            if (p->overhead_low_ns[i] > p->overhead_ns[i] || p->overhead_high_ns[i] < p->overhead_ns[i])
                return UP_ERR(err, UP_EFORMAT,
                              "%s: the range of O for %s, %g to %g ns, does not hold its [overhead] value %g",
                              up_esc(what), up_rk_name((unsigned)i), p->overhead_low_ns[i],
                              p->overhead_high_ns[i], p->overhead_ns[i]);
        }
        p->range_set = true;
    } else if (own || c->all_given) {
        p->range_set = false;
    }
    if ((own || c->all_given) && !c->loc_given) /* measured against another O */
        p->nloc_ovh = 0;
    if (c->ncopy) { /* a lone ns_per_byte (size 0) is a constant */
        p->ncopy = c->ncopy;
        memcpy(p->copy_bytes, c->copy_bytes, sizeof c->copy_bytes);
        memcpy(p->copy_ns_per_byte, c->copy_ns_per_byte, sizeof c->copy_ns_per_byte);
        p->copy_set = true;
    }
    if (c->nnet) {
        p->nnet = c->nnet;
        memcpy(p->net_bytes, c->net_bytes, sizeof c->net_bytes);
        memcpy(p->net_ns, c->net_ns, sizeof c->net_ns);
        p->network_set = true;
    } else if (c->net_given[UP_CN_LATENCY] || c->net_given[UP_CN_NS_PER_BYTE]) {
        p->nnet = 0; /* S and gamma of their own: an earlier source's table goes */
    }
    return UP_OK;
}

up_status up_calibration_parse(const char *text, const char *what, up_comp_params *p, up_err *err)
{
    up_calib c;
    up_status st = up_calib_parse(text, what, &c, err);
    return st != UP_OK ? st : up_calibration_apply(p, &c, what, err);
}

up_status up_calibration_load(const char *path, up_comp_params *p, up_err *err)
{
    up_calib c;
    up_status st = up_calib_load(path, &c, err);
    return st != UP_OK ? st : up_calibration_apply(p, &c, path, err);
}
