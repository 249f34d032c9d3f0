/*
 * test_defcopy.c - global definitions in reference order (issue 31): an
 * archive whose definitions reference forward (src/tracegen.c,
 * TG_FORWARD_REFS) is copied with every definition after those it
 * references, and read as if it were in order (names found); an archive in
 * order is copied in the same order; a definition that references one the
 * input does not have comes last.  The definitions are listed by a reader of
 * this file's own, through OTF2's global definition reader (no code of
 * src/trace).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#include "test.h"
#include "tutil.h"
#include "trace/trace.h"
#include "tracegen/tracegen.h"

/* ---- the definitions of an archive, in file order ------------------------ */

enum { S, ATTR, STN, LG, LOC, REG, MM, MET, GRP, COM, WIN, CP, COMMLOCS, NKINDS };

typedef struct dlist {
    char **line;        /* "Region 3 name 40 ...", ClockProperties left out */
    size_t n, cap;
    uint64_t *seen[NKINDS];
    size_t nseen[NKINDS], capseen[NKINDS];
    size_t refs;        /* references checked */
    size_t forward;     /* of them to a definition not (yet) seen */
    size_t other;       /* definitions of kinds this list does not check */
    char first[200];    /* the first forward reference */
} dlist;

static bool seen(const dlist *l, int k, uint64_t id)
{
    size_t i;
    for (i = 0; i < l->nseen[k]; i++)
        if (l->seen[k][i] == id)
            return true;
    return false;
}

static void see(dlist *l, int k, uint64_t id)
{
    if (l->nseen[k] == l->capseen[k]) {
        l->capseen[k] = l->capseen[k] ? 2 * l->capseen[k] : 64;
        l->seen[k] = realloc(l->seen[k], l->capseen[k] * sizeof *l->seen[k]);
    }
    l->seen[k][l->nseen[k]++] = id;
}

/* a reference of the last line listed to definition `id` of kind `k` */
static void ref(dlist *l, int k, uint64_t id, uint64_t undefined)
{
    if (id == undefined)
        return;
    l->refs++;
    if (!seen(l, k, id) && l->forward++ == 0)
        snprintf(l->first, sizeof l->first, "%s: kind %d id %llu", l->line[l->n - 1], k,
                 (unsigned long long)id);
}

static void add(dlist *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(dlist *l, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->line = realloc(l->line, l->cap * sizeof *l->line);
    }
    l->line[l->n++] = strdup(buf);
}

#define U32 OTF2_UNDEFINED_UINT32
#define U64 OTF2_UNDEFINED_UINT64

