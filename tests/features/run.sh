#!/bin/sh
# tests/features/run.sh BUILD - every MPI feature the tracer records, end to
# end: examples/features (see its header for what it does and the counts
# derived there) runs uninstrumented and traced on 2 and 4 ranks; the
# archive, read with otf2-print, must hold exactly the records the program
# made, per rank (counts computed here from the iteration and rank counts),
# every message matched, every nonblocking request completed inside a
# completion call, the nonblocking collectives with their operations and
# sizes, the attribute unperturb::wildcard on exactly the receives that
# named MPI_ANY_SOURCE or MPI_ANY_TAG, and the one-sided communication: the
# RmaWin definitions on their communicators, the RmaGroupSync levels and
# groups (world ranks, as Score-P), the RmaCollectiveEnd operations, every
# transfer completed locally once by its matching id (and remotely at most
# once, gets always), fence begin/end paired.  Then
# `unperturb compensate` in every mode must succeed and write an archive
# otf2-print reads, with every record and attribute kept.  A Fortran program
# checks the Fortran nonblocking collectives, wildcards and one-sided calls.
# $BUILD/bin/up-check (tests/check) must find no violation in any output.
set -eu
export LC_ALL=C # sort and awk: one byte order
BUILD=${1:-build}
UNPERTURB=${UNPERTURB:-$BUILD/bin/unperturb}
EX=$BUILD/examples/features
I=3 # iterations
T=$(mktemp -d /tmp/unperturb-features-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
ROOT=""
[ "$(id -u)" = 0 ] && ROOT=--allow-run-as-root
pass=0
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { pass=$((pass + 1)); echo "ok   $*"; }
[ -x "$EX" ] || fail "$EX is missing: run make first"
[ -x "$UNPERTURB" ] || fail "$UNPERTURB is missing: run make first"
[ -x "$BUILD/bin/up-check" ] || fail "$BUILD/bin/up-check is missing: run make $BUILD/bin/up-check"

# ---- what the trace must hold ---------------------------------------------------

# expected_counts NP: "KIND LOCATION COUNT" for every checked kind and rank
# (examples/features.c: per iteration, w = NP - 1 on rank 0, else 0)
expected_counts() {
    awk -v n="$1" -v I=$I 'BEGIN {
        for (l = 0; l < n; l++) {
            w = l == 0 ? n - 1 : 0
            print "MPI_ISEND", l, 7 * I
            print "MPI_ISEND_COMPLETE", l, 7 * I
            print "MPI_IRECV_REQUEST", l, (8 + w) * I
            print "MPI_IRECV", l, (7 + w) * I
            print "MPI_REQUEST_CANCELLED", l, I
            print "MPI_SEND", l, (4 + (l ? 2 : w)) * I
            print "MPI_RECV", l, (4 + (l ? 1 : w)) * I
            print "MPI_COLLECTIVE_BEGIN", l, 25 * I + 4
            print "MPI_COLLECTIVE_END", l, 25 * I + 4
            print "NON_BLOCKING_COLLECTIVE_REQUEST", l, 20 * I
            print "NON_BLOCKING_COLLECTIVE_COMPLETE", l, 20 * I
            # one-sided (section 9): three windows made and freed; per
            # iteration two fences, a PSCW epoch, three lock epochs
            print "RMA_WIN_CREATE", l, 3
            print "RMA_WIN_DESTROY", l, 3
            print "RMA_COLLECTIVE_BEGIN", l, 2 * I + 6
            print "RMA_COLLECTIVE_END", l, 2 * I + 6
            print "RMA_PUT", l, (2 + (l ? 1 : 0)) * I
            print "RMA_GET", l, 3 * I
            print "RMA_ATOMIC", l, 4 * I
            print "RMA_REQUEST_LOCK", l, 3 * I + 1
            print "RMA_RELEASE_LOCK", l, 3 * I + 1
            # as Score-P: one matching id per target and kind of completion
            # in an epoch (puts and atomics; gets), completed locally once
            # (RmaOpCompleteNonBlocking) and, for gets and at flushes and
            # unlocks, remotely (RmaOpCompleteRemote).  Fence epoch: the put
            # to the right and the accumulate into 0 (one id when the right
            # is 0; the get-accumulate shares it), the get from the left;
            # PSCW: the put (not rank 0); exclusive and shared lock: one
            # each; lock_all: the atomics at 0 (flushed locally, then
            # remotely) and the get (flushed)
            print "RMA_OP_COMPLETE_NON_BLOCKING", l, (6 + (l != n - 1) + (l ? 1 : 0)) * I
            print "RMA_OP_COMPLETE_REMOTE", l, 5 * I
        } }' | sort
}

