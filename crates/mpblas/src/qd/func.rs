//! Elementary functions of quad-doubles, with the `f64` method names and special-value rules.
//!
//! Each function documents its algorithm and its relative error bound, a constant (or a
//! function, where the error necessarily grows with an argument) in
//! [`bounds`](super::bounds); the MPFR tests (`tests/qd_func_vs_mpfr.rs`) assert exactly those.
//! Series coefficients (`1/n!`, `1/(2j+1)`) are computed once, lazily, by quad-double division.
//! Trigonometric arguments are reduced by the shared Payne–Hanek routine
//! [`rem_pio2`](crate::trig_reduction), exact to about `2^-212` relative also for huge arguments and
//! arguments near multiples of π/2.

use super::Qd;
use super::arith::exponent;
use super::consts::{EXP_J64, FRAC_3PI_4, LN_2_WORDS};
use crate::dd::Dd;
use crate::eft::two_prod;
use std::ops::{Rem, RemAssign};
use std::sync::OnceLock;

/// Number of series coefficients kept (enough for every series below at its largest argument).
const TERMS: usize = 64;

/// `1/n!` for `n < TERMS`.
fn inv_fact() -> &'static [Qd; TERMS] {
    static T: OnceLock<[Qd; TERMS]> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = [Qd::ONE; TERMS];
        for n in 2..TERMS {
            t[n] = t[n - 1].div_f64(n as f64);
        }
        t
    })
}

/// `1/(2j+1)` for `j < TERMS`.
fn inv_odd() -> &'static [Qd; TERMS] {
    static T: OnceLock<[Qd; TERMS]> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = [Qd::ONE; TERMS];
        for (j, tj) in t.iter_mut().enumerate().skip(1) {
            *tj = Qd::ONE.div_f64((2 * j + 1) as f64);
        }
        t
    })
}

/// The number of terms `n` after which `|x|^n·coef(n)` drops below `2^-220` (f64 estimate),
/// for a series whose `n`-th coefficient magnitude is `coef(n)`.
fn terms_needed(x: f64, coef: impl Fn(usize) -> f64) -> usize {
    let x = x.abs();
    let mut p = 1.0;
    for n in 1..TERMS {
        p *= x;
        if p * coef(n) < 5.9e-67 {
            return n;
        }
    }
    TERMS - 1
}

/// Weight below which [`staged_horner`] carries a Horner value in double-double: the value
/// enters the polynomial (≈ 1) with that weight, so a double-double's rounding (`2^-104` of
/// it) stays below `2^-216`.
const DD_TAIL_WEIGHT: f64 = 1.925_929_944_387_236e-34; // 2^-112
/// As [`DD_TAIL_WEIGHT`] for `f64` values (rounding `2^-52` of them).
const F64_TAIL_WEIGHT: f64 = 4.276_423_536_147_513e-50; // 2^-164

/// `q_first` of the Horner recurrence `q_j = c_j + x·q_(j+1)`, `q_(n+1) = 0`, with
/// `c_j = 1/(stride·j + offset)!` and `c_first = 1`: the series of `expm1` (`r·q_1`), `sin`
/// and `cos` (in `x = −r²`). `q_j` enters `q_first` with weight `|x|^(j−first)·c_j`; the values
/// of weight below `2^-164` are carried in `f64` on `x`'s leading word, those below `2^-112` in
/// double-double on its two leading words, so each lower format's roundings stay below
/// `2^-216` of the sum (about a third of the quad-double steps at `|r| ≈ 0.35`).
fn staged_horner(x: Qd, n: usize, first: usize, (stride, offset): (usize, usize)) -> Qd {
    let f = inv_fact();
    let c = |j: usize| &f[(stride * j + offset).min(TERMS - 1)];
    let ax = x.c[0].abs();
    let start = |weight: f64| {
        let mut p = 1.0;
        for j in first..=n {
            if p * c(j).c[0] < weight {
                return j;
            }
            p *= ax;
        }
        n + 1
    };
    let j_dd = start(DD_TAIL_WEIGHT);
    let j_f64 = start(F64_TAIL_WEIGHT).max(j_dd);
    let mut s = 0.0;
    for j in (j_f64..=n).rev() {
        s = c(j).c[0] + x.c[0] * s;
    }
    // The leading two words of a (normalised) quad-double are a normalised double-double.
    let dd_of = |q: &Qd| Dd {
        hi: q.c[0],
        lo: q.c[1],
    };
    let xd = dd_of(&x);
    let mut d = Dd::from_f64(s);
    for j in (j_dd..j_f64).rev() {
        d = dd_of(c(j)) + xd * d;
    }
    let mut q = Qd::from(d);
    for j in (first..j_dd).rev() {
        q = *c(j) + x * q;
    }
    q
}

