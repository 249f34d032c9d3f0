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
expect 2 "bad --polls" -- "$UP" compensate "$DATA/pipit-ping-pong" -o "$T/x" --polls sometimes
grep_err "bad --polls: names the choices" "model, local"
expect 2 "negative --spin-gap-ns" -- "$UP" compensate "$DATA/pipit-ping-pong" -o "$T/x" --spin-gap-ns -1
expect 2 "bad --replies" -- "$UP" compensate "$DATA/pipit-ping-pong" -o "$T/x" --replies elsewhere
grep_err "bad --replies: names the choices" "follow, measured"
expect 2 "bad --wildcard" -- "$UP" compensate "$DATA/pipit-ping-pong" -o "$T/x" --wildcard newest
grep_err "bad --wildcard: names the choices" "auto, preserve, fifo, lifo"
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
    jq -e '.polls == "model" and .spins == 0 and .polls_collapsed == 0 and .completions_moved == 0 and .parameters.spin_gap_ns == 10' "$T/s.json" >/dev/null &&
        ok "json: polling counts (none in a ping-pong)" || bad "json: polling counts" "$(jq -c '{polls, spins, polls_collapsed, completions_moved}' "$T/s.json")"
    # a Score-P trace does not mark wildcard receives: auto is preserve
    jq -e '.wildcard == "preserve" and .replies == "follow" and .replies_marked == 0 and .replies_inferred == 0 and .replies_retargeted == 0 and .task_bodies_moved == 0 and .task_bodies_left == 0' "$T/s.json" >/dev/null &&
        ok "json: wildcard auto resolved, farm counts" || bad "json: wildcard auto resolved, farm counts" "$(jq -c '{wildcard, replies, replies_marked, replies_inferred, replies_retargeted, task_bodies_moved, task_bodies_left}' "$T/s.json")"
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

# ---- nonsense values and odd files (docs/cli.md, "Values and input files") ---------
# same_err NAME EXPECTED: stderr is exactly EXPECTED (printf escapes allowed)
same_err() {
    printf "$2" >"$T/want"
    if cmp -s "$T/want" "$T/stderr"; then ok "$1"; else bad "$1" "stderr: $(od -c "$T/stderr" | head -5)"; fi
}
PP=$DATA/pipit-ping-pong
try() { printf "(try 'unperturb %s --help')\\n" "$1"; }
# getopt errors: one line and a pointer to --help, in every command
for c in compensate simulate estimate report export validate trace calibrate; do
    expect 2 "$c: unknown option exits 2" -- "$UP" $c --bogus
    same_err "$c: unknown option: one line and --help" "unperturb $c: unknown option '--bogus'\n$(try $c)\n"
