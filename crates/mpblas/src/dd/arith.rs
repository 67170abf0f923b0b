//! Double-double + − × ÷ √, operator impls and ordering.
//!
//! Each core routine computes the generic case branch-free and then checks the leading word
//! once: if it is not a finite non-zero number (an input was ±Inf/NaN/±0, or the result
//! overflowed), the result is recomputed from the leading words with plain `f64` semantics,
//! so special values behave exactly as `f64` users expect (`-0 + -0 = -0`, `x − x = +0`,
//! `1/0 = Inf`, `Inf − Inf = NaN`, overflow to ±Inf).

use super::Dd;
use crate::eft::{fast_two_sum, two_prod, two_sum};
use std::cmp::Ordering;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

/// The special-value result of an operation whose `f64` analogue on the leading words is
/// `lead`: ±0, ±Inf and NaN are returned as such; a finite `lead` means the double-double
/// computation overflowed while the leading-word operation did not, so the true result is ±Inf.
/// `computed_hi == 0` with a non-zero `lead` is an exact cancellation of non-normalised
/// operands, for which IEEE gives +0.
///
/// Branch-free (selects only) so that loops over slices of `Dd` still vectorise.
#[inline(always)]
fn special(lead: f64, computed_hi: f64) -> Dd {
    let passthrough = lead == 0.0 || !lead.is_finite();
    let overflowed = f64::INFINITY.copysign(lead);
    let hi = if passthrough {
        lead
    } else if computed_hi == 0.0 {
        0.0
    } else {
        overflowed
    };
    Dd { hi, lo: 0.0 }
}

/// Finish an operation: keep the generic result if its leading word is finite and non-zero,
/// else the [`special`] value. `lead` is the `f64` operation on the leading words, which
/// `+` and `×` have computed anyway (TwoSum's and TwoProd's rounded result).
///
/// Written as selects, not a branch: a per-element branch to a cold path stops LLVM from
/// vectorising loops of double-double operations (measured: dd × ran 2-4× slower).
#[inline(always)]
fn finish(hi: f64, lo: f64, lead: f64) -> Dd {
    let ok = hi.is_finite() && hi != 0.0;
    let fallback = special(lead, hi);
    Dd {
        hi: if ok { hi } else { fallback.hi },
        lo: if ok { lo } else { 0.0 },
    }
}

/// As [`finish`], for division, whose leading-word quotient is not computed by the generic
/// path: computing it eagerly would cost a second division per element, so this one keeps a
/// (well-predicted) branch.
#[inline(always)]
fn finish_lazy(hi: f64, lo: f64, lead: impl FnOnce() -> f64) -> Dd {
    if hi.is_finite() && hi != 0.0 {
        Dd { hi, lo }
    } else {
        special(lead(), hi)
    }
}

impl Dd {
    /// `self + b`, accurate: JMP 2017 Algorithm 6 (AccurateDWPlusDW), relative error
    /// ≤ [`bounds::ADD`](super::bounds::ADD)·u², also under cancellation. This is what `+` uses.
    #[inline]
    pub fn add_accurate(self, b: Dd) -> Dd {
        let (sh, sl) = two_sum(self.hi, b.hi);
        let (th, tl) = two_sum(self.lo, b.lo);
        let c = sl + th;
        let (vh, vl) = fast_two_sum(sh, c);
        let w = tl + vl;
        let (zh, zl) = fast_two_sum(vh, w);
        finish(zh, zl, sh)
    }

    /// `self + b`, sloppy: JMP 2017 Algorithm 5 (SloppyDWPlusDW), about 30% cheaper.
    /// Accurate to a few u² when `self` and `b` have the same sign, but **no relative error
    /// bound under cancellation** (e.g. `(1 + 2^-60) − 1` can lose every bit of `lo`). Use it
    /// only for sums of terms of one sign.
    #[inline]
    pub fn add_sloppy(self, b: Dd) -> Dd {
        let (sh, sl) = two_sum(self.hi, b.hi);
        let v = self.lo + b.lo;
        let w = sl + v;
        let (zh, zl) = fast_two_sum(sh, w);
        finish(zh, zl, sh)
    }

    /// `self + b` for an `f64` `b`: JMP 2017 Algorithm 4 (DWPlusFP), relative error
    /// ≤ [`bounds::ADD_F64`](super::bounds::ADD_F64)·u².
    #[inline]
    pub fn add_f64(self, b: f64) -> Dd {
        let (sh, sl) = two_sum(self.hi, b);
        let v = self.lo + sl;
        let (zh, zl) = fast_two_sum(sh, v);
        finish(zh, zl, sh)
    }

