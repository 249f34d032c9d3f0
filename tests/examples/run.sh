#!/bin/sh
# tests/examples/run.sh [BUILD] - end-to-end tests of the example programs
# (examples/*.c) and of the timing shim (src/shim/timeshim.c), as built by
# `make` into BUILD (default build).  Every example runs on 2, 3 and 4 ranks
# with small arguments, under the shim; its result line is checked against a
# value computed here independently, in awk (a simulation of the same
# arithmetic, or a closed form), and its time file against the format of
# docs/examples.md.  Then: the shim without UNPERTURB_TIME_FILE, the shim's
# C MPI_Init_thread and Fortran entry points, and montecarlo-finst under the
# tracer (`unperturb trace --functions`).
set -eu
BUILD=${1:-build}
UNPERTURB=${UNPERTURB:-$BUILD/bin/unperturb}
[ -d "$BUILD" ] || { echo "FAIL: no build directory $BUILD: run make first" >&2; exit 1; }
ABS=$(cd "$BUILD" && pwd)
EX=$ABS/examples
SHIM=$ABS/lib/libunperturb-time.so
T=$(mktemp -d /tmp/unperturb-examples-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
ROOT=""
[ "$(id -u)" = 0 ] && ROOT=--allow-run-as-root
MPIRUN="mpirun --oversubscribe $ROOT"
pass=0
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { pass=$((pass + 1)); echo "ok   $*"; }

for p in montecarlo montecarlo-finst barrier transpose transpose-any ring halo poll farm cg; do
    [ -x "$EX/$p" ] || fail "$EX/$p is missing: run make first"
done
[ -f "$SHIM" ] || fail "$SHIM is missing: run make first"

# the value of KEY=value in a result line
field() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# check_time FILE NP: the shim's file is complete and consistent
check_time() {
    [ -f "$1" ] || fail "$3: no time file $1"
    ls "$1".tmp.* > /dev/null 2>&1 && fail "$3: temporary file left next to $1"
    awk -v np="$2" -v sec='^[0-9]+[.][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]$' '
        NR == 1 { if ($0 != "# unperturb-time 1") { print "bad first line: " $0; exit 1 } next }
        { i = index($0, "="); if (!i) { print "bad line: " $0; exit 1 } v[substr($0, 1, i - 1)] = substr($0, i + 1) }
        END {
            if (v["ranks"] != np) { print "ranks=" v["ranks"] ", expected " np; exit 1 }
            if (!(v["window_s"] ~ sec) || v["window_s"] + 0 <= 0) { print "bad window_s=" v["window_s"]; exit 1 }
            for (r = 0; r < np; r++) {
                k = "rank" r "_s"
                if (!(k in v) || !(v[k] ~ sec)) { print "bad or missing " k; exit 1 }
                if (v[k] + 0 > v["window_s"] + 0) { print k "=" v[k] " > window_s=" v["window_s"]; exit 1 }
            }
            if (v["openmp"] != "none") { print "openmp=" v["openmp"] ", expected none"; exit 1 }
            n = 0; for (k in v) n++
            if (n != np + 3) { print "unexpected lines"; exit 1 }
        }' "$1" || fail "$3: time file $1"
}

# run NAME NP PROGRAM ARGS...: under the shim; prints rank 0's result line
run() {
    name=$1 np=$2
    shift 2
    rm -f "$T/time"
    UNPERTURB_TIME_FILE="$T/time" LD_PRELOAD="$SHIM" $MPIRUN -np "$np" "$@" > "$T/out" 2> "$T/err" ||
        { cat "$T/err" >&2; fail "$name np=$np exited with an error"; }
    n=$(grep -c "^$name: " "$T/out" || true)
    [ "$n" = 1 ] || { cat "$T/out" >&2; fail "$name np=$np printed $n result lines, expected 1"; }
    check_time "$T/time" "$np" "$name np=$np"
    grep "^$name: " "$T/out"
}

# ---- independent predictions, in awk ------------------------------------------------

# barrier ITERATIONS UNIT NP -> "checksum units": x_r = 48271^(UNIT U_r) (r+1) mod 2^31-1
predict_barrier() {
    awk -v I="$1" -v unit="$2" -v np="$3" '
    function mulmod(a, b, m,  hi, lo) { hi = int(b / 65536); lo = b % 65536
        return ((a * hi % m) * 65536 + a * lo) % m }
    function powmod(b, e, m,  r) { r = 1
        while (e > 0) { if (e % 2) r = mulmod(r, b, m); b = mulmod(b, b, m); e = int(e / 2) }
        return r }
    BEGIN { M = 2147483647; sum = 0; tot = 0
        for (r = 0; r < np; r++) {
            U = 0; for (it = 0; it < I; it++) U += 2 + (3 * r + 5 * it) % 7
            sum += mulmod(powmod(48271, unit * U, M), r + 1, M); tot += U }
        printf "%.0f %.0f\n", sum, tot }'
}

# transpose N ITERATIONS WORK -> checksum (the matrix, transposed for real)
predict_transpose() {
    awk -v N="$1" -v I="$2" -v W="$3" 'BEGIN { P = 16777213
        for (i = 0; i < N; i++) for (j = 0; j < N; j++) a[i, j] = (i * N + j) % P
        for (it = 0; it < I; it++) {
            for (i = 0; i < N; i++) for (j = 0; j < N; j++) {
                x = a[i, j]; for (k = 0; k < W; k++) x = (x * 48271 + j + 1) % P; a[i, j] = x }
            for (i = 0; i < N; i++) for (j = 0; j < N; j++) b[j, i] = a[i, j]
            for (i = 0; i < N; i++) for (j = 0; j < N; j++) a[i, j] = b[i, j]
        }
        s = 0; for (i = 0; i < N; i++) for (j = 0; j < N; j++) s = (s + a[i, j] * ((i * N + j + 1) % P)) % P
        printf "%d\n", s }'
}

