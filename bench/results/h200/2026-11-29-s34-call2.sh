#!/usr/bin/env bash
# session 34 call 2: branch scan-beside-prep-s34 with the d_j worked out once a block in shared memory;
# the finish leaves the rows' records empty): RNS tests; bench alternated against main; ncu of the kernels
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
for v in base main; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
{
nvidia-smi -L | head -1
for t in gpu_blas_rns; do
  echo "== $(date +%T) tests branch $t"
  MPBLAS_CACHE_DIR=$caches/base timeout 240 $here/bin/$t --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
done
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106,212,424,848
for r in 1 2 3; do
  echo "== $(date +%T) main round $r"
  MPBLAS_CACHE_DIR=$caches/main timeout 100 $here/variants/main/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  echo "== $(date +%T) branch round $r"
  MPBLAS_CACHE_DIR=$caches/base timeout 100 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
done
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
echo "== $(date +%T) ncu branch 106 (N, T)"
MPBLAS_CACHE_DIR=$caches/base MPBLAS_BENCH_BITS=106 timeout 120 $NCU --clock-control none --metrics gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.per_cycle_active -k regex:blas_fused --launch-skip 40 --launch-count 8 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $5, $(NF-2), $NF}' | tr -d '"'
echo "== $(date +%T) done"
} > $log 2>&1
