/*
 * cmd.h - the subcommands of the `unperturb` command, one file each.
 * Each returns the process exit status: 0 success, 1 failure, 2 bad usage.
 */
#ifndef UP_CMD_H
#define UP_CMD_H

int cmd_compensate(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);

/* Prints "unperturb <cmd>: <message>" to stderr and returns 1 (2 for usage). */
int cmd_fail(const char *cmd, int status, const char *msg);

#endif
