/*
 * experiment.c - the experiment of `unperturb simulate` and its file,
 * experiment.ini (simrun.h; docs/simulate.md, "Experiment files").
 *
 * The [experiment] section is read here, line by line with up_lines_read
 * and a buffer as long as the text (paths can be longer than inih's
 * 200-byte lines and may hold " ;"); the machine sections of the same file
 * go to up_machine_parse with the [experiment] lines blanked, so its errors
 * keep the file's line numbers.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/simrun.h"

void up_experiment_init(up_experiment *ex)
{
    memset(ex, 0, sizeof *ex);
    up_machine_init(&ex->m);
}

void up_experiment_free(up_experiment *ex)
{
    size_t i;
    for (i = 0; i < ex->npool; i++)
        free(ex->pool[i]);
    up_free(ex->pool);
    ex->pool = NULL;
    ex->npool = ex->cappool = 0;
}

static char *pool_add(up_experiment *ex, char *s)
{
    if (!s)
        return NULL;
    if (!up_grow((void **)&ex->pool, &ex->cappool, ex->npool + 1, sizeof *ex->pool)) {
        free(s);
        return NULL;
    }
    return ex->pool[ex->npool++] = s;
}

/* ---- reading ------------------------------------------------------------------- */

/* White space around keys and values, as inih and up_lines_read see it. */
static bool blank(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r'; }

static char *trim(char *s)
{
    char *e;
    while (blank(*s))
        s++;
    e = s + strlen(s);
    while (e > s && blank(e[-1]))
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

/* One line of [experiment] (trimmed, not blank, not a comment, INI:
 * up_lines_read checked it); seen[0..1]: the lines of created, created_by. */
static up_status exp_line(up_experiment *ex, char *s, const char *path, unsigned lineno,
                          const char **out, const char **json, const char **calib, unsigned seen[2],
                          up_err *err)
{
    char *eq = strchr(s, '='), *key, *val;
    if (!eq)
        return UP_ERR(err, UP_EFORMAT, "%s:%u: " UP_NOT_INI, up_esc(path), lineno);
    *eq = 0;
    key = trim(s);
    val = trim(eq + 1);
    if (!strcmp(key, "created") || !strcmp(key, "created_by")) { /* provenance, not used */
        unsigned *at = &seen[key[7] == '_'];
        if (*at)
            return UP_ERR(err, UP_EFORMAT, "%s:%u: '%s' given twice (first at line %u)", up_esc(path),
                          lineno, key, *at);
        *at = lineno;
        return UP_OK;
    }
    if (!*val)
        return UP_ERR(err, UP_EFORMAT, "%s:%u: '%s' has no value", up_esc(path), lineno, up_esc(key));
    if (!strcmp(key, "input")) {
        if (ex->ninputs == UP_SIM_MAX_INPUTS)
            return UP_ERR(err, UP_EFORMAT, "%s:%u: more than %d inputs", up_esc(path), lineno,
                          UP_SIM_MAX_INPUTS);
        if (!(ex->inputs[ex->ninputs++] = pool_add(ex, exp_path(path, val))))
            return UP_ERR(err, UP_ENOMEM, "out of memory");
    } else if (!strcmp(key, "sweep")) {
        if (ex->nsw == 2)
            return UP_ERR(err, UP_EFORMAT, "%s:%u: a third sweep (at most two)", up_esc(path), lineno);
        ex->sweep_lines[ex->nsw] = (int)lineno;
        if (!(ex->sweep_args[ex->nsw++] = pool_add(ex, strdup(val))))
            return UP_ERR(err, UP_ENOMEM, "out of memory");
    } else if (!strcmp(key, "output") || !strcmp(key, "json") || !strcmp(key, "calibration")) {
        const char **dst = key[0] == 'o' ? out : key[0] == 'j' ? json : calib;
        if (*dst)
            return UP_ERR(err, UP_EFORMAT, "%s:%u: '%s' given twice", up_esc(path), lineno, key);
        if (!(*dst = pool_add(ex, exp_path(path, val))))
            return UP_ERR(err, UP_ENOMEM, "out of memory");
    } else {
        return UP_ERR(err, UP_EFORMAT, "%s:%u: unknown key '%s' in [experiment] (expected input, sweep, "
                      "output, json, calibration, created, created_by)", up_esc(path), lineno, up_esc(key));
    }
    return UP_OK;
}

up_status up_experiment_parse(up_experiment *ex, const char *text, const char *path, up_err *err)
{
    char *mtext = up_strdup(text), *buf = malloc(strlen(text) + 1);
    const char *out = NULL, *json = NULL, *calib = NULL;
    unsigned seen[2] = {0, 0}, bad_line = 0; /* the first line outside [experiment] that is not INI */
    char bad_why[sizeof ((up_lines *)0)->why];
    bool in_exp = false, seen_exp = false;
    up_lines lines;
    up_status st = UP_OK;

    if (!mtext || !buf) {
        st = UP_ERR(err, UP_ENOMEM, "out of memory");
        goto out;
    }
    up_lines_init(&lines, text, false);
    for (;;) {
        const char *start = lines.s;
        size_t len;
        char *s;
        if (!up_lines_read(buf, (int)(strlen(text) + 1 > INT_MAX ? INT_MAX : strlen(text) + 1), &lines))
            break;
        len = strcspn(start, "\n");
        if (lines.sec) { /* a [section] (as inih reads it) */
            in_exp = lines.seclen == 10 && !memcmp(lines.sec, "experiment", 10);
            seen_exp |= in_exp;
        }
        if (!in_exp) {
            /* the machine's parser reports it, unless an error of
             * [experiment] (below) would come first */
            if (lines.bad && !bad_line)
                bad_line = lines.bad, snprintf(bad_why, sizeof bad_why, "%s", lines.why);
            continue;
        }
        /* the one INI syntax (up_lines_read): a key on the section's line,
         * a lone CR, a line without '=' are errors here too */
        if (lines.bad) {
            st = UP_ERR(err, UP_EFORMAT, "%s:%u: %s", up_esc(path), lines.line, lines.why);
            break;
        }
        memset(mtext + (start - text), ' ', len); /* not the machine's: a blank line for inih */
        s = trim(buf);
        if (!*s || *s == '#' || *s == ';' || lines.sec)
            continue;
        if ((st = exp_line(ex, s, path, lines.line, &out, &json, &calib, seen, err)) != UP_OK)
            break;
    }
    if (bad_line && st != UP_ENOMEM) { /* before any error that names a later line or none */
        st = UP_ERR(err, UP_EFORMAT, "%s:%u: %s", up_esc(path), bad_line, bad_why);
        goto out;
    }
    if (st != UP_OK)
        goto out;
    if (!seen_exp) {
        st = UP_ERR(err, UP_EFORMAT, "%s: no [experiment] section: not an experiment file "
                    "(a machine file goes with --machine)", up_esc(path));
        goto out;
    }
    if (!ex->ninputs) {
        st = UP_ERR(err, UP_EFORMAT, "%s: [experiment] names no input", up_esc(path));
        goto out;
    }
    if (!ex->out)
        ex->out = out;
    if (!ex->json)
        ex->json = json;
    ex->calib = calib;
    st = up_experiment_machine(ex, mtext, path, err);
out:
    up_free(mtext);
    free(buf);
    return st;
}

up_status up_experiment_load(up_experiment *ex, const char *path, up_err *err)
{
    char *text = NULL;
    up_status st;
    if ((st = up_text_file_read(path, "experiment file", UP_TEXT_FILE_MAX, &text, NULL, err)) != UP_OK)
        return st;
    ex->file = path;
    st = up_experiment_parse(ex, text, path, err);
    up_free(text);
    return st;
}

/* ---- the machine ---------------------------------------------------------------- */

up_status up_experiment_machine(up_experiment *ex, const char *text, const char *what, up_err *err)
{
    up_status st = UP_OK;
    size_t i;
    up_machine_init(&ex->m);
    if (text)
        st = up_machine_parse(text, what, &ex->m, err);
    else if (ex->machine_file)
        st = up_machine_load(ex->machine_file, &ex->m, err);
    if (st != UP_OK) {
        if (err->status == UP_EUSAGE)
            err->status = st = UP_EFORMAT; /* a bad file, not a bad command line */
        return st;
    }
    for (i = 0; i < ex->nsets; i++)
        if ((st = up_machine_set(&ex->m, ex->sets[i], err)) != UP_OK)
            return st; /* UP_EUSAGE "--set KEY=VALUE: why" */
    return UP_OK;
}

/* ---- writing -------------------------------------------------------------------- */

char *up_experiment_abs_path(const char *path)
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

/* One line, control characters as spaces (for comments). */
static void put_comment_text(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
}

int up_experiment_write(FILE *f, const up_experiment *ex, time_t now)
{
    char when[64], num[3][40], rp[PATH_MAX], *p;
    struct tm tmv;
    size_t i;

    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tmv));
    fprintf(f, "# unperturb simulate: an experiment (docs/simulate.md). Run it again with\n"
               "#   unperturb simulate --experiment experiment.ini -o NEWDIR [--force]\n"
               "# [experiment] names the inputs and sweeps; the other sections are the\n"
               "# whole machine model (docs/machine.md).\n\n[experiment]\n");
    fprintf(f, "created_by = unperturb %s\ncreated = %s\n", UP_VERSION, when);
    for (i = 0; i < ex->ninputs; i++) {
        if (!realpath(ex->inputs[i], rp))
            snprintf(rp, sizeof rp, "%s", ex->inputs[i]);
        fprintf(f, "input = %s\n", rp);
    }
    for (i = 0; i < ex->nsw; i++) {
        up_num_exact(num[0], sizeof num[0], ex->sw[i].from);
        up_num_exact(num[1], sizeof num[1], ex->sw[i].to);
        up_num_exact(num[2], sizeof num[2], ex->sw[i].step);
        fprintf(f, "sweep = %s=%s:%s:%s\n", ex->sw[i].key, num[0], num[1], num[2]);
    }
    if (ex->out && (p = up_experiment_abs_path(ex->out))) {
        fprintf(f, "output = %s\n", p);
        free(p);
    }
    if (ex->json && (p = up_experiment_abs_path(ex->json))) {
        fprintf(f, "json = %s\n", p);
        free(p);
    }
    if (ex->calib) {
        if (!realpath(ex->calib, rp))
            snprintf(rp, sizeof rp, "%s", ex->calib);
        fprintf(f, "calibration = %s\n", rp);
    }
    fprintf(f, "# machine: ");
    if (ex->file)
        fprintf(f, "from the experiment "), put_comment_text(f, ex->file);
    else if (ex->machine_file)
        put_comment_text(f, ex->machine_file);
    else
        fprintf(f, "the defaults");
    for (i = 0; i < ex->nsets; i++)
        fprintf(f, ", --set "), put_comment_text(f, ex->sets[i]);
    fprintf(f, "\n\n");
    if (up_machine_write(f, &ex->m) != 0)
        return -1;
    return ferror(f) ? -1 : 0;
}

