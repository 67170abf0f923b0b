#!/usr/bin/env bash
# session 39 call 5: base2 (main bbbad56's kernels: extf in rns.cuh) against cold (branch cold-s39: the binary
# rounding's rare paths out of line), fused tests, alternated bench, ncu times
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
for v in base2 cold; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    cp "$here/variants/$v"/*.cubin "$caches/$v"/
done
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
run() { local c=$1; shift; MPBLAS_KERNEL_SOURCE_DIR=$here/variants/$c MPBLAS_CACHE_DIR=$caches/$c "$@"; }
{
nvidia-smi -L | head -1
echo "== $(date +%T) tests gpu_blas_rns fused cold"
run cold timeout 150 $here/bin/gpu_blas_rns fused --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106,212,424,848,1696
for r in 1 2 3; do
  for c in base2 cold; do
    echo "== $(date +%T) $c round $r"
    run $c timeout 60 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
done
for b in 106 424 848; do
for c in base2 cold; do
  echo "== $(date +%T) ncu $c $b (prep, scan, sums, finish us)"
  MPBLAS_BENCH_BITS=$b run $c timeout 60 $NCU --clock-control none --metrics gpu__time_duration.sum -k regex:blas_fused --launch-skip 16 --launch-count 12 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $5, $NF}' | tr -d '"' | paste - - - -
done
done
echo "== $(date +%T) done"
} > $log 2>&1
