/*
 * test_omp_runtime.c - how `unperturb trace` arranges a program's OpenMP
 * runtime (src/run/omp_runtime.c): programs compiled here, at test time,
 * into the test's folder, and the decision for each:
 *
 *   - gcc -fopenmp: libgomp, every symbol in the installed LLVM libomp, the
 *     link route; run through the link, the program finds itself on libomp;
 *   - clang -fopenmp: libomp already, nothing to arrange;
 *   - a plain program: none; a script, a text file, a folder, a missing
 *     file: not checked;
 *   - gcc -fopenmp with `#pragma omp error` (GOMP_warning@GOMP_5.1, which
 *     libomp 14 lacks): the one-line message;
 *   - stand-ins for both runtimes built with linker version scripts (any gcc
 *     does; no OpenMP needed), so that each binding rule is checked against
 *     a known table: a symbol in the version the program needs, only in
 *     libomp's default version, a version node libomp does not define; the
 *     list cut after UP_OMP_SHOW; and against the dynamic loader itself:
 *     the programs linked with -z now (every symbol bound at start) run
 *     through the link exactly when the plan says so;
 *   - DT_RPATH holding a libgomp.so.1 (also as $ORIGIN): preload; DT_RUNPATH:
 *     link; UNPERTURB_LIBOMP naming no libomp; allocations failing.
 *
 * A test whose compiler (or OpenMP runtime) is missing says so and passes.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "run/omp_runtime.h"
#include "util/util.h"

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

static bool put(const char *dir, const char *name, const char *text, mode_t mode)
{
    char path[PATH_MAX];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!(f = fopen(path, "w")))
        return false;
    fputs(text, f);
    fclose(f);
    return chmod(path, mode) == 0;
}

/* Runs argv (in `dir` if not NULL, with LD_LIBRARY_PATH=ldpath if not
 * NULL), its output thrown away: its exit status, 127 if it cannot run,
 * -1 if a signal ended it. */
static int run(const char *dir, const char *ldpath, char *const *argv)
{
    int status;
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        if ((dir && chdir(dir) != 0) || (ldpath && setenv("LD_LIBRARY_PATH", ldpath, 1) != 0))
            _exit(126);
        unsetenv("LD_PRELOAD");
        execvp(argv[0], argv);
        _exit(127);
    }
    if (pid < 0)
        return -1;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* dir/name from dir/name.c (text) with the compiler cc and flags before
 * and after the source; 0, or the compiler's status (127: no compiler). */
static int build(const char *cc, const char *dir, const char *name, const char *text, const char *const *pre,
                 const char *const *post)
{
    char src[PATH_MAX], out[PATH_MAX];
    const char *argv[32];
    int n = 0;
    snprintf(src, sizeof src, "%s/%s.c", dir, name);
    snprintf(out, sizeof out, "%s/%s", dir, name);
    if (!put(dir, strrchr(src, '/') + 1, text, 0644))
        return -1;
    argv[n++] = cc;
    for (; pre && *pre && n < 24; pre++)
        argv[n++] = *pre;
    argv[n++] = "-o";
    argv[n++] = out;
    argv[n++] = src;
    for (; post && *post && n < 30; post++)
        argv[n++] = *post;
    argv[n] = NULL;
    return run(dir, NULL, (char *const *)argv);
}

static void skip(const char *why)
{
    printf("      (skipped: %s)\n", why);
}

static up_omp_plan plan_of(const char *path)
{
    up_omp_plan p;
    up_err err = {0};
    memset(&p, 0, sizeof p);
    CHECK(up_omp_plan_for(path, &p, &err) == UP_OK);
    return p;
}

/* UNPERTURB_LIBOMP for the test, and back */
static char saved_env[PATH_MAX];
static bool had_env;
static void env_set(const char *v)
{
    const char *old = getenv(UP_OMP_LIBOMP_ENV);
    had_env = old != NULL;
    snprintf(saved_env, sizeof saved_env, "%s", old ? old : "");
    if (v)
        setenv(UP_OMP_LIBOMP_ENV, v, 1);
    else
        unsetenv(UP_OMP_LIBOMP_ENV);
}
static void env_restore(void)
{
    if (had_env)
        setenv(UP_OMP_LIBOMP_ENV, saved_env, 1);
    else
        unsetenv(UP_OMP_LIBOMP_ENV);
}

