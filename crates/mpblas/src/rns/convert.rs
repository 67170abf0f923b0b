//! Conversions of [`MpFloat`] from and to `f64`, [`Dd`], [`Qd`], exact binary integers
//! (`u64` limbs) and, behind the `rug` feature, `rug::Float`.
//!
//! Every conversion *into* a basis rounds once to `p` bits (nearest, ties to even). Conversions
//! *out* round once to the target format (for `f64`, including its subnormal range), and the
//! multi-word formats take their words greedily (`hi = RN(x)`, `lo = RN(x − hi)`, …; each
//! difference is exact in RNS because it has at most `p` bits).

use crate::rns::basis::{Basis, add_mod, mul_mod};
use crate::rns::float::{Class, MpFloat, Op, add_core};
use crate::rns::interval::{Tail, shift_right};
use crate::{dd::Dd, qd::Qd};
use std::borrow::Cow;
use std::sync::Arc;

/// `(mantissa, exponent)` of a finite nonzero `f64`: `|x| = mant·2^exp`, `mant < 2^53`.
fn decompose(x: f64) -> (u64, i64) {
    let bits = x.to_bits();
    let be = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1u64 << 52) - 1);
    if be == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), be - 1075)
    }
}

impl MpFloat {
    /// The `f64` `x` in `basis`, rounded to `p` bits (exact when `p ≥ 53`). NaN and ±∞ map to
    /// NaN and ±∞, `−0.0` to `−0`.
    pub fn from_f64(basis: &Arc<Basis>, x: f64) -> MpFloat {
        if x.is_nan() {
            return MpFloat::nan(basis);
        }
        if x.is_infinite() {
            return MpFloat::infinity(basis, x < 0.0);
        }
        if x == 0.0 {
            return MpFloat::zero(basis, x.is_sign_negative());
        }
        let (mant, exp) = decompose(x);
        Self::from_u64_exp(basis, x < 0.0, mant, exp)
    }

    /// `(−1)^neg · v · 2^exp` rounded to `p` bits.
    pub fn from_u64_exp(basis: &Arc<Basis>, neg: bool, v: u64, exp: i64) -> MpFloat {
        if v == 0 {
            return MpFloat::zero(basis, neg);
        }
        let bits = 64 - v.leading_zeros() as u64;
        if bits > basis.log2m as u64 - 1 {
            // v may reach M/2 (the two-moduli bases of p < 31 have M < 2^63): its residues
            // would stand for v mod M, a wrong number in silence (issue 11 found
            // `from_u64_exp(&Basis::new(24)?, .., u64::MAX, ..)` 2^26 too small). Round in
            // binary first, as from_limbs does.
            return MpFloat::from_limbs(basis, neg, &[v], exp);
        }
        let mut r = vec![0u32; basis.len()];
        basis.residues_u64(v, &mut r);
        // v < 2^bits ≤ 2^(⌊log2 M⌋ − 1) ≤ M/2, as finish needs.
        MpFloat::finish(basis, neg, r, exp, Tail::Zero, bits)
    }

