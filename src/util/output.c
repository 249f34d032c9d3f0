/*
 * output.c - outputs that are complete or absent, inputs that are never
 * written: file helpers, path containment, output sets and the signal
 * handlers that remove their temporaries (src/util/util.h).
 *
 * Place in the data flow: below everything else.  Every command that writes
 * declares its inputs and outputs in an up_outset before any work starts;
 * the libraries write where the command tells them (a temporary) and name
 * up_output_name() of it in their messages.
 *
 * The signal handler may only use async-signal-safe calls, so the paths of
 * the temporaries live in static storage (the slots), filled with signals
 * blocked, and trees are removed with openat/getdents64/unlinkat/fstatat.
 */
#include "util/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RM_DEPTH 64   /* deepest tree removed (validate's is 5 deep) */
#define SLOTS 32      /* temporaries registered at once, over all sets */

/* ---- removing a tree: async-signal-safe ------------------------------------- */

struct dirent64_ {
    uint64_t ino;
    int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[];
};

static int rm_at(int dirfd, const char *name, unsigned char type, int depth);

/* Removes everything in the open folder fd; returns the first errno. */
static int rm_entries(int fd, int depth)
{
    char buf[2048] __attribute__((aligned(8)));
    long n, i;
    int first = 0, e;
    while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
        for (i = 0; i < n;) {
            struct dirent64_ *d = (struct dirent64_ *)(void *)(buf + i);
            i += d->reclen;
            if (d->name[0] == '.' && (!d->name[1] || (d->name[1] == '.' && !d->name[2])))
                continue;
            if ((e = rm_at(fd, d->name, d->type, depth + 1)) != 0 && !first)
                first = e;
        }
    if (n < 0 && !first)
        first = errno;
    return first;
}

