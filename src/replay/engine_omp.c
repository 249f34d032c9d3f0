/*
 * engine_omp.c - the replay engine's OpenMP rules (engine_int.h;
 * docs/models.md, "OpenMP"): what a thread of a team waits for on another.
 *
 * The model times every record as a local one (eq. 1); these rules only
 * raise a record to what its dependency allows, and each keeps the
 * measured order of the dependent events (Malony and Reed's conservative
 * approximation, Section 4):
 *
 *   teams     a thread's teams, innermost last: ThreadTeamBegin/End
 *             (engine_threads.c: a team instance is the k-th begin on the
 *             team's communicator, its members the communicator's), or,
 *             in traces of Score-P's OMPT adapter, which write no team
 *             records, the Enter of an OpenMP parallel region (role
 *             PARALLEL: "!$omp implicit_task") carrying
 *             OMPT_PARALLEL_REGION_ID: the threads whose implicit task
 *             names the same id (per process) are one team, until the
 *             matching Leave.
 *   barriers  the j-th outermost barrier region (role BARRIER or
 *             IMPLICIT_BARRIER) of each member within a team instance is
 *             one instance.  Malony and Reed, Section 4.2.2: the exits
 *             are resolved from the team's last approximated enter,
 *                 t_a(exit_f) = t_a(enter_l) + t_m(exit_f) - t_m(enter_l)
 *                 t_a(exit_j) = t_a(exit_f) + t_m(exit_j) - t_m(exit_f)
 *             (alpha, the overhead of the exit record, is the model's:
 *             the local time already has it removed), so each member
 *             leaves at
 *                 max(t_local, t_a(enter_l) + max(0, t_m(exit) - t_m(enter_l)))
 *             and no earlier than the member whose measured exit was first
 *             (its exit is the time basis of the others'); t_m(enter_l) is
 *             the latest measured Enter, t_a(enter_l) the latest
 *             approximated one.  A member's own measured exit is read
 *             ahead at its Enter.  An exit measured before an Enter of the
 *             instance (the runtime let the thread go: LLVM's join barrier
 *             releases its workers at once, only the master waits) keeps
 *             its local time, and is counted: the measured order is kept.
 *             A pthread barrier (role BARRIER, paradigm PTHREAD) is timed
 *             by the same rule, its instance and count chosen by
 *             engine_pthr.c (up_eng_pthr_bar): the instance waits for
 *             `count` members, not a team's; its finished instances are
 *             dropped (a barrier in a loop would keep one per iteration).
 *   locks     ThreadAcquireLock/ThreadReleaseLock (and the older
 *             OmpAcquireLock/OmpReleaseLock): per process and lock id the
 *             acquisitions are numbered (acquisitionOrder, from 1); the
 *             k+1-th waits for the k-th release (Section 4.3's single-P,
 *             single-V semaphore, the measured order kept):
 *                 t_a(acq) = max(t_local, t_a(rel_k) + max(0, t_m(acq) - t_m(rel_k)))
 *             Score-P records critical sections and ordered regions as
 *             such locks; our tracer, pthread mutexes (model PTHREAD), and
 *             pthread_cond_wait as a release and a new acquisition of its
 *             mutex.
 *   tasks     ThreadTaskCreate/Switch/Complete, keyed by (team
 *             communicator, creating thread, generation): the first
 *             switch into a task is no earlier than its creation, and the
 *             Leave of a taskwait (role TASK_WAIT: taskwait, taskgroup) no
 *             earlier than the completion of every task its thread
 *             created (they are all complete by then).
 * What the rules cannot follow is counted (a record released from a wait
 * the trace never satisfies), never an error.  In a partitioned replay
 * each part keeps a copy of the state these rules share, and every change
 * crosses (X_OMP) to the parts with members of the team (every part, for
 * locks, OMPT teams and pthread barriers).  engine_pthr.c's waits and
 * crossings are these (up_eng_omp_wait, _wake, _released, _cross).
 */
#include <string.h>

#include "replay/engine_int.h"

#define LOOKAHEAD 64 /* records read ahead for a barrier's own exit */

/* The lock state of (process, lock id) */
typedef struct olock {
    uint64_t order;       /* the latest release's acquisition number (0: none) */
    uint64_t rel_m, rel_a;
} olock;

/* A task: its creation */
typedef struct otask {
    uint64_t m, a;
    bool switched;
} otask;

/* A creating thread of a team (by communicator and rank) */
typedef struct ocreator {
    uint64_t created, completed, max_gen;
    uint64_t done_a;      /* the latest completion of its tasks, approximated */
    uint64_t done_m;      /* ... and measured, after its record's overhead */
} ocreator;