    /// An exact operand for the addition core (bits exact), for `f64` words.
    fn f64_op(basis: &Basis, x: f64) -> Op<'static> {
        let (mant, exp) = decompose(x);
        let mut r = vec![0u32; basis.len()];
        basis.residues_u64(mant, &mut r);
        Op {
            neg: x < 0.0,
            res: Cow::Owned(r),
            exp,
            bits: 64 - mant.leading_zeros() as u64,
        }
    }

    /// The sum of `f64` words (`Dd`, `Qd` components), rounded once to `p` bits.
    fn from_words(basis: &Arc<Basis>, words: &[f64]) -> MpFloat {
        if let Some(&w) = words.iter().find(|w| !w.is_finite()) {
            return MpFloat::from_f64(basis, w);
        }
        let nz: Vec<f64> = words.iter().copied().filter(|&w| w != 0.0).collect();
        match nz.len() {
            0 => MpFloat::from_f64(basis, words[0]),
            1 => MpFloat::from_f64(basis, nz[0]),
            2 => add_core(
                basis,
                Self::f64_op(basis, nz[0]),
                Self::f64_op(basis, nz[1]),
            ),
            _ => {
                // Exact partial sums need not fit p bits; sum the words as one exact binary
                // integer instead (their exponents span at most ~2100 bits).
                let emin = nz.iter().map(|&w| decompose(w).1).min().unwrap_or(0);
                let mut acc = SignedBig::default();
                for &w in &nz {
                    let (m, e) = decompose(w);
                    acc.add_shifted(w < 0.0, m, (e - emin) as u64);
                }
                let (neg, limbs) = acc.into_parts();
                MpFloat::from_limbs(basis, neg, &limbs, emin)
            }
        }
    }

    /// The double-double `x` (exact sum `hi + lo`) rounded once to `p` bits.
    pub fn from_dd(basis: &Arc<Basis>, x: Dd) -> MpFloat {
        Self::from_words(basis, &[x.hi, x.lo])
    }

    /// The quad-double `x` (exact sum of its four components) rounded once to `p` bits.
    pub fn from_qd(basis: &Arc<Basis>, x: Qd) -> MpFloat {
        Self::from_words(basis, &x.c)
    }

    /// `(−1)^neg · L · 2^exp` for the little-endian `u64` limbs `L` of a binary integer of any
    /// length, rounded once to `p` bits.
    pub fn from_limbs(basis: &Arc<Basis>, neg: bool, limbs: &[u64], exp: i64) -> MpFloat {
        let exp = super::float::clamp_exponent(exp);
        let p = basis.precision as u64;
        let len = limbs.iter().rposition(|&l| l != 0).map_or(0, |i| i + 1);
        if len == 0 {
            return MpFloat::zero(basis, neg);
        }
        let limbs = &limbs[..len];
        let bitlen = 64 * (len as u64 - 1) + 64 - limbs[len - 1].leading_zeros() as u64;
        let (q, exp) = if bitlen > p {
            // Round in binary first: the integer may exceed M/2.
            let k = bitlen - p;
            let bit = |i: u64| (limbs[(i / 64) as usize] >> (i % 64)) & 1 == 1;
            let round = bit(k - 1);
            let full = ((k - 1) / 64) as usize;
            let sticky = limbs[..full].iter().any(|&l| l != 0)
                || (limbs[full] & ((1u64 << ((k - 1) % 64)) - 1)) != 0;
            let mut q = shr_limbs(limbs, k);
            let odd = q[0] & 1 == 1;
            if round && (sticky || odd) {
                inc_limbs(&mut q);
            }
            (q, exp + k as i64)
        } else {
            (limbs.to_vec(), exp)
        };
        let b = &**basis;
        let n = b.len();
        let two64 = &b.pow2_hi[n..2 * n];
        let mut r = vec![0u32; n];
        let mut tmp = vec![0u32; n];
        for &limb in q.iter().rev() {
            b.residues_u64(limb, &mut tmp);
            for i in 0..n {
                r[i] = add_mod(mul_mod(r[i], two64[i], b.m[i], b.mu[i]), tmp[i], b.m[i]);
            }
        }
        MpFloat::finish(basis, neg, r, exp, Tail::Zero, p + 1)
    }

    /// This value correctly rounded (nearest, ties to even) to the precision of `basis`:
    /// exact when `basis` is at least as wide, so this is how numbers of two bases meet.
    /// Special values and the sign of zero are kept; beyond the exponent range the result is
    /// ±∞ or ±0 as for every operation.
    ///
    /// ```
    /// use mpblas::rns::{Basis, MpFloat};
    /// let (narrow, wide) = (Basis::new(60).unwrap(), Basis::new(200).unwrap());
    /// let third = MpFloat::from_f64(&wide, 1.0).div(&MpFloat::from_f64(&wide, 3.0)).unwrap();
    /// let t = third.round_to(&narrow);
    /// assert_eq!(t.precision(), narrow.precision());
    /// assert_eq!(t.round_to(&wide).round_to(&narrow), t); // widening is exact
    /// ```
    pub fn round_to(&self, basis: &Arc<Basis>) -> MpFloat {
        if self.basis.same(basis) {
            return self.clone();
        }
        match self.class {
            Class::Nan => MpFloat::nan(basis),
            Class::Infinite => MpFloat::infinity(basis, self.neg),
            Class::Finite if self.is_zero() => MpFloat::zero(basis, self.neg),
            Class::Finite => match self.to_limbs() {
                Some((neg, limbs, exp)) => MpFloat::from_limbs(basis, neg, &limbs, exp),
                None => MpFloat::nan(basis),
            },
        }
    }

    /// The exact significand `X` as little-endian `u64` limbs and the exponent: a finite
    /// `self = (−1)^neg · X · 2^exp`. Returns `None` for NaN and ±∞. Cost `⌈p/63⌉` CRT passes.
    pub fn to_limbs(&self) -> Option<(bool, Vec<u64>, i64)> {
        if self.class != Class::Finite {
            return None;
        }
        let b = &*self.basis;
        let mut x = self.res.clone();
        let mut bits: Vec<u64> = Vec::new();
        let mut nbits = 0u64;
        let mut acc: u128 = 0;
        let mut remaining = if self.is_zero() {
            0
        } else {
            b.precision as u64
        };
        // Peel 63 bits at a time (the exact low word), shifting them off exactly.
        while remaining > 0 {
            let low = MpFloat::low_word_of(b, &x) & ((1u64 << 63) - 1);
            acc |= (low as u128) << nbits;
            nbits += 63;
            if nbits >= 64 {
                bits.push(acc as u64);
                acc >>= 64;
                nbits -= 64;
            }
            let step = remaining.min(63);
            shift_right(b, &mut x, step);
            remaining -= step;
        }
        if nbits > 0 || bits.is_empty() {
            bits.push(acc as u64);
        }
        while bits.len() > 1 && *bits.last().unwrap_or(&1) == 0 {
            bits.pop();
        }
        Some((self.neg, bits, self.exp))
    }

    fn low_word_of(b: &Basis, x: &[u32]) -> u64 {
        crate::rns::interval::crt_pass(b, x, &b.w).low_word(b)
    }

    /// Rounds to the nearest `f64` (ties to even), including gradual underflow; overflow gives
    /// ±∞.
    pub fn to_f64(&self) -> f64 {
        match self.class {
            Class::Nan => return f64::NAN,
            Class::Infinite => {
                return if self.neg {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                };
            }
            Class::Finite => {}
        }
        let sign = if self.neg { -1.0 } else { 1.0 };
        if self.is_zero() {
            return sign * 0.0;
        }
        let p = self.basis.precision as i64;
        // Saturating: MpArray::get refuses exponents out of range; a total sum costs nothing.
        let t = self.exp.saturating_add(p); // |x| ∈ [2^(t−1), 2^t)
        if t > 1024 {
            return sign * f64::INFINITY;
        }
        // Bits available at this magnitude: 53 for normal results, fewer when subnormal.
        let target = 53.min(t + 1074);
        if target <= 0 {
            // |x| < 2^-1074: rounds to 0 or to 2^-1074 (only x > 2^-1075 rounds up).
            let up = t == -1074 && !self.significand_is_pow2();
            return sign * if up { f64::from_bits(1) } else { 0.0 };
        }
        let (q, e) = self.round_to_bits(target as u64);
        sign * ldexp_once(q as f64, e)
    }

    /// `|self|` rounded to `target ≤ 63` bits: `(q, e)` with `q ≤ 2^target` and
    /// `RN(|self|) = q·2^e` (finite nonzero `self`).
    pub(crate) fn round_to_bits(&self, target: u64) -> (u64, i64) {
        let b = &*self.basis;
        let p = b.precision as u64;
        if p <= target {
            return (self.low_word(), self.exp);
        }
        let mut x = self.res.clone();
        let k = p - target;
        let (round, sticky, odd) = shift_right(b, &mut x, k);
        let q = MpFloat::low_word_of(b, &x);
        let up = round && (sticky || odd);
        (q + up as u64, self.exp + k as i64)
    }

    /// The nearest double-double: `hi = RN(x)`, `lo = RN(x − hi)`.
    pub fn to_dd(&self) -> Dd {
        let w = self.to_words::<2>();
        Dd { hi: w[0], lo: w[1] }
    }

    /// The nearest quad-double, component by component.
    pub fn to_qd(&self) -> Qd {
        Qd {
            c: self.to_words::<4>(),
        }
    }

    fn to_words<const K: usize>(&self) -> [f64; K] {
        let mut out = [0.0; K];
        let mut rest = self.clone();
        for o in out.iter_mut() {
            let w = rest.to_f64();
            *o = w;
            if !w.is_finite() || w == 0.0 {
                break;
            }
            // exact: rest and w agree in their leading bits, so the difference has ≤ p bits
            rest = rest.add_signed_pub(&MpFloat::from_f64(&self.basis, w), true);
        }
        out
    }

    pub(crate) fn add_signed_pub(&self, other: &MpFloat, negate: bool) -> MpFloat {
        if negate {
            self.sub(other)
                .unwrap_or_else(|_| MpFloat::nan(&self.basis))
        } else {
            self.add(other)
                .unwrap_or_else(|_| MpFloat::nan(&self.basis))
        }
    }
}

