/*
 * collalgo.c - exit times of one collective operation by a message-based
 * algorithm (collalgo.h), for `unperturb simulate`.
 *
 * Place in the data flow: simulate.c -> up_ca_times (here) -> exit times.
 * Pure computation: no I/O, no global state.
 *
 * Every algorithm is a fixed schedule of sends and receives, so it is not
 * simulated with an event queue: each one walks its schedule in an order in
 * which every message is sent before it is received (increasing relative
 * rank for trees that fan out, decreasing for trees that fan in, round by
 * round for exchanges, all sends of a round before its receives), with the
 * message rule of collalgo.h:
 *   send b bytes a -> d at a's clock t:  clock_a = t + o_s,
 *                                        arrival = arrive(a, d, b, t + o_s)
 *   receive on d:                        clock_d = max(clock_d, arrival) + o_r
 *   combine b bytes:                     clock += llround(b * reduce_per_byte)
 * The clock of member i is exit[i] itself, which starts at enter[i], so an
 * exit is never before its entry.  The schedules, the payload each one takes
 * from the members' sent / received bytes and the linear barrier of speedy's
 * Table 1 are written out in docs/collectives.md.
 *
 * Cost: O(n log n) per call for trees and recursive doubling, O(n^2) for
 * rings, pairwise and linear all-to-all (n - 1 rounds of n messages).
 * Scratch: 3n + 1 words, on the stack for n <= CA_STACK_N.
 */
#include <math.h>
#include <string.h>

#include "model/collalgo.h"

#define CA_STACK_N 64

/* One call's state.  The scratch arrays are indexed by member. */
typedef struct ca {
    uint32_t n;
    uint64_t *clk;       /* n: each member's clock (the caller's exit[]) */
    uint64_t *arr;       /* n: arrival of the message a member receives next */
    uint64_t *blk;       /* n: bytes of each member's block */
    uint64_t *pre;       /* n + 1: prefix sums of blk in relative-rank order */
    const up_ca_net *net;
} ca;

static inline uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

static inline uint64_t ceil_div(uint64_t a, uint64_t b) { return b ? a / b + (a % b != 0) : a; }

/* lowest set bit (rel > 0) */
static inline uint64_t lowbit(uint64_t x) { return x & (~x + 1); }

/* member index of relative rank rel in a tree rooted at root */
static inline uint32_t real_of(const ca *c, uint32_t root, uint64_t rel)
{
    uint64_t i = rel + root;
    return (uint32_t)(i >= c->n ? i - c->n : i);
}

/* A send of `bytes` from a to d at a's clock: returns its arrival at d. */
static uint64_t snd(ca *c, uint32_t a, uint32_t d, uint64_t bytes)
{
    uint64_t t = c->clk[a] + c->net->o_s;
    c->clk[a] = t;
    return c->net->arrive ? c->net->arrive(c->net->ctx, a, d, bytes, t) : t;
}

/* A receive on d of a message arriving at t, then `red` ticks of combining. */
static inline void rcv(ca *c, uint32_t d, uint64_t t, uint64_t red)
{
    c->clk[d] = max64(c->clk[d], t) + c->net->o_r + red;
}

/* Ticks to combine `bytes` received bytes: llround(bytes * reduce_per_byte),
 * saturating (up_ticks_round). */
static uint64_t red_cost(const up_ca_net *net, uint64_t bytes)
{
    return up_ticks_round((double)bytes * net->reduce_per_byte);
}

/* ---- trees ------------------------------------------------------------------- */

/* pre[k] = sum of blk over relative ranks 0..k-1 */
static void prefix(ca *c, uint32_t root)
{
    uint32_t k;
    c->pre[0] = 0;
    for (k = 0; k < c->n; k++)
        c->pre[k + 1] = c->pre[k] + c->blk[real_of(c, root, k)];
}

/* blocks of relative ranks [lo, lo + cnt) clipped to n */
static uint64_t subtree_bytes(const ca *c, uint64_t lo, uint64_t cnt)
{
    uint64_t hi = lo + cnt < c->n ? lo + cnt : c->n;
    return c->pre[hi] - c->pre[lo];
}

/* Binomial fan-out from root (MPICH): relative rank rel receives from
 * rel - lowbit(rel), then sends to rel + m for m = lowbit(rel)/2, ..., 1
 * (the root: m from the largest power of two below n).  bcast: every
 * message `bytes`; scatter (blocks): the child's subtree's blocks. */
