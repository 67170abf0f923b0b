//! BLAS level 2 on the CPU, for every [`Scalar`] format: `gemv` (`y ← α·op(A)·x + β·y`) and
//! `ger` (`A ← α·x·yᵀ + A`), over matrix and vector views (a transpose is a view,
//! [`MatRef::t`]), with BLAS-style entries for code ported from Fortran or C. The GPU twins
//! ([`gpu::gemv`](super::gpu::gemv), [`gpu::ger`](super::gpu::ger)) return the same bits and
//! bounds for `f64`, `Dd` and `Qd`.
//!
//! **Order and reproducibility.** Entry `i` of `gemv` is `α·s_i + β·y_i` with
//! `s_i = Σ_j a_ij·x_j` in the level-1 [`Summation::Blocked`] order (the order of
//! [`dot`](super::dot), fixed by the indices), rows in parallel: the same bits for any number of
//! threads. When `A` is stored by columns, blocks of 32 rows advance through the columns
//! together (each step reads a piece of a column, not one cache line per element), every row
//! still in its own order, so the bits do not depend on the storage either. `ger` forms
//! `a_ij + x_i·(α·y_j)` as reference BLAS does.
//!
//! **Error bounds** ([`gemv_bounded`]): componentwise, per entry of `y`, from the level-1
//! bound of `s_i` (`γ_D·Σ_j|a_ij||x_j|`, [`bounds::sum_error_bound`](super::bounds::sum_error_bound))
//! and the two products and the sum that follow (Higham §3.5 has the same form,
//! `|ŷ − y| ≤ γ_(n+2)·(|α||A||x| + |β||y|)`, for recursive summation):
//!
//! `|ŷ_i − y_i| ≤ |α|·B_i + γ_2·(|α|·(S_i + B_i) + |β||y_i|) + 3η`
//!
//! with `B_i` the bound on `|ŝ_i − s_i|`, `S_i ≥ Σ_j|a_ij||x_j|` and `η` the format's
//! underflow term. `ger`'s entries have `|â_ij − a_ij| ≤ γ_3·(|a_ij| + |α||x_i||y_j|)` plus
//! underflow terms ([`ger_error_bound`]).
//!
//! **BLAS conventions.** `α = 0` does not read `A` or `x` (NaN there does not propagate);
//! `β = 0` does not read `y`; as reference `?gemv`, `m = 0` or `n = 0` (either dimension of
//! `op(A)`), or `α = 0` with `β = 1`, returns at once with `y` unchanged (even for `n = 0`,
//! where `β·y` would be the mathematical result). RNS operands must share one
//! basis ([`Error::BasisMismatch`](crate::Error::BasisMismatch)), checked once per call.

use super::bounds::{gamma, summation_depth, tiny_if, up};
use super::level1::{AbsDotOf, DotOf, check_same_len, neg_zero, upper_f64_with};
use super::sum::{LANES, Reduction, Summation, reduce, step_rows};
use crate::error::Result;
use crate::scalar::Scalar;
use crate::view::{MatMut, MatRef, Trans, VecMut, VecRef};
use rayon::prelude::*;
use std::num::FpCategory;

/// `|v|` as an `f64` rounded up: at least the smallest subnormal for a nonzero `v` (an RNS
/// value below the `f64` range rounds to 0, which would not bound it), `+∞` above the range.
fn mag_up<T: Scalar>(v: &T) -> f64 {
    if is_zero(v) {
        return 0.0;
    }
    up(v.nearest_f64().abs() * (1.0 + f64::EPSILON)).max(f64::from_bits(1))
}

/// Rows per task when `A` is stored by columns: their dot products advance together, each
/// step reading a contiguous piece of a column (a row of a column-major matrix is strided,
/// one cache line per element).
const ROW_BLOCK: usize = 32;

/// The dot products of rows `rows` of `A` with `x` (or of `|A|` with `|x|`) as one reduction
/// whose accumulator holds one value per row: every row meets exactly the steps and joins of
/// its own [`DotOf`] reduction in the same order, so the bits are the same, but a step reads
/// `A[rows, j]`, contiguous in a column-major `A`.
struct RowsDot<'a, T> {
    a: MatRef<'a, T>,
    first: usize,
    count: usize,
    x: VecRef<'a, T>,
    zero: T,
    abs: bool,
}