up_status up_experiment_save(const up_experiment *ex, const char *dir, up_err *err)
{
    char path[PATH_MAX + 64], *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    up_status st;
    int rc;
    snprintf(path, sizeof path, "%s/%s", dir, "experiment.ini");
    if (!f)
        return UP_ERR(err, UP_ENOMEM, "out of memory writing '%s'", up_output_name(path));
    rc = up_experiment_write(f, ex, time(NULL));
    if (fclose(f) != 0 || rc != 0)
        st = UP_ERR(err, UP_EIO, "cannot write '%s'", up_output_name(path));
    else
        st = up_write_file(path, buf, len, err);
    free(buf);
    return st;
}

/* ---- the checks before any work ------------------------------------------------- */

static bool recordable(const char *s)
{
    size_t n = strlen(s);
    return n && !strpbrk(s, "\n\r") && s[0] != ' ' && s[0] != '\t' && s[n - 1] != ' ' &&
           s[n - 1] != '\t';
}

/* The paths an experiment file records must survive its line format. */
static up_status check_recordable(const up_experiment *ex, up_err *err)
{
    const char *what[UP_SIM_MAX_INPUTS + 3];
    size_t i, n = 0;
    for (i = 0; i < ex->ninputs; i++)
        what[n++] = ex->inputs[i];
    if (ex->out)
        what[n++] = ex->out;
    if (ex->json)
        what[n++] = ex->json;
    if (ex->calib)
        what[n++] = ex->calib;
    for (i = 0; i < n; i++)
        if (!recordable(what[i]))
            return UP_ERR(err, UP_EUSAGE,
                          "'%s' cannot be recorded in experiment.ini: it starts or ends with white "
                          "space or holds a line break", what[i]);
    return UP_OK;
}

