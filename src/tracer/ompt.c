/*
 * ompt.c - the tracer's OMPT tool: the OpenMP events of a program run by
 * LLVM's libomp, written as OTF2 records on the thread each callback runs
 * on (docs/tracer-openmp.md, "From callbacks to OTF2 records").
 *
 * Place in the data flow: measurement.  libomp looks up ompt_start_tool in
 * the process when it starts, and finds ours: the tracer is preloaded.  The
 * records go through the seam of upt.h (upt_rec_open/close), so this file
 * depends on tracer.c only through upt.h, and a thread's first record gives
 * it its location.  Without omp-tools.h (clang's headers) it compiles to
 * nothing.
 *
 * What is written follows Score-P's OMPT adapter (names and roles of the
 * regions, locks, tasks), with teams told the way its first OMPT adapter
 * told them and the replay reads them (src/replay/engine_omp.c): each
 * member's Enter of "!$omp parallel" carries OMPT_PARALLEL_REGION_ID, since
 * the tracer defines no communicators for thread teams.
 *
 * A construct is recorded when recording is on at its begin, and its end
 * is recorded when its begin was: each thread keeps a stack of the
 * constructs it entered (frames) and of the locks it holds.  Recording goes
 * on once (MPI_Init) and off once (MPI_Finalize), so an end whose frame is
 * not on top belongs to a construct that began before recording: it is
 * left alone.  A callback that records nothing returns after one look at
 * the thread's state.  Untied tasks that move to another thread are not
 * followed (their frames stay on the thread they began on).
 */
#if __has_include(<omp-tools.h>)
#include <dlfcn.h>
#include <inttypes.h>
#include <omp-tools.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracer/upt.h"

#define NONE UINT32_MAX /* no region (nothing was entered) */
#define DEPTH 32        /* frames per thread */
#define HELD 16         /* locks held at once per thread */
#define BUCKETS 1024    /* of the table of regions and locks */

/* ---- regions ------------------------------------------------------------ */

/* The regions, named and given roles as Score-P's OMPT adapter does
 * (scorep_ompt_regions.inc.c); a taskgroup is TASK_WAIT here, not BARRIER:
 * it waits for its tasks only, and the replay takes every BARRIER for a
 * team barrier. */
enum {
    R_PARALLEL, R_IBARRIER, R_BARRIER, R_IMPBARRIER, R_TASKWAIT, R_TASKGROUP, R_LOOP,
    R_SECTIONS, R_SINGLE, R_SINGLE_SBLOCK, R_WORKSHARE, R_TASKLOOP, R_MASKED, R_CRITICAL,
    R_CRITICAL_SBLOCK, R_ORDERED, R_ORDERED_SBLOCK, R_TASK, R_TASK_UNTIED, R_CREATE_TASK,
    R_SET_LOCK, R_UNSET_LOCK, R_TEST_LOCK, R_SET_NEST_LOCK, R_UNSET_NEST_LOCK, R_TEST_NEST_LOCK,
    R_KINDS,
    TAG_LOCK = R_KINDS /* the table's key for a lock */
};

