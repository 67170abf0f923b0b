#!/usr/bin/env bash
# Session 41 call 4: Dd gemv N two bottom nodes at once (four chains; quad, quadk: offsets stepped) against main (old)
# against main's kernels (variant old): gpu_blas (with the new 3 x 8197 case, specials inside full
# chunks), then f64,dd level 2 alternated, 3 rounds.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
vs="old quad quadk"
for v in $vs; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
src() { [ "$1" = base ] && echo "" || echo "$here/variants/$1"; }
run() { local c=$1; shift; MPBLAS_KERNEL_SOURCE_DIR=$(src $c) MPBLAS_CACHE_DIR=$caches/$c "$@"; }
{
nvidia-smi -L | head -1
for v in quad quadk; do
echo "== $(date +%T) tests gpu_blas $v"
run $v timeout 200 $here/bin/gpu_blas --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
done
export MPBLAS_BENCH_ONLY=gemv MPBLAS_BENCH_FORMATS=f64,dd
for r in 1 2 3; do
  order=$vs; [ $r = 2 ] && order="quadk quad old"
  for c in $order; do
    echo "== $(date +%T) $c round $r"
    run $c timeout 100 $here/bin/gpu_blas_bench 2>&1 | grep -E "gemv [NT]|cublasDgemv|ger |rror|panicked" | grep -v "rows/block"
  done
done
echo "== $(date +%T) done"
} > $log 2>&1