# ring ITERATIONS WORK NP -> checksum (every rank simulated, in lockstep)
predict_ring() {
    awk -v I="$1" -v W="$2" -v np="$3" 'BEGIN { P = 16777213; K = 32
        for (r = 0; r < np; r++) for (k = 0; k < K; k++) v[r, k] = r * K + k + 1
        for (it = 0; it < I; it++) {
            for (r = 0; r < np; r++) for (k = 0; k < K; k++) old[r, k] = v[r, k]
            for (r = 0; r < np; r++) { L = (r + np - 1) % np; R = (r + 1) % np
                for (k = 0; k < K; k++) {
                    x = (old[r, k] * 48271 + old[L, k] + 2 * old[R, (k + 1) % K] + it) % P
                    for (w = 0; w < W; w++) x = (x * 69621 + k + 1) % P
                    v[r, k] = x } } }
        s = 0; for (r = 0; r < np; r++) for (k = 0; k < K; k++) s = (s + v[r, k] * (r * K + k + 1)) % P
        printf "%d\n", s }'
}

# halo N ITERATIONS -> "residual checksum" (serial Jacobi, same summation order)
predict_halo() {
    awk -v N="$1" -v I="$2" 'BEGIN {
        for (i = 0; i <= N + 1; i++) for (j = 0; j <= N + 1; j++) u[i, j] = 0
        for (j = 1; j <= N; j++) { u[0, j] = 1.0; u[N + 1, j] = 0.0 }
        for (i = 1; i <= N; i++) { u[i, 0] = 0.5; u[i, N + 1] = 0.25 }
        for (it = 1; it <= I; it++) {
            ch = 0
            for (i = 1; i <= N; i++) for (j = 1; j <= N; j++) {
                un[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
                d = un[i, j] - u[i, j]; ch += d * d }
            for (i = 1; i <= N; i++) for (j = 1; j <= N; j++) u[i, j] = un[i, j]
        }
        s = 0; for (i = 1; i <= N; i++) for (j = 1; j <= N; j++) s += u[i, j]
        printf "%.17g %.17g\n", sqrt(ch), s }'
}

