/*
 * calibration.c - the calibration INI format (docs/calibration.md): per-record
 * overheads O, the copy-time table C(size), the network constants and the
 * cost of a failed MPI_Test without the tracer.
 * Written by `unperturb calibrate`, stored in archives by the tracer, read by
 * `unperturb compensate --calibration`.  Parsing uses inih.
 */
#include <ini.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

static const char *const rk_names[UP_RK_COUNT] = {
    "enter", "leave", "send", "recv", "coll_begin", "coll_end", "other", "metric",
    "fn_enter", "fn_leave", "poll_enter", "poll_leave",
};

const char *up_rk_name(unsigned rk) { return rk < UP_RK_COUNT ? rk_names[rk] : "?"; }

bool up_rk_parse(const char *name, up_rk *out)
{
    unsigned i;
    for (i = 0; i < UP_RK_COUNT; i++)
        if (!strcmp(name, rk_names[i])) {
            *out = (up_rk)i;
            return true;
        }
    return false;
}

void up_rk_list(char *buf, size_t cap)
{
    size_t len = 0;
    unsigned k;
    if (cap)
        buf[0] = 0;
    for (k = 0; k < UP_RK_COUNT && len < cap; k++) {
        int n = snprintf(buf + len, cap - len, "%s%s",
                         k ? (k + 1 < UP_RK_COUNT ? ", " : " or ") : "", rk_names[k]);
        if (n < 0)
            break;
        len += (size_t)n;
    }
}

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

up_status up_comp_params_load(up_comp_params *p, up_trace *t, const char *calib, char *source,
                              size_t cap, up_err *err)
{
    char *stored;
    up_comp_params_init(p);
    if (cap)
        *source = '\0';
    if ((stored = up_trace_property(t, "UNPERTURB::CALIBRATION")) != NULL) {
        /* errors name the archive and the line: "the calibration stored in
         * 'run/traces.otf2':3: ..." (up_calibration_parse escapes it) */
        char what[PATH_MAX + 64];
        up_status st;
        snprintf(what, sizeof what, "the calibration stored in '%s'", up_trace_anchor(t));
        st = up_calibration_parse(stored, what, p, err);
        up_free(stored);
        if (st != UP_OK)
            return st;
        if (p->overhead_set)
            snprintf(source, cap, "archive");
        /* an archive of the unperturb tracer: its stall lists, if any */
        p->archive_stalls = true;
    }
    if (calib) {
        bool had = p->overhead_set;
        p->overhead_set = false;
        up_status st = up_calibration_load(calib, p, err);
        if (st != UP_OK)
            return st;
        if (p->overhead_set && strlen(source) < cap)
            snprintf(source + strlen(source), cap - strlen(source), "%s%s", *source ? ", " : "", calib);
        p->overhead_set |= had;
    }
    return UP_OK;
}

