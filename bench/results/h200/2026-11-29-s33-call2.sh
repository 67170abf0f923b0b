#!/usr/bin/env bash
# session 33 call 2: scan-l2-s33: the scan brings A's residues to L2 (SCAN_L2), the first unit before the wait (SCAN_PRE), scan thread target
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
for lib in libnvrtc.so.13 libcublas.so.13; do
    d=$(find / -xdev -name "$lib" -not -path '/proc/*' 2>/dev/null | head -n 1 | xargs -r dirname)
    [ -n "$d" ] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
caches=/tmp/mpblas-variants
for v in base scan; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
S=$here/variants/scan/bin
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1
{
nvidia-smi -L | head -1
echo "== $(date +%T) tests fused L2+PRE"
MPBLAS_SCAN_L2=1 MPBLAS_SCAN_PRE=1 MPBLAS_CACHE_DIR=$caches/scan timeout 200 $S/gpu_blas_rns --include-ignored --test-threads=1 fused 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -5
run() { # name env...
  local name=$1; shift
  echo "== $(date +%T) $name"
  env "$@" MPBLAS_CACHE_DIR=$caches/scan MPBLAS_BENCH_BITS=106,212,424 timeout 100 $S/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
}
for r in 1 2; do
  echo "== $(date +%T) base round $r"
  MPBLAS_CACHE_DIR=$caches/base MPBLAS_BENCH_BITS=106,212,424 timeout 100 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  run "scan-off r$r" X=1
  run "L2 r$r" MPBLAS_SCAN_L2=1
  run "PRE r$r" MPBLAS_SCAN_PRE=1
  run "L2+PRE r$r" MPBLAS_SCAN_L2=1 MPBLAS_SCAN_PRE=1
  run "T131072 r$r" MPBLAS_SCAN_THREADS=131072
  run "T131072 L2 r$r" MPBLAS_SCAN_THREADS=131072 MPBLAS_SCAN_L2=1
  run "T65536 r$r" MPBLAS_SCAN_THREADS=65536
done
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
for spec in "off X=1" "L2 MPBLAS_SCAN_L2=1" "PRE MPBLAS_SCAN_PRE=1" "L2PRE MPBLAS_SCAN_L2=1 MPBLAS_SCAN_PRE=1"; do
  set -- $spec; nm=$1; shift
  for b in 106 424; do
    echo "== $(date +%T) ncu $nm $b"
    env "$@" MPBLAS_CACHE_DIR=$caches/scan MPBLAS_BENCH_BITS=$b timeout 120 $NCU --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct -k regex:blas_fused --launch-skip 40 --launch-count 8 --csv $S/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $5, $(NF-2), $NF}' | tr -d '"' | head -24
  done
done
echo "== $(date +%T) done"
} > $log 2>&1
