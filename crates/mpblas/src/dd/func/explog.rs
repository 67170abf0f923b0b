//! Exponentials, logarithms, powers and the cube root.
//!
//! * `exp`: `x = k·ln2 + r` with `ln 2` as a triple-double, `r` summed by weight with exact
//!   transformations (no expansion: the GPU keeps it in registers) and rounded once to a
//!   double-double (absolute error below `0.4u`; `pow` and the hyperbolic functions reduce an
//!   [`Expansion`] instead), then `r = j/64 + r'`, `|r'| ≤ 1/128`, and
//!   `expm1(r) = expm1(j/64) + exp(j/64)·expm1(r')` with a 45-entry table and a degree-12 Taylor
//!   polynomial (its terms from `r'^8/8!` on in `f64`); `|r| ≤ 1/128` uses the polynomial
//!   directly. `exp_m1` near 0, where the relative error of `expm1(r)` counts, keeps the
//!   degree-16 polynomial on `|r| ≤ 1/16` and the table beyond. This is Tang's table method
//!   (Tang, "Table-driven implementation of the exponential function in IEEE floating-point
//!   arithmetic", ACM TOMS 15(2), 1989) carried out in double-double.
//! * `ln`: `x = 2^k·m`, `m ∈ [1/√2, √2)`, `m·r_i = 1 + s` with `r_i ≈ 1/(1 + i/64)` from a
//!   48-entry table of `−ln r_i` in triple-double, and `ln(1+s) = s − s²/2 + s³·P(s)`, the first
//!   two terms exact and `P` in double-double (the same table-driven shape as Tang 1990 for
//!   the logarithm). `ln` sums the pieces by weight in three levels of exact transformations
//!   and rounds once (relative error below `1.01u`, no expansion: the GPU keeps it in
//!   registers); `log2`, `log10`, `ln_1p` and `pow` sum them exactly in an [`Expansion`], whose
//!   triple-double form serves `pow`.
//! * `pow`: `y·ln x` is formed exactly from the triple-double logarithm, so that its absolute
//!   error stays far below `2^-106` even when `|y·ln x|` is near 709 and the result near
//!   overflow; then the exponential of that expansion.

use super::super::Dd;
use super::super::consts::{EXPM1_J64, INV_FACT, LN2_3, LOG_TABLE, LOG2E_3, LOG10_2_3, LOG10E_3};
use super::expansion::Expansion;
use super::{frexp, ldexp};
use crate::eft::{fast_two_sum, sub_multiple_dd, two_prod, two_sum};

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

