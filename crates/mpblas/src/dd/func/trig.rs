//! Trigonometric and inverse trigonometric functions, and `hypot`.
//!
//! * `sin`, `cos`, `tan`: [`rem_pio2_dd`](crate::trig_reduction) reduces `x = N·π/2 + r` to a
//!   double-double `r` with relative error `≤ 1.005u`: by Cody–Waite with a 4-word π/2 for
//!   `|x| < 2^20` (unless `x` is within `2^-40·|x|` of a multiple of π/2), else by Payne–Hanek
//!   (`r` exact to `2^-212`, then rounded); then Taylor polynomials in `t = r²` on
//!   `|r| ≤ π/4 + 2^-31` (degree 29 for `sin`, 30 for `cos`, truncation below `2^-120`), and
//!   the quadrant `N mod 4` picks `±sin r`/`±cos r`.
//!   Arguments below π/4 are used as they are. No absolute-error caveat is needed: the
//!   reduction is exact near every multiple of π/2 and for arguments up to `f64::MAX`.
//! * `atan2` (and `atan`, `asin`, `acos` through it): the point is folded into the first
//!   octant, `θ₀ = atan2(y.hi, x.hi)` in `f64`, then one Newton step: rotate `(x, y)` by `−θ₀`
//!   with exact products (`y' = y·cos θ₀ − x·sin θ₀`, `x' = x·cos θ₀ + y·sin θ₀`) and
//!   `θ = θ₀ + y'/x'` (the neglected `−(y'/x')³/3` is below `2^-150`). `sin θ₀`, `cos θ₀` use
//!   the exact square `θ₀²` of the double `θ₀`. The octant is unfolded with `π/2 − θ` and
//!   `π − θ`.

use super::super::Dd;
use super::super::consts::INV_FACT;
use super::expansion::Expansion;
use super::{dd, frexp, ldexp};
use crate::eft::two_sqr;
use crate::trig_reduction::rem_pio2_dd;

/// The first term of `sin_kernel`'s polynomial summed in `f64`: for `t ≤ (π/4)²` the terms
/// from `t^8/19!` on total below `2^-59.7` of the polynomial (`≥ 1/3! − t/5! > 0.16`), so
/// evaluating them by `f64` Horner on `t.hi` (relative error a few `2^-53`) costs below
/// `2^-110` of it (`0.04u`), and eight double-double steps instead of thirteen remain.
const SIN_TAIL_FROM: usize = 8;

/// As [`SIN_TAIL_FROM`] for `cos_kernel`: from `t^9/20!` on, below `2^-66` of its polynomial.
const COS_TAIL_FROM: usize = 9;

/// `±1/(2n + k)!` with the sign of `(−1)^n`: the coefficient of `t^n` in the kernels.
#[inline]
fn coeff(n: usize, k: usize) -> Dd {
    INV_FACT[2 * n + k].neg_if(n % 2 == 1)
}

/// `Σ_{from ≤ n ≤ last} coeff(n, k)·t^n / t^from` in `f64` on `th = t.hi` (Horner, plain
/// operations: the GPU twin's bits).
#[inline]
fn f64_tail(th: f64, from: usize, last: usize, k: usize) -> Dd {
    let mut s = coeff(last, k).hi;
    for n in (from..last).rev() {
        s = s * th + coeff(n, k).hi;
    }
    Dd::from_f64(s)
}

/// `sin r` for `|r| ≤ π/4 + ε`, given `t = r²`: `r − r·t·(1/3! − t/5! + … − t^13/29!)`, the
/// terms from [`SIN_TAIL_FROM`] on in `f64`.
fn sin_kernel(r: Dd, rt: Dd, t: Dd) -> Dd {
    let mut p = f64_tail(t.hi, SIN_TAIL_FROM, 13, 3);
    for n in (0..SIN_TAIL_FROM).rev() {
        p = p * t + coeff(n, 3);
    }
    r - rt * p
}

/// `cos r` for `|r| ≤ π/4 + ε`, given `t = r²`: `1 − t·(1/2! − t/4! + … + t^14/30!)`, the
/// terms from [`COS_TAIL_FROM`] on in `f64`.
fn cos_kernel(t: Dd) -> Dd {
    let mut p = f64_tail(t.hi, COS_TAIL_FROM, 14, 2);
    for n in (0..COS_TAIL_FROM).rev() {
        p = p * t + coeff(n, 2);
    }
    Dd::ONE - t * p
}

impl Dd {
    /// `−self` if `neg`.
    #[inline]
    fn neg_if(self, neg: bool) -> Dd {
        if neg { -self } else { self }
    }

