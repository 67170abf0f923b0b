//! Quad-double elementary functions and constants against MPFR (2200 bits): every function's
//! relative error is asserted against its bound in `mpblas::qd::bounds` over 10,000 seeded
//! random cases (uniform and log-uniform magnitudes, random valid lower words), plus
//! adversarial families (arguments near multiples of π/2 and huge, logarithms near 1, exp near
//! overflow, negative bases with integral exponents) and every special value against the `f64`
//! method. Run with `--nocapture` to see the `report()` lines.

mod oracle;

use mpblas::Qd;
use mpblas::qd::bounds;
use oracle::qd::{CASES, Rng, U, check, check_normalised, ex};
use oracle::{Worst, rel_err_units, runner};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use rug::Float;
use rug::ops::Pow;
use std::cell::RefCell;

const P: u32 = oracle::REF_PREC;

// ---- random cases per function ---------------------------------------------------------------

/// A positive quad-double, log-uniform over 2^lo..2^hi.
fn pos(r: &mut Rng, lo: i32, hi: i32) -> Qd {
    let c0 = r.log_uniform(lo, hi).abs();
    r.qd_with(c0)
}

/// A quad-double uniform in (lo, hi).
fn unif(r: &mut Rng, lo: f64, hi: f64) -> Qd {
    let c0 = lo + (hi - lo) * r.unit();
    r.qd_with(c0)
}

/// Result in the normal range (the bounds' domain)?
fn normal(x: &Float) -> bool {
    x.is_zero() || (x.clone().abs() >= Float::with_val(P, 2).pow(-862) && x.is_finite())
}

macro_rules! unary {
    ($name:expr, $bound:expr, $gen:expr, $qd:expr, $mpfr:expr) => {
        check($name, $bound, |r| {
            // Redraw (a bounded number of times) until the result is in the normal range, so
            // that every one of the CASES cases is checked.
            for _ in 0..100 {
                let a: Qd = $gen(r);
                let want: Float = $mpfr(ex(&a));
                if normal(&want) {
                    return Some((vec![a], $qd(a), want));
                }
            }
            None
        })
    };
}

#[test]
fn exp_family() {
    unary!(
        "exp",
        bounds::EXP,
        |r: &mut Rng| unif(r, -740.0, 709.7),
        Qd::exp,
        |x: Float| x.exp()
    );
    unary!(
        "exp (small)",
        bounds::EXP,
        |r: &mut Rng| {
            let c = r.log_uniform(-200, 0);
            r.qd_with(c)
        },
        Qd::exp,
        |x: Float| x.exp()
    );
    unary!(
        "exp (near overflow)",
        bounds::EXP,
        |r: &mut Rng| unif(r, 709.0, 709.78),
        Qd::exp,
        |x: Float| x.exp()
    );
    unary!(
        "exp2",
        bounds::EXP2,
        |r: &mut Rng| unif(r, -1020.0, 1023.9),
        Qd::exp2,
        |x: Float| x.exp2()
    );
    unary!(
        "exp_m1",
        bounds::EXP_M1,
        |r: &mut Rng| {
            let c = r.log_uniform(-300, 9);
            r.qd_with(c)
        },
        Qd::exp_m1,
        |x: Float| x.exp_m1()
    );
    assert!(Qd::from(709.79).exp().is_infinite());
    assert_eq!(Qd::from(-746.0).exp().c, [0.0; 4]);
    assert_eq!(Qd::from(10.0).exp2(), Qd::from(1024.0));
}

#[test]
fn log_family() {
    unary!(
        "ln",
        bounds::LN,
        |r: &mut Rng| pos(r, -860, 1023),
        Qd::ln,
        |x: Float| x.ln()
    );
    unary!(
        "ln (near 1)",
        bounds::LN,
        |r: &mut Rng| {
            let c = r.log_uniform(-200, -1);
            let t = r.qd_with(c);
            t + 1.0
        },
        Qd::ln,
        |x: Float| x.ln()
    );
    unary!(
        "log2",
        bounds::LOG2,
        |r: &mut Rng| pos(r, -860, 1023),
        Qd::log2,
        |x: Float| x.log2()
    );
    unary!(
        "log2 (near 1)",
        bounds::LOG2,
        |r: &mut Rng| {
            let c = r.log_uniform(-200, -1);
            let t = r.qd_with(c);
            t + 1.0
        },
        Qd::log2,
        |x: Float| x.log2()
    );
    unary!(
        "log10",
        bounds::LOG10,
        |r: &mut Rng| pos(r, -860, 1023),
        Qd::log10,
        |x: Float| x.log10()
    );
    unary!(
        "ln_1p",
        bounds::LN_1P,
        |r: &mut Rng| {
            let c = r.log_uniform(-300, 30);
            let t = r.qd_with(c);
            if t.c[0] < -1.0 { -t.recip() } else { t }
        },
        Qd::ln_1p,
        |x: Float| x.ln_1p()
    );
    for k in [-1074, -1000, -1, 1, 52, 1023] {
        assert_eq!(
            Qd::from(2f64.powi(k)).log2(),
            Qd::from(k as f64),
            "log2(2^{k})"
        );
    }
}

