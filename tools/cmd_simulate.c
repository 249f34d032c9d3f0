/*
 * cmd_simulate.c - `unperturb simulate`: trace-driven extrapolation
 * (speedy-performance-extrapolation.md Sections 3-4; docs/simulate.md).
 *
 * One trace: one simulation on the machine model (machine.h, simulate.h),
 * a summary, and with -o the predicted OTF2 archive.  One trace and one or
 * two --sweep: a simulation per value (per pair), a table, sweep.csv,
 * sweep.json and time.svg.  Several traces (runs at different rank counts):
 * the speedup table, scaling.csv, scaling.json, time.svg and speedup.svg,
 * with one --sweep a series per value (speedy's Fig. 7).  Every output
 * folder gets experiment.ini, which `--experiment FILE` runs again.
 *
 * The [experiment] section is read here, line by line (paths can be longer
 * than inih's 200-byte lines and may hold " ;"); the machine sections of the
 * same file go to up_machine_parse with the [experiment] lines blanked, so
 * its errors keep the file's line numbers.
 */
#include <errno.h>
#include <getopt.h>
#include <ini.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "report/plot.h"
#include "report/report.h"
#include "model/simulate.h"

#define MAX_SETS 64
#define MAX_INPUTS 256
#define MAX_SWEEP_POINTS 1000
#define MAX_SIMS 10000 /* simulations of one experiment (grid, scaling x sweep) */

static const char usage_text[] =
    "usage: unperturb simulate TRACE... [options]\n"
    "       unperturb simulate --experiment FILE [-o DIR] [--json FILE] [-f] [-q]\n"
    "\n"
    "Predicts the run of a traced MPI program on another machine: replays the\n"
    "trace on a machine model (docs/simulate.md; parameters: docs/machine.md).\n"
    "TRACE is an anchor file (traces.otf2) or the experiment folder holding it.\n"
    "  one TRACE            predicted time and per-location ends; with -o DIR also\n"
    "                       the predicted OTF2 archive DIR/traces.otf2\n"
    "  one TRACE, --sweep   a simulation per value, per pair with two (needs -o)\n"
    "  several TRACEs       runs at different rank counts: speedups (needs -o);\n"
    "                       with one --sweep, a series per value\n"
    "\n"
    "      --machine FILE         the target machine (INI); default: built-in defaults\n"
    "      --set KEY=VALUE        change one parameter after --machine; repeatable,\n"
    "                             applied in order\n"
    "      --sweep KEY=FROM:TO:STEP\n"
    "                             step a numeric parameter (at most 1000 values);\n"
    "                             at most two, the first varies slowest\n"
    "      --calibration FILE     tracer overheads to remove from wall-time compute\n"
    "                             intervals (docs/calibration.md); default: those\n"
    "                             the unperturb tracer stored in the archive\n"
    "      --experiment FILE      run a saved experiment.ini again (its inputs, sweeps,\n"
    "                             machine); -o, --json, -f, -q may be added\n"
    "      --json FILE            also write the results as JSON\n"
    "  -o, --output DIR           output folder (must not exist, see --force)\n"
    "  -f, --force                replace DIR and the --json file if they exist\n"
    "  -q, --quiet                print nothing on success\n"
    "  -h, --help                 this text\n";

typedef struct sweep {
    const char *spec;  /* as given, for messages */
    char key[64];      /* as given (may hold a section) */
    const char *name;  /* the key without a section: columns, labels */
    double from, to, step;
    size_t n;
    double v[MAX_SWEEP_POINTS];
} sweep;

/* One experiment: from the command line or an experiment file. */
typedef struct job {
    const char *inputs[MAX_INPUTS];
    size_t ninputs;
    const char *machine_file;
    const char *sets[MAX_SETS];
    size_t nsets;
    const char *sweep_args[2];
    int sweep_lines[2];         /* line in the experiment file, 0: command line */
    size_t nsw;
    sweep sw[2];
    const char *calib, *out, *json;
    const char *experiment;     /* the file being run again, or NULL */
    bool force, quiet;
    up_outset *os;              /* the outputs: -o (o_dir), --json (o_json) */
    size_t o_dir, o_json;
    up_machine m;
    /* strings owned by the job (read from the experiment file) */
    char **pool;
    size_t npool, cappool;
} job;

/* The machine model as the key/value list up_machine_write gives. */
typedef struct kv {
    char key[64], val[128];
} kv;

typedef struct kvs {
    kv *a;
    size_t n, cap;
    char *text;        /* what up_machine_write wrote */
} kvs;

static int usage_fail(const char *fmt, const char *arg) { return cmd_usage("simulate", fmt, arg); }
static int fail(int status, const char *msg) { return cmd_fail("simulate", status, msg); }

static char *pool_add(job *j, char *s)
{
    if (!s)
        return NULL;
    if (!up_grow((void **)&j->pool, &j->cappool, j->npool + 1, sizeof *j->pool)) {
        free(s);
        return NULL;
    }
    return j->pool[j->npool++] = s;
}

static void job_free(job *j)
{
    size_t i;
    for (i = 0; i < j->npool; i++)
        free(j->pool[i]);
    up_free(j->pool);
}

/* ---- small helpers ---------------------------------------------------------- */

static bool parse_num(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return end != s && !*end && !errno && isfinite(*v);
}

