#!/bin/sh
# tests/tracer/run.sh BUILD - end-to-end tests of the tracer: real MPI
# programs (C and Fortran) traced with `unperturb trace` on 2 and 4 ranks,
# the archives read back with otf2-print (an independent reader) and checked
# against the communication each program is known to do; runs that die
# (MPI_Abort, SIGTERM, SIGKILL) still leave a readable archive.
# Nothing here waits a fixed time or bounds a wall-clock duration: a signal
# is sent once the program has shown it got where the test needs it (its
# output, a flushed buffer on disk), so a loaded machine only makes the
# test slower.  The calibration's values under --extra-ns have bounds wide
# enough for a loaded machine and still tell a missing or doubled spin.
set -eu
BUILD=${1:-build}
UNPERTURB=${UNPERTURB:-$BUILD/bin/unperturb}
T=$(mktemp -d /tmp/unperturb-tracer-test.XXXXXX)
bg="" # traced runs started in the background: their ranks are killed on exit
trap 'for p in $bg; do r=$(hang_ranks $p); [ -z "$r" ] || kill -KILL $r; done; rm -rf "$T"' EXIT
ROOT=""
[ "$(id -u)" = 0 ] && ROOT=--allow-run-as-root
MPIRUN="mpirun --oversubscribe $ROOT"
pass=0
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { pass=$((pass + 1)); echo "ok   $*"; }

mpicc -O1 -g -o "$T/c_prog" tests/tracer/c_prog.c
mpicc -O1 -g -o "$T/c_hang" tests/tracer/c_hang.c
mpicc -O1 -g -o "$T/c_exit" tests/tracer/c_exit.c
mpif90 -O1 -g -o "$T/f_prog" tests/tracer/f_prog.f90
mpicc -O1 -g -o "$T/ring" examples/ring.c
mpicc -O1 -g -pthread -o "$T/c_threads" tests/tracer/c_threads.c

# count RECORD-TYPE on LOCATION in an otf2-print listing
count() { awk -v k="$2" -v l="$3" '$1 == k && $2 == l' "$1" | wc -l | tr -d ' '; }

# every MPI_SEND (sender, receiver, tag, length) has an MPI_RECV with the
# same fields seen from the receiver, and the reverse (same for ISEND/IRECV)
check_matching() {
    awk '
    $1 == "MPI_SEND" || $1 == "MPI_ISEND" {
        for (i = 1; i <= NF; i++) { if ($i == "Receiver:") p = $(i+1); if ($i == "Tag:") t = $(i+1); if ($i == "Length:") n = $(i+1) }
        gsub(",", "", t); gsub(",", "", n); s[$2 "->" p " " t " " n]++ }
    $1 == "MPI_RECV" || $1 == "MPI_IRECV" {
        for (i = 1; i <= NF; i++) { if ($i == "Sender:") p = $(i+1); if ($i == "Tag:") t = $(i+1); if ($i == "Length:") n = $(i+1) }
        gsub(",", "", t); gsub(",", "", n); r[p "->" $2 " " t " " n]++ }
    END { bad = 0
        for (k in s) if (s[k] != r[k]) { print "unmatched send " k; bad = 1 }
        for (k in r) if (s[k] != r[k]) { print "unmatched receive " k; bad = 1 }
        exit bad }' "$1"
}

# Enter/Leave nest per location, and name the same region
check_nesting() {
    awk '$1 == "ENTER" { st[$2, ++d[$2]] = $NF }
         $1 == "LEAVE" { if (d[$2] < 1 || st[$2, d[$2]] != $NF) { print "bad LEAVE on " $2 ": " $0; bad = 1; exit 1 } d[$2]-- }
         END { for (l in d) if (d[l] != 0) { print "location " l " left " d[l] " regions open"; exit 1 } exit bad }' "$1"
}

