//! Error-free transformations are exact: checked against MPFR on seeded random operands over
//! the whole f64 range, subnormals included, within each EFT's documented preconditions.

mod oracle;

use mpblas::eft::{fast_two_sum, split, three_sum, two_diff, two_prod, two_sqr, two_sum};
use oracle::{exact, runner};
use proptest::prelude::*;
use rug::Float;

/// Any finite f64, drawn by bit pattern so that every binade (and subnormals) is covered.
fn finite() -> impl Strategy<Value = f64> {
    any::<u64>().prop_map(|b| {
        let x = f64::from_bits(b);
        if x.is_finite() {
            x
        } else {
            f64::from_bits(b & !(1 << 62))
        }
    })
}

/// A finite f64 with exponent in `e` (normal range), random significand and sign.
fn with_exp(e: std::ops::Range<i32>) -> impl Strategy<Value = f64> {
    (any::<u64>(), e, any::<bool>()).prop_map(|(m, e, neg)| {
        let x = f64::from_bits((1023u64 << 52) | (m >> 12)) * 2f64.powi(e);
        if neg { -x } else { x }
    })
}

#[test]
fn two_sum_and_two_diff_are_exact_everywhere() {
    runner(100_000)
        .run(&(finite(), finite()), |(a, b)| {
            let (s, e) = two_sum(a, b);
            if s.is_finite() {
                prop_assert_eq!(exact(&[s, e]), exact(&[a, b]), "two_sum({:e}, {:e})", a, b);
                prop_assert_eq!(s, a + b);
            }
            let (s, e) = two_diff(a, b);
            if s.is_finite() {
                prop_assert_eq!(
                    exact(&[s, e]),
                    exact(&[a, -b]),
                    "two_diff({:e}, {:e})",
                    a,
                    b
                );
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn fast_two_sum_is_exact_when_ordered() {
    runner(100_000)
        .run(&(finite(), finite()), |(a, b)| {
            let (a, b) = if a.abs() >= b.abs() { (a, b) } else { (b, a) };
            let (s, e) = fast_two_sum(a, b);
            if s.is_finite() {
                prop_assert_eq!(
                    exact(&[s, e]),
                    exact(&[a, b]),
                    "fast_two_sum({:e}, {:e})",
                    a,
                    b
                );
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn two_prod_is_exact_without_underflow() {
    // Exact when the error term is representable: |a·b| ≥ 2^-1022+106 and no overflow.
    runner(100_000)
        .run(&(with_exp(-450..500), with_exp(-450..500)), |(a, b)| {
            let (p, e) = two_prod(a, b);
            let want = Float::with_val(2200, exact(&[a]) * exact(&[b]));
            prop_assert_eq!(exact(&[p, e]), want, "two_prod({:e}, {:e})", a, b);
            let (p2, e2) = two_sqr(a);
            let want = Float::with_val(2200, exact(&[a]) * exact(&[a]));
            prop_assert_eq!(exact(&[p2, e2]), want, "two_sqr({:e})", a);
            Ok(())
        })
        .unwrap();
}

/// Number of bits between the leading and trailing one bits of the significand.
fn significant_bits(x: f64) -> u32 {
    if x == 0.0 {
        return 0;
    }
    let bits = x.to_bits() & ((1u64 << 63) - 1);
    let m = if bits >> 52 == 0 {
        bits
    } else {
        (bits & ((1u64 << 52) - 1)) | (1 << 52)
    };
    64 - m.leading_zeros() - m.trailing_zeros()
}

#[test]
fn split_halves_are_exact_and_short() {
    runner(100_000)
        .run(&finite(), |a| {
            let (hi, lo) = split(a);
            prop_assert_eq!(exact(&[hi, lo]), exact(&[a]), "split({:e})", a);
            // hi and lo each have at most 26 significant bits (so their products are exact).
            prop_assert!(
                significant_bits(hi) <= 26,
                "hi of split({:e}) = {:e}",
                a,
                hi
            );
            if a.abs() < 1.7e308 {
                prop_assert!(
                    significant_bits(lo) <= 26,
                    "lo of split({:e}) = {:e}",
                    a,
                    lo
                );
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn three_sum_is_exact() {
    runner(100_000)
        .run(
            &(with_exp(-60..60), with_exp(-60..60), with_exp(-60..60)),
            |(a, b, c)| {
                let (s, e1, e2) = three_sum(a, b, c);
                prop_assert_eq!(exact(&[s, e1, e2]), exact(&[a, b, c]));
                Ok(())
            },
        )
        .unwrap();
}