/* The shortest %g that reads back as the same double. */
static void fmt_exact(char *buf, size_t cap, double v)
{
    int prec;
    for (prec = 6; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* The name of a key without its section ("network.latency_ns"). */
static const char *key_name(const char *key)
{
    const char *dot = strrchr(key, '.');
    return dot ? dot + 1 : key;
}

/* `path` made absolute without resolving it (it may not exist yet). */
static char *abs_path(const char *path)
{
    char cwd[PATH_MAX], *s;
    size_t n;
    if (path[0] == '/')
        s = strdup(path);
    else {
        if (!getcwd(cwd, sizeof cwd))
            return NULL;
        n = strlen(cwd) + strlen(path) + 2;
        if (!(s = malloc(n)))
            return NULL;
        snprintf(s, n, "%s/%s", cwd, path);
    }
    if (s)
        for (n = strlen(s); n > 1 && s[n - 1] == '/'; n--)
            s[n - 1] = 0;
    return s;
}

/* A text written into memory, then to a file. */
typedef struct membuf {
    char *buf;
    size_t len;
    FILE *f;
} membuf;

static FILE *mem_open(membuf *mb)
{
    mb->buf = NULL, mb->len = 0;
    return mb->f = open_memstream(&mb->buf, &mb->len);
}

/* Closes the stream and writes it to dir/name (dir NULL: name). */
static up_status mem_write(membuf *mb, const char *dir, const char *name, bool ok, up_err *err)
{
    char path[PATH_MAX + 64];
    up_status st;
    if (dir)
        snprintf(path, sizeof path, "%s/%s", dir, name);
    else
        snprintf(path, sizeof path, "%s", name);
    if (!mb->f) {
        st = UP_ERR(err, UP_ENOMEM, "out of memory writing '%s'", up_output_name(path));
    } else if (fclose(mb->f) != 0 || !ok) {
        st = UP_ERR(err, UP_EIO, "cannot write '%s'", up_output_name(path));
    } else {
        st = up_write_file(path, mb->buf, mb->len, err);
    }
    mb->f = NULL;
    free(mb->buf);
    mb->buf = NULL;
    return st;
}

static void csv_str(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* A number for JSON: null unless finite (json_real refuses NaN). */
static json_t *jnum(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* A trace's string for JSON: bytes that are not UTF-8 become '?'. */
static json_t *jstr(const char *s)
{
    json_t *v;
    char *c;
    size_t i;
    if (!s)
        return json_null();
    if ((v = json_string(s)) || !(c = strdup(s)))
        return v;
    for (i = 0; c[i]; i++)
        if ((unsigned char)c[i] >= 0x80 || (unsigned char)c[i] < 0x20)
            c[i] = '?';
    v = json_string(c);
    free(c);
    return v;
}

static bool stderr_tty(const job *j) { return !j->quiet && isatty(2); }

/* ---- the machine model as keys and values ------------------------------------ */

static int on_machine_kv(void *user, const char *section, const char *name, const char *value)
{
    kvs *k = user;
    (void)section;
    if (!up_grow((void **)&k->a, &k->cap, k->n + 1, sizeof *k->a))
        return 0;
    snprintf(k->a[k->n].key, sizeof k->a[k->n].key, "%s", name);
    snprintf(k->a[k->n].val, sizeof k->a[k->n].val, "%s", value);
    k->n++;
    return 1;
}

static up_status machine_kvs(const up_machine *m, kvs *k, up_err *err)
{
    membuf mb;
    FILE *f = mem_open(&mb);
    int rc;
    memset(k, 0, sizeof *k);
    if (!f)
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    rc = up_machine_write(f, m);
    if (fclose(f) != 0 || rc != 0) {
        free(mb.buf);
        return UP_ERR(err, UP_EINTERNAL, "cannot write the machine model out (up_machine_write)");
    }
    k->text = mb.buf;
    if (ini_parse_string(k->text, on_machine_kv, k) != 0)
        return UP_ERR(err, UP_EINTERNAL, "the machine model written by up_machine_write does not read back");
    return UP_OK;
}

static void kvs_free(kvs *k)
{
    up_free(k->a);
    free(k->text);
    memset(k, 0, sizeof *k);
}

static const char *kv_get(const kvs *k, const char *key)
{
    size_t i;
    for (i = 0; i < k->n; i++)
        if (!strcmp(k->a[i].key, key))
            return k->a[i].val;
    return NULL;
}

/* {"key": value, ...}: numbers as numbers, yes/no as booleans. */
static json_t *kvs_json(const kvs *k)
{
    json_t *o = json_object();
    size_t i;
    for (i = 0; o && i < k->n; i++) {
        const char *v = k->a[i].val;
        double d;
        json_t *x;
        char *end;
        long long ll;
        errno = 0;
        ll = strtoll(v, &end, 10);
        if (end != v && !*end && !errno)
            x = json_integer(ll);
        else if (parse_num(v, &d))
            x = json_real(d);
        else if (!strcmp(v, "yes") || !strcmp(v, "true"))
            x = json_true();
        else if (!strcmp(v, "no") || !strcmp(v, "false"))
            x = json_false();
        else
            x = jstr(v);
        json_object_set_new(o, k->a[i].key, x);
    }
    return o;
}

/* "key=value key=value" for the keys present, in order. */
static void kv_line(FILE *f, const kvs *k, const char *const *keys)
{
    bool any = false;
    for (; *keys; keys++) {
        const char *v = kv_get(k, *keys);
        if (v) {
            fprintf(f, "%s%s=%s", any ? " " : "", *keys, v);
            any = true;
        }
    }
}

static void print_machine(FILE *f, const job *j, const kvs *k)
{
    static const char *const proc[] = {"cpu_ratio", "compute", "progress", NULL};
    static const char *const net[] = {"latency_ns", "ns_per_byte", "per_hop_ns", "send_overhead_ns",
                                      "recv_overhead_ns", "eager_limit", NULL};
    static const char *const place[] = {"topology", "ranks_per_node", "placement", "node_latency_ns",
                                        "contention", NULL};
    static const char *const coll[] = {"barrier", "bcast", "allreduce", "alltoall", NULL};
    size_t i;
    fprintf(f, "  machine      ");
    if (j->experiment)
        fprintf(f, "from the experiment %s", j->experiment);
    else if (j->machine_file)
        fprintf(f, "%s", j->machine_file);
    else
        fprintf(f, "the defaults (no --machine)");
    for (i = 0; i < j->nsets; i++)
        fprintf(f, "%s --set %s", i ? "," : (j->machine_file ? ", then" : "; then"), j->sets[i]);
    fprintf(f, "\n  processor    ");
    kv_line(f, k, proc);
    fprintf(f, "\n  network      ");
    kv_line(f, k, net);
    fprintf(f, "\n  nodes        ");
    kv_line(f, k, place);
    fprintf(f, "\n  collectives  ");
    kv_line(f, k, coll);
    fprintf(f, " (all parameters: --json, experiment.ini)\n");
}

/* ---- sweeps ------------------------------------------------------------------- */

/* KEY=FROM:TO:STEP; every value is tried on a copy of the machine. */
static bool parse_sweep(const char *arg, const up_machine *m, sweep *s, char *msg, size_t cap)
{
    const char *eq = strchr(arg, '=');
    char *c1, *c2, buf[192];
    double tol, q;
    size_t k, n;
    up_machine t;
    up_err err = {0};

    memset(s, 0, sizeof *s);
    s->spec = arg;
    if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof s->key) {
        snprintf(msg, cap, "--sweep '%s': expected KEY=FROM:TO:STEP, e.g. latency_ns=1000:10000:1000", arg);
        return false;
    }
    memcpy(s->key, arg, (size_t)(eq - arg));
    s->key[eq - arg] = 0;
    s->name = key_name(s->key);
    snprintf(buf, sizeof buf, "%s", eq + 1);
    if (!(c1 = strchr(buf, ':')) || !(c2 = strchr(c1 + 1, ':')) || strchr(c2 + 1, ':')) {
        snprintf(msg, cap, "--sweep '%s': expected KEY=FROM:TO:STEP (three numbers separated by ':')", arg);
        return false;
    }
    *c1 = *c2 = 0;
    if (!parse_num(buf, &s->from) || !parse_num(c1 + 1, &s->to) || !parse_num(c2 + 1, &s->step)) {
        snprintf(msg, cap, "--sweep '%s': FROM, TO and STEP must be finite numbers", arg);
        return false;
    }
    if (!up_machine_is_numeric(s->key)) {
        snprintf(msg, cap, "--sweep '%s': '%s' is not a numeric machine parameter (docs/machine.md lists "
                 "them; names, booleans and dims cannot be swept)", arg, s->key);
        return false;
    }
    if (!(s->step > 0)) {
        snprintf(msg, cap, "--sweep '%s': STEP must be greater than 0", arg);
        return false;
    }
    if (s->from > s->to) {
        snprintf(msg, cap, "--sweep '%s': FROM is greater than TO", arg);
        return false;
    }
    /* value k is FROM + k*STEP (no accumulation); TO counts within 1e-9
     * (of a STEP no longer than the range: FROM stays FROM) */
    tol = 1e-9 * fmax(fabs(s->to), fmin(s->step, s->to - s->from));
    q = (s->to - s->from) / s->step;
    if (!(q < MAX_SWEEP_POINTS + 1.0)) {
        snprintf(msg, cap, "--sweep '%s': more than 1000 values", arg);
        return false;
    }
    for (n = 0, k = 0;; k++) {
        double v = s->from + (double)k * s->step;
        if (v > s->to + tol)
            break;
        if (fabs(v - s->to) <= tol)
            v = s->to;
        if (n == MAX_SWEEP_POINTS) {
            snprintf(msg, cap, "--sweep '%s': more than 1000 values", arg);
            return false;
        }
        s->v[n++] = v;
    }
    s->n = n;
    for (k = 0; k < n; k++) {
        t = *m;
        if (up_machine_set_num(&t, s->key, s->v[k], &err) != UP_OK) {
            snprintf(msg, cap, "--sweep '%.100s': %.500s", arg, err.msg);
            return false;
        }
    }
    return true;
}

static void sweep_label(char *buf, size_t cap, const sweep *s, double v)
{
    snprintf(buf, cap, "%s = %.12g", s->name, v);
}

/* ---- running one simulation ---------------------------------------------------- */

typedef struct point {
    double measured_s, predicted_s;
    long nranks;
    size_t nlocs;
    bool cpu_time;
} point;

static up_status simulate_one(const job *j, const char *input, const up_machine *m, point *p,
                              up_err *err)
{
    up_sim_run_opts o = {input, m, j->calib, NULL, true};
    up_sim_summary s;
    up_status st;
    memset(&s, 0, sizeof s);
    st = up_sim_run(&o, &s, err);
    if (st == UP_OK) {
        p->measured_s = s.measured_s;
        p->predicted_s = s.predicted_s;
        p->nranks = s.nranks > 0 ? s.nranks : (long)s.res.nlocs;
        p->nlocs = s.res.nlocs;
        p->cpu_time = s.cpu_time;
    }
    up_sim_summary_free(&s);
    return st;
}

/* A machine with the sweep values of point (a, b) set. */
static up_status machine_at(const job *j, size_t a, size_t b, up_machine *m, up_err *err)
{
    *m = j->m;
    if (j->nsw > 0 && up_machine_set_num(m, j->sw[0].key, j->sw[0].v[a], err) != UP_OK)
        return err->status;
    if (j->nsw > 1 && up_machine_set_num(m, j->sw[1].key, j->sw[1].v[b], err) != UP_OK)
        return err->status;
    return UP_OK;
}

/* ---- the experiment file ------------------------------------------------------ */

static bool recordable(const char *s)
{
    size_t n = strlen(s);
    return n && !strpbrk(s, "\n\r") && s[0] != ' ' && s[0] != '\t' && s[n - 1] != ' ' &&
           s[n - 1] != '\t';
}

/* One line, control characters as spaces (for comments). */
static void put_comment_text(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
}

static up_status write_experiment(const job *j, const char *dir, const kvs *mk, up_err *err)
{
    membuf mb;
    FILE *f = mem_open(&mb);
    char when[64], num[3][40], rp[PATH_MAX], *p;
    time_t now = time(NULL);
    struct tm tmv;
    size_t i;
    bool ok = true;

    if (!f)
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tmv));
    fprintf(f, "# unperturb simulate: an experiment (docs/simulate.md). Run it again with\n"
               "#   unperturb simulate --experiment experiment.ini -o NEWDIR [--force]\n"
               "# [experiment] names the inputs and sweeps; the other sections are the\n"
               "# whole machine model (docs/machine.md).\n\n[experiment]\n");
    fprintf(f, "created_by = unperturb %s\ncreated = %s\n", UP_VERSION, when);
    for (i = 0; i < j->ninputs; i++) {
        if (!realpath(j->inputs[i], rp))
            snprintf(rp, sizeof rp, "%s", j->inputs[i]);
        fprintf(f, "input = %s\n", rp);
    }
    for (i = 0; i < j->nsw; i++) {
        fmt_exact(num[0], sizeof num[0], j->sw[i].from);
        fmt_exact(num[1], sizeof num[1], j->sw[i].to);
        fmt_exact(num[2], sizeof num[2], j->sw[i].step);
        fprintf(f, "sweep = %s=%s:%s:%s\n", j->sw[i].key, num[0], num[1], num[2]);
    }
    if (j->out && (p = abs_path(j->out))) {
        fprintf(f, "output = %s\n", p);
        free(p);
    }
    if (j->json && (p = abs_path(j->json))) {
        fprintf(f, "json = %s\n", p);
        free(p);
    }
    if (j->calib) {
        if (!realpath(j->calib, rp))
            snprintf(rp, sizeof rp, "%s", j->calib);
        fprintf(f, "calibration = %s\n", rp);
    }
    fprintf(f, "# machine: ");
    if (j->experiment)
        fprintf(f, "from the experiment "), put_comment_text(f, j->experiment);
    else if (j->machine_file)
        put_comment_text(f, j->machine_file);
    else
        fprintf(f, "the defaults");
    for (i = 0; i < j->nsets; i++)
        fprintf(f, ", --set "), put_comment_text(f, j->sets[i]);
    fprintf(f, "\n\n%s", mk->text);
    if (ferror(f))
        ok = false;
    return mem_write(&mb, dir, "experiment.ini", ok, err);
}

/* The paths an experiment file records must survive its line format. */
static up_status check_recordable(const job *j, up_err *err)
{
    const char *what[MAX_INPUTS + 3];
    size_t i, n = 0;
    for (i = 0; i < j->ninputs; i++)
        what[n++] = j->inputs[i];
    if (j->out)
        what[n++] = j->out;
    if (j->json)
        what[n++] = j->json;
    if (j->calib)
        what[n++] = j->calib;
    for (i = 0; i < n; i++)
        if (!recordable(what[i]))
            return UP_ERR(err, UP_EUSAGE,
                          "'%s' cannot be recorded in experiment.ini: it starts or ends with white "
                          "space or holds a line break", what[i]);
    return UP_OK;
}

static char *trim(char *s)
{
    char *e;
    while (*s == ' ' || *s == '\t' || *s == '\r')
        s++;
    e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        *--e = 0;
    return s;
}

/* A path of the experiment file: relative ones are relative to its folder. */
static char *exp_path(const char *file, const char *v)
{
    const char *slash = strrchr(file, '/');
    char *s;
    size_t n;
    if (v[0] == '/' || !slash)
        return strdup(v);
    n = (size_t)(slash - file) + strlen(v) + 2;
    if ((s = malloc(n)))
        snprintf(s, n, "%.*s/%s", (int)(slash - file), file, v);
    return s;
}

/* Reads FILE into the job: [experiment] here, the rest as the machine. */
static up_status load_experiment(job *j, const char *path, up_err *err)
{
    char *text = NULL, *mtext = NULL, *line, *next;
    const char *out = NULL, *json = NULL, *calib = NULL;
    bool in_exp = false, seen_exp = false;
    int lineno = 0;
    up_status st = UP_OK;

    if ((st = up_text_file_read(path, "experiment file", UP_TEXT_FILE_MAX, &text, NULL, err)) != UP_OK)
        return st;
    if (!(mtext = up_strdup(text))) {
        up_free(text);
        return UP_ERR(err, UP_ENOMEM, "out of memory");
    }
    for (line = text; line && *line; line = next) {
        char *mline = mtext + (line - text), *s, *eq, *key, *val;
        size_t len;
        next = strchr(line, '\n');
        len = next ? (size_t)(next - line) : strlen(line);
        if (next)
            *next++ = 0;
        lineno++;
        s = trim(line);
        if (*s == '[') {
            char *close = strchr(s, ']');
            if (close) {
                *close = 0;
                in_exp = !strcmp(trim(s + 1), "experiment");
                seen_exp |= in_exp;
            } else
                in_exp = false;
        }
        if (!in_exp)
            continue;
        memset(mline, ' ', len); /* not the machine's: a blank line for inih */
        if (!*s || *s == '#' || *s == ';' || *s == '[' || *s == 0)
            continue;
        if (!(eq = strchr(s, '='))) {
            st = UP_ERR(err, UP_EFORMAT, "%s:%d: expected 'key = value' in [experiment]", up_esc(path), lineno);
            goto out;
        }
        *eq = 0;
        key = trim(s);
        val = trim(eq + 1);
        if (!strcmp(key, "created") || !strcmp(key, "created_by"))
            continue;
        if (!*val) {
            st = UP_ERR(err, UP_EFORMAT, "%s:%d: '%s' has no value", up_esc(path), lineno, up_esc(key));
            goto out;
        }
        if (!strcmp(key, "input")) {
            if (j->ninputs == MAX_INPUTS) {
                st = UP_ERR(err, UP_EFORMAT, "%s:%d: more than %d inputs", up_esc(path), lineno, MAX_INPUTS);
                goto out;
            }
            if (!(j->inputs[j->ninputs++] = pool_add(j, exp_path(path, val))))
                goto nomem;
        } else if (!strcmp(key, "sweep")) {
            if (j->nsw == 2) {
                st = UP_ERR(err, UP_EFORMAT, "%s:%d: a third sweep (at most two)", up_esc(path), lineno);
                goto out;
            }
            j->sweep_lines[j->nsw] = lineno;
            if (!(j->sweep_args[j->nsw++] = pool_add(j, strdup(val))))
                goto nomem;
        } else if (!strcmp(key, "output") || !strcmp(key, "json") || !strcmp(key, "calibration")) {
            const char **dst = key[0] == 'o' ? &out : key[0] == 'j' ? &json : &calib;
            if (*dst) {
                st = UP_ERR(err, UP_EFORMAT, "%s:%d: '%s' given twice", up_esc(path), lineno, key);
                goto out;
            }
            if (!(*dst = pool_add(j, exp_path(path, val))))
                goto nomem;
        } else {
            st = UP_ERR(err, UP_EFORMAT, "%s:%d: unknown key '%s' in [experiment] (expected input, sweep, "
                        "output, json, calibration, created, created_by)", up_esc(path), lineno, up_esc(key));
            goto out;
        }
    }
    if (!seen_exp) {
        st = UP_ERR(err, UP_EFORMAT, "%s: no [experiment] section: not an experiment file "
                    "(a machine file goes with --machine)", up_esc(path));
        goto out;
    }
    if (!j->ninputs) {
        st = UP_ERR(err, UP_EFORMAT, "%s: [experiment] names no input", up_esc(path));
        goto out;
    }
    if (!j->out)
        j->out = out;
    if (!j->json)
        j->json = json;
    j->calib = calib;
    up_machine_init(&j->m);
    if ((st = up_machine_parse(mtext, path, &j->m, err)) != UP_OK && err->status == UP_EUSAGE)
        err->status = st = UP_EFORMAT; /* a bad file, not a bad command line */
    goto out;
nomem:
    st = UP_ERR(err, UP_ENOMEM, "out of memory");
out:
    up_free(text);
    up_free(mtext);
    return st;
}

/* ---- one trace ------------------------------------------------------------------ */

static double rel_s(const up_replay_result *r, uint64_t t, uint64_t start)
{
    return t > start ? up_ticks_s(r, t - start) : 0.0;
}

static void print_single(FILE *f, const job *j, const kvs *mk, const up_sim_summary *s)
{
    const up_replay_result *r = &s->res;
    size_t i, shown = r->nlocs <= 32 ? r->nlocs : 16;
    double ratio = s->measured_s > 0 ? s->predicted_s / s->measured_s : NAN;
    fprintf(f, "unperturb simulate: %s -> %s\n", j->inputs[0], j->out ? j->out : "(no archive: -o DIR)");
    print_machine(f, j, mk);
    fprintf(f, "  compute      %s\n", s->cpu_time ? "thread CPU time (the trace's cpu_time metric)"
                                                   : "wall time between MPI calls, less the tracer's overhead");
    if (s->overhead_known)
        fprintf(f, "  overheads    the tracer's cost per record from %s\n", s->overhead_source);
    else
        fprintf(f, "  overheads    none known (no calibration in the archive, no --calibration): "
                   "wall-time compute keeps the tracer's cost\n");
    fprintf(f, "  run time     measured %.9f s, predicted %.9f s (%+.2f%%)\n", s->measured_s,
            s->predicted_s, 100.0 * (ratio - 1));
    fprintf(f, "  ranks        %ld on %zu locations\n", s->nranks, r->nlocs);
    if (r->wildcard != UP_WILDCARD_PRESERVE)
        fprintf(f, "  wildcard     fifo (the tracer marked them): %llu of %llu receives took another "
                   "message than measured\n", (unsigned long long)r->rematched,
                (unsigned long long)r->wildcard_recvs);
    up_report_repairs_text(f, r);
    fprintf(f, "  %-12s %5s  %-20s %16s %16s\n", "location", "rank", "name", "measured end s",
            "predicted end s");
    for (i = 0; i < shown; i++) {
        const up_loc_result *l = &r->locs[i];
        char rank[24];
        if (l->rank == UP_NO_RANK)
            snprintf(rank, sizeof rank, "-");
        else
            snprintf(rank, sizeof rank, "%ld", l->rank);
        fprintf(f, "  %-12llu %5s  %-20.20s %16.9f %16.9f\n", (unsigned long long)l->id, rank,
                l->name ? l->name : "", rel_s(r, l->end_m, r->start_m), rel_s(r, l->end_a, r->start_a));
    }
    if (shown < r->nlocs)
        fprintf(f, "  ... %zu more locations (all of them in --json)\n", r->nlocs - shown);
}

static json_t *json_head(const job *j, const kvs *mk)
{
    json_t *o = json_object(), *sets = json_array();
    size_t i;
    char *p, rp[PATH_MAX];
    json_object_set_new(o, "tool", json_string("unperturb simulate"));
    json_object_set_new(o, "version", jstr(UP_VERSION));
    json_object_set_new(o, "experiment", j->experiment ? jstr(j->experiment) : json_null());
    json_object_set_new(o, "machine_file",
                        j->machine_file ? jstr(realpath(j->machine_file, rp) ? rp : j->machine_file) : json_null());
    for (i = 0; i < j->nsets; i++)
        json_array_append_new(sets, jstr(j->sets[i]));
    json_object_set_new(o, "set", sets);
    json_object_set_new(o, "calibration", j->calib ? jstr(realpath(j->calib, rp) ? rp : j->calib) : json_null());
    p = j->out ? abs_path(j->out) : NULL;
    json_object_set_new(o, "output", p ? jstr(p) : json_null());
    free(p);
    json_object_set_new(o, "machine", kvs_json(mk));
    return o;
}

static up_status write_json(json_t *root, const char *dir, const char *name, up_err *err)
{
    char *text = root ? json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(12)) : NULL;
    char path[PATH_MAX + 64];
    up_status st;
    if (dir)
        snprintf(path, sizeof path, "%s/%s", dir, name);
    else
        snprintf(path, sizeof path, "%s", name);
    if (!text)
        return UP_ERR(err, UP_ENOMEM, "out of memory writing '%s'", up_output_name(path));
    st = up_write_file(path, text, strlen(text), err);
    free(text);
    return st;
}

