#!/usr/bin/env python3
"""Where a kernel's time goes, by source line: ncu's per-instruction samples added up over the
source lines (and inlining sites) that line information maps each instruction to.

    # on the GPU machine, a module compiled with line information (cuda/nvrtc.rs's head:
    # MPBLAS_NVRTC_LINEINFO=1, or a variant from `LINEINFO=1 scripts/gpu-variants.sh`):
    ncu --set full --import-source no -k regex:KERNEL --launch-skip 4 --launch-count 1 -o rep BIN
    ncu -i rep.ncu-rep --page source --csv --print-source sass > KERNEL.csv
    # here, with the same image (the variant's .cubin) and nvdisasm on PATH or in $NVDISASM
    # (pip install --target DIR nvidia-cuda-nvdisasm):
    scripts/ncu-lines.py KERNEL.csv MODULE.cubin KERNEL [--depth 2] [--top 30] [--hot 20]

Prints the kernel's stall reasons over all its samples, then its source lines by samples: at
--depth 1 the lines of the kernel's own body (each instruction counted at the line of the
kernel body it was inlined from), at --depth 2 those lines with the line one call deeper, and
so on. Each line has its samples, their share, the warp instructions it ran and its text. With
--hot N, the instructions with at least N samples follow, with their two main stall reasons
(no_inst: waiting on an instruction fetch; long_sb: on a global load; wait: a fixed latency).
The image must be the one profiled (a recompile can give different machine code), and the
lines' text comes from this working tree: profile the tree you read.
"""
import argparse
import collections
import csv
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def samples(csv_path, kernel):
    """{offset: (samples, warp instructions, text, {stall: samples})} of the kernel's first section."""
    rows = list(csv.reader(open(csv_path, newline="")))
    start = next((i for i, r in enumerate(rows) if r[:2] == ["Kernel Name", kernel]), None)
    if start is None:
        sys.exit(f"{csv_path}: no source page for kernel {kernel}")
    head = rows[start + 1]
    col = head.index("Warp Stall Sampling (All Samples)")
    ins = head.index("Instructions Executed")
    stalls = [(k, h[len("stall_"):]) for k, h in enumerate(head) if h.startswith("stall_") and "Not Issued" not in h]
    out, base = {}, None
    for r in rows[start + 2:]:
        if not r or r[0] == "Kernel Name":
            break
        addr = int(r[0], 16)
        base = addr if base is None else base
        by = {name: int(r[k]) for k, name in stalls if r[k].isdigit() and int(r[k]) > 0}
        out[addr - base] = (int(r[col]), int(r[ins]) if r[ins].isdigit() else 0, r[1].strip(), by)
    return out


def line_chains(cubin, kernel):
    """{offset: [(file, line), ...]}: each instruction's source line, innermost first, then the
    lines it was inlined at, ending in the kernel's own."""
    tool = os.environ.get("NVDISASM", "nvdisasm")
    try:
        text = subprocess.run([tool, "-gi", "-c", cubin], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"{tool}: {e}")
    chains, pending, current, inside = {}, [], [], False
    for line in text.splitlines():
        if line.startswith("//----"):
            m = re.search(r"\.text\.(\S+)", line)
            inside = m is not None and m.group(1) == kernel
            continue
        if not inside:
            continue
        m = re.match(r'\s*//## File "([^"]+)", line (\d+)', line)
        if m:
            pending.append((os.path.basename(m.group(1)), int(m.group(2))))
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/", line)
        if m:
            if pending:
                current, pending = pending, []
            chains[int(m.group(1), 16)] = current
    if not chains:
        sys.exit(f"{cubin}: no kernel {kernel} (or no line information: compile with MPBLAS_NVRTC_LINEINFO=1)")
    return chains


def source_text(name, line, cache={}):
    """The text of a line of a kernel source or header in the repository, if found."""
    if name not in cache:
        found = None
        for dirpath, _, files in os.walk(os.path.join(ROOT, "crates")):
            if name in files:
                found = open(os.path.join(dirpath, name)).read().splitlines()
                break
        cache[name] = found
    lines = cache[name]
    return lines[line - 1].strip() if lines and 0 < line <= len(lines) else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("cubin")
    ap.add_argument("kernel")
    ap.add_argument("--depth", type=int, default=1)
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--hot", type=int, default=0)
    a = ap.parse_args()
    got, chains = samples(a.csv, a.kernel), line_chains(a.cubin, a.kernel)
    total = sum(s for s, _, _, _ in got.values()) or 1
    reasons = collections.Counter()
    for _, _, _, by in got.values():
        reasons.update(by)
    stalled = sum(reasons.values()) or 1
    print(f"{a.kernel}: {len(got)} instructions of code, {sum(i for _, i, _, _ in got.values())} warp instructions "
          f"run, {total} samples")
    print("stalls: " + ", ".join(f"{k} {100 * v / stalled:.0f}%" for k, v in reasons.most_common(8)))
    by_line, ins_line = collections.Counter(), collections.Counter()
    for off, (s, ins, _, _) in got.items():
        chain = chains.get(off, [])
        # the kernel's own line last; the key: the `depth` lines below it, outermost first
        key = tuple(reversed(chain[max(0, len(chain) - 1 - a.depth):len(chain) - 1]))
        by_line[key] += s
        ins_line[key] += ins
    print(f"\n{'samples':>8} {'share':>6} {'instr':>10}  line (outermost first: kernel line > inlined line > ...)")
    for key, s in by_line.most_common(a.top):
        where = " > ".join(f"{f}:{n}" for f, n in key) or "(no line)"
        text = source_text(*key[-1]) if key else ""
        print(f"{s:8d} {100 * s / total:5.1f}% {ins_line[key]:10d}  {where}   {text[:70]}")
    if a.hot:
        print(f"\ninstructions with at least {a.hot} samples:")
        for off in sorted(got):
            s, ins, sass, by = got[off]
            if s >= a.hot:
                top = ", ".join(f"{k} {v}" for k, v in collections.Counter(by).most_common(2))
                chain = " > ".join(f"{f}:{n}" for f, n in reversed(chains.get(off, [])[:3]))
                print(f"  {off:06x} {s:5d}  {sass[:48]:48s} {top:28s} {chain}")


if __name__ == "__main__":
    main()
