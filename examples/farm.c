/*
 * farm.c - a dynamic task farm: a master hands tasks to whichever worker
 * reports first (MPI_Recv from MPI_ANY_SOURCE, MPI_Send of the next task to
 * status.MPI_SOURCE), the most common pattern whose order a tracer can
 * change (issue 22; docs/examples.md).
 *
 *   farm [TASKS [SPREAD [WORK [SERVICE]]]]
 *       TASKS    tasks (default 4000)
 *       SPREAD   spread of the task lengths in percent: task k takes
 *                WORK * (1 + SPREAD/100 * (2 f_k - 1)) work units, f_k in
 *                [0, 1) from a hash of k; 0: equal tasks (default 50)
 *       WORK     mean work units per task (default 20000, ~100 us here)
 *       SERVICE  work units the master spends on each result before it
 *                replies (default 2000): a busy master
 *
 * Rank 0 is the master.  It sends every worker one task (tag 1: the task
 * number), then receives results (tag 2, from MPI_ANY_SOURCE), spends
 * SERVICE units on each and replies to the worker that sent it with the next
 * task, or with a stop message (tag 3) when none are left.  A task's result
 * is the value after its work: w_k steps of MINSTD (x <- 48271 x mod
 * 2^31 - 1) from x = k + 1, so it does not depend on which worker ran it.
 * At the end the master broadcasts the sum of the results (MPI_Bcast) and
 * every rank contributes the number of tasks it ran to an MPI_Reduce.
 * Needs 2 ranks or more.  Rank 0 prints one line:
 *   farm: tasks=T spread=S checksum=C done=D
 * C = the sum of all results mod 2^31, D = the tasks run (= T), both
 * independent of the schedule (tests/examples/run.sh computes C in awk).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define MINSTD_M 2147483647u
#define TAG_TASK 1
#define TAG_RESULT 2
#define TAG_STOP 3

static long arg(int argc, char **argv, int i, long def, long lo)
{
    char *end;
    long x;
    if (argc <= i)
        return def;
    x = strtol(argv[i], &end, 10);
    return *end || x < lo || x > 1000000000L ? -1 : x;
}

static uint32_t minstd(uint64_t x) { return (uint32_t)(x % MINSTD_M * 48271u % MINSTD_M); }

/* work units of task k */
static long task_len(long k, long spread, long work)
{
    double f = (double)minstd(7919u * (uint64_t)k + 13u) / MINSTD_M;
    long w = work + (long)((double)work * (double)spread / 100.0 * (2.0 * f - 1.0));
    return w > 0 ? w : 1;
}

/* n steps of MINSTD from x */
static uint32_t steps(uint32_t x, long n)
{
    long i;
    for (i = 0; i < n; i++)
        x = minstd(x);
    return x;
}

int main(int argc, char **argv)
{
    long tasks, spread, work, service;
    int rank, size;
    long done = 0, all = 0;
    uint32_t checksum = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    tasks = arg(argc, argv, 1, 4000, 1);
    spread = arg(argc, argv, 2, 50, 0);
    work = arg(argc, argv, 3, 20000, 1);
    service = arg(argc, argv, 4, 2000, 0);
    if (tasks < 0 || spread < 0 || spread > 100 || work < 0 || service < 0 || size < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: farm [TASKS [SPREAD 0-100 [WORK [SERVICE]]]] on 2 ranks or more\n");
        MPI_Finalize();
        return 2;
    }
    if (rank == 0) {
        long next = 0, out = 0, r;
        uint64_t sum = 0;
        uint32_t sink = 1;
        for (r = 1; r < size; r++) { /* one task each, or stop */
            if (next < tasks) {
                MPI_Send(&next, 1, MPI_LONG, (int)r, TAG_TASK, MPI_COMM_WORLD);
                next++, out++;
            } else
                MPI_Send(&next, 1, MPI_LONG, (int)r, TAG_STOP, MPI_COMM_WORLD);
        }
        while (out > 0) {
            long res[2];
            MPI_Status st;
            MPI_Recv(res, 2, MPI_LONG, MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &st);
            out--;
            sum += (uint64_t)res[1];
            sink = steps(sink, service); /* the master's own work per result */
            if (next < tasks) {
                MPI_Send(&next, 1, MPI_LONG, st.MPI_SOURCE, TAG_TASK, MPI_COMM_WORLD);
                next++, out++;
            } else
                MPI_Send(&next, 1, MPI_LONG, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
        }
        checksum = (uint32_t)(sum % 2147483648u);
        if (sink == 0) /* never: keeps the service work */
            checksum++;
    } else {
        for (;;) {
            long k, res[2];
            MPI_Status st;
            MPI_Recv(&k, 1, MPI_LONG, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            if (st.MPI_TAG == TAG_STOP)
                break;
            res[0] = k;
            res[1] = (long)steps((uint32_t)(k + 1), task_len(k, spread, work));
            done++;
            MPI_Send(res, 2, MPI_LONG, 0, TAG_RESULT, MPI_COMM_WORLD);
        }
    }
    MPI_Bcast(&checksum, 1, MPI_UINT32_T, 0, MPI_COMM_WORLD);
    MPI_Reduce(&done, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("farm: tasks=%ld spread=%ld checksum=%u done=%ld\n", tasks, spread, checksum, all);
    MPI_Finalize();
    return 0;
}
