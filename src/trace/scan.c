/*
 * scan.c - the bytes of an OTF2 archive, checked before libotf2 sees them
 * (scan.h says why).
 *
 * Place in the data flow: in front of the reader (reader.c, defs.c).  The
 * layout walked here is OTF2 3.0's buffer format:
 *
 *   anchor   03 <endian> "OTF2\0" <format> <trace format> <version x3>
 *            <event chunk size:8> <def chunk size:8> <substrate> <compression>
 *            <locations:8> <global defs:8> <machine\0> <creator\0>
 *            <description\0> [<n:4> n x (<name\0> <value\0>) <trace id:8>]
 *            [<snapshots:4> <thumbnails:4>] 02
 *   chunked  each chunk: 03 <endian> <first record no.:8> <last record no.:8>,
 *            then tokens: 00 end of chunk (the next chunk follows), 02 end of
 *            file; in event files 05 <timestamp:8> (never two in a row) and
 *            06 <attribute list>;
 *            every other byte is a record kind followed by its length (one
 *            byte, or ff and 8 bytes) and that many bytes; except the
 *            singleton events of OTF2 1.0 (Enter, Leave, the MPI request and
 *            OpenMP task events, OmpFork): their one compressed number
 *            follows the kind directly, so its size byte takes the place of
 *            the length, and ff (the undefined value) stands alone.
 *
 * Numbers in records are compressed (a byte n, then n value bytes; ff for
 * the undefined value).  Records are checked by their length alone, except
 * those whose counts libotf2 trusts to allocate and loop: attribute lists,
 * Metric and ProgramBegin events, Group, MetricClass, CartTopology,
 * CartCoordinate and IoParadigm definitions, and the MappingTable and
 * ClockOffset of the local definitions.  Anything else libotf2 reads from
 * an intact record stays inside the chunk it allocated.  An attribute list
 * is also refused for its length alone (UP_SCAN_MAX_ATTRS, scan.h): libotf2
 * reads one in time of the square of its entries.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <otf2/OTF2_GeneralDefinitions.h>

#include "scan.h"

#define CHUNK_MIN (256u * 1024u)        /* OTF2_CHUNK_SIZE_MIN */
#define CHUNK_MAX (16u * 1024u * 1024u) /* OTF2_CHUNK_SIZE_MAX */
#define ANCHOR_MAX (16u * 1024u * 1024u)
#define ANCHOR_PROPS_MAX 1000           /* libotf2 takes time in their square */
#define HEADER 18                       /* chunk header bytes */

enum { T_END_CHUNK = 0, T_END_BUFFER = 1, T_END_FILE = 2, T_HEADER = 3,
       T_TIMESTAMP = 5, T_ATTRIBUTES = 6 };
enum { BIG = 0x23, LITTLE = 0x42 };     /* OTF2's endianness bytes */

/* record kinds whose counts are checked (OTF2 3.0 format numbers) */
enum { EV_METRIC = 31, EV_PROGRAM_BEGIN = 83 };
/* singleton events: the largest size byte of their number (uint32 or uint64) */
static const unsigned char singleton[256] = {
    [12] = 4, [13] = 4,                     /* Enter, Leave: region */
    [16] = 8, [17] = 8, [20] = 8, [21] = 8, /* MpiIsendComplete, MpiIrecvRequest,
                                             * MpiRequestTest, MpiRequestCancelled */
    [24] = 4,                               /* OmpFork: threads */
    [28] = 8, [29] = 8, [30] = 8            /* OmpTaskCreate, -Switch, -Complete */
};
enum { DEF_IO_PARADIGM = 8, DEF_GROUP = 18, DEF_METRIC_CLASS = 20,
       DEF_CART_TOPOLOGY = 31, DEF_CART_COORDINATE = 32 };
enum { LDEF_MAPPING_TABLE = 5, LDEF_CLOCK_OFFSET = 6 };

/* ---- a cursor over bytes ----------------------------------------------- */

typedef struct cur {
    const unsigned char *p, *end;
    bool big;
    bool bad;      /* ran past the end or found an invalid encoding */
} cur;

