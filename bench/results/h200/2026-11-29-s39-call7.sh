#!/usr/bin/env bash
# session 39 call 7: base (main bdc4816) against b2 (branch batch2-s39: two terms' words a lane at each batch top of
# the batched sums, g >= 4): gpu_blas_rns with b2, alternated bench at 300-1696 bits, ncu sums (N and T at 424)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
for v in base b2; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ $v = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/
done
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
run() { local c=$1; shift
  if [ $c = base ]; then MPBLAS_CACHE_DIR=$caches/base "$@"; else MPBLAS_KERNEL_SOURCE_DIR=$here/variants/$c MPBLAS_CACHE_DIR=$caches/$c "$@"; fi; }
{
nvidia-smi -L | head -1
echo "== $(date +%T) tests gpu_blas_rns b2"
run b2 timeout 150 $here/bin/gpu_blas_rns --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=300,424,848,1696
for r in 1 2 3; do
  for c in base b2; do
    echo "== $(date +%T) $c round $r"
    run $c timeout 60 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
done
for b in 424:4 424:25 848:4 1696:4; do
for c in base b2; do
  echo "== $(date +%T) ncu $c sums ${b%:*} bits, launch-skip ${b#*:} (us)"
  MPBLAS_BENCH_BITS=${b%:*} run $c timeout 60 $NCU --clock-control none --metrics gpu__time_duration.sum -k regex:blas_fused_defer --launch-skip ${b#*:} --launch-count 3 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $5, $NF}' | tr -d '"' | paste - - -
done
done
echo "== $(date +%T) done"
} > $log 2>&1
