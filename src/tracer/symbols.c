/*
 * symbols.c - name a code address of this process through elfutils' libdwfl.
 * Place in the data flow: measurement (see symbols.h; used by funcs.c).
 *
 * Everything here is no_instrument_function: a program built with
 * -finstrument-functions must never see its tracer's own calls.
 */
#include "symbols.h"

#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINST __attribute__((no_instrument_function))

/* Each miss rereads /proc/self/maps (a dlopen may have added the module).
 * Misses are cached per address by the caller, but an application that keeps
 * handing us addresses outside any file would make every one a scan of the
 * maps; past this many we stop looking. */
#define MAX_REFRESH 256

static Dwfl *dwfl;
static int sym_state; /* 0: not set up, 1: ready, -1: failed, do not retry */
static int refreshes;
static char fallback[256]; /* "file+0xOFFSET" for a symbol-less address */

/* Does the ELF file open on `fd` carry the build ID of `mod`?  A separate
 * debug file that does not is stale, and would name the wrong functions. */
static NOINST int same_build_id(Dwfl_Module *mod, int fd)
{
    const unsigned char *want;
    GElf_Addr vaddr;
    int n = dwfl_module_build_id(mod, &want, &vaddr);
    if (n <= 0)
        return 0;
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (!elf)
        return 0;
    const void *got;
    ssize_t m = dwelf_elf_gnu_build_id(elf, &got);
    int same = m == (ssize_t)n && memcmp(want, got, (size_t)n) == 0;
    elf_end(elf);
    return same;
}

/* Open `path` as the separate debug file of `mod` if it is one. */
static NOINST int try_debug_file(Dwfl_Module *mod, const char *path, char **name)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (!same_build_id(mod, fd) || !(*name = strdup(path))) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The find_debuginfo callback: dwfl_standard_find_debuginfo minus the
 * network.  When its local search fails, a libdw built with debuginfod
 * support (Debian's is) dlopens libdebuginfod, which pulls in libcurl and,
 * with DEBUGINFOD_URLS set (Debian's libdebuginfod-common can set it for
 * every login shell), downloads debug files from inside a traced MPI rank,
 * in the middle of its run.  So: the build-ID tree under
 * /usr/lib/debug (what -dbgsym packages install), then the .gnu_debuglink
 * name next to the file, in its .debug/ directory and under /usr/lib/debug,
 * accepting a candidate only if its build ID matches. */
static NOINST int find_debuginfo_local(Dwfl_Module *mod, void **userdata, const char *modname,
                                       Dwarf_Addr base, const char *file_name,
                                       const char *debuglink_file, GElf_Word debuglink_crc,
                                       char **debuginfo_file_name)
{
    int fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
                                          debuglink_file, debuglink_crc, debuginfo_file_name);
    if (fd >= 0)
        return fd;
    errno = 0; /* "not found", not an error that would stick to the module */
    if (!file_name || file_name[0] != '/' || !debuglink_file || !debuglink_file[0] ||
        debuglink_file[0] == '/' || strchr(debuglink_file, '/'))
        return -1;
    const char *slash = strrchr(file_name, '/');
    int dirlen = (int)(slash - file_name);
    static const char *const forms[] = {"%.*s/%s", "%.*s/.debug/%s", "/usr/lib/debug%.*s/%s"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        char path[PATH_MAX];
        int n = snprintf(path, sizeof path, forms[i], dirlen, file_name, debuglink_file);
        if (n <= 0 || (size_t)n >= sizeof path || strcmp(path, file_name) == 0)
            continue;
        fd = try_debug_file(mod, path, debuginfo_file_name);
        if (fd >= 0)
            return fd;
    }
    errno = 0;
    return -1;
}

/* ---- source lines without .debug_aranges ----------------------------------
 * libdwfl (0.188) finds the compilation unit of an address through
 * .debug_aranges only, which clang (and compilers built on it) do not emit
 * by default: dwfl_module_getsrc() then fails although the line table is
 * there.  For such a module we collect the address ranges of its units
 * once, sorted, in the module's user-data slot, and search them. */

struct cu_range {
    Dwarf_Addr lo, hi; /* [lo, hi), in the DWARF's addresses */
    Dwarf_Off die;     /* the unit's DIE */
};
struct cu_ranges {
    size_t n;
    struct cu_range r[];
};

/* user data of a module whose units gave no ranges: do not try again */
static struct cu_ranges no_ranges;

