//! How good a solve is: matrix norms ([`lange`]), the reciprocal condition number estimated
//! from [`getrf`](super::getrf)'s factors ([`gecon`], LAPACK's `dgecon`), and per solution the
//! componentwise backward error and a forward error bound ([`solve_bounds`], the `BERR` and
//! `FERR` of LAPACK's `dgerfs`).
//!
//! **The 1-norm estimator** (Hager, *Condition estimates*, SIAM J. Sci. Stat. Comput. 5(2),
//! 1984; Higham, *FORTRAN codes for estimating the one-norm of a real or complex matrix, with
//! applications to condition estimation*, ACM TOMS 14(4), 1988, Algorithm 4.1, which LAPACK's
//! `dlacn2` implements): `‖B‖₁` from a few products `B·v` and `Bᵀ·v`, never forming `B`. It
//! climbs the convex function `v ↦ ‖B·v‖₁` on the unit 1-ball from `v = e/n` towards a vertex
//! `e_j` (a column of `B`), at most five steps, then tries one more vector of alternating signs
//! and growing magnitudes (Higham's safeguard against matrices that fool the climb). Every
//! value it returns is `‖B·v‖₁` for some `‖v‖₁ = 1`: a **lower bound** of `‖B‖₁` (up to the
//! rounding of the products), in practice within a factor 3 and nearly always exact, but with
//! no guaranteed factor. With `B = A⁻¹` each product is a solve with the LU factors, so
//! [`gecon`] costs 2 to 11 solves, `O(n²)` each, beside the `O(n³)` factorisation.
//!
//! **The forward error bound** (Arioli, Demmel & Duff, SIAM J. Matrix Anal. Appl. 10(2), 1989;
//! Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., §7.2 and §15.3): for a
//! computed `x̂`, `x − x̂ = A⁻¹·r` with `r = b − A·x̂`. The residual `r̂` computed in `T` as a
//! recursive dot product of `n + 1` terms has `|r̂ − r| ≤ γ_(n+1)·(|A||x̂| + |b|)` (plus
//! underflow terms), so
//!
//! `‖x − x̂‖∞ ≤ ‖ |A⁻¹|·w ‖∞`, `w = |r̂| + γ_(n+1)·(|A||x̂| + |b|)`,
//!
//! and `‖ |A⁻¹|·w ‖∞ = ‖A⁻¹·diag(w)‖∞ = ‖diag(w)·A⁻ᵀ‖₁` is what the estimator estimates. The
//! result is a bound **only as far as the estimate is**: reliable in practice, as LAPACK's
//! `FERR`, not guaranteed (the estimator can underestimate). `A⁻¹` is applied through the
//! factors given: with `f64` factors of an extended-precision `A` (refinement), those invert
//! `L̂·Û = P·(A + ΔA)`, close to `A⁻¹` while `κ(A)·2^-53` is well below 1 (which a converged
//! refinement implies).

use super::lu::{check_factors, getrs};
use crate::blas::level1::{check_same_len, upper_f64_with};
use crate::blas::level2::{check_ctx, is_zero};
use crate::blas::level3::recursive_dot_gamma;
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use crate::view::{MatMut, MatRef, Trans};
use rayon::prelude::*;
use std::num::FpCategory;

/// Which matrix norm (LAPACK's `NORM = '1'` / `'I'`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Norm {
    /// The 1-norm, the largest column sum of `|a_ij|`.
    One,
    /// The ∞-norm, the largest row sum of `|a_ij|`.
    Inf,
}

/// Steps of the norm estimator's climb, as LAPACK's `ITMAX`.
const ESTIMATE_STEPS: usize = 5;

/// The larger of two numbers, NaN winning (as LAPACK's `dlange`: a NaN is never hidden).
pub(crate) fn larger(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        f64::NAN
    } else {
        x.max(y)
    }
}

/// `‖A‖₁` ([`Norm::One`]) or `‖A‖∞` ([`Norm::Inf`]) of an `m × n` view (0 when it is empty),
/// as LAPACK's `dlange`: each column (row) sum of `|a_ij|` in `T`'s arithmetic, in a fixed
/// order, then rounded to `f64`; NaN in `A` gives NaN. Columns (rows) run in parallel; the
/// result does not depend on the thread count.
pub fn lange<T: Scalar>(norm: Norm, a: MatRef<'_, T>) -> f64 {
    // The ∞-norm is the 1-norm of the transpose (a view).
    let a = match norm {
        Norm::One => a,
        Norm::Inf => a.t(),
    };
    (0..a.cols())
        .into_par_iter()
        .map(|j| column_abs_sum(a, j))
        .reduce(|| 0.0, larger)
}

