#!/bin/sh
# bench/wildrecv.sh BUILD - a farm master's receive as its peers grow (issue
# 22, item 0): up-bench-wildrecv (bench/wildrecv.c) on NPS ranks, REPEAT
# times each; MPI_Recv from MPI_ANY_SOURCE against a named source, of a
# message already there, single calls timed (min and median ns).  More than
# 2 ranks share the 2 cores (--oversubscribe): single calls, not run times.
# Environment: NPS ("2 4 8 16"), REPEAT (3), MESSAGES (200 per peer).  Not a test.
set -eu
BUILD=${1:-build}
NPS=${NPS:-2 4 8 16}
REPEAT=${REPEAT:-3}
MESSAGES=${MESSAGES:-200}
BIN=$BUILD/bin/up-bench-wildrecv
[ -x "$BIN" ] || { echo "bench/wildrecv.sh: $BIN missing (make $BIN)" >&2; exit 1; }
ROOT=""
[ "$(id -u)" = 0 ] && ROOT=--allow-run-as-root
for np in $NPS; do
    i=0
    while [ $i -lt "$REPEAT" ]; do
        # oversubscribed, a run now and then crawls (rank 0 spins on one
        # core, the senders share the other): cut it off, say so, go on
        timeout 60 mpirun $ROOT --oversubscribe -np "$np" "$BIN" "$MESSAGES" ||
            echo "wildrecv: np=$np: no result within 60 s"
        i=$((i + 1))
    done
done