/* An uncompressed 8-byte number at p, in the file's byte order. */
static inline uint64_t load64(const unsigned char *p, bool big)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return big ? __builtin_bswap64(v) : v;
#else
    return big ? v : __builtin_bswap64(v);
#endif
}

static uint64_t rd_full(cur *c, unsigned n)
{
    uint64_t v = 0;
    unsigned i;
    if (c->bad || (size_t)(c->end - c->p) < n) {
        c->bad = true;
        c->p = c->end;
        return 0;
    }
    if (n == 8) {
        v = load64(c->p, c->big);
    } else {
        for (i = 0; i < n; i++)
            v |= (uint64_t)c->p[c->big ? n - 1 - i : i] << (8 * i);
    }
    c->p += n;
    return v;
}

static unsigned rd_u8(cur *c) { return (unsigned)rd_full(c, 1); }

/* A compressed number of at most `max` bytes (4 or 8). */
static uint64_t rd_comp(cur *c, unsigned max)
{
    unsigned n = rd_u8(c);
    uint64_t v = 0;
    unsigned i;
    if (c->bad)
        return 0;
    if (n == 0xff)
        return max == 4 ? UINT32_MAX : UINT64_MAX;
    if (n > max || (size_t)(c->end - c->p) < n) {
        c->bad = true;
        return 0;
    }
    for (i = 0; i < n; i++) /* big endian: the value's last n bytes */
        v |= (uint64_t)c->p[c->big ? n - 1 - i : i] << (8 * i);
    c->p += n;
    return v;
}

static void skip(cur *c, size_t n)
{
    if (c->bad || (size_t)(c->end - c->p) < n) {
        c->bad = true;
        c->p = c->end;
    } else {
        c->p += n;
    }
}

/* A NUL-terminated string inside the cursor; NULL if there is none. */
static const char *rd_str(cur *c)
{
    const unsigned char *z;
    const char *s;
    if (c->bad)
        return NULL;
    z = memchr(c->p, 0, (size_t)(c->end - c->p));
    if (!z) {
        c->bad = true;
        return NULL;
    }
    s = (const char *)c->p;
    c->p = z + 1;
    return s;
}

/* An attribute value of OTF2 type `type` (otf2_attribute_value_read). */
static void skip_value(cur *c, unsigned type)
{
    switch (type) {
    case 1: case 5: skip(c, 1); break;                /* (u)int8 */
    case 2: case 6: skip(c, 2); break;                /* (u)int16 */
    case 3: case 7: rd_comp(c, 4); break;             /* (u)int32 */
    case 9: skip(c, 4); break;                        /* float */
    case 10: skip(c, 8); break;                       /* double */
    case 4: case 8: case 13: rd_comp(c, 8); break;    /* (u)int64, location */
    default:
        if (type >= 11 && type <= 25)                 /* references */
            rd_comp(c, 4);
        else                                          /* unknown: as uint64 */
            rd_comp(c, 8);
    }
}

/* ---- the anchor --------------------------------------------------------- */

static up_status anchor_bad(up_err *err, const char *path, const char *what)
{
    return UP_ERR(err, UP_EFORMAT, "'%s' is not a usable OTF2 anchor file: %s", path, what);
}

/* A property name libotf2 takes: NAME::NAME[::NAME...] of [A-Za-z0-9_]. */
static bool prop_name_ok(const char *s)
{
    unsigned parts = 0;
    for (;;) {
        const char *p = s;
        while ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_')
            s++;
        if (s == p)
            return false;
        parts++;
        if (!*s)
            return parts > 1;
        if (s[0] != ':' || s[1] != ':')
            return false;
        s += 2;
    }
}

static int cmp_prop(const void *a, const void *b)
{
    return strcasecmp(*(const char *const *)a, *(const char *const *)b);
}

/* The property list (c at its count).  libotf2 refuses the whole archive
 * for a name it does not take, a name twice (in any case) or an empty
 * value, and leaks what it had built; its time grows with the square of
 * their number. */
