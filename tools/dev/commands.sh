#!/bin/sh
# tools/dev/commands.sh BUILD OUTDIR - what every command prints and writes
# for a fixed set of invocations, as files two builds can be diffed by
# (issue 34: "the simulate commands, --help of every command, before and
# after").  tools/dev/outputs.sh covers each command's outputs on each
# trace; this covers the rest: --help of each command, usage errors of each
# command, simulate's sweeps, grids, scaling and --experiment, report --html,
# a calibration file read by compensate and estimate, and the recovery and
# usage paths of trace and calibrate that need no MPI run.  For invocation
# N, OUTDIR/N.out, N.err and N.rc, and the files it wrote (their text, run
# times and temporary paths dropped).
#
#   tools/dev/commands.sh build /tmp/before
#   ... change, rebuild ...
#   tools/dev/commands.sh build /tmp/after && diff -r /tmp/before /tmp/after
set -u
export LC_ALL=C
B=$1
OUT=$2
U=$(cd "$B" && pwd)/bin/unperturb
GEN=$(cd "$B" && pwd)/bin/up-bench-gen
D=$(pwd)/tests/data
mkdir -p "$OUT"
T=$(mktemp -d "${TMPDIR:-/tmp}/unperturb-commands-XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
clean() {
    sed -e "s#$T#TMP#g" -e "s#$D#DATA#g" \
        -e '/^created = /d' -e '/"elapsed\|"seconds_tool\|"wall_s\|"created\|"version"\|"date"/d' \
        -e '/^  *creator\|^   *Creator/d' -e 's/[0-9.]* s elapsed/N s elapsed/g' \
        -e 's/unperturb [0-9][0-9.a-z-]*/unperturb VERSION/g' \
        -e 's/[0-9][0-9]* MiB/N MiB/g'
}
n=0
# run NAME CMD...: the command's stdout, stderr, exit and the files under $T/o
run() {
    name=$1
    shift
    n=$((n + 1))
    rm -rf "$T/o"
    mkdir -p "$T/o"
    (cd "$T/o" && "$@") >"$T/out" 2>"$T/err"
    echo $? >"$OUT/$name.rc"
    clean <"$T/out" >"$OUT/$name.out"
    clean <"$T/err" >"$OUT/$name.err"
    (cd "$T/o" && find . -type f | sort) | while read -r f; do
        case $f in
        *.otf2 | *.def | *.evt) otf2-print "$T/o/$(dirname "$f")/traces.otf2" 2>&1 | clean >"$OUT/$name.files.otf2" ;;
        *.svg | *.html | *.json | *.csv | *.txt | *.ini | *.log) {
            echo "== $f"
            clean <"$T/o/$f"
        } >>"$OUT/$name.files" ;;
        *) echo "== $f (binary)" >>"$OUT/$name.files" ;;
        esac
    done
}

CAS=$D/casita-4_mpi_ls_barr
PP=$D/pipit-ping-pong
FEAT=$D/unperturb-40f2c30-features
CG=$D/unperturb-b3425f8-cg
for k in 2 4 8; do "$GEN" "$T/g$k" 20000 "$k" >/dev/null 2>&1; done
cat >"$T/m.ini" <<'EOF'
[network]
latency_ns = 1000
ns_per_byte = 0.5
EOF
cat >"$T/cal.ini" <<'EOF'
[overhead]
enter = 120
leave = 80
send = 150
[overhead_low]
enter = 100
[overhead_high]
enter = 140
leave = 90
send = 160
[network]
latency_ns = 1500
EOF

# ---- --help and usage of every command -------------------------------------------
run top-help "$U" --help
run top-none "$U"
run top-unknown "$U" nocommand
for c in trace calibrate compensate validate export estimate report simulate; do
    run "$c-help" "$U" $c --help
    run "$c-h" "$U" $c -h
    run "$c-badopt" "$U" $c --no-such-option
    run "$c-badshort" "$U" $c -Z
