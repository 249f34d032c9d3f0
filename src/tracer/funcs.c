/*
 * funcs.c - function instrumentation: the hooks that gcc and clang call with
 * -finstrument-functions, the function filter, and the manual region API of
 * <unperturb/region.h>.
 * Place in the data flow: measurement (see upt.h); names come from symbols.c.
 *
 * Every hook pushes or pops a frame of a shadow stack from program start on,
 * recording or not, so that:
 *  - the functions already running when recording begins (main, which calls
 *    MPI_Init) are written then, with the entry times saved in their frames,
 *    and enclose MPI_Init as they should;
 *  - an exit writes a Leave only if its own Enter was written, and frames an
 *    exit skipped (longjmp) are closed by the next exit that finds its own
 *    frame deeper down: records always nest.
 * Frames are kept by the thread that ran our constructor (the one that runs
 * main) and, if MPI is initialised on another thread, by that one from then
 * on; both record from then on (the first writes the Enter records of what
 * was running, the other begins from an empty stack).  Every other thread
 * gets a stack of its own at its first hook while recording, and records
 * from there (docs/tracer.md, "Threads"); it is freed when the thread ends.
 * Each stack, with its cache of addresses, belongs to one thread: no locks
 * on the hot path.  A thread's first sight of an address takes one: the
 * process's names (`named`) are shared, and symbols.c is not thread-safe.
 *
 * Each function address is named once, the first time it is seen while
 * recording: symbols.c resolves it, enclosed in the "UNPERTURB tracer" region
 * since that is the tracer's own work, the filter decides, and the region id
 * (or "none") is cached by address.  The hot path is then one hash probe and
 * the record.
 *
 * Everything here is no_instrument_function, and a per-thread guard makes
 * any hook that fires while we run (an instrumented malloc, a signal
 * handler) return at once: the tracer never recurses into itself.
 */
#include "upt.h"

#include "funcs.h"
#include "symbols.h"
#include "unperturb/region.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NOINST __attribute__((no_instrument_function))

/* Provided by tracer.c; declared here until upt.h has them.
 * upt_enter_at: an Enter record with an explicit (earlier) timestamp.
 * upt_main_thread: the thread that called MPI_Init, valid once _set. */
void upt_enter_at(uint32_t region, uint64_t t);
extern pthread_t upt_main_thread;
extern int upt_main_thread_set;

/* The hooks, called by compiler-generated code only. */
void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

/* ---- the shadow stack ---------------------------------------------------- */

#define STACK_MAX 4096 /* frames kept; deeper calls are counted, not recorded */
#define PCACHE 256     /* manual names cached by pointer (direct-mapped) */

enum { FRAME_FUNC, FRAME_MANUAL };

struct frame {
    const void *key;  /* function address, or its struct mreg (manual) */
    uint64_t t;       /* entry time, while upt_funcs_init may still need it */
    uint32_t region;  /* UINT32_MAX: none (not recording, filtered, failed) */
    uint8_t kind;
    uint8_t written;  /* its Enter was written, so its exit writes the Leave */
};

/* An address seen while recording and its region (UINT32_MAX: no records). */
struct fslot {
    const void *fn;
    uint32_t region;
};

/* A manual region name, interned (the tracer keeps its own copy too, but the
 * frames of regions begun before MPI_Init need ours until it is defined). */
struct mreg {
    uint32_t region;
    uint32_t hash;
    int defined;
    char name[];
};

struct pslot {
    const char *ptr;
    struct mreg *m;
};

/* function address -> region: open addressing, grows at half load */
struct fntab {
    struct fslot *tab;
    size_t cap, used;
};

struct shadow {
    uint32_t depth; /* may exceed STACK_MAX: those frames are only counted */
    int recording;  /* this is the MPI thread's stack, between init and fini */
    struct frame f[STACK_MAX];
    struct fntab fns; /* this thread's cache of `named` (no lock) */
    /* manual names by content (grows with distinct names only) ... */
    struct mreg **nm_tab;
    size_t nm_cap, nm_used;
    /* ... behind a small cache by pointer, which never grows: a program
     * that builds names in ever new buffers must not make it unbounded */
    struct pslot pcache[PCACHE];
    struct upt_funcs_stats st;
};

