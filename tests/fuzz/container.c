/*
 * container.c - one fuzz input as an OTF2 archive on disk (fuzz.h describes
 * the container), the private work folder, and the walk over chunk tokens.
 *
 * Place in the data flow: between the fuzzer's bytes and up_trace_open.
 * Every input is a valid container; what it holds need not be valid OTF2.
 */
#include "fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The input being run, when the replay runner knows its file. */
const char *fz_input_name;

void fz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
    va_list ap;
    if (fz_input_name)
        fprintf(stderr, "up-fuzz: the input was %s\n", fz_input_name);
    fprintf(stderr, "%s:%d: invariant broken: %s: ", file, line, cond);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

/* ---- the container ---------------------------------------------------------- */

size_t fz_parse(const uint8_t *d, size_t n, fz_member *m, size_t cap)
{
    size_t k = 0, len;
    while (n >= FZ_HEAD && k < cap) {
        len = (size_t)d[2] | (size_t)d[3] << 8 | (size_t)d[4] << 16 | (size_t)d[5] << 24;
        if (len > n - FZ_HEAD)
            len = n - FZ_HEAD;
        m[k].tag = d[0];
        m[k].loc = d[1];
        m[k].data = d + FZ_HEAD;
        m[k].len = len;
        k++;
        d += FZ_HEAD + len;
        n -= FZ_HEAD + len;
    }
    return k;
}

size_t fz_serialize(const fz_member *m, size_t n, uint8_t *out, size_t cap)
{
    size_t i, at = 0;
    for (i = 0; i < n; i++) {
        if (m[i].len > cap || at > cap - m[i].len || cap - at - m[i].len < FZ_HEAD ||
            m[i].len > UINT32_MAX)
            return 0;
        out[at] = (uint8_t)m[i].tag;
        out[at + 1] = (uint8_t)m[i].loc;
        out[at + 2] = (uint8_t)m[i].len;
        out[at + 3] = (uint8_t)(m[i].len >> 8);
        out[at + 4] = (uint8_t)(m[i].len >> 16);
        out[at + 5] = (uint8_t)(m[i].len >> 24);
        memmove(out + at + FZ_HEAD, m[i].data, m[i].len);
        at += FZ_HEAD + m[i].len;
    }
    return at;
}

static unsigned loc_of(const fz_member *m, size_t n, unsigned kind)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (fz_kind(m[i].tag) == kind)
            return m[i].loc;
    return 0;
}

unsigned fz_options(const fz_member *m, size_t n) { return loc_of(m, n, FZ_ANCHOR); }
unsigned fz_options2(const fz_member *m, size_t n) { return loc_of(m, n, FZ_GDEFS); }

/* ---- the work folder ------------------------------------------------------------ */

static char work[256], adir[300], tdir[320];
/* files written by the last fz_archive_write: a bit per (kind, loc) */
static uint8_t written[FZ_KINDS][256 / 8];

static void work_remove(void)
{
    char p[400];
    fz_archive_clear();
    snprintf(p, sizeof p, "%s/experiment.ini", work);
    unlink(p);
    rmdir(tdir);
    rmdir(adir);
    rmdir(work);
}

const char *fz_workdir(void)
{
    const char *base;
    if (work[0])
        return work;
    base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(work, sizeof work, "%s/up-fuzz.XXXXXX", base);
    if (!mkdtemp(work)) {
        fprintf(stderr, "fuzz: cannot make a work folder in %s: %s\n", base, strerror(errno));
        abort();
    }
    snprintf(adir, sizeof adir, "%s/a", work);
    snprintf(tdir, sizeof tdir, "%s/traces", adir);
    if (mkdir(adir, 0755) != 0 || mkdir(tdir, 0755) != 0) {
        fprintf(stderr, "fuzz: cannot make %s: %s\n", tdir, strerror(errno));
        abort();
    }
    atexit(work_remove);
    return work;
}

const char *fz_archive_files(void)
{
    fz_workdir();
    return tdir;
}

static void file_path(char *p, size_t cap, const char *root, unsigned kind, unsigned loc)
{
    static const char *const ext[FZ_KINDS] = {"", "", "def", "evt", "stalls"};
    if (kind == FZ_ANCHOR)
        snprintf(p, cap, "%s/traces.otf2", root);
    else if (kind == FZ_GDEFS)
        snprintf(p, cap, "%s/traces.def", root);
    else
        snprintf(p, cap, "%s/traces/%u.%s", root, loc, ext[kind]);
}

void fz_chunk_sizes(const fz_member *m, size_t n, uint64_t cs[2])
{
    size_t i, j, k;
    cs[0] = cs[1] = 0;
    for (i = 0; i < n; i++) {
        const uint8_t *d = m[i].data;
        bool big;
        if (fz_kind(m[i].tag) != FZ_ANCHOR)
            continue;
        if (m[i].len < 28)
            return;
        big = d[1] == 0x23;
        for (k = 0; k < 2; k++) {
            uint64_t v = 0;
            for (j = 0; j < 8; j++)
                v |= (uint64_t)d[12 + 8 * k + (big ? 7 - j : j)] << (8 * j);
            cs[k] = v >= 256u * 1024u && v <= 16u * 1024u * 1024u ? v : 0;
        }
        return;
    }
}