for np in 2 4; do
    # ---- C ----
    $UNPERTURB trace -q -o "$T/c$np" -- $MPIRUN -np $np "$T/c_prog" > "$T/c$np.out"
    otf2-print "$T/c$np/traces.otf2" > "$T/c$np.txt"
    for l in $(seq 0 $((np - 1))); do
        [ "$(count "$T/c$np.txt" MPI_SEND $l)" = 2 ] || fail "c_prog np=$np rank $l: MPI_SEND count"
        [ "$(count "$T/c$np.txt" MPI_RECV $l)" = 2 ] || fail "c_prog np=$np rank $l: MPI_RECV count"
        [ "$(count "$T/c$np.txt" MPI_ISEND $l)" = 1 ] || fail "c_prog np=$np rank $l: MPI_ISEND count"
        [ "$(count "$T/c$np.txt" MPI_ISEND_COMPLETE $l)" = 1 ] || fail "c_prog np=$np rank $l: ISEND_COMPLETE"
        [ "$(count "$T/c$np.txt" MPI_IRECV_REQUEST $l)" = 1 ] || fail "c_prog np=$np rank $l: IRECV_REQUEST"
        [ "$(count "$T/c$np.txt" MPI_IRECV $l)" = 1 ] || fail "c_prog np=$np rank $l: MPI_IRECV count"
        # allreduce, bcast, barrier, comm_split (CREATE_HANDLE), allreduce on the half
        [ "$(count "$T/c$np.txt" MPI_COLLECTIVE_END $l)" = 5 ] || fail "c_prog np=$np rank $l: collectives"
    done
    check_matching "$T/c$np.txt" || fail "c_prog np=$np: messages do not match"
    check_nesting "$T/c$np.txt" || fail "c_prog np=$np: regions do not nest"
    grep -q 'Tag: 7, Length: 400' "$T/c$np.txt" || fail "c_prog: 400-byte message"
    grep -q 'Tag: 8, Length: 80, Request' "$T/c$np.txt" || fail "c_prog: 80-byte isend"
    # the split communicators: two of np/2 members each
    otf2-print -G "$T/c$np/traces.otf2" > "$T/c$np.defs"
    [ "$(grep -c "^GROUP .*COMM_GROUP.*, $((np / 2)) Member" "$T/c$np.defs")" = 2 ] || fail "c_prog np=$np: split communicators"
    otf2-print -A "$T/c$np/traces.otf2" > "$T/c$np.cal"
    grep -q '^enter = ' "$T/c$np.cal" || fail "c_prog: no calibration in the archive"
    # a failed PMPI_Test, in [network]: some ns, far below a microsecond on
    # 2 ranks; oversubscribed, Open MPI's progress yields the core inside
    # MPI_Test (2.8 us seen on 4 ranks under the sanitizers)
    max=1000
    [ "$np" -gt 2 ] && max=1000000
    awk -v max=$max '/^\[/ { sec = $0 } sec == "[network]" && $1 == "test_ns" && $2 == "=" { n++; v = $3 }
         END { exit !(n == 1 && v > 0 && v < max) }' "$T/c$np.cal" ||
        fail "c_prog np=$np: [network] test_ns missing or out of range: $(grep -n 'test_ns' "$T/c$np.cal" | head -3)"
    ok "C program on $np ranks: counts, sizes, matching, nesting, communicators, calibration"

    # ---- Fortran ----
    $UNPERTURB trace -q -o "$T/f$np" -- $MPIRUN -np $np "$T/f_prog" > "$T/f$np.out"
    grep -q 'f_prog: ok' "$T/f$np.out" || fail "f_prog np=$np did not finish"
    otf2-print "$T/f$np/traces.otf2" > "$T/f$np.txt"
    for l in $(seq 0 $((np - 1))); do
        for k in MPI_SEND MPI_RECV MPI_ISEND MPI_ISEND_COMPLETE MPI_IRECV_REQUEST MPI_IRECV; do
            [ "$(count "$T/f$np.txt" $k $l)" = 1 ] || fail "f_prog np=$np rank $l: $k count"
        done
        [ "$(count "$T/f$np.txt" MPI_COLLECTIVE_END $l)" = 5 ] || fail "f_prog np=$np rank $l: collectives"
        [ "$(count "$T/f$np.txt" ENTER $l)" = 13 ] || fail "f_prog np=$np rank $l: ENTER count"
    done
    check_matching "$T/f$np.txt" || fail "f_prog np=$np: messages do not match"
    check_nesting "$T/f$np.txt" || fail "f_prog np=$np: regions do not nest"
    ok "Fortran program on $np ranks: counts, matching, nesting"
done

# ---- compensate reads the tracer's archive with no flags ----
$UNPERTURB compensate "$T/c4" -o "$T/c4-comp" --json "$T/c4.json" -q
grep -q '"mode"' "$T/c4.json" || fail "compensate of a traced run"
ok "compensate uses the archive's calibration"

