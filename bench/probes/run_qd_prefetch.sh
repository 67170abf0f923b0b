#!/usr/bin/env bash
# On the GPU machine, from the repository root: bash bench/probes/run_qd_prefetch.sh
# The production quad-double reductions (qd_probe_prod.cu) compiled with each prefetch distance
# in PREFETCHES (MPBLAS_QD_PREFETCH of blas_level1_gpu.cu), in parallel, each timed at 256-32
# threads per block with cuBLAS in the same run (qd_probe_main.cu built with PROBE_PROD_ONLY).
set -euo pipefail
b=/tmp/qd_prefetch_build
source bench/probes/qd_probe_env.sh
start=$(date +%s)
pids=()
nvcc $flags -DPROBE_PROD_ONLY -c bench/probes/qd_probe_main.cu -o $b/main.o > $b/main.log 2>&1 &
pids+=($!)
for p in ${PREFETCHES:-0 2 4 8}; do
    nvcc $flags -DMPBLAS_QD_PREFETCH=$p -c bench/probes/qd_probe_prod.cu -o $b/prod$p.o > $b/prod$p.log 2>&1 &
    pids+=($!)
done
wait_builds
for p in ${PREFETCHES:-0 2 4 8}; do
    nvcc -arch=sm_90 -o $b/probe$p $b/main.o $b/prod$p.o -lcublas
    echo "== MPBLAS_QD_PREFETCH=$p" | tee -a "$out/qd-prefetch.txt"
    $b/probe$p | tee -a "$out/qd-prefetch.txt"
done
