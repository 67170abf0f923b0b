//! Operators (`+ − × ÷` and unary `−` on `MpFloat` and `&MpFloat`, the compound assignments),
//! comparisons (`PartialEq`, `PartialOrd`), parsing (`FromStr`) and [`Scalar`] for
//! [`MpFloat`]: the context is the basis, every operation is correctly rounded (so the
//! operation error bound is `u = 2^-p`), and the multiply-add is fused.
//!
//! None of these can fail, so operands of different bases (which the `Result` methods of
//! [`MpFloat`] refuse with [`Error::BasisMismatch`](crate::Error::BasisMismatch)) are
//! reconciled: the narrower operand is widened exactly ([`MpFloat::round_to`]) and the result
//! is the wider basis's correctly rounded value. Routines on [`MpArray`](super::MpArray) batches
//! check the basis once and never meet the case.
//!
//! ```
//! use mpblas::rns::{Basis, MpFloat};
//! let b = Basis::new(212).unwrap();
//! let x = MpFloat::from_f64(&b, 0.1);
//! let y: MpFloat = "0.2".parse().unwrap(); // 56 bits: enough for the digits written
//! let s = &x + &y; // in the 212-bit basis, y widened exactly
//! assert_eq!(s.precision(), b.precision());
//! assert!(s > x && -&s < x);
//! ```

use super::{Basis, Class, EMAX, EMIN, MAX_PRECISION, MpFloat};
use crate::scalar::Scalar;
use std::cmp::Ordering;
use std::num::FpCategory;
use std::sync::Arc;

/// `op(a, b)` in the wider of the operands' bases.
fn in_common_basis(
    a: &MpFloat,
    b: &MpFloat,
    op: impl Fn(&MpFloat, &MpFloat) -> crate::error::Result<MpFloat>,
) -> MpFloat {
    if a.basis().same(b.basis()) {
        // Equal bases: the strict operation cannot fail.
        return op(a, b).unwrap_or_else(|_| MpFloat::nan(a.basis()));
    }
    let (wa, wb) = if a.precision() >= b.precision() {
        (a.clone(), b.round_to(a.basis()))
    } else {
        (a.round_to(b.basis()), b.clone())
    };
    op(&wa, &wb).unwrap_or_else(|_| MpFloat::nan(wa.basis()))
}

macro_rules! binary_operator {
    ($trait:ident, $method:ident, $assign:ident, $assign_method:ident, $scalar:ident) => {
        /// Correctly rounded; operands of different bases meet in the wider (module docs).
        impl std::ops::$trait<&MpFloat> for &MpFloat {
            type Output = MpFloat;
            fn $method(self, rhs: &MpFloat) -> MpFloat {
                Scalar::$scalar(self, rhs)
            }
        }
        /// As for references.
        impl std::ops::$trait<MpFloat> for MpFloat {
            type Output = MpFloat;
            fn $method(self, rhs: MpFloat) -> MpFloat {
                Scalar::$scalar(&self, &rhs)
            }
        }
        /// As for references.
        impl std::ops::$trait<&MpFloat> for MpFloat {
            type Output = MpFloat;
            fn $method(self, rhs: &MpFloat) -> MpFloat {
                Scalar::$scalar(&self, rhs)
            }
        }
        /// As for references.
        impl std::ops::$trait<MpFloat> for &MpFloat {
            type Output = MpFloat;
            fn $method(self, rhs: MpFloat) -> MpFloat {
                Scalar::$scalar(self, &rhs)
            }
        }
        /// In place (the result may be in a wider basis than `self` had).
        impl std::ops::$assign<&MpFloat> for MpFloat {
            fn $assign_method(&mut self, rhs: &MpFloat) {
                *self = Scalar::$scalar(&*self, rhs);
            }
        }
        /// In place.
        impl std::ops::$assign<MpFloat> for MpFloat {
            fn $assign_method(&mut self, rhs: MpFloat) {
                *self = Scalar::$scalar(&*self, &rhs);
            }
        }
    };
}

binary_operator!(Add, add, AddAssign, add_assign, add_ref);
binary_operator!(Sub, sub, SubAssign, sub_assign, sub_ref);
binary_operator!(Mul, mul, MulAssign, mul_assign, mul_ref);
binary_operator!(Div, div, DivAssign, div_assign, div_ref);

