#!/usr/bin/env bash
# session 34 call 5: main, and the finish with each row's words (sums, bucket pairs, y_i's residues) prefetched at
# the row's start: fpre to L1, fpre2 to L2; fused tests; bench alternated; ncu of the finish
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
vs="base fpre fpre2"
for v in $vs; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
src() { [ "$1" = base ] && echo "" || echo "$here/variants/$1"; }
{
nvidia-smi -L | head -1
for v in fpre fpre2; do
  echo "== $(date +%T) tests $v fused"
  MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v timeout 240 $here/bin/gpu_blas_rns --include-ignored --test-threads=1 fused 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
done
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106,212,424,848
for r in 1 2 3; do
  for v in $vs; do
    echo "== $(date +%T) $v round $r"
    MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v timeout 100 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
done
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
for v in $vs; do
  echo "== $(date +%T) ncu $v finish 106 (N, T)"
  MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v MPBLAS_BENCH_BITS=106 timeout 120 $NCU --clock-control none --metrics gpu__time_duration.sum -k regex:blas_fused_finish --launch-skip 10 --launch-count 4 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $5, $NF}' | tr -d '"'
done
echo "== $(date +%T) done"
} > $log 2>&1
