# Sourced by run_qd.sh and run_qd_prefetch.sh (from the repository root) with `b` set to the
# build folder: the output folder, the production templates of blas_level1_gpu.cu without its
# entry points (level1_templates.cuh, which qd_probe.cuh includes), and the nvcc flags.
out=${OUT:-/tmp}
src=crates/mpblas/src
mkdir -p "$b"
sed '/^extern "C"/,$d' $src/blas/blas_level1_gpu.cu > "$b/level1_templates.cuh"
flags="-O3 -std=c++17 -arch=sm_90 --fmad=false -I $b -I bench/probes -I $src -I $src/dd -I $src/qd -I $src/blas"

# Waits for the background compiles whose pids are in `pids` (started after `start`), prints
# the time, and on a failure prints every log and exits.
wait_builds() {
    local fail=0 p
    for p in "${pids[@]}"; do wait "$p" || fail=1; done
    echo "compiled in $(( $(date +%s) - start )) s"
    if [ $fail = 1 ]; then cat "$b"/*.log; exit 1; fi
}
