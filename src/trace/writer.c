/*
 * writer.c - the output archive: every record of the input with the replay's
 * timestamps, every global definition copied in reference order (defcopy.c;
 * Locations declaring the records written: fewer than the input declared if
 * it was damaged), fresh ClockProperties, and the attributes the caller added
 * (up_writer_attr).
 *
 * Place in the data flow: last stage of compensate/simulate.  Memory is bounded
 * by OTF2 memory callbacks that hand each event buffer at most
 * WRITER_CHUNKS chunks (chunks.c); when a buffer wants another, OTF2 flushes
 * it to disk.  There is deliberately no post-flush callback: OTF2 would
 * answer it by inserting BufferFlush records of its own into the output.
 *
 * Write errors: OTF2 reports a full or read-only disk as "Buffer deletion
 * failed!" or "Chunk handling failed!", often without the errno, so a failed
 * write probes the output folder for the system's reason (up_writer_explain).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "trace/chunks.h"
#include "trace_int.h"

/* One 4 MiB chunk per location: OTF2 3.0 writes a flush of at least 4 MiB
 * straight to the file, while smaller writes go through a 4 MiB buffer it
 * allocates per open file; so one full-size chunk costs 4 MiB per location,
 * where two 1 MiB chunks cost 6. */
#define WRITER_CHUNK_SIZE (4 * 1024 * 1024)
#define WRITER_DEF_CHUNK_SIZE (4 * 1024 * 1024)
#define WRITER_CHUNKS 1

/* ---- OTF2 memory: chunks (chunks.c) ---------------------------------------- */

/* Chunks are mapped pages backed by transparent huge pages where the kernel
 * offers them (up_pages_alloc): OTF2 clears every chunk it is handed, and
 * faulting a fresh 4 MiB chunk in 4 KiB pages costs 1024 page faults.  With
 * 16 locations that made a 1M-record compensate 1.5x slower (bench/README.md). */
static void *pages_alloc(up_chunks *c, size_t size)
{
    (void)c;
    return up_pages_alloc(size);
}

static void pages_free(up_chunks *c, void *chunk, size_t size)
{
    (void)c;
    up_pages_free(chunk, size);
}

/* every event buffer WRITER_CHUNKS chunks, definitions as many as they need */
static up_chunks writer_chunks = {WRITER_CHUNKS, 0, pages_alloc, pages_free};

/* ---- open / write ---------------------------------------------------------- */

up_status up_otf2_archive_create(const char *dir, OTF2_Archive **out, up_err *err)
{
    OTF2_Archive *ar;
    OTF2_ErrorCode rc;
    up_otf2_quiet();
    *out = NULL;
    ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, WRITER_CHUNK_SIZE,
                           WRITER_DEF_CHUNK_SIZE, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar)
        return UP_ERR(err, UP_EIO, "cannot create the archive '%s': %s", up_output_name(dir),
                      up_otf2_last_error()[0] ? up_otf2_last_error() : "OTF2_Archive_Open failed");
    if ((rc = OTF2_Archive_SetFlushCallbacks(ar, &up_otf2_flush_callbacks, NULL)) != OTF2_SUCCESS ||
        (rc = OTF2_Archive_SetMemoryCallbacks(ar, &up_chunk_callbacks, &writer_chunks)) != OTF2_SUCCESS ||
        (rc = OTF2_Archive_SetSerialCollectiveCallbacks(ar)) != OTF2_SUCCESS) {
        OTF2_Archive_Close(ar);
        return up_otf2_err_(err, rc, "cannot set up the output archive");
    }
    *out = ar;
    return UP_OK;
}

/* ---- write errors: the system's reason ----------------------------------- */

/* Why writing into `dir` fails, in the system's terms: its file system is
 * read-only, or a probe as large as one output chunk cannot be written (a
 * full disk or quota, no permission, an I/O error).  0: nothing found. */
