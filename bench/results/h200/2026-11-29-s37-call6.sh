#!/usr/bin/env bash
# session 37 call 6: final main (cdf1935's kernels and launcher): gpu_blas_rns, reproduce gemv --gpu, the fused bench
# three rounds, ncu kernel times at 106, 424 and 1696 bits
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
cache=/tmp/mpblas-cache
mkdir -p $cache; tar xzf "$here/kernel-cache.tar.gz" -C $cache
export MPBLAS_CACHE_DIR=$cache
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
{
nvidia-smi -L | head -1
echo "== $(date +%T) tests gpu_blas_rns"
timeout 200 $here/bin/gpu_blas_rns --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
echo "== $(date +%T) reproduce gemv --gpu"
timeout 150 $here/bin/mpblas reproduce gemv --gpu > $OUT/reproduce.txt 2>&1; echo "rc $?"
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106,212,424,848,1696
for r in 1 2 3; do
  echo "== $(date +%T) round $r"
  timeout 60 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked"
done
for b in 106 424 1696; do
  echo "== $(date +%T) ncu $b (prep, scan, sums, finish us)"
  MPBLAS_BENCH_BITS=$b timeout 60 $NCU --clock-control none --metrics gpu__time_duration.sum -k regex:blas_fused --launch-skip 16 --launch-count 12 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $5, $NF}' | tr -d '"' | paste - - - -
done
echo "== $(date +%T) done"
} > $log 2>&1
