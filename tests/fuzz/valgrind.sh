#!/bin/sh
# valgrind.sh BINDIR TARGET... - the OTF2 corpora under valgrind memcheck
# (make fuzz-valgrind): libotf2 is not built with sanitizers, so an invalid
# read inside it shows only here.  BINDIR holds the release build's replay
# runners (up-fuzz-<target>).  Extra folders of inputs: FUZZ_VALGRIND_DIRS.
set -eu
bin=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
for t in "$@"; do
    dirs=
    for d in corpus regressions; do
        [ -d "$here/$t/$d" ] && dirs="$dirs $here/$t/$d"
    done
    # shellcheck disable=SC2086
    valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
        --show-leak-kinds=definite "$bin/up-fuzz-$t" $dirs ${FUZZ_VALGRIND_DIRS:-}
done
echo "valgrind: no errors"