static int output_errno(const char *dir)
{
    static const char zero[65536];
    char probe[4096];
    struct statvfs sv;
    size_t left = WRITER_CHUNK_SIZE;
    int fd, e = 0;
    if (statvfs(dir, &sv) == 0 && (sv.f_flag & ST_RDONLY))
        return EROFS;
    if ((size_t)snprintf(probe, sizeof probe, "%s/.unperturb-probe-%ld", dir, (long)getpid()) >= sizeof probe)
        return 0;
    if ((fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0)
        return errno;
    while (left && !e) {
        ssize_t n = write(fd, zero, left < sizeof zero ? left : sizeof zero);
        if (n < 0 && errno != EINTR)
            e = errno;
        else if (n == 0)
            e = ENOSPC;
        else if (n > 0)
            left -= (size_t)n;
    }
    if (!e && fsync(fd) != 0)
        e = errno;
    if (close(fd) != 0 && !e)
        e = errno;
    unlink(probe);
    return e;
}

/* With `ours` (a failure of this file's OTF2 writer calls), a message the
 * probe cannot explain still gets the output's name in front. */
static up_status explain(const up_writer *w, up_status st, bool ours, up_err *err)
{
    const char *name;
    int e;
    if (!w || !w->dir || st == UP_OK || st == UP_ENOMEM || st == UP_EUSAGE || st == UP_EFORMAT)
        return st;
    name = up_output_name(w->dir);
    if ((e = output_errno(w->dir)) != 0)
        return UP_ERR(err, UP_EIO, "cannot write '%s': %s", name, strerror(e));
    if (ours && err && strncmp(err->msg, "cannot write '", 14) != 0) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return UP_ERR(err, st, "cannot write '%s': %s", name, msg);
    }
    return st;
}

up_status up_writer_explain(const up_writer *w, up_status st, up_err *err)
{
    return explain(w, st, false, err);
}

static up_status open_failed(up_writer *w, up_status st, up_err *err)
{
    st = explain(w, st, true, err);
    up_writer_abort(w);
    return st;
}

up_status up_writer_open(const char *dir, const up_trace *in, up_writer **out,
                         up_err *err)
{
    const up_defs *d = up_trace_defs(in);
    up_writer *w;
    OTF2_ErrorCode rc;
    size_t i;

    *out = NULL;
    up_otf2_quiet();
    if (!(w = up_calloc(1, sizeof *w)))
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    w->nlocs = d->nlocs;
    w->defs = d;
    w->next_string = d->has_strings ? (uint64_t)d->max_string + 1 : 0;
    w->next_attr = d->has_attrs ? (uint64_t)d->max_attr + 1 : 0;
    w->dir = up_strdup(dir);
    w->ew = up_calloc(d->nlocs, sizeof *w->ew);
    w->last_t = up_calloc(d->nlocs, sizeof *w->last_t);
    w->nevents = up_calloc(d->nlocs, sizeof *w->nevents);
    w->al = OTF2_AttributeList_New();
    if (!w->dir || !w->ew || !w->last_t || !w->nevents || !w->al) {
        up_writer_abort(w);
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    }
    if (up_otf2_archive_create(dir, &w->ar, err) != UP_OK)
        return open_failed(w, err ? err->status : UP_EIO, err);
    if ((rc = OTF2_Archive_OpenEvtFiles(w->ar)) != OTF2_SUCCESS)
        return open_failed(w, up_otf2_err_(err, rc, "cannot open the output event files"), err);
    w->evt_open = true;
    for (i = 0; i < d->nlocs; i++) {
        if (!(w->ew[i] = OTF2_Archive_GetEvtWriter(w->ar, d->locs[i].id)))
            return open_failed(w, UP_ERR(err, UP_EOTF2, "cannot create the event writer of location %llu: %s",
                                         (unsigned long long)d->locs[i].id, up_otf2_last_error()), err);
    }
    *out = w;
    return UP_OK;
}

