/*
 * test_run.c - the pipelines of src/run (pipeline.h) against independent
 * paths: compensate's result on a real trace against OTF2's own reader
 * (tests/tread.c) and the library API (t_compensate); the one parameter
 * path's precedence; estimate and report against the analyses called
 * directly; and the parts of validate that need no MPI (statistics over
 * repeats, runs.csv, the launcher's words), with values worked out by hand.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test.h"
#include "tread.h"
#include "tutil.h"
#include "run/pipeline.h"

static bool exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

/* a fresh folder of the test (t_dir's buffer is reused: copied) */
static const char *mkd(const char *name)
{
    static char buf[4][1024];
    static int k;
    char *b = buf[k++ % 4];
    snprintf(b, sizeof buf[0], "%s", t_dir(name));
    mkdir(b, 0777);
    return b;
}

/* a file of the source tree (t_src's buffer is reused: copied) */
static const char *src(const char *rel)
{
    static char buf[4][1024];
    static int k;
    char *b = buf[k++ % 4];
    snprintf(b, sizeof buf[0], "%s", t_src(rel));
    return b;
}

static up_comp_cli cli_o(double ns)
{
    up_comp_cli c;
    up_comp_cli_init(&c);
    up_comp_cli_overhead(&c, ns);
    return c;
}

/* ---- compensate ---- */

TEST(run_compensate_counts)
{
    const char *in = src("tests/data/casita-4_mpi_ls_barr");
    const char *d = mkd("run_compensate_counts");
    char out[512], json[512], ref[512], anchor[600];
    up_run_comp_opts o;
    up_run_comp r;
    up_replay_result want;
    uint64_t *removed = NULL, total = 0;
    up_comp_params p;
    tr_trace tin, tout;
    up_err err = {0};
    size_t i;

    snprintf(out, sizeof out, "%s/out", d);
    snprintf(json, sizeof json, "%s/out.json", d);
    snprintf(ref, sizeof ref, "%s/ref", d);
    up_run_comp_opts_init(&o);
    o.input = in, o.output = out, o.json = json, o.quiet = true;
    o.cli = cli_o(100);
    o.cli.mode_set = true, o.cli.mode = UP_MODE_UPPER;
    CHECK(up_run_compensate(&o, &r, &err) == UP_OK);
    /* nothing at the final names before the commit */
    CHECK(!exists(out));
    CHECK(r.outs && r.o_dir == 0 && r.o_json == 1);
    CHECK(!strcmp(r.source, "--overhead-ns"));
    CHECK(r.params.mode == UP_MODE_UPPER && r.params.overhead_ns[UP_RK_SEND] == 100);

    /* every record, per location, as OTF2's own reader counts them */
    CHECK(tr_load(in, &tin) == 0);
    CHECK_EQ(r.res.nlocs, tin.nlocs);
    for (i = 0; i < tin.nlocs && i < r.res.nlocs; i++) {
        CHECK_EQ(r.res.locs[i].id, tin.locs[i].id);
        CHECK_EQ(r.res.locs[i].records, tin.locs[i].n);
        total += tin.locs[i].n;
    }
    CHECK_EQ(r.res.events, total);
    /* the same compensation through the library API */
    p = t_params(100, UP_MODE_UPPER, UP_COLLECTIVE_INDIVIDUAL);
    CHECK(t_compensate(in, ref, &p, &want, &removed) == UP_OK);
    CHECK_EQ(r.res.start_a, want.start_a);
    CHECK_EQ(r.res.end_a, want.end_a);
    for (i = 0; i < want.nlocs && i < r.res.nlocs; i++) {
        CHECK_EQ(r.removed[i], removed[i]);
        CHECK_EQ(r.res.locs[i].end_a, want.locs[i].end_a);
    }
    CHECK(up_outset_commit(r.outs, &err) == UP_OK);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", out);
    CHECK(exists(anchor));
    CHECK(tr_load(out, &tout) == 0);
    CHECK_EQ(tout.nlocs, tin.nlocs);
    for (i = 0; i < tout.nlocs && i < tin.nlocs; i++)
        CHECK_EQ(tout.locs[i].n, tin.locs[i].n);
    tr_free(&tout);
    tr_free(&tin);
    up_free(removed);
    up_replay_result_free(&want);
    up_run_comp_free(&r);
}

