/*
 * pthreads.c - the POSIX-thread calls of the program: thread creation and
 * join, mutexes, condition variables, barriers and semaphores, recorded as
 * docs/tracer.md ("POSIX threads: what is recorded") says.
 *
 * Place in the data flow: measurement, over tracer.c and funcs.c (upt.h).
 * The library is preloaded, so every call of these functions in the process
 * comes here, the runtimes' own as well: Open MPI, OTF2 (the tracer's own
 * archive locks), libomp and libgomp lock mutexes inside their calls.  Only
 * the program's calls are recorded: a call whose return address lies in a
 * runtime's object (by_runtime) goes straight to the real function.
 *
 * Objects are numbered per process in the order they are first used (the
 * OTF2 lock ids and the attribute unperturb::object); a table keyed by the
 * object's address holds the number and the object's counters, and an entry
 * goes when the program destroys the object, so a program that makes ever
 * new mutexes keeps the table bounded (OBJ_MAX live objects; past that, an
 * object is called through unrecorded, and counted: upt_pthreads_report).
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "tracer/funcs.h"
#include "tracer/upt.h"

/* ---- the real functions --------------------------------------------------- */

#define REAL_FUNCS(X)                                                                   \
    X(pthread_create, int, (pthread_t *, const pthread_attr_t *, void *(*)(void *), void *)) \
    X(pthread_join, int, (pthread_t, void **))                                         \
    X(pthread_exit, void, (void *))                                                    \
    X(pthread_mutex_lock, int, (pthread_mutex_t *))                                    \
    X(pthread_mutex_trylock, int, (pthread_mutex_t *))                                 \
    X(pthread_mutex_timedlock, int, (pthread_mutex_t *, const struct timespec *))      \
    X(pthread_mutex_unlock, int, (pthread_mutex_t *))                                  \
    X(pthread_mutex_destroy, int, (pthread_mutex_t *))                                 \
    X(pthread_cond_wait, int, (pthread_cond_t *, pthread_mutex_t *))                   \
    X(pthread_cond_timedwait, int, (pthread_cond_t *, pthread_mutex_t *, const struct timespec *)) \
    X(pthread_cond_signal, int, (pthread_cond_t *))                                    \
    X(pthread_cond_broadcast, int, (pthread_cond_t *))                                 \
    X(pthread_cond_destroy, int, (pthread_cond_t *))                                   \
    X(pthread_barrier_init, int, (pthread_barrier_t *, const pthread_barrierattr_t *, unsigned)) \
    X(pthread_barrier_wait, int, (pthread_barrier_t *))                                \
    X(pthread_barrier_destroy, int, (pthread_barrier_t *))                             \
    X(sem_post, int, (sem_t *))                                                        \
    X(sem_wait, int, (sem_t *))                                                        \
    X(sem_trywait, int, (sem_t *))                                                     \
    X(sem_timedwait, int, (sem_t *, const struct timespec *))                          \
    X(sem_destroy, int, (sem_t *))

#define X(name, ret, params) static ret(*real_##name) params;
REAL_FUNCS(X)
#undef X

/* The next definition of each, after ours (RTLD_NEXT); once, before main
 * and again if a call came first (another library's constructor).  dlsym
 * takes the loader's own lock, not a pthread mutex: no recursion. */
static void resolve(void)
{
#define X(name, ret, params) *(void **)&real_##name = dlsym(RTLD_NEXT, #name);
    REAL_FUNCS(X)
#undef X
}

__attribute__((constructor(102))) static void pthreads_ctor(void) { resolve(); }

#define REAL(name) (__builtin_expect(real_##name != NULL, 1) ? real_##name : (resolve(), real_##name))

/* ---- whose call: the program's, or a runtime's --------------------------------- */

/* The loaded objects' address ranges, and whether each is a runtime whose
 * calls are not the program's.  Filled from dl_iterate_phdr at the first
 * address in none of them (a library loaded later: Open MPI's components). */
#define OBJS_MAX 512
static struct obj { uintptr_t lo, hi; bool runtime; } objs[OBJS_MAX];
static _Atomic unsigned nobjs;
static atomic_flag objs_lock = ATOMIC_FLAG_INIT; /* a spin lock: never a mutex here */