# poll ROUNDS WORK NP -> "updates checksum": the sum of every update value
# mod 2^31, which is what the tables sum to whatever order the updates came
# in (examples/poll.c)
predict_poll() {
    awk -v R="$1" -v W="$2" -v np="$3" 'BEGIN { M = 2147483647; T = 2147483648; s = 0; u = 0
        for (r = 0; r < R; r++) for (a = 0; a < np; a++) {
            for (j = 0; j < W; j++) { x = (7919 * r + 104729 * a + j + 1) % M; s = (s + x * 48271 % M) % T }
            u += W
            for (d = 0; d < np; d++) { if (d == a) continue
                n = 256 + ((r + 31 * a + 977 * d + 1) % M * 48271 % M) % 3841; u += n
                for (k = 0; k < n; k++) { x = (1000003 * r + 10007 * a + 101 * d + k + 1) % M
                    s = (s + x * 48271 % M) % T } } }
        printf "%d %d\n", u, s }'
}

# farm TASKS SPREAD WORK -> checksum: the sum mod 2^31 of every task's
# result, w_k MINSTD steps from k + 1 (examples/farm.c)
predict_farm() {
    awk -v T="$1" -v S="$2" -v W="$3" 'BEGIN { M = 2147483647; sum = 0
        for (k = 0; k < T; k++) { x = (7919 * k + 13) % M; x = x * 48271 % M; f = x / M
            w = W + int(W * S / 100 * (2 * f - 1)); if (w < 1) w = 1
            x = k + 1; for (i = 0; i < w; i++) x = x * 48271 % M; sum += x }
        printf "%d\n", sum % 2147483648 }'
}

# |a - b| <= tol * |b|
# cg W ROWS NP ITERATIONS -> "rr checksum": serial CG on the W x (ROWS * NP)
# grid, restarted every 50 iterations (sums in another order than the ranks')
predict_cg() {
    awk -v w="$1" -v h="$(($2 * $3))" -v it="$4" 'BEGIN {
        n = w * h
        for (k = 0; k < it; k++) {
            if (k % 50 == 0) { rr = 0; for (i = 0; i < n; i++) { x[i] = 0; r[i] = 1; p[i] = 1; rr += 1 } }
            pq = 0
            for (i = 0; i < h; i++) for (j = 0; j < w; j++) {
                c = i * w + j; v = 4 * p[c]
                if (j > 0) v -= p[c - 1]; if (j < w - 1) v -= p[c + 1]
                if (i > 0) v -= p[c - w]; if (i < h - 1) v -= p[c + w]
                q[c] = v; pq += p[c] * v }
            a = rr / pq; rn = 0
            for (i = 0; i < n; i++) { x[i] += a * p[i]; r[i] -= a * q[i]; rn += r[i] * r[i] }
            b = rn / rr; rr = rn
            for (i = 0; i < n; i++) p[i] = r[i] + b * p[i]
        }
        s = 0; for (i = 0; i < n; i++) s += x[i]
        printf "%.9e %.12e\n", rr, s }'
}

close_to() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(d <= t * m) }'; }

# ---- the examples -----------------------------------------------------------------

MC_ARGS="4 10 512"          # rounds, chunks per round, doubles per chunk
BAR_ARGS="60 300"           # iterations, unit
TR_ARGS="13 3 4"            # n (not a multiple of 2, 3 or 4), iterations, work
RING_ARGS="40 3"            # iterations, work
HALO_ARGS="19 25 7"         # n, iterations, check
POLL_ROUNDS=3 POLL_WORK=1000 # rounds, local updates per round (chunk: 0 and 16)
FARM_ARGS="200 50 2000 100"  # tasks, spread %, work per task, master's service

exp_bar_ck=""
exp_tr=$(predict_transpose $TR_ARGS)
exp_halo=$(predict_halo 19 25)
mc_hits=""

