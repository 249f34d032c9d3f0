/*
 * merge.c - one OTF2 archive from the tracer's per-rank files (merge.h).
 *
 * Place in the data flow: the last step of measurement.  Global definitions
 * are unified here, on the files alone: a region is the same on two ranks
 * when its name, file, line, role and paradigm are; a communicator when its
 * member list (world ranks) and ordinal are; an RMA window when its
 * communicator and ordinal are (tracer.c says why that is enough); a group
 * of RmaGroupSync records when its member list is.  Each rank's local ids go to global ones through OTF2 mapping
 * tables in its local definitions, which OTF2's readers apply, so the event
 * files are moved in unchanged.  Each global definition is written after
 * every definition it references (write_globals).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "trace/calib.h"
#include "trace/chunks.h"
#include "trace/merge.h"

typedef struct { uint32_t local, global; } idpair;

typedef struct rankdefs {
    bool found, ended;
    char host[256];
    uint64_t start, end_t, events, chunk;
    /* the timer: TSC ticks or ns; a reference pair (ticks, CLOCK_MONOTONIC
     * ns) and the ticks per second, measured at init and (better) at the end */
    bool tsc;
    uint64_t clk_t0, clk_ns0;
    double rate_init, rate_end;
    double spin_ns, spin_cal_ns; /* --extra-ns: the run's mean spin, the calibration's */
    bool has_spin;
    double stall_ns;     /* its stalls, when they cannot be kept as a list (folded into the mean) */
    idpair *regions, *comms, *wins, *groups;
    size_t nregions, ncomms, cap_r, cap_c, nwins, cap_w, ngroups, cap_g;
    struct offset { uint64_t t; int64_t off; double sd; } *offs;
    size_t noffs, cap_o;
    /* its other threads: location idx << 32 | rank ("thread" lines) */
    struct thr { uint32_t idx; bool ended; uint64_t events; } *thr;
    size_t nthr, cap_t;
} rankdefs;

/* A thread's location id: index << 32 | rank, as Score-P numbers them */
static uint64_t thr_loc(int rank, uint32_t idx)
{
    return (uint64_t)idx << 32 | (uint32_t)rank;
}

/* Location k of rank r (defs R), k = 0 .. R->nthr: 0 the rank's own, k > 0
 * its thread k - 1 */
static uint64_t loc_k(const rankdefs *R, int r, size_t k)
{
    return k ? thr_loc(r, R->thr[k - 1].idx) : (uint64_t)r;
}

/* The event file of rank r's location loc in the tracer's folder */
static void evt_path(char *p, size_t n, const char *dir, int r, uint64_t loc)
{
    snprintf(p, n, "%s/.upt/%d/traces/%llu.evt", dir, r, (unsigned long long)loc);
}

/* a string table: interned strings with their OTF2 string ids */
typedef struct strtab {
    char **s;
    size_t n, cap;
    uint32_t *slot; /* open addressing, index + 1 */
    size_t nslot;
} strtab;

typedef struct merger {
    const char *dir;
    char *err;
    size_t errcap;
    int nranks;
    rankdefs *R;
    strtab strings;
    /* global regions: key "name\tfile\tline\trole\tparadigm" in `rkeys` */
    strtab rkeys;
    struct gregion { uint32_t name, file, line; int role, paradigm; } *gregions;
    size_t cap_gr;
    /* global communicators: key "members|ordinal" in `ckeys` (0: world, 1: self) */
    strtab ckeys;
    char **cmembers;
    size_t cap_cm;
    bool cpu_metric; /* some rank recorded thread CPU time (UPT_METRIC_CPU) */
    bool thr_comms;  /* some rank has a thread contingent ("comm ID t": thr_comm0) */
    bool solo;       /* traced without MPI: the one process is "Process 0" */
    /* RMA windows: key "global comm|ordinal" (or "-rank|local id" for a
     * window on a communicator the tracer did not know) in `wkeys` */
    strtab wkeys;
    struct gwin { uint32_t name, comm; } *gwins;
    size_t cap_gw;
    /* groups of RmaGroupSync records: key = member list (world ranks) */
    strtab gkeys;
    /* attributes: ids are the tracer's constants, the same on every rank */
    struct gattr { uint32_t id; int type; char *name, *desc; } *attrs;
    size_t nattrs, cap_at;
    bool nomem;
} merger;

static int fail(merger *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (m->err && m->errcap)
        vsnprintf(m->err, m->errcap, fmt, ap);
    va_end(ap);
    return -1;
}

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
    size_t nc;
    void *np;
    if (need <= *cap)
        return p;
    nc = *cap ? *cap * 2 : 16;
    while (nc < need)
        nc *= 2;
    if (!(np = realloc(p, nc * elem)))
        return NULL;
    *cap = nc;
    return np;
}

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* index of `s` in `t`, added if new; SIZE_MAX when out of memory */
static size_t intern(strtab *t, const char *s)
{
    size_t i, j;
    if (2 * (t->n + 1) > t->nslot) {
        size_t ns = t->nslot ? 2 * t->nslot : 64;
        uint32_t *slot = calloc(ns, sizeof *slot);
        if (!slot)
            return SIZE_MAX;
        for (i = 0; i < t->n; i++) {
            for (j = hash_str(t->s[i]) & (ns - 1); slot[j]; j = (j + 1) & (ns - 1))
                ;
            slot[j] = (uint32_t)i + 1;
        }
        free(t->slot);
        t->slot = slot, t->nslot = ns;
    }
    for (j = hash_str(s) & (t->nslot - 1); t->slot[j]; j = (j + 1) & (t->nslot - 1))
        if (!strcmp(t->s[t->slot[j] - 1], s))
            return t->slot[j] - 1;
    if (!(t->s = grow(t->s, &t->cap, t->n + 1, sizeof *t->s)) || !(t->s[t->n] = strdup(s)))
        return SIZE_MAX;
    t->slot[j] = (uint32_t)t->n + 1;
    return t->n++;
}

static void strtab_free(strtab *t)
{
    size_t i;
    for (i = 0; i < t->n; i++)
        free(t->s[i]);
    free(t->s);
    free(t->slot);
}

/* ---- reading the definitions files -------------------------------------- */

/* split `line` at tabs into at most `max` fields */
static int split(char *line, char **f, int max)
{
    int n = 0;
    char *p = line;
    while (n < max) {
        f[n++] = p;
        if (!(p = strchr(p, '\t')))
            break;
        *p++ = '\0';
    }
    return n;
}

