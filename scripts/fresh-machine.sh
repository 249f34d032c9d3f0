#!/bin/sh
# scripts/fresh-machine.sh - proves that the README's two commands work on the
# first run on a fresh Debian 12 machine that has only git, make and gcc.
# It builds a minimal Debian 12 root with debootstrap (minbase + git, make,
# gcc), copies it afresh, clones the repository's HEAD into /root/unperturb
# (a clean clone: uncommitted files stay out), and runs `make demo` and then
# `make test` there as root, through chroot, in a mount and PID namespace of
# their own (/proc, /sys, /dev, /dev/pts and a /dev/shm for Open MPI and
# Chromium).  Both install the packages they need themselves (scripts/deps.sh).
# Before them, `make demo` run by a user who is not root must stop with the
# exact `sudo apt-get install ...` line and compile nothing.
#
#   scripts/fresh-machine.sh [-k] [-r REV] [TARGET...]
#
#   TARGET  make targets run one after the other (default: demo test)
#   -r REV  the commit to clone (default: HEAD)
#   -k      keep the root and the logs (their folder is printed)
#
# Needs root and debootstrap (installed when missing).  The bootstrapped base
# is cached as a tarball, keyed by suite, mirror and package list, for 30
# days under FRESH_CACHE (default /var/cache/unperturb-fresh; remove it to
# bootstrap anew); every run unpacks a fresh copy of it under FRESH_WORK (default
# /var/tmp), so nothing an earlier run installed leaks in.  Other knobs:
# FRESH_MIRROR, FRESH_SECURITY (archive URLs), FRESH_SHM (/dev/shm size, 2g).
# Prints the time of every step; on failure, the step that failed and the
# tail of its log, and exits 1.  The mounts are undone when the script ends,
# however it ends (Ctrl-C included): they live in the namespace, which dies
# with it, and with them every process the run left behind.
set -eu
SUITE=bookworm
INCLUDE=git,make,gcc
MIRROR=${FRESH_MIRROR:-http://deb.debian.org/debian}
SECURITY=${FRESH_SECURITY:-http://deb.debian.org/debian-security}
CACHE=${FRESH_CACHE:-/var/cache/unperturb-fresh}
SHM=${FRESH_SHM:-2g}
ME=fresh-machine
say() { echo "$ME: $*"; }
die() { echo "$ME: $*" >&2; exit 1; }
now() { date +%s; }

# step NAME COMMAND...: runs one step (errors end it), records its name for
# the report of a failure or an interruption, and its time and exit status;
# its log, if it has one, is $LOGS/NAME.log
step() {
    name=$1
    shift
    echo "$name" > "$LOGS/step"
    t0=$(now)
    set +e
    (set -e; "$@")
    rc=$?
    set -e
    echo "$name $(($(now) - t0)) $rc" >> "$LOGS/times"
    [ "$rc" = 0 ] || exit 1
}

# ---- inside the namespace: mount, run the targets, unmount ----------------------
# usage: fresh-machine.sh --inside ROOT LOGS TARGET...   (run by the outer part)
in_root() {
    chroot "$R" /usr/bin/env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/sh \
        TERM="${TERM:-dumb}" PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}

unmount_all() {
    # every mount below the root, deepest first
    awk -v r="$R/" 'index($5 "/", r) == 1 {print $5}' /proc/self/mountinfo | sort -r |
    while read -r m; do umount "$m" 2>/dev/null || umount -l "$m" || true; done
}

mount_all() {
    mount -t proc proc "$R/proc"                 # of this PID namespace
    mount -t sysfs sysfs "$R/sys"                # hwloc (Open MPI) reads the topology
    mount --bind /dev "$R/dev"
    mount --make-private "$R/dev"
    mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts "$R/dev/pts"
    mount --bind "$R/dev/pts/ptmx" "$R/dev/ptmx"
    mount -t tmpfs -o "mode=1777,size=$SHM" shm "$R/dev/shm"
}

# a user who is not root gets the exact apt-get line, and nothing is built
nonroot() {
    say "== make demo as a user (not root): must stop with the apt-get line"
    in_root sh -c 'cp -a /root/unperturb /tmp/nonroot && chown -R nobody: /tmp/nonroot'
    set +e
    chroot --userspec=nobody:nogroup "$R" /usr/bin/env -i HOME=/tmp PATH=/usr/bin:/bin \
        sh -c 'cd /tmp/nonroot && make demo' > "$LOGS/nonroot.log" 2>&1
    rc=$?
    set -e
    cat "$LOGS/nonroot.log"
    in_root rm -rf /tmp/nonroot
    want="unperturb: install them with:  sudo apt-get install pkg-config libopen-trace-format2-dev"
    want="$want libjansson-dev libinih-dev libopenmpi-dev openmpi-bin libdw-dev libomp-14-dev otf2-tools"
    if [ "$rc" = 0 ] || ! grep -qxF "$want" "$LOGS/nonroot.log" || grep -q ' -c ' "$LOGS/nonroot.log"; then
        echo "$ME: expected a failure with the line: $want" >&2
        return 1
    fi
}

make_target() { # TARGET: as root in the root's clone, shown and logged
    say "== make $1 (in the fresh root, as root, first run)"
    # (the left side of the pipe runs under set -e: a bare failing command
    # would end it before its status is written, and the previous target's
    # 0 would be read; the status is written in every case, and none is 1)
    echo 1 > "$LOGS/rc"
    { rc=0; in_root sh -c "cd /root/unperturb && exec make $1" 2>&1 || rc=$?; echo "$rc" > "$LOGS/rc"; } |
        tee "$LOGS/make-$1.log"
    return "$(cat "$LOGS/rc")"
}

inside() {
    R=$1 LOGS=$2
    shift 2
    trap 'unmount_all' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    step mounts mount_all
    step nonroot nonroot
    for target in "$@"; do
        step "make-$target" make_target "$target"
    done
}

if [ "${1:-}" = --inside ]; then
    shift
    inside "$@"
    exit 0
fi

# ---- outside: the base root, a fresh copy, the clone, the namespace ------------
KEEP=0 REV=HEAD
while getopts kr: o; do
    case $o in
        k) KEEP=1 ;;
        r) REV=$OPTARG ;;
        *) echo "usage: $0 [-k] [-r REV] [TARGET...]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- demo test
