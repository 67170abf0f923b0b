//! A small unsigned big integer on `u64` limbs, for exact decimal conversion (and later the RNS
//! module's reconstruction). It is deliberately minimal: schoolbook algorithms, no signs, no
//! operator overloading, and no operation panics (division by zero returns `None`, subtraction
//! that would go negative returns `None`).
//!
//! Representation: little-endian limbs with no zero limb at the top, so zero is the empty
//! vector and every value has exactly one representation (`==` is limb equality).
//!
//! Sizes in this crate stay below a few thousand bits, where schoolbook multiplication and
//! Knuth's long division are faster than anything asymptotically better.

use std::cmp::Ordering;

/// An unsigned integer of arbitrary size (see the [module docs](self)).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct BigUint {
    /// Little-endian limbs, the top one non-zero (empty for zero).
    limbs: Vec<u64>,
}

impl BigUint {
    /// Zero.
    pub(crate) fn zero() -> BigUint {
        BigUint { limbs: Vec::new() }
    }

    /// The value `x`.
    pub(crate) fn from_u64(x: u64) -> BigUint {
        let mut b = BigUint { limbs: vec![x] };
        b.trim();
        b
    }

    /// The value whose little-endian limbs are `limbs` (zero limbs on top are allowed).
    pub(crate) fn from_limbs(limbs: &[u64]) -> BigUint {
        let mut b = BigUint {
            limbs: limbs.to_vec(),
        };
        b.trim();
        b
    }

    /// The little-endian limbs, without zero limbs on top (empty for zero).
    #[allow(dead_code, reason = "part of the API the RNS module will use")]
    pub(crate) fn limbs(&self) -> &[u64] {
        &self.limbs
    }

    /// `base^exp`, by repeated squaring.
    pub(crate) fn pow(base: u64, mut exp: u32) -> BigUint {
        let mut result = BigUint::from_u64(1);
        let mut b = BigUint::from_u64(base);
        while exp > 0 {
            if exp & 1 == 1 {
                result = result.mul(&b);
            }
            exp >>= 1;
            if exp > 0 {
                b = b.mul(&b);
            }
        }
        result
    }

    /// True if the value is zero.
    pub(crate) fn is_zero(&self) -> bool {
        self.limbs.is_empty()
    }

    /// The value as a `u64`, if it fits.
    pub(crate) fn to_u64(&self) -> Option<u64> {
        match self.limbs.len() {
            0 => Some(0),
            1 => self.limbs.first().copied(),
            _ => None,
        }
    }

    /// Number of significant bits (0 for zero).
    pub(crate) fn bit_len(&self) -> usize {
        match self.limbs.last() {
            None => 0,
            Some(&top) => 64 * self.limbs.len() - top.leading_zeros() as usize,
        }
    }

    /// Bit `i` (bit 0 is the least significant).
    pub(crate) fn bit(&self, i: usize) -> bool {
        self.limbs
            .get(i / 64)
            .is_some_and(|&l| (l >> (i % 64)) & 1 == 1)
    }

    /// Number of zero bits below the lowest one bit; `None` for zero.
    pub(crate) fn trailing_zeros(&self) -> Option<usize> {
        let i = self.limbs.iter().position(|&l| l != 0)?;
        Some(64 * i + self.limbs.get(i).map_or(0, |l| l.trailing_zeros() as usize))
    }

    /// `self mod 2^bits`.
    pub(crate) fn low_bits(&self, bits: usize) -> BigUint {
        let full = bits / 64;
        let part = bits % 64;
        if full >= self.limbs.len() {
            return self.clone();
        }
        let mut limbs = self.limbs[..full].to_vec();
        if part > 0 {
            limbs.push(self.limbs[full] & ((1u64 << part) - 1));
        }
        BigUint::from_limbs(&limbs)
    }

    /// `self *= m`.
    pub(crate) fn mul_small(&mut self, m: u64) {
        let mut carry: u64 = 0;
        for l in self.limbs.iter_mut() {
            let p = u128::from(*l) * u128::from(m) + u128::from(carry);
            *l = p as u64;
            carry = (p >> 64) as u64;
        }
        if carry != 0 {
            self.limbs.push(carry);
        }
        self.trim();
    }

