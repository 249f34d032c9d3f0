/*
 * test_output.c - output sets (src/util/output.c): path containment with
 * symbolic links, "..", trailing slashes and missing folders; what an output
 * may not be; commit (all or none, also when the last rename fails) and
 * abort; the names of temporaries; the stale-temporary rules; tree removal
 * that never follows a link; and the signal handler, in a child process.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "util/util.h"

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        t_fail(__FILE__, __LINE__, "cannot create %s", path);
        return;
    }
    fputs(text, f);
    fclose(f);
}

static bool file_is(const char *path, const char *text)
{
    char buf[256];
    FILE *f = fopen(path, "r");
    size_t n;
    if (!f)
        return false;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return !strcmp(buf, text);
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* Entries of dir, '.' and '..' left out, as a sorted "a b c" string. */
static const char *listing(const char *dir)
{
    static char out[4096];
    char names[64][256];
    size_t n = 0, i, j;
    struct dirent *de;
    DIR *d = opendir(dir);
    out[0] = 0;
    if (!d)
        return "(none)";
    while ((de = readdir(d)) && n < 64)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            snprintf(names[n++], sizeof names[0], "%s", de->d_name);
    closedir(d);
    for (i = 1; i < n; i++)
        for (j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char t[256];
            memcpy(t, names[j], sizeof t);
            memcpy(names[j], names[j - 1], sizeof t);
            memcpy(names[j - 1], t, sizeof t);
        }
    for (i = 0; i < n; i++)
        snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s", i ? " " : "", names[i]);
    return out;
}

/* A folder for the test: D/in (a trace folder with traces.otf2 and
 * traces/0.evt), D/c.ini, and D/link -> D/in. */
static const char *fixture(char *d, size_t cap, const char *name)
{
    char p[PATH_MAX + 64];
    snprintf(d, cap, "%s", t_dir(name));
    mkdir(d, 0755);
    snprintf(p, sizeof p, "%s/in", d);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/in/traces", d);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/in/traces.otf2", d);
    put_file(p, "anchor");
    snprintf(p, sizeof p, "%s/in/traces/0.evt", d);
    put_file(p, "events");
    snprintf(p, sizeof p, "%s/c.ini", d);
    put_file(p, "[overhead]\n");
    snprintf(p, sizeof p, "%s/link", d);
    if (symlink("in", p) != 0)
        t_fail(__FILE__, __LINE__, "symlink %s", p);
    return d;
}

TEST(path_inside_is_lexical_on_components)
{
    CHECK(up_path_inside("/a/b", "/a"));
    CHECK(up_path_inside("/a", "/a"));
    CHECK(up_path_inside("/a/b/c", "/a/b"));
    CHECK(!up_path_inside("/ab", "/a"));
    CHECK(!up_path_inside("/a", "/a/b"));
    CHECK(up_path_inside("/a", "/"));
    CHECK(up_path_inside("/", "/"));
}

