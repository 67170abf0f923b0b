//! `MpFloat`: a multiple-precision float with an RNS significand (number format (5) of the
//! MPRES-BLAS paper): `x = (−1)^s · X · 2^e`, `X` held as residues modulo the basis, with the
//! interval evaluation `I(X/M)` stored beside it.
//!
//! # Invariants
//!
//! - A finite nonzero number is *normalised*: `2^(p−1) ≤ X < 2^p` (exactly `p` bits), so the
//!   exponent alone orders magnitudes of different binades and equals MPFR's representation.
//! - Zero has all residues 0 and a sign; ±Inf and NaN are a [`Class`], not magic exponents.
//! - `eval` encloses `X/M` (both bounds are extended-range floats, rounded outward).
//!
//! # Rounding
//!
//! Every operation computes its result exactly in RNS (products of `p`-bit significands are
//! below `M/4`; sums are aligned within the dynamic range, the smaller operand truncated only
//! when it cannot cancel, its dropped part remembered as a tail) and rounds it once to `p`
//! bits, to nearest with ties to even. So `fl(x∘y) = (x∘y)(1+δ)`, `|δ| ≤ u/(1+u) < u = 2^-p`,
//! and `u < 4/√M` (bound (6) of the papers); results equal MPFR's at precision `p` (`RNDN`).
//!
//! # Range
//!
//! A finite nonzero value lies in `[2^(t−1), 2^t)` with `t = e + p` in
//! `[EMIN, EMAX] = [−2^60, 2^60]`. A result whose `t` would exceed `EMAX` becomes ±Inf (the sign
//! of the exact result); one whose `t` would fall below `EMIN` becomes ±0. No realistic
//! computation comes near: `2^(2^60)` has about `3.5·10^17` decimal digits in its exponent.

use super::pool;
use crate::error::{Error, Result};
use crate::rns::basis::{Basis, add_mod, mul_mod, sub_mod};
use crate::rns::extf::ExtF;
use crate::rns::interval::{Tail, bit_length, crt_pass, eval_unsigned, shift_right, sign_of};
use std::borrow::Cow;
use std::cmp::Ordering;
use std::sync::Arc;

/// Largest top-bit position `t = e + p` of a finite value (larger results overflow to ±Inf).
pub const EMAX: i64 = 1 << 60;
/// Smallest top-bit position `t` of a finite nonzero value (smaller results underflow to ±0).
pub const EMIN: i64 = -(1 << 60);

/// An exponent argument clamped to `±2^62`: far enough beyond [`EMIN`]/[`EMAX`] (`±2^60`) that
/// a value scaled by it under- or overflows whatever its significand (at most a few million
/// bits), and near enough to `0` that the rounding's exponent adjustments cannot overflow an
/// `i64` (`from_u64_exp(.., i64::MIN)` was `+∞` and `(.., i64::MAX)` `+0` in release builds).
pub(crate) fn clamp_exponent(exp: i64) -> i64 {
    exp.clamp(-(1 << 62), 1 << 62)
}

/// Kind of value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// Zero or a finite nonzero number.
    Finite,
    /// ±Infinity.
    Infinite,
    /// Not a number (no sign is meaningful).
    Nan,
}

/// A multiple-precision RNS float; see the [module docs](self).
pub struct MpFloat {
    pub(crate) basis: Arc<Basis>,
    pub(crate) class: Class,
    pub(crate) neg: bool,
    pub(crate) exp: i64,
    pub(crate) res: Vec<u32>,
    pub(crate) eval: [ExtF; 2],
}

/// Clones take their residue buffer from the thread's pool (`rns/pool.rs`).
impl Clone for MpFloat {
    fn clone(&self) -> MpFloat {
        MpFloat {
            basis: self.basis.clone(),
            class: self.class,
            neg: self.neg,
            exp: self.exp,
            res: pool::copied(&self.res),
            eval: self.eval,
        }
    }
}

/// Dropping gives the residue buffer back to the thread's pool, so that arithmetic in a loop
/// reuses buffers instead of allocating per operation.
impl Drop for MpFloat {
    fn drop(&mut self) {
        pool::recycle(std::mem::take(&mut self.res));
    }
}

/// An exact operand of the addition core: `(−1)^neg · X · 2^exp` with `X` of exactly `bits` bits.
pub(crate) struct Op<'a> {
    pub neg: bool,
    pub res: Cow<'a, [u32]>,
    pub exp: i64,
    pub bits: u64,
}