static NOINST int cmp_range(const void *a, const void *b)
{
    const struct cu_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static NOINST struct cu_ranges *collect_ranges(Dwarf *dw)
{
    struct cu_ranges *t = NULL;
    size_t cap = 0, n = 0;
    Dwarf_CU *cu = NULL, *next;
    Dwarf_Half version;
    uint8_t type;
    Dwarf_Die cudie;
    while (dwarf_get_units(dw, cu, &next, &version, &type, &cudie, NULL) == 0) {
        cu = next;
        Dwarf_Addr base, lo, hi;
        for (ptrdiff_t it = 0; (it = dwarf_ranges(&cudie, it, &base, &lo, &hi)) > 0;) {
            if (lo >= hi)
                continue;
            if (n == cap) {
                size_t ncap = cap ? cap * 2 : 64;
                struct cu_ranges *nt = realloc(t, sizeof *t + ncap * sizeof t->r[0]);
                if (!nt) {
                    free(t);
                    return NULL;
                }
                t = nt;
                cap = ncap;
            }
            t->r[n].lo = lo;
            t->r[n].hi = hi;
            t->r[n].die = dwarf_dieoffset(&cudie);
            n++;
        }
    }
    if (!t)
        return NULL;
    t->n = n;
    qsort(t->r, n, sizeof t->r[0], cmp_range);
    return t;
}

static NOINST void free_ranges(void *userdata)
{
    if (userdata && userdata != &no_ranges)
        free(userdata);
}

static NOINST int removed_module(Dwfl_Module *mod, void *userdata, const char *name,
                                 Dwarf_Addr base, void *arg)
{
    (void)mod, (void)name, (void)base, (void)arg;
    free_ranges(userdata);
    return DWARF_CB_OK;
}

static NOINST int release_module(Dwfl_Module *mod, void **userdata, const char *name,
                                 Dwarf_Addr base, void *arg)
{
    (void)mod, (void)name, (void)base, (void)arg;
    free_ranges(*userdata);
    *userdata = NULL;
    return DWARF_CB_OK;
}

static NOINST Dwarf_Line *getsrc_by_ranges(Dwfl_Module *mod, Dwarf_Addr a)
{
    Dwarf_Addr bias;
    Dwarf *dw = dwfl_module_getdwarf(mod, &bias);
    void **ud;
    if (!dw || !dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL))
        return NULL;
    if (!*ud) {
        struct cu_ranges *t = collect_ranges(dw);
        *ud = t ? t : &no_ranges;
    }
    const struct cu_ranges *t = *ud;
    Dwarf_Addr pc = a - bias;
    size_t lo = 0, hi = t->n; /* the last range starting at or before pc */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->r[mid].lo <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || pc >= t->r[lo - 1].hi)
        return NULL;
    Dwarf_Die cudie;
    if (!dwarf_offdie(dw, t->r[lo - 1].die, &cudie))
        return NULL;
    return dwarf_getsrc_die(&cudie, pc);
}

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = find_debuginfo_local,
};

/* (Re)read /proc/self/maps.  Modules reported again unchanged keep what
 * libdwfl already loaded for them; unmapped ones (dlclose) are dropped. */
static NOINST int report_modules(void)
{
    dwfl_report_begin(dwfl);
    int rc = dwfl_linux_proc_report(dwfl, getpid());
    if (dwfl_report_end(dwfl, removed_module, NULL) != 0)
        return -1;
    return rc == 0 ? 0 : -1;
}

NOINST int upt_sym_init(void)
{
    if (sym_state != 0)
        return sym_state > 0 ? 0 : -1;
    sym_state = -1;
    if (elf_version(EV_CURRENT) == EV_NONE)
        return -1;
    dwfl = dwfl_begin(&callbacks);
    if (!dwfl)
        return -1;
    /* A failed or partial report (a file that vanished, EMFILE) is not
     * fatal: what was found is usable, and a miss reports again. */
    report_modules();
    sym_state = 1;
    return 0;
}

NOINST void upt_sym_fini(void)
{
    if (dwfl) {
        dwfl_getmodules(dwfl, release_module, NULL, 0);
        dwfl_end(dwfl);
    }
    dwfl = NULL;
    sym_state = 0;
    refreshes = 0;
}

/* "libfoo.so+0x1234": where the address is, for a module without a symbol
 * covering it (a stripped file with no debug file).  Only for code: a
 * module's address range spans gaps, and a process that maps one of its
 * libraries again elsewhere (valgrind does, to read its debug information)
 * stretches it over unrelated memory such as the heap. */
static NOINST const char *module_offset_name(Dwfl_Module *mod, Dwarf_Addr a)
{
    Dwarf_Addr off = a, bias;
    GElf_Shdr shdr;
    Elf_Scn *scn = dwfl_module_address_section(mod, &off, &bias);
    if (!scn || !gelf_getshdr(scn, &shdr) || !(shdr.sh_flags & SHF_EXECINSTR))
        return NULL;
    Dwarf_Addr start = 0;
    const char *name = dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
    if (!name)
        return NULL;
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    snprintf(fallback, sizeof fallback, "%s+0x%" PRIx64, base, (uint64_t)(a - start));
    return fallback;
}

NOINST const char *upt_sym_name(const void *addr, const char **file, uint32_t *line)
{
    if (file)
        *file = NULL;
    if (line)
        *line = 0;
    if (!addr || upt_sym_init() != 0)
        return NULL;
    Dwarf_Addr a = (Dwarf_Addr)(uintptr_t)addr;
    Dwfl_Module *mod = dwfl_addrmodule(dwfl, a);
    if (!mod && refreshes < MAX_REFRESH) {
        refreshes++;
        report_modules();
        mod = dwfl_addrmodule(dwfl, a);
    }
    if (!mod)
        return NULL;

    GElf_Off off;
    GElf_Sym sym;
    const char *name = dwfl_module_addrinfo(mod, a, &off, &sym, NULL, NULL, NULL);
    if (!name || !name[0])
        name = module_offset_name(mod, a);
    if (!name)
        return NULL;

    if (file || line) {
        /* The line-table row of a function's first instruction: the line
         * of its declarator, or of its opening brace when that stands on a
         * line of its own.  (DW_AT_decl_line would be exact, but finding the
         * function's DIE walks its whole unit, for every function.)  Costs
         * the module's DWARF, loaded once. */
        Dwfl_Line *l = dwfl_module_getsrc(mod, a);
        int ln = 0;
        const char *src = NULL;
        if (l) {
            src = dwfl_lineinfo(l, NULL, &ln, NULL, NULL, NULL);
        } else {
            Dwarf_Line *dl = getsrc_by_ranges(mod, a);
            if (dl && dwarf_lineno(dl, &ln) == 0)
                src = dwarf_linesrc(dl, NULL, NULL);
        }
        if (src && src[0]) {
            if (file)
                *file = src;
            if (line)
                *line = ln > 0 ? (uint32_t)ln : 0;
        }
    }
    return name;
}