/// `Σ_i |a_ij|` in `T`, rounded to `f64` (0 for no rows).
fn column_abs_sum<T: Scalar>(a: MatRef<'_, T>, j: usize) -> f64 {
    if a.rows() == 0 {
        return 0.0;
    }
    let mut s = a.at(0, j).abs_ref();
    for i in 1..a.rows() {
        s.add_assign_ref(&a.at(i, j).abs_ref());
    }
    s.nearest_f64()
}

/// `‖v‖₁` in `f64`.
fn norm1(v: &[f64]) -> f64 {
    v.iter().map(|x| x.abs()).sum()
}

/// The sign vector of `v`: `+1` for `v_i ≥ 0` (zero included), `−1` otherwise.
fn signs(v: &[f64]) -> Vec<f64> {
    v.iter()
        .map(|&x| if x >= 0.0 { 1.0 } else { -1.0 })
        .collect()
}

/// The first index of the largest `|v_i|` (BLAS `idamax`; `v` holds no NaN).
fn first_largest(v: &[f64]) -> usize {
    let mut best = 0;
    for (i, x) in v.iter().enumerate() {
        if x.abs() > v[best].abs() {
            best = i;
        }
    }
    best
}

/// An estimate of `‖B‖₁` for an `n × n` matrix `B` known only through `apply`:
/// `apply(Trans::No, v)` overwrites `v` with `B·v`, `apply(Trans::Yes, v)` with `Bᵀ·v`.
/// Hager's method as Higham 1988, Algorithm 4.1 (LAPACK's `dlacn2`; see the
/// [module docs](self)): a lower bound of `‖B‖₁` up to rounding, at most
/// [`ESTIMATE_STEPS`] steps plus the alternating-sign test. NaN in a product gives NaN; 0 for
/// `n = 0`.
///
/// # Errors
/// Those of `apply`.
pub(crate) fn estimate_one_norm(
    n: usize,
    mut apply: impl FnMut(Trans, &mut [f64]) -> Result<()>,
) -> Result<f64> {
    if n == 0 {
        return Ok(0.0);
    }
    let mut v = vec![1.0 / n as f64; n];
    apply(Trans::No, &mut v)?;
    if n == 1 {
        return Ok(v[0].abs());
    }
    let mut est = norm1(&v);
    // A NaN would steer the climb nowhere (its sign and size mean nothing): report it.
    if est.is_nan() {
        return Ok(est);
    }
    let mut xi = signs(&v);
    v.copy_from_slice(&xi);
    apply(Trans::Yes, &mut v)?;
    let mut j = first_largest(&v);
    let mut step = 2;
    loop {
        // v = B·e_j: column j of B.
        v.fill(0.0);
        v[j] = 1.0;
        apply(Trans::No, &mut v)?;
        let previous = est;
        let column = norm1(&v);
        if column.is_nan() {
            return Ok(column);
        }
        // dlacn2 keeps the latest value even when it is smaller; both are lower bounds of
        // ‖B‖₁, so the larger is kept.
        est = est.max(column);
        let next = signs(&v);
        // A repeated sign vector: the climb has converged. No growth: it would cycle.
        if next == xi || column <= previous {
            break;
        }
        xi = next;
        v.copy_from_slice(&xi);
        apply(Trans::Yes, &mut v)?;
        let last = j;
        j = first_largest(&v);
        // The gradient's largest entry is the vertex just visited: a local maximum.
        if v[last] == v[j].abs() || step >= ESTIMATE_STEPS {
            break;
        }
        step += 1;
    }
    // Higham's extra test: x_i = (−1)^i·(1 + i/(n − 1)) catches matrices whose climb stalls
    // far below the norm (‖B·x‖₁/‖x‖₁ with ‖x‖₁ = 3n/2).
    for (i, x) in v.iter_mut().enumerate() {
        let magnitude = 1.0 + i as f64 / (n - 1) as f64;
        *x = if i % 2 == 0 { magnitude } else { -magnitude };
    }
    apply(Trans::No, &mut v)?;
    let alternating = 2.0 * norm1(&v) / (3 * n) as f64;
    Ok(if alternating.is_nan() {
        alternating
    } else {
        est.max(alternating)
    })
}

