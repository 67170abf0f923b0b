#!/usr/bin/env bash
# On the GPU machine, from the repository root: bash bench/probes/run_qd.sh
# Builds the qd_probe_*.cu units (in parallel: each quad-double unit takes a minute or more)
# against the production kernels, runs the probe, then ncu on a few kernels.
set -euo pipefail
b=/tmp/qd_probe_build
source bench/probes/qd_probe_env.sh
start=$(date +%s)
pids=()
for u in prod vsum vdot vnrm2 main; do
    timeout ${NVCC_TIMEOUT:-400} nvcc $flags -c bench/probes/qd_probe_$u.cu -o $b/$u.o > $b/$u.log 2>&1 &
    pids+=($!)
done
wait_builds
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
