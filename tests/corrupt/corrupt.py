#!/usr/bin/env python3
"""
tests/corrupt/corrupt.py - the corrupt-trace corpus: damaged archives made
at test time from intact bases, each run through every command that reads a
trace, each result checked against what an independent reader expects.

Place in the test flow: called by tests/corrupt/run.sh (part of `make test`,
under ASan and UBSan).  The corpus is tests/corrupt/cases.txt, one line per
case (README.md there explains the grammar):

    NAME  BASE  OPERATION [; OPERATION...]  =>  EXPECTATION [; EXPECTATION...]

For each case: the base archive is copied, the operations damage the copy,
and expectations are worked out from the intact base by otf2walk.py (an
OTF2 chunk walker that shares no code with src/) and otf2-print: which
records of a damaged file lie before the first damaged byte, the count a
location declares, the timestamps a flipped token times, the time of the
last record kept.  Then compensate, estimate, export, report and simulate
run on the damaged copy, each under a time and a memory limit, and:

  - the exit status is 0, or 1 for an `error` expectation;
  - stderr holds only `unperturb <cmd>: ...` lines (no libotf2 message, no
    sanitizer report): on exit 1 exactly one, naming the file and the
    problem; on exit 0 one warning per expected damage, naming the file,
    the location, a byte offset after the last record kept and within the
    file, the records kept of those declared and the time lost;
  - compensate --json counts the repairs (damaged_files, event_count,
    decreasing_time, time_out_of_range, time_spike) and the records kept
    per location, and its approximated run is at most twice the measured
    one (issue 19: 5.19e9 s for a 0.006 s run);
  - the archives written by compensate and simulate are read by otf2-print
    without a warning it does not give on the input, and hold, per
    location, exactly the records kept, and declare that many;
  - the JSON outputs parse; nothing is written next to the input, and
    nothing is left behind when a command fails.

usage: corrupt.py --unperturb BIN --bases DIR --work DIR --machine INI
                  [--only NAME[,NAME...]] [--keep] CASES
BASES holds one folder per base name (run.sh links tests/data/* there and
generates `gen`).
"""
import argparse
import json
import os
import re
import resource
import shlex
import shutil
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from otf2walk import Base, Walk, WalkError, otf2_defs, otf2_events  # noqa: E402

TIME_LIMIT = 60            # seconds per command
MEM_LIMIT_MB = 2048        # address space (plain builds) or RSS (ASan builds)
TIME_KINDS = {"backwards": "decreasing_time", "range": "time_out_of_range",
              "spike": "time_spike"}
COUNTERS = ("damaged_files", "event_count", "decreasing_time", "time_out_of_range",
            "time_spike")


class CaseError(Exception):
    """The manifest is wrong (not the program under test)."""


# ---- the manifest ----------------------------------------------------------------

class Case:
    def __init__(self, lineno, name, base, ops, expects):
        self.lineno, self.name, self.base, self.ops, self.expects = lineno, name, base, ops, expects


