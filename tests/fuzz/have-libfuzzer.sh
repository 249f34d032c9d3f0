#!/bin/sh
# have-libfuzzer.sh CC - succeeds if CC links a libFuzzer target with ASan
# and UBSan (clang with its runtime, e.g. Debian's libclang-rt-14-dev).
cc=${1:-clang}
command -v "$cc" >/dev/null 2>&1 || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$tmp/t.c"
"$cc" -fsanitize=fuzzer,address,undefined "$tmp/t.c" -o "$tmp/t" >/dev/null 2>&1
