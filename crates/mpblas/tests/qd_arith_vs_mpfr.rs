//! Quad-double arithmetic against MPFR (2200 bits): every operation's relative error is
//! asserted against its constant in `mpblas::qd::bounds`, over 10,000 seeded random cases per
//! operation (uniform and log-uniform magnitudes, random valid lower words, random signs) plus
//! adversarial families (cancellation, extreme exponents) and every special value against the
//! `f64` operation. Run with `--nocapture` to see the `report()` lines.

mod oracle;

use mpblas::qd::bounds;
use mpblas::{Dd, Qd, Scalar};
use oracle::qd::{CASES, Rng, check, check_n, check_normalised, ex, ulp};
use oracle::{Worst, exact, rel_err_units, runner};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use rug::Float;
use rug::ops::Pow;
use std::cell::RefCell;

const P: u32 = oracle::REF_PREC;

// ---- random cases per operation --------------------------------------------------------------

#[test]
fn add_sub() {
    check("qd + qd", bounds::ADD, |r| {
        let (a, b) = (r.qd(), r.qd());
        Some((vec![a, b], a + b, Float::with_val(P, ex(&a) + ex(&b))))
    });
    check("qd - qd", bounds::ADD, |r| {
        let (a, b) = (r.qd(), r.qd());
        Some((vec![a, b], a - b, Float::with_val(P, ex(&a) - ex(&b))))
    });
    // Operands of close magnitude: heavy, partial cancellation.
    check("qd + qd (close exponents)", bounds::ADD, |r| {
        let a = r.qd();
        let c0 = -a.c[0] * (1.0 + r.uniform() * 2f64.powi(-(r.below(53) as i32)));
        let b = r.qd_with(c0);
        Some((vec![a, b], a + b, Float::with_val(P, ex(&a) + ex(&b))))
    });
    // Around `+`'s switch between the sloppy and the exact merge (cancellation by 2^-40):
    // depths 2^-34 .. 2^-46, where the sloppy merge's normwise error is largest relatively.
    check("qd + qd (cancellation near 2^-40)", bounds::ADD, |r| {
        let a = r.qd();
        let depth = 34 + r.below(13) as i32;
        let c0 = -a.c[0] * (1.0 + (1.0 + r.uniform()) * 2f64.powi(-depth));
        let b = r.qd_with(c0);
        Some((vec![a, b], a + b, Float::with_val(P, ex(&a) + ex(&b))))
    });
}

#[test]
fn add_catastrophic_cancellation() {
    // a + (−a + tiny): b shares a's leading k words negated, its lower words are random.
    check("qd + qd (cancellation)", bounds::ADD, |r| {
        let a = r.qd();
        let k = 1 + r.below(3) as usize;
        let mut b = r.qd_with(-a.c[0]);
        b.c[..k].copy_from_slice(&(-a).c[..k]);
        if k < 3 && b.c[k] == 0.0 {
            b.c[k] = ulp(b.c[k - 1]) * (r.unit() - 0.5) * 0.99;
        }
        let b = Qd::new(b.c[0], b.c[1], b.c[2], b.c[3]);
        Some((vec![a, b], a + b, Float::with_val(P, ex(&a) + ex(&b))))
    });
    // Integers and halves: exact results expected.
    let a = Qd::new(1.0, 2f64.powi(-60), 2f64.powi(-120), 2f64.powi(-180));
    let b = Qd::new(-1.0, -2f64.powi(-60), -2f64.powi(-120), 0.0);
    assert_eq!((a + b).c, [2f64.powi(-180), 0.0, 0.0, 0.0]);
}

#[test]
fn add_sloppy_same_sign() {
    check(
        "qd add_sloppy (same sign)",
        bounds::ADD_SLOPPY_SAME_SIGN,
        |r| {
            let a = r.qd();
            let b = r.qd().copysign(a);
            Some((
                vec![a, b],
                a.add_sloppy(b),
                Float::with_val(P, ex(&a) + ex(&b)),
            ))
        },
    );
}