/* freed without a commit: nothing left; an existing output without force */
TEST(run_compensate_outputs)
{
    const char *in = src("tests/data/pipit-ping-pong");
    const char *d = mkd("run_compensate_outputs");
    char out[512];
    up_run_comp_opts o;
    up_run_comp r;
    up_err err = {0};
    snprintf(out, sizeof out, "%s/out", d);
    up_run_comp_opts_init(&o);
    o.input = in, o.output = out, o.quiet = true;
    CHECK(up_run_compensate(&o, &r, &err) == UP_OK);
    CHECK(!r.params.overhead_set);
    CHECK(!strcmp(r.source, "none given: O = 0"));
    up_run_comp_free(&r);
    CHECK(!exists(out));
    mkdir(out, 0777);
    CHECK(up_run_compensate(&o, &r, &err) == UP_EEXIST);
    up_run_comp_free(&r);
    /* the output inside the input: a usage error */
    snprintf(out, sizeof out, "%s/traces/x", in);
    o.output = out;
    CHECK(up_run_compensate(&o, &r, &err) == UP_EUSAGE);
    up_run_comp_free(&r);
}

/* archive < --calibration < command line; the mode's end of the range */
TEST(run_params_precedence)
{
    const char *d = mkd("run_params_precedence");
    char calib[512];
    up_trace *t = NULL;
    up_comp_params p;
    char source[UP_RUN_SOURCE_MAX];
    up_comp_cli c;
    up_err err = {0};
    FILE *f;
    snprintf(calib, sizeof calib, "%s/c.ini", d);
    CHECK((f = fopen(calib, "w")) != NULL);
    fputs("[overhead]\nall = 50\nsend = 70\n[overhead_low]\nenter = 40\n[overhead_high]\nenter = 60\n", f);
    fclose(f);
    CHECK(up_trace_open(src("tests/data/pipit-ping-pong"), &t, &err) == UP_OK);

    CHECK(up_run_params(t, NULL, NULL, &p, source, &err) == UP_OK);
    CHECK(!p.overhead_set && !strcmp(source, "none given: O = 0"));

    CHECK(up_run_params(t, calib, NULL, &p, source, &err) == UP_OK);
    CHECK(!strcmp(source, calib));
    CHECK(p.overhead_ns[UP_RK_ENTER] == 50 && p.overhead_ns[UP_RK_SEND] == 70);
    CHECK(p.overhead_end == 0); /* network mode: the nominal O */

    up_comp_cli_init(&c);
    c.mode_set = true, c.mode = UP_MODE_LOWER; /* lower removes the high end */
    CHECK(up_run_params(t, calib, &c, &p, source, &err) == UP_OK);
    CHECK(p.overhead_end == 1 && p.overhead_ns[UP_RK_ENTER] == 60 && p.overhead_ns[UP_RK_SEND] == 70);
    c.mode = UP_MODE_UPPER;
    CHECK(up_run_params(t, calib, &c, &p, source, &err) == UP_OK);
    CHECK(p.overhead_end == -1 && p.overhead_ns[UP_RK_ENTER] == 40 && p.overhead_ns[UP_RK_SEND] == 70);

    c = cli_o(7); /* O on the command line wins and drops the range */
    c.mode_set = true, c.mode = UP_MODE_LOWER;
    CHECK(up_run_params(t, calib, &c, &p, source, &err) == UP_OK);
    CHECK(p.overhead_end == 0 && p.overhead_ns[UP_RK_ENTER] == 7 && p.overhead_ns[UP_RK_SEND] == 7);
    {
        char want[600];
        snprintf(want, sizeof want, "%s, --overhead-ns", calib);
        CHECK(!strcmp(source, want));
    }
    up_trace_close(t);
}

/* ---- estimate and report ---- */

