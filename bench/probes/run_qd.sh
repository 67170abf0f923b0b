#!/usr/bin/env bash
# On the GPU machine, from the repository root: bash bench/probes/run_qd.sh
# Builds the qd_probe_*.cu units (in parallel: each quad-double unit takes a minute or more)
# against the production kernels, runs the probe, then ncu on a few kernels.
set -euo pipefail
out=${OUT:-/tmp}
src=crates/mpblas/src
b=/tmp/qd_probe_build
mkdir -p $b
# The production templates, without the entry points.
sed '/^extern "C"/,$d' $src/blas/blas_level1_gpu.cu > $b/level1_templates.cuh
flags="-O3 -std=c++17 -arch=sm_90 --fmad=false -I $b -I bench/probes -I $src -I $src/dd -I $src/qd -I $src/blas"
start=$(date +%s)
pids=()
for u in prod vsum vdot vnrm2 main; do
    timeout ${NVCC_TIMEOUT:-400} nvcc $flags -c bench/probes/qd_probe_$u.cu -o $b/$u.o > $b/$u.log 2>&1 &
    pids+=($!)
done
fail=0
for p in "${pids[@]}"; do wait $p || fail=1; done
echo "compiled in $(( $(date +%s) - start )) s"
if [ $fail = 1 ]; then cat $b/*.log; exit 1; fi
nvcc -arch=sm_90 -o /tmp/qd_probe $b/*.o -lcublas
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv
/tmp/qd_probe > "$out/qd-probe.txt" 2>&1; cat "$out/qd-probe.txt"
if [ "${NCU:-1}" = 1 ] && command -v ncu >/dev/null; then
    ncu --clock-control none -k regex:"${NCU_K:-blas_qd_(sum|dot|nrm2)_blocked|v_}" \
        --section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats \
        --section ComputeWorkloadAnalysis --section InstructionStats \
        /tmp/qd_probe $((1 << 27)) ncu > "$out/qd-ncu.txt" 2>&1 || echo "ncu failed"
    grep -E '^\s+(blas_|void v_|v_)|Duration|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|Issue Slots Busy|Warp Cycles Per Issued|Executed Ipc A' "$out/qd-ncu.txt" | head -150
fi
