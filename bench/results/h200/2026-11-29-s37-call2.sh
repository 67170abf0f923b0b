#!/usr/bin/env bash
# session 37 call 2: Dd gemv N with x's terms loaded once a warp and a lane pair (lane t one term, the steps
# take theirs by shuffles) and A's terms 4 (xb4) or 8 (xb8) steps ahead, against base (9e2d40d); the gpu_blas
# tests per variant, the gemv bench (f64, dd) alternated, three rounds; ncu DRAM of the dd rows pass
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
vs="base xb4 xb8"
for v in $vs; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
src() { [ "$1" = base ] && echo "" || echo "$here/variants/$1"; }
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
{
nvidia-smi -L | head -1
for v in xb4 xb8; do
  echo "== $(date +%T) tests gpu_blas $v"
  MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v timeout 200 $here/bin/gpu_blas --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
done
export MPBLAS_BENCH_ONLY=gemv MPBLAS_BENCH_FORMATS=f64,dd
for r in 1 2 3; do
  for v in $vs; do
    echo "== $(date +%T) $v round $r"
    MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v timeout 100 $here/bin/gpu_blas_bench 2>&1 | grep -E "gemv|rror|panicked"
  done
done
export MPBLAS_BENCH_FORMATS=dd
for v in $vs; do
  echo "== $(date +%T) ncu $v dd gemv rows (us, dram %, regs, warps/SM)"
  MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v timeout 100 $NCU --clock-control none --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,sm__warps_active.avg.per_cycle_active -k regex:blas_dd_gemv_rows --launch-skip 3 --launch-count 1 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $(NF-2), $NF}' | tr -d '"' | paste - - - -
done
echo "== $(date +%T) done"
} > $log 2>&1
