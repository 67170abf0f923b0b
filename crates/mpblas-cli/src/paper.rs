//! The figures of the QD-on-CUDA paper (Sivkova, Dovgilovich, Voskoboynikova, Sofronov,
//! "CUDA algorithms of some linear algebra operations for the extended precision arithmetic
//! library QD", MIPT; in Russian, our copy is OCR'd: `seeds/003_06d603911676c22b.txt`).
//!
//! The paper's unit is **operations per millisecond** ("количество операций в миллисекунду"):
//! its Table 3.6-1 gives 1.27e+006 for double `+` on one core, i.e. 1.27e9 op/s. We keep the
//! figures as printed and convert to M op/s (÷ 1000) when printing.
//!
//! Hardware named by the paper: GPUs Tesla C1060 (Section 1 and Table 1-1 write "C1050", which
//! does not exist; the abstract and every result table say C1060), GeForce GTX480 and Tesla
//! C2050. The CPU model is **not named** anywhere in the text; Section 3.6 runs on one core
//! ("release build, no parallelisation, one core"), Section 5 on "OpenMP on 4 cores".
//!
//! Every figure below was checked against the paper's ratio tables (3.6-3, 5.1-4, 5.2.5-2),
//! which are computed from them; where the OCR is ambiguous the note says so.

/// Per-millisecond figures for double, double-double, quad-double.
pub type Row = [f64; 3];

/// Table 3.6-1: operations per ms, one CPU core, QD library (C++), release build.
/// Rows: + − × ÷. Cross-check: Table 3.6-3 gives dd/double slow-downs 16.2, 17.3, 55.1, 7.7
/// and qd 145.0, 155.1, 347.3, 77.8; the figures below reproduce these (× gives 54.96 and
/// 347.5: the ratio table was probably computed from unrounded times).
pub const T3_6_1: [(&str, Row); 4] = [
    ("add", [1.27e6, 78_500.0, 8_760.0]),
    ("sub", [1.27e6, 73_600.0, 8_190.0]),
    ("mul", [7.75e5, 14_100.0, 2_230.0]),
    ("div", [6.30e4, 8_160.0, 810.0]),
];

/// A table with a CPU column (OpenMP, 4 cores) and the three GPUs.
pub struct VectorTable {
    /// Table number in the paper.
    pub id: &'static str,
    /// What was measured.
    pub caption: &'static str,
    /// Rows: op name, CPU (4 cores), C1060, GTX480, C2050; each for double, dd, qd.
    pub rows: &'static [(&'static str, [Row; 4])],
}

/// GPU names of the columns, in order.
pub const GPUS: [&str; 3] = ["Tesla C1060", "GeForce GTX480", "Tesla C2050"];

/// Table 5.1-3: element-wise vector + × ÷, operations per ms, 128 threads per block and the
/// number of blocks set from the vector length ("maximum number of blocks"), the same setup
/// as Table 5.2.5-1. The paper has no − row here. The CPU column is the same in Tables 5.1-1,
/// 5.1-3 and 5.2.5 (one CPU run). Cross-check: Table 5.1-4 ratios (e.g. C2050 qd ÷ 33.77 =
/// 2.54e5 / 7.52e3) agree.
pub const T5_1_3: VectorTable = VectorTable {
    id: "5.1-3",
    caption: "element-wise vector + × ÷ (CPU: OpenMP, 4 cores)",
    rows: &[
        (
            "add",
            [
                [3.52e5, 1.78e5, 4.44e4],
                [3.48e6, 1.06e6, 2.73e5],
                [6.66e6, 3.07e6, 6.50e5],
                [4.44e6, 2.05e6, 7.70e5],
            ],
        ),
        (
            "mul",
            [
                [3.59e5, 1.31e5, 2.51e4],
                [3.48e6, 1.04e6, 1.54e5],
                [6.66e6, 2.96e6, 3.83e5],
                [4.44e6, 2.10e6, 5.88e5],
            ],
        ),
        (
            "div",
            [
                [2.87e5, 7.60e4, 7.52e3],
                [2.32e6, 5.21e5, 4.93e4],
                [6.15e6, 1.33e6, 1.12e5],
                [4.21e6, 1.70e6, 2.54e5],
            ],
        ),
    ],
};