static struct shadow initial; /* the thread that runs main */
static struct shadow other;   /* the MPI thread, if it is another one */
static pthread_t initial_thread;
static int initial_set;
static pthread_t other_thread;
static atomic_int other_armed;
static struct shadow *rec; /* the stack that records, once upt_funcs_init ran */

/* Any other thread's stack, made at its first hook while recording
 * (thread_shadow) and freed by its key's destructor (shadow_gone) or by
 * upt_funcs_thread_end; `gone` says it ended (its late hooks return). */
static _Thread_local struct shadow *mine __attribute__((tls_model("initial-exec")));
static _Thread_local int mine_gone __attribute__((tls_model("initial-exec")));
static pthread_key_t shadow_key;
static int shadow_key_made;
static pthread_mutex_t names_mu = PTHREAD_MUTEX_INITIALIZER; /* symbols.c, the stats */
static struct upt_funcs_stats gone_st; /* of the stacks freed (names_mu) */

/* 0: before upt_funcs_init (frames save their entry time), 1: initialised,
 * 2: after upt_funcs_fini (nothing is recorded any more) */
static atomic_int phase;

/* Set while this thread is inside the tracer: hooks that fire meanwhile
 * (instrumented code we call, a signal handler) return at once.  Initial-exec:
 * the library is loaded with the program (linked or preloaded), and the
 * guard is then a single %fs-relative load. */
static _Thread_local volatile int in_hook __attribute__((tls_model("initial-exec")));

/* The thread that runs constructors is the one that will run main.  Hooks
 * that fire before this (instrumented constructors of libraries loaded
 * before us) claim it themselves, in my_shadow(); no other thread exists yet
 * then. */
__attribute__((constructor)) static NOINST void funcs_ctor(void)
{
    if (!initial_set) {
        initial_thread = pthread_self();
        initial_set = 1;
    }
}

static NOINST void stats_add(struct upt_funcs_stats *to, const struct upt_funcs_stats *from)
{
    to->deep_calls += from->deep_calls;
    to->unmatched_exits += from->unmatched_exits;
    to->unmatched_ends += from->unmatched_ends;
    to->functions += from->functions;
    to->filtered += from->filtered;
}

/* A thread's stack goes: its counts are kept, its tables freed */
static NOINST void shadow_free(struct shadow *s)
{
    pthread_mutex_lock(&names_mu);
    stats_add(&gone_st, &s->st);
    pthread_mutex_unlock(&names_mu);
    for (size_t i = 0; i < s->nm_cap; i++)
        free(s->nm_tab[i]);
    free(s->nm_tab);
    free(s->fns.tab);
    free(s);
}

static NOINST void shadow_gone(void *p)
{
    if (mine == p)
        mine = NULL;
    mine_gone = 1;
    shadow_free(p);
}

static inline NOINST int phase_now(void);

/* A thread other than main's and MPI's, at a hook: a stack of its own while
 * recording (before, and after, it keeps none: nothing of it is recorded) */
static NOINST __attribute__((noinline, cold)) struct shadow *thread_shadow(void)
{
    struct shadow *s;
    if (mine_gone || phase_now() != 1 || !upt_on || !shadow_key_made)
        return NULL;
    if (!(s = calloc(1, sizeof *s)))
        return NULL;
    if (pthread_setspecific(shadow_key, s) != 0) {
        free(s);
        return NULL;
    }
    s->recording = 1;
    return mine = s;
}

static inline NOINST struct shadow *my_shadow(void)
{
    pthread_t self = pthread_self();
    if (!initial_set) {
        initial_thread = self;
        initial_set = 1;
    }
    if (pthread_equal(self, initial_thread))
        return &initial;
    if (atomic_load_explicit(&other_armed, memory_order_acquire) &&
        pthread_equal(self, other_thread))
        return &other;
    return mine ? mine : thread_shadow();
}

static inline NOINST int phase_now(void)
{
    return atomic_load_explicit(&phase, memory_order_relaxed);
}

static inline NOINST void close_frame(struct frame *f)
{
    if (f->written) {
        f->written = 0;
        upt_leave(f->region);
    }
}

/* ---- address -> region ----------------------------------------------------- */

static inline NOINST size_t ptr_hash(const void *p)
{
    uint64_t h = (uint64_t)(uintptr_t)p * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h ^ (h >> 29));
}