static up_status anchor_props(cur *c, const char *path, up_err *err)
{
    const char *name[ANCHOR_PROPS_MAX], *v;
    char m[160];
    uint64_t n = rd_full(c, 4), i;
    if (c->bad || n > (uint64_t)(c->end - c->p) / 2)
        return anchor_bad(err, path, "damaged property list");
    if (n > ANCHOR_PROPS_MAX)
        return anchor_bad(err, path, "more than 1000 properties");
    for (i = 0; i < n; i++) {
        if (!(name[i] = rd_str(c)) || !(v = rd_str(c)))
            return anchor_bad(err, path, "damaged property list");
        if (!prop_name_ok(name[i]) || !*v) {
            snprintf(m, sizeof m, *v ? "property name '%.80s' (not NAMESPACE::NAME of letters, digits, _)"
                                     : "property '%.80s' without a value", name[i]);
            return anchor_bad(err, path, m);
        }
    }
    qsort(name, (size_t)n, sizeof *name, cmp_prop);
    for (i = 1; i < n; i++)
        if (!strcasecmp(name[i - 1], name[i])) {
            snprintf(m, sizeof m, "property '%.80s' twice", name[i]);
            return anchor_bad(err, path, m);
        }
    return UP_OK;
}

up_status up_scan_anchor(const char *path, up_anchor_info *a, up_err *err)
{
    struct stat st;
    unsigned char *buf = NULL;
    ssize_t got;
    cur c;
    up_status rc = UP_OK;
    int fd;

    memset(a, 0, sizeof *a);
    if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
        return UP_ERR(err, UP_EIO, "cannot open '%s': %s", path, strerror(errno));
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return anchor_bad(err, path, "not a regular file");
    }
    if (st.st_size < 8 || (uint64_t)st.st_size > ANCHOR_MAX) {
        close(fd);
        return st.st_size < 8 ? anchor_bad(err, path, st.st_size ? "too short" : "empty file")
                              : anchor_bad(err, path, "larger than 16 MiB");
    }
    if (!(buf = up_malloc((size_t)st.st_size))) {
        close(fd);
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    }
    got = pread(fd, buf, (size_t)st.st_size, 0);
    close(fd);
    if (got != (ssize_t)st.st_size) {
        rc = got < 0 ? UP_ERR(err, UP_EIO, "cannot read '%s': %s", path, strerror(errno))
                     : anchor_bad(err, path, "changed while read");
        goto out;
    }
    c.p = buf;
    c.end = buf + st.st_size;
    c.bad = false;
    c.big = false;
    if (buf[0] != T_HEADER || (buf[1] != BIG && buf[1] != LITTLE) || memcmp(buf + 2, "OTF2", 5)) {
        rc = UP_ERR(err, UP_EFORMAT, "cannot open '%s': not an OTF2 archive (no OTF2 anchor signature)", path);
        goto out;
    }
    a->big_endian = c.big = buf[1] == BIG;
    c.p += 7;
    a->anchor_format = (uint8_t)rd_u8(&c);
    a->trace_format = (uint8_t)rd_u8(&c);
    a->version[0] = (uint8_t)rd_u8(&c);
    a->version[1] = (uint8_t)rd_u8(&c);
    a->version[2] = (uint8_t)rd_u8(&c);
    a->chunk_evt = rd_full(&c, 8);
    a->chunk_def = rd_full(&c, 8);
    a->substrate = (uint8_t)rd_u8(&c);
    a->compression = (uint8_t)rd_u8(&c);
    a->nlocs = rd_full(&c, 8);
    a->ngdefs = rd_full(&c, 8);
    if (c.bad) {
        rc = anchor_bad(err, path, "cut short in its header");
        goto out;
    }
    if (a->anchor_format == 0) {
        rc = anchor_bad(err, path, "anchor format 0");
        goto out;
    }
    if (a->version[0] < 1 || a->version[0] > 3) {
        char m[96];
        snprintf(m, sizeof m, "written by OTF2 %u.%u.%u; this build reads OTF2 1.x to 3.x",
                 a->version[0], a->version[1], a->version[2]);
        rc = anchor_bad(err, path, m);
        goto out;
    }
    if (a->chunk_evt < CHUNK_MIN || a->chunk_evt > CHUNK_MAX ||
        a->chunk_def < CHUNK_MIN || a->chunk_def > CHUNK_MAX) {
        char m[128];
        snprintf(m, sizeof m, "chunk sizes %llu and %llu bytes, outside OTF2's 256 KiB to 16 MiB",
                 (unsigned long long)a->chunk_evt, (unsigned long long)a->chunk_def);
        rc = anchor_bad(err, path, m);
        goto out;
    }
    if (a->substrate != 1) { /* OTF2_SUBSTRATE_POSIX */
        rc = anchor_bad(err, path, a->substrate == 2 ? "written with the SIONlib substrate, which this build cannot read"
                                   : a->substrate == 3 ? "an archive without files (substrate NONE)"
                                                       : "unknown file substrate");
        goto out;
    }
    if (a->compression != 1) { /* OTF2_COMPRESSION_NONE */
        rc = anchor_bad(err, path, a->compression == 2 ? "compressed (zlib), which this build cannot read"
                                                       : "unknown compression");
        goto out;
    }
    if (a->nlocs == 0 || a->nlocs > (1u << 24)) {
        rc = anchor_bad(err, path, a->nlocs ? "more than 16 M locations" : "no locations");
        goto out;
    }
    if (!rd_str(&c) || !rd_str(&c) || !rd_str(&c)) {
        rc = anchor_bad(err, path, "cut short in its machine, creator or description");
        goto out;
    }
    if (a->anchor_format > 1) {
        if ((rc = anchor_props(&c, path, err)) != UP_OK)
            goto out;
        rd_full(&c, 8); /* trace id */
    }
    if (a->anchor_format > 2) {
        rd_full(&c, 4);
        rd_full(&c, 4);
    }
    if (a->anchor_format == 3 && rd_u8(&c) != T_END_FILE)
        c.bad = true;
    if (c.bad)
        rc = anchor_bad(err, path, "cut short or damaged after its header");
