/*
 * test_scan.c - the checks of src/trace/scan.c on OTF2 bytes written by hand
 * (the layout is in scan.c's header comment), and the reader's repairs of
 * damaged files and timestamps on traces OTF2's own writer wrote, then
 * damaged here.  Every expected count is worked out from the bytes below.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "tutil.h"
#include "trace/scan.h"
#include "replay/replay.h"
#include "tracegen/tracegen.h"

#define CS 64 /* chunk size of the hand-made files (real ones: >= 256 KiB) */

typedef struct bytes {
    unsigned char b[4096];
    size_t n;
} bytes;

static void put(bytes *f, const void *p, size_t n)
{
    memcpy(f->b + f->n, p, n);
    f->n += n;
}
static void u8(bytes *f, unsigned v) { f->b[f->n++] = (unsigned char)v; }
static void u64(bytes *f, uint64_t v) { put(f, &v, 8); } /* little endian host */
static void header(bytes *f, uint64_t first, uint64_t last)
{
    u8(f, 3);
    u8(f, 0x42);
    u64(f, first);
    u64(f, last);
}
static void ts(bytes *f, uint64_t t) { u8(f, 5), u64(f, t); }
/* Enter (kind 12) of region r < 256: a record of one number has no length
 * byte; the compressed number (size 1, then r) follows the kind */
static void enter(bytes *f, unsigned r) { u8(f, 12), u8(f, 1), u8(f, r); }
static void pad_to(bytes *f, size_t n)
{
    while (f->n < n)
        u8(f, 0);
}

static const char *write_file(const char *name, const bytes *f)
{
    const char *p = t_dir(name);
    static char path[4200];
    int fd;
    mkdir(p, 0755);
    snprintf(path, sizeof path, "%s/f", p);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0 && write(fd, f->b, f->n) == (ssize_t)f->n);
    close(fd);
    return path;
}

static void scan_cs(const char *path, up_file_kind kind, up_scan *s, uint64_t cs)
{
    static unsigned char buf[4096];
    up_err err = {0};
    CHECK(up_scan_open(s, path, kind, cs, &err) == UP_OK);
    up_scan_all(s, buf);
}

static void scan(const char *path, up_file_kind kind, up_scan *s)
{
    scan_cs(path, kind, s, CS);
}

TEST(scan_intact_event_file)
{
    bytes f = {{0}, 0};
    up_scan s;
    header(&f, 1, 3);
    ts(&f, 100), enter(&f, 1);
    ts(&f, 200), enter(&f, 2);
    ts(&f, 300), enter(&f, 3);
    u8(&f, 2); /* end of file */
    scan(write_file("f", &f), UP_FILE_EVENTS, &s);
    CHECK_EQ(s.records, 3);
    CHECK(!s.damaged);
    CHECK_EQ(s.nspikes, 0);
    up_scan_close(&s);
}

TEST(scan_cut_inside_a_chunk_keeps_the_whole_records)
{
    bytes f = {{0}, 0};
    up_scan s;
    header(&f, 1, 3);
    ts(&f, 100), enter(&f, 1); /* bytes 18..29 */
    ts(&f, 200), enter(&f, 2); /* 30..41 */
    ts(&f, 300);               /* 42..50 */
    u8(&f, 12), u8(&f, 1);     /* the third Enter at 51, cut inside its number */
    scan(write_file("f", &f), UP_FILE_EVENTS, &s);
    CHECK_EQ(s.records, 2);
    CHECK(s.damaged);
    CHECK_EQ(s.damage_off, 51);
    CHECK(strstr(s.damage, "cut short") != NULL);
    up_scan_close(&s);
}