static const struct {
    const char *name;
    OTF2_RegionRole role;
} kinds[R_KINDS] = {
    [R_PARALLEL] = {"!$omp parallel", OTF2_REGION_ROLE_PARALLEL},
    [R_IBARRIER] = {"!$omp implicit barrier", OTF2_REGION_ROLE_IMPLICIT_BARRIER},
    [R_BARRIER] = {"!$omp barrier", OTF2_REGION_ROLE_BARRIER},
    [R_IMPBARRIER] = {"!$omp implementation barrier", OTF2_REGION_ROLE_IMPLICIT_BARRIER},
    [R_TASKWAIT] = {"!$omp taskwait", OTF2_REGION_ROLE_TASK_WAIT},
    [R_TASKGROUP] = {"!$omp taskgroup", OTF2_REGION_ROLE_TASK_WAIT},
    [R_LOOP] = {"!$omp for/do", OTF2_REGION_ROLE_LOOP},
    [R_SECTIONS] = {"!$omp sections", OTF2_REGION_ROLE_SECTIONS},
    [R_SINGLE] = {"!$omp single", OTF2_REGION_ROLE_SINGLE},
    [R_SINGLE_SBLOCK] = {"!$omp single sblock", OTF2_REGION_ROLE_SINGLE_SBLOCK},
    [R_WORKSHARE] = {"!$omp workshare", OTF2_REGION_ROLE_WORKSHARE},
    [R_TASKLOOP] = {"!$omp taskloop", OTF2_REGION_ROLE_LOOP},
    [R_MASKED] = {"!$omp masked", OTF2_REGION_ROLE_MASTER},
    [R_CRITICAL] = {"!$omp critical", OTF2_REGION_ROLE_CRITICAL},
    [R_CRITICAL_SBLOCK] = {"!$omp critical sblock", OTF2_REGION_ROLE_CRITICAL_SBLOCK},
    [R_ORDERED] = {"!$omp ordered", OTF2_REGION_ROLE_ORDERED},
    [R_ORDERED_SBLOCK] = {"!$omp ordered sblock", OTF2_REGION_ROLE_ORDERED_SBLOCK},
    [R_TASK] = {"!$omp task", OTF2_REGION_ROLE_TASK},
    [R_TASK_UNTIED] = {"!$omp task untied", OTF2_REGION_ROLE_TASK_UNTIED},
    [R_CREATE_TASK] = {"!$omp create task", OTF2_REGION_ROLE_TASK_CREATE},
    [R_SET_LOCK] = {"omp_set_lock", OTF2_REGION_ROLE_WRAPPER},
    [R_UNSET_LOCK] = {"omp_unset_lock", OTF2_REGION_ROLE_WRAPPER},
    [R_TEST_LOCK] = {"omp_test_lock", OTF2_REGION_ROLE_WRAPPER},
    [R_SET_NEST_LOCK] = {"omp_set_nest_lock", OTF2_REGION_ROLE_WRAPPER},
    [R_UNSET_NEST_LOCK] = {"omp_unset_nest_lock", OTF2_REGION_ROLE_WRAPPER},
    [R_TEST_NEST_LOCK] = {"omp_test_nest_lock", OTF2_REGION_ROLE_WRAPPER},
};

/* The table of regions, keyed by (kind, codeptr_ra), and of locks, keyed
 * by (TAG_LOCK, wait_id).  Nodes are added under `table_mu` and never
 * changed or removed but for a lock's count, so a lookup takes no lock: a
 * bucket's head is published with a release store. */
typedef struct node {
    struct node *next;
    uintptr_t key;
    uint32_t tag;
    uint32_t val;            /* region id, or lock id */
    _Atomic uint32_t order;  /* a lock: its recorded acquisitions */
} node;

static node *_Atomic table[BUCKETS];
static pthread_mutex_t table_mu = PTHREAD_MUTEX_INITIALIZER;
static uint32_t nlocks; /* lock ids given (under table_mu) */

static _Atomic(node *) *bucket(uint32_t tag, uintptr_t key)
{
    uintptr_t h = (key >> 4 ^ key >> 17) * 0x9e3779b1u + tag;
    return &table[h % BUCKETS];
}

static node *find(uint32_t tag, uintptr_t key)
{
    node *n = atomic_load_explicit(bucket(tag, key), memory_order_acquire);
    while (n && (n->key != key || n->tag != tag))
        n = n->next;
    return n;
}

/* A new node (under table_mu; NULL: no memory) */
static node *add(uint32_t tag, uintptr_t key, uint32_t val)
{
    node *n = calloc(1, sizeof *n);
    if (!n)
        return NULL;
    n->key = key, n->tag = tag, n->val = val;
    n->next = atomic_load_explicit(bucket(tag, key), memory_order_relaxed);
    atomic_store_explicit(bucket(tag, key), n, memory_order_release);
    return n;
}

/* Region kind k at return address ra, as "NAME @module+0xOFFSET" (the
 * offset is the same in every process, unlike the address; no line: the
 * tracer's symbol lookup serves its recording thread alone), in the
 * module's file.  Defined once, inside "UNPERTURB tracer" (a definition
 * writes the side file), under table_mu. */
