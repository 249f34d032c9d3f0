/*
 * tutil.c - shared helpers of the unit tests (see tutil.h).
 */
#include "trace/chunks.h"
#include "tutil.h"
#include "run/simrun.h"
#include "test.h"

#include <dirent.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

up_status t_compensate(const char *in, const char *out, const up_comp_params *p,
                       up_replay_result *res, uint64_t **removed)
{
    return t_compensate_ops(in, out, p, up_comp_ops(), NULL, res, removed);
}

up_status t_compensate_ops(const char *in, const char *out, const up_comp_params *p,
                           const up_model_ops *ops, const up_replay_observer *obs,
                           up_replay_result *res, uint64_t **removed)
{
    up_err err = {0};
    up_trace *t = NULL;
    up_writer *w = NULL;
    up_comp *m = NULL;
    up_status st;
    size_t i;

    memset(res, 0, sizeof *res);
    if (removed)
        *removed = NULL;
    if ((st = up_trace_open(in, &t, &err)) != UP_OK)
        goto out;
    if ((st = up_writer_open(out, t, &w, &err)) != UP_OK)
        goto out;
    if ((st = up_comp_new(p, t, &m, &err)) != UP_OK)
        goto out;
    if ((st = up_replay_run(t, w, ops, m, obs, res, &err)) != UP_OK)
        goto out;
    st = up_writer_close(w, t, res->t_min_a, res->t_max_a, "unperturb test", NULL, NULL, &err);
    w = NULL;
    if (st == UP_OK && removed) {
        *removed = calloc(res->nlocs ? res->nlocs : 1, sizeof **removed);
        for (i = 0; i < res->nlocs; i++)
            (*removed)[i] = up_comp_removed(m, i);
    }
out:
    if (st != UP_OK)
        fprintf(stderr, "  t_compensate(%s): %s\n", in, err.msg);
    up_writer_abort(w);
    up_comp_free(m);
    up_trace_close(t);
    return st;
}

/* Machine of the hand-worked tests: every rank on its own node, one hop,
 * L = 1000, G = 1 ns/byte, o_s = 100, o_r = 200, eager 4096. */
up_machine t_hand_machine(void)
{
    up_machine m;
    up_machine_init(&m);
    m.cpu_ratio = 1;
    m.compute = UP_COMPUTE_WALL;
    m.progress = UP_PROGRESS_MPI;
    m.latency_ns = 1000;
    m.ns_per_byte = 1;
    m.per_hop_ns = 0;
    m.node_latency_ns = 10;
    m.node_ns_per_byte = 0;
    m.send_overhead_ns = 100;
    m.recv_overhead_ns = 200;
    m.eager_limit = 4096;
    m.contention = false;
    m.topology = UP_TOPO_FULL;
    m.ranks_per_node = 1;
    m.placement = UP_PLACE_BLOCK;
    return m;
}

up_comp_params t_params(double o_ns, up_mode mode, up_collective coll)
{
    up_comp_params p;
    unsigned k;
    up_comp_params_init(&p);
    for (k = 0; k < UP_RK_COUNT; k++)
        p.overhead_ns[k] = o_ns;
    p.overhead_set = true;
    p.mode = mode;
    p.collective = coll;
    return p;
}

double t_window_s(const up_replay_result *r, int which)
{
    return which == 0 ? up_ticks_s(r, r->end_m - r->start_m)
                      : up_ticks_s(r, r->end_a > r->start_a ? r->end_a - r->start_a : 0);
}

uint64_t t_ev(const tr_trace *t, uint64_t id, size_t k)
{
    const tr_loc *l = tr_loc_id(t, id);
    return l && k < l->n ? l->ev[k].t : UINT64_MAX;
}

void t_check_times(const char *file, int line, const tr_trace *t, uint64_t id,
                   const uint64_t *want, size_t n)
{
    const tr_loc *l = tr_loc_id(t, id);
    size_t i;
    if (!l) {
        t_fail(file, line, "no location %llu", (unsigned long long)id);
        return;
    }
    if (l->n != n)
        t_fail(file, line, "location %llu: %zu events, want %zu", (unsigned long long)id, l->n, n);
    for (i = 0; i < n && i < l->n; i++)
        if (l->ev[i].t != want[i])
            t_fail(file, line, "location %llu event %zu: got %llu, want %llu",
                   (unsigned long long)id, i, (unsigned long long)l->ev[i].t,
                   (unsigned long long)want[i]);
}

