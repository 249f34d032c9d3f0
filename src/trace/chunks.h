/*
 * chunks.h - the memory of OTF2's buffers, in chunks from a budget, and the
 * flush OTF2 asks for when a buffer is full: the callbacks of every archive
 * unperturb writes (writer.c: compensate's and simulate's output; the
 * tracer's per-rank archives, src/tracer/tracer.c; merge.c's flushes).
 *
 * A buffer takes chunks until its budget is spent; OTF2 then flushes it and
 * starts over in the same chunks, so a buffer's memory is bounded and
 * allocated once.  Where a chunk comes from is the caller's: mapped pages
 * (the writer), or memory written once before the run so that no record
 * pays a page fault (the tracer).  Plain libc and OTF2: it is linked into
 * the tracer.
 */
#ifndef UNPERTURB_CHUNKS_H
#define UNPERTURB_CHUNKS_H

#include <stddef.h>

#include <otf2/otf2.h>

typedef struct up_chunks up_chunks;
struct up_chunks {
    size_t events_max; /* chunks an event buffer takes before it is flushed */
    size_t other_max;  /* the same for other buffers (definitions); 0: no limit */
    /* a chunk of `size` bytes, or NULL; and one given back */
    void *(*alloc)(up_chunks *c, size_t size);
    void (*release)(up_chunks *c, void *chunk, size_t size);
};

/* OTF2_Archive_SetMemoryCallbacks(ar, &up_chunk_callbacks, c): the buffers
 * of archive `ar` in chunks of *c, which must outlive the archive.  A
 * buffer asks for one chunk size (OTF2 does). */
extern const OTF2_MemoryCallbacks up_chunk_callbacks;

/* The pre-flush callback: a full buffer is always flushed. */
OTF2_FlushType up_otf2_pre_flush(void *ud, OTF2_FileType type, OTF2_LocationRef loc, void *caller,
                                 bool final);
/* {up_otf2_pre_flush, NULL}: no post-flush callback, so OTF2 writes no
 * BufferFlush records of its own (the tracer has one: they are its) */
extern const OTF2_FlushCallbacks up_otf2_flush_callbacks;

#endif
