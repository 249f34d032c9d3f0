/*
 * test_scan_fuzz.c - damaged bytes the fuzzer found that the reader's check of
 * an archive (src/trace/scan.c) let through to libotf2, or that the reader
 * (src/trace/reader.c) then mishandled: archives written by OTF2 itself
 * (src/tracegen.c, tests/data), then changed byte by byte.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "trace/trace.h"
#include "tracegen/tracegen.h"

/* ---- files ----------------------------------------------------------------- */

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b = NULL;
    long len;
    if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (b = malloc((size_t)len + 1)) && fread(b, 1, (size_t)len, f) == (size_t)len)
        *n = (size_t)len;
    else {
        free(b);
        b = NULL;
    }
    if (f)
        fclose(f);
    return b;
}

/* Writes n bytes at offset `at` of a new file (a hole before them). */
static void put_file(const char *path, const unsigned char *d, size_t n, long at, bool trunc)
{
    FILE *f = fopen(path, trunc ? "wb" : "r+b");
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK(fseek(f, at, SEEK_SET) == 0);
    CHECK(fwrite(d, 1, n, f) == n);
    fclose(f);
}

/* Two ranks, each: Enter(work) at 100, then `pairs` Enter(get_coords)
 * and Leave 10 ticks apart, Leave(work); writes the archive to `dir` and
 * returns the path of rank 0's event file in evt. */
static void write_pairs(const char *dir, unsigned pairs, char *evt, size_t cap)
{
    tg *g = tg_open(dir, 2, 1000000000, 0);
    unsigned r, i;
    for (r = 0; r < 2; r++) {
        tg_enter(g, r, 100, TG_WORK);
        for (i = 0; i < pairs; i++) {
            tg_enter(g, r, 110 + 20 * i, TG_GET_COORDS);
            tg_leave(g, r, 120 + 20 * i, TG_GET_COORDS);
        }
        tg_leave(g, r, 110 + 20 * pairs, TG_WORK);
    }
    CHECK(tg_close(g) == 0);
    snprintf(evt, cap, "%s/traces/0.evt", dir);
}

/* Offset of the k-th (0-based) timestamp token of an event chunk, or 0. */
static size_t timestamp_at(const unsigned char *d, size_t n, unsigned k)
{
    size_t at = 18;
    while (at < n) {
        if (d[at] == 0x05) {
            if (k-- == 0)
                return at;
            at += 9;
        } else if (d[at] == 0x00 || d[at] == 0x02) {
            return 0;
        } else {
            at += 2 + (size_t)d[at + 1];
        }
    }
    return 0;
}

/* Reads location `loc` of `path` to its end: the times of its records in
 * t[] (at most cap), how many; and the damage entry of that location. */
static size_t read_loc(const char *path, size_t loc, uint64_t *t, size_t cap, char *what, size_t wcap)
{
    up_trace *tr = NULL;
    up_err err = {0};
    up_event *ev;
    size_t n = 0, i;
    if (what)
        what[0] = 0;
    CHECK_EQ(up_trace_open(path, &tr, &err), UP_OK);
    if (!tr)
        return 0;
    while (up_stream_peek(up_trace_stream(tr, loc), 0, &ev, &err) == UP_OK && ev) {
        if (n < cap)
            t[n] = ev->time;
        n++;
        up_stream_pop(up_trace_stream(tr, loc));
    }
    for (i = 0; what && i < up_trace_ndamage(tr); i++)
        if (up_trace_damage(tr, i)->loc == (long)loc)
            snprintf(what, wcap, "%s", up_trace_damage(tr, i)->what);
    up_trace_close(tr);
    return n;
}

/* ---- two timestamps in a row ----------------------------------------------------- */

/* libotf2 takes the second of two timestamp tokens in a row for a record
 * of an unknown kind and reads on from its "length": inside a chunk it
 * fails a few bytes on; at the start of a chunk it went back to the
 * chunk before and delivered its records again, without an error.  Both
 * are damage from the second token on. */
