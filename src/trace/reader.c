/*
 * reader.c - opening an input archive and streaming each location's records.
 *
 * Place in the data flow: first stage.  up_trace_open reads the global and
 * local definitions (OTF2 applies the ClockOffset and MappingTable records of
 * the local definitions to every event it delivers afterwards) and opens one
 * OTF2_EvtReader per location.  A stream decodes records into a ring of
 * up_event slots in batches; the ring grows only when a model looks further
 * ahead than it holds, up to UP_STREAM_MAX_LOOKAHEAD.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trace_int.h"

#define STREAM_BATCH 256
#define STREAM_LOOKAHEAD_STEP 1
#define STREAM_INITIAL 256

struct up_trace {
    char *anchor;
    OTF2_Reader *rd;
    up_defs defs;
    up_stream *streams;
    uint64_t unknown_records;
    up_anchor_info ai;
    char *dir;              /* <folder of the anchor>/<archive name>: the files */
    unsigned char *scratch; /* one event chunk, for the scans */
    up_damage *damage;
    size_t ndamage, cap_damage;
    OTF2_EvtReaderCallbacks *ecb; /* for the event readers, made as needed */
};

/* ---- the ring ----------------------------------------------------------- */

static bool ring_grow(up_stream *s)
{
    size_t ncap = s->cap ? s->cap * 2 : STREAM_INITIAL, i;
    up_event *nr;
    if (ncap > 2 * (size_t)UP_STREAM_MAX_LOOKAHEAD)
        return false;
    nr = up_calloc(ncap, sizeof *nr);
    if (!nr)
        return false;
    /* move every slot (with its buffer) so that the oldest comes first */
    for (i = 0; i < s->cap; i++)
        nr[i] = s->ring[(s->head + i) & (s->cap - 1)];
    up_free(s->ring);
    s->ring = nr;
    s->cap = ncap;
    s->head = 0;
    return true;
}

/* Makes room for one more buffered record, or says why not. */
static up_status ring_reserve(up_stream *s, up_err *err)
{
    if (s->count < s->cap || ring_grow(s))
        return UP_OK;
    return UP_ERR(err, UP_ENOMEM, "out of memory buffering location %llu of '%s'",
                  (unsigned long long)s->t->defs.locs[s->loc].id, s->t->anchor);
}

/* ---- damage and repairs ------------------------------------------------- */

static up_damage_hook damage_hook;
static void *damage_hook_ctx;

static bool add_damage(up_trace *t, int kind, long loc, const char *file, uint64_t off,
                       const char *what, bool events, uint64_t kept, uint64_t declared,
                       uint64_t t_last)
{
    up_damage *d;
    if (!up_grow((void **)&t->damage, &t->cap_damage, t->ndamage + 1, sizeof *t->damage))
        return false;
    d = &t->damage[t->ndamage];
    memset(d, 0, sizeof *d);
    d->file = up_strdup(file);
    d->what = up_strdup(what);
    if (!d->file || !d->what) {
        up_free(d->file);
        up_free(d->what);
        return false;
    }
    d->kind = kind;
    d->loc = loc;
    d->offset = off;
    d->events = events;
    d->kept = kept;
    d->declared = declared;
    d->t_last = t_last;
    t->ndamage++;
    if (damage_hook)
        damage_hook(damage_hook_ctx, t, d);
    return true;
}

void up_trace_set_damage_hook(up_damage_hook fn, void *ctx)
{
    damage_hook = fn;
    damage_hook_ctx = ctx;
}

up_damage_hook up_trace_damage_hook(void **ctx)
{
    *ctx = damage_hook_ctx;
    return damage_hook;
}

