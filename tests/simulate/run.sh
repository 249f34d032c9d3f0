#!/bin/sh
# tests/simulate/run.sh BUILD - `unperturb simulate` as a user runs it.
#   - usage errors exit 2 with a message naming the option: bad --set, bad
#     --sweep syntax and values, a key that
#     cannot be swept, a sweep or several inputs without -o, a third sweep;
#     a missing trace exits 1 naming it;
#   - one trace: the predicted archive has, per location, the records of the
#     input in the same order (otf2-print on both); `unperturb report` reads
#     it; the JSON has the documented keys and the location names;
#     --set after --machine, in order;
#   - cpu_ratio 2 predicts less time than 1 on a compute-bound real trace,
#     0.001 far more; 1e-20 is refused with its range;
#   - a missing --machine file exits 1, like a missing --calibration;
#   - a latency sweep gives one CSV row per value with non-decreasing time,
#     0.1:0.3:0.1 has three values, two sweeps give the grid;
#   - scaling of synthetic traces at 2, 4 and 8 ranks: rows by rank count,
#     speedup n0 at the base, well-formed SVGs with an ideal line;
#   - --experiment runs a saved experiment again: the same sweep.csv byte for
#     byte; its own folder (which holds it) is refused, also with --force;
#     nothing left behind on failure;
#   - the inputs are unchanged (checksums before and after).
#
#   UNPERTURB=build/san/bin/unperturb tests/simulate/run.sh build
# BUILD holds up-bench-gen.
set -u
export LC_ALL=C
BUILD=${1:-build}
UNPERTURB=${UNPERTURB:-$BUILD/bin/unperturb}
case $UNPERTURB in /*) ;; *) UNPERTURB=$(pwd)/$UNPERTURB ;; esac
SRC=${UNPERTURB_SRC:-.}
DATA=$SRC/tests/data
GEN=$BUILD/bin/up-bench-gen
for x in "$UNPERTURB" "$GEN"; do
    [ -x "$x" ] || { echo "FAIL: $x is missing: run make first" >&2; exit 1; }
done
for c in otf2-print python3; do
    command -v "$c" >/dev/null 2>&1 || { echo "FAIL: $c is missing (apt-get install otf2-tools python3)" >&2; exit 1; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/unperturb-simulate-XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); printf 'ok    %s\n' "$1"; }
bad() { fail=$((fail + 1)); printf 'FAIL  %s\n' "$1"; [ $# -gt 1 ] && printf '%s\n' "$2" | head -n 12 | sed 's/^/      /'; }
# check NAME CMD...: ok if CMD succeeds
check() { name=$1; shift; if "$@"; then ok "$name"; else bad "$name"; fi; }
sim() { "$UNPERTURB" simulate "$@"; }

CASITA=$DATA/casita-4_mpi_ls_barr
PINGPONG=$DATA/pipit-ping-pong
sums() { find "$CASITA" "$PINGPONG" "$T/g2" "$T/g4" "$T/g8" -type f -exec md5sum {} + | sort; }

for n in 2 4 8; do
    "$GEN" "$T/g$n" 20000 "$n" > /dev/null 2>&1 || bad "up-bench-gen $n locations failed"
done
sums > "$T/sums.before"

cat > "$T/m.ini" <<'EOF'
[network]
latency_ns = 1000
ns_per_byte = 0.5
EOF

# ---- usage errors: exit 2 and a message naming the problem ----------------------
# usage NAME PATTERN ARGS...: exit 2 and stderr matches PATTERN
usage() {
    name=$1 pat=$2; shift 2
    sim "$@" > "$T/u.out" 2> "$T/u.err"; r=$?
    if [ $r = 2 ] && grep -q -- "$pat" "$T/u.err" && [ ! -s "$T/u.out" ]; then
        ok "usage: $name exits 2 ($(head -n 1 "$T/u.err" | cut -c1-110))"
    else
        bad "usage: $name: exit $r" "$(cat "$T/u.err")"
    fi
}
usage "bad --set value" "latency_ns=abc" "$CASITA" --set latency_ns=abc
usage "unknown --set key" "nokey" "$CASITA" --set nokey=1
usage "--set without =" "latency_ns" "$CASITA" --set latency_ns
usage "--sweep without STEP" "KEY=FROM:TO:STEP" "$CASITA" --sweep latency_ns=1:2 -o "$T/x"
usage "--sweep with a word" "latency_ns = ten: not a number (must be between 0 and 1e9 ns)" "$CASITA" --sweep latency_ns=1:ten:1 -o "$T/x"
usage "--sweep FROM > TO" "FROM is greater than TO" "$CASITA" --sweep latency_ns=10:1:1 -o "$T/x"
usage "--sweep STEP 0" "STEP must be greater than 0" "$CASITA" --sweep latency_ns=1:10:0 -o "$T/x"
usage "--sweep of 10^9 values" "more than 1000 values" "$CASITA" --sweep latency_ns=0:1e9:1 -o "$T/x"
usage "--sweep of a name" "'topology' is not a numeric" "$CASITA" --sweep topology=1:2:1 -o "$T/x"
usage "--sweep of an unknown key" "'nokey' is not a numeric" "$CASITA" --sweep nokey=1:2:1 -o "$T/x"
usage "--sweep value the machine refuses" "cpu_ratio" "$CASITA" --sweep cpu_ratio=0:1:0.5 -o "$T/x"
usage "--sweep without -o" "needs an output folder" "$CASITA" --sweep latency_ns=1:10:1
usage "three --sweep" "at most two" "$CASITA" --sweep latency_ns=1:2:1 --sweep per_hop_ns=1:2:1 \
    --sweep poll_ns=1:2:1 -o "$T/x"
usage "two --sweep of one key" "same key" "$CASITA" --sweep latency_ns=1:2:1 --sweep latency_ns=3:4:1 -o "$T/x"
usage "several inputs without -o" "need an output folder" "$T/g2" "$T/g4"
usage "several inputs and two sweeps" "at most one --sweep" "$T/g2" "$T/g4" --sweep latency_ns=1:2:1 \
    --sweep per_hop_ns=1:2:1 -o "$T/x"
usage "no input" "no input trace" --machine "$T/m.ini"
usage "--experiment with a trace" "only -o" --experiment "$T/m.ini" "$CASITA"
[ -e "$T/x" ] && bad "usage errors left $T/x behind"

printf '[network]\nlatency_ns = fast\n' > "$T/badm.ini"
sim "$CASITA" --machine "$T/badm.ini" > /dev/null 2> "$T/e0"; r0=$?
if [ $r0 = 1 ] && grep -q "badm.ini:2" "$T/e0"; then
    ok "bad input: a machine file with an error exits 1 naming file and line ($(cat "$T/e0"))"
else
    bad "bad input: bad machine file: exit $r0" "$(cat "$T/e0")"
fi
sim "$CASITA" --machine "$T/none.ini" > "$T/e5.out" 2> "$T/e5"; r5=$?
if [ $r5 = 1 ] && [ "$(cat "$T/e5")" = "unperturb simulate: cannot read the machine file '$T/none.ini': No such file or directory" ] &&
   [ ! -s "$T/e5.out" ]; then
    ok "bad input: a missing --machine file exits 1 (as a missing --calibration) with the path and the reason"
else
    bad "bad input: missing --machine file: exit $r5" "$(cat "$T/e5")"
fi
sim "$T/missing-trace" > /dev/null 2> "$T/e1"; r1=$?
sim "$T/g2" "$T/missing-trace" -o "$T/x" > /dev/null 2> "$T/e2"; r2=$?
sim --experiment "$T/missing.ini" > /dev/null 2> "$T/e3"; r3=$?
sim --experiment "$T/m.ini" > /dev/null 2> "$T/e4"; r4=$?
if [ $r1 = 1 ] && grep -q "$T/missing-trace" "$T/e1" && [ $r2 = 1 ] && grep -q "$T/missing-trace" "$T/e2" &&
   [ $r3 = 1 ] && grep -q "$T/missing.ini" "$T/e3" && [ $r4 = 1 ] && grep -q "not an experiment file" "$T/e4" &&
   [ ! -e "$T/x" ]; then
    ok "bad input: a missing trace or experiment exits 1 naming it; a machine file is not an experiment"
else
    bad "bad input: exit $r1 $r2 $r3 $r4" "$(cat "$T/e1" "$T/e2" "$T/e3" "$T/e4")"
fi

# ---- one trace: the predicted archive ---------------------------------------------
# per location, the kinds of its records in order: "LOC KIND" (otf2-print
# merges locations by time; a stable sort by location keeps each one's order)
kinds() {
    otf2-print "$1/traces.otf2" 2>/dev/null |
        awk '/^=== Events/ {e = 1; next} e && $1 ~ /^[A-Z_]+$/ && $2 ~ /^[0-9]+$/ {print $2, $1}' |
        sort -s -n -k1,1
}
for tr in "$CASITA" "$PINGPONG" "$T/g4"; do
    b=$(basename "$tr")
    if sim "$tr" -o "$T/pred-$b" --json "$T/pred-$b.json" > "$T/pred-$b.txt" 2> "$T/pred-$b.err"; then
        kinds "$tr" > "$T/in.k"
        kinds "$T/pred-$b" > "$T/out.k"
        n=$(wc -l < "$T/in.k")
        if [ "$n" -gt 0 ] && cmp -s "$T/in.k" "$T/out.k"; then
            ok "$b: the predicted archive has the input's $n records, per location in the same order ($(cut -d' ' -f1 "$T/in.k" | uniq -c | awk '{printf "%s:%s ", $2, $1}'))"
        else
            bad "$b: records per location differ" "$(diff "$T/in.k" "$T/out.k" | head)"
        fi
    else
        bad "$b: simulate failed" "$(cat "$T/pred-$b.err")"
    fi
done
if [ -f "$T/pred-$(basename "$CASITA")/experiment.ini" ] &&
   "$UNPERTURB" report "$T/pred-$(basename "$CASITA")" > "$T/rep.txt" 2> "$T/rep.err"; then
    ok "casita: unperturb report reads the predicted archive; experiment.ini beside it"
else
    bad "casita: report on the predicted archive" "$(cat "$T/rep.err")"
fi

J=$T/pred-$(basename "$CASITA").json
if [ -f "$J" ] && python3 - "$J" > "$T/j.err" 2>&1 <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
for k in ("predicted_time_s", "measured_time_s", "per_location", "machine", "input", "output",
          "compute_source", "ranks", "ratio"):
    assert k in j, "missing " + k
assert j["predicted_time_s"] > 0 and j["measured_time_s"] > 0
assert j["ranks"] == 4 and len(j["per_location"]) == 4
for l in j["per_location"]:
    for k in ("location", "rank", "name", "measured_end_s", "predicted_end_s"):
        assert k in l, "per_location: missing " + k
    assert l["name"] == "Master thread", "location name %r" % l["name"]
    assert l["rank"] == l["location"]
    assert 0 <= l["predicted_end_s"] <= j["predicted_time_s"] + 1e-9
for k in ("cpu_ratio", "latency_ns", "ns_per_byte", "topology", "barrier", "bcast", "entry_ns"):
    assert k in j["machine"], "machine: missing " + k
assert j["compute_source"] in ("cpu_time", "wall_time")
EOF
then
    ok "casita: --json has predicted_time_s, per_location {location, rank, name, ends}, the machine, the input"
else
    bad "casita: --json" "$(cat "$T/j.err")"
fi
if grep -q "measured .* s, predicted .* s" "$T/pred-$(basename "$CASITA").txt" &&
   grep -q "Master thread" "$T/pred-$(basename "$CASITA").txt" && grep -q "latency_ns=" "$T/pred-$(basename "$CASITA").txt"; then
    ok "casita: the summary gives both times, the locations and the machine"
else
    bad "casita: summary" "$(cat "$T/pred-$(basename "$CASITA").txt")"
fi

# --machine, then --set in order; the machine file's keys replace the defaults
if sim "$CASITA" --machine "$T/m.ini" --set latency_ns=5000 --set per_hop_ns=7 --set latency_ns=6000 \
       --json "$T/set.json" -q 2> "$T/set.err" &&
   python3 -c 'import json,sys; m = json.load(open(sys.argv[1]))["machine"]; sys.exit(not (m["latency_ns"] == 6000 and m["per_hop_ns"] == 7 and m["ns_per_byte"] == 0.5))' "$T/set.json"; then
    ok "--machine then --set, in order: latency_ns 6000, per_hop_ns 7, ns_per_byte 0.5 from the file"
else
    bad "--machine and --set" "$(cat "$T/set.err")"
fi

# a faster processor: less time on a compute-bound trace
t1=$(sim "$CASITA" --set cpu_ratio=1 --json "$T/c1.json" -q 2> "$T/c.err" &&
     python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["predicted_time_s"])' "$T/c1.json")
t2=$(sim "$CASITA" --set cpu_ratio=2 --json "$T/c2.json" -q 2>> "$T/c.err" &&
     python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["predicted_time_s"])' "$T/c2.json")
if [ -n "$t1" ] && [ -n "$t2" ] && awk -v a="$t1" -v b="$t2" 'BEGIN {exit !(b < a * 0.6 && b > a * 0.4)}'; then
    ok "casita: cpu_ratio=2 predicts $t2 s against $t1 s at cpu_ratio=1 (compute-bound: about half)"
else
    bad "casita: cpu_ratio 1 -> 2: '$t1' -> '$t2'" "$(cat "$T/c.err")"
fi
# a slower one: more time, down to the lowest ratio allowed (1e-20 once
# overflowed the tick conversion and predicted a faster run); below it,
# the range (exit 2)
t3=$(sim "$CASITA" --set cpu_ratio=0.001 --json "$T/c3.json" -q 2>> "$T/c.err" &&
     python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["predicted_time_s"])' "$T/c3.json")
sim "$CASITA" --set cpu_ratio=1e-20 > "$T/c4.out" 2> "$T/c4.err"; r4=$?
if [ -n "$t1" ] && [ -n "$t3" ] && awk -v a="$t1" -v b="$t3" 'BEGIN {exit !(b > a * 900 && b < a * 1100)}' &&
   [ $r4 = 2 ] && grep -qx "unperturb simulate: --set cpu_ratio=1e-20: must be between 0.001 and 1000" "$T/c4.err"; then
    ok "casita: cpu_ratio=0.001 predicts $t3 s, about 1000 times $t1 s (compute-bound); 1e-20 is refused with the range"
else
    bad "casita: cpu_ratio 1 -> 0.001: '$t1' -> '$t3'; 1e-20: exit $r4" "$(cat "$T/c.err" "$T/c4.err")"
fi

# ---- sweeps -------------------------------------------------------------------------
SW=$T/sweep
if sim "$CASITA" --machine "$T/m.ini" --sweep latency_ns=10000:100000:10000 -o "$SW" > "$T/sw.txt" 2> "$T/sw.err"; then
    rows=$(($(wc -l < "$SW/sweep.csv") - 1))
    if [ "$rows" = 10 ] && head -n 1 "$SW/sweep.csv" | grep -q '^latency_ns,predicted_time_s' &&
       awk -F, 'NR > 1 { if ($1 != 10000 * (NR - 1)) exit 1; if (NR > 2 && $2 < p) exit 1; p = $2 }' "$SW/sweep.csv"; then
        ok "latency sweep: 10 rows, 10000..100000, predicted time non-decreasing ($(sed -n '2p' "$SW/sweep.csv" | cut -d, -f2) .. $(tail -n 1 "$SW/sweep.csv" | cut -d, -f2) s)"
    else
        bad "latency sweep: sweep.csv" "$(cat "$SW/sweep.csv")"
    fi
    if [ ! -s "$T/sw.err" ] && grep -q "100000" "$T/sw.txt"; then
        ok "latency sweep: the table on stdout, nothing on stderr (not a terminal)"
    else
        bad "latency sweep: output" "$(cat "$T/sw.err")"
    fi
    if python3 - "$SW" > "$T/x.err" 2>&1 <<'EOF'
import json, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
j = json.load(open(d + "/sweep.json"))
assert len(j["points"]) == 10 and j["sweeps"][0]["key"] == "latency_ns"
assert j["machine"]["ns_per_byte"] == 0.5
ET.parse(d + "/time.svg")
EOF
    then
        ok "latency sweep: sweep.json (points, sweeps, machine) and a well-formed time.svg"
    else
        bad "latency sweep: sweep.json or time.svg" "$(cat "$T/x.err")"
    fi
else
    bad "latency sweep failed" "$(cat "$T/sw.err")"
fi

# values k are FROM + k*STEP, TO included within rounding; a grid of two sweeps
if sim "$CASITA" --sweep cpu_ratio=0.1:0.3:0.1 -o "$T/fp" -q 2> "$T/fp.err" &&
   [ "$(cut -d, -f1 "$T/fp/sweep.csv" | tr '\n' ' ')" = "cpu_ratio 0.1 0.2 0.3 " ]; then
    ok "cpu_ratio=0.1:0.3:0.1 sweeps 0.1 0.2 0.3 (TO kept despite 0.1 + 2*0.1 > 0.3)"
else
    bad "0.1:0.3:0.1" "$(cat "$T/fp.err" "$T/fp/sweep.csv" 2>/dev/null)"
fi
if sim "$CASITA" --sweep latency_ns=0:20000:10000 --sweep cpu_ratio=1:2:1 -o "$T/grid" -q 2> "$T/grid.err" &&
   [ "$(($(wc -l < "$T/grid/sweep.csv") - 1))" = 6 ] &&
   awk -F, 'NR > 1 { t[$1, $2] = $3 } END { for (l = 0; l <= 20000; l += 10000) if (!(t[l, 2] < t[l, 1])) exit 1 }' "$T/grid/sweep.csv" &&
   python3 -c 'import sys, xml.etree.ElementTree as ET; r = ET.parse(sys.argv[1]).getroot(); sys.exit(not sum(1 for e in r.iter() if (e.text or "").startswith("cpu_ratio = ")) >= 2)' "$T/grid/time.svg"; then
    ok "two sweeps: a 3 x 2 grid, cpu_ratio 2 faster at every latency, a series per cpu_ratio in time.svg"
else
    bad "two sweeps" "$(cat "$T/grid.err" "$T/grid/sweep.csv" 2>/dev/null)"
fi

# ---- scaling ---------------------------------------------------------------------------
SC=$T/scaling
if sim "$T/g8" "$T/g2" "$T/g4" -o "$SC" > "$T/sc.txt" 2> "$T/sc.err"; then
    if [ "$(cut -d, -f1 "$SC/scaling.csv" | tr '\n' ' ')" = "ranks 2 4 8 " ] &&
       awk -F, 'NR == 2 { exit !($5 == 2 && $6 == 1) }' "$SC/scaling.csv" &&
       awk -F, 'NR > 1 { e = $5 / $1; if (e - $6 > 1e-5 || $6 - e > 1e-5 || $5 <= 0) exit 1 }' "$SC/scaling.csv"; then
        ok "scaling: rows by rank count 2 4 8, speedup 2 at the 2-rank base, efficiency = speedup / ranks"
    else
        bad "scaling: scaling.csv" "$(cat "$SC/scaling.csv")"
    fi
    if python3 - "$SC" > "$T/x.err" 2>&1 <<'EOF'
import json, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
for f in ("speedup.svg", "time.svg"):
    r = ET.parse(d + "/" + f).getroot()
    assert r.tag.endswith("svg"), f
texts = [e.text for e in ET.parse(d + "/speedup.svg").getroot().iter() if e.text]
assert "ideal" in texts, texts
j = json.load(open(d + "/scaling.json"))
assert [r["ranks"] for r in j["runs"]] == [2, 4, 8]
assert j["speedup_base_ranks"] == 2 and len(j["inputs"]) == 3
EOF
    then
        ok "scaling: speedup.svg and time.svg are well-formed XML, speedup.svg has the ideal line; scaling.json"
    else
        bad "scaling: SVG or JSON" "$(cat "$T/x.err")"
    fi
else
    bad "scaling failed" "$(cat "$T/sc.err")"
fi
if sim "$T/g2" "$T/g4" --sweep latency_ns=1000:21000:10000 -o "$T/scs" -q 2> "$T/scs.err" &&
   [ "$(($(wc -l < "$T/scs/scaling.csv") - 1))" = 6 ] &&
   awk -F, 'NR > 1 && $2 == 4 { if (n++ && $6 > p + 1e-9) exit 1; p = $6 }' "$T/scs/scaling.csv"; then
    ok "scaling with a latency sweep: 2 runs x 3 latencies, speedup at 4 ranks falls as latency grows"
else
    bad "scaling with a sweep" "$(cat "$T/scs.err" "$T/scs/scaling.csv" 2>/dev/null)"
fi
sim "$T/g2" "$T/g2/traces.otf2" -o "$T/dup" > /dev/null 2> "$T/dup.err"; r=$?
if [ $r = 1 ] && grep -q "both have 2 ranks" "$T/dup.err" && [ ! -e "$T/dup" ] && ! ls -d "$T"/dup.tmp* > /dev/null 2>&1; then
    ok "scaling: two runs at one rank count exit 1, nothing written"
else
    bad "scaling: same rank count: exit $r" "$(cat "$T/dup.err")"
fi

# ---- experiments ----------------------------------------------------------------------
if [ -f "$SW/experiment.ini" ] && grep -q "^\[experiment\]" "$SW/experiment.ini" &&
   grep -q "^input = /" "$SW/experiment.ini" && grep -q "^sweep = latency_ns=10000:100000:10000" "$SW/experiment.ini" &&
   grep -q "^\[network\]" "$SW/experiment.ini" && grep -q "^\[barrier\]" "$SW/experiment.ini" &&
   (cd / && "$UNPERTURB" simulate --experiment "$SW/experiment.ini" -o "$T/again" -q 2> "$T/again.err") &&
   cmp -s "$SW/sweep.csv" "$T/again/sweep.csv"; then
    ok "--experiment (run from /) reproduces sweep.csv byte for byte"
else
    bad "--experiment re-run" "$(cat "$T/again.err" 2>/dev/null; diff "$SW/sweep.csv" "$T/again/sweep.csv" 2>&1 | head)"
fi
if [ -f "$SC/experiment.ini" ] && sim --experiment "$SC/experiment.ini" -o "$T/sc-again" -q 2> "$T/sca.err" &&
   cmp -s "$SC/scaling.csv" "$T/sc-again/scaling.csv"; then
    ok "--experiment reproduces scaling.csv"
else
    bad "--experiment scaling" "$(cat "$T/sca.err")"
fi
cp "$SW/experiment.ini" "$T/sw-experiment.ini"
sim --experiment "$SW/experiment.ini" -q > /dev/null 2> "$T/ex.err"; r1=$?
sim --experiment "$SW/experiment.ini" -q --force > /dev/null 2>> "$T/ex.err"; r2=$?
if [ $r1 = 2 ] && [ $r2 = 2 ] && [ "$(grep -c "holds the input '$SW/experiment.ini'" "$T/ex.err")" = 2 ] &&
   cmp -s "$SW/experiment.ini" "$T/sw-experiment.ini" && cmp -s "$SW/sweep.csv" "$T/again/sweep.csv" &&
   ! ls -d "$T"/*.tmp* "$T"/*.old* > /dev/null 2>&1; then
    ok "--experiment into its own folder: refused (it holds the input), also with --force"
else
    bad "--experiment into its own folder: exit $r1 $r2" "$(cat "$T/ex.err")"
fi
sed 's/^sweep = .*/sweep = latency_ns=1:2/' "$SW/experiment.ini" > "$T/badsweep.ini"
printf '[experiment]\ninput = %s\nfrobnicate = 1\n' "$CASITA" > "$T/badkey.ini"
printf '[experiment]\ninput = %s\n[network]\nlatency_ns = fast\n' "$CASITA" > "$T/badnet.ini"
sim --experiment "$T/badsweep.ini" -o "$T/y" > /dev/null 2> "$T/b1"; r1=$?
sim --experiment "$T/badkey.ini" > /dev/null 2> "$T/b2"; r2=$?
sim --experiment "$T/badnet.ini" > /dev/null 2> "$T/b3"; r3=$?
if [ $r1 = 1 ] && grep -q "badsweep.ini:[0-9]*: --sweep" "$T/b1" && [ $r2 = 1 ] && grep -q "badkey.ini:3: unknown key 'frobnicate'" "$T/b2" &&
   [ $r3 = 1 ] && grep -q "badnet.ini" "$T/b3" && grep -q ":4" "$T/b3" && [ ! -e "$T/y" ]; then
    ok "bad experiment files exit 1 naming the file and line"