/* ---- not programs -------------------------------------------------------------- */

TEST(omp_runtime_not_checked)
{
    const char *d = mkd("files");
    char path[PATH_MAX];
    up_omp_plan p;
    static const char *const names[] = {"run.sh", "notes.txt", "sub", "missing"};
    size_t i;

    CHECK(put(d, "run.sh", "#!/bin/sh\nexec ./app\n", 0755));
    CHECK(put(d, "notes.txt", "not a program\n", 0644));
    snprintf(path, sizeof path, "%s/sub", d);
    CHECK(mkdir(path, 0777) == 0);
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", d, names[i]);
        p = plan_of(path);
        CHECK_EQ(p.kind, UP_OMP_UNCHECKED);
        CHECK_EQ(p.route, UP_OMP_AS_IS);
        CHECK(!p.lost);
        CHECK(strstr(p.msg, "not checked for OpenMP") != NULL);
    }
    snprintf(path, sizeof path, "%s/run.sh", d);
    p = plan_of(path);
    CHECK(strstr(p.msg, "it is a script") != NULL);
    snprintf(path, sizeof path, "%s/sub", d);
    p = plan_of(path);
    CHECK(strstr(p.msg, "a directory") != NULL);
    /* a bare name is looked up in PATH, as execvp does */
    p = plan_of("unperturb-no-such-program-here");
    CHECK_EQ(p.kind, UP_OMP_UNCHECKED);
    CHECK(strstr(p.msg, "not in PATH") != NULL);
    p = plan_of("sh");
    CHECK(p.prog[0] == '/');
    CHECK(p.kind == UP_OMP_NONE || p.kind == UP_OMP_UNCHECKED);
    CHECK_EQ(strcmp(up_omp_kind_name(UP_OMP_LIBGOMP), "libgomp"), 0);
}

TEST(omp_runtime_plain)
{
    const char *d = mkd("plain");
    char path[PATH_MAX];
    up_omp_plan p;
    if (build("gcc", d, "plain", "int main(void) { return 0; }\n", NULL, NULL) != 0) {
        skip("gcc cannot build a program here");
        return;
    }
    snprintf(path, sizeof path, "%s/plain", d);
    p = plan_of(path);
    CHECK_EQ(p.kind, UP_OMP_NONE);
    CHECK_EQ(p.route, UP_OMP_AS_IS);
    CHECK(!p.lost);
    CHECK(strstr(p.msg, "needs no OpenMP runtime") != NULL);
}

/* ---- the real compilers and runtimes -------------------------------------------- */

/* exits 0 on libomp (which defines __kmpc_fork_call), 3 on libgomp */
static const char omp_prog[] =
    "#include <dlfcn.h>\n"
    "int omp_get_thread_num(void);\n"
    "int main(void) {\n"
    "    int n = 0;\n"
    "#pragma omp parallel num_threads(2) reduction(+ : n)\n"
    "    n += omp_get_thread_num() >= 0;\n"
    "    return n == 2 && dlsym(RTLD_DEFAULT, \"__kmpc_fork_call\") ? 0 : 3;\n"
    "}\n";