void up_comp_params_set_overhead(up_comp_params *p, double ns)
{
    up_comp_cli c;
    up_comp_cli_init(&c);
    up_comp_cli_overhead(&c, ns);
    up_comp_params_apply_cli(p, &c, NULL, 0);
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

void up_comp_params_apply_cli(up_comp_params *p, const up_comp_cli *c, char *source, size_t cap)
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
    if (c->noverhead && source && cap > strlen(source))
        snprintf(source + strlen(source), cap - strlen(source), "%s--overhead-ns",
                 *source ? ", " : "");
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

/* ---- INI ------------------------------------------------------------------ */

/* The sections; the keys of those with named keys (the others' keys are
 * sizes or location ids).  Every key the tracer (src/tracer/calib.c) and the
 * merge (src/trace/merge.c) write is here. */
enum { S_INFO, S_OVERHEAD, S_LOW, S_HIGH, S_NETWORK, S_BY_LOCATION, S_COPY, S_BY_SIZE, S_COUNT };
static const char *const sec_names[S_COUNT] = {
    "info", "overhead", "overhead_low", "overhead_high", "network", "overhead_by_location", "copy",
    "network_by_size"};
#define SECTIONS "[overhead], [overhead_low], [overhead_high], [overhead_by_location], [copy], " \
                 "[network], [network_by_size] or [info]"
/* [info]: provenance the tracer writes, not used */
static const char *const info_keys[] = {"host", "date", "mode", "ranks", "extra_ns"};
#define NINFO (sizeof info_keys / sizeof info_keys[0])
static const struct {
    const char *name;
    const up_range *range;
    size_t off; /* in up_comp_params; 0: accepted and ignored */
} net_keys[] = {
    /* not a network constant: network_set stays as it is */
    {"test_ns", &UP_RANGE_NS, offsetof(up_comp_params, test_ns)},
    {"latency_ns", &UP_RANGE_NS, offsetof(up_comp_params, latency_ns)},
    {"ns_per_byte", &UP_RANGE_NS_PER_BYTE, offsetof(up_comp_params, ns_per_byte)},
    {"per_hop_ns", &UP_RANGE_NS, offsetof(up_comp_params, per_hop_ns)},
    {"eager_limit", &UP_RANGE_BYTES, offsetof(up_comp_params, eager_limit)},
    {"send_overhead_ns", &UP_RANGE_NS, 0}, /* LogGP o: for simulate's machine */
    {"recv_overhead_ns", &UP_RANGE_NS, 0}, /* files, not compensation */
};
#define NNETKEYS (sizeof net_keys / sizeof net_keys[0])
#define MAX_NAMED (UP_RK_COUNT + 1) /* the most named keys of one section: [overhead] */

typedef struct parse_ctx {
    up_comp_params *p;
    const char *what;
    up_err *err;
    up_lines lines;      /* the text, a line at a time: the line of each key */
    bool failed;
    unsigned fail_line;  /* the line of the first error */
    unsigned seen[S_COUNT][MAX_NAMED]; /* the line that set each named key (0: none) */
    double all;          /* [overhead] all = N, applied to kinds not named */
    bool all_set;
    bool named[UP_RK_COUNT];
    double onamed[UP_RK_COUNT];
    bool loc_seen;               /* an [overhead_by_location] entry */
    unsigned loc_line[UP_LOC_OVH_MAX]; /* the line of each of them */
    bool rnamed[2][UP_RK_COUNT]; /* [overhead_low], [overhead_high] */
    double rvalue[2][UP_RK_COUNT];
    size_t ncopy;
    uint64_t cbytes[UP_COPY_POINTS];
    double cnpb[UP_COPY_POINTS];
    unsigned cline[UP_COPY_POINTS];
    size_t nnet;                 /* [network_by_size] */
    bool sgamma;                 /* [network] latency_ns or ns_per_byte */
    uint64_t nbytes[UP_NET_POINTS];
    double nns[UP_NET_POINTS];
    unsigned nline[UP_NET_POINTS];
} parse_ctx;

#if defined(__GNUC__)
static int fail(parse_ctx *c, const char *section, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#endif
/* The first error: "FILE:LINE: [section] what" (returns 0 for inih). */
static int fail(parse_ctx *c, const char *section, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    if (!c->failed) {
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        if (section)
            UP_ERR(c->err, UP_EFORMAT, "%s:%u: [%s] %s", up_esc(c->what), c->lines.line, section, msg);
        else
            UP_ERR(c->err, UP_EFORMAT, "%s:%u: %s", up_esc(c->what), c->lines.line, msg);
        c->failed = true;
        c->fail_line = c->lines.line;
    }
    return 0;
}

static int find_section(const char *name, size_t len)
{
    int i;
    for (i = 0; i < S_COUNT; i++)
        if (strlen(sec_names[i]) == len && !strncmp(sec_names[i], name, len))
            return i;
    return -1;
}

/* inih's reader: one line per call, so that c->lines.line is the line of
 * the key inih hands on; a line too long for inih's buffer, a line that is
 * not INI (up_lines_read) and an unknown section, even one without keys,
 * are errors. */
static char *read_line(char *buf, int size, void *stream)
{
    parse_ctx *c = stream;
    if (!up_lines_read(buf, size, &c->lines))
        return NULL;
    if (c->lines.too_long == c->lines.line) {
        fail(c, NULL, "line longer than %zu characters", c->lines.limit);
    } else if (c->lines.bad == c->lines.line) {
        fail(c, NULL, "%s", c->lines.why);
    } else if (c->lines.sec && find_section(c->lines.sec, c->lines.seclen) < 0) {
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)c->lines.seclen, c->lines.sec);
        fail(c, NULL, "unknown section [%s] (expected " SECTIONS ")", up_esc(name));
    }
    return buf;
}

