/*
 * mutate.c - libFuzzer's custom mutator and cross-over for the targets that
 * take a container of OTF2 files (fuzz.h): "otf2" and "analysis".
 *
 * Place in the data flow: inside libFuzzer, between one input and the next
 * (not in the replay runner).  Plain byte mutations of a whole container
 * mostly break its lengths or the chunk header's record count, which the
 * reader's scan then refuses early.  So most mutations here work on one
 * member, or on one token of an OTF2 chunk (a record, a timestamp, an
 * attribute list) with its length and the chunk header's record numbers
 * kept right, or give a record an attribute list (a few entries, or about
 * as many as a list may hold, UP_SCAN_MAX_ATTRS, or more); the rest are
 * libFuzzer's own, on the whole input.
 * libFuzzer's LLVMFuzzerMutate does the byte work (with the dictionary and
 * the comparison operands it saw).
 */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include <otf2/OTF2_GeneralDefinitions.h>

#include "trace/scan.h"

typedef struct rng {
    uint64_t s;
} rng;

static unsigned rnd(rng *r, unsigned n)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return n ? (unsigned)(r->s % n) : 0;
}

static bool chunked(unsigned tag)
{
    unsigned k = fz_kind(tag);
    return k == FZ_GDEFS || k == FZ_LDEFS || k == FZ_EVENTS;
}

/* The members' storage while a mutation rebuilds them. */
typedef struct work {
    fz_member m[FZ_MAX_MEMBERS];
    size_t n;
    uint8_t *pool;   /* new member data goes here */
    size_t used, cap;
} work;

static uint8_t *pool_take(work *w, size_t n)
{
    uint8_t *p;
    if (n > w->cap - w->used)
        return NULL;
    p = w->pool + w->used;
    w->used += n;
    return p;
}

static size_t total(const work *w)
{
    size_t i, s = 0;
    for (i = 0; i < w->n; i++)
        s += FZ_HEAD + w->m[i].len;
    return s;
}

/* One member's bytes, mutated by libFuzzer. */
static bool mutate_member(work *w, rng *r, size_t max)
{
    fz_member *m;
    size_t room, cap;
    uint8_t *b;
    if (!w->n)
        return false;
    m = &w->m[rnd(r, (unsigned)w->n)];
    room = max > total(w) ? max - total(w) : 0;
    cap = m->len + room;
    if (cap > 1u << 20)
        cap = 1u << 20;
    if (cap < m->len + 1 || !(b = pool_take(w, cap)))
        return false;
    memcpy(b, m->data, m->len);
    m->len = LLVMFuzzerMutate(b, m->len, cap);
    m->data = b;
    return true;
}

static void put64(uint8_t *p, uint64_t v, bool big)
{
    unsigned i;
    for (i = 0; i < 8; i++)
        p[big ? 7 - i : i] = (uint8_t)(v >> (8 * i));
}

/* An OTF2 compressed number of at most `max` bytes: its byte count, then
 * its bytes (in the chunk's byte order). */
static size_t put_comp(uint8_t *p, uint64_t v, unsigned max, bool big)
{
    unsigned n = 0, i;
    while (n < max && (v >> (8 * n)))
        n++;
    p[0] = (uint8_t)n;
    for (i = 0; i < n; i++)
        p[1 + (big ? n - 1 - i : i)] = (uint8_t)(v >> (8 * i));
    return 1 + n;
}

/* An attribute-list token of n entries at p (room for 10 + 5 + 15 n bytes):
 * ids 0..n-1 (now and then one twice, which libotf2 refuses), types of
 * every size, values from the rng.  Returns its length. */
static size_t attr_list(uint8_t *p, unsigned n, rng *r, bool big)
{
    static const uint8_t types[] = {OTF2_TYPE_UINT8, OTF2_TYPE_INT16, OTF2_TYPE_UINT32,
                                    OTF2_TYPE_INT64, OTF2_TYPE_FLOAT, OTF2_TYPE_DOUBLE,
                                    OTF2_TYPE_STRING, OTF2_TYPE_LOCATION, OTF2_TYPE_REGION};
    uint8_t *q = p + 10;
    size_t len;
    unsigned i, j;
    p[0] = 0x06; /* the length is always the long form: ff, then 8 bytes */
    p[1] = 0xff;
    q += put_comp(q, n, 4, big);
    for (i = 0; i < n; i++) {
        uint8_t t = types[rnd(r, sizeof types)];
        uint64_t v = (uint64_t)rnd(r, ~0u) << 32 | rnd(r, ~0u);
        q += put_comp(q, rnd(r, 64) ? i : rnd(r, n), 4, big);
        *q++ = t;
        switch (t) {
        case OTF2_TYPE_UINT8: *q++ = (uint8_t)v; break;
        case OTF2_TYPE_INT16: *q++ = (uint8_t)v, *q++ = (uint8_t)(v >> 8); break;
        case OTF2_TYPE_FLOAT: for (j = 0; j < 4; j++) *q++ = (uint8_t)(v >> (8 * j)); break;
        case OTF2_TYPE_DOUBLE: for (j = 0; j < 8; j++) *q++ = (uint8_t)(v >> (8 * j)); break;
        case OTF2_TYPE_INT64: case OTF2_TYPE_LOCATION: q += put_comp(q, v, 8, big); break;
        default: q += put_comp(q, v & 0xffffffffu, 4, big); break;
        }
    }
    len = (size_t)(q - p - 10);
    for (j = 0; j < 8; j++)
        p[2 + (big ? 7 - j : j)] = (uint8_t)((uint64_t)len >> (8 * j));
    return (size_t)(q - p);
}

