/*
 * cover.c - one OpenMP program with each construct the tracer must see
 * (issue 36, item 2), in a team of 4 threads, a known number of times:
 *
 *   1 parallel region            (+ its implicit barrier at the end)
 *   1 explicit barrier           #pragma omp barrier
 *   4 critical sections          one per thread
 *   4 omp_set_lock/unset_lock    one per thread, on an omp_lock_t with a
 *                                guard word after it (gcc's omp_lock_t is
 *                                4 bytes, libomp's 8: the guard shows
 *                                whether libomp writes past gcc's lock)
 *   1 nest lock, taken twice     by the master thread
 *   8 ordered iterations         a loop with an ordered clause
 *   2 singles                    (+ their implicit barriers)
 *   1 master
 *   8 tasks + 1 taskwait         created in the first single
 *   2 tasks with depend(out/in)  + 1 taskgroup holding 1 task, in the second
 *   1 loop with a reduction      (+ its implicit barrier)
 *   1 doacross loop              ordered(1) with depend(sink)/depend(source),
 *                                in a second parallel region
 *
 * It prints what it computed and exits 1 if a result is wrong (a runtime
 * that miscounts, or a lock that overwrote its guard).
 */
#include <omp.h>
#include <stdio.h>

#define GUARD 0x5a5a5a5au

int main(void)
{
    struct {
        omp_lock_t lock;
        unsigned guard;
    } lk = {.guard = GUARD};
    omp_nest_lock_t nest;
    long sum = 0;
    int crit = 0, locked = 0, ord = 0, last = -1, in_order = 1, singles = 0, masters = 0, tasks = 0, dep = 0,
        seen = -1, grouped = 0, a[16] = {0}, i, bad;

    omp_init_lock(&lk.lock);
    omp_init_nest_lock(&nest);
#pragma omp parallel num_threads(4) shared(sum)
    {
#pragma omp barrier
#pragma omp critical
        crit++;
        omp_set_lock(&lk.lock);
        locked++;
        omp_unset_lock(&lk.lock);
        if (omp_get_thread_num() == 0) {
            omp_set_nest_lock(&nest);
            omp_set_nest_lock(&nest);
            omp_unset_nest_lock(&nest);
            omp_unset_nest_lock(&nest);
        }
#pragma omp for ordered schedule(static, 1)
        for (int j = 0; j < 8; j++) {
#pragma omp ordered
            {
                in_order &= j == last + 1;
                last = j;
                ord++;
            }
        }
#pragma omp single
        {
            singles++;
            for (int j = 0; j < 8; j++) {
#pragma omp task
                {
#pragma omp atomic
                    tasks++;
                }
            }
#pragma omp taskwait
        }
#pragma omp master
        masters++;
#pragma omp for reduction(+ : sum)
        for (int j = 0; j < 100; j++)
            sum += j;
#pragma omp single
        {
            singles++;
#pragma omp task depend(out : dep)
            dep = 42;
#pragma omp task depend(in : dep)
            seen = dep;
#pragma omp taskgroup
            {
#pragma omp task
                grouped = 1;
            }
#pragma omp taskwait
        }
    }
    a[0] = 1;
#pragma omp parallel for ordered(1) num_threads(4)
    for (i = 1; i < 16; i++) {
#pragma omp ordered depend(sink : i - 1)
        a[i] = a[i - 1] + 1;
#pragma omp ordered depend(source)
    }
    omp_destroy_lock(&lk.lock);
    omp_destroy_nest_lock(&nest);
    bad = crit != 4 || locked != 4 || ord != 8 || !in_order || singles != 2 || masters != 1 || tasks != 8 ||
          sum != 4950 || seen != 42 || !grouped || a[15] != 16 || lk.guard != GUARD;
    printf("critical %d lock %d ordered %d%s single %d master %d tasks %d sum %ld depend %d taskgroup %d "
           "doacross %d guard %s: %s\n",
           crit, locked, ord, in_order ? "" : " (out of order)", singles, masters, tasks, sum, seen, grouped,
           a[15], lk.guard == GUARD ? "kept" : "OVERWRITTEN", bad ? "WRONG" : "ok");
    return bad;
}
