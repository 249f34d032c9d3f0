/*
 * symbols_test.c - symbols.c and funcs.c without MPI or the rest of the
 * tracer (tests/tracer/symbols_test.sh builds and runs it).
 *
 * Built as an ordinary Debian (PIE) executable with -g, and with
 * -finstrument-functions: the w_* and s_* functions are the "application";
 * everything else is marked no_instrument_function.  The tracer calls that
 * funcs.c makes (upt_enter, upt_region_define, ...) are stubs that log
 * events, which the checks compare with what should have been recorded.
 *
 *   symbols_test          symbols, filter, hooks and manual regions
 *   symbols_test thread   MPI initialised on a thread other than main's
 */
#include "tracer/funcs.h"
#include "tracer/symbols.h"
#include "tracer/upt.h"
#include "unperturb/region.h"

#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINST __attribute__((no_instrument_function))
#define APP __attribute__((noinline))

int main(int argc, char **argv); /* its address is looked up below */

static int failures;

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                          \
        }                                                                        \
    } while (0)

/* Not upt_now(): an inline function of a header would be instrumented here. */
static NOINST uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static NOINST int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* ---- stubs of tracer.c -------------------------------------------------------- */

int upt_on, upt_rank, upt_size;
int upt_tsc; /* 0: upt_now() is CLOCK_MONOTONIC ns, as now_ns() */
NOINST void upt_clock_init(void) {}
pthread_t upt_main_thread;
int upt_main_thread_set;

#define MAX_REGIONS 256
#define MAX_EVENTS 20000

static struct {
    char *name, *file;
    uint32_t line;
} regions[MAX_REGIONS];
static uint32_t nregions;

static struct {
    char kind;
    uint32_t region;
    uint64_t t;
} events[MAX_EVENTS];
static size_t nevents;

NOINST uint32_t upt_region_define(const char *name, const char *file, uint32_t line)
{
    if (!upt_on)
        return UINT32_MAX;
    for (uint32_t i = 0; i < nregions; i++)
        if (strcmp(regions[i].name, name) == 0 && line == regions[i].line &&
            (file && regions[i].file ? strcmp(file, regions[i].file) == 0 : file == regions[i].file))
            return UPT_R_FIXED_ + i;
    if (nregions == MAX_REGIONS)
        return UINT32_MAX;
    regions[nregions].name = strdup(name);
    regions[nregions].file = file ? strdup(file) : NULL;
    regions[nregions].line = line;
    return UPT_R_FIXED_ + nregions++;
}

static NOINST void log_event(char kind, uint32_t region, uint64_t t)
{
    if (upt_on && nevents < MAX_EVENTS) {
        events[nevents].kind = kind;
        events[nevents].region = region;
        events[nevents].t = t;
        nevents++;
    }
}

NOINST void upt_enter(uint32_t region) { log_event('E', region, now_ns()); }
NOINST void upt_enter_at(uint32_t region, uint64_t t) { log_event('E', region, t); }
NOINST void upt_leave(uint32_t region) { log_event('L', region, now_ns()); }
NOINST void upt_overhead_begin(void) { upt_enter(UPT_R_OVERHEAD); }
NOINST void upt_overhead_end(void) { upt_leave(UPT_R_OVERHEAD); }

static NOINST const char *region_name(uint32_t r)
{
    if (r == UPT_R_OVERHEAD)
        return "OV";
    if (r >= UPT_R_FIXED_ && r - UPT_R_FIXED_ < nregions)
        return regions[r - UPT_R_FIXED_].name;
    return "?";
}

static NOINST uint32_t region_named(const char *name)
{
    for (uint32_t i = 0; i < nregions; i++)
        if (strcmp(regions[i].name, name) == 0)
            return i;
    return UINT32_MAX;
}

/* The events logged since the last call, as "E:main E:pre L:pre ...". */
static char logbuf[1 << 16];
static size_t logged_from;

