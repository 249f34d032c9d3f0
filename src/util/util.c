/*
 * util.c - status messages, the allocation hook and the hash map.
 * Place in the data flow: below everything else (see src/util/util.h).
 */
#include "util/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>

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
    return up_mix64(k0 * 0x9E3779B97F4A7C15ull ^ (k1 + 0x632BE59BD9B4E019ull));
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

void up_wait_text(int status, char *out, size_t cap)
{
    if (WIFEXITED(status))
        snprintf(out, cap, "exit status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status)) {
        const char *abbrev = sigabbrev_np(WTERMSIG(status));
        snprintf(out, cap, "killed by signal %d (%s%s)", WTERMSIG(status), abbrev ? "SIG" : "",
                 abbrev ? abbrev : "unknown");
    } else
        snprintf(out, cap, "wait status %#x", (unsigned)status);
}
