/*
 * machine.c - the target machine model of `unperturb simulate` (machine.h):
 * defaults, the INI machine file (docs/machine.md), `--set`, the numeric
 * access of sweeps, writing the model back, the placement of ranks on nodes
 * and the hop counts of the topologies.  Parsing uses inih.
 *
 * Place in the data flow: the command loads a file into an up_machine; the
 * simulation model (simulate.c) and the collective algorithms (collalgo.c)
 * read it.  Models of speedy-performance-extrapolation.md Section 3.3:
 * processor, remote access (network) and barrier (Table 1).
 *
 * All keys live in one table (`keys`).  A key's type says how its value is
 * parsed, checked, stored, read back and written.  Keys are unique over all
 * sections, so `--set` needs no section.
 */
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/machine.h"

/* ---- names ------------------------------------------------------------------ */

enum { S_PROCESSOR, S_NETWORK, S_BARRIER, S_COLLECTIVES, S_ACCELERATOR, S_COUNT };
static const char *const sec_names[S_COUNT] = {"processor", "network", "barrier",
                                               "collectives", "accelerator"};

static const char *const compute_names[] = {"auto", "wall", "cpu", NULL};
static const char *const progress_names[] = {"mpi", "interrupt", "polling", NULL};
static const char *const topo_names[] = {"full",    "ring",      "torus2d",
                                         "torus3d", "hypercube", "fattree", NULL};
static const char *const place_names[] = {"block", "cyclic", NULL};
static const char *const barrier_names[] = {"linear", "tree", "dissemination", NULL};
static const char *const algo_names[UP_ALGO_COUNT_ + 1] = {
    "linear", "binomial", "recursive_doubling", "ring", "pairwise", NULL};
static const char *const kind_names[UP_CK_COUNT_] = {
    "barrier", "bcast",     "scatter",  "gather",         "reduce",
    "allreduce", "allgather", "alltoall", "reduce_scatter", "scan"};

/* The algorithms each kind accepts (docs/machine.md, "Collectives"). */
#define A_(x) (1u << UP_ALGO_##x)
static const unsigned algo_ok[UP_CK_COUNT_] = {
    [UP_CK_BARRIER] = 0, /* [barrier] barrier = ... instead */
    [UP_CK_BCAST] = A_(LINEAR) | A_(BINOMIAL),
    [UP_CK_SCATTER] = A_(LINEAR) | A_(BINOMIAL),
    [UP_CK_GATHER] = A_(LINEAR) | A_(BINOMIAL),
    [UP_CK_REDUCE] = A_(LINEAR) | A_(BINOMIAL),
    [UP_CK_ALLREDUCE] = A_(RECURSIVE_DOUBLING) | A_(RING) | A_(LINEAR),
    [UP_CK_ALLGATHER] = A_(RING) | A_(RECURSIVE_DOUBLING) | A_(LINEAR),
    [UP_CK_ALLTOALL] = A_(PAIRWISE) | A_(LINEAR),
    [UP_CK_REDUCE_SCATTER] = A_(RING) | A_(RECURSIVE_DOUBLING) | A_(LINEAR),
    [UP_CK_SCAN] = A_(LINEAR) | A_(RECURSIVE_DOUBLING),
};
#undef A_

const char *up_coll_kind_name(up_coll_kind k)
{
    return (unsigned)k < UP_CK_COUNT_ ? kind_names[k] : "?";
}

const char *up_coll_algo_name(up_coll_algo a)
{
    return (unsigned)a < UP_ALGO_COUNT_ ? algo_names[a] : "?";
}

const char *up_barrier_algo_name(up_barrier_algo a)
{
    return (unsigned)a <= UP_BARRIER_DISSEMINATION ? barrier_names[a] : "?";
}

/* ---- the keys --------------------------------------------------------------- */

typedef enum ktype {
    K_NUM,  /* double in the key's range */
    K_UINT, /* unsigned, a whole number in the key's range */
    K_BOOL,
    K_ENUM, /* a name of enum_names[arg] */
    K_ALGO, /* an algorithm of collective kind arg */
    K_DIMS, /* "auto", "AxB" or "AxBxC" */
    K_BW    /* bandwidth_gbs: sets ns_per_byte = 1 / value; not stored */
} ktype;

/* The ranges of the numeric keys (docs/machine.md); the shared ones, ns,
 * ns/byte and bytes, are util.h's. */
static const up_range R_RATIO = {0.001, 1000, false, ""};
static const up_range R_POLL_CHUNK = {1, 1e9, false, "ns"};
static const up_range R_BW = {1e-6, 1e6, false, "GB/s"};
static const up_range R_RPN = {1, 1e6, true, ""};
static const up_range R_LAUNCH = {-1, 1e9, false, "ns"};
static const up_range R_FAT_TREE = {2, 1e6, true, ""};
#define R_NS (&UP_RANGE_NS)
#define R_NPB (&UP_RANGE_NS_PER_BYTE)
#define R_BYTES (&UP_RANGE_BYTES)

enum { E_COMPUTE, E_PROGRESS, E_TOPOLOGY, E_PLACEMENT, E_BARRIER };
static const char *const *const enum_names[] = {compute_names, progress_names, topo_names,
                                                place_names, barrier_names};

