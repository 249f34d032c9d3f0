#!/bin/sh
# bench/simulate.sh BINDIR - the simulate benchmark of `make bench` (issue 7;
# bench/README.md "Simulate against SimGrid SMPI").
#
# For each location count in SIM_NLOCS: generate a synthetic MPI trace of
# SIM_SIZE events (bench/gen.c), and the trace SMPI replays (the same one, or
# a smaller one of the same shape when SMPI_SIZES says so: SMPI is slow);
# convert the latter once to SimGrid's time-independent format (bench/otf2ti.c,
# timed apart, not counted); then SIM_ROUNDS alternating rounds of
#   unperturb simulate TRACE --machine MACHINE -q                (timed)
#   smpirun -replay INDEX -platform P.xml -hostfile H ...         (timed)
# each timed by up-bench-measure (wall clock, CPU time, peak RSS).  Prints
# events/s min/median/max per trace and tool, simulate/SMPI, the slowdown of
# simulate from the first to the last location count, PASS/FAIL per target,
# and both tools' predicted run times of the same trace (a sanity check).
#
# Environment: SIM_SIZE (20000000), SIM_NLOCS ("16 1024"), SMPI_SIZES (events
# of the trace SMPI replays, one per SIM_NLOCS entry: "20000000 2000000"),
# SIM_ROUNDS (5), SMPI_ROUNDS (3: SMPI takes about 35 s a run at 20M events;
# rounds past it time simulate alone), MACHINE (bench/machine.ini), SMPI=0 skips SimGrid,
# BENCH_OUT (bench/out), KEEP=1 keeps the traces and TI files.
# Exits non-zero only if a tool fails, not if a target is missed.  If
# `unperturb simulate` does not exist yet it says so and runs SMPI alone.
set -eu

BIN=${1:?usage: bench/simulate.sh BINDIR}
SIM_SIZE=${SIM_SIZE:-20000000}
SIM_NLOCS=${SIM_NLOCS:-"16 1024"}
SMPI_SIZES=${SMPI_SIZES:-"20000000 2000000"}
SIM_ROUNDS=${SIM_ROUNDS:-5}
SMPI_ROUNDS=${SMPI_ROUNDS:-3}
MACHINE=${MACHINE:-bench/machine.ini}
SMPI=${SMPI:-1}
OUT=${BENCH_OUT:-bench/out}
KEEP=${KEEP:-0}
HERE=$(cd "$(dirname "$0")" && pwd)

for b in up-bench-gen up-bench-measure unperturb; do
    [ -x "$BIN/$b" ] || { echo "simulate bench: $BIN/$b missing (run 'make bench')" >&2; exit 1; }
