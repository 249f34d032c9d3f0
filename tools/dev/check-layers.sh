#!/bin/sh
# tools/dev/check-layers.sh - who may include whose headers (issues 23 and
# 34; docs/design.md, "Layout").  Each folder of src/ keeps its headers
# beside its code, and a file names another folder's header by folder
# ("trace/trace.h", with -Isrc); a header named without one is of the
# file's own folder.  The rules:
#   - src/ is layered, lowest first:
#       util < trace < replay < model < analysis < run < report
#     and no file includes a header of a higher layer;
#   - the tracer and the timing shim (src/tracer, src/shim, preloaded into
#     programs) include only util and trace headers, and no other folder of
#     src/ includes theirs: src/trace, with which the command reads traces,
#     lies below the tracer (the tracer may include trace, not the reverse);
#   - src/tracegen (test and benchmark traces through OTF2's writer alone)
#     includes no header of src/, and only tests/ and bench/ include it;
#   - a private header (NAME_int.h) is included by its own folder only;
#   - tools/ is on top: any header of src/ but the private ones and
#     tracegen's, nothing of tests/ or bench/;
#   - bench/ and tests/: any header of src/ but the private ones, and their
#     own (bench/ nothing of tests/, and the reverse);
#   - no include is relative ("../x.h", "./x.h"), anywhere;
#   - include/unperturb/ holds only what `make install` installs
#     (region.h), which any file may include.
# Every folder of src/ must be listed below.  Checks src/, tools/, bench/,
# tests/ and examples/ of the current folder: run it from the source tree's
# top (make test does; tests/layers/run.sh runs it on planted violations).
# Prints each violation and exits 1 if there is one.
set -eu
layer_of() {
    case $1 in
    util) echo 0 ;; trace | tracer | shim) echo 1 ;; replay) echo 2 ;; model) echo 3 ;;
    analysis) echo 4 ;; run) echo 5 ;; report) echo 6 ;; tracegen) echo T ;; *) echo "?" ;;
    esac
}
bad=0
no() { # FILE MESSAGE
    echo "$1: $2"
    bad=1
}
# check FILE AREA: AREA is the src/ folder's name, or tools, bench, tests, examples
check() {
    for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1"); do
        case /$inc/ in
        */../* | */./*)
            no "$1" "includes $inc: a relative path; name a header of src/ by its folder (-Isrc)"
            continue ;;
        esac
        case $inc in
        unperturb/region.h) continue ;;
        unperturb/*)
            no "$1" "includes $inc: include/unperturb/ holds only installed headers (region.h)"
            continue ;;
        */*) d=${inc%%/*} ;;
        *)
            [ -e "$(dirname "$1")/$inc" ] ||
                no "$1" "includes $inc, which is not in its folder: name another folder's header by its folder"
            continue ;;
        esac
        if [ ! -d "src/$d" ]; then
            case $d in
            tests | bench | tools | examples)
                no "$1" "includes $inc: only a header of src/ is named by its folder, and $d/ is no folder of src/" ;;
            *) no "$1" "includes $inc, a header of no folder of src/" ;;
            esac
            continue
        fi
        case ${inc##*/} in
        *_int.h)
            [ "$d" = "$2" ] || no "$1" "includes $inc, a private header of src/$d/ (only its own folder may)"
            continue ;;
        esac
        case $2 in
        bench | tests) continue ;;
        tools | examples)
            [ "$d" = tracegen ] && no "$1" "includes $inc: src/tracegen/ is for tests/ and bench/ only"
            continue ;;
        tracegen)
            [ "$d" = tracegen ] || no "$1" "includes $inc: src/tracegen/ includes no header of src/ (it writes through OTF2 alone)"
            continue ;;
        tracer | shim)
            [ "$d" = util ] || [ "$d" = trace ] || [ "$d" = "$2" ] ||
                no "$1" "includes $inc: the preloaded $2 may include util and trace headers only"
            continue ;;
        esac
        case $d in
        tracegen) no "$1" "includes $inc: src/tracegen/ is for tests/ and bench/ only" ;;
        tracer | shim) no "$1" "includes $inc: only src/$d/ includes the $d's headers (it may include trace, not the reverse)" ;;
        *) [ "$(layer_of "$d")" -gt "$(layer_of "$2")" ] && no "$1" "includes $inc, a header of a higher layer" ;;
        esac
    done
    return 0
}
for f in include/unperturb/*.h; do
    [ "$(basename "$f")" = region.h ] && continue
    no "$f" "include/unperturb/ holds only installed headers: move it beside its layer in src/"
done
for d in src/*/; do
    d=${d%/}
    n=$(basename "$d")
    if [ "$(layer_of "$n")" = "?" ]; then
        no "$d" "a folder of no known layer: list it in tools/dev/check-layers.sh"
        continue
    fi
    for f in "$d"/*.c "$d"/*.h; do
        [ -e "$f" ] && check "$f" "$n"
    done
done
for area in tools bench tests examples; do
    [ -d "$area" ] || continue
    for f in $(find "$area" -name '*.[ch]' | LC_ALL=C sort); do
        check "$f" "$area"
    done
done
exit $bad