    /// `self += a`.
    pub(crate) fn add_small(&mut self, a: u64) {
        let mut carry = a;
        for l in self.limbs.iter_mut() {
            if carry == 0 {
                return;
            }
            let (s, c) = l.overflowing_add(carry);
            *l = s;
            carry = u64::from(c);
        }
        if carry != 0 {
            self.limbs.push(carry);
        }
    }

    /// `self + other`.
    pub(crate) fn add(&self, other: &BigUint) -> BigUint {
        let (long, short) = if self.limbs.len() >= other.limbs.len() {
            (&self.limbs, &other.limbs)
        } else {
            (&other.limbs, &self.limbs)
        };
        let mut out = Vec::with_capacity(long.len() + 1);
        let mut carry = false;
        for (i, &a) in long.iter().enumerate() {
            let b = short.get(i).copied().unwrap_or(0);
            let (s1, c1) = a.overflowing_add(b);
            let (s2, c2) = s1.overflowing_add(u64::from(carry));
            out.push(s2);
            carry = c1 || c2;
        }
        if carry {
            out.push(1);
        }
        BigUint { limbs: out }
    }

    /// `self - other`, or `None` if that would be negative.
    pub(crate) fn checked_sub(&self, other: &BigUint) -> Option<BigUint> {
        if self.cmp(other) == Ordering::Less {
            return None;
        }
        let mut out = Vec::with_capacity(self.limbs.len());
        let mut borrow = false;
        for (i, &a) in self.limbs.iter().enumerate() {
            let b = other.limbs.get(i).copied().unwrap_or(0);
            let (d1, b1) = a.overflowing_sub(b);
            let (d2, b2) = d1.overflowing_sub(u64::from(borrow));
            out.push(d2);
            borrow = b1 || b2;
        }
        let mut r = BigUint { limbs: out };
        r.trim();
        Some(r)
    }

    /// `self * other` (schoolbook).
    pub(crate) fn mul(&self, other: &BigUint) -> BigUint {
        if self.is_zero() || other.is_zero() {
            return BigUint::zero();
        }
        let mut out = vec![0u64; self.limbs.len() + other.limbs.len()];
        for (i, &a) in self.limbs.iter().enumerate() {
            let mut carry: u64 = 0;
            for (j, &b) in other.limbs.iter().enumerate() {
                let t = u128::from(a) * u128::from(b) + u128::from(out[i + j]) + u128::from(carry);
                out[i + j] = t as u64;
                carry = (t >> 64) as u64;
            }
            out[i + other.limbs.len()] = carry;
        }
        let mut r = BigUint { limbs: out };
        r.trim();
        r
    }

    /// `self · 2^bits`.
    pub(crate) fn shl(&self, bits: usize) -> BigUint {
        if self.is_zero() {
            return BigUint::zero();
        }
        let whole = bits / 64;
        let part = bits % 64;
        let mut out = vec![0u64; whole];
        out.reserve(self.limbs.len() + 1);
        if part == 0 {
            out.extend_from_slice(&self.limbs);
        } else {
            let mut carry = 0u64;
            for &l in &self.limbs {
                out.push((l << part) | carry);
                carry = l >> (64 - part);
            }
            out.push(carry);
        }
        let mut r = BigUint { limbs: out };
        r.trim();
        r
    }

    /// `⌊self / 2^bits⌋`.
    pub(crate) fn shr(&self, bits: usize) -> BigUint {
        let whole = bits / 64;
        let part = bits % 64;
        let Some(src) = self.limbs.get(whole..) else {
            return BigUint::zero();
        };
        let mut out = Vec::with_capacity(src.len());
        if part == 0 {
            out.extend_from_slice(src);
        } else {
            for (i, &l) in src.iter().enumerate() {
                let next = src.get(i + 1).copied().unwrap_or(0);
                out.push((l >> part) | (next << (64 - part)));
            }
        }
        let mut r = BigUint { limbs: out };
        r.trim();
        r
    }

    /// Divides in place by `d` and returns the remainder; `None` (and `self` unchanged) if
    /// `d == 0`.
    pub(crate) fn divrem_small(&mut self, d: u64) -> Option<u64> {
        if d == 0 {
            return None;
        }
        let mut rem: u64 = 0;
        for l in self.limbs.iter_mut().rev() {
            let num = (u128::from(rem) << 64) | u128::from(*l);
            *l = (num / u128::from(d)) as u64;
            rem = (num % u128::from(d)) as u64;
        }
        self.trim();
        Some(rem)
    }