done
run compensate-noinput "$U" compensate -o x
run compensate-noout "$U" compensate "$CAS"
run compensate-badmode "$U" compensate "$CAS" -o x --mode sideways
run compensate-badkind "$U" compensate "$CAS" -o x --overhead-ns nokind=3
run compensate-badnum "$U" compensate "$CAS" -o x --overhead-ns ten
run compensate-ambig "$U" compensate "$CAS" -o x --p 3
run compensate-needval "$U" compensate "$CAS" -o
run compensate-novalue "$U" compensate "$CAS" -o x --force=1
run compensate-badwild "$U" compensate "$CAS" -o x --wildcard none
run compensate-missingcal "$U" compensate "$CAS" -o x --calibration "$T/none.ini"
run compensate-cal "$U" compensate "$CAS" -o x --calibration "$T/cal.ini" --json x.json
run compensate-cal-cli "$U" compensate "$CAS" -o x --calibration "$T/cal.ini" --overhead-ns leave=10 --json x.json
run compensate-noO "$U" compensate "$PP" -o x --json x.json
run compensate-feat-upper "$U" compensate "$FEAT" -o x -m upper --json x.json
run compensate-feat-lower "$U" compensate "$FEAT" -o x -m lower --json x.json
run compensate-cal-lower "$U" compensate "$CAS" -o x --calibration "$T/cal.ini" -m lower --json x.json
run compensate-two "$U" compensate "$CAS" "$PP" -o x
run estimate-cal "$U" estimate "$CAS" --calibration "$T/cal.ini" --json e.json
run estimate-noO "$U" estimate "$PP"
run estimate-feat "$U" estimate "$FEAT" --compare
run estimate-bad "$U" estimate "$T/none"
run report-html "$U" report "$CAS" --html r.html --json r.json
run report-against "$U" report "$PP" --against "$PP" --html r.html
run report-cg "$U" report "$CG" --overhead-ns 100 --html r.html
run report-text "$U" report "$FEAT"
run report-bad "$U" report "$T/none"
run export-feat "$U" export "$FEAT" --perfetto e.json
run export-noout "$U" export "$FEAT"
run export-bad "$U" export "$T/none" --perfetto e.json
run trace-noprog "$U" trace -o x
run trace-noout "$U" trace -- true
run trace-recover-none "$U" trace --recover "$T/none"
run calibrate-noout "$U" calibrate
run calibrate-badextra "$U" calibrate -o c.ini --extra-ns abc
run validate-noprog "$U" validate -o x
run validate-badnp "$U" validate -o x --np 0 -- true
run validate-badrep "$U" validate -o x --repeat 1000 -- true

# ---- simulate: single, machine, set, sweeps, grids, scaling, experiment -----------------
run sim-one "$U" simulate "$CAS" --json s.json
run sim-one-o "$U" simulate "$CAS" -o x --json s.json
run sim-machine "$U" simulate "$CAS" --machine "$T/m.ini" --json s.json
run sim-cluster "$U" simulate "$CG" --machine "$(pwd)/examples/machines/cluster.ini" --json s.json
run sim-set "$U" simulate "$CAS" --machine "$T/m.ini" --set latency_ns=5000 --set cpu_ratio=2 --json s.json
run sim-set-bad "$U" simulate "$CAS" --set latency_ns=abc
run sim-set-key "$U" simulate "$CAS" --set nokey=1
run sim-cpu-bad "$U" simulate "$CAS" --set cpu_ratio=1e-20
run sim-machine-missing "$U" simulate "$CAS" --machine "$T/none.ini"
run sim-sweep "$U" simulate "$CAS" --sweep latency_ns=0:20000:5000 -o x --json s.json
run sim-sweep-frac "$U" simulate "$PP" --sweep ns_per_byte=0.1:0.3:0.1 -o x
run sim-grid "$U" simulate "$CAS" --sweep latency_ns=0:10000:5000 --sweep cpu_ratio=1:2:0.5 -o x --json s.json
run sim-sweep-noout "$U" simulate "$CAS" --sweep latency_ns=1:10:1
run sim-sweep-three "$U" simulate "$CAS" --sweep latency_ns=1:2:1 --sweep per_hop_ns=1:2:1 --sweep poll_ns=1:2:1 -o x
run sim-sweep-name "$U" simulate "$CAS" --sweep topology=1:2:1 -o x
run sim-scaling "$U" simulate "$T/g2" "$T/g4" "$T/g8" -o x --json s.json
run sim-scaling-sweep "$U" simulate "$T/g2" "$T/g4" --sweep latency_ns=0:4000:2000 -o x
run sim-scaling-noout "$U" simulate "$T/g2" "$T/g4"
run sim-noinput "$U" simulate --machine "$T/m.ini"
run sim-missing "$U" simulate "$T/none"
run sim-exp-machine "$U" simulate --experiment "$T/m.ini"
run sim-exp-missing "$U" simulate --experiment "$T/none.ini"
"$U" simulate "$CAS" --machine "$T/m.ini" --sweep latency_ns=0:4000:2000 -o "$T/exp1" -q >/dev/null 2>&1
run sim-exp "$U" simulate --experiment "$T/exp1/experiment.ini" -o x --json s.json
run sim-exp-own "$U" simulate --experiment "$T/exp1/experiment.ini" -o "$T/exp1" -f
"$U" simulate "$T/g2" "$T/g4" -o "$T/exp2" -q >/dev/null 2>&1
run sim-exp-scaling "$U" simulate --experiment "$T/exp2/experiment.ini" -o x
run sim-exp-trace "$U" simulate --experiment "$T/exp1/experiment.ini" "$CAS"
echo "$n invocations"