TEST(scan_two_timestamps_in_a_row_are_damage)
{
    char dir[4096], evt[4200], what[256];
    unsigned char *d, *e;
    uint64_t t[64];
    size_t n, at, k;

    /* inside a chunk: the third token twice; two records before it */
    snprintf(dir, sizeof dir, "%s", t_dir("mid"));
    write_pairs(dir, 1, evt, sizeof evt);
    d = slurp(evt, &n);
    CHECK(d != NULL && (at = timestamp_at(d, n, 2)) > 0);
    if (!d || !at)
        return;
    e = malloc(n + 64);
    memcpy(e, d, at);
    memcpy(e + at, d + at, 9);
    memcpy(e + at + 9, d + at, n - at);
    put_file(evt, e, n + 9, 0, true);
    k = read_loc(dir, 0, t, 64, what, sizeof what);
    CHECK_EQ(k, 2);
    CHECK_EQ(t[0], 100);
    CHECK_EQ(t[1], 110);
    CHECK(strstr(what, "two timestamps in a row") != NULL);
    CHECK_EQ(read_loc(dir, 1, t, 64, NULL, 0), 4);
    free(d);
    free(e);

    /* at the start of the second chunk (1 MiB, tracegen's event chunks):
     * Enter(work) and Enter(get_coords) in chunk 0, then chunk 1 starts
     * with the third token (120) twice, 40 records follow */
    snprintf(dir, sizeof dir, "%s", t_dir("chunk"));
    write_pairs(dir, 20, evt, sizeof evt);
    d = slurp(evt, &n);
    CHECK(d != NULL && (at = timestamp_at(d, n, 2)) > 0);
    if (!d || !at)
        return;
    e = malloc(n + 64);
    {
        uint64_t last0 = 2, first1 = 3, last1 = 42;
        memcpy(e, d, at);
        memcpy(e + 10, &last0, 8); /* little endian, as written here */
        e[at] = 0x00;              /* end of chunk */
        put_file(evt, e, at + 1, 0, true);
        memcpy(e, d, 18);
        memcpy(e + 2, &first1, 8);
        memcpy(e + 10, &last1, 8);
        memcpy(e + 18, d + at, 9);
        memcpy(e + 27, d + at, n - at);
        put_file(evt, e, n - at + 27, 1024 * 1024, false);
    }
    k = read_loc(dir, 0, t, 64, what, sizeof what);
    CHECK_EQ(k, 2);
    CHECK_EQ(t[0], 100);
    CHECK_EQ(t[1], 110);
    CHECK(strstr(what, "two timestamps in a row") != NULL);

    /* the same file with the token once: all 42 records, no damage */
    put_file(evt, e + 27, n - at, 1024 * 1024 + 18, false);
    CHECK(truncate(evt, 1024 * 1024 + 18 + (long)(n - at)) == 0);
    k = read_loc(dir, 0, t, 64, what, sizeof what);
    CHECK_EQ(k, 42);
    CHECK_EQ(t[2], 120);
    CHECK_EQ(t[41], 510);
    CHECK_EQ(what[0], 0);
    free(d);
    free(e);
}

/* ---- the anchor's properties ------------------------------------------------------ */

/* Replaces the property list of anchor file `path` (anchor format 3, as
 * OTF2 3.0 writes) by the n NAME, VALUE pairs in kv. */
static void set_props(const char *path, const char *const *kv, size_t n)
{
    size_t len, at = 46, rest, i, out_n = 0;
    unsigned char *a = slurp(path, &len), *o;
    uint32_t np, old;
    CHECK(a != NULL && len > 50 && a[7] == 3);
    if (!a)
        return;
    for (i = 0; i < 3; i++) /* machine, creator, description */
        at += strlen((char *)a + at) + 1;
    memcpy(&old, a + at, 4);
    rest = at + 4;
    for (i = 0; i < 2 * old; i++)
        rest += strlen((char *)a + rest) + 1;
    for (i = 0; i < 2 * n; i++)
        out_n += strlen(kv[i]) + 1;
    o = malloc(len + out_n + 4);
    memcpy(o, a, at);
    np = (uint32_t)n;
    memcpy(o + at, &np, 4);
    out_n = at + 4;
    for (i = 0; i < 2 * n; i++) {
        memcpy(o + out_n, kv[i], strlen(kv[i]) + 1);
        out_n += strlen(kv[i]) + 1;
    }
    memcpy(o + out_n, a + rest, len - rest);
    put_file(path, o, out_n + len - rest, 0, true);
    free(a);
    free(o);
}

/* libotf2 refuses to open an archive whose anchor holds a property name
 * other than NAME::NAME... of [A-Za-z0-9_], one name twice (in any case)
 * or an empty value, and leaks what it had built; with many properties
 * its time grows with their square (32000: 5 s).  The anchor's check
 * refuses these first, naming the property. */
