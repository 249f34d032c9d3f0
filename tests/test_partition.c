/*
 * test_partition.c - the seam (issue 33; docs/design.md, "The seam"): a
 * trace replayed by two engine instances that share no state, each holding
 * half of the processes (and, cut across processes, every other location)
 * with its own trace, model and writer, every
 * crossing copied through a byte buffer and delivered late and reordered
 * (three seeds), under the schedules of test_schedule, gives the
 * records and counts of the serial replay.  Each location's records are
 * read back from the archive of the part that holds it, through OTF2's own
 * reader (tread.c), and the other part's archive must hold none of them.
 *
 * Compensated in each mode, and simulated one rank per node without and
 * with contention on the links.  A rule that would cross the seam another
 * way than the crossings built (a thread team over two parts, a task's
 * measured work held by another part) stops the partitioned replay with an
 * error naming it; the test requires that no trace and model meets one,
 * and that every kind of crossing was made.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "tread.h"
#include "run/pipeline.h"
#include "tutil.h"

static const struct {
    size_t slice;
    bool reverse;
} schedules[] = {{0, false}, {0, true}, {1, false}, {1, true}, {7, false}, {100000, true}};

/* Which part holds each location.  By halves: the first half of the
 * processes part 0 (a location without a process, part 0; with one
 * process, by location), as a replay over many processes will cut.
 * Alternating (alt): every other location, so that a process's threads,
 * their teams and its accelerator streams are cut too. */
static uint32_t *owners(const up_defs *d, bool alt)
{
    uint32_t *owner = calloc(d->nlocs ? d->nlocs : 1, sizeof *owner);
    size_t i;
    for (i = 0; owner && i < d->nlocs; i++) {
        uint32_t p = d->locs[i].process;
        if (alt)
            owner[i] = (uint32_t)(i % 2);
        else if (d->nprocs >= 2)
            owner[i] = p != UP_NO_PROCESS && p >= d->nprocs / 2 ? 1u : 0u;
        else
            owner[i] = i >= d->nlocs / 2 ? 1u : 0u;
    }
    return owner;
}

/* The model of a run: compensate with *p, or (p NULL) simulate on *mach */
typedef struct how {
    const up_comp_params *p;
    const up_machine *mach;
    bool alt;   /* owners(): alternating locations */
} how;

static up_status model_new(const how *h, up_trace *t, void **m, up_err *err)
{
    up_comp_params p;
    char source[UP_RUN_SOURCE_MAX];
    up_status st;
    if (h->p)
        return up_comp_new(h->p, t, (up_comp **)m, err);
    if ((st = up_run_params(t, NULL, NULL, &p, source, err)) != UP_OK)
        return st;
    return up_sim_new(h->mach, &p, up_trace_defs(t), (up_sim **)m, err);
}

static void model_free(const how *h, void *m)
{
    if (h->p)
        up_comp_free(m);
    else
        up_sim_free(m);
}

static const up_model_ops *model_ops(const how *h)
{
    return h->p ? up_comp_ops() : up_sim_ops();
}

/* The serial replay of `in` into out */
static int serial_run(const char *in, const char *out, const how *h, up_replay_result *res)
{
    up_err err = {0};
    up_trace *t = NULL;
    up_writer *w = NULL;
    void *m = NULL;
    up_status st;
    memset(res, 0, sizeof *res);
    if ((st = up_trace_open(in, &t, &err)) == UP_OK && (st = up_writer_open(out, t, &w, &err)) == UP_OK &&
        (st = model_new(h, t, &m, &err)) == UP_OK &&
        (st = up_replay_run(t, w, model_ops(h), m, NULL, res, &err)) == UP_OK) {
        st = up_writer_close(w, t, res->t_min_a, res->t_max_a, "unperturb test", NULL, NULL, &err);
        w = NULL;
    }
    if (st != UP_OK)
        fprintf(stderr, "  serial_run(%s): %s\n", in, err.msg);
    up_writer_abort(w);
    if (m)
        model_free(h, m);
    up_trace_close(t);
    return st == UP_OK ? 0 : -1;
}

