/*
 * pth_barrier.c - unequal work, then a pthread barrier, repeated: the
 * threaded twin of barrier.c (Sarukkai and Malony's Fig. 5), for the thread
 * tracer (issue 36; docs/examples.md).
 *
 *   pth_barrier [-t THREADS] [-n ITERATIONS] [-w UNIT]
 *       THREADS     threads, the main thread included (default 2)
 *       ITERATIONS  work + pthread_barrier_wait steps (default 2000)
 *       UNIT        generator steps per work unit (default 20000, ~0.1 ms)
 *
 * In iteration it (0-based) thread t does units(t, it) = 2 + (3t + 5it) mod 7
 * work units, then calls pthread_barrier_wait: every thread waits for the
 * slowest one, and which thread is slowest changes from iteration to
 * iteration.  A work unit is UNIT steps of the "minimal standard" generator
 * x <- 48271 x mod (2^31 - 1), which cannot be skipped: each step needs the
 * previous one.  Thread t starts from x = t + 1 and carries x across
 * iterations.  The main thread is thread 0; it creates threads 1..THREADS-1
 * and joins them.
 *
 * Checks:
 * - after the run, x_t = 48271^(UNIT * U_t) (t + 1) mod (2^31 - 1), U_t its
 *   total units; the program predicts the sum of the x_t by modular
 *   exponentiation, without the work;
 * - after the barrier of iteration it, every thread has finished the work
 *   of iteration it (each thread publishes its progress in an atomic);
 * - exactly one thread per iteration gets PTHREAD_BARRIER_SERIAL_THREAD.
 *
 * Output (stdout), then exit status 0, or 1 if a check failed:
 *   pth_barrier: threads=T iterations=I unit=W units=U checksum=C
 *   counts: threads=T barrier_waits=B
 *   time_s: S
 *   result: ok                      (or: result: FAIL <what>)
 * B = the pthread_barrier_wait calls, summed over threads (= T * I); S = the
 * wall time from before the first pthread_create to after the last
 * pthread_join (CLOCK_MONOTONIC).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MINSTD_A 48271u
#define MINSTD_M 2147483647u

/* one thread's state; aligned so that threads do not share cache lines */
struct worker {
    _Alignas(64) int id;
    pthread_t tid;
    struct team *team;
    uint64_t x;          /* the generator, carried across iterations */
    long units;          /* work units done */
    long barrier_waits;  /* pthread_barrier_wait calls */
    long serial;         /* PTHREAD_BARRIER_SERIAL_THREAD returns */
    long late;           /* threads seen behind after a barrier */
    int error;           /* pthread_barrier_wait failed */
};

