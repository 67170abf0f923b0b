#!/usr/bin/env bash
# session 33 call 6: what bounds the g = 1 sums and the scan at 106 bits: every stall reason, the L1 and L2 request
# and sector counts, DRAM throughput (ncu, main's kernels)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
for lib in libnvrtc.so.13 libcublas.so.13; do
    d=$(find / -xdev -name "$lib" -not -path '/proc/*' 2>/dev/null | head -n 1 | xargs -r dirname)
    [ -n "$d" ] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
c=/tmp/mpblas-cache; mkdir -p $c; tar xzf "$here/kernel-cache.tar.gz" -C $c
export MPBLAS_CACHE_DIR=$c MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
M="regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_lg.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,l1tex__throughput.avg.pct_of_peak_sustained_active,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__lsu_writeback_active.avg.pct_of_peak_sustained_active,l1tex__m_xbar2l1tex_read_bytes.sum,lts__average_t_sector_hit_rate_srcunit_tex.pct,sm__cycles_active.avg"
{
nvidia-smi -L | head -1
for k in blas_fused_defer_g1 blas_fused_scan; do
  echo "== $(date +%T) ncu $k 106"
  MPBLAS_BENCH_BITS=106 timeout 200 $NCU --clock-control none --metrics "$M" -k $k --launch-skip 20 --launch-count 1 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $(NF-2), $NF}' | tr -d '"' | awk '$2 != "0" && $2 != "0.00"'
done
echo "== $(date +%T) ncu defer_g1 106 source: hottest SASS by stall samples"
MPBLAS_BENCH_BITS=106 timeout 200 $NCU --clock-control none --section WarpStateStats --section SourceCounters -k blas_fused_defer_g1 --launch-skip 20 --launch-count 1 $here/bin/gpu_blas_bench 2>&1 | grep -vE "^==PROF==" | grep -iE "stall|warp cycles|sampl|uncoalesced|excessive|L1TEX|global" | head -40
echo "== $(date +%T) done"
} > $log 2>&1