/// `e^r − 1` by its Taylor series in Horner form, for `|r| ≤ 1`: `r·(1 + r/2·(1 + r/3·…))`
/// written as `r·Σ r^(n−1)/n!` ([`staged_horner`]). Relative error ≤ about 13u (see
/// `bounds::EXP_M1`).
fn expm1_series(r: Qd) -> Qd {
    let f = inv_fact();
    let n = terms_needed(r.c[0], |n| f[n.min(TERMS - 1)].c[0]);
    r * staged_horner(r, n, 1, (1, 0))
}

/// `2·atanh(z) = ln((1+z)/(1−z))` by its series `2z·Σ z^(2j)/(2j+1)` (Horner in `z²`), for
/// `|z| ≤ 0.18`.
fn atanh_series_2(z: Qd) -> Qd {
    let t = inv_odd();
    let w = z.sqr();
    let n = terms_needed(w.c[0], |j| t[j.min(TERMS - 1)].c[0]);
    let mut q = t[n];
    for j in (0..n).rev() {
        q = t[j] + w * q;
    }
    (z * q).ldexp(1)
}

/// `(sin r, cos r)` by their Taylor series (Horner in `r²`), for `|r| ≤ π/4`.
fn sin_cos_series(r: Qd) -> (Qd, Qd) {
    let (mw, n) = series_terms(r);
    (r * sin_poly(mw, n), cos_poly(mw, n))
}

/// `−r²` and the number of terms of the sine and cosine series.
fn series_terms(r: Qd) -> (Qd, usize) {
    let f = inv_fact();
    let w = r.sqr();
    let n = terms_needed(w.c[0], |j| f[(2 * j).min(TERMS - 1)].c[0]).min(TERMS / 2 - 1);
    (-w, n)
}

/// `Σ (−w)^j/(2j+1)!` (`sin r = r·` this).
fn sin_poly(mw: Qd, n: usize) -> Qd {
    staged_horner(mw, n, 0, (2, 1))
}

/// `Σ (−w)^j/(2j)!` (`cos r`).
fn cos_poly(mw: Qd, n: usize) -> Qd {
    staged_horner(mw, n, 0, (2, 0))
}

/// `sin r` alone.
fn sin_series(r: Qd) -> Qd {
    let (mw, n) = series_terms(r);
    r * sin_poly(mw, n)
}

/// `cos r` alone.
fn cos_series(r: Qd) -> Qd {
    let (mw, n) = series_terms(r);
    cos_poly(mw, n)
}

/// `ln m` for `m` in `[1/√2, √2]`: `2·atanh((m − 1)/(m + 1))`.
fn ln_reduced(m: Qd) -> Qd {
    let z = (m - 1.0) / (m + 1.0);
    atanh_series_2(z)
}

/// `x = 2^e·m` with `m` in `[1/√2, √2]`, for finite positive `x`.
fn split_exponent(x: Qd) -> (i32, Qd) {
    let mut e = exponent(x.c[0]);
    let mut m = x.ldexp(-e);
    if m.c[0] > std::f64::consts::SQRT_2 {
        m = m.ldexp(-1);
        e += 1;
    }
    (e, m)
}

impl Qd {
    // ---- rounding ----------------------------------------------------------------------------

    /// The largest integer ≤ `self` (exact): the words are floored in turn while they are
    /// integers (HLB Section 5).
    pub fn floor(self) -> Qd {
        self.round_words(f64::floor)
    }

    /// The smallest integer ≥ `self` (exact).
    pub fn ceil(self) -> Qd {
        self.round_words(f64::ceil)
    }

    /// The integer part of `self`, rounding towards zero (exact).
    pub fn trunc(self) -> Qd {
        if self.c[0] >= 0.0 {
            self.floor()
        } else if self.c[0] < 0.0 {
            self.ceil()
        } else {
            self
        }
    }

    /// The nearest integer, halfway cases away from zero (exact, as `f64::round`).
    pub fn round(self) -> Qd {
        let t = self.trunc();
        let f = self - t;
        if !f.is_finite() || f.abs() < 0.5 {
            t
        } else {
            t + f.signum()
        }
    }

