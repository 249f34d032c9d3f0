#!/bin/sh
# tests/readers/run.sh BUILD - every archive unperturb writes opens in OTF2's
# own readers (issue 31): `otf2-print -G` shows no INVALID reference (a
# definition referencing one not yet read), and OTF2's Python bindings
# (Debian's python3-otf2, under /usr/bin/python3: tests/readers/pyread.py)
# read every global definition and every event, as many as the anchor file
# declares and otf2-print lists.  They refuse an archive with a forward
# reference, so they fail on what the tracer wrote before issue 31 (its MPI
# Paradigm before the String naming it) and on its compensated copies.
#
# Archives checked:
#   - the tracer's: examples/ring, examples/features with --cpu-time (RMA,
#     communicators, attributes, metrics), and `trace --recover` of a run that
#     called MPI_Abort (tests/tracer/c_hang.c), all on 2 ranks;
#   - compensate's and simulate's outputs of those, of every trace of
#     tests/data (Score-P's, and unperturb-40f2c30-features, written by the
#     tracer before issue 31) and of an archive whose definitions all
#     reference forward (BUILD/bin/up-fwd-gen, tests/readers/fwdgen.c).
# The two inputs that reference forward must themselves be refused (the
# check can fail: OTF2's Python reader refuses both, otf2-print shows the old
# tracer's INVALID reference and crashes on up-fwd-gen's archive); every
# other input must pass too.
#
#   UNPERTURB=build/san/bin/unperturb tests/readers/run.sh build
set -u
BUILD=${1:-build}
UNPERTURB=${UNPERTURB:-$BUILD/bin/unperturb}
SRC=${UNPERTURB_SRC:-.}
GEN=$BUILD/bin/up-fwd-gen
LIB=${UNPERTURB_TRACE_LIB:-$(dirname "$UNPERTURB")/../lib/libunperturb-trace.so}
PY=/usr/bin/python3
for x in "$UNPERTURB" "$GEN" "$LIB"; do
    [ -e "$x" ] || { echo "FAIL: $x is missing: run make first" >&2; exit 1; }
done
for c in otf2-print mpicc mpirun; do
    command -v $c >/dev/null 2>&1 || { echo "FAIL: $c is missing (scripts/deps.sh test)" >&2; exit 1; }
