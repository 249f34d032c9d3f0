/*
 * omp_prog.c - an MPI + OpenMP program for tests/tracer/ompt.sh: what the
 * tracer's OMPT tool (src/tracer/ompt.c) must record, a known number of
 * times.  Every rank runs ROUNDS parallel regions (default 3) of
 * OMP_NUM_THREADS threads between MPI_Init_thread and MPI_Finalize, each
 * region with, in this order:
 *
 *   an explicit barrier                        #pragma omp barrier
 *   a loop with an ordered block per iteration ordered schedule(static, 1),
 *                                              2 iterations per thread
 *   a single creating TASKS tasks (default 8), then a taskwait, then a
 *   taskgroup holding one more task
 *   a loop of schedule(dynamic)
 *   a critical section, an omp_set_lock/omp_unset_lock per thread
 *   an omp_set_nest_lock taken twice by thread 0 (one acquisition)
 *   a second lock, set by thread 0 between two explicit barriers, in which
 *   every other thread's omp_test_lock fails; then thread 0's succeeds
 *
 * Each of the three worksharing constructs ends in its implicit barrier,
 * and the region in its own: with the three explicit ones, 7 barriers per
 * thread and region (the region does not end with a worksharing
 * construct, so no compiler drops one).
 *
 * Prints (rank 0; every rank must count the same, or it fails):
 *   counts: threads=T regions=R barriers=B explicit=E critical=C locks=L nest=N ordered=O tasks=K done=D taskwaits=W taskgroups=G
 *   result: ok                            (or: result: FAIL <what>; exit 1)
 * per rank, summed over threads: B barriers met (implicit ones included),
 * E of them explicit, C critical sections, L omp_set_lock calls and
 * omp_test_lock calls that took the lock (the failed ones are not counted), N
 * outermost nest-lock acquisitions, O ordered blocks, K tasks created, D
 * tasks run, W taskwaits, G taskgroups.  T is the team size every region
 * had, R the number of regions.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { THREADS, REGIONS, BARRIERS, EXPLICIT, CRITICAL, LOCKS, NEST, ORDERED, TASKS, DONE,
       TASKWAITS, TASKGROUPS, NCOUNTS };
static const char *const names[NCOUNTS] = {"threads", "regions", "barriers", "explicit",
                                           "critical", "locks", "nest", "ordered", "tasks",
                                           "done", "taskwaits", "taskgroups"};

/* One region; c[] is updated inside critical sections, locks, the single
 * or atomically.  false: the ordered blocks ran out of order, or the
 * dynamic loop did not run each iteration once. */
static int region(long *c, int tasks, omp_lock_t *lk, omp_lock_t *busy, omp_nest_lock_t *nest,
                  int *team)
{
    int in_order = 1, last = -1, iters = 0;
#pragma omp parallel shared(in_order, last, iters)
    {
        int n = omp_get_num_threads();
#pragma omp single nowait
        *team = n;
#pragma omp barrier
#pragma omp atomic
        c[EXPLICIT]++;
#pragma omp for ordered schedule(static, 1)
        for (int i = 0; i < 2 * n; i++) {
#pragma omp ordered
            {
                in_order &= i == last + 1;
                last = i;
                c[ORDERED]++;
            }
        }
#pragma omp single
        {
            for (int k = 0; k < tasks; k++) {
#pragma omp task
                {
#pragma omp atomic
                    c[DONE]++;
                }
                c[TASKS]++;
            }
#pragma omp taskwait
            c[TASKWAITS]++;
#pragma omp taskgroup
            {
#pragma omp task
                {
#pragma omp atomic
                    c[DONE]++;
                }
                c[TASKS]++;
            }
            c[TASKGROUPS]++;
        }
#pragma omp for schedule(dynamic)
        for (int i = 0; i < 4 * n; i++) {
#pragma omp atomic
            iters++;
        }
#pragma omp critical
        c[CRITICAL]++;
        omp_set_lock(lk);
        c[LOCKS]++;
        omp_unset_lock(lk);
        if (omp_get_thread_num() == 0) {
            omp_set_nest_lock(nest);
            omp_set_nest_lock(nest);
            c[NEST]++;
            omp_unset_nest_lock(nest);
            omp_unset_nest_lock(nest);
            omp_set_lock(busy);
            c[LOCKS]++;
        }
#pragma omp barrier
        if (omp_get_thread_num() != 0 && omp_test_lock(busy))
            in_order = 0; /* (thread 0 holds it) */
#pragma omp barrier
#pragma omp atomic
        c[EXPLICIT] += 2;
        if (omp_get_thread_num() == 0) {
            omp_unset_lock(busy);
            if (omp_test_lock(busy)) {
                c[LOCKS]++;
                omp_unset_lock(busy);
            }
        }
    }
    return in_order && iters == 4 * *team;
}

int main(int argc, char **argv)
{
    long c[NCOUNTS], lo[NCOUNTS], hi[NCOUNTS];
    int provided, rank, rounds = argc > 1 ? atoi(argv[1]) : 3, tasks = argc > 2 ? atoi(argv[2]) : 8;
    int team = 0, wrong_team = 0, in_order = 1, r, i;
    omp_lock_t lk, busy;
    omp_nest_lock_t nest;
    const char *bad = NULL;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    memset(c, 0, sizeof c);
    omp_init_lock(&lk);
    omp_init_lock(&busy);
    omp_init_nest_lock(&nest);
    for (r = 0; r < rounds; r++) {
        int n = 0;
        in_order &= region(c, tasks, &lk, &busy, &nest, &n);
        if (r == 0)
            team = n;
        wrong_team |= n != team;
        c[REGIONS]++;
        /* the explicit barriers, the three worksharing constructs', the region's */
        c[BARRIERS] += 7L * n;
    }
    omp_destroy_lock(&lk);
    omp_destroy_lock(&busy);
    omp_destroy_nest_lock(&nest);
    c[THREADS] = team;
    MPI_Allreduce(c, lo, NCOUNTS, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(c, hi, NCOUNTS, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    if (wrong_team)
        bad = "a region had another number of threads";
    else if (!in_order)
        bad = "ordered blocks out of order, loop iterations lost, or a test took a held lock";
    else if (c[DONE] != c[TASKS] || c[TASKS] != (long)rounds * (tasks + 1))
        bad = "tasks created and run differ";
    else if (memcmp(lo, hi, sizeof lo))
        bad = "the ranks counted differently";
    if (rank == 0) {
        printf("counts:");
        for (i = 0; i < NCOUNTS; i++)
            printf(" %s=%ld", names[i], hi[i]);
        printf("\nresult: %s%s\n", bad ? "FAIL " : "ok", bad ? bad : "");
    }
    MPI_Finalize();
    return bad != NULL;
}
