/*
 * omp_runtime.c - which OpenMP runtime a program needs, and whether LLVM's
 * libomp, which has OMPT, can stand in for GCC's libgomp (omp_runtime.h;
 * docs/tracer-openmp.md).
 *
 * Both files are read through libelf's section headers: .dynamic (DT_NEEDED,
 * DT_RPATH, DT_RUNPATH), .dynsym, .gnu.version (one version index per
 * symbol), .gnu.version_r (the versions a file needs, per library) and
 * .gnu.version_d (the versions a library defines).  The test of a symbol is
 * glibc's (elf/dl-lookup.c, check_match; elf/dl-version.c): a reference
 * with version V binds to a definition of the same name in version V,
 * hidden (name@V) or default (name@@V), or to one whose version index has
 * no definition behind it (an unversioned symbol of a library with
 * versions); a reference without a version binds to any definition that is
 * not hidden.  And before any symbol, every version node a program needs of
 * a library must be defined by the file the loader takes for it, unless
 * the requirement is weak: with libomp linked as libgomp.so.1, a program
 * that needs GOMP_5.1 does not start ("version `GOMP_5.1' not found").
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <glob.h>
#include <gnu/libc-version.h>
#include <libelf.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/omp_runtime.h"

#define GOMP_SONAME "libgomp.so.1"
#define MAX_VERSION 0x7fff /* a version index is 15 bits (bit 15: hidden) */

/* ---- one ELF file: its dynamic symbols and versions ------------------------- */

typedef struct elf_file {
    int fd;
    Elf *e;
    GElf_Ehdr eh;
    Elf_Data *dyn, *sym, *versym, *verneed, *verdef;
    size_t dynstr, symstr, needstr, defstr; /* string sections (indexes) */
    size_t ndyn, nsym, nversym;
    size_t nneed, ndef;                     /* entries (sh_info) */
    size_t nv;                              /* version indexes 0..nv-1 */
    const char **vname;                     /* index -> version name (NULL: none) */
    const char **vfile;                     /* verneed: index -> library that defines it */
    unsigned char *vweak;                   /* verneed: index -> weak requirement */
} elf_file;

static void elf_close(elf_file *f)
{
    if (f->e)
        elf_end(f->e);
    if (f->fd >= 0)
        close(f->fd);
    up_free(f->vname);
    up_free(f->vfile);
    up_free(f->vweak);
    memset(f, 0, sizeof *f);
    f->fd = -1;
}

static const char *str_at(const elf_file *f, size_t sec, size_t off)
{
    const char *s = sec ? elf_strptr(f->e, sec, off) : NULL;
    return s ? s : "";
}

static size_t count_of(Elf *e, Elf_Data *d, Elf_Type t)
{
    size_t one = gelf_fsize(e, t, 1, EV_CURRENT);
    return d && one ? d->d_size / one : 0;
}

/* Calls fn for every version index the verneed and verdef sections name
 * (walks each chain at most `n` entries, within the section): a needed
 * version with its name, library and weakness; a defined one with its name
 * (NULL when it has none) */
typedef void version_fn(elf_file *f, size_t k, const char *name, const char *file, bool weak,
                        void *ctx);

static void each_version(elf_file *f, version_fn *fn, void *ctx)
{
    size_t off, i, j;
    if (f->verneed)
        for (off = 0, i = 0; i < f->nneed; i++) {
            GElf_Verneed vn;
            size_t aoff;
            if (!gelf_getverneed(f->verneed, (int)off, &vn))
                break;
            for (aoff = off + vn.vn_aux, j = 0; j < vn.vn_cnt; j++) {
                GElf_Vernaux va;
                if (!gelf_getvernaux(f->verneed, (int)aoff, &va))
                    break;
                fn(f, va.vna_other & MAX_VERSION, str_at(f, f->needstr, va.vna_name),
                   str_at(f, f->needstr, vn.vn_file), (va.vna_flags & VER_FLG_WEAK) != 0, ctx);
                if (!va.vna_next)
                    break;
                aoff += va.vna_next;
            }
            if (!vn.vn_next)
                break;
            off += vn.vn_next;
        }
    if (f->verdef)
        for (off = 0, i = 0; i < f->ndef; i++) {
            GElf_Verdef vd;
            GElf_Verdaux vda;
            if (!gelf_getverdef(f->verdef, (int)off, &vd))
                break;
            fn(f, vd.vd_ndx & MAX_VERSION,
               vd.vd_cnt && gelf_getverdaux(f->verdef, (int)(off + vd.vd_aux), &vda)
                   ? str_at(f, f->defstr, vda.vda_name) : NULL,
               NULL, false, ctx);
            if (!vd.vd_next)
                break;
            off += vd.vd_next;
        }
}

