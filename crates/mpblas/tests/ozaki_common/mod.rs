//! Shared set-up of the Ozaki tests: seeded paper-style inputs stored with every transpose and
//! padded leading dimensions, and references from MPFR (the exact `A·B` from the library's
//! exact accumulator, checked against MPFR in `exact_dot_matches_mpfr`, then `α·AB + β·C₀`
//! formed in MPFR at 2200 bits).
#![allow(dead_code)]

use mpblas::Trans;
use mpblas::exact::ExactDot;
use mpblas_testdata::paper_matrix;
use rug::Float;

/// Precision of the MPFR references.
pub const PREC: u32 = 2200;

/// One GEMM problem, stored BLAS-style.
pub struct Case {
    pub transa: Trans,
    pub transb: Trans,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub alpha: f64,
    pub beta: f64,
    pub a: Vec<f64>,
    pub lda: usize,
    pub b: Vec<f64>,
    pub ldb: usize,
    pub c0: Vec<f64>,
    pub ldc: usize,
    /// `op(A)` packed as rows (`m × k`) and `op(B)` as columns (`n × k`).
    pub ar: Vec<f64>,
    pub bc: Vec<f64>,
    /// Exact `(AB)_ij` as MPFR floats, column-major `m × n`.
    pub ab: Vec<Float>,
    /// Exact `α·(AB)_ij + β·c0_ij`.
    pub out: Vec<Float>,
}

#[allow(clippy::too_many_arguments)]
pub fn case(
    transa: Trans,
    transb: Trans,
    m: usize,
    n: usize,
    k: usize,
    phi: f64,
    seed: u64,
    alpha: f64,
    beta: f64,
) -> Case {
    let ar = paper_matrix(m, k, phi, seed); // column-major m × k (op(A))
    let bc = paper_matrix(k, n, phi, seed + 7919); // column-major k × n (op(B))
    let c0 = paper_matrix(m, n, 1.0, seed + 104729);
    // Store A (and B) as BLAS would see them, with leading dimensions padded by 3 and 5.
    let (a, lda) = match transa {
        Trans::No => {
            let lda = m + 3;
            let mut a = vec![f64::NAN; lda * k];
            for l in 0..k {
                for i in 0..m {
                    a[i + l * lda] = ar[i + l * m];
                }
            }
            (a, lda)
        }
        Trans::Yes => {
            let lda = k + 3;
            let mut a = vec![f64::NAN; lda * m];
            for i in 0..m {
                for l in 0..k {
                    a[l + i * lda] = ar[i + l * m];
                }
            }
            (a, lda)
        }
    };
    let (b, ldb) = match transb {
        Trans::No => {
            let ldb = k + 5;
            let mut b = vec![f64::NAN; ldb * n];
            for j in 0..n {
                for l in 0..k {
                    b[l + j * ldb] = bc[l + j * k];
                }
            }
            (b, ldb)
        }
        Trans::Yes => {
            let ldb = n + 5;
            let mut b = vec![f64::NAN; ldb * k];
            for l in 0..k {
                for j in 0..n {
                    b[j + l * ldb] = bc[l + j * k];
                }
            }
            (b, ldb)
        }
    };
    let ldc = m + 2;
    let mut c = vec![f64::NAN; ldc * n];
    for j in 0..n {
        for i in 0..m {
            c[i + j * ldc] = c0[i + j * m];
        }
    }
    let rows: Vec<f64> = (0..m * k).map(|t| ar[(t / k) + (t % k) * m]).collect();
    let cols = bc.clone();
    let mut ab = Vec::with_capacity(m * n);
    let mut out = Vec::with_capacity(m * n);
    for j in 0..n {
        for i in 0..m {
            let mut acc = ExactDot::new();
            for l in 0..k {
                acc.add_product(rows[i * k + l], cols[j * k + l]);
            }
            let mut x = Float::with_val(PREC, 0);
            for t in acc.terms() {
                x += t;
            }
            let mut o = Float::with_val(PREC, &x * alpha);
            if beta != 0.0 {
                o += Float::with_val(PREC, c0[i + j * m]) * beta;
            }
            ab.push(x);
            out.push(o);
        }
    }
    Case {
        transa,
        transb,
        m,
        n,
        k,
        alpha,
        beta,
        a,
        lda,
        b,
        ldb,
        c0: c,
        ldc,
        ar: rows,
        bc: cols,
        ab,
        out,
    }
}

