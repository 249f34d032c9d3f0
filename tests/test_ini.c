/*
 * test_ini.c - the one INI syntax of every file the tools read (issue 31,
 * item 7; docs/cli.md, "Values and input files"): a key on a section's
 * line, a lone CR, `key: value`, a value without a key and a section line
 * with text after it are errors naming the file and the line, in
 * calibration files, machine files, experiment files and the calibration an
 * archive stores (the error names the archive); unknown keys and keys set
 * twice are errors in every section of a calibration; what the tracer and
 * the merge write still reads.  And the numbers of item 8: sweeps (on the
 * command line and in experiment files) and the timing shim's window are
 * decimal, finite and in range, through up_num_parse.
 *
 * Place in the data flow: the readers of src/model (calibration.c,
 * machine.c) and src/run (experiment.c, sweep.c, validate.c), which read
 * their lines through src/util/text.c's up_lines_read.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "model/compensate.h"
#include "model/machine.h"
#include "run/pipeline.h"
#include "run/simrun.h"
#include "tracegen/tracegen.h"

static void want_msg(const char *file, int line, const char *kind, up_status st, const up_err *err,
                     const char *text, const char *want)
{
    if (st != UP_EFORMAT)
        t_fail(file, line, "%s: status %d, want UP_EFORMAT, for:\n%s", kind, (int)st, text);
    else if (strcmp(err->msg, want))
        t_fail(file, line, "%s: message '%s', wanted '%s'", kind, err->msg, want);
}

/* The calibration text, as "c.ini", fails with exactly `want`. */
static void calib_err_at(const char *file, int line, const char *text, const char *want)
{
    up_comp_params p;
    up_err err = {0};
    up_comp_params_init(&p);
    want_msg(file, line, "calibration", up_calibration_parse(text, "c.ini", &p, &err), &err, text, want);
}
#define CALIB_ERR(text, want) calib_err_at(__FILE__, __LINE__, text, want)

/* The machine text, as "m.ini", fails with exactly `want`. */
static void machine_err_at(const char *file, int line, const char *text, const char *want)
{
    up_machine m;
    up_err err = {0};
    up_machine_init(&m);
    want_msg(file, line, "machine", up_machine_parse(text, "m.ini", &m, &err), &err, text, want);
}
#define MACHINE_ERR(text, want) machine_err_at(__FILE__, __LINE__, text, want)

/* The experiment text, as "/e/x.ini", fails with exactly `want`. */
static void experiment_err_at(const char *file, int line, const char *text, const char *want)
{
    up_experiment *ex = malloc(sizeof *ex);
    up_err err = {0};
    if (!ex)
        return;
    up_experiment_init(ex);
    want_msg(file, line, "experiment", up_experiment_parse(ex, text, "/e/x.ini", &err), &err, text, want);
    up_experiment_free(ex);
    free(ex);
}
#define EXPERIMENT_ERR(text, want) experiment_err_at(__FILE__, __LINE__, text, want)

#define NOT_INI "not an INI line (expected 'key = value', a [section] or a comment)"
#define AFTER(text, sec) "'" text "' after [" sec "]: a section header ends the line (a key goes on a line of its own)"
#define LONE_CR "a carriage return (CR) inside the line: lines end in LF or CR LF, and a lone CR is not a line end"

/* A key on the section's line was dropped by inih: `[network] latency_ns = 5`
 * simulated with the default latency, `[overhead] all = 500` compensated
 * with O = 0 and only a warning. */
