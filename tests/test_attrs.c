/*
 * test_attrs.c - attribute lists, long and short (issue 31): the reader
 * hands every entry over in order with its type and value (the buffered
 * path, stream_slot of src/trace/records.c), compensate writes them back
 * as they came (Enter and Leave on the direct path, the list passed
 * through) and so does simulate (the buffered path: up_writer_event adds
 * them again), up to UP_SCAN_MAX_ATTRS entries; a longer list is damage
 * that ends its location.  Inputs come from OTF2's own writer
 * (src/tracegen, tg_attrs); outputs are read back with OTF2's own reader.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "test.h"
#include "tutil.h"
#include "trace/scan.h"
#include "tracegen/tracegen.h"

/* Entry i of the list tracegen numbers v (tg_attrs): its type and value as
 * 64 bits (a double's bits). */
static OTF2_Type want_type(unsigned i)
{
    static const OTF2_Type t[4] = {OTF2_TYPE_UINT8, OTF2_TYPE_UINT32, OTF2_TYPE_UINT64, OTF2_TYPE_DOUBLE};
    return t[i % 4];
}

static uint64_t bits(OTF2_Type type, OTF2_AttributeValue v)
{
    uint64_t b = 0;
    switch (type) {
    case OTF2_TYPE_UINT8: return v.uint8;
    case OTF2_TYPE_UINT32: return v.uint32;
    case OTF2_TYPE_UINT64: return v.uint64;
    case OTF2_TYPE_DOUBLE: memcpy(&b, &v.float64, 8); return b;
    default: return UINT64_MAX;
    }
}

static uint64_t want_bits(uint64_t v, unsigned i)
{
    OTF2_AttributeValue a;
    switch (i % 4) {
    case 0: a.uint8 = (uint8_t)(v + i); break;
    case 1: a.uint32 = (uint32_t)(v * 7 + i); break;
    case 2: a.uint64 = v << 20 | i; break;
    default: a.float64 = (double)v + 0.5; break;
    }
    return bits(want_type(i), a);
}

/* The list of a record: n entries, the first `bad` one that is not list v
 * of tracegen's (n if none). */
typedef struct seen {
    uint32_t n, bad;
} seen;

static seen check_list(uint32_t n, const OTF2_AttributeRef *id, const OTF2_Type *type,
                       const uint64_t *val, uint64_t v)
{
    seen s = {n, n};
    uint32_t i;
    for (i = 0; i < n; i++)
        if (id[i] != TG_ATTR_LIST + i || type[i] != want_type(i) || val[i] != want_bits(v, i)) {
            s.bad = i;
            break;
        }
    return s;
}

/* Rank 0: Enter(main) with a list of `first` entries (list 0), then
 * Enter/Leave(work) x 3 and a receive with 3 entries each (lists 1..7),
 * Leave(main) without; rank 1: the matching send, without lists. */
static int write_input(const char *dir, unsigned first)
{
    tg *g = tg_open(dir, 2, 1000000000, 0);
    unsigned k;
    if (!g)
        return -1;
    tg_attrs(g, 0, first);
    tg_enter(g, 0, 100, TG_MAIN);
    tg_attrs(g, 3, 0);
    for (k = 0; k < 3; k++) {
        tg_enter(g, 0, 200 + 100 * k, TG_WORK);
        tg_leave(g, 0, 250 + 100 * k, TG_WORK);
    }
    tg_recv(g, 0, 600, 1, 5, 64);
    tg_attrs(g, 0, 0);
    tg_leave(g, 0, 700, TG_MAIN);
    tg_enter(g, 1, 100, TG_MAIN);
    tg_send(g, 1, 500, 0, 5, 64);
    tg_leave(g, 1, 700, TG_MAIN);
    return tg_close(g);
}

/* ---- OTF2's reader on an output --------------------------------------------- */

enum { MAX_REC = 16 };
typedef struct lists {
    unsigned n;          /* records of location 0 */
    seen rec[MAX_REC];
} lists;