impl<T: Scalar> Reduction for RowsDot<'_, T> {
    type Acc = Vec<T>;
    fn identity(&self) -> Vec<T> {
        vec![self.zero.clone(); self.count]
    }
    #[inline]
    fn step(&self, acc: &mut Vec<T>, j: usize) {
        let xj = self.x.at(j);
        if self.abs {
            let xj = xj.abs_ref();
            for (r, s) in acc.iter_mut().enumerate() {
                s.add_product(&self.a.at(self.first + r, j).abs_ref(), &xj);
            }
        } else {
            for (r, s) in acc.iter_mut().enumerate() {
                s.add_product(self.a.at(self.first + r, j), xj);
            }
        }
    }
    /// With lane sums ([`Scalar::LANE_SUMS`]), each row's lane as its [`DotOf`] lane.
    #[inline]
    fn first_pass_lanes(&self, lanes: &mut [Vec<T>], start: usize, m: usize) {
        if !T::LANE_SUMS {
            return step_rows(lanes, start, m, |l, base| self.step_lanes(l, base));
        }
        let term = |row: usize, j: usize| {
            let (a, x) = (self.a.at(self.first + row, j), self.x.at(j));
            if self.abs {
                (a.abs_ref(), x.abs_ref())
            } else {
                (a.clone(), x.clone())
            }
        };
        for (l, acc) in lanes.iter_mut().enumerate() {
            let (first, count) = (start + l, (m - l).div_ceil(LANES));
            for (row, s) in acc.iter_mut().enumerate() {
                match T::lane_dot(count, |k| term(row, first + k * LANES)) {
                    Some(v) => *s = v,
                    None => (0..count).for_each(|k| {
                        let (a, x) = term(row, first + k * LANES);
                        s.add_product(&a, &x);
                    }),
                }
            }
        }
    }
    #[inline]
    fn join(&self, a: &mut Vec<T>, b: &Vec<T>) {
        for (s, t) in a.iter_mut().zip(b) {
            s.add_assign_normwise(t);
        }
    }
}

pub(crate) fn is_zero<T: Scalar>(v: &T) -> bool {
    v.class() == FpCategory::Zero
}

/// Neither NaN nor infinite: a value an error bound can hold for.
fn is_finite<T: Scalar>(v: &T) -> bool {
    matches!(
        v.class(),
        FpCategory::Normal | FpCategory::Subnormal | FpCategory::Zero
    )
}

