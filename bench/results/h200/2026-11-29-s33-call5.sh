#!/usr/bin/env bash
# session 33 call 5: the g = 1 sums with as many slots as base moduli (exact) and with it two terms a round, each loaded while the other runs (exactpp)
# pg1c (g = 1, the slots' constants as a kernel parameter, branch pipe-g1c-s33)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
for lib in libnvrtc.so.13 libcublas.so.13; do
    d=$(find / -xdev -name "$lib" -not -path '/proc/*' 2>/dev/null | head -n 1 | xargs -r dirname)
    [ -n "$d" ] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
caches=/tmp/mpblas-variants
for v in base exact exactpp; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
binof() { [ "$1" = pg1c ] && echo $here/variants/pg1c/bin || echo $here/bin; }
srcof() { case $1 in exact|exactpp) echo $here/variants/$1;; *) echo "";; esac; }
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1
{
nvidia-smi -L | head -1
for v in exact exactpp; do
  echo "== $(date +%T) tests fused $v"
  MPBLAS_KERNEL_SOURCE_DIR=$(srcof $v) MPBLAS_CACHE_DIR=$caches/$v timeout 200 $(binof $v)/gpu_blas_rns --include-ignored --test-threads=1 fused 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -5
done
for r in 1 2 3; do
  for v in base exact exactpp; do
    echo "== $(date +%T) $v round $r"
    MPBLAS_KERNEL_SOURCE_DIR=$(srcof $v) MPBLAS_CACHE_DIR=$caches/$v MPBLAS_BENCH_BITS=106,212,424 timeout 100 $(binof $v)/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
done
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
for v in base exact exactpp; do
  echo "== $(date +%T) ncu $v 106 212"
  for b in 106; do
  MPBLAS_KERNEL_SOURCE_DIR=$(srcof $v) MPBLAS_CACHE_DIR=$caches/$v MPBLAS_BENCH_BITS=$b timeout 120 $NCU --clock-control none --metrics gpu__time_duration.sum,sm__warps_active.avg.per_cycle_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active -k regex:blas_fused_defer --launch-skip 10 --launch-count 4 --csv $(binof $v)/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $5, $(NF-2), $NF}' | tr -d '"'
  done
done
echo "== $(date +%T) done"
} > $log 2>&1