done
expect 2 "option without its value" -- "$UP" compensate "$PP" -o
same_err "option without its value: names it" "unperturb compensate: option '-o' needs a value\n$(try compensate)\n"
expect 2 "long option without its value" -- "$UP" estimate "$PP" --json
same_err "long option without its value: names it" "unperturb estimate: option '--json' needs a value\n$(try estimate)\n"
expect 2 "flag with a value" -- "$UP" export "$PP" --force=yes
same_err "flag with a value: says so" "unperturb export: option '--force' takes no value\n$(try export)\n"
expect 2 "ambiguous prefix" -- "$UP" compensate "$PP" -o "$T/x" --c 1
same_err "ambiguous prefix: lists the options" "unperturb compensate: option '--c' is ambiguous (--collective, --calibration, --copy-ns-per-byte)\n$(try compensate)\n"
# numbers: the allowed range in the message, exit 2
rng() { # NAME CMD ARGS... ; the expected message is in $range_msg
    name=$1; shift
    expect 2 "$name exits 2" -- "$UP" "$@"
    same_err "$name: gives the range" "unperturb $1: $range_msg\n$(try "$1")\n"
}
range_msg="--overhead-ns 1e300: must be between 0 and 1e9 ns"
rng "compensate --overhead-ns 1e300" compensate "$PP" -o "$T/x" --overhead-ns 1e300
range_msg="--overhead-ns send=-5: must be between 0 and 1e9 ns"
rng "compensate --overhead-ns send=-5" compensate "$PP" -o "$T/x" --overhead-ns send=-5
range_msg="--eager-limit 1.5: must be a whole number between 0 and 2^53 bytes"
rng "compensate --eager-limit 1.5" compensate "$PP" -o "$T/x" --eager-limit 1.5
range_msg="--ns-per-byte 5x: not a number (must be between 0 and 1e6 ns/byte)"
rng "compensate --ns-per-byte 5x" compensate "$PP" -o "$T/x" --ns-per-byte 5x
range_msg="--latency-ns nan: not a number (must be between 0 and 1e9 ns)"
rng "compensate --latency-ns nan" compensate "$PP" -o "$T/x" --latency-ns nan
range_msg="--overhead-ns inf: must be between 0 and 1e9 ns"
rng "estimate --overhead-ns inf" estimate "$PP" --overhead-ns inf
range_msg="--top 2.5: must be a whole number between 1 and 100000 rows"
rng "report --top 2.5" report "$PP" --top 2.5
range_msg="--window 0:1e300: END must be between 0 and 1e9 s"
rng "export --window 0:1e300" export "$PP" --perfetto "$T/x.json" --window 0:1e300
range_msg="--buffer-mb 0: must be a whole number between 1 and 65536 MiB"
rng "trace --buffer-mb 0" trace --buffer-mb 0 -o "$T/x" -- true
range_msg="--extra-ns 2.5: must be a whole number between 0 and 1e9 ns"
rng "calibrate --extra-ns 2.5" calibrate --extra-ns 2.5 -o "$T/x.ini"
range_msg="--repeat 0: must be a whole number between 1 and 100 runs"
rng "validate --repeat 0" validate --repeat 0 -o "$T/x" -- true
range_msg="--np 2,0: '0': must be a whole number between 1 and 100000 ranks"
rng "validate --np 2,0" validate --np 2,0 -o "$T/x" -- true
range_msg="--set cpu_ratio=1e-20: must be between 0.001 and 1000"
rng "simulate --set cpu_ratio=1e-20" simulate "$PP" --set cpu_ratio=1e-20
range_msg="--set eager_limit=1.5: must be a whole number between 0 and 2^53 bytes"
rng "simulate --set eager_limit=1.5" simulate "$PP" --set eager_limit=1.5
range_msg="--sweep 'cpu_ratio=0:2:0.5': cpu_ratio = 0: must be between 0.001 and 1000"
rng "simulate --sweep cpu_ratio from 0" simulate "$PP" --sweep cpu_ratio=0:2:0.5 -o "$T/x"
# missing, odd and unreadable files: exit 1, the path and the reason, at once
# (timeout only guards against a hang: these return without reading)
for c in compensate estimate report simulate; do
    case $c in compensate) extra="-o $T/x" ;; *) extra= ;; esac
    expect 1 "$c --calibration missing" -- "$UP" $c "$PP" $extra --calibration "$T/none.ini"
    same_err "$c --calibration missing: path and reason" "unperturb $c: cannot read the calibration file '$T/none.ini': No such file or directory\n"
    mkdir -p "$T/cdir"
    expect 1 "$c --calibration DIR" -- "$UP" $c "$PP" $extra --calibration "$T/cdir"
    same_err "$c --calibration DIR: is a directory" "unperturb $c: cannot read the calibration file '$T/cdir': it is a directory, not a file\n"
    # a folder given as a file holds the output: the folder is the problem
    # (it was "refusing to write ...: it lies inside the input")
    expect 1 "$c --calibration DIR around the output" -- "$UP" $c "$PP" $extra --calibration "$T"
    same_err "$c --calibration DIR around the output: is a directory" "unperturb $c: cannot read the calibration file '$T': it is a directory, not a file\n"
    expect 1 "$c --calibration /dev/zero" -- timeout 60 "$UP" $c "$PP" $extra --calibration /dev/zero
    same_err "$c --calibration /dev/zero: refused" "unperturb $c: cannot read the calibration file '/dev/zero': it is a character device, not a regular file\n"
