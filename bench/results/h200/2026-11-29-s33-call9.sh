#!/usr/bin/env bash
# session 33 call 9: the finish's phases by clock64 (session 32's clk variant), with the normalisation and the store
# split further (range rule, zero test, pass, evaluation, bounds; the row's records, the residues)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
for lib in libnvrtc.so.13 libcublas.so.13; do
    d=$(find / -xdev -name "$lib" -not -path '/proc/*' 2>/dev/null | head -n 1 | xargs -r dirname)
    [ -n "$d" ] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
c=/tmp/mpblas-fclk; mkdir -p $c; tar xzf "$here/kernel-cache.tar.gz" -C $c; cp "$here/variants/fclk"/*.cubin $c/
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1
avg() { awk -v tag=$1 '$1==tag {k=$2; n++; for(i=3;i<NF;i+=2){s[i]+=$(i+1); nm[i]=$i}} END{if(n){printf "%s %s rows %d:", tag, k, n; for(i=3;i<NF;i+=2) printf " %s %.0f", nm[i], s[i]/n; printf "\n"}}'; }
{
nvidia-smi -L | head -1
for b in 106 212 424; do
  echo "== $(date +%T) fclk $b"
  MPBLAS_KERNEL_SOURCE_DIR=$here/variants/fclk MPBLAS_CACHE_DIR=$c MPBLAS_BENCH_BITS=$b timeout 150 $here/bin/gpu_blas_bench > /tmp/o.txt 2>&1
  grep -E "^\| [0-9]|rror|panicked" /tmp/o.txt | grep -v 26-bit
  grep "^CLK" /tmp/o.txt | avg CLK
  grep "^CLN" /tmp/o.txt | avg CLN
done
echo "== $(date +%T) done"
} > $log 2>&1
