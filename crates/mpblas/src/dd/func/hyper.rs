//! Hyperbolic functions and their inverses.
//!
//! `sinh`, `cosh`, `tanh` are built on [`Dd::exp`] and [`Dd::exp_m1`], choosing the form
//! without cancellation (`expm1` for small arguments); above 37 the exponential of the exact
//! expansion `|x| − ln 2` avoids both the lost `e^{−x}` term and overflow before `f64::MAX`.
//! The inverses are logarithms of exactly represented sums (`|x| + q` as an expansion fed to
//! the logarithm kernel), and `atanh` is `(ln(1+x) − ln(1−x))/2` assembled exactly.

use super::super::Dd;
use super::super::consts::LN2_3;
use super::dd;
use super::expansion::Expansion;
use super::explog::{exp_expansion, log_expansion};

/// The unit triple (natural logarithm).
const ONE_3: [f64; 3] = [1.0, 0.0, 0.0];

/// `e^(a − ln 2) = e^a/2` for `a ≥ 37`, with the subtraction exact.
fn half_exp(a: Dd) -> Dd {
    let mut z = Expansion::new();
    z.add_all(&[a.hi, a.lo, -LN2_3[0], -LN2_3[1], -LN2_3[2]]);
    exp_expansion(z)
}

/// `ln` of the exact sum of `words` (positive), plus `ln 2` if `plus_ln2`.
fn ln_words(words: &[f64], plus_ln2: bool) -> Dd {
    let mut e = log_expansion(words, &ONE_3, &LN2_3);
    if plus_ln2 {
        e.add_all(&LN2_3);
    }
    dd(e.to_dd())
}

impl Dd {
    /// Hyperbolic sine: `(E + E/(E+1))/2` with `E = expm1(|x|)` below 1, `(e − 1/e)/2` up to
    /// 37, `e^(|x|−ln 2)` above. Relative error ≤ [`bounds::SINH`](crate::dd::bounds::SINH)·u.
    /// Odd; overflows to ±Inf beyond about 710.48.
    pub fn sinh(self) -> Dd {
        if !self.hi.is_finite() || self.hi == 0.0 {
            return Dd::from_f64(self.hi.sinh());
        }
        let a = self.abs();
        let s = if a.hi < 1.0 {
            let e = a.exp_m1();
            (e + e / (e + 1.0)) * 0.5
        } else if a.hi < 37.0 {
            let e = a.exp();
            (e - e.recip()) * 0.5
        } else {
            half_exp(a)
        };
        if self.hi < 0.0 { -s } else { s }
    }

    /// Hyperbolic cosine: `(e + 1/e)/2` up to 37, `e^(|x|−ln 2)` above. Relative error
    /// ≤ [`bounds::COSH`](crate::dd::bounds::COSH)·u. Even; overflows beyond about 710.48.
    pub fn cosh(self) -> Dd {
        if !self.hi.is_finite() {
            return Dd::from_f64(self.hi.cosh());
        }
        let a = self.abs();
        if a.hi < 37.0 {
            let e = a.exp();
            (e + e.recip()) * 0.5
        } else {
            half_exp(a)
        }
    }

    /// Hyperbolic tangent: `E/(E + 2)` with `E = expm1(2|x|)`, and `±1` beyond 38 (where
    /// `1 − tanh < 2^-108`). Relative error ≤ [`bounds::TANH`](crate::dd::bounds::TANH)·u. Odd.
    pub fn tanh(self) -> Dd {
        if self.is_nan() || self.hi == 0.0 {
            return self;
        }
        let a = self.abs();
        let t = if a.hi >= 38.0 {
            Dd::ONE
        } else {
            let e = (a * 2.0).exp_m1();
            e / (e + 2.0)
        };
        if self.hi < 0.0 { -t } else { t }
    }

    /// Inverse hyperbolic sine: `ln1p(|x| + x²/(1 + √(1+x²)))` below 2, `ln(|x| + √(x²+1))`
    /// up to `2^60`, `ln|x| + ln 2` above, each sum exact before the logarithm. Relative error
    /// ≤ [`bounds::ASINH`](crate::dd::bounds::ASINH)·u. Odd.
    pub fn asinh(self) -> Dd {
        if !self.hi.is_finite() || self.hi == 0.0 {
            return Dd::from_f64(self.hi.asinh());
        }
        let a = self.abs();
        let r = if a.hi < 2.0 {
            let a2 = a.sqr();
            let q = a2 / ((a2 + 1.0).sqrt() + 1.0);
            ln_words(&[1.0, a.hi, a.lo, q.hi, q.lo], false)
        } else if a.hi < 1.152_921_504_606_847e18 {
            let s = (a.sqr() + 1.0).sqrt();
            ln_words(&[a.hi, a.lo, s.hi, s.lo], false)
        } else {
            // 1/(4x²) < 2^-122 relative: asinh x = ln 2x.
            ln_words(&[a.hi, a.lo], true)
        };
        if self.hi < 0.0 { -r } else { r }
    }

    /// Inverse hyperbolic cosine: `ln1p(t + √(t(t+2)))` with `t = x − 1` exact below 2,
    /// `ln(x + √(x²−1))` up to `2^60`, `ln x + ln 2` above. Relative error
    /// ≤ [`bounds::ACOSH`](crate::dd::bounds::ACOSH)·u. NaN below 1, `acosh(1) = +0`.
    pub fn acosh(self) -> Dd {
        if self.hi.is_nan() || self.hi < 1.0 || !self.hi.is_finite() {
            return Dd::from_f64(self.hi.acosh());
        }
        if self < Dd::ONE {
            return Dd::NAN;
        }
        if self == Dd::ONE {
            return Dd::ZERO;
        }
        if self.hi < 2.0 {
            let t = Dd::new(self.hi - 1.0, self.lo);
            let s = (t * (t + 2.0)).sqrt();
            ln_words(&[1.0, t.hi, t.lo, s.hi, s.lo], false)
        } else if self.hi < 1.152_921_504_606_847e18 {
            let s = (self.sqr() - 1.0).sqrt();
            ln_words(&[self.hi, self.lo, s.hi, s.lo], false)
        } else {
            ln_words(&[self.hi, self.lo], true)
        }
    }

    /// Inverse hyperbolic tangent, `(ln(1+x) − ln(1−x))/2` with both logarithms kept as exact
    /// expansions. Relative error ≤ [`bounds::ATANH`](crate::dd::bounds::ATANH)·u. `±1 → ±Inf`,
    /// NaN outside `[−1, 1]`, odd.
    pub fn atanh(self) -> Dd {
        if !self.hi.is_finite() || self.hi == 0.0 || self.hi.abs() > 1.0 {
            return Dd::from_f64(self.hi.atanh());
        }
        let a = self.abs();
        if a > Dd::ONE {
            return Dd::NAN;
        }
        if a == Dd::ONE {
            return Dd::from_f64(f64::INFINITY.copysign(self.hi));
        }
        let mut l = log_expansion(&[1.0, a.hi, a.lo], &ONE_3, &LN2_3);
        let m = log_expansion(&[1.0, -a.hi, -a.lo], &ONE_3, &LN2_3);
        l.add_expansion(&m, -1.0);
        let r = dd(l.to_dd()) * 0.5;
        if self.hi < 0.0 { -r } else { r }
    }
}
