//! Ozaki scheme II to quad-double: the product of two `f64` matrices **exact before one
//! final rounding** to [`Qd`], for the residuals of quad-double refinement
//! (`lapack::gpu::gesv_refined_qd`), where `b − A·x` must be right to `2^-212` of `|A||x|`
//! although `A·x` nearly cancels `b`.
//!
//! The stages are those of the double-double scheme ([`ozaki2_gemm_dd`](super::ozaki2_gemm_dd))
//! with all [`OZAKI2_QD_MODULI`] = 31 moduli (`P ≈ 2^245`) in fast mode: each row of `op(A)` and
//! column of `op(B)` is scaled by a power of two `2^e` to integers of about 113 bits, the integer
//! product is exact (INT8 products, CRT), and its exact CRT words are summed into a quad-double
//! (`ozaki2::crt_exact_words`, then `Qd::add_f64`) instead of a double-double. An `f64`
//! times `2^e` is an integer unless its lowest set bit lies below `2^-e`, so the product is
//! exact for every row and column whose entries all lie within about `2^-55` of its 2-norm
//! (their 53 bits fit in the 113): every row of random data.
//!
//! **Guarantee.** Entry `s` of `A·B`:
//! - row `i` and column `j` converted exactly (checked per vector, `exact_vectors`):
//!   `|s − (AB)_ij| ≤ 10u·|(AB)_ij| + 2^-270·‖a_i‖₂‖b_j‖₂` (`u = 2^-212`: at most five
//!   `Qd::add_f64` of exact words, whose partial sums exceed the result by less than
//!   `2^-64·2^(e_i+f_j)`-scaled norms), plus `4·2^-1074` where the result underflows;
//! - otherwise (and for rows or columns holding NaN or ±∞: IEEE results) recomputed as the
//!   quad-double sum of the exact products (`exact_sum_entry`): `|s − (AB)_ij| ≤
//!   4k·u·(|A||B|)_ij + 8k·2^-1074`; the report's `guard_recomputed` counts these entries.
//!
//! The update is `α·s + β·c` in quad-double (`s.mul_f64(α)`, then `add_ieee` of
//! `c.mul_f64(β)`; `c` not read for `β = 0`).

use super::ozaki2::{Ozaki2Plan, crt_exact_words, residue_products};
use super::ozaki2_dd::{dd_plan, pack_words};
use super::split::{ceil_log2, ldexp};
use super::{Ozaki2Mode, Ozaki2Params, Ozaki2Report, OzakiGuard, Recomputed};
use crate::dd::Dd;
use crate::eft::{two_prod, two_sum};
use crate::error::Result;
use crate::qd::Qd;
use crate::view::{MatMut, MatRef, check_product_shapes};

/// Moduli of the quad-double scheme: all 31 the kernels carry (`P ≈ 2^245`), for the widest
/// exactly converted range.
pub const OZAKI2_QD_MODULI: usize = 31;

/// The parameters the scheme runs with (reported).
pub(crate) fn qd_params() -> Ozaki2Params {
    Ozaki2Params {
        moduli: OZAKI2_QD_MODULI,
        mode: Ozaki2Mode::Fast,
        guard: OzakiGuard::Componentwise,
    }
}

/// The plan of an inner dimension `k`.
pub(crate) fn qd_plan(k: usize) -> Result<Ozaki2Plan> {
    dd_plan::<f64>(k, &qd_params())
}

/// The exponent of the lowest set bit of a nonzero finite `x` (`x = odd·2^lowest`).
pub(crate) fn lowest_bit_exponent(x: f64) -> i32 {
    let bits = x.to_bits() & !(1u64 << 63);
    let field = (bits >> 52) as i32;
    let mantissa = bits & ((1u64 << 52) - 1);
    let (significand, e0) = if field == 0 {
        (mantissa, -1074)
    } else {
        (mantissa | (1u64 << 52), field - 1075)
    };
    e0 + significand.trailing_zeros() as i32
}