/* ---- waiting -------------------------------------------------------------------- */

int up_eng_omp_wait(engine *E, rloc *L)
{
    L->wait = W_OMP;
    E->omp_waits++;
    return STEP_BLOCKED;
}

/* Something the rules share changed: the waiting locations look again */
void up_eng_omp_wake(engine *E)
{
    size_t i;
    if (!E->omp_waits)
        return;
    E->omp_waits = 0;
    for (i = 0; i < E->n; i++)
        if (E->L[i].state == S_WAIT && E->L[i].wait == W_OMP)
            up_eng_make_runnable(E, (uint32_t)i);
}

/* Released without its dependency: counted; true when it was */
bool up_eng_omp_released(engine *E, rloc *L, unsigned repair)
{
    if (!L->force)
        return false;
    L->force = false;
    E->repairs[repair]++;
    return true;
}

/* Change *o of location `from` to the other parts with members of comm
 * (OTF2_UNDEFINED_COMM: every part); o's other fields are the caller's */
int up_eng_omp_cross(engine *E, uint32_t from, OTF2_CommRef comm, xomp *o)
{
    if (!E->part)
        return STEP_OK;
    o->comm = comm, o->loc = from;
    return up_eng_x_omp(E, from, comm, o, sizeof *o);
}

void up_eng_omp_init(engine *E)
{
    E->has_ompt_attr = up_defs_attr(E->d, "OMPT_PARALLEL_REGION_ID", OTF2_TYPE_UINT64, &E->ompt_attr);
    E->has_tindex_attr = up_defs_attr(E->d, "unperturb::team_index", OTF2_TYPE_UINT32, &E->tindex_attr);
    E->has_late_attr = up_defs_attr(E->d, "unperturb::late_records", OTF2_TYPE_UINT32, &E->late_attr);
}

/* ---- teams ------------------------------------------------------------------------ */

/* Thread li begins (ThreadTeamBegin) or ends a team instance */
void up_eng_omp_team_begin(engine *E, uint32_t li, team *tm)
{
    rloc *L = &E->L[li];
    if (L->omp_nt < OMP_NEST) {
        L->omp_tm[L->omp_nt] = tm;
        L->omp_nbar[L->omp_nt] = 0;
        L->omp_tdepth[L->omp_nt] = UINT32_MAX;
    }
    L->omp_nt++;
}

void up_eng_omp_team_end(engine *E, uint32_t li, team *tm)
{
    rloc *L = &E->L[li];
    (void)tm;
    if (L->omp_nt)
        L->omp_nt--;
}

void up_eng_omp_team_free(team *tm)
{
    up_free(tm->bars);
    tm->bars = NULL;
    tm->nbars = 0;
}

/* A team that no communicator names (NULL: out of memory): an OMPT team
 * (TEAM_OMPT | process, parallel region id) or a pthread barrier (TEAM_PBAR
 * | process, object) */
static team *keyed_team(engine *E, uint64_t key, uint64_t seq)
{
    uint64_t *v = up_map_get(&E->teams, key, seq);
    team *tm;
    if (v)
        return (team *)(uintptr_t)*v;
    if (!(tm = up_calloc(1, sizeof *tm)))
        return NULL;
    tm->key = key;
    tm->seq = seq;
    tm->ompt = (key & TEAM_OMPT) != 0;
    tm->pbar = (key & TEAM_PBAR) != 0;
    tm->comm = OTF2_UNDEFINED_COMM;
    if (!up_map_put(&E->teams, key, seq, (uint64_t)(uintptr_t)tm)) {
        up_free(tm);
        return NULL;
    }
    return tm;
}

/* The team of a crossing (NULL: out of memory, or unknown) */
static team *x_team(engine *E, const xomp *o)
{
    const up_comm_def *cd;
    if (o->key & (TEAM_OMPT | TEAM_PBAR))
        return keyed_team(E, o->key, o->seq);
    cd = up_defs_comm(E->d, o->comm);
    if (!cd || !cd->resolved)
        return NULL;
    return up_eng_team_get(E, cd, o->comm, o->key, o->seq);
}

static void bars_init(obar *b, size_t n)
{
    memset(b, 0, n * sizeof *b);
    for (; n--; b++) {
        b->first_loc = UINT32_MAX;
        b->first_m = UINT64_MAX;
    }
}

/* Barrier j of team tm, made when first named (NULL: out of memory); j is
 * at least tm->bar0 (the callers leave out instances dropped already) */
