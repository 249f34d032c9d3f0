/*
 * test_trace.c - the real Score-P traces of tests/data: every one opens,
 * compensates in every mode, keeps every record on its location, and with
 * zero overhead (upper, individual) comes out with identical timestamps
 * (but for the time spent in the tracer's own overhead regions).
 * Also: bad inputs give clear errors.
 */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "tutil.h"

static const char *const real[] = {
    "pipit-ping-pong",
    "pipit-ping-pong-papi",
    "casita-10_scorep_mpi_tags",
    "casita-4_mpi_ls_barr",
    "casita-1_scorep-ompt-host-nested",
    "casita-1_sptc",
    "casita-1_xeonphi_jacobi_01",
    "casita-2_cuda_simple",
    "casita-2_jacobi_blame_cpu_015",
};

static void data_path(char *buf, size_t n, const char *name)
{
    char rel[256];
    snprintf(rel, sizeof rel, "tests/data/%s", name);
    snprintf(buf, n, "%s", t_src(rel));
}

/* The region a trace's tracer spent time in that compensation removes
 * whole, whatever the overhead per record: casita-1_xeonphi_jacobi_01's
 * region 2, "!$omp offloading flush" (paradigm MEASUREMENT_SYSTEM, role
 * FLUSH: otf2-print -G), on its master thread; -1: none */
static int overhead_region(const char *name)
{
    return strcmp(name, "casita-1_xeonphi_jacobi_01") ? -1 : 2;
}

TEST(real_traces_identity)
{
    unsigned i;
    for (i = 0; i < sizeof real / sizeof real[0]; i++) {
        char in[4096], out[4096];
        up_comp_params p = t_params(0, UP_MODE_UPPER, UP_COLLECTIVE_INDIVIDUAL);
        up_replay_result res;
        tr_trace a, b;
        size_t l, k;
        int ovr = overhead_region(real[i]);
        uint64_t upto = UINT64_MAX, cut = 0, enter = 0;
        data_path(in, sizeof in, real[i]);
        snprintf(out, sizeof out, "%s", t_dir(real[i]));
        if (t_compensate(in, out, &p, &res, NULL) != UP_OK || tr_load(in, &a) || tr_load(out, &b)) {
            t_fail(__FILE__, __LINE__, "%s: compensation or reading failed", real[i]);
            continue;
        }
        /* with an overhead region: identical up to its first Enter, and
         * location 0 ends earlier by the time spent in it (summed here
         * from the input; 201 flushes, 451630530 ns by otf2-print) */
        if (ovr >= 0 && a.nlocs)
            for (k = 0; k < a.locs[0].n; k++) {
                const tr_ev *e = &a.locs[0].ev[k];
                if (e->kind == TR_ENTER && e->aux == (uint64_t)ovr) {
                    enter = e->t;
                    if (upto == UINT64_MAX)
                        upto = e->t;
                } else if (e->kind == TR_LEAVE && e->aux == (uint64_t)ovr) {
                    cut += e->t - enter;
                }
            }
        if (ovr >= 0) {
            CHECK_EQ(cut, 451630530);
            CHECK(a.nlocs && b.nlocs && a.locs[0].n && a.locs[0].n == b.locs[0].n &&
                  b.locs[0].ev[b.locs[0].n - 1].t + cut == a.locs[0].ev[a.locs[0].n - 1].t);
        }
        CHECK_EQ(a.nlocs, b.nlocs);
        for (l = 0; l < a.nlocs && l < b.nlocs; l++) {
            CHECK_EQ(a.locs[l].n, b.locs[l].n);
            for (k = 0; k < a.locs[l].n && k < b.locs[l].n && a.locs[l].ev[k].t < upto; k++)
                if (a.locs[l].ev[k].t != b.locs[l].ev[k].t) {
                    t_fail(__FILE__, __LINE__, "%s location %llu event %zu: %llu became %llu",
                           real[i], (unsigned long long)a.locs[l].id, k,
                           (unsigned long long)a.locs[l].ev[k].t, (unsigned long long)b.locs[l].ev[k].t);
                    break;
                }
        }
        /* OTF2's reader applied the clock offsets; the output's first record
         * lies inside its own ClockProperties */
        CHECK(b.global_offset <= res.t_min_a);
        CHECK(b.global_offset + b.trace_length >= res.t_max_a);
        CHECK(b.creator && strstr(b.creator, "unperturb") != NULL);
        tr_free(&a);
        tr_free(&b);
        up_replay_result_free(&res);
    }
}

