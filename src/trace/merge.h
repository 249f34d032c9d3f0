/*
 * merge.h - turn the per-rank output of the unperturb tracer into one OTF2
 * archive (docs/tracer.md).
 *
 * The tracer leaves, in the run's folder DIR, DIR/.upt/<rank>.defs (text:
 * the rank's regions, communicators, clock offsets, appended as they were
 * made) and DIR/.upt/<rank>/traces/<rank>.evt (its OTF2 events).  up_merge
 * writes DIR/traces.otf2, DIR/traces.def and DIR/traces/ with unified
 * global definitions, per-rank mapping tables and clock offsets, moves the
 * event files in, and removes DIR/.upt.  It needs nothing but the files: the
 * tracer's rank 0 calls it at MPI_Finalize, and `unperturb trace --recover`
 * after a run that died.  Plain libc and OTF2 (it is linked into the tracer).
 */
#ifndef UNPERTURB_MERGE_H
#define UNPERTURB_MERGE_H

#include <stddef.h>

/* threads recorded per rank, at most (the tracer's limit; a definitions
 * file naming others is damaged, and they are ignored) */
#define UP_MERGE_THREADS_MAX 4096

typedef struct up_merge_info {
    int ranks;          /* ranks in the run */
    int ranks_found;    /* ranks with a definitions file */
    int ranks_ended;    /* ranks whose trace was closed (normal end, signal, abort) */
    unsigned long long events; /* records, as counted by the closed ranks */
    int threads;        /* recorded threads besides the ranks' own (one location each) */
} up_merge_info;

/* 0 on success; -1 with a message naming the file and the problem in err. */
int up_merge(const char *dir, up_merge_info *info, char *err, size_t errcap);

#endif
