/*
 * fuzz_otf2.c - fuzz target "otf2": the OTF2 reading path.
 *
 * Place in the data flow: the input (a container, fuzz.h) becomes an archive
 * on disk; up_trace_open checks and reads its definitions; every stream is
 * read to its end, the locations in turn, with some lookahead; then the
 * archive is opened again and replayed once with the compensate model and
 * no output, its parameters and stalls lists taken from the archive as
 * `unperturb compensate` takes them.
 *
 * Beyond "no crash, no leak, no hang", the run checks what the reader
 * promises (src/trace/trace.h): each location's timestamps never
 * decrease and stay inside the clock range, and the replay sees every
 * record the streams delivered.  And it checks that libotf2 read what the
 * bytes say: the event files are walked here too, and each record's time
 * must be its timestamp token's, unless the reader repaired it (then it is
 * the time before, and the token ran backwards, past the clock range or
 * ahead of the next one).  libotf2 is not instrumented; a record it
 * misreads on bytes the reader's scan let through shows up here.
 */
#include "fuzz.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/compensate.h"
#include "run/pipeline.h"
#include "replay/replay.h"
#include "trace/trace.h"

/* A record as the bytes of its event file give it. */
typedef struct raw_rec {
    uint64_t t;      /* its timestamp token (0 before the first) */
    bool ahead;      /* that token is ahead of the next one */
} raw_rec;

typedef struct times {
    uint64_t *t;     /* delivered */
    size_t n, cap;
} times;

static uint64_t get64(const uint8_t *p, bool big)
{
    uint64_t v = 0;
    unsigned i;
    for (i = 0; i < 8; i++)
        v |= (uint64_t)p[big ? 7 - i : i] << (8 * i);
    return v;
}

/* Walks event file `path` (chunks of cs bytes) as libotf2 reads it and
 * fills out[] with the records libotf2 delivers (kinds 10 to 88; others it
 * skips as unknown); returns how many, at most cap. */
