//! Ozaki scheme I: `C ← α·op(A)·op(B) + β·C` from `s` slices of A and of B ([`super::split`]).
//!
//! Stages (each a public function over the packed layout of [`super`]):
//! 1. [`super::split::split`] of the rows of `op(A)` and of the columns of `op(B)` (B keeps its
//!    intermediate remainders for the triangular shape);
//! 2. [`terms`]: the list of slice products, in summation order;
//! 3. [`slice_products`]: each product by [`super::gemm_cpu`] in the slice arithmetic, scaled by
//!    the slices' powers of two and summed in `f64` or double-double in the order of [`terms`];
//! 4. the BLAS update `α·S + β·C` in the accumulation arithmetic.
//!
//! The error bound is [`super::bounds::ozaki1_entry_bound`].

use super::ozaki2::{guard_rejects, guard_sample};
use super::split::{self, Scaled, Split};
use super::split::{ceil_log2, ldexp, vec_max_abs};
use super::{
    Accumulate, OZAKI1_SLICES, Ozaki1Params, Ozaki1Report, OzakiGuard, Prepared, Products,
    Recomputed, SliceGemm, apply_patch, blas_views, bounds, gemm_cpu, guard_entry, prepare,
    update_dd, update_f64,
};
use crate::dd::Dd;
use crate::error::{Error, Result};
use crate::view::{MatMut, MatRef, Trans};

/// The right operand of one slice product.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BOperand {
    /// Slice `j` of B (0-based; slice `s − 1` is B's last remainder).
    Slice(usize),
    /// The remainder of B after `r` slices were taken (0-based; `Remainder(0)` is B itself).
    Remainder(usize),
}

/// One slice product `A_a · B_b` of scheme I.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Term {
    /// Slice of A (0-based; slice `s − 1` is A's last remainder).
    pub a: usize,
    /// Right operand.
    pub b: BOperand,
    /// `true` when both operands are extracted slices, so the product is exact.
    pub exact: bool,
    /// Level of the A operand (1-based): its magnitude is at most `(1+ρ)·ρ^(level−1)·μ_A`.
    pub a_level: u32,
    /// Level of the B operand (1-based).
    pub b_level: u32,
}

/// The products scheme I forms for `s` slices, in summation order (by `a_level + b_level`,
/// then by A's level): largest first, so that the partial sums stay near the result.
pub fn terms(slices: usize, products: Products) -> Vec<Term> {
    let s = slices;
    let mut t = Vec::new();
    match products {
        Products::Triangular => {
            for i in 0..s {
                for j in 0..(s - 1 - i) {
                    t.push(Term {
                        a: i,
                        b: BOperand::Slice(j),
                        exact: i < s - 1 && j < s - 1,
                        a_level: i as u32 + 1,
                        b_level: j as u32 + 1,
                    });
                }
                let r = s - 1 - i;
                t.push(Term {
                    a: i,
                    b: BOperand::Remainder(r),
                    exact: false,
                    a_level: i as u32 + 1,
                    b_level: r as u32 + 1,
                });
            }
        }
        Products::Full => {
            for i in 0..s {
                for j in 0..s {
                    t.push(Term {
                        a: i,
                        b: BOperand::Slice(j),
                        exact: i < s - 1 && j < s - 1,
                        a_level: i as u32 + 1,
                        b_level: j as u32 + 1,
                    });
                }
            }
        }
    }
    t.sort_by_key(|x| (x.a_level + x.b_level, x.a_level));
    t
}

/// The largest inner dimension `k` for which a `p`-bit slice keeps at least one bit
/// (`β(p, k) < p`).
pub fn max_k(prec: SliceGemm) -> usize {
    let p = split::precision_bits(prec);
    // β < p  ⟺  2^(2(p−1)−p) ≥ k, i.e. k ≤ 2^(p−2).
    1usize << (p - 2).min(62)
}

