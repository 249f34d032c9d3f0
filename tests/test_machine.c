/*
 * test_machine.c - the machine model of `unperturb simulate` (machine.h,
 * docs/machine.md): defaults, the file with every key, errors with their
 * file:line and every number's range, files that are not regular or too
 * large, messages that escape what does not print, --set, bandwidth_gbs,
 * the numeric access of sweeps, the written
 * file loading back to the same model, and placement and hop counts with
 * values worked out by hand in the comments.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test.h"
#include "model/machine.h"

/* Every field equal (no memcmp: padding and -0 must not matter). */
static bool same_machine(const up_machine *a, const up_machine *b)
{
    unsigned i;
    if (a->cpu_ratio != b->cpu_ratio || a->compute != b->compute || a->progress != b->progress ||
        a->interrupt_ns != b->interrupt_ns || a->poll_chunk_ns != b->poll_chunk_ns ||
        a->poll_ns != b->poll_ns)
        return false;
    if (a->latency_ns != b->latency_ns || a->ns_per_byte != b->ns_per_byte ||
        a->per_hop_ns != b->per_hop_ns || a->node_latency_ns != b->node_latency_ns ||
        a->node_ns_per_byte != b->node_ns_per_byte ||
        a->send_overhead_ns != b->send_overhead_ns ||
        a->recv_overhead_ns != b->recv_overhead_ns || a->eager_limit != b->eager_limit ||
        a->contention != b->contention || a->topology != b->topology ||
        a->dims[0] != b->dims[0] || a->dims[1] != b->dims[1] || a->dims[2] != b->dims[2] ||
        a->fat_tree_k != b->fat_tree_k || a->ranks_per_node != b->ranks_per_node ||
        a->placement != b->placement)
        return false;
    if (a->barrier != b->barrier || a->entry_ns != b->entry_ns || a->exit_ns != b->exit_ns ||
        a->check_ns != b->check_ns || a->exit_check_ns != b->exit_check_ns ||
        a->model_ns != b->model_ns || a->barrier_by_msgs != b->barrier_by_msgs ||
        a->barrier_msg_size != b->barrier_msg_size)
        return false;
    for (i = 0; i < UP_CK_COUNT_; i++)
        if (a->algo[i] != b->algo[i])
            return false;
    return a->reduce_ns_per_byte == b->reduce_ns_per_byte;
}

/* Parsing `text` fails with a message containing `want`, and *m stays. */
static void check_err_at(const char *file, int line, const char *text, const char *want)
{
    up_machine m, d;
    up_err err;
    up_status st;
    up_machine_init(&m);
    up_machine_init(&d);
    memset(&err, 0, sizeof err);
    st = up_machine_parse(text, "m.ini", &m, &err);
    if (st != UP_EFORMAT)
        t_fail(file, line, "status %d, want UP_EFORMAT, for:\n%s", (int)st, text);
    else if (!strstr(err.msg, want))
        t_fail(file, line, "message '%s' lacks '%s'", err.msg, want);
    if (!same_machine(&m, &d))
        t_fail(file, line, "the model changed although the file has an error");
}
#define CHECK_ERR(text, want) check_err_at(__FILE__, __LINE__, text, want)

static void check_set_err_at(const char *file, int line, const char *assign, const char *want)
{
    up_machine m, d;
    up_err err;
    up_machine_init(&m);
    up_machine_init(&d);
    memset(&err, 0, sizeof err);
    if (up_machine_set(&m, assign, &err) != UP_EUSAGE)
        t_fail(file, line, "--set %s was accepted", assign);
    else if (!strstr(err.msg, want))
        t_fail(file, line, "message '%s' lacks '%s'", err.msg, want);
    if (!same_machine(&m, &d))
        t_fail(file, line, "--set %s changed the model although it failed", assign);
}
#define CHECK_SET_ERR(assign, want) check_set_err_at(__FILE__, __LINE__, assign, want)

TEST(machine_defaults)
{
    up_machine m;
    up_machine_init(&m);
    CHECK_NEAR(m.cpu_ratio, 1, 0);
    CHECK_EQ(m.compute, UP_COMPUTE_AUTO);
    CHECK_EQ(m.progress, UP_PROGRESS_MPI);
    CHECK_NEAR(m.interrupt_ns, 1000, 0);
    CHECK_NEAR(m.poll_chunk_ns, 10000, 0);
    CHECK_NEAR(m.poll_ns, 100, 0);
    CHECK_NEAR(m.latency_ns, 1500, 0);
    CHECK_NEAR(m.ns_per_byte, 0.1, 0);
    CHECK_NEAR(m.per_hop_ns, 100, 0);
    CHECK_NEAR(m.node_latency_ns, 300, 0);
    CHECK_NEAR(m.node_ns_per_byte, 0.1, 0);
    CHECK_NEAR(m.send_overhead_ns, 200, 0);
    CHECK_NEAR(m.recv_overhead_ns, 200, 0);
    CHECK_NEAR(m.eager_limit, 4096, 0);
    CHECK(!m.contention);
    CHECK_EQ(m.topology, UP_TOPO_FULL);
    CHECK_EQ(m.dims[0] + m.dims[1] + m.dims[2], 0);
    CHECK_EQ(m.fat_tree_k, 4);
    CHECK_EQ(m.ranks_per_node, 1);
    CHECK_EQ(m.placement, UP_PLACE_BLOCK);
    CHECK_EQ(m.barrier, UP_BARRIER_LINEAR);
    CHECK_NEAR(m.entry_ns + m.exit_ns + m.check_ns + m.exit_check_ns + m.model_ns, 0, 0);
    CHECK(m.barrier_by_msgs);
    CHECK_NEAR(m.barrier_msg_size, 16, 0);
    CHECK_EQ(m.algo[UP_CK_BCAST], UP_ALGO_BINOMIAL);
    CHECK_EQ(m.algo[UP_CK_SCATTER], UP_ALGO_LINEAR);
    CHECK_EQ(m.algo[UP_CK_GATHER], UP_ALGO_LINEAR);
    CHECK_EQ(m.algo[UP_CK_REDUCE], UP_ALGO_BINOMIAL);
    CHECK_EQ(m.algo[UP_CK_ALLREDUCE], UP_ALGO_RECURSIVE_DOUBLING);
    CHECK_EQ(m.algo[UP_CK_ALLGATHER], UP_ALGO_RING);
    CHECK_EQ(m.algo[UP_CK_ALLTOALL], UP_ALGO_PAIRWISE);
    CHECK_EQ(m.algo[UP_CK_REDUCE_SCATTER], UP_ALGO_RING);
    CHECK_EQ(m.algo[UP_CK_SCAN], UP_ALGO_LINEAR);
    CHECK_NEAR(m.reduce_ns_per_byte, 0.1, 0);
}