done
expect 1 "simulate --machine missing (exit 1, as --calibration)" -- "$UP" simulate "$PP" --machine "$T/none.ini"
same_err "simulate --machine missing: path and reason" "unperturb simulate: cannot read the machine file '$T/none.ini': No such file or directory\n"
expect 1 "simulate --machine /dev/zero" -- timeout 60 "$UP" simulate "$PP" --machine /dev/zero
same_err "simulate --machine /dev/zero: refused" "unperturb simulate: cannot read the machine file '/dev/zero': it is a character device, not a regular file\n"
mkfifo "$T/fifo.ini"
expect 1 "simulate --machine FIFO" -- timeout 60 "$UP" simulate "$PP" --machine "$T/fifo.ini"
same_err "simulate --machine FIFO: refused" "unperturb simulate: cannot read the machine file '$T/fifo.ini': it is a FIFO (named pipe), not a regular file\n"
expect 1 "simulate --experiment /dev/zero" -- timeout 60 "$UP" simulate --experiment /dev/zero
same_err "simulate --experiment /dev/zero: refused" "unperturb simulate: cannot read the experiment file '/dev/zero': it is a character device, not a regular file\n"
printf '# a comment\n[experiment]\ninput = x\0\n' >"$T/nul.ini"
expect 1 "simulate --experiment with a NUL byte" -- "$UP" simulate --experiment "$T/nul.ini"
same_err "simulate --experiment with a NUL byte: its line" "unperturb simulate: $T/nul.ini:3: a NUL byte: not a text file (an experiment file is INI text)\n"
head -c 1048577 /dev/zero | tr '\0' '#' >"$T/big.ini"
expect 1 "simulate --machine of 1 MiB + 1" -- "$UP" simulate "$PP" --machine "$T/big.ini"
same_err "simulate --machine of 1 MiB + 1: the limit" "unperturb simulate: cannot read the machine file '$T/big.ini': larger than 1 MiB, the limit for a machine file\n"
# bytes that do not print are escaped; a long line names its own line
printf '[overhead]\nent\033[2Jer\001 = 5\n' >"$T/esc.ini"
expect 1 "calibration with control bytes" -- "$UP" compensate "$PP" -o "$T/x" --calibration "$T/esc.ini"
same_err "calibration with control bytes: escaped" "unperturb compensate: $T/esc.ini:2: [overhead] unknown key 'ent\\\\x1b[2Jer\\\\x01' (expected all, enter, leave, send, recv, coll_begin, coll_end, other, metric, fn_enter, fn_leave, poll_enter, poll_leave, thread or lock)\n"
printf '[network]\nlatency_ns = \377\376\n' >"$T/escm.ini"
expect 1 "machine file with bytes that are not UTF-8" -- "$UP" simulate "$PP" --machine "$T/escm.ini"
same_err "machine file with bytes that are not UTF-8: escaped" "unperturb simulate: $T/escm.ini:2: latency_ns = \\\\xff\\\\xfe: not a number (must be between 0 and 1e9 ns)\n"
{ printf '[overhead]\nenter = 1'; head -c 300 /dev/zero | tr '\0' '0'; } >"$T/long.ini"
expect 1 "calibration: long last line" -- "$UP" compensate "$PP" -o "$T/x" --calibration "$T/long.ini"
same_err "calibration: long last line names line 2 (not 3, past the end)" "unperturb compensate: $T/long.ini:2: line longer than 199 characters\n"
cp "$T/long.ini" "$T/longm.ini" && printf '\n[network]\n' >>"$T/longm.ini" && sed -i 's/^\[overhead\]/[network]/; s/^enter/latency_ns/' "$T/longm.ini"
expect 1 "machine: long line" -- "$UP" simulate "$PP" --machine "$T/longm.ini"
same_err "machine: long line names line 2" "unperturb simulate: $T/longm.ini:2: line longer than 199 characters\n"
expect 2 "option value that does not print" -- "$UP" compensate "$PP" -o "$T/x" --mode "$(printf 'lo\033[2Jwer')"
same_err "option value that does not print: escaped" "unperturb compensate: unknown --mode 'lo\\\\x1b[2Jwer' (expected lower, upper or network)\n$(try compensate)\n"
expect 1 "file name that does not print" -- "$UP" estimate "$T/$(printf 'a\033b')"
grep -q "$T/a\\\\x1bb" "$T/stderr" && ! LC_ALL=C grep -q "$(printf '\033')" "$T/stderr" &&
    ok "file name that does not print: escaped" || bad "file name that does not print: escaped" "$(od -c "$T/stderr" | head)"
