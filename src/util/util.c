/*
 * util.c - status messages, the allocation hook, the hash map and file helpers.
 * Place in the data flow: below everything else (see include/unperturb/util.h).
 */
#include "unperturb/util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const status_msgs[] = {
    [UP_OK] = "success",
    [UP_ENOMEM] = "out of memory",
    [UP_EIO] = "input/output error",
    [UP_EFORMAT] = "bad input format",
    [UP_EUSAGE] = "bad usage",
    [UP_EEXIST] = "already exists",
    [UP_EOTF2] = "OTF2 error",
    [UP_EINTERNAL] = "internal error",
};

const char *up_status_str(up_status s)
{
    if ((size_t)s < sizeof status_msgs / sizeof status_msgs[0] && status_msgs[s])
        return status_msgs[s];
    return "unknown status";
}

up_status up_err_set(up_err *e, up_status s, const char *file, int line,
                     const char *fmt, ...)
{
    if (e) {
        va_list ap;
        e->status = s;
        e->file = file;
        e->line = line;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
    }
    return s;
}

/* ---- memory ------------------------------------------------------------ */

static long fail_after = -1;

static bool alloc_allowed(void)
{
    if (fail_after < 0)
        return true;
    if (fail_after == 0)
        return false;
    fail_after--;
    return true;
}

void up_alloc_set_fail_after(long n) { fail_after = n; }

void *up_malloc(size_t size)
{
    if (!alloc_allowed())
        return NULL;
    return malloc(size ? size : 1);
}

/* Mapped 2 MiB-aligned (over-map, trim the ends) so that transparent huge
 * pages can back all of it where the kernel offers them on request. */
#define UP_HUGE ((size_t)2 << 20)
void *up_pages_alloc(size_t size)
{
    char *p, *a;
    size_t len = ((size ? size : 1) + 4095) & ~(size_t)4095, head; /* whole pages */
    if (!alloc_allowed())
        return NULL;
    p = mmap(NULL, len + UP_HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    a = (char *)(((uintptr_t)p + UP_HUGE - 1) & ~(uintptr_t)(UP_HUGE - 1));
    head = (size_t)(a - p);
    if (head)
        munmap(p, head);
    munmap(a + len, UP_HUGE - head);
#ifdef MADV_HUGEPAGE
    (void)madvise(a, len, MADV_HUGEPAGE);
#endif
    return a;
}

void up_pages_free(void *p, size_t size)
{
    if (p)
        munmap(p, size ? size : 1);
}

void *up_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    if (!alloc_allowed())
        return NULL;
    return calloc(n ? n : 1, size ? size : 1);
}

void *up_reallocarray(void *p, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    if (!alloc_allowed())
        return NULL;
    return realloc(p, n * size != 0 ? n * size : 1);
}

void up_free(void *p) { free(p); }

char *up_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = up_malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

bool up_grow(void **buf, size_t *cap, size_t need, size_t elem)
{
    size_t ncap = *cap ? *cap : 8;
    void *nb;
    if (need <= *cap)
        return true;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return false;
        ncap *= 2;
    }
    nb = up_reallocarray(*buf, ncap, elem);
    if (!nb)
        return false;
    *buf = nb;
    *cap = ncap;
    return true;
}

/* ---- hash map ---------------------------------------------------------- */

struct up_map_slot {
    uint64_t k0, k1, v;
    bool used;
};

static uint64_t mix(uint64_t k0, uint64_t k1)
{
    /* splitmix64 finaliser over both words */
    uint64_t x = k0 * 0x9E3779B97F4A7C15ull ^ (k1 + 0x632BE59BD9B4E019ull);
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x;
}

void up_map_init(up_map *m) { memset(m, 0, sizeof *m); }

void up_map_free(up_map *m)
{
    up_free(m->slots);
    memset(m, 0, sizeof *m);
}

