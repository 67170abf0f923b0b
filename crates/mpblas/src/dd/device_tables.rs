//! The device tables of `dd_func.cuh` (`dd_tables.cuh`), rendered from this format's Rust
//! constants so that the GPU functions use exactly the CPU's tables.

use super::consts::{EXPM1_J64, INV_FACT, LN2_3, LOG_TABLE};
use crate::cuda::tables::{check_generated, f64_table, header_start};

const GENERATOR: &str = "dd::device_tables";

/// `1/n` as a double-double, exactly as `inv_int` in `dd/func/explog.rs` computes it.
fn inv_int(n: f64) -> [f64; 2] {
    let hi = 1.0 / n;
    let lo = (-hi).mul_add(n, 1.0) / n;
    [hi, lo]
}

fn render() -> String {
    let mut o = header_start(GENERATOR, "MPBLAS_DD_TABLES_CUH");
    o.push_str("// ---- dd/consts.rs ----\n");
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
                    inv_int(n as f64).to_vec()
                }
            })
            .collect::<Vec<_>>(),
    );
    o.push_str("#endif\n");
    o
}

#[test]
fn header_is_up_to_date() {
    check_generated(
        "dd/dd_tables.cuh",
        include_str!("dd_tables.cuh"),
        &render(),
        GENERATOR,
    );
}
