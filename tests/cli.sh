#!/bin/sh
# cli.sh - tests of the `unperturb` command as a user runs it: exit codes,
# error messages, inputs left untouched, outputs checked with otf2-print
# (an independent reader) and jq.
#   UNPERTURB=build/san/bin/unperturb tests/cli.sh
set -u
UP=${UNPERTURB:-build/bin/unperturb}
DATA=${UNPERTURB_SRC:-.}/tests/data
T=$(mktemp -d "${TMPDIR:-/tmp}/unperturb-cli-XXXXXX")
pass=0
fail=0

ok() { pass=$((pass + 1)); printf 'ok    %s\n' "$1"; }
bad() { fail=$((fail + 1)); printf 'FAIL  %s\n' "$1"; [ $# -gt 1 ] && printf '      %s\n' "$2"; }

# expect CODE NAME -- command...: runs it, keeps stdout/stderr in $T/out $T/err
expect() {
    want=$1; name=$2; shift 3
    "$@" >"$T/stdout" 2>"$T/stderr"
    got=$?
    if [ "$got" -eq "$want" ]; then ok "$name"; else bad "$name" "exit $got, wanted $want: $(head -c 300 "$T/stderr")"; fi
}
grep_err() { # NAME PATTERN
    if grep -q -- "$2" "$T/stderr"; then ok "$1"; else bad "$1" "stderr lacks '$2': $(head -c 300 "$T/stderr")"; fi
}
# records per location: "location count" lines, from otf2-print's event table
counts() {
    otf2-print "$1/traces.otf2" 2>/dev/null |
        awk '/^=== Events/ {ev = 1; next} ev && $1 ~ /^[A-Z_]+$/ && $2 ~ /^[0-9]+$/ && NF >= 3 {print $2}' |
        sort | uniq -c | awk '{print $2, $1}'
}

# ---- usage ------------------------------------------------------------------
expect 0 "help" -- "$UP" compensate --help
expect 2 "no command is a usage error" -- "$UP"
expect 2 "unknown command" -- "$UP" frobnicate
expect 2 "no output folder" -- "$UP" compensate "$DATA/pipit-ping-pong"
grep_err "no output folder: says -o" "-o DIR"
expect 2 "bad mode" -- "$UP" compensate "$DATA/pipit-ping-pong" -o "$T/x" --mode middle
grep_err "bad mode: names it" "middle"
expect 2 "bad overhead kind" -- "$UP" compensate "$DATA/pipit-ping-pong" -o "$T/x" --overhead-ns foo=3
expect 2 "negative overhead" -- "$UP" compensate "$DATA/pipit-ping-pong" -o "$T/x" --overhead-ns -3
[ ! -e "$T/x" ] && ok "usage errors create nothing" || bad "usage errors create nothing"

# ---- bad input ----------------------------------------------------------------
expect 1 "missing input" -- "$UP" compensate "$T/nothing-here" -o "$T/x"
grep_err "missing input: names the file" "nothing-here"
printf 'not a trace\n' >"$T/fake.otf2"
expect 1 "not an OTF2 file" -- "$UP" compensate "$T/fake.otf2" -o "$T/x"
grep_err "not an OTF2 file: says so" "not an OTF2 archive"
grep_err "not an OTF2 file: names it" "fake.otf2"
mkdir -p "$T/emptydir"
expect 1 "folder without traces.otf2" -- "$UP" compensate "$T/emptydir" -o "$T/x"
grep_err "folder without traces.otf2: explains" "without traces.otf2"
printf '[overhead]\nenter = lots\n' >"$T/bad.ini"
expect 1 "bad calibration file" -- "$UP" compensate "$DATA/pipit-ping-pong" -o "$T/x" --calibration "$T/bad.ini"
grep_err "bad calibration file: names file and key" "bad.ini.*enter"
[ ! -e "$T/x" ] && ok "failed runs leave no output" || bad "failed runs leave no output"
ls "$T" | grep -q 'tmp-' && bad "failed runs leave no temporary folder" || ok "failed runs leave no temporary folder"

# ---- outputs never overwrite ---------------------------------------------------
cp -r "$DATA/pipit-ping-pong" "$T/in"
sum_before=$(cd "$T/in" && find . -type f -exec md5sum {} + | sort | md5sum)
expect 0 "compensate a real trace" -- "$UP" compensate "$T/in" -o "$T/out" --mode lower --overhead-ns 100 --json "$T/s.json"
expect 1 "existing output refused" -- "$UP" compensate "$T/in" -o "$T/out" --overhead-ns 100
grep_err "existing output: mentions --force" "--force"
expect 2 "input as output refused even with --force" -- "$UP" compensate "$T/in" -o "$T/in" --force --overhead-ns 1
grep_err "input as output: explains" "holds the input"
expect 2 "parent of input as output refused" -- "$UP" compensate "$T/in/traces.otf2" -o "$T/in" --force --overhead-ns 1
sum_after=$(cd "$T/in" && find . -type f -exec md5sum {} + | sort | md5sum)
[ "$sum_before" = "$sum_after" ] && ok "input unchanged" || bad "input unchanged"
expect 0 "--force replaces an old output" -- "$UP" compensate "$T/in/traces.otf2" -o "$T/out" --force --mode upper --overhead-ns 100 -q
[ ! -s "$T/stdout" ] && ok "--quiet prints nothing" || bad "--quiet prints nothing"
ls "$T" | grep -q -e '\.old-' -e '\.tmp-' && bad "no leftovers after --force" || ok "no leftovers after --force"

# ---- JSON summary ----------------------------------------------------------------
if command -v jq >/dev/null 2>&1; then
    for k in measured_time_s approximated_time_s mode locations events repairs per_location; do
        jq -e "has(\"$k\")" "$T/s.json" >/dev/null && ok "json has $k" || bad "json has $k"
    done
    jq -e '.mode == "lower" and .locations == 2 and .events == 120' "$T/s.json" >/dev/null &&
        ok "json values" || bad "json values" "$(jq -c '{mode, locations, events}' "$T/s.json")"
    jq -e '.per_location | length == 2 and all(has("location") and has("rank") and has("name") and has("measured_end_s") and has("approximated_end_s"))' "$T/s.json" >/dev/null &&
        ok "json per_location keys" || bad "json per_location keys"
    jq -e '.repairs | type == "object" and has("clock_condition") and has("unmatched_recv")' "$T/s.json" >/dev/null &&
        ok "json repairs object" || bad "json repairs object"
    jq -e '.approximated_time_s < .measured_time_s and .measured_time_s > 0' "$T/s.json" >/dev/null &&
        ok "json: overhead removed shortens the run" || bad "json: overhead removed shortens the run"
    "$UP" compensate "$DATA/casita-2_jacobi_blame_cpu_015" -o "$T/j" -q --json "$T/j.json" --overhead-ns 10 2>/dev/null
    jq -e '[.per_location[] | select(.name | startswith("CUDA")) | .rank] == [0, 1]' "$T/j.json" >/dev/null &&
        ok "json: threads and streams carry their process rank" || bad "json: threads and streams carry their process rank"
else
    bad "jq is installed (needed for the JSON checks)"
fi

# ---- every real trace: valid output, same records per location ---------------------
for d in "$DATA"/*/; do
    n=$(basename "$d")
    for m in lower upper network; do
        o="$T/r-$n-$m"
        if "$UP" compensate "$d" -o "$o" -q --mode $m --overhead-ns 200 --copy-ns-per-byte 0.1 \
            --latency-ns 1000 --ns-per-byte 0.3 2>"$T/err"; then :; else bad "$n $m: compensate" "$(cat "$T/err")"; continue; fi
        if ! otf2-print --silent "$o/traces.otf2" >/dev/null 2>&1; then bad "$n $m: otf2-print reads the output"; continue; fi
        if [ "$(counts "$d")" = "$(counts "$o")" ]; then ok "$n $m: same records per location"
        else bad "$n $m: same records per location"; fi
        rm -rf "$o"
    done
done

# ---- identity through the command line: otf2-print output identical -----------------
for d in "$DATA"/pipit-ping-pong-papi/ "$DATA"/casita-1_sptc/; do
    n=$(basename "$d")
    "$UP" compensate "$d" -o "$T/id-$n" -q --mode upper --overhead-ns 0 2>/dev/null
    otf2-print "$d/traces.otf2" 2>/dev/null | sed -n '/^=== Events/,$p' >"$T/a.txt"
    otf2-print "$T/id-$n/traces.otf2" 2>/dev/null | sed -n '/^=== Events/,$p' >"$T/b.txt"
    if [ -s "$T/a.txt" ] && cmp -s "$T/a.txt" "$T/b.txt"; then ok "$n: zero overhead reproduces every record"
    else bad "$n: zero overhead reproduces every record"; fi
done

# ---- unperturb estimate: the time-based models, no replay ----------------------------
expect 0 "estimate: help" -- "$UP" estimate --help
expect 2 "estimate: bad option" -- "$UP" estimate "$DATA/pipit-ping-pong" --frobnicate
expect 2 "estimate: no input" -- "$UP" estimate --overhead-ns 1
expect 2 "estimate: --overhead-ns takes one constant" -- "$UP" estimate "$DATA/pipit-ping-pong" --overhead-ns enter=3
expect 1 "estimate: missing input" -- "$UP" estimate "$T/nothing-here" --overhead-ns 1
grep_err "estimate: missing input: names the file" "nothing-here"
expect 1 "estimate: not an OTF2 file" -- "$UP" estimate "$T/fake.otf2" --overhead-ns 1
grep_err "estimate: not an OTF2 file: says so" "not an OTF2 archive"
expect 1 "estimate: bad calibration file" -- "$UP" estimate "$DATA/pipit-ping-pong" --calibration "$T/bad.ini"
grep_err "estimate: bad calibration file: names file and key" "bad.ini.*enter"
expect 0 "estimate a real trace with --compare" -- "$UP" estimate "$DATA/pipit-ping-pong" --overhead-ns 100 --compare --per-location --json "$T/e.json"
grep -q "sequential total time" "$T/stdout" && grep -q "replay (compensate, lower)" "$T/stdout" &&
    ok "estimate: text table" || bad "estimate: text table" "$(head -c 600 "$T/stdout")"
if command -v jq >/dev/null 2>&1; then
    for k in measured_time_s records records_by_kind overhead window models replay per_location; do
        jq -e "has(\"$k\")" "$T/e.json" >/dev/null && ok "estimate json has $k" || bad "estimate json has $k"
    done
    jq -e '[.models[].name] == ["sequential_total", "concurrent_total", "sequential_event", "concurrent_event"]
           and all(.models[]; has("approximated_time_s") and has("absolute_error_s") and has("direct_perturbation_s")
                   and has("records") and (.error_vs_replay | type) == "number")' "$T/e.json" >/dev/null &&
        ok "estimate json: four models with their keys" || bad "estimate json: four models with their keys"
    jq -e '.replay.measured_time_s == .measured_time_s and (.per_location | length) == 2' "$T/e.json" >/dev/null &&
        ok "estimate json: the replay's window is the same" || bad "estimate json: the replay's window is the same"
    # independent count with otf2-print: the window (earliest end of MPI_Init,
    # latest first start of MPI_Finalize) and the records in [start, end)
    otf2-print "$DATA/pipit-ping-pong/traces.otf2" 2>/dev/null |
        awk '/^=== Events/ {ev = 1; next}
             ev && $1 ~ /^[A-Z_]+$/ && $2 ~ /^[0-9]+$/ && NF >= 3 {
                 m = "-"; if ($0 ~ /Region: "MPI_Init(_thread)?"/) m = "I"; if ($0 ~ /Region: "MPI_Finalize"/) m = "F"
                 print $1, $2, $3, m }' >"$T/ev.txt"
    ws=$(awk '$1 == "LEAVE" && $4 == "I" && (s == "" || $3 < s) {s = $3} END {print s}' "$T/ev.txt")
    we=$(awk '$1 == "ENTER" && $4 == "F" && !($2 in f) {f[$2] = 1; if ($3 > e) e = $3} END {print e}' "$T/ev.txt")
    n=$(awk -v s="$ws" -v e="$we" '$3 + 0 >= s + 0 && $3 + 0 < e + 0' "$T/ev.txt" | wc -l)
    jq -e --argjson s "$ws" --argjson e "$we" --argjson n "$n" '
        .window.start_ticks == $s and .window.end_ticks == $e and .records == $n and .measured_overhead_s == 0
        and ((.models[0].approximated_time_s - (.measured_time_s - $n * 100e-9)) | fabs) < 1e-12' "$T/e.json" >/dev/null &&
        ok "estimate: sequential T_a = T_m - N O, N counted by otf2-print ($n)" ||
        bad "estimate: sequential T_a = T_m - N O, N counted by otf2-print ($n)" "$(jq -c '{window, records, s: .models[0].approximated_time_s, m: .measured_time_s}' "$T/e.json")"
fi

echo "$pass passed, $fail failed"
if [ "$fail" -eq 0 ]; then rm -rf "$T"; else echo "test files kept in $T"; fi
[ "$fail" -eq 0 ]
