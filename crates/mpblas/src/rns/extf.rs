//! Extended-range floating-point numbers `(f, e) = f·2^e` (Isupov, Knyazkov, Kuvaev 2018, the
//! bounds of interval evaluations): an `f64` fraction with an `i64` exponent, so that values
//! like `X/M ≈ 2^-7000` are representable.
//!
//! Only non-negative values occur (bounds of `X/M`), and every operation comes in a round-down
//! and a round-up flavour. Directed rounding is built from error-free transformations in the
//! default round-to-nearest mode (never from the FPU rounding mode): the exact error of a sum or
//! product tells on which side of the exact result the rounded one lies, and a one-ulp step
//! ([`next_up`], [`next_down`]) fixes it when it is on the wrong side.
//!
//! Every function is total (issue 11): exponents saturate at the ends of `i64` instead of
//! overflowing (the crate's own values stay within about `±2^62`, far inside), and a fraction
//! that is not a finite `x ≥ 0` gives the invalid value `f = NaN`, which every operation
//! carries on, as an `f64` NaN is, and [`MpArray::get`](super::MpArray::get) refuses. The
//! device twins in `rns.cuh` see only the crate's own values, where nothing changed.

use crate::eft::{two_prod, two_sum};
use std::cmp::Ordering;

/// A non-negative extended-range float `f·2^e` with `f ∈ [1/2, 1)`, or zero (`f = 0`, `e = 0`).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct ExtF {
    /// Fraction in `[1/2, 1)`, or 0.
    pub f: f64,
    /// Binary exponent.
    pub e: i64,
}

/// The next `f64` above `x` (one ulp up; for the non-negative finite `x` the crate passes,
/// the next bit pattern). Any other `x` gets IEEE's `nextUp` (`f64::next_up`) rather than a
/// wrapped bit pattern: NaN and `+∞` stay, `-0` and `+0` go to `2^-1074`.
#[inline]
pub fn next_up(x: f64) -> f64 {
    x.next_up()
}

/// The next `f64` below `x` (one ulp down), except that `0` stays `0` (a lower bound of a
/// non-negative value never needs to go below it). Other `x` as IEEE's `nextDown`.
#[inline]
pub fn next_down(x: f64) -> f64 {
    if x == 0.0 { 0.0 } else { x.next_down() }
}

impl ExtF {
    /// Zero.
    pub const ZERO: ExtF = ExtF { f: 0.0, e: 0 };

    /// The invalid value: what [`ExtF::new`] gives for an `x` that is not a finite `x ≥ 0`.
    /// Operations carry it on (their fraction is NaN); it encloses nothing.
    pub const INVALID: ExtF = ExtF { f: f64::NAN, e: 0 };

    /// `x·2^e` for a finite `x ≥ 0`, renormalised (exact, unless the exponent passes an end
    /// of `i64`: it saturates). A negative, infinite or NaN `x` gives [`ExtF::INVALID`].
    pub fn new(x: f64, e: i64) -> ExtF {
        if x == 0.0 {
            return ExtF::ZERO;
        }
        let bits = x.to_bits();
        let be = ((bits >> 52) & 0x7ff) as i64;
        if bits >> 63 != 0 || be == 0x7ff {
            // Negative, ±Inf or NaN: no extended float of this kind, which holds bounds ≥ 0.
            return ExtF::INVALID;
        }
        if be == 0 {
            // subnormal: scale into the normal range first (exact)
            return ExtF::new(x * 2f64.powi(64), e.saturating_sub(64));
        }
        // x = 1.m · 2^(be−1023) = (0.1m) · 2^(be−1022)
        let f = f64::from_bits((bits & !(0x7ffu64 << 52)) | (1022u64 << 52));
        ExtF {
            f,
            e: e.saturating_add(be - 1022),
        }
    }

    /// `n·2^sh` rounded down to 53 bits.
    pub fn from_u128_rd(n: u128, sh: i64) -> ExtF {
        Self::from_u128(n, sh, false)
    }

    /// `n·2^sh` rounded up to 53 bits.
    pub fn from_u128_ru(n: u128, sh: i64) -> ExtF {
        Self::from_u128(n, sh, true)
    }

