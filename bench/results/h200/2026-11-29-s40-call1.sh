#!/usr/bin/env bash
# session 40 call 1: rank (fused_unit_rank's remainder adjusted by +-m after the fix-up) with gpu_blas_rns;
# r256 (the sums' ring copies with the .L2::256B prefetch size) and rank against base, 300-1696 bits, three
# rounds; Dd gemv with A's loads hinted (d256 .L2::256B, dnc .nc.L2::256B, d128 .L2::128B, dna
# .L1::no_allocate) against base, three rounds; ncu of the T sums at 424 bits base / r256
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
vs="base r256 rank d256 dnc d128 dna"
for v in $vs; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
src() { [ "$1" = base ] && echo "" || echo "$here/variants/$1"; }
run() { local c=$1; shift; MPBLAS_KERNEL_SOURCE_DIR=$(src $c) MPBLAS_CACHE_DIR=$caches/$c "$@"; }
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
{
nvidia-smi -L | head -1
echo "== $(date +%T) tests gpu_blas_rns rank"
run rank timeout 150 $here/bin/gpu_blas_rns --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
(
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=300,424,848,1696
for r in 1 2 3; do
  for c in base r256 rank; do
    echo "== $(date +%T) $c round $r"
    run $c timeout 60 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
done
)
(
export MPBLAS_BENCH_ONLY=gemv MPBLAS_BENCH_FORMATS=dd
for r in 1 2 3; do
  for c in base d256 dnc d128 dna; do
    echo "== $(date +%T) $c round $r"
    run $c timeout 100 $here/bin/gpu_blas_bench 2>&1 | grep -E "gemv [NT] |cublasDgemv|rror|panicked"
  done
done
)
for c in base r256; do
  echo "== $(date +%T) ncu $c T sums 424 bits (us)"
  MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=424 run $c timeout 60 $NCU --clock-control none --metrics gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_sector_hit_rate.pct,dram__bytes_read.sum -k regex:blas_fused_defer --launch-skip 25 --launch-count 3 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $(NF-2), $NF}' | tr -d '"' | paste - - - -
done
echo "== $(date +%T) done"
} > $log 2>&1