    /// `(⌊self / d⌋, self mod d)`, or `None` if `d == 0`. Knuth, TAOCP vol. 2, §4.3.1,
    /// Algorithm D (long division with normalised divisor and two-limb quotient estimate).
    pub(crate) fn divrem(&self, d: &BigUint) -> Option<(BigUint, BigUint)> {
        let top = *d.limbs.last()?;
        if self.cmp(d) == Ordering::Less {
            return Some((BigUint::zero(), self.clone()));
        }
        if d.limbs.len() == 1 {
            let mut q = self.clone();
            let r = q.divrem_small(top)?;
            return Some((q, BigUint::from_u64(r)));
        }
        // Normalise so the divisor's top bit is set: then the two-limb estimate of each
        // quotient limb is at most 2 too large (Knuth's Theorem B).
        let shift = top.leading_zeros() as usize;
        let v = d.shl(shift).limbs;
        let mut u = self.shl(shift).limbs;
        u.push(0);
        let n = v.len();
        let m = u.len() - n - 1;
        let (v1, v2) = (u128::from(v[n - 1]), u128::from(v[n - 2]));
        let mut q = vec![0u64; m + 1];
        for j in (0..=m).rev() {
            let num = (u128::from(u[j + n]) << 64) | u128::from(u[j + n - 1]);
            let mut qhat = num / v1;
            let mut rhat = num % v1;
            // Refine the estimate with the next limb; at most two corrections.
            while qhat >> 64 != 0 || qhat * v2 > ((rhat << 64) | u128::from(u[j + n - 2])) {
                qhat -= 1;
                rhat += v1;
                if rhat >> 64 != 0 {
                    break;
                }
            }
            // u[j..=j+n] -= qhat · v
            let mut carry: u128 = 0;
            let mut borrow = false;
            for i in 0..n {
                let p = qhat * u128::from(v[i]) + carry;
                carry = p >> 64;
                let (t1, b1) = u[i + j].overflowing_sub(p as u64);
                let (t2, b2) = t1.overflowing_sub(u64::from(borrow));
                u[i + j] = t2;
                borrow = b1 || b2;
            }
            let (t1, b1) = u[j + n].overflowing_sub(carry as u64);
            let (t2, b2) = t1.overflowing_sub(u64::from(borrow));
            u[j + n] = t2;
            if b1 || b2 {
                // The estimate was one too large (probability ~2/2^64): add v back.
                qhat -= 1;
                let mut c = false;
                for i in 0..n {
                    let (s1, c1) = u[i + j].overflowing_add(v[i]);
                    let (s2, c2) = s1.overflowing_add(u64::from(c));
                    u[i + j] = s2;
                    c = c1 || c2;
                }
                u[j + n] = u[j + n].wrapping_add(u64::from(c));
            }
            q[j] = qhat as u64;
        }
        let mut quo = BigUint { limbs: q };
        quo.trim();
        let rem = BigUint::from_limbs(&u[..n]).shr(shift);
        Some((quo, rem))
    }

    /// The decimal digits (ASCII, most significant first; `"0"` for zero).
    pub(crate) fn to_decimal(&self) -> Vec<u8> {
        const CHUNK: u64 = 10_000_000_000_000_000_000; // 10^19, the largest power of 10 in u64
        let mut x = self.clone();
        let mut chunks = Vec::with_capacity(self.limbs.len() * 64 / 63 + 1);
        while !x.is_zero() {
            chunks.push(x.divrem_small(CHUNK).unwrap_or(0));
        }
        let mut out = Vec::with_capacity(chunks.len() * 19 + 1);
        for (i, c) in chunks.iter().rev().enumerate() {
            if i == 0 {
                out.extend_from_slice(c.to_string().as_bytes());
            } else {
                out.extend_from_slice(format!("{c:019}").as_bytes());
            }
        }
        if out.is_empty() {
            out.push(b'0');
        }
        out
    }

    /// Drops zero limbs on top so the representation is unique.
    fn trim(&mut self) {
        while self.limbs.last() == Some(&0) {
            self.limbs.pop();
        }
    }
}