TEST(real_traces_every_mode_keeps_records)
{
    unsigned i, m;
    up_mode modes[] = {UP_MODE_LOWER, UP_MODE_UPPER, UP_MODE_NETWORK};
    for (i = 0; i < sizeof real / sizeof real[0]; i++)
        for (m = 0; m < 3; m++) {
            char in[4096], out[4096], tag[300];
            up_comp_params p = t_params(300, modes[m], m == 1 ? UP_COLLECTIVE_SHARED : UP_COLLECTIVE_INDIVIDUAL);
            up_replay_result res;
            tr_trace a, b;
            size_t l, k;
            bool shorter;
            if (modes[m] == UP_MODE_NETWORK) {
                p.ncopy = 1;
                p.copy_bytes[0] = 1;
                p.copy_ns_per_byte[0] = 0.2;
                p.latency_ns = 1500;
                p.ns_per_byte = 0.3;
            }
            data_path(in, sizeof in, real[i]);
            snprintf(tag, sizeof tag, "%s-%u", real[i], m);
            snprintf(out, sizeof out, "%s", t_dir(tag));
            if (t_compensate(in, out, &p, &res, NULL) != UP_OK || tr_load(in, &a) || tr_load(out, &b)) {
                t_fail(__FILE__, __LINE__, "%s: compensation or reading failed", tag);
                continue;
            }
            /* Without copy time, lower and upper only ever shorten measured
             * intervals (eqs. 1-13), so no record moves later, unless the
             * measured trace itself broke the clock condition. */
            shorter = modes[m] != UP_MODE_NETWORK && !res.model_repairs[UP_MR_clock_condition] &&
                      !res.model_repairs[UP_MR_collective_clock];
            CHECK_EQ(a.nlocs, b.nlocs);
            for (l = 0; l < a.nlocs && l < b.nlocs; l++) {
                CHECK_EQ(a.locs[l].n, b.locs[l].n);
                for (k = 0; k < b.locs[l].n; k++) {
                    if (shorter && k < a.locs[l].n && b.locs[l].ev[k].t > a.locs[l].ev[k].t) {
                        t_fail(__FILE__, __LINE__, "%s: record %zu moved later", tag, k);
                        break;
                    }
                    /* same record kinds in the same order, times never decrease */
                    if (k < a.locs[l].n && a.locs[l].ev[k].kind != b.locs[l].ev[k].kind) {
                        t_fail(__FILE__, __LINE__, "%s: record %zu changed kind", tag, k);
                        break;
                    }
                    if (k && b.locs[l].ev[k].t < b.locs[l].ev[k - 1].t) {
                        t_fail(__FILE__, __LINE__, "%s: time decreases at record %zu", tag, k);
                        break;
                    }
                }
            }
            CHECK_EQ(res.repairs[UP_REPAIR_output_clamped], 0);
            CHECK_EQ(res.unknown_records, 0);
            tr_free(&a);
            tr_free(&b);
            up_replay_result_free(&res);
        }
}

TEST(real_trace_ranks_and_window)
{
    char in[4096];
    up_trace *t;
    up_err err = {0};
    const up_defs *d;
    data_path(in, sizeof in, "casita-2_jacobi_blame_cpu_015");
    CHECK_EQ(up_trace_open(in, &t, &err), UP_OK);
    if (!t)
        return;
    d = up_trace_defs(t);
    CHECK_EQ(d->nlocs, 10);
    /* OpenMP and CUDA locations share their process' MPI rank */
    {
        uint32_t li;
        CHECK(up_defs_loc_index(d, 4294967297ull, &li));
        CHECK_EQ(d->locs[li].rank, 1);
        CHECK(up_defs_loc_index(d, 17179869184ull, &li));
        CHECK_EQ(d->locs[li].rank, 0);
        /* MPI_COMM_WORLD (comm 4): rank 1 is location 1 */
        CHECK(up_defs_rank_loc(d, 4, 1, 0, &li));
        CHECK_EQ(d->locs[li].id, 1);
        /* self-like communicator: rank 0 is the caller */
        CHECK(up_defs_rank_loc(d, 5, 0, 3, &li));
        CHECK_EQ(li, 3);
        CHECK(!up_defs_rank_loc(d, 4, 2, 0, &li));
    }
    CHECK(d->n_clock_offsets > 0);
    CHECK(d->n_mapping_tables > 0);
    up_trace_close(t);
}

TEST(bad_inputs_give_clear_errors)
{
    up_trace *t = NULL;
    up_err err = {0};
    char path[4096];
    FILE *f;
    CHECK_EQ(up_trace_open("/nonexistent/run", &t, &err), UP_EIO);
    CHECK(strstr(err.msg, "/nonexistent/run") && strstr(err.msg, "No such file"));
    snprintf(path, sizeof path, "%s", t_dir("notatrace.otf2"));
    f = fopen(path, "w");
    if (f) {
        fputs("this is not an OTF2 anchor file\n", f);
        fclose(f);
    }
    CHECK_EQ(up_trace_open(path, &t, &err), UP_EFORMAT);
    CHECK(strstr(err.msg, "notatrace.otf2") && strstr(err.msg, "not an OTF2 archive"));
    CHECK(t == NULL);
    snprintf(path, sizeof path, "%s", t_src("tests"));
    CHECK_EQ(up_trace_open(path, &t, &err), UP_EFORMAT);
    CHECK(strstr(err.msg, "without traces.otf2") != NULL);
}

