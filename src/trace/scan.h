/*
 * scan.h - checks the bytes of an OTF2 archive before libotf2 reads them
 * (internal to src/trace/; tests and fuzz targets include it too).
 *
 * Place in the data flow: in front of the reader.  Debian's libotf2 trusts
 * its input: a file cut short makes it re-read stale chunk memory forever,
 * a flipped count makes it loop past its buffers.  So every file it will
 * read is walked here first, chunk by chunk, with the layout of OTF2 3.0's
 * buffers (a chunk header, then tokens: timestamps, attribute lists, records
 * with a length), and the reader never asks libotf2 for more records than
 * were found intact.  Damage ends a file's usable part; it is described,
 * never fatal by itself.
 */
#ifndef UNPERTURB_SCAN_H
#define UNPERTURB_SCAN_H

#include <stdbool.h>
#include <stdint.h>

#include "util/util.h"

/* What the anchor file says (every field checked). */
typedef struct up_anchor_info {
    uint8_t anchor_format, trace_format, version[3];
    uint8_t substrate, compression;
    bool big_endian;
    uint64_t chunk_evt, chunk_def; /* bytes, within OTF2's [256 KiB, 16 MiB] */
    uint64_t nlocs, ngdefs;
} up_anchor_info;

/* Reads and checks the anchor file `path`.  UP_EFORMAT with a message
 * naming the file and the problem when it is not a usable OTF2 anchor. */
up_status up_scan_anchor(const char *path, up_anchor_info *a, up_err *err);

typedef enum up_file_kind {
    UP_FILE_GLOBAL_DEFS, /* traces.def */
    UP_FILE_LOCAL_DEFS,  /* traces/<location>.def */
    UP_FILE_EVENTS       /* traces/<location>.evt */
} up_file_kind;

/* The most entries an event's attribute list may hold; a longer list is
 * damage (docs/cli.md, "Damaged traces").  libotf2 reads a list of n
 * entries in time of n^2 (it adds each after a search of those before it:
 * about 2.55 n^2 instructions), and it knows no limit.  At 2048 a list
 * costs it 10.7 M instructions, as much as 256 KiB of ordinary records (the
 * smallest chunk OTF2 writes; about 40 instructions a byte), and a file of
 * nothing but such lists (5 bytes an entry) reads at most about 30 times
 * slower a byte than one of ordinary records: time stays linear in the
 * file's size.  Real traces carry a few attributes a record. */
#define UP_SCAN_MAX_ATTRS 2048

/* A range of event numbers (1-based, as OTF2 counts them) whose timestamp
 * token jumps ahead of the tokens around it. */
typedef struct up_spike {
    uint64_t first, last;
} up_spike;

/* A chunked OTF2 file, walked one chunk at a time. */
typedef struct up_scan {
    bool missing;            /* no such file: an empty location */
    const char *path;        /* not owned */
    up_file_kind kind;
    uint64_t chunk_size, file_size;
    uint64_t chunk;          /* chunks walked */
    uint64_t records;        /* records found intact so far */
    bool end;                /* nothing more: the intact end, or damage */
    bool damaged;
    uint64_t damage_off;     /* byte offset of the damage in the file */
    char damage[200];        /* what is wrong there */
    /* events: the last two timestamp tokens (0 before the first), for
     * spikes, also across chunks */
    uint64_t last_token, prev_token;
    up_spike *spikes;        /* of the last chunk walked */
    size_t nspikes, cap_spikes;
    uint64_t spikes_total;   /* events in spikes, all chunks */
    bool big_endian;
    bool strict;             /* written by OTF2 3.0 or older: a record kind it
                              * does not know is damage (set by the reader) */
} up_scan;

/* Prepares the walk of `path`, whose chunks are `chunk_size` bytes (from
 * the anchor).  A missing or empty file has nothing to read (s->missing,
 * s->end); one that cannot be opened, or is not a regular file, is damage. */
up_status up_scan_open(up_scan *s, const char *path, up_file_kind kind,
                       uint64_t chunk_size, up_err *err);
/* Walks the next chunk into `scratch` (at least chunk_size bytes): adds the
 * records found intact to s->records and returns true, or returns false
 * once the end is reached (s->end; then s->damaged says whether the file
 * ended early).  I/O errors and allocation failures count as damage. */
bool up_scan_next(up_scan *s, unsigned char *scratch);
/* Checks the first chunk header only (cheap, at open): false, with the
 * damage noted, when the file cannot hold a record. */
bool up_scan_header(up_scan *s);
/* Walks the whole file (definitions: they are read in one go). */
void up_scan_all(up_scan *s, unsigned char *scratch);
/* The byte offset of record `no` (1-based) of the file, walked again from
 * its start into `scratch` (a chunk): where libotf2 failed to decode a
 * record the walk found intact.  0 if it is not there. */
uint64_t up_scan_locate(const up_scan *s, uint64_t no, unsigned char *scratch);
void up_scan_close(up_scan *s);

#endif
