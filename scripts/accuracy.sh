#!/bin/sh
# scripts/accuracy.sh BUILD OUT - the accuracy study of docs/accuracy.md.
# For every example: one traced probe run on 2 ranks gives its records per
# rank and run time, from which the extra cost per record for a dilation of
# about 20%, 50% and 150% is chosen (before any comparison with the truth);
# then `unperturb validate` on 2 ranks (a core each) and on 4 ranks
# (oversubscribed), REPEAT runs of each kind.  Then montecarlo built with
# -finstrument-functions, traced with --functions and no extra cost.  Last,
# the real programs of REAL, Debian packages (docs/accuracy.md, "Real
# programs") or built from Debian's source packages by scripts/build-real.sh
# into OUT/real (petsc-cg, hypre-amg, fftw-mpi): each is installed if missing
# (as root; otherwise the script
# says what to install and skips it), run in its own working folder
# OUT/work-NAME, probed (two uninstrumented runs, two traced at the
# tracer's own cost, one at a trial extra cost) and validated on 2 ranks at
# no extra cost and at extra costs for dilations of about 50% and 150%;
# EXTRA_<name>=0,100,300 gives the extra costs instead of the probe (- in
# a name as _: EXTRA_poll_spin).
# Writes OUT/<example>-np<N>.json and prints the Markdown rows, marking the
# rows whose traced runs were a different execution (docs/validate.md).
# ARGS_<example> gives an example's arguments (ARGS_farm defaults to
# "20000 50 200 2000": a master-bound farm).  NP4=0 leaves out the 4-rank runs; FINST_NP="2" the 4-rank run with
# functions (FINST_NP="" both; the default when EXAMPLES is empty).
# THREADS: the threaded examples of examples/threads (issue 36), run without
# MPI on 2 threads pinned to 2 cores (validate --no-mpi --threads 2), the
# gcc-built omp_loop on LLVM's libomp in both kinds of run; each probed like
# the MPI examples (records of its busiest thread, the traced time) for
# extra costs that dilate it by about 50% and 150%, and validated at no
# extra cost and at those; OUT/<name>-t2.json, and a table of its own.
# ARGS_<name> gives their arguments too (default: the program's own).
# HYBRID: rounds of tests/validate/hybrid.c (MPI + OpenMP) validated at 1
# rank x 2 threads the same way, a row of the same table (HYBRID= none).
# One part alone: EXAMPLES= REAL=hpcc scripts/accuracy.sh build out
#                 EXAMPLES= REAL= THREADS="pth_barrier" scripts/accuracy.sh build out
set -eu
BUILD=${1:-build}
OUT=${2:-accuracy}
REPEAT=${REPEAT:-5}
EXAMPLES=${EXAMPLES-"montecarlo barrier transpose transpose-any ring halo farm cg"}
THREADS=${THREADS-"pth_barrier pth_mutex omp_loop"}
HYBRID=${HYBRID-5000} # rounds of tests/validate/hybrid.c ("": none)
REAL=${REAL-"poll-spin poll-work hpcc netpipe lammps petsc-cg hypre-amg fftw-mpi"}
[ -n "$EXAMPLES" ] || FINST_NP=${FINST_NP-""}
UP=$BUILD/bin/unperturb
mkdir -p "$OUT"
ROOT=""
[ "$(id -u)" = 0 ] && ROOT=--allow-run-as-root

