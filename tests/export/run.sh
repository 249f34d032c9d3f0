#!/bin/sh
# tests/export/run.sh BUILD - `unperturb export --perfetto` as a user runs it.
# Every expected value comes from otf2-print (an independent OTF2 reader),
# worked out here with sed and awk, and is compared with the JSON read by jq:
#   - the JSON is valid, with the keys Perfetto reads first;
#   - per location (thread_name's args.location -> tid): B = ENTER, E = LEAVE,
#     s = MPI_SEND + MPI_ISEND, f = MPI_RECV + MPI_IRECV (messages on
#     inter-communicators excepted: no flow, the summary says how many);
#   - every flow id has exactly one s and one f, and the pairs are the
#     messages otf2-print shows (k-th send of a (comm, sender, receiver, tag)
#     with its k-th receive), at their timestamps converted to microseconds
#     from the ClockProperties' global offset;
#   - instants + collective args account for every other record (nothing
#     dropped), and the summary's record count is otf2-print's;
#   - the timestamps of one tid never decrease;
#   - --window: every ts inside, B and E per location as simulated from the
#     records (regions open at the edges are cut); --locations: only those;
#   - bad input (missing, not OTF2, unwritable output, existing output, the
#     input as output) exits 1 naming the file, usage errors exit 2, and no
#     temporary file is left.
# Traces: every real trace of tests/data, one the tests write (up-check-gen
# good: sub- and inter-communicators, collectives, threads) and a trace
# `unperturb compensate` wrote.
#
#   UNPERTURB=build/san/bin/unperturb tests/export/run.sh build/san
set -u
export LC_ALL=C
BUILD=${1:-build}
UNPERTURB=${UNPERTURB:-$BUILD/bin/unperturb}
GEN=$BUILD/bin/up-check-gen
DATA=${UNPERTURB_SRC:-.}/tests/data
for x in "$UNPERTURB" "$GEN"; do
    [ -x "$x" ] || { echo "FAIL: $x is missing: run make first" >&2; exit 1; }
done
for c in otf2-print jq; do
    command -v "$c" >/dev/null 2>&1 || { echo "FAIL: $c is missing (apt-get install otf2-tools jq)" >&2; exit 1; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/unperturb-export-XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); printf 'ok    %s\n' "$1"; }
