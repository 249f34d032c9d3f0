/*
 * calib_read.c - a calibration's text parsed into an up_calib (calib.h):
 * every section and key known, every value a number in its range, no key
 * set twice, tables sorted by size.  Parsing uses inih under the one INI
 * syntax of every file the tools read (up_lines, util.c); errors name the
 * text, the line, the section and the key.  What the values mean, and what a
 * later source replaces of an earlier one, is the model's
 * (src/model/calibration.c).
 */
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "trace/calib.h"

/* the most named keys of one section: [overhead], its kinds and `all` */
#define MAX_NAMED (UP_RK_COUNT + 1)

/* the ranges of the values of [network] */
static const up_range *const net_range[UP_CN_COUNT] = {
    [UP_CN_LATENCY] = &UP_RANGE_NS,        [UP_CN_NS_PER_BYTE] = &UP_RANGE_NS_PER_BYTE,
    [UP_CN_PER_HOP] = &UP_RANGE_NS,        [UP_CN_EAGER_LIMIT] = &UP_RANGE_BYTES,
    [UP_CN_SEND_OVERHEAD] = &UP_RANGE_NS,  [UP_CN_RECV_OVERHEAD] = &UP_RANGE_NS,
    [UP_CN_TEST] = &UP_RANGE_NS,
};
static const up_range R_SIZE = {1, 9007199254740992.0, true, "bytes"}; /* a [copy] size */
static const up_range R_NSIZE = {0, 9007199254740992.0, true, "bytes"}; /* a [network_by_size] size */

typedef struct parse_ctx {
    up_calib *c;
    const char *what;
    up_err *err;
    up_lines lines;      /* the text, a line at a time: the line of each key */
    bool failed;
    unsigned fail_line;  /* the line of the first error */
    unsigned seen[UP_CS_COUNT][MAX_NAMED]; /* the line that set each named key (0: none) */
    unsigned loc_line[UP_LOC_OVH_MAX];     /* the line of each location, */
    unsigned cline[UP_COPY_POINTS];        /* of each [copy] size */
    unsigned nline[UP_NET_POINTS];         /* and of each [network_by_size] size */
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
    for (i = 0; i < UP_CS_COUNT; i++)
        if (strlen(up_calib_sections[i]) == len && !strncmp(up_calib_sections[i], name, len))
            return i;
    return -1;
}

/* "unknown section [NAME] (expected [overhead], ... or [info])" */
static int unknown_section(parse_ctx *c, const char *name)
{
    char list[256];
    up_calib_list(list, sizeof list, up_calib_sections, UP_CS_COUNT, "[", "]", " or ");
    return fail(c, NULL, "unknown section [%s] (expected %s)", up_esc(name), list);
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
        unknown_section(c, name);
    }
    return buf;
}

