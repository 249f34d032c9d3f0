/*
 * heap.h - the min-heap that merges k locations' streams by time: entries
 * (key, location), the smallest key first, ties by location (ascending, or
 * descending when `flip` is UINT32_MAX: the replay's reversed schedule,
 * up_replay_set_schedule).  The replay engine's schedule and its claims'
 * heaps, the estimate's pass and the timeline's build use it.
 *
 * Inline, in a header: the engine pushes and pops a location at every
 * slice of its run, and a call per comparison there would cost.  Entries
 * move into a hole (no swaps); with every location in the heap at most once
 * the order of the entries is total, so the array (and the order of a walk
 * over it) is the same whichever textbook variant runs.
 */
#ifndef UNPERTURB_HEAP_H
#define UNPERTURB_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

typedef struct up_hent {
    uint64_t key;
    uint32_t loc;
} up_hent;

typedef struct up_heap {
    up_hent *a;
    size_t n, cap;
    uint32_t flip;   /* 0: ties by ascending location; UINT32_MAX: descending */
} up_heap;

/* x comes out before y */
static inline bool up_heap_before(const up_heap *h, const up_hent *x, const up_hent *y)
{
    return x->key < y->key || (x->key == y->key && (x->loc ^ h->flip) < (y->loc ^ h->flip));
}

/* e into the hole at i, moved up past the entries it comes before */
static inline void up_heap_sift_up(up_heap *h, size_t i, up_hent e)
{
    while (i > 0 && up_heap_before(h, &e, &h->a[(i - 1) / 2])) {
        h->a[i] = h->a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->a[i] = e;
}

/* e into the hole at i, moved down past the children that come before it */
static inline void up_heap_sift_down(up_heap *h, size_t i, up_hent e)
{
    size_t c;
    while ((c = 2 * i + 1) < h->n) {
        if (c + 1 < h->n && up_heap_before(h, &h->a[c + 1], &h->a[c]))
            c++;
        if (!up_heap_before(h, &h->a[c], &e))
            break;
        h->a[i] = h->a[c];
        i = c;
    }
    h->a[i] = e;
}

/* Room for `n` entries: pushes up to n cannot fail.  False: out of memory. */
static inline bool up_heap_reserve(up_heap *h, size_t n)
{
    return up_grow((void **)&h->a, &h->cap, n, sizeof *h->a);
}

/* False: out of memory (the heap is unchanged). */
static inline bool up_heap_push(up_heap *h, uint32_t loc, uint64_t key)
{
    up_hent e = {key, loc};
    if (h->n == h->cap && !up_heap_reserve(h, h->n + 1))
        return false;
    up_heap_sift_up(h, h->n++, e);
    return true;
}

/* Removes the first entry (the heap is not empty) and returns it. */
static inline up_hent up_heap_pop(up_heap *h)
{
    up_hent top = h->a[0];
    if (--h->n)
        up_heap_sift_down(h, 0, h->a[h->n]);
    return top;
}

/* The first entry's location has a new key (its next record's time). */
static inline void up_heap_rekey_top(up_heap *h, uint64_t key)
{
    up_hent e = h->a[0];
    e.key = key;
    up_heap_sift_down(h, 0, e);
}

/* Orders entries put into h->a[0..n) by hand. */
static inline void up_heap_make(up_heap *h)
{
    size_t i = h->n / 2;
    while (i-- > 0)
        up_heap_sift_down(h, i, h->a[i]);
}

static inline void up_heap_free(up_heap *h)
{
    up_free(h->a);
    h->a = NULL;
    h->n = h->cap = 0;
}

#endif /* UNPERTURB_HEAP_H */
