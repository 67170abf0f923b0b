#!/usr/bin/env bash
# session 39 call 6: final main (210cbe8's kernels = bbbad56's): gpu_blas_rns, gpu_rns_bits, gpu_lapack; the sums
# g4n7 at 424 bits for Ax (launch 5) against Aᵀx (launch 25): memory sections, caches kept between launches
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
cache=/tmp/mpblas-cache; mkdir -p $cache; tar xzf "$here/kernel-cache.tar.gz" -C $cache
export MPBLAS_CACHE_DIR=$cache
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
{
nvidia-smi -L | head -1
for t in gpu_blas_rns gpu_rns_bits gpu_lapack; do
echo "== $(date +%T) tests $t"
timeout 150 $here/bin/$t --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
done
for skip in 4 25; do
echo "== $(date +%T) ncu g4n7 424 launch-skip $skip"
MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=424 timeout 90 $NCU --cache-control none --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats -k regex:defer_g4n7 --launch-skip $skip --launch-count 1 $here/bin/gpu_blas_bench > $OUT/g4n7-skip$skip.txt 2>&1
grep -E "Duration|DRAM Through|L2 Hit|L1/TEX Hit|Mem Busy|Max Bandwidth|Stall Long|Warp Cycles Per Issued" $OUT/g4n7-skip$skip.txt | head -12
done
echo "== $(date +%T) done"
} > $log 2>&1