/* Key k of section s is set on this line: false (an error) if it was before. */
static bool once(parse_ctx *c, int s, size_t k, const char *name)
{
    if (c->seen[s][k]) {
        fail(c, sec_names[s], "%s is set twice (first at line %u)", up_esc(name), c->seen[s][k]);
        return false;
    }
    c->seen[s][k] = c->lines.line;
    return true;
}

/* A size of [copy] or [network_by_size] (n points so far, their sizes and
 * lines): false (an error) if it is one of them. */
static bool new_size(parse_ctx *c, const char *section, uint64_t b, const uint64_t *bytes,
                     const unsigned *lines, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (bytes[i] == b) {
            fail(c, section, "size %llu is set twice (first at line %u)", (unsigned long long)b, lines[i]);
            return false;
        }
    return true;
}

/* The value of `name` as a number in r, or an error naming both. */
static bool value(parse_ctx *c, const char *section, const char *name, const char *val,
                  const up_range *r, double *v)
{
    char why[256];
    if (up_num_parse(val, r, v, why, sizeof why))
        return true;
    fail(c, section, "%s = %s: %s", up_esc(name), up_esc(val), why);
    return false;
}

static const up_range R_SIZE = {1, 9007199254740992.0, true, "bytes"}; /* a [copy] size */
static const up_range R_NSIZE = {0, 9007199254740992.0, true, "bytes"}; /* a [network_by_size] size */

