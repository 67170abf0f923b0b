//! Exponentials, logarithms, powers and the cube root.
//!
//! * `exp`: `x = k·ln2 + r` with `ln 2` as a triple-double so that `r` is exact to `2^-150`
//!   (an [`Expansion`]), then `r = j/64 + r'`, `|r'| ≤ 1/128`, and
//!   `expm1(r) = expm1(j/64) + exp(j/64)·expm1(r')` with a 45-entry table and a degree-12 Taylor
//!   polynomial (its terms from `r'^8/8!` on in `f64`); `|r| ≤ 1/128` uses the polynomial
//!   directly. `exp_m1` near 0, where the relative error of `expm1(r)` counts, keeps the
//!   degree-16 polynomial on `|r| ≤ 1/16` and the table beyond. This is Tang's table method
//!   (Tang, "Table-driven implementation of the exponential function in IEEE floating-point
//!   arithmetic", ACM TOMS 15(2), 1989) carried out in double-double.
//! * `ln`: `x = 2^k·m`, `m ∈ [1/√2, √2)`, `m·r_i = 1 + s` with `r_i ≈ 1/(1 + i/64)` from a
//!   48-entry table of `−ln r_i` in triple-double, and `ln(1+s) = s − s²/2 + s³·P(s)`, the first
//!   two terms exact and `P` in double-double (the same table-driven shape as Tang 1990 for
//!   the logarithm). Everything is summed exactly in an [`Expansion`] and rounded once, so the
//!   logarithm is nearly correctly rounded and its triple-double form serves `pow`.
//! * `pow`: `y·ln x` is formed exactly from the triple-double logarithm, so that its absolute
//!   error stays far below `2^-106` even when `|y·ln x|` is near 709 and the result near
//!   overflow; then the exponential of that expansion.

use super::super::Dd;
use super::super::consts::{EXPM1_J64, INV_FACT, LN2_3, LOG_TABLE, LOG2E_3, LOG10_2_3, LOG10E_3};
use super::expansion::Expansion;
use super::{frexp, ldexp};
use crate::eft::{fast_two_sum, two_prod};

/// `x > ln(Dd::MAX)`: every exponential overflows (`ln(f64::MAX) ≈ 709.782712893384`).
const EXP_OVERFLOW: f64 = 709.782_712_893_384;
/// `x < ln(2^-1075)`: every exponential underflows to zero.
const EXP_UNDERFLOW: f64 = -745.133_219_101_941_2;

/// `1/n` as a double-double with relative error below `2^-106` (the remainder `1 − n·hi` is
/// exact by FMA).
#[inline]
fn inv_int(n: f64) -> Dd {
    let hi = 1.0 / n;
    let lo = (-hi).mul_add(n, 1.0) / n;
    Dd { hi, lo }
}

/// `expm1(r)` for `|r| ≤ 1/16` by its Taylor polynomial of degree 16 (truncation below
/// `2^-128·|r|`), `r + r²·(1/2! + r/3! + … + r^14/16!)`.
fn expm1_taylor(r: Dd) -> Dd {
    let mut q = INV_FACT[16];
    for c in INV_FACT[2..16].iter().rev() {
        q = q * r + *c;
    }
    r + r.sqr() * q
}

/// Tang's table step for `|r| ≤ 0.36` (the range left by the `k·ln 2` reduction): `poly(r)`
/// itself for `|r| ≤ direct`, else `r = j/64 + r'` with `j = round(64r) ≠ 0` and
/// `expm1(r) = e + (1 + e)·poly(r')`, `e = expm1(j/64)` from the table.
fn expm1_table(r: Dd, direct: f64, poly: fn(Dd) -> Dd) -> Dd {
    if r.hi.abs() <= direct {
        return poly(r);
    }
    let j = (r.hi * 64.0).round().clamp(-22.0, 22.0);
    // r.hi − j/64 is exact (Sterbenz: both lie within a factor 2 of each other for j ≠ 0).
    let rp = Dd::new(r.hi - j / 64.0, r.lo);
    let t = poly(rp);
    let e = EXPM1_J64[(j as i32 + 22) as usize];
    e + t * (e + 1.0)
}

