#!/usr/bin/env bash
# session 33 call 7: cring-s33 (the g = 1 sums through a coalesced staging ring): tests, bench against main and
# MPBLAS_FUSED_CRING=0, ncu; then main 4f996f9 (resident_blocks cached): gpu_blas, gpu_blas_rns, gpu_ozaki, gpu_lapack
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
for lib in libnvrtc.so.13 libcublas.so.13; do
    d=$(find / -xdev -name "$lib" -not -path '/proc/*' 2>/dev/null | head -n 1 | xargs -r dirname)
    [ -n "$d" ] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
caches=/tmp/mpblas-variants
for v in base cring; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
C=$here/variants/cring/bin
{
nvidia-smi -L | head -1
echo "== $(date +%T) tests fused cring"
MPBLAS_CACHE_DIR=$caches/cring timeout 200 $C/gpu_blas_rns --include-ignored --test-threads=1 fused 2>&1 | grep -E "^test .*FAILED|panicked|test result|mismatch|differ" | head -8
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1
for r in 1 2 3; do
  echo "== $(date +%T) base round $r"
  MPBLAS_CACHE_DIR=$caches/base MPBLAS_BENCH_BITS=106,212 timeout 100 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  echo "== $(date +%T) cring round $r"
  MPBLAS_CACHE_DIR=$caches/cring MPBLAS_BENCH_BITS=106,212 timeout 100 $C/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  echo "== $(date +%T) cring off round $r"
  MPBLAS_FUSED_CRING=0 MPBLAS_CACHE_DIR=$caches/cring MPBLAS_BENCH_BITS=106 timeout 100 $C/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
done
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
M="gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,sm__warps_active.avg.per_cycle_active"
for v in base cring; do
  bin=$here/bin; [ $v = cring ] && bin=$C
  echo "== $(date +%T) ncu $v defer_g1 106 (N then T)"
  MPBLAS_CACHE_DIR=$caches/$v MPBLAS_BENCH_BITS=106 timeout 120 $NCU --clock-control none --metrics "$M" -k blas_fused_defer_g1 --launch-skip 20 --launch-count 1 --csv $bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $(NF-2), $NF}' | tr -d '"'
done
unset MPBLAS_BENCH_ONLY MPBLAS_BENCH_FUSED_ONLY
for t in gpu_blas gpu_blas_rns gpu_ozaki gpu_lapack; do
  echo "== $(date +%T) main tests $t"
  MPBLAS_CACHE_DIR=$caches/base timeout 240 $here/bin/$t --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -5
done
echo "== $(date +%T) done"
} > $log 2>&1
