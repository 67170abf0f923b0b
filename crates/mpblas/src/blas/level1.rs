//! BLAS level 1 on the CPU, for every [`Scalar`] format: `sum`, `asum`, `dot`, `nrm2`,
//! `iamax` (reductions) and `axpy`, `scal`, `rot` (element-wise), over strided
//! [`VecRef`]/[`VecMut`] views (BLAS increments, negative ones included).
//!
//! Reductions follow a [`Summation`] order fixed by the indices (default
//! [`Summation::Blocked`]), so they return the same bits for any number of threads and the
//! same bits as the GPU routines; each has a `_bounded` form returning the a-priori error
//! bound of [`bounds`](super::bounds) beside the value.
//!
//! Every step adds with [`Scalar::add_assign_normwise`], [`Scalar::add_product`] or (norms)
//! [`Scalar::add_square`], whose
//! errors are bounded by the op bound times `|acc| + |term|` (Cray-style, as in Higham's
//! analysis of recursive summation: each term still meets at most `D` factors `(1 + δ)`,
//! so the `γ_D·Σ|t_i|` bounds hold). For `Qd` these are the sloppy quad-double steps, several
//! times cheaper than the IEEE-style `+` and `×` and within the same 3u
//! ([`qd::bounds::ADD_SLOPPY`](crate::qd::bounds::ADD_SLOPPY)); and in the blocked order `Qd`
//! sums each lane's (at most 16) terms, products or squares without renormalising between
//! them ([`Scalar::LANE_SUMS`]; error within [`qd::bounds::LANE_SUM`](crate::qd::bounds::LANE_SUM)`·u·Σ|t_i|`,
//! less than the 15 steps it replaces), handing a lane to the steps where that sum is not a
//! finite, non-zero, normalised number (special values, overflow, a lane that cancels to
//! about `2^-50` of its terms).
//!
//! Special values propagate as IEEE arithmetic does in the format: a NaN term gives NaN, `+∞`
//! and `−∞` together give NaN, a sum of `−0`s is `−0`. As in reference BLAS, `axpy` with
//! `α = 0` returns `y` untouched. RNS vectors must hold one basis: an element of another basis
//! is [`Error::BasisMismatch`], checked once per call.

use super::bounds::{Bounded, gamma, sum_error_bound, up};
use super::sum::{LANES, Reduction, Summation, by_lanes, reduce, step_rows};
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use crate::view::{VecMut, VecRef};

/// The context of a vector's data (that of its first element), every element checked
/// against it; `None` for an empty vector.
fn common_ctx<T: Scalar>(x: &VecRef<'_, T>) -> Result<Option<T::Ctx>> {
    let Some(first) = x.get(0) else {
        return Ok(None);
    };
    let ctx = first.ctx();
    for v in x.iter() {
        v.check_ctx(&ctx)?;
    }
    Ok(Some(ctx))
}

/// [`Error::LengthMismatch`] unless `got == expected`.
pub(crate) fn check_same_len(arg: &'static str, expected: usize, got: usize) -> Result<()> {
    if expected == got {
        Ok(())
    } else {
        Err(Error::LengthMismatch { arg, expected, got })
    }
}

/// The context of two vectors of the same length, every element of both checked against
/// the first element of `x`.
fn common_ctx2<T: Scalar>(x: &VecRef<'_, T>, y: &VecRef<'_, T>) -> Result<Option<T::Ctx>> {
    check_same_len("y", x.len(), y.len())?;
    let ctx = common_ctx(x)?;
    if let Some(c) = &ctx {
        for v in y.iter() {
            v.check_ctx(c)?;
        }
    }
    Ok(ctx)
}

/// `−0` in `ctx`: the identity every accumulator starts from.
pub(crate) fn neg_zero<T: Scalar>(ctx: &T::Ctx) -> T {
    T::zero_in(ctx).neg_ref()
}

/// An upper bound, as an `f64`, of a nonnegative value `s` of the format computed as a sum of
/// `n` terms in `order` (products if `products`): `s` rounded up, divided by `1 − γ`, plus the
/// underflow allowance. `+∞` beyond the `f64` range.
pub(crate) fn upper_f64<T: Scalar>(
    s: &T,
    ctx: &T::Ctx,
    order: Summation,
    n: usize,
    products: bool,
) -> f64 {
    let g = gamma(
        super::bounds::summation_depth(order, n) + usize::from(products),
        T::op_error_bound_in(ctx),
    );
    upper_f64_with(s, ctx, g, n)
}

