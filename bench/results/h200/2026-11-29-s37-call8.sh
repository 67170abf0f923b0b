#!/usr/bin/env bash
# session 37 call 8: final main (g4n in 4 blocks an SM, the launcher's chunks for 16 warps): gpu_blas_rns, the fused
# bench at 106-1696 bits, ncu kernel times at 424 bits
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
timeout 120 $here/bin/gpu_blas_rns --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106,212,424,848,1696
echo "== $(date +%T) bench"
timeout 60 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
echo "== $(date +%T) ncu 424 (prep, scan, sums, finish us)"
MPBLAS_BENCH_BITS=424 timeout 60 $NCU --clock-control none --metrics gpu__time_duration.sum -k regex:blas_fused --launch-skip 16 --launch-count 12 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $5, $NF}' | tr -d '"' | paste - - - -
echo "== $(date +%T) done"
} > $log 2>&1
