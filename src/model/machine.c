/*
 * machine.c - the target machine model of `unperturb simulate` (machine.h).
 * STUB: being written (issue 7).
 */
#include <math.h>
#include <string.h>

#include "unperturb/machine.h"

void up_machine_init(up_machine *m)
{
    memset(m, 0, sizeof *m);
    m->cpu_ratio = 1;
    m->eager_limit = 4096;
    m->ranks_per_node = 1;
    m->fat_tree_k = 4;
    m->barrier_msg_size = 16;
    m->barrier_by_msgs = true;
    m->algo[UP_CK_BCAST] = UP_ALGO_BINOMIAL;
    m->algo[UP_CK_SCATTER] = UP_ALGO_LINEAR;
    m->algo[UP_CK_GATHER] = UP_ALGO_LINEAR;
    m->algo[UP_CK_REDUCE] = UP_ALGO_BINOMIAL;
    m->algo[UP_CK_ALLREDUCE] = UP_ALGO_RECURSIVE_DOUBLING;
    m->algo[UP_CK_ALLGATHER] = UP_ALGO_RING;
    m->algo[UP_CK_ALLTOALL] = UP_ALGO_PAIRWISE;
    m->algo[UP_CK_REDUCE_SCATTER] = UP_ALGO_RING;
    m->algo[UP_CK_SCAN] = UP_ALGO_LINEAR;
}

up_status up_machine_load(const char *path, up_machine *m, up_err *err)
{
    (void)m;
    return UP_ERR(err, UP_EUSAGE, "%s: machine files are not read yet", path);
}

up_status up_machine_parse(const char *text, const char *what, up_machine *m, up_err *err)
{
    (void)text, (void)m;
    return UP_ERR(err, UP_EUSAGE, "%s: machine files are not read yet", what);
}

up_status up_machine_set(up_machine *m, const char *assignment, up_err *err)
{
    (void)m;
    return UP_ERR(err, UP_EUSAGE, "--set %s: not supported yet", assignment);
}

up_status up_machine_set_num(up_machine *m, const char *key, double v, up_err *err)
{
    (void)m, (void)v;
    return UP_ERR(err, UP_EUSAGE, "%s: not supported yet", key);
}

bool up_machine_is_numeric(const char *key) { (void)key; return false; }
double up_machine_get_num(const up_machine *m, const char *key) { (void)m, (void)key; return NAN; }
int up_machine_write(FILE *f, const up_machine *m) { (void)f, (void)m; return -1; }

unsigned up_machine_node_of(const up_machine *m, long rank, unsigned nranks)
{
    (void)nranks;
    return rank < 0 ? 0 : (unsigned)(rank / (m->ranks_per_node ? m->ranks_per_node : 1));
}

unsigned up_machine_hops(const up_machine *m, unsigned a, unsigned b, unsigned nnodes)
{
    (void)m, (void)nnodes;
    return a != b;
}

const char *up_coll_kind_name(up_coll_kind k) { (void)k; return "?"; }
const char *up_coll_algo_name(up_coll_algo a) { (void)a; return "?"; }
const char *up_barrier_algo_name(up_barrier_algo a) { (void)a; return "?"; }