#[test]
fn trig() {
    unary!(
        "sin",
        bounds::SIN,
        |r: &mut Rng| unif(r, -10.0, 10.0),
        Qd::sin,
        |x: Float| x.sin()
    );
    unary!(
        "cos",
        bounds::COS,
        |r: &mut Rng| unif(r, -10.0, 10.0),
        Qd::cos,
        |x: Float| x.cos()
    );
    unary!(
        "tan",
        bounds::TAN,
        |r: &mut Rng| unif(r, -10.0, 10.0),
        Qd::tan,
        |x: Float| x.tan()
    );
    unary!(
        "sin (log-uniform, huge)",
        bounds::SIN,
        |r: &mut Rng| {
            let c = r.log_uniform(-300, 1023);
            r.qd_with(c)
        },
        Qd::sin,
        |x: Float| x.sin()
    );
    unary!(
        "cos (log-uniform, huge)",
        bounds::COS,
        |r: &mut Rng| {
            let c = r.log_uniform(-300, 1023);
            r.qd_with(c)
        },
        Qd::cos,
        |x: Float| x.cos()
    );
    unary!(
        "tan (log-uniform, huge)",
        bounds::TAN,
        |r: &mut Rng| {
            let c = r.log_uniform(-300, 1023);
            r.qd_with(c)
        },
        Qd::tan,
        |x: Float| x.tan()
    );
}

/// `k·π/2 + δ` for random k up to 2^40 and tiny δ: the reduction must resolve the cancellation.
fn near_pio2(r: &mut Rng) -> Qd {
    let k = (r.next() >> (24 + r.below(40))) as f64;
    let d = r.log_uniform(-150, -20);
    let x = Qd::FRAC_PI_2 * k + d;
    if x.c[0] == 0.0 { Qd::from(d) } else { x }
}

#[test]
fn trig_near_multiples_of_pi_2() {
    unary!(
        "sin (near k·π/2)",
        bounds::SIN,
        near_pio2,
        Qd::sin,
        |x: Float| x.sin()
    );
    unary!(
        "cos (near k·π/2)",
        bounds::COS,
        near_pio2,
        Qd::cos,
        |x: Float| x.cos()
    );
    unary!(
        "tan (near k·π/2)",
        bounds::TAN,
        near_pio2,
        Qd::tan,
        |x: Float| x.tan()
    );
    // The multiples of π/2 as quad-doubles themselves (remainder ~2^-215 relative).
    for k in [1.0, 2.0, 3.0, 4.0, 1e6, 1e15] {
        for x in [Qd::FRAC_PI_2 * k, Qd::PI * k] {
            for (name, got, want, bound) in [
                ("sin", x.sin(), ex(&x).sin(), bounds::SIN),
                ("cos", x.cos(), ex(&x).cos(), bounds::COS),
            ] {
                let e = rel_err_units(&got.c, &want, U);
                assert!(e <= bound, "{name}({k}·π/2…) error {e}");
            }
        }
    }
}

