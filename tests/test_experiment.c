/*
 * test_experiment.c - the pipeline of `unperturb simulate` (run/simrun.h):
 * the experiment file (every key, errors naming file and line, write then
 * read back), sweep values worked out by hand (integer and floating steps,
 * the 1000-value limit), the order of two sweeps, scaling's order and
 * speedups from hand-made numbers and from generated traces, and the
 * machine's parameters as keys and values (up_machine_param_at).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "run/simrun.h"
#include "tracegen/tracegen.h"

#define NS 1000000000u

static up_experiment *new_exp(void)
{
    up_experiment *ex = malloc(sizeof *ex);
    if (ex)
        up_experiment_init(ex);
    return ex;
}

static void free_exp(up_experiment *ex)
{
    up_experiment_free(ex);
    free(ex);
}

static void check_str(const char *file, int line, const char *got, const char *want)
{
    if (!got || strcmp(got, want))
        t_fail(file, line, "'%s', wanted '%s'", got ? got : "(null)", want);
}
#define CHECK_STR(a, b) check_str(__FILE__, __LINE__, (a), (b))

/* ---- the experiment file ------------------------------------------------------- */

TEST(experiment_parse_every_key)
{
    static const char text[] =
        "# written by hand\n"                                    /* 1 */
        "[experiment]\n"                                         /* 2 */
        "created_by = unperturb 0.1.0\n"                         /* 3 */
        "created = 2026-01-01T00:00:00Z\n"                       /* 4 */
        "input = /data/run-a\n"                                  /* 5 */
        "  input =   rel/run-b  \r\n"                            /* 6 */
        "sweep = latency_ns=1000:3000:1000\n"                    /* 7 */
        "; a comment\n"                                          /* 8 */
        "sweep = processor.cpu_ratio=0.5:1:0.25\n"               /* 9 */
        "output = out\n"                                         /* 10 */
        "json = /abs/r.json\n"                                   /* 11 */
        "calibration = cal.ini\n"                                /* 12 */
        "input = /data/a ;b\n"                                   /* 13 */
        "\n"                                                     /* 14 */
        "[network]\n"                                            /* 15 */
        "latency_ns = 2500\n"                                    /* 16 */
        "[processor]\n"                                          /* 17 */
        "cpu_ratio = 2\n";                                       /* 18 */
    up_experiment *ex = new_exp();
    up_err err = {0};
    CHECK(ex != NULL);
    if (!ex)
        return;
    ex->out = "kept"; /* -o given with --experiment wins */
    CHECK_EQ(up_experiment_parse(ex, text, "/exp/dir/e.ini", &err), UP_OK);
    CHECK_STR(err.msg, "");
    CHECK_EQ(ex->ninputs, 3);
    CHECK_STR(ex->inputs[0], "/data/run-a");
    CHECK_STR(ex->inputs[1], "/exp/dir/rel/run-b");   /* relative to the file's folder */
    CHECK_STR(ex->inputs[2], "/data/a ;b");           /* no inline comments */
    CHECK_EQ(ex->nsw, 2);
    CHECK_STR(ex->sweep_args[0], "latency_ns=1000:3000:1000");
    CHECK_STR(ex->sweep_args[1], "processor.cpu_ratio=0.5:1:0.25");
    CHECK_EQ(ex->sweep_lines[0], 7);
    CHECK_EQ(ex->sweep_lines[1], 9);
    CHECK_STR(ex->out, "kept");
    CHECK_STR(ex->json, "/abs/r.json");
    CHECK_STR(ex->calib, "/exp/dir/cal.ini");
    CHECK(ex->m.latency_ns == 2500);
    CHECK(ex->m.cpu_ratio == 2);
    CHECK(ex->m.per_hop_ns == 100); /* a default */
    free_exp(ex);

    /* a line far longer than inih's 200 bytes */
    {
        char *big = malloc(1200), path[1000];
        memset(path, 'p', sizeof path - 1);
        path[0] = '/';
        path[sizeof path - 1] = 0;
        ex = new_exp();
        CHECK(big && ex);
        if (!big || !ex)
            return;
        snprintf(big, 1200, "[experiment]\ninput = %s\n", path);
        CHECK_EQ(up_experiment_parse(ex, big, "/e.ini", &err), UP_OK);
        CHECK_EQ(ex->ninputs, 1);
        CHECK_STR(ex->inputs[0], path);
        CHECK(ex->out == NULL && ex->json == NULL && ex->calib == NULL);
        free(big);
        free_exp(ex);
    }
}