/// Whether every entry of each packed vector (`count` of length `len`) times `2^exps[v]` is an
/// integer, i.e. converts exactly (zeros always do).
pub(crate) fn exact_vectors(x: &[f64], len: usize, count: usize, exps: &[i32]) -> Vec<bool> {
    (0..count)
        .map(|v| {
            x[v * len..(v + 1) * len]
                .iter()
                .all(|&t| t == 0.0 || lowest_bit_exponent(t) + exps[v] >= 0)
        })
        .collect()
}

/// The quad-double sum of the exact products `a_il·b_lj` (TwoProd, each word added by
/// `Qd::add_f64`) of the terms scaled by `2^-sa`, `2^-sb`.
fn exact_sum(a: impl Fn(usize) -> f64, b: impl Fn(usize) -> f64, k: usize, sa: i32, sb: i32) -> Qd {
    let mut acc = Qd::ZERO;
    for l in 0..k {
        let (p, e) = two_prod(ldexp(a(l), -sa), ldexp(b(l), -sb));
        // A non-finite product has no error word (TwoProd's would be NaN): IEEE's sum.
        acc = if p.is_finite() {
            acc.add_f64(p).add_f64(e)
        } else {
            acc.add_f64(p)
        };
    }
    acc
}

/// Entry `(i, j)` as the quad-double sum of its exact products; if that is not finite although
/// every term is (a partial sum overflowed), the same on the row scaled by `2^-σa` and the
/// column by `2^-σb` (`σ = ⌈log2 max|·|⌉`), scaled back.
pub(crate) fn exact_sum_entry(
    a: MatRef<'_, f64>,
    b: MatRef<'_, f64>,
    (i, j): (usize, usize),
) -> Qd {
    let k = a.cols();
    let (ra, cb) = (|l| *a.at(i, l), |l| *b.at(l, j));
    let s = exact_sum(ra, cb, k, 0, 0);
    let finite_terms = (0..k).all(|l| ra(l).is_finite() && cb(l).is_finite());
    if s.c[0].is_finite() || !finite_terms {
        return s;
    }
    let max = |v: &dyn Fn(usize) -> f64| (0..k).fold(0.0f64, |m, l| m.max(v(l).abs()));
    let sa = ceil_log2(max(&ra).max(f64::MIN_POSITIVE));
    let sb = ceil_log2(max(&cb).max(f64::MIN_POSITIVE));
    exact_sum(ra, cb, k, sa, sb).ldexp(sa + sb)
}

/// The exact CRT words `d` of an entry summed into a quad-double: `TwoSum` of the two leading
/// words, then `Qd::add_f64` of the others.
pub(crate) fn qd_of_exact_words(d: &[f64]) -> Qd {
    let (h, l) = two_sum(d[0], d[1]);
    let mut s = Qd::from(Dd { hi: h, lo: l });
    for &dc in &d[2..] {
        s = s.add_f64(dc);
    }
    s
}

/// `α·s + β·c` in quad-double (`c` not read when `β = 0`).
pub(crate) fn update_qd(s: Qd, alpha: f64, beta: f64, c: Qd) -> Qd {
    let t = s.mul_f64(alpha);
    if beta == 0.0 {
        t
    } else {
        t.add_ieee(c.mul_f64(beta))
    }
}

/// `C ← β·C` for the quick returns (`+0` for `β = 0`, `C` unchanged for `β = 1`).
pub(crate) fn scale_qd(c: &mut MatMut<'_, Qd>, beta: f64) {
    if beta == 1.0 {
        return;
    }
    for j in 0..c.cols() {
        for i in 0..c.rows() {
            let cij = c.at_mut(i, j);
            *cij = if beta == 0.0 {
                Qd::ZERO
            } else {
                cij.mul_f64(beta)
            };
        }
    }
}