    fn from_u128(n: u128, sh: i64, up: bool) -> ExtF {
        if n == 0 {
            return ExtF::ZERO;
        }
        let b = 128 - n.leading_zeros() as i64;
        if b <= 53 {
            return ExtF::new(n as u64 as f64, sh);
        }
        let cut = (b - 53) as u32;
        let mut t = (n >> cut) as u64;
        if up && n & ((1u128 << cut) - 1) != 0 {
            t += 1; // may reach 2^53: still exact in f64
        }
        ExtF::new(t as f64, sh.saturating_add(cut as i64))
    }

    /// True for zero.
    pub fn is_zero(self) -> bool {
        self.f == 0.0
    }

    /// `self·2^k` (exact; the exponent saturates at the ends of `i64`).
    pub fn ldexp(self, k: i64) -> ExtF {
        if self.is_zero() {
            self
        } else {
            ExtF {
                f: self.f,
                e: self.e.saturating_add(k),
            }
        }
    }

    /// `⌊log2 self⌋` (`self > 0`; `i64::MIN` for zero).
    pub fn floor_log2(self) -> i64 {
        if self.is_zero() {
            i64::MIN
        } else {
            self.e.saturating_sub(1)
        }
    }

    /// `log2 self`, approximately (for reporting).
    pub fn log2_approx(self) -> f64 {
        self.f.log2() + self.e as f64
    }

    /// The nearest `f64`-ish value (saturates to 0 or +∞ outside the `f64` range; reporting only).
    pub fn to_f64(self) -> f64 {
        if self.is_zero() {
            0.0
        } else if self.e > 1100 {
            f64::INFINITY
        } else if self.e < -1100 {
            0.0
        } else {
            self.f * 2f64.powi((self.e / 2) as i32) * 2f64.powi((self.e - self.e / 2) as i32)
        }
    }

    /// `self·other` rounded down.
    pub fn mul_rd(self, other: ExtF) -> ExtF {
        self.mul(other, false)
    }

    /// `self·other` rounded up.
    pub fn mul_ru(self, other: ExtF) -> ExtF {
        self.mul(other, true)
    }

    fn mul(self, other: ExtF, up: bool) -> ExtF {
        if self.is_zero() || other.is_zero() {
            // 0 times a valid bound is 0; times the invalid value it stays invalid (checked
            // only here, off the path of two nonzero bounds).
            let invalid = self.f.is_nan() || other.f.is_nan();
            return if invalid { ExtF::INVALID } else { ExtF::ZERO };
        }
        // fractions in [1/2, 1): the product lies in [1/4, 1), far from under/overflow,
        // so TwoProd's error term is exact.
        let (p, err) = two_prod(self.f, other.f);
        let p = if up && err > 0.0 {
            next_up(p)
        } else if !up && err < 0.0 {
            next_down(p)
        } else {
            p
        };
        ExtF::new(p, self.e.saturating_add(other.e))
    }

    /// `self + other` rounded down.
    pub fn add_rd(self, other: ExtF) -> ExtF {
        self.add(other, false)
    }

    /// `self + other` rounded up.
    pub fn add_ru(self, other: ExtF) -> ExtF {
        self.add(other, true)
    }

    fn add(self, other: ExtF, up: bool) -> ExtF {
        let (a, b) = if self.cmp_total(&other) == Ordering::Less {
            (other, self)
        } else {
            (self, other)
        };
        if b.is_zero() {
            return a;
        }
        // a ≥ b, so d ≥ 0 (saturating: exponents at opposite ends of i64 are just "far").
        let d = a.e.saturating_sub(b.e);
        if d > 900 {
            if b.f.is_nan() {
                return ExtF::INVALID; // carried on, however far below a it claims to be
            }
            // b < 2^-899·a: the sum rounds to a (down) or to the next float above a (up).
            return if up { ExtF::new(next_up(a.f), a.e) } else { a };
        }
        // b.f·2^-d is exact (normal, ≥ 2^-901) and TwoSum's error term is exact.
        let (s, err) = two_sum(a.f, b.f * 2f64.powi(-(d as i32)));
        let s = if up && err > 0.0 {
            next_up(s)
        } else if !up && err < 0.0 {
            next_down(s)
        } else {
            s
        };
        ExtF::new(s, a.e)
    }