/* (libstdc++ is not among them: std::thread, std::condition_variable and
 * join call these functions from inside it for the program) */
static const char *const runtimes[] = {
    "libunperturb", "libopen-trace-format", "libotf2", "libmpi", "libopen-pal", "libopen-rte",
    "libpmix", "libevent", "libhwloc", "libucp", "libucs", "libuct", "libfabric", "libpsm",
    "/openmpi/", "libomp", "libgomp", "libiomp", "ld-linux", "libc.so", "libcuda", "libdw",
    "libelf", "libgfortran", "libquadmath", "libgcc_s", "libibverbs", "librdmacm", "libnuma",
    "libudev", "libnl-", "libz.so", "libcrypto", "libssl",
};

static bool is_runtime(const char *path)
{
    size_t i;
    for (i = 0; i < sizeof runtimes / sizeof *runtimes; i++)
        if (strstr(path, runtimes[i]))
            return true;
    return false;
}

static int add_obj(struct dl_phdr_info *info, size_t size, void *data)
{
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    unsigned i, n = atomic_load(&nobjs);
    (void)size, (void)data;
    for (i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        if (info->dlpi_addr + ph->p_vaddr < lo)
            lo = info->dlpi_addr + ph->p_vaddr;
        if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
            hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
    }
    if (hi <= lo || n == OBJS_MAX)
        return 0;
    for (i = 0; i < n; i++)
        if (objs[i].lo == lo)
            return 0; /* known */
    objs[n].lo = lo;
    objs[n].hi = hi;
    /* the program itself has an empty name */
    objs[n].runtime = info->dlpi_name && is_runtime(info->dlpi_name);
    atomic_store(&nobjs, n + 1);
    return 0;
}

/* The object holding `ra`, the last one found kept per thread */
static _Thread_local const struct obj *last_obj __attribute__((tls_model("initial-exec")));

static __attribute__((noinline)) bool by_runtime_slow(uintptr_t ra)
{
    unsigned i, n;
    for (int pass = 0; pass < 2; pass++) {
        n = atomic_load(&nobjs);
        for (i = 0; i < n; i++)
            if (ra >= objs[i].lo && ra < objs[i].hi) {
                last_obj = &objs[i];
                return objs[i].runtime;
            }
        if (pass)
            break;
        while (atomic_flag_test_and_set(&objs_lock))
            ;
        dl_iterate_phdr(add_obj, NULL);
        atomic_flag_clear(&objs_lock);
    }
    return true; /* in no object (generated code?): not the program's */
}

static inline bool by_runtime(const void *ret)
{
    uintptr_t ra = (uintptr_t)ret;
    const struct obj *o = last_obj;
    if (o && ra >= o->lo && ra < o->hi)
        return o->runtime;
    return by_runtime_slow(ra);
}

/* Record this call?  Recording on, and the program's own call. */
#define MINE() (upt_on && !by_runtime(__builtin_return_address(0)))

/* ---- objects ---------------------------------------------------------------- */

enum { O_MUTEX, O_COND, O_BARRIER, O_SEM, O_THREAD, O_KINDS };

typedef struct pobj {
    const void *addr;
    uint32_t kind, id;
    /* a mutex: the acquisitions so far, and the holder's depth (recursive
     * mutexes: only the outermost lock and unlock are recorded); written
     * by the holder only */
    uint32_t order, depth;
    pthread_t owner;
    _Atomic uint64_t seq;  /* V's, signals */
    _Atomic uint64_t pseq; /* P's */
    uint32_t count;        /* a barrier's */
} pobj;
/* (a thread's entry, keyed by its pthread_t until it is joined: seq is its
 * ThreadCreate's sequence number) */

/* The table: open addressing over pointers to entries, which never move (a
 * thread uses its entry after the lock is let go); an entry is freed when
 * its object is destroyed, and a destroyed object is not used again. */
#define OBJ_MAX (1u << 16) /* live objects; the table never grows past 4x this */
static pobj *const TOMB = (pobj *)1;
static pobj **otab;
static uint32_t ocap, oused, olive; /* slots, slots used (live + tombs), live */
static uint32_t next_id[O_KINDS];
static atomic_flag otab_lock = ATOMIC_FLAG_INIT;
static _Atomic uint64_t objs_dropped; /* objects past OBJ_MAX: not recorded */

