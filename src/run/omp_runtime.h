/*
 * omp_runtime.h - how `unperturb trace` arranges the OpenMP runtime of the
 * program it runs (issue 36, item 2; docs/tracer-openmp.md).
 *
 * The tracer records OpenMP through OMPT, the OpenMP tools interface.
 * LLVM's libomp has it; GCC's libgomp (Debian 12's gcc 12) has not.  libomp
 * exports the GOMP_* entry points gcc's code calls, so a program built with
 * gcc -fopenmp runs on libomp when libomp is what the loader finds as
 * libgomp.so.1, and then delivers the OMPT callbacks.  This file reads the
 * program's ELF dynamic section (DT_NEEDED, its undefined dynamic symbols
 * and their version requirements, .gnu.version_r) and libomp's own dynamic
 * symbol table and version definitions, at run time, and decides:
 *
 *   - which runtime the program needs: libgomp.so.1, libomp (or Intel's
 *     libiomp5, which has OMPT too), or none;
 *   - for a libgomp program: whether libomp defines every symbol, with its
 *     version, that the program takes from libgomp, exactly as the dynamic
 *     loader binds them (a reference GOMP_x@GOMP_5.1 needs a definition of
 *     GOMP_x in the version GOMP_5.1, and the version node itself); if not,
 *     one line that names the first few missing and what the user can do;
 *   - how to put libomp in libgomp's place: a folder holding a link
 *     libgomp.so.1 -> libomp first on LD_LIBRARY_PATH (up_omp_link), the
 *     route measured to leave one runtime in the process; or LD_PRELOAD of
 *     libomp when the program's DT_RPATH (searched before LD_LIBRARY_PATH)
 *     would find its own libgomp.so.1 first.
 *
 * Only the file given is read, not the libraries it loads: a program whose
 * OpenMP comes through one of its libraries (an OpenMP BLAS) is "none".
 *
 * Place in the data flow: src/run, beside launch.c (which sets the
 * environment the plan says, before the program starts).  Reads files only:
 * no printing, no environment changed.  Links libelf.
 */
#ifndef UNPERTURB_OMP_RUNTIME_H
#define UNPERTURB_OMP_RUNTIME_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/util.h"

typedef enum up_omp_kind {
    UP_OMP_UNCHECKED, /* not an ELF program (a script?), or unreadable: msg says which */
    UP_OMP_NONE,      /* needs no OpenMP runtime */
    UP_OMP_LIBOMP,    /* LLVM's libomp (or Intel's libiomp5) already: OMPT as it is */
    UP_OMP_LIBGOMP    /* GCC's libgomp.so.1: no OMPT unless libomp stands in */
} up_omp_kind;

typedef enum up_omp_route {
    UP_OMP_AS_IS,   /* nothing to arrange: no OpenMP, libomp already, not
                     * checked, or libomp cannot stand in (msg says why) */
    UP_OMP_LINK,    /* up_omp_link(plan, DIR), then LD_LIBRARY_PATH=DIR[:old] */
    UP_OMP_PRELOAD  /* LD_PRELOAD=plan->libomp[:old]: the program's DT_RPATH
                     * holds a libgomp.so.1 that LD_LIBRARY_PATH cannot shadow */
} up_omp_route;

/* missing symbols named in the message; the rest counted */
#define UP_OMP_SHOW 4

typedef struct up_omp_plan {
    up_omp_kind kind;
    up_omp_route route;
    char prog[PATH_MAX];   /* the file read (a bare name found in PATH) */
    char libomp[PATH_MAX]; /* libgomp programs: the libomp checked against ("": none found) */
    size_t needed;         /* libgomp programs: symbols taken from libgomp */
    size_t missing;        /* ... of them libomp does not define (with their version) */
    bool lost;             /* the program uses OpenMP and its events will not be
                            * recorded (libomp missing or lacking symbols) */
    char msg[1024];        /* one line: what was found and done, or why not */
} up_omp_plan;

/* The environment variable naming the libomp to use (its path); without it
 * libomp.so.5 (then libomp.so) is looked for in LD_LIBRARY_PATH's folders,
 * libc's folder, /usr/local/lib, /usr/lib64, /usr/lib and
 * /usr/lib/llvm-N/lib (the highest N first), and taken if it is an ELF
 * shared object of the program's machine and class that exports
 * GOMP_parallel. */
#define UP_OMP_LIBOMP_ENV "UNPERTURB_LIBOMP"

/* The plan for the program `prog` (a path, or a name without '/' looked up
 * in PATH as execvp does).  Everything that is not a failure of ours is a
 * decision with its message: a script or a missing file is UP_OMP_UNCHECKED,
 * a program libomp cannot run sets `lost`.  Fails only with UP_ENOMEM. */
up_status up_omp_plan_for(const char *prog, up_omp_plan *p, up_err *err);

/* For UP_OMP_LINK: the link `dir`/libgomp.so.1 -> the absolute path of
 * p->libomp, in the existing folder dir (the caller's scratch folder,
 * removed with it).  UP_EIO names dir and the reason. */
up_status up_omp_link(const up_omp_plan *p, const char *dir, up_err *err);

const char *up_omp_kind_name(up_omp_kind k); /* "not checked", "none", "libomp", "libgomp" */

/* The plan as an environment entry, for every program started with it
 * (validate's uninstrumented runs too, so that they run the traced runs'
 * runtime): "LD_LIBRARY_PATH=dir[:old]" for UP_OMP_LINK (dir: the folder of
 * up_omp_link), "LD_PRELOAD=libomp[:old]" for UP_OMP_PRELOAD, old being
 * the variable's value in this process (unset or empty: none).  Returns
 * where the value begins in out; NULL for UP_OMP_AS_IS (out untouched) or
 * when out is too small. */
const char *up_omp_env(const up_omp_plan *p, const char *dir, char *out, size_t cap);
/* The runtime the program runs on with the plan applied: "libomp" for the
 * link and preload routes, else up_omp_kind_name(p->kind). */
const char *up_omp_runs(const up_omp_plan *p);

#endif /* UNPERTURB_OMP_RUNTIME_H */