    /// Total order of non-negative values.
    pub fn cmp_total(&self, other: &ExtF) -> Ordering {
        match (self.is_zero(), other.is_zero()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            _ => self
                .e
                .cmp(&other.e)
                .then(self.f.partial_cmp(&other.f).unwrap_or(Ordering::Equal)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directed_products_bracket_the_exact_one() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..10_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let a = ExtF::from_u128_rd(s as u128 | 1, -40);
            let b = ExtF::from_u128_rd((s >> 11) as u128 | 1, 7);
            let (lo, hi) = (a.mul_rd(b), a.mul_ru(b));
            // exact product of two 53-bit fractions as a u128
            let fa = (a.f * 2f64.powi(53)) as u128;
            let fb = (b.f * 2f64.powi(53)) as u128;
            let exact = fa * fb; // value exact·2^(a.e + b.e − 106)
            let sh = a.e + b.e - 106;
            assert!(ExtF::from_u128_rd(exact, sh).cmp_total(&lo) != Ordering::Less);
            assert!(ExtF::from_u128_ru(exact, sh).cmp_total(&hi) != Ordering::Greater);
            assert!(lo.cmp_total(&hi) != Ordering::Greater);
            let (slo, shi) = (a.add_rd(b), a.add_ru(b));
            assert!(slo.cmp_total(&shi) != Ordering::Greater);
        }
    }

    /// `rns.cuh`'s `extf_from_u128`: the top 53 bits of `n` shifted to the top of a `u128`,
    /// one up when a bit below them is set, the fraction's bits formed directly (a carry to
    /// 2^53 gives 1/2 and one more in the exponent).
    fn device_bit_form(n: u128, sh: i64, up: bool) -> ExtF {
        if n == 0 {
            return ExtF::ZERO;
        }
        let lz = n.leading_zeros();
        let m = n << lz;
        let mut t = (m >> 75) as u64;
        if up && (((m >> 64) as u64 & 0x7ff) | m as u64) != 0 {
            t += 1;
        }
        let carry = t >> 53 != 0;
        ExtF {
            f: if carry {
                0.5
            } else {
                f64::from_bits((t & ((1 << 52) - 1)) | (1022 << 52))
            },
            e: sh + (128 - lz as i64) + i64::from(carry),
        }
    }

    #[test]
    fn the_device_bit_form_is_from_u128() {
        // every bit length, with the bits below the top 53 all ones (a carry to 2^53 when
        // rounding up), all zeros, one low bit, and random
        let mut s = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for bits in 1..=128u32 {
            let top = 1u128 << (bits - 1);
            let ones = if bits == 128 {
                u128::MAX
            } else {
                (1u128 << bits) - 1
            };
            let random = top | (((next() as u128) << 64 | next() as u128) & ones);
            for n in [top, ones, top | 1, top + 1, random, random & !1, ones - 1] {
                for sh in [-3000, -64, 0, 17, 4000] {
                    assert_eq!(
                        device_bit_form(n, sh, false),
                        ExtF::from_u128_rd(n, sh),
                        "{n} {sh}"
                    );
                    assert_eq!(
                        device_bit_form(n, sh, true),
                        ExtF::from_u128_ru(n, sh),
                        "{n} {sh}"
                    );
                }
            }
        }
        assert_eq!(device_bit_form(0, 5, true), ExtF::ZERO);
    }

    #[test]
    fn from_u128_rounds_outward() {
        let n = (1u128 << 100) + 12345;
        let (lo, hi) = (ExtF::from_u128_rd(n, 0), ExtF::from_u128_ru(n, 0));
        assert_eq!(lo, ExtF::new(1.0, 100));
        assert_eq!(hi, ExtF::new(next_up(1.0), 100));
        assert_eq!(ExtF::from_u128_rd(5, 3), ExtF::new(40.0, 0));
    }
}