static inline void olock(void)
{
    while (atomic_flag_test_and_set_explicit(&otab_lock, memory_order_acquire))
        ;
}
static inline void ounlock(void) { atomic_flag_clear_explicit(&otab_lock, memory_order_release); }

static inline uint32_t ohash(const void *p, uint32_t kind)
{
    uint64_t h = ((uint64_t)(uintptr_t)p ^ kind) * UINT64_C(0x9E3779B97F4A7C15);
    return (uint32_t)(h >> 32);
}

/* the slot of (p, kind), or the empty slot where it would go; under the lock */
static uint32_t oslot(const void *p, uint32_t kind)
{
    uint32_t i = ohash(p, kind) & (ocap - 1);
    for (; otab[i]; i = (i + 1) & (ocap - 1))
        if (otab[i] != TOMB && otab[i]->addr == p && otab[i]->kind == kind)
            break;
    return i;
}

/* a table twice the live entries' need, without tombs; under the lock */
static bool orehash(void)
{
    uint32_t ncap = ocap ? ocap : 256, i, j;
    pobj **t;
    while ((olive + 1) * 4 > ncap)
        ncap *= 2;
    if (!(t = calloc(ncap, sizeof *t)))
        return false;
    for (i = 0; i < ocap; i++) {
        if (!otab[i] || otab[i] == TOMB)
            continue;
        for (j = ohash(otab[i]->addr, otab[i]->kind) & (ncap - 1); t[j]; j = (j + 1) & (ncap - 1))
            ;
        t[j] = otab[i];
    }
    free(otab);
    otab = t, ocap = ncap, oused = olive;
    return true;
}

/* The entry of object p of `kind`, made at its first use if `make` (NULL:
 * none, too many live objects, or no memory: the call is not recorded). */
static pobj *obj_get(const void *p, uint32_t kind, bool make)
{
    uint32_t i;
    pobj *e = NULL;
    olock();
    if (ocap && otab[i = oslot(p, kind)]) {
        e = otab[i];
        goto out;
    }
    if (!make)
        goto out;
    if (olive >= OBJ_MAX) {
        atomic_fetch_add(&objs_dropped, 1);
        goto out;
    }
    if ((oused + 1) * 2 > ocap && !orehash())
        goto out;
    if (!(e = calloc(1, sizeof *e)))
        goto out;
    e->addr = p;
    e->kind = kind;
    e->id = ++next_id[kind];
    otab[oslot(p, kind)] = e;
    oused++, olive++;
out:
    ounlock();
    return e;
}

/* The program destroyed object p: its entry goes (a tomb keeps the probe
 * chains; the next rehash drops them) */
static void obj_forget(const void *p, uint32_t kind)
{
    uint32_t i;
    pobj *e = NULL;
    olock();
    if (ocap && (e = otab[i = oslot(p, kind)]) != NULL) {
        otab[i] = TOMB;
        olive--;
    }
    ounlock();
    free(e);
}

/* ---- records ------------------------------------------------------------------ */

enum { R_CREATE, R_JOIN, R_LOCK, R_TRYLOCK, R_TIMEDLOCK, R_UNLOCK, R_COND_WAIT, R_COND_TIMEDWAIT,
       R_SIGNAL, R_BROADCAST, R_BARRIER, R_SEM_POST, R_SEM_WAIT, R_SEM_TRYWAIT, R_SEM_TIMEDWAIT,
       R_COUNT };