#[test]
fn inverse_trig() {
    unary!(
        "atan",
        bounds::ATAN2,
        |r: &mut Rng| {
            let c = r.log_uniform(-300, 300);
            r.qd_with(c)
        },
        Qd::atan,
        |x: Float| x.atan()
    );
    unary!(
        "asin",
        bounds::ASIN,
        |r: &mut Rng| unif(r, -1.0, 1.0),
        Qd::asin,
        |x: Float| x.asin()
    );
    unary!(
        "acos",
        bounds::ACOS,
        |r: &mut Rng| unif(r, -1.0, 1.0),
        Qd::acos,
        |x: Float| x.acos()
    );
    unary!(
        "asin (near ±1)",
        bounds::ASIN,
        |r: &mut Rng| {
            let s = r.sign();
            let c = r.log_uniform(-200, -2).abs();
            let t = r.qd_with(c);
            (1.0 - t) * s
        },
        Qd::asin,
        |x: Float| x.asin()
    );
    unary!(
        "acos (near ±1)",
        bounds::ACOS,
        |r: &mut Rng| {
            let s = r.sign();
            let c = r.log_uniform(-200, -2).abs();
            let t = r.qd_with(c);
            (1.0 - t) * s
        },
        Qd::acos,
        |x: Float| x.acos()
    );
    check("atan2", bounds::ATAN2, |r| {
        let (y, x) = (r.qd(), r.qd());
        let want = Float::with_val(P, ex(&y).atan2(&ex(&x)));
        Some((vec![y, x], y.atan2(x), want))
    });
}

#[test]
fn hyperbolic() {
    let g = |r: &mut Rng| {
        let c = r.log_uniform(-300, 9);
        r.qd_with(c)
    };
    unary!("sinh", bounds::SINH, g, Qd::sinh, |x: Float| x.sinh());
    unary!("cosh", bounds::COSH, g, Qd::cosh, |x: Float| x.cosh());
    unary!("tanh", bounds::TANH, g, Qd::tanh, |x: Float| x.tanh());
    unary!(
        "sinh (near overflow)",
        bounds::SINH,
        |r: &mut Rng| unif(r, 690.0, 710.4),
        Qd::sinh,
        |x: Float| x.sinh()
    );
    unary!(
        "cosh (near overflow)",
        bounds::COSH,
        |r: &mut Rng| unif(r, -710.4, -690.0),
        Qd::cosh,
        |x: Float| x.cosh()
    );
    unary!(
        "asinh",
        bounds::ASINH,
        |r: &mut Rng| {
            let c = r.log_uniform(-300, 1023);
            r.qd_with(c)
        },
        Qd::asinh,
        |x: Float| x.asinh()
    );
    unary!(
        "acosh",
        bounds::ACOSH,
        |r: &mut Rng| {
            let c = r.log_uniform(-200, 1022).abs();
            let t = r.qd_with(c);
            t + 1.0
        },
        Qd::acosh,
        |x: Float| x.acosh()
    );
    unary!(
        "atanh",
        bounds::ATANH,
        |r: &mut Rng| {
            let c = r.log_uniform(-300, 0);
            let t = r.qd_with(c);
            if t.abs() >= Qd::ONE { t * 0.5 } else { t }
        },
        Qd::atanh,
        |x: Float| x.atanh()
    );
    unary!(
        "atanh (near ±1)",
        bounds::ATANH,
        |r: &mut Rng| {
            let s = r.sign();
            let c = r.log_uniform(-200, -2).abs();
            let t = r.qd_with(c);
            (1.0 - t) * s
        },
        Qd::atanh,
        |x: Float| x.atanh()
    );
}