out:
    up_free(buf);
    return rc;
}

/* ---- chunked files -------------------------------------------------------- */

static bool damage(up_scan *s, uint64_t off, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

up_status up_scan_open(up_scan *s, const char *path, up_file_kind kind,
                       uint64_t chunk_size, up_err *err)
{
    struct stat st;
    memset(s, 0, sizeof *s);
    s->path = path;
    s->kind = kind;
    s->chunk_size = chunk_size;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT) /* a location without a file: nothing to read */
            s->missing = s->end = true;
        else
            damage(s, 0, "cannot open: %s", strerror(errno));
        return UP_OK;
    }
    if (!S_ISREG(st.st_mode)) {
        damage(s, 0, "not a regular file");
        return UP_OK;
    }
    s->file_size = (uint64_t)st.st_size;
    if (s->file_size == 0) /* nothing was written: an empty location */
        s->end = true;
    (void)err;
    return UP_OK;
}

void up_scan_close(up_scan *s)
{
    up_free(s->spikes); /* (the file is open only while a chunk is read) */
    s->spikes = NULL;
    s->nspikes = s->cap_spikes = 0;
}

static bool damage(up_scan *s, uint64_t off, const char *fmt, ...)
{
    va_list ap;
    s->end = s->damaged = true;
    s->damage_off = off;
    va_start(ap, fmt);
    vsnprintf(s->damage, sizeof s->damage, fmt, ap);
    va_end(ap);
    return false;
}

/* Records whose counts libotf2 trusts: is the one at c (its payload, of
 * `len` bytes) consistent? */