TEST(scan_two_chunks_and_a_cut_at_the_boundary)
{
    bytes f = {{0}, 0};
    up_scan s;
    header(&f, 1, 2);
    ts(&f, 100), enter(&f, 1);
    ts(&f, 200), enter(&f, 2);
    u8(&f, 0); /* end of chunk: another follows */
    pad_to(&f, CS);
    header(&f, 3, 3);
    ts(&f, 300), enter(&f, 3);
    u8(&f, 2);
    scan(write_file("f", &f), UP_FILE_EVENTS, &s);
    CHECK_EQ(s.records, 3);
    CHECK(!s.damaged);
    CHECK_EQ(s.chunk, 2);
    up_scan_close(&s);

    f.n = CS; /* the second chunk lost: the first one's end mark promises it */
    scan(write_file("g", &f), UP_FILE_EVENTS, &s);
    CHECK_EQ(s.records, 2);
    CHECK(s.damaged);
    CHECK_EQ(s.damage_off, CS);
    CHECK(strstr(s.damage, "chunk boundary") != NULL);
    up_scan_close(&s);
}

TEST(scan_header_counts_must_match)
{
    bytes f = {{0}, 0};
    up_scan s;
    header(&f, 1, 5); /* says 5 records, holds 2: none of the chunk is trusted */
    ts(&f, 100), enter(&f, 1);
    ts(&f, 200), enter(&f, 2);
    u8(&f, 2);
    scan(write_file("f", &f), UP_FILE_EVENTS, &s);
    CHECK_EQ(s.records, 0);
    CHECK(s.damaged);
    up_scan_close(&s);

    f.n = 0; /* a second chunk that does not continue the numbering */
    header(&f, 1, 1);
    ts(&f, 100), enter(&f, 1);
    u8(&f, 0);
    pad_to(&f, CS);
    header(&f, 7, 7);
    ts(&f, 300), enter(&f, 3);
    u8(&f, 2);
    scan(write_file("g", &f), UP_FILE_EVENTS, &s);
    CHECK_EQ(s.records, 1);
    CHECK(s.damaged);
    CHECK(strstr(s.damage, "expected 2") != NULL);
    up_scan_close(&s);
}

TEST(scan_finds_a_timestamp_spike)
{
    /* tokens 100, 200, 9000 (one flipped bit), 300, 400: the records under
     * 9000 are numbers 3 and 4 */
    bytes f = {{0}, 0};
    up_scan s;
    header(&f, 1, 6);
    ts(&f, 100), enter(&f, 1);
    ts(&f, 200), enter(&f, 2);
    ts(&f, 9000), enter(&f, 3), enter(&f, 4);
    ts(&f, 300), enter(&f, 5);
    ts(&f, 400), enter(&f, 6);
    u8(&f, 2);
    scan_cs(write_file("f", &f), UP_FILE_EVENTS, &s, 4096);
    CHECK_EQ(s.records, 6);
    CHECK(!s.damaged);
    CHECK_EQ(s.nspikes, 1);
    if (s.nspikes == 1) {
        CHECK_EQ(s.spikes[0].first, 3);
        CHECK_EQ(s.spikes[0].last, 4);
    }
    up_scan_close(&s);

    /* a dip (one token below both neighbours) is no spike: the reader
     * raises it to the time before (a decreasing time) */
    f.n = 0;
    header(&f, 1, 4);
    ts(&f, 100), enter(&f, 1);
    ts(&f, 200), enter(&f, 2);
    ts(&f, 50), enter(&f, 3);
    ts(&f, 300), enter(&f, 4);
    u8(&f, 2);
    scan_cs(write_file("g", &f), UP_FILE_EVENTS, &s, 4096);
    CHECK_EQ(s.records, 4);
    CHECK_EQ(s.nspikes, 0);
    up_scan_close(&s);
}