/* Writes the members' files under root; `track` marks them in `written`. */
static int write_members(const char *root, const fz_member *m, size_t n, bool track)
{
    uint64_t cs[2];
    size_t i;
    fz_chunk_sizes(m, n, cs);
    for (i = 0; i < n; i++) {
        unsigned kind = fz_kind(m[i].tag), loc = kind >= FZ_LDEFS ? m[i].loc : 0;
        uint64_t chunk = kind == FZ_EVENTS ? cs[0] : kind == FZ_GDEFS || kind == FZ_LDEFS ? cs[1] : 0;
        char p[600];
        struct stat st;
        off_t at;
        int fd;
        file_path(p, sizeof p, root, kind, loc);
        if (lstat(p, &st) == 0 && !S_ISREG(st.st_mode))
            continue; /* a link or a FIFO stays one */
        if (!m[i].len && (m[i].tag & FZ_SPECIAL)) { /* the file becomes a link or a FIFO */
            static const char *const to[] = {"/dev/zero", "/dev/urandom", NULL, "traces.otf2.gone"};
            unsigned v = fz_special(m[i].tag);
            unlink(p);
            if (to[v] ? symlink(to[v], p) : mkfifo(p, 0644))
                return -1;
            if (track)
                written[kind][loc / 8] |= (uint8_t)(1u << (loc % 8));
            continue;
        }
        if ((fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0)
            return -1;
        if (track)
            written[kind][loc / 8] |= (uint8_t)(1u << (loc % 8));
        if (fstat(fd, &st) != 0) {
            close(fd);
            return -1;
        }
        at = st.st_size;
        if ((m[i].tag & FZ_CONT) && chunk && at)
            at = (off_t)(((uint64_t)at + chunk - 1) / chunk * chunk);
        if ((m[i].len && pwrite(fd, m[i].data, m[i].len, at) != (ssize_t)m[i].len) ||
            (!m[i].len && at > st.st_size && ftruncate(fd, at) != 0)) {
            close(fd);
            return -1;
        }
        close(fd);
    }
    return 0;
}

const char *fz_archive_write(const fz_member *m, size_t n)
{
    static char anchor[400];
    fz_workdir();
    fz_archive_clear();
    if (write_members(adir, m, n, true) != 0) {
        fprintf(stderr, "fuzz: cannot write the archive in %s: %s\n", adir, strerror(errno));
        abort();
    }
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", adir);
    return anchor;
}

int fz_archive_write_to(const char *dir, const fz_member *m, size_t n)
{
    char p[600];
    snprintf(p, sizeof p, "%s/traces", dir);
    if (mkdir(p, 0755) != 0 && errno != EEXIST)
        return -1;
    return write_members(dir, m, n, false);
}

void fz_archive_clear(void)
{
    unsigned k, loc;
    char p[600];
    for (k = 0; k < FZ_KINDS; k++)
        for (loc = 0; loc < 256; loc++)
            if (written[k][loc / 8] & (1u << (loc % 8))) {
                file_path(p, sizeof p, adir, k, loc);
                unlink(p);
                written[k][loc / 8] &= (uint8_t) ~(1u << (loc % 8));
            }
}

const char *fz_write_file(const char *name, const void *data, size_t len)
{
    static char p[400];
    FILE *f;
    snprintf(p, sizeof p, "%s/%s", fz_workdir(), name);
    if (!(f = fopen(p, "wb")) || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "fuzz: cannot write %s: %s\n", p, strerror(errno));
        abort();
    }
    return p;
}

/* ---- chunk tokens ------------------------------------------------------------------ */

size_t fz_tokens(const uint8_t *d, size_t n, bool events, fz_tok *t, size_t cap)
{
    size_t at = 0, k = 0;
    if (cap == 0)
        return 0;
    if (n < 18 || d[0] != 0x03) {
        t[0] = (fz_tok){FZ_TOK_BAD, 0, n, 0};
        return 1;
    }
    t[k++] = (fz_tok){FZ_TOK_HEADER, 0, 18, 2};
    at = 18;
    while (at < n && k < cap) {
        unsigned kind = d[at];
        size_t len, body;
        if (kind == 0x00 || kind == 0x02) {
            t[k++] = (fz_tok){FZ_TOK_END, at, 1, at + 1};
            return k;
        }
        if (kind == 0x05 && events) {
            if (n - at < 9)
                break;
            t[k++] = (fz_tok){FZ_TOK_TIME, at, 9, at + 1};
            at += 9;
            continue;
        }
        if (kind == 0x01 || kind == 0x03 || n - at < 2)
            break;
        if (d[at + 1] == 0xff) {
            uint64_t l = 0;
            unsigned j;
            if (n - at < 10)
                break;
            for (j = 0; j < 8; j++)
                l |= (uint64_t)d[at + 2 + (d[1] == 0x23 ? 7 - j : j)] << (8 * j);
            body = at + 10;
            if (l > n - body)
                break;
            len = (size_t)l;
        } else {
            body = at + 2;
            len = d[at + 1];
            if (len > n - body)
                break;
        }
        t[k++] = (fz_tok){kind == 0x06 && events ? FZ_TOK_ATTRS : FZ_TOK_RECORD, at, body + len - at, body};
        at = body + len;
    }
    if (at < n && k < cap)
        t[k++] = (fz_tok){FZ_TOK_BAD, at, n - at, at};
    return k;
}
