/*
 * calib.c - the calibration format's names, and its text written: what the
 * tracer measured (src/tracer/calib.c, inside MPI_Init and for `unperturb
 * calibrate`) and the section the merge appends (merge.c).  calib.h says who
 * else uses the format; calib_read.c reads it.
 *
 * Plain libc: this file is linked into the tracer, which has no util.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/calib.h"

static const char *const rk_names[UP_RK_COUNT] = {
    "enter", "leave", "send", "recv", "coll_begin", "coll_end", "other", "metric",
    "fn_enter", "fn_leave", "poll_enter", "poll_leave", "thread", "lock",
};

const char *const up_calib_sections[UP_CS_COUNT] = {
    "overhead", "overhead_low", "overhead_high", "overhead_by_location", "copy", "network",
    "network_by_size", "info"};
const char *const up_calib_net_keys[UP_CN_COUNT] = {
    "latency_ns", "ns_per_byte", "per_hop_ns", "eager_limit", "send_overhead_ns",
    "recv_overhead_ns", "test_ns"};
const char *const up_calib_info_keys[UP_CI_COUNT] = {"host", "date", "mode", "ranks", "extra_ns"};

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

void up_calib_list(char *buf, size_t cap, const char *const *names, unsigned n, const char *open,
                   const char *close, const char *last)
{
    size_t len = 0;
    unsigned k;
    if (cap)
        buf[0] = 0;
    for (k = 0; k < n && len < cap; k++) {
        int w = snprintf(buf + len, cap - len, "%s%s%s%s", k ? (k + 1 < n ? ", " : last) : "", open,
                         names[k], close);
        if (w < 0)
            break;
        len += (size_t)w;
    }
}

void up_rk_list(char *buf, size_t cap)
{
    up_calib_list(buf, cap, rk_names, UP_RK_COUNT, "", "", " or ");
}

/* ---- writing ------------------------------------------------------------------- */

/* Text being written at s + len, in cap bytes; grown with realloc when
 * `grow`, else `full` once something did not fit (and nothing more is
 * written). */
typedef struct out {
    char *s;
    size_t len, cap;
    bool grow, full;
} out;

#if defined(__GNUC__)
static void put(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif
static void put(out *o, const char *fmt, ...)
{
    va_list ap;
    int n;
    while (!o->full) {
        char *ns;
        va_start(ap, fmt);
        n = vsnprintf(o->s + o->len, o->cap - o->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < o->cap - o->len) {
            o->len += (size_t)n;
            return;
        }
        if (n < 0 || !o->grow || !(ns = realloc(o->s, o->len + (size_t)n + 256))) {
            o->full = true;
            return;
        }
        o->s = ns;
        o->cap = o->len + (size_t)n + 256;
    }
}

/* A section of kinds: the given ones, in kind order. */
static void put_kinds(out *o, unsigned section, const char *comment, const bool *given,
                      const double *ns)
{
    unsigned k;
    put(o, "[%s]\n; %s\n", up_calib_sections[section], comment);
    for (k = 0; k < UP_RK_COUNT; k++)
        if (given[k])
            put(o, "%s = %.1f\n", rk_names[k], ns[k]);
}

/* [network] as the tracer writes it: this order, these digits, a comment
 * before the first key given of each group */
static const struct {
    unsigned key, digits, group;
} net_out[] = {
    {UP_CN_LATENCY, 0, 1},       {UP_CN_NS_PER_BYTE, 4, 1},   {UP_CN_PER_HOP, 0, 0},
    {UP_CN_SEND_OVERHEAD, 0, 2}, {UP_CN_RECV_OVERHEAD, 0, 2}, {UP_CN_EAGER_LIMIT, 0, 0},
    {UP_CN_TEST, 1, 3},
};
static const char *const net_groups[] = {
    NULL, "ping-pong between ranks 0 and 1",
    "the calls of an eager send and of a receive whose message is there",
    "one failed MPI_Test without the tracer, on a receive that never comes"};

int up_calib_write(char *buf, size_t cap, const up_calib *c, const up_calib_info *info)
{
    out o = {buf, 0, cap, false, cap == 0};
    unsigned i, group = 0;
    put(&o, "; unperturb calibration (docs/calibration.md)\n[%s]\n", up_calib_sections[UP_CS_INFO]);
    put(&o, "%s = %s\n%s = %s\n%s = %s\n%s = %d\n%s = %llu\n", up_calib_info_keys[UP_CI_HOST],
        info->host, up_calib_info_keys[UP_CI_DATE], info->date, up_calib_info_keys[UP_CI_MODE],
        info->mode, up_calib_info_keys[UP_CI_RANKS], info->ranks,
        up_calib_info_keys[UP_CI_EXTRA_NS], info->extra_ns);
    put_kinds(&o, UP_CS_OVERHEAD, "ns per record, min over trials and ranks (includes extra_ns)",
              c->o_given, c->o_ns);
    put_kinds(&o, UP_CS_LOW, "the same, each record after work it overlaps: the upper bound's O",
              c->low_given, c->low_ns);
    put_kinds(&o, UP_CS_HIGH,
              "the same, each record after work that evicted its data: the lower bound's O",
              c->high_given, c->high_ns);
    put(&o, "[%s]\n; memcpy ns per byte by size in bytes\n", up_calib_sections[UP_CS_COPY]);
    for (i = 0; i < c->ncopy; i++)
        put(&o, "%llu = %.4f\n", (unsigned long long)c->copy_bytes[i], c->copy_ns_per_byte[i]);
    put(&o, "[%s]\n", up_calib_sections[UP_CS_NETWORK]);
    for (i = 0; i < sizeof net_out / sizeof *net_out; i++) {
        unsigned k = net_out[i].key;
        if (!c->net_given[k])
            continue;
        if (net_out[i].group && net_out[i].group != group)
            put(&o, "; %s\n", net_groups[group = net_out[i].group]);
        put(&o, "%s = %.*f\n", up_calib_net_keys[k], (int)net_out[i].digits, c->net[k]);
    }
    if (c->nnet) {
        put(&o, "[%s]\n; one-way ns of a message by size in bytes, ping-pong between ranks 0 and 1, "
                "copies included\n", up_calib_sections[UP_CS_BY_SIZE]);
        for (i = 0; i < c->nnet; i++)
            put(&o, "%llu = %.0f\n", (unsigned long long)c->net_bytes[i], c->net_ns[i]);
    }
    put(&o, "; calibration took %.1f ms\n", info->took_ms);
    return o.full ? -1 : 0;
}

char *up_calib_add_by_location(char *text, size_t n, const uint64_t *id, const double *ns)
{
    size_t len = strlen(text);
    out o = {text, len, len + 1, true, false};
    size_t i;
    put(&o, "[%s]\n; ns every record of the location cost beyond [%s]: its --extra-ns spins took "
            "that much longer\n", up_calib_sections[UP_CS_BY_LOCATION], up_calib_sections[UP_CS_OVERHEAD]);
    for (i = 0; i < n; i++)
        put(&o, "%llu = %.1f\n", (unsigned long long)id[i], ns[i]);
    if (o.full) {
        free(o.s);
        return NULL;
    }
    return o.s;
}