void up_damage_line(const up_trace *t, const up_damage *d, char *buf, size_t cap)
{
    const up_defs *df = &t->defs;
    char where[64] = "";
    int n;
    if (d->loc >= 0)
        snprintf(where, sizeof where, " (location %llu)", (unsigned long long)df->locs[d->loc].id);
    if (d->kind != UP_DAMAGE_FILE)
        n = snprintf(buf, cap, "'%s'%s: %s", d->file, where, d->what);
    else
        n = snprintf(buf, cap, "'%s' at byte %llu%s: %s", d->file, (unsigned long long)d->offset,
                     where, d->what);
    if (n < 0 || (size_t)n >= cap)
        return;
    if (d->loc < 0 && d->kind == UP_DAMAGE_FILE) {
        snprintf(buf + n, cap - (size_t)n, "; the %llu definitions before it are used",
                 (unsigned long long)d->kept);
        return;
    }
    if (!d->events || d->kind != UP_DAMAGE_FILE)
        return;
    if (d->declared && d->declared != UINT64_MAX && d->kept < d->declared)
        n += snprintf(buf + n, cap - (size_t)n, "; %llu of %llu records kept",
                      (unsigned long long)d->kept, (unsigned long long)d->declared);
    else
        n += snprintf(buf + n, cap - (size_t)n, "; %llu records kept", (unsigned long long)d->kept);
    if (n > 0 && (size_t)n < cap && d->kept < d->declared && df->resolution &&
        df->trace_length && d->t_last >= df->global_offset &&
        d->t_last - df->global_offset < df->trace_length)
        snprintf(buf + n, cap - (size_t)n, ", the last %.6f s of the run lost on this location",
                 (double)(df->global_offset + df->trace_length - d->t_last) / (double)df->resolution);
}

size_t up_trace_ndamage(const up_trace *t) { return t->ndamage; }
const up_damage *up_trace_damage(const up_trace *t, size_t i) { return &t->damage[i]; }

void up_trace_time_repairs(const up_trace *t, size_t loc, uint64_t out[3])
{
    const up_stream *s = &t->streams[loc];
    out[0] = s->fix_back;
    out[1] = s->fix_range;
    out[2] = s->fix_spike;
}

/* The stream has delivered all it may: note why it ended early, once. */
static up_status stream_ended(up_stream *s, up_err *err)
{
    const up_loc_def *l = &s->t->defs.locs[s->loc];
    char m[256];
    s->eof = true;
    if (s->scan.damaged) {
        if (!add_damage(s->t, UP_DAMAGE_FILE, (long)s->loc, s->path, s->scan.damage_off, s->scan.damage, true,
                        s->seq, l->nevents, s->last_t))
            return UP_ERR(err, UP_ENOMEM, "out of memory");
    } else if (s->seq == 0 && l->nevents != 0 && (s->scan.missing || !s->scan.file_size)) {
        if (!add_damage(s->t, UP_DAMAGE_FILE, (long)s->loc, s->path, 0,
                        s->scan.missing ? "no such file" : "empty file", true, 0, l->nevents,
                        s->t->defs.global_offset))
            return UP_ERR(err, UP_ENOMEM, "out of memory");
    } else if (s->seq != l->nevents && l->nevents != 0 && l->nevents != UINT64_MAX) {
        snprintf(m, sizeof m, "holds %llu records where its definition declares %llu",
                 (unsigned long long)s->seq, (unsigned long long)l->nevents);
        if (!add_damage(s->t, UP_DAMAGE_COUNT, (long)s->loc, s->path, s->scan.file_size, m, true, s->seq,
                        l->nevents, s->last_t))
            return UP_ERR(err, UP_ENOMEM, "out of memory");
    }
    return UP_OK;
}

/* The OTF2 reader of a location, made when its first record is read:
 * OTF2 3.0.2 cannot delete one that never read (its buffer's deletion
 * fails, and it leaks the reader). */
static up_status evt_reader(up_stream *s, up_err *err)
{
    up_trace *t = s->t;
    OTF2_LocationRef id = t->defs.locs[s->loc].id;
    OTF2_ErrorCode rc;
    up_otf2_clear_();
    if (!(s->rd = OTF2_Reader_GetEvtReader(t->rd, id)))
        return UP_ERR(err, UP_EFORMAT, "cannot open the events of location %llu in '%s': %s",
                      (unsigned long long)id, t->anchor, up_otf2_msg_("no event reader"));
    if ((rc = OTF2_Reader_RegisterEvtCallbacks(t->rd, s->rd, t->ecb, s)) != OTF2_SUCCESS)
        return up_otf2_err_(err, rc, "cannot register event callbacks");
    return UP_OK;
}