TEST(scan_anchor_properties_libotf2_refuses)
{
    static const char *const bad_name[] = {"A", "1"}, *const bad_sep[] = {"A:::B", "1"},
                             *const twice[] = {"X::Y", "1", "x::y", "2"},
                             *const empty[] = {"X::Y", ""}, *const fine[] = {"x::y::z_1", "v"};
    static const char *many[2 * 1001];
    static char names[1001][16];
    char dir[4096], anchor[4200], evt[4200];
    up_trace *t = NULL;
    up_err err = {0};
    size_t i;
    char *v;

    snprintf(dir, sizeof dir, "%s", t_dir("props"));
    write_pairs(dir, 1, evt, sizeof evt);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);

    set_props(anchor, bad_name, 1);
    CHECK_EQ(up_trace_open(dir, &t, &err), UP_EFORMAT);
    CHECK(strstr(err.msg, "property name 'A'") != NULL);
    set_props(anchor, bad_sep, 1);
    CHECK_EQ(up_trace_open(dir, &t, &err), UP_EFORMAT);
    CHECK(strstr(err.msg, "property name 'A:::B'") != NULL);
    set_props(anchor, twice, 2);
    CHECK_EQ(up_trace_open(dir, &t, &err), UP_EFORMAT);
    CHECK(strstr(err.msg, "property 'x::y' twice") || strstr(err.msg, "property 'X::Y' twice"));
    set_props(anchor, empty, 1);
    CHECK_EQ(up_trace_open(dir, &t, &err), UP_EFORMAT);
    CHECK(strstr(err.msg, "property 'X::Y' without a value") != NULL);
    for (i = 0; i < 1001; i++) {
        snprintf(names[i], sizeof names[i], "P::N%zu", i);
        many[2 * i] = names[i];
        many[2 * i + 1] = "1";
    }
    set_props(anchor, many, 1001);
    CHECK_EQ(up_trace_open(dir, &t, &err), UP_EFORMAT);
    CHECK(strstr(err.msg, "more than 1000 properties") != NULL);
    CHECK(t == NULL);

    /* accepted: 1000 properties; a name in lower case, of three parts */
    set_props(anchor, many, 1000);
    CHECK_EQ(up_trace_open(dir, &t, &err), UP_OK);
    up_trace_close(t);
    t = NULL;
    set_props(anchor, fine, 1);
    CHECK_EQ(up_trace_open(dir, &t, &err), UP_OK);
    if (t) {
        v = up_trace_property(t, "X::Y::Z_1");
        CHECK(v && !strcmp(v, "v"));
        up_free(v);
        up_trace_close(t);
    }
}

/* ---- definition records ------------------------------------------------------------ */

/* libotf2 reads the fields OTF2 1.2 added to a Group record (type,
 * paradigm, flags) when the record has room for them, and when the flags
 * do not decode it fails and leaks the members it had read.  A Group whose
 * added fields are damaged is damage, like one whose members are. */
TEST(scan_group_record_with_damaged_flags_is_damage)
{
    char dir[4096], evt[4200], def[4200], what[256];
    unsigned char *d;
    uint64_t t[8];
    size_t n, at = 18, len, i;
    up_trace *tr = NULL;
    up_err err = {0};
    bool found = false;

    snprintf(dir, sizeof dir, "%s", t_dir("group"));
    write_pairs(dir, 1, evt, sizeof evt);
    snprintf(def, sizeof def, "%s/traces.def", dir);
    d = slurp(def, &n);
    CHECK(d != NULL);
    if (!d)
        return;
    /* the first Group (kind 18): its last byte is its flags, 0 */
    while (at + 2 <= n && d[at] != 0x00 && d[at] != 0x02) {
        len = d[at + 1];
        if (d[at] == 18 && len < 0xff) {
            CHECK_EQ(d[at + 1 + len], 0x00);
            d[at + 1 + len] = 0x08; /* a compressed 32-bit number of 8 bytes */
            found = true;
            break;
        }
        at += 2 + (len == 0xff ? 8 : len);
    }
    CHECK(found);
    put_file(def, d, n, 0, true);
    free(d);
    CHECK_EQ(up_trace_open(dir, &tr, &err), UP_OK);
    if (!tr)
        return;
    what[0] = 0;
    for (i = 0; i < up_trace_ndamage(tr); i++)
        if (up_trace_damage(tr, i)->loc == -1)
            snprintf(what, sizeof what, "%s", up_trace_damage(tr, i)->what);
    CHECK(strstr(what, "a damaged record (kind 18") != NULL);
    CHECK_EQ(up_trace_defs(tr)->nlocs, 2); /* locations come before groups */
    up_trace_close(tr);
    CHECK_EQ(read_loc(dir, 0, t, 8, NULL, 0), 4);
    CHECK_EQ(t[3], 130);
}