static NOINST const char *take_log(void)
{
    size_t n = 0;
    logbuf[0] = '\0';
    for (size_t i = logged_from; i < nevents && n < sizeof logbuf - 64; i++)
        n += (size_t)snprintf(logbuf + n, sizeof logbuf - n, "%s%c:%s", n ? " " : "",
                              events[i].kind, region_name(events[i].region));
    logged_from = nevents;
    return logbuf;
}

#define EXPECT_LOG(want)                                                         \
    do {                                                                         \
        const char *got_ = take_log();                                           \
        if (strcmp(got_, (want)) != 0) {                                         \
            fprintf(stderr, "%s:%d: events\n  got:  %s\n  want: %s\n", __FILE__, \
                    __LINE__, got_, (want));                                     \
            failures++;                                                          \
        }                                                                        \
    } while (0)

/* Every Leave closes the innermost open Enter, and time never goes back. */
static NOINST void check_nesting(int expect_closed)
{
    uint32_t stack[8192];
    size_t depth = 0;
    for (size_t i = 0; i < nevents; i++) {
        if (i)
            CHECK(events[i].t >= events[i - 1].t);
        if (events[i].kind == 'E') {
            if (depth < 8192)
                stack[depth++] = events[i].region;
        } else if (depth == 0 || stack[--depth] != events[i].region) {
            fprintf(stderr, "event %zu: Leave %s does not close the innermost Enter\n", i,
                    region_name(events[i].region));
            failures++;
            return;
        }
    }
    if (expect_closed)
        CHECK(depth == 0);
}

/* ---- the "application" (instrumented) ------------------------------------------ */

static volatile int sink;
static jmp_buf jump;

static const unsigned alpha_line = __LINE__ + 1;
static APP int s_alpha(int x)
{
    sink += x;
    return sink * 3;
}

static APP int s_beta(int x)
{
    return s_alpha(x) + 1;
}

static APP void w_inner(void) { sink++; }
static APP void w_filtered(void) { sink++; }
static const unsigned outer_line = __LINE__ + 1;
static APP void w_outer(void)
{
    w_inner();
    w_inner();
    w_filtered();
}
static APP void w_leaky(void) { up_region_begin("leak"); }
static APP void w_jump_inner(void)
{
    w_inner();
    longjmp(jump, 1);
}
static APP void w_jump_outer(void)
{
    if (!setjmp(jump))
        w_jump_inner();
}
static APP void w_rec(int n)
{
    if (n > 1)
        w_rec(n - 1);
    sink++;
}
static APP void *w_thread(void *arg)
{
    (void)arg;
    w_outer();
    up_region_begin("in thread");
    up_region_end("in thread");
    return NULL;
}

/* ---- symbols ---------------------------------------------------------------------- */

static NOINST void test_symbols(void)
{
    const char *file;
    uint32_t line;
    const char *name;

    CHECK(upt_sym_init() == 0);

    name = upt_sym_name((const void *)&s_alpha, &file, &line);
    CHECK(name && strcmp(name, "s_alpha") == 0);
    CHECK(file && ends_with(file, "symbols_test.c"));
    CHECK(line >= alpha_line && line <= alpha_line + 2);
    if (!name || !file || line < alpha_line || line > alpha_line + 2)
        fprintf(stderr, "  s_alpha: %s %s:%u (defined at line %u)\n", name ? name : "(null)",
                file ? file : "(null)", line, alpha_line);

    /* inside the function, not at its start; no file/line wanted */
    name = upt_sym_name((const char *)(uintptr_t)&s_beta + 4, NULL, NULL);
    CHECK(name && strcmp(name, "s_beta") == 0);
    name = upt_sym_name((const void *)&w_outer, &file, &line);
    CHECK(name && strcmp(name, "w_outer") == 0);
    name = upt_sym_name((const void *)&main, NULL, &line);
    CHECK(name && strcmp(name, "main") == 0);
    CHECK(line > 0);

    /* a stripped system library: named from .dynsym, no line information,
     * and no libdebuginfod (network) consulted for its missing debug file */
    name = upt_sym_name((const void *)&getpid, &file, &line);
    CHECK(name != NULL);
    CHECK(name && strstr(name, "getpid") != NULL);
    FILE *maps = fopen("/proc/self/maps", "r");
    CHECK(maps != NULL);
    if (maps) {
        char l[4096];
        while (fgets(l, sizeof l, maps))
            CHECK(!strstr(l, "libdebuginfod"));
        fclose(maps);
    }

    /* not code: no module */
    char *heap = malloc(64);
    CHECK(upt_sym_name(heap, &file, &line) == NULL && file == NULL && line == 0);
    free(heap);
    CHECK(upt_sym_name(NULL, NULL, NULL) == NULL);
    CHECK(upt_sym_name((const void *)(uintptr_t)16, NULL, NULL) == NULL);

    /* a library loaded after the modules were first reported */
    void *h = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
    CHECK(h != NULL);
    if (h) {
        void *cbrt_fn = dlsym(h, "cbrt");
        CHECK(cbrt_fn != NULL);
        name = cbrt_fn ? upt_sym_name(cbrt_fn, NULL, NULL) : NULL;
        CHECK(name && strstr(name, "cbrt") != NULL);
        dlclose(h);
    }

    /* after fini, a lookup starts over */
    upt_sym_fini();
    name = upt_sym_name((const void *)&s_alpha, NULL, NULL);
    CHECK(name && strcmp(name, "s_alpha") == 0);
    upt_sym_fini();
}

