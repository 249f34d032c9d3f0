#!/bin/sh
# tests/linear/run.sh BUILD - every command's time is linear in the size of
# the trace it reads (docs/cli.md, "Damaged traces"; issue 31: one Enter of
# 120 000 attributes took 27 s to export, 0.65 MB of trace).
#
# compensate, estimate, export, report (report.html's timeline included) and
# simulate each run on pairs of generated traces, the second 4 times the
# size of the first, and take at most 6 times the CPU (user + sys, the least
# of 3 runs: a square would take 16 times):
#   - one record with a list of 512 attributes, and of 2048 (the most a
#     list may hold, UP_SCAN_MAX_ATTRS: libotf2 reads a list in time of its
#     square, and this keeps it small);
#   - one record with 4096 attributes, and with 16384: past the limit, the
#     record is damage (one warning; the location ends there);
#   - 20 000 and 80 000 records with 3 attributes each, and 100 and 400
#     with 512 each (the records of a bench trace, `up-bench-gen -a`).
# And unperturb's own part of reading (stream_slot, the attributes of
# every buffered record) counted in instructions under callgrind: at most
# 6 times as many for a list 4 times as long (libotf2 is not counted).
#
#   tests/linear/run.sh build          (the release build: sanitizers
#                                       distort the CPU figures)
# BUILD holds up-bench-gen and up-bench-measure.
set -u
export LC_ALL=C
BUILD=${1:-build}
UNPERTURB=${UNPERTURB:-$BUILD/bin/unperturb}
case $UNPERTURB in /*) ;; *) UNPERTURB=$(pwd)/$UNPERTURB ;; esac
SRC=${UNPERTURB_SRC:-.}
GEN=$BUILD/bin/up-bench-gen
MEASURE=$BUILD/bin/up-bench-measure
MACHINE=$SRC/examples/machines/cluster.ini
BOUND=6
for x in "$UNPERTURB" "$GEN" "$MEASURE"; do
    [ -x "$x" ] || { echo "FAIL: $x is missing: run make first" >&2; exit 1; }
done
command -v valgrind >/dev/null 2>&1 || { echo "FAIL: valgrind is missing (apt-get install valgrind)" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/unperturb-linear-XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); printf 'ok    %s\n' "$1"; }
bad() { fail=$((fail + 1)); printf 'FAIL  %s\n' "$1"; [ $# -gt 1 ] && printf '%s\n' "$2" | head -n 12 | sed 's/^/      /'; }

# gen NAME OPTS SIZE LOCS: a trace in $T/NAME (up-bench-gen's options, records, locations)
gen() {
    "$GEN" $2 "$T/$1" $3 $4 > /dev/null 2> "$T/gen.err" || bad "up-bench-gen $2 $3 $4 failed" "$(cat "$T/gen.err")"
}
gen one512 "-b 512" 40 2
gen one2048 "-b 2048" 40 2
gen one4096 "-b 4096" 40 2
gen one16384 "-b 16384" 40 2
gen few20k "-a 3" 20000 4
gen few80k "-a 3" 80000 4
gen long100 "-a 512" 100 2
gen long400 "-a 512" 400 2

# run CMD TRACE: the command's words on TRACE, outputs in $T/o
run_words() {
    cmd=$1 tr=$T/$2
    case $cmd in
    compensate) echo "compensate $tr -o $T/o/c -f -q --overhead-ns 10" ;;
    estimate) echo "estimate $tr --overhead-ns 10 --json $T/o/e.json -f -q" ;;
    export) echo "export $tr --perfetto $T/o/p.json -f -q" ;;
    report) echo "report $tr -o $T/o/r.html --json $T/o/r.json -f -q" ;;
    simulate) echo "simulate $tr --machine $MACHINE -o $T/o/s -f -q" ;;
    esac
}
# cpu CMD TRACE: sets CPU to the least user + sys CPU of 3 runs, in ms (0
# when a run failed: counted as a failure)
cpu() {
    CPU=
    for i in 1 2 3; do
        rm -rf "$T/o" && mkdir -p "$T/o"
        # shellcheck disable=SC2046
        "$MEASURE" -- "$UNPERTURB" $(run_words "$1" "$2") > /dev/null 2> "$T/err"
        st=$?
        m=$(sed -n 's/^up-bench-measure: .*user_s=\([0-9.]*\) sys_s=\([0-9.]*\) .*/\1 \2/p' "$T/err" |
            awk '{ printf "%d", ($1 + $2) * 1000 + 0.5 }')
        if [ "$st" != 0 ] || [ -z "$m" ]; then
            bad "$1 $2: exit $st" "$(grep -v '^up-bench-measure' "$T/err")"
            CPU=0
            return
        fi
        if [ -z "$CPU" ] || [ "$m" -lt "$CPU" ]; then CPU=$m; fi
    done
}
# pair A B WHAT: each command on A and on B (4 times A's size) within BOUND
pair() {
    a=$1 b=$2 what=$3
    sa=$(du -sk "$T/$a" | cut -f1) sb=$(du -sk "$T/$b" | cut -f1)
    for cmd in compensate estimate export report simulate; do
        cpu "$cmd" "$a"
        ca=$CPU
        cpu "$cmd" "$b"
        cb=$CPU
        [ "$ca" -gt 0 ] && [ "$cb" -gt 0 ] || continue
        r=$(awk -v a="$ca" -v b="$cb" 'BEGIN { printf "%.2f", b / a }')
        line="$cmd, $what: $a ($sa KiB) $ca ms, $b ($sb KiB) $cb ms: x$r"
        if awk -v r="$r" -v m="$BOUND" 'BEGIN { exit !(r <= m) }'; then ok "$line"; else bad "$line (more than x$BOUND)"; fi
    done
}