uint64_t *up_map_get(const up_map *m, uint64_t k0, uint64_t k1)
{
    size_t mask, i;
    if (!m->cap)
        return NULL;
    mask = m->cap - 1;
    for (i = (size_t)mix(k0, k1) & mask;; i = (i + 1) & mask) {
        struct up_map_slot *s = &m->slots[i];
        if (!s->used)
            return NULL;
        if (s->k0 == k0 && s->k1 == k1)
            return &s->v;
    }
}

static bool map_rehash(up_map *m, size_t ncap)
{
    struct up_map_slot *old = m->slots, *ns;
    size_t ocap = m->cap, i;
    ns = up_calloc(ncap, sizeof *ns);
    if (!ns)
        return false;
    m->slots = ns;
    m->cap = ncap;
    m->len = 0;
    for (i = 0; i < ocap; i++)
        if (old[i].used)
            up_map_put(m, old[i].k0, old[i].k1, old[i].v);
    up_free(old);
    return true;
}

bool up_map_put(up_map *m, uint64_t k0, uint64_t k1, uint64_t v)
{
    size_t mask, i;
    if ((m->len + 1) * 2 > m->cap && !map_rehash(m, m->cap ? m->cap * 2 : 16))
        return false;
    mask = m->cap - 1;
    for (i = (size_t)mix(k0, k1) & mask;; i = (i + 1) & mask) {
        struct up_map_slot *s = &m->slots[i];
        if (!s->used) {
            s->used = true;
            s->k0 = k0;
            s->k1 = k1;
            s->v = v;
            m->len++;
            return true;
        }
        if (s->k0 == k0 && s->k1 == k1) {
            s->v = v;
            return true;
        }
    }
}

bool up_map_del(up_map *m, uint64_t k0, uint64_t k1)
{
    size_t mask, i, j;
    if (!m->cap)
        return false;
    mask = m->cap - 1;
    for (i = (size_t)mix(k0, k1) & mask;; i = (i + 1) & mask) {
        if (!m->slots[i].used)
            return false;
        if (m->slots[i].k0 == k0 && m->slots[i].k1 == k1)
            break;
    }
    /* backward-shift deletion: move later members of the probe run into
     * the hole when their home slot does not lie cyclically in (i, j]. */
    m->slots[i].used = false;
    m->len--;
    for (j = (i + 1) & mask; m->slots[j].used; j = (j + 1) & mask) {
        size_t home = (size_t)mix(m->slots[j].k0, m->slots[j].k1) & mask;
        bool between = (i <= j) ? (i < home && home <= j) : (i < home || home <= j);
        if (!between) {
            m->slots[i] = m->slots[j];
            m->slots[j].used = false;
            i = j;
        }
    }
    return true;
}

bool up_map_at(const up_map *m, size_t i, uint64_t *k0, uint64_t *k1, uint64_t *v)
{
    if (i >= m->cap || !m->slots[i].used)
        return false;
    *k0 = m->slots[i].k0;
    *k1 = m->slots[i].k1;
    *v = m->slots[i].v;
    return true;
}

/* ---- files ------------------------------------------------------------- */

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path) ? 0 : 0; /* best effort: keep going */
}

