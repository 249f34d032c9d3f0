#!/bin/sh
# bench/farmcost.sh BUILD - what a farm's master and its workers pay per
# record as the workers grow (issue 22, item 0; docs/accuracy.md, "Task
# farms").  For each rank count of NPS and each extra cost of EXTRAS, traces
# examples/farm (ARGS) once, oversubscribed beyond 2 ranks, and prints per
# role (master, workers):
#   rec min/med/p99  the gap from Enter(MPI_Send) to its MpiSend, ns: one
#                    record's cost and its extra-cost spin, nothing of MPI
#                    (single records, not run times)
#   over             records of that gap more than 1 us above the minimum, %
#   stalls           the spins' stalls the tracer listed (DIR/traces/*.stalls):
#                    count, and ns per record on average
# Environment: NPS ("2 4 8 16"), EXTRAS ("0 1000"), ARGS ("2000 50 20000
# 2000": tasks, spread, work, service).  Not a test.
set -eu
BUILD=${1:-build}
NPS=${NPS:-2 4 8 16}
EXTRAS=${EXTRAS:-0 1000}
ARGS=${ARGS:-2000 50 20000 2000}
UP=$BUILD/bin/unperturb
FARM=$BUILD/examples/farm
for f in "$UP" "$FARM"; do
    [ -x "$f" ] || { echo "bench/farmcost.sh: $f missing (make)" >&2; exit 1; }
done
ROOT=""
[ "$(id -u)" = 0 ] && ROOT=--allow-run-as-root
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
printf "%-3s %-6s %-7s %8s %8s %8s %6s %16s\n" np extra role "rec min" med p99 over% "stalls n, ns/rec"
for np in $NPS; do
    for extra in $EXTRAS; do
        rm -rf "$T/tr"
        # shellcheck disable=SC2086
        timeout 300 "$UP" trace -q --extra-ns "$extra" -o "$T/tr" -- \
            mpirun $ROOT --oversubscribe -np "$np" "$FARM" $ARGS > /dev/null ||
            { echo "farmcost: np=$np extra=$extra: no trace within 300 s"; continue; }
        tps=$(otf2-print -G "$T/tr/traces.otf2" 2> /dev/null |
            awk '$1 == "CLOCK_PROPERTIES" { gsub(",", "", $5); print $5; exit }')
        otf2-print "$T/tr/traces.otf2" 2> /dev/null | awk -v T="$T" -v ns="$(echo "$tps" | awk '{ print 1e9 / $1 }')" '
            $1 == "ENTER" && $0 ~ /"MPI_Send"/ { e[$2] = $3; next }
            $1 == "MPI_SEND" && ($2 in e) {
                f = T "/gap-" ($2 == 0 ? "master" : "workers"); print int(($3 - e[$2]) * ns + 0.5) > f; delete e[$2] }
            $2 ~ /^[0-9]+$/ { r = ($2 == 0) ? "master" : "workers"; n[r]++ }
            END { for (r in n) print n[r] > (T "/recs-" r) }'
        for role in master workers; do
            [ -s "$T/gap-$role" ] || continue
            stalls=0 sns=0
            for s in "$T"/tr/traces/*.stalls; do
                [ -e "$s" ] || continue
                loc=$(basename "$s" .stalls)
                if { [ "$role" = master ] && [ "$loc" = 0 ]; } || { [ "$role" = workers ] && [ "$loc" != 0 ]; }; then
                    set -- $(od -A n -t u8 -v "$s" | tr -s ' ' '\n' | awk 'NF { if (++i % 2 == 0) { n++; s += $1 } } END { print n + 0, s + 0 }')
                    stalls=$((stalls + $1)) sns=$(awk -v a="$sns" -v b="$2" -v t="$tps" 'BEGIN { printf "%.0f", a + b * 1e9 / t }')
                fi
            done
            recs=$(cat "$T/recs-$role")
            sort -n "$T/gap-$role" | awk -v np="$np" -v x="$extra" -v role="$role" -v sn="$stalls" \
                -v sns="$sns" -v recs="$recs" '
                { v[++n] = $1 } END {
                    over = 0; for (i = 1; i <= n; i++) if (v[i] > v[1] + 1000) over++
                    p99 = int(n * 0.99); if (p99 < 1) p99 = 1
                    per = recs ? sns / recs : 0
                    printf "%-3s %-6s %-7s %8d %8d %8d %6.2f %7d, %7.1f\n", np, x, role, v[1],
                        v[int((n + 1) / 2)], v[p99], 100 * over / n, sn, per }'
            rm -f "$T/gap-$role" "$T/recs-$role"
        done
    done
done