static bool record_ok(const up_scan *s, unsigned kind, const unsigned char *p, uint64_t len)
{
    cur c = {p, p + len, s->big_endian, false};
    uint64_t n, i;
    if (s->kind == UP_FILE_EVENTS) {
        switch (kind) {
        case EV_METRIC:
            rd_comp(&c, 4);
            n = rd_u8(&c);
            for (i = 0; i < n && !c.bad; i++) {
                rd_u8(&c);
                rd_comp(&c, 8);
            }
            return !c.bad;
        case EV_PROGRAM_BEGIN:
            rd_comp(&c, 4);
            n = rd_comp(&c, 4);
            if (n > len)
                return false;
            for (i = 0; i < n && !c.bad; i++)
                rd_comp(&c, 4);
            return !c.bad;
        default:
            return true;
        }
    }
    if (s->kind == UP_FILE_LOCAL_DEFS && kind == LDEF_MAPPING_TABLE) {
        unsigned mode, type;
        type = rd_u8(&c);   /* mapping type: libotf2 leaks the map of one it does not know */
        n = rd_comp(&c, 8); /* map size */
        mode = rd_u8(&c);   /* 0 dense, else sparse */
        if (c.bad || n > len || type >= OTF2_MAPPING_MAX)
            return false;
        for (i = 0; i < n && !c.bad; i++) {
            rd_comp(&c, 8);
            if (mode != 0)
                rd_comp(&c, 8);
        }
        return !c.bad;
    }
    if (s->kind == UP_FILE_LOCAL_DEFS && kind == LDEF_CLOCK_OFFSET) {
        rd_full(&c, 8);
        rd_comp(&c, 8);
        skip(&c, 8);
        return !c.bad;
    }
    switch (kind) { /* definitions, global or local */
    case DEF_IO_PARADIGM:
        if (s->kind != UP_FILE_GLOBAL_DEFS)
            return true;
        rd_u8(&c);
        rd_comp(&c, 4);
        rd_comp(&c, 4);
        rd_u8(&c);
        rd_comp(&c, 4);
        n = rd_u8(&c);
        for (i = 0; i < n && !c.bad; i++) {
            unsigned type;
            rd_u8(&c);
            type = rd_u8(&c);
            skip_value(&c, type);
        }
        return !c.bad;
    case DEF_GROUP:
        rd_comp(&c, 4);
        rd_comp(&c, 4);
        rd_u8(&c);
        n = rd_comp(&c, 4);
        if (n > len)
            return false;
        for (i = 0; i < n && !c.bad; i++)
            rd_comp(&c, 8);
        if (c.p < c.end) { /* OTF2 1.2's type, paradigm, flags: libotf2
                            * leaks the members when these fail */
            rd_u8(&c);
            rd_u8(&c);
            rd_comp(&c, 4);
        }
        return !c.bad;
    case DEF_METRIC_CLASS:
        rd_comp(&c, 4);
        n = rd_u8(&c);
        for (i = 0; i < n && !c.bad; i++)
            rd_comp(&c, 4);
        return !c.bad;
    case DEF_CART_TOPOLOGY:
        rd_comp(&c, 4);
        rd_comp(&c, 4);
        rd_comp(&c, 4);
        n = rd_u8(&c);
        for (i = 0; i < n && !c.bad; i++)
            rd_comp(&c, 4);
        return !c.bad;
    case DEF_CART_COORDINATE:
        rd_comp(&c, 4);
        rd_comp(&c, 4);
        n = rd_u8(&c);
        for (i = 0; i < n && !c.bad; i++)
            rd_comp(&c, 4);
        return !c.bad;
    default:
        return true;
    }
}

/* An attribute list: a count (*count), then (id, type, value) entries,
 * filling the record exactly as OTF2 writes it. */
static bool attrs_ok(const up_scan *s, const unsigned char *p, uint64_t len, uint64_t *count)
{
    cur c = {p, p + len, s->big_endian, false};
    uint64_t n = rd_comp(&c, 4), i;
    *count = n;
    if (c.bad || n == 0 || n > len)
        return false;
    for (i = 0; i < n && !c.bad; i++) {
        rd_comp(&c, 4);
        skip_value(&c, rd_u8(&c));
    }
    return !c.bad && c.p == c.end;
}

static bool add_spike(up_scan *s, uint64_t first, uint64_t last)
{
    if (s->nspikes == s->cap_spikes &&
        !up_grow((void **)&s->spikes, &s->cap_spikes, s->nspikes + 1, sizeof *s->spikes))
        return false;
    s->spikes[s->nspikes].first = first;
    s->spikes[s->nspikes].last = last;
    s->nspikes++;
    s->spikes_total += last - first + 1;
    return true;
}

/* A timestamp token `t` that starts at event number `no`: is the token
 * before it a spike (ahead of both its neighbours)?  Its events are
 * [spike_from, no). */
/* The record kinds record_ok looks into, by file kind. */
/* The record kinds OTF2 3.0 knows, by file kind: in an archive written by
 * OTF2 3.0 or older (up_scan.strict) any other kind is damage, not a record
 * of a newer version. */