static uint64_t get64(const uint8_t *p, bool big)
{
    uint64_t v = 0;
    unsigned i;
    for (i = 0; i < 8; i++)
        v |= (uint64_t)p[big ? 7 - i : i] << (8 * i);
    return v;
}

/* The token-level mutations of one chunk member. */
static bool mutate_token(work *w, rng *r, size_t max)
{
    fz_tok t[1024];
    size_t idx[FZ_MAX_MEMBERS], nc = 0, i, nt, k, nrec;
    fz_member *m;
    uint8_t *out, tmp[300];
    const uint8_t *ins = NULL;
    size_t ins_len = 0, cut_from, cut_to, cap;
    bool events, big;
    unsigned op;

    for (i = 0; i < w->n; i++)
        if (chunked(w->m[i].tag) && w->m[i].len >= 18)
            idx[nc++] = i;
    if (!nc)
        return false;
    m = &w->m[idx[rnd(r, (unsigned)nc)]];
    events = fz_kind(m->tag) == FZ_EVENTS;
    big = m->data[1] == 0x23;
    nt = fz_tokens(m->data, m->len, events, t, 1024);
    if (nt < 2)
        return false;
    k = 1 + rnd(r, (unsigned)(nt - 1)); /* a token after the header */
    cut_from = cut_to = t[k].off;
    op = rnd(r, events ? 8 : 7);
    switch (op) {
    case 7: { /* an attribute list for a record that has none: a few entries,
               * or about as many as a list may hold (UP_SCAN_MAX_ATTRS), or
               * more */
        static const unsigned near[] = {UP_SCAN_MAX_ATTRS - 1, UP_SCAN_MAX_ATTRS, UP_SCAN_MAX_ATTRS + 1};
        unsigned how = rnd(r, 4), n;
        if (t[k].kind != FZ_TOK_RECORD || t[k - 1].kind == FZ_TOK_ATTRS)
            return false;
        n = how == 0 ? 1 + rnd(r, 8) : how == 1 ? near[rnd(r, 3)]
            : how == 2 ? 1 + rnd(r, 300) : 1 + rnd(r, 3 * UP_SCAN_MAX_ATTRS);
        if (!(out = pool_take(w, 15 + 15 * (size_t)n)))
            return false;
        ins = out;
        ins_len = attr_list(out, n, r, big);
        break;
    }
    case 0: /* delete it */
        cut_to = t[k].off + t[k].len;
        break;
    case 1: /* duplicate it */
        ins = m->data + t[k].off;
        ins_len = t[k].len;
        break;
    case 2: { /* copy a token of another chunk of the same kind before it */
        size_t j = idx[rnd(r, (unsigned)nc)], nt2;
        fz_tok t2[256];
        if (fz_kind(w->m[j].tag) != fz_kind(m->tag))
            return false;
        nt2 = fz_tokens(w->m[j].data, w->m[j].len, events, t2, 256);
        if (nt2 < 2)
            return false;
        i = 1 + rnd(r, (unsigned)(nt2 - 1));
        if (t2[i].kind == FZ_TOK_END || t2[i].kind == FZ_TOK_BAD)
            return false;
        ins = w->m[j].data + t2[i].off;
        ins_len = t2[i].len;
        break;
    }
    case 3: /* swap it with the next token */
        if (k + 1 >= nt || t[k].kind == FZ_TOK_END || t[k + 1].kind == FZ_TOK_END)
            return false;
        if (!(out = pool_take(w, t[k].len + t[k + 1].len)))
            return false;
        memcpy(out, m->data + t[k + 1].off, t[k + 1].len);
        memcpy(out + t[k + 1].len, m->data + t[k].off, t[k].len);
        ins = out;
        ins_len = t[k].len + t[k + 1].len;
        cut_to = t[k + 1].off + t[k + 1].len;
        break;
    default: /* change it: a record's payload or kind, a timestamp */
        if (t[k].kind == FZ_TOK_TIME) {
            uint64_t v = get64(m->data + t[k].off + 1, big);
            unsigned how = rnd(r, 4);
            v = how == 0 ? v + 1 + rnd(r, 1000) : how == 1 ? v - 1 - rnd(r, 1000)
                : how == 2 ? v ^ (1ull << rnd(r, 64)) : (uint64_t)rnd(r, 1u << 31) << 32 | rnd(r, ~0u);
            memcpy(tmp, m->data + t[k].off, 9);
            put64(tmp + 1, v, big);
            ins = tmp;
            ins_len = 9;
        } else if (t[k].kind == FZ_TOK_RECORD || t[k].kind == FZ_TOK_ATTRS) {
            size_t body = t[k].len - (t[k].body - t[k].off), nb;
            if (body > 254)
                return false;
            tmp[0] = m->data[t[k].off];
            if (op == 6 && t[k].kind == FZ_TOK_RECORD)
                tmp[0] = (uint8_t)(events ? 10 + rnd(r, 80) : 4 + rnd(r, 40));
            memcpy(tmp + 2, m->data + t[k].body, body);
            nb = LLVMFuzzerMutate(tmp + 2, body, 254);
            tmp[1] = (uint8_t)nb;
            ins = tmp;
            ins_len = nb + 2;
        } else {
            return false;
        }
        cut_to = t[k].off + t[k].len;
    }
    cap = m->len - (cut_to - cut_from) + ins_len;
    if (total(w) - m->len + cap > max || !(out = pool_take(w, cap)))
        return false;
    memcpy(out, m->data, cut_from);
    if (ins_len)
        memcpy(out + cut_from, ins, ins_len);
    memcpy(out + cut_from + ins_len, m->data + cut_to, m->len - cut_to);
    m->data = out;
    m->len = cap;
    /* an event chunk's header numbers its records: keep it right, mostly */
    if (events && rnd(r, 10)) {
        nt = fz_tokens(out, cap, true, t, 1024);
        for (nrec = 0, i = 1; i < nt; i++)
            nrec += t[i].kind == FZ_TOK_RECORD;
        if (nrec)
            put64(out + 10, get64(out + 2, big) + nrec - 1, big);
    }
    return true;
}

