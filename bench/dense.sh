#!/bin/sh
# bench/dense.sh BUILD - dense records (issue 20, item 4): does compensation
# recover a run whose records come every few tens of ns?  up-bench-dense
# (bench/dense.c) polls MPI_Test POLLS times with UNITS steps of work between
# polls; every test fails, so the tracer's records are the only perturbation.
# For each UNITS: `unperturb validate` on 2 ranks, a core each, ROUNDS runs
# of each kind, alternating; prints T, Tm, the network and lower results and
# their errors, the gap between two records (Tm per record), the calibrated O
# of a poll's three records (Enter, MpiRequestTested, Leave) and how many gaps
# were shorter than the O to remove (overhead_clamped).
# Environment: ROUNDS (5), POLLS (300000), UNITS ("0 10 40 200").  Not a test.
set -eu
BUILD=${1:-build}
ROUNDS=${ROUNDS:-5}
POLLS=${POLLS:-300000}
UNITS=${UNITS:-0 10 40 200}
UP=$BUILD/bin/unperturb
DENSE=$BUILD/bin/up-bench-dense
for f in "$UP" "$DENSE"; do
    [ -e "$f" ] || { echo "bench/dense.sh: $f missing (run 'make' and 'make $DENSE')" >&2; exit 1; }
done
T=$(mktemp -d /tmp/unperturb-bench-dense.XXXXXX)
trap 'rm -rf "$T"' EXIT
echo "== dense records: $POLLS failed MPI_Test per rank, UNITS of work between, 2 ranks (--bind-to core), $ROUNDS runs of each"
printf '%6s %10s %10s %10s %8s %10s %8s %9s %11s %10s\n' units "T s" "Tm s" "Ta net s" "error" "Ta low s" "error" "ns/record" "O/poll ns" "clamped"
for u in $UNITS; do
    UNPERTURB_BUFFER_MB=${UNPERTURB_BUFFER_MB:-256} \
    "$UP" validate -q --np 2 --repeat "$ROUNDS" --launcher "mpirun --bind-to core" \
        -o "$T/v$u" --force --json "$T/v$u.json" -- "$DENSE" "$POLLS" "$u" > /dev/null
    recs=$(otf2-print "$T/v$u/np2-x0/trace/traces.otf2" | awk '$2 == "0" { n++ } END { print n }')
    o=$(jq '.parameters.overhead_ns | .poll_enter + .poll_leave + .other | . * 10 | round / 10' "$T/v$u/np2-x0/network.json")
    clamped=$(jq '.repairs.overhead_clamped // 0' "$T/v$u/np2-x0/network.json")
    jq -r --arg u "$u" --arg recs "$recs" --arg o "$o" --arg cl "$clamped" '.rows[0] |
        [$u, (.T_median_s*1e4|round/1e4), (.Tm_median_s*1e4|round/1e4), (.Ta_network_s*1e4|round/1e4),
         ((.Ta_network_s-.T_median_s)/.T_median_s*1000|round/10|tostring+"%"),
         (.Ta_lower_s*1e4|round/1e4), ((.Ta_lower_s-.T_median_s)/.T_median_s*1000|round/10|tostring+"%"),
         (.Tm_median_s/($recs|tonumber)*1e10|round/10), $o, $cl] | @tsv' "$T/v$u.json" |
        awk -F'\t' '{ printf "%6s %10s %10s %10s %8s %10s %8s %9s %11s %10s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }'
done