[ ! -e "$T/x" ] && ok "refused values and files create nothing" || bad "refused values and files create nothing"

# ---- one INI syntax, one number parser (issue 31, items 7 and 8) --------------------
# a key on a section's line, a lone CR, a key set twice: exit 1 with file:line
# (these ran with exit 0 and the key ignored, or the last one kept)
printf '[network] latency_ns = 5\n' >"$T/onsec.ini"
expect 1 "machine: key on the section line" -- "$UP" simulate "$PP" --machine "$T/onsec.ini"
same_err "machine: key on the section line: file and line" "unperturb simulate: $T/onsec.ini:1: 'latency_ns = 5' after [network]: a section header ends the line (a key goes on a line of its own)\n"
printf '[network]\rlatency_ns = 5\r' >"$T/cr.ini"
expect 1 "machine: CR line ends" -- "$UP" simulate "$PP" --machine "$T/cr.ini"
same_err "machine: CR line ends: file and line" "unperturb simulate: $T/cr.ini:1: a carriage return (CR) inside the line: lines end in LF or CR LF, and a lone CR is not a line end\n"
printf '[overhead] all = 500\n' >"$T/onsecc.ini"
expect 1 "calibration: key on the section line" -- "$UP" compensate "$PP" -o "$T/x" --calibration "$T/onsecc.ini"
same_err "calibration: key on the section line: file and line" "unperturb compensate: $T/onsecc.ini:1: 'all = 500' after [overhead]: a section header ends the line (a key goes on a line of its own)\n"
printf '[overhead]\nall = 500\nsend = 9\nall = 600\n' >"$T/twice.ini"
for c in compensate estimate report; do
    case $c in compensate) extra="-o $T/x" ;; *) extra= ;; esac
    expect 1 "$c: calibration key set twice" -- "$UP" $c "$PP" $extra --calibration "$T/twice.ini"
    same_err "$c: calibration key set twice: file and line" "unperturb $c: $T/twice.ini:4: [overhead] all is set twice (first at line 2)\n"
done
printf '[info]\nhost = a\nall = 500\n' >"$T/info.ini"
expect 1 "calibration: unknown key in [info]" -- "$UP" compensate "$PP" -o "$T/x" --calibration "$T/info.ini"
same_err "calibration: unknown key in [info]: names it" "unperturb compensate: $T/info.ini:3: [info] unknown key 'all' (expected host, date, mode, ranks or extra_ns)\n"
printf '[experiment]\ninput = %s\n[network] latency_ns = 5\n' "$PP" >"$T/onsec-exp.ini"
expect 1 "experiment: key on a section line" -- "$UP" simulate --experiment "$T/onsec-exp.ini"
same_err "experiment: key on a section line: file and line" "unperturb simulate: $T/onsec-exp.ini:3: 'latency_ns = 5' after [network]: a section header ends the line (a key goes on a line of its own)\n"
# sweeps: decimal, finite, in range (0x10 ran 63 values; a step of 1e308 one)
range_msg="--sweep 'latency_ns=0:1000:0x10': STEP 0x10: not a number (must be between 0 and 1e9 ns)"
rng "simulate --sweep with a hex step" simulate "$PP" --sweep latency_ns=0:1000:0x10 -o "$T/x"
range_msg="--sweep 'latency_ns=0:1000:1e308': STEP 1e308: must be between 0 and 1e9 ns"
rng "simulate --sweep with a step past the range" simulate "$PP" --sweep latency_ns=0:1000:1e308 -o "$T/x"
range_msg="--sweep 'latency_ns=0:1e9:1e-300': more than 1000 values"
rng "simulate --sweep of too many values" simulate "$PP" --sweep latency_ns=0:1e9:1e-300 -o "$T/x"
printf '[experiment]\ninput = %s\nsweep = latency_ns=0:1000:0x10\noutput = %s\n' "$PP" "$T/x" >"$T/hex-exp.ini"
expect 1 "experiment: a hex sweep step" -- "$UP" simulate --experiment "$T/hex-exp.ini"
same_err "experiment: a hex sweep step: file and line" "unperturb simulate: $T/hex-exp.ini:3: --sweep 'latency_ns=0:1000:0x10': STEP 0x10: not a number (must be between 0 and 1e9 ns)\n"
expect 2 "export --locations past 2^64 - 1" -- "$UP" export "$PP" --perfetto "$T/x.json" --locations 18446744073709551616
grep_err "export --locations past 2^64 - 1: names it" "locations '18446744073709551616' is not a list"
[ ! -e "$T/x" ] && [ ! -e "$T/x.json" ] && ok "refused INI files and numbers create nothing" || bad "refused INI files and numbers create nothing"

