/*
 * unperturb.c - the `unperturb` command: a table of subcommands.
 * Place in the data flow: the top (tools <- report <- analysis <- model <-
 * replay <- trace <- util); everything below is a library that never prints.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include "cmd.h"
#include "trace/trace.h"
#include "util/util.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;
} commands[] = {
    {"trace", cmd_trace, "run an MPI program with the tracer: one OTF2 archive"},
    {"calibrate", cmd_calibrate, "measure the platform constants compensation needs"},
    {"compensate", cmd_compensate, "remove the tracer's overhead from an OTF2 trace"},
    {"validate", cmd_validate, "compare uninstrumented, traced and compensated runs"},
    {"export", cmd_export, "write a trace as JSON for ui.perfetto.dev / chrome://tracing"},
    {"estimate", cmd_estimate, "quick time-based estimates of the run time, no replay"},
    {"report", cmd_report, "profile, wait states and timelines of a run, or what the overhead did"},
    {"simulate", cmd_simulate, "predict the run on another machine: trace-driven extrapolation"},
};

/* Messages quote file names, options and values as the user gave them:
 * bytes that do not print are escaped here, last (up_text_escape does not
 * change text that is escaped already). */
int cmd_fail(const char *cmd, int status, const char *msg)
{
    char esc[4096];
    fprintf(stderr, "unperturb %s: %s\n", cmd, up_text_escape(esc, sizeof esc, msg, 0));
    return status == 2 ? 2 : 1;
}

int cmd_usage(const char *cmd, const char *fmt, const char *arg)
{
    char msg[1024], esc[4096];
    snprintf(msg, sizeof msg, fmt, arg);
    fprintf(stderr, "unperturb %s: %s\n(try 'unperturb %s --help')\n", cmd,
            up_text_escape(esc, sizeof esc, msg, 0), cmd);
    return 2;
}

int cmd_one_input(const char *cmd, int argc, char **argv, int optind_)
{
    return cmd_usage(cmd, optind_ >= argc ? "no input trace given%s" : "more than one input given (%s ...)",
                     optind_ < argc ? argv[optind_] : "");
}

static void usage(FILE *f)
{
    size_t i;
    fprintf(f, "usage: unperturb <command> [options]\n\ncommands:\n");
    for (i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].help);
    fprintf(f, "\n'unperturb <command> --help' describes a command; see also README.md and docs/.\n");
}

/* One open file per location and direction: lift the soft limit on open
 * files to the hard limit so that archives with many locations work. */
static void raise_file_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

/* Damage in an input is repaired and reported, never a reason to stop
 * (docs/cli.md): one warning per damaged file, however often a command
 * opens the trace. */
#define MAX_WARNED 256
static const char *warn_cmd = "";

static void warn_damage(void *ctx, const up_trace *t, const up_damage *d)
{
    static unsigned long hashes[MAX_WARNED];
    static size_t nwarned;
    char line[1024];
    unsigned long h = 5381;
    const char *p;
    size_t i;
    (void)ctx;
    up_damage_line(t, d, line, sizeof line);
    for (p = line; *p; p++)
        h = h * 33 + (unsigned char)*p;
    for (i = 0; i < nwarned; i++)
        if (hashes[i] == h)
            return;
    if (nwarned == MAX_WARNED) {
        if (nwarned++ == MAX_WARNED)
            fprintf(stderr, "unperturb %s: warning: more damage than shown\n", warn_cmd);
        return;
    }
    if (nwarned < MAX_WARNED)
        hashes[nwarned++] = h;
    fprintf(stderr, "unperturb %s: warning: %s\n", warn_cmd, line);
}

int main(int argc, char **argv)
{
    size_t i;
    up_signals_init(); /* SIGXFSZ: a write error like a full disk */
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("unperturb %s\n", UP_VERSION);
        return 0;
    }
    raise_file_limit();
    for (i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) {
            warn_cmd = commands[i].name;
            up_output_command(commands[i].name);
            up_trace_set_damage_hook(warn_damage, NULL);
            return commands[i].run(argc - 1, argv + 1);
        }
    fprintf(stderr, "unperturb: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
