/*
 * text.c - text from outside: bytes escaped for messages, names from traces
 * in the form of each kind of output, numbers checked against their allowed
 * range (the one parser of every option and file), small text files read
 * with limits and handed to inih one line at a time, each line checked
 * against the one INI syntax (src/util/util.h).
 *
 * Place in the data flow: below everything, beside util.c.  The commands
 * parse their options with up_num_parse; the INI readers (calibration.c,
 * machine.c, the experiment files of src/run/experiment.c) read their files with
 * up_text_file_read and their lines with up_lines_read; every message that
 * quotes a key, a value, an option or a file name quotes it escaped; every
 * JSON, CSV, HTML and SVG writer of src/report (and estimate.c's JSON) writes
 * names through up_text_form.
 */
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- escaping ------------------------------------------------------------ */

/* Is c a code point that must not reach a terminal as it is: a C1 control
 * or one that changes the direction of the text around it? */
static bool hidden_code_point(unsigned long c)
{
    return c < 0xA0 || c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) ||
           (c >= 0x2066 && c <= 0x2069);
}

/* The length of the well-formed UTF-8 sequence at s (n bytes left, n >= 1)
 * and its code point in *cp, or 0 (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF, nothing cut short). */
static size_t utf8_seq(const unsigned char *s, size_t n, unsigned long *cp)
{
    unsigned long c;
    size_t len, i;
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    if (s[0] < 0xC2 || s[0] > 0xF4)
        return 0;
    len = s[0] < 0xE0 ? 2 : s[0] < 0xF0 ? 3 : 4;
    if (n < len)
        return 0;
    c = s[0] & (0x7Fu >> len);
    for (i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        c = c << 6 | (s[i] & 0x3Fu);
    }
    if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10FFFF)) ||
        (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return len;
}

size_t up_text_utf8_len(const char *s, size_t n)
{
    unsigned long c;
    return n ? utf8_seq((const unsigned char *)s, n, &c) : 0;
}

/* What the bytes at p (n left, n >= 1) become: a whole character copied to
 * unit, or one byte as \xNN (not UTF-8; with `shown` also what does not
 * print: control characters, DEL, C1 controls, direction changes).  Returns
 * the bytes of input taken; *w gets the bytes of unit. */
static size_t text_unit(const unsigned char *p, size_t n, bool shown, char unit[8], size_t *w)
{
    unsigned long c = 0;
    size_t k = utf8_seq(p, n, &c);
    if (k && (!shown || (k == 1 ? c >= 0x20 && c < 0x7F : !hidden_code_point(c)))) {
        memcpy(unit, p, k);
        *w = k;
        return k;
    }
    snprintf(unit, 8, "\\x%02x", p[0]);
    *w = 4;
    return 1;
}

char *up_text_escape(char *dst, size_t cap, const char *s, size_t max)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s), shown = max && max < n ? max : n, i = 0, o = 0, safe = 0;
    bool cut = shown < n;
    if (!cap)
        return dst;
    while (i < shown) {
        char unit[8];
        size_t w, k = text_unit(p + i, n - i, true, unit, &w);
        if (i + k > shown) { /* never half a character */
            cut = true;
            break;
        }
        if (o + w > cap - 1) {
            cut = true;
            break;
        }
        memcpy(dst + o, unit, w);
        o += w;
        i += k;
        if (o + 3 <= cap - 1)
            safe = o;
    }
    if (cut) {
        if (o + 3 > cap - 1)
            o = safe;
        if (o + 3 <= cap - 1) {
            memcpy(dst + o, "...", 3);
            o += 3;
        }
    }
    dst[o] = '\0';
    return dst;
}

const char *up_esc(const char *s)
{
    static _Thread_local char ring[8][640];
    static _Thread_local unsigned next;
    char *b = ring[next++ % 8];
    return up_text_escape(b, sizeof ring[0], s ? s : "(null)", 200);
}

/* ---- names from traces in outputs -------------------------------------------- */

/* FNV-1a, 32 bits: the hash in a long name's marker */
static uint32_t fnv1a(const unsigned char *p, size_t n)
{
    uint32_t h = 2166136261u;
    while (n--)
        h = (h ^ *p++) * 16777619u;
    return h;
}

