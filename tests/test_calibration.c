/*
 * test_calibration.c - calibration files (docs/calibration.md) as input
 * from outside: every value within its range, the line of every error,
 * lines too long for the reader, only regular files of at most 1 MiB, bytes
 * that do not print escaped in messages, and the same rules for the
 * calibration an archive stores.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "model/compensate.h"

/* Writes n bytes of text to a fresh file of this test; returns its path. */
static const char *put_file(const char *name, const char *text, size_t n)
{
    static char path[4096];
    FILE *f;
    snprintf(path, sizeof path, "%s", t_dir(name));
    if (!(f = fopen(path, "wb"))) {
        t_fail(__FILE__, __LINE__, "cannot write %s", path);
        return path;
    }
    CHECK_EQ(fwrite(text, 1, n, f), n);
    fclose(f);
    return path;
}

/* Parsing text named "c.ini" fails with exactly `want`. */
static void check_parse_err_at(const char *file, int line, const char *text, const char *want)
{
    up_comp_params p;
    up_err err = {0};
    up_comp_params_init(&p);
    if (up_calibration_parse(text, "c.ini", &p, &err) != UP_EFORMAT)
        t_fail(file, line, "accepted:\n%s", text);
    else if (strcmp(err.msg, want))
        t_fail(file, line, "message '%s', wanted '%s'", err.msg, want);
}
#define CHECK_PARSE_ERR(text, want) check_parse_err_at(__FILE__, __LINE__, text, want)

/* Loading `path` fails with UP_EIO and exactly `want`. */
static void check_load_err_at(const char *file, int line, const char *path, const char *want)
{
    up_comp_params p;
    up_err err = {0};
    up_comp_params_init(&p);
    if (up_calibration_load(path, &p, &err) != UP_EIO)
        t_fail(file, line, "%s: status %d (%s), wanted UP_EIO", path, (int)err.status, err.msg);
    else if (strcmp(err.msg, want))
        t_fail(file, line, "message '%s', wanted '%s'", err.msg, want);
}
#define CHECK_LOAD_ERR(path, want) check_load_err_at(__FILE__, __LINE__, path, want)

TEST(calibration_values_within_their_range)
{
    up_comp_params p;
    up_err err = {0};
    /* the ends of every range are accepted */
    up_comp_params_init(&p);
    CHECK_EQ(up_calibration_parse("[overhead]\nall = 1e9\nenter = 0\n[overhead_by_location]\n3 = 1e9\n"
                                  "[copy]\n9007199254740992 = 1e6\n1 = 0\n"
                                  "[network]\nlatency_ns = 1e9\nns_per_byte = 1e6\neager_limit = 9007199254740992\n",
                                  "c.ini", &p, &err), UP_OK);
    CHECK_NEAR(p.overhead_ns[UP_RK_SEND], 1e9, 0);
    CHECK_NEAR(p.eager_limit, 9007199254740992.0, 0);
    CHECK_EQ(p.copy_bytes[1], 9007199254740992ull);
    /* and every value past them is refused, with file, line, section, key
     * and the range */
    CHECK_PARSE_ERR("[overhead]\nenter = 1e300\n",
                    "c.ini:2: [overhead] enter = 1e300: must be between 0 and 1e9 ns");
    CHECK_PARSE_ERR("; comment\n[overhead]\nall = 5\nsend = -1\n",
                    "c.ini:4: [overhead] send = -1: must be between 0 and 1e9 ns");
    CHECK_PARSE_ERR("[overhead_high]\nrecv = inf\n",
                    "c.ini:2: [overhead_high] recv = inf: must be between 0 and 1e9 ns");
    CHECK_PARSE_ERR("[overhead_low]\nrecv = nan\n",
                    "c.ini:2: [overhead_low] recv = nan: not a number (must be between 0 and 1e9 ns)");
    CHECK_PARSE_ERR("[overhead_by_location]\n7 = 2e9\n",
                    "c.ini:2: [overhead_by_location] 7 = 2e9: must be between 0 and 1e9 ns");
    CHECK_PARSE_ERR("[copy]\n64 = 1e7\n", "c.ini:2: [copy] 64 = 1e7: must be between 0 and 1e6 ns/byte");
    CHECK_PARSE_ERR("[copy]\n0 = 1\n", "c.ini:2: [copy] unknown key '0' (expected ns_per_byte or a "
                    "message size, a whole number between 1 and 2^53 bytes)");
    CHECK_PARSE_ERR("[copy]\n9007199254740994 = 1\n", "c.ini:2: [copy] unknown key '9007199254740994' "
                    "(expected ns_per_byte or a message size, a whole number between 1 and 2^53 bytes)");
    CHECK_PARSE_ERR("[network]\neager_limit = 1.5\n",
                    "c.ini:2: [network] eager_limit = 1.5: must be a whole number between 0 and 2^53 bytes");
    CHECK_PARSE_ERR("[network]\nlatency_ns = 0x10\n",
                    "c.ini:2: [network] latency_ns = 0x10: not a number (must be between 0 and 1e9 ns)");
    CHECK_PARSE_ERR("[network]\nns_per_byte = 1e999\n",
                    "c.ini:2: [network] ns_per_byte = 1e999: must be between 0 and 1e6 ns/byte");
    CHECK_PARSE_ERR("[network]\nsend_overhead_ns = -3\n",
                    "c.ini:2: [network] send_overhead_ns = -3: must be between 0 and 1e9 ns");
    /* the first error is the one reported, whatever its kind */
    CHECK_PARSE_ERR("[overhead]\nthis is not ini\nenter = -1\n",
                    "c.ini:2: not an INI line (expected 'key = value', a [section] or a comment)");
    CHECK_PARSE_ERR("[overhead]\nenter = -1\nthis is not ini\n",
                    "c.ini:2: [overhead] enter = -1: must be between 0 and 1e9 ns");
    CHECK_PARSE_ERR("[weird]\nx = 1\n", "c.ini:1: unknown section [weird] (expected [overhead], "
                    "[overhead_low], [overhead_high], [overhead_by_location], [copy], [network], [network_by_size] or [info])");
}

