#!/usr/bin/env bash
# session 38 call 2: main df5fe23 (base: the 7-slot ring kernels, FULL, 32-bit redc) — gpu_blas_rns with the new
# ring-kernel test; against old (s7 with MPBLAS_FUSED_SLOTS7=0: ec0c0c0's kernels), nb4 (g8n7/g16n7 in 4 blocks an SM,
# 128 registers; MPBLAS_FUSED_WARPS=2112 sizes the chunks for 16 warps on 132 SMs), c4 (shared_d stages packed:
# a's slots then d_j's words, 4 stages), deep (packed, 8 / 7 / 6 stages at g = 4 / 8 / 16); ncu times; a full
# line profile of the sums at 424 bits (li: base with line information)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
for v in base s7 nb4 c4 deep li; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/
done
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
run() { # config cmd...: config = base | old | nb4 | c4 | deep | li
  local c=$1; shift
  case $c in
    base) MPBLAS_CACHE_DIR=$caches/base "$@" ;;
    old) MPBLAS_FUSED_SLOTS7=0 MPBLAS_KERNEL_SOURCE_DIR=$here/variants/s7 MPBLAS_CACHE_DIR=$caches/s7 "$@" ;;
    nb4) MPBLAS_FUSED_WARPS=2112 MPBLAS_KERNEL_SOURCE_DIR=$here/variants/nb4 MPBLAS_CACHE_DIR=$caches/nb4 "$@" ;;
    li) MPBLAS_NVRTC_LINEINFO=1 MPBLAS_KERNEL_SOURCE_DIR=$here/variants/li MPBLAS_CACHE_DIR=$caches/li "$@" ;;
    *) MPBLAS_KERNEL_SOURCE_DIR=$here/variants/$c MPBLAS_CACHE_DIR=$caches/$c "$@" ;;
  esac
}
{
nvidia-smi -L | head -1
echo "== $(date +%T) tests gpu_blas_rns base"
run base timeout 150 $here/bin/gpu_blas_rns --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
for c in c4 deep; do
echo "== $(date +%T) tests fused $c"
run $c timeout 100 $here/bin/gpu_blas_rns fused --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
done
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106,212,424,848,1696
for r in 1 2 3; do
  for c in old base nb4 c4 deep; do
    echo "== $(date +%T) $c round $r"
    run $c timeout 60 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
done
for b in 106 212 424 848 1696; do
for c in old base nb4 c4 deep; do
  case $b:$c in 106:nb4|106:c4|106:deep|212:nb4|212:c4|212:deep|424:nb4) continue ;; esac
  echo "== $(date +%T) ncu $c $b (prep, scan, sums, finish us)"
  MPBLAS_BENCH_BITS=$b run $c timeout 60 $NCU --clock-control none --metrics gpu__time_duration.sum -k regex:blas_fused --launch-skip 16 --launch-count 12 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $5, $NF}' | tr -d '"' | paste - - - -
done
done
echo "== $(date +%T) ncu full li 424 (sums)"
MPBLAS_BENCH_BITS=424 run li timeout 150 $NCU --set full --import-source no -k regex:blas_fused_defer --launch-skip 4 --launch-count 1 -o $OUT/full424 $here/bin/gpu_blas_bench > $OUT/ncu424.txt 2>&1
tail -2 $OUT/ncu424.txt
$NCU -i $OUT/full424.ncu-rep --page source --csv --print-source sass > $OUT/src424.csv 2>&1
$NCU -i $OUT/full424.ncu-rep --page details > $OUT/details424.txt 2>&1
ls -la $OUT
echo "== $(date +%T) done"
} > $log 2>&1