static const struct { const char *name; OTF2_RegionRole role; } regs[R_COUNT] = {
    [R_CREATE] = {"pthread_create", OTF2_REGION_ROLE_THREAD_CREATE},
    [R_JOIN] = {"pthread_join", OTF2_REGION_ROLE_THREAD_WAIT},
    [R_LOCK] = {"pthread_mutex_lock", OTF2_REGION_ROLE_WRAPPER},
    [R_TRYLOCK] = {"pthread_mutex_trylock", OTF2_REGION_ROLE_WRAPPER},
    [R_TIMEDLOCK] = {"pthread_mutex_timedlock", OTF2_REGION_ROLE_WRAPPER},
    [R_UNLOCK] = {"pthread_mutex_unlock", OTF2_REGION_ROLE_WRAPPER},
    [R_COND_WAIT] = {"pthread_cond_wait", OTF2_REGION_ROLE_WRAPPER},
    [R_COND_TIMEDWAIT] = {"pthread_cond_timedwait", OTF2_REGION_ROLE_WRAPPER},
    [R_SIGNAL] = {"pthread_cond_signal", OTF2_REGION_ROLE_WRAPPER},
    [R_BROADCAST] = {"pthread_cond_broadcast", OTF2_REGION_ROLE_WRAPPER},
    [R_BARRIER] = {"pthread_barrier_wait", OTF2_REGION_ROLE_BARRIER},
    [R_SEM_POST] = {"sem_post", OTF2_REGION_ROLE_WRAPPER},
    [R_SEM_WAIT] = {"sem_wait", OTF2_REGION_ROLE_WRAPPER},
    [R_SEM_TRYWAIT] = {"sem_trywait", OTF2_REGION_ROLE_WRAPPER},
    [R_SEM_TIMEDWAIT] = {"sem_timedwait", OTF2_REGION_ROLE_WRAPPER},
};
static _Atomic uint32_t reg_ids[R_COUNT]; /* id + 1; 0: not defined yet */

/* region r's id, defined at its first use (UINT32_MAX: it could not be) */
static uint32_t region(int r)
{
    uint32_t v = atomic_load_explicit(&reg_ids[r], memory_order_relaxed);
    if (v)
        return v - 1;
    v = upt_region_define_as(regs[r].name, "pthread", 0, regs[r].role, OTF2_PARADIGM_PTHREAD);
    if (v != UINT32_MAX)
        atomic_store(&reg_ids[r], v + 1);
    return v;
}

/* the attributes (docs/tracer.md): ids from UPT_ATTR_PTHREADS_ */
enum { A_OBJECT = UPT_ATTR_PTHREADS_, A_COUNT, A_SEM_OP, A_SEQ, A_WOKEN_BY, A_SIGNALS };
static atomic_int attrs_defined;

static void define_attrs(void)
{
    if (atomic_exchange(&attrs_defined, 1))
        return;
    upt_attr_define(A_OBJECT, OTF2_TYPE_UINT32, "unperturb::object",
                    "the barrier, semaphore or condition variable: its number in the process");
    upt_attr_define(A_COUNT, OTF2_TYPE_UINT32, "unperturb::count", "the barrier's count");
    upt_attr_define(A_SEM_OP, OTF2_TYPE_UINT8, "unperturb::sem_op",
                    "the semaphore event: 1 V, 2 P_p (passed), 3 P_e (waited), 0 no P");
    upt_attr_define(A_SEQ, OTF2_TYPE_UINT64, "unperturb::seq",
                    "the n-th V, P, or signal/broadcast on the object");
    upt_attr_define(A_WOKEN_BY, OTF2_TYPE_UINT64, "unperturb::woken_by",
                    "the seq of the latest signal or broadcast when the wait returned (0: none)");
    upt_attr_define(A_SIGNALS, OTF2_TYPE_UINT32, "unperturb::signals",
                    "signals and broadcasts during the wait (1: exact; more: ambiguous)");
}

typedef struct pattr { uint32_t id; OTF2_Type type; uint64_t v; } pattr;

/* An Enter (or Leave) of region r with n attributes */
static void region_rec(bool enter, int r, const pattr *a, unsigned n)
{
    uint32_t id = region(r);
    OTF2_AttributeList *l = NULL;
    OTF2_EvtWriter *w;
    unsigned i;
    if (id == UINT32_MAX)
        return;
    if (n)
        define_attrs();
    if (!(w = upt_rec_open()))
        return;
    if (n && (l = upt_rec_attrs()) != NULL)
        for (i = 0; i < n; i++) {
            OTF2_AttributeValue v;
            if (a[i].type == OTF2_TYPE_UINT8)
                v.uint8 = (uint8_t)a[i].v;
            else if (a[i].type == OTF2_TYPE_UINT32)
                v.uint32 = (uint32_t)a[i].v;
            else
                v.uint64 = a[i].v;
            OTF2_AttributeList_AddAttribute(l, a[i].id, a[i].type, v);
        }
    upt_rec_close(enter ? OTF2_EvtWriter_Enter(w, l, upt_now(), id)
                        : OTF2_EvtWriter_Leave(w, l, upt_now(), id));
}