TEST(calibration_long_lines_name_their_line)
{
    char text[1024];
    up_comp_params p;
    up_err err = {0};
    /* 199 characters fit (inih's buffer less its terminator), also before
     * a CR; the next key's line is still right */
    snprintf(text, sizeof text, "[info]\nhost = %0192d\r\n[overhead]\nenterr = 5\n", 1);
    CHECK_EQ(strlen(strchr(text, '\n') + 1), 199 + 2 + 11 + 11);
    CHECK_PARSE_ERR(text, "c.ini:4: [overhead] unknown key 'enterr' (expected all, enter, leave, "
                          "send, recv, coll_begin, coll_end, other, metric, fn_enter, fn_leave, poll_enter, poll_leave, thread or lock)");
    /* 200 do not: the error names that line, also when it is the last one
     * and has no newline (inih split it and blamed line 3, past the end) */
    snprintf(text, sizeof text, "[overhead]\nenter = 1%0193d", 0);
    CHECK_PARSE_ERR(text, "c.ini:2: line longer than 199 characters");
    snprintf(text, sizeof text, "[overhead]\nenter = 1%0300d\nleave = 5\n", 0);
    CHECK_PARSE_ERR(text, "c.ini:2: line longer than 199 characters");
    snprintf(text, sizeof text, "[info]\nhost = %0300d\n[overhead]\nenter = -1\n", 0);
    CHECK_PARSE_ERR(text, "c.ini:2: line longer than 199 characters");
    /* an indented line is a key of its own, not the previous value's
     * continuation (inih's multi-line values) */
    up_comp_params_init(&p);
    CHECK_EQ(up_calibration_parse("[overhead]\nenter = 5\n    leave = 6\n", "c.ini", &p, &err), UP_OK);
    CHECK_NEAR(p.overhead_ns[UP_RK_LEAVE], 6, 0);
}