counts() {
    awk '$1 ~ /^(MPI_ISEND|MPI_ISEND_COMPLETE|MPI_IRECV_REQUEST|MPI_IRECV|MPI_REQUEST_CANCELLED|MPI_SEND|MPI_RECV|MPI_COLLECTIVE_BEGIN|MPI_COLLECTIVE_END|NON_BLOCKING_COLLECTIVE_REQUEST|NON_BLOCKING_COLLECTIVE_COMPLETE|RMA_WIN_CREATE|RMA_WIN_DESTROY|RMA_COLLECTIVE_BEGIN|RMA_COLLECTIVE_END|RMA_PUT|RMA_GET|RMA_ATOMIC|RMA_REQUEST_LOCK|RMA_RELEASE_LOCK|RMA_OP_COMPLETE_NON_BLOCKING|RMA_OP_COMPLETE_REMOTE)$/ {
             c[$1 " " $2]++ }
         END { for (k in c) print k, c[k] }' "$1" | sort
}

# expected_rma NP: "LOCATION WHAT COUNT" of the RmaGroupSync records by
# level (MPI_Win_post/start: PROCESS; wait, complete: PROCESS and MEMORY;
# the failed MPI_Win_test of rank 0's loop in iteration 1, NONE, are counted
# apart) with the members (world ranks) of their group: rank 0 exposes to
# the others, listed in the order of the window's communicator (world
# reversed), the others access rank 0; and of the RmaCollectiveEnd records
# by operation
expected_rma() {
    awk -v n="$1" -v I=$I 'BEGIN {
        for (l = 0; l < n; l++) {
            m = ""
            if (l == 0) for (k = n - 1; k >= 1; k--) m = m (m == "" ? "" : ",") k
            else m = "0"
            print l, "SYNC_{PROCESS}_" m, I
            print l, "SYNC_{PROCESS,MEMORY}_" m, I
            print l, "COLL_BARRIER", 2 * I
            print l, "COLL_CREATE_HANDLE", 2
            print l, "COLL_CREATE_HANDLE_AND_ALLOCATE", 1
            print l, "COLL_DESTROY_HANDLE", 2
            print l, "COLL_DESTROY_HANDLE_AND_DEALLOCATE", 1
        } }' | sort
}

# rma TRACE DEFS: the same from a trace and its definitions (otf2-print -G),
# the groups' member lists read from the definitions; a group or window
# that is not defined shows as UNDEFINED
rma() {
    awk 'FNR == NR {
             if ($1 == "GROUP") { m = $0; sub(/.*Members?: /, "", m); s = ""
                 nf = split(m, t, " ")
                 for (i = 1; i <= nf; i++) if (t[i] ~ /^[0-9]+$/) s = s (s == "" ? "" : ",") t[i]
                 g[$2] = s }
             if ($1 == "RMA_WIN") w[$2] = 1
             next }
         $1 == "RMA_GROUP_SYNC" {
             lv = $0; sub(/.*Synchronicity: /, "", lv); sub(/,? Window:.*/, "", lv); gsub(/ /, "", lv)
             gr = $0; sub(/.*Group: "[^"]*" </, "", gr); sub(/>.*/, "", gr)
             if (!(gr in g)) gr = "UNDEFINED"; else gr = g[gr]
             if (lv == "{}" || lv == "NONE") { if ($2 != 0) print $2, "SYNC_NONE_on_a_rank_without_a_test_loop", 1; next }
             c[$2 " SYNC_" lv "_" gr]++ }
         $1 == "RMA_COLLECTIVE_END" {
             op = $0; sub(/.*Operation: /, "", op); sub(/,.*/, "", op)
             win = $0; sub(/.*Window: "[^"]*" </, "", win); sub(/>.*/, "", win)
             if (!(win in w)) op = op "_UNDEFINED_WINDOW"
             c[$2 " COLL_" op]++ }
         END { for (k in c) print k, c[k] }' "$2" "$1" | sort
}

