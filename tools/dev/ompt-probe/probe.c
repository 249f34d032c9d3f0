/*
 * probe.c - an OMPT tool that counts the callbacks an OpenMP runtime
 * delivers (issue 36, item 2; docs/tracer-openmp.md).  Not part of the
 * tracer: a measuring instrument for tools/dev/ompt-probe/run.sh.
 *
 * Built as a shared object against clang's omp-tools.h (with gcc,
 * `-idirafter <clang's include dir>`, so that gcc's own headers win), and
 * loaded into a program run by LLVM's libomp (LD_PRELOAD, or
 * OMP_TOOL_LIBRARIES).  ompt_start_tool registers every callback below,
 * and records what ompt_set_callback answered for each (ompt_set_never: the
 * runtime never delivers it; ompt_set_always: it does whenever the event
 * happens; the values between: sometimes).  At the runtime's shutdown
 * (the tool's finalize) it prints, one per line to stderr or to the file
 * OMPT_PROBE_OUT:
 *
 *   set <callback> <answer>
 *   <callback> [<kind>] [<begin|end>] <count>
 *
 * The kinds: sync_region and sync_region_wait and reduction by
 * ompt_sync_region_t (barrier_implicit_parallel, barrier_explicit,
 * taskwait, taskgroup, reduction, ...; "(no_parallel_data)" when the
 * runtime passed none, as at the end of a parallel region's barrier), mutex_* by ompt_mutex_t (lock,
 * critical, ordered, ...), work by ompt_work_t, task_create by its flags
 * (initial, implicit, explicit, ...; undeferred and the like appended),
 * task_schedule by the prior task's status, thread_begin by the thread's
 * type, parallel_begin by who invokes the outlined function (program or
 * runtime), dependences by the dependence types they carry.
 */
#include <omp-tools.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

/* counters: callback x kind x endpoint (0: none, 1: begin, 2: end) */
#define NCB 40
#define NKIND 48
static atomic_ulong cnt[NCB][NKIND][3];
static int set_answer[NCB];
static ompt_set_callback_t set_cb;
static FILE *out;

static const char *const cb_name[NCB] = {
    [ompt_callback_thread_begin] = "thread_begin",
    [ompt_callback_thread_end] = "thread_end",
    [ompt_callback_parallel_begin] = "parallel_begin",
    [ompt_callback_parallel_end] = "parallel_end",
    [ompt_callback_task_create] = "task_create",
    [ompt_callback_task_schedule] = "task_schedule",
    [ompt_callback_implicit_task] = "implicit_task",
    [ompt_callback_sync_region_wait] = "sync_region_wait",
    [ompt_callback_mutex_released] = "mutex_released",
    [ompt_callback_dependences] = "dependences",
    [ompt_callback_task_dependence] = "task_dependence",
    [ompt_callback_work] = "work",
    [ompt_callback_masked] = "masked",
    [ompt_callback_sync_region] = "sync_region",
    [ompt_callback_lock_init] = "lock_init",
    [ompt_callback_lock_destroy] = "lock_destroy",
    [ompt_callback_mutex_acquire] = "mutex_acquire",
    [ompt_callback_mutex_acquired] = "mutex_acquired",
    [ompt_callback_nest_lock] = "nest_lock",
    [ompt_callback_flush] = "flush",
    [ompt_callback_cancel] = "cancel",
    [ompt_callback_reduction] = "reduction",
    [ompt_callback_dispatch] = "dispatch",
};

/* ompt_sync_region_t; 1 and 2 are deprecated names in 5.1 (spelled here
 * as numbers: the header marks the enumerators deprecated) */
static const char *const sync_name[] = {
    "?", "barrier", "barrier_implicit", "barrier_explicit", "barrier_implementation",
    "taskwait", "taskgroup", "reduction", "barrier_implicit_workshare",
    "barrier_implicit_parallel", "barrier_teams",
};
static const char *const mutex_name[] = {
    "?", "lock", "test_lock", "nest_lock", "test_nest_lock", "critical", "atomic", "ordered",
};
static const char *const work_name[] = {
    "?", "loop", "sections", "single_executor", "single_other", "workshare", "distribute",
    "taskloop", "scope",
};
static const char *const status_name[] = {
    "?", "complete", "yield", "cancel", "detach", "early_fulfill", "late_fulfill", "switch",
};
static const char *const thread_name[] = {"?", "initial", "worker", "other", "unknown"};
static const char *const dep_name[] = {
    "?", "in", "out", "inout", "mutexinoutset", "source", "sink", "inoutset",
};
/* task_create: the task's kind, by the low flag bits */
static const char *const task_name[] = {"?", "initial", "implicit", "explicit", "target", "taskwait"};

