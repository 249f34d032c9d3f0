#!/bin/sh
# tools/dev/outputs.sh UNPERTURB OUTDIR TRACE... - everything the commands
# write for each TRACE, as text that two builds can be diffed by (issue 23:
# "identical outputs before and after").  For each TRACE (an anchor file or
# its folder), OUTDIR/NAME/ gets:
#   compensate-MODE.txt   otf2-print of the compensated archive (lower, upper,
#                         network with latency 1000 ns) and its --json
#   simulate.txt          simulate's --json and otf2-print of its archive
#   report.json           report --against the network-mode output
#   export.json           export --perfetto
#   estimate.json         estimate --compare
# Lines that carry the tool's own run time or file names are dropped.
#
#   tools/dev/outputs.sh build/bin/unperturb /tmp/before tests/data/*/traces.otf2
#   ... change, rebuild ...
#   tools/dev/outputs.sh build/bin/unperturb /tmp/after tests/data/*/traces.otf2
#   diff -r /tmp/before /tmp/after
set -u
U=$1
OUT=$2
shift 2
mkdir -p "$OUT"
T=$(mktemp -d "${TMPDIR:-/tmp}/unperturb-outputs-XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
# drop what differs between runs of the same build: wall times, paths, versions
clean() { sed -e "s#$T#TMP#g" -e '/"elapsed\|"seconds_tool\|"wall_s\|"created\|"version"/d' -e '/^  *creator\|^   *Creator/d'; }
dump() { # ARCHIVE FILE
    if [ -e "$1/traces.otf2" ]; then otf2-print "$1/traces.otf2" 2>&1 | clean >"$2"; else echo "no archive" >"$2"; fi
}
for tr in "$@"; do
    [ -d "$tr" ] || tr=$(dirname "$tr")
    name=$(basename "$tr")
    [ "$name" = "." ] && name=trace
    d=$OUT/$name
    mkdir -p "$d"
    for m in lower upper network; do
        "$U" compensate "$tr" -o "$T/c-$m" -m $m --latency-ns 1000 --overhead-ns 100 \
            --json "$T/c-$m.json" -q >"$d/compensate-$m.log" 2>&1
        echo "exit $?" >>"$d/compensate-$m.log"
        sed -i "s#$T#TMP#g" "$d/compensate-$m.log"
        dump "$T/c-$m" "$d/compensate-$m.txt"
        [ -e "$T/c-$m.json" ] && clean <"$T/c-$m.json" >"$d/compensate-$m.json"
    done
    "$U" simulate "$tr" -o "$T/sim" --json "$T/sim.json" -q >"$d/simulate.log" 2>&1
    echo "exit $?" >>"$d/simulate.log"
    sed -i "s#$T#TMP#g" "$d/simulate.log"
    dump "$T/sim" "$d/simulate.txt"
    [ -e "$T/sim.json" ] && clean <"$T/sim.json" >"$d/simulate.json"
    "$U" report "$tr" --against "$T/c-network" --json "$T/report.json" -q >"$d/report.log" 2>&1
    echo "exit $?" >>"$d/report.log"
    [ -e "$T/report.json" ] && clean <"$T/report.json" >"$d/report.json"
    "$U" export "$tr" --perfetto "$T/export.json" -q >"$d/export.log" 2>&1
    echo "exit $?" >>"$d/export.log"
    [ -e "$T/export.json" ] && clean <"$T/export.json" >"$d/export.json"
    "$U" estimate "$tr" --overhead-ns 100 --compare --json "$T/est.json" -q >"$d/estimate.log" 2>&1
    echo "exit $?" >>"$d/estimate.log"
    [ -e "$T/est.json" ] && clean <"$T/est.json" >"$d/estimate.json"
    rm -rf "$T"/*
done
