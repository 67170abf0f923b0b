#!/usr/bin/env bash
# session 38 call 4: final main's launcher with MPBLAS_FUSED_SCAN_THREADS (the scan's threads with the rows in
# lanes: 262144 by default, against 65536 and 16384: 4, 16, 59 columns a thread at 1000 x 1000); mpblas reproduce
# gemv --gpu
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
echo "== $(date +%T) reproduce gemv --gpu"
timeout 150 $here/bin/mpblas reproduce gemv --gpu > $OUT/reproduce.txt 2>&1; echo "rc $?"
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106,212,424,848,1696
for r in 1 2 3; do
  for t in 262144 65536 16384; do
    echo "== $(date +%T) scan threads $t round $r"
    MPBLAS_FUSED_SCAN_THREADS=$t timeout 60 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
done
for b in 106 424; do
for t in 262144 65536 16384; do
  echo "== $(date +%T) ncu scan threads $t $b (prep, scan, sums, finish us)"
  MPBLAS_FUSED_SCAN_THREADS=$t MPBLAS_BENCH_BITS=$b timeout 60 $NCU --clock-control none --metrics gpu__time_duration.sum -k regex:blas_fused --launch-skip 16 --launch-count 12 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $5, $NF}' | tr -d '"' | paste - - - -
done
done
echo "== $(date +%T) done"
} > $log 2>&1