up_status up_writer_attr(up_writer *w, const char *name, const char *desc, OTF2_Type type,
                         OTF2_AttributeRef *ref, up_err *err)
{
    up_new_attr_ *a;
    size_t i;
    for (i = 0; i < w->nattrs; i++)
        if (w->attrs[i].type == type && !strcmp(w->attrs[i].name, name)) {
            *ref = w->attrs[i].ref;
            return UP_OK;
        }
    if (up_defs_attr_find_(w->defs, name, type, ref))
        return UP_OK; /* e.g. an archive compensated before: one definition */
    /* the undefined ids (all ones) are not ids */
    if (w->next_attr >= OTF2_UNDEFINED_ATTRIBUTE || w->next_string + 1 >= OTF2_UNDEFINED_STRING)
        return UP_ERR(err, UP_EFORMAT, "cannot define the attribute '%s': the input uses the "
                      "largest %s ids", up_esc(name),
                      w->next_attr >= OTF2_UNDEFINED_ATTRIBUTE ? "attribute" : "string");
    if (!up_grow((void **)&w->attrs, &w->cap_attrs, w->nattrs + 1, sizeof *w->attrs))
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    a = &w->attrs[w->nattrs];
    memset(a, 0, sizeof *a);
    if (!(a->name = up_strdup(name)) || !(a->desc = up_strdup(desc ? desc : ""))) {
        up_free(a->name);
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    }
    a->type = type;
    a->ref = (OTF2_AttributeRef)w->next_attr++;
    a->sname = (OTF2_StringRef)w->next_string++;
    a->sdesc = (OTF2_StringRef)w->next_string++;
    w->nattrs++;
    *ref = a->ref;
    return UP_OK;
}

/* The buffered path; the direct path of up_stream_direct writes through
 * up_writer_<Kind>_ (trace_int.h).  Both clamp with up_writer_time_. */
up_status up_writer_event(up_writer *w, size_t loc, up_event *ev, up_err *err)
{
    uint64_t t = up_writer_time_(w, loc, ev->t_out);
    OTF2_ErrorCode rc;
    uint32_t i;
    for (i = 0; i < ev->nattrs; i++)
        OTF2_AttributeList_AddAttribute(w->al, ev->attrs[i].id, ev->attrs[i].type,
                                        ev->attrs[i].value);
    rc = up_write_event_(w->ew[loc], ev->nattrs ? w->al : NULL, t, ev);
    if (rc != OTF2_SUCCESS)
        return explain(w, up_otf2_err_(err, rc, "cannot write an event"), true, err);
    return UP_OK;
}

uint64_t up_writer_clamped(const up_writer *w) { return w->clamped; }

/* ---- close --------------------------------------------------------------- */

static OTF2_CallbackCode skip_clock(void *ud, uint64_t res, uint64_t off,
                                    uint64_t len, uint64_t real)
{
    (void)ud, (void)res, (void)off, (void)len, (void)real;
    return OTF2_CALLBACK_SUCCESS; /* replaced by fresh ClockProperties */
}

/* Copies the input's global definitions, as far as they were found intact
 * when the input was opened (scan.h), in reference order (defcopy.c);
 * Locations declare `nevents`. */