# Every RmaPut/RmaGet/RmaAtomic is completed locally by exactly one
# RmaOpCompleteNonBlocking of its matching id on the same location, after it
# (transfers to one target in one epoch share an id, as in Score-P), and
# remotely by at most one RmaOpCompleteRemote, not before that; a get is
# completed remotely; no id is used again once completed; and
# RmaCollectiveBegin/End pair up inside one MPI call (no other begin
# between them)
check_rma() {
    awk '
    function id() { r = $0; sub(/.*Matching: /, "", r); sub(/[^0-9].*/, "", r); return $2 " " r }
    function bad(msg) { print msg ": " $0; err = 1 }
    $1 == "ENTER" { depth[$2]++; next }
    $1 == "LEAVE" { if (open_coll[$2]) bad("an MPI call left with an RmaCollectiveBegin open"); depth[$2]--; next }
    $1 == "RMA_PUT" || $1 == "RMA_GET" || $1 == "RMA_ATOMIC" {
        k = id(); if (k in local) bad("matching id used again after its completion")
        open_op[k] = 1; if ($1 == "RMA_GET") get[k] = 1; ops++; next }
    $1 == "RMA_OP_COMPLETE_NON_BLOCKING" {
        k = id(); if (!(k in open_op)) bad("local completion of no open transfer"); else if (k in local) bad("second local completion")
        local[k] = 1; nlocal++; next }
    $1 == "RMA_OP_COMPLETE_REMOTE" {
        k = id(); if (!(k in local)) bad("remote completion before the local one"); else if (k in remote) bad("second remote completion")
        remote[k] = 1; nremote++; next }
    $1 == "RMA_COLLECTIVE_BEGIN" { if (open_coll[$2]) bad("RmaCollectiveBegin inside another"); open_coll[$2] = 1; at[$2] = depth[$2]; next }
    $1 == "RMA_COLLECTIVE_END" { if (!open_coll[$2] || at[$2] != depth[$2]) bad("RmaCollectiveEnd without its begin in the same call"); open_coll[$2] = 0; npairs++; next }
    END { for (k in open_op) if (!(k in local)) { print "transfer never completed: location, matching id " k; err = 1 }
          for (k in get) if (!(k in remote)) { print "get never completed remotely: location, matching id " k; err = 1 }
          if (!err) printf "%d transfers, %d local and %d remote completions, %d collective pairs\n", ops, nlocal, nremote, npairs
          exit err }' "$1"
}

# expected_nbc NP: "LOCATION OPERATION SENT RECEIVED COUNT" of the
# NonBlockingCollectiveComplete records (ints: 4 bytes; half: the ranks of
# one parity)
expected_nbc() {
    awk -v n="$1" -v I=$I '
    function add(l, op, s, r) { c[l " " op " " s " " r] += I }
    BEGIN {
        for (l = 0; l < n; l++) {
            hn = l % 2 ? int(n / 2) : int((n + 1) / 2)
            add(l, "BARRIER", 0, 0); add(l, "BARRIER", 0, 0)
            add(l, "BCAST", l == 0 ? 4 * (n - 1) : 0, l == 0 ? 0 : 4)
            add(l, "ALLREDUCE", 4 * n, 4 * n); add(l, "ALLREDUCE", 4 * n, 4 * n)
            add(l, "ALLREDUCE", 4 * hn, 4 * hn)
            add(l, "REDUCE", 4, l == 0 ? 4 * n : 0)
            add(l, "SCAN", 4 * (n - l), 4 * (l + 1))
            add(l, "EXSCAN", 4 * (n - l - 1), 4 * l)
            add(l, "GATHER", 4, l == 0 ? 4 * n : 0)
            add(l, "GATHERV", 4, l == n - 1 ? 4 * n : 0)
            add(l, "SCATTER", l == 0 ? 4 * n : 0, 4)
            add(l, "SCATTERV", l == n - 1 ? 4 * n : 0, 4)
            split("ALLGATHER ALLGATHERV ALLTOALL ALLTOALLV ALLTOALLW REDUCE_SCATTER REDUCE_SCATTER_BLOCK", all)
            for (k in all) add(l, all[k], 4 * n, 4 * n)
        }
        for (k in c) print k, c[k] }' | sort
}

nbc() {
    awk '$1 == "NON_BLOCKING_COLLECTIVE_COMPLETE" {
             op = $0; sub(/.*Operation: /, "", op); sub(/,.*/, "", op)
             s = $0; sub(/.*Sent: /, "", s); sub(/,.*/, "", s)
             r = $0; sub(/.*Received: /, "", r); sub(/,.*/, "", r)
             c[$2 " " op " " s " " r]++ }
         END { for (k in c) print k, c[k] }' "$1" | sort
}

# expected_wildcards NP: "KIND LOCATION VALUE COUNT" of the receives with the
# attribute: Sendrecv_replace (ANY_SOURCE) everywhere; on rank 0 the MPI_Recv
# (ANY_SOURCE and ANY_TAG) and MPI_Irecv (ANY_SOURCE) of the master; on the
# others the MPI_Recv (ANY_TAG) of the master's answer
expected_wildcards() {
    awk -v n="$1" -v I=$I 'BEGIN {
        for (l = 0; l < n; l++) {
            print "MPI_RECV", l, 1, I
            if (l == 0) { print "MPI_RECV", l, 3, (n - 1) * I; print "MPI_IRECV", l, 1, (n - 1) * I }
            else print "MPI_RECV", l, 2, I
        } }' | sort
}

