#!/bin/sh
# scripts/accuracy.sh BUILD OUT - the accuracy study of docs/accuracy.md.
# For every example: one traced probe run on 2 ranks gives its records per
# rank and run time, from which the extra cost per record for a dilation of
# about 20%, 50% and 150% is chosen (before any comparison with the truth);
# then `unperturb validate` on 2 ranks (a core each) and on 4 ranks
# (oversubscribed), REPEAT runs of each kind.  Last, montecarlo built with
# -finstrument-functions, traced with --functions and no extra cost.
# Writes OUT/<example>-np<N>.json and prints the Markdown rows, marking the
# rows whose traced runs were a different execution (docs/validate.md).
# NP4=0 leaves out the 4-rank runs; FINST_NP="2" the 4-rank run with functions.
set -eu
BUILD=${1:-build}
OUT=${2:-accuracy}
REPEAT=${REPEAT:-5}
EXAMPLES=${EXAMPLES-"montecarlo barrier transpose transpose-any ring halo"}
UP=$BUILD/bin/unperturb
mkdir -p "$OUT"
ROOT=""
[ "$(id -u)" = 0 ] && ROOT=--allow-run-as-root

for ex in $EXAMPLES; do
    # the probe: records per rank in the window and the traced time
    rm -rf "$OUT/probe"
    "$UP" trace -q -o "$OUT/probe" -- mpirun $ROOT -np 2 --bind-to core "$BUILD/examples/$ex" > /dev/null
    recs=$(otf2-print "$OUT/probe/traces.otf2" | awk '$2 ~ /^[0-9]+$/ { n[$2]++ } END { m = 0; for (l in n) if (n[l] > m) m = n[l]; print m }')
    tm=$("$UP" compensate "$OUT/probe" -o "$OUT/probe-c" --force -q --json "$OUT/probe.json" && jq .measured_time_s "$OUT/probe.json")
    extras=$(awk -v r="$recs" -v t="$tm" 'BEGIN { c = 15e-9
        for (i = 1; i <= 3; i++) { d = i == 1 ? 0.2 : i == 2 ? 0.5 : 1.5
            e = d * t / r - c; if (e < 0) e = 0
            printf "%s%d", (i > 1 ? "," : ""), e * 1e9 } }')
    echo "$ex: $recs records per rank, traced $tm s: --extra-ns $extras" >&2
    "$UP" validate -q --np 2 --repeat "$REPEAT" --extra-ns "$extras" --launcher "mpirun --bind-to core" \
        -o "$OUT/$ex-np2" --force --json "$OUT/$ex-np2.json" -- "$BUILD/examples/$ex" > /dev/null
    [ "${NP4-1}" = 0 ] ||
        "$UP" validate -q --np 4 --repeat "$REPEAT" --extra-ns "$extras" \
            -o "$OUT/$ex-np4" --force --json "$OUT/$ex-np4.json" -- "$BUILD/examples/$ex" > /dev/null
    rm -rf "$OUT/$ex-np2" "$OUT/$ex-np4" # keep the JSON only: the traces are large
done
for np in ${FINST_NP-2 4}; do
    launcher=mpirun
    [ $np = 2 ] && launcher="mpirun --bind-to core"
    "$UP" validate -q --np $np --repeat "$REPEAT" --functions --launcher "$launcher" \
        -o "$OUT/finst-np$np" --force --json "$OUT/montecarlo-finst-np$np.json" \
        -- "$BUILD/examples/montecarlo-finst" > /dev/null
    rm -rf "$OUT/finst-np$np"
done
rm -rf "$OUT/probe" "$OUT/probe-c" "$OUT/probe.json" "$OUT/probe-c.json"

# the Markdown rows of docs/accuracy.md: 2 ranks, then 4 (scripts/accuracy-rows.jq);
# the last column: the same execution as the reference run, or which region's
# records differ (docs/validate.md); rows that say no are left out of the targets
echo "| example | extra ns | T s: min (median, max) | Tm s: min (median, max) | delta_m | Ta lower | Ta upper | Ta network | network, every run: min (median, max) | network error (Ta − T)/T | noise | width | inside | same execution |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for np in 2 4; do
    for f in "$OUT"/*-np$np.json; do
        [ -f "$f" ] || continue
        jq -r --arg n "$(basename "$f" .json | sed 's/-np[0-9]*$//')" -f "$(dirname "$0")/accuracy-rows.jq" "$f"
    done
done
