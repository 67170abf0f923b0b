#!/usr/bin/env bash
# session 35 call 6 (the re-read's mend): the term's sign and class helpers, fused_redc64 gone, the fused tests'
# CPU-against-GPU comparison in one helper: gpu_blas_rns, memcheck of the new test, one bench run
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
export MPBLAS_CACHE_DIR=/tmp/mpblas-cache
mkdir -p $MPBLAS_CACHE_DIR && tar xzf "$here/kernel-cache.tar.gz" -C $MPBLAS_CACHE_DIR
SAN=$(ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
{
nvidia-smi -L | head -1
echo "== $(date +%T) tests gpu_blas_rns"
timeout 150 $here/bin/gpu_blas_rns --include-ignored --test-threads=1 2>&1 | grep -E "^test |panicked|test result" | head -20
echo "== $(date +%T) memcheck fused terms below the bucket"
timeout 60 $SAN --tool memcheck --error-exitcode 9 $here/bin/gpu_blas_rns fused_terms_below --include-ignored --test-threads=1 2>&1 | grep -E "ERROR SUMMARY|test result" | head -3
echo "== $(date +%T) bench"
MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106,212,424,848,1696 timeout 60 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
echo "== $(date +%T) done"
} > $log 2>&1
