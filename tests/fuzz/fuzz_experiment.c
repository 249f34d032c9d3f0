/*
 * fuzz_experiment.c - fuzz target "experiment": experiment files of
 * `unperturb simulate --experiment FILE` (src/run/experiment.c,
 * docs/simulate.md): the [experiment] section and the machine sections.
 *
 * Place in the data flow: what `simulate --experiment` does before its
 * first simulation, through the run layer (run/simrun.h):
 * up_experiment_load, up_sweep_parse for each sweep, the machine's
 * parameters (up_machine_param_at) and the experiment written back
 * (up_experiment_write).  Nothing is simulated, nothing named in the file
 * is read or written.
 *
 * Checked beyond "no crash": an accepted experiment names 1 to 256 inputs,
 * its sweeps' values grow from FROM to TO in steps of STEP, its machine
 * reads back from what it writes, and the experiment written reads back
 * with the same inputs and machine.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "run/simrun.h"

static void check_sweep(const up_sweep *s)
{
    size_t k;
    FZ_CHECK(s->n >= 1 && s->n <= UP_SWEEP_MAX, "%zu sweep values", s->n);
    /* (TO counts within 1e-9: a FROM that close to it may become TO) */
    FZ_CHECK(fabs(s->v[0] - s->from) <= 1e-9 * fmax(fabs(s->from), fabs(s->to)),
             "the first value %g is not FROM %g (TO %g, STEP %g)", s->v[0], s->from, s->to, s->step);
    for (k = 1; k < s->n; k++)
        FZ_CHECK(s->v[k] > s->v[k - 1] && s->v[k] <= s->to, "value %zu: %g after %g (to %g)", k, s->v[k],
                 s->v[k - 1], s->to);
}

/* The machine's parameters as "key=value\n" lines, in a new string. */
static char *params_text(const up_machine *m)
{
    char *buf = NULL;
    size_t len = 0, i;
    FILE *f = open_memstream(&buf, &len);
    up_machine_param p;
    FZ_CHECK(f != NULL, "out of memory");
    for (i = 0; up_machine_param_at(m, i, &p); i++)
        fprintf(f, "%s=%s\n", p.key, p.value);
    FZ_CHECK(fclose(f) == 0, "out of memory");
    return buf;
}

/* ex written as an experiment file reads back with the same inputs and
 * machine (inputs that do not exist keep their text; relative ones are
 * made relative to the file's folder, so only absolute ones compare). */
static void check_round_trip(const up_experiment *ex)
{
    char *text = NULL, *a, *b;
    size_t len = 0, i;
    FILE *f = open_memstream(&text, &len);
    up_experiment *again = malloc(sizeof *again);
    up_err err = {0};
    FZ_CHECK(f != NULL && again != NULL, "out of memory");
    FZ_CHECK(up_experiment_write(f, ex, 0) == 0, "up_experiment_write failed");
    FZ_CHECK(fclose(f) == 0, "out of memory");
    up_experiment_init(again);
    FZ_CHECK(up_experiment_parse(again, text, "/fuzz/experiment.ini", &err) == UP_OK,
             "the experiment written does not read back: %s", err.msg);
    FZ_CHECK(again->ninputs == ex->ninputs, "%zu inputs read back, %zu written", again->ninputs, ex->ninputs);
    a = params_text(&ex->m);
    b = params_text(&again->m);
    FZ_CHECK(!strcmp(a, b), "the machine read back differs:\n%s\nwritten:\n%s", b, a);
    for (i = 0; i < ex->nsw; i++)
        FZ_CHECK(!strncmp(again->sweep_args[i], ex->sw[i].key, strlen(ex->sw[i].key)),
                 "sweep %zu read back as '%s'", i, again->sweep_args[i]);
    free(a);
    free(b);
    free(text);
    up_experiment_free(again);
    free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fz_write_file("experiment.ini", data, size);
    up_experiment *ex = calloc(1, sizeof *ex);
    up_err err = {0};
    up_status st;
    size_t i;
    bool sweeps_ok = true;

    FZ_CHECK(ex != NULL, "out of memory");
    up_experiment_init(ex);
    st = up_experiment_load(ex, path, &err);
    FZ_CHECK(st == UP_OK || err.msg[0], "an error without a message");
    /* a NUL byte is refused by up_text_file_read, as a file that is no
     * text: UP_EIO, as for the calibration and machine files */
    FZ_CHECK(st == UP_OK || st == UP_EFORMAT || (st == UP_EIO && memchr(data, 0, size)),
             "status %d: %s", (int)st, err.msg);
    if (st == UP_OK) {
        up_machine again;
        char *text = NULL;
        size_t len = 0;
        FILE *f;
        FZ_CHECK(ex->ninputs >= 1 && ex->ninputs <= UP_SIM_MAX_INPUTS, "%zu inputs", ex->ninputs);
        for (i = 0; i < ex->nsw; i++) {
            if (up_sweep_parse(ex->sweep_args[i], &ex->m, &ex->sw[i], &err) == UP_OK)
                check_sweep(&ex->sw[i]);
            else {
                FZ_CHECK(err.msg[0], "a sweep refused without a reason");
                sweeps_ok = false;
            }
        }
        f = open_memstream(&text, &len);
        FZ_CHECK(f != NULL && up_machine_write(f, &ex->m) == 0 && fclose(f) == 0, "up_machine_write failed");
        up_machine_init(&again);
        FZ_CHECK(up_machine_parse(text, "written", &again, &err) == UP_OK,
                 "the machine written does not read back: %s", err.msg);
        free(text);
        if (sweeps_ok)
            check_round_trip(ex);
    }
    up_experiment_free(ex);
    free(ex);
    return 0;
}