/* (each_version) the highest index, into *(size_t *)ctx */
static void version_top(elf_file *f, size_t k, const char *name, const char *file, bool weak,
                        void *ctx)
{
    size_t *top = ctx;
    (void)f, (void)name, (void)file, (void)weak;
    if (k > *top)
        *top = k;
}

/* (each_version) an index's name, and a needed one's library and weakness */
static void version_note(elf_file *f, size_t k, const char *name, const char *file, bool weak,
                         void *ctx)
{
    (void)ctx;
    if (k >= f->nv || !name)
        return;
    f->vname[k] = name;
    if (file) {
        f->vfile[k] = file;
        f->vweak[k] = weak;
    }
}

/* The names of the version indexes: needed ones with their library, and
 * defined ones.  -1: out of memory. */
static int read_versions(elf_file *f)
{
    size_t top = 1;
    each_version(f, version_top, &top);
    f->nv = top + 1;
    f->vname = up_calloc(f->nv, sizeof *f->vname);
    f->vfile = up_calloc(f->nv, sizeof *f->vfile);
    f->vweak = up_calloc(f->nv, 1);
    if (!f->vname || !f->vfile || !f->vweak)
        return -1;
    each_version(f, version_note, NULL);
    return 0;
}

/* Opens `path` as an ELF file and finds its dynamic sections.  0: an ELF
 * executable or shared object (a static one has no f->dyn); 1: not one,
 * `why` says what it is; -1: out of memory. */
static int elf_open(const char *path, elf_file *f, char *why, size_t wcap)
{
    struct stat st;
    unsigned char magic[4] = {0};
    Elf_Scn *scn = NULL;
    memset(f, 0, sizeof *f);
    f->fd = -1;
    /* O_NONBLOCK: a FIFO must not wait for a writer */
    if ((f->fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0 || fstat(f->fd, &st) != 0) {
        snprintf(why, wcap, "cannot read it: %s", strerror(errno));
        elf_close(f);
        return 1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, wcap, "it is %s", up_mode_text(st.st_mode));
        elf_close(f);
        return 1;
    }
    if (pread(f->fd, magic, sizeof magic, 0) != (ssize_t)sizeof magic || memcmp(magic, ELFMAG, SELFMAG) != 0) {
        snprintf(why, wcap, "%s", magic[0] == '#' && magic[1] == '!' ? "it is a script" : "it is not an ELF file");
        elf_close(f);
        return 1;
    }
    elf_version(EV_CURRENT);
    if (!(f->e = elf_begin(f->fd, ELF_C_READ_MMAP, NULL)) || elf_kind(f->e) != ELF_K_ELF ||
        !gelf_getehdr(f->e, &f->eh)) {
        snprintf(why, wcap, "cannot read it as ELF: %s", elf_errmsg(-1));
        elf_close(f);
        return 1;
    }
    if (f->eh.e_type != ET_EXEC && f->eh.e_type != ET_DYN) {
        snprintf(why, wcap, "it is an ELF file, but no program");
        elf_close(f);
        return 1;
    }
    while ((scn = elf_nextscn(f->e, scn)) != NULL) {
        GElf_Shdr sh;
        Elf_Data *d;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
            continue;
        switch (sh.sh_type) {
        case SHT_DYNAMIC:
        case SHT_DYNSYM:
        case SHT_GNU_versym:
        case SHT_GNU_verneed:
        case SHT_GNU_verdef:
            break;
        default:
            continue;
        }
        if (!(d = elf_getdata(scn, NULL)))
            continue;
        switch (sh.sh_type) {
        case SHT_DYNAMIC:
            f->dyn = d, f->dynstr = sh.sh_link, f->ndyn = count_of(f->e, d, ELF_T_DYN);
            break;
        case SHT_DYNSYM:
            f->sym = d, f->symstr = sh.sh_link, f->nsym = count_of(f->e, d, ELF_T_SYM);
            break;
        case SHT_GNU_versym:
            f->versym = d, f->nversym = count_of(f->e, d, ELF_T_HALF);
            break;
        case SHT_GNU_verneed:
            f->verneed = d, f->needstr = sh.sh_link, f->nneed = sh.sh_info;
            break;
        default:
            f->verdef = d, f->defstr = sh.sh_link, f->ndef = sh.sh_info;
            break;
        }
    }
    if (read_versions(f) != 0) {
        elf_close(f);
        return -1;
    }
    return 0;
}