/// `C ← α·A·B + β·C` with `A` (`m × k`) and `B` (`k × n`) in `f64` and `C` in quad-double,
/// the product exact before its rounding to quad-double wherever the rows and columns convert
/// exactly (see the [module docs](self) for the guarantee). BLAS conventions: `m = 0` or
/// `n = 0` returns at once; `α = 0` or `k = 0` gives `C ← β·C` (`+0` for `β = 0`); `β = 0`
/// does not read `C`. The GPU twin (`ozaki::gpu::ozaki2_gemm_qd`) returns these bits.
///
/// ```
/// use mpblas::ozaki::ozaki2_gemm_qd;
/// use mpblas::view::{MatMut, MatRef};
/// use mpblas::Qd;
/// // (1 + 2^-52)·(1 − 2^-52) − 1 = −2^-104, exactly, beside an entry of 2^60.
/// let (a, b) = ([1.0 + f64::EPSILON, 1.0, 0.0, 1.0], [1.0 - f64::EPSILON, 2f64.powi(60)]);
/// let mut c = [Qd::from(-1.0), Qd::ZERO];
/// let a = MatRef::col_major(&a, 2, 2, 2).unwrap();
/// let b = MatRef::col_major(&b, 2, 1, 2).unwrap();
/// let c_view = MatMut::col_major(&mut c, 2, 1, 2).unwrap();
/// ozaki2_gemm_qd(1.0, a, b, 1.0, c_view).unwrap();
/// assert_eq!(c[0].c[0], -2f64.powi(-104));
/// ```
///
/// # Errors
/// [`Error::LengthMismatch`](crate::Error::LengthMismatch) for shapes that do not agree;
/// [`Error::OutOfRange`](crate::Error::OutOfRange) for a `k` too large for the moduli.
pub fn ozaki2_gemm_qd(
    alpha: f64,
    a: MatRef<'_, f64>,
    b: MatRef<'_, f64>,
    beta: f64,
    mut c: MatMut<'_, Qd>,
) -> Result<Ozaki2Report> {
    let (m, n, k) = check_product_shapes(&a.layout(), &b.layout(), &c.layout())?;
    let plan = qd_plan(k)?;
    let params = qd_params();
    let mut report = Ozaki2Report::started(&params);
    if m == 0 || n == 0 {
        return Ok(report);
    }
    if alpha == 0.0 || k == 0 {
        scale_qd(&mut c, beta);
        return Ok(report);
    }
    let (ap, _, bad_a) = pack_words(a);
    let (bp, _, bad_b) = pack_words(b.t());
    let (res, sc) = residue_products(m, n, (&ap, None), (&bp, None), &plan)?;
    let exact_a = exact_vectors(&ap, k, m, &sc.ea);
    let exact_b = exact_vectors(&bp, k, n, &sc.eb);
    let mut d = vec![0.0; plan.crt.w_words.len()];
    let (mut recomputed, mut non_finite) = (0, 0);
    let mut touched = Recomputed::new(m, n);
    for j in 0..n {
        for i in 0..m {
            let value = if bad_a[i] || bad_b[j] {
                non_finite += 1;
                touched.mark((i, j));
                exact_sum_entry(a, b, (i, j))
            } else if !(exact_a[i] && exact_b[j]) {
                recomputed += 1;
                touched.mark((i, j));
                exact_sum_entry(a, b, (i, j))
            } else {
                crt_exact_words(&plan.crt, &res, i + j * m, &mut d);
                qd_of_exact_words(&d).ldexp(-(sc.ea[i] + sc.eb[j]))
            };
            let cij = c.at_mut(i, j);
            *cij = update_qd(value, alpha, beta, *cij);
        }
    }
    report.entries = m * n;
    report.guard_recomputed = recomputed;
    report.non_finite_recomputed = non_finite;
    (report.rows_recomputed, report.cols_recomputed) = touched.counts();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowest_bit_exponents() {
        assert_eq!(lowest_bit_exponent(1.0), 0);
        assert_eq!(lowest_bit_exponent(-6.0), 1);
        assert_eq!(lowest_bit_exponent(1.0 + f64::EPSILON), -52);
        assert_eq!(lowest_bit_exponent(f64::from_bits(1)), -1074);
        assert_eq!(lowest_bit_exponent(f64::MAX), 971);
        assert_eq!(lowest_bit_exponent(0.75), -2);
    }
}