static int add_region(merger *m, rankdefs *r, char **f)
{
    char key[8192];
    size_t g, name, file;
    uint32_t local = (uint32_t)strtoul(f[1], NULL, 10);
    snprintf(key, sizeof key, "%s\t%s\t%s\t%s\t%s", f[5], f[6], f[4], f[2], f[3]);
    if ((g = intern(&m->rkeys, key)) == SIZE_MAX)
        return -1;
    if (!(m->gregions = grow(m->gregions, &m->cap_gr, m->rkeys.n, sizeof *m->gregions)))
        return -1;
    if (g == m->rkeys.n - 1) { /* new global region */
        if ((name = intern(&m->strings, f[5])) == SIZE_MAX ||
            (file = intern(&m->strings, f[6])) == SIZE_MAX)
            return -1;
        m->gregions[g].name = (uint32_t)name;
        m->gregions[g].file = f[6][0] ? (uint32_t)file : OTF2_UNDEFINED_STRING;
        m->gregions[g].line = (uint32_t)strtoul(f[4], NULL, 10);
        m->gregions[g].role = atoi(f[2]);
        m->gregions[g].paradigm = atoi(f[3]);
    }
    if (!(r->regions = grow(r->regions, &r->cap_r, r->nregions + 1, sizeof *r->regions)))
        return -1;
    r->regions[r->nregions++] = (idpair){local, (uint32_t)g};
    return 0;
}

static int add_comm(merger *m, rankdefs *r, char **f)
{
    char key[65536];
    size_t g;
    uint32_t local = (uint32_t)strtoul(f[1], NULL, 10);
    if (f[2][0] == 'w')
        g = 0;
    else if (f[2][0] == 's')
        g = 1;
    else if (f[2][0] == 't') {
        g = UINT32_MAX; /* its rank's thread contingent: fixed in write_local */
        m->thr_comms = true;
    } else {
        snprintf(key, sizeof key, "%s|%s", f[4], f[3]);
        if ((g = intern(&m->ckeys, key)) == SIZE_MAX)
            return -1;
        if (!(m->cmembers = grow(m->cmembers, &m->cap_cm, m->ckeys.n, sizeof *m->cmembers)))
            return -1;
        if (g == m->ckeys.n - 1 && !(m->cmembers[g] = strdup(f[4])))
            return -1;
        g += 2;
    }
    if (!(r->comms = grow(r->comms, &r->cap_c, r->ncomms + 1, sizeof *r->comms)))
        return -1;
    r->comms[r->ncomms++] = (idpair){local, (uint32_t)g};
    return 0;
}

/* the global id of this rank's communicator `local`, or false */
static bool comm_global(const rankdefs *r, uint32_t local, uint32_t *global)
{
    size_t i;
    for (i = r->ncomms; i-- > 0;)
        if (r->comms[i].local == local) {
            *global = r->comms[i].global;
            return true;
        }
    return false;
}

/* "win ID COMM ORDINAL NAME": a window is the same on every member of its
 * communicator when the communicator and its ordinal are (tracer.c) */
static int add_win(merger *m, rankdefs *r, int rank, char **f)
{
    char key[128];
    size_t g, name;
    uint32_t local = (uint32_t)strtoul(f[1], NULL, 10), comm = OTF2_UNDEFINED_COMM;
    if (f[2][0] == '-' || !comm_global(r, (uint32_t)strtoul(f[2], NULL, 10), &comm)) {
        comm = OTF2_UNDEFINED_COMM; /* known to this rank alone */
        snprintf(key, sizeof key, "-%d|%u", rank, local);
    } else {
        snprintf(key, sizeof key, "%u|%s", comm, f[3]);
    }
    if ((g = intern(&m->wkeys, key)) == SIZE_MAX)
        return -1;
    if (!(m->gwins = grow(m->gwins, &m->cap_gw, m->wkeys.n, sizeof *m->gwins)))
        return -1;
    if (g == m->wkeys.n - 1) {
        if ((name = intern(&m->strings, f[4])) == SIZE_MAX)
            return -1;
        m->gwins[g].name = (uint32_t)name;
        m->gwins[g].comm = comm;
    }
    if (!(r->wins = grow(r->wins, &r->cap_w, r->nwins + 1, sizeof *r->wins)))
        return -1;
    r->wins[r->nwins++] = (idpair){local, (uint32_t)g};
    return 0;
}

/* "group ID MEMBERS": the same members, the same group; the global id is
 * fixed in write_globals (after the communicators' groups) */
static int add_group(merger *m, rankdefs *r, char **f)
{
    size_t g;
    if ((g = intern(&m->gkeys, f[2])) == SIZE_MAX)
        return -1;
    if (!(r->groups = grow(r->groups, &r->cap_g, r->ngroups + 1, sizeof *r->groups)))
        return -1;
    r->groups[r->ngroups++] = (idpair){(uint32_t)strtoul(f[1], NULL, 10), (uint32_t)g};
    return 0;
}

/* "attribute ID TYPE NAME DESCRIPTION": the first rank's line defines it
 * (ids are the tracer's constants, below ATTR_ID_MAX: a larger one in a
 * damaged file is ignored, not mapped) */
#define ATTR_ID_MAX 4096
static int add_attr(merger *m, char **f)
{
    uint32_t id = (uint32_t)strtoul(f[1], NULL, 10);
    size_t i;
    if (id >= ATTR_ID_MAX)
        return 0;
    for (i = 0; i < m->nattrs; i++)
        if (m->attrs[i].id == id)
            return 0;
    if (!(m->attrs = grow(m->attrs, &m->cap_at, m->nattrs + 1, sizeof *m->attrs)))
        return -1;
    m->attrs[i].id = id;
    m->attrs[i].type = atoi(f[2]);
    m->attrs[i].name = strdup(f[3]);
    m->attrs[i].desc = strdup(f[4]);
    m->nattrs++;
    return m->attrs[i].name && m->attrs[i].desc ? 0 : -1;
}

/* The per-rank files are read only as regular files of a bounded size: a
 * .defs that is a link to /dev/zero or /dev/urandom would be read without
 * end, a FIFO blocks fopen (issue 31).  MERGE_DEFS_MAX bounds a rank's
 * definitions (the tracer's are kilobytes; a million regions would be
 * about 100 MiB), MERGE_TEXT_MAX the calibration. */
#define MERGE_DEFS_MAX ((off_t)1 << 30)
#define MERGE_TEXT_MAX ((off_t)1 << 20)

/* (up_mode_text's twin: merge.c is linked into the tracer, without util) */
static const char *file_kind(mode_t m)
{
    return S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" : S_ISFIFO(m) ? "a FIFO" :
           S_ISSOCK(m) ? "a socket" : S_ISDIR(m) ? "a folder" : S_ISLNK(m) ? "a symbolic link" :
           "not a regular file";
}

/* fopen(path, mode) ("r", "rb" or "r+b") of a regular file of at most max
 * bytes, never blocking on a FIFO, through no link when nofollow; NULL with
 * *why set ("a character device, not a regular file", "larger than ...")
 * or errno's text, and errno EINVAL for a file that is there but refused. */