    /// `self × b`: JMP 2017 Algorithm 12 (DWTimesDW3, with FMA), relative error
    /// ≤ [`bounds::MUL`](super::bounds::MUL)·u².
    #[inline]
    pub fn mul_accurate(self, b: Dd) -> Dd {
        // The whole operation compiled with FMA when the CPU has it (crate::eft).
        crate::eft::with_fma(
            #[inline(always)]
            || {
                let (ch, cl1) = two_prod(self.hi, b.hi);
                let tl0 = self.lo * b.lo;
                let tl1 = self.hi.mul_add(b.lo, tl0);
                let cl2 = self.lo.mul_add(b.hi, tl1);
                let cl3 = cl1 + cl2;
                let (zh, zl) = fast_two_sum(ch, cl3);
                finish(zh, zl, ch)
            },
        )
    }

    /// `self × b` for an `f64` `b`: JMP 2017 Algorithm 9 (DWTimesFP3, with FMA), relative
    /// error ≤ [`bounds::MUL_F64`](super::bounds::MUL_F64)·u².
    #[inline]
    pub fn mul_f64(self, b: f64) -> Dd {
        // The whole operation compiled with FMA when the CPU has it (crate::eft).
        crate::eft::with_fma(
            #[inline(always)]
            || {
                let (ch, cl1) = two_prod(self.hi, b);
                let cl3 = self.lo.mul_add(b, cl1);
                let (zh, zl) = fast_two_sum(ch, cl3);
                finish(zh, zl, ch)
            },
        )
    }

    /// `self²` (the product routine with both operands equal; same bound as `×`).
    #[inline]
    pub fn sqr(self) -> Dd {
        self.mul_accurate(self)
    }

    /// `self ÷ b`: JMP 2017 Algorithm 17 (DWDivDW3: reciprocal by one Newton step, then a
    /// product), relative error ≤ [`bounds::DIV`](super::bounds::DIV)·u².
    #[inline]
    pub fn div_accurate(self, b: Dd) -> Dd {
        // The whole operation compiled with FMA when the CPU has it (crate::eft).
        crate::eft::with_fma(
            #[inline(always)]
            || {
                let th = 1.0 / b.hi;
                let rh = (-b.hi).mul_add(th, 1.0);
                let rl = -b.lo * th;
                let (eh, el) = fast_two_sum(rh, rl);
                let delta = Dd { hi: eh, lo: el }.mul_f64_raw(th);
                let m = delta.add_f64_raw(th);
                let z = self.mul_raw(m);
                finish_lazy(z.hi, z.lo, || self.hi / b.hi)
            },
        )
    }

    /// `self ÷ b` for an `f64` `b`: JMP 2017 Algorithm 15 (DWDivFP3), relative error
    /// ≤ [`bounds::DIV_F64`](super::bounds::DIV_F64)·u².
    #[inline]
    pub fn div_f64(self, b: f64) -> Dd {
        // The whole operation compiled with FMA when the CPU has it (crate::eft).
        crate::eft::with_fma(
            #[inline(always)]
            || {
                let th = self.hi / b;
                let (ph, pl) = two_prod(th, b);
                let dh = self.hi - ph;
                let dt = dh - pl;
                let d = dt + self.lo;
                let tl = d / b;
                let (zh, zl) = fast_two_sum(th, tl);
                finish(zh, zl, th)
            },
        )
    }

    /// `1 ÷ self` (division of one by `self`, same bound as `÷`).
    #[inline]
    pub fn recip(self) -> Dd {
        Dd::ONE.div_accurate(self)
    }

    /// Square root: Lefèvre, Louvet, Muller, Picot, Rideau, "Accurate calculation of Euclidean
    /// norms using double-word arithmetic", ACM TOMS 2023 (SQRTDWtoDW), relative error
    /// ≤ [`bounds::SQRT`](super::bounds::SQRT)·u². NaN for negative arguments; `sqrt(−0) = −0`.
    #[inline]
    pub fn sqrt(self) -> Dd {
        // The whole operation compiled with FMA when the CPU has it (crate::eft).
        crate::eft::with_fma(
            #[inline(always)]
            || {
                if !(self.hi > 0.0 && self.hi.is_finite()) {
                    // ±0, +Inf, NaN and negatives: exactly what f64 gives on the leading word.
                    return Dd {
                        hi: self.hi.sqrt(),
                        lo: 0.0,
                    };
                }
                let sh = self.hi.sqrt();
                let rho1 = (-sh).mul_add(sh, self.hi);
                let rho2 = self.lo + rho1;
                let sl = rho2 / (2.0 * sh);
                let (zh, zl) = fast_two_sum(sh, sl);
                Dd { hi: zh, lo: zl }
            },
        )
    }