static uint32_t region_new(unsigned k, const void *ra)
{
    char name[512];
    const char *file = NULL;
    Dl_info dl;
    uint32_t id;
    if (ra && dladdr(ra, &dl) && dl.dli_fname && dl.dli_fname[0]) {
        const char *base = strrchr(dl.dli_fname, '/');
        snprintf(name, sizeof name, "%s @%s+0x%" PRIxPTR, kinds[k].name,
                 base ? base + 1 : dl.dli_fname, (uintptr_t)ra - (uintptr_t)dl.dli_fbase);
        file = dl.dli_fname;
    } else if (ra) {
        snprintf(name, sizeof name, "%s @%p", kinds[k].name, ra);
    } else {
        snprintf(name, sizeof name, "%s", kinds[k].name);
    }
    upt_overhead_begin();
    id = upt_region_define_as(name, file, 0, kinds[k].role, OTF2_PARADIGM_OPENMP);
    if (id != NONE && !add(k, (uintptr_t)ra, id))
        id = NONE;
    upt_overhead_end();
    return id;
}

/* The region of kind k at ra (NONE: not defined; the tracer is closed, or
 * out of memory) */
static uint32_t region(unsigned k, const void *ra)
{
    node *n = find(k, (uintptr_t)ra);
    uint32_t id;
    if (n)
        return n->val;
    pthread_mutex_lock(&table_mu);
    n = find(k, (uintptr_t)ra);
    id = n ? n->val : region_new(k, ra);
    pthread_mutex_unlock(&table_mu);
    return id;
}

/* The lock of wait_id, numbered in this process from 1 at its first
 * recorded acquisition (NULL: out of memory) */
static node *lock_node(ompt_wait_id_t wait_id)
{
    node *n = find(TAG_LOCK, (uintptr_t)wait_id);
    if (n)
        return n;
    pthread_mutex_lock(&table_mu);
    if (!(n = find(TAG_LOCK, (uintptr_t)wait_id)) &&
        (n = add(TAG_LOCK, (uintptr_t)wait_id, nlocks + 1)) != NULL)
        nlocks++;
    pthread_mutex_unlock(&table_mu);
    return n;
}

/* ---- teams --------------------------------------------------------------- */

/* A recorded parallel region: made by its master at parallel_begin, kept
 * until it and every member's implicit task ended.  A worker learns of
 * its implicit barrier's end and of its implicit task's end only at the
 * next fork (libomp reports them late; docs/tracer-openmp.md): its Leave
 * records take the master's times then, as Score-P's do. */
typedef struct team {
    uint64_t id;               /* OMPT_PARALLEL_REGION_ID: from 1 in this process */
    uint32_t region;           /* "!$omp parallel @..." */
    _Atomic uint64_t t_bar;    /* the master's end of the implicit barrier (0: not yet) */
    _Atomic uint64_t t_end;    /* the master's end of its implicit task (0: not yet) */
    _Atomic int refs;          /* parallel_begin's and each member's */
    struct team *next;         /* the free list */
} team;

static pthread_mutex_t teams_mu = PTHREAD_MUTEX_INITIALIZER;
static team *free_teams;
static uint64_t nteams; /* ids given (under teams_mu) */

/* A team for a new parallel region of `region` (NULL: out of memory); the
 * first defines the attribute, recording being on */
static team *team_new(uint32_t region)
{
    team *tm;
    pthread_mutex_lock(&teams_mu);
    if (!nteams) {
        upt_attr_define(UPT_ATTR_OMPT_, OTF2_TYPE_UINT64, "OMPT_PARALLEL_REGION_ID",
                        "OMPT parallel ID");
        upt_attr_define(UPT_ATTR_OMPT_ + 1, OTF2_TYPE_UINT32, "unperturb::team_index",
                        "the thread's number in its team (0: the master, whose Enter is the fork)");
        upt_attr_define(UPT_ATTR_OMPT_ + 2, OTF2_TYPE_UINT32, "unperturb::late_records",
                        "records the thread wrote after the fork with earlier times (the "
                        "previous region's ends, which libomp reports at the next fork)");
    }
    if ((tm = free_teams) != NULL)
        free_teams = tm->next;
    else
        tm = malloc(sizeof *tm);
    if (tm) {
        tm->id = ++nteams;
        tm->region = region;
        atomic_init(&tm->t_bar, 0);
        atomic_init(&tm->t_end, 0);
        atomic_init(&tm->refs, 1);
    }
    pthread_mutex_unlock(&teams_mu);
    return tm;
}

static void team_put(team *tm)
{
    if (atomic_fetch_sub(&tm->refs, 1) != 1)
        return;
    pthread_mutex_lock(&teams_mu);
    tm->next = free_teams;
    free_teams = tm;
    pthread_mutex_unlock(&teams_mu);
}

/* ---- this thread ---------------------------------------------------------- */