TEST(ini_key_on_a_section_line)
{
    MACHINE_ERR("[network] latency_ns = 5\n", "m.ini:1: " AFTER("latency_ns = 5", "network"));
    MACHINE_ERR("# a machine\n[processor]\ncpu_ratio = 2\n[network]\tlatency_ns=5 ; a comment\n",
                "m.ini:4: " AFTER("latency_ns=5 ; a comment", "network"));
    MACHINE_ERR("[network] # not a comment after a section\n",
                "m.ini:1: " AFTER("# not a comment after a section", "network"));
    CALIB_ERR("[overhead] all = 500\n", "c.ini:1: " AFTER("all = 500", "overhead"));
    CALIB_ERR("[overhead]\nenter = 5\n[network]] latency_ns = 3\n", "c.ini:3: " AFTER("] latency_ns = 3", "network"));
    EXPERIMENT_ERR("[experiment] input = /a\n", "/e/x.ini:1: " AFTER("input = /a", "experiment"));
    EXPERIMENT_ERR("[experiment]\ninput = /a\n[network] latency_ns = 5\n",
                   "/e/x.ini:3: " AFTER("latency_ns = 5", "network"));
    /* a long one is cut in the message */
    {
        char text[128], want[256];
        snprintf(text, sizeof text, "[network] %070d\n", 0);
        snprintf(want, sizeof want, "m.ini:1: '%060d...' after [network]: a section header ends the line "
                 "(a key goes on a line of its own)", 0);
        MACHINE_ERR(text, want);
    }
    /* what may follow: blanks and a ';' comment */
    {
        up_machine m;
        up_comp_params p;
        up_err err = {0};
        up_machine_init(&m);
        CHECK_EQ(up_machine_parse("[network]   ; the network\nlatency_ns = 5\n[barrier];\n", "m.ini", &m, &err),
                 UP_OK);
        CHECK_NEAR(m.latency_ns, 5, 0);
        up_comp_params_init(&p);
        CHECK_EQ(up_calibration_parse("[overhead] \t\nall = 500\n", "c.ini", &p, &err), UP_OK);
        CHECK_NEAR(p.overhead_ns[UP_RK_SEND], 500, 0);
    }
}

/* A file with CR line ends only was one line to the reader: a machine file
 * that set nothing, silently.  A lone CR is an error naming its line, also
 * when the text is longer than a line may be (it is not "a long line"). */
TEST(ini_lone_cr_is_an_error)
{
    char big[1024];
    size_t n = 0;
    MACHINE_ERR("[network]\rlatency_ns = 5\r", "m.ini:1: " LONE_CR);
    MACHINE_ERR("; machine\r\n[network]\r\nlatency_ns = 5\rper_hop_ns = 3\r\n", "m.ini:3: " LONE_CR);
    CALIB_ERR("[overhead]\rall = 500\r", "c.ini:1: " LONE_CR);
    EXPERIMENT_ERR("[experiment]\rinput = /a\r", "/e/x.ini:1: " LONE_CR);
    EXPERIMENT_ERR("[experiment]\ninput = /a\n[network]\rlatency_ns = 5\r", "/e/x.ini:3: " LONE_CR);
    n += (size_t)snprintf(big + n, sizeof big - n, "; a machine file from an old Mac\r[network]\r");
    while (n < 600)
        n += (size_t)snprintf(big + n, sizeof big - n, "latency_ns = 5\r");
    MACHINE_ERR(big, "m.ini:1: " LONE_CR);
    /* CR LF, and a CR at the very end, are line ends */
    {
        up_machine m;
        up_err err = {0};
        up_machine_init(&m);
        CHECK_EQ(up_machine_parse("[network]\r\nlatency_ns = 7\r\nper_hop_ns = 3\r", "m.ini", &m, &err), UP_OK);
        CHECK_NEAR(m.latency_ns, 7, 0);
        CHECK_NEAR(m.per_hop_ns, 3, 0);
    }
}