static FILE *open_regular(const char *path, const char *mode, off_t max, bool nofollow, char *why,
                          size_t cap)
{
    struct stat st;
    int fd, flags = (strchr(mode, '+') ? O_RDWR : O_RDONLY) | O_NONBLOCK | O_CLOEXEC;
    FILE *fp;
    if (nofollow)
        flags |= O_NOFOLLOW;
    if ((fd = open(path, flags)) < 0) {
        snprintf(why, cap, "%s", errno == ELOOP && nofollow ? "a symbolic link, not a regular file"
                                                            : strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) != 0) {
        snprintf(why, cap, "%s", strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode) || st.st_size > max) {
        if (S_ISREG(st.st_mode))
            snprintf(why, cap, "larger than %lld bytes", (long long)max);
        else
            snprintf(why, cap, "%s, not a regular file", file_kind(st.st_mode));
        close(fd);
        errno = EINVAL; /* (not a missing file: find_ranks) */
        return NULL;
    }
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 || !(fp = fdopen(fd, mode))) {
        snprintf(why, cap, "%s", strerror(errno));
        close(fd);
        return NULL;
    }
    return fp;
}

static int read_defs(merger *m, int rank, const char *path)
{
    char line[65536], *f[8], why[128];
    FILE *fp = open_regular(path, "r", MERGE_DEFS_MAX, false, why, sizeof why);
    rankdefs *r = &m->R[rank];
    unsigned lineno = 0;
    if (!fp)
        return fail(m, "%s: %s", path, why);
    r->found = true;
    while (fgets(line, sizeof line, fp)) {
        size_t len = strlen(line);
        int n;
        lineno++;
        if (!len || line[len - 1] != '\n')
            break; /* the last line was cut by a kill: ignore it */
        line[len - 1] = '\0';
        n = split(line, f, 8);
        if (!strcmp(f[0], "rank") && n >= 4)
            snprintf(r->host, sizeof r->host, "%s", f[3]);
        else if (!strcmp(f[0], "solo"))
            m->solo = true; /* a program without MPI (docs/tracer.md) */
        else if (!strcmp(f[0], "chunk") && n >= 2)
            r->chunk = strtoull(f[1], NULL, 10);
        else if (!strcmp(f[0], "start") && n >= 2)
            r->start = strtoull(f[1], NULL, 10);
        else if (!strcmp(f[0], "region") && n >= 7) {
            if (add_region(m, r, f) != 0)
                goto nomem;
        } else if (!strcmp(f[0], "comm") && n >= 5) {
            if (add_comm(m, r, f) != 0)
                goto nomem;
        } else if (!strcmp(f[0], "offset") && n >= 4) {
            if (!(r->offs = grow(r->offs, &r->cap_o, r->noffs + 1, sizeof *r->offs)))
                goto nomem;
            r->offs[r->noffs++] = (struct offset){strtoull(f[1], NULL, 10),
                                                  strtoll(f[2], NULL, 10), strtod(f[3], NULL)};
        } else if (!strcmp(f[0], "metric") && n >= 2 && !strcmp(f[1], "cpu")) {
            m->cpu_metric = true;
        } else if (!strcmp(f[0], "win") && n >= 5) {
            if (add_win(m, r, rank, f) != 0)
                goto nomem;
        } else if (!strcmp(f[0], "group") && n >= 3) {
            if (add_group(m, r, f) != 0)
                goto nomem;
        } else if (!strcmp(f[0], "attribute") && n >= 5) {
            if (add_attr(m, f) != 0)
                goto nomem;
        } else if (!strcmp(f[0], "clock") && n >= 5) {
            r->tsc = !strcmp(f[1], "tsc");
            r->clk_t0 = strtoull(f[2], NULL, 10);
            r->clk_ns0 = strtoull(f[3], NULL, 10);
            r->rate_init = strtod(f[4], NULL);
        } else if (!strcmp(f[0], "rate") && n >= 2) {
            r->rate_end = strtod(f[1], NULL);
        } else if (!strcmp(f[0], "spin") && n >= 3) {
            r->spin_ns = strtod(f[1], NULL);
            r->spin_cal_ns = strtod(f[2], NULL);
            r->has_spin = true;
        } else if (!strcmp(f[0], "thread") && n >= 3) {
            /* "thread IDX begin" at its first record, "thread IDX EVENTS"
             * when its writer closed */
            uint32_t idx = (uint32_t)strtoul(f[1], NULL, 10);
            size_t k;
            for (k = 0; k < r->nthr && r->thr[k].idx != idx; k++)
                ;
            if (idx == 0 || idx >= UP_MERGE_THREADS_MAX)
                continue;
            if (k == r->nthr) {
                if (!(r->thr = grow(r->thr, &r->cap_t, r->nthr + 1, sizeof *r->thr)))
                    goto nomem;
                r->thr[r->nthr++] = (struct thr){idx, false, 0};
            }
            if (strcmp(f[2], "begin") != 0)
                r->thr[k].ended = true, r->thr[k].events = strtoull(f[2], NULL, 10);
        } else if (!strcmp(f[0], "end") && n >= 3) {
            r->ended = true;
            r->events = strtoull(f[1], NULL, 10);
            r->end_t = strtoull(f[2], NULL, 10);
        } else if (strcmp(f[0], "unperturb-defs") != 0) {
            fclose(fp);
            return fail(m, "%s:%u: not a line of an unperturb definitions file", path, lineno);
        }
    }
    fclose(fp);
    return 0;
nomem:
    fclose(fp);
    return fail(m, "%s: out of memory", path);
}

/* The stalls of rank r's k-th location (loc_k): DIR/.upt/<rank>.stalls for
 * its own thread, <rank>-<index>.stalls for another (tracer.c) */
static void stall_path(char *p, size_t n, const char *dir, const rankdefs *R, int r, size_t k)
{
    if (k)
        snprintf(p, n, "%s/.upt/%d-%u.stalls", dir, r, R->thr[k - 1].idx);
    else
        snprintf(p, n, "%s/.upt/%d.stalls", dir, r);
}

/* A rank's stalls (pairs of 64-bit words: start, length, in its clock's
 * units; a list per thread: stall_path) stay lists, moved next to their
 * locations' event files, unless OTF2 corrects the rank's timestamps by
 * clock offsets: the lists would then be in another time.  Such a rank's
 * stalls are summed into the mean of [overhead_by_location] instead, as ns
 * per record. */