/// As `check`, for a **normwise** bound: the error is measured against `scale` (`|a| + |b|`
/// or `|c| + |a·b|`), not against the result.
fn check_normwise<F>(name: &str, bound: f64, f: F)
where
    F: Fn(&mut Rng) -> (Vec<Qd>, Qd, Float, Float),
{
    let worst = RefCell::new(Worst::new(name, bound));
    let res = runner(CASES).run(&any::<u64>(), |seed| {
        let mut rng = Rng(seed);
        let (args, got, want, scale) = f(&mut rng);
        check_normalised(&got)?;
        let diff = Float::with_val(P, ex(&got) - &want).abs();
        let err = if scale.is_zero() {
            diff.to_f64() / oracle::qd::U
        } else {
            Float::with_val(64, diff / &scale).to_f64() / oracle::qd::U
        };
        worst
            .borrow_mut()
            .record(err, || format!("{:?} -> {:?}", args, got.c))
            .map_err(TestCaseError::fail)
    });
    worst.borrow().report();
    if let Err(e) = res {
        panic!("{name}: {e}");
    }
}

/// `b` close to `-a`: its leading `k` words those of `−a` (1 ≤ k ≤ 3), the rest random, or
/// only the leading word close: every depth of cancellation.
fn cancelling(r: &mut Rng, a: Qd) -> Qd {
    if r.next() & 1 == 0 {
        let shift = 2f64.powi(-(r.below(53) as i32));
        let c0 = -a.c[0] * (1.0 + r.uniform() * shift);
        return r.qd_with(c0);
    }
    let k = 1 + r.below(3) as usize;
    let mut b = r.qd_with(-a.c[0]);
    b.c[..k].copy_from_slice(&(-a).c[..k]);
    if b.c[k] == 0.0 {
        b.c[k] = ulp(b.c[k - 1]) * (r.unit() - 0.5) * 0.99;
    }
    Qd::new(b.c[0], b.c[1], b.c[2], b.c[3])
}

#[test]
fn add_sloppy_normwise() {
    let abs_sum = |a: &Qd, b: &Qd| Float::with_val(P, ex(a).abs() + ex(b).abs());
    check_normwise("qd add_sloppy (any signs)", bounds::ADD_SLOPPY, |r| {
        let (a, b) = (r.qd(), r.qd());
        let want = Float::with_val(P, ex(&a) + ex(&b));
        (vec![a, b], a.add_sloppy(b), want, abs_sum(&a, &b))
    });
    check_normwise("qd add_sloppy (cancellation)", bounds::ADD_SLOPPY, |r| {
        let a = r.qd();
        let b = cancelling(r, a);
        let want = Float::with_val(P, ex(&a) + ex(&b));
        (vec![a, b], a.add_sloppy(b), want, abs_sum(&a, &b))
    });
}

#[test]
fn add_product_sloppy_normwise() {
    let scale = |c: &Qd, a: &Qd, b: &Qd| {
        Float::with_val(P, ex(c).abs() + Float::with_val(P, ex(a) * ex(b)).abs())
    };
    let want =
        |c: &Qd, a: &Qd, b: &Qd| Float::with_val(P, ex(c) + Float::with_val(P, ex(a) * ex(b)));
    check_normwise("qd add_product_sloppy", bounds::ADD_PRODUCT_SLOPPY, |r| {
        let (c, a, b) = (r.qd(), r.qd(), r.qd());
        let got = c.add_product_sloppy(a, b);
        (vec![c, a, b], got, want(&c, &a, &b), scale(&c, &a, &b))
    });
    check_normwise(
        "qd add_product_sloppy (c ≈ −a·b)",
        bounds::ADD_PRODUCT_SLOPPY,
        |r| {
            let (a, b) = (r.qd(), r.qd());
            let c = cancelling(r, a * b);
            let got = c.add_product_sloppy(a, b);
            (vec![c, a, b], got, want(&c, &a, &b), scale(&c, &a, &b))
        },
    );
    // Special values and the edges of the range take the IEEE-style path.
    let big = Qd::from(f64::MAX);
    let nan = Qd::from(f64::NAN);
    let inf = Qd::from(f64::INFINITY);
    assert!(Qd::ONE.add_product_sloppy(nan, Qd::ONE).c[0].is_nan());
    assert!(Qd::ONE.add_product_sloppy(inf, Qd::ZERO).c[0].is_nan());
    assert!((-inf).add_product_sloppy(inf, Qd::ONE).c[0].is_nan());
    assert_eq!(Qd::ONE.add_product_sloppy(big, big).c[0], f64::INFINITY);
    // Not fused at the edge of the range: `a·b` overflows as `×` does.
    let two = Qd::from(2.0);
    assert_eq!(
        (-big).add_product_sloppy(big, two).c,
        ((-big) + big * two).c
    );
    let x = Qd::new(1.0, 2f64.powi(-60), 2f64.powi(-120), 2f64.powi(-180));
    let z = (-x).add_product_sloppy(x, Qd::ONE);
    assert_eq!(z.c, [0.0; 4], "x·1 − x is +0");
    let nz = Qd::from(-0.0);
    assert_eq!(
        nz.add_product_sloppy(nz, Qd::ONE).c[0].to_bits(),
        (-0.0f64).to_bits()
    );
    assert_eq!(nz.add_sloppy(nz).c[0].to_bits(), (-0.0f64).to_bits());
}