TEST(run_estimate_compare)
{
    const char *in = src("tests/data/casita-10_scorep_mpi_tags");
    up_run_est_opts o;
    up_run_est r;
    up_estimate want;
    up_replay_result rep;
    up_comp_params p = t_params(150, UP_MODE_NETWORK, UP_COLLECTIVE_INDIVIDUAL);
    up_trace *t = NULL;
    up_err err = {0};
    unsigned k;
    up_run_est_opts_init(&o);
    o.input = in, o.compare = true;
    o.cli = cli_o(150);
    CHECK(up_run_estimate(&o, &r, &err) == UP_OK);
    CHECK(r.have_replay && !strcmp(r.source, "--overhead-ns"));
    /* the models called directly */
    memset(&want, 0, sizeof want);
    CHECK(up_trace_open(in, &t, &err) == UP_OK);
    CHECK(up_estimate_run(t, &p, &want, &err) == UP_OK);
    CHECK_EQ(r.est.records, want.records);
    for (k = 0; k < UP_ESTIMATE_COUNT; k++)
        CHECK(r.est.model[k].approximated_s == want.model[k].approximated_s);
    /* the replay: compensate --mode lower through the library API */
    p.mode = UP_MODE_LOWER;
    CHECK(t_compensate(in, t_dir("run_estimate_compare"), &p, &rep, NULL) == UP_OK);
    CHECK_EQ(r.replay.res.end_a, rep.end_a);
    CHECK_EQ(r.replay.res.start_a, rep.start_a);
    {
        up_estimate_report e = up_run_est_report(&r, in);
        CHECK_NEAR(up_estimate_replay_s(&e), t_window_s(&rep, 1), 1e-12);
    }
    up_replay_result_free(&rep);
    up_estimate_free(&want);
    up_trace_close(t);
    up_run_est_free(&r);
}

TEST(run_report_profiles)
{
    const char *in = src("tests/data/casita-4_mpi_ls_barr");
    up_run_rep_opts o;
    up_run_rep r;
    up_profile want;
    up_trace *t = NULL;
    up_err err = {0};
    size_t i;
    up_run_rep_opts_init(&o);
    o.path_a = in, o.path_b = in, o.quiet = true;
    CHECK(up_run_report(&o, &r, &err) == UP_OK);
    CHECK(r.have_b && !r.have_est); /* a Score-P trace: no O anywhere */
    memset(&want, 0, sizeof want);
    CHECK(up_trace_open(in, &t, &err) == UP_OK);
    CHECK(up_profile_run(t, NULL, &want, &err) == UP_OK);
    CHECK_EQ(r.a.events, want.events);
    CHECK_EQ(r.a.nlocs, want.nlocs);
    CHECK_EQ(r.a.ncpaths, want.ncpaths);
    CHECK_EQ(r.b.events, want.events);
    CHECK_EQ(r.a.end - r.a.start, want.end - want.start);
    for (i = 0; i < UP_WS_COUNT; i++)
        CHECK_EQ(up_profile_wait_total(&r.a, (unsigned)i), up_profile_wait_total(&want, (unsigned)i));
    up_profile_free(&want);
    up_trace_close(t);
    up_run_rep_free(&r);
    /* with O: the estimates of run a */
    o.path_b = NULL;
    o.cli = cli_o(100);
    CHECK(up_run_report(&o, &r, &err) == UP_OK);
    CHECK(!r.have_b && r.have_est && r.est.records > 0);
    up_run_rep_free(&r);
}

/* ---- validate, without MPI ---- */

TEST(run_validate_spread)
{
    double a[] = {3, 1, 2}, b[] = {4, 1, 3, 2}, c[] = {0.5}, s[3];
    up_run_val_spread(a, 3, s);
    CHECK(s[0] == 1 && s[1] == 2 && s[2] == 3);
    up_run_val_spread(b, 4, s); /* even: the mean of the middle two */
    CHECK(s[0] == 1 && s[1] == 2.5 && s[2] == 4);
    CHECK(b[0] == 4); /* the runs keep their order */
    up_run_val_spread(c, 1, s);
    CHECK(s[0] == 0.5 && s[1] == 0.5 && s[2] == 0.5);
}