/// `v ← op(A)⁻¹·v` with [`getrf`](super::getrf)'s factors of `A` in `F` (`n ≥ 1`): `v`
/// rounded into `F`, solved there ([`getrs`]), rounded back to `f64`.
fn solve_f64<F: Scalar>(
    lu: MatRef<'_, F>,
    ipiv: &[usize],
    trans: Trans,
    v: &mut [f64],
) -> Result<()> {
    let n = v.len();
    let ctx = lu.at(0, 0).ctx();
    let mut y: Vec<F> = v.iter().map(|&e| F::from_f64_in(&ctx, e)).collect();
    getrs(trans, lu, ipiv, MatMut::col_major(&mut y, n, 1, n)?)?;
    for (e, f) in v.iter_mut().zip(&y) {
        *e = f.nearest_f64();
    }
    Ok(())
}

/// The estimate of `‖ |A⁻¹|·w ‖∞` (`w ≥ 0`, `n = w.len() ≥ 1`) from solves `v ← op(A)⁻¹·v`
/// (`inverse`): `‖ |A⁻¹|·w ‖∞ = ‖diag(w)·A⁻ᵀ‖₁`, with `B·v = diag(w)·A⁻ᵀ·v` and
/// `Bᵀ·v = A⁻¹·diag(w)·v` for the estimator.
///
/// # Errors
/// Those of `inverse`.
pub(crate) fn weighted_inverse_norm(
    w: &[f64],
    mut inverse: impl FnMut(Trans, &mut [f64]) -> Result<()>,
) -> Result<f64> {
    estimate_one_norm(w.len(), |t, v| match t {
        Trans::No => {
            inverse(Trans::Yes, v)?;
            v.iter_mut().zip(w).for_each(|(e, wi)| *e *= wi);
            Ok(())
        }
        Trans::Yes => {
            v.iter_mut().zip(w).for_each(|(e, wi)| *e *= wi);
            inverse(Trans::No, v)
        }
    })
}

/// The first exactly zero diagonal entry of `U` in `lu` (`n × n`).
fn zero_pivot<F: Scalar>(lu: MatRef<'_, F>) -> Option<usize> {
    (0..lu.rows()).find(|&i| is_zero(lu.at(i, i)))
}

/// The reciprocal condition number `1 / (‖A‖·‖A⁻¹‖)` in the 1-norm or the ∞-norm, estimated
/// from [`getrf`](super::getrf)'s factors `lu` (`n × n`) and pivots of `A`, with
/// `anorm = ‖A‖` in that norm (from [`lange`] of `A` before it was factored), as LAPACK's
/// `dgecon`. `‖A⁻¹‖` is [the estimator](self)'s, each product a solve in `F` with the factors
/// ([`getrs`]; `‖A⁻¹‖∞ = ‖A⁻ᵀ‖₁` for [`Norm::Inf`]). The estimate of `‖A⁻¹‖` is a lower bound
/// (up to the rounding of the solves), so `rcond` is an **over**-estimate of the true
/// reciprocal, typically by less than a factor 3.
///
/// LAPACK's conventions: 1 for `n = 0`; 0 when `anorm = 0`, when `U` has an exactly zero
/// diagonal entry, and when the estimate of `‖A⁻¹‖` overflows. The result is at most 1.
///
/// # Errors
/// [`Error::InvalidNumber`] when `anorm` is NaN, infinite or negative, or `lu` holds NaN or an
/// infinity (no condition number means anything then); [`Error::LengthMismatch`] (`lu` not
/// square, `ipiv` shorter than `n`), [`Error::OutOfRange`] (a pivot outside `j..n`),
/// [`Error::BasisMismatch`] (RNS factors of different bases).
pub fn gecon<F: Scalar>(norm: Norm, lu: MatRef<'_, F>, ipiv: &[usize], anorm: f64) -> Result<f64> {
    let n = check_factors(lu, ipiv)?;
    let reason = if anorm.is_nan() {
        Some("is NaN")
    } else if anorm.is_infinite() {
        Some("is infinite")
    } else if anorm < 0.0 {
        Some("is negative")
    } else {
        None
    };
    if let Some(reason) = reason {
        return Err(Error::InvalidNumber {
            arg: "anorm",
            reason,
        });
    }
    if n == 0 {
        return Ok(1.0);
    }
    check_ctx(&lu.at(0, 0).ctx(), &[], &[], Some(lu))?;
    let finite = (0..n)
        .flat_map(|j| (0..n).map(move |i| (i, j)))
        .all(|(i, j)| !matches!(lu.at(i, j).class(), FpCategory::Nan | FpCategory::Infinite));
    if !finite {
        return Err(Error::InvalidNumber {
            arg: "lu",
            reason: "holds NaN or an infinity",
        });
    }
    if anorm == 0.0 || zero_pivot(lu).is_some() {
        return Ok(0.0);
    }
    // ‖A⁻¹‖₁ from B = A⁻¹; ‖A⁻¹‖∞ = ‖A⁻ᵀ‖₁ from B = A⁻ᵀ (Bᵀ the other solve).
    let flip = |t: Trans| match (norm, t) {
        (Norm::One, t) => t,
        (Norm::Inf, Trans::No) => Trans::Yes,
        (Norm::Inf, Trans::Yes) => Trans::No,
    };
    let inverse_norm = estimate_one_norm(n, |t, v| solve_f64(lu, ipiv, flip(t), v))?;
    Ok(rcond_from(anorm, inverse_norm))
}