# an example's arguments: ARGS_<name> (- as _); the farm's default makes the
# master the bottleneck (tasks of ~1.4 us, 14 us of service: issue 22)
ARGS_farm=${ARGS_farm-"20000 50 200 2000"}
for ex in $EXAMPLES; do
    eval "args=\${ARGS_$(echo "$ex" | tr - _)-}"
    # the probe: records per rank in the window and the traced time
    rm -rf "$OUT/probe"
    # shellcheck disable=SC2086
    "$UP" trace -q -o "$OUT/probe" -- mpirun $ROOT -np 2 --bind-to core "$BUILD/examples/$ex" $args > /dev/null
    recs=$(otf2-print "$OUT/probe/traces.otf2" | awk '$2 ~ /^[0-9]+$/ { n[$2]++ } END { m = 0; for (l in n) if (n[l] > m) m = n[l]; print m }')
    tm=$("$UP" compensate "$OUT/probe" -o "$OUT/probe-c" --force -q --json "$OUT/probe.json" && jq .measured_time_s "$OUT/probe.json")
    extras=$(awk -v r="$recs" -v t="$tm" 'BEGIN { c = 15e-9
        for (i = 1; i <= 3; i++) { d = i == 1 ? 0.2 : i == 2 ? 0.5 : 1.5
            e = d * t / r - c; if (e < 0) e = 0
            printf "%s%d", (i > 1 ? "," : ""), e * 1e9 } }')
    echo "$ex: $recs records per rank, traced $tm s: --extra-ns $extras" >&2
    "$UP" validate -q --np 2 --repeat "$REPEAT" --extra-ns "$extras" --launcher "mpirun --bind-to core" \
        -o "$OUT/$ex-np2" --force --json "$OUT/$ex-np2.json" -- "$BUILD/examples/$ex" $args > /dev/null
    [ "${NP4-1}" = 0 ] ||
        "$UP" validate -q --np 4 --repeat "$REPEAT" --extra-ns "$extras" \
            -o "$OUT/$ex-np4" --force --json "$OUT/$ex-np4.json" -- "$BUILD/examples/$ex" $args > /dev/null
    rm -rf "$OUT/$ex-np2" "$OUT/$ex-np4" # keep the JSON only: the traces are large
done
for np in ${FINST_NP-2 4}; do
    launcher=mpirun
    [ $np = 2 ] && launcher="mpirun --bind-to core"
    "$UP" validate -q --np $np --repeat "$REPEAT" --functions --launcher "$launcher" \
        -o "$OUT/finst-np$np" --force --json "$OUT/montecarlo-finst-np$np.json" \
        -- "$BUILD/examples/montecarlo-finst" > /dev/null
    rm -rf "$OUT/finst-np$np"
done

# ---- threaded programs without MPI (issue 36) -------------------------------------
# thread_extras NAME COMMAND...: the probe of a threaded program, COMMAND
# traced at 2 threads: the records of its busiest location (a thread) and
# its traced time give $extras, 0 and the extra costs for dilations of about
# 50% and 150% on that thread's path, the tracer's own ~15 ns per record
# counted in
thread_extras() {
    name=$1
    shift
    rm -rf "$OUT/probe"
    OMP_NUM_THREADS=2 "$UP" trace -q -o "$OUT/probe" -- "$@" > /dev/null
    recs=$(otf2-print "$OUT/probe/traces.otf2" | awk '$2 ~ /^[0-9]+$/ { n[$2]++ } END { m = 0; for (l in n) if (n[l] > m) m = n[l]; print m }')
    tm=$("$UP" compensate "$OUT/probe" -o "$OUT/probe-c" --force -q --json "$OUT/probe.json" && jq .measured_time_s "$OUT/probe.json")
    extras=$(awk -v r="$recs" -v t="$tm" 'BEGIN { c = 15e-9; printf "0"
        for (i = 1; i <= 2; i++) { d = i == 1 ? 0.5 : 1.5
            e = d * t / r - c; if (e >= 1e-9) printf ",%d", e * 1e9 } }')
    echo "$name: $recs records on its busiest thread, traced $tm s: --extra-ns $extras" >&2
}

# each probed as validate runs it (unperturb trace of the program alone)
for ex in $THREADS; do
    eval "args=\${ARGS_$(echo "$ex" | tr - _)-}"
    # shellcheck disable=SC2086
    thread_extras "$ex" "$BUILD/examples/$ex" -t 2 $args
    # shellcheck disable=SC2086
    "$UP" validate -q --no-mpi --threads 2 --repeat "$REPEAT" --extra-ns "$extras" \
        -o "$OUT/$ex-t2" --force --json "$OUT/$ex-t2.json" -- "$BUILD/examples/$ex" -t '{threads}' $args > /dev/null
    rm -rf "$OUT/$ex-t2"
done

# ---- a hybrid program: 1 rank x 2 threads, MPI + OpenMP (issue 36) ---------------
# tests/validate/hybrid.c (HYBRID short parallel regions, an MPI_Allreduce
# after each), built here with mpicc -fopenmp (gcc: run on libomp in both
# kinds of run), probed like the threaded programs through mpirun
if [ -n "$HYBRID" ]; then
    mpicc -O2 -fopenmp -o "$OUT/hybrid" tests/validate/hybrid.c
    thread_extras hybrid mpirun $ROOT -np 1 --map-by slot:PE=2 "$OUT/hybrid" "$HYBRID"
    "$UP" validate -q --np 1 --threads 2 --repeat "$REPEAT" --extra-ns "$extras" \
        -o "$OUT/hybrid-np1-t2" --force --json "$OUT/hybrid-np1-t2.json" -- "$OUT/hybrid" "$HYBRID" > /dev/null
    rm -rf "$OUT/hybrid-np1-t2"
