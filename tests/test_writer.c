/*
 * test_writer.c - attributes the writer adds to its output
 * (up_writer_attr): archives from src/tracegen copied record by record
 * through up_writer_event, some records marked, and the output read back
 * with OTF2's own readers (no code of src/trace), the input too, for the
 * ids it already uses; and the writer's clamp on the records of the direct
 * path (up_stream_direct), which are written through the writer too.
 */
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#include "test.h"
#include "trace/trace.h"
#include "tracegen/tracegen.h"

/* ---- an independent reader: strings, attributes, marked records ------------ */

enum { MAX_STR = 256, MAX_ATTR = 8, MAX_REC = 64, REC_ATTRS = 4 };

typedef struct rd_attr {
    uint32_t id;
    OTF2_Type type;
    char name[64], desc[128]; /* as known when the Attribute was read */
} rd_attr;

typedef struct rd_rec {
    uint64_t loc, t;
    int enter;                /* 1 Enter, 0 Leave, -1 MpiRecv */
    uint32_t n;               /* attributes it carries */
    OTF2_AttributeRef id[REC_ATTRS];
    OTF2_Type type[REC_ATTRS];
    uint64_t value[REC_ATTRS];
} rd_rec;

typedef struct rd_trace {
    char *str[MAX_STR];
    unsigned nstr, str_twice; /* String definitions, ids defined again */
    bool any_str;
    uint32_t max_str;
    rd_attr attr[MAX_ATTR];
    unsigned nattr;
    uint64_t loc[8];
    unsigned nloc;
    rd_rec rec[MAX_REC];
    unsigned nrec;
} rd_trace;

static OTF2_CallbackCode rd_string(void *ud, OTF2_StringRef self, const char *s)
{
    rd_trace *r = ud;
    r->nstr++;
    if (!r->any_str || self > r->max_str)
        r->max_str = self, r->any_str = true;
    if (self < MAX_STR) {
        if (r->str[self])
            r->str_twice++;
        else
            r->str[self] = strdup(s);
    }
    return OTF2_CALLBACK_SUCCESS;
}

static const char *rd_str(const rd_trace *r, OTF2_StringRef s)
{
    return s < MAX_STR && r->str[s] ? r->str[s] : "";
}

