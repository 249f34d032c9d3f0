/*
 * tread.h - reads every event of an OTF2 archive through OTF2's global event
 * reader, for tests to check what unperturb wrote (an independent path: it
 * shares no code with src/trace).
 */
#ifndef UNPERTURB_TREAD_H
#define UNPERTURB_TREAD_H

#include <stddef.h>
#include <stdint.h>

typedef struct tr_ev {
    int kind;       /* TR_* */
    uint64_t t;
    uint64_t aux;   /* region, peer rank, BufferFlush stop time, ... */
} tr_ev;

enum { TR_ENTER, TR_LEAVE, TR_SEND, TR_RECV, TR_CBEGIN, TR_CEND, TR_FLUSH, TR_OTHER };

typedef struct tr_loc {
    uint64_t id;
    size_t n, cap;
    tr_ev *ev;
} tr_loc;

typedef struct tr_trace {
    uint64_t resolution, global_offset, trace_length;
    size_t nlocs;
    tr_loc *locs;     /* in order of the Location definitions */
    char *creator, *description;
} tr_trace;

/* Loads `dir`/traces.otf2; returns 0 on success. */
int tr_load(const char *dir, tr_trace *out);
const tr_loc *tr_loc_id(const tr_trace *t, uint64_t id);
void tr_free(tr_trace *t);

#endif
