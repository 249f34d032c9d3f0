/*
 * mpi_c_hand.c - the C wrappers that do not fit the table of MPI calls
 * (src/trace/mpi_calls.def, rows of class `hand`; the others are
 * generated into mpi_c_gen.c): MPI_Init, MPI_Finalize, MPI_Abort, the
 * matched probes and receives, MPI_Start(all), the wait and test families,
 * MPI_Request_free, MPI_Comm_free, and the synchronisation of one-sided
 * communication.  Their Fortran twins: mpi_f_hand.c.  The shared state
 * (requests, windows, probed messages) is in wrap.c.
 */
#include <stdlib.h>
#include <string.h>

#include "tracer/wrap.h"

#define ON() (upt_on)

/* ---- life cycle ------------------------------------------------------------------ */

UPT_EXPORT int MPI_Init(int *argc, char ***argv)
{
    uint64_t t = upt_now();
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        upt_init_from(UPT_R_MPI_Init, t);
    return rc;
}

UPT_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    uint64_t t = upt_now();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        upt_init_from(UPT_R_MPI_Init_thread, t);
    return rc;
}

UPT_EXPORT int MPI_Finalize(void)
{
    upt_finalize();
    return PMPI_Finalize();
}

UPT_EXPORT int MPI_Abort(MPI_Comm comm, int code)
{
    upt_enter(UPT_R_MPI_Abort);
    upt_close();
    return PMPI_Abort(comm, code);
}

/* ---- matched probes and receives ------------------------------------------------ */

UPT_EXPORT int MPI_Mprobe(int src, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *status)
{
    int rc;
    if (!ON())
        return PMPI_Mprobe(src, tag, comm, msg, status);
    upt_enter(UPT_R_MPI_Mprobe);
    rc = PMPI_Mprobe(src, tag, comm, msg, status);
    if (rc == MPI_SUCCESS)
        upt_probed_put(*msg, upt_comm_id(comm), upt_wildcard(src, tag));
    upt_leave(UPT_R_MPI_Mprobe);
    return rc;
}

UPT_EXPORT int MPI_Improbe(int src, int tag, MPI_Comm comm, int *flag, MPI_Message *msg,
                           MPI_Status *status)
{
    int rc;
    if (!ON())
        return PMPI_Improbe(src, tag, comm, flag, msg, status);
    upt_enter(UPT_R_MPI_Improbe);
    rc = PMPI_Improbe(src, tag, comm, flag, msg, status);
    if (rc == MPI_SUCCESS && *flag)
        upt_probed_put(*msg, upt_comm_id(comm), upt_wildcard(src, tag));
    upt_leave(UPT_R_MPI_Improbe);
    return rc;
}

/* the message handle is read before the call, which sets it to
 * MPI_MESSAGE_NULL */
UPT_EXPORT int MPI_Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *msg,
                         MPI_Status *status)
{
    MPI_Status st;
    int rc;
    uint32_t c;
    unsigned wildcard;
    if (!ON())
        return PMPI_Mrecv(buf, count, type, msg, status);
    upt_enter(UPT_R_MPI_Mrecv);
    c = upt_probed_take(*msg, &wildcard);
    if (status == MPI_STATUS_IGNORE)
        status = &st;
    rc = PMPI_Mrecv(buf, count, type, msg, status);
    if (rc == MPI_SUCCESS)
        upt_record_recv(status, c, wildcard);
    upt_leave(UPT_R_MPI_Mrecv);
    return rc;
}

UPT_EXPORT int MPI_Imrecv(void *buf, int count, MPI_Datatype type, MPI_Message *msg,
                          MPI_Request *req)
{
    int rc;
    uint32_t c;
    unsigned wildcard;
    if (!ON())
        return PMPI_Imrecv(buf, count, type, msg, req);
    upt_enter(UPT_R_MPI_Imrecv);
    c = upt_probed_take(*msg, &wildcard);
    rc = PMPI_Imrecv(buf, count, type, msg, req);
    if (rc == MPI_SUCCESS)
        upt_req_irecv(*req, c, wildcard);
    upt_leave(UPT_R_MPI_Imrecv);
    return rc;
}

