#!/usr/bin/env bash
# session 35 call 1: Dd gemv N with x loaded at each step (not held beside A's terms): xl4 (4 steps of A ahead,
# 86 registers), xl8 (8 steps, 118), xl4r80 (4 steps, __maxnreg__(80): 3 blocks an SM, 64 B spilled);
# dd gemv test per variant, then the gemv bench (f64, dd) alternated, three rounds
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
vs="base xl4 xl8 xl4r80"
for v in $vs; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
src() { [ "$1" = base ] && echo "" || echo "$here/variants/$1"; }
{
nvidia-smi -L | head -1
for v in $vs; do
  echo "== $(date +%T) test $v"
  MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v timeout 200 $here/bin/gpu_blas dd_gemv --include-ignored --test-threads=1 2>&1 | grep -E "^test |panicked|test result" | head -8
done
export MPBLAS_BENCH_ONLY=gemv MPBLAS_BENCH_FORMATS=f64,dd
for r in 1 2 3; do
  for v in $vs; do
    echo "== $(date +%T) $v round $r"
    MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v timeout 100 $here/bin/gpu_blas_bench 2>&1 | grep -E "gemv|rror|panicked"
  done
done
echo "== $(date +%T) done"
} > $log 2>&1
