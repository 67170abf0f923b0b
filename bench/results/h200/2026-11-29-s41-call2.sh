#!/usr/bin/env bash
# Session 41 call 2: Dd gemv steps checked once a batch (the bundle's build, dd-check c2f4c8d)
# against main's kernels (variant old): gpu_blas (with the new 3 x 8197 case, specials inside full
# chunks), then f64,dd level 2 alternated, 3 rounds.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
vs="base old"
for v in $vs; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
src() { [ "$1" = base ] && echo "" || echo "$here/variants/$1"; }
run() { local c=$1; shift; MPBLAS_KERNEL_SOURCE_DIR=$(src $c) MPBLAS_CACHE_DIR=$caches/$c "$@"; }
{
nvidia-smi -L | head -1
echo "== $(date +%T) tests gpu_blas base (checked once)"
run base timeout 200 $here/bin/gpu_blas --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
export MPBLAS_BENCH_ONLY=gemv MPBLAS_BENCH_FORMATS=f64,dd
for r in 1 2 3; do
  for c in $vs; do
    [ $r = 2 ] && c=$([ $c = base ] && echo old || echo base)
    echo "== $(date +%T) $c round $r"
    run $c timeout 100 $here/bin/gpu_blas_bench 2>&1 | grep -E "gemv [NT]|cublasDgemv|ger |rror|panicked" | grep -v "rows/block"
  done
done
echo "== $(date +%T) done"
} > $log 2>&1
