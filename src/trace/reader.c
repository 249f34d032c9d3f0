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
};

/* ---- OTF2 error capture -------------------------------------------------- */

static _Thread_local char otf2_msg[512];

static OTF2_ErrorCode on_otf2_error(void *ud, const char *file, uint64_t line,
                                    const char *func, OTF2_ErrorCode code,
                                    const char *fmt, va_list va)
{
    int n;
    (void)ud, (void)file, (void)line, (void)func;
    n = snprintf(otf2_msg, sizeof otf2_msg, "%s", OTF2_Error_GetDescription(code));
    if (fmt && *fmt && n > 0 && (size_t)n < sizeof otf2_msg - 3) {
        snprintf(otf2_msg + n, sizeof otf2_msg - (size_t)n, ": ");
        vsnprintf(otf2_msg + n + 2, sizeof otf2_msg - (size_t)n - 2, fmt, va);
    }
    return code;
}

void up_otf2_quiet(void) { OTF2_Error_RegisterCallback(on_otf2_error, NULL); }

const char *up_otf2_last_error(void) { return otf2_msg; }

up_status up_otf2_err_(up_err *err, OTF2_ErrorCode code, const char *what)
{
    return UP_ERR(err, UP_EOTF2, "%s: %s", what,
                  otf2_msg[0] ? otf2_msg : OTF2_Error_GetDescription(code));
}

/* ---- stream slots ------------------------------------------------------- */

up_event *up_stream_slot_(void *ud, unsigned kind, uint64_t t,
                          OTF2_AttributeList *al, size_t arrays, unsigned char **xp)
{
    up_stream *s = ud;
    up_event *e = &s->ring[(s->head + s->count) & (s->cap - 1)];
    uint32_t na = al ? OTF2_AttributeList_GetNumberOfElements(al) : 0, i;
    size_t abytes = ((size_t)na * sizeof(up_attr) + 7u) / 8u * 8u;
    size_t need = abytes + arrays;

    if (need > e->xcap) {
        unsigned char *nb = up_reallocarray(e->xbuf, need, 1);
        if (!nb) {
            s->nomem = true;
            return NULL;
        }
        e->xbuf = nb;
        e->xcap = need;
    }
    e->kind = (uint16_t)kind;
    e->time = t;
    e->t_out = t;
    e->nattrs = na;
    e->attrs = na ? (up_attr *)(void *)e->xbuf : NULL;
    for (i = 0; i < na; i++)
        OTF2_AttributeList_GetAttributeByIndex(al, i, &e->attrs[i].id,
                                               &e->attrs[i].type, &e->attrs[i].value);
    *xp = e->xbuf + abytes;
    s->count++;
    return e;
}

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

/* After OTF2_EvtReader_ReadEvents: the stream's own failures, OTF2 errors (a
 * location without an event file is an empty location), the end of the
 * stream (fewer records than asked for). */
static up_status after_read(up_stream *s, OTF2_ErrorCode rc, uint64_t got,
                            uint64_t want, up_err *err)
{
    const up_loc_def *l = &s->t->defs.locs[s->loc];
    if (s->nomem)
        return UP_ERR(err, UP_ENOMEM, "out of memory reading location %llu of '%s'",
                      (unsigned long long)l->id, s->t->anchor);
    if (rc != OTF2_SUCCESS && rc != OTF2_ERROR_INTERRUPTED_BY_CALLBACK) {
        if (l->nevents == 0 && !s->popped && !s->count) {
            s->eof = true;
            return UP_OK;
        }
        return UP_ERR(err, UP_EFORMAT, "cannot read the events of location %llu in '%s': %s",
                      (unsigned long long)l->id, s->t->anchor,
                      otf2_msg[0] ? otf2_msg : OTF2_Error_GetDescription(rc));
    }
    if (got < want)
        s->eof = true;
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
        otf2_msg[0] = 0;
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
                           OTF2_EvtWriter *out, size_t *done, up_err *err)
{
    uint64_t got = 0;
    OTF2_ErrorCode rc;
    *done = 0;
    if (s->count || s->eof)
        return UP_OK;
    if (ring_reserve(s, err) != UP_OK) /* room for a declined record */
        return err ? err->status : UP_ENOMEM;
    s->direct = fn;
    s->direct_region = fn_region;
    s->direct_ctx = ctx;
    s->direct_out = out;
    s->direct_done = s->popped; /* records before this call */
    s->stop = s->direct_failed = s->write_failed = false;
    otf2_msg[0] = 0;
    rc = OTF2_EvtReader_ReadEvents(s->rd, max, &got);
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
                      otf2_msg[0] ? otf2_msg : "OTF2 writer error");
    if (s->stop && !s->nomem) { /* a record was declined: it is buffered, reading resumes later */
        s->stop = false;
        return UP_OK;
    }
    return after_read(s, rc, got, max, err);
}