/// `v·2^e` with a single rounding (the result may be subnormal): `v < 2^54` is exact in `f64`.
fn ldexp_once(v: f64, e: i64) -> f64 {
    if e > 1023 {
        let e2 = (e - 1023).min(1023) as i32;
        return v * 2f64.powi(1023) * 2f64.powi(e2);
    }
    if e >= -1022 {
        return v * 2f64.powi(e as i32);
    }
    // v·2^-1022 is exact (v ≥ 1); the second factor 2^(e+1022) ≥ 2^-1074 rounds once.
    let e2 = e + 1022;
    if e2 < -1074 {
        return 0.0; // < 2^54·2^(-1022-1075): far below half the least subnormal
    }
    v * 2f64.powi(-1022)
        * f64::from_bits(if e2 >= -1022 {
            ((e2 + 1023) as u64) << 52
        } else {
            1u64 << (e2 + 1074)
        })
}

fn shr_limbs(l: &[u64], k: u64) -> Vec<u64> {
    let (w, b) = ((k / 64) as usize, (k % 64) as u32);
    let mut out = vec![0u64; l.len() - w.min(l.len())];
    for (i, o) in out.iter_mut().enumerate() {
        let lo = l[i + w] >> b;
        let hi = if b > 0 && i + w + 1 < l.len() {
            l[i + w + 1] << (64 - b)
        } else {
            0
        };
        *o = lo | hi;
    }
    if out.is_empty() {
        out.push(0);
    }
    out
}