done
[ -f "$MACHINE" ] || { echo "simulate bench: machine file $MACHINE missing" >&2; exit 1; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
T_START=$(date +%s)

# nth LIST N: the N-th word of LIST (the last one if LIST is shorter)
nth() {
    echo "$1" | awk -v n="$2" '{ print (n <= NF ? $n : $NF) }'
}

cleanup() {
    rm -f "$OUT/last.out" "$OUT/last.err" "$OUT/gen.out"
    rm -rf "$OUT/smpi"
    if [ "$KEEP" != 1 ]; then
        i=1
        for nl in $SIM_NLOCS; do
            ns=$(nth "$SMPI_SIZES" "$i")
            rm -rf "$OUT/trace-$SIM_SIZE-$nl" "$OUT/trace-$SIM_SIZE-$nl.records" \
                   "$OUT/trace-$ns-$nl" "$OUT/trace-$ns-$nl.records" "$OUT/ti-$ns-$nl"
            i=$((i + 1))
        done
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

# ---- unperturb simulate: there yet? -------------------------------------------
HAVE_SIM=1
if "$BIN/unperturb" simulate --help > "$OUT/last.out" 2>&1; then :; else
    if grep -qi "unknown command" "$OUT/last.out"; then
        HAVE_SIM=0
        echo "simulate: not built yet ($BIN/unperturb has no 'simulate' command); running the SMPI side only"
    fi
fi

# ---- SimGrid ---------------------------------------------------------------------
if [ "$SMPI" = 1 ] && ! command -v smpirun > /dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null 2>&1; then
        echo "simulate bench: installing libsimgrid-dev (SimGrid's SMPI)"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libsimgrid-dev > /dev/null
    else
        echo "simulate bench: SimGrid's smpirun is missing; install it with:  sudo apt-get install libsimgrid-dev" >&2
        echo "simulate bench: skipping the SMPI side" >&2
        SMPI=0
    fi
fi
if [ "$SMPI" = 1 ]; then
    # the TI converter: links only OTF2, rebuilt when its source is newer
    OTF2TI="$BIN/up-bench-otf2ti"
    if [ ! -x "$OTF2TI" ] || [ -n "$(find "$HERE/otf2ti.c" -newer "$OTF2TI" 2>/dev/null)" ]; then
        # shellcheck disable=SC2046
        ${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra $(pkg-config --cflags otf2) \
            -o "$OTF2TI" "$HERE/otf2ti.c" $(pkg-config --libs otf2)
    fi
fi

# ---- the machine, for SMPI's platform ------------------------------------------
ini() { # ini KEY DEFAULT: a numeric value of the machine file
    v=$(awk -F= -v k="$1" '{ gsub(/[ \t\r]/, "", $1); gsub(/[ \t\r]/, "", $2) }
                         $1 == k { v = $2 } END { print v }' "$MACHINE")
    echo "${v:-$2}"
}
LAT_NS=$(ini latency_ns 0)
NS_PER_BYTE=$(ini ns_per_byte 0)
EAGER=$(ini eager_limit 65536)
RPN=$(ini ranks_per_node 1)
CPU_RATIO=$(ini cpu_ratio 1)
for k in send_overhead_ns recv_overhead_ns per_hop_ns reduce_ns_per_byte; do
    [ "$(ini "$k" 0)" = 0 ] || echo "simulate bench: note: $k is not 0 in $MACHINE; SMPI's platform has no such cost" >&2
done
[ "$RPN" = 1 ] || echo "simulate bench: note: ranks_per_node=$RPN; SMPI's platform has one rank per host" >&2
# one link per host, two links a message: lat/2 each; bandwidth 1/G bytes/ns;
# host speed 1 Gflop/s times cpu_ratio, so compute = traced ns / cpu_ratio
LINK_LAT=$(awk -v l="$LAT_NS" 'BEGIN { printf "%.6gns", l / 2 }')
LINK_BW=$(awk -v g="$NS_PER_BYTE" 'BEGIN { printf "%.10gBps", (g > 0 ? 1e9 / g : 1e15) }')
SPEED=$(awk -v c="$CPU_RATIO" 'BEGIN { printf "%.10gf", 1e9 * c }')
# SMPI's network as LogGP: no piecewise factors, no reverse (ACK) traffic;
# eager sends up to eager_limit both ways: the sender does not wait
# (send-is-detached) and the data flows before the receive is posted
# (async-small); SMPI compares size < threshold, unperturb bytes <= eager_limit;
# unperturb's default collective algorithms
EAGER_T=$(awk -v e="$EAGER" 'BEGIN { printf "%d", e + 1 }')
SMPI_CFG="--cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 --cfg=network/crosstraffic:0
 --cfg=smpi/send-is-detached-thresh:$EAGER_T --cfg=smpi/async-small-thresh:$EAGER_T
 --cfg=smpi/allreduce:rdb --cfg=smpi/bcast:binomial_tree
 --cfg=smpi/reduce:binomial --log=xbt_cfg.thres:warning --log=smpi_config.thres:warning
 --log=smpi_coll.thres:warning"

# platform NLOCS: writes $OUT/smpi/platform-N.xml and hosts-N
platform() {
    mkdir -p "$OUT/smpi"
    cat > "$OUT/smpi/platform-$1.xml" <<EOF
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- generated by bench/simulate.sh from $MACHINE -->
<platform version="4.1">
  <cluster id="bench" prefix="h" suffix="" radical="0-$(($1 - 1))" speed="$SPEED"
           bw="$LINK_BW" lat="$LINK_LAT" sharing_policy="FATPIPE"/>
</platform>
EOF
    awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) print "h" i }' > "$OUT/smpi/hosts-$1"
}

# ---- disk --------------------------------------------------------------------------
need_mb=0
i=1
for nl in $SIM_NLOCS; do
    ns=$(nth "$SMPI_SIZES" "$i")
    need_mb=$((need_mb + SIM_SIZE * 14 / 1000000 + 20))
    if [ "$SMPI" = 1 ]; then
        need_mb=$((need_mb + ns * 8 / 1000000 + 20))
        [ "$ns" = "$SIM_SIZE" ] || need_mb=$((need_mb + ns * 14 / 1000000 + 20))
    fi
    i=$((i + 1))
done
avail_mb=$(df -Pm "$OUT" | awk 'NR == 2 {print $4}')
if [ "$avail_mb" -lt "$need_mb" ]; then
    echo "simulate bench: $OUT has ${avail_mb} MB free, needs about ${need_mb} MB" >&2
    exit 1
fi

# gen EVENTS NLOCS: the trace $OUT/trace-EVENTS-NLOCS (reused while newer than the generator)
gen() {
    trace="$OUT/trace-$1-$2"
    stamp="$trace.records"
    if [ -f "$stamp" ] && [ -n "$(find "$stamp" -newer "$BIN/up-bench-gen" 2>/dev/null)" ] && [ -f "$trace/traces.otf2" ]; then
        echo "simulate bench: reusing $trace ($(cat "$stamp") records)"
    else
        rm -rf "$trace" "$stamp"
        echo "simulate bench: generating $trace ..."
        g0=$(date +%s)
        "$BIN/up-bench-gen" "$trace" "$1" "$2" | tee "$OUT/gen.out"
        awk '{print $1}' "$OUT/gen.out" > "$stamp"
        echo "simulate bench: generated in $(( $(date +%s) - g0 )) s, $(du -sm "$trace" | cut -f1) MB"
    fi
}

RES="$OUT/simulate-results.txt"  # key tool round wall_s rss_mb events cpu_s
: > "$RES"
LOG="$OUT/simulate.log"
: > "$LOG"
PRED="$OUT/simulate-predicted.txt"  # key tool events predicted_s
: > "$PRED"

# run KEY TOOL ROUND EVENTS CMD...: one measured run, appended to $RES
run() {
    key=$1 tool=$2 round=$3 events=$4
    shift 4
    if ! "$BIN/up-bench-measure" -- "$@" > "$OUT/last.out" 2> "$OUT/last.err"; then
        echo "simulate bench: $tool failed on $key:" >&2
        tail -n 20 "$OUT/last.out" "$OUT/last.err" >&2
        exit 1
    fi
    cat "$OUT/last.out" "$OUT/last.err" >> "$LOG"
    awk -v k="$key" -v t="$tool" -v r="$round" -v e="$events" '
        /^up-bench-measure:/ {
            for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
            printf "%s %s %s %s %s %s %.3f\n", k, t, r, v["wall_s"], v["maxrss_mb"], e, v["user_s"] + v["sys_s"]
        }' "$OUT/last.err" >> "$RES"
    w=$(tail -n 1 "$RES" | awk '{printf "%.2f s (CPU %.2f s), %.1f MiB, %.2fM events/s", $4, $7, $5, $6 / $4 / 1e6}')
    printf '  %-12s %-9s %-7s %s\n' "$key" "$tool" "$round" "$w"
    if [ "$round" = warm-up ]; then sed -i '$d' "$RES"; fi
}

# smpi_pred: SMPI's predicted time from the last run ("Simulation time X")
smpi_pred() {
    sed -n 's/.*Simulation time \([0-9.eE+-]*\).*/\1/p' "$OUT/last.out" "$OUT/last.err" | tail -n 1
}
# sim_pred FILE: predicted_time_s of unperturb's --json output
sim_pred() {
    sed -n 's/.*"predicted_time_s"[[:space:]]*:[[:space:]]*\([-0-9.eE+]*\).*/\1/p' "$1" | head -n 1
}

i=1
for nl in $SIM_NLOCS; do
    ns=$(nth "$SMPI_SIZES" "$i")
    i=$((i + 1))
    gen "$SIM_SIZE" "$nl"
    ev=$(cat "$OUT/trace-$SIM_SIZE-$nl.records")
    trace="$OUT/trace-$SIM_SIZE-$nl"
    key="$nl"
    if [ "$SMPI" = 1 ]; then
        if [ "$ns" != "$SIM_SIZE" ]; then gen "$ns" "$nl"; fi
        sev=$(cat "$OUT/trace-$ns-$nl.records")
        strace="$OUT/trace-$ns-$nl"
        ti="$OUT/ti-$ns-$nl"
        rm -rf "$ti"
        c0=$(date +%s.%N)
        "$OTF2TI" "$strace" "$ti" > "$OUT/last.out"
        c1=$(date +%s.%N)
        echo "simulate bench: converted $strace to TI in $(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.1f", b - a }') s: $(cat "$OUT/last.out"), $(du -sm "$ti" | cut -f1) MB (not counted)"
        echo "$key tiactions $(awk '{print $3}' "$OUT/last.out")" >> "$PRED"
        platform "$nl"
    fi
    if [ "$HAVE_SIM" = 1 ]; then
        # warm-up, which also gives the predicted time of the timed trace
        run "$key" simulate warm-up "$ev" "$BIN/unperturb" simulate "$trace" --machine "$MACHINE" -q \
            --json "$OUT/sim.json" --force
        echo "$key simulate $ev $(sim_pred "$OUT/sim.json")" >> "$PRED"
        if [ "$SMPI" = 1 ] && [ "$ns" != "$SIM_SIZE" ]; then
            "$BIN/unperturb" simulate "$strace" --machine "$MACHINE" -q --json "$OUT/sim.json" --force > /dev/null
            echo "$key simulate $sev $(sim_pred "$OUT/sim.json")" >> "$PRED"
        fi
        rm -f "$OUT/sim.json"
    fi
    r=1
    while [ "$r" -le "$SIM_ROUNDS" ] || { [ "$SMPI" = 1 ] && [ "$r" -le "$SMPI_ROUNDS" ]; }; do
        if [ $((r % 2)) -eq 1 ]; then order="simulate smpi"; else order="smpi simulate"; fi
        for tool in $order; do
            if [ "$tool" = simulate ] && [ "$HAVE_SIM" = 1 ] && [ "$r" -le "$SIM_ROUNDS" ]; then
                sync
                run "$key" simulate "run$r" "$ev" "$BIN/unperturb" simulate "$trace" --machine "$MACHINE" -q
            elif [ "$tool" = smpi ] && [ "$SMPI" = 1 ] && [ "$r" -le "$SMPI_ROUNDS" ]; then
                sync
                # shellcheck disable=SC2086
                run "$key" smpi "run$r" "$sev" smpirun -np "$nl" -platform "$OUT/smpi/platform-$nl.xml" \
                    -hostfile "$OUT/smpi/hosts-$nl" -replay "$ti/index.txt" $SMPI_CFG
                if [ "$r" = 1 ]; then echo "$key smpi $sev $(smpi_pred)" >> "$PRED"; fi
            fi
        done
        r=$((r + 1))
    done
done

echo
[ "$HAVE_SIM" = 1 ] || echo "simulate: not built yet (figures for SMPI only; see issue 7 closing note)"
awk -v base="$(nth "$SIM_NLOCS" 1)" -v wide="$(echo "$SIM_NLOCS" | awk '{print $NF}')" \
    -v have_sim="$HAVE_SIM" -v have_smpi="$SMPI" -v pred="$PRED" '
function median(a, n,    i, j, t) {
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
BEGIN {
    while ((getline line < pred) > 0) {
        split(line, f, " ")
        if (f[2] == "tiactions") ti[f[1]] = f[3]
        else { p[f[1], f[2], f[3]] = f[4] }
    }
}
{
    k = $1 SUBSEP $2
    if (!($1 in seen)) { seen[$1] = 1; keys[++nk] = $1 }
    eps = $6 / $4
    cnt[k]++
    v[k, cnt[k]] = eps
    cpu[k, cnt[k]] = $7
    if (!(k in mn) || eps < mn[k]) mn[k] = eps
    if (!(k in mx) || eps > mx[k]) mx[k] = eps
    if ($5 > rss[k]) rss[k] = $5
    ev[k] = $6
}
END {
    printf "%-6s %-9s %-10s %27s %8s %9s\n", "", "", "", "--- Mevents/s (wall) ---", "CPU s", "peak RSS"
    printf "%-6s %-9s %-10s %9s %8s %8s %8s %9s %5s\n", "locs", "tool", "events", "min", "median", "max", "median", "MiB (max)", "runs"
    for (i = 1; i <= nk; i++) {
        s = keys[i]
        for (t = 1; t <= 2; t++) {
            tool = t == 1 ? "simulate" : "smpi"
            k = s SUBSEP tool
            if (!(k in cnt)) continue
            n = cnt[k]
            for (j = 1; j <= n; j++) { a[j] = v[k, j]; c[j] = cpu[k, j] }
            med[k] = median(a, n)
            printf "%-6s %-9s %-10s %9.3f %8.3f %8.3f %8.2f %9.1f %5d\n", s, tool, ev[k], mn[k] / 1e6, med[k] / 1e6, mx[k] / 1e6, median(c, n), rss[k], n
        }
        ks = s SUBSEP "smpi"
        if (ks in cnt && (s in ti))
            printf "%-6s %-9s %-10s %9s %8.3f   (SMPI: M TI actions/s, %d actions)\n", s, "", "", "", ti[s] / (ev[ks] / med[ks]) / 1e6, ti[s]
        if ((s SUBSEP "simulate") in cnt && ks in cnt) {
            ratio[s] = med[s SUBSEP "simulate"] / med[ks]
            printf "%-6s %-9s %-10s %9s %8.1f   (simulate/SMPI, median events/s%s)\n", s, "ratio", "", "", ratio[s],
                   ev[s SUBSEP "simulate"] != ev[ks] ? "; SMPI on a smaller trace of the same shape" : ""
        }
    }
    print ""
    print "predicted run time of the same trace (sanity check, not a target):"
    for (i = 1; i <= nk; i++) {
        s = keys[i]; ks = s SUBSEP "smpi"
        if (!(ks in cnt)) {
            e = ev[s SUBSEP "simulate"]
            printf "  %s locations, %s events: unperturb simulate %s s\n", s, e, p[s, "simulate", e]
            continue
        }
        e = ev[ks]
        ps = p[s, "smpi", e]; pu = p[s, "simulate", e]
        printf "  %s locations, %s events: SMPI %s, unperturb simulate %s", s, e, ps == "" ? "?" : ps " s",
               pu == "" ? (have_sim ? "?" : "(not built yet)") : pu " s"
        if (ps != "" && pu != "" && ps > 0) printf " (%+.1f%%)", (pu / ps - 1) * 100
        printf "\n"
    }
    print ""
    if (!have_sim) {
        print "SKIP  simulate >= 5M events/s: simulate not built yet"
        print "SKIP  simulate >= 10x SMPI: simulate not built yet"
        print "SKIP  simulate at " wide " locations <= 2x slower than at " base ": simulate not built yet"
        exit
    }
    for (i = 1; i <= nk; i++) {
        s = keys[i]; k = s SUBSEP "simulate"
        printf "%s  simulate >= 5M events/s at %s locations (%s events): %.2fM\n", (med[k] >= 5e6 ? "PASS" : "FAIL"), s, ev[k], med[k] / 1e6
    }
    for (i = 1; i <= nk; i++) {
        s = keys[i]
        if (s in ratio)
            printf "%s  simulate >= 10x SMPI at %s locations: %.1fx\n", (ratio[s] >= 10 ? "PASS" : "FAIL"), s, ratio[s]
    }
    kb = base SUBSEP "simulate"; kw = wide SUBSEP "simulate"
    if (base != wide && (kb in med) && (kw in med)) {
        sl = med[kb] / med[kw]
        printf "%s  simulate at %s locations <= 2x slower than at %s: %.2fx (%.2fM vs %.2fM events/s)\n", (sl <= 2 ? "PASS" : "FAIL"), wide, base, sl, med[kw] / 1e6, med[kb] / 1e6
    }
}' "$RES"

echo "simulate bench: finished in $(( $(date +%s) - T_START )) s (per-run log: $LOG, raw figures: $RES)"
