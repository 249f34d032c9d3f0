#!/bin/sh
# run.sh FUZZDIR TARGET... - make fuzz: runs each libFuzzer target of
# FUZZDIR/bin for FUZZ_TIME seconds (default 120), one after the other,
# and prints executions, speed and coverage per target at the end.
#
# Inputs: tests/fuzz/<target>/corpus and regressions (read only); new inputs
# go to FUZZDIR/corpus/<target>, crashes to FUZZDIR/artifacts/<target>/,
# the log to FUZZDIR/logs/<target>.log.  FUZZ_ARGS adds libFuzzer options
# (e.g. FUZZ_ARGS=-jobs=2).  Exits 1 if a target found a crash.
set -eu
fz=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
time=${FUZZ_TIME:-120}
: "${ASAN_OPTIONS:=detect_leaks=1}"
: "${UBSAN_OPTIONS:=print_stacktrace=1:halt_on_error=1}"
export ASAN_OPTIONS UBSAN_OPTIONS
mkdir -p "$fz/logs"
rows=
failed=0
for t in "$@"; do
    corpus=$fz/corpus/$t
    art=$fz/artifacts/$t
    log=$fz/logs/$t.log
    mkdir -p "$corpus" "$art"
    case $t in
        otf2|analysis) dict=-dict=$here/otf2.dict ;;
        calibration|machine|experiment) dict=-dict=$here/ini.dict ;;
        *) dict= ;;
    esac
    seeds=
    for d in corpus regressions; do
        [ -d "$here/$t/$d" ] && seeds="$seeds $here/$t/$d"
    done
    echo "fuzz: $t for ${time}s (log: $log)"
    before=$(ls "$art" | wc -l)
    # shellcheck disable=SC2086
    "$fz/bin/fuzz-$t" "$corpus" $seeds $dict -max_total_time="$time" -print_final_stats=1 \
        -rss_limit_mb=2048 -timeout=10 -artifact_prefix="$art/" ${FUZZ_ARGS:-} >"$log" 2>&1 || true
    after=$(ls "$art" | wc -l)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    last=$(grep -E '^#[0-9]+' "$log" | tail -1)
    cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
    corp=$(echo "$last" | sed -n 's/.*corp: \([0-9]*\/[0-9]*[a-zA-Z]*\).*/\1/p')
    crashes=$((after - before))
    [ "$crashes" -eq 0 ] || failed=1
    rows="$rows$(printf '%-12s %12s %8s %7s %7s %14s %8s' "$t" "${execs:-?}" "${speed:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$crashes")
"
done
printf '\n%-12s %12s %8s %7s %7s %14s %8s\n' target executions exec/s cov ft corpus crashes
printf '%s' "$rows"
if [ "$failed" -ne 0 ]; then
    echo "fuzz: crashes in $fz/artifacts/ (tests/fuzz/README.md: how to turn one into a regression)"
    exit 1
fi