static OTF2_CallbackCode rd_attribute(void *ud, OTF2_AttributeRef self, OTF2_StringRef name,
                                      OTF2_StringRef desc, OTF2_Type type)
{
    rd_trace *r = ud;
    if (r->nattr < MAX_ATTR) {
        rd_attr *a = &r->attr[r->nattr++];
        a->id = self;
        a->type = type;
        snprintf(a->name, sizeof a->name, "%s", rd_str(r, name));
        snprintf(a->desc, sizeof a->desc, "%s", rd_str(r, desc));
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode rd_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
                                     OTF2_LocationType type, uint64_t n, OTF2_LocationGroupRef g)
{
    rd_trace *r = ud;
    (void)name, (void)type, (void)n, (void)g;
    if (r->nloc < 8)
        r->loc[r->nloc++] = self;
    return OTF2_CALLBACK_SUCCESS;
}

static void rd_add(rd_trace *r, OTF2_LocationRef loc, uint64_t t, int enter, OTF2_AttributeList *al)
{
    rd_rec *e;
    uint32_t i;
    if (r->nrec == MAX_REC)
        return;
    e = &r->rec[r->nrec++];
    e->loc = loc, e->t = t, e->enter = enter;
    e->n = al ? OTF2_AttributeList_GetNumberOfElements(al) : 0;
    for (i = 0; i < e->n && i < REC_ATTRS; i++) {
        OTF2_AttributeValue v;
        OTF2_AttributeList_GetAttributeByIndex(al, i, &e->id[i], &e->type[i], &v);
        e->value[i] = e->type[i] == OTF2_TYPE_UINT8 ? v.uint8 : e->type[i] == OTF2_TYPE_UINT32 ? v.uint32 : 0;
    }
}

static OTF2_CallbackCode rd_enter(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef region)
{
    (void)region;
    rd_add(ud, loc, t, 1, al);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode rd_leave(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef region)
{
    (void)region;
    rd_add(ud, loc, t, 0, al);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode rd_recv(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                 OTF2_AttributeList *al, uint32_t peer, OTF2_CommRef c,
                                 uint32_t tag, uint64_t len)
{
    (void)peer, (void)c, (void)tag, (void)len;
    rd_add(ud, loc, t, -1, al);
    return OTF2_CALLBACK_SUCCESS;
}

/* Reads `dir`/traces.otf2 into *r; returns 0 on success. */
static int rd_load(const char *dir, rd_trace *r)
{
    char path[4200];
    OTF2_Reader *rd;
    OTF2_GlobalDefReader *gdr;
    OTF2_GlobalDefReaderCallbacks *dcb;
    OTF2_GlobalEvtReader *ger;
    OTF2_GlobalEvtReaderCallbacks *ecb;
    uint64_t n;
    unsigned i;
    memset(r, 0, sizeof *r);
    snprintf(path, sizeof path, "%s/traces.otf2", dir);
    if (!(rd = OTF2_Reader_Open(path)))
        return -1;
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    gdr = OTF2_Reader_GetGlobalDefReader(rd);
    dcb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(dcb, rd_string);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(dcb, rd_attribute);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(dcb, rd_location);
    OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, dcb, r);
    OTF2_GlobalDefReaderCallbacks_Delete(dcb);
    if (OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &n) != OTF2_SUCCESS) {
        OTF2_Reader_Close(rd);
        return -1;
    }
    for (i = 0; i < r->nloc; i++)
        OTF2_Reader_SelectLocation(rd, r->loc[i]);
    OTF2_Reader_OpenEvtFiles(rd);
    for (i = 0; i < r->nloc; i++)
        OTF2_Reader_GetEvtReader(rd, r->loc[i]);
    ger = OTF2_Reader_GetGlobalEvtReader(rd);
    ecb = OTF2_GlobalEvtReaderCallbacks_New();
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(ecb, rd_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(ecb, rd_leave);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(ecb, rd_recv);
    OTF2_Reader_RegisterGlobalEvtCallbacks(rd, ger, ecb, r);
    OTF2_GlobalEvtReaderCallbacks_Delete(ecb);
    if (OTF2_Reader_ReadAllGlobalEvents(rd, ger, &n) != OTF2_SUCCESS) {
        OTF2_Reader_Close(rd);
        return -1;
    }
    OTF2_Reader_Close(rd);
    return 0;
}

static void rd_free(rd_trace *r)
{
    unsigned i;
    for (i = 0; i < MAX_STR; i++)
        free(r->str[i]);
}

/* The attribute definitions named `name`: how many, the last in *out. */
static unsigned rd_attrs_named(const rd_trace *r, const char *name, rd_attr *out)
{
    unsigned i, n = 0;
    for (i = 0; i < r->nattr; i++)
        if (!strcmp(r->attr[i].name, name))
            *out = r->attr[i], n++;
    return n;
}

/* The value of attribute `id` on the k-th record (1 Enter, 0 Leave, -1
 * MpiRecv) of location `loc`; -1 if it has none, -2 if the type is not `type`. */
static long long rd_value(const rd_trace *r, uint64_t loc, int kind, unsigned k,
                          OTF2_AttributeRef id, OTF2_Type type)
{
    unsigned i, j;
    for (i = 0; i < r->nrec; i++) {
        const rd_rec *e = &r->rec[i];
        if (e->loc != loc || e->enter != kind || k-- > 0)
            continue;
        for (j = 0; j < e->n && j < REC_ATTRS; j++)
            if (e->id[j] == id)
                return e->type[j] == type ? (long long)e->value[j] : -2;
        return -1;
    }
    return -1;
}

/* Records carrying attributes, in all. */
static unsigned rd_marked(const rd_trace *r)
{
    unsigned i, n = 0;
    for (i = 0; i < r->nrec; i++)
        n += r->rec[i].n > 0;
    return n;
}

/* ---- the copy ---------------------------------------------------------------- */

/* One mark: the k-th record of `kind` (as rd_value) on location index loc
 * gets attribute *ref = value. */
typedef struct mark {
    size_t loc;
    int kind;
    unsigned k;
    const OTF2_AttributeRef *ref;
    OTF2_Type type;
    uint64_t value;
} mark;

static int kind_of(const up_event *ev)
{
    return ev->kind == UP_EV_Enter ? 1 : ev->kind == UP_EV_Leave ? 0 : ev->kind == UP_EV_MpiRecv ? -1 : 2;
}

/* Copies every record of the open writer's input `t` into `w`, the marked
 * ones with their attribute added to those they have, and closes it. */
static up_status copy_marked(up_trace *t, up_writer *w, const mark *marks, size_t nmarks, up_err *err)
{
    const up_defs *d = up_trace_defs(t);
    uint64_t t_min = UINT64_MAX, t_max = 0;
    size_t loc, m;
    up_status st;
    for (loc = 0; loc < d->nlocs; loc++) {
        up_stream *s = up_trace_stream(t, loc);
        unsigned seen[3] = {0, 0, 0};
        up_event *ev;
        while ((st = up_stream_peek(s, 0, &ev, err)) == UP_OK && ev) {
            up_attr a[REC_ATTRS];
            up_event out = *ev;
            int kind = kind_of(ev);
            uint32_t i;
            out.t_out = ev->time;
            for (i = 0; i < ev->nattrs && i < REC_ATTRS; i++)
                a[i] = ev->attrs[i];
            for (m = 0; m < nmarks; m++)
                if (kind < 2 && marks[m].loc == loc && marks[m].kind == kind &&
                    marks[m].k == seen[kind + 1] && i < REC_ATTRS) {
                    a[i].id = *marks[m].ref;
                    a[i].type = marks[m].type;
                    if (marks[m].type == OTF2_TYPE_UINT8)
                        a[i].value.uint8 = (uint8_t)marks[m].value;
                    else
                        a[i].value.uint32 = (uint32_t)marks[m].value;
                    i++;
                }
            out.attrs = i ? a : NULL;
            out.nattrs = i;
            if (kind < 2)
                seen[kind + 1]++;
            t_min = ev->time < t_min ? ev->time : t_min;
            t_max = ev->time > t_max ? ev->time : t_max;
            if ((st = up_writer_event(w, loc, &out, err)) != UP_OK) {
                up_writer_abort(w);
                return st;
            }
            up_stream_pop(s);
        }
        if (st != UP_OK) {
            up_writer_abort(w);
            return st;
        }
    }
    return up_writer_close(w, t, t_min, t_max, "unperturb test", NULL, NULL, err);
}

/* Two ranks, each: Enter(main) 10, Enter(MPI_Test) 20, Leave(MPI_Test) 30,
 * Leave(main) 40 (rank r's times + r); with `wild`, rank 1 also has a
 * receive from rank 0 marked MPI_ANY_TAG (2) at 35 between the two Leaves,
 * which defines the input's "unperturb::wildcard" (UINT8, TG_ATTR_WILDCARD). */
static int write_input(const char *dir, bool wild)
{
    tg *g = tg_open(dir, 2, 1000000000, 0);
    unsigned r;
    if (!g)
        return -1;
    for (r = 0; r < 2; r++) {
        tg_enter(g, r, 10 + r, TG_MAIN);
        tg_enter(g, r, 20 + r, TG_TEST);
        tg_leave(g, r, 30 + r, TG_TEST);
        if (wild && r == 1)
            tg_recv_wild(g, r, 35, 0, 4, 8, 2);
        tg_leave(g, r, 40 + r, TG_MAIN);
    }
    return tg_close(g);
}

TEST(writer_adds_an_attribute_the_input_does_not_define)
{
    char in[4096], out[4096], again[4096];
    rd_trace ri, ro;
    up_trace *t = NULL, *t2 = NULL;
    up_writer *w = NULL;
    up_err err = {0};
    OTF2_AttributeRef poll = 77, poll2 = 77, poll32 = 77;
    rd_attr a;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    snprintf(out, sizeof out, "%s", t_dir("out"));
    snprintf(again, sizeof again, "%s", t_dir("again"));
    CHECK_EQ(write_input(in, false), 0);
    CHECK_EQ(rd_load(in, &ri), 0);
    CHECK(ri.any_str && ri.nattr == 0 && ri.str_twice == 0);
    CHECK_EQ(up_trace_open(in, &t, &err), UP_OK);
    if (!t)
        return;
    /* the input's largest ids, as OTF2's reader saw them */
    CHECK(up_trace_defs(t)->has_strings && !up_trace_defs(t)->has_attrs);
    CHECK_EQ(up_trace_defs(t)->max_string, ri.max_str);
    CHECK_EQ(up_writer_open(out, t, &w, &err), UP_OK);
    if (!w) {
        up_trace_close(t);
        return;
    }
    /* no attribute in the input: the first id, 0; asked again, the same;
     * the same name with another type is another attribute */
    CHECK_EQ(up_writer_attr(w, "unperturb::poll", "a poll the compensation collapsed",
                            OTF2_TYPE_UINT8, &poll, &err), UP_OK);
    CHECK_EQ(poll, 0);
    CHECK_EQ(up_writer_attr(w, "unperturb::poll", "other words", OTF2_TYPE_UINT8, &poll2, &err), UP_OK);
    CHECK_EQ(poll2, 0);
    CHECK_EQ(up_writer_attr(w, "unperturb::poll", NULL, OTF2_TYPE_UINT32, &poll32, &err), UP_OK);
    CHECK_EQ(poll32, 1);
    {
        /* rank 0's Enter(MPI_Test) = 1, rank 1's Leave(MPI_Test) = 2 and its
         * Leave(main) = 70000 as UINT32 */
        const mark m[] = {{0, 1, 1, &poll, OTF2_TYPE_UINT8, 1},
                          {1, 0, 0, &poll, OTF2_TYPE_UINT8, 2},
                          {1, 0, 1, &poll32, OTF2_TYPE_UINT32, 70000}};
        CHECK_EQ(copy_marked(t, w, m, 3, &err), UP_OK);
    }
    up_trace_close(t);
    if (err.msg[0])
        t_fail(__FILE__, __LINE__, "%s", err.msg);

    CHECK_EQ(rd_load(out, &ro), 0);
    /* the input's definitions and four fresh Strings, each id defined once
     * and named before its Attribute was read */
    CHECK_EQ(ro.nstr, ri.nstr + 4);
    CHECK_EQ(ro.str_twice, 0);
    CHECK_EQ(ro.max_str, ri.max_str + 4);
    CHECK_EQ(ro.nattr, 2);
    CHECK_EQ(rd_attrs_named(&ro, "unperturb::poll", &a), 2);
    CHECK(ro.attr[0].id == 0 && ro.attr[0].type == OTF2_TYPE_UINT8 &&
          !strcmp(ro.attr[0].name, "unperturb::poll") &&
          !strcmp(ro.attr[0].desc, "a poll the compensation collapsed"));
    CHECK(ro.attr[1].id == 1 && ro.attr[1].type == OTF2_TYPE_UINT32 &&
          !strcmp(ro.attr[1].name, "unperturb::poll") && !strcmp(ro.attr[1].desc, ""));
    /* the records: every one there, the three marked carry their values */
    CHECK_EQ(ro.nrec, 8);
    CHECK_EQ(rd_marked(&ro), 3);
    CHECK_EQ(rd_value(&ro, 0, 1, 1, 0, OTF2_TYPE_UINT8), 1);
    CHECK_EQ(rd_value(&ro, 1, 0, 0, 0, OTF2_TYPE_UINT8), 2);
    CHECK_EQ(rd_value(&ro, 1, 0, 1, 1, OTF2_TYPE_UINT32), 70000);
    CHECK_EQ(rd_value(&ro, 0, 1, 0, 0, OTF2_TYPE_UINT8), -1);

    /* the output read as an input: the attribute is the one it defines, and
     * a second pass writes no second definition */
    CHECK_EQ(up_trace_open(out, &t2, &err), UP_OK);
    if (t2) {
        CHECK(up_trace_defs(t2)->has_attrs);
        CHECK_EQ(up_trace_defs(t2)->max_attr, 1);
        CHECK_EQ(up_trace_defs(t2)->max_string, ri.max_str + 4);
        w = NULL;
        CHECK_EQ(up_writer_open(again, t2, &w, &err), UP_OK);
        if (w) {
            poll2 = 77;
            CHECK_EQ(up_writer_attr(w, "unperturb::poll", "x", OTF2_TYPE_UINT8, &poll2, &err), UP_OK);
            CHECK_EQ(poll2, 0);
            CHECK_EQ(copy_marked(t2, w, NULL, 0, &err), UP_OK);
        }
        up_trace_close(t2);
        rd_free(&ri);
        CHECK_EQ(rd_load(again, &ri), 0);
        CHECK_EQ(ri.nattr, 2);
        CHECK_EQ(ri.nstr, ro.nstr);
        CHECK_EQ(rd_marked(&ri), 3);
    }
    rd_free(&ri);
    rd_free(&ro);
}

TEST(writer_attr_takes_the_inputs_attribute_of_that_name_and_type)
{
    char in[4096], out[4096];
    rd_trace ri, ro;
    up_trace *t = NULL;
    up_writer *w = NULL;
    up_err err = {0};
    OTF2_AttributeRef wild = 77, poll = 77, wild32 = 77;
    rd_attr a;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    snprintf(out, sizeof out, "%s", t_dir("out"));
    CHECK_EQ(write_input(in, true), 0);
    CHECK_EQ(rd_load(in, &ri), 0);
    CHECK_EQ(ri.nattr, 1);
    CHECK_EQ(rd_attrs_named(&ri, "unperturb::wildcard", &a), 1);
    CHECK_EQ(a.id, TG_ATTR_WILDCARD);
    CHECK_EQ(up_trace_open(in, &t, &err), UP_OK);
    if (!t)
        return;
    CHECK(up_trace_defs(t)->has_attrs);
    CHECK_EQ(up_trace_defs(t)->max_attr, TG_ATTR_WILDCARD);
    CHECK_EQ(up_trace_defs(t)->max_string, ri.max_str);
    CHECK_EQ(up_writer_open(out, t, &w, &err), UP_OK);
    if (!w) {
        up_trace_close(t);
        return;
    }
    /* the input's own, by name and type; a new name or type: past it */
    CHECK_EQ(up_writer_attr(w, "unperturb::wildcard", "ignored", OTF2_TYPE_UINT8, &wild, &err), UP_OK);
    CHECK_EQ(wild, TG_ATTR_WILDCARD);
    CHECK_EQ(up_writer_attr(w, "unperturb::poll", "p", OTF2_TYPE_UINT8, &poll, &err), UP_OK);
    CHECK_EQ(poll, TG_ATTR_WILDCARD + 1);
    CHECK_EQ(up_writer_attr(w, "unperturb::wildcard", "w", OTF2_TYPE_UINT32, &wild32, &err), UP_OK);
    CHECK_EQ(wild32, TG_ATTR_WILDCARD + 2);
    {
        /* rank 1's receive keeps its wildcard and gets a poll mark beside
         * it; rank 0's Enter(main) gets the input's attribute */
        const mark m[] = {{1, -1, 0, &poll, OTF2_TYPE_UINT8, 9}, {0, 1, 0, &wild, OTF2_TYPE_UINT8, 1}};
        CHECK_EQ(copy_marked(t, w, m, 2, &err), UP_OK);
    }
    up_trace_close(t);
    if (err.msg[0])
        t_fail(__FILE__, __LINE__, "%s", err.msg);
    CHECK_EQ(rd_load(out, &ro), 0);
    CHECK_EQ(ro.nattr, 3);
    CHECK_EQ(ro.str_twice, 0);
    CHECK_EQ(ro.nstr, ri.nstr + 4);
    CHECK_EQ(rd_attrs_named(&ro, "unperturb::wildcard", &a), 2);
    CHECK_EQ(rd_attrs_named(&ro, "unperturb::poll", &a), 1);
    CHECK(a.id == TG_ATTR_WILDCARD + 1 && a.type == OTF2_TYPE_UINT8 && !strcmp(a.desc, "p"));
    CHECK(ro.attr[0].id == TG_ATTR_WILDCARD && ro.attr[0].type == OTF2_TYPE_UINT8);
    CHECK(ro.attr[2].id == TG_ATTR_WILDCARD + 2 && ro.attr[2].type == OTF2_TYPE_UINT32 &&
          !strcmp(ro.attr[2].name, "unperturb::wildcard") && !strcmp(ro.attr[2].desc, "w"));
    CHECK_EQ(ro.nrec, 9);
    CHECK_EQ(rd_marked(&ro), 2);
    CHECK_EQ(rd_value(&ro, 1, -1, 0, TG_ATTR_WILDCARD, OTF2_TYPE_UINT8), 2);
    CHECK_EQ(rd_value(&ro, 1, -1, 0, TG_ATTR_WILDCARD + 1, OTF2_TYPE_UINT8), 9);
    CHECK_EQ(rd_value(&ro, 0, 1, 0, TG_ATTR_WILDCARD, OTF2_TYPE_UINT8), 1);
    rd_free(&ri);
    rd_free(&ro);
}

/* ---- the direct path writes through the writer -------------------------------- */

/* The direct path's callbacks: the first Enter/Leave a location hands
 * fn_region (while `first` is set) gets time 1000, every later record its
 * measured time, which is earlier: the writer must raise each to 1000. */
typedef struct clamp_ctx {
    bool first[2];
    unsigned region, other; /* records timed by each */
} clamp_ctx;

static int clamp_region(void *ctx, uint32_t loc, unsigned kind, uint64_t t, OTF2_RegionRef region,
                        uint64_t *t_out)
{
    clamp_ctx *c = ctx;
    (void)kind, (void)region;
    *t_out = c->first[loc] ? 1000 : t;
    c->first[loc] = false;
    c->region++;
    return 1;
}

static int clamp_record(void *ctx, uint32_t loc, up_event *ev)
{
    clamp_ctx *c = ctx;
    (void)loc;
    ev->t_out = ev->time; /* the MpiRecv at 35: the general direct path */
    c->other++;
    return 1;
}

/* write_input(wild): rank 0's first record goes through up_writer_event at
 * 1000, the rest through up_stream_direct with the times measured (20..40);
 * rank 1's first through the direct path at 1000, the rest (21..41 and its
 * MpiRecv at 35) likewise.  Every one after the first on each location is
 * raised to 1000 by the writer, and counted: 3 + 4.  It fails if the direct
 * path writes around the writer (as it did until issue 23). */
TEST(writer_clamps_records_of_the_direct_path)
{
    char in[4096], out[4096];
    rd_trace ro;
    up_trace *t = NULL;
    up_writer *w = NULL;
    up_err err = {0};
    clamp_ctx c = {{false, true}, 0, 0};
    up_event *ev;
    size_t loc, done, i;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    snprintf(out, sizeof out, "%s", t_dir("out"));
    CHECK_EQ(write_input(in, true), 0);
    CHECK_EQ(up_trace_open(in, &t, &err), UP_OK);
    if (!t)
        return;
    CHECK_EQ(up_writer_open(out, t, &w, &err), UP_OK);
    if (!w) {
        up_trace_close(t);
        return;
    }
    /* rank 0: Enter(main) at 1000 on the buffered path */
    CHECK_EQ(up_stream_peek(up_trace_stream(t, 0), 0, &ev, &err), UP_OK);
    CHECK(ev && ev->kind == UP_EV_Enter && ev->time == 10);
    if (ev) {
        ev->t_out = 1000;
        CHECK_EQ(up_writer_event(w, 0, ev, &err), UP_OK);
        up_stream_pop(up_trace_stream(t, 0));
    }
    for (loc = 0; loc < 2; loc++) {
        up_stream *s = up_trace_stream(t, loc);
        CHECK_EQ(up_stream_direct(s, 100, clamp_record, clamp_region, &c, w, &done, &err), UP_OK);
        CHECK_EQ(done, loc ? 5 : 3);
        CHECK(up_stream_at_end(s));
    }
    CHECK_EQ(c.region, 3 + 4);
    CHECK_EQ(c.other, 1);
    CHECK_EQ(up_writer_clamped(w), 3 + 4);
    CHECK_EQ(up_writer_close(w, t, 10, 1000, "unperturb test", NULL, NULL, &err), UP_OK);
    up_trace_close(t);
    if (err.msg[0])
        t_fail(__FILE__, __LINE__, "%s", err.msg);
    CHECK_EQ(rd_load(out, &ro), 0);
    CHECK_EQ(ro.nrec, 9);
    for (i = 0; i < ro.nrec; i++)
        if (ro.rec[i].t != 1000)
            t_fail(__FILE__, __LINE__, "record %zu of location %llu written at %llu, not 1000", i,
                   (unsigned long long)ro.rec[i].loc, (unsigned long long)ro.rec[i].t);
    rd_free(&ro);
}

/* A writer opened for another trace is refused by the direct path: its
 * locations are not the stream's. */
TEST(writer_of_another_trace_is_refused_by_the_direct_path)
{
    char in[4096], in2[4096], out[4096];
    up_trace *t = NULL, *t2 = NULL;
    up_writer *w = NULL;
    up_err err = {0};
    clamp_ctx c = {{false, false}, 0, 0};
    size_t done = 7;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    snprintf(in2, sizeof in2, "%s", t_dir("in2"));
    snprintf(out, sizeof out, "%s", t_dir("out"));
    CHECK_EQ(write_input(in, false), 0);
    CHECK_EQ(write_input(in2, false), 0);
    CHECK_EQ(up_trace_open(in, &t, &err), UP_OK);
    CHECK_EQ(up_trace_open(in2, &t2, &err), UP_OK);
    if (t && t2 && up_writer_open(out, t2, &w, &err) == UP_OK) {
        CHECK_EQ(up_stream_direct(up_trace_stream(t, 0), 100, clamp_record, clamp_region, &c, w,
                                  &done, &err),
                 UP_EINTERNAL);
        CHECK_EQ(done, 0);
        CHECK_EQ(c.region + c.other, 0);
        up_writer_abort(w);
    }
    up_trace_close(t);
    up_trace_close(t2);
}