/* Symbol i's version index (bit 15: hidden); 1 (global) without versions. */
static unsigned version_of(const elf_file *f, size_t i)
{
    GElf_Versym v;
    if (!f->versym || i >= f->nversym || !gelf_getversym(f->versym, (int)i, &v))
        return 1;
    return v;
}

/* ---- libomp's definitions ---------------------------------------------------- */

typedef struct def {
    const char *name;
    const char *ver; /* "" for an index with no version defined behind it */
    bool hidden;
} def;

typedef struct defs {
    def *d;
    size_t n;
    bool versioned; /* the library has version definitions */
} defs;

static int def_cmp(const void *a, const void *b)
{
    const def *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->ver, y->ver);
}

/* The symbols `f` exports.  -1: out of memory. */
static int defs_read(const elf_file *f, defs *s)
{
    size_t i;
    memset(s, 0, sizeof *s);
    s->versioned = f->verdef != NULL && f->versym != NULL;
    if (!f->nsym)
        return 0;
    if (!(s->d = up_calloc(f->nsym, sizeof *s->d)))
        return -1;
    for (i = 1; i < f->nsym; i++) {
        GElf_Sym sym;
        unsigned v, k;
        int bind;
        if (!gelf_getsym(f->sym, (int)i, &sym) || sym.st_shndx == SHN_UNDEF || !sym.st_name)
            continue;
        bind = GELF_ST_BIND(sym.st_info);
        if (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE)
            continue;
        v = version_of(f, i);
        if ((k = v & MAX_VERSION) == 0) /* VER_NDX_LOCAL */
            continue;
        s->d[s->n].name = str_at(f, f->symstr, sym.st_name);
        s->d[s->n].ver = k < f->nv && f->vname[k] ? f->vname[k] : "";
        s->d[s->n].hidden = (v & 0x8000) != 0;
        s->n++;
    }
    qsort(s->d, s->n, sizeof *s->d, def_cmp);
    return 0;
}

/* Does the library bind a reference to `name` in version `ver` (NULL: a
 * reference without a version)?  (glibc's check_match, above.) */