#[test]
fn add_square_sloppy_normwise() {
    let sq = |a: &Qd| Float::with_val(P, ex(a) * ex(a));
    let scale = |c: &Qd, a: &Qd| Float::with_val(P, ex(c).abs() + sq(a));
    let want = |c: &Qd, a: &Qd| Float::with_val(P, ex(c) + sq(a));
    check_normwise("qd add_square_sloppy", bounds::ADD_SQUARE_SLOPPY, |r| {
        let (c, a) = (r.qd(), r.qd());
        let got = c.add_square_sloppy(a);
        (vec![c, a], got, want(&c, &a), scale(&c, &a))
    });
    check_normwise(
        "qd add_square_sloppy (wide exponents)",
        bounds::ADD_SQUARE_SLOPPY,
        |r| {
            // a² and c anywhere in the normal range of the bounds (2^-862 up), often far apart.
            let (ea, ec) = (r.below(880) as i32 - 430, r.below(1760) as i32 - 860);
            let (a, c) = (r.qd_at(ea), r.qd_at(ec));
            let got = c.add_square_sloppy(a);
            (vec![c, a], got, want(&c, &a), scale(&c, &a))
        },
    );
    check_normwise(
        "qd add_square_sloppy (c ≈ −a²)",
        bounds::ADD_SQUARE_SLOPPY,
        |r| {
            let a = r.qd();
            let c = cancelling(r, a * a);
            let got = c.add_square_sloppy(a);
            (vec![c, a], got, want(&c, &a), scale(&c, &a))
        },
    );
    // Special values and the edges of the range take the IEEE-style path.
    let big = Qd::from(f64::MAX);
    let nan = Qd::from(f64::NAN);
    let inf = Qd::from(f64::INFINITY);
    assert!(Qd::ONE.add_square_sloppy(nan).c[0].is_nan());
    assert!(nan.add_square_sloppy(Qd::ONE).c[0].is_nan());
    assert!((-inf).add_square_sloppy(inf).c[0].is_nan());
    assert_eq!(Qd::ONE.add_square_sloppy(-inf).c[0], f64::INFINITY);
    assert_eq!(Qd::ONE.add_square_sloppy(big).c[0], f64::INFINITY);
    // 2·a0 overflows although a0² alone would not matter: the IEEE-style path again.
    let half_big = Qd::from(2f64.powi(1023));
    assert_eq!(
        (-big).add_square_sloppy(half_big).c,
        ((-big) + half_big * half_big).c
    );
    let x = Qd::new(1.0, 2f64.powi(-60), 2f64.powi(-120), 2f64.powi(-180));
    let z = (-(x * x)).add_square_sloppy(x);
    assert_eq!(
        z.c,
        (-(x * x)).add_product_sloppy(x, x).c,
        "cancellation as the product"
    );
    let nz = Qd::from(-0.0);
    assert_eq!(
        nz.add_square_sloppy(nz).c[0].to_bits(),
        0.0f64.to_bits(),
        "−0 + (−0)² is +0"
    );
    assert_eq!(
        nz.add_square_sloppy(nz).c[0].to_bits(),
        nz.add_product_sloppy(nz, nz).c[0].to_bits()
    );
}