static bool known_evt[256], known_gdef[256], known_ldef[256];

static void known_init(void)
{
    static bool done;
    unsigned k;
    if (done)
        return;
    for (k = 10; k <= 88; k++)
        known_evt[k] = true;               /* BufferFlush .. CommDestroy */
    for (k = 10; k <= 43; k++)
        known_gdef[k] = known_ldef[k] = true; /* String .. InterComm */
    for (k = 5; k <= 8; k++)
        known_gdef[k] = true;              /* ClockProperties .. IoParadigm */
    known_ldef[5] = known_ldef[6] = true;  /* MappingTable, ClockOffset */
    done = true;
}

static const bool checked_evt[256] = {[EV_METRIC] = true, [EV_PROGRAM_BEGIN] = true};
static const bool checked_gdef[256] = {[DEF_IO_PARADIGM] = true, [DEF_GROUP] = true,
                                       [DEF_METRIC_CLASS] = true, [DEF_CART_TOPOLOGY] = true,
                                       [DEF_CART_COORDINATE] = true};
static const bool checked_ldef[256] = {[LDEF_MAPPING_TABLE] = true, [LDEF_CLOCK_OFFSET] = true,
                                       [DEF_GROUP] = true, [DEF_METRIC_CLASS] = true,
                                       [DEF_CART_TOPOLOGY] = true, [DEF_CART_COORDINATE] = true};

/* Damage inside a chunk after `n` intact records of it: they stay usable
 * (libotf2 reads a chunk's records in order and is never asked for more). */
static bool stop(up_scan *s, uint64_t n, uint64_t off, const char *what)
{
    s->records += n;
    s->end = s->damaged = true;
    s->damage_off = off;
    snprintf(s->damage, sizeof s->damage, "%s in chunk %llu", what, (unsigned long long)s->chunk);
    return n > 0;
}