static json_t *json_single(const job *j, const kvs *mk, const up_sim_summary *s)
{
    const up_replay_result *r = &s->res;
    json_t *o = json_head(j, mk), *locs = json_array();
    char rp[PATH_MAX];
    size_t i;
    json_object_set_new(o, "input", jstr(realpath(j->inputs[0], rp) ? rp : j->inputs[0]));
    json_object_set_new(o, "measured_time_s", jnum(s->measured_s));
    json_object_set_new(o, "predicted_time_s", jnum(s->predicted_s));
    json_object_set_new(o, "ratio", jnum(s->measured_s > 0 ? s->predicted_s / s->measured_s : NAN));
    json_object_set_new(o, "compute_source", jstr(s->cpu_time ? "cpu_time" : "wall_time"));
    json_object_set_new(o, "overhead_source", jstr(s->overhead_source));
    json_object_set_new(o, "ranks", json_integer(s->nranks));
    json_object_set_new(o, "locations", json_integer((json_int_t)r->nlocs));
    json_object_set_new(o, "events", json_integer((json_int_t)r->events));
    json_object_set_new(o, "window_marked", json_boolean(r->window_marked));
    json_object_set_new(o, "wildcard", jstr(up_wildcard_name(r->wildcard)));
    json_object_set_new(o, "wildcard_receives", json_integer((json_int_t)r->wildcard_recvs));
    json_object_set_new(o, "rematched_receives", json_integer((json_int_t)r->rematched));
    {
        json_t *rep = json_object();
        unsigned k;
        for (k = 0; k < UP_REPAIR_COUNT; k++)
            json_object_set_new(rep, up_repair_name(k), json_integer((json_int_t)r->repairs[k]));
        json_object_set_new(o, "repairs", rep);
    }
    for (i = 0; i < r->nlocs; i++) {
        const up_loc_result *l = &r->locs[i];
        json_t *x = json_object();
        json_object_set_new(x, "location", json_integer((json_int_t)l->id));
        json_object_set_new(x, "rank", l->rank == UP_NO_RANK ? json_null() : json_integer(l->rank));
        json_object_set_new(x, "name", jstr(l->name ? l->name : ""));
        json_object_set_new(x, "records", json_integer((json_int_t)l->records));
        json_object_set_new(x, "measured_end_s", jnum(rel_s(r, l->end_m, r->start_m)));
        json_object_set_new(x, "predicted_end_s", jnum(rel_s(r, l->end_a, r->start_a)));
        json_array_append_new(locs, x);
    }
    json_object_set_new(o, "per_location", locs);
    return o;
}