# "KIND LOCATION VALUE COUNT" of the records carrying unperturb::wildcard
# (otf2-print lists a record's attributes on the line after it)
wildcards() {
    awk '$1 == "ADDITIONAL" && /"unperturb::wildcard"/ {
             v = $0; sub(/.*"unperturb::wildcard" <[0-9]+>; UINT8; /, "", v); sub(/\).*/, "", v)
             c[last " " v]++; next }
         $2 ~ /^[0-9]+$/ { last = $1 " " $2 }
         END { for (k in c) print k, c[k] }' "$1" | sort
}

# every MPI_SEND/MPI_ISEND (sender, receiver, tag, length) has an
# MPI_RECV/MPI_IRECV with the same fields, and the reverse
check_matching() {
    awk '
    $1 == "MPI_SEND" || $1 == "MPI_ISEND" {
        for (i = 1; i <= NF; i++) { if ($i == "Receiver:") p = $(i+1); if ($i == "Tag:") t = $(i+1); if ($i == "Length:") n = $(i+1) }
        gsub(",", "", t); gsub(",", "", n); s[$2 "->" p " " t " " n]++ }
    $1 == "MPI_RECV" || $1 == "MPI_IRECV" {
        for (i = 1; i <= NF; i++) { if ($i == "Sender:") p = $(i+1); if ($i == "Tag:") t = $(i+1); if ($i == "Length:") n = $(i+1) }
        gsub(",", "", t); gsub(",", "", n); r[p "->" $2 " " t " " n]++ }
    END { bad = 0
        for (k in s) if (s[k] != r[k]) { print "unmatched send " k; bad = 1 }
        for (k in r) if (s[k] != r[k]) { print "unmatched receive " k; bad = 1 }
        exit bad }' "$1"
}