impl MpFloat {
    // ----- construction of special values -----

    /// `+0` (or `−0` when `neg`).
    pub fn zero(basis: &Arc<Basis>, neg: bool) -> MpFloat {
        MpFloat {
            basis: basis.clone(),
            class: Class::Finite,
            neg,
            exp: 0,
            res: pool::zeroed(basis.len()),
            eval: [ExtF::ZERO; 2],
        }
    }

    /// `+∞` (or `−∞` when `neg`).
    pub fn infinity(basis: &Arc<Basis>, neg: bool) -> MpFloat {
        let mut x = MpFloat::zero(basis, neg);
        x.class = Class::Infinite;
        x
    }

    /// NaN.
    pub fn nan(basis: &Arc<Basis>) -> MpFloat {
        let mut x = MpFloat::zero(basis, false);
        x.class = Class::Nan;
        x
    }

    // ----- accessors -----

    /// The basis this number lives in.
    pub fn basis(&self) -> &Arc<Basis> {
        &self.basis
    }

    /// The precision `p` in bits.
    pub fn precision(&self) -> u32 {
        self.basis.precision
    }

    /// Finite, infinite or NaN.
    pub fn class(&self) -> Class {
        self.class
    }

    /// True for NaN.
    pub fn is_nan(&self) -> bool {
        self.class == Class::Nan
    }

    /// True for ±∞.
    pub fn is_infinite(&self) -> bool {
        self.class == Class::Infinite
    }

    /// True for zero and finite nonzero numbers.
    pub fn is_finite(&self) -> bool {
        self.class == Class::Finite
    }

    /// True for ±0.
    pub fn is_zero(&self) -> bool {
        self.class == Class::Finite && self.eval[1].is_zero()
    }

    /// True when the sign bit is set (−0, negative numbers, −∞; false for NaN).
    pub fn is_sign_negative(&self) -> bool {
        self.neg && self.class != Class::Nan
    }

    /// The binary exponent `e` of the significand's last bit (`x = ±X·2^e`), 0 for non-finite
    /// values and zero.
    pub fn exponent(&self) -> i64 {
        self.exp
    }

    /// The residues `X mod mᵢ` of the significand.
    pub fn residues(&self) -> &[u32] {
        &self.res
    }

    /// The interval evaluation `[lo, hi] ∋ X/M` as extended-range floats.
    pub fn eval(&self) -> [ExtF; 2] {
        self.eval
    }

    /// `−self` (exact; the sign of zero flips, NaN stays NaN).
    pub fn neg(&self) -> MpFloat {
        let mut r = self.clone();
        r.neg = !r.neg;
        r
    }

    /// `|self|` (exact).
    pub fn abs(&self) -> MpFloat {
        let mut r = self.clone();
        r.neg = false;
        r
    }

    /// `Some(k)` when `self` is `±2^k` (finite, nonzero, significand `2^(p−1)`), else `None`.
    /// A product with it is an exact scaling: `fl(±2^k·x)` is `x.mul_pow2(k)`, negated for
    /// `−2^k` (the fused GEMV's prep takes that path for `α`).
    pub(crate) fn power_of_two_exponent(&self) -> Option<i64> {
        if self.class != Class::Finite || self.is_zero() || !self.significand_is_pow2() {
            return None;
        }
        Some(self.exp + (self.basis.precision as i64 - 1))
    }

    /// True when the significand is `2^(p−1)`: a finite nonzero `self` is then `±2^k`.
    pub(crate) fn significand_is_pow2(&self) -> bool {
        self.res == self.basis.pow2(self.basis.precision as u64 - 1)
    }

    /// `self · 2^k`, exact unless it leaves the exponent range (then ±Inf or ±0 by the range
    /// rule). The significand is untouched: scaling a *number* by a power of two only moves
    /// its exponent; the papers' RNS power-of-two scaling of a *significand* is the exact
    /// `shift_right` used by rounding.
    pub fn mul_pow2(&self, k: i64) -> MpFloat {
        if self.class != Class::Finite || self.is_zero() {
            return self.clone();
        }
        let p = self.basis.precision as i64;
        let t = (self.exp + p).saturating_add(k);
        if t > EMAX {
            return MpFloat::infinity(&self.basis, self.neg);
        }
        if t < EMIN {
            return MpFloat::zero(&self.basis, self.neg);
        }
        let mut r = self.clone();
        r.exp = t - p;
        r
    }