TEST(experiment_errors_name_file_and_line)
{
    static const struct {
        const char *text, *msg;
        up_status st;
    } bad[] = {
        {"[experiment]\ninput = /a\nfoo = 1\n",
         "/e/x.ini:3: unknown key 'foo' in [experiment] (expected input, sweep, output, json, calibration, "
         "created, created_by)", UP_EFORMAT},
        {"[experiment]\ninput\n",
         "/e/x.ini:2: not an INI line (expected 'key = value', a [section] or a comment)", UP_EFORMAT},
        {"[experiment]\n\ninput =  \n", "/e/x.ini:3: 'input' has no value", UP_EFORMAT},
        {"[experiment]\noutput = a\noutput = b\n", "/e/x.ini:3: 'output' given twice", UP_EFORMAT},
        {"[experiment]\nsweep = a\nsweep = b\nsweep = c\n", "/e/x.ini:4: a third sweep (at most two)",
         UP_EFORMAT},
        {"[network]\nlatency_ns = 1\n",
         "/e/x.ini: no [experiment] section: not an experiment file (a machine file goes with --machine)",
         UP_EFORMAT},
        {"[experiment]\ncreated = now\n", "/e/x.ini: [experiment] names no input", UP_EFORMAT},
        /* the machine's lines keep their numbers: [experiment] is blanked */
        {"[experiment]\ninput = /a\n[network]\nlatency_ns = x\n",
         "/e/x.ini:4: latency_ns = x: not a number (must be between 0 and 1e9 ns)", UP_EFORMAT},
        {"[network]\nlatency_ns = 1\n[experiment]\ninput = /a\n[network]\nper_hop = 1\n",
         "/e/x.ini:6: unknown key 'per_hop' in [network]", UP_EFORMAT},
    };
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        up_experiment *ex = new_exp();
        up_err err = {0};
        up_status st;
        if (!ex)
            return;
        st = up_experiment_parse(ex, bad[i].text, "/e/x.ini", &err);
        CHECK_EQ(st, bad[i].st);
        if (strncmp(err.msg, bad[i].msg, strlen(bad[i].msg)))
            t_fail(__FILE__, __LINE__, "case %zu: '%s', wanted '%s'", i, err.msg, bad[i].msg);
        free_exp(ex);
    }

    /* 257 inputs: the 257th line is 258 */
    {
        size_t cap = 257 * 16 + 32, n;
        char *text = malloc(cap);
        up_experiment *ex = new_exp();
        up_err err = {0};
        if (!text || !ex)
            return;
        n = (size_t)snprintf(text, cap, "[experiment]\n");
        for (i = 0; i < 257; i++)
            n += (size_t)snprintf(text + n, cap - n, "input = /r%zu\n", i);
        CHECK_EQ(up_experiment_parse(ex, text, "/e/x.ini", &err), UP_EFORMAT);
        CHECK_STR(err.msg, "/e/x.ini:258: more than 256 inputs");
        free(text);
        free_exp(ex);
    }

    /* a sweep from the file is checked by up_experiment_prepare, with its line */
    {
        up_experiment *ex = new_exp();
        up_err err = {0};
        if (!ex)
            return;
        CHECK_EQ(up_experiment_parse(ex, "[experiment]\ninput = /a\n\nsweep = cpu_ratio=0:1:1\n", "/e/x.ini",
                                     &err), UP_OK);
        ex->file = "/e/x.ini";
        CHECK_EQ(up_experiment_prepare(ex, &err), UP_EFORMAT);
        CHECK_STR(err.msg, "/e/x.ini:4: --sweep 'cpu_ratio=0:1:1': cpu_ratio = 0: must be between 0.001 and 1000");
        free_exp(ex);
    }
}