    /// The nearest integer, halfway cases to the even integer (exact, as
    /// `f64::round_ties_even`).
    pub fn round_ties_even(self) -> Qd {
        let t = self.trunc();
        let f = self - t;
        let half = f.abs().partial_cmp(&0.5);
        let up = match half {
            Some(std::cmp::Ordering::Greater) => true,
            Some(std::cmp::Ordering::Equal) => t.is_odd_integer(),
            _ => false,
        };
        if up { t + f.signum() } else { t }
    }

    /// `self − self.trunc()`, exact; NaN for ±Inf (as `f64::fract`).
    pub fn fract(self) -> Qd {
        if !self.is_finite() {
            return Qd::NAN;
        }
        self - self.trunc()
    }

    /// Floors (or ceils) word by word: once a word is not an integer, the lower words cannot
    /// move the result past the next integer (they are below half an ulp of it).
    fn round_words(self, f: fn(f64) -> f64) -> Qd {
        let mut c = [0.0; 4];
        for (ci, &w) in c.iter_mut().zip(&self.c) {
            *ci = f(w);
            if *ci != w {
                break;
            }
        }
        if !c[0].is_finite() {
            return Qd::from_f64(c[0]);
        }
        if c == self.c {
            return self;
        }
        let r = Qd::new(c[0], c[1], c[2], c[3]);
        // Keep the sign of zero as f64 does (floor(−0.5) = −1, ceil(−0.5) = −0).
        if r.c[0] == 0.0 {
            Qd::from_f64(0.0f64.copysign(self.c[0]))
        } else {
            r
        }
    }

    /// True if `self` is an odd integer (exact, on the words).
    fn is_odd_integer(self) -> bool {
        if !self.is_finite() || self.floor() != self {
            return false;
        }
        // Every word of an integer quad-double is an integer; parity is the sum of the
        // words' parities (each word's `% 2` is exact).
        let odd = self.c.iter().filter(|w| (*w % 2.0) != 0.0).count();
        odd % 2 == 1
    }

    // ---- powers and roots --------------------------------------------------------------------

    /// Cube root (`cbrt(−x) = −cbrt(x)`, ±0, ±Inf and NaN as `f64::cbrt`): three Newton steps
    /// `y ← y − (y³ − m)/(3y²)` from the `f64` estimate on `m = |x|·2^-3k` in `[1, 8)`.
    /// Relative error ≤ [`bounds::CBRT`](super::bounds::CBRT)·u.
    pub fn cbrt(self) -> Qd {
        let x0 = self.c[0];
        if x0 == 0.0 || !x0.is_finite() {
            return Qd::from_f64(x0.cbrt());
        }
        let a = self.abs();
        let k = exponent(x0).div_euclid(3);
        let m = a.ldexp(-3 * k);
        let mut y = Qd::from_f64(m.c[0].cbrt());
        for _ in 0..3 {
            let y2 = y.sqr();
            y = y - (y2 * y - m) / (y2 * 3.0);
        }
        y.ldexp(k).copysign(self)
    }

    /// `self^n` by binary powering (for `n < 0`, the reciprocal of `self^|n|`), with the
    /// special values of `f64::powi` (`x^0 = 1` even for NaN). Relative error ≤
    /// [`bounds::powi(n)`](super::bounds::powi)·u, which grows linearly with `|n|` as for any
    /// product chain.
    pub fn powi(self, n: i32) -> Qd {
        if n == 0 {
            return Qd::ONE;
        }
        let mut e = n.unsigned_abs();
        let mut base = self;
        let mut acc = Qd::ONE;
        let mut first = true;
        while e > 0 {
            if e & 1 == 1 {
                acc = if first { base } else { acc * base };
                first = false;
            }
            e >>= 1;
            if e > 0 {
                base = base.sqr();
            }
        }
        if n < 0 { acc.recip() } else { acc }
    }

