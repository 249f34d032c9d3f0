/*
 * fuzz_merge.c - fuzz target "merge": the per-rank files the unperturb
 * tracer leaves in DIR/.upt when a run dies (docs/tracer.md), merged by
 * src/trace/merge.c as `unperturb trace --recover DIR` merges them.
 *
 * Place in the data flow: in front of the merge.  The input is a list of
 * members as in the OTF2 container (fuzz.h: tag:1 loc:1 len:4 data);
 * (tag & 0x7f) % 6 is the file, loc % 4 the rank r:
 *   0 .upt/<r>.defs   1 .upt/<r>/traces/<r>.evt   2 .upt/calibration.ini
 *   3 .upt/<r>.stalls
 *   4 .upt/<r>.defs made a symbolic link to /dev/zero, /dev/urandom or
 *     /dev/null (loc / 4 % 3 picks), 5 .upt/<r>.defs made a FIFO
 * (a link or a FIFO replaces what earlier members wrote, and later members
 * of that file are ignored).  Checked beyond "no crash, no leak, no hang":
 * the merge succeeds or fails with a message; a merged archive opens, and
 * every location's stream reads to its end.
 */
#include "fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/merge.h"
#include "trace/trace.h"
#include "util/util.h"

enum { M_DEFS, M_EVT, M_CALIB, M_STALLS, M_LINK, M_FIFO, M_KINDS };
#define RANKS 4

static int append(const char *path, const uint8_t *d, size_t n)
{
    struct stat st;
    int fd;
    ssize_t w;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return 0; /* a link or a FIFO stays one */
    if ((fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) < 0)
        return -1;
    for (; n; d += w, n -= (size_t)w)
        if ((w = write(fd, d, n)) <= 0) {
            close(fd);
            return -1;
        }
    return close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const devs[] = {"/dev/zero", "/dev/urandom", "/dev/null"};
    fz_member m[FZ_MAX_MEMBERS];
    size_t n = fz_parse(data, size, m, FZ_MAX_MEMBERS), i, l;
    char dir[512], p[640], err[1024];
    up_merge_info info;
    up_trace *t = NULL;
    up_err e = {0};
    up_event *ev;
    int r, rc;

    snprintf(dir, sizeof dir, "%s/m", fz_workdir());
    up_rmtree(dir);
    snprintf(p, sizeof p, "%s/.upt", dir);
    if (mkdir(dir, 0755) != 0 || mkdir(p, 0755) != 0)
        return 0; /* the machine, not the input */
    for (r = 0; r < RANKS; r++) {
        snprintf(p, sizeof p, "%s/.upt/%d", dir, r);
        mkdir(p, 0755);
        snprintf(p, sizeof p, "%s/.upt/%d/traces", dir, r);
        mkdir(p, 0755);
    }
    for (i = 0; i < n; i++) {
        unsigned kind = (m[i].tag & 0x7fu) % M_KINDS, rank = m[i].loc % RANKS;
        switch (kind) {
        case M_DEFS:
        case M_LINK:
        case M_FIFO:
            snprintf(p, sizeof p, "%s/.upt/%u.defs", dir, rank);
            break;
        case M_EVT:
            snprintf(p, sizeof p, "%s/.upt/%u/traces/%u.evt", dir, rank, rank);
            break;
        case M_CALIB:
            snprintf(p, sizeof p, "%s/.upt/calibration.ini", dir);
            break;
        default:
            snprintf(p, sizeof p, "%s/.upt/%u.stalls", dir, rank);
        }
        if (kind == M_LINK || kind == M_FIFO) {
            unlink(p);
            if (kind == M_LINK ? symlink(devs[m[i].loc / RANKS % 3], p) : mkfifo(p, 0644))
                return 0;
        } else if (append(p, m[i].data, m[i].len) != 0)
            return 0;
    }

    rc = up_merge(dir, &info, err, sizeof err);
    FZ_CHECK(rc == 0 || rc == -1, "up_merge returned %d", rc);
    if (rc != 0) {
        FZ_CHECK(err[0] != '\0', "a failed merge without a message");
        return 0;
    }
    snprintf(p, sizeof p, "%s/traces.otf2", dir);
    FZ_CHECK(access(p, F_OK) == 0, "a merge without an anchor");
    if (up_trace_open(p, &t, &e) != UP_OK) {
        FZ_CHECK(e.msg[0] != '\0' && e.status != UP_EINTERNAL, "open of the merged archive: %d '%s'",
                 (int)e.status, e.msg);
        return 0;
    }
    for (l = 0; l < up_trace_defs(t)->nlocs; l++) {
        up_stream *s = up_trace_stream(t, l);
        uint64_t last = 0;
        while (up_stream_peek(s, 0, &ev, &e) == UP_OK && ev) {
            FZ_CHECK(ev->time >= last, "location %zu: time %llu after %llu", l,
                     (unsigned long long)ev->time, (unsigned long long)last);
            last = ev->time;
            up_stream_pop(s);
        }
    }
    up_trace_close(t);
    return 0;
}
