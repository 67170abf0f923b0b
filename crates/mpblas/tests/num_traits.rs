//! The `num-traits` layer: generic numeric code written for `f64` works with `Dd` and `Qd`,
//! integer conversions keep every bit, and unsupported inputs are errors, not panics.

use mpblas::{Dd, Qd};
use num_traits::{Float, FromPrimitive, Num, NumCast, ToPrimitive};
use rug::Float as MpfrFloat;

/// Generic code as a user would write it: Heron's formula for a needle-like triangle, where
/// f64 loses most digits to cancellation.
fn heron<T: Float>(a: T, b: T, c: T) -> T {
    let two = T::one() + T::one();
    let s = (a + b + c) / two;
    (s * (s - a) * (s - b) * (s - c)).sqrt()
}

#[test]
fn generic_float_code_gains_precision() {
    // c = 2 − 4503 ulp(1): an odd multiple, so the f64 sum a + b + c must round.
    let (a, b, c) = (1.0, 1.0, 2.0 - 4503.0 * f64::EPSILON);
    // Reference from MPFR at 2200 bits on the same (exact) f64 inputs.
    let p = 2200;
    let (ra, rb, rc) = (
        MpfrFloat::with_val(p, a),
        MpfrFloat::with_val(p, b),
        MpfrFloat::with_val(p, c),
    );
    let s = (MpfrFloat::with_val(p, &ra + &rb) + &rc) / 2u32;
    let prod = MpfrFloat::with_val(p, &s * MpfrFloat::with_val(p, &s - &ra))
        * MpfrFloat::with_val(p, &s - &rb)
        * MpfrFloat::with_val(p, &s - &rc);
    let exact_area = prod.sqrt();
    let rel = |words: &[f64]| {
        let mut v = MpfrFloat::with_val(p, 0);
        for &w in words {
            v += w;
        }
        MpfrFloat::with_val(64, (v - &exact_area) / &exact_area)
            .abs()
            .to_f64()
    };
    let f = heron(a, b, c);
    let d = heron(Dd::from_f64(a), Dd::from_f64(b), Dd::from_f64(c));
    let q = heron(Qd::from_f64(a), Qd::from_f64(b), Qd::from_f64(c));
    // s − c ≈ 5e-13 cancels: s's relative error (a few u) is amplified by s/(s−c) ≈ 4e12.
    // With u = 2^-106 that leaves about 1e-18, with u = 2^-212 about 1e-50.
    let amplification = 4e12;
    assert!(rel(&[d.hi, d.lo]) <= 10.0 * Dd::UNIT_ROUNDOFF * amplification);
    assert!(rel(&q.c) <= 10.0 * Qd::UNIT_ROUNDOFF * amplification);
    // The f64 version is much worse (this is why the extended formats exist).
    assert!(rel(&[f]) > 1e-6, "f64 error {}", rel(&[f]));
}

#[test]
fn integer_conversions_are_exact() {
    for x in [i64::MAX, i64::MIN, (1 << 60) + 1, -12345] {
        let d: Dd = NumCast::from(x).unwrap();
        assert_eq!(d.to_i64(), Some(x));
        let q = Qd::from_i64(x).unwrap();
        assert_eq!(q.to_i64(), Some(x));
    }
    let d: Dd = NumCast::from(u64::MAX).unwrap();
    assert_eq!(d.to_u64(), Some(u64::MAX));
    assert_eq!(d.to_i64(), None);
    assert_eq!(Dd::from_f64(-2.75).to_i64(), Some(-2));
    assert_eq!(Dd::NAN.to_i64(), None);
    assert_eq!(Qd::INFINITY.to_u64(), None);
    let half: Dd = NumCast::from(0.5f64).unwrap();
    assert_eq!(half, Dd::from_f64(0.5));
}

#[test]
fn from_str_radix_accepts_decimal_only() {
    assert_eq!(Dd::from_str_radix("0.5", 10).unwrap(), Dd::from_f64(0.5));
    assert!(Dd::from_str_radix("ff", 16).is_err());
    assert!(Qd::from_str_radix("1", 2).is_err());
}

#[test]
fn float_trait_constants_and_classes() {
    assert!(<Dd as Float>::nan().is_nan());
    assert_eq!(<Qd as Float>::max_value(), Qd::MAX);
    assert!(Float::is_normal(Dd::ONE));
    assert!(!Float::is_normal(Dd::from_f64(1e-300)));
    assert_eq!(Float::classify(Dd::ZERO), std::num::FpCategory::Zero);
    // Two roundings (a division and a product): within DIV + MUL units of 2^-106.
    let deg = Float::to_degrees(Dd::PI) - 180.0;
    let bound = (mpblas::dd::bounds::DIV + mpblas::dd::bounds::MUL) * Dd::UNIT_ROUNDOFF;
    assert!(deg.abs().hi <= bound * 180.0, "{deg:?}");
}

/// `From` only where no bits are lost: every `f64`, `f32`, 32- and 64-bit integer converts
/// exactly into `Dd` and `Qd`, and `Dd` into `Qd`; the rounding conversions are named methods.
#[test]
fn from_is_lossless() {
    use mpblas::{Dd, Qd};
    let big = u64::MAX - 2; // 2^64 − 3
    let d = <Dd as From<u64>>::from(big);
    assert_eq!((d.hi, d.lo), (2f64.powi(64), -3.0), "all 64 bits kept");
    let q = <Qd as From<i64>>::from(i64::MIN + 1);
    assert_eq!((q.c[0], q.c[1]), (-(2f64.powi(63)), 1.0));
    let third = Dd::ONE / Dd::from_f64(3.0);
    assert_eq!(<Qd as From<Dd>>::from(third).to_dd(), third);
    assert_eq!(third.to_f64(), 1.0 / 3.0);
    // Sum and Product over references, like Qd.
    let v = [Dd::from_f64(0.1), Dd::from_f64(0.2), Dd::from_f64(0.3)];
    let s: Dd = v.iter().sum();
    assert_eq!(s, v.iter().copied().sum::<Dd>());
    let p: Dd = v.iter().product();
    assert_eq!(p, v[0] * v[1] * v[2]);
}
