//! Division and square root near the exponent-range limits: the result is the correctly rounded
//! value (the shifted result of the same operation on small exponents, which `rns_vs_mpfr`
//! checks against MPFR) or the range rule's ±Inf / ±0 — never NaN for finite operands.
//! Regression test: Newton's intermediates used to leave the range (found by the GPU twin).

use mpblas::rns::{Basis, EMAX, EMIN, MpFloat};
use std::sync::Arc;

/// SplitMix64: a seeded stream of u64s.
struct Rng(mpblas_testdata::SplitMix64);
impl Rng {
    /// A generator seeded with `seed` (the shared SplitMix64).
    fn new(seed: u64) -> Self {
        Rng(mpblas_testdata::SplitMix64::new(seed))
    }
    fn next(&mut self) -> u64 {
        self.0.next_u64()
    }
}

/// A random positive full-precision number near 1.
fn operand(basis: &Arc<Basis>, rng: &mut Rng) -> MpFloat {
    let p = basis.precision() as usize;
    let n = p.div_ceil(64);
    let mut limbs: Vec<u64> = (0..n).map(|_| rng.next()).collect();
    let top = p - 64 * (n - 1);
    limbs[n - 1] &= if top == 64 { u64::MAX } else { (1 << top) - 1 };
    limbs[n - 1] |= 1 << (top - 1);
    MpFloat::from_limbs(basis, false, &limbs, -(p as i64))
}

#[test]
fn div_is_shift_invariant_up_to_the_range_limits() {
    for bits in [106, 424] {
        let basis = Basis::new(bits).unwrap();
        let mut rng = Rng::new(bits as u64);
        for case in 0..200 {
            let (a, b) = (operand(&basis, &mut rng), operand(&basis, &mut rng));
            let q = a.div(&b).unwrap();
            // Shifts that keep the quotient in range although the operands sit at the limits.
            let near_top = EMAX - 64 - (case as i64 % 7);
            let near_bottom = EMIN + 64 + (case as i64 % 5);
            for (ka, kb) in [
                (near_top, near_top),
                (near_bottom, near_bottom),
                (near_top, 0),
                (0, near_bottom / 2),
            ] {
                let got = a.mul_pow2(ka).div(&b.mul_pow2(kb)).unwrap();
                let want = q.mul_pow2(ka - kb);
                assert!(
                    got.identical(&want),
                    "{bits} bits, case {case}, shifts ({ka}, {kb})"
                );
            }
            // Quotients beyond the range follow the range rule, with the sign.
            let over = a
                .mul_pow2(near_top)
                .div(&b.neg().mul_pow2(near_bottom))
                .unwrap();
            assert!(
                over.is_infinite() && over.is_sign_negative(),
                "{bits} bits, case {case}"
            );
            let under = a.mul_pow2(near_bottom).div(&b.mul_pow2(near_top)).unwrap();
            assert!(
                under.is_zero() && !under.is_sign_negative(),
                "{bits} bits, case {case}"
            );
        }
    }
}

#[test]
fn sqrt_is_shift_invariant_up_to_the_range_limits() {
    for bits in [106, 424] {
        let basis = Basis::new(bits).unwrap();
        let mut rng = Rng::new(1000 + bits as u64);
        for case in 0..200 {
            let a = operand(&basis, &mut rng);
            let s = a.sqrt().unwrap();
            for k in [
                EMAX / 2 - 64,
                EMIN / 2 + 64,
                EMAX / 2 - 65 - case as i64 % 3,
            ] {
                let got = a.mul_pow2(2 * k).sqrt().unwrap();
                assert!(
                    got.identical(&s.mul_pow2(k)),
                    "{bits} bits, case {case}, 2^{}",
                    2 * k
                );
            }
        }
    }
}

/// Constructors at the ends of the `i64` exponent argument follow the range rule instead of
/// wrapping (issue 11: `from_u64_exp(.., 1, i64::MIN)` was `+∞` and `(.., u64::MAX, i64::MAX)`
/// `+0` in release builds, an overflow panic in debug builds).
#[test]
fn extreme_exponent_arguments_follow_the_range_rule() {
    for bits in [24, 106, 424] {
        let b = Basis::new(bits).unwrap();
        for neg in [false, true] {
            for v in [1u64, 3, u64::MAX] {
                let tiny = MpFloat::from_u64_exp(&b, neg, v, i64::MIN);
                assert!(tiny.is_zero() && tiny.is_sign_negative() == neg, "{tiny:?}");
                let huge = MpFloat::from_u64_exp(&b, neg, v, i64::MAX);
                assert!(
                    huge.is_infinite() && huge.is_sign_negative() == neg,
                    "{huge:?}"
                );
                for limbs in [vec![v], vec![v, u64::MAX, 5]] {
                    let tiny = MpFloat::from_limbs(&b, neg, &limbs, i64::MIN);
                    assert!(tiny.is_zero() && tiny.is_sign_negative() == neg);
                    let huge = MpFloat::from_limbs(&b, neg, &limbs, i64::MAX);
                    assert!(huge.is_infinite() && huge.is_sign_negative() == neg);
                }
            }
            // Ordinary arguments are untouched.
            let three = MpFloat::from_u64_exp(&b, neg, 3, -1);
            assert_eq!(three.to_f64(), if neg { -1.5 } else { 1.5 });
        }
    }
}