TEST(omp_runtime_gcc)
{
    static const char *const fl[] = {"-fopenmp", NULL}, *const libs[] = {"-ldl", NULL};
    const char *d = mkd("gcc"), *ld = mkd("link");
    char path[PATH_MAX], target[PATH_MAX], got[PATH_MAX], link[PATH_MAX + 16];
    char *argv[] = {path, NULL};
    up_omp_plan p;
    up_err err = {0};
    ssize_t n;

    if (build("gcc", d, "app", omp_prog, fl, libs) != 0) {
        skip("gcc -fopenmp cannot build a program here");
        return;
    }
    env_set(NULL);
    snprintf(path, sizeof path, "%s/app", d);
    p = plan_of(path);
    env_restore();
    CHECK_EQ(p.kind, UP_OMP_LIBGOMP);
    CHECK(p.needed >= 2); /* GOMP_parallel, omp_get_thread_num */
    CHECK_EQ(p.missing, 0);
    CHECK_EQ(run(NULL, NULL, argv), 3); /* on libgomp as it is */
    if (!p.libomp[0]) {
        CHECK(p.lost && strstr(p.msg, "no LLVM libomp was found") != NULL);
        skip("no LLVM libomp here");
        return;
    }
    CHECK_EQ(p.route, UP_OMP_LINK);
    CHECK(!p.lost);
    CHECK(strstr(p.msg, "stands in as libgomp.so.1") != NULL);
    /* the link, and the program through it: on libomp */
    CHECK(up_omp_link(&p, ld, &err) == UP_OK);
    snprintf(link, sizeof link, "%s/libgomp.so.1", ld);
    CHECK(realpath(p.libomp, target) != NULL);
    n = readlink(link, got, sizeof got - 1);
    CHECK(n > 0);
    got[n > 0 ? n : 0] = '\0';
    CHECK_EQ(strcmp(got, target), 0);
    CHECK_EQ(run(NULL, ld, argv), 0);
    /* a second link in the same place is an error that names it */
    CHECK(up_omp_link(&p, ld, &err) == UP_EIO);
    CHECK(strstr(err.msg, "libgomp.so.1") != NULL);
}

TEST(omp_runtime_clang)
{
    static const char *const fl[] = {"-fopenmp", NULL}, *const libs[] = {"-ldl", NULL};
    const char *d = mkd("clang");
    char path[PATH_MAX];
    up_omp_plan p;
    if (build("clang", d, "app", omp_prog, fl, libs) != 0) {
        skip("clang -fopenmp cannot build a program here");
        return;
    }
    snprintf(path, sizeof path, "%s/app", d);
    p = plan_of(path);
    CHECK_EQ(p.kind, UP_OMP_LIBOMP);
    CHECK_EQ(p.route, UP_OMP_AS_IS);
    CHECK(!p.lost);
    CHECK(strstr(p.msg, "which has OMPT") != NULL);
}

/* gcc 12 lowers `#pragma omp error` to GOMP_warning@GOMP_5.1 (or GOMP_error
 * for severity(fatal)); LLVM's libomp 14 has neither */
TEST(omp_runtime_gcc_missing)
{
    static const char *const fl[] = {"-fopenmp", NULL};
    const char *d = mkd("err");
    char path[PATH_MAX];
    up_omp_plan p;
    if (build("gcc", d, "app",
              "int main(int argc, char **argv) {\n"
              "    (void)argv;\n"
              "    if (argc > 5) {\n"
              "#pragma omp error at(execution) severity(warning) message(\"many\")\n"
              "    }\n"
              "    return 0;\n"
              "}\n",
              fl, NULL) != 0) {
        skip("gcc -fopenmp does not build `#pragma omp error` here (gcc 12 does)");
        return;
    }
    env_set(NULL);
    snprintf(path, sizeof path, "%s/app", d);
    p = plan_of(path);
    env_restore();
    CHECK_EQ(p.kind, UP_OMP_LIBGOMP);
    if (!p.libomp[0]) {
        skip("no LLVM libomp here");
        return;
    }
    CHECK_EQ(p.route, UP_OMP_AS_IS);
    CHECK(p.lost);
    CHECK_EQ(p.needed, 1);
    CHECK_EQ(p.missing, 1);
    CHECK(strstr(p.msg, "needs 1 symbol of libgomp that LLVM's libomp") != NULL);
    CHECK(strstr(p.msg, "GOMP_warning@GOMP_5.1") != NULL);
    CHECK(strstr(p.msg, "clang -fopenmp") != NULL);
    CHECK(strstr(p.msg, "only its threads") != NULL);
    CHECK(!strchr(p.msg, '\n'));
}

/* ---- stand-ins built with version scripts ------------------------------------- */

/* libgomp.so.1: the nodes and symbols a program can need */
static const char gomp_c[] = "int omp_get_thread_num(void) { return 0; }\n"
                             "void GOMP_parallel(void) {}\n"
                             "void GOMP_old(void) {}\n"
                             "void GOMP_teams4(void) {}\n"
                             "void GOMP_error(void) {}\n"
                             "void GOMP_warning(void) {}\n"
                             "void GOMP_scope_start(void) {}\n"
                             "void *omp_alloc(void) { return 0; }\n"
                             "void omp_free(void) {}\n";