enum { F_IMPLICIT = 1, F_SYNC, F_WORK, F_SINGLE, F_MASKED, F_TASK };

/* An open construct: the region(s) it entered */
typedef struct frame {
    uint32_t region, inner; /* inner: a single's sblock (else NONE) */
    uint8_t kind;           /* F_* */
    bool master;            /* F_IMPLICIT: index 0 of its team */
    bool join;              /* F_SYNC: an implicit barrier (may end a parallel region) */
    team *tm;               /* F_IMPLICIT */
} frame;

/* A lock held: its id and acquisition; for critical and ordered
 * (construct) the regions open around it */
typedef struct held {
    ompt_wait_id_t wait_id;
    uint32_t lock, order;
    uint32_t outer, inner;
    bool construct;
} held;

static _Thread_local struct thr {
    uint32_t depth, over;  /* frames; begins not kept beyond DEPTH */
    frame f[DEPTH];
    uint32_t nheld;
    held h[HELD];
    /* between mutex_acquire and mutex_acquired (nothing else happens on
     * the thread meanwhile): when (0: not recorded), the region of the
     * call or construct, and a construct's sblock */
    uint64_t acq_t;
    uint32_t acq_region, acq_inner;
    uint64_t last; /* the time of this file's latest record on the thread */
    uint32_t late; /* records written late (late()) since its last team's Enter */
    bool hooked;   /* close_open registered for its location */
} th __attribute__((tls_model("initial-exec")));

/* A new frame of `kind`, nothing entered yet (NULL: too deep; counted,
 * so that its end is skipped) */
static frame *push(unsigned kind)
{
    frame *fr;
    if (th.depth == DEPTH) {
        th.over++;
        return NULL;
    }
    fr = &th.f[th.depth++];
    *fr = (frame){NONE, NONE, (uint8_t)kind, false, false, NULL};
    return fr;
}

/* The frame an end of `kind` closes, taken off (NULL: none; its begin was
 * not recorded) */
static frame *pop(unsigned kind)
{
    if (th.over) {
        th.over--;
        return NULL;
    }
    if (!th.depth || th.f[th.depth - 1].kind != kind)
        return NULL;
    return &th.f[--th.depth];
}

/* The innermost implicit task among the thread's first i frames (NULL:
 * none) */
static frame *implicit_below(uint32_t i)
{
    while (i-- > 0)
        if (th.f[i].kind == F_IMPLICIT)
            return &th.f[i];
    return NULL;
}

/* ---- records ---------------------------------------------------------------- */

static void rec_enter(uint32_t region, uint64_t t)
{
    OTF2_EvtWriter *w;
    if (region != NONE && (w = upt_rec_open()) != NULL) {
        upt_rec_close(OTF2_EvtWriter_Enter(w, NULL, t, region));
        th.last = t;
    }
}

static void rec_leave(uint32_t region, uint64_t t)
{
    OTF2_EvtWriter *w;
    if (region != NONE && (w = upt_rec_open()) != NULL) {
        upt_rec_close(OTF2_EvtWriter_Leave(w, NULL, t, region));
        th.last = t;
    }
}

/* A worker's end that libomp reports late: at the master's time `master`
 * (0: not known), never before the thread's latest record */
static uint64_t late(uint64_t master, uint64_t now)
{
    th.late++; /* written after the next fork: rec_enter_team says how many */
    return master && master >= th.last ? master : now;
}

/* The thread's location closes with constructs still open: a worker's
 * last implicit barrier and implicit task, whose ends libomp reports only
 * at a next fork that never comes.  Their Leave records, innermost first,
 * at the master's times where known, never before the thread's last
 * record.  Called once on the closing thread (upt_rec_atclose), recording
 * off; the owner is then idle inside libomp, waiting for work. */
static void close_open(OTF2_EvtWriter *w, void *arg)
{
    struct thr *t = arg;
    uint32_t i = t->depth, k;
    while (i-- > 0) {
        const frame *fr = &t->f[i];
        const team *tm = NULL;
        uint64_t at = 0;
        if (fr->kind == F_IMPLICIT) {
            tm = fr->tm, at = tm ? atomic_load(&tm->t_end) : 0;
        } else if (fr->kind == F_SYNC && fr->join) {
            for (k = i; k-- > 0 && t->f[k].kind != F_IMPLICIT;)
                ;
            tm = k < i ? t->f[k].tm : NULL;
            at = tm ? atomic_load(&tm->t_bar) : 0;
        }
        if (at > t->last)
            t->last = at;
        if (fr->inner != NONE)
            OTF2_EvtWriter_Leave(w, NULL, t->last, fr->inner);
        if (fr->region != NONE)
            OTF2_EvtWriter_Leave(w, NULL, t->last, fr->region);
    }
    t->depth = 0;
}