/// `expm1(r)` for `|r| ≤ 0.36` where its relative error counts (`exp_m1`): the degree-16
/// polynomial on `|r| ≤ 1/16`, the table beyond.
fn expm1_reduced(r: Dd) -> Dd {
    expm1_table(r, 0.0625, expm1_taylor)
}

/// Degree of [`expm1_small`]'s Taylor polynomial: for `|r| ≤ 1/128 + ε` the truncation
/// `r^13/13!` is below `2^-116·|r|`.
const EXP_DEGREE: usize = 12;

/// The first term of [`expm1_small`]'s polynomial summed in `f64`: the terms from `r^8/8!` on
/// total below `2^-56` of the polynomial (`≈ 1/2`), so their `f64` Horner evaluation on `r.hi`
/// (a few `2^-53` of them) costs below `2^-107` of it, and six double-double steps remain.
const EXP_TAIL_FROM: usize = 8;

/// `expm1(r)` for `|r| ≤ 1/128 + ε`: `r + r²·(1/2! + r/3! + … + r^10/12!)`, the terms from
/// [`EXP_TAIL_FROM`] on in `f64` (plain operations: the GPU twin's bits).
fn expm1_small(r: Dd) -> Dd {
    let mut s = INV_FACT[EXP_DEGREE].hi;
    for c in INV_FACT[EXP_TAIL_FROM..EXP_DEGREE].iter().rev() {
        s = s * r.hi + c.hi;
    }
    let mut q = Dd::from_f64(s);
    for c in INV_FACT[2..EXP_TAIL_FROM].iter().rev() {
        q = q * r + *c;
    }
    r + r.sqr() * q
}

/// `expm1(r)` for `|r| ≤ ln 2/2 + ε` as `exp` and `exp2` use it (the result then enters
/// `1 + w`, so its absolute error counts): Tang's table at every `j = round(64r) ≠ 0`
/// (`r − j/64` exact by Sterbenz, `|r'| ≤ 1/128`) and the short polynomial [`expm1_small`].
fn exp_reduced(r: Dd) -> Dd {
    expm1_table(r, 1.0 / 128.0, expm1_small)
}

/// Splits an exact argument `z` (an expansion, `|z| ≤ 746`) as `k·ln 2 + r`, `|r| ≤ 0.36`,
/// returning `k` and `r` rounded to a double-double (absolute error below `2^-150` before that
/// rounding).
fn reduce_ln2(mut z: Expansion) -> (i32, Dd) {
    let k = (z.approx() / std::f64::consts::LN_2).round();
    // k·L1 and k·L2 are exact (TwoProd); k·L3 ≤ 2^-96 is rounded, error below 2^-150.
    z.add_prod(-k, LN2_3[0]);
    z.add_prod(-k, LN2_3[1]);
    z.add(-k * LN2_3[2]);
    let (hi, lo) = z.to_dd();
    (k as i32, Dd { hi, lo })
}

/// `2^k·(1 + w)` with overflow to +Inf and gradual underflow; `lo` is zeroed if `hi` is not
/// finite or zero.
fn scale_one_plus(w: Dd, k: i32) -> Dd {
    let m = w + 1.0;
    clean(m.ldexp(k))
}

/// Keeps the invariant for special results: a non-finite or zero `hi` has `lo = 0`.
#[inline]
pub(super) fn clean(d: Dd) -> Dd {
    if d.hi.is_finite() && d.hi != 0.0 {
        let (h, l) = fast_two_sum(d.hi, d.lo);
        Dd { hi: h, lo: l }
    } else {
        Dd { hi: d.hi, lo: 0.0 }
    }
}