static obar *bar_get(team *tm, uint64_t j)
{
    uint64_t k = j - tm->bar0;
    if (k >= tm->nbars) {
        uint32_t n = tm->nbars ? tm->nbars : 4;
        obar *b;
        if (k >= UINT32_MAX / 2)
            return NULL;
        while (n <= k)
            n *= 2;
        if (!(b = up_reallocarray(tm->bars, n, sizeof *b)))
            return NULL;
        bars_init(b + tm->nbars, n - tm->nbars);
        tm->bars = b;
        tm->nbars = n;
    }
    return &tm->bars[k];
}

/* A pthread barrier's first instances that all its count entered and every
 * member held here left are dropped: no member here needs them again (a
 * member that still comes to one is more than its count: timed locally) */
static void bars_trim(team *tm)
{
    uint32_t k = 0;
    while (k < tm->nbars && tm->bars[k].need && tm->bars[k].entered >= tm->bars[k].need &&
           !tm->bars[k].here)
        k++;
    if (!k)
        return;
    memmove(tm->bars, tm->bars + k, (tm->nbars - k) * sizeof *tm->bars);
    bars_init(tm->bars + tm->nbars - k, k);
    tm->bar0 += k;
}

/* ---- barriers ------------------------------------------------------------------- */

static void bar_entered(obar *b, uint32_t loc, uint64_t m, uint64_t o, uint64_t a,
                        uint64_t exit_m, uint32_t need)
{
    b->entered++;
    if (need > b->need)
        b->need = need;
    if (m > b->last_m || (m == b->last_m && o > b->last_o))
        b->last_m = m, b->last_o = o;
    if (a > b->last_a)
        b->last_a = a;
    if (exit_m < b->first_m || (exit_m == b->first_m && loc < b->first_loc)) {
        b->first_m = exit_m;
        b->first_loc = loc;
    }
}

/* The measured time of the Leave that closes the barrier li just entered
 * (read ahead in its own stream), UINT64_MAX when not within LOOKAHEAD */
static int own_exit(engine *E, uint32_t li, uint64_t *exit_m)
{
    uint32_t k, depth = 0;
    *exit_m = UINT64_MAX;
    for (k = 1; k <= LOOKAHEAD; k++) {
        up_event *ev;
        if (up_stream_peek(E->L[li].s, k, &ev, E->err) != UP_OK)
            return STEP_ERROR;
        if (!ev)
            break;
        if (ev->kind == UP_EV_Enter)
            depth++;
        else if (ev->kind == UP_EV_Leave && depth-- == 0) {
            *exit_m = ev->time;
            break;
        }
    }
    return STEP_OK;
}

/* The instance the barrier Enter ev of li opens (region flags fl): the
 * j-th barrier of its innermost team, or a pthread barrier's instance
 * (engine_pthr.c).  STEP_DECLINED: none, a local record. */
static int bar_instance(engine *E, uint32_t li, const up_event *ev, unsigned fl, team **tm,
                        uint64_t *j, uint32_t *need)
{
    rloc *L = &E->L[li];
    uint64_t key, obj;
    int r;
    if (!(fl & UP_REGION_PTHREAD_BARRIER)) {
        if (!L->omp_nt || L->omp_nt > OMP_NEST)
            return STEP_DECLINED;
        *tm = L->omp_tm[L->omp_nt - 1];
        *j = L->omp_nbar[L->omp_nt - 1]++;
        *need = 0;
        return STEP_OK;
    }
    if ((r = up_eng_pthr_bar(E, li, ev, &key, &obj, j, need)) != STEP_OK)
        return r;
    if (!(*tm = keyed_team(E, key, obj))) {
        UP_ERR(E->err, UP_ENOMEM, "out of memory for a barrier");
        return STEP_ERROR;
    }
    if (*j < (*tm)->bar0) { /* its instance is done: one member more than its count */
        E->repairs[UP_REPAIR_pthread_barrier_local]++;
        return STEP_DECLINED;
    }
    return STEP_OK;
}

static int bar_enter(engine *E, uint32_t li, up_event *ev, unsigned fl)
{
    rloc *L = &E->L[li];
    team *tm;
    uint64_t j;
    uint32_t need;
    obar *b;
    xomp o;
    int r = bar_instance(E, li, ev, fl, &tm, &j, &need);
    if (r != STEP_OK)
        return r;
    E->ops->local(E->model, li, &L->ls, ev);
    if (!(b = bar_get(tm, j)) || own_exit(E, li, &L->omp_exit_m) != STEP_OK) {
        if (!b)
            UP_ERR(E->err, UP_ENOMEM, "out of memory for a barrier");
        return STEP_ERROR;
    }
    bar_entered(b, li, ev->time, up_eng_rec_ovh(E, li, ev), ev->t_out, L->omp_exit_m, need);
    b->here++;
    L->omp_bar_on = true;
    L->omp_btm = tm;
    L->omp_bj = (uint32_t)j;
    up_eng_omp_wake(E);
    o = (xomp){.kind = OX_BAR_ENTER, .need = need, .key = tm->key, .seq = tm->seq, .j = j,
               .m = ev->time, .a = ev->t_out, .x = L->omp_exit_m, .o = up_eng_rec_ovh(E, li, ev)};
    return up_eng_omp_cross(E, li, tm->comm, &o);
}

