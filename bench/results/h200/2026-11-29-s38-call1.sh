#!/usr/bin/env bash
# session 38 call 1: the 7-slot ring kernels (s7: branch g4n-exact-slots-s37), with the Montgomery product's
# modulus as a 32-bit value (rd: no 64-bit m, 13-14 fewer instructions a step), and with the ring's lower slots'
# copies under the step's predicate alone (full, when nb > 6g); MPBLAS_FUSED_SLOTS7=0 gives main's 8-slot kernels
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
for v in s7 rd full; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    cp "$here/variants/$v"/*.cubin "$caches/$v"/
done
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
SAN=$(ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
run() { # variant slots7 cmd...
  local v=$1 s=$2; shift 2
  MPBLAS_FUSED_SLOTS7=$s MPBLAS_KERNEL_SOURCE_DIR=$here/variants/$v MPBLAS_CACHE_DIR=$caches/$v "$@"
}
{
nvidia-smi -L | head -1
echo "== $(date +%T) tests gpu_blas_rns full slots7=1"
run full 1 timeout 120 $here/bin/gpu_blas_rns --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
for gg in 8 16; do
echo "== $(date +%T) tests fused full slots7=1 MPBLAS_FUSED_G=$gg (7 slots, not full)"
MPBLAS_FUSED_G=$gg run full 1 timeout 100 $here/bin/gpu_blas_rns fused --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
done
echo "== $(date +%T) tests fused s7 slots7=1"
run s7 1 timeout 100 $here/bin/gpu_blas_rns fused --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
echo "== $(date +%T) memcheck full 212/424/1696"
run full 1 timeout 150 $SAN --tool memcheck --error-exitcode 9 $here/bin/gpu_blas_rns rns_gemv_fused_equals_the_cpu_212 --include-ignored --test-threads=1 2>&1 | grep -E "ERROR SUMMARY|test result|Error" | head -4
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=424,848,1696
for r in 1 2 3; do
  for c in s7:0 s7:1 rd:0 rd:1 full:1; do
    echo "== $(date +%T) $c round $r"
    run ${c%:*} ${c#*:} timeout 60 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
done
for b in 424 848 1696; do
for c in s7:0 s7:1 rd:0 full:1; do
  echo "== $(date +%T) ncu $c $b (prep, scan, sums, finish us)"
  MPBLAS_BENCH_BITS=$b run ${c%:*} ${c#*:} timeout 60 $NCU --clock-control none --metrics gpu__time_duration.sum -k regex:blas_fused --launch-skip 16 --launch-count 12 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $5, $NF}' | tr -d '"' | paste - - - -
done
done
echo "== $(date +%T) done"
} > $log 2>&1
