#!/usr/bin/env python3
"""The executables in cargo's JSON messages (--message-format=json), one "<name> <path>" line
each: the test target's name, "lib" for the library's unit tests, and for the mpblas-cli
package's binary "mpblas" (the binary) or "cli" (its unit tests). Reads the file named by the
first argument, or standard input for "-" (gpu-check.sh, gpu-variants.sh)."""
import json
import sys

src = sys.stdin if len(sys.argv) < 2 or sys.argv[1] == "-" else open(sys.argv[1])
for line in src:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        t = m["target"]
        name = "lib" if "lib" in t["kind"] else t["name"]
        if t["name"] == "mpblas" and "bin" in t["kind"]:
            # the mpblas binary's unit tests, or the binary itself (`reproduce ... --gpu`)
            name = "cli" if m.get("profile", {}).get("test") else "mpblas"
        print(name, m["executable"])