static int bar_leave(engine *E, uint32_t li, up_event *ev)
{
    rloc *L = &E->L[li];
    team *tm = L->omp_btm;
    obar *b = &tm->bars[L->omp_bj - tm->bar0];
    uint32_t n = b->need ? b->need : tm->ompt ? tm->begun : tm->n;
    unsigned rel = tm->pbar ? UP_REPAIR_pthread_barrier_released : UP_REPAIR_omp_barrier_released;
    uint64_t t;
    bool first, unordered;
    xomp o;
    if (tm->ompt && !L->force) {
        /* who joined an OMPT team is known once no location is behind
         * this exit in measured time (the seam: every part quiet) */
        if (E->part) {
            int r = up_eng_x_global(E, li);
            if (r != STEP_OK)
                return r;
        } else if (up_eng_behind(E, ev->time)) {
            return STEP_YIELD;
        }
    }
    /* an exit measured before an Enter of the instance: the runtime did
     * not hold this member (LLVM's join barrier lets its workers go), and
     * neither does the replay (the measured order is kept, [M] Section 4) */
    unordered = ev->time < b->last_m;
    if (!unordered && b->entered < n && !up_eng_omp_released(E, L, rel))
        return up_eng_omp_wait(E, L);
    first = b->first_loc == li || b->first_loc == UINT32_MAX;
    if (!unordered && !first && !b->first_done && !up_eng_omp_released(E, L, rel))
        return up_eng_omp_wait(E, L);
    E->ops->local(E->model, li, &L->ls, ev);
    if (unordered) {
        E->repairs[tm->pbar ? UP_REPAIR_pthread_barrier_local : UP_REPAIR_omp_barrier_unordered]++;
    } else {
        /* Malony and Reed, Section 4.2.2: from the last approximated enter,
         * by the measured exit latency, which starts once the last Enter's
         * record overhead is over */
        t = b->last_a + sub0(ev->time, b->last_m + b->last_o);
        if (!first && b->first_done && t < b->first_a)
            t = b->first_a; /* the first exit stays first */
        /* not max(local, t): a member that waited was idle, and its local
         * time would keep the wait the others' overhead made ([M] 4.2) */
        ev->t_out = t > L->ls.prev_a ? t : L->ls.prev_a;
    }
    b->here--;
    L->omp_bar_on = false;
    if (b->first_loc == li) {
        b->first_done = true;
        b->first_a = ev->t_out;
        up_eng_omp_wake(E);
        o = (xomp){.kind = OX_BAR_FIRST, .key = tm->key, .seq = tm->seq, .j = L->omp_bj,
                   .m = ev->time, .a = ev->t_out};
        if (up_eng_omp_cross(E, li, tm->comm, &o) != STEP_OK)
            return STEP_ERROR;
    }
    if (tm->pbar)
        bars_trim(tm);
    return STEP_OK;
}

/* ---- taskwait --------------------------------------------------------------------- */

static ocreator *creator_get(engine *E, OTF2_CommRef comm, uint32_t rank, bool create)
{
    return up_eng_map_obj(&E->ocreators, comm, rank, sizeof(ocreator), create);
}

/* Thread li's fork/join team and its rank there: false when none */
static bool own_rank(engine *E, uint32_t li, OTF2_CommRef *comm, uint32_t *rank)
{
    rloc *L = &E->L[li];
    uint32_t k;
    for (k = L->omp_nt < OMP_NEST ? L->omp_nt : OMP_NEST; k-- > 0;)
        if (!L->omp_tm[k]->ompt) {
            *comm = L->omp_tm[k]->comm;
            return up_eng_rank_of(E, *comm, li, rank) == 1;
        }
    return false;
}

static int taskwait_leave(engine *E, uint32_t li, up_event *ev)
{
    rloc *L = &E->L[li];
    OTF2_CommRef comm;
    uint32_t rank;
    ocreator *oc = NULL;
    if (own_rank(E, li, &comm, &rank))
        oc = creator_get(E, comm, rank, false);
    if (oc && oc->completed < oc->created && !up_eng_omp_released(E, L, UP_REPAIR_omp_task_unpaired))
        return up_eng_omp_wait(E, L);
    E->ops->local(E->model, li, &L->ls, ev);
    if (oc) /* idle: its tasks' last completion came after its Enter */
        up_eng_follow(L, ev, oc->done_m > L->omp_tw_enter_m, oc->done_m, oc->done_a);
    return STEP_OK;
}

