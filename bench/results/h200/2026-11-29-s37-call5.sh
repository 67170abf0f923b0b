#!/usr/bin/env bash
# session 37 call 5 (call 4's bundle: cdf1935 but with the ring's stages 16-byte aligned, same times): 106 and 212 bits with the sums' groups
# forced wider (MPBLAS_FUSED_G=4: the batched loop through the ring on rows, g4n; =8: g8n) against their defaults
# (g = 1, 2: fused_terms_each, no ring); gpu_blas_rns with G=4, the bench alternated, ncu kernel times
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
echo "== $(date +%T) tests gpu_blas_rns G=4"
MPBLAS_FUSED_G=4 timeout 200 $here/bin/gpu_blas_rns --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106,212
for r in 1 2 3; do
  for g in default 4 8; do
    echo "== $(date +%T) G=$g round $r"
    if [ $g = default ]; then unset MPBLAS_FUSED_G; else export MPBLAS_FUSED_G=$g; fi
    timeout 60 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
done
unset MPBLAS_FUSED_G
for b in 106 212; do
for g in default 4; do
  echo "== $(date +%T) ncu G=$g $b (prep, scan, sums, finish us)"
  if [ $g = default ]; then unset MPBLAS_FUSED_G; else export MPBLAS_FUSED_G=$g; fi
  MPBLAS_BENCH_BITS=$b timeout 60 $NCU --clock-control none --metrics gpu__time_duration.sum -k regex:blas_fused --launch-skip 16 --launch-count 12 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $5, $NF}' | tr -d '"' | paste - - - -
done
done
echo "== $(date +%T) done"
} > $log 2>&1
