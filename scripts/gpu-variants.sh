#!/usr/bin/env bash
# Kernel variants for one GPU call, without a build each: the bundle's binaries run every
# variant's edited kernel files through MPBLAS_KERNEL_SOURCE_DIR (cuda/nvrtc.rs).
#
#   scripts/gpu-check.sh                                   # the bundle: binaries, kernel cache
#   scripts/gpu-variants.sh NAME=REF_OR_DIR [...]          # gpu-bundle/variants/NAME/
#   (GPU machine) bash gpu-bundle/variants.sh              # alternated runs, see below
#
# For NAME=REF (a git ref) the kernel files (*.cu, *.cuh under crates/) that differ between HEAD
# and REF are taken whole from REF (rebase REF on HEAD first, or HEAD's own changes to those
# files are undone in the variant); for NAME=DIR, the .cu and .cuh files in DIR. With
# NVRTC here (NVRTC_DIR, as gpu-check.sh) each variant's modules are compiled for sm_90 now and
# their images shipped beside it, so the GPU machine compiles nothing. A REF that also changes
# Rust code (a launcher) gets its own gpu_blas_bench and gpu_blas_rns instead, built in a
# temporary worktree with a copy of target/release (about 8 MB a variant in the bundle).
#
# With LINEINFO=1 the variants' modules are compiled with line information (cuda/nvrtc.rs:
# MPBLAS_NVRTC_LINEINFO=1, its own cache keys; each variant gets a `lineinfo` marker, and
# variants.sh sets the variable for it), for `ncu`'s source page and scripts/ncu-lines.py. A
# variant of the unchanged kernels: NAME=DIR with a copy of the kernel file.
#
# variants.sh runs, ROUNDS times (default 2), the bundle's own kernels (`base`) and then each
# variant: `gpu_blas_bench` with BENCH_ENV (default: the fused RNS GEMV rows at 106-1696 bits),
# and first, with TESTS=1, `gpu_blas_rns` (TEST_FILTER: a test name filter) once per variant.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bundle=$root/gpu-bundle
nvrtc_dir=${NVRTC_DIR:-/opt/nvrtc/nvidia/cu13/lib}
[ -x "$bundle/bin/gpu_blas_bench" ] || { echo "no bundle: run scripts/gpu-check.sh first" >&2; exit 1; }
[ $# -gt 0 ] || { echo "usage: $0 NAME=REF_OR_DIR [...]" >&2; exit 2; }
rm -rf "$bundle/variants"
names=()
for arg in "$@"; do
    name=${arg%%=*} src=${arg#*=}
    [[ "$arg" == *=* && "$name" =~ ^[A-Za-z0-9_-]+$ ]] || { echo "bad argument: $arg (NAME=REF_OR_DIR)" >&2; exit 2; }
    out=$bundle/variants/$name
    mkdir -p "$out"
    cache=$root/target/kernel-cache-sm90
    nvrtc_env=(LD_LIBRARY_PATH="$nvrtc_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" MPBLAS_PRECOMPILE_DIR="$cache")
    if [ "${LINEINFO:-0}" = 1 ]; then
        nvrtc_env+=(MPBLAS_NVRTC_LINEINFO=1)
        touch "$out/lineinfo"
    fi
    rust=
    [ -d "$src" ] || rust=$(git diff --name-only HEAD "$src" -- 'crates/*.rs')
    if [ -d "$src" ]; then
        cp "$src"/*.cu "$src"/*.cuh "$out"/ 2>/dev/null || true
    elif [ -z "$rust" ]; then
        for f in $(git diff --name-only HEAD "$src" -- 'crates/*.cu' 'crates/*.cuh'); do
            git show "$src:$f" >"$out/$(basename "$f")"
        done
    fi
    if [ -n "$rust" ]; then
        # its own binaries: a worktree of REF built against a copy of target/release, its
        # sources touched so that cargo rebuilds the workspace's crates (the copy's artifacts
        # would otherwise look fresh) and nothing else
        tmp=$(mktemp -d)
        git worktree add -q --detach "$tmp/wt" "$src"
        tgt=$root/target/variants/$name
        mkdir -p "$tgt"
        [ -d "$tgt/release" ] || cp -a "$root/target/release" "$tgt/"
        find "$tmp/wt/crates" -type f -exec touch {} +
        (
            cd "$tmp/wt"
            export CARGO_TARGET_DIR=$tgt
            exe=$(cargo test --release -p mpblas --features cuda,unstable-internals --no-run --test gpu_blas_rns \
                --message-format=json 2>/dev/null | python3 "$root/scripts/cargo_executables.py" - |
                awk '$1 == "gpu_blas_rns" { print $2 }')
            cargo build -q --release -p mpblas --features cuda --example gpu_blas_bench
            mkdir -p "$out/bin"
            cp "$exe" "$out/bin/gpu_blas_rns"
            cp "$tgt/release/examples/gpu_blas_bench" "$out/bin/"
            strip --strip-debug "$out/bin/"*
            if [ -e "$nvrtc_dir/libnvrtc.so.13" ]; then
                env "${nvrtc_env[@]}" cargo test -q --release -p mpblas --features cuda --test kernels_compile \
                    -- --include-ignored every_module_compiles_for_sm_90 >/dev/null
            fi
        )
        git worktree remove --force "$tmp/wt"
        changed=$(git diff --name-only HEAD "$src" -- 'crates/*.cu')
    else
        ls "$out"/*.cu* >/dev/null 2>&1 || { echo "$name: no kernel file differs" >&2; exit 1; }
        if [ -e "$nvrtc_dir/libnvrtc.so.13" ]; then
            env "${nvrtc_env[@]}" MPBLAS_KERNEL_SOURCE_DIR="$out" cargo test -q --release -p mpblas --features cuda \
                --test kernels_compile -- --include-ignored every_module_compiles_for_sm_90 >/dev/null
        fi
        changed=$(ls "$out"/*.cu 2>/dev/null || true)
    fi
    # the images of the modules this variant changed
    if [ -e "$nvrtc_dir/libnvrtc.so.13" ]; then
        for f in $changed; do
            stem=$(basename "$f" .cu)
            grep "^$stem-" "$cache/current.txt" | while read -r img; do cp "$cache/$img" "$out/"; done
        done
    fi
    names+=("$name")
    echo "$name: $(cd "$out" && ls | tr '\n' ' ')"
done

cat >"$bundle/variants.sh" <<RUN
#!/usr/bin/env bash
# Written by scripts/gpu-variants.sh: the bundle's kernels (base) and the variants ${names[*]},
# alternated ROUNDS times (see the script's head).
set -uo pipefail
here=\$(cd "\$(dirname "\$0")" && pwd)
names="${names[*]}"
RUN
cat >>"$bundle/variants.sh" <<'RUN'
# NVRTC and cuBLAS on LD_LIBRARY_PATH (libs.sh: scripts/gpu-libs.sh)
. "$here/libs.sh"
bench_env=${BENCH_ENV:-"MPBLAS_BENCH_ONLY=rns MPBLAS_BENCH_FUSED_ONLY=1 MPBLAS_BENCH_BITS=106,212,424,848,1696"}
caches=${TMPDIR:-/tmp}/mpblas-variants
for v in base $names; do
    mkdir -p "$caches/$v"
    # (as run.sh: a bundle built without NVRTC has no kernel cache, and the kernels compile here)
    [ -e "$here/kernel-cache.tar.gz" ] && tar xzf "$here/kernel-cache.tar.gz" -C "$caches/$v"
    [ "$v" = base ] || cp "$here/variants/$v"/*.cubin "$caches/$v"/ 2>/dev/null || true
done
src() { [ "$1" = base ] && echo "" || echo "$here/variants/$1"; }
# MPBLAS_NVRTC_LINEINFO=1 for a variant compiled with line information (its images' cache keys)
lines() { [ -e "$here/variants/$1/lineinfo" ] && echo 1 || echo 0; }
# a variant's own binaries (it changed a launcher), else the bundle's
bin() { if [ -x "$here/variants/$1/bin/$2" ]; then echo "$here/variants/$1/bin/$2"; else echo "$here/bin/$2"; fi; }
nvidia-smi -L 2>/dev/null | head -n 1
if [ "${TESTS:-0}" = 1 ]; then
    for v in $names; do
        echo "== tests $v"
        MPBLAS_KERNEL_SOURCE_DIR=$(src "$v") MPBLAS_CACHE_DIR=$caches/$v MPBLAS_NVRTC_LINEINFO=$(lines "$v") \
            "$(bin "$v" gpu_blas_rns)" --include-ignored --test-threads=1 ${TEST_FILTER:-} 2>&1 |
            grep -E "^test .*FAILED|panicked|test result"
    done
fi
for r in $(seq "${ROUNDS:-2}"); do
    for v in base $names; do
        echo "== $v, round $r"
        env $bench_env MPBLAS_KERNEL_SOURCE_DIR=$(src "$v") MPBLAS_CACHE_DIR=$caches/$v MPBLAS_NVRTC_LINEINFO=$(lines "$v") \
            "$(bin "$v" gpu_blas_bench)" 2>&1 | grep -E "^\| [0-9]|rror|panicked"
    done
done
RUN
chmod +x "$bundle/variants.sh"
echo "run on the GPU machine: bash gpu-bundle/variants.sh (TESTS=1 to test each variant first)"