static inline void enter(int r) { region_rec(true, r, NULL, 0); }
static inline void leave(int r) { region_rec(false, r, NULL, 0); }

static void lock_rec(bool acquire, uint32_t id, uint32_t order)
{
    OTF2_EvtWriter *w = upt_rec_open();
    if (w)
        upt_rec_close(acquire ? OTF2_EvtWriter_ThreadAcquireLock(w, NULL, upt_now(),
                                                                 OTF2_PARADIGM_PTHREAD, id, order)
                              : OTF2_EvtWriter_ThreadReleaseLock(w, NULL, upt_now(),
                                                                 OTF2_PARADIGM_PTHREAD, id, order));
}

enum { T_CREATE, T_BEGIN, T_WAIT, T_END };

static void thread_rec(int what, uint64_t seq)
{
    OTF2_EvtWriter *w = upt_rec_open();
    OTF2_ErrorCode rc;
    if (!w)
        return;
    switch (what) {
    case T_CREATE: rc = OTF2_EvtWriter_ThreadCreate(w, NULL, upt_now(), UPT_COMM_THREADS, seq); break;
    case T_BEGIN: rc = OTF2_EvtWriter_ThreadBegin(w, NULL, upt_now(), UPT_COMM_THREADS, seq); break;
    case T_WAIT: rc = OTF2_EvtWriter_ThreadWait(w, NULL, upt_now(), UPT_COMM_THREADS, seq); break;
    default: rc = OTF2_EvtWriter_ThreadEnd(w, NULL, upt_now(), UPT_COMM_THREADS, seq); break;
    }
    upt_rec_close(rc);
}

void upt_pthreads_report(void)
{
    uint64_t n = atomic_load(&objs_dropped);
    if (n)
        upt_warn("%llu calls on objects past the %u live ones the tracer numbers were not recorded",
                 (unsigned long long)n, OBJ_MAX);
}

void upt_thread_record_probe(uint64_t seq) { thread_rec(T_BEGIN, seq); }
void upt_lock_record_probe(uint32_t order) { lock_rec(true, 1, order); }

/* ---- threads ------------------------------------------------------------------- */

static _Atomic uint64_t create_seq;  /* the process's pthread_create calls */
static _Thread_local uint64_t my_seq __attribute__((tls_model("initial-exec")));

typedef struct start { void *(*fn)(void *); void *arg; uint64_t seq; } start;

/* the end of a thread made by a recorded pthread_create: its functions'
 * Leave records, then its ThreadEnd (its last record) */
static void thread_ends(void)
{
    uint64_t s = my_seq;
    if (!s)
        return;
    my_seq = 0;
    upt_funcs_thread_end();
    thread_rec(T_END, s);
}

static void *trampoline(void *p)
{
    start st = *(start *)p;
    void *ret;
    free(p);
    my_seq = st.seq;
    thread_rec(T_BEGIN, st.seq); /* (its first record: the thread's location begins) */
    ret = st.fn(st.arg);
    thread_ends();
    return ret;
}

UPT_EXPORT int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *),
                              void *arg)
{
    start *st;
    uint64_t seq;
    int rc, e;
    if (!MINE() || !(st = malloc(sizeof *st)))
        return REAL(pthread_create)(t, attr, fn, arg);
    seq = atomic_fetch_add(&create_seq, 1) + 1;
    st->fn = fn, st->arg = arg, st->seq = seq; /* (the thread frees st) */
    upt_threads_comm();
    enter(R_CREATE);
    thread_rec(T_CREATE, seq); /* before the thread can begin */
    rc = REAL(pthread_create)(t, attr, trampoline, st);
    e = errno;
    if (rc == 0) {
        pobj *o = obj_get((const void *)(uintptr_t)*t, O_THREAD, true);
        if (o)
            atomic_store(&o->seq, seq);
    } else {
        free(st);
    }
    leave(R_CREATE);
    errno = e;
    return rc;
}

