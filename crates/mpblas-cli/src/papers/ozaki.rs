//! Reproduction of Tables 2 and 3 of the seed paper (Nanai, Fujimoto, "Evaluation of
//! double-precision matrix multiplication based on the Ozaki scheme with a small constant
//! number of split matrices in single precision for gaming GPUs", IPSJ 2021) on the CPU, with
//! the paper's numbers kept beside ours in [`PAPER_TABLE2`] and [`PAPER_TABLE3`].
//!
//! Inputs are the paper's `(rand − 0.5)·exp(φ·randn)` ([`paper_matrix`], a seeded SplitMix64
//! generator with Box–Muller normals); the error measure is the paper's eq. (21), the maximum
//! over entries of `|c* − c|/|c*|`, with `c*` held exactly ([`mpblas::exact::ExactDot`]). Methods are the
//! paper's ([`PAPER_METHODS`]): single precision (SGEMM on the inputs rounded to `f32`),
//! scheme I with `s = 2..6` `f32` slices (triangular products, `f64` sum) and double precision
//! (DGEMM); then scheme II in fast mode for a list of moduli counts `N` (`"OzII-N"`), which
//! the paper does not have: [`Reproduction::ozaki2_table`] sets them beside DGEMM.
//! [`super::ozaki_gpu::reproduce_gpu`] is the GPU run, with the same rows and methods plus
//! scheme II in accurate mode.

use mpblas::exact::ExactDot;
use mpblas::ozaki::{
    Accumulate, OZAKI2_MODULI, Ozaki1Params, Ozaki2Mode, Ozaki2Params, OzakiGuard, Products,
    SliceGemm, gemm_cpu, ozaki1_gemm_blas, ozaki2_gemm_blas,
};
use mpblas::{Error, Result, Trans};
pub use mpblas_testdata::paper_matrix;
use rayon::prelude::*;
use std::fmt::Write as _;
use std::time::Instant;

/// Table 2 of the seed paper: mean over 10 seeds of the maximum relative error, for
/// `(φ, n)` and the methods single, 2, 3, 4, 5, 6 slices, double. Read from lines 366–375 of
/// `seeds/002_98b057aed8ae37ec.txt`.
pub const PAPER_TABLE2: [(f64, usize, [f64; 7]); 9] = [
    (
        0.1,
        1024,
        [
            2.95e0, 1.05e-2, 4.93e-4, 3.97e-6, 3.50e-8, 3.57e-10, 6.92e-9,
        ],
    ),
    (
        0.1,
        2048,
        [1.74e1, 2.45e-1, 8.26e-3, 2.29e-4, 4.55e-6, 7.54e-8, 9.40e-9],
    ),
    (
        0.1,
        4096,
        [2.18e1, 2.92e0, 4.81e-2, 6.48e-4, 8.64e-6, 2.71e-7, 4.88e-8],
    ),
    (
        1.0,
        1024,
        [1.69e0, 1.33e-1, 4.34e-3, 9.09e-5, 4.18e-7, 7.87e-9, 3.42e-9],
    ),
    (
        1.0,
        2048,
        [3.26e0, 6.63e-1, 7.01e-2, 2.85e-3, 5.53e-5, 6.37e-7, 1.16e-8],
    ),
    (
        1.0,
        4096,
        [1.14e1, 1.83e0, 6.02e-1, 7.69e-3, 1.87e-4, 4.54e-6, 2.16e-8],
    ),
    (
        2.0,
        1024,
        [
            1.72e-1, 3.45e-2, 4.68e-3, 1.08e-4, 2.38e-6, 3.65e-8, 5.69e-10,
        ],
    ),
    (
        2.0,
        2048,
        [1.75e0, 8.40e-1, 1.09e-1, 1.77e-2, 2.12e-4, 4.10e-6, 9.80e-9],
    ),
    (
        2.0,
        4096,
        [2.12e1, 1.68e1, 3.24e0, 6.86e-2, 4.99e-3, 5.05e-5, 1.69e-8],
    ),
];

