/*
 * defcopy.c - an input's global definitions copied into an output archive in
 * reference order: each definition after every definition it references.
 *
 * Place in the data flow: the writer's last step (writer.c copies the input's
 * definitions through here; so does the benchmark's plain copy, bench/copy.c).
 * OTF2's own readers take definitions in file order: otf2-print shows a
 * reference to one still to come as INVALID, and OTF2's Python reader refuses
 * the archive.  An archive whose definitions reference forward (one written by
 * the unperturb tracer before issue 31: its MPI Paradigm came before the String
 * naming it) is copied in order; one already in order is copied unchanged.
 *
 * How: a definition whose references are all written is written at once, in
 * input order.  One that references a definition not written yet is kept (a
 * copy of its fields and arrays) on the list of the first such definition;
 * when that one is written, the definitions waiting for it are checked again
 * and written when nothing else is missing, the lowest input position first.
 * At the end, what still waits references a definition the input does not
 * have (or is part of a cycle): it is written in input order after what it
 * references that the input does have, the input's fault.
 * Memory: a set of the ids written (a bit per id where ids are dense, a map
 * entry where they are sparse) and the definitions waiting, each freed once
 * written.
 *
 * What a definition references comes from the OTF2 3.0 definitions: its
 * *Ref fields (a table per kind, `refs` below), the members of a Group (by
 * its type), a MetricClass's members, a MetricInstance's scope, a
 * CartTopology's dimensions, and the values of properties whose type names a
 * definition (OTF2_TYPE_STRING and the other reference types).  A COMM_GROUP
 * Group with members needs the COMM_LOCATIONS Group of its paradigm before
 * it (its members are ranks in that group: OTF2's Python reader looks it up).
 */
#include <stddef.h>
#include <string.h>

#include "trace_int.h"

/* Old archives may hold the deprecated Callsite definition; it is copied as
 * it came. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* ---- the records, one struct per kind ----------------------------------- */

#define FIELD_(t, n) t n;
#define ARRAY_(t, n, c) t *n;
#define X(K) typedef struct d_##K { char unused_; UP_DEFF_##K(FIELD_, ARRAY_) } d_##K;
UP_OTF2_DEFS(X)
#undef X
#undef FIELD_
#undef ARRAY_

enum {
#define X(K) K_##K,
    UP_OTF2_DEFS(X)
#undef X
    K_COUNT_
};

typedef struct rec {
    uint64_t seq;      /* its position in the input */
    size_t at;         /* its references before `at` are written */
    unsigned kind;     /* K_* */
    union {
#define X(K) d_##K K;
        UP_OTF2_DEFS(X)
#undef X
    } u;
    /* a kept record's arrays (and a String's text) follow */
} rec;

/* ---- what a definition references ---------------------------------------- */

/* the kinds of ids: one namespace each (Comm and InterComm share one, as do
 * MetricClass and MetricInstance, IoRegularFile and IoDirectory) */
enum {
    NS_NONE, NS_STRING, NS_ATTRIBUTE, NS_STN, NS_LGROUP, NS_LOCATION, NS_REGION, NS_CALLSITE,
    NS_CALLPATH, NS_GROUP, NS_MEMBER, NS_METRIC, NS_COMM, NS_PARAMETER, NS_RMAWIN, NS_CARTDIM,
    NS_CARTTOPO, NS_SCL, NS_CCTX, NS_INTGEN, NS_IOFILE, NS_IOHANDLE, NS_IOPARADIGM,
    NS_COMMLOCS, /* id: a paradigm that has a COMM_LOCATIONS Group */
    NS_COUNT_
};

/* a reference field: where in the kind's struct, its size in bytes */
typedef struct fref {
    unsigned short off;
    unsigned char size, ns;
} fref;

#define FR(K, f, ns) {(unsigned short)offsetof(d_##K, f), (unsigned char)sizeof(((d_##K *)0)->f), ns}
#define NOSELF {0, 0, NS_NONE}

typedef struct kind_refs {
    fref self;          /* the id it defines (ns NS_NONE: none) */
    const fref *f;      /* its reference fields */
    unsigned char n;
} kind_refs;

#define REFS(...) (const fref[]){__VA_ARGS__}, sizeof((const fref[]){__VA_ARGS__}) / sizeof(fref)
#define NOREFS NULL, 0

