/*
 * fuzz_calibration.c - fuzz target "calibration": calibration files
 * (src/model/calibration.c, docs/calibration.md), read from a file by
 * --calibration and from text when the tracer stored one in the archive.
 *
 * Place in the data flow: in front of the compensate model.  The input is
 * the text of a calibration.  Checked beyond "no crash":
 *   - read from a file or from the same text, it gives the same parameters
 *     or the same error (when the text holds no NUL byte);
 *   - parameters read without error hold: every O and its range finite and
 *     not negative, the range around O, a copy table of strictly growing
 *     sizes, C(size) finite and not negative;
 *   - reading the same text again over the result changes nothing (a later
 *     source replaces what an earlier one gave).
 */
#include "fuzz.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/compensate.h"

static void check_params(const up_comp_params *p)
{
    static const uint64_t sizes[] = {0, 1, 2, 7, 1000, 1u << 20, UINT64_MAX};
    up_comp_params q;
    size_t i;
    unsigned k;
    for (k = 0; k < UP_RK_COUNT; k++) {
        FZ_CHECK(isfinite(p->overhead_ns[k]) && p->overhead_ns[k] >= 0, "O[%u] = %g", k, p->overhead_ns[k]);
        if (p->range_set)
            FZ_CHECK(p->overhead_low_ns[k] <= p->overhead_ns[k] && p->overhead_ns[k] <= p->overhead_high_ns[k] &&
                         p->overhead_low_ns[k] >= 0 && isfinite(p->overhead_high_ns[k]),
                     "range of O[%u]: %g <= %g <= %g", k, p->overhead_low_ns[k], p->overhead_ns[k],
                     p->overhead_high_ns[k]);
    }
    FZ_CHECK(p->ncopy <= UP_COPY_POINTS && p->nloc_ovh <= UP_LOC_OVH_MAX, "%zu copy points, %zu locations",
             p->ncopy, p->nloc_ovh);
    for (i = 1; i < p->ncopy; i++)
        FZ_CHECK(p->copy_bytes[i - 1] < p->copy_bytes[i], "copy table not sorted at %zu", i);
    for (i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        double c = up_copy_ns(p, sizes[i]);
        FZ_CHECK(c >= 0 && !isnan(c), "C(%llu) = %g", (unsigned long long)sizes[i], c);
    }
    for (k = 0; k < 3; k++) { /* each mode's choice of O */
        q = *p;
        q.mode = (up_mode)k;
        up_comp_params_resolve(&q);
        for (i = 0; i < UP_RK_COUNT; i++)
            FZ_CHECK(isfinite(q.overhead_ns[i]) && q.overhead_ns[i] >= 0, "mode %u: O[%zu] = %g", k, i,
                     q.overhead_ns[i]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    up_comp_params p, again, pf;
    up_err err = {0}, errf = {0};
    up_status st, stf;

    FZ_CHECK(text != NULL, "out of memory");
    memcpy(text, data, size);
    text[size] = 0;
    up_comp_params_init(&p);
    st = up_calibration_parse(text, "fuzz", &p, &err);
    FZ_CHECK(st == UP_OK || st == UP_EFORMAT, "status %d: %s", (int)st, err.msg);
    FZ_CHECK(st == UP_OK || err.msg[0], "an error without a message");
    if (strlen(text) == size) { /* the same bytes from a file */
        const char *path = fz_write_file("calibration.ini", data, size);
        up_comp_params_init(&pf);
        stf = up_calibration_load(path, &pf, &errf);
        FZ_CHECK(stf == st, "text: status %d (%s), file: status %d (%s)", (int)st, err.msg, (int)stf,
                 errf.msg);
        if (st == UP_OK)
            FZ_CHECK(!memcmp(&p, &pf, sizeof p), "the file and the text give other parameters");
    }
    if (st == UP_OK) {
        check_params(&p);
        again = p;
        FZ_CHECK(up_calibration_parse(text, "fuzz", &again, &err) == UP_OK, "read again: %s", err.msg);
        FZ_CHECK(!memcmp(&p, &again, sizeof p), "reading the text again changed the parameters");
    }
    free(text);
    return 0;
}
