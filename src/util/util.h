/*
 * util.h - status codes, error context, allocation, a small hash map, files
 * and output sets.
 *
 * The bottom of the dependency chain (util <- trace <- replay <- model <-
 * report <- tools).  Libraries never print and never exit: a fallible
 * function returns an up_status and leaves its message in an up_err, which
 * the command prints as `unperturb <cmd>: <message>`.  Also the file helpers
 * and output sets every command that writes goes through (output.c).
 */
#ifndef UNPERTURB_UTIL_H
#define UNPERTURB_UTIL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <stdbool.h>

#define UP_VERSION "0.1.0"

/* For the few hot helpers whose call overhead shows in profiles. */
#if defined(__GNUC__)
#define UP_HOT_INLINE static inline __attribute__((always_inline))
#else
#define UP_HOT_INLINE static inline
#endif

typedef enum up_status {
    UP_OK = 0,
    UP_ENOMEM,    /* allocation failed or a size overflowed */
    UP_EIO,       /* file system error (open, write, rename, ...) */
    UP_EFORMAT,   /* input is not what it claims to be (not OTF2, bad INI) */
    UP_EUSAGE,    /* bad argument or option value */
    UP_EEXIST,    /* refusing to overwrite something */
    UP_EOTF2,     /* the OTF2 library reported an error */
    UP_EINTERNAL  /* broken invariant: a bug in unperturb */
} up_status;

/* Last error of an operation: status plus a human-readable message and the
 * source position that raised it (for bug reports; not shown to users). */
typedef struct up_err {
    up_status status;
    const char *file;
    int line;
    char msg[1024];
} up_err;

const char *up_status_str(up_status s);

