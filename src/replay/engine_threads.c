/*
 * engine_threads.c - the replay engine's thread rules (engine_int.h): the
 * threads of a process around fork and join (OpenMP in Score-P traces; the
 * create and join of POSIX threads are engine_pthr.c's).
 */
#include "replay/engine_int.h"

/* ---- threads ------------------------------------------------------------------ */

/* Threads of a process (OpenMP, pthreads in Score-P traces) keep their place
 * around fork and join: a thread's ThreadTeamBegin is no earlier than its
 * master's ThreadFork (Score-P may write a thread's begin before the
 * master's), and the master's ThreadJoin no earlier than every ThreadTeamEnd
 * of the team.  The model times these records as local ones (eq. 1); the
 * dependency only raises them. */
static void team_wake(engine *E, team *tm)
{
    const up_comm_def *cd = up_defs_comm(E->d, tm->comm);
    uint32_t r;
    if (!cd || cd->self) /* a team of one: nobody else waits */
        return;
    for (r = 0; r < cd->size; r++) {
        uint32_t li = cd->members[r];
        rloc *L;
        if (li >= E->n)
            continue;
        L = &E->L[li];
        if (L->state == S_WAIT && L->wait == W_TEAM && L->wteam == tm)
            up_eng_make_runnable(E, li);
    }
}

/* L must wait for tm: true, unless the replay released it (counted) */
static bool team_wait(engine *E, rloc *L, team *tm)
{
    if (!L->force) {
        L->wait = W_TEAM;
        L->wteam = tm;
        return true;
    }
    L->force = false;
    E->repairs[UP_REPAIR_thread_unpaired]++;
    return false;
}

static void team_free(engine *E, team *tm)
{
    up_map_del(&E->teams, tm->key, tm->seq);
    up_eng_omp_team_free(tm);
    up_free(tm);
}

/* The key of location li's teams on comm in E->teams: on a self-like
 * communicator every location is a team of one of its own (never shared);
 * a communicator id has 32 bits, so the two kinds of key never meet. */
static uint64_t team_key(const up_comm_def *cd, OTF2_CommRef comm, uint32_t li)
{
    return cd->self ? (uint64_t)li << 32 | comm : comm;
}

/* Team (key, seq) on comm, made at its first record here (NULL: out of memory) */
team *up_eng_team_get(engine *E, const up_comm_def *cd, OTF2_CommRef comm, uint64_t key,
                      uint64_t seq)
{
    uint64_t *v = up_map_get(&E->teams, key, seq);
    team *tm;
    if (v)
        return (team *)(uintptr_t)*v;
    if (!(tm = up_calloc(1, sizeof *tm)))
        return NULL;
    tm->comm = comm;
    tm->key = key;
    tm->seq = seq;
    tm->n = cd->self ? 1 : cd->size;
    if (!up_map_put(&E->teams, key, seq, (uint64_t)(uintptr_t)tm)) {
        up_free(tm);
        return NULL;
    }
    return tm;
}

/* A member's ThreadTeamBegin (the master's at root_m, root_a) or its
 * ThreadTeamEnd at end_a, here or crossed from another part */
static void team_began(engine *E, team *tm, bool root, uint64_t root_m, uint64_t root_a)
{
    tm->begun++;
    if (root) {
        tm->root_begun = true;
        tm->root_m = root_m;
        tm->root_a = root_a;
        team_wake(E, tm);
    }
}

static void team_ended(engine *E, team *tm, const up_comm_def *cd, uint64_t end_m, uint64_t end_a)
{
    uint32_t root;
    tm->ended++;
    if (end_a > tm->max_end_a)
        tm->max_end_a = end_a;
    if (end_m > tm->max_end_m)
        tm->max_end_m = end_m;
    if (cd->self || !cd->size) /* a team of one: nobody else waits */
        return;
    root = cd->members[0];
    if (tm->ended == tm->n && root < E->n && E->L[root].state == S_WAIT &&
        E->L[root].wait == W_TEAM && E->L[root].wteam == tm)
        up_eng_make_runnable(E, root);
}