# ---- --cpu-time: a Metric record (thread CPU time) right before every Enter
# and Leave of an MPI call but MPI_Init's Enter (taken before MPI existed);
# the values never decrease; the calibration has the kind "metric"
$UNPERTURB trace -q --cpu-time -o "$T/cpu" -- $MPIRUN -np 2 "$T/c_prog" > /dev/null
otf2-print "$T/cpu/traces.otf2" > "$T/cpu.txt"
awk '$1 == "METRIC" { if (pend[$2]) { print "two metrics in a row on " $2; bad = 1 }
                      pend[$2] = 1; v = $NF; sub(/\)$/, "", v)
                      if (v + 0 < last[$2]) { print "CPU time decreases on " $2; bad = 1 }
                      last[$2] = v + 0; m[$2]++; next }
     $1 == "ENTER" || $1 == "LEAVE" {
                      if ($0 ~ /Region: "MPI_/ && !pend[$2] && !($1 == "ENTER" && $0 ~ /"MPI_Init"/)) {
                          print "no metric before: " $0; bad = 1 }
                      el[$2]++ }
     $2 ~ /^[0-9]+$/ { pend[$2] = 0 }
     END { for (l in el) if (m[l] != el[l] - 1) { print "location " l ": " m[l] " metrics, " el[l] " enters and leaves"; bad = 1 }
           exit bad }' "$T/cpu.txt" || fail "--cpu-time: metric records"
otf2-print -G "$T/cpu/traces.otf2" | grep -q '^METRIC_CLASS .*SYNCHRONOUS, Kind: CPU' || fail "--cpu-time: no metric class"
otf2-print -A "$T/cpu/traces.otf2" | grep -q '^metric = ' || fail "--cpu-time: no metric calibration"
$UNPERTURB compensate "$T/cpu" -o "$T/cpu-comp" -q
[ "$(otf2-print "$T/cpu-comp/traces.otf2" | grep -c '^METRIC')" = "$(grep -c '^METRIC' "$T/cpu.txt")" ] || fail "--cpu-time: compensate lost metrics"
ok "--cpu-time: a CPU-time metric at every MPI Enter and Leave, compensated"

# ---- the stored calibration: every kind, and --extra-ns timed on its own ----
# fn_enter/fn_leave come from the real hooks; with 200 us of extra cost per
# record every kind costs about that: the spin is timed as the difference of
# two minima over trials, which a loaded machine can move by some us either
# way, never by 50 us at every trial; a spin that is not added gives 70 ns,
# one counted twice (it once was spun inside every kind's own records too)
# 400 us.  How long the calibration took is shown, not checked: a figure for
# bench/tracer.sh, not a property a test can hold on a shared machine.
$UNPERTURB trace -q --extra-ns 200000 -o "$T/xcal" -- $MPIRUN -np 2 "$T/c_prog" > /dev/null
otf2-print -A "$T/xcal/traces.otf2" > "$T/xcal.txt"
grep -q '^extra_ns = 200000$' "$T/xcal.txt" || fail "calibration: extra_ns not stored"
for k in enter leave send recv coll_begin coll_end other metric fn_enter fn_leave poll_enter poll_leave thread lock; do
    v=$(awk -v k="$k" '$1 == k && $2 == "=" { print $3; exit }' "$T/xcal.txt")
    [ -n "$v" ] || fail "calibration: no '$k'"
    awk -v v="$v" 'BEGIN { exit !(v >= 150000 && v < 300000) }' ||
        fail "calibration with --extra-ns 200000: $k = $v"
done
# the range of O: [overhead_low] <= [overhead] <= [overhead_high] per kind,
# the extra cost in each (it does not overlap or miss the cache)
awk '/^\[/ { sec = $0 } $2 == "=" && sec ~ /^\[overhead(_low|_high)?\]$/ { v[sec, $1] = $3; k[$1] = 1 }
     END { for (x in k) { lo = v["[overhead_low]", x]; o = v["[overhead]", x]; hi = v["[overhead_high]", x]
                          if (lo == "" || hi == "" || !(150000 <= lo + 0 && lo + 0 <= o + 0 && o + 0 <= hi + 0)) {
                              print x ": " lo " " o " " hi; bad = 1 } }
           exit bad }' "$T/xcal.txt" || fail "calibration: range of O"
# what the run's spins took beyond the calibrated one, per location: both
# ranks, at least 0 and well under the 200 us asked (a spin that ends more
# than 1 us late is a stall, listed apart: the mean of the others cannot
# exceed the calibration's by more than that, loaded or not)
awk '/^\[/ { sec = $0 } sec == "[overhead_by_location]" && $2 == "=" { n++; if (!($3 >= 0 && $3 < 10000)) bad = 1 }
     END { exit bad || n != 2 }' "$T/xcal.txt" || fail "calibration: [overhead_by_location]"