static unsigned clampk(unsigned k, unsigned n)
{
    return k < n ? k : 0;
}

static void count(unsigned cb, unsigned kind, unsigned ep)
{
    if (cb < NCB && kind < NKIND && ep < 3)
        atomic_fetch_add_explicit(&cnt[cb][kind][ep], 1, memory_order_relaxed);
}

static unsigned ep_of(ompt_scope_endpoint_t e)
{
    return e == ompt_scope_begin ? 1 : e == ompt_scope_end ? 2 : 0;
}

/* task_create's kind: 1..5 by the kind bit; +8 undeferred, +16 final,
 * +32 mergeable/merged (kept apart so that one line says which) */
static unsigned task_kind(int flags)
{
    unsigned k = 0, i;
    for (i = 0; i < 5; i++)
        if (flags & (1 << i)) {
            k = i + 1;
            break;
        }
    if (flags & ompt_task_undeferred)
        k += 8;
    if (flags & ompt_task_final)
        k += 16;
    return k;
}

/* ---- the callbacks ------------------------------------------------------------ */

static void on_thread_begin(ompt_thread_t type, ompt_data_t *d)
{
    (void)d;
    count(ompt_callback_thread_begin, clampk((unsigned)type, 5), 0);
}
static void on_thread_end(ompt_data_t *d)
{
    (void)d;
    count(ompt_callback_thread_end, 0, 0);
}
static void on_parallel_begin(ompt_data_t *et, const ompt_frame_t *f, ompt_data_t *p, unsigned req, int flags,
                              const void *ra)
{
    (void)et, (void)f, (void)p, (void)req, (void)ra;
    count(ompt_callback_parallel_begin, (flags & ompt_parallel_invoker_runtime) ? 2 : 1, 0);
}
static void on_parallel_end(ompt_data_t *p, ompt_data_t *et, int flags, const void *ra)
{
    (void)p, (void)et, (void)ra;
    count(ompt_callback_parallel_end, (flags & ompt_parallel_invoker_runtime) ? 2 : 1, 0);
}
static void on_implicit_task(ompt_scope_endpoint_t ep, ompt_data_t *p, ompt_data_t *t, unsigned n, unsigned idx,
                             int flags)
{
    (void)p, (void)t, (void)n, (void)idx;
    count(ompt_callback_implicit_task, (flags & ompt_task_initial) ? 1 : 2, ep_of(ep));
}
/* sync regions: the kind, +16 when the runtime passes no parallel_data
 * (OpenMP 5.1: the end of the implicit barrier of a parallel region, whose
 * team may be gone already) */
