#!/usr/bin/env bash
# session 33 call 10: branch micro-s33 (extf_from_u128 from n's bits at once; the finish's sums words by Barrett;
# the scan's and sums' unit decomposition in 32 bits): RNS tests, bench against main, ncu of prep/scan/finish
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
for lib in libnvrtc.so.13 libcublas.so.13; do
    d=$(find / -xdev -name "$lib" -not -path '/proc/*' 2>/dev/null | head -n 1 | xargs -r dirname)
    [ -n "$d" ] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
caches=/tmp/mpblas-variants
for v in base micro; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
V=$here/variants/micro
{
nvidia-smi -L | head -1
for t in gpu_rns_bits gpu_blas_rns gpu_lapack; do
  echo "== $(date +%T) tests micro $t"
  MPBLAS_KERNEL_SOURCE_DIR=$V MPBLAS_CACHE_DIR=$caches/micro timeout 200 $here/bin/$t --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -6
done
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106,212,424,848
for r in 1 2 3; do
  echo "== $(date +%T) base round $r"
  MPBLAS_CACHE_DIR=$caches/base timeout 100 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  echo "== $(date +%T) micro round $r"
  MPBLAS_KERNEL_SOURCE_DIR=$V MPBLAS_CACHE_DIR=$caches/micro timeout 100 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
done
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
for v in base micro; do
  src=""; [ $v = micro ] && src=$V
  echo "== $(date +%T) ncu $v 106 (N, T)"
  MPBLAS_KERNEL_SOURCE_DIR=$src MPBLAS_CACHE_DIR=$caches/$v MPBLAS_BENCH_BITS=106 timeout 120 $NCU --clock-control none --metrics gpu__time_duration.sum -k regex:blas_fused --launch-skip 40 --launch-count 8 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $5, $NF}' | tr -d '"'
done
echo "== $(date +%T) done"
} > $log 2>&1
