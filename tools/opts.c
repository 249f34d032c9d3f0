/*
 * opts.c - the options of a command from its one table (cmd.h): the
 * usage's option lines, getopt_long's arrays and the parse loop with its
 * usage errors, and the parsers of values several commands share.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "model/compensate.h"

const up_range cmd_range_extra_ns = {0, 1e9, true, "ns"};

/* --help: head, option lines, tail */
static void usage(FILE *f, const cmd_spec *s)
{
    const cmd_opt *o;
    fputs(s->head, f);
    for (o = s->opts; o->name; o++) {
        char left[128];
        const char *h;
        size_t len;
        int n;
        if (!o->help)
            continue;
        n = snprintf(left, sizeof left, "  %c%c%s--%s%s%s", o->letter ? '-' : ' ', o->letter ? o->letter : ' ',
                     o->letter ? ", " : "  ", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        if (n < s->column)
            fprintf(f, "%-*s", s->column, left);
        else /* a long option and value: the help starts on the next line */
            fprintf(f, "%s\n%*s", left, s->column, "");
        for (h = o->help;; h += len + 1) {
            len = strcspn(h, "\n");
            fprintf(f, "%.*s\n", (int)len, h);
            if (!h[len])
                break;
            fprintf(f, "%*s", s->column, "");
        }
    }
    fputs(s->tail ? s->tail : "", f);
}

/* The usage error of getopt_long's '?' or ':'.  A long option's getopt
 * value is its letter or 256 + its index, so that optopt names it. */
static int bad_option(const char *cmd, int c, char **argv, const struct option *opts)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "", *eq = strchr(arg, '=');
    char name[128], msg[512], list[256] = "", o[3] = {'-', (char)optopt, 0};
    size_t n = eq ? (size_t)(eq - arg) : strlen(arg), i, nmatch = 0, len = 0;
    bool exact = false, ours = false;
    snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), arg);
    for (i = 0; n > 2 && !strncmp(arg, "--", 2) && opts[i].name; i++) /* unique prefixes count */
        if (!strncmp(opts[i].name, name + 2, n - 2)) {
            int w = snprintf(list + len, sizeof list - len, "%s--%s", len ? ", " : "", opts[i].name);
            len = w > 0 && (size_t)w < sizeof list - len ? len + (size_t)w : len;
            exact |= strlen(opts[i].name) == n - 2;
            ours |= opts[i].val == optopt;
            nmatch++;
        }
    if (optopt && !ours) /* a short option: the argument may be a cluster (-qx) */
        return cmd_usage(cmd, c == ':' ? "option '%s' needs a value" : "unknown option '%s'", o);
    if (c == ':')
        return cmd_usage(cmd, "option '%s' needs a value", name);
    if (optopt && (exact || nmatch == 1))
        return cmd_usage(cmd, "option '%s' takes no value", name);
    if (nmatch > 1 && !exact) {
        snprintf(msg, sizeof msg, "option '%s' is ambiguous (%s)", name, list);
        return cmd_usage(cmd, "%s", msg);
    }
    return cmd_usage(cmd, "unknown option '%s'", name);
}

/* getopt_long's arrays from the table; its errors are ours (opterr 0, ':'). */
void cmd_opts_begin(cmd_opts *p, const cmd_spec *s, int argc, char **argv)
{
    size_t i, j, k = 0;
    bool twice = false;
    memset(p, 0, sizeof *p);
    p->spec = s;
    p->argc = argc;
    p->argv = argv;
    if (s->in_order)
        p->shorts[k++] = '+';
    p->shorts[k++] = ':';
    for (i = 0; s->opts[i].name && i < CMD_MAX_OPTS; i++) {
        const cmd_opt *o = &s->opts[i];
        p->lo[i].name = o->name;
        p->lo[i].has_arg = o->arg ? required_argument : no_argument;
        p->lo[i].val = o->letter ? o->letter : 256 + (int)i;
        if (o->letter) {
            p->shorts[k++] = o->letter;
            if (o->arg)
                p->shorts[k++] = ':';
        }
        for (j = 0; j < i; j++) /* two options in one case of the switch */
            twice |= s->opts[j].id == o->id || (o->letter && s->opts[j].letter == o->letter);
    }
    if (s->opts[i].name || twice)
        p->status = cmd_fail(s->cmd, 1, "internal error: more than CMD_MAX_OPTS options, or an id twice");
    optind = 1;
    opterr = 0;
}

int cmd_opts_next(cmd_opts *p)
{
    const cmd_opt *o = p->spec->opts, *hit = NULL;
    int c, i;
    if (p->status)
        return -1;
    if ((c = getopt_long(p->argc, p->argv, p->shorts, p->lo, NULL)) == -1)
        return 0;
    if (c >= 256)
        hit = &o[c - 256];
    for (i = 0; !hit && c != '?' && c != ':' && o[i].name; i++)
        if (o[i].letter == c)
            hit = &o[i];
    if (!hit) {
        p->status = bad_option(p->spec->cmd, c, p->argv, p->lo);
        return -1;
    }
    if (hit->id == 'h') {
        usage(stdout, p->spec);
        return -1;
    }
    return hit->id;
}

int cmd_opt_num(const char *cmd, const char *opt, const char *arg, const up_range *r, double *v)
{
    char why[256], msg[1024];
    if (up_num_parse(arg, r, v, why, sizeof why))
        return 0;
    snprintf(msg, sizeof msg, "%s %s: %s", opt, up_esc(arg), why);
    return cmd_usage(cmd, "%s", msg);
}

int cmd_opt_digits(const char *cmd, const char *opt, const char *arg, const up_range *r, char *buf,
                   size_t cap)
{
    double v;
    int rc = cmd_opt_num(cmd, opt, arg, r, &v);
    if (!rc)
        snprintf(buf, cap, "%.0f", v);
    return rc;
}

int cmd_opt_overhead(const char *cmd, const char *arg, bool kinds, struct up_comp_cli *cli)
{
    const char *eq = kinds ? strchr(arg, '=') : NULL;
    char why[256], msg[1024];
    up_rk kind = 0;
    double ns;
    if (!kinds)
        cli->noverhead = 0; /* one O for every kind: the last given */
    if (cli->noverhead == UP_CLI_MAX_OVERHEAD)
        return cmd_usage(cmd, "too many --overhead-ns options%s", "");
    if (eq) {
        char name[32], list[256];
        size_t n = (size_t)(eq - arg);
        snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), arg);
        if (!up_rk_parse(name, &kind)) {
            up_rk_list(list, sizeof list);
            snprintf(msg, sizeof msg, "unknown record kind in --overhead-ns '%s' (expected %s)", up_esc(arg), list);
            return cmd_usage(cmd, "%s", msg);
        }
    }
    if (!up_num_parse(eq ? eq + 1 : arg, &UP_RANGE_NS, &ns, why, sizeof why)) {
        snprintf(msg, sizeof msg, "--overhead-ns %s: %s", up_esc(arg), why);
        return cmd_usage(cmd, "%s", msg);
    }
    up_comp_cli_overhead(cli, ns);
    if (eq) {
        cli->overhead[cli->noverhead - 1].all = false;
        cli->overhead[cli->noverhead - 1].kind = kind;
    }
    return 0;
}