/* ---- persistent requests ----------------------------------------------------------- */

UPT_EXPORT int MPI_Start(MPI_Request *req)
{
    int rc;
    if (!ON())
        return PMPI_Start(req);
    upt_enter(UPT_R_MPI_Start);
    upt_req_start(*req);
    rc = PMPI_Start(req);
    upt_leave(UPT_R_MPI_Start);
    return rc;
}

UPT_EXPORT int MPI_Startall(int n, MPI_Request reqs_[])
{
    int rc, i;
    if (!ON())
        return PMPI_Startall(n, reqs_);
    upt_enter(UPT_R_MPI_Startall);
    for (i = 0; i < n; i++)
        upt_req_start(reqs_[i]);
    rc = PMPI_Startall(n, reqs_);
    upt_leave(UPT_R_MPI_Startall);
    return rc;
}

/* ---- completion ------------------------------------------------------------------- */

/* Request arrays: the handles before the call (completion overwrites them)
 * and statuses of our own when the caller ignores them. */
typedef struct reqcopy {
    MPI_Request small_r[32];
    MPI_Status small_s[32];
    MPI_Request *r;
    MPI_Status *s;
} reqcopy;

static bool reqcopy_init(reqcopy *c, int n, const MPI_Request *reqs_)
{
    c->r = c->small_r, c->s = c->small_s;
    if (n > 32) {
        c->r = malloc((size_t)n * sizeof *c->r);
        c->s = malloc((size_t)n * sizeof *c->s);
        if (!c->r || !c->s) {
            free(c->r), free(c->s);
            c->r = NULL, c->s = NULL;
            return false;
        }
    }
    if (n > 0)
        memcpy(c->r, reqs_, (size_t)n * sizeof *c->r);
    return true;
}

static void reqcopy_free(reqcopy *c)
{
    if (c->r != c->small_r)
        free(c->r), free(c->s);
}

UPT_EXPORT int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    MPI_Status st;
    MPI_Request before;
    int rc;
    if (!ON())
        return PMPI_Wait(req, status);
    upt_enter(UPT_R_MPI_Wait);
    before = *req;
    if (status == MPI_STATUS_IGNORE)
        status = &st;
    rc = PMPI_Wait(req, status);
    if (rc == MPI_SUCCESS)
        upt_req_completed(before, status);
    upt_leave(UPT_R_MPI_Wait);
    return rc;
}

UPT_EXPORT int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    MPI_Status st;
    MPI_Request before;
    int rc;
    if (!ON())
        return PMPI_Test(req, flag, status);
    upt_enter(UPT_R_MPI_Test);
    before = *req;
    if (status == MPI_STATUS_IGNORE)
        status = &st;
    rc = PMPI_Test(req, flag, status);
    if (rc == MPI_SUCCESS) {
        if (*flag)
            upt_req_completed(before, status);
        else
            upt_req_tested(before);
    }
    upt_leave(UPT_R_MPI_Test);
    return rc;
}

UPT_EXPORT int MPI_Waitall(int n, MPI_Request reqs_[], MPI_Status statuses[])
{
    reqcopy c;
    MPI_Status *st;
    int rc, i;
    if (!ON() || !reqcopy_init(&c, n, reqs_))
        return PMPI_Waitall(n, reqs_, statuses);
    upt_enter(UPT_R_MPI_Waitall);
    st = statuses == MPI_STATUSES_IGNORE ? c.s : statuses;
    rc = PMPI_Waitall(n, reqs_, st);
    for (i = 0; i < n; i++)
        if (rc == MPI_SUCCESS || (rc == MPI_ERR_IN_STATUS && st[i].MPI_ERROR == MPI_SUCCESS))
            upt_req_completed(c.r[i], &st[i]);
    upt_leave(UPT_R_MPI_Waitall);
    reqcopy_free(&c);
    return rc;
}