TEST(scan_counts_libotf2_would_trust)
{
    bytes f = {{0}, 0};
    up_scan s;
    /* an attribute list claiming 200 entries in 3 bytes, before record 2 */
    header(&f, 1, 2);
    ts(&f, 100), enter(&f, 1);
    ts(&f, 200);
    u8(&f, 6), u8(&f, 3), u8(&f, 1), u8(&f, 200), u8(&f, 0);
    enter(&f, 2);
    u8(&f, 2);
    scan(write_file("f", &f), UP_FILE_EVENTS, &s);
    CHECK_EQ(s.records, 1);
    CHECK(s.damaged);
    CHECK(strstr(s.damage, "attribute list") != NULL);
    up_scan_close(&s);

    /* ProgramBegin (kind 83): name 0, then 1 000 000 arguments in 4 bytes */
    f.n = 0;
    header(&f, 1, 1);
    ts(&f, 100);
    u8(&f, 83), u8(&f, 6), u8(&f, 0), u8(&f, 3), u8(&f, 0x40), u8(&f, 0x42), u8(&f, 0x0f), u8(&f, 0);
    u8(&f, 2);
    scan(write_file("g", &f), UP_FILE_EVENTS, &s);
    CHECK_EQ(s.records, 0);
    CHECK(s.damaged);
    up_scan_close(&s);

    /* a Group definition (kind 18) of 2^32-1 members in 6 bytes */
    f.n = 0;
    header(&f, 1, 0);
    u8(&f, 18), u8(&f, 8), u8(&f, 0), u8(&f, 0), u8(&f, 2), u8(&f, 4), u8(&f, 0xff), u8(&f, 0xff),
        u8(&f, 0xff), u8(&f, 0xff);
    u8(&f, 2);
    scan(write_file("h", &f), UP_FILE_GLOBAL_DEFS, &s);
    CHECK_EQ(s.records, 0);
    CHECK(s.damaged);
    up_scan_close(&s);
}

/* An attribute list token of n UINT8 entries (ids 0..n-1, value 7), before
 * a record: 06, the length (ff and 8 bytes), the count (3 bytes), the
 * entries (id compressed, type 1, value). */
static size_t attr_list(unsigned char *p, unsigned n)
{
    unsigned char *q = p + 10, *body;
    unsigned i;
    p[0] = 6;
    p[1] = 0xff;
    body = q;
    *q++ = 2, *q++ = (unsigned char)n, *q++ = (unsigned char)(n >> 8);
    for (i = 0; i < n; i++) {
        if (i == 0)
            *q++ = 0;
        else if (i < 256)
            *q++ = 1, *q++ = (unsigned char)i;
        else
            *q++ = 2, *q++ = (unsigned char)i, *q++ = (unsigned char)(i >> 8);
        *q++ = 1, *q++ = 7;
    }
    {
        uint64_t len = (uint64_t)(q - body);
        memcpy(p + 2, &len, 8); /* little endian host */
    }
    return (size_t)(q - p);
}

TEST(scan_attribute_lists_longer_than_the_limit_are_damage)
{
    /* chunk of 64 KiB: record 1, then a list of n entries before record 2 */
    const size_t cs = 65536;
    unsigned char *f = calloc(1, cs), *scratch = malloc(cs);
    unsigned k, n;
    CHECK(f && scratch);
    if (!f || !scratch)
        return;
    for (k = 0; k < 2; k++) {
        bytes h = {{0}, 0};
        up_scan s;
        up_err err = {0};
        size_t at, len;
        char path[4200];
        int fd;
        n = UP_SCAN_MAX_ATTRS + k;
        header(&h, 1, 2);
        ts(&h, 100), enter(&h, 1);
        ts(&h, 200);
        memcpy(f, h.b, h.n);
        at = h.n; /* 39: the list's first byte */
        len = at + attr_list(f + at, n);
        f[len++] = 12, f[len++] = 1, f[len++] = 2; /* Enter(2) */
        f[len++] = 2;                               /* end of file */
        snprintf(path, sizeof path, "%s/f", t_dir(k ? "long" : "limit"));
        mkdir(t_dir(k ? "long" : "limit"), 0755);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        CHECK(fd >= 0 && write(fd, f, len) == (ssize_t)len);
        close(fd);
        CHECK(up_scan_open(&s, path, UP_FILE_EVENTS, cs, &err) == UP_OK);
        up_scan_all(&s, scratch);
        if (!k) { /* at the limit: both records */
            CHECK_EQ(s.records, 2);
            CHECK(!s.damaged);
        } else { /* one more: record 1 only, the damage at the list */
            char want[120];
            snprintf(want, sizeof want, "record 2 has %u attributes in chunk 0, more than the %u", n,
                     (unsigned)UP_SCAN_MAX_ATTRS);
            CHECK_EQ(s.records, 1);
            CHECK(s.damaged);
            CHECK_EQ(s.damage_off, 39);
            CHECK(strstr(s.damage, want) != NULL);
        }
        up_scan_close(&s);
    }
    free(f);
    free(scratch);
}

