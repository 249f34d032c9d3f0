#!/bin/sh
# tests/examples/threads.sh [BUILD] - end-to-end tests of the threaded example
# programs (examples/threads/*.c, issue 36), as built by `make examples` into
# BUILD (default build).  Each runs with a small size, at 2 threads and at 3
# or 4, and must exit 0 and print `result: ok`, a `time_s:` line, and a
# `counts:` line equal to the one this script computes from the arguments by
# its own arithmetic.  omp_loop (gcc, libgomp) also runs under LLVM's libomp
# (a libgomp.so.1 symlink to it on LD_LIBRARY_PATH), and omp_loop-clang
# (clang -fopenmp) when it was built; KMP_VERSION=1 tells which runtime ran.
# A bad option must give exit status 2.  Prints `ok NAME` or `FAIL NAME` per
# case and a summary; exits 1 if any case failed.  About 1 s.
set -u
BUILD=${1:-build}
EX=$BUILD/examples
LIBOMP=${LIBOMP:-/usr/lib/llvm-14/lib/libomp.so.5}
T=$(mktemp -d /tmp/unperturb-threads-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 failed=0

ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1: $2"; [ -s "$T/out" ] && sed 's/^/    /' "$T/out"; }

# the value of KEY=value in the counts line of $T/out
count() { sed -n 's/^counts: //p' "$T/out" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# run COMMAND...: into $T/out and $T/err, with libomp's banner on; its status
run() { KMP_VERSION=1 "$@" > "$T/out" 2> "$T/err"; }

# verify NAME STATUS EXPECTED_COUNTS RUNTIME: the output of the last run.
# RUNTIME: llvm (stderr must name LLVM's libomp), gnu (it must not), or -.
verify() {
    name=$1 rc=$2 want=$3 runtime=$4
    got=$(grep '^counts: ' "$T/out")
    if [ "$rc" != 0 ]; then
        bad "$name" "exit status $rc ($(head -c 200 "$T/err"))"
    elif [ "$(tail -n 1 "$T/out")" != "result: ok" ]; then
        bad "$name" "last line is not 'result: ok'"
    elif ! grep -Eq '^time_s: [0-9]+\.[0-9]{9}$' "$T/out"; then
        bad "$name" "no time_s line"
    elif [ "$got" != "counts: $want" ]; then
        bad "$name" "counts line, expected: counts: $want"
    elif [ "$runtime" = llvm ] && ! grep -q '^LLVM OMP' "$T/err"; then
        bad "$name" "did not run under LLVM's libomp"
    elif [ "$runtime" = gnu ] && grep -q '^LLVM OMP' "$T/err"; then
        bad "$name" "ran under LLVM's libomp, not libgomp"
    else
        ok "$name"
    fi
}

# check NAME EXPECTED_COUNTS RUNTIME -- COMMAND...: run COMMAND, verify
check() {
    name=$1 want=$2 runtime=$3
    shift 4
    run "$@"
    verify "$name" $? "$want" "$runtime"
}

# usage NAME COMMAND...: a bad option gives exit status 2
usage() {
    name=$1
    shift
    "$@" > "$T/out" 2> "$T/err"
    rc=$?
    if [ $rc = 2 ] && grep -q '^usage:' "$T/err"; then ok "$name"; else bad "$name" "exit status $rc, expected 2 and a usage line"; fi
}

for p in pth_barrier pth_semaphore pth_mutex omp_loop; do
    [ -x "$EX/$p" ] || { echo "FAIL $p: $EX/$p is missing: run make examples first"; exit 1; }
done

# pth_barrier: every thread waits once per iteration
for t in 2 3; do
    n=20
    check "pth_barrier -t $t -n $n" "threads=$t barrier_waits=$((t * n))" - -- "$EX/pth_barrier" -t $t -n $n
done
usage "pth_barrier usage" "$EX/pth_barrier" -t 0

# pth_semaphore: per item, a put (sem_wait, lock, sem_post) and a take (the same)
n=50
check "pth_semaphore -t 2 -n $n" "threads=2 lock_acquisitions=$((2 * n)) sem_posts=$((2 * n)) sem_waits=$((2 * n))" - -- \
    "$EX/pth_semaphore" -t 2 -n $n
n=101
check "pth_semaphore -t 3 -n $n -b 1" "threads=3 lock_acquisitions=$((2 * n)) sem_posts=$((2 * n)) sem_waits=$((2 * n))" - -- \
    "$EX/pth_semaphore" -t 3 -n $n -b 1 -w 2000
# -y: one sem_trywait per take, a sem_wait after each failed one (F: timing)
for t in 2 4; do
    n=60
    run "$EX/pth_semaphore" -t $t -n $n -y -w 2000
    rc=$?
    f=$(count sem_trywait_fails)
    case $f in
    '' | *[!0-9]*) f=-1 ;;
    esac
    if [ "$rc" = 0 ] && { [ "$f" -lt 0 ] || [ "$f" -gt $n ]; }; then
        bad "pth_semaphore -t $t -n $n -y" "sem_trywait_fails=$f, expected 0..$n"
    else
        verify "pth_semaphore -t $t -n $n -y" $rc \
            "threads=$t lock_acquisitions=$((2 * n)) sem_posts=$((2 * n)) sem_waits=$((n + f)) sem_trywaits=$n sem_trywait_fails=$f" -
    fi
done
usage "pth_semaphore usage" "$EX/pth_semaphore" -t 1

# pth_mutex: every thread locks once per iteration
for t in 2 3; do
    n=40
    check "pth_mutex -t $t -n $n" "threads=$t lock_acquisitions=$((t * n))" - -- "$EX/pth_mutex" -t $t -n $n
done
usage "pth_mutex usage" "$EX/pth_mutex" -n 1x

# omp_loop: per round, one region, one explicit barrier per thread, ITEMS
# critical sections, TASKS tasks and one taskwait
omp_counts() { # THREADS ROUNDS ITEMS TASKS
    echo "threads=$1 parallel_regions=$2 barrier_waits=$(($1 * $2)) critical=$(($2 * $3)) tasks=$(($2 * $4)) taskwaits=$2"
}
check "omp_loop -t 2 -n 4" "$(omp_counts 2 4 32 32)" gnu -- "$EX/omp_loop" -t 2 -n 4 -w 2000
check "omp_loop -t 3 -n 3 -m 7 -k 5" "$(omp_counts 3 3 7 5)" gnu -- "$EX/omp_loop" -t 3 -n 3 -m 7 -k 5 -w 2000
usage "omp_loop usage" "$EX/omp_loop" -k 0
if [ -r "$LIBOMP" ]; then
    mkdir "$T/llvm" && ln -s "$LIBOMP" "$T/llvm/libgomp.so.1"
    check "omp_loop -t 2 -n 4 (libomp)" "$(omp_counts 2 4 32 32)" llvm -- \
        env LD_LIBRARY_PATH="$T/llvm" "$EX/omp_loop" -t 2 -n 4 -w 2000
    check "omp_loop -t 3 -n 3 -m 7 -k 5 (libomp)" "$(omp_counts 3 3 7 5)" llvm -- \
        env LD_LIBRARY_PATH="$T/llvm" "$EX/omp_loop" -t 3 -n 3 -m 7 -k 5 -w 2000
else
    echo "skip omp_loop under libomp: no $LIBOMP"
fi
if [ -x "$EX/omp_loop-clang" ]; then
    check "omp_loop-clang -t 2 -n 4" "$(omp_counts 2 4 32 32)" llvm -- "$EX/omp_loop-clang" -t 2 -n 4 -w 2000
    check "omp_loop-clang -t 3 -n 3 -m 7 -k 5" "$(omp_counts 3 3 7 5)" llvm -- \
        "$EX/omp_loop-clang" -t 3 -n 3 -m 7 -k 5 -w 2000
else
    echo "skip omp_loop-clang: not built"
fi

echo "threads.sh: $pass passed, $failed failed"
[ $failed = 0 ]
