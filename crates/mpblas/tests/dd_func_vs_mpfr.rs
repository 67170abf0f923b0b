//! Double-double elementary functions against MPFR (2200 bits): every result within the bound
//! constant of `mpblas::dd::bounds`, on seeded random arguments (uniform and log-uniform
//! magnitudes, random low words) and adversarial ones; special values against the `f64`
//! methods; constants bit for bit. Run with `--nocapture` to see the `report()` lines.

mod oracle;

use mpblas::Dd;
use mpblas::dd::bounds;
use oracle::{REF_PREC, Worst, exact, rel_err_units, runner};
use proptest::prelude::*;
use proptest::strategy::Union;
use rug::float::Constant;
use rug::ops::Pow;
use rug::{Assign, Float};

const U: f64 = Dd::UNIT_ROUNDOFF;
const CASES: u32 = 10_000;
/// Below this the low word is subnormal and the relative bounds do not apply.
const NORMAL_MIN: f64 = Dd::MIN_POSITIVE.hi;

fn ulp(x: f64) -> f64 {
    let x = x.abs();
    f64::from_bits(x.to_bits() + 1) - x
}

/// `hi` plus a random low word of up to half an ulp, normalised.
fn with_lo(hi: f64, m: u64) -> Dd {
    let frac = f64::from_bits((1023u64 << 52) | (m >> 12)) - 1.5; // [-0.5, 0.5)
    Dd::new(hi, frac * ulp(hi))
}

/// Log-uniform magnitude in `[2^emin, 2^emax)`, random sign if `signed`, random low word.
fn log_dd(emin: i32, emax: i32, signed: bool) -> BoxedStrategy<Dd> {
    (any::<u64>(), any::<u64>(), emin..emax, any::<bool>())
        .prop_map(move |(m1, m2, e, neg)| {
            let hi = f64::from_bits((1023u64 << 52) | (m1 >> 12)) * 2f64.powi(e);
            let d = with_lo(hi, m2);
            if signed && neg { -d } else { d }
        })
        .boxed()
}

/// Uniform in `[a, b)` with a random low word.
fn uni_dd(a: f64, b: f64) -> BoxedStrategy<Dd> {
    (a..b, any::<u64>())
        .prop_map(|(x, m)| with_lo(x, m))
        .boxed()
}

fn mix(parts: Vec<BoxedStrategy<Dd>>) -> BoxedStrategy<Dd> {
    Union::new(parts).boxed()
}