static int on_kv(void *user, const char *section, const char *name,
                 const char *val)
{
    parse_ctx *c = user;
    double v;
    up_rk rk = UP_RK_ENTER;

    if (c->failed)
        return 1; /* the first error is the one reported */
    if (!strcmp(section, "info")) { /* provenance written by the tracer: text, not used */
        size_t i;
        for (i = 0; i < NINFO && strcmp(name, info_keys[i]); i++)
            ;
        if (i == NINFO)
            return fail(c, section, "unknown key '%s' (expected host, date, mode, ranks or extra_ns)",
                        up_esc(name));
        return once(c, S_INFO, i, name);
    }
    if (!strcmp(section, "overhead")) {
        if (strcmp(name, "all") && !up_rk_parse(name, &rk)) {
            char kinds[256];
            up_rk_list(kinds, sizeof kinds);
            return fail(c, section, "unknown key '%s' (expected all, %s)", up_esc(name), kinds);
        }
        if (!once(c, S_OVERHEAD, strcmp(name, "all") ? (size_t)rk : UP_RK_COUNT, name))
            return 0;
        if (!value(c, section, name, val, &UP_RANGE_NS, &v))
            return 0;
        if (!strcmp(name, "all")) {
            c->all = v;
            c->all_set = true;
        } else {
            c->named[rk] = true;
            c->onamed[rk] = v;
        }
        return 1;
    }
    if (!strcmp(section, "overhead_low") || !strcmp(section, "overhead_high")) {
        int end = !strcmp(section, "overhead_high");
        if (!up_rk_parse(name, &rk)) {
            char kinds[256];
            up_rk_list(kinds, sizeof kinds);
            return fail(c, section, "unknown key '%s' (expected %s)", up_esc(name), kinds);
        }
        if (!once(c, end ? S_HIGH : S_LOW, (size_t)rk, name))
            return 0;
        if (!value(c, section, name, val, &UP_RANGE_NS, &v))
            return 0;
        c->rnamed[end][rk] = true;
        c->rvalue[end][rk] = v;
        return 1;
    }
    if (!strcmp(section, "overhead_by_location")) {
        char why[128];
        uint64_t id;
        size_t i;
        if (!up_uint_parse(name, UINT64_MAX, &id, why, sizeof why))
            return fail(c, section, "unknown key '%s' (expected a location id, a whole number "
                        "between 0 and 2^64 - 1)", up_esc(name));
        if (!value(c, section, name, val, &UP_RANGE_NS, &v))
            return 0;
        if (!c->loc_seen) /* this source's list replaces an earlier one */
            c->p->nloc_ovh = 0, c->loc_seen = true;
        for (i = 0; i < c->p->nloc_ovh && c->p->loc_ovh_id[i] != id; i++)
            ;
        if (i < c->p->nloc_ovh)
            return fail(c, section, "location %llu is set twice (first at line %u)",
                        (unsigned long long)id, c->loc_line[i]);
        if (i == UP_LOC_OVH_MAX)
            return fail(c, section, "more than %d locations", UP_LOC_OVH_MAX);
        c->p->loc_ovh_id[i] = id;
        c->p->loc_ovh_ns[i] = v;
        c->loc_line[i] = c->lines.line;
        c->p->nloc_ovh++;
        return 1;
    }
    if (!strcmp(section, "copy")) {
        double b = 0;
        if (strcmp(name, "ns_per_byte")) {
            char why[256], rt[128];
            if (!up_num_parse(name, &R_SIZE, &b, why, sizeof why)) {
                up_range_text(rt, sizeof rt, &R_SIZE);
                return fail(c, section, "unknown key '%s' (expected ns_per_byte or a message size, "
                            "%s)", up_esc(name), rt);
            }
        }
        if (!strcmp(name, "ns_per_byte") ? !once(c, S_COPY, 0, name) /* kept as size 0 */
                                         : !new_size(c, section, (uint64_t)b, c->cbytes, c->cline, c->ncopy))
            return 0;
        if (!value(c, section, name, val, &UP_RANGE_NS_PER_BYTE, &v))
            return 0;
        if (c->ncopy == UP_COPY_POINTS)
            return fail(c, section, "too many points (at most %d)", UP_COPY_POINTS);
        c->cbytes[c->ncopy] = (uint64_t)b;
        c->cline[c->ncopy] = c->lines.line;
        c->cnpb[c->ncopy++] = v;
        return 1;
    }
    if (!strcmp(section, "network_by_size")) {
        double b;
        char why[256], rt[128];
        if (!up_num_parse(name, &R_NSIZE, &b, why, sizeof why)) {
            up_range_text(rt, sizeof rt, &R_NSIZE);
            return fail(c, section, "unknown key '%s' (expected a message size, %s)", up_esc(name), rt);
        }
        if (!new_size(c, section, (uint64_t)b, c->nbytes, c->nline, c->nnet))
            return 0;
        if (!value(c, section, name, val, &UP_RANGE_NS, &v))
            return 0;
        if (c->nnet == UP_NET_POINTS)
            return fail(c, section, "too many points (at most %d)", UP_NET_POINTS);
        c->nbytes[c->nnet] = (uint64_t)b;
        c->nline[c->nnet] = c->lines.line;
        c->nns[c->nnet++] = v;
        return 1;
    }
    if (!strcmp(section, "network")) {
        size_t i;
        for (i = 0; i < NNETKEYS && strcmp(name, net_keys[i].name); i++)
            ;
        if (i == NNETKEYS)
            return fail(c, section, "unknown key '%s' (expected latency_ns, ns_per_byte, per_hop_ns, "
                        "eager_limit, send_overhead_ns, recv_overhead_ns, test_ns)", up_esc(name));
        if (!once(c, S_NETWORK, i, name))
            return 0;
        if (!value(c, section, name, val, net_keys[i].range, &v))
            return 0;
        if (!net_keys[i].off)
            return 1;
        *(double *)(void *)((char *)c->p + net_keys[i].off) = v;
        if (!strcmp(name, "test_ns"))
            return 1;
        if (!strcmp(name, "latency_ns") || !strcmp(name, "ns_per_byte"))
            c->sgamma = true;
        if (!strcmp(name, "eager_limit"))
            c->p->eager_set = true;
        c->p->network_set = true;
        return 1;
    }
    return fail(c, NULL, "unknown section [%s] (expected " SECTIONS ")", up_esc(section));
}

/* A table of (size, value) points: sorted by size (insertion sort: a few
 * dozen points; on_kv refused a size named twice). */
static void sort_points(uint64_t *bytes, double *v, size_t n)
{
    size_t i, j;
    for (i = 1; i < n; i++)
        for (j = i; j > 0 && bytes[j] < bytes[j - 1]; j--) {
            uint64_t tb = bytes[j];
            double tv = v[j];
            bytes[j] = bytes[j - 1], v[j] = v[j - 1];
            bytes[j - 1] = tb, v[j - 1] = tv;
        }
}