TEST(path_resolve_links_dots_slashes)
{
    char d[PATH_MAX], real[PATH_MAX], want[PATH_MAX + 64], p[PATH_MAX + 64], out[PATH_MAX];
    up_err err = {0};
    fixture(d, sizeof d, "res");
    CHECK(realpath(d, real) != NULL);
    /* a new file below a linked folder: the link is resolved */
    snprintf(p, sizeof p, "%s/link/x.json", d);
    snprintf(want, sizeof want, "%s/in/x.json", real);
    CHECK_EQ(up_path_resolve(p, out, sizeof out, &err), UP_OK);
    CHECK(!strcmp(out, want));
    /* ".." and repeated and trailing slashes */
    snprintf(p, sizeof p, "%s/in/traces/..//traces/../x.json", d);
    CHECK_EQ(up_path_resolve(p, out, sizeof out, &err), UP_OK);
    CHECK(!strcmp(out, want));
    snprintf(p, sizeof p, "%s/in///", d);
    snprintf(want, sizeof want, "%s/in", real);
    CHECK_EQ(up_path_resolve(p, out, sizeof out, &err), UP_OK);
    CHECK(!strcmp(out, want));
    snprintf(p, sizeof p, "%s/link/", d);
    CHECK_EQ(up_path_resolve(p, out, sizeof out, &err), UP_OK);
    CHECK(!strcmp(out, want));
    snprintf(p, sizeof p, "%s/in/traces/..", d);
    CHECK_EQ(up_path_resolve(p, out, sizeof out, &err), UP_OK);
    CHECK(!strcmp(out, want));
    /* an existing link to a file resolves to the file */
    snprintf(p, sizeof p, "%s/anchor.json", d);
    CHECK(symlink("in/traces.otf2", p) == 0);
    snprintf(want, sizeof want, "%s/in/traces.otf2", real);
    CHECK_EQ(up_path_resolve(p, out, sizeof out, &err), UP_OK);
    CHECK(!strcmp(out, want));
    /* a dangling link stays itself */
    snprintf(p, sizeof p, "%s/dangling", d);
    CHECK(symlink("nowhere", p) == 0);
    snprintf(want, sizeof want, "%s/dangling", real);
    CHECK_EQ(up_path_resolve(p, out, sizeof out, &err), UP_OK);
    CHECK(!strcmp(out, want));
    /* a missing folder is named */
    snprintf(p, sizeof p, "%s/nope/deeper/x", d);
    CHECK_EQ(up_path_resolve(p, out, sizeof out, &err), UP_EIO);
    CHECK(strstr(err.msg, "nope/deeper' does not exist") != NULL);
}

/* up_outset_begin of one output at `path` with the fixture's inputs */
static up_status try_output(const char *d, const char *path, up_out_kind kind, bool force,
                            bool anchor_input, up_err *err)
{
    char in[PATH_MAX + 64], calib[PATH_MAX + 64];
    up_outset *s = NULL;
    up_status st;
    snprintf(in, sizeof in, anchor_input ? "%s/in/traces.otf2" : "%s/in", d);
    snprintf(calib, sizeof calib, "%s/c.ini", d);
    if ((st = up_outset_new(&s, force, err)) == UP_OK && (st = up_outset_input(s, in, true, err)) == UP_OK &&
        (st = up_outset_input(s, calib, false, err)) == UP_OK &&
        (st = up_outset_add(s, path, kind, "-o", NULL, err)) == UP_OK)
        st = up_outset_begin(s, err);
    up_outset_free(s);
    return st;
}