for np in 2 3 4; do
    # montecarlo: pi within 2e-3 (about 10 standard errors for 10240 shifted
    # 24x24 grids), the counts, and hits independent of the number of ranks
    line=$(run montecarlo $np "$EX/montecarlo" $MC_ARGS)
    pi=$(field "$line" pi)
    close_to "$pi" 3.14159265358979 6.4e-4 || fail "montecarlo np=$np: pi=$pi not within 2e-3 of pi"
    [ "$(field "$line" points)" = $((4 * 10 * 256 * 24 * 24)) ] || fail "montecarlo np=$np: points in '$line'"
    [ "$(field "$line" requests)" = 40 ] || fail "montecarlo np=$np: requests in '$line'"
    [ "$(field "$line" rounds)" = 4 ] || fail "montecarlo np=$np: rounds in '$line'"
    h=$(field "$line" hits)
    [ -z "$mc_hits" ] || [ "$h" = "$mc_hits" ] || fail "montecarlo np=$np: hits=$h, but $mc_hits on 2 ranks"
    mc_hits=$h
    ok "montecarlo np=$np: $line"

    line=$(run barrier $np "$EX/barrier" $BAR_ARGS)
    set -- $(predict_barrier $BAR_ARGS $np)
    [ "$(field "$line" checksum)" = "$1" ] || fail "barrier np=$np: '$line', expected checksum=$1"
    [ "$(field "$line" units)" = "$2" ] || fail "barrier np=$np: '$line', expected units=$2"
    ok "barrier np=$np: $line"

    for p in transpose transpose-any; do
        line=$(run $p $np "$EX/$p" $TR_ARGS)
        [ "$(field "$line" checksum)" = "$exp_tr" ] || fail "$p np=$np: '$line', expected checksum=$exp_tr"
        ok "$p np=$np: $line"
    done

    line=$(run ring $np "$EX/ring" $RING_ARGS)
    e=$(predict_ring $RING_ARGS $np)
    [ "$(field "$line" checksum)" = "$e" ] || fail "ring np=$np: '$line', expected checksum=$e"
    ok "ring np=$np: $line"

    set -- $(predict_poll $POLL_ROUNDS $POLL_WORK $np)
    for chunk in 0 16; do # a spin, and polls with work between them
        line=$(run poll $np "$EX/poll" $chunk $POLL_ROUNDS $POLL_WORK)
        [ "$(field "$line" updates)" = "$1" ] && [ "$(field "$line" checksum)" = "$2" ] ||
            fail "poll np=$np chunk=$chunk: '$line', expected updates=$1 checksum=$2"
        ok "poll np=$np chunk=$chunk: $line"
    done

    line=$(run farm $np "$EX/farm" $FARM_ARGS)
    e=$(predict_farm $FARM_ARGS)
    [ "$(field "$line" checksum)" = "$e" ] && [ "$(field "$line" done)" = 200 ] ||
        fail "farm np=$np: '$line', expected checksum=$e done=200"
    ok "farm np=$np: $line"

    line=$(run cg $np "$EX/cg" 30 3 60)
    set -- $(predict_cg 30 3 $np 60)
    close_to "$(field "$line" rr)" "$1" 1e-6 || fail "cg np=$np: '$line', expected rr=$1"
    close_to "$(field "$line" checksum)" "$2" 1e-9 || fail "cg np=$np: '$line', expected checksum=$2"
    ok "cg np=$np: $line"

    line=$(run halo $np "$EX/halo" $HALO_ARGS)
    set -- $exp_halo
    close_to "$(field "$line" residual)" "$1" 1e-6 || fail "halo np=$np: '$line', expected residual=$1"
    close_to "$(field "$line" checksum)" "$2" 1e-10 || fail "halo np=$np: '$line', expected checksum=$2"
    ok "halo np=$np: $line"
done

# ---- the shim --------------------------------------------------------------------

# without UNPERTURB_TIME_FILE: the program runs and nothing is written
mkdir "$T/quiet"
(cd "$T/quiet" && env -u UNPERTURB_TIME_FILE LD_PRELOAD="$SHIM" $MPIRUN -np 2 "$EX/ring" $RING_ARGS) > "$T/out" ||
    fail "ring with the shim and no UNPERTURB_TIME_FILE"
[ "$(field "$(cat "$T/out")" checksum)" = "$(predict_ring $RING_ARGS 2)" ] || fail "ring without time file: wrong result"
[ -z "$(ls -A "$T/quiet")" ] || fail "the shim wrote files without UNPERTURB_TIME_FILE: $(ls -A "$T/quiet")"
ok "shim without UNPERTURB_TIME_FILE: runs, writes nothing"