/* The machine's parameters as keys and values, as up_machine_write writes them. */
static void check_same_machine(const up_machine *a, const up_machine *b)
{
    up_machine_param pa, pb;
    size_t i;
    for (i = 0; up_machine_param_at(a, i, &pa); i++) {
        CHECK(up_machine_param_at(b, i, &pb));
        if (strcmp(pa.key, pb.key) || strcmp(pa.value, pb.value))
            t_fail(__FILE__, __LINE__, "parameter %zu: %s = %s, wanted %s = %s", i, pb.key, pb.value, pa.key,
                   pa.value);
    }
    CHECK(!up_machine_param_at(b, i, &pb));
}

TEST(experiment_write_then_parse)
{
    up_experiment *ex = new_exp(), *again = new_exp();
    up_err err = {0};
    char *text = NULL;
    size_t len = 0;
    FILE *f;
    if (!ex || !again)
        return;
    ex->inputs[ex->ninputs++] = "/nonexistent/run-a";
    ex->sets[ex->nsets++] = "cpu_ratio=0.25";
    ex->m.cpu_ratio = 0.25;
    ex->m.topology = UP_TOPO_TORUS2D;
    ex->m.dims[0] = 4, ex->m.dims[1] = 2;
    ex->m.contention = true;
    ex->m.ns_per_byte = 1.0 / 3; /* written with 16 digits, read back exactly */
    ex->out = "/nonexistent/out/";
    ex->json = "/nonexistent/r.json";
    ex->calib = "/nonexistent/cal.ini";
    CHECK_EQ(up_sweep_parse("per_hop_ns=0:0.3:0.1", &ex->m, &ex->sw[0], &err), UP_OK);
    CHECK_EQ(up_sweep_parse("network.latency_ns=1e3:2e3:500", &ex->m, &ex->sw[1], &err), UP_OK);
    ex->nsw = 2;
    f = open_memstream(&text, &len);
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK_EQ(up_experiment_write(f, ex, 0), 0);
    fclose(f);
    CHECK(strstr(text, "\ncreated = 1970-01-01T00:00:00Z\n") != NULL);
    CHECK(strstr(text, "\ninput = /nonexistent/run-a\n") != NULL);
    CHECK(strstr(text, "\nsweep = per_hop_ns=0:0.3:0.1\n") != NULL);
    CHECK(strstr(text, "\nsweep = network.latency_ns=1000:2000:500\n") != NULL);
    CHECK(strstr(text, "\noutput = /nonexistent/out\n") != NULL); /* no trailing '/' */
    CHECK(strstr(text, "\n# machine: the defaults, --set cpu_ratio=0.25\n") != NULL);
    CHECK(strstr(text, "\ndims = 4x2\n") != NULL);
    CHECK(strstr(text, "\nns_per_byte = 0.3333333333333333\n") != NULL);

    CHECK_EQ(up_experiment_parse(again, text, "/elsewhere/experiment.ini", &err), UP_OK);
    CHECK_STR(err.msg, "");
    CHECK_EQ(again->ninputs, 1);
    CHECK_STR(again->inputs[0], "/nonexistent/run-a");
    CHECK_EQ(again->nsw, 2);
    CHECK_STR(again->sweep_args[0], "per_hop_ns=0:0.3:0.1");
    CHECK_STR(again->sweep_args[1], "network.latency_ns=1000:2000:500");
    CHECK_STR(again->out, "/nonexistent/out");
    CHECK_STR(again->json, "/nonexistent/r.json");
    CHECK_STR(again->calib, "/nonexistent/cal.ini");
    CHECK(again->m.ns_per_byte == 1.0 / 3);
    check_same_machine(&ex->m, &again->m);
    free(text);
    free_exp(ex);
    free_exp(again);
}

/* ---- sweeps ------------------------------------------------------------------------ */

static void check_values(const char *file, int line, const char *arg, const double *want, size_t n)
{
    static up_sweep s;
    up_machine m;
    up_err err = {0};
    size_t k;
    up_machine_init(&m);
    if (up_sweep_parse(arg, &m, &s, &err) != UP_OK) {
        t_fail(file, line, "%s: %s", arg, err.msg);
        return;
    }
    if (s.n != n)
        t_fail(file, line, "%s: %zu values, wanted %zu", arg, s.n, n);
    for (k = 0; k < n && k < s.n; k++)
        if (s.v[k] != want[k])
            t_fail(file, line, "%s: value %zu is %.17g, wanted %.17g", arg, k, s.v[k], want[k]);
}
#define CHECK_VALUES(arg, ...)                                                        \
    do {                                                                              \
        static const double w_[] = {__VA_ARGS__};                                     \
        check_values(__FILE__, __LINE__, arg, w_, sizeof w_ / sizeof w_[0]);          \
    } while (0)