/* Every key, none at its default. */
static const char full_file[] =
    "# a machine with every key\n"
    "[processor]\n"
    "cpu_ratio = 2.5\n"
    "compute = cpu\n"
    "progress = polling\n"
    "interrupt_ns = 750\n"
    "poll_chunk_ns = 5000\n"
    "poll_ns = 40\n"
    "\n"
    "[network]\n"
    "latency_ns = 1300   ; InfiniBand\n"
    "ns_per_byte = 0.04\n"
    "per_hop_ns = 90\n"
    "node_latency_ns = 250\n"
    "node_ns_per_byte = 0.08\n"
    "send_overhead_ns = 150\n"
    "recv_overhead_ns = 170\n"
    "eager_limit = 8192\n"
    "contention = on\n"
    "topology = torus3d\n"
    "dims = 4x2x8\n"
    "fat_tree_k = 16\n"
    "ranks_per_node = 32\n"
    "placement = cyclic\n"
    "\n"
    "[barrier]\n"
    "barrier = dissemination\n"
    "entry_ns = 5\n"
    "exit_ns = 6\n"
    "check_ns = 2\n"
    "exit_check_ns = 3\n"
    "model_ns = 10\n"
    "barrier_by_msgs = false\n"
    "barrier_msg_size = 64\n"
    "\n"
    "[collectives]\n"
    "bcast = linear\n"
    "scatter = binomial\n"
    "gather = binomial\n"
    "reduce = linear\n"
    "allreduce = ring\n"
    "allgather = recursive_doubling\n"
    "alltoall = linear\n"
    "reduce_scatter = recursive_doubling\n"
    "scan = recursive_doubling\n"
    "reduce_ns_per_byte = 0.25\n";

static void check_full(const up_machine *m)
{
    CHECK_NEAR(m->cpu_ratio, 2.5, 0);
    CHECK_EQ(m->compute, UP_COMPUTE_CPU);
    CHECK_EQ(m->progress, UP_PROGRESS_POLLING);
    CHECK_NEAR(m->interrupt_ns, 750, 0);
    CHECK_NEAR(m->poll_chunk_ns, 5000, 0);
    CHECK_NEAR(m->poll_ns, 40, 0);
    CHECK_NEAR(m->latency_ns, 1300, 0);
    CHECK_NEAR(m->ns_per_byte, 0.04, 0);
    CHECK_NEAR(m->per_hop_ns, 90, 0);
    CHECK_NEAR(m->node_latency_ns, 250, 0);
    CHECK_NEAR(m->node_ns_per_byte, 0.08, 0);
    CHECK_NEAR(m->send_overhead_ns, 150, 0);
    CHECK_NEAR(m->recv_overhead_ns, 170, 0);
    CHECK_NEAR(m->eager_limit, 8192, 0);
    CHECK(m->contention);
    CHECK_EQ(m->topology, UP_TOPO_TORUS3D);
    CHECK_EQ(m->dims[0], 4);
    CHECK_EQ(m->dims[1], 2);
    CHECK_EQ(m->dims[2], 8);
    CHECK_EQ(m->fat_tree_k, 16);
    CHECK_EQ(m->ranks_per_node, 32);
    CHECK_EQ(m->placement, UP_PLACE_CYCLIC);
    CHECK_EQ(m->barrier, UP_BARRIER_DISSEMINATION);
    CHECK_NEAR(m->entry_ns, 5, 0);
    CHECK_NEAR(m->exit_ns, 6, 0);
    CHECK_NEAR(m->check_ns, 2, 0);
    CHECK_NEAR(m->exit_check_ns, 3, 0);
    CHECK_NEAR(m->model_ns, 10, 0);
    CHECK(!m->barrier_by_msgs);
    CHECK_NEAR(m->barrier_msg_size, 64, 0);
    CHECK_EQ(m->algo[UP_CK_BCAST], UP_ALGO_LINEAR);
    CHECK_EQ(m->algo[UP_CK_SCATTER], UP_ALGO_BINOMIAL);
    CHECK_EQ(m->algo[UP_CK_GATHER], UP_ALGO_BINOMIAL);
    CHECK_EQ(m->algo[UP_CK_REDUCE], UP_ALGO_LINEAR);
    CHECK_EQ(m->algo[UP_CK_ALLREDUCE], UP_ALGO_RING);
    CHECK_EQ(m->algo[UP_CK_ALLGATHER], UP_ALGO_RECURSIVE_DOUBLING);
    CHECK_EQ(m->algo[UP_CK_ALLTOALL], UP_ALGO_LINEAR);
    CHECK_EQ(m->algo[UP_CK_REDUCE_SCATTER], UP_ALGO_RECURSIVE_DOUBLING);
    CHECK_EQ(m->algo[UP_CK_SCAN], UP_ALGO_RECURSIVE_DOUBLING);
    CHECK_NEAR(m->reduce_ns_per_byte, 0.25, 0);
}

TEST(machine_full_file)
{
    up_machine m;
    up_err err;
    up_machine_init(&m);
    CHECK_EQ(up_machine_parse(full_file, "full.ini", &m, &err), UP_OK);
    check_full(&m);
}

TEST(machine_load_file)
{
    char dir[4096], path[4200];
    up_machine m;
    up_err err;
    FILE *f;
    snprintf(dir, sizeof dir, "%s", t_dir("files"));
    CHECK(mkdir(dir, 0700) == 0);
    snprintf(path, sizeof path, "%s/full.ini", dir);
    CHECK((f = fopen(path, "w")) != NULL);
    if (!f)
        return;
    fputs(full_file, f);
    fclose(f);
    up_machine_init(&m);
    CHECK_EQ(up_machine_load(path, &m, &err), UP_OK);
    check_full(&m);

    /* a key the file does not name keeps its value */
    up_machine_init(&m);
    m.latency_ns = 7;
    CHECK_EQ(up_machine_parse("[processor]\ncpu_ratio = 3\n", "x", &m, &err), UP_OK);
    CHECK_NEAR(m.latency_ns, 7, 0);
    CHECK_NEAR(m.cpu_ratio, 3, 0);

    snprintf(path, sizeof path, "%s/missing.ini", dir);
    CHECK_EQ(up_machine_load(path, &m, &err), UP_EIO);
    CHECK(strstr(err.msg, "missing.ini") != NULL);
}

