/*
 * spin_after.c - up-bench-spin-after [NS...]: what a spin of the tracer's
 * --extra-ns costs the program beyond its own length (docs/accuracy.md).
 *
 * One thread, no MPI.  A work unit (64 pseudo-random reads and writes in a
 * 64 KiB array, about 60 ns) runs 2 million times (fewer for long spins:
 * about 2 s of spinning), each followed by a spin of NS ns on the time-stamp
 * counter exactly as the tracer spins (src/tracer/tracer.c, extra_spin).  The
 * spins' own ticks, first to last read, are summed; the rest of the elapsed
 * time is the work.  Prints, per NS, the median of 7 trials of the work's ns
 * per unit: with NS = 0 that is the unit alone, and the difference is what
 * each spin costs beyond its measured length.  Run it on a core of its own
 * (taskset -c 1).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>

#define TRIALS 7

static unsigned char arr[64 * 1024];
static uint64_t sink;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void unit(unsigned k)
{
    unsigned idx = k * 2654435761u;
    int i;
    for (i = 0; i < 64; i++) {
        idx = idx * 1103515245u + 12345u;
        sink += arr[(idx >> 8) & (sizeof arr - 1)];
        arr[(idx >> 12) & (sizeof arr - 1)] ^= (unsigned char)i;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* TSC ticks per second, against CLOCK_MONOTONIC over 0.2 s */
static double tsc_rate(void)
{
    uint64_t t0 = __rdtsc();
    double s0 = now_s(), s;
    while ((s = now_s()) - s0 < 0.2)
        ;
    return (double)(__rdtsc() - t0) / (s - s0);
}

int main(int argc, char **argv)
{
    static const char *const dflt[] = {"0", "284", "883", "3000", "30000", "100000"};
    const char *const *ns_args = argc > 1 ? (const char *const *)argv + 1 : dflt;
    int nns = argc > 1 ? argc - 1 : (int)(sizeof dflt / sizeof dflt[0]), a;
    double rate = tsc_rate();
    printf("%10s %10s %14s %14s\n", "spin_ns", "units", "work_ns/unit", "spin_ns/spin");
    for (a = 0; a < nns; a++) {
        char *end;
        unsigned long long ns = strtoull(ns_args[a], &end, 10);
        uint64_t ticks = (uint64_t)((double)ns * rate / 1e9 + 0.5);
        long n = ns > 1000 ? (long)(2e9 / (double)ns) : 2000000, k;
        double work[TRIALS], spin[TRIALS];
        int t;
        if (*end || end == ns_args[a]) {
            fprintf(stderr, "up-bench-spin-after: '%s' is not a number of ns\n", ns_args[a]);
            return 2;
        }
        for (t = 0; t < TRIALS; t++) {
            uint64_t spun = 0;
            double t0 = now_s(), el;
            for (k = 0; k < n; k++) {
                unit((unsigned)k);
                if (ticks) {
                    uint64_t s = __rdtsc(), e;
                    while ((e = __rdtsc()) - s < ticks)
                        ;
                    spun += e - s;
                }
            }
            el = now_s() - t0;
            work[t] = (el - (double)spun / rate) / (double)n * 1e9;
            spin[t] = (double)spun / rate / (double)n * 1e9;
        }
        qsort(work, TRIALS, sizeof work[0], cmp_double);
        qsort(spin, TRIALS, sizeof spin[0], cmp_double);
        printf("%10llu %10ld %14.1f %14.1f\n", ns, n, work[TRIALS / 2], spin[TRIALS / 2]);
    }
    return sink == UINT64_MAX; /* a use of the work, so that it is kept */
}
#else
int main(void)
{
    fprintf(stderr, "up-bench-spin-after: needs the x86 time-stamp counter\n");
    return 2;
}
#endif