/* ---- OpenMP regions ------------------------------------------------------------- */

/* The parallel id an Enter carries (OMPT), or false */
static bool ompt_id(const engine *E, const up_event *ev, uint64_t *id)
{
    const OTF2_AttributeValue *v =
        E->has_ompt_attr ? up_eng_attr(ev, E->ompt_attr, OTF2_TYPE_UINT64) : NULL;
    if (v)
        *id = v->uint64;
    return v != NULL;
}

/* A thread's place in its OMPT team, where the trace names it (our OMPT
 * tool writes unperturb::team_index on the implicit task's Enter: 0 the
 * master; Score-P's adapter writes none): 0, 1 (a worker), or -1 */
static int ompt_index(const engine *E, const up_event *ev)
{
    const OTF2_AttributeValue *v =
        E->has_tindex_attr ? up_eng_attr(ev, E->tindex_attr, OTF2_TYPE_UINT32) : NULL;
    return v ? v->uint32 != 0 : -1;
}

/* The overhead of the records a worker wrote after the fork with earlier
 * times (unperturb::late_records on its Enter: the previous region's
 * barrier and implicit-task ends, which libomp reports at the next fork and
 * the tool stamps at the master's times, docs/tracer-openmp.md): they lie
 * in its measured start latency, which is not the runtime's.  Each costs a
 * Leave's O. */
static uint64_t ompt_late_ovh(const engine *E, uint32_t li, const up_event *ev)
{
    const OTF2_AttributeValue *v =
        E->has_late_attr ? up_eng_attr(ev, E->late_attr, OTF2_TYPE_UINT32) : NULL;
    up_event leave;
    if (!v || !v->uint32)
        return 0;
    memset(&leave, 0, sizeof leave);
    leave.kind = UP_EV_Leave;
    return v->uint32 * up_eng_rec_ovh(E, li, &leave);
}

/* The Enter of OMPT team tm's implicit task on L, its place `index`
 * (ompt_index): the master's begins the team (its fork: after its record's
 * overhead); a worker waits idle in the runtime for it, and follows it by
 * its measured start latency, less its late records' overhead
 * (ompt_late_ovh), as a fork/join team's member does (engine_threads.c;
 * [M] Section 4):
 *     t_a(begin_w) = max(t_a(prev_w), t_a(fork) + max(0, t_m(begin_w) - t_m(fork) - O_late))
 * A worker whose master's Enter never comes is released and counted
 * (thread_unpaired).  Without index, the Enter is a local record. */
static int ompt_begin(engine *E, uint32_t li, up_event *ev, team *tm, int index)
{
    rloc *L = &E->L[li];
    bool follow = index == 1 && tm->root_begun;
    if (index == 1 && !tm->root_begun && !up_eng_omp_released(E, L, UP_REPAIR_thread_unpaired))
        return up_eng_omp_wait(E, L);
    E->ops->local(E->model, li, &L->ls, ev);
    if (follow)
        up_eng_follow(L, ev, true, tm->root_m + ompt_late_ovh(E, li, ev), tm->root_a);
    if (index == 0) {
        xomp o = {.kind = OX_JOIN, .key = tm->key, .seq = tm->seq, .x = 1};
        tm->root_begun = true;
        o.m = tm->root_m = ev->time + up_eng_rec_ovh(E, li, ev);
        o.a = tm->root_a = ev->t_out;
        up_eng_omp_wake(E);
        return up_eng_omp_cross(E, li, OTF2_UNDEFINED_COMM, &o);
    }
    return STEP_OK;
}

/* The Enter or Leave of an OpenMP construct or a pthread barrier
 * (UP_REGION_THREAD_MASK flags fl) */