done
$PY -c 'import otf2' 2>/dev/null || { echo "FAIL: $PY cannot import otf2: install python3-otf2" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/unperturb-readers-XXXXXX")
trap 'rm -rf "$T"' EXIT
ROOT=""
[ "$(id -u)" = 0 ] && ROOT=--allow-run-as-root
MPIRUN="mpirun --oversubscribe $ROOT"
pass=0
fail=0
ok() { pass=$((pass + 1)); printf 'ok    %s\n' "$1"; }
bad() { fail=$((fail + 1)); printf 'FAIL  %s\n' "$1"; [ $# -gt 1 ] && printf '%s\n' "$2" | sed 's/^/      /'; }

# verdict ARCHIVE-FOLDER: "ok", or why the readers refuse it
verdict() {
    a=$1/traces.otf2
    [ -e "$a" ] || { echo "no archive"; return; }
    # otf2-print crashes on some archives that reference forward: a shell
    # of its own reports that, to /dev/null
    sh -c 'otf2-print -G "$1" >"$2" 2>/dev/null; exit $?' sh "$a" "$T/defs.txt" 2>/dev/null
    st=$?
    invalid=$(grep INVALID "$T/defs.txt")
    if [ $st -ne 0 ]; then
        echo "otf2-print -G failed (exit status $st)"
        return
    elif [ -n "$invalid" ]; then
        echo "otf2-print -G: $(printf '%s\n' "$invalid" | wc -l) INVALID references, the first: $(printf '%s\n' "$invalid" | head -n 1)"
        return
    fi
    ndefs=$(otf2-print -A "$a" 2>/dev/null | sed -n 's/^Number of global definitions *//p')
    nev=$(otf2-print "$a" 2>/dev/null | awk 'NF >= 3 && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/' | wc -l | tr -d ' ')
    got=$($PY "$SRC/tests/readers/pyread.py" "$a" 2>"$T/py.err")
    if [ $? -ne 0 ]; then
        echo "python3-otf2: $(tail -n 1 "$T/py.err")"
    elif [ "$got" != "definitions $ndefs events $nev" ]; then
        echo "python3-otf2 read '$got', the anchor declares $ndefs definitions and otf2-print lists $nev events"
    else
        echo ok
    fi
}

# readable NAME FOLDER: both readers take the archive in full
readable() {
    v=$(verdict "$2")
    if [ "$v" = ok ]; then ok "$1"; else bad "$1" "$v"; fi
}

# refused NAME FOLDER: the readers refuse it (an input written out of order)
refused() {
    v=$(verdict "$2")
    if [ "$v" = ok ]; then bad "$1" "both readers took it"; else ok "$1 ($v)"; fi
}

# outputs NAME INPUT: compensate's and simulate's archives of INPUT
outputs() {
    if "$UNPERTURB" compensate "$2" -o "$T/$1-comp" --overhead-ns 100 -q >"$T/log" 2>&1; then
        readable "compensate $1" "$T/$1-comp"
    else
        bad "compensate $1" "$(head -n 5 "$T/log")"
    fi
    if "$UNPERTURB" simulate "$2" -o "$T/$1-sim" -q >"$T/log" 2>&1; then
        readable "simulate $1" "$T/$1-sim"
    else
        bad "simulate $1" "$(head -n 5 "$T/log")"
    fi
    rm -rf "$T/$1-comp" "$T/$1-sim"
}

echo "== the tracer's archives"
mpicc -O1 -o "$T/ring" "$SRC/examples/ring.c" &&
    mpicc -O1 -o "$T/features" "$SRC/examples/features.c" &&
    mpicc -O1 -o "$T/c_hang" "$SRC/tests/tracer/c_hang.c" || { echo "FAIL: mpicc" >&2; exit 1; }
if "$UNPERTURB" trace -q -o "$T/ring-trace" -- $MPIRUN -np 2 "$T/ring" 200 >"$T/log" 2>&1; then
    readable "trace: ring" "$T/ring-trace"
    outputs ring "$T/ring-trace"
else
    bad "trace: ring" "$(tail -n 5 "$T/log")"
fi
if "$UNPERTURB" trace -q --cpu-time -o "$T/features-trace" -- $MPIRUN -np 2 "$T/features" 1 >"$T/log" 2>&1; then
    readable "trace --cpu-time: features" "$T/features-trace"
    outputs features "$T/features-trace"
else
    bad "trace --cpu-time: features" "$(tail -n 5 "$T/log")"
fi
# a run that called MPI_Abort leaves the per-rank files; --recover merges them
UNPERTURB_DIR="$T/abort" OMPI_MCA_odls_base_sigkill_timeout=5 LD_PRELOAD="$LIB" \
    $MPIRUN -np 2 "$T/c_hang" abort 100 >/dev/null 2>&1
if [ -d "$T/abort/.upt" ] && "$UNPERTURB" trace --recover "$T/abort" -q >"$T/log" 2>&1; then
    readable "trace --recover: an aborted run" "$T/abort"
    outputs abort "$T/abort"
else
    bad "trace --recover: an aborted run" "$(ls -a "$T/abort" 2>&1; tail -n 5 "$T/log")"
fi

echo "== an archive whose definitions all reference forward (up-fwd-gen)"
if "$GEN" "$T/fwd" >"$T/log" 2>&1; then
    refused "the input is refused" "$T/fwd"
    outputs forward "$T/fwd"
else
    bad "up-fwd-gen" "$(cat "$T/log")"
fi

echo "== the traces of tests/data"
for d in "$SRC"/tests/data/*/; do
    name=$(basename "$d")
    case $name in
    unperturb-40f2c30-*) refused "$name: the input is refused" "$d" ;;
    *) readable "$name: the input" "$d" ;;
    esac
    outputs "$name" "$d"
done

echo "tests/readers: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