    /// Absolute value (exact).
    #[inline]
    pub fn abs(self) -> Dd {
        if self.hi.is_sign_negative() {
            -self
        } else {
            self
        }
    }

    /// Multiply by 2^`n` exactly (barring overflow or underflow of a word).
    #[inline]
    pub fn ldexp(self, n: i32) -> Dd {
        let s = pow2(n);
        // Scale in up to two steps so that 2^n itself never overflows or underflows.
        if (-1022..=1023).contains(&n) {
            Dd {
                hi: self.hi * s,
                lo: self.lo * s,
            }
        } else {
            let half = n / 2;
            self.ldexp(half).ldexp(n - half)
        }
    }

    /// The IEEE total order of `f64::total_cmp` extended to double-doubles:
    /// −NaN < −Inf < negative values < −0 < +0 < positive values < +Inf < +NaN.
    /// Values equal in value but with a different sign of a zero low word compare equal.
    #[inline]
    pub fn total_cmp(&self, other: &Dd) -> Ordering {
        self.hi
            .total_cmp(&other.hi)
            .then_with(|| (self.lo + 0.0).total_cmp(&(other.lo + 0.0)))
    }

    /// The smaller of two values; if one is NaN the other is returned (as `f64::min`).
    #[inline]
    pub fn min(self, other: Dd) -> Dd {
        if self.is_nan() || other < self {
            other
        } else {
            self
        }
    }

    /// The larger of two values; if one is NaN the other is returned (as `f64::max`).
    #[inline]
    pub fn max(self, other: Dd) -> Dd {
        if self.is_nan() || other > self {
            other
        } else {
            self
        }
    }

    /// `self` restricted to `[lo, hi]` (NaN stays NaN). Returns `self` unchanged if the bounds
    /// are NaN or `lo > hi`, rather than panicking as `f64::clamp` does.
    #[inline]
    pub fn clamp(self, lo: Dd, hi: Dd) -> Dd {
        if self < lo {
            lo
        } else if self > hi {
            hi
        } else {
            self
        }
    }

    /// −1, +1 (for ±0 too, following the sign bit as `f64::signum`), or NaN.
    #[inline]
    pub fn signum(self) -> Dd {
        Dd::from_f64(self.hi.signum())
    }

    /// `|self|` with the sign of `sign`.
    #[inline]
    pub fn copysign(self, sign: Dd) -> Dd {
        if self.hi.is_sign_negative() != sign.hi.is_sign_negative() {
            -self
        } else {
            self
        }
    }

    // Unchecked cores shared by the division (intermediates are finite by construction there,
    // and the final `finish` catches anything else).
    #[inline(always)]
    fn mul_raw(self, b: Dd) -> Dd {
        let (ch, cl1) = two_prod(self.hi, b.hi);
        let tl0 = self.lo * b.lo;
        let tl1 = self.hi.mul_add(b.lo, tl0);
        let cl2 = self.lo.mul_add(b.hi, tl1);
        let (zh, zl) = fast_two_sum(ch, cl1 + cl2);
        Dd { hi: zh, lo: zl }
    }
    #[inline(always)]
    fn mul_f64_raw(self, b: f64) -> Dd {
        let (ch, cl1) = two_prod(self.hi, b);
        let cl3 = self.lo.mul_add(b, cl1);
        let (zh, zl) = fast_two_sum(ch, cl3);
        Dd { hi: zh, lo: zl }
    }
    #[inline(always)]
    fn add_f64_raw(self, b: f64) -> Dd {
        let (sh, sl) = two_sum(self.hi, b);
        let (zh, zl) = fast_two_sum(sh, self.lo + sl);
        Dd { hi: zh, lo: zl }
    }
}

/// 2^n for n in the normal exponent range, built from the bits.
#[inline(always)]
fn pow2(n: i32) -> f64 {
    let n = n.clamp(-1022, 1023);
    f64::from_bits(((n + 1023) as u64) << 52)
}

// ---- operators -------------------------------------------------------------------------------

impl Neg for Dd {
    type Output = Dd;
    #[inline]
    fn neg(self) -> Dd {
        Dd {
            hi: -self.hi,
            lo: -self.lo,
        }
    }
}