int up_eng_omp_region(engine *E, uint32_t li, up_event **evp, unsigned fl)
{
    up_event *ev = *evp;
    rloc *L = &E->L[li];
    bool enter = ev->kind == UP_EV_Enter;
    uint64_t id;

    if (fl & UP_REGION_OMP_PARALLEL) {
        int timed = STEP_DECLINED; /* STEP_OK: ompt_begin timed it */
        if (enter) {
            uint32_t p = E->d->locs[li].process;
            if (ompt_id(E, ev, &id) && p != UP_NO_PROCESS) { /* joins OMPT team id */
                team *tm = keyed_team(E, TEAM_OMPT | p, id);
                int index = ompt_index(E, ev);
                xomp o;
                if (!tm) {
                    UP_ERR(E->err, UP_ENOMEM, "out of memory for a thread team");
                    return STEP_ERROR;
                }
                if (index >= 0 && (timed = ompt_begin(E, li, ev, tm, index)) != STEP_OK)
                    return timed; /* (waiting for the master: nothing of it done yet) */
                tm->begun++;
                up_eng_omp_team_begin(E, li, tm);
                if (L->omp_nt <= OMP_NEST)
                    L->omp_tdepth[L->omp_nt - 1] = L->omp_pdepth;
                up_eng_omp_wake(E);
                o = (xomp){.kind = OX_JOIN, .key = tm->key, .seq = tm->seq};
                if (up_eng_omp_cross(E, li, OTF2_UNDEFINED_COMM, &o) != STEP_OK)
                    return STEP_ERROR;
            }
            L->omp_pdepth++;
        } else if (L->omp_pdepth) {
            L->omp_pdepth--;
            if (L->omp_nt && L->omp_nt <= OMP_NEST && L->omp_tdepth[L->omp_nt - 1] == L->omp_pdepth)
                L->omp_nt--; /* its OMPT team ends */
        }
        return timed;
    }
    if (fl & (UP_REGION_OMP_BARRIER | UP_REGION_PTHREAD_BARRIER)) {
        if (enter) /* the outermost barrier region is the barrier */
            return L->omp_bdepth++ == 0 ? bar_enter(E, li, ev, fl) : STEP_DECLINED;
        if (L->omp_bdepth && --L->omp_bdepth == 0 && L->omp_bar_on) {
            int r = bar_leave(E, li, ev);
            if (r != STEP_OK)
                L->omp_bdepth++; /* not timed yet: again later */
            return r;
        }
        return STEP_DECLINED;
    }
    if (fl & UP_REGION_OMP_TASKWAIT) {
        if (enter) {
            if (L->omp_wdepth++ == 0)
                L->omp_tw_enter_m = ev->time;
            return STEP_DECLINED;
        }
        if (L->omp_wdepth && --L->omp_wdepth == 0) {
            int r = taskwait_leave(E, li, ev);
            if (r != STEP_OK)
                L->omp_wdepth++;
            return r;
        }
        return STEP_DECLINED;
    }
    return STEP_DECLINED;
}

/* ---- locks -------------------------------------------------------------------------- */

/* The overhead of location li's previous record, where it asked for what
 * it then waited for (a critical section's or omp_set_lock's Enter): the
 * request reached the runtime that long after the record.  The record is
 * gone; an Enter of its most recent Enter's region stands for it. */
static uint64_t prev_ovh(const engine *E, uint32_t li)
{
    up_event e;
    memset(&e, 0, sizeof e);
    e.kind = UP_EV_Enter;
    e.rflags = E->L[li].enter_rflags;
    e.u.Enter.region = E->L[li].enter_region;
    return up_eng_rec_ovh(E, li, &e);
}

static olock *lock_get(engine *E, uint32_t p, uint64_t id)
{
    return up_eng_map_obj(&E->olocks, p, id, sizeof(olock), true);
}

static void lock_released(engine *E, olock *ol, uint64_t order, uint64_t m, uint64_t a)
{
    if (order >= ol->order) {
        ol->order = order;
        ol->rel_m = m;
        ol->rel_a = a;
    }
    up_eng_omp_wake(E);
}