#[test]
fn add_mixed() {
    check("qd + f64", bounds::ADD_F64, |r| {
        let a = r.qd();
        let b = if r.next() & 1 == 0 {
            -a.c[0] * (1.0 + r.uniform() * 1e-10)
        } else {
            r.qd().c[0]
        };
        Some((vec![a, Qd::from(b)], a + b, Float::with_val(P, ex(&a) + b)))
    });
    check("f64 - qd", bounds::ADD_F64, |r| {
        let (a, b) = (r.qd(), r.qd().c[0]);
        Some((vec![Qd::from(b), a], b - a, Float::with_val(P, b - ex(&a))))
    });
    check("qd + dd", bounds::ADD, |r| {
        let a = r.qd();
        let bq = r.qd();
        let b = Dd::new(bq.c[0], bq.c[1]);
        let want = Float::with_val(P, ex(&a) + exact(&[b.hi, b.lo]));
        Some((vec![a, Qd::from(b)], a + b, want))
    });
    check("dd - qd", bounds::ADD, |r| {
        let a = r.qd();
        let bq = r.qd();
        let b = Dd::new(bq.c[0], bq.c[1]);
        let want = Float::with_val(P, exact(&[b.hi, b.lo]) - ex(&a));
        Some((vec![Qd::from(b), a], b - a, want))
    });
}

#[test]
fn mul() {
    check("qd * qd", bounds::MUL, |r| {
        let (a, b) = (r.qd(), r.qd());
        Some((vec![a, b], a * b, Float::with_val(P, ex(&a) * ex(&b))))
    });
    check("qd sqr", bounds::MUL, |r| {
        let a = r.qd();
        Some((vec![a], a.sqr(), Float::with_val(P, ex(&a).square())))
    });
    check("qd * f64", bounds::MUL_F64, |r| {
        let (a, b) = (r.qd(), r.qd().c[0]);
        Some((vec![a, Qd::from(b)], a * b, Float::with_val(P, ex(&a) * b)))
    });
    check("f64 * qd", bounds::MUL_F64, |r| {
        let (a, b) = (r.qd(), r.qd().c[0]);
        Some((vec![a, Qd::from(b)], b * a, Float::with_val(P, ex(&a) * b)))
    });
    check("qd * dd", bounds::MUL, |r| {
        let a = r.qd();
        let bq = r.qd();
        let b = Dd::new(bq.c[0], bq.c[1]);
        let want = Float::with_val(P, ex(&a) * exact(&[b.hi, b.lo]));
        Some((vec![a, Qd::from(b)], a * b, want))
    });
}

#[test]
fn div() {
    check("qd / qd", bounds::DIV, |r| {
        let (a, b) = (r.qd(), r.qd());
        Some((vec![a, b], a / b, Float::with_val(P, ex(&a) / ex(&b))))
    });
    check("qd recip", bounds::DIV, |r| {
        let a = r.qd();
        Some((vec![a], a.recip(), Float::with_val(P, ex(&a).recip())))
    });
    check("qd / f64", bounds::DIV_F64, |r| {
        let (a, b) = (r.qd(), r.qd().c[0]);
        Some((vec![a, Qd::from(b)], a / b, Float::with_val(P, ex(&a) / b)))
    });
    check("f64 / qd", bounds::DIV, |r| {
        let (a, b) = (r.qd(), r.qd().c[0]);
        Some((vec![Qd::from(b), a], b / a, Float::with_val(P, b / ex(&a))))
    });
    check("qd / dd", bounds::DIV, |r| {
        let a = r.qd();
        let bq = r.qd();
        let b = Dd::new(bq.c[0], bq.c[1]);
        let want = Float::with_val(P, ex(&a) / exact(&[b.hi, b.lo]));
        Some((vec![a, Qd::from(b)], a / b, want))
    });
}

#[test]
fn sqrt() {
    check("qd sqrt", bounds::SQRT, |r| {
        let a = r.qd().abs();
        Some((vec![a], a.sqrt(), Float::with_val(P, ex(&a).sqrt())))
    });
    check("qd sqrt (wide exponents)", bounds::SQRT, |r| {
        let c0 = r.log_uniform(-860, 1023).abs();
        let a = r.qd_with(c0);
        Some((vec![a], a.sqrt(), Float::with_val(P, ex(&a).sqrt())))
    });
}

// ---- extreme exponents -----------------------------------------------------------------------

