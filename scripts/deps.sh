#!/bin/sh
# scripts/deps.sh TARGET... - checks the Debian packages unperturb needs for
# the make targets named (build, test, demo, bench; none means build) and
# installs the missing ones when run as root; otherwise prints the exact
# command to run and fails.  The Makefile runs it before it computes the
# packages' compiler flags (scripts/flags.sh), so that a fresh machine builds
# on the first try (scripts/fresh-machine.sh proves it).
#
#   build  the compiler, OTF2, jansson, inih, Open MPI (mpirun, headers), libdw,
#          LLVM's OpenMP runtime and its omp-tools.h (the tracer's OMPT tool)
#   demo   + otf2-print (the demo's closing hint)
#   test   + otf2-print, jq, mpif90 (gfortran), valgrind, headless chromium
#            and a font for report.html, python3, OTF2's Python bindings
#            (python3-otf2: tests/readers; it imports six but does not
#            depend on python3-six), pkill (procps)
#   bench  + otf2-print, jq, SimGrid's smpirun, python3
set -eu
[ $# -gt 0 ] || set -- build
need="gcc make pkg-config libopen-trace-format2-dev libjansson-dev libinih-dev libopenmpi-dev openmpi-bin libdw-dev libomp-14-dev"
for target in "$@"; do
    case $target in
        build) ;;
        test) need="$need otf2-tools jq gfortran valgrind chromium fonts-dejavu-core python3 python3-otf2 python3-six procps" ;;
        demo) need="$need otf2-tools" ;;
        bench) need="$need otf2-tools jq libsimgrid-dev python3" ;;
        *) echo "scripts/deps.sh: unknown target '$target' (build, test, demo, bench)" >&2; exit 2 ;;
    esac
done
missing=""
if command -v dpkg-query >/dev/null 2>&1; then
    for p in $need; do
        case " $missing " in *" $p "*) continue ;; esac
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
    done
else
    # not Debian: check what we can and leave the rest to the compiler
    pkg-config --exists otf2 jansson inih 2>/dev/null || missing=" (OTF2 3.x, jansson and inih development files)"
fi
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "unperturb: installing missing Debian packages:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
    echo "unperturb: installed$missing"
else
    echo "unperturb: missing Debian packages:$missing" >&2
    echo "unperturb: install them with:  sudo apt-get install$missing" >&2
    exit 1
fi
