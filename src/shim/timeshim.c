/*
 * timeshim.c - libunperturb-time.so, the near-free timing shim for
 * UNINSTRUMENTED runs (docs/examples.md).
 *
 * Place in the data flow: measurement of the truth.  `unperturb compensate`
 * approximates the run the tracer did not see; this shim measures that run,
 * over the same window the tracer uses (docs/tracer.md): from the end of
 * MPI_Init (or MPI_Init_thread) to the start of MPI_Finalize, on
 * CLOCK_MONOTONIC like the tracer.  Preload it into an unmodified program:
 *
 *   UNPERTURB_TIME_FILE=t.txt LD_PRELOAD=build/lib/libunperturb-time.so \
 *       mpirun -np 2 ./app
 *
 * Inside the window it does nothing at all: MPI_Init's wrapper reads the
 * clock as its last act, MPI_Finalize's wrapper as its first.  Everything
 * else happens after the window, in MPI_Finalize before PMPI_Finalize: each
 * rank's (init end, finalize start) pair is gathered to rank 0 (PMPI_Gather
 * on MPI_COMM_WORLD), which writes UNPERTURB_TIME_FILE:
 *
 *   # unperturb-time 1
 *   ranks=N
 *   window_s=S.SSSSSSSSS   max finalize start - min init end, in seconds
 *   rank0_s=...            that rank's finalize start - min init end
 *   ...
 *   openmp=PATH            the OpenMP runtime loaded (none: none)
 *
 * through a temporary file in the same directory and rename(), so a reader
 * never sees half a file.  With UNPERTURB_TIME_FILE unset (or empty) the shim
 * gathers and writes nothing.  Every rank must see the same setting: on one
 * node the ranks inherit mpirun's environment; across nodes pass
 * `-x UNPERTURB_TIME_FILE`.  The clocks of different nodes are not
 * comparable, so the numbers are meaningful for single-node runs only.
 *
 * Fortran: Open MPI's Fortran bindings (libmpi_mpifh) call PMPI_ functions
 * directly, so the C wrappers never see a Fortran MPI_INIT.  The mpi_init_,
 * mpi_init_thread_ and mpi_finalize_ entry points are wrapped too, under all
 * four spellings libmpi_mpifh exports (mpi_init_, mpi_init__, mpi_init,
 * MPI_INIT), and call their pmpi_xxx_ twins.
 *
 * Programs without MPI (docs/validate.md, "Programs without MPI"): in the
 * process the tracer would trace alone (UNPERTURB_SOLO_PID is its pid, or
 * UNPERTURB_SOLO=1: the tracer's rule, src/tracer/life.c) the window runs
 * from this library's constructor to its destructor, as the tracer's does,
 * and the file says ranks=1.  Any other process that never calls MPI_Init
 * (mpirun itself, when the preload is set for the whole command) does
 * nothing in either.
 *
 * The file also names the OpenMP runtime the process had loaded when it was
 * written (openmp=PATH, the library's real path; "none"), so validate can
 * show that its uninstrumented runs ran the runtime of its traced ones.
 * Built with -fvisibility=hidden; only the wrappers are exported.
 */
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#define SHIM_EXPORT __attribute__((visibility("default")))

/* CLOCK_MONOTONIC through the vDSO, as the tracer's upt_now() */
static uint64_t shim_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t init_end_ns; /* end of MPI_Init; valid when have_init */
static int have_init;        /* MPI_Init(_thread) returned MPI_SUCCESS */
static int reported;         /* the report ran (once per process) */
static uint64_t solo_start_ns; /* without MPI: our constructor's time, when solo */
static int solo;             /* timed alone (its MPI_Init, if any, is a singleton's) */

static void shim_init_end(uint64_t t)
{
    init_end_ns = t;
    have_init = 1;
}

/* "S.SSSSSSSSS" for a signed number of nanoseconds */
static void shim_put_seconds(FILE *f, const char *key, int64_t ns)
{
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    fprintf(f, "%s=%s%llu.%09llu\n", key, ns < 0 ? "-" : "", (unsigned long long)(a / 1000000000u),
            (unsigned long long)(a % 1000000000u));
}

/* dl_iterate_phdr: the real path of a loaded OpenMP runtime (GCC's libgomp,
 * LLVM's libomp, Intel's libiomp5) into data; 1 stops at the first */
static int shim_find_openmp(struct dl_phdr_info *info, size_t size, void *data)
{
    static const char *const names[] = {"libgomp.so", "libomp.so", "libiomp5.so"};
    const char *base = strrchr(info->dlpi_name, '/');
    size_t i;
    (void)size;
    base = base ? base + 1 : info->dlpi_name;
    for (i = 0; i < sizeof names / sizeof *names; i++)
        if (!strncmp(base, names[i], strlen(names[i])))
            return realpath(info->dlpi_name, data) != NULL;
    return 0;
}

