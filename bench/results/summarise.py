#!/usr/bin/env python3
"""Summarise a `cargo bench -p mpblas --bench formats` log (stdout and stderr together).

Usage: summarise.py formats.txt formats.json > table.md

Reads criterion's `<op>/<format>/<n>  time: [lo mid hi]` lines and the bench's own
`accuracy <op>  <format>: <e> u (<rel>)` lines, and writes
- a JSON document (per op, format, n: elements/s from criterion's middle estimate, the ratio to
  f64 and to twofloat at the same n, and the max relative error against MPFR), and
- a Markdown table of the same on stdout, then the rates side by side (M elem/s; in brackets
  how many times slower than f64 and the speed relative to twofloat, "tf").
Only numbers found in the log are used; nothing is filled in.
"""

import json
import re
import sys

UNITS = {"ps": 1e-12, "ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}
TIME = re.compile(
    r"^(?P<id>[a-z_]+/[a-z0-9_]+/\d+)\s+time:\s+\[(?P<lo>[\d.]+) (?P<u1>\S+) "
    r"(?P<mid>[\d.]+) (?P<u2>\S+) (?P<hi>[\d.]+) (?P<u3>\S+)\]"
)
ACC = re.compile(r"\s([a-z_0-9]+): ([\d.e+-]+) u \(([\d.e+-]+)\)")


def main(log_path, json_path):
    rates = {}
    errors = {}
    pending = None
    with open(log_path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("accuracy ") and ":" in line and "max relative" not in line:
                op = line.split()[1]
                for fmt, in_u, rel in ACC.findall(line):
                    errors[(op, fmt)] = {"max_rel": float(rel), "max_rel_in_u": float(in_u)}
                continue
            # criterion puts long ids on their own line and the numbers on the next one.
            m = TIME.match(line.strip()) if pending is None else TIME.match(pending + " " + line.strip())
            if m is None and re.match(r"^[a-z_]+/[a-z0-9_]+/\d+$", line.strip()):
                pending = line.strip()
                continue
            pending = None
            if m:
                op, fmt, n = m.group("id").split("/")
                t = float(m.group("mid")) * UNITS[m.group("u2")]
                rates[(op, fmt, int(n))] = {
                    "seconds_per_pass": t,
                    "elements_per_s": int(n) / t,
                }
    rows = []
    for (op, fmt, n), r in sorted(rates.items()):
        base = rates.get((op, "f64", n))
        tf = rates.get((op, "twofloat", n))
        row = {
            "op": op,
            "format": fmt,
            "n": n,
            "melem_per_s": r["elements_per_s"] / 1e6,
            "slowdown_vs_f64": base["elements_per_s"] / r["elements_per_s"] if base else None,
            "speed_vs_twofloat": r["elements_per_s"] / tf["elements_per_s"] if tf else None,
            "error": errors.get((op, fmt)),
        }
        rows.append(row)
    with open(json_path, "w", encoding="utf-8") as f:
        json.dump({"source": log_path, "rows": rows}, f, indent=1)
    print("| op | format | n | M elem/s | × slower than f64 | speed / twofloat | max rel err (u of format) |")
    print("|---|---|---|---|---|---|---|")
    order = {"f64": 0, "dd": 1, "dd_sloppy": 2, "twofloat": 3, "qd": 4}
    opord = {"add": 0, "mul": 1, "div": 2, "sqrt": 3}
    for row in sorted(rows, key=lambda r: (opord.get(r["op"], 9), r["n"], order.get(r["format"], 9))):
        e = row["error"]
        err = "—" if e is None else (f"{e['max_rel_in_u']:.3g} ({e['max_rel']:.2e})")
        sl = "—" if row["slowdown_vs_f64"] is None else f"{row['slowdown_vs_f64']:.1f}"
        tf = "—" if row["speed_vs_twofloat"] is None else f"{row['speed_vs_twofloat']:.2f}"
        print(f"| {row['op']} | {row['format']} | {row['n']} | {row['melem_per_s']:.4g} | {sl} | {tf} | {err} |")
    pivot(rows)


def pivot(rows):
    """Rates side by side: one line per (op, n), one column per format, ratios in brackets."""
    formats = ["f64", "dd", "dd_sloppy", "twofloat", "qd"]
    print()
    print("| op | n | " + " | ".join(formats) + " |")
    print("|---|---|" + "---|" * len(formats))
    keys = sorted({(r["op"], r["n"]) for r in rows}, key=lambda k: ({"add": 0, "mul": 1, "div": 2, "sqrt": 3}.get(k[0], 9), k[1]))
    for op, n in keys:
        cells = []
        for fmt in formats:
            r = next((x for x in rows if x["op"] == op and x["n"] == n and x["format"] == fmt), None)
            if r is None:
                cells.append("—")
            elif fmt == "f64":
                cells.append(f"{r['melem_per_s']:.4g}")
            else:
                extra = f"{r['slowdown_vs_f64']:.1f}× slower" if r["slowdown_vs_f64"] else ""
                if r["speed_vs_twofloat"] and fmt != "twofloat":
                    extra += f", {r['speed_vs_twofloat']:.2f}× tf"
                cells.append(f"{r['melem_per_s']:.4g} ({extra})")
        print(f"| {op} | {n} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: summarise.py <criterion log> <output json>")
    main(sys.argv[1], sys.argv[2])
