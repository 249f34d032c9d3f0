#!/bin/sh
# Checks the Debian packages unperturb needs for a target (build, test, demo,
# bench) and installs the missing ones when run as root; otherwise prints the
# exact command to run and fails.
set -eu
target=${1:-build}
need="gcc make pkg-config libopen-trace-format2-dev libjansson-dev libinih-dev libopenmpi-dev openmpi-bin libdw-dev"
case $target in
    test) need="$need otf2-tools jq gfortran valgrind chromium fonts-dejavu-core python3" ;;
    demo) need="$need otf2-tools" ;;
    bench) need="$need otf2-tools libsimgrid-dev python3" ;;
esac
missing=""
if command -v dpkg-query >/dev/null 2>&1; then
    for p in $need; do
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