/* Replays `in` with two parts into out0 and out1.  1: done; 0: a rule
 * crossed the seam outside it (*why); -1: another failure. */
static int part_run(const char *in, const char *out0, const char *out1, const how *h,
                    uint64_t seed, up_replay_result *res, uint32_t **ownerp, char *why,
                    size_t whyn)
{
    up_err err = {0};
    up_trace *t[2] = {NULL, NULL};
    up_writer *w[2] = {NULL, NULL};
    void *m[2] = {NULL, NULL};
    up_replay_part parts[2];
    const char *out[2] = {out0, out1};
    uint32_t *owner = NULL;
    up_status st = UP_OK;
    int k, ret = -1;

    memset(res, 0, sizeof *res);
    for (k = 0; k < 2 && st == UP_OK; k++) {
        if ((st = up_trace_open(in, &t[k], &err)) == UP_OK &&
            (st = up_writer_open(out[k], t[k], &w[k], &err)) == UP_OK)
            st = model_new(h, t[k], &m[k], &err);
        parts[k].in = t[k], parts[k].out = w[k], parts[k].model = m[k];
    }
    if (st == UP_OK && !(owner = owners(up_trace_defs(t[0]), h->alt)))
        st = UP_ENOMEM;
    if (st == UP_OK)
        st = up_replay_run_parts(parts, 2, owner, model_ops(h), NULL, seed, res, &err);
    for (k = 0; k < 2 && st == UP_OK; k++) {
        st = up_writer_close(w[k], t[k], res->t_min_a, res->t_max_a, "unperturb test", NULL, NULL,
                             &err);
        w[k] = NULL;
    }
    if (st == UP_OK)
        ret = 1;
    else if (strstr(err.msg, "crosses the seam outside it")) {
        ret = 0;
        snprintf(why, whyn, "%.*s", (int)(whyn > 1 ? whyn - 1 : 0), err.msg);
    } else
        fprintf(stderr, "  part_run(%s): %s\n", in, err.msg);
    for (k = 0; k < 2; k++) {
        up_writer_abort(w[k]);
        if (m[k])
            model_free(h, m[k]);
        up_trace_close(t[k]);
    }
    if (ret == 1)
        *ownerp = owner;
    else {
        free(owner);
        up_replay_result_free(res);
    }
    return ret;
}

/* The records of each location in its part's archive equal the serial
 * replay's; the other part wrote none of them. */
static bool same_records(const char *what, const tr_trace *base, const tr_trace *pt[2],
                         const uint32_t *owner)
{
    size_t l, i;
    for (l = 0; l < base->nlocs; l++) {
        const tr_loc *x = &base->locs[l];
        const tr_loc *y = pt[owner[l]]->nlocs == base->nlocs ? &pt[owner[l]]->locs[l] : NULL;
        const tr_loc *o = pt[!owner[l]]->nlocs == base->nlocs ? &pt[!owner[l]]->locs[l] : NULL;
        if (!y || !o || x->n != y->n || o->n != 0) {
            t_fail(__FILE__, __LINE__, "%s: location %llu has %zu records (the other part %zu), "
                   "not %zu", what, (unsigned long long)x->id, y ? y->n : 0, o ? o->n : 0, x->n);
            return false;
        }
        for (i = 0; i < x->n; i++)
            if (x->ev[i].kind != y->ev[i].kind || x->ev[i].t != y->ev[i].t ||
                x->ev[i].aux != y->ev[i].aux) {
                t_fail(__FILE__, __LINE__, "%s: location %llu, record %zu: time %llu, not %llu",
                       what, (unsigned long long)x->id, i, (unsigned long long)y->ev[i].t,
                       (unsigned long long)x->ev[i].t);
                return false;
            }
    }
    return true;
}