static const kind_refs refs[K_COUNT_] = {
    [K_ClockProperties] = {NOSELF, NOREFS},
    [K_Paradigm] = {NOSELF, REFS(FR(Paradigm, name, NS_STRING))},
    [K_ParadigmProperty] = {NOSELF, NOREFS},
    [K_IoParadigm] = {FR(IoParadigm, self, NS_IOPARADIGM),
                      REFS(FR(IoParadigm, identification, NS_STRING), FR(IoParadigm, name, NS_STRING))},
    [K_String] = {FR(String, self, NS_STRING), NOREFS},
    [K_Attribute] = {FR(Attribute, self, NS_ATTRIBUTE),
                     REFS(FR(Attribute, name, NS_STRING), FR(Attribute, description, NS_STRING))},
    [K_SystemTreeNode] = {FR(SystemTreeNode, self, NS_STN),
                          REFS(FR(SystemTreeNode, name, NS_STRING),
                               FR(SystemTreeNode, className, NS_STRING),
                               FR(SystemTreeNode, parent, NS_STN))},
    [K_LocationGroup] = {FR(LocationGroup, self, NS_LGROUP),
                         REFS(FR(LocationGroup, name, NS_STRING),
                              FR(LocationGroup, systemTreeParent, NS_STN),
                              FR(LocationGroup, creatingLocationGroup, NS_LGROUP))},
    [K_Location] = {FR(Location, self, NS_LOCATION),
                    REFS(FR(Location, name, NS_STRING), FR(Location, locationGroup, NS_LGROUP))},
    [K_Region] = {FR(Region, self, NS_REGION),
                  REFS(FR(Region, name, NS_STRING), FR(Region, canonicalName, NS_STRING),
                       FR(Region, description, NS_STRING), FR(Region, sourceFile, NS_STRING))},
    [K_Callsite] = {FR(Callsite, self, NS_CALLSITE),
                    REFS(FR(Callsite, sourceFile, NS_STRING), FR(Callsite, enteredRegion, NS_REGION),
                         FR(Callsite, leftRegion, NS_REGION))},
    [K_Callpath] = {FR(Callpath, self, NS_CALLPATH),
                    REFS(FR(Callpath, parent, NS_CALLPATH), FR(Callpath, region, NS_REGION))},
    [K_Group] = {FR(Group, self, NS_GROUP), REFS(FR(Group, name, NS_STRING))},
    [K_MetricMember] = {FR(MetricMember, self, NS_MEMBER),
                        REFS(FR(MetricMember, name, NS_STRING), FR(MetricMember, description, NS_STRING),
                             FR(MetricMember, unit, NS_STRING))},
    [K_MetricClass] = {FR(MetricClass, self, NS_METRIC), NOREFS},
    [K_MetricInstance] = {FR(MetricInstance, self, NS_METRIC),
                          REFS(FR(MetricInstance, metricClass, NS_METRIC),
                               FR(MetricInstance, recorder, NS_LOCATION))},
    [K_Comm] = {FR(Comm, self, NS_COMM),
                REFS(FR(Comm, name, NS_STRING), FR(Comm, group, NS_GROUP), FR(Comm, parent, NS_COMM))},
    [K_Parameter] = {FR(Parameter, self, NS_PARAMETER), REFS(FR(Parameter, name, NS_STRING))},
    [K_RmaWin] = {FR(RmaWin, self, NS_RMAWIN),
                  REFS(FR(RmaWin, name, NS_STRING), FR(RmaWin, comm, NS_COMM))},
    [K_MetricClassRecorder] = {NOSELF, REFS(FR(MetricClassRecorder, metric, NS_METRIC),
                                            FR(MetricClassRecorder, recorder, NS_LOCATION))},
    [K_SystemTreeNodeProperty] = {NOSELF, REFS(FR(SystemTreeNodeProperty, systemTreeNode, NS_STN),
                                               FR(SystemTreeNodeProperty, name, NS_STRING))},
    [K_SystemTreeNodeDomain] = {NOSELF, REFS(FR(SystemTreeNodeDomain, systemTreeNode, NS_STN))},
    [K_LocationGroupProperty] = {NOSELF, REFS(FR(LocationGroupProperty, locationGroup, NS_LGROUP),
                                              FR(LocationGroupProperty, name, NS_STRING))},
    [K_LocationProperty] = {NOSELF, REFS(FR(LocationProperty, location, NS_LOCATION),
                                         FR(LocationProperty, name, NS_STRING))},
    [K_CartDimension] = {FR(CartDimension, self, NS_CARTDIM), REFS(FR(CartDimension, name, NS_STRING))},
    [K_CartTopology] = {FR(CartTopology, self, NS_CARTTOPO),
                        REFS(FR(CartTopology, name, NS_STRING), FR(CartTopology, communicator, NS_COMM))},
    [K_CartCoordinate] = {NOSELF, REFS(FR(CartCoordinate, cartTopology, NS_CARTTOPO))},
    [K_SourceCodeLocation] = {FR(SourceCodeLocation, self, NS_SCL),
                              REFS(FR(SourceCodeLocation, file, NS_STRING))},
    [K_CallingContext] = {FR(CallingContext, self, NS_CCTX),
                          REFS(FR(CallingContext, region, NS_REGION),
                               FR(CallingContext, sourceCodeLocation, NS_SCL),
                               FR(CallingContext, parent, NS_CCTX))},
    [K_CallingContextProperty] = {NOSELF, REFS(FR(CallingContextProperty, callingContext, NS_CCTX),
                                               FR(CallingContextProperty, name, NS_STRING))},
    [K_InterruptGenerator] = {FR(InterruptGenerator, self, NS_INTGEN),
                              REFS(FR(InterruptGenerator, name, NS_STRING))},
    [K_IoFileProperty] = {NOSELF, REFS(FR(IoFileProperty, ioFile, NS_IOFILE),
                                       FR(IoFileProperty, name, NS_STRING))},
    [K_IoRegularFile] = {FR(IoRegularFile, self, NS_IOFILE),
                         REFS(FR(IoRegularFile, name, NS_STRING), FR(IoRegularFile, scope, NS_STN))},
    [K_IoDirectory] = {FR(IoDirectory, self, NS_IOFILE),
                       REFS(FR(IoDirectory, name, NS_STRING), FR(IoDirectory, scope, NS_STN))},
    [K_IoHandle] = {FR(IoHandle, self, NS_IOHANDLE),
                    REFS(FR(IoHandle, name, NS_STRING), FR(IoHandle, file, NS_IOFILE),
                         FR(IoHandle, ioParadigm, NS_IOPARADIGM), FR(IoHandle, comm, NS_COMM),
                         FR(IoHandle, parent, NS_IOHANDLE))},
    [K_IoPreCreatedHandleState] = {NOSELF, REFS(FR(IoPreCreatedHandleState, ioHandle, NS_IOHANDLE))},
    [K_CallpathParameter] = {NOSELF, REFS(FR(CallpathParameter, callpath, NS_CALLPATH),
                                          FR(CallpathParameter, parameter, NS_PARAMETER))},
    [K_InterComm] = {FR(InterComm, self, NS_COMM),
                     REFS(FR(InterComm, name, NS_STRING), FR(InterComm, groupA, NS_GROUP),
                          FR(InterComm, groupB, NS_GROUP), FR(InterComm, commonCommunicator, NS_COMM))},
};

