/*
 * features.c - one of each MPI feature the tracer records, in a few
 * iterations, every result checked: the program behind
 * tests/features/run.sh, which checks the trace's records against the
 * counts below.  Not a model of any paper's program.
 *
 *   features [ITERATIONS]        (default 3; any number of ranks >= 2)
 *
 * Ranks form a ring: each sends to right = rank + 1 and receives from
 * left = rank - 1 (mod ranks).  One iteration, on every rank:
 *   1. six Isend/Irecv exchanges with the neighbours, completed by MPI_Wait,
 *      MPI_Waitall, MPI_Waitany, MPI_Waitsome, an MPI_Test loop and an
 *      MPI_Testall loop (test loops pause 10 us between tests: their
 *      MpiRequestTest records, and the RmaGroupSync records of 9b's
 *      MPI_Win_test loop, are the only ones whose count is not fixed);
 *   2. an Irecv of a tag nobody sends, cancelled: MPI_Cancel, MPI_Wait,
 *      MPI_Test_cancelled must say so;
 *   3. MPI_Ssend (into a posted Irecv), MPI_Issend (into an MPI_Recv);
 *   4. a 256 KiB MPI_Send into an MPI_Recv (above Open MPI's 4 KiB
 *      shared-memory eager limit and the 64 KiB one of its TCP transport:
 *      a rendezvous); even ranks send first;
 *   5. MPI_Sendrecv, and MPI_Sendrecv_replace receiving from
 *      MPI_ANY_SOURCE;
 *   6. master/worker: every worker sends to rank 0, which receives them
 *      with MPI_Recv from MPI_ANY_SOURCE and MPI_ANY_TAG, answers each (the
 *      workers receive the answer with MPI_ANY_TAG), then receives a second
 *      message of each worker with MPI_Irecv from MPI_ANY_SOURCE and
 *      MPI_Waitall;
 *   7. the 17 blocking collectives on MPI_COMM_WORLD; barrier, bcast,
 *      allreduce and scan on `half` (MPI_Comm_split: even and odd ranks);
 *      allreduce, alltoall and gather on `dup` (MPI_Comm_dup of world);
 *   8. the 17 nonblocking collectives on MPI_COMM_WORLD, completed by
 *      MPI_Wait, MPI_Waitall, MPI_Waitany, MPI_Waitsome, MPI_Test loops and
 *      MPI_Testall; Ibarrier and Iallreduce on `half`, Iallreduce on `dup`;
 *   9. one-sided communication on `win` (MPI_Win_create on `rev`, world in
 *      reverse order) and `awin` (MPI_Win_allocate on world):
 *      a. a fence epoch: MPI_Put to the right, MPI_Get from the left,
 *         MPI_Accumulate and MPI_Get_accumulate into rank 0;
 *      b. a PSCW epoch: rank 0 posts to the others and waits (in iteration
 *         1 with an MPI_Win_test loop), the others start, put into rank 0
 *         and complete;
 *      c. an exclusive lock of the right with a put, an MPI_Barrier, a
 *         shared lock of the left with a get, then MPI_Win_lock_all with
 *         MPI_Fetch_and_op and MPI_Compare_and_swap at rank 0,
 *         MPI_Win_flush_local and MPI_Win_flush of rank 0, a get from the
 *         right, MPI_Win_flush_all, MPI_Win_unlock_all.
 * `half`, `dup`, `rev` and the windows (also one of MPI_Win_create_dynamic,
 * unused) are made once, before the first iteration, `awin` zeroed under a
 * lock of its own; after the last the windows are freed and the error count
 * is summed with MPI_Allreduce: four more MpiCollectiveBegin/End in the run,
 * and one more RmaRequestLock/RmaReleaseLock.
 *
 * Records per iteration, rank r of n (rank 0: w = n - 1, others: w = 0):
 *   MpiIsend, MpiIsendComplete   7              (1: 6, 3: 1)
 *   MpiIrecvRequest              8 + w          (1: 6, 2: 1, 3: 1, 6: w)
 *   MpiIrecv                     7 + w
 *   MpiRequestCancelled          1
 *   MpiSend                      4 + (r ? 2 : w)
 *   MpiRecv                      4 + (r ? 1 : w)
 *   MpiCollectiveBegin/End       25             (7: 24, 9: 1)
 *   NonBlockingCollectiveRequest/Complete  20
 *   RmaCollectiveBegin/End       2              (fences; and per run 3 + 3
 *                                                for creating and freeing)
 *   RmaPut                       2 + (r ? 1 : 0)
 *   RmaGet                       3
 *   RmaAtomic                    4
 *   RmaRequestLock/ReleaseLock   3
 *   RmaGroupSync                 2, and on rank 0 one of level NONE per
 *                                failed MPI_Win_test (iteration 1)
 *   RmaOpCompleteNonBlocking     6 + (r != n - 1) + (r ? 1 : 0): as
 *                                Score-P, transfers to one target in one
 *                                epoch share a matching id, one for gets
 *                                and one for puts and atomics, each
 *                                completed locally once (a: 2 or 3, b: 1
 *                                on ranks but 0, c: 1 + 1 + 2, the atomics
 *                                by the flush_local, the get by the
 *                                flush_all)
 *   RmaOpCompleteRemote          5: the three gets (a, c), the put of
 *                                the exclusive lock and the flushed atomics
 *   RmaWinCreate/Destroy         3 per run
 * Wildcard receives per iteration: the MpiRecv of Sendrecv_replace
 * (ANY_SOURCE); on rank 0, w MpiRecv (ANY_SOURCE and ANY_TAG) and w MpiIrecv
 * (ANY_SOURCE); on the others one MpiRecv (ANY_TAG).
 *
 * Rank 0 prints one line:
 *   features: ranks=N iterations=I errors=E
 * and every rank exits with status 1 when any rank found a wrong result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#define BIG_INTS (64 * 1024) /* 256 KiB */