    /// `x = q·π/2 + r` (exact reduction, `r` rounded to a double-double) with `t = r²`, or
    /// `Err((sin x, cos x))` for the special arguments: NaN for ±Inf and NaN, `(±0, 1)` for ±0.
    fn quadrant(self) -> Result<(i32, Dd, Dd), (Dd, Dd)> {
        if !self.hi.is_finite() {
            return Err((Dd::NAN, Dd::NAN));
        }
        if self.hi == 0.0 {
            return Err((self, Dd::ONE));
        }
        let (q, hi, lo) = rem_pio2_dd(self.hi, self.lo);
        let r = Dd { hi, lo };
        Ok((q, r, r.sqr()))
    }

    /// `(sin x, cos x)` (method notes in `dd/func/trig.rs`), each with relative error
    /// ≤ [`bounds::SIN_COS`](crate::dd::bounds::SIN_COS)·u for every finite `x` (results in the
    /// normal range). NaN for ±Inf and NaN; `sin(±0) = ±0`.
    pub fn sin_cos(self) -> (Dd, Dd) {
        let (q, r, t) = match self.quadrant() {
            Ok(reduced) => reduced,
            Err(special) => return special,
        };
        let (s, c) = (sin_kernel(r, r * t, t), cos_kernel(t));
        match q {
            0 => (s, c),
            1 => (c, -s),
            2 => (-s, -c),
            _ => (-c, s),
        }
    }

    /// `sin x` (`quarter = 0`) or `cos x = sin(x + π/2)` (`quarter = 1`): [`Dd::sin_cos`]'s
    /// bits, with only the one polynomial the quadrant needs.
    fn sin_shifted(self, quarter: i32) -> Dd {
        let (q, r, t) = match self.quadrant() {
            Ok(reduced) => reduced,
            Err((s, c)) => return if quarter == 0 { s } else { c },
        };
        match (q + quarter) & 3 {
            0 => sin_kernel(r, r * t, t),
            1 => cos_kernel(t),
            2 => -sin_kernel(r, r * t, t),
            _ => -cos_kernel(t),
        }
    }

    /// Sine; relative error ≤ [`bounds::SIN_COS`](crate::dd::bounds::SIN_COS)·u (see
    /// [`Dd::sin_cos`], whose first result this is, bit for bit).
    pub fn sin(self) -> Dd {
        self.sin_shifted(0)
    }

    /// Cosine; relative error ≤ [`bounds::SIN_COS`](crate::dd::bounds::SIN_COS)·u (see
    /// [`Dd::sin_cos`], whose second result this is, bit for bit).
    pub fn cos(self) -> Dd {
        self.sin_shifted(1)
    }

    /// Tangent, `sin/cos` (or `−cos/sin` in odd quadrants); relative error
    /// ≤ [`bounds::TAN`](crate::dd::bounds::TAN)·u. `tan(±0) = ±0`, NaN for ±Inf.
    pub fn tan(self) -> Dd {
        let (s, c) = self.sin_cos();
        if self.hi == 0.0 {
            return self;
        }
        s / c
    }

    /// Four-quadrant arctangent of `self/x` (`self` is `y`), in `[−π, π]`, as `f64::atan2`
    /// (including every ±0/±Inf case). Relative error ≤ [`bounds::ATAN2`](crate::dd::bounds::ATAN2)·u
    /// when the result is in the normal range.
    pub fn atan2(self, x: Dd) -> Dd {
        let y = self;
        if !(y.hi.is_finite() && x.hi.is_finite()) || y.hi == 0.0 || x.hi == 0.0 {
            return special_atan2(y.hi, x.hi);
        }
        // Common power-of-two scaling (exact unless the smaller one underflows, where the
        // angle is below 2^-969 anyway).
        let e = frexp(y.hi.abs().max(x.hi.abs())).1;
        let (ay, ax) = (scale(y.abs(), -e), scale(x.abs(), -e));
        let swap = ay > ax;
        let (num, den) = if swap { (ax, ay) } else { (ay, ax) };
        let mut th = octant_atan(num, den);
        if swap {
            th = Dd::FRAC_PI_2 - th;
        }
        if x.hi < 0.0 {
            th = Dd::PI - th;
        }
        if y.hi < 0.0 { -th } else { th }
    }

    /// Arctangent, `atan2(self, 1)`; relative error ≤ [`bounds::ATAN`](crate::dd::bounds::ATAN)·u.
    /// `atan(±0) = ±0`, `atan(±Inf) = ±π/2`.
    pub fn atan(self) -> Dd {
        self.atan2(Dd::ONE)
    }

