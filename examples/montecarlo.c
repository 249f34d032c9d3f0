/*
 * montecarlo.c - pi by Monte Carlo with a random-number server: the
 * master/worker example of the KOJAK overhead-compensation paper (Wolf,
 * Malony, Shende, Morris), after the "Using MPI" program it is based on.
 *
 *   montecarlo [ROUNDS [CHUNKS [CHUNK_DOUBLES]]]
 *       ROUNDS         rounds, each ending in a convergence check (default 20)
 *       CHUNKS         chunks handed out per round (default 110)
 *       CHUNK_DOUBLES  random numbers per chunk, even (default 2048: 16 KiB)
 *
 * Rank 0 is the master: it generates random numbers (splitmix64, fixed seed)
 * and hands them out a chunk at a time to whichever worker asks first
 * (MPI_Recv from MPI_ANY_SOURCE, MPI_Send of the chunk back to the sender).
 * When a round's chunks are gone it answers each worker's next request with
 * a stop message.  Workers turn each pair of numbers into a point (u, v) of
 * the unit square with get_coords(), one call per pair, and count the points
 * of the quarter disc x^2 + y^2 <= 1.  To give each call real work, a pair
 * is used as the random offset of a GRID x GRID lattice of points
 * ((a + u) / GRID, (b + v) / GRID): a randomly shifted grid, each of whose
 * points is uniform in the square, so 4 * hits / points estimates pi without
 * bias (and with far less error than independent points).
 *
 * After each round every rank, the master included, joins an MPI_Allreduce
 * of the hit counts, and the estimate is compared with pi.  The amount of
 * work is fixed (all rounds run); the round at which the error first fell
 * below TOLERANCE is reported.  Chunk k of the run always holds the same
 * numbers and every chunk is counted once, so the hit count does not depend
 * on which worker got which chunk, nor on the number of ranks.
 *
 * Rank 0 prints one line:
 *   montecarlo: pi=3.141592654 error=1.2e-08 points=N hits=H rounds=R requests=Q converged_round=K
 * points = ROUNDS * CHUNKS * CHUNK_DOUBLES / 2 * GRID^2, requests = ROUNDS *
 * CHUNKS (chunks served; stop messages not counted), K = 0 if never.
 *
 * Built twice: montecarlo, and montecarlo-finst with -finstrument-functions.
 * get_coords is noinline so it stays a real, instrumented call; the two
 * other helpers called per number or per pair (next_uniform, count_hits)
 * are excluded with no_instrument_function, so the function records are
 * main, the round functions and get_coords (ROUNDS * CHUNKS *
 * CHUNK_DOUBLES / 2 calls, all on the workers).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define GRID 24           /* points per random pair: GRID * GRID */
#define TOLERANCE 1e-4    /* reported convergence threshold on |estimate - pi| */
#define TAG_REQUEST 1
#define TAG_CHUNK 2
#define TAG_STOP 3

static const double PI = 3.14159265358979323846;

/* splitmix64: the master's random-number generator */
static uint64_t rng_state = 0x243f6a8885a308d3u;

__attribute__((no_instrument_function)) static double next_uniform(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53; /* [0, 1) */
}

/* the coordinates of pair i of a chunk: called once per pair */
__attribute__((noinline)) void get_coords(const double *chunk, int i, double *u, double *v);
__attribute__((noinline)) void get_coords(const double *chunk, int i, double *u, double *v)
{
    *u = chunk[2 * i];
    *v = chunk[2 * i + 1];
}

/* points of the shifted GRID x GRID lattice inside the quarter disc */
__attribute__((no_instrument_function)) static uint64_t count_hits(double u, double v)
{
    const double h = 1.0 / GRID;
    uint64_t hits = 0;
    for (int a = 0; a < GRID; a++) {
        double x = (a + u) * h;
        for (int b = 0; b < GRID; b++) {
            double y = (b + v) * h;
            hits += x * x + y * y <= 1.0;
        }
    }
    return hits;
}

static int arg(int argc, char **argv, int i, int def)
{
    if (argc <= i)
        return def;
    char *end;
    long x = strtol(argv[i], &end, 10);
    return *end || x < 1 || x > 1000000000 ? -1 : (int)x;
}

/* master: serve CHUNKS chunks to whoever asks, then stop every worker */
static void serve_round(int workers, int chunks, int chunk_doubles, double *buf)
{
    int served = 0, stopped = 0, dummy;
    MPI_Status st;
    while (stopped < workers) {
        MPI_Recv(&dummy, 1, MPI_INT, MPI_ANY_SOURCE, TAG_REQUEST, MPI_COMM_WORLD, &st);
        if (served < chunks) {
            for (int i = 0; i < chunk_doubles; i++)
                buf[i] = next_uniform();
            MPI_Send(buf, chunk_doubles, MPI_DOUBLE, st.MPI_SOURCE, TAG_CHUNK, MPI_COMM_WORLD);
            served++;
        } else {
            MPI_Send(NULL, 0, MPI_DOUBLE, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
            stopped++;
        }
    }
}

/* worker: ask for chunks until told to stop; return this round's hits */
static uint64_t work_round(int chunk_doubles, double *buf)
{
    uint64_t hits = 0;
    int request = 0;
    MPI_Status st;
    for (;;) {
        MPI_Send(&request, 1, MPI_INT, 0, TAG_REQUEST, MPI_COMM_WORLD);
        MPI_Recv(buf, chunk_doubles, MPI_DOUBLE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG == TAG_STOP)
            return hits;
        for (int i = 0; i < chunk_doubles / 2; i++) {
            double u, v;
            get_coords(buf, i, &u, &v);
            hits += count_hits(u, v);
        }
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int rounds = arg(argc, argv, 1, 20);
    int chunks = arg(argc, argv, 2, 110);
    int chunk_doubles = arg(argc, argv, 3, 2048);
    if (rounds < 0 || chunks < 0 || chunk_doubles < 0 || chunk_doubles % 2 || size < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -np N(>=2) montecarlo [ROUNDS [CHUNKS [CHUNK_DOUBLES(even)]]]\n");
        MPI_Finalize();
        return 2;
    }
    double *buf = malloc(sizeof *buf * (size_t)chunk_doubles);
    if (!buf) {
        fprintf(stderr, "montecarlo: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    uint64_t total = 0;   /* hits of all rounds, all ranks */
    uint64_t points = 0;  /* points of all rounds */
    const uint64_t points_per_round = (uint64_t)chunks * (uint64_t)(chunk_doubles / 2) * GRID * GRID;
    int converged = 0;
    double estimate = 0.0;
    for (int round = 1; round <= rounds; round++) {
        uint64_t mine = 0, sum;
        if (rank == 0)
            serve_round(size - 1, chunks, chunk_doubles, buf);
        else
            mine = work_round(chunk_doubles, buf);
        MPI_Allreduce(&mine, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        total += sum;
        points += points_per_round;
        estimate = 4.0 * (double)total / (double)points;
        if (!converged && fabs(estimate - PI) < TOLERANCE)
            converged = round;
    }

    if (rank == 0)
        printf("montecarlo: pi=%.9f error=%.3e points=%llu hits=%llu rounds=%d requests=%llu "
               "converged_round=%d\n",
               estimate, fabs(estimate - PI), (unsigned long long)points, (unsigned long long)total,
               rounds, (unsigned long long)rounds * (unsigned long long)chunks, converged);
    free(buf);
    MPI_Finalize();
    return 0;
}