/* rank 0: write the file from the gathered pairs (init end, finalize start) */
static void shim_write(const char *path, const uint64_t *pairs, int size)
{
    uint64_t t0 = pairs[0], t1 = pairs[1];
    size_t len = strlen(path);
    char *tmp = malloc(len + 16), omp[PATH_MAX] = "none";
    FILE *f;
    int fd, i, bad;
    for (i = 1; i < size; i++) {
        if (pairs[2 * i] < t0)
            t0 = pairs[2 * i];
        if (pairs[2 * i + 1] > t1)
            t1 = pairs[2 * i + 1];
    }
    if (!tmp) {
        fprintf(stderr, "unperturb-time: out of memory, %s not written\n", path);
        return;
    }
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".tmp.XXXXXX", sizeof ".tmp.XXXXXX");
    fd = mkstemp(tmp);
    if (fd < 0) {
        fprintf(stderr, "unperturb-time: cannot create %s: %s\n", tmp, strerror(errno));
        free(tmp);
        return;
    }
    f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        bad = 1;
    } else {
        fprintf(f, "# unperturb-time 1\nranks=%d\n", size);
        shim_put_seconds(f, "window_s", (int64_t)(t1 - t0));
        for (i = 0; i < size; i++) {
            char key[32];
            snprintf(key, sizeof key, "rank%d_s", i);
            shim_put_seconds(f, key, (int64_t)(pairs[2 * i + 1] - t0));
        }
        dl_iterate_phdr(shim_find_openmp, omp);
        fprintf(f, "openmp=%s\n", omp);
        bad = ferror(f) != 0;
        bad |= fflush(f) != 0;
        bad |= fsync(fileno(f)) != 0;
        bad |= fclose(f) != 0;
    }
    if (bad || rename(tmp, path) != 0) {
        fprintf(stderr, "unperturb-time: cannot write %s: %s\n", path, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
}

/* Called first thing in MPI_Finalize, with its start time; outside the window. */
static void shim_report(uint64_t finalize_start_ns)
{
    const char *path = getenv("UNPERTURB_TIME_FILE");
    uint64_t mine[2];
    uint64_t *pairs = NULL;
    int rank = 0, size = 1;
    if (reported || solo || !have_init || !path || !*path)
        return;
    reported = 1;
    mine[0] = init_end_ns;
    mine[1] = finalize_start_ns;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    const int root = rank == 0;
    if (root) {
        pairs = malloc(2 * sizeof *pairs * (size_t)size);
        if (!pairs) { /* the other ranks are in the gather: do not leave them hanging */
            fprintf(stderr, "unperturb-time: out of memory\n");
            PMPI_Abort(MPI_COMM_WORLD, 1);
            return;
        }
    }
    PMPI_Gather(mine, 2, MPI_UINT64_T, pairs, 2, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (root && pairs) {
        shim_write(path, pairs, size);
        free(pairs);
    }
}

/* ---- without MPI ------------------------------------------------------------------ */

/* the tracer's rule (src/tracer/life.c, solo_wanted): the process named by
 * UNPERTURB_SOLO_PID, not what it starts (a shell, mpirun), or any process
 * with UNPERTURB_SOLO=1 */
static int shim_solo_wanted(void)
{
    const char *pid = getenv("UNPERTURB_SOLO_PID"), *on = getenv("UNPERTURB_SOLO");
    if (pid && *pid)
        return atol(pid) == (long)getpid();
    return on && !strcmp(on, "1");
}

__attribute__((constructor(110))) static void shim_solo_start(void)
{
    if (!shim_solo_wanted())
        return;
    solo = 1;
    solo_start_ns = shim_now_ns(); /* the window opens: our last act here */
}

__attribute__((destructor)) static void shim_solo_end(void)
{
    uint64_t pair[2];
    const char *path;
    if (!solo)
        return;
    pair[1] = shim_now_ns(); /* the window closes: our first act here */
    pair[0] = solo_start_ns;
    path = getenv("UNPERTURB_TIME_FILE");
    if (path && *path)
        shim_write(path, pair, 1);
}

/* ---- C ------------------------------------------------------------------------ */

SHIM_EXPORT int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        shim_init_end(shim_now_ns());
    return rc;
}

SHIM_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        shim_init_end(shim_now_ns());
    return rc;
}

SHIM_EXPORT int MPI_Finalize(void)
{
    shim_report(shim_now_ns());
    return PMPI_Finalize();
}

/* ---- Fortran (use mpi, mpif.h) --------------------------------------------------- */

/* FORTRAN(mpi_init, MPI_INIT, (params)) { body } defines mpi_init_, exports it
 * under the other three spellings and declares pmpi_init_, which libmpi_mpifh
 * defines (we link it). */
#define FORTRAN(lower, UPPER, params)                                          \
    extern void p##lower##_ params;                                            \
    SHIM_EXPORT void lower##_ params;                                          \
    SHIM_EXPORT void lower params __attribute__((alias(#lower "_")));          \
    SHIM_EXPORT void lower##__ params __attribute__((alias(#lower "_")));      \
    SHIM_EXPORT void UPPER params __attribute__((alias(#lower "_")));          \
    SHIM_EXPORT void lower##_ params

FORTRAN(mpi_init, MPI_INIT, (MPI_Fint *ierr))
{
    pmpi_init_(ierr);
    if (*ierr == MPI_SUCCESS)
        shim_init_end(shim_now_ns());
}

FORTRAN(mpi_init_thread, MPI_INIT_THREAD, (MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr))
{
    pmpi_init_thread_(required, provided, ierr);
    if (*ierr == MPI_SUCCESS)
        shim_init_end(shim_now_ns());
}

FORTRAN(mpi_finalize, MPI_FINALIZE, (MPI_Fint *ierr))
{
    shim_report(shim_now_ns());
    pmpi_finalize_(ierr);
}