typedef struct mkey {
    const char *name;
    unsigned char sec;
    unsigned char type; /* ktype */
    unsigned char arg;  /* K_ENUM: E_*; K_ALGO: up_coll_kind */
    size_t off;         /* the field (K_NUM, K_UINT, K_BOOL) */
    const char *doc;    /* the comment up_machine_write puts before the key */
    const up_range *range; /* K_NUM, K_UINT, K_BW: the values allowed */
} mkey;

#define F_(f) offsetof(up_machine, f)
static const mkey keys[] = {
    {"speed_ratio", S_ACCELERATOR, K_NUM, 0, F_(accel_ratio),
     "target accelerator speed / traced accelerator speed (2: kernels and copies take half the time)",
     &R_RATIO},
    {"launch_latency_ns", S_ACCELERATOR, K_NUM, 0, F_(launch_latency_ns),
     "from a kernel launch or copy call to the device's start of it, ns (-1: as measured)",
     &R_LAUNCH},
    {"cpu_ratio", S_PROCESSOR, K_NUM, 0, F_(cpu_ratio),
     "target processor speed / traced processor speed (2: compute takes half the time)", &R_RATIO},
    {"compute", S_PROCESSOR, K_ENUM, E_COMPUTE, 0,
     "compute intervals from: auto (CPU time if traced, else wall) | wall | cpu", NULL},
    {"progress", S_PROCESSOR, K_ENUM, E_PROGRESS, 0,
     "messages arriving during computation are handled: mpi (only in MPI calls) | interrupt | polling", NULL},
    {"interrupt_ns", S_PROCESSOR, K_NUM, 0, F_(interrupt_ns),
     "cost of handling one interrupt (progress = interrupt), ns", R_NS},
    {"poll_chunk_ns", S_PROCESSOR, K_NUM, 0, F_(poll_chunk_ns),
     "compute chunk between two polls on the target (progress = polling), ns", &R_POLL_CHUNK},
    {"poll_ns", S_PROCESSOR, K_NUM, 0, F_(poll_ns), "cost of one poll (progress = polling), ns", R_NS},

    {"latency_ns", S_NETWORK, K_NUM, 0, F_(latency_ns), "latency L between nodes, ns", R_NS},
    {"ns_per_byte", S_NETWORK, K_NUM, 0, F_(ns_per_byte),
     "time per byte G between nodes (bandwidth_gbs X in GB/s sets it to 1/X), ns/byte", R_NPB},
    {"bandwidth_gbs", S_NETWORK, K_BW, 0, 0, NULL, &R_BW},
    {"per_hop_ns", S_NETWORK, K_NUM, 0, F_(per_hop_ns),
     "H, paid once per hop of the topology between nodes, ns", R_NS},
    {"node_latency_ns", S_NETWORK, K_NUM, 0, F_(node_latency_ns),
     "latency L between ranks on the same node, ns", R_NS},
    {"node_ns_per_byte", S_NETWORK, K_NUM, 0, F_(node_ns_per_byte),
     "time per byte G between ranks on the same node, ns/byte", R_NPB},
    {"send_overhead_ns", S_NETWORK, K_NUM, 0, F_(send_overhead_ns),
     "LogGP o at the sender (its CPU is busy), ns", R_NS},
    {"recv_overhead_ns", S_NETWORK, K_NUM, 0, F_(recv_overhead_ns), "LogGP o at the receiver, ns", R_NS},
    {"eager_limit", S_NETWORK, K_NUM, 0, F_(eager_limit),
     "larger messages use the rendezvous protocol, bytes", R_BYTES},
    {"contention", S_NETWORK, K_BOOL, 0, F_(contention),
     "queue messages on node links and shared routes: yes | no", NULL},
    {"topology", S_NETWORK, K_ENUM, E_TOPOLOGY, 0,
     "full | ring | torus2d | torus3d | hypercube | fattree", NULL},
    {"dims", S_NETWORK, K_DIMS, 0, 0,
     "torus shape, first size fastest: auto | AxB | AxBxC (0: chosen from the node count)", NULL},
    {"fat_tree_k", S_NETWORK, K_UINT, 0, F_(fat_tree_k),
     "fat tree radix: nodes per leaf switch", &R_FAT_TREE},
    {"ranks_per_node", S_NETWORK, K_UINT, 0, F_(ranks_per_node),
     "ranks that share a node", &R_RPN},
    {"placement", S_NETWORK, K_ENUM, E_PLACEMENT, 0,
     "ranks on nodes: block (i / ranks_per_node) | cyclic (i mod nodes)", NULL},

    {"barrier", S_BARRIER, K_ENUM, E_BARRIER, 0, "linear (Table 1) | tree | dissemination", NULL},
    {"entry_ns", S_BARRIER, K_NUM, 0, F_(entry_ns), "EntryTime: each process entering, ns", R_NS},
    {"exit_ns", S_BARRIER, K_NUM, 0, F_(exit_ns), "ExitTime: each process leaving, ns", R_NS},
    {"check_ns", S_BARRIER, K_NUM, 0, F_(check_ns),
     "CheckTime: the master checking whether all have arrived, ns", R_NS},
    {"exit_check_ns", S_BARRIER, K_NUM, 0, F_(exit_check_ns),
     "ExitCheckTime: a slave checking for the release, ns", R_NS},
    {"model_ns", S_BARRIER, K_NUM, 0, F_(model_ns),
     "ModelTime: the master starting to lower the barrier, ns", R_NS},
    {"barrier_by_msgs", S_BARRIER, K_BOOL, 0, F_(barrier_by_msgs),
     "BarrierByMsgs: arrival and release are messages: yes | no", NULL},
    {"barrier_msg_size", S_BARRIER, K_NUM, 0, F_(barrier_msg_size),
     "BarrierMsgSize: size of one barrier message, bytes", R_BYTES},

    {"bcast", S_COLLECTIVES, K_ALGO, UP_CK_BCAST, 0, "bcast: linear | binomial", NULL},
    {"scatter", S_COLLECTIVES, K_ALGO, UP_CK_SCATTER, 0, "scatter(v): linear | binomial", NULL},
    {"gather", S_COLLECTIVES, K_ALGO, UP_CK_GATHER, 0, "gather(v): linear | binomial", NULL},
    {"reduce", S_COLLECTIVES, K_ALGO, UP_CK_REDUCE, 0, "reduce: linear | binomial", NULL},
    {"allreduce", S_COLLECTIVES, K_ALGO, UP_CK_ALLREDUCE, 0,
     "allreduce: recursive_doubling | ring | linear", NULL},
    {"allgather", S_COLLECTIVES, K_ALGO, UP_CK_ALLGATHER, 0,
     "allgather(v): ring | recursive_doubling | linear", NULL},
    {"alltoall", S_COLLECTIVES, K_ALGO, UP_CK_ALLTOALL, 0, "alltoall(v/w): pairwise | linear", NULL},
    {"reduce_scatter", S_COLLECTIVES, K_ALGO, UP_CK_REDUCE_SCATTER, 0,
     "reduce_scatter(_block): ring | recursive_doubling | linear", NULL},
    {"scan", S_COLLECTIVES, K_ALGO, UP_CK_SCAN, 0, "scan, exscan: linear | recursive_doubling", NULL},
    {"reduce_ns_per_byte", S_COLLECTIVES, K_NUM, 0, F_(reduce_ns_per_byte),
     "cost of combining one received byte in a reduction, ns/byte", R_NPB},
};
#undef F_
#define NKEYS (sizeof keys / sizeof keys[0])