static int rm_at(int dirfd, const char *name, unsigned char type, int depth)
{
    struct stat st;
    int fd, e = 0, pass;
    if (type == DT_UNKNOWN) {
        if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            return errno == ENOENT ? 0 : errno;
        type = S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
    }
    if (type != DT_DIR)
        return unlinkat(dirfd, name, 0) == 0 || errno == ENOENT ? 0 : errno;
    if (depth > RM_DEPTH)
        return ELOOP;
    /* a folder changing while it is read may need a second pass */
    for (pass = 0; pass < 3; pass++) {
        if ((fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
            return errno == ENOENT ? 0 : errno;
        e = rm_entries(fd, depth);
        close(fd);
        if (unlinkat(dirfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
            return 0;
        if (errno != ENOTEMPTY && errno != EEXIST)
            return e ? e : errno;
    }
    return e ? e : ENOTEMPTY;
}

int up_rmtree(const char *path)
{
    int e = rm_at(AT_FDCWD, path, DT_UNKNOWN, 0);
    if (e) {
        errno = e;
        return -1;
    }
    return 0;
}

/* ---- the registered temporaries and the signal handler ------------------------ */

static struct {
    volatile sig_atomic_t used;
    char path[PATH_MAX];
    const char *name;          /* as the user gave it (owned by the set) */
} slots[SLOTS];
static volatile sig_atomic_t slots_pid; /* the process that registered them */

/* Every signal whose default action ends the process and that a handler can
 * catch, but for the faults a crash raises (SIGSEGV, SIGBUS, SIGILL, SIGFPE,
 * SIGABRT, SIGTRAP, SIGSYS: a handler cannot trust the state they leave)
 * and SIGXFSZ, which up_signals_init ignores so that a write past the file
 * size limit fails with EFBIG like any other write error. */
static const int fatal_sigs[] = {SIGHUP,  SIGINT,    SIGQUIT, SIGTERM, SIGPIPE, SIGUSR1,  SIGUSR2,
                                 SIGALRM, SIGXCPU,   SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT};
#define NSIGS (sizeof fatal_sigs / sizeof fatal_sigs[0])

/* the set of them, with the real-time signals (whose numbers glibc knows
 * only at run time) */
static void fatal_set(sigset_t *s)
{
    size_t i;
    int r;
    sigemptyset(s);
    for (i = 0; i < NSIGS; i++)
        sigaddset(s, fatal_sigs[i]);
    for (r = SIGRTMIN; r <= SIGRTMAX; r++)
        sigaddset(s, r);
}

static void block_sigs(sigset_t *old)
{
    sigset_t s;
    fatal_set(&s);
    sigprocmask(SIG_BLOCK, &s, old);
}

static void restore_sigs(const sigset_t *old) { sigprocmask(SIG_SETMASK, old, NULL); }

static int slot_add(const char *path, const char *name)
{
    sigset_t old;
    size_t n = strlen(path);
    int i, got = -1;
    if (n >= PATH_MAX)
        return -1;
    block_sigs(&old);
    for (i = 0; i < SLOTS && got < 0; i++)
        if (!slots[i].used) {
            memcpy(slots[i].path, path, n + 1);
            slots[i].name = name;
            slots[i].used = 1;
            got = i;
        }
    slots_pid = (sig_atomic_t)getpid();
    restore_sigs(&old);
    return got;
}

static void slot_drop(int *i)
{
    sigset_t old;
    if (*i < 0)
        return;
    block_sigs(&old);
    slots[*i].used = 0;
    slots[*i].name = NULL;
    restore_sigs(&old);
    *i = -1;
}

/* Removes every registered temporary, then ends the process by the signal
 * with its default action: the exit status is 128 + sig as usual.  A forked
 * child that has not exec'd yet inherits the slots: it leaves them alone. */
static void on_fatal_signal(int sig)
{
    static struct sigaction dfl; /* zero: SIG_DFL, empty mask */
    sigset_t s;
    int i;
    if ((pid_t)slots_pid == getpid())
        for (i = 0; i < SLOTS; i++)
            if (slots[i].used)
                rm_at(AT_FDCWD, slots[i].path, DT_UNKNOWN, 0);
    sigaction(sig, &dfl, NULL);
    sigemptyset(&s);
    sigaddset(&s, sig);
    sigprocmask(SIG_UNBLOCK, &s, NULL);
    raise(sig);
    _exit(128 + sig);
}

/* Installs the handler for every fatal signal that is not ignored (nohup's
 * SIGHUP stays ignored), once per process. */
static void arm_signals(void)
{
    static pid_t armed;
    struct sigaction sa, old;
    int sig;
    if (armed == getpid())
        return;
    armed = getpid();
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    fatal_set(&sa.sa_mask);
    for (sig = 1; sig < NSIG; sig++)
        if (sigismember(&sa.sa_mask, sig) == 1 && sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_DFL)
            sigaction(sig, &sa, NULL);
}

static bool xfsz_ignored; /* by up_signals_init: children get it back */

void up_signals_init(void)
{
    struct sigaction old;
    if (sigaction(SIGXFSZ, NULL, &old) == 0 && old.sa_handler == SIG_DFL) {
        signal(SIGXFSZ, SIG_IGN);
        xfsz_ignored = true;
    }
}

void up_signals_child(void)
{
    if (xfsz_ignored)
        signal(SIGXFSZ, SIG_DFL);
}

const char *up_output_name(const char *path)
{
    static char buf[PATH_MAX + 64];
    size_t i, n;
    if (!path)
        return "";
    if (!strcmp(path, UP_OUTPUT_STDOUT))
        return "standard output";
    for (i = 0; i < SLOTS; i++) {
        if (!slots[i].used || !slots[i].name)
            continue;
        n = strlen(slots[i].path);
        if (!strncmp(path, slots[i].path, n) && (!path[n] || path[n] == '/')) {
            if (!path[n])
                return slots[i].name;
            snprintf(buf, sizeof buf, "%s%s", slots[i].name, path + n);
            return buf;
        }
    }
    return path;
}

/* ---- writing a file ------------------------------------------------------------- */

up_status up_write_file(const char *path, const void *data, size_t len, up_err *err)
{
    const char *p = data;
    bool out = !strcmp(path, UP_OUTPUT_STDOUT); /* an output "-" (up_outset_add) */
    int fd = 1, e;
    if (!out && (fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) < 0)
        return UP_ERR(err, UP_EIO, "cannot write '%s': %s", up_output_name(path), strerror(errno));
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            e = n < 0 ? errno : EIO;
            if (!out)
                close(fd);
            goto fail;
        }
        p += n;
        len -= (size_t)n;
    }
    if (!out && close(fd) != 0) {
        e = errno;
        goto fail;
    }
    return UP_OK;
fail:
    if (out)
        return UP_ERR(err, UP_EIO, "cannot write to standard output: %s", strerror(e));
    unlink(path);
    return UP_ERR(err, UP_EIO, "cannot write '%s': %s", up_output_name(path), strerror(e));
}

void up_output_remove(const char *path)
{
    if (strcmp(path, UP_OUTPUT_STDOUT))
        remove(path);
}

FILE *up_output_fopen(const char *path)
{
    int fd;
    FILE *f;
    if (strcmp(path, UP_OUTPUT_STDOUT))
        return fopen(path, "wb");
    fflush(stdout);
    if ((fd = dup(1)) < 0)
        return NULL;
    if (!(f = fdopen(fd, "wb")))
        close(fd);
    return f;
}

/* ---- paths ------------------------------------------------------------------------ */

/* `path` without trailing slashes, split into its folder and last name. */
static up_status split(const char *path, char *dir, char *base, up_err *err)
{
    char p[PATH_MAX];
    size_t n = strlen(path);
    char *slash;
    if (!n)
        return UP_ERR(err, UP_EUSAGE, "an empty path");
    if (n >= sizeof p)
        return UP_ERR(err, UP_EUSAGE, "path too long: '%.200s...'", path);
    memcpy(p, path, n + 1);
    while (n > 1 && p[n - 1] == '/')
        p[--n] = 0;
    if (!(slash = strrchr(p, '/'))) {
        strcpy(dir, ".");
        strcpy(base, p);
    } else if (slash == p) {
        strcpy(dir, "/");
        strcpy(base, p[1] ? p + 1 : ".");
    } else {
        *slash = 0;
        strcpy(dir, p);
        strcpy(base, slash + 1);
    }
    return UP_OK;
}

/* The output's place (its folder resolved, its last name kept: where a
 * rename puts it) and real path (through a symbolic link it is).  When its
 * folder does not exist, the deepest folder above it that does is resolved
 * and the rest kept as given (*missing set): enough to see that it lies
 * inside an input or another output. */
static up_status resolve2(const char *path, char *place, char *real, bool *missing, up_err *err)
{
    char dir[PATH_MAX], base[PATH_MAX], rdir[PATH_MAX], rest[PATH_MAX] = "", d2[PATH_MAX], b2[PATH_MAX];
    struct stat st;
    size_t nd, nb, nr;
    up_status s;
    *missing = false;
    if ((s = split(path, dir, base, err)) != UP_OK)
        return s;
    if (!strcmp(base, ".") || !strcmp(base, "..")) {
        if (!realpath(path, real))
            return UP_ERR(err, UP_EIO, "cannot write '%s': %s", path, strerror(errno));
        strcpy(place, real);
        return UP_OK;
    }
    while (!realpath(dir, rdir)) {
        if (errno != ENOENT && errno != ENOTDIR)
            return UP_ERR(err, UP_EIO, "cannot write '%s': %s: %s", path, dir, strerror(errno));
        if (split(dir, d2, b2, err) != UP_OK || !strcmp(b2, ".") || !strcmp(b2, "..") || !strcmp(d2, dir) ||
            strlen(b2) + strlen(rest) + 2 > sizeof rest)
            return UP_ERR(err, UP_EIO, "cannot write '%s': the folder '%s' does not exist", path, dir);
        memmove(rest + strlen(b2) + 1, rest, strlen(rest) + 1);
        memcpy(rest, b2, strlen(b2));
        rest[strlen(b2)] = '/';
        strcpy(dir, d2);
        *missing = true;
    }
    nd = strcmp(rdir, "/") ? strlen(rdir) : 0;
    nr = strlen(rest);
    nb = strlen(base);
    if (nd + nr + nb + 2 > PATH_MAX)
        return UP_ERR(err, UP_EUSAGE, "path too long: '%.200s...'", path);
    memcpy(place, rdir, nd);
    place[nd] = '/';
    memcpy(place + nd + 1, rest, nr);
    memcpy(place + nd + 1 + nr, base, nb + 1);
    if (*missing || lstat(place, &st) != 0 || !realpath(place, real))
        strcpy(real, place); /* not there yet, or a dangling link */
    return UP_OK;
}

up_status up_path_resolve(const char *path, char *out, size_t cap, up_err *err)
{
    char place[PATH_MAX], real[PATH_MAX], dir[PATH_MAX], base[PATH_MAX];
    bool missing;
    up_status s;
    if ((s = resolve2(path, place, real, &missing, err)) != UP_OK)
        return s;
    if (missing && split(path, dir, base, err) == UP_OK)
        return UP_ERR(err, UP_EIO, "cannot write '%s': the folder '%s' does not exist", path, dir);
    if (strlen(real) >= cap)
        return UP_ERR(err, UP_EUSAGE, "path too long: '%.200s...'", path);
    strcpy(out, real);
    return UP_OK;
}

bool up_path_inside(const char *inner, const char *outer)
{
    size_t n = strlen(outer);
    if (!strcmp(outer, "/"))
        return inner[0] == '/';
    return !strncmp(inner, outer, n) && (inner[n] == 0 || inner[n] == '/');
}

/* ---- temporaries --------------------------------------------------------------------- */

const char *up_output_host(void)
{
    static char host[65];
    char *c;
    if (!host[0]) {
        if (gethostname(host, sizeof host - 1) != 0 || !host[0])
            strcpy(host, "localhost");
        host[sizeof host - 1] = 0;
        for (c = host; *c; c++)
            if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                  *c == '.' || *c == '_' || *c == '-'))
                *c = '_';
    }
    return host;
}

