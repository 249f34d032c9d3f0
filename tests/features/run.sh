#!/bin/sh
# tests/features/run.sh BUILD - every MPI feature the tracer records, end to
# end: examples/features (see its header for what it does and the counts
# derived there) runs uninstrumented and traced on 2 and 4 ranks; the
# archive, read with otf2-print, must hold exactly the records the program
# made, per rank (counts computed here from the iteration and rank counts),
# every message matched, every nonblocking request completed inside a
# completion call, the nonblocking collectives with their operations and
# sizes, and the attribute unperturb::wildcard on exactly the receives that
# named MPI_ANY_SOURCE or MPI_ANY_TAG.  Then `unperturb compensate` in
# every mode must succeed and write an archive otf2-print reads, with every
# record and attribute kept.  A Fortran program checks the Fortran nonblocking collectives.
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
            print "MPI_COLLECTIVE_BEGIN", l, 24 * I + 3
            print "MPI_COLLECTIVE_END", l, 24 * I + 3
            print "NON_BLOCKING_COLLECTIVE_REQUEST", l, 20 * I
            print "NON_BLOCKING_COLLECTIVE_COMPLETE", l, 20 * I
        } }' | sort
}

counts() {
    awk '$1 ~ /^(MPI_ISEND|MPI_ISEND_COMPLETE|MPI_IRECV_REQUEST|MPI_IRECV|MPI_REQUEST_CANCELLED|MPI_SEND|MPI_RECV|MPI_COLLECTIVE_BEGIN|MPI_COLLECTIVE_END|NON_BLOCKING_COLLECTIVE_REQUEST|NON_BLOCKING_COLLECTIVE_COMPLETE)$/ {
             c[$1 " " $2]++ }
         END { for (k in c) print k, c[k] }' "$1" | sort
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
    integer :: a(64), b(64), c(64), s(8), st(MPI_STATUS_SIZE)
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
    ok "Fortran on 2 ranks: the 17 nonblocking collectives (operations, sizes), wildcard receives"
else
    echo "SKIP Fortran: no mpif90"
fi

echo "features tests: $pass passed"
