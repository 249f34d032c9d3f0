#!/bin/sh
# regress.sh FUZZDIR TARGET... - every file of tests/fuzz/<target>/corpus
# and regressions once through the libFuzzer binary FUZZDIR/bin/fuzz-<target>
# (clang: its UBSan checks more than gcc's, e.g. arithmetic on NULL).
# make fuzz-regress; make test runs it when clang has libFuzzer.
set -eu
fz=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
: "${ASAN_OPTIONS:=detect_leaks=1}"
: "${UBSAN_OPTIONS:=print_stacktrace=1:halt_on_error=1}"
export ASAN_OPTIONS UBSAN_OPTIONS
mkdir -p "$fz/logs"
for t in "$@"; do
    list=$(mktemp)
    for d in corpus regressions; do
        [ -d "$here/$t/$d" ] && find "$here/$t/$d" -type f >>"$list"
    done
    n=$(wc -l <"$list")
    # file arguments: libFuzzer runs each once and stops at the first failure
    if ! sort "$list" | xargs "$fz/bin/fuzz-$t" -timeout=120 >"$fz/logs/regress-$t.log" 2>&1; then
        tail -40 "$fz/logs/regress-$t.log"
        rm -f "$list"
        echo "regress.sh: $t failed (log: $fz/logs/regress-$t.log)" >&2
        exit 1
    fi
    rm -f "$list"
    echo "$fz/bin/fuzz-$t: $n inputs replayed"
done