struct team {
    int threads;
    long iterations, unit;
    pthread_barrier_t barrier;
    _Atomic long *done; /* done[t]: iterations thread t has finished */
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long units(int t, long it)
{
    return 2 + (3L * t + 5L * it) % 7;
}

/* n steps of the generator from x */
static uint64_t work(uint64_t x, long n)
{
    for (long i = 0; i < n; i++)
        x = x * MINSTD_A % MINSTD_M;
    return x;
}

/* a^e mod MINSTD_M */
static uint64_t power(uint64_t a, uint64_t e)
{
    uint64_t r = 1;
    for (a %= MINSTD_M; e; e >>= 1, a = a * a % MINSTD_M)
        if (e & 1)
            r = r * a % MINSTD_M;
    return r;
}

static void *run(void *arg)
{
    struct worker *w = arg;
    struct team *team = w->team;
    w->x = (uint64_t)w->id + 1;
    for (long it = 0; it < team->iterations; it++) {
        long n = units(w->id, it);
        w->x = work(w->x, n * team->unit);
        w->units += n;
        atomic_store_explicit(&team->done[w->id], it + 1, memory_order_release);
        int rc = pthread_barrier_wait(&team->barrier);
        w->barrier_waits++;
        if (rc == PTHREAD_BARRIER_SERIAL_THREAD)
            w->serial++;
        else if (rc != 0)
            w->error = 1;
        for (int u = 0; u < team->threads; u++)
            if (atomic_load_explicit(&team->done[u], memory_order_acquire) < it + 1)
                w->late++;
    }
    return NULL;
}

/* the value of a numeric option: 1..max, or -1 */
static long num(const char *s, long max)
{
    char *end;
    long x = strtol(s, &end, 10);
    return *s && !*end && x >= 1 && x <= max ? x : -1;
}

static int usage(void)
{
    fprintf(stderr, "usage: pth_barrier [-t THREADS] [-n ITERATIONS] [-w UNIT]\n");
    return 2;
}

int main(int argc, char **argv)
{
    long threads = 2, iterations = 2000, unit = 20000;
    int c;
    while ((c = getopt(argc, argv, "t:n:w:")) != -1) {
        if (c == 't')
            threads = num(optarg, 1024);
        else if (c == 'n')
            iterations = num(optarg, 100000000L);
        else if (c == 'w')
            unit = num(optarg, 100000000L);
        else
            return usage();
        if (threads < 0 || iterations < 0 || unit < 0)
            return usage();
    }
    if (optind != argc)
        return usage();

    struct team team = {.threads = (int)threads, .iterations = iterations, .unit = unit};
    struct worker *w = aligned_alloc(64, sizeof *w * (size_t)threads);
    team.done = calloc((size_t)threads, sizeof *team.done);
    if (!w || !team.done || pthread_barrier_init(&team.barrier, NULL, (unsigned)threads)) {
        fprintf(stderr, "pth_barrier: out of memory\n");
        return 1;
    }
    memset(w, 0, sizeof *w * (size_t)threads);
    for (int t = 0; t < threads; t++) {
        w[t].id = t;
        w[t].team = &team;
        atomic_init(&team.done[t], 0);
    }

    double t0 = now();
    for (int t = 1; t < threads; t++)
        if (pthread_create(&w[t].tid, NULL, run, &w[t])) {
            fprintf(stderr, "pth_barrier: cannot create thread %d\n", t);
            return 1;
        }
    run(&w[0]);
    for (int t = 1; t < threads; t++)
        pthread_join(w[t].tid, NULL);
    double t1 = now();

    uint64_t checksum = 0, expected = 0;
    long total_units = 0, waits = 0, serial = 0, late = 0, errors = 0;
    for (int t = 0; t < threads; t++) {
        long u = 0; /* U_t, from the formula rather than the run */
        for (long it = 0; it < iterations; it++)
            u += units(t, it);
        expected += power(MINSTD_A, (uint64_t)u * (uint64_t)unit) * (uint64_t)(t + 1) % MINSTD_M;
        checksum += w[t].x;
        total_units += w[t].units;
        waits += w[t].barrier_waits;
        serial += w[t].serial;
        late += w[t].late;
        errors += w[t].error;
    }
    pthread_barrier_destroy(&team.barrier);

    printf("pth_barrier: threads=%ld iterations=%ld unit=%ld units=%ld checksum=%llu\n", threads,
           iterations, unit, total_units, (unsigned long long)checksum);
    printf("counts: threads=%ld barrier_waits=%ld\n", threads, waits);
    printf("time_s: %.9f\n", t1 - t0);
    int bad = 1;
    if (checksum != expected)
        printf("result: FAIL checksum=%llu expected=%llu\n", (unsigned long long)checksum,
               (unsigned long long)expected);
    else if (errors)
        printf("result: FAIL pthread_barrier_wait failed in %ld threads\n", errors);
    else if (serial != iterations)
        printf("result: FAIL %ld serial-thread returns, expected %ld\n", serial, iterations);
    else if (late)
        printf("result: FAIL %ld threads seen behind after a barrier\n", late);
    else
        bad = 0;
    if (!bad)
        printf("result: ok\n");
    free(team.done);
    free(w);
    return bad;
}
