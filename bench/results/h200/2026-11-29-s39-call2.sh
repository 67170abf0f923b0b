#!/usr/bin/env bash
# session 39 call 2: the bundle = g4s7-s39 (blas_fused_defer_g4s7: Aᵀx's g = 4 sums on columns with 7 slots);
# MPBLAS_FUSED_SLOTS7=0 gives the 8-slot g4, MPBLAS_FUSED_ROWS=1 takes Aᵀx through rows and the ring (g4n7).
# Then the finish's stall reasons at 106 bits.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
cache=/tmp/mpblas-cache; mkdir -p $cache; tar xzf "$here/kernel-cache.tar.gz" -C $cache
export MPBLAS_CACHE_DIR=$cache
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
run() { # slots7 rows cmd...
  local s=$1 r=$2; shift 2
  if [ $r = d ]; then MPBLAS_FUSED_SLOTS7=$s "$@"; else MPBLAS_FUSED_SLOTS7=$s MPBLAS_FUSED_ROWS=$r "$@"; fi
}
{
nvidia-smi -L | head -1
echo "== $(date +%T) tests gpu_blas_rns"
timeout 150 $here/bin/gpu_blas_rns --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=300,424
for r in 1 2 3; do
  for c in 1:d 0:d 1:1; do
    echo "== $(date +%T) slots7:rows $c round $r"
    run ${c%:*} ${c#*:} timeout 60 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
done
for c in 1:d 0:d 1:1; do
  echo "== $(date +%T) ncu slots7:rows $c 424 T (prep, scan, sums, finish us; N then T)"
  for skip in 16 100; do
  MPBLAS_BENCH_BITS=424 run ${c%:*} ${c#*:} timeout 60 $NCU --clock-control none --metrics gpu__time_duration.sum -k regex:blas_fused --launch-skip $skip --launch-count 12 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $5, $NF}' | tr -d '"' | paste - - - -
  done
done
echo "== $(date +%T) ncu finish_bin 106 stalls"
MPBLAS_BENCH_BITS=106 timeout 90 $NCU --section WarpStateStats --section SchedulerStats --section LaunchStats --section Occupancy --section InstructionStats -k regex:finish_bin --launch-skip 4 --launch-count 1 $here/bin/gpu_blas_bench 2>&1 | grep -vE "^\| |^==PROF==" | tail -80
echo "== $(date +%T) done"
} > $log 2>&1