UPT_EXPORT int MPI_Testall(int n, MPI_Request reqs_[], int *flag, MPI_Status statuses[])
{
    reqcopy c;
    MPI_Status *st;
    int rc, i;
    if (!ON() || !reqcopy_init(&c, n, reqs_))
        return PMPI_Testall(n, reqs_, flag, statuses);
    upt_enter(UPT_R_MPI_Testall);
    st = statuses == MPI_STATUSES_IGNORE ? c.s : statuses;
    rc = PMPI_Testall(n, reqs_, flag, st);
    for (i = 0; i < n && rc == MPI_SUCCESS; i++) {
        if (*flag)
            upt_req_completed(c.r[i], &st[i]);
        else
            upt_req_tested(c.r[i]);
    }
    upt_leave(UPT_R_MPI_Testall);
    reqcopy_free(&c);
    return rc;
}

UPT_EXPORT int MPI_Waitany(int n, MPI_Request reqs_[], int *index, MPI_Status *status)
{
    reqcopy c;
    MPI_Status st;
    int rc;
    if (!ON() || !reqcopy_init(&c, n, reqs_))
        return PMPI_Waitany(n, reqs_, index, status);
    upt_enter(UPT_R_MPI_Waitany);
    if (status == MPI_STATUS_IGNORE)
        status = &st;
    rc = PMPI_Waitany(n, reqs_, index, status);
    if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED && *index >= 0 && *index < n)
        upt_req_completed(c.r[*index], status);
    upt_leave(UPT_R_MPI_Waitany);
    reqcopy_free(&c);
    return rc;
}

UPT_EXPORT int MPI_Testany(int n, MPI_Request reqs_[], int *index, int *flag, MPI_Status *status)
{
    reqcopy c;
    MPI_Status st;
    int rc, i;
    if (!ON() || !reqcopy_init(&c, n, reqs_))
        return PMPI_Testany(n, reqs_, index, flag, status);
    upt_enter(UPT_R_MPI_Testany);
    if (status == MPI_STATUS_IGNORE)
        status = &st;
    rc = PMPI_Testany(n, reqs_, index, flag, status);
    if (rc == MPI_SUCCESS) {
        if (*flag && *index != MPI_UNDEFINED && *index >= 0 && *index < n)
            upt_req_completed(c.r[*index], status);
        else if (!*flag)
            for (i = 0; i < n; i++)
                upt_req_tested(c.r[i]);
    }
    upt_leave(UPT_R_MPI_Testany);
    reqcopy_free(&c);
    return rc;
}

static int some(int which, int n, MPI_Request reqs_[], int *outcount, int indices[],
                MPI_Status statuses[])
{
    reqcopy c;
    MPI_Status *st;
    int rc, i;
    uint32_t region = which ? UPT_R_MPI_Testsome : UPT_R_MPI_Waitsome;
    if (!ON() || !reqcopy_init(&c, n, reqs_))
        return which ? PMPI_Testsome(n, reqs_, outcount, indices, statuses)
                     : PMPI_Waitsome(n, reqs_, outcount, indices, statuses);
    upt_enter(region);
    st = statuses == MPI_STATUSES_IGNORE ? c.s : statuses;
    rc = which ? PMPI_Testsome(n, reqs_, outcount, indices, st)
               : PMPI_Waitsome(n, reqs_, outcount, indices, st);
    if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED) {
        for (i = 0; i < *outcount; i++)
            if (indices[i] >= 0 && indices[i] < n)
                upt_req_completed(c.r[indices[i]], &st[i]);
        if (which && *outcount == 0)
            for (i = 0; i < n; i++)
                upt_req_tested(c.r[i]);
    }
    upt_leave(region);
    reqcopy_free(&c);
    return rc;
}

UPT_EXPORT int MPI_Waitsome(int n, MPI_Request reqs_[], int *outcount, int indices[],
                            MPI_Status statuses[])
{
    return some(0, n, reqs_, outcount, indices, statuses);
}

UPT_EXPORT int MPI_Testsome(int n, MPI_Request reqs_[], int *outcount, int indices[],
                            MPI_Status statuses[])
{
    return some(1, n, reqs_, outcount, indices, statuses);
}