static int run_single(job *j, const kvs *mk)
{
    up_sim_summary s;
    up_sim_run_opts o = {j->inputs[0], &j->m, j->calib, NULL, j->quiet};
    up_err err = {0};
    json_t *js = NULL;
    int rc = 1;

    memset(&s, 0, sizeof s);
    if (j->out)
        o.out_dir = up_outset_tmp(j->os, j->o_dir); /* the archive, then experiment.ini beside it */
    if (up_sim_run(&o, &s, &err) != UP_OK)
        goto fail;
    if (j->out && write_experiment(j, o.out_dir, mk, &err) != UP_OK)
        goto fail;
    if (j->json) {
        js = json_single(j, mk, &s);
        if (write_json(js, NULL, up_outset_tmp(j->os, j->o_json), &err) != UP_OK)
            goto fail;
    }
    if (up_outset_commit(j->os, &err) != UP_OK)
        goto fail;
    if (!j->quiet)
        print_single(stdout, j, mk, &s);
    rc = 0;
    goto done;
fail:
    rc = fail(err.status == UP_EUSAGE ? 2 : 1, err.msg);
done:
    json_decref(js);
    up_sim_summary_free(&s);
    return rc;
}

/* ---- output folders of sweeps and scaling ---------------------------------------- */

static up_status write_svg(const char *dir, const char *name, const up_plot *p, up_err *err)
{
    membuf mb;
    FILE *f = mem_open(&mb);
    int rc = f ? up_plot_svg(f, p) : -1;
    return mem_write(&mb, dir, name, rc == 0, err);
}