/// Table 3 of the seed paper: for `(φ, n)`, the time ratios (method / single) and error ratios
/// (single / method) for 2, 3, 4, 5, 6 slices and double. Read from lines 432–450 of
/// `seeds/002_98b057aed8ae37ec.txt`.
#[allow(clippy::type_complexity)]
pub const PAPER_TABLE3: [(f64, usize, [f64; 6], [f64; 6]); 9] = [
    (
        0.1,
        1024,
        [4.74, 9.29, 14.6, 20.7, 27.5, 21.8],
        [2.81e2, 5.97e3, 7.43e5, 8.41e7, 8.25e9, 4.26e8],
    ),
    (
        0.1,
        2048,
        [4.69, 9.31, 14.8, 21.2, 27.4, 28.6],
        [7.09e1, 2.10e3, 7.60e4, 3.82e6, 2.31e8, 1.85e9],
    ),
    (
        0.1,
        4096,
        [4.05, 8.31, 13.6, 20.0, 27.8, 33.0],
        [7.45e0, 4.52e2, 3.36e4, 2.52e6, 8.03e7, 4.46e8],
    ),
    (
        1.0,
        1024,
        [4.71, 9.21, 14.5, 20.5, 27.3, 21.7],
        [1.27e1, 3.89e2, 1.86e4, 4.04e6, 2.15e8, 4.94e8],
    ),
    (
        1.0,
        2048,
        [4.64, 9.22, 14.7, 20.9, 27.7, 28.5],
        [4.91e0, 4.65e1, 1.14e3, 5.89e4, 5.11e6, 2.82e8],
    ),
    (
        1.0,
        4096,
        [4.05, 8.32, 13.6, 20.0, 27.7, 31.8],
        [6.24e0, 1.89e1, 1.48e3, 6.10e4, 2.51e6, 5.27e8],
    ),
    (
        2.0,
        1024,
        [4.77, 9.37, 14.8, 20.9, 27.8, 22.1],
        [4.98e0, 3.66e1, 1.59e3, 7.22e4, 4.70e6, 3.02e8],
    ),
    (
        2.0,
        2048,
        [4.66, 9.27, 14.7, 20.9, 27.8, 28.7],
        [2.09e0, 1.61e1, 9.89e1, 8.27e3, 4.28e5, 1.79e8],
    ),
    (
        2.0,
        4096,
        [4.05, 8.26, 13.5, 19.9, 28.1, 33.1],
        [1.26e0, 6.55e0, 3.10e2, 4.26e3, 4.20e5, 1.25e9],
    ),
];

/// The seed paper's methods, in the column order of its Tables 2 and 3: single precision
/// (SGEMM), scheme I with 2..6 `f32` slices, double precision (DGEMM). Every [`Reproduction`]
/// starts with these, so that its columns line up with [`PAPER_TABLE2`] and [`PAPER_TABLE3`].
pub const PAPER_METHODS: [&str; 7] = [
    "single", "2 split", "3 split", "4 split", "5 split", "6 split", "double",
];

/// The paper's yardstick among [`PAPER_METHODS`]: double precision. The scheme II table says,
/// per row, the fewest moduli whose error is no worse than this method's.
pub const DOUBLE: &str = "double";

/// Moduli counts of the CPU run's scheme II methods unless told otherwise. Few, because the
/// CPU run is the one CI and the tests make, and each count costs `N` full-size INT8 GEMMs;
/// 14, 16 and 20 bracket the default (16) from below and above.
pub const CPU_DEFAULT_MODULI: [usize; 3] = [14, 16, 20];

/// Moduli counts of the GPU run's scheme II methods unless told otherwise: every supported
/// count, so that scheme II's whole error-against-time curve shows.
pub const GPU_DEFAULT_MODULI: [usize; 13] = [8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20];