/* Enter the parallel region of team tm, with its id and the thread's
 * number in the team (the replay's workers follow the master's Enter:
 * docs/models.md, "OpenMP") */
static void rec_enter_team(const team *tm, unsigned index, uint64_t t)
{
    OTF2_EvtWriter *w = upt_rec_open();
    OTF2_AttributeList *a;
    if (!w)
        return;
    a = upt_rec_attrs();
    if (a && (OTF2_AttributeList_AddUint64(a, UPT_ATTR_OMPT_, tm->id) != OTF2_SUCCESS ||
              OTF2_AttributeList_AddUint32(a, UPT_ATTR_OMPT_ + 1, index) != OTF2_SUCCESS ||
              OTF2_AttributeList_AddUint32(a, UPT_ATTR_OMPT_ + 2, th.late) != OTF2_SUCCESS)) {
        OTF2_AttributeList_RemoveAllAttributes(a); /* (not half a list on the next record) */
        a = NULL;
    }
    upt_rec_close(OTF2_EvtWriter_Enter(w, a, t, tm->region));
    th.last = t;
    th.late = 0;
    if (!th.hooked) /* (its location exists now) */
        th.hooked = true, upt_rec_atclose(close_open, &th);
}

static void rec_lock(bool acquire, uint32_t lock, uint32_t order)
{
    OTF2_EvtWriter *w = upt_rec_open();
    uint64_t t = upt_now();
    if (!w)
        return;
    upt_rec_close(acquire ? OTF2_EvtWriter_ThreadAcquireLock(w, NULL, t, OTF2_PARADIGM_OPENMP,
                                                             lock, order)
                          : OTF2_EvtWriter_ThreadReleaseLock(w, NULL, t, OTF2_PARADIGM_OPENMP,
                                                             lock, order));
    th.last = t;
}

/* Tasks have no team communicator here: a task is (undefined team, the
 * process's rank, the process's n-th task), unique in the run, which is
 * all the replay keys on; generation 0 is a thread's implicit task. */
enum { T_CREATE, T_SWITCH, T_COMPLETE };

static void rec_task(unsigned what, uint32_t gen, uint64_t t)
{
    OTF2_EvtWriter *w = upt_rec_open();
    uint32_t me = (uint32_t)upt_rank;
    if (!w)
        return;
    th.last = t;
    upt_rec_close(what == T_CREATE ? OTF2_EvtWriter_ThreadTaskCreate(w, NULL, t, OTF2_UNDEFINED_COMM,
                                                                      me, gen)
                  : what == T_SWITCH ? OTF2_EvtWriter_ThreadTaskSwitch(w, NULL, t, OTF2_UNDEFINED_COMM,
                                                                        me, gen)
                  : OTF2_EvtWriter_ThreadTaskComplete(w, NULL, t, OTF2_UNDEFINED_COMM, me, gen));
}

/* gcc's code never ends a single it executes (libomp's GOMP_single_start
 * reports the begin only): one still open when the thread meets a barrier,
 * another worksharing construct or its implicit task's end is closed there,
 * where gcc's code left it */
static void close_single(void)
{
    frame *fr;
    if (th.over || !th.depth || th.f[th.depth - 1].kind != F_SINGLE)
        return;
    fr = &th.f[--th.depth];
    rec_leave(fr->inner, upt_now());
    rec_leave(fr->region, upt_now());
}

/* ---- parallel regions and implicit tasks ------------------------------------ */

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frm, ompt_data_t *par,
                              unsigned requested, int flags, const void *ra)
{
    uint32_t r;
    (void)task, (void)frm, (void)requested, (void)flags;
    if (!upt_recording() || (r = region(R_PARALLEL, ra)) == NONE)
        return;
    par->ptr = team_new(r);
}

static void on_parallel_end(ompt_data_t *par, ompt_data_t *task, int flags, const void *ra)
{
    team *tm = par->ptr;
    (void)task, (void)flags, (void)ra;
    if (!tm)
        return;
    par->ptr = NULL;
    team_put(tm);
}

