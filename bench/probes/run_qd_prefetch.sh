#!/usr/bin/env bash
# On the GPU machine, from the repository root: bash bench/probes/run_qd_prefetch.sh
# The production quad-double reductions (qd_probe_prod.cu) compiled with each prefetch distance
# in PREFETCHES (MPBLAS_QD_PREFETCH of blas_level1_gpu.cu), in parallel, each timed at 256-32
# threads per block with cuBLAS in the same run (qd_probe_main.cu built with PROBE_PROD_ONLY).
set -euo pipefail
out=${OUT:-/tmp}
src=crates/mpblas/src
b=/tmp/qd_prefetch_build
mkdir -p $b
sed '/^extern "C"/,$d' $src/blas/blas_level1_gpu.cu > $b/level1_templates.cuh
flags="-O3 -std=c++17 -arch=sm_90 --fmad=false -I $b -I bench/probes -I $src -I $src/dd -I $src/qd -I $src/blas"
start=$(date +%s)
pids=()
nvcc $flags -DPROBE_PROD_ONLY -c bench/probes/qd_probe_main.cu -o $b/main.o > $b/main.log 2>&1 &
pids+=($!)
for p in ${PREFETCHES:-0 2 4 8}; do
    nvcc $flags -DMPBLAS_QD_PREFETCH=$p -c bench/probes/qd_probe_prod.cu -o $b/prod$p.o > $b/prod$p.log 2>&1 &
    pids+=($!)
done
fail=0
for p in "${pids[@]}"; do wait $p || fail=1; done
echo "compiled in $(( $(date +%s) - start )) s"
if [ $fail = 1 ]; then cat $b/*.log; exit 1; fi
for p in ${PREFETCHES:-0 2 4 8}; do
    nvcc -arch=sm_90 -o $b/probe$p $b/main.o $b/prod$p.o -lcublas
    echo "== MPBLAS_QD_PREFETCH=$p" | tee -a "$out/qd-prefetch.txt"
    $b/probe$p | tee -a "$out/qd-prefetch.txt"
done