fn inc_limbs(l: &mut Vec<u64>) {
    for x in l.iter_mut() {
        let (s, c) = x.overflowing_add(1);
        *x = s;
        if !c {
            return;
        }
    }
    l.push(1);
}

/// A tiny signed big integer (sign-magnitude over `u64` limbs) for exact sums of `f64` words.
#[derive(Default)]
struct SignedBig {
    neg: bool,
    mag: Vec<u64>,
}

impl SignedBig {
    fn add_shifted(&mut self, neg: bool, m: u64, sh: u64) {
        let mut t = vec![0u64; (sh / 64) as usize + 2];
        let (w, b) = ((sh / 64) as usize, sh % 64);
        t[w] = m << b;
        if b > 0 {
            t[w + 1] = m >> (64 - b);
        }
        if self.mag.iter().all(|&x| x == 0) {
            self.neg = neg;
            self.mag = t;
            return;
        }
        if neg == self.neg {
            self.mag = add_mag(&self.mag, &t);
        } else if cmp_mag(&self.mag, &t) != std::cmp::Ordering::Less {
            self.mag = sub_mag(&self.mag, &t);
        } else {
            self.mag = sub_mag(&t, &self.mag);
            self.neg = neg;
        }
    }

    fn into_parts(self) -> (bool, Vec<u64>) {
        (self.neg, self.mag)
    }
}