static NOINST int fn_grow(struct fntab *f)
{
    size_t ncap = f->cap ? f->cap * 2 : 256;
    struct fslot *t = calloc(ncap, sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < f->cap; i++) {
        if (!f->tab[i].fn)
            continue;
        size_t j = ptr_hash(f->tab[i].fn) & (ncap - 1);
        while (t[j].fn)
            j = (j + 1) & (ncap - 1);
        t[j] = f->tab[i];
    }
    free(f->tab);
    f->tab = t;
    f->cap = ncap;
    return 0;
}

static NOINST void fn_insert(struct fntab *f, const void *fn, uint32_t region)
{
    /* Grow at half load; if memory is short, fill up to 7/8 and then stop
     * caching (the function is then resolved again each time it is seen,
     * which is slow but still right). */
    if ((f->used + 1) * 2 > f->cap && fn_grow(f) != 0 && (f->used + 1) * 8 > f->cap * 7)
        return;
    size_t mask = f->cap - 1, i = ptr_hash(fn) & mask;
    while (f->tab[i].fn)
        i = (i + 1) & mask;
    f->tab[i].fn = fn;
    f->tab[i].region = region;
    f->used++;
}

/* The region of `fn` in an address table, if it is there. */
static inline NOINST bool fn_lookup(const struct fntab *f, const void *fn, uint32_t *region)
{
    if (f->cap) {
        size_t mask = f->cap - 1;
        for (size_t i = ptr_hash(fn) & mask;; i = (i + 1) & mask) {
            if (f->tab[i].fn == fn) {
                *region = f->tab[i].region;
                return true;
            }
            if (!f->tab[i].fn)
                break;
        }
    }
    return false;
}

/* Every address named in the process, shared by the threads' caches (under
 * names_mu): a thread's first sight of a function another thread named
 * costs a lookup here, not a symbol lookup */
static struct fntab named;

/* Name `fn`, apply the filter, define its region, and keep it in `named`
 * (names_mu held; a thread that named it meanwhile is taken at its word) */
static NOINST uint32_t define_function(struct shadow *s, const void *fn)
{
    const char *file;
    uint32_t line, r;
    const char *name;
    char buf[2 + 16 + 1];
    if (fn_lookup(&named, fn, &r))
        return r;
    name = upt_sym_name(fn, &file, &line);
    if (!name) {
        /* in no mapped file (we could not read /proc/self/maps?) */
        snprintf(buf, sizeof buf, "0x%" PRIxPTR, (uintptr_t)fn);
        name = buf;
        file = NULL;
        line = 0;
    }
    s->st.functions++;
    if (upt_filter_excluded(name)) {
        s->st.filtered++;
        r = UINT32_MAX;
    } else {
        r = upt_region_define(name, file, line);
    }
    fn_insert(&named, fn, r);
    return r;
}

/* First sight of `fn` on this thread while recording: another thread's
 * name for it, or its own, named now.  `overhead`: enclose the naming in
 * the tracer's own region (not from upt_funcs_init: its Enter records
 * carry earlier times and must come first). */
static NOINST __attribute__((noinline, cold)) uint32_t fn_resolve(struct shadow *s,
                                                                  const void *fn, int overhead)
{
    uint32_t r;
    bool known;
    pthread_mutex_lock(&names_mu);
    known = fn_lookup(&named, fn, &r);
    pthread_mutex_unlock(&names_mu);
    if (!known) {
        if (overhead)
            upt_overhead_begin();
        pthread_mutex_lock(&names_mu);
        r = define_function(s, fn);
        pthread_mutex_unlock(&names_mu);
        if (overhead)
            upt_overhead_end();
    }
    fn_insert(&s->fns, fn, r);
    return r;
}

static inline NOINST uint32_t fn_region(struct shadow *s, const void *fn, int overhead)
{
    uint32_t r;
    return fn_lookup(&s->fns, fn, &r) ? r : fn_resolve(s, fn, overhead);
}

/* ---- the hooks ---------------------------------------------------------------- */