static time_t newest_mtime;

static int note_mtime(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
    (void)p, (void)flag, (void)f;
    if (sb->st_mtime > newest_mtime)
        newest_mtime = sb->st_mtime;
    return 0;
}

/* "<pid>" of a name after its prefix: digits only */
static long tail_pid(const char *s)
{
    long v = 0;
    int n = 0;
    for (; *s; s++, n++) {
        if (*s < '0' || *s > '9' || n >= 9)
            return -1;
        v = v * 10 + (*s - '0');
    }
    return n ? v : -1;
}

static bool process_gone(long pid)
{
    if (pid <= 0)
        return false;
    if (pid == (long)getpid())
        return true; /* a leftover of an earlier process with this id */
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

size_t up_output_sweep(const char *path, long min_age_s)
{
    char dir[PATH_MAX], base[PATH_MAX], pre[2][PATH_MAX], full[2 * PATH_MAX];
    size_t removed = 0, k, n[2];
    time_t now = time(NULL);
    struct dirent *de;
    DIR *d;
    if (split(path, dir, base, NULL) != UP_OK || !(d = opendir(dir)))
        return 0;
    for (k = 0; k < 2; k++)
        n[k] = (size_t)snprintf(pre[k], sizeof pre[k], "%s.%s-%s-", base, k ? "old" : "tmp", up_output_host());
    while ((de = readdir(d)) != NULL) {
        long pid = -1;
        for (k = 0; k < 2 && pid < 0; k++)
            if (!strncmp(de->d_name, pre[k], n[k]))
                pid = tail_pid(de->d_name + n[k]);
        if (!process_gone(pid))
            continue;
        snprintf(full, sizeof full, "%s/%s", dir, de->d_name);
        newest_mtime = 0;
        if (nftw(full, note_mtime, 16, FTW_PHYS) != 0 || now - newest_mtime < min_age_s)
            continue;
        if (up_rmtree(full) == 0)
            removed++;
    }
    closedir(d);
    return removed;
}

/* ---- output sets ------------------------------------------------------------------------- */

enum { PUT_NONE, PUT_NEW, PUT_SWAPPED, PUT_MOVED };

typedef struct out_in {
    char *given;
    char *real;         /* the file, or the trace's folder; NULL: not there */
    bool trace;         /* a folder of a trace: nothing in it is written */
    bool anchor;        /* a trace given by its anchor file, not its folder */
    const char *part;   /* a trace's file or folder outside its folder: what */
} out_in;

typedef struct out_out {
    char *given, *what;
    up_out_kind kind;
    char *place;        /* folder resolved, last name kept: the rename's target */
    char *real;         /* through a symbolic link it is */
    char *tmp, *old;    /* <place>.tmp-<host>-<pid>, .old-<host>-<pid> */
    int slot, old_slot;
    bool exists, created;
    int put;
    bool missing;       /* its folder does not exist */
    bool stream;        /* "-": standard output, no file */
    bool scratch;       /* a private folder, removed by up_outset_free */
} out_out;

struct up_outset {
    bool force, begun, committed;
    out_in *in;
    size_t nin, capin;
    out_out *out;
    size_t nout, capout;
};

up_status up_outset_new(up_outset **s, bool force, up_err *err)
{
    if (!(*s = up_calloc(1, sizeof **s)))
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    (*s)->force = force;
    return UP_OK;
}

/* An OTF2 anchor X.otf2 comes with X.def or the folder X (its events): then
 * the folder that holds them is the archive. */
static bool is_anchor(const char *real)
{
    char p[PATH_MAX + 8];
    struct stat st;
    size_t n = strlen(real);
    if (n < 6 || strcmp(real + n - 5, ".otf2") || n + 4 > PATH_MAX)
        return false;
    memcpy(p, real, n - 5);
    strcpy(p + n - 5, ".def");
    if (stat(p, &st) == 0)
        return true;
    p[n - 5] = 0;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* One more protected path of the input `given` (real: resolved). */
static up_status in_push(up_outset *s, const char *given, const char *real, bool trace, bool anchor,
                         const char *part, up_err *err)
{
    out_in *in;
    if (!up_grow((void **)&s->in, &s->capin, s->nin + 1, sizeof *s->in))
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    in = &s->in[s->nin];
    memset(in, 0, sizeof *in);
    in->trace = trace;
    in->anchor = anchor;
    in->part = part;
    if (!(in->given = up_strdup(given)) || (real && !(in->real = up_strdup(real)))) {
        up_free(in->given);
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    }
    s->nin++;
    return UP_OK;
}

/* Is the resolved path already protected by the input entries from `first` on? */
static bool in_covered(const up_outset *s, size_t first, const char *real)
{
    size_t i;
    for (i = first; i < s->nin; i++)
        if (s->in[i].real && (!strcmp(s->in[i].real, real) ||
                              (s->in[i].trace && up_path_inside(real, s->in[i].real))))
            return true;
    return false;
}

/* A file or folder the archive reads, resolved through every link and "..":
 * protected unless the entries from `first` on cover it already. */
static up_status in_layout(up_outset *s, size_t first, const char *given, const char *path,
                           const char *part, up_err *err)
{
    char real[PATH_MAX];
    struct stat st;
    if (!realpath(path, real) || stat(real, &st) != 0 || in_covered(s, first, real))
        return UP_OK;
    return in_push(s, given, real, S_ISDIR(st.st_mode), false, part, err);
}

/* The files OTF2 reads for the anchor path `anchor` as given (OTF2 takes its
 * folder and name from the path as given, not resolved): <dir>/<name>.def
 * and the folder <dir>/<name> with the event and local definition files in
 * it, each resolved on its own.  An anchor named "...otf2" reads its events
 * from the folder above it, a folder or a file in it may be a symbolic link
 * to anywhere: each of them is an input wherever it lies. */
static up_status in_archive(up_outset *s, size_t first, const char *given, const char *anchor, up_err *err)
{
    char dir[PATH_MAX], base[PATH_MAX], p[PATH_MAX], real[PATH_MAX];
    size_t nb;
    struct dirent *de;
    DIR *d;
    up_status st;
    if (split(anchor, dir, base, NULL) != UP_OK || (nb = strlen(base)) < 6 ||
        strcmp(base + nb - 5, ".otf2"))
        return UP_OK;
    base[nb - 5] = 0;
    if ((st = in_layout(s, first, given, anchor, "the anchor file", err)) != UP_OK)
        return st;
    if ((size_t)snprintf(p, sizeof p, "%s/%s.def", dir, base) < sizeof p &&
        (st = in_layout(s, first, given, p, "the global definitions", err)) != UP_OK)
        return st;
    if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, base) >= sizeof p || !realpath(p, real))
        return UP_OK;
    if ((st = in_layout(s, first, given, real, "the folder of the event files", err)) != UP_OK)
        return st;
    if (!(d = opendir(real)))
        return UP_OK;
    while ((de = readdir(d)) != NULL) {
        char f[PATH_MAX + 256];
        struct stat ls;
        if (de->d_type != DT_LNK && de->d_type != DT_UNKNOWN)
            continue; /* a file in the folder: protected with the folder */
        snprintf(f, sizeof f, "%s/%s", real, de->d_name);
        if (lstat(f, &ls) != 0 || !S_ISLNK(ls.st_mode) || strlen(f) >= PATH_MAX)
            continue;
        if ((st = in_layout(s, first, given, f, "a file read through a symbolic link", err)) != UP_OK)
            break;
    }
    closedir(d);
    return st;
}