TEST(calibration_messages_escape_what_does_not_print)
{
    /* a terminal escape sequence and a control byte in a key, DEL and a
     * byte that is not UTF-8 in a value, an invisible direction change in
     * a section name: quoted as \xNN, so nothing reaches the terminal raw */
    CHECK_PARSE_ERR("[overhead]\nent\x1b[31mer\x01 = 5\n",
                    "c.ini:2: [overhead] unknown key 'ent\\x1b[31mer\\x01' (expected all, enter, leave, "
                    "send, recv, coll_begin, coll_end, other, metric, fn_enter, fn_leave, poll_enter, poll_leave, thread or lock)");
    CHECK_PARSE_ERR("[overhead]\nenter = 5\x7f\xff\n",
                    "c.ini:2: [overhead] enter = 5\\x7f\\xff: not a number (must be between 0 and 1e9 ns)");
    CHECK_PARSE_ERR("[over\xe2\x80\xaehead]\nx = 1\n",
                    "c.ini:1: unknown section [over\\xe2\\x80\\xaehead] (expected [overhead], "
                    "[overhead_low], [overhead_high], [overhead_by_location], [copy], [network], [network_by_size] or [info])");
    /* UTF-8 that prints stays as it is */
    CHECK_PARSE_ERR("[overhead]\nentr\xc3\xa9\x65 = 5\n",
                    "c.ini:2: [overhead] unknown key 'entr\xc3\xa9\x65' (expected all, enter, leave, "
                    "send, recv, coll_begin, coll_end, other, metric, fn_enter, fn_leave, poll_enter, poll_leave, thread or lock)");
}

TEST(calibration_only_regular_files)
{
    char dir[4096], path[4200], want[4400];
    const char *f;
    char *big;
    size_t n = ((size_t)1 << 20) + 1;
    up_comp_params p;
    up_err err = {0};
    snprintf(dir, sizeof dir, "%s", t_dir("files"));
    CHECK(mkdir(dir, 0700) == 0);
    /* missing, a directory, a device, a FIFO (no writer: it must not wait) */
    snprintf(path, sizeof path, "%s/none.ini", dir);
    snprintf(want, sizeof want, "cannot read the calibration file '%s': No such file or directory", path);
    CHECK_LOAD_ERR(path, want);
    snprintf(want, sizeof want, "cannot read the calibration file '%s': it is a directory, not a file", dir);
    CHECK_LOAD_ERR(dir, want);
    CHECK_LOAD_ERR("/dev/zero", "cannot read the calibration file '/dev/zero': it is a character "
                                "device, not a regular file");
    snprintf(path, sizeof path, "%s/fifo", dir);
    CHECK(mkfifo(path, 0600) == 0);
    snprintf(want, sizeof want, "cannot read the calibration file '%s': it is a FIFO (named pipe), not a "
                                "regular file", path);
    CHECK_LOAD_ERR(path, want);
    /* 1 MiB is the limit: one byte more is refused before it is read */
    big = malloc(n);
    CHECK(big != NULL);
    if (!big)
        return;
    for (size_t i = 0; i < n; i++) /* comment lines of 99 characters */
        big[i] = i % 100 == 99 ? '\n' : ';';
    f = put_file("one-mib.ini", big, n - 1);
    up_comp_params_init(&p);
    if (up_calibration_load(f, &p, &err) != UP_OK)
        t_fail(__FILE__, __LINE__, "1 MiB refused: %s", err.msg);
    f = put_file("big.ini", big, n);
    snprintf(want, sizeof want, "cannot read the calibration file '%s': larger than 1 MiB, the limit for "
                                "a calibration file", f);
    CHECK_LOAD_ERR(f, want);
    free(big);
    /* a NUL byte: not text (inih would stop there and read half the file) */
    {
        static const char nul[] = "[overhead]\nenter = 5\nle\0ave = 6\n";
        f = put_file("nul.ini", nul, sizeof nul - 1);
    }
    snprintf(want, sizeof want, "%s:3: a NUL byte: not a text file (a calibration file is INI text)", f);
    CHECK_LOAD_ERR(f, want);
    /* a file name that does not print is escaped too */
    snprintf(path, sizeof path, "%s/bad\x1b[2Jname.ini", dir);
    snprintf(want, sizeof want, "cannot read the calibration file '%s/bad\\x1b[2Jname.ini': No such file "
                                "or directory", dir);
    CHECK_LOAD_ERR(path, want);
}

