#!/usr/bin/env bash
# session 39 call 4: main 07f320f: mpblas reproduce gemv --gpu; the extf variant (rns.cuh's u128-to-ExtF
# conversion from n's bits at once, micro-s33's form) with gpu_rns_bits and the fused tests; the finish overlapping
# the sums (MPBLAS_FUSED_OVERLAP=6: the sums and the finish by programmatic dependent launch)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
for v in base extf; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/
done
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
run() { local c=$1; shift
  case $c in
    base) MPBLAS_CACHE_DIR=$caches/base "$@" ;;
    ov6) MPBLAS_FUSED_OVERLAP=6 MPBLAS_CACHE_DIR=$caches/base "$@" ;;
    extf) MPBLAS_KERNEL_SOURCE_DIR=$here/variants/extf MPBLAS_CACHE_DIR=$caches/extf "$@" ;;
  esac
}
{
nvidia-smi -L | head -1
echo "== $(date +%T) reproduce gemv --gpu (base)"
run base timeout 150 $here/bin/mpblas reproduce gemv --gpu > $OUT/reproduce.txt 2>&1; echo "rc $?"
echo "== $(date +%T) tests gpu_rns_bits extf"
run extf timeout 150 $here/bin/gpu_rns_bits --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
echo "== $(date +%T) tests gpu_blas_rns fused extf"
run extf timeout 150 $here/bin/gpu_blas_rns fused --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
echo "== $(date +%T) tests gpu_blas_rns fused ov6"
run ov6 timeout 150 $here/bin/gpu_blas_rns fused --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106,212,424,848
for r in 1 2 3; do
  for c in base extf ov6; do
    echo "== $(date +%T) $c round $r"
    run $c timeout 60 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
done
for b in 106 424; do
for c in base extf; do
  echo "== $(date +%T) ncu $c $b (prep, scan, sums, finish us)"
  MPBLAS_BENCH_BITS=$b run $c timeout 60 $NCU --clock-control none --metrics gpu__time_duration.sum -k regex:blas_fused --launch-skip 16 --launch-count 12 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $5, $NF}' | tr -d '"' | paste - - - -
done
done
echo "== $(date +%T) done"
} > $log 2>&1