/* ---- the filter ---------------------------------------------------------------------- */

static NOINST void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* upt_filter_load(), with what it writes on stderr caught in `text`. */
static NOINST size_t filter_load_stderr(const char *errpath, char *text, size_t size)
{
    size_t n = 0;
    fflush(stderr);
    int saved = dup(2);
    FILE *err = fopen(errpath, "w+");
    CHECK(saved >= 0 && err != NULL);
    if (saved >= 0 && err) {
        dup2(fileno(err), 2);
        upt_filter_load();
        fflush(stderr);
        dup2(saved, 2);
        rewind(err);
        n = fread(text, 1, size - 1, err);
    }
    if (saved >= 0)
        close(saved);
    if (err)
        fclose(err);
    text[n] = '\0';
    return n;
}

static NOINST void test_filter(const char *dir)
{
    char path[4096], errpath[4096];
    snprintf(path, sizeof path, "%s/filter.txt", dir);
    snprintf(errpath, sizeof errpath, "%s/stderr.txt", dir);

    unsetenv("UNPERTURB_FILTER");
    unsetenv("UNPERTURB_FILTER_FILE");
    upt_filter_load();
    CHECK(!upt_filter_excluded("main"));
    CHECK(!upt_filter_excluded("anything"));

    setenv("UNPERTURB_FILTER", " foo*, bar\t!foobar,,", 1);
    upt_filter_load();
    CHECK(upt_filter_excluded("foo"));
    CHECK(upt_filter_excluded("foo_1"));
    CHECK(!upt_filter_excluded("foobar"));
    CHECK(upt_filter_excluded("bar"));
    CHECK(!upt_filter_excluded("barn"));
    CHECK(!upt_filter_excluded("baz"));

    write_file(path, "# exclude everything but main and keep_*\n"
                     "\n"
                     "*\n"
                     "   !main   \n"
                     "! keep_*   # re-included\r\n"
                     "keep_not_this\n");
    unsetenv("UNPERTURB_FILTER");
    setenv("UNPERTURB_FILTER_FILE", path, 1);
    upt_filter_load();
    CHECK(!upt_filter_excluded("main"));
    CHECK(upt_filter_excluded("solve"));
    CHECK(!upt_filter_excluded("keep_me"));
    CHECK(upt_filter_excluded("keep_not_this"));

    /* the variable comes after the file: it has the last word */
    setenv("UNPERTURB_FILTER", "!solve main", 1);
    upt_filter_load();
    CHECK(!upt_filter_excluded("solve"));
    CHECK(upt_filter_excluded("main"));
    CHECK(upt_filter_excluded("other"));

    /* a file that cannot be read: one warning naming it, nothing filtered */
    char text[1024];
    snprintf(path, sizeof path, "%s/no-such-filter", dir);
    setenv("UNPERTURB_FILTER_FILE", path, 1);
    size_t n = filter_load_stderr(errpath, text, sizeof text);
    CHECK(strncmp(text, "unperturb-trace: ", 17) == 0);
    CHECK(strstr(text, "no-such-filter") != NULL);
    CHECK(n > 0 && strchr(text, '\n') == text + n - 1); /* one line */
    CHECK(!upt_filter_excluded("main"));
    CHECK(!upt_filter_excluded("solve"));
    CHECK(!upt_filter_excluded("other"));

    /* a directory opens, but does not read */
    setenv("UNPERTURB_FILTER_FILE", dir, 1);
    n = filter_load_stderr(errpath, text, sizeof text);
    CHECK(strncmp(text, "unperturb-trace: ", 17) == 0);
    CHECK(!upt_filter_excluded("main"));

    unsetenv("UNPERTURB_FILTER");
    unsetenv("UNPERTURB_FILTER_FILE");
    upt_filter_load();
}

