/*
 * cmd.h - the subcommands of the `unperturb` command, one file each.
 * Each returns the process exit status: 0 success, 1 failure, 2 bad usage.
 */
#ifndef UNPERTURB_CMD_H
#define UNPERTURB_CMD_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util/util.h"

int cmd_compensate(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_estimate(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_simulate(int argc, char **argv);

/* A usage error: prints "unperturb <cmd>: <fmt with arg>" and a pointer to
 * --help to stderr, and returns 2. */
int cmd_usage(const char *cmd, const char *fmt, const char *arg);

/* The usage error of a command that takes exactly one input trace, given
 * optind after the options: "no input trace given" or "more than one input
 * given (X ...)"; returns 2. */
int cmd_one_input(const char *cmd, int argc, char **argv, int optind_);

/* Prints "unperturb <cmd>: <message>" to stderr and returns 1 (2 for usage). */
int cmd_fail(const char *cmd, int status, const char *msg);

/* ---- options: each command declares its options once, in a table; the
 * usage's option lines, getopt_long's arrays and the parse loop are made
 * from it (tools/opts.c). */

/* One option.  `id` is what cmd_opts_next returns for it: the letter if it
 * has one, else any character unique in the table; 'h' is --help, which
 * the parser answers itself with the usage. */
typedef struct cmd_opt {
    const char *name;   /* --name */
    char letter;        /* -x, or 0 */
    const char *arg;    /* the value's name in the usage; NULL: takes no value */
    int id;
    const char *help;   /* its lines, joined by '\n'; NULL: not in the usage */
} cmd_opt;

/* A command's options: the table (ended by CMD_OPT_END) and the prose of
 * its usage around the option lines.  An option line is "  -o, --output
 * DIR" or "      --json FILE", its help from `column` on (on the next line
 * if the option reaches it), the help's further lines indented as much. */
typedef struct cmd_spec {
    const char *cmd;        /* "compensate": the messages say "unperturb compensate: " */
    const char *head, *tail; /* the usage before and after the option lines */
    int column;             /* where the help of an option line starts */
    bool in_order;          /* options end at the first operand (a program and its arguments) */
    const cmd_opt *opts;
} cmd_spec;

/* The options several commands take: one name, letter and id (o O C x j f
 * q h) everywhere.  The help is the command's: what the option names (the
 * files --force replaces, what --json holds) differs; the texts several
 * share are the CMD_*_HELP. */
#define CMD_OPT_OUTPUT(arg, help) {"output", 'o', arg, 'o', help}
#define CMD_OPT_OVERHEAD_NS(arg, help) {"overhead-ns", 0, arg, 'O', help}
#define CMD_OPT_CALIBRATION(help) {"calibration", 0, "FILE", 'C', help}
#define CMD_OPT_EXTRA_NS(arg, help) {"extra-ns", 0, arg, 'x', help}
#define CMD_OPT_JSON(help) {"json", 0, "FILE", 'j', help}
#define CMD_OPT_FORCE(help) {"force", 'f', NULL, 'f', help}
#define CMD_OPT_QUIET(help) {"quiet", 'q', NULL, 'q', help}
#define CMD_OPT_HELP {"help", 'h', NULL, 'h', "this text"}
#define CMD_OPT_HELP_UNLISTED {"help", 'h', NULL, 'h', NULL}
#define CMD_OPT_END {NULL, 0, NULL, 0, NULL}
#define CMD_QUIET_HELP "print nothing on success"
#define CMD_FORCE_DIR_HELP "replace DIR and the --json file if they exist"

/* The parse loop:
 *     cmd_opts p;
 *     cmd_opts_begin(&p, &spec, argc, argv);
 *     while ((c = cmd_opts_next(&p)) > 0)
 *         switch (c) { ... the value is optarg ... }
 *     if (c < 0)
 *         return p.status;
 * and the operands are argv[optind...].  cmd_opts_next returns the id of
 * the next option, 0 after the last, or -1 when the command is over: --help
 * printed (status 0) or a usage error reported (status 2: "unknown option
 * '--x'", "option '--json' needs a value", "option '--force' takes no
 * value", "option '--f' is ambiguous (--force, --functions)"). */
#define CMD_MAX_OPTS 32
typedef struct cmd_opts {
    const cmd_spec *spec;
    int argc;
    char **argv;
    int status;
    struct option lo[CMD_MAX_OPTS + 1]; /* getopt_long's */
    char shorts[2 * CMD_MAX_OPTS + 3];
} cmd_opts;

void cmd_opts_begin(cmd_opts *p, const cmd_spec *s, int argc, char **argv);
int cmd_opts_next(cmd_opts *p);

/* The value of a numeric option: arg parsed into *v within r (0), or the
 * usage error "<opt> <arg>: must be between 0 and 1e9 ns" (2). */
int cmd_opt_num(const char *cmd, const char *opt, const char *arg, const up_range *r, double *v);
/* The same for a whole number that a program reads back from the
 * environment or its command line: written to buf as digits only. */
int cmd_opt_digits(const char *cmd, const char *opt, const char *arg, const up_range *r, char *buf,
                   size_t cap);

/* --overhead-ns into the command line's parameters: with kinds, N for
 * every record kind or KIND=N for one, repeatable, the later win; without,
 * N for every kind, the last given.  0, or the usage error (2). */
struct up_comp_cli;
int cmd_opt_overhead(const char *cmd, const char *arg, bool kinds, struct up_comp_cli *cli);

/* --extra-ns N of trace and calibrate, each value of validate's list: as
 * the tracer spends it, whole ns up to a second. */
extern const up_range cmd_range_extra_ns;

#endif
