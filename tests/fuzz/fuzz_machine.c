/*
 * fuzz_machine.c - fuzz target "machine": machine files of `unperturb
 * simulate` (src/model/machine.c, docs/machine.md) and `--set KEY=VALUE`.
 *
 * Place in the data flow: in front of the simulation model.  The input is
 * the text of a machine file.  Checked beyond "no crash":
 *   - read from a file or from the same text, it gives the same machine
 *     or the same error (when the text holds no NUL byte);
 *   - a machine read without error, written back (up_machine_write), reads
 *     again without error and writes the same text;
 *   - every numeric parameter is finite and not negative;
 *   - each line of the input that holds '=' is also tried as a --set, and
 *     a machine it leaves passes the same checks;
 *   - hops and routes on the topology: 0 between a node and itself, a
 *     route as long as the hops on ring, torus and hypercube.
 */
#include "fuzz.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/machine.h"

/* up_machine_write's text of m, in a new string. */
static char *machine_text(const up_machine *m)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    FZ_CHECK(f != NULL, "open_memstream");
    FZ_CHECK(up_machine_write(f, m) == 0, "up_machine_write failed");
    FZ_CHECK(fclose(f) == 0, "fclose");
    return buf;
}

static void check_topology(const up_machine *m)
{
    static const unsigned counts[] = {1, 2, 3, 7, 64};
    static const unsigned nodes[] = {0, 1, 2, 5, 63, 100};
    uint64_t links[64];
    unsigned c, i, j;
    for (c = 0; c < sizeof counts / sizeof *counts; c++)
        for (i = 0; i < sizeof nodes / sizeof *nodes; i++)
            for (j = 0; j < sizeof nodes / sizeof *nodes; j++) {
                unsigned a = nodes[i], b = nodes[j];
                unsigned h = up_machine_hops(m, a, b, counts[c]);
                unsigned r = up_machine_route(m, a, b, counts[c], links, 64);
                FZ_CHECK((h == 0) == (a == b), "%u hops from node %u to %u", h, a, b);
                FZ_CHECK(h == up_machine_hops(m, b, a, counts[c]), "hops %u -> %u not symmetric", a, b);
                if (m->topology == UP_TOPO_RING || m->topology == UP_TOPO_TORUS2D ||
                    m->topology == UP_TOPO_TORUS3D || m->topology == UP_TOPO_HYPERCUBE)
                    FZ_CHECK(r == h, "a route of %u links for %u hops (%u -> %u of %u)", r, h, a, b,
                             counts[c]);
                else
                    FZ_CHECK(r == 0, "a route of %u links on a full-bisection topology", r);
            }
    for (c = 0; c < sizeof counts / sizeof *counts; c++)
        for (i = 0; i < 4; i++) {
            unsigned node = up_machine_node_of(m, (long)i * 7, counts[c]);
            unsigned rpn = m->ranks_per_node ? m->ranks_per_node : 1;
            FZ_CHECK(node <= (unsigned)(i * 7) / rpn + ((i * 7) % rpn != 0) || m->placement == UP_PLACE_CYCLIC,
                     "rank %u on node %u", i * 7, node);
        }
}

/* A machine the parser accepted: its parameters, its text, its topology
 * (the defaults once: most inputs leave them). */
static void check_machine(const up_machine *m)
{
    static char *defaults;
    up_machine again;
    up_err err = {0};
    char *text = machine_text(m), *text2, *line, *save = NULL, *copy;
    if (defaults && !strcmp(text, defaults)) {
        free(text);
        return;
    }
    if (!defaults) {
        up_machine_init(&again);
        defaults = machine_text(&again);
    }
    up_machine_init(&again);
    FZ_CHECK(up_machine_parse(text, "written", &again, &err) == UP_OK,
             "the written machine does not read back: %s\n%s", err.msg, text);
    text2 = machine_text(&again);
    FZ_CHECK(!strcmp(text, text2), "the machine changed on a round trip:\n%s\n--- became ---\n%s",
             text, text2);
    copy = strdup(text);
    FZ_CHECK(copy != NULL, "strdup");
    for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char key[64];
        double v;
        if (sscanf(line, "%63[a-z_0-9] =", key) != 1 || !up_machine_range(key))
            continue;
        v = up_machine_get_num(m, key);
        /* (launch_latency_ns: -1 means as measured; its range says so) */
        FZ_CHECK(isfinite(v) && v >= up_machine_range(key)->lo, "%s = %g", key, v);
    }
    free(copy);
    free(text);
    free(text2);
    check_topology(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), *line, *save = NULL;
    up_machine m, mf;
    up_err err = {0}, errf = {0};
    up_status st, stf;

    FZ_CHECK(text != NULL, "out of memory");
    memcpy(text, data, size);
    text[size] = 0;
    up_machine_init(&m);
    st = up_machine_parse(text, "fuzz", &m, &err);
    FZ_CHECK(st == UP_OK || st == UP_EFORMAT, "status %d: %s", (int)st, err.msg);
    FZ_CHECK(st == UP_OK || err.msg[0], "an error without a message");
    if (strlen(text) == size) { /* the same bytes from a file */
        const char *path = fz_write_file("machine.ini", data, size);
        up_machine_init(&mf);
        stf = up_machine_load(path, &mf, &errf);
        FZ_CHECK(stf == st, "text: status %d (%s), file: status %d (%s)", (int)st, err.msg, (int)stf,
                 errf.msg);
        if (st == UP_OK) {
            char *a = machine_text(&m), *b = machine_text(&mf);
            FZ_CHECK(!strcmp(a, b), "the file and the text give other machines");
            free(a);
            free(b);
        } else {
            const char *ma = strchr(err.msg, ':'), *mb = strchr(errf.msg, ':');
            if (strlen(errf.msg) < 900) /* (not cut to the buffer) */
                FZ_CHECK(ma && mb && !strcmp(ma, mb), "text: %s, file: %s", err.msg, errf.msg);
        }
    }
    if (st == UP_OK)
        check_machine(&m);
    /* the lines with '=' as --set options, on the defaults */
    up_machine_init(&m);
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (!strchr(line, '='))
            continue;
        err.msg[0] = 0;
        st = up_machine_set(&m, line, &err);
        FZ_CHECK(st == UP_OK || err.msg[0], "--set '%s': an error without a message", line);
        FZ_CHECK(st == UP_OK || st == UP_EUSAGE, "--set '%s': status %d", line, (int)st);
    }
    check_machine(&m);
    free(text);
    return 0;
}
