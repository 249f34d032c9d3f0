/*
 * pth_semaphore.c - a producer/consumer pipeline on POSIX semaphores: a
 * bounded ring buffer guarded by two counting semaphores (free slots, full
 * slots) and a mutex, for the thread tracer (issue 36; docs/examples.md).
 *
 *   pth_semaphore [-t THREADS] [-n ITEMS] [-b SLOTS] [-w UNIT] [-y]
 *       THREADS  threads, the main thread included, 2 or more (default 2):
 *                even-numbered threads produce, odd-numbered ones consume
 *       ITEMS    items through the pipeline (default 5000)
 *       SLOTS    capacity of the ring buffer (default 4)
 *       UNIT     generator steps per work unit (default 20000, ~0.1 ms)
 *       -y       consumers try sem_trywait first and call sem_wait only
 *                when it fails (EAGAIN)
 *
 * Item k (0 <= k < ITEMS) is made by producer k mod P (P = the number of
 * producers), in increasing k: it does p_k = 1 + k mod 3 work units from
 * x = k + 1 and puts (k, x) in the ring.  A consumer takes the oldest item
 * and does c_k = 1 + (k div 8) mod 3 more units on its value (bursts of
 * 8 long or short items, so the ring fills and drains).  A work unit is UNIT
 * steps of the "minimal standard" generator x <- 48271 x mod (2^31 - 1).
 * Consumer c takes ITEMS / C items, plus one if c < ITEMS mod C (C = the
 * number of consumers), so every item is consumed exactly once whichever
 * consumer gets it.
 *
 * Put: sem_wait(free), lock, store at the tail, unlock, sem_post(full).
 * Take: sem_wait(full) (or sem_trywait, then sem_wait if it failed), lock,
 * load from the head, unlock, sem_post(free).
 *
 * Checks: the sum of the consumers' results is
 * sum_k 48271^((p_k + c_k) UNIT) (k + 1) mod (2^31 - 1), predicted by modular
 * exponentiation; the sum of the item numbers taken is ITEMS (ITEMS - 1) / 2.
 *
 * Output (stdout), then exit status 0, or 1 if a check failed:
 *   pth_semaphore: threads=T producers=P consumers=C items=N slots=S unit=W checksum=X
 *   counts: threads=T lock_acquisitions=L sem_posts=SP sem_waits=SW
 *   time_s: S
 *   result: ok                      (or: result: FAIL <what>)
 * L = pthread_mutex_lock calls = 2N, SP = sem_post calls = 2N, SW =
 * sem_wait calls = 2N (each summed over threads).  With -y the counts line
 * also has sem_trywaits=N sem_trywait_fails=F, and SW = N + F: F depends on
 * the timing.  S = the wall time from before the first pthread_create to
 * after the last pthread_join (CLOCK_MONOTONIC).
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MINSTD_A 48271u
#define MINSTD_M 2147483647u

struct item {
    long k;
    uint64_t x;
};

/* the ring buffer and the run's parameters */
struct pipe {
    int producers, consumers, try_first;
    long items, slots, unit;
    sem_t free_slots, full_slots;
    pthread_mutex_t lock;
    long head, tail; /* next slot to load from, to store at (under lock) */
    struct item *ring;
};