/// [`upper_f64`] for a sum of `n` nonnegative terms computed with `|ŝ − s| ≤ g·s + 2nη`.
pub(crate) fn upper_f64_with<T: Scalar>(s: &T, ctx: &T::Ctx, g: f64, n: usize) -> f64 {
    // The leading word (or nearest f64) is within a relative 2^-52 of the value.
    let lead = s.nearest_f64().abs() * (1.0 + f64::EPSILON) + f64::from_bits(1);
    up((lead + 2.0 * n as f64 * T::underflow_error_in(ctx)) / (1.0 - g))
}

// ---- sum ---------------------------------------------------------------------------------------

/// [`Reduction::first_pass_lanes`] of a reduction over `T`: lane by lane, `lane(first, count)`
/// being the lane's accumulator from the format's [`Scalar::lane_sum`], [`Scalar::lane_dot`]
/// or [`Scalar::lane_squares`] (`None`: the lane is stepped), where the format has
/// [`Scalar::LANE_SUMS`]; else row by row with the reduction's `step_lanes`.
#[inline]
fn first_pass<T: Scalar, R: Reduction>(
    r: &R,
    lanes: &mut [R::Acc],
    start: usize,
    m: usize,
    lane: impl Fn(usize, usize) -> Option<R::Acc>,
) {
    if T::LANE_SUMS {
        by_lanes(lanes, start, m, lane, |acc, i| r.step(acc, i));
    } else {
        step_rows(lanes, start, m, |l, base| r.step_lanes(l, base));
    }
}

struct SumOf<'a, T>(VecRef<'a, T>, T);

impl<T: Scalar> Reduction for SumOf<'_, T> {
    type Acc = T;
    fn identity(&self) -> T {
        self.1.clone()
    }
    #[inline]
    fn step(&self, acc: &mut T, i: usize) {
        acc.add_assign_normwise(self.0.at(i));
    }
    #[inline]
    fn join(&self, a: &mut T, b: &T) {
        a.add_assign_normwise(b);
    }
    #[inline]
    fn first_pass_lanes(&self, lanes: &mut [T], start: usize, m: usize) {
        first_pass::<T, _>(self, lanes, start, m, |first, count| {
            T::lane_sum(count, |j| self.0.at(first + j * LANES).clone())
        });
    }
    #[inline]
    fn step_lanes(&self, lanes: &mut [T], base: usize) {
        match self.0.contiguous_range(base, lanes.len()) {
            Some(x) => T::add_lanes(lanes, x),
            None => {
                for (l, acc) in lanes.iter_mut().enumerate() {
                    self.step(acc, base + l);
                }
            }
        }
    }
    #[inline]
    fn join_lanes(&self, a: &mut [T], b: &[T]) {
        T::add_lanes(a, b);
    }
}

struct AbsSumOf<'a, T>(VecRef<'a, T>, T);

impl<T: Scalar> Reduction for AbsSumOf<'_, T> {
    type Acc = T;
    fn identity(&self) -> T {
        self.1.clone()
    }
    #[inline]
    fn step(&self, acc: &mut T, i: usize) {
        acc.add_assign_normwise(&self.0.at(i).abs_ref());
    }
    #[inline]
    fn join(&self, a: &mut T, b: &T) {
        a.add_assign_normwise(b);
    }
    #[inline]
    fn first_pass_lanes(&self, lanes: &mut [T], start: usize, m: usize) {
        first_pass::<T, _>(self, lanes, start, m, |first, count| {
            T::lane_sum(count, |j| self.0.at(first + j * LANES).abs_ref())
        });
    }
}

/// `Σ x_i` in the blocked order (reproducible, parallel; bound `γ_23` per pass of 4096).
/// `n = 0` gives `+0`.
///
/// # Errors
/// [`Error::BasisMismatch`] if RNS elements hold different bases.
pub fn sum<T: Scalar>(x: VecRef<'_, T>) -> Result<T> {
    sum_ordered(x, Summation::Blocked)
}

