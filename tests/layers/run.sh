#!/bin/sh
# tests/layers/run.sh - tools/dev/check-layers.sh catches every kind of
# include it forbids: on a copy of the tree's C files it passes, then each
# violation is planted alone in the copy, and the check must fail naming
# that file and the rule (and nothing else).  One case per rule: a higher
# layer, src/trace on the tracer, the preloaded tracer on a higher layer,
# private headers from src/, tools/, bench/ and tests/, tools/ on tests/
# (by folder and by bare name), tracegen in both directions, relative
# includes in src/, bench/ and tests/, a folder of src/ with no layer,
# include/unperturb/.
#
#   tests/layers/run.sh          (from the source tree's top; make test runs it)
set -u
export LC_ALL=C
SRC=${UNPERTURB_SRC:-.}
CHECK=$(cd "$SRC" && pwd)/tools/dev/check-layers.sh
T=$(mktemp -d "${TMPDIR:-/tmp}/unperturb-layers-XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); printf 'ok    %s\n' "$1"; }
bad() { fail=$((fail + 1)); printf 'FAIL  %s\n' "$1"; [ $# -gt 1 ] && printf '%s\n' "$2" | head -n 12 | sed 's/^/      /'; }

# the copy: every C file of the folders the check reads (not the data)
(cd "$SRC" && find src tools bench tests examples include -name '*.[ch]' -print | tar -cf - -T -) |
    (cd "$T" && tar -xf -) || { echo "FAIL: cannot copy the tree to $T" >&2; exit 1; }

if (cd "$T" && sh "$CHECK") > "$T/out" 2>&1; then
    ok "the tree as it is passes"
else
    bad "the tree as it is passes" "$(cat "$T/out")"
fi

# plant FILE LINE MESSAGE [WHERE]: FILE (new) holds LINE; the check must
# fail with one line, "WHERE: ...MESSAGE..." (WHERE: FILE unless given)
plant() {
    mkdir -p "$T/$(dirname "$1")"
    printf '%s\n' "$2" > "$T/$1"
    if (cd "$T" && sh "$CHECK") > "$T/out" 2>&1; then
        bad "$1: $2 (passed)"
    elif [ "$(wc -l < "$T/out")" -ne 1 ] || ! grep -qF "${4:-$1}: " "$T/out" ||
        ! grep -qF "$3" "$T/out"; then
        bad "$1: $2 (not the one violation, '$3')" "$(cat "$T/out")"
    else
        ok "$1: $2"
    fi
    rm -f "$T/$1"
}

plant src/trace/planted.c '#include "model/compensate.h"' "a header of a higher layer"
plant src/trace/planted.h '#include "tracer/upt.h"' "only src/tracer/ includes"
plant src/replay/planted.c '#include "tracer/wrap.h"' "only src/tracer/ includes"
plant src/tracer/planted.c '#include "replay/replay.h"' "may include util and trace headers only"
plant src/replay/planted.c '#include "trace/trace_int.h"' "a private header of src/trace/"
plant tools/planted.c '#include "replay/engine_int.h"' "a private header of src/replay/"
plant bench/planted.c '#include "trace/trace_int.h"' "a private header of src/trace/"
plant tests/planted.c '#include "replay/engine_int.h"' "a private header of src/replay/"
plant tools/planted.c '#include "tests/tutil.h"' "tests/ is no folder of src/"
plant tools/planted.c '#include "tutil.h"' "not in its folder"
plant bench/planted.c '#include "tests/tutil.h"' "tests/ is no folder of src/"
plant tools/planted.c '#include "tracegen/tracegen.h"' "for tests/ and bench/ only"
plant src/model/planted.c '#include "tracegen/tracegen.h"' "for tests/ and bench/ only"
plant src/tracegen/planted.c '#include "util/util.h"' "includes no header of src/"
plant src/util/planted.c '#include "./util.h"' "a relative path"
plant bench/planted.c '#include "../tests/tutil.h"' "a relative path"
plant tests/fuzz/planted.c '#include "../tutil.h"' "a relative path"
plant src/analysis/planted.c '#include "unperturb/other.h"' "holds only installed headers"
plant include/unperturb/planted.h '/* a header that is not installed */' "holds only installed headers"
plant src/planted/planted.c '/* a folder of src/ in no layer */' "a folder of no known layer" src/planted
rmdir "$T/src/planted"

echo "tests/layers: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