typedef struct key {
    unsigned ns;       /* NS_NONE: no reference (an undefined id) */
    uint64_t id;
} key;

/* An id field's value; the undefined id (all bits set) references nothing. */
static key field_key(const rec *r, fref f)
{
    const unsigned char *p = (const unsigned char *)&r->u + f.off;
    key k = {f.ns, 0};
    uint8_t v8;
    uint32_t v32;
    if (f.size == 1) {
        memcpy(&v8, p, 1);
        k.id = v8;
        if (v8 == OTF2_UNDEFINED_UINT8)
            k.ns = NS_NONE;
    } else if (f.size == 4) {
        memcpy(&v32, p, 4);
        k.id = v32;
        if (v32 == OTF2_UNDEFINED_UINT32)
            k.ns = NS_NONE;
    } else {
        memcpy(&k.id, p, 8);
        if (k.id == OTF2_UNDEFINED_UINT64)
            k.ns = NS_NONE;
    }
    return k;
}

/* the 32- or 64-bit id of namespace `ns`, all bits set: no reference */
static key ref_key(unsigned ns, uint64_t id)
{
    key k = {ns, id};
    if (id == OTF2_UNDEFINED_UINT64 || (ns != NS_LOCATION && id == OTF2_UNDEFINED_UINT32))
        k.ns = NS_NONE;
    return k;
}