static void take(lists *l, OTF2_LocationRef loc, OTF2_AttributeList *al)
{
    uint32_t n = al ? OTF2_AttributeList_GetNumberOfElements(al) : 0, i;
    OTF2_AttributeRef *id;
    OTF2_Type *type;
    uint64_t *val;
    if (loc != 0 || l->n == MAX_REC)
        return;
    id = calloc(n + 1, sizeof *id);
    type = calloc(n + 1, sizeof *type);
    val = calloc(n + 1, sizeof *val);
    if (id && type && val)
        for (i = 0; i < n; i++) { /* from the front: linear */
            OTF2_AttributeValue v;
            OTF2_AttributeList_PopAttribute(al, &id[i], &type[i], &v);
            val[i] = bits(type[i], v);
        }
    /* the lists of location 0 are numbered in the order written: list 0
     * first, then one per record until the receive (lists 1..7) */
    l->rec[l->n] = check_list(n, id, type, val, l->n);
    l->n++;
    free(id);
    free(type);
    free(val);
}

static OTF2_CallbackCode on_enter(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef r)
{
    (void)t, (void)r;
    take(ud, loc, al);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_recv(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                 OTF2_AttributeList *al, uint32_t peer, OTF2_CommRef c,
                                 uint32_t tag, uint64_t len)
{
    (void)t, (void)peer, (void)c, (void)tag, (void)len;
    take(ud, loc, al);
    return OTF2_CALLBACK_SUCCESS;
}

static int read_lists(const char *dir, lists *l)
{
    char path[4200];
    OTF2_Reader *rd;
    OTF2_GlobalEvtReader *ger;
    OTF2_GlobalEvtReaderCallbacks *cb;
    OTF2_GlobalDefReader *gdr;
    uint64_t n;
    memset(l, 0, sizeof *l);
    snprintf(path, sizeof path, "%s/traces.otf2", dir);
    if (!(rd = OTF2_Reader_Open(path)))
        return -1;
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    gdr = OTF2_Reader_GetGlobalDefReader(rd);
    OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &n);
    OTF2_Reader_SelectLocation(rd, 0);
    OTF2_Reader_SelectLocation(rd, 1);
    OTF2_Reader_OpenEvtFiles(rd);
    OTF2_Reader_GetEvtReader(rd, 0);
    OTF2_Reader_GetEvtReader(rd, 1);
    ger = OTF2_Reader_GetGlobalEvtReader(rd);
    cb = OTF2_GlobalEvtReaderCallbacks_New();
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, on_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, on_enter);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(cb, on_recv);
    OTF2_Reader_RegisterGlobalEvtCallbacks(rd, ger, cb, l);
    OTF2_GlobalEvtReaderCallbacks_Delete(cb);
    n = OTF2_Reader_ReadAllGlobalEvents(rd, ger, &n) == OTF2_SUCCESS ? 0 : 1;
    OTF2_Reader_Close(rd);
    return n ? -1 : 0;
}

/* Location 0 of an archive holds lists 0..7 as written, list 0 of `first`
 * entries, and a last record without. */
static void check_output(const char *what, const char *dir, unsigned first)
{
    lists l;
    unsigned k;
    if (read_lists(dir, &l) != 0) {
        t_fail(__FILE__, __LINE__, "%s: cannot read %s", what, dir);
        return;
    }
    CHECK_EQ(l.n, 9);
    for (k = 0; k < l.n; k++) {
        uint32_t n = k == 0 ? first : k == 8 ? 0 : 3;
        if (l.rec[k].n != n || l.rec[k].bad != n)
            t_fail(__FILE__, __LINE__, "%s: record %u: %u entries (%u wanted), entry %u differs",
                   what, k + 1, l.rec[k].n, n, l.rec[k].bad);
    }
}

