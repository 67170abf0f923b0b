//! The constant tables of the element-wise function kernels, rendered from the CPU's own
//! constants into `kernels/func_tables.cuh`, so that the two can never drift apart.
//!
//! The header is generated, not written: [`render`] produces its full text from the Rust tables
//! (`dd::consts`, `qd::consts`, `reduce`, and the quad-double series coefficients computed with
//! the same `Qd` divisions as `qd/func.rs`), and the unit test `header_is_up_to_date` fails if the
//! file on disk differs. After changing a table, regenerate it with
//! `MPBLAS_BLESS=1 cargo test -p mpblas --lib cuda::func_tables`.
//!
//! Doubles are emitted as their IEEE bit patterns (`u64`), read on the device with
//! `__longlong_as_double`, so no decimal conversion is involved anywhere.

use crate::Qd;
use crate::dd::consts::{EXPM1_J64, INV_FACT, LN2_3, LOG_TABLE};
use crate::qd::consts::LN_2_WORDS;
use crate::reduce::{GUARD, MAX_FRAC_LIMBS, MIN_FRAC_LIMBS, PIO2, TARGET_BITS, TWO_OVER_PI};
use std::fmt::Write;

/// Number of quad-double series coefficients (`TERMS` in `qd/func.rs`).
pub(crate) const QD_TERMS: usize = 64;

/// `1/n!` for `n < QD_TERMS`, exactly as `qd/func.rs` computes it (`t[n] = t[n−1].div_f64(n)`).
fn qd_inv_fact() -> [Qd; QD_TERMS] {
    let mut t = [Qd::ONE; QD_TERMS];
    for n in 2..QD_TERMS {
        t[n] = t[n - 1].div_f64(n as f64);
    }
    t
}

/// `1/(2j+1)` for `j < QD_TERMS`, exactly as `qd/func.rs` computes it.
fn qd_inv_odd() -> [Qd; QD_TERMS] {
    let mut t = [Qd::ONE; QD_TERMS];
    for (j, tj) in t.iter_mut().enumerate().skip(1) {
        *tj = Qd::ONE.div_f64((2 * j + 1) as f64);
    }
    t
}

/// `1/n` as a double-double, exactly as `inv_int` in `dd/func/explog.rs` computes it.
fn dd_inv_int(n: f64) -> [f64; 2] {
    let hi = 1.0 / n;
    let lo = (-hi).mul_add(n, 1.0) / n;
    [hi, lo]
}