/* ---- hooks and manual regions -------------------------------------------------------- */

static NOINST void test_hooks(void)
{
    struct upt_funcs_stats st;

    /* before MPI_Init: frames are kept, nothing is recorded */
    w_outer();
    up_region_begin("pre");
    EXPECT_LOG("");

    /* "MPI_Init" */
    setenv("UNPERTURB_FILTER", "w_filt*", 1);
    upt_main_thread = pthread_self();
    upt_main_thread_set = 1;
    upt_on = 1;
    uint64_t earliest = upt_funcs_earliest(), t0 = now_ns();
    CHECK(earliest != UINT64_MAX && earliest <= t0);
    upt_funcs_init();
    EXPECT_LOG("E:main E:pre");
    CHECK(nevents == 2 && events[0].t == earliest && events[1].t >= earliest && events[1].t <= t0);
    CHECK(upt_funcs_earliest() == UINT64_MAX); /* once recording, no longer asked */

    /* first sight of a function: its lookup is the tracer's overhead */
    w_outer();
    EXPECT_LOG("E:OV L:OV E:w_outer E:OV L:OV E:w_inner L:w_inner E:w_inner L:w_inner "
               "E:OV L:OV L:w_outer");
    w_outer();
    EXPECT_LOG("E:w_outer E:w_inner L:w_inner E:w_inner L:w_inner L:w_outer");
    uint32_t r = region_named("w_outer");
    CHECK(r != UINT32_MAX);
    if (r != UINT32_MAX) {
        CHECK(regions[r].file && ends_with(regions[r].file, "symbols_test.c"));
        CHECK(regions[r].line >= outer_line && regions[r].line <= outer_line + 2);
    }
    r = region_named("pre");
    CHECK(r != UINT32_MAX && regions[r].file == NULL && regions[r].line == 0);
    CHECK(region_named("w_filtered") == UINT32_MAX);

    /* manual regions: nesting enforced, names by content */
    char buf[16];
    up_region_begin("r1");
    strcpy(buf, "r2");
    up_region_begin(buf);
    up_region_end("r1"); /* not the innermost: ignored */
    up_region_end("r2");
    up_region_end("r1");
    strcpy(buf, "r3"); /* same pointer, new name */
    up_region_begin(buf);
    up_region_end("r3");
    up_region_end("nothing open by that name");
    up_region_begin(NULL);
    up_region_end(NULL);
    EXPECT_LOG("E:r1 E:r2 L:r2 L:r1 E:r3 L:r3");
    upt_funcs_stats(&st);
    CHECK(st.unmatched_ends == 2);

    /* a region left open is closed with the function that began it */
    w_leaky();
    up_region_end("leak");
    EXPECT_LOG("E:OV L:OV E:w_leaky E:leak L:leak L:w_leaky");
    upt_funcs_stats(&st);
    CHECK(st.unmatched_ends == 3);

    /* longjmp skips an exit: the next exit closes the skipped frame */
    w_jump_outer();
    EXPECT_LOG("E:OV L:OV E:w_jump_outer E:OV L:OV E:w_jump_inner E:w_inner L:w_inner "
               "L:w_jump_inner L:w_jump_outer");
    upt_funcs_stats(&st);
    CHECK(st.unmatched_exits == 1);

    /* deeper than the shadow stack: counted, not recorded, still balanced */
    w_rec(5000);
    size_t enters = 0, leaves = 0;
    r = region_named("w_rec");
    for (size_t i = logged_from; i < nevents; i++) {
        if (events[i].region != UPT_R_FIXED_ + r)
            continue;
        if (events[i].kind == 'E')
            enters++;
        else
            leaves++;
    }
    take_log();
    CHECK(enters == 4096 - 2 && leaves == enters); /* main and "pre" hold 2 frames */
    upt_funcs_stats(&st);
    CHECK(st.deep_calls == 5000 - (4096 - 2));

    /* another thread records on a stack of its own (issue 36): only
     * w_thread is new to the process and named, in the tracer's own region;
     * the functions main's thread named (w_outer, w_inner, the filtered
     * w_filtered) are taken from the shared names; its manual region nests
     * in its functions */
    pthread_t th;
    CHECK(pthread_create(&th, NULL, w_thread, NULL) == 0);
    pthread_join(th, NULL);
    EXPECT_LOG("E:OV L:OV E:w_thread E:w_outer E:w_inner L:w_inner E:w_inner L:w_inner L:w_outer "
               "E:in thread L:in thread L:w_thread");

    /* "MPI_Finalize": what is open is closed, innermost first */
    upt_funcs_fini();
    EXPECT_LOG("L:pre L:main");
    upt_on = 0;
    check_nesting(1);

    /* after it: nothing recorded, the stack still balanced */
    w_outer();
    up_region_end("pre");
    upt_funcs_stats(&st);
    CHECK(st.unmatched_ends == 3);
    CHECK(st.functions >= 6 && st.filtered == 1); /* (once in the process) */
    upt_funcs_free();
    w_outer();
    CHECK(nevents == logged_from);
}