    /// Arcsine, `atan2(x, √((1−x)(1+x)))` with `1 − |x|` exact for `|x| ≥ 1/2`; relative error
    /// ≤ [`bounds::ASIN`](crate::dd::bounds::ASIN)·u. NaN outside `[−1, 1]`; `asin(±0) = ±0`.
    pub fn asin(self) -> Dd {
        if self.hi == 0.0 || self.is_nan() {
            return self;
        }
        match one_minus_sq_sqrt(self) {
            Some(w) => self.atan2(w),
            None => Dd::NAN,
        }
    }

    /// Arccosine, `atan2(√((1−x)(1+x)), x)`; relative error ≤ [`bounds::ACOS`](crate::dd::bounds::ACOS)·u.
    /// NaN outside `[−1, 1]`; `acos(1) = +0`.
    pub fn acos(self) -> Dd {
        if self.is_nan() {
            return self;
        }
        match one_minus_sq_sqrt(self) {
            Some(w) => w.atan2(self),
            None => Dd::NAN,
        }
    }

    /// `√(self² + y²)` without intermediate overflow or underflow: both are scaled by a common
    /// power of two, squared exactly into an expansion, and one `sqrt` rounds. Relative error
    /// ≤ [`bounds::HYPOT`](crate::dd::bounds::HYPOT)·u. As `f64::hypot`: +Inf if either is
    /// infinite (even with a NaN), else NaN if either is NaN.
    pub fn hypot(self, y: Dd) -> Dd {
        let x = self;
        if x.is_infinite() || y.is_infinite() {
            return Dd::INFINITY;
        }
        if x.is_nan() || y.is_nan() {
            return Dd::NAN;
        }
        let m = x.hi.abs().max(y.hi.abs());
        if m == 0.0 {
            return Dd::ZERO;
        }
        let e = frexp(m).1;
        let (a, b) = (scale(x, -e), scale(y, -e));
        let mut s = Expansion::new();
        s.add_mul(&[a.hi, a.lo], &[a.hi, a.lo]);
        s.add_mul(&[b.hi, b.lo], &[b.hi, b.lo]);
        let r = dd(s.to_dd()).sqrt();
        super::explog::clean(scale(r, e))
    }
}

/// `d·2^n` word by word (exact unless a word leaves the normal range).
fn scale(d: Dd, n: i32) -> Dd {
    Dd {
        hi: ldexp(d.hi, n),
        lo: ldexp(d.lo, n),
    }
}

/// `√((1 − x)(1 + x))` for `|x| ≤ 1` (`None` outside), with `1 − |x|` exact when `|x| ≥ 1/2`.
fn one_minus_sq_sqrt(x: Dd) -> Option<Dd> {
    let a = x.abs();
    if a > Dd::ONE {
        return None;
    }
    let w = if a.hi >= 0.5 {
        Dd::new(1.0 - a.hi, -a.lo) * (a + 1.0)
    } else {
        -(a.sqr()) + 1.0
    };
    Some(w.sqrt())
}

/// `atan(num/den)` for `0 < num ≤ den` (first octant): one Newton step from the `f64` angle.
fn octant_atan(num: Dd, den: Dd) -> Dd {
    let th0 = num.hi.atan2(den.hi);
    // sin/cos of the double th0 with its exact square.
    let t = dd(two_sqr(th0));
    let r = Dd::from_f64(th0);
    let (s, c) = (sin_kernel(r, t * th0, t), cos_kernel(t));
    // y' = num·c − den·s exactly (to 2^-150), x' = den·c + num·s.
    let mut yp = Expansion::new();
    yp.add_mul(&[num.hi, num.lo], &[c.hi, c.lo]);
    yp.add_mul(&[-den.hi, -den.lo], &[s.hi, s.lo]);
    let yp = dd(yp.to_dd());
    let xp = den * c + num * s;
    yp / xp + th0
}

/// `atan2` when an operand is ±0 or ±Inf or NaN: the `f64` result, whose value is one of
/// 0, ±π/4, ±π/2, ±3π/4, ±π, NaN, replaced by the double-double constant.
fn special_atan2(y: f64, x: f64) -> Dd {
    let f = y.atan2(x);
    if f.is_nan() || f == 0.0 {
        return Dd::from_f64(f);
    }
    let a = f.abs();
    let v = if a == std::f64::consts::PI {
        Dd::PI
    } else if a == std::f64::consts::FRAC_PI_2 {
        Dd::FRAC_PI_2
    } else if a == std::f64::consts::FRAC_PI_4 {
        Dd::FRAC_PI_4
    } else if a == 3.0 * std::f64::consts::FRAC_PI_4 {
        Dd::FRAC_PI_4 * 3.0
    } else {
        Dd::from_f64(a)
    };
    if f < 0.0 { -v } else { v }
}
