#!/usr/bin/env bash
# session 40 call 4: main 0ac298d with the default overlap (the sums overlap the scan: MPBLAS_FUSED_OVERLAP=2)
# against ov3 (the scan also overlaps the prep: 3), 106-1696 bits, six rounds alternated
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
mkdir -p "$caches/base"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/base"
{
nvidia-smi -L | head -1
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106,212,424,848,1696
for r in 1 2 3 4 5 6; do
  for ov in 2 3; do
    [ $((r % 2)) = 0 ] && ov=$((5 - ov))
    echo "== $(date +%T) overlap $ov round $r"
    MPBLAS_FUSED_OVERLAP=$ov MPBLAS_CACHE_DIR=$caches/base timeout 60 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
done
echo "== $(date +%T) done"
} > $log 2>&1