up_status up_outset_input(up_outset *s, const char *path, bool trace, up_err *err)
{
    char real[PATH_MAX], anchor[PATH_MAX];
    struct stat st;
    size_t first = s->nin;
    bool anchor_given = false;
    up_status r;
    if (!path || !*path)
        return UP_OK;
    if (!realpath(path, real))
        return in_push(s, path, NULL, trace, false, NULL, err); /* nothing there to protect */
    if (!trace && stat(real, &st) == 0 && S_ISDIR(st.st_mode))
        return in_push(s, path, NULL, trace, false, NULL, err); /* a folder where a file is read: the
                                                                * command reads nothing from it and
                                                                * says so ("it is a directory") */
    if (trace && stat(real, &st) == 0 && !S_ISDIR(st.st_mode)) {
        if (is_anchor(real) || is_anchor(path)) {
            char *slash = strrchr(real, '/');
            if (slash)
                *(slash == real ? slash + 1 : slash) = 0; /* the anchor's folder */
            anchor_given = true;
        } else
            trace = false; /* not an archive: the file alone */
    }
    if ((r = in_push(s, path, real, trace, anchor_given, NULL, err)) != UP_OK || !trace)
        return r;
    /* the archive's own files, wherever they lie */
    if (anchor_given)
        snprintf(anchor, sizeof anchor, "%s", path);
    else if ((size_t)snprintf(anchor, sizeof anchor, "%s/traces.otf2", path) >= sizeof anchor)
        return UP_OK;
    return in_archive(s, first, path, anchor, err);
}

up_status up_outset_add(up_outset *s, const char *path, up_out_kind kind, const char *what,
                        size_t *idx, up_err *err)
{
    out_out *o;
    if (!path || !*path)
        return UP_ERR(err, UP_EUSAGE, "%s needs a path", what);
    if (s->begun)
        return UP_ERR(err, UP_EINTERNAL, "an output added after up_outset_begin");
    if (!up_grow((void **)&s->out, &s->capout, s->nout + 1, sizeof *s->out))
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    if (!strcmp(path, "-")) {
        size_t i;
        if (kind == UP_OUT_DIR)
            return UP_ERR(err, UP_EUSAGE, "%s -: a folder cannot be standard output (./- names a folder "
                          "called '-')", what);
        for (i = 0; i < s->nout; i++)
            if (s->out[i].stream)
                return UP_ERR(err, UP_EUSAGE, "%s - and %s -: only one output can be standard output",
                              s->out[i].what, what);
    }
    o = &s->out[s->nout];
    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->stream = !strcmp(path, "-");
    o->slot = o->old_slot = -1;
    if (!(o->given = up_strdup(path)) || !(o->what = up_strdup(what))) {
        up_free(o->given);
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    }
    if (idx)
        *idx = s->nout;
    s->nout++;
    return UP_OK;
}

/* Output o against input in: UP_EUSAGE when one is, holds or lies in the other. */
static up_status check_input(const out_out *o, const out_in *in, up_err *err)
{
    bool same = !strcmp(o->real, in->real);
    if (!same && !up_path_inside(o->real, in->real) && !up_path_inside(in->real, o->real))
        return UP_OK;
    if (in->part) /* a file or folder of a trace outside the trace's folder */
        return UP_ERR(err, UP_EUSAGE, "refusing to write '%s' (%s): it %s '%s', %s of the input trace "
                      "'%s' (outputs go elsewhere, also with --force)", o->given, o->what,
                      same ? "is" : up_path_inside(o->real, in->real) ? "lies inside" : "holds", in->real,
                      in->part, in->given);
    if (in->trace) {
        if (up_path_inside(o->real, in->real) && !same && in->anchor)
            return UP_ERR(err, UP_EUSAGE, "refusing to write '%s' (%s): it lies inside '%s', the folder of "
                          "the input trace '%s' (outputs go elsewhere, also with --force)",
                          o->given, o->what, in->real, in->given);
        if (up_path_inside(o->real, in->real) && !same)
            return UP_ERR(err, UP_EUSAGE, "refusing to write '%s' (%s): it lies inside the folder of the "
                          "input trace '%s' (outputs go elsewhere, also with --force)",
                          o->given, o->what, in->given);
        return UP_ERR(err, UP_EUSAGE, "refusing to write '%s' (%s): it holds the input trace '%s' "
                      "(also with --force)", o->given, o->what, in->given);
    }
    if (same)
        return UP_ERR(err, UP_EUSAGE, "refusing to write '%s' (%s): it is the input '%s'%s%s%s "
                      "(also with --force)", o->given, o->what, in->given,
                      strcmp(o->given, in->given) ? " ('" : "", strcmp(o->given, in->given) ? in->real : "",
                      strcmp(o->given, in->given) ? "')" : "");
    if (up_path_inside(in->real, o->real))
        return UP_ERR(err, UP_EUSAGE, "refusing to write '%s' (%s): it holds the input '%s' (also with "
                      "--force)", o->given, o->what, in->given);
    return UP_ERR(err, UP_EUSAGE, "refusing to write '%s' (%s): it lies inside the input '%s'", o->given,
                  o->what, in->given);
}

