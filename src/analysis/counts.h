/*
 * counts.h - records per region of a trace, and whether two traces are the
 * same execution (`unperturb validate`, docs/validate.md).
 *
 * Place in the data flow: OTF2 archive --up_trace_open--> one stream per
 * location --up_counts_read--> Enter records per region name, summed over
 * the locations --up_counts_compare--> the regions whose counts differ.
 *
 * Why: compensation removes the tracer's time from one execution.  A program
 * that sizes its loops from measured time (HPC Challenge ran MPI_Sendrecv
 * 23 386 times traced with no extra cost and 6 358 times with 1000 ns extra
 * per record) is not the same execution traced and uninstrumented, and no
 * compensation can make it so.  Two traced runs of one program whose counts
 * differ show it.
 *
 * The trace is streamed a location at a time on the reader's direct path
 * (no record is buffered): memory grows with the number of regions, not with
 * the trace.  The library never prints.
 */
#ifndef UNPERTURB_COUNTS_H
#define UNPERTURB_COUNTS_H

#include "trace/trace.h"

typedef struct up_region_count {
    char *name;   /* the region's name (owned by the table) */
    uint64_t n;   /* its Enter records, summed over the locations */
} up_region_count;

/* Enter records per region name.  Regions of the same name are one entry
 * (region ids are per archive; names are what two runs share).  Overhead
 * regions (UP_REGION_OVERHEAD: the tracer's and Score-P's buffer flushes)
 * are left out: they are the measurement, not the program.  So are poll
 * regions (UP_REGION_POLL: MPI_Test, MPI_Iprobe, ...): a program polls as
 * long as it waits, and the tracer changes how long that is (issue 21).
 * Regions never entered are left out too.  In a process of two or more CPU
 * threads, how its records of a region split among them is compared too:
 * entries "NAME [thread K by count]", the K-th largest of its threads'
 * counts (summed over such processes; counts.c, schedule_entries), for
 * traces of at most 2^22 locations x regions. */
typedef struct up_counts {
    size_t n;
    up_region_count *v;  /* sorted by name (strcmp), names unique, every n > 0 */
    uint64_t total;      /* sum of the regions' v[].n (not the threads' shares) */
} up_counts;

/* Counts the Enter records of trace `path` (an anchor file or a folder
 * holding traces.otf2) into a new table *out (free with up_counts_free).
 * Errors: those of up_trace_open and of reading the events; UP_ENOMEM.
 * A damaged archive is counted as far as it is intact (as every command
 * reads it, docs/cli.md). */
up_status up_counts_read(const char *path, up_counts **out, up_err *err);
void up_counts_free(up_counts *c);

/* The rule of up_counts_compare.  A region is compared when it has at
 * least UP_COUNTS_FLOOR records in either table (a region missing from a
 * table has 0 there).  Below that, 1% of the count is less than one
 * record, so the rule would flag any difference at all, and a region
 * entered fewer than 100 times over all ranks (MPI_Init, setup
 * collectives) carries too few records to change the comparison of run
 * times.  A compared region differs when |n - ref| > UP_COUNTS_TOL_PCT % of
 * ref, in whole numbers (exactly 1% is not a difference). */
#define UP_COUNTS_FLOOR 100
#define UP_COUNTS_TOL_PCT 1

typedef struct up_count_diff {
    const char *name;  /* points into the block *out (see up_counts_compare) */
    uint64_t ref, n;   /* the region's records in the reference and in the run */
    double rel;        /* (n - ref) / ref; +INFINITY when ref is 0 */
} up_count_diff;

/* The regions whose counts differ between `ref` and `run` under the rule
 * above, into *out (*n entries, NULL when none), sorted by |rel| largest
 * first, then by |n - ref| largest first, then by name.  *out is one
 * allocation holding the entries and copies of their names: up_free(*out)
 * frees all, and the tables may be freed before it.  Errors: UP_ENOMEM. */
up_status up_counts_compare(const up_counts *ref, const up_counts *run, up_count_diff **out,
                            size_t *n, up_err *err);

#endif