static inline NOINST void push_func(struct shadow *s, const void *fn)
{
    uint32_t d = s->depth;
    if (d >= STACK_MAX) {
        s->depth = d + 1;
        s->st.deep_calls++;
        return;
    }
    struct frame *f = &s->f[d];
    f->key = fn;
    f->kind = FRAME_FUNC;
    f->written = 0;
    f->region = UINT32_MAX;
    if (!s->recording || !upt_on) {
        /* the clock only while upt_funcs_init may still want the time */
        f->t = phase_now() == 0 ? (upt_clock_init(), upt_now()) : 0;
        s->depth = d + 1;
        return;
    }
    f->t = 0;
    f->region = fn_region(s, fn, 1);
    /* The frame is complete before it counts, and counts before its Enter
     * is written: a fatal-signal upt_funcs_fini may then miss a Leave, but
     * never writes one without its Enter. */
    s->depth = d + 1;
    if (f->region != UINT32_MAX) {
        upt_enter(f->region);
        f->written = 1;
    }
}

/* An exit whose frame is not on top: the frames above it were left without
 * their exits (longjmp, or a manual region not ended in this function).
 * Close them, innermost first, then its own; an exit with no frame at all
 * (its entry came before this thread's stack began) is ignored. */
static NOINST __attribute__((noinline, cold)) void unwind_to(struct shadow *s, const void *fn)
{
    uint32_t d = s->depth, i = d;
    while (i > 0 && !(s->f[i - 1].kind == FRAME_FUNC && s->f[i - 1].key == fn))
        i--;
    if (i == 0) {
        s->st.unmatched_exits++;
        return;
    }
    uint32_t own = i - 1;
    for (uint32_t k = d; k-- > own;) {
        if (k > own && s->f[k].kind == FRAME_FUNC)
            s->st.unmatched_exits++;
        s->depth = k;
        close_frame(&s->f[k]);
    }
}

static inline NOINST void pop_func(struct shadow *s, const void *fn)
{
    uint32_t d = s->depth;
    if (d > STACK_MAX) { /* a frame we only counted */
        s->depth = d - 1;
        return;
    }
    if (d == 0) {
        s->st.unmatched_exits++;
        return;
    }
    struct frame *f = &s->f[d - 1];
    if (f->key != fn || f->kind != FRAME_FUNC) {
        unwind_to(s, fn);
        return;
    }
    s->depth = d - 1; /* uncounted before its Leave: see push_func */
    close_frame(f);
}

/* UNPERTURB_FUNCTIONS=0 turns the compiler hooks off (`unperturb trace`
 * without --functions sets it); the manual API stays on.  Read once, before
 * main(), so the hooks pay a load and a branch. */
static int hooks_off;

__attribute__((constructor)) NOINST static void read_functions_env(void)
{
    const char *e = getenv("UNPERTURB_FUNCTIONS");
    hooks_off = e && !strcmp(e, "0");
}

UPT_EXPORT NOINST void __cyg_profile_func_enter(void *fn, void *site)
{
    (void)site;
    if (hooks_off || in_hook)
        return;
    in_hook = 1;
    struct shadow *s = my_shadow();
    if (s)
        push_func(s, fn);
    in_hook = 0;
}

UPT_EXPORT NOINST void __cyg_profile_func_exit(void *fn, void *site)
{
    (void)site;
    if (hooks_off || in_hook)
        return;
    in_hook = 1;
    struct shadow *s = my_shadow();
    if (s)
        pop_func(s, fn);
    in_hook = 0;
}

/* ---- calibration ------------------------------------------------------------ */

/* A function the program never calls: the calibration's compiler-hook
 * records are written for it, as the tracer's own region. */
static NOINST __attribute__((noinline)) void calib_probe(void) { __asm__ volatile(""); }

/* `n` entry/exit pairs through the real hooks (the guard, the thread's
 * stack, the address table, the records), on the calling thread's stack
 * with recording on; its records go wherever the caller points the writer.
 * Returns the ns per pair, or -1 when this thread has no stack of its own. */
NOINST double upt_funcs_measure(unsigned n)
{
    struct shadow *s = my_shadow();
    void *fn = (void *)(uintptr_t)calib_probe;
    int saved_off = hooks_off, saved_rec;
    uint64_t t0;
    unsigned i;
    if (!s || in_hook)
        return -1;
    uint32_t r;
    if (!fn_lookup(&s->fns, fn, &r)) { /* first time: the tracer's own region, no definition */
        fn_insert(&s->fns, fn, UPT_R_OVERHEAD);
        if (!fn_lookup(&s->fns, fn, &r)) /* the table is full */
            return -1;
    }
    saved_rec = s->recording;
    hooks_off = 0;
    s->recording = 1;
    t0 = upt_ns();
    for (i = 0; i < n; i++) {
        __cyg_profile_func_enter(fn, NULL);
        __cyg_profile_func_exit(fn, NULL);
    }
    t0 = upt_ns() - t0;
    s->recording = saved_rec;
    hooks_off = saved_off;
    return (double)t0 / n;
}