#define MAX_DIM 1000000u            /* largest torus size per dimension */

static double *num_field(up_machine *m, const mkey *k)
{
    return (double *)(void *)((char *)m + k->off);
}

static double num_get(const up_machine *m, const mkey *k)
{
    return *(const double *)(const void *)((const char *)m + k->off);
}

static unsigned *uint_field(up_machine *m, const mkey *k)
{
    return (unsigned *)(void *)((char *)m + k->off);
}

static bool *bool_field(up_machine *m, const mkey *k)
{
    return (bool *)(void *)((char *)m + k->off);
}

static unsigned enum_get(const up_machine *m, unsigned e)
{
    switch (e) {
    case E_COMPUTE: return (unsigned)m->compute;
    case E_PROGRESS: return (unsigned)m->progress;
    case E_TOPOLOGY: return (unsigned)m->topology;
    case E_PLACEMENT: return (unsigned)m->placement;
    default: return (unsigned)m->barrier;
    }
}

static void enum_set(up_machine *m, unsigned e, unsigned v)
{
    switch (e) {
    case E_COMPUTE: m->compute = (up_compute_src)v; break;
    case E_PROGRESS: m->progress = (up_progress_policy)v; break;
    case E_TOPOLOGY: m->topology = (up_topology)v; break;
    case E_PLACEMENT: m->placement = (up_placement)v; break;
    default: m->barrier = (up_barrier_algo)v; break;
    }
}

static bool is_numeric_type(unsigned t)
{
    return t == K_NUM || t == K_UINT || t == K_BW;
}

/* The key that holds k's value (bandwidth_gbs is ns_per_byte). */
static size_t param_of(size_t i)
{
    size_t j;
    if (keys[i].type == K_BW)
        for (j = 0; j < NKEYS; j++)
            if (!strcmp(keys[j].name, "ns_per_byte"))
                return j;
    return i;
}

static const mkey *find_key(const char *name, size_t len)
{
    size_t i;
    for (i = 0; i < NKEYS; i++)
        if (strlen(keys[i].name) == len && !strncmp(keys[i].name, name, len))
            return &keys[i];
    return NULL;
}

static int find_section(const char *name, size_t len)
{
    int s;
    for (s = 0; s < S_COUNT; s++)
        if (strlen(sec_names[s]) == len && !strncmp(sec_names[s], name, len))
            return s;
    return -1;
}

/* "a, b or c" of the names in list whose bit is set in mask (all: ~0u). */
static void list_names(char *buf, size_t cap, const char *const *list, unsigned mask)
{
    size_t len = 0, i, n = 0, total = 0;
    for (i = 0; list[i]; i++)
        total += (mask >> i) & 1u;
    if (cap)
        buf[0] = '\0';
    for (i = 0; list[i] && len < cap; i++) {
        int w;
        if (!((mask >> i) & 1u))
            continue;
        w = snprintf(buf + len, cap - len, "%s%s", n == 0 ? "" : n + 1 < total ? ", " : " or ",
                     list[i]);
        if (w < 0)
            break;
        len += (size_t)w;
        n++;
    }
}

