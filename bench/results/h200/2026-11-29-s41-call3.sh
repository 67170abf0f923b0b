#!/usr/bin/env bash
# Session 41 call 3: ncu of the library's Dd gemv N rows pass (main's kernels, variant old) beside
# the session-40 probe's rows-pass pattern (dd_lanes, next batch ahead: 106% of cublasDgemv).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
mkdir -p $caches/old; tar xzf "$here/kernel-cache.tar.gz" -C $caches/old; cp $here/variants/old/*.cubin $caches/old/
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
nvcc=$(command -v nvcc || ls /usr/local/cuda*/bin/nvcc | head -n 1)
secs="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats --section InstructionStats --section SourceCounters"
{
nvidia-smi -L | head -1
"$nvcc" -O3 -std=c++17 -arch=sm_90 -Xptxas -v -o /tmp/probe $here/probe/dd_gemv_probe.cu -lcublas 2>&1 | grep -E "registers|error" | head -3
echo "== $(date +%T) probe"
timeout 100 /tmp/probe | tail -4
for v in 1 0; do
echo "== $(date +%T) ncu probe dd_lanes<$v>"
timeout 120 $NCU $secs --kernel-name-base mangled -k regex:dd_lanesILb$v --launch-skip 3 --launch-count 1 /tmp/probe > $OUT/ncu-probe$v.txt 2>&1; tail -2 $OUT/ncu-probe$v.txt
done
echo "== $(date +%T) ncu library blas_dd_gemv_rows (main)"
MPBLAS_BENCH_ONLY=gemv MPBLAS_BENCH_FORMATS=dd MPBLAS_KERNEL_SOURCE_DIR=$here/variants/old MPBLAS_CACHE_DIR=$caches/old \
  timeout 200 $NCU $secs -k regex:'^blas_dd_gemv_rows$' --launch-skip 3 --launch-count 1 $here/bin/gpu_blas_bench > $OUT/ncu-lib.txt 2>&1; tail -3 $OUT/ncu-lib.txt
echo "== $(date +%T) done"
} > $log 2>&1
