/*
 * fuzz.h - what the fuzz targets of tests/fuzz/ share: the container that
 * turns one fuzz input into an OTF2 archive on disk, a private work folder,
 * a walk over OTF2's chunk tokens (for the mutator and the seed tool), and
 * the check that stops a run when an invariant breaks.
 *
 * Place in the data flow: in front of the library, in place of a user.
 * libFuzzer (make fuzz) or the replay runner (replay_main.c, make test)
 * calls LLVMFuzzerTestOneInput of one target; the OTF2 targets unpack the
 * input into the work folder with fz_archive_write and open it with
 * up_trace_open like any other trace.
 *
 * The container (tests/fuzz/README.md): members, each
 *     tag:1 loc:1 len:4 (little endian) data:len
 * (tag & 0x7f) % 5 is the file: 0 traces.otf2, 1 traces.def,
 * 2 traces/<loc>.def, 3 traces/<loc>.evt, 4 traces/<loc>.stalls.  Members
 * of one file are appended in order; with bit 0x80 set, a member starts the
 * file's next chunk (the file is first extended, with a hole, to a multiple
 * of its chunk size from the anchor).  A member of no bytes whose tag has
 * bit 0x40 (FZ_SPECIAL) replaces its file with a symbolic link to /dev/zero,
 * to /dev/urandom or to nothing, or with a FIFO (fz_special), and the
 * file's later members are ignored.  The loc bytes of the anchor and
 * traces.def members pick the options of a run (mode, analysis) instead.  A length past the
 * end of the input is cut to it, so every input is a valid container.
 */
#ifndef UNPERTURB_FUZZ_H
#define UNPERTURB_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);
/* libFuzzer's hooks of the container targets (mutate.c, libFuzzer builds only) */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2,
                                 uint8_t *out, size_t max, unsigned int seed);

/* Stops the run (a crash for libFuzzer, a failure for the replay runner)
 * when an invariant of the library does not hold. */
#define FZ_CHECK(cond, ...)                                                                     \
    do {                                                                                        \
        if (!(cond))                                                                            \
            fz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                                    \
    } while (0)
/* The input being run, when the replay runner knows its file (named on failure). */
extern const char *fz_input_name;
void fz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((noreturn, format(printf, 4, 5)))
#endif
    ;

/* ---- the container --------------------------------------------------------- */

enum { FZ_ANCHOR, FZ_GDEFS, FZ_LDEFS, FZ_EVENTS, FZ_STALLS, FZ_KINDS };
#define FZ_CONT 0x80u
#define FZ_SPECIAL 0x40u
#define FZ_HEAD 6                /* tag, loc, len:4 */
#define FZ_MAX_MEMBERS 64

typedef struct fz_member {
    unsigned tag;                /* as stored; fz_kind() gives the file */
    unsigned loc;
    const uint8_t *data;
    size_t len;
} fz_member;

static inline unsigned fz_kind(unsigned tag) { return (tag & 0x7fu) % FZ_KINDS; }
/* what a special member makes of its file: 0 a link to /dev/zero, 1 to
 * /dev/urandom, 2 a FIFO, 3 a link to a file that does not exist */
static inline unsigned fz_special(unsigned tag) { return (tag & 0x7fu) / FZ_KINDS % 4; }

/* Splits an input into at most `cap` members; returns how many. */
size_t fz_parse(const uint8_t *d, size_t n, fz_member *m, size_t cap);
/* Writes members back to the container form; returns the size, or 0 if it
 * would exceed `cap`. */
size_t fz_serialize(const fz_member *m, size_t n, uint8_t *out, size_t cap);
/* The chunk sizes the first anchor member gives: [0] events, [1]
 * definitions; 0 where it gives none inside OTF2's 256 KiB to 16 MiB. */
void fz_chunk_sizes(const fz_member *m, size_t n, uint64_t cs[2]);
/* The options byte of an input: the loc of its first anchor member (0 if
 * none); a second one: the loc of its first traces.def member. */
unsigned fz_options(const fz_member *m, size_t n);
unsigned fz_options2(const fz_member *m, size_t n);

/* ---- the archive on disk ---------------------------------------------------- */

/* The work folder: /dev/shm/up-fuzz.<pid> (else $TMPDIR or /tmp), made on
 * first use, removed at exit. */
const char *fz_workdir(void);
/* Writes the archive of the members to <workdir>/a/ and returns its anchor
 * path; NULL if the file system failed (a broken machine, not an input). */
const char *fz_archive_write(const fz_member *m, size_t n);
/* Writes the archive of the members to `dir` (which must exist): the
 * seed tool's unpack.  Returns 0, or -1 with errno set. */
int fz_archive_write_to(const char *dir, const fz_member *m, size_t n);
/* Removes what fz_archive_write wrote. */
void fz_archive_clear(void);
/* <workdir>/a/traces: where the archive's local files and stalls lie. */
const char *fz_archive_files(void);
/* Writes <workdir>/<name> (replacing it) and returns its path, or NULL. */
const char *fz_write_file(const char *name, const void *data, size_t len);

/* ---- OTF2 chunk tokens --------------------------------------------------------- */

/* One token of a chunk (OTF2 3.0 buffer format, src/trace/scan.c). */
typedef enum fz_tok_kind {
    FZ_TOK_HEADER,     /* 03 endian first:8 last:8 */
    FZ_TOK_TIME,       /* 05 t:8 (event files) */
    FZ_TOK_ATTRS,      /* 06 len data (event files) */
    FZ_TOK_RECORD,     /* kind len data */
    FZ_TOK_END,        /* 00 end of chunk, 02 end of file */
    FZ_TOK_BAD         /* the rest of the chunk: no valid token */
} fz_tok_kind;

typedef struct fz_tok {
    fz_tok_kind kind;
    size_t off, len;   /* the whole token in the chunk */
    size_t body;       /* where a record's or attribute list's payload starts */
} fz_tok;

/* Tokens of one chunk `d` (n bytes); `events`: an event file's chunk.
 * Returns how many (at most cap); the last one is FZ_TOK_END or FZ_TOK_BAD
 * unless the chunk runs out exactly after a record. */
size_t fz_tokens(const uint8_t *d, size_t n, bool events, fz_tok *t, size_t cap);

#endif