$UNPERTURB compensate "$T/xcal" -o "$T/xcal-lo" --mode lower > "$T/xcal-lo.txt"
grep -q 'the high end of the calibrated range of O' "$T/xcal-lo.txt" || fail "compensate --mode lower: not the high O"
# the uninstrumented MPI_Test has none of the extra cost
awk '$1 == "test_ns" && $2 == "=" { n++; v = $3 } END { exit !(n == 1 && v > 0 && v < 150000) }' "$T/xcal.txt" ||
    fail "calibration with --extra-ns 200000: test_ns"
took=$(sed -n 's/^; calibration took \([0-9.]*\) ms.*/\1/p' "$T/xcal.txt")
[ -n "$took" ] || fail "calibration: its duration is not stored"
ok "calibration: all ten kinds, their range and the run's spins per location stored; --extra-ns 200000 added to each, not to test_ns (it took $took ms)"

# ---- stalls of the --extra-ns spins: listed, and removed where they lie ----
# Both ranks on one core: a spin of 20 us is often interrupted, and when it
# ends more than 1 us late the tracer lists the interval (tracer.md).  The
# lists, read with od, must hold what compensate says it removed.
taskset -c 0 $UNPERTURB trace -q --extra-ns 20000 -o "$T/stall" -- \
    $MPIRUN -np 2 --bind-to none "$T/ring" 500 > /dev/null
rate=$(otf2-print -G "$T/stall/traces.otf2" | sed -n 's/.*Ticks per Seconds: \([0-9]*\).*/\1/p')
otf2-print "$T/stall/traces.otf2" | awk '$2 ~ /^[0-9]+$/ { last[$2] = $3 } END { for (l in last) print l, last[l] }' > "$T/stall-last.txt"
n=0
sum=0
for f in "$T"/stall/traces/*.stalls; do
    [ -f "$f" ] || continue
    loc=$(basename "$f" .stalls)
    last=$(awk -v l="$loc" '$1 == l { print $2 }' "$T/stall-last.txt")
    # a stall lies in the gaps up to the location's last record: the part
    # before it is removed, and a stall wholly before it is counted
    set -- $(od -An -v -t u8 -w16 "$f" | awk -v r="$rate" -v last="$last" '
        { if ($2 <= r / 1e6 || $1 < p) bad = 1; p = $1 + $2
          if ($1 + $2 <= last) { n++; s += $2 } else if ($1 < last) s += last - $1 }
        END { printf "%d %.0f %d\n", n, s, bad }')
    [ "$3" = 0 ] || fail "$f: a stall of 1 us or less, or out of order"
    n=$((n + $1))
    sum=$(awk -v a="$sum" -v b="$2" 'BEGIN { printf "%.0f", a + b }')
done
[ "$n" -gt 0 ] || fail "no stall listed for 20 us spins on a shared core"
$UNPERTURB compensate -q "$T/stall" -o "$T/stall-c" --json "$T/stall-c.json"
[ "$(jq .parameters.stalls "$T/stall-c.json")" = "$n" ] || fail "compensate removed $(jq .parameters.stalls "$T/stall-c.json") stalls, the lists hold $n before the last records"
awk -v s="$(jq .parameters.stalls_s "$T/stall-c.json")" -v t="$sum" -v r="$rate" \
    'BEGIN { exit !(s - t / r < 1e-6 && t / r - s < 1e-6) }' || fail "stall time: compensate $(jq .parameters.stalls_s "$T/stall-c.json") s, the lists $sum ticks"
ok "stalls of --extra-ns spins: $n listed, $(jq .parameters.stalls_s "$T/stall-c.json") s, all removed by compensate"
# an O given on the command line drops the lists with the rest of the
# calibration (docs/models.md; before issue 23 compensate kept them, while
# estimate and report dropped them)
$UNPERTURB compensate -q "$T/stall" -o "$T/stall-o" --overhead-ns 50 --json "$T/stall-o.json"
[ "$n" -gt 0 ] && [ "$(jq .parameters.stalls "$T/stall-o.json")" = 0 ] ||
    fail "--overhead-ns: $(jq .parameters.stalls "$T/stall-o.json") stalls removed of $n listed, expected none"
ok "--overhead-ns drops the $n listed stalls with the rest of the calibration"

# ---- start-up in step: ranks leave MPI_Init together (issue 20, item 3) ----
# The tracer's own work inside MPI_Init ends at different times per rank on
# a loaded machine; it ends MPI_Init with a barrier, so the ranks leave it
# together, as they do untraced.  The test hook UNPERTURB_TEST_INIT_DELAY_MS
# makes rank 1 end that work 20 ms late.  Without the barrier its
# Leave(MPI_Init) came 20 ms after rank 0's, and the ring's first exchange
# waited for it inside the window, measured and compensated alike (20-54 ms
# for 20 steps that take 0.3-0.5 ms without the delay).  A loaded machine
# can still keep a rank from seeing the barrier end (8 ms once here, as it
# would untraced), so each run is made up to 5 times and the least of each
# figure counts: the delayed run's skew, and its measured and compensated
# times against the undelayed run's, must stay under 5 ms.
# init_try DELAY_MS: trace ring 20, append "DELAY skew_ms measured_s approximated_s"
init_try() {
    d="$T/init$1"
    rm -rf "$d" "$d-c" "$d.json"
    UNPERTURB_TEST_INIT_DELAY_MS=$1 UNPERTURB_TEST_INIT_DELAY_RANK=1 \
        $UNPERTURB trace -q -o "$d" -- $MPIRUN -np 2 "$T/ring" 20 > /dev/null
    rate=$(otf2-print -G "$d/traces.otf2" | sed -n 's/.*Ticks per Seconds: \([0-9]*\).*/\1/p')
    skew=$(otf2-print "$d/traces.otf2" | awk -v r="$rate" '$1 == "LEAVE" && /Region: "MPI_Init"/ { t[$2] = $3; n++ }
        END { if (n != 2 || !(r > 0)) exit 1; d = t[1] - t[0]; if (d < 0) d = -d; printf "%.3f", d / r * 1e3 }') ||
        fail "start-up in step: no Leave(MPI_Init) on both ranks"
    $UNPERTURB compensate -q "$d" -o "$d-c" --json "$d.json"
    echo "$1 $skew $(jq .measured_time_s "$d.json") $(jq .approximated_time_s "$d.json")" >> "$T/init.txt"
}
# the least figures so far; true when they pass
init_verdict() {
    awk '{ if (!($1 in s) || $2 < s[$1]) s[$1] = $2; if (!($1 in m) || $3 < m[$1]) m[$1] = $3
           if (!($1 in a) || $4 < a[$1]) a[$1] = $4 }
         END { printf "Leave(MPI_Init) skew %.3f ms; measured %.3f ms against %.3f, compensated %.3f ms against %.3f without the delay\n",
                      s[20], m[20] * 1e3, m[0] * 1e3, a[20] * 1e3, a[0] * 1e3
               exit !(s[20] < 5 && (m[20] - m[0]) * 1e3 < 5 && (a[20] - a[0]) * 1e3 < 5) }' "$T/init.txt"
}
: > "$T/init.txt"
try=0
until [ $try -ge 1 ] && init_verdict > "$T/init.verdict"; do
    [ $try -lt 5 ] || fail "start-up in step, 20 ms late start-up on rank 1, best of 5: $(cat "$T/init.verdict")"
    try=$((try + 1))
    init_try 0
    init_try 20
