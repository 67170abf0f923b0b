#!/usr/bin/env bash
# session 36 call 1: scan variants (sblk: a block's warps joined in shared memory, one set of atomics a row and
# block; spf: sblk plus L2 prefetches of the scan's A fields before its wait, with the scan overlapping the prep)
# against base (44b5949); full ncu profiles (line info: variant li, the base's source compiled with -lineinfo)
# of the four kernels at 106 and 424 bits
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
for v in base sblk spf li; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
src() { case "$1" in base|li) echo "";; *) echo "$here/variants/$1";; esac; }
ovl() { [ "$1" = spf ] && echo 3 || echo 2; }
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
{
nvidia-smi -L | head -1
for v in sblk spf; do
  echo "== $(date +%T) tests $v (fused)"
  MPBLAS_FUSED_OVERLAP=$(ovl $v) MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v timeout 120 $here/bin/gpu_blas_rns fused --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
done
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106,212,424,848,1696
for r in 1 2 3; do
  for v in base sblk spf; do
    echo "== $(date +%T) $v round $r"
    MPBLAS_FUSED_OVERLAP=$(ovl $v) MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v timeout 60 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
done
for v in base sblk spf; do
  echo "== $(date +%T) ncu $v 106 (name, grid, us)"
  MPBLAS_FUSED_OVERLAP=$(ovl $v) MPBLAS_BENCH_BITS=106 MPBLAS_KERNEL_SOURCE_DIR=$(src $v) MPBLAS_CACHE_DIR=$caches/$v timeout 60 $NCU --clock-control none --metrics gpu__time_duration.sum -k regex:blas_fused --launch-skip 16 --launch-count 16 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $5, $9, $NF}' | tr -d '"' | paste - - - -
done
for b in 106 424; do
  echo "== $(date +%T) ncu full li $b"
  MPBLAS_BENCH_BITS=$b MPBLAS_CACHE_DIR=$caches/li timeout 150 $NCU --set full --import-source no -k regex:blas_fused --launch-skip 16 --launch-count 4 -o $OUT/full$b $here/bin/gpu_blas_bench > $OUT/ncu$b.txt 2>&1
  tail -3 $OUT/ncu$b.txt
  $NCU -i $OUT/full$b.ncu-rep --page source --csv --print-source sass > $OUT/src$b.csv 2>&1
  $NCU -i $OUT/full$b.ncu-rep --page details > $OUT/details$b.txt 2>&1
  ls -la $OUT
done
echo "== $(date +%T) done"
} > $log 2>&1