/* How many more records libotf2 may deliver, at most `want`: walks the
 * event file on as far as needed.  0 = the stream ends here. */
static up_status stream_room(up_stream *s, uint64_t *want, up_err *err)
{
    up_trace *t = s->t;
    while (s->seq >= s->scan.records && !s->scan.end) {
        if (!t->scratch && !(t->scratch = up_malloc((size_t)t->ai.chunk_evt)))
            return UP_ERR(err, UP_ENOMEM, "out of memory");
        up_scan_next(&s->scan, t->scratch);
        s->spike_i = 0;
        up_stream_next_spike_(s);
    }
    if (s->seq >= s->scan.records) {
        *want = 0;
        return s->eof ? UP_OK : stream_ended(s, err);
    }
    if (*want > s->scan.records - s->seq)
        *want = s->scan.records - s->seq;
    return s->rd ? UP_OK : evt_reader(s, err);
}

/* After OTF2_EvtReader_ReadEvents: the stream's own failures, OTF2 errors,
 * the end of the stream (fewer records than asked for).  libotf2 is only
 * asked for records the scan found intact, so an error here is one the
 * scan does not know to look for: it ends the location like damage. */
static up_status after_read(up_stream *s, OTF2_ErrorCode rc, uint64_t got,
                            uint64_t want, up_err *err)
{
    const up_loc_def *l = &s->t->defs.locs[s->loc];
    if (s->nomem)
        return UP_ERR(err, UP_ENOMEM, "out of memory reading location %llu of '%s'",
                      (unsigned long long)l->id, s->t->anchor);
    if (rc != OTF2_SUCCESS && rc != OTF2_ERROR_INTERRUPTED_BY_CALLBACK) {
        /* in our words (libotf2's messages name its own source files), at
         * the record */
        s->scan.damaged = true;
        s->scan.damage_off = s->t->scratch ? up_scan_locate(&s->scan, s->seq + 1, s->t->scratch) : 0;
        snprintf(s->scan.damage, sizeof s->scan.damage,
                 "record %llu cannot be decoded (a damaged field)", (unsigned long long)s->seq + 1);
        s->scan.records = s->seq;
        s->scan.end = true;
        return stream_ended(s, err);
    }
    if (got < want && !s->eof)
        return stream_ended(s, err);
    return UP_OK;
}

static up_status stream_fill(up_stream *s, size_t need, up_err *err)
{
    up_status st;
    while (s->count < need && !s->eof) {
        size_t room;
        uint64_t want, got = 0;
        OTF2_ErrorCode rc;
        if ((st = ring_reserve(s, err)) != UP_OK)
            return st;
        /* read what is asked for, in small steps: records read ahead take
         * the buffered path, records read later the direct one */
        room = s->cap - s->count;
        want = need - s->count < STREAM_LOOKAHEAD_STEP ? STREAM_LOOKAHEAD_STEP : need - s->count;
        if (want > room)
            want = room;
        if (want > STREAM_BATCH)
            want = STREAM_BATCH;
        if ((st = stream_room(s, &want, err)) != UP_OK)
            return st;
        if (!want)
            break;
        up_otf2_clear_();
        rc = OTF2_EvtReader_ReadEvents(s->rd, want, &got);
        if ((st = after_read(s, rc, got, want, err)) != UP_OK)
            return st;
    }
    return UP_OK;
}

up_status up_stream_peek(up_stream *s, size_t i, up_event **ev, up_err *err)
{
    up_status st;
    if (i >= s->count && (st = stream_fill(s, i + 1, err)) != UP_OK) {
        *ev = NULL;
        return st;
    }
    *ev = i < s->count ? &s->ring[(s->head + i) & (s->cap - 1)] : NULL;
    return UP_OK;
}