    /// `self^y` as `exp(y·ln|self|)` with the sign of `self` for odd integral `y`, and every
    /// special case of `f64::powf` (`x^±0 = 1`, `1^y = 1` even for NaN, negative base with
    /// non-integral exponent → NaN, zeros and infinities by the parity of integral `y`).
    /// Relative error ≤ [`bounds::pow(y·ln|x|)`](super::bounds::pow)·u: the error of
    /// `y·ln|x|` is amplified by its magnitude (up to ~745 before overflow or underflow).
    pub fn pow(self, y: Qd) -> Qd {
        let (x0, y0) = (self.c[0], y.c[0]);
        if y0 == 0.0 || self == Qd::ONE {
            return Qd::ONE;
        }
        if x0.is_nan() || y0.is_nan() {
            return Qd::NAN;
        }
        let y_int = y.is_finite() && y.floor() == y;
        let y_odd = y_int && y.is_odd_integer();
        if x0 == 0.0 || !x0.is_finite() || !y0.is_finite() {
            // The result is 0, ±Inf or ±1: f64 on representatives with the same parity,
            // sign and comparison with 1 gives it.
            let yrep = if !y0.is_finite() {
                y0
            } else if y_odd {
                3.0f64.copysign(y0)
            } else if y_int {
                2.0f64.copysign(y0)
            } else {
                2.5f64.copysign(y0)
            };
            let xa = self.abs();
            let xrep = if !x0.is_finite() || x0 == 0.0 {
                x0
            } else if xa == Qd::ONE {
                1.0f64.copysign(x0)
            } else if xa > Qd::ONE {
                2.0f64.copysign(x0)
            } else {
                0.5f64.copysign(x0)
            };
            return Qd::from_f64(xrep.powf(yrep));
        }
        if x0 < 0.0 && !y_int {
            return Qd::NAN;
        }
        let r = (y * self.abs().ln()).exp();
        if x0 < 0.0 && y_odd { -r } else { r }
    }

    /// `√(self² + other²)` without undue overflow or underflow: both are scaled by a common
    /// power of two first. `hypot(±Inf, NaN) = +Inf` as `f64::hypot`. Relative error ≤
    /// [`bounds::HYPOT`](super::bounds::HYPOT)·u.
    pub fn hypot(self, other: Qd) -> Qd {
        let (a, b) = (self.abs(), other.abs());
        if a.is_infinite() || b.is_infinite() {
            return Qd::INFINITY;
        }
        if a.is_nan() || b.is_nan() {
            return Qd::NAN;
        }
        let big = if a > b { a } else { b };
        if big.c[0] == 0.0 {
            return Qd::ZERO;
        }
        let e = exponent(big.c[0]);
        let (a, b) = (a.ldexp(-e), b.ldexp(-e));
        (a.sqr() + b.sqr()).sqrt().ldexp(e)
    }

    // ---- exponentials and logarithms ---------------------------------------------------------

    /// `e^self`: `x = k·ln 2 + r` with `|r| ≤ ln2/2` (`k·ln 2` exact from a six-word ln 2), then
    /// Tang's table: `r = j/64 + r'` with `|r'| ≤ 1/128`, `e^r = E_j + E_j·(e^r' − 1)` from a
    /// 45-entry table of `E_j = e^(j/64)` (`E_0 = 1`) and the Taylor series of `e^r' − 1` (about
    /// half the quad-double steps of the series on `r`). Times `2^k`. Overflows to +Inf above
    /// about 709.78 and underflows to +0 below about −745.13, as `f64::exp`. Relative error ≤
    /// [`bounds::EXP`](super::bounds::EXP)·u for results in the normal range.
    pub fn exp(self) -> Qd {
        let x0 = self.c[0];
        if x0.is_nan() {
            return Qd::NAN;
        }
        if x0 > 709.8 {
            return Qd::INFINITY;
        }
        if x0 < -745.2 {
            return Qd::ZERO;
        }
        if x0 == 0.0 {
            return Qd::ONE;
        }
        let k = (x0 / std::f64::consts::LN_2).round();
        let r = sub_k_ln2(self, k);
        // One path for every j (also j = 0, E_0 = 1): GPU lanes do not diverge on it.
        let j = (r.c[0] * 64.0).round().clamp(-22.0, 22.0);
        let e = Qd {
            c: EXP_J64[(j as i32 + 22) as usize],
        };
        let y = (e + e * expm1_series(r.add_f64(-j / 64.0))).ldexp(k as i32);
        if y.is_finite() { y } else { Qd::INFINITY }
    }

    /// `2^self`: `x = k + f` with `k = round(x)` and `|f| ≤ 1/2` exact, `2^k·e^(f·ln 2)`.
    /// Relative error ≤ [`bounds::EXP2`](super::bounds::EXP2)·u.
    pub fn exp2(self) -> Qd {
        let x0 = self.c[0];
        if x0.is_nan() {
            return Qd::NAN;
        }
        if x0 > 1024.5 {
            return Qd::INFINITY;
        }
        if x0 < -1075.5 {
            return Qd::ZERO;
        }
        let k = self.round();
        let f = self - k;
        let e = expm1_series(f * Qd::LN_2);
        let y = (e + 1.0).ldexp(k.c[0] as i32);
        if y.is_finite() { y } else { Qd::INFINITY }
    }