static void fold_stalls(merger *m, int r)
{
    rankdefs *R = &m->R[r];
    char path[4096];
    uint64_t e[2];
    double rate = R->rate_end > 0 ? R->rate_end : R->rate_init, ticks = 0;
    char why[128];
    FILE *fp;
    size_t k;
    if (!R->noffs)
        return;
    for (k = 0; k <= R->nthr; k++) {
        stall_path(path, sizeof path, m->dir, R, r, k);
        if (!(fp = open_regular(path, "rb", (off_t)INT64_MAX, false, why, sizeof why)))
            continue; /* none (or not a file: left alone, the merge does not move it) */
        while (fread(e, sizeof e, 1, fp) == 1)
            ticks += (double)e[1];
        fclose(fp);
        remove(path);
    }
    if (R->events && (!R->tsc || rate > 0))
        R->stall_ns = (R->tsc ? ticks * 1e9 / rate : ticks) / (double)R->events;
}

/* The calibration text with [overhead_by_location] appended when the run
 * spent --extra-ns: how much longer each rank's spins took on average than
 * the calibration's (docs/calibration.md).  Frees `calib`; NULL when out of
 * memory. */
static char *with_spins(const merger *m, char *calib)
{
    uint64_t id[UP_LOC_OVH_MAX];
    double ns[UP_LOC_OVH_MAX];
    size_t n = 0;
    int r;
    if (m->nranks > UP_LOC_OVH_MAX) /* more than compensate reads: left out */
        return calib;
    for (r = 0; r < m->nranks; r++)
        if (m->R[r].has_spin) {
            id[n] = (uint64_t)r;
            ns[n++] = (m->R[r].spin_ns > m->R[r].spin_cal_ns ? m->R[r].spin_ns - m->R[r].spin_cal_ns
                                                             : 0.0) + m->R[r].stall_ns;
        }
    return n ? up_calib_add_by_location(calib, n, id, ns) : calib;
}

/* the rank count: the `rank` line of any definitions file */
static int find_ranks(merger *m)
{
    char path[4096];
    DIR *d;
    struct dirent *e;
    int size = 0;
    snprintf(path, sizeof path, "%s/.upt", m->dir);
    if (!(d = opendir(path)))
        return fail(m, "%s: %s (not a folder written by the unperturb tracer?)", path,
                    strerror(errno));
    while ((e = readdir(d)) && !size) {
        char p[4096 + 256], line[512], why[128];
        FILE *fp;
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".defs"))
            continue;
        snprintf(p, sizeof p, "%s/%s", path, e->d_name);
        if (!(fp = open_regular(p, "r", MERGE_DEFS_MAX, false, why, sizeof why))) {
            if (errno == ENOENT)
                continue;
            closedir(d);
            return fail(m, "%s: %s", p, why);
        }
        while (fgets(line, sizeof line, fp))
            if (!strncmp(line, "rank\t", 5)) {
                char *f[4];
                if (split(line, f, 4) >= 3)
                    size = atoi(f[2]);
                break;
            }
        fclose(fp);
    }
    closedir(d);
    if (size <= 0)
        return fail(m, "%s: no definitions file of the unperturb tracer in it", path);
    if (size > (1 << 22))
        return fail(m, "%s: a definitions file says %d ranks, more than the 4194304 the tracer writes",
                    path, size);
    m->nranks = size;
    return 0;
}

/* ---- writing ---------------------------------------------------------------- */

/* the global id of the first RMA group: after 0 (world's locations), 1
 * (world's ranks), 2 (self) and one group per created communicator */
static uint32_t rma_group0(const merger *m)
{
    return 3 + (uint32_t)m->ckeys.n;
}

/* The thread contingents (docs/tracer.md, "POSIX threads"): after the RMA
 * groups, the group of every thread location (COMM_LOCATIONS, PTHREAD),
 * then one COMM_GROUP per rank of its locations' indices in it; after the
 * created communicators, one communicator per rank. */
static uint32_t thr_group0(const merger *m)
{
    return rma_group0(m) + (uint32_t)m->gkeys.n;
}

static uint32_t thr_comm0(const merger *m)
{
    return 2 + (uint32_t)m->ckeys.n;
}

/* a member list "3,0,2" (world ranks below `max`) into `out` */
static bool parse_members(const char *p, uint64_t *out, uint32_t max, uint32_t *n)
{
    char *end;
    *n = 0;
    while (*p) {
        unsigned long long v = strtoull(p, &end, 10);
        if (end == p || v >= max || *n >= max)
            return false;
        out[(*n)++] = v;
        if (*end != ',' && *end)
            return false;
        p = *end ? end + 1 : end;
    }
    return true;
}

/* The tracer's attribute ids are fixed and sparse (UPT_ATTR_*: 0, 1, the
 * POSIX threads' from 2, the OMPT tool's from 16); the global ones are
 * dense, in the order of the tracer's (readers expect 0, 1, 2, ...), and
 * every location maps its ids to them */
static int attr_cmp(const void *a, const void *b)
{
    uint32_t x = ((const struct gattr *)a)->id, y = ((const struct gattr *)b)->id;
    return x < y ? -1 : x > y;
}

/* the thread contingents' groups (thr_group0) */
static OTF2_ErrorCode write_thread_groups(merger *m, OTF2_GlobalDefWriter *gw, uint32_t s_empty)
{
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    size_t n = 0, at = 0, k;
    uint64_t *all, *mine;
    int r;
    for (r = 0; r < m->nranks; r++)
        n += m->R[r].nthr + 1;
    if (!(all = malloc((n ? n : 1) * sizeof *all)) || !(mine = malloc((n ? n : 1) * sizeof *mine))) {
        free(all);
        m->nomem = true;
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    }
    for (r = 0; r < m->nranks; r++)
        for (k = 0; k <= m->R[r].nthr; k++)
            all[at++] = loc_k(&m->R[r], r, k);
    rc = OTF2_GlobalDefWriter_WriteGroup(gw, thr_group0(m), s_empty, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                         OTF2_PARADIGM_PTHREAD, OTF2_GROUP_FLAG_NONE, (uint32_t)n,
                                         all);
    for (r = 0, at = 0; r < m->nranks && rc == OTF2_SUCCESS; r++) {
        for (k = 0; k <= m->R[r].nthr; k++)
            mine[k] = at++;
        rc = OTF2_GlobalDefWriter_WriteGroup(gw, thr_group0(m) + 1 + (uint32_t)r, s_empty,
                                             OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_PTHREAD,
                                             OTF2_GROUP_FLAG_NONE, (uint32_t)m->R[r].nthr + 1, mine);
    }
    free(all);
    free(mine);
    return rc;
}