fi

# ---- the real programs ------------------------------------------------------
# real_info NAME: sets PKG (Debian package), BIN (its program), SRC (1 when
# scripts/build-real.sh builds it from source) and POLLS (what it polls with,
# empty when it does not poll)
real_info() {
    POLLS="" SRC=0
    case $1 in
    petsc-cg | hypre-amg | fftw-mpi) PKG="" SRC=1 BIN=$ABS_OUT/real/bin/$1
        [ "$1" = hypre-amg ] && POLLS="MPI_Iprobe, MPI_Testall" ;;
    hpcc) PKG=hpcc BIN=hpcc POLLS="MPI_Testany, MPI_Test, MPI_Iprobe" ;;
    poll-spin | poll-work) # the bundled poll example, probed like the real programs
        PKG="" BIN=$ABS_BUILD/examples/poll POLLS="MPI_Testany" ;;
    netpipe) PKG=netpipe-openmpi BIN=NPopenmpi ;;
    lammps) PKG=lammps BIN=lmp ;;
    *) echo "accuracy.sh: unknown real program '$1' (poll-spin, poll-work, hpcc, netpipe, lammps, petsc-cg, hypre-amg, fftw-mpi)" >&2; exit 2 ;;
    esac
}

# real_prepare NAME DIR: writes the input into DIR, sets ARGS
real_prepare() {
    case $1 in
    hpcc) # HPL N=800 on a 1x2 grid; hpcc reads hpccinf.txt from its working folder
        sed -e 's/^2            Ps/1            Ps/' -e 's/^1000         Ns/800          Ns/' \
            /usr/share/doc/hpcc/examples/_hpccinf.txt > "$2/hpccinf.txt"
        rm -f "$2/hpccoutf.txt" # hpcc appends its report there
        ARGS="" ;;
    poll-spin) # examples/poll: spins (no work between polls), 2000 rounds
        ARGS="0" ;;
    poll-work) # examples/poll: 1000 local updates (1-2 us) between polls
        ARGS="1000" ;;
    netpipe) # ping-pong, 1 byte to 64 KiB (and +-3 bytes), 200 round trips each
        ARGS="-u 65536 -n 200 -o np.out" ;;
    lammps) # Lennard-Jones melt, 4000 atoms, 1000 steps
        cat > "$2/in.melt" <<'EOF'
# Lennard-Jones melt: 4000 atoms in an fcc lattice, 1000 steps of NVE
units           lj
atom_style      atomic
lattice         fcc 0.8442
region          box block 0 10 0 10 0 10
create_box      1 box
create_atoms    1 box
mass            1 1.0
velocity        all create 3.0 87287 loop geom
pair_style      lj/cut 2.5
pair_coeff      1 1 1.0 1.0 2.5
neighbor        0.3 bin
neigh_modify    every 20 delay 0 check no
fix             1 all nve
thermo          100
run             1000
EOF
        ARGS="-in in.melt -log none" ;;
    petsc-cg) # 200 CG iterations on a 7000 x 60 grid cut in two along its
        # length: halos of 7000 doubles (56 000 B), 600 reductions
        ARGS="-da_grid_x 7000 -da_grid_y 60 -da_processors_x 1 -da_processors_y 2 -ksp_type cg -pc_type jacobi -ksp_max_it 200 -ksp_rtol 1e-30" ;;
    hypre-amg) # BoomerAMG on a 600 x 600 grid (8 V-cycles)
        ARGS="-n 600 -solver 0" ;;
    fftw-mpi) # 30 in-place complex 96^3 FFTs, planned by estimate (the
        # same plan every run), one transform per timing (-t 1e-9)
        ARGS="-oestimate -t 1e-9 -r 30 -s ic96x96x96" ;;
    esac
}