/* The replay's fast path for Enter and Leave (up_model_ops.region) times
 * every record exactly as the general path (ops.local on a decoded record):
 * each real trace, each mode, with a different O per record kind and a
 * location-specific excess, compensated both ways. */
TEST(real_traces_fast_path_times_as_the_general_one)
{
    unsigned i, m, k;
    up_mode modes[] = {UP_MODE_LOWER, UP_MODE_UPPER, UP_MODE_NETWORK};
    up_model_ops general = *up_comp_ops();
    general.region = NULL;
    CHECK(up_comp_ops()->region != NULL);
    for (i = 0; i < sizeof real / sizeof real[0]; i++)
        for (m = 0; m < 3; m++) {
            char in[4096], out[2][4096], tag[300];
            up_comp_params p = t_params(0, modes[m], UP_COLLECTIVE_INDIVIDUAL);
            up_replay_result res[2];
            uint64_t *removed[2] = {NULL, NULL};
            tr_trace a, b;
            size_t l, e;
            int w;
            for (k = 0; k < UP_RK_COUNT; k++)
                p.overhead_ns[k] = 100 + 37 * k;
            p.latency_ns = 1500;
            data_path(in, sizeof in, real[i]);
            if (tr_load(in, &a)) {
                t_fail(__FILE__, __LINE__, "%s: cannot read", real[i]);
                continue;
            }
            p.nloc_ovh = 1;
            p.loc_ovh_id[0] = a.locs[0].id;
            p.loc_ovh_ns[0] = 55;
            tr_free(&a);
            for (w = 0; w < 2; w++) {
                snprintf(tag, sizeof tag, "%s-fast%u-%d", real[i], m, w);
                snprintf(out[w], sizeof out[w], "%s", t_dir(tag));
                if (t_compensate_ops(in, out[w], &p, w ? &general : up_comp_ops(), NULL, &res[w],
                                     &removed[w]) != UP_OK)
                    t_fail(__FILE__, __LINE__, "%s: compensation failed", tag);
            }
            if (!removed[0] || !removed[1] || tr_load(out[0], &a)) {
                free(removed[0]), free(removed[1]);
                continue;
            }
            if (tr_load(out[1], &b)) {
                tr_free(&a);
                free(removed[0]), free(removed[1]);
                continue;
            }
            CHECK_EQ(a.nlocs, b.nlocs);
            for (l = 0; l < a.nlocs && l < b.nlocs; l++) {
                CHECK_EQ(a.locs[l].n, b.locs[l].n);
                CHECK_EQ(removed[0][l], removed[1][l]);
                for (e = 0; e < a.locs[l].n && e < b.locs[l].n; e++)
                    if (a.locs[l].ev[e].t != b.locs[l].ev[e].t) {
                        t_fail(__FILE__, __LINE__, "%s mode %u location %llu record %zu: %llu fast, %llu general",
                               real[i], m, (unsigned long long)a.locs[l].id, e,
                               (unsigned long long)a.locs[l].ev[e].t, (unsigned long long)b.locs[l].ev[e].t);
                        break;
                    }
            }
            CHECK_EQ(res[0].end_a, res[1].end_a);
            for (k = 0; k < UP_REPAIR_COUNT; k++)
                CHECK_EQ(res[0].repairs[k], res[1].repairs[k]);
            for (k = 0; k < UP_MODEL_REPAIRS_MAX; k++)
                CHECK_EQ(res[0].model_repairs[k], res[1].model_repairs[k]);
            tr_free(&a);
            tr_free(&b);
            free(removed[0]), free(removed[1]);
            up_replay_result_free(&res[0]);
            up_replay_result_free(&res[1]);
        }
}

/* A ring slot is reused after a location's first records: a record must not
 * come with the region flags the engine gave the slot's earlier record (a
 * stale UP_REGION_POLL bit would send a send through the poll model).  Every
 * record is marked as the engine marks an Enter before it is popped; every
 * record read after it must still come with no flags. */
TEST(stream_records_come_without_stale_region_flags)
{
    char in[4096];
    up_trace *t = NULL;
    up_err err = {0};
    up_event *ev;
    size_t l, seen = 0, stale = 0;
    data_path(in, sizeof in, "casita-2_jacobi_blame_cpu_015");
    if (up_trace_open(in, &t, &err) != UP_OK) {
        t_fail(__FILE__, __LINE__, "%s", err.msg);
        return;
    }
    for (l = 0; l < up_trace_defs(t)->nlocs; l++) {
        up_stream *s = up_trace_stream(t, l);
        while (up_stream_peek(s, 0, &ev, &err) == UP_OK && ev) {
            stale += ev->rflags != 0;
            ev->rflags = 0xFF;
            up_stream_pop(s);
            seen++;
        }
    }
    CHECK(seen > 1000); /* more records than a ring holds: slots were reused */
    CHECK_EQ(stale, 0);
    up_trace_close(t);
}