done
ok "start-up in step: rank 1's start-up 20 ms late, $(cat "$T/init.verdict") (try $try of at most 5)"

# ---- a rank that cannot create its trace: no rank traces, none waits ----
# (the tracer's start-up is collective: a rank that gave up alone left the
# others waiting in it while it ran the program, and the run hung)
mkdir -p "$T/nodefs/.upt/1.defs" # rank 1's definitions file cannot be created
timeout 600 $MPIRUN -np 2 -x UNPERTURB_DIR="$T/nodefs" -x LD_PRELOAD="$(cd "$BUILD/lib" && pwd)/libunperturb-trace.so" \
    "$T/ring" 20 > "$T/nodefs.out" 2> "$T/nodefs.err" || fail "a rank without its trace: the run failed or hung ($(cat "$T/nodefs.err"))"
grep -q '^ring: iterations=20 ' "$T/nodefs.out" || fail "a rank without its trace: the program did not finish"
grep -q 'rank 1: cannot create .*1.defs.*the run is not traced' "$T/nodefs.err" || fail "a rank without its trace: rank 1 did not say why"
grep -q 'rank 0: another rank could not create its trace; the run is not traced' "$T/nodefs.err" || fail "a rank without its trace: rank 0 did not say so"
[ "$(cd "$T/nodefs" && find . | sort | tr '\n' ' ')" = ". ./.upt ./.upt/1.defs " ] || fail "a rank without its trace: files left: $(cd "$T/nodefs" && find .)"
ok "a rank that cannot create its trace: no rank traces, the run ends, no half-made files"

