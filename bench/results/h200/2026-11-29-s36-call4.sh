#!/usr/bin/env bash
# session 36 call 4: the final build (scan's finite test, bucket extension by lane groups, the listed terms below the
# bucket out of line and batches of 8 in the binary finish's rounding) against old (44b5949's kernel file):
# gpu_blas_rns, gpu_lapack, memcheck and racecheck of the terms-below-the-bucket test, the bench alternated, ncu
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
for v in base old li; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
src() { [ "$1" = base ] && echo "" || echo "$here/variants/$1"; }
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
SAN=$(ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
{
nvidia-smi -L | head -1
echo "== $(date +%T) tests gpu_blas_rns"
MPBLAS_CACHE_DIR=$caches/base timeout 200 $here/bin/gpu_blas_rns --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
echo "== $(date +%T) tests gpu_lapack"
MPBLAS_CACHE_DIR=$caches/base timeout 120 $here/bin/gpu_lapack --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
for tool in memcheck racecheck; do
  echo "== $(date +%T) $tool fused terms below the bucket"
  MPBLAS_CACHE_DIR=$caches/base timeout 120 $SAN --tool $tool --error-exitcode 9 $here/bin/gpu_blas_rns fused_terms_below --include-ignored --test-threads=1 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test result|Error" | head -4
done
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106,212,424,848,1696
for r in 1 2 3; do
  for v in old base; do
    echo "== $(date +%T) $v round $r"
    MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v timeout 60 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
done
for b in 106 212 424 848 1696; do
  echo "== $(date +%T) ncu base $b (prep, scan, sums, finish us)"
  MPBLAS_BENCH_BITS=$b MPBLAS_CACHE_DIR=$caches/base timeout 60 $NCU --clock-control none --metrics gpu__time_duration.sum -k regex:blas_fused --launch-skip 16 --launch-count 16 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $NF}' | tr -d '"' | paste - - - -
done
echo "== $(date +%T) ncu full li 106"
MPBLAS_BENCH_BITS=106 MPBLAS_CACHE_DIR=$caches/li timeout 150 $NCU --set full --import-source no -k regex:blas_fused_finish --launch-skip 4 --launch-count 1 -o $OUT/fin106 $here/bin/gpu_blas_bench > $OUT/ncufin.txt 2>&1
$NCU -i $OUT/fin106.ncu-rep --page source --csv --print-source sass > $OUT/fin106.csv 2>&1
rm -f $OUT/fin106.ncu-rep
echo "== $(date +%T) done"
} > $log 2>&1