static unsigned sync_kind(ompt_sync_region_t kind, const ompt_data_t *p)
{
    return clampk((unsigned)kind, 11) + (p ? 0 : 16);
}
static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t ep, ompt_data_t *p, ompt_data_t *t,
                           const void *ra)
{
    (void)t, (void)ra;
    count(ompt_callback_sync_region, sync_kind(kind, p), ep_of(ep));
}
static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t ep, ompt_data_t *p,
                                ompt_data_t *t, const void *ra)
{
    (void)t, (void)ra;
    count(ompt_callback_sync_region_wait, sync_kind(kind, p), ep_of(ep));
}
static void on_reduction(ompt_sync_region_t kind, ompt_scope_endpoint_t ep, ompt_data_t *p, ompt_data_t *t,
                         const void *ra)
{
    (void)p, (void)t, (void)ra;
    count(ompt_callback_reduction, clampk((unsigned)kind, 11), ep_of(ep));
}
static void on_mutex_acquire(ompt_mutex_t kind, unsigned hint, unsigned impl, ompt_wait_id_t w, const void *ra)
{
    (void)hint, (void)impl, (void)w, (void)ra;
    count(ompt_callback_mutex_acquire, clampk((unsigned)kind, 8), 0);
}
static void on_lock_init(ompt_mutex_t kind, unsigned hint, unsigned impl, ompt_wait_id_t w, const void *ra)
{
    (void)hint, (void)impl, (void)w, (void)ra;
    count(ompt_callback_lock_init, clampk((unsigned)kind, 8), 0);
}
static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t w, const void *ra)
{
    (void)w, (void)ra;
    count(ompt_callback_mutex_acquired, clampk((unsigned)kind, 8), 0);
}
static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t w, const void *ra)
{
    (void)w, (void)ra;
    count(ompt_callback_mutex_released, clampk((unsigned)kind, 8), 0);
}
static void on_lock_destroy(ompt_mutex_t kind, ompt_wait_id_t w, const void *ra)
{
    (void)w, (void)ra;
    count(ompt_callback_lock_destroy, clampk((unsigned)kind, 8), 0);
}
static void on_nest_lock(ompt_scope_endpoint_t ep, ompt_wait_id_t w, const void *ra)
{
    (void)w, (void)ra;
    count(ompt_callback_nest_lock, 0, ep_of(ep));
}
static void on_work(ompt_work_t ws, ompt_scope_endpoint_t ep, ompt_data_t *p, ompt_data_t *t, uint64_t n,
                    const void *ra)
{
    (void)p, (void)t, (void)n, (void)ra;
    count(ompt_callback_work, clampk((unsigned)ws, 9), ep_of(ep));
}
static void on_masked(ompt_scope_endpoint_t ep, ompt_data_t *p, ompt_data_t *t, const void *ra)
{
    (void)p, (void)t, (void)ra;
    count(ompt_callback_masked, 0, ep_of(ep));
}
static void on_task_create(ompt_data_t *et, const ompt_frame_t *f, ompt_data_t *nt, int flags, int has_deps,
                           const void *ra)
{
    (void)et, (void)f, (void)nt, (void)has_deps, (void)ra;
    count(ompt_callback_task_create, task_kind(flags), 0);
}
static void on_task_schedule(ompt_data_t *prior, ompt_task_status_t st, ompt_data_t *next)
{
    (void)prior, (void)next;
    count(ompt_callback_task_schedule, clampk((unsigned)st, 8), 0);
}
static void on_dependences(ompt_data_t *t, const ompt_dependence_t *deps, int n)
{
    int i;
    (void)t;
    count(ompt_callback_dependences, 0, 0);
    for (i = 0; i < n; i++) /* one more per dependence, by type (kind + 8) */
        count(ompt_callback_dependences, 8 + clampk((unsigned)deps[i].dependence_type, 8), 0);
}
static void on_task_dependence(ompt_data_t *a, ompt_data_t *b)
{
    (void)a, (void)b;
    count(ompt_callback_task_dependence, 0, 0);
}
static void on_flush(ompt_data_t *t, const void *ra)
{
    (void)t, (void)ra;
    count(ompt_callback_flush, 0, 0);
}
static void on_cancel(ompt_data_t *t, int flags, const void *ra)
{
    (void)t, (void)flags, (void)ra;
    count(ompt_callback_cancel, 0, 0);
}
static void on_dispatch(ompt_data_t *p, ompt_data_t *t, ompt_dispatch_t kind, ompt_data_t inst)
{
    (void)p, (void)t, (void)inst;
    count(ompt_callback_dispatch, clampk((unsigned)kind, 4), 0);
}

/* ---- registration and the report ---------------------------------------------- */

static void reg(ompt_callbacks_t which, ompt_callback_t fn)
{
    if ((unsigned)which < NCB)
        set_answer[which] = (int)set_cb(which, fn);
}

static const char *answer_name(int a)
{
    switch (a) {
    case ompt_set_error: return "error";
    case ompt_set_never: return "never";
    case ompt_set_impossible: return "impossible";
    case ompt_set_sometimes: return "sometimes";
    case ompt_set_sometimes_paired: return "sometimes_paired";
    case ompt_set_always: return "always";
    default: return "?";
    }
}

