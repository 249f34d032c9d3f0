/*
 * c_cond.c - condition variables, a recursive mutex and a mutex destroyed
 * and made again, without MPI, for tests/tracer/pthreads.sh.
 *
 *   c_cond ROUNDS
 *
 * Two threads (main and one it creates) take turns ROUNDS times each: a
 * thread waits on the condition variable while it is not its turn, then
 * passes the turn and signals (while holding the mutex, as POSIX advises).
 * Then the main thread locks a recursive mutex twice and unlocks it twice
 * (one acquisition for the tracer), and makes, locks and destroys a mutex
 * at the same address three times (three mutexes for the tracer, each
 * acquired once).
 *
 * Output: the program's own counts of its calls,
 *   counts: signals=S waits=W locks=L
 * S = 2 x ROUNDS pthread_cond_signal calls; W = the pthread_cond_wait
 * calls (how many depends on the schedule); L = the acquisitions the
 * tracer is to record: the turn mutex's 2 x ROUNDS lock calls and one
 * re-acquisition per wait, plus 1 (recursive) plus 3.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int turn, rounds;
static long waits[2];

static void take_turns(int me)
{
    for (int i = 0; i < rounds; i++) {
        pthread_mutex_lock(&mu);
        while (turn != me) {
            waits[me]++;
            pthread_cond_wait(&cv, &mu);
        }
        turn = !me;
        pthread_cond_signal(&cv);
        pthread_mutex_unlock(&mu);
    }
}

static void *other(void *arg)
{
    (void)arg;
    take_turns(1);
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t;
    pthread_mutexattr_t ra;
    pthread_mutex_t rec, once;
    long w;
    rounds = argc > 1 ? atoi(argv[1]) : 100;
    if (pthread_create(&t, NULL, other, NULL) != 0)
        return 1;
    take_turns(0);
    pthread_join(t, NULL);

    pthread_mutexattr_init(&ra);
    pthread_mutexattr_settype(&ra, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&rec, &ra);
    pthread_mutex_lock(&rec);
    pthread_mutex_lock(&rec);
    pthread_mutex_unlock(&rec);
    pthread_mutex_unlock(&rec);
    pthread_mutex_destroy(&rec);
    for (int k = 0; k < 3; k++) {
        pthread_mutex_init(&once, NULL);
        pthread_mutex_lock(&once);
        pthread_mutex_unlock(&once);
        pthread_mutex_destroy(&once);
    }
    w = waits[0] + waits[1];
    printf("counts: signals=%d waits=%ld locks=%ld\n", 2 * rounds, w, 2L * rounds + w + 1 + 3);
    return 0;
}
