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
#include "report/report.h"

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
        {"test-ns", required_argument, NULL, 'T'},
        {"spin-gap-ns", required_argument, NULL, 'g'},
        {"json", required_argument, NULL, 'j'},
        {"force", no_argument, NULL, 'f'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *out = NULL, *calib = NULL, *json = NULL, *input;
    bool force = false, quiet = false;
    up_progress pg;
    up_status st;
    up_comp_cli cli;
    size_t i;
    char source[256] = "", desc[1024], prop[128], why[256];
    int opt, rc = 1;
    up_err err = {0};
    up_trace *t = NULL;
    up_writer *w = NULL;
    up_comp *model = NULL;
    up_comp_params p;
    up_replay_result res;
    up_outset *os = NULL;
    size_t o_dir = 0, o_json = 0;
    uint64_t *removed = NULL;

    memset(&res, 0, sizeof res);
    up_comp_cli_init(&cli);
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":o:m:fqh", opts, NULL)) != -1) {
        switch (opt) {
        case 'o':
            out = optarg;
            break;
        case 'm':
            cli.mode_set = true;
            if (!strcmp(optarg, "lower"))
                cli.mode = UP_MODE_LOWER;
            else if (!strcmp(optarg, "upper"))
                cli.mode = UP_MODE_UPPER;
            else if (!strcmp(optarg, "network"))
                cli.mode = UP_MODE_NETWORK;
            else
                return usage_fail("unknown --mode '%s' (expected lower, upper or network)", up_esc(optarg));
            break;
        case 'c':
            cli.collective_set = true;
            if (!strcmp(optarg, "individual"))
                cli.collective = UP_COLLECTIVE_INDIVIDUAL;
            else if (!strcmp(optarg, "shared"))
                cli.collective = UP_COLLECTIVE_SHARED;
            else
                return usage_fail("unknown --collective '%s' (expected individual or shared)", up_esc(optarg));
            break;
        case 'O': {
            char *eq = strchr(optarg, '=');
            if (cli.noverhead == UP_CLI_MAX_OVERHEAD)
                return usage_fail("too many --overhead-ns options%s", "");
            cli.overhead[cli.noverhead].all = !eq;
            if (eq) {
                char kind[32];
                size_t n = (size_t)(eq - optarg);
                if (n >= sizeof kind)
                    n = sizeof kind - 1;
                memcpy(kind, optarg, n);
                kind[n] = 0;
                if (!up_rk_parse(kind, &cli.overhead[cli.noverhead].kind)) {
                    char kinds[256], msg[400];
                    up_rk_list(kinds, sizeof kinds);
                    snprintf(msg, sizeof msg,
                             "unknown record kind in --overhead-ns '%s' (expected %s)", up_esc(optarg),
                             kinds);
                    return usage_fail("%s", msg);
                }
            }
            if (!up_num_parse(eq ? eq + 1 : optarg, &UP_RANGE_NS, &cli.overhead[cli.noverhead].ns,
                              why, sizeof why)) {
                char msg[1024];
                snprintf(msg, sizeof msg, "--overhead-ns %s: %s", up_esc(optarg), why);
                return usage_fail("%s", msg);
            }
            cli.noverhead++;
            break;
        }
        case 'C':
            calib = optarg;
            break;
        case 'y':
            if ((rc = cmd_opt_num("compensate", "--copy-ns-per-byte", optarg, &UP_RANGE_NS_PER_BYTE,
                                  &cli.copy_ns_per_byte)))
                return rc;
            break;
        case 'S':
            if ((rc = cmd_opt_num("compensate", "--latency-ns", optarg, &UP_RANGE_NS, &cli.latency_ns)))
                return rc;
            break;
        case 'G':
            if ((rc = cmd_opt_num("compensate", "--ns-per-byte", optarg, &UP_RANGE_NS_PER_BYTE,
                                  &cli.ns_per_byte)))
                return rc;
            break;
        case 'H':
            if ((rc = cmd_opt_num("compensate", "--per-hop-ns", optarg, &UP_RANGE_NS, &cli.per_hop_ns)))
                return rc;
            break;
        case 'E':
            if ((rc = cmd_opt_num("compensate", "--eager-limit", optarg, &UP_RANGE_BYTES, &cli.eager_limit)))
                return rc;
            break;
        case 'W':
            if (!up_wildcard_parse(optarg, &cli.wildcard))
                return usage_fail("--wildcard '%s' is not one of auto, preserve, fifo, lifo",
                                  up_esc(optarg));
            cli.wildcard_set = true;
            break;
        case 'Y':
            if (!up_replies_parse(optarg, &cli.replies))
                return usage_fail("--replies '%s' is not one of follow, measured", up_esc(optarg));
            cli.replies_set = true;
            break;
        case 'P':
            if (!up_polls_parse(optarg, &cli.polls))
                return usage_fail("--polls '%s' is not one of model, local", up_esc(optarg));
            cli.polls_set = true;
            break;
        case 'T':
            if ((rc = cmd_opt_num("compensate", "--test-ns", optarg, &UP_RANGE_NS, &cli.test_ns)))
                return rc;
            break;
        case 'g':
            if ((rc = cmd_opt_num("compensate", "--spin-gap-ns", optarg, &UP_RANGE_NS, &cli.spin_gap_ns)))
                return rc;
            break;
        case 'j':
            json = optarg;
            break;
        case 'f':
            force = true;
            break;
        case 'q':
            quiet = true;
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
    if (!out)
        return usage_fail("no output folder given (-o DIR)%s", "");
    input = argv[optind];

    /* what is read and written, checked before any work */
    if (up_outset_new(&os, force, &err) != UP_OK || up_outset_input(os, input, true, &err) != UP_OK ||
        up_outset_input(os, calib, false, &err) != UP_OK ||
        up_outset_add(os, out, UP_OUT_DIR, "-o", &o_dir, &err) != UP_OK ||
        (json && up_outset_add(os, json, UP_OUT_FILE, "--json", &o_json, &err) != UP_OK) ||
        up_outset_begin(os, &err) != UP_OK)
        goto fail;
    if (up_trace_open(input, &t, &err) != UP_OK)
        goto fail;

    /* parameters: archive < --calibration < command line */
    if (up_comp_params_load(&p, t, calib, source, sizeof source, &err) != UP_OK)
        goto fail;
    up_comp_params_apply_cli(&p, &cli, source, sizeof source);
    if (!p.overhead_set) {
        snprintf(source, sizeof source, "none given: O = 0");
        fprintf(stderr, "unperturb compensate: warning: no per-record overhead given (--overhead-ns, "
                        "--calibration or a calibration stored by the unperturb tracer); compensating with O = 0\n");
    }
    up_comp_params_resolve(&p);

    if (up_writer_open(up_outset_tmp(os, o_dir), t, &w, &err) != UP_OK)
        goto fail;
    if (up_comp_new(&p, t, &model, &err) != UP_OK)
        goto fail;
    up_progress_init(&pg, "compensate:", quiet);
    up_comp_set_progress(model, up_progress_update, &pg);
    st = up_replay_run(t, w, up_comp_ops(), model, &res, &err);
    up_progress_end(&pg);
    if (st != UP_OK) {
        up_writer_explain(w, st, &err);
        goto fail;
    }
    snprintf(desc, sizeof desc,
             "overhead compensated by unperturb %s: mode %s, collectives %s, O(ns) enter %g leave %g send %g recv %g coll_begin %g coll_end %g other %g metric %g fn_enter %g fn_leave %g",
             UP_VERSION, up_mode_name(p.mode), up_collective_name(p.collective),
             p.overhead_ns[UP_RK_ENTER], p.overhead_ns[UP_RK_LEAVE], p.overhead_ns[UP_RK_SEND],
             p.overhead_ns[UP_RK_RECV], p.overhead_ns[UP_RK_COLL_BEGIN],
             p.overhead_ns[UP_RK_COLL_END], p.overhead_ns[UP_RK_OTHER],
             p.overhead_ns[UP_RK_METRIC], p.overhead_ns[UP_RK_FN_ENTER],
             p.overhead_ns[UP_RK_FN_LEAVE]);
    snprintf(prop, sizeof prop, "mode=%s;collective=%s", up_mode_name(p.mode),
             up_collective_name(p.collective));
    {
        up_writer *wc = w;
        w = NULL; /* closed (or freed) by up_writer_close in any case */
        if (up_writer_close(wc, t, res.t_min_a, res.t_max_a, desc, "UNPERTURB::COMPENSATED",
                            prop, &err) != UP_OK)
            goto fail;
    }
    if (!(removed = up_calloc(res.nlocs, sizeof *removed))) {
        UP_ERR(&err, UP_ENOMEM, "out of memory");
        goto fail;
    }
    for (i = 0; i < res.nlocs; i++)
        removed[i] = up_comp_removed(model, i);
    {
        up_comp_report rp = {input, out, &p, source, up_trace_defs(t), &res, removed, 0, 0, 0, t};
        up_comp_stalls(model, &rp.nstalls, &rp.stall_ticks, &rp.stall_lists_damaged);
        /* the archive and its --json: both or neither */
        if ((json && up_report_compensate_json(&rp, up_outset_tmp(os, o_json), &err) != UP_OK) ||
            up_outset_commit(os, &err) != UP_OK)
            goto fail;
        if (!quiet)
            up_report_compensate_text(stdout, &rp);
    }
    rc = 0;
    goto done;
fail:
    rc = cmd_fail("compensate", err.status == UP_EUSAGE ? 2 : 1, err.msg);
done:
    up_free(removed);
    up_writer_abort(w);
    up_outset_free(os);
    up_comp_free(model);
    up_replay_result_free(&res);
    up_trace_close(t);
    return rc;
}