TEST(calibration_stored_in_the_archive_has_the_same_limits)
{
    /* the text an archive stores (UNPERTURB::CALIBRATION) goes through the
     * same parser: the same ranges, line limit and size limit */
    const char *what = "the calibration stored in the archive";
    size_t n = ((size_t)1 << 20) + 2;
    char *big = malloc(n), line[512];
    up_comp_params p;
    up_err err = {0};
    CHECK(big != NULL);
    if (!big)
        return;
    memset(big, ';', n - 1);
    big[n - 1] = '\0';
    up_comp_params_init(&p);
    CHECK_EQ(up_calibration_parse(big, what, &p, &err), UP_EFORMAT);
    CHECK(!strcmp(err.msg, "the calibration stored in the archive: larger than 1 MiB, the limit for a "
                           "calibration"));
    free(big);
    snprintf(line, sizeof line, "[info]\nhost = %0250d\n", 0);
    CHECK_EQ(up_calibration_parse(line, what, &p, &err), UP_EFORMAT);
    CHECK(!strcmp(err.msg, "the calibration stored in the archive:2: line longer than 199 characters"));
    CHECK_EQ(up_calibration_parse("[overhead]\nenter = 1e300\n", what, &p, &err), UP_EFORMAT);
    CHECK(!strcmp(err.msg, "the calibration stored in the archive:2: [overhead] enter = 1e300: must be "
                           "between 0 and 1e9 ns"));
}

TEST(calibration_overheads_saturate_as_ticks)
{
    /* O in ticks: at most UP_TICKS_MAX, whatever the clock (a resolution
     * of 1e19 ticks/s is 1e10 ticks per ns) */
    up_comp_params p;
    up_ovh_table t;
    up_comp_params_init(&p);
    up_comp_params_set_overhead(&p, 1e9);
    p.overhead_ns[UP_RK_SEND] = 2.5;
    up_ovh_table_init(&t, &p, 1e10);
    CHECK_EQ(t.kind[UP_EV_Enter], UP_TICKS_MAX);
    CHECK_EQ(t.kind[UP_EV_MpiSend], 25000000000ull);
    up_ovh_table_init(&t, &p, 1);
    CHECK_EQ(t.kind[UP_EV_Enter], 1000000000ull);
    CHECK_EQ(t.kind[UP_EV_MpiSend], 3); /* 2.5 rounds half away from 0 */
}

TEST(calibration_network_by_size_table)
{
    /* points in any order; linear between them, the last slope beyond,
     * never below the last point when a noisy table falls with size */
    up_comp_params p;
    up_err err = {0};
    up_comp_params_init(&p);
    CHECK_EQ(up_net_ns(&p, 100), -1);
    CHECK(up_calibration_parse("[network_by_size]\n4096 = 1000\n0 = 200\n1024 = 400\n", "c.ini", &p,
                               &err) == UP_OK);
    CHECK_EQ(p.nnet, 3);
    CHECK(p.network_set);
    CHECK_EQ(p.net_bytes[0], 0);
    CHECK_EQ(p.net_bytes[2], 4096);
    CHECK(up_net_ns(&p, 0) == 200);
    CHECK(up_net_ns(&p, 512) == 300);        /* 200 + 200 * 512/1024 */
    CHECK(up_net_ns(&p, 2560) == 700);       /* 400 + 600 * 1536/3072 */
    CHECK(up_net_ns(&p, 7168) == 1600);      /* beyond: 1000 + 600 * 3072/3072 */
    CHECK(up_calibration_parse("[network_by_size]\n0 = 500\n1000 = 400\n", "c.ini", &p, &err) == UP_OK);
    CHECK(up_net_ns(&p, 500) == 450);
    CHECK(up_net_ns(&p, 5000) == 400);       /* falls: held at the last point */
    up_comp_params_init(&p);
    CHECK(up_calibration_parse("[network_by_size]\n64 = 300\n", "c.ini", &p, &err) == UP_OK);
    CHECK(up_net_ns(&p, 1) == 300 && up_net_ns(&p, 1 << 20) == 300); /* one point: constant */
    /* a later source with S or gamma and no table drops the table (as a
     * later [overhead] drops a range); one with other [network] keys keeps it */
    CHECK(up_calibration_parse("[network_by_size]\n0 = 300\n", "a.ini", &p, &err) == UP_OK);
    CHECK(up_calibration_parse("[network]\neager_limit = 8192\n", "b.ini", &p, &err) == UP_OK);
    CHECK_EQ(p.nnet, 1);
    CHECK(up_calibration_parse("[network]\nlatency_ns = 2000\n", "c.ini", &p, &err) == UP_OK);
    CHECK_EQ(p.nnet, 0);
    CHECK(up_net_ns(&p, 64) == -1);
    CHECK_PARSE_ERR("[network_by_size]\n64 = 1\n64 = 2\n",
                    "c.ini:3: [network_by_size] size 64 is set twice (first at line 2)");
    CHECK_PARSE_ERR("[network_by_size]\nbig = 1\n",
                    "c.ini:2: [network_by_size] unknown key 'big' (expected a message size, a whole number between 0 and 2^53 bytes)");
    CHECK_PARSE_ERR("[network_by_size]\n64 = -1\n", "c.ini:2: [network_by_size] 64 = -1: must be between 0 and 1e9 ns");
}

