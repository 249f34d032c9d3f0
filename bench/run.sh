#!/bin/sh
# bench/run.sh BINDIR - the benchmark behind `make bench` (see bench/README.md).
#
# For each size in SIZES: generate a synthetic 16-rank MPI trace once (reused
# while its stamp is newer than the generator), run each tool once untimed
# (warm-up), then ROUNDS rounds of [plain OTF2 copy, unperturb compensate],
# the order swapped every other round, each run timed per process by
# up-bench-measure (wall clock, CPU time, peak RSS).  Prints events/s
# min/median/max (wall clock), median CPU seconds and peak RSS per size and
# tool, the compensate/copy ratio of the median events/s, and PASS/FAIL per
# target.
#
# Environment: SIZES (default "5000000 20000000"), NLOCS (16), ROUNDS (5),
# BENCH_OUT (bench/out), KEEP=1 keeps the generated traces.
# Exits non-zero only if a tool fails, not if a target is missed.
set -eu

BIN=${1:?usage: bench/run.sh BINDIR}
SIZES=${SIZES:-"5000000 20000000"}
NLOCS=${NLOCS:-16}
ROUNDS=${ROUNDS:-5}
OUT=${BENCH_OUT:-bench/out}
KEEP=${KEEP:-0}
COMP_OPTS="--mode network --overhead-ns 50 --latency-ns 2000 --ns-per-byte 0.5 -q --force"

for b in up-bench-gen up-bench-copy up-bench-measure unperturb; do
    [ -x "$BIN/$b" ] || { echo "bench: $BIN/$b missing (run 'make bench')" >&2; exit 1; }