# probe NAME: chooses the extra costs of a real program, before any
# comparison with the truth.  T0 is the faster of two uninstrumented runs
# (timed by the shim, as validate times them), Tm0 the faster of two traced
# runs at the tracer's own cost, Tm1 a traced run at a trial extra cost e1
# (for +100% if one rank's records made the critical path).  The slope
# (Tm1 - Tm0) / e1 says how much a nanosecond per record adds: in a
# ping-pong both ranks' records are on the path, and a program that polls
# makes more records the longer it waits.  Then e = ((1 + d) T0 - Tm0) /
# slope for d = 50% and 150%; a dilation that the tracer alone already
# reaches is left out.  Sets extras.
probe_time() { # probe_time TAG: an uninstrumented run's window, s
    # shellcheck disable=SC2086 # ARGS are words
    (cd "$W" && LD_PRELOAD=$SHIM UNPERTURB_TIME_FILE=$W/probe-$1.time \
        mpirun $ROOT -np 2 --bind-to core "$bin" $ARGS > "probe-$1.log" 2>&1) ||
        { echo "$name: the uninstrumented probe failed: $W/probe-$1.log" >&2; exit 1; }
    sed -n 's/^window_s=//p' "$W/probe-$1.time"
}
probe_traced() { # probe_traced EXTRA: sets tm, the traced window, s, and recs
    # shellcheck disable=SC2086
    (cd "$W" && "$ABS_UP" trace -q -o "$W/probe" --extra-ns "$1" -- \
        mpirun $ROOT -np 2 --bind-to core "$bin" $ARGS > "probe-x$1.log" 2>&1) ||
        { echo "$name: the traced probe failed: $W/probe-x$1.log" >&2; exit 1; }
    "$ABS_UP" compensate "$W/probe" -o "$W/probe-c" --force -q --json "$W/probe.json"
    recs=$(jq '[.per_location[].records] | max' "$W/probe.json")
    tm=$(jq .measured_time_s "$W/probe.json")
    rm -rf "$W/probe" "$W/probe-c" # hpcc's are 0.4-0.8 GB
}
probe() {
    t0=$(probe_time 1)
    t0=$(awk -v a="$t0" -v b="$(probe_time 2)" 'BEGIN { print a < b ? a : b }')
    probe_traced 0
    tm0=$tm r0=$recs
    probe_traced 0 # the faster of two, as for T0
    if awk -v a="$tm" -v b="$tm0" 'BEGIN { exit !(a < b) }'; then tm0=$tm r0=$recs; fi
    e1=$(awk -v r="$r0" -v t="$t0" 'BEGIN { e = t / r * 1e9; printf "%d", e < 1 ? 1 : e }')
    probe_traced "$e1"
    tm1=$tm
    # no slope (noise, or a poller whose polls fell with their cost: hypre's
    # 160 000 records per rank at no extra cost were 15 600 at the trial's):
    # one rank's records at the trial cost on the path
    extras=$(awk -v t="$t0" -v m0="$tm0" -v m1="$tm1" -v e1="$e1" -v r="$recs" 'BEGIN {
        s = (m1 - m0) / e1; if (s <= 0) s = r * 1e-9
        printf "0"
        for (i = 1; i <= 2; i++) { d = i == 1 ? 0.5 : 1.5
            e = ((1 + d) * t - m0) / s
            if (e >= 1) printf ",%d", e } }')
    echo "$name: $r0 records per rank; uninstrumented $t0 s; traced $tm0 s ($(awk -v t="$t0" -v m="$tm0" 'BEGIN { printf "%+.0f%%", 100 * (m - t) / t }')), at $e1 ns $tm1 s ($recs records per rank): --extra-ns $extras${POLLS:+ (polls with $POLLS)}" >&2
}