    pub(crate) fn check(&self, other: &MpFloat) -> Result<()> {
        if self.basis.same(&other.basis) {
            Ok(())
        } else {
            Err(Error::BasisMismatch {
                left_bits: self.basis.precision,
                right_bits: other.basis.precision,
            })
        }
    }

    pub(crate) fn op(&self) -> Op<'_> {
        Op {
            neg: self.neg,
            res: Cow::Borrowed(&self.res),
            exp: self.exp,
            bits: self.basis.precision as u64,
        }
    }

    // ----- rounding -----

    /// Rounds the exact value `(−1)^neg · (S ± tail) · 2^exp`, `S < 2^max_bits ≤ M/2`, to `p`
    /// bits (nearest, ties to even), normalises it and computes its evaluation.
    pub(crate) fn finish(
        basis: &Arc<Basis>,
        neg: bool,
        s: Vec<u32>,
        exp: i64,
        tail: Tail,
        max_bits: u64,
    ) -> MpFloat {
        MpFloat::finish_from(basis, basis, neg, s, exp, tail, max_bits)
    }

    /// [`finish`](MpFloat::finish) of a value held in a wider basis `calc` (one that extends
    /// `basis`, [`Basis::with_len`]), rounded to the precision of `basis`: the exact
    /// accumulations of `blas::rns` sum in `calc` and round once. `S < 2^max_bits ≤ M_calc/2`.
    pub(crate) fn finish_from(
        calc: &Basis,
        basis: &Arc<Basis>,
        neg: bool,
        mut s: Vec<u32>,
        exp: i64,
        tail: Tail,
        max_bits: u64,
    ) -> MpFloat {
        debug_assert!(calc.m.starts_with(&basis.m));
        let b = calc;
        let p = basis.precision as u64;
        let Some(ev) = eval_unsigned(b, &s, (b.log2m as u64 - 1).saturating_sub(max_bits)) else {
            debug_assert_eq!(tail, Tail::Zero);
            pool::recycle(s);
            return MpFloat::zero(basis, neg);
        };
        let bits = bit_length(b, &s, &ev, max_bits);
        let mut exp = clamp_exponent(exp);
        if bits <= p {
            debug_assert_eq!(
                tail,
                Tail::Zero,
                "a truncated sum always has more than p bits"
            );
            scale_up(b, &mut s, p - bits);
            exp -= (p - bits) as i64;
        } else {
            let k = bits - p;
            let (round, sticky, odd) = shift_right(b, &mut s, k);
            let up = match tail {
                Tail::Zero => round && (sticky || odd),
                Tail::Above => round,
                Tail::Below => round && sticky,
            };
            exp += k as i64;
            if up {
                for i in 0..b.len() {
                    s[i] = add_mod(s[i], 1, b.m[i]);
                }
                let mut top = pool::zeroed(b.len());
                b.pow2_into(p, &mut top);
                if s == top {
                    // rounded up to 2^p: renormalise to 2^(p−1)·2^(e+1)
                    b.pow2_into(p - 1, &mut s);
                    exp += 1;
                }
                pool::recycle(top);
            }
        }
        // X < 2^p < M of `basis`: its residues are the first ones.
        s.truncate(basis.len());
        MpFloat::normalised(basis, neg, s, exp)
    }

    /// A number from a `p`-bit significand: applies the range rule and evaluates `X/M`.
    pub(crate) fn normalised(basis: &Arc<Basis>, neg: bool, s: Vec<u32>, exp: i64) -> MpFloat {
        let b = &**basis;
        let t = exp.saturating_add(b.precision as i64);
        if t > EMAX {
            pool::recycle(s);
            return MpFloat::infinity(basis, neg);
        }
        if t < EMIN {
            pool::recycle(s);
            return MpFloat::zero(basis, neg);
        }
        // X·2^k_norm ∈ [M/16, M/4): one pass, no refinement needed.
        let ev = eval_unsigned(b, &s, b.k_norm as u64);
        let eval = ev.map_or([ExtF::ZERO; 2], |e| e.bounds());
        MpFloat {
            basis: basis.clone(),
            class: Class::Finite,
            neg,
            exp,
            res: s,
            eval,
        }
    }

    // ----- arithmetic -----

    /// `self + other`, correctly rounded (nearest, ties to even).
    ///
    /// # Errors
    /// [`Error::BasisMismatch`] when the operands have different bases.
    pub fn add(&self, other: &MpFloat) -> Result<MpFloat> {
        self.check(other)?;
        Ok(self.add_signed(other, false))
    }

    /// `self − other`, correctly rounded. `x − x` is `+0`.
    ///
    /// # Errors
    /// [`Error::BasisMismatch`] when the operands have different bases.
    pub fn sub(&self, other: &MpFloat) -> Result<MpFloat> {
        self.check(other)?;
        Ok(self.add_signed(other, true))
    }

    fn add_signed(&self, other: &MpFloat, negate_other: bool) -> MpFloat {
        let bneg = other.neg ^ negate_other;
        match (self.class, other.class) {
            (Class::Nan, _) | (_, Class::Nan) => return MpFloat::nan(&self.basis),
            (Class::Infinite, Class::Infinite) => {
                return if self.neg == bneg {
                    self.clone()
                } else {
                    MpFloat::nan(&self.basis)
                };
            }
            (Class::Infinite, _) => return self.clone(),
            (_, Class::Infinite) => return MpFloat::infinity(&self.basis, bneg),
            _ => {}
        }
        match (self.is_zero(), other.is_zero()) {
            (true, true) => return MpFloat::zero(&self.basis, self.neg && bneg),
            (true, false) => {
                let mut r = other.clone();
                r.neg = bneg;
                return r;
            }
            (false, true) => return self.clone(),
            _ => {}
        }
        let mut b = other.op();
        b.neg = bneg;
        add_core(&self.basis, self.op(), b)
    }

    /// `self × other`, correctly rounded.
    ///
    /// # Errors
    /// [`Error::BasisMismatch`] when the operands have different bases.
    pub fn mul(&self, other: &MpFloat) -> Result<MpFloat> {
        self.check(other)?;
        let neg = self.neg ^ other.neg;
        if let Some(r) = self.mul_special(other, neg) {
            return Ok(r);
        }
        let b = &*self.basis;
        let z = mul_residues(b, &self.res, &other.res);
        Ok(MpFloat::finish(
            &self.basis,
            neg,
            z,
            self.exp + other.exp,
            Tail::Zero,
            2 * b.precision as u64,
        ))
    }

    fn mul_special(&self, other: &MpFloat, neg: bool) -> Option<MpFloat> {
        let bs = &self.basis;
        match (self.class, other.class) {
            (Class::Nan, _) | (_, Class::Nan) => Some(MpFloat::nan(bs)),
            (Class::Infinite, _) | (_, Class::Infinite) => {
                if self.is_zero() || other.is_zero() {
                    Some(MpFloat::nan(bs))
                } else {
                    Some(MpFloat::infinity(bs, neg))
                }
            }
            _ if self.is_zero() || other.is_zero() => Some(MpFloat::zero(bs, neg)),
            _ => None,
        }
    }

    /// Fused multiply-add `self × a + c` with a single rounding.
    ///
    /// The product is formed exactly (below `2^(2p) ≤ M/4`) and enters the addition core as an
    /// operand of up to `2p` bits.
    ///
    /// # Errors
    /// [`Error::BasisMismatch`] when the operands have different bases.
    pub fn fma(&self, a: &MpFloat, c: &MpFloat) -> Result<MpFloat> {
        self.check(a)?;
        self.check(c)?;
        let neg = self.neg ^ a.neg;
        if let Some(prod) = self.mul_special(a, neg) {
            // Product is NaN, ±Inf or ±0: exact, so adding c rounds once.
            return Ok(prod.add_signed(c, false));
        }
        if c.class == Class::Nan {
            return Ok(MpFloat::nan(&self.basis));
        }
        if c.class == Class::Infinite {
            return Ok(c.clone());
        }
        let b = &*self.basis;
        let z = mul_residues(b, &self.res, &a.res);
        if c.is_zero() {
            return Ok(MpFloat::finish(
                &self.basis,
                neg,
                z,
                self.exp + a.exp,
                Tail::Zero,
                2 * b.precision as u64,
            ));
        }
        let max_bits = 2 * b.precision as u64;
        let ev = eval_unsigned(b, &z, b.log2m as u64 - 1 - max_bits);
        let bits = match &ev {
            Some(ev) => bit_length(b, &z, ev, max_bits),
            None => 0, // impossible: p-bit significands are nonzero
        };
        let prod = Op {
            neg,
            res: Cow::Owned(z),
            exp: self.exp + a.exp,
            bits,
        };
        Ok(add_core(&self.basis, prod, c.op()))
    }

    // ----- comparison -----

    /// Compares `|self|` and `|other|` exactly (both finite). The exponents decide different
    /// binades; within one, the interval evaluations decide unless they overlap, and then the
    /// sign of `X − Y` is found exactly by the refined evaluation.
    pub(crate) fn cmp_abs(&self, other: &MpFloat) -> Ordering {
        match (self.is_zero(), other.is_zero()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            _ => {}
        }
        if self.exp != other.exp {
            return self.exp.cmp(&other.exp);
        }
        if self.eval[1].cmp_total(&other.eval[0]) == Ordering::Less {
            return Ordering::Less;
        }
        if self.eval[0].cmp_total(&other.eval[1]) == Ordering::Greater {
            return Ordering::Greater;
        }
        let b = &*self.basis;
        let mut d = pool::zeroed(b.len());
        for i in 0..b.len() {
            d[i] = sub_mod(self.res[i], other.res[i], b.m[i]);
        }
        let sign = sign_of(b, &d, b.precision as u64);
        pool::recycle(d);
        sign
    }

    /// Numeric comparison: `None` when either is NaN; `−0 == +0`.
    ///
    /// # Errors
    /// [`Error::BasisMismatch`] when the operands have different bases.
    pub fn partial_cmp(&self, other: &MpFloat) -> Result<Option<Ordering>> {
        self.check(other)?;
        if self.is_nan() || other.is_nan() {
            return Ok(None);
        }
        Ok(Some(self.cmp_finite_or_inf(other)))
    }

    fn cmp_finite_or_inf(&self, other: &MpFloat) -> Ordering {
        let sa = if self.is_zero() {
            0
        } else if self.neg {
            -1
        } else {
            1
        };
        let sb = if other.is_zero() {
            0
        } else if other.neg {
            -1
        } else {
            1
        };
        if sa != sb {
            return sa.cmp(&sb);
        }
        if sa == 0 {
            return Ordering::Equal;
        }
        let mag = match (self.class, other.class) {
            (Class::Infinite, Class::Infinite) => Ordering::Equal,
            (Class::Infinite, _) => Ordering::Greater,
            (_, Class::Infinite) => Ordering::Less,
            _ => self.cmp_abs(other),
        };
        if sa < 0 { mag.reverse() } else { mag }
    }

    /// IEEE 754 `totalOrder`: `−NaN < −∞ < … < −0 < +0 < … < +∞ < NaN` (NaN here is unsigned and
    /// sorts last).
    ///
    /// # Errors
    /// [`Error::BasisMismatch`] when the operands have different bases.
    pub fn total_cmp(&self, other: &MpFloat) -> Result<Ordering> {
        self.check(other)?;
        Ok(match (self.is_nan(), other.is_nan()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            _ => {
                if self.is_zero() && other.is_zero() {
                    other.neg.cmp(&self.neg)
                } else {
                    self.cmp_finite_or_inf(other)
                }
            }
        })
    }

    /// Numeric equality (`−0 == +0`, NaN equals nothing); `false` across bases.
    pub fn num_eq(&self, other: &MpFloat) -> bool {
        matches!(self.partial_cmp(other), Ok(Some(Ordering::Equal)))
    }

    /// Bit-for-bit identity of the representation (sign, class, exponent, residues).
    pub fn identical(&self, other: &MpFloat) -> bool {
        self.basis.same(&other.basis)
            && self.class == other.class
            && (self.class == Class::Nan
                || (self.neg == other.neg && self.exp == other.exp && self.res == other.res))
    }

    /// The significand's low word `X mod 2^64` (exact).
    pub(crate) fn low_word(&self) -> u64 {
        crt_pass(&self.basis, &self.res, &self.basis.w).low_word(&self.basis)
    }
}