def parse_manifest(path):
    cases = []
    for n, raw in enumerate(open(path), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if "=>" not in line:
            raise CaseError("%s:%d: no '=>'" % (path, n))
        left, right = line.split("=>", 1)
        head = left.split(None, 2)
        if len(head) < 3:
            raise CaseError("%s:%d: NAME BASE OPERATION => EXPECTATION" % (path, n))
        ops = [shlex.split(o) for o in head[2].split(";") if o.strip()]
        exps = [shlex.split(e) for e in right.split(";") if e.strip()]
        cases.append(Case(n, head[0], head[1], ops, exps))
    names = [c.name for c in cases]
    dup = {x for x in names if names.count(x) > 1}
    if dup:
        raise CaseError("%s: cases named twice: %s" % (path, ", ".join(sorted(dup))))
    return cases


# ---- addresses: where in a file an operation acts --------------------------------

ADDR = re.compile(r"^(?P<term>[^+\-]+|-\d+)(?P<delta>[+-]\d+)?$")


def resolve(base, rel, at):
    """Byte offset in file `rel` of base `base` named by `at` (README.md)."""
    m = ADDR.match(at)
    if not m:
        raise CaseError("bad address %r" % at)
    term, delta = m.group("term"), int(m.group("delta") or 0)
    path = os.path.join(base.path, rel)
    if re.fullmatch(r"-?\d+", term):
        v = int(term)
        return (os.path.getsize(path) + v if v < 0 else v) + delta
    if term == "end":
        return os.path.getsize(path) + delta
    kind, _, arg = term.partition(":")
    if kind == "anchor":
        if rel != "traces.otf2":
            raise CaseError("anchor: addresses are in traces.otf2")
        return base.anchor.offsets[arg] + delta
    w, loc = base.walk_of(rel)
    if w is None:
        raise CaseError("%s has no %s" % (base.name, rel))
    arg, _, field = arg.partition(".")
    if kind == "chunk":
        c = w.chunks[int(arg)]
        return c[0] + {"": 0, "first": 2, "last": 10}[field] + delta
    if kind == "ts":  # ts:N, ts:last, ts:cK (the first record of chunk K)
        r = (w.recs[-1] if arg == "last" else
             w.recs[w.chunks[int(arg[1:])][3]] if arg.startswith("c") else w.recs[int(arg) - 1])
        if r.tok is None or r.tok < 0:
            raise CaseError("record %s of %s has no timestamp token" % (arg, rel))
        return w.tokens[r.tok][0] + 1 + delta
    if kind == "attrs":
        return w.attr_lists[int(arg) - 1] + delta
    if kind == "rec":
        r = w.recs[-1] if arg == "last" else w.recs[int(arg) - 1]
    elif kind == "def":
        name, _, i = arg.partition("#")
        r = base.nth_def(name, int(i or 1))
    elif kind == "ev":
        name, _, i = arg.partition("#")
        r = base.nth_event(loc, name, int(i or 1))
    else:
        raise CaseError("bad address %r" % at)
    return {"": r.off, "len": r.len_off, "body": r.body, "end": r.end}[field] + delta


def hexbytes(s):
    s = s[2:] if s.startswith("0x") else s
    return bytes.fromhex(s)


def compressed(v, big):
    """An OTF2 compressed number: its byte count, then its bytes (0: none)."""
    n = (v.bit_length() + 7) // 8
    return bytes([n]) + v.to_bytes(n, "big" if big else "little")


def attr_list(n, big):
    """An attribute-list token of n UINT8 entries (ids 0..n-1, values i & 0xff),
    as OTF2 writes it: 06, the length (ff and 8 bytes), the count, then
    (id, type 1, value) per entry."""
    body = compressed(n, big) + b"".join(compressed(i, big) + bytes([1, i & 0xff]) for i in range(n))
    return b"\x06\xff" + struct.pack(">Q" if big else "<Q", len(body)) + body


def materialise(case, bases, dest):
    """Copies the base to dest and applies the case's operations."""
    base = bases[case.base]
    shutil.copytree(base.path, dest, symlinks=False)
    for op in case.ops:
        verb, args = op[0], op[1:]
        f = lambda rel: os.path.join(dest, rel)  # noqa: E731
        if verb == "cut":
            os.truncate(f(args[0]), resolve(base, args[0], args[1]))
        elif verb in ("xor", "set"):
            at = resolve(base, args[0], args[1])
            val = hexbytes(args[2])
            with open(f(args[0]), "r+b") as fh:
                fh.seek(at)
                old = fh.read(len(val))
                if len(old) != len(val):
                    raise CaseError("%s: %s past the end of %s" % (case.name, verb, args[0]))
                new = bytes(a ^ b for a, b in zip(old, val)) if verb == "xor" else val
                if new == old:
                    raise CaseError("%s: %s changes nothing" % (case.name, " ".join(op)))
                fh.seek(at)
                fh.write(new)
        elif verb == "splice":  # splice FILE AT N HEX: N bytes replaced by others
            at, n, val = resolve(base, args[0], args[1]), int(args[2]), hexbytes(args[3])
            w, _ = base.walk_of(args[0])
            if len(w.chunks) != 1:
                raise CaseError("%s: splice moves the chunks of %s" % (case.name, args[0]))
            b = open(f(args[0]), "rb").read()
            open(f(args[0]), "wb").write(b[:at] + val + b[at + n:])
        elif verb == "attrs":  # attrs FILE AT N: an attribute list of N entries inserted at AT
            at, n = resolve(base, args[0], args[1]), int(args[2])
            w, _ = base.walk_of(args[0])
            if len(w.chunks) != 1:
                raise CaseError("%s: attrs moves the chunks of %s" % (case.name, args[0]))
            b = open(f(args[0]), "rb").read()
            big = b[1:2] == b"\x23"
            for a in w.attr_lists:  # a record has one list at most
                ln = b[a + 1] if b[a + 1] != 0xff else struct.unpack(">Q" if big else "<Q", b[a + 2:a + 10])[0]
                if at == a or at == a + (2 if b[a + 1] != 0xff else 10) + ln:
                    raise CaseError("%s: the record at %s has an attribute list" % (case.name, args[1]))
            lst = attr_list(n, big)
            if len(b) + len(lst) > base.anchor.chunk_evt:
                raise CaseError("%s: %d attributes do not fit the chunk" % (case.name, n))
            open(f(args[0]), "wb").write(b[:at] + lst + b[at:])
        elif verb == "settime":  # settime FILE ts:N ts:M[+D]: token N takes token M's time (+D ticks)
            w, _ = base.walk_of(args[0])
            big = "<" if not open(w.path, "rb").read(2)[1:] == b"\x23" else ">"
            src = resolve(base, args[0], args[2].split("+")[0])
            delta = int(args[2].split("+")[1]) if "+" in args[2] else 0
            with open(f(args[0]), "r+b") as fh:
                fh.seek(src)
                v = struct.unpack(big + "Q", fh.read(8))[0] + delta
                fh.seek(resolve(base, args[0], args[1]))
                fh.write(struct.pack(big + "Q", v))
        elif verb == "rm":
            os.unlink(f(args[0]))
        elif verb == "empty":
            open(f(args[0]), "wb").close()
        elif verb == "mkdir":
            os.unlink(f(args[0]))
            os.mkdir(f(args[0]))
        elif verb == "swap":
            tmp = f(args[0]) + ".swap"
            os.rename(f(args[0]), tmp)
            os.rename(f(args[1]), f(args[0]))
            os.rename(tmp, f(args[1]))
        elif verb == "copy":  # copy OTHERBASE:FILE FILE
            ob, _, of = args[0].partition(":")
            shutil.copyfile(os.path.join(bases[ob].path, of), f(args[1]))
        else:
            raise CaseError("%s: unknown operation %r" % (case.name, verb))


def first_difference(a_path, b_path):
    """The first byte where file b differs from file a (a truncation differs
    at its new end); None if they are the same."""
    a = open(a_path, "rb").read()
    b = open(b_path, "rb").read() if os.path.isfile(b_path) else b""
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return None if len(a) == len(b) else n


# ---- expectations ------------------------------------------------------------------

class Expected:
    def __init__(self):
        self.rc = 0
        self.error = None          # (path, [phrases])
        self.warnings = []         # what each warning must say (dicts)
        self.counters = dict.fromkeys(COUNTERS, 0)  # compensate --json repairs (or top-level keys)
        self.records = {}          # location -> records in the outputs
        self.print_warns = False   # otf2-print may warn about the outputs' definitions


def fmt_lost(base, loc, kept):
    """The time lost on a location, as the warning prints it, from
    otf2-print's timestamp of the last record kept."""
    res, off, length = base.clock
    t_last = base.events[loc][kept - 1][1] if kept else off
    if t_last < off or t_last - off >= length:
        return None
    return (off + length - t_last) / res


def repaired_times(times, clock):
    """The documented repair applied to a location's times: a time outside
    the clock range, or before the time kept last, takes the time kept last.
    Returns (running backwards, outside the range)."""
    _, off, length = clock
    last, back, out = off, 0, 0
    for t in times:
        if t > off + length or t < off:
            out += 1
        elif t < last:
            back += 1
        else:
            last = t
    return back, out


def expect_damaged(case, base, dest, ex, args):
    """damaged FILE PHRASE... [kept=before|chunks|N|any] [at=ADDRESS]"""
    rel = args[0]
    phrases = [a for a in args[1:] if "=" not in a]
    opts = dict(a.split("=", 1) for a in args[1:] if "=" in a)
    w, loc = base.walk_of(rel)
    full = os.path.join(dest, rel)
    if "at" in opts:
        pos = resolve(base, rel, opts["at"])
    elif os.path.isfile(full):
        pos = first_difference(w.path, full)
    else:
        pos = 0
    if pos is None:
        raise CaseError("%s: %s is not damaged (give at=)" % (case.name, rel))
    size = os.path.getsize(full) if os.path.isfile(full) else 0
    d = {"file": full, "loc": loc, "phrases": phrases, "pos": pos, "size": size,
         "events": rel.endswith(".evt")}
    how = opts.get("kept", "before")
    kept = (None if how == "any" else w.before(pos) if how == "before" else
            w.chunks_before(pos) if how == "chunks" else int(how))
    d["kept"] = kept
    if kept is None:  # at least what lies before the damage's chunk (events) or itself (definitions)
        d["least"] = w.chunks_before(pos) if d["events"] else w.before(pos)
    d["lo"] = w.recs[kept - 1].end if kept else 0
    if d["events"]:
        d["declared"] = base.declared[loc]
        d["lost"] = fmt_lost(base, loc, kept) if kept is not None and kept < d["declared"] else None
        ex.records[loc] = kept
    elif loc is not None:
        del d["kept"]  # local definitions: no count is printed
    ex.warnings.append(d)
    ex.counters["damaged_files"] += 1


def expect_times(case, base, dest, ex, args):
    """times FILE spike|backwards|range: the records of the one changed
    timestamp token repaired so; times FILE raw|print: the repair of every
    time as the walker reads it (no clock offsets: for locations that lost
    them, or whose offsets are far smaller than the margins) or as
    otf2-print does (clock offsets applied)."""
    rel, what = args[0], args[1]
    w, loc = base.walk_of(rel)
    full = os.path.join(dest, rel)
    if what in TIME_KINDS:
        pos = first_difference(w.path, full)
        toks = [i for i, t in enumerate(w.tokens) if pos is not None and t[0] < pos <= t[0] + 8]
        if not toks:
            raise CaseError("%s: no timestamp token changed in %s" % (case.name, rel))
        n = {TIME_KINDS[what]: w.token_records(toks[0])}
    else:
        # the clock of the damaged archive (its traces.def may be another's)
        clock = otf2_defs(os.path.join(dest, "traces.otf2"), strict=False)[1] or base.clock
        if what == "raw":  # the times in the file, no clock offsets applied
            times = [w.tokens[r.tok][1] for r in w.recs]
        else:  # the damaged archive as otf2-print reads it
            ev, rc, err = otf2_events(os.path.join(dest, "traces.otf2"))
            times = [t for _, t in ev.get(loc, [])]
        back, out = repaired_times(times, clock)
        n = {"decreasing_time": back, "time_out_of_range": out}
    phrases = ["%d running backwards" % n.get("decreasing_time", 0),
               "%d outside the clock range" % n.get("time_out_of_range", 0),
               "%d jumping ahead" % n.get("time_spike", 0)]
    for k, v in n.items():
        ex.counters[k] += v
    if sum(n.values()):
        ex.warnings.append({"file": full, "loc": loc, "times": True, "phrases": phrases})


def expectations(case, bases, dest):
    base = bases[case.base]
    ex = Expected()
    ex.records = {loc: len(w.recs) if w else 0 for loc, w in base.evt.items()}
    for e in case.expects:
        kind, args = e[0], e[1:]
        if kind == "error":
            ex.rc = 1
            ex.error = (dest if args[0] == "." else os.path.join(dest, args[0]), args[1:])
        elif kind == "clean":
            pass
        elif kind == "damaged":
            expect_damaged(case, base, dest, ex, args)
        elif kind == "count":  # count FILE [declared=N]: an intact file, another number of records
            rel = args[0]
            opts = dict(a.split("=", 1) for a in args[1:] if "=" in a)
            _, loc = base.walk_of(rel)
            full = os.path.join(dest, rel)
            n = len(Walk(full, base.anchor.chunk_evt, True).recs) if (
                os.path.isfile(full) and os.path.getsize(full)) else 0
            ex.warnings.append({"file": full, "loc": loc, "count": n, "phrases": [],
                                "declared": int(opts.get("declared", base.declared[loc]))})
            ex.counters["event_count"] += 1
            ex.records[loc] = n
        elif kind == "times":
            expect_times(case, base, dest, ex, args)
        elif kind == "repair":  # repair KEY=N: a counter worked out by hand
            k, v = args[0].split("=")
            ex.counters[k] = int(v)
        elif kind == "printwarns":  # damaged definitions copied as read: otf2-print warns
            ex.print_warns = True
        elif kind == "records":  # records LOC=N: output records worked out by hand
            k, v = args[0].split("=")
            ex.records[int(k)] = int(v)
        else:
            raise CaseError("%s: unknown expectation %r" % (case.name, kind))
    return ex


# ---- running the commands -------------------------------------------------------------

def is_asan(binary):
    with open(binary, "rb") as f:
        return b"__asan_init" in f.read()


def run(cmd, asan):
    """Runs cmd under the time and memory limits: (status, stderr); status
    is 'timeout' past the time limit, negative for a signal."""
    env = dict(os.environ)
    if asan:  # ASan reserves terabytes of address space: limit RSS instead
        env["ASAN_OPTIONS"] = ":".join(filter(None, [
            env.get("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1"),
            "hard_rss_limit_mb=%d" % MEM_LIMIT_MB, "malloc_limit_mb=%d" % MEM_LIMIT_MB]))
        pre = None
    else:
        def pre():
            lim = MEM_LIMIT_MB << 20
            resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", env=env,
                           timeout=TIME_LIMIT, preexec_fn=pre, start_new_session=True)
    except subprocess.TimeoutExpired as e:
        return "timeout", (e.stderr or b"").decode("utf-8", "replace") if isinstance(
            e.stderr, bytes) else (e.stderr or "")
    return p.returncode, p.stderr