static up_status finish_parse(parse_ctx *c, int rc)
{
    size_t i;
    up_comp_params *p = c->p;
    if (rc > 0 && (!c->failed || (unsigned)rc < c->fail_line))
        return UP_ERR(c->err, UP_EFORMAT, "%s:%d: " UP_NOT_INI, up_esc(c->what), rc);
    if (c->failed)
        return c->err ? c->err->status : UP_EFORMAT;
    if (rc < 0)
        return UP_ERR(c->err, UP_ENOMEM, "%s: out of memory", up_esc(c->what));
    for (i = 0; i < UP_RK_COUNT; i++) {
        if (c->named[i])
            p->overhead_ns[i] = c->onamed[i], p->overhead_set = true;
        else if ((i == UP_RK_FN_ENTER || i == UP_RK_FN_LEAVE) &&
                 c->named[i - UP_RK_FN_ENTER]) /* files from before fn_*: as enter/leave */
            p->overhead_ns[i] = c->onamed[i - UP_RK_FN_ENTER], p->overhead_set = true;
        else if ((i == UP_RK_POLL_ENTER || i == UP_RK_POLL_LEAVE) &&
                 c->named[i - UP_RK_POLL_ENTER]) /* files from before poll_*: as enter/leave */
            p->overhead_ns[i] = c->onamed[i - UP_RK_POLL_ENTER], p->overhead_set = true;
        else if (c->all_set)
            p->overhead_ns[i] = c->all, p->overhead_set = true;
        else if (i == UP_RK_METRIC && c->named[UP_RK_OTHER])
            p->overhead_ns[i] = c->onamed[UP_RK_OTHER]; /* files from before "metric" */
    }
    {
        /* the range: kinds it does not name keep the nominal O; an [overhead]
         * without a range drops the range an earlier source gave */
        bool any = false, own = false;
        for (i = 0; i < UP_RK_COUNT; i++)
            any |= c->rnamed[0][i] || c->rnamed[1][i], own |= c->named[i];
        if (any) {
            for (i = 0; i < UP_RK_COUNT; i++) {
                p->overhead_low_ns[i] = c->rnamed[0][i] ? c->rvalue[0][i] : p->overhead_ns[i];
                p->overhead_high_ns[i] = c->rnamed[1][i] ? c->rvalue[1][i] : p->overhead_ns[i];
                if (p->overhead_low_ns[i] > p->overhead_ns[i] ||
                    p->overhead_high_ns[i] < p->overhead_ns[i])
                    return UP_ERR(c->err, UP_EFORMAT,
                                  "%s: the range of O for %s, %g to %g ns, does not hold its [overhead] value %g",
                                  up_esc(c->what), up_rk_name((unsigned)i), p->overhead_low_ns[i],
                                  p->overhead_high_ns[i], p->overhead_ns[i]);
            }
            p->range_set = true;
        } else if (own || c->all_set) {
            p->range_set = false;
        }
        if ((own || c->all_set) && !c->loc_seen) /* measured against another O */
            p->nloc_ovh = 0;
    }
    if (c->ncopy) {
        /* a lone ns_per_byte is a constant; otherwise sort the table by size */
        sort_points(c->cbytes, c->cnpb, c->ncopy);
        p->ncopy = c->ncopy;
        memcpy(p->copy_bytes, c->cbytes, sizeof c->cbytes);
        memcpy(p->copy_ns_per_byte, c->cnpb, sizeof c->cnpb);
        p->copy_set = true;
    }
    if (c->nnet) {
        sort_points(c->nbytes, c->nns, c->nnet);
        p->nnet = c->nnet;
        memcpy(p->net_bytes, c->nbytes, sizeof c->nbytes);
        memcpy(p->net_ns, c->nns, sizeof c->nns);
        p->network_set = true;
    } else if (c->sgamma) { /* S and gamma of their own: an earlier source's table goes */
        p->nnet = 0;
    }
    return UP_OK;
}

up_status up_calibration_load(const char *path, up_comp_params *p, up_err *err)
{
    char *text;
    up_status st = up_text_file_read(path, "calibration file", UP_TEXT_FILE_MAX, &text, NULL, err);
    if (st != UP_OK)
        return st;
    st = up_calibration_parse(text, path, p, err);
    up_free(text);
    return st;
}

up_status up_calibration_parse(const char *text, const char *what,
                               up_comp_params *p, up_err *err)
{
    parse_ctx c;
    if (strlen(text) > UP_TEXT_FILE_MAX)
        return UP_ERR(err, UP_EFORMAT, "%s: larger than %zu MiB, the limit for a calibration",
                      up_esc(what), UP_TEXT_FILE_MAX >> 20);
    memset(&c, 0, sizeof c);
    c.p = p;
    c.what = what;
    c.err = err;
    up_lines_init(&c.lines, text, true);
    return finish_parse(&c, ini_parse_stream(read_line, &c, on_kv, &c));
}