int up_eng_team(engine *E, uint32_t li, up_event **evp, bool direct)
{
    up_event *ev = *evp;
    rloc *L = &E->L[li];
    bool begin = ev->kind == UP_EV_ThreadTeamBegin;
    OTF2_CommRef comm = begin ? ev->u.ThreadTeamBegin.threadTeam : ev->u.ThreadTeamEnd.threadTeam;
    uint64_t *seqp, seq, key;
    uint32_t rank;
    team *tm;
    const up_comm_def *cd;
    int r = up_eng_rank_of(E, comm, li, &rank);
    (void)direct; /* never on the direct path (the record table) */
    if (r < 0)
        goto nomem;
    if (r == 0) { /* not a team we know: a local record */
        E->ops->local(E->model, li, &L->ls, ev);
        return STEP_OK;
    }
    cd = up_defs_comm(E->d, comm);
    key = team_key(cd, comm, li);
    if (!(seqp = up_eng_map_counter(&L->teamseq, comm, 0)))
        goto nomem;
    if (!begin && *seqp == 0) { /* an end without a begin */
        E->repairs[UP_REPAIR_thread_unpaired]++;
        E->ops->local(E->model, li, &L->ls, ev);
        return STEP_OK;
    }
    seq = begin ? *seqp : *seqp - 1;
    if (!(tm = up_eng_team_get(E, cd, comm, key, seq)))
        goto nomem;
    if (begin && rank != 0 && !tm->root_begun && team_wait(E, L, tm))
        return STEP_BLOCKED;
    E->ops->local(E->model, li, &L->ls, ev);
    if (begin) {
        (*seqp)++;
        up_eng_omp_team_begin(E, li, tm); /* its barriers are this team's (engine_omp.c) */
        if (rank == 0) {
            team_began(E, tm, true, L->forked ? L->fork_m : ev->time,
                       L->forked ? L->fork_a : ev->t_out);
            L->forked = false;
        } else {
            team_began(E, tm, false, 0, 0);
            /* a thread waits idle for its team's fork ([M] Section 4: a
             * waiting event follows what it waited for): from the fork, by
             * the measured start latency (a thread's first record: the
             * time the thread took to start) */
            if (tm->root_begun)
                up_eng_follow(L, ev, true, tm->root_m, tm->root_a);
        }
        if (!up_eng_comm_held(E, comm) && /* to the other parts' copies */
            up_eng_x_team(E, li, comm, key, seq, rank == 0 ? 1 : 0, tm->root_m, tm->root_a) != STEP_OK)
            return STEP_ERROR;
        return STEP_OK;
    }
    team_ended(E, tm, cd, ev->time + up_eng_rec_ovh(E, li, ev), ev->t_out);
    up_eng_omp_team_end(E, li, tm);
    if (rank == 0)
        L->join_team = tm;
    if (!up_eng_comm_held(E, comm) &&
        up_eng_x_team(E, li, comm, key, seq, 2, ev->time + up_eng_rec_ovh(E, li, ev), ev->t_out) !=
            STEP_OK)
        return STEP_ERROR;
    return STEP_OK;
nomem:
    UP_ERR(E->err, UP_ENOMEM, "out of memory for a thread team");
    return STEP_ERROR;
}

/* A partitioned replay: another part's member of team (key, seq) on comm
 * began (what 0: a thread, 1: the master at (m, a)) or ended (2, at a) */
int up_eng_team_crossed(engine *E, OTF2_CommRef comm, uint64_t key, uint64_t seq, unsigned what,
                        uint64_t m, uint64_t a)
{
    const up_comm_def *cd = up_defs_comm(E->d, comm);
    team *tm;
    if (!cd || !cd->resolved || cd->self || !cd->size) {
        UP_ERR(E->err, UP_EINTERNAL, "partitioned replay: a team on an unknown communicator");
        return STEP_ERROR;
    }
    if (!(tm = up_eng_team_get(E, cd, comm, key, seq))) {
        UP_ERR(E->err, UP_ENOMEM, "out of memory for a thread team");
        return STEP_ERROR;
    }
    if (what < 2) {
        team_began(E, tm, what == 1, m, a);
    } else {
        team_ended(E, tm, cd, m, a);
        if (tm->ended == tm->n && tm->begun == tm->n && !up_eng_holds(E, cd->members[0]))
            team_free(E, tm); /* its master's part joins it */
    }
    return STEP_OK;
}
/* The master's ThreadJoin waits for every ThreadTeamEnd of the team it
 * ended last. */
int up_eng_join(engine *E, uint32_t li, up_event **evp, bool direct)
{
    up_event *ev = *evp;
    rloc *L = &E->L[li];
    team *tm = L->join_team;
    (void)direct; /* never on the direct path (the record table) */
    if (tm && tm->ended < tm->n && team_wait(E, L, tm))
        return STEP_BLOCKED;
    E->ops->local(E->model, li, &L->ls, ev);
    if (tm) {
        /* idle: the master waited for its team's last end (it came after
         * the master's previous record) */
        up_eng_follow(L, ev, tm->max_end_m > L->ls.prev_m, tm->max_end_m, tm->max_end_a);
        L->join_team = NULL;
        if (tm->ended == tm->n && tm->begun == tm->n)
            team_free(E, tm);
    }
    return STEP_OK;
}

/* A ThreadFork: a local record; the team's members begin no earlier */
int up_eng_fork(engine *E, uint32_t li, up_event **evp, bool direct)
{
    rloc *L = &E->L[li];
    (void)direct; /* never on the direct path (the record table) */
    E->ops->local(E->model, li, &L->ls, *evp);
    L->forked = true;
    /* the team starts once the fork record's overhead is over */
    L->fork_m = (*evp)->time + up_eng_rec_ovh(E, li, *evp);
    L->fork_a = (*evp)->t_out;
    return STEP_OK;
}

/* The teams still in the map (the map itself is freed by the caller) */
void up_eng_threads_free(engine *E)
{
    uint64_t k0, k1, v;
    size_t i;
    for (i = 0; i < E->teams.cap; i++)
        if (up_map_at(&E->teams, i, &k0, &k1, &v)) {
            up_eng_omp_team_free((team *)(uintptr_t)v);
            up_free((team *)(uintptr_t)v);
        }
    up_eng_omp_free(E);
    up_eng_pthr_free(E);
}