/* Lines that are none of blank, comment, [section] and key = value. */
TEST(ini_lines_that_are_not_ini)
{
    MACHINE_ERR("[network]\nlatency_ns: 5\n", "m.ini:2: " NOT_INI);
    CALIB_ERR("[overhead]\nall: 500\n", "c.ini:2: " NOT_INI);
    EXPERIMENT_ERR("[experiment]\ninput: /a\n", "/e/x.ini:2: " NOT_INI);
    MACHINE_ERR("[network]\n = 5\n", "m.ini:2: not an INI line (a value without a key)");
    CALIB_ERR("[info]\n= node17\n", "c.ini:2: not an INI line (a value without a key)");
    EXPERIMENT_ERR("[experiment]\n= /a\n", "/e/x.ini:2: not an INI line (a value without a key)");
    CALIB_ERR("[overhead\nall = 5\n", "c.ini:1: " NOT_INI);
    EXPERIMENT_ERR("[experiment]\ninput = /a\nthis is not ini\n", "/e/x.ini:3: " NOT_INI);
    /* in an experiment file, the first error wins wherever it is: a machine
     * line before an [experiment] error, or before "no [experiment]" */
    EXPERIMENT_ERR("[network]\nlatency_ns: 5\n[experiment]\nfoo = 1\n", "/e/x.ini:2: " NOT_INI);
    EXPERIMENT_ERR("[experiment]\ninput = /a\n[network]\nlatency_ns: 5\n[experiment]\nfoo = 1\n",
                   "/e/x.ini:4: " NOT_INI);
    EXPERIMENT_ERR("[experiment]\ninput = /a\nfoo = 1\n[network]\nlatency_ns: 5\n",
                   "/e/x.ini:3: unknown key 'foo' in [experiment] (expected input, sweep, output, json, "
                   "calibration, created, created_by)");
    /* a form feed or vertical tab before a key was inih's continuation of
     * the previous value: now indentation like any other */
    {
        up_comp_params p;
        up_err err = {0};
        up_comp_params_init(&p);
        CHECK_EQ(up_calibration_parse("[overhead]\nenter = 5\n\vleave = 6\n\f send = 7\n", "c.ini", &p, &err),
                 UP_OK);
        CHECK_NEAR(p.overhead_ns[UP_RK_ENTER], 5, 0);
        CHECK_NEAR(p.overhead_ns[UP_RK_LEAVE], 6, 0);
        CHECK_NEAR(p.overhead_ns[UP_RK_SEND], 7, 0);
    }
}

/* Every section of a calibration has its keys; each is set once, as in
 * machine files; an unknown section is an error even without keys. */
TEST(ini_calibration_keys_known_and_once)
{
    CALIB_ERR("[overhead]\nall = 500\nall = 600\n", "c.ini:3: [overhead] all is set twice (first at line 2)");
    CALIB_ERR("[overhead]\nenter = 5\n[network]\nlatency_ns = 1\n[overhead]\nenter = 6\n",
              "c.ini:6: [overhead] enter is set twice (first at line 2)");
    CALIB_ERR("[overhead_low]\nsend = 1\nsend = 2\n", "c.ini:3: [overhead_low] send is set twice (first at line 2)");
    CALIB_ERR("[overhead_high]\nrecv = 1\n\nrecv = 2\n", "c.ini:4: [overhead_high] recv is set twice (first at line 2)");
    CALIB_ERR("[network]\nlatency_ns = 1\nlatency_ns = 2\n", "c.ini:3: [network] latency_ns is set twice (first at line 2)");
    CALIB_ERR("[network]\nsend_overhead_ns = 1\nsend_overhead_ns = 2\n",
              "c.ini:3: [network] send_overhead_ns is set twice (first at line 2)");
    CALIB_ERR("[copy]\n64 = 1\n4096 = 0.5\n64 = 2\n", "c.ini:4: [copy] size 64 is set twice (first at line 2)");
    CALIB_ERR("[copy]\nns_per_byte = 1\nns_per_byte = 2\n", "c.ini:3: [copy] ns_per_byte is set twice (first at line 2)");
    CALIB_ERR("[network_by_size]\n0 = 300\n64 = 1\n64 = 2\n",
              "c.ini:4: [network_by_size] size 64 is set twice (first at line 3)");
    CALIB_ERR("[overhead_by_location]\n7 = 1\n8 = 1\n007 = 2\n",
              "c.ini:4: [overhead_by_location] location 7 is set twice (first at line 2)");
    CALIB_ERR("[info]\nhost = a\nhost = b\n", "c.ini:3: [info] host is set twice (first at line 2)");
    /* [info] is the tracer's provenance: its keys, not anything (a key
     * written there by mistake was dropped) */
    CALIB_ERR("[info]\nhost = a\nall = 500\n",
              "c.ini:3: [info] unknown key 'all' (expected host, date, mode, ranks or extra_ns)");
    CALIB_ERR("[unperturb]\nversion = 1\n", "c.ini:1: unknown section [unperturb] (expected [overhead], "
              "[overhead_low], [overhead_high], [overhead_by_location], [copy], [network], [network_by_size] or [info])");
    CALIB_ERR("[overhead]\nall = 5\n[overhed]\n", "c.ini:3: unknown section [overhed] (expected [overhead], "
              "[overhead_low], [overhead_high], [overhead_by_location], [copy], [network], [network_by_size] or [info])");
    CALIB_ERR("[overhead_by_location]\n18446744073709551616 = 1\n",
              "c.ini:2: [overhead_by_location] unknown key '18446744073709551616' (expected a location id, a whole "
              "number between 0 and 2^64 - 1)");
    CALIB_ERR("[overhead_by_location]\n+7 = 1\n", "c.ini:2: [overhead_by_location] unknown key '+7' (expected a "
              "location id, a whole number between 0 and 2^64 - 1)");
    /* the experiment's provenance is once too */
    EXPERIMENT_ERR("[experiment]\ncreated = now\ninput = /a\ncreated = then\n",
                   "/e/x.ini:4: 'created' given twice (first at line 2)");
}

