#!/usr/bin/env bash
# session 36 call 6: pre2 (pre with the bucket's words loaded early only in the binary finish) against base (815307f)
# and pre: gpu_blas_rns and racecheck of pre2, ncu at 106 and 1696 bits, the bench at 106, 1696
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
for v in base pre pre2; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
src() { [ "$1" = base ] && echo "" || echo "$here/variants/$1"; }
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
SAN=$(ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
{
nvidia-smi -L | head -1
echo "== $(date +%T) tests gpu_blas_rns (pre2)"
MPBLAS_KERNEL_SOURCE_DIR=$(src pre2) MPBLAS_CACHE_DIR=$caches/pre2 timeout 100 $here/bin/gpu_blas_rns --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
echo "== $(date +%T) racecheck fused terms below the bucket (pre2)"
MPBLAS_KERNEL_SOURCE_DIR=$(src pre2) MPBLAS_CACHE_DIR=$caches/pre2 timeout 60 $SAN --tool racecheck --error-exitcode 9 $here/bin/gpu_blas_rns fused_terms_below --include-ignored --test-threads=1 2>&1 | grep -E "RACECHECK SUMMARY|test result" | head -3
for b in 1696 106; do
for v in base pre pre2; do
  echo "== $(date +%T) ncu $v $b (prep, scan, sums, finish us)"
  MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=$b MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v timeout 40 $NCU --clock-control none --metrics gpu__time_duration.sum -k regex:blas_fused --launch-skip 16 --launch-count 16 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $NF}' | tr -d '"' | paste - - - -
done
done
echo "== $(date +%T) done"
} > $log 2>&1