TEST(calibration_poll_kinds_default_to_enter_and_leave)
{
    /* a file from before poll_enter/poll_leave: polls cost what any Enter
     * and Leave cost; named, their own value */
    up_comp_params p;
    up_err err = {0};
    up_comp_params_init(&p);
    CHECK(up_calibration_parse("[overhead]\nenter = 25\nleave = 27\n", "c.ini", &p, &err) == UP_OK);
    CHECK(p.overhead_ns[UP_RK_POLL_ENTER] == 25 && p.overhead_ns[UP_RK_POLL_LEAVE] == 27);
    up_comp_params_init(&p);
    CHECK(up_calibration_parse("[overhead]\nenter = 25\nleave = 27\npoll_enter = 14.5\npoll_leave = 15\n",
                               "c.ini", &p, &err) == UP_OK);
    CHECK(p.overhead_ns[UP_RK_POLL_ENTER] == 14.5 && p.overhead_ns[UP_RK_POLL_LEAVE] == 15);
    CHECK(p.overhead_ns[UP_RK_ENTER] == 25);
}

TEST(calibration_thread_and_lock_kinds)
{
    /* the records of threads and of locks (docs/calibration.md): a file
     * from before them gives them `other`; named, their own value; the
     * records of each kind, and no others */
    static const unsigned thread[] = {UP_EV_ThreadCreate, UP_EV_ThreadBegin, UP_EV_ThreadWait,
                                      UP_EV_ThreadEnd, UP_EV_ThreadFork, UP_EV_ThreadJoin,
                                      UP_EV_ThreadTeamBegin, UP_EV_ThreadTeamEnd};
    static const unsigned lock[] = {UP_EV_ThreadAcquireLock, UP_EV_ThreadReleaseLock,
                                    UP_EV_OmpAcquireLock, UP_EV_OmpReleaseLock};
    up_comp_params p;
    up_err err = {0};
    unsigned k, n_thread = 0, n_lock = 0;
    up_comp_params_init(&p);
    CHECK(up_calibration_parse("[overhead]\nenter = 25\nother = 33\n", "c.ini", &p, &err) == UP_OK);
    CHECK(p.overhead_ns[UP_RK_THREAD] == 33 && p.overhead_ns[UP_RK_LOCK] == 33);
    up_comp_params_init(&p);
    CHECK(up_calibration_parse("[overhead]\nother = 33\nthread = 12\nlock = 13.5\n", "c.ini", &p,
                               &err) == UP_OK);
    CHECK(p.overhead_ns[UP_RK_THREAD] == 12 && p.overhead_ns[UP_RK_LOCK] == 13.5);
    for (k = 0; k < sizeof thread / sizeof *thread; k++)
        CHECK_EQ(up_rk_of(thread[k]), UP_RK_THREAD);
    for (k = 0; k < sizeof lock / sizeof *lock; k++)
        CHECK_EQ(up_rk_of(lock[k]), UP_RK_LOCK);
    for (k = 0; k < UP_EV_COUNT_; k++)
        n_thread += up_rk_of(k) == UP_RK_THREAD, n_lock += up_rk_of(k) == UP_RK_LOCK;
    CHECK_EQ(n_thread, 8u);
    CHECK_EQ(n_lock, 4u);
    CHECK(!strcmp(up_rk_name(UP_RK_THREAD), "thread") && !strcmp(up_rk_name(UP_RK_LOCK), "lock"));
}