/* What the tracer writes (src/tracer/calib.c, both calibrations) with the
 * merge's [overhead_by_location] (src/trace/merge.c) reads without error. */
TEST(ini_what_the_tracer_writes_reads)
{
    static const char text[] =
        "; unperturb calibration (docs/calibration.md)\n[info]\n"
        "host = node17.example\ndate = 2026-11-21T10:00:00\nmode = thorough\nranks = 2\nextra_ns = 0\n"
        "[overhead]\n; ns per record, min over trials and ranks (includes extra_ns)\n"
        "enter = 31.5\nleave = 30.1\nsend = 60.0\nrecv = 58.2\ncoll_begin = 40.0\ncoll_end = 41.0\n"
        "other = 35.0\nmetric = 90.0\nfn_enter = 20.0\nfn_leave = 19.0\npoll_enter = 22.0\npoll_leave = 21.0\n"
        "[overhead_low]\n; the same, each record after work it overlaps: the upper bound's O\n"
        "enter = 25.0\nleave = 25.0\nsend = 50.0\nrecv = 50.0\ncoll_begin = 30.0\ncoll_end = 30.0\n"
        "other = 30.0\nmetric = 80.0\nfn_enter = 15.0\nfn_leave = 15.0\npoll_enter = 20.0\npoll_leave = 20.0\n"
        "[overhead_high]\n; the same, each record after work that evicted its data: the lower bound's O\n"
        "enter = 80.0\nleave = 80.0\nsend = 150.0\nrecv = 150.0\ncoll_begin = 90.0\ncoll_end = 90.0\n"
        "other = 70.0\nmetric = 200.0\nfn_enter = 50.0\nfn_leave = 50.0\npoll_enter = 40.0\npoll_leave = 40.0\n"
        "[copy]\n; memcpy ns per byte by size in bytes\n64 = 0.9000\n4096 = 0.1200\n1048576 = 0.2500\n"
        "[network]\n; ping-pong between ranks 0 and 1\nlatency_ns = 286\nns_per_byte = 0.0800\nper_hop_ns = 0\n"
        "; the calls of an eager send and of a receive whose message is there\n"
        "send_overhead_ns = 120\nrecv_overhead_ns = 110\neager_limit = 4096\n"
        "; one failed MPI_Test without the tracer, on a receive that never comes\ntest_ns = 9.7\n"
        "[network_by_size]\n; one-way ns of a message by size in bytes, ping-pong between ranks 0 and 1, "
        "copies included\n0 = 286\n64 = 300\n4096 = 1200\n4097 = 1900\n1048576 = 150000\n"
        "; calibration took 1.2 ms\n"
        "[overhead_by_location]\n; ns every record of the location cost beyond [overhead]: its --extra-ns "
        "spins took that much longer\n0 = 12.5\n1 = 0.0\n";
    up_comp_params p;
    up_err err = {0};
    up_comp_params_init(&p);
    if (up_calibration_parse(text, "traced", &p, &err) != UP_OK) {
        t_fail(__FILE__, __LINE__, "%s", err.msg);
        return;
    }
    CHECK_NEAR(p.overhead_ns[UP_RK_SEND], 60, 0);
    CHECK_NEAR(p.overhead_high_ns[UP_RK_METRIC], 200, 0);
    CHECK_EQ(p.ncopy, 3);
    CHECK_EQ(p.nnet, 5);
    CHECK_NEAR(p.test_ns, 9.7, 0);
    CHECK_EQ(p.nloc_ovh, 2);
    CHECK_NEAR(p.loc_ovh_ns[0], 12.5, 0);
}

