#!/bin/sh
# tests/names/run.sh [BUILD] - names that are not text, and huge names, through
# every command (docs/cli.md, "Names in outputs"; issue 31, items 9 and 10):
#   - a trace whose region, location and communicator names hold bytes that
#     are not UTF-8, control characters (ESC, CR, BEL, newline, DEL), a C1
#     control and a direction override in UTF-8, HTML's special characters
#     and valid non-ASCII text (tests/names/namegen.c, OTF2's own writer);
#   - compensate, estimate, simulate, report and export on it: every name is
#     in the JSON (the exact string: bytes that are not UTF-8 as \xNN, valid
#     UTF-8 as it is, control characters as JSON escapes them), in the CSV
#     and in report.html (also as headless Chromium shows it: not UTF-8 and
#     control characters as \xNN), and on the terminal with every control
#     character and byte that is not UTF-8 as \xNN; the output archives of
#     compensate and simulate keep every name byte for byte (otf2-print -G);
#   - a name of 1 MiB: the files of every command stay proportional to the
#     trace (export wrote 317 MB for 300 slices before), the name cut to its
#     first 1024 bytes and marked with its length and FNV-1a hash.
#
#   UNPERTURB=build/san/bin/unperturb tests/names/run.sh build
set -u
export LC_ALL=C
UNPERTURB=${UNPERTURB:-${1:-build}/bin/unperturb}
SRC=${UNPERTURB_SRC:-.}
DATA=$SRC/tests/data
[ -x "$UNPERTURB" ] || { echo "FAIL: $UNPERTURB is missing: run make first" >&2; exit 1; }
for c in otf2-print jq python3 iconv; do
    command -v "$c" >/dev/null 2>&1 || { echo "FAIL: $c is missing (apt-get install otf2-tools jq python3 libc-bin)" >&2; exit 1; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/unperturb-names-XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); printf 'ok    %s\n' "$1"; }