bad() { fail=$((fail + 1)); printf 'FAIL  %s\n' "$1"; [ $# -gt 1 ] && printf '%s\n' "$2" | head -n 12 | sed 's/^/      /'; }

# ---- the independent path: otf2-print ---------------------------------------

# events ANCHOR: "KIND LOCATION TICKS PEER COMM TAG", PEER the peer's location
# id for messages (as otf2-print resolves it), "-" otherwise
events() {
    otf2-print "$1" 2>/dev/null |
        awk '/^=== Events/ {e = 1; next} e && $1 ~ /^[A-Z_]+$/ && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/' |
        sed -E -e 's/^(MPI_I?SEND) +([0-9]+) +([0-9]+) +Receiver: [0-9]+ \(.*<([0-9]+)>\), Communicator: .*<([0-9]+)>, Tag: ([0-9]+),.*$/\1 \2 \3 \4 \5 \6/;t' \
               -e 's/^(MPI_I?RECV) +([0-9]+) +([0-9]+) +Sender: [0-9]+ \(.*<([0-9]+)>\), Communicator: .*<([0-9]+)>, Tag: ([0-9]+),.*$/\1 \2 \3 \4 \5 \6/;t' \
               -e 's/^([A-Z_]+) +([0-9]+) +([0-9]+).*$/\1 \2 \3 - - -/'
}
# clock ANCHOR: "RESOLUTION OFFSET"
clock() {
    otf2-print -G "$1" 2>/dev/null |
        sed -n 's/^CLOCK_PROPERTIES.*Ticks per Seconds: \([0-9]*\), Global Offset: \([0-9]*\),.*/\1 \2/p'
}
# inter-communicator ids, one per line
intercomms() { otf2-print -G "$1" 2>/dev/null | awk '$1 == "INTER_COMM" {print $2}'; }

# awk functions: ticks -> microseconds from the offset, exact in doubles for
# timestamps beyond 2^53 (the difference is taken in two 9-digit halves)
AWK_US='
function hi9(s) { return length(s) > 9 ? substr(s, 1, length(s) - 9) + 0 : 0 }
function lo9(s) { return length(s) > 9 ? substr(s, length(s) - 8) + 0 : s + 0 }
function us(t) { return ((hi9(t) - hi9(OFF)) * 1e9 + (lo9(t) - lo9(OFF))) * 1e6 / RES }
'

# expected ANCHOR EVENTS: "LOCATION ENTER LEAVE SENDS RECVS" for every
# location otf2-print -G lists (messages on inter-communicators and to
# unresolved peers excluded)
expected() {
    intercomms "$1" >"$T/inter"
    otf2-print -G "$1" 2>/dev/null | awk '$1 == "LOCATION" {print $2}' >"$T/locs"
    awk 'FILENAME == ARGV[1] {inter[$1] = 1; next}
         FILENAME == ARGV[2] {loc[$1] = 1; next}
         $1 == "ENTER" {en[$2]++}
         $1 == "LEAVE" {lv[$2]++}
         ($1 == "MPI_SEND" || $1 == "MPI_ISEND") && $4 != "-" && !($5 in inter) {s[$2]++}
         ($1 == "MPI_RECV" || $1 == "MPI_IRECV") && $4 != "-" && !($5 in inter) {r[$2]++}
         END {for (l in loc) printf "%s %d %d %d %d\n", l, en[l], lv[l], s[l], r[l]}' \
        "$T/inter" "$T/locs" "$2" | sort -n
}

# pairs_trace ANCHOR EVENTS: "SENDER RECEIVER SEND_US RECV_US" of every
# matched message, FIFO per (comm, sender, receiver, tag)
pairs_trace() {
    set -- "$1" "$2" "$(clock "$1")"
    intercomms "$1" >"$T/inter"
    awk -v RES="${3% *}" -v OFF="${3#* }" "$AWK_US"'
         FILENAME == ARGV[1] {inter[$1] = 1; next}
         ($1 == "MPI_SEND" || $1 == "MPI_ISEND") && $4 != "-" && !($5 in inter) {
             k = $5 " " $2 " " $4 " " $6; S[k, ++ns[k]] = $3; keys[k] = 1 }
         ($1 == "MPI_RECV" || $1 == "MPI_IRECV") && $4 != "-" && !($5 in inter) {
             k = $5 " " $4 " " $2 " " $6; R[k, ++nr[k]] = $3; keys[k] = 1 }
         END {
             for (k in keys) {
                 split(k, f, " ")
                 for (i = 1; i <= ns[k] && i <= nr[k]; i++)
                     printf "%s %s %.4f %.4f\n", f[2], f[3], us(S[k, i]), us(R[k, i])
             }
         }' "$T/inter" "$2" | sort -k1,1n -k3,3n
}

# ---- the JSON side: jq ------------------------------------------------------

# flat JSON: "PH TID TS ID LOCATION COLL" per event ("-" where absent)
flat() {
    jq -r '.traceEvents[] | [.ph, (.tid | tostring), (if .ts == null then "-" else (.ts | tostring) end),
            (.id // "-"), (if .ph == "M" and .name == "thread_name" then (.args.location | tostring) else "-" end),
            (if .ph == "E" and .args.collective != null then "coll" else "-" end)] | @tsv' "$1"
}

# got FLAT: "LOCATION B E S F" per exported location
got() {
    awk -F '\t' '$5 != "-" {loc[$2] = $5; n[$2] = 1}
                 $1 == "B" {b[$2]++} $1 == "E" {e[$2]++} $1 == "s" {s[$2]++} $1 == "f" {f[$2]++}
                 END {for (t in n) printf "%s %d %d %d %d\n", loc[t], b[t], e[t], s[t], f[t]}' "$1" | sort -n
}

# pairs_json FLAT: "SENDER RECEIVER SEND_US RECV_US" of the s/f pairs by id
pairs_json() {
    awk -F '\t' '$5 != "-" {loc[$2] = $5}
                 $1 == "s" {st[$4] = $3; sl[$4] = $2}
                 $1 == "f" {ft[$4] = $3; fl[$4] = $2}
                 END {for (i in st) if (i in ft) printf "%s %s %.4f %.4f\n", loc[sl[i]], loc[fl[i]], st[i], ft[i]}' "$1" |
        sort -k1,1n -k3,3n
}

# same_pairs A B: the same messages, times within 0.0006 us (rounding of ts)
same_pairs() {
    [ "$(wc -l <"$1")" -eq "$(wc -l <"$2")" ] || return 1
    paste -d ' ' "$1" "$2" | awk '{ if ($1 != $5 || $2 != $6) exit 1
        for (i = 3; i <= 4; i++) { d = $i - $(i + 4); if (d < 0) d = -d; if (d > 0.0006) exit 1 } }'
}

# check_export NAME ANCHOR JSON SUMMARY: the checks of a full export
check_export() {
    name=$1 anchor=$2 json=$3 summary=$4
    events "$anchor" >"$T/ev"
    if jq -e '(.traceEvents | type) == "array" and .displayTimeUnit == "ns" and (.otherData | type) == "object"' \
        "$json" >/dev/null 2>&1 && [ "$(head -c 19 "$json")" = '{"displayTimeUnit":' ]; then
        ok "$name: valid JSON, displayTimeUnit and otherData before traceEvents"
    else
        bad "$name: valid JSON" "$(jq empty "$json" 2>&1)"
        return
    fi
    flat "$json" >"$T/flat"
    expected "$anchor" "$T/ev" >"$T/want"
    got "$T/flat" >"$T/got"
    if cmp -s "$T/want" "$T/got"; then
        ok "$name: per location B/E = ENTER/LEAVE, s/f = sends/receives ($(awk '{b += $2; s += $4} END {print b " slices, " s " messages"}' "$T/want"))"
    else
        bad "$name: per location counts (location ENTER LEAVE SEND RECV: otf2-print | json)" "$(paste -d '|' "$T/want" "$T/got")"
    fi
    dup=$(awk -F '\t' '$1 == "s" || $1 == "f" {n[$4 " " $1]++; ids[$4] = 1}
                       END {for (i in ids) if (n[i " s"] != 1 || n[i " f"] != 1) c++; print c + 0}' "$T/flat")
    if [ "$dup" = 0 ]; then ok "$name: every flow id has exactly one s and one f"; else bad "$name: $dup flow ids without exactly one s and one f"; fi
    pairs_trace "$anchor" "$T/ev" >"$T/pt"
    pairs_json "$T/flat" >"$T/pj"
    if same_pairs "$T/pt" "$T/pj"; then
        ok "$name: flows join the messages otf2-print shows, at their times ($(wc -l <"$T/pt") pairs)"
    else
        bad "$name: flows vs messages (sender receiver send_us recv_us: otf2-print | json)" "$(paste -d '|' "$T/pt" "$T/pj" | head -n 10)"
    fi
    # nothing dropped: the rest of the records are instants or collective args
    rest=$(awk '$1 != "ENTER" && $1 != "LEAVE" && $1 != "MPI_COLLECTIVE_BEGIN" && $1 !~ /^MPI_I?(SEND|RECV)$/ {n++} END {print n + 0}' "$T/ev")
    shown=$(awk -F '\t' '$1 == "i" || $6 == "coll" {n++} END {print n + 0}' "$T/flat")
    records=$(sed -n 's/.* from \([0-9]*\) records on .*/\1/p' "$summary")
    if [ "$rest" = "$shown" ] && [ "$records" = "$(wc -l <"$T/ev" | tr -d ' ')" ]; then
        ok "$name: all $records records read; the $rest others are instants or collective args"
    else
        bad "$name: records: summary $records, otf2-print $(wc -l <"$T/ev"); others $rest, instants+collective args $shown"
    fi
    decr=$(awk -F '\t' '$3 != "-" { if (($2 in last) && $3 + 0 < last[$2]) n++; last[$2] = $3 + 0 } END {print n + 0}' "$T/flat")
    if [ "$decr" = 0 ]; then ok "$name: timestamps of every tid never decrease"; else bad "$name: $decr timestamps decrease within a tid"; fi
}

# ---- full exports -----------------------------------------------------------
echo "== full exports"
"$GEN" "$T/gen" good >/dev/null 2>&1 || bad "up-check-gen good"
"$UNPERTURB" compensate "$DATA/casita-10_scorep_mpi_tags" -o "$T/comp" --overhead-ns 150 -q 2>/dev/null ||
    bad "compensate casita-10"
for t in "$DATA"/*/traces.otf2 "$T/gen/traces.otf2" "$T/comp/traces.otf2"; do
    d=$(dirname "$t")
    case $d in
    "$T/gen") n="up-check-gen good" ;;
    "$T/comp") n="casita-10 compensated" ;;
    *) n=$(basename "$d") ;;
    esac
    if "$UNPERTURB" export "$d" --perfetto "$T/out.json" --force >"$T/summary" 2>"$T/err"; then
        check_export "$n" "$t" "$T/out.json" "$T/summary"
    else
        bad "$n: export failed" "$(cat "$T/err")"
    fi
done
# the inter-communicator messages of up-check-gen good are counted, not drawn
"$UNPERTURB" export "$T/gen" --perfetto "$T/g.json" >"$T/summary" 2>&1
ni=$(intercomms "$T/gen/traces.otf2" >"$T/inter"; events "$T/gen/traces.otf2" |
     awk 'FILENAME == ARGV[1] {inter[$1] = 1; next} $1 ~ /^MPI_I?(SEND|RECV)$/ && ($5 in inter) {n++} END {print n + 0}' "$T/inter" -)
if [ "$ni" -gt 0 ] && grep -q "; $ni messages without flow" "$T/summary"; then
    ok "inter-communicator messages ($ni) are reported, not drawn"
else
    bad "inter-communicator messages ($ni) reported" "$(cat "$T/summary")"
fi
head -n 1 "$T/summary" | grep -q "^unperturb export: $T/gen -> $T/g.json: [0-9]* events" &&
    ok "one-line summary names input, output and counts" || bad "summary line" "$(cat "$T/summary")"

# ---- --window ----------------------------------------------------------------
echo "== --window and --locations"
c10=$DATA/casita-10_scorep_mpi_tags
A=0.3 B=0.55
"$UNPERTURB" export "$c10" --perfetto "$T/w.json" --window "$A:$B" -q || bad "export --window"
flat "$T/w.json" >"$T/wflat"
out=$(awk -F '\t' -v a="$A" -v b="$B" '$3 != "-" && ($3 < a * 1e6 || $3 > b * 1e6) {n++} END {print n + 0}' "$T/wflat")
[ "$out" = 0 ] && ok "--window: every ts inside [$A, $B] s" || bad "--window: $out ts outside"
# B and E per location, simulated from the records: a location that reaches
# the window starts with its open regions; one that passes its end closes them
clk=$(clock "$c10/traces.otf2")
events "$c10/traces.otf2" | awk -v RES="${clk% *}" -v OFF="${clk#* }" -v a="$A" -v b="$B" "$AWK_US"'
    { l = $2; u = us($3); loc[l] = 1
      if (done[l]) next
      if (u > b * 1e6) { if (!open[l]) { B[l] += d[l]; open[l] = 1 } E[l] += d[l]; done[l] = 1; next }
      if (!open[l] && u >= a * 1e6) { B[l] += d[l]; open[l] = 1 }
      if ($1 == "ENTER") { d[l]++; if (open[l]) B[l]++ }
      if ($1 == "LEAVE") { d[l]--; if (open[l]) E[l]++ }
      if ($1 ~ /^MPI_I?SEND$/ && open[l]) S[l]++
      if ($1 ~ /^MPI_I?RECV$/ && open[l]) R[l]++ }
    END { for (l in loc) printf "%s %d %d %d %d\n", l, B[l], E[l], S[l], R[l] }' | sort -n >"$T/wwant"
got "$T/wflat" >"$T/wgot"
if cmp -s "$T/wwant" "$T/wgot"; then
    ok "--window: B/E/s/f per location as simulated from otf2-print (cut regions included)"
else
    bad "--window: per location (location B E s f: simulated | json)" "$(paste -d '|' "$T/wwant" "$T/wgot")"
fi
cut=$(jq '[.traceEvents[] | select(.args.cut_at_window == true)] | length' "$T/w.json")
[ "$cut" -gt 0 ] && ok "--window: $cut events marked cut_at_window" || bad "--window: no cut region"
"$UNPERTURB" export "$c10" --perfetto "$T/w2.json" --window 0.3: -q &&
    [ "$(jq '[.traceEvents[] | select(.ts != null and .ts < 300000)] | length' "$T/w2.json")" = 0 ] &&
    ok "--window START: (open end)" || bad "--window START:"

# ---- --locations --------------------------------------------------------------
"$UNPERTURB" export "$c10" --perfetto "$T/l.json" --locations 0,2-3 -q || bad "export --locations"
flat "$T/l.json" >"$T/lflat"
events "$c10/traces.otf2" >"$T/ev"
expected "$c10/traces.otf2" "$T/ev" | awk '$1 == 0 || $1 == 2 || $1 == 3' >"$T/lwant"
got "$T/lflat" >"$T/lgot"
if cmp -s "$T/lwant" "$T/lgot"; then
    ok "--locations 0,2-3: exactly those locations, with their own records"
else
    bad "--locations 0,2-3" "$(paste -d '|' "$T/lwant" "$T/lgot")"
fi

# ---- bad input and usage ----------------------------------------------------------
echo "== bad input and usage"
# expect CODE NAME PATTERN -- command...: exit status and a stderr pattern
expect() {
    want=$1 name=$2 pat=$3
    shift 4
    "$@" >"$T/stdout" 2>"$T/stderr"
    got=$?
    if [ "$got" -ne "$want" ]; then
        bad "$name" "exit $got, wanted $want: $(head -c 300 "$T/stderr")"
    elif [ -n "$pat" ] && ! grep -q -- "$pat" "$T/stderr"; then
        bad "$name" "stderr lacks '$pat': $(head -c 300 "$T/stderr")"
    else
        ok "$name"
    fi
}
mkdir -p "$T/bad"
expect 1 "missing input: exit 1, names it" "nothing-here" -- "$UNPERTURB" export "$T/nothing-here" --perfetto "$T/bad/x.json"
printf 'not a trace\n' >"$T/fake.otf2"
expect 1 "not OTF2: exit 1, says so" "fake.otf2.*not an OTF2 archive" -- "$UNPERTURB" export "$T/fake.otf2" --perfetto "$T/bad/x.json"
expect 1 "unwritable output: exit 1, names it" "nodir/x.json" -- "$UNPERTURB" export "$c10" --perfetto "$T/nodir/x.json"
: >"$T/afile"
expect 1 "output below a file: exit 1, names it" "afile/x.json" -- "$UNPERTURB" export "$c10" --perfetto "$T/afile/x.json"
expect 1 "output is a folder" "is a folder" -- "$UNPERTURB" export "$c10" --perfetto "$T/bad"
: >"$T/bad/old.json"
expect 1 "existing output refused" "force" -- "$UNPERTURB" export "$c10" --perfetto "$T/bad/old.json"
[ ! -s "$T/bad/old.json" ] && ok "existing output left alone" || bad "existing output left alone"
expect 0 "--force replaces it" "" -- "$UNPERTURB" export "$c10" --perfetto "$T/bad/old.json" --force -q
[ -s "$T/bad/old.json" ] && [ ! -s "$T/stdout" ] && ok "--force wrote it, --quiet printed nothing" || bad "--force / --quiet"
cp -r "$c10" "$T/in"
sum=$(cd "$T/in" && find . -type f -exec md5sum {} + | sort | md5sum)
expect 2 "the input as output refused, even with --force" "input" -- "$UNPERTURB" export "$T/in" --perfetto "$T/in/traces.otf2" --force
[ "$sum" = "$(cd "$T/in" && find . -type f -exec md5sum {} + | sort | md5sum)" ] && ok "input unchanged" || bad "input unchanged"
expect 2 "no --perfetto: usage" "--perfetto" -- "$UNPERTURB" export "$c10"
expect 2 "no input: usage" "no input" -- "$UNPERTURB" export --perfetto "$T/bad/x.json"
expect 2 "bad --window" "window" -- "$UNPERTURB" export "$c10" --perfetto "$T/bad/x.json" --window 2:1
expect 2 "bad --locations" "locations" -- "$UNPERTURB" export "$c10" --perfetto "$T/bad/x.json" --locations 1,x
expect 2 "unknown location: names it" "no location 99" -- "$UNPERTURB" export "$c10" --perfetto "$T/bad/x.json" --locations 99
expect 0 "--help" "" -- "$UNPERTURB" export --help
[ ! -e "$T/bad/x.json" ] && ok "failed runs write no output" || bad "failed runs write no output"
if find "$T" -name '*.tmp[.-]*' | grep -q .; then bad "no temporary file left" "$(find "$T" -name '*.tmp[.-]*')"; else ok "no temporary file left"; fi

echo "export: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
