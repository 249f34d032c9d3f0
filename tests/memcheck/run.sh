#!/bin/sh
# tests/memcheck/run.sh BUILD - every command that reads a trace, under
# valgrind's memcheck, on every trace of tests/data: compensate in each mode
# (and with the poll rule off), estimate --compare, simulate on a machine with
# contention, report (HTML and JSON, and --against a compensated copy) and
# export.  Any use of an uninitialised value, invalid access or definite leak
# fails the run (--error-exitcode): the sanitizer build catches invalid
# accesses, but only memcheck sees a decision taken on uninitialised memory
# (issue 31: the direct path's records had no region flags).
# A control program that branches on an uninitialised value must be
# reported, so a broken valgrind line cannot pass everything.
set -u
BUILD=${1:-build}
UP=${UNPERTURB:-$BUILD/bin/unperturb}
DATA=${UNPERTURB_SRC:-.}/tests/data
MACHINE=${UNPERTURB_SRC:-.}/examples/machines/cluster.ini
command -v valgrind >/dev/null || { echo "memcheck: valgrind not found: apt-get install valgrind" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/unperturb-memcheck-XXXXXX")
trap 'rm -rf "$T"' EXIT
VG="valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite"
pass=0
fail=0

# the control: memcheck must see a branch on an uninitialised value
cat > "$T/uninit.c" <<'C'
#include <stdio.h>
int main(int argc, char **argv)
{
    int x[2];
    (void)argv;
    x[0] = argc;
    if (x[argc]) /* x[1]: never set */
        puts("set");
    return 0;
}
C
cc -O0 -g -o "$T/uninit" "$T/uninit.c"
if $VG --log-file="$T/control.log" "$T/uninit" >/dev/null 2>&1; then
    echo "FAIL  memcheck: the control's uninitialised branch was not reported"; exit 1
fi
grep -q "uninitialised" "$T/control.log" || { echo "FAIL  memcheck: no report for the control"; cat "$T/control.log"; exit 1; }
echo "ok    memcheck reports the control's uninitialised branch"

# the jobs, one per line: NAME<TAB>unperturb's arguments (no spaces inside one)
job() { # NAME -- ARGS...
    name=$1; shift 2
    printf '%s\t%s\n' "$name" "$*"
}
# one job (run by xargs, two at a time: the machine's two cores)
cat > "$T/run1.sh" <<'SH'
line=$1
name=$(printf '%s' "$line" | cut -f1)
args=$(printf '%s' "$line" | cut -f2)
log="$T/log.$(printf '%s' "$name" | tr -c 'A-Za-z0-9_-' '_')"
# shellcheck disable=SC2086
if $VG --log-file="$log.vg" "$UP" $args > "$log.out" 2>&1; then
    echo "ok    $name"
else
    echo "FAIL  $name (exit $?)"
    head -40 "$log.out" "$log.vg" | sed 's/^/      /'
fi
SH
export T VG UP
runall() { tr '\n' '\0' < "$1" | xargs -0 -n1 -P2 sh "$T/run1.sh" >> "$T/results"; }

: > "$T/results"
: > "$T/jobs1"
: > "$T/jobs2"
for d in "$DATA"/*/; do
    tr=$(basename "$d")
    o="$T/out/$tr"
    mkdir -p "$o"
    {
        for m in lower upper network; do
            job "$tr: compensate --mode $m" -- compensate "$d" -o "$o/comp-$m" --mode "$m" --overhead-ns 100 --json "$o/comp-$m.json" -q
        done
        job "$tr: compensate --polls local" -- compensate "$d" -o "$o/comp-local" --polls local --overhead-ns 100 -q
        job "$tr: estimate --compare" -- estimate "$d" --overhead-ns 100 --compare --per-location --json "$o/est.json" -q
        job "$tr: simulate" -- simulate "$d" --machine "$MACHINE" -o "$o/sim" --json "$o/sim.json" -q
        job "$tr: export" -- export "$d" --perfetto "$o/export.json" -q
    } >> "$T/jobs1"
    # after the first round: a report of the trace against its compensated copy
    job "$tr: report --against" -- report "$d" --against "$o/comp-network" -o "$o/report.html" --json "$o/report.json" -q >> "$T/jobs2"
done
runall "$T/jobs1"
runall "$T/jobs2"
cat "$T/results"
pass=$(grep -c '^ok' "$T/results")
fail=$(grep -c '^FAIL' "$T/results")
echo "memcheck: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
