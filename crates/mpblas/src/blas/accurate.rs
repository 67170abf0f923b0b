//! Accurate sums and dot products of `f64` vectors, for users who keep their data in `f64`:
//!
//! - [`sum2`], [`dot2`]: compensated (Ogita, Rump, Oishi, "Accurate sum and dot product",
//!   SIAM J. Sci. Comput. 26(6), 2005, Algorithms 4.4 Sum2 and 5.3 Dot2), the result as if
//!   computed in twice the working precision and then rounded: `|r̂ − s| ≤ u·|r̂| +
//!   γ_{D+2}²·Σ|t_i|` (ORO Proposition 4.5 and Theorem 5.3 with the tree depth `D` in place of
//!   `n`). Evaluated as pairs `(p, σ)` along the blocked order of [`Summation`], so reproducible
//!   and parallel; a pair joins another by TwoSum of the `p`s and plain addition of the `σ`s.
//! - [`sum_correctly_rounded`], [`dot_correctly_rounded`]: the exact sum (of the exact products)
//!   rounded once to nearest: the `f64` nearest to the true value, whatever the cancellation and
//!   the spread of exponents. Each task keeps floating-point expansions fed by TwoSum (and
//!   TwoProd) cascades and spills what they cannot hold exactly into a long fixed-point
//!   accumulator ([`ExactDot`]), as the GPU kernels do; accumulators filled in parallel merge
//!   exactly, so the bits never depend on the thread count (or the device).
//!   [`sum_correctly_rounded_to`] and [`dot_correctly_rounded_to`] round the same exact value
//!   once to an RNS precision of any width instead.
//!
//! Special values: a NaN term (or `∞·0`, or `+∞` and `−∞` together) gives NaN, else an infinite
//! term gives that infinity; an exact zero is `+0` unless every term is `−0`. In [`sum2`] and
//! [`dot2`], as in recursive `f64` summation, an intermediate overflow gives `±∞`; the correctly
//! rounded forms overflow only when the exact result does.

use super::bounds::{Bounded, gamma, summation_depth, up};
use super::level1::check_same_len;
use super::sum::{Reduction, Summation, reduce};
use crate::eft::{two_prod, two_sum};
use crate::error::Result;
use crate::exact::ExactDot;
use crate::rns::{Basis, MpFloat};
use crate::view::VecRef;
use rayon::prelude::*;
use std::sync::Arc;

const U: f64 = f64::EPSILON / 2.0;

/// The compensated pair `(p, σ)`: `p` the running sum, `σ` the sum of its rounding errors.
#[derive(Clone, Copy)]
pub(crate) struct Pair {
    pub(crate) p: f64,
    pub(crate) sigma: f64,
}

impl Pair {
    const IDENTITY: Pair = Pair {
        p: -0.0,
        sigma: -0.0,
    };

    #[inline]
    fn join(&mut self, b: &Pair) {
        let (p, q) = two_sum(self.p, b.p);
        self.p = p;
        self.sigma = (self.sigma + b.sigma) + q;
    }

    /// `p + σ`, keeping `p` when there is nothing to add (a `−0` sum, an infinity whose
    /// TwoSum error is NaN).
    pub(crate) fn finish(self) -> f64 {
        if !self.p.is_finite() || self.sigma == 0.0 {
            self.p
        } else {
            self.p + self.sigma
        }
    }
}

struct Sum2<'a>(VecRef<'a, f64>);

impl Reduction for Sum2<'_> {
    type Acc = Pair;
    fn identity(&self) -> Pair {
        Pair::IDENTITY
    }
    #[inline]
    fn step(&self, acc: &mut Pair, i: usize) {
        let (p, q) = two_sum(acc.p, *self.0.at(i));
        acc.p = p;
        acc.sigma += q;
    }
    #[inline]
    fn join(&self, a: &mut Pair, b: &Pair) {
        a.join(b);
    }
}

struct Dot2<'a>(VecRef<'a, f64>, VecRef<'a, f64>);

