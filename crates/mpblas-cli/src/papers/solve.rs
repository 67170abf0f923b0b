//! The QD paper's linear solve (seed `003`, §6.2, Table 6.3.2-1): `A·X = B` with `A`
//! 2400 × 2400 and 1600 right-hand sides by Gauss(-Jordan) elimination on 8 × 8 tiles, in
//! double, double-double and quad-double, on three GPUs of 2009-2010 and one CPU core. The
//! paper counts about 1.54·10^10 operations for the double run.

/// Order of `A` in the paper.
pub const PAPER_N: usize = 2400;
/// Right-hand sides in the paper (`2·PAPER_N/3`).
pub const PAPER_NRHS: usize = 1600;
/// The paper's own operation count (its rates are this over its times).
pub const PAPER_OPERATIONS: f64 = 1.54e10;

/// One row of Table 6.3.2-1: seconds per solve on each machine.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Table632Row {
    /// Format name as the library prints it ("f64", "dd", "qd").
    pub format: &'static str,
    /// Tesla C1060, GeForce GTX 480, Tesla C2050, CPU (one core), seconds.
    pub seconds: [f64; 4],
}

/// The machines of the table's columns.
pub const MACHINES: [&str; 4] = ["C1060", "GTX 480", "C2050", "CPU"];

/// Table 6.3.2-1. The scan prints "549", "526", "4133", "37833", "5073" without decimal points;
/// the table's rates (operations per ms) give 5.49, 5.26, 41.33, 378.33 and 50.73 s.
pub const TABLE632: [Table632Row; 3] = [
    Table632Row {
        format: "f64",
        seconds: [18.89, 5.49, 5.26, 41.33],
    },
    Table632Row {
        format: "dd",
        seconds: [33.63, 10.04, 8.69, 378.33],
    },
    Table632Row {
        format: "qd",
        seconds: [181.94, 50.73, 33.44, 3383.58],
    },
];

/// Floating-point operations of an LU solve of order `n` with `nrhs` right-hand sides (the
/// LAPACK count: `2n³/3` for the factors, `2n²` per right-hand side for the two triangular
/// solves).
pub fn lu_operations(n: usize, nrhs: usize) -> f64 {
    let (n, r) = (n as f64, nrhs as f64);
    2.0 * n * n * n / 3.0 + 2.0 * n * n * r
}