/* ---- the manual API ------------------------------------------------------------ */

static NOINST uint32_t str_hash(const char *str, size_t *len)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    const unsigned char *p = (const unsigned char *)str;
    for (; *p; p++)
        h = (h ^ *p) * 16777619u;
    *len = (size_t)(p - (const unsigned char *)str);
    return h;
}

static NOINST int nm_grow(struct shadow *s)
{
    size_t ncap = s->nm_cap ? s->nm_cap * 2 : 64;
    struct mreg **t = calloc(ncap, sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < s->nm_cap; i++) {
        if (!s->nm_tab[i])
            continue;
        size_t j = s->nm_tab[i]->hash & (ncap - 1);
        while (t[j])
            j = (j + 1) & (ncap - 1);
        t[j] = s->nm_tab[i];
    }
    free(s->nm_tab);
    s->nm_tab = t;
    s->nm_cap = ncap;
    return 0;
}

/* The interned copy of `name`, or NULL when memory ran out. */
static NOINST struct mreg *name_intern(struct shadow *s, const char *name)
{
    struct pslot *p = &s->pcache[ptr_hash(name) & (PCACHE - 1)];
    if (p->ptr == name && strcmp(p->m->name, name) == 0)
        return p->m;
    size_t len;
    uint32_t h = str_hash(name, &len);
    struct mreg *m = NULL;
    if (s->nm_cap) {
        size_t mask = s->nm_cap - 1;
        for (size_t i = h & mask; s->nm_tab[i]; i = (i + 1) & mask) {
            if (s->nm_tab[i]->hash == h && strcmp(s->nm_tab[i]->name, name) == 0) {
                m = s->nm_tab[i];
                break;
            }
        }
    }
    if (!m) {
        if ((s->nm_used + 1) * 2 > s->nm_cap && nm_grow(s) != 0 &&
            (s->nm_used + 1) * 8 > s->nm_cap * 7)
            return NULL;
        m = malloc(sizeof *m + len + 1);
        if (!m)
            return NULL;
        m->region = UINT32_MAX;
        m->hash = h;
        m->defined = 0;
        memcpy(m->name, name, len + 1);
        size_t mask = s->nm_cap - 1, i = h & mask;
        while (s->nm_tab[i])
            i = (i + 1) & mask;
        s->nm_tab[i] = m;
        s->nm_used++;
    }
    p->ptr = name;
    p->m = m;
    return m;
}

/* Defined on first use while recording (upt_region_define answers
 * UINT32_MAX before that); retried after a failure. */
static NOINST uint32_t manual_region(struct mreg *m)
{
    if (!m->defined) {
        m->region = upt_region_define(m->name, NULL, 0);
        m->defined = m->region != UINT32_MAX;
    }
    return m->region;
}

static NOINST void push_manual(struct shadow *s, const char *name)
{
    uint32_t d = s->depth;
    if (d >= STACK_MAX) {
        s->depth = d + 1;
        s->st.deep_calls++;
        return;
    }
    /* after upt_funcs_fini names are no longer needed: the frame only keeps
     * the nesting (and matches any end) */
    int ph = phase_now();
    struct mreg *m = ph < 2 ? name_intern(s, name) : NULL;
    struct frame *f = &s->f[d];
    f->key = m;
    f->kind = FRAME_MANUAL;
    f->written = 0;
    f->region = UINT32_MAX;
    f->t = ph == 0 ? (upt_clock_init(), upt_now()) : 0;
    if (m && s->recording && upt_on)
        f->region = manual_region(m);
    s->depth = d + 1;
    if (f->region != UINT32_MAX) {
        upt_enter(f->region);
        f->written = 1;
    }
}

static NOINST void pop_manual(struct shadow *s, const char *name)
{
    uint32_t d = s->depth;
    if (d > STACK_MAX) { /* the top frame was only counted: trust the program */
        s->depth = d - 1;
        return;
    }
    struct frame *f = d ? &s->f[d - 1] : NULL;
    if (!f || f->kind != FRAME_MANUAL ||
        (f->key && strcmp(((const struct mreg *)f->key)->name, name) != 0)) {
        s->st.unmatched_ends++;
        return;
    }
    s->depth = d - 1;
    close_frame(f);
}

