#!/usr/bin/env bash
# Build the Ozaki GPU checks and benchmark (no GPU needed here) into a small bundle:
#   scripts/gpu-ozaki-bundle.sh [DEST]      (default: gpu-ozaki/ in the repository root)
# DEST/run.sh [tests] [bench SIZES] runs, on the GPU machine, the GPU tests of tests/gpu_ozaki.rs
# and tests/kernels_compile.rs, then examples/gpu_ozaki_bench.rs (CSV to $OUT if set).
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:-$PWD/gpu-ozaki}
rm -rf "$dest"
mkdir -p "$dest/bin"
list=$(mktemp)
trap 'rm -f "$list"' EXIT
cargo test --release -p mpblas --features cuda --no-run --message-format=json \
    --test gpu_ozaki --test kernels_compile >"$list"
cargo build --release -p mpblas --features cuda --example gpu_ozaki_bench --message-format=json >>"$list"
python3 - "$list" <<'PY' | while read -r name exe; do cp "$exe" "$dest/bin/$name"; strip --strip-debug "$dest/bin/$name"; done
import json, sys
for line in open(sys.argv[1]):
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["target"]["name"], m["executable"])
PY
cat >"$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
# bash run.sh [tests] [bench SIZES]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
for lib in libnvrtc.so.13 libcublas.so.13; do
    if ! ldconfig -p 2>/dev/null | grep -q "$lib"; then
        d=$(find / -xdev -name "$lib" -not -path '/proc/*' 2>/dev/null | head -n 1 | xargs -r dirname)
        [ -n "$d" ] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    fi
done
export MPBLAS_CACHE_DIR=${MPBLAS_CACHE_DIR:-/tmp/mpblas-kernel-cache}
nvidia-smi -L
rc=0
while [ $# -gt 0 ]; do
    case $1 in
    tests)
        "$here/bin/kernels_compile" --include-ignored --test-threads=1 || rc=1
        "$here/bin/gpu_ozaki" --include-ignored --test-threads=1 || rc=1
        shift ;;
    bench)
        OZAKI_BENCH_CSV=${OUT:-/tmp}/ozaki-bench-$2.csv "$here/bin/gpu_ozaki_bench" "$2" || rc=1
        shift 2 ;;
    *) echo "unknown step $1"; exit 2 ;;
    esac
done
exit $rc
RUN
chmod +x "$dest/run.sh"
ls -l "$dest/bin"; du -sh "$dest"
