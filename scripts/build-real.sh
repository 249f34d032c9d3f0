#!/bin/sh
# scripts/build-real.sh DIR NAME... - builds real MPI programs that nobody
# here wrote from the public sources of Debian's archive into DIR/bin/NAME,
# for the accuracy study (docs/accuracy.md, "Real programs built from
# source").  Nothing of their code is kept in this repository.
#   petsc-cg   PETSc's KSP tutorial ex46 (src/ksp/ksp/tutorials/ex46.c): CG on
#              a 2-D Laplacian of a distributed array; each iteration a halo
#              exchange by MPI_Isend/MPI_Irecv/MPI_Waitall and reductions
#   hypre-amg  hypre's example 5 (src/examples/ex5.c): BoomerAMG, algebraic
#              multigrid, on a 2-D Laplacian through the IJ interface
#   fftw-mpi   FFTW's mpi-bench (mpi/mpi-bench.c with tests/ and libbench2/):
#              distributed multi-dimensional FFTs, transposed by all-to-all
# Each source package comes from `apt-get source --download-only` with a
# source list of the script's own (DIR/apt; the machine's apt configuration
# is left alone; DEBIAN_MIRROR chooses the archive); the libraries are the
# Debian -dev packages, installed when run as root and named otherwise.
# A program already in DIR/bin is kept.
set -eu
[ $# -ge 2 ] || { echo "usage: scripts/build-real.sh DIR NAME... (petsc-cg, hypre-amg, fftw-mpi)" >&2; exit 2; }
DIR=$1
shift
mkdir -p "$DIR/bin" "$DIR/src"
DIR=$(cd "$DIR" && pwd)
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# shellcheck disable=SC1091 # the machine's own file
SUITE=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")

need() { # need PKG...: installs the missing Debian packages, or names them
    missing=""
    for p in "$@"; do
        dpkg-query -W -f '${Status}' "$p" 2> /dev/null | grep -q 'ok installed' || missing="$missing $p"
    done
    [ -n "$missing" ] || return 0
    if [ "$(id -u)" != 0 ]; then
        echo "build-real.sh: missing Debian packages; as root: apt-get install --no-install-recommends$missing" >&2
        return 1
    fi
    # shellcheck disable=SC2086
    apt-get install -y -q --no-install-recommends $missing > "$DIR/apt-install.log" 2>&1 || {
        apt-get update -q > /dev/null && apt-get install -y -q --no-install-recommends $missing > "$DIR/apt-install.log" 2>&1
    } || { echo "build-real.sh: apt-get install$missing failed ($DIR/apt-install.log)" >&2; return 1; }
}

source_tree() { # source_tree PKG: fetches and unpacks PKG's upstream source; sets TREE
    A=$DIR/apt
    if [ ! -f "$A/updated" ]; then
        mkdir -p "$A/lists/partial"
        echo "deb-src $MIRROR $SUITE main" > "$A/sources.list"
        apt-get -q -o Dir::Etc::SourceList="$A/sources.list" -o Dir::Etc::SourceParts=/dev/null \
            -o Dir::State::Lists="$A/lists" update > "$A/update.log" 2>&1 ||
            { echo "build-real.sh: cannot read the source index of $MIRROR $SUITE ($A/update.log)" >&2; return 1; }
        touch "$A/updated"
    fi
    if ! ls "$DIR/src/$1"_*.orig.tar.* > /dev/null 2>&1; then
        (cd "$DIR/src" && apt-get -q -o Dir::Etc::SourceList="$A/sources.list" -o Dir::Etc::SourceParts=/dev/null \
            -o Dir::State::Lists="$A/lists" source --download-only "$1" > "$DIR/src/$1.log" 2>&1) ||
            { echo "build-real.sh: apt-get source $1 failed ($DIR/src/$1.log)" >&2; return 1; }
    fi
    orig=$(ls "$DIR/src/$1"_*.orig.tar.*)
    TREE=$DIR/src/$1
    if [ ! -d "$TREE" ]; then
        mkdir -p "$TREE.tmp"
        tar -xf "$orig" -C "$TREE.tmp" --strip-components=1
        mv "$TREE.tmp" "$TREE"
    fi
    echo "build-real.sh: $1 from $(basename "$orig")" >&2
}

build() {
    out=$DIR/bin/$1
    [ -x "$out" ] && return 0
    case $1 in
    petsc-cg)
        need mpi-default-dev libpetsc-real3.18-dev
        source_tree petsc
        P=/usr/lib/petscdir/petsc-real
        mpicc -O2 -I"$P/include" "$TREE/src/ksp/ksp/tutorials/ex46.c" -o "$out.tmp" -L"$P/lib" -lpetsc_real -lm ;;
    hypre-amg)
        need mpi-default-dev libhypre-dev
        source_tree hypre
        mpicc -O2 -I/usr/include/hypre "$TREE/src/examples/ex5.c" -o "$out.tmp" -lHYPRE -lm ;;
    fftw-mpi)
        need mpi-default-dev libfftw3-dev libfftw3-mpi-dev
        source_tree fftw3
        # configure only for config.h; the library is Debian's
        [ -f "$TREE/config.h" ] ||
            (cd "$TREE" && ./configure -q --enable-mpi --disable-fortran MPICC=mpicc > configure.log 2>&1) ||
            { echo "build-real.sh: FFTW's configure failed ($TREE/configure.log)" >&2; return 1; }
        o=$DIR/src/fftw-obj
        rm -rf "$o"
        mkdir -p "$o"
        for f in "$TREE"/libbench2/*.c; do
            mpicc -O2 -I"$TREE" -c "$f" -o "$o/$(basename "$f" .c).o"
        done
        ar rcs "$o/libbench2.a" "$o"/*.o
        I="-I$TREE -I$TREE/api -I$TREE/kernel -I$TREE/dft -I$TREE/rdft -I$TREE/mpi"
        # shellcheck disable=SC2086 # I is words
        for f in mpi/mpi-bench.c tests/fftw-bench.c tests/hook.c; do
            mpicc -O2 $I -c "$TREE/$f" -o "$o/$(basename "$f" .c).x.o"
        done
        mpicc -o "$out.tmp" "$o"/*.x.o "$o/libbench2.a" -lfftw3_mpi -lfftw3 -lm ;;
    *)
        echo "build-real.sh: unknown program '$1' (petsc-cg, hypre-amg, fftw-mpi)" >&2
        return 2 ;;
    esac
    mv "$out.tmp" "$out"
    echo "build-real.sh: built $out" >&2
}

for name in "$@"; do
    build "$name"
done
