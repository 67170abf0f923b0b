//! The scalar trait carries generic numerical code over every format: one generic dot product
//! for `f64`, `Dd`, `Qd` and RNS, checked against MPFR within the bound the trait's own
//! constants give; and a function generic over both `Scalar` and `num_traits::Float` compiles
//! (no method name is ambiguous) and runs.

mod oracle;

use mpblas::rns::{Basis, MpFloat};
use mpblas::{Dd, Qd, Scalar};
use mpblas_testdata::SplitMix64;
use rug::Float;

/// `Σ x_i·y_i` in the format of the data, accumulated in place.
fn dot<T: Scalar>(x: &[T], y: &[T]) -> Option<T> {
    let mut acc = T::zero_in(&x.first()?.ctx());
    for (a, b) in x.iter().zip(y) {
        acc.add_product(a, b);
    }
    Some(acc)
}

/// `γ_n = n·ε/(1 − n·ε)`.
fn gamma(n: usize, eps: f64) -> f64 {
    let t = n as f64 * eps;
    t / (1.0 - t)
}

/// The value of a format's number in MPFR, through its exact conversion to a `rug::Float`
/// (`to_f64` words summed exactly).
trait Exact: Scalar {
    fn exact(&self) -> Float;
}
impl Exact for f64 {
    fn exact(&self) -> Float {
        Float::with_val(64, *self)
    }
}
impl Exact for Dd {
    fn exact(&self) -> Float {
        Float::with_val(256, self.hi) + self.lo
    }
}
impl Exact for Qd {
    fn exact(&self) -> Float {
        self.c.iter().fold(Float::with_val(512, 0), |s, &w| s + w)
    }
}
impl Exact for MpFloat {
    fn exact(&self) -> Float {
        self.to_rug()
    }
}

/// The dot product of `n` random full-precision pairs with mixed signs and magnitudes spread
/// over 2^±40, against MPFR: within `γ_2n·Σ|x_i y_i|` in the format's operation bound (each
/// step is at most a multiplication and an addition).
fn check<T: Exact>(name: &str, make: impl Fn(f64) -> T, n: usize, seed: u64) {
    let mut g = SplitMix64::new(seed);
    let mut draw = || {
        let e = g.int(-40, 40) as i32;
        g.sign() * g.f64_exp(e)
    };
    let x: Vec<T> = (0..n).map(|_| make(draw())).collect();
    let y: Vec<T> = (0..n).map(|_| make(draw())).collect();
    let got = dot(&x, &y).expect("non-empty");
    let mut exact = Float::with_val(4096, 0);
    let mut abs = Float::with_val(4096, 0);
    for (a, b) in x.iter().zip(&y) {
        let p = Float::with_val(4096, a.exact() * b.exact());
        abs += p.clone().abs();
        exact += p;
    }
    let err = Float::with_val(4096, got.exact() - &exact).abs();
    let ctx = x[0].ctx();
    let bound = gamma(2 * n, T::op_error_bound_in(&ctx)) * abs.to_f64();
    assert!(
        err.to_f64() <= bound,
        "{name}: error {:e} above {bound:e}",
        err.to_f64()
    );
    eprintln!(
        "{name}: n = {n}, error {:.3e} <= bound {bound:.3e}",
        err.to_f64()
    );
}

#[test]
fn one_generic_dot_for_every_format() {
    for (n, seed) in [(1, 1), (17, 2), (1000, 3)] {
        check("f64", |v| v, n, seed);
        check("dd", Dd::from_f64, n, seed);
        check("qd", Qd::from_f64, n, seed);
        let b = Basis::new(150).unwrap();
        check("rns 150", |v| MpFloat::from_f64(&b, v), n, seed);
    }
    assert_eq!(dot::<Dd>(&[], &[]), None);
}

/// Sums of products of small integers are exact in every format: the generic code gives the
/// same value everywhere.
#[test]
fn exact_dots_agree_across_formats() {
    let ints: Vec<f64> = (1..=50)
        .map(|i| f64::from(i * if i % 3 == 0 { -7 } else { 5 }))
        .collect();
    let want: f64 = ints.iter().map(|v| v * v).sum();
    assert_eq!(dot(&ints, &ints), Some(want));
    let dd: Vec<Dd> = ints.iter().map(|&v| Dd::from_f64_in(&(), v)).collect();
    assert_eq!(dot(&dd, &dd).unwrap().nearest_f64(), want);
    let qd: Vec<Qd> = ints.iter().map(|&v| Qd::from_f64_in(&(), v)).collect();
    assert_eq!(dot(&qd, &qd).unwrap().nearest_f64(), want);
    let b = Basis::new(64).unwrap();
    let r: Vec<MpFloat> = ints.iter().map(|&v| MpFloat::from_f64_in(&b, v)).collect();
    assert_eq!(dot(&r, &r).unwrap().nearest_f64(), want);
}

/// Uses methods of both traits on one value: would be E0034 (ambiguous) if a name clashed.
fn both<T: Scalar<Ctx = ()> + num_traits::Float>(x: T) -> (T, T) {
    let ctx = ();
    let via_float = x.sqrt() * x.abs() + x.recip().mul_add(T::one(), T::zero());
    let via_scalar = x.sqrt_ref().mul_ref(&x.abs_ref()).add_ref(
        &x.recip_ref()
            .mul_add_ref(&T::one_in(&ctx), &T::zero_in(&ctx)),
    );
    assert!(!x.is_nan() && x.class() != std::num::FpCategory::Nan);
    assert!(x.nearest_f64() == x.to_f64().unwrap_or(f64::NAN));
    (via_float, via_scalar)
}

#[test]
fn generic_over_scalar_and_num_traits_float() {
    let (a, b) = both(2.5f64);
    assert_eq!(a, b);
    let (a, b) = both(Dd::from(2.5));
    assert_eq!(a, b);
    let (a, b) = both(Qd::from(2.5));
    assert_eq!(a, b);
}

/// The safe-scaling constants are what LAPACK's `dlamch` would give.
#[test]
fn scaling_constants() {
    assert_eq!(f64::epsilon_in(&()), f64::EPSILON / 2.0);
    assert_eq!(f64::min_positive_in(&()), f64::MIN_POSITIVE);
    assert_eq!(Dd::max_finite_in(&()), Dd::MAX);
    assert_eq!(Qd::min_positive_in(&()), Qd::MIN_POSITIVE);
    // 1 + 2ε is above 1 in every format; 1 + ε/2 rounds to 1 in the formats with a fixed
    // significand (f64, RNS; a double-double holds 1 + 2^-107 exactly in its low word).
    fn check<T: Scalar>(ctx: &T::Ctx) {
        let one = T::one_in(ctx);
        let eps = T::epsilon_in(ctx);
        let half = T::from_f64_in(ctx, 0.5);
        let two = T::from_usize_in(ctx, 2);
        if matches!(T::FORMAT, "f64" | "rns") {
            assert!(one.add_ref(&eps.mul_ref(&half)) == one, "{}", T::FORMAT);
        }
        assert!(one.add_ref(&eps.mul_ref(&two)) > one, "{}", T::FORMAT);
        assert!(T::max_finite_in(ctx).class() == std::num::FpCategory::Normal);
        assert!(T::max_finite_in(ctx).mul_ref(&two).class() == std::num::FpCategory::Infinite);
    }
    check::<f64>(&());
    check::<Dd>(&());
    check::<Qd>(&());
    check::<MpFloat>(&Basis::new(120).unwrap());
}