impl Reduction for Dot2<'_> {
    type Acc = Pair;
    fn identity(&self) -> Pair {
        Pair::IDENTITY
    }
    #[inline]
    fn step(&self, acc: &mut Pair, i: usize) {
        let (h, r) = two_prod(*self.0.at(i), *self.1.at(i));
        let (p, q) = two_sum(acc.p, h);
        acc.p = p;
        acc.sigma += q + r;
    }
    #[inline]
    fn join(&self, a: &mut Pair, b: &Pair) {
        a.join(b);
    }
}

/// `Σ|x_i·y_i|` (or `Σ|x_i|` without `y`) rounded up, in `f64`, for the bounds.
fn abs_sum_up(x: VecRef<'_, f64>, y: Option<VecRef<'_, f64>>) -> f64 {
    let n = x.len();
    let s: f64 = match y {
        Some(y) => (0..n).map(|i| (x.at(i) * y.at(i)).abs()).sum(),
        None => x.iter().map(|v| v.abs()).sum(),
    };
    let g = gamma(n + 1, U);
    up((s + n as f64 * f64::from_bits(1)) / (1.0 - g))
}

fn compensated_bound(value: f64, n: usize, abs_sum: f64) -> f64 {
    if !value.is_finite() || !abs_sum.is_finite() {
        return f64::INFINITY;
    }
    let g = gamma(summation_depth(Summation::Blocked, n) + 2, U);
    // Underflow: each TwoProd error below the subnormal range is lost (≤ 2^-1075 per term).
    up((U * value.abs() + g * g * abs_sum) / (1.0 - U) + n as f64 * f64::from_bits(1))
}

/// `Σ x_i` as if in twice the working precision (ORO Sum2; see the [module docs](self)).
///
/// # Errors
/// None today; `Result` keeps the signature of the other sums.
pub fn sum2(x: VecRef<'_, f64>) -> Result<f64> {
    if x.is_empty() {
        return Ok(0.0);
    }
    Ok(reduce(&Sum2(x), x.len(), Summation::Blocked).finish())
}

/// [`sum2`] with its bound `u·|r̂| + γ_{D+2}²·Σ|x_i|`.
///
/// # Errors
/// As [`sum2`].
pub fn sum2_bounded(x: VecRef<'_, f64>) -> Result<Bounded<f64>> {
    let value = sum2(x)?;
    let error_bound = compensated_bound(value, x.len(), abs_sum_up(x, None));
    Ok(Bounded { value, error_bound })
}

/// `Σ x_i·y_i` as if in twice the working precision (ORO Dot2).
///
/// # Errors
/// [`Error::LengthMismatch`](crate::Error::LengthMismatch).
pub fn dot2(x: VecRef<'_, f64>, y: VecRef<'_, f64>) -> Result<f64> {
    check_same_len("y", x.len(), y.len())?;
    if x.is_empty() {
        return Ok(0.0);
    }
    Ok(reduce(&Dot2(x, y), x.len(), Summation::Blocked).finish())
}

/// [`dot2`] with its bound `u·|r̂| + γ_{D+2}²·Σ|x_i·y_i|` (plus `2^-1074` per term for products
/// below the subnormal range, whose errors are not representable).
///
/// # Errors
/// As [`dot2`].
pub fn dot2_bounded(x: VecRef<'_, f64>, y: VecRef<'_, f64>) -> Result<Bounded<f64>> {
    let value = dot2(x, y)?;
    let error_bound = compensated_bound(value, x.len(), abs_sum_up(x, Some(y)));
    Ok(Bounded { value, error_bound })
}

/// What IEEE arithmetic makes of the non-finite and zero terms, kept beside the exact sum.
#[derive(Clone, Copy, Default)]
pub(crate) struct Specials {
    nan: bool,
    pos_inf: bool,
    neg_inf: bool,
    /// Some term is not `−0`.
    not_all_neg_zero: bool,
}