TEST(run_validate_order_and_paired)
{
    /* every round a permutation of the 4 kinds; the same seed the same
     * orders; over 200 rounds each kind comes first in some round and last
     * in some round (a fixed order would not); another seed, other orders */
    unsigned char o[5], o2[5];
    unsigned seen_first[4] = {0}, seen_last[4] = {0}, k, j, differ = 0;
    up_run_val_row r;
    double d[3];
    for (k = 0; k < 200; k++) {
        unsigned mask = 0;
        up_run_val_order(1, 0, k, 4, o);
        up_run_val_order(1, 0, k, 4, o2);
        CHECK(!memcmp(o, o2, 4));
        for (j = 0; j < 4; j++)
            mask |= 1u << o[j];
        CHECK_EQ(mask, 15);
        seen_first[o[0]]++, seen_last[o[3]]++;
        up_run_val_order(2, 0, k, 4, o2);
        differ += memcmp(o, o2, 4) != 0;
    }
    for (j = 0; j < 4; j++)
        CHECK(seen_first[j] > 20 && seen_last[j] > 20);
    CHECK(differ > 100);
    /* the paired dilation, worked by hand: rounds (T, Tm) = (1, 1.1),
     * (2, 1.8), (1, 1.05): +10%, -10%, +5% -> min -10%, median +5%, max +10% */
    memset(&r, 0, sizeof r);
    r.T[0] = 1, r.Tm[0] = 1.1, r.T[1] = 2, r.Tm[1] = 1.8, r.T[2] = 1, r.Tm[2] = 1.05;
    up_run_val_paired(&r, 3, d);
    CHECK(fabs(d[0] + 0.1) < 1e-12 && fabs(d[1] - 0.05) < 1e-12 && fabs(d[2] - 0.1) < 1e-12);
}

TEST(run_validate_inside)
{
    up_run_val_row r;
    double t[3] = {1.0, 1.25, 1.5}; /* s = 0.5 */
    memset(&r, 0, sizeof r);
    r.Ta[0] = 1.5, r.Ta[1] = 2.0; /* [1.0, 2.5] holds the median 1.25 */
    CHECK(up_run_val_inside(&r, t));
    r.Ta[0] = 1.8; /* [1.3, 2.5] does not */
    CHECK(!up_run_val_inside(&r, t));
    r.Ta[0] = 0.5, r.Ta[1] = 0.75; /* [0, 1.25]: the edge counts */
    CHECK(up_run_val_inside(&r, t));
}

static char *file_text(const char *path)
{
    static char buf[4096];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = 0;
    if (f)
        fclose(f);
    return buf;
}

static int words(char **argv, const char *want)
{
    char got[1024] = "";
    size_t n = 0;
    for (int i = 0; argv[i]; i++)
        n += (size_t)snprintf(got + n, sizeof got - n, "%s%s", i ? " " : "", argv[i]);
    if (strcmp(got, want))
        fprintf(stderr, "  got '%s', want '%s'\n", got, want);
    return !strcmp(got, want);
}