/// `1 / (anorm·inverse_norm)` as [`gecon`] forms it from a finite nonzero `anorm` and the
/// estimate of `‖A⁻¹‖` (the GPU refinement's condition estimate too).
pub(crate) fn rcond_from(anorm: f64, inverse_norm: f64) -> f64 {
    // Finite factors with nonzero pivots: a non-finite estimate is an overflow in the
    // solves, an A singular to working precision.
    if !inverse_norm.is_finite() || inverse_norm == 0.0 {
        return 0.0;
    }
    // κ ≥ 1 in any norm: a quotient above 1 is the rounding of the last two divisions.
    ((1.0 / inverse_norm) / anorm).min(1.0)
}

/// The error bounds of one solution (one column of `X`) returned by [`solve_bounds`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolveBounds {
    /// The componentwise (Oettli–Prager) backward error
    /// `max_i |r_i| / (|A||x| + |b|)_i` of the residual `r = b − A·x` computed in `T` (a row
    /// where numerator and denominator are both 0 counts as 0): the smallest `ω` such that
    /// `(A + ΔA)·x = b + Δb` with `|ΔA| ≤ ω|A|`, `|Δb| ≤ ω|b|` (Higham Thm 7.3), up to the
    /// rounding of `r`. LAPACK's `BERR`.
    pub backward_error: f64,
    /// A bound on `‖x − x_true‖∞ / ‖x‖∞`, from the residual, its rounding error and the
    /// estimate of `‖ |A⁻¹|·w ‖∞` (see the [module docs](self)): **estimate-based**, as
    /// LAPACK's `FERR`, reliable in practice but not guaranteed (the norm estimator can
    /// underestimate). `+∞` when the factors are exactly singular, or `x = 0` with a nonzero
    /// bound on its error.
    pub forward_error: f64,
}