TEST(machine_syntax)
{
    up_machine m;
    up_err err;
    /* indentation, CRLF, comments with # and ;, an inline comment, case of
     * names in values, an empty file, a section that appears twice */
    up_machine_init(&m);
    CHECK_EQ(up_machine_parse("; comment\r\n[network]\r\n  latency_ns = 10\r\n"
                              "\tns_per_byte=0.5 ; half a ns\r\n"
                              "  # another comment\r\n  topology = HyperCube\r\n"
                              "[processor]\ncpu_ratio=4\n[network]\ncontention = YES",
                              "x", &m, &err),
             UP_OK);
    CHECK_NEAR(m.latency_ns, 10, 0);
    CHECK_NEAR(m.ns_per_byte, 0.5, 0);
    CHECK_EQ(m.topology, UP_TOPO_HYPERCUBE);
    CHECK_NEAR(m.cpu_ratio, 4, 0);
    CHECK(m.contention);
    CHECK_EQ(up_machine_parse("", "x", &m, &err), UP_OK);
    CHECK_EQ(up_machine_parse("[barrier]\n", "x", &m, &err), UP_OK);
    /* numbers: exponents, -0 is 0 */
    CHECK_EQ(up_machine_parse("[network]\nper_hop_ns = 1.5e2\nlatency_ns = -0\n", "x", &m, &err),
             UP_OK);
    CHECK_NEAR(m.per_hop_ns, 150, 0);
    CHECK(m.latency_ns == 0 && !signbit(m.latency_ns));
    /* booleans */
    {
        static const char *const t[] = {"1", "true", "yes", "on", "True"};
        static const char *const f[] = {"0", "false", "no", "off", "OFF"};
        char text[128];
        unsigned i;
        for (i = 0; i < 5; i++) {
            snprintf(text, sizeof text, "[barrier]\nbarrier_by_msgs = %s\n", t[i]);
            m.barrier_by_msgs = false;
            CHECK_EQ(up_machine_parse(text, "x", &m, &err), UP_OK);
            CHECK(m.barrier_by_msgs);
            snprintf(text, sizeof text, "[barrier]\nbarrier_by_msgs = %s\n", f[i]);
            CHECK_EQ(up_machine_parse(text, "x", &m, &err), UP_OK);
            CHECK(!m.barrier_by_msgs);
        }
    }
    /* dims */
    CHECK_EQ(up_machine_parse("[network]\ndims = 8x8\n", "x", &m, &err), UP_OK);
    CHECK(m.dims[0] == 8 && m.dims[1] == 8 && m.dims[2] == 0);
    CHECK_EQ(up_machine_parse("[network]\ndims = 4 X 4 x 2\n", "x", &m, &err), UP_OK);
    CHECK(m.dims[0] == 4 && m.dims[1] == 4 && m.dims[2] == 2);
    CHECK_EQ(up_machine_parse("[network]\ndims = auto\n", "x", &m, &err), UP_OK);
    CHECK(m.dims[0] == 0 && m.dims[1] == 0 && m.dims[2] == 0);
    CHECK_EQ(up_machine_parse("[network]\ndims = 0\n", "x", &m, &err), UP_OK);
}

TEST(machine_errors)
{
    /* unknown key: file, line and key */
    CHECK_ERR("[processor]\ncpu_ratio = 2\n\n[network]\nlatncy_ns = 5\n",
              "m.ini:5: unknown key 'latncy_ns' in [network] (expected latency_ns,");
    /* unknown section, also an empty one */
    CHECK_ERR("[processor]\ncpu_ratio = 2\n[netwrok]\nlatency_ns = 5\n",
              "m.ini:3: unknown section [netwrok]");
    CHECK_ERR("[netwrok]\n", "m.ini:1: unknown section [netwrok]");
    /* a key in the wrong section names the right one */
    CHECK_ERR("[processor]\nlatency_ns = 5\n",
              "m.ini:2: latency_ns belongs in [network], not [processor]");
    CHECK_ERR("[network]\nbcast = linear\n", "bcast belongs in [collectives], not [network]");
    CHECK_ERR("latency_ns = 5\n", "m.ini:1: latency_ns comes before any section (it belongs in [network])");
    CHECK_ERR("foo = 5\n", "m.ini:1: unknown key 'foo' before any section");
    /* bad values */
    CHECK_ERR("[network]\nlatency_ns = abc\n",
              "m.ini:2: latency_ns = abc: not a number (must be between 0 and 1e9 ns)");
    CHECK_ERR("[network]\nlatency_ns = -5\n", "m.ini:2: latency_ns = -5: must be between 0 and 1e9 ns");
    CHECK_ERR("[network]\nlatency_ns = 5 ns\n", "latency_ns = 5 ns: not a number");
    CHECK_ERR("[network]\nlatency_ns =\n", "latency_ns = : not a number");
    CHECK_ERR("[network]\nlatency_ns = inf\n", "latency_ns = inf: must be between 0 and 1e9 ns");
    CHECK_ERR("[network]\nlatency_ns = nan\n", "latency_ns = nan: not a number");
    CHECK_ERR("[network]\nlatency_ns = 0x10\n", "latency_ns = 0x10: not a number");
    CHECK_ERR("[network]\nlatency_ns = 1e999\n", "latency_ns = 1e999: must be between 0 and 1e9 ns");
    /* every number within its range (docs/machine.md) */
    CHECK_ERR("[network]\nlatency_ns = 1e300\n", "m.ini:2: latency_ns = 1e300: must be between 0 and 1e9 ns");
    CHECK_ERR("[network]\nper_hop_ns = 1000000001\n", "per_hop_ns = 1000000001: must be between 0 and 1e9 ns");
    CHECK_ERR("[network]\nns_per_byte = 2e6\n", "ns_per_byte = 2e6: must be between 0 and 1e6 ns/byte");
    CHECK_ERR("[processor]\ncpu_ratio = 0\n", "m.ini:2: cpu_ratio = 0: must be between 0.001 and 1000");
    CHECK_ERR("[processor]\ncpu_ratio = 1e-20\n", "cpu_ratio = 1e-20: must be between 0.001 and 1000");
    CHECK_ERR("[processor]\ncpu_ratio = 1001\n", "cpu_ratio = 1001: must be between 0.001 and 1000");
    CHECK_ERR("[processor]\npoll_chunk_ns = 0\n", "poll_chunk_ns = 0: must be between 1 and 1e9 ns");
    CHECK_ERR("[network]\nbandwidth_gbs = 0\n", "bandwidth_gbs = 0: must be between 1e-6 and 1e6 GB/s");
    CHECK_ERR("[network]\neager_limit = 1.5\n",
              "eager_limit = 1.5: must be a whole number between 0 and 2^53 bytes");
    CHECK_ERR("[network]\neager_limit = 9007199254740994\n", "must be a whole number between 0 and 2^53 bytes");
    CHECK_ERR("[barrier]\nbarrier_msg_size = 2.5\n", "barrier_msg_size = 2.5: must be a whole number");
    CHECK_ERR("[network]\nranks_per_node = 0\n", "ranks_per_node = 0: must be a whole number between 1 and 1e6");
    CHECK_ERR("[network]\nranks_per_node = 2.5\n", "ranks_per_node = 2.5: must be a whole number");
    CHECK_ERR("[network]\nranks_per_node = 1e10\n", "ranks_per_node = 1e10: must be a whole number");
    CHECK_ERR("[network]\nfat_tree_k = 1\n", "fat_tree_k = 1: must be a whole number between 2 and 1e6");
    CHECK_ERR("[network]\ntopology = mesh\n",
              "topology = mesh: expected full, ring, torus2d, torus3d, hypercube or fattree");
    CHECK_ERR("[processor]\ncompute = gpu\n", "expected auto, wall or cpu");
    CHECK_ERR("[processor]\nprogress = never\n", "expected mpi, interrupt or polling");
    CHECK_ERR("[network]\nplacement = random\n", "expected block or cyclic");
    CHECK_ERR("[barrier]\nbarrier = butterfly\n", "expected linear, tree or dissemination");
    CHECK_ERR("[network]\ncontention = maybe\n", "contention = maybe: expected 1, 0, true");
    /* algorithms that do not apply to the operation */
    CHECK_ERR("[collectives]\nbcast = ring\n",
              "bcast = ring: not an algorithm for bcast (expected linear or binomial)");
    CHECK_ERR("[collectives]\nalltoall = binomial\n", "not an algorithm for alltoall");
    CHECK_ERR("[collectives]\nscan = ring\n",
              "not an algorithm for scan (expected linear or recursive_doubling)");
    CHECK_ERR("[collectives]\nallreduce = binomial\n",
              "(expected linear, recursive_doubling or ring)");
    CHECK_ERR("[collectives]\nreduce = fast\n", "reduce = fast: expected linear or binomial");
    /* dims */
    CHECK_ERR("[network]\ndims = 8\n", "dims = 8: expected auto, AxB or AxBxC");
    CHECK_ERR("[network]\ndims = 8x\n", "expected auto, AxB or AxBxC");
    CHECK_ERR("[network]\ndims = x8\n", "expected auto, AxB or AxBxC");
    CHECK_ERR("[network]\ndims = 2x2x2x2\n", "expected auto, AxB or AxBxC");
    CHECK_ERR("[network]\ndims = -4x4\n", "expected auto, AxB or AxBxC");
    CHECK_ERR("[network]\ndims = 4.5x4\n", "expected auto, AxB or AxBxC");
    CHECK_ERR("[network]\ndims = 4x99999999999\n", "expected auto, AxB or AxBxC");
    CHECK_ERR("[network]\ndims = 4*4\n", "expected auto, AxB or AxBxC");
    /* twice, directly or through bandwidth_gbs */
    CHECK_ERR("[network]\nlatency_ns = 1\n\nlatency_ns = 2\n",
              "m.ini:4: latency_ns is set twice (first at line 2)");
    CHECK_ERR("[network]\nns_per_byte = 1\nbandwidth_gbs = 2\n",
              "m.ini:3: bandwidth_gbs and ns_per_byte (line 2) set the same parameter");
    /* not INI, and the earliest error wins */
    CHECK_ERR("[network]\nlatency_ns 5\n", "m.ini:2: not an INI line (expected 'key = value'");
    CHECK_ERR("[network\n", "m.ini:1: not an INI line (expected 'key = value'");
    CHECK_ERR("[network]\nlatency_ns 5\nfoo = 1\n", "m.ini:2: not an INI line (expected");
    CHECK_ERR("[network]\nfoo = 1\nlatency_ns 5\n", "m.ini:2: unknown key 'foo'");
    /* a line too long for inih's buffer */
    {
        char text[400];
        snprintf(text, sizeof text, "[network]\nlatency_ns = 1%0250d\n", 0);
        CHECK_ERR(text, "m.ini:2: line longer than 199 characters");
    }
    /* a value after an error line does not land */
    CHECK_ERR("[network]\nfoo = 1\nlatency_ns = 5\n", "unknown key 'foo'");
}