/// Every element of the operands against `alpha`'s context (the RNS basis).
pub(crate) fn check_ctx<T: Scalar>(
    ctx: &T::Ctx,
    scalars: &[&T],
    vectors: &[VecRef<'_, T>],
    matrix: Option<MatRef<'_, T>>,
) -> Result<()> {
    for s in scalars {
        s.check_ctx(ctx)?;
    }
    for v in vectors {
        for e in v.iter() {
            e.check_ctx(ctx)?;
        }
    }
    if let Some(a) = matrix {
        for r in (0..a.rows()).filter_map(|i| a.row(i)) {
            for e in r.iter() {
                e.check_ctx(ctx)?;
            }
        }
    }
    Ok(())
}

/// `y ← α·A·x + β·y` for an `m × n` view `A` (pass `a.t()` for `Aᵀ`), `x` of length `n`, `y`
/// of length `m`. See the [module docs](self) for the order and conventions.
///
/// # Errors
/// [`Error::LengthMismatch`](crate::Error::LengthMismatch) (`x`, `y`),
/// [`Error::BasisMismatch`](crate::Error::BasisMismatch).
///
/// ```
/// use mpblas::blas::level2::gemv;
/// use mpblas::view::{MatRef, VecMut, VecRef};
/// use mpblas::Dd;
/// let a = [Dd::from(1.0), Dd::from(3.0), Dd::from(2.0), Dd::from(4.0)]; // [[1, 2], [3, 4]]
/// let x = [Dd::from(1.0), Dd::from(1e-20)];
/// let mut y = [Dd::from(0.0); 2];
/// let a = MatRef::col_major(&a, 2, 2, 2).unwrap();
/// gemv(&Dd::ONE, a, VecRef::contiguous(&x), &Dd::ZERO, VecMut::contiguous(&mut y)).unwrap();
/// assert_eq!(y[0], Dd::from(1.0) + Dd::from(2e-20));
/// ```
pub fn gemv<T: Scalar>(
    alpha: &T,
    a: MatRef<'_, T>,
    x: VecRef<'_, T>,
    beta: &T,
    y: VecMut<'_, T>,
) -> Result<()> {
    gemv_impl(alpha, a, x, beta, y, false).map(drop)
}

/// [`gemv`], returning beside the result the componentwise bound of each entry of `y` (see
/// the [module docs](self)): `|ŷ_i − y_i| ≤ bound[i]`, `+∞` where an input is not finite.
/// It costs a second pass over `A` (for `Σ_j|a_ij||x_j|`).
///
/// # Errors
/// As [`gemv`].
pub fn gemv_bounded<T: Scalar>(
    alpha: &T,
    a: MatRef<'_, T>,
    x: VecRef<'_, T>,
    beta: &T,
    y: VecMut<'_, T>,
) -> Result<Vec<f64>> {
    gemv_impl(alpha, a, x, beta, y, true)
}

fn gemv_impl<T: Scalar>(
    alpha: &T,
    a: MatRef<'_, T>,
    x: VecRef<'_, T>,
    beta: &T,
    y: VecMut<'_, T>,
    with_bounds: bool,
) -> Result<Vec<f64>> {
    check_same_len("x", a.cols(), x.len())?;
    check_same_len("y", a.rows(), y.len())?;
    let (m, n) = (a.rows(), a.cols());
    let ctx = alpha.ctx();
    let Some((alpha_zero, beta_zero)) = gemv_prologue(alpha, a, x, beta, y.rb())? else {
        return Ok(if with_bounds {
            y.rb().iter().map(unchanged_bound).collect()
        } else {
            Vec::new()
        });
    };
    // s_i (and Σ_j|a_ij||x_j| for the bounds) for every row: by blocks of rows stepping
    // through columns when A is stored by columns, else row by row (the same bits).
    let by_columns = a.row_stride() == 1 && a.col_stride() != 1 && m > 1;
    let dots: Vec<(T, Option<T>)> = if alpha_zero {
        Vec::new()
    } else if by_columns {
        let blocks: Vec<Vec<(T, Option<T>)>> = (0..m.div_ceil(ROW_BLOCK))
            .into_par_iter()
            .map(|b| {
                let first = b * ROW_BLOCK;
                let rd = |abs| RowsDot {
                    a,
                    first,
                    count: ROW_BLOCK.min(m - first),
                    x,
                    zero: neg_zero(&ctx),
                    abs,
                };
                let s = reduce(&rd(false), n, Summation::Blocked);
                let abs: Vec<Option<T>> = if with_bounds {
                    reduce(&rd(true), n, Summation::Blocked)
                        .into_iter()
                        .map(Some)
                        .collect()
                } else {
                    vec![None; s.len()]
                };
                s.into_iter().zip(abs).collect()
            })
            .collect();
        blocks.into_iter().flatten().collect()
    } else {
        (0..m)
            .into_par_iter()
            .map(|i| {
                let row = a.row(i).unwrap_or_else(|| VecRef::contiguous(&[]));
                let s = reduce(&DotOf(row, x, neg_zero(&ctx)), n, Summation::Blocked);
                let abs = with_bounds
                    .then(|| reduce(&AbsDotOf(row, x, neg_zero(&ctx)), n, Summation::Blocked));
                (s, abs)
            })
            .collect()
    };
    let consts = RowBound::new(alpha, beta_zero, n);
    let yr = y.rb();
    let rows: Vec<(T, f64)> = (0..m)
        .into_par_iter()
        .map(|i| {
            let yi = (!beta_zero).then(|| yr.get(i).cloned()).flatten();
            let by = yi.as_ref().map(|v| beta.mul_ref(v));
            let (s, abs) = match dots.get(i) {
                Some((s, abs)) => (Some(s), abs.as_ref()),
                None => (None, None),
            };
            let value = scaled_entry(alpha, s, by.as_ref(), &ctx);
            let bound = if with_bounds {
                consts.bound(alpha, by.as_ref(), abs, &value)
            } else {
                0.0
            };
            (value, bound)
        })
        .collect();
    Ok(store_rows(y, rows, with_bounds))
}

/// Entry `α·s + β·y` of a GEMV or GEMM from its sum `s` (`None` when there is no product:
/// `α = 0`, or an empty sum in a GEMM) and `by = β·y` (`None` when `β = 0`, `y` not read):
/// `α·s`, then `+ β·y`; `β·y` alone without a product; `+0` without either.
pub(crate) fn scaled_entry<T: Scalar>(alpha: &T, s: Option<&T>, by: Option<&T>, ctx: &T::Ctx) -> T {
    match (s, by) {
        (Some(s), None) => alpha.mul_ref(s),
        (Some(s), Some(by)) => alpha.mul_ref(s).add_ref(by),
        (None, Some(by)) => by.clone(),
        (None, None) => T::zero_in(ctx),
    }
}

/// Writes each row's value into `y` and returns the bounds (none unless `with_bounds`).
pub(crate) fn store_rows<T, B>(
    mut y: VecMut<'_, T>,
    rows: Vec<(T, B)>,
    with_bounds: bool,
) -> Vec<B> {
    let mut bounds = Vec::with_capacity(if with_bounds { rows.len() } else { 0 });
    for (i, (v, b)) in rows.into_iter().enumerate() {
        if let Some(slot) = y.get_mut(i) {
            *slot = v;
        }
        if with_bounds {
            bounds.push(b);
        }
    }
    bounds
}

/// What every CPU GEMV does first (the lengths were checked): reference BLAS's quick return
/// (`None`: no rows or columns, or `α = 0` with `β = 1`, `y` unchanged), then every operand the
/// call will read against `α`'s context (`A` and `x` unless `α = 0`, `y` unless `β = 0`).
/// Returns whether `α` and `β` are zero.
pub(crate) fn gemv_prologue<T: Scalar>(
    alpha: &T,
    a: MatRef<'_, T>,
    x: VecRef<'_, T>,
    beta: &T,
    y: VecRef<'_, T>,
) -> Result<Option<(bool, bool)>> {
    let ctx = alpha.ctx();
    let (alpha_zero, beta_zero) = (is_zero(alpha), is_zero(beta));
    if a.rows() == 0 || a.cols() == 0 || (alpha_zero && *beta == T::one_in(&ctx)) {
        return Ok(None);
    }
    let none = VecRef::contiguous(&[]);
    check_ctx(
        &ctx,
        &[beta],
        &[
            if alpha_zero { none } else { x },
            if beta_zero { none } else { y },
        ],
        (!alpha_zero).then_some(a),
    )?;
    Ok(Some((alpha_zero, beta_zero)))
}

/// The bound of an entry of `y` that a quick return leaves unchanged: 0 (no error), except
/// that no bound holds for a value that is not finite.
pub(crate) fn unchanged_bound<T: Scalar>(v: &T) -> f64 {
    if is_finite(v) { 0.0 } else { f64::INFINITY }
}

/// The per-call constants of the componentwise bound of `gemv` (see the [module docs](self)),
/// and the bound of one entry from the quantities the CPU and the GPU both compute: `β·y_i`,
/// `Σ_j|a_ij||x_j|` (the format's own blocked sum) and the result.
pub(crate) struct RowBound<T: Scalar> {
    ctx: T::Ctx,
    n: usize,
    eps: f64,
    eta: f64,
    alpha_zero: bool,
    beta_zero: bool,
    /// `γ_(D+1)` of a row's dot.
    g: f64,
    /// `|α|·2n·η`: the underflow of a row's dot, scaled.
    eta_terms: f64,
}

impl<T: Scalar> RowBound<T> {
    pub(crate) fn new(alpha: &T, beta_zero: bool, n: usize) -> Self {
        Self::with_order(alpha, beta_zero, n, Summation::Blocked)
    }

    /// As [`RowBound::new`], for dot products of `n` terms summed in `order`.
    pub(crate) fn with_order(alpha: &T, beta_zero: bool, n: usize, order: Summation) -> Self {
        let eps = T::op_error_bound_in(&alpha.ctx());
        Self::with_gamma(
            alpha,
            beta_zero,
            n,
            gamma(summation_depth(order, n) + 1, eps),
        )
    }

    /// As [`RowBound::new`], for dot products of `n` terms with `|ŝ − s| ≤ g·Σ|t| + 2nη`.
    pub(crate) fn with_gamma(alpha: &T, beta_zero: bool, n: usize, g: f64) -> Self {
        let ctx = alpha.ctx();
        let eps = T::op_error_bound_in(&ctx);
        let eta = T::underflow_error_in(&ctx);
        let eta_terms = if eta > 0.0 {
            mag_up(alpha) * 2.0 * n as f64 * eta
        } else {
            0.0
        };
        RowBound {
            ctx,
            n,
            eps,
            eta,
            alpha_zero: is_zero(alpha),
            beta_zero,
            g,
            eta_terms,
        }
    }

    /// The bound of entry `value = α·s_i + β·y_i` given `by = β·y_i` (`None` when `β = 0`) and
    /// `abs = Σ_j|a_ij||x_j|` (`None` when `α = 0`); `+∞` where the result is not finite.
    pub(crate) fn bound(&self, alpha: &T, by: Option<&T>, abs: Option<&T>, value: &T) -> f64 {
        let (eps, eta) = (self.eps, self.eta);
        // |β·y_i| from the format's own product (exact exponent range), then up: covers
        // the product's rounding (≤ ε) and the f64 rounding.
        let by_mag = by.map_or(0.0, |v| mag_up(v) * (1.0 + 3.0 * eps));
        let bound = if self.alpha_zero {
            if self.beta_zero {
                0.0
            } else {
                up(eps * by_mag + eta + tiny_if(by_mag > 0.0))
            }
        } else {
            match abs {
                None => f64::INFINITY,
                Some(abs) => {
                    // P ≥ |α|·Σ_j|a_ij||x_j|: the format's product |α|·abs bounded as a
                    // sum computed with the same g (upper_f64's), widened by (1 + 3ε) for the
                    // product's rounding.
                    let p =
                        upper_f64_with(&alpha.abs_ref().mul_ref(abs), &self.ctx, self.g, self.n)
                            * (1.0 + 3.0 * eps);
                    // |α|·B: B = γ_(D+1)·S + 2nη + tiny (sum_error_bound) scaled by |α|.
                    let ab = self.g * p + self.eta_terms + tiny_if(p > 0.0);
                    if self.beta_zero {
                        up(ab + eps * (p + ab) + eta + tiny_if(p > 0.0))
                    } else {
                        up(ab
                            + gamma(2, eps) * (p + ab + by_mag)
                            + 3.0 * eta
                            + tiny_if(p + by_mag > 0.0))
                    }
                }
            }
        };
        if bound.is_nan() || !is_finite(value) {
            f64::INFINITY
        } else {
            bound
        }
    }
}

/// BLAS `?gemv`: `y ← α·op(A)·x + β·y` with `A` an `m × n` column-major array of leading
/// dimension `lda`, `op(A) = A` (`x` of `n` elements, `y` of `m`) or `Aᵀ` (`x` of `m`, `y` of
/// `n`), increments as level 1 (negative ones walk down from the last element).
///
/// # Errors
/// [`Error::LeadingDim`](crate::Error::LeadingDim) (`lda`),
/// [`Error::ArrayTooShort`](crate::Error::ArrayTooShort) (`a`, `x`, `y`),
/// [`Error::InvalidView`](crate::Error::InvalidView) (`incx` or `incy` = 0), then those of
/// [`gemv`].
#[allow(clippy::too_many_arguments)]
pub fn gemv_blas<T: Scalar>(
    trans: Trans,
    m: usize,
    n: usize,
    alpha: &T,
    a: &[T],
    lda: usize,
    x: &[T],
    incx: isize,
    beta: &T,
    y: &mut [T],
    incy: isize,
) -> Result<()> {
    let a = MatRef::from_blas(("a", "lda"), Trans::No, m, n, a, lda)?;
    let (a, lx, ly) = match trans {
        Trans::No => (a, n, m),
        Trans::Yes => (a.t(), m, n),
    };
    gemv(
        alpha,
        a,
        VecRef::from_blas("x", lx, x, incx)?,
        beta,
        VecMut::from_blas("y", ly, y, incy)?,
    )
}

/// `A ← α·x·yᵀ + A` for an `m × n` view `A`, `x` of length `m`, `y` of length `n`: entry
/// `a_ij + x_i·(α·y_j)`, as reference BLAS (which also leaves column `j` untouched when
/// `y_j = 0`). `α = 0` returns at once.
///
/// # Errors
/// [`Error::LengthMismatch`](crate::Error::LengthMismatch) (`x`, `y`),
/// [`Error::BasisMismatch`](crate::Error::BasisMismatch).
pub fn ger<T: Scalar>(
    alpha: &T,
    x: VecRef<'_, T>,
    y: VecRef<'_, T>,
    mut a: MatMut<'_, T>,
) -> Result<()> {
    check_same_len("x", a.rows(), x.len())?;
    check_same_len("y", a.cols(), y.len())?;
    if is_zero(alpha) {
        return Ok(());
    }
    let ctx = alpha.ctx();
    check_ctx(&ctx, &[], &[x, y], Some(a.rb()))?;
    for j in 0..a.cols() {
        let Some(yj) = y.get(j) else { break };
        // Reference BLAS skips a zero y_j (so an infinite x_i gives no NaN there).
        if is_zero(yj) {
            continue;
        }
        let t = alpha.mul_ref(yj);
        for (i, xi) in x.iter().enumerate() {
            if let Some(aij) = a.get_mut(i, j) {
                *aij = aij.add_ref(&xi.mul_ref(&t));
            }
        }
    }
    Ok(())
}

/// The bound on `|â_ij − a_ij|` of one entry of [`ger`] in a format of operation bound `eps`
/// (its [`op_error_bound_in`](Scalar::op_error_bound_in)) and underflow term `eta`
/// ([`underflow_error_in`](Scalar::underflow_error_in)), given upper bounds of `|a_ij|`,
/// `|α·x_i·y_j|` and `|x_i|`: `γ_3·(|a_ij| + |α x_i y_j|) + (2|x_i| + 2)·η`. The `|x_i|·η`
/// term is the underflow of `t = α·y_j` (a lower word lost to the subnormal range) magnified by
/// the product `x_i·t`.
pub fn ger_error_bound(eps: f64, eta: f64, a_abs: f64, axy_abs: f64, x_abs: f64) -> f64 {
    let b = gamma(3, eps) * (a_abs + axy_abs) + (2.0 * x_abs + 2.0) * eta;
    up(b + tiny_if(a_abs + axy_abs > 0.0))
}

/// BLAS `?ger`: `A ← α·x·yᵀ + A`, `A` an `m × n` column-major array of leading dimension
/// `lda`, `x` of `m` elements, `y` of `n`.
///
/// # Errors
/// [`Error::LeadingDim`](crate::Error::LeadingDim) (`lda`),
/// [`Error::ArrayTooShort`](crate::Error::ArrayTooShort) (`a`, `x`, `y`),
/// [`Error::InvalidView`](crate::Error::InvalidView) (`incx` or `incy` = 0), then those of
/// [`ger`].
#[allow(clippy::too_many_arguments)]
pub fn ger_blas<T: Scalar>(
    m: usize,
    n: usize,
    alpha: &T,
    x: &[T],
    incx: isize,
    y: &[T],
    incy: isize,
    a: &mut [T],
    lda: usize,
) -> Result<()> {
    let x = VecRef::from_blas("x", m, x, incx)?;
    let y = VecRef::from_blas("y", n, y, incy)?;
    let a = MatMut::from_blas(("a", "lda"), m, n, a, lda)?;
    ger(alpha, x, y, a)
}