static const char gomp_map[] =
    "OMP_1.0 { global: omp_get_thread_num; local: *; };\n"
    "GOMP_4.0 { global: GOMP_parallel; GOMP_old; } OMP_1.0;\n"
    "GOMP_5.1 { global: GOMP_teams4; GOMP_error; GOMP_warning; GOMP_scope_start; } GOMP_4.0;\n"
    "OMP_5.0.1 { global: omp_alloc; omp_free; } GOMP_5.1;\n";
/* libomp.so.5 as LLVM builds it: every function in the default version
 * VERSION, and an alias in the GOMP/OMP version gcc's programs need, for
 * those it implements: omp_get_thread_num@OMP_1.0 and GOMP_parallel@GOMP_4.0;
 * GOMP_old, omp_alloc and GOMP_teams4 only as name@@VERSION */
static const char omp_c[] = "int omp_get_thread_num(void) { return 0; }\n"
                            "int omp_get_thread_num_v(void) { return 0; }\n"
                            "__asm__(\".symver omp_get_thread_num_v, omp_get_thread_num@OMP_1.0\");\n"
                            "void GOMP_parallel(void) {}\n"
                            "void GOMP_parallel_v(void) {}\n"
                            "__asm__(\".symver GOMP_parallel_v, GOMP_parallel@GOMP_4.0\");\n"
                            "void GOMP_old(void) {}\n"
                            "void *omp_alloc(void) { return 0; }\n"
                            "void GOMP_teams4(void) {}\n";
static const char omp_map[] = "OMP_1.0 { };\n"
                              "GOMP_4.0 { } OMP_1.0;\n"
                              "VERSION { global: omp_get_thread_num; GOMP_parallel; GOMP_old; omp_alloc;"
                              " GOMP_teams4; local: *; };\n";

typedef struct stubs {
    char dir[1024];   /* the test's folder (mkd's) */
    char gomp[1100];  /* folder of the stand-in libgomp.so.1 */
    char omp[1200];   /* the stand-in libomp.so.5 */
    char link[1100];  /* folder of the link libgomp.so.1 -> it */
} stubs;

static bool stubs_build(stubs *s, const char *name)
{
    char gdir[1100], odir[1100], map[1300], out[1300];
    up_omp_plan p;
    up_err err = {0};
    snprintf(s->dir, sizeof s->dir, "%s", mkd(name));
    snprintf(gdir, sizeof gdir, "%s/g", s->dir);
    snprintf(odir, sizeof odir, "%s/o", s->dir);
    snprintf(s->link, sizeof s->link, "%s/l", s->dir);
    if (mkdir(gdir, 0777) || mkdir(odir, 0777) || mkdir(s->link, 0777) || !put(gdir, "gomp.map", gomp_map, 0644) ||
        !put(odir, "omp.map", omp_map, 0644))
        return false;
    {
        const char *pre[] = {"-shared", "-fPIC", "-Wl,-soname,libgomp.so.1", map, NULL};
        snprintf(map, sizeof map, "-Wl,--version-script=%s/gomp.map", gdir);
        if (build("gcc", gdir, "gomp", gomp_c, pre, NULL) != 0)
            return false;
        snprintf(out, sizeof out, "%s/gomp", gdir);
        snprintf(map, sizeof map, "%s/libgomp.so.1", gdir);
        if (rename(out, map) != 0)
            return false;
        snprintf(s->gomp, sizeof s->gomp, "%s", gdir);
    }
    {
        const char *pre[] = {"-shared", "-fPIC", "-Wl,-soname,libomp.so.5", map, NULL};
        snprintf(map, sizeof map, "-Wl,--version-script=%s/omp.map", odir);
        if (build("gcc", odir, "omp", omp_c, pre, NULL) != 0)
            return false;
        snprintf(out, sizeof out, "%s/omp", odir);
        snprintf(s->omp, sizeof s->omp, "%s/libomp.so.5", odir);
        if (rename(out, s->omp) != 0)
            return false;
    }
    snprintf(p.libomp, sizeof p.libomp, "%s", s->omp);
    return up_omp_link(&p, s->link, &err) == UP_OK;
}

