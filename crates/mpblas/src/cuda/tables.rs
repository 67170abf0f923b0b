//! Generated device headers: constant tables rendered from the CPU's own Rust constants, so
//! that a kernel and its CPU twin can never use different tables (test-only code).
//!
//! Each table owner (a format, or the trigonometric reduction) renders its header with these
//! helpers in a unit test that compares the rendering with the embedded file and, with
//! `MPBLAS_BLESS=1`, rewrites the file instead of failing. Doubles are emitted as their IEEE bit
//! patterns (`u64`), read on the device with `mp_tab` (`eft.cuh`), so no decimal conversion is
//! involved anywhere.

use std::fmt::Write;

/// The opening of a generated header: the notice naming its generator (`path::to::test`), the
/// include guard and `#include "eft.cuh"` (for `MP_TABLE` and `mp_tab`).
pub(crate) fn header_start(generator: &str, guard: &str) -> String {
    format!(
        "// GENERATED from the Rust tables by the unit test {generator}: do not edit.\n\
         // Regenerate with `MPBLAS_BLESS=1 cargo test -p mpblas --lib {generator}`; the test\n\
         // fails whenever this file and the Rust tables differ. Doubles are stored as IEEE bit\n\
         // patterns; read them with `mp_tab`.\n\n\
         #ifndef {guard}\n\
         #define {guard}\n\n\
         #include \"eft.cuh\"\n\n"
    )
}

/// One table of doubles as `u64` bit patterns, `per_row` words per row.
pub(crate) fn f64_table(out: &mut String, doc: &str, name: &str, rows: &[Vec<f64>]) {
    let per_row = rows.first().map_or(1, Vec::len);
    let _ = writeln!(out, "// {doc}");
    let _ = writeln!(
        out,
        "MP_TABLE unsigned long long {name}[{}][{per_row}] = {{",
        rows.len()
    );
    for r in rows {
        let words: Vec<String> = r
            .iter()
            .map(|w| format!("0x{:016x}ULL", w.to_bits()))
            .collect();
        let values: Vec<String> = r.iter().map(|w| format!("{w:e}")).collect();
        let _ = writeln!(
            out,
            "    {{{}}}, // {}",
            words.join(", "),
            values.join(", ")
        );
    }
    let _ = writeln!(out, "}};\n");
}

/// One table of `u64` limbs.
pub(crate) fn u64_table(out: &mut String, doc: &str, name: &str, limbs: &[u64]) {
    let _ = writeln!(out, "// {doc}");
    let _ = writeln!(
        out,
        "MP_TABLE unsigned long long {name}[{}] = {{",
        limbs.len()
    );
    for l in limbs {
        let _ = writeln!(out, "    0x{l:016x}ULL,");
    }
    let _ = writeln!(out, "}};\n");
}

/// A scalar `f64` constant as a macro expanding to its bit pattern.
pub(crate) fn f64_macro(out: &mut String, name: &str, v: f64) {
    let _ = writeln!(
        out,
        "#define {name} __longlong_as_double(0x{:016x}LL) // {v:e}",
        v.to_bits()
    );
}

/// Fails unless `embedded` (the header compiled into the library) equals `rendered`; with
/// `MPBLAS_BLESS=1` writes `rendered` to `file` (relative to the crate's `src/`) instead.
pub(crate) fn check_generated(file: &str, embedded: &str, rendered: &str, generator: &str) {
    if embedded == rendered {
        return;
    }
    if std::env::var_os("MPBLAS_BLESS").is_some_and(|v| v != "0") {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("src")
            .join(file);
        std::fs::write(&path, rendered).expect("write the generated header");
        eprintln!("rewrote {}", path.display());
    } else {
        panic!(
            "{file} differs from the Rust tables: regenerate it with \
             `MPBLAS_BLESS=1 cargo test -p mpblas --lib {generator}`"
        );
    }
}