/// `a + b` is [`Dd::add_accurate`] (the IEEE-style accurate addition, 3u²), not the sloppy one.
impl Add for Dd {
    type Output = Dd;
    #[inline]
    fn add(self, b: Dd) -> Dd {
        self.add_accurate(b)
    }
}
/// `a − b` is [`Dd::add_accurate`] of `a` and `−b` (3u²).
impl Sub for Dd {
    type Output = Dd;
    #[inline]
    fn sub(self, b: Dd) -> Dd {
        self.add_accurate(-b)
    }
}
/// `a × b` is [`Dd::mul_accurate`] (5u²).
impl Mul for Dd {
    type Output = Dd;
    #[inline]
    fn mul(self, b: Dd) -> Dd {
        self.mul_accurate(b)
    }
}
/// `a ÷ b` is [`Dd::div_accurate`] (9.8u²).
impl Div for Dd {
    type Output = Dd;
    #[inline]
    fn div(self, b: Dd) -> Dd {
        self.div_accurate(b)
    }
}

impl Add<f64> for Dd {
    type Output = Dd;
    #[inline]
    fn add(self, b: f64) -> Dd {
        self.add_f64(b)
    }
}
impl Sub<f64> for Dd {
    type Output = Dd;
    #[inline]
    fn sub(self, b: f64) -> Dd {
        self.add_f64(-b)
    }
}
impl Mul<f64> for Dd {
    type Output = Dd;
    #[inline]
    fn mul(self, b: f64) -> Dd {
        self.mul_f64(b)
    }
}
impl Div<f64> for Dd {
    type Output = Dd;
    #[inline]
    fn div(self, b: f64) -> Dd {
        self.div_f64(b)
    }
}
impl Add<Dd> for f64 {
    type Output = Dd;
    #[inline]
    fn add(self, b: Dd) -> Dd {
        b.add_f64(self)
    }
}
impl Sub<Dd> for f64 {
    type Output = Dd;
    #[inline]
    fn sub(self, b: Dd) -> Dd {
        (-b).add_f64(self)
    }
}
impl Mul<Dd> for f64 {
    type Output = Dd;
    #[inline]
    fn mul(self, b: Dd) -> Dd {
        b.mul_f64(self)
    }
}
impl Div<Dd> for f64 {
    type Output = Dd;
    #[inline]
    fn div(self, b: Dd) -> Dd {
        Dd::from_f64(self).div_accurate(b)
    }
}

macro_rules! assign_ops {
    ($($tr:ident $m:ident $op:tt $rhs:ty;)*) => {$(
        impl $tr<$rhs> for Dd {
            #[inline]
            fn $m(&mut self, b: $rhs) {
                *self = *self $op b;
            }
        }
    )*};
}
assign_ops! {
    AddAssign add_assign + Dd; SubAssign sub_assign - Dd; MulAssign mul_assign * Dd;
    DivAssign div_assign / Dd;
    AddAssign add_assign + f64; SubAssign sub_assign - f64; MulAssign mul_assign * f64;
    DivAssign div_assign / f64;
}

// ---- comparisons -----------------------------------------------------------------------------

/// Equality of values: both words equal (so `+0 == −0` and `NaN != NaN`, as `f64`).
impl PartialEq for Dd {
    #[inline]
    fn eq(&self, other: &Dd) -> bool {
        self.hi == other.hi && self.lo == other.lo
    }
}

/// Ordering of values (lexicographic on normalised words; `None` if either is NaN).
impl PartialOrd for Dd {
    #[inline]
    fn partial_cmp(&self, other: &Dd) -> Option<Ordering> {
        match self.hi.partial_cmp(&other.hi)? {
            Ordering::Equal => self.lo.partial_cmp(&other.lo),
            ord => Some(ord),
        }
    }
}

impl PartialEq<f64> for Dd {
    #[inline]
    fn eq(&self, other: &f64) -> bool {
        self.hi == *other && self.lo == 0.0
    }
}
impl PartialOrd<f64> for Dd {
    #[inline]
    fn partial_cmp(&self, other: &f64) -> Option<Ordering> {
        self.partial_cmp(&Dd::from_f64(*other))
    }
}