static bool defs_bind(const defs *s, const char *name, const char *ver)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) { /* the first definition of name */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(s->d[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < s->n && !strcmp(s->d[lo].name, name); lo++) {
        const def *d = &s->d[lo];
        if (!s->versioned || (ver ? !strcmp(d->ver, ver) || (!d->ver[0] && !d->hidden) : !d->hidden))
            return true;
    }
    return false;
}

static bool defs_version(const elf_file *f, const char *ver)
{
    size_t k;
    for (k = 2; k < f->nv; k++)
        if (f->vname[k] && !f->vfile[k] && !strcmp(f->vname[k], ver))
            return true;
    return false;
}

/* ---- finding libomp ---------------------------------------------------------- */

/* Is the library at `path` a libomp for the program `prog` (same machine
 * and class, exports GOMP_parallel)?  Opens it into *lib and reads its
 * definitions into *s.  0: yes; 1: no (why); -1: out of memory. */
static int libomp_try(const char *path, const elf_file *prog, elf_file *lib, defs *s, char *why, size_t wcap)
{
    int r = elf_open(path, lib, why, wcap);
    if (r != 0)
        return r;
    if (lib->eh.e_type != ET_DYN || lib->eh.e_machine != prog->eh.e_machine ||
        lib->eh.e_ident[EI_CLASS] != prog->eh.e_ident[EI_CLASS]) {
        snprintf(why, wcap, "it is no shared library for the program's machine");
        elf_close(lib);
        return 1;
    }
    if (defs_read(lib, s) != 0) {
        elf_close(lib);
        return -1;
    }
    if (!defs_bind(s, "GOMP_parallel", s->versioned ? "GOMP_4.0" : NULL)) {
        snprintf(why, wcap, "it does not define GOMP_parallel@GOMP_4.0 (no LLVM libomp?)");
        up_free(s->d);
        memset(s, 0, sizeof *s);
        elf_close(lib);
        return 1;
    }
    return 0;
}

static int ver_cmp_desc(const void *a, const void *b)
{
    return strverscmp(*(char *const *)b, *(char *const *)a);
}

/* Tries dir/libomp.so.5 and dir/libomp.so. */
static int libomp_in(const char *dir, size_t dlen, const elf_file *prog, elf_file *lib, defs *s, char *path,
                     size_t cap)
{
    static const char *const names[] = {"libomp.so.5", "libomp.so"};
    char why[256];
    size_t i;
    for (i = 0; i < 2; i++) {
        int r;
        if ((size_t)snprintf(path, cap, "%.*s/%s", (int)dlen, dir, names[i]) >= cap || access(path, R_OK) != 0)
            continue;
        if ((r = libomp_try(path, prog, lib, s, why, sizeof why)) <= 0)
            return r;
    }
    return 1;
}

/* The libomp for `prog` (omp_runtime.h, UP_OMP_LIBOMP_ENV): 0 found, open
 * in *lib, its path in `path`; 1 none (why); -1 out of memory. */
static int libomp_find(const elf_file *prog, elf_file *lib, defs *s, char *path, size_t cap, char *why,
                       size_t wcap)
{
    static const char *const fixed[] = {"/usr/local/lib", "/usr/lib64", "/usr/lib"};
    const char *env = getenv(UP_OMP_LIBOMP_ENV), *llp = getenv("LD_LIBRARY_PATH"), *p;
    Dl_info info;
    glob_t g;
    size_t i;
    int r;

    if (env && *env) {
        char w[256];
        snprintf(path, cap, "%s", env);
        if ((r = libomp_try(path, prog, lib, s, w, sizeof w)) > 0)
            snprintf(why, wcap, "%s='%s' is no libomp: %s", UP_OMP_LIBOMP_ENV, up_esc(env), w);
        return r;
    }
    for (p = llp; p && *p; p += strcspn(p, ":"), p += *p == ':') {
        size_t n = strcspn(p, ":");
        if (n && (r = libomp_in(p, n, prog, lib, s, path, cap)) <= 0)
            return r;
    }
    /* libc's folder: where the distribution keeps its libraries
     * (/usr/lib/x86_64-linux-gnu); gnu_get_libc_version is in libc itself,
     * and no sanitizer intercepts it */
    if (dladdr((void *)(uintptr_t)&gnu_get_libc_version, &info) && info.dli_fname && strrchr(info.dli_fname, '/') &&
        (r = libomp_in(info.dli_fname, (size_t)(strrchr(info.dli_fname, '/') - info.dli_fname), prog, lib, s,
                       path, cap)) <= 0)
        return r;
    for (i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if ((r = libomp_in(fixed[i], strlen(fixed[i]), prog, lib, s, path, cap)) <= 0)
            return r;
    /* LLVM's own folders, the newest first */
    r = 1;
    if (glob("/usr/lib/llvm-*/lib", GLOB_ONLYDIR, NULL, &g) == 0) {
        qsort(g.gl_pathv, g.gl_pathc, sizeof *g.gl_pathv, ver_cmp_desc);
        for (i = 0; i < g.gl_pathc && r > 0; i++)
            r = libomp_in(g.gl_pathv[i], strlen(g.gl_pathv[i]), prog, lib, s, path, cap);
    }
    globfree(&g);
    if (r > 0) {
        path[0] = '\0';
        snprintf(why, wcap, "no LLVM libomp was found (install libomp5, or set %s to one)", UP_OMP_LIBOMP_ENV);
    }
    return r;
}

/* ---- the program ------------------------------------------------------------- */

/* prog, or the file a bare name runs from PATH (execvp's search). */
static bool find_program(const char *prog, char *out, size_t cap)
{
    const char *path = getenv("PATH"), *p;
    if (strchr(prog, '/'))
        return (size_t)snprintf(out, cap, "%s", prog) < cap;
    if (!path)
        path = "/bin:/usr/bin";
    for (p = path;; p += strcspn(p, ":") + 1) {
        size_t n = strcspn(p, ":");
        struct stat st;
        if ((size_t)snprintf(out, cap, "%.*s%s%s", (int)n, n ? p : "", n ? "/" : "", prog) < cap &&
            stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
            return true;
        if (!p[n])
            break;
    }
    snprintf(out, cap, "%s", prog);
    return false;
}

static bool needs_gomp(const char *lib)
{
    return !strcmp(lib, GOMP_SONAME) || !strcmp(lib, "libgomp.so");
}

static bool needs_libomp(const char *lib)
{
    return !strncmp(lib, "libomp.so", 9) || !strncmp(lib, "libomp5.so", 10) || !strncmp(lib, "libiomp5.so", 11);
}

static bool omp_name(const char *s)
{
    return !strncmp(s, "GOMP_", 5) || !strncmp(s, "GOACC_", 6) || !strncmp(s, "omp_", 4) || !strncmp(s, "acc_", 4);
}

/* A folder of the program's DT_RPATH (searched before LD_LIBRARY_PATH,
 * and only when it has no DT_RUNPATH) that holds a libgomp.so.1: where the
 * loader will find libgomp whatever LD_LIBRARY_PATH says.  $ORIGIN is the
 * program's folder; other tokens are not expanded. */
static bool rpath_gomp(const elf_file *f, const char *prog, char *dir, size_t cap)
{
    const char *rpath = NULL;
    char origin[PATH_MAX], *slash;
    size_t i;
    for (i = 0; i < f->ndyn; i++) {
        GElf_Dyn d;
        if (!gelf_getdyn(f->dyn, (int)i, &d) || d.d_tag == DT_NULL)
            break;
        if (d.d_tag == DT_RUNPATH)
            return false;
        if (d.d_tag == DT_RPATH)
            rpath = str_at(f, f->dynstr, d.d_un.d_val);
    }
    if (!rpath || !*rpath)
        return false;
    if (!realpath(prog, origin))
        snprintf(origin, sizeof origin, "%s", prog);
    if ((slash = strrchr(origin, '/')) != NULL)
        *slash = '\0';
    for (const char *p = rpath;; p += strcspn(p, ":") + 1) {
        size_t n = strcspn(p, ":");
        char path[PATH_MAX];
        int len;
        if (!strncmp(p, "$ORIGIN", 7) || !strncmp(p, "${ORIGIN}", 9)) {
            size_t t = p[1] == '{' ? 9 : 7;
            len = snprintf(dir, cap, "%s%.*s", origin, (int)(n - t), p + t);
        } else {
            len = snprintf(dir, cap, "%.*s", (int)n, p);
        }
        if (n && len > 0 && (size_t)len < cap &&
            (size_t)snprintf(path, sizeof path, "%s/%s", dir, GOMP_SONAME) < sizeof path && access(path, F_OK) == 0)
            return true;
        if (!p[n])
            break;
    }
    return false;
}

/* Appends ", item" (or "item" first) to the list `l` of at most
 * UP_OMP_SHOW items. */
static void list_add(char *l, size_t cap, size_t *shown, const char *a, const char *sep, const char *b)
{
    size_t len = strlen(l);
    if (*shown >= UP_OMP_SHOW || len >= cap)
        return;
    snprintf(l + len, cap - len, "%s%s%s%s", len ? ", " : "", up_esc(a), sep, up_esc(b));
    (*shown)++;
}

/* The libgomp program's check against libomp: counts in p, the first few
 * missing in `list`.  Every symbol it takes from libgomp.so.1 (a version
 * that names that library), or unversioned with an OpenMP name; then every
 * version node it needs that no missing symbol named already. */
static void check_symbols(const elf_file *f, const elf_file *lib, const defs *s, up_omp_plan *p,
                          unsigned char *vmiss, char *list, size_t cap)
{
    size_t i, shown = 0;
    for (i = 1; i < f->nsym; i++) {
        GElf_Sym sym;
        const char *name, *ver = NULL;
        unsigned k;
        if (!gelf_getsym(f->sym, (int)i, &sym) || sym.st_shndx != SHN_UNDEF || !sym.st_name ||
            GELF_ST_BIND(sym.st_info) != STB_GLOBAL) /* weak: may stay undefined */
            continue;
        name = str_at(f, f->symstr, sym.st_name);
        k = version_of(f, i) & MAX_VERSION;
        if (k >= 2 && k < f->nv && f->vfile[k]) {
            if (!needs_gomp(f->vfile[k]))
                continue;
            ver = f->vname[k];
        } else if (!omp_name(name)) {
            continue;
        }
        p->needed++;
        if (defs_bind(s, name, ver))
            continue;
        p->missing++;
        if (ver)
            vmiss[k] = 1;
        list_add(list, cap, &shown, name, ver ? "@" : "", ver ? ver : "");
    }
    if (!s->versioned) /* glibc only warns: "no version information available" */
        return;
    for (i = 2; i < f->nv; i++)
        if (f->vfile[i] && needs_gomp(f->vfile[i]) && !f->vweak[i] && !vmiss[i] && !defs_version(lib, f->vname[i])) {
            p->missing++;
            list_add(list, cap, &shown, "version ", "", f->vname[i]);
        }
}

const char *up_omp_kind_name(up_omp_kind k)
{
    switch (k) {
    case UP_OMP_NONE: return "none";
    case UP_OMP_LIBOMP: return "libomp";
    case UP_OMP_LIBGOMP: return "libgomp";
    default: return "not checked";
    }
}

/* A libgomp program: libomp found and checked, route and message. */
static up_status plan_gomp(const elf_file *f, up_omp_plan *p, up_err *err)
{
    elf_file lib;
    defs s = {0};
    char why[512], list[512] = "", dir[PATH_MAX], name[256];
    unsigned char *vmiss;
    int r;

    up_text_escape(name, sizeof name, p->prog, 200); /* list_add's up_esc would reuse its buffer */

    r = libomp_find(f, &lib, &s, p->libomp, sizeof p->libomp, why, sizeof why);
    if (r < 0)
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    if (r > 0) {
        p->libomp[0] = '\0';
        p->lost = true;
        snprintf(p->msg, sizeof p->msg, "'%s' runs on GCC's libgomp, which has no OMPT, and %s: it can be "
                 "traced without its OpenMP events (only its threads)", name, why);
        return UP_OK;
    }
    if (!(vmiss = up_calloc(f->nv, 1))) {
        up_free(s.d);
        elf_close(&lib);
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    }
    check_symbols(f, &lib, &s, p, vmiss, list, sizeof list);
    up_free(vmiss);
    up_free(s.d);
    elf_close(&lib);
    if (p->missing) {
        char more[64] = "";
        p->lost = true;
        if (p->missing > UP_OMP_SHOW)
            snprintf(more, sizeof more, " and %zu more", p->missing - UP_OMP_SHOW);
        snprintf(p->msg, sizeof p->msg, "'%s' needs %zu symbol%s of libgomp that LLVM's libomp (%s) lacks: %s%s; "
                 "rebuild it with clang -fopenmp to record its OpenMP events, or trace it without them (only "
                 "its threads)", name, p->missing, p->missing == 1 ? "" : "s", up_esc(p->libomp), list, more);
        return UP_OK;
    }
    if (rpath_gomp(f, p->prog, dir, sizeof dir)) {
        p->route = UP_OMP_PRELOAD;
        snprintf(p->msg, sizeof p->msg, "'%s' runs on GCC's libgomp (no OMPT): LLVM's libomp (%s) defines the %zu "
                 "symbols it takes from it and is preloaded (its RPATH finds %s in '%s')", name,
                 up_esc(p->libomp), p->needed, GOMP_SONAME, up_esc(dir));
        return UP_OK;
    }
    p->route = UP_OMP_LINK;
    snprintf(p->msg, sizeof p->msg, "'%s' runs on GCC's libgomp (no OMPT): LLVM's libomp (%s) defines the %zu "
             "symbols it takes from it and stands in as %s", name, up_esc(p->libomp), p->needed, GOMP_SONAME);
    return UP_OK;
}

up_status up_omp_plan_for(const char *prog, up_omp_plan *p, up_err *err)
{
    elf_file f;
    char why[256];
    const char *name, *omp = NULL;
    bool gomp = false;
    size_t i;
    int r;
    up_status st = UP_OK;

    memset(p, 0, sizeof *p);
    p->kind = UP_OMP_UNCHECKED;
    p->route = UP_OMP_AS_IS;
    if (!find_program(prog, p->prog, sizeof p->prog)) {
        snprintf(p->msg, sizeof p->msg, "'%s' is not in PATH: not checked for OpenMP", up_esc(prog));
        return UP_OK;
    }
    name = up_esc(p->prog);
    if ((r = elf_open(p->prog, &f, why, sizeof why)) < 0)
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    if (r > 0) {
        snprintf(p->msg, sizeof p->msg, "'%s': %s: not checked for OpenMP", name, why);
        return UP_OK;
    }
    if (!f.dyn) {
        snprintf(p->msg, sizeof p->msg, "'%s' is statically linked: not checked for OpenMP (a runtime linked "
                 "into it cannot be replaced)", name);
        elf_close(&f);
        return UP_OK;
    }
    for (i = 0; i < f.ndyn; i++) {
        GElf_Dyn d;
        if (!gelf_getdyn(f.dyn, (int)i, &d) || d.d_tag == DT_NULL)
            break;
        if (d.d_tag == DT_NEEDED) {
            const char *lib = str_at(&f, f.dynstr, d.d_un.d_val);
            gomp |= needs_gomp(lib);
            if (!omp && needs_libomp(lib))
                omp = lib;
        }
    }
    if (gomp) { /* also when it needs libomp too: libgomp's symbols first */
        p->kind = UP_OMP_LIBGOMP;
        st = plan_gomp(&f, p, err);
    } else if (omp) {
        p->kind = UP_OMP_LIBOMP;
        snprintf(p->msg, sizeof p->msg, "'%s' runs on LLVM's OpenMP runtime (%s), which has OMPT", name,
                 up_esc(omp));
    } else {
        p->kind = UP_OMP_NONE;
        snprintf(p->msg, sizeof p->msg, "'%s' needs no OpenMP runtime", name);
    }
    elf_close(&f);
    return st;
}

up_status up_omp_link(const up_omp_plan *p, const char *dir, up_err *err)
{
    char target[PATH_MAX], link[PATH_MAX + 32];
    int e;
    if (!p->libomp[0])
        return UP_ERR(err, UP_EUSAGE, "no libomp to link");
    if (!realpath(p->libomp, target)) {
        e = errno;
        return UP_ERR(err, UP_EIO, "cannot resolve '%s': %s", up_esc(p->libomp), strerror(e));
    }
    if ((size_t)snprintf(link, sizeof link, "%s/%s", dir, GOMP_SONAME) >= sizeof link)
        return UP_ERR(err, UP_EIO, "the folder '%s' has too long a path", up_esc(dir));
    if (symlink(target, link) != 0) {
        e = errno;
        return UP_ERR(err, UP_EIO, "cannot create the link '%s': %s", up_esc(link), strerror(e));
    }
    return UP_OK;
}

const char *up_omp_env(const up_omp_plan *p, const char *dir, char *out, size_t cap)
{
    const char *name, *first, *old;
    int n;
    if (p->route == UP_OMP_LINK)
        name = "LD_LIBRARY_PATH", first = dir;
    else if (p->route == UP_OMP_PRELOAD)
        name = "LD_PRELOAD", first = p->libomp;
    else
        return NULL;
    old = getenv(name);
    n = snprintf(out, cap, "%s=%s%s%s", name, first, old && *old ? ":" : "", old ? old : "");
    return n > 0 && (size_t)n < cap ? out + strlen(name) + 1 : NULL;
}

const char *up_omp_runs(const up_omp_plan *p)
{
    return p->route == UP_OMP_AS_IS ? up_omp_kind_name(p->kind) : "libomp";
}