# ---- a run that dies ----
# MPI_Abort on rank 1 after 300 ring steps: every record before it is kept
# (mpirun ends rank 0 with SIGTERM, then SIGKILL: 5 s between, as for SIGTERM below)
OMPI_MCA_odls_base_sigkill_timeout=5 $UNPERTURB trace -q -o "$T/abort" -- $MPIRUN -np 2 "$T/c_hang" abort 300 > /dev/null 2>&1 && fail "abort: exit status 0"
otf2-print "$T/abort/traces.otf2" > "$T/abort.txt"
[ "$(count "$T/abort.txt" MPI_SEND 0)" = 300 ] && [ "$(count "$T/abort.txt" MPI_SEND 1)" = 300 ] || fail "abort: sends lost"
ok "MPI_Abort leaves every record"

# The program's failure is the command's, as exit status 1 and one line with
# its status or signal; the trace is kept (issue 31: trace passed a
# segfault's 139 on, which reads as "unperturb was killed by signal 11")
st=0
$UNPERTURB trace -q -o "$T/exit3" -- $MPIRUN -np 2 "$T/c_exit" 3 > /dev/null 2> "$T/exit3.err" || st=$?
[ "$st" = 1 ] || fail "a program that exits 3: exit status $st, not 1"
grep -q '^unperturb trace: the program failed: exit status 3; its trace is kept in ' "$T/exit3.err" ||
    fail "a program that exits 3: no line with its status: $(cat "$T/exit3.err")"
[ "$(otf2-print "$T/exit3/traces.otf2" | grep -c '^MPI_COLLECTIVE_END')" = 2 ] || fail "a program that exits 3: trace not kept"
ok "a program that exits 3: unperturb trace exits 1, says 'exit status 3', keeps the trace"
st=0
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
$UNPERTURB trace -q -o "$T/segv" -- "$T/c_exit" segv > /dev/null 2> "$T/segv.err" || st=$?
[ "$st" = 1 ] || fail "a program killed by SIGSEGV: exit status $st, not 1"
grep -q '^unperturb trace: the program failed: killed by signal 11 (SIGSEGV); its trace is kept in ' "$T/segv.err" ||
    fail "a program killed by SIGSEGV: no line with the signal: $(cat "$T/segv.err")"
# (kept and readable; its records may be lost: Open MPI's SIGSEGV handler of a
# singleton runs before the tracer's)
otf2-print "$T/segv/traces.otf2" > /dev/null || fail "a program killed by SIGSEGV: trace not kept"
ok "a program killed by SIGSEGV (singleton): unperturb trace exits 1, names the signal, keeps the trace"
# `trace --recover DIR` reads the per-rank files only as regular files: a
# .defs that is a link to /dev/zero or /dev/urandom was read without end, a
# FIFO blocked (issue 31).  The per-rank files stay when the merge at
# MPI_Finalize finds traces.otf2 already there.
mkdir -p "$T/upt"
: > "$T/upt/traces.otf2"
$MPIRUN -np 2 -x UNPERTURB_DIR="$T/upt" -x LD_PRELOAD="$(cd "$BUILD/lib" && pwd)/libunperturb-trace.so" \
    "$T/ring" 20 > /dev/null 2> "$T/upt.err"
rm "$T/upt/traces.otf2"
[ -s "$T/upt/.upt/1.defs" ] || fail "recover: no per-rank files left ($(cat "$T/upt.err"))"
for k in zero urandom fifo; do
    cp -r "$T/upt" "$T/upt-$k"
    rm "$T/upt-$k/.upt/1.defs"
    if [ $k = fifo ]; then mkfifo "$T/upt-$k/.upt/1.defs"; else ln -s /dev/$k "$T/upt-$k/.upt/1.defs"; fi
    st=0
    timeout 120 $UNPERTURB trace --recover "$T/upt-$k" > /dev/null 2> "$T/rec-$k.err" || st=$?
    [ $st = 1 ] || fail "recover with 1.defs $k: exit status $st, not 1 (124: it hung)"
    grep -q "1.defs: a .*, not a regular file" "$T/rec-$k.err" || fail "recover with 1.defs $k: $(cat "$T/rec-$k.err")"
done
$UNPERTURB trace --recover "$T/upt" > /dev/null || fail "recover of the intact per-rank files"
[ "$(otf2-print "$T/upt/traces.otf2" | grep -c '^MPI_ISEND ')" = 80 ] || fail "recover: not every send"
ok "trace --recover: a .defs that is /dev/zero, /dev/urandom or a FIFO is refused at once; the intact files merge"
mkfifo "$T/filter.fifo"
st=0
timeout 120 $UNPERTURB trace -q -o "$T/ffifo" --filter "$T/filter.fifo" -- $MPIRUN -np 2 "$T/ring" 2 > /dev/null 2> "$T/ffifo.err" || st=$?
[ $st = 1 ] && grep -q "cannot read the filter file .*FIFO" "$T/ffifo.err" && [ ! -e "$T/ffifo" ] ||
    fail "--filter a FIFO: exit $st: $(cat "$T/ffifo.err")"
