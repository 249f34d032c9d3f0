#!/bin/sh
# bench/simcheck.sh BINDIR - the real check of `unperturb simulate`
# (docs/accuracy.md, "Predicting the dedicated run"): trace each example with
# its 2 ranks sharing one core (the speedy recipe: one processor, CPU time
# recorded), predict the run on 2 dedicated cores, and compare with real
# uninstrumented runs on 2 cores (`--bind-to core`, timed by the shim over
# MPI_Init..MPI_Finalize).  Runs alternate; each figure is min / median / max
# of ROUNDS runs.
#
# The machine model of the 2-core target comes from `unperturb calibrate` on
# 2 cores (ping-pong latency and per-byte time, both ranks on one node), so
# nothing is tuned against the truth.
#
# Environment: ROUNDS (5), EXAMPLES ("barrier transpose ring montecarlo"),
# OUT (bench/out/simcheck).  Needs 2 cores; prints a table and writes
# OUT/machine.ini and OUT/results.txt.
set -eu

BIN=${1:?usage: bench/simcheck.sh BINDIR}
ROUNDS=${ROUNDS:-5}
EXAMPLES=${EXAMPLES:-"barrier transpose ring montecarlo"}
OUT=${OUT:-bench/out/simcheck}
UP="$BIN/unperturb"
SHIM="$BIN/../lib/libunperturb-time.so"
EXD="$BIN/../examples"
ROOT=
[ "$(id -u)" = 0 ] && ROOT=--allow-run-as-root
for f in "$UP" "$SHIM"; do
    [ -e "$f" ] || { echo "simcheck: $f missing (run 'make')" >&2; exit 1; }
done
[ "$(nproc)" -ge 2 ] || { echo "simcheck: needs 2 cores" >&2; exit 1; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
RES="$OUT/results.txt"
: > "$RES"

# the target machine: this one, 2 ranks on one node
"$UP" calibrate --force -o "$OUT/calib.ini" \
    --launcher "mpirun $ROOT -np 2 --bind-to core" > /dev/null
key() { awk -F'[ =;]+' -v k="$1" '/^\[network\]/ {n = 1} n && $1 == k {print $2; exit}' "$OUT/calib.ini"; }
rtt=$(key latency_ns)
npb=$(key ns_per_byte)
os=$(key send_overhead_ns)
or=$(key recv_overhead_ns)
: "${os:=0}" "${or:=0}"
# the ping-pong's one-way time is o_s + L + o_r (LogGP)
lat=$(awk -v a="$rtt" -v b="$os" -v c="$or" 'BEGIN { l = a - b - c; print (l > 0 ? l : 0) }')
cat > "$OUT/machine.ini" <<EOF
; 2 dedicated cores of this machine, from unperturb calibrate: ping-pong
; one-way time $rtt ns = o_s + L + o_r
[processor]
cpu_ratio = 1
compute = cpu
[network]
ranks_per_node = 2
node_latency_ns = $lat
node_ns_per_byte = $npb
send_overhead_ns = $os
recv_overhead_ns = $or
[barrier]
barrier = dissemination
[collectives]
allreduce = recursive_doubling
reduce_ns_per_byte = 0
EOF
echo "simcheck: target machine: node_latency_ns=$lat node_ns_per_byte=$npb send_overhead_ns=$os recv_overhead_ns=$or ($OUT/machine.ini)"

for ex in $EXAMPLES; do
    r=1
    while [ "$r" -le "$ROUNDS" ]; do
        # T: 2 dedicated cores, uninstrumented
        rm -f "$OUT/t.txt"
        UNPERTURB_TIME_FILE="$OUT/t.txt" LD_PRELOAD="$SHIM" \
            mpirun $ROOT -np 2 --bind-to core -x UNPERTURB_TIME_FILE -x LD_PRELOAD \
            "$EXD/$ex" > /dev/null
        T=$(sed -n 's/^window_s=//p' "$OUT/t.txt")
        # traced on one core, predicted for two
        rm -rf "$OUT/one"
        taskset -c 0 "$UP" trace -q --cpu-time -o "$OUT/one" -- \
            mpirun $ROOT -np 2 --bind-to none --mca mpi_yield_when_idle 1 "$EXD/$ex" > /dev/null
        "$UP" simulate "$OUT/one" --machine "$OUT/machine.ini" -q --json "$OUT/sim.json" --force
        P=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["predicted_time_s"], d["measured_time_s"])' "$OUT/sim.json")
        echo "$ex $r $T $P" >> "$RES"
        r=$((r + 1))
    done
done
rm -rf "$OUT/one" "$OUT/t.txt" "$OUT/sim.json"

awk '
function sort(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t } }
function mmm(a, n) { sort(a, n); return sprintf("%.3f / %.3f / %.3f", a[1], a[int((n + 1) / 2)], a[n]) }
{ ex = $1; k = ++n[ex]; T[ex, k] = $3; P[ex, k] = $4; M[ex, k] = $5; if (!(ex in seen)) { seen[ex] = 1; order[++ne] = ex } }
END {
    printf "%-12s %-26s %-26s %-26s %s\n", "example", "T 2 cores, s", "traced on 1 core, s", "predicted, s", "error of medians"
    for (e = 1; e <= ne; e++) {
        ex = order[e]; m = n[ex]
        for (k = 1; k <= m; k++) { a[k] = T[ex, k]; b[k] = M[ex, k]; c[k] = P[ex, k] }
        ta = mmm(a, m); tm = a[int((m + 1) / 2)]
        tb = mmm(b, m)
        tc = mmm(c, m); pm = c[int((m + 1) / 2)]
        err = (pm - tm) / tm * 100
        printf "%-12s %-26s %-26s %-26s %+.1f%% %s\n", ex, ta, tb, tc, err, (err < 10 && err > -10) ? "PASS" : "FAIL"
    }
}' "$RES"
