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
static const int fatal_sigs[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE};
#define NSIGS (sizeof fatal_sigs / sizeof fatal_sigs[0])

static void block_sigs(sigset_t *old)
{
    sigset_t s;
    size_t i;
    sigemptyset(&s);
    for (i = 0; i < NSIGS; i++)
        sigaddset(&s, fatal_sigs[i]);
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
    size_t i;
    if (armed == getpid())
        return;
    armed = getpid();
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    for (i = 0; i < NSIGS; i++)
        sigaddset(&sa.sa_mask, fatal_sigs[i]);
    for (i = 0; i < NSIGS; i++)
        if (sigaction(fatal_sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(fatal_sigs[i], &sa, NULL);
}

const char *up_output_name(const char *path)
{
    static char buf[PATH_MAX + 64];
    size_t i, n;
    if (!path)
        return "";
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
    int fd, e;
    if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) < 0)
        return UP_ERR(err, UP_EIO, "cannot write '%s': %s", up_output_name(path), strerror(errno));
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            e = n < 0 ? errno : EIO;
            close(fd);
            goto fail;
        }
        p += n;
        len -= (size_t)n;
    }
    if (close(fd) != 0) {
        e = errno;
        goto fail;
    }
    return UP_OK;
fail:
    unlink(path);
    return UP_ERR(err, UP_EIO, "cannot write '%s': %s", up_output_name(path), strerror(e));
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
    o = &s->out[s->nout];
    memset(o, 0, sizeof *o);
    o->kind = kind;
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

/* Exists?  Then only with force, and of the same kind. */
static up_status check_existing(up_outset *s, out_out *o, up_err *err)
{
    struct stat st;
    if (lstat(o->place, &st) != 0)
        return UP_OK;
    o->exists = true;
    if (stat(o->place, &st) != 0)
        st.st_mode = S_IFREG; /* a dangling link: replaced like a file */
    if (o->kind == UP_OUT_FILE && S_ISDIR(st.st_mode))
        return UP_ERR(err, UP_EEXIST, "cannot write '%s' (%s): it is a folder", o->given, o->what);
    if (o->kind == UP_OUT_DIR && !S_ISDIR(st.st_mode))
        return UP_ERR(err, UP_EEXIST, "cannot write the folder '%s' (%s): a file of that name exists",
                      o->given, o->what);
    if (!s->force)
        return UP_ERR(err, UP_EEXIST, "'%s' exists (use --force to replace it)", o->given);
    return UP_OK;
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
        if ((st = resolve2(o->given, place, real, &o->missing, err)) != UP_OK)
            return st;
        if (!(o->place = up_strdup(place)) || !(o->real = up_strdup(real)))
            return UP_ERR(err, UP_ENOMEM, "out of memory");
        for (j = 0; j < s->nin; j++)
            if (s->in[j].real && (st = check_input(o, &s->in[j], err)) != UP_OK)
                return st;
        for (j = 0; j < i; j++)
            if ((st = check_outputs(o, &s->out[j], err)) != UP_OK)
                return st;
    }
    for (i = 0; i < s->nout; i++) {
        char dir[PATH_MAX], base[PATH_MAX];
        if (s->out[i].missing && split(s->out[i].given, dir, base, err) == UP_OK)
            return UP_ERR(err, UP_EIO, "cannot write '%s': the folder '%s' does not exist", s->out[i].given, dir);
        if ((st = check_existing(s, &s->out[i], err)) != UP_OK)
            return st;
    }
    arm_signals();
    for (i = 0; i < s->nout; i++) {
        up_output_sweep(s->out[i].place, UP_STALE_AGE_S);
        if ((st = make_tmp(&s->out[i], err)) != UP_OK)
            return st;
    }
    return UP_OK;
}

const char *up_outset_tmp(const up_outset *s, size_t i) { return i < s->nout ? s->out[i].tmp : NULL; }

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
    if (!s->begun || s->committed)
        return UP_ERR(err, UP_EINTERNAL, "up_outset_commit without up_outset_begin");
    block_sigs(&old); /* all renamed, or none: a signal waits until then */
    for (i = 0; i < s->nout; i++)
        if (put(&s->out[i]) != 0) {
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
        if (!s->committed && o->created)
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
