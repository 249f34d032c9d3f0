/*
 * perfetto.c - Chrome trace-event JSON of an OTF2 trace, for ui.perfetto.dev
 * and chrome://tracing (`unperturb export --perfetto`).
 *
 * Place in the data flow: reads an archive with the reader (src/trace), one
 * location after the other, and writes one JSON file; no replay, no model.
 *
 *   process (pid)   one per process (up_loc_def.process: an accelerator's is
 *                   its creator's): pid = its rank + 1 (Perfetto reserves pid
 *                   0); a process without a rank gets one past the ranks by
 *                   its index, a location of no process one per location group
 *   thread (tid)    one per location, its own track under its process (OpenMP
 *                   threads, accelerator streams); the process' first location
 *                   has tid = pid (its main thread), the others tids above
 *                   every pid; "thread_name" names each, "process_name" each
 *                   process ("rank N" or "process N")
 *   Enter, Leave    "B", "E" with the region's name, category its paradigm
 *   MpiSend/Isend   "s" (flow start); MpiRecv/Irecv "f" (flow end, "bp":"e");
 *                   flow id from the channel (communicator, sender, receiver,
 *                   tag) and the message's number k on it: MPI's non-overtaking
 *                   rule makes the k-th send match the k-th receive, so both
 *                   sides compute the same id without pairing records
 *   collective end  args of the enclosing MPI call's "E" (operation,
 *                   communicator, root, bytes); else an instant
 *   other records   "i" named by their kind, with their fields as args
 *   not written     MpiCollectiveBegin (its end carries the collective),
 *                   attributes, array fields (metric values)
 *
 * ts: microseconds from the trace's start (ClockProperties' global offset),
 * exact to the tick (as many decimals as the timer resolution needs).
 *
 * Memory: the reader's buffers; the open regions of the current location; a
 * counter pair per channel (bounded by communicators x locations^2 x tags,
 * not by the trace's length); the region and communicator names as JSON.
 *
 * Names: in the form of up_text_form (UTF-8, other bytes as \xNN), a name of
 * more than UP_NAME_MAX bytes cut with its marker, so that a name written
 * with every event keeps the file proportional to the trace.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/perfetto.h"

#define OUT_BUF (256u * 1024u)
#define STACK_MAX ((size_t)1 << 20) /* open regions remembered per location */
#define FLOW_NAME "message"
#define FLOW_CAT "mpi"

/* ---- JSON strings ---------------------------------------------------------- */

size_t up_json_quote(char *buf, size_t cap, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    size_t len = 0, left = strlen(s);
#define PUT_(ch)                          \
    do {                                  \
        if (len + 1 < cap)                \
            buf[len] = (char)(ch);        \
        len++;                            \
    } while (0)
    PUT_('"');
    while (*p) {
        size_t n = up_text_utf8_len((const char *)p, left), i;
        unsigned c = *p;
        if (n == 0) { /* not UTF-8: the four characters \xNN (up_text_form) */
            PUT_('\\'); PUT_('\\'); PUT_('x');
            PUT_(hex[c >> 4]); PUT_(hex[c & 15]);
            p++, left--;
            continue;
        }
        if (n > 1) {
            for (i = 0; i < n; i++)
                PUT_(p[i]);
            p += n, left -= n;
            continue;
        }
        p++, left--;
        switch (c) {
        case '"': PUT_('\\'); PUT_('"'); break;
        case '\\': PUT_('\\'); PUT_('\\'); break;
        case '\b': PUT_('\\'); PUT_('b'); break;
        case '\f': PUT_('\\'); PUT_('f'); break;
        case '\n': PUT_('\\'); PUT_('n'); break;
        case '\r': PUT_('\\'); PUT_('r'); break;
        case '\t': PUT_('\\'); PUT_('t'); break;
        default:
            if (c < 0x20) {
                PUT_('\\'); PUT_('u'); PUT_('0'); PUT_('0');
                PUT_(hex[c >> 4]); PUT_(hex[c & 15]);
            } else
                PUT_(c);
        }
    }
    PUT_('"');
#undef PUT_
    if (cap)
        buf[len < cap ? len : cap - 1] = '\0';
    return len;
}

/* ---- buffered output ------------------------------------------------------- */

typedef struct jw {
    FILE *f;
    char *buf;
    size_t len;
    int err_no;       /* first write error, 0 if none */
    bool nomem;       /* an allocation failed: the output is incomplete */
} jw;

static void jw_flush(jw *w)
{
    if (w->len && !w->err_no && fwrite(w->buf, 1, w->len, w->f) != w->len)
        w->err_no = errno ? errno : EIO;
    w->len = 0;
}