/* the definition a property's value names, if its type is a reference */
static key value_key(OTF2_Type type, OTF2_AttributeValue v)
{
    switch (type) {
    case OTF2_TYPE_STRING: return ref_key(NS_STRING, v.stringRef);
    case OTF2_TYPE_ATTRIBUTE: return ref_key(NS_ATTRIBUTE, v.attributeRef);
    case OTF2_TYPE_LOCATION: return ref_key(NS_LOCATION, v.locationRef);
    case OTF2_TYPE_REGION: return ref_key(NS_REGION, v.regionRef);
    case OTF2_TYPE_GROUP: return ref_key(NS_GROUP, v.groupRef);
    case OTF2_TYPE_METRIC: return ref_key(NS_METRIC, v.metricRef);
    case OTF2_TYPE_COMM: return ref_key(NS_COMM, v.commRef);
    case OTF2_TYPE_PARAMETER: return ref_key(NS_PARAMETER, v.parameterRef);
    case OTF2_TYPE_RMA_WIN: return ref_key(NS_RMAWIN, v.rmaWinRef);
    case OTF2_TYPE_SOURCE_CODE_LOCATION: return ref_key(NS_SCL, v.sourceCodeLocationRef);
    case OTF2_TYPE_CALLING_CONTEXT: return ref_key(NS_CCTX, v.callingContextRef);
    case OTF2_TYPE_INTERRUPT_GENERATOR: return ref_key(NS_INTGEN, v.interruptGeneratorRef);
    case OTF2_TYPE_IO_FILE: return ref_key(NS_IOFILE, v.ioFileRef);
    case OTF2_TYPE_IO_HANDLE: return ref_key(NS_IOHANDLE, v.ioHandleRef);
    case OTF2_TYPE_LOCATION_GROUP: return ref_key(NS_LGROUP, v.locationGroupRef);
    default: return (key){NS_NONE, 0};
    }
}

/* The number of references of record `r` beyond its fields. */
static size_t more_refs(const rec *r)
{
    switch (r->kind) {
    case K_Group: {
        const d_Group *g = &r->u.Group;
        switch (g->groupType) {
        case OTF2_GROUP_TYPE_LOCATIONS:
        case OTF2_GROUP_TYPE_REGIONS:
        case OTF2_GROUP_TYPE_METRIC:
        case OTF2_GROUP_TYPE_COMM_LOCATIONS:
            return g->numberOfMembers;
        case OTF2_GROUP_TYPE_COMM_GROUP:
            return g->numberOfMembers ? 1 : 0;
        default:
            return 0;
        }
    }
    case K_MetricClass: return r->u.MetricClass.numberOfMetrics;
    case K_MetricInstance: return 1;
    case K_CartTopology: return r->u.CartTopology.numberOfDimensions;
    case K_IoParadigm: return r->u.IoParadigm.numberOfProperties;
    case K_ParadigmProperty: case K_SystemTreeNodeProperty: case K_LocationGroupProperty:
    case K_LocationProperty: case K_CallingContextProperty: case K_IoFileProperty:
    case K_CallpathParameter:
        return 1;
    default:
        return 0;
    }
}

