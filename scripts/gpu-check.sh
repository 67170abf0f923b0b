#!/usr/bin/env bash
# Build, on this machine (no GPU needed), everything the GPU machine runs for the CUDA backend,
# bundle it into gpu-bundle/ (git-ignored), and print the command that runs it there.
#
#   scripts/gpu-check.sh            host checks, then build the bundle
#   NVRTC_DIR=/path scripts/...     where libnvrtc.so.13 lives here (default: the PyPI wheel's)
#
# Steps:
#   1. host checks that need no GPU: kernel name tables, no-driver errors, the host-C++ twin
#      of the device headers, and (with NVRTC) every module compiling for sm_90 plus the disk
#      cache round trip; the sm_90 images are kept in target/kernel-cache-sm90 and the current
#      ones shipped as gpu-bundle/kernel-cache.tar.gz (without NVRTC here, the GPU machine
#      compiles every module on first use: minutes of device time);
#   2. the release test binaries of mpblas (lib, gpu_bits, gpu_func_bits, gpu_rns_bits,
#      gpu_ozaki, gpu_emulation, gpu_blas, gpu_blas_rns, gpu_lapack, kernels_compile, cuda_host), the CLI's
#      unit tests (`cli`: the GPU reproduction against the CPU's), the `mpblas` binary itself
#      (`mpblas reproduce ... --gpu`) and the gpu_bench, gpu_func_bench, gpu_blas_bench,
#      gpu_rns_bench and gpu_ozaki_bench examples, with debug info stripped, into gpu-bundle/;
#   3. gpu-bundle/run.sh, which unpacks the kernel images as its cache, runs every test binary
#      with --include-ignored --test-threads=1, then the benchmarks, and prints a summary.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bundle=$root/gpu-bundle
nvrtc_dir=${NVRTC_DIR:-/opt/nvrtc/nvidia/cu13/lib}

say() { printf '\n== %s\n' "$*"; }

say "host checks (no GPU)"
cargo test --release -p mpblas --features cuda \
    --test kernel_names --test cuda_host --test cuda_twin_host --test rns_twin_host
# The generated device tables (*_tables.cuh) equal the Rust tables.
cargo test --release -p mpblas --features cuda --lib device_tables
# The list of current kernel images is written afresh below, so that a run without NVRTC ships
# no stale one.
rm -f "$root/target/kernel-cache-sm90/current.txt"
if [ -e "$nvrtc_dir/libnvrtc.so.13" ]; then
    say "NVRTC checks with $nvrtc_dir"
    # Through a kernel cache kept in target/ (only changed modules compile again), whose
    # current sm_90 images go into the bundle below.
    LD_LIBRARY_PATH="$nvrtc_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        MPBLAS_PRECOMPILE_DIR="$root/target/kernel-cache-sm90" \
        cargo test --release -p mpblas --features cuda --test kernels_compile -- --include-ignored
    LD_LIBRARY_PATH="$nvrtc_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        cargo test --release -p mpblas --features cuda --lib cuda::nvrtc -- --include-ignored
else
    echo "SKIPPED: no libnvrtc.so.13 in $nvrtc_dir (set NVRTC_DIR); the GPU run compiles them too"
fi

say "building the bundle"
rm -rf "$bundle"
mkdir -p "$bundle/bin"
list=$(mktemp)
trap 'rm -f "$list"' EXIT
cargo test --release -p mpblas --features cuda,unstable-internals --no-run --message-format=json \
    --lib --test gpu_bits --test gpu_func_bits --test gpu_rns_bits --test gpu_ozaki \
    --test gpu_emulation --test gpu_blas --test gpu_blas_rns --test gpu_lapack --test kernels_compile \
    --test cuda_host >"$list"
cargo build --release -p mpblas --features cuda --example gpu_bench --example gpu_func_bench \
    --example gpu_blas_bench --example gpu_rns_bench --example gpu_ozaki_bench --message-format=json >>"$list"
cargo test --release -p mpblas-cli --bins --no-run --message-format=json >>"$list"
cargo build --release -p mpblas-cli --bin mpblas --message-format=json >>"$list"
# Pick the executables out of cargo's JSON messages: "<name> <path>" per line.
python3 scripts/cargo_executables.py "$list" >"$bundle/bin/.list"
while read -r name exe; do
    cp "$exe" "$bundle/bin/$name"
    strip --strip-debug "$bundle/bin/$name"