else
    bad "bad experiment files: exit $r1 $r2 $r3" "$(cat "$T/b1" "$T/b2" "$T/b3")"
fi
# a hand-written experiment: paths relative to its folder, the default machine
mkdir -p "$T/hand"
ln -s "$(cd "$CASITA" && pwd)" "$T/hand/run"
printf '[experiment]\ninput = run\nsweep = cpu_ratio=1:2:1\noutput = out\n' > "$T/hand/exp.ini"
if sim --experiment "$T/hand/exp.ini" -q 2> "$T/hand.err" && [ "$(($(wc -l < "$T/hand/out/sweep.csv") - 1))" = 2 ]; then
    ok "a hand-written experiment: input and output relative to its folder"
else
    bad "hand-written experiment" "$(cat "$T/hand.err")"
fi

# ---- outputs: never replace, never the input -----------------------------------------
sim "$CASITA" -o "$SW" -q > /dev/null 2> "$T/o1"; r1=$?
sim "$CASITA" -o "$CASITA" --force -q > /dev/null 2> "$T/o2"; r2=$?
sim "$CASITA" --json "$CASITA/traces.otf2" -q > /dev/null 2> "$T/o3"; r3=$?
sim "$CASITA" -o "$T/no/such/dir" -q > /dev/null 2> "$T/o4"; r4=$?
if [ $r1 = 1 ] && grep -q "exists" "$T/o1" && [ $r2 = 2 ] && grep -q "holds the input" "$T/o2" &&
   [ $r3 = 2 ] && grep -q "inside the folder of the input" "$T/o3" && [ $r4 = 1 ] && grep -q "does not exist" "$T/o4" &&
   [ -f "$SW/sweep.csv" ]; then
    ok "outputs: an existing folder needs --force, the input's folder and files are refused, a missing parent fails"
else
    bad "outputs: exit $r1 $r2 $r3 $r4" "$(cat "$T/o1" "$T/o2" "$T/o3" "$T/o4")"
fi

sums > "$T/sums.after"
if cmp -s "$T/sums.before" "$T/sums.after"; then
    ok "the inputs are unchanged ($(wc -l < "$T/sums.before") files, md5sum before and after)"
else
    bad "inputs changed" "$(diff "$T/sums.before" "$T/sums.after")"
fi
left=$(ls -d "$T"/*.tmp* "$T"/*/*.tmp[.-]* 2>/dev/null | wc -l)
check "no temporary files left ($left)" [ "$left" = 0 ]

echo "simulate tests: $pass passed, $fail failed"
[ "$fail" = 0 ]
