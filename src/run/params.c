/*
 * params.c - the one place that resolves a command's compensation
 * parameters (docs/calibration.md, "Where values come from, in order of
 * precedence"): compensate, estimate, report, simulate and, through
 * compensate, validate.  The order is this file's alone: the model applies
 * one source at a time (up_calibration_apply, up_comp_params_apply_cli) and
 * the range's end (up_comp_params_resolve), and src/trace reads the
 * calibration's text.  Place in the data flow: before every pipeline's
 * first pass.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "run/pipeline.h"

/* ", NAME" (or "NAME" first) after what `source` names */
static void source_add(char *source, const char *name)
{
    size_t len = strlen(source);
    if (len < UP_RUN_SOURCE_MAX)
        snprintf(source + len, UP_RUN_SOURCE_MAX - len, "%s%s", len ? ", " : "", name);
}

up_status up_run_params(up_trace *t, const char *calib, const up_comp_cli *cli,
                        up_comp_params *p, char *source, up_err *err)
{
    up_status st;
    char *stored;
    bool before;
    up_comp_params_init(p); /* 1. the defaults */
    source[0] = '\0';
    /* 2. the calibration the unperturb tracer stored in the archive, and
     * with it the archive's stall lists; errors name the archive and the
     * line: "the calibration stored in 'run/traces.otf2':3: ..." */
    if ((stored = up_trace_property(t, UP_CALIB_PROPERTY)) != NULL) {
        char what[PATH_MAX + 64];
        snprintf(what, sizeof what, "the calibration stored in '%s'", up_trace_anchor(t));
        st = up_calibration_parse(stored, what, p, err);
        up_free(stored);
        if (st != UP_OK)
            return st;
        if (p->overhead_set)
            source_add(source, "archive");
        p->archive_stalls = true;
    }
    /* 3. --calibration, named as a source if it gave O */
    if (calib) {
        before = p->overhead_set;
        p->overhead_set = false;
        if ((st = up_calibration_load(calib, p, err)) != UP_OK)
            return st;
        if (p->overhead_set)
            source_add(source, calib);
        p->overhead_set |= before;
    }
    /* 4. the command line */
    if (cli) {
        up_comp_params_apply_cli(p, cli);
        if (cli->noverhead)
            source_add(source, "--overhead-ns");
    }
    if (!p->overhead_set)
        snprintf(source, UP_RUN_SOURCE_MAX, "none given: O = 0");
    /* 5. the end of the range of O that the mode takes */
    up_comp_params_resolve(p);
    return UP_OK;
}

up_status up_run_open(const char *input, const char *calib, const up_comp_cli *cli,
                      up_run_warn_fn warn, void *wctx, const char *doing, up_trace **t,
                      up_comp_params *p, char *source, up_err *err)
{
    up_status st;
    char msg[256];
    if ((st = up_trace_open(input, t, err)) != UP_OK ||
        (st = up_run_params(*t, calib, cli, p, source, err)) != UP_OK)
        return st;
    if (!p->overhead_set && warn) {
        snprintf(msg, sizeof msg, "no per-record overhead given (--overhead-ns, --calibration or a "
                                  "calibration stored by the unperturb tracer); %s with O = 0", doing);
        warn(wctx, msg);
    }
    return UP_OK;
}