/// The sum of the slice products, `m × n` column-major, before `α` and `β`.
#[derive(Clone, Debug, PartialEq)]
pub enum ProductSum {
    /// Summed in `f64`.
    F64(Vec<f64>),
    /// Summed in double-double.
    Dd(Vec<Dd>),
}

fn to_f32(x: &Scaled) -> Vec<f32> {
    x.values.iter().map(|&v| v as f32).collect()
}

/// Stage 3: forms every product of [`terms`] from the splits of A (rows) and B (columns) and
/// sums them, scaled back by `2^(exp_A[i] + exp_B[j])`, in the order of [`terms`].
///
/// # Errors
/// Propagates [`gemm_cpu`]'s buffer checks (which cannot fail for splits made by
/// [`split::split`] with these dimensions).
pub fn slice_products(
    m: usize,
    n: usize,
    k: usize,
    sa: &Split,
    sb: &Split,
    params: &Ozaki1Params,
) -> Result<ProductSum> {
    let list = terms(params.slices, params.products);
    let mut prod = vec![0.0f64; m * n];
    let mut prod32 = match params.slice_gemm {
        SliceGemm::F32 => vec![0.0f32; m * n],
        SliceGemm::F64 => Vec::new(),
    };
    type F32Slices = Vec<Vec<f32>>;
    let (a32, b32s, b32r): (F32Slices, F32Slices, F32Slices) = match params.slice_gemm {
        SliceGemm::F32 => (
            sa.slices.iter().map(to_f32).collect(),
            sb.slices.iter().map(to_f32).collect(),
            sb.remainders.iter().map(to_f32).collect(),
        ),
        SliceGemm::F64 => (Vec::new(), Vec::new(), Vec::new()),
    };
    let mut acc64 = vec![0.0f64; m * n];
    let mut accdd = match params.accumulate {
        Accumulate::Dd => vec![Dd::ZERO; m * n],
        Accumulate::F64 => Vec::new(),
    };
    for t in &list {
        let ea = &sa.slices[t.a].exps;
        let (bx, eb) = match t.b {
            BOperand::Slice(j) => (&sb.slices[j], &sb.slices[j].exps),
            BOperand::Remainder(r) => {
                let x = sb.remainders.get(r).ok_or(Error::OutOfRange {
                    what: "remainder index of B",
                    got: r,
                    min: 0,
                    max: sb.remainders.len().saturating_sub(1),
                })?;
                (x, &x.exps)
            }
        };
        match params.slice_gemm {
            SliceGemm::F64 => {
                gemm_cpu::gemm_f64(m, n, k, &sa.slices[t.a].values, &bx.values, &mut prod)?;
            }
            SliceGemm::F32 => {
                let bv = match t.b {
                    BOperand::Slice(j) => &b32s[j],
                    BOperand::Remainder(r) => &b32r[r],
                };
                gemm_cpu::gemm_f32(m, n, k, &a32[t.a], bv, &mut prod32)?;
                for (d, s) in prod.iter_mut().zip(&prod32) {
                    *d = *s as f64;
                }
            }
        }
        for (j, &ebj) in eb.iter().enumerate().take(n) {
            for (i, &eai) in ea.iter().enumerate().take(m) {
                let idx = i + j * m;
                let v = split::ldexp(prod[idx], eai + ebj);
                match params.accumulate {
                    Accumulate::F64 => acc64[idx] += v,
                    Accumulate::Dd => accdd[idx] = accdd[idx].add_f64(v),
                }
            }
        }
    }
    Ok(match params.accumulate {
        Accumulate::F64 => ProductSum::F64(acc64),
        Accumulate::Dd => ProductSum::Dd(accdd),
    })
}