static void progress_line(const job *j, size_t k, size_t n, const char *input, const char *what,
                          double t)
{
    if (stderr_tty(j))
        fprintf(stderr, "unperturb simulate: %zu/%zu %s%s%s: predicted %.9f s\n", k, n, input,
                *what ? ", " : "", what, t);
}

/* ---- sweeps of one trace ---------------------------------------------------------- */

static void sweep_table(FILE *f, const job *j, const double *pred, double measured)
{
    size_t a, b, n0 = j->sw[0].n, n1 = j->nsw > 1 ? j->sw[1].n : 1;
    fprintf(f, "  %14s", j->sw[0].name);
    if (j->nsw > 1)
        fprintf(f, " %14s", j->sw[1].name);
    fprintf(f, " %16s %10s\n", "predicted s", "/measured");
    for (a = 0; a < n0; a++)
        for (b = 0; b < n1; b++) {
            double t = pred[a * n1 + b];
            fprintf(f, "  %14.12g", j->sw[0].v[a]);
            if (j->nsw > 1)
                fprintf(f, " %14.12g", j->sw[1].v[b]);
            fprintf(f, " %16.9f %10.4f\n", t, measured > 0 ? t / measured : NAN);
        }
}

static int run_sweep(job *j, const kvs *mk)
{
    size_t n0 = j->sw[0].n, n1 = j->nsw > 1 ? j->sw[1].n : 1, npts = n0 * n1, a, b, k;
    double *pred = NULL, *ys = NULL, *meas_line = NULL, measured = NAN;
    up_series *series = NULL;
    char (*names)[64] = NULL;
    point first = {0};
    const char *dir = up_outset_tmp(j->os, j->o_dir);
    up_err err = {0};
    json_t *js = NULL, *arr, *sws;
    membuf mb;
    FILE *f;
    int rc = 1;
    char rp[PATH_MAX], what[160];

    if (!(pred = calloc(npts, sizeof *pred)) || !(ys = calloc(npts, sizeof *ys)) ||
        !(meas_line = calloc(n0, sizeof *meas_line)) || !(series = calloc(n1 + 1, sizeof *series)) ||
        !(names = calloc(n1 + 1, sizeof *names))) {
        UP_ERR(&err, UP_ENOMEM, "out of memory");
        goto fail;
    }
    for (a = 0, k = 0; a < n0; a++)
        for (b = 0; b < n1; b++, k++) {
            up_machine m;
            point p;
            if (machine_at(j, a, b, &m, &err) != UP_OK || simulate_one(j, j->inputs[0], &m, &p, &err) != UP_OK)
                goto fail;
            if (k == 0)
                first = p, measured = p.measured_s;
            pred[k] = p.predicted_s;
            snprintf(what, sizeof what, "%s=%.12g", j->sw[0].name, j->sw[0].v[a]);
            if (j->nsw > 1)
                snprintf(what + strlen(what), sizeof what - strlen(what), " %s=%.12g", j->sw[1].name,
                         j->sw[1].v[b]);
            progress_line(j, k + 1, npts, j->inputs[0], what, p.predicted_s);
        }

    /* sweep.csv */
    if (!(f = mem_open(&mb))) {
        UP_ERR(&err, UP_ENOMEM, "out of memory");
        goto fail;
    }
    fprintf(f, "%s,", j->sw[0].name);
    if (j->nsw > 1)
        fprintf(f, "%s,", j->sw[1].name);
    fprintf(f, "predicted_time_s,measured_time_s,ratio\n");
    for (a = 0, k = 0; a < n0; a++)
        for (b = 0; b < n1; b++, k++) {
            fprintf(f, "%.12g,", j->sw[0].v[a]);
            if (j->nsw > 1)
                fprintf(f, "%.12g,", j->sw[1].v[b]);
            fprintf(f, "%.9f,%.9f,%.6f\n", pred[k], measured, measured > 0 ? pred[k] / measured : NAN);
        }
    if (mem_write(&mb, dir, "sweep.csv", !ferror(f), &err) != UP_OK)
        goto fail;

    /* sweep.json */
    js = json_head(j, mk);
    json_object_set_new(js, "input", jstr(realpath(j->inputs[0], rp) ? rp : j->inputs[0]));
    json_object_set_new(js, "measured_time_s", jnum(measured));
    json_object_set_new(js, "ranks", json_integer(first.nranks));
    json_object_set_new(js, "locations", json_integer((json_int_t)first.nlocs));
    json_object_set_new(js, "compute_source", jstr(first.cpu_time ? "cpu_time" : "wall_time"));
    sws = json_array();
    for (k = 0; k < j->nsw; k++) {
        json_t *s = json_object(), *vals = json_array();
        json_object_set_new(s, "key", jstr(j->sw[k].name));
        json_object_set_new(s, "from", json_real(j->sw[k].from));
        json_object_set_new(s, "to", json_real(j->sw[k].to));
        json_object_set_new(s, "step", json_real(j->sw[k].step));
        for (a = 0; a < j->sw[k].n; a++)
            json_array_append_new(vals, json_real(j->sw[k].v[a]));
        json_object_set_new(s, "values", vals);
        json_array_append_new(sws, s);
    }
    json_object_set_new(js, "sweeps", sws);
    arr = json_array();
    for (a = 0, k = 0; a < n0; a++)
        for (b = 0; b < n1; b++, k++) {
            json_t *x = json_object();
            json_object_set_new(x, j->sw[0].name, json_real(j->sw[0].v[a]));
            if (j->nsw > 1)
                json_object_set_new(x, j->sw[1].name, json_real(j->sw[1].v[b]));
            json_object_set_new(x, "predicted_time_s", jnum(pred[k]));
            json_object_set_new(x, "ratio", jnum(measured > 0 ? pred[k] / measured : NAN));
            json_array_append_new(arr, x);
        }
    json_object_set_new(js, "points", arr);
    if (write_json(js, dir, "sweep.json", &err) != UP_OK)
        goto fail;

    /* time.svg: x the first key; a series per value of the second */
    for (b = 0; b < n1; b++) {
        for (a = 0; a < n0; a++)
            ys[b * n0 + a] = pred[a * n1 + b];
        if (j->nsw > 1)
            sweep_label(names[b], sizeof names[b], &j->sw[1], j->sw[1].v[b]);
        else
            snprintf(names[b], sizeof names[b], "predicted");
        series[b] = (up_series){names[b], ys + b * n0};
    }
    for (a = 0; a < n0; a++)
        meas_line[a] = measured;
    snprintf(names[n1], sizeof names[n1], "measured (traced run)");
    series[n1] = (up_series){names[n1], meas_line};
    {
        up_panel panel = {NULL, n0, j->sw[0].v, n1 + 1, series};
        up_plot p = {"Predicted execution time", j->sw[0].name, "time, s", 1, &panel};
        if (write_svg(dir, "time.svg", &p, &err) != UP_OK)
            goto fail;
    }
    if (write_experiment(j, dir, mk, &err) != UP_OK ||
        (j->json && write_json(js, NULL, up_outset_tmp(j->os, j->o_json), &err) != UP_OK) ||
        up_outset_commit(j->os, &err) != UP_OK)
        goto fail;
    if (!j->quiet) {
        printf("unperturb simulate: %s, %zu simulations -> %s\n", j->inputs[0], npts, j->out);
        print_machine(stdout, j, mk);
        printf("  compute      %s\n", first.cpu_time ? "thread CPU time (the trace's cpu_time metric)"
                                                     : "wall time between MPI calls, less the tracer's overhead");
        for (k = 0; k < j->nsw; k++)
            printf("  sweep        %s from %.12g to %.12g step %.12g: %zu values\n", j->sw[k].key,
                   j->sw[k].from, j->sw[k].to, j->sw[k].step, j->sw[k].n);
        printf("  measured     %.9f s (%ld ranks)\n", measured, first.nranks);
        sweep_table(stdout, j, pred, measured);
        printf("  written      sweep.csv sweep.json time.svg experiment.ini\n");
    }
    rc = 0;
    goto done;
fail:
    rc = fail(err.status == UP_EUSAGE ? 2 : 1, err.msg);
done:
    json_decref(js);
    free(pred);
    free(ys);
    free(meas_line);
    free(series);
    free(names);
    return rc;
}