/// Exact.
impl std::ops::Neg for &MpFloat {
    type Output = MpFloat;
    fn neg(self) -> MpFloat {
        MpFloat::neg(self)
    }
}
/// Exact.
impl std::ops::Neg for MpFloat {
    type Output = MpFloat;
    fn neg(self) -> MpFloat {
        MpFloat::neg(&self)
    }
}

/// A decimal string at a precision that holds every digit written: `p = max(53, ⌈d·log2 10⌉
/// + 1)` bits for `d` significant digits (at most [`MAX_PRECISION`]), the smallest basis with at
/// least that precision, correctly rounded (so a string of up to 15 digits becomes the same
/// value as the `f64` it denotes would in that basis). Choose the basis yourself with
/// [`MpFloat::parse`].
impl std::str::FromStr for MpFloat {
    type Err = crate::error::Error;
    fn from_str(s: &str) -> crate::error::Result<MpFloat> {
        let digits = significant_digits(s);
        let bits = (digits as f64 * std::f64::consts::LOG2_10).ceil() as u64 + 1;
        let p = bits.clamp(53, u64::from(MAX_PRECISION)) as u32;
        MpFloat::parse(&Basis::new(p)?, s)
    }
}

/// The number of significant decimal digits of the significand of `s` (leading zeros and
/// everything from the exponent on not counted). A rough count is enough: it only picks a
/// precision; the parser checks the syntax.
fn significant_digits(s: &str) -> usize {
    let mantissa = s.trim().split(['e', 'E']).next().unwrap_or_default();
    mantissa
        .bytes()
        .filter(u8::is_ascii_digit)
        .skip_while(|&b| b == b'0')
        .count()
}

impl PartialEq for MpFloat {
    /// Numeric equality across bases: NaN equals nothing, `−0 == +0`.
    fn eq(&self, other: &MpFloat) -> bool {
        PartialOrd::partial_cmp(self, other) == Some(Ordering::Equal)
    }
}

impl PartialOrd for MpFloat {
    /// Numeric order across bases (exact); `None` when either is NaN.
    fn partial_cmp(&self, other: &MpFloat) -> Option<Ordering> {
        let r = if self.basis().same(other.basis()) {
            MpFloat::partial_cmp(self, other)
        } else if self.precision() >= other.precision() {
            MpFloat::partial_cmp(self, &other.round_to(self.basis()))
        } else {
            MpFloat::partial_cmp(&self.round_to(other.basis()), other)
        };
        r.ok().flatten()
    }
}

impl Scalar for MpFloat {
    type Ctx = Arc<Basis>;
    const FORMAT: &'static str = "rns";

