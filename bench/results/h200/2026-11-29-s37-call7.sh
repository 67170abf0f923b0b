#!/usr/bin/env bash
# session 37 call 7: g4n with __launch_bounds__(128, 4) (b4: 128 registers, no spills; 16 warps an SM, the chunks
# sized for them: MPBLAS_FUSED_WARPS=2112) against main (128, 3: 154 registers, 12 warps); fused tests, the bench
# at 424 bits alternated, ncu
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
for v in base b4; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
src() { [ "$1" = base ] && echo "" || echo "$here/variants/$1"; }
wr() { [ "$1" = base ] && echo "" || echo 2112; }
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
{
nvidia-smi -L | head -1
echo "== $(date +%T) tests gpu_blas_rns fused b4"
MPBLAS_FUSED_WARPS=2112 MPBLAS_KERNEL_SOURCE_DIR=$(src b4) MPBLAS_CACHE_DIR=$caches/b4 timeout 100 $here/bin/gpu_blas_rns fused --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=424
for r in 1 2 3; do
  for v in base b4; do
    echo "== $(date +%T) $v round $r"
    if [ $v = b4 ]; then export MPBLAS_FUSED_WARPS=2112; else unset MPBLAS_FUSED_WARPS; fi
    MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v timeout 60 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
done
for v in base b4; do
  echo "== $(date +%T) ncu $v 424 (prep, scan, sums, finish us)"
  if [ $v = b4 ]; then export MPBLAS_FUSED_WARPS=2112; else unset MPBLAS_FUSED_WARPS; fi
  MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v timeout 60 $NCU --clock-control none --metrics gpu__time_duration.sum -k regex:blas_fused --launch-skip 16 --launch-count 12 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $5, $NF}' | tr -d '"' | paste - - - -
done
echo "== $(date +%T) done"
} > $log 2>&1
