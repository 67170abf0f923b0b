#!/usr/bin/env bash
# Session 41 call 5: gpu_blas with main's kernels (variant old: the landed build's kernels; the
# bundle's binaries carry the landed test case, 3 x 8197 with specials inside full chunks).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
mkdir -p $caches/old; tar xzf "$here/kernel-cache.tar.gz" -C $caches/old; cp $here/variants/old/*.cubin $caches/old/
run() { MPBLAS_KERNEL_SOURCE_DIR=$here/variants/old MPBLAS_CACHE_DIR=$caches/old "$@"; }
{
nvidia-smi -L | head -1
echo "== $(date +%T) tests gpu_blas old (main's kernels)"
run timeout 200 $here/bin/gpu_blas --include-ignored --test-threads=1 2>&1 | grep -E "^test |panicked|test result" | head -30
echo "== $(date +%T) done"
} > $log 2>&1