UPT_EXPORT int pthread_join(pthread_t t, void **ret)
{
    int rc, e;
    pobj *o;
    if (!MINE())
        return REAL(pthread_join)(t, ret);
    enter(R_JOIN);
    rc = REAL(pthread_join)(t, ret);
    e = errno;
    if (rc == 0 && (o = obj_get((const void *)(uintptr_t)t, O_THREAD, false)) != NULL) {
        thread_rec(T_WAIT, atomic_load(&o->seq));
        obj_forget((const void *)(uintptr_t)t, O_THREAD);
    }
    leave(R_JOIN);
    errno = e;
    return rc;
}

UPT_EXPORT void pthread_exit(void *v)
{
    thread_ends();
    REAL(pthread_exit)(v);
    __builtin_unreachable();
}

/* ---- mutexes ------------------------------------------------------------------- */

/* This thread now holds m: an acquisition, unless it held it already (a
 * recursive mutex) */
static void mutex_held(pthread_mutex_t *m, uint32_t depth)
{
    pobj *o = obj_get(m, O_MUTEX, true);
    pthread_t self = pthread_self();
    if (!o)
        return;
    if (o->depth && pthread_equal(o->owner, self)) {
        o->depth += depth;
        return;
    }
    o->owner = self;
    o->depth = depth;
    lock_rec(true, o->id, ++o->order);
}

/* This thread lets m go (all of a recursive mutex's depth if `all`): its
 * depth before, 0 when the tracer did not see it taken */
static uint32_t mutex_letgo(pthread_mutex_t *m, bool all)
{
    pobj *o = obj_get(m, O_MUTEX, false);
    uint32_t d;
    if (!o || !o->depth || !pthread_equal(o->owner, pthread_self()))
        return 0;
    d = o->depth;
    o->depth = all ? 0 : d - 1;
    if (!o->depth)
        lock_rec(false, o->id, o->order);
    return d;
}

static int mutex_lock_as(int r, pthread_mutex_t *m, const struct timespec *abs)
{
    int rc, e;
    enter(r);
    rc = r == R_LOCK ? REAL(pthread_mutex_lock)(m)
       : r == R_TRYLOCK ? REAL(pthread_mutex_trylock)(m)
                        : REAL(pthread_mutex_timedlock)(m, abs);
    e = errno;
    if (rc == 0)
        mutex_held(m, 1);
    leave(r);
    errno = e;
    return rc;
}

UPT_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
    if (!MINE())
        return REAL(pthread_mutex_lock)(m);
    return mutex_lock_as(R_LOCK, m, NULL);
}

UPT_EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
    if (!MINE())
        return REAL(pthread_mutex_trylock)(m);
    return mutex_lock_as(R_TRYLOCK, m, NULL);
}

UPT_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abs)
{
    if (!MINE())
        return REAL(pthread_mutex_timedlock)(m, abs);
    return mutex_lock_as(R_TIMEDLOCK, m, abs);
}

/* Does this thread hold m, as the tracer saw it taken? */
static bool held_here(pthread_mutex_t *m)
{
    pobj *o = obj_get(m, O_MUTEX, false);
    return o && o->depth && pthread_equal(o->owner, pthread_self());
}

/* (An unlock the tracer did not see taken is not recorded: a runtime that
 * calls pthread_mutex_unlock last, as a tail call, returns to its caller,
 * the program, and its unlock would look like the program's.) */
static int mutex_unlock_rec(pthread_mutex_t *m)
{
    int rc, e;
    enter(R_UNLOCK);
    mutex_letgo(m, false); /* (before the next holder can take it) */
    rc = REAL(pthread_mutex_unlock)(m);
    e = errno;
    leave(R_UNLOCK);
    errno = e;
    return rc;
}

UPT_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
    if (!MINE() || !held_here(m))
        return REAL(pthread_mutex_unlock)(m);
    return mutex_unlock_rec(m);
}

