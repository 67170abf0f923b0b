#!/usr/bin/env bash
# session 38 call 3: the batches' scalar parts prefetched 2 (pf2) or 3 (pf3) batches ahead instead of 1 (base:
# df5fe23), every batched sums kernel (the line profile at 424 bits: 22% of the samples on the batch top's loads)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
for v in base pf2 pf3; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/
done
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
run() { local c=$1; shift
  if [ $c = base ]; then MPBLAS_CACHE_DIR=$caches/base "$@"; else MPBLAS_KERNEL_SOURCE_DIR=$here/variants/$c MPBLAS_CACHE_DIR=$caches/$c "$@"; fi
}
{
nvidia-smi -L | head -1
echo "== $(date +%T) tests fused pf2"
run pf2 timeout 100 $here/bin/gpu_blas_rns fused --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106,212,424,848,1696
for r in 1 2 3; do
  for c in base pf2 pf3; do
    echo "== $(date +%T) $c round $r"
    run $c timeout 60 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
done
for b in 424 848 1696; do
for c in base pf2 pf3; do
  echo "== $(date +%T) ncu $c $b (prep, scan, sums, finish us)"
  MPBLAS_BENCH_BITS=$b run $c timeout 60 $NCU --clock-control none --metrics gpu__time_duration.sum -k regex:blas_fused --launch-skip 16 --launch-count 12 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $5, $NF}' | tr -d '"' | paste - - - -
done
done
echo "== $(date +%T) done"
} > $log 2>&1