/* Key k of section s is set on this line: false (an error) if it was before. */
static bool once(parse_ctx *c, int s, size_t k, const char *name)
{
    if (c->seen[s][k]) {
        fail(c, up_calib_sections[s], "%s is set twice (first at line %u)", up_esc(name), c->seen[s][k]);
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

/* A point of [copy] or [network_by_size]: size b (checked against the n
 * points so far when `sized`), the value of `name` in r, at most max
 * points; 1, or 0 after an error (for inih). */
static int add_point(parse_ctx *c, const char *section, const char *name, const char *val,
                     uint64_t b, bool sized, const up_range *r, uint64_t *bytes, double *values,
                     unsigned *lines, size_t *n, size_t max)
{
    double v;
    if ((sized && !new_size(c, section, b, bytes, lines, *n)) || !value(c, section, name, val, r, &v))
        return 0;
    if (*n == max)
        return fail(c, section, "too many points (at most %zu)", max);
    bytes[*n] = b;
    lines[*n] = c->lines.line;
    values[(*n)++] = v;
    return 1;
}

/* [overhead], [overhead_low], [overhead_high]: a kind (or, in the first,
 * `all`) and its ns */
static int on_kind(parse_ctx *c, int s, const char *section, const char *name, const char *val)
{
    up_calib *k = c->c;
    bool all = s == UP_CS_OVERHEAD && !strcmp(name, "all");
    up_rk rk = UP_RK_ENTER;
    double v;
    if (!all && !up_rk_parse(name, &rk)) {
        char kinds[256];
        up_rk_list(kinds, sizeof kinds);
        return fail(c, section, "unknown key '%s' (expected %s%s)", up_esc(name),
                    s == UP_CS_OVERHEAD ? "all, " : "", kinds);
    }
    if (!once(c, s, all ? UP_RK_COUNT : (size_t)rk, name) ||
        !value(c, section, name, val, &UP_RANGE_NS, &v))
        return 0;
    if (all)
        k->all_given = true, k->all_ns = v;
    else if (s == UP_CS_OVERHEAD)
        k->o_given[rk] = true, k->o_ns[rk] = v;
    else if (s == UP_CS_LOW)
        k->low_given[rk] = true, k->low_ns[rk] = v;
    else
        k->high_given[rk] = true, k->high_ns[rk] = v;
    return 1;
}

static int on_kv(void *user, const char *section, const char *name, const char *val)
{
    parse_ctx *c = user;
    up_calib *k = c->c;
    double v;
    size_t i;
    int s;

    if (c->failed)
        return 1; /* the first error is the one reported */
    s = find_section(section, strlen(section));
    switch (s) {
    case UP_CS_INFO: /* provenance written by the tracer: text, not used */
        for (i = 0; i < UP_CI_COUNT && strcmp(name, up_calib_info_keys[i]); i++)
            ;
        if (i == UP_CI_COUNT) {
            char keys[128];
            up_calib_list(keys, sizeof keys, up_calib_info_keys, UP_CI_COUNT, "", "", " or ");
            return fail(c, section, "unknown key '%s' (expected %s)", up_esc(name), keys);
        }
        return once(c, s, i, name);
    case UP_CS_OVERHEAD:
    case UP_CS_LOW:
    case UP_CS_HIGH:
        return on_kind(c, s, section, name, val);
    case UP_CS_BY_LOCATION: {
        char why[128];
        uint64_t id;
        if (!up_uint_parse(name, UINT64_MAX, &id, why, sizeof why))
            return fail(c, section, "unknown key '%s' (expected a location id, a whole number "
                        "between 0 and 2^64 - 1)", up_esc(name));
        if (!value(c, section, name, val, &UP_RANGE_NS, &v))
            return 0;
        k->loc_given = true;
        for (i = 0; i < k->nloc && k->loc_id[i] != id; i++)
            ;
        if (i < k->nloc)
            return fail(c, section, "location %llu is set twice (first at line %u)",
                        (unsigned long long)id, c->loc_line[i]);
        if (i == UP_LOC_OVH_MAX)
            return fail(c, section, "more than %d locations", UP_LOC_OVH_MAX);
        k->loc_id[i] = id;
        k->loc_ns[i] = v;
        c->loc_line[i] = c->lines.line;
        k->nloc++;
        return 1;
    }
    case UP_CS_COPY: {
        double b = 0;
        bool constant = !strcmp(name, "ns_per_byte"); /* kept as size 0 */
        char why[256], rt[128];
        if (!constant && !up_num_parse(name, &R_SIZE, &b, why, sizeof why)) {
            up_range_text(rt, sizeof rt, &R_SIZE);
            return fail(c, section, "unknown key '%s' (expected ns_per_byte or a message size, "
                        "%s)", up_esc(name), rt);
        }
        if (constant && !once(c, s, 0, name))
            return 0;
        return add_point(c, section, name, val, (uint64_t)b, !constant, &UP_RANGE_NS_PER_BYTE,
                         k->copy_bytes, k->copy_ns_per_byte, c->cline, &k->ncopy, UP_COPY_POINTS);
    }
    case UP_CS_BY_SIZE: {
        double b;
        char why[256], rt[128];
        if (!up_num_parse(name, &R_NSIZE, &b, why, sizeof why)) {
            up_range_text(rt, sizeof rt, &R_NSIZE);
            return fail(c, section, "unknown key '%s' (expected a message size, %s)", up_esc(name), rt);
        }
        return add_point(c, section, name, val, (uint64_t)b, true, &UP_RANGE_NS, k->net_bytes,
                         k->net_ns, c->nline, &k->nnet, UP_NET_POINTS);
    }
    case UP_CS_NETWORK:
        for (i = 0; i < UP_CN_COUNT && strcmp(name, up_calib_net_keys[i]); i++)
            ;
        if (i == UP_CN_COUNT) {
            char keys[256];
            up_calib_list(keys, sizeof keys, up_calib_net_keys, UP_CN_COUNT, "", "", ", ");
            return fail(c, section, "unknown key '%s' (expected %s)", up_esc(name), keys);
        }
        if (!once(c, s, i, name) || !value(c, section, name, val, net_range[i], &v))
            return 0;
        k->net_given[i] = true;
        k->net[i] = v;
        return 1;
    default:
        return unknown_section(c, section);
    }
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

up_status up_calib_parse(const char *text, const char *what, up_calib *c, up_err *err)
{
    parse_ctx x;
    int rc;
    memset(c, 0, sizeof *c);
    if (strlen(text) > UP_TEXT_FILE_MAX)
        return UP_ERR(err, UP_EFORMAT, "%s: larger than %zu MiB, the limit for a calibration",
                      up_esc(what), UP_TEXT_FILE_MAX >> 20);
    memset(&x, 0, sizeof x);
    x.c = c;
    x.what = what;
    x.err = err;
    up_lines_init(&x.lines, text, true);
    rc = ini_parse_stream(read_line, &x, on_kv, &x);
    if (rc > 0 && (!x.failed || (unsigned)rc < x.fail_line))
        return UP_ERR(err, UP_EFORMAT, "%s:%d: " UP_NOT_INI, up_esc(what), rc);
    if (x.failed)
        return err ? err->status : UP_EFORMAT;
    if (rc < 0)
        return UP_ERR(err, UP_ENOMEM, "%s: out of memory", up_esc(what));
    /* a lone ns_per_byte is a constant; otherwise the tables go by size */
    sort_points(c->copy_bytes, c->copy_ns_per_byte, c->ncopy);
    sort_points(c->net_bytes, c->net_ns, c->nnet);
    return UP_OK;
}

up_status up_calib_load(const char *path, up_calib *c, up_err *err)
{
    char *text;
    up_status st = up_text_file_read(path, "calibration file", UP_TEXT_FILE_MAX, &text, NULL, err);
    if (st != UP_OK)
        return st;
    st = up_calib_parse(text, path, c, err);
    up_free(text);
    return st;
}