/* Sets *e (if not NULL) and returns s.  printf-style message. */
up_status up_err_set(up_err *e, up_status s, const char *file, int line,
                     const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
#define UP_ERR(e, s, ...) up_err_set((e), (s), __FILE__, __LINE__, __VA_ARGS__)

/* ---- memory ------------------------------------------------------------
 * Every allocation of the library goes through these, so tests can inject
 * failures with up_alloc_set_fail_after().  Sizes are overflow-checked:
 * up_calloc/up_reallocarray return NULL when n*size overflows. */
void *up_malloc(size_t size);
/* `size` bytes of zeroed pages, 2 MiB-aligned and advised for transparent
 * huge pages (few page faults on first touch); freed with up_pages_free. */
void *up_pages_alloc(size_t size);
void up_pages_free(void *p, size_t size);
void *up_calloc(size_t n, size_t size);
void *up_reallocarray(void *p, size_t n, size_t size);
void up_free(void *p);
char *up_strdup(const char *s);
/* Test hook: the next `n` allocations succeed, then all fail (n < 0: never). */
void up_alloc_set_fail_after(long n);

/* Grows *buf (of *cap elements of size `elem`) to hold at least `need`
 * elements, doubling.  Returns false on overflow or allocation failure
 * (the old buffer stays valid). */
bool up_grow(void **buf, size_t *cap, size_t need, size_t elem);

/* ---- ticks ---------------------------------------------------------------
 * The models compute times in ticks of the archive's clock from doubles
 * (ns times ticks per ns, compute over cpu_ratio, bytes times ns per byte).
 * Every such conversion saturates at UP_TICKS_MAX, 2^62 ticks (146 years at
 * 1 GHz), so that a sum of two converted times cannot wrap a uint64_t; a
 * model that meets it reports that its result does not fit the clock. */
#define UP_TICKS_MAX ((uint64_t)1 << 62)

/* The finaliser of splitmix64 (Steele, Lea and Flood): a bijection that
 * spreads every input bit over the output (the map's hash, validate's
 * orders: x += 0x9E3779B97F4A7C15, then this, is one splitmix64 step). */
static inline uint64_t up_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* t rounded to whole ticks: 0 for t <= 0 or NaN, UP_TICKS_MAX from there. */
static inline uint64_t up_ticks_round(double t)
{
    if (!(t > 0))
        return 0;
    if (t >= (double)UP_TICKS_MAX)
        return UP_TICKS_MAX;
    return (uint64_t)llround(t);
}

/* ---- text from outside (src/util/text.c) ----------------------------------
 * Bytes from input files and the command line, made safe to quote in
 * messages; numbers checked against their allowed range; small text files
 * (INI) read with limits, and handed to inih one line at a time. */

/* Copies s into dst (cap bytes, always terminated), every byte that does
 * not print escaped as \xNN: control characters, DEL, bytes that are not
 * valid UTF-8, UTF-8's C1 controls and its bidirectional overrides.  At
 * most `max` bytes of s are shown (0: as many as fit); a cut ends in "...".
 * Escaping escaped text changes nothing.  Returns dst. */
char *up_text_escape(char *dst, size_t cap, const char *s, size_t max);
/* s escaped (at most 200 bytes of it shown) into one of 8 rotating
 * thread-local buffers: for the arguments of one message. */
const char *up_esc(const char *s);

/* Names from traces (regions, locations, communicators; any string of a
 * trace) in the outputs that are not OTF2, one form per kind of output
 * (docs/cli.md, "Names in outputs"); OTF2 outputs keep them byte for byte:
 *   UP_TEXT_UTF8   JSON and CSV: well-formed UTF-8 as it is, every other
 *                  byte as the four characters \xNN (the writer adds JSON's
 *                  or CSV's own escapes)
 *   UP_TEXT_SHOWN  HTML and SVG, and what up_text_escape gives terminals:
 *                  also control characters, DEL, C1 controls and direction
 *                  changes as \xNN
 * A name of more than UP_NAME_MAX bytes is cut, unless UP_TEXT_WHOLE (paths,
 * text that is no name): its first whole characters within UP_NAME_MAX
 * bytes, then "...[N bytes, #hhhhhhhh]", N its length and hhhhhhhh the
 * FNV-1a hash (32 bits) of all its bytes, so that cut names stay distinct.
 * A name is then at most UP_NAME_BUF bytes in either form. */
#define UP_NAME_MAX 1024
#define UP_NAME_BUF (4 * UP_NAME_MAX + 48)
#define UP_TEXT_UTF8 0u
#define UP_TEXT_SHOWN 1u
#define UP_TEXT_WHOLE 2u
/* s (NULL: "") in that form into dst (cap bytes, terminated if cap > 0,
 * never ending in half a character or escape); returns the length of the
 * whole result, as snprintf does. */
size_t up_text_form(char *dst, size_t cap, const char *s, unsigned how);
/* The same, up_malloc'ed (NULL: out of memory). */
char *up_text_dup(const char *s, unsigned how);
/* The length of the well-formed UTF-8 sequence at s (n bytes left): 1 for
 * ASCII, 2-4, 0 if the bytes there are not UTF-8 (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF, nothing cut short). */
size_t up_text_utf8_len(const char *s, size_t n);

/* The values a number may take: lo..hi (both included) in `unit` ("ns",
 * "bytes", "" for a ratio), whole numbers only if `whole`. */
typedef struct up_range {
    double lo, hi;
    bool whole;
    const char *unit;
} up_range;

/* The ranges every command and file format shares (docs/cli.md). */
extern const up_range UP_RANGE_NS;          /* 0..1e9 ns: a cost per record, message or event */
extern const up_range UP_RANGE_NS_PER_BYTE; /* 0..1e6 ns/byte */
extern const up_range UP_RANGE_BYTES;       /* whole, 0..2^53 bytes: message sizes, limits */

/* A number as people write it, for messages: %g with a short exponent
 * (4096, 0.001, 1e9, 1e-6), and 2^53. */
void up_num_text(char *buf, size_t cap, double v);
/* The shortest text that reads back as exactly v (whole numbers below 1e15
 * without an exponent): what INI files the tools write hold. */
void up_num_exact(char *buf, size_t cap, double v);
/* "between 0 and 1e9 ns", "a whole number between 1 and 65536 MiB". */
void up_range_text(char *buf, size_t cap, const up_range *r);
/* Is v in r?  If not, writes "must be <range text>" to why. */
bool up_range_check(const up_range *r, double v, char *why, size_t cap);
/* Parses s, a decimal number (no hex, inf or nan; no blanks around it),
 * into *v and checks it against r; false with the reason in why ("not a
 * number (must be ...)" or "must be ...").  Every number an option or an
 * input file gives goes through it, except identifiers (below). */
bool up_num_parse(const char *s, const up_range *r, double *v, char *why, size_t cap);
/* The same for a whole number that a double cannot hold (a 64-bit OTF2
 * location id): decimal digits only (no sign, point, exponent or blanks),
 * 0 to max; false with the reason in why ("not a whole number (must be
 * between 0 and N)" or "must be between 0 and N"). */
bool up_uint_parse(const char *s, uint64_t max, uint64_t *v, char *why, size_t cap);

/* The largest INI file read (calibration, machine, experiment files). */
#define UP_TEXT_FILE_MAX ((size_t)1 << 20)

/* What a file of mode `m` is, for messages: "a character device", "a FIFO
 * (named pipe)", "a symbolic link", "a directory", ... */
const char *up_mode_text(mode_t m);

/* Reads the regular file `path` (at most `max` bytes, NUL-terminated into
 * *text, up_free it) for a message that calls it `what` ("machine file").
 * A directory, device, FIFO or socket is refused at once (the file is
 * opened without blocking and checked before any read), so is a larger
 * file and one holding a NUL byte.  UP_EIO names the path and the reason. */
up_status up_text_file_read(const char *path, const char *what, size_t max, char **text,
                            size_t *len, up_err *err);

/* Text handed to an ini_parse_stream reader one line per call, so that the
 * caller knows the line of every key inih reports.  A line longer than the
 * buffer inih gives is not split: it comes as an empty line, and too_long
 * holds its number (the first such line).
 *
 * Each line is also checked against the one INI syntax of every file the
 * tools read (docs/cli.md, "Values and input files"), which is stricter than
 * inih: a line is blank, a comment (';' or '#' first), a `[section]` with
 * nothing after it but an inline comment (';'), or `key = value` with a key
 * before the '=' (inih would also take `key: value`, and ignores what
 * follows a section's ']').  A carriage return ends a line only before a
 * line feed (or at the end of the text): a lone CR is an error, not a line
 * end.  After each line, bad is its number if it breaks these rules (why
 * the reason, for the reader to report as "FILE:LINE: <why>"), else 0. */
typedef struct up_lines {
    const char *s;     /* the rest of the text */
    unsigned line;     /* the line handed out last (1: the first) */
    unsigned too_long; /* the first line longer than the buffer (0: none) */
    size_t limit;      /* the characters a line may have (the buffer less 1) */
    bool drop_indent;  /* leading blanks dropped: an indented line never
                        * continues the previous value */
    unsigned bad;      /* the line handed out last if it is not INI, else 0 */
    char why[480];     /* why it is not */
    const char *sec;   /* the line handed out last is a [section]: its name,
                        * seclen bytes inside the caller's buffer; else NULL */
    size_t seclen;
} up_lines;

/* The message of a line that is none of the four kinds. */
#define UP_NOT_INI "not an INI line (expected 'key = value', a [section] or a comment)"

void up_lines_init(up_lines *l, const char *text, bool drop_indent);
/* An ini_reader: char *(*)(char *buf, int size, void *stream). */
char *up_lines_read(char *buf, int size, void *lines);

/* ---- hash map: two 64-bit words of key -> 64-bit value -----------------
 * Open addressing with linear probing and backward-shift deletion, so the
 * table never fills with tombstones; sized to stay below 50% load.  Used for
 * sparse OTF2 ids (locations are 64-bit and sparse), message queues keyed by
 * (communicator, sender, receiver, tag) and collective instances. */
typedef struct up_map {
    struct up_map_slot *slots;
    size_t cap;   /* power of two, or 0 */
    size_t len;
} up_map;

void up_map_init(up_map *m);
void up_map_free(up_map *m);
/* Returns a pointer to the value of (k0,k1), or NULL. */
uint64_t *up_map_get(const up_map *m, uint64_t k0, uint64_t k1);
/* Inserts or overwrites.  Returns false on allocation failure. */
bool up_map_put(up_map *m, uint64_t k0, uint64_t k1, uint64_t v);
/* Removes (k0,k1) if present; returns whether it was. */
bool up_map_del(up_map *m, uint64_t k0, uint64_t k1);
/* Iteration: for i in [0, m->cap), returns true and the entry if slot i is
 * in use.  The map must not change during the iteration. */
bool up_map_at(const up_map *m, size_t i, uint64_t *k0, uint64_t *k1, uint64_t *v);

/* ---- files (src/util/output.c) --------------------------------------------- */
/* Removes a file or a directory tree without following symbolic links.
 * Async-signal-safe (openat, getdents64, unlinkat, fstatat only).  Returns 0,
 * or -1 with errno set to the first failure; a missing path is no failure. */
int up_rmtree(const char *path);
/* Writes `len` bytes to `path` (created or truncated); on failure removes it
 * and names up_output_name(path) with the system's reason. */
up_status up_write_file(const char *path, const void *data, size_t len, up_err *err);

/* The canonical absolute path `path` names, which need not exist yet:
 * realpath of it if it exists (through symbolic links), else realpath of its
 * folder plus its last component.  UP_EIO when the folder does not exist. */
up_status up_path_resolve(const char *path, char *out, size_t cap, up_err *err);
/* Is the canonical path `inner` the path `outer` or below it?  (Lexical: both
 * as up_path_resolve gives them.) */
bool up_path_inside(const char *inner, const char *outer);

/* ---- outputs: complete or absent, inputs never written (src/util/output.c)
 * Every command that writes declares, before any work starts, what it reads
 * and what it writes:
 *
 *   up_outset_new(&s, force)
 *   up_outset_input(s, path, trace)        a file it reads; for a trace, the
 *                                          whole folder of its anchor file
 *                                          (X.otf2 beside X.def or X/) and
 *                                          every file OTF2 reads for it,
 *                                          resolved: X.def, X/ and each
 *                                          link in X/, wherever they lie
 *   up_outset_add(s, path, kind, "--json") a file or folder it writes
 *   up_outset_begin(s)                     the checks, then the temporaries
 *   ... write each output at up_outset_tmp(s, i) ...
 *   up_outset_commit(s)                    renames them all, or none
 *   up_outset_free(s)                      removes what was not committed
 *
 * up_outset_begin refuses an output that is, holds or lies inside an input
 * or another output (UP_EUSAGE, also with force, through symbolic links), an
 * existing output without force or of the other kind (UP_EEXIST), and a
 * missing folder (UP_EIO).  Then it removes stale temporaries next to each
 * output, creates each temporary <path>.tmp-<host>-<pid> (an empty file or
 * folder) and arms handlers of SIGHUP, SIGINT, SIGQUIT, SIGTERM and SIGPIPE
 * (those not ignored) that remove every registered temporary and end the
 * process by the signal.  A temporary is stale when its host is this host,
 * its process is gone and nothing in it changed for UP_STALE_AGE_S. */
#define UP_STALE_AGE_S (10 * 60)

typedef enum up_out_kind { UP_OUT_FILE, UP_OUT_DIR } up_out_kind;
typedef struct up_outset up_outset;

up_status up_outset_new(up_outset **s, bool force, up_err *err);
/* A missing input is not an error here (the command reports it when it
 * opens it): there is nothing to protect. */
up_status up_outset_input(up_outset *s, const char *path, bool trace, up_err *err);
/* `what` names the option in messages ("-o", "--json"); *idx gets the
 * output's index (may be NULL). */
up_status up_outset_add(up_outset *s, const char *path, up_out_kind kind, const char *what,
                        size_t *idx, up_err *err);
up_status up_outset_begin(up_outset *s, up_err *err);
const char *up_outset_tmp(const up_outset *s, size_t i);  /* where to write output i */
const char *up_outset_path(const up_outset *s, size_t i); /* output i as given */
up_status up_outset_commit(up_outset *s, up_err *err);
void up_outset_free(up_outset *s); /* NULL is fine */
/* An output given as "-" (a file output only, at most one per set) is
 * standard output: no checks, no temporary; up_outset_tmp gives
 * UP_OUTPUT_STDOUT for it, which up_write_file and up_output_fopen write to
 * fd 1.  The command then prints its table to stderr. */
#define UP_OUTPUT_STDOUT "/dev/stdout"
bool up_outset_stdout(const up_outset *s); /* has an output "-" */
/* A private folder in $TMPDIR (or /tmp) for the command's own use, made by
 * up_outset_begin, never committed, removed by up_outset_free and by the
 * signal handlers; its path is up_outset_tmp(s, *idx). */
up_status up_outset_scratch(up_outset *s, size_t *idx, up_err *err);
/* fopen(path, "wb"), or a new stream on fd 1 for UP_OUTPUT_STDOUT; and
 * remove(path) of a failed output, nothing for UP_OUTPUT_STDOUT */
FILE *up_output_fopen(const char *path);
void up_output_remove(const char *path);
/* Every output folder holds this file, written last by up_outset_commit:
 * the command and every entry the folder holds.  --force replaces an
 * existing folder only when it is empty or a walk that follows no links
 * finds exactly the entries it lists; never the working directory, a folder
 * above it, / or $HOME.  An existing file output is replaced only when it
 * is a regular file (not a device, FIFO, socket or link). */
#define UP_OUTPUT_MARKER ".unperturb-output"
/* The marker of the existing folder `dir` written anew, for what a command
 * changed in place (`trace --recover`); nothing when it holds none (not an
 * output of ours). */
up_status up_output_remark(const char *dir, up_err *err);
/* the command named in the markers ("compensate"); "unperturb" unset.
 * Returns the name it replaces (validate compensates in its own process). */
const char *up_output_command(const char *name);
/* A command's signals: SIGXFSZ ignored (a write past the file-size limit
 * fails with EFBIG and a message, and the temporaries go), unless it was
 * ignored or caught already; up_signals_child, in a forked child before
 * exec, gives the program it runs the disposition we found. */
void up_signals_init(void);
void up_signals_child(void);
/* A child's wait status in words: "exit status 3", "killed by signal 11
 * (SIGSEGV)". */
void up_wait_text(int status, char *out, size_t cap);

/* The name the user gave for a temporary path of an output set (or for a
 * path inside a temporary folder), for messages; else `path` itself.  The
 * result may live in a static buffer until the next call. */
const char *up_output_name(const char *path);
/* This host's name as temporaries carry it ([A-Za-z0-9._-], others '_'). */
const char *up_output_host(void);
/* Removes the stale temporaries of the output `path` (which must have a
 * folder that exists), those unchanged for at least min_age_s; returns how
 * many.  up_outset_begin calls it with UP_STALE_AGE_S. */
size_t up_output_sweep(const char *path, long min_age_s);

/* ---- progress on long work ------------------------------------------------ */

/* Called with the work done so far and the total expected (0: unknown). */
typedef void (*up_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/* A progress bar on stderr, drawn only when stderr is a terminal. */
typedef struct up_progress {
    const char *label;
    bool on;
    int shown;            /* last percentage drawn, -1 none */
} up_progress;

void up_progress_init(up_progress *p, const char *label, bool quiet);
void up_progress_update(void *p, uint64_t done, uint64_t total); /* an up_progress_fn */
void up_progress_end(up_progress *p); /* erases the bar */

#endif /* UNPERTURB_UTIL_H */
