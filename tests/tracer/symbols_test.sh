#!/bin/sh
# Builds tests/tracer/symbols_test.c with src/tracer/symbols.c and funcs.c
# alone (stubs stand in for tracer.c; no MPI library is linked) and runs both
# of its modes in four builds:
#   plain     -O2, as a Debian PIE executable
#   san       -O1 with ASan (leak checking on) and UBSan
#   inst      the tracer's own files built with -finstrument-functions too:
#             the hooks must neither recurse nor record themselves
#   vg        the plain build (DWARF 4) under valgrind, when it is installed
# Exits non-zero on the first failure.  Needs libdw-dev (pkg-config libdw)
# and the MPI and OTF2 headers that upt.h includes.
set -eu
cd "$(dirname "$0")/../.."

CC=${CC:-gcc}
if ! pkg-config --exists libdw; then
    echo "symbols_test.sh: libdw not found: apt-get install libdw-dev" >&2
    exit 1
fi
MPI_CFLAGS=$(pkg-config --cflags ompi-c 2>/dev/null || pkg-config --cflags mpich 2>/dev/null ||
             mpicc --showme:compile 2>/dev/null || true)
OTF2_CFLAGS=$(pkg-config --cflags otf2 2>/dev/null || true)
DW_CFLAGS=$(pkg-config --cflags libdw)
DW_LIBS=$(pkg-config --libs libdw)
WARN="-Wall -Wextra -Wshadow -Wconversion -Wstrict-prototypes -Wmissing-prototypes -Wno-sign-conversion -Werror"
BASE="-std=c11 -D_GNU_SOURCE -Iinclude -Isrc -g $WARN $MPI_CFLAGS $OTF2_CFLAGS $DW_CFLAGS"
SAN="-O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# build NAME FLAGS LIBRARY_FLAGS: FLAGS for every file, LIBRARY_FLAGS for
# symbols.c and funcs.c; the test itself is always instrumented.
build() {
    # shellcheck disable=SC2086
    {
        $CC $BASE $2 $3 -c src/tracer/symbols.c -o "$out/$1-symbols.o"
        $CC $BASE $2 $3 -c src/tracer/funcs.c -o "$out/$1-funcs.o"
        $CC $BASE $2 -finstrument-functions -c tests/tracer/symbols_test.c -o "$out/$1-test.o"
        $CC $2 -o "$out/$1" "$out/$1-test.o" "$out/$1-funcs.o" "$out/$1-symbols.o" $DW_LIBS -lpthread
    }
}

# run NAME [COMMAND PREFIX...]
run() {
    name=$1
    shift
    echo "== $name${1:+ (under $1)}"
    for mode in "" thread; do
        # shellcheck disable=SC2086
        if ! TMPDIR=$out "$@" "$out/$name" $mode; then
            echo "symbols_test.sh: FAIL: $name${mode:+ $mode}" >&2
            exit 1
        fi
    done
}

build plain "-O2" ""
run plain

build san "$SAN" ""
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    run san

build inst "-O2" "-finstrument-functions"
run inst

if command -v valgrind >/dev/null 2>&1; then
    # DWARF 4: valgrind 3.19 gives up on the DWARF 5 that clang 14 writes
    build vg "-O2 -gdwarf-4" ""
    run vg valgrind -q --error-exitcode=1 --leak-check=full \
        --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect
else
    echo "symbols_test.sh: valgrind not installed, skipped"
fi
echo "symbols_test.sh: all passed"
