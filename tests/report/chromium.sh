#!/bin/sh
# tests/report/chromium.sh HTMLFILE PNG [STRING...] - opens report.html in
# headless Chromium (Debian's chromium) as a user's browser would, and fails
#   - if the browser's log shows console messages: JavaScript errors,
#     "Uncaught" exceptions, resources that failed to load;
#   - if the page asked for anything on the network (Chromium's network log:
#     requests initiated by the page's file:// origin; every host name
#     resolves to nothing) or references another file (src=, href= other
#     than #anchors, url(), @import in the DOM);
#   - if the screenshot PNG (1200 x 2400) is missing or empty;
#   - if the DOM, as Chromium parsed it, lacks one of the STRINGs.
# Look at the PNG to judge the page.
#
#   tests/report/chromium.sh report.html report.png "Late Sender" "MPI_Recv"
set -u
[ $# -ge 2 ] || { echo "usage: $0 HTMLFILE PNG [STRING...]" >&2; exit 2; }
HTML=$1
PNG=$2
shift 2
CHROMIUM=${CHROMIUM:-chromium}
command -v "$CHROMIUM" > /dev/null 2>&1 || { echo "FAIL: $CHROMIUM is missing (apt-get install chromium)" >&2; exit 1; }
[ -f "$HTML" ] || { echo "FAIL: $HTML: no such file" >&2; exit 1; }
case $HTML in /*) ABS=$HTML ;; *) ABS=$(pwd)/$HTML ;; esac
case $PNG in /*) ;; *) PNG=$(pwd)/$PNG ;; esac

T=$(mktemp -d "${TMPDIR:-/tmp}/unperturb-chromium-XXXXXX")
trap 'rm -rf "$T"' EXIT
# a profile of its own (parallel runs), no network, no first-run noise
run() {
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$T/profile" --host-resolver-rules="MAP * ~NOTFOUND" \
        --enable-logging=stderr --v=0 "$@"
}

fail=0
rm -f "$PNG"
run --screenshot="$PNG" --window-size=1200,2400 --log-net-log="$T/net.json" "file://$ABS" \
    > "$T/shot.out" 2> "$T/shot.log"
rc=$?
if [ $rc -ne 0 ]; then
    echo "FAIL: chromium --screenshot exited with $rc:" >&2
    tail -n 20 "$T/shot.log" >&2
    fail=1
fi
# console messages (errors of the page's scripts or styles, failed loads)
if grep -E ':CONSOLE|Uncaught|Failed to load|net::ERR_|SyntaxError|ReferenceError|TypeError' \
        "$T/shot.log" > "$T/console" 2>/dev/null; then
    echo "FAIL: console errors while loading $HTML:" >&2
    head -n 20 "$T/console" >&2
    fail=1
fi
# the page's own requests have the opaque origin of file:// ("null");
# Chromium's background requests have none
if grep '"initiator":"null"' "$T/net.json" 2>/dev/null | grep -o '"url":"[^"]*"' > "$T/urls"; then
    echo "FAIL: $HTML asked for network resources:" >&2
    sort -u "$T/urls" | head -n 10 >&2
    fail=1
fi
if [ ! -s "$PNG" ] || [ "$(head -c 8 "$PNG" | od -An -tx1 | tr -d ' \n')" != "89504e470d0a1a0a" ]; then
    echo "FAIL: no screenshot in $PNG" >&2
    fail=1
fi

run --dump-dom "file://$ABS" > "$T/dom.html" 2> "$T/dom.log"
rc=$?
if [ $rc -ne 0 ] || [ ! -s "$T/dom.html" ]; then
    echo "FAIL: chromium --dump-dom exited with $rc:" >&2
    tail -n 20 "$T/dom.log" >&2
    fail=1
fi
if grep -Eio '(src|href|xlink:href)="[^#"][^"]*"|url\(|@import' "$T/dom.html" > "$T/refs"; then
    echo "FAIL: $HTML references other files:" >&2
    sort -u "$T/refs" | head -n 10 >&2
    fail=1
fi
for s in "$@"; do
    if ! grep -qF -- "$s" "$T/dom.html"; then
        echo "FAIL: the page as Chromium shows it lacks '$s'" >&2
        fail=1
    fi
done
[ $fail -eq 0 ] && echo "ok: $HTML opens in Chromium without console errors; screenshot $PNG"
exit $fail