TEST(run_validate_csv)
{
    const char *d = mkd("run_validate_csv");
    char path[512];
    FILE *f;
    snprintf(path, sizeof path, "%s/runs.csv", d);
    CHECK((f = fopen(path, "w")) != NULL);
    up_run_val_csv_header(f);
    up_run_val_csv_untraced(f, 2, 0, 0, 1.5, "none");
    up_run_val_csv_traced(f, 2, 0, 1000, 0, 2.25, 1.125, "none");
    up_run_val_csv_traced(f, 4, 0, 0, 2, 0.1234567891, 0.0000000004, "libgomp");
    up_run_val_csv_untraced(f, 1, 2, 1, 0.5, "libomp"); /* --threads 2 */
    up_run_val_csv_traced(f, 1, 16, 0, 0, 0.75, 0.625, "libomp");
    fclose(f);
    CHECK(!strcmp(file_text(path), "np,extra_ns,run,kind,window_s,Ta_network_s,threads,openmp\n"
                                   "2,,1,uninstrumented,1.500000000,,,none\n"
                                   "2,1000,1,traced,2.250000000,1.125000000,,none\n"
                                   "4,0,3,traced,0.123456789,0.000000000,,libgomp\n"
                                   "1,,2,uninstrumented,0.500000000,,2,libomp\n"
                                   "1,0,1,traced,0.750000000,0.625000000,16,libomp\n"));
    /* the shim's time file: the last window_s line; none: NAN */
    snprintf(path, sizeof path, "%s/t.time", d);
    CHECK((f = fopen(path, "w")) != NULL);
    fputs("ranks=2\nwindow_s=0.25\nwindow_s=0.75\n", f);
    fclose(f);
    CHECK(up_run_val_read_window(path) == 0.75);
    CHECK(!strcmp(up_run_val_read_openmp(path), "")); /* an older shim names none */
    snprintf(path, sizeof path, "%s/none.time", d);
    CHECK(isnan(up_run_val_read_window(path)));
    CHECK(!strcmp(up_run_val_read_openmp(path), ""));
}

/* The OpenMP runtime a time file names, by the library's file name: LLVM's
 * and Intel's runtimes are libomp, GCC's libgomp; a link's target is what
 * the shim writes, so libgomp.so.1 seen there is GCC's */
TEST(run_validate_read_openmp)
{
    static const struct {
        const char *line, *want;
    } c[] = {
        {"openmp=none\n", "none"},
        {"openmp=/usr/lib/llvm-14/lib/libomp.so.5\n", "libomp"},
        {"openmp=/opt/intel/lib/libiomp5.so\n", "libomp"},
        {"openmp=/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0\n", "libgomp"},
        {"openmp=/usr/lib/libompx.so\n", "other"},
        {"openmp=libgomp.so.1", "libgomp"}, /* no newline, no folder */
        {"openmp_x=none\n", ""},            /* another key */
    };
    const char *d = mkd("run_validate_read_openmp");
    char path[512];
    size_t i;
    FILE *f;
    snprintf(path, sizeof path, "%s/t.time", d);
    for (i = 0; i < sizeof c / sizeof c[0]; i++) {
        CHECK((f = fopen(path, "w")) != NULL);
        fprintf(f, "# unperturb-time 1\nranks=1\nwindow_s=0.5\nrank0_s=0.5\n%s", c[i].line);
        fclose(f);
        if (strcmp(up_run_val_read_openmp(path), c[i].want))
            t_fail(__FILE__, __LINE__, "'%s': '%s', want '%s'", c[i].line, up_run_val_read_openmp(path), c[i].want);
        CHECK(up_run_val_read_window(path) == 0.5);
    }
}

/* Configurations named: folders and text, with and without MPI and --threads */
TEST(run_validate_cfg_names)
{
    static const struct {
        bool mpi;
        unsigned np, threads;
        const char *name, *text;
    } c[] = {
        {true, 2, 0, "np2", "np 2"},
        {true, 1, 2, "np1-t2", "np 1, 2 threads"},
        {true, 2, 1, "np2-t1", "np 2, 1 thread"},
        {false, 1, 4, "t4", "4 threads"},
        {false, 1, 1, "t1", "1 thread"},
        {false, 1, 0, "alone", "alone"},
    };
    char name[48], text[48];
    size_t i;
    for (i = 0; i < sizeof c / sizeof c[0]; i++) {
        up_run_val_cfg_name(c[i].mpi, c[i].np, c[i].threads, name, sizeof name);
        up_run_val_cfg_text(c[i].mpi, c[i].np, c[i].threads, text, sizeof text);
        if (strcmp(name, c[i].name) || strcmp(text, c[i].text))
            t_fail(__FILE__, __LINE__, "case %zu: '%s', '%s'; want '%s', '%s'", i, name, text, c[i].name,
                   c[i].text);
    }
}

/* {threads} in the program's words: every occurrence, inside a word too;
 * without --threads the words as given; too small a store or word list */