    fn ctx(&self) -> Arc<Basis> {
        self.basis().clone()
    }
    /// `2^-p` as an `f64` (0 beyond 1074 bits: [`Scalar::epsilon_in`] is exact).
    fn unit_roundoff_in(b: &Arc<Basis>) -> f64 {
        b.unit_roundoff()
    }
    /// `2^-p` rounded up to at least the smallest subnormal: beyond 1074 bits `2^-p` is 0 in
    /// `f64`, and a bound `0·|x|` would claim exactness. The routines' `f64` bounds are then
    /// loose (the fused routines return extended-range bounds instead) but still bounds.
    fn op_error_bound_in(b: &Arc<Basis>) -> f64 {
        b.unit_roundoff().max(f64::from_bits(1))
    }
    fn ctx_for_empty() -> Arc<Basis> {
        Basis::new(53).expect("53 bits is a supported precision")
    }
    fn underflow_error_in(_: &Arc<Basis>) -> f64 {
        0.0
    }
    fn check_ctx(&self, b: &Arc<Basis>) -> crate::error::Result<()> {
        if self.basis().same(b) {
            Ok(())
        } else {
            Err(crate::error::Error::BasisMismatch {
                left_bits: b.precision(),
                right_bits: self.basis().precision(),
            })
        }
    }
    fn zero_in(b: &Arc<Basis>) -> MpFloat {
        MpFloat::zero(b, false)
    }
    fn one_in(b: &Arc<Basis>) -> MpFloat {
        MpFloat::from_u64_exp(b, false, 1, 0)
    }
    fn epsilon_in(b: &Arc<Basis>) -> MpFloat {
        MpFloat::from_u64_exp(b, false, 1, -i64::from(b.precision()))
    }
    /// `2^(EMIN−1)`: every finite nonzero RNS number has full precision.
    fn min_positive_in(b: &Arc<Basis>) -> MpFloat {
        MpFloat::from_u64_exp(b, false, 1, EMIN - 1)
    }
    /// `(2^p − 1)·2^(EMAX − p)`.
    fn max_finite_in(b: &Arc<Basis>) -> MpFloat {
        let p = u64::from(b.precision());
        let mut limbs = vec![u64::MAX; p.div_ceil(64) as usize];
        if let Some(top) = limbs.last_mut()
            && p % 64 != 0
        {
            *top = (1 << (p % 64)) - 1;
        }
        MpFloat::from_limbs(b, false, &limbs, EMAX - p as i64)
    }
    fn from_f64_in(b: &Arc<Basis>, x: f64) -> MpFloat {
        MpFloat::from_f64(b, x)
    }
    fn from_usize_in(b: &Arc<Basis>, n: usize) -> MpFloat {
        MpFloat::from_u64_exp(b, false, n as u64, 0)
    }
    fn nearest_f64(&self) -> f64 {
        self.to_f64()
    }
    fn class(&self) -> FpCategory {
        match MpFloat::class(self) {
            Class::Nan => FpCategory::Nan,
            Class::Infinite => FpCategory::Infinite,
            Class::Finite if self.is_zero() => FpCategory::Zero,
            Class::Finite => FpCategory::Normal,
        }
    }
    fn add_ref(&self, rhs: &MpFloat) -> MpFloat {
        in_common_basis(self, rhs, MpFloat::add)
    }
    fn sub_ref(&self, rhs: &MpFloat) -> MpFloat {
        in_common_basis(self, rhs, MpFloat::sub)
    }
    fn mul_ref(&self, rhs: &MpFloat) -> MpFloat {
        in_common_basis(self, rhs, MpFloat::mul)
    }
    fn div_ref(&self, rhs: &MpFloat) -> MpFloat {
        in_common_basis(self, rhs, MpFloat::div)
    }
    fn neg_ref(&self) -> MpFloat {
        self.neg()
    }
    fn abs_ref(&self) -> MpFloat {
        self.abs()
    }
    fn sqrt_ref(&self) -> MpFloat {
        self.sqrt().unwrap_or_else(|_| MpFloat::nan(self.basis()))
    }
    fn recip_ref(&self) -> MpFloat {
        Self::one_in(self.basis()).div_ref(self)
    }
    fn mul_add_ref(&self, b: &MpFloat, c: &MpFloat) -> MpFloat {
        if self.basis().same(b.basis()) && self.basis().same(c.basis()) {
            return self
                .fma(b, c)
                .unwrap_or_else(|_| MpFloat::nan(self.basis()));
        }
        // The widest basis of the three, the others widened exactly, one rounding.
        let widest = [self, b, c]
            .into_iter()
            .max_by_key(|x| x.precision())
            .map(|x| x.basis().clone())
            .unwrap_or_else(|| self.basis().clone());
        let w = |x: &MpFloat| x.round_to(&widest);
        w(self)
            .fma(&w(b), &w(c))
            .unwrap_or_else(|_| MpFloat::nan(&widest))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_are_the_extremes_of_the_format() {
        let b = Basis::new(100).unwrap();
        let max = MpFloat::max_finite_in(&b);
        assert!(max.is_finite());
        // One more unit in the last place overflows.
        let ulp = MpFloat::from_u64_exp(&b, false, 1, EMAX - i64::from(b.precision()));
        assert!(max.add_ref(&ulp).is_infinite());
        let tiny = MpFloat::min_positive_in(&b);
        assert!(tiny.is_finite() && !tiny.is_zero());
        assert!(tiny.mul_ref(&MpFloat::from_f64(&b, 0.5)).is_zero());
        let eps = MpFloat::epsilon_in(&b);
        let one = MpFloat::one_in(&b);
        assert_eq!(one.add_ref(&eps.mul_ref(&MpFloat::from_f64(&b, 0.5))), one);
        assert!(one.add_ref(&eps.mul_ref(&MpFloat::from_f64(&b, 1.5))) > one);
    }

    #[test]
    fn parsing_picks_a_precision_for_the_digits() {
        let x: MpFloat = "0.1".parse().unwrap();
        assert_eq!(x.precision(), Basis::new(53).unwrap().precision());
        assert_eq!(x.to_f64(), 0.1);
        let long = format!("1.{}", "3".repeat(100));
        let y: MpFloat = long.parse().unwrap();
        assert!(y.precision() >= 334, "{}", y.precision());
        let z: MpFloat = "-0000.000123e-7".parse().unwrap();
        assert_eq!(z.precision(), x.precision());
        assert!("1.2.3".parse::<MpFloat>().is_err());
        assert!("".parse::<MpFloat>().is_err());
        let huge: MpFloat = "9".repeat(20_000).parse().unwrap();
        assert_eq!(
            huge.precision(),
            Basis::new(MAX_PRECISION).unwrap().precision()
        );
    }

    #[test]
    fn operators_round_like_the_methods() {
        let b = Basis::new(150).unwrap();
        let (x, y) = (MpFloat::from_f64(&b, 0.1), MpFloat::from_f64(&b, 3.0));
        assert!((&x + &y).identical(&x.add(&y).unwrap()));
        assert!((&x - &y).identical(&x.sub(&y).unwrap()));
        assert!((x.clone() * y.clone()).identical(&x.mul(&y).unwrap()));
        assert!((&x / y.clone()).identical(&x.div(&y).unwrap()));
        assert!((-&x).identical(&x.neg()));
        let mut acc = x.clone();
        acc += &y;
        acc -= y.clone();
        acc *= &y;
        acc /= &y;
        assert!(acc == x, "{acc:?}");
    }

    /// `fl(±2^k · x)` is `x.mul_pow2(k)` (negated for `−2^k`) field for field, evaluation
    /// included, at every precision: `2^(p−1)·X` has `2p − 1` bits whose low `p − 1` are zero, so
    /// the rounding only moves the exponent. (A GEMV with `α = ±2^k`, `α = 1` above all, may
    /// take `d = x` scaled instead of rounding each `α·x_j`, and keep its bits.)
    #[test]
    fn products_with_powers_of_two_are_exact_scalings() {
        let mut rng = mpblas_testdata::SplitMix64::new(24);
        for bits in [53, 106, 424, 1696] {
            let b = Basis::new(bits).unwrap();
            let mut xs = vec![
                MpFloat::zero(&b, false),
                MpFloat::zero(&b, true),
                MpFloat::infinity(&b, false),
                MpFloat::infinity(&b, true),
                MpFloat::nan(&b),
                MpFloat::max_finite_in(&b),
                MpFloat::min_positive_in(&b),
            ];
            for _ in 0..40 {
                // full-precision significands: products and quotients of random doubles
                let u = MpFloat::from_f64(&b, rng.uniform() * 2.0 - 1.0);
                let v = MpFloat::from_f64(&b, rng.uniform() + 0.5);
                xs.push(u.div_ref(&v).mul_pow2((rng.next_u64() % 400) as i64 - 200));
            }
            for x in &xs {
                let pow2 = x.is_finite()
                    && !x.is_zero()
                    && x.abs().num_eq(
                        &MpFloat::one_in(&b).mul_pow2(x.exponent() + b.precision() as i64 - 1),
                    );
                assert_eq!(
                    x.power_of_two_exponent().is_some(),
                    pow2,
                    "{bits} bits: {x:?}"
                );
                for k in [0i64, 1, -1, 37, -300, 5000] {
                    for neg in [false, true] {
                        let alpha = MpFloat::from_f64(&b, if neg { -1.0 } else { 1.0 }).mul_pow2(k);
                        assert_eq!(
                            alpha.power_of_two_exponent(),
                            Some(k),
                            "{bits} bits, k = {k}"
                        );
                        let got = alpha.mul_ref(x);
                        let scaled = x.mul_pow2(k);
                        let want = if neg { scaled.neg() } else { scaled };
                        assert!(
                            got.identical(&want),
                            "{bits} bits, k = {k}: {got:?} against {want:?}"
                        );
                        if got.is_finite() {
                            assert_eq!(got.eval, want.eval, "{bits} bits, k = {k}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn mixed_bases_meet_in_the_wider_one() {
        let (narrow, wide) = (Basis::new(60).unwrap(), Basis::new(200).unwrap());
        let third = MpFloat::from_f64(&wide, 1.0).div_ref(&MpFloat::from_f64(&wide, 3.0));
        let one = MpFloat::from_f64(&narrow, 1.0);
        let s = one.add_ref(&third);
        assert!(s.basis().same(&wide));
        assert_eq!(s, MpFloat::from_f64(&wide, 1.0).add_ref(&third));
        assert!(one < s);
        assert!(PartialOrd::partial_cmp(&s, &one) == Some(Ordering::Greater));
        assert_eq!(
            MpFloat::from_f64(&narrow, 0.5),
            MpFloat::from_f64(&wide, 0.5)
        );
        assert_ne!(MpFloat::nan(&narrow), MpFloat::nan(&narrow));
    }
}