#[test]
fn roots_and_powers() {
    unary!(
        "cbrt",
        bounds::CBRT,
        |r: &mut Rng| {
            let c = r.log_uniform(-860, 1023);
            r.qd_with(c)
        },
        Qd::cbrt,
        |x: Float| x.cbrt()
    );
    check("hypot", bounds::HYPOT, |r| {
        let (a, b) = (r.qd(), r.qd());
        Some((
            vec![a, b],
            a.hypot(b),
            Float::with_val(P, ex(&a).hypot(&ex(&b))),
        ))
    });
    check("hypot (near 2^±1000)", bounds::HYPOT, |r| {
        let e = if r.next() & 1 == 0 { 1000 } else { -850 };
        let a = r.qd_at(e);
        let eb = e - r.below(30) as i32;
        let b = r.qd_at(eb);
        Some((
            vec![a, b],
            a.hypot(b),
            Float::with_val(P, ex(&a).hypot(&ex(&b))),
        ))
    });
    // powi and pow: the bound depends on the argument, so the ratio err/bound is tracked.
    check("powi (err / bounds::powi(n))", 1.0, |r| {
        let a = unif(r, 0.5, 2.0) * r.sign();
        let n = r.below(129) as i32 - 64;
        let want = Float::with_val(P, ex(&a).pow(n));
        let got = a.powi(n);
        let e = rel_err_units(&got.c, &want, U) / bounds::powi(n).max(1.0);
        // Report the ratio as the "error" by scaling the result's reference.
        Some((vec![a, Qd::from(n)], got, scale_ref(&got, &want, e)))
    });
    check("pow (err / bounds::pow(y·ln x))", 1.0, |r| {
        let x = pos(r, -20, 20);
        let y = unif(r, -30.0, 30.0);
        let want = Float::with_val(P, ex(&x).pow(&ex(&y)));
        let t = y.c[0] * x.c[0].ln();
        let got = x.pow(y);
        let e = rel_err_units(&got.c, &want, U) / bounds::pow(t);
        Some((vec![x, y], got, scale_ref(&got, &want, e)))
    });
    check("pow (negative base, integral y)", 1.0, |r| {
        let x = -pos(r, -10, 10);
        let y = Qd::from(r.below(81) as f64 - 40.0);
        let want = Float::with_val(P, ex(&x).pow(&ex(&y)));
        let t = y.c[0] * x.c[0].abs().ln();
        let got = x.pow(y);
        let e = rel_err_units(&got.c, &want, U) / bounds::pow(t);
        Some((vec![x, y], got, scale_ref(&got, &want, e)))
    });
    assert_eq!(Qd::from(3.0).powi(5), Qd::from(243.0));
    assert_eq!(Qd::from(-2.0).powi(-3), Qd::from(-0.125));
}

/// A reference value at which `rel_err_units(got, ref)` equals `e` units: lets the ratio of an
/// argument-dependent bound go through the common `check` harness (bound 1.0).
fn scale_ref(got: &Qd, want: &Float, e: f64) -> Float {
    let _ = want;
    // ref = got / (1 + e·u) ⇒ |got − ref|/|ref| = e·u.
    Float::with_val(
        P,
        ex(got) / (1.0 + Float::with_val(P, e) * Float::with_val(P, U)),
    )
}

#[test]
fn rounding_functions_are_exact() {
    let worst = RefCell::new(Worst::new("floor/ceil/round/trunc/fract", 0.0));
    runner(CASES)
        .run(&any::<u64>(), |seed| {
            let mut r = Rng(seed);
            // Magnitudes around the integer/fraction boundary of the words.
            let c0 = r.log_uniform(-5, 230);
            let x = r.qd_with(c0);
            let e = ex(&x);
            let pairs = [
                ("floor", x.floor(), e.clone().floor()),
                ("ceil", x.ceil(), e.clone().ceil()),
                ("round", x.round(), e.clone().round()),
                (
                    "round_ties_even",
                    x.round_ties_even(),
                    e.clone().round_even(),
                ),
                ("trunc", x.trunc(), e.clone().trunc()),
                ("fract", x.fract(), e.clone().fract()),
            ];
            for (name, got, want) in pairs {
                check_normalised(&got)?;
                let err = oracle::abs_err(&got.c, &want);
                worst
                    .borrow_mut()
                    .record(err, || format!("{name}({:?}) = {:?}", x.c, got.c))
                    .map_err(TestCaseError::fail)?;
            }
            Ok(())
        })
        .unwrap();
    worst.borrow().report();
    // Halfway cases.
    for (x, r, re) in [
        (2.5, 3.0, 2.0),
        (-2.5, -3.0, -2.0),
        (3.5, 4.0, 4.0),
        (0.5, 1.0, 0.0),
    ] {
        assert_eq!(Qd::from(x).round(), Qd::from(r), "round({x})");
        assert_eq!(
            Qd::from(x).round_ties_even(),
            Qd::from(re),
            "round_ties_even({x})"
        );
    }
    let big_half = Qd::new(2f64.powi(60), 1.5, 0.0, 0.0);
    assert_eq!(big_half.round_ties_even().c, [2f64.powi(60), 2.0, 0.0, 0.0]);
    assert_eq!(Qd::from(-0.5).ceil().c[0].to_bits(), (-0.0f64).to_bits());
    assert_eq!(Qd::new(3.0, -1e-30, 0.0, 0.0).floor(), Qd::from(2.0));
}