impl Ord for BigUint {
    fn cmp(&self, other: &Self) -> Ordering {
        self.limbs
            .len()
            .cmp(&other.limbs.len())
            .then_with(|| self.limbs.iter().rev().cmp(other.limbs.iter().rev()))
    }
}

impl PartialOrd for BigUint {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shared seeded generator, so failures reproduce.
    struct Rng(mpblas_testdata::SplitMix64);
    impl Rng {
        fn new(seed: u64) -> Self {
            Rng(mpblas_testdata::SplitMix64::new(seed))
        }
        fn next(&mut self) -> u64 {
            self.0.next_u64()
        }
        /// Random limbs with runs of all-ones and zeros, which exercise carries and Knuth D's
        /// rare correction steps far more often than uniform limbs do.
        fn big(&mut self, max_limbs: usize) -> BigUint {
            let n = (self.next() as usize) % (max_limbs + 1);
            let limbs: Vec<u64> = (0..n)
                .map(|_| match self.next() % 4 {
                    0 => u64::MAX,
                    1 => 0,
                    2 => self.next() >> (self.next() % 64),
                    _ => self.next(),
                })
                .collect();
            BigUint::from_limbs(&limbs)
        }
    }

    fn to_u128(b: &BigUint) -> u128 {
        b.limbs()
            .iter()
            .rev()
            .fold(0u128, |acc, &l| (acc << 64) | u128::from(l))
    }

    #[test]
    fn small_values_agree_with_u128() {
        let mut rng = Rng::new(1);
        for _ in 0..20_000 {
            let a = u128::from(rng.next()) << (rng.next() % 64) | u128::from(rng.next());
            let b = u128::from(rng.next() >> (rng.next() % 64)) << (rng.next() % 60)
                | u128::from(rng.next() % 3);
            let (ba, bb) = (
                BigUint::from_limbs(&[a as u64, (a >> 64) as u64]),
                BigUint::from_limbs(&[b as u64, (b >> 64) as u64]),
            );
            assert_eq!(ba.cmp(&bb), a.cmp(&b));
            if let Some(s) = a.checked_add(b) {
                assert_eq!(to_u128(&ba.add(&bb)), s);
            }
            assert_eq!(ba.checked_sub(&bb).map(|x| to_u128(&x)), a.checked_sub(b));
            match ba.divrem(&bb) {
                None => assert_eq!(b, 0),
                Some((q, r)) => {
                    assert_eq!(to_u128(&q), a / b);
                    assert_eq!(to_u128(&r), a % b);
                }
            }
            let s = (rng.next() % 60) as usize;
            assert_eq!(to_u128(&ba.shr(s)), a >> s);
            assert_eq!(to_u128(&ba.low_bits(s)), a & ((1u128 << s) - 1));
            assert_eq!(ba.bit_len(), 128 - a.leading_zeros() as usize);
            assert_eq!(ba.to_decimal(), a.to_string().into_bytes());
        }
    }

    #[test]
    fn divrem_identity_on_large_values() {
        let mut rng = Rng::new(2);
        for _ in 0..5_000 {
            let a = rng.big(40);
            let d = rng.big(20);
            let Some((q, r)) = a.divrem(&d) else {
                assert!(d.is_zero());
                continue;
            };
            assert!(r < d, "remainder not reduced");
            assert_eq!(q.mul(&d).add(&r), a);
            let s = (rng.next() % 300) as usize;
            assert_eq!(a.shl(s).shr(s), a);
            assert_eq!(a.shr(s).shl(s).add(&a.low_bits(s)), a);
        }
    }

    #[test]
    fn powers_and_small_ops() {
        let p = BigUint::pow(10, 40);
        assert_eq!(p.to_decimal(), format!("1{}", "0".repeat(40)).into_bytes());
        let mut x = BigUint::from_u64(u64::MAX);
        x.add_small(1);
        assert_eq!(x.limbs(), &[0, 1]);
        x.mul_small(0);
        assert!(x.is_zero());
        assert_eq!(BigUint::from_u64(8).trailing_zeros(), Some(3));
        assert_eq!(BigUint::zero().trailing_zeros(), None);
        assert!(BigUint::from_u64(5).divrem(&BigUint::zero()).is_none());
        assert_eq!(BigUint::pow(2, 100).to_u64(), None);
        assert!(BigUint::pow(2, 100).bit(100));
    }
}