impl Specials {
    /// The term `a·b` as the real product, not IEEE's: only NaN, `∞·0` and infinite factors
    /// are special (a finite product that IEEE would overflow is exact in the accumulator).
    fn term(&mut self, a: f64, b: f64) {
        let neg = a.is_sign_negative() != b.is_sign_negative();
        if a.is_nan() || b.is_nan() {
            self.nan = true;
        } else if a.is_infinite() || b.is_infinite() {
            if a == 0.0 || b == 0.0 {
                self.nan = true;
            } else if neg {
                self.neg_inf = true;
            } else {
                self.pos_inf = true;
            }
        }
        if !((a == 0.0 || b == 0.0) && neg) {
            self.not_all_neg_zero = true;
        }
    }

    fn join(&mut self, o: &Specials) {
        self.nan |= o.nan;
        self.pos_inf |= o.pos_inf;
        self.neg_inf |= o.neg_inf;
        self.not_all_neg_zero |= o.not_all_neg_zero;
    }

    /// The flags as the GPU kernels keep them (`EXACT_NAN`, … of `blas_exact_gpu.cu`).
    pub(crate) fn from_flags(flags: i64) -> Specials {
        Specials {
            nan: flags & 1 != 0,
            pos_inf: flags & 2 != 0,
            neg_inf: flags & 4 != 0,
            not_all_neg_zero: flags & 8 != 0,
        }
    }

    /// The result at the precision of `basis`: as [`Specials::finish`], the exact sum rounded
    /// once to `basis`.
    pub(crate) fn finish_mp(&self, exact: &ExactDot, n: usize, basis: &Arc<Basis>) -> MpFloat {
        if self.nan || (self.pos_inf && self.neg_inf) {
            return MpFloat::nan(basis);
        }
        if self.pos_inf || self.neg_inf {
            return MpFloat::infinity(basis, self.neg_inf);
        }
        let v = exact.to_mpfloat(basis);
        if v.is_zero() {
            return MpFloat::zero(basis, n > 0 && !self.not_all_neg_zero);
        }
        v
    }

    /// The result: the special value if any, else the rounded exact sum with IEEE's zero sign.
    fn finish(&self, exact: &ExactDot, n: usize) -> f64 {
        if self.nan || (self.pos_inf && self.neg_inf) {
            return f64::NAN;
        }
        if self.pos_inf {
            return f64::INFINITY;
        }
        if self.neg_inf {
            return f64::NEG_INFINITY;
        }
        let v = exact.to_f64();
        if v == 0.0 && n > 0 && !self.not_all_neg_zero {
            return -0.0;
        }
        v
    }
}

/// Terms per parallel task of the correctly rounded routines (a task's partial sums of terms
/// below 2^990 stay below 2^1004: no word of its expansion overflows).
const EXACT_CHUNK: usize = 1 << 14;

/// Sum terms of magnitude below this go through the expansion (as `EXACT_SUM_FAST_MAX` of
/// `blas_exact_gpu.cu`).
const FAST_MAX: f64 = f64::from_bits((990 + 1023) << 52);
/// Products of magnitude in `[FAST_PROD_MIN, FAST_MAX)` go through the expansion by TwoProd
/// (their error word neither under- nor overflows).
const FAST_PROD_MIN: f64 = f64::from_bits((1023 - 968) << 52);

/// Four independent floating-point expansions of three words fed by TwoSum cascades, with
/// what falls out of the last word (and every term they cannot take exactly) added to a long
/// accumulator: the method of the GPU kernels (Collange, Defour, Graillat, Iakymchuk 2015).
/// Exact as a whole; random data almost never spills, so a term costs a dozen flops instead of
/// the accumulator's digit arithmetic. Four expansions (term `i` to expansion `i mod 4`)
/// interleave their dependency chains.
struct Expansions {
    s: [[f64; 3]; 4],
    exact: ExactDot,
    specials: Specials,
}

impl Expansions {
    fn new() -> Self {
        Expansions {
            s: [[0.0; 3]; 4],
            exact: ExactDot::new(),
            specials: Specials::default(),
        }
    }

    /// `t` into words `from..3` of expansion `k`, spilling the last error.
    #[inline(always)]
    fn cascade(&mut self, k: usize, from: usize, t: f64) {
        let w = &mut self.s[k];
        let mut e = t;
        for word in w.iter_mut().skip(from) {
            let (s, err) = two_sum(*word, e);
            *word = s;
            e = err;
        }
        if e != 0.0 {
            self.exact.add(e);
        }
    }

