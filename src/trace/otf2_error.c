/*
 * otf2_error.c - OTF2's error messages, kept instead of printed: the
 * reader, the definitions, their copy and the writer each report an OTF2
 * failure with the message OTF2 gave for it (up_otf2_last_error,
 * up_otf2_err_).  A file of its own, below all of them: reader.c reads the
 * definitions with defs.c, and defs.c used reader.c for these.
 */
#include <stdio.h>

#include "trace_int.h"

static _Thread_local char otf2_msg[512];

static OTF2_ErrorCode on_otf2_error(void *ud, const char *file, uint64_t line,
                                    const char *func, OTF2_ErrorCode code,
                                    const char *fmt, va_list va)
{
    int n;
    (void)ud, (void)file, (void)line, (void)func;
    n = snprintf(otf2_msg, sizeof otf2_msg, "%s", OTF2_Error_GetDescription(code));
    if (fmt && *fmt && n > 0 && (size_t)n < sizeof otf2_msg - 3) {
        snprintf(otf2_msg + n, sizeof otf2_msg - (size_t)n, ": ");
        vsnprintf(otf2_msg + n + 2, sizeof otf2_msg - (size_t)n - 2, fmt, va);
    }
    return code;
}

void up_otf2_quiet(void) { OTF2_Error_RegisterCallback(on_otf2_error, NULL); }

const char *up_otf2_last_error(void) { return otf2_msg; }

void up_otf2_clear_(void) { otf2_msg[0] = 0; }

const char *up_otf2_msg_(const char *otherwise) { return otf2_msg[0] ? otf2_msg : otherwise; }

up_status up_otf2_err_(up_err *err, OTF2_ErrorCode code, const char *what)
{
    return UP_ERR(err, UP_EOTF2, "%s: %s", what, up_otf2_msg_(OTF2_Error_GetDescription(code)));
}