TEST(outset_never_touches_an_input)
{
    static const char *const refused[] = {
        "in",               /* the trace's folder */
        "in/",              /* trailing slash */
        "in/traces.otf2",   /* the anchor */
        "in/traces/0.evt",  /* an event file */
        "in/new.json",      /* a new file in the folder */
        "in/sub/new.json",  /* below a folder that does not exist yet */
        "link/new.json",    /* through a linked folder */
        "in/traces/../x",   /* .. inside */
        "c.ini",            /* the calibration */
        ".",                /* holds both */
        "anchor.json",      /* a link to the anchor */
    };
    char d[PATH_MAX], p[PATH_MAX + 64], before[4096];
    up_err err = {0};
    size_t i;
    int k;
    fixture(d, sizeof d, "inputs");
    snprintf(p, sizeof p, "%s/anchor.json", d);
    CHECK(symlink("in/traces.otf2", p) == 0);
    snprintf(before, sizeof before, "%s", listing(d));
    for (k = 0; k < 4; k++)
        for (i = 0; i < sizeof refused / sizeof refused[0]; i++) {
            snprintf(p, sizeof p, "%s/%s", d, refused[i]);
            err.msg[0] = 0;
            if (try_output(d, p, k & 1 ? UP_OUT_DIR : UP_OUT_FILE, true, k >= 2, &err) != UP_EUSAGE)
                t_fail(__FILE__, __LINE__, "'%s' (kind %d, anchor %d) not refused: %s", refused[i], k & 1,
                       k >= 2, err.msg);
            else if (!strstr(err.msg, "refusing to write") || !strstr(err.msg, refused[i]))
                t_fail(__FILE__, __LINE__, "'%s': message '%s'", refused[i], err.msg);
        }
    CHECK(!strcmp(listing(d), before));
    snprintf(p, sizeof p, "%s/in/traces.otf2", d);
    CHECK(file_is(p, "anchor"));
    /* next to the input is fine */
    snprintf(p, sizeof p, "%s/in-out", d);
    CHECK_EQ(try_output(d, p, UP_OUT_DIR, false, false, &err), UP_OK);
    CHECK(!strcmp(listing(d), before));
    /* a "trace" that is a lone file, not an archive (no x.def, no x/): the
     * file alone is protected, not the folder it lies in */
    {
        char x[PATH_MAX + 64];
        up_outset *s = NULL;
        up_status st;
        snprintf(x, sizeof x, "%s/x.otf2", d);
        put_file(x, "not a trace");
        snprintf(p, sizeof p, "%s/x-out", d);
        CHECK_EQ(up_outset_new(&s, false, &err), UP_OK);
        CHECK_EQ(up_outset_input(s, x, true, &err), UP_OK);
        CHECK_EQ(up_outset_add(s, p, UP_OUT_DIR, "-o", NULL, &err), UP_OK);
        CHECK_EQ(up_outset_begin(s, &err), UP_OK);
        up_outset_free(s);
        CHECK_EQ(up_outset_new(&s, true, &err), UP_OK);
        CHECK_EQ(up_outset_input(s, x, true, &err), UP_OK);
        CHECK_EQ(up_outset_add(s, x, UP_OUT_FILE, "--json", NULL, &err), UP_OK);
        st = up_outset_begin(s, &err);
        CHECK_EQ(st, UP_EUSAGE);
        CHECK(strstr(err.msg, "it is the input") != NULL);
        up_outset_free(s);
        CHECK(file_is(x, "not a trace"));
    }
}

TEST(outset_outputs_do_not_overlap)
{
    char d[PATH_MAX], a[PATH_MAX + 64], b[PATH_MAX + 64];
    up_outset *s = NULL;
    up_err err = {0};
    snprintf(d, sizeof d, "%s", t_dir("overlap"));
    mkdir(d, 0755);
    snprintf(a, sizeof a, "%s/out", d);
    snprintf(b, sizeof b, "%s/out/", d);
    CHECK_EQ(up_outset_new(&s, true, &err), UP_OK);
    CHECK_EQ(up_outset_add(s, a, UP_OUT_DIR, "-o", NULL, &err), UP_OK);
    CHECK_EQ(up_outset_add(s, b, UP_OUT_FILE, "--json", NULL, &err), UP_OK);
    CHECK_EQ(up_outset_begin(s, &err), UP_EUSAGE);
    CHECK(strstr(err.msg, "given twice (-o and --json)") != NULL);
    up_outset_free(s);
    snprintf(b, sizeof b, "%s/out/s.json", d);
    CHECK_EQ(up_outset_new(&s, true, &err), UP_OK);
    CHECK_EQ(up_outset_add(s, a, UP_OUT_DIR, "-o", NULL, &err), UP_OK);
    CHECK_EQ(up_outset_add(s, b, UP_OUT_FILE, "--json", NULL, &err), UP_OK);
    CHECK_EQ(up_outset_begin(s, &err), UP_EUSAGE);
    CHECK(strstr(err.msg, "lies inside the output") != NULL);
    up_outset_free(s);
    CHECK(!strcmp(listing(d), ""));
}