TEST(sweep_values_by_hand)
{
    static up_sweep s;
    up_machine m;
    up_err err = {0};
    size_t k;
    CHECK_VALUES("latency_ns=1000:3000:1000", 1000, 2000, 3000);
    CHECK_VALUES("latency_ns=5:5:1", 5);                    /* FROM = TO: one value */
    CHECK_VALUES("latency_ns=0:10:100", 0);                 /* a step past TO */
    CHECK_VALUES("latency_ns=0:10:4", 0, 4, 8);             /* TO not on a step */
    /* floating steps: FROM + k*STEP, no accumulation; 0.1 + 2*0.1 is
     * 0.30000000000000004, within 1e-9 of TO: TO itself */
    CHECK_VALUES("cpu_ratio=0.1:0.3:0.1", 0.1, 0.1 + 1 * 0.1, 0.3);
    CHECK_VALUES("per_hop_ns=0:1:0.3", 0, 0.3, 0 + 2 * 0.3, 0 + 3 * 0.3);
    CHECK_VALUES("network.latency_ns=1e3:2e3:5e2", 1000, 1500, 2000);

    up_machine_init(&m);
    CHECK_EQ(up_sweep_parse("network.latency_ns=0:1:1", &m, &s, &err), UP_OK);
    CHECK_STR(s.key, "network.latency_ns");
    CHECK_STR(s.name, "latency_ns");
    CHECK(s.from == 0 && s.to == 1 && s.step == 1);

    /* 1000 values is the limit */
    CHECK_EQ(up_sweep_parse("latency_ns=1:1000:1", &m, &s, &err), UP_OK);
    CHECK_EQ(s.n, 1000);
    for (k = 0; k < s.n; k++)
        if (s.v[k] != (double)(k + 1))
            t_fail(__FILE__, __LINE__, "value %zu is %g", k, s.v[k]);
    CHECK_EQ(up_sweep_parse("latency_ns=0:1000:1", &m, &s, &err), UP_EUSAGE);
    CHECK_STR(err.msg, "--sweep 'latency_ns=0:1000:1': more than 1000 values");
    CHECK_EQ(up_sweep_parse("latency_ns=0:1e9:0.5", &m, &s, &err), UP_EUSAGE);
    CHECK_STR(err.msg, "--sweep 'latency_ns=0:1e9:0.5': more than 1000 values");
}

TEST(sweep_errors)
{
    static const struct {
        const char *arg, *msg;
    } bad[] = {
        {"latency_ns=1:2", "--sweep 'latency_ns=1:2': expected KEY=FROM:TO:STEP (three numbers separated by ':')"},
        {"latency_ns", "--sweep 'latency_ns': expected KEY=FROM:TO:STEP, e.g. latency_ns=1000:10000:1000"},
        {"latency_ns=1:x:1", "--sweep 'latency_ns=1:x:1': latency_ns = x: not a number (must be between 0 and 1e9 ns)"},
        {"latency_ns=2:1:1", "--sweep 'latency_ns=2:1:1': FROM is greater than TO"},
        {"latency_ns=1:2:0", "--sweep 'latency_ns=1:2:0': STEP must be greater than 0"},
        {"topology=1:2:1", "--sweep 'topology=1:2:1': 'topology' is not a numeric machine parameter "
                           "(docs/machine.md lists them; names, booleans and dims cannot be swept)"},
        {"cpu_ratio=0:2:0.5", "--sweep 'cpu_ratio=0:2:0.5': cpu_ratio = 0: must be between 0.001 and 1000"},
    };
    static up_sweep s;
    up_machine m;
    size_t i;
    up_machine_init(&m);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        up_err err = {0};
        CHECK_EQ(up_sweep_parse(bad[i].arg, &m, &s, &err), UP_EUSAGE);
        CHECK_STR(err.msg, bad[i].msg);
    }
}