/* The calibration an archive stores: the same rules, and the error names
 * the archive and the line. */
TEST(ini_stored_calibration_names_the_archive)
{
    const char *dir = t_dir("ini_stored");
    char anchor[4200], want[4600];
    tg *g = tg_open(dir, 1, 1000000000, 0);
    up_trace *t = NULL;
    up_comp_params p;
    up_err err = {0};
    char source[UP_RUN_SOURCE_MAX];
    if (!g) {
        t_fail(__FILE__, __LINE__, "tg_open");
        return;
    }
    OTF2_Archive_SetProperty(tg_archive(g), "UNPERTURB::CALIBRATION",
                             "; unperturb calibration\n[overhead] all = 500\n", true);
    tg_enter(g, 0, 10, TG_MAIN);
    tg_leave(g, 0, 20, TG_MAIN);
    CHECK_EQ(tg_close(g), 0);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    if (up_trace_open(anchor, &t, &err) != UP_OK) {
        t_fail(__FILE__, __LINE__, "%s", err.msg);
        return;
    }
    snprintf(want, sizeof want, "the calibration stored in '%s':2: " AFTER("all = 500", "overhead"),
             up_trace_anchor(t));
    want_msg(__FILE__, __LINE__, "stored", up_run_params(t, NULL, NULL, &p, source, &err),
             &err, "(stored)", want);
    CHECK(strstr(err.msg, dir) != NULL);
    up_trace_close(t);
}

/* ---- numbers (item 8) ---------------------------------------------------------- */

static void sweep_err_at(const char *file, int line, const char *arg, const char *want)
{
    static up_sweep s;
    up_machine m;
    up_err err = {0};
    up_status st;
    up_machine_init(&m);
    st = up_sweep_parse(arg, &m, &s, &err);
    if (st != UP_EUSAGE)
        t_fail(file, line, "sweep %s: status %d (%zu values), want UP_EUSAGE", arg, (int)st, s.n);
    else if (strcmp(err.msg, want))
        t_fail(file, line, "sweep %s: message '%s', wanted '%s'", arg, err.msg, want);
}
#define SWEEP_ERR(arg, want) sweep_err_at(__FILE__, __LINE__, arg, want)

/* A sweep's numbers are up_num_parse's: decimal, finite, in the key's range
 * (STEP up to the range's width); `0:1000:0x10` ran 63 values. */