impl From<f64> for Dd {
    #[inline]
    fn from(x: f64) -> Dd {
        Dd::from_f64(x)
    }
}
impl From<f32> for Dd {
    #[inline]
    fn from(x: f32) -> Dd {
        Dd::from_f64(x as f64)
    }
}
impl From<i32> for Dd {
    #[inline]
    fn from(x: i32) -> Dd {
        Dd::from_f64(x as f64)
    }
}
impl From<u32> for Dd {
    #[inline]
    fn from(x: u32) -> Dd {
        Dd::from_f64(x as f64)
    }
}
/// Exact: a 64-bit integer fits in 106 bits.
impl From<i64> for Dd {
    #[inline]
    fn from(x: i64) -> Dd {
        let hi = x as f64; // rounded
        // x - hi is exact in i128 and fits an f64 exactly (|x - hi| < 2^11).
        let lo = (x as i128 - hi as i128) as f64;
        Dd::new(hi, lo)
    }
}
/// Exact: a 64-bit integer fits in 106 bits.
impl From<u64> for Dd {
    #[inline]
    fn from(x: u64) -> Dd {
        let hi = x as f64;
        let lo = (x as i128 - hi as i128) as f64;
        Dd::new(hi, lo)
    }
}
// No `From<Dd> for f64`: `From` is for lossless conversions, and rounding to `f64` drops
// the low word. Use [`Dd::to_f64`].

/// Recursive summation, left to right, with the accurate `+`.
impl std::iter::Sum for Dd {
    fn sum<I: Iterator<Item = Dd>>(iter: I) -> Dd {
        iter.fold(Dd::ZERO, |a, b| a + b)
    }
}
/// As `Sum<Dd>`.
impl<'a> std::iter::Sum<&'a Dd> for Dd {
    fn sum<I: Iterator<Item = &'a Dd>>(iter: I) -> Dd {
        iter.fold(Dd::ZERO, |a, b| a + *b)
    }
}
/// The product, left to right.
impl std::iter::Product for Dd {
    fn product<I: Iterator<Item = Dd>>(iter: I) -> Dd {
        iter.fold(Dd::ONE, |a, b| a * b)
    }
}
/// As `Product<Dd>`.
impl<'a> std::iter::Product<&'a Dd> for Dd {
    fn product<I: Iterator<Item = &'a Dd>>(iter: I) -> Dd {
        iter.fold(Dd::ONE, |a, b| a * *b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_values_follow_f64() {
        let cases = [
            0.0,
            -0.0,
            1.5,
            -2.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        for &a in &cases {
            for &b in &cases {
                let (x, y) = (Dd::from(a), Dd::from(b));
                let check = |got: Dd, want: f64, op: &str| {
                    assert!(
                        got.hi.to_bits() == want.to_bits() || (got.hi.is_nan() && want.is_nan()),
                        "{a} {op} {b}: got {:?}, f64 gives {want}",
                        got
                    );
                    if want == 0.0 || !want.is_finite() {
                        assert_eq!(got.lo, 0.0, "{a} {op} {b}: lo of a special value must be 0");
                    }
                };
                check(x + y, a + b, "+");
                check(x - y, a - b, "-");
                check(x * y, a * b, "*");
                check(x / y, a / b, "/");
                check(x + b, a + b, "+f64");
                check(x * b, a * b, "*f64");
                check(x / b, a / b, "/f64");
            }
        }
    }

    #[test]
    fn cancellation_gives_positive_zero() {
        let a = Dd::new(1.0, 1e-20);
        let z = a - a;
        assert_eq!(z.hi.to_bits(), 0.0f64.to_bits());
        assert_eq!(z.lo, 0.0);
    }

    #[test]
    fn overflow_goes_to_infinity() {
        assert_eq!((Dd::MAX + Dd::MAX).hi, f64::INFINITY);
        assert_eq!((Dd::MAX * 2.0).hi, f64::INFINITY);
        assert_eq!((Dd::MIN * Dd::from(3.0)).hi, f64::NEG_INFINITY);
        assert_eq!((Dd::MAX / 0.5).hi, f64::INFINITY);
    }

    #[test]
    fn max_is_the_largest_normalised_value() {
        assert_eq!(Dd::MAX.hi + Dd::MAX.lo, Dd::MAX.hi);
        // One ulp more in the low word would round the sum up to infinity.
        let next_lo = f64::from_bits(Dd::MAX.lo.to_bits() + 1);
        assert_eq!(Dd::MAX.hi + next_lo, f64::INFINITY);
        assert_eq!(Dd::MIN, -Dd::MAX);
    }

    #[test]
    fn exact_integers_round_trip() {
        for x in [i64::MAX, i64::MIN, 1 << 60, -(1 << 53) - 1, 12345] {
            let d = Dd::from(x);
            assert_eq!(d.hi as i128 + d.lo as i128, x as i128);
        }
        let d = Dd::from(u64::MAX);
        assert_eq!(d.hi as i128 + d.lo as i128, u64::MAX as i128);
    }
}