TEST(calibration_test_ns)
{
    /* [network] test_ns: one failed MPI_Test without the tracer (the
     * calibration writes it); absent it stays 0, the model's "unknown" */
    up_comp_params p;
    up_err err = {0};
    up_comp_params_init(&p);
    CHECK(p.test_ns == 0);
    CHECK_EQ(up_calibration_parse("[network]\nlatency_ns = 300\n; a comment\ntest_ns = 18.5\n", "c.ini", &p,
                                  &err), UP_OK);
    CHECK(p.test_ns == 18.5 && p.latency_ns == 300);
    /* not a network constant: alone it does not make network mode's
     * parameters given (the summary says when none are) */
    up_comp_params_init(&p);
    CHECK_EQ(up_calibration_parse("[network]\ntest_ns = 0\n", "c.ini", &p, &err), UP_OK);
    CHECK(p.test_ns == 0 && !p.network_set);
    CHECK_EQ(up_calibration_parse("[network]\ntest_ns = 1e9\n", "c.ini", &p, &err), UP_OK);
    CHECK(p.test_ns == 1e9);
    /* a later source replaces it; one without it keeps it */
    CHECK_EQ(up_calibration_parse("[network]\ntest_ns = 22\n", "a.ini", &p, &err), UP_OK);
    CHECK_EQ(up_calibration_parse("[network]\nlatency_ns = 5\n", "b.ini", &p, &err), UP_OK);
    CHECK(p.test_ns == 22);
    CHECK_PARSE_ERR("[overhead]\nenter = 5\n[network]\ntest_ns = -1\n",
                    "c.ini:4: [network] test_ns = -1: must be between 0 and 1e9 ns");
    CHECK_PARSE_ERR("[network]\ntest_ns = 2e9\n",
                    "c.ini:2: [network] test_ns = 2e9: must be between 0 and 1e9 ns");
    CHECK_PARSE_ERR("[network]\ntest_ns = 12ns\n",
                    "c.ini:2: [network] test_ns = 12ns: not a number (must be between 0 and 1e9 ns)");
    CHECK_PARSE_ERR("[network]\ntests_ns = 12\n",
                    "c.ini:2: [network] unknown key 'tests_ns' (expected latency_ns, ns_per_byte, per_hop_ns, "
                    "eager_limit, send_overhead_ns, recv_overhead_ns, test_ns)");
}

/* The command line's layer (up_comp_params_apply_cli), what compensate,
 * estimate and report apply over the archive and --calibration: later
 * --overhead-ns win per kind; an O drops the calibration's range, its
 * per-location costs and its stall lists; --latency-ns drops a
 * [network_by_size] table; what is not given stays.  (The source it names:
 * test_run.c, run_params_precedence.) */
TEST(calibration_command_line_layer)
{
    up_comp_params p;
    up_comp_cli c;
    up_comp_params_init(&p);
    p.overhead_ns[UP_RK_ENTER] = 30;
    p.overhead_ns[UP_RK_SEND] = 40;
    p.overhead_set = p.range_set = true;
    p.nloc_ovh = 3;
    p.archive_stalls = true;
    p.nnet = 2;
    p.latency_ns = 5;
    p.eager_limit = 4096;
    up_comp_cli_init(&c);
    up_comp_params_apply_cli(&p, &c); /* nothing given */
    CHECK_EQ(p.overhead_ns[UP_RK_ENTER], 30);
    CHECK(p.range_set && p.nloc_ovh == 3 && p.archive_stalls && p.nnet == 2);
    CHECK(up_comp_cli_overhead(&c, 7));
    c.overhead[c.noverhead].kind = UP_RK_SEND; /* then send=9 */
    c.overhead[c.noverhead].ns = 9;
    c.noverhead++;
    c.latency_ns = 100;
    c.wildcard_set = true;
    c.wildcard = UP_WILDCARD_PRESERVE;
    up_comp_params_apply_cli(&p, &c);
    CHECK_EQ(p.overhead_ns[UP_RK_ENTER], 7);
    CHECK_EQ(p.overhead_ns[UP_RK_SEND], 9);
    CHECK(!p.range_set && p.nloc_ovh == 0 && !p.archive_stalls);
    CHECK(p.nnet == 0 && p.latency_ns == 100 && p.network_set);
    CHECK(p.eager_limit == 4096 && !p.eager_set);
    CHECK_EQ(p.wildcard, UP_WILDCARD_PRESERVE);
    while (up_comp_cli_overhead(&c, 1))
        ;
    CHECK_EQ(c.noverhead, UP_CLI_MAX_OVERHEAD);
}