TEST(run_validate_subst)
{
    char *prog[] = {"./app", "-t", "{threads}", "--x={threads}x{threads}", "{thread}", NULL};
    char *out[8], store[64], tiny[8];
    CHECK_EQ(up_run_val_subst(prog, 12, out, 8, store, sizeof store), 5);
    CHECK(words(out, "./app -t 12 --x=12x12 {thread}"));
    CHECK(out[0] == prog[0] && out[4] == prog[4]); /* words without it: the same */
    CHECK_EQ(up_run_val_subst(prog, 0, out, 8, store, sizeof store), 5);
    CHECK(words(out, "./app -t {threads} --x={threads}x{threads} {thread}"));
    /* "12\0" fits in 8 bytes, "--x=12x12\0" (10) does not */
    CHECK_EQ(up_run_val_subst(prog, 12, out, 8, tiny, sizeof tiny), -1);
    CHECK_EQ(up_run_val_subst(prog, 12, out, 5, store, sizeof store), -1); /* 5 words + NULL */
    CHECK_EQ(up_run_val_subst(prog, 12, out, 6, store, sizeof store), 5);
}

/* Pinning without MPI: the first n CPUs validate may use */
TEST(run_validate_cpus)
{
    cpu_set_t a, out;
    CPU_ZERO(&a);
    CPU_SET(1, &a), CPU_SET(3, &a), CPU_SET(4, &a);
    CHECK(up_run_val_cpus(&a, 2, &out));
    CHECK_EQ(CPU_COUNT(&out), 2);
    CHECK(CPU_ISSET(1, &out) && CPU_ISSET(3, &out) && !CPU_ISSET(4, &out));
    CHECK(up_run_val_cpus(&a, 3, &out));
    CHECK_EQ(CPU_COUNT(&out), 3);
    CHECK(!up_run_val_cpus(&a, 4, &out)); /* more threads than CPUs: not pinned */
    CHECK_EQ(CPU_COUNT(&out), 0);
    CHECK(!up_run_val_cpus(&a, 0, &out)); /* no --threads */
    CHECK_EQ(CPU_COUNT(&out), 0);
}

/* More ranks x threads than cores */
TEST(run_validate_oversubscribed)
{
    up_run_val v;
    up_run_val_row r;
    memset(&v, 0, sizeof v);
    memset(&r, 0, sizeof r);
    v.cores = 2;
    r.np = 2, r.threads = 0;
    CHECK(!up_run_val_oversubscribed(&v, &r));
    r.threads = 1;
    CHECK(!up_run_val_oversubscribed(&v, &r));
    r.threads = 2; /* 2 x 2 on 2 cores */
    CHECK(up_run_val_oversubscribed(&v, &r));
    r.np = 1;
    CHECK(!up_run_val_oversubscribed(&v, &r));
    r.np = 3, r.threads = 0;
    CHECK(up_run_val_oversubscribed(&v, &r));
}

/* The words that launch a run: mpirun's flags as root and past the cores,
 * not for another launcher, not repeated; with threads each rank on cores
 * of its own while ranks x threads fit (1 x 2 on 2 cores, 2 x 2 on 4), past
 * them bound nowhere (2 x 2 on 2); 1 thread, or a binding given (--bind-to
 * core), nothing added */