/// Checks the parameters of scheme I for inner dimension `k`.
///
/// # Errors
/// [`Error::OutOfRange`] for a slice count outside `2..=8` or a `k` so large that a slice
/// would carry no bit (`max_k`).
pub fn check_params(k: usize, params: &Ozaki1Params) -> Result<()> {
    let (lo, hi) = OZAKI1_SLICES;
    if !(lo..=hi).contains(&params.slices) {
        return Err(Error::OutOfRange {
            what: "ozaki1 slices",
            got: params.slices,
            min: lo,
            max: hi,
        });
    }
    let kmax = max_k(params.slice_gemm);
    if k > kmax {
        return Err(Error::OutOfRange {
            what: "k (inner dimension) for this slice precision",
            got: k,
            min: 0,
            max: kmax,
        });
    }
    Ok(())
}

/// `C ← α·A·B + β·C` by Ozaki scheme I, for views `A` (`m × k`), `B` (`k × n`) and `C`
/// (`m × n`) of any strides. The scheme's error of each entry is bounded by
/// [`super::bounds::ozaki1_entry_bound`] (normwise: `k·μ_a·μ_b`): with `f64` slices and
/// `s ≥ 3` about DGEMM's level, with `f32` slices (the seed paper's method) between single and
/// double precision. Under the default [`OzakiGuard::Componentwise`] every entry of `A·B` also
/// meets DGEMM's componentwise bound on every finite input: an entry whose bound
/// (`guard_bound`) cannot be certified is recomputed as the plain `f64` dot product (with
/// `f32` slices and `k` in the thousands, most entries are). The [`Ozaki1Report`] counts them.
/// The GPU twin flags entries by the same test on its own sums (which agree with these to the
/// slice products' rounding), so the two may recompute different borderline entries.
///
/// # Errors
/// [`Error::LengthMismatch`] if the shapes do not agree; [`Error::OutOfRange`] (slice count
/// outside `2..=8`, `k` too large for the slice precision).
// (i, j) index C, the sums and the row and column maxima alike, as the GPU kernel does.
#[allow(clippy::needless_range_loop)]
pub fn ozaki1_gemm(
    alpha: f64,
    a: MatRef<'_, f64>,
    b: MatRef<'_, f64>,
    beta: f64,
    mut c: MatMut<'_, f64>,
    params: &Ozaki1Params,
) -> Result<Ozaki1Report> {
    check_params(a.cols(), params)?;
    let mut report = Ozaki1Report {
        slices: params.slices,
        guard: params.guard,
        ..Ozaki1Report::default()
    };
    let Some(Prepared {
        dims: (m, n, k),
        ap,
        bp,
        patch,
    }) = prepare(alpha, a, b, beta, &mut c)?
    else {
        return Ok(report);
    };
    let guarded = params.guard == OzakiGuard::Componentwise;
    let coef = guard_coefficients(params, k);
    let (mua, mub) = if guarded {
        (vec_max_abs(&ap, k, m), vec_max_abs(&bp, k, n))
    } else {
        (Vec::new(), Vec::new())
    };
    let mut recomputed = 0;
    let mut touched = Recomputed::new(m, n);
    let sa = split::split(&ap, k, m, params.slices, params.slice_gemm, false);
    let sb = split::split(
        &bp,
        k,
        n,
        params.slices,
        params.slice_gemm,
        params.products == Products::Triangular,
    );
    let sum = slice_products(m, n, k, &sa, &sb, params)?;
    for j in 0..n {
        for i in 0..m {
            let idx = i + j * m;
            if guarded {
                let s_abs = match &sum {
                    ProductSum::F64(s) => s[idx].abs(),
                    ProductSum::Dd(s) => s[idx].hi.abs(),
                };
                let e = guard_bound(coef, mua[i], mub[j], s_abs);
                let sample = |terms| guard_sample(|l| *a.at(i, l), |l| *b.at(l, j), terms);
                if guard_rejects(k, e, s_abs, sample) {
                    let sigma = (ceil_log2(mua[i]), ceil_log2(mub[j]));
                    let v = guard_entry(alpha, a, b, beta, c.rb(), (i, j), sigma);
                    *c.at_mut(i, j) = v;
                    recomputed += 1;
                    touched.mark((i, j));
                    continue;
                }
            }
            let cij = c.at_mut(i, j);
            *cij = match &sum {
                ProductSum::F64(s) => update_f64(s[idx], alpha, beta, || *cij),
                ProductSum::Dd(s) => update_dd(s[idx], alpha, beta, *cij),
            };
        }
    }
    apply_patch(&mut c, &patch);
    patch.iter().for_each(|&(ij, _)| touched.mark(ij));
    report.entries = m * n;
    report.guard_recomputed = recomputed;
    report.non_finite_recomputed = patch.len();
    (report.rows_recomputed, report.cols_recomputed) = touched.counts();
    Ok(report)
}

