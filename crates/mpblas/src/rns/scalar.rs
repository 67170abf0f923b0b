//! [`Scalar`] for [`MpFloat`]: the context is the basis, every operation is correctly
//! rounded (so the operation error bound is `u = 2^-p`), and the multiply-add is fused.
//!
//! The trait's operations cannot fail, so operands of different bases (which the `Result`
//! methods of [`MpFloat`] refuse) are reconciled here: the narrower operand is widened exactly
//! to the wider basis and the result is that basis's correctly rounded value. Routines on
//! [`MpArray`](super::MpArray) batches check the basis once and never meet the case.

use super::{Basis, Class, EMAX, EMIN, MpFloat};
use crate::scalar::Scalar;
use std::cmp::Ordering;
use std::num::FpCategory;
use std::sync::Arc;

/// `x` in `basis`, exactly when `basis` is at least as wide (what the reconciliation needs).
fn widened(x: &MpFloat, basis: &Arc<Basis>) -> MpFloat {
    match x.class() {
        Class::Nan => MpFloat::nan(basis),
        Class::Infinite => MpFloat::infinity(basis, x.is_sign_negative()),
        Class::Finite => match x.to_limbs() {
            Some((neg, limbs, exp)) => MpFloat::from_limbs(basis, neg, &limbs, exp),
            None => MpFloat::nan(basis),
        },
    }
}

/// `op(a, b)` in the wider of the operands' bases.
fn in_common_basis(
    a: &MpFloat,
    b: &MpFloat,
    op: impl Fn(&MpFloat, &MpFloat) -> crate::Result<MpFloat>,
) -> MpFloat {
    if a.basis().same(b.basis()) {
        // Equal bases: the strict operation cannot fail.
        return op(a, b).unwrap_or_else(|_| MpFloat::nan(a.basis()));
    }
    let (wa, wb) = if a.precision() >= b.precision() {
        (a.clone(), widened(b, a.basis()))
    } else {
        (widened(a, b.basis()), b.clone())
    };
    op(&wa, &wb).unwrap_or_else(|_| MpFloat::nan(wa.basis()))
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
            MpFloat::partial_cmp(self, &widened(other, self.basis()))
        } else {
            MpFloat::partial_cmp(&widened(self, other.basis()), other)
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
    fn op_error_bound_in(b: &Arc<Basis>) -> f64 {
        b.unit_roundoff()
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
        let w = |x: &MpFloat| widened(x, &widest);
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
