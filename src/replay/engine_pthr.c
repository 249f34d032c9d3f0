/*
 * engine_pthr.c - the replay engine's rules for POSIX threads (engine_int.h;
 * docs/models.md, "POSIX threads"), on the records of docs/tracer.md
 * ("POSIX threads: what is recorded"): what a thread waits for on another
 * thread of its process.
 *
 * The model times every record as a local one (eq. 1); these rules raise a
 * record to what it waited for, keep the measured order of the dependent
 * events and remove the perturbation between them: Malony and Reed's
 * conservative approximation ([M] Section 4).  A dependency takes effect
 * once its record's overhead O is over (at t_m + O in the measured run),
 * and a thread that waited idle follows what it waited for, not its local
 * time (up_eng_follow, docs/models.md "OpenMP").
 *
 *   create    ThreadCreate(C, s) inside pthread_create and ThreadBegin(C,
 *             s), the new thread's first record, pair per process and s (C
 *             is the process's one thread contingent).  The thread did not
 *             run before its create, which is the time basis of its first
 *             event, as [M] Section 3.2.2 times the first concurrent event
 *             after a sequential one (rule 1) from that sequential event:
 *                 t_a(begin) = t_a(create) + max(0, t_m(begin) - (t_m(create) + O))
 *             (no earlier than the location's previous record, should a
 *             later thread reuse a location).
 *   join      ThreadWait(C, s) inside pthread_join waits for ThreadEnd(C,
 *             s), the thread's last record.  A joiner that was waiting
 *             when the end came (t_m(end) + O after its previous record,
 *             pthread_join's Enter) follows the end, the time basis of the
 *             first sequential event after a concurrent phase ([M] Section
 *             3.2.2, rule 1 of sequential events):
 *                 t_a(wait) = max(t_a(prev), t_a(end) + max(0, t_m(wait) - (t_m(end) + O)))
 *             One that joined a thread already ended keeps its local time,
 *             raised to the end (Section 4.3.2, case A: the P no earlier
 *             than its V):
 *                 t_a(wait) = max(t_local, t_a(end))
 *   barriers  pthread_barrier_wait (role BARRIER, paradigm PTHREAD) names
 *             its barrier and count in attributes of its Enter
 *             (unperturb::object, unperturb::count, UINT32): per process
 *             and object, the j-th wait of each thread there is instance
 *             j, complete once `count` threads entered.  Its exits are
 *             [M] Section 4.2.2's, by engine_omp.c's barrier rule; this
 *             file chooses the instance (up_eng_pthr_bar).  A wait that
 *             names no barrier, or a count of 0 (unknown), is a local
 *             record, counted: no rule could tell which threads it waits
 *             for, and waiting for the wrong ones could hold it forever.
 *   mutexes   ThreadAcquireLock/ThreadReleaseLock of model PTHREAD are
 *             engine_omp.c's locks (Section 4.3.2's single-P, single-V
 *             semaphore, the measured order kept); pthread_cond_wait
 *             writes a release of its mutex and a new acquisition of it,
 *             which waits for the release before it (the signaller's
 *             unlock).
 *
 * A begin whose create, or a join whose thread's end, never comes is
 * released when the replay stalls and counted (pthread_unpaired), never an
 * error.  In a partitioned replay each part keeps a copy of the creates and
 * ends, and each crosses to every part (X_OMP: OX_PCREATE, OX_PEND); the
 * barriers cross as engine_omp.c's do.
 */
#include "replay/engine_int.h"

/* The s-th thread a process created: its create and its end, each measured
 * after its record's overhead, and approximated */
typedef struct pthr {
    bool created, ended;
    bool begun, waited;   /* its ThreadBegin, its ThreadWait timed here */
    uint64_t create_m, create_a;
    uint64_t end_m, end_a;
} pthr;

void up_eng_pthr_init(engine *E)
{
    E->has_pobj_attr = up_defs_attr(E->d, "unperturb::object", OTF2_TYPE_UINT32, &E->pobj_attr);
    E->has_pcount_attr = up_defs_attr(E->d, "unperturb::count", OTF2_TYPE_UINT32, &E->pcount_attr);
}

/* A create or an end (o: OX_PCREATE or OX_PEND), here or in another part */
static int pthr_mark(engine *E, const xomp *o)
{
    pthr *t = up_eng_map_obj(&E->pthreads, o->key, o->seq, sizeof *t, true);
    if (!t) {
        UP_ERR(E->err, UP_ENOMEM, "out of memory for a thread");
        return STEP_ERROR;
    }
    if (o->kind == OX_PCREATE)
        t->created = true, t->create_m = o->m, t->create_a = o->a;
    else
        t->ended = true, t->end_m = o->m, t->end_a = o->a;
    up_eng_omp_wake(E);
    return STEP_OK;
}

int up_eng_pthr_crossed(engine *E, const xomp *o) { return pthr_mark(E, o); }