TEST(scan_missing_empty_and_odd_files)
{
    up_scan s;
    bytes f = {{0}, 0};
    const char *dir = t_dir("odd");
    char path[4200];
    up_err err = {0};
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/none.evt", dir);
    CHECK(up_scan_open(&s, path, UP_FILE_EVENTS, CS, &err) == UP_OK);
    CHECK(s.missing && s.end && !s.damaged);
    up_scan_close(&s);
    scan(write_file("empty", &f), UP_FILE_EVENTS, &s);
    CHECK(s.end && !s.damaged && s.records == 0);
    up_scan_close(&s);
    CHECK(up_scan_open(&s, dir, UP_FILE_EVENTS, CS, &err) == UP_OK); /* a directory */
    CHECK(s.damaged && s.end);
    CHECK(strstr(s.damage, "not a regular file") != NULL);
    up_scan_close(&s);
}

/* ---- the reader, on traces OTF2 wrote --------------------------------- */

/* The byte offset of the timestamp token of value `t` in an event file
 * (OTF2 writes one before each record of a new time). */
static long find_token(const char *path, uint64_t t)
{
    unsigned char b[1 << 16];
    FILE *fp = fopen(path, "rb");
    size_t n = fp ? fread(b, 1, sizeof b, fp) : 0, i;
    if (fp)
        fclose(fp);
    for (i = 18; i + 9 <= n; i++)
        if (b[i] == 5 && !memcmp(b + i + 1, &t, 8))
            return (long)i;
    return -1;
}

static void poke64(const char *path, long off, uint64_t v)
{
    int fd = open(path, O_WRONLY);
    CHECK(fd >= 0 && pwrite(fd, &v, 8, off) == 8);
    close(fd);
}

/* Reads location `loc` to its end; its timestamps into t[] (at most cap). */
static size_t read_times(up_trace *tr, size_t loc, uint64_t *t, size_t cap)
{
    up_stream *s = up_trace_stream(tr, loc);
    up_err err = {0};
    up_event *ev;
    size_t n = 0;
    while (up_stream_peek(s, 0, &ev, &err) == UP_OK && ev) {
        if (n < cap)
            t[n] = ev->time;
        n++;
        up_stream_pop(s);
    }
    return n;
}

static void write_ladder(const char *dir)
{
    /* one location, Enter/Leave of work at 1000, 1100, ..., 2900 ns */
    tg *g = tg_open(dir, 1, 1000000000, 0);
    unsigned i;
    for (i = 0; i < 10; i++) {
        tg_enter(g, 0, 1000 + 200 * i, TG_WORK);
        tg_leave(g, 0, 1100 + 200 * i, TG_WORK);
    }
    CHECK(tg_close(g) == 0);
}

TEST(reader_repairs_damaged_timestamps)
{
    char dir[4096], evt[4200];
    uint64_t t[32], fix[3];
    up_trace *tr = NULL;
    up_err err = {0};
    size_t n;
    long off;
    snprintf(dir, sizeof dir, "%s", t_dir("in"));
    write_ladder(dir);
    snprintf(evt, sizeof evt, "%s/traces/0.evt", dir);
    /* record k (0-based) is at 1000 + 100 k; the clock ends at 2900.
     * A spike inside the clock range: 1500 (record 5) becomes 2524 */
    CHECK((off = find_token(evt, 1500)) > 0);
    poke64(evt, off + 1, 2524);
    /* backwards, inside the clock range: 2500 (record 15) becomes 1200
     * (before the range, it would count as outside it) */
    CHECK((off = find_token(evt, 2500)) > 0);
    poke64(evt, off + 1, 1200);
    /* outside the clock range, on the last record (no token after it to
     * show a spike): 2900 becomes 2^40 + 2900 */
    CHECK((off = find_token(evt, 2900)) > 0);
    poke64(evt, off + 1, (1ull << 40) + 2900);
    CHECK(up_trace_open(dir, &tr, &err) == UP_OK);
    if (!tr)
        return;
    n = read_times(tr, 0, t, 32);
    CHECK_EQ(n, 20);
    /* each takes the time of the record before it */
    CHECK_EQ(t[5], 1400);
    CHECK_EQ(t[6], 1600);
    CHECK_EQ(t[15], 2400);
    CHECK_EQ(t[16], 2600);
    CHECK_EQ(t[19], 2800);
    up_trace_time_repairs(tr, 0, fix);
    CHECK_EQ(fix[0], 1);
    CHECK_EQ(fix[1], 1);
    CHECK_EQ(fix[2], 1);
    up_trace_close(tr);
}

