//! The device tables of `qd_func.cuh` (`qd_tables.cuh`), rendered from this format's Rust
//! constants and series coefficients so that the GPU functions use exactly the CPU's tables.

use super::Qd;
use super::consts::{EXP_J64, LN_2_WORDS};
use crate::cuda::tables::{check_generated, f64_table, header_start};

const GENERATOR: &str = "qd::device_tables";

/// Number of quad-double series coefficients (`TERMS` in `qd/func.rs`).
const QD_TERMS: usize = 64;

/// `1/n!` for `n < QD_TERMS`, exactly as `qd/func.rs` computes it (`t[n] = t[n−1].div_f64(n)`).
fn inv_fact() -> [Qd; QD_TERMS] {
    let mut t = [Qd::ONE; QD_TERMS];
    for n in 2..QD_TERMS {
        t[n] = t[n - 1].div_f64(n as f64);
    }
    t
}

/// `1/(2j+1)` for `j < QD_TERMS`, exactly as `qd/func.rs` computes it.
fn inv_odd() -> [Qd; QD_TERMS] {
    let mut t = [Qd::ONE; QD_TERMS];
    for (j, tj) in t.iter_mut().enumerate().skip(1) {
        *tj = Qd::ONE.div_f64((2 * j + 1) as f64);
    }
    t
}

fn render() -> String {
    let mut o = header_start(GENERATOR, "MPBLAS_QD_TABLES_CUH");
    o.push_str("// ---- qd/consts.rs and the series coefficients of qd/func.rs ----\n");
    o.push_str(&format!("#define MPQ_TERMS {QD_TERMS}\n\n"));
    f64_table(
        &mut o,
        "LN_2_WORDS: ln 2 as six greedy words.",
        "MPQ_LN_2_WORDS",
        &[LN_2_WORDS.to_vec()],
    );
    f64_table(&mut o, "Qd::LN_2.", "MPQ_LN_2", &[Qd::LN_2.c.to_vec()]);
    f64_table(
        &mut o,
        "EXP_J64: e^(j/64) for j = -22..=22 (row j + 22), greedy words.",
        "MPQ_EXP_J64",
        &EXP_J64.iter().map(|w| w.to_vec()).collect::<Vec<_>>(),
    );
    f64_table(
        &mut o,
        "inv_fact(): 1/n! for n < TERMS (t[n] = t[n-1].div_f64(n)).",
        "MPQ_INV_FACT",
        &inv_fact().iter().map(|q| q.c.to_vec()).collect::<Vec<_>>(),
    );
    f64_table(
        &mut o,
        "inv_odd(): 1/(2j+1) for j < TERMS (Qd::ONE.div_f64(2j+1)).",
        "MPQ_INV_ODD",
        &inv_odd().iter().map(|q| q.c.to_vec()).collect::<Vec<_>>(),
    );
    o.push_str("#endif\n");
    o
}

#[test]
fn header_is_up_to_date() {
    check_generated(
        "qd/qd_tables.cuh",
        include_str!("qd_tables.cuh"),
        &render(),
        GENERATOR,
    );
}
