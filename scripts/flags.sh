#!/bin/sh
# scripts/flags.sh - the compiler and linker flags of the packages unperturb
# builds against (OTF2, jansson, inih, Open MPI, libdw), from pkg-config with
# plain -l fallbacks, printed as make assignments.  The Makefile writes them
# to $(BUILD)/config.mk only after scripts/deps.sh has installed the packages,
# then re-reads itself (see "Package flags" in the Makefile).
#
#   scripts/flags.sh > build/config.mk
set -eu
pc() { pkg-config "$@" 2>/dev/null; }

otf2_libs=$(pc --libs otf2 || echo -lopen-trace-format2)
# omp-tools.h (libomp-14-dev) sits among clang's own headers: -idirafter, so
# that gcc's stddef.h and friends stay first
ompt=""
for h in /usr/lib/llvm-*/lib/clang/*/include/omp-tools.h; do
    [ -f "$h" ] && ompt="-idirafter $(dirname "$h")"
done
cat <<EOF
# written by scripts/flags.sh: remove it, or run make, to compute it again
OTF2_CFLAGS := $(pc --cflags otf2 || true)
OTF2_LIBS   := $otf2_libs
DEP_CFLAGS  := \$(OTF2_CFLAGS) $(pc --cflags jansson inih || true)
DEP_LIBS    := \$(OTF2_LIBS) $(pc --libs jansson inih || echo -ljansson -linih) -lm
MPI_CFLAGS  := $(pc --cflags ompi-c || true)
MPI_LIBS    := $(pc --libs ompi-c || echo -lmpi)
DW_CFLAGS   := $(pc --cflags libdw || true)
DW_LIBS     := $(pc --libs libdw || echo -ldw -lelf)
OMPT_CFLAGS := $ompt
EOF
