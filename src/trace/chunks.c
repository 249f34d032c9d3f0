/*
 * chunks.c - OTF2's buffers in chunks from a budget, and their flush
 * (chunks.h).
 *
 * Each buffer keeps a list of its chunks: those handed to OTF2 since the
 * last flush, then those kept for reuse.  After a flush OTF2 frees them all
 * (not final): they are kept and handed out again, so a flush costs no
 * unmap or free and no fresh page faults.  With a budget the list is
 * allocated at once, at the buffer's first chunk; without one it grows.
 */
#include <stdlib.h>

#include "trace/chunks.h"

typedef struct chunk_list {
    size_t size;         /* of every chunk of this buffer */
    size_t n, cap;       /* chunks handed to OTF2 since the last flush */
    size_t nfree;        /* chunks[n .. n+nfree) are kept for reuse */
    void **chunks;
} chunk_list;

static void *chunk_allocate(void *ud, OTF2_FileType type, OTF2_LocationRef loc, void **per_buffer,
                            uint64_t size)
{
    up_chunks *c = ud;
    chunk_list *cl = *per_buffer;
    size_t max = type == OTF2_FILETYPE_EVENTS ? c->events_max : c->other_max;
    void *chunk;
    (void)loc;
    if (!cl) {
        if (!(cl = calloc(1, sizeof *cl)))
            return NULL;
        *per_buffer = cl;
    }
    if (cl->size != (size_t)size && cl->n + cl->nfree)
        return NULL; /* OTF2 asks for one chunk size per buffer */
    cl->size = (size_t)size;
    if (max && cl->n >= max)
        return NULL; /* makes OTF2 flush this buffer and start over */
    if (cl->nfree) {
        cl->nfree--;
        return cl->chunks[cl->n++];
    }
    if (cl->n == cl->cap) {
        size_t cap = max > cl->cap ? max : cl->cap ? 2 * cl->cap : 8;
        void **nc = cap <= SIZE_MAX / sizeof *nc ? realloc(cl->chunks, cap * sizeof *nc) : NULL;
        if (!nc)
            goto fail;
        cl->chunks = nc, cl->cap = cap;
    }
    if (!(chunk = c->alloc(c, (size_t)size)))
        goto fail;
    cl->chunks[cl->n++] = chunk;
    return chunk;
fail:
    if (!cl->n) { /* a new buffer OTF2 gives up on: it frees nothing of it */
        free(cl->chunks);
        free(cl);
        *per_buffer = NULL;
    }
    return NULL;
}

static void chunk_free_all(void *ud, OTF2_FileType type, OTF2_LocationRef loc, void **per_buffer,
                           bool final)
{
    up_chunks *c = ud;
    chunk_list *cl = *per_buffer;
    size_t i;
    (void)type, (void)loc;
    if (!cl)
        return;
    if (!final) { /* after a flush: keep the chunks for the next ones */
        cl->nfree += cl->n;
        cl->n = 0;
        return;
    }
    for (i = 0; i < cl->n + cl->nfree; i++)
        c->release(c, cl->chunks[i], cl->size);
    free(cl->chunks);
    free(cl);
    *per_buffer = NULL;
}

const OTF2_MemoryCallbacks up_chunk_callbacks = {chunk_allocate, chunk_free_all};

OTF2_FlushType up_otf2_pre_flush(void *ud, OTF2_FileType type, OTF2_LocationRef loc, void *caller,
                                 bool final)
{
    (void)ud, (void)type, (void)loc, (void)caller, (void)final;
    return OTF2_FLUSH;
}

const OTF2_FlushCallbacks up_otf2_flush_callbacks = {up_otf2_pre_flush, NULL};