UPT_EXPORT int MPI_Request_free(MPI_Request *req)
{
    int rc;
    if (!ON())
        return PMPI_Request_free(req);
    upt_enter(UPT_R_MPI_Request_free);
    upt_req_freed(*req);
    rc = PMPI_Request_free(req);
    upt_leave(UPT_R_MPI_Request_free);
    return rc;
}

/* ---- communicators ---------------------------------------------------------------- */

UPT_EXPORT int MPI_Comm_free(MPI_Comm *comm)
{
    int rc;
    if (!ON())
        return PMPI_Comm_free(comm);
    upt_enter(UPT_R_MPI_Comm_free);
    upt_comm_freed(*comm);
    rc = PMPI_Comm_free(comm);
    upt_leave(UPT_R_MPI_Comm_free);
    return rc;
}

/* ---- one-sided communication: synchronisation -------------------------------------
 * Records as Score-P writes them (docs/tracer.md); the bookkeeping is in
 * wrap.c (windows, epochs, open transfers).  Only the recording thread
 * records or keeps windows: RMA_ON() is upt_recording(), not ON(). */

#define RMA_ON() upt_recording()

UPT_EXPORT int MPI_Win_free(MPI_Win *win)
{
    upt_win_freeing f;
    int rc;
    if (!RMA_ON())
        return PMPI_Win_free(win);
    upt_enter(UPT_R_MPI_Win_free);
    f = upt_win_free_begin(*win);
    rc = PMPI_Win_free(win);
    upt_win_free_end(f);
    upt_leave(UPT_R_MPI_Win_free);
    return rc;
}

UPT_EXPORT int MPI_Win_fence(int assert, MPI_Win win)
{
    int rc;
    if (!RMA_ON())
        return PMPI_Win_fence(assert, win);
    upt_enter(UPT_R_MPI_Win_fence);
    upt_win_fence_begin(win);
    rc = PMPI_Win_fence(assert, win);
    upt_win_fence_end(win);
    upt_leave(UPT_R_MPI_Win_fence);
    return rc;
}

/* MPI_Win_start and MPI_Win_post open an epoch with a group; `exposure`
 * tells which */
static int epoch_start(uint32_t region, bool exposure, MPI_Group group, int assert, MPI_Win win)
{
    int rc;
    if (!RMA_ON())
        return exposure ? PMPI_Win_post(group, assert, win) : PMPI_Win_start(group, assert, win);
    upt_enter(region);
    rc = exposure ? PMPI_Win_post(group, assert, win) : PMPI_Win_start(group, assert, win);
    if (rc == MPI_SUCCESS)
        upt_win_epoch_start(win, group, exposure);
    upt_leave(region);
    return rc;
}

UPT_EXPORT int MPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    return epoch_start(UPT_R_MPI_Win_post, true, group, assert, win);
}

UPT_EXPORT int MPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    return epoch_start(UPT_R_MPI_Win_start, false, group, assert, win);
}

UPT_EXPORT int MPI_Win_complete(MPI_Win win)
{
    int rc;
    if (!RMA_ON())
        return PMPI_Win_complete(win);
    upt_enter(UPT_R_MPI_Win_complete);
    rc = PMPI_Win_complete(win);
    if (rc == MPI_SUCCESS)
        upt_win_epoch_end(win, false, false, true);
    upt_leave(UPT_R_MPI_Win_complete);
    return rc;
}

UPT_EXPORT int MPI_Win_wait(MPI_Win win)
{
    int rc;
    if (!RMA_ON())
        return PMPI_Win_wait(win);
    upt_enter(UPT_R_MPI_Win_wait);
    rc = PMPI_Win_wait(win);
    if (rc == MPI_SUCCESS)
        upt_win_epoch_end(win, true, false, true);
    upt_leave(UPT_R_MPI_Win_wait);
    return rc;
}