    /// `e^self − 1`, accurate also near 0: the Taylor series directly for `|x| < 1`,
    /// `exp(x) − 1` beyond (where the subtraction loses at most a factor `e/(e − 1)`).
    /// Relative error ≤ [`bounds::EXP_M1`](super::bounds::EXP_M1)·u.
    pub fn exp_m1(self) -> Qd {
        let x0 = self.c[0];
        if x0 == 0.0 || x0.is_nan() {
            return self;
        }
        if x0.abs() < 1.0 {
            expm1_series(self)
        } else {
            self.exp() - 1.0
        }
    }

    /// Natural logarithm: `x = 2^e·m` with `m` in `[1/√2, √2]`,
    /// `ln x = e·ln 2 + 2·atanh((m − 1)/(m + 1))`. NaN for negative arguments, `ln(±0) = −Inf`,
    /// as `f64::ln`. Relative error ≤ [`bounds::LN`](super::bounds::LN)·u.
    pub fn ln(self) -> Qd {
        match self.log_special() {
            Some(s) => s,
            None => {
                let (e, m) = split_exponent(self);
                let lm = ln_reduced(m);
                if e == 0 { lm } else { Qd::LN_2 * e as f64 + lm }
            }
        }
    }

    /// Base-2 logarithm: `e + ln(m)·log₂e` with the reduction of [`Qd::ln`] (exact for powers
    /// of two). Relative error ≤ [`bounds::LOG2`](super::bounds::LOG2)·u.
    pub fn log2(self) -> Qd {
        match self.log_special() {
            Some(s) => s,
            None => {
                let (e, m) = split_exponent(self);
                ln_reduced(m) * Qd::LOG2_E + e as f64
            }
        }
    }

    /// Base-10 logarithm, `ln(x)·log₁₀e`. Relative error ≤
    /// [`bounds::LOG10`](super::bounds::LOG10)·u.
    pub fn log10(self) -> Qd {
        match self.log_special() {
            Some(s) => s,
            None => self.ln() * Qd::LOG10_E,
        }
    }

    /// `ln(1 + self)`, accurate also near 0: `2·atanh(x/(2 + x))` for `−0.29 < x < 0.42`,
    /// `ln(1 + x)` beyond. Relative error ≤ [`bounds::LN_1P`](super::bounds::LN_1P)·u.
    pub fn ln_1p(self) -> Qd {
        let x0 = self.c[0];
        if x0 == 0.0 || x0.is_nan() {
            return self;
        }
        if x0 > -0.29 && x0 < 0.42 {
            atanh_series_2(self / (self + 2.0))
        } else {
            (self + 1.0).ln()
        }
    }

    /// The special cases shared by the logarithms: NaN, negative, ±0, +Inf, 1.
    fn log_special(self) -> Option<Qd> {
        let x0 = self.c[0];
        if x0.is_nan() || x0 < 0.0 {
            Some(Qd::NAN)
        } else if x0 == 0.0 {
            Some(Qd::NEG_INFINITY)
        } else if x0.is_infinite() {
            Some(Qd::INFINITY)
        } else if self == Qd::ONE {
            Some(Qd::ZERO)
        } else {
            None
        }
    }

    // ---- trigonometric -----------------------------------------------------------------------

    /// `(sin x, cos x)`: Payne–Hanek reduction `x = N·π/2 + r`, `|r| ≤ π/4`, Taylor series of
    /// both, and the quadrant. Relative errors ≤ [`bounds::SIN`](super::bounds::SIN)·u and
    /// [`bounds::COS`](super::bounds::COS)·u, for any finite argument. NaN for ±Inf and NaN.
    pub fn sin_cos(self) -> (Qd, Qd) {
        let (q, r) = match self.quadrant() {
            Ok(reduced) => reduced,
            Err(special) => return special,
        };
        let (s, c) = sin_cos_series(r);
        match q & 3 {
            0 => (s, c),
            1 => (c, -s),
            2 => (-s, -c),
            _ => (-c, s),
        }
    }