/// `exp(z)` of an exact expansion `z` (finite).
pub(super) fn exp_expansion(z: Expansion) -> Dd {
    let a = z.approx();
    if a > EXP_OVERFLOW + 1e-9 {
        return Dd::INFINITY;
    }
    if a < EXP_UNDERFLOW - 1e-9 {
        return Dd::ZERO;
    }
    let (k, r) = reduce_ln2(z);
    scale_one_plus(exp_reduced(r), k)
}

/// `|x|` as an expansion of its words.
fn expansion_of(words: &[f64]) -> Expansion {
    let mut e = Expansion::new();
    e.add_all(words);
    e
}

/// The logarithm of an exact positive finite expansion `x` (its words in any order, at least
/// one non-zero), in base `b`: `log_b x = k·log_b 2 + log_b e·ln m`. `scale` is `log_b e`
/// and `k_scale` is `log_b 2`, both as triple-doubles. The result is an expansion whose
/// absolute error is below `2^-122·|log_b e|` and relative error below `2^-150` where
/// `x = 1 + s` with `|s| < 1/128`.
pub(super) fn log_expansion(words: &[f64], scale: &[f64; 3], k_scale: &[f64; 3]) -> Expansion {
    let approx = words.iter().fold(0.0, |s, &w| s + w);
    // Exponent k with m = x·2^-k in [1/√2, √2).
    let (f, e) = frexp(approx);
    let k = if f < std::f64::consts::FRAC_1_SQRT_2 {
        e - 1
    } else {
        e
    };
    let m_hi = ldexp(approx, -k);
    let i = ((m_hi - 1.0) * 64.0).round().clamp(-20.0, 27.0) as i32;
    let (ri, t) = LOG_TABLE[(i + 20) as usize];
    // s = m·r_i − 1 exactly: each scaled word times r_i by TwoProd (scaling by 2^-k is exact
    // unless a word underflows, which only happens far below 2^-150 relative).
    let mut s = Expansion::new();
    for &w in words {
        s.add_prod(ldexp(w, -k), ri);
    }
    s.add(-1.0);
    let (sh, sl) = s.to_dd();
    let sd = Dd { hi: sh, lo: sl };
    // ln(1+s) = s − s²/2 + s³·(1/3 − s/4 + … + s^16/19), |s| ≤ 0.0112: truncation < 2^-127.
    // The terms from s^8/11 on total below 2^-53.9 of the polynomial: summed in f64 on s.hi
    // (a few 2^-53 of them), they cost below 2^-105 of it, 2^-119 of the result after the
    // factor s³; eight double-double steps remain of sixteen.
    let sign = |n: usize, c: f64| if n % 2 == 1 { c } else { -c };
    let mut tail = sign(19, 1.0 / 19.0);
    for n in (LN_TAIL_FROM..19).rev() {
        tail = tail * sh + sign(n, inv_int(n as f64).hi);
    }
    let mut p = Dd::from_f64(tail);
    for n in (3..LN_TAIL_FROM).rev() {
        let c = inv_int(n as f64);
        p = p * sd + if n % 2 == 1 { c } else { -c };
    }
    let r3 = sd.sqr() * sd * p;
    let mut ln_m = s;
    // −s²/2 with the square of the rounded s: its error, 2^-106·s², is below 2^-120 relative.
    ln_m.add_prod(-0.5 * sh, sh);
    ln_m.add_prod(-sh, sl);
    ln_m.add(r3.hi);
    ln_m.add(r3.lo);
    ln_m.add_all(&t);
    let mut out = if *scale == ONE_3 {
        ln_m
    } else {
        // (t0 + t1 + t2)·scale: the products above 2^-150 relative, exact where it matters.
        let td = ln_m.to_td();
        let mut o = Expansion::new();
        o.add_mul(&td[..2], scale);
        o.add_prod(td[2], scale[0]);
        o
    };
    let kf = k as f64;
    out.add_prod(kf, k_scale[0]);
    out.add_prod(kf, k_scale[1]);
    out.add(kf * k_scale[2]);
    out
}

/// The first `n` of the `±1/n` coefficients of `log_expansion`'s polynomial summed in `f64`.
const LN_TAIL_FROM: usize = 11;

