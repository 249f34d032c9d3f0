/*
 * calib.h - platform constants for compensation (docs/calibration.md):
 * per-record overhead, copy time C(size), ping-pong latency and per-byte
 * time, the MPI library's eager limit.  Written as the INI text of
 * src/trace/calib.c, which `unperturb compensate --calibration` reads and
 * the merge stores in the archive.
 */
#ifndef UNPERTURB_TRACER_CALIB_H
#define UNPERTURB_TRACER_CALIB_H

#include <stddef.h>

#define UPT_CALIB_MAX 4096

enum upt_calib_mode {
    UPT_CALIB_FAST,    /* inside MPI_Init: under 100 ms, copies up to 1 MiB */
    UPT_CALIB_THOROUGH /* `unperturb calibrate`: more trials, copies up to 64 MiB */
};

/* Collective over MPI_COMM_WORLD (called after PMPI_Init): measures, takes
 * the minimum over ranks, and on every rank writes the INI text into `ini`
 * (cap bytes).  Records are timed with the tracer's extra cost
 * (UNPERTURB_EXTRA_NS, upt_calib_extra_ns) added, as the run pays it.
 * Ranks 0 and 1 run the ping-pong (none with one rank).  Returns 0, or -1
 * on failure. */
int upt_calibrate(enum upt_calib_mode mode, char *ini, size_t cap);

#endif