int up_eng_omp_lock(engine *E, uint32_t li, up_event **evp, bool direct)
{
    up_event *ev = *evp;
    rloc *L = &E->L[li];
    uint32_t p = E->d->locs[li].process;
    bool acquire;
    uint64_t id, order;
    olock *ol;
    xomp o;
    (void)direct; /* never on the direct path (the record table) */
    switch (ev->kind) {
    case UP_EV_ThreadAcquireLock:
        acquire = true, order = ev->u.ThreadAcquireLock.acquisitionOrder;
        id = (uint64_t)ev->u.ThreadAcquireLock.model << 32 | ev->u.ThreadAcquireLock.lockID;
        break;
    case UP_EV_ThreadReleaseLock:
        acquire = false, order = ev->u.ThreadReleaseLock.acquisitionOrder;
        id = (uint64_t)ev->u.ThreadReleaseLock.model << 32 | ev->u.ThreadReleaseLock.lockID;
        break;
    case UP_EV_OmpAcquireLock:
        acquire = true, order = ev->u.OmpAcquireLock.acquisitionOrder;
        id = (uint64_t)OTF2_PARADIGM_OPENMP << 32 | ev->u.OmpAcquireLock.lockID;
        break;
    default:
        acquire = false, order = ev->u.OmpReleaseLock.acquisitionOrder;
        id = (uint64_t)OTF2_PARADIGM_OPENMP << 32 | ev->u.OmpReleaseLock.lockID;
        break;
    }
    if (p == UP_NO_PROCESS) {
        E->ops->local(E->model, li, &L->ls, ev);
        return STEP_OK;
    }
    if (!(ol = lock_get(E, p, id))) {
        UP_ERR(E->err, UP_ENOMEM, "out of memory for a lock");
        return STEP_ERROR;
    }
    if (acquire) {
        /* acquisition k+1 waits for release k (numbered from 1) */
        if (order >= 2 && ol->order < order - 1 && !up_eng_omp_released(E, L, UP_REPAIR_omp_lock_released))
            return up_eng_omp_wait(E, L);
        E->ops->local(E->model, li, &L->ls, ev);
        /* Section 4.3.2: the hand-off's measured latency after the
         * approximated release, never before it.  A thread that asked
         * before the release (its record before it came before) waited
         * idle (case B): the release alone times it; one that found the
         * lock free (case A) keeps its local time, raised to the release */
        if (order >= 2 && ol->order == order - 1)
            up_eng_follow(L, ev, L->ls.prev_m + prev_ovh(E, li) < ol->rel_m, ol->rel_m, ol->rel_a);
        return STEP_OK;
    }
    E->ops->local(E->model, li, &L->ls, ev);
    /* the lock is free once the release record's overhead is over */
    lock_released(E, ol, order, ev->time + up_eng_rec_ovh(E, li, ev), ev->t_out);
    o = (xomp){.kind = OX_LOCK, .key = p, .seq = id, .m = ev->time + up_eng_rec_ovh(E, li, ev),
               .a = ev->t_out, .x = order};
    return up_eng_omp_cross(E, li, OTF2_UNDEFINED_COMM, &o);
}

/* ---- tasks ------------------------------------------------------------------------- */

static void task_created(engine *E, OTF2_CommRef comm, uint32_t creator, uint32_t gen, uint64_t m,
                         uint64_t a, bool *nomem)
{
    otask *t = up_eng_map_obj(&E->otasks, comm, (uint64_t)creator << 32 | gen, sizeof *t, true);
    ocreator *oc = creator_get(E, comm, creator, true);
    if (!t || !oc) {
        *nomem = true;
        return;
    }
    t->m = m, t->a = a;
    oc->created++;
    if (gen > oc->max_gen)
        oc->max_gen = gen;
    up_eng_omp_wake(E);
}

static void task_done(engine *E, OTF2_CommRef comm, uint32_t creator, uint32_t gen, uint64_t m,
                      uint64_t a, bool *nomem)
{
    ocreator *oc = creator_get(E, comm, creator, true);
    uint64_t *v = up_map_get(&E->otasks, comm, (uint64_t)creator << 32 | gen);
    if (v) {
        up_free((void *)(uintptr_t)*v);
        up_map_del(&E->otasks, comm, (uint64_t)creator << 32 | gen);
    }
    if (!oc) {
        *nomem = true;
        return;
    }
    oc->completed++;
    if (a > oc->done_a)
        oc->done_a = a;
    if (m > oc->done_m)
        oc->done_m = m;
    up_eng_omp_wake(E);
}