/* The keys of section s, comma-separated. */
static void list_section_keys(char *buf, size_t cap, int s)
{
    size_t len = 0, i;
    if (cap)
        buf[0] = '\0';
    for (i = 0; i < NKEYS && len < cap; i++) {
        int w;
        if (keys[i].sec != s)
            continue;
        w = snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", keys[i].name);
        if (w < 0)
            break;
        len += (size_t)w;
    }
}

/* ---- values ----------------------------------------------------------------- */

static bool parse_bool(const char *s, bool *out)
{
    static const char *const yes[] = {"1", "true", "yes", "on"};
    static const char *const no[] = {"0", "false", "no", "off"};
    unsigned i;
    for (i = 0; i < 4; i++) {
        if (!strcasecmp(s, yes[i]))
            return *out = true, true;
        if (!strcasecmp(s, no[i]))
            return *out = false, true;
    }
    return false;
}

static bool parse_enum(const char *s, const char *const *list, unsigned mask, unsigned *out)
{
    unsigned i;
    for (i = 0; list[i]; i++)
        if (((mask >> i) & 1u) && !strcasecmp(s, list[i]))
            return *out = i, true;
    return false;
}

static bool is_blank(char ch) { return ch == ' ' || ch == '\t'; }
static bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }

/* "auto" or "0" (all chosen), "AxB" or "AxBxC": whole numbers <= MAX_DIM. */
static bool parse_dims(const char *s, unsigned d[3])
{
    unsigned v[3] = {0, 0, 0}, n = 0;
    const char *p = s;
    if (!strcasecmp(s, "auto") || !strcmp(s, "0")) {
        d[0] = d[1] = d[2] = 0;
        return true;
    }
    for (;;) {
        unsigned long x = 0;
        while (is_blank(*p))
            p++;
        if (!is_digit(*p) || n == 3)
            return false;
        for (; is_digit(*p); p++)
            if ((x = x * 10 + (unsigned long)(*p - '0')) > MAX_DIM)
                return false;
        v[n++] = (unsigned)x;
        while (is_blank(*p))
            p++;
        if (!*p)
            break;
        if (*p != 'x' && *p != 'X')
            return false;
        p++;
    }
    if (n < 2)
        return false;
    memcpy(d, v, sizeof v);
    return true;
}

/* Checks a number for key k; on failure writes why. */
static bool check_num(const mkey *k, double v, char *why, size_t cap)
{
    return up_range_check(k->range, v, why, cap);
}

static void store_num(up_machine *m, const mkey *k, double v)
{
    if (k->type == K_BW)
        m->ns_per_byte = 1 / v;
    else if (k->type == K_UINT)
        *uint_field(m, k) = (unsigned)v;
    else
        *num_field(m, k) = v;
}

/* Parses `value` for key k into *m; false with the reason in why. */
static bool set_value(up_machine *m, const mkey *k, const char *value, char *why, size_t cap)
{
    char list[256];
    double v;
    unsigned e;
    switch (k->type) {
    case K_BOOL:
        if (!parse_bool(value, bool_field(m, k))) {
            snprintf(why, cap, "expected 1, 0, true, false, yes, no, on or off");
            return false;
        }
        return true;
    case K_ENUM:
        if (!parse_enum(value, enum_names[k->arg], ~0u, &e)) {
            list_names(list, sizeof list, enum_names[k->arg], ~0u);
            snprintf(why, cap, "expected %s", list);
            return false;
        }
        enum_set(m, k->arg, e);
        return true;
    case K_ALGO:
        if (!parse_enum(value, algo_names, algo_ok[k->arg], &e)) {
            list_names(list, sizeof list, algo_names, algo_ok[k->arg]);
            if (parse_enum(value, algo_names, ~0u, &e))
                snprintf(why, cap, "not an algorithm for %s (expected %s)", k->name, list);
            else
                snprintf(why, cap, "expected %s", list);
            return false;
        }
        m->algo[k->arg] = (up_coll_algo)e;
        return true;
    case K_DIMS:
        if (!parse_dims(value, m->dims)) {
            snprintf(why, cap, "expected auto, AxB or AxBxC (whole numbers up to %u)", MAX_DIM);
            return false;
        }
        return true;
    default:
        if (!up_num_parse(value, k->range, &v, why, cap))
            return false;
        store_num(m, k, v);
        return true;
    }
}

/* n bytes of s, escaped for a message (up_esc). */
static const char *esc_n(const char *s, size_t n)
{
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%.*s", (int)(n < sizeof tmp ? n : sizeof tmp - 1), s);
    return up_esc(tmp);
}

/* Finds "key" or "section.key" (len bytes of name).  NULL with why set when
 * the key or section is unknown or the section is not the key's. */