/// The componentwise guard's coefficients of scheme I for inner dimension `k`: `(K1, K2)`
/// with [`bounds::ozaki1_ab_bound`]`(μa, μb, x) = K1·μa·μb + K2·x` (the bound is affine in
/// `k·μa·μb` and in `|(AB)_ij|`).
pub fn guard_coefficients(params: &Ozaki1Params, k: usize) -> (f64, f64) {
    (
        bounds::ozaki1_ab_bound(params, k, 1.0, 1.0, 0.0),
        bounds::ozaki1_ab_bound(params, k, 0.0, 0.0, 1.0),
    )
}

/// The guard's error bound of one entry of scheme I with row maximum `mu_a`, column maximum
/// `mu_b` and computed magnitude `s_abs`: [`bounds::ozaki1_ab_bound`] at `|(AB)_ij| ≤ s_abs +
/// E` (the `K2·E` term), widened by `2^-40` for the roundings of this evaluation. The GPU's
/// finish kernel evaluates the same expression.
pub fn guard_bound(coef: (f64, f64), mu_a: f64, mu_b: f64, s_abs: f64) -> f64 {
    let e0 = coef.0 * mu_a * mu_b + coef.1 * s_abs;
    (e0 + coef.1 * e0) * (1.0 + ldexp(1.0, -40))
}

/// [`ozaki1_gemm`] with the arguments of BLAS `dgemm` (column-major arrays, transpose flags,
/// leading dimensions), for code ported from Fortran or C.
///
/// # Errors
/// [`Error::LeadingDim`] (`lda`, `ldb`, `ldc` too small), [`Error::ArrayTooShort`] (`a`,
/// `b`, `c` too short for the dimensions), then those of [`ozaki1_gemm`].
#[allow(clippy::too_many_arguments)]
pub fn ozaki1_gemm_blas(
    transa: Trans,
    transb: Trans,
    m: usize,
    n: usize,
    k: usize,
    alpha: f64,
    a: &[f64],
    lda: usize,
    b: &[f64],
    ldb: usize,
    beta: f64,
    c: &mut [f64],
    ldc: usize,
    params: &Ozaki1Params,
) -> Result<Ozaki1Report> {
    let (a, b, c) = blas_views(transa, transb, m, n, k, a, lda, b, ldb, c, ldc)?;
    ozaki1_gemm(alpha, a, b, beta, c, params)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn term_counts_match_the_paper() {
        for (s, want) in [(2, 3), (3, 6), (4, 10), (5, 15), (6, 21)] {
            assert_eq!(terms(s, Products::Triangular).len(), want);
            assert_eq!(terms(s, Products::Full).len(), s * s);
        }
        // k = 2 is eq. (3): A1·B1 + A1·B̲2 + A̲2·B.
        let t = terms(2, Products::Triangular);
        assert_eq!(
            t.iter().map(|x| (x.a, x.b)).collect::<Vec<_>>(),
            vec![
                (0, BOperand::Slice(0)),
                (0, BOperand::Remainder(1)),
                (1, BOperand::Remainder(0))
            ]
        );
        assert_eq!(t.iter().filter(|x| x.exact).count(), 1);
    }
}