static up_status check_outputs(const out_out *a, const out_out *b, up_err *err)
{
    if (!strcmp(a->real, b->real) || !strcmp(a->place, b->place))
        return UP_ERR(err, UP_EUSAGE, "'%s' is given twice (%s and %s)", a->given, b->what, a->what);
    if (up_path_inside(a->real, b->real))
        return UP_ERR(err, UP_EUSAGE, "refusing to write '%s' (%s): it lies inside the output '%s' (%s)",
                      a->given, a->what, b->given, b->what);
    if (up_path_inside(b->real, a->real))
        return UP_ERR(err, UP_EUSAGE, "refusing to write '%s' (%s): it holds the output '%s' (%s)",
                      a->given, a->what, b->given, b->what);
    return UP_OK;
}

/* ---- the marker of an output folder ---------------------------------------------
 * A folder that a command wrote holds UP_OUTPUT_MARKER, written last, just
 * before the folder takes its name: a header line, the command, and one line
 * per entry below the folder ("f", "d" or "l", a space, its path relative to
 * the folder, bytes outside '!'..'~' and '\' as \xNN).  --force replaces a
 * folder only when a walk that follows no links finds exactly those entries
 * (or none at all). */

#define MARK_HEAD "unperturb output folder 1\n"
#define MARK_MAX_BYTES ((size_t)256 << 20) /* 256 MiB: millions of entries */

typedef struct walk {
    char path[PATH_MAX]; /* relative to the top, as it grows */
    size_t len;
    int (*fn)(struct walk *w, char type, const struct stat *st); /* 0 goes on */
    void *ctx;
    int err; /* errno of the walk itself */
} walk;

static char entry_type(mode_t m) { return S_ISDIR(m) ? 'd' : S_ISLNK(m) ? 'l' : 'f'; }

/* Calls w->fn for every entry below the open folder fd, parents before their
 * contents, never through a link. */
static int walk_at(walk *w, int fd, int depth)
{
    DIR *d = fdopendir(fd);
    struct dirent *de;
    int r = 0;
    if (!d) {
        w->err = errno;
        close(fd);
        return -1;
    }
    while (!r && (errno = 0, de = readdir(d)) != NULL) {
        struct stat st;
        size_t n = strlen(de->d_name), keep = w->len;
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (!depth && !strncmp(de->d_name, UP_OUTPUT_MARKER, sizeof UP_OUTPUT_MARKER - 1))
            continue; /* the marker (and the one being written, up_output_remark) */
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            w->err = errno;
            r = -1;
            break;
        }
        if (keep + n + 2 >= sizeof w->path) {
            w->err = ENAMETOOLONG;
            r = -1;
            break;
        }
        if (keep)
            w->path[w->len++] = '/';
        memcpy(w->path + w->len, de->d_name, n + 1);
        w->len += n;
        if ((r = w->fn(w, entry_type(st.st_mode), &st)) == 0 && S_ISDIR(st.st_mode)) {
            int sub;
            if (depth >= RM_DEPTH) {
                w->err = ELOOP;
                r = -1;
            } else if ((sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
                w->err = errno;
                r = -1;
            } else
                r = walk_at(w, sub, depth + 1);
        }
        w->len = keep;
        w->path[keep] = 0;
    }
    if (!r && errno) {
        w->err = errno;
        r = -1;
    }
    closedir(d);
    return r;
}

static int walk_tree(walk *w, const char *top)
{
    int fd = open(top, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    w->len = 0;
    w->path[0] = 0;
    w->err = 0;
    if (fd < 0) {
        w->err = errno;
        return -1;
    }
    return walk_at(w, fd, 0);
}

/* An entry as the marker writes it: "t path" with the escapes above. */
static void mark_line(char *out, size_t cap, char type, const char *path)
{
    const unsigned char *p = (const unsigned char *)path;
    size_t o = 0;
    out[o++] = type;
    out[o++] = ' ';
    for (; *p && o + 5 < cap; p++) {
        if (*p > ' ' && *p <= '~' && *p != '\\')
            out[o++] = (char)*p;
        else
            o += (size_t)snprintf(out + o, cap - o, "\\x%02x", *p);
    }
    out[o] = 0;
}

/* The marker's walk: one line per entry; it stops (2) at a file as large as
 * the file-size limit (ulimit -f), which was cut short there: with SIGXFSZ
 * ignored the write fails with EFBIG, and libotf2 does not pass that
 * failure on. */
typedef struct mark_out {
    FILE *f;
    rlim_t limit; /* RLIM_INFINITY: none */
} mark_out;

static int mark_write_entry(walk *w, char type, const struct stat *st)
{
    mark_out *mo = w->ctx;
    char line[4 * PATH_MAX + 8];
    if (S_ISREG(st->st_mode) && mo->limit != RLIM_INFINITY && (rlim_t)st->st_size >= mo->limit)
        return 2;
    mark_line(line, sizeof line, type, w->path);
    return fprintf(mo->f, "%s\n", line) < 0 ? -1 : 0;
}

static rlim_t fsize_limit(void)
{
    struct rlimit rl;
    return getrlimit(RLIMIT_FSIZE, &rl) == 0 ? rl.rlim_cur : RLIM_INFINITY;
}

static up_status too_large(const char *given, rlim_t limit, up_err *err)
{
    return UP_ERR(err, UP_EIO, "cannot write '%s': %s (a file reached the file-size limit of %llu bytes, "
                  "ulimit -f)", given, strerror(EFBIG), (unsigned long long)limit);
}

static const char *command_name = "unperturb";

const char *up_output_command(const char *name)
{
    const char *was = command_name;
    if (name && *name)
        command_name = name;
    return was;
}

/* Writes the marker `name` of the folder `dir` (an output's temporary),
 * last: a file cut at the file-size limit found on the way fails it. */
static up_status mark_write_as(const char *dir, const char *name, const char *given, up_err *err)
{
    char path[PATH_MAX + 32];
    mark_out mo = {NULL, fsize_limit()};
    walk *w;
    int r, e;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!(w = up_calloc(1, sizeof *w)))
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    if (!(mo.f = fopen(path, "wbx"))) {
        e = errno;
        up_free(w);
        return UP_ERR(err, UP_EIO, "cannot write '%s': %s", given, strerror(e));
    }
    fprintf(mo.f, "%scommand %s\n", MARK_HEAD, command_name);
    w->fn = mark_write_entry;
    w->ctx = &mo;
    r = walk_tree(w, dir);
    e = r < 0 ? (w->err ? w->err : errno ? errno : EIO) : 0;
    if (fclose(mo.f) != 0 && !e)
        e = errno ? errno : EIO;
    up_free(w);
    if (r > 0 || e)
        unlink(path);
    if (r > 0)
        return too_large(given, mo.limit, err);
    if (e)
        return UP_ERR(err, UP_EIO, "cannot write '%s': %s", given, strerror(e));
    return UP_OK;
}

