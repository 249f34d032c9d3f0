/*
 * tthreads.c - small traces of one process's threads (tthreads.h).
 */
#include <stdio.h>
#include <string.h>

#include "trace/chunks.h"
#include "test.h"
#include "tthreads.h"
#include "tutil.h"

int tt_open(tt_writer *o, const char *dir, unsigned n)
{
    unsigned i;
    memset(o, 0, sizeof *o);
    o->n = n;
    o->ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                              OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!o->ar)
        return -1;
    OTF2_Archive_SetFlushCallbacks(o->ar, &up_otf2_flush_callbacks, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(o->ar);
    OTF2_Archive_OpenEvtFiles(o->ar);
    for (i = 0; i < n; i++)
        o->w[i] = OTF2_Archive_GetEvtWriter(o->ar, i);
    return 0;
}

OTF2_EvtWriter *tt_rec(tt_writer *o, unsigned l)
{
    o->nev[l]++;
    return o->w[l];
}

void tt_enter(tt_writer *o, unsigned l, uint64_t t, tt_region r)
{
    OTF2_EvtWriter_Enter(tt_rec(o, l), NULL, t, r);
}

void tt_leave(tt_writer *o, unsigned l, uint64_t t, tt_region r)
{
    OTF2_EvtWriter_Leave(tt_rec(o, l), NULL, t, r);
}

void tt_enter_ompt(tt_writer *o, unsigned l, uint64_t t, uint64_t id)
{
    OTF2_AttributeList *al = OTF2_AttributeList_New();
    OTF2_AttributeList_AddUint64(al, TT_ATTR_OMPT, id);
    OTF2_EvtWriter_Enter(tt_rec(o, l), al, t, TT_OMP_ITASK);
    OTF2_AttributeList_Delete(al);
}

void tt_enter_ompt_as(tt_writer *o, unsigned l, uint64_t t, uint64_t id, uint32_t index,
                      uint32_t late)
{
    OTF2_AttributeList *al = OTF2_AttributeList_New();
    OTF2_AttributeList_AddUint64(al, TT_ATTR_OMPT, id);
    OTF2_AttributeList_AddUint32(al, TT_ATTR_TINDEX, index);
    OTF2_AttributeList_AddUint32(al, TT_ATTR_LATE, late);
    OTF2_EvtWriter_Enter(tt_rec(o, l), al, t, TT_OMP_ITASK);
    OTF2_AttributeList_Delete(al);
}

void tt_enter_pbar(tt_writer *o, unsigned l, uint64_t t, uint32_t object, uint32_t count)
{
    OTF2_AttributeList *al = OTF2_AttributeList_New();
    OTF2_AttributeList_AddUint32(al, TT_ATTR_OBJECT, object);
    OTF2_AttributeList_AddUint32(al, TT_ATTR_COUNT, count);
    OTF2_EvtWriter_Enter(tt_rec(o, l), al, t, TT_P_BAR);
    OTF2_AttributeList_Delete(al);
}

uint64_t tt_short_work(tt_writer *o, unsigned l, uint64_t t, unsigned k)
{
    unsigned i;
    for (i = 0; i < k; i++) {
        tt_enter(o, l, t, TT_WORK);
        tt_leave(o, l, t + 10, TT_WORK);
        t += 20;
    }
    return t - 10;
}