/* ---- scaling: several traces ------------------------------------------------------- */

static int run_scaling(job *j, const kvs *mk)
{
    size_t ni = j->ninputs, nv = j->nsw ? j->sw[0].n : 1, v, i, k, *ord = NULL;
    point *pt = NULL;            /* [v * ni + i], i in input order */
    double *x = NULL, *ts = NULL, *sp = NULL, *meas = NULL, *ideal = NULL;
    up_series *tser = NULL, *sser = NULL;
    char (*names)[64] = NULL, rp[PATH_MAX], what[160];
    const char *dir = up_outset_tmp(j->os, j->o_dir);
    up_err err = {0};
    json_t *js = NULL, *arr, *ins;
    membuf mb;
    FILE *f;
    int rc = 1;

    if (!(pt = calloc(nv * ni, sizeof *pt)) || !(ord = calloc(ni, sizeof *ord)) ||
        !(x = calloc(ni, sizeof *x)) || !(ts = calloc(nv * ni, sizeof *ts)) ||
        !(sp = calloc(nv * ni, sizeof *sp)) || !(meas = calloc(ni, sizeof *meas)) ||
        !(ideal = calloc(ni, sizeof *ideal)) || !(tser = calloc(nv + 1, sizeof *tser)) ||
        !(sser = calloc(nv + 1, sizeof *sser)) || !(names = calloc(nv + 2, sizeof *names))) {
        UP_ERR(&err, UP_ENOMEM, "out of memory");
        goto fail;
    }
    for (v = 0, k = 0; v < nv; v++) {
        up_machine m;
        if (machine_at(j, v, 0, &m, &err) != UP_OK)
            goto fail;
        for (i = 0; i < ni; i++, k++) {
            if (simulate_one(j, j->inputs[i], &m, &pt[v * ni + i], &err) != UP_OK)
                goto fail;
            what[0] = 0;
            if (j->nsw)
                snprintf(what, sizeof what, "%s=%.12g", j->sw[0].name, j->sw[0].v[v]);
            progress_line(j, k + 1, nv * ni, j->inputs[i], what, pt[v * ni + i].predicted_s);
        }
        if (v == 0) { /* order by rank count; one run per rank count */
            for (i = 0; i < ni; i++) {
                size_t p = i;
                while (p > 0 && pt[ord[p - 1]].nranks > pt[i].nranks) {
                    ord[p] = ord[p - 1];
                    p--;
                }
                ord[p] = i;
            }
            for (i = 1; i < ni; i++)
                if (pt[ord[i]].nranks == pt[ord[i - 1]].nranks) {
                    UP_ERR(&err, UP_EFORMAT, "'%s' and '%s' both have %ld ranks: scaling takes one run per "
                           "rank count", j->inputs[ord[i - 1]], j->inputs[ord[i]], pt[ord[i]].nranks);
                    goto fail;
                }
        }
    }
    /* speedup relative to the run with the fewest ranks n0: T(n0)/T(n) * n0 */
    for (i = 0; i < ni; i++) {
        const point *p0 = &pt[ord[0]];
        x[i] = (double)pt[ord[i]].nranks;
        meas[i] = pt[ord[i]].measured_s;
        ideal[i] = x[i];
        for (v = 0; v < nv; v++) {
            const point *b = &pt[v * ni + ord[0]], *p = &pt[v * ni + ord[i]];
            ts[v * ni + i] = p->predicted_s;
            sp[v * ni + i] = p->predicted_s > 0 ? b->predicted_s / p->predicted_s * (double)p0->nranks : NAN;
        }
    }

    /* scaling.csv */
    if (!(f = mem_open(&mb))) {
        UP_ERR(&err, UP_ENOMEM, "out of memory");
        goto fail;
    }
    if (j->nsw)
        fprintf(f, "%s,", j->sw[0].name);
    fprintf(f, "ranks,input,measured_time_s,predicted_time_s,speedup,efficiency,measured_speedup\n");
    for (v = 0; v < nv; v++)
        for (i = 0; i < ni; i++) {
            double s = sp[v * ni + i], ms = meas[i] > 0 ? meas[0] / meas[i] * x[0] : NAN;
            if (j->nsw)
                fprintf(f, "%.12g,", j->sw[0].v[v]);
            fprintf(f, "%ld,", pt[ord[i]].nranks);
            csv_str(f, realpath(j->inputs[ord[i]], rp) ? rp : j->inputs[ord[i]]);
            fprintf(f, ",%.9f,%.9f,%.6f,%.6f,%.6f\n", meas[i], ts[v * ni + i], s, s / x[i], ms);
        }
    if (mem_write(&mb, dir, "scaling.csv", !ferror(f), &err) != UP_OK)
        goto fail;

    /* scaling.json */
    js = json_head(j, mk);
    ins = json_array();
    for (i = 0; i < ni; i++)
        json_array_append_new(ins, jstr(realpath(j->inputs[i], rp) ? rp : j->inputs[i]));
    json_object_set_new(js, "inputs", ins);
    json_object_set_new(js, "speedup_base_ranks", json_integer(pt[ord[0]].nranks));
    if (j->nsw) {
        json_t *s = json_object(), *vals = json_array();
        json_object_set_new(s, "key", jstr(j->sw[0].name));
        json_object_set_new(s, "from", json_real(j->sw[0].from));
        json_object_set_new(s, "to", json_real(j->sw[0].to));
        json_object_set_new(s, "step", json_real(j->sw[0].step));
        for (v = 0; v < nv; v++)
            json_array_append_new(vals, json_real(j->sw[0].v[v]));
        json_object_set_new(s, "values", vals);
        json_object_set_new(js, "sweep", s);
    } else
        json_object_set_new(js, "sweep", json_null());
    arr = json_array();
    for (v = 0; v < nv; v++)
        for (i = 0; i < ni; i++) {
            json_t *o = json_object();
            const point *p = &pt[v * ni + ord[i]];
            if (j->nsw)
                json_object_set_new(o, j->sw[0].name, json_real(j->sw[0].v[v]));
            json_object_set_new(o, "input", jstr(realpath(j->inputs[ord[i]], rp) ? rp : j->inputs[ord[i]]));
            json_object_set_new(o, "ranks", json_integer(p->nranks));
            json_object_set_new(o, "locations", json_integer((json_int_t)p->nlocs));
            json_object_set_new(o, "compute_source", jstr(p->cpu_time ? "cpu_time" : "wall_time"));
            json_object_set_new(o, "measured_time_s", jnum(meas[i]));
            json_object_set_new(o, "predicted_time_s", jnum(ts[v * ni + i]));
            json_object_set_new(o, "speedup", jnum(sp[v * ni + i]));
            json_object_set_new(o, "efficiency", jnum(sp[v * ni + i] / x[i]));
            json_object_set_new(o, "measured_speedup", jnum(meas[i] > 0 ? meas[0] / meas[i] * x[0] : NAN));
            json_array_append_new(arr, o);
        }
    json_object_set_new(js, "runs", arr);
    if (write_json(js, dir, "scaling.json", &err) != UP_OK)
        goto fail;

    /* time.svg and speedup.svg: x the rank counts, a series per sweep value */
    for (v = 0; v < nv; v++) {
        if (j->nsw)
            sweep_label(names[v], sizeof names[v], &j->sw[0], j->sw[0].v[v]);
        else
            snprintf(names[v], sizeof names[v], "predicted");
        tser[v] = (up_series){names[v], ts + v * ni};
        sser[v] = (up_series){names[v], sp + v * ni};
    }
    snprintf(names[nv], sizeof names[nv], "measured (traced runs)");
    tser[nv] = (up_series){names[nv], meas};
    snprintf(names[nv + 1], sizeof names[nv + 1], "ideal");
    sser[nv] = (up_series){names[nv + 1], ideal};
    {
        up_panel tp = {NULL, ni, x, nv + 1, tser}, spn = {NULL, ni, x, nv + 1, sser};
        up_plot p1 = {"Predicted execution time", "MPI ranks", "time, s", 1, &tp};
        up_plot p2 = {"Predicted speedup", "MPI ranks", "speedup", 1, &spn};
        if (write_svg(dir, "time.svg", &p1, &err) != UP_OK ||
            write_svg(dir, "speedup.svg", &p2, &err) != UP_OK)
            goto fail;
    }
    if (write_experiment(j, dir, mk, &err) != UP_OK ||
        (j->json && write_json(js, NULL, up_outset_tmp(j->os, j->o_json), &err) != UP_OK) ||
        up_outset_commit(j->os, &err) != UP_OK)
        goto fail;
    if (!j->quiet) {
        printf("unperturb simulate: %zu runs, %zu simulations -> %s\n", ni, nv * ni, j->out);
        print_machine(stdout, j, mk);
        if (j->nsw)
            printf("  sweep        %s from %.12g to %.12g step %.12g: %zu values\n", j->sw[0].key,
                   j->sw[0].from, j->sw[0].to, j->sw[0].step, j->sw[0].n);
        printf("  speedup      T(%ld) / T(n) * %ld, relative to the run with the fewest ranks\n",
               pt[ord[0]].nranks, pt[ord[0]].nranks);
        printf("  ");
        if (j->nsw)
            printf("%14s ", j->sw[0].name);
        printf("%6s %14s %14s %9s %10s  %s\n", "ranks", "measured s", "predicted s", "speedup",
               "efficiency", "input");
        for (v = 0; v < nv; v++)
            for (i = 0; i < ni; i++) {
                double s = sp[v * ni + i];
                printf("  ");
                if (j->nsw)
                    printf("%14.12g ", j->sw[0].v[v]);
                printf("%6ld %14.9f %14.9f %9.3f %10.3f  %s\n", pt[ord[i]].nranks, meas[i],
                       ts[v * ni + i], s, s / x[i], j->inputs[ord[i]]);
            }
        printf("  written      scaling.csv scaling.json time.svg speedup.svg experiment.ini\n");
    }
    rc = 0;
    goto done;
fail:
    rc = fail(err.status == UP_EUSAGE ? 2 : 1, err.msg);
done:
    json_decref(js);
    free(pt);
    free(ord);
    free(x);
    free(ts);
    free(sp);
    free(meas);
    free(ideal);
    free(tser);
    free(sser);
    free(names);
    return rc;
}

