#!/usr/bin/env bash
# session 40 call 3: main 0ac298d (the rank's fix-up by +-m): gpu_blas_rns, mpblas reproduce gemv --gpu; the
# GEMV at 106 / 424 / 848 / 1696 bits against old (ed7d546's kernel file) and ov3 (main with the scan also
# overlapping the prep, MPBLAS_FUSED_OVERLAP=3), three rounds, the order rotated each round
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
for v in base old; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
run() { local c=$1; shift
  case $c in
    base) MPBLAS_CACHE_DIR=$caches/base "$@";;
    ov3) MPBLAS_FUSED_OVERLAP=3 MPBLAS_CACHE_DIR=$caches/base "$@";;
    *) MPBLAS_KERNEL_SOURCE_DIR=$here/variants/$c MPBLAS_CACHE_DIR=$caches/$c "$@";;
  esac; }
{
nvidia-smi -L | head -1
echo "== $(date +%T) tests gpu_blas_rns (main)"
run base timeout 150 $here/bin/gpu_blas_rns --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
echo "== $(date +%T) reproduce gemv --gpu (main)"
run base timeout 150 $here/bin/mpblas reproduce gemv --gpu > $OUT/reproduce.txt 2>&1; echo "rc $?"
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106,424,848,1696
for order in "base old ov3" "old ov3 base" "ov3 base old"; do
  for c in $order; do
    echo "== $(date +%T) $c"
    run $c timeout 60 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
done
echo "== $(date +%T) done"
} > $log 2>&1