int tt_close(tt_writer *o, uint64_t length)
{
    static const struct {
        const char *name;
        OTF2_RegionRole role;
        OTF2_Paradigm paradigm;
    } rg[TT_NREGIONS] = {
        [TT_MAIN] = {"main", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER},
        [TT_WORK] = {"work", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER},
        [TT_OMP_BAR] = {"!$omp implicit barrier", OTF2_REGION_ROLE_IMPLICIT_BARRIER, OTF2_PARADIGM_OPENMP},
        [TT_OMP_TW] = {"!$omp taskwait", OTF2_REGION_ROLE_TASK_WAIT, OTF2_PARADIGM_OPENMP},
        [TT_OMP_ITASK] = {"!$omp implicit_task", OTF2_REGION_ROLE_PARALLEL, OTF2_PARADIGM_OPENMP},
        [TT_OMP_CRIT] = {"!$omp critical", OTF2_REGION_ROLE_CRITICAL, OTF2_PARADIGM_OPENMP},
        [TT_OMP_SBLOCK] = {"!$omp critical sblock", OTF2_REGION_ROLE_CRITICAL_SBLOCK,
                           OTF2_PARADIGM_OPENMP},
        [TT_OMP_TASK] = {"!$omp task", OTF2_REGION_ROLE_TASK, OTF2_PARADIGM_OPENMP},
        [TT_P_CREATE] = {"pthread_create", OTF2_REGION_ROLE_THREAD_CREATE, OTF2_PARADIGM_PTHREAD},
        [TT_P_JOIN] = {"pthread_join", OTF2_REGION_ROLE_THREAD_WAIT, OTF2_PARADIGM_PTHREAD},
        [TT_P_BAR] = {"pthread_barrier_wait", OTF2_REGION_ROLE_BARRIER, OTF2_PARADIGM_PTHREAD},
        [TT_P_LOCK] = {"pthread_mutex_lock", OTF2_REGION_ROLE_WRAPPER, OTF2_PARADIGM_PTHREAD},
        [TT_P_UNLOCK] = {"pthread_mutex_unlock", OTF2_REGION_ROLE_WRAPPER, OTF2_PARADIGM_PTHREAD},
        [TT_P_CONDWAIT] = {"pthread_cond_wait", OTF2_REGION_ROLE_WRAPPER, OTF2_PARADIGM_PTHREAD},
        [TT_P_SIGNAL] = {"pthread_cond_signal", OTF2_REGION_ROLE_WRAPPER, OTF2_PARADIGM_PTHREAD},
    };
    static const struct {
        const char *name;
        OTF2_Type type;
    } at[] = {
        [TT_ATTR_OMPT] = {"OMPT_PARALLEL_REGION_ID", OTF2_TYPE_UINT64},
        [TT_ATTR_OBJECT] = {"unperturb::object", OTF2_TYPE_UINT32},
        [TT_ATTR_COUNT] = {"unperturb::count", OTF2_TYPE_UINT32},
        [TT_ATTR_TINDEX] = {"unperturb::team_index", OTF2_TYPE_UINT32},
        [TT_ATTR_LATE] = {"unperturb::late_records", OTF2_TYPE_UINT32},
    };
    enum { S_EMPTY = TT_NREGIONS, S_NODE, S_PROC, S_THREAD, S_CONTINGENT, S_ATTR };
    OTF2_GlobalDefWriter *gw;
    uint64_t members[TT_MAXLOC], ranks[TT_MAXLOC];
    unsigned i;
    for (i = 0; i < o->n; i++)
        OTF2_Archive_CloseEvtWriter(o->ar, o->w[i]);
    OTF2_Archive_CloseEvtFiles(o->ar);
    OTF2_Archive_OpenDefFiles(o->ar);
    for (i = 0; i < o->n; i++)
        OTF2_Archive_CloseDefWriter(o->ar, OTF2_Archive_GetDefWriter(o->ar, i));
    OTF2_Archive_CloseDefFiles(o->ar);
    gw = OTF2_Archive_GetGlobalDefWriter(o->ar);
    OTF2_GlobalDefWriter_WriteClockProperties(gw, 1000000000, 0, length, OTF2_UNDEFINED_TIMESTAMP);
    for (i = 0; i < TT_NREGIONS; i++)
        OTF2_GlobalDefWriter_WriteString(gw, i, rg[i].name);
    OTF2_GlobalDefWriter_WriteString(gw, S_EMPTY, "");
    OTF2_GlobalDefWriter_WriteString(gw, S_NODE, "node");
    OTF2_GlobalDefWriter_WriteString(gw, S_PROC, "process");
    OTF2_GlobalDefWriter_WriteString(gw, S_THREAD, "thread");
    OTF2_GlobalDefWriter_WriteString(gw, S_CONTINGENT, "Threads of rank 0");
    for (i = 0; i < sizeof at / sizeof *at; i++)
        OTF2_GlobalDefWriter_WriteString(gw, S_ATTR + i, at[i].name);
    for (i = 0; i < TT_NREGIONS; i++)
        OTF2_GlobalDefWriter_WriteRegion(gw, i, i, i, S_EMPTY, rg[i].role, rg[i].paradigm,
                                         OTF2_REGION_FLAG_NONE, S_EMPTY, 0, 0);
    for (i = 0; i < sizeof at / sizeof *at; i++)
        OTF2_GlobalDefWriter_WriteAttribute(gw, i, S_ATTR + i, S_EMPTY, at[i].type);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, S_NODE, S_NODE, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteLocationGroup(gw, 0, S_PROC, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    for (i = 0; i < o->n; i++) {
        OTF2_GlobalDefWriter_WriteLocation(gw, i, S_THREAD, OTF2_LOCATION_TYPE_CPU_THREAD, o->nev[i], 0);
        members[i] = i;
        ranks[i] = i;
    }
    /* Score-P's layout of an OpenMP team */
    OTF2_GlobalDefWriter_WriteGroup(gw, 0, S_EMPTY, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_OPENMP,
                                    OTF2_GROUP_FLAG_NONE, o->n, members);
    OTF2_GlobalDefWriter_WriteGroup(gw, 1, S_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_OPENMP,
                                    OTF2_GROUP_FLAG_NONE, o->n, ranks);
    OTF2_GlobalDefWriter_WriteComm(gw, TT_TEAM, S_EMPTY, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    /* our tracer's thread contingent: its group lists the thread locations */
    OTF2_GlobalDefWriter_WriteGroup(gw, 2, S_EMPTY, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_PTHREAD,
                                    OTF2_GROUP_FLAG_NONE, o->n, members);
    OTF2_GlobalDefWriter_WriteComm(gw, TT_CONTINGENT, S_CONTINGENT, 2, OTF2_UNDEFINED_COMM,
                                   OTF2_COMM_FLAG_NONE);
    return OTF2_Archive_Close(o->ar) == OTF2_SUCCESS ? 0 : -1;
}

/* ---- reading every record's time back ------------------------------------------------ */

static OTF2_CallbackCode put(OTF2_LocationRef l, uint64_t t, void *ud)
{
    tt_times *r = ud;
    if (l < TT_MAXLOC && r->n[l] < TT_MAXEV)
        r->t[l][r->n[l]++] = t;
    return OTF2_CALLBACK_SUCCESS;
}

#define HDR OTF2_LocationRef l, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al
static OTF2_CallbackCode c_region(HDR, OTF2_RegionRef r) { (void)al, (void)r; return put(l, t, ud); }
static OTF2_CallbackCode c_fork(HDR, OTF2_Paradigm p, uint32_t n) { (void)al, (void)p, (void)n; return put(l, t, ud); }
static OTF2_CallbackCode c_join(HDR, OTF2_Paradigm p) { (void)al, (void)p; return put(l, t, ud); }
static OTF2_CallbackCode c_team(HDR, OTF2_CommRef c) { (void)al, (void)c; return put(l, t, ud); }
static OTF2_CallbackCode c_lock(HDR, OTF2_Paradigm p, uint32_t id, uint32_t o)
{
    (void)al, (void)p, (void)id, (void)o;
    return put(l, t, ud);
}
static OTF2_CallbackCode c_olock(HDR, uint32_t id, uint32_t o) { (void)al, (void)id, (void)o; return put(l, t, ud); }
static OTF2_CallbackCode c_task(HDR, OTF2_CommRef c, uint32_t cr, uint32_t g)
{
    (void)al, (void)c, (void)cr, (void)g;
    return put(l, t, ud);
}
static OTF2_CallbackCode c_thread(HDR, OTF2_CommRef c, uint64_t s) { (void)al, (void)c, (void)s; return put(l, t, ud); }

static int load(const char *dir, tt_times *r)
{
    char anchor[4200];
    OTF2_Reader *rdr;
    OTF2_GlobalEvtReader *ger;
    OTF2_GlobalEvtReaderCallbacks *cb;
    uint64_t nloc = 0, i, got = 0;
    memset(r, 0, sizeof *r);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    if (!(rdr = OTF2_Reader_Open(anchor)))
        return -1;
    OTF2_Reader_SetSerialCollectiveCallbacks(rdr);
    OTF2_Reader_GetNumberOfLocations(rdr, &nloc);
    for (i = 0; i < nloc && i < TT_MAXLOC; i++)
        OTF2_Reader_SelectLocation(rdr, i);
    OTF2_Reader_OpenEvtFiles(rdr);
    for (i = 0; i < nloc && i < TT_MAXLOC; i++)
        OTF2_Reader_GetEvtReader(rdr, i);
    ger = OTF2_Reader_GetGlobalEvtReader(rdr);
    cb = OTF2_GlobalEvtReaderCallbacks_New();
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, c_region);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, c_region);
    OTF2_GlobalEvtReaderCallbacks_SetThreadForkCallback(cb, c_fork);
    OTF2_GlobalEvtReaderCallbacks_SetThreadJoinCallback(cb, c_join);
    OTF2_GlobalEvtReaderCallbacks_SetThreadTeamBeginCallback(cb, c_team);
    OTF2_GlobalEvtReaderCallbacks_SetThreadTeamEndCallback(cb, c_team);
    OTF2_GlobalEvtReaderCallbacks_SetThreadAcquireLockCallback(cb, c_lock);
    OTF2_GlobalEvtReaderCallbacks_SetThreadReleaseLockCallback(cb, c_lock);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    OTF2_GlobalEvtReaderCallbacks_SetOmpAcquireLockCallback(cb, c_olock);
    OTF2_GlobalEvtReaderCallbacks_SetOmpReleaseLockCallback(cb, c_olock);
#pragma GCC diagnostic pop
    OTF2_GlobalEvtReaderCallbacks_SetThreadTaskCreateCallback(cb, c_task);
    OTF2_GlobalEvtReaderCallbacks_SetThreadTaskSwitchCallback(cb, c_task);
    OTF2_GlobalEvtReaderCallbacks_SetThreadTaskCompleteCallback(cb, c_task);
    OTF2_GlobalEvtReaderCallbacks_SetThreadCreateCallback(cb, c_thread);
    OTF2_GlobalEvtReaderCallbacks_SetThreadBeginCallback(cb, c_thread);
    OTF2_GlobalEvtReaderCallbacks_SetThreadWaitCallback(cb, c_thread);
    OTF2_GlobalEvtReaderCallbacks_SetThreadEndCallback(cb, c_thread);
    OTF2_Reader_RegisterGlobalEvtCallbacks(rdr, ger, cb, r);
    OTF2_GlobalEvtReaderCallbacks_Delete(cb);
    OTF2_Reader_ReadAllGlobalEvents(rdr, ger, &got);
    OTF2_Reader_CloseGlobalEvtReader(rdr, ger);
    OTF2_Reader_CloseEvtFiles(rdr);
    OTF2_Reader_Close(rdr);
    return 0;
}

void tt_check_loc(const char *file, int line, const tt_times *r, unsigned l, const uint64_t *want,
                  size_t n)
{
    size_t i;
    if (r->n[l] != n)
        t_fail(file, line, "location %u: %zu records, want %zu", l, r->n[l], n);
    for (i = 0; i < n && i < r->n[l]; i++)
        if (r->t[l][i] != want[i])
            t_fail(file, line, "location %u record %zu: got %llu, want %llu", l, i,
                   (unsigned long long)r->t[l][i], (unsigned long long)want[i]);
}

int tt_compensate(const char *in, tt_times *r, up_replay_result *res)
{
    char out[4096];
    up_comp_params p = t_params(10, UP_MODE_LOWER, UP_COLLECTIVE_INDIVIDUAL);
    snprintf(out, sizeof out, "%s", t_dir("out"));
    if (t_compensate(in, out, &p, res, NULL) != UP_OK) {
        t_fail(__FILE__, __LINE__, "compensating %s failed", in);
        return -1;
    }
    if (load(out, r) != 0) {
        t_fail(__FILE__, __LINE__, "cannot read %s", out);
        up_replay_result_free(res);
        return -1;
    }
    return 0;
}
