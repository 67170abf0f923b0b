//! Reproduction of Tables 2 and 3 of the seed paper (Nanai, Fujimoto, "Evaluation of
//! double-precision matrix multiplication based on the Ozaki scheme with a small constant
//! number of split matrices in single precision for gaming GPUs", IPSJ 2021) on the CPU, with
//! the paper's numbers kept beside ours in [`PAPER_TABLE2`] and [`PAPER_TABLE3`].
//!
//! Inputs are the paper's `(rand − 0.5)·exp(φ·randn)` ([`paper_matrix`], a seeded SplitMix64
//! generator with Box–Muller normals); the error measure is the paper's eq. (21), the maximum
//! over entries of `|c* − c|/|c*|`, with `c*` held exactly ([`super::exact`]). Methods are the
//! paper's: single precision (SGEMM on the inputs rounded to `f32`), scheme I with `s = 2..6`
//! `f32` slices (triangular products, `f64` sum) and double precision (DGEMM), plus scheme II
//! with the default 16 moduli as an extra column.

use super::exact::{ExactDot, rel_err};
use super::{
    Accumulate, Ozaki1Params, Ozaki2Params, Products, SliceGemm, Trans, gemm_cpu, ozaki1_gemm,
    ozaki2_gemm,
};
use crate::error::Result;
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

/// SplitMix64 (Steele, Lea, Flood 2014): a small, seedable, portable generator.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
    spare: Option<f64>,
}

impl SplitMix64 {
    /// A generator with the given seed.
    pub fn new(seed: u64) -> Self {
        SplitMix64 {
            state: seed,
            spare: None,
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (-53f64).exp2()
    }

    /// Standard normal (Box–Muller; the second value of each pair is kept for the next call).
    pub fn normal(&mut self) -> f64 {
        if let Some(z) = self.spare.take() {
            return z;
        }
        let u1 = 1.0 - self.uniform(); // (0, 1]
        let u2 = self.uniform();
        let r = (-2.0 * u1.ln()).sqrt();
        let t = std::f64::consts::TAU * u2;
        self.spare = Some(r * t.sin());
        r * t.cos()
    }
}

/// The paper's test matrix `(rand − 0.5)·exp(φ·randn)`, `rows × cols` column-major.
pub fn paper_matrix(rows: usize, cols: usize, phi: f64, seed: u64) -> Vec<f64> {
    let mut g = SplitMix64::new(seed);
    (0..rows * cols)
        .map(|_| {
            let u = g.uniform() - 0.5;
            u * (phi * g.normal()).exp()
        })
        .collect()
}

/// The methods of the tables, in column order.
pub const METHODS: [&str; 8] = [
    "single", "2 split", "3 split", "4 split", "5 split", "6 split", "double", "OzII-16",
];

/// One `(φ, n)` row of the reproduction: means over the seeds.
#[derive(Clone, Debug, PartialEq)]
pub struct ReproRow {
    /// The spread parameter φ.
    pub phi: f64,
    /// The matrix size `n` (square).
    pub n: usize,
    /// Mean over seeds of the maximum relative error, per method of [`METHODS`].
    pub err: [f64; 8],
    /// Mean over seeds of the wall time in seconds, per method.
    pub time: [f64; 8],
}

/// Our Tables 2 and 3.
#[derive(Clone, Debug, PartialEq)]
pub struct Reproduction {
    /// One row per `(φ, n)`.
    pub rows: Vec<ReproRow>,
    /// Number of seeds averaged.
    pub seeds: usize,
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
                    let e = rel_err(&acc, c[i + j * m]);
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

fn timed<F: FnOnce() -> Result<()>>(f: F) -> Result<f64> {
    let t = Instant::now();
    f()?;
    Ok(t.elapsed().as_secs_f64())
}

/// Runs the tables for square sizes `sizes`, spreads `phis` and seeds `seeds` (seed `s` of
/// `(φ, n)` draws A from `s` and B from `s + 1000`).
///
/// # Errors
/// Propagates errors of the GEMMs (none for valid sizes).
pub fn reproduce(sizes: &[usize], phis: &[f64], seeds: &[u64]) -> Result<Reproduction> {
    let mut rows = Vec::new();
    for &phi in phis {
        for &n in sizes {
            let mut err = [0.0; 8];
            let mut time = [0.0; 8];
            for &seed in seeds {
                let a = paper_matrix(n, n, phi, seed);
                let b = paper_matrix(n, n, phi, seed + 1000);
                let mut outs: Vec<Vec<f64>> = vec![vec![0.0; n * n]; 8];
                // Single: SGEMM on the inputs rounded to f32 (packed to the TN layout).
                let a32: Vec<f32> = super::pack_rows(Trans::No, n, n, &a, n)
                    .iter()
                    .map(|&x| x as f32)
                    .collect();
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
                    };
                    let out = &mut outs[s - 1];
                    time[s - 1] += timed(|| {
                        ozaki1_gemm(
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
                    })?;
                }
                let ap = super::pack_rows(Trans::No, n, n, &a, n);
                let out = &mut outs[6];
                time[6] += timed(|| gemm_cpu::gemm_f64(n, n, n, &ap, &b, out))?;
                let out = &mut outs[7];
                time[7] += timed(|| {
                    ozaki2_gemm(
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
                        &Ozaki2Params::default(),
                    )
                })?;
                let refs: Vec<&[f64]> = outs.iter().map(|v| v.as_slice()).collect();
                let e = max_rel_errors(n, n, n, &a, &b, &refs);
                for (t, x) in e.iter().enumerate() {
                    err[t] += x;
                }
            }
            let ns = seeds.len().max(1) as f64;
            for t in 0..8 {
                err[t] /= ns;
                time[t] /= ns;
            }
            rows.push(ReproRow { phi, n, err, time });
        }
    }
    Ok(Reproduction {
        rows,
        seeds: seeds.len(),
    })
}

impl Reproduction {
    /// Table 2 layout (mean maximum relative error), our rows followed by the paper's.
    pub fn table2(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "Table 2: mean of maximum relative error ({} seeds; c* exact)",
            self.seeds
        );
        let _ = write!(s, "{:>5} {:>6} {:>6}", "phi", "n", "src");
        for m in METHODS {
            let _ = write!(s, " {m:>9}");
        }
        let _ = writeln!(s);
        for r in &self.rows {
            let _ = write!(s, "{:>5} {:>6} {:>6}", r.phi, r.n, "ours");
            for e in r.err {
                let _ = write!(s, " {e:>9.2e}");
            }
            let _ = writeln!(s);
        }
        for (phi, n, v) in PAPER_TABLE2 {
            let _ = write!(s, "{phi:>5} {n:>6} {:>6}", "paper");
            for e in v {
                let _ = write!(s, " {e:>9.2e}");
            }
            let _ = writeln!(s, " {:>9}", "-");
        }
        s
    }