/* Reference `i` (0 .. more_refs - 1) beyond the fields of record `r`. */
static key more_ref(const rec *r, size_t i)
{
    switch (r->kind) {
    case K_Group: {
        const d_Group *g = &r->u.Group;
        switch (g->groupType) {
        case OTF2_GROUP_TYPE_LOCATIONS:
        case OTF2_GROUP_TYPE_COMM_LOCATIONS: return ref_key(NS_LOCATION, g->members[i]);
        case OTF2_GROUP_TYPE_REGIONS: return ref_key(NS_REGION, g->members[i]);
        case OTF2_GROUP_TYPE_METRIC: return ref_key(NS_METRIC, g->members[i]);
        default: return (key){NS_COMMLOCS, g->paradigm}; /* COMM_GROUP: ranks of that group */
        }
    }
    case K_MetricClass: return ref_key(NS_MEMBER, r->u.MetricClass.metricMembers[i]);
    case K_MetricInstance: {
        const d_MetricInstance *m = &r->u.MetricInstance;
        switch (m->metricScope) {
        case OTF2_SCOPE_LOCATION: return ref_key(NS_LOCATION, m->scope);
        case OTF2_SCOPE_LOCATION_GROUP: return ref_key(NS_LGROUP, m->scope);
        case OTF2_SCOPE_SYSTEM_TREE_NODE: return ref_key(NS_STN, m->scope);
        case OTF2_SCOPE_GROUP: return ref_key(NS_GROUP, m->scope);
        default: return (key){NS_NONE, 0};
        }
    }
    case K_CartTopology: return ref_key(NS_CARTDIM, r->u.CartTopology.cartDimensions[i]);
    case K_IoParadigm: return value_key(r->u.IoParadigm.types[i], r->u.IoParadigm.values[i]);
#define PROP(K) case K_##K: return value_key(r->u.K.type, r->u.K.value);
    PROP(ParadigmProperty) PROP(SystemTreeNodeProperty) PROP(LocationGroupProperty)
    PROP(LocationProperty) PROP(CallingContextProperty) PROP(IoFileProperty) PROP(CallpathParameter)
#undef PROP
    default:
        return (key){NS_NONE, 0};
    }
}

/* ---- ids written: a bit per id where ids are dense, else a map ------------ */

typedef struct idset {
    uint64_t *bits;
    size_t nbits;      /* a multiple of 64 */
    size_t n;          /* ids in the set */
    up_map sparse;
} idset;

static bool idset_has(const idset *s, uint64_t id)
{
    if (id < s->nbits && (s->bits[id / 64] >> (id % 64) & 1))
        return true;
    return s->sparse.len && up_map_get(&s->sparse, id, 0);
}

static bool idset_add(idset *s, uint64_t id)
{
    /* the bitmap takes ids below 64 Ki + 64 per id in the set: a bit per
     * id where ids are dense, never more than 16 KiB + 16 bytes per id
     * (doubling); sparser ids go to the map */
    uint64_t limit = 65536 + 64 * (uint64_t)s->n;
    if (id >= s->nbits && id < limit) {
        size_t words = s->nbits / 64 ? s->nbits / 64 : 16, old = s->nbits / 64;
        uint64_t *b;
        while ((uint64_t)words * 64 <= id)
            words *= 2;
        if (!(b = up_reallocarray(s->bits, words, sizeof *b)))
            return false;
        memset(b + old, 0, (words - old) * sizeof *b);
        s->bits = b;
        s->nbits = words * 64;
    }
    if (id < s->nbits)
        s->bits[id / 64] |= (uint64_t)1 << (id % 64);
    else if (!up_map_put(&s->sparse, id, 0, 1))
        return false;
    s->n++;
    return true;
}

/* ---- the copy ------------------------------------------------------------ */

#define NO_REC SIZE_MAX

struct up_def_copy {
    OTF2_GlobalDefWriter *gw;
    const up_defs *defs;
    const uint64_t *nevents;
    uint64_t seq;                 /* definitions offered */
    idset written[NS_COUNT_];
    /* the definitions waiting, in input order (NULL once written); next[i]:
     * the next one waiting for the same definition */
    rec **wait;
    size_t *next;
    size_t nwait, cap_wait, cap_next;
    size_t left;                  /* of them not written */
    up_map waiting;               /* (id, ns) -> the first waiting for it */
    size_t *ready;                /* a heap of waiting ones now complete */
    size_t nready, cap_ready;
    bool nomem;
    OTF2_ErrorCode rc;            /* the first write that failed */
};

static bool is_written(const up_def_copy *c, key k)
{
    return k.ns == NS_NONE || idset_has(&c->written[k.ns], k.id);
}

/* The first reference of `r` from r->at on that is not written (advancing
 * r->at to it), or a key of NS_NONE if there is none. */
static key missing(const up_def_copy *c, rec *r)
{
    const kind_refs *kr = &refs[r->kind];
    size_t n = kr->n + more_refs(r);
    for (; r->at < n; r->at++) {
        key k = r->at < kr->n ? field_key(r, kr->f[r->at]) : more_ref(r, r->at - kr->n);
        if (!is_written(c, k))
            return k;
    }
    return (key){NS_NONE, 0};
}

/* ARG_F/ARG_A: a record's fields as the writer's arguments */
#define ARG_F(t, n) , f->n
#define ARG_A(t, n, c) , f->n