void up_stream_pop(up_stream *s)
{
    if (s->count) {
        s->head = (s->head + 1) & (s->cap - 1);
        s->count--;
        s->popped++;
    }
}

uint64_t up_stream_records(const up_stream *s) { return s->popped; }
size_t up_stream_buffered(const up_stream *s) { return s->count; }
bool up_stream_at_end(const up_stream *s) { return s->eof && !s->count; }

up_status up_stream_direct(up_stream *s, size_t max, up_direct_fn fn,
                           up_direct_region_fn fn_region, void *ctx,
                           up_writer *out, size_t *done, up_err *err)
{
    uint64_t got, want;
    OTF2_ErrorCode rc;
    up_status st = UP_OK;
    *done = 0;
    if (s->count || s->eof)
        return UP_OK;
    if (out && (out->defs != &s->t->defs || s->loc >= out->nlocs))
        return UP_ERR(err, UP_EINTERNAL, "up_stream_direct: a writer opened for another trace");
    if (ring_reserve(s, err) != UP_OK) /* room for a declined record */
        return err ? err->status : UP_ENOMEM;
    s->direct_done = s->popped; /* records before this call */
    /* in steps that end where the intact part of the event file does */
    while (*done < max && !s->eof && st == UP_OK) {
        want = max - *done;
        if ((st = stream_room(s, &want, err)) != UP_OK || !want)
            break;
        s->direct = fn;
        s->direct_region = fn_region;
        s->direct_ctx = ctx;
        s->direct_out = out;
        s->stop = s->direct_failed = s->write_failed = false;
        up_otf2_clear_();
        got = 0;
        rc = OTF2_EvtReader_ReadEvents(s->rd, want, &got);
        s->direct = NULL;
        s->direct_region = NULL;
        *done = (size_t)(s->popped - s->direct_done);
        if (s->direct_failed) { /* fn reported the error in the caller's context */
            s->stop = false;
            return err && err->status != UP_OK ? err->status : UP_EINTERNAL;
        }
        if (s->write_failed)
            return UP_ERR(err, UP_EOTF2, "cannot write an event of location %llu: %s",
                          (unsigned long long)s->t->defs.locs[s->loc].id,
                          up_otf2_msg_("OTF2 writer error"));
        if (s->stop && !s->nomem) { /* a record was declined: it is buffered, reading resumes later */
            s->stop = false;
            return UP_OK;
        }
        st = after_read(s, rc, got, want, err);
    }
    return st;
}

/* ---- opening ------------------------------------------------------------- */