static up_status copy_global_defs(OTF2_GlobalDefWriter *gw, const up_trace *in,
                                  const uint64_t *nevents, up_err *err)
{
    const char *anchor = up_trace_anchor(in);
    OTF2_Reader *rd;
    OTF2_GlobalDefReader *gr;
    OTF2_GlobalDefReaderCallbacks *cb;
    OTF2_ErrorCode rc = OTF2_ERROR_MEM_FAULT;
    up_def_copy *dc;
    up_status st;
    uint64_t n = 0;
    if ((st = up_def_copy_open(gw, up_trace_defs(in), nevents, &dc, err)) != UP_OK)
        return st;
    if (!(rd = OTF2_Reader_Open(anchor))) {
        up_def_copy_free(dc);
        return UP_ERR(err, UP_EFORMAT, "cannot reopen '%s': %s", anchor, up_otf2_last_error());
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    gr = OTF2_Reader_GetGlobalDefReader(rd);
    cb = OTF2_GlobalDefReaderCallbacks_New();
    if (gr && cb) {
        up_copy_def_callbacks(cb);
        OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, skip_clock);
        rc = OTF2_Reader_RegisterGlobalDefCallbacks(rd, gr, cb, dc);
        if (rc == OTF2_SUCCESS)
            rc = OTF2_Reader_ReadGlobalDefinitions(rd, gr, up_trace_defs(in)->gdefs_intact, &n);
    }
    if (cb)
        OTF2_GlobalDefReaderCallbacks_Delete(cb);
    OTF2_Reader_Close(rd);
    /* the copy's own failure (a write, memory) before the reader's report of it */
    if ((st = up_def_copy_status(dc, err)) == UP_OK && rc != OTF2_SUCCESS)
        st = up_otf2_err_(err, rc, "cannot copy the global definitions");
    if (st == UP_OK)
        st = up_def_copy_finish(dc, err);
    up_def_copy_free(dc);
    return st;
}

static void copy_anchor_info(OTF2_Archive *ar, const up_trace *in,
                             const char *description)
{
    OTF2_Reader *rd = OTF2_Reader_Open(up_trace_anchor(in));
    char *s = NULL, *creator = NULL, **names = NULL;
    uint32_t n = 0, i;
    char buf[1024];
    if (!rd)
        return;
    if (OTF2_Reader_GetMachineName(rd, &s) == OTF2_SUCCESS && s && *s)
        OTF2_Archive_SetMachineName(ar, s);
    free(s);
    s = NULL;
    OTF2_Reader_GetCreator(rd, &creator);
    snprintf(buf, sizeof buf, "unperturb %s (input created by %s)", UP_VERSION,
             creator && *creator ? creator : "an unknown tool");
    OTF2_Archive_SetCreator(ar, buf);
    free(creator);
    if (OTF2_Reader_GetDescription(rd, &s) == OTF2_SUCCESS && s && *s)
        snprintf(buf, sizeof buf, "%s; %s", s, description);
    else
        snprintf(buf, sizeof buf, "%s", description);
    OTF2_Archive_SetDescription(ar, buf);
    free(s);
    if (OTF2_Reader_GetPropertyNames(rd, &n, &names) == OTF2_SUCCESS) {
        for (i = 0; i < n; i++) {
            char *v = NULL;
            if (OTF2_Reader_GetProperty(rd, names[i], &v) == OTF2_SUCCESS && v)
                OTF2_Archive_SetProperty(ar, names[i], v, true);
            free(v);
        }
        free(names);
    }
    OTF2_Reader_Close(rd);
}