/// The [`SolveBounds`] of each column of `X` as a solution of `A·X = B` (`A` `n × n`, `B` and
/// `X` `n × nrhs`, all in `T`), with `lu` and `ipiv` the [`getrf`](super::getrf) factors of
/// `A` in a format `F` (`T`'s own after an LU solve in `T`; the `f64` factors of `fl64(A)` after
/// mixed-precision refinement; any `F` whose solves approximate `A⁻¹`), as LAPACK's `dgerfs`
/// without its refinement:
///
/// - the residual `r = b − A·x` of each column, in `T`, as a recursive dot product of `n + 1`
///   terms (`b_i` first, then `a_ij·(−x_j)` for `j = 0..n`), and `|A||x| + |b|` in the same
///   order;
/// - `backward_error = max_i |r_i| / (|A||x| + |b|)_i` (componentwise);
/// - `forward_error = est‖ |A⁻¹|·w ‖∞ / ‖x‖∞` with `w = |r| + γ_(n+1)·(|A||x| + |b|)` (plus
///   the underflow terms), `γ_(n+1)` the bound of a recursive `(n+1)`-term dot product in `T`
///   (`recursive_dot_gamma`, the `γ` of [`gemm`](crate::blas::level3::gemm)'s bounds), the
///   norm estimated from solves with the factors (about 2 to 11 per column).
///
/// Columns run in parallel, each in a fixed order: the bounds do not depend on the thread
/// count. The bounds are `f64`: values beyond `f64`'s range (RNS) give `+∞` or NaN, and NaN or
/// `±∞` in the inputs give NaN or `+∞` bounds, never a finite one.
///
/// # Errors
/// [`Error::LengthMismatch`] for shapes that do not agree (`A`, `lu` not square or of
/// different orders, `B`, `X`, `ipiv` too short), [`Error::OutOfRange`] (a pivot outside
/// `j..n`), [`Error::BasisMismatch`] (RNS operands of different bases).
pub fn solve_bounds<T: Scalar, F: Scalar>(
    a: MatRef<'_, T>,
    lu: MatRef<'_, F>,
    ipiv: &[usize],
    b: MatRef<'_, T>,
    x: MatRef<'_, T>,
) -> Result<Vec<SolveBounds>> {
    let n = a.rows();
    check_same_len("a (columns)", n, a.cols())?;
    check_same_len("lu (rows)", n, lu.rows())?;
    check_factors(lu, ipiv)?;
    check_same_len("b (rows)", n, b.rows())?;
    check_same_len("x (rows)", n, x.rows())?;
    check_same_len("x (columns)", b.cols(), x.cols())?;
    let nrhs = b.cols();
    if n == 0 || nrhs == 0 {
        let exact = SolveBounds {
            backward_error: 0.0,
            forward_error: 0.0,
        };
        return Ok(vec![exact; nrhs]);
    }
    let ctx = a.at(0, 0).ctx();
    for m in [a, b, x] {
        check_ctx(&ctx, &[], &[], Some(m))?;
    }
    check_ctx(&lu.at(0, 0).ctx(), &[], &[], Some(lu))?;
    let singular = zero_pivot(lu).is_some();
    (0..nrhs)
        .into_par_iter()
        .map(|c| column_bounds(a, (lu, ipiv, singular), b, x, c))
        .collect()
}