/* ---- opening ------------------------------------------------------------- */

static OTF2_CallbackCode on_unknown_event(OTF2_LocationRef loc, OTF2_TimeStamp t,
                                          uint64_t pos, void *ud, OTF2_AttributeList *al)
{
    up_stream *s = ud;
    (void)loc, (void)t, (void)pos, (void)al;
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

/* An OTF2 anchor file starts with a chunk-header byte, an endianness byte
 * and the string "OTF2".  Checking it first gives a clearer message than
 * OTF2's, and keeps OTF2 3.0.2 from leaking the archive it fails to open. */
static bool looks_like_anchor(const char *path, up_err *err)
{
    unsigned char head[7];
    FILE *f = fopen(path, "rb");
    size_t n;
    if (!f) {
        UP_ERR(err, UP_EIO, "cannot open '%s': %s", path, strerror(errno));
        return false;
    }
    n = fread(head, 1, sizeof head, f);
    fclose(f);
    if (n < sizeof head || memcmp(head + 2, "OTF2", 5) != 0) {
        UP_ERR(err, UP_EFORMAT, "cannot open '%s': not an OTF2 archive (no OTF2 anchor signature)", path);
        return false;
    }
    return true;
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
        if (!looks_like_anchor(path, err))
            return NULL;
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
    if (!looks_like_anchor(a, err)) {
        up_free(a);
        return NULL;
    }
    return a;
}

up_status up_trace_open(const char *path, up_trace **out, up_err *err)
{
    up_trace *t;
    up_status st = UP_OK;
    OTF2_ErrorCode rc;
    OTF2_EvtReaderCallbacks *ecb = NULL;
    OTF2_DefReaderCallbacks *dcb = NULL;
    bool defs_open;
    size_t i;

    *out = NULL;
    up_otf2_quiet();
    if (!(t = up_calloc(1, sizeof *t)))
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    if (!(t->anchor = resolve_anchor(path, err))) {
        up_free(t);
        return err ? err->status : UP_EIO;
    }
    otf2_msg[0] = 0;
    t->rd = OTF2_Reader_Open(t->anchor);
    if (!t->rd) {
        st = UP_ERR(err, UP_EFORMAT, "cannot open '%s': not an OTF2 archive (%s)", t->anchor,
                    otf2_msg[0] ? otf2_msg : "unreadable anchor file");
        goto fail;
    }
    rc = OTF2_Reader_SetSerialCollectiveCallbacks(t->rd);
    if (rc != OTF2_SUCCESS) {
        st = UP_ERR(err, UP_EFORMAT, "cannot open '%s': not an OTF2 archive (%s)", t->anchor,
                    otf2_msg[0] ? otf2_msg : OTF2_Error_GetDescription(rc));
        goto fail;
    }
    {
        char *creator = NULL;
        if (OTF2_Reader_GetCreator(t->rd, &creator) == OTF2_SUCCESS && creator) {
            t->defs.creator = up_strdup(creator);
            free(creator); /* allocated by OTF2 with malloc */
        }
    }
    if ((st = up_defs_read_(&t->defs, t->rd, t->anchor, err)) != UP_OK)
        goto fail;
    OTF2_Reader_GetNumberOfSnapshots(t->rd, &t->defs.n_snapshots);
    OTF2_Reader_GetNumberOfThumbnails(t->rd, &t->defs.n_thumbnails);
    if (t->defs.nlocs == 0) {
        st = UP_ERR(err, UP_EFORMAT, "'%s' defines no locations", t->anchor);
        goto fail;
    }
    if (!(t->streams = up_calloc(t->defs.nlocs, sizeof *t->streams))) {
        st = UP_ERR(err, UP_ENOMEM, "out of memory");
        goto fail;
    }
    for (i = 0; i < t->defs.nlocs; i++)
        OTF2_Reader_SelectLocation(t->rd, t->defs.locs[i].id);
    defs_open = OTF2_Reader_OpenDefFiles(t->rd) == OTF2_SUCCESS;
    if ((rc = OTF2_Reader_OpenEvtFiles(t->rd)) != OTF2_SUCCESS) {
        st = UP_ERR(err, UP_EFORMAT, "cannot open the event files of '%s': %s", t->anchor,
                    otf2_msg[0] ? otf2_msg : OTF2_Error_GetDescription(rc));
        goto fail;
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

    for (i = 0; i < t->defs.nlocs; i++) {
        up_stream *s = &t->streams[i];
        OTF2_LocationRef id = t->defs.locs[i].id;
        s->t = t;
        s->loc = (uint32_t)i;
        if (defs_open) {
            OTF2_DefReader *dr = OTF2_Reader_GetDefReader(t->rd, id);
            if (dr) {
                uint64_t n = 0;
                OTF2_Reader_RegisterDefCallbacks(t->rd, dr, dcb, &t->defs);
                rc = OTF2_Reader_ReadAllLocalDefinitions(t->rd, dr, &n);
                t->defs.n_local_defs += n;
                OTF2_Reader_CloseDefReader(t->rd, dr);
                if (rc != OTF2_SUCCESS) {
                    st = UP_ERR(err, UP_EFORMAT, "cannot read the local definitions of location %llu in '%s': %s",
                                (unsigned long long)id, t->anchor,
                                otf2_msg[0] ? otf2_msg : OTF2_Error_GetDescription(rc));
                    goto fail;
                }
            }
        }
        s->rd = OTF2_Reader_GetEvtReader(t->rd, id);
        if (!s->rd) {
            st = UP_ERR(err, UP_EFORMAT, "cannot open the events of location %llu in '%s': %s",
                        (unsigned long long)id, t->anchor, otf2_msg[0] ? otf2_msg : "no event reader");
            goto fail;
        }
        if ((rc = OTF2_Reader_RegisterEvtCallbacks(t->rd, s->rd, ecb, s)) != OTF2_SUCCESS) {
            st = up_otf2_err_(err, rc, "cannot register event callbacks");
            goto fail;
        }
    }
    if (defs_open)
        OTF2_Reader_CloseDefFiles(t->rd);
    OTF2_EvtReaderCallbacks_Delete(ecb);
    OTF2_DefReaderCallbacks_Delete(dcb);
    *out = t;
    return UP_OK;

fail:
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
            for (j = 0; j < s->cap; j++)
                up_free(s->ring[j].xbuf);
            up_free(s->ring);
        }
    }
    if (t->rd)
        OTF2_Reader_Close(t->rd); /* closes the event readers too */
    t->rd = NULL;
    up_free(t->streams);
    t->streams = NULL;
}

void up_trace_close(up_trace *t)
{
    if (!t)
        return;
    up_trace_release_streams(t);
    up_defs_free_(&t->defs);
    up_free(t->anchor);
    up_free(t);
}

const up_defs *up_trace_defs(const up_trace *t) { return &t->defs; }
const char *up_trace_anchor(const up_trace *t) { return t->anchor; }
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