static up_status finish(up_writer *w, const up_trace *in, uint64_t t_min, uint64_t t_max,
                        const char *description, const char *prop_name, const char *prop_value,
                        up_err *err)
{
    const up_defs *d = up_trace_defs(in);
    OTF2_GlobalDefWriter *gw;
    OTF2_ErrorCode rc;
    up_status st = UP_OK;
    uint64_t off;
    size_t i;

    for (i = 0; i < w->nlocs; i++) {
        if (w->ew[i] && (rc = OTF2_EvtWriter_GetNumberOfEvents(w->ew[i], &w->nevents[i])) != OTF2_SUCCESS &&
            st == UP_OK)
            st = up_otf2_err_(err, rc, "cannot count the events written");
        if (w->ew[i] && (rc = OTF2_Archive_CloseEvtWriter(w->ar, w->ew[i])) != OTF2_SUCCESS && st == UP_OK)
            st = up_otf2_err_(err, rc, "cannot write the events");
        w->ew[i] = NULL;
    }
    if ((rc = OTF2_Archive_CloseEvtFiles(w->ar)) != OTF2_SUCCESS && st == UP_OK)
        st = up_otf2_err_(err, rc, "cannot close the event files");
    w->evt_open = false;
    if (st != UP_OK)
        return st;
    /* Empty local definitions: events carry global ids already (the reader
     * applied the mapping tables) and synchronised times (the reader applied
     * the clock offsets), so neither may be written again. */
    if ((rc = OTF2_Archive_OpenDefFiles(w->ar)) != OTF2_SUCCESS)
        return up_otf2_err_(err, rc, "cannot open the definition files");
    for (i = 0; i < w->nlocs; i++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(w->ar, d->locs[i].id);
        if (!dw || OTF2_Archive_CloseDefWriter(w->ar, dw) != OTF2_SUCCESS)
            return UP_ERR(err, UP_EOTF2, "cannot write the local definitions: %s",
                          up_otf2_last_error());
    }
    if ((rc = OTF2_Archive_CloseDefFiles(w->ar)) != OTF2_SUCCESS)
        return up_otf2_err_(err, rc, "cannot close the definition files");

    if (!(gw = OTF2_Archive_GetGlobalDefWriter(w->ar)))
        return UP_ERR(err, UP_EOTF2, "cannot create the global definition writer: %s",
                      up_otf2_last_error());
    off = d->global_offset < t_min ? d->global_offset : t_min;
    if ((rc = OTF2_GlobalDefWriter_WriteClockProperties(gw, d->resolution, off,
                                                        t_max > off ? t_max - off : 0,
                                                        d->realtime)) != OTF2_SUCCESS)
        return up_otf2_err_(err, rc, "cannot write the clock properties");
    if ((st = copy_global_defs(gw, in, w->nevents, err)) != UP_OK)
        return st;
    /* after the copy: OTF2 readers take definitions in file order, and a
     * name's String must precede the Attribute that names it */
    for (i = 0; i < w->nattrs; i++) {
        const up_new_attr_ *a = &w->attrs[i];
        if ((rc = OTF2_GlobalDefWriter_WriteString(gw, a->sname, a->name)) != OTF2_SUCCESS ||
            (rc = OTF2_GlobalDefWriter_WriteString(gw, a->sdesc, a->desc)) != OTF2_SUCCESS ||
            (rc = OTF2_GlobalDefWriter_WriteAttribute(gw, a->ref, a->sname, a->sdesc, a->type)) !=
                OTF2_SUCCESS)
            return up_otf2_err_(err, rc, "cannot write the attribute definitions");
    }
    copy_anchor_info(w->ar, in, description);
    if (prop_name)
        OTF2_Archive_SetProperty(w->ar, prop_name, prop_value, true);
    rc = OTF2_Archive_Close(w->ar);
    w->ar = NULL;
    if (rc != OTF2_SUCCESS)
        return up_otf2_err_(err, rc, "cannot finish the output archive");
    return UP_OK;
}

up_status up_writer_close(up_writer *w, const up_trace *in, uint64_t t_min,
                          uint64_t t_max, const char *description,
                          const char *prop_name, const char *prop_value,
                          up_err *err)
{
    up_status st = finish(w, in, t_min, t_max, description, prop_name, prop_value, err);
    if (st != UP_OK)
        st = explain(w, st, true, err);
    up_writer_abort(w);
    return st;
}

void up_writer_abort(up_writer *w)
{
    size_t i;
    if (!w)
        return;
    if (w->ar) {
        for (i = 0; i < w->nlocs; i++)
            if (w->ew && w->ew[i])
                OTF2_Archive_CloseEvtWriter(w->ar, w->ew[i]);
        if (w->evt_open)
            OTF2_Archive_CloseEvtFiles(w->ar);
        OTF2_Archive_Close(w->ar);
    }
    if (w->al)
        OTF2_AttributeList_Delete(w->al);
    for (i = 0; i < w->nattrs; i++) {
        up_free(w->attrs[i].name);
        up_free(w->attrs[i].desc);
    }
    up_free(w->attrs);
    up_free(w->dir);
    up_free(w->ew);
    up_free(w->last_t);
    up_free(w->nevents);
    up_free(w);
}