/// Residue-wise product (vectorisable).
pub(crate) fn mul_residues(b: &Basis, x: &[u32], y: &[u32]) -> Vec<u32> {
    let n = b.len();
    let mut z = pool::zeroed(n);
    for i in 0..n {
        z[i] = mul_mod(x[i], y[i], b.m[i], b.mu[i]);
    }
    z
}

/// `X ← X·2^d mod M` (exact when `X·2^d < M`).
pub(crate) fn scale_up(b: &Basis, x: &mut [u32], d: u64) {
    if d == 0 {
        return;
    }
    let mut p = pool::zeroed(b.len());
    b.pow2_into(d, &mut p);
    for i in 0..b.len() {
        x[i] = mul_mod(x[i], p[i], b.m[i], b.mu[i]);
    }
    pool::recycle(p);
}

/// The addition core: `a + b` for exact operands of at most `2p` bits, rounded once.
///
/// Alignment (the papers' ALIGNMENT, made exact): with `t = e + bits` the top positions and
/// `L = ⌊log2 M⌋ − 1` for an effective subtraction (`−2` for an addition), the common
/// exponent is `e0 = max(min(ea, eb), t_max − L)`. The operand with the larger `t` is scaled
/// up exactly (its width `≤ 2p ≤ L`); the other is scaled up exactly, or, when it reaches
/// below `e0`, scaled down by the exact power-of-two scaling with its dropped part kept as a
/// [`Tail`]. Truncation needs `t_max − t_min ≥ 2` (subtraction) or `≥ 1` (addition), so it
/// never meets cancellation, and the rounding position stays `≥ p − 1` bits above `e0`, which
/// makes rounding `S ± f` (`0 < f < 1`) with the tail rule equal to rounding the exact sum.
pub(crate) fn add_core(basis: &Arc<Basis>, a: Op<'_>, b: Op<'_>) -> MpFloat {
    let bs = &**basis;
    let n = bs.len();
    let ta = a.exp + a.bits as i64;
    let tb = b.exp + b.bits as i64;
    let (big, small, tbig, tsmall) = if ta >= tb {
        (a, b, ta, tb)
    } else {
        (b, a, tb, ta)
    };
    let sub = big.neg != small.neg;
    let l = bs.log2m as i64 - if sub { 1 } else { 2 };
    let e0 = big.exp.min(small.exp).max(tbig - l);
    // Owned copies from the pool (the operands' own storage when they are owned already).
    let owned = |r: Cow<'_, [u32]>| match r {
        Cow::Borrowed(s) => pool::copied(s),
        Cow::Owned(v) => v,
    };
    let mut x = owned(big.res);
    scale_up(bs, &mut x, (big.exp - e0) as u64);
    let mut truncated = false;
    let y = if small.exp >= e0 {
        let mut y = owned(small.res);
        scale_up(bs, &mut y, (small.exp - e0) as u64);
        y
    } else {
        let s = (e0 - small.exp) as u64;
        truncated = true; // the operand is nonzero, so something is dropped if s ≥ bits
        if s >= small.bits {
            if let Cow::Owned(v) = small.res {
                pool::recycle(v);
            }
            pool::zeroed(n)
        } else {
            let mut y = owned(small.res);
            let (round, sticky, _) = shift_right(bs, &mut y, s);
            truncated = round || sticky;
            y
        }
    };
    // The sum or difference overwrites x; y goes back to the pool.
    let mut z = x;
    if !sub {
        for i in 0..n {
            z[i] = add_mod(z[i], y[i], bs.m[i]);
        }
        pool::recycle(y);
        let tail = if truncated { Tail::Above } else { Tail::Zero };
        // tight bound (S < 2^(t_max − e0 + 1)): the evaluation then needs a single pass
        return MpFloat::finish(basis, big.neg, z, e0, tail, (tbig - e0 + 1) as u64);
    }
    for i in 0..n {
        z[i] = sub_mod(z[i], y[i], bs.m[i]);
    }
    pool::recycle(y);
    let mut neg = big.neg;
    if truncated {
        return MpFloat::finish(basis, neg, z, e0, Tail::Below, (tbig - e0) as u64);
    }
    if tbig == tsmall {
        // Same binade: |X' − Y'| < 2^(t − e0 − 1); its sign decides, exactly.
        match sign_of(bs, &z, (tbig - e0 - 1) as u64) {
            Ordering::Equal => {
                pool::recycle(z);
                return MpFloat::zero(basis, false);
            }
            Ordering::Less => {
                for i in 0..n {
                    z[i] = sub_mod(0, z[i], bs.m[i]);
                }
                neg = small.neg;
            }
            Ordering::Greater => {}
        }
    }
    MpFloat::finish(basis, neg, z, e0, Tail::Zero, (tbig - e0) as u64)
}

impl std::fmt::Debug for MpFloat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "MpFloat {{ p: {}, class: {:?}, neg: {}, exp: {}, eval: [{:?}, {:?}] }}",
            self.basis.precision, self.class, self.neg, self.exp, self.eval[0], self.eval[1]
        )
    }
}