impl Case {
    /// `|got_ij − out_ij|` for `got` stored with `ldc`.
    pub fn abs_err(&self, got: &[f64], i: usize, j: usize) -> f64 {
        let d = Float::with_val(PREC, got[i + j * self.ldc]) - &self.out[i + j * self.m];
        d.abs().to_f64()
    }
    /// `|out_ij|` as f64.
    pub fn out_abs(&self, i: usize, j: usize) -> f64 {
        self.out[i + j * self.m].to_f64().abs()
    }
    /// `|(AB)_ij|` as f64.
    pub fn ab_abs(&self, i: usize, j: usize) -> f64 {
        self.ab[i + j * self.m].to_f64().abs()
    }
    /// `|β·c0_ij|`.
    pub fn beta_c0_abs(&self, i: usize, j: usize) -> f64 {
        (self.beta * self.c0[i + j * self.ldc]).abs()
    }
    /// Row maximum and 1-norm of row `i` of `op(A)`.
    pub fn row_stats(&self, i: usize) -> (f64, f64) {
        let r = &self.ar[i * self.k..(i + 1) * self.k];
        (
            r.iter().fold(0.0f64, |s, x| s.max(x.abs())),
            r.iter().map(|x| x.abs()).sum(),
        )
    }
    /// Column maximum and 1-norm of column `j` of `op(B)`.
    pub fn col_stats(&self, j: usize) -> (f64, f64) {
        let c = &self.bc[j * self.k..(j + 1) * self.k];
        (
            c.iter().fold(0.0f64, |s, x| s.max(x.abs())),
            c.iter().map(|x| x.abs()).sum(),
        )
    }
    /// `(|A||B|)_ij` in f64 (relative error below k·u, fine for a normalisation).
    pub fn abs_ab(&self, i: usize, j: usize) -> f64 {
        let r = &self.ar[i * self.k..(i + 1) * self.k];
        let c = &self.bc[j * self.k..(j + 1) * self.k];
        r.iter().zip(c).map(|(x, y)| (x * y).abs()).sum()
    }
    /// A copy of C₀ to be overwritten.
    pub fn c(&self) -> Vec<f64> {
        self.c0.clone()
    }
    /// Plain f64 GEMM by the naive triple loop: `α·Σ a·b + β·c`.
    pub fn naive(&self) -> Vec<f64> {
        let mut c = self.c();
        for j in 0..self.n {
            for i in 0..self.m {
                let mut s = 0.0;
                for l in 0..self.k {
                    s += self.ar[i * self.k + l] * self.bc[j * self.k + l];
                }
                let cij = &mut c[i + j * self.ldc];
                *cij = self.alpha * s + self.beta * *cij;
            }
        }
        c
    }
    /// The paper's metric: `max_ij |c − c*|/|c*|` (entries with `c* = 0` count as 0 when
    /// exact, ∞ otherwise).
    pub fn max_rel(&self, got: &[f64]) -> f64 {
        let mut w = 0.0f64;
        for j in 0..self.n {
            for i in 0..self.m {
                let e = self.abs_err(got, i, j);
                let o = self.out_abs(i, j);
                let r = if o == 0.0 {
                    if e == 0.0 { 0.0 } else { f64::INFINITY }
                } else {
                    e / o
                };
                if r.is_nan() || r > w {
                    w = if r.is_nan() { f64::INFINITY } else { r };
                }
            }
        }
        w
    }
    /// `max_ij |c − c*|/(|α||A||B| + |β c0|)_ij`, the componentwise-normwise error.
    pub fn max_comp(&self, got: &[f64]) -> f64 {
        let mut w = 0.0f64;
        for j in 0..self.n {
            for i in 0..self.m {
                let d = self.alpha.abs() * self.abs_ab(i, j) + self.beta_c0_abs(i, j);
                w = w.max(self.abs_err(got, i, j) / d);
            }
        }
        w
    }
}

/// The four transpose combinations.
pub const TRANS: [(Trans, Trans); 4] = [
    (Trans::No, Trans::No),
    (Trans::No, Trans::Yes),
    (Trans::Yes, Trans::No),
    (Trans::Yes, Trans::Yes),
];