static void fan_out(ca *c, uint32_t root, bool blocks, uint64_t bytes)
{
    uint64_t top = 1, rel, m;
    while (top < c->n)
        top <<= 1;
    if (blocks)
        prefix(c, root);
    for (rel = 0; rel < c->n; rel++) {
        uint32_t i = real_of(c, root, rel);
        if (rel) {
            rcv(c, i, c->arr[i], 0);
            m = lowbit(rel);
        } else {
            m = top;
        }
        for (m >>= 1; m > 0; m >>= 1)
            if (rel + m < c->n) {
                uint32_t ch = real_of(c, root, rel + m);
                c->arr[ch] = snd(c, i, ch, blocks ? subtree_bytes(c, rel + m, m) : bytes);
            }
    }
}

/* Binomial fan-in to root (MPICH): relative rank rel receives from rel + m
 * for m = 1, 2, ... below lowbit(rel), then sends to rel - lowbit(rel).
 * gather (blocks): its subtree's blocks; reduce: `bytes`, each receive
 * followed by combining them. */
static void fan_in(ca *c, uint32_t root, bool blocks, uint64_t bytes, bool reduce)
{
    uint64_t rel, m, red = reduce ? red_cost(c->net, bytes) : 0;
    if (blocks)
        prefix(c, root);
    for (rel = c->n; rel-- > 0;) {
        uint32_t i = real_of(c, root, rel);
        for (m = 1; m < c->n; m <<= 1) {
            if (rel & m)
                break;
            if (rel + m < c->n)
                rcv(c, i, c->arr[real_of(c, root, rel + m)], red);
        }
        if (rel)
            c->arr[i] = snd(c, i, real_of(c, root, rel - m),
                            blocks ? subtree_bytes(c, rel, m) : bytes);
    }
}

/* ---- linear ------------------------------------------------------------------ */

/* root sends to every other member in rank order (blocks: blk[i], else bytes) */
static void lin_out(ca *c, uint32_t root, bool blocks, uint64_t bytes)
{
    uint32_t i;
    for (i = 0; i < c->n; i++)
        if (i != root)
            rcv(c, i, snd(c, root, i, blocks ? c->blk[i] : bytes), 0);
}

/* every other member sends to root, root receives in rank order */
static void lin_in(ca *c, uint32_t root, bool blocks, uint64_t bytes, bool reduce)
{
    uint64_t red = reduce ? red_cost(c->net, bytes) : 0;
    uint32_t i;
    for (i = 0; i < c->n; i++)
        if (i != root)
            c->arr[i] = snd(c, i, root, blocks ? c->blk[i] : bytes);
    for (i = 0; i < c->n; i++)
        if (i != root)
            rcv(c, root, c->arr[i], red);
}

/* ---- exchange rounds --------------------------------------------------------- */

/* One round: every member i sends to (i + k) mod n (blocks: blk[i] bytes,
 * else `bytes`), then receives from (i - k) mod n and combines `red`. */
static void shift_round(ca *c, uint32_t k, bool blocks, uint64_t bytes, uint64_t red)
{
    uint32_t i, n = c->n;
    for (i = 0; i < n; i++) {
        uint32_t d = (uint32_t)(((uint64_t)i + k) % n);
        c->arr[d] = snd(c, i, d, blocks ? c->blk[i] : bytes);
    }
    for (i = 0; i < n; i++)
        rcv(c, i, c->arr[i], red);
}

/* One round among members 0..lim-1: i exchanges `bytes` with i ^ m (if
 * below lim), then combines `red`. */
static void xor_round(ca *c, uint32_t lim, uint64_t m, uint64_t bytes, uint64_t red)
{
    uint32_t i;
    for (i = 0; i < lim; i++)
        if ((i ^ m) < lim)
            c->arr[i ^ m] = snd(c, i, (uint32_t)(i ^ m), bytes);
    for (i = 0; i < lim; i++)
        if ((i ^ m) < lim)
            rcv(c, i, c->arr[i], red);
}

static uint32_t pow2_floor(uint32_t n)
{
    uint32_t p = 1;
    while (p <= n / 2)
        p <<= 1;
    return p;
}

/* Non-power-of-two fold: members p..n-1 send `bytes` to i - p, which
 * receives and combines `red`. */
