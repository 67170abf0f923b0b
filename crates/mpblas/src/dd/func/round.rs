//! Rounding to integers and the remainder, all exact.
//!
//! For a normalised `hi + lo`: if `hi` is not an integer, `|hi| < 2^52` and `|lo|` is below half
//! an ulp of `hi`, so `lo` cannot move the value across an integer and only a tie of `hi`
//! (a `.5`) needs `lo` to break it. If `hi` is an integer, the fraction lives in `lo` and the
//! rounding is applied to `lo`, with ties resolved by the sign of the whole value (or the
//! parity of the whole integer, for ties-to-even).

use super::super::Dd;
use super::expansion::Expansion;
use super::ldexp;
use crate::eft::two_sum;
use std::ops::{Rem, RemAssign};

/// `hi + l` for an integer-valued `l` (exact), with the invariant restored.
#[inline]
fn rejoin(hi: f64, l: f64) -> Dd {
    let (s, e) = two_sum(hi, l);
    if s == 0.0 {
        // Keep the sign of zero of the f64 method (e.g. ceil(−0.3) = −0).
        return Dd { hi: s, lo: 0.0 };
    }
    Dd { hi: s, lo: e }
}

/// True if `x` is an integer (finite).
#[inline]
fn is_int(x: f64) -> bool {
    x.fract() == 0.0
}

impl Dd {
    /// Largest integer `≤ self` (exact). ±0, ±Inf and NaN as `f64::floor`.
    pub fn floor(self) -> Dd {
        if !self.hi.is_finite() || self.hi == 0.0 || !is_int(self.hi) {
            return Dd::from_f64(self.hi.floor());
        }
        rejoin(self.hi, self.lo.floor())
    }

    /// Smallest integer `≥ self` (exact). ±0, ±Inf and NaN as `f64::ceil`
    /// (`ceil` of a value in `(−1, 0)` is `−0`).
    pub fn ceil(self) -> Dd {
        if !self.hi.is_finite() || self.hi == 0.0 || !is_int(self.hi) {
            return Dd::from_f64(self.hi.ceil());
        }
        let c = rejoin(self.hi, self.lo.ceil());
        if c.hi == 0.0 && self.hi < 0.0 {
            return Dd::from_f64(-0.0);
        }
        c
    }

    /// Integer part, rounding toward zero (exact), as `f64::trunc`.
    pub fn trunc(self) -> Dd {
        if self.hi.is_sign_negative() {
            self.ceil()
        } else {
            self.floor()
        }
    }

    /// Nearest integer, ties away from zero (exact), as `f64::round`.
    pub fn round(self) -> Dd {
        self.round_with(|_| true)
    }

    /// Nearest integer, ties to even (exact), as `f64::round_ties_even`.
    pub fn round_ties_even(self) -> Dd {
        // At a tie between n and n + 1 (n = floor of a positive value), go up if n is odd.
        self.round_with(floor_is_odd)
    }

    /// Shared rounding to nearest of a value; `up_at_tie(floor)` decides ties for a positive
    /// value (negative values by symmetry).
    fn round_with(self, up_at_tie: fn(Dd) -> bool) -> Dd {
        if !self.hi.is_finite() || self.hi == 0.0 {
            return Dd::from_f64(self.hi.round());
        }
        if self.hi < 0.0 {
            let r = (-self).round_with(up_at_tie);
            return if r.hi == 0.0 { Dd::from_f64(-0.0) } else { -r };
        }
        let (f, frac) = split_int(self);
        let up = frac.hi > 0.5
            || (frac.hi == 0.5 && frac.lo > 0.0)
            || (frac.hi == 0.5 && frac.lo == 0.0 && up_at_tie(f));
        // f + 1 is exact: a fraction exists only below 2^106, where lo + 1 cannot round.
        if up { f + 1.0 } else { f }
    }

    /// `self − trunc(self)` (exact, with the sign of `self`), as `f64::fract`; NaN for ±Inf
    /// and `+0` for integers.
    pub fn fract(self) -> Dd {
        if !self.hi.is_finite() {
            return Dd::NAN;
        }
        if self.hi == 0.0 {
            return Dd::ZERO;
        }
        let (_, frac) = split_int(self.abs());
        if frac.hi == 0.0 {
            Dd::ZERO
        } else if self.hi < 0.0 {
            -frac
        } else {
            frac
        }
    }
}

