#!/usr/bin/env bash
# On the GPU machine, from the repository root: bash bench/probes/run.sh [n]
set -euo pipefail
n=${1:-8192}
out=${OUT:-/tmp}
cd "$(dirname "$0")"
nvcc -O3 -std=c++17 -arch=sm_90 --fmad=false -I ../../crates/mpblas/src/cuda/kernels \
    -o /tmp/ozaki_probe ozaki_stages.cu -lcublas -lcublasLt
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv
/tmp/ozaki_probe "$n" | tee "$out/probe-$n.txt"
if [ "${NCU:-1}" = 1 ] && command -v ncu >/dev/null; then
    ncu --clock-control none -k regex:"${NCU_K:-ozaki_(residues|crt)}" \
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
        --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis \
        /tmp/ozaki_probe "$n" ncu > "$out/ncu-$n.txt" 2>&1 || echo "ncu failed"
    grep -E '^\s+ozaki_|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|Stall|Issue Slots Busy|L1/TEX Hit|L2 Hit|Warp Cycles Per Issued|Bank' "$out/ncu-$n.txt" | head -120
fi
