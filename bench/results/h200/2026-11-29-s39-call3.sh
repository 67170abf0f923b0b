#!/usr/bin/env bash
# session 39 call 3: main 07f320f (Aᵀx on rows at g = 4 with 7 slots): gpu_blas_rns with the new Aᵀx case; the
# rule's check (MPBLAS_FUSED_ROWS=0 keeps columns) at 300 / 424 bits; full line profiles (li: main with line
# information) of the finish at 106 and 424 bits and of the g1s7 sums at 106 bits
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
for v in base li; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/
done
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
run() { local c=$1; shift
  case $c in
    base) MPBLAS_CACHE_DIR=$caches/base "$@" ;;
    cols) MPBLAS_FUSED_ROWS=0 MPBLAS_CACHE_DIR=$caches/base "$@" ;;
    li) MPBLAS_NVRTC_LINEINFO=1 MPBLAS_KERNEL_SOURCE_DIR=$here/variants/li MPBLAS_CACHE_DIR=$caches/li "$@" ;;
  esac
}
{
nvidia-smi -L | head -1
echo "== $(date +%T) tests gpu_blas_rns base"
run base timeout 150 $here/bin/gpu_blas_rns --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1
for r in 1 2 3; do
  for c in cols base; do
    echo "== $(date +%T) $c round $r"
    MPBLAS_BENCH_BITS=300,424 run $c timeout 60 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
done
for b in 106 424; do
echo "== $(date +%T) ncu full li $b (finish)"
MPBLAS_BENCH_BITS=$b run li timeout 150 $NCU --set full --import-source no -k regex:blas_fused_finish --launch-skip 4 --launch-count 1 -o $OUT/fin$b $here/bin/gpu_blas_bench > $OUT/ncufin$b.txt 2>&1
tail -2 $OUT/ncufin$b.txt
$NCU -i $OUT/fin$b.ncu-rep --page source --csv --print-source sass > $OUT/srcfin$b.csv 2>&1
$NCU -i $OUT/fin$b.ncu-rep --page details > $OUT/detailsfin$b.txt 2>&1
done
echo "== $(date +%T) ncu full li 106 (sums)"
MPBLAS_BENCH_BITS=106 run li timeout 150 $NCU --set full --import-source no -k regex:blas_fused_defer --launch-skip 4 --launch-count 1 -o $OUT/sums106 $here/bin/gpu_blas_bench > $OUT/ncusums106.txt 2>&1
tail -2 $OUT/ncusums106.txt
$NCU -i $OUT/sums106.ncu-rep --page source --csv --print-source sass > $OUT/srcsums106.csv 2>&1
$NCU -i $OUT/sums106.ncu-rep --page details > $OUT/detailssums106.txt 2>&1
rm -f $OUT/*.ncu-rep
ls -la $OUT
echo "== $(date +%T) done"
} > $log 2>&1