static OTF2_CallbackCode on_unknown_event(OTF2_LocationRef loc, OTF2_TimeStamp t,
                                          uint64_t pos, void *ud, OTF2_AttributeList *al)
{
    up_stream *s = ud;
    (void)loc, (void)t, (void)pos, (void)al;
    s->seq++;
    s->t->unknown_records++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_clock_offset(void *ud, OTF2_TimeStamp t, int64_t off, double sd)
{
    (void)t, (void)off, (void)sd;
    ((up_defs *)ud)->n_clock_offsets++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_mapping(void *ud, OTF2_MappingType type, const OTF2_IdMap *map)
{
    (void)type, (void)map;
    ((up_defs *)ud)->n_mapping_tables++;
    return OTF2_CALLBACK_SUCCESS;
}

static char *resolve_anchor(const char *path, up_err *err)
{
    struct stat st;
    char *a;
    size_t n;
    if (stat(path, &st) != 0) {
        UP_ERR(err, UP_EIO, "cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    if (!S_ISDIR(st.st_mode)) {
        if (!(a = up_strdup(path)))
            UP_ERR(err, UP_ENOMEM, "out of memory");
        return a;
    }
    n = strlen(path) + sizeof "/traces.otf2";
    if (!(a = up_malloc(n))) {
        UP_ERR(err, UP_ENOMEM, "out of memory");
        return NULL;
    }
    snprintf(a, n, "%s%straces.otf2", path, path[strlen(path) - 1] == '/' ? "" : "/");
    if (stat(a, &st) != 0 || S_ISDIR(st.st_mode)) {
        UP_ERR(err, UP_EFORMAT, "cannot open '%s': a directory without traces.otf2 (not an OTF2 experiment folder)", path);
        up_free(a);
        return NULL;
    }
    return a;
}

/* Written by OTF2 3.0 or older: every record kind it may hold is known. */
static bool strict(const up_trace *t)
{
    return t->ai.version[0] < 3 || (t->ai.version[0] == 3 && t->ai.version[1] == 0);
}

/* "<prefix><mid><suffix>" in a new string. */
static char *cat3(const char *a, const char *b, const char *c)
{
    size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
    char *r = up_malloc(n);
    if (r)
        snprintf(r, n, "%s%s%s", a, b, c);
    return r;
}

/* The global definitions: checked first, then read as far as intact. */
static up_status read_global_defs(up_trace *t, up_err *err)
{
    up_scan sc;
    unsigned char *buf;
    char *path = cat3(t->dir, ".def", "");
    up_status st;
    memset(&sc, 0, sizeof sc);
    if (!path || !(buf = up_malloc((size_t)t->ai.chunk_def))) {
        up_free(path);
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    }
    if ((st = up_scan_open(&sc, path, UP_FILE_GLOBAL_DEFS, t->ai.chunk_def, err)) == UP_OK) {
        sc.strict = strict(t);
        up_scan_all(&sc, buf);
        /* a damaged record length the walk survives (it lands on bytes that
         * read as records) shows as another number than the anchor's */
        /* (an anchor declaring none is damaged too: OTF2 writes the number) */
        if (!sc.damaged && sc.records && sc.records != t->ai.ngdefs) {
            sc.damaged = true;
            sc.damage_off = sc.file_size;
            snprintf(sc.damage, sizeof sc.damage,
                     "%llu definition records where the anchor declares %llu (a damaged record "
                     "length, or the definitions of another archive)",
                     (unsigned long long)sc.records, (unsigned long long)t->ai.ngdefs);
        }
        if (sc.missing || sc.records == 0)
            st = UP_ERR(err, UP_EFORMAT, "cannot read '%s': %s", path,
                        sc.missing ? "no such file (the archive's global definitions)"
                        : sc.damaged ? sc.damage : "no definitions");
        t->defs.gdefs_intact = sc.records;
        up_scan_close(&sc);
    }
    up_free(buf);
    if (st == UP_OK)
        st = up_defs_read_(&t->defs, t->rd, t->anchor, t->defs.gdefs_intact, err);
    /* the damage is announced once the definitions before it are known to be
     * usable; when they define no location, it is the one error */
    if (st == UP_OK && sc.damaged) {
        if (!t->defs.nlocs)
            st = UP_ERR(err, UP_EFORMAT, "cannot read '%s' at byte %llu: %s; no location is defined before it",
                        path, (unsigned long long)sc.damage_off, sc.damage);
        else if (!add_damage(t, UP_DAMAGE_FILE, -1, path, sc.damage_off, sc.damage, false, sc.records, 0, 0))
            st = UP_ERR(err, UP_ENOMEM, "out of memory");
    }
    if (st == UP_OK && t->defs.n_dup_defs) { /* repaired: each id keeps its first */
        char what[256];
        snprintf(what, sizeof what, "%llu definition%s of an id defined before (the first: %s); each id keeps "
                 "its first definition, the others are left out of the outputs",
                 (unsigned long long)t->defs.n_dup_defs, t->defs.n_dup_defs == 1 ? "" : "s", t->defs.dup_first);
        if (!add_damage(t, UP_DAMAGE_DUPLICATE, -1, path, 0, what, false, t->defs.n_dup_defs, 0, 0))
            st = UP_ERR(err, UP_ENOMEM, "out of memory");
    }
    up_free(path);
    return st;
}

/* A location's local definitions (clock offsets, id mappings): read as far
 * as intact; damage loses what comes after it, and is listed. */
static up_status read_local_defs(up_trace *t, size_t i, OTF2_DefReaderCallbacks *dcb,
                                 unsigned char *buf, up_err *err)
{
    OTF2_LocationRef id = t->defs.locs[i].id;
    OTF2_DefReader *dr;
    OTF2_ErrorCode rc;
    up_scan sc;
    char idbuf[32], *path;
    uint64_t n = 0;
    up_status st;
    snprintf(idbuf, sizeof idbuf, "/%llu.def", (unsigned long long)id);
    if (!(path = cat3(t->dir, idbuf, "")))
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    if ((st = up_scan_open(&sc, path, UP_FILE_LOCAL_DEFS, t->ai.chunk_def, err)) != UP_OK) {
        up_free(path);
        return st;
    }
    sc.strict = strict(t);
    up_scan_all(&sc, buf);
    up_scan_close(&sc);
    if (sc.records && (dr = OTF2_Reader_GetDefReader(t->rd, id)) != NULL) {
        OTF2_Reader_RegisterDefCallbacks(t->rd, dr, dcb, &t->defs);
        up_otf2_clear_();
        rc = OTF2_Reader_ReadLocalDefinitions(t->rd, dr, sc.records, &n);
        t->defs.n_local_defs += n;
        OTF2_Reader_CloseDefReader(t->rd, dr);
        if (rc != OTF2_SUCCESS && !sc.damaged) { /* e.g. two clock offsets at one time */
            sc.damaged = true;
            sc.damage_off = up_scan_locate(&sc, n + 1, buf);
            snprintf(sc.damage, sizeof sc.damage,
                     "definition %llu cannot be read (a damaged field, or one inconsistent with "
                     "those before it)", (unsigned long long)n + 1);
        }
    }
    if (sc.damaged && !add_damage(t, UP_DAMAGE_FILE, (long)i, path, sc.damage_off, sc.damage, false, n, 0, 0))
        st = UP_ERR(err, UP_ENOMEM, "out of memory");
    up_free(path);
    return st;
}

/* Event files are walked as they are read (stream_room); here each
 * stream learns its file and its clock range. */
static up_status open_stream(up_trace *t, size_t i, up_err *err)
{
    up_stream *s = &t->streams[i];
    const up_defs *d = &t->defs;
    up_status st;
    char idbuf[32];
    snprintf(idbuf, sizeof idbuf, "/%llu.evt", (unsigned long long)d->locs[i].id);
    if (!(s->path = cat3(t->dir, idbuf, "")))
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    s->last_t = s->t_lo = d->global_offset;
    s->t_hi = d->trace_length && d->global_offset <= UINT64_MAX - d->trace_length
                  ? d->global_offset + d->trace_length
                  : UINT64_MAX;
    s->spike_first = s->spike_last = UINT64_MAX;
    st = up_scan_open(&s->scan, s->path, UP_FILE_EVENTS, t->ai.chunk_evt, err);
    s->scan.strict = strict(t);
    return st;
}

up_status up_trace_open(const char *path, up_trace **out, up_err *err)
{
    up_trace *t;
    up_status st = UP_OK;
    OTF2_ErrorCode rc;
    OTF2_EvtReaderCallbacks *ecb = NULL;
    OTF2_DefReaderCallbacks *dcb = NULL;
    unsigned char *dbuf = NULL;
    bool evt_open = false;
    size_t i, n;

    *out = NULL;
    up_otf2_quiet();
    if (!(t = up_calloc(1, sizeof *t)))
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    if (!(t->anchor = resolve_anchor(path, err))) {
        up_free(t);
        return err ? err->status : UP_EIO;
    }
    /* the anchor is checked by us first: OTF2 3.0.2 leaks the archive it
     * fails to open, and its messages name no file */
    if ((st = up_scan_anchor(t->anchor, &t->ai, err)) != UP_OK)
        goto fail;
    n = strlen(t->anchor);
    if (n < 6 || strcmp(t->anchor + n - 5, ".otf2")) {
        st = UP_ERR(err, UP_EFORMAT, "cannot open '%s': an OTF2 anchor file's name ends in .otf2", t->anchor);
        goto fail;
    }
    if (!(t->dir = up_strdup(t->anchor))) {
        st = UP_ERR(err, UP_ENOMEM, "out of memory");
        goto fail;
    }
    t->dir[n - 5] = '\0';
    up_otf2_clear_();
    t->rd = OTF2_Reader_Open(t->anchor);
    if (!t->rd) {
        st = UP_ERR(err, UP_EFORMAT, "cannot open '%s': not an OTF2 archive (%s)", t->anchor,
                    up_otf2_msg_("unreadable anchor file"));
        goto fail;
    }
    rc = OTF2_Reader_SetSerialCollectiveCallbacks(t->rd);
    if (rc != OTF2_SUCCESS) {
        st = UP_ERR(err, UP_EFORMAT, "cannot open '%s': not an OTF2 archive (%s)", t->anchor,
                    up_otf2_msg_(OTF2_Error_GetDescription(rc)));
        goto fail;
    }
    {
        char *creator = NULL;
        if (OTF2_Reader_GetCreator(t->rd, &creator) == OTF2_SUCCESS && creator) {
            t->defs.creator = up_strdup(creator);
            free(creator); /* allocated by OTF2 with malloc */
        }
    }
    if ((st = read_global_defs(t, err)) != UP_OK)
        goto fail;
    OTF2_Reader_GetNumberOfSnapshots(t->rd, &t->defs.n_snapshots);
    OTF2_Reader_GetNumberOfThumbnails(t->rd, &t->defs.n_thumbnails);
    if (t->defs.nlocs == 0) {
        st = UP_ERR(err, UP_EFORMAT, "'%s' defines no locations", t->anchor);
        goto fail;
    }
    if (!(t->streams = up_calloc(t->defs.nlocs, sizeof *t->streams)) ||
        !(dbuf = up_malloc((size_t)t->ai.chunk_def))) {
        st = UP_ERR(err, UP_ENOMEM, "out of memory");
        goto fail;
    }
    for (i = 0; i < t->defs.nlocs; i++) {
        t->streams[i].t = t;
        t->streams[i].loc = (uint32_t)i;
        OTF2_Reader_SelectLocation(t->rd, t->defs.locs[i].id);
    }
    ecb = OTF2_EvtReaderCallbacks_New();
    dcb = OTF2_DefReaderCallbacks_New();
    if (!ecb || !dcb) {
        st = UP_ERR(err, UP_ENOMEM, "out of memory");
        goto fail;
    }
    up_store_evt_callbacks_(ecb);
    OTF2_EvtReaderCallbacks_SetUnknownCallback(ecb, on_unknown_event);
    OTF2_DefReaderCallbacks_SetClockOffsetCallback(dcb, on_clock_offset);
    OTF2_DefReaderCallbacks_SetMappingTableCallback(dcb, on_mapping);
    if (OTF2_Reader_OpenDefFiles(t->rd) == OTF2_SUCCESS) {
        for (i = 0; i < t->defs.nlocs && st == UP_OK; i++)
            st = read_local_defs(t, i, dcb, dbuf, err);
        OTF2_Reader_CloseDefFiles(t->rd);
        if (st != UP_OK)
            goto fail;
    }
    if ((rc = OTF2_Reader_OpenEvtFiles(t->rd)) != OTF2_SUCCESS) {
        st = UP_ERR(err, UP_EFORMAT, "cannot open the event files of '%s': %s", t->anchor,
                    up_otf2_msg_(OTF2_Error_GetDescription(rc)));
        goto fail;
    }
    evt_open = true;
    {
        /* nothing usable: every location that declares records has an event
         * file without a single chunk header (missing, empty, not a file) */
        size_t declaring = 0, usable = 0, first_bad = SIZE_MAX;
        for (i = 0; i < t->defs.nlocs; i++) {
            up_stream *s = &t->streams[i];
            if ((st = open_stream(t, i, err)) != UP_OK)
                goto fail;
            if (t->defs.locs[i].nevents == 0)
                continue;
            declaring++;
            if (up_scan_header(&s->scan))
                usable++;
            else if (first_bad == SIZE_MAX)
                first_bad = i;
        }
        if (declaring && !usable) {
            up_stream *s = &t->streams[first_bad];
            st = UP_ERR(err, UP_EFORMAT, "'%s' (location %llu): %s; no location of '%s' has a usable event file",
                        s->path, (unsigned long long)t->defs.locs[first_bad].id,
                        s->scan.missing ? "no such file" : s->scan.damaged ? s->scan.damage : "empty",
                        t->anchor);
            goto fail;
        }
    }
    up_free(dbuf);
    t->ecb = ecb;
    OTF2_DefReaderCallbacks_Delete(dcb);
    *out = t;
    return UP_OK;

fail:
    /* OTF2 3.0.2 leaks its global definition reader when an archive is
     * closed with its event files open */
    if (evt_open)
        OTF2_Reader_CloseEvtFiles(t->rd);
    up_free(dbuf);
    if (ecb)
        OTF2_EvtReaderCallbacks_Delete(ecb);
    if (dcb)
        OTF2_DefReaderCallbacks_Delete(dcb);
    up_trace_close(t);
    return st;
}

void up_trace_release_streams(up_trace *t)
{
    size_t i, j;
    if (!t)
        return;
    if (t->streams) {
        for (i = 0; i < t->defs.nlocs; i++) {
            up_stream *s = &t->streams[i];
            if (damage_hook && s->fix_back + s->fix_range + s->fix_spike) {
                char m[200];
                up_damage d;
                memset(&d, 0, sizeof d);
                snprintf(m, sizeof m, "%llu timestamps repaired (%llu running backwards, %llu outside "
                                      "the clock range, %llu jumping ahead), each to the time before it",
                         (unsigned long long)(s->fix_back + s->fix_range + s->fix_spike),
                         (unsigned long long)s->fix_back, (unsigned long long)s->fix_range,
                         (unsigned long long)s->fix_spike);
                d.loc = (long)i;
                d.file = s->path;
                d.what = m;
                d.kind = UP_DAMAGE_TIMES;
                damage_hook(damage_hook_ctx, t, &d);
            }
            for (j = 0; j < s->cap; j++)
                up_free(s->ring[j].xbuf);
            up_free(s->ring);
            up_scan_close(&s->scan);
            up_free(s->path);
        }
    }
    if (t->rd)
        OTF2_Reader_Close(t->rd); /* closes the event readers too */
    t->rd = NULL;
    up_free(t->streams);
    t->streams = NULL;
    up_free(t->scratch);
    t->scratch = NULL;
    if (t->ecb)
        OTF2_EvtReaderCallbacks_Delete(t->ecb);
    t->ecb = NULL;
}

void up_trace_close(up_trace *t)
{
    size_t i;
    if (!t)
        return;
    up_trace_release_streams(t);
    up_defs_free_(&t->defs);
    for (i = 0; i < t->ndamage; i++) {
        up_free(t->damage[i].file);
        up_free(t->damage[i].what);
    }
    up_free(t->damage);
    up_free(t->dir);
    up_free(t->anchor);
    up_free(t);
}

const up_defs *up_trace_defs(const up_trace *t) { return &t->defs; }
const char *up_trace_anchor(const up_trace *t) { return t->anchor; }
const char *up_trace_dir_(const up_trace *t) { return t->dir; }
up_stream *up_trace_stream(up_trace *t, size_t loc) { return &t->streams[loc]; }
uint64_t up_trace_unknown_records(const up_trace *t) { return t->unknown_records; }

char *up_trace_property(const up_trace *t, const char *name)
{
    char *v = NULL, *r = NULL;
    if (t->rd && OTF2_Reader_GetProperty(t->rd, name, &v) == OTF2_SUCCESS && v)
        r = up_strdup(v);
    free(v); /* allocated by OTF2 with malloc */
    return r;
}