TEST(machine_long_lines)
{
    char text[512];
    up_machine m;
    up_err err;
    /* 199 characters fit, also with a CR before the newline */
    snprintf(text, sizeof text, "[network]\nlatency_ns = %0186d\r\n", 12);
    CHECK_EQ(strlen(strchr(text, '\n') + 1), 199 + 2);
    up_machine_init(&m);
    CHECK_EQ(up_machine_parse(text, "x", &m, &err), UP_OK);
    CHECK_NEAR(m.latency_ns, 12, 0);
    snprintf(text, sizeof text, "[network]\nlatency_ns = %0187d\n", 12);
    CHECK_EQ(up_machine_parse(text, "x", &m, &err), UP_EFORMAT);
    CHECK(strstr(err.msg, "x:2: line longer than 199") != NULL);
}

/* Only regular files of at most 1 MiB: `simulate --machine /dev/zero` used
 * to hang, a directory read as an empty file.  Missing or unreadable files
 * are UP_EIO (exit 1), with the path and the reason. */
TEST(machine_odd_files_are_refused)
{
    char dir[4096], path[4200], want[4400];
    up_machine m, d;
    up_err err;
    FILE *f;
    snprintf(dir, sizeof dir, "%s", t_dir("odd"));
    CHECK(mkdir(dir, 0700) == 0);
    up_machine_init(&m);
    up_machine_init(&d);
    CHECK_EQ(up_machine_load("/dev/zero", &m, &err), UP_EIO);
    CHECK(!strcmp(err.msg, "cannot read the machine file '/dev/zero': it is a character device, not a "
                           "regular file"));
    CHECK_EQ(up_machine_load(dir, &m, &err), UP_EIO);
    snprintf(want, sizeof want, "cannot read the machine file '%s': it is a directory, not a file", dir);
    CHECK(!strcmp(err.msg, want));
    snprintf(path, sizeof path, "%s/fifo", dir);
    CHECK(mkfifo(path, 0600) == 0);
    CHECK_EQ(up_machine_load(path, &m, &err), UP_EIO); /* at once: no writer needed */
    snprintf(want, sizeof want, "cannot read the machine file '%s': it is a FIFO (named pipe), not a "
                                "regular file", path);
    CHECK(!strcmp(err.msg, want));
    snprintf(path, sizeof path, "%s/none.ini", dir);
    CHECK_EQ(up_machine_load(path, &m, &err), UP_EIO);
    snprintf(want, sizeof want, "cannot read the machine file '%s': No such file or directory", path);
    CHECK(!strcmp(err.msg, want));
    /* larger than 1 MiB: refused before it is read */
    snprintf(path, sizeof path, "%s/big.ini", dir);
    CHECK((f = fopen(path, "w")) != NULL);
    if (f) {
        unsigned i;
        for (i = 0; i < 16384; i++) /* 16384 lines of 64 bytes: 1 MiB exactly */
            fprintf(f, "# %061u\n", i);
        fclose(f);
        CHECK_EQ(up_machine_load(path, &m, &err), UP_OK);
        f = fopen(path, "a");
        CHECK(f != NULL);
        if (f) {
            fputc('\n', f);
            fclose(f);
        }
        CHECK_EQ(up_machine_load(path, &m, &err), UP_EIO);
        snprintf(want, sizeof want, "cannot read the machine file '%s': larger than 1 MiB, the limit for "
                                    "a machine file", path);
        CHECK(!strcmp(err.msg, want));
    }
    /* a NUL byte: not text */
    snprintf(path, sizeof path, "%s/nul.ini", dir);
    CHECK((f = fopen(path, "w")) != NULL);
    if (f) {
        fwrite("[network]\nlatency_ns = 5\0\n", 1, 26, f);
        fclose(f);
        CHECK_EQ(up_machine_load(path, &m, &err), UP_EIO);
        snprintf(want, sizeof want, "%s:2: a NUL byte: not a text file (a machine file is INI text)", path);
        CHECK(!strcmp(err.msg, want));
    }
    CHECK(same_machine(&m, &d));
}

/* Keys, values and sections quote what does not print as \xNN; a long last
 * line names its own line. */
TEST(machine_messages_escape_input)
{
    char text[512];
    CHECK_ERR("[network]\nlat\x1b[2Jency_ns = 5\n", "m.ini:2: unknown key 'lat\\x1b[2Jency_ns' in [network]");
    CHECK_ERR("[network]\nlatency_ns = 5\x07\n",
              "m.ini:2: latency_ns = 5\\x07: not a number (must be between 0 and 1e9 ns)");
    CHECK_ERR("[net\x01work]\n", "m.ini:1: unknown section [net\\x01work] (expected [processor]");
    CHECK_ERR("\xff\xfe = 1\n", "m.ini:1: unknown key '\\xff\\xfe' before any section");
    snprintf(text, sizeof text, "[network]\nlatency_ns = 1%0250d", 0);
    CHECK_ERR(text, "m.ini:2: line longer than 199 characters");
    {
        up_machine m;
        up_err err;
        up_machine_init(&m);
        CHECK_EQ(up_machine_set(&m, "latency_ns=\x1b[31m", &err), UP_EUSAGE);
        CHECK(!strcmp(err.msg, "--set latency_ns=\\x1b[31m: not a number (must be between 0 and 1e9 ns)"));
        CHECK_EQ(up_machine_set(&m, "lat\x01=5", &err), UP_EUSAGE);
        CHECK(!strcmp(err.msg, "--set lat\\x01=5: unknown key 'lat\\x01' (docs/machine.md lists the keys)"));
    }
}