/* a program of `text` against the stand-in libgomp, every symbol bound at
 * start (-z now); extra: linker flags (rpath) or NULL */
static bool stub_prog(const stubs *s, const char *name, const char *text, const char *extra)
{
    char lflag[PATH_MAX + 8];
    const char *post[] = {"-Wl,-z,now", "-Wl,--no-as-needed", lflag, "-l:libgomp.so.1", extra, NULL};
    snprintf(lflag, sizeof lflag, "-L%s", s->gomp);
    return build("gcc", s->dir, name, text, NULL, post) == 0;
}

static const char ok_c[] = "int omp_get_thread_num(void);\n"
                           "void GOMP_parallel(void);\n"
                           "int main(void) { GOMP_parallel(); return omp_get_thread_num(); }\n";

TEST(omp_runtime_binding_rules)
{
    stubs s;
    char path[PATH_MAX + 16];
    char *argv[] = {path, NULL};
    up_omp_plan p;

    if (!stubs_build(&s, "stubs")) {
        skip("gcc cannot build shared objects with version scripts here");
        return;
    }
    env_set(s.omp);
    /* in the versions it needs: the link route, and the loader agrees */
    CHECK(stub_prog(&s, "ok", ok_c, NULL));
    snprintf(path, sizeof path, "%s/ok", s.dir);
    p = plan_of(path);
    CHECK_EQ(p.kind, UP_OMP_LIBGOMP);
    CHECK_EQ(strcmp(p.libomp, s.omp), 0);
    CHECK_EQ(p.needed, 2);
    CHECK_EQ(p.missing, 0);
    CHECK_EQ(p.route, UP_OMP_LINK);
    CHECK(!p.lost);
    CHECK(strstr(p.msg, "defines the 2 symbols") != NULL);
    CHECK_EQ(run(NULL, s.link, argv), 0);

    /* GOMP_old@GOMP_4.0: libomp's node GOMP_4.0 exists, but GOMP_old is
     * only GOMP_old@@VERSION, which a versioned reference does not bind */
    CHECK(stub_prog(&s, "old",
                    "void GOMP_old(void);\nvoid GOMP_parallel(void);\n"
                    "int main(void) { GOMP_parallel(); GOMP_old(); return 0; }\n",
                    NULL));
    snprintf(path, sizeof path, "%s/old", s.dir);
    p = plan_of(path);
    CHECK_EQ(p.needed, 2);
    CHECK_EQ(p.missing, 1);
    CHECK(p.lost);
    CHECK_EQ(p.route, UP_OMP_AS_IS);
    CHECK(strstr(p.msg, "needs 1 symbol of libgomp") != NULL);
    CHECK(strstr(p.msg, "GOMP_old@GOMP_4.0;") != NULL);
    CHECK(run(NULL, s.link, argv) != 0);   /* "undefined symbol: GOMP_old, version GOMP_4.0" */
    CHECK_EQ(run(NULL, s.gomp, argv), 0); /* on its own libgomp it runs */

    /* six missing (nodes GOMP_5.1 and OMP_5.0.1 too): four named, "and 2 more" */
    CHECK(stub_prog(&s, "many",
                    "int omp_get_thread_num(void); void GOMP_parallel(void); void GOMP_teams4(void);\n"
                    "void GOMP_error(void); void GOMP_warning(void); void GOMP_scope_start(void);\n"
                    "void *omp_alloc(void); void omp_free(void);\n"
                    "int main(int argc, char **argv) {\n"
                    "    (void)argv;\n"
                    "    if (argc > 5) { GOMP_teams4(); GOMP_error(); GOMP_warning(); GOMP_scope_start();\n"
                    "                    omp_alloc(); omp_free(); }\n"
                    "    GOMP_parallel();\n"
                    "    return omp_get_thread_num();\n"
                    "}\n",
                    NULL));
    snprintf(path, sizeof path, "%s/many", s.dir);
    p = plan_of(path);
    CHECK_EQ(p.needed, 8);
    CHECK_EQ(p.missing, 6);
    CHECK(strstr(p.msg, "needs 6 symbols of libgomp") != NULL);
    CHECK(strstr(p.msg, " and 2 more; rebuild it with clang -fopenmp") != NULL);
    CHECK(strstr(p.msg, "@GOMP_5.1") != NULL);
    CHECK(!strstr(p.msg, "omp_get_thread_num") && !strstr(p.msg, "GOMP_parallel"));
    CHECK(run(NULL, s.link, argv) != 0); /* "version `GOMP_5.1' not found" */
    env_restore();
}