static const mkey *lookup(const char *name, size_t len, char *why, size_t cap)
{
    const char *dot = memchr(name, '.', len), *sec = name;
    size_t seclen = 0;
    const mkey *k;
    int s = -1;
    if (dot) {
        seclen = (size_t)(dot - name);
        s = find_section(sec, seclen);
        len -= seclen + 1;
        name = dot + 1;
    }
    if (!(k = find_key(name, len))) {
        snprintf(why, cap, "unknown key '%s' (docs/machine.md lists the keys)", esc_n(name, len));
        return NULL;
    }
    if (dot && s < 0) {
        snprintf(why, cap, "unknown section '%s' (%s belongs in [%s])", esc_n(sec, seclen),
                 k->name, sec_names[k->sec]);
        return NULL;
    }
    if (dot && s != k->sec) {
        snprintf(why, cap, "%s belongs in [%s], not [%s]", k->name, sec_names[k->sec],
                 sec_names[s]);
        return NULL;
    }
    return k;
}

/* ---- defaults --------------------------------------------------------------- */

void up_machine_init(up_machine *m)
{
    memset(m, 0, sizeof *m);
    /* [processor] */
    m->cpu_ratio = 1;
    m->accel_ratio = 1;
    m->launch_latency_ns = -1;
    m->compute = UP_COMPUTE_AUTO;
    m->progress = UP_PROGRESS_MPI;
    m->interrupt_ns = 1000;
    m->poll_chunk_ns = 10000;
    m->poll_ns = 100;
    /* [network]: a plausible commodity cluster (docs/machine.md) */
    m->latency_ns = 1500;
    m->ns_per_byte = 0.1; /* 10 GB/s */
    m->per_hop_ns = 100;
    m->node_latency_ns = 300;
    m->node_ns_per_byte = 0.1;
    m->send_overhead_ns = 200;
    m->recv_overhead_ns = 200;
    m->eager_limit = 4096;
    m->contention = false;
    m->topology = UP_TOPO_FULL;
    m->fat_tree_k = 4;
    m->ranks_per_node = 1;
    m->placement = UP_PLACE_BLOCK;
    /* [barrier]: Table 1 times 0, so the linear barrier is its messages */
    m->barrier = UP_BARRIER_LINEAR;
    m->barrier_by_msgs = true;
    m->barrier_msg_size = 16;
    /* [collectives] */
    m->algo[UP_CK_BARRIER] = UP_ALGO_LINEAR; /* unused: m->barrier */
    m->algo[UP_CK_BCAST] = UP_ALGO_BINOMIAL;
    m->algo[UP_CK_SCATTER] = UP_ALGO_LINEAR;
    m->algo[UP_CK_GATHER] = UP_ALGO_LINEAR;
    m->algo[UP_CK_REDUCE] = UP_ALGO_BINOMIAL;
    m->algo[UP_CK_ALLREDUCE] = UP_ALGO_RECURSIVE_DOUBLING;
    m->algo[UP_CK_ALLGATHER] = UP_ALGO_RING;
    m->algo[UP_CK_ALLTOALL] = UP_ALGO_PAIRWISE;
    m->algo[UP_CK_REDUCE_SCATTER] = UP_ALGO_RING;
    m->algo[UP_CK_SCAN] = UP_ALGO_LINEAR;
    m->reduce_ns_per_byte = 0.1;
}

/* ---- the file --------------------------------------------------------------- */

typedef struct parse_ctx {
    up_machine m;          /* the result, copied out on success */
    const char *what;      /* file name, or what the text is, for errors */
    up_lines lines;        /* the text, a line at a time */
    unsigned fail_line;    /* line of the first error (0: none) */
    char msg[sizeof ((up_err *)0)->msg];
    unsigned seen[NKEYS];  /* line that set each key (0: not set) */
} parse_ctx;

