#!/usr/bin/env bash
# session 40 call 2: wca / wcg (Aᵀx's ring copies of a_ij's residues in 16-byte pieces, .ca / .cg, the rings
# first in shared memory) against base (main 0ac298d): gpu_blas_rns each, the GEMV at 300 / 424 bits N and T
# alternated, three rounds; ncu of the T sums at 424 bits
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
. "$here/libs.sh"
caches=/tmp/mpblas-variants
vs="base wca wcg"
for v in $vs; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
src() { [ "$1" = base ] && echo "" || echo "$here/variants/$1"; }
run() { local c=$1; shift; MPBLAS_KERNEL_SOURCE_DIR=$(src $c) MPBLAS_CACHE_DIR=$caches/$c "$@"; }
NCU=$(ls /usr/local/cuda*/bin/ncu | head -1)
{
nvidia-smi -L | head -1
for v in wca wcg; do
  echo "== $(date +%T) tests gpu_blas_rns $v"
  run $v timeout 150 $here/bin/gpu_blas_rns --include-ignored --test-threads=1 2>&1 | grep -E "^test .*FAILED|panicked|test result" | head -8
done
(
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=300,424
for r in 1 2 3; do
  for c in $vs; do
    echo "== $(date +%T) $c round $r"
    run $c timeout 60 $here/bin/gpu_blas_bench 2>&1 | grep -E "^\| [0-9]|rror|panicked" | grep -v 26-bit
  done
done
)
for c in $vs; do
  echo "== $(date +%T) ncu $c T sums 424 bits (us)"
  MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=424 run $c timeout 60 $NCU --clock-control none --metrics gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_sector_hit_rate.pct,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio -k regex:blas_fused_defer --launch-skip 25 --launch-count 3 --csv $here/bin/gpu_blas_bench 2>&1 | grep -E '^"[0-9]' | awk -F'","' '{print $(NF-2), $NF}' | tr -d '"' | paste - - - -
done
echo "== $(date +%T) done"
} > $log 2>&1
