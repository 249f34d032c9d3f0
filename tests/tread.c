/*
 * tread.c - see tread.h.  Deliberately plain: OTF2's global reader, one
 * callback per kind the tests write, and a catch-all count for the rest.
 */
#include "tread.h"

#include <otf2/otf2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tr_loc *loc_of(tr_trace *t, OTF2_LocationRef id)
{
    size_t i;
    for (i = 0; i < t->nlocs; i++)
        if (t->locs[i].id == id)
            return &t->locs[i];
    return NULL;
}

static void add(tr_trace *t, OTF2_LocationRef id, int kind, uint64_t time, uint64_t aux)
{
    tr_loc *l = loc_of(t, id);
    if (!l)
        return;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->ev = realloc(l->ev, l->cap * sizeof *l->ev);
        if (!l->ev)
            abort();
    }
    l->ev[l->n].kind = kind;
    l->ev[l->n].t = time;
    l->ev[l->n].aux = aux;
    l->n++;
}

#define HDR OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al
static OTF2_CallbackCode on_enter(HDR, OTF2_RegionRef r)
{
    (void)al;
    add(ud, loc, TR_ENTER, t, r);
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode on_leave(HDR, OTF2_RegionRef r)
{
    (void)al;
    add(ud, loc, TR_LEAVE, t, r);
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode on_send(HDR, uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t len)
{
    (void)al, (void)c, (void)tag, (void)len;
    add(ud, loc, TR_SEND, t, peer);
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode on_recv(HDR, uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t len)
{
    (void)al, (void)c, (void)tag, (void)len;
    add(ud, loc, TR_RECV, t, peer);
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode on_cbegin(HDR)
{
    (void)al;
    add(ud, loc, TR_CBEGIN, t, 0);
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode on_cend(HDR, OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root,
                                 uint64_t s, uint64_t r)
{
    (void)al, (void)c, (void)root, (void)s, (void)r;
    add(ud, loc, TR_CEND, t, op);
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode on_isend(HDR, uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t len,
                                  uint64_t req)
{
    (void)al, (void)c, (void)tag, (void)len, (void)req;
    add(ud, loc, TR_SEND, t, peer);
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode on_irecv(HDR, uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t len,
                                  uint64_t req)
{
    (void)al, (void)c, (void)tag, (void)len, (void)req;
    add(ud, loc, TR_RECV, t, peer);
    return OTF2_CALLBACK_SUCCESS;
}
/* request records (MpiIsendComplete, MpiIrecvRequest, NonBlockingCollectiveRequest) */
static OTF2_CallbackCode on_request(HDR, uint64_t req)
{
    (void)al;
    add(ud, loc, TR_OTHER, t, req);
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode on_nbc_complete(HDR, OTF2_CollectiveOp op, OTF2_CommRef c,
                                         uint32_t root, uint64_t s, uint64_t r, uint64_t req)
{
    (void)al, (void)c, (void)root, (void)s, (void)r, (void)req;
    add(ud, loc, TR_CEND, t, op);
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode on_fork(HDR, OTF2_Paradigm m, uint32_t n)
{
    (void)al, (void)m, (void)n;
    add(ud, loc, TR_OTHER, t, 0);
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode on_join(HDR, OTF2_Paradigm m)
{
    (void)al, (void)m;
    add(ud, loc, TR_OTHER, t, 0);
    return OTF2_CALLBACK_SUCCESS;
}
/* RMA records: kept as TR_OTHER with their window */
static OTF2_CallbackCode on_rma_cbegin(HDR)
{
    (void)al;
    add(ud, loc, TR_OTHER, t, 0);
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode on_rma_cend(HDR, OTF2_CollectiveOp op, OTF2_RmaSyncLevel l,
                                     OTF2_RmaWinRef w, uint32_t root, uint64_t s, uint64_t r)
{
    (void)al, (void)op, (void)l, (void)root, (void)s, (void)r;
    add(ud, loc, TR_OTHER, t, w);
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode on_rma_gsync(HDR, OTF2_RmaSyncLevel l, OTF2_RmaWinRef w, OTF2_GroupRef g)
{
    (void)al, (void)l, (void)g;
    add(ud, loc, TR_OTHER, t, w);
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode on_rma_lock(HDR, OTF2_RmaWinRef w, uint32_t r, uint64_t id, OTF2_LockType ty)
{
    (void)al, (void)r, (void)id, (void)ty;
    add(ud, loc, TR_OTHER, t, w);
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode on_rma_release(HDR, OTF2_RmaWinRef w, uint32_t r, uint64_t id)
{
    (void)al, (void)r, (void)id;
    add(ud, loc, TR_OTHER, t, w);
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode on_rma_put(HDR, OTF2_RmaWinRef w, uint32_t r, uint64_t b, uint64_t id)
{
    (void)al, (void)r, (void)b, (void)id;
    add(ud, loc, TR_OTHER, t, w);
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode on_rma_get(HDR, OTF2_RmaWinRef w, uint32_t r, uint64_t b, uint64_t id)
{
    (void)al, (void)r, (void)b, (void)id;
    add(ud, loc, TR_OTHER, t, w);
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode on_rma_done(HDR, OTF2_RmaWinRef w, uint64_t id)
{
    (void)al, (void)id;
    add(ud, loc, TR_OTHER, t, w);
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode on_rma_win(HDR, OTF2_RmaWinRef w)
{
    (void)al;
    add(ud, loc, TR_OTHER, t, w);
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode on_team(HDR, OTF2_CommRef c)
{
    (void)al;
    add(ud, loc, TR_OTHER, t, c);
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode on_flush(HDR, OTF2_TimeStamp stop)
{
    (void)al;
    add(ud, loc, TR_FLUSH, t, stop);
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode on_metric(HDR, OTF2_MetricRef m, uint8_t n, const OTF2_Type *ty,
                                   const OTF2_MetricValue *v)
{
    (void)al, (void)m, (void)n, (void)ty;
    add(ud, loc, TR_OTHER, t, n ? v[0].unsigned_int : 0);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
                                      OTF2_LocationType type, uint64_t n, OTF2_LocationGroupRef g)
{
    tr_trace *t = ud;
    (void)name, (void)type, (void)n, (void)g;
    t->locs = realloc(t->locs, (t->nlocs + 1) * sizeof *t->locs);
    memset(&t->locs[t->nlocs], 0, sizeof t->locs[0]);
    t->locs[t->nlocs++].id = self;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_clock(void *ud, uint64_t res, uint64_t off, uint64_t len, uint64_t real)
{
    tr_trace *t = ud;
    (void)real;
    t->resolution = res;
    t->global_offset = off;
    t->trace_length = len;
    return OTF2_CALLBACK_SUCCESS;
}

int tr_load(const char *dir, tr_trace *t)
{
    char path[4096];
    OTF2_Reader *rd;
    OTF2_GlobalDefReader *gdr;
    OTF2_GlobalDefReaderCallbacks *dcb;
    OTF2_GlobalEvtReader *ger;
    OTF2_GlobalEvtReaderCallbacks *ecb;
    uint64_t n;
    size_t i;

    memset(t, 0, sizeof *t);
    snprintf(path, sizeof path, "%s/traces.otf2", dir);
    if (!(rd = OTF2_Reader_Open(path)))
        return -1;
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    {
        char *s = NULL;
        OTF2_Reader_GetCreator(rd, &s);
        t->creator = s;
        s = NULL;
        OTF2_Reader_GetDescription(rd, &s);
        t->description = s;
    }
    gdr = OTF2_Reader_GetGlobalDefReader(rd);
    dcb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(dcb, def_location);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(dcb, def_clock);
    OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, dcb, t);
    OTF2_GlobalDefReaderCallbacks_Delete(dcb);
    if (OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &n) != OTF2_SUCCESS) {
        OTF2_Reader_Close(rd);
        return -1;
    }
    for (i = 0; i < t->nlocs; i++)
        OTF2_Reader_SelectLocation(rd, t->locs[i].id);
    {
        /* local definitions carry the clock offsets and mapping tables that
         * OTF2 applies to the events of their location */
        bool defs = OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS;
        OTF2_Reader_OpenEvtFiles(rd);
        for (i = 0; i < t->nlocs; i++) {
            if (defs) {
                OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, t->locs[i].id);
                if (dr) {
                    uint64_t nd;
                    OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &nd);
                    OTF2_Reader_CloseDefReader(rd, dr);
                }
            }
            OTF2_Reader_GetEvtReader(rd, t->locs[i].id);
        }
        if (defs)
            OTF2_Reader_CloseDefFiles(rd);
    }
    ger = OTF2_Reader_GetGlobalEvtReader(rd);
    ecb = OTF2_GlobalEvtReaderCallbacks_New();
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(ecb, on_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(ecb, on_leave);
    OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(ecb, on_send);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(ecb, on_recv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveBeginCallback(ecb, on_cbegin);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(ecb, on_cend);
    OTF2_GlobalEvtReaderCallbacks_SetBufferFlushCallback(ecb, on_flush);
    OTF2_GlobalEvtReaderCallbacks_SetMetricCallback(ecb, on_metric);
    OTF2_GlobalEvtReaderCallbacks_SetThreadForkCallback(ecb, on_fork);
    OTF2_GlobalEvtReaderCallbacks_SetThreadJoinCallback(ecb, on_join);
    OTF2_GlobalEvtReaderCallbacks_SetThreadTeamBeginCallback(ecb, on_team);
    OTF2_GlobalEvtReaderCallbacks_SetThreadTeamEndCallback(ecb, on_team);
    OTF2_GlobalEvtReaderCallbacks_SetRmaCollectiveBeginCallback(ecb, on_rma_cbegin);
    OTF2_GlobalEvtReaderCallbacks_SetRmaCollectiveEndCallback(ecb, on_rma_cend);
    OTF2_GlobalEvtReaderCallbacks_SetRmaGroupSyncCallback(ecb, on_rma_gsync);
    OTF2_GlobalEvtReaderCallbacks_SetRmaRequestLockCallback(ecb, on_rma_lock);
    OTF2_GlobalEvtReaderCallbacks_SetRmaReleaseLockCallback(ecb, on_rma_release);
    OTF2_GlobalEvtReaderCallbacks_SetRmaPutCallback(ecb, on_rma_put);
    OTF2_GlobalEvtReaderCallbacks_SetRmaGetCallback(ecb, on_rma_get);
    OTF2_GlobalEvtReaderCallbacks_SetRmaOpCompleteBlockingCallback(ecb, on_rma_done);
    OTF2_GlobalEvtReaderCallbacks_SetRmaWinCreateCallback(ecb, on_rma_win);
    OTF2_GlobalEvtReaderCallbacks_SetRmaWinDestroyCallback(ecb, on_rma_win);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(ecb, on_isend);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(ecb, on_irecv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCompleteCallback(ecb, on_request);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvRequestCallback(ecb, on_request);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRequestTestCallback(ecb, on_request);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRequestCancelledCallback(ecb, on_request);
    OTF2_GlobalEvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(ecb, on_request);
    OTF2_GlobalEvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(ecb, on_nbc_complete);
    OTF2_Reader_RegisterGlobalEvtCallbacks(rd, ger, ecb, t);
    OTF2_GlobalEvtReaderCallbacks_Delete(ecb);
    if (OTF2_Reader_ReadAllGlobalEvents(rd, ger, &n) != OTF2_SUCCESS) {
        OTF2_Reader_Close(rd);
        return -1;
    }
    OTF2_Reader_Close(rd);
    return 0;
}

const tr_loc *tr_loc_id(const tr_trace *t, uint64_t id)
{
    size_t i;
    for (i = 0; i < t->nlocs; i++)
        if (t->locs[i].id == id)
            return &t->locs[i];
    return NULL;
}

void tr_free(tr_trace *t)
{
    size_t i;
    for (i = 0; i < t->nlocs; i++)
        free(t->locs[i].ev);
    free(t->locs);
    free(t->creator);
    free(t->description);
    memset(t, 0, sizeof *t);
}