static void on_implicit_task(ompt_scope_endpoint_t ep, ompt_data_t *par, ompt_data_t *task,
                             unsigned n, unsigned index, int flags)
{
    team *tm;
    frame *fr;
    uint64_t t;
    (void)task, (void)n;
    if (flags & ompt_task_initial)
        return; /* the program's own, around everything */
    if (ep == ompt_scope_begin) {
        if (!(tm = par->ptr) || !upt_recording() || !(fr = push(F_IMPLICIT)))
            return;
        atomic_fetch_add(&tm->refs, 1);
        fr->region = tm->region, fr->master = index == 0, fr->tm = tm;
        rec_enter_team(tm, index, upt_now());
        return;
    }
    close_single();
    if (!(fr = pop(F_IMPLICIT)))
        return;
    tm = fr->tm;
    t = upt_now();
    if (fr->master)
        atomic_store(&tm->t_end, t);
    else
        t = late(atomic_load(&tm->t_end), t);
    rec_leave(fr->region, t);
    team_put(tm);
}

/* ---- barriers, taskwait, taskgroup ------------------------------------------ */

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t ep, ompt_data_t *par,
                           ompt_data_t *task, const void *ra)
{
    unsigned k;
    bool implicit = kind == ompt_sync_region_barrier_implicit ||
                    kind == ompt_sync_region_barrier_implicit_workshare ||
                    kind == ompt_sync_region_barrier_implicit_parallel;
    frame *fr, *it;
    uint64_t t;
    (void)task;
    if (implicit)
        k = R_IBARRIER;
    else if (kind == ompt_sync_region_barrier || kind == ompt_sync_region_barrier_explicit)
        k = R_BARRIER;
    else if (kind == ompt_sync_region_barrier_implementation)
        k = R_IMPBARRIER;
    else if (kind == ompt_sync_region_taskwait)
        k = R_TASKWAIT;
    else if (kind == ompt_sync_region_taskgroup)
        k = R_TASKGROUP;
    else
        return; /* reduction (libomp 14 reports none), teams */
    if (ep == ompt_scope_begin) {
        if (k != R_TASKWAIT && k != R_TASKGROUP)
            close_single();
        if (!upt_recording() || !(fr = push(F_SYNC)))
            return;
        fr->region = region(k, ra);
        fr->join = implicit;
        rec_enter(fr->region, upt_now());
        return;
    }
    if (!(fr = pop(F_SYNC)))
        return;
    t = upt_now();
    /* the implicit barrier that ends a parallel region ends without its
     * team (parallel_data NULL): the master's end is the team's */
    if (fr->join && !par && (it = implicit_below(th.depth)) != NULL) {
        if (it->master)
            atomic_store(&it->tm->t_bar, t);
        else
            t = late(atomic_load(&it->tm->t_bar), t);
    }
    rec_leave(fr->region, t);
}

/* ---- worksharing and masked -------------------------------------------------- */

static void on_work(ompt_work_t wk, ompt_scope_endpoint_t ep, ompt_data_t *par, ompt_data_t *task,
                    uint64_t count, const void *ra)
{
    frame *fr;
    unsigned k;
    (void)par, (void)task, (void)count;
    switch (wk) {
    case ompt_work_loop: k = R_LOOP; break;
    case ompt_work_sections: k = R_SECTIONS; break;
    case ompt_work_single_executor:
    case ompt_work_single_other: k = R_SINGLE; break;
    case ompt_work_workshare: k = R_WORKSHARE; break;
    case ompt_work_taskloop: k = R_TASKLOOP; break;
    default: return; /* distribute (teams), scope */
    }
    if (ep == ompt_scope_begin) {
        close_single();
        if (!upt_recording() || !(fr = push(wk == ompt_work_single_executor ? F_SINGLE : F_WORK)))
            return;
        fr->region = region(k, ra);
        if (wk == ompt_work_single_executor)
            fr->inner = region(R_SINGLE_SBLOCK, ra);
        rec_enter(fr->region, upt_now());
        rec_enter(fr->inner, upt_now());
        return;
    }
    if ((fr = pop(wk == ompt_work_single_executor ? F_SINGLE : F_WORK)) != NULL) {
        rec_leave(fr->inner, upt_now());
        rec_leave(fr->region, upt_now());
    }
}