def snapshot(folder):
    """Every path under folder with its size and modification time."""
    out = {}
    for root, dirs, files in os.walk(folder):
        for n in dirs + files:
            p = os.path.join(root, n)
            st = os.lstat(p)
            out[os.path.relpath(p, folder)] = (st.st_size, st.st_mtime_ns)
    return out


def outside(snap):
    """A snapshot without the output folder."""
    return {k: v for k, v in snap.items() if k != "out" and not k.startswith("out/")}


def output_records(anchor, allowed):
    """Per location: the records otf2-print shows (counted by awk), and the
    count each Location declares; or a problem (otf2-print fails, or warns
    of more than it does on the input: `allowed`)."""
    with open(anchor + ".err", "w+") as errf:
        p1 = subprocess.Popen(["otf2-print", anchor], stdout=subprocess.PIPE, stderr=errf)
        p2 = subprocess.run(["awk", "/^=== Events/ {e = 1; next} "
                             "e && $1 ~ /^[A-Z_]+$/ && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ {n[$2]++} "
                             "END {for (k in n) print k, n[k]}"],
                            stdin=p1.stdout, capture_output=True, text=True)
        p1.stdout.close()
        rc = p1.wait()
        errf.seek(0)
        err = errf.read()
    os.unlink(anchor + ".err")
    extra = [l for l in err.split("\n") if l.strip() and allowed is not None and l not in allowed]
    if rc != 0 or extra:
        return None, None, "otf2-print fails on %s: %s" % (anchor, " | ".join(extra)[:300])
    got = {int(a): int(b) for a, b in (l.split() for l in p2.stdout.split("\n") if l.strip())}
    _, _, declared = otf2_defs(anchor)
    return got, declared, None