int up_eng_omp_task(engine *E, uint32_t li, up_event **evp, bool direct)
{
    up_event *ev = *evp;
    rloc *L = &E->L[li];
    OTF2_CommRef comm;
    uint32_t creator, gen;
    bool nomem = false;
    unsigned kind;
    (void)direct; /* never on the direct path (the record table) */
    switch (ev->kind) {
    case UP_EV_ThreadTaskCreate:
        comm = ev->u.ThreadTaskCreate.threadTeam, creator = ev->u.ThreadTaskCreate.creatingThread;
        gen = ev->u.ThreadTaskCreate.generationNumber;
        break;
    case UP_EV_ThreadTaskSwitch:
        comm = ev->u.ThreadTaskSwitch.threadTeam, creator = ev->u.ThreadTaskSwitch.creatingThread;
        gen = ev->u.ThreadTaskSwitch.generationNumber;
        break;
    default:
        comm = ev->u.ThreadTaskComplete.threadTeam, creator = ev->u.ThreadTaskComplete.creatingThread;
        gen = ev->u.ThreadTaskComplete.generationNumber;
        break;
    }
    kind = ev->kind;
    if (kind == UP_EV_ThreadTaskSwitch && gen != 0) {
        /* a task runs no earlier than its creation */
        otask *t = up_eng_map_obj(&E->otasks, comm, (uint64_t)creator << 32 | gen, sizeof *t, false);
        if (!t) {
            ocreator *oc = creator_get(E, comm, creator, false);
            const up_comm_def *cd = up_defs_comm(E->d, comm);
            bool may = cd && cd->resolved && !cd->self && creator < cd->size &&
                       cd->members[creator] < E->n && up_eng_may_come(E, cd->members[creator]);
            if ((!oc || oc->max_gen < gen) && may && !up_eng_omp_released(E, L, UP_REPAIR_omp_task_unpaired))
                return up_eng_omp_wait(E, L);
        }
        E->ops->local(E->model, li, &L->ls, ev);
        if (t && !t->switched) {
            t->switched = true;
            if (ev->t_out < t->a)
                ev->t_out = t->a;
        }
        return STEP_OK;
    }
    E->ops->local(E->model, li, &L->ls, ev);
    if (kind == UP_EV_ThreadTaskCreate)
        task_created(E, comm, creator, gen, ev->time, ev->t_out, &nomem);
    else if (kind == UP_EV_ThreadTaskComplete)
        task_done(E, comm, creator, gen, ev->time + up_eng_rec_ovh(E, li, ev), ev->t_out, &nomem);
    if (nomem) {
        UP_ERR(E->err, UP_ENOMEM, "out of memory for a task");
        return STEP_ERROR;
    }
    if (kind == UP_EV_ThreadTaskCreate || kind == UP_EV_ThreadTaskComplete) {
        xomp o = {.kind = kind == UP_EV_ThreadTaskCreate ? OX_TASK_NEW : OX_TASK_DONE,
                  .seq = (uint64_t)creator << 32 | gen,
                  .m = kind == UP_EV_ThreadTaskCreate ? ev->time
                                                      : ev->time + up_eng_rec_ovh(E, li, ev),
                  .a = ev->t_out};
        return up_eng_omp_cross(E, li, comm, &o);
    }
    return STEP_OK;
}

/* ---- the seam ----------------------------------------------------------------------- */

/* Another part's change (X_OMP) */
int up_eng_omp_crossed(engine *E, const void *pl, size_t len)
{
    xomp o;
    bool nomem = false;
    if (len != sizeof o) {
        UP_ERR(E->err, UP_EINTERNAL, "partitioned replay: an OpenMP crossing of another size");
        return STEP_ERROR;
    }
    memcpy(&o, pl, sizeof o);
    switch (o.kind) {
    case OX_BAR_ENTER:
    case OX_BAR_FIRST:
    case OX_JOIN: {
        team *tm = x_team(E, &o);
        obar *b = NULL;
        if (tm && o.kind != OX_JOIN && o.j < tm->bar0)
            break; /* an instance every member here is done with */
        if (!tm || (o.kind != OX_JOIN && !(b = bar_get(tm, o.j)))) {
            nomem = true;
            break;
        }
        if (o.kind == OX_JOIN && o.x == 1) { /* the master's Enter (ompt_begin) */
            tm->root_begun = true;
            tm->root_m = o.m, tm->root_a = o.a;
        } else if (o.kind == OX_JOIN) {
            tm->begun++;
        } else if (o.kind == OX_BAR_ENTER) {
            bar_entered(b, o.loc, o.m, o.o, o.a, o.x, o.need);
        } else {
            b->first_done = true;
            b->first_a = o.a;
        }
        up_eng_omp_wake(E);
        break;
    }
    case OX_LOCK: {
        olock *ol = lock_get(E, (uint32_t)o.key, o.seq);
        if (!ol)
            nomem = true;
        else
            lock_released(E, ol, o.x, o.m, o.a);
        break;
    }
    case OX_TASK_NEW:
        task_created(E, o.comm, (uint32_t)(o.seq >> 32), (uint32_t)o.seq, o.m, o.a, &nomem);
        break;
    case OX_TASK_DONE:
        task_done(E, o.comm, (uint32_t)(o.seq >> 32), (uint32_t)o.seq, o.m, o.a, &nomem);
        break;
    case OX_PCREATE:
    case OX_PEND:
        return up_eng_pthr_crossed(E, &o);
    default:
        UP_ERR(E->err, UP_EINTERNAL, "partitioned replay: an OpenMP crossing of unknown kind");
        return STEP_ERROR;
    }
    if (nomem) {
        UP_ERR(E->err, UP_ENOMEM, "out of memory for an OpenMP crossing");
        return STEP_ERROR;
    }
    return STEP_OK;
}

/* What the rules hold (the teams are engine_threads.c's) */
void up_eng_omp_free(engine *E)
{
    up_eng_map_free_objs(&E->olocks);
    up_eng_map_free_objs(&E->otasks);
    up_eng_map_free_objs(&E->ocreators);
}
