#!/bin/sh
# replay.sh BINDIR TARGET... - the regression test of the fuzz targets
# (make test, make fuzz-replay): every file of tests/fuzz/<target>/corpus
# and tests/fuzz/<target>/regressions once through BINDIR/up-fuzz-<target>,
# a plain main() around the target (no libFuzzer), built with gcc under
# ASan and UBSan.  Fails on the first sanitizer report or broken invariant.
set -eu
bin=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
: "${ASAN_OPTIONS:=detect_leaks=1:abort_on_error=1}"
: "${UBSAN_OPTIONS:=print_stacktrace=1:halt_on_error=1}"
export ASAN_OPTIONS UBSAN_OPTIONS
for t in "$@"; do
    dirs=
    for d in corpus regressions; do
        [ -d "$here/$t/$d" ] && dirs="$dirs $here/$t/$d"
    done
    [ -n "$dirs" ] || { echo "replay.sh: no inputs for $t" >&2; exit 1; }
    # a hang is a failure too (10 minutes: far beyond any input's seconds)
    # shellcheck disable=SC2086
    st=0
    timeout 600 "$bin/up-fuzz-$t" $dirs || st=$?
    [ $st -eq 124 ] && echo "replay.sh: up-fuzz-$t did not finish in 600 s: an input hangs" >&2
    [ $st -eq 0 ] || exit 1
done