static OTF2_ErrorCode put(OTF2_GlobalDefWriter *gw, const rec *r)
{
    switch (r->kind) {
#define X(K)                                                                  \
    case K_##K: {                                                             \
        const d_##K *f = &r->u.K;                                             \
        (void)f;                                                              \
        return OTF2_GlobalDefWriter_Write##K(gw UP_DEFF_##K(ARG_F, ARG_A));  \
    }
        UP_OTF2_DEFS(X)
#undef X
    default:
        return OTF2_ERROR_INVALID_ARGUMENT;
    }
}

static void heap_push(up_def_copy *c, size_t i)
{
    size_t j;
    if (!up_grow((void **)&c->ready, &c->cap_ready, c->nready + 1, sizeof *c->ready)) {
        c->nomem = true;
        return;
    }
    j = c->nready++;
    while (j > 0 && c->ready[(j - 1) / 2] > i) {
        c->ready[j] = c->ready[(j - 1) / 2];
        j = (j - 1) / 2;
    }
    c->ready[j] = i;
}

static size_t heap_pop(up_def_copy *c)
{
    size_t top = c->ready[0], last = c->ready[--c->nready], j = 0;
    for (;;) {
        size_t k = 2 * j + 1;
        if (k >= c->nready)
            break;
        if (k + 1 < c->nready && c->ready[k + 1] < c->ready[k])
            k++;
        if (last <= c->ready[k])
            break;
        c->ready[j] = c->ready[k];
        j = k;
    }
    if (c->nready)
        c->ready[j] = last;
    return top;
}

/* Waiting record `i` waits for `k` (not written). */
static void wait_for(up_def_copy *c, size_t i, key k)
{
    uint64_t *head = up_map_get(&c->waiting, k.id, k.ns);
    c->next[i] = head ? (size_t)*head : NO_REC;
    if (!up_map_put(&c->waiting, k.id, k.ns, i))
        c->nomem = true;
}

/* `k` is written: the records waiting for it wait for their next missing
 * reference, or are ready. */
static void release(up_def_copy *c, key k)
{
    uint64_t *head = up_map_get(&c->waiting, k.id, k.ns);
    size_t i;
    if (!head)
        return;
    i = (size_t)*head;
    up_map_del(&c->waiting, k.id, k.ns);
    while (i != NO_REC && !c->nomem) {
        size_t nx = c->next[i];
        if (c->wait[i]) {
            key m = missing(c, c->wait[i]);
            if (m.ns != NS_NONE)
                wait_for(c, i, m);
            else
                heap_push(c, i);
        }
        i = nx;
    }
}

/* Writes `r` and marks what it defines as written; a definition of an id
 * written before is left out (the reader keeps the first, defs.c: an
 * output must not define one id twice). */
static void emit(up_def_copy *c, const rec *r)
{
    const kind_refs *kr = &refs[r->kind];
    OTF2_ErrorCode rc;
    key self[2];
    size_t n = 0, i;
    if (kr->self.ns != NS_NONE) {
        key k = field_key(r, kr->self);
        if (idset_has(&c->written[k.ns], k.id))
            return; /* counted by the reader (defs.c: duplicate_definitions) */
    }
    rc = put(c->gw, r);
    if (rc != OTF2_SUCCESS) {
        if (c->rc == OTF2_SUCCESS)
            c->rc = rc;
        return;
    }
    if (kr->self.ns != NS_NONE)
        self[n++] = field_key(r, kr->self);
    if (r->kind == K_Group && r->u.Group.groupType == OTF2_GROUP_TYPE_COMM_LOCATIONS)
        self[n++] = (key){NS_COMMLOCS, r->u.Group.paradigm};
    for (i = 0; i < n; i++) {
        if (self[i].ns == NS_NONE || idset_has(&c->written[self[i].ns], self[i].id))
            continue; /* a paradigm's second COMM_LOCATIONS Group: the first one counts */
        if (!idset_add(&c->written[self[i].ns], self[i].id)) {
            c->nomem = true;
            return;
        }
        release(c, self[i]);
    }
}

/* Writes the waiting records that are ready, the lowest input position first. */
static void drain(up_def_copy *c)
{
    while (c->nready && !c->nomem && c->rc == OTF2_SUCCESS) {
        size_t i = heap_pop(c);
        rec *r = c->wait[i];
        if (!r)
            continue;
        emit(c, r);
        c->wait[i] = NULL;
        c->left--;
        up_free(r);
    }
}