static up_status mark_write(const out_out *o, up_err *err)
{
    return mark_write_as(o->tmp, UP_OUTPUT_MARKER, o->given, err);
}

up_status up_output_remark(const char *dir, up_err *err)
{
    char path[PATH_MAX + 64], tmp[PATH_MAX + 64], name[64];
    struct stat st;
    up_status s;
    snprintf(path, sizeof path, "%s/%s", dir, UP_OUTPUT_MARKER);
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return UP_OK; /* not an output of ours: left so */
    snprintf(name, sizeof name, "%s.new-%ld", UP_OUTPUT_MARKER, (long)getpid());
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
    if ((s = mark_write_as(dir, name, dir, err)) != UP_OK)
        return s;
    snprintf(tmp, sizeof tmp, "%s/%s", dir, UP_OUTPUT_MARKER);
    if (rename(path, tmp) != 0) {
        int e = errno;
        unlink(path);
        return UP_ERR(err, UP_EIO, "cannot write '%s': %s", dir, strerror(e));
    }
    return UP_OK;
}

/* The marker's entries, sorted, for the check of an existing output. */
typedef struct mark_set {
    char **line;
    size_t n;
    unsigned char *seen;
    char first_bad[4 * PATH_MAX + 8]; /* the first entry not listed */
} mark_set;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int mark_check_entry(walk *w, char type, const struct stat *st)
{
    mark_set *m = w->ctx;
    char line[4 * PATH_MAX + 8], *key = line, **hit;
    (void)st;
    mark_line(line, sizeof line, type, w->path);
    hit = m->n ? bsearch(&key, m->line, m->n, sizeof *m->line, cmp_str) : NULL;
    if (!hit) {
        snprintf(m->first_bad, sizeof m->first_bad, "%s", w->path);
        return 1; /* stop: not ours */
    }
    m->seen[hit - m->line] = 1;
    return 0;
}

/* Reads the marker of the existing folder o->place into m; false when there
 * is none or it is not one (then why says so). */
static bool mark_read(const out_out *o, mark_set *m, char **text, char *why, size_t cap)
{
    char path[PATH_MAX + 32];
    struct stat st;
    size_t len = 0, i, n = 0;
    char *p, *q;
    up_err e = {0};
    snprintf(path, sizeof path, "%s/%s", o->place, UP_OUTPUT_MARKER);
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, cap, "no %s says that unperturb wrote it", UP_OUTPUT_MARKER);
        return false;
    }
    if (up_text_file_read(path, "marker", MARK_MAX_BYTES, text, &len, &e) != UP_OK) {
        snprintf(why, cap, "its %s cannot be read (%s)", UP_OUTPUT_MARKER, e.msg);
        return false;
    }
    if (len < sizeof MARK_HEAD - 1 || memcmp(*text, MARK_HEAD, sizeof MARK_HEAD - 1)) {
        snprintf(why, cap, "its %s is not one that unperturb wrote", UP_OUTPUT_MARKER);
        return false;
    }
    for (p = *text; *p; p++)
        n += *p == '\n';
    if (!(m->line = up_calloc(n ? n : 1, sizeof *m->line)) || !(m->seen = up_calloc(n ? n : 1, 1))) {
        snprintf(why, cap, "out of memory");
        return false;
    }
    for (p = *text + strlen(MARK_HEAD); *p; p = q + 1) {
        if (!(q = strchr(p, '\n'))) {
            snprintf(why, cap, "its %s is cut short", UP_OUTPUT_MARKER);
            return false;
        }
        *q = 0;
        if ((p[0] == 'f' || p[0] == 'd' || p[0] == 'l') && p[1] == ' ' && p[2])
            m->line[m->n++] = p;
        else if (strncmp(p, "command ", 8)) {
            snprintf(why, cap, "its %s is not one that unperturb wrote", UP_OUTPUT_MARKER);
            return false;
        }
    }
    qsort(m->line, m->n, sizeof *m->line, cmp_str);
    for (i = 1; i < m->n; i++)
        if (!strcmp(m->line[i - 1], m->line[i])) {
            snprintf(why, cap, "its %s lists an entry twice", UP_OUTPUT_MARKER);
            return false;
        }
    return true;
}

static bool folder_empty(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *de;
    bool empty = true;
    if (!d)
        return false;
    while (empty && (de = readdir(d)) != NULL)
        empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
    closedir(d);
    return empty;
}

/* May --force replace the existing folder o?  Only an empty one or one that
 * unperturb wrote (its marker lists exactly what a walk finds), and never
 * the working directory, a folder above it, / or $HOME. */