# a program's working folder is OUT/work-NAME: paths must not be relative
ABS_UP=$(cd "$(dirname "$UP")" && pwd)/unperturb
ABS_BUILD=$(cd "$BUILD" && pwd)
ABS_OUT=$(cd "$OUT" && pwd)
SHIM=$(cd "$BUILD/lib" && pwd)/libunperturb-time.so
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 # one thread per rank
for name in $REAL; do
    real_info "$name"
    if [ "$SRC" = 1 ]; then
        "$(dirname "$0")/build-real.sh" "$ABS_OUT/real" "$name" ||
            { echo "$name: not built (scripts/build-real.sh); skipped" >&2; continue; }
    elif ! command -v "$BIN" > /dev/null; then
        if [ "$(id -u)" = 0 ]; then
            apt-get install -y --no-install-recommends "$PKG" > "$OUT/apt-$name.log" 2>&1 ||
                { apt-get update > /dev/null && apt-get install -y --no-install-recommends "$PKG" > "$OUT/apt-$name.log" 2>&1; } ||
                { echo "$name: apt-get install $PKG failed ($OUT/apt-$name.log); skipped" >&2; continue; }
        else
            echo "$name: $BIN not found; install Debian's $PKG (as root: apt-get install --no-install-recommends $PKG) to include it; skipped" >&2
            continue
        fi
    fi
    bin=$(command -v "$BIN") ||
        { echo "$name: $PKG is installed but has no $BIN; skipped" >&2; continue; }
    if ! ldd "$bin" | grep -q 'libmpi\.so\.40'; then
        echo "$name: $bin does not link Open MPI's libmpi.so.40; skipped" >&2
        continue
    fi
    W=$ABS_OUT/work-$name
    rm -rf "$W"
    mkdir -p "$W"
    real_prepare "$name" "$W"
    what=${PKG:-bundled}
    [ "$SRC" = 1 ] && what="built from Debian's source (scripts/build-real.sh)"
    echo "$name: $what ${PKG:+$(dpkg-query -W -f '${Version}' "$PKG" 2>/dev/null)}, $bin $ARGS, in $W" >&2
    eval "extras=\${EXTRA_$(echo "$name" | tr - _)-}" # EXTRA_hpcc=0,100,300 skips the probe
    [ -n "$extras" ] || probe "$name"
    start=$(date +%s)
    # shellcheck disable=SC2086
    (cd "$W" && "$ABS_UP" validate -q --np 2 --repeat "$REPEAT" --extra-ns "$extras" \
        --launcher "mpirun --bind-to core" -o "$W/validate" --force \
        --json "$ABS_OUT/$name-np2.json" -- "$bin" $ARGS > /dev/null)
    rm -rf "$W/validate"
    echo "$name: validate took $(($(date +%s) - start)) s" >&2
done
rm -rf "$OUT/probe" "$OUT/probe-c" "$OUT/probe.json" "$OUT/probe-c.json"

# the Markdown rows of docs/accuracy.md: 2 ranks, then 4 (scripts/accuracy-rows.jq);
# the last column: the same execution as the reference run, or which region's
# records differ (docs/validate.md); rows that say no are left out of the targets
echo "| example | extra ns | T s: min (median, max) | Tm s: min (median, max) | delta_m | Ta lower | Ta upper | Ta network | network, every run: min (median, max) | network error (Ta − T)/T | noise | width | inside | same execution |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for np in 2 4; do
    for f in "$OUT"/*-np$np.json; do
        [ -f "$f" ] || continue
        n=$(basename "$f" .json | sed 's/-np[0-9]*$//')
        case $n in # a real program that polls is marked
        hpcc | netpipe | lammps | poll-spin | poll-work) real_info "$n" && [ -z "$POLLS" ] || n="$n (polls)" ;;
        esac
        jq -r --arg n "$n" -f "$(dirname "$0")/accuracy-rows.jq" "$f"
    done
done
# the threaded programs' table (docs/accuracy.md, "Threaded programs"): the
# OpenMP runtime that ran both kinds of run named beside a program that has one
[ -z "$THREADS" ] || {
    echo
    echo "| program (2 threads, no MPI) | extra ns | T s: min (median, max) | Tm s: min (median, max) | delta_m | Ta lower | Ta upper | Ta network | network, every run: min (median, max) | network error (Ta − T)/T | noise | width | inside | same execution |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    for ex in $THREADS; do
        f=$OUT/$ex-t2.json
        [ -f "$f" ] || continue
        n=$(jq -r --arg n "$ex" 'if .openmp.runs_on == "none" then $n else "\($n) (on \(.openmp.runs_on))" end' "$f")
        jq -r --arg n "$n" -f "$(dirname "$0")/accuracy-rows.jq" "$f"
    done
    f=$OUT/hybrid-np1-t2.json
    [ ! -f "$f" ] || jq -r --arg n "hybrid, 1 rank x 2 threads (MPI + OpenMP, on libomp)" \
        -f "$(dirname "$0")/accuracy-rows.jq" "$f"
}