/// `(floor(x), x − floor(x))` for a finite positive `x`, both exact.
fn split_int(x: Dd) -> (Dd, Dd) {
    if is_int(x.hi) {
        // The fraction is that of lo: lo − floor(lo), exact as a double-double (TwoSum).
        let fl = x.lo.floor();
        (rejoin(x.hi, fl), Dd::new(x.lo, -fl))
    } else {
        let fl = x.hi.floor();
        (Dd::from_f64(fl), Dd::new(x.hi - fl, x.lo))
    }
}

impl Dd {
    /// The remainder of `self / b` with the sign of `self` (C's `fmod`, what `%` does on
    /// `f64`): `self − n·b`, `n = trunc(self / b)`, by exact long division on an expansion
    /// (about 50 quotient bits per step). The exact remainder can need the combined bit span
    /// of both operands; it is returned rounded to a double-double, so it is **exact whenever
    /// it is representable** as one and otherwise within
    /// [`bounds::REM`](crate::dd::bounds::REM)·u relative,
    /// provided no partial product underflows (low words above about `2^-960`).
    /// `x % ±0` and `±Inf % y` are NaN, `x % ±Inf = x`, NaN propagates, as for `f64`.
    pub fn fmod(self, b: Dd) -> Dd {
        if !self.hi.is_finite() || !b.hi.is_finite() || b.hi == 0.0 || self.hi == 0.0 {
            if self.hi.is_finite() && b.hi.is_infinite() {
                return self;
            }
            return Dd::from_f64(self.hi % b.hi);
        }
        let (a, bb) = (self.abs(), b.abs());
        if a < bb {
            return self;
        }
        let mut r = Expansion::new();
        r.add_all(&[a.lo, a.hi]);
        let eb = exponent(bb.hi);
        // Each step removes about 50 bits: at most ~42 steps over the whole exponent range.
        for _ in 0..64 {
            let approx = r.approx();
            if approx.abs() <= 2.0 * bb.hi {
                break;
            }
            let shift = (exponent(approx) - eb - 50).max(0);
            // Divide by b·2^shift (exact scaling); |q| < 2^53, so q·b is exact (TwoProd).
            let (d_hi, d_lo) = (ldexp(bb.hi, shift), ldexp(bb.lo, shift));
            let q = (approx / d_hi).trunc();
            r.add_prod(-q, d_hi);
            r.add_prod(-q, d_lo);
        }
        // Now |r| ≤ 2b (plus rounding slack): at most three corrections into [0, b).
        for _ in 0..4 {
            if r.approx() < 0.0 {
                r.add_all(&[bb.lo, bb.hi]);
                continue;
            }
            let mut t = r;
            t.add_all(&[-bb.lo, -bb.hi]);
            if t.approx() >= 0.0 {
                r = t;
            } else {
                break;
            }
        }
        let (h, l) = r.to_dd();
        if h == 0.0 {
            return Dd::from_f64(0.0f64.copysign(self.hi));
        }
        let m = Dd { hi: h, lo: l };
        if self.hi < 0.0 { -m } else { m }
    }
}

/// `⌊log2 |x|⌋` for finite non-zero `x` (subnormals included).
fn exponent(x: f64) -> i32 {
    super::frexp(x).1 - 1
}

/// True if the integer `f` (a normalised double-double) is odd.
fn floor_is_odd(f: Dd) -> bool {
    let odd = |v: f64| v.abs() < 9_007_199_254_740_992.0 && (v % 2.0) != 0.0;
    odd(f.hi) != odd(f.lo)
}

/// `a % b`: [`Dd::fmod`] (remainder with the sign of the dividend, as `f64`'s `%`).
impl Rem for Dd {
    type Output = Dd;
    #[inline]
    fn rem(self, b: Dd) -> Dd {
        self.fmod(b)
    }
}

impl Rem<f64> for Dd {
    type Output = Dd;
    #[inline]
    fn rem(self, b: f64) -> Dd {
        self.fmod(Dd::from_f64(b))
    }
}

impl RemAssign for Dd {
    #[inline]
    fn rem_assign(&mut self, b: Dd) {
        *self = *self % b;
    }
}

impl RemAssign<f64> for Dd {
    #[inline]
    fn rem_assign(&mut self, b: f64) {
        *self = *self % b;
    }
}