class Checker:
    def __init__(self, name):
        self.name, self.problems = name, []

    def need(self, cond, what):
        if not cond:
            self.problems.append(what)
        return cond


WARN = re.compile(r"^unperturb (\w+): warning: (.*)$")


def match_warning(line, w):
    """Does warning text `line` (after 'warning: ') say what w expects?"""
    if "'%s'" % w["file"] not in line:
        return False
    if w["loc"] is not None and "(location %d)" % w["loc"] not in line:
        return False
    return all(p in line for p in w["phrases"]) and (
        ("count" in w and "holds %d records where its definition declares %d"
         % (w["count"], w["declared"]) in line) or
        ("times" in w) or
        ("pos" in w and " at byte " in line))


def check_damage_line(chk, line, w):
    """The numbers of a damage warning: offset, records kept, time lost."""
    m = re.search(r" at byte (\d+)", line)
    at = int(m.group(1))
    # where the reader noticed the damage: not inside what it kept, and
    # not past the file (a damaged length is noticed after the damage)
    chk.need(w["lo"] <= at <= w["size"],
             "warning on %s: byte %d is not between the end of the last record kept (%d) "
             "and the end of the file (%d)" % (w["file"], at, w["lo"], w["size"]))
    if "least" in w:
        m = re.search(r"; (?:the )?(\d+) (of \d+ records kept|records kept|definitions before it are used)", line)
        chk.need(m and int(m.group(1)) >= w["least"],
                 "warning on %s: expected at least %d kept" % (w["file"], w["least"]))
        return
    if w.get("kept") is None:
        return
    if w.get("events"):
        k, d = w["kept"], w["declared"]
        want = ("; %d of %d records kept" % (k, d)) if k < d else ("; %d records kept" % k)
        chk.need(want in line, "warning on %s: expected '%s'" % (w["file"], want.strip("; ")))
        if w["lost"] is not None:
            m = re.search(r"the last ([0-9.]+) s of the run lost", line)
            chk.need(m and abs(float(m.group(1)) - w["lost"]) <= 1.5e-6,
                     "warning on %s: expected the last %.6f s lost" % (w["file"], w["lost"]))
        elif k >= d:
            chk.need("lost" not in line, "warning on %s: nothing was lost" % w["file"])
    elif "kept" in w:  # traces.def
        want = "the %d definitions before it are used" % w["kept"]
        chk.need(want in line, "warning on %s: expected '%s'" % (w["file"], want))