/// `Σ x_i` in the given order.
///
/// # Errors
/// As [`sum`].
pub fn sum_ordered<T: Scalar>(x: VecRef<'_, T>, order: Summation) -> Result<T> {
    let Some(ctx) = common_ctx(&x)? else {
        return Ok(T::zero_in(&T::ctx_for_empty()));
    };
    Ok(reduce(&SumOf(x, neg_zero(&ctx)), x.len(), order))
}

/// `Σ x_i` in the given order, with the bound `|ŝ − s| ≤ γ_D·Σ|x_i| + 2n·η`
/// ([`sum_error_bound`]).
///
/// # Errors
/// As [`sum`].
pub fn sum_bounded<T: Scalar>(x: VecRef<'_, T>, order: Summation) -> Result<Bounded<T>> {
    let Some(ctx) = common_ctx(&x)? else {
        return Ok(Bounded {
            value: T::zero_in(&T::ctx_for_empty()),
            error_bound: 0.0,
        });
    };
    let value = reduce(&SumOf(x, neg_zero(&ctx)), x.len(), order);
    // Σ|x_i| in the blocked order whatever `order` is: the GPU computes it the same way.
    let abs = reduce(&AbsSumOf(x, neg_zero(&ctx)), x.len(), Summation::Blocked);
    let error_bound = bound_from_abs_sum(&abs, &ctx, order, x.len(), false);
    Ok(Bounded { value, error_bound })
}

/// `Σ |x_i|` (BLAS `asum`, real vectors) in the blocked order; `n = 0` gives `+0`.
///
/// # Errors
/// As [`sum`].
pub fn asum<T: Scalar>(x: VecRef<'_, T>) -> Result<T> {
    Ok(asum_bounded(x)?.value)
}

/// [`asum`] with its bound `γ_D·Σ|x_i| + 2n·η` (the terms are nonnegative, so it is also
/// relative: `γ_D·ŝ/(1 − γ_D)`).
///
/// # Errors
/// As [`sum`].
pub fn asum_bounded<T: Scalar>(x: VecRef<'_, T>) -> Result<Bounded<T>> {
    let order = Summation::Blocked;
    let Some(ctx) = common_ctx(&x)? else {
        return Ok(Bounded {
            value: T::zero_in(&T::ctx_for_empty()),
            error_bound: 0.0,
        });
    };
    let value = reduce(&AbsSumOf(x, neg_zero(&ctx)), x.len(), order);
    let error_bound = bound_from_abs_sum(&value, &ctx, order, x.len(), false);
    Ok(Bounded { value, error_bound })
}

// ---- dot ---------------------------------------------------------------------------------------

pub(crate) struct DotOf<'a, T>(
    pub(crate) VecRef<'a, T>,
    pub(crate) VecRef<'a, T>,
    pub(crate) T,
);

impl<T: Scalar> Reduction for DotOf<'_, T> {
    type Acc = T;
    fn identity(&self) -> T {
        self.2.clone()
    }
    #[inline]
    fn step(&self, acc: &mut T, i: usize) {
        acc.add_product(self.0.at(i), self.1.at(i));
    }
    #[inline]
    fn join(&self, a: &mut T, b: &T) {
        a.add_assign_normwise(b);
    }
    #[inline]
    fn first_pass_lanes(&self, lanes: &mut [T], start: usize, m: usize) {
        first_pass::<T, _>(self, lanes, start, m, |first, count| {
            T::lane_dot(count, |j| {
                let i = first + j * LANES;
                (self.0.at(i).clone(), self.1.at(i).clone())
            })
        });
    }
    #[inline]
    fn step_lanes(&self, lanes: &mut [T], base: usize) {
        let n = lanes.len();
        match (
            self.0.contiguous_range(base, n),
            self.1.contiguous_range(base, n),
        ) {
            (Some(x), Some(y)) => T::add_product_lanes(lanes, x, y),
            _ => {
                for (l, acc) in lanes.iter_mut().enumerate() {
                    self.step(acc, base + l);
                }
            }
        }
    }
    #[inline]
    fn join_lanes(&self, a: &mut [T], b: &[T]) {
        T::add_lanes(a, b);
    }
}