static uint64_t seq_of(const up_event *ev)
{
    switch (ev->kind) {
    case UP_EV_ThreadCreate:
        return ev->u.ThreadCreate.sequenceCount;
    case UP_EV_ThreadBegin:
        return ev->u.ThreadBegin.sequenceCount;
    case UP_EV_ThreadWait:
        return ev->u.ThreadWait.sequenceCount;
    default:
        return ev->u.ThreadEnd.sequenceCount;
    }
}

/* ThreadBegin waits for its ThreadCreate, ThreadWait for its ThreadEnd */
static int pthr_paired(engine *E, uint32_t li, up_event *ev, uint32_t p, uint64_t s)
{
    rloc *L = &E->L[li];
    bool begin = ev->kind == UP_EV_ThreadBegin;
    pthr *t = up_eng_map_obj(&E->pthreads, p, s, sizeof *t, false);
    if (!(t && (begin ? t->created : t->ended)) &&
        !up_eng_omp_released(E, L, UP_REPAIR_pthread_unpaired))
        return up_eng_omp_wait(E, L);
    E->ops->local(E->model, li, &L->ls, ev);
    if (!t) /* released: its local time */
        return STEP_OK;
    if (begin) {
        /* it waited, idle, for the thread to be made:
         * t_a(begin) = max(t_a(prev), t_a(create) + max(0, t_m(begin) - (t_m(create) + O)))
         * (a first record: t_a(prev) = 0) */
        if (t->created)
            up_eng_follow(L, ev, true, t->create_m, t->create_a);
        t->begun = true;
    } else {
        /* idle, the end came after the joiner's previous record:
         * t_a(wait) = max(t_a(prev), t_a(end) + max(0, t_m(wait) - (t_m(end) + O)));
         * else t_a(wait) = max(t_local, t_a(end)) */
        if (t->ended)
            up_eng_follow(L, ev, t->end_m > L->ls.prev_m, t->end_m, t->end_a);
        t->waited = true;
    }
    if (t->begun && t->waited) { /* nothing here asks for it again */
        up_map_del(&E->pthreads, p, s);
        up_free(t);
    }
    return STEP_OK;
}

int up_eng_pthr(engine *E, uint32_t li, up_event **evp, bool direct)
{
    up_event *ev = *evp;
    rloc *L = &E->L[li];
    uint32_t p = E->d->locs[li].process;
    xomp o;
    (void)direct; /* never on the direct path (the record table) */
    if (p == UP_NO_PROCESS) { /* no process to pair it in: a local record */
        E->ops->local(E->model, li, &L->ls, ev);
        return STEP_OK;
    }
    if (ev->kind == UP_EV_ThreadBegin || ev->kind == UP_EV_ThreadWait)
        return pthr_paired(E, li, ev, p, seq_of(ev));
    E->ops->local(E->model, li, &L->ls, ev);
    /* the thread starts, and its joiner returns, once the create's or the
     * end's record overhead is over */
    o = (xomp){.kind = ev->kind == UP_EV_ThreadCreate ? OX_PCREATE : OX_PEND, .key = p,
               .seq = seq_of(ev), .m = ev->time + up_eng_rec_ovh(E, li, ev), .a = ev->t_out};
    if (pthr_mark(E, &o) != STEP_OK)
        return STEP_ERROR;
    return up_eng_omp_cross(E, li, OTF2_UNDEFINED_COMM, &o);
}

/* The pthread barrier the Enter ev of li waits at: its key (TEAM_PBAR |
 * process, object) in E->teams, the instance j (li's waits there before
 * this one) and the barrier's count.  STEP_DECLINED: it names no barrier
 * or count, a local record (counted). */
int up_eng_pthr_bar(engine *E, uint32_t li, const up_event *ev, uint64_t *key, uint64_t *obj,
                    uint64_t *j, uint32_t *need)
{
    uint32_t p = E->d->locs[li].process;
    const OTF2_AttributeValue *o =
        E->has_pobj_attr ? up_eng_attr(ev, E->pobj_attr, OTF2_TYPE_UINT32) : NULL;
    const OTF2_AttributeValue *c =
        E->has_pcount_attr ? up_eng_attr(ev, E->pcount_attr, OTF2_TYPE_UINT32) : NULL;
    uint64_t *n;
    if (!o || !c || !c->uint32 || p == UP_NO_PROCESS) {
        E->repairs[UP_REPAIR_pthread_barrier_local]++;
        return STEP_DECLINED;
    }
    if (!(n = up_eng_map_counter(&E->L[li].teamseq, o->uint32, 1))) {
        UP_ERR(E->err, UP_ENOMEM, "out of memory for a barrier");
        return STEP_ERROR;
    }
    *key = TEAM_PBAR | p;
    *obj = o->uint32;
    *j = (*n)++;
    *need = c->uint32;
    return STEP_OK;
}

/* What the rules hold (the barriers are teams: engine_threads.c's) */
void up_eng_pthr_free(engine *E) { up_eng_map_free_objs(&E->pthreads); }