# the window holds what the program does between MPI_Init and MPI_Finalize:
# every rank sleeps 0.3 s there, so window_s and each rankN_s are at least
# 0.3 s (a window of the wrong calls, or a CPU time, would be less), and
# window_s is at most the wall-clock time of the whole mpirun around it.
# Bounds only: a loaded machine makes the run longer, never shorter
# (comparing the windows of two runs, as this test once did, does not hold
# when load comes and goes between them).
cat > "$T/sleeper.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>
#include <time.h>
int main(int argc, char **argv)
{
    struct timespec ts = {0, 300000000}, left;
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    while (nanosleep(&ts, &left) != 0)
        ts = left;
    if (rank == 0)
        printf("sleeper: ok\n");
    MPI_Finalize();
    return 0;
}
EOF
mpicc -O1 -o "$T/sleeper" "$T/sleeper.c"
t0=$(date +%s.%N)
run sleeper 2 "$T/sleeper" > /dev/null
t1=$(date +%s.%N)
w=$(sed -n 's/^window_s=//p' "$T/time")
awk -v w="$w" -v a="$t0" -v b="$t1" -F= '
    $1 ~ /^rank[0-9]+_s$/ && $2 + 0 < 0.3 { bad = 1 }
    END { exit bad || !(w + 0 >= 0.3 && w + 0 <= b - a) }' "$T/time" ||
    fail "window_s=$w (ranks: $(grep '^rank' "$T/time" | tr '\n' ' ')) is not within [0.3 s, $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') s of the whole run]"
ok "window_s holds the 0.3 s every rank sleeps inside it ($w s, within the whole run)"

# C MPI_Init_thread, and the Fortran entry points
cat > "$T/cthread.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("cthread: ok\n");
    MPI_Finalize();
    return 0;
}
EOF
mpicc -O1 -o "$T/cthread" "$T/cthread.c"
run cthread 2 "$T/cthread" > /dev/null
ok "shim: C MPI_Init_thread"
if command -v mpif90 > /dev/null 2>&1; then
    for init in "call MPI_INIT(ierr)" "call MPI_INIT_THREAD(MPI_THREAD_FUNNELED, provided, ierr)"; do
        cat > "$T/finit.f90" <<EOF
program finit
    use mpi
    implicit none
    integer :: ierr, rank, provided
    $init
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    if (rank == 0) print '(a)', 'finit: ok'
    call MPI_FINALIZE(ierr)
end program finit
EOF
        mpif90 -O1 -o "$T/finit" "$T/finit.f90"
        run finit 2 "$T/finit" > /dev/null
        ok "shim: Fortran ${init#call }"
    done
else
    echo "skip Fortran shim test: no mpif90"
fi

# ---- montecarlo-finst under the tracer ------------------------------------------
[ -x "$UNPERTURB" ] || fail "$UNPERTURB is missing: run make first"
$UNPERTURB trace -q --functions -o "$T/mc-trace" -- $MPIRUN -np 2 "$EX/montecarlo-finst" $MC_ARGS > "$T/out" ||
    fail "unperturb trace of montecarlo-finst"
grep -q "^montecarlo: .* hits=$mc_hits " "$T/out" || fail "montecarlo-finst traced: result differs: $(cat "$T/out")"
otf2-print "$T/mc-trace/traces.otf2" > "$T/mc.txt" || fail "otf2-print of the montecarlo-finst trace"
n=$(grep -c get_coords "$T/mc.txt" || true)
[ "$n" -gt 0 ] || fail "montecarlo-finst: no get_coords records in the trace"
# one call per coordinate pair: ROUNDS * CHUNKS * CHUNK_DOUBLES / 2 Enter records
e=$(awk '$1 == "ENTER" && /"get_coords"/' "$T/mc.txt" | wc -l | tr -d ' ')
[ "$e" = $((4 * 10 * 256)) ] || fail "montecarlo-finst: $e Enter records of get_coords, expected $((4 * 10 * 256))"
ok "montecarlo-finst traced with --functions: $e calls of get_coords recorded"

# ---- buffer flushes are removed whole ----------------------------------------------
# barrier on 1 rank with a 1 MiB buffer flushes a few times, each time inside
# a barrier call.  With O = 0 the only overhead is the flushes: compensation
# must remove exactly the sum of their durations as otf2-print lists them.
UNPERTURB_BUFFER_MB=1 $UNPERTURB trace -q -o "$T/fl" -- $MPIRUN -np 1 "$EX/barrier" 100000 1 > /dev/null ||
    fail "unperturb trace of barrier with a 1 MiB buffer"
$UNPERTURB compensate -q "$T/fl" -o "$T/fl-c" --overhead-ns 0 --json "$T/fl.json" ||
    fail "compensate of the flushing trace"
