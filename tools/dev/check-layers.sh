#!/bin/sh
# tools/dev/check-layers.sh - no file of a lower layer includes a header of a
# higher one (issue 23; docs/design.md, "Layout").  Each layer is a folder of
# src/ and keeps its headers beside its code; a file names another layer's
# header by folder ("trace/trace.h", with -Isrc).  The layers, lowest first:
#   util < trace < replay < model < analysis < run < report
# and tools/ on top, which may include any.  The tracer and the timing shim
# (src/tracer, src/shim, preloaded into programs) may include only util and
# trace headers.  include/unperturb/ holds only what `make install` installs
# (region.h), which any file may include.  Every folder of src/ must be listed
# below.  Prints each violation and exits 1 if there is one.  Run from the
# source tree's top (make test does).
set -eu
layer_of() {
    case $1 in
    util) echo 0 ;; trace | tracer | shim) echo 1 ;; replay) echo 2 ;; model) echo 3 ;;
    analysis) echo 4 ;; run) echo 5 ;; report) echo 6 ;; *) echo "?" ;;
    esac
}
bad=0
check() { # FILE LAYER FOLDER
    for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1"); do
        case $inc in
        unperturb/region.h) continue ;;
        unperturb/*)
            echo "$1: includes $inc: include/unperturb/ holds only installed headers (region.h)"
            bad=1; continue ;;
        */*) d=${inc%%/*} ;;
        *) continue ;; # a header of the file's own folder
        esac
        hl=$(layer_of "$d")
        if [ "$hl" = "?" ]; then
            echo "$1: includes $inc, a header of no known layer (tools/dev/check-layers.sh)"
            bad=1
        elif [ "$3" = tracer ] || [ "$3" = shim ]; then
            if [ "$d" != util ] && [ "$d" != trace ] && [ "$d" != "$3" ]; then
                echo "$1: includes $inc: the preloaded $3 may include util and trace headers only"
                bad=1
            fi
        elif [ "$hl" -gt "$2" ]; then
            echo "$1: includes $inc, a header of a higher layer"
            bad=1
        fi
    done
}
for f in include/unperturb/*.h; do
    [ "$(basename "$f")" = region.h ] && continue
    echo "$f: include/unperturb/ holds only installed headers: move it beside its layer in src/"
    bad=1
done
for d in src/*/; do
    d=${d%/}
    n=$(basename "$d")
    l=$(layer_of "$n")
    if [ "$l" = "?" ]; then
        echo "$d: a folder of no known layer: list it in tools/dev/check-layers.sh"
        bad=1
        continue
    fi
    for f in "$d"/*.c "$d"/*.h; do
        [ -e "$f" ] && check "$f" "$l" "$n"
    done
done
exit $bad
