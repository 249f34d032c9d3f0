#!/bin/sh
# tests/corrupt/run.sh BUILD - the corrupt-trace corpus (tests/corrupt/README.md):
# every case of tests/corrupt/cases.txt is made from an intact base (the real
# traces of tests/data and a generated multi-chunk trace), run through
# compensate, estimate, export, report and simulate under a time and memory
# limit, and checked against what an independent OTF2 walker and otf2-print
# expect (tests/corrupt/corrupt.py).
#
#   UNPERTURB=build/san/bin/unperturb tests/corrupt/run.sh build
#   ... tests/corrupt/run.sh build --only evtcut-mid,time-spike --keep
# BUILD holds up-bench-gen.  --keep leaves each case's folder in $TMPDIR.
set -u
export LC_ALL=C
BUILD=${1:-build}
[ $# -gt 0 ] && shift
UNPERTURB=${UNPERTURB:-$BUILD/bin/unperturb}
case $UNPERTURB in /*) ;; *) UNPERTURB=$(pwd)/$UNPERTURB ;; esac
SRC=${UNPERTURB_SRC:-.}
GEN=$BUILD/bin/up-bench-gen
for x in "$UNPERTURB" "$GEN"; do
    [ -x "$x" ] || { echo "FAIL: $x is missing: run make first" >&2; exit 1; }
done
for c in otf2-print python3; do
    command -v "$c" >/dev/null 2>&1 || { echo "FAIL: $c is missing (apt-get install otf2-tools python3)" >&2; exit 1; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/unperturb-corrupt-XXXXXX")
keep=0
for a in "$@"; do [ "$a" = --keep ] && keep=1; done
if [ $keep = 1 ]; then echo "cases kept in $T/work"; else trap 'rm -rf "$T"' EXIT; fi
mkdir -p "$T/bases" "$T/work"
for d in "$SRC"/tests/data/*/; do
    ln -s "$(cd "$d" && pwd)" "$T/bases/$(basename "$d")"
done
# the multi-chunk base: 3 locations of 159992 records, 3 event chunks each
"$GEN" "$T/bases/gen" 480000 3 >/dev/null || { echo "FAIL: $GEN failed"; exit 1; }
python3 "$SRC/tests/corrupt/corrupt.py" --unperturb "$UNPERTURB" --bases "$T/bases" \
    --work "$T/work" --machine "$SRC/examples/machines/cluster.ini" "$@" \
    "$SRC/tests/corrupt/cases.txt"