pub(crate) struct AbsDotOf<'a, T>(
    pub(crate) VecRef<'a, T>,
    pub(crate) VecRef<'a, T>,
    pub(crate) T,
);

impl<T: Scalar> Reduction for AbsDotOf<'_, T> {
    type Acc = T;
    fn identity(&self) -> T {
        self.2.clone()
    }
    #[inline]
    fn step(&self, acc: &mut T, i: usize) {
        acc.add_product(&self.0.at(i).abs_ref(), &self.1.at(i).abs_ref());
    }
    #[inline]
    fn join(&self, a: &mut T, b: &T) {
        a.add_assign_normwise(b);
    }
    #[inline]
    fn first_pass_lanes(&self, lanes: &mut [T], start: usize, m: usize) {
        first_pass::<T, _>(self, lanes, start, m, |first, count| {
            T::lane_dot(count, |j| {
                let i = first + j * LANES;
                (self.0.at(i).abs_ref(), self.1.at(i).abs_ref())
            })
        });
    }
}

/// `Σ x_i·y_i` in the blocked order (each step `acc ← acc + x_i·y_i` as the format's
/// [`add_product`](Scalar::add_product): one rounding for `f64` (FMA) and RNS, `×` then `+`
/// for `Dd`, the sloppy fused step for `Qd`). `n = 0` gives `+0`.
///
/// # Errors
/// [`Error::LengthMismatch`] if `y` is not as long as `x`; [`Error::BasisMismatch`].
pub fn dot<T: Scalar>(x: VecRef<'_, T>, y: VecRef<'_, T>) -> Result<T> {
    dot_ordered(x, y, Summation::Blocked)
}

/// `Σ x_i·y_i` in the given order.
///
/// # Errors
/// As [`dot`].
pub fn dot_ordered<T: Scalar>(x: VecRef<'_, T>, y: VecRef<'_, T>, order: Summation) -> Result<T> {
    let Some(ctx) = common_ctx2(&x, &y)? else {
        return Ok(T::zero_in(&T::ctx_for_empty()));
    };
    Ok(reduce(&DotOf(x, y, neg_zero(&ctx)), x.len(), order))
}

/// `Σ x_i·y_i` with the bound `|d̂ − d| ≤ γ_{D+1}·Σ|x_i·y_i| + 2n·η`.
///
/// # Errors
/// As [`dot`].
pub fn dot_bounded<T: Scalar>(
    x: VecRef<'_, T>,
    y: VecRef<'_, T>,
    order: Summation,
) -> Result<Bounded<T>> {
    let Some(ctx) = common_ctx2(&x, &y)? else {
        return Ok(Bounded {
            value: T::zero_in(&T::ctx_for_empty()),
            error_bound: 0.0,
        });
    };
    let value = reduce(&DotOf(x, y, neg_zero(&ctx)), x.len(), order);
    let abs = reduce(&AbsDotOf(x, y, neg_zero(&ctx)), x.len(), Summation::Blocked);
    let error_bound = bound_from_abs_sum(&abs, &ctx, order, x.len(), true);
    Ok(Bounded { value, error_bound })
}

// ---- nrm2 --------------------------------------------------------------------------------------

/// Blue's thresholds and scalings (LAPACK 3.10 `dnrm2`, Anderson 2017), as powers of two
/// derived from the format's range: `|x| < tsml` is summed scaled up by `ssml`, `|x| > tbig`
/// scaled down by `sbig`, the rest unscaled, so that no square overflows or loses precision
/// to underflow. `None` for a format whose range holds every square of an `f64`-range value
/// (RNS): it sums plain squares.
pub(crate) struct Blue<T> {
    pub(crate) tsml: f64,
    pub(crate) tbig: f64,
    pub(crate) ssml: T,
    pub(crate) sbig: T,
}

