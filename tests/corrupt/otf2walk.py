"""
tests/corrupt/otf2walk.py - an independent reader of OTF2 files for the
corrupt-trace corpus (tests/corrupt/README.md).

Place in the test flow: corrupt.py reads each intact base archive with this
module and with otf2-print, and works out from them where a damage lands and
what a reader can still trust.  It shares no code with src/: it follows the
OTF2 3.0 buffer layout (summarised at the top of src/trace/scan.c, and in
OTF2's own documentation) and is checked against otf2-print on every base
(record counts per file, definition kinds in order).

Only intact files are walked; anything unexpected raises WalkError, which
makes the test fail (a base must be intact for its expectations to mean
anything).
"""
import os
import re
import struct
import subprocess

T_END_CHUNK, T_END_BUFFER, T_END_FILE, T_HEADER = 0, 1, 2, 3
T_TIMESTAMP, T_ATTRIBUTES = 5, 6
HEADER = 18  # 03 <endian> <first record:8> <last record:8>
# OTF2 1.0's one-number events carry no length: the kind, then the number
# (a size byte and that many bytes, or 00 / ff alone).  Enter, Leave,
# MpiIsendComplete, MpiIrecvRequest, MpiRequestTest, MpiRequestCancelled,
# OmpFork, OmpTaskCreate, OmpTaskSwitch, OmpTaskComplete (found by writing
# each one-field event with libotf2 3.0.2 and reading the bytes).
SINGLETONS = {12, 13, 16, 17, 20, 21, 24, 28, 29, 30}


class WalkError(Exception):
    pass


class Anchor:
    """traces.otf2: the fields the corpus damages, with their offsets."""

    def __init__(self, path):
        b = open(path, "rb").read()
        if len(b) < 40 or b[0] != T_HEADER or b[2:7] != b"OTF2\0":
            raise WalkError("%s: not an OTF2 anchor" % path)
        self.big = b[1] == 0x23
        e = ">" if self.big else "<"
        self.size = len(b)
        # byte offsets of the fields (the layout of OTF2 3.0's anchor file)
        self.offsets = {
            "endian": 1, "anchor_format": 7, "trace_format": 8, "version": 9,
            "chunk_evt": 12, "chunk_def": 20, "substrate": 28, "compression": 29,
            "nlocs": 30, "ngdefs": 38, "machine": 46,
        }
        self.version = tuple(b[9:12])
        self.chunk_evt, self.chunk_def = struct.unpack(e + "QQ", b[12:28])
        self.substrate, self.compression = b[28], b[29]
        self.nlocs, self.ngdefs = struct.unpack(e + "QQ", b[30:46])


class Rec:
    """One record: `off` its kind byte, `body` its first payload byte, `end`
    one past its last byte; `no` its number in the file (1-based); `tok` the
    index of the timestamp token in effect (events), `chunk` its chunk."""
    __slots__ = ("off", "kind", "len_off", "body", "end", "no", "tok", "chunk")


class Walk:
    """An intact chunked OTF2 file: chunks, records and timestamp tokens."""

    def __init__(self, path, chunk_size, events):
        self.path = path
        data = open(path, "rb").read()
        self.size = len(data)
        self.chunks = []   # (offset, first, last, index of its first record)
        self.recs = []
        self.tokens = []   # (offset of the 05 byte, value, index of its first record)
        self.attr_lists = []  # offsets of attribute-list tokens (events)
        if not data:
            return
        big = data[1] == 0x23
        e = ">" if big else "<"
        off = 0
        while True:
            if off >= len(data):
                raise WalkError("%s: ends without an end-of-file mark" % path)
            c = data[off:off + chunk_size]
            if len(c) < HEADER or c[0] != T_HEADER:
                raise WalkError("%s: no chunk header at %d" % (path, off))
            first, last = struct.unpack(e + "QQ", c[2:HEADER])
            self.chunks.append((off, first, last, len(self.recs)))
            p = HEADER
            while True:
                if p >= len(c):
                    raise WalkError("%s: chunk at %d has no end mark" % (path, off))
                k = c[p]
                if k == T_END_CHUNK:
                    off += chunk_size
                    break
                if k == T_END_FILE:
                    self.end_mark = off + p
                    return
                if k in (T_END_BUFFER, T_HEADER):
                    raise WalkError("%s: buffer mark at %d" % (path, off + p))
                if events and k == T_TIMESTAMP:
                    v = struct.unpack(e + "Q", c[p + 1:p + 9])[0]
                    self.tokens.append((off + p, v, len(self.recs)))
                    p += 9
                    continue
                q = p + 1
                n = c[q]
                q += 1
                if events and k in SINGLETONS and n in (0, 0xFF):
                    n = 0  # the number is its size byte alone
                elif n == 0xFF:
                    n = struct.unpack(e + "Q", c[q:q + 8])[0]
                    q += 8
                if q + n > len(c):
                    raise WalkError("%s: record at %d runs past its chunk" % (path, off + p))
                if events and k == T_ATTRIBUTES:
                    self.attr_lists.append(off + p)
                else:
                    r = Rec()
                    r.off, r.kind, r.len_off, r.body, r.end = off + p, k, off + p + 1, off + q, off + q + n
                    r.no = len(self.recs) + 1
                    r.tok = len(self.tokens) - 1 if events else None
                    r.chunk = len(self.chunks) - 1
                    self.recs.append(r)
                p = q + n

    # what a reader can trust when the byte at `pos` is damaged
    def before(self, pos):
        """Records wholly before byte `pos`."""
        return sum(1 for r in self.recs if r.end <= pos)

    def chunk_of(self, pos):
        i = 0
        for j, c in enumerate(self.chunks):
            if c[0] <= pos:
                i = j
        return i

    def chunks_before(self, pos):
        """Records of the chunks before the one holding byte `pos`."""
        i = self.chunk_of(pos)
        return self.chunks[i][3]

    def token_records(self, t):
        """The records timed by token index t."""
        first = self.tokens[t][2]
        nxt = self.tokens[t + 1][2] if t + 1 < len(self.tokens) else len(self.recs)
        return nxt - first