bad() { fail=$((fail + 1)); printf 'FAIL  %s\n' "$1"; [ $# -gt 1 ] && printf '%s\n' "$2" | head -n 12 | sed 's/^/      /'; }
check() { # NAME COMMAND...: ok when the command succeeds
    n=$1; shift
    if "$@" > "$T/check.out" 2>&1; then ok "$n"; else bad "$n" "$(head -c 600 "$T/check.out")"; fi
}

# ---- the traces -----------------------------------------------------------------
otf2_flags=$(pkg-config --cflags --libs otf2 2>/dev/null || echo -lopen-trace-format2)
# shellcheck disable=SC2086
${CC:-cc} -std=c11 -D_GNU_SOURCE -O1 -I"$SRC/src" -o "$T/namegen" "$SRC/tests/names/namegen.c" \
    "$SRC/src/tracegen/tracegen.c" $otf2_flags || { echo "FAIL: cannot build tests/names/namegen.c" >&2; exit 1; }
"$T/namegen" "$T/h" hostile || { echo "FAIL: namegen hostile" >&2; exit 1; }
"$T/namegen" "$T/b" big 1048576 || { echo "FAIL: namegen big" >&2; exit 1; }

# The names as namegen.c writes them ($(printf) keeps all but trailing newlines)
N_MAIN=$(printf 'm\303\244in \342\234\223')
N_LOC1=$(printf 'thread \342\234\223 \\ ok')
# as JSON's strings hold them: the bytes that are not UTF-8 as the four
# characters \xNN, everything else as it is
J_WORK='w\xff\xfe|\x80|\xc0\xaf|\xed\xa0\x80|\xe2\x9c'
J_COORDS=$(printf 'esc\033[31mred\r\a\nnl\177\302\233\342\200\256<b>"&'"'")
J_LOC0=$(printf 'loc\\xff\033]0;title\a')
J_WORLD=$(printf 'W\\xffORLD\033[2J')
# as terminals, HTML and SVG show them: also control characters, DEL, the C1
# control and the direction override as \xNN
S_WORK=$J_WORK
S_COORDS='esc\x1b[31mred\x0d\x07\x0anl\x7f\xc2\x9b\xe2\x80\xae<b>"&'"'"
S_LOC0='loc\xff\x1b]0;title\x07'
H_COORDS='esc\x1b[31mred\x0d\x07\x0anl\x7f\xc2\x9b\xe2\x80\xae&lt;b&gt;&quot;&amp;&#39;'

# terminal_clean NAME FILE: only printable text and line ends: no control
# character but newline, no byte that is not UTF-8
terminal_clean() {
    if tr -d '\n' < "$2" | grep -q '[[:cntrl:]]'; then
        bad "$1: no control characters" "$(tr -d '\n' < "$2" | grep -o '.\{0,20\}[[:cntrl:]].\{0,20\}' | head -n 3 | od -c | head -n 6)"
    elif ! iconv -f UTF-8 -t UTF-8 < "$2" > /dev/null 2>&1; then
        bad "$1: valid UTF-8" "$(iconv -f UTF-8 -t UTF-8 < "$2" 2>&1 >/dev/null | head -n 2)"
    else
        ok "$1: no control characters, valid UTF-8"
    fi
}
# has NAME FILE STRING: FILE holds STRING (fixed)
has() {
    if grep -qF -- "$3" "$2"; then ok "$1"; else bad "$1" "$(basename "$2") lacks: $3"; fi
}
# jcheck NAME FILE FILTER [--arg NAME VALUE]...: jq -e FILTER is true
jcheck() {
    n=$1 f=$2 filter=$3
    shift 3
    if jq -e "$@" "$filter" "$f" > "$T/jq.out" 2>&1; then ok "$n"; else bad "$n" "jq '$filter': $(head -c 400 "$T/jq.out")"; fi
}
# same_names NAME OUT: the definitions of OUT's archive, as otf2-print -G shows
# them, are those of the input (the clock properties aside): every name byte
# for byte
same_names() {
    otf2-print -G "$T/h/traces.otf2" 2>&1 | grep -v '^CLOCK_PROPERTIES' > "$T/defs.in"
    otf2-print -G "$2/traces.otf2" 2>&1 | grep -v '^CLOCK_PROPERTIES' > "$T/defs.out"
    if cmp -s "$T/defs.in" "$T/defs.out" && grep -qF "$(printf 'w\377\376|\200|')" "$T/defs.out" &&
        grep -qF "$(printf 'esc\033[31mred\r\a')" "$T/defs.out"; then
        ok "$1"
    else
        bad "$1" "$(diff "$T/defs.in" "$T/defs.out" | head -n 8 | od -c | head -n 8)"
    fi
}

# ---- compensate ---------------------------------------------------------------------
if "$UNPERTURB" compensate "$T/h" -o "$T/oc" --json "$T/oc.json" --overhead-ns 0 > "$T/oc.txt" 2> "$T/oc.err"; then
    ok "compensate: hostile names"
    jcheck "compensate --json: location 0's name" "$T/oc.json" '.per_location[0].name == $n' --arg n "$J_LOC0"
    jcheck "compensate --json: location 1's name (valid UTF-8 as it is)" "$T/oc.json" '.per_location[1].name == $n' --arg n "$N_LOC1"
    terminal_clean "compensate: terminal" "$T/oc.txt"
    has "compensate: terminal shows the location's name escaped" "$T/oc.txt" "$(printf '0  %-20s' 'loc\xff\x1b]0;tit...')"
    has "compensate: terminal shows valid UTF-8 as it is" "$T/oc.txt" "$N_LOC1"
    same_names "compensate: the output archive keeps every name byte for byte" "$T/oc"
else
    bad "compensate: hostile names" "$(cat "$T/oc.err")"
fi

# ---- estimate ------------------------------------------------------------------------
if "$UNPERTURB" estimate "$T/h" --per-location --compare --json "$T/oe.json" > "$T/oe.txt" 2> "$T/oe.err"; then
    ok "estimate: hostile names"
    jcheck "estimate --json: location 0's name" "$T/oe.json" '.per_location[0].name == $n' --arg n "$J_LOC0"
    jcheck "estimate --json: location 1's name" "$T/oe.json" '.per_location[1].name == $n' --arg n "$N_LOC1"
    terminal_clean "estimate: terminal" "$T/oe.txt"
    has "estimate: terminal shows the location's name escaped" "$T/oe.txt" "$(printf '0  %-20s' 'loc\xff\x1b]0;tit...')"
else
    bad "estimate: hostile names" "$(cat "$T/oe.err")"
fi

# ---- simulate ------------------------------------------------------------------------
if "$UNPERTURB" simulate "$T/h" -o "$T/os" --json "$T/os.json" > "$T/os.txt" 2> "$T/os.err"; then
    ok "simulate: hostile names"
    jcheck "simulate --json: location 0's name" "$T/os.json" '.per_location[0].name == $n' --arg n "$J_LOC0"
    jcheck "simulate --json: location 1's name" "$T/os.json" '.per_location[1].name == $n' --arg n "$N_LOC1"
    terminal_clean "simulate: terminal" "$T/os.txt"
    has "simulate: terminal shows the location's name escaped" "$T/os.txt" "$(printf '0  %-20s' 'loc\xff\x1b]0;tit...')"
    same_names "simulate: the output archive keeps every name byte for byte" "$T/os"
else
    bad "simulate: hostile names" "$(cat "$T/os.err")"
fi
# scaling: the inputs' paths in scaling.csv and scaling.json, one of them not UTF-8
mkdir -p "$T/in$(printf '\377')put"
cp -r "$T/h" "$T/in$(printf '\377')put/h"
if "$UNPERTURB" simulate "$T/in$(printf '\377')put/h" "$DATA/casita-4_mpi_ls_barr" -o "$T/scal" > "$T/scal.txt" 2> "$T/scal.err"; then
    has "simulate scaling.csv: a path that is not UTF-8, with \\xNN" "$T/scal/scaling.csv" "2,$(cd "$T" && pwd -P)/in\\xffput/h,"
    jcheck "simulate scaling.json: the same path" "$T/scal/scaling.json" 'any(.runs[]; .input == $p)' \
        --arg p "$(cd "$T" && pwd -P)/in\\xffput/h"
    if iconv -f UTF-8 -t UTF-8 < "$T/scal/scaling.csv" > /dev/null 2>&1; then ok "simulate scaling.csv: valid UTF-8"; else bad "simulate scaling.csv: valid UTF-8"; fi
else
    bad "simulate: scaling with a path that is not UTF-8" "$(cat "$T/scal.err")"
fi

# ---- report ---------------------------------------------------------------------------
if "$UNPERTURB" report "$T/h" --json "$T/or.json" -o "$T/or.html" > "$T/or.txt" 2> "$T/or.err"; then
    ok "report: hostile names"
    jcheck "report --json: both locations in measured.per_location" "$T/or.json" \
        '[.measured.per_location[].name] == [$a, $b]' --arg a "$J_LOC0" --arg b "$N_LOC1"
    jcheck "report --json: wait_states of both locations (6 patterns each)" "$T/or.json" \
        '(.wait_states | length) == 12 and ([.wait_states[] | select(.location == 0) | .name] | unique) == [$a]' \
        --arg a "$J_LOC0"
    jcheck "report --json: the call path of the region that is not UTF-8" "$T/or.json" 'any(.callpaths[]; .name == $n)' --arg n "$J_WORK"
    jcheck "report --json: the call path of the region with control characters" "$T/or.json" 'any(.callpaths[]; .name == $n)' --arg n "$J_COORDS"
    jcheck "report --json: valid UTF-8 as it is" "$T/or.json" 'any(.callpaths[]; .name == $n)' --arg n "$N_MAIN"
    jcheck "report --json: every call path (8)" "$T/or.json" '(.callpaths | length) == 8'
    terminal_clean "report: terminal" "$T/or.txt"
    has "report: terminal shows the region that is not UTF-8" "$T/or.txt" "$N_MAIN > $S_WORK"
    has "report: terminal shows the control characters escaped" "$T/or.txt" "$N_MAIN > $S_COORDS"
    has "report.html: the region that is not UTF-8" "$T/or.html" "$S_WORK"
    has "report.html: the control characters escaped, then HTML's entities" "$T/or.html" "$H_COORDS"
    has "report.html: valid UTF-8 as it is" "$T/or.html" "$N_MAIN"
    terminal_clean "report.html" "$T/or.html"
    if [ -x "$SRC/tests/report/chromium.sh" ] && command -v chromium > /dev/null 2>&1; then
        # as Chromium shows the page: the text of the DOM, entities resolved
        if "$SRC/tests/report/chromium.sh" "$T/or.html" "$T/or.png" "$S_WORK" \
            'esc\x1b[31mred\x0d\x07\x0anl\x7f\xc2\x9b\xe2\x80\xae&lt;b&gt;' "$N_MAIN" \
            > "$T/chromium.out" 2>&1; then
            ok "report.html in Chromium: every name shown, escaped"
        else
            bad "report.html in Chromium: every name shown, escaped" "$(cat "$T/chromium.out")"
        fi
    else
        bad "report.html in Chromium: chromium or tests/report/chromium.sh missing (apt-get install chromium)"
    fi
else
    bad "report: hostile names" "$(cat "$T/or.err")"
fi

# ---- export -----------------------------------------------------------------------------
if "$UNPERTURB" export "$T/h" --perfetto "$T/ox.json" > "$T/ox.txt" 2> "$T/ox.err"; then
    ok "export: hostile names"
    jcheck "export: the slice of the region that is not UTF-8" "$T/ox.json" \
        '[.traceEvents[] | select(.ph == "B" and .name == $n)] | length == 2' --arg n "$J_WORK"
    jcheck "export: the slice of the region with control characters" "$T/ox.json" \
        '[.traceEvents[] | select(.ph == "B" and .name == $n)] | length == 2' --arg n "$J_COORDS"
    jcheck "export: valid UTF-8 as it is" "$T/ox.json" \
        '[.traceEvents[] | select(.ph == "B" and .name == $n)] | length == 2' --arg n "$N_MAIN"
    jcheck "export: the threads' names" "$T/ox.json" \
        '[.traceEvents[] | select(.name == "thread_name") | .args.name] == [$a, $b]' \
        --arg a "$J_LOC0 (location 0)" --arg b "$N_LOC1 (location 1)"
    jcheck "export: the communicator's name" "$T/ox.json" \
        '[.traceEvents[] | .args.comm_name // empty] | unique == [$c]' --arg c "$J_WORLD"
    if iconv -f UTF-8 -t UTF-8 < "$T/ox.json" > /dev/null 2>&1; then ok "export: valid UTF-8"; else bad "export: valid UTF-8"; fi
else
    bad "export: hostile names" "$(cat "$T/ox.err")"
fi

# ---- a name of 1 MiB ----------------------------------------------------------------------
# the cut form: the first 1024 bytes, then the length and FNV-1a of all bytes
# (worked out here by python3)
BIGCUT=$(python3 -c '
s = b"work-" + b"x" * (1048576 - 5)
h = 2166136261
for c in s:
    h = ((h ^ c) * 16777619) & 0xffffffff
print("%s...[%d bytes, #%08x]" % (s[:1024].decode(), len(s), h))')
insize=$(du -sk "$T/b" | cut -f1)
size_ok() { # NAME FILE MAXKIB
    kb=$(du -k "$2" | cut -f1)
    if [ "$kb" -le "$3" ]; then ok "$1 ($kb KiB, at most $3)"; else bad "$1" "$kb KiB, more than $3 KiB (the trace: $insize KiB)"; fi
}
if "$UNPERTURB" export "$T/b" --perfetto "$T/bx.json" > "$T/bx.txt" 2> "$T/bx.err"; then
    size_ok "export, a name of 1 MiB in 301 slices: smaller than the trace" "$T/bx.json" "$insize"
    jcheck "export: the name cut, marked with its length and hash" "$T/bx.json" \
        '[.traceEvents[] | select(.ph == "B" and .name == $n)] | length == 301' --arg n "$BIGCUT"
    jcheck "export: the location's name cut the same way" "$T/bx.json" \
        'any(.traceEvents[]; .name == "thread_name" and .args.name == $n)' --arg n "$BIGCUT (location 1)"
else
    bad "export: a name of 1 MiB" "$(cat "$T/bx.err")"
fi
if "$UNPERTURB" report "$T/b" --json "$T/br.json" -o "$T/br.html" > "$T/br.txt" 2> "$T/br.err"; then
    size_ok "report --json: a name of 1 MiB in 7 places" "$T/br.json" 64
    size_ok "report.html: a name of 1 MiB" "$T/br.html" 256
    jcheck "report --json: the call path's name cut" "$T/br.json" 'any(.callpaths[]; .name == $n)' --arg n "$BIGCUT"
    jcheck "report --json: the location's name cut" "$T/br.json" '.measured.per_location[1].name == $n' --arg n "$BIGCUT"
    has "report.html: the name cut" "$T/br.html" "$BIGCUT"
    size_ok "report: terminal" "$T/br.txt" 16
else
    bad "report: a name of 1 MiB" "$(cat "$T/br.err")"
fi
if "$UNPERTURB" compensate "$T/b" -o "$T/bc" --json "$T/bc.json" --overhead-ns 0 > "$T/bc.txt" 2> "$T/bc.err" &&
    "$UNPERTURB" estimate "$T/b" --per-location --json "$T/be.json" > "$T/be.txt" 2> "$T/be.err" &&
    "$UNPERTURB" simulate "$T/b" --json "$T/bs.json" > "$T/bs.txt" 2> "$T/bs.err"; then
    for c in bc be bs; do
        size_ok "$c.json: a location named by 1 MiB" "$T/$c.json" 16
        jcheck "$c.json: the location's name cut" "$T/$c.json" '.per_location[1].name == $n' --arg n "$BIGCUT"
        size_ok "$c: terminal" "$T/$c.txt" 8
    done
else
    bad "compensate, estimate, simulate: a name of 1 MiB" "$(cat "$T/bc.err" "$T/be.err" "$T/bs.err" 2>/dev/null)"
fi

echo "tests/names: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