double upt_pthread_probe(unsigned n, double *straight)
{
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    uint64_t t0, t1, t2;
    unsigned i;
    t0 = upt_ns();
    for (i = 0; i < n; i++) {
        mutex_lock_as(R_LOCK, &m, NULL);
        mutex_unlock_rec(&m);
    }
    t1 = upt_ns();
    for (i = 0; i < n; i++) {
        REAL(pthread_mutex_lock)(&m);
        REAL(pthread_mutex_unlock)(&m);
    }
    t2 = upt_ns();
    obj_forget(&m, O_MUTEX);
    olock();
    next_id[O_MUTEX]--; /* (the program's first mutex is still number 1) */
    ounlock();
    *straight = (double)(t2 - t1) / n;
    return (double)(t1 - t0) / n;
}

UPT_EXPORT int pthread_mutex_destroy(pthread_mutex_t *m)
{
    obj_forget(m, O_MUTEX);
    return REAL(pthread_mutex_destroy)(m);
}

/* ---- condition variables ------------------------------------------------------- */

static int cond_wait_as(int r, pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abs)
{
    pobj *o = obj_get(c, O_COND, true);
    uint64_t s0 = o ? atomic_load(&o->seq) : 0, s1;
    uint32_t depth;
    int rc, e;
    pattr a[3] = {{A_OBJECT, OTF2_TYPE_UINT32, o ? o->id : 0},
                  {A_WOKEN_BY, OTF2_TYPE_UINT64, 0},
                  {A_SIGNALS, OTF2_TYPE_UINT32, 0}};
    region_rec(true, r, a, o ? 1 : 0);
    depth = mutex_letgo(m, true);
    rc = r == R_COND_WAIT ? REAL(pthread_cond_wait)(c, m) : REAL(pthread_cond_timedwait)(c, m, abs);
    e = errno;
    if (depth) /* it holds the mutex again, timed out or not */
        mutex_held(m, depth);
    s1 = o ? atomic_load(&o->seq) : 0;
    a[1].v = s1 > s0 ? s1 : 0;
    a[2].v = s1 - s0;
    region_rec(false, r, a, o ? 3 : 0);
    errno = e;
    return rc;
}

UPT_EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    if (!MINE())
        return REAL(pthread_cond_wait)(c, m);
    return cond_wait_as(R_COND_WAIT, c, m, NULL);
}

UPT_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                      const struct timespec *abs)
{
    if (!MINE())
        return REAL(pthread_cond_timedwait)(c, m, abs);
    return cond_wait_as(R_COND_TIMEDWAIT, c, m, abs);
}

static int cond_signal_as(int r, pthread_cond_t *c)
{
    pobj *o = obj_get(c, O_COND, true);
    pattr a[2] = {{A_OBJECT, OTF2_TYPE_UINT32, o ? o->id : 0}, {A_SEQ, OTF2_TYPE_UINT64, 0}};
    int rc, e;
    /* counted before the waiters can see it */
    if (o)
        a[1].v = atomic_fetch_add(&o->seq, 1) + 1;
    region_rec(true, r, a, o ? 2 : 0);
    rc = r == R_SIGNAL ? REAL(pthread_cond_signal)(c) : REAL(pthread_cond_broadcast)(c);
    e = errno;
    region_rec(false, r, a, o ? 1 : 0);
    errno = e;
    return rc;
}

UPT_EXPORT int pthread_cond_signal(pthread_cond_t *c)
{
    if (!MINE())
        return REAL(pthread_cond_signal)(c);
    return cond_signal_as(R_SIGNAL, c);
}

UPT_EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
    if (!MINE())
        return REAL(pthread_cond_broadcast)(c);
    return cond_signal_as(R_BROADCAST, c);
}

UPT_EXPORT int pthread_cond_destroy(pthread_cond_t *c)
{
    obj_forget(c, O_COND);
    return REAL(pthread_cond_destroy)(c);
}

/* ---- barriers ------------------------------------------------------------------ */

UPT_EXPORT int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *attr,
                                    unsigned count)
{
    int rc = REAL(pthread_barrier_init)(b, attr, count);
    pobj *o;
    if (rc == 0) {
        /* numbered from its first wait: a fresh entry for an address reused */
        obj_forget(b, O_BARRIER);
        if ((o = obj_get(b, O_BARRIER, true)) != NULL)
            o->count = count;
    }
    return rc;
}