pub(crate) fn blue<T: Scalar>(ctx: &T::Ctx) -> Option<Blue<T>> {
    let max = T::max_finite_in(ctx).nearest_f64();
    if max.is_infinite() {
        return None;
    }
    // The format keeps its full precision down to min_positive: squares of |x| ≥ tsml do.
    let emin = T::min_positive_in(ctx).nearest_f64().log2().ceil() as i32;
    let tsml_e = (emin + 1).div_euclid(2) + (emin + 1).rem_euclid(2);
    let p2 = |e: i32| crate::eft::ldexp(1.0, e);
    Some(Blue {
        tsml: p2(tsml_e),
        // LAPACK's 2^⌊(emax − digits + 1)/2⌋ = 2^486 leaves 2^53 of room for the sum.
        tbig: p2(486),
        ssml: T::from_f64_in(ctx, p2(537)),
        sbig: T::from_f64_in(ctx, p2(-538)),
    })
}

/// The three accumulators of Blue's algorithm: small, medium and big squares.
#[derive(Clone)]
pub(crate) struct Nrm2Acc<T> {
    pub(crate) sml: T,
    pub(crate) med: T,
    pub(crate) big: T,
}

struct Nrm2Of<'a, T> {
    x: VecRef<'a, T>,
    zero: T,
    blue: Option<Blue<T>>,
}

impl<T: Scalar> Reduction for Nrm2Of<'_, T> {
    type Acc = Nrm2Acc<T>;
    fn identity(&self) -> Nrm2Acc<T> {
        Nrm2Acc {
            sml: self.zero.clone(),
            med: self.zero.clone(),
            big: self.zero.clone(),
        }
    }
    #[inline]
    fn step(&self, acc: &mut Nrm2Acc<T>, i: usize) {
        match self.blue_term(i) {
            BlueTerm::Small(s) => acc.sml.add_square(&s),
            BlueTerm::Medium(ax) => acc.med.add_square(&ax),
            BlueTerm::Big(s) => acc.big.add_square(&s),
        }
    }
    /// With lane sums ([`Scalar::LANE_SUMS`]): a lane whose terms are all medium (nearly
    /// always) sums their squares by [`Scalar::lane_squares`]; any other lane, or one whose
    /// lane sum has no value, is stepped.
    #[inline]
    fn first_pass_lanes(&self, lanes: &mut [Nrm2Acc<T>], start: usize, m: usize) {
        first_pass::<T, _>(self, lanes, start, m, |first, count| {
            let at = |j: usize| first + j * LANES;
            if !(0..count).all(|j| matches!(self.blue_term(at(j)), BlueTerm::Medium(_))) {
                return None;
            }
            let med = T::lane_squares(count, |j| self.x.at(at(j)).abs_ref())?;
            Some(Nrm2Acc {
                med,
                ..self.identity()
            })
        });
    }
    #[inline]
    fn join(&self, a: &mut Nrm2Acc<T>, b: &Nrm2Acc<T>) {
        join_unless_empty(&mut a.sml, &b.sml);
        join_unless_empty(&mut a.med, &b.med);
        join_unless_empty(&mut a.big, &b.big);
    }
}

/// Where Blue's algorithm puts `x_i²`: the small or big accumulator (with `|x_i|` scaled) or
/// the medium one.
enum BlueTerm<T> {
    Small(T),
    Medium(T),
    Big(T),
}

impl<T: Scalar> Nrm2Of<'_, T> {
    /// The accumulator and value of term `i` (NaN goes to the medium one and propagates).
    #[inline]
    fn blue_term(&self, i: usize) -> BlueTerm<T> {
        let ax = self.x.at(i).abs_ref();
        let Some(b) = &self.blue else {
            return BlueTerm::Medium(ax);
        };
        let lead = ax.nearest_f64();
        if lead > b.tbig {
            BlueTerm::Big(ax.mul_ref(&b.sbig))
        } else if lead < b.tsml {
            BlueTerm::Small(ax.mul_ref(&b.ssml))
        } else {
            BlueTerm::Medium(ax)
        }
    }
}

/// `a ← a ⊕ b` unless `b` is `−0`, the empty accumulator, where `a + (−0) = a` exactly (IEEE
/// and every format): usually two of Blue's three accumulators are empty, and joining them in
/// the lanes' tree took the slow path of the `Qd` addition (skipping them took the GPU
/// kernel from 345 to 309 instructions per element and from 591 to 468 µs at n = 2^24 on an
/// H100). The GPU's join makes the same test (`blas_level1_gpu.cu`).
#[inline]
fn join_unless_empty<T: Scalar>(a: &mut T, b: &T) {
    let empty = b.class() == std::num::FpCategory::Zero && b.nearest_f64().is_sign_negative();
    if !empty {
        a.add_assign_normwise(b);
    }
}