static OTF2_CallbackCode d_string(void *ud, OTF2_StringRef self, const char *s)
{
    add(ud, "String %u %s", self, s);
    see(ud, S, self);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_paradigm(void *ud, OTF2_Paradigm p, OTF2_StringRef name, OTF2_ParadigmClass c)
{
    add(ud, "Paradigm %u name %u class %u", p, name, c);
    ref(ud, S, name, U32);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_attr(void *ud, OTF2_AttributeRef self, OTF2_StringRef name,
                                OTF2_StringRef desc, OTF2_Type type)
{
    add(ud, "Attribute %u name %u desc %u type %u", self, name, desc, type);
    ref(ud, S, name, U32);
    ref(ud, S, desc, U32);
    see(ud, ATTR, self);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_stn(void *ud, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
                               OTF2_StringRef cls, OTF2_SystemTreeNodeRef parent)
{
    add(ud, "SystemTreeNode %u name %u class %u parent %u", self, name, cls, parent);
    ref(ud, S, name, U32);
    ref(ud, S, cls, U32);
    ref(ud, STN, parent, U32);
    see(ud, STN, self);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_lg(void *ud, OTF2_LocationGroupRef self, OTF2_StringRef name,
                              OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                              OTF2_LocationGroupRef creator)
{
    add(ud, "LocationGroup %u name %u type %u parent %u creator %u", self, name, type, parent, creator);
    ref(ud, S, name, U32);
    ref(ud, STN, parent, U32);
    ref(ud, LG, creator, U32);
    see(ud, LG, self);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_loc(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
                               OTF2_LocationType type, uint64_t n, OTF2_LocationGroupRef group)
{
    add(ud, "Location %llu name %u type %u events %llu group %u", (unsigned long long)self, name,
        type, (unsigned long long)n, group);
    ref(ud, S, name, U32);
    ref(ud, LG, group, U32);
    see(ud, LOC, self);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name,
                                  OTF2_StringRef canon, OTF2_StringRef desc, OTF2_RegionRole role,
                                  OTF2_Paradigm par, OTF2_RegionFlag flags, OTF2_StringRef file,
                                  uint32_t b, uint32_t e)
{
    add(ud, "Region %u name %u canon %u desc %u role %u paradigm %u flags %u file %u lines %u-%u",
        self, name, canon, desc, role, par, flags, file, b, e);
    ref(ud, S, name, U32);
    ref(ud, S, canon, U32);
    ref(ud, S, desc, U32);
    ref(ud, S, file, U32);
    see(ud, REG, self);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_member(void *ud, OTF2_MetricMemberRef self, OTF2_StringRef name,
                                  OTF2_StringRef desc, OTF2_MetricType type, OTF2_MetricMode mode,
                                  OTF2_Type vtype, OTF2_Base base, int64_t exp, OTF2_StringRef unit)
{
    add(ud, "MetricMember %u name %u desc %u %u %u %u %u %lld unit %u", self, name, desc, type,
        mode, vtype, base, (long long)exp, unit);
    ref(ud, S, name, U32);
    ref(ud, S, desc, U32);
    ref(ud, S, unit, U32);
    see(ud, MM, self);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_metric(void *ud, OTF2_MetricRef self, uint8_t n,
                                  const OTF2_MetricMemberRef *m, OTF2_MetricOccurrence occ,
                                  OTF2_RecorderKind kind)
{
    uint8_t i;
    add(ud, "MetricClass %u members %u first %u occ %u kind %u", self, n, n ? m[0] : U32, occ, kind);
    for (i = 0; i < n; i++)
        ref(ud, MM, m[i], U32);
    see(ud, MET, self);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name,
                                 OTF2_GroupType type, OTF2_Paradigm par, OTF2_GroupFlag flags,
                                 uint32_t n, const uint64_t *members)
{
    char list[256] = "";
    size_t len = 0;
    uint32_t i;
    for (i = 0; i < n && len + 24 < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, " %llu", (unsigned long long)members[i]);
    add(ud, "Group %u name %u type %u paradigm %u flags %u members%s", self, name, type, par,
        flags, list);
    ref(ud, S, name, U32);
    if (type == OTF2_GROUP_TYPE_COMM_LOCATIONS) {
        for (i = 0; i < n; i++)
            ref(ud, LOC, members[i], U64);
        see(ud, COMMLOCS, par);
    } else if (type == OTF2_GROUP_TYPE_COMM_GROUP && n) {
        ref(ud, COMMLOCS, par, U64); /* its members are ranks in that group */
    }
    see(ud, GRP, self);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name,
                                OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
    add(ud, "Comm %u name %u group %u parent %u flags %u", self, name, group, parent, flags);
    ref(ud, S, name, U32);
    ref(ud, GRP, group, U32);
    ref(ud, COM, parent, U32);
    see(ud, COM, self);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_win(void *ud, OTF2_RmaWinRef self, OTF2_StringRef name,
                               OTF2_CommRef comm, OTF2_RmaWinFlag flags)
{
    add(ud, "RmaWin %u name %u comm %u flags %u", self, name, comm, flags);
    ref(ud, S, name, U32);
    ref(ud, COM, comm, U32);
    see(ud, WIN, self);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_callpath(void *ud, OTF2_CallpathRef self, OTF2_CallpathRef parent,
                                    OTF2_RegionRef region)
{
    add(ud, "Callpath %u parent %u region %u", self, parent, region);
    ref(ud, CP, parent, U32);
    ref(ud, REG, region, U32);
    see(ud, CP, self);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_clock(void *ud, uint64_t res, uint64_t off, uint64_t len, uint64_t real)
{
    (void)ud, (void)res, (void)off, (void)len, (void)real; /* recomputed by the writer */
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_unknown(void *ud)
{
    ((dlist *)ud)->other++;
    return OTF2_CALLBACK_SUCCESS;
}

static int dlist_load(const char *dir, dlist *l)
{
    char anchor[4096];
    OTF2_Reader *rd;
    OTF2_GlobalDefReader *gr;
    OTF2_GlobalDefReaderCallbacks *cb;
    uint64_t n = 0;
    int rc = -1;
    memset(l, 0, sizeof *l);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    if (!(rd = OTF2_Reader_Open(anchor)))
        return -1;
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    gr = OTF2_Reader_GetGlobalDefReader(rd);
    cb = OTF2_GlobalDefReaderCallbacks_New();
    if (gr && cb) {
        OTF2_GlobalDefReaderCallbacks_SetUnknownCallback(cb, d_unknown);
        OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, d_clock);
        OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, d_string);
        OTF2_GlobalDefReaderCallbacks_SetParadigmCallback(cb, d_paradigm);
        OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, d_attr);
        OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, d_stn);
        OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, d_lg);
        OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, d_loc);
        OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, d_region);
        OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(cb, d_member);
        OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(cb, d_metric);
        OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, d_group);
        OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, d_comm);
        OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(cb, d_win);
        OTF2_GlobalDefReaderCallbacks_SetCallpathCallback(cb, d_callpath);
        if (OTF2_Reader_RegisterGlobalDefCallbacks(rd, gr, cb, l) == OTF2_SUCCESS &&
            OTF2_Reader_ReadAllGlobalDefinitions(rd, gr, &n) == OTF2_SUCCESS)
            rc = 0;
    }
    if (cb)
        OTF2_GlobalDefReaderCallbacks_Delete(cb);
    OTF2_Reader_Close(rd);
    return rc;
}

static void dlist_free(dlist *l)
{
    size_t i;
    for (i = 0; i < l->n; i++)
        free(l->line[i]);
    free(l->line);
    for (i = 0; i < NKINDS; i++)
        free(l->seen[i]);
    memset(l, 0, sizeof *l);
}

static int cmp_line(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the same lines, in the same order (sorted first if `sorted`) */
static bool same_lines(dlist *a, dlist *b, bool sorted, const char *what)
{
    size_t i;
    if (sorted) {
        qsort(a->line, a->n, sizeof *a->line, cmp_line);
        qsort(b->line, b->n, sizeof *b->line, cmp_line);
    }
    for (i = 0; i < a->n && i < b->n; i++)
        if (strcmp(a->line[i], b->line[i])) {
            t_fail(__FILE__, __LINE__, "%s: definition %zu is '%s', not '%s'", what, i, b->line[i],
                   a->line[i]);
            return false;
        }
    if (a->n != b->n) {
        t_fail(__FILE__, __LINE__, "%s: %zu definitions, not %zu", what, b->n, a->n);
        return false;
    }
    return true;
}

/* ---- the archives -------------------------------------------------------- */

#define FLAGS (TG_TWO_NODES | TG_RMA | TG_SUBCOMMS | TG_OMP_TEAM | TG_CPU_METRIC)

static int write_archive(const char *dir, unsigned flags)
{
    return tg_small_mpi(dir, FLAGS | flags);
}

TEST(defcopy_copies_forward_references_in_reference_order)
{
    char fwd[4096], ord[4096], ofwd[4096], oord[4096];
    dlist lf, lo, lof, loo;
    up_comp_params p = t_params(100, UP_MODE_UPPER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result rf, ro;
    snprintf(fwd, sizeof fwd, "%s", t_dir("fwd"));
    snprintf(ord, sizeof ord, "%s", t_dir("ord"));
    snprintf(ofwd, sizeof ofwd, "%s", t_dir("out-fwd"));
    snprintf(oord, sizeof oord, "%s", t_dir("out-ord"));
    CHECK_EQ(write_archive(fwd, TG_FORWARD_REFS), 0);
    CHECK_EQ(write_archive(ord, 0), 0);
    CHECK_EQ(dlist_load(fwd, &lf), 0);
    CHECK_EQ(dlist_load(ord, &lo), 0);
    /* the same definitions; in `fwd` every reference points forward, in
     * `ord` none */
    CHECK(lo.refs > 100);
    CHECK_EQ(lf.refs, lo.refs);
    CHECK_EQ(lf.forward, lf.refs);
    CHECK_EQ(lo.forward, 0);
    CHECK_EQ(lf.other + lo.other, 0);

    CHECK_EQ(t_compensate(fwd, ofwd, &p, &rf, NULL), UP_OK);
    CHECK_EQ(t_compensate(ord, oord, &p, &ro, NULL), UP_OK);
    /* the same window: MPI_Init's end to MPI_Finalize's start, found by name */
    CHECK(ro.window_marked && rf.window_marked);
    CHECK_EQ(rf.start_m, ro.start_m);
    CHECK_EQ(rf.end_m, ro.end_m);
    CHECK_EQ(rf.end_a, ro.end_a);
    up_replay_result_free(&rf);
    up_replay_result_free(&ro);
    CHECK_EQ(dlist_load(ofwd, &lof), 0);
    CHECK_EQ(dlist_load(oord, &loo), 0);
    /* both copies in reference order */
    CHECK_EQ(lof.refs, lf.refs);
    if (lof.forward)
        t_fail(__FILE__, __LINE__, "%zu forward references, the first %s", lof.forward, lof.first);
    CHECK_EQ(loo.forward, 0);
    /* the ordered input's copy is in its order; the other's has its
     * definitions, each once */
    same_lines(&lo, &loo, false, "the copy of an archive in order");
    same_lines(&lf, &lof, true, "the copy of an archive with forward references");

    /* and compensated alike: the regions named (the buffer flush's time is
     * removed, MPI_Ssend is synchronous), the wildcard receive known */
    {
        tr_trace a, b;
        size_t l, k;
        CHECK_EQ(tr_load(oord, &a), 0);
        CHECK_EQ(tr_load(ofwd, &b), 0);
        CHECK_EQ(a.nlocs, 3);
        CHECK_EQ(b.nlocs, 3);
        for (l = 0; l < a.nlocs && l < b.nlocs; l++) {
            CHECK_EQ(a.locs[l].n, b.locs[l].n);
            for (k = 0; k < a.locs[l].n && k < b.locs[l].n; k++)
                if (a.locs[l].ev[k].t != b.locs[l].ev[k].t || a.locs[l].ev[k].kind != b.locs[l].ev[k].kind) {
                    t_fail(__FILE__, __LINE__, "location %zu record %zu: %llu, in order %llu", l, k,
                           (unsigned long long)b.locs[l].ev[k].t, (unsigned long long)a.locs[l].ev[k].t);
                    break;
                }
        }
        tr_free(&a);
        tr_free(&b);
    }
    dlist_free(&lf);
    dlist_free(&lo);
    dlist_free(&lof);
    dlist_free(&loo);
}

/* The reader names what it read once every String is known. */
TEST(defs_name_definitions_read_before_their_strings)
{
    char fwd[4096], ord[4096];
    up_trace *tf = NULL, *to = NULL;
    up_err err = {0};
    snprintf(fwd, sizeof fwd, "%s", t_dir("fwd"));
    snprintf(ord, sizeof ord, "%s", t_dir("ord"));
    CHECK_EQ(write_archive(fwd, TG_FORWARD_REFS), 0);
    CHECK_EQ(write_archive(ord, 0), 0);
    CHECK_EQ(up_trace_open(fwd, &tf, &err), UP_OK);
    CHECK_EQ(up_trace_open(ord, &to, &err), UP_OK);
    if (tf && to) {
        const up_defs *f = up_trace_defs(tf), *o = up_trace_defs(to);
        OTF2_RegionRef r;
        size_t i;
        CHECK_EQ(f->nregions, TG_NREGIONS);
        for (r = 0; r < TG_NREGIONS; r++) {
            const up_region_def *a = up_defs_region(o, r), *b = up_defs_region(f, r);
            if (!a || !b || strcmp(a->name, b->name) || a->flags != b->flags)
                t_fail(__FILE__, __LINE__, "region %u: '%s' flags %u, in order '%s' flags %u", r,
                       b ? b->name : "?", b ? (unsigned)b->flags : 0, a ? a->name : "?",
                       a ? (unsigned)a->flags : 0);
        }
        CHECK(!strcmp(up_defs_region(f, TG_INIT)->name, "MPI_Init"));
        CHECK(up_defs_region(f, TG_INIT)->flags & UP_REGION_MPI_INIT);
        CHECK(up_defs_region(f, TG_TEST)->flags & UP_REGION_POLL);
        CHECK_EQ(f->nlocs, 3);
        for (i = 0; i < f->nlocs; i++)
            CHECK(!strcmp(f->locs[i].name, "Master thread"));
        CHECK(f->has_wildcard_attr && f->wildcard_attr == TG_ATTR_WILDCARD);
        CHECK(f->has_cpu_member && f->has_cpu_metric && f->cpu_metric == 0);
        CHECK_EQ(f->ncomms, o->ncomms);
        for (i = 0; i < f->ncomms; i++)
            CHECK(!strcmp(up_defs_comm(f, f->comms[i].id)->name, up_defs_comm(o, f->comms[i].id)->name));
    }
    up_trace_close(tf);
    up_trace_close(to);
}

/* Last in the input: Callpaths 1 and 2, each the other's parent; Callpath 0
 * of Region 100, then Region 100, named by a String the archive does not
 * have.  Copied: everything else in the input's order, then Region 100 (all
 * it references that exists is written), Callpath 0 after it, then the
 * cycle in input order, each after all else it references. */
TEST(defcopy_writes_what_references_a_missing_definition_last)
{
    char in[4096], out[4096];
    dlist li, lo;
    up_comp_params p = t_params(0, UP_MODE_UPPER, UP_COLLECTIVE_INDIVIDUAL);
    up_replay_result res;
    size_t i, n;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    snprintf(out, sizeof out, "%s", t_dir("out"));
    CHECK_EQ(write_archive(in, TG_DANGLING_REF), 0);
    CHECK_EQ(t_compensate(in, out, &p, &res, NULL), UP_OK);
    up_replay_result_free(&res);
    CHECK_EQ(dlist_load(in, &li), 0);
    CHECK_EQ(dlist_load(out, &lo), 0);
    /* the input: Callpath 1's parent and Callpath 0's Region ahead, the
     * Region's two names missing; the copy: the two names and Callpath 1's
     * parent (the cycle) */
    CHECK_EQ(li.forward, 4);
    CHECK_EQ(lo.forward, 3);
    CHECK_EQ(lo.n, li.n);
    n = li.n;
    if (n < 5 || lo.n != n)
        goto out;
    CHECK(!strncmp(li.line[n - 4], "Callpath 1 parent 2 ", 20));
    CHECK(!strncmp(li.line[n - 3], "Callpath 2 parent 1 ", 20));
    CHECK(!strncmp(li.line[n - 2], "Callpath 0 ", 11));
    CHECK(!strncmp(li.line[n - 1], "Region 100 name 9999 ", 21));
    for (i = 0; i + 4 < n; i++)
        if (strcmp(li.line[i], lo.line[i]))
            t_fail(__FILE__, __LINE__, "definition %zu: '%s', not '%s'", i, lo.line[i], li.line[i]);
    CHECK(!strcmp(lo.line[n - 4], li.line[n - 1]));
    CHECK(!strcmp(lo.line[n - 3], li.line[n - 2]));
    CHECK(!strcmp(lo.line[n - 2], li.line[n - 4]));
    CHECK(!strcmp(lo.line[n - 1], li.line[n - 3]));
out:
    dlist_free(&li);
    dlist_free(&lo);
}

/* Allocation failures in the copy: an error, never a crash, a leak or a
 * partial success; with enough memory, the copy in reference order. */
TEST(defcopy_out_of_memory)
{
    char in[4096], anchor[4200], name[32];
    dlist li;
    long n;
    int failures = 0, successes = 0;
    snprintf(in, sizeof in, "%s", t_dir("in"));
    CHECK_EQ(write_archive(in, TG_FORWARD_REFS), 0);
    CHECK_EQ(dlist_load(in, &li), 0);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", in);
    for (n = 0; n < 1500 && !successes; n += 5) {
        const char *out;
        OTF2_Archive *ar = NULL;
        OTF2_Reader *rd;
        OTF2_GlobalDefReader *gr;
        OTF2_GlobalDefReaderCallbacks *cb;
        up_def_copy *dc = NULL;
        up_err err = {0};
        up_status st;
        uint64_t nread = 0;
        snprintf(name, sizeof name, "out%ld", n);
        out = t_dir(name);
        if (up_otf2_archive_create(out, &ar, &err) != UP_OK || !(rd = OTF2_Reader_Open(anchor))) {
            t_fail(__FILE__, __LINE__, "cannot open the archives: %s", err.msg);
            if (ar)
                OTF2_Archive_Close(ar);
            break;
        }
        OTF2_Reader_SetSerialCollectiveCallbacks(rd);
        gr = OTF2_Reader_GetGlobalDefReader(rd);
        cb = OTF2_GlobalDefReaderCallbacks_New();
        up_copy_def_callbacks(cb);
        up_alloc_set_fail_after(n);
        st = up_def_copy_open(OTF2_Archive_GetGlobalDefWriter(ar), NULL, NULL, &dc, &err);
        if (st == UP_OK) {
            OTF2_Reader_RegisterGlobalDefCallbacks(rd, gr, cb, dc);
            OTF2_Reader_ReadAllGlobalDefinitions(rd, gr, &nread);
            if ((st = up_def_copy_status(dc, &err)) == UP_OK)
                st = up_def_copy_finish(dc, &err);
        }
        up_alloc_set_fail_after(-1);
        up_def_copy_free(dc);
        OTF2_GlobalDefReaderCallbacks_Delete(cb);
        OTF2_Reader_Close(rd);
        OTF2_Archive_Close(ar);
        if (st == UP_OK) {
            dlist lo;
            successes++;
            CHECK_EQ(dlist_load(out, &lo), 0);
            CHECK_EQ(lo.n, li.n);
            CHECK_EQ(lo.forward, 0);
            dlist_free(&lo);
        } else {
            failures++;
            CHECK_EQ(st, UP_ENOMEM);
            CHECK(strstr(err.msg, "out of memory") != NULL);
        }
    }
    CHECK(failures > 10);
    CHECK_EQ(successes, 1);
    dlist_free(&li);
}