/* A model built in code is checked like a file (up_sim_new does). */
TEST(machine_check_in_code)
{
    up_machine m;
    up_err err;
    up_machine_init(&m);
    CHECK_EQ(up_machine_check(&m, &err), UP_OK);
    m.cpu_ratio = 1e-20;
    CHECK_EQ(up_machine_check(&m, &err), UP_EUSAGE);
    CHECK(!strcmp(err.msg, "cpu_ratio = 1e-20: must be between 0.001 and 1000"));
    up_machine_init(&m);
    m.ranks_per_node = 0;
    CHECK_EQ(up_machine_check(&m, &err), UP_EUSAGE);
    CHECK(!strcmp(err.msg, "ranks_per_node = 0: must be a whole number between 1 and 1e6"));
    up_machine_init(&m);
    m.eager_limit = NAN;
    CHECK_EQ(up_machine_check(&m, &err), UP_EUSAGE);
    CHECK(!strcmp(err.msg, "eager_limit = nan: must be a whole number between 0 and 2^53 bytes"));
}

TEST(machine_set)
{
    up_machine m;
    up_err err;
    up_machine_init(&m);
    CHECK_EQ(up_machine_set(&m, "latency_ns=5000", &err), UP_OK);
    CHECK_NEAR(m.latency_ns, 5000, 0);
    CHECK_EQ(up_machine_set(&m, "network.latency_ns=6000", &err), UP_OK);
    CHECK_NEAR(m.latency_ns, 6000, 0);
    CHECK_EQ(up_machine_set(&m, "  processor.cpu_ratio = 2 ", &err), UP_OK);
    CHECK_NEAR(m.cpu_ratio, 2, 0);
    CHECK_EQ(up_machine_set(&m, "topology=torus2d", &err), UP_OK);
    CHECK_EQ(m.topology, UP_TOPO_TORUS2D);
    CHECK_EQ(up_machine_set(&m, "dims=8x8", &err), UP_OK);
    CHECK(m.dims[0] == 8 && m.dims[1] == 8 && m.dims[2] == 0);
    CHECK_EQ(up_machine_set(&m, "collectives.allreduce=ring", &err), UP_OK);
    CHECK_EQ(m.algo[UP_CK_ALLREDUCE], UP_ALGO_RING);
    CHECK_EQ(up_machine_set(&m, "barrier.barrier=tree", &err), UP_OK);
    CHECK_EQ(m.barrier, UP_BARRIER_TREE);
    CHECK_EQ(up_machine_set(&m, "contention=1", &err), UP_OK);
    CHECK(m.contention);
    CHECK_EQ(up_machine_set(&m, "ranks_per_node=8", &err), UP_OK);
    CHECK_EQ(m.ranks_per_node, 8);

    CHECK_SET_ERR("latency_ns", "--set latency_ns: expected key=value");
    CHECK_SET_ERR("latncy_ns=5", "--set latncy_ns=5: unknown key 'latncy_ns'");
    CHECK_SET_ERR("processor.latency_ns=5",
                  "--set processor.latency_ns=5: latency_ns belongs in [network], not [processor]");
    CHECK_SET_ERR("netwrok.latency_ns=5", "unknown section 'netwrok' (latency_ns belongs in [network])");
    CHECK_SET_ERR("latency_ns=-1", "--set latency_ns=-1: must be between 0 and 1e9 ns");
    CHECK_SET_ERR("cpu_ratio=0", "--set cpu_ratio=0: must be between 0.001 and 1000");
    CHECK_SET_ERR("cpu_ratio=1e-20", "--set cpu_ratio=1e-20: must be between 0.001 and 1000");
    CHECK_SET_ERR("eager_limit=1.5", "--set eager_limit=1.5: must be a whole number between 0 and 2^53 bytes");
    CHECK_SET_ERR("latency_ns=1e300", "--set latency_ns=1e300: must be between 0 and 1e9 ns");
    CHECK_SET_ERR("bcast=ring", "not an algorithm for bcast");
    CHECK_SET_ERR("dims=8", "expected auto, AxB or AxBxC");
    CHECK_SET_ERR("=5", "unknown key ''");
}

TEST(machine_bandwidth)
{
    up_machine m;
    up_err err;
    up_machine_init(&m);
    CHECK_NEAR(up_machine_get_num(&m, "bandwidth_gbs"), 10, 1e-12);
    CHECK_EQ(up_machine_parse("[network]\nbandwidth_gbs = 20\n", "x", &m, &err), UP_OK);
    CHECK_NEAR(m.ns_per_byte, 0.05, 1e-15);
    CHECK_NEAR(up_machine_get_num(&m, "bandwidth_gbs"), 20, 1e-12);
    CHECK_EQ(up_machine_set(&m, "network.bandwidth_gbs=0.5", &err), UP_OK);
    CHECK_NEAR(m.ns_per_byte, 2, 0);
    CHECK_EQ(up_machine_set_num(&m, "bandwidth_gbs", 100, &err), UP_OK);
    CHECK_NEAR(m.ns_per_byte, 0.01, 1e-15);
    CHECK_EQ(up_machine_set_num(&m, "bandwidth_gbs", 0, &err), UP_EUSAGE);
    CHECK_EQ(up_machine_set_num(&m, "bandwidth_gbs", 1e-320, &err), UP_EUSAGE);
    m.ns_per_byte = 0;
    CHECK(isinf(up_machine_get_num(&m, "bandwidth_gbs")));
}