static void on_masked(ompt_scope_endpoint_t ep, ompt_data_t *par, ompt_data_t *task, const void *ra)
{
    frame *fr;
    (void)par, (void)task;
    if (ep == ompt_scope_begin) {
        if (!upt_recording() || !(fr = push(F_MASKED)))
            return;
        fr->region = region(R_MASKED, ra);
        rec_enter(fr->region, upt_now());
    } else if ((fr = pop(F_MASKED)) != NULL) {
        rec_leave(fr->region, upt_now());
    }
}

/* ---- locks, critical, ordered ---------------------------------------------------- */

static held *held_find(ompt_wait_id_t wait_id)
{
    uint32_t i = th.nheld;
    while (i-- > 0)
        if (th.h[i].wait_id == wait_id)
            return &th.h[i];
    return NULL;
}

/* A lock is asked for.  Its region is entered once it is held, at this
 * time: a test of a lock may fail, and libomp 14 reports omp_test_lock as
 * a lock's acquire (kind lock, as Score-P's configure finds), so no
 * Enter may come before the acquisition is sure. */
static void on_mutex_acquire(ompt_mutex_t kind, unsigned hint, unsigned impl,
                             ompt_wait_id_t wait_id, const void *ra)
{
    unsigned k, inner = R_KINDS;
    (void)hint, (void)impl, (void)wait_id;
    th.acq_t = 0;
    switch (kind) {
    case ompt_mutex_lock: k = R_SET_LOCK, ra = NULL; break;
    case ompt_mutex_nest_lock: k = R_SET_NEST_LOCK, ra = NULL; break;
    case ompt_mutex_test_lock: k = R_TEST_LOCK, ra = NULL; break;
    case ompt_mutex_test_nest_lock: k = R_TEST_NEST_LOCK, ra = NULL; break;
    case ompt_mutex_critical: k = R_CRITICAL, inner = R_CRITICAL_SBLOCK; break;
    case ompt_mutex_ordered: k = R_ORDERED, inner = R_ORDERED_SBLOCK; break;
    default: return; /* atomic */
    }
    if (th.nheld == HELD || !upt_recording())
        return;
    /* (defined before the time is taken: a definition writes records) */
    th.acq_region = region(k, ra);
    th.acq_inner = inner < R_KINDS ? region(inner, ra) : NONE;
    th.acq_t = upt_now();
}

/* ... and held: ThreadAcquireLock with the lock's next acquisition number */
static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *ra)
{
    held *h;
    node *n;
    bool construct = kind == ompt_mutex_critical || kind == ompt_mutex_ordered;
    (void)ra;
    if (!th.acq_t || !(n = lock_node(wait_id)))
        return;
    h = &th.h[th.nheld++];
    h->wait_id = wait_id;
    h->lock = n->val;
    h->order = atomic_fetch_add(&n->order, 1) + 1; /* only the holder counts */
    h->construct = construct;
    h->outer = th.acq_region, h->inner = th.acq_inner;
    rec_enter(h->outer, th.acq_t);
    rec_lock(true, h->lock, h->order);
    if (construct) /* it stays open, its sblock inside */
        rec_enter(h->inner, upt_now());
    else
        rec_leave(h->outer, upt_now());
    th.acq_t = 0;
}

static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *ra)
{
    held *h = held_find(wait_id);
    uint32_t r;
    (void)ra;
    if (!h)
        return; /* acquired before recording began */
    if (!h->construct) { /* a lock: omp_unset_lock's region around the release */
        r = region(kind == ompt_mutex_nest_lock ? R_UNSET_NEST_LOCK : R_UNSET_LOCK, NULL);
        rec_enter(r, upt_now());
        rec_lock(false, h->lock, h->order);
        rec_leave(r, upt_now());
    } else {
        rec_leave(h->inner, upt_now());
        rec_lock(false, h->lock, h->order);
        rec_leave(h->outer, upt_now());
    }
    *h = th.h[--th.nheld];
}

/* A nest lock set again, or unset but still held, by its owner: only the
 * call's region.  No lock record: the replay takes every release for the
 * hand-off to the next acquisition, which only the last unset is. */
