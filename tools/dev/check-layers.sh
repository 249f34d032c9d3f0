#!/bin/sh
# tools/dev/check-layers.sh - no file of a lower layer includes a header of a
# higher one (issue 23; docs/design.md, "Layout").  The layers, lowest
# first: util, trace, replay, model, analysis, report; tools/ may include
# any.  The tracer and the timing shim (src/tracer, src/shim, preloaded into
# programs) may include only util and trace headers.  A header's layer is the one listed below; every
# header of include/unperturb must be listed.  Prints each violation and
# exits 1 if there is one.  Run from the source tree's top (make test does).
set -eu
layer_of_header() {
    case $1 in
    util.h) echo 0 ;;
    trace.h | merge.h | otf2_records.h | region.h) echo 1 ;;
    replay.h) echo 2 ;;
    model.h | machine.h | collalgo.h | simulate.h) echo 3 ;;
    counts.h | estimate.h | profile.h) echo 4 ;;
    report.h | timeline.h | plot.h | export.h) echo 5 ;;
    *) echo "?" ;;
    esac
}
layer_of_dir() {
    case $1 in
    util) echo 0 ;; trace) echo 1 ;; replay) echo 2 ;; model) echo 3 ;;
    analysis) echo 4 ;; report) echo 5 ;; tracer | shim) echo 1 ;; *) echo "?" ;;
    esac
}
bad=0
check() { # FILE LAYER
    for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"unperturb\/\([a-z0-9_]*\.h\)".*/\1/p' "$1"); do
        hl=$(layer_of_header "$h")
        if [ "$hl" = "?" ]; then
            echo "$1: includes unperturb/$h, a header of no known layer (tools/dev/check-layers.sh)"
            bad=1
        elif [ "$hl" -gt "$2" ]; then
            echo "$1: includes unperturb/$h, a header of a higher layer"
            bad=1
        fi
    done
}
for f in include/unperturb/*.h; do
    l=$(layer_of_header "$(basename "$f")")
    if [ "$l" = "?" ]; then
        echo "$f: a header of no known layer: list it in tools/dev/check-layers.sh"
        bad=1
        continue
    fi
    check "$f" "$l"
done
for d in src/*/; do
    d=${d%/}
    l=$(layer_of_dir "$(basename "$d")")
    if [ "$l" = "?" ]; then
        echo "$d: a folder of no known layer: list it in tools/dev/check-layers.sh"
        bad=1
        continue
    fi
    for f in "$d"/*.c "$d"/*.h; do
        [ -e "$f" ] && check "$f" "$l"
    done
done
exit $bad
