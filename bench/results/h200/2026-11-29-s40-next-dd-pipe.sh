#!/usr/bin/env bash
# For the next session: the GPU test and timing of branch dd-pipe-s40 (not run in session 40: its device
# time was spent). Here, before the call:
#   git checkout -b dd-pipe main && git am bench/results/h200/2026-11-29-s40-branch-dd-pipe-s40.patch
#   git checkout main && bash scripts/gpu-check.sh
#   mkdir -p /tmp/v/pipe4 /tmp/v/pipef64 && git show dd-pipe:crates/mpblas/src/blas/blas_level2_gpu.cu |
#       sed 's/^#define PIPELINE_STEPS 2$/#define PIPELINE_STEPS 4/' > /tmp/v/pipe4/blas_level2_gpu.cu
#   (echo '#define PIPELINE_F64'; git show dd-pipe:crates/mpblas/src/blas/blas_level2_gpu.cu) \
#       > /tmp/v/pipef64/blas_level2_gpu.cu
#   NVRTC_DIR=/tmp/mpblas-ci-nvrtc/nvidia/cu13/lib scripts/gpu-variants.sh pipe=dd-pipe pipe4=/tmp/v/pipe4 \
#       pipef64=/tmp/v/pipef64
#   (then keep gpu_blas, gpu_blas_bench and lib in gpu-bundle/bin, copy this file to gpu-bundle/)
# On the machine: bash gpu-bundle/2026-11-29-s40-next-dd-pipe.sh; the log in $OUT/log.txt.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
vs="base pipe pipe4 pipef64"
for v in $vs; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
src() { [ "$1" = base ] && echo "" || echo "$here/variants/$1"; }
run() { local c=$1; shift; MPBLAS_KERNEL_SOURCE_DIR=$(src $c) MPBLAS_CACHE_DIR=$caches/$c "$@"; }
{
nvidia-smi -L | head -1
for v in pipe pipe4 pipef64; do
  echo "== $(date +%T) tests gpu_blas $v"
  run $v timeout 200 $here/bin/gpu_blas --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
done
export MPBLAS_BENCH_ONLY=gemv MPBLAS_BENCH_FORMATS=f64,dd
for r in 1 2 3; do
  for c in $vs; do
    echo "== $(date +%T) $c round $r"
    run $c timeout 100 $here/bin/gpu_blas_bench 2>&1 | grep -E "gemv [NT] |cublasDgemv|ger |rror|panicked"
  done
done
echo "== $(date +%T) done"
} > $log 2>&1