int t_write_named_regions(const char *dir, const char *const *names, unsigned n,
                          uint64_t leave_dt, uint64_t length, const char *node,
                          const char *thread)
{
    OTF2_Archive *ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024,
                                         4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
                                         OTF2_COMPRESSION_NONE);
    OTF2_EvtWriter *w;
    OTF2_GlobalDefWriter *gw;
    OTF2_StringRef s = (OTF2_StringRef)n;
    unsigned r;
    if (!ar)
        return -1;
    OTF2_Archive_SetFlushCallbacks(ar, &up_otf2_flush_callbacks, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(ar);
    OTF2_Archive_OpenEvtFiles(ar);
    w = OTF2_Archive_GetEvtWriter(ar, 0);
    for (r = 0; r < n; r++) {
        OTF2_EvtWriter_Enter(w, NULL, 100 + 10 * r, r);
        OTF2_EvtWriter_Leave(w, NULL, 100 + leave_dt + 10 * r, r);
    }
    OTF2_Archive_CloseEvtWriter(ar, w);
    OTF2_Archive_CloseEvtFiles(ar);
    OTF2_Archive_OpenDefFiles(ar);
    OTF2_Archive_CloseDefWriter(ar, OTF2_Archive_GetDefWriter(ar, 0));
    OTF2_Archive_CloseDefFiles(ar);
    gw = OTF2_Archive_GetGlobalDefWriter(ar);
    OTF2_GlobalDefWriter_WriteClockProperties(gw, 1000000000, 100, length, OTF2_UNDEFINED_TIMESTAMP);
    for (r = 0; r < n; r++)
        OTF2_GlobalDefWriter_WriteString(gw, r, names[r]);
    OTF2_GlobalDefWriter_WriteString(gw, s, node);
    OTF2_GlobalDefWriter_WriteString(gw, s + 1, thread);
    for (r = 0; r < n; r++)
        OTF2_GlobalDefWriter_WriteRegion(gw, r, r, r, r, OTF2_REGION_ROLE_FUNCTION,
                                         OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, r, 0, 0);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, s, s, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteLocationGroup(gw, 0, s, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocation(gw, 0, s + 1, OTF2_LOCATION_TYPE_CPU_THREAD, 2 * n, 0);
    return OTF2_Archive_Close(ar) == OTF2_SUCCESS ? 0 : -1;
}

/* t_simulate_wall, with ranks_per_node ranks on a node (0: the default) */
static up_status simulate_wall(const char *in, const char *out, unsigned ranks_per_node,
                               bool contention, up_sim_summary *s, up_err *err)
{
    up_machine mach;
    up_simrun_opts opts;
    up_machine_init(&mach);
    mach.contention = contention;
    mach.cpu_ratio = 1;
    mach.compute = UP_COMPUTE_WALL;
    mach.progress = UP_PROGRESS_MPI;
    if (ranks_per_node)
        mach.ranks_per_node = ranks_per_node;
    memset(&opts, 0, sizeof opts);
    opts.input = in;
    opts.machine = &mach;
    opts.out_dir = out;
    opts.quiet = true;
    return up_simrun_one(&opts, s, err);
}

up_status t_simulate_wall(const char *in, const char *out, up_sim_summary *s, up_err *err)
{
    return simulate_wall(in, out, 0, false, s, err);
}

/* ---- the replay's schedule (t_check_schedules) ---------------------------- */

static const struct {
    size_t slice;
    bool reverse;
} schedules[] = {{0, true}, {1, false}, {1, true}, {7, false}, {100000, true}};

/* a and b hold the same records; else one failure naming the first difference */
static void same_output(const char *what, const tr_trace *a, const tr_trace *b, size_t s)
{
    size_t l, i;
    if (a->nlocs != b->nlocs) {
        t_fail(__FILE__, __LINE__, "%s, schedule %zu: %zu locations, not %zu", what, s, b->nlocs,
               a->nlocs);
        return;
    }
    for (l = 0; l < a->nlocs; l++) {
        const tr_loc *x = &a->locs[l], *y = &b->locs[l];
        if (x->n != y->n) {
            t_fail(__FILE__, __LINE__, "%s, schedule %zu: location %llu has %zu records, not %zu",
                   what, s, (unsigned long long)x->id, y->n, x->n);
            return;
        }
        for (i = 0; i < x->n; i++)
            if (x->ev[i].kind != y->ev[i].kind || x->ev[i].t != y->ev[i].t ||
                x->ev[i].aux != y->ev[i].aux) {
                t_fail(__FILE__, __LINE__,
                       "%s, schedule %zu: location %llu, record %zu: time %llu, not %llu", what, s,
                       (unsigned long long)x->id, i, (unsigned long long)y->ev[i].t,
                       (unsigned long long)x->ev[i].t);
                return;
            }
    }
}

/* what t_check_schedules compares besides the records */
typedef struct sched_counts {
    uint64_t end_a, rematched, retargeted, bodies_moved;
    uint64_t repairs[UP_REPAIR_COUNT], model_repairs[UP_MODEL_REPAIRS_MAX];
} sched_counts;

/* Compensates `in` with *p into `out`, or with p NULL simulates it on the
 * built-in machine with one rank per node, with contention on its links if
 * `contention`. */
static int sched_run(const char *in, const char *out, const up_comp_params *p, bool contention,
                     sched_counts *c)
{
    up_replay_result res, *r = &res;
    up_sim_summary sum;
    memset(c, 0, sizeof *c);
    if (p) {
        if (t_compensate(in, out, p, &res, NULL) != UP_OK)
            return -1;
    } else {
        up_err err = {0};
        if (simulate_wall(in, out, 1, contention, &sum, &err) != UP_OK)
            return -1;
        r = &sum.res;
    }
    c->end_a = r->end_a, c->rematched = r->rematched, c->retargeted = r->retargeted;
    c->bodies_moved = r->bodies_moved;
    memcpy(c->repairs, r->repairs, sizeof c->repairs);
    memcpy(c->model_repairs, r->model_repairs, sizeof c->model_repairs);
    if (p)
        up_replay_result_free(&res);
    else
        up_sim_summary_free(&sum);
    return 0;
}

static void check_schedules(const char *what, const char *in, const up_comp_params *p,
                            bool contention)
{
    char name[256], dir[4096];
    sched_counts base, c;
    tr_trace tb, t;
    size_t s;
    up_replay_set_schedule(0, false);
    snprintf(name, sizeof name, "%.200s-base", what);
    snprintf(dir, sizeof dir, "%s", t_dir(name));
    if (sched_run(in, dir, p, contention, &base) != 0 || tr_load(dir, &tb) != 0) {
        t_fail(__FILE__, __LINE__, "%s: the replay failed", what);
        return;
    }
    for (s = 0; s < sizeof schedules / sizeof *schedules; s++) {
        snprintf(name, sizeof name, "%.200s-sched-%zu", what, s);
        snprintf(dir, sizeof dir, "%s", t_dir(name));
        up_replay_set_schedule(schedules[s].slice, schedules[s].reverse);
        if (sched_run(in, dir, p, contention, &c) != 0) {
            t_fail(__FILE__, __LINE__, "%s, schedule %zu: the replay failed", what, s);
            continue;
        }
        if (tr_load(dir, &t) != 0) {
            t_fail(__FILE__, __LINE__, "%s, schedule %zu: cannot load the output", what, s);
            continue;
        }
        same_output(what, &tb, &t, s);
        if (memcmp(&c, &base, sizeof c))
            t_fail(__FILE__, __LINE__, "%s, schedule %zu: counts differ", what, s);
        tr_free(&t);
    }
    up_replay_set_schedule(0, false);
    tr_free(&tb);
}

int t_each_data_trace(void (*fn)(const char *name, const char *dir, void *ctx), void *ctx)
{
    char data[4096];
    DIR *dir;
    struct dirent *de;
    int n = 0;
    snprintf(data, sizeof data, "%s", t_src("tests/data"));
    if (!(dir = opendir(data))) {
        t_fail(__FILE__, __LINE__, "cannot read %s", data);
        return -1;
    }
    while ((de = readdir(dir)) != NULL) {
        char in[8192];
        struct stat sb;
        if (de->d_name[0] == '.')
            continue;
        snprintf(in, sizeof in, "%s/%s", data, de->d_name);
        if (stat(in, &sb) != 0 || !S_ISDIR(sb.st_mode))
            continue; /* README.md */
        fn(de->d_name, in, ctx);
        n++;
    }
    closedir(dir);
    return n;
}

void t_check_schedules(const char *what, const char *in, const up_comp_params *p)
{
    check_schedules(what, in, p, false);
}

void t_check_schedules_contended(const char *what, const char *in)
{
    check_schedules(what, in, NULL, true);
}