# ---- the limit: the long list is damage, the one at the limit is read ------------------
for tr in one2048 one16384; do
    rm -rf "$T/o" && mkdir -p "$T/o"
    "$UNPERTURB" compensate "$T/$tr" -o "$T/o/c" --json "$T/o/c.json" --overhead-ns 10 -q > /dev/null 2> "$T/err"
    st=$?
    dmg=$(sed -n 's/.*"damaged_files": *\([0-9]*\).*/\1/p' "$T/o/c.json" 2>/dev/null | head -n 1)
    if [ $tr = one2048 ]; then
        [ "$st" = 0 ] && [ ! -s "$T/err" ] && [ "$dmg" = 0 ] && ok "$tr: read whole, no warning" ||
            bad "$tr: read whole, no warning" "exit $st, damaged_files '$dmg': $(cat "$T/err")"
    else
        grep -q "warning: '.*/traces/1.evt' at byte [0-9]* (location 1): record 1 has 16384 attributes in chunk 0, more than the 2048" "$T/err" &&
            [ "$st" = 0 ] && [ "$dmg" = 1 ] && ok "$tr: the list is damage, with a warning naming file, byte, location and record" ||
            bad "$tr: the list is damage, with a warning naming file, byte, location and record" "exit $st, damaged_files '$dmg': $(cat "$T/err")"
    fi
done

# ---- unperturb's own reading, in instructions ------------------------------------
# slot ATTRS: instructions inside stream_slot (and what it calls) for
# export of the trace with one list of ATTRS
slot() {
    valgrind --tool=callgrind --toggle-collect=stream_slot --callgrind-out-file=/dev/null \
        "$UNPERTURB" export "$T/one$1" --perfetto "$T/o/p.json" -f -q 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
rm -rf "$T/o" && mkdir -p "$T/o"
ia=$(slot 512)
ib=$(slot 2048)
if [ -n "$ia" ] && [ -n "$ib" ] && [ "$ia" -gt 0 ]; then
    r=$(awk -v a="$ia" -v b="$ib" 'BEGIN { printf "%.2f", b / a }')
    line="stream_slot (export): 512 attributes $ia instructions, 2048: $ib: x$r"
    if awk -v r="$r" -v m="$BOUND" 'BEGIN { exit !(r <= m) }'; then ok "$line"; else bad "$line (more than x$BOUND)"; fi
else
    bad "callgrind counted nothing in stream_slot ('$ia', '$ib'): a build without symbols?"
fi

# ---- CPU of every command ------------------------------------------------------------
pair one512 one2048 "one list of 512 and of 2048 attributes (the limit)"
pair one4096 one16384 "one list of 4096 and of 16384 attributes (refused)"
pair few20k few80k "20 000 and 80 000 records of 3 attributes"
pair long100 long400 "100 and 400 records of 512 attributes"

echo "linear: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
