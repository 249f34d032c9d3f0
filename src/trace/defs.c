/*
 * defs.c - the global definitions a model needs: clock, locations and their
 * MPI ranks, regions (with the window and overhead flags), communicators
 * resolved to location indices.  Place in the data flow: trace reading, before
 * any event is read.  Every other definition kind is counted here and copied
 * verbatim by the writer (defcopy.c, writer.c).  Names are looked up once all
 * definitions are read (name_all): a definition may come before the String
 * that names it (an archive of the unperturb tracer before issue 31, or of
 * another writer), and OTF2's reader passes definitions on in file order.
 */
#include <string.h>

#include "mpi_classes.h"
#include "trace_int.h"

typedef struct group_def {
    OTF2_GroupType type;
    OTF2_Paradigm paradigm;
    OTF2_GroupFlag flags;
    uint32_t n;
    uint64_t *members;
} group_def;

typedef struct lgroup_def {
    OTF2_SystemTreeNodeRef parent;
    OTF2_LocationGroupType type;
    OTF2_LocationGroupRef creator;  /* an accelerator's process */
    uint32_t process;               /* dense, UP_NO_PROCESS until numbered */
} lgroup_def;

typedef struct comm_raw {
    OTF2_CommRef self;
    OTF2_StringRef name;
    OTF2_GroupRef group;
    bool inter;
} comm_raw;

/* what is named after the reading: by index of d->regions / d->locs, the
 * String ids; attributes of type UINT8 and the candidates for the tracer's
 * CPU-time metric, in file order */
typedef struct named {
    uint64_t self;
    OTF2_StringRef name;
} named;

typedef struct reading {
    up_defs *d;
    bool nomem;
    up_map lgroups;          /* id -> lgroup_def* */
    comm_raw *craw;
    size_t ncraw, craw_cap;
    size_t regions_cap, locs_cap;
    OTF2_StringRef *region_names, *loc_names;
    size_t region_names_cap, loc_names_cap;
    named *attrs8, *members;     /* UINT8 attributes; UINT64 members of exponent -9 */
    size_t nattrs8, attrs8_cap, nmembers, members_cap;
    struct { OTF2_MetricRef self; OTF2_MetricMemberRef member; } *classes; /* of one member */
    size_t nclasses, classes_cap;
} reading;

/* `item` appended to the array *a of *n (capacity *cap); false: no memory */
static bool push(void **a, size_t *n, size_t *cap, const void *item, size_t size)
{
    if (!up_grow(a, cap, *n + 1, size))
        return false;
    memcpy((char *)*a + *n * size, item, size);
    (*n)++;
    return true;
}

static bool dense_table(const up_map *m, uint32_t **table, uint32_t *n);

static const char *str_of(const up_defs *d, OTF2_StringRef s)
{
    uint64_t *v = up_map_get(&d->strings, s, 0);
    return v ? (const char *)(uintptr_t)*v : "";
}

#define P_F(t, n) , t n
#define P_A(t, n, c) , const t *n
#define UNUSED_F(t, n) (void)n;
#define UNUSED_A(t, n, c) (void)n;

/* counting callbacks for the kinds a model does not need */
#define X(K)                                                              \
    static OTF2_CallbackCode count_##K(void *ud UP_DEFF_##K(P_F, P_A))    \
    {                                                                     \
        UP_DEFF_##K(UNUSED_F, UNUSED_A)((reading *)ud)->d->n_global_defs++; \
        return OTF2_CALLBACK_SUCCESS;                                     \
    }
UP_OTF2_DEFS(X)
#undef X

static OTF2_CallbackCode on_unknown(void *ud)
{
    ((reading *)ud)->d->n_unknown_global_defs++;
    return OTF2_CALLBACK_SUCCESS;
}

