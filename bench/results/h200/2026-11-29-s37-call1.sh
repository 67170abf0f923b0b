#!/usr/bin/env bash
# session 37 call 1: the bundle (the alone term's extension through fused_extra_residue<1>, its rank through
# fused_rank_warp, the bucket's tail through fused_extra_join: same integers) against head (2eba733's kernel
# file): gpu_blas_rns, memcheck of the terms-below-the-bucket test, the bench alternated, ncu kernel times; full
# ncu profiles with line information (variant li: the bundle's source) of the sums kernels at 424, 848, 1696 bits
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
for v in base head li; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
src() { [ "$1" = base ] && echo "" || echo "$here/variants/$1"; }
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
SAN=$(ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
{
nvidia-smi -L | head -1
echo "== $(date +%T) tests gpu_blas_rns"
MPBLAS_CACHE_DIR=$caches/base timeout 200 $here/bin/gpu_blas_rns --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
echo "== $(date +%T) memcheck fused terms below the bucket"
MPBLAS_CACHE_DIR=$caches/base timeout 120 $SAN --tool memcheck --error-exitcode 9 $here/bin/gpu_blas_rns fused_terms_below --include-ignored --test-threads=1 2>&1 | grep -E "ERROR SUMMARY|test result|Error" | head -4
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106,212,424,848,1696
for r in 1 2 3; do
  for v in head base; do
    echo "== $(date +%T) $v round $r"
    MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v timeout 60 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
done
for b in 106 424 1696; do
for v in head base; do
  echo "== $(date +%T) ncu $v $b (prep, scan, sums, finish us)"
  MPBLAS_BENCH_BITS=$b MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v timeout 60 $NCU --clock-control none --metrics gpu__time_duration.sum -k regex:blas_fused --launch-skip 16 --launch-count 16 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $5, $NF}' | tr -d '"' | paste - - - -
done
done
for b in 424 848 1696; do
  echo "== $(date +%T) ncu full li $b (sums)"
  MPBLAS_NVRTC_LINEINFO=1 MPBLAS_BENCH_BITS=$b MPBLAS_KERNEL_SOURCE_DIR=$(src li) MPBLAS_CACHE_DIR=$caches/li timeout 150 $NCU --set full --import-source no -k regex:blas_fused_defer --launch-skip 4 --launch-count 1 -o $OUT/full$b $here/bin/gpu_blas_bench > $OUT/ncu$b.txt 2>&1
  tail -2 $OUT/ncu$b.txt
  $NCU -i $OUT/full$b.ncu-rep --page source --csv --print-source sass > $OUT/src$b.csv 2>&1
  $NCU -i $OUT/full$b.ncu-rep --page details > $OUT/details$b.txt 2>&1
done
ls -la $OUT
echo "== $(date +%T) done"
} > $log 2>&1