static void jw_put(jw *w, const char *s, size_t n)
{
    if (n > OUT_BUF - w->len) {
        jw_flush(w);
        if (n > OUT_BUF) {
            if (!w->err_no && fwrite(s, 1, n, w->f) != n)
                w->err_no = errno ? errno : EIO;
            return;
        }
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
}

static void jw_puts(jw *w, const char *s) { jw_put(w, s, strlen(s)); }

static void jw_u64(jw *w, uint64_t v)
{
    char t[24];
    size_t i = sizeof t;
    do {
        t[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    jw_put(w, t + i, sizeof t - i);
}

static void jw_i64(jw *w, int64_t v)
{
    if (v < 0) {
        jw_put(w, "-", 1);
        jw_u64(w, (uint64_t)0 - (uint64_t)v);
    } else
        jw_u64(w, (uint64_t)v);
}

static void jw_hex(jw *w, uint64_t v)
{
    static const char hex[] = "0123456789abcdef";
    char t[20];
    size_t i = sizeof t;
    do {
        t[--i] = hex[v & 15];
        v >>= 4;
    } while (v);
    t[--i] = 'x';
    t[--i] = '0';
    jw_put(w, t + i, sizeof t - i);
}

static void jw_str(jw *w, const char *s)
{
    char small[256];
    size_t n = up_json_quote(small, sizeof small, s);
    char *big;
    if (n < sizeof small) {
        jw_put(w, small, n);
        return;
    }
    if (!(big = up_malloc(n + 1))) {
        w->nomem = true;
        jw_puts(w, "\"\"");
        return;
    }
    up_json_quote(big, n + 1, s);
    jw_put(w, big, n);
    up_free(big);
}

/* ---- names ----------------------------------------------------------------- */

static const char *paradigm_name(OTF2_Paradigm p)
{
    static const char *const names[] = {
        "unknown", "user", "compiler", "OpenMP", "MPI", "CUDA", "measurement",
        "pthread", "HMPP", "OmpSs", "hardware", "GASPI", "UPC", "SHMEM",
        "winthread", "qtthread", "acethread", "TBB", "OpenACC", "OpenCL",
        "MTAPI", "sampling", "none", "HIP", "Kokkos",
    };
    return p < sizeof names / sizeof names[0] ? names[p] : "unknown";
}

static const char *coll_name(OTF2_CollectiveOp op)
{
    static const char *const names[] = {
        "BARRIER", "BCAST", "GATHER", "GATHERV", "SCATTER", "SCATTERV",
        "ALLGATHER", "ALLGATHERV", "ALLTOALL", "ALLTOALLV", "ALLTOALLW",
        "ALLREDUCE", "REDUCE", "REDUCE_SCATTER", "SCAN", "EXSCAN",
        "REDUCE_SCATTER_BLOCK", "CREATE_HANDLE", "DESTROY_HANDLE", "ALLOCATE",
        "DEALLOCATE", "CREATE_HANDLE_AND_ALLOCATE", "DESTROY_HANDLE_AND_DEALLOCATE",
    };
    return op < sizeof names / sizeof names[0] ? names[op] : "COLLECTIVE";
}

/* ---- the export ------------------------------------------------------------ */

typedef struct chan {
    uint64_t sent, received;
} chan;

typedef struct coll {
    uint64_t t;
    OTF2_CollectiveOp op;
    OTF2_CommRef comm;
    uint32_t root;
    uint64_t sent, received;
    size_t depth;           /* open regions when it ended */
} coll;

typedef struct ex {
    up_trace *t;
    const up_defs *d;
    up_export_stats *st;
    up_err *err;
    jw w;
    bool first;             /* no trace event written yet */
    /* time */
    uint64_t origin, res;
    unsigned dec;           /* decimals of ts */
    uint64_t dec_pow;       /* 10^dec */
    bool window;
    uint64_t lo, hi;        /* window, ticks */
    /* processes and threads */
    uint64_t *pid, *tid;    /* by location index */
    long *prank;            /* by location index: its process's rank (UP_NO_RANK) */
    up_map procs;           /* pid -> location index of its main thread */
    /* message channels: (comm << 32 | tag, sender << 32 | receiver) -> index */
    up_map chans;
    chan *ch;
    size_t nch, chcap;
    /* JSON strings of the region and communicator names (a long one cut:
     * up_text_form), by index (NULL: not yet) */
    char **rname, **cname;
    /* the current location */
    uint32_t li;
    OTF2_RegionRef *stack;
    size_t depth, scap;
    uint64_t last;          /* last ts written, ticks */
    bool opened;            /* window: the regions open at its start are written */
    bool pending;
    coll pc;
} ex;

/* microseconds from the origin, exact to the tick */
static void put_ts(ex *x, uint64_t t)
{
    uint64_t dt = t - x->origin, n;
#if defined(__SIZEOF_INT128__)
    __extension__ typedef unsigned __int128 u128;
    u128 v = (u128)dt * (u128)(1000000u * x->dec_pow);
    n = (uint64_t)((v + x->res / 2) / x->res);
#else
    n = (uint64_t)llroundl((long double)dt * 1e6L * (long double)x->dec_pow / (long double)x->res);
#endif
    jw_u64(&x->w, n / x->dec_pow);
    if (x->dec) {
        char frac[8];
        uint64_t f = n % x->dec_pow;
        unsigned i;
        frac[0] = '.';
        for (i = x->dec; i > 0; i--) {
            frac[i] = (char)('0' + f % 10);
            f /= 10;
        }
        jw_put(&x->w, frac, x->dec + 1);
    }
}

/* `{"ph":"P","ts":T,"pid":P,"tid":I` for the current location; the caller
 * adds the rest and the closing brace.  t is raised to the last ts written. */
static void ev_open(ex *x, char ph, uint64_t t)
{
    char head[8] = "{\"ph\":\"";
    if (t < x->last) {
        t = x->last;
        x->st->raised++;
    }
    x->last = t;
    jw_puts(&x->w, x->first ? "\n" : ",\n");
    x->first = false;
    head[7] = ph;
    jw_put(&x->w, head, 8);
    jw_puts(&x->w, "\",\"ts\":");
    put_ts(x, t);
    jw_puts(&x->w, ",\"pid\":");
    jw_u64(&x->w, x->pid[x->li]);
    jw_puts(&x->w, ",\"tid\":");
    jw_u64(&x->w, x->tid[x->li]);
    x->st->events++;
}

/* A name from the trace as a JSON string, cut when long (docs/cli.md, "Names
 * in outputs"): once per region or communicator, however often it is
 * written; NULL when out of memory. */
static char *name_json(const char *name)
{
    char text[UP_NAME_BUF], *q;
    size_t n;
    up_text_form(text, sizeof text, name, UP_TEXT_UTF8);
    n = up_json_quote(NULL, 0, text);
    if ((q = up_malloc(n + 1)))
        up_json_quote(q, n + 1, text);
    return q;
}

static const char *region_json(ex *x, OTF2_RegionRef r, const char **cat)
{
    const up_region_def *rg = up_defs_region(x->d, r);
    size_t i;
    if (!rg) {
        *cat = "unknown";
        return NULL;
    }
    *cat = paradigm_name(rg->paradigm);
    i = (size_t)(rg - x->d->regions);
    if (!x->rname[i] && !(x->rname[i] = name_json(rg->name)))
        x->w.nomem = true;
    return x->rname[i];
}

static void put_region(ex *x, OTF2_RegionRef r)
{
    const char *cat, *q = region_json(x, r, &cat);
    jw_puts(&x->w, ",\"name\":");
    if (q)
        jw_puts(&x->w, q);
    else {
        char tmp[48];
        snprintf(tmp, sizeof tmp, "\"region %u\"", (unsigned)r);
        jw_puts(&x->w, tmp);
    }
    jw_puts(&x->w, ",\"cat\":\"");
    jw_puts(&x->w, cat);
    jw_puts(&x->w, "\"");
}

static void write_begin(ex *x, uint64_t t, OTF2_RegionRef r, bool cut)
{
    ev_open(x, 'B', t);
    put_region(x, r);
    if (cut)
        jw_puts(&x->w, ",\"args\":{\"cut_at_window\":true}");
    jw_puts(&x->w, "}");
    x->st->begins++;
}

static void put_comm(ex *x, OTF2_CommRef c)
{
    const up_comm_def *cd = up_defs_comm(x->d, c);
    jw_puts(&x->w, "\"comm\":");
    jw_u64(&x->w, c);
    if (cd && cd->name && *cd->name) {
        size_t i = (size_t)(cd - x->d->comms);
        if (!x->cname[i] && !(x->cname[i] = name_json(cd->name))) {
            x->w.nomem = true;
            return;
        }
        jw_puts(&x->w, ",\"comm_name\":");
        jw_puts(&x->w, x->cname[i]);
    }
}

static void put_coll_args(ex *x, const coll *c)
{
    jw_puts(&x->w, "\"collective\":\"");
    jw_puts(&x->w, coll_name(c->op));
    jw_puts(&x->w, "\",");
    put_comm(x, c->comm);
    if (c->root != OTF2_UNDEFINED_UINT32) {
        jw_puts(&x->w, ",\"root\":");
        jw_u64(&x->w, c->root);
    }
    jw_puts(&x->w, ",\"bytes_sent\":");
    jw_u64(&x->w, c->sent);
    jw_puts(&x->w, ",\"bytes_received\":");
    jw_u64(&x->w, c->received);
}

static void write_coll_instant(ex *x, const coll *c)
{
    ev_open(x, 'i', c->t);
    jw_puts(&x->w, ",\"s\":\"t\",\"name\":\"");
    jw_puts(&x->w, coll_name(c->op));
    jw_puts(&x->w, "\",\"cat\":\"MPI\",\"args\":{");
    put_coll_args(x, c);
    jw_puts(&x->w, "}}");
    x->st->instants++;
}

/* "E" closing the region at the current depth (pending collective args go to
 * the region that enclosed the collective) */
static void write_end(ex *x, uint64_t t, bool cut)
{
    bool args = x->pending && x->pc.depth == x->depth;
    ev_open(x, 'E', t);
    if (args || cut) {
        jw_puts(&x->w, ",\"args\":{");
        if (args) {
            put_coll_args(x, &x->pc);
            x->pending = false;
            x->st->collectives++;
        }
        if (cut)
            jw_puts(&x->w, args ? ",\"cut_at_window\":true" : "\"cut_at_window\":true");
        jw_puts(&x->w, "}");
    }
    jw_puts(&x->w, "}");
    x->st->ends++;
}

static void push_region(ex *x, OTF2_RegionRef r)
{
    if (x->depth < x->scap)
        x->stack[x->depth] = r;
    else if (x->depth < STACK_MAX) {
        if (up_grow((void **)&x->stack, &x->scap, x->depth + 1, sizeof *x->stack))
            x->stack[x->depth] = r;
        else
            x->w.nomem = true;
    }
    x->depth++; /* deeper than STACK_MAX: counted, not remembered */
}

/* The channel of a message; NULL when out of memory. */
static chan *channel(ex *x, OTF2_CommRef comm, uint32_t tag, uint32_t src, uint32_t dst,
                     size_t *index)
{
    uint64_t k0 = (uint64_t)comm << 32 | tag, k1 = (uint64_t)src << 32 | dst;
    uint64_t *v = up_map_get(&x->chans, k0, k1);
    if (v) {
        *index = (size_t)*v;
        return &x->ch[*v];
    }
    if (!up_grow((void **)&x->ch, &x->chcap, x->nch + 1, sizeof *x->ch) ||
        !up_map_put(&x->chans, k0, k1, x->nch))
        return NULL;
    x->ch[x->nch].sent = x->ch[x->nch].received = 0;
    *index = x->nch;
    return &x->ch[x->nch++];
}

/* A send (recv = false) or receive: "s" or "f" with the message's flow id. */
static up_status message(ex *x, const up_event *e, bool recv, bool emit, uint32_t peer,
                         OTF2_CommRef comm, uint32_t tag, uint64_t bytes)
{
    uint32_t other;
    size_t idx;
    uint64_t k;
    chan *c;
    if (!up_defs_rank_loc(x->d, comm, peer, x->li, &other)) {
        if (emit)
            x->st->unresolved++;
        return UP_OK;
    }
    c = recv ? channel(x, comm, tag, other, x->li, &idx) : channel(x, comm, tag, x->li, other, &idx);
    if (!c)
        return UP_ERR(x->err, UP_ENOMEM, "out of memory (message channels)");
    k = recv ? c->received++ : c->sent++;
    if (!emit)
        return UP_OK;
    if (idx >= UINT32_MAX || k > UINT32_MAX) { /* no unique 64-bit id left */
        x->st->unresolved++;
        return UP_OK;
    }
    ev_open(x, recv ? 'f' : 's', e->time);
    jw_puts(&x->w, ",\"name\":\"" FLOW_NAME "\",\"cat\":\"" FLOW_CAT "\",\"id\":\"");
    jw_hex(&x->w, ((uint64_t)idx + 1) << 32 | k);
    jw_puts(&x->w, recv ? "\",\"bp\":\"e\",\"args\":{" : "\",\"args\":{");
    put_comm(x, comm);
    jw_puts(&x->w, recv ? ",\"from_location\":" : ",\"to_location\":");
    jw_u64(&x->w, x->d->locs[other].id);
    jw_puts(&x->w, ",\"tag\":");
    jw_u64(&x->w, tag);
    jw_puts(&x->w, ",\"bytes\":");
    jw_u64(&x->w, bytes);
    jw_puts(&x->w, "}}");
    if (recv)
        x->st->flow_ends++;
    else
        x->st->flow_starts++;
    return UP_OK;
}

/* An MPI call region encloses the collective: its "E" gets the args (the
 * first collective to end in it; more, e.g. in an MPI_Waitall, become
 * instants).  Otherwise an instant at once. */
static void collective_end(ex *x, uint64_t t, OTF2_CollectiveOp op, OTF2_CommRef comm,
                           uint32_t root, uint64_t sent, uint64_t received)
{
    const up_region_def *rg = NULL;
    coll c;
    c.t = t;
    c.op = op;
    c.comm = comm;
    c.root = root;
    c.sent = sent;
    c.received = received;
    c.depth = x->depth;
    if (x->depth && x->depth <= x->scap)
        rg = up_defs_region(x->d, x->stack[x->depth - 1]);
    if (x->pending || !rg || rg->paradigm != OTF2_PARADIGM_MPI) {
        write_coll_instant(x, &c);
        return;
    }
    x->pc = c;
    x->pending = true;
}

/* args of an instant: the record's fields, as OTF2 has them (ids, ticks) */
static void arg_u64(ex *x, bool *first, const char *name, uint64_t v)
{
    jw_puts(&x->w, *first ? "\"" : ",\"");
    jw_puts(&x->w, name);
    jw_puts(&x->w, "\":");
    jw_u64(&x->w, v);
    *first = false;
}

static void arg_i64(ex *x, bool *first, const char *name, int64_t v)
{
    jw_puts(&x->w, *first ? "\"" : ",\"");
    jw_puts(&x->w, name);
    jw_puts(&x->w, "\":");
    jw_i64(&x->w, v);
    *first = false;
}

static void write_instant(ex *x, const up_event *e)
{
    bool first = true;
    ev_open(x, 'i', e->time);
    jw_puts(&x->w, ",\"s\":\"t\",\"name\":\"");
    jw_puts(&x->w, up_ev_kind_name(e->kind));
    jw_puts(&x->w, "\",\"cat\":\"otf2\",\"args\":{");
#define AF_(t, n) _Generic((f->n), int64_t: arg_i64, default: arg_u64)(x, &first, #n, f->n);
#define AA_(t, n, c)
#define X(K)                                      \
    case UP_EV_##K: {                             \
        const struct up_evf_##K *f = &e->u.K;     \
        (void)f;                                  \
        UP_EVF_##K(AF_, AA_) break;               \
    }
    switch (e->kind) {
        UP_OTF2_EVENTS(X)
    default:
        break;
    }
#undef X
#undef AF_
#undef AA_
    jw_puts(&x->w, "}}");
    x->st->instants++;
}

/* One record of the current location; emit = inside the window. */
static up_status record(ex *x, const up_event *e, bool emit)
{
    switch (e->kind) {
    case UP_EV_Enter:
        if (emit)
            write_begin(x, e->time, e->u.Enter.region, false);
        push_region(x, e->u.Enter.region);
        return UP_OK;
    case UP_EV_Leave:
        if (emit)
            write_end(x, e->time, false);
        if (x->depth)
            x->depth--;
        return UP_OK;
    case UP_EV_MpiSend:
        return message(x, e, false, emit, e->u.MpiSend.receiver, e->u.MpiSend.communicator,
                       e->u.MpiSend.msgTag, e->u.MpiSend.msgLength);
    case UP_EV_MpiIsend:
        return message(x, e, false, emit, e->u.MpiIsend.receiver, e->u.MpiIsend.communicator,
                       e->u.MpiIsend.msgTag, e->u.MpiIsend.msgLength);
    case UP_EV_MpiRecv:
        return message(x, e, true, emit, e->u.MpiRecv.sender, e->u.MpiRecv.communicator,
                       e->u.MpiRecv.msgTag, e->u.MpiRecv.msgLength);
    case UP_EV_MpiIrecv:
        return message(x, e, true, emit, e->u.MpiIrecv.sender, e->u.MpiIrecv.communicator,
                       e->u.MpiIrecv.msgTag, e->u.MpiIrecv.msgLength);
    case UP_EV_MpiCollectiveBegin:
        return UP_OK;
    case UP_EV_MpiCollectiveEnd:
        if (emit)
            collective_end(x, e->time, e->u.MpiCollectiveEnd.collectiveOp,
                           e->u.MpiCollectiveEnd.communicator, e->u.MpiCollectiveEnd.root,
                           e->u.MpiCollectiveEnd.sizeSent, e->u.MpiCollectiveEnd.sizeReceived);
        return UP_OK;
    case UP_EV_NonBlockingCollectiveComplete:
        if (emit)
            collective_end(x, e->time, e->u.NonBlockingCollectiveComplete.collectiveOp,
                           e->u.NonBlockingCollectiveComplete.communicator,
                           e->u.NonBlockingCollectiveComplete.root,
                           e->u.NonBlockingCollectiveComplete.sizeSent,
                           e->u.NonBlockingCollectiveComplete.sizeReceived);
        return UP_OK;
    default:
        if (emit)
            write_instant(x, e);
        return UP_OK;
    }
}

/* window start: the regions open now begin at the window's start */
static void open_window(ex *x)
{
    size_t i, n = x->depth < x->scap ? x->depth : x->scap;
    for (i = 0; i < n; i++)
        write_begin(x, x->lo, x->stack[i], true);
    x->opened = true;
}

/* window end: every region still open ends at the window's end */
static void close_window(ex *x)
{
    size_t n = x->depth < x->scap ? x->depth : x->scap;
    x->depth = n;
    while (x->depth) {
        write_end(x, x->hi, true);
        x->depth--;
    }
    if (x->pending) {
        write_coll_instant(x, &x->pc);
        x->pending = false;
    }
}

static up_status export_location(ex *x, uint32_t li)
{
    up_stream *s = up_trace_stream(x->t, li);
    up_status st;
    x->li = li;
    x->depth = 0;
    x->last = x->origin;
    x->opened = !x->window;
    x->pending = false;
    for (;;) {
        up_event *e;
        if ((st = up_stream_peek(s, 0, &e, x->err)) != UP_OK)
            return st;
        if (!e)
            break;
        x->st->records++;
        if (x->window && e->time > x->hi) {
            if (!x->opened)
                open_window(x);
            close_window(x);
            up_stream_pop(s);
            break; /* the rest lies after the window */
        }
        if (!x->opened && e->time >= x->lo)
            open_window(x);
        if ((st = record(x, e, x->opened)) != UP_OK)
            return st;
        up_stream_pop(s);
        if (x->w.err_no || x->w.nomem)
            break;
    }
    if (x->pending) { /* the trace ends inside the region */
        write_coll_instant(x, &x->pc);
        x->pending = false;
    }
    return UP_OK;
}

/* ---- processes, threads, metadata ------------------------------------------ */

static bool selected(const up_export_opts *o, uint64_t id)
{
    size_t i;
    if (!o->locs)
        return true;
    for (i = 0; i < o->nlocs; i++)
        if (id >= o->locs[i].lo && id <= o->locs[i].hi)
            return true;
    return false;
}

static up_status assign_ids(ex *x)
{
    const up_defs *d = x->d;
    uint64_t maxrank = 0, maxpid = 0;
    bool anyrank = false;
    size_t i;
    if (!(x->pid = up_calloc(d->nlocs, sizeof *x->pid)) ||
        !(x->tid = up_calloc(d->nlocs, sizeof *x->tid)) ||
        !(x->prank = up_calloc(d->nlocs, sizeof *x->prank)))
        return UP_ERR(x->err, UP_ENOMEM, "out of memory");
    for (i = 0; i < d->nlocs; i++)
        if (d->locs[i].rank != UP_NO_RANK) {
            anyrank = true;
            if ((uint64_t)d->locs[i].rank > maxrank)
                maxrank = (uint64_t)d->locs[i].rank;
        }
    for (i = 0; i < d->nlocs; i++) {
        const up_loc_def *l = &d->locs[i];
        long rank = l->rank;
        size_t j;
        /* a stream or thread of a process is in the process's pid, the
         * process's rank when one of its locations has one */
        for (j = 0; rank == UP_NO_RANK && l->process != UP_NO_PROCESS && j < d->nlocs; j++)
            if (d->locs[j].process == l->process)
                rank = d->locs[j].rank;
        x->pid[i] = rank != UP_NO_RANK ? (uint64_t)rank + 1
                    : (anyrank ? maxrank + 2 : 1) +
                          (l->process != UP_NO_PROCESS ? (uint64_t)l->process
                                                       : (uint64_t)d->nprocs + (uint64_t)l->group);
        x->prank[i] = rank;
        if (x->pid[i] > maxpid)
            maxpid = x->pid[i];
    }
    for (i = 0; i < d->nlocs; i++) {
        if (!up_map_get(&x->procs, x->pid[i], 0)) {
            if (!up_map_put(&x->procs, x->pid[i], 0, i))
                return UP_ERR(x->err, UP_ENOMEM, "out of memory");
            x->tid[i] = x->pid[i];
        } else
            x->tid[i] = maxpid + 1 + i;
    }
    return UP_OK;
}

static void meta_head(ex *x, const char *name, uint32_t li)
{
    jw_puts(&x->w, x->first ? "\n{\"ph\":\"M\",\"name\":\"" : ",\n{\"ph\":\"M\",\"name\":\"");
    x->first = false;
    jw_puts(&x->w, name);
    jw_puts(&x->w, "\",\"pid\":");
    jw_u64(&x->w, x->pid[li]);
    jw_puts(&x->w, ",\"tid\":");
    jw_u64(&x->w, x->tid[li]);
    jw_puts(&x->w, ",\"args\":{");
    x->st->events++;
    x->st->metadata++;
}

static up_status write_metadata(ex *x, const up_export_opts *o)
{
    const up_defs *d = x->d;
    up_map named;
    size_t i;
    up_map_init(&named);
    for (i = 0; i < d->nlocs; i++) {
        const up_loc_def *l = &d->locs[i];
        uint32_t main = (uint32_t)i;
        char buf[96];
        if (!selected(o, l->id))
            continue;
        if (!up_map_get(&named, x->pid[i], 0)) {
            uint64_t *m = up_map_get(&x->procs, x->pid[i], 0);
            if (!up_map_put(&named, x->pid[i], 0, 1)) {
                up_map_free(&named);
                return UP_ERR(x->err, UP_ENOMEM, "out of memory");
            }
            if (m) /* named on its main thread: no thread of another process */
                main = (uint32_t)*m;
            if (x->prank[i] != UP_NO_RANK)
                snprintf(buf, sizeof buf, "\"rank %ld\"", x->prank[i]);
            else if (l->process != UP_NO_PROCESS)
                snprintf(buf, sizeof buf, "\"process %llu\"", (unsigned long long)l->process);
            else
                snprintf(buf, sizeof buf, "\"process %llu\"", (unsigned long long)l->group);
            meta_head(x, "process_name", main);
            jw_puts(&x->w, "\"name\":");
            jw_puts(&x->w, buf);
            jw_puts(&x->w, "}}");
            meta_head(x, "process_sort_index", main);
            jw_puts(&x->w, "\"sort_index\":");
            jw_u64(&x->w, x->pid[i]);
            jw_puts(&x->w, "}}");
        }
        meta_head(x, "thread_name", (uint32_t)i);
        jw_puts(&x->w, "\"name\":");
        {
            /* "<name> (location <id>)": the tid is not the OTF2 id; the
             * name cut when long (up_text_form) */
            size_t n = UP_NAME_BUF + 48;
            char *nm = up_malloc(n), *text = up_malloc(UP_NAME_BUF);
            if (!nm || !text) {
                up_free(nm);
                up_free(text);
                up_map_free(&named);
                return UP_ERR(x->err, UP_ENOMEM, "out of memory");
            }
            up_text_form(text, UP_NAME_BUF, l->name, UP_TEXT_UTF8);
            snprintf(nm, n, "%s%slocation %llu%s", text, *text ? " (" : "",
                     (unsigned long long)l->id, *text ? ")" : "");
            jw_str(&x->w, nm);
            up_free(nm);
            up_free(text);
        }
        jw_puts(&x->w, ",\"location\":");
        jw_u64(&x->w, l->id);
        jw_puts(&x->w, ",\"rank\":");
        if (l->rank != UP_NO_RANK)
            jw_i64(&x->w, l->rank);
        else
            jw_puts(&x->w, "null");
        jw_puts(&x->w, "}}");
        meta_head(x, "thread_sort_index", (uint32_t)i);
        jw_puts(&x->w, "\"sort_index\":");
        jw_u64(&x->w, i);
        jw_puts(&x->w, "}}");
        x->st->locations++;
    }
    up_map_free(&named);
    return UP_OK;
}

static void write_header(ex *x, const up_export_opts *o)
{
    const up_defs *d = x->d;
    char num[64];
    jw_puts(&x->w, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"unperturb export "
                   UP_VERSION "\",\"input\":");
    jw_str(&x->w, up_trace_anchor(x->t));
    jw_puts(&x->w, ",\"creator\":");
    jw_str(&x->w, d->creator ? d->creator : "");
    jw_puts(&x->w, ",\"resolution_ticks_per_s\":");
    jw_u64(&x->w, x->res);
    jw_puts(&x->w, ",\"origin_ticks\":");
    jw_u64(&x->w, x->origin);
    jw_puts(&x->w, ",\"ts_unit\":\"us from origin_ticks\"");
    if (o->window) {
        snprintf(num, sizeof num, "%.9g", o->start_s);
        jw_puts(&x->w, ",\"window_start_s\":");
        jw_puts(&x->w, num);
        if (isfinite(o->end_s)) {
            snprintf(num, sizeof num, "%.9g", o->end_s);
            jw_puts(&x->w, ",\"window_end_s\":");
            jw_puts(&x->w, num);
        }
    }
    jw_puts(&x->w, "},\"traceEvents\":[");
}

/* ticks of s seconds after the origin, saturating */
static uint64_t window_ticks(const ex *x, double s)
{
    long double v = (long double)s * (long double)x->res;
    if (!(v < 1.8e19L) || v + (long double)x->origin >= 1.8e19L)
        return UINT64_MAX;
    return x->origin + (uint64_t)(v + 0.5L); /* v may pass llroundl's long long */
}

up_status up_export_perfetto(up_trace *t, const char *path, const up_export_opts *o,
                             up_export_stats *st, up_err *err)
{
    ex x;
    up_status s = UP_OK;
    bool opened = false;
    size_t i, n;
    int k;

    memset(&x, 0, sizeof x);
    memset(st, 0, sizeof *st);
    up_map_init(&x.chans);
    up_map_init(&x.procs);
    x.t = t;
    x.d = up_trace_defs(t);
    x.st = st;
    x.err = err;
    x.first = true;
    x.res = x.d->resolution ? x.d->resolution : 1;
    x.origin = x.d->global_offset;
    for (x.dec = 0, x.dec_pow = 1; x.dec < 6 && 1000000u * x.dec_pow < x.res; x.dec++)
        x.dec_pow *= 10;
    st->origin = x.origin;
    st->resolution = x.res;

    /* options */
    if (o->window) {
        if (!(o->start_s >= 0) || !(o->end_s >= o->start_s))
            return UP_ERR(err, UP_EUSAGE, "bad window %g:%g (need 0 <= START <= END seconds)",
                          o->start_s, o->end_s);
        x.window = true;
        x.lo = window_ticks(&x, o->start_s);
        x.hi = isfinite(o->end_s) ? window_ticks(&x, o->end_s) : UINT64_MAX;
    }
    for (i = 0; o->locs && i < o->nlocs; i++) {
        size_t j;
        bool any = false;
        for (j = 0; j < x.d->nlocs && !any; j++)
            any = x.d->locs[j].id >= o->locs[i].lo && x.d->locs[j].id <= o->locs[i].hi;
        if (!any) {
            char r[64];
            uint64_t lo = UINT64_MAX, hi = 0;
            for (j = 0; j < x.d->nlocs; j++) {
                lo = x.d->locs[j].id < lo ? x.d->locs[j].id : lo;
                hi = x.d->locs[j].id > hi ? x.d->locs[j].id : hi;
            }
            if (o->locs[i].lo == o->locs[i].hi)
                snprintf(r, sizeof r, "location %llu", (unsigned long long)o->locs[i].lo);
            else
                snprintf(r, sizeof r, "location in %llu-%llu", (unsigned long long)o->locs[i].lo,
                         (unsigned long long)o->locs[i].hi);
            return UP_ERR(err, UP_EUSAGE,
                          "'%s' has no %s (its %zu location ids lie in %llu-%llu; otf2-print -G lists them)",
                          up_trace_anchor(t), r, x.d->nlocs, (unsigned long long)lo,
                          (unsigned long long)hi);
        }
    }
    if (!(x.w.buf = up_malloc(OUT_BUF)) ||
        !(x.rname = up_calloc(x.d->nregions ? x.d->nregions : 1, sizeof *x.rname)) ||
        !(x.cname = up_calloc(x.d->ncomms ? x.d->ncomms : 1, sizeof *x.cname))) {
        s = UP_ERR(err, UP_ENOMEM, "out of memory");
        goto done;
    }
    if ((s = assign_ids(&x)) != UP_OK)
        goto done;
    if (!(x.w.f = up_output_fopen(path))) {
        s = UP_ERR(err, UP_EIO, "cannot write '%s': %s", up_output_name(path), strerror(errno));
        goto done;
    }
    opened = true;

    write_header(&x, o);
    if ((s = write_metadata(&x, o)) != UP_OK)
        goto done;
    for (i = 0; i < x.d->nlocs && !x.w.err_no && !x.w.nomem; i++)
        if (selected(o, x.d->locs[i].id) && (s = export_location(&x, (uint32_t)i)) != UP_OK)
            goto done;
    if (x.w.nomem) {
        s = UP_ERR(err, UP_ENOMEM, "out of memory writing '%s'", up_output_name(path));
        goto done;
    }
    jw_puts(&x.w, "\n]}\n");
    jw_flush(&x.w);
    if (!x.w.err_no && fflush(x.w.f) != 0)
        x.w.err_no = errno ? errno : EIO;
    if (x.w.err_no) {
        s = UP_ERR(err, UP_EIO, "cannot write '%s': %s", up_output_name(path), strerror(x.w.err_no));
        goto done;
    }
    k = fclose(x.w.f);
    x.w.f = NULL;
    if (k != 0) {
        s = UP_ERR(err, UP_EIO, "cannot write '%s': %s", up_output_name(path), strerror(errno));
        goto done;
    }

done:
    if (x.w.f)
        fclose(x.w.f);
    if (s != UP_OK && opened)
        up_output_remove(path);
    if (x.rname)
        for (n = 0; n < x.d->nregions; n++)
            up_free(x.rname[n]);
    up_free(x.rname);
    if (x.cname)
        for (n = 0; n < x.d->ncomms; n++)
            up_free(x.cname[n]);
    up_free(x.cname);
    up_free(x.w.buf);
    up_free(x.pid);
    up_free(x.tid);
    up_free(x.prank);
    up_free(x.ch);
    up_free(x.stack);
    up_map_free(&x.chans);
    up_map_free(&x.procs);
    return s;
}
