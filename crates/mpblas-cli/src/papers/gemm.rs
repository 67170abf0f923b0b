//! The QD paper's matrix product (seed `003`, §6.1.2, Table 6.2.2-1): `C = A·B` with `A`
//! 1600 × 3200 and `B` 3200 × 1600 (about 1.64·10^10 operations: 2·1600·1600·3200 multiplies
//! and adds) in double, double-double and quad-double, on three GPUs of 2009-2010 (8 × 8
//! shared-memory tiles) and one CPU core.

/// Rows and columns of `C` in the paper.
pub const PAPER_N: usize = 1600;
/// The inner dimension in the paper (`2·PAPER_N`).
pub const PAPER_K: usize = 3200;

/// One row of Table 6.2.2-1: seconds per product on each machine.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Table622Row {
    /// Format name as the library prints it ("f64", "dd", "qd").
    pub format: &'static str,
    /// Tesla C1060, GeForce GTX 480, Tesla C2050, CPU (one core), seconds.
    pub seconds: [f64; 4],
}

/// The machines of the table's columns.
pub const MACHINES: [&str; 4] = ["C1060", "GTX 480", "C2050", "CPU"];

/// Table 6.2.2-1. The double row's C1060 time is printed as "0.34" in the scan, but the
/// table's own rate (6.20·10^7 operations/ms) and Table 6.2.2-2's speed-up over the CPU
/// (362.57×) both give 0.26 s: 0.26 is kept.
pub const TABLE622: [Table622Row; 3] = [
    Table622Row {
        format: "f64",
        seconds: [0.26, 0.20, 0.26, 95.68],
    },
    Table622Row {
        format: "dd",
        seconds: [8.34, 3.62, 1.75, 557.78],
    },
    Table622Row {
        format: "qd",
        seconds: [74.63, 31.37, 14.22, 1785.50],
    },
];

/// The paper's operation count for `m × n` times `n`-inner: `2·m·n·k`.
pub fn operations(m: usize, n: usize, k: usize) -> f64 {
    2.0 * m as f64 * n as f64 * k as f64
}