/// The Euclidean norm `√(Σ x_i²)` without overflow or harmful underflow for any finite input
/// (Blue's three accumulators, as LAPACK 3.10's `dnrm2`), in the blocked order. `n = 0`
/// gives `+0`; a NaN gives NaN, else an infinity gives `+∞`.
///
/// # Errors
/// As [`sum`].
pub fn nrm2<T: Scalar>(x: VecRef<'_, T>) -> Result<T> {
    Ok(nrm2_bounded(x)?.value)
}

/// [`nrm2`] with its bound, relative to the result: `|r̂ − r| ≤ γ_{D+10}·r̂` plus the
/// underflow allowance (the sum of squares has `γ_{D+1}`, halved by the root; the root and the
/// final combination of the accumulators take at most 8 more operations).
///
/// # Errors
/// As [`sum`].
pub fn nrm2_bounded<T: Scalar>(x: VecRef<'_, T>) -> Result<Bounded<T>> {
    let Some(ctx) = common_ctx(&x)? else {
        return Ok(Bounded {
            value: T::zero_in(&T::ctx_for_empty()),
            error_bound: 0.0,
        });
    };
    let zero: T = neg_zero(&ctx);
    let r = Nrm2Of {
        x,
        zero: zero.clone(),
        blue: blue::<T>(&ctx),
    };
    let acc = reduce(&r, x.len(), Summation::Blocked);
    let value = blue_finish(&acc, r.blue.as_ref(), &ctx).abs_ref();
    let error_bound = nrm2_bound(&value, &ctx, x.len());
    Ok(Bounded { value, error_bound })
}

/// The bound of [`nrm2_bounded`] for a computed norm `value` of `n` elements (shared with the
/// GPU routine): `+∞` for a non-finite norm (a NaN or ∞ element, where no bound holds).
pub(crate) fn nrm2_bound<T: Scalar>(value: &T, ctx: &T::Ctx, n: usize) -> f64 {
    let lead = value.nearest_f64();
    if !lead.is_finite() {
        return f64::INFINITY;
    }
    let depth = super::bounds::summation_depth(Summation::Blocked, n) + 10;
    let g = gamma(depth, T::op_error_bound_in(ctx));
    // γ times the result first: `r̂·(1 + 2^-52)` alone overflows for `r̂` near the top of
    // the range.
    let rel = g * lead * (1.0 + f64::EPSILON) / (1.0 - g);
    // Squares below tsml² are dropped only when big ones exist, and then `r ≥ tbig`
    // (an absolute allowance for every result would swamp the bound of a tiny norm).
    let dropped = match blue::<T>(ctx) {
        Some(b) if lead >= 0.5 * b.tbig => n as f64 * crate::eft::ldexp(1.0, -1000),
        _ => 0.0,
    };
    // Below the normal range `rel` rounds down, or to 0 (an RNS norm under 2^-1074): two
    // smallest subnormals cover its three roundings there.
    let tiny = if value.class() == std::num::FpCategory::Zero {
        0.0
    } else {
        f64::from_bits(2)
    };
    up(rel + dropped + tiny + 2.0 * n as f64 * T::underflow_error_in(ctx))
}

/// The bound of a sum or dot product of `n` terms in `order` from `abs`, the sum of the
/// terms' magnitudes computed in the format in the blocked order (CPU and GPU compute it the
/// same way, so they return the same bound): `+∞` if `abs` is not finite (a NaN or ∞ input,
/// where no bound holds, or an overflow).
pub(crate) fn bound_from_abs_sum<T: Scalar>(
    abs: &T,
    ctx: &T::Ctx,
    order: Summation,
    n: usize,
    products: bool,
) -> f64 {
    if !abs.nearest_f64().is_finite() {
        return f64::INFINITY;
    }
    let abs_up = upper_f64(abs, ctx, Summation::Blocked, n, products);
    sum_error_bound(
        order,
        n,
        products,
        abs_up,
        T::op_error_bound_in(ctx),
        T::underflow_error_in(ctx),
    )
}