TEST(outset_commit_and_abort)
{
    char d[PATH_MAX], dir[PATH_MAX + 64], file[PATH_MAX + 64], want[PATH_MAX + 128], p[PATH_MAX + 128];
    const char *host = up_output_host();
    up_outset *s = NULL;
    up_err err = {0};
    size_t i_dir = 9, i_file = 9;
    snprintf(d, sizeof d, "%s", t_dir("commit"));
    mkdir(d, 0755);
    snprintf(dir, sizeof dir, "%s/out", d);
    snprintf(file, sizeof file, "%s/s.json", d);

    /* abort: begun, written, freed without commit: nothing is left */
    CHECK_EQ(up_outset_new(&s, false, &err), UP_OK);
    CHECK_EQ(up_outset_add(s, dir, UP_OUT_DIR, "-o", &i_dir, &err), UP_OK);
    CHECK_EQ(up_outset_add(s, file, UP_OUT_FILE, "--json", &i_file, &err), UP_OK);
    CHECK_EQ(i_dir, 0);
    CHECK_EQ(i_file, 1);
    CHECK_EQ(up_outset_begin(s, &err), UP_OK);
    snprintf(want, sizeof want, "out.tmp-%s-%ld s.json.tmp-%s-%ld", host, (long)getpid(), host, (long)getpid());
    CHECK(!strcmp(listing(d), want));
    CHECK(!strcmp(up_outset_path(s, 1), file));
    CHECK(!strcmp(up_output_name(up_outset_tmp(s, 0)), dir));
    snprintf(p, sizeof p, "%s/traces.otf2", up_outset_tmp(s, 0));
    snprintf(want, sizeof want, "%s/traces.otf2", dir);
    CHECK(!strcmp(up_output_name(p), want));
    CHECK(!strcmp(up_output_name("/elsewhere"), "/elsewhere"));
    put_file(p, "new");
    CHECK_EQ(up_write_file(up_outset_tmp(s, 1), "{}", 2, &err), UP_OK);
    up_outset_free(s);
    CHECK(!strcmp(listing(d), ""));

    /* commit: both appear, no temporary left */
    CHECK_EQ(up_outset_new(&s, false, &err), UP_OK);
    CHECK_EQ(up_outset_add(s, dir, UP_OUT_DIR, "-o", NULL, &err), UP_OK);
    CHECK_EQ(up_outset_add(s, file, UP_OUT_FILE, "--json", NULL, &err), UP_OK);
    CHECK_EQ(up_outset_begin(s, &err), UP_OK);
    snprintf(p, sizeof p, "%s/traces.otf2", up_outset_tmp(s, 0));
    put_file(p, "first");
    CHECK_EQ(up_write_file(up_outset_tmp(s, 1), "first", 5, &err), UP_OK);
    CHECK_EQ(up_outset_commit(s, &err), UP_OK);
    up_outset_free(s);
    CHECK(!strcmp(listing(d), "out s.json"));
    CHECK(file_is(file, "first"));

    /* they exist: refused without force, the old ones kept */
    CHECK_EQ(up_outset_new(&s, false, &err), UP_OK);
    CHECK_EQ(up_outset_add(s, file, UP_OUT_FILE, "--json", NULL, &err), UP_OK);
    CHECK_EQ(up_outset_begin(s, &err), UP_EEXIST);
    CHECK(strstr(err.msg, "use --force") != NULL);
    up_outset_free(s);
    CHECK(file_is(file, "first"));

    /* a file never replaces a folder, a folder never a file, even with force */
    CHECK_EQ(up_outset_new(&s, true, &err), UP_OK);
    CHECK_EQ(up_outset_add(s, dir, UP_OUT_FILE, "--json", NULL, &err), UP_OK);
    CHECK_EQ(up_outset_begin(s, &err), UP_EEXIST);
    up_outset_free(s);
    CHECK_EQ(up_outset_new(&s, true, &err), UP_OK);
    CHECK_EQ(up_outset_add(s, file, UP_OUT_DIR, "-o", NULL, &err), UP_OK);
    CHECK_EQ(up_outset_begin(s, &err), UP_EEXIST);
    up_outset_free(s);
    CHECK(!strcmp(listing(d), "out s.json"));

    /* with force: replaced, the old contents gone */
    CHECK_EQ(up_outset_new(&s, true, &err), UP_OK);
    CHECK_EQ(up_outset_add(s, dir, UP_OUT_DIR, "-o", NULL, &err), UP_OK);
    CHECK_EQ(up_outset_add(s, file, UP_OUT_FILE, "--json", NULL, &err), UP_OK);
    CHECK_EQ(up_outset_begin(s, &err), UP_OK);
    snprintf(p, sizeof p, "%s/second", up_outset_tmp(s, 0));
    put_file(p, "second");
    CHECK_EQ(up_write_file(up_outset_tmp(s, 1), "second", 6, &err), UP_OK);
    CHECK_EQ(up_outset_commit(s, &err), UP_OK);
    up_outset_free(s);
    CHECK(!strcmp(listing(d), "out s.json"));
    CHECK(!strcmp(listing(dir), ".unperturb-output second"));
    snprintf(p, sizeof p, "%s/.unperturb-output", dir);
    CHECK(file_is(p, "unperturb output folder 1\ncommand unperturb\nf second\n"));
    CHECK(file_is(file, "second"));
}