/// One table of doubles as `u64` bit patterns, `per_row` words per row.
fn f64_table(out: &mut String, doc: &str, name: &str, rows: &[Vec<f64>]) {
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
fn u64_table(out: &mut String, doc: &str, name: &str, limbs: &[u64]) {
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
fn f64_macro(out: &mut String, name: &str, v: f64) {
    let _ = writeln!(
        out,
        "#define {name} __longlong_as_double(0x{:016x}LL) // {v:e}",
        v.to_bits()
    );
}

/// The full text of `kernels/func_tables.cuh`.
pub(crate) fn render() -> String {
    let mut o = String::new();
    o.push_str(
        "// GENERATED from the Rust tables by crates/mpblas/src/cuda/func_tables.rs: do not edit.\n\
         // Regenerate with `MPBLAS_BLESS=1 cargo test -p mpblas --lib cuda::func_tables`; the unit\n\
         // test `header_is_up_to_date` fails whenever this file and the Rust tables differ.\n\
         // Doubles are stored as IEEE bit patterns; read them with `mp_tab`.\n\n\
         #ifndef MPBLAS_FUNC_TABLES_CUH\n\
         #define MPBLAS_FUNC_TABLES_CUH\n\n\
         #include \"eft.cuh\"\n\n\
         // Read-only tables in constant memory (the host twin defines `__constant__` away).\n\
         #define MP_TABLE static __constant__ const\n\n\
         // A table word as a double.\n\
         MP_DEV double mp_tab(unsigned long long bits) { return __longlong_as_double((long long)bits); }\n\n",
    );
    let _ = writeln!(o, "// ---- scalar constants (std::f64::consts) ----");
    f64_macro(&mut o, "MPF_LN_2", std::f64::consts::LN_2);
    f64_macro(&mut o, "MPF_FRAC_1_SQRT_2", std::f64::consts::FRAC_1_SQRT_2);
    f64_macro(&mut o, "MPF_SQRT_2", std::f64::consts::SQRT_2);
    f64_macro(&mut o, "MPF_FRAC_PI_4", std::f64::consts::FRAC_PI_4);
    o.push('\n');

    let _ = writeln!(o, "// ---- reduce.rs (Payne-Hanek) ----");
    let _ = writeln!(o, "#define MPR_MIN_FRAC_LIMBS {MIN_FRAC_LIMBS}");
    let _ = writeln!(o, "#define MPR_MAX_FRAC_LIMBS {MAX_FRAC_LIMBS}");
    let _ = writeln!(o, "#define MPR_GUARD {GUARD}");
    let _ = writeln!(o, "#define MPR_TARGET_BITS {TARGET_BITS}");
    let _ = writeln!(o, "#define MPR_TWO_OVER_PI_LEN {}\n", TWO_OVER_PI.len());
    u64_table(
        &mut o,
        "TWO_OVER_PI: fraction bits of 2/pi, most significant limb first.",
        "MPR_TWO_OVER_PI",
        &TWO_OVER_PI,
    );
    u64_table(
        &mut o,
        "PIO2: floor(pi/2 * 2^319), little-endian limbs.",
        "MPR_PIO2",
        &PIO2,
    );

    let _ = writeln!(o, "// ---- dd/consts.rs ----");
    f64_table(
        &mut o,
        "LN2_3: ln 2 as a triple-double.",
        "MPD_LN2_3",
        &[LN2_3.to_vec()],
    );
    f64_table(
        &mut o,
        "INV_FACT: 1/n! for n = 0..32 as double-doubles (hi, lo).",
        "MPD_INV_FACT",
        &INV_FACT
            .iter()
            .map(|d| vec![d.hi, d.lo])
            .collect::<Vec<_>>(),
    );
    f64_table(
        &mut o,
        "EXPM1_J64: expm1(j/64) for j = -22..=22 (index j + 22), (hi, lo).",
        "MPD_EXPM1_J64",
        &EXPM1_J64
            .iter()
            .map(|d| vec![d.hi, d.lo])
            .collect::<Vec<_>>(),
    );
    f64_table(
        &mut o,
        "LOG_TABLE: (r_i, -ln r_i as a triple-double) for i = -20..=27 (index i + 20).",
        "MPD_LOG_TABLE",
        &LOG_TABLE
            .iter()
            .map(|(r, t)| vec![*r, t[0], t[1], t[2]])
            .collect::<Vec<_>>(),
    );
    f64_table(
        &mut o,
        "INV_INT: 1/n for n = 0..20 as inv_int in dd/func/explog.rs computes it (row 0 unused).",
        "MPD_INV_INT",
        &(0..20)
            .map(|n| {
                if n == 0 {
                    vec![0.0, 0.0]
                } else {
                    dd_inv_int(n as f64).to_vec()
                }
            })
            .collect::<Vec<_>>(),
    );

    let _ = writeln!(
        o,
        "// ---- qd/consts.rs and the series coefficients of qd/func.rs ----"
    );
    let _ = writeln!(o, "#define MPQ_TERMS {QD_TERMS}\n");
    f64_table(
        &mut o,
        "LN_2_WORDS: ln 2 as six greedy words.",
        "MPQ_LN_2_WORDS",
        &[LN_2_WORDS.to_vec()],
    );
    f64_table(&mut o, "Qd::LN_2.", "MPQ_LN_2", &[Qd::LN_2.c.to_vec()]);
    f64_table(
        &mut o,
        "inv_fact(): 1/n! for n < TERMS (t[n] = t[n-1].div_f64(n)).",
        "MPQ_INV_FACT",
        &qd_inv_fact()
            .iter()
            .map(|q| q.c.to_vec())
            .collect::<Vec<_>>(),
    );
    f64_table(
        &mut o,
        "inv_odd(): 1/(2j+1) for j < TERMS (Qd::ONE.div_f64(2j+1)).",
        "MPQ_INV_ODD",
        &qd_inv_odd()
            .iter()
            .map(|q| q.c.to_vec())
            .collect::<Vec<_>>(),
    );
    o.push_str("#endif\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The header compiled into the library (and on disk) is exactly what the Rust tables
    /// render to; `MPBLAS_BLESS=1` rewrites the file instead of failing.
    #[test]
    fn header_is_up_to_date() {
        let want = render();
        // The embedded copy (what NVRTC compiles), so the check needs no source tree.
        if include_str!("kernels/func_tables.cuh") != want {
            if std::env::var_os("MPBLAS_BLESS").is_some_and(|v| v != "0") {
                let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("src/cuda/kernels/func_tables.cuh");
                std::fs::write(&path, &want).expect("write func_tables.cuh");
                eprintln!("rewrote {}", path.display());
            } else {
                panic!(
                    "kernels/func_tables.cuh differs from the Rust tables: regenerate it with \
                     `MPBLAS_BLESS=1 cargo test -p mpblas --lib cuda::func_tables`"
                );
            }
        }
    }
}