/// Table 5.2.5-1: element-wise √ exp log sin over vectors, operations per ms, maximum
/// number of blocks. OCR notes: the √ row is printed as "J-" or "Na"; "3.30et006" (C2050
/// double log) is read as 3.30e+006, and the C1060 double √ ratio "2.16" in Table 5.2.5-2 is
/// 21.56 with a digit lost; every value below reproduces the ratios of Table 5.2.5-2.
/// (Table 5.2.5-3 repeats the test on short arrays, 16384 elements × ~10000 passes, to show
/// the compute-bound rate; its CPU figures differ and are not used here.)
pub const T5_2_5_1: VectorTable = VectorTable {
    id: "5.2.5-1",
    caption: "element-wise vector √ exp log sin (CPU: OpenMP, 4 cores)",
    rows: &[
        (
            "sqrt",
            [
                [9.74e4, 3.56e4, 1.78e3],
                [2.10e6, 5.80e5, 1.61e4],
                [3.26e6, 9.10e5, 3.66e4],
                [4.68e6, 2.34e6, 8.84e4],
            ],
        ),
        (
            "exp",
            [
                [4.21e4, 3.93e3, 4.97e2],
                [1.82e6, 4.83e4, 3.67e3],
                [1.93e6, 1.05e5, 8.44e3],
                [4.67e6, 2.52e5, 2.16e4],
            ],
        ),
        (
            "ln",
            [
                [2.95e4, 3.52e3, 1.64e2],
                [1.08e6, 4.40e4, 1.12e3],
                [1.18e6, 9.45e4, 2.67e3],
                [3.30e6, 2.28e5, 6.26e3],
            ],
        ),
        (
            "sin",
            [
                [6.95e4, 4.83e3, 4.58e2],
                [9.30e5, 2.64e4, 3.19e3],
                [1.67e6, 5.86e4, 8.66e3],
                [3.70e6, 1.34e5, 1.17e4],
            ],
        ),
    ],
};

/// Per-ms figure → M op/s.
pub fn mops(per_ms: f64) -> f64 {
    per_ms / 1000.0
}

/// The paper's one-core figure for `op` and format column `f` (0 double, 1 dd, 2 qd).
pub fn one_core(op: &str, f: usize) -> Option<f64> {
    T3_6_1
        .iter()
        .find(|(name, _)| *name == op)
        .and_then(|(_, row)| row.get(f).copied())
}

/// The paper's row for `op` in a vector table.
pub fn vector_row(table: &VectorTable, op: &str) -> Option<[Row; 4]> {
    table
        .rows
        .iter()
        .find(|(name, _)| *name == op)
        .map(|(_, r)| *r)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ratio tables of the paper, recomputed from the figures (our OCR check).
    #[test]
    fn ratios_match_the_papers_ratio_tables() {
        let r = |a: f64, b: f64| a / b;
        // Table 3.6-3, dd and qd slow-downs against double.
        assert!((r(T3_6_1[0].1[0], T3_6_1[0].1[1]) - 16.2).abs() < 0.05);
        assert!((r(T3_6_1[3].1[0], T3_6_1[3].1[2]) - 77.8).abs() < 0.05);
        // Table 5.2.5-2, C2050 over CPU: double exp 110.93, dd log 64.77, qd sin 25.54.
        let exp = vector_row(&T5_2_5_1, "exp").map(|x| r(x[3][0], x[0][0]));
        assert!(exp.is_some_and(|v| (v - 110.93).abs() < 0.05));
        let ln = vector_row(&T5_2_5_1, "ln").map(|x| r(x[3][1], x[0][1]));
        assert!(ln.is_some_and(|v| (v - 64.77).abs() < 0.05));
        let sin = vector_row(&T5_2_5_1, "sin").map(|x| r(x[3][2], x[0][2]));
        assert!(sin.is_some_and(|v| (v - 25.54).abs() < 0.05));
        // Table 5.1-4, C2050 qd ÷ 33.77.
        let div = vector_row(&T5_1_3, "div").map(|x| r(x[3][2], x[0][2]));
        assert!(div.is_some_and(|v| (v - 33.77).abs() < 0.05));
    }
}