    /// `x = q·π/2 + r` (exact reduction, `r` rounded to a quad-double), or
    /// `Err((sin x, cos x))` for the special arguments: NaN for ±Inf and NaN, `(±0, 1)` for ±0.
    fn quadrant(self) -> Result<(i32, Qd), (Qd, Qd)> {
        let x0 = self.c[0];
        if !x0.is_finite() {
            return Err((Qd::NAN, Qd::NAN));
        }
        if x0 == 0.0 {
            return Err((self, Qd::ONE));
        }
        let (q, r) = crate::trig_reduction::rem_pio2(&self.c);
        Ok((q, Qd { c: r }))
    }

    /// `sin x` (`quarter = 0`) or `cos x = sin(x + π/2)` (`quarter = 1`): [`Qd::sin_cos`]'s
    /// bits, with only the one series the quadrant needs.
    fn sin_shifted(self, quarter: i32) -> Qd {
        let (q, r) = match self.quadrant() {
            Ok(reduced) => reduced,
            Err((s, c)) => return if quarter == 0 { s } else { c },
        };
        match (q + quarter) & 3 {
            0 => sin_series(r),
            1 => cos_series(r),
            2 => -sin_series(r),
            _ => -cos_series(r),
        }
    }

    /// Sine (see [`Qd::sin_cos`], whose first result this is, bit for bit); bound
    /// [`bounds::SIN`](super::bounds::SIN)·u.
    pub fn sin(self) -> Qd {
        self.sin_shifted(0)
    }

    /// Cosine (see [`Qd::sin_cos`], whose second result this is, bit for bit); bound
    /// [`bounds::COS`](super::bounds::COS)·u.
    pub fn cos(self) -> Qd {
        self.sin_shifted(1)
    }

    /// Tangent, `sin x / cos x`; bound [`bounds::TAN`](super::bounds::TAN)·u.
    pub fn tan(self) -> Qd {
        let (s, c) = self.sin_cos();
        if self.c[0] == 0.0 { self } else { s / c }
    }

    /// The angle of the point `(other, self)` (`self.atan2(x)` as `f64::atan2(y, x)`), in
    /// `[−π, π]`: two Newton steps on `f(z) = x·sin z − y·cos z` from the `f64` estimate
    /// (each step triples the correct bits, since `f″ = −f` vanishes at the root), after
    /// scaling both by a common power of two. Exact multiples of π/4 and the signed zeros of
    /// `f64::atan2` for zero and infinite arguments. Relative error ≤
    /// [`bounds::ATAN2`](super::bounds::ATAN2)·u.
    pub fn atan2(self, other: Qd) -> Qd {
        let (y, x) = (self, other);
        let (y0, x0) = (y.c[0], x.c[0]);
        if y0.is_nan() || x0.is_nan() {
            return Qd::NAN;
        }
        if y0 == 0.0 || x0 == 0.0 || !y0.is_finite() || !x0.is_finite() {
            return multiple_of_pi_4(y0.atan2(x0));
        }
        let e = exponent(y0).max(exponent(x0));
        let (y, x) = (y.ldexp(-e), x.ldexp(-e));
        let mut z = Qd::from_f64(y.c[0].atan2(x.c[0]));
        for _ in 0..2 {
            let (s, c) = z.sin_cos();
            let num = x * s - y * c;
            let den = x * c + y * s;
            z -= num / den;
        }
        z
    }

    /// Arctangent, `atan2(x, 1)`; bound [`bounds::ATAN2`](super::bounds::ATAN2)·u.
    pub fn atan(self) -> Qd {
        if self.c[0] == 0.0 {
            return self;
        }
        self.atan2(Qd::ONE)
    }

    /// Arcsine, `atan2(x, √((1 − x)(1 + x)))`; NaN outside `[−1, 1]`. Relative error ≤
    /// [`bounds::ASIN`](super::bounds::ASIN)·u.
    pub fn asin(self) -> Qd {
        let a = self.abs();
        if a.is_nan() || a > Qd::ONE {
            return Qd::NAN;
        }
        if self.c[0] == 0.0 {
            return self;
        }
        self.atan2(((1.0 - self) * (1.0 + self)).sqrt())
    }

    /// Arccosine, `atan2(√((1 − x)(1 + x)), x)`; NaN outside `[−1, 1]`. Relative error ≤
    /// [`bounds::ACOS`](super::bounds::ACOS)·u.
    pub fn acos(self) -> Qd {
        let a = self.abs();
        if a.is_nan() || a > Qd::ONE {
            return Qd::NAN;
        }
        ((1.0 - self) * (1.0 + self)).sqrt().atan2(self)
    }

