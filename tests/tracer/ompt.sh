#!/bin/sh
# tests/tracer/ompt.sh BUILD - the tracer's OMPT tool (src/tracer/ompt.c)
# end to end: tests/tracer/omp_prog.c, an MPI + OpenMP program, built with
# gcc (mpicc -fopenmp: libgomp, run on LLVM's libomp through the
# libgomp.so.1 link that `unperturb trace` puts first on LD_LIBRARY_PATH,
# as docs/tracer-openmp.md describes; the ranks must say they ran on it) and
# with clang (OMPI_CC=clang: libomp itself; skipped without clang), traced
# with `unperturb trace` on 2 ranks.  From each archive (otf2-print, an
# independent reader) it counts per rank what the program printed it did:
# threads with records and parallel regions per thread, barrier regions,
# critical, lock, nest-lock and ordered acquisitions, tasks created and
# completed, taskwaits and taskgroups; each build against its own output,
# never one compiler's against the other's.  Also: Enter and Leave nest on
# every location and its times never decrease; each lock's acquisitions
# are numbered 1..n, each released on the thread that took it; every task
# created is completed once and first runs after its creation;
# `unperturb compensate` reports no repair; up-check (when BUILD has it)
# finds no violation and warns of nothing.  The workers of the last
# parallel region before MPI_Finalize, whose ends libomp reports only at the
# next fork or at its shutdown, after recording stopped, are closed with
# the run at the master's times (docs/tracer-openmp.md): no region stays
# open.
set -eu
BUILD=${1:-build}
UNPERTURB=${UNPERTURB:-$BUILD/bin/unperturb}
LIBOMP=${UNPERTURB_LIBOMP:-$(printf '%s\n' /usr/lib/llvm-*/lib/libomp.so.5 | sort -V | tail -n 1)}
NP=2
T=$(mktemp -d /tmp/unperturb-ompt-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
ROOT=""
[ "$(id -u)" = 0 ] && ROOT=--allow-run-as-root
pass=0
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { pass=$((pass + 1)); echo "ok   $*"; }

[ -r "$LIBOMP" ] || fail "no libomp.so.5 (install libomp5-14, or set UNPERTURB_LIBOMP)"
mpicc -fopenmp -O1 -g -o "$T/omp_prog-gcc" tests/tracer/omp_prog.c
builds=gcc
if command -v clang > /dev/null; then
    OMPI_CC=clang mpicc -fopenmp -O1 -g -o "$T/omp_prog-clang" tests/tracer/omp_prog.c
    builds="gcc clang"
else
    echo "skip clang: not found"
fi

# The program's counts per rank from an otf2-print listing, in its own
# format: threads (locations with a parallel region), regions (per such
# location, "uneven" if they differ), barrier regions, of them explicit
# ("!$omp barrier"), lock acquisitions by the region around them, task
# records, taskwait and taskgroup regions
trace_counts() {
    awk -v np=$NP '
    function name() { s = $0; sub(/.*Region: "/, "", s); sub(/" <[0-9]+>.*/, "", s); return s }
    $1 == "ENTER" { l = $2; n = name(); st[l, ++d[l]] = n; r = l % 4294967296
        if (n ~ /^!\$omp parallel /) par[l]++
        if (n ~ /^!\$omp (barrier|implicit barrier|implementation barrier)/) bar[r]++
        if (n ~ /^!\$omp barrier/) expl[r]++
        if (n ~ /^!\$omp taskwait /) tw[r]++
        if (n ~ /^!\$omp taskgroup /) tg[r]++ }
    $1 == "LEAVE" { d[$2]-- }
    $1 == "THREAD_ACQUIRE_LOCK" { l = $2; r = l % 4294967296; n = st[l, d[l]]
        if (n ~ /^!\$omp critical /) crit[r]++
        else if (n == "omp_set_lock" || n == "omp_test_lock") lock[r]++
        else if (n == "omp_set_nest_lock" || n == "omp_test_nest_lock") nest[r]++
        else if (n ~ /^!\$omp ordered /) ord[r]++
        else other[r]++ }
    $1 == "THREAD_TASK_CREATE" { tc[$2 % 4294967296]++ }
    $1 == "THREAD_TASK_COMPLETE" { td[$2 % 4294967296]++ }
    END {
        for (l in par) { r = l % 4294967296; th[r]++
            if (!(r in per)) per[r] = par[l]; else if (per[r] != par[l]) per[r] = "uneven" }
        for (r = 0; r < np; r++)
            printf "rank %d: threads=%d regions=%s barriers=%d explicit=%d critical=%d locks=%d nest=%d ordered=%d tasks=%d done=%d taskwaits=%d taskgroups=%d%s\n",
                r, th[r], per[r], bar[r], expl[r], crit[r], lock[r], nest[r], ord[r], tc[r], td[r],
                tw[r], tg[r], other[r] ? " other_locks=" other[r] : ""
    }' "$1"
}

# Structure: Enter/Leave nest and times never decrease per location; what
# stays open at the end ("open LOCATION: NAMES", names without their
# " @module+offset"); lock acquisitions numbered 1..n per (rank, lock),
# each released once on its location; tasks created once, completed once,
# first switched to after their creation.  Prints problems, then the open
# lines.
check_structure() {
    awk '
    function name() { s = $0; sub(/.*Region: "/, "", s); sub(/" <[0-9]+>.*/, "", s); return s }
    function field(k) { s = $0; sub(".*" k ": ", "", s); sub(/[,].*/, "", s); return s }
    $1 ~ /^[A-Z_]+$/ && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ {
        l = $2; r = l % 4294967296
        if ((l in t) && $3 < t[l]) { print "time goes back on " l ": " $0; bad = 1 }
        t[l] = $3 }
    $1 == "ENTER" { st[$2, ++d[$2]] = name() }
    $1 == "LEAVE" { if (d[$2] < 1 || st[$2, d[$2]] != name()) { print "bad LEAVE on " $2 ": " $0; bad = 1 } d[$2]-- }
    $1 == "THREAD_ACQUIRE_LOCK" { k = r " " field("Lock"); o = field("Acquisition Order")
        if (acq[k, o]++) { print "acquisition " o " of lock " k " twice"; bad = 1 }
        who[k, o] = $2; if (o + 0 > max[k]) max[k] = o + 0; n[k]++ }
    $1 == "THREAD_RELEASE_LOCK" { k = r " " field("Lock"); o = field("Acquisition Order")
        if (rel[k, o]++ || who[k, o] != $2) { print "release " o " of lock " k " unpaired"; bad = 1 } }
    $1 == "THREAD_TASK_CREATE" { k = r " " field("Creating Thread") " " field("Generation Number")
        if (made[k]++) { print "task " k " created twice"; bad = 1 } made_t[k] = $3 }
    $1 == "THREAD_TASK_SWITCH" { k = r " " field("Creating Thread") " " field("Generation Number")
        if (field("Generation Number") != 0 && !(k in made)) { print "task " k " runs before its creation"; bad = 1 } }
    $1 == "THREAD_TASK_COMPLETE" { k = r " " field("Creating Thread") " " field("Generation Number")
        if (done[k]++ || !(k in made)) { print "task " k " completed twice or never created"; bad = 1 } }
    END {
        for (k in n) if (max[k] != n[k]) { print "lock " k ": " n[k] " acquisitions numbered up to " max[k]; bad = 1 }
        for (k in made) if (done[k] != 1) { print "task " k " not completed"; bad = 1 }
        for (l in d) if (d[l] > 0) { s = "open " l ":"
            for (i = 1; i <= d[l]; i++) { x = st[l, i]; sub(/ @.*/, "", x); s = s " [" x "]" }
            print s }
        exit bad }' "$1"
}

for b in $builds; do
    case $b in
    gcc) threads=2 ;;
    clang) threads=3 ;;
    esac
    out=$T/$b
    KMP_VERSION=1 OMP_NUM_THREADS=$threads OMP_WAIT_POLICY=passive \
        $UNPERTURB trace -q -o "$out" -- mpirun --oversubscribe $ROOT -np $NP "$T/omp_prog-$b" \
        > "$out.out" 2> "$out.err" || { cat "$out.out" "$out.err" >&2; fail "$b: the traced run failed"; }
    grep -q '^result: ok$' "$out.out" || fail "$b: the program's own checks: $(cat "$out.out")"
    [ "$(grep -c '^LLVM OMP version' "$out.err")" = $NP ] || fail "$b: the ranks did not run on LLVM's libomp"
    otf2-print "$out/traces.otf2" > "$out.txt" 2> /dev/null || fail "$b: archive not readable"
    ok "$b: $NP ranks of $threads threads on libomp, traced"

    want=$(sed -n 's/^counts: //p' "$out.out")
    # libomp's GOMP entry points report each barrier of gcc's code as an
    # implementation barrier: none is explicit in gcc's trace
    [ "$b" = gcc ] && want=$(echo "$want" | sed 's/explicit=[0-9]*/explicit=0/')
    trace_counts "$out.txt" > "$out.counts"
    for r in $(seq 0 $((NP - 1))); do
        got=$(sed -n "s/^rank $r: //p" "$out.counts")
        [ "$got" = "$want" ] || fail "$b rank $r: the trace counts
    $got
  the program counted
    $want"
    done
    ok "$b: per rank, the trace holds what the program counted: $want"

    check_structure "$out.txt" > "$out.structure" || fail "$b: $(grep -v '^open ' "$out.structure" | head -5)"
    # nothing stays open, the last region's workers included
    ! grep '^open ' "$out.structure" > "$out.open" || fail "$b: regions left open:
$(cat "$out.open")"
    ok "$b: regions nest, times never decrease, locks numbered 1..n, tasks created, run and completed once"

    $UNPERTURB compensate "$out" -o "$out-comp" > "$out.comp" 2>&1 || fail "$b: compensate: $(cat "$out.comp")"
    grep -Eq '^ +repairs +none$' "$out.comp" || fail "$b: compensate repaired: $(grep repairs "$out.comp")"
    ok "$b: compensate: no repair"

    if [ -x "$BUILD/bin/up-check" ]; then
        "$BUILD/bin/up-check" "$out" > "$out.check" 2>&1 || fail "$b: up-check: $(cat "$out.check")"
        ! grep -q 'warning \[' "$out.check" || fail "$b: up-check warned: $(cat "$out.check")"
        ok "$b: up-check: no violation, no warning"
    else
        echo "skip $b: up-check: $BUILD/bin/up-check not built"
    fi
done
echo "OMPT tool tests: $pass passed"