static OTF2_ErrorCode write_globals(merger *m, OTF2_GlobalDefWriter *gw)
{
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    uint64_t t0 = UINT64_MAX, t1 = 0, now, now_ns;
    double rate = 0;
    struct timespec ts;
    strtab hosts = {0};
    size_t i, str_rank0, s_machine, s_node, s_linux, s_thread, s_world, s_mpi, s_empty;
    size_t s_cpu = 0, s_cpu_desc = 0, s_sec = 0;
    uint64_t *members = NULL;
    int r;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    now_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    qsort(m->attrs, m->nattrs, sizeof *m->attrs, attr_cmp); /* global id: the index */
    /* the timer resolution: rank 0's clock (the offsets map the others to it) */
    for (r = 0; r < m->nranks && rate == 0; r++)
        if (m->R[r].found)
            rate = m->R[r].rate_end > 0 ? m->R[r].rate_end : m->R[r].rate_init;
    if (!(rate >= 1e3 && rate < 1e12))
        rate = 1e9; /* files without a clock line: ns */
    for (r = 0; r < m->nranks; r++) {
        const rankdefs *R = &m->R[r];
        if (!R->found)
            continue;
        /* a rank that died: every record it wrote is before now, in its ticks */
        now = R->tsc && now_ns > R->clk_ns0
                  ? R->clk_t0 + (uint64_t)((double)(now_ns - R->clk_ns0) * rate / 1e9)
                  : now_ns;
        if (R->start && R->start < t0)
            t0 = R->start;
        if (R->end_t > t1)
            t1 = R->end_t;
        if (!R->ended && now > t1)
            t1 = now;
    }
    if (t0 == UINT64_MAX)
        t0 = 0;
    if (t1 < t0)
        t1 = t0;
    /* strings: the regions' first, then ours */
    s_empty = intern(&m->strings, "");
    s_machine = intern(&m->strings, "machine");
    s_node = intern(&m->strings, "node");
    s_linux = intern(&m->strings, "Linux");
    s_thread = intern(&m->strings, "Master thread");
    s_world = intern(&m->strings, "MPI_COMM_WORLD");
    s_mpi = intern(&m->strings, "MPI");
    if (m->cpu_metric) {
        s_cpu = intern(&m->strings, "cpu_time");
        s_cpu_desc = intern(&m->strings, "thread CPU time (CLOCK_THREAD_CPUTIME_ID), at the "
                                         "Enter and Leave of MPI calls");
        s_sec = intern(&m->strings, "s");
    }
    for (i = 0; i < m->nattrs; i++)
        if (intern(&m->strings, m->attrs[i].name) == SIZE_MAX ||
            intern(&m->strings, m->attrs[i].desc) == SIZE_MAX)
            goto nomem;
    str_rank0 = m->strings.n;
    for (r = 0; r < m->nranks; r++) {
        char name[64];
        snprintf(name, sizeof name, m->solo ? "Process %d" : "MPI Rank %d", r);
        if (intern(&m->strings, name) == SIZE_MAX ||
            intern(&hosts, m->R[r].host[0] ? m->R[r].host : "unknown") == SIZE_MAX)
            goto nomem;
    }
    for (i = 0; i < hosts.n; i++)
        if (intern(&m->strings, hosts.s[i]) == SIZE_MAX)
            goto nomem;
    for (r = 0; r < m->nranks; r++)
        for (i = 0; i < m->R[r].nthr; i++) {
            char name[64];
            snprintf(name, sizeof name, "Thread %u", m->R[r].thr[i].idx);
            if (intern(&m->strings, name) == SIZE_MAX)
                goto nomem;
        }
    for (i = 0; i < m->ckeys.n; i++) {
        char name[64];
        snprintf(name, sizeof name, "Comm %zu", i + 2);
        if (intern(&m->strings, name) == SIZE_MAX)
            goto nomem;
    }
    for (r = 0; m->thr_comms && r < m->nranks; r++) {
        char name[64];
        snprintf(name, sizeof name, "Threads of rank %d", r);
        if (intern(&m->strings, name) == SIZE_MAX)
            goto nomem;
    }
    if (m->nomem || s_empty == SIZE_MAX || s_mpi == SIZE_MAX || s_cpu == SIZE_MAX ||
        s_cpu_desc == SIZE_MAX || s_sec == SIZE_MAX)
        goto nomem;

#define W(call)                                   \
    do {                                          \
        if ((rc = (call)) != OTF2_SUCCESS)        \
            goto out;                             \
    } while (0)
    W(OTF2_GlobalDefWriter_WriteClockProperties(gw, (uint64_t)(rate + 0.5), t0, t1 - t0 + 1,
                                                OTF2_UNDEFINED_TIMESTAMP));
    /* every definition after the ones it references (the MPI Paradigm names
     * a String): OTF2's Python reader refuses a reference to a definition
     * still to come, and otf2-print shows it as INVALID */
    for (i = 0; i < m->strings.n; i++)
        W(OTF2_GlobalDefWriter_WriteString(gw, (uint32_t)i, m->strings.s[i]));
    W(OTF2_GlobalDefWriter_WriteParadigm(gw, OTF2_PARADIGM_MPI, (uint32_t)s_mpi,
                                         OTF2_PARADIGM_CLASS_PROCESS));
    W(OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, (uint32_t)s_linux, (uint32_t)s_machine,
                                               OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    for (i = 0; i < hosts.n; i++)
        W(OTF2_GlobalDefWriter_WriteSystemTreeNode(
            gw, (uint32_t)i + 1, (uint32_t)intern(&m->strings, hosts.s[i]), (uint32_t)s_node, 0));
    for (r = 0; r < m->nranks; r++) {
        size_t h = intern(&hosts, m->R[r].host[0] ? m->R[r].host : "unknown");
        W(OTF2_GlobalDefWriter_WriteLocationGroup(gw, (uint32_t)r, (uint32_t)(str_rank0 + (size_t)r),
                                                  OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                  (uint32_t)h + 1,
                                                  OTF2_UNDEFINED_LOCATION_GROUP));
    }
    for (r = 0; r < m->nranks; r++) {
        W(OTF2_GlobalDefWriter_WriteLocation(gw, (uint64_t)r, (uint32_t)s_thread,
                                             OTF2_LOCATION_TYPE_CPU_THREAD, m->R[r].events,
                                             (uint32_t)r));
        for (i = 0; i < m->R[r].nthr; i++) {
            char name[64];
            snprintf(name, sizeof name, "Thread %u", m->R[r].thr[i].idx);
            W(OTF2_GlobalDefWriter_WriteLocation(gw, thr_loc(r, m->R[r].thr[i].idx),
                                                 (uint32_t)intern(&m->strings, name),
                                                 OTF2_LOCATION_TYPE_CPU_THREAD,
                                                 m->R[r].thr[i].events, (uint32_t)r));
        }
    }
    if (m->cpu_metric) { /* metric class 0, member 0: the tracer writes class 0 */
        OTF2_MetricMemberRef mm = 0;
        W(OTF2_GlobalDefWriter_WriteMetricMember(gw, 0, (uint32_t)s_cpu, (uint32_t)s_cpu_desc,
                                                 OTF2_METRIC_TYPE_OTHER,
                                                 OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64,
                                                 OTF2_BASE_DECIMAL, -9, (uint32_t)s_sec));
        W(OTF2_GlobalDefWriter_WriteMetricClass(gw, 0, 1, &mm, OTF2_METRIC_SYNCHRONOUS,
                                                OTF2_RECORDER_KIND_CPU));
    }
    for (i = 0; i < m->rkeys.n; i++) {
        const struct gregion *g = &m->gregions[i];
        W(OTF2_GlobalDefWriter_WriteRegion(gw, (uint32_t)i, g->name, g->name, (uint32_t)s_empty,
                                           (OTF2_RegionRole)g->role, (OTF2_Paradigm)g->paradigm,
                                           OTF2_REGION_FLAG_NONE, g->file, g->line, 0));
    }
    for (i = 0; i < m->nattrs; i++) /* (ids dense: attr_map) */
        W(OTF2_GlobalDefWriter_WriteAttribute(gw, (uint32_t)i,
                                              (uint32_t)intern(&m->strings, m->attrs[i].name),
                                              (uint32_t)intern(&m->strings, m->attrs[i].desc),
                                              (OTF2_Type)m->attrs[i].type));
    /* groups: 0 the locations of MPI_COMM_WORLD, 1 its ranks, 2 self,
     * 3.. the created communicators' ranks (world ranks) */
    if (!(members = malloc((size_t)m->nranks * sizeof *members)))
        goto nomem;
    for (r = 0; r < m->nranks; r++)
        members[r] = (uint64_t)r;
    W(OTF2_GlobalDefWriter_WriteGroup(gw, 0, (uint32_t)s_empty, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                      OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                      (uint32_t)m->nranks, members));
    W(OTF2_GlobalDefWriter_WriteGroup(gw, 1, (uint32_t)s_empty, OTF2_GROUP_TYPE_COMM_GROUP,
                                      OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                      (uint32_t)m->nranks, members));
    W(OTF2_GlobalDefWriter_WriteGroup(gw, 2, (uint32_t)s_empty, OTF2_GROUP_TYPE_COMM_SELF,
                                      OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 0, NULL));
    for (i = 0; i < m->ckeys.n; i++) {
        uint32_t n = 0;
        char *p = m->cmembers[i], *end;
        while (*p && n < (uint32_t)m->nranks) {
            members[n++] = strtoull(p, &end, 10);
            p = *end == ',' ? end + 1 : end;
            if (end == p && *p)
                break;
        }
        W(OTF2_GlobalDefWriter_WriteGroup(gw, (uint32_t)i + 3, (uint32_t)s_empty,
                                          OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                          OTF2_GROUP_FLAG_NONE, n, members));
    }
    /* then the groups of RmaGroupSync records (world ranks, as Score-P) */
    for (i = 0; i < m->gkeys.n; i++) {
        uint32_t n = 0;
        if (!parse_members(m->gkeys.s[i], members, (uint32_t)m->nranks, &n)) {
            rc = OTF2_ERROR_INVALID_DATA;
            goto out;
        }
        W(OTF2_GlobalDefWriter_WriteGroup(gw, rma_group0(m) + (uint32_t)i, (uint32_t)s_empty,
                                          OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                          OTF2_GROUP_FLAG_NONE, n, members));
    }
    if (m->thr_comms)
        W(write_thread_groups(m, gw, (uint32_t)s_empty));
    W(OTF2_GlobalDefWriter_WriteComm(gw, 0, (uint32_t)s_world, 1, OTF2_UNDEFINED_COMM,
                                     OTF2_COMM_FLAG_NONE));
    W(OTF2_GlobalDefWriter_WriteComm(gw, 1, (uint32_t)s_empty, 2, OTF2_UNDEFINED_COMM,
                                     OTF2_COMM_FLAG_NONE));
    for (i = 0; i < m->ckeys.n; i++) {
        char name[64];
        snprintf(name, sizeof name, "Comm %zu", i + 2);
        W(OTF2_GlobalDefWriter_WriteComm(gw, (uint32_t)i + 2, (uint32_t)intern(&m->strings, name),
                                         (uint32_t)i + 3, 0, OTF2_COMM_FLAG_NONE));
    }
    for (r = 0; m->thr_comms && r < m->nranks; r++) {
        char name[64];
        snprintf(name, sizeof name, "Threads of rank %d", r);
        W(OTF2_GlobalDefWriter_WriteComm(gw, thr_comm0(m) + (uint32_t)r,
                                         (uint32_t)intern(&m->strings, name),
                                         thr_group0(m) + 1 + (uint32_t)r, OTF2_UNDEFINED_COMM,
                                         OTF2_COMM_FLAG_NONE));
    }
    for (i = 0; i < m->wkeys.n; i++)
        W(OTF2_GlobalDefWriter_WriteRmaWin(gw, (uint32_t)i, m->gwins[i].name, m->gwins[i].comm,
                                           OTF2_RMA_WIN_FLAG_CREATE_DESTROY_EVENTS));
#undef W
out:
    free(members);
    strtab_free(&hosts);
    return rc;
nomem:
    free(members);
    strtab_free(&hosts);
    m->nomem = true;
    return OTF2_ERROR_MEM_ALLOC_FAILED;
}

/* a dense local -> global + offset map (ids never defined map to themselves) */
static OTF2_IdMap *idmap_offset(const idpair *p, size_t n, uint32_t offset)
{
    uint32_t max = 0;
    uint64_t *a;
    size_t i;
    OTF2_IdMap *map;
    for (i = 0; i < n; i++)
        if (p[i].local + 1 > max)
            max = p[i].local + 1;
    if (!(a = malloc((max ? max : 1) * sizeof *a)))
        return NULL;
    for (i = 0; i < max; i++)
        a[i] = i;
    for (i = 0; i < n; i++)
        a[p[i].local] = (uint64_t)p[i].global + offset;
    map = OTF2_IdMap_CreateFromUint64Array(max, a, false);
    free(a);
    return map;
}

static OTF2_IdMap *idmap(const idpair *p, size_t n)
{
    return idmap_offset(p, n, 0);
}

static OTF2_IdMap *attr_map(merger *m)
{
    idpair *p = malloc(m->nattrs * sizeof *p);
    OTF2_IdMap *map;
    size_t i;
    if (!p)
        return NULL;
    for (i = 0; i < m->nattrs; i++)
        p[i] = (idpair){m->attrs[i].id, (uint32_t)i};
    map = idmap(p, m->nattrs);
    free(p);
    return map;
}

/* Location loc's local definitions: its rank d's mapping tables and clock
 * offsets (every thread of a rank shares them) */
static OTF2_ErrorCode write_local(merger *m, OTF2_Archive *ar, rankdefs *d, uint64_t loc)
{
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, loc);
    OTF2_IdMap *map;
    size_t i;
    if (!dw)
        return OTF2_ERROR_INVALID;
    if (d->nregions && (map = idmap(d->regions, d->nregions))) {
        rc = OTF2_DefWriter_WriteMappingTable(dw, OTF2_MAPPING_REGION, map);
        OTF2_IdMap_Free(map);
    }
    for (i = 0; i < d->ncomms; i++) /* the thread contingent (add_comm) */
        if (d->comms[i].global == UINT32_MAX)
            d->comms[i].global = thr_comm0(m) + (uint32_t)(d - m->R);
    if (rc == OTF2_SUCCESS && d->ncomms && (map = idmap(d->comms, d->ncomms))) {
        rc = OTF2_DefWriter_WriteMappingTable(dw, OTF2_MAPPING_COMM, map);
        OTF2_IdMap_Free(map);
    }
    if (rc == OTF2_SUCCESS && d->nwins && (map = idmap(d->wins, d->nwins))) {
        rc = OTF2_DefWriter_WriteMappingTable(dw, OTF2_MAPPING_RMA_WIN, map);
        OTF2_IdMap_Free(map);
    }
    /* the RMA groups' global ids follow the communicators' groups */
    if (rc == OTF2_SUCCESS && d->ngroups &&
        (map = idmap_offset(d->groups, d->ngroups, rma_group0(m)))) {
        rc = OTF2_DefWriter_WriteMappingTable(dw, OTF2_MAPPING_GROUP, map);
        OTF2_IdMap_Free(map);
    }
    if (rc == OTF2_SUCCESS && m->nattrs && (map = attr_map(m))) {
        rc = OTF2_DefWriter_WriteMappingTable(dw, OTF2_MAPPING_ATTRIBUTE, map);
        OTF2_IdMap_Free(map);
    }
    for (i = 0; i < d->noffs && rc == OTF2_SUCCESS; i++)
        rc = OTF2_DefWriter_WriteClockOffset(dw, d->offs[i].t, d->offs[i].off, d->offs[i].sd);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Archive_CloseDefWriter(ar, dw);
    return rc;
}