static bool same_counts(const char *what, const up_replay_result *a, const up_replay_result *b)
{
    up_repair_line ra[UP_REPAIR_LINES_MAX], rb[UP_REPAIR_LINES_MAX];
    size_t i, n = up_replay_repairs(a, ra);
    bool ok = a->events == b->events && a->end_a == b->end_a && a->end_m == b->end_m &&
              a->start_a == b->start_a && a->start_m == b->start_m && a->t_min_a == b->t_min_a &&
              a->t_max_a == b->t_max_a && a->max_shift == b->max_shift && a->moved == b->moved &&
              a->window_marked == b->window_marked && a->nlocs == b->nlocs &&
              a->unknown_records == b->unknown_records && up_replay_repairs(b, rb) == n;
    for (i = 0; ok && i < n; i++)
        if (ra[i].n != rb[i].n) {
            t_fail(__FILE__, __LINE__, "%s: repair %s %llu, not %llu", what, ra[i].kind->name,
                   (unsigned long long)rb[i].n, (unsigned long long)ra[i].n);
            return false;
        }
    for (i = 0; ok && i < a->nlocs; i++)
        ok = a->locs[i].records == b->locs[i].records && a->locs[i].end_a == b->locs[i].end_a;
    if (!ok)
        t_fail(__FILE__, __LINE__, "%s: the results differ from the serial replay's", what);
    return ok;
}

typedef struct cover {
    char names[192][96];
    size_t n;
    size_t runs, outside;
    uint64_t x_msgs, x_posts, x_colls, x_ends, x_progs, x_rma, x_shared, x_bodies, x_teams,
        x_dev, x_grants;
} cover;

/* One trace with one model: serial, then partitioned under every schedule
 * and seed */
static void check_partition(const char *name, const char *in, const char *model, const how *h,
                            cover *cv)
{
    up_replay_result base, res;
    tr_trace tb, t0, t1;
    const tr_trace *pt[2] = {&t0, &t1};
    char what[512], dir[4096], d0[4096], d1[4096], why[512];
    size_t s;
    uint64_t seed;
    bool all = true;

    snprintf(what, sizeof what, "%.100s %s%s", name, model, h->alt ? " alt" : "");
    snprintf(dir, sizeof dir, "%s", t_dir("partition-serial"));
    up_replay_set_schedule(0, false);
    if (serial_run(in, dir, h, &base) != 0 || tr_load(dir, &tb) != 0) {
        t_fail(__FILE__, __LINE__, "%s: the serial replay failed", what);
        return;
    }
    /* every schedule with seed 1, and seeds 2 and 3 with the first (the
     * alternating cut: only the first schedule, three seeds) */
    for (s = 0; s < (h->alt ? 1 : sizeof schedules / sizeof *schedules) && all; s++)
        for (seed = 1; seed <= (s ? 1u : 3u) && all; seed++) {
            uint32_t *owner = NULL;
            char w2[600];
            int r;
            snprintf(w2, sizeof w2, "%s, schedule %zu, seed %llu", what, s,
                     (unsigned long long)seed);
            snprintf(d0, sizeof d0, "%s", t_dir("partition-0"));
            snprintf(d1, sizeof d1, "%s", t_dir("partition-1"));
            up_replay_set_schedule(schedules[s].slice, schedules[s].reverse);
            r = part_run(in, d0, d1, h, seed, &res, &owner, why, sizeof why);
            cv->runs++;
            if (r == 0) { /* not through the seam yet: the same on every run */
                cv->outside++;
                if (s == 0 && seed == 1)
                    fprintf(stderr, "  partition: %s not covered: %s\n", what, why);
                all = false;
                break;
            }
            if (r < 0) {
                t_fail(__FILE__, __LINE__, "%s: the partitioned replay failed", w2);
                all = false;
                break;
            }
            if (tr_load(d0, &t0) != 0 || tr_load(d1, &t1) != 0) {
                t_fail(__FILE__, __LINE__, "%s: cannot load a part's output", w2);
                all = false;
            } else {
                all = same_records(w2, &tb, pt, owner) && same_counts(w2, &base, &res);
                cv->x_msgs += res.x_msgs, cv->x_posts += res.x_posts;
                cv->x_colls += res.x_colls, cv->x_ends += res.x_ends;
                cv->x_progs += res.x_progs, cv->x_rma += res.x_rma, cv->x_grants += res.x_grants;
                cv->x_shared += res.x_shared, cv->x_bodies += res.x_bodies;
                cv->x_teams += res.x_teams;
                cv->x_dev += res.x_dev;
                tr_free(&t0);
                tr_free(&t1);
            }
            free(owner);
            up_replay_result_free(&res);
        }
    up_replay_set_schedule(0, false);
    if (all && cv->n < 192)
        snprintf(cv->names[cv->n++], sizeof cv->names[0], "%.95s", what);
    tr_free(&tb);
    up_replay_result_free(&base);
}