flushes=$(otf2-print "$T/fl/traces.otf2" | awk '$1 == "BUFFER_FLUSH" { split($0, a, "Stop Time: "); s += a[2] - $3; n++ } END { print n + 0, s + 0 }')
removed=$(jq '.overhead_removed_s * .window.resolution_ticks_per_s' "$T/fl.json")
echo "$flushes $removed" | awk '{ if ($1 < 2 || $3 < $2 - $1 || $3 > $2 + $1) exit 1 }' ||
    fail "flushes (count, ticks) $flushes, removed $removed ticks"
ok "barrier with a 1 MiB buffer: $(echo "$flushes" | cut -d' ' -f1) flushes, their $(echo "$flushes" | cut -d' ' -f2) ticks removed exactly"

# ---- a traced polling run: every record kept, moved completions consistent -------
# poll with work between polls (chunk 16) and a dear record: the compensated
# polls come faster than their messages, so completions move to later polls
# (docs/models.md, "Polling"); up-check (an independent checker) must accept
# the output against the input in every mode.
$UNPERTURB trace -q -o "$T/po" --extra-ns 3000 -- $MPIRUN -np 2 "$EX/poll" 16 200 20000 > /dev/null ||
    fail "unperturb trace of poll"
for mode in lower upper network; do
    $UNPERTURB compensate -q "$T/po" -o "$T/po-$mode" --mode $mode --json "$T/po-$mode.json" ||
        fail "compensate of the poll trace, $mode"
    "$BUILD/bin/up-check" -q "$T/po-$mode" --against "$T/po" > "$T/po-check" 2>&1 ||
        fail "poll, $mode: up-check: $(head -5 "$T/po-check")"
done
moved=$(jq .completions_moved "$T/po-network.json")
ok "poll traced at 3000 ns per record: compensated in every mode, up-check clean ($moved completions moved, $(jq .spins "$T/po-network.json") spins in network mode)"

# ---- a traced farm: replies marked ----------------------------------------------------
# farm on 3 ranks: every result (MPI_Recv from MPI_ANY_SOURCE) is answered by
# one MPI_Send to its sender, a task or a stop: TASKS replies, each marked
# unperturb::reply; the workers' receives name their source, so their sends
# are not replies (docs/tracer.md)
$UNPERTURB trace -q -o "$T/fa" -- $MPIRUN -np 3 "$EX/farm" 50 50 2000 100 > /dev/null ||
    fail "unperturb trace of farm"
otf2-print "$T/fa/traces.otf2" > "$T/fa.txt" || fail "otf2-print of the farm trace"
replies=$(awk '$1 == "MPI_SEND" { s = $2 } /"unperturb::reply"/ { n[s]++ } END { print n[0] + 0, n[1] + n[2] + 0 }' "$T/fa.txt")
[ "$replies" = "50 0" ] || fail "farm traced: replies marked on the master and the workers: $replies, expected 50 0"
ok "farm traced on 3 ranks: its 50 replies to MPI_SOURCE marked unperturb::reply, no other send"
# compensated with the defaults: fifo (the tracer marked the wildcards), the
# 50 marked replies found and followed; up-check accepts the output
$UNPERTURB compensate "$T/fa" -o "$T/fa-c" -q --json "$T/fa-c.json" ||
    fail "compensate of the farm trace"
jq -e '.wildcard == "fifo" and .replies == "follow" and .replies_marked == 50 and .replies_inferred == 0 and .task_bodies_left == 0 and .repairs.unmatched_recv == 0 and .repairs.unmatched_send == 0' "$T/fa-c.json" > /dev/null ||
    fail "farm compensated: $(jq -c '{wildcard, replies, replies_marked, replies_inferred, replies_retargeted, task_bodies_moved, task_bodies_left}' "$T/fa-c.json")"
"$BUILD/bin/up-check" -q "$T/fa-c" --against "$T/fa" > "$T/fa-check" 2>&1 ||
    fail "farm compensated: up-check: $(head -5 "$T/fa-check")"
ok "farm compensated with the defaults: fifo, 50 marked replies ($(jq .replies_retargeted "$T/fa-c.json") re-targeted), up-check clean"

echo "examples tests: $pass passed"
