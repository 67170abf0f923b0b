#!/usr/bin/env bash
# QD's quad-double + × ÷ in its sloppy (default) and accurate variants, then mpblas's, in the
# same run on this machine (one thread each). Needs libqd-dev (installed if missing) and a
# release build of the CLI (built if missing).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ ! -e /usr/include/qd/qd_real.h ]; then
    apt-get update -qq && apt-get install -y -qq libqd-dev >/dev/null
fi
out=${TMPDIR:-/tmp}/qd_variants
g++ -O3 -march=x86-64-v3 "$root/bench/qd-variants/qd_variants.cpp" -lqd -o "$out"
[ -x "$root/target/release/mpblas" ] || (cd "$root" && cargo build --release -q -p mpblas-cli)
for round in 1 2; do
    echo "## round $round"
    "$out"
    for op in add mul div sqrt; do
        "$root/target/release/mpblas" bench --format qd --op "$op" | tail -n 1 | cut -d';' -f1
    done
done
