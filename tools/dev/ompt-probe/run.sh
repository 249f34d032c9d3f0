#!/bin/sh
# tools/dev/ompt-probe/run.sh [OUTDIR] - what OMPT callbacks LLVM's libomp
# delivers for one OpenMP program (cover.c) built with clang -fopenmp (on
# libomp, natively) and with gcc -fopenmp (on libomp in libgomp's place),
# counted by the OMPT tool probe.c and printed side by side (issue 36,
# item 2; docs/tracer-openmp.md holds the results).
#
# Columns:
#   clang         clang -fopenmp, libomp as it links it
#   gcc-link      gcc -fopenmp, a folder holding libgomp.so.1 -> libomp first
#                 on LD_LIBRARY_PATH (what `unperturb trace` does)
#   gcc-preload   gcc -fopenmp, LD_PRELOAD of libomp (libgomp is loaded too)
#   gcc-libgomp   gcc -fopenmp on its own libgomp: no OMPT, so no counts
# Before the table: libomp's GOMP_ entry points and version nodes, counted
# in its dynamic symbol table, against libgomp's.
#
# Environment: UNPERTURB_LIBOMP (the libomp to use; default: the newest
# /usr/lib/llvm-N/lib/libomp.so.5), CC_GCC, CC_CLANG.  Writes into OUTDIR
# (default: a temporary folder, removed at the end) the tool, the programs
# and each run's counts (NAME.txt).  Measures nothing in time: counts only.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
CC_GCC=${CC_GCC:-gcc}
CC_CLANG=${CC_CLANG:-clang}
if [ $# -ge 1 ]; then
    T=$1
    mkdir -p "$T"
else
    T=$(mktemp -d "${TMPDIR:-/tmp}/ompt-probe-XXXXXX")
    trap 'rm -rf "$T"' EXIT INT TERM
fi

LIBOMP=${UNPERTURB_LIBOMP:-$(printf '%s\n' /usr/lib/llvm-*/lib/libomp.so.5 | sort -V | tail -n 1)}
if [ ! -r "$LIBOMP" ]; then
    echo "run.sh: no libomp.so.5 (install libomp5-14, or set UNPERTURB_LIBOMP)" >&2
    exit 1
fi
GOMP=$("$CC_GCC" -print-file-name=libgomp.so.1)
case $GOMP in /*) ;; *) GOMP=$(ldconfig -p | sed -n 's/.*libgomp.so.1 .*=> //p' | head -n 1) ;; esac
# clang's own headers (omp-tools.h); with gcc after gcc's own (-idirafter)
INC=$("$CC_CLANG" -print-resource-dir 2>/dev/null)/include
[ -r "$INC/omp-tools.h" ] || INC=$(dirname "$(printf '%s\n' /usr/lib/llvm-*/lib/clang/*/include/omp-tools.h | sort -V | tail -n 1)")

echo "libomp:  $LIBOMP"
echo "libgomp: $GOMP"
echo "omp-tools.h: $INC/omp-tools.h"

# ---- libomp's GOMP_ entry points, from its dynamic symbol table ----
defined() { readelf -W --dyn-syms "$1" | awk '$7 != "UND" && NF >= 8 { print $8 }'; }
defined "$LIBOMP" >"$T/libomp.syms"
defined "$GOMP" >"$T/libgomp.syms"
echo
echo "libomp dynamic symbols named GOMP_*: $(grep -c '^GOMP_' "$T/libomp.syms") entries" \
    "($(grep '^GOMP_' "$T/libomp.syms" | grep -c '@@') default, $(grep '^GOMP_' "$T/libomp.syms" | grep '@' | grep -vc '@@') in a" \
    "GOMP_x version node, $(grep '^GOMP_' "$T/libomp.syms" | grep -vc '@') version-node symbols;" \
    "$(grep '^GOMP_' "$T/libomp.syms" | sed 's/@.*//' | sort -u | grep -vc '^GOMP_[0-9]') distinct functions)"
vnodes() { readelf -W -V "$1" | sed -n '/Version definition/,/Version needs/p' | sed -n 's/.*Name: \([A-Z_]*[0-9][0-9.]*\)$/\1/p' | sort -V; }
echo "libomp version nodes:  $(vnodes "$LIBOMP" | tr '\n' ' ')"
echo "libgomp version nodes (OpenMP): $(vnodes "$GOMP" | grep -E '^G?OMP_' | tr '\n' ' ')"
norm() { sed 's/@@*/@/' "$1" | grep -E '^(GOMP|omp|kmp)_' | grep '@' | grep -Ev '^GOMP_[0-9.]*@' | sort -u; }
norm "$T/libomp.syms" >"$T/libomp.norm"
norm "$T/libgomp.syms" >"$T/libgomp.norm"
echo "libgomp GOMP_/omp_ symbols (with version) libomp lacks: $(comm -13 "$T/libomp.norm" "$T/libgomp.norm" | wc -l)"
echo "  GOMP_*: $(comm -13 "$T/libomp.norm" "$T/libgomp.norm" | grep '^GOMP_' | grep -v '^GOMP_PLUGIN_' | tr '\n' ' ')"
echo "  and $(comm -13 "$T/libomp.norm" "$T/libgomp.norm" | grep -c '^GOMP_PLUGIN_') GOMP_PLUGIN_* (libgomp's offload plugins' interface, which programs do not call)"
echo "  omp_* (not the Fortran _8_ forms): $(comm -13 "$T/libomp.norm" "$T/libgomp.norm" | grep '^omp_' | grep -vc '_8_@')" \
    "and $(comm -13 "$T/libomp.norm" "$T/libgomp.norm" | grep -c '_8_@') omp_*_8_ Fortran entry points"

# ---- build ----
"$CC_GCC" -std=c11 -O2 -g -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden -idirafter "$INC" \
    -o "$T/probe.so" "$here/probe.c"
"$CC_GCC" -O2 -g -Wall -Wextra -Werror -fopenmp -o "$T/cover-gcc" "$here/cover.c"
"$CC_CLANG" -O2 -g -Wall -Wextra -Werror -fopenmp -o "$T/cover-clang" "$here/cover.c"
mkdir -p "$T/gomp"
ln -sf "$(readlink -f "$LIBOMP")" "$T/gomp/libgomp.so.1"

# ---- runs ----
run() { # NAME ENV... PROGRAM
    name=$1
    shift
    rm -f "$T/$name.txt"
    env OMPT_PROBE_OUT="$T/$name.txt" "$@" >"$T/$name.out" 2>&1 || { echo "run.sh: $name failed:" >&2; cat "$T/$name.out" >&2; exit 1; }
    [ -e "$T/$name.txt" ] || : >"$T/$name.txt"
    echo "$name: $(cat "$T/$name.out")"
}
echo
run clang LD_PRELOAD="$T/probe.so" "$T/cover-clang"
run gcc-link LD_LIBRARY_PATH="$T/gomp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" LD_PRELOAD="$T/probe.so" "$T/cover-gcc"
run gcc-preload LD_PRELOAD="$LIBOMP:$T/probe.so" "$T/cover-gcc"
run gcc-libgomp LD_PRELOAD="$T/probe.so" "$T/cover-gcc"
echo "runtime: $(sed -n 's/^runtime //p' "$T/clang.txt")"
echo

# ---- the table: one row per callback/kind/endpoint, a column per run ----
awk '
BEGIN { # every run a column, also one without counts (an empty file)
    for (run = 1; run < ARGC; run++) {
        col[ARGV[run]] = run
        name[run] = ARGV[run]; sub(/.*\//, "", name[run]); sub(/\.txt$/, "", name[run])
    }
    run = ARGC - 1
}
/^runtime / { next }
{
    key = $1; for (i = 2; i < NF; i++) key = key " " $i
    if (!(key in seen)) { seen[key] = 1; order[++n] = key }
    val[col[FILENAME], key] = $NF
}
END {
    printf "%-52s", "callback kind endpoint"
    for (r = 1; r <= run; r++) printf " %12s", name[r]
    printf "\n"
    for (k = 1; k <= n; k++) {
        printf "%-52s", order[k]
        for (r = 1; r <= run; r++) printf " %12s", ((r, order[k]) in val) ? val[r, order[k]] : "-"
        printf "\n"
    }
}' "$T/clang.txt" "$T/gcc-link.txt" "$T/gcc-preload.txt" "$T/gcc-libgomp.txt"