static void fold_in(ca *c, uint32_t p, uint64_t bytes, uint64_t red)
{
    uint32_t i;
    for (i = p; i < c->n; i++)
        c->arr[i - p] = snd(c, i, i - p, bytes);
    for (i = 0; i + p < c->n; i++)
        rcv(c, i, c->arr[i], red);
}

/* ... and the result back: i < n - p sends `bytes` to i + p. */
static void fold_out(ca *c, uint32_t p, uint64_t bytes)
{
    uint32_t i;
    for (i = 0; i + p < c->n; i++)
        rcv(c, i + p, snd(c, i, i + p, bytes), 0);
}

/* ---- the linear barrier: speedy Section 3.3, Table 1 ------------------------- */

/* Sorts a[0..n) ascending: insertion for few, else LSD radix by bytes of
 * a[i] - min (as many passes as the spread needs), tmp[0..n) scratch. */
static void sort_u64(uint64_t *a, uint64_t *tmp, uint32_t n)
{
    uint64_t lo = UINT64_MAX, hi = 0, *src = a, *dst = tmp, *sw;
    uint32_t i, j, shift;
    size_t cnt[256];
    if (n < 32) {
        for (i = 1; i < n; i++) {
            uint64_t x = a[i];
            for (j = i; j > 0 && a[j - 1] > x; j--)
                a[j] = a[j - 1];
            a[j] = x;
        }
        return;
    }
    for (i = 0; i < n; i++) {
        lo = a[i] < lo ? a[i] : lo;
        hi = a[i] > hi ? a[i] : hi;
    }
    for (shift = 0; shift < 64 && ((hi - lo) >> shift) != 0; shift += 8) {
        size_t sum = 0;
        memset(cnt, 0, sizeof cnt);
        for (i = 0; i < n; i++)
            cnt[((src[i] - lo) >> shift) & 255]++;
        for (j = 0; j < 256; j++) {
            size_t c = cnt[j];
            cnt[j] = sum;
            sum += c;
        }
        for (i = 0; i < n; i++)
            dst[cnt[((src[i] - lo) >> shift) & 255]++] = src[i];
        sw = src, src = dst, dst = sw;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
}

/* first time ready + k * step (k >= 1) at or after t; step 0: max(ready, t) */
static uint64_t first_check(uint64_t ready, uint64_t step, uint64_t t)
{
    uint64_t k;
    if (!step)
        return max64(ready, t);
    k = t > ready ? ceil_div(t - ready, step) : 0;
    return ready + (k ? k : 1) * step;
}

static void barrier_linear(ca *c, const up_ca_barrier *bp, uint32_t master)
{
    static const up_ca_barrier none = {0, 0, 0, 0, 0, true, 0};
    uint32_t i, k = 0, n = c->n;
    uint64_t all, detect, lower;
    if (!bp)
        bp = &none;
    for (i = 0; i < n; i++) {
        c->clk[i] += bp->entry;
        c->blk[i] = c->clk[i]; /* ready_i */
    }
    /* the slaves' arrivals at the master */
    for (i = 0; i < n; i++)
        if (i != master)
            c->arr[k++] = bp->by_msgs ? snd(c, i, master, bp->msg_size) : c->clk[i];
    /* the master has them all: received in order of arrival */
    all = c->blk[master];
    if (bp->by_msgs && c->net->o_r) {
        sort_u64(c->arr, c->pre, k);
        for (i = 0; i < k; i++)
            all = max64(all, c->arr[i]) + c->net->o_r;
    } else {    /* no receive cost: the order does not matter */
        for (i = 0; i < k; i++)
            all = max64(all, c->arr[i]);
    }
    detect = first_check(c->blk[master], bp->check, all);
    lower = detect + bp->model;
    /* releases in rank order; each slave sees its own at an exit check */
    c->clk[master] = lower;
    for (i = 0; i < n; i++) {
        uint64_t r, seen;
        if (i == master)
            continue;
        r = bp->by_msgs ? snd(c, master, i, bp->msg_size) : lower;
        seen = first_check(c->blk[i], bp->exit_check, max64(r, c->clk[i]));
        c->clk[i] = seen + (bp->by_msgs ? c->net->o_r : 0) + bp->exit;
    }
    c->clk[master] += bp->exit;
}

/* ---- payloads from the members' MpiCollectiveEnd bytes ----------------------- */

static uint64_t at(const uint64_t *v, uint32_t i) { return v ? v[i] : 0; }

static uint64_t vmax(const uint64_t *v, uint32_t n, uint32_t skip)
{
    uint64_t m = 0;
    uint32_t i;
    for (i = 0; v && i < n; i++)
        if (i != skip)
            m = max64(m, v[i]);
    return m;
}

/* scan / exscan element bytes b: member i reports sent (n - i) b and
 * received (i + 1) b (exscan: (n - i - 1) b and i b) */
static uint64_t scan_bytes(const up_ca_in *in)
{
    uint64_t b = 0, n = in->n, i;
    for (i = 0; i < n; i++) {
        uint64_t ds = in->exscan ? n - i - 1 : n - i, dr = in->exscan ? i : i + 1;
        if (ds)
            b = max64(b, at(in->sent, (uint32_t)i) / ds);
        if (dr)
            b = max64(b, at(in->recvd, (uint32_t)i) / dr);
    }
    return b;
}

/* ---- algorithms accepted per kind, defaults ---------------------------------- */

#define A(x) (1u << (x))
static const struct {
    unsigned ok;   /* accepted algorithms (bits) */
    unsigned dflt;
} algos[UP_CK_COUNT_] = {
    [UP_CK_BARRIER] = {A(UP_BARRIER_LINEAR) | A(UP_BARRIER_TREE) | A(UP_BARRIER_DISSEMINATION),
                       UP_BARRIER_LINEAR},
    [UP_CK_BCAST] = {A(UP_ALGO_LINEAR) | A(UP_ALGO_BINOMIAL), UP_ALGO_BINOMIAL},
    [UP_CK_SCATTER] = {A(UP_ALGO_LINEAR) | A(UP_ALGO_BINOMIAL), UP_ALGO_LINEAR},
    [UP_CK_GATHER] = {A(UP_ALGO_LINEAR) | A(UP_ALGO_BINOMIAL), UP_ALGO_LINEAR},
    [UP_CK_REDUCE] = {A(UP_ALGO_LINEAR) | A(UP_ALGO_BINOMIAL), UP_ALGO_BINOMIAL},
    [UP_CK_ALLREDUCE] = {A(UP_ALGO_RECURSIVE_DOUBLING) | A(UP_ALGO_RING) | A(UP_ALGO_LINEAR),
                         UP_ALGO_RECURSIVE_DOUBLING},
    [UP_CK_ALLGATHER] = {A(UP_ALGO_RING) | A(UP_ALGO_RECURSIVE_DOUBLING) | A(UP_ALGO_LINEAR),
                         UP_ALGO_RING},
    [UP_CK_ALLTOALL] = {A(UP_ALGO_PAIRWISE) | A(UP_ALGO_LINEAR), UP_ALGO_PAIRWISE},
    [UP_CK_REDUCE_SCATTER] = {A(UP_ALGO_RING) | A(UP_ALGO_RECURSIVE_DOUBLING) | A(UP_ALGO_LINEAR),
                              UP_ALGO_RING},
    [UP_CK_SCAN] = {A(UP_ALGO_LINEAR) | A(UP_ALGO_RECURSIVE_DOUBLING), UP_ALGO_LINEAR},
};
#undef A

up_coll_kind up_ca_kind_of(OTF2_CollectiveOp op)
{
    switch (op) {
    case OTF2_COLLECTIVE_OP_BARRIER: return UP_CK_BARRIER;
    case OTF2_COLLECTIVE_OP_BCAST: return UP_CK_BCAST;
    case OTF2_COLLECTIVE_OP_GATHER:
    case OTF2_COLLECTIVE_OP_GATHERV: return UP_CK_GATHER;
    case OTF2_COLLECTIVE_OP_SCATTER:
    case OTF2_COLLECTIVE_OP_SCATTERV: return UP_CK_SCATTER;
    case OTF2_COLLECTIVE_OP_ALLGATHER:
    case OTF2_COLLECTIVE_OP_ALLGATHERV: return UP_CK_ALLGATHER;
    case OTF2_COLLECTIVE_OP_ALLTOALL:
    case OTF2_COLLECTIVE_OP_ALLTOALLV:
    case OTF2_COLLECTIVE_OP_ALLTOALLW: return UP_CK_ALLTOALL;
    case OTF2_COLLECTIVE_OP_REDUCE: return UP_CK_REDUCE;
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK: return UP_CK_REDUCE_SCATTER;
    case OTF2_COLLECTIVE_OP_SCAN:
    case OTF2_COLLECTIVE_OP_EXSCAN: return UP_CK_SCAN;
    case OTF2_COLLECTIVE_OP_ALLREDUCE:
    default: /* handle creation and destruction, window allocation, unknown */
        return UP_CK_ALLREDUCE;
    }
}

/* ---- the operations ---------------------------------------------------------- */

static void run(ca *c, const up_ca_in *in, unsigned algo)
{
    uint32_t n = c->n, i, k, p;
    uint32_t root = in->root < n ? in->root : 0;
    uint64_t b, blk, m;

    switch (in->kind) {
    case UP_CK_BARRIER:
        if (algo == UP_BARRIER_TREE) {
            memset(c->blk, 0, n * sizeof *c->blk);
            fan_in(c, 0, false, 0, false);
            fan_out(c, 0, false, 0);
        } else if (algo == UP_BARRIER_DISSEMINATION) {
            for (m = 1; m < n; m <<= 1)
                shift_round(c, (uint32_t)m, false, 0, 0);
        } else {
            barrier_linear(c, in->bar, root);
        }
        break;

    case UP_CK_BCAST:
        b = vmax(in->recvd, n, UINT32_MAX);
        if (!b)
            b = at(in->sent, root) / (n - 1);
        if (algo == UP_ALGO_LINEAR)
            lin_out(c, root, false, b);
        else
            fan_out(c, root, false, b);
        break;

    case UP_CK_SCATTER:
    case UP_CK_GATHER: {
        bool scatter = in->kind == UP_CK_SCATTER;
        const uint64_t *own = scatter ? in->recvd : in->sent;
        uint64_t tot = 0, fb = at(scatter ? in->sent : in->recvd, root) / n;
        for (i = 0; i < n; i++)
            tot += (c->blk[i] = i == root ? 0 : at(own, i));
        if (!tot)
            for (i = 0; i < n; i++)
                c->blk[i] = i == root ? 0 : fb;
        if (algo == UP_ALGO_BINOMIAL && scatter)
            fan_out(c, root, true, 0);
        else if (algo == UP_ALGO_BINOMIAL)
            fan_in(c, root, true, 0, false);
        else if (scatter)
            lin_out(c, root, true, 0);
        else
            lin_in(c, root, true, 0, false);
        break;
    }

    case UP_CK_REDUCE:
        b = vmax(in->sent, n, UINT32_MAX);
        if (!b)
            b = at(in->recvd, root) / n;
        if (algo == UP_ALGO_LINEAR)
            lin_in(c, root, false, b, true);
        else
            fan_in(c, root, false, b, true);
        break;

    case UP_CK_ALLREDUCE:
        b = ceil_div(max64(vmax(in->sent, n, UINT32_MAX), vmax(in->recvd, n, UINT32_MAX)), n);
        if (algo == UP_ALGO_RING) {
            blk = ceil_div(b, n);
            for (k = 1; k < n; k++)
                shift_round(c, 1, false, blk, red_cost(c->net, blk));
            for (k = 1; k < n; k++)
                shift_round(c, 1, false, blk, 0);
        } else if (algo == UP_ALGO_LINEAR) {
            lin_in(c, 0, false, b, true);
            lin_out(c, 0, false, b);
        } else {
            uint64_t red = red_cost(c->net, b);
            p = pow2_floor(n);
            fold_in(c, p, b, red);
            for (m = 1; m < p; m <<= 1)
                xor_round(c, p, m, b, red);
            fold_out(c, p, b);
        }
        break;

    case UP_CK_ALLGATHER:
        blk = ceil_div(vmax(in->recvd, n, UINT32_MAX), n);
        if (!blk)
            blk = ceil_div(vmax(in->sent, n, UINT32_MAX), n);
        if (algo == UP_ALGO_LINEAR) {
            lin_in(c, 0, false, blk, false);
            lin_out(c, 0, false, blk * n);
        } else if (algo == UP_ALGO_RECURSIVE_DOUBLING && pow2_floor(n) == n) {
            for (m = 1; m < n; m <<= 1)
                xor_round(c, n, m, blk * m, 0);
        } else {
            for (k = 1; k < n; k++)
                shift_round(c, 1, false, blk, 0);
        }
        break;

    case UP_CK_ALLTOALL:
        for (i = 0; i < n; i++)
            c->blk[i] = ceil_div(at(in->sent, i) ? at(in->sent, i) : at(in->recvd, i), n);
        if (algo == UP_ALGO_LINEAR) {
            uint32_t d, j;
            /* all sends posted: the q-th (q = 1..n-1, rank order) departs
             * at start + q o_s */
            for (i = 0; i < n; i++) {
                c->arr[i] = c->clk[i];
                c->clk[i] += (uint64_t)(n - 1) * c->net->o_s;
            }
            for (d = 0; d < n; d++)
                for (j = 0; j < n; j++) {
                    uint64_t dep;
                    if (j == d)
                        continue;
                    dep = c->arr[j] + (uint64_t)(d < j ? d + 1 : d) * c->net->o_s;
                    rcv(c, d, c->net->arrive ? c->net->arrive(c->net->ctx, j, d, c->blk[j], dep)
                                             : dep, 0);
                }
        } else {
            for (k = 1; k < n; k++)
                shift_round(c, k, true, 0, 0);
        }
        break;

    case UP_CK_REDUCE_SCATTER: {
        uint64_t v = vmax(in->sent, n, UINT32_MAX);
        if (!v)
            v = vmax(in->recvd, n, UINT32_MAX);
        blk = ceil_div(v, n);
        if (algo == UP_ALGO_LINEAR) {
            lin_in(c, 0, false, v, true);
            lin_out(c, 0, false, blk);
        } else if (algo == UP_ALGO_RECURSIVE_DOUBLING) {
            /* recursive halving: V/2, V/4, ... V/p, after folding the
             * members above p in */
            p = pow2_floor(n);
            fold_in(c, p, v, red_cost(c->net, v));
            for (m = p / 2; m > 0; m >>= 1) {
                uint64_t h = v / p * m + ceil_div(v % p * m, p);
                xor_round(c, p, m, h, red_cost(c->net, h));
            }
            fold_out(c, p, blk);
        } else {
            for (k = 1; k < n; k++)
                shift_round(c, 1, false, blk, red_cost(c->net, blk));
        }
        break;
    }

    case UP_CK_SCAN: {
        uint64_t red;
        b = scan_bytes(in);
        red = red_cost(c->net, b);
        if (algo == UP_ALGO_RECURSIVE_DOUBLING) {
            for (m = 1; m < n; m <<= 1)
                xor_round(c, n, m, b, red);
        } else {
            /* chain: i receives the prefix from i - 1, combines, passes on;
             * exscan's last member keeps the prefix as it came */
            for (i = 0; i < n; i++) {
                if (i)
                    rcv(c, i, c->arr[i], in->exscan && i == n - 1 ? 0 : red);
                if (i + 1 < n)
                    c->arr[i + 1] = snd(c, i, i + 1, b);
            }
        }
        break;
    }

    default:
        break;
    }
}

up_status up_ca_times(const up_ca_in *in, const up_ca_net *net, uint64_t *exit, up_err *err)
{
    uint64_t stack[3 * CA_STACK_N + 1], *scratch = stack;
    uint32_t n = in->n;
    unsigned algo = in->algo;
    ca c;

    if ((unsigned)in->kind >= UP_CK_COUNT_)
        return UP_ERR(err, UP_EINTERNAL, "collective of unknown kind %u", (unsigned)in->kind);
    if (n && !in->enter)
        return UP_ERR(err, UP_EINTERNAL, "collective of %u members without entry times", n);
    if (n)
        memmove(exit, in->enter, n * sizeof *exit);  /* exit may be enter */
    if (n <= 1)
        return UP_OK;
    if (algo >= 32 || !(algos[in->kind].ok & (1u << algo)))
        algo = algos[in->kind].dflt;
    if (n > CA_STACK_N) {
        scratch = up_calloc(3 * (size_t)n + 1, sizeof *scratch);
        if (!scratch)
            return UP_ERR(err, UP_ENOMEM, "collective of %u members: out of memory", n);
    }
    c.n = n;
    c.clk = exit;
    c.arr = scratch;
    c.blk = scratch + n;
    c.pre = scratch + 2 * (size_t)n;
    c.net = net;
    run(&c, in, algo);
    if (scratch != stack)
        up_free(scratch);
    return UP_OK;
}