/* The checks before work: two sweeps of one key, too many simulations, no -o. */
TEST(experiment_prepare_limits)
{
    up_experiment *ex = new_exp();
    up_err err = {0};
    if (!ex)
        return;
    ex->inputs[ex->ninputs++] = "/nonexistent";
    ex->sweep_args[0] = "latency_ns=0:1:1";
    ex->sweep_args[1] = "network.latency_ns=0:2:1";
    ex->nsw = 2;
    CHECK_EQ(up_experiment_prepare(ex, &err), UP_EUSAGE);
    CHECK_STR(err.msg, "two --sweep of the same key 'latency_ns'");
    ex->sweep_args[1] = "cpu_ratio=1:11:1"; /* 2 x 11: fine, but no -o */
    CHECK_EQ(up_experiment_prepare(ex, &err), UP_EUSAGE);
    CHECK_STR(err.msg, "a --sweep needs an output folder (-o DIR)");
    ex->sweep_args[0] = "latency_ns=0:999:1"; /* 1000 x 11 */
    CHECK_EQ(up_experiment_prepare(ex, &err), UP_EUSAGE);
    CHECK_STR(err.msg, "11000 simulations: at most 10000 in one experiment");
    ex->sweep_args[0] = "latency_ns=0:1:1";
    ex->out = "/nonexistent/out";
    CHECK_EQ(up_experiment_prepare(ex, &err), UP_EIO);
    CHECK_STR(err.msg, "cannot read the trace '/nonexistent': No such file or directory");
    free_exp(ex);
}

/* One rank: Enter main at 0, work from 100 to 1100, Leave main at 1200 (ns):
 * 1200 ns of compute, 600 ns at cpu_ratio 2. */
static char *one_rank_trace(const char *name, unsigned nranks, uint64_t work)
{
    char *dir = strdup(t_dir(name)); /* t_dir's buffer is reused */
    tg *g = tg_open(dir, nranks, NS, 0);
    unsigned r;
    for (r = 0; r < nranks; r++) {
        tg_enter(g, r, 0, TG_MAIN);
        tg_enter(g, r, 100, TG_WORK);
        tg_leave(g, r, 100 + work, TG_WORK);
        tg_leave(g, r, 200 + work, TG_MAIN);
    }
    CHECK(tg_close(g) == 0);
    return dir;
}

typedef struct seen {
    char what[8][64];
    size_t n, last_k, total;
} seen;

static void on_progress(void *ctx, size_t k, size_t n, const char *input, const char *what, double t)
{
    seen *s = ctx;
    (void)input, (void)t;
    if (s->n < 8)
        snprintf(s->what[s->n++], sizeof s->what[0], "%s", what);
    s->last_k = k, s->total = n;
}

/* Two sweeps: the first varies slowest, in the results and the runs. */
TEST(sweep_two_sweeps_order)
{
    char *dir = one_rank_trace("exp_sweep2", 1, 1000);
    up_experiment *ex = new_exp();
    up_sweep_result r;
    up_machine m;
    up_err err = {0};
    seen s;
    if (!ex)
        return;
    memset(&s, 0, sizeof s);
    ex->inputs[ex->ninputs++] = dir;
    ex->out = "/nonexistent/out";
    ex->m.compute = UP_COMPUTE_WALL;
    ex->sweep_args[0] = "cpu_ratio=1:2:1";
    ex->sweep_args[1] = "latency_ns=0:1000:1000";
    ex->nsw = 2;
    CHECK_EQ(up_experiment_prepare(ex, &err), UP_OK);
    CHECK_STR(err.msg, "");
    CHECK_EQ(up_experiment_machine_at(ex, 1, 0, &m, &err), UP_OK);
    CHECK(m.cpu_ratio == 2 && m.latency_ns == 0);
    CHECK_EQ(up_experiment_machine_at(ex, 0, 1, &m, &err), UP_OK);
    CHECK(m.cpu_ratio == 1 && m.latency_ns == 1000);

    CHECK_EQ(up_simrun_sweep(ex, on_progress, &s, &r, &err), UP_OK);
    CHECK_STR(err.msg, "");
    CHECK_EQ(r.n0, 2);
    CHECK_EQ(r.n1, 2);
    CHECK_NEAR(r.measured_s, 1200e-9, 1e-15);
    if (r.pred) {
        CHECK_NEAR(r.pred[0], 1200e-9, 1e-15); /* cpu_ratio 1, latency 0 */
        CHECK_NEAR(r.pred[1], 1200e-9, 1e-15); /* cpu_ratio 1, latency 1000 */
        CHECK_NEAR(r.pred[2], 600e-9, 1e-15);  /* cpu_ratio 2, latency 0 */
        CHECK_NEAR(r.pred[3], 600e-9, 1e-15);
    }
    CHECK_EQ(r.first.nranks, 1);
    CHECK_EQ(s.n, 4);
    CHECK_EQ(s.total, 4);
    CHECK_STR(s.what[0], "cpu_ratio=1 latency_ns=0");
    CHECK_STR(s.what[1], "cpu_ratio=1 latency_ns=1000");
    CHECK_STR(s.what[2], "cpu_ratio=2 latency_ns=0");
    CHECK_STR(s.what[3], "cpu_ratio=2 latency_ns=1000");
    up_sweep_result_free(&r);
    free_exp(ex);
    free(dir);
}