    /// A sum term (as `exact_sum_term` of the kernels).
    #[inline(always)]
    fn sum_term(&mut self, k: usize, x: f64) {
        if x.abs() < FAST_MAX {
            self.cascade(k, 0, x);
            if x.to_bits() != (-0.0f64).to_bits() {
                self.specials.not_all_neg_zero = true;
            }
        } else {
            self.specials.term(x, 1.0);
            self.exact.add(x);
        }
    }

    /// A dot term `a·b` (as `exact_dot_term` of the kernels).
    #[inline(always)]
    fn dot_term(&mut self, k: usize, a: f64, b: f64) {
        let h = a * b;
        if (FAST_PROD_MIN..FAST_MAX).contains(&h.abs()) {
            let (h, r) = two_prod(a, b);
            self.cascade(k, 0, h);
            self.cascade(k, 1, r);
            self.specials.not_all_neg_zero = true;
        } else {
            self.specials.term(a, b);
            self.exact.add_product(a, b);
        }
    }

    /// The exact accumulator with the expansions' words added, and the specials.
    fn finish(mut self) -> (ExactDot, Specials) {
        for w in self.s {
            for x in w {
                self.exact.add(x);
            }
        }
        (self.exact, self.specials)
    }
}

/// Accumulates term `i < n` with `step(expansions, lane, i)` in parallel tasks of
/// [`EXACT_CHUNK`] terms, merged exactly.
fn exact_reduce(
    n: usize,
    step: impl Fn(&mut Expansions, usize, usize) + Sync,
) -> (ExactDot, Specials) {
    let task = |c: usize| {
        let mut acc = Expansions::new();
        let end = ((c + 1) * EXACT_CHUNK).min(n);
        let mut i = c * EXACT_CHUNK;
        while i + 4 <= end {
            for k in 0..4 {
                step(&mut acc, k, i + k);
            }
            i += 4;
        }
        for (k, i) in (i..end).enumerate() {
            step(&mut acc, k, i);
        }
        acc.finish()
    };
    let parts: Vec<(ExactDot, Specials)> = (0..n.div_ceil(EXACT_CHUNK))
        .into_par_iter()
        .map(|c| crate::eft::with_fma(|| task(c)))
        .collect();
    let mut acc = ExactDot::new();
    let mut sp = Specials::default();
    for (a, s) in &parts {
        acc.merge(a);
        sp.join(s);
    }
    (acc, sp)
}

/// The exact sum of `x` (see [`exact_reduce`]).
fn exact_sum(x: VecRef<'_, f64>) -> (ExactDot, Specials) {
    exact_reduce(x.len(), |e, k, i| e.sum_term(k, *x.at(i)))
}

/// The exact dot product of `x` and `y` (equal lengths).
fn exact_dot(x: VecRef<'_, f64>, y: VecRef<'_, f64>) -> (ExactDot, Specials) {
    exact_reduce(x.len(), |e, k, i| e.dot_term(k, *x.at(i), *y.at(i)))
}

/// `Σ x_i` correctly rounded to nearest (see the [module docs](self)); the same bits for any
/// order and thread count.
///
/// # Errors
/// None today; `Result` keeps the signature of the other sums.
pub fn sum_correctly_rounded(x: VecRef<'_, f64>) -> Result<f64> {
    let (acc, sp) = exact_sum(x);
    Ok(sp.finish(&acc, x.len()))
}

/// `Σ x_i·y_i` with the exact products summed exactly and rounded once to nearest.
///
/// # Errors
/// [`Error::LengthMismatch`](crate::Error::LengthMismatch).
pub fn dot_correctly_rounded(x: VecRef<'_, f64>, y: VecRef<'_, f64>) -> Result<f64> {
    check_same_len("y", x.len(), y.len())?;
    let (acc, sp) = exact_dot(x, y);
    Ok(sp.finish(&acc, x.len()))
}

