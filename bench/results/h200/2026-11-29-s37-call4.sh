#!/usr/bin/env bash
# session 37 call 4: the bundle (the ring at g = 4 for rows by default, the ring's stages 16-byte aligned) against
# unal (the ring unaligned, as call 3), wide (a_ij's residues copied 16 bytes at once where nb % 4 = 0, every ring
# kernel) and wide4 (the same at g = 4 only); gpu_blas_rns per variant, the bench alternated, ncu kernel times; T at
# 424 bits with the groups on rows (MPBLAS_FUSED_ROWS=1, so through the ring)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
vs="base unal wide wide4"
for v in $vs; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
src() { [ "$1" = base ] && echo "" || echo "$here/variants/$1"; }
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
{
nvidia-smi -L | head -1
for v in base wide wide4; do
  echo "== $(date +%T) tests gpu_blas_rns $v"
  MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v timeout 200 $here/bin/gpu_blas_rns --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
done
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=424,848,1696
for r in 1 2 3; do
  for v in $vs; do
    echo "== $(date +%T) $v round $r"
    MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v timeout 60 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
  echo "== $(date +%T) base T rows (MPBLAS_FUSED_ROWS=1) round $r"
  MPBLAS_FUSED_ROWS=1 MPBLAS_BENCH_BITS=424 MPBLAS_CACHE_DIR=$caches/base timeout 60 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
done
for b in 424 848 1696; do
for v in $vs; do
  echo "== $(date +%T) ncu $v $b (prep, scan, sums, finish us)"
  MPBLAS_BENCH_BITS=$b MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v timeout 60 $NCU --clock-control none --metrics gpu__time_duration.sum -k regex:blas_fused --launch-skip 16 --launch-count 12 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $5, $NF}' | tr -d '"' | paste - - - -
done
done
echo "== $(date +%T) done"
} > $log 2>&1
