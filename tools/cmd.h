/*
 * cmd.h - the subcommands of the `unperturb` command, one file each.
 * Each returns the process exit status: 0 success, 1 failure, 2 bad usage.
 */
#ifndef UP_CMD_H
#define UP_CMD_H

#include <stddef.h>

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

/* The usage error of getopt_long's '?' or ':' (every command sets opterr = 0
 * and starts its short options with ':'): "unknown option '--x'", "option
 * '--json' needs a value", "option '--force' takes no value", "option '--f'
 * is ambiguous (--force, --functions)"; returns 2. */
struct option;
int cmd_bad_option(const char *cmd, int c, char **argv, const struct option *opts);

/* The value of a numeric option: arg parsed into *v within r (0), or the
 * usage error "<opt> <arg>: must be between 0 and 1e9 ns" (2). */
int cmd_opt_num(const char *cmd, const char *opt, const char *arg, const up_range *r, double *v);

#endif
