#!/bin/sh
# tests/validate/run.sh BUILD - `unperturb validate` as a user runs it: the
# ring example (message-heavy) on 2 ranks, 2 runs of each kind, extra cost 0 and 1000 ns.
# The table is checked against independent paths: jq over the JSON's own
# list of runs (the fastest is kept, the deltas follow from the times), the
# shim's time files, and otf2-print of the kept traces (their windows,
# computed here from the raw records and the timer resolution; the extra
# cost seen in every gap between records).  Then bad input: a program that
# is not there, one that fails, one that never calls MPI.
# No check compares the wall-clock times of two runs: the machine may be
# loaded by other work, and load that comes and goes can make any run
# slower than another (it did: the uninstrumented runs slowed down more
# than the traced ones).  The extra cost is checked where it cannot be
# hidden: a spin of 1000 ns after every record puts at least 1000 ns
# between consecutive records, whatever else runs.
# A different execution: tests/validate/adapt.c does 1% and 1.1% more
# MPI_Sendrecv calls when traced with an extra cost; validate flags the 1.1%
# row only, in the table, the JSON and scripts/accuracy-rows.jq's Markdown,
# and the counts are those of otf2-print over the kept traces.
# Then tests/validate/threads.sh: programs without MPI, and hybrid ones.
set -eu
BUILD=${1:-build}
UNPERTURB=${UNPERTURB:-$BUILD/bin/unperturb}
PROG=$BUILD/examples/ring
T=$(mktemp -d /tmp/unperturb-validate-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { pass=$((pass + 1)); echo "ok   $*"; }
near() { awk -v a="$1" -v b="$2" -v tol="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= tol) }'; }

$UNPERTURB validate -q --np 2 --repeat 2 --extra-ns 0,1000 -o "$T/val" --json "$T/v.json" \
    -- "$PROG" 5000 20 > "$T/table.out" || fail "validate exited non-zero"
for f in table.txt validate.json plot.svg runs.csv log.txt np2-x0/trace/traces.otf2 \
         np2-x1000/lower/traces.otf2 np2-x1000/upper/traces.otf2 np2-x1000/network/traces.otf2; do
    [ -e "$T/val/$f" ] || fail "validate wrote no $f"
done
cmp -s "$T/v.json" "$T/val/validate.json" || fail "--json differs from validate.json"
grep -q "width *inside" "$T/table.out" || fail "no table printed"
[ "$(jq '.rows | length' "$T/v.json")" = 2 ] || fail "expected 2 rows"
ok "validate writes the table, JSON, plot, runs and the kept traces"

# the fastest run is kept, and the figures follow from it
for i in 0 1; do
    jq -e ".rows[$i] | (.T_s == (.runs_T_s | min)) and (.Tm_s == (.runs_Tm_s | min))
           and (.T_max_s == (.runs_T_s | max))
           and ((.delta_m - (.Tm_s - .T_s) / .T_s) | fabs < 1e-12)
           and ((.delta_a_network - ((.Ta_network_s - .T_s) | fabs) / .T_s) | fabs < 1e-12)
           and (.T_in_bounds == (.Ta_lower_s <= .T_s and .T_s <= .Ta_upper_s))
           and ((.T_noise - (.T_median_s - .T_s) / .T_s) | fabs < 1e-12)
           and ((.T_spread_s - (.T_max_s - .T_s)) | fabs < 1e-12)
           and (.T_inside == (.Ta_lower_s - .T_spread_s <= .T_median_s and .T_median_s <= .Ta_upper_s + .T_spread_s))
           and ((.bounds_width - (.Ta_upper_s - .Ta_lower_s) / .T_median_s) | fabs < 1e-12)
           and (.np == 2) and (.oversubscribed | not)
           and (.runs_Ta_network_s | length == 2)
           and (.Ta_network_s == .runs_Ta_network_s[.runs_Tm_s | index(min)])
           and (.Ta_network_runs_min_s == (.runs_Ta_network_s | min))
           and (.Ta_network_runs_max_s == (.runs_Ta_network_s | max))" "$T/v.json" > /dev/null ||
        fail "row $i is not consistent with its runs"
done
[ "$(jq -r '.rows[0].extra_ns, .rows[1].extra_ns' "$T/v.json" | tr '\n' ' ')" = "0 1000 " ] ||
    fail "extra_ns values"
# the lower bound is not above the upper one (a property of the models on
# one trace, not a comparison of two runs)
jq -e '.rows[] | .Ta_lower_s <= .Ta_upper_s + 1e-9' "$T/v.json" > /dev/null || fail "lower > upper"
ok "rows: fastest runs kept, deltas and bounds consistent"

# T from the shim's files: the minimum of the two uninstrumented windows
tmin=$(sed -n 's/^window_s=//p' "$T/val/np2"/untraced-*.time | sort -g | head -1)
near "$tmin" "$(jq '.rows[0].T_s' "$T/v.json")" 1e-9 || fail "T_s is not the shim's fastest window"
[ "$(grep -c ',uninstrumented,' "$T/val/runs.csv")" = 2 ] && [ "$(grep -c ',traced,' "$T/val/runs.csv")" = 4 ] ||
    fail "runs.csv: expected 2 uninstrumented and 4 traced runs"
# every traced run's network Ta: the same in runs.csv and in the JSON
# (all digits: awk's print would round both to 6, and two values 1e-9 apart
# may round to neighbours)
awk -F, '$4 == "traced" { printf "%.12g\n", $6 }' "$T/val/runs.csv" | sort -g > "$T/csv-tn.txt"
jq -r '.rows[].runs_Ta_network_s[]' "$T/v.json" | awk '{ printf "%.12g\n", $1 }' | sort -g > "$T/json-tn.txt"
paste "$T/csv-tn.txt" "$T/json-tn.txt" | awk '{ d = $1 - $2; if (d > 1e-8 || d < -1e-8 || $1 <= 0) bad = 1 } END { exit bad || NR != 4 }' ||
    fail "runs.csv and runs_Ta_network_s differ: csv $(tr '\n' ' ' < "$T/csv-tn.txt"), json $(tr '\n' ' ' < "$T/json-tn.txt"); runs.csv: $(tr '\n' ' ' < "$T/val/runs.csv")"
ok "T is the fastest window the timing shim wrote; runs.csv lists every run"

# Tm from the kept traces themselves: earliest Leave(MPI_Init) to latest
# Enter(MPI_Finalize); and the smallest gap between consecutive records of
# a location inside its window, in ns
resolution() { otf2-print -G "$1" | sed -n 's/.*Ticks per Seconds: \([0-9]*\).*/\1/p'; }
window() {
    otf2-print "$1" | awk -v res="$(resolution "$1")" '
        $1 == "LEAVE" && /"MPI_Init"/ { if (a == "" || $3 < a) a = $3 }
        $1 == "ENTER" && /"MPI_Finalize"/ { if ($3 > b) b = $3 }
        END { printf "%.9f", (b - a) / res }'
}
min_gap_ns() {
    otf2-print "$1" | awk -v res="$(resolution "$1")" '
        $2 !~ /^[0-9]+$/ || $3 !~ /^[0-9]+$/ { next }
        $1 == "LEAVE" && /"MPI_Init"/ { on[$2] = 1; prev[$2] = $3; next }
        on[$2] { g = $3 - prev[$2]; if (m == "" || g < m) m = g; prev[$2] = $3; n++ }
        $1 == "ENTER" && /"MPI_Finalize"/ { on[$2] = 0 }
        END { if (n < 1000) { print "few"; exit } printf "%.1f", (m + 1) * 1e9 / res }'
}
tm=$(window "$T/val/np2-x0/trace/traces.otf2")
near "$tm" "$(jq '.rows[0].Tm_s' "$T/v.json")" 1e-6 || fail "Tm_s $(jq '.rows[0].Tm_s' "$T/v.json") is not the trace's window $tm"
tm1=$(window "$T/val/np2-x1000/trace/traces.otf2")
near "$tm1" "$(jq '.rows[1].Tm_s' "$T/v.json")" 1e-6 || fail "Tm_s $(jq '.rows[1].Tm_s' "$T/v.json") (extra 1000 ns) is not the trace's window $tm1"
grep -q '<svg' "$T/val/plot.svg" && grep -q '</svg>' "$T/val/plot.svg" &&
    [ "$(grep -c '<polyline' "$T/val/plot.svg")" -ge 10 ] || fail "plot.svg incomplete"
ok "Tm is the window of the kept traces (otf2-print: $tm s, $tm1 s); plot has 2 panels of 5 lines"

# the extra cost is in the kept trace of its row: 1000 ns or more between
# any two consecutive records of a location (one tick of rounding allowed;
# without the spins the smallest gap is a few ns), and in its calibration
g=$(min_gap_ns "$T/val/np2-x1000/trace/traces.otf2")
awk -v g="$g" 'BEGIN { exit !(g + 0 >= 1000) }' || fail "extra 1000 ns: smallest gap between records $g ns"
otf2-print -A "$T/val/np2-x1000/trace/traces.otf2" | grep -q '^extra_ns = 1000$' ||
    fail "extra 1000 ns: not in the kept trace's calibration"
ok "extra 1000 ns: every gap between records of the kept trace is at least that (smallest $g ns)"

# ring runs the same iterations whatever the extra cost: the same execution
jq -e '[.rows[] | (.different_execution | not) and .count_differences == []
        and .count_reference == {"extra_ns": 0, "run": 1}] | all' "$T/v.json" > /dev/null ||
    fail "ring: flagged as a different execution"
grep -q '^Same execution: every traced run' "$T/table.out" && ! grep -q '(different execution)$' "$T/table.out" ||
    fail "ring: no 'Same execution' line, or a row marked"
ok "ring: the same execution at every extra cost"

mpicc -O1 -o "$T/adapt" tests/validate/adapt.c
# the extra costs out of order: the reference is the smallest (0), not the first
env -u UNPERTURB_EXTRA_NS $UNPERTURB validate -q --np 2 --repeat 2 --extra-ns 1000,0,100 \
    -o "$T/adapt-val" --json "$T/a.json" -- "$T/adapt" > "$T/adapt.out" ||
    fail "validate of adapt exited non-zero"
[ "$(jq -c '[.rows[] | [.extra_ns, .different_execution]]' "$T/a.json")" = '[[1000,true],[0,false],[100,false]]' ] ||
    fail "adapt: flags $(jq -c '[.rows[] | [.extra_ns, .different_execution]]' "$T/a.json")"
jq -e '(.rows[] | .count_reference == {"extra_ns": 0, "run": 1})
       and (.count_rule | .tolerance == 0.01 and .floor == 100)
       and (.rows[1].count_differences == []) and (.rows[2].count_differences == [])
       and ([.rows[0].count_differences[] | .run] == [1, 2])
       and ([.rows[0].count_differences[] | .regions_differing == 1 and (.regions | length) == 1
             and .regions[0].region == "MPI_Sendrecv" and .regions[0].reference_count == 2000
             and .regions[0].count == 2022 and ((.regions[0].relative - 0.011) | fabs) < 1e-12] | all)' \
    "$T/a.json" > /dev/null || fail "adapt: JSON count fields: $(jq -c '.rows[0].count_differences' "$T/a.json")"
# the counts against otf2-print of the kept traces: MPI_Sendrecv 2022, 2000,
# 2020 (extra 1000, 0, 100), and every Enter record counted
enters() { otf2-print "$1" | awk -v r="$2" '$1 == "ENTER" && (r == "" || index($0, "\"" r "\"")) { n++ } END { print n + 0 }'; }
for x in 1000:2022:0 0:2000:1 100:2020:2; do
    e=${x%%:*} want=${x#*:}; want=${want%:*} i=${x##*:}
    got=$(enters "$T/adapt-val/np2-x$e/trace/traces.otf2" MPI_Sendrecv)
    [ "$got" = "$want" ] || fail "adapt, extra $e: otf2-print finds $got MPI_Sendrecv records, not $want"
    all=$(enters "$T/adapt-val/np2-x$e/trace/traces.otf2" "")
    jq -e --argjson i "$i" --argjson all "$all" '.rows[$i] | .runs_enter_records | length == 2 and all(. == $all)' \
        "$T/a.json" > /dev/null || fail "adapt, extra $e: runs_enter_records is not otf2-print's $all"
done
# the text: the row marked, and the line under the table with both counts
grep -E '^ +2 +1000 .*\(different execution\)$' "$T/adapt.out" > /dev/null ||
    fail "adapt: the extra 1000 row is not marked"
[ "$(grep -c '(different execution)$' "$T/adapt.out")" = 1 ] || fail "adapt: more than one row marked"
grep -qxF 'np 2, extra 1000 ns: a different execution: MPI_Sendrecv 2000 -> 2022 (+1.1%); 2 of 2 traced runs differ (run 1 shown), against extra 0 ns run 1' "$T/adapt.out" ||
    fail "adapt: no flagged line: $(grep 'different execution:' "$T/adapt.out")"
[ "$(grep -c 'a different execution:' "$T/adapt.out")" = 1 ] && ! grep -q Barrier "$T/adapt.out" ||
    fail "adapt: extra lines, or MPI_Barrier (under 100 records) compared"
cmp -s "$T/adapt.out" "$T/adapt-val/table.txt" || fail "adapt: table.txt differs from the printed table"
# the Markdown of scripts/accuracy.sh
jq -r --arg n adapt -f scripts/accuracy-rows.jq "$T/a.json" > "$T/a.md"
[ "$(sed 's/.*| \([^|]*\) |$/\1/' "$T/a.md" | tr '\n' '/')" = '**no**: MPI_Sendrecv 2000 → 2022 (+1.1%)/yes/yes/' ] ||
    fail "adapt: Markdown's last column: $(cat "$T/a.md")"
[ "$(awk -F'|' '{ print NF }' "$T/a.md" | sort -u)" = 16 ] || fail "adapt: Markdown rows of another width"
ok "adapt: 1.1% more MPI_Sendrecv flagged (table, line, JSON, Markdown), exactly 1% not; counts as otf2-print's"

# bad input: clear error, non-zero exit, no output folder
if $UNPERTURB validate -q -o "$T/bad1" -- "$T/no-such-program" 2> "$T/err1"; then fail "missing program accepted"; fi
grep -q "no-such-program" "$T/err1" && [ ! -e "$T/bad1" ] || fail "missing program: message or leftovers"
printf '#!/bin/sh\nexit 3\n' > "$T/fails.sh" && chmod +x "$T/fails.sh"
if $UNPERTURB validate -q --repeat 1 -o "$T/bad2" -- "$T/fails.sh" 2> "$T/err2"; then fail "failing program accepted"; fi
grep -q "exit status" "$T/err2" && [ ! -e "$T/bad2" ] && ! ls "$T"/bad2.tmp-* > /dev/null 2>&1 ||
    fail "failing program: message or leftovers"
printf '#!/bin/sh\nexit 0\n' > "$T/nompi.sh" && chmod +x "$T/nompi.sh"
if $UNPERTURB validate -q --repeat 1 -o "$T/bad3" -- "$T/nompi.sh" 2> "$T/err3"; then fail "non-MPI program accepted"; fi
grep -q "not timed" "$T/err3" && [ ! -e "$T/bad3" ] || fail "non-MPI program: message or leftovers"
if $UNPERTURB validate -q --np 0 -o "$T/bad4" -- "$PROG" 2> /dev/null; then fail "--np 0 accepted"; fi
$UNPERTURB validate -q --np 2 --repeat 1 -o "$T/val" -- "$PROG" 10 1 > /dev/null 2>&1 && fail "existing output replaced without --force"
[ -e "$T/val/validate.json" ] || fail "existing output damaged"
ok "bad input: missing, failing and non-MPI programs, --np 0, existing output"

# a program killed by a signal: the line names the signal (issue 31: it read
# "exit status 139"); the launcher runs the program itself, not through mpirun
printf '#!/bin/sh\nshift 2\nexec "$@"\n' > "$T/direct.sh" && chmod +x "$T/direct.sh"
printf '#!/bin/sh\nkill -SEGV $$\n' > "$T/segv.sh" && chmod +x "$T/segv.sh"
if $UNPERTURB validate -q --np 1 --repeat 1 --launcher "$T/direct.sh" -o "$T/bad5" -- "$T/segv.sh" 2> "$T/err5"; then
    fail "a program killed by SIGSEGV accepted"
fi
grep -q "the uninstrumented run (np 1) failed: killed by signal 11 (SIGSEGV)" "$T/err5" && [ ! -e "$T/bad5" ] ||
    fail "a program killed by SIGSEGV: $(head -c 300 "$T/err5")"
ok "a program killed by a signal: validate exits 1 and names the signal"

# log.txt keeps the first 256 KiB and the last 64 KiB of each run's output
# (issue 31: 84 MB of a chatty program's output were kept)
printf '#!/bin/sh\nhead -c 3000000 /dev/zero | tr "\\000" x\necho\necho chatty-end\nexec "%s" 100 1\n' \
    "$(cd "$(dirname "$PROG")" && pwd)/$(basename "$PROG")" > "$T/chatty.sh" && chmod +x "$T/chatty.sh"
$UNPERTURB validate -q --np 2 --repeat 1 --extra-ns 0 -o "$T/chat" -- "$T/chatty.sh" > /dev/null 2> "$T/err6" ||
    fail "validate of a chatty program: $(head -c 300 "$T/err6")"
size=$(wc -c < "$T/chat/log.txt")
[ "$size" -lt 2000000 ] || fail "log.txt of a chatty program: $size bytes"
[ "$(grep -c "bytes of this run's output left out: log.txt keeps the first 256 KiB and the last 64 KiB" "$T/chat/log.txt")" = 2 ] ||
    fail "log.txt of a chatty program: no line for each of its 2 runs"
# (each run's last line is kept; a rank's own may be followed by the other's 3 MB)
[ "$(grep -c '^chatty-end$' "$T/chat/log.txt")" -ge 2 ] || fail "log.txt of a chatty program: the end of each run's output is not kept"
ok "log.txt keeps the start and the end of a chatty program's output ($size bytes for 12 MB)"
echo "validate tests: $pass passed"

# threaded programs, without MPI and hybrid (make test runs this file only)
UNPERTURB=$UNPERTURB "$(dirname "$0")/threads.sh" "$BUILD"