/* A copy of record `r` (whose arrays and text belong to OTF2's reader). */
static rec *keep(const rec *r)
{
    size_t need = (sizeof *r + 7u) / 8u * 8u;
    unsigned char *xp;
    rec *k;
    switch (r->kind) {
#define NEED_F(t, n)
#define NEED_A(t, n, c) need += (sizeof(t) * (size_t)f->c + 7u) / 8u * 8u;
#define X(K)                                  \
    case K_##K: {                             \
        const d_##K *f = &r->u.K;             \
        (void)f;                              \
        UP_DEFF_##K(NEED_F, NEED_A) break;    \
    }
        UP_OTF2_DEFS(X)
#undef X
#undef NEED_F
#undef NEED_A
    default:
        break;
    }
    if (r->kind == K_String)
        need += strlen(r->u.String.string) + 1;
    if (!(k = up_malloc(need)))
        return NULL;
    memcpy(k, r, sizeof *r);
    xp = (unsigned char *)k + (sizeof *r + 7u) / 8u * 8u;
    switch (r->kind) {
#define COPY_F(t, n)
#define COPY_A(t, n, c)                                      \
    if (f->c)                                                \
        memcpy(xp, f->n, sizeof(t) * (size_t)f->c);          \
    g->n = (t *)(void *)xp;                                  \
    xp += (sizeof(t) * (size_t)f->c + 7u) / 8u * 8u;
#define X(K)                                  \
    case K_##K: {                             \
        const d_##K *f = &r->u.K;             \
        d_##K *g = &k->u.K;                   \
        (void)f, (void)g;                     \
        UP_DEFF_##K(COPY_F, COPY_A) break;    \
    }
        UP_OTF2_DEFS(X)
#undef X
#undef COPY_F
#undef COPY_A
    default:
        break;
    }
    if (r->kind == K_String) {
        strcpy((char *)xp, r->u.String.string);
        k->u.String.string = (const char *)xp;
    }
    return k;
}

/* A definition from the input: written now, or kept until what it
 * references is written. */
static OTF2_CallbackCode offer(up_def_copy *c, rec *r)
{
    key m;
    r->seq = c->seq++;
    r->at = 0;
    m = missing(c, r);
    if (m.ns == NS_NONE) {
        emit(c, r);
        drain(c);
    } else {
        rec *k;
        if (!up_grow((void **)&c->wait, &c->cap_wait, c->nwait + 1, sizeof *c->wait) ||
            !up_grow((void **)&c->next, &c->cap_next, c->nwait + 1, sizeof *c->next) ||
            !(k = keep(r))) {
            c->nomem = true;
            return OTF2_CALLBACK_INTERRUPT;
        }
        c->wait[c->nwait] = k;
        c->left++;
        wait_for(c, c->nwait++, m);
    }
    if (c->nomem)
        return OTF2_CALLBACK_INTERRUPT;
    return c->rc == OTF2_SUCCESS ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_ERROR;
}

/* ---- reader callbacks -------------------------------------------------------- */

#define P_F(t, n) , t n
#define P_A(t, n, c) , const t *n
#define SET_F(t, n) f->n = n;
#define SET_A(t, n, c) f->n = (t *)(uintptr_t)n;

#define X(K)                                                        \
    static OTF2_CallbackCode defcopy_##K(void *ud UP_DEFF_##K(P_F, P_A)) \
    {                                                               \
        rec r;                                                      \
        d_##K *f = &r.u.K;                                          \
        memset(&r, 0, sizeof r);                                    \
        r.kind = K_##K;                                             \
        UP_DEFF_##K(SET_F, SET_A)                                   \
        return offer(ud, &r);                                       \
    }
UP_OTF2_DEFS(X)
#undef X

/* A Location declares the records written for it, where the caller says:
 * those of a damaged input are fewer than it declared. */
static OTF2_CallbackCode defcopy_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
                                          OTF2_LocationType type, uint64_t nevents,
                                          OTF2_LocationGroupRef group)
{
    const up_def_copy *c = ud;
    uint32_t i;
    if (c->nevents && c->defs && up_defs_loc_index(c->defs, self, &i))
        nevents = c->nevents[i];
    return defcopy_Location(ud, self, name, type, nevents, group);
}