/// The unit triple `[1, 0, 0]` (natural logarithm: no change of base).
const ONE_3: [f64; 3] = [1.0, 0.0, 0.0];

impl Dd {
    /// `eˣ`: Tang's table method in double-double (method notes in `dd/func/explog.rs`), relative
    /// error ≤ [`bounds::EXP`](crate::dd::bounds::EXP)·u. Overflows to +Inf above
    /// `ln(f64::MAX) ≈ 709.78`; below `−708.4` the result is subnormal or its low word is, and
    /// the bound becomes the absolute `2^-1074` per word. `exp(NaN) = NaN`, `exp(−Inf) = 0`.
    pub fn exp(self) -> Dd {
        if !self.hi.is_finite() {
            return Dd::from_f64(self.hi.exp());
        }
        exp_expansion(expansion_of(&[self.hi, self.lo]))
    }

    /// `2ˣ`: `x = k + f`, `|f| ≤ 1/2` (exact), then `2^k·exp(f·ln 2)` with the product formed
    /// exactly; exact for integer `x`. Relative error ≤ [`bounds::EXP`](crate::dd::bounds::EXP)·u
    /// (same domain as [`Dd::exp`]).
    pub fn exp2(self) -> Dd {
        if !self.hi.is_finite() {
            return Dd::from_f64(self.hi.exp2());
        }
        if self.hi > 1024.5 {
            return Dd::INFINITY;
        }
        if self.hi < -1076.0 {
            return Dd::ZERO;
        }
        let k = self.hi.round();
        let f = Dd::new(self.hi - k, self.lo);
        let mut z = Expansion::new();
        z.add_mul(&[f.hi, f.lo], &LN2_3);
        let (hi, lo) = z.to_dd();
        let r = Dd { hi, lo };
        scale_one_plus(exp_reduced(r), k as i32)
    }

    /// `eˣ − 1`, accurate near 0: directly the reduced-range kernel for `|x| ≤ 0.34`, else
    /// `2^k·expm1(r) + (2^k − 1)`. Relative error ≤ [`bounds::EXP_M1`](crate::dd::bounds::EXP_M1)·u
    /// for results in the normal range; overflows as [`Dd::exp`]; `exp_m1(±0) = ±0`.
    pub fn exp_m1(self) -> Dd {
        if !self.hi.is_finite() || self.hi == 0.0 {
            return Dd::from_f64(self.hi.exp_m1());
        }
        if self.hi.abs() <= 0.34 {
            return expm1_reduced(self);
        }
        if self.hi > 75.0 {
            // e^x > 2^108: the −1 is below half an ulp of the low word.
            return self.exp();
        }
        if self.hi < -80.0 {
            // e^x < 2^-115: −1 + e^x rounds to −1 + (e^x as lo word), exact enough.
            return clean(Dd::new(-1.0, self.exp().hi));
        }
        let (k, r) = reduce_ln2(expansion_of(&[self.hi, self.lo]));
        let w = expm1_reduced(r);
        // 2^k − 1 is exact as a double-double for |k| ≤ 106 (here −116 ≤ k ≤ 109, and the
        // few bits lost for |k| > 106 are below the bound).
        let pk = ldexp(1.0, k);
        clean(w.ldexp(k) + Dd::new(pk, -1.0))
    }

    /// Natural logarithm: table-driven reduction and exact assembly (method notes in
    /// `dd/func/explog.rs`), relative error ≤ [`bounds::LN`](crate::dd::bounds::LN)·u.
    /// `ln(±0) = −Inf`, `ln(x < 0) = NaN`, `ln(+Inf) = +Inf`, `ln(1) = +0`.
    pub fn ln(self) -> Dd {
        self.log_base(&ONE_3, &LN2_3, f64::ln)
    }

