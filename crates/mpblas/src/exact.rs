//! [`ExactDot`]: an exact accumulator for sums of products of `f64`s, a fixed-point "long
//! accumulator" (Kulisch) covering every exponent of `f64`.
//!
//! `Σ a_l·b_l` over any finite `f64`s is held exactly, whatever the cancellation and the spread
//! of magnitudes; only reading it as an `f64` rounds. It is the reference of the Ozaki accuracy
//! tables and tests (no MPFR needed), and a tool for users who need the true value of a dot
//! product of doubles.
//!
//! ```
//! use mpblas::exact::ExactDot;
//! let mut s = ExactDot::new();
//! s.add_product(1e300, 1e-300); // 1
//! s.add(1e-300);
//! s.add_product(-1e300, 1e-300); // −1: every f64 summation order gives 0 or garbage
//! assert_eq!(s.to_f64(), 1e-300);
//! ```
//!
//! Cost: each product is split into five 32-bit digits added without carries (136 digits of
//! state, about 1 KiB); carries are propagated every 2^30 additions and when read.

/// Bit position of `2^0` in the accumulator: products of two finite `f64`s are integer
/// multiples of `2^-2148`.
pub(crate) const OFFSET: i32 = 2148;
/// 32-bit digits (held in `i64` so that 2^30 additions need no carry propagation): bits up to
/// `2^(2048 + 32)` above the offset, plus a product's 106 bits of headroom.
pub(crate) const LIMBS: usize = 136;

/// Exact sum of products of finite `f64`s (see the [module docs](self)). Non-finite inputs are
/// ignored: the sum of finite terms is what it holds.
#[derive(Clone, Debug)]
pub struct ExactDot {
    limbs: Vec<i64>,
    adds: u32,
}

impl Default for ExactDot {
    fn default() -> Self {
        Self::new()
    }
}

fn decompose(x: f64) -> (i64, i32) {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = (bits & ((1u64 << 52) - 1)) as i64;
    let (mant, e) = if exp == 0 {
        (frac, -1074)
    } else {
        (frac | (1i64 << 52), exp - 1075)
    };
    (if x.is_sign_negative() { -mant } else { mant }, e)
}

impl ExactDot {
    /// Zero.
    pub fn new() -> Self {
        ExactDot {
            limbs: vec![0; LIMBS],
            adds: 0,
        }
    }

    /// Adds `a·b` exactly. Non-finite inputs are ignored (the callers filter them).
    pub fn add_product(&mut self, a: f64, b: f64) {
        if !(a.is_finite() && b.is_finite()) || a == 0.0 || b == 0.0 {
            return;
        }
        let (ma, ea) = decompose(a);
        let (mb, eb) = decompose(b);
        let neg = (ma < 0) != (mb < 0);
        let p = ma.unsigned_abs() as u128 * mb.unsigned_abs() as u128;
        let shift = (ea + eb + OFFSET) as u32;
        let (limb, off) = ((shift / 32) as usize, shift % 32);
        // p < 2^106, p << off < 2^138: five 32-bit digits (the sixth is always zero).
        let lo = p << off;
        let hi = if off == 0 { 0 } else { p >> (128 - off) };
        let digits = [
            lo as u32,
            (lo >> 32) as u32,
            (lo >> 64) as u32,
            (lo >> 96) as u32,
            hi as u32,
        ];
        for (t, &d) in digits.iter().enumerate() {
            if limb + t < LIMBS {
                if neg {
                    self.limbs[limb + t] -= d as i64;
                } else {
                    self.limbs[limb + t] += d as i64;
                }
            }
        }
        self.adds += 1;
        if self.adds >= 1 << 30 {
            self.normalise();
        }
    }

    /// Adds `x` exactly.
    pub fn add(&mut self, x: f64) {
        self.add_product(x, 1.0);
    }

    fn normalise(&mut self) {
        for i in 0..LIMBS - 1 {
            let c = self.limbs[i] >> 32;
            self.limbs[i] -= c << 32;
            self.limbs[i + 1] += c;
        }
        self.adds = 0;
    }

    /// The exact value as a list of `f64`s whose exact sum it is (each a 32-bit digit times a
    /// power of two, most significant first), to hand the value to an oracle such as MPFR.
    pub fn terms(&self) -> Vec<f64> {
        let (neg, d) = self.magnitude();
        let sign = if neg { -1.0 } else { 1.0 };
        (0..LIMBS)
            .rev()
            .filter(|&i| d[i] != 0)
            .map(|i| sign * crate::eft::ldexp(d[i] as f64, 32 * i as i32 - OFFSET))
            .collect()
    }

    /// Sign and digits in `[0, 2^32)` of the magnitude.
    fn magnitude(&self) -> (bool, Vec<i64>) {
        let carry = |d: &mut Vec<i64>| {
            for i in 0..LIMBS - 1 {
                let c = d[i] >> 32;
                d[i] -= c << 32;
                d[i + 1] += c;
            }
        };
        let mut d = self.limbs.clone();
        carry(&mut d);
        if d[LIMBS - 1] < 0 {
            d = self.limbs.iter().map(|x| -x).collect();
            carry(&mut d);
            return (true, d);
        }
        (false, d)
    }

    /// The sum as an `f64`, correctly rounded (to nearest, ties to even), with IEEE overflow
    /// to `±∞` and gradual underflow; `+0` for an exact zero.
    pub fn to_f64(&self) -> f64 {
        let (neg, d) = self.magnitude();
        let Some(top) = (0..LIMBS).rev().find(|&i| d[i] != 0) else {
            return 0.0;
        };
        let v = round_digits(&d, top);
        if neg { -v } else { v }
    }

