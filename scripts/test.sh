#!/usr/bin/env bash
# The README's test command: every test of the workspace, all features on (the MPFR oracle
# tests need the `rug` feature; the ndarray and faer views theirs), release build, then the
# public-boundary tests with overflow checks on (see the end). Sets up what a fresh machine
# lacks first: MPFR is built from source inside the `rug` crate and needs m4.
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
cargo test --workspace --release --all-features "$@"

# The public-boundary tests again with overflow checks and debug assertions on (the `checked`
# profile of Cargo.toml: release speed, debug checks), which release builds leave out: an
# integer overflow or a failed debug_assert! at a public boundary is a test failure here
# (issue 11). CPU paths only (no cuda feature: CI has no GPU). The fuzz properties use a
# second seed, so this run also covers cases the release run does not. Skipped when arguments
# were given (they select tests of the run above). Cost on a 2-core machine: 1m12s from an
# empty target/checked (2m27s while other builds shared the cores), all but 4 s of it
# building the profile (MPFR comes from the release build's cache).
if [ "$#" -eq 0 ]; then
    echo "test.sh: public-boundary tests with overflow checks and debug assertions (profile checked)"
    MPBLAS_FUZZ_CASES="${MPBLAS_FUZZ_CASES:-256}" MPBLAS_FUZZ_SEED="${MPBLAS_FUZZ_SEED:-1}" \
        cargo test --profile checked -p mpblas --no-default-features \
        --test no_panic --test fuzz_public --test ozaki_args --test rns_alloc --test rns_range
fi
