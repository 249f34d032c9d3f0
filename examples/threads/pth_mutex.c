/*
 * pth_mutex.c - threads do private work, then update shared state under a
 * pthread mutex, repeatedly: lock contention whose order a tracer can
 * change, for the thread tracer (issue 36; docs/examples.md).
 *
 *   pth_mutex [-t THREADS] [-n ITERATIONS] [-w UNIT] [-c HOLD]
 *       THREADS     threads, the main thread included (default 2)
 *       ITERATIONS  private work + locked update steps per thread
 *                   (default 3000)
 *       UNIT        generator steps per private work unit (default 20000,
 *                   ~0.1 ms)
 *       HOLD        generator steps done while holding the mutex
 *                   (default 8000)
 *
 * In iteration it (0-based) thread t does units(t, it) = 1 + (3t + it) mod 4
 * private work units on its own generator x_t, which starts from t + 1 and
 * is carried across iterations.  A work unit is UNIT steps of the "minimal
 * standard" generator x <- 48271 x mod (2^31 - 1).  Then, with the mutex
 * held, it takes a ticket k from the shared counter (k = count++), does HOLD
 * generator steps from k + 1 and adds the result to the shared sum, and adds
 * x_t to the shared sum of private values.  The main thread is thread 0.
 *
 * Checks (the tickets are 0 .. T*I - 1 whatever the order of the lock
 * acquisitions, so none depends on it):
 * - count = T * I;
 * - the ticket sum = sum_k 48271^HOLD (k + 1) mod (2^31 - 1);
 * - the private sum = sum over t and it of 48271^(UNIT * S(t, it)) (t + 1)
 *   mod (2^31 - 1), S(t, it) = units(t, 0) + ... + units(t, it);
 * both predicted by modular exponentiation, without the work.
 *
 * Output (stdout), then exit status 0, or 1 if a check failed:
 *   pth_mutex: threads=T iterations=I unit=W hold=H count=N checksum=X
 *   counts: threads=T lock_acquisitions=L
 *   time_s: S
 *   result: ok                      (or: result: FAIL <what>)
 * L = pthread_mutex_lock calls, summed over threads (= T * I); X = ticket
 * sum + private sum; S = the wall time from before the first pthread_create
 * to after the last pthread_join (CLOCK_MONOTONIC).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MINSTD_A 48271u
#define MINSTD_M 2147483647u

/* the state the mutex protects, and the run's parameters */
struct shared {
    long iterations, unit, hold;
    pthread_mutex_t lock;
    long count;           /* tickets taken */
    uint64_t ticket_sum;  /* sum of the HOLD-step results */
    uint64_t private_sum; /* sum of the threads' private values */
};

/* one thread's state; aligned so that threads do not share cache lines */
struct worker {
    _Alignas(64) int id;
    pthread_t tid;
    struct shared *s;
    long locks; /* pthread_mutex_lock calls */
    int error;  /* a mutex call failed */
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long units(int t, long it)
{
    return 1 + (3L * t + it) % 4;
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

/* the locked update: a ticket, HOLD steps from it, the private value */
static void update(struct worker *w, uint64_t x)
{
    struct shared *s = w->s;
    if (pthread_mutex_lock(&s->lock))
        w->error = 1;
    w->locks++;
    long k = s->count++;
    s->ticket_sum += work((uint64_t)k + 1, s->hold);
    s->private_sum += x;
    if (pthread_mutex_unlock(&s->lock))
        w->error = 1;
}

static void *run(void *arg)
{
    struct worker *w = arg;
    uint64_t x = (uint64_t)w->id + 1;
    for (long it = 0; it < w->s->iterations; it++) {
        x = work(x, units(w->id, it) * w->s->unit);
        update(w, x);
    }
    return NULL;
}

/* the ticket sum and the private sum, predicted */
static uint64_t expected(int threads, long iterations, long unit, long hold)
{
    uint64_t sum = 0, a_hold = power(MINSTD_A, (uint64_t)hold);
    for (long k = 0; k < threads * iterations; k++)
        sum += a_hold * (uint64_t)(k + 1) % MINSTD_M;
    for (int t = 0; t < threads; t++) {
        uint64_t steps = 0;
        for (long it = 0; it < iterations; it++) {
            steps += (uint64_t)(units(t, it) * unit);
            sum += power(MINSTD_A, steps) * (uint64_t)(t + 1) % MINSTD_M;
        }
    }
    return sum;
}

/* the value of a numeric option: lo..max, or -1 */
static long num(const char *s, long lo, long max)
{
    char *end;
    long x = strtol(s, &end, 10);
    return *s && !*end && x >= lo && x <= max ? x : -1;
}

static int usage(void)
{
    fprintf(stderr, "usage: pth_mutex [-t THREADS] [-n ITERATIONS] [-w UNIT] [-c HOLD]\n");
    return 2;
}

int main(int argc, char **argv)
{
    long threads = 2, iterations = 3000, unit = 20000, hold = 8000;
    int c;
    while ((c = getopt(argc, argv, "t:n:w:c:")) != -1) {
        if (c == 't')
            threads = num(optarg, 1, 1024);
        else if (c == 'n')
            iterations = num(optarg, 1, 100000000L);
        else if (c == 'w')
            unit = num(optarg, 1, 100000000L);
        else if (c == 'c')
            hold = num(optarg, 0, 100000000L);
        else
            return usage();
        if (threads < 0 || iterations < 0 || unit < 0 || hold < 0)
            return usage();
    }
    if (optind != argc)
        return usage();

    struct shared s = {.iterations = iterations, .unit = unit, .hold = hold};
    struct worker *w = aligned_alloc(64, sizeof *w * (size_t)threads);
    if (!w || pthread_mutex_init(&s.lock, NULL)) {
        fprintf(stderr, "pth_mutex: out of memory\n");
        return 1;
    }
    memset(w, 0, sizeof *w * (size_t)threads);
    for (int t = 0; t < threads; t++) {
        w[t].id = t;
        w[t].s = &s;
    }

    double t0 = now();
    for (int t = 1; t < threads; t++)
        if (pthread_create(&w[t].tid, NULL, run, &w[t])) {
            fprintf(stderr, "pth_mutex: cannot create thread %d\n", t);
            return 1;
        }
    run(&w[0]);
    for (int t = 1; t < threads; t++)
        pthread_join(w[t].tid, NULL);
    double t1 = now();

    long locks = 0, errors = 0;
    for (int t = 0; t < threads; t++) {
        locks += w[t].locks;
        errors += w[t].error;
    }
    pthread_mutex_destroy(&s.lock);
    uint64_t checksum = s.ticket_sum + s.private_sum;
    uint64_t want = expected((int)threads, iterations, unit, hold);

    printf("pth_mutex: threads=%ld iterations=%ld unit=%ld hold=%ld count=%ld checksum=%llu\n",
           threads, iterations, unit, hold, s.count, (unsigned long long)checksum);
    printf("counts: threads=%ld lock_acquisitions=%ld\n", threads, locks);
    printf("time_s: %.9f\n", t1 - t0);
    int bad = 1;
    if (s.count != threads * iterations)
        printf("result: FAIL count=%ld expected=%ld\n", s.count, threads * iterations);
    else if (checksum != want)
        printf("result: FAIL checksum=%llu expected=%llu\n", (unsigned long long)checksum,
               (unsigned long long)want);
    else if (errors)
        printf("result: FAIL a mutex call failed in %ld threads\n", errors);
    else
        bad = 0;
    if (!bad)
        printf("result: ok\n");
    free(w);
    return bad;
}