static const char *kind_name(unsigned cb, unsigned k, char *buf, size_t cap)
{
    buf[0] = '\0';
    switch (cb) {
    case ompt_callback_sync_region:
    case ompt_callback_sync_region_wait:
        if (k >= 16 && k < 16 + 11) {
            snprintf(buf, cap, "%s(no_parallel_data)", sync_name[k - 16]);
            return buf;
        }
        return k < 11 ? sync_name[k] : "?";
    case ompt_callback_reduction:
        return k < 11 ? sync_name[k] : "?";
    case ompt_callback_mutex_acquire:
    case ompt_callback_mutex_acquired:
    case ompt_callback_mutex_released:
    case ompt_callback_lock_init:
    case ompt_callback_lock_destroy:
        return k < 8 ? mutex_name[k] : "?";
    case ompt_callback_work:
        return k < 9 ? work_name[k] : "?";
    case ompt_callback_task_schedule:
        return k < 8 ? status_name[k] : "?";
    case ompt_callback_thread_begin:
        return k < 5 ? thread_name[k] : "?";
    case ompt_callback_parallel_begin:
    case ompt_callback_parallel_end:
        return k == 1 ? "invoker_program" : k == 2 ? "invoker_runtime" : "?";
    case ompt_callback_implicit_task:
        return k == 1 ? "initial" : "implicit";
    case ompt_callback_dispatch:
        return k == 1 ? "iteration" : k == 2 ? "section" : "?";
    case ompt_callback_task_create:
        snprintf(buf, cap, "%s%s%s", task_name[k & 7u], (k & 8u) ? "+undeferred" : "",
                 (k & 16u) ? "+final" : "");
        return buf;
    case ompt_callback_dependences:
        if (k == 0)
            return "calls";
        snprintf(buf, cap, "dep_%s", dep_name[(k - 8) & 7u]);
        return buf;
    default:
        return "";
    }
}

static void report(void)
{
    static const char *const ep_name[3] = {"", " begin", " end"};
    char buf[64];
    unsigned cb, k, e;
    FILE *f = out ? out : stderr;
    for (cb = 0; cb < NCB; cb++)
        if (cb_name[cb] && set_answer[cb])
            fprintf(f, "set %s %s\n", cb_name[cb], answer_name(set_answer[cb]));
    for (cb = 0; cb < NCB; cb++)
        for (k = 0; k < NKIND; k++)
            for (e = 0; e < 3; e++) {
                unsigned long n = atomic_load(&cnt[cb][k][e]);
                const char *kn;
                if (!n || !cb_name[cb])
                    continue;
                kn = kind_name(cb, k, buf, sizeof buf);
                fprintf(f, "%s%s%s%s %lu\n", cb_name[cb], *kn ? " " : "", kn, ep_name[e], n);
            }
    fflush(f);
}

static int tool_init(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t *tool_data)
{
    (void)initial_device_num, (void)tool_data;
    set_cb = (ompt_set_callback_t)lookup("ompt_set_callback");
    if (!set_cb)
        return 0;
#define R(cb, fn) reg(cb, (ompt_callback_t)(void (*)(void))fn)
    R(ompt_callback_thread_begin, on_thread_begin);
    R(ompt_callback_thread_end, on_thread_end);
    R(ompt_callback_parallel_begin, on_parallel_begin);
    R(ompt_callback_parallel_end, on_parallel_end);
    R(ompt_callback_implicit_task, on_implicit_task);
    R(ompt_callback_sync_region, on_sync_region);
    R(ompt_callback_sync_region_wait, on_sync_region_wait);
    R(ompt_callback_reduction, on_reduction);
    R(ompt_callback_mutex_acquire, on_mutex_acquire);
    R(ompt_callback_mutex_acquired, on_mutex_acquired);
    R(ompt_callback_mutex_released, on_mutex_released);
    R(ompt_callback_lock_init, on_lock_init);
    R(ompt_callback_lock_destroy, on_lock_destroy);
    R(ompt_callback_nest_lock, on_nest_lock);
    R(ompt_callback_work, on_work);
    R(ompt_callback_masked, on_masked);
    R(ompt_callback_task_create, on_task_create);
    R(ompt_callback_task_schedule, on_task_schedule);
    R(ompt_callback_dependences, on_dependences);
    R(ompt_callback_task_dependence, on_task_dependence);
    R(ompt_callback_flush, on_flush);
    R(ompt_callback_cancel, on_cancel);
    R(ompt_callback_dispatch, on_dispatch);
#undef R
    return 1; /* keep the tool */
}

static void tool_fini(ompt_data_t *tool_data)
{
    (void)tool_data;
    report();
    if (out)
        fclose(out);
    out = NULL;
}

EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version);

EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
    static ompt_start_tool_result_t r = {tool_init, tool_fini, {0}};
    const char *path = getenv("OMPT_PROBE_OUT");
    if (path && *path)
        out = fopen(path, "w");
    fprintf(out ? out : stderr, "runtime %s (OpenMP %u)\n", runtime_version ? runtime_version : "?", omp_version);
    return &r;
}
