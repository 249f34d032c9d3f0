/*
 * cmd_compensate.c - `unperturb compensate`: OTF2 trace in, overhead
 * compensation replay, OTF2 trace out, summary (text and JSON).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "report/runs.h"
#include "run/pipeline.h"

static const char usage_head[] =
    "usage: unperturb compensate INPUT -o DIR [options]\n"
    "\n"
    "Removes the measurement overhead from an OTF2 trace and writes the\n"
    "approximated trace as a new OTF2 archive DIR/traces.otf2.  INPUT is an\n"
    "anchor file (traces.otf2) or the experiment folder holding it.\n"
    "\n";

static const cmd_opt opts[] = {
    CMD_OPT_OUTPUT("DIR", "output folder (must not exist, see --force; never\n"
                          "the input's folder or inside it)"),
    {"mode", 'm', "MODE", 'm', "lower | upper | network (default network)"},
    {"collective", 0, "MODEL", 'c', "individual (eq. 13, default) | shared (eq. 12)"},
    CMD_OPT_OVERHEAD_NS("[KIND=]N", "overhead per trace record in ns, for all kinds or\n"
                                    "one of enter leave send recv coll_begin coll_end\n"
                                    "other metric fn_enter fn_leave; repeatable,\n"
                                    "later ones win"),
    CMD_OPT_CALIBRATION("calibration file (docs/calibration.md)"),
    {"copy-ns-per-byte", 0, "C", 'y', "buffer copy time per byte, ns"},
    {"latency-ns", 0, "S", 'S', "network mode: message start-up time, ns"},
    {"ns-per-byte", 0, "G", 'G', "network mode: transfer time per byte, ns"},
    {"per-hop-ns", 0, "H", 'H', "network mode: time per hop between nodes, ns"},
    {"eager-limit", 0, "BYTES", 'E', "larger sends are synchronous (rendezvous); default\n"
                                     "the calibration's, else 4096"},
    {"wildcard", 0, "POLICY", 'W', "receives that named MPI_ANY_SOURCE/MPI_ANY_TAG:\n"
                                   "auto (fifo where the tracer marked them, else\n"
                                   "preserve; default) | preserve (measured match)\n"
                                   "| fifo | lifo"},
    {"replies", 0, "RULE", 'Y', "replies to re-matched wildcard receives: follow\n"
                                "(to the re-matched sender, the task's work moves\n"
                                "with them; default) | measured"},
    {"progress", 0, "RULE", 'R', "when a rendezvous transfer moves: mpi (only while\n"
                                 "its receiver is inside an MPI call, as in Open\n"
                                 "MPI without a progress thread; default) | async\n"
                                 "(as soon as the receive is posted)"},
    {"polls", 0, "RULE", 'P', "failed MPI_Test/Iprobe calls: model (spins collapse,\n"
                              "completions move to the first poll after their\n"
                              "message, default) | local (every poll is work)"},
    {"test-ns", 0, "N", 'T', "one uninstrumented MPI_Test, ns (default: the\n"
                             "calibration's test_ns, else measured in each spin)"},
    {"spin-gap-ns", 0, "N", 'g', "most program time between two polls of a spin\n"
                                 "on average over the run (default 10)"},
    CMD_OPT_JSON("also write the summary as JSON"),
    CMD_OPT_FORCE(CMD_FORCE_DIR_HELP),
    CMD_OPT_QUIET(CMD_QUIET_HELP),
    CMD_OPT_HELP,
    CMD_OPT_END,
};

static const cmd_spec spec = {
    "compensate", usage_head,
    "\n"
    "Precedence: values stored in the archive by the unperturb tracer, then\n"
    "--calibration, then the options on the command line.\n",
    29, false, opts,
};

static int usage_fail(const char *fmt, const char *arg) { return cmd_usage("compensate", fmt, arg); }

static void warn(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "unperturb compensate: warning: %s\n", msg);
}

int cmd_compensate(int argc, char **argv)
{
    up_run_comp_opts o;
    up_run_comp r;
    cmd_opts p;
    int opt, rc = 1;
    up_err err = {0};
    memset(&r, 0, sizeof r);
    up_run_comp_opts_init(&o);
    cmd_opts_begin(&p, &spec, argc, argv);
    while ((opt = cmd_opts_next(&p)) > 0) {
        switch (opt) {
        case 'o':
            o.output = optarg;
            break;
        case 'm':
            o.cli.mode_set = true;
            if (!strcmp(optarg, "lower"))
                o.cli.mode = UP_MODE_LOWER;
            else if (!strcmp(optarg, "upper"))
                o.cli.mode = UP_MODE_UPPER;
            else if (!strcmp(optarg, "network"))
                o.cli.mode = UP_MODE_NETWORK;
            else
                return usage_fail("unknown --mode '%s' (expected lower, upper or network)", up_esc(optarg));
            break;
        case 'c':
            o.cli.collective_set = true;
            if (!strcmp(optarg, "individual"))
                o.cli.collective = UP_COLLECTIVE_INDIVIDUAL;
            else if (!strcmp(optarg, "shared"))
                o.cli.collective = UP_COLLECTIVE_SHARED;
            else
                return usage_fail("unknown --collective '%s' (expected individual or shared)", up_esc(optarg));
            break;
        case 'O':
            if ((rc = cmd_opt_overhead("compensate", optarg, true, &o.cli)))
                return rc;
            break;
        case 'C':
            o.calibration = optarg;
            break;
        case 'y':
            if ((rc = cmd_opt_num("compensate", "--copy-ns-per-byte", optarg, &UP_RANGE_NS_PER_BYTE,
                                  &o.cli.copy_ns_per_byte)))
                return rc;
            break;
        case 'S':
            if ((rc = cmd_opt_num("compensate", "--latency-ns", optarg, &UP_RANGE_NS, &o.cli.latency_ns)))
                return rc;
            break;
        case 'G':
            if ((rc = cmd_opt_num("compensate", "--ns-per-byte", optarg, &UP_RANGE_NS_PER_BYTE,
                                  &o.cli.ns_per_byte)))
                return rc;
            break;
        case 'H':
            if ((rc = cmd_opt_num("compensate", "--per-hop-ns", optarg, &UP_RANGE_NS, &o.cli.per_hop_ns)))
                return rc;
            break;
        case 'E':
            if ((rc = cmd_opt_num("compensate", "--eager-limit", optarg, &UP_RANGE_BYTES, &o.cli.eager_limit)))
                return rc;
            break;
        case 'W':
            if (!up_wildcard_parse(optarg, &o.cli.wildcard))
                return usage_fail("--wildcard '%s' is not one of auto, preserve, fifo, lifo",
                                  up_esc(optarg));
            o.cli.wildcard_set = true;
            break;
        case 'R':
            if (!up_rdv_progress_parse(optarg, &o.cli.progress))
                return usage_fail("--progress '%s' is not one of mpi, async", up_esc(optarg));
            o.cli.progress_set = true;
            break;
        case 'Y':
            if (!up_replies_parse(optarg, &o.cli.replies))
                return usage_fail("--replies '%s' is not one of follow, measured", up_esc(optarg));
            o.cli.replies_set = true;
            break;
        case 'P':
            if (!up_polls_parse(optarg, &o.cli.polls))
                return usage_fail("--polls '%s' is not one of model, local", up_esc(optarg));
            o.cli.polls_set = true;
            break;
        case 'T':
            if ((rc = cmd_opt_num("compensate", "--test-ns", optarg, &UP_RANGE_NS, &o.cli.test_ns)))
                return rc;
            break;
        case 'g':
            if ((rc = cmd_opt_num("compensate", "--spin-gap-ns", optarg, &UP_RANGE_NS, &o.cli.spin_gap_ns)))
                return rc;
            break;
        case 'j':
            o.json = optarg;
            break;
        case 'f':
            o.force = true;
            break;
        case 'q':
            o.quiet = true;
            break;
        }
    }
    if (opt < 0)
        return p.status;
    if (optind != argc - 1)
        return cmd_one_input("compensate", argc, argv, optind);
    if (!o.output)
        return usage_fail("no output folder given (-o DIR)%s", "");
    o.input = argv[optind];
    o.warn = warn;

    if (up_run_compensate(&o, &r, &err) != UP_OK)
        goto fail;
    {
        up_comp_report rp = up_report_comp_of(&r, o.input, o.output);
        /* the archive and its --json: both or neither */
        if ((o.json && up_report_compensate_json(&rp, up_outset_tmp(r.outs, r.o_json), &err) != UP_OK) ||
            up_outset_commit(r.outs, &err) != UP_OK)
            goto fail;
        if (!o.quiet)
            up_report_compensate_text(up_outset_stdout(r.outs) ? stderr : stdout, &rp);
    }
    rc = 0;
    goto done;
fail:
    rc = cmd_fail("compensate", err.status == UP_EUSAGE ? 2 : 1, err.msg);
done:
    up_run_comp_free(&r);
    return rc;
}