# Regions nest; every request is started inside an MPI_I* call and ended,
# once, inside an MPI_Wait* or MPI_Test* call (MpiRequestTest too); none is
# left open
check_requests() {
    awk '
    function req() { r = $0; sub(/.*Request: /, "", r); sub(/[^0-9].*/, "", r); return $2 " " r }
    function inside() { return d[$2] ? st[$2, d[$2]] : "" }
    function bad(msg) { print msg ": " $0; err = 1 }
    $1 == "ENTER" { st[$2, ++d[$2]] = $NF; nm[$2, d[$2]] = $(NF-1); next }
    $1 == "LEAVE" { if (!d[$2] || st[$2, d[$2]] != $NF) bad("bad LEAVE"); d[$2]--; next }
    $1 == "MPI_ISEND" || $1 == "MPI_IRECV_REQUEST" || $1 == "NON_BLOCKING_COLLECTIVE_REQUEST" {
        if (nm[$2, d[$2]] !~ /^"MPI_I/) bad("started outside an MPI_I* call")
        k = req(); if (k in open) bad("request started twice"); open[k] = 1; next }
    $1 == "MPI_ISEND_COMPLETE" || $1 == "MPI_IRECV" || $1 == "NON_BLOCKING_COLLECTIVE_COMPLETE" ||
    $1 == "MPI_REQUEST_CANCELLED" || $1 == "MPI_REQUEST_TEST" {
        if (nm[$2, d[$2]] !~ /^"MPI_(Wait|Test)/) bad("completed outside MPI_Wait*/MPI_Test*")
        k = req(); if (!(k in open)) bad("request not open")
        if ($1 != "MPI_REQUEST_TEST") delete open[k]; next }
    END { for (k in open) { print "request never completed: location, id " k; err = 1 }
          for (l in d) if (d[l]) { print "location " l ": " d[l] " regions left open"; err = 1 }
          exit err }' "$1"
}

# same FILE EXPECTED-FILE WHAT: the two listings agree, or show the difference
same() {
    cmp -s "$1" "$2" || { echo "observed ($1) against expected ($2):" >&2; diff "$1" "$2" >&2 || true; fail "$3"; }
}

# ---- C: examples/features on 2 and 4 ranks ------------------------------------------

for np in 2 4; do
    MPIRUN="mpirun $ROOT"
    [ $np -gt 2 ] && MPIRUN="$MPIRUN --oversubscribe"
    line="features: ranks=$np iterations=$I errors=0"
    $MPIRUN -np $np "$EX" $I > "$T/plain$np.out" || fail "features np=$np (uninstrumented) failed"
    grep -qx "$line" "$T/plain$np.out" || fail "features np=$np (uninstrumented): $(cat "$T/plain$np.out")"
    ok "uninstrumented on $np ranks: $line"

    tr=$T/tr$np
    # shellcheck disable=SC2086 # $MPIRUN is a command line
    $UNPERTURB trace -q -o "$tr" -- $MPIRUN -np $np "$EX" $I > "$T/tr$np.out" || fail "features np=$np traced failed"
    grep -qx "$line" "$T/tr$np.out" || fail "features np=$np traced: $(cat "$T/tr$np.out")"
    otf2-print "$tr/traces.otf2" > "$T/tr$np.txt" || fail "otf2-print of the np=$np trace"
    expected_counts $np > "$T/c$np.exp"
    counts "$T/tr$np.txt" > "$T/c$np.obs"
    same "$T/c$np.obs" "$T/c$np.exp" "np=$np: record counts"
    echo "     record counts per rank on $np ranks (kind: rank 0, rank 1, ...):"
    awk '{ c[$1] = c[$1] " " $3 } END { for (k in c) printf "       %s:%s\n", k, c[k] }' "$T/c$np.obs" | sort
    check_matching "$T/tr$np.txt" || fail "np=$np: messages do not match"
    check_requests "$T/tr$np.txt" || fail "np=$np: requests or regions"
    expected_nbc $np > "$T/n$np.exp"
    nbc "$T/tr$np.txt" > "$T/n$np.obs"
    same "$T/n$np.obs" "$T/n$np.exp" "np=$np: nonblocking collectives (operation, sizes)"
    ok "traced on $np ranks: exact counts, messages matched, requests completed in completion calls, nonblocking collectives' operations and sizes"

    otf2-print -G "$tr/traces.otf2" > "$T/g$np.txt" || fail "otf2-print -G of the np=$np trace"
    [ "$(grep -c '^RMA_WIN .*Flags: {CREATE_DESTROY_EVENTS}' "$T/g$np.txt")" = 3 ] ||
        fail "np=$np: not the three RmaWin definitions"
    grep -q '^RMA_WIN .*"MPI_Win_create_window".*Communicator: "Comm [0-9]*"' "$T/g$np.txt" ||
        fail "np=$np: the MPI_Win_create window is not on its communicator (rev)"
    [ "$(grep -c '^RMA_WIN .*"MPI_Win_\(allocate\|create_dynamic\)_window".*Communicator: "MPI_COMM_WORLD"' "$T/g$np.txt")" = 2 ] ||
        fail "np=$np: the MPI_Win_allocate and _create_dynamic windows are not on MPI_COMM_WORLD"
    expected_rma $np > "$T/r$np.exp"
    rma "$T/tr$np.txt" "$T/g$np.txt" > "$T/r$np.obs"
    same "$T/r$np.obs" "$T/r$np.exp" "np=$np: RmaGroupSync levels and groups, RmaCollectiveEnd operations"
    rmasum=$(check_rma "$T/tr$np.txt") || { echo "$rmasum" >&2; fail "np=$np: RMA transfers, completions or collectives"; }
    ok "traced on $np ranks: one-sided: windows defined on their communicators, groups of world ranks, $rmasum"

    otf2-print -G "$tr/traces.otf2" | grep -q '^ATTRIBUTE .*Name: "unperturb::wildcard".*Type: UINT8' ||
        fail "np=$np: no definition of the attribute unperturb::wildcard"
    wildcards "$T/tr$np.txt" > "$T/w$np.obs"
    expected_wildcards $np > "$T/w$np.exp"
    same "$T/w$np.obs" "$T/w$np.exp" "np=$np: wildcard attributes"
    ok "traced on $np ranks: unperturb::wildcard on exactly the $(awk '{ s += $4 } END { print s }' "$T/w$np.obs") wildcard receives"

    events=$(grep -c '^[A-Z_]* *[0-9][0-9]* ' "$T/tr$np.txt")
    for mode in lower upper network; do
        out=$T/comp$np-$mode
        $UNPERTURB compensate "$tr" -o "$out" --mode $mode > "$out.log" 2>&1 ||
            { cat "$out.log" >&2; fail "compensate --mode $mode of the np=$np trace"; }
        otf2-print "$out/traces.otf2" > "$out.txt" || fail "otf2-print of the np=$np $mode output"
        e=$(grep -c '^[A-Z_]* *[0-9][0-9]* ' "$out.txt")
        [ "$e" = "$events" ] || fail "np=$np $mode: $e records in the output, $events in the input"
        wildcards "$out.txt" > "$out.w"
        same "$out.w" "$T/w$np.obs" "np=$np $mode: the output's wildcard attributes"
        repairs=$(sed -n 's/^ *repairs *//p' "$out.log")
        ok "compensate --mode $mode, $np ranks: $e records and their attributes kept; repairs: ${repairs:-none}"
        if "$BUILD/bin/up-check" "$out" --against "$tr" > "$out.check" 2>&1; then
            ok "up-check: $(tail -n 1 "$out.check")"
        else
            sed 's/^/       /' "$out.check"
            fail "np=$np $mode: up-check found violations in the output"
        fi
    done
    # re-matching the wildcard receives: every one of them is seen (the
    # JSON's count equals the attributes otf2-print shows), and the output,
    # whose receives may name other senders now, is still consistent
    nwild=$(awk '$1 == "MPI_RECV" || $1 == "MPI_IRECV" { s += $4 } END { print s + 0 }' "$T/w$np.obs")
    for w in fifo lifo; do
        out=$T/comp$np-$w
        $UNPERTURB compensate "$tr" -o "$out" --wildcard $w --json "$out.json" > "$out.log" 2>&1 ||
            { cat "$out.log" >&2; fail "compensate --wildcard $w of the np=$np trace"; }
        got=$(jq .wildcard_receives "$out.json")
        [ "$got" = "$nwild" ] || fail "np=$np --wildcard $w: $got wildcard receives seen, $nwild in the trace"
        otf2-print "$out/traces.otf2" > "$out.txt" || fail "otf2-print of the np=$np --wildcard $w output"
        check_matching "$out.txt" || fail "np=$np --wildcard $w: messages do not match"
        if "$BUILD/bin/up-check" "$out" --against "$tr" > "$out.check" 2>&1; then
            ok "--wildcard $w, $np ranks: $(jq .rematched_receives "$out.json") of $got wildcard receives re-matched; up-check: $(tail -n 1 "$out.check")"
        else
            sed 's/^/       /' "$out.check"
            fail "np=$np --wildcard $w: up-check found violations in the output"
        fi
    done
done

# ---- Fortran: the nonblocking collectives and wildcard receives ------------------------
if command -v mpif90 > /dev/null 2>&1; then
    cat > "$T/fnb.f90" <<'EOF'
program fnb
    use mpi
    implicit none
    integer :: ierr, rank, n, i, x, y, z, req(8), c1(64), d(64), db(64), ty(64)
    integer :: a(64), b(64), c(64), s(8), st(MPI_STATUS_SIZE), win, wg, g
    integer, volatile :: wbuf(2)
    integer(kind=MPI_ADDRESS_KIND) :: wsize, disp0, disp1
    call MPI_INIT(ierr)
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    call MPI_COMM_SIZE(MPI_COMM_WORLD, n, ierr)
    do i = 1, n
        c1(i) = 1; d(i) = i - 1; db(i) = 4 * (i - 1); ty(i) = MPI_INTEGER; b(i) = 100 * rank + i
    end do
    x = rank + 1
    s(1) = 7
    call MPI_IBARRIER(MPI_COMM_WORLD, req(1), ierr)
    call MPI_IBCAST(s(1), 1, MPI_INTEGER, 0, MPI_COMM_WORLD, req(2), ierr)
    call MPI_IALLREDUCE(x, s(2), 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req(3), ierr)
    call MPI_IREDUCE(x, s(3), 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, req(4), ierr)
    call MPI_ISCAN(x, s(4), 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req(5), ierr)
    call MPI_IEXSCAN(x, s(5), 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req(6), ierr)
    call MPI_WAITALL(6, req, MPI_STATUSES_IGNORE, ierr)
    if (s(1) /= 7 .or. s(2) /= n * (n + 1) / 2 .or. s(4) /= x * (x + 1) / 2) stop 1
    call MPI_IGATHER(x, 1, MPI_INTEGER, a, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, req(1), ierr)
    call MPI_IGATHERV(x, 1, MPI_INTEGER, c, c1, d, MPI_INTEGER, 0, MPI_COMM_WORLD, req(2), ierr)
    call MPI_ISCATTER(b, 1, MPI_INTEGER, y, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, req(3), ierr)
    call MPI_ISCATTERV(b, c1, d, MPI_INTEGER, z, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, req(4), ierr)
    call MPI_WAITALL(4, req, MPI_STATUSES_IGNORE, ierr)
    if (y /= rank + 1 .or. z /= rank + 1) stop 2
    call MPI_IALLGATHER(x, 1, MPI_INTEGER, a, 1, MPI_INTEGER, MPI_COMM_WORLD, req(1), ierr)
    call MPI_IALLGATHERV(x, 1, MPI_INTEGER, c, c1, d, MPI_INTEGER, MPI_COMM_WORLD, req(2), ierr)
    call MPI_WAITALL(2, req, MPI_STATUSES_IGNORE, ierr)
    if (a(n) /= n .or. c(n) /= n) stop 3
    call MPI_IALLTOALL(b, 1, MPI_INTEGER, a, 1, MPI_INTEGER, MPI_COMM_WORLD, req(1), ierr)
    call MPI_IALLTOALLV(b, c1, d, MPI_INTEGER, c, c1, d, MPI_INTEGER, MPI_COMM_WORLD, req(2), ierr)
    call MPI_WAIT(req(1), MPI_STATUS_IGNORE, ierr)
    call MPI_WAIT(req(2), MPI_STATUS_IGNORE, ierr)
    call MPI_IALLTOALLW(b, c1, db, ty, a, c1, db, ty, MPI_COMM_WORLD, req(1), ierr)
    call MPI_WAIT(req(1), MPI_STATUS_IGNORE, ierr)
    call MPI_IREDUCE_SCATTER(b, y, c1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req(1), ierr)
    call MPI_IREDUCE_SCATTER_BLOCK(b, z, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req(2), ierr)
    call MPI_WAITALL(2, req, MPI_STATUSES_IGNORE, ierr)
    if (y /= z) stop 4
    ! wildcards: rank 0 takes one message of each other rank from any source
    ! (MPI_RECV), then one more with any tag (MPI_IRECV)
    if (rank == 0) then
        do i = 1, n - 1
            call MPI_RECV(y, 1, MPI_INTEGER, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, st, ierr)
            call MPI_IRECV(z, 1, MPI_INTEGER, st(MPI_SOURCE), MPI_ANY_TAG, MPI_COMM_WORLD, req(1), ierr)
            call MPI_WAIT(req(1), MPI_STATUS_IGNORE, ierr)
            if (z /= 10 * y) stop 5
        end do
    else
        call MPI_SEND(rank, 1, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, ierr)
        call MPI_SEND(10 * rank, 1, MPI_INTEGER, 0, 6, MPI_COMM_WORLD, ierr)
    end if
    ! one-sided: a fence epoch with a put to the right, a PSCW epoch (rank 0
    ! exposes its window to rank 1, which puts), a shared lock with a get
    ! from the left (wbuf is VOLATILE: MPI writes it behind the compiler)
    wsize = 8
    disp0 = 0
    disp1 = 1
    wbuf = -1
    call MPI_WIN_CREATE(wbuf, wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    call MPI_WIN_FENCE(0, win, ierr)
    x = 100 + rank
    call MPI_PUT(x, 1, MPI_INTEGER, mod(rank + 1, n), disp0, 1, MPI_INTEGER, win, ierr)
    call MPI_WIN_FENCE(MPI_MODE_NOSUCCEED, win, ierr)
    if (wbuf(1) /= 100 + mod(rank + n - 1, n)) stop 6
    call MPI_COMM_GROUP(MPI_COMM_WORLD, wg, ierr)
    if (rank == 0) then
        call MPI_GROUP_INCL(wg, 1, [1], g, ierr)
        call MPI_WIN_POST(g, 0, win, ierr)
        call MPI_WIN_WAIT(win, ierr)
        if (wbuf(2) /= 201) stop 7
        call MPI_GROUP_FREE(g, ierr)
    else if (rank == 1) then
        call MPI_GROUP_INCL(wg, 1, [0], g, ierr)
        call MPI_WIN_START(g, 0, win, ierr)
        x = 201
        call MPI_PUT(x, 1, MPI_INTEGER, 0, disp1, 1, MPI_INTEGER, win, ierr)
        call MPI_WIN_COMPLETE(win, ierr)
        call MPI_GROUP_FREE(g, ierr)
    end if
    call MPI_GROUP_FREE(wg, ierr)
    call MPI_WIN_LOCK(MPI_LOCK_SHARED, mod(rank + n - 1, n), 0, win, ierr)
    call MPI_GET(y, 1, MPI_INTEGER, mod(rank + n - 1, n), disp0, 1, MPI_INTEGER, win, ierr)
    call MPI_WIN_UNLOCK(mod(rank + n - 1, n), win, ierr)
    if (y /= 100 + mod(rank + 2 * n - 2, n)) stop 8
    call MPI_WIN_FREE(win, ierr)
    if (rank == 0) print '(a)', 'fnb: ok'
    call MPI_FINALIZE(ierr)
end program fnb
EOF
    mpif90 -O1 -o "$T/fnb" "$T/fnb.f90" || fail "mpif90 fnb.f90"
    $UNPERTURB trace -q -o "$T/f" -- mpirun $ROOT -np 2 "$T/fnb" > "$T/f.out" || fail "fnb traced failed"
    grep -qx "fnb: ok" "$T/f.out" || fail "fnb traced: $(cat "$T/f.out")"
    otf2-print "$T/f/traces.otf2" > "$T/f.txt" || fail "otf2-print of the Fortran trace"
    check_requests "$T/f.txt" || fail "Fortran: requests or regions"
    check_matching "$T/f.txt" || fail "Fortran: messages do not match"
    printf '%s\n' "0 BARRIER 0 0" "0 BCAST 4 0" "0 ALLREDUCE 8 8" "0 REDUCE 4 8" "0 SCAN 8 4" \
        "0 EXSCAN 4 0" "0 GATHER 4 8" "0 GATHERV 4 8" "0 SCATTER 8 4" "0 SCATTERV 8 4" \
        "1 BARRIER 0 0" "1 BCAST 0 4" "1 ALLREDUCE 8 8" "1 REDUCE 4 0" "1 SCAN 4 8" \
        "1 EXSCAN 0 4" "1 GATHER 4 0" "1 GATHERV 4 0" "1 SCATTER 0 4" "1 SCATTERV 0 4" \
        | sed 's/$/ 1/' > "$T/fn.exp"
    for l in 0 1; do
        for op in ALLGATHER ALLGATHERV ALLTOALL ALLTOALLV ALLTOALLW REDUCE_SCATTER REDUCE_SCATTER_BLOCK; do
            echo "$l $op 8 8 1"
        done
    done >> "$T/fn.exp"
    sort -o "$T/fn.exp" "$T/fn.exp"
    nbc "$T/f.txt" > "$T/fn.obs"
    same "$T/fn.obs" "$T/fn.exp" "Fortran: nonblocking collectives (operation, sizes)"
    wildcards "$T/f.txt" > "$T/fw.obs"
    printf '%s\n' "MPI_IRECV 0 2 1" "MPI_RECV 0 1 1" | sort > "$T/fw.exp"
    same "$T/fw.obs" "$T/fw.exp" "Fortran: wildcard attributes"
    # one-sided: rank 0 puts once (fence), rank 1 twice (fence, PSCW); each
    # completes locally its fence put, rank 1 its PSCW put, both their get
    # (unlock), which is also completed remotely
    counts "$T/f.txt" | grep '^RMA_' > "$T/fr.obs"
    for l in 0 1; do
        printf '%s\n' "RMA_WIN_CREATE $l 1" "RMA_WIN_DESTROY $l 1" "RMA_COLLECTIVE_BEGIN $l 4" \
            "RMA_COLLECTIVE_END $l 4" "RMA_PUT $l $((1 + l))" "RMA_GET $l 1" \
            "RMA_OP_COMPLETE_NON_BLOCKING $l $((2 + l))" "RMA_OP_COMPLETE_REMOTE $l 1" \
            "RMA_REQUEST_LOCK $l 1" "RMA_RELEASE_LOCK $l 1"
    done | sort > "$T/fr.exp"
    same "$T/fr.obs" "$T/fr.exp" "Fortran: one-sided record counts"
    otf2-print -G "$T/f/traces.otf2" > "$T/fg.txt" || fail "otf2-print -G of the Fortran trace"
    rma "$T/f.txt" "$T/fg.txt" > "$T/fs.obs"
    printf '%s\n' "0 SYNC_{PROCESS}_1 1" "0 SYNC_{PROCESS,MEMORY}_1 1" "1 SYNC_{PROCESS}_0 1" \
        "1 SYNC_{PROCESS,MEMORY}_0 1" "0 COLL_BARRIER 2" "1 COLL_BARRIER 2" "0 COLL_CREATE_HANDLE 1" \
        "1 COLL_CREATE_HANDLE 1" "0 COLL_DESTROY_HANDLE 1" "1 COLL_DESTROY_HANDLE 1" | sort > "$T/fs.exp"
    same "$T/fs.obs" "$T/fs.exp" "Fortran: RmaGroupSync groups, RmaCollectiveEnd operations"
    rmasum=$(check_rma "$T/f.txt") || { echo "$rmasum" >&2; fail "Fortran: RMA transfers, completions or collectives"; }
    ok "Fortran on 2 ranks: the 17 nonblocking collectives (operations, sizes), wildcard receives, one-sided ($rmasum)"
else
    echo "SKIP Fortran: no mpif90"
fi

echo "features tests: $pass passed"
