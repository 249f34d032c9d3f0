/*
 * omp_loop.c - OpenMP: a parallel loop with a reduction, a loop whose
 * results are combined in a critical section, and tasks with a taskwait,
 * in every round, for the thread tracer (issue 36; docs/examples.md).
 * Built with gcc -fopenmp (libgomp) and with clang -fopenmp (LLVM's libomp).
 *
 *   omp_loop [-t THREADS] [-n ROUNDS] [-m ITEMS] [-k TASKS] [-w UNIT] [-c HOLD]
 *       THREADS  threads of each parallel region (default 2)
 *       ROUNDS   parallel regions, one per round (default 80)
 *       ITEMS    iterations of each of the two loops per round (default 32)
 *       TASKS    tasks per round (default 32)
 *       UNIT     generator steps per work unit (default 20000, ~0.1 ms)
 *       HOLD     generator steps done inside each critical section
 *                (default 4000)
 *
 * A work unit is UNIT steps of the "minimal standard" generator
 * x <- 48271 x mod (2^31 - 1), which cannot be skipped.  In round r, one
 * parallel region of THREADS threads does three phases:
 * 1. reduction: omp for schedule(static) reduction(+) over i < ITEMS of
 *    the value after 1 + (4i div ITEMS + r) mod 4 units from r ITEMS + i + 1
 *    (blocks of a quarter of the loop cost 1 to 4 units, rotated every
 *    round, so the threads' shares are unequal);
 * 2. critical: omp for schedule(static) nowait over j < ITEMS: 1 + j mod 2
 *    units from r ITEMS + j + 1, then in an omp critical section: take a
 *    ticket k (k = count++), do HOLD steps from k + 1 and add both results
 *    to the shared sum; then an explicit omp barrier;
 * 3. tasks: omp single: creates TASKS tasks (task q: 1 + q mod 3 units from
 *    r TASKS + q + 1, into its own slot), then omp taskwait, then sums the
 *    slots.  The other threads run tasks in the single's implicit barrier.
 *
 * Checks: the three sums, predicted by modular exponentiation without the
 * work (none depends on the schedule: the tickets are 0 .. ROUNDS ITEMS - 1
 * in any order); every region had THREADS threads; every task created ran
 * once.
 *
 * Output (stdout), then exit status 0, or 1 if a check failed:
 *   omp_loop: threads=T rounds=R items=M tasks=K unit=W hold=H reduction=A critical=B tasks=C
 *   counts: threads=T parallel_regions=R barrier_waits=BW critical=CR tasks=TK taskwaits=TW
 *   time_s: S
 *   result: ok                      (or: result: FAIL <what>)
 * BW = explicit omp barrier waits (T R; the implicit barriers of the
 * loops, of the single and of the region's end are not counted), CR =
 * critical sections entered (R M), TK = tasks created (R K), TW = taskwaits
 * (R), each summed over threads.  S = the wall time of all the rounds
 * (CLOCK_MONOTONIC), the first region's thread creation included.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <omp.h>

#define MINSTD_A 48271u
#define MINSTD_M 2147483647u

/* one thread's counts; aligned so that threads do not share cache lines */
struct counts {
    _Alignas(64) long barrier_waits;
    long critical, tasks_created, tasks_run, taskwaits;
};

