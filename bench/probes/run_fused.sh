#!/usr/bin/env bash
# On the GPU machine, from the repository root: OUT=$OUT bash bench/probes/run_fused.sh
# Builds and runs the fused RNS GEMV's floor probes at 106 bits (fused_sums_probe.cu, fused_finish_probe.cu;
# README.md), output into $OUT/fused-probes.txt. About 15 s on the machine.
set -euo pipefail
out=${OUT:-/tmp}
nvcc=$(command -v nvcc || ls /usr/local/cuda*/bin/nvcc | head -n 1)
{
    nvidia-smi -L | head -n 1
    for p in fused_sums_probe fused_finish_probe; do
        echo "== $p"
        "$nvcc" -O3 -std=c++17 -arch=sm_90 -Xptxas -v -o "/tmp/$p" "bench/probes/$p.cu" 2>&1 |
            grep -E "registers|spill|error" || true
        "/tmp/$p"
    done
} > "$out/fused-probes.txt" 2>&1
cat "$out/fused-probes.txt"