def check_stderr(chk, cmd, rc, err, ex):
    lines = [l for l in err.split("\n") if l.strip()]
    stray = [l for l in lines if not l.startswith("unperturb %s: " % cmd)]
    chk.need(not stray, "%s: stderr lines not from unperturb: %s" % (cmd, " | ".join(stray)[:600]))
    if ex.rc == 1:
        path, phrases = ex.error
        chk.need(len(lines) == 1, "%s: %d lines on stderr, expected one: %s"
                 % (cmd, len(lines), " | ".join(lines)[:600]))
        if lines:
            chk.need(path in lines[0] and all(p in lines[0] for p in phrases),
                     "%s: the error does not name '%s' and say %s: %s" % (cmd, path, phrases, lines[0]))
        return
    warns = [WARN.match(l).group(2) for l in lines if WARN.match(l)]
    left = list(warns)
    for w in ex.warnings:
        hit = [l for l in left if match_warning(l, w)]
        if chk.need(len(hit) == 1, "%s: expected one warning on '%s' (%s), got: %s"
                    % (cmd, w["file"], ", ".join(w["phrases"]) or w.get("count", ""),
                       " | ".join(warns)[:800] or "none")):
            left.remove(hit[0])
            if "pos" in w:
                check_damage_line(chk, hit[0], w)
    chk.need(not left, "%s: unexpected warnings: %s" % (cmd, " | ".join(left)[:800]))


