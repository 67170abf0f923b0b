#!/usr/bin/env bash
# session 39 call 1: the bundle = s39-both (branch g12-slots7-s38's 7-slot kernels at g = 1, 2 plus
# rank-rcp-s38's unit rank by a reciprocal); variants: norank (g12-slots7-s38's kernels: the rank by
# divisions), fin (fin-s39: s39-both plus the finish's bound formed early and its zero test dropped).
# MPBLAS_FUSED_SLOTS7=0 gives the 8-slot g1/g2 kernels at 106/212 bits.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
for v in both norank fin; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ $v = both ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/
done
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
run() { # variant slots7 cmd...
  local v=$1 s=$2; shift 2
  if [ $v = both ]; then MPBLAS_FUSED_SLOTS7=$s MPBLAS_CACHE_DIR=$caches/$v "$@"
  else MPBLAS_FUSED_SLOTS7=$s MPBLAS_KERNEL_SOURCE_DIR=$here/variants/$v MPBLAS_CACHE_DIR=$caches/$v "$@"; fi
}
{
nvidia-smi -L | head -1
echo "== $(date +%T) tests gpu_blas_rns both"
run both 1 timeout 150 $here/bin/gpu_blas_rns --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
echo "== $(date +%T) tests fused fin"
run fin 1 timeout 100 $here/bin/gpu_blas_rns fused --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1
for r in 1 2 3; do
  for c in both:1:106,212,424,848,1696 both:0:106,212 norank:1:424,848,1696 fin:1:106,212,424,848,1696; do
    IFS=: read v s bits <<< "$c"
    echo "== $(date +%T) $v slots7=$s round $r"
    MPBLAS_BENCH_BITS=$bits run $v $s timeout 60 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
done
for c in both:1:106 both:0:106 fin:1:106 both:1:212 both:0:212 both:1:424 norank:1:424 fin:1:424 both:1:1696 norank:1:1696; do
  IFS=: read v s b <<< "$c"
  echo "== $(date +%T) ncu $v slots7=$s $b (prep, scan, sums, finish us)"
  MPBLAS_BENCH_BITS=$b run $v $s timeout 60 $NCU --clock-control none --metrics gpu__time_duration.sum -k regex:blas_fused --launch-skip 16 --launch-count 12 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $5, $NF}' | tr -d '"' | paste - - - -
done
echo "== $(date +%T) done"
} > $log 2>&1