UPT_EXPORT NOINST void up_region_begin(const char *name)
{
    if (!name || in_hook)
        return;
    in_hook = 1;
    struct shadow *s = my_shadow();
    if (s)
        push_manual(s, name);
    in_hook = 0;
}

UPT_EXPORT NOINST void up_region_end(const char *name)
{
    if (!name || in_hook)
        return;
    in_hook = 1;
    struct shadow *s = my_shadow();
    if (s)
        pop_manual(s, name);
    in_hook = 0;
}

/* ---- life cycle ---------------------------------------------------------------- */

NOINST void upt_funcs_init(void)
{
    int expected = 0;
    if (!atomic_compare_exchange_strong(&phase, &expected, 1))
        return;
    int prev = in_hook;
    in_hook = 1;
    pthread_t self = upt_main_thread_set ? upt_main_thread : pthread_self();
    if (!initial_set) {
        initial_thread = self;
        initial_set = 1;
    }
    struct shadow *s = &initial;
    if (!pthread_equal(self, initial_thread)) {
        /* MPI runs on another thread: it records from an empty stack (what
         * it was running before is unknown), and main's thread only keeps
         * its own stack balanced */
        s = &other;
        other_thread = self;
        atomic_store_explicit(&other_armed, 1, memory_order_release);
    }
    rec = s;
    if (!shadow_key_made)
        shadow_key_made = pthread_key_create(&shadow_key, shadow_gone) == 0;
    upt_filter_load();
    upt_sym_init();
    if (upt_on) {
        /* Name everything first: the Enter records below carry the saved,
         * earlier times, and nothing may be written between them. */
        uint32_t n = s->depth < STACK_MAX ? s->depth : STACK_MAX;
        for (uint32_t i = 0; i < n; i++) {
            struct frame *f = &s->f[i];
            if (f->kind == FRAME_FUNC)
                f->region = fn_region(s, f->key, 0);
            else if (f->key)
                f->region = manual_region((struct mreg *)(uintptr_t)f->key);
        }
        for (uint32_t i = 0; i < n; i++) {
            struct frame *f = &s->f[i];
            if (f->region != UINT32_MAX) {
                upt_enter_at(f->region, f->t);
                f->written = 1;
            }
        }
    }
    s->recording = 1;
    initial.recording = 1; /* (main's thread, when MPI runs on another: from here on) */
    in_hook = prev;
}

NOINST void upt_funcs_thread_end(void)
{
    struct shadow *s = mine;
    if (!s || in_hook)
        return;
    in_hook = 1;
    s->recording = 0;
    for (uint32_t i = s->depth < STACK_MAX ? s->depth : STACK_MAX; i-- > 0;)
        close_frame(&s->f[i]);
    s->depth = 0;
    in_hook = 0;
}

NOINST void upt_funcs_fini(void)
{
    int expected = 1;
    if (!atomic_compare_exchange_strong(&phase, &expected, 2))
        return;
    struct shadow *s = rec;
    if (!s)
        return;
    int prev = in_hook;
    in_hook = 1;
    initial.recording = other.recording = 0;
    uint32_t n = s->depth < STACK_MAX ? s->depth : STACK_MAX;
    for (uint32_t i = n; i-- > 0;)
        close_frame(&s->f[i]);
    in_hook = prev;
}

NOINST uint64_t upt_funcs_earliest(void)
{
    if (phase_now() != 0 || !initial_set || !pthread_equal(pthread_self(), initial_thread) ||
        initial.depth == 0)
        return UINT64_MAX;
    return initial.f[0].t;
}

NOINST void upt_funcs_stats(struct upt_funcs_stats *st)
{
    memset(st, 0, sizeof *st);
    stats_add(st, &initial.st);
    stats_add(st, &other.st);
    pthread_mutex_lock(&names_mu);
    stats_add(st, &gone_st); /* (threads still running: not counted) */
    pthread_mutex_unlock(&names_mu);
}

static void filter_clear(void);