size_t up_text_form(char *dst, size_t cap, const char *s, unsigned how)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t n = strlen((const char *)p), shown = n, i = 0, o = 0;
    bool cut = !(how & UP_TEXT_WHOLE) && n > UP_NAME_MAX;
    char mark[48];
    if (cut)
        shown = UP_NAME_MAX;
    while (i < shown) {
        char unit[8];
        size_t w, k = text_unit(p + i, n - i, how & UP_TEXT_SHOWN, unit, &w);
        if (i + k > shown) /* never half a character */
            break;
        if (o + w < cap)
            memcpy(dst + o, unit, w);
        else if (o < cap)
            cap = o + 1; /* what follows no longer fits: stop writing at o */
        o += w;
        i += k;
    }
    if (cut) {
        size_t m = (size_t)snprintf(mark, sizeof mark, "...[%zu bytes, #%08" PRIx32 "]", n, fnv1a(p, n));
        if (o + m < cap)
            memcpy(dst + o, mark, m);
        else if (o < cap)
            cap = o + 1;
        o += m;
    }
    if (cap)
        dst[o < cap ? o : cap - 1] = '\0';
    return o;
}

char *up_text_dup(const char *s, unsigned how)
{
    size_t n = up_text_form(NULL, 0, s, how);
    char *d = up_malloc(n + 1);
    if (d)
        up_text_form(d, n + 1, s, how);
    return d;
}

/* ---- numbers in a range ----------------------------------------------------- */

const up_range UP_RANGE_NS = {0, 1e9, false, "ns"};
const up_range UP_RANGE_NS_PER_BYTE = {0, 1e6, false, "ns/byte"};
const up_range UP_RANGE_BYTES = {0, 9007199254740992.0, true, "bytes"};

void up_num_text(char *buf, size_t cap, double v)
{
    char *e, *q;
    bool neg;
    if (v == 9007199254740992.0) {
        snprintf(buf, cap, "2^53");
        return;
    }
    snprintf(buf, cap, "%g", v);
    if (!(e = strchr(buf, 'e')))
        return;
    q = e + 1; /* "1e+09" -> "1e9", "1e-06" -> "1e-6" */
    neg = *q == '-';
    if (*q == '+' || *q == '-')
        q++;
    while (*q == '0' && q[1])
        q++;
    memmove(e + 1 + neg, q, strlen(q) + 1);
}