def check_archive(chk, what, anchor, ex, base):
    got, declared, problem = output_records(anchor, None if ex.print_warns else base.print_err)
    if not chk.need(problem is None, "%s: %s" % (what, problem)):
        return
    for loc, n in ex.records.items():
        if n is None:
            continue
        chk.need(got.get(loc, 0) == n, "%s: location %d holds %d records, expected %d"
                 % (what, loc, got.get(loc, 0), n))
        chk.need(declared.get(loc) == got.get(loc, 0),
                 "%s: location %d declares %s records and holds %d"
                 % (what, loc, declared.get(loc), got.get(loc, 0)))


def run_case(case, bases, args, asan, work):
    chk = Checker(case.name)
    top = os.path.join(work, case.name)
    shutil.rmtree(top, ignore_errors=True)
    os.makedirs(top)
    inp, out = os.path.join(top, "in"), os.path.join(top, "out")
    os.makedirs(out)
    materialise(case, bases, inp)
    ex = expectations(case, bases, inp)
    before = snapshot(top)
    U = args.unperturb
    cmds = [
        ("compensate", [U, "compensate", inp, "-o", out + "/comp", "--json", out + "/comp.json",
                        "--overhead-ns", "10", "-q"], ["comp", "comp.json"]),
        ("estimate", [U, "estimate", inp, "--json", out + "/est.json", "--overhead-ns", "10",
                      "-q"], ["est.json"]),
        ("export", [U, "export", inp, "--perfetto", out + "/trace.json", "-q"], ["trace.json"]),
        ("report", [U, "report", inp, "--json", out + "/report.json", "--overhead-ns", "10",
                    "-q"], ["report.json"]),
        ("simulate", [U, "simulate", inp, "--machine", args.machine, "-o", out + "/sim",
                      "--json", out + "/sim.json", "-q"], ["sim", "sim.json"]),
    ]
    for cmd, argv, outputs in cmds:
        rc, err = run(argv, asan)
        if not chk.need(rc in (0, 1), "%s: exit status %s%s" % (
                cmd, rc, (": " + err.strip()[-1500:]) if err.strip() else "")):
            continue
        chk.need(rc == ex.rc, "%s: exit status %d, expected %d: %s"
                 % (cmd, rc, ex.rc, err.strip()[:600]))
        check_stderr(chk, cmd, rc, err, ex)
        present = sorted(os.listdir(out))
        if rc != 0:
            chk.need(not any(o in present for o in outputs),
                     "%s: failed but left %s" % (cmd, [o for o in outputs if o in present]))
        for o in outputs:
            if rc == 0 and chk.need(o in present, "%s: wrote no %s" % (cmd, o)) and o.endswith(".json"):
                try:
                    json.load(open(os.path.join(out, o)))
                except ValueError as e:
                    chk.need(False, "%s: %s is not JSON: %s" % (cmd, o, e))
        chk.need(outside(snapshot(top)) == outside(before),
                 "%s: the input folder changed, or something was written next to it" % cmd)
    if ex.rc == 0 and os.path.exists(out + "/comp.json"):
        j = json.load(open(out + "/comp.json"))
        rep = j.get("repairs", {})
        for k, v in ex.counters.items():
            got = rep[k] if k in rep else j.get(k)
            chk.need(got == v, "compensate --json: %s = %s, expected %d" % (k, got, v))
        per = {p["location"]: p["records"] for p in j.get("per_location", [])}
        for loc, n in ex.records.items():
            if n is None:
                continue
            chk.need(per.get(loc) == n, "compensate --json: location %d has %s records, expected %d"
                     % (loc, per.get(loc), n))
        # repaired timestamps stay in the clock range, and the approximated
        # run is of the measured one's size (issue 19: 5.19e9 s for 0.006 s)
        res, off, length = bases[case.base].clock
        chk.need(j["measured_time_s"] <= length / res * 1.000001 and
                 j["approximated_time_s"] <= 2 * j["measured_time_s"],
                 "compensate: approximated %.9g s, measured %.9g s, clock length %.9g s"
                 % (j["approximated_time_s"], j["measured_time_s"], length / res))
    if ex.rc == 0:
        for what in ("comp", "sim"):
            if os.path.exists(os.path.join(out, what, "traces.otf2")):
                check_archive(chk, "%s output" % what, os.path.join(out, what, "traces.otf2"), ex,
                              bases[case.base])
    return chk


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--unperturb", required=True)
    ap.add_argument("--bases", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--machine", required=True)
    ap.add_argument("--only")
    ap.add_argument("--keep", action="store_true", help="keep each case's folder")
    ap.add_argument("cases")
    args = ap.parse_args()
    cases = parse_manifest(args.cases)
    if args.only:
        want = set(args.only.split(","))
        cases = [c for c in cases if c.name in want]
    bases = {}
    try:
        for c in cases:
            for b in [c.base] + [o[1].split(":")[0] for o in c.ops if o[0] == "copy"]:
                if b not in bases:
                    bases[b] = Base(b, os.path.join(args.bases, b))
    except WalkError as e:
        print("FAIL  base: %s" % e)
        return 1
    asan = is_asan(args.unperturb)
    passed = failed = 0
    kinds = set()
    for c in cases:
        t0 = time.monotonic()
        try:
            chk = run_case(c, bases, args, asan, args.work)
        except (CaseError, WalkError, KeyError, IndexError, ValueError) as e:
            chk = Checker(c.name)
            chk.need(False, "cases.txt:%d: %s: %s" % (c.lineno, type(e).__name__, e))
        if not args.keep and not chk.problems:
            shutil.rmtree(os.path.join(args.work, c.name), ignore_errors=True)
        kinds.add(c.name.split("-")[0])
        if chk.problems:
            failed += 1
            print("FAIL  %s (cases.txt:%d)" % (c.name, c.lineno))
            for p in chk.problems[:12]:
                print("      " + p)
        else:
            passed += 1
            print("ok    %s (%.1f s)" % (c.name, time.monotonic() - t0))
        sys.stdout.flush()
    print("corrupt-trace corpus: %d cases (%d kinds of damage), %d passed, %d failed"
          % (len(cases), len(kinds), passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
