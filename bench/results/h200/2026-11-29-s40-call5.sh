#!/usr/bin/env bash
# session 40 call 5: main with the scan overlapping the prep (MPBLAS_FUSED_OVERLAP=3, the new default of
# e25c2fc's launcher; these binaries are 0ac298d's): gpu_blas_rns, then compute-sanitizer memcheck and
# racecheck on the fused GEMV tests at 106 bits and the exact products
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
export MPBLAS_CACHE_DIR=/tmp/mpblas-variants/base MPBLAS_FUSED_OVERLAP=3
mkdir -p $MPBLAS_CACHE_DIR; tar xzf "$here/kernel-cache.tar.gz" -C $MPBLAS_CACHE_DIR
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -n 1)
{
nvidia-smi -L | head -1
echo "== $(date +%T) tests gpu_blas_rns, overlap 3"
timeout 150 $here/bin/gpu_blas_rns --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
for tool in memcheck racecheck; do
  echo "== $(date +%T) $tool: the fused tests at 106 bits and the exact products, overlap 3"
  timeout 110 "$cs" --tool $tool --error-exitcode 99 --print-limit 20 $here/bin/gpu_blas_rns --include-ignored --test-threads=1 rns_gemv_fused_equals_the_cpu_106 rns_gemv_fused_exact_products_equal_the_cpu 2>&1 | grep -E "^test |test result|ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race reported|Hazard" | head -12
  echo "rc $?"
done
echo "== $(date +%T) done"
} > $log 2>&1