TEST(attrs_read_and_written_back_in_full_up_to_the_limit)
{
    char in[4096], out[4096];
    up_trace *t = NULL;
    up_err err = {0};
    up_event *ev;
    up_stream *s;
    unsigned k = 0;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    CHECK(write_input(in, UP_SCAN_MAX_ATTRS) == 0);
    /* the reader, buffered: every entry in order, each record its own */
    CHECK(up_trace_open(in, &t, &err) == UP_OK);
    if (!t)
        return;
    s = up_trace_stream(t, 0);
    while (up_stream_peek(s, 0, &ev, &err) == UP_OK && ev) {
        uint32_t n = k == 0 ? UP_SCAN_MAX_ATTRS : k == 8 ? 0 : 3, i;
        CHECK_EQ(ev->nattrs, n);
        for (i = 0; i < ev->nattrs && i < n; i++)
            if (ev->attrs[i].id != TG_ATTR_LIST + i || ev->attrs[i].type != want_type(i) ||
                bits(ev->attrs[i].type, ev->attrs[i].value) != want_bits(k, i)) {
                t_fail(__FILE__, __LINE__, "record %u: entry %u differs", k + 1, i);
                break;
            }
        k++;
        up_stream_pop(s);
    }
    CHECK_EQ(k, 9);
    CHECK_EQ(up_trace_ndamage(t), 0);
    up_trace_close(t);

    /* compensate (direct path) and simulate (buffered) write them back */
    {
        up_comp_params p = t_params(10, UP_MODE_NETWORK, UP_COLLECTIVE_INDIVIDUAL);
        up_replay_result res;
        snprintf(out, sizeof out, "%s", t_dir("comp"));
        rmdir(out);
        CHECK(t_compensate(in, out, &p, &res, NULL) == UP_OK);
        up_replay_result_free(&res);
        check_output("compensate", out, UP_SCAN_MAX_ATTRS);
    }
    {
        up_sim_summary sum;
        snprintf(out, sizeof out, "%s", t_dir("sim"));
        rmdir(out);
        memset(&err, 0, sizeof err);
        CHECK(t_simulate_wall(in, out, &sum, &err) == UP_OK);
        up_sim_summary_free(&sum);
        check_output("simulate", out, UP_SCAN_MAX_ATTRS);
    }
}

TEST(attrs_a_longer_list_ends_its_location)
{
    char in[4096];
    up_trace *t = NULL;
    up_err err = {0};
    up_event *ev;
    const up_damage *d;
    unsigned k = 0;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    CHECK(write_input(in, UP_SCAN_MAX_ATTRS + 1) == 0);
    CHECK(up_trace_open(in, &t, &err) == UP_OK);
    if (!t)
        return;
    while (up_stream_peek(up_trace_stream(t, 0), 0, &ev, &err) == UP_OK && ev) {
        k++;
        up_stream_pop(up_trace_stream(t, 0));
    }
    /* its first record carries the list: nothing of location 0 is read */
    CHECK_EQ(k, 0);
    while (up_stream_peek(up_trace_stream(t, 1), 0, &ev, &err) == UP_OK && ev) {
        k++;
        up_stream_pop(up_trace_stream(t, 1));
    }
    CHECK_EQ(k, 3);
    CHECK_EQ(up_trace_ndamage(t), 1);
    if (up_trace_ndamage(t) == 1) {
        char want[120];
        d = up_trace_damage(t, 0);
        snprintf(want, sizeof want, "record 1 has %u attributes in chunk 0, more than the %u",
                 (unsigned)UP_SCAN_MAX_ATTRS + 1, (unsigned)UP_SCAN_MAX_ATTRS);
        CHECK_EQ(d->loc, 0);
        CHECK(d->kind == UP_DAMAGE_FILE && d->events);
        CHECK_EQ(d->kept, 0);
        CHECK_EQ(d->declared, 9);
        /* the list follows the chunk header (18 bytes) and the first
         * timestamp token (9) */
        CHECK_EQ(d->offset, 27);
        CHECK(strstr(d->what, want) != NULL);
        CHECK(strstr(d->file, "traces/0.evt") != NULL);
    }
    up_trace_close(t);
}