TARGETS=$*

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mount)"
SELF=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
REPO=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
COMMIT=$(git -C "$REPO" rev-parse --verify "$REV^{commit}") || die "no commit $REV in $REPO"
KEY=$(printf '%s\n' "$SUITE" minbase "$INCLUDE" "$MIRROR" "$SECURITY" "$(dpkg --print-architecture)" base-2 |
      sha256sum | cut -c1-16)
BASE=$CACHE/debian12-minbase-$KEY.tar
WORK=$(mktemp -d "${FRESH_WORK:-/var/tmp}/unperturb-fresh.XXXXXX")
R=$WORK/root
LOGS=$WORK/logs
mkdir -p "$R" "$LOGS"
: > "$LOGS/times"
echo setup > "$LOGS/step"
INTERRUPTED=

summary() {
    say "steps (seconds):"
    awk '{ printf "  %-18s %6d%s\n", $1, $2, $3 != 0 ? "   exit " $3 : "" }' "$LOGS/times"
}

finish() {
    rc=$?
    trap - EXIT INT TERM
    rm -f "$BASE.tmp.$$"
    if [ "$rc" != 0 ]; then
        failed=$(cat "$LOGS/step")
        if [ -z "$INTERRUPTED" ] && [ -f "$LOGS/$failed.log" ]; then
            echo "---- last 40 lines of $failed's log:" >&2
            tail -n 40 "$LOGS/$failed.log" >&2
        fi
        summary >&2
        if [ -n "$INTERRUPTED" ]; then
            echo "$ME: INTERRUPTED by $INTERRUPTED during step '$failed' (commit $COMMIT)" >&2
        else
            echo "$ME: FAILED at step '$failed' (commit $COMMIT)" >&2
        fi
    else
        summary
        say "passed: make $TARGETS, each on its first run, on a fresh Debian 12 root (commit $COMMIT)"
    fi
    if grep -qF " $R/" /proc/self/mountinfo; then
        echo "$ME: something is still mounted below $R; not removing it" >&2
    elif [ "$KEEP" = 1 ]; then
        echo "$ME: kept the root and the logs in $WORK" >&2
    elif [ "$rc" != 0 ]; then
        rm -rf --one-file-system "$R" "$WORK/base"
        echo "$ME: logs kept in $LOGS" >&2
    else
        rm -rf --one-file-system "$WORK"
    fi
    exit "$rc"
}
trap finish EXIT
trap 'INTERRUPTED=SIGINT; exit 130' INT
trap 'INTERRUPTED=SIGTERM; exit 143' TERM

need_debootstrap() {
    command -v debootstrap > /dev/null 2>&1 && return 0
    say "installing debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq > /dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap > /dev/null
}

# the base: debootstrap's minbase with git, make and gcc, apt's sources as the
# Debian installer writes them, no downloaded .deb left; cached as a tarball
bootstrap() {
    need_debootstrap
    mkdir -p "$CACHE"
    b=$WORK/base
    say "debootstrap $SUITE (minbase + $INCLUDE) from $MIRROR into the cache $BASE"
    debootstrap --variant=minbase --include="$INCLUDE" "$SUITE" "$b" "$MIRROR" > "$LOGS/base.log" 2>&1
    cat > "$b/etc/apt/sources.list" <<EOF
deb $MIRROR $SUITE main
deb $MIRROR $SUITE-updates main
deb $SECURITY $SUITE-security main
EOF
    chroot "$b" apt-get clean
    rm -rf "$b/var/lib/apt/lists/"*
    tar -C "$b" -cf "$BASE.tmp.$$" .
    mv "$BASE.tmp.$$" "$BASE"
    rm -rf --one-file-system "$b"
}
base() { # cached for 30 days: a fresh machine has the current point release
    if [ -n "$(find "$BASE" -mtime -30 2>/dev/null)" ]; then
        say "base root: $BASE (cached)"
    else
        bootstrap
    fi
}

# the network as an installed machine has it: the name server, and the host
# name in /etc/hosts as the Debian installer writes it (without it, every
# mpirun waits seconds for the resolver to give up on the name)
copy() {
    tar -C "$R" -xf "$BASE"
    cp /etc/resolv.conf "$R/etc/resolv.conf"
    h=$(hostname)
    hostname > "$R/etc/hostname"
    printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n\n::1\tlocalhost ip6-localhost ip6-loopback\n' "$h" > "$R/etc/hosts"
}

clone() {
    say "cloning $REPO at $COMMIT into the root's /root/unperturb"
    git clone -q --no-hardlinks "$REPO" "$R/root/unperturb"
    git -C "$R/root/unperturb" checkout -q --detach "$COMMIT"
    git -C "$R/root/unperturb" status --porcelain --ignored | grep -q . && die "the clone is not clean"
    return 0
}

step base base
step copy copy
step clone clone
# a mount and PID namespace: the mounts, and every process the run leaves,
# end with it
unshare --mount --propagation private --pid --fork --kill-child \
    "$SELF" --inside "$R" "$LOGS" "$@"