    // ---- hyperbolic --------------------------------------------------------------------------

    /// Hyperbolic sine: with `m = e^|x| − 1`, `sinh|x| = m(m + 2)/(2(m + 1))` for `|x| < 1`
    /// (accurate near 0); `(e^|x| − e^-|x|)/2` beyond; `e^(|x|/2)·e^(|x|/2)/2` near overflow. Relative error ≤
    /// [`bounds::SINH`](super::bounds::SINH)·u.
    pub fn sinh(self) -> Qd {
        let x0 = self.c[0];
        if x0 == 0.0 || !x0.is_finite() {
            return self;
        }
        let a = self.abs();
        let r = if a.c[0] > 700.0 {
            let h = a.ldexp(-1).exp();
            h * h.ldexp(-1)
        } else if a.c[0] >= 1.0 {
            // No cancellation worth avoiding: e − 1/e loses at most coth(1) ≈ 1.31.
            let e = a.exp();
            (e - e.recip()).ldexp(-1)
        } else {
            let m = a.exp_m1();
            (m * (m + 2.0)) / (m + 1.0).ldexp(1)
        };
        r.copysign(self)
    }

    /// Hyperbolic cosine, `(e^|x| + e^-|x|)/2`; `e^(|x|/2)·e^(|x|/2)/2` near overflow.
    /// Relative error ≤ [`bounds::COSH`](super::bounds::COSH)·u.
    pub fn cosh(self) -> Qd {
        let x0 = self.c[0];
        if x0.is_nan() {
            return self;
        }
        let a = self.abs();
        if a.c[0] > 700.0 {
            let h = a.ldexp(-1).exp();
            return h * h.ldexp(-1);
        }
        let e = a.exp();
        (e + e.recip()).ldexp(-1)
    }

    /// Hyperbolic tangent: with `m = e^(2|x|) − 1`, `tanh|x| = m/(m + 2)`; ±1 beyond
    /// `|x| > 75` (where `1 − tanh|x| < 2^-215`). Relative error ≤
    /// [`bounds::TANH`](super::bounds::TANH)·u.
    pub fn tanh(self) -> Qd {
        let x0 = self.c[0];
        if x0 == 0.0 || x0.is_nan() {
            return self;
        }
        let a = self.abs();
        let r = if a.c[0] > 75.0 {
            Qd::ONE
        } else {
            let m = a.ldexp(1).exp_m1();
            m / (m + 2.0)
        };
        r.copysign(self)
    }

    /// Inverse hyperbolic sine: `ln_1p(|x| + x²/(1 + √(1 + x²)))` (accurate near 0), and
    /// `ln|x| + ln 2` above `2^100`. Relative error ≤ [`bounds::ASINH`](super::bounds::ASINH)·u.
    pub fn asinh(self) -> Qd {
        let x0 = self.c[0];
        if x0 == 0.0 || !x0.is_finite() {
            return self;
        }
        let a = self.abs();
        let r = if a.c[0] > 1e36 {
            a.ln() + Qd::LN_2
        } else {
            let a2 = a.sqr();
            (a + a2 / ((a2 + 1.0).sqrt() + 1.0)).ln_1p()
        };
        r.copysign(self)
    }

    /// Inverse hyperbolic cosine: with `t = x − 1`, `ln_1p(t + √(t(t + 2)))` (accurate near 1),
    /// and `ln x + ln 2` above `10^36`; NaN below 1. Relative error ≤
    /// [`bounds::ACOSH`](super::bounds::ACOSH)·u.
    pub fn acosh(self) -> Qd {
        let x0 = self.c[0];
        if x0.is_nan() || self < Qd::ONE {
            return Qd::NAN;
        }
        if x0.is_infinite() {
            return self;
        }
        if x0 > 1e36 {
            return self.ln() + Qd::LN_2;
        }
        let t = self - 1.0;
        (t + (t * (t + 2.0)).sqrt()).ln_1p()
    }

    /// Inverse hyperbolic tangent, `ln_1p(2|x|/(1 − |x|))/2` with the sign of `x`; ±Inf at ±1,
    /// NaN beyond. Relative error ≤ [`bounds::ATANH`](super::bounds::ATANH)·u.
    pub fn atanh(self) -> Qd {
        let x0 = self.c[0];
        if x0 == 0.0 || x0.is_nan() {
            return self;
        }
        let a = self.abs();
        if a > Qd::ONE {
            return Qd::NAN;
        }
        if a == Qd::ONE {
            return Qd::INFINITY.copysign(self);
        }
        let r = (a.ldexp(1) / (1.0 - a)).ln_1p().ldexp(-1);
        r.copysign(self)
    }
}

