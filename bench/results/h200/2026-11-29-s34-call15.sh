#!/usr/bin/env bash
# session 34 call 15: apass2 (out of line, its arguments by value) (the g <= 2 sums leave a term below its row's bucket to a second pass over the unit,
# fused_terms_alone, instead of a vote and an inlined path in every step): fused tests; bench alternated with
# main; ncu of the sums
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
vs="base apass2"
for v in $vs; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
src() { [ "$1" = base ] && echo "" || echo "$here/variants/$1"; }
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
{
nvidia-smi -L | head -1
echo "== $(date +%T) tests apass2 fused"
MPBLAS_KERNEL_SOURCE_DIR=$(src apass2) MPBLAS_CACHE_DIR=$caches/apass2 timeout 240 $here/bin/gpu_blas_rns --include-ignored --test-threads=1 fused 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106,212,424,848
for r in 1 2; do
  for v in $vs; do
    echo "== $(date +%T) $v round $r"
    MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v timeout 100 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
done
for v in $vs; do
  for b in 106 212; do
  echo "== $(date +%T) ncu $v sums $b"
  MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v MPBLAS_BENCH_BITS=$b timeout 120 $NCU --clock-control none --metrics gpu__time_duration.sum,launch__registers_per_thread -k regex:blas_fused_defer --launch-skip 10 --launch-count 4 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $5, $(NF-2), $NF}' | tr -d '"'
  done
done
echo "== $(date +%T) done"
} > $log 2>&1
