#!/usr/bin/env bash
# On the GPU machine, from the repository root: OUT=$OUT bash bench/probes/run_dd_gemv_bisect.sh
# Builds and runs the double-double gemv N bisection probe (dd_gemv_bisect.cu; README.md) with the
# library's options (no contraction of products into FMAs), output into $OUT/dd-gemv-bisect.txt.
# About 20 s on the machine.
set -euo pipefail
out=${OUT:-/tmp}
nvcc=$(command -v nvcc || ls /usr/local/cuda*/bin/nvcc | head -n 1)
{
    nvidia-smi -L | head -n 1
    "$nvcc" -O3 -std=c++17 -arch=sm_90 --fmad=false -Xptxas -v -I crates/mpblas/src \
        -o /tmp/dd_gemv_bisect bench/probes/dd_gemv_bisect.cu -lcublas 2>&1 | grep -E "registers|spill|error" || true
    /tmp/dd_gemv_bisect
} > "$out/dd-gemv-bisect.txt" 2>&1
cat "$out/dd-gemv-bisect.txt"