    /// Base-2 logarithm, `k + log₂e·ln m` assembled exactly (exact for powers of two);
    /// relative error ≤ [`bounds::LN`](crate::dd::bounds::LN)·u. Special values as `f64::log2`.
    pub fn log2(self) -> Dd {
        self.log_base(&LOG2E_3, &[1.0, 0.0, 0.0], f64::log2)
    }

    /// Base-10 logarithm, `k·log₁₀2 + log₁₀e·ln m` assembled exactly; relative error
    /// ≤ [`bounds::LN`](crate::dd::bounds::LN)·u. Special values as `f64::log10`.
    pub fn log10(self) -> Dd {
        self.log_base(&LOG10E_3, &LOG10_2_3, f64::log10)
    }

    /// Shared body of `ln`, `log2`, `log10`.
    fn log_base(self, scale: &[f64; 3], k_scale: &[f64; 3], f: fn(f64) -> f64) -> Dd {
        if !(self.hi > 0.0 && self.hi.is_finite()) {
            return Dd::from_f64(f(self.hi));
        }
        if self.hi == 1.0 && self.lo == 0.0 {
            return Dd::ZERO;
        }
        let (hi, lo) = log_expansion(&[self.hi, self.lo], scale, k_scale).to_dd();
        Dd { hi, lo }
    }

    /// `ln(1 + x)`, accurate near 0: `1 + x` is kept exact as a three-word expansion and fed to
    /// the logarithm kernel. Relative error ≤ [`bounds::LN`](crate::dd::bounds::LN)·u.
    /// `ln_1p(−1) = −Inf`, NaN below −1, `ln_1p(±0) = ±0`.
    pub fn ln_1p(self) -> Dd {
        if !self.hi.is_finite() || self.hi == 0.0 || self.hi < -1.0 {
            return Dd::from_f64(self.hi.ln_1p());
        }
        // 1 + hi is exact (TwoSum), so the sign of 1 + x is exact too.
        let one_plus = Dd::new(1.0, self.hi) + self.lo;
        if one_plus.hi < 0.0 {
            return Dd::NAN;
        }
        if one_plus.hi == 0.0 {
            return Dd::NEG_INFINITY;
        }
        let (hi, lo) = log_expansion(&[1.0, self.hi, self.lo], &ONE_3, &LN2_3).to_dd();
        Dd { hi, lo }
    }

    /// Logarithm in base `base`: `ln(self) / ln(base)` (as `f64::log`), relative error
    /// ≤ [`bounds::LOG`](crate::dd::bounds::LOG)·u.
    pub fn log(self, base: Dd) -> Dd {
        self.ln() / base.ln()
    }

    /// `self^y`: `exp(y·ln|self|)` with `y·ln|self|` formed exactly from the triple-double
    /// logarithm, so the bound ≤ [`bounds::POW`](crate::dd::bounds::POW)·u holds up to results
    /// near overflow (normal range). Rules of `f64::powf`: `x^±0 = 1` and `1^y = 1` even for
    /// NaN; a negative base needs an integral `y` (else NaN) and the sign follows its parity;
    /// zeros and infinities as `f64::powf`.
    pub fn pow(self, y: Dd) -> Dd {
        if y.hi == 0.0 || (self.hi == 1.0 && self.lo == 0.0) {
            return Dd::ONE;
        }
        if self.is_nan() || y.is_nan() {
            return Dd::NAN;
        }
        let parity = int_parity(y);
        if !self.hi.is_finite() || self.hi == 0.0 || !y.hi.is_finite() {
            // Special base or exponent: the answer depends only on signs, |x| vs 1 and the
            // parity of y, which these substitutes preserve.
            let y_sub = if y.hi.is_finite() {
                let mag: f64 = match parity {
                    Some(true) => 3.0,
                    Some(false) => 2.0,
                    None => 2.5,
                };
                mag.copysign(y.hi)
            } else {
                y.hi
            };
            let x_sub = if self.hi.is_finite() && self.hi != 0.0 {
                let a = self.abs();
                let m: f64 = if a == Dd::ONE {
                    1.0
                } else if a > Dd::ONE {
                    2.0
                } else {
                    0.5
                };
                m.copysign(self.hi)
            } else {
                self.hi
            };
            return Dd::from_f64(x_sub.powf(y_sub));
        }
        let negative = self.hi < 0.0;
        if negative && parity.is_none() {
            return Dd::NAN;
        }
        let a = self.abs();
        let ln_a = log_expansion(&[a.hi, a.lo], &ONE_3, &LN2_3).to_td();
        // Far outside the exponent range y·ln|x| could overflow the products: decide early.
        let approx = y.hi * ln_a[0];
        if approx.abs() > 1e4 {
            let r = if approx > 0.0 { Dd::INFINITY } else { Dd::ZERO };
            return if negative && parity == Some(true) {
                -r
            } else {
                r
            };
        }
        let mut z = Expansion::new();
        z.add_mul(&[y.hi, y.lo], &ln_a);
        let r = exp_expansion(z);
        if negative && parity == Some(true) {
            -r
        } else {
            r
        }
    }

