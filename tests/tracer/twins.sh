#!/bin/sh
# tests/tracer/twins.sh BUILD - every generated Fortran wrapper writes the
# records of its C twin, and some sizes are the ones worked out by hand.
#
# tests/tracer/twins.c calls, on 3 ranks, each generated call from C and
# then through its Fortran symbol with the same arguments, inside the
# manual regions "C NAME" and "F NAME".  Here, from the otf2-print listing:
#  - every row that tools/dev/gen-mpi-wrappers.sh --list names (the
#    generated rows of src/trace/mpi_calls.def, with the Fortran-only
#    _cptr twins) has its pair, so a new row cannot escape the test
#    (twins.c must call it), and the C half entered the call's region;
#  - on every rank the two halves of every pair hold the same records, but
#    for timestamps, request and matching ids and window ids (renumbered in
#    the order they appear in each half);
#  - the sizes of some collectives, computed by hand below, so that a wrong
#    rule in the table, which both twins would share, fails too.
# TWINS_LISTING=FILE checks a listing already made (no run).
set -eu
export LC_ALL=C
BUILD=${1:-build}
UNPERTURB=${UNPERTURB:-$BUILD/bin/unperturb}
T=$(mktemp -d /tmp/unperturb-twins-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
ROOT=""
[ "$(id -u)" = 0 ] && ROOT=--allow-run-as-root
fail() { echo "FAIL: $*" >&2; exit 1; }

if [ -n "${TWINS_LISTING:-}" ]; then
    cp "$TWINS_LISTING" "$T/twins.txt"
else
    mpicc -O1 -g -Iinclude -o "$T/twins" tests/tracer/twins.c -lmpi_mpifh
    $UNPERTURB trace -q -o "$T/run" -- mpirun --oversubscribe $ROOT -np 3 "$T/twins" > "$T/out" ||
        { cat "$T/out"; fail "twins: the traced run failed"; }
    otf2-print "$T/run/traces.otf2" > "$T/twins.txt"
fi
tools/dev/gen-mpi-wrappers.sh --list > "$T/calls"
[ -s "$T/calls" ] || fail "twins: the generator lists no calls"

# the halves: "LOC<TAB>NAME<TAB>LANG<TAB>record" lines, normalised
awk '
$2 !~ /^[0-9]+$/ { next }
{
    loc = $2; $3 = ""; line = $0
    if ($1 == "ENTER" && match(line, /Region: "[CF] [^"]*"/)) {
        s = substr(line, RSTART + 9, RLENGTH - 10)
        if (loc in open_) { print "nested halves on " loc > "/dev/stderr"; exit 1 }
        open_[loc] = 1; lang[loc] = substr(s, 1, 1); name[loc] = substr(s, 3)
        half[loc]++; nid[loc] = 0; nwin[loc] = 0 # ids are numbered per half
        next
    }
    if ($1 == "LEAVE" && match(line, /Region: "[CF] [^"]*"/)) {
        delete open_[loc]
        print loc "\t" name[loc] "\t" lang[loc] "\t(end)"
        next
    }
    if (!(loc in open_)) next
    # ids: Request: N, Matching: N, Window: "..." <N>
    out = ""
    while (match(line, /(Request|Matching): [0-9]+|Window: "[^"]*" <[0-9]+>/)) {
        tok = substr(line, RSTART, RLENGTH)
        if (tok ~ /^Window/) {
            k = tok; sub(/.*</, "", k); sub(/>/, "", k)
            if (!((loc, half[loc], k) in wins)) wins[loc, half[loc], k] = ++nwin[loc]
            rep = tok; sub(/<[0-9]+>/, "<w" wins[loc, half[loc], k] ">", rep)
        } else {
            k = tok; sub(/.*: /, "", k)
            if (!((loc, half[loc], k) in ids)) ids[loc, half[loc], k] = ++nid[loc]
            rep = tok; sub(/[0-9]+$/, "r" ids[loc, half[loc], k], rep)
        }
        out = out substr(line, 1, RSTART - 1) rep
        line = substr(line, RSTART + RLENGTH)
    }
    print loc "\t" name[loc] "\t" lang[loc] "\t" out line
}' "$T/twins.txt" > "$T/halves" || fail "twins: cannot split the listing into pairs"

# every generated call, and its _cptr twin, has a pair whose C half entered it
while read -r call cls cptr; do
    for nm in "$call" ${cptr:+"$call/cptr"}; do
        grep -q "^[0-9]*	$nm	C	ENTER [0-9]* *Region: \"$call\"" "$T/halves" ||
            fail "twins: no pair for $nm ($cls) that enters $call: add it to tests/tracer/twins.c"
        grep -q "^[0-9]*	$nm	F	" "$T/halves" || fail "twins: $nm has no Fortran half"
    done
done < "$T/calls"

# the halves of each pair are equal, per rank
awk -F'\t' '{ k = $1 "\t" $2; h[k, $3] = h[k, $3] "\n  " $4; keys[k] = 1 }
END {
    bad = 0; n = 0
    for (k in keys) {
        n++
        if (h[k, "C"] != h[k, "F"]) {
            split(k, p, "\t")
            printf "rank %s, %s: the Fortran wrapper records differently\nC:%s\nFortran:%s\n", p[1], p[2], h[k, "C"], h[k, "F"]
            bad = 1
        }
    }
    if (!bad) printf "ok   twins: %d halves equal (pairs x ranks)\n", n
    exit bad
}' "$T/halves" || fail "twins: C and Fortran records differ"

# sizes worked out by hand: NAME RANK SENT RECEIVED, of the pair's C half
# (n = 3, MPI_INT 4 bytes; twins.c has the arguments)
while read -r nm r s rcv; do
    case "$nm" in ""|\#*) continue ;; esac
    grep "^$r	$nm	C	" "$T/halves" | grep -q "^[^	]*	[^	]*	.	\(MPI_COLLECTIVE_END\|NON_BLOCKING_COLLECTIVE_COMPLETE\) .*Sent: $s, Received: $rcv\(,\|$\)" ||
        { grep "^$r	$nm	C	" "$T/halves" | grep -i collective >&2 || true
          fail "twins: $nm on rank $r: not Sent: $s, Received: $rcv"; }
done <<'EOF'
# Bcast, root 0, 5 ints: the root sends 20 B to each of 2 others
MPI_Bcast 0 40 0
MPI_Bcast 1 0 20
MPI_Bcast 2 0 20
MPI_Ibcast 0 40 0
MPI_Ibcast 2 0 20
# Reduce_scatter, counts {1,2,3}: each sends all 6 ints (24 B) and gets its
# block (me+1 ints) from each of the 3 ranks; in place it sends nothing
MPI_Reduce_scatter 0 24 12
MPI_Reduce_scatter 1 24 24
MPI_Reduce_scatter 2 24 36
MPI_Ireduce_scatter 2 24 36
MPI_Reduce_scatter/inplace 1 0 24
# Alltoallv: each sends 1+2+3 ints, rank i gets i+1 ints from each of 3
MPI_Alltoallv 0 24 12
MPI_Alltoallv 1 24 24
MPI_Alltoallv 2 24 36
MPI_Ialltoallv 1 24 24
MPI_Alltoallw 2 24 36
# Gatherv to root 1: rank i sends i+1 ints, the root gets 1+2+3
MPI_Gatherv 0 4 0
MPI_Gatherv 1 8 24
MPI_Gatherv 2 12 0
MPI_Igatherv 1 8 24
# Gather of 2 ints to root 2, whose own block is in place
MPI_Gather/inplace 2 0 24
MPI_Gather/inplace 0 8 0
# Scatterv from root 0: 1+2+3 ints, rank i gets i+1
MPI_Scatterv 0 24 4
MPI_Scatterv 2 0 12
# Allreduce of 2 ints, in place: nothing sent, 3 contributions received
MPI_Allreduce/inplace 1 0 24
MPI_Allreduce 1 24 24
# Scan of 2 ints: rank i sends to the 3-i ranks from i on, gets i+1; Exscan one fewer
MPI_Scan 0 24 8
MPI_Scan 2 8 24
MPI_Exscan 0 16 0
MPI_Exscan 2 0 16
EOF
echo "ok   twins: $(wc -l < "$T/calls") generated calls, each C and Fortran, and the sizes by hand"