TEST(machine_numeric)
{
    static const char *const numeric[] = {
        "cpu_ratio",        "interrupt_ns",     "poll_chunk_ns",    "poll_ns",
        "latency_ns",       "ns_per_byte",      "bandwidth_gbs",    "per_hop_ns",
        "node_latency_ns",  "node_ns_per_byte", "send_overhead_ns", "recv_overhead_ns",
        "eager_limit",      "fat_tree_k",       "ranks_per_node",   "entry_ns",
        "exit_ns",          "check_ns",         "exit_check_ns",    "model_ns",
        "barrier_msg_size", "reduce_ns_per_byte"};
    static const char *const other[] = {
        "compute", "progress", "contention", "topology", "dims", "placement", "barrier",
        "barrier_by_msgs", "bcast", "scan", "nonsense", "", "network.cpu_ratio",
        "foo.latency_ns"};
    up_machine m;
    up_err err;
    unsigned i;
    up_machine_init(&m);
    for (i = 0; i < sizeof numeric / sizeof numeric[0]; i++) {
        double v = i + 3;
        if (!up_machine_range(numeric[i]))
            t_fail(__FILE__, __LINE__, "%s is not numeric", numeric[i]);
        if (up_machine_set_num(&m, numeric[i], v, &err) != UP_OK)
            t_fail(__FILE__, __LINE__, "set_num %s: %s", numeric[i], err.msg);
        CHECK_NEAR(up_machine_get_num(&m, numeric[i]), v, 1e-12);
    }
    for (i = 0; i < sizeof other / sizeof other[0]; i++) {
        if (up_machine_range(other[i]))
            t_fail(__FILE__, __LINE__, "%s is numeric", other[i]);
        CHECK(isnan(up_machine_get_num(&m, other[i])));
        CHECK(up_machine_set_num(&m, other[i], 1, &err) == UP_EUSAGE);
    }
    CHECK(up_machine_range("network.latency_ns") == &UP_RANGE_NS);
    CHECK(up_machine_range("cpu_ratio") && up_machine_range("cpu_ratio")->lo == 0.001);
    CHECK_EQ(up_machine_set_num(&m, "network.latency_ns", 42, &err), UP_OK);
    CHECK_NEAR(up_machine_get_num(&m, "network.latency_ns"), 42, 0);
    CHECK_EQ(up_machine_set_num(&m, "topology", 1, &err), UP_EUSAGE);
    CHECK(strstr(err.msg, "topology is not a numeric parameter") != NULL);
    CHECK_EQ(up_machine_set_num(&m, "ranks_per_node", 2.5, &err), UP_EUSAGE);
    CHECK(!strcmp(err.msg, "ranks_per_node = 2.5: must be a whole number between 1 and 1e6"));
    CHECK_EQ(up_machine_set_num(&m, "ranks_per_node", 0, &err), UP_EUSAGE);
    CHECK_EQ(up_machine_set_num(&m, "fat_tree_k", 1, &err), UP_EUSAGE);
    CHECK_EQ(up_machine_set_num(&m, "eager_limit", 0.5, &err), UP_EUSAGE);
    CHECK_EQ(up_machine_set_num(&m, "latency_ns", -1, &err), UP_EUSAGE);
    CHECK_EQ(up_machine_set_num(&m, "latency_ns", NAN, &err), UP_EUSAGE);
    CHECK_EQ(up_machine_set_num(&m, "latency_ns", INFINITY, &err), UP_EUSAGE);
    CHECK_EQ(up_machine_set_num(&m, "cpu_ratio", 0, &err), UP_EUSAGE);
    CHECK_NEAR(up_machine_get_num(&m, "latency_ns"), 42, 0);
    CHECK_EQ(up_machine_set_num(&m, "ranks_per_node", 64, &err), UP_OK);
    CHECK_EQ(m.ranks_per_node, 64);
}

/* Writes m to text (caller frees). */
static char *write_text(const up_machine *m)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    CHECK_EQ(up_machine_write(f, m), 0);
    fclose(f);
    return buf;
}

static void check_round_trip(const up_machine *m)
{
    up_machine back;
    up_err err;
    char *t1 = write_text(m), *t2;
    CHECK(t1 != NULL);
    if (!t1)
        return;
    /* loaded over a model with other values: every key is in the text */
    up_machine_init(&back);
    CHECK_EQ(up_machine_parse(full_file, "full", &back, &err), UP_OK);
    back.dims[2] = 7;
    if (up_machine_parse(t1, "written", &back, &err) != UP_OK)
        t_fail(__FILE__, __LINE__, "%s\n%s", err.msg, t1);
    CHECK(same_machine(m, &back));
    t2 = write_text(&back);
    CHECK(t2 && !strcmp(t1, t2));
    free(t1);
    free(t2);
}

TEST(machine_write_round_trip)
{
    up_machine m;
    up_err err;
    char *t;
    up_machine_init(&m);
    check_round_trip(&m);
    CHECK_EQ(up_machine_parse(full_file, "full", &m, &err), UP_OK);
    check_round_trip(&m);
    /* numbers that need all their digits, 2D and partial dims */
    m.cpu_ratio = 1.0 / 3;
    m.ns_per_byte = 1 / 12.5e9 * 1e9 + 1e-17;
    m.latency_ns = 1e-7;
    m.eager_limit = 9007199254740992.0;
    m.dims[0] = 8, m.dims[1] = 16, m.dims[2] = 0;
    m.ranks_per_node = 1000000;
    check_round_trip(&m);
    m.dims[0] = 0, m.dims[1] = 0, m.dims[2] = 5;
    check_round_trip(&m);
    m.dims[0] = 3, m.dims[1] = 0, m.dims[2] = 0;
    check_round_trip(&m);

    /* the text: sections, a comment with the unit before each key */
    up_machine_init(&m);
    t = write_text(&m);
    CHECK(t != NULL);
    if (!t)
        return;
    CHECK(strstr(t, "[processor]\n") && strstr(t, "[network]\n") && strstr(t, "[barrier]\n") &&
          strstr(t, "[collectives]\n"));
    CHECK(strstr(t, ", ns\nlatency_ns = 1500\n") != NULL);
    CHECK(strstr(t, "ns/byte\nns_per_byte = 0.1\n") != NULL);
    CHECK(strstr(t, "bytes\neager_limit = 4096\n") != NULL);
    CHECK(strstr(t, "\ndims = auto\n") != NULL);
    CHECK(strstr(t, "\nbarrier_by_msgs = yes\n") != NULL);
    CHECK(strstr(t, "\nallreduce = recursive_doubling\n") != NULL);
    CHECK(strstr(t, "\nbandwidth_gbs") == NULL);
    free(t);

    /* a failing stream */
    {
        FILE *f = fopen("/dev/full", "w");
        if (f) {
            setvbuf(f, NULL, _IONBF, 0);
            CHECK_EQ(up_machine_write(f, &m), -1);
            fclose(f);
        }
    }
}

TEST(machine_example_files)
{
    up_machine m;
    up_err err;
    up_machine_init(&m);
    if (up_machine_load(t_src("examples/machines/cluster.ini"), &m, &err) != UP_OK)
        t_fail(__FILE__, __LINE__, "%s", err.msg);
    CHECK_EQ(m.topology, UP_TOPO_FATTREE);
    CHECK(m.ranks_per_node > 1);
    up_machine_init(&m);
    if (up_machine_load(t_src("examples/machines/this-machine.ini"), &m, &err) != UP_OK)
        t_fail(__FILE__, __LINE__, "%s", err.msg);
    CHECK(m.ranks_per_node > 1);
}

/* The first ini block of docs/machine.md is every key at its default. */
TEST(machine_doc_example)
{
    up_machine m, d;
    up_err err;
    char *text = NULL, *start, *end;
    size_t len = 0;
    FILE *f = fopen(t_src("docs/machine.md"), "r");
    CHECK(f != NULL);
    if (!f)
        return;
    text = malloc(1 << 20);
    if (text)
        len = fread(text, 1, (1 << 20) - 1, f);
    fclose(f);
    CHECK(text != NULL);
    if (!text)
        return;
    text[len] = '\0';
    start = strstr(text, "```ini\n");
    end = start ? strstr(start + 7, "```") : NULL;
    CHECK(start && end);
    if (start && end) {
        *end = '\0';
        up_machine_init(&d);
        up_machine_init(&m); /* every key must come from the block: */
        CHECK_EQ(up_machine_parse(full_file, "full", &m, &err), UP_OK);
        if (up_machine_parse(start + 7, "docs/machine.md", &m, &err) != UP_OK)
            t_fail(__FILE__, __LINE__, "%s", err.msg);
        CHECK(same_machine(&m, &d));
    }
    free(text);
}