ok "trace --filter a FIFO: refused at once"

# calibrate's measurement run that cannot start is a failure (it exited 0)
st=0
$UNPERTURB calibrate -o "$T/cal-none.ini" --launcher /nonexistent/mpirun > /dev/null 2> "$T/cal-none.err" || st=$?
[ "$st" = 1 ] || fail "calibrate --launcher /nonexistent: exit status $st, not 1"
grep -q 'the measurement run failed: exit status 127' "$T/cal-none.err" || fail "calibrate --launcher /nonexistent: $(cat "$T/cal-none.err")"
[ ! -e "$T/cal-none.ini" ] && [ -z "$(ls "$T" | grep 'cal-none.ini.tmp')" ] || fail "calibrate --launcher /nonexistent: files left"
ok "calibrate with a launcher that cannot run: exit 1, nothing written"
# calibrate -o -: the calibration on stdout, nothing else written (its
# measurement writes into a scratch folder, removed); it reads back
mkdir "$T/scratch"
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
calprog=${UNPERTURB_CALIBRATE_PROG:+$(abs "$UNPERTURB_CALIBRATE_PROG")}
up=$(abs "$UNPERTURB")
(cd "$T" && UNPERTURB_CALIBRATE_PROG=$calprog TMPDIR=$T/scratch "$up" calibrate -o - \
    > "$T/cal-stdout.ini" 2> "$T/cal-stdout.err") || fail "calibrate -o -: $(cat "$T/cal-stdout.err")"
head -1 "$T/cal-stdout.ini" | grep -q '^; unperturb calibration' && grep -q '^\[overhead\]' "$T/cal-stdout.ini" ||
    fail "calibrate -o -: no calibration on stdout"
[ ! -e "$T/-" ] || fail "calibrate -o -: a file named -"
[ -z "$(ls -A "$T/scratch")" ] || fail "calibrate -o -: its scratch folder is left: $(ls -A "$T/scratch")"
$UNPERTURB compensate "$T/c2" -o "$T/c2-cal" --calibration "$T/cal-stdout.ini" -q || fail "calibrate -o -: it does not read back"
ok "calibrate -o -: the calibration on stdout, nothing left, and it reads back"