    /// `self^y` for an `f64` exponent: [`Dd::pow`] (same bound and special values).
    pub fn powf(self, y: f64) -> Dd {
        self.pow(Dd::from_f64(y))
    }

    /// `self^n`: one product for `n = 2`, one division for `n = −1`, otherwise [`Dd::pow`]
    /// (binary powering would let the error grow like `5(|n|−1)u`). Relative error
    /// ≤ [`bounds::POWI`](crate::dd::bounds::POWI)·u for every `n`; `x^0 = 1` even for NaN.
    pub fn powi(self, n: i32) -> Dd {
        match n {
            0 => Dd::ONE,
            1 => self,
            2 => self.sqr(),
            -1 => self.recip(),
            _ => self.pow(Dd::from_f64(n as f64)),
        }
    }

    /// Cube root: one Newton step from `cbrt(hi)` with the residual `x − y₀³` formed exactly
    /// and the quadratic term of the correction included, relative error
    /// ≤ [`bounds::CBRT`](crate::dd::bounds::CBRT)·u. Odd; ±0, ±Inf, NaN as `f64::cbrt`.
    pub fn cbrt(self) -> Dd {
        if !self.hi.is_finite() || self.hi == 0.0 {
            return Dd::from_f64(self.hi.cbrt());
        }
        let a = self.abs();
        // Bring a into [2^-300, 2^300) by a power 2^(3j) so that y0³ neither overflows nor
        // underflows and the TwoProd errors stay exact.
        let e = frexp(a.hi).1;
        let j = e.div_euclid(3);
        let x = Dd {
            hi: ldexp(a.hi, -3 * j),
            lo: ldexp(a.lo, -3 * j),
        };
        let y0 = x.hi.cbrt();
        let (p, pe) = two_prod(y0, y0);
        let mut n = Expansion::new();
        n.add_all(&[x.hi, x.lo]);
        n.add_prod(-p, y0);
        n.add_prod(-pe, y0);
        let (nh, nl) = n.to_dd();
        // d = N/(3y0²) ≈ δ + δ²/y0 for y = y0 + δ; hence δ ≈ d − d²/y0.
        let d = Dd { hi: nh, lo: nl } / (Dd { hi: p, lo: pe } * 3.0);
        let delta = d - d.hi * d.hi / y0;
        let y = delta + y0;
        let y = y.ldexp(j);
        if self.hi < 0.0 { -y } else { y }
    }
}

/// `Some(odd)` if `y` is an integer, `None` otherwise (finite `y`).
fn int_parity(y: Dd) -> Option<bool> {
    if !y.hi.is_finite() {
        return None;
    }
    let (h, l) = (y.hi, y.lo);
    if h.fract() != 0.0 || l.fract() != 0.0 {
        return None;
    }
    // Odd if exactly one word is odd (|h| ≥ 2^53 is even).
    let odd = |v: f64| v.abs() < 9_007_199_254_740_992.0 && (v % 2.0) != 0.0;
    Some(odd(h) != odd(l))
}