/// LAPACK 3.10 `dnrm2`'s combination of the three accumulators.
pub(crate) fn blue_finish<T: Scalar>(acc: &Nrm2Acc<T>, blue: Option<&Blue<T>>, ctx: &T::Ctx) -> T {
    let Some(b) = blue else {
        return acc.med.sqrt_ref();
    };
    let positive_or_nan = |v: &T| {
        let f = v.nearest_f64();
        f > 0.0 || f.is_nan()
    };
    // Squares are nonnegative, so `big` is never NaN (NaN elements go to `med`).
    if acc.big.nearest_f64() > 0.0 {
        // Big squares exist: fold the medium ones in at the big scale, drop the small ones.
        let mut big = acc.big.clone();
        if positive_or_nan(&acc.med) {
            let m = acc.med.mul_ref(&b.sbig).mul_ref(&b.sbig);
            big.add_assign_ref(&m);
        }
        return big.sqrt_ref().div_ref(&b.sbig);
    }
    if acc.sml.nearest_f64() > 0.0 {
        if positive_or_nan(&acc.med) {
            let med = acc.med.sqrt_ref();
            let sml = acc.sml.sqrt_ref().div_ref(&b.ssml);
            let (ymin, ymax) = if sml.nearest_f64() > med.nearest_f64() {
                (med, sml)
            } else {
                (sml, med)
            };
            let q = ymin.div_ref(&ymax);
            let one = T::one_in(ctx);
            return ymax.mul_ref(&one.add_ref(&q.mul_ref(&q)).sqrt_ref());
        }
        return acc.sml.sqrt_ref().div_ref(&b.ssml);
    }
    acc.med.sqrt_ref()
}

// ---- iamax -------------------------------------------------------------------------------------

/// The index (0-based) of the first element of largest magnitude, or of the first NaN if there
/// is one (so a NaN is never hidden); `None` for `n = 0`. Exact, and the same for any thread
/// count (ties go to the smallest index). BLAS's 1-based `i?amax` is [`iamax_blas`].
///
/// # Errors
/// As [`sum`].
pub fn iamax<T: Scalar>(x: VecRef<'_, T>) -> Result<Option<usize>> {
    common_ctx(&x)?;
    let mut best: Option<(usize, T)> = None;
    for (i, v) in x.iter().enumerate() {
        if v.class() == std::num::FpCategory::Nan {
            return Ok(Some(i));
        }
        let a = v.abs_ref();
        match &best {
            Some((_, b)) if a <= *b => {}
            _ => best = Some((i, a)),
        }
    }
    Ok(best.map(|(i, _)| i))
}

/// BLAS `i?amax`: 1-based, 0 for `n = 0`.
///
/// # Errors
/// As [`VecRef::from_blas`] and [`iamax`].
pub fn iamax_blas<T: Scalar>(n: usize, x: &[T], incx: isize) -> Result<usize> {
    if incx <= 0 {
        // Reference BLAS returns 0 for incx ≤ 0.
        return Ok(0);
    }
    Ok(iamax(VecRef::from_blas("x", n, x, incx)?)?.map_or(0, |i| i + 1))
}

// ---- element-wise ------------------------------------------------------------------------------

/// The componentwise relative bound of the element-wise routines: `y_i ← α·x_i + y_i` has
/// `|ŷ_i − y_i| ≤ γ_2·(|α·x_i| + |y_i|)` (`γ_1` where the format fuses, `f64` and RNS).
pub fn axpy_error_factor<T: Scalar>(ctx: &T::Ctx) -> f64 {
    gamma(2, T::op_error_bound_in(ctx))
}

/// `y ← α·x + y` (BLAS `axpy`), each element as the format's
/// [`add_product`](Scalar::add_product). `α = 0` leaves `y` untouched, as reference BLAS.
/// Bound per element: [`axpy_error_factor`]`·(|α·x_i| + |y_i|)`.
///
/// # Errors
/// [`Error::LengthMismatch`], [`Error::BasisMismatch`] (for `α` too).
pub fn axpy<T: Scalar>(alpha: &T, x: VecRef<'_, T>, mut y: VecMut<'_, T>) -> Result<()> {
    let Some(ctx) = common_ctx2(&x, &y.rb())? else {
        return Ok(());
    };
    alpha.check_ctx(&ctx)?;
    if alpha.class() == std::num::FpCategory::Zero {
        return Ok(());
    }
    for i in 0..x.len() {
        y.at_mut(i).add_product(alpha, x.at(i));
    }
    Ok(())
}

