#!/bin/sh
# seeds.sh TOOL - writes the generated seeds of the OTF2 fuzz targets
# (make fuzz-seeds; tests/fuzz/README.md):
#   otf2/corpus/tg-*      archives written by OTF2 itself (up-fuzz-tool gen)
#   otf2/corpus/data-*    the small real traces of tests/data, packed
#   analysis/corpus/*-N   some of them with options byte N = 0..5 (each pass)
# Chunk sizes are set to 256 KiB (pack -s): the fuzzer runs faster.
set -eu
tool=$1
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$here/otf2/corpus" "$here/analysis/corpus"
rm -f "$here"/otf2/corpus/tg-* "$here"/otf2/corpus/data-* "$here"/analysis/corpus/*-[0-9]
"$tool" gen "$tmp"
cp "$tmp"/tg-* "$here/otf2/corpus/"
# the real traces small enough for a fuzz input (the others are 100 KB to 2 MB)
for t in casita-10_scorep_mpi_tags casita-1_scorep-ompt-host-nested casita-1_sptc \
         casita-2_cuda_simple casita-4_mpi_ls_barr pipit-ping-pong pipit-ping-pong-papi; do
    "$tool" pack -s "$data/$t" "$here/otf2/corpus/data-$t"
done
for s in tg-p2p tg-coll tg-rma tg-threads tg-misc tg-tracer data-casita-4_mpi_ls_barr data-pipit-ping-pong; do
    for n in 0 1 2 3 4 5; do
        "$tool" options "$here/otf2/corpus/$s" "$here/analysis/corpus/$s-$n" $n
    done
done
echo "seeds: $(ls "$here/otf2/corpus" | wc -l) otf2, $(ls "$here/analysis/corpus" | wc -l) analysis"