#[test]
fn remainder() {
    check("rem (abs err, units u·|a|)", bounds::REM, |r| {
        let a = r.qd();
        let mut b = r.qd();
        while (a.c[0] / b.c[0]).abs() > 1e60 {
            b = r.qd();
        }
        let want = Float::with_val(P, ex(&a) % ex(&b));
        let got = a % b;
        // Absolute error relative to |a|: compare against a reference scaled to |a|.
        let err = oracle::abs_err(&got.c, &want) / a.c[0].abs() / U;
        Some((vec![a, b], got, scale_ref(&got, &want, err)))
    });
    assert_eq!(Qd::from(7.5) % Qd::from(2.0), Qd::from(1.5));
    assert_eq!(Qd::from(-7.5) % 2.0, Qd::from(-1.5));
    let mut x = Qd::from(10.0);
    x %= 3.0;
    assert_eq!(x, Qd::ONE);
}

// ---- special values --------------------------------------------------------------------------

const SPECIALS: [f64; 12] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -2.5,
    3.0,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    1e300,
    -1e-300,
];

/// `got` is the special value `want` (bitwise, lower words zero) or, for a finite non-zero
/// `want`, agrees with it to within a few f64 ulps (the quad-double is the accurate one).
fn same(got: Qd, want: f64) -> bool {
    if want == 0.0 || !want.is_finite() {
        let first = got.c[0].to_bits() == want.to_bits() || (got.is_nan() && want.is_nan());
        first && got.c[1..] == [0.0; 3]
    } else {
        got.is_finite() && ((got.c[0] - want) / want).abs() <= 4.0 * f64::EPSILON
    }
}