UPT_EXPORT int MPI_Win_test(MPI_Win win, int *flag)
{
    int rc;
    if (!RMA_ON())
        return PMPI_Win_test(win, flag);
    upt_enter(UPT_R_MPI_Win_test);
    rc = PMPI_Win_test(win, flag);
    if (rc == MPI_SUCCESS)
        upt_win_epoch_end(win, true, true, *flag != 0);
    upt_leave(UPT_R_MPI_Win_test);
    return rc;
}

/* passive target: the lock is requested before the call, released after */
UPT_EXPORT int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    int rc;
    if (!RMA_ON())
        return PMPI_Win_lock(lock_type, rank, assert, win);
    upt_enter(UPT_R_MPI_Win_lock);
    upt_win_lock(win, rank, lock_type == MPI_LOCK_EXCLUSIVE);
    rc = PMPI_Win_lock(lock_type, rank, assert, win);
    upt_leave(UPT_R_MPI_Win_lock);
    return rc;
}

UPT_EXPORT int MPI_Win_lock_all(int assert, MPI_Win win)
{
    int rc;
    if (!RMA_ON())
        return PMPI_Win_lock_all(assert, win);
    upt_enter(UPT_R_MPI_Win_lock_all);
    upt_win_lock(win, UPT_RMA_ALL, false);
    rc = PMPI_Win_lock_all(assert, win);
    upt_leave(UPT_R_MPI_Win_lock_all);
    return rc;
}

/* unlock, unlock_all, flush, flush_all (`rank` UPT_RMA_ALL for the _all
 * calls): the transfers they complete, then for an unlock its release */
static int passive_end(uint32_t region, bool unlock, int rank, MPI_Win win)
{
    int rc;
    bool all = rank == UPT_RMA_ALL;
#define PASSIVE_CALL                                                                     \
    (unlock ? (all ? PMPI_Win_unlock_all(win) : PMPI_Win_unlock(rank, win))              \
            : (all ? PMPI_Win_flush_all(win) : PMPI_Win_flush(rank, win)))
    if (!RMA_ON())
        return PASSIVE_CALL;
    upt_enter(region);
    rc = PASSIVE_CALL;
#undef PASSIVE_CALL
    if (rc == MPI_SUCCESS) {
        if (unlock)
            upt_win_unlock(win, rank);
        else
            upt_win_flush(win, rank, false);
    }
    upt_leave(region);
    return rc;
}

UPT_EXPORT int MPI_Win_unlock(int rank, MPI_Win win)
{
    return passive_end(UPT_R_MPI_Win_unlock, true, rank, win);
}

UPT_EXPORT int MPI_Win_unlock_all(MPI_Win win)
{
    return passive_end(UPT_R_MPI_Win_unlock_all, true, UPT_RMA_ALL, win);
}

UPT_EXPORT int MPI_Win_flush(int rank, MPI_Win win)
{
    return passive_end(UPT_R_MPI_Win_flush, false, rank, win);
}

UPT_EXPORT int MPI_Win_flush_all(MPI_Win win)
{
    return passive_end(UPT_R_MPI_Win_flush_all, false, UPT_RMA_ALL, win);
}

/* local completion: the separate ids stay open until a flush, an unlock or
 * an epoch's end completes them at the target */
UPT_EXPORT int MPI_Win_flush_local(int rank, MPI_Win win)
{
    int rc;
    if (!RMA_ON())
        return PMPI_Win_flush_local(rank, win);
    upt_enter(UPT_R_MPI_Win_flush_local);
    rc = PMPI_Win_flush_local(rank, win);
    if (rc == MPI_SUCCESS)
        upt_win_flush(win, rank, true);
    upt_leave(UPT_R_MPI_Win_flush_local);
    return rc;
}

UPT_EXPORT int MPI_Win_flush_local_all(MPI_Win win)
{
    int rc;
    if (!RMA_ON())
        return PMPI_Win_flush_local_all(win);
    upt_enter(UPT_R_MPI_Win_flush_local_all);
    rc = PMPI_Win_flush_local_all(win);
    if (rc == MPI_SUCCESS)
        upt_win_flush(win, UPT_RMA_ALL, true);
    upt_leave(UPT_R_MPI_Win_flush_local_all);
    return rc;
}