NOINST void upt_funcs_free(void)
{
    if (phase_now() != 2)
        return;
    /* Only what recording needed.  The interned manual names stay: frames
     * still open (a region begun in main) point at them. */
    struct fntab *t[3] = {&initial.fns, &other.fns, &named};
    pthread_mutex_lock(&names_mu); /* (other threads record no more: phase 2) */
    for (int i = 0; i < 3; i++) {
        free(t[i]->tab);
        memset(t[i], 0, sizeof *t[i]);
    }
    pthread_mutex_unlock(&names_mu);
    filter_clear();
    upt_sym_fini();
}

/* ---- the filter ------------------------------------------------------------------- */

struct pattern {
    int include; /* "!glob": matches are included again */
    char glob[];
};

static struct pattern **patterns;
static size_t npatterns, patterns_cap;
static int filter_loaded;

static NOINST void filter_clear(void)
{
    for (size_t i = 0; i < npatterns; i++)
        free(patterns[i]);
    free(patterns);
    patterns = NULL;
    npatterns = patterns_cap = 0;
}

static NOINST int is_space(int c)
{
    return isspace((unsigned char)c);
}

/* Add the pattern p[0..len), trimmed; an empty one is ignored. */
static NOINST int add_pattern(const char *p, size_t len)
{
    while (len && is_space(*p))
        p++, len--;
    while (len && is_space(p[len - 1]))
        len--;
    int include = 0;
    if (len && *p == '!') {
        include = 1;
        p++, len--;
        while (len && is_space(*p))
            p++, len--;
    }
    if (!len)
        return 0;
    if (npatterns == patterns_cap) {
        size_t ncap = patterns_cap ? patterns_cap * 2 : 16;
        struct pattern **np = realloc(patterns, ncap * sizeof *np);
        if (!np)
            return -1;
        patterns = np;
        patterns_cap = ncap;
    }
    struct pattern *pat = malloc(sizeof *pat + len + 1);
    if (!pat)
        return -1;
    pat->include = include;
    memcpy(pat->glob, p, len);
    pat->glob[len] = '\0';
    patterns[npatterns++] = pat;
    return 0;
}

/* One glob per line; '#' to the end of the line is a comment.  Returns 0,
 * or an errno value: EINVAL for a file that is not a regular file (a FIFO
 * must not block the program, /dev/zero not fill its memory), EFBIG for one
 * of more than 1 MiB (`unperturb trace` checks both first, with a clear
 * message). */
static NOINST int load_filter_file(const char *path)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    FILE *fp;
    if (fd < 0)
        return errno ? errno : EIO;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 20) ||
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 || !(fp = fdopen(fd, "r"))) {
        int e = S_ISREG(st.st_mode) ? (st.st_size > (1 << 20) ? EFBIG : errno ? errno : EIO) : EINVAL;
        close(fd);
        return e;
    }
    char *buf = NULL;
    size_t cap = 0;
    ssize_t n;
    int err = 0;
    errno = 0;
    while ((n = getline(&buf, &cap, fp)) >= 0) {
        char *hash = memchr(buf, '#', (size_t)n);
        if (add_pattern(buf, hash ? (size_t)(hash - buf) : (size_t)n) != 0) {
            err = ENOMEM;
            break;
        }
    }
    if (!err && ferror(fp))
        err = errno ? errno : EIO;
    free(buf);
    fclose(fp);
    return err;
}

NOINST void upt_filter_load(void)
{
    filter_clear();
    filter_loaded = 1;
    const char *path = getenv("UNPERTURB_FILTER_FILE");
    if (path && *path) {
        int err = load_filter_file(path);
        if (err) {
            filter_clear();
            fprintf(stderr, "unperturb-trace: cannot read filter file %s (%s): filtering nothing\n",
                    path, strerror(err));
            return;
        }
    }
    const char *spec = getenv("UNPERTURB_FILTER");
    for (const char *p = spec; p && *p;) {
        size_t len = strcspn(p, ", \t\r\n\v\f");
        if (add_pattern(p, len) != 0) {
            filter_clear(); /* out of memory: filter nothing rather than half */
            return;
        }
        p += len;
        if (*p)
            p++;
    }
}

NOINST int upt_filter_excluded(const char *name)
{
    if (!filter_loaded)
        upt_filter_load();
    /* the last matching pattern decides */
    for (size_t i = npatterns; i-- > 0;)
        if (fnmatch(patterns[i]->glob, name, 0) == 0)
            return !patterns[i]->include;
    return 0;
}