TEST(outset_commit_is_all_or_none)
{
    char d[PATH_MAX], dir[PATH_MAX + 64], file[PATH_MAX + 64], p[PATH_MAX + 128];
    up_outset *s = NULL;
    up_err err = {0};
    snprintf(d, sizeof d, "%s", t_dir("allornone"));
    mkdir(d, 0755);
    snprintf(dir, sizeof dir, "%s/out", d);
    snprintf(file, sizeof file, "%s/s.json", d);
    mkdir(dir, 0755);
    snprintf(p, sizeof p, "%s/old", dir);
    put_file(p, "old");
    snprintf(p, sizeof p, "%s/.unperturb-output", dir); /* an earlier output */
    put_file(p, "unperturb output folder 1\ncommand test\nf old\n");
    /* the folder replaces an old one, then the file's rename fails because
     * a file of its name appeared meanwhile: the old folder comes back */
    CHECK_EQ(up_outset_new(&s, true, &err), UP_OK);
    CHECK_EQ(up_outset_add(s, dir, UP_OUT_DIR, "-o", NULL, &err), UP_OK);
    CHECK_EQ(up_outset_add(s, file, UP_OUT_FILE, "--json", NULL, &err), UP_OK);
    CHECK_EQ(up_outset_begin(s, &err), UP_OK);
    snprintf(p, sizeof p, "%s/new", up_outset_tmp(s, 0));
    put_file(p, "new");
    CHECK_EQ(up_write_file(up_outset_tmp(s, 1), "new", 3, &err), UP_OK);
    put_file(file, "intruder");
    CHECK_EQ(up_outset_commit(s, &err), UP_EIO);
    CHECK(strstr(err.msg, "s.json") && strstr(err.msg, "appeared"));
    up_outset_free(s);
    CHECK(!strcmp(listing(d), "out s.json"));
    CHECK(!strcmp(listing(dir), ".unperturb-output old"));
    CHECK(file_is(file, "intruder"));
}

/* pid of a process that has ended */
static pid_t gone_pid(void)
{
    int st;
    pid_t p = fork();
    if (p == 0)
        _exit(0);
    waitpid(p, &st, 0);
    return p;
}

static void age(const char *path, long seconds)
{
    struct timespec t[2];
    clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec -= seconds;
    t[1] = t[0];
    CHECK(utimensat(AT_FDCWD, path, t, AT_SYMLINK_NOFOLLOW) == 0);
}

/* D/<name> as a folder (or a file), its mtime `old` seconds back */
static void entry(const char *d, const char *name, bool dir, long old)
{
    char p[PATH_MAX + 256];
    snprintf(p, sizeof p, "%s/%s", d, name);
    if (dir)
        mkdir(p, 0755);
    else
        put_file(p, "x");
    if (old)
        age(p, old);
}