/* ---- scaling ------------------------------------------------------------------------ */

TEST(scaling_speedups_by_hand)
{
    /* inputs in the order 8, 2, 4 ranks; two sweep values */
    static const char *const inputs[] = {"run8", "run2", "run4"};
    up_scaling_result r;
    up_err err = {0};
    CHECK_EQ(up_scaling_alloc(&r, 3, 2, &err), UP_OK);
    if (!r.pt)
        return;
    r.pt[0] = (up_sim_point){1.5, 1.0, 8, 8, false};
    r.pt[1] = (up_sim_point){4.0, 3.0, 2, 2, false};
    r.pt[2] = (up_sim_point){2.5, 2.0, 4, 4, false};
    r.pt[3] = (up_sim_point){1.5, 0.5, 8, 8, false};
    r.pt[4] = (up_sim_point){4.0, 2.0, 2, 2, false};
    r.pt[5] = (up_sim_point){2.5, 0.0, 4, 4, false}; /* no time: no speedup */
    CHECK_EQ(up_scaling_order(r.pt, 3, inputs, r.ord, &err), UP_OK);
    CHECK_EQ(r.ord[0], 1);
    CHECK_EQ(r.ord[1], 2);
    CHECK_EQ(r.ord[2], 0);
    up_scaling_speedups(&r);
    CHECK(r.x[0] == 2 && r.x[1] == 4 && r.x[2] == 8);
    CHECK(r.meas[0] == 4.0 && r.meas[1] == 2.5 && r.meas[2] == 1.5);
    /* T(2) / T(n) * 2 */
    CHECK(r.ts[0] == 3.0 && r.ts[1] == 2.0 && r.ts[2] == 1.0);
    CHECK_NEAR(r.sp[0], 2.0, 1e-12);   /* 3/3*2 */
    CHECK_NEAR(r.sp[1], 3.0, 1e-12);   /* 3/2*2 */
    CHECK_NEAR(r.sp[2], 6.0, 1e-12);   /* 3/1*2 */
    CHECK_NEAR(r.eff[0], 1.0, 1e-12);
    CHECK_NEAR(r.eff[1], 0.75, 1e-12);
    CHECK_NEAR(r.eff[2], 0.75, 1e-12);
    /* the second value: T(2) = 2 */
    CHECK_NEAR(r.sp[3], 2.0, 1e-12);
    CHECK(isnan(r.sp[4]));             /* T(4) = 0 */
    CHECK_NEAR(r.sp[5], 8.0, 1e-12);   /* 2/0.5*2 */
    CHECK_NEAR(r.eff[5], 1.0, 1e-12);
    /* measured: 4/4*2, 4/2.5*2, 4/1.5*2 */
    CHECK_NEAR(r.mspeed[0], 2.0, 1e-12);
    CHECK_NEAR(r.mspeed[1], 3.2, 1e-12);
    CHECK_NEAR(r.mspeed[2], 16.0 / 3, 1e-12);

    r.pt[2].nranks = 8; /* two runs of 8 ranks */
    CHECK_EQ(up_scaling_order(r.pt, 3, inputs, r.ord, &err), UP_EFORMAT);
    CHECK_STR(err.msg, "'run8' and 'run4' both have 8 ranks: scaling takes one run per rank count");
    up_scaling_result_free(&r);
}

