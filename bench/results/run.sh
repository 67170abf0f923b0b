#!/usr/bin/env bash
# The measurement run behind BENCHMARKS.md: builds (default flags and +fma), waits up to 3 minutes
# per step for a quiet machine, then runs `mpblas reproduce qd` and the criterion bench and writes
# text (with a header: date, commit, CPU, load) and JSON to bench/results/<machine>/.
# Usage: bench/results/run.sh <machine-slug>
set -euo pipefail
cd "$(dirname "$0")/../.."
slug=${1:?usage: run.sh <machine-slug>}
dir=bench/results/$slug
mkdir -p "$dir"
commit=$(git rev-parse HEAD)
# The workspace builds for x86-64-v3 (AVX2 + FMA, .cargo/config.toml); the files *-baseline-x86-64.*
# and *-fma.* in xeon-2vcpu-f6m167/ are an earlier run without it (kept to show the difference).
cargo build --release -p mpblas-cli -q
cargo bench --no-run -p mpblas --bench formats --bench rns -q 2>/dev/null
wait_quiet() { # up to 3 minutes for the 1-minute load to drop below 0.7
  for _ in $(seq 18); do
    awk '{exit !($1 < 0.7)}' /proc/loadavg && return 0
    sleep 10
  done
}
header() {
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# git commit: $commit"
  echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') (family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' '), model $(grep -m1 '^model[[:space:]]' /proc/cpuinfo | cut -d: -f2 | tr -d ' '), $(nproc) logical CPUs, $(grep -m1 'cpu MHz' /proc/cpuinfo | cut -d: -f2 | tr -d ' ') MHz)"
  echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# rustc: $(rustc --version); build: $1"
  echo "# command: $2"
}
run() { # name build cmd...
  local name=$1 build=$2; shift 2
  wait_quiet
  { header "$build" "$*"; echo; "$@"; echo; echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"; } > "$dir/$name.txt" 2>&1
}
run reproduce-qd "cargo build --release (x86-64-v3)" target/release/mpblas reproduce qd --json-file "$dir/reproduce-qd.json"
run formats "cargo bench (x86-64-v3)" cargo bench -p mpblas --bench formats -- --warm-up-time 1 --measurement-time 2
python3 bench/results/summarise.py "$dir/formats.txt" "$dir/formats.json" > "$dir/formats.md"
run rns "cargo bench (x86-64-v3)" cargo bench -p mpblas --bench rns
# The text headers (date, commit, CPU, load before/after, build, command) as one JSON file.
python3 - "$dir" <<'PY'
import json, os, sys
d = sys.argv[1]
meta = {}
for name in sorted(os.listdir(d)):
    if name.endswith(".txt"):
        with open(os.path.join(d, name), encoding="utf-8") as f:
            meta[name] = {k.strip(): v.strip() for k, v in
                          (l[2:].split(":", 1) for l in f if l.startswith("# ") and ":" in l)}
with open(os.path.join(d, "meta.json"), "w", encoding="utf-8") as f:
    json.dump(meta, f, indent=1)
PY
echo finished
