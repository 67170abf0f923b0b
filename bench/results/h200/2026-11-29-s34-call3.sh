#!/usr/bin/env bash
# session 34 call 3: branch scan-beside-prep-s34, the scan's first terms of A loaded while its block works out d_j
# (72 registers; variant lb4: (256, 4) bounds, 64 registers): tests; bench against main and the branch's scan
# after the prep (MPBLAS_FUSED_OVERLAP=2); ncu
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
for v in base main lb4; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
{
nvidia-smi -L | head -1
echo "== $(date +%T) tests branch gpu_blas_rns"
MPBLAS_CACHE_DIR=$caches/base timeout 240 $here/bin/gpu_blas_rns --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
echo "== $(date +%T) tests lb4 fused"
MPBLAS_KERNEL_SOURCE_DIR=$here/variants/lb4 MPBLAS_CACHE_DIR=$caches/lb4 timeout 240 $here/bin/gpu_blas_rns --include-ignored --test-threads=1 fused 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106,212,424,848
for r in 1 2 3; do
  echo "== $(date +%T) main round $r"
  MPBLAS_CACHE_DIR=$caches/main timeout 100 $here/variants/main/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  echo "== $(date +%T) branch round $r"
  MPBLAS_CACHE_DIR=$caches/base timeout 100 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  echo "== $(date +%T) lb4 round $r"
  MPBLAS_KERNEL_SOURCE_DIR=$here/variants/lb4 MPBLAS_CACHE_DIR=$caches/lb4 timeout 100 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  echo "== $(date +%T) branch, scan after the prep, round $r"
  MPBLAS_FUSED_OVERLAP=2 MPBLAS_CACHE_DIR=$caches/base timeout 100 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
done
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
for v in base lb4; do
  src=""; [ $v = lb4 ] && src=$here/variants/lb4
  echo "== $(date +%T) ncu $v 106 (N, T)"
  MPBLAS_KERNEL_SOURCE_DIR=$src MPBLAS_CACHE_DIR=$caches/$v MPBLAS_BENCH_BITS=106 timeout 120 $NCU --clock-control none --metrics gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.per_cycle_active -k regex:blas_fused_scan --launch-skip 10 --launch-count 2 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $5, $(NF-2), $NF}' | tr -d '"'
done
echo "== $(date +%T) done"
} > $log 2>&1