/* ---- the command ------------------------------------------------------------------- */

int cmd_simulate(int argc, char **argv)
{
    static const struct option opts[] = {
        {"machine", required_argument, NULL, 'M'},
        {"set", required_argument, NULL, 'S'},
        {"sweep", required_argument, NULL, 'W'},
        {"calibration", required_argument, NULL, 'C'},
        {"experiment", required_argument, NULL, 'E'},
        {"json", required_argument, NULL, 'j'},
        {"output", required_argument, NULL, 'o'},
        {"force", no_argument, NULL, 'f'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    job *j;
    kvs mk = {0};
    up_err err = {0};
    const char *who;
    char msg[1200];
    size_t i, nsims;
    int opt, rc = 1;

    if (!(j = calloc(1, sizeof *j)))
        return fail(1, "out of memory");
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":o:fqh", opts, NULL)) != -1) {
        switch (opt) {
        case 'M':
            j->machine_file = optarg;
            break;
        case 'S':
            if (j->nsets == MAX_SETS) {
                rc = usage_fail("more than %s --set options", "64");
                goto out;
            }
            j->sets[j->nsets++] = optarg;
            break;
        case 'W':
            if (j->nsw == 2) {
                rc = usage_fail("at most two --sweep options (a third: '%s')", up_esc(optarg));
                goto out;
            }
            j->sweep_args[j->nsw++] = optarg;
            break;
        case 'C':
            j->calib = optarg;
            break;
        case 'E':
            j->experiment = optarg;
            break;
        case 'j':
            j->json = optarg;
            break;
        case 'o':
            j->out = optarg;
            break;
        case 'f':
            j->force = true;
            break;
        case 'q':
            j->quiet = true;
            break;
        case 'h':
            fputs(usage_text, stdout);
            rc = 0;
            goto out;
        default:
            rc = cmd_bad_option("simulate", opt, argv, opts);
            goto out;
        }
    }

    if (j->experiment) {
        if (optind < argc || j->machine_file || j->nsets || j->nsw || j->calib) {
            rc = usage_fail("--experiment takes the inputs, machine, sweeps and calibration from %s; "
                            "only -o, --json, --force and --quiet may be added", j->experiment);
            goto out;
        }
        if (load_experiment(j, j->experiment, &err) != UP_OK) {
            rc = fail(1, err.msg);
            goto out;
        }
    } else {
        if (optind >= argc) {
            rc = usage_fail("no input trace given%s", "");
            goto out;
        }
        if ((size_t)(argc - optind) > MAX_INPUTS) {
            rc = usage_fail("more than %s inputs", "256");
            goto out;
        }
        for (; optind < argc; optind++)
            j->inputs[j->ninputs++] = argv[optind];
        up_machine_init(&j->m);
        if (j->machine_file) {
            if (up_machine_load(j->machine_file, &j->m, &err) != UP_OK) {
                rc = fail(err.status == UP_EUSAGE ? 2 : 1, err.msg);
                goto out;
            }
        }
        for (i = 0; i < j->nsets; i++)
            if (up_machine_set(&j->m, j->sets[i], &err) != UP_OK) {
                rc = usage_fail("%s", err.msg); /* "--set KEY=VALUE: why" */
                goto out;
            }
    }
    who = j->experiment ? j->experiment : NULL;

    /* sweeps: syntax, numeric keys, every value accepted by the machine */
    for (i = 0; i < j->nsw; i++) {
        char why[700];
        if (!parse_sweep(j->sweep_args[i], &j->m, &j->sw[i], why, sizeof why)) {
            if (who) {
                snprintf(msg, sizeof msg, "%s:%d: %s", who, j->sweep_lines[i], why);
                rc = fail(1, msg);
            } else
                rc = usage_fail("%s", why);
            goto out;
        }
    }
    if (j->nsw == 2 && !strcmp(j->sw[0].name, j->sw[1].name)) {
        rc = who ? fail(1, "the experiment sweeps one key twice")
                 : usage_fail("two --sweep of the same key '%s'", j->sw[0].name);
        goto out;
    }
    if (j->ninputs > 1 && j->nsw > 1) {
        rc = who ? fail(1, "the experiment has several inputs and two sweeps (at most one with several inputs)")
                 : usage_fail("several inputs (a scaling experiment) take at most one --sweep%s", "");
        goto out;
    }
    nsims = j->ninputs;
    for (i = 0; i < j->nsw; i++)
        nsims *= j->sw[i].n;
    if (nsims > MAX_SIMS) {
        snprintf(msg, sizeof msg, "%zu simulations: at most %d in one experiment", nsims, MAX_SIMS);
        rc = who ? fail(1, msg) : usage_fail("%s", msg);
        goto out;
    }
    if ((j->nsw || j->ninputs > 1) && !j->out) {
        rc = usage_fail(j->nsw ? "a --sweep needs an output folder (-o DIR)%s"
                               : "several inputs (a scaling experiment) need an output folder (-o DIR)%s",
                        "");
        goto out;
    }
    if (j->out && check_recordable(j, &err) != UP_OK) {
        rc = usage_fail("%s", err.msg);
        goto out;
    }

    /* inputs: each readable; outputs never replace one */
    for (i = 0; i < j->ninputs; i++)
        if (access(j->inputs[i], R_OK) != 0) {
            const char *why = strerror(errno); /* before up_esc */
            snprintf(msg, sizeof msg, "cannot read the trace '%s': %s", up_esc(j->inputs[i]), why);
            rc = fail(1, msg);
            goto out;
        }
    if (j->calib) { /* read it now, not after the first of many simulations */
        up_comp_params p;
        up_comp_params_init(&p);
        if (up_calibration_load(j->calib, &p, &err) != UP_OK) {
            rc = fail(1, err.msg);
            goto out;
        }
    }
    /* what is read and written, checked before any work */
    if (up_outset_new(&j->os, j->force, &err) != UP_OK)
        goto out_err;
    for (i = 0; i < j->ninputs; i++)
        if (up_outset_input(j->os, j->inputs[i], true, &err) != UP_OK)
            goto out_err;
    if (up_outset_input(j->os, j->calib, false, &err) != UP_OK ||
        up_outset_input(j->os, j->machine_file, false, &err) != UP_OK ||
        up_outset_input(j->os, j->experiment, false, &err) != UP_OK ||
        (j->out && up_outset_add(j->os, j->out, UP_OUT_DIR, "-o", &j->o_dir, &err) != UP_OK) ||
        (j->json && up_outset_add(j->os, j->json, UP_OUT_FILE, "--json", &j->o_json, &err) != UP_OK) ||
        up_outset_begin(j->os, &err) != UP_OK)
        goto out_err;

    if (machine_kvs(&j->m, &mk, &err) != UP_OK) {
        rc = fail(1, err.msg);
        goto out;
    }
    if (j->ninputs > 1)
        rc = run_scaling(j, &mk);
    else if (j->nsw)
        rc = run_sweep(j, &mk);
    else
        rc = run_single(j, &mk);
    goto out;
out_err:
    rc = fail(err.status == UP_EUSAGE ? 2 : 1, err.msg);
out:
    up_outset_free(j->os);
    kvs_free(&mk);
    job_free(j);
    free(j);
    return rc;
}