TEST(machine_placement)
{
    up_machine m;
    up_machine_init(&m);
    /* one rank per node: the node is the rank */
    CHECK_EQ(up_machine_node_of(&m, 5, 8), 5);
    CHECK_EQ(up_machine_node_of(&m, -1, 8), 0);
    /* block, 4 per node, 10 ranks: 0-3, 4-7, 8-9 */
    m.ranks_per_node = 4;
    CHECK_EQ(up_machine_node_of(&m, 0, 10), 0);
    CHECK_EQ(up_machine_node_of(&m, 3, 10), 0);
    CHECK_EQ(up_machine_node_of(&m, 4, 10), 1);
    CHECK_EQ(up_machine_node_of(&m, 7, 10), 1);
    CHECK_EQ(up_machine_node_of(&m, 9, 10), 2);
    /* cyclic over ceil(10 / 4) = 3 nodes: 0,3,6,9 | 1,4,7 | 2,5,8 */
    m.placement = UP_PLACE_CYCLIC;
    CHECK_EQ(up_machine_node_of(&m, 0, 10), 0);
    CHECK_EQ(up_machine_node_of(&m, 3, 10), 0);
    CHECK_EQ(up_machine_node_of(&m, 9, 10), 0);
    CHECK_EQ(up_machine_node_of(&m, 1, 10), 1);
    CHECK_EQ(up_machine_node_of(&m, 7, 10), 1);
    CHECK_EQ(up_machine_node_of(&m, 5, 10), 2);
    CHECK_EQ(up_machine_node_of(&m, 8, 10), 2);
    /* 8 ranks, 4 per node: 2 nodes, even ranks on node 0 */
    CHECK_EQ(up_machine_node_of(&m, 6, 8), 0);
    CHECK_EQ(up_machine_node_of(&m, 7, 8), 1);
    /* no ranks: one node */
    CHECK_EQ(up_machine_node_of(&m, 3, 0), 0);
    m.ranks_per_node = 1;
    CHECK_EQ(up_machine_node_of(&m, 5, 8), 5);
}

TEST(machine_hops)
{
    up_machine m;
    up_machine_init(&m);

    /* full: 1 between any two nodes, 0 on one node */
    CHECK_EQ(up_machine_hops(&m, 0, 0, 8), 0);
    CHECK_EQ(up_machine_hops(&m, 0, 7, 8), 1);
    CHECK_EQ(up_machine_hops(&m, 3, 2, 8), 1);

    /* ring of 8: min(d, 8 - d) */
    m.topology = UP_TOPO_RING;
    CHECK_EQ(up_machine_hops(&m, 0, 5, 8), 3);
    CHECK_EQ(up_machine_hops(&m, 0, 4, 8), 4);
    CHECK_EQ(up_machine_hops(&m, 1, 7, 8), 2);
    CHECK_EQ(up_machine_hops(&m, 7, 0, 8), 1);
    CHECK_EQ(up_machine_hops(&m, 2, 2, 8), 0);
    /* a node past the count grows the ring: 0 -> 5 of 6 is 1 hop */
    CHECK_EQ(up_machine_hops(&m, 0, 5, 4), 1);

    /* torus 4x4: node = x + 4 y */
    m.topology = UP_TOPO_TORUS2D;
    m.dims[0] = 4, m.dims[1] = 4;
    CHECK_EQ(up_machine_hops(&m, 0, 15, 16), 2); /* (0,0) -> (3,3): 1 + 1, wrapping */
    CHECK_EQ(up_machine_hops(&m, 0, 5, 16), 2);  /* (1,1) */
    CHECK_EQ(up_machine_hops(&m, 0, 2, 16), 2);  /* (2,0) */
    CHECK_EQ(up_machine_hops(&m, 0, 3, 16), 1);  /* (3,0) */
    CHECK_EQ(up_machine_hops(&m, 0, 12, 16), 1); /* (0,3) */
    CHECK_EQ(up_machine_hops(&m, 1, 10, 16), 3); /* (1,0) -> (2,2) */
    /* 4x4 given, 20 nodes: grows to 4x5; 19 = (3,4) */
    CHECK_EQ(up_machine_hops(&m, 0, 19, 20), 2);
    CHECK_EQ(up_machine_hops(&m, 0, 16, 20), 1);  /* (0,4): wraps on 5 */
    CHECK_EQ(up_machine_hops(&m, 0, 8, 20), 2);   /* (0,2) */
    /* auto: 16 -> 4x4, 32 -> 4x8, 12 -> 3x4, 7 -> 1x7 (a ring) */
    m.dims[0] = m.dims[1] = 0;
    CHECK_EQ(up_machine_hops(&m, 0, 15, 16), 2);
    CHECK_EQ(up_machine_hops(&m, 0, 31, 32), 2);  /* (3,7) */
    CHECK_EQ(up_machine_hops(&m, 0, 4, 32), 1);   /* (0,1) */
    CHECK_EQ(up_machine_hops(&m, 0, 16, 32), 4);  /* (0,4) */
    CHECK_EQ(up_machine_hops(&m, 0, 11, 12), 2);  /* (2,3) on 3x4 */
    CHECK_EQ(up_machine_hops(&m, 0, 3, 12), 1);   /* (0,1) */
    CHECK_EQ(up_machine_hops(&m, 0, 3, 7), 3);
    CHECK_EQ(up_machine_hops(&m, 0, 4, 7), 3);
    /* a zero size: the whole shape is chosen */
    m.dims[0] = 2, m.dims[1] = 0;
    CHECK_EQ(up_machine_hops(&m, 0, 15, 16), 2);
    /* torus2d uses the first two sizes of a 3D dims */
    m.dims[0] = 4, m.dims[1] = 4, m.dims[2] = 4;
    CHECK_EQ(up_machine_hops(&m, 0, 15, 16), 2);

    /* torus 4x4x4: node = x + 4 y + 16 z */
    m.topology = UP_TOPO_TORUS3D;
    CHECK_EQ(up_machine_hops(&m, 0, 63, 64), 3); /* (3,3,3) */
    CHECK_EQ(up_machine_hops(&m, 0, 21, 64), 3); /* (1,1,1) */
    CHECK_EQ(up_machine_hops(&m, 0, 32, 64), 2); /* (0,0,2) */
    CHECK_EQ(up_machine_hops(&m, 5, 6, 64), 1);
    /* auto: 64 -> 4x4x4, 32 -> 2x4x4, 12 -> 2x2x3 */
    m.dims[0] = m.dims[1] = m.dims[2] = 0;
    CHECK_EQ(up_machine_hops(&m, 0, 63, 64), 3);
    CHECK_EQ(up_machine_hops(&m, 0, 31, 32), 3); /* (1,3,3) */
    CHECK_EQ(up_machine_hops(&m, 0, 8, 32), 1);  /* (0,0,1) */
    CHECK_EQ(up_machine_hops(&m, 0, 16, 32), 2); /* (0,0,2) */
    CHECK_EQ(up_machine_hops(&m, 0, 11, 12), 3); /* (1,1,2) */
    CHECK_EQ(up_machine_hops(&m, 0, 8, 12), 1);  /* (0,0,2): wraps on 3 */
    /* only two sizes given for 3D: chosen */
    m.dims[0] = 8, m.dims[1] = 8, m.dims[2] = 0;
    CHECK_EQ(up_machine_hops(&m, 0, 63, 64), 3);

    /* hypercube: bits that differ */
    m.topology = UP_TOPO_HYPERCUBE;
    CHECK_EQ(up_machine_hops(&m, 5, 3, 8), 2);
    CHECK_EQ(up_machine_hops(&m, 0, 7, 8), 3);
    CHECK_EQ(up_machine_hops(&m, 0, 8, 16), 1);
    CHECK_EQ(up_machine_hops(&m, 6, 6, 8), 0);

    /* fat tree, k = 4: 4 nodes per leaf switch, 16 per level-2 subtree */
    m.topology = UP_TOPO_FATTREE;
    CHECK_EQ(up_machine_hops(&m, 0, 3, 64), 2);
    CHECK_EQ(up_machine_hops(&m, 5, 7, 64), 2);
    CHECK_EQ(up_machine_hops(&m, 0, 4, 64), 4);
    CHECK_EQ(up_machine_hops(&m, 0, 16, 64), 6);
    CHECK_EQ(up_machine_hops(&m, 15, 16, 64), 6);
    CHECK_EQ(up_machine_hops(&m, 0, 63, 64), 6);
    CHECK_EQ(up_machine_hops(&m, 0, 64, 128), 8);
    m.fat_tree_k = 2;
    CHECK_EQ(up_machine_hops(&m, 0, 1, 8), 2);
    CHECK_EQ(up_machine_hops(&m, 0, 2, 8), 4);
    CHECK_EQ(up_machine_hops(&m, 3, 4, 8), 6);
    /* the largest node numbers do not overflow */
    m.fat_tree_k = 4000000000u;
    CHECK_EQ(up_machine_hops(&m, 0, 4294967295u, 0), 4);
    m.fat_tree_k = 65536;
    CHECK_EQ(up_machine_hops(&m, 0, 4294967295u, 0), 4);
    m.topology = UP_TOPO_RING;
    CHECK_EQ(up_machine_hops(&m, 0, 4294967295u, 0), 1);
}