/// The name of the fast-mode scheme II method with `moduli` moduli, e.g. `"OzII-16"`.
pub fn ozaki2_method(moduli: usize) -> String {
    format!("OzII-{moduli}")
}

/// The moduli count of a fast-mode scheme II method name (`"OzII-16"` → 16); `None` for every
/// other method, the accurate-mode `"OzII-16acc"` included.
pub fn ozaki2_moduli_of(method: &str) -> Option<usize> {
    let digits = method.strip_prefix("OzII-")?;
    // `parse` alone would also take "+16"; only plain digits are names this module makes.
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// `moduli` sorted, without repeats, each checked to be a supported count (`8..=20`): method
/// names must be unique (they key the JSON), and N order is the order of the curve.
///
/// # Errors
/// [`Error::OutOfRange`] for a count outside [`OZAKI2_MODULI`].
pub fn checked_moduli(moduli: &[usize]) -> Result<Vec<usize>> {
    let (lo, hi) = OZAKI2_MODULI;
    if let Some(&bad) = moduli.iter().find(|q| !(lo..=hi).contains(*q)) {
        return Err(Error::OutOfRange {
            what: "Ozaki-II moduli of the reproduction",
            got: bad,
            min: lo,
            max: hi,
        });
    }
    let mut v = moduli.to_vec();
    v.sort_unstable();
    v.dedup();
    Ok(v)
}

/// One `(φ, n)` row of the reproduction: means over the seeds, one entry per method of
/// [`Reproduction::methods`], in that order. NaN marks a method that could not run (shown as
/// "n/a"); an infinite error marks a method that returned NaN or Inf.
#[derive(Clone, Debug, PartialEq)]
pub struct ReproRow {
    /// The spread parameter φ.
    pub phi: f64,
    /// The matrix size `n` (square).
    pub n: usize,
    /// Mean over seeds of the maximum relative error, per method.
    pub err: Vec<f64>,
    /// Mean over seeds of the wall time in seconds, per method.
    pub time: Vec<f64>,
}

impl ReproRow {
    /// The row of `(φ, n)` from the sums over `seeds` seeds of each method's error and time.
    pub fn from_sums(
        phi: f64,
        n: usize,
        mut err: Vec<f64>,
        mut time: Vec<f64>,
        seeds: usize,
    ) -> ReproRow {
        let ns = seeds.max(1) as f64;
        for x in err.iter_mut().chain(time.iter_mut()) {
            *x /= ns;
        }
        ReproRow { phi, n, err, time }
    }
}

/// Our Tables 2 and 3, and the scheme II table.
#[derive(Clone, Debug, PartialEq)]
pub struct Reproduction {
    /// The method names, the order of [`ReproRow::err`] and [`ReproRow::time`]:
    /// [`PAPER_METHODS`], then scheme II in fast mode by moduli count (`"OzII-8"` ..
    /// `"OzII-20"`), then any further methods (the GPU run adds `"OzII-16acc"`).
    pub methods: Vec<String>,
    /// One row per `(φ, n)`.
    pub rows: Vec<ReproRow>,
    /// Number of seeds averaged.
    pub seeds: usize,
    /// Methods that could not run, each with the error it gave (its values are NaN).
    pub unavailable: Vec<(String, String)>,
}

/// Maximum over entries of the paper's relative error of each candidate `m × n` result
/// (column-major, `ld = m`) against the exact `A·B` (A `m × k`, B `k × n`, column-major).
pub fn max_rel_errors(
    m: usize,
    n: usize,
    k: usize,
    a: &[f64],
    b: &[f64],
    candidates: &[&[f64]],
) -> Vec<f64> {
    let per_col: Vec<Vec<f64>> = (0..n)
        .into_par_iter()
        .map(|j| {
            let mut worst = vec![0.0f64; candidates.len()];
            for i in 0..m {
                let mut acc = ExactDot::new();
                for l in 0..k {
                    acc.add_product(a[i + l * m], b[l + j * k]);
                }
                for (w, c) in worst.iter_mut().zip(candidates) {
                    let e = acc.rel_err(c[i + j * m]);
                    if e.is_nan() || e > *w {
                        *w = if e.is_nan() { f64::INFINITY } else { e };
                    }
                }
            }
            worst
        })
        .collect();
    (0..candidates.len())
        .map(|t| per_col.iter().fold(0.0f64, |s, w| s.max(w[t])))
        .collect()
}

/// The `n × n` column-major `a` packed by rows (the TN layout of the CPU slice GEMMs).
fn packed_rows(a: &[f64], n: usize) -> Vec<f64> {
    (0..n * n).map(|t| a[(t / n) + (t % n) * n]).collect()
}

fn timed<F: FnOnce() -> Result<()>>(f: F) -> Result<f64> {
    let t = Instant::now();
    f()?;
    Ok(t.elapsed().as_secs_f64())
}

/// How far above the seed of A each seed of B is: seed `s` draws A from `s` and B from
/// `s + B_SEED_OFFSET` (on the GPU too; the CLI refuses a `--seed` that would wrap).
pub const B_SEED_OFFSET: u64 = 1000;

/// Runs the tables for square sizes `sizes`, spreads `phis` and seeds `seeds` (seed `s` of
/// `(φ, n)` draws A from `s` and B from `s + B_SEED_OFFSET`), with the paper's methods and scheme II
/// in fast mode for each moduli count of `moduli` (sorted, repeats dropped;
/// [`CPU_DEFAULT_MODULI`] is the CLI's default). Errors are against the exact product.
///
/// # Errors
/// [`Error::OutOfRange`] for a moduli count outside `8..=20`; errors of the GEMMs (none for
/// valid sizes).
pub fn reproduce(
    sizes: &[usize],
    phis: &[f64],
    seeds: &[u64],
    moduli: &[usize],
) -> Result<Reproduction> {
    let moduli = checked_moduli(moduli)?;
    let mut methods: Vec<String> = PAPER_METHODS.iter().map(|m| m.to_string()).collect();
    methods.extend(moduli.iter().map(|&q| ozaki2_method(q)));
    let count = methods.len();
    let first_ozaki2 = PAPER_METHODS.len();
    let mut rows = Vec::new();
    for &phi in phis {
        for &n in sizes {
            let mut err = vec![0.0; count];
            let mut time = vec![0.0; count];
            for &seed in seeds {
                let a = paper_matrix(n, n, phi, seed);
                let b = paper_matrix(n, n, phi, seed + B_SEED_OFFSET);
                let mut outs: Vec<Vec<f64>> = vec![vec![0.0; n * n]; count];
                // Single: SGEMM on the inputs rounded to f32 (packed to the TN layout).
                let a32: Vec<f32> = packed_rows(&a, n).iter().map(|&x| x as f32).collect();
                let b32: Vec<f32> = b.iter().map(|&x| x as f32).collect();
                let mut c32 = vec![0.0f32; n * n];
                time[0] += timed(|| gemm_cpu::gemm_f32(n, n, n, &a32, &b32, &mut c32))?;
                outs[0] = c32.iter().map(|&x| x as f64).collect();
                for s in 2..=6 {
                    let p = Ozaki1Params {
                        slices: s,
                        products: Products::Triangular,
                        slice_gemm: SliceGemm::F32,
                        accumulate: Accumulate::F64,
                        guard: OzakiGuard::NormwiseFast, // the paper's method (normwise)
                    };
                    let out = &mut outs[s - 1];
                    time[s - 1] += timed(|| {
                        ozaki1_gemm_blas(
                            Trans::No,
                            Trans::No,
                            n,
                            n,
                            n,
                            1.0,
                            &a,
                            n,
                            &b,
                            n,
                            0.0,
                            out,
                            n,
                            &p,
                        )
                        .map(drop)
                    })?;
                }
                let ap = packed_rows(&a, n);
                let out = &mut outs[6];
                time[6] += timed(|| gemm_cpu::gemm_f64(n, n, n, &ap, &b, out))?;
                for (i, &q) in moduli.iter().enumerate() {
                    let p = Ozaki2Params {
                        moduli: q,
                        mode: Ozaki2Mode::Fast,
                        guard: OzakiGuard::NormwiseFast, // the paper's method (normwise)
                    };
                    let out = &mut outs[first_ozaki2 + i];
                    time[first_ozaki2 + i] += timed(|| {
                        ozaki2_gemm_blas(
                            Trans::No,
                            Trans::No,
                            n,
                            n,
                            n,
                            1.0,
                            &a,
                            n,
                            &b,
                            n,
                            0.0,
                            out,
                            n,
                            &p,
                        )
                        .map(drop)
                    })?;
                }
                let refs: Vec<&[f64]> = outs.iter().map(|v| v.as_slice()).collect();
                let e = max_rel_errors(n, n, n, &a, &b, &refs);
                for (t, x) in e.iter().enumerate() {
                    err[t] += x;
                }
            }
            rows.push(ReproRow::from_sums(phi, n, err, time, seeds.len()));
        }
    }
    Ok(Reproduction {
        methods,
        rows,
        seeds: seeds.len(),
        unavailable: Vec::new(),
    })
}

/// `x` with three significant digits in scientific notation (`1.23e-9`); "n/a" for NaN (a
/// method that did not run).
fn sci3(x: f64) -> String {
    if x.is_nan() {
        "n/a".into()
    } else {
        format!("{x:.2e}")
    }
}

/// `x` with three significant digits, in fixed notation between 0.001 and 99950 (`0.0123`,
/// `12.3`, `1234`; more digits would be noise in a timing), else scientific; "n/a" for NaN.
fn sig3(x: f64) -> String {
    if x.is_nan() {
        return "n/a".into();
    }
    let a = x.abs();
    if a == 0.0 || a.is_infinite() {
        return format!("{x}");
    }
    if !(1e-3..99_950.0).contains(&a) {
        return format!("{x:.2e}");
    }
    let decimals = (2 - a.log10().floor() as i32).max(0) as usize;
    format!("{x:.decimals$}")
}

impl Reproduction {
    /// The position of `method` in [`Reproduction::methods`].
    pub fn index(&self, method: &str) -> Option<usize> {
        self.methods.iter().position(|m| m == method)
    }

    /// Mean error and time of `method` in `row`, NaN (n/a) where the method is missing.
    fn value(&self, row: &ReproRow, method: Option<usize>) -> (f64, f64) {
        let get = |v: &[f64]| method.and_then(|i| v.get(i).copied()).unwrap_or(f64::NAN);
        (get(&row.err), get(&row.time))
    }

    /// Table 2 layout (mean maximum relative error of the paper's methods), our rows followed
    /// by the paper's.
    pub fn table2(&self) -> String {
        let idx: Vec<Option<usize>> = PAPER_METHODS.iter().map(|m| self.index(m)).collect();
        let mut s = String::new();
        let _ = writeln!(
            s,
            "Table 2: mean of maximum relative error ({} seeds; c* exact)",
            self.seeds
        );
        let _ = write!(s, "{:>5} {:>6} {:>6}", "phi", "n", "src");
        for m in PAPER_METHODS {
            let _ = write!(s, " {m:>9}");
        }
        let _ = writeln!(s);
        for r in &self.rows {
            let _ = write!(s, "{:>5} {:>6} {:>6}", r.phi, r.n, "ours");
            for &i in &idx {
                let _ = write!(s, " {:>9}", sci3(self.value(r, i).0));
            }
            let _ = writeln!(s);
        }
        for (phi, n, v) in PAPER_TABLE2 {
            let _ = write!(s, "{phi:>5} {n:>6} {:>6}", "paper");
            for e in v {
                let _ = write!(s, " {e:>9.2e}");
            }
            let _ = writeln!(s);
        }
        s
    }

    /// Table 3 layout (time method/single and error single/method for the paper's methods),
    /// ours then the paper's.
    pub fn table3(&self) -> String {
        let idx: Vec<Option<usize>> = PAPER_METHODS.iter().map(|m| self.index(m)).collect();
        let mut s = String::new();
        let _ = writeln!(
            s,
            "Table 3: ratios of mean time (method/single) and mean max relative error (single/method)"
        );
        let _ = write!(s, "{:>5} {:>6} {:>6} {:>5}", "phi", "n", "src", "what");
        for m in &PAPER_METHODS[1..] {
            let _ = write!(s, " {m:>9}");
        }
        let _ = writeln!(s);
        for r in &self.rows {
            let (e0, t0) = self.value(r, idx[0]);
            let _ = write!(s, "{:>5} {:>6} {:>6} {:>5}", r.phi, r.n, "ours", "time");
            for &i in &idx[1..] {
                let t = self.value(r, i).1;
                let ratio = if t.is_nan() || t0.is_nan() {
                    "n/a".into()
                } else {
                    format!("{:.2}", t / t0)
                };
                let _ = write!(s, " {ratio:>9}");
            }
            let _ = writeln!(s, "   (single: {} ms)", sig3(t0 * 1e3));
            let _ = write!(s, "{:>5} {:>6} {:>6} {:>5}", r.phi, r.n, "ours", "error");
            for &i in &idx[1..] {
                let _ = write!(s, " {:>9}", sci3(e0 / self.value(r, i).0));
            }
            let _ = writeln!(s);
        }
        for (phi, n, t, e) in PAPER_TABLE3 {
            let _ = write!(s, "{phi:>5} {n:>6} {:>6} {:>5}", "paper", "time");
            for x in t {
                let _ = write!(s, " {x:>9.2}");
            }
            let _ = writeln!(s);
            let _ = write!(s, "{phi:>5} {n:>6} {:>6} {:>5}", "paper", "error");
            for x in e {
                let _ = write!(s, " {x:>9.2e}");
            }
            let _ = writeln!(s);
        }
        s
    }

    /// The scheme II table: mean max relative error, then mean time in ms, of DGEMM and of
    /// scheme II in fast mode for each moduli count `N` (one line per method, one column per
    /// `(φ, n)` row, so that a column reads as the error falling with `N`), then the other
    /// methods beyond the paper's (accurate mode, ...), and per column the fewest moduli whose
    /// error is no worse than DGEMM's ("-" when none is).
    ///
    /// The methods are lines, not columns, because 13 counts of `N` do not fit across 120
    /// characters while the paper's 9 `(φ, n)` rows do.
    pub fn ozaki2_table(&self) -> String {
        let double = self.index(DOUBLE);
        let mut fast: Vec<(usize, usize)> = self
            .methods
            .iter()
            .enumerate()
            .filter_map(|(i, m)| ozaki2_moduli_of(m).map(|q| (q, i)))
            .collect();
        fast.sort_unstable();
        let others: Vec<usize> = (0..self.methods.len())
            .filter(|&i| {
                let m = self.methods[i].as_str();
                !PAPER_METHODS.contains(&m) && ozaki2_moduli_of(m).is_none()
            })
            .collect();
        let first_col = "min N <= double";
        let label = self
            .methods
            .iter()
            .map(|m| m.chars().count())
            .max()
            .unwrap_or(0)
            .max(first_col.len());
        let mut s = String::new();
        let _ = writeln!(
            s,
            "Ozaki scheme II (INT8 CRT), mean max relative error and time, fast mode, by number \
             of moduli N"
        );
        let _ = writeln!(
            s,
            "({} seeds; c* exact; a line per method, a column per (phi, n))",
            self.seeds
        );
        let header = |s: &mut String, what: &str| {
            let _ = writeln!(s, "{what}");
            let _ = write!(s, "{:<label$}", "phi");
            for r in &self.rows {
                let _ = write!(s, " {:>9}", r.phi);
            }
            let _ = writeln!(s);
            let _ = write!(s, "{:<label$}", "n");
            for r in &self.rows {
                let _ = write!(s, " {:>9}", r.n);
            }
            let _ = writeln!(s);
        };
        let line = |s: &mut String, i: Option<usize>, name: &str, time: bool| {
            let _ = write!(s, "{name:<label$}");
            for r in &self.rows {
                let (e, t) = self.value(r, i);
                let cell = if time { sig3(t * 1e3) } else { sci3(e) };
                let _ = write!(s, " {cell:>9}");
            }
            let _ = writeln!(s);
        };
        for time in [false, true] {
            if time {
                let _ = writeln!(s);
            }
            header(
                &mut s,
                if time {
                    "mean time [ms]:"
                } else {
                    "mean max relative error:"
                },
            );
            line(&mut s, double, DOUBLE, time);
            for &(_, i) in &fast {
                line(&mut s, Some(i), &self.methods[i], time);
            }
            if !others.is_empty() {
                let _ = writeln!(s, "{:<label$}", "other:");
                for &i in &others {
                    line(&mut s, Some(i), &self.methods[i], time);
                }
            }
            if !time {
                let _ = write!(s, "{first_col:<label$}");
                for r in &self.rows {
                    let bar = self.value(r, double).0;
                    let hit = fast
                        .iter()
                        .find(|&&(_, i)| self.value(r, Some(i)).0 <= bar)
                        .map_or("-".to_string(), |&(q, _)| q.to_string());
                    let _ = write!(s, " {hit:>9}");
                }
                let _ = writeln!(s);
            }
        }
        for (m, why) in &self.unavailable {
            let _ = writeln!(s, "n/a: {m}: {why}");
        }
        s
    }
}

/// Maximum over entries of the paper's relative error `|c* − c|/|c*|` of `c` against a
/// double-double reference `c* = hi + lo` (NaN counts as infinite): the measure of the GPU
/// reproduction, whose reference is scheme II with 20 moduli.
pub fn max_rel_error_dd(c: &[f64], hi: &[f64], lo: &[f64]) -> f64 {
    c.par_iter()
        .zip(hi.par_iter().zip(lo.par_iter()))
        .map(|(&c, (&h, &l))| {
            let e = ((c - h) - l).abs() / h.abs();
            if e.is_nan() { f64::INFINITY } else { e }
        })
        .reduce(|| 0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moduli_are_checked_sorted_and_unique() {
        assert_eq!(checked_moduli(&[20, 8, 16, 8]).unwrap(), vec![8, 16, 20]);
        assert!(checked_moduli(&[]).unwrap().is_empty());
        for bad in [7usize, 21, 0] {
            assert!(matches!(
                checked_moduli(&[16, bad]),
                Err(Error::OutOfRange { got, .. }) if got == bad
            ));
        }
        assert!(reproduce(&[4], &[1.0], &[1], &[21]).is_err());
    }

    #[test]
    fn method_names_round_trip() {
        for q in 8..=20 {
            assert_eq!(ozaki2_moduli_of(&ozaki2_method(q)), Some(q));
        }
        for other in ["OzII-16acc", "OzII-", "OzII-+16", "double", "6 split"] {
            assert_eq!(ozaki2_moduli_of(other), None, "{other}");
        }
    }

    #[test]
    fn numbers_have_three_significant_digits() {
        assert_eq!(sci3(1.234_5e-9), "1.23e-9");
        assert_eq!(sci3(f64::NAN), "n/a");
        assert_eq!(sig3(0.012_345), "0.0123");
        assert_eq!(sig3(12.345), "12.3");
        assert_eq!(sig3(1234.5), "1234");
        assert_eq!(sig3(999.96), "1000");
        assert_eq!(sig3(1.5e-5), "1.50e-5");
        assert_eq!(sig3(f64::NAN), "n/a");
    }

    /// A tiny CPU run with two moduli counts: the methods in their order, scheme II more
    /// accurate with more moduli, and the scheme II table present.
    #[test]
    fn cpu_run_with_ozaki2_columns() {
        let rep = reproduce(&[24], &[0.1, 2.0], &[1, 2], &[20, 8]).unwrap();
        let mut want: Vec<String> = PAPER_METHODS.iter().map(|m| m.to_string()).collect();
        want.extend(["OzII-8".to_string(), "OzII-20".to_string()]);
        assert_eq!(rep.methods, want);
        assert_eq!(rep.rows.len(), 2);
        assert!(rep.unavailable.is_empty());
        let (i8, i20) = (rep.index("OzII-8").unwrap(), rep.index("OzII-20").unwrap());
        for r in &rep.rows {
            assert_eq!((r.err.len(), r.time.len()), (want.len(), want.len()));
            assert!(r.err.iter().all(|e| e.is_finite() && *e >= 0.0), "{r:?}");
            assert!(r.time.iter().all(|t| t.is_finite() && *t >= 0.0), "{r:?}");
            assert!(r.err[i20] <= r.err[i8], "{r:?}");
        }
        let t = rep.ozaki2_table();
        assert!(t.contains(
            "Ozaki scheme II (INT8 CRT), mean max relative error and time, fast mode, by \
             number of moduli N"
        ));
        assert!(t.contains("OzII-8") && t.contains("OzII-20") && t.contains("min N <= double"));
        // Tables 2 and 3 keep the paper's seven columns.
        assert!(!rep.table2().contains("OzII") && !rep.table3().contains("OzII"));
    }

    /// A method that did not run (NaN) prints as "n/a", and is never the "min N".
    #[test]
    fn missing_values_print_as_not_available() {
        let mut methods: Vec<String> = PAPER_METHODS.iter().map(|m| m.to_string()).collect();
        methods.extend(["OzII-8".to_string(), "emu".to_string()]);
        let mut err = vec![
            1e-3,
            1e-4,
            1e-6,
            1e-8,
            1e-10,
            1e-12,
            1e-15,
            f64::NAN,
            f64::NAN,
        ];
        let mut time = vec![1e-3; 9];
        time[8] = f64::NAN;
        let row = |err: Vec<f64>, time: Vec<f64>| ReproRow {
            phi: 1.0,
            n: 8,
            err,
            time,
        };
        let mut rep = Reproduction {
            methods,
            rows: vec![row(err.clone(), time.clone())],
            seeds: 1,
            unavailable: vec![("emu".into(), "not in this cuBLAS".into())],
        };
        let t = rep.ozaki2_table();
        assert!(t.contains("n/a: emu: not in this cuBLAS"), "{t}");
        let min_line = t.lines().find(|l| l.starts_with("min N")).unwrap();
        assert!(min_line.trim_end().ends_with('-'), "{t}");
        let emu_lines: Vec<&str> = t.lines().filter(|l| l.starts_with("emu")).collect();
        assert_eq!(emu_lines.len(), 2, "{t}");
        assert!(
            emu_lines.iter().all(|l| l.trim_end().ends_with("n/a")),
            "{t}"
        );
        err[7] = 1e-16;
        time[0] = f64::NAN;
        rep.rows = vec![row(err, time)];
        let t = rep.ozaki2_table();
        let min_line = t.lines().find(|l| l.starts_with("min N")).unwrap();
        assert!(min_line.trim_end().ends_with(" 8"), "{t}");
        assert!(rep.table3().contains("n/a"));
        assert!(!rep.table2().contains("NaN") && !rep.table3().contains("NaN"));
    }
}