fn add_mag(a: &[u64], b: &[u64]) -> Vec<u64> {
    let n = a.len().max(b.len()) + 1;
    let mut out = vec![0u64; n];
    let mut carry = 0u128;
    for (i, o) in out.iter_mut().enumerate() {
        let s = *a.get(i).unwrap_or(&0) as u128 + *b.get(i).unwrap_or(&0) as u128 + carry;
        *o = s as u64;
        carry = s >> 64;
    }
    out
}

fn sub_mag(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = a.to_vec();
    let mut borrow = 0u64;
    for (i, o) in out.iter_mut().enumerate() {
        let (d1, b1) = o.overflowing_sub(*b.get(i).unwrap_or(&0));
        let (d2, b2) = d1.overflowing_sub(borrow);
        *o = d2;
        borrow = (b1 || b2) as u64;
    }
    out
}

fn cmp_mag(a: &[u64], b: &[u64]) -> std::cmp::Ordering {
    let n = a.len().max(b.len());
    for i in (0..n).rev() {
        let (x, y) = (*a.get(i).unwrap_or(&0), *b.get(i).unwrap_or(&0));
        if x != y {
            return x.cmp(&y);
        }
    }
    std::cmp::Ordering::Equal
}

#[cfg(feature = "rug")]
mod rug_conv {
    use super::*;
    use rug::integer::Order;

    impl MpFloat {
        /// The MPFR value `x` rounded once to `p` bits (exact when its precision is at most `p`).
        pub fn from_rug(basis: &Arc<Basis>, x: &rug::Float) -> MpFloat {
            if x.is_nan() {
                return MpFloat::nan(basis);
            }
            if x.is_infinite() {
                return MpFloat::infinity(basis, x.is_sign_negative());
            }
            if x.is_zero() {
                return MpFloat::zero(basis, x.is_sign_negative());
            }
            match x.to_integer_exp() {
                Some((int, exp)) => {
                    // magnitude only: write_digits ignores the sign
                    let mut limbs = vec![0u64; int.significant_digits::<u64>().max(1)];
                    int.write_digits(&mut limbs, Order::Lsf);
                    MpFloat::from_limbs(basis, x.is_sign_negative(), &limbs, exp as i64)
                }
                None => MpFloat::nan(basis),
            }
        }

        /// This value as an MPFR float of precision `p` (exact). MPFR's exponent range is
        /// narrower than ours; values beyond it become ±Inf or ±0 as MPFR decides.
        pub fn to_rug(&self) -> rug::Float {
            let prec = self.basis.precision;
            match self.class {
                Class::Nan => rug::Float::with_val(prec, rug::float::Special::Nan),
                Class::Infinite => rug::Float::with_val(
                    prec,
                    if self.neg {
                        rug::float::Special::NegInfinity
                    } else {
                        rug::float::Special::Infinity
                    },
                ),
                Class::Finite => {
                    if self.is_zero() {
                        return rug::Float::with_val(
                            prec,
                            if self.neg {
                                rug::float::Special::NegZero
                            } else {
                                rug::float::Special::Zero
                            },
                        );
                    }
                    let (neg, limbs, exp) = self.to_limbs().unwrap_or((false, vec![0], 0));
                    let mut int = rug::Integer::from_digits(&limbs, Order::Lsf);
                    if neg {
                        int = -int;
                    }
                    let f = rug::Float::with_val(prec, int);
                    let e = exp.clamp(i32::MIN as i64, i32::MAX as i64) as i32;
                    f << e
                }
            }
        }
    }
}