bool up_scan_next(up_scan *s, unsigned char *buf)
{
    uint64_t off, len, first, last, n = 0, tok_from, cut_ok;
    const unsigned char *p, *end, *q;
    bool events, big;
    const bool *checked = s->kind == UP_FILE_EVENTS ? checked_evt
                          : s->kind == UP_FILE_GLOBAL_DEFS ? checked_gdef : checked_ldef;
    const bool *known = s->kind == UP_FILE_EVENTS ? known_evt
                        : s->kind == UP_FILE_GLOBAL_DEFS ? known_gdef : known_ldef;
    ssize_t got;
    int fd;
    cur c;

    if (s->end)
        return false;
    known_init();
    s->nspikes = 0;
    if (s->chunk_size == 0 || s->chunk > UINT64_MAX / s->chunk_size)
        return damage(s, 0, "impossible chunk size");
    off = s->chunk * s->chunk_size;
    if (off >= s->file_size)
        return damage(s, off, "the file ends after chunk %llu, whose end-of-chunk mark "
                              "promises another (cut short at a chunk boundary)",
                      (unsigned long long)s->chunk - 1);
    len = s->file_size - off < s->chunk_size ? s->file_size - off : s->chunk_size;
    /* opened for each chunk: a trace may have more locations than a
     * process may keep files open, and libotf2 keeps one per location */
    if ((fd = open(s->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
        return damage(s, off, "cannot open: %s", strerror(errno));
    got = pread(fd, buf, (size_t)len, (off_t)off);
    close(fd);
    if (got < 0)
        return damage(s, off, "cannot read chunk %llu: %s", (unsigned long long)s->chunk,
                      strerror(errno));
    if ((uint64_t)got < len)
        len = (uint64_t)got; /* shrank while we read: what is there */
    p = buf;
    end = buf + len;
    if (len < HEADER)
        return damage(s, off, "cut short in the header of chunk %llu", (unsigned long long)s->chunk);
    if (p[0] != T_HEADER || (p[1] != BIG && p[1] != LITTLE))
        return damage(s, off, "chunk %llu has no valid chunk header", (unsigned long long)s->chunk);
    if (s->chunk == 0)
        s->big_endian = p[1] == BIG;
    else if ((p[1] == BIG) != s->big_endian)
        return damage(s, off, "chunk %llu changes byte order", (unsigned long long)s->chunk);
    c.p = p + 2;
    c.end = end;
    c.big = s->big_endian;
    c.bad = false;
    first = rd_full(&c, 8);
    last = rd_full(&c, 8);
    tok_from = s->records + 1;
    /* event chunks number their records (1-based); definition chunks say 1, 0 */
    if (s->kind == UP_FILE_EVENTS && first != s->records + 1)
        return damage(s, off + 2, "chunk %llu starts at record %llu, expected %llu",
                      (unsigned long long)s->chunk, (unsigned long long)first,
                      (unsigned long long)s->records + 1);
    /* the walk; the hot part is plain pointer arithmetic: a record kind,
     * its length, a skip.  A record must leave room for a token after it,
     * except in a file cut short: one that ends where the file ends is
     * whole (libotf2 reads it without looking further). */
    cut_ok = len < s->chunk_size;
    q = c.p;
    events = s->kind == UP_FILE_EVENTS;
    big = s->big_endian;
    for (;;) {
        const unsigned char *rec = q;
        uint64_t at, rlen;
        unsigned kind;
        if (q >= end)
            return stop(s, n, off + (uint64_t)(q - p),
                        len < s->chunk_size ? "cut short (no end-of-chunk or end-of-file mark)"
                                            : "no end-of-chunk mark");
        kind = *q++;
        if (s->strict && !known[kind] && kind > T_HEADER && !(events && kind <= T_ATTRIBUTES && kind >= T_TIMESTAMP))
            return stop(s, n, off + (uint64_t)(rec - p), "a record kind OTF2 does not know (a damaged byte)");
        if (kind >= 10 && q < end && *q < 0xff) { /* the common record */
            rlen = *q++;
            if (rlen >= (uint64_t)(end - q) + cut_ok)
                goto cut;
            if (checked[kind] && !record_ok(s, kind, q, rlen))
                goto bad_record;
            if (events && rlen > 4 && singleton[kind] && rlen > singleton[kind])
                goto bad_record; /* no such number size */
            q += rlen;
            n++;
            continue;
        }
        if (kind == T_TIMESTAMP && events) {
            uint64_t t;
            if ((size_t)(end - q) < 8)
                return stop(s, n, off + (uint64_t)(rec - p), "cut short in a timestamp");
            t = load64(q, big);
            q += 8;
            /* libotf2 reads a second one as a record of unknown kind: at a
             * chunk's start it then re-reads the chunk before */
            if (q < end && *q == T_TIMESTAMP)
                return stop(s, n, off + (uint64_t)(q - p), "two timestamps in a row");
            /* the token before jumped ahead of this one and of the one
             * before it: its records get the earlier time (records.c) */
            if (__builtin_expect(t < s->last_token, 0) && s->prev_token <= t &&
                tok_from < s->records + n + 1 && !add_spike(s, tok_from, s->records + n))
                return stop(s, n, off + (uint64_t)(rec - p), "out of memory");
            s->prev_token = s->last_token;
            s->last_token = t;
            tok_from = s->records + n + 1;
            continue;
        }
        at = off + (uint64_t)(rec - p);
        if (kind == T_END_CHUNK || kind == T_END_FILE) {
            if (s->kind == UP_FILE_EVENTS && n && last != first + n - 1) {
                char m[96];
                snprintf(m, sizeof m, "%llu records where the header says %llu",
                         (unsigned long long)n, (unsigned long long)(last - first + 1));
                return stop(s, 0, off + 10, m); /* none of the chunk is trusted */
            }
            if (kind == T_END_CHUNK && len < s->chunk_size)
                return stop(s, n, at, "an end-of-chunk mark in the file's last, short chunk (cut short)");
            s->records += n;
            s->chunk++;
            if (kind == T_END_FILE)
                s->end = true;
            return true;
        }
        if (kind == T_END_BUFFER || kind == T_HEADER)
            return stop(s, n, at, "an unexpected buffer mark");
        if (events && singleton[kind] && q < end && *q == 0xff) { /* an undefined number */
            q++;
            n++;
            continue;
        }
        /* a record with a long length, an attribute list, a definition */
        if (q >= end)
            goto cut;
        rlen = *q++;
        if (rlen == 0xff) {
            if ((size_t)(end - q) < 8)
                goto cut;
            rlen = load64(q, s->big_endian);
            q += 8;
        }
        if (rlen >= (uint64_t)(end - q) + cut_ok) /* the record and a token after it */
            goto cut;
        if (kind == T_ATTRIBUTES && s->kind == UP_FILE_EVENTS) {
            uint64_t na;
            if (!attrs_ok(s, q, rlen, &na))
                return stop(s, n, at, "a damaged attribute list");
            if (na > UP_SCAN_MAX_ATTRS) { /* libotf2 would take time in its square */
                bool kept = stop(s, n, at, "");
                snprintf(s->damage, sizeof s->damage,
                         "record %llu has %llu attributes in chunk %llu, more than the %d an "
                         "attribute list may hold (libotf2 reads a list in time of its square)",
                         (unsigned long long)(s->records + 1), (unsigned long long)na,
                         (unsigned long long)s->chunk, UP_SCAN_MAX_ATTRS);
                return kept;
            }
        } else {
            if (checked[kind] && !record_ok(s, kind, q, rlen))
                goto bad_record;
            n++;
        }
        q += rlen;
        continue;
    cut:
        return stop(s, n, off + (uint64_t)(rec - p),
                    len < s->chunk_size ? "cut short inside a record"
                                        : "a record runs past the end of its chunk");
    bad_record: {
            char m[80];
            snprintf(m, sizeof m, "a damaged record (kind %u, %llu bytes)", kind,
                     (unsigned long long)rlen);
            return stop(s, n, off + (uint64_t)(rec - p), m);
        }
    }
}

bool up_scan_header(up_scan *s)
{
    unsigned char h[HEADER];
    ssize_t got;
    int fd;
    if (s->end)
        return !s->damaged && !s->missing && s->file_size;
    if ((fd = open(s->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
        return damage(s, 0, "cannot open: %s", strerror(errno));
    got = pread(fd, h, sizeof h, 0);
    close(fd);
    if (got < (ssize_t)sizeof h)
        return damage(s, 0, got < 0 ? "cannot read its first chunk" : "cut short in the header of chunk 0");
    if (h[0] != T_HEADER || (h[1] != BIG && h[1] != LITTLE))
        return damage(s, 0, "chunk 0 has no valid chunk header");
    return true;
}

void up_scan_all(up_scan *s, unsigned char *scratch)
{
    while (up_scan_next(s, scratch))
        ;
}

uint64_t up_scan_locate(const up_scan *s, uint64_t no, unsigned char *buf)
{
    bool events = s->kind == UP_FILE_EVENTS;
    uint64_t off, seen = 0, rlen, hdr;
    const unsigned char *p, *end;
    ssize_t got;
    int fd;

    if (s->missing || s->chunk_size == 0 || (fd = open(s->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
        return 0;
    for (off = 0; off < s->file_size; off += s->chunk_size) {
        if ((got = pread(fd, buf, (size_t)s->chunk_size, (off_t)off)) < HEADER)
            break;
        p = buf + HEADER;
        end = buf + got;
        while (p < end && *p != T_END_CHUNK && *p != T_END_FILE) {
            if (events && *p == T_TIMESTAMP) {
                p += 9;
                continue;
            }
            if ((size_t)(end - p) < 2)
                break;
            if (events && singleton[*p] && p[1] == 0xff) {
                rlen = 0;
                hdr = 2;
            } else if (p[1] == 0xff) {
                if ((size_t)(end - p) < 10)
                    break;
                rlen = load64(p + 2, s->big_endian);
                hdr = 10;
            } else {
                rlen = p[1];
                hdr = 2;
            }
            if (!(events && *p == T_ATTRIBUTES) && ++seen == no) {
                close(fd);
                return off + (uint64_t)(p - buf);
            }
            if (rlen > (uint64_t)(end - p) - hdr)
                break;
            p += hdr + rlen;
        }
        if (p >= end || *p != T_END_CHUNK)
            break;
    }
    close(fd);
    return 0;
}
