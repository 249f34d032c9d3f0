/*
 * stalls.c - the archive's side files: the lists of stalled spins the
 * unperturb tracer leaves beside the event files (docs/tracer.md, "Stalls of
 * the spins").  Place in the data flow: beside the reader; the compensate
 * model asks for one list per location and passes each stall where it lies.
 *
 * Only src/trace knows where they are and how they are stored: merge.c
 * writes them, this file reads them.  A list is DIR/traces/<location>.stalls
 * (the folder of the event files, t->dir): pairs of 64-bit words in host byte
 * order, start and length in ticks, in time order.  It is read a block at a
 * time, reopened for each block, so that no descriptor is held per location.
 *
 * A list that cannot be read ends there: less is removed, as without a
 * list; a trailing part of an entry is not one.  A damaged entry (a stall of
 * no length, one that overflows the clock, or one that starts before the
 * last one ended) ends the list as well, and up_stalls_next says so once
 * (-1), for the caller to count.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_int.h"

#define STALL_BLOCK 64

struct up_stalls {
    char *path;
    uint64_t off;        /* bytes read so far */
    uint64_t prev_end;   /* the end of the last stall given, UINT64_MAX: none */
    uint64_t b[STALL_BLOCK][2];
    unsigned n, i;       /* entries in b, the next one */
    bool ended;
};

up_status up_trace_stalls_open(up_trace *t, uint64_t location_id, up_stalls **out,
                               up_err *err)
{
    const char *dir = up_trace_dir_(t);
    char path[4096 + 32];
    struct stat sb;
    up_stalls *l;
    *out = NULL;
    if (strlen(dir) >= 4096) /* no such path */
        return UP_OK;
    snprintf(path, sizeof path, "%s/%llu.stalls", dir, (unsigned long long)location_id);
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size <= 0)
        return UP_OK; /* none */
    if (!(l = up_calloc(1, sizeof *l)) || !(l->path = up_strdup(path))) {
        up_free(l);
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    }
    l->prev_end = UINT64_MAX;
    *out = l;
    return UP_OK;
}

int up_stalls_next(up_stalls *l, uint64_t *start, uint64_t *end)
{
    uint64_t s, len;
    *start = *end = UINT64_MAX;
    if (!l || l->ended)
        return 0;
    if (l->i == l->n) {
        int fd = open(l->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        ssize_t got = fd >= 0 ? pread(fd, l->b, sizeof l->b, (off_t)l->off) : -1;
        if (fd >= 0)
            close(fd);
        got = got > 0 ? got / (ssize_t)sizeof l->b[0] : 0; /* whole entries */
        l->off += (uint64_t)got * sizeof l->b[0];
        l->n = (unsigned)got;
        l->i = 0;
        if (!got) {
            l->ended = true;
            return 0;
        }
    }
    s = l->b[l->i][0];
    len = l->b[l->i][1];
    if (len == 0 || s > UINT64_MAX - 1 - len || (l->prev_end != UINT64_MAX && s < l->prev_end)) {
        l->ended = true;
        return -1;
    }
    l->i++;
    *start = s;
    *end = l->prev_end = s + len;
    return 1;
}

void up_stalls_close(up_stalls *l)
{
    if (l) {
        up_free(l->path);
        up_free(l);
    }
}