/// The bounds of column `c` of [`solve_bounds`] (`n ≥ 1`); `singular` when `U` has an exactly
/// zero pivot.
fn column_bounds<T: Scalar, F: Scalar>(
    a: MatRef<'_, T>,
    (lu, ipiv, singular): (MatRef<'_, F>, &[usize], bool),
    b: MatRef<'_, T>,
    x: MatRef<'_, T>,
    c: usize,
) -> Result<SolveBounds> {
    let n = a.rows();
    let ctx = a.at(0, 0).ctx();
    let (r, s) = residual(a, b, x, c);
    let backward_error = r
        .iter()
        .zip(&s)
        .map(|(ri, si)| componentwise_ratio(ri.nearest_f64().abs(), si.nearest_f64()))
        .fold(0.0, larger);
    let x_norm = (0..n)
        .map(|i| x.at(i, c).nearest_f64().abs())
        .fold(0.0, larger);
    let forward_error = if singular {
        f64::INFINITY
    } else {
        let w: Vec<f64> = r
            .iter()
            .zip(&s)
            .map(|(ri, si)| residual_error_weight::<T>(&ctx, ri, si, n))
            .collect();
        let err = weighted_inverse_norm(&w, |t, v| solve_f64(lu, ipiv, t, v))?;
        relative_to(err, x_norm)
    };
    Ok(SolveBounds {
        backward_error,
        forward_error,
    })
}

/// `r = b − A·x` and `s = |A||x| + |b|` of column `c`, in `T`, each entry a recursive dot
/// product of `n + 1` terms starting from `b_i` (the order `recursive_dot_gamma(n + 1)`
/// bounds), rows advancing together through the columns of `A`.
fn residual<T: Scalar>(
    a: MatRef<'_, T>,
    b: MatRef<'_, T>,
    x: MatRef<'_, T>,
    c: usize,
) -> (Vec<T>, Vec<T>) {
    let n = a.rows();
    let mut r: Vec<T> = (0..n).map(|i| b.at(i, c).clone()).collect();
    let mut s: Vec<T> = r.iter().map(Scalar::abs_ref).collect();
    for j in 0..n {
        let xj = x.at(j, c);
        let (minus_xj, abs_xj) = (xj.neg_ref(), xj.abs_ref());
        for i in 0..n {
            let aij = a.at(i, j);
            r[i].add_product(aij, &minus_xj);
            s[i].add_product(&aij.abs_ref(), &abs_xj);
        }
    }
    (r, s)
}

/// `|r_i| / s_i`, with `0/0` as 0 (an exactly zero row of `|A||x| + |b|` has an exactly zero
/// residual: LAPACK's `dla_lin_berr` skips it).
fn componentwise_ratio(r: f64, s: f64) -> f64 {
    if r == 0.0 && s == 0.0 { 0.0 } else { r / s }
}

/// `w_i ≥ |r_i|` of the exact residual: the computed `|r̂_i|` plus the bound on its rounding,
/// `γ_(n+1)·s_i + 2(n+1)η` (`recursive_dot_gamma(n + 1)`, with `s_i` bounded above from its
/// computed value by `upper_f64_with`), rounded up. No rounding, hence no term, when every
/// term of the row was zero.
fn residual_error_weight<T: Scalar>(ctx: &T::Ctx, r: &T, s: &T, n: usize) -> f64 {
    let g = recursive_dot_gamma::<T>(ctx, n + 1);
    // The nearest f64 is within a relative 2^-53 of the value: 2^-52 covers it.
    let r_up = r.nearest_f64().abs() * (1.0 + f64::EPSILON);
    if is_zero(s) {
        return r_up;
    }
    let s_up = upper_f64_with(s, ctx, g, n + 1);
    let eta = T::underflow_error_in(ctx);
    crate::blas::bounds::up(r_up + g * s_up + 2.0 * (n + 1) as f64 * eta)
}

/// An absolute error bound `err` relative to `‖x‖∞` (`+∞` for a nonzero bound on `x = 0`).
fn relative_to(err: f64, x_norm: f64) -> f64 {
    if err == 0.0 { 0.0 } else { err / x_norm }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `B·v` or `Bᵀ·v` for a column-major `n × n` `B`.
    fn dense(b: &[f64], n: usize) -> impl FnMut(Trans, &mut [f64]) -> Result<()> + '_ {
        move |t, v| {
            let x = v.to_vec();
            for (i, out) in v.iter_mut().enumerate() {
                *out = (0..n)
                    .map(|j| match t {
                        Trans::No => b[i + j * n] * x[j],
                        Trans::Yes => b[j + i * n] * x[j],
                    })
                    .sum();
            }
            Ok(())
        }
    }

    fn exact_one_norm(b: &[f64], n: usize) -> f64 {
        (0..n)
            .map(|j| norm1(&b[j * n..(j + 1) * n]))
            .fold(0.0, f64::max)
    }

    #[test]
    fn the_estimate_is_a_lower_bound_within_a_factor_3() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        for n in 1..=30 {
            let b: Vec<f64> = (0..n * n).map(|_| next()).collect();
            let est = estimate_one_norm(n, dense(&b, n)).unwrap();
            let norm = exact_one_norm(&b, n);
            // The sums of n products in f64: within γ_n of the exact column sums.
            assert!(
                est <= norm * (1.0 + 2.0 * n as f64 * f64::EPSILON),
                "n={n}: {est} > {norm}"
            );
            assert!(est >= norm / 3.0, "n={n}: {est} < {norm}/3");
        }
    }

    #[test]
    fn identity_empty_and_nan() {
        let n = 6;
        let mut b = vec![0.0; n * n];
        for i in 0..n {
            b[i + i * n] = 1.0;
        }
        let est = estimate_one_norm(n, dense(&b, n)).unwrap();
        assert_eq!(est, 1.0);
        assert_eq!(estimate_one_norm(0, dense(&[], 0)).unwrap(), 0.0);
        let nan = vec![f64::NAN; 4];
        assert!(estimate_one_norm(2, dense(&nan, 2)).unwrap().is_nan());
    }

    #[test]
    fn zero_over_zero_counts_as_zero() {
        assert_eq!(componentwise_ratio(0.0, 0.0), 0.0);
        assert_eq!(componentwise_ratio(1.0, 0.0), f64::INFINITY);
        assert_eq!(relative_to(0.0, 0.0), 0.0);
        assert_eq!(relative_to(1e-300, 0.0), f64::INFINITY);
    }
}