#[test]
fn near_overflow_and_underflow() {
    // Operands near 2^±1000 whose results stay in the normal range.
    check_n("qd * qd (near 2^±1000)", bounds::MUL, 2000, |r| {
        let e = 990 + r.below(30) as i32;
        let a = r.qd_at(e);
        let eb = -e + r.below(20) as i32 - 10;
        let b = r.qd_at(eb);
        Some((vec![a, b], a * b, Float::with_val(P, ex(&a) * ex(&b))))
    });
    check_n("qd / qd (near 2^±1000)", bounds::DIV, 2000, |r| {
        let e = 990 + r.below(30) as i32;
        let a = r.qd_at(e);
        let eb = e - r.below(40) as i32;
        let b = r.qd_at(eb);
        Some((vec![a, b], a / b, Float::with_val(P, ex(&a) / ex(&b))))
    });
    check_n("qd + qd (near 2^1020)", bounds::ADD, 2000, |r| {
        let a = r.qd_at(1020);
        let eb = 1020 - r.below(100) as i32;
        let b = r.qd_at(eb);
        Some((vec![a, b], a + b, Float::with_val(P, ex(&a) + ex(&b))))
    });
    check_n("qd + qd (near 2^-860)", bounds::ADD, 2000, |r| {
        let a = r.qd_at(-800);
        let eb = -800 - r.below(50) as i32;
        let b = r.qd_at(eb);
        let s = a + b;
        (s.abs() >= Qd::MIN_POSITIVE).then(|| (vec![a, b], s, Float::with_val(P, ex(&a) + ex(&b))))
    });
    // Overflow goes to ±Inf, underflow to (signed) zero or subnormal words, never NaN.
    assert_eq!((Qd::MAX * 2.0).c[0], f64::INFINITY);
    assert_eq!((Qd::MAX + Qd::MAX).c[0], f64::INFINITY);
    assert_eq!((-Qd::MAX - Qd::MAX).c[0], f64::NEG_INFINITY);
    assert_eq!((Qd::MAX / Qd::from(0.25)).c[0], f64::INFINITY);
    assert_eq!((Qd::MAX.sqr()).c[0], f64::INFINITY);
    let tiny = Qd::from(1e-300);
    let z = tiny * tiny;
    assert_eq!(z.c, [0.0; 4]);
    let z = -tiny * tiny;
    assert!(z.c[0] == 0.0 && z.c[0].is_sign_negative());
    let z = tiny * Qd::from(1e-10);
    assert!(z.is_finite() && z.c[0] > 0.0);
    assert!((Qd::MAX - Qd::MAX).c[0] == 0.0);
    // MAX is normalised and finite, MAX + ulp overflows.
    assert!(Qd::MAX.is_finite());
    check_normalised(&Qd::MAX).unwrap();
    check_normalised(&Qd::MIN).unwrap();
    let m = Float::with_val(P, ex(&Qd::MAX) - Float::with_val(P, 2).pow(1024));
    assert!(m < 0);
    assert_eq!(Qd::from(f64::MAX).sqrt().sqr().c[0], f64::MAX);
    assert_eq!((Qd::from(f64::MAX) / 1.5).c[0], f64::MAX / 1.5);
    assert_eq!((Qd::from(f64::MAX) / Qd::from(1.5)).c[0], f64::MAX / 1.5);
    assert_eq!((Qd::from(f64::MAX) * 0.75).c[0], f64::MAX * 0.75);
    assert_eq!((Qd::from(f64::MAX) - Qd::from(1.0)).c[0], f64::MAX);
}

// ---- special values --------------------------------------------------------------------------

const SPECIALS: [f64; 9] = [
    0.0,
    -0.0,
    1.5,
    -2.0,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    f64::MAX,
    f64::MIN_POSITIVE,
];

/// `got` is the special value `want` bit for bit (lower words zero), or, for a finite
/// non-zero `want`, the same number to within the rounding of `want` (the quad-double is the
/// more accurate one: `sqrt(f64::MAX)` differs from the `f64` result in its last bit).
fn same(got: Qd, want: f64) -> bool {
    if want == 0.0 || !want.is_finite() {
        let first = got.c[0].to_bits() == want.to_bits() || (got.is_nan() && want.is_nan());
        first && got.c[1..] == [0.0; 3]
    } else {
        let d = Float::with_val(P, ex(&got) - want) / want;
        got.is_finite() && d.abs().to_f64() <= 2f64.powi(-52)
    }
}