TEST(run_validate_argv)
{
    static char *mpirun[] = {"/usr/bin/mpirun", "--bind-to", "core"}, *srun[] = {"srun"},
                *over[] = {"mpiexec", "--oversubscribe", "--allow-run-as-root"}, *plain[] = {"mpirun"};
    static const struct {
        char **launcher;
        int nl;
        unsigned np, threads, cores;
        bool root;
        const char *want;
    } c[] = {
        {mpirun, 3, 4, 0, 2, true, "/usr/bin/mpirun --bind-to core --allow-run-as-root --oversubscribe -np 4 ./app a b"},
        {mpirun, 3, 2, 0, 2, false, "/usr/bin/mpirun --bind-to core -np 2 ./app a b"},
        {srun, 1, 8, 4, 2, true, "srun -np 8 ./app a b"},
        {over, 3, 8, 0, 2, true, "mpiexec --oversubscribe --allow-run-as-root -np 8 ./app a b"},
        {plain, 1, 1, 2, 2, false, "mpirun --map-by slot:PE=2 -np 1 ./app a b"},
        {plain, 1, 2, 2, 4, false, "mpirun --map-by slot:PE=2 -np 2 ./app a b"},
        {plain, 1, 2, 2, 2, false, "mpirun --bind-to none -np 2 ./app a b"},
        {plain, 1, 2, 1, 2, false, "mpirun -np 2 ./app a b"},
        {mpirun, 3, 1, 2, 2, false, "/usr/bin/mpirun --bind-to core -np 1 ./app a b"},
    };
    char *prog[] = {"./app", "a b", NULL}, *argv[UP_VAL_MAXARGV], np[16], pe[16];
    size_t i;
    for (i = 0; i < sizeof c / sizeof c[0]; i++) {
        int n = up_run_val_launch_argv(c[i].launcher, c[i].nl, prog, c[i].np, c[i].threads, c[i].cores,
                                       c[i].root, argv, np, pe, sizeof np);
        const char *w;
        int spaces = 0;
        CHECK(words(argv, c[i].want));
        for (w = c[i].want; *w; w++) /* the words but for "a b", one word */
            spaces += *w == ' ';
        CHECK_EQ(n, spaces);
    }
}

/* a table of counts: names[i] entered n[i] times */
static up_counts *counts(const char *const *names, const uint64_t *n, size_t k)
{
    up_counts *c = up_calloc(1, sizeof *c);
    size_t i;
    c->v = up_calloc(k, sizeof *c->v);
    c->n = k;
    for (i = 0; i < k; i++) {
        c->v[i].name = up_strdup(names[i]);
        c->v[i].n = n[i];
        c->total += n[i];
    }
    return c;
}

TEST(run_validate_counts)
{
    static const char *const names[] = {"MPI_Recv", "MPI_Send"};
    static const uint64_t ref[] = {1000, 1000}, same[] = {1010, 990}, more[] = {1011, 1000},
                          less[] = {1000, 900};
    up_run_val_row rows[2];
    unsigned long compared = 0;
    up_err err = {0};
    int shown;
    memset(rows, 0, sizeof rows);
    rows[0].extra = 0, rows[1].extra = 1000;
    /* repetition 0: the reference (row 0, run 1) and row 1's first run */
    rows[0].cnt[0] = counts(names, ref, 2);
    rows[1].cnt[0] = counts(names, same, 2); /* exactly 1%: the same */
    CHECK(up_run_val_compare_counts(rows, 2, 0, 0, &compared, &err) == UP_OK);
    CHECK_EQ(compared, 1);
    CHECK(rows[0].cnt[0] != NULL && rows[1].cnt[0] == NULL);
    CHECK_EQ(rows[1].ndiff[0], 0);
    CHECK_EQ(rows[1].ref_extra, 0);
    /* repetition 1: 1.1% more MPI_Recv in row 0, 10% fewer MPI_Send in row 1 */
    rows[0].cnt[1] = counts(names, more, 2);
    rows[1].cnt[1] = counts(names, less, 2);
    CHECK(up_run_val_compare_counts(rows, 2, 0, 1, &compared, &err) == UP_OK);
    CHECK_EQ(compared, 3);
    CHECK_EQ(rows[0].ndiff[1], 1);
    CHECK(!strcmp(rows[0].diff[1][0].name, "MPI_Recv") && rows[0].diff[1][0].n == 1011);
    CHECK_EQ(rows[1].ndiff[1], 1);
    CHECK_NEAR(rows[1].diff[1][0].rel, -0.1, 1e-12);
    CHECK_EQ(up_run_val_differing(&rows[0], 2, &shown), 1);
    CHECK_EQ(shown, 1);
    rows[1].ndiff[0] = 0;
    CHECK_EQ(up_run_val_differing(&rows[1], 2, &shown), 1);
    CHECK_EQ(shown, 1);
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 2; k++) {
            up_counts_free(rows[i].cnt[k]);
            up_free(rows[i].diff[k]);
        }
}