UPT_EXPORT int pthread_barrier_wait(pthread_barrier_t *b)
{
    pobj *o;
    int rc, e;
    if (!MINE() || !(o = obj_get(b, O_BARRIER, true)))
        return REAL(pthread_barrier_wait)(b);
    pattr a[2] = {{A_OBJECT, OTF2_TYPE_UINT32, o->id}, {A_COUNT, OTF2_TYPE_UINT32, o->count}};
    region_rec(true, R_BARRIER, a, 2);
    rc = REAL(pthread_barrier_wait)(b);
    e = errno;
    region_rec(false, R_BARRIER, a, 1);
    errno = e;
    return rc;
}

UPT_EXPORT int pthread_barrier_destroy(pthread_barrier_t *b)
{
    obj_forget(b, O_BARRIER);
    return REAL(pthread_barrier_destroy)(b);
}

/* ---- semaphores (Malony and Reed, Section 4.3.1) -------------------------------- */

enum { SEM_NONE, SEM_V, SEM_PP, SEM_PE };

UPT_EXPORT int sem_post(sem_t *sem)
{
    pobj *o;
    int rc, e;
    if (!MINE() || !(o = obj_get(sem, O_SEM, true)))
        return REAL(sem_post)(sem);
    pattr a[2] = {{A_OBJECT, OTF2_TYPE_UINT32, o->id},
                  {A_SEQ, OTF2_TYPE_UINT64, atomic_fetch_add(&o->seq, 1) + 1}};
    region_rec(true, R_SEM_POST, a, 2);
    rc = REAL(sem_post)(sem);
    e = errno;
    a[1] = (pattr){A_SEM_OP, OTF2_TYPE_UINT8, rc == 0 ? SEM_V : SEM_NONE};
    region_rec(false, R_SEM_POST, a, 2);
    errno = e;
    return rc;
}

/* A P: sem_trywait first, so that one that passes at once (P_p) is told
 * from one that waits (P_w at the Enter, P_e at the Leave); `wait` 0:
 * sem_trywait itself, 1 sem_wait, 2 sem_timedwait */
static int sem_p(int r, sem_t *sem, int wait, const struct timespec *abs)
{
    pobj *o = obj_get(sem, O_SEM, true);
    int rc, e, op = SEM_PP;
    pattr a[3] = {{A_OBJECT, OTF2_TYPE_UINT32, o ? o->id : 0},
                  {A_SEM_OP, OTF2_TYPE_UINT8, 0},
                  {A_SEQ, OTF2_TYPE_UINT64, 0}};
    region_rec(true, r, a, o ? 1 : 0);
    rc = REAL(sem_trywait)(sem);
    if (rc != 0 && errno == EAGAIN && wait) {
        op = SEM_PE;
        rc = wait == 1 ? REAL(sem_wait)(sem) : REAL(sem_timedwait)(sem, abs);
    }
    e = errno;
    a[1].v = rc == 0 ? (uint64_t)op : SEM_NONE;
    if (rc == 0 && o)
        a[2].v = atomic_fetch_add(&o->pseq, 1) + 1;
    region_rec(false, r, a, !o ? 0 : rc == 0 ? 3 : 2);
    errno = e;
    return rc;
}

UPT_EXPORT int sem_wait(sem_t *sem)
{
    if (!MINE())
        return REAL(sem_wait)(sem);
    return sem_p(R_SEM_WAIT, sem, 1, NULL);
}

UPT_EXPORT int sem_timedwait(sem_t *sem, const struct timespec *abs)
{
    if (!MINE())
        return REAL(sem_timedwait)(sem, abs);
    return sem_p(R_SEM_TIMEDWAIT, sem, 2, abs);
}

UPT_EXPORT int sem_trywait(sem_t *sem)
{
    if (!MINE())
        return REAL(sem_trywait)(sem);
    return sem_p(R_SEM_TRYWAIT, sem, 0, NULL);
}

UPT_EXPORT int sem_destroy(sem_t *sem)
{
    obj_forget(sem, O_SEM);
    return REAL(sem_destroy)(sem);
}