#[test]
fn special_values_follow_f64() {
    type F = (&'static str, fn(Qd) -> Qd, fn(f64) -> f64);
    let unary: [F; 32] = [
        ("floor", Qd::floor, f64::floor),
        ("ceil", Qd::ceil, f64::ceil),
        ("round", Qd::round, f64::round),
        ("round_ties_even", Qd::round_ties_even, f64::round_ties_even),
        ("trunc", Qd::trunc, f64::trunc),
        ("fract", Qd::fract, f64::fract),
        ("sqrt", Qd::sqrt, f64::sqrt),
        ("cbrt", Qd::cbrt, f64::cbrt),
        ("exp", Qd::exp, f64::exp),
        ("exp2", Qd::exp2, f64::exp2),
        ("exp_m1", Qd::exp_m1, f64::exp_m1),
        ("ln", Qd::ln, f64::ln),
        ("log2", Qd::log2, f64::log2),
        ("log10", Qd::log10, f64::log10),
        ("ln_1p", Qd::ln_1p, f64::ln_1p),
        ("sin", Qd::sin, f64::sin),
        ("cos", Qd::cos, f64::cos),
        ("tan", Qd::tan, f64::tan),
        ("asin", Qd::asin, f64::asin),
        ("acos", Qd::acos, f64::acos),
        ("atan", Qd::atan, f64::atan),
        ("sinh", Qd::sinh, f64::sinh),
        ("cosh", Qd::cosh, f64::cosh),
        ("tanh", Qd::tanh, f64::tanh),
        ("asinh", Qd::asinh, f64::asinh),
        ("acosh", Qd::acosh, f64::acosh),
        ("atanh", Qd::atanh, f64::atanh),
        ("abs", Qd::abs, f64::abs),
        ("signum", Qd::signum, f64::signum),
        ("recip", Qd::recip, f64::recip),
        ("sqr", Qd::sqr, |x| x * x),
        ("powi(-3)", |x| x.powi(-3), |x| x.powi(-3)),
    ];
    for &a in &SPECIALS {
        for (name, q, f) in unary {
            let got = q(Qd::from(a));
            let want = f(a);
            assert!(
                same(got, want),
                "{name}({a}): got {:?}, f64 gives {want}",
                got.c
            );
        }
        let (s, c) = Qd::from(a).sin_cos();
        assert!(same(s, a.sin()) && same(c, a.cos()), "sin_cos({a})");
        for &b in &SPECIALS {
            let (x, y) = (Qd::from(a), Qd::from(b));
            for (name, got, want) in [
                ("pow", x.pow(y), a.powf(b)),
                ("atan2", x.atan2(y), a.atan2(b)),
                ("hypot", x.hypot(y), a.hypot(b)),
            ] {
                assert!(
                    same(got, want),
                    "{name}({a}, {b}): got {:?}, f64 gives {want}",
                    got.c
                );
            }
        }
    }
    // `%`: special results exactly; finite ones within the absolute bound (`f64`'s `%` is
    // exact, the quad-double one exact only to REM·u·|a|, e.g. for 1 % 1e-300).
    for &a in &SPECIALS {
        for &b in &SPECIALS {
            let (got, want) = (Qd::from(a) % Qd::from(b), a % b);
            if want == 0.0 || !want.is_finite() {
                assert!(
                    same(got, want) || (want == 0.0 && got.c[0].abs() <= bounds::REM * U * a.abs()),
                    "rem({a}, {b}): got {:?}, f64 gives {want}",
                    got.c
                );
            } else {
                let err = oracle::abs_err(&got.c, &Float::with_val(P, want));
                assert!(
                    err <= bounds::REM * U * a.abs(),
                    "rem({a}, {b}): got {:?}, f64 gives {want}",
                    got.c
                );
            }
        }
    }
    // The quad-double constants come back from the exact atan2 cases.
    assert_eq!(Qd::ONE.atan2(Qd::ZERO), Qd::FRAC_PI_2);
    assert_eq!(Qd::ZERO.atan2(-Qd::ONE), Qd::PI);
    assert_eq!(Qd::INFINITY.atan2(Qd::INFINITY), Qd::FRAC_PI_4);
    assert_eq!(Qd::from(-1.0).pow(Qd::INFINITY), Qd::ONE);
    assert!(Qd::from(-8.0).pow(Qd::from(1.0 / 3.0)).is_nan());
    assert_eq!(Qd::NAN.powi(0), Qd::ONE);
}

// ---- constants -------------------------------------------------------------------------------

/// The greedy correctly-rounded words of `v`: `c[i] = RN(v − c[0] − … − c[i−1])`.
fn greedy(v: &Float) -> [f64; 4] {
    let mut rest = v.clone();
    let mut c = [0.0; 4];
    for w in c.iter_mut() {
        *w = rest.to_f64(); // round to nearest
        rest -= *w;
    }
    c
}

#[test]
fn constants_are_greedy_roundings() {
    let f = |x: f64| Float::with_val(P, x);
    let pi = Float::with_val(P, rug::float::Constant::Pi);
    let ln2 = Float::with_val(P, rug::float::Constant::Log2);
    let ln10 = f(10.0).ln();
    let e = f(1.0).exp();
    let sqrt2 = f(2.0).sqrt();
    let table: [(&str, Qd, Float); 11] = [
        ("PI", Qd::PI, pi.clone()),
        ("TAU", Qd::TAU, Float::with_val(P, &pi * 2)),
        ("FRAC_PI_2", Qd::FRAC_PI_2, Float::with_val(P, &pi / 2)),
        ("FRAC_PI_4", Qd::FRAC_PI_4, Float::with_val(P, &pi / 4)),
        ("E", Qd::E, e),
        ("LN_2", Qd::LN_2, ln2.clone()),
        ("LN_10", Qd::LN_10, ln10.clone()),
        ("LOG2_E", Qd::LOG2_E, Float::with_val(P, ln2.recip_ref())),
        ("LOG10_E", Qd::LOG10_E, Float::with_val(P, ln10.recip_ref())),
        ("SQRT_2", Qd::SQRT_2, sqrt2.clone()),
        (
            "FRAC_1_SQRT_2",
            Qd::FRAC_1_SQRT_2,
            Float::with_val(P, sqrt2.recip_ref()),
        ),
    ];
    for (name, q, v) in table {
        let g = greedy(&v);
        for (i, (w, gw)) in q.c.iter().zip(g).enumerate() {
            assert_eq!(
                w.to_bits(),
                gw.to_bits(),
                "{name} word {i}: {w:e} vs {gw:e}"
            );
        }
    }
    // exp's six-word ln 2 and atan2's 3π/4 are checked through their results: exp(k·ln2)
    // near k = ±1000 and atan2(1, −1).
    let x = Qd::LN_2 * 1000.0;
    let got = x.exp();
    let want = ex(&x).exp();
    assert!(rel_err_units(&got.c, &want, U) <= bounds::EXP);
    let got = Qd::ONE.atan2(-Qd::ONE);
    let want = Float::with_val(P, &pi * 3) / 4;
    assert!(
        rel_err_units(&got.c, &want, U) <= 1.0,
        "atan2(1, -1) = 3π/4"
    );
}