static up_status check_folder(const out_out *o, up_err *err)
{
    char cwd[PATH_MAX], home[PATH_MAX], why[4 * PATH_MAX + 128];
    const char *h = getenv("HOME"), *never = NULL;
    mark_set m;
    walk *w;
    char *text = NULL;
    size_t i;
    int r;
    up_status st = UP_OK;
    if (!strcmp(o->real, "/"))
        never = "the root folder";
    else if (h && *h && realpath(h, home) && !strcmp(home, o->real))
        never = "your home folder";
    else if (getcwd(cwd, sizeof cwd) && up_path_inside(cwd, o->real))
        never = strcmp(cwd, o->real) ? "a folder above the working directory" : "the working directory";
    if (never)
        return UP_ERR(err, UP_EUSAGE, "refusing to replace '%s' (%s): it is %s (also with --force)", o->given,
                      o->what, never);
    if (folder_empty(o->place))
        return UP_OK;
    memset(&m, 0, sizeof m);
    if (!(w = up_calloc(1, sizeof *w))) {
        st = UP_ERR(err, UP_ENOMEM, "out of memory");
        goto out;
    }
    w->fn = mark_check_entry;
    w->ctx = &m;
    if (!mark_read(o, &m, &text, why, sizeof why)) {
        m.n = 0; /* none of its entries is ours: name the first */
        if (walk_tree(w, o->place) > 0)
            st = UP_ERR(err, UP_EEXIST, "refusing to replace the folder '%s' (%s): it holds '%s/%s', and %s "
                        "(--force replaces only a folder that unperturb wrote, or an empty one)", o->given,
                        o->what, o->given, m.first_bad, why);
        else
            st = UP_ERR(err, UP_EEXIST, "refusing to replace the folder '%s' (%s): %s (--force replaces only a "
                        "folder that unperturb wrote, or an empty one)", o->given, o->what, why);
        up_free(w);
        goto out;
    }
    r = walk_tree(w, o->place);
    if (r < 0)
        st = UP_ERR(err, UP_EIO, "cannot read the folder '%s' (%s): %s", o->given, o->what, strerror(w->err));
    else if (r > 0)
        st = UP_ERR(err, UP_EEXIST, "refusing to replace the folder '%s' (%s): '%s/%s' is not listed in its %s, so "
                    "unperturb did not write it (--force replaces only a folder that unperturb wrote)",
                    o->given, o->what, o->given, m.first_bad, UP_OUTPUT_MARKER);
    up_free(w);
    for (i = 0; st == UP_OK && i < m.n; i++)
        if (!m.seen[i])
            st = UP_ERR(err, UP_EEXIST, "refusing to replace the folder '%s' (%s): its %s lists '%s', which is "
                        "not there (--force replaces only a folder that unperturb wrote, as it wrote it)",
                        o->given, o->what, UP_OUTPUT_MARKER, m.line[i] + 2);
out:
    up_free(m.line);
    up_free(m.seen);
    up_free(text);
    return st;
}

/* Exists?  Then only with force, and of the same kind: a regular file, or
 * a folder that unperturb wrote (check_folder). */
static up_status check_existing(up_outset *s, out_out *o, up_err *err)
{
    struct stat st;
    if (lstat(o->place, &st) != 0)
        return UP_OK;
    o->exists = true;
    if (o->kind == UP_OUT_FILE && S_ISDIR(st.st_mode))
        return UP_ERR(err, UP_EEXIST, "cannot write '%s' (%s): it is a folder", o->given, o->what);
    if (o->kind == UP_OUT_DIR && S_ISREG(st.st_mode))
        return UP_ERR(err, UP_EEXIST, "cannot write the folder '%s' (%s): a file of that name exists",
                      o->given, o->what);
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        return UP_ERR(err, UP_EEXIST, "refusing to replace '%s' (%s): it is %s; --force replaces only a regular "
                      "file, or a folder that unperturb wrote", o->given, o->what, up_mode_text(st.st_mode));
    if (!s->force)
        return UP_ERR(err, UP_EEXIST, "'%s' exists (use --force to replace it)", o->given);
    return o->kind == UP_OUT_DIR ? check_folder(o, err) : UP_OK;
}

static char *with_suffix(const char *place, const char *kind)
{
    size_t n = strlen(place) + strlen(up_output_host()) + 48;
    char *p = up_malloc(n);
    if (p)
        snprintf(p, n, "%s.%s-%s-%ld", place, kind, up_output_host(), (long)getpid());
    return p;
}

/* The temporary of o: registered for the signal handler, then created. */
static up_status make_tmp(out_out *o, up_err *err)
{
    int fd;
    if (!(o->tmp = with_suffix(o->place, "tmp")) || !(o->old = with_suffix(o->place, "old")))
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    if (strlen(o->tmp) >= PATH_MAX || strlen(o->old) >= PATH_MAX)
        return UP_ERR(err, UP_EUSAGE, "path too long: '%.200s...'", o->given);
    if ((o->slot = slot_add(o->tmp, o->given)) < 0)
        return UP_ERR(err, UP_EINTERNAL, "more than %d temporary outputs", SLOTS);
    if (o->kind == UP_OUT_DIR) {
        if (mkdir(o->tmp, 0777) != 0)
            return UP_ERR(err, UP_EIO, "cannot write '%s': %s", o->given, strerror(errno));
    } else {
        if ((fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666)) < 0)
            return UP_ERR(err, UP_EIO, "cannot write '%s': %s", o->given, strerror(errno));
        close(fd);
    }
    o->created = true;
    return UP_OK;
}

/* A scratch folder: $TMPDIR/unperturb-<host>-<pid>-XXXXXX, registered for
 * the signal handler. */
static up_status make_scratch(out_out *o, up_err *err)
{
    const char *t = getenv("TMPDIR");
    size_t n = (t && *t ? strlen(t) : 4) + strlen(up_output_host()) + 64;
    if (!(o->tmp = up_malloc(n)))
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    sigset_t old;
    int e;
    snprintf(o->tmp, n, "%s/unperturb-%s-%ld-XXXXXX", t && *t ? t : "/tmp", up_output_host(), (long)getpid());
    block_sigs(&old); /* made and registered in one step */
    if (!mkdtemp(o->tmp)) {
        e = errno;
        restore_sigs(&old);
        return UP_ERR(err, UP_EIO, "cannot make a temporary folder in '%s': %s", t && *t ? t : "/tmp",
                      strerror(e));
    }
    o->created = true;
    o->slot = slot_add(o->tmp, o->given);
    restore_sigs(&old);
    if (o->slot < 0)
        return UP_ERR(err, UP_EINTERNAL, "more than %d temporary outputs", SLOTS);
    return UP_OK;
}

up_status up_outset_scratch(up_outset *s, size_t *idx, up_err *err)
{
    up_status st = up_outset_add(s, "(a temporary folder)", UP_OUT_DIR, "scratch", idx, err);
    if (st == UP_OK)
        s->out[s->nout - 1].scratch = true;
    return st;
}

