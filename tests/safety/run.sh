#!/bin/sh
# tests/safety/run.sh BUILD - outputs are complete or absent, inputs are never
# written (docs/cli.md, "Exit codes and guarantees"):
#   - no output (-o, --json, --perfetto, report's -o) may be, hold or lie
#     inside an input: the trace's folder with traces.otf2, traces.def and
#     traces/*.evt, --calibration, --machine, --against; also through a
#     symbolic link and with --force: exit 2 naming both, the input unchanged;
#   - an existing output, --json included, is replaced only with --force;
#   - compensate, simulate and export killed by SIGINT, SIGTERM, SIGHUP,
#     SIGQUIT and SIGPIPE while they write: the signal's exit status and no
#     output, no temporary left; the temporary is named NAME.tmp-HOST-PID;
#   - stale temporaries of this host whose process is gone and that are older
#     than a few minutes are removed next to an output; no other;
#   - a full disk and a read-only file system (tmpfs, needs root): one line
#     "cannot write 'PATH': <the system's reason>", nothing left, and a failed
#     --json takes the archive written before it along.
#
#   UNPERTURB=build/san/bin/unperturb tests/safety/run.sh build
# BUILD holds up-bench-gen.
set -u
export LC_ALL=C
BUILD=${1:-build}
UNPERTURB=${UNPERTURB:-$BUILD/bin/unperturb}
case $UNPERTURB in /*) ;; *) UNPERTURB=$(pwd)/$UNPERTURB ;; esac
SRC=${UNPERTURB_SRC:-.}
DATA=$SRC/tests/data
GEN=$BUILD/bin/up-bench-gen
for x in "$UNPERTURB" "$GEN"; do
    [ -x "$x" ] || { echo "FAIL: $x is missing: run make first" >&2; exit 1; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/unperturb-safety-XXXXXX")
cleanup() {
    for m in "$T/full" "$T/ro"; do mountpoint -q "$m" 2>/dev/null && umount "$m"; done
    rm -rf "$T"
}
trap cleanup EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); printf 'ok    %s\n' "$1"; }
bad() { fail=$((fail + 1)); printf 'FAIL  %s\n' "$1"; [ $# -gt 1 ] && printf '%s\n' "$2" | head -n 12 | sed 's/^/      /'; }
UP() { "$UNPERTURB" "$@"; }
# expect CODE NAME CMD...: runs CMD, keeps its stderr in $T/err
expect() {
    want=$1 name=$2
    shift 2
    "$@" > "$T/out" 2> "$T/err"
    got=$?
    if [ "$got" -eq "$want" ]; then ok "$name"; else bad "$name" "exit $got, wanted $want: $(head -c 400 "$T/err")"; fi
}
# err_has NAME STRING: the last command's stderr holds STRING (fixed string)
err_has() {
    if grep -qF -- "$2" "$T/err"; then ok "$1"; else bad "$1" "stderr lacks \"$2\": $(head -c 400 "$T/err")"; fi
}
HOST=$(uname -n | tr -c 'A-Za-z0-9._\n-' '_')
PP=$T/pp
sums() { (cd "$PP" && find . -type f -exec md5sum {} + | sort); }
# fresh_pp: a pristine copy of the input, so that one broken case does not
# hide the next
fresh_pp() { rm -rf "$PP" && cp -r "$DATA/pipit-ping-pong" "$PP"; }
fresh_pp
sums > "$T/pp.sums"
unchanged() {
    if sums | cmp -s - "$T/pp.sums"; then ok "$1: the input is unchanged"; else bad "$1: the input is unchanged"; fi
    fresh_pp
}

# ---- no output over an input ---------------------------------------------------
# (issue 19: estimate --json pp/traces.otf2 and report -o destroyed the anchor
# with exit 0; export --perfetto IN/traces/0.evt -f and -o IN/traces --force
# deleted or overwrote the input)
refused() { # NAME CMD...: exit 2, both paths named, input unchanged, nothing new
    what=$1
    shift
    ls -A "$T" > "$T/ls.before"
    expect 2 "$what: refused (exit 2)" "$@"
    err_has "$what: names the input" "$PP"
    grep -q "refusing to write" "$T/err" && ok "$what: says why" || bad "$what: says why" "$(cat "$T/err")"
    ls -A "$T" > "$T/ls.after"
    grep -v -e '^err$' -e '^out$' -e '^ls\.' "$T/ls.before" > "$T/ls.b"
    grep -v -e '^err$' -e '^out$' -e '^ls\.' "$T/ls.after" > "$T/ls.a"
    cmp -s "$T/ls.b" "$T/ls.a" && ok "$what: nothing created" ||
        bad "$what: nothing created" "$(diff "$T/ls.b" "$T/ls.a")"
    unchanged "$what"
}
refused "estimate --json the anchor" UP estimate "$PP" --overhead-ns 1 -q --json "$PP/traces.otf2"
refused "estimate --json traces.def, --force" UP estimate "$PP" --overhead-ns 1 -q --json "$PP/traces.def" --force
refused "estimate --json a new file in the input's folder" UP estimate "$PP" -q --json "$PP/new.json"
refused "report -o the anchor" UP report "$PP" -q -o "$PP/traces.otf2"
refused "report --json an event file" UP report "$PP" -q --json "$PP/traces/0.evt" --force
refused "compensate --json traces.def" UP compensate "$PP" -o "$T/c1" -q --overhead-ns 1 --json "$PP/traces.def"
refused "compensate -o IN/traces --force" UP compensate "$PP" -o "$PP/traces" --force -q --overhead-ns 1
refused "compensate -o IN --force" UP compensate "$PP/traces.otf2" -o "$PP" --force -q --overhead-ns 1
refused "compensate -o the parent of IN --force" UP compensate "$PP" -o "$T" --force -q --overhead-ns 1
refused "simulate -o IN/traces --force" UP simulate "$PP" -o "$PP/traces" --force -q
refused "simulate --json an event file" UP simulate "$PP" -q --json "$PP/traces/1.evt" --force
refused "export --perfetto IN/traces/0.evt -f" UP export "$PP" --perfetto "$PP/traces/0.evt" -f -q
ln -s "$PP" "$T/link"
refused "estimate --json through a linked folder" UP estimate "$PP" -q --json "$T/link/traces.otf2" --force
ln -s "$PP/traces.otf2" "$T/anchor-link.json"
refused "export --perfetto a link to the anchor" UP export "$PP" --perfetto "$T/anchor-link.json" -f -q
refused "report --json with .. into the input" UP report "$PP" -q --json "$T/link/../pp/traces/../x.json"
rm -f "$T/link" "$T/anchor-link.json"

# The inputs are the files OTF2 opens, wherever the archive's layout puts
# them (issue 31: each of these replaced an input file with exit 0): an
# anchor named "...otf2" reads its events from the folder above it, a
# traces/ folder may be a symbolic link elsewhere, and so may one .evt file.
# layout_refused NAME FILE CMD...: exit 2 naming FILE's real path, FILE unchanged
layout_refused() {
    what=$1 file=$2
    shift 2
    sum=$(md5sum < "$file")
    expect 2 "$what: refused (exit 2)" "$@"
    err_has "$what: names the file" "$(readlink -f "$file")"
    err_has "$what: says why" "refusing to write"
    [ "$(md5sum < "$file")" = "$sum" ] && ok "$what: the input file is unchanged" ||
        bad "$what: the input file is unchanged"
}
L=$T/layout
mkdir -p "$L/dd/sub" "$L/an2" "$L/an3"
cp "$PP"/traces/* "$L/dd/"
cp "$PP/traces.otf2" "$L/dd/sub/...otf2"
cp "$PP/traces.def" "$L/dd/sub/...def"
expect 0 "an anchor named ...otf2 is a trace" UP estimate "$L/dd/sub/...otf2" --overhead-ns 1 -q
layout_refused "compensate an/dd/sub/...otf2 --json an/dd/0.evt -f" "$L/dd/0.evt" \
    UP compensate "$L/dd/sub/...otf2" -o "$T/lo" --json "$L/dd/0.evt" -f -q --overhead-ns 1
[ ! -e "$T/lo" ] && ok "...otf2: no output written" || bad "...otf2: no output written"
cp -r "$PP/traces" "$L/evts"
cp "$PP/traces.otf2" "$PP/traces.def" "$L/an2/"
ln -s ../evts "$L/an2/traces"
layout_refused "estimate with traces/ a link, --json evts/0.evt -f" "$L/evts/0.evt" \
    UP estimate "$L/an2" --json "$L/evts/0.evt" -f -q --overhead-ns 1
layout_refused "simulate with traces/ a link, -o inside it -f" "$L/evts/1.evt" \
    UP simulate "$L/an2" -o "$L/evts/1.evt" -f -q
cp -r "$PP"/traces.otf2 "$PP"/traces.def "$PP"/traces "$L/an3/"
mkdir -p "$L/evts2"
mv "$L/an3/traces/1.evt" "$L/evts2/1.evt"
ln -s ../../evts2/1.evt "$L/an3/traces/1.evt"
layout_refused "export with one .evt a link, --perfetto its target -f" "$L/evts2/1.evt" \
    UP export "$L/an3" --perfetto "$L/evts2/1.evt" -f -q
layout_refused "report with the anchor given, one .evt a link, --json its target -f" "$L/evts2/1.evt" \
    UP report "$L/an3/traces.otf2" --json "$L/evts2/1.evt" -f -q
expect 0 "with one .evt a link, an output beside its target is written" \
    UP export "$L/an3" --perfetto "$L/evts2/x.json" -q
rm -rf "$L" "$T/lo"

cp "$DATA/pipit-ping-pong/traces.otf2" "$T/other.otf2" 2>/dev/null
printf '[overhead]\nenter = 10\n' > "$T/calib.ini"
cp "$T/calib.ini" "$T/calib.keep"
expect 2 "compensate --json the --calibration file, --force" \
    UP compensate "$PP" -o "$T/c2" -q --calibration "$T/calib.ini" --json "$T/calib.ini" --force
err_has "--calibration as output: names it" "$T/calib.ini"
cmp -s "$T/calib.ini" "$T/calib.keep" && [ ! -e "$T/c2" ] && ok "--calibration as output: kept, nothing written" ||
    bad "--calibration as output: kept, nothing written"
printf '[network]\nlatency_ns = 1000\n' > "$T/m.ini"
cp "$T/m.ini" "$T/m.keep"
expect 2 "simulate --json the --machine file, --force" UP simulate "$PP" -q --machine "$T/m.ini" --json "$T/m.ini" --force
cmp -s "$T/m.ini" "$T/m.keep" && ok "--machine as output: kept" || bad "--machine as output: kept"
cp -r "$PP" "$T/run2"
expect 2 "report --json into the --against run" UP report "$PP" --against "$T/run2" -q --json "$T/run2/r.json"
err_has "--against as output: names it" "$T/run2"
[ ! -e "$T/run2/r.json" ] && ok "--against as output: nothing written" || bad "--against as output: nothing written"
rm -rf "$T/run2" "$T/c1" "$T/c2"
expect 2 "the same path for -o and --json" UP compensate "$PP" -o "$T/same" --json "$T/same" -q --overhead-ns 1
err_has "the same path twice: names both options" "--json"
expect 2 "--json inside the -o folder" UP compensate "$PP" -o "$T/same" --json "$T/same/s.json" -q --overhead-ns 1
[ ! -e "$T/same" ] && ok "overlapping outputs: nothing written" || bad "overlapping outputs: nothing written"

# ---- an existing output is replaced only with --force, --json included --------
echo old > "$T/e.json"
expect 1 "estimate --json over an existing file without --force" UP estimate "$PP" -q --overhead-ns 1 --json "$T/e.json"
err_has "estimate: mentions --force" "--force"
[ "$(cat "$T/e.json")" = old ] && ok "estimate: the old file kept" || bad "estimate: the old file kept"
expect 0 "estimate --json --force replaces it" UP estimate "$PP" -q --overhead-ns 1 --json "$T/e.json" --force
grep -q measured_time_s "$T/e.json" && ok "estimate --force: the new file" || bad "estimate --force: the new file"
for opt in --json -o; do
    echo old > "$T/r.out"
    expect 1 "report $opt over an existing file without --force" UP report "$PP" -q $opt "$T/r.out"
    [ "$(cat "$T/r.out")" = old ] && ok "report $opt: the old file kept" || bad "report $opt: the old file kept"
    expect 0 "report $opt --force replaces it" UP report "$PP" -q $opt "$T/r.out" -f
done
echo old > "$T/c.json"
expect 1 "compensate --json over an existing file without --force" UP compensate "$PP" -o "$T/c3" -q --overhead-ns 1 --json "$T/c.json"
[ "$(cat "$T/c.json")" = old ] && [ ! -e "$T/c3" ] && ok "compensate: old --json kept, no archive" ||
    bad "compensate: old --json kept, no archive"
expect 1 "simulate --json over an existing file without --force" UP simulate "$PP" -q --json "$T/c.json"
[ "$(cat "$T/c.json")" = old ] && ok "simulate: old --json kept" || bad "simulate: old --json kept"
mkdir "$T/adir"
expect 1 "a file output never replaces a folder, even with --force" UP estimate "$PP" -q --json "$T/adir" --force
[ -d "$T/adir" ] && ok "the folder kept" || bad "the folder kept"
rm -rf "$T/adir" "$T/e.json" "$T/r.out" "$T/c.json"

# ---- --force replaces only what unperturb wrote (issue 31) -------------------
# A file output replaces only a regular file; a folder output only a folder
# whose .unperturb-output lists exactly what a walk finds (or an empty one),
# never the working directory, a folder above it, / or $HOME.
F=$T/force
mkdir -p "$F/devt" "$F/work/sub" "$F/home"
mkfifo "$F/devt/fifo"
ln -s /proc/self/fd/1 "$F/devt/fd1"
ln -s "$F/regular" "$F/devt/link"
echo keep > "$F/regular"
nodes="fifo fd1 link"
if [ "$(id -u)" = 0 ] && mknod "$F/devt/null" c 1 3 && mknod "$F/devt/blk" b 7 200 2> /dev/null; then
    nodes="null blk $nodes"
fi
for n in $nodes; do
    kind=$(stat -c %F "$F/devt/$n")
    expect 1 "estimate --json $n (a $kind) -f: refused" UP estimate "$PP" -q --overhead-ns 1 --json "$F/devt/$n" -f
    err_has "estimate --json $n -f: says what it is" "refusing to replace"
    [ "$(stat -c %F "$F/devt/$n")" = "$kind" ] && ok "estimate --json $n -f: still a $kind" ||
        bad "estimate --json $n -f: still a $kind" "$(ls -l "$F/devt")"
done
[ "$(cat "$F/regular")" = keep ] && ok "a link's target is untouched" || bad "a link's target is untouched"
# (the machine's own /dev/null is not tried: run against a build without the
# fix, that test replaced it with a file; the private node above is the same
# case, as root too)
echo mine > "$F/work/mine.txt"
(cd "$F/work/sub" && "$UNPERTURB" compensate "$PP" -o . -f -q --overhead-ns 1) > "$T/out" 2> "$T/err"
[ $? -eq 2 ] && ok "compensate -o . -f: refused (exit 2)" || bad "compensate -o . -f: refused (exit 2)" "$(cat "$T/err")"
err_has "-o .: the working directory" "it is the working directory"
(cd "$F/work/sub" && "$UNPERTURB" compensate "$PP" -o .. -f -q --overhead-ns 1) > "$T/out" 2> "$T/err"
[ $? -eq 2 ] && ok "compensate -o .. -f: refused (exit 2)" || bad "compensate -o .. -f: refused (exit 2)" "$(cat "$T/err")"
err_has "-o ..: a folder above" "a folder above the working directory"
[ "$(cat "$F/work/mine.txt")" = mine ] && [ -d "$F/work/sub" ] && ok "-o . and ..: the folders' contents kept" ||
    bad "-o . and ..: the folders' contents kept"
echo mine > "$F/home/mine.txt"
HOME=$F/home expect 2 "compensate -o \$HOME -f: refused" UP compensate "$PP" -o "$F/home" -f -q --overhead-ns 1
err_has "-o \$HOME: says so" "your home folder"
expect 2 "compensate -o / -f: refused" UP compensate "$PP" -o / -f -q --overhead-ns 1
mkdir "$F/other"
echo x > "$F/other/important"
expect 1 "compensate -o a folder unperturb did not write, -f: refused" UP compensate "$PP" -o "$F/other" -f -q --overhead-ns 1
err_has "a folder it did not write: names its first entry" "'$F/other/important'"
[ "$(cat "$F/other/important")" = x ] && ok "a folder it did not write: kept" || bad "a folder it did not write: kept"
expect 0 "compensate -o a new folder" UP compensate "$PP" -o "$F/out" -q --overhead-ns 1
# the marker lists what the folder holds, as find sees it
(cd "$F/out" && find . -mindepth 1 ! -name .unperturb-output \( -type d -printf 'd %P\n' -o -type f -printf 'f %P\n' \) | sort) > "$T/found"
sed -n '3,$p' "$F/out/.unperturb-output" | sort > "$T/listed"
head -2 "$F/out/.unperturb-output" | tr '\n' '|' > "$T/head"
[ "$(cat "$T/head")" = "unperturb output folder 1|command compensate|" ] && cmp -s "$T/found" "$T/listed" &&
    ok "the output's .unperturb-output names the command and lists every entry" ||
    bad "the output's .unperturb-output names the command and lists every entry" "$(cat "$T/head"; diff "$T/found" "$T/listed")"
expect 0 "compensate -o its own earlier output -f: replaced" UP compensate "$PP" -o "$F/out" -f -q --overhead-ns 2
expect 0 "simulate -o compensate's earlier output -f: replaced" UP simulate "$PP" -o "$F/out" -f -q
echo x > "$F/out/traces/added"
expect 1 "an earlier output with a file added, -f: refused" UP compensate "$PP" -o "$F/out" -f -q --overhead-ns 1
err_has "a file added: names it" "'$F/out/traces/added' is not listed"
rm "$F/out/traces/added" "$F/out/traces/0.evt"
expect 1 "an earlier output with a file gone, -f: refused" UP compensate "$PP" -o "$F/out" -f -q --overhead-ns 1
err_has "a file gone: names it" "lists 'traces/0.evt', which is not there"
mkdir "$F/empty"
expect 0 "compensate -o an empty folder -f" UP compensate "$PP" -o "$F/empty" -f -q --overhead-ns 1
mkdir "$F/exp"
echo x > "$F/exp/unrelated"
printf '[experiment]\ninput = %s\noutput = %s\n' "$PP" "$F/exp" > "$F/e.ini"
expect 1 "simulate --experiment with output = an unrelated folder, -f: refused" UP simulate --experiment "$F/e.ini" -f -q
[ "$(cat "$F/exp/unrelated")" = x ] && ok "the experiment's unrelated output folder is kept" ||
    bad "the experiment's unrelated output folder is kept"

# ---- '-' is standard output ----------------------------------------------------
(cd "$F" && "$UNPERTURB" compensate "$PP" -o "$F/c-" --json - --overhead-ns 1 > "$T/out" 2> "$T/err")
jq -e '.mode == "network"' "$T/out" > /dev/null && ok "compensate --json -: the JSON on stdout" ||
    bad "compensate --json -: the JSON on stdout" "$(head -c 300 "$T/out")"
grep -q "run time" "$T/err" && ok "compensate --json -: the table on stderr" || bad "compensate --json -: the table on stderr"
[ ! -e "$F/-" ] && ok "compensate --json -: no file named -" || bad "compensate --json -: no file named -"
(cd "$F" && "$UNPERTURB" estimate "$PP" --json ./- --overhead-ns 1 -q) && jq -e .measured_time_s "$F/-" > /dev/null &&
    ok "estimate --json ./-: a file named -" || bad "estimate --json ./-: a file named -"
"$UNPERTURB" export "$PP" --perfetto - 2> "$T/err" | jq -e '.traceEvents | length > 10' > /dev/null &&
    ok "export --perfetto -: the JSON on stdout" || bad "export --perfetto -: the JSON on stdout" "$(cat "$T/err")"
"$UNPERTURB" report "$PP" -o - -q | grep -q '</html>' && ok "report -o -: the page on stdout" || bad "report -o -: the page on stdout"
"$UNPERTURB" simulate "$PP" --json - -q | jq -e .predicted > /dev/null 2>&1 || "$UNPERTURB" simulate "$PP" --json - -q | jq -e . > /dev/null &&
    ok "simulate --json -: the JSON on stdout" || bad "simulate --json -: the JSON on stdout"
expect 2 "report -o - --json -: only one output is stdout" UP report "$PP" -o - --json -
err_has "two stdout outputs: says so" "only one output can be standard output"
expect 2 "compensate -o -: a folder cannot be stdout" UP compensate "$PP" -o - --overhead-ns 1
rm -rf "$F"

# ---- the file-size limit (SIGXFSZ is ignored: the write fails, we say so) ------
X=$T/xfsz
mkdir -p "$X"
"$GEN" "$X/in" 200000 2 > /dev/null 2>&1 || bad "up-bench-gen 200k records"
for c in "compensate:-o $X/out --overhead-ns 1" "simulate:-o $X/out" "export:--perfetto $X/x.json" \
         "report:-o $X/r.html"; do
    cmd=${c%%:*} args=${c#*:}
    # shellcheck disable=SC2086
    (ulimit -f 8; exec "$UNPERTURB" $cmd "$X/in" $args -q) > "$T/out" 2> "$T/err"
    st=$?
    [ $st -eq 1 ] && ok "$cmd past the file-size limit: exit 1" || bad "$cmd past the file-size limit: exit 1" "exit $st: $(head -c 300 "$T/err")"
    err_has "$cmd past the file-size limit: says why" "File too large"
    left=$(ls -A "$X" | grep -v '^in$')
    [ -z "$left" ] && ok "$cmd past the file-size limit: nothing left" || bad "$cmd past the file-size limit: nothing left" "$left"
done
rm -rf "$X"

# ---- stale temporaries ----------------------------------------------------------
# Only those of this host, whose process is gone, older than a few minutes,
# next to an output being written, matching NAME.tmp-HOST-PID.
sh -c 'exit 0' & dead1=$!
wait $dead1
sh -c 'exit 0' & dead2=$!
wait $dead2
S=$T/stale
mkdir -p "$S/out.tmp-$HOST-$dead1/traces" "$S/out.tmp-$HOST-$dead2" "$S/out.tmp-otherhost-$dead1" \
    "$S/out.tmp-$HOST-1" "$S/other.tmp-$HOST-$dead1" "$S/out.tmp-$HOST-${dead1}x"
echo x > "$S/out.tmp-$HOST-$dead1/traces/0.evt"
echo x > "$S/s.json.tmp-$HOST-$dead1"
echo x > "$S/s.json.tmp-$HOST-$dead2"
old_stamp() { find "$@" -exec touch -h -d '2 hours ago' {} +; }
old_stamp "$S/out.tmp-$HOST-$dead1" "$S/out.tmp-otherhost-$dead1" "$S/out.tmp-$HOST-1" \
    "$S/other.tmp-$HOST-$dead1" "$S/out.tmp-$HOST-${dead1}x" "$S/s.json.tmp-$HOST-$dead1"
mkdir "$S/out.tmp-$HOST-$dead2/young" # the old folder, but something in it is new
touch -h -d '2 hours ago' "$S/out.tmp-$HOST-$dead2"
expect 0 "compensate next to stale temporaries" UP compensate "$PP" -o "$S/out" --json "$S/s.json" -q --overhead-ns 1
[ ! -e "$S/out.tmp-$HOST-$dead1" ] && [ ! -e "$S/s.json.tmp-$HOST-$dead1" ] &&
    ok "stale: an old temporary of a gone process of this host is removed (folder and file)" ||
    bad "stale: an old temporary of a gone process of this host is removed (folder and file)" "$(ls "$S")"
for k in "out.tmp-$HOST-$dead2" "s.json.tmp-$HOST-$dead2" "out.tmp-otherhost-$dead1" "out.tmp-$HOST-1" \
         "other.tmp-$HOST-$dead1" "out.tmp-$HOST-${dead1}x"; do
    [ -e "$S/$k" ] && ok "stale: kept $k" || bad "stale: kept $k"
done
rm -rf "$S"

# ---- signals while writing --------------------------------------------------------
# A trace big enough that the commands are still writing when the temporary
# appears: the command is stopped there (SIGSTOP), signalled, continued.
"$GEN" "$T/big" 3000000 4 > /dev/null 2>&1 || bad "up-bench-gen 3M records"
ulimit -c 0
sigtest() { # SIG NUM CMD NAME(output's name) ARGS...: run, wait for NAME.tmp-HOST-PID with data, signal
    sig=$1 num=$2 cmd=$3 name=$4
    shift 4
    D=$T/sig
    rm -rf "$D"
    mkdir "$D"
    env --default-signal=INT,QUIT,TERM,HUP,PIPE "$UNPERTURB" "$cmd" "$T/big" "$@" 2> "$T/err" > /dev/null &
    pid=$!
    tmp=$D/$name.tmp-$HOST-$pid
    n=0
    while kill -0 $pid 2> /dev/null && [ $n -lt 6000 ]; do
        [ -n "$(find "$tmp" -type f -size +0 2> /dev/null | head -n 1)" ] && break
        sleep 0.05
        n=$((n + 1))
    done
    if ! kill -STOP $pid 2> /dev/null; then
        wait $pid
        bad "$cmd SIG$sig: still running when $name.tmp-$HOST-PID held data" "exit $?; $(ls -A "$D"); $(head -c 300 "$T/err")"
        return
    fi
    [ -n "$(find "$tmp" -type f -size +0 2> /dev/null | head -n 1)" ] ||
        bad "$cmd SIG$sig: writes to $name.tmp-$HOST-PID" "$(ls -A "$D")"
    kill -"$sig" $pid
    kill -CONT $pid
    wait $pid
    st=$?
    [ $st -eq $((128 + num)) ] && ok "$cmd SIG$sig: exit status $((128 + num))" ||
        bad "$cmd SIG$sig: exit status $((128 + num))" "got $st: $(head -c 300 "$T/err")"
    [ -z "$(ls -A "$D")" ] && ok "$cmd SIG$sig: nothing left" || bad "$cmd SIG$sig: nothing left" "$(ls -A "$D")"
}
# (issue 31: SIGUSR1, SIGALRM and SIGXCPU left the temporaries)
for s in INT:2 TERM:15 HUP:1 QUIT:3 PIPE:13 USR1:10 USR2:12 ALRM:14 XCPU:24 VTALRM:26 PROF:27; do
    sigtest "${s%:*}" "${s#*:}" compensate out -o "$T/sig/out" --overhead-ns 1 -q --json "$T/sig/s.json"
done
for s in INT:2 TERM:15 HUP:1; do
    sigtest "${s%:*}" "${s#*:}" simulate out -o "$T/sig/out" -q
    sigtest "${s%:*}" "${s#*:}" export x.json --perfetto "$T/sig/x.json" -q
done
rm -rf "$T/sig"

# ---- a full disk, a read-only file system ---------------------------------------
# (issue 19: libotf2's "Buffer deletion failed!" without a path or errno;
# a failed --json left the finished archive behind)
if [ "$(id -u)" = 0 ] && mkdir "$T/full" "$T/ro" && mount -t tmpfs -o size=64k tmpfs "$T/full" 2> /dev/null &&
   mount -t tmpfs -o size=1m tmpfs "$T/ro" && mount -o remount,ro "$T/ro"; then
    dd if=/dev/zero of="$T/full/fill" bs=1k > /dev/null 2>&1
    # libotf2 leaks the event writer whose last flush fails (lsan.supp)
    LSAN_OPTIONS=${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$SRC/tests/safety/lsan.supp:print_suppressions=0
    export LSAN_OPTIONS
    for fs in full:"No space left on device" ro:"Read-only file system"; do
        m=${fs%%:*} why=${fs#*:}
        M=$T/$m
        expect 1 "$m: compensate -o" UP compensate "$PP" -o "$M/out" -q --overhead-ns 1
        err_has "$m: compensate -o: path and reason" "cannot write '$M/out': $why"
        expect 1 "$m: simulate -o" UP simulate "$PP" -o "$M/out" -q
        err_has "$m: simulate -o: path and reason" "cannot write '$M/out': $why"
        expect 1 "$m: export --perfetto" UP export "$PP" --perfetto "$M/x.json" -q
        err_has "$m: export: path and reason" "cannot write '$M/x.json': $why"
        expect 1 "$m: estimate --json" UP estimate "$PP" -q --json "$M/e.json"
        err_has "$m: estimate --json: path and reason" "cannot write '$M/e.json': $why"
        expect 1 "$m: report -o" UP report "$PP" -q -o "$M/r.html"
        err_has "$m: report -o: path and reason" "cannot write '$M/r.html': $why"
        expect 1 "$m: compensate --json fails after the archive" UP compensate "$PP" -o "$T/arch" -q --overhead-ns 1 --json "$M/s.json"
        err_has "$m: compensate --json: path and reason" "cannot write '$M/s.json': $why"
        [ ! -e "$T/arch" ] && ok "$m: the archive goes with the failed --json" || bad "$m: the archive goes with the failed --json"
        ls "$T" | grep -q 'tmp-' && bad "$m: no temporary next to the archive" "$(ls "$T")" || ok "$m: no temporary next to the archive"
        grep -q -e "Buffer deletion" -e "Chunk handling" "$T/err" && bad "$m: no libotf2 message" || ok "$m: no libotf2 message"
        left=$(ls -A "$M" | grep -v '^fill$')
        [ -z "$left" ] && ok "$m: nothing left" || bad "$m: nothing left" "$left"
    done
    umount "$T/full"
    umount "$T/ro"
else
    printf 'skip  a full disk and a read-only file system (need root and tmpfs mounts)\n'
fi
unchanged "all commands"

echo "safety tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