TEST(stale_temporaries_rules)
{
    enum { N = 11 };
    char d[PATH_MAX], out[PATH_MAX + 64], p[PATH_MAX + 512], name[N][256];
    const char *host = up_output_host();
    long g1 = (long)gone_pid(), g2 = (long)gone_pid(), g3 = (long)gone_pid();
    long live = (long)getppid(), me = (long)getpid();
    /* removed by the first sweep (UP_STALE_AGE_S), by the second (no age
     * limit), or never */
    static const int fate[N] = {1, 1, 1, 2, 2, 0, 0, 0, 0, 0, 0};
    int i;
    snprintf(d, sizeof d, "%s", t_dir("stale"));
    mkdir(d, 0755);
    snprintf(out, sizeof out, "%s/out", d);
    snprintf(name[0], sizeof name[0], "out.tmp-%s-%ld", host, g1);   /* old, gone: stale */
    snprintf(name[1], sizeof name[1], "out.old-%s-%ld", host, g2);   /* the same for .old */
    snprintf(name[2], sizeof name[2], "out.tmp-%s-%ld", host, me);   /* this id: a leftover */
    snprintf(name[3], sizeof name[3], "out.tmp-%s-%ld", host, g2);   /* gone, but young */
    snprintf(name[4], sizeof name[4], "out.tmp-%s-%ld", host, g3);   /* old, something young inside */
    snprintf(name[5], sizeof name[5], "out.tmp-other-host-%ld", g1); /* another host */
    snprintf(name[6], sizeof name[6], "out.tmp-%s-%ld", host, live); /* a live process */
    snprintf(name[7], sizeof name[7], "other.tmp-%s-%ld", host, g1); /* another output's */
    snprintf(name[8], sizeof name[8], "out.tmp-%s-%ldx", host, g1);  /* not the pattern */
    snprintf(name[9], sizeof name[9], "out.tmp-%s-", host);          /* no process id */
    snprintf(name[10], sizeof name[10], "out.tmp-%s.%ld", host, g1); /* not the pattern */
    entry(d, name[0], true, 0);
    snprintf(p, sizeof p, "%s/traces", name[0]);
    entry(d, p, true, 0);
    snprintf(p, sizeof p, "%s/traces/0.evt", name[0]);
    entry(d, p, false, 7200);
    snprintf(p, sizeof p, "%s/%s/traces", d, name[0]);
    age(p, 7200);
    entry(d, name[4], true, 0);
    snprintf(p, sizeof p, "%s/young", name[4]);
    entry(d, p, false, 0);
    for (i = 0; i < N; i++) {
        if (i != 0 && i != 4)
            entry(d, name[i], i != 2, i == 3 ? 0 : 7200);
        else {
            snprintf(p, sizeof p, "%s/%s", d, name[i]);
            age(p, 7200);
        }
    }
    CHECK_EQ(up_output_sweep(out, UP_STALE_AGE_S), 3);
    for (i = 0; i < N; i++) {
        snprintf(p, sizeof p, "%s/%s", d, name[i]);
        if (exists(p) != (fate[i] != 1))
            t_fail(__FILE__, __LINE__, "first sweep: %s %s", name[i], exists(p) ? "kept" : "removed");
    }
    CHECK_EQ(up_output_sweep(out, 0), 2);
    for (i = 0; i < N; i++) {
        snprintf(p, sizeof p, "%s/%s", d, name[i]);
        if (exists(p) != (fate[i] == 0))
            t_fail(__FILE__, __LINE__, "second sweep: %s %s", name[i], exists(p) ? "kept" : "removed");
    }
}