up_status up_experiment_prepare(up_experiment *ex, up_err *err)
{
    const char *who = ex->file;
    char msg[1200];
    size_t i, nsims;

    /* sweeps: syntax, numeric keys, every value accepted by the machine */
    for (i = 0; i < ex->nsw; i++) {
        if (up_sweep_parse(ex->sweep_args[i], &ex->m, &ex->sw[i], err) != UP_OK) {
            if (who) {
                snprintf(msg, sizeof msg, "%s:%d: %s", who, ex->sweep_lines[i], err->msg);
                return UP_ERR(err, UP_EFORMAT, "%s", msg);
            }
            return UP_EUSAGE;
        }
    }
    if (ex->nsw == 2 && !strcmp(ex->sw[0].name, ex->sw[1].name))
        return who ? UP_ERR(err, UP_EFORMAT, "the experiment sweeps one key twice")
                   : UP_ERR(err, UP_EUSAGE, "two --sweep of the same key '%s'", ex->sw[0].name);
    if (ex->ninputs > 1 && ex->nsw > 1)
        return who ? UP_ERR(err, UP_EFORMAT, "the experiment has several inputs and two sweeps (at most "
                            "one with several inputs)")
                   : UP_ERR(err, UP_EUSAGE, "several inputs (a scaling experiment) take at most one --sweep");
    nsims = ex->ninputs;
    for (i = 0; i < ex->nsw; i++)
        nsims *= ex->sw[i].n;
    if (nsims > UP_SIM_MAX_SIMS)
        return UP_ERR(err, who ? UP_EFORMAT : UP_EUSAGE, "%zu simulations: at most %d in one experiment",
                      nsims, UP_SIM_MAX_SIMS);
    if ((ex->nsw || ex->ninputs > 1) && !ex->out)
        return UP_ERR(err, UP_EUSAGE, ex->nsw ? "a --sweep needs an output folder (-o DIR)"
                                              : "several inputs (a scaling experiment) need an output "
                                                "folder (-o DIR)");
    if (ex->out && check_recordable(ex, err) != UP_OK)
        return UP_EUSAGE;

    /* inputs: each readable */
    for (i = 0; i < ex->ninputs; i++)
        if (access(ex->inputs[i], R_OK) != 0) {
            const char *why = strerror(errno); /* before up_esc */
            return UP_ERR(err, UP_EIO, "cannot read the trace '%s': %s", up_esc(ex->inputs[i]), why);
        }
    if (ex->calib) { /* read it now, not after the first of many simulations */
        up_comp_params p;
        up_status st;
        up_comp_params_init(&p);
        if ((st = up_calibration_load(ex->calib, &p, err)) != UP_OK)
            return st == UP_EUSAGE ? (err->status = UP_EFORMAT) : st;
    }
    return UP_OK;
}

up_status up_experiment_machine_at(const up_experiment *ex, size_t a, size_t b, up_machine *m,
                                   up_err *err)
{
    *m = ex->m;
    if (ex->nsw > 0 && up_machine_set_num(m, ex->sw[0].key, ex->sw[0].v[a], err) != UP_OK)
        return err->status;
    if (ex->nsw > 1 && up_machine_set_num(m, ex->sw[1].key, ex->sw[1].v[b], err) != UP_OK)
        return err->status;
    return UP_OK;
}