#if defined(__GNUC__)
static void fail(parse_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif
static void fail(parse_ctx *c, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (c->fail_line)
        return;
    c->fail_line = c->lines.line ? c->lines.line : 1;
    n = snprintf(c->msg, sizeof c->msg, "%s:%u: ", up_esc(c->what), c->fail_line);
    if (n < 0 || (size_t)n >= sizeof c->msg)
        return;
    va_start(ap, fmt);
    vsnprintf(c->msg + n, sizeof c->msg - (size_t)n, fmt, ap);
    va_end(ap);
}

/* inih's reader: one line per call (up_lines_read), so that the line of
 * the key inih hands on is known.  Leading blanks are dropped, so an
 * indented line never continues the previous value (machine files have no
 * multi-line values); a line that is not INI (up_lines_read's rules) is an
 * error, and section headers are checked here, because inih does not
 * report empty sections. */
static char *read_line(char *buf, int size, void *stream)
{
    parse_ctx *c = stream;
    if (!up_lines_read(buf, size, &c->lines))
        return NULL;
    if (c->lines.too_long == c->lines.line)
        fail(c, "line longer than %zu characters", c->lines.limit);
    else if (c->lines.bad == c->lines.line)
        fail(c, "%s", c->lines.why);
    else if (c->lines.sec && find_section(c->lines.sec, c->lines.seclen) < 0)
        fail(c, "unknown section [%s] (expected [processor], [network], [barrier] or "
                "[collectives])", esc_n(c->lines.sec, c->lines.seclen));
    return buf;
}

static int on_kv(void *user, const char *section, const char *name, const char *value)
{
    parse_ctx *c = user;
    const mkey *k = find_key(name, strlen(name));
    int s = find_section(section, strlen(section));
    char why[512];
    size_t i, j;

    if (c->fail_line)
        return 1; /* the first error is the one reported */
    if (!*section) {
        if (k)
            fail(c, "%s comes before any section (it belongs in [%s])", name, sec_names[k->sec]);
        else
            fail(c, "unknown key '%s' before any section", up_esc(name));
        return 1;
    }
    if (s < 0) {
        fail(c, "unknown section [%s]", up_esc(section));
        return 1;
    }
    if (!k) {
        list_section_keys(why, sizeof why, s);
        fail(c, "unknown key '%s' in [%s] (expected %s)", up_esc(name), section, why);
        return 1;
    }
    if (k->sec != s) {
        fail(c, "%s belongs in [%s], not [%s]", name, sec_names[k->sec], section);
        return 1;
    }
    i = (size_t)(k - keys);
    for (j = 0; j < NKEYS; j++)
        if (c->seen[j] && param_of(j) == param_of(i)) {
            if (i == j)
                fail(c, "%s is set twice (first at line %u)", name, c->seen[j]);
            else
                fail(c, "%s and %s (line %u) set the same parameter", name, keys[j].name,
                     c->seen[j]);
            return 1;
        }
    if (!set_value(&c->m, k, value, why, sizeof why)) {
        fail(c, "%s = %s: %s", name, up_esc(value), why);
        return 1;
    }
    c->seen[i] = c->lines.line;
    return 1;
}

static up_status parse(const char *text, const char *what, up_machine *m, up_err *err)
{
    parse_ctx c;
    int rc;
    memset(&c, 0, sizeof c);
    c.what = what;
    c.m = *m;
    up_lines_init(&c.lines, text, true);
    rc = ini_parse_stream(read_line, &c, on_kv, &c);
    if (rc > 0 && (!c.fail_line || (unsigned)rc < c.fail_line))
        return UP_ERR(err, UP_EFORMAT, "%s:%d: " UP_NOT_INI, up_esc(what), rc);
    if (c.fail_line)
        return UP_ERR(err, UP_EFORMAT, "%s", c.msg);
    if (rc < 0)
        return UP_ERR(err, UP_ENOMEM, "%s: out of memory", up_esc(what));
    *m = c.m;
    return UP_OK;
}

up_status up_machine_load(const char *path, up_machine *m, up_err *err)
{
    char *text;
    up_status st = up_text_file_read(path, "machine file", UP_TEXT_FILE_MAX, &text, NULL, err);
    if (st != UP_OK)
        return st;
    st = parse(text, path, m, err);
    up_free(text);
    return st;
}

up_status up_machine_parse(const char *text, const char *what, up_machine *m, up_err *err)
{
    return parse(text, what, m, err);
}

/* ---- --set and sweeps ------------------------------------------------------- */

up_status up_machine_set(up_machine *m, const char *assignment, up_err *err)
{
    const char *eq = strchr(assignment, '='), *key = assignment, *val;
    char why[512], vbuf[256];
    size_t klen, vlen;
    const mkey *k;
    up_machine t;

    if (!eq)
        return UP_ERR(err, UP_EUSAGE, "--set %s: expected key=value", up_esc(assignment));
    while (is_blank(*key))
        key++;
    for (klen = (size_t)(eq - key); klen && is_blank(key[klen - 1]); klen--)
        ;
    for (val = eq + 1; is_blank(*val); val++)
        ;
    for (vlen = strlen(val); vlen && is_blank(val[vlen - 1]); vlen--)
        ;
    if (!(k = lookup(key, klen, why, sizeof why)))
        return UP_ERR(err, UP_EUSAGE, "--set %s: %s", up_esc(assignment), why);
    if (vlen >= sizeof vbuf)
        return UP_ERR(err, UP_EUSAGE, "--set %s: value too long", up_esc(assignment));
    memcpy(vbuf, val, vlen);
    vbuf[vlen] = '\0';
    t = *m;
    if (!set_value(&t, k, vbuf, why, sizeof why))
        return UP_ERR(err, UP_EUSAGE, "--set %s: %s", up_esc(assignment), why);
    *m = t;
    return UP_OK;
}

up_status up_machine_set_num(up_machine *m, const char *key, double v, up_err *err)
{
    char why[512];
    const mkey *k = lookup(key, strlen(key), why, sizeof why);
    if (!k)
        return UP_ERR(err, UP_EUSAGE, "%s", why);
    if (!is_numeric_type(k->type))
        return UP_ERR(err, UP_EUSAGE, "%s is not a numeric parameter", k->name);
    if (!check_num(k, v, why, sizeof why)) {
        char num[32];
        up_num_text(num, sizeof num, v);
        return UP_ERR(err, UP_EUSAGE, "%s = %s: %s", k->name, num, why);
    }
    store_num(m, k, v);
    return UP_OK;
}

up_status up_machine_check(const up_machine *m, up_err *err)
{
    char why[512];
    size_t i;
    for (i = 0; i < NKEYS; i++)
        if (keys[i].type == K_NUM || keys[i].type == K_UINT) {
            double v = keys[i].type == K_UINT ? (double)*(const unsigned *)(const void *)((const char *)m + keys[i].off)
                                               : num_get(m, &keys[i]);
            if (!check_num(&keys[i], v, why, sizeof why)) {
                char num[32];
                up_num_text(num, sizeof num, v);
                return UP_ERR(err, UP_EUSAGE, "%s = %s: %s", keys[i].name, num, why);
            }
        }
    return UP_OK;
}

const up_range *up_machine_range(const char *key)
{
    char why[512];
    const mkey *k = lookup(key, strlen(key), why, sizeof why);
    return k && is_numeric_type(k->type) ? k->range : NULL;
}

double up_machine_get_num(const up_machine *m, const char *key)
{
    char why[512];
    const mkey *k = lookup(key, strlen(key), why, sizeof why);
    if (!k || !is_numeric_type(k->type))
        return NAN;
    if (k->type == K_BW)
        return m->ns_per_byte > 0 ? 1 / m->ns_per_byte : INFINITY;
    if (k->type == K_UINT)
        return (double)*(const unsigned *)(const void *)((const char *)m + k->off);
    return num_get(m, k);
}

/* ---- writing ---------------------------------------------------------------- */

static const char *list_at(const char *const *list, unsigned i)
{
    unsigned n;
    for (n = 0; list[n]; n++)
        if (n == i)
            return list[n];
    return "?";
}

static void fmt_value(char *buf, size_t cap, const up_machine *m, const mkey *k)
{
    switch (k->type) {
    case K_UINT:
        snprintf(buf, cap, "%u", *(const unsigned *)(const void *)((const char *)m + k->off));
        break;
    case K_BOOL:
        snprintf(buf, cap, "%s", *(const bool *)(const void *)((const char *)m + k->off) ? "yes" : "no");
        break;
    case K_ENUM:
        snprintf(buf, cap, "%s", list_at(enum_names[k->arg], enum_get(m, k->arg)));
        break;
    case K_ALGO:
        snprintf(buf, cap, "%s", up_coll_algo_name(m->algo[k->arg]));
        break;
    case K_DIMS:
        if (!m->dims[0] && !m->dims[1] && !m->dims[2])
            snprintf(buf, cap, "auto");
        else if (!m->dims[2])
            snprintf(buf, cap, "%ux%u", m->dims[0], m->dims[1]);
        else
            snprintf(buf, cap, "%ux%ux%u", m->dims[0], m->dims[1], m->dims[2]);
        break;
    default:
        up_num_exact(buf, cap, num_get(m, k));
        break;
    }
}

/* The index in keys[] of the i-th parameter in written order (sections in
 * order, bandwidth_gbs left out), or NKEYS past the last. */
static size_t written_key(size_t i)
{
    size_t k, n = 0;
    int s;
    for (s = 0; s < S_COUNT; s++)
        for (k = 0; k < NKEYS; k++)
            if (keys[k].sec == s && keys[k].type != K_BW && n++ == i)
                return k;
    return NKEYS;
}

bool up_machine_param_at(const up_machine *m, size_t i, up_machine_param *p)
{
    size_t k = written_key(i);
    if (k == NKEYS)
        return false;
    p->section = sec_names[keys[k].sec];
    p->key = keys[k].name;
    p->doc = keys[k].doc;
    fmt_value(p->value, sizeof p->value, m, &keys[k]);
    p->num = 0;
    p->kind = UP_MPARAM_WORD;
    if (keys[k].type == K_BOOL) {
        p->kind = UP_MPARAM_BOOL;
        p->num = *(const bool *)(const void *)((const char *)m + keys[k].off);
    } else if (keys[k].type == K_UINT) {
        p->kind = UP_MPARAM_NUM;
        p->num = *(const unsigned *)(const void *)((const char *)m + keys[k].off);
    } else if (is_numeric_type(keys[k].type)) {
        p->kind = UP_MPARAM_NUM;
        p->num = num_get(m, &keys[k]);
    }
    return true;
}

int up_machine_write(FILE *f, const up_machine *m)
{
    up_machine_param p;
    const char *sec = NULL;
    size_t i;
    if (fprintf(f, "# unperturb machine model (docs/machine.md)\n") < 0)
        return -1;
    for (i = 0; up_machine_param_at(m, i, &p); i++) {
        if (p.section != sec && fprintf(f, "\n[%s]\n", p.section) < 0)
            return -1;
        sec = p.section;
        if (fprintf(f, "# %s\n%s = %s\n", p.doc, p.key, p.value) < 0)
            return -1;
    }
    return ferror(f) ? -1 : 0;
}

/* ---- placement and topology ------------------------------------------------- */

unsigned up_machine_node_of(const up_machine *m, long rank, unsigned nranks)
{
    unsigned long r = m->ranks_per_node ? m->ranks_per_node : 1, nnodes;
    if (rank < 0)
        return 0;
    if (m->placement == UP_PLACE_CYCLIC) {
        nnodes = (nranks + r - 1) / r;
        return (unsigned)((unsigned long)rank % (nnodes ? nnodes : 1));
    }
    return (unsigned)((unsigned long)rank / r);
}

/* Distance on a ring of n positions. */
static uint64_t ring_dist(uint64_t x, uint64_t y, uint64_t n)
{
    uint64_t d = x > y ? x - y : y - x;
    return d < n - d ? d : n - d;
}

/* The largest divisor d of n with d^power <= n (power 2 or 3). */
static uint64_t root_divisor(uint64_t n, unsigned power)
{
    uint64_t d, best = 1;
    for (d = 2; (power == 2 ? d * d : d * d * d) <= n; d++)
        if (n % d == 0)
            best = d;
    return best;
}

/* The torus shape for n nodes (docs/machine.md, "Topologies"). */
static void torus_shape(const up_machine *m, unsigned nd, uint64_t n, uint64_t d[3])
{
    uint64_t rest = 1;
    unsigned i;
    bool given = true;
    for (i = 0; i < nd; i++)
        given = given && m->dims[i];
    if (given) {
        for (i = 0; i < nd; i++)
            d[i] = m->dims[i];
        for (i = 0; i + 1 < nd; i++)
            rest *= d[i];
        if (rest * d[nd - 1] < n) /* the last size grows to hold every node */
            d[nd - 1] = (n + rest - 1) / rest;
        return;
    }
    i = 0;
    if (nd == 3) {
        d[i] = root_divisor(n, 3);
        n /= d[i++];
    }
    d[i] = root_divisor(n, 2);
    d[i + 1] = n / d[i];
}

unsigned up_machine_hops(const up_machine *m, unsigned a, unsigned b, unsigned nnodes)
{
    uint64_t n = nnodes, x = a, y = b, d[3], k, h = 0;
    unsigned i, nd;
    if (a == b)
        return 0;
    if (n <= (a > b ? a : b)) /* a node past the count: the count grows */
        n = (uint64_t)(a > b ? a : b) + 1;
    switch (m->topology) {
    case UP_TOPO_RING:
        return (unsigned)ring_dist(x, y, n);
    case UP_TOPO_TORUS2D:
    case UP_TOPO_TORUS3D:
        nd = m->topology == UP_TOPO_TORUS2D ? 2 : 3;
        torus_shape(m, nd, n, d);
        for (i = 0; i < nd; i++) { /* first dimension fastest */
            h += ring_dist(x % d[i], y % d[i], d[i]);
            x /= d[i];
            y /= d[i];
        }
        return (unsigned)h;
    case UP_TOPO_HYPERCUBE:
        for (x ^= y; x; x &= x - 1)
            h++;
        return (unsigned)h;
    case UP_TOPO_FATTREE:
        k = m->fat_tree_k >= 2 ? m->fat_tree_k : 2;
        do { /* climb until both are under one switch: 2 hops per level */
            x /= k;
            y /= k;
            h += 2;
        } while (x != y);
        return (unsigned)h;
    case UP_TOPO_FULL:
    default:
        return 1;
    }
}

/* Walks one ring dimension from coordinate x to y (size n, the shorter way,
 * + on a tie): appends the directed link leaving each node on the way.
 * `node` is the node's number, `stride` the number step of one coordinate. */
static unsigned ring_walk(uint64_t node, uint64_t x, uint64_t y, uint64_t n, uint64_t stride,
                          unsigned port, uint64_t *links, unsigned cap, unsigned k)
{
    uint64_t fwd = (y + n - x) % n, steps = fwd <= n - fwd ? fwd : n - fwd;
    bool plus = fwd <= n - fwd;
    while (steps--) {
        if (k < cap)
            links[k] = node << 6 | (port + (plus ? 0u : 1u));
        k++;
        if (plus) {
            node = x + 1 == n ? node - x * stride : node + stride;
            x = x + 1 == n ? 0 : x + 1;
        } else {
            node = x == 0 ? node + (n - 1) * stride : node - stride;
            x = x == 0 ? n - 1 : x - 1;
        }
    }
    return k;
}

unsigned up_machine_route(const up_machine *m, unsigned a, unsigned b, unsigned nnodes,
                          uint64_t *links, unsigned cap)
{
    uint64_t n = nnodes, x = a, y = b, d[3], stride = 1, node = a;
    unsigned i, nd, k = 0;
    if (a == b)
        return 0;
    if (n <= (a > b ? a : b))
        n = (uint64_t)(a > b ? a : b) + 1;
    switch (m->topology) {
    case UP_TOPO_RING:
        return ring_walk(a, x, y, n, 1, 0, links, cap, 0);
    case UP_TOPO_TORUS2D:
    case UP_TOPO_TORUS3D: /* dimension order: first dimension first */
        nd = m->topology == UP_TOPO_TORUS2D ? 2 : 3;
        torus_shape(m, nd, n, d);
        for (i = 0; i < nd; i++) {
            uint64_t xi = x % d[i], yi = y % d[i];
            k = ring_walk(node, xi, yi, d[i], stride, 2 * i, links, cap, k);
            node = node + yi * stride - xi * stride; /* now at yi in dimension i */
            x /= d[i];
            y /= d[i];
            stride *= d[i];
        }
        return k;
    case UP_TOPO_HYPERCUBE: /* e-cube: the lowest differing bit first */
        for (i = 0; i < 32; i++)
            if ((x ^ y) >> i & 1) {
                if (k < cap)
                    links[k] = node << 6 | i;
                k++;
                node ^= (uint64_t)1 << i;
            }
        return k;
    case UP_TOPO_FATTREE: /* full bisection: no shared link above the nodes */
    case UP_TOPO_FULL:
    default:
        return 0;
    }
}
