#!/usr/bin/env bash
# session 36 call 5: pre (the finish issues each row's loads at its start: the row's scalars, the beta y_i term's,
# the bucket's words into shared memory) against base (815307f): its tests, memcheck and racecheck, the bench
# alternated, ncu
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
for v in base pre; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
src() { [ "$1" = base ] && echo "" || echo "$here/variants/$1"; }
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
SAN=$(ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
export MPBLAS_KERNEL_SOURCE_DIR=$(src pre)
{
nvidia-smi -L | head -1
echo "== $(date +%T) tests gpu_blas_rns (pre)"
MPBLAS_CACHE_DIR=$caches/pre timeout 200 $here/bin/gpu_blas_rns --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
echo "== $(date +%T) tests gpu_lapack (pre)"
MPBLAS_CACHE_DIR=$caches/pre timeout 120 $here/bin/gpu_lapack --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
for tool in memcheck racecheck; do
  echo "== $(date +%T) $tool fused terms below the bucket, fused 106 (pre)"
  MPBLAS_CACHE_DIR=$caches/pre timeout 120 $SAN --tool $tool --error-exitcode 9 $here/bin/gpu_blas_rns fused_terms_below --include-ignored --test-threads=1 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test result|Error" | head -4
done
unset MPBLAS_KERNEL_SOURCE_DIR
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106,212,424,848,1696
for r in 1 2 3; do
  for v in base pre; do
    echo "== $(date +%T) $v round $r"
    MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v timeout 60 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
done
for b in 106 424 1696; do
for v in base pre; do
  echo "== $(date +%T) ncu $v $b (prep, scan, sums, finish us)"
  MPBLAS_BENCH_BITS=$b MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v timeout 60 $NCU --clock-control none --metrics gpu__time_duration.sum -k regex:blas_fused --launch-skip 16 --launch-count 16 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $NF}' | tr -d '"' | paste - - - -
done
done
echo "== $(date +%T) done"
} > $log 2>&1