/* A definition of an id already defined: counted, the first one kept. */
static OTF2_CallbackCode duplicate(up_defs *d, const char *kind, uint64_t id)
{
    if (!d->n_dup_defs++)
        snprintf(d->dup_first, sizeof d->dup_first, "%s %llu", kind, (unsigned long long)id);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_clock(void *ud, uint64_t res, uint64_t off,
                                  uint64_t len, uint64_t real)
{
    up_defs *d = ((reading *)ud)->d;
    d->n_global_defs++;
    d->resolution = res;
    d->global_offset = off;
    d->trace_length = len;
    d->realtime = real;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_string(void *ud, OTF2_StringRef self, const char *s)
{
    reading *r = ud;
    char *c;
    r->d->n_global_defs++;
    if (!r->d->has_strings || self > r->d->max_string)
        r->d->max_string = self, r->d->has_strings = true;
    if (up_map_get(&r->d->strings, self, 0))
        return duplicate(r->d, "String", self); /* keep the first (names point to it) */
    if (!(c = up_strdup(s))) {
        r->nomem = true;
        return OTF2_CALLBACK_INTERRUPT;
    }
    if (!up_map_put(&r->d->strings, self, 0, (uint64_t)(uintptr_t)c)) {
        up_free(c);
        r->nomem = true;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_rmawin(void *ud, OTF2_RmaWinRef self, OTF2_StringRef name,
                                   OTF2_CommRef comm, OTF2_RmaWinFlag flags)
{
    reading *r = ud;
    (void)name, (void)flags;
    r->d->n_global_defs++;
    if (up_map_get(&r->d->wins, self, 0))
        return duplicate(r->d, "RmaWin", self);
    if (!up_map_put(&r->d->wins, self, 0, comm)) {
        r->nomem = true;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

bool up_defs_attr_find_(const up_defs *d, const char *name, OTF2_Type type,
                        OTF2_AttributeRef *ref)
{
    uint64_t k0, k1, v;
    bool found = false;
    size_t i;
    for (i = 0; i < d->attrs.cap; i++) /* attributes are few */
        if (up_map_at(&d->attrs, i, &k0, &k1, &v) && (OTF2_Type)(v & 0xff) == type &&
            !strcmp(str_of(d, (OTF2_StringRef)(v >> 8)), name) && (!found || k0 < *ref)) {
            *ref = (OTF2_AttributeRef)k0; /* the lowest of several: the same every run */
            found = true;
        }
    return found;
}

bool up_defs_attr(const up_defs *d, const char *name, OTF2_Type type, OTF2_AttributeRef *ref)
{
    return up_defs_attr_find_(d, name, type, ref);
}

bool up_defs_win_comm(const up_defs *d, OTF2_RmaWinRef win, OTF2_CommRef *comm)
{
    uint64_t *v = up_map_get(&d->wins, win, 0);
    if (!v)
        return false;
    *comm = (OTF2_CommRef)*v;
    return true;
}

/* Attributes are carried over by the writer; the engine needs to know one,
 * and the writer the names and the largest id (up_writer_attr). */
static OTF2_CallbackCode on_attribute(void *ud, OTF2_AttributeRef self, OTF2_StringRef name,
                                      OTF2_StringRef desc, OTF2_Type type)
{
    reading *r = ud;
    up_defs *d = r->d;
    (void)desc;
    d->n_global_defs++;
    if (!d->has_attrs || self > d->max_attr)
        d->max_attr = self, d->has_attrs = true;
    /* the name's ref, not its text: a String may come after its user */
    if (up_map_get(&d->attrs, self, 0))
        return duplicate(d, "Attribute", self);
    if (!up_map_put(&d->attrs, self, 0, (uint64_t)name << 8 | (uint8_t)type)) {
        r->nomem = true;
        return OTF2_CALLBACK_INTERRUPT;
    }
    if (type == OTF2_TYPE_UINT8) { /* unperturb::wildcard or ::reply? (name_all) */
        named a = {self, name};
        if (!push((void **)&r->attrs8, &r->nattrs8, &r->attrs8_cap, &a, sizeof a)) {
            r->nomem = true;
            return OTF2_CALLBACK_INTERRUPT;
        }
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_region(void *ud, OTF2_RegionRef self,
                                   OTF2_StringRef name, OTF2_StringRef canon,
                                   OTF2_StringRef desc, OTF2_RegionRole role,
                                   OTF2_Paradigm paradigm, OTF2_RegionFlag rflags,
                                   OTF2_StringRef file, uint32_t b, uint32_t e)
{
    reading *r = ud;
    up_defs *d = r->d;
    up_region_def *rg;
    (void)canon, (void)desc, (void)rflags, (void)file, (void)b, (void)e;
    d->n_global_defs++;
    if (up_map_get(&d->region_index, self, 0))
        return duplicate(d, "Region", self); /* keep the first */
    if (!up_grow((void **)&d->regions, &r->regions_cap, d->nregions + 1, sizeof *d->regions) ||
        !up_grow((void **)&r->region_names, &r->region_names_cap, d->nregions + 1,
                 sizeof *r->region_names) ||
        !up_map_put(&d->region_index, self, 0, d->nregions)) {
        r->nomem = true;
        return OTF2_CALLBACK_INTERRUPT;
    }
    r->region_names[d->nregions] = name; /* named, and flagged, by name_all */
    rg = &d->regions[d->nregions++];
    memset(rg, 0, sizeof *rg);
    rg->name = "";
    rg->role = role;
    rg->paradigm = paradigm;
    return OTF2_CALLBACK_SUCCESS;
}

/* The classes of the MPI call named `name` (UP_REGION_* flags: the FLAGS of
 * src/trace/mpi_calls.def, which also lists calls the tracer does not wrap),
 * 0 for any other name.  Regions are few: a look down the list will do. */
static unsigned mpi_classes(const char *name)
{
    static const struct {
        const char *name;
        unsigned flags;
    } calls[] = {
#define X(call, flags) {#call, flags},
        UP_MPI_CLASSES(X)
#undef X
    };
    size_t i;
    for (i = 0; i < sizeof calls / sizeof calls[0]; i++)
        if (!strcmp(name, calls[i].name))
            return calls[i].flags;
    return 0;
}

/* The UP_REGION_* flags of a region, from its name and paradigm. */
static void region_flags(up_region_def *rg)
{
    OTF2_Paradigm paradigm = rg->paradigm;
    unsigned classes = mpi_classes(rg->name);
    /* MPI_Init, MPI_Finalize, synchronous sends, probes, blocking
     * collectives and RMA's active-target calls by name alone */
    rg->flags |= classes & (UP_REGION_MPI_INIT | UP_REGION_MPI_FINALIZE | UP_REGION_SSEND |
                            UP_REGION_PROBE | UP_REGION_COLL | UP_REGION_WIN_POST |
                            UP_REGION_WIN_START | UP_REGION_WIN_COMPLETE | UP_REGION_WIN_WAIT);
    /* the window of a program traced without MPI, marked like MPI's (trace.h) */
    if (!strcmp(rg->name, UP_WINDOW_BEGIN))
        rg->flags |= UP_REGION_MPI_INIT;
    else if (!strcmp(rg->name, UP_WINDOW_END))
        rg->flags |= UP_REGION_MPI_FINALIZE;
    /* Score-P encloses buffer flushes in "TRACE BUFFER FLUSH"; our tracer
     * names every overhead region "UNPERTURB <what>" (docs/models.md). */
    if (!strcmp(rg->name, "TRACE BUFFER FLUSH") || !strncmp(rg->name, "UNPERTURB ", 10))
        rg->flags |= UP_REGION_OVERHEAD;
    else if (paradigm == OTF2_PARADIGM_MEASUREMENT_SYSTEM && rg->role == OTF2_REGION_ROLE_FLUSH)
        rg->flags |= UP_REGION_OVERHEAD; /* Score-P's "!$omp offloading flush": the
                                           * device's trace buffer brought home */
    else if (paradigm == OTF2_PARADIGM_COMPILER || paradigm == OTF2_PARADIGM_USER)
        rg->flags |= UP_REGION_USER;
    else if (paradigm == OTF2_PARADIGM_MPI || !strncmp(rg->name, "MPI_", 4))
        rg->flags |= UP_REGION_MPI;
    /* polls and calls that never wait only as MPI calls (a USER or COMPILER
     * region of that name is a function of the program's own) */
    if (rg->flags & UP_REGION_MPI)
        rg->flags |= classes & (UP_REGION_POLL | UP_REGION_NOWAIT);
    /* OpenMP constructs by role (Score-P's OPARI2 and OMPT adapters give
     * them; a barrier of another paradigm, e.g. CUDA's cudaSynchronize of
     * role IMPLICIT_BARRIER, is no team barrier) */
    if (paradigm == OTF2_PARADIGM_OPENMP) {
        if (rg->role == OTF2_REGION_ROLE_BARRIER || rg->role == OTF2_REGION_ROLE_IMPLICIT_BARRIER)
            rg->flags |= UP_REGION_OMP_BARRIER;
        else if (rg->role == OTF2_REGION_ROLE_PARALLEL)
            rg->flags |= UP_REGION_OMP_PARALLEL;
        else if (rg->role == OTF2_REGION_ROLE_TASK_WAIT)
            rg->flags |= UP_REGION_OMP_TASKWAIT;
    }
    /* our tracer's pthread_barrier_wait (its Enter names the barrier and
     * its count in attributes, docs/tracer.md) */
    if (paradigm == OTF2_PARADIGM_PTHREAD && rg->role == OTF2_REGION_ROLE_BARRIER)
        rg->flags |= UP_REGION_PTHREAD_BARRIER;
    /* CUDA's driver and runtime calls by name (Score-P's CUDA adapter
     * records them as WRAPPER or FUNCTION regions of paradigm CUDA) */
    if (paradigm == OTF2_PARADIGM_CUDA) {
        if (strstr(rg->name, "Launch") ||
            (strstr(rg->name, "Memcpy") && strstr(rg->name, "Async")))
            rg->flags |= UP_REGION_DEV_LAUNCH;
        else if (strstr(rg->name, "Memcpy"))
            rg->flags |= UP_REGION_DEV_COPY;
        else if (strstr(rg->name, "Synchronize"))
            rg->flags |= UP_REGION_DEV_SYNC;
    }
    /* OpenMP target constructs by Score-P's names (its offload adapter: the
     * host's region and the device's are one definition; a target data
     * region maps data and runs nothing there) */
    if (!strncmp(rg->name, "!$omp target", 12) && strncmp(rg->name, "!$omp targetdata", 16))
        rg->flags |= UP_REGION_DEV_TARGET;
}

/* The thread CPU-time metric of our tracer's --cpu-time: a metric class
 * whose one member is named "cpu_time" (simulate takes compute from it);
 * found by name_all. */
static OTF2_CallbackCode on_metric_member(void *ud, OTF2_MetricMemberRef self, OTF2_StringRef name,
                                          OTF2_StringRef desc, OTF2_MetricType type,
                                          OTF2_MetricMode mode, OTF2_Type vtype, OTF2_Base base,
                                          int64_t exp, OTF2_StringRef unit)
{
    reading *r = ud;
    named m = {self, name};
    (void)desc, (void)type, (void)mode, (void)base, (void)unit;
    r->d->n_global_defs++;
    if (vtype == OTF2_TYPE_UINT64 && exp == -9 &&
        !push((void **)&r->members, &r->nmembers, &r->members_cap, &m, sizeof m)) {
        r->nomem = true;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_metric_class(void *ud, OTF2_MetricRef self, uint8_t n,
                                         const OTF2_MetricMemberRef *members,
                                         OTF2_MetricOccurrence occ, OTF2_RecorderKind kind)
{
    reading *r = ud;
    (void)occ, (void)kind;
    r->d->n_global_defs++;
    if (n == 1) {
        if (!up_grow((void **)&r->classes, &r->classes_cap, r->nclasses + 1, sizeof *r->classes)) {
            r->nomem = true;
            return OTF2_CALLBACK_INTERRUPT;
        }
        r->classes[r->nclasses].self = self;
        r->classes[r->nclasses++].member = members[0];
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_lgroup(void *ud, OTF2_LocationGroupRef self,
                                   OTF2_StringRef name, OTF2_LocationGroupType type,
                                   OTF2_SystemTreeNodeRef parent,
                                   OTF2_LocationGroupRef creator)
{
    reading *r = ud;
    lgroup_def *g;
    (void)name;
    r->d->n_global_defs++;
    if (up_map_get(&r->lgroups, self, 0))
        return duplicate(r->d, "LocationGroup", self); /* keep the first */
    g = up_calloc(1, sizeof *g);
    if (!g || !up_map_put(&r->lgroups, self, 0, (uint64_t)(uintptr_t)g)) {
        up_free(g);
        r->nomem = true;
        return OTF2_CALLBACK_INTERRUPT;
    }
    g->parent = parent;
    g->type = type;
    g->creator = creator;
    g->process = UP_NO_PROCESS;
    return OTF2_CALLBACK_SUCCESS;
}

static lgroup_def *lgroup_of(const reading *r, OTF2_LocationGroupRef ref)
{
    uint64_t *v = up_map_get(&r->lgroups, ref, 0);
    return v ? (lgroup_def *)(uintptr_t)*v : NULL;
}

static up_loc_kind loc_kind(OTF2_LocationType t)
{
    switch (t) {
    case OTF2_LOCATION_TYPE_CPU_THREAD:
        return UP_LOC_CPU;
    case OTF2_LOCATION_TYPE_ACCELERATOR_STREAM: /* = the deprecated GPU */
        return UP_LOC_ACCELERATOR;
    case OTF2_LOCATION_TYPE_METRIC:
        return UP_LOC_METRIC;
    default:
        return UP_LOC_OTHER;
    }
}

/* What every location's group says of it: its system-tree node (for the
 * hop count), its kind, its group's kind and its process: the group for a
 * process, the creator for an accelerator created by a process (else the
 * accelerator's own group), numbered in the order of their first location. */
static void loc_groups(reading *r)
{
    up_defs *d = r->d;
    size_t i;
    for (i = 0; i < d->nlocs; i++) {
        up_loc_def *l = &d->locs[i];
        lgroup_def *g = lgroup_of(r, l->group), *p = g;
        l->kind = loc_kind(l->type);
        l->process = UP_NO_PROCESS;
        if (!g) {
            l->gkind = UP_GROUP_NONE;
            continue;
        }
        l->node = g->parent;
        l->gkind = g->type == OTF2_LOCATION_GROUP_TYPE_ACCELERATOR ? UP_GROUP_ACCELERATOR
                                                                    : UP_GROUP_PROCESS;
        if (l->gkind == UP_GROUP_ACCELERATOR) {
            lgroup_def *c = lgroup_of(r, g->creator);
            if (c && c->type != OTF2_LOCATION_GROUP_TYPE_ACCELERATOR)
                p = c;
        }
        if (p->process == UP_NO_PROCESS)
            p->process = d->nprocs++;
        l->process = p->process;
    }
}

static OTF2_CallbackCode on_location(void *ud, OTF2_LocationRef self,
                                     OTF2_StringRef name, OTF2_LocationType type,
                                     uint64_t nevents, OTF2_LocationGroupRef group)
{
    reading *r = ud;
    up_defs *d = r->d;
    up_loc_def *l;
    d->n_global_defs++;
    if (up_map_get(&d->loc_index, self, 0))
        return duplicate(d, "Location", self); /* keep the first */
    if (!up_grow((void **)&d->locs, &r->locs_cap, d->nlocs + 1, sizeof *d->locs) ||
        !up_grow((void **)&r->loc_names, &r->loc_names_cap, d->nlocs + 1, sizeof *r->loc_names) ||
        !up_map_put(&d->loc_index, self, 0, d->nlocs)) {
        r->nomem = true;
        return OTF2_CALLBACK_INTERRUPT;
    }
    r->loc_names[d->nlocs] = name; /* named by name_all */
    l = &d->locs[d->nlocs++];
    memset(l, 0, sizeof *l);
    l->id = self;
    l->name = "";
    l->type = type;
    l->nevents = nevents;
    l->group = group;
    l->rank = UP_NO_RANK;
    l->node = OTF2_UNDEFINED_SYSTEM_TREE_NODE;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name,
                                  OTF2_GroupType type, OTF2_Paradigm paradigm,
                                  OTF2_GroupFlag flags, uint32_t n,
                                  const uint64_t *members)
{
    reading *r = ud;
    group_def *g;
    (void)name;
    r->d->n_global_defs++;
    if (up_map_get(&r->d->groups, self, 0))
        return duplicate(r->d, "Group", self); /* keep the first */
    g = up_calloc(1, sizeof *g);
    if (!g || (n && !(g->members = up_calloc(n, sizeof *members))) ||
        !up_map_put(&r->d->groups, self, 0, (uint64_t)(uintptr_t)g)) {
        if (g)
            up_free(g->members);
        up_free(g);
        r->nomem = true;
        return OTF2_CALLBACK_INTERRUPT;
    }
    g->type = type;
    g->paradigm = paradigm;
    g->flags = flags;
    g->n = n;
    if (n)
        memcpy(g->members, members, n * sizeof *members);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode add_comm(reading *r, OTF2_CommRef self, OTF2_StringRef name,
                                  OTF2_GroupRef group, bool inter)
{
    r->d->n_global_defs++;
    if (!up_grow((void **)&r->craw, &r->craw_cap, r->ncraw + 1, sizeof *r->craw)) {
        r->nomem = true;
        return OTF2_CALLBACK_INTERRUPT;
    }
    r->craw[r->ncraw].self = self;
    r->craw[r->ncraw].name = name;
    r->craw[r->ncraw].group = group;
    r->craw[r->ncraw].inter = inter;
    r->ncraw++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name,
                                 OTF2_GroupRef group, OTF2_CommRef parent,
                                 OTF2_CommFlag flags)
{
    (void)parent, (void)flags;
    return add_comm(ud, self, name, group, false);
}

static OTF2_CallbackCode on_intercomm(void *ud, OTF2_CommRef self, OTF2_StringRef name,
                                      OTF2_GroupRef a, OTF2_GroupRef b,
                                      OTF2_CommRef common, OTF2_CommFlag flags)
{
    (void)a, (void)b, (void)common, (void)flags;
    /* Inter-communicators are kept unresolved: their messages are reported
     * as unmatched instead of being guessed (docs/models.md). */
    return add_comm(ud, self, name, OTF2_UNDEFINED_GROUP, true);
}

/* What the definitions read name, now that every String is known: regions
 * (and their flags), locations, the tracer's attributes and CPU-time
 * metric.  Where several match, the same one as when names were looked up
 * as each definition came: the first attribute, the last member and class. */
static void name_all(reading *r)
{
    up_defs *d = r->d;
    size_t i;
    for (i = 0; i < d->nregions; i++) {
        d->regions[i].name = str_of(d, r->region_names[i]);
        region_flags(&d->regions[i]);
    }
    for (i = 0; i < d->nlocs; i++)
        d->locs[i].name = str_of(d, r->loc_names[i]);
    for (i = 0; i < r->nattrs8; i++) {
        const char *n = str_of(d, r->attrs8[i].name);
        if (!strcmp(n, "unperturb::wildcard") && !d->has_wildcard_attr) {
            d->has_wildcard_attr = true;
            d->wildcard_attr = (OTF2_AttributeRef)r->attrs8[i].self;
        }
        if (!strcmp(n, "unperturb::reply") && !d->has_reply_attr) {
            d->has_reply_attr = true;
            d->reply_attr = (OTF2_AttributeRef)r->attrs8[i].self;
        }
    }
    for (i = 0; i < r->nmembers; i++)
        if (!strcmp(str_of(d, r->members[i].name), "cpu_time"))
            d->cpu_member = (OTF2_MetricMemberRef)r->members[i].self, d->has_cpu_member = true;
    for (i = 0; i < r->nclasses && d->has_cpu_member; i++)
        if (r->classes[i].member == d->cpu_member)
            d->cpu_metric = r->classes[i].self, d->has_cpu_metric = true;
}

static const group_def *group_of(const up_defs *d, OTF2_GroupRef g)
{
    uint64_t *v = up_map_get(&d->groups, g, 0);
    return v ? (const group_def *)(uintptr_t)*v : NULL;
}

long up_defs_group_locs(const up_defs *d, OTF2_GroupRef gid, uint32_t *out, size_t cap)
{
    const group_def *g = group_of(d, gid), *w = NULL;
    uint32_t k;
    size_t i;
    if (!g)
        return -1;
    if (g->type == OTF2_GROUP_TYPE_COMM_GROUP) {
        for (i = 0; i < d->groups.cap && !w; i++) {
            uint64_t k0, k1, v;
            if (up_map_at(&d->groups, i, &k0, &k1, &v) &&
                ((const group_def *)(uintptr_t)v)->type == OTF2_GROUP_TYPE_COMM_LOCATIONS &&
                ((const group_def *)(uintptr_t)v)->paradigm == g->paradigm)
                w = (const group_def *)(uintptr_t)v;
        }
        if (!w)
            return -1;
    } else if (g->type != OTF2_GROUP_TYPE_COMM_LOCATIONS && g->type != OTF2_GROUP_TYPE_LOCATIONS) {
        return -1;
    }
    for (k = 0; k < g->n; k++) {
        uint64_t id = g->members[k];
        uint32_t li;
        if (w) {
            if (id >= w->n)
                return -1;
            id = w->members[id];
        }
        if (!up_defs_loc_index(d, id, &li))
            return -1;
        if (k < cap)
            out[k] = li;
    }
    return (long)g->n;
}

static bool resolve(reading *r)
{
    up_defs *d = r->d;
    size_t i;
    /* collect group ids (the map has no iterator): groups are few */
    const group_def *mpi_world = NULL;
    const group_def *worlds[256];
    OTF2_Paradigm world_par[256];
    size_t nworlds = 0;

    for (i = 0; i < d->groups.cap; i++) {
        uint64_t k0, k1, v;
        if (!up_map_at(&d->groups, i, &k0, &k1, &v))
            continue;
        {
            const group_def *g = (const group_def *)(uintptr_t)v;
            if (g->type == OTF2_GROUP_TYPE_COMM_LOCATIONS && nworlds < 256) {
                worlds[nworlds] = g;
                world_par[nworlds++] = g->paradigm;
                if (g->paradigm == OTF2_PARADIGM_MPI)
                    mpi_world = g;
            }
        }
    }

    loc_groups(r);
    /* MPI rank: index in MPI's COMM_LOCATIONS; threads share their process' */
    if (mpi_world) {
        uint32_t rk;
        for (rk = 0; rk < mpi_world->n; rk++) {
            uint32_t li;
            size_t j;
            if (!up_defs_loc_index(d, mpi_world->members[rk], &li))
                continue;
            for (j = 0; j < d->nlocs; j++)
                if (d->locs[j].group == d->locs[li].group)
                    d->locs[j].rank = (long)rk;
        }
    }

    d->comms = up_calloc(r->ncraw, sizeof *d->comms);
    if (r->ncraw && !d->comms)
        return false;
    for (i = 0; i < r->ncraw; i++) {
        up_comm_def *c = &d->comms[d->ncomms];
        const group_def *g = group_of(d, r->craw[i].group), *w = NULL;
        size_t k;
        c->id = r->craw[i].self;
        c->name = str_of(d, r->craw[i].name);
        if (up_map_get(&d->comm_index, c->id, 0)) { /* keep the first */
            duplicate(d, "Comm", c->id);
            memset(c, 0, sizeof *c);
            continue;
        }
        if (!up_map_put(&d->comm_index, c->id, 0, d->ncomms))
            return false;
        d->ncomms++;
        if (r->craw[i].inter || !g)
            continue;
        if (g->type == OTF2_GROUP_TYPE_COMM_SELF) {
            c->self = c->resolved = true;
            c->size = 1;
            continue;
        }
        if (g->type == OTF2_GROUP_TYPE_COMM_LOCATIONS) {
            w = g; /* members are locations themselves */
        } else if (g->type == OTF2_GROUP_TYPE_COMM_GROUP) {
            for (k = 0; k < nworlds; k++)
                if (world_par[k] == g->paradigm)
                    w = worlds[k];
        }
        if (!w)
            continue;
        c->members = up_calloc(g->n, sizeof *c->members);
        if (g->n && !c->members)
            return false;
        c->size = g->n;
        c->resolved = true;
        for (k = 0; k < g->n; k++) {
            uint64_t locid = g == w ? g->members[k]
                                    : (g->members[k] < w->n ? w->members[g->members[k]] : OTF2_UNDEFINED_LOCATION);
            if (!up_defs_loc_index(d, locid, &c->members[k]))
                c->resolved = false;
        }
        if (g != w && (g->flags & OTF2_GROUP_FLAG_GLOBAL_MEMBERS)) {
            c->global_ranks = true;
            c->world_size = w->n;
            c->world = up_calloc(w->n, sizeof *c->world);
            if (w->n && !c->world)
                return false;
            for (k = 0; k < w->n; k++)
                if (!up_defs_loc_index(d, w->members[k], &c->world[k]))
                    c->world[k] = UINT32_MAX;
        }
    }
    return true;
}

up_status up_defs_read_(up_defs *d, OTF2_Reader *rd, const char *anchor, uint64_t cap,
                        up_err *err)
{
    reading r;
    OTF2_GlobalDefReader *gr;
    OTF2_GlobalDefReaderCallbacks *cb;
    OTF2_ErrorCode rc;
    uint64_t n = 0;
    size_t i;
    up_status st = UP_OK;

    memset(&r, 0, sizeof r);
    r.d = d;
    up_map_init(&r.lgroups);
    gr = OTF2_Reader_GetGlobalDefReader(rd);
    if (!gr)
        return UP_ERR(err, UP_EFORMAT, "cannot read '%s': no global definitions (%s)",
                      anchor, up_otf2_last_error());
    cb = OTF2_GlobalDefReaderCallbacks_New();
    if (!cb)
        return UP_ERR(err, UP_ENOMEM, "out of memory reading '%s'", anchor);
#define X(K) OTF2_GlobalDefReaderCallbacks_Set##K##Callback(cb, count_##K);
    UP_OTF2_DEFS(X)
#undef X
    OTF2_GlobalDefReaderCallbacks_SetUnknownCallback(cb, on_unknown);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, on_clock);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, on_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, on_region);
    OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(cb, on_metric_member);
    OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(cb, on_metric_class);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, on_attribute);
    OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(cb, on_rmawin);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, on_lgroup);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, on_location);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, on_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, on_comm);
    OTF2_GlobalDefReaderCallbacks_SetInterCommCallback(cb, on_intercomm);
    rc = OTF2_Reader_RegisterGlobalDefCallbacks(rd, gr, cb, &r);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Reader_ReadGlobalDefinitions(rd, gr, cap, &n);
    /* closed now: OTF2 3.0.2 leaks it when the archive is closed after a
     * failure while local definition files are open */
    OTF2_Reader_CloseGlobalDefReader(rd, gr);
    if (r.nomem)
        st = UP_ERR(err, UP_ENOMEM, "out of memory reading the definitions of '%s'", anchor);
    else if (rc != OTF2_SUCCESS)
        st = UP_ERR(err, UP_EFORMAT, "cannot read the definitions of '%s': %s",
                    anchor, up_otf2_msg_(OTF2_Error_GetDescription(rc)));
    else if (d->resolution == 0)
        st = UP_ERR(err, UP_EFORMAT, "'%s' has no clock properties (timer resolution 0)", anchor);
    else {
        name_all(&r);
        if (!resolve(&r) || !dense_table(&d->region_index, &d->region_by_id, &d->nregion_ids) ||
            !dense_table(&d->comm_index, &d->comm_by_id, &d->ncomm_ids) ||
            (d->nregion_ids && !(d->region_flags = up_calloc(d->nregion_ids, 1))))
            st = UP_ERR(err, UP_ENOMEM, "out of memory resolving the definitions of '%s'", anchor);
        else
            for (i = 0; i < d->nregion_ids; i++)
                if (d->region_by_id[i] != UINT32_MAX)
                    d->region_flags[i] = (uint8_t)(d->regions[d->region_by_id[i]].flags & UP_REGION_EVENT_MASK);
    }

    for (i = 0; i < r.lgroups.cap; i++) {
        uint64_t k0, k1, v;
        if (up_map_at(&r.lgroups, i, &k0, &k1, &v))
            up_free((void *)(uintptr_t)v);
    }
    up_map_free(&r.lgroups);
    up_free(r.craw);
    up_free(r.region_names);
    up_free(r.loc_names);
    up_free(r.attrs8);
    up_free(r.members);
    up_free(r.classes);
    return st;
}

void up_defs_free_(up_defs *d)
{
    size_t i;
    uint64_t k0, k1, v;
    for (i = 0; i < d->strings.cap; i++)
        if (up_map_at(&d->strings, i, &k0, &k1, &v))
            up_free((void *)(uintptr_t)v);
    for (i = 0; i < d->groups.cap; i++)
        if (up_map_at(&d->groups, i, &k0, &k1, &v)) {
            group_def *g = (group_def *)(uintptr_t)v;
            up_free(g->members);
            up_free(g);
        }
    for (i = 0; i < d->ncomms; i++) {
        up_free(d->comms[i].members);
        up_free(d->comms[i].world);
    }
    up_free(d->comms);
    up_free(d->regions);
    up_free(d->region_by_id);
    up_free(d->comm_by_id);
    up_free(d->region_flags);
    up_free(d->locs);
    up_free(d->creator);
    up_map_free(&d->strings);
    up_map_free(&d->groups);
    up_map_free(&d->wins);
    up_map_free(&d->attrs);
    up_map_free(&d->loc_index);
    up_map_free(&d->region_index);
    up_map_free(&d->comm_index);
    memset(d, 0, sizeof *d);
}

const up_region_def *up_defs_region_slow_(const up_defs *d, OTF2_RegionRef r)
{
    uint64_t *v = up_map_get(&d->region_index, r, 0);
    return v ? &d->regions[*v] : NULL;
}

const up_comm_def *up_defs_comm_slow_(const up_defs *d, OTF2_CommRef c)
{
    uint64_t *v = up_map_get(&d->comm_index, c, 0);
    return v ? &d->comms[*v] : NULL;
}

/* A dense id -> index table for the ids of `m`, when the largest id is small
 * (ids of unified definitions are 0..n-1); lookups of larger ids fall back
 * to the map. */
static bool dense_table(const up_map *m, uint32_t **table, uint32_t *n)
{
    uint64_t k0, k1, v, max = 0;
    size_t i;
    *table = NULL;
    *n = 0;
    for (i = 0; i < m->cap; i++)
        if (up_map_at(m, i, &k0, &k1, &v) && k0 + 1 > max)
            max = k0 + 1;
    if (max == 0 || max > (uint64_t)16 * m->len + 1024)
        return true; /* too sparse: the map alone */
    if (!(*table = up_calloc((size_t)max, sizeof **table)))
        return false;
    memset(*table, 0xff, (size_t)max * sizeof **table);
    for (i = 0; i < m->cap; i++)
        if (up_map_at(m, i, &k0, &k1, &v))
            (*table)[k0] = (uint32_t)v;
    *n = (uint32_t)max;
    return true;
}

bool up_defs_loc_index(const up_defs *d, OTF2_LocationRef id, uint32_t *idx)
{
    uint64_t *v = up_map_get(&d->loc_index, id, 0);
    if (!v)
        return false;
    *idx = (uint32_t)*v;
    return true;
}