TEST(rmtree_never_follows_links)
{
    char d[PATH_MAX], p[PATH_MAX + 64], q[PATH_MAX + 128], keep[PATH_MAX + 64];
    int i;
    snprintf(d, sizeof d, "%s", t_dir("rmtree"));
    mkdir(d, 0755);
    snprintf(p, sizeof p, "%s/keep", d);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/keep/file", d);
    put_file(p, "k");
    snprintf(keep, sizeof keep, "%s/keep", d);
    snprintf(p, sizeof p, "%s/tree", d);
    for (i = 0; i < 12; i++) { /* deep, with files and links on the way */
        mkdir(p, 0755);
        snprintf(q, sizeof q, "%s/f", p);
        put_file(q, "x");
        snprintf(q, sizeof q, "%s/l", p);
        CHECK(symlink(keep, q) == 0);
        snprintf(p + strlen(p), sizeof p - strlen(p), "/d");
    }
    snprintf(p, sizeof p, "%s/tree", d);
    CHECK_EQ(up_rmtree(p), 0);
    CHECK(!exists(p));
    snprintf(p, sizeof p, "%s/keep/file", d);
    CHECK(file_is(p, "k"));
    /* a link itself goes, its target stays; a missing path is no error */
    snprintf(p, sizeof p, "%s/ln", d);
    CHECK(symlink("keep", p) == 0);
    CHECK_EQ(up_rmtree(p), 0);
    CHECK(!exists(p));
    snprintf(p, sizeof p, "%s/keep/file", d);
    CHECK(file_is(p, "k"));
    snprintf(p, sizeof p, "%s/missing", d);
    CHECK_EQ(up_rmtree(p), 0);
}

/* A child begins an output set, writes into it and is killed by `sig`: it
 * dies by that signal and leaves nothing. */
static void killed_by(int sig)
{
    char d[PATH_MAX], out[PATH_MAX + 64], file[PATH_MAX + 64];
    int pipefd[2], st;
    char c;
    pid_t p;
    snprintf(d, sizeof d, "%s-%d", t_dir("signal"), sig);
    up_rmtree(d);
    mkdir(d, 0755);
    snprintf(out, sizeof out, "%s/out", d);
    snprintf(file, sizeof file, "%s/s.json", d);
    CHECK(pipe(pipefd) == 0);
    fflush(NULL);
    if ((p = fork()) == 0) {
        up_outset *s = NULL;
        char q[PATH_MAX + 128];
        signal(sig, SIG_DFL);
        if (up_outset_new(&s, false, NULL) != UP_OK || up_outset_add(s, out, UP_OUT_DIR, "-o", NULL, NULL) ||
            up_outset_add(s, file, UP_OUT_FILE, "--json", NULL, NULL) || up_outset_begin(s, NULL) != UP_OK)
            _exit(3);
        snprintf(q, sizeof q, "%s/traces", up_outset_tmp(s, 0));
        mkdir(q, 0755);
        snprintf(q, sizeof q, "%s/traces/0.evt", up_outset_tmp(s, 0));
        put_file(q, "events");
        put_file(up_outset_tmp(s, 1), "{");
        if (write(pipefd[1], "w", 1) != 1)
            _exit(4);
        for (;;)
            pause(); /* the parent's signal ends this */
    }
    close(pipefd[1]);
    CHECK(read(pipefd[0], &c, 1) == 1); /* the child has written */
    close(pipefd[0]);
    CHECK(strstr(listing(d), ".tmp-") != NULL);
    kill(p, sig);
    CHECK(waitpid(p, &st, 0) == p);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == sig);
    if (strcmp(listing(d), ""))
        t_fail(__FILE__, __LINE__, "signal %d left '%s'", sig, listing(d));
    up_rmtree(d);
}

TEST(signals_remove_temporaries)
{
    killed_by(SIGINT);
    killed_by(SIGTERM);
    killed_by(SIGHUP);
    killed_by(SIGPIPE);
}

/* --force replaces a folder only when its .unperturb-output lists exactly
 * what it holds (or it is empty); "-" is standard output; a scratch folder
 * is made and removed */
