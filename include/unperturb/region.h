/*
 * unperturb/region.h - mark regions of your own code in an unperturb trace.
 *
 *     #include <unperturb/region.h>
 *
 *     up_region_begin("solve");
 *     ...
 *     up_region_end("solve");
 *
 * Link with -lunperturb-trace (the library that traces MPI).  Each region
 * appears in the trace as a function named `name`, nested in the functions
 * and regions around it, and the compensation treats it like one.
 *
 * Rules:
 *  - Begin and end must nest, on the thread that called MPI_Init: an end
 *    whose name is not the innermost open region is ignored (and counted).
 *    A region still open when the function that began it returns (with
 *    -finstrument-functions) is closed there, so the trace stays nested.
 *  - The name is looked up by its pointer first (a string literal costs one
 *    cache probe and one string comparison), then by its content, so a name
 *    built in a reused buffer is fine too; the tracer keeps its own copy.
 *  - Calls are cheap no-ops when nothing is recorded: before MPI_Init, after
 *    MPI_Finalize, on other threads.  A region begun before MPI_Init and
 *    still open then (like main itself) is written with its real start time.
 *  - The UNPERTURB_FILTER function filter does not apply to these regions.
 *
 * Building the same program without the tracer: define UP_REGION_OPTIONAL
 * before including this header and use the macros UP_REGION_BEGIN(name) and
 * UP_REGION_END(name).  The functions are then weak references: without the
 * library the macros do nothing; with it (LD_PRELOAD, or linked with
 * -Wl,--no-as-needed -lunperturb-trace, as --as-needed drops a library
 * that is referenced only weakly) they record.
 */
#ifndef UNPERTURB_REGION_H
#define UNPERTURB_REGION_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(UP_REGION_OPTIONAL) && defined(__GNUC__)
#define UP_REGION_WEAK_ __attribute__((weak))
#else
#define UP_REGION_WEAK_
#endif

/* Open the region `name` (a NUL-terminated string; NULL is ignored). */
void up_region_begin(const char *name) UP_REGION_WEAK_;
/* Close it: `name` must equal (by content) the innermost open region's. */
void up_region_end(const char *name) UP_REGION_WEAK_;

#if defined(UP_REGION_OPTIONAL) && defined(__GNUC__)
#define UP_REGION_BEGIN(name) ((up_region_begin) ? up_region_begin(name) : (void)0)
#define UP_REGION_END(name) ((up_region_end) ? up_region_end(name) : (void)0)
#else
#define UP_REGION_BEGIN(name) up_region_begin(name)
#define UP_REGION_END(name) up_region_end(name)
#endif

#ifdef __cplusplus
}
#endif

#endif
