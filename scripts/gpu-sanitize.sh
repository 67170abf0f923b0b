#!/usr/bin/env bash
# compute-sanitizer memcheck and racecheck over every kernel, on the GPU machine.
# scripts/gpu-check.sh copies this file into gpu-bundle/ as sanitize.sh; run it there:
#     bash gpu-bundle/sanitize.sh            (device tool: carry gpu-bundle)
# Each GPU test binary runs under each tool; the tests exercise every kernel of every module
# (dd/qd element-wise and functions, RNS split kernels and div/sqrt, Ozaki). Excluded: the
# out-of-memory and 10,000-cycle allocation tests (they test the allocator, launch no kernel
# of ours, and take hours under the sanitizer). Exit status non-zero if any tool reports an error.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$here/bin
# NVRTC and cuBLAS on LD_LIBRARY_PATH (libs.sh: scripts/gpu-libs.sh)
. "$here/libs.sh"
export MPBLAS_CACHE_DIR=${MPBLAS_CACHE_DIR:-$here/.kernel-cache}
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
if [ -z "$cs" ]; then echo "compute-sanitizer not found"; exit 2; fi
"$cs" --version | head -n 2
skip=(--skip out_of_memory --skip ten_thousand_allocate)
failed=0
for tool in ${TOOLS:-memcheck racecheck}; do
    for t in ${TESTS:-gpu_bits gpu_func_bits gpu_rns_bits gpu_ozaki}; do
        echo "== $tool $t"
        log=$(mktemp)
        "$cs" --tool "$tool" --error-exitcode 99 --print-limit 20 \
            "$bin/$t" --include-ignored --test-threads=1 "${skip[@]}" >"$log" 2>&1
        rc=$?
        grep -E "^test result|ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race reported|Hazard" "$log" | head -n 20
        echo "exit $rc"
        [ "$rc" -ne 0 ] && { failed=1; tail -n 40 "$log"; }
        rm -f "$log"
    done
done
[ "$failed" -eq 0 ] && echo "SANITIZERS CLEAN" || { echo "SANITIZER FINDINGS"; exit 1; }
