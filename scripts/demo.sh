#!/bin/sh
# make demo: compensate a real Score-P trace bundled with the sources in the
# three modes and show what changed.  Outputs go to demo/ (not versioned).
# The overhead of 150 ns per record is an assumption for this demo (a
# typical order of magnitude for Score-P MPI and function events); traces
# written by the unperturb tracer carry their measured overheads instead.
set -eu
UP=${1:-build/bin/unperturb}
TRACE=tests/data/casita-10_scorep_mpi_tags
OUT=demo
mkdir -p "$OUT"
echo "== unperturb demo: $TRACE (Score-P, 10 MPI ranks, point-to-point with tags)"
echo
"$UP" compensate "$TRACE" -o "$OUT/compensated-upper" --force --mode upper \
    --overhead-ns 150 --json "$OUT/upper.json"
echo
for m in lower network; do
    "$UP" compensate "$TRACE" -o "$OUT/compensated-$m" --force --mode $m --overhead-ns 150 \
        --copy-ns-per-byte 0.05 --latency-ns 1500 --ns-per-byte 0.1 -q --json "$OUT/$m.json"
done
echo "== the three modes side by side (run time between MPI_Init and MPI_Finalize)"
printf '  %-8s %16s %16s %10s\n' mode "measured s" "approximated s" change
for m in lower upper network; do
    sed -n 's/^ *"\(measured_time_s\|approximated_time_s\)": *\([0-9.e+-]*\).*/\2/p' "$OUT/$m.json" |
        tr '\n' ' ' | awk -v m=$m '{printf "  %-8s %16.9f %16.9f %+9.2f%%\n", m, $1, $2, 100*($2-$1)/$1}'
done
echo
echo "Outputs: $OUT/compensated-{lower,upper,network}/traces.otf2 (open them with otf2-print"
echo "or any OTF2 viewer) and the JSON summaries $OUT/{lower,upper,network}.json."