/* one thread's state; aligned so that threads do not share cache lines */
struct worker {
    _Alignas(64) int id;
    pthread_t tid;
    struct pipe *pipe;
    uint64_t checksum; /* consumer: sum of its results */
    long ksum;         /* consumer: sum of the item numbers it took */
    long locks, posts, waits, trywaits, trywait_fails;
    int error;         /* a semaphore or mutex call failed */
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long produce_units(long k)
{
    return 1 + k % 3;
}

static long consume_units(long k)
{
    return 1 + (k / 8) % 3;
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

/* sem_wait, again if a signal interrupted it; every call counted */
static void wait_sem(struct worker *w, sem_t *s)
{
    int rc;
    do {
        rc = sem_wait(s);
        w->waits++;
    } while (rc && errno == EINTR);
    if (rc)
        w->error = 1;
}

static void post_sem(struct worker *w, sem_t *s)
{
    if (sem_post(s))
        w->error = 1;
    w->posts++;
}

/* a full slot: by sem_trywait if it succeeds, else by sem_wait */
static void take_full(struct worker *w, sem_t *s)
{
    if (w->pipe->try_first) {
        w->trywaits++;
        if (sem_trywait(s) == 0)
            return;
        if (errno != EAGAIN && errno != EINTR)
            w->error = 1;
        w->trywait_fails++;
    }
    wait_sem(w, s);
}

static void lock(struct worker *w)
{
    if (pthread_mutex_lock(&w->pipe->lock))
        w->error = 1;
    w->locks++;
}

static void produce(struct worker *w, int p)
{
    struct pipe *q = w->pipe;
    for (long k = p; k < q->items; k += q->producers) {
        struct item it = {k, work((uint64_t)k + 1, produce_units(k) * q->unit)};
        wait_sem(w, &q->free_slots);
        lock(w);
        q->ring[q->tail] = it;
        q->tail = (q->tail + 1) % q->slots;
        pthread_mutex_unlock(&q->lock);
        post_sem(w, &q->full_slots);
    }
}

static void consume(struct worker *w, int c)
{
    struct pipe *q = w->pipe;
    long quota = q->items / q->consumers + (c < q->items % q->consumers);
    for (long i = 0; i < quota; i++) {
        take_full(w, &q->full_slots);
        lock(w);
        struct item it = q->ring[q->head];
        q->head = (q->head + 1) % q->slots;
        pthread_mutex_unlock(&q->lock);
        post_sem(w, &q->free_slots);
        w->checksum += work(it.x, consume_units(it.k) * q->unit);
        w->ksum += it.k;
    }
}

static void *run(void *arg)
{
    struct worker *w = arg;
    if (w->id % 2 == 0)
        produce(w, w->id / 2);
    else
        consume(w, w->id / 2);
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
    fprintf(stderr, "usage: pth_semaphore [-t THREADS >= 2] [-n ITEMS] [-b SLOTS] [-w UNIT] [-y]\n");
    return 2;
}

int main(int argc, char **argv)
{
    long threads = 2, items = 5000, slots = 4, unit = 20000;
    int try_first = 0, c;
    while ((c = getopt(argc, argv, "t:n:b:w:y")) != -1) {
        if (c == 't')
            threads = num(optarg, 1024);
        else if (c == 'n')
            items = num(optarg, 100000000L);
        else if (c == 'b')
            slots = num(optarg, 1000000L);
        else if (c == 'w')
            unit = num(optarg, 100000000L);
        else if (c == 'y')
            try_first = 1;
        else
            return usage();
        if (threads < 0 || items < 0 || slots < 0 || unit < 0)
            return usage();
    }
    if (optind != argc || threads < 2)
        return usage();

    struct pipe q = {.producers = (int)(threads + 1) / 2, .consumers = (int)threads / 2,
                     .try_first = try_first, .items = items, .slots = slots, .unit = unit};
    q.ring = calloc((size_t)slots, sizeof *q.ring);
    struct worker *w = aligned_alloc(64, sizeof *w * (size_t)threads);
    if (!q.ring || !w || sem_init(&q.free_slots, 0, (unsigned)slots) ||
        sem_init(&q.full_slots, 0, 0) || pthread_mutex_init(&q.lock, NULL)) {
        fprintf(stderr, "pth_semaphore: out of memory\n");
        return 1;
    }
    memset(w, 0, sizeof *w * (size_t)threads);
    for (int t = 0; t < threads; t++) {
        w[t].id = t;
        w[t].pipe = &q;
    }

    double t0 = now();
    for (int t = 1; t < threads; t++)
        if (pthread_create(&w[t].tid, NULL, run, &w[t])) {
            fprintf(stderr, "pth_semaphore: cannot create thread %d\n", t);
            return 1;
        }
    run(&w[0]);
    for (int t = 1; t < threads; t++)
        pthread_join(w[t].tid, NULL);
    double t1 = now();

    uint64_t checksum = 0, expected = 0;
    long ksum = 0, locks = 0, posts = 0, waits = 0, trywaits = 0, fails = 0, errors = 0;
    for (int t = 0; t < threads; t++) {
        checksum += w[t].checksum;
        ksum += w[t].ksum;
        locks += w[t].locks;
        posts += w[t].posts;
        waits += w[t].waits;
        trywaits += w[t].trywaits;
        fails += w[t].trywait_fails;
        errors += w[t].error;
    }
    for (long k = 0; k < items; k++) {
        uint64_t e = (uint64_t)(produce_units(k) + consume_units(k)) * (uint64_t)unit;
        expected += power(MINSTD_A, e) * (uint64_t)(k + 1) % MINSTD_M;
    }
    sem_destroy(&q.free_slots);
    sem_destroy(&q.full_slots);
    pthread_mutex_destroy(&q.lock);

    printf("pth_semaphore: threads=%ld producers=%d consumers=%d items=%ld slots=%ld unit=%ld "
           "checksum=%llu\n",
           threads, q.producers, q.consumers, items, slots, unit, (unsigned long long)checksum);
    printf("counts: threads=%ld lock_acquisitions=%ld sem_posts=%ld sem_waits=%ld", threads, locks,
           posts, waits);
    if (try_first)
        printf(" sem_trywaits=%ld sem_trywait_fails=%ld", trywaits, fails);
    printf("\ntime_s: %.9f\n", t1 - t0);
    int bad = 1;
    if (checksum != expected)
        printf("result: FAIL checksum=%llu expected=%llu\n", (unsigned long long)checksum,
               (unsigned long long)expected);
    else if (ksum != items * (items - 1) / 2)
        printf("result: FAIL sum of item numbers %ld, expected %ld\n", ksum, items * (items - 1) / 2);
    else if (errors)
        printf("result: FAIL a semaphore or mutex call failed in %ld threads\n", errors);
    else
        bad = 0;
    if (!bad)
        printf("result: ok\n");
    free(w);
    free(q.ring);
    return bad;
}
