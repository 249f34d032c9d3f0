#!/bin/sh
# tests/tracer/valgrind.sh BUILD - the preloaded tracer under valgrind
# (memcheck): real MPI programs (C and Fortran, with and without --cpu-time)
# traced on 2 ranks with every rank running under valgrind.  Any invalid
# access, use of uninitialised memory or definite leak is an error; Open MPI's
# own are suppressed (Open MPI's openmpi-valgrind.supp and
# tests/tracer/openmpi-leaks.supp, which only match stacks passing through
# Open MPI's libraries).  A control program that leaks 100 bytes itself must
# be reported, so the suppressions cannot hide a leak of ours.
# (An AddressSanitizer tracer cannot be preloaded into programs built without
# it; tests/tracer/run.sh runs the UBSan build.)
set -eu
BUILD=${1:-build}
UNPERTURB=${UNPERTURB:-$BUILD/bin/unperturb}
command -v valgrind >/dev/null || { echo "valgrind.sh: valgrind not found: apt-get install valgrind" >&2; exit 1; }
T=$(mktemp -d /tmp/unperturb-valgrind-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
ROOT=""
[ "$(id -u)" = 0 ] && ROOT=--allow-run-as-root
SUPP=/usr/share/openmpi/openmpi-valgrind.supp
VG="valgrind -q --log-file=$T/vg.%p.log --error-exitcode=99 --leak-check=full \
    --show-leak-kinds=definite --errors-for-leak-kinds=definite \
    --suppressions=tests/tracer/openmpi-leaks.supp"
[ -f "$SUPP" ] && VG="$VG --suppressions=$SUPP"
pass=0
fail() { echo "FAIL: $*" >&2; cat "$T"/*.out >&2 2>/dev/null; for f in "$T"/vg.*.log; do [ -s "$f" ] && head -40 "$f" >&2; done; exit 1; }
ok() { pass=$((pass + 1)); echo "ok   $*"; }

mpicc -O1 -g -o "$T/c_prog" tests/tracer/c_prog.c
mpif90 -O1 -g -o "$T/f_prog" tests/tracer/f_prog.f90
mpicc -O1 -g -pthread -o "$T/c_threads" tests/tracer/c_threads.c
cc -O1 -g -pthread -o "$T/c_cond" tests/tracer/c_cond.c
cc -O1 -g -pthread -o "$T/pth_semaphore" examples/threads/pth_semaphore.c
cat > "$T/leak.c" <<'C'
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
static void *volatile keep;
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    keep = memset(malloc(100), 1, 100);
    keep = NULL; /* 100 bytes definitely lost */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
C
mpicc -O0 -g -o "$T/leak" "$T/leak.c"

# vgrun NAME [trace options] -- PROGRAM: exit status of the traced run
vgrun() {
    name=$1
    shift
    rm -f "$T"/vg.*.log
    # shellcheck disable=SC2086
    $UNPERTURB trace -q -o "$T/run-$name" "$@" > "$T/$name.out" 2>&1
}

for prog in c_prog f_prog; do
    for opt in "" --cpu-time; do
        # shellcheck disable=SC2086
        vgrun "$prog$opt" $opt -- mpirun $ROOT -np 2 $VG "$T/$prog" || fail "$prog $opt under valgrind"
        otf2-print "$T/run-$prog$opt/traces.otf2" > /dev/null || fail "$prog $opt: archive not readable"
        ok "$prog ${opt:-(default)} on 2 ranks under valgrind: no errors, no leaks of ours"
    done
done

# shellcheck disable=SC2086
# worker threads that record (a location each; tests/tracer/run.sh)
vgrun c_threads -- mpirun $ROOT -np 2 $VG "$T/c_threads" || fail "c_threads under valgrind"
otf2-print "$T/run-c_threads/traces.otf2" > /dev/null || fail "c_threads: archive not readable"
ok "c_threads (MPI from 2 worker threads) on 2 ranks under valgrind: no errors, no leaks of ours"

# without MPI: the tracer from its constructor to its destructor, the
# POSIX-thread wrappers (condition variables, recursive and remade mutexes,
# semaphores)
for prog in "c_cond 50" "pth_semaphore -n 200 -w 100 -y"; do
    set -- $prog
    vgrun "$1" -- $VG "$T/$@" || fail "$1 (no MPI) under valgrind"
    otf2-print "$T/run-$1/traces.otf2" > /dev/null || fail "$1: archive not readable"
    ok "$1 (threads, no MPI) under valgrind: no errors, no leaks of ours"
done

if vgrun leak -- mpirun $ROOT -np 2 $VG "$T/leak"; then
    fail "the control program's leak was not reported"
fi
grep -q "100 bytes in 1 blocks are definitely lost" "$T"/vg.*.log || fail "control leak: wrong report"
ok "a leak outside Open MPI is reported (the suppressions hide only Open MPI's)"
echo "valgrind tests: $pass passed"