/// A named unary operation.
type Named = (&'static str, fn(Dd) -> Dd);
/// A named binary operation and its `f64` twin.
type Pair2 = (&'static str, fn(Dd, Dd) -> Dd, fn(f64, f64) -> f64);

fn w(d: Dd) -> [f64; 2] {
    [d.hi, d.lo]
}

fn f(d: Dd) -> Float {
    exact(&w(d))
}

/// Relative error of `z` against `want`, or `None` outside the documented domain
/// (reference result below the normal range, or beyond `f64::MAX`).
fn err(z: Dd, want: &Float) -> Option<f64> {
    let a = want.to_f64().abs();
    if !want.is_finite() || !(NORMAL_MIN..=f64::MAX).contains(&a) {
        return None;
    }
    Some(rel_err_units(&w(z), want, U))
}

fn check_unary(
    name: &str,
    bound: f64,
    strat: BoxedStrategy<Dd>,
    op: fn(Dd) -> Dd,
    reference: fn(Float) -> Float,
) -> Worst {
    let worst = Worst::new(name, bound);
    runner(CASES)
        .run(&strat, |x| {
            let z = op(x);
            let want = reference(f(x));
            if let Some(e) = err(z, &want) {
                worst
                    .record(e, || format!("x={x:?} z={z:?}"))
                    .map_err(TestCaseError::fail)?;
                prop_assert!(z.hi + z.lo == z.hi, "not normalised: {z:?} at {x:?}");
            }
            Ok(())
        })
        .unwrap();
    worst.report();
    worst
}

/// Checks listed arguments too, recording into an existing tracker.
fn check_points(worst: &Worst, xs: &[Dd], op: fn(Dd) -> Dd, reference: fn(Float) -> Float) {
    for &x in xs {
        let z = op(x);
        let want = reference(f(x));
        if let Some(e) = err(z, &want) {
            worst.record(e, || format!("x={x:?} z={z:?}")).unwrap();
        }
    }
}

fn prec(x: Float) -> Float {
    Float::with_val(REF_PREC, x)
}

/// `k·π/2` rounded to a double-double (the hardest arguments for trigonometric reduction).
fn near_pio2(k: &rug::Integer) -> Dd {
    let v = Float::with_val(4000, Constant::Pi) * k.clone() / 2u32;
    let hi = v.to_f64();
    let lo = Float::with_val(4000, &v - hi).to_f64();
    Dd::new(hi, lo)
}

// ---- constants ------------------------------------------------------------------------------

#[test]
fn constants_are_correctly_rounded() {
    let p = 4000;
    let c = |v: Float| -> [f64; 2] {
        let hi = v.to_f64();
        [hi, Float::with_val(p, &v - hi).to_f64()]
    };
    let pi = Float::with_val(p, Constant::Pi);
    let ln2 = Float::with_val(p, Constant::Log2);
    let ln10 = Float::with_val(p, 10u32).ln();
    let list: Vec<(&str, Dd, Float)> = vec![
        ("PI", Dd::PI, pi.clone()),
        ("TAU", Dd::TAU, Float::with_val(p, &pi * 2u32)),
        ("FRAC_PI_2", Dd::FRAC_PI_2, Float::with_val(p, &pi / 2u32)),
        ("FRAC_PI_4", Dd::FRAC_PI_4, Float::with_val(p, &pi / 4u32)),
        ("E", Dd::E, Float::with_val(p, 1u32).exp()),
        ("LN_2", Dd::LN_2, ln2.clone()),
        ("LN_10", Dd::LN_10, ln10.clone()),
        ("LOG2_E", Dd::LOG2_E, Float::with_val(p, ln2.recip_ref())),
        ("LOG10_E", Dd::LOG10_E, Float::with_val(p, ln10.recip_ref())),
        ("LOG2_10", Dd::LOG2_10, Float::with_val(p, &ln10 / &ln2)),
        ("LOG10_2", Dd::LOG10_2, Float::with_val(p, &ln2 / &ln10)),
        ("SQRT_2", Dd::SQRT_2, Float::with_val(p, 2u32).sqrt()),
        (
            "FRAC_1_SQRT_2",
            Dd::FRAC_1_SQRT_2,
            Float::with_val(p, 2u32).sqrt().recip(),
        ),
    ];
    for (name, d, v) in list {
        let want = c(v);
        assert_eq!(
            [d.hi.to_bits(), d.lo.to_bits()],
            [want[0].to_bits(), want[1].to_bits()],
            "{name}: {d:?} vs {want:?}"
        );
    }
}

// ---- rounding and remainder -----------------------------------------------------------------

fn exact_round(x: Dd, mode: &str) -> Dd {
    let v = f(x);
    let r = match mode {
        "floor" => v.floor(),
        "ceil" => v.ceil(),
        "trunc" => v.trunc(),
        "round" => v.round(),
        _ => v.round_even(),
    };
    let hi = r.to_f64();
    let lo = Float::with_val(REF_PREC, &r - hi).to_f64();
    Dd::new(hi, lo)
}

#[test]
fn rounding_is_exact() {
    let ops: [Named; 5] = [
        ("floor", Dd::floor),
        ("ceil", Dd::ceil),
        ("trunc", Dd::trunc),
        ("round", Dd::round),
        ("round_ties_even", Dd::round_ties_even),
    ];
    let strat = mix(vec![
        log_dd(-5, 120, true),
        // hi an integer, the fraction in lo (including exact halves).
        (
            1u64..1 << 60,
            0i32..60,
            prop::sample::select(vec![0.5, -0.5, 0.25, 0.75, -0.0]),
        )
            .prop_map(|(n, e, fr)| {
                let hi = (n as f64) * 2f64.powi(e);
                Dd::new(hi, fr)
            })
            .boxed(),
    ]);
    runner(CASES)
        .run(&strat, |x| {
            for (name, op) in ops {
                let got = op(x);
                let want = exact_round(x, name);
                prop_assert!(
                    exact(&w(got)) == exact(&w(want)),
                    "{name}({x:?}) = {got:?}, want {want:?}"
                );
            }
            let fr = x.fract();
            let want = Float::with_val(REF_PREC, f(x) - f(x).trunc());
            prop_assert!(exact(&w(fr)) == want, "fract({x:?}) = {fr:?}");
            Ok(())
        })
        .unwrap();
    // Named cases: hi an integer and lo carrying the fraction; expected values as
    // (hi, lo) pairs for floor, ceil, trunc, round, round_ties_even.
    let t = 2f64.powi(60);
    let m = 2f64.powi(-60);
    let cases = [
        (
            Dd::new(t, -0.5),
            [(t, -1.0), (t, 0.0), (t, -1.0), (t, 0.0), (t, 0.0)],
        ),
        (
            Dd::new(t, 0.5),
            [(t, 0.0), (t, 1.0), (t, 0.0), (t, 1.0), (t, 0.0)],
        ),
        (
            Dd::new(t, 1.5),
            [(t, 1.0), (t, 2.0), (t, 1.0), (t, 2.0), (t, 2.0)],
        ),
        (
            Dd::new(-t, 0.5),
            [(-t, 0.0), (-t, 1.0), (-t, 1.0), (-t, 0.0), (-t, 0.0)],
        ),
        (
            Dd::new(3.5, -m),
            [(3.0, 0.0), (4.0, 0.0), (3.0, 0.0), (3.0, 0.0), (3.0, 0.0)],
        ),
        (
            Dd::new(2.5, 1e-30),
            [(2.0, 0.0), (3.0, 0.0), (2.0, 0.0), (3.0, 0.0), (3.0, 0.0)],
        ),
        (
            Dd::new(2.5, -1e-30),
            [(2.0, 0.0), (3.0, 0.0), (2.0, 0.0), (2.0, 0.0), (2.0, 0.0)],
        ),
        (
            Dd::new(-2.5, 0.0),
            [
                (-3.0, 0.0),
                (-2.0, 0.0),
                (-2.0, 0.0),
                (-3.0, 0.0),
                (-2.0, 0.0),
            ],
        ),
    ];
    for (x, want) in cases {
        for (k, (name, op)) in ops.iter().enumerate() {
            let got = op(x);
            assert!(
                exact(&w(got)) == exact(&[want[k].0, want[k].1]),
                "{name}({x:?}) = {got:?}, want {:?}",
                want[k]
            );
            assert!(
                exact(&w(got)) == exact(&w(exact_round(x, name))),
                "{name}({x:?})"
            );
        }
    }
}

#[test]
fn remainder_exact_or_within_bound() {
    let worst = Worst::new("dd % (fmod)", bounds::REM);
    let exact_cases = std::cell::Cell::new(0u64);
    let strat = (log_dd(-40, 600, true), log_dd(-40, 40, true));
    runner(CASES)
        .run(&strat, |(x, y)| {
            let z = x % y;
            let want = Float::with_val(REF_PREC, f(x) % f(y));
            if want.is_zero() {
                prop_assert!(z.hi == 0.0, "{x:?} % {y:?} = {z:?}, want 0");
                return Ok(());
            }
            let e = rel_err_units(&w(z), &want, U);
            // Representable remainders must come back exactly.
            let hi = want.to_f64();
            let rest = Float::with_val(REF_PREC, &want - hi);
            let lo = rest.to_f64();
            if Float::with_val(REF_PREC, &rest - lo).is_zero() {
                exact_cases.set(exact_cases.get() + 1);
                prop_assert!(e == 0.0, "{x:?} % {y:?} = {z:?} should be exact");
            }
            worst
                .record(e, || format!("x={x:?} y={y:?} z={z:?}"))
                .map_err(TestCaseError::fail)?;
            Ok(())
        })
        .unwrap();
    println!(
        "dd %: {} of {CASES} remainders representable, all returned exactly",
        exact_cases.get()
    );
    assert!(exact_cases.get() > 0);
    // f64 divisors and quotients of any size: the remainder always fits, so exact.
    for (x, y) in [
        (Dd::new(1e300, 1e283), Dd::from(0.1)),
        (Dd::new(5.5, 0.0), Dd::from(-2.0)),
        (Dd::new(-5.5, 1e-20), Dd::from(2.0)),
        (Dd::MAX, Dd::from(3.0)),
    ] {
        let z = x % y;
        let want = Float::with_val(REF_PREC, f(x) % f(y));
        assert!(exact(&w(z)) == want, "{x:?} % {y:?} = {z:?}");
    }
    // Remainders wider than 106 bits (a gap between the dividend's words): rounded once.
    for (x, y) in [
        (Dd::new(1.0, 2f64.powi(-200)), Dd::from(0.1)),
        (Dd::new(1e10, 1e-80), Dd::new(0.3, 1e-18)),
        (
            Dd::new(-7.0, -2f64.powi(-300)),
            Dd::from(std::f64::consts::PI),
        ),
    ] {
        let z = x % y;
        let want = Float::with_val(REF_PREC, f(x) % f(y));
        let e = rel_err_units(&w(z), &want, U);
        worst
            .record(e, || format!("x={x:?} y={y:?} z={z:?}"))
            .unwrap();
        assert_eq!(z.hi.is_sign_negative(), x.hi.is_sign_negative());
    }
    assert!(Dd::from(1e300).pow(Dd::from(1e308)).is_infinite());
    assert_eq!(Dd::from(-1e300).pow(Dd::from(-1e308)), Dd::ZERO);
    worst.report();
}

// ---- exponentials and logarithms ------------------------------------------------------------

#[test]
fn exp_family() {
    let w = check_unary(
        "exp",
        bounds::EXP,
        mix(vec![uni_dd(-708.0, 709.78), log_dd(-80, 4, true)]),
        Dd::exp,
        |x| prec(x).exp(),
    );
    // Near overflow and underflow.
    let pts: Vec<Dd> = [
        709.78,
        709.782_712_893_38,
        709.0,
        -708.39,
        -700.0,
        -745.0,
        1e-300,
    ]
    .iter()
    .map(|&v| Dd::from(v))
    .collect();
    check_points(&w, &pts, Dd::exp, |x| prec(x).exp());
    w.report();
    assert_eq!(Dd::from(709.8).exp().hi, f64::INFINITY);
    assert_eq!(Dd::from(-746.0).exp().hi, 0.0);

    let w2 = check_unary(
        "exp2",
        bounds::EXP,
        mix(vec![uni_dd(-1020.0, 1023.99), log_dd(-80, 4, true)]),
        Dd::exp2,
        |x| prec(x).exp2(),
    );
    for k in -1000..1024 {
        assert_eq!(
            Dd::from(k as f64).exp2(),
            Dd::from(2f64.powi(k)),
            "exp2({k})"
        );
    }
    drop(w2);

    check_unary(
        "exp_m1",
        bounds::EXP_M1,
        mix(vec![log_dd(-90, 3, true), uni_dd(-60.0, 709.7)]),
        Dd::exp_m1,
        |x| prec(x).exp_m1(),
    );
}

#[test]
fn logarithms() {
    let pos = mix(vec![
        log_dd(-1000, 1023, false),
        // 1 + δ with tiny δ of either sign: the hard case of a logarithm.
        log_dd(-100, -1, true).prop_map(|d| d + 1.0).boxed(),
        uni_dd(0.5, 2.0),
    ]);
    let lnw = check_unary("ln", bounds::LN, pos.clone(), Dd::ln, |x| prec(x).ln());
    check_points(
        &lnw,
        &[
            Dd::new(1.0, 1e-30),
            Dd::new(1.0, -1e-30),
            Dd::MAX,
            Dd::MIN_POSITIVE,
            Dd::new(1.0 - 1e-16, 0.0),
        ],
        Dd::ln,
        |x| prec(x).ln(),
    );
    lnw.report();
    check_unary("log2", bounds::LN, pos.clone(), Dd::log2, |x| {
        prec(x).log2()
    });
    check_unary("log10", bounds::LN, pos, Dd::log10, |x| prec(x).log10());
    for k in -1000..1000 {
        assert_eq!(Dd::from(2f64.powi(k)).log2(), Dd::from(k as f64));
    }
    let l1p = check_unary(
        "ln_1p",
        bounds::LN,
        mix(vec![
            log_dd(-100, 0, true),
            log_dd(-100, 1000, false),
            uni_dd(-0.999, 3.0),
        ]),
        Dd::ln_1p,
        |x| prec(x).ln_1p(),
    );
    check_points(
        &l1p,
        &[
            Dd::new(-1.0, 1e-40),
            Dd::new(1e-300, 0.0),
            Dd::new(-0.5, -1e-20),
            Dd::new(1e-17, 1e-34),
        ],
        Dd::ln_1p,
        |x| prec(x).ln_1p(),
    );
    l1p.report();

    let wl = Worst::new("log(base)", bounds::LOG);
    runner(CASES)
        .run(
            &(log_dd(-500, 500, false), log_dd(-20, 20, false)),
            |(x, b)| {
                let z = x.log(b);
                let want = Float::with_val(REF_PREC, prec(f(x)).ln() / prec(f(b)).ln());
                if let Some(e) = err(z, &want) {
                    wl.record(e, || format!("x={x:?} b={b:?} z={z:?}"))
                        .map_err(TestCaseError::fail)?;
                }
                Ok(())
            },
        )
        .unwrap();
    wl.report();
}

// ---- powers and roots -----------------------------------------------------------------------

#[test]
fn powers_and_roots() {
    let wp = Worst::new("pow", bounds::POW);
    // y chosen so that |y·ln x| ≤ 700: results over the whole exponent range.
    let strat = (log_dd(-30, 30, false), -700.0..700.0f64, any::<u64>());
    runner(CASES)
        .run(&strat, |(x, t, m)| {
            let lx = x.hi.ln();
            if lx == 0.0 {
                return Ok(());
            }
            let y = with_lo(t / lx, m);
            let z = x.pow(y);
            let want = Float::with_val(REF_PREC, prec(f(x)).pow(f(y)));
            if let Some(e) = err(z, &want) {
                wp.record(e, || format!("x={x:?} y={y:?} z={z:?}"))
                    .map_err(TestCaseError::fail)?;
            }
            Ok(())
        })
        .unwrap();
    // Negative bases with integral exponents; x near 1 with huge exponents.
    for (x, y) in [
        (-3.0, 5.0),
        (-3.0, 6.0),
        (-1.5, -601.0),
        (-0.7, 1001.0),
        (-2.0, 1023.0),
        (1.0 + 1e-15, 1e17),
        (1.0 - 1e-15, -1e17),
        (2.0, -1074.0),
        (10.0, 308.0),
    ] {
        let (x, y) = (Dd::from(x), Dd::from(y));
        let z = x.pow(y);
        let want = Float::with_val(REF_PREC, prec(f(x)).pow(f(y)));
        let e = err(z, &want).unwrap_or(0.0);
        wp.record(e, || format!("x={x:?} y={y:?} z={z:?}")).unwrap();
        assert_eq!(
            z.hi.is_sign_negative(),
            want.is_sign_negative(),
            "sign of {x:?}^{y:?}"
        );
    }
    assert!(Dd::from(-2.0).pow(Dd::from(0.5)).is_nan());
    assert_eq!(Dd::from(2.0).pow(Dd::from(10.0)), Dd::from(1024.0));
    wp.report();

    let wi = Worst::new("powi", bounds::POWI);
    runner(CASES)
        .run(&(log_dd(-8, 8, true), -60i32..60), |(x, n)| {
            let z = x.powi(n);
            let want = Float::with_val(REF_PREC, prec(f(x)).pow(n));
            if let Some(e) = err(z, &want) {
                wi.record(e, || format!("x={x:?} n={n} z={z:?}"))
                    .map_err(TestCaseError::fail)?;
            }
            Ok(())
        })
        .unwrap();
    wi.report();

    check_unary(
        "cbrt",
        bounds::CBRT,
        mix(vec![log_dd(-1000, 1023, true), uni_dd(-10.0, 10.0)]),
        Dd::cbrt,
        |x| prec(x).cbrt(),
    );
    assert_eq!(Dd::from(27.0).cbrt(), Dd::from(3.0));
}

// ---- trigonometric --------------------------------------------------------------------------

#[test]
fn trigonometric() {
    let strat = mix(vec![uni_dd(-10.0, 10.0), log_dd(-30, 1023, true)]);
    let ws = check_unary("sin", bounds::SIN_COS, strat.clone(), Dd::sin, |x| {
        prec(x).sin()
    });
    let wc = check_unary("cos", bounds::SIN_COS, strat.clone(), Dd::cos, |x| {
        prec(x).cos()
    });
    let wt = check_unary("tan", bounds::TAN, strat, Dd::tan, |x| prec(x).tan());
    // Near multiples of π/2 (k up to 2^50 and far beyond) and huge arguments.
    let mut pts = vec![
        Dd::from(1e22),
        Dd::from(1e300),
        Dd::MAX,
        Dd::from(f64::MAX),
        Dd::from(-1e22),
    ];
    let mut k = rug::Integer::from(1);
    for i in 0..1100 {
        pts.push(near_pio2(&k));
        pts.push(-near_pio2(&(k.clone() + 1)));
        k = if i % 3 == 0 { k * 3 + 1 } else { k * 2 + 1 };
        if near_pio2(&k).hi.is_infinite() {
            break;
        }
    }
    for k in [1u64 << 50, (1 << 50) + 1, 6_381_956_970_095_103, 3 << 40] {
        pts.push(near_pio2(&rug::Integer::from(k)));
    }
    check_points(&ws, &pts, Dd::sin, |x| prec(x).sin());
    check_points(&wc, &pts, Dd::cos, |x| prec(x).cos());
    check_points(&wt, &pts, Dd::tan, |x| prec(x).tan());
    ws.report();
    wc.report();
    wt.report();
    for x in [0.5, -3.0, 1e10] {
        let (s, c) = Dd::from(x).sin_cos();
        assert_eq!((s, c), (Dd::from(x).sin(), Dd::from(x).cos()));
    }
}

#[test]
fn inverse_trigonometric() {
    check_unary(
        "atan",
        bounds::ATAN,
        mix(vec![log_dd(-60, 60, true), uni_dd(-2.0, 2.0)]),
        Dd::atan,
        |x| prec(x).atan(),
    );
    let unit = mix(vec![
        uni_dd(-1.0, 1.0),
        log_dd(-60, 0, true),
        log_dd(-100, -1, true)
            .prop_map(|d| if d.hi > 0.0 { 1.0 - d } else { -1.0 - d })
            .boxed(),
    ]);
    check_unary("asin", bounds::ASIN, unit.clone(), Dd::asin, |x| {
        prec(x).asin()
    });
    check_unary("acos", bounds::ACOS, unit, Dd::acos, |x| prec(x).acos());

    let wa = Worst::new("atan2", bounds::ATAN2);
    let pair = (log_dd(-300, 300, true), log_dd(-300, 300, true));
    runner(CASES)
        .run(&pair, |(y, x)| {
            let z = y.atan2(x);
            let want = Float::with_val(REF_PREC, prec(f(y)).atan2(&f(x)));
            if let Some(e) = err(z, &want) {
                wa.record(e, || format!("y={y:?} x={x:?} z={z:?}"))
                    .map_err(TestCaseError::fail)?;
            }
            Ok(())
        })
        .unwrap();
    // All four quadrants and the axes, at similar magnitudes.
    for (y, x) in [
        (1.0, 1.0),
        (1.0, -1.0),
        (-1.0, -1.0),
        (-1.0, 1.0),
        (1e-10, -1.0),
        (-1e-10, -1.0),
        (3.0, 1e-12),
    ] {
        let (y, x) = (Dd::new(y, y * 1e-17), Dd::new(x, x * 1e-17));
        let z = y.atan2(x);
        let want = Float::with_val(REF_PREC, prec(f(y)).atan2(&f(x)));
        wa.record(err(z, &want).unwrap(), || format!("y={y:?} x={x:?}"))
            .unwrap();
    }
    wa.report();
    // ±0/±Inf: the f64 value, with π-multiples as double-double constants.
    let sp = [0.0, -0.0, 1.0, -1.0, f64::INFINITY, f64::NEG_INFINITY];
    for &y in &sp {
        for &x in &sp {
            let z = Dd::from(y).atan2(Dd::from(x));
            let want = y.atan2(x);
            assert_eq!(z.hi.to_bits(), want.to_bits(), "atan2({y}, {x})");
            if y.is_infinite() || x.is_infinite() || y == 0.0 || x == 0.0 {
                let r = Float::with_val(
                    REF_PREC,
                    Float::with_val(REF_PREC, y).atan2(&Float::with_val(REF_PREC, x)),
                );
                if r.is_finite() && !r.is_zero() {
                    assert!(
                        rel_err_units(&w(z), &r, U) <= 1.0,
                        "atan2({y}, {x}) = {z:?}"
                    );
                }
            }
        }
    }
}

// ---- hyperbolic and hypot -------------------------------------------------------------------

#[test]
fn hyperbolic() {
    let s = mix(vec![log_dd(-80, 3, true), uni_dd(-710.0, 710.4)]);
    check_unary("sinh", bounds::SINH, s.clone(), Dd::sinh, |x| {
        prec(x).sinh()
    });
    check_unary("cosh", bounds::COSH, s, Dd::cosh, |x| prec(x).cosh());
    check_unary(
        "tanh",
        bounds::TANH,
        mix(vec![log_dd(-80, 6, true)]),
        Dd::tanh,
        |x| prec(x).tanh(),
    );
    check_unary(
        "asinh",
        bounds::ASINH,
        mix(vec![log_dd(-80, 1020, true), uni_dd(-3.0, 3.0)]),
        Dd::asinh,
        |x| prec(x).asinh(),
    );
    check_unary(
        "acosh",
        bounds::ACOSH,
        mix(vec![
            log_dd(-100, 1, false).prop_map(|d| d + 1.0).boxed(),
            log_dd(0, 1020, false).prop_map(|d| d + 1.0).boxed(),
        ]),
        Dd::acosh,
        |x| prec(x).acosh(),
    );
    check_unary(
        "atanh",
        bounds::ATANH,
        mix(vec![
            uni_dd(-0.999, 0.999),
            log_dd(-80, 0, true),
            log_dd(-100, -1, true)
                .prop_map(|d| if d.hi > 0.0 { 1.0 - d } else { -1.0 - d })
                .boxed(),
        ]),
        Dd::atanh,
        |x| prec(x).atanh(),
    );
}

#[test]
fn hypot_without_overflow() {
    let wh = Worst::new("hypot", bounds::HYPOT);
    let strat = (log_dd(-900, 1000, true), log_dd(-900, 1000, true));
    runner(CASES)
        .run(&strat, |(x, y)| {
            let z = x.hypot(y);
            let want = Float::with_val(REF_PREC, prec(f(x)).hypot(&f(y)));
            if let Some(e) = err(z, &want) {
                wh.record(e, || format!("x={x:?} y={y:?} z={z:?}"))
                    .map_err(TestCaseError::fail)?;
            }
            Ok(())
        })
        .unwrap();
    for (x, y) in [
        (1e300, 1e300),
        (1e-300, 1e-300),
        (1e300, 1e-300),
        (3e-300, 4e-300),
        (f64::MAX, f64::MAX / 2.0),
    ] {
        let (x, y) = (Dd::from(x), Dd::from(y));
        let z = x.hypot(y);
        let want = Float::with_val(REF_PREC, prec(f(x)).hypot(&f(y)));
        if let Some(e) = err(z, &want) {
            wh.record(e, || format!("x={x:?} y={y:?}")).unwrap();
        }
    }
    assert_eq!(
        Dd::from(f64::MAX).hypot(Dd::from(f64::MAX)).hi,
        f64::INFINITY
    );
    wh.report();
}

// ---- special values -------------------------------------------------------------------------

#[test]
fn special_values_follow_f64() {
    let vals = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -2.0,
    ];
    type Pair = (&'static str, fn(Dd) -> Dd, fn(f64) -> f64);
    let unary: [Pair; 30] = [
        ("floor", Dd::floor, f64::floor),
        ("ceil", Dd::ceil, f64::ceil),
        ("round", Dd::round, f64::round),
        ("round_ties_even", Dd::round_ties_even, f64::round_ties_even),
        ("trunc", Dd::trunc, f64::trunc),
        ("fract", Dd::fract, f64::fract),
        ("cbrt", Dd::cbrt, f64::cbrt),
        ("exp", Dd::exp, f64::exp),
        ("exp2", Dd::exp2, f64::exp2),
        ("exp_m1", Dd::exp_m1, f64::exp_m1),
        ("ln", Dd::ln, f64::ln),
        ("log2", Dd::log2, f64::log2),
        ("log10", Dd::log10, f64::log10),
        ("ln_1p", Dd::ln_1p, f64::ln_1p),
        ("sin", Dd::sin, f64::sin),
        ("cos", Dd::cos, f64::cos),
        ("tan", Dd::tan, f64::tan),
        ("asin", Dd::asin, f64::asin),
        ("acos", Dd::acos, f64::acos),
        ("atan", Dd::atan, f64::atan),
        ("sinh", Dd::sinh, f64::sinh),
        ("cosh", Dd::cosh, f64::cosh),
        ("tanh", Dd::tanh, f64::tanh),
        ("asinh", Dd::asinh, f64::asinh),
        ("acosh", Dd::acosh, f64::acosh),
        ("atanh", Dd::atanh, f64::atanh),
        ("powi3", |x| x.powi(3), |x| x.powi(3)),
        ("powi-2", |x| x.powi(-2), |x| x.powi(-2)),
        ("powi0", |x| x.powi(0), |x| x.powi(0)),
        ("sqrt_via_pow", |x| x.powf(0.5), |x| x.powf(0.5)),
    ];
    for (name, op, fop) in unary {
        for &v in &vals {
            let got = op(Dd::from(v));
            let want = fop(v);
            let special = want.is_nan() || want.is_infinite() || want == 0.0;
            if special {
                assert!(
                    got.hi.to_bits() == want.to_bits() || (got.hi.is_nan() && want.is_nan()),
                    "{name}({v}) = {got:?}, f64 gives {want}"
                );
                assert!(
                    got.lo == 0.0,
                    "{name}({v}): lo of a special value must be 0"
                );
            } else {
                assert!(
                    (got.hi - want).abs() <= 2.0 * ulp(want),
                    "{name}({v}) = {got:?} vs {want}"
                );
            }
        }
    }
    let binary: [Pair2; 5] = [
        ("pow", Dd::pow, f64::powf),
        ("atan2", Dd::atan2, f64::atan2),
        ("hypot", Dd::hypot, f64::hypot),
        ("rem", |a, b| a % b, |a, b| a % b),
        ("log", Dd::log, f64::log),
    ];
    let vals2 = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -2.0,
        3.0,
        -3.0,
        2.5,
    ];
    for (name, op, fop) in binary {
        for &a in &vals2 {
            for &b in &vals2 {
                let got = op(Dd::from(a), Dd::from(b));
                let want = fop(a, b);
                let special = want.is_nan() || want.is_infinite() || want == 0.0;
                if special {
                    assert!(
                        got.hi.to_bits() == want.to_bits() || (got.hi.is_nan() && want.is_nan()),
                        "{name}({a}, {b}) = {got:?}, f64 gives {want}"
                    );
                    assert!(got.lo == 0.0, "{name}({a}, {b}): lo must be 0");
                } else {
                    assert!(
                        (got.hi - want).abs() <= 2.0 * ulp(want),
                        "{name}({a}, {b}) = {got:?} vs {want}"
                    );
                }
            }
        }
    }
    // Compile-time use of the assign operator and Float::assign (keeps imports honest).
    let mut r = Dd::from(7.5);
    r %= Dd::from(2.0);
    assert_eq!(r, Dd::from(1.5));
    let mut t = Float::new(53);
    t.assign(1.5);
    assert_eq!(t.to_f64(), r.hi);
}