/* MPI initialised on another thread: it records from there on, with an empty
 * stack; main's thread records from there on too (issue 36: every thread),
 * what it was running before unrecorded. */
static APP void *w_mpi_thread(void *arg)
{
    (void)arg;
    upt_main_thread = pthread_self();
    upt_main_thread_set = 1;
    upt_on = 1;
    upt_funcs_init();
    EXPECT_LOG("");
    w_outer();
    up_region_begin("r");
    up_region_end("r");
    EXPECT_LOG("E:OV L:OV E:w_outer E:OV L:OV E:w_inner L:w_inner E:w_inner L:w_inner "
               "E:OV L:OV L:w_outer E:r L:r");
    return NULL;
}

static NOINST void test_other_thread(void)
{
    w_outer();
    pthread_t th;
    CHECK(pthread_create(&th, NULL, w_mpi_thread, NULL) == 0);
    pthread_join(th, NULL);
    w_outer(); /* main's thread: recorded, by the names the MPI thread gave */
    EXPECT_LOG("E:w_outer E:w_inner L:w_inner E:w_inner L:w_inner L:w_outer");
    upt_funcs_fini();
    EXPECT_LOG("");
    upt_on = 0;
    check_nesting(1);
    struct upt_funcs_stats st;
    upt_funcs_stats(&st);
    CHECK(st.unmatched_exits == 1); /* w_mpi_thread's own exit: entered before */
    upt_funcs_free();
}

int main(int argc, char **argv)
{
    const char *dir = getenv("TMPDIR");
    if (argc > 1 && strcmp(argv[1], "thread") == 0) {
        setenv("UNPERTURB_FILTER", "w_filt*", 1);
        test_other_thread();
    } else {
        test_symbols();
        test_filter(dir && *dir ? dir : "/tmp");
        test_hooks();
    }
    for (uint32_t i = 0; i < nregions; i++) {
        free(regions[i].name);
        free(regions[i].file);
    }
    if (failures) {
        fprintf(stderr, "symbols_test%s: %d check(s) failed\n", argc > 1 ? " thread" : "",
                failures);
        return 1;
    }
    printf("symbols_test%s: ok\n", argc > 1 ? " thread" : "");
    return 0;
}
