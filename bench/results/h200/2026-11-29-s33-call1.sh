#!/usr/bin/env bash
# session 33 call 1: dd-bulk-s32 v2 (test + dd gemv N bench vs BULK=0); rns-g1-consts-s33 (fused tests + 106-bit bench vs main)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
for lib in libnvrtc.so.13 libcublas.so.13; do
    d=$(find / -xdev -name "$lib" -not -path '/proc/*' 2>/dev/null | head -n 1 | xargs -r dirname)
    [ -n "$d" ] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
caches=/tmp/mpblas-variants
for v in base bulk g1c; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
B=$here/variants/bulk/bin; G=$here/variants/g1c/bin
{
nvidia-smi -L | head -1
echo "== $(date +%T) tests dd gemv bulk v2"
MPBLAS_CACHE_DIR=$caches/bulk MPBLAS_GEMV_BULK=1 timeout 200 $B/gpu_blas --include-ignored --test-threads=1 dd_gemv 2>&1 | grep -E "^test .*FAILED|panicked|test result|mismatch" | head -3
echo "== $(date +%T) tests g1c fused"
MPBLAS_CACHE_DIR=$caches/g1c timeout 200 $G/gpu_blas_rns --include-ignored --test-threads=1 fused 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -5
for r in 1 2 3; do
  for bk in 0 1; do
    echo "== $(date +%T) gemv dd BULK=$bk round $r"
    MPBLAS_CACHE_DIR=$caches/bulk MPBLAS_GEMV_BULK=$bk MPBLAS_BENCH_ONLY=gemv MPBLAS_BENCH_FORMATS=dd timeout 100 $B/gpu_blas_bench 2>&1 | grep -E "gemv N |Dgemv N|rror|panicked" | grep -v "by rows"
  done
done
for r in 1 2 3; do
  echo "== $(date +%T) fused base 106,212 round $r"
  MPBLAS_CACHE_DIR=$caches/base MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106,212 timeout 100 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  echo "== $(date +%T) fused g1c 106,212 round $r"
  MPBLAS_CACHE_DIR=$caches/g1c MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106,212 timeout 100 $G/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  echo "== $(date +%T) fused g1c warps2112 106 round $r"
  MPBLAS_FUSED_WARPS=2112 MPBLAS_CACHE_DIR=$caches/g1c MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106 timeout 100 $G/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
done
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
for v in base g1c; do
  bin=$here/bin; [ $v = g1c ] && bin=$G
  echo "== $(date +%T) ncu durations 106 $v"
  MPBLAS_CACHE_DIR=$caches/$v MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106 timeout 120 $NCU --clock-control none --metrics gpu__time_duration.sum,sm__warps_active.avg.per_cycle_active -k regex:blas_fused_defer --launch-skip 10 --launch-count 6 --csv $bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $5, $(NF-2), $NF}' | tr -d '"'
done
echo "== $(date +%T) done"
} > $log 2>&1