/// `Σ x_i` of `f64`s summed exactly and rounded once to the precision of `basis` (nearest,
/// ties to even): an RNS number at any precision, with the special values and zero signs of
/// [`sum_correctly_rounded`]. At 53 bits it is that routine's value; wider, it keeps the bits
/// an `f64` result loses.
///
/// # Errors
/// None today; `Result` keeps the signature of the other sums.
pub fn sum_correctly_rounded_to(basis: &Arc<Basis>, x: VecRef<'_, f64>) -> Result<MpFloat> {
    let (acc, sp) = exact_sum(x);
    Ok(sp.finish_mp(&acc, x.len(), basis))
}

/// `Σ x_i·y_i` of `f64`s with the exact products summed exactly and rounded once to the
/// precision of `basis` (as [`sum_correctly_rounded_to`]).
///
/// # Errors
/// [`Error::LengthMismatch`](crate::Error::LengthMismatch).
pub fn dot_correctly_rounded_to(
    basis: &Arc<Basis>,
    x: VecRef<'_, f64>,
    y: VecRef<'_, f64>,
) -> Result<MpFloat> {
    check_same_len("y", x.len(), y.len())?;
    let (acc, sp) = exact_dot(x, y);
    Ok(sp.finish_mp(&acc, x.len(), basis))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_path_limits_are_the_kernels() {
        assert_eq!(FAST_MAX, crate::eft::ldexp(1.0, 990));
        assert_eq!(FAST_PROD_MIN, crate::eft::ldexp(1.0, -968));
        let src = include_str!("blas_exact_gpu.cu");
        assert!(src.contains("#define EXACT_SUM_FAST_MAX 0x1p990"));
        assert!(src.contains("#define EXACT_PROD_FAST_MIN 0x1p-968"));
    }

    #[test]
    fn the_papers_hard_sums() {
        let mut s1 = vec![10.0; 2047];
        s1.extend([1e-18, 1e-18]);
        s1.extend(vec![-10.0; 2047]);
        let x = VecRef::contiguous(&s1);
        assert_eq!(sum_correctly_rounded(x).unwrap(), 2e-18);
        assert_eq!(sum2(x).unwrap(), 2e-18);
        let mut s2 = vec![1.0];
        s2.extend(vec![1e-16; 1_000_000]);
        let exact = sum_correctly_rounded(VecRef::contiguous(&s2)).unwrap();
        assert_eq!(exact, 1.0000000001);
        assert_eq!(sum2(VecRef::contiguous(&s2)).unwrap(), exact);
    }

    #[test]
    fn specials_follow_ieee() {
        let c = |v: &[f64]| sum_correctly_rounded(VecRef::contiguous(v)).unwrap();
        assert!(c(&[1.0, f64::NAN]).is_nan());
        assert!(c(&[f64::INFINITY, f64::NEG_INFINITY]).is_nan());
        assert_eq!(c(&[f64::INFINITY, -1e308]), f64::INFINITY);
        assert!(c(&[-0.0, -0.0]).is_sign_negative());
        assert!(c(&[-0.0, 0.0]).is_sign_positive());
        assert!(c(&[1.0, -1.0]).is_sign_positive());
        assert_eq!(c(&[f64::MAX, f64::MAX, -f64::MAX]), f64::MAX);
        assert_eq!(c(&[f64::MAX, f64::MAX]), f64::INFINITY);
        let d = |x: &[f64], y: &[f64]| {
            dot_correctly_rounded(VecRef::contiguous(x), VecRef::contiguous(y)).unwrap()
        };
        assert!(d(&[f64::INFINITY], &[0.0]).is_nan());
        assert!(d(&[-1.0], &[0.0]).is_sign_negative());
        assert_eq!(d(&[1e300, 1.0, -1e300], &[1e300, 1e-300, 1e300]), 1e-300);
        assert!(
            sum2(VecRef::contiguous(&[-0.0]))
                .unwrap()
                .is_sign_negative()
        );
        assert_eq!(
            sum2(VecRef::contiguous(&[f64::INFINITY, 1.0])).unwrap(),
            f64::INFINITY
        );
    }
}
