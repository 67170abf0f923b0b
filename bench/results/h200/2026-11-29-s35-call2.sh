#!/usr/bin/env bash
# session 35 call 2: the fused sums without the path of a kept term below the bucket (timing: a row flag
# instead, the finish does not add those terms yet): na; napp: also two terms in flight at g <= 2.
# The fused tests on each (which cases hold such terms), the bench alternated, ncu of the sums.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
vs="base na napp"
for v in $vs; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
src() { [ "$1" = base ] && echo "" || echo "$here/variants/$1"; }
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
{
nvidia-smi -L | head -1
for v in na napp; do
  echo "== $(date +%T) tests $v"
  MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v timeout 200 $here/bin/gpu_blas_rns fused --include-ignored --test-threads=1 2>&1 | grep -E "^test |test result" | head -12
done
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106,212,424,848,1696
for r in 1 2 3; do
  for v in $vs; do
    echo "== $(date +%T) $v round $r"
    MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v timeout 100 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
done
for v in $vs; do
  for b in 106 212 424; do
  echo "== $(date +%T) ncu $v $b"
  MPBLAS_BENCH_BITS=$b MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v timeout 120 $NCU --clock-control none --metrics gpu__time_duration.sum,launch__registers_per_thread -k regex:blas_fused_defer --launch-skip 10 --launch-count 4 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $5, $(NF-2), $NF}' | tr -d '"'
  done
done
echo "== $(date +%T) done"
} > $log 2>&1