static int rank, size, left, right;
static int errors;

static void die(const char *call, int rc)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "features: rank %d: %s failed: %s\n", rank, call, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* every MPI call is checked */
#define M(call)                                                                \
    do {                                                                       \
        int rc_ = (call);                                                      \
        if (rc_ != MPI_SUCCESS)                                                \
            die(#call, rc_);                                                   \
    } while (0)

static void check(int ok, const char *what, int it)
{
    if (ok)
        return;
    fprintf(stderr, "features: rank %d, iteration %d: wrong result of %s\n", rank, it, what);
    errors++;
}

/* Between the tests of a test loop: a rank whose partner is late (or, with
 * more ranks than cores, descheduled) would otherwise test hundreds of
 * thousands of times, and the trace would be mostly MpiRequestTest. */
static void pause_a_little(void)
{
    struct timespec ts = {0, 10000};
    (void)nanosleep(&ts, NULL); /* woken early by a signal: the loop tests again */
}

/* MPI_Test until request *r completed */
static void test_loop(MPI_Request *r)
{
    int flag = 0;
    for (;;) {
        M(MPI_Test(r, &flag, MPI_STATUS_IGNORE));
        if (flag)
            return;
        pause_a_little();
    }
}

/* MPI_Testall until the n requests completed */
static void testall_loop(int n, MPI_Request *r)
{
    int flag = 0;
    for (;;) {
        M(MPI_Testall(n, r, &flag, MPI_STATUSES_IGNORE));
        if (flag)
            return;
        pause_a_little();
    }
}

/* the value rank r sends in iteration `it`, exchange `k` */
static int val(int r, int it, int k)
{
    return 1000 * r + 100 * it + k;
}

/* ---- 1. nonblocking point to point, every completion call ------------------ */

/* post Irecv from left (req[0]) and Isend to right (req[1]) of exchange k */
static void post(int *in, const int *out, MPI_Request req[2], int k)
{
    M(MPI_Irecv(in, 1, MPI_INT, left, k, MPI_COMM_WORLD, &req[0]));
    M(MPI_Isend(out, 1, MPI_INT, right, k, MPI_COMM_WORLD, &req[1]));
}

static void nonblocking(int it)
{
    MPI_Request req[2];
    MPI_Status st[2];
    int in, out, k, idx, n, done, indices[2];

    for (k = 0; k < 6; k++) {
        in = -1;
        out = val(rank, it, k);
        post(&in, &out, req, k);
        switch (k) {
        case 0:
            M(MPI_Wait(&req[0], &st[0]));
            M(MPI_Wait(&req[1], MPI_STATUS_IGNORE));
            check(st[0].MPI_SOURCE == left && st[0].MPI_TAG == k, "MPI_Wait status", it);
            break;
        case 1:
            M(MPI_Waitall(2, req, st));
            break;
        case 2:
            for (done = 0; done < 2; done++) {
                M(MPI_Waitany(2, req, &idx, MPI_STATUS_IGNORE));
                check(idx == 0 || idx == 1, "MPI_Waitany index", it);
            }
            break;
        case 3:
            for (done = 0; done < 2; done += n) {
                M(MPI_Waitsome(2, req, &n, indices, MPI_STATUSES_IGNORE));
                check(n >= 1 && n <= 2 - done, "MPI_Waitsome count", it);
            }
            break;
        case 4:
            test_loop(&req[0]);
            test_loop(&req[1]);
            break;
        default:
            testall_loop(2, req);
        }
        check(in == val(left, it, k), "Isend/Irecv", it);
        check(req[0] == MPI_REQUEST_NULL && req[1] == MPI_REQUEST_NULL, "completed requests", it);
    }
}

/* ---- 2. a cancelled receive ---------------------------------------------------- */

static void cancelled(int it)
{
    MPI_Request req;
    MPI_Status st;
    int in = -1, flag = 0;
    M(MPI_Irecv(&in, 1, MPI_INT, left, 999, MPI_COMM_WORLD, &req)); /* never sent */
    M(MPI_Cancel(&req));
    M(MPI_Wait(&req, &st));
    M(MPI_Test_cancelled(&st, &flag));
    check(flag && in == -1, "the cancelled MPI_Irecv", it);
}

/* ---- 3. synchronous sends; 4. a rendezvous send -------------------------------- */

static void synchronous(int it, int *big_in, int *big_out)
{
    MPI_Request req;
    int in = -1, out = val(rank, it, 10), i, ok = 1;

    M(MPI_Irecv(&in, 1, MPI_INT, left, 10, MPI_COMM_WORLD, &req));
    M(MPI_Ssend(&out, 1, MPI_INT, right, 10, MPI_COMM_WORLD));
    M(MPI_Wait(&req, MPI_STATUS_IGNORE));
    check(in == val(left, it, 10), "MPI_Ssend", it);

    in = -1, out = val(rank, it, 11);
    M(MPI_Issend(&out, 1, MPI_INT, right, 11, MPI_COMM_WORLD, &req));
    M(MPI_Recv(&in, 1, MPI_INT, left, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    M(MPI_Wait(&req, MPI_STATUS_IGNORE));
    check(in == val(left, it, 11), "MPI_Issend", it);

    /* even ranks send first: every odd rank receives first, so the ring of
     * blocking rendezvous sends cannot close into a cycle */
    for (i = 0; i < BIG_INTS; i++)
        big_out[i] = val(rank, it, i % 97);
    memset(big_in, 0, BIG_INTS * sizeof *big_in);
    if (rank % 2 == 0) {
        M(MPI_Send(big_out, BIG_INTS, MPI_INT, right, 12, MPI_COMM_WORLD));
        M(MPI_Recv(big_in, BIG_INTS, MPI_INT, left, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else {
        M(MPI_Recv(big_in, BIG_INTS, MPI_INT, left, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        M(MPI_Send(big_out, BIG_INTS, MPI_INT, right, 12, MPI_COMM_WORLD));
    }
    for (i = 0; i < BIG_INTS; i++)
        ok &= big_in[i] == val(left, it, i % 97);
    check(ok, "the 256 KiB MPI_Send", it);
}

/* ---- 5. Sendrecv in the ring -------------------------------------------------- */

static void sendrecv(int it)
{
    MPI_Status st;
    int in = -1, out = val(rank, it, 20), x = val(rank, it, 21);
    M(MPI_Sendrecv(&out, 1, MPI_INT, right, 20, &in, 1, MPI_INT, left, 20, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE));
    check(in == val(left, it, 20), "MPI_Sendrecv", it);
    /* tag 21 comes only from the left neighbour */
    M(MPI_Sendrecv_replace(&x, 1, MPI_INT, right, 21, MPI_ANY_SOURCE, 21, MPI_COMM_WORLD, &st));
    check(x == val(left, it, 21) && st.MPI_SOURCE == left, "MPI_Sendrecv_replace", it);
}

/* ---- 6. master/worker with wildcard receives --------------------------------- */

static void master_worker(int it)
{
    int w = size - 1, i, x;
    MPI_Status st;

    if (rank == 0) {
        MPI_Request *req = malloc((size_t)w * sizeof *req);
        int *got = calloc((size_t)size, sizeof *got), *in = malloc((size_t)w * sizeof *in);
        if (!req || !got || !in)
            die("malloc", MPI_ERR_NO_MEM);
        /* round one: any source, any tag (the tag is the worker's rank);
         * the answers go out only when all have arrived, so no second-round
         * message can match these wildcards */
        for (i = 0; i < w; i++) {
            M(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            check(st.MPI_SOURCE >= 1 && st.MPI_SOURCE < size && st.MPI_TAG == st.MPI_SOURCE &&
                      x == val(st.MPI_SOURCE, it, 30) && !got[st.MPI_SOURCE]++,
                  "MPI_Recv from MPI_ANY_SOURCE", it);
        }
        for (i = 1; i < size; i++) {
            x = val(0, it, i);
            M(MPI_Send(&x, 1, MPI_INT, i, 100 + it, MPI_COMM_WORLD));
        }
        /* round two: any source, tag 31 */
        for (i = 0; i < w; i++)
            M(MPI_Irecv(&in[i], 1, MPI_INT, MPI_ANY_SOURCE, 31, MPI_COMM_WORLD, &req[i]));
        M(MPI_Waitall(w, req, MPI_STATUSES_IGNORE));
        for (i = 0, x = 0; i < w; i++)
            x += in[i];
        check(x == (w * (w + 1) / 2) * 1000 + w * (100 * it + 31), "MPI_Irecv from MPI_ANY_SOURCE",
              it);
        free(req), free(got), free(in);
    } else {
        x = val(rank, it, 30);
        M(MPI_Send(&x, 1, MPI_INT, 0, rank, MPI_COMM_WORLD));
        M(MPI_Recv(&x, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        check(x == val(0, it, rank) && st.MPI_TAG == 100 + it, "MPI_Recv with MPI_ANY_TAG", it);
        x = val(rank, it, 31);
        M(MPI_Send(&x, 1, MPI_INT, 0, 31, MPI_COMM_WORLD));
    }
}

/* ---- 7. blocking collectives ----------------------------------------------------
 * World: every rank contributes rank + 1 (or blocks of it), so each result
 * has a closed form. */

static int tri(int n) /* 1 + 2 + ... + n */
{
    return n * (n + 1) / 2;
}

static void blocking(int it, MPI_Comm half, MPI_Comm dup, int *a, int *b, int *counts,
                     int *displs, MPI_Datatype *types)
{
    int n = size, me = rank + 1, x, y, i, ok, hn, hr;

    M(MPI_Barrier(MPI_COMM_WORLD));
    x = rank == 0 ? 42 + it : -1;
    M(MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD));
    check(x == 42 + it, "MPI_Bcast", it);
    y = -1;
    M(MPI_Reduce(&me, &y, 1, MPI_INT, MPI_SUM, n - 1, MPI_COMM_WORLD));
    check(rank != n - 1 || y == tri(n), "MPI_Reduce", it);
    M(MPI_Allreduce(&me, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    check(y == tri(n), "MPI_Allreduce", it);

    /* gather / gatherv: rank i's value at place i */
    M(MPI_Gather(&me, 1, MPI_INT, a, 1, MPI_INT, 0, MPI_COMM_WORLD));
    for (i = 0, ok = 1; rank == 0 && i < n; i++)
        ok &= a[i] == i + 1;
    check(ok, "MPI_Gather", it);
    for (i = 0; i < n; i++)
        counts[i] = 1, displs[i] = n - 1 - i; /* reversed */
    M(MPI_Gatherv(&me, 1, MPI_INT, a, counts, displs, MPI_INT, 0, MPI_COMM_WORLD));
    for (i = 0, ok = 1; rank == 0 && i < n; i++)
        ok &= a[n - 1 - i] == i + 1;
    check(ok, "MPI_Gatherv", it);

    /* scatter / scatterv from the last rank: b[i] = 10 i */
    for (i = 0; i < n; i++)
        b[i] = 10 * i;
    M(MPI_Scatter(b, 1, MPI_INT, &x, 1, MPI_INT, n - 1, MPI_COMM_WORLD));
    check(x == 10 * rank, "MPI_Scatter", it);
    M(MPI_Scatterv(b, counts, displs, MPI_INT, &x, 1, MPI_INT, n - 1, MPI_COMM_WORLD));
    check(x == 10 * (n - 1 - rank), "MPI_Scatterv", it);

    M(MPI_Allgather(&me, 1, MPI_INT, a, 1, MPI_INT, MPI_COMM_WORLD));
    for (i = 0, ok = 1; i < n; i++)
        ok &= a[i] == i + 1;
    check(ok, "MPI_Allgather", it);
    M(MPI_Allgatherv(&me, 1, MPI_INT, a, counts, displs, MPI_INT, MPI_COMM_WORLD));
    for (i = 0, ok = 1; i < n; i++)
        ok &= a[n - 1 - i] == i + 1;
    check(ok, "MPI_Allgatherv", it);

    /* all to all: b[j] = 100 rank + j goes to rank j */
    for (i = 0; i < n; i++)
        b[i] = 100 * rank + i, counts[i] = 1, displs[i] = i, types[i] = MPI_INT;
    M(MPI_Alltoall(b, 1, MPI_INT, a, 1, MPI_INT, MPI_COMM_WORLD));
    for (i = 0, ok = 1; i < n; i++)
        ok &= a[i] == 100 * i + rank;
    check(ok, "MPI_Alltoall", it);
    memset(a, 0, (size_t)n * sizeof *a);
    M(MPI_Alltoallv(b, counts, displs, MPI_INT, a, counts, displs, MPI_INT, MPI_COMM_WORLD));
    for (i = 0, ok = 1; i < n; i++)
        ok &= a[i] == 100 * i + rank;
    check(ok, "MPI_Alltoallv", it);
    memset(a, 0, (size_t)n * sizeof *a);
    for (i = 0; i < n; i++)
        displs[i] = i * (int)sizeof(int); /* Alltoallw: displacements in bytes */
    M(MPI_Alltoallw(b, counts, displs, types, a, counts, displs, types, MPI_COMM_WORLD));
    for (i = 0, ok = 1; i < n; i++)
        ok &= a[i] == 100 * i + rank;
    check(ok, "MPI_Alltoallw", it);

    /* reduce_scatter: b[j] = rank + j; block j of the sum goes to rank j */
    for (i = 0; i < n; i++)
        b[i] = rank + i;
    M(MPI_Reduce_scatter(b, &x, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    check(x == tri(n - 1) + n * rank, "MPI_Reduce_scatter", it);
    x = -1;
    M(MPI_Reduce_scatter_block(b, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    check(x == tri(n - 1) + n * rank, "MPI_Reduce_scatter_block", it);
    M(MPI_Scan(&me, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    check(x == tri(rank + 1), "MPI_Scan", it);
    x = -1;
    M(MPI_Exscan(&me, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    check(rank == 0 || x == tri(rank), "MPI_Exscan", it);

    /* half: ranks of one parity, in rank order */
    M(MPI_Comm_size(half, &hn));
    M(MPI_Comm_rank(half, &hr));
    M(MPI_Barrier(half));
    x = hr == 0 ? rank : -1;
    M(MPI_Bcast(&x, 1, MPI_INT, 0, half));
    check(x == rank % 2, "MPI_Bcast on half", it);
    M(MPI_Allreduce(&me, &y, 1, MPI_INT, MPI_SUM, half));
    /* ranks p, p + 2, ..., p + 2 (hn - 1), plus one each */
    check(y == hn * (rank % 2 + 1) + hn * (hn - 1), "MPI_Allreduce on half", it);
    M(MPI_Scan(&hr, &x, 1, MPI_INT, MPI_SUM, half));
    check(x == tri(hr), "MPI_Scan on half", it);

    /* dup: as world */
    M(MPI_Allreduce(&me, &y, 1, MPI_INT, MPI_MAX, dup));
    check(y == n, "MPI_Allreduce on dup", it);
    for (i = 0; i < n; i++)
        b[i] = 100 * rank + i;
    M(MPI_Alltoall(b, 1, MPI_INT, a, 1, MPI_INT, dup));
    for (i = 0, ok = 1; i < n; i++)
        ok &= a[i] == 100 * i + rank;
    check(ok, "MPI_Alltoall on dup", it);
    M(MPI_Gather(&me, 1, MPI_INT, a, 1, MPI_INT, n - 1, dup));
    for (i = 0, ok = 1; rank == n - 1 && i < n; i++)
        ok &= a[i] == i + 1;
    check(ok, "MPI_Gather on dup", it);
}

/* ---- 8. nonblocking collectives ------------------------------------------------ */

enum { NB = 20 };

static void nonblocking_coll(int it, MPI_Comm half, MPI_Comm dup, int *a, int *b, int *c,
                             int *counts, int *displs, int *wdispls, MPI_Datatype *types)
{
    MPI_Request req[NB];
    int n = size, me = rank + 1, v[8], i, ok, idx, done, cnt, ind[NB], hn, hr;

    for (i = 0; i < 8; i++)
        v[i] = -1;
    for (i = 0; i < n; i++) {
        counts[i] = 1, displs[i] = i, wdispls[i] = i * (int)sizeof(int), types[i] = MPI_INT;
        b[i] = 100 * rank + i;
    }

    /* Ibarrier and Ibcast with MPI_Wait */
    M(MPI_Ibarrier(MPI_COMM_WORLD, &req[0]));
    M(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
    v[0] = rank == 0 ? 7 + it : -1;
    M(MPI_Ibcast(&v[0], 1, MPI_INT, 0, MPI_COMM_WORLD, &req[0]));
    M(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
    check(v[0] == 7 + it, "MPI_Ibcast", it);

    /* Iallreduce, Ireduce, Iscan, Iexscan with MPI_Waitall */
    M(MPI_Iallreduce(&me, &v[1], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]));
    M(MPI_Ireduce(&me, &v[2], 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &req[1]));
    M(MPI_Iscan(&me, &v[3], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[2]));
    M(MPI_Iexscan(&me, &v[4], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[3]));
    M(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
    check(v[1] == tri(n), "MPI_Iallreduce", it);
    check(rank != 0 || v[2] == tri(n), "MPI_Ireduce", it);
    check(v[3] == tri(rank + 1), "MPI_Iscan", it);
    check(rank == 0 || v[4] == tri(rank), "MPI_Iexscan", it);

    /* Igather, Igatherv, Iscatter, Iscatterv with MPI_Waitany */
    M(MPI_Igather(&me, 1, MPI_INT, a, 1, MPI_INT, 0, MPI_COMM_WORLD, &req[0]));
    M(MPI_Igatherv(&me, 1, MPI_INT, c, counts, displs, MPI_INT, n - 1, MPI_COMM_WORLD, &req[1]));
    M(MPI_Iscatter(b, 1, MPI_INT, &v[5], 1, MPI_INT, 0, MPI_COMM_WORLD, &req[2]));
    M(MPI_Iscatterv(b, counts, displs, MPI_INT, &v[6], 1, MPI_INT, n - 1, MPI_COMM_WORLD,
                    &req[3]));
    for (done = 0; done < 4; done++)
        M(MPI_Waitany(4, req, &idx, MPI_STATUS_IGNORE));
    for (i = 0, ok = 1; i < n; i++)
        ok &= (rank != 0 || a[i] == i + 1) && (rank != n - 1 || c[i] == i + 1);
    check(ok, "MPI_Igather, MPI_Igatherv", it);
    check(v[5] == rank && v[6] == 100 * (n - 1) + rank, "MPI_Iscatter, MPI_Iscatterv", it);

    /* Iallgather, Iallgatherv with MPI_Waitsome */
    M(MPI_Iallgather(&me, 1, MPI_INT, a, 1, MPI_INT, MPI_COMM_WORLD, &req[0]));
    M(MPI_Iallgatherv(&me, 1, MPI_INT, c, counts, displs, MPI_INT, MPI_COMM_WORLD, &req[1]));
    for (done = 0; done < 2; done += cnt)
        M(MPI_Waitsome(2, req, &cnt, ind, MPI_STATUSES_IGNORE));
    for (i = 0, ok = 1; i < n; i++)
        ok &= a[i] == i + 1 && c[i] == i + 1;
    check(ok, "MPI_Iallgather, MPI_Iallgatherv", it);

    /* Ialltoall with an MPI_Test loop; Ialltoallv, Ialltoallw with MPI_Testall */
    M(MPI_Ialltoall(b, 1, MPI_INT, a, 1, MPI_INT, MPI_COMM_WORLD, &req[0]));
    test_loop(&req[0]);
    for (i = 0, ok = 1; i < n; i++)
        ok &= a[i] == 100 * i + rank;
    check(ok, "MPI_Ialltoall", it);
    M(MPI_Ialltoallv(b, counts, displs, MPI_INT, a, counts, displs, MPI_INT, MPI_COMM_WORLD,
                     &req[0]));
    M(MPI_Ialltoallw(b, counts, wdispls, types, c, counts, wdispls, types, MPI_COMM_WORLD,
                     &req[1]));
    testall_loop(2, req);
    for (i = 0, ok = 1; i < n; i++)
        ok &= a[i] == 100 * i + rank && c[i] == 100 * i + rank;
    check(ok, "MPI_Ialltoallv, MPI_Ialltoallw", it);

    /* Ireduce_scatter, Ireduce_scatter_block with MPI_Test loops */
    for (i = 0; i < n; i++)
        b[i] = rank + i;
    M(MPI_Ireduce_scatter(b, &v[0], counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]));
    M(MPI_Ireduce_scatter_block(b, &v[1], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[1]));
    test_loop(&req[0]);
    test_loop(&req[1]);
    check(v[0] == tri(n - 1) + n * rank && v[1] == v[0], "MPI_Ireduce_scatter(_block)", it);

    /* half and dup */
    M(MPI_Comm_size(half, &hn));
    M(MPI_Comm_rank(half, &hr));
    M(MPI_Ibarrier(half, &req[0]));
    M(MPI_Iallreduce(&me, &v[2], 1, MPI_INT, MPI_SUM, half, &req[1]));
    M(MPI_Iallreduce(&me, &v[3], 1, MPI_INT, MPI_MIN, dup, &req[2]));
    M(MPI_Waitall(3, req, MPI_STATUSES_IGNORE));
    check(v[2] == hn * (rank % 2 + 1) + hn * (hn - 1), "MPI_Iallreduce on half", it);
    check(v[3] == 1, "MPI_Iallreduce on dup", it);
}

/* ---- 9. one-sided communication ------------------------------------------------
 * `win` (MPI_Win_create) lies on `rev`, MPI_COMM_WORLD in reverse order, so
 * its ranks are not world ranks: crank(r) is world rank r's rank in it.
 * wbuf: [0] the put slot, [1] the get slot, [2] rank 0's accumulate
 * counter, [3 + r] rank 0's PSCW slot of rank r.  `awin` (MPI_Win_allocate,
 * world): abuf[0], abuf[1] the put slots of even and odd iterations (a
 * neighbour a step ahead cannot overwrite one still read), abuf[2] rank 0's
 * fetch-and-op counter, abuf[3] its compare-and-swap slot. */

static int crank(int r)
{
    return size - 1 - r;
}

static void one_sided(int it, MPI_Win win, int *wbuf, MPI_Win awin, MPI_Group g0,
                      MPI_Group gothers)
{
    int x, y, z, one = 1, old = -1, res = -1, zero = 0, mine = rank + 1, k, flag = 0, sum = -1;

    /* a. fence epoch: a put to the right, a get from the left, an
     * accumulate and a get-accumulate into rank 0 */
    wbuf[1] = val(rank, it, 41);
    if (rank == 0)
        wbuf[2] = 0;
    M(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    x = val(rank, it, 40), y = -1;
    M(MPI_Put(&x, 1, MPI_INT, crank(right), 0, 1, MPI_INT, win));
    M(MPI_Get(&y, 1, MPI_INT, crank(left), 1, 1, MPI_INT, win));
    M(MPI_Accumulate(&one, 1, MPI_INT, crank(0), 2, 1, MPI_INT, MPI_SUM, win));
    M(MPI_Get_accumulate(&one, 1, MPI_INT, &sum, 1, MPI_INT, crank(0), 2, 1, MPI_INT, MPI_SUM,
                         win));
    M(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    check(wbuf[0] == val(left, it, 40) && y == val(left, it, 41), "MPI_Put, MPI_Get (fence)", it);
    check(rank != 0 || wbuf[2] == 2 * size, "MPI_Accumulate (fence)", it);
    check(sum >= 0 && sum < 2 * size, "MPI_Get_accumulate (fence)", it);

    /* b. PSCW: rank 0 exposes its window to the others, which put into it;
     * in iteration 1 it waits with an MPI_Win_test loop */
    if (rank == 0) {
        for (k = 1; k < size; k++)
            wbuf[3 + k] = -1;
        M(MPI_Win_post(gothers, 0, win));
        if (it == 1)
            for (;;) {
                M(MPI_Win_test(win, &flag));
                if (flag)
                    break;
                pause_a_little();
            }
        else
            M(MPI_Win_wait(win));
        for (k = 1, x = 1; k < size; k++)
            x &= wbuf[3 + k] == val(k, it, 42);
        check(x, "MPI_Put (post/start/complete/wait)", it);
    } else {
        x = val(rank, it, 42);
        M(MPI_Win_start(g0, 0, win));
        M(MPI_Put(&x, 1, MPI_INT, crank(0), 3 + rank, 1, MPI_INT, win));
        M(MPI_Win_complete(win));
    }

    /* c. passive target: an exclusive lock for a put to the right; after a
     * barrier a shared lock for a get from the left; then lock_all with a
     * fetch-and-op and a compare-and-swap at rank 0 (flushed locally, then
     * fully) and a get of what this rank put (flushed before the unlock) */
    x = val(rank, it, 50);
    M(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, awin));
    M(MPI_Put(&x, 1, MPI_INT, right, it % 2, 1, MPI_INT, awin));
    M(MPI_Win_unlock(right, awin));
    M(MPI_Barrier(MPI_COMM_WORLD));
    y = -1;
    M(MPI_Win_lock(MPI_LOCK_SHARED, left, 0, awin));
    M(MPI_Get(&y, 1, MPI_INT, left, it % 2, 1, MPI_INT, awin));
    M(MPI_Win_unlock(left, awin));
    check(y == val((left + size - 1) % size, it, 50), "MPI_Get (shared lock)", it);
    z = -1;
    M(MPI_Win_lock_all(0, awin));
    M(MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 2, MPI_SUM, awin));
    M(MPI_Compare_and_swap(&mine, &zero, &res, MPI_INT, 0, 3, awin));
    M(MPI_Win_flush_local(0, awin));
    M(MPI_Win_flush(0, awin));
    M(MPI_Get(&z, 1, MPI_INT, right, it % 2, 1, MPI_INT, awin));
    M(MPI_Win_flush_all(awin));
    M(MPI_Win_unlock_all(awin));
    /* the barriers keep each iteration's fetch-and-ops apart */
    check(old >= it * size && old < (it + 1) * size, "MPI_Fetch_and_op", it);
    check(res >= 0 && res <= size, "MPI_Compare_and_swap", it);
    check(z == x, "MPI_Get (lock_all)", it);
}

int main(int argc, char **argv)
{
    int iterations = 3, it, all = 0, *buf, *big, *wbuf, *abuf = NULL, r0;
    MPI_Comm half, dup, rev;
    MPI_Datatype *types;
    MPI_Win win, awin, dwin;
    MPI_Group wg, g0, gothers;

    if (argc == 2) {
        char *end;
        long x = strtol(argv[1], &end, 10);
        iterations = *end || x < 1 || x > 100000 ? -1 : (int)x;
    }
    if (argc > 2 || iterations < 0) {
        fprintf(stderr, "usage: features [ITERATIONS]   (1 to 100000, default 3)\n");
        return 2;
    }
    M(MPI_Init(&argc, &argv));
    M(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    M(MPI_Comm_size(MPI_COMM_WORLD, &size));
    if (size < 2) {
        if (rank == 0)
            fprintf(stderr, "features: needs at least 2 ranks\n");
        M(MPI_Finalize());
        return 2;
    }
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;
    /* a, b, c, counts, displs, wdispls: size ints each; two big buffers */
    buf = malloc(6 * (size_t)size * sizeof *buf);
    big = malloc(2 * (size_t)BIG_INTS * sizeof *big);
    types = malloc((size_t)size * sizeof *types);
    wbuf = calloc(3 + (size_t)size, sizeof *wbuf);
    if (!buf || !big || !types || !wbuf)
        die("malloc", MPI_ERR_NO_MEM);

    M(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
    M(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    /* one-sided: three windows, and the groups of the PSCW epochs (in
     * rev's ranks: world rank 0 is rev's last) */
    M(MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &rev));
    M(MPI_Win_create(wbuf, (MPI_Aint)((3 + (size_t)size) * sizeof *wbuf), sizeof *wbuf,
                     MPI_INFO_NULL, rev, &win));
    M(MPI_Win_allocate(4 * sizeof *abuf, sizeof *abuf, MPI_INFO_NULL, MPI_COMM_WORLD, &abuf,
                       &awin));
    M(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dwin));
    /* zeroed before anyone accesses it: the first access follows the
     * MPI_Barrier of the first iteration's blocking collectives */
    M(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, awin));
    memset(abuf, 0, 4 * sizeof *abuf);
    M(MPI_Win_unlock(rank, awin));
    M(MPI_Win_get_group(win, &wg));
    r0 = crank(0);
    M(MPI_Group_incl(wg, 1, &r0, &g0));
    M(MPI_Group_excl(wg, 1, &r0, &gothers));
    for (it = 0; it < iterations; it++) {
        int *a = buf, *b = a + size, *c = b + size, *counts = c + size;
        int *displs = counts + size, *wdispls = displs + size;
        nonblocking(it);
        cancelled(it);
        synchronous(it, big, big + BIG_INTS);
        sendrecv(it);
        master_worker(it);
        blocking(it, half, dup, a, b, counts, displs, types);
        nonblocking_coll(it, half, dup, a, b, c, counts, displs, wdispls, types);
        one_sided(it, win, wbuf, awin, g0, gothers);
    }
    M(MPI_Group_free(&g0));
    M(MPI_Group_free(&gothers));
    M(MPI_Group_free(&wg));
    M(MPI_Win_free(&dwin));
    M(MPI_Win_free(&awin));
    M(MPI_Win_free(&win));
    M(MPI_Comm_free(&rev));
    M(MPI_Comm_free(&half));
    M(MPI_Comm_free(&dup));
    M(MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    if (rank == 0)
        printf("features: ranks=%d iterations=%d errors=%d\n", size, iterations, all);
    free(buf), free(big), free(types), free(wbuf);
    M(MPI_Finalize());
    return all ? 1 : 0;
}