static void on_nest_lock(ompt_scope_endpoint_t ep, ompt_wait_id_t wait_id, const void *ra)
{
    uint32_t r;
    (void)ra;
    if (ep == ompt_scope_begin) {
        if (th.acq_t) {
            rec_enter(th.acq_region, th.acq_t);
            rec_leave(th.acq_region, upt_now());
        }
        th.acq_t = 0;
    } else if (held_find(wait_id)) {
        r = region(R_UNSET_NEST_LOCK, NULL);
        rec_enter(r, upt_now());
        rec_leave(r, upt_now());
    }
}

/* ---- tasks ------------------------------------------------------------------------ */

/* An explicit task's ompt_data_t: STARTED | region << 32 | generation
 * (0: not recorded; UNDEFERRED: run at once by its creator, no records) */
#define STARTED ((uint64_t)1 << 63)
#define UNDEFERRED ((uint64_t)1 << 62)

static _Atomic uint32_t ntasks; /* generations given in this process */

static void on_task_create(ompt_data_t *parent, const ompt_frame_t *frm, ompt_data_t *task,
                           int flags, int has_deps, const void *ra)
{
    uint32_t r, c, gen;
    (void)parent, (void)frm, (void)has_deps;
    if (!(flags & ompt_task_explicit))
        return;
    if (flags & (ompt_task_undeferred | ompt_task_merged)) {
        task->value = UNDEFERRED;
        return;
    }
    if (!upt_recording() || (r = region(flags & ompt_task_untied ? R_TASK_UNTIED : R_TASK, ra)) == NONE ||
        (c = region(R_CREATE_TASK, ra)) == NONE)
        return;
    gen = atomic_fetch_add(&ntasks, 1) + 1;
    task->value = (uint64_t)r << 32 | gen;
    /* (Score-P gives all three one time; each its own here, so that each
     * record's cost lies in the gap after it, where compensation takes it) */
    rec_enter(c, upt_now());
    rec_task(T_CREATE, gen, upt_now());
    rec_leave(c, upt_now());
}

static void on_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
    uint64_t p = prior ? prior->value : 0, n = next ? next->value : 0;
    frame *fr;
    if (status == ompt_task_early_fulfill || status == ompt_task_late_fulfill)
        return; /* no task runs or stops */
    if (p == UNDEFERRED || n == UNDEFERRED)
        return;
    if ((p & STARTED) && (status == ompt_task_complete || status == ompt_task_detach)) {
        if ((fr = pop(F_TASK)) != NULL)
            rec_leave(fr->region, upt_now());
        rec_task(T_COMPLETE, (uint32_t)p, upt_now());
    }
    if (n && !(n & STARTED)) { /* a new task begins */
        next->value = n | STARTED;
        rec_task(T_SWITCH, (uint32_t)n, upt_now());
        if ((fr = push(F_TASK)) != NULL) {
            fr->region = (uint32_t)(n >> 32);
            rec_enter(fr->region, upt_now());
        }
    } else if (n || (p & STARTED)) { /* a task resumes; or the implicit task, after one */
        rec_task(T_SWITCH, (uint32_t)n, upt_now());
    }
}

/* ---- the tool ------------------------------------------------------------------------ */

static int tool_init(ompt_function_lookup_t lookup, int device, ompt_data_t *data)
{
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    (void)device, (void)data;
    if (!set)
        return 0;
#define R(event, fn) set(event, (ompt_callback_t)(void (*)(void))fn)
    R(ompt_callback_parallel_begin, on_parallel_begin);
    R(ompt_callback_parallel_end, on_parallel_end);
    R(ompt_callback_implicit_task, on_implicit_task);
    R(ompt_callback_sync_region, on_sync_region);
    R(ompt_callback_work, on_work);
    R(ompt_callback_masked, on_masked);
    R(ompt_callback_mutex_acquire, on_mutex_acquire);
    R(ompt_callback_mutex_acquired, on_mutex_acquired);
    R(ompt_callback_mutex_released, on_mutex_released);
    R(ompt_callback_nest_lock, on_nest_lock);
    R(ompt_callback_task_create, on_task_create);
    R(ompt_callback_task_schedule, on_task_schedule);
#undef R
    return 1;
}

/* libomp before 14 calls it unconditionally at its shutdown */
static void tool_fini(ompt_data_t *data)
{
    (void)data;
}

/* (omp-tools.h does not declare it) */
UPT_EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                     const char *runtime_version);

UPT_EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                     const char *runtime_version)
{
    static ompt_start_tool_result_t tool = {tool_init, tool_fini, {0}};
    (void)omp_version, (void)runtime_version;
    return &tool;
}
#endif
