/*
 * fuzz_experiment.c - fuzz target "experiment": experiment files of
 * `unperturb simulate --experiment FILE` (tools/cmd_simulate.c,
 * docs/simulate.md): the [experiment] section and the machine sections.
 *
 * Place in the data flow: what `simulate --experiment` does before its
 * first simulation.  The command's parser is static in cmd_simulate.c, so
 * this file includes it (nothing is changed there) and runs its steps:
 * load_experiment, parse_sweep for each sweep, the machine as key/value
 * list (machine_kvs), check_recordable.  The command's printing helpers
 * of tools/unperturb.c are replaced by silent ones.  Nothing is simulated,
 * nothing named in the file is read or written.
 *
 * Checked beyond "no crash": an accepted experiment names 1 to 256 inputs,
 * its sweeps' values grow from FROM to TO in steps of STEP, and its
 * machine reads back from what it writes.
 */
#include "../../tools/cmd_simulate.c"

#include "fuzz.h"

int cmd_fail(const char *cmd, int status, const char *msg)
{
    (void)cmd, (void)msg;
    return status == 2 ? 2 : 1;
}

int cmd_usage(const char *cmd, const char *fmt, const char *arg)
{
    (void)cmd, (void)fmt, (void)arg;
    return 2;
}

int cmd_bad_option(const char *cmd, int c, char **argv, const struct option *opts)
{
    (void)cmd, (void)c, (void)argv, (void)opts;
    return 2;
}

static void check_sweep(const sweep *s)
{
    size_t k;
    FZ_CHECK(s->n >= 1 && s->n <= MAX_SWEEP_POINTS, "%zu sweep values", s->n);
    /* (TO counts within 1e-9: a FROM that close to it may become TO) */
    FZ_CHECK(fabs(s->v[0] - s->from) <= 1e-9 * fmax(fabs(s->from), fabs(s->to)),
             "the first value %g is not FROM %g (TO %g, STEP %g)", s->v[0], s->from, s->to, s->step);
    for (k = 1; k < s->n; k++)
        FZ_CHECK(s->v[k] > s->v[k - 1] && s->v[k] <= s->to, "value %zu: %g after %g (to %g)", k, s->v[k],
                 s->v[k - 1], s->to);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fz_write_file("experiment.ini", data, size);
    job *j = calloc(1, sizeof *j);
    kvs mk = {0};
    up_err err = {0};
    up_status st;
    size_t i;

    FZ_CHECK(j != NULL, "out of memory");
    st = load_experiment(j, path, &err);
    FZ_CHECK(st == UP_OK || err.msg[0], "an error without a message");
    /* a NUL byte is refused by up_text_file_read, as a file that is no
     * text: UP_EIO, as for the calibration and machine files */
    FZ_CHECK(st == UP_OK || st == UP_EFORMAT || (st == UP_EIO && memchr(data, 0, size)),
             "status %d: %s", (int)st, err.msg);
    if (st == UP_OK) {
        up_machine again;
        FZ_CHECK(j->ninputs >= 1 && j->ninputs <= MAX_INPUTS, "%zu inputs", j->ninputs);
        for (i = 0; i < j->nsw; i++) {
            char why[700];
            if (parse_sweep(j->sweep_args[i], &j->m, &j->sw[i], why, sizeof why))
                check_sweep(&j->sw[i]);
            else
                FZ_CHECK(why[0], "a sweep refused without a reason");
        }
        FZ_CHECK(machine_kvs(&j->m, &mk, &err) == UP_OK, "%s", err.msg);
        up_machine_init(&again);
        FZ_CHECK(up_machine_parse(mk.text, "written", &again, &err) == UP_OK,
                 "the machine written does not read back: %s", err.msg);
        if (j->out && check_recordable(j, &err) != UP_OK)
            FZ_CHECK(err.msg[0], "refused without a message");
    }
    kvs_free(&mk);
    job_free(j);
    free(j);
    return 0;
}