TEST(omp_runtime_rpath)
{
    stubs s;
    char path[PATH_MAX + 16], rpath[PATH_MAX + 64];
    up_omp_plan p;

    if (!stubs_build(&s, "stubs")) {
        skip("gcc cannot build shared objects with version scripts here");
        return;
    }
    env_set(s.omp);
    /* DT_RPATH is searched before LD_LIBRARY_PATH: libomp is preloaded */
    snprintf(rpath, sizeof rpath, "-Wl,--disable-new-dtags,-rpath,%s", s.gomp);
    CHECK(stub_prog(&s, "rpath", ok_c, rpath));
    snprintf(path, sizeof path, "%s/rpath", s.dir);
    p = plan_of(path);
    CHECK_EQ(p.route, UP_OMP_PRELOAD);
    CHECK(!p.lost);
    CHECK(strstr(p.msg, "is preloaded (its RPATH finds libgomp.so.1 in") != NULL);
    /* the same folder as $ORIGIN/g */
    CHECK(stub_prog(&s, "origin", ok_c, "-Wl,--disable-new-dtags,-rpath,$ORIGIN/g"));
    snprintf(path, sizeof path, "%s/origin", s.dir);
    p = plan_of(path);
    CHECK_EQ(p.route, UP_OMP_PRELOAD);
    /* an RPATH without libgomp.so.1: the link */
    CHECK(stub_prog(&s, "elsewhere", ok_c, "-Wl,--disable-new-dtags,-rpath,/nonexistent/lib"));
    snprintf(path, sizeof path, "%s/elsewhere", s.dir);
    p = plan_of(path);
    CHECK_EQ(p.route, UP_OMP_LINK);
    /* DT_RUNPATH comes after LD_LIBRARY_PATH: the link */
    snprintf(rpath, sizeof rpath, "-Wl,--enable-new-dtags,-rpath,%s", s.gomp);
    CHECK(stub_prog(&s, "runpath", ok_c, rpath));
    snprintf(path, sizeof path, "%s/runpath", s.dir);
    p = plan_of(path);
    CHECK_EQ(p.route, UP_OMP_LINK);
    env_restore();
}

TEST(omp_runtime_libomp_env)
{
    stubs s;
    char path[PATH_MAX + 16];
    up_omp_plan p;

    if (!stubs_build(&s, "stubs") || !stub_prog(&s, "ok", ok_c, NULL)) {
        skip("gcc cannot build shared objects with version scripts here");
        return;
    }
    snprintf(path, sizeof path, "%s/ok", s.dir);
    /* a file that is no library */
    env_set(path);
    p = plan_of(path);
    env_restore();
    CHECK_EQ(p.kind, UP_OMP_LIBGOMP);
    CHECK(p.lost);
    CHECK(!p.libomp[0]);
    CHECK_EQ(p.route, UP_OMP_AS_IS);
    CHECK(strstr(p.msg, "UNPERTURB_LIBOMP='") != NULL);
    CHECK(strstr(p.msg, "only its threads") != NULL);
    /* a file that is not there */
    env_set("/nonexistent/libomp.so.5");
    snprintf(path, sizeof path, "%s/ok", s.dir);
    p = plan_of(path);
    env_restore();
    CHECK(p.lost);
    CHECK(strstr(p.msg, "cannot read it") != NULL);
}