# wait_for WHAT PID COMMAND...: polls COMMAND until it succeeds; fails if
# process PID (the traced run) ended first, or after 600 s: the time a hung
# run takes to show, not a bound on how fast anything must be
wait_for() {
    what=$1 wpid=$2
    shift 2
    i=0
    until "$@"; do
        kill -0 "$wpid" 2>/dev/null || fail "$what: the run ended first"
        i=$((i + 1))
        [ $i -lt 6000 ] || fail "$what: not reached in 600 s"
        sleep 0.1
    done
}
# both ranks of c_hang printed that they are done with their iterations
both_done() { [ "$(grep -c "^c_hang: rank [01] done with $2 iterations" "$1" 2>/dev/null)" = 2 ]; }
# rank R of the run writing into $T/NAME has flushed a full 1 MiB buffer
# (the folder, or its temporary name holding NAME, while the run goes on)
flushed() { [ -n "$(find "$T" -path "$T/*$1*/.upt/$2/traces/*.evt" -size +1023k 2>/dev/null)" ]; }
# the c_hang processes among the descendants of process $1 (not every
# c_hang on the machine: other test runs may have their own)
hang_ranks() {
    for c in $(pgrep -P "$1" || true); do
        [ "$(ps -o comm= -p "$c" 2>/dev/null)" = c_hang ] && echo "$c"
        hang_ranks "$c"
    done
    true
}

# SIGTERM to `unperturb trace` (as a batch system would send it), once both
# ranks are done with their 300 ring steps and sleep.  mpirun passes it on
# and sends SIGKILL odls_base_sigkill_timeout seconds later (1 by default):
# on a loaded machine a rank once needed longer to write its buffer and lost
# it (docs/tracer.md).  5 s here: the test is about the handler, not a race
OMPI_MCA_odls_base_sigkill_timeout=5 \
$UNPERTURB trace -q -o "$T/term" -- $MPIRUN -np 2 "$T/c_hang" wait 300 > "$T/term.out" 2>&1 &
pid=$!
bg="$bg $pid"
wait_for "SIGTERM: the ring steps" $pid both_done "$T/term.out" 300
kill -TERM $pid
wait $pid && fail "SIGTERM: exit status 0" || true
otf2-print "$T/term/traces.otf2" > "$T/term.txt"
[ "$(count "$T/term.txt" MPI_RECV 0)" = 300 ] && [ "$(count "$T/term.txt" MPI_RECV 1)" = 300 ] ||
    fail "SIGTERM: records lost (MPI_RECV on rank 0: $(count "$T/term.txt" MPI_RECV 0), rank 1: $(count "$T/term.txt" MPI_RECV 1), of 300)"
ok "SIGTERM leaves every record"

# SIGKILL of the ranks: what was flushed (1 MiB buffers) stays readable.
# They are killed once each has flushed its buffer at least once (a full
# 1 MiB chunk holds over 10 000 ring steps)
$UNPERTURB trace -q --buffer-mb 1 -o "$T/kill" -- $MPIRUN -np 2 "$T/c_hang" wait 200000 > /dev/null 2>&1 &
pid=$!
bg="$bg $pid"
wait_for "SIGKILL: a flushed buffer of rank 0" $pid flushed kill 0
wait_for "SIGKILL: a flushed buffer of rank 1" $pid flushed kill 1
ranks=$(hang_ranks $pid)
[ -n "$ranks" ] || fail "SIGKILL: no c_hang process under $pid"
kill -KILL $ranks
wait $pid && fail "SIGKILL: exit status 0" || true
timeout 600 otf2-print "$T/kill/traces.otf2" > "$T/kill.txt" || fail "SIGKILL: archive not readable"
n=$(count "$T/kill.txt" MPI_SEND 0)
[ "$n" -gt 1000 ] || fail "SIGKILL: only $n sends survived"
grep -q '^BUFFER_FLUSH' "$T/kill.txt" || fail "SIGKILL: no BufferFlush records"
ok "SIGKILL: $n flushed sends of rank 0 readable, with BufferFlush records"

# MPI from other threads (MPI_THREAD_MULTIPLE): one location per thread,
# numbered as Score-P does (index << 32 | rank), in the rank's group; a
# thread that ended before MPI_Finalize and one still alive there
$UNPERTURB trace -q -o "$T/thr" -- $MPIRUN -np 2 "$T/c_threads" > "$T/thr.out"
if grep -q skip "$T/thr.out"; then
    ok "threads: skipped (this MPI does not provide MPI_THREAD_MULTIPLE)"
else
    grep -q done "$T/thr.out" || fail "threads: the program did not finish"
    otf2-print "$T/thr/traces.otf2" > "$T/thr.txt"
    otf2-print -G "$T/thr/traces.otf2" > "$T/thr.defs" 2>&1
    for r in 0 1; do
        # the two threads' locations of rank r, by their record counts
        got=$(for l in $((4294967296 + r)) $((8589934592 + r)); do
                  awk -v l=$l '$2 == l' "$T/thr.txt" | wc -l; done | sort -n | tr '\n' ' ')
        [ "$got" = "24 36 " ] || fail "threads: rank $r threads recorded '$got' records, wanted 24 and 36 (c_threads.c)"
        grep -q "^LOCATION  *$((4294967296 + r)) .*Group: \"MPI Rank $r\"" "$T/thr.defs" ||
            fail "threads: rank $r's thread 1 is not in its group"
        [ "$(count "$T/thr.txt" MPI_COLLECTIVE_END $r)" = 1 ] ||
            fail "threads: rank $r's main thread has not its one barrier"
    done
    # matched by rank: a location's rank is its id's low 32 bits
    awk '$1 ~ /^MPI_(SEND|RECV)$/ { $2 = $2 % 4294967296 } { print }' "$T/thr.txt" > "$T/thr.ranks"
    check_matching "$T/thr.ranks" || fail "threads: messages between threads do not match"
    check_nesting "$T/thr.txt" || fail "threads: nesting"
    $UNPERTURB compensate -q "$T/thr" -o "$T/thr-comp" --json "$T/thr.json" ||
        fail "threads: compensate failed"
    grep -q '"unmatched_recv": 0' "$T/thr.json" && grep -q '"unresolved_peer": 0' "$T/thr.json" ||
        fail "threads: the replay did not match the threads' messages: $(cat "$T/thr.json")"
    ok "threads: 2 ranks x 2 MPI threads, a location each (36 and 24 records), matched"
fi

# every generated Fortran wrapper records as its C twin; sizes by hand
UNPERTURB=$UNPERTURB tests/tracer/twins.sh "$BUILD" || fail "twins: see above"
ok "twins: the C and Fortran wrappers of every generated call"

echo "tracer tests: $pass passed"
