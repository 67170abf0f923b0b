#!/usr/bin/env bash
# session 37 call 3: the sums at g = 4 (424 bits, N: the warp's groups on rows) through the ring with d_j's words
# shared (blas_fused_defer_g4n, MPBLAS_FUSED_RING4=1: blocks of 128, 3 an SM) against blas_fused_defer_g4 (no
# ring, 256 threads, 2 an SM), and g = 8 forced at 424 bits (MPBLAS_FUSED_G=8); gpu_blas_rns with the ring, the bench alternated, ncu kernel times and stalls
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
echo "== $(date +%T) tests gpu_blas_rns ring4"
MPBLAS_FUSED_RING4=1 timeout 200 $here/bin/gpu_blas_rns --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=212,424,848
for r in 1 2 3; do
  for v in 0 1; do
    echo "== $(date +%T) ring4=$v round $r"
    MPBLAS_FUSED_RING4=$v timeout 60 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
  echo "== $(date +%T) g=8 at 424 (MPBLAS_FUSED_G=8) round $r"
  MPBLAS_FUSED_G=8 MPBLAS_BENCH_BITS=424 timeout 60 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
done
for v in 0 1; do
  echo "== $(date +%T) ncu ring4=$v 424 (prep, scan, sums, finish us)"
  MPBLAS_FUSED_RING4=$v MPBLAS_BENCH_BITS=424 timeout 60 $NCU --clock-control none --metrics gpu__time_duration.sum -k regex:blas_fused --launch-skip 16 --launch-count 16 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $5, $NF}' | tr -d '"' | paste - - - -
  echo "== $(date +%T) ncu ring4=$v 424 sums details"
  MPBLAS_FUSED_RING4=$v MPBLAS_BENCH_BITS=424 timeout 100 $NCU --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats -k regex:blas_fused_defer --launch-skip 4 --launch-count 1 $here/bin/gpu_blas_bench 2>&1 | grep -E "Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Stall Long|Stall Wait|Block Size|Grid Size" | head -12
done
echo "== $(date +%T) done"
} > $log 2>&1