TEST(omp_runtime_out_of_memory)
{
    stubs s;
    char path[PATH_MAX + 16];
    up_omp_plan p;
    up_err err = {0};
    long n;
    up_status st = UP_ENOMEM;

    if (!stubs_build(&s, "stubs") || !stub_prog(&s, "ok", ok_c, NULL)) {
        skip("gcc cannot build shared objects with version scripts here");
        return;
    }
    snprintf(path, sizeof path, "%s/ok", s.dir);
    env_set(s.omp);
    for (n = 0; n < 64 && st != UP_OK; n++) {
        up_alloc_set_fail_after(n);
        st = up_omp_plan_for(path, &p, &err);
        up_alloc_set_fail_after(-1);
        CHECK(st == UP_OK || st == UP_ENOMEM);
    }
    env_restore();
    CHECK(n > 1); /* the first allocations failed */
    CHECK(st == UP_OK && p.route == UP_OMP_LINK);
}

/* The plan as the environment of a run (validate's uninstrumented runs take
 * it too): the variable each route sets, its folder or library first and
 * this process's old value after a colon; nothing for a program run as it
 * is, or when the buffer is too small */
TEST(omp_runtime_env)
{
    up_omp_plan p;
    char v[64] = "untouched", small[20];
    const char *val, *was_ld = getenv("LD_LIBRARY_PATH"), *was_pre = getenv("LD_PRELOAD");
    char *keep_ld = was_ld ? strdup(was_ld) : NULL, *keep_pre = was_pre ? strdup(was_pre) : NULL;
    memset(&p, 0, sizeof p);
    snprintf(p.libomp, sizeof p.libomp, "/l/libomp.so.5");
    p.kind = UP_OMP_LIBGOMP, p.route = UP_OMP_LINK;
    unsetenv("LD_LIBRARY_PATH");
    val = up_omp_env(&p, "/s/omp", v, sizeof v);
    CHECK_EQ(strcmp(v, "LD_LIBRARY_PATH=/s/omp"), 0);
    CHECK(val == v + 16);
    setenv("LD_LIBRARY_PATH", "", 1);
    up_omp_env(&p, "/s/omp", v, sizeof v);
    CHECK_EQ(strcmp(v, "LD_LIBRARY_PATH=/s/omp"), 0);
    setenv("LD_LIBRARY_PATH", "/a:/b", 1);
    CHECK(strcmp(up_omp_env(&p, "/s/omp", v, sizeof v), "/s/omp:/a:/b") == 0);
    CHECK_EQ(strcmp(v, "LD_LIBRARY_PATH=/s/omp:/a:/b"), 0);
    CHECK(up_omp_env(&p, "/s/omp", small, sizeof small) == NULL); /* 28 characters */
    CHECK_EQ(strcmp(up_omp_runs(&p), "libomp"), 0);
    p.route = UP_OMP_PRELOAD;
    setenv("LD_PRELOAD", "/x/shim.so", 1);
    CHECK(strcmp(up_omp_env(&p, "/s/omp", v, sizeof v), "/l/libomp.so.5:/x/shim.so") == 0);
    CHECK_EQ(strcmp(v, "LD_PRELOAD=/l/libomp.so.5:/x/shim.so"), 0);
    CHECK_EQ(strcmp(up_omp_runs(&p), "libomp"), 0);
    /* libomp cannot stand in: libgomp runs, nothing is set */
    p.route = UP_OMP_AS_IS, p.lost = true;
    snprintf(v, sizeof v, "untouched");
    CHECK(up_omp_env(&p, "/s/omp", v, sizeof v) == NULL);
    CHECK_EQ(strcmp(v, "untouched"), 0);
    CHECK_EQ(strcmp(up_omp_runs(&p), "libgomp"), 0);
    p.kind = UP_OMP_NONE, p.lost = false;
    CHECK_EQ(strcmp(up_omp_runs(&p), "none"), 0);
    p.kind = UP_OMP_LIBOMP;
    CHECK_EQ(strcmp(up_omp_runs(&p), "libomp"), 0);
    /* this process's environment as it was (later tests start programs) */
    keep_ld ? setenv("LD_LIBRARY_PATH", keep_ld, 1) : unsetenv("LD_LIBRARY_PATH");
    keep_pre ? setenv("LD_PRELOAD", keep_pre, 1) : unsetenv("LD_PRELOAD");
    free(keep_ld);
    free(keep_pre);
}