static OTF2_ErrorCode write_locals(merger *m, OTF2_Archive *ar)
{
    OTF2_ErrorCode rc;
    int r;
    size_t k;
    if ((rc = OTF2_Archive_OpenDefFiles(ar)) != OTF2_SUCCESS)
        return rc;
    for (r = 0; r < m->nranks && rc == OTF2_SUCCESS; r++)
        for (k = 0; k <= m->R[r].nthr && rc == OTF2_SUCCESS; k++)
            rc = write_local(m, ar, &m->R[r], loc_k(&m->R[r], r, k));
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Archive_CloseDefFiles(ar);
    return rc;
}

static char *read_text(const char *path)
{
    char why[128];
    FILE *fp = open_regular(path, "r", MERGE_TEXT_MAX, false, why, sizeof why);
    char *buf;
    long n;
    if (!fp)
        return NULL;
    if (fseek(fp, 0, SEEK_END) != 0 || (n = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) != 0 ||
        !(buf = malloc((size_t)n + 1))) {
        fclose(fp);
        return NULL;
    }
    buf[fread(buf, 1, (size_t)n, fp)] = '\0';
    fclose(fp);
    return buf;
}

static int rm_tree(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    int rc = 0;
    if (!d)
        return unlink(path);
    while ((e = readdir(d))) {
        char p[4096];
        struct stat st;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", path, e->d_name);
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            rc |= rm_tree(p);
        else
            rc |= unlink(p);
    }
    closedir(d);
    return rc | rmdir(path);
}