    /// Table 3 layout (time method/single and error single/method), ours then the paper's.
    pub fn table3(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "Table 3: ratios of mean time (method/single) and mean max relative error (single/method)"
        );
        let _ = write!(s, "{:>5} {:>6} {:>6} {:>5}", "phi", "n", "src", "what");
        for m in &METHODS[1..] {
            let _ = write!(s, " {m:>9}");
        }
        let _ = writeln!(s);
        for r in &self.rows {
            let _ = write!(s, "{:>5} {:>6} {:>6} {:>5}", r.phi, r.n, "ours", "time");
            for t in &r.time[1..] {
                let _ = write!(s, " {:>9.2}", t / r.time[0]);
            }
            let _ = writeln!(s, "   (single: {:.3} ms)", r.time[0] * 1e3);
            let _ = write!(s, "{:>5} {:>6} {:>6} {:>5}", r.phi, r.n, "ours", "error");
            for e in &r.err[1..] {
                let _ = write!(s, " {:>9.2e}", r.err[0] / e);
            }
            let _ = writeln!(s);
        }
        for (phi, n, t, e) in PAPER_TABLE3 {
            let _ = write!(s, "{phi:>5} {n:>6} {:>6} {:>5}", "paper", "time");
            for x in t {
                let _ = write!(s, " {x:>9.2}");
            }
            let _ = writeln!(s, " {:>9}", "-");
            let _ = write!(s, "{phi:>5} {n:>6} {:>6} {:>5}", "paper", "error");
            for x in e {
                let _ = write!(s, " {x:>9.2e}");
            }
            let _ = writeln!(s, " {:>9}", "-");
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
