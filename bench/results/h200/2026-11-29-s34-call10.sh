#!/usr/bin/env bash
# session 34 call 10: ncu (caches emptied before each kernel, as for the library's numbers) on the sums probe's
# per-16 kernels: touch (AoS), lean u1, full u1/u2/u4
set -uo pipefail
nvcc=$(command -v nvcc || ls /usr/local/cuda*/bin/nvcc | head -n 1)
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
"$nvcc" -O3 -std=c++17 -arch=sm_90 -o /tmp/fsp bench/probes/fused_sums_probe.cu
{
nvidia-smi -L | head -1
for spec in "touch<false>:423" "sums<false, 1>:846" "sums_full<1>:846" "sums_full<2>:846" "sums_full<4>:846"; do
  k=${spec%%:*}; skip=${spec##*:}
  echo "== $k (launch $skip of its kind)"
  timeout 120 $NCU --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.per_cycle_active -k "regex:^$(echo "$k" | sed 's/[<>]/./g')" --launch-skip $skip --launch-count 1 /tmp/fsp 2>&1 | grep -E "^ +(gpu__|dram__|smsp__|sm__)" 
done
} > $OUT/log.txt 2>&1
cat $OUT/log.txt
