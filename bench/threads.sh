#!/bin/sh
# bench/threads.sh BUILD - the cost of the tracer's POSIX-thread records
# without MPI (part of `make bench`; bench/README.md):
#
#  1. calibration: the per-kind cost the tracer measured in its constructor
#     (kinds thread and lock, and enter/leave, which there carry the
#     POSIX-thread wrappers' glue), over ROUNDS traced runs: min, median, max;
#  2. dilation: a loop of N pthread_mutex_lock/unlock pairs on one thread
#     (built here), timed inside the program, run ROUNDS times uninstrumented
#     and traced, alternating: a pair writes six records (Enter,
#     ThreadAcquireLock, Leave; Enter, ThreadReleaseLock, Leave), so the
#     cost per record, glue included, is (Tm - T) / 6N; min, median, max over
#     the pairs of runs.
#
# Environment: ROUNDS (5), N (200000).  Prints figures; exits non-zero only
# if a run fails.
set -eu
BUILD=${1:-build}
ROUNDS=${ROUNDS:-5}
N=${N:-200000}
UNPERTURB=$BUILD/bin/unperturb
[ -x "$UNPERTURB" ] || { echo "bench/threads.sh: $UNPERTURB missing (run 'make')" >&2; exit 1; }
T=$(mktemp -d /tmp/unperturb-bench-threads.XXXXXX)
trap 'rm -rf "$T"' EXIT
cat > "$T/lockloop.c" <<'C'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile long shared;
int main(int argc, char **argv)
{
    long n = atol(argv[1]), i;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (i = 0; i < n; i++) {
        pthread_mutex_lock(&m);
        shared++;
        pthread_mutex_unlock(&m);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%.9f\n", (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
    return shared != n;
}
C
cc -O2 -pthread -o "$T/lockloop" "$T/lockloop.c"

echo "== POSIX-thread records without MPI: $N lock/unlock pairs on one thread, $ROUNDS runs of each (taskset -c 0)"
: > "$T/plain"; : > "$T/traced"; : > "$T/calib"
r=0
while [ $r -lt "$ROUNDS" ]; do
    taskset -c 0 "$T/lockloop" "$N" >> "$T/plain"
    rm -rf "$T/run"
    # a buffer that holds the whole run: no flush inside the loop
    UNPERTURB_BUFFER_MB=256 taskset -c 0 "$UNPERTURB" trace -q -o "$T/run" -- "$T/lockloop" "$N" >> "$T/traced"
    otf2-print -A "$T/run/traces.otf2" | awk -F' *= *' '
        /^\[overhead\]/ { on = 1; next } /^\[/ { on = 0 }
        on && ($1 == "enter" || $1 == "leave" || $1 == "thread" || $1 == "lock") { printf "%s %s ", $1, $2 }
        END { print "" }' >> "$T/calib"
    r=$((r + 1))
done

# min median max of a column of numbers
spread() { sort -g | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
                                                printf "min %.1f  median %.1f  max %.1f", v[1], m, v[NR] }'; }
for k in enter leave thread lock; do
    printf "calibration %-6s (ns): %s\n" "$k" "$(awk -v k=$k '{ for (i = 1; i < NF; i += 2) if ($i == k) print $(i + 1) }' "$T/calib" | spread)"
done
printf "dilation per record, glue included (ns): %s\n" \
    "$(paste "$T/traced" "$T/plain" | awk -v n="$N" '{ print ($1 - $2) / (6 * n) * 1e9 }' | spread)"
printf "uninstrumented pair (ns): %s\n" "$(awk -v n="$N" '{ print $1 / n * 1e9 }' "$T/plain" | spread)"
