/*
 * c_threads.c - MPI from threads other than the one that called MPI_Init
 * (MPI_THREAD_MULTIPLE), for tests/tracer/run.sh.  On every rank:
 *   thread A: 10 MPI_Send (rank 0) or MPI_Recv (rank 1) of one int, tag 7,
 *             then MPI_Allreduce on MPI_COMM_WORLD; it ends before
 *             MPI_Finalize (its location closes when it ends);
 *   thread B: 5 MPI_Send or MPI_Recv, tag 8; it is still alive at
 *             MPI_Finalize (its location closes with the run).
 * The main thread only joins A and calls MPI_Barrier.  Records per rank
 * (docs/tracer.md, "POSIX threads: what is recorded"):
 *   A: ThreadBegin, 10 x 3 + 4 = 34 of MPI, ThreadEnd: 36;
 *   B: ThreadBegin, 5 x 3 = 15 of MPI, pthread_mutex_lock (Enter,
 *      ThreadAcquireLock, Leave), pthread_cond_broadcast (Enter, Leave),
 *      pthread_mutex_unlock (Enter, ThreadReleaseLock, Leave), then it
 *      spins, outside any call, while the run's archive closes:
 *      1 + 15 + 3 + 2 + 3 = 24 (a thread blocked inside a recorded call
 *      then would keep that call's region open: docs/tracer.md);
 *   main: MPI_Init_thread, MPI_Barrier and MPI_Finalize, and its pthread
 *   calls.
 * Prints "skip" when MPI_THREAD_MULTIPLE is not provided.
 */
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

static int rank;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int b_done;
static atomic_int b_out, finalized;

static void messages(int n, int tag)
{
    int v = rank, i;
    for (i = 0; i < n; i++) {
        if (rank == 0)
            MPI_Send(&v, 1, MPI_INT, 1, tag, MPI_COMM_WORLD);
        else if (rank == 1)
            MPI_Recv(&v, 1, MPI_INT, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

static void *thread_a(void *arg)
{
    int v = rank, sum = 0;
    (void)arg;
    messages(10, 7);
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return NULL;
}

static void *thread_b(void *arg)
{
    (void)arg;
    messages(5, 8);
    pthread_mutex_lock(&mu);
    b_done = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    atomic_store(&b_out, 1); /* its unlock's Leave written */
    while (!atomic_load(&finalized)) /* alive until the run's archive closed */
        sched_yield();
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    pthread_t a, b;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            printf("skip\n");
        MPI_Finalize();
        return 0;
    }
    pthread_create(&a, NULL, thread_a, NULL);
    pthread_create(&b, NULL, thread_b, NULL);
    pthread_join(a, NULL);
    pthread_mutex_lock(&mu);
    while (!b_done)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    while (!atomic_load(&b_out)) /* B may still be inside its unlock */
        sched_yield();
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    atomic_store(&finalized, 1);
    pthread_join(b, NULL);
    if (rank == 0)
        printf("done\n");
    return 0;
}