void up_rmtree(const char *path)
{
    nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

up_status up_write_file_atomic(const char *path, const char *data, size_t len,
                               up_err *err)
{
    char tmp[4096];
    FILE *f;
    int n = snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if (n < 0 || (size_t)n >= sizeof tmp)
        return UP_ERR(err, UP_EUSAGE, "path too long: '%s'", path);
    f = fopen(tmp, "wb");
    if (!f)
        return UP_ERR(err, UP_EIO, "cannot write '%s': %s", path, strerror(errno));
    if (fwrite(data, 1, len, f) != len || fflush(f) != 0) {
        int e = errno;
        fclose(f);
        remove(tmp);
        return UP_ERR(err, UP_EIO, "cannot write '%s': %s", path, strerror(e));
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        return UP_ERR(err, UP_EIO, "cannot write '%s': %s", path, strerror(e));
    }
    return UP_OK;
}

/* ---- output folders ------------------------------------------------------ */

static char *dup_printf(const char *a, const char *b, long n)
{
    size_t len = strlen(a) + strlen(b) + 32;
    char *s = up_malloc(len);
    if (s)
        snprintf(s, len, "%s%s%ld", a, b, n);
    return s;
}

bool up_path_within(const char *inner, const char *outer)
{
    char ri[PATH_MAX], ro[PATH_MAX];
    size_t n;
    if (!realpath(inner, ri) || !realpath(outer, ro))
        return false;
    n = strlen(ro);
    return !strncmp(ri, ro, n) && (ri[n] == 0 || ri[n] == '/' || (n == 1 && ro[0] == '/'));
}

up_status up_outdir_begin(up_outdir *o, const char *final, const char *input,
                          bool force, up_err *err)
{
    struct stat st;
    size_t n;
    char *parent, *slash;
    memset(o, 0, sizeof *o);
    if (!final || !*final)
        return UP_ERR(err, UP_EUSAGE, "no output given (-o DIR)");
    if (!(o->final = up_strdup(final)))
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    for (n = strlen(o->final); n > 1 && o->final[n - 1] == '/'; n--)
        o->final[n - 1] = 0;
    if (stat(o->final, &st) == 0) {
        if (input && up_path_within(input, o->final)) {
            UP_ERR(err, UP_EEXIST, "refusing to write '%s': it holds the input '%s'", o->final, input);
            up_outdir_end(o);
            return UP_EEXIST;
        }
        if (!force) {
            UP_ERR(err, UP_EEXIST, "'%s' exists (use --force to replace it)", o->final);
            up_outdir_end(o);
            return UP_EEXIST;
        }
        o->replace = true;
    }
    /* the parent must exist: OTF2 creates only the last component */
    if (!(parent = up_strdup(o->final))) {
        up_outdir_end(o);
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    }
    slash = strrchr(parent, '/');
    if (slash) {
        *(slash == parent ? slash + 1 : slash) = 0;
        if (stat(parent, &st) != 0 || !S_ISDIR(st.st_mode)) {
            UP_ERR(err, UP_EIO, "cannot create '%s': folder '%s' does not exist", o->final, parent);
            up_free(parent);
            up_outdir_end(o);
            return UP_EIO;
        }
    }
    up_free(parent);
    if (!(o->tmp = dup_printf(o->final, ".tmp-", (long)getpid()))) {
        up_outdir_end(o);
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    }
    up_rmtree(o->tmp); /* a leftover of this pid from an earlier crash */
    return UP_OK;
}

up_status up_outdir_commit(up_outdir *o, up_err *err)
{
    char *old = NULL;
    if (o->replace) {
        if (!(old = dup_printf(o->final, ".old-", (long)getpid())))
            return UP_ERR(err, UP_ENOMEM, "out of memory");
        up_rmtree(old);
        if (rename(o->final, old) != 0) {
            UP_ERR(err, UP_EIO, "cannot replace '%s': %s", o->final, strerror(errno));
            up_free(old);
            return UP_EIO;
        }
    }
    if (rename(o->tmp, o->final) != 0) {
        int e = errno;
        if (old)
            rename(old, o->final); /* put the old output back */
        up_free(old);
        return UP_ERR(err, UP_EIO, "cannot create '%s': %s", o->final, strerror(e));
    }
    if (old) {
        up_rmtree(old);
        up_free(old);
    }
    up_free(o->tmp);
    o->tmp = NULL;
    return UP_OK;
}

void up_outdir_end(up_outdir *o)
{
    if (o->tmp)
        up_rmtree(o->tmp);
    up_free(o->tmp);
    up_free(o->final);
    memset(o, 0, sizeof *o);
}