# ---- issue 31, item 10: smaller holes ----------------------------------------
# a Location defined twice: warned, counted, the copy left out of the output
# (it was copied, and otf2-print warned of a duplicate Location in it)
cp -r "$DATA/pipit-ping-pong" "$T/dup"
python3 - "$T/dup/traces.def" <<'PY'
import sys
p = sys.argv[1]
d = bytearray(open(p, "rb").read())
loc = bytes.fromhex("0e090101010c01013c0101")  # LOCATION 1 "Master thread", 60 events, group 1
at = d.index(loc) + len(loc)
d[at:at] = loc
open(p, "wb").write(d)
PY
expect 0 "a Location defined twice: compensated" -- "$UP" compensate "$T/dup" -o "$T/dup-c" --overhead-ns 1 -q --json "$T/dup.json"
grep_err "a Location defined twice: warned" "traces.def': 1 definition of an id defined before (the first: Location 1); each id keeps its first definition"
[ "$(jq '.repairs.duplicate_definitions' "$T/dup.json")" = 1 ] && ok "a Location defined twice: counted" ||
    bad "a Location defined twice: counted" "$(jq -c .repairs "$T/dup.json")"
otf2-print -G "$T/dup-c/traces.otf2" > "$T/dup.defs" 2> "$T/dup.err"
[ "$(grep -c '^LOCATION ' "$T/dup.defs")" = 2 ] && ! grep -q duplicate "$T/dup.err" &&
    ok "a Location defined twice: once in the output" || bad "a Location defined twice: once in the output" "$(cat "$T/dup.err")"
# an anchor that declares no global definitions (it gave no warning)
cp -r "$DATA/pipit-ping-pong" "$T/zero"
python3 -c "
import sys
p = sys.argv[1]
d = bytearray(open(p, 'rb').read())
d[38:46] = bytes(8)  # the anchor's number of global definitions (OTF2 3.0)
open(p, 'wb').write(d)" "$T/zero/traces.otf2"
expect 0 "an anchor declaring 0 definitions: read" -- "$UP" estimate "$T/zero" --overhead-ns 1 -q
grep_err "an anchor declaring 0 definitions: warned" "533 definition records where the anchor declares 0"
# report's window when rank 0 has no records (it failed: no window)
cp -r "$DATA/pipit-ping-pong" "$T/norank0"
rm "$T/norank0/traces/0.evt"
expect 0 "report with no records on rank 0" -- "$UP" report "$T/norank0" -o "$T/norank0.html" -q
grep -q '</html>' "$T/norank0.html" && ok "report with no records on rank 0: the page" || bad "report with no records on rank 0: the page"
# -f is taken by every writing command (trace, validate and calibrate refused it)
expect 1 "trace -f: taken" -- "$UP" trace -f -q -o "$T/tf" -- /nonexistent/program
grep -q "option" "$T/stderr" && bad "trace -f: not refused as an option" "$(cat "$T/stderr")" ||
    ok "trace -f: not refused as an option"
expect 1 "validate -f: taken" -- "$UP" validate -f -q -o "$T/vf" -- /nonexistent/program
expect 1 "calibrate -f: taken" -- "$UP" calibrate -f -o "$T/cf.ini" --launcher /nonexistent/mpirun

echo "$pass passed, $fail failed"
if [ "$fail" -eq 0 ]; then rm -rf "$T"; else echo "test files kept in $T"; fi
[ "$fail" -eq 0 ]