/* A rank killed before it closed its trace (SIGKILL) left whole chunks
 * whose last one ends in END_OF_CHUNK: OTF2's readers then look for a next
 * chunk forever.  Give the file an empty last chunk that ends it, as a
 * closed one would (a chunk header, magic 0x03 and 'B', its first and last
 * event number, then END_OF_FILE 0x02 and END_OF_BUFFER 0x01), and return
 * the number of events in the file; a torn chunk at the end is cut off. */
static int end_evt_file(const char *path, uint64_t chunk, uint64_t *events)
{
    char why[128];
    FILE *fp = open_regular(path, "r+b", (off_t)INT64_MAX, true, why, sizeof why);
    unsigned char h[18], *tail = NULL;
    long size;
    uint64_t n, first = 0, last = 0;
    int i, rc = -1;
    if (!fp)
        return -1;
    if (fseek(fp, 0, SEEK_END) != 0 || (size = ftell(fp)) < 0)
        goto out;
    n = (uint64_t)size / chunk;
    if (n == 0 || ((uint64_t)size % chunk && ftruncate(fileno(fp), (off_t)(n * chunk)) != 0))
        goto out;
    if (fseek(fp, (long)((n - 1) * chunk), SEEK_SET) != 0 || fread(h, 1, 18, fp) != 18 ||
        h[0] != 0x03 || h[1] != 'B')
        goto out; /* not a little-endian OTF2 chunk: leave it alone */
    for (i = 7; i >= 0; i--) {
        first = first << 8 | h[2 + i];
        last = last << 8 | h[10 + i];
    }
    (void)first;
    if (!(tail = calloc(1, (size_t)chunk)))
        goto out;
    tail[0] = 0x03, tail[1] = 'B';
    for (i = 0; i < 8; i++) {
        tail[2 + i] = (unsigned char)((last + 1) >> (8 * i));
        tail[10 + i] = (unsigned char)(last >> (8 * i));
    }
    tail[18] = 0x02, tail[19] = 0x01;
    if (fseek(fp, (long)(n * chunk), SEEK_SET) != 0 || fwrite(tail, 1, (size_t)chunk, fp) != chunk)
        goto out;
    *events = last;
    rc = 0;
out:
    free(tail);
    if (fclose(fp) != 0)
        rc = -1;
    return rc;
}

/* a failed merge leaves the folder as the tracer left it, so it can retry */
static void undo(const char *dir)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/traces.otf2", dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/traces.def", dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/traces", dir);
    rm_tree(p);
}