    /// The sum rounded once (to nearest, ties to even) to the precision of `basis`: an RNS
    /// number at any precision from the exact value; `+0` for an exact zero.
    ///
    /// ```
    /// use mpblas::exact::ExactDot;
    /// use mpblas::rns::{Basis, MpFloat};
    /// let basis = Basis::new(200).unwrap();
    /// let mut s = ExactDot::new();
    /// s.add(1.0);
    /// s.add(1e-40); // 1 + 1e-40 needs 133 bits below 1: an f64 loses it, 200 bits keep it
    /// let one = MpFloat::from_f64(&basis, 1.0);
    /// assert!(s.to_mpfloat(&basis) != one);
    /// ```
    pub fn to_mpfloat(&self, basis: &std::sync::Arc<crate::rns::Basis>) -> crate::rns::MpFloat {
        let (neg, d) = self.magnitude();
        // Pairs of 32-bit digits into little-endian u64 limbs.
        let limbs: Vec<u64> = d
            .chunks(2)
            .map(|p| p[0] as u64 | (p.get(1).copied().unwrap_or(0) as u64) << 32)
            .collect();
        crate::rns::MpFloat::from_limbs(basis, neg, &limbs, -(OFFSET as i64))
    }

    /// The accumulator of the digits `limbs` (weights `2^(32i − 2148)`, any carries), as the
    /// GPU's exact sums leave them.
    pub(crate) fn from_digits(limbs: &[i64]) -> ExactDot {
        let mut s = ExactDot::new();
        for (a, b) in s.limbs.iter_mut().zip(limbs) {
            *a = *b;
        }
        s.adds = 2;
        s
    }

    /// Adds another accumulator's exact value (exact; the order of merges never matters).
    pub fn merge(&mut self, other: &ExactDot) {
        self.normalise();
        let mut o = other.clone();
        o.normalise();
        for (a, b) in self.limbs.iter_mut().zip(&o.limbs) {
            *a += b;
        }
        // Each digit is now below 2^33 in magnitude: as if two additions had been made.
        self.adds = 2;
    }

    /// The relative error `|s − c|/|s|` of `c` as an approximation of the exact sum `s`,
    /// computed from the exact difference: 0 if `c = s = 0`, `+∞` if only `s = 0`, NaN if `c`
    /// is not finite.
    pub fn rel_err(&self, c: f64) -> f64 {
        if !c.is_finite() {
            return f64::NAN;
        }
        let want = self.to_f64();
        let mut d = self.clone();
        d.add(-c);
        let diff = d.to_f64().abs();
        if want == 0.0 {
            return if diff == 0.0 { 0.0 } else { f64::INFINITY };
        }
        diff / want.abs()
    }
}

/// `Σ d_i·2^(32i − OFFSET)` over digits `d_i ∈ [0, 2^32)` with `d[top] ≠ 0`, rounded to the
/// nearest `f64` (ties to even).
fn round_digits(d: &[i64], top: usize) -> f64 {
    // The top four digits hold at least 97 significant bits; the rest only decide ties.
    let low = top.saturating_sub(3);
    let mut m: u128 = 0;
    for i in (low..=top).rev() {
        m = (m << 32) | d[i] as u128;
    }
    let sticky = d[..low].iter().any(|&x| x != 0);
    let base = 32 * low as i32 - OFFSET;
    let bits = 128 - m.leading_zeros() as i32;
    let lead = base + bits - 1;
    // The weight of the last significand bit: 53 bits below the lead, or the subnormal 2^-1074.
    let lsb = (lead - 52).max(-1074);
    // shift ≥ 44: with four digits m has ≥ 97 bits; with fewer, base = −2148 ≪ −1074.
    let shift = (lsb - base) as u32;
    let (q, round_up) = if shift >= 129 {
        (0u128, false)
    } else if shift == 128 {
        let half = 1u128 << 127;
        (0, m > half || (m == half && sticky))
    } else {
        let q = m >> shift;
        let r = m & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        (q, r > half || (r == half && (sticky || q & 1 == 1)))
    };
    // q + 1 ≤ 2^53: exact as an f64; the scaling is exact or overflows to ∞ as IEEE rounding.
    crate::eft::ldexp((q + u128::from(round_up)) as f64, lsb)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_cancellation_and_extremes() {
        let mut a = ExactDot::new();
        a.add_product(1e300, 1e-300);
        a.add(1e-300);
        a.add_product(-1e300, 1e-300);
        assert_eq!(a.to_f64(), 1e-300);
        let mut b = ExactDot::new();
        b.add(f64::MAX);
        b.add(f64::from_bits(1));
        b.add(-f64::MAX);
        assert_eq!(b.to_f64(), f64::from_bits(1));
        let mut c = ExactDot::new();
        c.add(1.0);
        c.add((-60f64).exp2());
        c.add(-1.0);
        assert_eq!(c.to_f64(), (-60f64).exp2());
        assert_eq!(c.rel_err((-60f64).exp2()), 0.0);
        assert_eq!(ExactDot::new().rel_err(0.0), 0.0);
        assert_eq!(ExactDot::new().rel_err(1.0), f64::INFINITY);
        let mut d = ExactDot::new();
        d.add(-3.0);
        assert_eq!(d.to_f64(), -3.0);
    }
}