/* Members added, dropped, moved, renamed. */
static bool mutate_structure(work *w, rng *r)
{
    size_t i = w->n ? rnd(r, (unsigned)w->n) : 0, j;
    switch (rnd(r, 5)) {
    case 0: /* drop a member */
        if (!w->n)
            return false;
        memmove(w->m + i, w->m + i + 1, (w->n - i - 1) * sizeof *w->m);
        w->n--;
        return true;
    case 1: /* a copy of a member for another location */
        if (!w->n || w->n == FZ_MAX_MEMBERS)
            return false;
        w->m[w->n] = w->m[i];
        w->m[w->n].loc = rnd(r, 4);
        w->n++;
        return true;
    case 2: /* another location */
        if (!w->n)
            return false;
        w->m[i].loc = rnd(r, 8) ? rnd(r, 4) : rnd(r, 256);
        return true;
    case 3: /* starts the next chunk, or not */
        if (!w->n)
            return false;
        w->m[i].tag ^= FZ_CONT;
        return true;
    default: /* move a member */
        if (w->n < 2)
            return false;
        j = rnd(r, (unsigned)w->n);
        {
            fz_member t = w->m[i];
            w->m[i] = w->m[j];
            w->m[j] = t;
        }
        return true;
    }
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed)
{
    rng r = {seed * 0x9e3779b97f4a7c15ull + 1};
    work w;
    uint8_t *copy;
    size_t out = 0;
    bool ok = false;
    unsigned op = rnd(&r, 100);

    if (op < 20 || size == 0)
        return LLVMFuzzerMutate(data, size, max);
    if (!(copy = malloc(size)) || !(w.pool = malloc(w.cap = 2 * max + 4096))) {
        free(copy);
        return LLVMFuzzerMutate(data, size, max);
    }
    memcpy(copy, data, size);
    w.used = 0;
    w.n = fz_parse(copy, size, w.m, FZ_MAX_MEMBERS);
    if (op < 50)
        ok = mutate_member(&w, &r, max);
    else if (op < 90)
        ok = mutate_token(&w, &r, max);
    else
        ok = mutate_structure(&w, &r);
    if (ok)
        out = fz_serialize(w.m, w.n, data, max);
    free(copy);
    free(w.pool);
    return ok && out ? out : LLVMFuzzerMutate(data, size, max);
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2,
                                 uint8_t *out, size_t max, unsigned int seed)
{
    rng r = {seed * 0x9e3779b97f4a7c15ull + 7};
    fz_member a[FZ_MAX_MEMBERS], b[FZ_MAX_MEMBERS];
    size_t na = fz_parse(d1, s1, a, FZ_MAX_MEMBERS), nb = fz_parse(d2, s2, b, FZ_MAX_MEMBERS), i, j;
    uint8_t *tmp;
    size_t n = 0;
    if (!nb)
        return 0;
    j = rnd(&r, (unsigned)nb);
    /* a member of the second input replaces one of the same file in the
     * first, or joins it */
    for (i = 0; i < na; i++)
        if (fz_kind(a[i].tag) == fz_kind(b[j].tag) && a[i].loc == b[j].loc && rnd(&r, 2))
            break;
    if (i < na)
        a[i] = b[j];
    else if (na < FZ_MAX_MEMBERS)
        a[na++] = b[j];
    if (!(tmp = malloc(max ? max : 1)))
        return 0;
    n = fz_serialize(a, na, tmp, max);
    memcpy(out, tmp, n);
    free(tmp);
    return n;
}