void up_num_exact(char *buf, size_t cap, double v)
{
    int p;
    if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(buf, cap, "%.0f", v);
        return;
    }
    for (p = 1; p <= 17; p++) {
        snprintf(buf, cap, "%.*g", p, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

void up_range_text(char *buf, size_t cap, const up_range *r)
{
    char lo[32], hi[32];
    up_num_text(lo, sizeof lo, r->lo);
    up_num_text(hi, sizeof hi, r->hi);
    snprintf(buf, cap, "%sbetween %s and %s%s%s", r->whole ? "a whole number " : "", lo, hi,
             r->unit && *r->unit ? " " : "", r->unit ? r->unit : "");
}

bool up_range_check(const up_range *r, double v, char *why, size_t cap)
{
    char rt[160];
    if (v >= r->lo && v <= r->hi && (!r->whole || v == floor(v)))
        return true;
    up_range_text(rt, sizeof rt, r);
    snprintf(why, cap, "must be %s", rt);
    return false;
}

bool up_num_parse(const char *s, const up_range *r, double *v, char *why, size_t cap)
{
    char *end, rt[160];
    double x;
    errno = 0;
    x = strtod(s, &end);
    if (end == s || *end || isnan(x) || strpbrk(s, "xX") || *s == ' ' || *s == '\t' ||
        *s == '\n' || *s == '\r' || *s == '\f' || *s == '\v') {
        up_range_text(rt, sizeof rt, r);
        snprintf(why, cap, "not a number (must be %s)", rt);
        return false;
    }
    x += 0.0; /* -0 -> 0 */
    if (!up_range_check(r, x, why, cap))
        return false;
    *v = x;
    return true;
}

bool up_uint_parse(const char *s, uint64_t max, uint64_t *v, char *why, size_t cap)
{
    uint64_t x = 0;
    const char *p;
    bool over = false;
    for (p = s; *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (x > (UINT64_MAX - d) / 10)
            over = true;
        else
            x = x * 10 + d;
    }
    if (p == s || *p) {
        snprintf(why, cap, "not a whole number (must be between 0 and %llu)", (unsigned long long)max);
        return false;
    }
    if (over || x > max) {
        snprintf(why, cap, "must be between 0 and %llu", (unsigned long long)max);
        return false;
    }
    *v = x;
    return true;
}

/* ---- small text files --------------------------------------------------------- */

const char *up_mode_text(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" :
           S_ISFIFO(m) ? "a FIFO (named pipe)" : S_ISSOCK(m) ? "a socket" : S_ISLNK(m) ? "a symbolic link" :
           S_ISREG(m) ? "a regular file" : "a special file";
}

static void size_text(char *buf, size_t cap, size_t n)
{
    if (n >= ((size_t)1 << 20) && n % ((size_t)1 << 20) == 0)
        snprintf(buf, cap, "%zu MiB", n >> 20);
    else if (n >= 1024 && n % 1024 == 0)
        snprintf(buf, cap, "%zu KiB", n >> 10);
    else
        snprintf(buf, cap, "%zu bytes", n);
}

/* "a" or "an" before what: an experiment file, a machine file */
static const char *article(const char *what)
{
    return what[0] && strchr("aeiou", what[0]) ? "an" : "a";
}

static up_status too_large(const char *path, const char *what, size_t max, up_err *err)
{
    char lim[32];
    size_text(lim, sizeof lim, max);
    return UP_ERR(err, UP_EIO, "cannot read the %s '%s': larger than %s, the limit for %s %s", what,
                  up_esc(path), lim, article(what), what);
}

up_status up_text_file_read(const char *path, const char *what, size_t max, char **text,
                            size_t *len, up_err *err)
{
    struct stat st;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    int fd, e;
    *text = NULL;
    if (len)
        *len = 0;
    /* O_NONBLOCK: opening a FIFO must not wait for a writer */
    if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0) {
        e = errno; /* before up_esc */
        return UP_ERR(err, UP_EIO, "cannot read the %s '%s': %s", what, up_esc(path), strerror(e));
    }
    if (fstat(fd, &st) != 0) {
        e = errno;
        close(fd);
        return UP_ERR(err, UP_EIO, "cannot read the %s '%s': %s", what, up_esc(path), strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return UP_ERR(err, UP_EIO, "cannot read the %s '%s': it is %s, not a %sfile", what, up_esc(path),
                      up_mode_text(st.st_mode), S_ISDIR(st.st_mode) ? "" : "regular ");
    }
    if (st.st_size < 0 || (unsigned long long)st.st_size > max) {
        close(fd);
        return too_large(path, what, max, err);
    }
    for (;;) { /* the file may have grown since fstat: read to its end */
        ssize_t r;
        if (n == max + 1 || !up_grow((void **)&buf, &cap, n + 4096 < max + 2 ? n + 4096 : max + 2, 1)) {
            close(fd);
            up_free(buf);
            if (n == max + 1)
                return too_large(path, what, max, err);
            return UP_ERR(err, UP_ENOMEM, "out of memory reading '%s'", up_esc(path));
        }
        r = read(fd, buf + n, (cap - 1 - n < max + 1 - n ? cap - 1 - n : max + 1 - n));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            e = errno;
            close(fd);
            up_free(buf);
            return UP_ERR(err, UP_EIO, "cannot read the %s '%s': %s", what, up_esc(path), strerror(e));
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    {
        const char *nul = memchr(buf, 0, n);
        if (nul) {
            unsigned line = 1;
            const char *p;
            for (p = buf; p < nul; p++)
                line += *p == '\n';
            up_free(buf);
            return UP_ERR(err, UP_EIO, "%s:%u: a NUL byte: not a text file (%s %s is INI text)",
                          up_esc(path), line, article(what), what);
        }
    }
    *text = buf;
    if (len)
        *len = n;
    return UP_OK;
}

/* ---- lines for inih ------------------------------------------------------------ */

void up_lines_init(up_lines *l, const char *text, bool drop_indent)
{
    memset(l, 0, sizeof *l);
    l->s = text;
    l->drop_indent = drop_indent;
}

/* White space as inih's isspace() sees it inside a line. */
static bool ini_space(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r'; }

/* inih's ini_find_chars_or_comment: the first of `chars` in [p, e), or of an
 * inline comment (';' after white space); e if neither. */
static const char *find_or_comment(const char *p, const char *e, const char *chars)
{
    bool was_space = false;
    for (; p < e; p++) {
        if (strchr(chars, *p) || (was_space && *p == ';'))
            return p;
        was_space = ini_space(*p);
    }
    return e;
}

/* n bytes of s, escaped into dst (at most 60 shown, a cut ends in "..."). */
static const char *esc_span(char *dst, size_t cap, const char *s, size_t n)
{
    char tmp[128];
    snprintf(tmp, sizeof tmp, "%.*s", (int)(n < sizeof tmp - 1 ? n : sizeof tmp - 1), s);
    return up_text_escape(dst, cap, tmp, 60);
}

/* The line b (n bytes, as inih gets it) against the one INI syntax
 * (util.h); l->bad is its number if it breaks it. */
static void check_line(up_lines *l, const char *b, size_t n, bool lone_cr)
{
    const char *p = b, *e = b + n, *q, *r;
    if (lone_cr) {
        snprintf(l->why, sizeof l->why, "a carriage return (CR) inside the line: lines end in LF or "
                                        "CR LF, and a lone CR is not a line end");
        goto bad;
    }
    if (l->line == 1 && n >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3)) /* inih skips a BOM */
        p += 3;
    while (p < e && ini_space(*p))
        p++;
    while (e > p && ini_space(e[-1]))
        e--;
    if (p == e || *p == ';' || *p == '#')
        return;
    if (*p == '[') {
        q = find_or_comment(p + 1, e, "]");
        if (q == e || *q != ']') {
            snprintf(l->why, sizeof l->why, "%s", UP_NOT_INI);
            goto bad;
        }
        l->sec = p + 1;
        l->seclen = (size_t)(q - p - 1);
        for (r = q + 1; r < e && ini_space(*r); r++)
            ;
        if (r < e && *r != ';') { /* inih drops it: a key there would be lost */
            char text[256], name[256];
            snprintf(l->why, sizeof l->why, "'%s' after [%s]: a section header ends the line (a key "
                     "goes on a line of its own)", esc_span(text, sizeof text, r, (size_t)(e - r)),
                     esc_span(name, sizeof name, l->sec, l->seclen));
            goto bad;
        }
        return;
    }
    q = find_or_comment(p, e, "=:");
    if (q == e || *q != '=') {
        snprintf(l->why, sizeof l->why, "%s", UP_NOT_INI);
        goto bad;
    }
    if (q == p) {
        snprintf(l->why, sizeof l->why, "not an INI line (a value without a key)");
        goto bad;
    }
    return;
bad:
    l->bad = l->line;
}

char *up_lines_read(char *buf, int size, void *stream)
{
    up_lines *l = stream;
    const char *p = l->s;
    size_t n = 0, cap = size > 0 ? (size_t)size - 1 : 0;
    bool indent = l->drop_indent, over = false, lone_cr = false;
    l->sec = NULL;
    l->seclen = 0;
    l->bad = 0;
    if (!p || !*p || !size)
        return NULL;
    for (; *p && *p != '\n'; p++) {
        if (indent && (*p == ' ' || *p == '\t' || *p == '\v' || *p == '\f'))
            continue; /* all of inih's white space but CR: inih would take the
                       * line for the previous value's continuation */
        indent = false;
        if (*p == '\r' && p[1] && p[1] != '\n')
            lone_cr = true;
        if (n < cap)
            buf[n++] = *p;
        else if (!(*p == '\r' && (p[1] == '\n' || !p[1]))) /* a CR before the end fits */
            over = true;
    }
    if (*p == '\n')
        p++;
    l->s = p;
    l->line++;
    l->limit = cap;
    if (n && buf[n - 1] == '\r')
        n--;
    if (over && !lone_cr) {
        if (!l->too_long)
            l->too_long = l->line;
        n = 0;
    }
    buf[n] = '\0';
    if (lone_cr || !over)
        check_line(l, buf, n, lone_cr);
    if (over && lone_cr)
        buf[0] = '\0'; /* a lone CR wins over the length: it is why the line is long */
    return buf;
}