TEST(outset_force_only_over_outputs)
{
    char d[PATH_MAX], dir[PATH_MAX + 64], p[PATH_MAX + 128], scratch[PATH_MAX];
    up_outset *s = NULL;
    up_err err = {0};
    size_t i = 9;
    struct stat st;
    snprintf(d, sizeof d, "%s", t_dir("forceonly"));
    mkdir(d, 0755);
    snprintf(dir, sizeof dir, "%s/out", d);
    mkdir(dir, 0755);
    snprintf(p, sizeof p, "%s/notes.txt", dir);
    put_file(p, "mine");
    CHECK_EQ(up_outset_new(&s, true, &err), UP_OK);
    CHECK_EQ(up_outset_add(s, dir, UP_OUT_DIR, "-o", NULL, &err), UP_OK);
    CHECK_EQ(up_outset_begin(s, &err), UP_EEXIST);
    CHECK(strstr(err.msg, "notes.txt'") && strstr(err.msg, "no .unperturb-output"));
    up_outset_free(s);
    CHECK(file_is(p, "mine"));
    /* listed, but the folder holds one more */
    snprintf(p, sizeof p, "%s/.unperturb-output", dir);
    put_file(p, "unperturb output folder 1\ncommand test\nf notes.txt\n");
    snprintf(p, sizeof p, "%s/sub", dir);
    mkdir(p, 0755);
    CHECK_EQ(up_outset_new(&s, true, &err), UP_OK);
    CHECK_EQ(up_outset_add(s, dir, UP_OUT_DIR, "-o", NULL, &err), UP_OK);
    CHECK_EQ(up_outset_begin(s, &err), UP_EEXIST);
    CHECK(strstr(err.msg, "out/sub' is not listed") != NULL);
    up_outset_free(s);
    /* listed exactly: replaced */
    snprintf(p, sizeof p, "%s/.unperturb-output", dir);
    put_file(p, "unperturb output folder 1\ncommand test\nd sub\nf notes.txt\n");
    CHECK_EQ(up_outset_new(&s, true, &err), UP_OK);
    CHECK_EQ(up_outset_add(s, dir, UP_OUT_DIR, "-o", NULL, &err), UP_OK);
    CHECK_EQ(up_outset_begin(s, &err), UP_OK);
    CHECK_EQ(up_outset_commit(s, &err), UP_OK);
    up_outset_free(s);
    CHECK(!strcmp(listing(dir), ".unperturb-output"));
    /* changed in place (trace --recover): the marker written anew lists it */
    snprintf(p, sizeof p, "%s/merged", dir);
    put_file(p, "x");
    CHECK_EQ(up_output_remark(dir, &err), UP_OK);
    snprintf(p, sizeof p, "%s/.unperturb-output", dir);
    CHECK(file_is(p, "unperturb output folder 1\ncommand unperturb\nf merged\n"));
    CHECK(!strcmp(listing(dir), ".unperturb-output merged"));
    CHECK_EQ(up_output_remark(d, &err), UP_OK); /* no marker: left so */
    CHECK(!strcmp(listing(d), "out"));
    /* "-": standard output, at most one; a folder cannot be */
    CHECK_EQ(up_outset_new(&s, false, &err), UP_OK);
    CHECK_EQ(up_outset_add(s, "-", UP_OUT_FILE, "--json", NULL, &err), UP_OK);
    CHECK_EQ(up_outset_add(s, "-", UP_OUT_FILE, "-o", NULL, &err), UP_EUSAGE);
    CHECK_EQ(up_outset_add(s, "-", UP_OUT_DIR, "-o", NULL, &err), UP_EUSAGE);
    CHECK_EQ(up_outset_scratch(s, &i, &err), UP_OK);
    CHECK_EQ(i, 1);
    CHECK_EQ(up_outset_begin(s, &err), UP_OK);
    CHECK(up_outset_stdout(s));
    CHECK(!strcmp(up_outset_tmp(s, 0), UP_OUTPUT_STDOUT));
    snprintf(scratch, sizeof scratch, "%s", up_outset_tmp(s, 1));
    CHECK(stat(scratch, &st) == 0 && S_ISDIR(st.st_mode));
    CHECK_EQ(up_outset_commit(s, &err), UP_OK);
    up_outset_free(s);
    CHECK(stat(scratch, &st) != 0); /* removed, although committed */
}