#[test]
fn special_values_follow_f64() {
    for &a in &SPECIALS {
        for &b in &SPECIALS {
            let (x, y) = (Qd::from(a), Qd::from(b));
            let d = Dd::from(b);
            let cases: [(&str, Qd, f64); 13] = [
                ("+", x + y, a + b),
                ("-", x - y, a - b),
                ("*", x * y, a * b),
                ("/", x / y, a / b),
                ("+f64", x + b, a + b),
                ("f64-", b - x, b - a),
                ("*f64", x * b, a * b),
                ("/f64", x / b, a / b),
                ("f64/", b / x, b / a),
                ("+dd", x + d, a + b),
                ("*dd", x * d, a * b),
                ("/dd", x / d, a / b),
                ("sloppy", x.add_sloppy(y), a + b),
            ];
            for (op, got, want) in cases {
                // f64::MAX ± f64::MAX etc. are exact in f64 too, so bitwise equality applies to
                // all of these; the products near MIN_POSITIVE underflow identically.
                assert!(
                    same(got, want),
                    "{a} {op} {b}: got {:?}, f64 gives {want}",
                    got.c
                );
            }
            if !(a == 0.0 && b == 0.0) {
                // f64::min/max may return either zero for ±0 pairs; skip those.
                assert!(same(x.min(y), a.min(b)), "min({a}, {b})");
                assert!(same(x.max(y), a.max(b)), "max({a}, {b})");
            }
            assert!(same(x.copysign(y), a.copysign(b)), "copysign({a}, {b})");
            assert_eq!(x.partial_cmp(&y), a.partial_cmp(&b), "cmp({a}, {b})");
            assert_eq!(x == y, a == b);
            assert_eq!(x < b, a < b);
            assert_eq!(a < y, a < b);
            assert_eq!(x.total_cmp(&y), a.total_cmp(&b), "total_cmp({a}, {b})");
        }
        let x = Qd::from(a);
        for (op, got, want) in [
            ("sqrt", x.sqrt(), a.sqrt()),
            ("recip", x.recip(), 1.0 / a),
            ("abs", x.abs(), a.abs()),
            ("neg", -x, -a),
            ("signum", x.signum(), a.signum()),
            ("sqr", x.sqr(), a * a),
            ("ldexp", x.ldexp(3), a * 8.0),
        ] {
            assert!(
                same(got, want),
                "{op}({a}): got {:?}, f64 gives {want}",
                got.c
            );
        }
        assert_eq!(x.is_nan(), a.is_nan());
        assert_eq!(x.is_finite(), a.is_finite());
        assert_eq!(x.is_infinite(), a.is_infinite());
        assert_eq!(x.is_sign_negative(), a.is_sign_negative());
    }
    // x − x = +0 and −0 + −0 = −0 with non-trivial lower words.
    let a = Qd::new(1.0, 1e-20, 1e-40, 1e-60);
    assert!(same(a - a, 0.0));
    assert!(same(a + (-a), 0.0));
    assert!(same(Qd::from(-0.0) + Qd::from(-0.0), -0.0));
    assert!(same(Qd::from(-0.0) * Qd::from(5.0), -0.0));
}

// ---- helpers, conversions, ordering ----------------------------------------------------------

#[test]
fn conversions_are_exact() {
    for x in [i64::MAX, i64::MIN, i64::MIN + 1, (1 << 53) + 1, -12345, 0] {
        let q = Qd::from(x);
        assert_eq!(ex(&q), Float::with_val(P, x), "{x}");
        check_normalised(&q).unwrap();
    }
    for x in [u64::MAX, u64::MAX - 1, (1 << 63) + 1, 0] {
        assert_eq!(ex(&Qd::from(x)), Float::with_val(P, x), "{x}");
    }
    assert_eq!(Qd::from(i32::MIN).c[0], i32::MIN as f64);
    assert_eq!(Qd::from(u32::MAX).c[0], u32::MAX as f64);
    assert_eq!(Qd::from(0.1f32).c[0], 0.1f32 as f64);
    let d = Dd::new(1.0, 1e-20);
    assert_eq!(Qd::from(d).c, [1.0, 1e-20, 0.0, 0.0]);
    assert_eq!(Qd::from(d).to_dd(), d);
    // to_dd rounds to 106 bits (within a tie): error below 2^-106 relative.
    let worst = RefCell::new(Worst::new("qd to_dd (units 2^-106)", 1.0));
    runner(CASES)
        .run(&any::<u64>(), |seed| {
            let q = Rng(seed).qd();
            let d = q.to_dd();
            let err = rel_err_units(&[d.hi, d.lo], &ex(&q), Dd::UNIT_ROUNDOFF);
            worst
                .borrow_mut()
                .record(err, || format!("{:?}", q.c))
                .map_err(TestCaseError::fail)
        })
        .unwrap();
    worst.borrow().report();
    // Qd::new normalises words given in any order, exactly when the sum fits.
    let q = Qd::new(2f64.powi(-180), 1.0, 2f64.powi(-60), 2f64.powi(-120));
    assert_eq!(q.c, [1.0, 2f64.powi(-60), 2f64.powi(-120), 2f64.powi(-180)]);
    assert!(Qd::new(f64::MAX, f64::MAX, 0.0, 0.0).is_infinite());
    assert!(Qd::new(f64::NAN, 1.0, 0.0, 0.0).is_nan());
}