/// [`reduce_ln2`] for a finite double-double `x = hi + lo` (`|hi| ≤ 746`), without an
/// expansion (the twin of the GPU's register-resident kernels): `k = round(hi/ln 2)`, and with
/// `aᵢ + bᵢ = k·Lᵢ` exact (TwoProd, `L` = [`LN2_3`]): `d = hi − a₀` is exact (Sterbenz for
/// `|k| ≥ 2`; for `|k| = 1`, `hi` can fall just below `a₀/2`, and then `a₀ − hi` is a multiple
/// of `ulp(hi)` in `hi`'s binade), the order-`2^-53` terms `lo − b₀ − a₁ = s + e₁ + e₂`
/// exactly (TwoSum), the order-`2^-106` terms `e₁ + e₂ − b₁ − k·L₂` in `f64` (error below
/// `2^-144`), and `r ≈ h + fl(e₃ + low)` with `d + s = h + e₃`. The error of `r` is below `2^-106·|r| + 2^-143`, as [`reduce_ln2`]'s.
fn reduce_ln2_dd(hi: f64, lo: f64) -> (i32, Dd) {
    let k = (hi / std::f64::consts::LN_2).round();
    let (rh, rl) = sub_multiple_dd(hi, lo, k, LN2_3);
    (k as i32, Dd { hi: rh, lo: rl })
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

/// The logarithm of an exact positive finite expansion `x` (its words in any order, at least
/// one non-zero), in base `b`: `log_b x = k·log_b 2 + log_b e·ln m`. `scale` is `log_b e`
/// and `k_scale` is `log_b 2`, both as triple-doubles. The result is an expansion whose
/// absolute error is below `2^-122·|log_b e|` and relative error below `2^-150` where
/// `x = 1 + s` with `|s| < 1/128`.
pub(super) fn log_expansion(words: &[f64], scale: &[f64; 3], k_scale: &[f64; 3]) -> Expansion {
    let (k, ri, t) = log_table_step(words.iter().fold(0.0, |s, &w| s + w));
    // s = m·r_i − 1 exactly: each scaled word times r_i by TwoProd (scaling by 2^-k is exact
    // unless a word underflows, which only happens far below 2^-150 relative).
    let mut s = Expansion::new();
    for &w in words {
        s.add_prod(ldexp(w, -k), ri);
    }
    s.add(-1.0);
    let (sh, sl) = s.to_dd();
    let r3 = ln1p_cubic(Dd { hi: sh, lo: sl });
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

/// `x = 2^k·m` with `m ∈ [1/√2, √2)` judged on `approx ≈ x`, and the table row of
/// `i = round(64·(m − 1))`: `(k, r_i, −ln r_i)` with `r_i ≈ 1/(1 + i/64)` (`r_0 = 1`, `−ln r_0 = 0`)
/// and `−ln r_i` a triple-double, so that `m·r_i = 1 + s` with `|s| ≤ 0.0112`.
fn log_table_step(approx: f64) -> (i32, f64, [f64; 3]) {
    let (f, e) = frexp(approx);
    let k = if f < std::f64::consts::FRAC_1_SQRT_2 {
        e - 1
    } else {
        e
    };
    let m_hi = ldexp(approx, -k);
    let i = ((m_hi - 1.0) * 64.0).round().clamp(-20.0, 27.0) as i32;
    let (ri, t) = LOG_TABLE[(i + 20) as usize];
    (k, ri, t)
}

/// `ln(1 + s) − s + s²/2 = s³·(1/3 − s/4 + … + s^16/19)` for `|s| ≤ 0.0112` (truncation below
/// `2^-127`). The terms from `s^8/11` on total below `2^-53.9` of the polynomial: summed in `f64`
/// on `s.hi` (a few `2^-53` of them), they cost below `2^-105` of it, `2^-119` of the result after
/// the factor `s³`; eight double-double steps remain of sixteen.
fn ln1p_cubic(sd: Dd) -> Dd {
    let sign = |n: usize, c: f64| if n % 2 == 1 { c } else { -c };
    let mut tail = sign(19, 1.0 / 19.0);
    for n in (LN_TAIL_FROM..19).rev() {
        tail = tail * sd.hi + sign(n, inv_int(n as f64).hi);
    }
    let mut p = Dd::from_f64(tail);
    for n in (3..LN_TAIL_FROM).rev() {
        let c = inv_int(n as f64);
        p = p * sd + if n % 2 == 1 { c } else { -c };
    }
    sd.sqr() * sd * p
}

/// The first `n` of the `±1/n` coefficients of [`ln1p_cubic`]'s polynomial summed in `f64`.
const LN_TAIL_FROM: usize = 11;

/// `ln x` for a positive finite normalised double-double `x = hi + lo ≠ 1`, with a fixed number
/// of exact transformations instead of an expansion (the twin of the GPU's register-resident
/// kernel). Same reduction and polynomial as [`log_expansion`]; `R = |ln x|`, `U = 2^-53`.
///
/// `s = m·r_i − 1 = s₀ + p₂ + q₁ + q₂` exactly, with `p₁ + q₁ = 2^-k·hi·r_i`,
/// `p₂ + q₂ = 2^-k·lo·r_i` (TwoProd) and `s₀ = p₁ − 1` (exact: `p₁` is within `2^-6` of 1).
/// `ln x = k·ln 2 − ln r_i + s − s²/2 + s³P(s)` is then summed by weight:
/// * level 0, the terms of order `R`: `a₀ = fl(k·L₀)`, `t₀`, `s₀`, `p₂`, `fl(−s_h²/2)`, `r₃.hi`,
///   by an exact TwoSum chain (its partial sums stay below `2R + 2^-7`);
/// * level 1, order `U·R`: the TwoProd errors `b₀`, `b(s_h²/2)`, `a₁ = fl(k·L₁)`, `t₁`, `q₁`,
///   `−s_h·s_l`, `r₃.lo` and level 0's errors, by an exact TwoSum chain. Its terms total below
///   `2^-44.8·R`: `q₁` and `b₀` are below `2^-53·max(1.02, |a₀|)`, and `R ≥ 2^-7.1` unless
///   `k = i = 0`, where `r_0 = 1` makes `q₁ = 0` (and `p₂`, of order `R` there, is in level 0);
/// * level 2, order `U²·R`: `b₁`, `k·L₂`, `t₂`, `q₂` and level 1's errors, in `f64` (error below
///   `2^-143·R`);
///
/// Then `h + m = g + z` (TwoSum) and `ln x ≈ g + fl(z + low)`, one rounding of at most
/// `2^-106·|g|`. With the truncation (`2^-127`), the polynomial's error (`r₃ ≤ 2^-22·R`, `2^-18u`
/// of the result) and `s²`'s (`2^-113·R`), the relative error is below `1.01·2^-106`.
fn ln_dd(hi: f64, lo: f64) -> Dd {
    let (k, ri, t) = log_table_step(hi + lo);
    let (p1, q1) = two_prod(ldexp(hi, -k), ri);
    let (p2, q2) = two_prod(ldexp(lo, -k), ri);
    let s0 = p1 - 1.0;
    let (u, v) = two_sum(s0, p2);
    let (sh, sl) = two_sum(u, v + q1);
    let r3 = ln1p_cubic(Dd { hi: sh, lo: sl });
    let kf = k as f64;
    let (a0, b0) = two_prod(kf, LN2_3[0]);
    let (a1, b1) = two_prod(kf, LN2_3[1]);
    let (e0, f0) = two_prod(-0.5 * sh, sh);
    // Level 0.
    let (h, x1) = two_sum(a0, t[0]);
    let (h, x2) = two_sum(h, s0);
    let (h, x3) = two_sum(h, p2);
    let (h, x4) = two_sum(h, e0);
    let (h, x5) = two_sum(h, r3.hi);
    // Level 1.
    let (m, y1) = two_sum(b0, a1);
    let (m, y2) = two_sum(m, t[1]);
    let (m, y3) = two_sum(m, q1);
    let (m, y4) = two_sum(m, f0);
    let (m, y5) = two_sum(m, -sh * sl);
    let (m, y6) = two_sum(m, r3.lo);
    let (m, y7) = two_sum(m, x1);
    let (m, y8) = two_sum(m, x2);
    let (m, y9) = two_sum(m, x3);
    let (m, y10) = two_sum(m, x4);
    let (m, y11) = two_sum(m, x5);
    // Level 2.
    let ys = ((((y1 + y2) + (y3 + y4)) + ((y5 + y6) + (y7 + y8))) + (y9 + y10)) + y11;
    let low = (((b1 + kf * LN2_3[2]) + t[2]) + q2) + ys;
    let (g, z) = two_sum(h, m);
    let (rh, rl) = fast_two_sum(g, z + low);
    Dd { hi: rh, lo: rl }
}

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
        if self.hi > EXP_OVERFLOW + 1e-9 {
            return Dd::INFINITY;
        }
        if self.hi < EXP_UNDERFLOW - 1e-9 {
            return Dd::ZERO;
        }
        let (k, r) = reduce_ln2_dd(self.hi, self.lo);
        scale_one_plus(exp_reduced(r), k)
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
        let (k, r) = reduce_ln2_dd(self.hi, self.lo);
        let w = expm1_reduced(r);
        // 2^k − 1 is exact as a double-double for |k| ≤ 106 (here −116 ≤ k ≤ 109, and the
        // few bits lost for |k| > 106 are below the bound).
        let pk = ldexp(1.0, k);
        clean(w.ldexp(k) + Dd::new(pk, -1.0))
    }

    /// Natural logarithm: table-driven reduction and an assembly by weight in exact
    /// transformations, rounded once (method notes in `dd/func/explog.rs`), relative error ≤ [`bounds::LN`](crate::dd::bounds::LN)·u.
    /// `ln(±0) = −Inf`, `ln(x < 0) = NaN`, `ln(+Inf) = +Inf`, `ln(1) = +0`.
    pub fn ln(self) -> Dd {
        if !(self.hi > 0.0 && self.hi.is_finite()) {
            return Dd::from_f64(self.hi.ln());
        }
        if self.hi == 1.0 && self.lo == 0.0 {
            return Dd::ZERO;
        }
        ln_dd(self.hi, self.lo)
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