/// `x − k·ln 2` for an integer-valued `f64` `k` (|k| ≤ 1100): the leading product
/// `k·ln2[0]` is exact (TwoProd) and cancels against `x`; the tail `k·Σ ln2[1..6]` is summed
/// first, so that only two roundings of size `u·|r|` occur.
fn sub_k_ln2(x: Qd, k: f64) -> Qd {
    if k == 0.0 {
        return x;
    }
    let (p0, e0) = two_prod(k, LN_2_WORDS[0]);
    let mut tail = Qd::ZERO;
    for &w in LN_2_WORDS[1..].iter().rev() {
        let (p, e) = two_prod(k, w);
        tail += Qd::new(p, e, 0.0, 0.0);
    }
    (x - Qd::new(p0, e0, 0.0, 0.0)) - tail
}

/// The quad-double of an `f64::atan2` result that is 0 or a multiple of π/4 (the cases with a
/// zero or infinite argument).
fn multiple_of_pi_4(v: f64) -> Qd {
    use std::f64::consts as c;
    let a = v.abs();
    let q = if a == c::PI {
        Qd::PI
    } else if a == c::FRAC_PI_2 {
        Qd::FRAC_PI_2
    } else if a == c::FRAC_PI_4 {
        Qd::FRAC_PI_4
    } else if a == 3.0 * c::FRAC_PI_4 {
        FRAC_3PI_4
    } else {
        return Qd::from_f64(v);
    };
    q.copysign(Qd::from_f64(v))
}

/// `a % b` with the sign of `a`, as `f64`'s `%` (`fmod`): `a − trunc(a/b)·b`, corrected by
/// one `b` where the rounded quotient was off by one. NaN if `b` is 0 or `a` is infinite;
/// `a` if `b` is infinite. The error is **absolute**: ≤ [`bounds::REM`](super::bounds::REM)·u·|a|
/// (for `|a/b| < 2^200`), since the quotient's rounding cannot be undone without more words;
/// larger quotients are reduced in steps and only keep `|result| ≲ |a|·u` meaningful.
impl Rem for Qd {
    type Output = Qd;
    fn rem(self, b: Qd) -> Qd {
        let (a0, b0) = (self.c[0], b.c[0]);
        if a0.is_nan() || b0.is_nan() || a0.is_infinite() || b0 == 0.0 {
            return Qd::NAN;
        }
        if b0.is_infinite() || a0 == 0.0 {
            return self;
        }
        // Quotients beyond 2^200 (or beyond the exponent range) are reduced in steps by
        // `b·2^k`, each step a remainder with a quotient below 2^201 (at most 11 steps).
        let mut r = self;
        for _ in 0..16 {
            let gap = exponent(r.c[0]) - exponent(b0);
            if gap <= 200 || r.c[0] == 0.0 {
                break;
            }
            r = rem_core(r, b.ldexp(gap - 200));
        }
        if r.c[0] == 0.0 {
            return Qd::from_f64(0.0f64.copysign(a0));
        }
        rem_core(r, b)
    }
}

/// `a % b` for finite non-zero `a`, `b` with `|a/b| < 2^202`.
fn rem_core(a: Qd, b: Qd) -> Qd {
    {
        let a0 = a.c[0];
        let n = (a / b).trunc();
        let mut r = a - n * b;
        let ba = b.abs();
        // Bring r into the half-open range of fmod: same sign as a, |r| < |b|.
        let wrong_sign = r.c[0] != 0.0 && r.is_sign_negative() != a.is_sign_negative();
        if wrong_sign || r.abs() >= ba {
            r = if r.is_sign_negative() { r + ba } else { r - ba };
        }
        if r.c[0] == 0.0 {
            Qd::from_f64(0.0f64.copysign(a0))
        } else {
            r
        }
    }
}

/// `a % b` for an `f64` `b` (the quad-double remainder).
impl Rem<f64> for Qd {
    type Output = Qd;
    fn rem(self, b: f64) -> Qd {
        self % Qd::from_f64(b)
    }
}

impl RemAssign for Qd {
    fn rem_assign(&mut self, b: Qd) {
        *self = *self % b;
    }
}

impl RemAssign<f64> for Qd {
    fn rem_assign(&mut self, b: f64) {
        *self = *self % b;
    }
}