int up_merge(const char *dir, up_merge_info *info, char *err, size_t errcap)
{
    merger m = {.dir = dir, .err = err, .errcap = errcap};
    OTF2_Archive *ar = NULL;
    OTF2_GlobalDefWriter *gw;
    OTF2_ErrorCode rc;
    char path[4096], dst[4096], *calib;
    struct stat st;
    int r, ret = -1;
    bool moving = false; /* event files are being moved in: never undo then */

    if (err && errcap)
        err[0] = '\0';
    snprintf(path, sizeof path, "%s/traces.otf2", dir);
    if (stat(path, &st) == 0)
        return fail(&m, "%s already exists: the archive is complete", path);
    if (find_ranks(&m) != 0)
        return -1;
    if (!(m.R = calloc((size_t)m.nranks, sizeof *m.R)))
        return fail(&m, "out of memory");
    for (r = 0; r < m.nranks; r++) {
        snprintf(path, sizeof path, "%s/.upt/%d.defs", dir, r);
        if (stat(path, &st) == 0 && read_defs(&m, r, path) != 0)
            goto out;
    }

    ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                           OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar) {
        fail(&m, "%s: cannot create the OTF2 archive", dir);
        goto out;
    }
    if ((rc = OTF2_Archive_SetSerialCollectiveCallbacks(ar)) != OTF2_SUCCESS ||
        (rc = OTF2_Archive_SetFlushCallbacks(ar, &up_otf2_flush_callbacks, NULL)) != OTF2_SUCCESS ||
        (rc = OTF2_Archive_SetCreator(ar, "unperturb-trace")) != OTF2_SUCCESS) {
        fail(&m, "%s: %s", dir, OTF2_Error_GetDescription(rc));
        goto out;
    }
    for (r = 0; r < m.nranks; r++)
        fold_stalls(&m, r);
    snprintf(path, sizeof path, "%s/.upt/calibration.ini", dir);
    if ((calib = read_text(path)) && !(calib = with_spins(&m, calib))) {
        fail(&m, "%s: out of memory", dir);
        goto out;
    }
    if (calib) {
        rc = OTF2_Archive_SetProperty(ar, UP_CALIB_PROPERTY, calib, true);
        free(calib);
        if (rc != OTF2_SUCCESS) {
            fail(&m, "%s: cannot store the calibration: %s", dir, OTF2_Error_GetDescription(rc));
            goto out;
        }
    }
    /* killed ranks: end their event files so they can be read */
    for (r = 0; r < m.nranks; r++)
        for (size_t k = 0; k <= m.R[r].nthr; k++) {
            rankdefs *R = &m.R[r];
            bool ended = k ? R->thr[k - 1].ended : R->ended;
            uint64_t *events = k ? &R->thr[k - 1].events : &R->events;
            evt_path(path, sizeof path, dir, r, loc_k(R, r, k));
            if (R->found && !ended && stat(path, &st) == 0 && st.st_size > 0 &&
                end_evt_file(path, R->chunk ? R->chunk : 1024 * 1024, events) != 0) {
                if (k)
                    fail(&m, "%s: cannot end the event file of rank %d thread %u, which did "
                             "not close it", path, r, R->thr[k - 1].idx);
                else
                    fail(&m, "%s: cannot end the event file of rank %d, which did not close it",
                         path, r);
                goto out;
            }
        }
    /* ranks that left no event file get an empty one, so every location
     * named in the definitions can be read */
    if ((rc = OTF2_Archive_OpenEvtFiles(ar)) != OTF2_SUCCESS) {
        fail(&m, "%s: %s", dir, OTF2_Error_GetDescription(rc));
        goto out;
    }
    for (r = 0; r < m.nranks; r++)
        for (size_t k = 0; k <= m.R[r].nthr; k++) {
            uint64_t loc = loc_k(&m.R[r], r, k);
            evt_path(path, sizeof path, dir, r, loc);
            if (stat(path, &st) != 0 || st.st_size == 0) {
                OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, loc);
                if (w)
                    OTF2_Archive_CloseEvtWriter(ar, w);
            }
        }
    OTF2_Archive_CloseEvtFiles(ar);
    if (!(gw = OTF2_Archive_GetGlobalDefWriter(ar))) {
        fail(&m, "%s: cannot write the global definitions", dir);
        goto out;
    }
    if ((rc = write_globals(&m, gw)) != OTF2_SUCCESS || (rc = write_locals(&m, ar)) != OTF2_SUCCESS) {
        fail(&m, "%s: cannot write the definitions: %s", dir,
             m.nomem ? "out of memory" : OTF2_Error_GetDescription(rc));
        goto out;
    }
    rc = OTF2_Archive_Close(ar);
    ar = NULL;
    if (rc != OTF2_SUCCESS) {
        fail(&m, "%s: cannot close the archive: %s", dir, OTF2_Error_GetDescription(rc));
        goto out;
    }
    moving = true;
    for (r = 0; r < m.nranks; r++) {
        for (size_t k = 0; k <= m.R[r].nthr; k++) {
            uint64_t loc = loc_k(&m.R[r], r, k);
            evt_path(path, sizeof path, dir, r, loc);
            snprintf(dst, sizeof dst, "%s/traces/%llu.evt", dir, (unsigned long long)loc);
            if (stat(path, &st) == 0 && st.st_size > 0 && rename(path, dst) != 0) {
                fail(&m, "cannot move %s to %s: %s", path, dst, strerror(errno));
                goto out;
            }
            stall_path(path, sizeof path, dir, &m.R[r], r, k);
            snprintf(dst, sizeof dst, "%s/traces/%llu.stalls", dir, (unsigned long long)loc);
            if (stat(path, &st) == 0 && st.st_size > 0 && rename(path, dst) != 0) {
                fail(&m, "cannot move %s to %s: %s", path, dst, strerror(errno));
                goto out;
            }
        }
    }
    snprintf(path, sizeof path, "%s/.upt", dir);
    rm_tree(path);
    if (info) {
        memset(info, 0, sizeof *info);
        info->ranks = m.nranks;
        for (r = 0; r < m.nranks; r++) {
            info->ranks_found += m.R[r].found;
            info->ranks_ended += m.R[r].ended;
            info->events += m.R[r].events;
            info->threads += (int)m.R[r].nthr;
            for (size_t k = 0; k < m.R[r].nthr; k++)
                info->events += m.R[r].thr[k].events;
        }
    }
    ret = 0;
out:
    if (ar)
        OTF2_Archive_Close(ar);
    if (ret != 0 && m.R && !moving)
        undo(dir);
    if (m.R)
        for (r = 0; r < m.nranks; r++) {
            free(m.R[r].regions);
            free(m.R[r].comms);
            free(m.R[r].wins);
            free(m.R[r].groups);
            free(m.R[r].offs);
            free(m.R[r].thr);
        }
    free(m.R);
    strtab_free(&m.strings);
    strtab_free(&m.rkeys);
    strtab_free(&m.ckeys);
    strtab_free(&m.wkeys);
    strtab_free(&m.gkeys);
    free(m.gwins);
    if (m.cmembers)
        for (size_t i = 0; i < m.ckeys.n; i++)
            free(m.cmembers[i]);
    free(m.cmembers);
    free(m.gregions);
    for (size_t i = 0; i < m.nattrs; i++)
        free(m.attrs[i].name), free(m.attrs[i].desc);
    free(m.attrs);
    return ret;
}
