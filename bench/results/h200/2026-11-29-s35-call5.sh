#!/usr/bin/env bash
# session 35 call 5: 042684d (two noted columns a lane's unit, 8 listed a row, the listed terms' scalars loaded
# at the row's start) against cc89bb9 (old): gpu_blas_rns, memcheck of the new test, the bench alternated,
# ncu of the new build's kernels at 106 and 424 bits
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
for v in base old; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
bin() { [ "$1" = base ] && echo "$here/bin" || echo "$here/variants/$1/bin"; }
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
SAN=$(ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
{
nvidia-smi -L | head -1
echo "== $(date +%T) tests gpu_blas_rns"
MPBLAS_CACHE_DIR=$caches/base timeout 150 $here/bin/gpu_blas_rns --include-ignored --test-threads=1 2>&1 | grep -E "^test .*(FAILED|below)|panicked|test result" | head -8
echo "== $(date +%T) memcheck fused terms below the bucket"
MPBLAS_CACHE_DIR=$caches/base timeout 60 $SAN --tool memcheck --error-exitcode 9 $here/bin/gpu_blas_rns fused_terms_below --include-ignored --test-threads=1 2>&1 | grep -E "ERROR SUMMARY|test result" | head -3
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106,212,424,848,1696
for r in 1 2 3; do
  for v in old base; do
    echo "== $(date +%T) $v round $r"
    MPBLAS_CACHE_DIR=$caches/$v timeout 60 $(bin $v)/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
done
for b in 106 424; do
  echo "== $(date +%T) ncu base $b"
  MPBLAS_BENCH_BITS=$b MPBLAS_CACHE_DIR=$caches/base timeout 60 $NCU --clock-control none --metrics gpu__time_duration.sum -k regex:blas_fused --launch-skip 16 --launch-count 8 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $5, $NF}' | tr -d '"' | paste - - - -
done
echo "== $(date +%T) done"
} > $log 2>&1