#[test]
fn ordering_and_helpers() {
    let a = Qd::new(1.0, 1e-20, 0.0, 0.0);
    let b = Qd::new(1.0, -1e-20, 0.0, 0.0);
    assert!(b < a);
    assert!(a != b);
    assert!(a > 1.0);
    assert!(b < 1.0);
    assert!(1.0 < a);
    assert_eq!(a.min(b), b);
    assert_eq!(a.max(b), a);
    assert_eq!(Qd::NAN.min(a), a);
    assert_eq!(a.clamp(b, b), b);
    assert_eq!(Qd::from(5.0).clamp(b, a), a);
    assert!(Qd::NAN.clamp(b, a).is_nan());
    assert_eq!(a.clamp(a, b), a); // inverted bounds: unchanged, no panic
    assert_eq!(
        Qd::from(-0.0).total_cmp(&Qd::from(0.0)),
        std::cmp::Ordering::Less
    );
    assert_eq!((-a).abs(), a);
    assert_eq!(a.copysign(Qd::from(-0.0)), -a);
    let t = Qd::new(1.0, 2f64.powi(-60), 0.0, 0.0);
    assert_eq!(t.ldexp(-1010).ldexp(1010), t);
    assert_eq!(Qd::from(2f64.powi(-1074)).ldexp(2000).c[0], 2f64.powi(926));
    assert_eq!(Qd::ONE.ldexp(i32::MIN).c[0], 0.0);
    assert_eq!(Qd::ONE.ldexp(i32::MAX).c[0], f64::INFINITY);
    assert_eq!(a.ldexp(10).c, [1024.0, 1024.0 * 1e-20, 0.0, 0.0]);
    let v = [a, b, Qd::ONE];
    assert_eq!(ex(&v.iter().sum::<Qd>()), Float::with_val(P, 3));
    let p: Qd = v.iter().product();
    assert_eq!(p, a * b);
    let mut x = Qd::ONE;
    x += 2.0;
    x *= Dd::from(3.0);
    x -= Qd::ONE;
    x /= 4.0;
    assert_eq!(x, 2.0);
    assert_eq!(Qd::EPSILON.c[0], 2f64.powi(-209));
    assert_eq!(Qd::UNIT_ROUNDOFF, 2f64.powi(-212));
    assert_eq!(Qd::MIN_POSITIVE.c[0], 2f64.powi(-862));
}

// ---- the lane sums of the blocked order ------------------------------------------------------

/// One lane's sum (`Scalar::lane_sum`) or dot (`Scalar::lane_dot`) of up to 16 terms, as the
/// reductions use it: `None` (not a finite non-zero number) steps the terms one by one.
fn lane_sum_or_steps(t: &[Qd]) -> Qd {
    <Qd as Scalar>::lane_sum(t.len(), |j| t[j])
        .unwrap_or_else(|| t.iter().fold(Qd::from(-0.0), |s, x| s.add_sloppy(*x)))
}
fn lane_dot_or_steps(a: &[Qd], b: &[Qd]) -> Qd {
    <Qd as Scalar>::lane_dot(a.len(), |j| (a[j], b[j])).unwrap_or_else(|| {
        a.iter()
            .zip(b)
            .fold(Qd::from(-0.0), |s, (x, y)| s.add_product_sloppy(*x, *y))
    })
}

/// The exact sum and `Σ|t_j|` of terms given as MPFR values.
fn exact_and_scale(t: &[Float]) -> (Float, Float) {
    let mut s = Float::with_val(P, 0);
    let mut m = Float::with_val(P, 0);
    for v in t {
        s += v;
        m += Float::with_val(P, v.abs_ref());
    }
    (s, m)
}