void up_copy_def_callbacks(OTF2_GlobalDefReaderCallbacks *cb)
{
#define X(K) OTF2_GlobalDefReaderCallbacks_Set##K##Callback(cb, defcopy_##K);
    UP_OTF2_DEFS(X)
#undef X
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, defcopy_location);
}

/* ---- open, finish, free ------------------------------------------------------ */

up_status up_def_copy_open(OTF2_GlobalDefWriter *gw, const up_defs *defs, const uint64_t *nevents,
                           up_def_copy **out, up_err *err)
{
    up_def_copy *c = up_calloc(1, sizeof *c);
    size_t i;
    *out = NULL;
    if (!c)
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    c->gw = gw;
    c->defs = defs;
    c->nevents = nevents;
    for (i = 0; i < NS_COUNT_; i++)
        up_map_init(&c->written[i].sparse);
    up_map_init(&c->waiting);
    *out = c;
    return UP_OK;
}

static up_status status(const up_def_copy *c, up_err *err)
{
    if (c->nomem)
        return UP_ERR(err, UP_ENOMEM, "out of memory copying the global definitions");
    if (c->rc != OTF2_SUCCESS)
        return up_otf2_err_(err, c->rc, "cannot copy the global definitions");
    return UP_OK;
}

/* Whether a reference of waiting record `r` not written yet is to a
 * definition that another waiting record defines (`by_waiting`). */
static bool waits_for_waiting(const up_def_copy *c, const rec *r, const up_map *by_waiting)
{
    const kind_refs *kr = &refs[r->kind];
    size_t n = kr->n + more_refs(r), i;
    for (i = r->at; i < n; i++) {
        key k = i < kr->n ? field_key(r, kr->f[i]) : more_ref(r, i - kr->n);
        if (!is_written(c, k) && up_map_get(by_waiting, k.id, k.ns))
            return true;
    }
    return false;
}

/* Writes waiting record `i` as it is, and what it lets through. */
static void force(up_def_copy *c, size_t i)
{
    rec *r = c->wait[i];
    emit(c, r);
    c->wait[i] = NULL;
    c->left--;
    up_free(r);
    drain(c);
}

up_status up_def_copy_finish(up_def_copy *c, up_err *err)
{
    up_map by_waiting;
    size_t i;
    /* What still waits references a definition the input does not have, or
     * one that waits itself.  The first are written in input order, each
     * letting through what waits for it; if only the second are left (a
     * cycle), the first of them in input order is written as it is. */
    up_map_init(&by_waiting);
    for (i = 0; i < c->nwait && !c->nomem; i++) {
        const rec *r = c->wait[i];
        if (r && refs[r->kind].self.ns != NS_NONE) {
            key k = field_key(r, refs[r->kind].self);
            if (k.ns != NS_NONE && !up_map_put(&by_waiting, k.id, k.ns, 1))
                c->nomem = true;
        }
        if (r && r->kind == K_Group && r->u.Group.groupType == OTF2_GROUP_TYPE_COMM_LOCATIONS &&
            !up_map_put(&by_waiting, r->u.Group.paradigm, NS_COMMLOCS, 1))
            c->nomem = true;
    }
    while (c->left && !c->nomem && c->rc == OTF2_SUCCESS) {
        size_t before = c->left;
        for (i = 0; i < c->nwait && c->left && !c->nomem && c->rc == OTF2_SUCCESS; i++)
            if (c->wait[i] && !waits_for_waiting(c, c->wait[i], &by_waiting))
                force(c, i);
        if (c->left == before)
            for (i = 0; i < c->nwait; i++)
                if (c->wait[i]) {
                    force(c, i);
                    break;
                }
    }
    up_map_free(&by_waiting);
    return status(c, err);
}

up_status up_def_copy_status(const up_def_copy *c, up_err *err)
{
    return status(c, err);
}

void up_def_copy_free(up_def_copy *c)
{
    size_t i;
    if (!c)
        return;
    for (i = 0; i < c->nwait; i++)
        up_free(c->wait[i]);
    for (i = 0; i < NS_COUNT_; i++) {
        up_free(c->written[i].bits);
        up_map_free(&c->written[i].sparse);
    }
    up_map_free(&c->waiting);
    up_free(c->wait);
    up_free(c->next);
    up_free(c->ready);
    up_free(c);
}