# ---- otf2-print: the second independent reader --------------------------------

DEF_LINE = re.compile(r"^([A-Z][A-Z0-9_]+)\s")


def otf2_defs(anchor, strict=True):
    """Global definitions in file order: [(NAME, line)], the clock
    (resolution, offset, length) and {location id: declared events}.
    Not strict: what otf2-print shows even if it reports an error."""
    p = subprocess.run(["otf2-print", "-G", anchor], capture_output=True, text=True)
    if p.returncode != 0 and strict:
        raise WalkError("otf2-print -G %s failed: %s" % (anchor, p.stderr.strip()))
    defs, locs, clock = [], {}, None
    body = p.stdout.split("-" * 80, 1)[1] if "-" * 80 in p.stdout else p.stdout
    for line in body.split("\n"):
        m = DEF_LINE.match(line)
        if not m:
            continue
        defs.append((m.group(1), line))
        if m.group(1) == "CLOCK_PROPERTIES":
            c = re.search(r"Ticks per Seconds: (\d+), Global Offset: (\d+), Length: (\d+)", line)
            clock = tuple(int(x) for x in c.groups())
        elif m.group(1) == "LOCATION":
            f = line.split()
            locs[int(f[1])] = int(re.search(r"# Events: (\d+)", line).group(1))
    return defs, clock, locs


def otf2_events(anchor):
    """{location id: [(NAME, timestamp)]} in file order, and otf2-print's
    exit status and error output."""
    p = subprocess.run(["otf2-print", anchor], capture_output=True, text=True)
    ev = {}
    on = False
    for line in p.stdout.split("\n"):
        if line.startswith("=== Events"):
            on = True
            continue
        if not on:
            continue
        f = line.split(None, 3)
        if len(f) >= 3 and DEF_LINE.match(line) and f[1].isdigit() and f[2].isdigit():
            ev.setdefault(int(f[1]), []).append((f[0], int(f[2])))
    return ev, p.returncode, p.stderr


class Base:
    """An intact archive: the anchor, traces.def and every defined
    location's files walked, and checked against otf2-print."""

    def __init__(self, name, path):
        self.name, self.path = name, path
        self.anchor = Anchor(os.path.join(path, "traces.otf2"))
        self.defs, self.clock, self.declared = otf2_defs(os.path.join(path, "traces.otf2"))
        self.gdef = Walk(os.path.join(path, "traces.def"), self.anchor.chunk_def, False)
        if len(self.gdef.recs) != len(self.defs):
            raise WalkError("%s: %d definition records, otf2-print lists %d"
                            % (name, len(self.gdef.recs), len(self.defs)))
        kinds = {}
        for r, (n, _) in zip(self.gdef.recs, self.defs):
            if kinds.setdefault(n, r.kind) != r.kind:
                raise WalkError("%s: %s has two record kinds" % (name, n))
        self.events, rc, err = otf2_events(os.path.join(path, "traces.otf2"))
        if rc != 0:
            raise WalkError("otf2-print %s failed: %s" % (name, err.strip()))
        self.print_err = set(err.split("\n"))  # otf2-print's warnings on the intact base
        self.evt, self.ldef = {}, {}
        for loc in self.declared:
            f = os.path.join(path, "traces", "%d.evt" % loc)
            w = Walk(f, self.anchor.chunk_evt, True) if os.path.exists(f) else None
            n = len(w.recs) if w else 0
            if n != len(self.events.get(loc, [])):
                raise WalkError("%s location %d: %d records, otf2-print shows %d"
                                % (name, loc, n, len(self.events.get(loc, []))))
            self.evt[loc] = w
            f = os.path.join(path, "traces", "%d.def" % loc)
            self.ldef[loc] = Walk(f, self.anchor.chunk_def, False) if os.path.exists(f) else None

    def walk_of(self, rel):
        """The walk of file `rel` (relative to the archive folder) and its
        location id (None for traces.def)."""
        if rel == "traces.def":
            return self.gdef, None
        m = re.match(r"traces/(\d+)\.(evt|def)$", rel)
        if not m:
            raise WalkError("%s is not a chunked file of the archive" % rel)
        loc = int(m.group(1))
        return (self.evt if m.group(2) == "evt" else self.ldef)[loc], loc

    def nth_def(self, name, i):
        """The i-th (1-based) global definition otf2-print calls NAME."""
        idx = [j for j, (n, _) in enumerate(self.defs) if n == name]
        if i > len(idx):
            raise WalkError("%s has %d %s definitions" % (self.name, len(idx), name))
        return self.gdef.recs[idx[i - 1]]

    def nth_event(self, loc, name, i):
        """The i-th (1-based) event of location loc that otf2-print calls NAME."""
        idx = [j for j, (n, _) in enumerate(self.events[loc]) if n == name]
        if i > len(idx):
            raise WalkError("%s location %d has %d %s events" % (self.name, loc, len(idx), name))
        return self.evt[loc].recs[idx[i - 1]]