struct run {
    int threads;
    long rounds, items, tasks, unit, hold;
    uint64_t *slots;    /* a round's task results */
    struct counts *per; /* per thread */
    int wrong_team;     /* a region had another number of threads */
    /* results */
    uint64_t reduction_sum, critical_sum, task_sum;
    long tickets; /* critical sections entered (under the critical) */
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
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

/* work units of the reduction loop's item i, the critical loop's item j,
   and task q */
static long loop_units(const struct run *p, long r, long i)
{
    return 1 + (4 * i / p->items + r) % 4;
}

static long critical_units(long j)
{
    return 1 + j % 2;
}

static long task_units(long q)
{
    return 1 + q % 3;
}

/* phase 2, in a parallel region: work, then the critical section */
static void critical_phase(struct run *p, long r, struct counts *me)
{
#pragma omp for schedule(static) nowait
    for (long j = 0; j < p->items; j++) {
        uint64_t v = work((uint64_t)(r * p->items + j) + 1, critical_units(j) * p->unit);
#pragma omp critical(update)
        {
            long k = p->tickets++;
            p->critical_sum += v + work((uint64_t)k + 1, p->hold);
            me->critical++;
        }
    }
#pragma omp barrier
    me->barrier_waits++;
}

/* phase 3, in a parallel region: one thread makes the tasks, all run them */
static void task_phase(struct run *p, long r, struct counts *me)
{
#pragma omp single
    {
        for (long q = 0; q < p->tasks; q++) {
#pragma omp task firstprivate(q)
            {
                p->slots[q] = work((uint64_t)(r * p->tasks + q) + 1, task_units(q) * p->unit);
                p->per[omp_get_thread_num()].tasks_run++;
            }
            me->tasks_created++;
        }
#pragma omp taskwait
        me->taskwaits++;
        for (long q = 0; q < p->tasks; q++)
            p->task_sum += p->slots[q];
    }
}

static void one_round(struct run *p, long r)
{
    uint64_t sum = 0;
#pragma omp parallel num_threads(p->threads)
    {
        struct counts *me = &p->per[omp_get_thread_num()];
        if (omp_get_num_threads() != p->threads) {
#pragma omp atomic write
            p->wrong_team = 1;
        }
#pragma omp for schedule(static) reduction(+ : sum)
        for (long i = 0; i < p->items; i++)
            sum += work((uint64_t)(r * p->items + i) + 1, loop_units(p, r, i) * p->unit);
        critical_phase(p, r, me);
        task_phase(p, r, me);
    }
    p->reduction_sum += sum;
}

/* a^(u UNIT) mod MINSTD_M, u = 0..4 */
static void unit_powers(const struct run *p, uint64_t pw[5])
{
    for (int u = 0; u <= 4; u++)
        pw[u] = power(MINSTD_A, (uint64_t)u * (uint64_t)p->unit);
}

/* the three sums, predicted; returns the number that differ */
static int check(const struct run *p)
{
    uint64_t pw[5], red = 0, crit = 0, task = 0;
    uint64_t a_hold = power(MINSTD_A, (uint64_t)p->hold);
    unit_powers(p, pw);
    for (long r = 0; r < p->rounds; r++) {
        for (long i = 0; i < p->items; i++) {
            uint64_t seed = (uint64_t)(r * p->items + i) + 1;
            red += pw[loop_units(p, r, i)] * seed % MINSTD_M;
            crit += pw[critical_units(i)] * seed % MINSTD_M;
        }
        for (long q = 0; q < p->tasks; q++)
            task += pw[task_units(q)] * ((uint64_t)(r * p->tasks + q) + 1) % MINSTD_M;
    }
    for (long k = 0; k < p->rounds * p->items; k++)
        crit += a_hold * ((uint64_t)k + 1) % MINSTD_M;
    int bad = 0;
    if (p->reduction_sum != red) {
        printf("result: FAIL reduction=%llu expected=%llu\n", (unsigned long long)p->reduction_sum,
               (unsigned long long)red);
        bad++;
    }
    if (p->critical_sum != crit) {
        printf("result: FAIL critical=%llu expected=%llu\n", (unsigned long long)p->critical_sum,
               (unsigned long long)crit);
        bad++;
    }
    if (p->task_sum != task) {
        printf("result: FAIL tasks=%llu expected=%llu\n", (unsigned long long)p->task_sum,
               (unsigned long long)task);
        bad++;
    }
    return bad;
}

/* the value of a numeric option: 1..max, or -1 */
static long num(const char *s, long lo, long max)
{
    char *end;
    long x = strtol(s, &end, 10);
    return *s && !*end && x >= lo && x <= max ? x : -1;
}

static int usage(void)
{
    fprintf(stderr, "usage: omp_loop [-t THREADS] [-n ROUNDS] [-m ITEMS] [-k TASKS] [-w UNIT] [-c HOLD]\n");
    return 2;
}

/* the options into p; 0, or the exit status of a usage error */
static int options(int argc, char **argv, struct run *p)
{
    long threads = 2;
    int c;
    while ((c = getopt(argc, argv, "t:n:m:k:w:c:")) != -1) {
        long *v = c == 't' ? &threads : c == 'n' ? &p->rounds : c == 'm' ? &p->items
                : c == 'k' ? &p->tasks : c == 'w' ? &p->unit : c == 'c' ? &p->hold : NULL;
        if (!v || (*v = num(optarg, c == 'c' ? 0 : 1, c == 't' ? 1024 : 100000000L)) < 0)
            return usage();
    }
    if (optind != argc)
        return usage();
    p->threads = (int)threads;
    return 0;
}

int main(int argc, char **argv)
{
    struct run p = {.rounds = 80, .items = 32, .tasks = 32, .unit = 20000, .hold = 4000};
    int rc = options(argc, argv, &p);
    if (rc)
        return rc;
    p.slots = calloc((size_t)p.tasks, sizeof *p.slots);
    p.per = aligned_alloc(64, sizeof *p.per * (size_t)p.threads);
    if (!p.slots || !p.per) {
        fprintf(stderr, "omp_loop: out of memory\n");
        return 1;
    }
    memset(p.per, 0, sizeof *p.per * (size_t)p.threads);

    double t0 = now();
    for (long r = 0; r < p.rounds; r++)
        one_round(&p, r);
    double t1 = now();

    struct counts sum = {0};
    for (int t = 0; t < p.threads; t++) {
        sum.barrier_waits += p.per[t].barrier_waits;
        sum.critical += p.per[t].critical;
        sum.tasks_created += p.per[t].tasks_created;
        sum.tasks_run += p.per[t].tasks_run;
        sum.taskwaits += p.per[t].taskwaits;
    }
    printf("omp_loop: threads=%d rounds=%ld items=%ld tasks=%ld unit=%ld hold=%ld reduction=%llu "
           "critical=%llu tasks=%llu\n",
           p.threads, p.rounds, p.items, p.tasks, p.unit, p.hold,
           (unsigned long long)p.reduction_sum, (unsigned long long)p.critical_sum,
           (unsigned long long)p.task_sum);
    printf("counts: threads=%d parallel_regions=%ld barrier_waits=%ld critical=%ld tasks=%ld "
           "taskwaits=%ld\n",
           p.threads, p.rounds, sum.barrier_waits, sum.critical, sum.tasks_created, sum.taskwaits);
    printf("time_s: %.9f\n", t1 - t0);
    int bad = check(&p);
    if (p.wrong_team) {
        printf("result: FAIL a parallel region did not have %d threads\n", p.threads);
        bad++;
    }
    if (sum.tasks_run != sum.tasks_created || p.tickets != sum.critical) {
        printf("result: FAIL tasks run %ld of %ld created, tickets %ld of %ld critical sections\n",
               sum.tasks_run, sum.tasks_created, p.tickets, sum.critical);
        bad++;
    }
    if (!bad)
        printf("result: ok\n");
    free(p.per);
    free(p.slots);
    return bad != 0;
}
