#!/usr/bin/env bash
# session 33 call 3: clocks in the sums (setup, PDL wait, window, loop, atomics) and the scan, 106/212/424 bits
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$OUT/log.txt
for lib in libnvrtc.so.13 libcublas.so.13; do
    d=$(find / -xdev -name "$lib" -not -path '/proc/*' 2>/dev/null | head -n 1 | xargs -r dirname)
    [ -n "$d" ] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
caches=/tmp/mpblas-variants
for v in base sclk; do
    mkdir -p "$caches/$v"; tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
export MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1
{
nvidia-smi -L | head -1
for b in 106 212 424 848; do
  echo "== $(date +%T) sclk $b"
  MPBLAS_KERNEL_SOURCE_DIR=$here/variants/sclk MPBLAS_CACHE_DIR=$caches/sclk MPBLAS_BENCH_BITS=$b timeout 150 $here/bin/gpu_blas_bench > /tmp/o.txt 2>&1
  grep -E "^\| [0-9]" /tmp/o.txt | grep -v 26-bit
  for rl in 0 1; do
  grep "^SCLK" /tmp/o.txt | awk -v rl=$rl '$4==rl {n++; for(i=5;i<=NF;i+=2){s[i]+=$(i+1); nm[i]=$i}} END{if(n){printf "SCLK %s rl %d lines %d:", $2, rl, n; for(i=5;i<=NF;i+=2) printf " %s %.0f", nm[i], s[i]/n; printf "\n"}}'
  done
  grep "^SCLK" /tmp/o.txt | awk '$4==1' | sort -t" " -k22 -n | awk '{a[NR]=$0} END{print "min grun:", a[1]; print "max grun:", a[NR]}'
  grep "^SCAN" /tmp/o.txt | awk '{n++; for(i=2;i<=NF;i+=2){s[i]+=$(i+1); nm[i]=$i}} END{if(n){printf "SCAN lines %d:", n; for(i=2;i<=NF;i+=2) printf " %s %.0f", nm[i], s[i]/n; printf "\n"}}'
done
echo "== $(date +%T) done"
} > $log 2>&1