up_status up_outset_begin(up_outset *s, up_err *err)
{
    char place[PATH_MAX], real[PATH_MAX];
    up_status st;
    size_t i, j;
    if (s->begun)
        return UP_ERR(err, UP_EINTERNAL, "up_outset_begin called twice");
    s->begun = true;
    for (i = 0; i < s->nout; i++) {
        out_out *o = &s->out[i];
        if (o->stream || o->scratch)
            continue;
        if ((st = resolve2(o->given, place, real, &o->missing, err)) != UP_OK)
            return st;
        if (!(o->place = up_strdup(place)) || !(o->real = up_strdup(real)))
            return UP_ERR(err, UP_ENOMEM, "out of memory");
        for (j = 0; j < s->nin; j++)
            if (s->in[j].real && (st = check_input(o, &s->in[j], err)) != UP_OK)
                return st;
        for (j = 0; j < i; j++)
            if (!s->out[j].stream && !s->out[j].scratch && (st = check_outputs(o, &s->out[j], err)) != UP_OK)
                return st;
    }
    for (i = 0; i < s->nout; i++) {
        char dir[PATH_MAX], base[PATH_MAX];
        if (s->out[i].stream || s->out[i].scratch)
            continue;
        if (s->out[i].missing && split(s->out[i].given, dir, base, err) == UP_OK)
            return UP_ERR(err, UP_EIO, "cannot write '%s': the folder '%s' does not exist", s->out[i].given, dir);
        if ((st = check_existing(s, &s->out[i], err)) != UP_OK)
            return st;
    }
    arm_signals();
    for (i = 0; i < s->nout; i++) {
        if (s->out[i].stream)
            continue;
        if (s->out[i].scratch) {
            if ((st = make_scratch(&s->out[i], err)) != UP_OK)
                return st;
            continue;
        }
        up_output_sweep(s->out[i].place, UP_STALE_AGE_S);
        if ((st = make_tmp(&s->out[i], err)) != UP_OK)
            return st;
    }
    return UP_OK;
}

const char *up_outset_tmp(const up_outset *s, size_t i)
{
    return i >= s->nout ? NULL : s->out[i].stream ? UP_OUTPUT_STDOUT : s->out[i].tmp;
}

bool up_outset_stdout(const up_outset *s)
{
    size_t i;
    for (i = 0; s && i < s->nout; i++)
        if (s->out[i].stream)
            return true;
    return false;
}

const char *up_outset_path(const up_outset *s, size_t i) { return i < s->nout ? s->out[i].given : NULL; }

/* Puts o's temporary in its place; 0, or -1 with errno. */
static int put(out_out *o)
{
    if (o->exists) {
        if (renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->place, RENAME_EXCHANGE) == 0) {
            o->put = PUT_SWAPPED; /* the old output is at tmp now */
            return 0;
        }
        if (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP) {
            /* no atomic exchange on this file system: move the old one aside */
            if ((o->old_slot = slot_add(o->old, NULL)) < 0) {
                errno = ENOMEM;
                return -1;
            }
            if (rename(o->place, o->old) != 0)
                return -1;
            if (rename(o->tmp, o->place) != 0) {
                int e = errno;
                rename(o->old, o->place);
                errno = e;
                return -1;
            }
            o->put = PUT_MOVED;
            return 0;
        }
        if (errno != ENOENT)
            return -1;
        /* gone meanwhile: as a new one */
    }
    if (renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->place, RENAME_NOREPLACE) != 0) {
        struct stat st;
        if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
            return -1;
        if (lstat(o->place, &st) == 0) {
            errno = EEXIST;
            return -1;
        }
        if (rename(o->tmp, o->place) != 0)
            return -1;
    }
    o->put = PUT_NEW;
    return 0;
}

static void unput(out_out *o)
{
    if (o->put == PUT_NEW)
        rename(o->place, o->tmp);
    else if (o->put == PUT_SWAPPED)
        renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->place, RENAME_EXCHANGE);
    else if (o->put == PUT_MOVED && rename(o->place, o->tmp) == 0)
        rename(o->old, o->place);
    o->put = PUT_NONE;
}

up_status up_outset_commit(up_outset *s, up_err *err)
{
    sigset_t old;
    size_t i, j;
    up_status st;
    if (!s->begun || s->committed)
        return UP_ERR(err, UP_EINTERNAL, "up_outset_commit without up_outset_begin");
    for (i = 0; i < s->nout; i++) { /* complete?  Then the marker of each folder, last */
        out_out *o = &s->out[i];
        struct stat sb;
        rlim_t limit;
        if (o->stream || o->scratch)
            continue;
        if (o->kind == UP_OUT_DIR) {
            if ((st = mark_write(o, err)) != UP_OK)
                return st;
        } else if ((limit = fsize_limit()) != RLIM_INFINITY && stat(o->tmp, &sb) == 0 &&
                   (rlim_t)sb.st_size >= limit)
            return too_large(o->given, limit, err); /* cut short there (mark_write_entry) */
    }
    block_sigs(&old); /* all renamed, or none: a signal waits until then */
    for (i = 0; i < s->nout; i++)
        if (!s->out[i].stream && !s->out[i].scratch && put(&s->out[i]) != 0) {
            int e = errno;
            for (j = i + 1; j-- > 0;)
                unput(&s->out[j]);
            restore_sigs(&old);
            return UP_ERR(err, UP_EIO, "cannot write '%s': %s", s->out[i].given,
                          e == EEXIST ? "it appeared while this command ran (not replaced)" : strerror(e));
        }
    s->committed = true;
    restore_sigs(&old);
    /* what the outputs replaced: at tmp (swapped) or old (moved) */
    for (i = 0; i < s->nout; i++) {
        out_out *o = &s->out[i];
        if (o->put == PUT_SWAPPED)
            up_rmtree(o->tmp);
        if (o->put == PUT_MOVED)
            up_rmtree(o->old);
        slot_drop(&o->slot);
        slot_drop(&o->old_slot);
    }
    return UP_OK;
}

void up_outset_free(up_outset *s)
{
    size_t i;
    if (!s)
        return;
    for (i = 0; i < s->nout; i++) {
        out_out *o = &s->out[i];
        if ((!s->committed || o->scratch) && o->created)
            up_rmtree(o->tmp);
        slot_drop(&o->slot);
        slot_drop(&o->old_slot);
        up_free(o->given);
        up_free(o->what);
        up_free(o->place);
        up_free(o->real);
        up_free(o->tmp);
        up_free(o->old);
    }
    for (i = 0; i < s->nin; i++) {
        up_free(s->in[i].given);
        up_free(s->in[i].real);
    }
    up_free(s->in);
    up_free(s->out);
    up_free(s);
}