done <"$bundle/bin/.list"
rm "$bundle/bin/.list"
# The sm_90 kernel images compiled above, as run.sh's kernel cache: an H100 or H200 loads them
# instead of compiling every module (minutes on a fresh machine). Keyed by source, options and
# NVRTC version, so a machine with another NVRTC compiles as before.
# Packed (about 5 MB instead of 21: the bundle must stay under the device tool's 64 MiB);
# run.sh unpacks it into kernel-cache/ on first use.
precompiled=$root/target/kernel-cache-sm90
if [ -e "$precompiled/current.txt" ]; then
    tar czf "$bundle/kernel-cache.tar.gz" -C "$precompiled" -T "$precompiled/current.txt"
fi

cat >"$bundle/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs the mpblas CUDA checks on a GPU machine (no Rust needed): every test binary with
# --include-ignored --test-threads=1 (GPU tests included), then the benchmark. Run it from the
# repository root or anywhere: bash gpu-bundle/run.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$here/bin

# NVRTC and cuBLAS on LD_LIBRARY_PATH (libs.sh: scripts/gpu-libs.sh), each directory printed
MPBLAS_LIBS_VERBOSE=1 . "$here/libs.sh"
export MPBLAS_CACHE_DIR=${MPBLAS_CACHE_DIR:-$here/kernel-cache}
# The sm_90 images compiled on the build machine (gpu-check.sh): loaded instead of compiled.
if [ -e "$here/kernel-cache.tar.gz" ]; then
    mkdir -p "$MPBLAS_CACHE_DIR" && tar xzf "$here/kernel-cache.tar.gz" -C "$MPBLAS_CACHE_DIR"
fi

echo "== device"
nvidia-smi -L || echo "nvidia-smi not available"

failed=0
summary=""
# RUN_ONLY="name ..." runs only those test binaries and benchmarks (one device call has a
# time limit; the whole bundle can be run in parts). OZAKI_SIZES="1024,...,16384" sets the
# Ozaki benchmark's sizes (default below); OZAKI_BENCH_SKIP_OZ1=1 skips the slow Ozaki-I rows.
want() { [ -z "${RUN_ONLY:-}" ] || [[ " $RUN_ONLY " == *" $1 "* ]]; }
for t in lib cuda_host kernels_compile gpu_bits gpu_func_bits gpu_rns_bits gpu_ozaki \
         gpu_emulation gpu_blas gpu_blas_rns gpu_lapack cli; do
    want "$t" || continue
    echo
    echo "== $t"
    log=$(mktemp)
    "$bin/$t" --include-ignored --test-threads=1 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    result=$(grep '^test result' "$log" | tail -n 1)
    summary+=$(printf '%-16s %s (exit %d)' "$t" "${result:-no result line}" "$rc")$'\n'
    [ "$rc" -ne 0 ] && failed=1
    rm -f "$log"
done

echo
echo "== benchmark"
nvidia-smi -L 2>/dev/null | head -n 1
for b in gpu_bench gpu_func_bench gpu_blas_bench gpu_rns_bench gpu_ozaki_bench; do
    want "$b" || continue
    args=()
    [ "$b" = gpu_ozaki_bench ] && args=("${OZAKI_SIZES:-1024,2048,4096,8192,16384}")
    echo
    echo "== $b"
    if ! "$bin/$b" "${args[@]}"; then
        failed=1
        summary+=$(printf '%-16s FAILED' "$b")$'\n'
    else
        summary+=$(printf '%-16s ok' "$b")$'\n'
    fi
done

echo
echo "== summary"
printf '%s' "$summary"
if [ "$failed" -ne 0 ]; then echo "SOME CHECKS FAILED"; exit 1; fi
echo "ALL CHECKS PASSED"
RUN
cp scripts/gpu-sanitize.sh "$bundle/sanitize.sh"
cp scripts/gpu-libs.sh "$bundle/libs.sh"
chmod +x "$bundle/run.sh" "$bundle/sanitize.sh"

say "bundle"
ls -l "$bundle/bin"
du -sh "$bundle"
cat <<MSG

To run on the GPU machine (from the repository root, with gpu-bundle/ carried):
    bash gpu-bundle/run.sh
e.g. device tool: run(command="bash gpu-bundle/run.sh", carry=["gpu-bundle"], timeout_s=600)
MSG
