#!/usr/bin/env bash
# session 33 call 8: the finish overlapping the sums (MPBLAS_FUSED_OVERLAP=6), its blocks spread by a dynamic
# shared-memory pad (MPBLAS_FINISH_PAD, branch finish-pad-s33)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
for lib in libnvrtc.so.13 libcublas.so.13; do
    d=$(find / -xdev -name "$lib" -not -path '/proc/*' 2>/dev/null | head -n 1 | xargs -r dirname)
    [ -n "$d" ] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
c=/tmp/mpblas-cache; mkdir -p $c; tar xzf "$here/kernel-cache.tar.gz" -C $c
export MPBLAS_CACHE_DIR=$c
F=$here/variants/fpad/bin
{
nvidia-smi -L | head -1
echo "== $(date +%T) tests fused overlap 6 pad 40960"
MPBLAS_FUSED_OVERLAP=6 MPBLAS_FINISH_PAD=40960 timeout 200 $F/gpu_blas_rns --include-ignored --test-threads=1 fused 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -5
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106,212,424,848
for r in 1 2; do
  echo "== $(date +%T) base round $r"
  timeout 100 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  for spec in "2 0" "6 0" "6 24576" "6 40960" "7 40960"; do
    set -- $spec
    echo "== $(date +%T) overlap $1 pad $2 round $r"
    MPBLAS_FUSED_OVERLAP=$1 MPBLAS_FINISH_PAD=$2 timeout 100 $F/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
done
echo "== $(date +%T) done"
} > $log 2>&1
