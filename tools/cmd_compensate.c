/*
 * cmd_compensate.c - `unperturb compensate`: OTF2 trace in, overhead
 * compensation replay, OTF2 trace out, summary (text and JSON).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "report/runs.h"
#include "run/pipeline.h"

static const char usage_text[] =
    "usage: unperturb compensate INPUT -o DIR [options]\n"
    "\n"
    "Removes the measurement overhead from an OTF2 trace and writes the\n"
    "approximated trace as a new OTF2 archive DIR/traces.otf2.  INPUT is an\n"
    "anchor file (traces.otf2) or the experiment folder holding it.\n"
    "\n"
    "  -o, --output DIR           output folder (must not exist, see --force; never\n"
    "                             the input's folder or inside it)\n"
    "  -m, --mode MODE            lower | upper | network (default network)\n"
    "      --collective MODEL     individual (eq. 13, default) | shared (eq. 12)\n"
    "      --overhead-ns [KIND=]N overhead per trace record in ns, for all kinds or\n"
    "                             one of enter leave send recv coll_begin coll_end\n"
    "                             other metric fn_enter fn_leave; repeatable,\n"
    "                             later ones win\n"
    "      --calibration FILE     calibration file (docs/calibration.md)\n"
    "      --copy-ns-per-byte C   buffer copy time per byte, ns\n"
    "      --latency-ns S         network mode: message start-up time, ns\n"
    "      --ns-per-byte G        network mode: transfer time per byte, ns\n"
    "      --per-hop-ns H         network mode: time per hop between nodes, ns\n"
    "      --eager-limit BYTES    larger sends are synchronous (rendezvous); default\n"
    "                             the calibration's, else 4096\n"
    "      --wildcard POLICY      receives that named MPI_ANY_SOURCE/MPI_ANY_TAG:\n"
    "                             auto (fifo where the tracer marked them, else\n"
    "                             preserve; default) | preserve (measured match)\n"
    "                             | fifo | lifo\n"
    "      --replies RULE         replies to re-matched wildcard receives: follow\n"
    "                             (to the re-matched sender, the task's work moves\n"
    "                             with them; default) | measured\n"
    "      --progress RULE        when a rendezvous transfer moves: mpi (only while\n"
    "                             its receiver is inside an MPI call, as in Open\n"
    "                             MPI without a progress thread; default) | async\n"
    "                             (as soon as the receive is posted)\n"
    "      --polls RULE           failed MPI_Test/Iprobe calls: model (spins collapse,\n"
    "                             completions move to the first poll after their\n"
    "                             message, default) | local (every poll is work)\n"
    "      --test-ns N            one uninstrumented MPI_Test, ns (default: the\n"
    "                             calibration's test_ns, else measured in each spin)\n"
    "      --spin-gap-ns N        most program time between two polls of a spin\n"
    "                             on average over the run (default 10)\n"
    "      --json FILE            also write the summary as JSON\n"
    "  -f, --force                replace DIR and the --json file if they exist\n"
    "  -q, --quiet                print nothing on success\n"
    "  -h, --help                 this text\n"
    "\n"
    "Precedence: values stored in the archive by the unperturb tracer, then\n"
    "--calibration, then the options on the command line.\n";

static int usage_fail(const char *fmt, const char *arg) { return cmd_usage("compensate", fmt, arg); }

static void warn(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "unperturb compensate: warning: %s\n", msg);
}

int cmd_compensate(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},
        {"mode", required_argument, NULL, 'm'},
        {"collective", required_argument, NULL, 'c'},
        {"overhead-ns", required_argument, NULL, 'O'},
        {"calibration", required_argument, NULL, 'C'},
        {"copy-ns-per-byte", required_argument, NULL, 'y'},
        {"latency-ns", required_argument, NULL, 'S'},
        {"ns-per-byte", required_argument, NULL, 'G'},
        {"per-hop-ns", required_argument, NULL, 'H'},
        {"eager-limit", required_argument, NULL, 'E'},
        {"wildcard", required_argument, NULL, 'W'},
        {"polls", required_argument, NULL, 'P'},
        {"replies", required_argument, NULL, 'Y'},
        {"progress", required_argument, NULL, 'R'},
        {"test-ns", required_argument, NULL, 'T'},
        {"spin-gap-ns", required_argument, NULL, 'g'},
        {"json", required_argument, NULL, 'j'},
        {"force", no_argument, NULL, 'f'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    up_run_comp_opts o;
    up_run_comp r;
    char why[256];
    int opt, rc = 1;
    up_err err = {0};
    memset(&r, 0, sizeof r);
    up_run_comp_opts_init(&o);
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":o:m:fqh", opts, NULL)) != -1) {
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
        case 'O': {
            char *eq = strchr(optarg, '=');
            if (o.cli.noverhead == UP_CLI_MAX_OVERHEAD)
                return usage_fail("too many --overhead-ns options%s", "");
            o.cli.overhead[o.cli.noverhead].all = !eq;
            if (eq) {
                char kind[32];
                size_t n = (size_t)(eq - optarg);
                if (n >= sizeof kind)
                    n = sizeof kind - 1;
                memcpy(kind, optarg, n);
                kind[n] = 0;
                if (!up_rk_parse(kind, &o.cli.overhead[o.cli.noverhead].kind)) {
                    char kinds[256], msg[400];
                    up_rk_list(kinds, sizeof kinds);
                    snprintf(msg, sizeof msg,
                             "unknown record kind in --overhead-ns '%s' (expected %s)", up_esc(optarg),
                             kinds);
                    return usage_fail("%s", msg);
                }
            }
            if (!up_num_parse(eq ? eq + 1 : optarg, &UP_RANGE_NS, &o.cli.overhead[o.cli.noverhead].ns,
                              why, sizeof why)) {
                char msg[1024];
                snprintf(msg, sizeof msg, "--overhead-ns %s: %s", up_esc(optarg), why);
                return usage_fail("%s", msg);
            }
            o.cli.noverhead++;
            break;
        }
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
        case 'h':
            fputs(usage_text, stdout);
            return 0;
        default:
            return cmd_bad_option("compensate", opt, argv, opts);
        }
    }
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