/// Terms of a lane: random, in a wide exponent range, or cancelling in pairs (each term but the
/// first close to minus the one before, so the accumulator's leading word cancels again and
/// again and its lower words carry the sum).
fn lane_terms(r: &mut Rng, family: u64) -> Vec<Qd> {
    let m = 1 + r.below(16) as usize;
    let mut t: Vec<Qd> = Vec::with_capacity(m);
    for j in 0..m {
        let x = match family {
            0 => r.qd(),
            1 => {
                let e = r.below(600) as i32 - 300;
                r.qd_at(e)
            }
            _ if j % 2 == 1 => cancelling(r, t[j - 1]),
            _ => r.qd(),
        };
        t.push(x);
    }
    t
}

#[test]
fn lane_sums_normwise() {
    for (family, name) in [
        (0, "random"),
        (1, "wide exponents"),
        (2, "cancelling pairs"),
    ] {
        // How many lanes the steps had to sum: none without cancellation.
        let stepped = std::cell::Cell::new(0);
        check_normwise(&format!("qd lane sum ({name})"), bounds::LANE_SUM, |r| {
            let t = lane_terms(r, family);
            let (want, scale) = exact_and_scale(&t.iter().map(ex).collect::<Vec<_>>());
            if <Qd as Scalar>::lane_sum(t.len(), |j| t[j]).is_none() {
                stepped.set(stepped.get() + 1);
            }
            (t.clone(), lane_sum_or_steps(&t), want, scale)
        });
        eprintln!("qd lane sum ({name}): {} lanes stepped", stepped.get());
        assert!(family == 2 || stepped.get() == 0);
        if family < 2 {
            check_normwise(
                &format!("qd lane squares ({name})"),
                bounds::LANE_SUM,
                |r| {
                    let t = lane_terms(r, family);
                    let sq: Vec<Float> = t
                        .iter()
                        .map(|x| Float::with_val(P, ex(x) * ex(x)))
                        .collect();
                    let (want, scale) = exact_and_scale(&sq);
                    let got =
                        <Qd as Scalar>::lane_squares(t.len(), |j| t[j]).unwrap_or_else(|| {
                            t.iter()
                                .fold(Qd::from(-0.0), |s, x| s.add_square_sloppy(*x))
                        });
                    (t, got, want, scale)
                },
            );
        }
        check_normwise(&format!("qd lane dot ({name})"), bounds::LANE_SUM, |r| {
            let b: Vec<Qd> = (0..16)
                .map(|_| {
                    let e = r.below(40) as i32 - 20;
                    r.qd_at(e)
                })
                .collect();
            let mut a = lane_terms(r, family);
            // Cancelling products: a_j·b_j close to −a_(j−1)·b_(j−1).
            if family == 2 {
                for j in (1..a.len()).step_by(2) {
                    a[j] = cancelling(r, a[j - 1] * b[j - 1] / b[j]);
                }
            }
            let b = &b[..a.len()];
            let p: Vec<Float> = a
                .iter()
                .zip(b)
                .map(|(x, y)| Float::with_val(P, ex(x) * ex(y)))
                .collect();
            let (want, scale) = exact_and_scale(&p);
            let mut args = a.clone();
            args.extend_from_slice(b);
            (args, lane_dot_or_steps(&a, b), want, scale)
        });
    }
    // Specials and zeros leave the lane to the steps: IEEE results and signed zeros.
    let (inf, nan) = (Qd::from(f64::INFINITY), Qd::from(f64::NAN));
    assert!(<Qd as Scalar>::lane_sum(2, |j| [inf, -inf][j]).is_none());
    assert!(<Qd as Scalar>::lane_sum(2, |j| [Qd::ONE, nan][j]).is_none());
    assert!(<Qd as Scalar>::lane_sum(2, |j| [Qd::ONE, -Qd::ONE][j]).is_none());
    assert!(<Qd as Scalar>::lane_dot(1, |_| (Qd::from(f64::MAX), Qd::from(2.0))).is_none());
    let x = lane_sum_or_steps(&[Qd::from(-0.0), Qd::from(-0.0)]);
    assert_eq!(x.c[0].to_bits(), (-0.0f64).to_bits());
}