TEST(reader_reads_a_cut_file_up_to_the_cut)
{
    char dir[4096], evt[4200];
    uint64_t t[32];
    up_trace *tr = NULL;
    up_err err = {0};
    const up_damage *d;
    long off;
    snprintf(dir, sizeof dir, "%s", t_dir("in"));
    write_ladder(dir);
    snprintf(evt, sizeof evt, "%s/traces/0.evt", dir);
    /* cut right after the timestamp token of 2100 (record 11): records 0
     * to 10 (1000 to 2000) stay whole */
    CHECK((off = find_token(evt, 2100)) > 0);
    CHECK(truncate(evt, off + 9) == 0);
    CHECK(up_trace_open(dir, &tr, &err) == UP_OK);
    if (!tr)
        return;
    CHECK_EQ(read_times(tr, 0, t, 32), 11);
    CHECK_EQ(t[10], 2000);
    CHECK_EQ(up_trace_ndamage(tr), 1);
    if (up_trace_ndamage(tr) == 1) {
        d = up_trace_damage(tr, 0);
        CHECK_EQ(d->kind, UP_DAMAGE_FILE);
        CHECK_EQ(d->loc, 0);
        CHECK_EQ(d->kept, 11);
        CHECK_EQ(d->declared, 20);
        CHECK_EQ(d->t_last, 2000);
        CHECK_EQ(d->offset, (uint64_t)off + 9);
    }
    up_trace_close(tr);
}

TEST(reader_fails_only_when_nothing_is_usable)
{
    char dir[4096], evt[4200];
    up_trace *tr = NULL;
    up_err err = {0};
    snprintf(dir, sizeof dir, "%s", t_dir("in"));
    write_ladder(dir);
    snprintf(evt, sizeof evt, "%s/traces/0.evt", dir);
    CHECK(truncate(evt, 10) == 0); /* inside the first chunk header */
    CHECK(up_trace_open(dir, &tr, &err) == UP_EFORMAT);
    CHECK(strstr(err.msg, "0.evt") != NULL);
    CHECK(strstr(err.msg, "no location") != NULL);
    up_trace_close(tr);
}

TEST(scan_unknown_kinds_are_damage_in_an_old_archive)
{
    /* kind 100 does not exist in OTF2 3.0: in an archive OTF2 3.0 wrote it
     * is a damaged byte; in a newer one, a record to skip by its length */
    bytes f = {{0}, 0};
    static unsigned char buf[4096];
    up_err err = {0};
    const char *path;
    up_scan s;
    header(&f, 1, 3);
    ts(&f, 100), enter(&f, 1);
    ts(&f, 200), u8(&f, 100), u8(&f, 2), u8(&f, 1), u8(&f, 7);
    ts(&f, 300), enter(&f, 3);
    u8(&f, 2);
    path = write_file("f", &f);
    CHECK(up_scan_open(&s, path, UP_FILE_EVENTS, CS, &err) == UP_OK);
    s.strict = true;
    up_scan_all(&s, buf);
    CHECK_EQ(s.records, 1);
    CHECK(s.damaged);
    CHECK_EQ(s.damage_off, 18 + 12 + 9);
    CHECK(strstr(s.damage, "does not know") != NULL);
    up_scan_close(&s);
    CHECK(up_scan_open(&s, path, UP_FILE_EVENTS, CS, &err) == UP_OK);
    up_scan_all(&s, buf);
    CHECK_EQ(s.records, 3);
    CHECK(!s.damaged);
    up_scan_close(&s);
}
