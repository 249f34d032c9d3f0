#!/bin/sh
# scripts/real-traces.sh BUILD [DATA] - compensates every bundled real trace
# (tests/data/*/traces.otf2) in lower, upper and network mode and prints one
# Markdown row per trace and mode: records, measured and approximated run time,
# the repairs of the input and the model limits applied, and what up-check
# (tests/check) finds on the output.  The table in docs/accuracy.md comes from
# here.  O = 100 ns per record, network mode with S = 1000 ns.
set -eu
command -v python3 >/dev/null || { echo "scripts/real-traces.sh needs python3 (apt-get install python3)" >&2; exit 1; }
BUILD=${1:?usage: scripts/real-traces.sh BUILD [DATA]}
DATA=${2:-tests/data}
UP=${UNPERTURB:-$BUILD/bin/unperturb}
CHECK=$BUILD/bin/up-check
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo "| trace | mode | records | T_m (s) | T_a (s) | change | repairs | model limits | up-check |"
echo "|---|---|---|---|---|---|---|---|---|"
for d in "$DATA"/*/; do
    name=$(basename "$d")
    [ -f "$d/traces.otf2" ] || continue
    for mode in lower upper network; do
        extra=""
        [ "$mode" = network ] && extra="--latency-ns 1000"
        # shellcheck disable=SC2086
        "$UP" compensate "$d" -o "$TMP/out" --force -q --mode "$mode" --overhead-ns 100 $extra \
            --json "$TMP/s.json"
        chk=$("$CHECK" -q "$TMP/out" --against "$d" >/dev/null 2>&1 && echo ok || echo VIOLATIONS)
        python3 - "$TMP/s.json" "$name" "$mode" "$chk" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
rep = s["repairs"]
fix = ", ".join("%s %d" % (k, v) for k, v in sorted(rep.items()) if v and k not in
                ("min_transfer", "overhead_clamped", "output_clamped"))
lim = ", ".join("%s %d" % (k, v) for k, v in sorted(rep.items()) if v and k in
                ("min_transfer", "overhead_clamped", "output_clamped"))
tm, ta = s["measured_time_s"], s["approximated_time_s"]
print("| %s | %s | %d | %.6f | %.6f | %+.3f%% | %s | %s | %s |" % (
    sys.argv[2], sys.argv[3], s["events"], tm, ta, 100 * (ta - tm) / tm if tm else 0,
    fix or "none", lim or "none", sys.argv[4]))
PY
    done
done