/* Traces of 4, 1 and 2 ranks with 4000 ns of work shared out: predicted
 * 100 + 4000/n + 100 ns; speedup 4200 / T(n). */
TEST(scaling_run_on_traces)
{
    char *d4 = one_rank_trace("exp_scale4", 4, 1000), *d1 = one_rank_trace("exp_scale1", 1, 4000),
         *d2 = one_rank_trace("exp_scale2", 2, 2000);
    up_experiment *ex = new_exp();
    up_scaling_result r;
    up_err err = {0};
    seen s;
    if (!ex)
        return;
    memset(&s, 0, sizeof s);
    ex->inputs[ex->ninputs++] = d4;
    ex->inputs[ex->ninputs++] = d1;
    ex->inputs[ex->ninputs++] = d2;
    ex->out = "/nonexistent/out";
    ex->m.compute = UP_COMPUTE_WALL;
    CHECK_EQ(up_experiment_prepare(ex, &err), UP_OK);
    CHECK_EQ(up_simrun_scaling(ex, on_progress, &s, &r, &err), UP_OK);
    CHECK_STR(err.msg, "");
    if (r.ord) {
        CHECK_EQ(r.ord[0], 1);
        CHECK_EQ(r.ord[1], 2);
        CHECK_EQ(r.ord[2], 0);
        CHECK(r.x[0] == 1 && r.x[1] == 2 && r.x[2] == 4);
        CHECK_NEAR(r.ts[0], 4200e-9, 1e-15);
        CHECK_NEAR(r.ts[1], 2200e-9, 1e-15);
        CHECK_NEAR(r.ts[2], 1200e-9, 1e-15);
        CHECK_NEAR(r.sp[1], 4200.0 / 2200, 1e-9);
        CHECK_NEAR(r.sp[2], 3.5, 1e-9);
        CHECK_NEAR(r.eff[2], 0.875, 1e-9);
    }
    CHECK_EQ(s.n, 3);
    CHECK_STR(s.what[0], "");
    up_scaling_result_free(&r);
    free_exp(ex);
    free(d4);
    free(d1);
    free(d2);
}

/* ---- the machine's parameters ------------------------------------------------------ */

TEST(machine_params_as_written)
{
    up_machine m;
    up_machine_param p;
    char *text = NULL, line[256];
    size_t len = 0, i, n = 0;
    FILE *f;
    up_machine_init(&m);
    m.contention = true;
    m.dims[0] = 3, m.dims[1] = 2, m.dims[2] = 2;
    m.ns_per_byte = 0.25;
    CHECK(up_machine_param_at(&m, 0, &p));
    CHECK_STR(p.section, "processor");
    CHECK_STR(p.key, "cpu_ratio");
    CHECK_STR(p.value, "1");
    /* every "key = value" line up_machine_write writes, in its order */
    f = open_memstream(&text, &len);
    CHECK(f && up_machine_write(f, &m) == 0);
    if (!f)
        return;
    fclose(f);
    for (i = 0; up_machine_param_at(&m, i, &p); i++) {
        snprintf(line, sizeof line, "\n%s = %s\n", p.key, p.value);
        CHECK(strstr(text, line) != NULL);
        CHECK(strcmp(p.key, "bandwidth_gbs") != 0);
        if (!strcmp(p.key, "contention"))
            CHECK_STR(p.value, "yes"), n++;
        if (!strcmp(p.key, "dims"))
            CHECK_STR(p.value, "3x2x2"), n++;
        if (!strcmp(p.key, "ns_per_byte"))
            CHECK_STR(p.section, "network"), CHECK_STR(p.value, "0.25"), n++;
        if (!strcmp(p.key, "bcast"))
            CHECK_STR(p.section, "collectives"), CHECK_STR(p.value, "binomial"), n++;
    }
    CHECK_EQ(n, 4);
    /* as many as the lines "key = value" written (not comments) */
    for (n = 0, len = 0; text[len]; len++)
        if ((len == 0 || text[len - 1] == '\n') && text[len] != '#' && text[len] != '[' &&
            text[len] != '\n' && strchr(text + len, '\n') &&
            memchr(text + len, '=', (size_t)(strchr(text + len, '\n') - (text + len))))
            n++;
    CHECK_EQ(i, n);
    free(text);
}