/* libotf2 builds the id map of a local MappingTable and then drops it,
 * unfreed, when its mapping type is not one it knows (OTF2_MAPPING_MAX or
 * more).  Such a table is damage. */
TEST(scan_mapping_table_of_unknown_type_is_damage)
{
    static const char *const files[] = {"traces.otf2", "traces.def", "traces/0.def", "traces/0.evt",
                                        "traces/1.def", "traces/1.evt", "traces/2.def",
                                        "traces/2.evt", "traces/3.def", "traces/3.evt"};
    char dir[4096], src[4200], dst[4300], what[256];
    unsigned char *d;
    uint64_t t[64];
    size_t n, i, want = 0;
    snprintf(dir, sizeof dir, "%s", t_dir("mapping"));
    snprintf(dst, sizeof dst, "%s/traces", dir);
    CHECK(mkdir(dir, 0755) == 0 && mkdir(dst, 0755) == 0);
    for (i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(src, sizeof src, "%s/%s", t_src("tests/data/casita-4_mpi_ls_barr"), files[i]);
        snprintf(dst, sizeof dst, "%s/%s", dir, files[i]);
        d = slurp(src, &n);
        CHECK(d != NULL);
        if (!d)
            return;
        /* location 3's second MappingTable (05 06, at byte 28): type 2 -> 15 */
        if (!strcmp(files[i], "traces/3.def")) {
            CHECK(n > 31 && d[28] == 0x05 && d[29] == 0x06 && d[30] == OTF2_MAPPING_LOCATION);
            want = read_loc(t_src("tests/data/casita-4_mpi_ls_barr"), 3, t, 64, NULL, 0);
            d[30] = OTF2_MAPPING_MAX;
        }
        put_file(dst, d, n, 0, true);
        free(d);
    }
    CHECK(want > 0);
    CHECK_EQ(read_loc(dir, 3, t, 64, what, sizeof what), want);
    CHECK(strstr(what, "a damaged record (kind 5") != NULL);
}

/* ---- timestamp repairs --------------------------------------------------------------- */

/* A spike (a timestamp token ahead of those around it) whose records are
 * of a kind libotf2 does not know: they are counted but never delivered,
 * so the stream never saw the spike's last record and took every later
 * record of the location for part of the spike (its time the time before:
 * the whole location flattened to the trace's start). */
TEST(scan_spike_of_unknown_records_ends)
{
    char dir[4096], evt[4200], what[256];
    unsigned char *d, *e;
    uint64_t t[8], last, huge = UINT64_C(0xffffff00000003e8);
    size_t n, k;
    snprintf(dir, sizeof dir, "%s", t_dir("spike"));
    write_pairs(dir, 1, evt, sizeof evt);
    d = slurp(evt, &n);
    CHECK(d != NULL && n > 18 && d[18] == 0x05);
    if (!d)
        return;
    /* after the header: a token far ahead, one record of kind 255 (empty) */
    e = malloc(n + 11);
    memcpy(e, d, 18);
    memcpy(&last, d + 10, 8);
    last++;
    memcpy(e + 10, &last, 8); /* little endian, as written here */
    e[18] = 0x05;
    memcpy(e + 19, &huge, 8);
    e[27] = 0xff;
    e[28] = 0x00;
    memcpy(e + 29, d + 18, n - 18);
    put_file(evt, e, n + 11, 0, true);
    /* kind 255 is a record only in an archive of an OTF2 newer than 3.0
     * (in an older one it is damage, scan.c): the anchor says 3.1 */
    {
        char anchor[4200];
        unsigned char minor = 1;
        snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
        put_file(anchor, &minor, 1, 10, false);
    }
    k = read_loc(dir, 0, t, 8, what, sizeof what);
    CHECK_EQ(k, 4);
    CHECK_EQ(t[0], 100);
    CHECK_EQ(t[1], 110);
    CHECK_EQ(t[2], 120);
    CHECK_EQ(t[3], 130);
    free(d);
    free(e);
}