done
mkdir -p "$OUT"
T_START=$(date +%s)
# Outputs go whatever happens; the traces too, unless KEEP=1.
cleanup() {
    rm -rf "$OUT/copy-out" "$OUT/comp-out" "$OUT/last.out" "$OUT/last.err" "$OUT/gen.out"
    if [ "$KEEP" != 1 ]; then
        for n in $SIZES; do rm -rf "$OUT/trace-$n-$NLOCS" "$OUT/trace-$n-$NLOCS.records"; done
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE
RES="$OUT/results.txt"   # size tool round wall_s rss_mb events cpu_s user_s
: > "$RES"
LOG="$OUT/run.log"
: > "$LOG"

# Disk: an input trace takes about 14 bytes per record, an output as much;
# ask for twice the sum over all sizes.
need_mb=0
for n in $SIZES; do need_mb=$((need_mb + n * 14 * 2 * 2 / 1000000)); done
avail_mb=$(df -Pm "$OUT" | awk 'NR == 2 {print $4}')
if [ "$avail_mb" -lt "$need_mb" ]; then
    echo "bench: $OUT has ${avail_mb} MB free, needs about ${need_mb} MB" >&2
    exit 1
fi

# run SIZE TOOL ROUND EVENTS CMD... : one measured run, appended to $RES
run() {
    size=$1 tool=$2 round=$3 events=$4
    shift 4
    if ! "$BIN/up-bench-measure" -- "$@" > "$OUT/last.out" 2> "$OUT/last.err"; then
        echo "bench: $tool failed on $size events:" >&2
        cat "$OUT/last.out" "$OUT/last.err" >&2
        exit 1
    fi
    cat "$OUT/last.out" "$OUT/last.err" >> "$LOG"
    if [ "$tool" = copy ]; then
        copied=$(awk '/^copied/ {print $2}' "$OUT/last.out")
        if [ "$copied" != "$events" ]; then
            echo "bench: the copy wrote $copied records, the input has $events" >&2
            exit 1
        fi
    fi
    awk -v s="$size" -v t="$tool" -v r="$round" -v e="$events" '
        /^up-bench-measure:/ {
            for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
            printf "%s %s %s %s %s %s %.3f %.3f\n", s, t, r, v["wall_s"], v["maxrss_mb"], e,
                   v["user_s"] + v["sys_s"], v["user_s"]
        }' "$OUT/last.err" >> "$RES"
    w=$(tail -n 1 "$RES" | awk '{printf "%.2f s (CPU %.2f s), %.1f MiB, %.2fM events/s", $4, $7, $5, $6 / $4 / 1e6}')
    printf '  %-9s %-10s %-7s %s\n' "$size" "$tool" "$round" "$w"
    if [ "$round" = warm-up ]; then sed -i '$d' "$RES"; fi
}

# one_run SIZE TOOL ROUND EVENTS TRACE
one_run() {
    rm -rf "$OUT/copy-out" "$OUT/comp-out"
    sync
    if [ "$2" = copy ]; then
        run "$1" copy "$3" "$4" "$BIN/up-bench-copy" "$5" "$OUT/copy-out"
    else
        # shellcheck disable=SC2086
        run "$1" compensate "$3" "$4" "$BIN/unperturb" compensate "$5" \
            -o "$OUT/comp-out" $COMP_OPTS
    fi
}

for n in $SIZES; do
    trace="$OUT/trace-$n-$NLOCS"
    stamp="$trace.records"
    if [ -f "$stamp" ] && [ -n "$(find "$stamp" -newer "$BIN/up-bench-gen" 2>/dev/null)" ] && [ -f "$trace/traces.otf2" ]; then
        echo "bench: reusing $trace ($(cat "$stamp") records)"
    else
        rm -rf "$trace" "$stamp"
        echo "bench: generating $trace ..."
        g0=$(date +%s)
        "$BIN/up-bench-gen" "$trace" "$n" "$NLOCS" | tee "$OUT/gen.out"
        awk '{print $1}' "$OUT/gen.out" > "$stamp"
        echo "bench: generated in $(( $(date +%s) - g0 )) s, $(du -sm "$trace" | cut -f1) MB"
    fi
    events=$(cat "$stamp")
    one_run "$n" copy warm-up "$events" "$trace"
    one_run "$n" compensate warm-up "$events" "$trace"
    r=1
    while [ "$r" -le "$ROUNDS" ]; do
        if [ $((r % 2)) -eq 1 ]; then order="copy compensate"; else order="compensate copy"; fi
        for tool in $order; do
            one_run "$n" "$tool" "run$r" "$events" "$trace"
        done
        r=$((r + 1))
    done
    rm -rf "$OUT/copy-out" "$OUT/comp-out"
done

echo
awk '
function median(a, n,    i, j, t) {
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
    k = $1 SUBSEP $2
    if (!(k in cnt) && !($1 in seen)) { seen[$1] = 1; sizes[++ns] = $1 }
    eps = $6 / $4
    cnt[k]++
    v[k, cnt[k]] = eps
    cpu[k, cnt[k]] = $7
    usr[k, cnt[k]] = $8
    if (!(k in mn) || eps < mn[k]) mn[k] = eps
    if (!(k in mx) || eps > mx[k]) mx[k] = eps
    if ($5 > rss[k]) rss[k] = $5
    ev[$1] = $6
}
END {
    printf "%-10s %-11s %27s %8s %8s %9s\n", "", "", "--- Mevents/s (wall) ---", "CPU s", "user s", "peak RSS"
    printf "%-10s %-11s %9s %8s %8s %8s %8s %9s\n", "events", "tool", "min", "median", "max", "median", "median", "MiB (max)"
    for (i = 1; i <= ns; i++) {
        s = sizes[i]
        for (t = 1; t <= 2; t++) {
            tool = t == 1 ? "copy" : "compensate"
            k = s SUBSEP tool
            if (!(k in cnt)) continue
            n = cnt[k]
            for (j = 1; j <= n; j++) { a[j] = v[k, j]; c[j] = cpu[k, j]; u[j] = usr[k, j] }
            med[k] = median(a, n)
            mu[k] = median(u, n)
            printf "%-10s %-11s %9.2f %8.2f %8.2f %8.2f %8.2f %9.1f\n", ev[s], tool, mn[k] / 1e6, med[k] / 1e6, mx[k] / 1e6, median(c, n), mu[k], rss[k]
        }
        ratio[s] = med[s SUBSEP "compensate"] / med[s SUBSEP "copy"]
        printf "%-10s %-11s %9s %8.2f   (compensate/copy, median events/s; %d runs each)\n", ev[s], "ratio", "", ratio[s], n
        if (mu[s SUBSEP "compensate"] > 0)
            printf "%-10s %-11s %9s %8.2f   (copy/compensate, median user CPU: the tools own work)\n", ev[s], "user ratio", "", mu[s SUBSEP "copy"] / mu[s SUBSEP "compensate"]
    }
    print ""
    for (i = 1; i <= ns; i++) {
        s = sizes[i]
        printf "%s  compensate/copy median events/s >= 0.80 at %s events: %.2f\n", (ratio[s] >= 0.8 ? "PASS" : "FAIL"), ev[s], ratio[s]
    }
    for (i = 1; i <= ns; i++) {
        s = sizes[i]; r = rss[s SUBSEP "compensate"]
        printf "%s  compensate peak RSS < 150 MiB at %s events: %.1f MiB\n", (r < 150 ? "PASS" : "FAIL"), ev[s], r
    }
    if (ns >= 2) {
        r0 = rss[sizes[1] SUBSEP "compensate"]; r1 = rss[sizes[ns] SUBSEP "compensate"]
        printf "%s  compensate peak RSS flat with length (%s vs %s events, <= +10%%): %.1f vs %.1f MiB (%+.1f%%)\n", (r1 <= 1.10 * r0 ? "PASS" : "FAIL"), ev[sizes[ns]], ev[sizes[1]], r1, r0, (r1 / r0 - 1) * 100
    }
}' "$RES"

echo "bench: finished in $(( $(date +%s) - T_START )) s (per-run log: $LOG, raw figures: $RES)"