TEST(ini_sweep_numbers_are_decimal_and_bounded)
{
    SWEEP_ERR("latency_ns=0:1000:0x10",
              "--sweep 'latency_ns=0:1000:0x10': STEP 0x10: not a number (must be between 0 and 1e9 ns)");
    SWEEP_ERR("latency_ns=0x0:1000:10",
              "--sweep 'latency_ns=0x0:1000:10': latency_ns = 0x0: not a number (must be between 0 and 1e9 ns)");
    SWEEP_ERR("latency_ns=0:0X3E8:10",
              "--sweep 'latency_ns=0:0X3E8:10': latency_ns = 0X3E8: not a number (must be between 0 and 1e9 ns)");
    SWEEP_ERR("latency_ns=0:1000:1e308", "--sweep 'latency_ns=0:1000:1e308': STEP 1e308: must be between 0 and 1e9 ns");
    SWEEP_ERR("latency_ns=0:1000:1e999", "--sweep 'latency_ns=0:1000:1e999': STEP 1e999: must be between 0 and 1e9 ns");
    SWEEP_ERR("cpu_ratio=1:1:5000", "--sweep 'cpu_ratio=1:1:5000': STEP 5000: must be between 0 and 999.999");
    SWEEP_ERR("latency_ns=0:1e300:1e297",
              "--sweep 'latency_ns=0:1e300:1e297': latency_ns = 1e300: must be between 0 and 1e9 ns");
    SWEEP_ERR("latency_ns=-1e308:1e308:1e306",
              "--sweep 'latency_ns=-1e308:1e308:1e306': latency_ns = -1e308: must be between 0 and 1e9 ns");
    SWEEP_ERR("latency_ns=0:1000:nan", "--sweep 'latency_ns=0:1000:nan': STEP nan: not a number (must be between 0 and 1e9 ns)");
    SWEEP_ERR("latency_ns= 0:1000:10", "--sweep 'latency_ns= 0:1000:10': latency_ns =  0: not a number (must be between 0 and 1e9 ns)");
    SWEEP_ERR("eager_limit=0:100:1.5",
              "--sweep 'eager_limit=0:100:1.5': STEP 1.5: must be a whole number between 0 and 2^53 bytes");
    SWEEP_ERR("latency_ns=0:1e9:1e-300", "--sweep 'latency_ns=0:1e9:1e-300': more than 1000 values");
    /* the ends of the ranges still sweep */
    {
        static up_sweep s;
        up_machine m;
        up_err err = {0};
        up_machine_init(&m);
        CHECK_EQ(up_sweep_parse("latency_ns=0:1e9:1e9", &m, &s, &err), UP_OK);
        CHECK_EQ(s.n, 2);
        CHECK_EQ(up_sweep_parse("cpu_ratio=0.001:1000:999.999", &m, &s, &err), UP_OK);
        CHECK_EQ(s.n, 2);
        CHECK_EQ(up_sweep_parse("latency_ns=5:5:1e9", &m, &s, &err), UP_OK);
        CHECK_EQ(s.n, 1);
    }
}

/* In an experiment file too: the error names the file and the sweep's line. */
TEST(ini_experiment_sweep_numbers)
{
    up_experiment *ex = malloc(sizeof *ex);
    up_err err = {0};
    if (!ex)
        return;
    up_experiment_init(ex);
    CHECK_EQ(up_experiment_parse(ex, "[experiment]\ninput = /a\nsweep = latency_ns=0:1000:0x10\noutput = /o\n",
                                 "/e/x.ini", &err), UP_OK);
    ex->file = "/e/x.ini";
    CHECK_EQ(up_experiment_prepare(ex, &err), UP_EFORMAT);
    if (strcmp(err.msg, "/e/x.ini:3: --sweep 'latency_ns=0:1000:0x10': STEP 0x10: not a number (must be "
                        "between 0 and 1e9 ns)"))
        t_fail(__FILE__, __LINE__, "message '%s'", err.msg);
    up_experiment_free(ex);
    free(ex);
}

/* validate's window from the timing shim's file: a decimal number, else
 * none (NAN: "was not timed") */
TEST(ini_validate_window_is_a_decimal_number)
{
    const char *path = t_dir("ini_window");
    static const struct {
        const char *text;
        double want; /* NAN: none */
    } cases[] = {
        {"ranks=2\nwindow_s=0.25\n", 0.25},
        {"window_s=0x10\n", NAN},
        {"window_s=inf\n", NAN},
        {"window_s=nan\n", NAN},
        {"window_s=1e999\n", NAN},
        {"window_s=2.5s\n", NAN},
        {"window_s=\n", NAN},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        FILE *f = fopen(path, "w");
        double got;
        if (!f) {
            t_fail(__FILE__, __LINE__, "cannot write %s", path);
            return;
        }
        fputs(cases[i].text, f);
        fclose(f);
        got = up_run_val_read_window(path);
        if (isnan(cases[i].want) ? !isnan(got) : got != cases[i].want)
            t_fail(__FILE__, __LINE__, "'%s': %g, wanted %g", cases[i].text, got, cases[i].want);
    }
}