static void each_trace(const char *name, const char *in, void *ctx)
{
    static const up_mode modes[] = {UP_MODE_LOWER, UP_MODE_UPPER, UP_MODE_NETWORK};
    up_machine mach;
    size_t i;
    int alt;
    for (alt = 0; alt < 2; alt++) {
        for (i = 0; i < sizeof modes / sizeof *modes; i++) {
            up_comp_params p = t_params(20, modes[i], UP_COLLECTIVE_INDIVIDUAL);
            how h = {&p, NULL, alt};
            check_partition(name, in, up_mode_name(modes[i]), &h, ctx);
        }
        /* simulated on the built-in machine, one rank per node (as test_schedule) */
        up_machine_init(&mach);
        mach.cpu_ratio = 1;
        mach.compute = UP_COMPUTE_WALL;
        mach.progress = UP_PROGRESS_MPI;
        mach.ranks_per_node = 1;
        {
            how h = {NULL, &mach, alt};
            check_partition(name, in, "simulate", &h, ctx);
            mach.contention = true;
            check_partition(name, in, "simulate contention", &h, ctx);
        }
    }
}
/* For other tests (tutil.h): `in` compensated with *p by two parts, as
 * above; returns the task farms' moved work that crossed, or -1 when a run
 * differed from the serial replay or failed (each difference a failure). */
long t_check_partition(const char *what, const char *in, const up_comp_params *p)
{
    static cover cv;
    how h = {p, NULL, false};
    memset(&cv, 0, sizeof cv);
    check_partition(what, in, "compensate", &h, &cv);
    return cv.n == 1 ? (long)cv.x_bodies : -1; /* (a run that differed is not counted) */
}

TEST(partition_two_engines_give_the_serial_replay)
{
    static cover cv;
    int ntraces;
    memset(&cv, 0, sizeof cv);
    CHECK((ntraces = t_each_data_trace(each_trace, &cv)) >= 11);
    /* every trace with every model through the seam */
    CHECK(cv.outside == 0);
    CHECK(cv.n == 10 * (size_t)ntraces);
    CHECK(cv.x_msgs > 0);
    CHECK(cv.x_posts > 0);
    CHECK(cv.x_colls > 0);
    CHECK(cv.x_ends > 0);
    CHECK(cv.x_progs > 0);
    CHECK(cv.x_rma > 0);
    CHECK(cv.x_shared > 0);
    CHECK(cv.x_teams > 0);
    CHECK(cv.x_dev > 0);
    CHECK(cv.x_grants > 0);
    fprintf(stderr, "  partition: %zu of %zu trace-model pairs through the seam (%zu runs; "
            "crossed: %llu messages, %llu posts, %llu collective arrivals, %llu ends, "
            "%llu progress answers, %llu RMA sync points and releases, %llu link logs, "
            "%llu team begins and ends, %llu device issues and ends; %llu decisions granted)\n",
            cv.n, cv.n + cv.outside, cv.runs, (unsigned long long)cv.x_msgs,
            (unsigned long long)cv.x_posts, (unsigned long long)cv.x_colls,
            (unsigned long long)cv.x_ends, (unsigned long long)cv.x_progs,
            (unsigned long long)cv.x_rma, (unsigned long long)cv.x_shared,
            (unsigned long long)cv.x_teams, (unsigned long long)cv.x_dev,
            (unsigned long long)cv.x_grants);
}
