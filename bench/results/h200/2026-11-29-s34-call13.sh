#!/usr/bin/env bash
# session 34 call 13: the library's g = 1 sums (defer_g1, 106 bits, N) with pieces removed, timing only (the bits
# are not the CPU's): noalone (no vote and path for a term below the bucket), noword (a trivial term word),
# noscal (no loads of d_j's info, a_ij's class and sign), all3; ncu durations
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
vs="base noalone noword noscal all3"
for v in $vs; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
src() { [ "$1" = base ] && echo "" || echo "$here/variants/$1"; }
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
{
nvidia-smi -L | head -1
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106
for v in $vs; do
  echo "== $(date +%T) ncu $v defer_g1"
  MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v timeout 120 $NCU --clock-control none --metrics gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread -k regex:blas_fused_defer_g1 --launch-skip 10 --launch-count 3 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $(NF-2), $NF}' | tr -d '"'
done
echo "== $(date +%T) done"
} > $log 2>&1