static size_t raw_records(const char *path, uint64_t cs, raw_rec *out, size_t cap)
{
    static uint8_t *buf;
    static fz_tok tok[4096];
    uint64_t toks[2] = {0, 0}; /* the current token's value, and whether seen */
    size_t n = 0, first_of_token = 0, k, nt, c;
    ssize_t got;
    int fd;
    if (!cs || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return 0;
    if (!buf && !(buf = up_malloc(16u << 20)))
        abort();
    for (c = 0;; c++) {
        bool big, more = false;
        if ((got = pread(fd, buf, cs, (off_t)(c * cs))) <= 0)
            break;
        big = buf[1] == 0x23;
        nt = fz_tokens(buf, (size_t)got, true, tok, 4096);
        if (nt < 2 || tok[0].kind != FZ_TOK_HEADER || nt == 4096)
            break;
        for (k = 1; k < nt; k++) {
            if (tok[k].kind == FZ_TOK_TIME) {
                uint64_t v = get64(buf + tok[k].off + 1, big);
                size_t r;
                if (toks[1]) /* the records of the token before: ahead of this one? */
                    for (r = first_of_token; r < n; r++)
                        out[r].ahead = toks[0] > v;
                toks[0] = v;
                toks[1] = 1;
                first_of_token = n;
            } else if (tok[k].kind == FZ_TOK_RECORD) {
                unsigned kind = buf[tok[k].off];
                if (kind < 10 || kind > 88)
                    continue;
                if (n == cap)
                    goto out;
                out[n].t = toks[0];
                out[n].ahead = false;
                n++;
            } else if (tok[k].kind == FZ_TOK_END) {
                more = buf[tok[k].off] == 0x00 && (uint64_t)got == cs;
                break;
            } else if (tok[k].kind == FZ_TOK_BAD) {
                break;
            }
        }
        if (!more)
            break;
    }
out:
    close(fd);
    return n;
}

/* Each delivered time is its record's token, or a repair (docs: the time
 * before, for a token that ran backwards, left the clock range or jumped
 * ahead). */
static void check_raw_times(up_trace *t, const times *tm, uint64_t cs, uint64_t hi)
{
    static raw_rec raw[1 << 16];
    const up_defs *d = up_trace_defs(t);
    size_t i, r, n;
    char path[600];
    if (d->n_clock_offsets) /* libotf2 moves the times */
        return;
    for (i = 0; i < d->nlocs; i++) {
        uint64_t prev = d->global_offset;
        snprintf(path, sizeof path, "%s/%llu.evt", fz_archive_files(), (unsigned long long)d->locs[i].id);
        n = raw_records(path, cs, raw, sizeof raw / sizeof *raw);
        for (r = 0; r < n && r < tm[i].n; r++) {
            uint64_t got = tm[i].t[r], want = raw[r].t;
            FZ_CHECK(got == want || (got == prev && (want < prev || want > hi || raw[r].ahead)),
                     "location %zu, record %zu: time %llu, its token says %llu (the time before: %llu)",
                     i, r + 1, (unsigned long long)got, (unsigned long long)want,
                     (unsigned long long)prev);
            prev = got;
        }
    }
}

/* Reads every stream to its end, a few records of each location in turn;
 * returns the records delivered, and their times in tm[location]. */
static uint64_t read_streams(up_trace *t, times *tm)
{
    const up_defs *d = up_trace_defs(t);
    uint64_t total = 0, *last;
    size_t i, open_n = d->nlocs;
    bool *done;
    uint64_t hi = d->trace_length && d->global_offset <= UINT64_MAX - d->trace_length
                      ? d->global_offset + d->trace_length
                      : UINT64_MAX;
    if (!d->nlocs)
        return 0;
    last = up_calloc(d->nlocs, sizeof *last);
    done = up_calloc(d->nlocs, sizeof *done);
    FZ_CHECK(last && done, "out of memory");
    for (i = 0; i < d->nlocs; i++)
        last[i] = d->global_offset;
    while (open_n) {
        for (i = 0; i < d->nlocs; i++) {
            up_stream *s = up_trace_stream(t, i);
            unsigned k;
            if (done[i])
                continue;
            for (k = 0; k < 3; k++) {
                up_event *ev = NULL, *ahead = NULL;
                uint64_t t_ahead = UINT64_MAX;
                up_err err = {0};
                uint64_t no = up_stream_records(s);
                /* lookahead now and then: the ring grows (past its 256
                 * slots too), records stay put */
                if ((no % 7 == 3 || no % 97 == 50) &&
                    up_stream_peek(s, no % 97 == 50 ? 300 : 4, &ahead, &err) != UP_OK) {
                    FZ_CHECK(err.msg[0], "an error without a message");
                    done[i] = true, open_n--;
                    break;
                }
                if (ahead) /* (valid until the next peek) */
                    t_ahead = ahead->time;
                if (up_stream_peek(s, 0, &ev, &err) != UP_OK) {
                    FZ_CHECK(err.msg[0], "an error without a message");
                    done[i] = true, open_n--;
                    break;
                }
                if (!ev) {
                    FZ_CHECK(up_stream_at_end(s), "no record, and not at the end");
                    done[i] = true, open_n--;
                    break;
                }
                FZ_CHECK(ev->kind < UP_EV_COUNT_, "record kind %u", ev->kind);
                FZ_CHECK(ev->time >= last[i], "location %zu: time %llu after %llu", i,
                         (unsigned long long)ev->time, (unsigned long long)last[i]);
                FZ_CHECK(ev->time <= hi, "location %zu: time %llu past the clock range's end %llu", i,
                         (unsigned long long)ev->time, (unsigned long long)hi);
                FZ_CHECK(t_ahead >= ev->time, "lookahead went back in time");
                last[i] = ev->time;
                if (tm[i].n < 1u << 16) {
                    FZ_CHECK(up_grow((void **)&tm[i].t, &tm[i].cap, tm[i].n + 1, sizeof *tm[i].t),
                             "out of memory");
                    tm[i].t[tm[i].n++] = ev->time;
                }
                up_stream_pop(s);
                FZ_CHECK(up_stream_records(s) == no + 1, "pop did not count");
                total++;
            }
        }
    }
    for (i = 0; i < d->nlocs; i++) {
        uint64_t fix[3];
        up_trace_time_repairs(t, i, fix);
    }
    up_free(last);
    up_free(done);
    return total;
}

/* The command's damage hook: each entry as the user would see it. */
static void on_damage(void *ctx, const up_trace *t, const up_damage *d)
{
    char line[1024];
    (void)ctx;
    FZ_CHECK(d->file && d->what && d->what[0], "a damage entry without file or text");
    up_damage_line(t, d, line, sizeof line);
    FZ_CHECK(line[0], "an empty damage line");
}

static void describe_damage(up_trace *t)
{
    size_t i;
    char line[1024];
    for (i = 0; i < up_trace_ndamage(t); i++) {
        const up_damage *dm = up_trace_damage(t, i);
        FZ_CHECK(dm->file && dm->what && dm->what[0], "damage entry %zu without file or text", i);
        FZ_CHECK(dm->loc >= -1 && (dm->loc < 0 || (size_t)dm->loc < up_trace_defs(t)->nlocs),
                 "damage of location index %ld", dm->loc);
        up_damage_line(t, dm, line, sizeof line);
        FZ_CHECK(line[0], "an empty damage line");
    }
}

/* The replay `unperturb compensate` runs, without output. */
static void replay(const char *anchor, unsigned opt, uint64_t delivered)
{
    static const double ovh_ns[4] = {0, 1, 150, 1e6};
    up_trace *t = NULL;
    up_comp *m = NULL;
    up_comp_params p;
    up_replay_result res;
    up_err err = {0};
    char source[256];
    if (up_trace_open(anchor, &t, &err) != UP_OK)
        return; /* it opened a moment ago: only out of memory can tell them apart */
    if (up_run_params(t, NULL, NULL, &p, source, &err) != UP_OK) {
        FZ_CHECK(err.msg[0], "an error without a message");
        up_comp_params_init(&p);
    }
    if (!p.overhead_set)
        up_comp_params_set_overhead(&p, ovh_ns[(opt / 6) % 4]);
    p.archive_stalls = true; /* the container's stall lists (fz_archive_files) */
    p.mode = (up_mode)(opt % 3);
    p.collective = (opt / 3) % 2 ? UP_COLLECTIVE_SHARED : UP_COLLECTIVE_INDIVIDUAL;
    p.wildcard = (up_wildcard)((opt / 24) % 3);
    if ((opt / 72) % 2)
        p.latency_ns = 1000, p.ns_per_byte = 0.5, p.per_hop_ns = 50, p.network_set = true;
    up_comp_params_resolve(&p);
    if (up_comp_new(&p, t, &m, &err) == UP_OK) {
        if (up_replay_run(t, NULL, up_comp_ops(), m, NULL, &res, &err) == UP_OK) {
            FZ_CHECK(res.events == delivered, "the replay saw %llu records, the streams delivered %llu",
                     (unsigned long long)res.events, (unsigned long long)delivered);
            FZ_CHECK(res.nlocs == up_trace_defs(t)->nlocs, "results of %zu locations", res.nlocs);
            up_replay_result_free(&res);
        } else {
            FZ_CHECK(err.msg[0], "an error without a message");
        }
        up_comp_free(m);
    } else {
        FZ_CHECK(err.msg[0], "an error without a message");
    }
    up_trace_close(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_member m[FZ_MAX_MEMBERS];
    size_t n = fz_parse(data, size, m, FZ_MAX_MEMBERS);
    const char *anchor = fz_archive_write(m, n);
    up_trace *t = NULL;
    up_err err = {0};
    uint64_t delivered, cs[2], hi;
    const up_defs *d;
    times *tm;
    size_t i;
    char *v;

    up_trace_set_damage_hook(on_damage, NULL);
    if (up_trace_open(anchor, &t, &err) != UP_OK) {
        FZ_CHECK(err.msg[0], "an error without a message");
        FZ_CHECK(err.status == UP_EFORMAT || err.status == UP_EIO || err.status == UP_EOTF2,
                 "status %d opening: %s", (int)err.status, err.msg);
        fz_archive_clear();
        return 0;
    }
    if ((v = up_trace_property(t, "UNPERTURB::CALIBRATION")))
        up_free(v);
    d = up_trace_defs(t);
    tm = up_calloc(d->nlocs ? d->nlocs : 1, sizeof *tm);
    FZ_CHECK(tm != NULL, "out of memory");
    delivered = read_streams(t, tm);
    describe_damage(t);
    fz_chunk_sizes(m, n, cs);
    hi = d->trace_length && d->global_offset <= UINT64_MAX - d->trace_length
             ? d->global_offset + d->trace_length
             : UINT64_MAX;
    check_raw_times(t, tm, cs[0], hi);
    for (i = 0; i < d->nlocs; i++)
        up_free(tm[i].t);
    up_free(tm);
    up_trace_close(t);
    replay(anchor, fz_options(m, n), delivered);
    fz_archive_clear();
    return 0;
}