/// `x ← α·x` (BLAS `scal`): relative error at most the format's `×` bound per element.
/// `α = 0` multiplies too (a NaN or ∞ element gives NaN), as IEEE.
///
/// # Errors
/// [`Error::BasisMismatch`].
pub fn scal<T: Scalar>(alpha: &T, mut x: VecMut<'_, T>) -> Result<()> {
    let Some(ctx) = common_ctx(&x.rb())? else {
        return Ok(());
    };
    alpha.check_ctx(&ctx)?;
    for i in 0..x.len() {
        let v = alpha.mul_ref(x.at_mut(i));
        *x.at_mut(i) = v;
    }
    Ok(())
}

/// The plane rotation (BLAS `rot`): `x_i ← c·x_i + s·y_i`, `y_i ← c·y_i − s·x_i`, each as
/// `(c·x_i) + (s·y_i)` with the format's `×` and `+`. Bound per element:
/// `γ_2·(|c·x_i| + |s·y_i|)`.
///
/// # Errors
/// [`Error::LengthMismatch`], [`Error::BasisMismatch`].
pub fn rot<T: Scalar>(mut x: VecMut<'_, T>, mut y: VecMut<'_, T>, c: &T, s: &T) -> Result<()> {
    let Some(ctx) = common_ctx2(&x.rb(), &y.rb())? else {
        return Ok(());
    };
    c.check_ctx(&ctx)?;
    s.check_ctx(&ctx)?;
    for i in 0..x.len() {
        let (xi, yi) = (x.at_mut(i).clone(), y.at_mut(i).clone());
        *x.at_mut(i) = c.mul_ref(&xi).add_ref(&s.mul_ref(&yi));
        *y.at_mut(i) = c.mul_ref(&yi).sub_ref(&s.mul_ref(&xi));
    }
    Ok(())
}

// ---- BLAS-style entries ------------------------------------------------------------------------

/// `dot` with BLAS arguments: `n`, `x`, `incx`, `y`, `incy` (negative increments start at the
/// end, as reference BLAS).
///
/// # Errors
/// [`Error::InvalidView`] for a zero increment, [`Error::ArrayTooShort`], and as [`dot`].
pub fn dot_blas<T: Scalar>(n: usize, x: &[T], incx: isize, y: &[T], incy: isize) -> Result<T> {
    dot(
        VecRef::from_blas("x", n, x, incx)?,
        VecRef::from_blas("y", n, y, incy)?,
    )
}

/// `axpy` with BLAS arguments.
///
/// # Errors
/// As [`dot_blas`] and [`axpy`].
pub fn axpy_blas<T: Scalar>(
    n: usize,
    alpha: &T,
    x: &[T],
    incx: isize,
    y: &mut [T],
    incy: isize,
) -> Result<()> {
    axpy(
        alpha,
        VecRef::from_blas("x", n, x, incx)?,
        VecMut::from_blas("y", n, y, incy)?,
    )
}

/// `nrm2` with BLAS arguments.
///
/// # Errors
/// As [`dot_blas`].
pub fn nrm2_blas<T: Scalar>(n: usize, x: &[T], incx: isize) -> Result<T> {
    nrm2(VecRef::from_blas("x", n, x, incx)?)
}

/// `asum` with BLAS arguments.
///
/// # Errors
/// As [`dot_blas`].
pub fn asum_blas<T: Scalar>(n: usize, x: &[T], incx: isize) -> Result<T> {
    asum(VecRef::from_blas("x", n, x, incx)?)
}

/// `scal` with BLAS arguments.
///
/// # Errors
/// As [`dot_blas`].
pub fn scal_blas<T: Scalar>(n: usize, alpha: &T, x: &mut [T], incx: isize) -> Result<()> {
    scal(alpha, VecMut::from_blas("x", n, x, incx)?)
}