TEST(machine_names)
{
    CHECK(!strcmp(up_coll_kind_name(UP_CK_BARRIER), "barrier"));
    CHECK(!strcmp(up_coll_kind_name(UP_CK_BCAST), "bcast"));
    CHECK(!strcmp(up_coll_kind_name(UP_CK_REDUCE_SCATTER), "reduce_scatter"));
    CHECK(!strcmp(up_coll_kind_name(UP_CK_SCAN), "scan"));
    CHECK(!strcmp(up_coll_kind_name(UP_CK_COUNT_), "?"));
    CHECK(!strcmp(up_coll_algo_name(UP_ALGO_LINEAR), "linear"));
    CHECK(!strcmp(up_coll_algo_name(UP_ALGO_BINOMIAL), "binomial"));
    CHECK(!strcmp(up_coll_algo_name(UP_ALGO_RECURSIVE_DOUBLING), "recursive_doubling"));
    CHECK(!strcmp(up_coll_algo_name(UP_ALGO_RING), "ring"));
    CHECK(!strcmp(up_coll_algo_name(UP_ALGO_PAIRWISE), "pairwise"));
    CHECK(!strcmp(up_coll_algo_name(UP_ALGO_COUNT_), "?"));
    CHECK(!strcmp(up_barrier_algo_name(UP_BARRIER_LINEAR), "linear"));
    CHECK(!strcmp(up_barrier_algo_name(UP_BARRIER_TREE), "tree"));
    CHECK(!strcmp(up_barrier_algo_name(UP_BARRIER_DISSEMINATION), "dissemination"));
    CHECK(!strcmp(up_barrier_algo_name((up_barrier_algo)7), "?"));
}

/* Routes for contention: link id = node << 6 | port; ring and torus ports
 * 2 i (+) and 2 i + 1 (-) of dimension i, hypercube port = bit. */
#define LK(node, port) ((uint64_t)(node) << 6 | (port))
TEST(machine_route)
{
    up_machine m;
    uint64_t l[16];
    unsigned i, n;
    up_machine_init(&m);

    /* full and fat tree: nothing shared above the nodes' own links */
    CHECK_EQ(up_machine_route(&m, 0, 7, 8, l, 16), 0);
    m.topology = UP_TOPO_FATTREE;
    CHECK_EQ(up_machine_route(&m, 0, 7, 8, l, 16), 0);

    /* ring of 8: 0 -> 5 the short way down: 0 -> 7 -> 6 -> 5 */
    m.topology = UP_TOPO_RING;
    CHECK_EQ(up_machine_route(&m, 0, 5, 8, l, 16), 3);
    CHECK_EQ(l[0], LK(0, 1));
    CHECK_EQ(l[1], LK(7, 1));
    CHECK_EQ(l[2], LK(6, 1));
    /* 0 -> 4: a tie, up: 0 1 2 3 */
    CHECK_EQ(up_machine_route(&m, 0, 4, 8, l, 16), 4);
    CHECK_EQ(l[3], LK(3, 0));
    /* 6 -> 1: up across the wrap: 6 7 0 */
    CHECK_EQ(up_machine_route(&m, 6, 1, 8, l, 16), 3);
    CHECK_EQ(l[0], LK(6, 0));
    CHECK_EQ(l[1], LK(7, 0));
    CHECK_EQ(l[2], LK(0, 0));

    /* torus 4x4, node = x + 4 y: (1,0) -> (2,2): x first (+1 from node 1),
     * then y +2 from node 2: 2 -> 6 -> 10 */
    m.topology = UP_TOPO_TORUS2D;
    m.dims[0] = 4, m.dims[1] = 4;
    CHECK_EQ(up_machine_route(&m, 1, 10, 16, l, 16), 3);
    CHECK_EQ(l[0], LK(1, 0));
    CHECK_EQ(l[1], LK(2, 2));
    CHECK_EQ(l[2], LK(6, 2));
    /* (0,0) -> (3,3): x -1 across the wrap (node 0), y -1 across it (node 3) */
    CHECK_EQ(up_machine_route(&m, 0, 15, 16, l, 16), 2);
    CHECK_EQ(l[0], LK(0, 1));
    CHECK_EQ(l[1], LK(3, 3));

    /* hypercube: 5 -> 3 (101 -> 011): bit 1 from 5, then bit 2 from 7 */
    m.topology = UP_TOPO_HYPERCUBE;
    CHECK_EQ(up_machine_route(&m, 5, 3, 8, l, 16), 2);
    CHECK_EQ(l[0], LK(5, 1));
    CHECK_EQ(l[1], LK(7, 2));

    /* a route is as long as the hops, for every pair */
    for (m.topology = UP_TOPO_RING; m.topology <= UP_TOPO_HYPERCUBE; m.topology++)
        for (i = 0; i < 16; i++)
            for (n = 0; n < 16; n++)
                CHECK_EQ(up_machine_route(&m, i, n, 16, l, 16), up_machine_hops(&m, i, n, 16));
    /* cap: only the first cap links are written */
    m.topology = UP_TOPO_RING;
    l[1] = 12345;
    CHECK_EQ(up_machine_route(&m, 0, 4, 8, l, 1), 4);
    CHECK_EQ(l[1], 12345);
}
