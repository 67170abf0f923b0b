#!/usr/bin/env bash
# The README's test command: every test of the workspace, all features on (the MPFR oracle
# tests need the `rug` feature; the ndarray and faer views theirs), release build. Sets up what
# a fresh machine lacks first: MPFR is built from source inside the `rug` crate and needs m4.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v m4 >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "test.sh: installing m4 (MPFR, the accuracy oracle, is built from source and needs it)"
        apt-get update -qq && apt-get install -y -qq m4 >/dev/null
    else
        echo "test.sh: m4 is missing: MPFR (the accuracy oracle) is built from source and needs it." >&2
        echo "         Install it (Debian/Ubuntu: sudo apt-get install m4; macOS: brew install m4) and rerun." >&2
        exit 1
    fi
fi
exec cargo test --workspace --release --all-features "$@"
