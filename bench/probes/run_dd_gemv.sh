#!/usr/bin/env bash
# On the GPU machine, from the repository root: OUT=$OUT bash bench/probes/run_dd_gemv.sh
# Builds and runs the double-double gemv N floor probe (dd_gemv_probe.cu; README.md), output into
# $OUT/dd-gemv-probe.txt. About 30 s on the machine.
set -euo pipefail
out=${OUT:-/tmp}
nvcc=$(command -v nvcc || ls /usr/local/cuda*/bin/nvcc | head -n 1)
{
    nvidia-smi -L | head -n 1
    "$nvcc" -O3 -std=c++17 -arch=sm_90 -Xptxas -v -o /tmp/dd_gemv_probe bench/probes/dd_gemv_probe.cu -lcublas 2>&1 |
        grep -E "registers|spill|error" || true
    /tmp/dd_gemv_probe
} > "$out/dd-gemv-probe.txt" 2>&1
cat "$out/dd-gemv-probe.txt"
