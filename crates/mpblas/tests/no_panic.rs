//! No public function panics, on any finite or non-finite input, and each returns what IEEE or
//! the crate's own contracts say it must. Grids of nasty values (specials, range limits,
//! subnormals, words far apart, exponents at the ends of `i64` and of the RNS range) and every
//! pair of them go through:
//!
//! - `Dd` and `Qd`: every operation, function, conversion and formatting path. `+ − × ÷` are
//!   NaN exactly when the `f64` operation on the leading words is, every normalised finite
//!   value prints in a form that parses back to its very words, and parsing returns normalised
//!   words (`x + 0 == x`), also at the overflow edge.
//! - `eft::pow2`/`eft::ldexp` and `rns::ExtF`: total on every exponent.
//! - RNS at four precisions: the constructors (the range rule: `±Inf` above `EMAX`, `±0` below
//!   `EMIN`), `+ − × ÷ √ fma` (NaN exactly when IEEE's operation on values of the same class and
//!   sign is), scaling, conversions, printing (round trip), and `MpArray`, whose edited fields
//!   are errors, never a wrong number or a panic.
//! - The BLAS-style level-1 routines in every format (`f64`, `Dd`, `Qd`, RNS): NaN exactly when
//!   IEEE arithmetic in the format must give it.
//!
//! Random inputs for the same properties: `tests/fuzz_public.rs`. CI also runs this file with
//! overflow checks and debug assertions on (`cargo test --profile checked`, see
//! `scripts/test.sh`), which release builds leave out.

use mpblas::{Dd, Qd};

fn nasty_f64() -> Vec<f64> {
    vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -2.5,
        3.0,
        1e-300,
        -1e-310,
        5e-324,
        -5e-324,
        f64::MIN_POSITIVE,
        1e300,
        -1e308,
        f64::MAX,
        f64::MIN,
        709.78,
        -745.2,
        1e22,
        std::f64::consts::FRAC_PI_2,
        9.007_199_254_740_993e15,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ]
}

fn nasty_dd() -> Vec<Dd> {
    let mut v: Vec<Dd> = nasty_f64().into_iter().map(Dd::from).collect();
    v.extend([
        Dd::MAX,
        Dd::MIN,
        Dd::MIN_POSITIVE,
        Dd::EPSILON,
        Dd::PI,
        Dd::new(1.0, 1e-300),
        Dd::new(-1e300, 1e250),
        Dd::new(2f64.powi(60), -0.5),
        Dd::new(1e-300, 5e-324),
    ]);
    v
}

fn nasty_qd() -> Vec<Qd> {
    let mut v: Vec<Qd> = nasty_dd().into_iter().map(Qd::from).collect();
    v.extend([Qd::MAX, Qd::MIN, Qd::MIN_POSITIVE, Qd::EPSILON, Qd::PI]);
    v
}

macro_rules! sweep {
    ($values:expr, $t:ty, $lead:expr) => {{
        let values: Vec<$t> = $values;
        let mut sink = 0usize;
        for &x in &values {
            let unary = [
                x.abs(),
                -x,
                x.sqrt(),
                x.cbrt(),
                x.exp(),
                x.exp2(),
                x.exp_m1(),
                x.ln(),
                x.log2(),
                x.log10(),
                x.ln_1p(),
                x.sin(),
                x.cos(),
                x.tan(),
                x.asin(),
                x.acos(),
                x.atan(),
                x.sinh(),
                x.cosh(),
                x.tanh(),
                x.asinh(),
                x.acosh(),
                x.atanh(),
                x.floor(),
                x.ceil(),
                x.round(),
                x.round_ties_even(),
                x.trunc(),
                x.fract(),
                x.recip(),
                x.signum(),
                x.powi(0),
                x.powi(-3),
                x.powi(7),
                x.powi(i32::MAX),
                x.powi(i32::MIN),
                x.sin_cos().0,
            ];
            sink += unary.iter().filter(|v| v.is_nan()).count();
            let lead: fn($t) -> f64 = $lead;
            let words_equal = |a: $t, b: $t| format!("{a:?}") == format!("{b:?}");
            // Normalised (what every operation returns) and nonzero (−0 + 0 is +0): printing
            // round trips to the same words, in both notations.
            let normal = lead(x).is_finite() && lead(x) != 0.0 && words_equal(x + <$t>::ZERO, x);
            if normal {
                for s in [format!("{x}"), format!("{x:e}")] {
                    let back: $t = s.parse().expect("the crate's own output parses");
                    assert!(
                        words_equal(back, x),
                        "{x:?} printed as {s} parses to {back:?}"
                    );
                }
            }
            for s in [
                format!("{x}"),
                format!("{x:e}"),
                format!("{x:E}"),
                format!("{x:.0}"),
                format!("{x:.3e}"),
                format!("{x:+>60.10}"),
            ] {
                sink += s.len();
                if let Ok(p) = s.parse::<$t>() {
                    if lead(p).is_finite() && lead(p) != 0.0 {
                        assert!(words_equal(p + <$t>::ZERO, p), "{s} parsed to {p:?}");
                    }
                }
            }
            let _ = num_traits::ToPrimitive::to_i64(&x);
            let _ = num_traits::ToPrimitive::to_u64(&x);
            for &y in &values {
                let binary = [
                    x + y,
                    x - y,
                    x * y,
                    x / y,
                    x % y,
                    x.pow(y),
                    x.atan2(y),
                    x.hypot(y),
                    x.min(y),
                    x.max(y),
                    x.copysign(y),
                ];
                sink += binary.iter().filter(|v| v.is_nan()).count();
                let (a, b) = (lead(x), lead(y));
                for (r, f) in [
                    (x + y, a + b),
                    (x - y, a - b),
                    (x * y, a * b),
                    (x / y, a / b),
                ] {
                    assert_eq!(lead(r).is_nan(), f.is_nan(), "{x:?} {y:?} gave {r:?}");
                }
                let _ = x.partial_cmp(&y);
                let _ = x.total_cmp(&y);
                let _ = x == y;
            }
        }
        sink
    }};
}

#[test]
fn dd_never_panics_and_keeps_its_contracts() {
    // Every unary result, string and pair was produced (the count is of NaN results and
    // characters: it only shows the loops ran).
    assert!(sweep!(nasty_dd(), Dd, |v| v.hi) > 0);
}

#[test]
fn qd_never_panics_and_keeps_its_contracts() {
    assert!(sweep!(nasty_qd(), Qd, |v| v.c[0]) > 0);
}

#[test]
fn junk_strings_are_errors() {
    for s in [
        "",
        " ",
        "1e",
        "e5",
        "--1",
        "1.2.3",
        "0x10",
        "1_0",
        "nan1",
        "inf inity",
        "\u{661}",
    ] {
        assert!(s.parse::<Dd>().is_err(), "{s:?} parsed as dd");
        assert!(s.parse::<Qd>().is_err(), "{s:?} parsed as qd");
    }
    let err = "12a".parse::<Dd>().unwrap_err();
    assert!(
        err.to_string().contains("12a"),
        "the message names the input: {err}"
    );
}

/// `eft::pow2` and `eft::ldexp` are public and total (issue 11: `pow2(5000)` panicked in debug
/// builds and returned 2^904 in release). The reference walks the powers by exact halvings and
/// doublings: those are correctly rounded, so 2^-1075 (a tie) goes to zero and 2^1024 to +Inf.
#[test]
fn eft_pow2_and_ldexp_are_total() {
    use mpblas::eft::{ldexp, pow2};
    let mut want = 1.0f64;
    for e in 0..=1100 {
        assert_eq!(pow2(e).to_bits(), want.to_bits(), "pow2({e})");
        assert_eq!(ldexp(1.0, e).to_bits(), want.to_bits(), "ldexp(1, {e})");
        want *= 2.0;
    }
    let mut want = 1.0f64;
    for e in (-1100..=0).rev() {
        assert_eq!(pow2(e).to_bits(), want.to_bits(), "pow2({e})");
        assert_eq!(ldexp(1.0, e).to_bits(), want.to_bits(), "ldexp(1, {e})");
        want *= 0.5;
    }
    for e in [5000, 1024, i32::MAX, i32::MAX - 1023] {
        assert_eq!(pow2(e), f64::INFINITY, "pow2({e})");
    }
    for e in [-1075, -5000, i32::MIN, i32::MIN + 1022] {
        assert_eq!(pow2(e).to_bits(), 0, "pow2({e}) is +0");
    }
    // Specials and zeros come back as they are, at once, for any exponent.
    for x in [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
        for e in [i32::MIN, -2000, 0, 2000, i32::MAX] {
            let r = ldexp(x, e);
            assert!(
                r.to_bits() == x.to_bits() || (x.is_nan() && r.is_nan()),
                "ldexp({x}, {e})"
            );
        }
    }
    // Finite values saturate: overflow to ±Inf, underflow to ±0.
    assert_eq!(ldexp(-1.5, i32::MAX), f64::NEG_INFINITY);
    assert_eq!(ldexp(-1.5, i32::MIN).to_bits(), (-0.0f64).to_bits());
    assert_eq!(ldexp(f64::MAX, -2098), 5e-324); // (2 - 2^-52)·2^-1075 rounds up
}

/// Half the spacing above `Dd::MAX` (2^916) and above `Qd::MAX` (2^808) added to each: the
/// midpoints at and beyond which a decimal rounds to infinity (as IEEE rounds beyond
/// `f64::MAX + 2^970`), written out exactly.
const DD_OVERFLOW_TIE: &str = "179769313486231580793728971405302861122967852598716467785131470359127771185911005294487831129058778742716239096366639664398045891828486556532253039084544232945434348912718475655113974090487915243288914789514932543751487883090989298881814874481383224796159068182763646493476190015659136598635876751384831328256";
const QD_OVERFLOW_TIE: &str = "179769313486231580793728971405302861122967852598685716996200686305278797629172956684219456103338957980160948289949203436456115518941140431477554191439101912259735896907640246242225890547940207075960760277406390672879863054333858128805081207905972546473342948695420465293962191716625797242559769268806637060096";

/// The decimal `tie` (an integer) plus `delta` in its last digit (`tie` ends in a digit that
/// takes ±1 without a carry).
fn nudged(tie: &str, delta: i8) -> String {
    let (head, last) = tie.split_at(tie.len() - 1);
    let d = last.as_bytes()[0] as i8 - b'0' as i8 + delta;
    format!("{head}{d}")
}

/// Parsing at the overflow edge (issue 11): the greedy words of a decimal just above `Dd::MAX`
/// were `{f64::MAX, 2^970}`, above `Dd::MAX` and not normalised (`d + 0` was +Inf). Below the
/// midpoint above `MAX` the result is at most `MAX`, normalised; at and above it ±Inf.
#[test]
fn parsing_at_the_overflow_edge_is_normalised_or_infinite() {
    let dd_words = |d: Dd| (d.hi.to_bits(), d.lo.to_bits());
    let qd_words = |q: Qd| q.c.map(f64::to_bits);
    for sign in ["", "-"] {
        let neg = sign == "-";
        let (dd_max, qd_max) = if neg {
            (Dd::MIN, Qd::MIN)
        } else {
            (Dd::MAX, Qd::MAX)
        };
        let inf = if neg {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
        let below: Dd = format!("{sign}{}", nudged(DD_OVERFLOW_TIE, -1))
            .parse()
            .unwrap();
        assert_eq!(
            dd_words(below),
            dd_words(dd_max),
            "{sign} just below the dd midpoint"
        );
        assert_eq!(dd_words(below + Dd::ZERO), dd_words(below));
        for s in [
            DD_OVERFLOW_TIE.to_string(),
            nudged(DD_OVERFLOW_TIE, 1),
            "1.797693134862315807937289714053034e308".to_string(),
        ] {
            let d: Dd = format!("{sign}{s}").parse().unwrap();
            assert_eq!(dd_words(d), dd_words(Dd::new(inf, 0.0)), "{sign}{s}");
        }
        let below: Qd = format!("{sign}{}", nudged(QD_OVERFLOW_TIE, -1))
            .parse()
            .unwrap();
        assert_eq!(
            qd_words(below),
            qd_words(qd_max),
            "{sign} just below the qd midpoint"
        );
        assert_eq!(qd_words(below + Qd::ZERO), qd_words(below));
        // Qd's midpoint lies below Dd's (Qd::MAX's last word is far smaller than its spacing
        // at Dd's depth): between them a double-double is finite (Dd::MAX), a quad-double not.
        let between: Dd = format!("{sign}{QD_OVERFLOW_TIE}").parse().unwrap();
        assert_eq!(dd_words(between), dd_words(dd_max));
        let beyond: Qd = format!("{sign}{DD_OVERFLOW_TIE}").parse().unwrap();
        assert_eq!(qd_words(beyond), [inf.to_bits(), 0, 0, 0]);
        for s in [QD_OVERFLOW_TIE.to_string(), nudged(QD_OVERFLOW_TIE, 1)] {
            let q: Qd = format!("{sign}{s}").parse().unwrap();
            assert_eq!(qd_words(q), [inf.to_bits(), 0, 0, 0], "{sign}{s}");
        }
        // The largest values print in a form that parses back to them.
        for t in [format!("{dd_max}"), format!("{dd_max:e}")] {
            assert_eq!(dd_words(t.parse().unwrap()), dd_words(dd_max), "{t}");
        }
        let t = format!("{qd_max:e}");
        assert_eq!(qd_words(t.parse().unwrap()), qd_words(qd_max), "{t}");
    }
}

/// `rns::ExtF` is public with public fields: every function takes every exponent (they
/// overflowed `i64` in debug builds: `ExtF::new(x, i64::MAX)`, `ldexp`, products) and every
/// fraction (a negative, infinite or NaN one is the invalid value, carried on).
#[test]
fn extf_is_total() {
    use mpblas::rns::ExtF;
    let exps = [
        i64::MIN,
        i64::MIN + 1,
        -1 << 62,
        -1,
        0,
        1,
        1 << 62,
        i64::MAX - 1,
        i64::MAX,
    ];
    let fracs = [
        0.0,
        -0.0,
        0.5,
        0.75,
        1.0,
        3.0,
        5e-324,
        f64::MAX,
        -1.0,
        f64::INFINITY,
        f64::NAN,
    ];
    let mut all = Vec::new();
    for &x in &fracs {
        for &e in &exps {
            let v = ExtF::new(x, e);
            if x == 0.0 {
                assert_eq!((v.f.to_bits(), v.e), (0, 0), "new({x}, {e})");
            } else if x.is_sign_negative() || !x.is_finite() {
                assert!(v.f.is_nan(), "new({x}, {e}) is invalid: {v:?}");
            } else {
                assert!((0.5..1.0).contains(&v.f), "new({x}, {e}): {v:?}");
            }
            all.push(v);
        }
    }
    all.push(ExtF { f: -0.75, e: 3 }); // edited fields: not a valid bound either
    for &a in &all {
        for &k in &exps {
            let _ = (a.ldexp(k), a.floor_log2(), a.to_f64(), a.log2_approx());
        }
        for &b in &all {
            let r = [a.mul_rd(b), a.mul_ru(b), a.add_rd(b), a.add_ru(b)];
            if a.f.is_nan() || b.f.is_nan() {
                assert!(r.iter().all(|v| v.f.is_nan()), "{a:?} {b:?}: {r:?}");
            }
            let _ = a.cmp_total(&b);
        }
    }
    assert_eq!(ExtF::new(1.0, i64::MAX).e, i64::MAX, "saturates");
    assert_eq!(ExtF::new(5e-324, i64::MIN).e, i64::MIN, "saturates");
}

// ---- RNS -----------------------------------------------------------------------------------

use mpblas::rns::{Basis, EMAX, EMIN, MpArray, MpFloat};
use std::sync::Arc;

/// The precisions swept: the smallest basis, `f64`'s, double-double's and a wide one.
fn rns_bases() -> Vec<Arc<Basis>> {
    [mpblas::rns::MIN_PRECISION, 53, 106, 424]
        .into_iter()
        .map(|p| Basis::new(p).expect("precision in range"))
        .collect()
}

/// The top-bit position `t = e + bits` of `X·2^e` with `X` of `bits` bits, the exponent
/// exact (it may leave `i64`).
fn top_bit(exp: i64, bits: u32) -> i128 {
    exp as i128 + bits as i128
}

/// The range rule for a value of `bits` bits at exponent `exp`, of sign `neg`, rounded to `p`
/// bits (which can carry one position up): ±Inf when `t > EMAX`, ±0 when `t < EMIN − 1`,
/// finite nonzero with `t` or `t + 1` when `EMIN ≤ t < EMAX`.
fn check_range_rule(x: &MpFloat, neg: bool, exp: i64, bits: u32, what: &str) {
    let t = top_bit(exp, bits);
    let p = x.precision() as i128;
    assert!(!x.is_nan(), "{what}: NaN");
    assert_eq!(x.is_sign_negative(), neg, "{what}: sign");
    if t > EMAX as i128 {
        assert!(x.is_infinite(), "{what}: t = {t} > EMAX gives {x:?}");
    } else if t < EMIN as i128 - 1 {
        assert!(x.is_zero(), "{what}: t = {t} < EMIN gives {x:?}");
    } else if t >= EMIN as i128 && t < EMAX as i128 {
        assert!(x.is_finite() && !x.is_zero(), "{what}: t = {t} gives {x:?}");
        let got = x.exponent() as i128 + p;
        assert!(got == t || got == t + 1, "{what}: top bit {got}, want {t}");
    }
}

/// Exponents at every edge: the ends of `i64`, the RNS range's, `f64`'s, and 0.
fn edge_exponents() -> Vec<i64> {
    vec![
        i64::MIN,
        i64::MIN + 1,
        EMIN - 200,
        EMIN - 65,
        EMIN - 1,
        EMIN,
        -1075,
        -1,
        0,
        1023,
        EMAX - 64,
        EMAX - 1,
        EMAX,
        i64::MAX - 1,
        i64::MAX,
    ]
}

/// The nasty values of `basis`: specials, every nasty `f64`, integers at the edge exponents
/// (through `from_u64_exp` and `from_limbs`, each checked against the range rule), strings
/// beyond the range, and the ends of `Dd` and `Qd`.
fn nasty_rns(b: &Arc<Basis>) -> Vec<MpFloat> {
    let mut v = vec![
        MpFloat::zero(b, false),
        MpFloat::zero(b, true),
        MpFloat::infinity(b, false),
        MpFloat::infinity(b, true),
        MpFloat::nan(b),
    ];
    for x in nasty_f64() {
        let m = MpFloat::from_f64(b, x);
        assert_eq!(m.is_nan(), x.is_nan(), "from_f64({x})");
        v.push(m);
    }
    for (k, &exp) in edge_exponents().iter().enumerate() {
        let neg = k % 2 == 1;
        for m in [1u64, u64::MAX] {
            let x = MpFloat::from_u64_exp(b, neg, m, exp);
            check_range_rule(&x, neg, exp, 64 - m.leading_zeros(), "from_u64_exp");
            v.push(x);
        }
        let x = MpFloat::from_limbs(b, !neg, &[u64::MAX, 1], exp);
        check_range_rule(&x, !neg, exp, 65, "from_limbs");
        v.push(x);
    }
    for (s, class) in [
        // 10^(3·10^17) ≈ 2^(1.0·10^18) is inside EMAX = 2^60 ≈ 1.15·10^18; 10^(4·10^17) not.
        ("1e300000000000000000", "finite"),
        ("-2.5e-300000000000000000", "finite"),
        ("1e400000000000000000", "inf"),
        ("-2.5e-400000000000000000", "zero"),
        ("2.5e100000000", "finite"),
        ("-1e-100000000", "finite"),
    ] {
        let x = MpFloat::parse(b, s).expect("the grammar accepts it");
        let got = if x.is_infinite() {
            "inf"
        } else if x.is_zero() {
            "zero"
        } else {
            "finite"
        };
        assert_eq!(got, class, "{s} at {} bits: {x:?}", b.precision());
        assert_eq!(x.is_sign_negative(), s.starts_with('-'), "{s}");
        v.push(x);
    }
    v.extend([
        MpFloat::from_dd(b, Dd::MAX),
        MpFloat::from_qd(b, Qd::MIN_POSITIVE),
    ]);
    v
}

/// The IEEE stand-in of an RNS value for "must the result be NaN": NaN, ±Inf and ±0 as they
/// are, a finite nonzero value as ±1. IEEE's `+ − × ÷ √ fma` are NaN on exactly the same
/// classes and signs whatever the finite magnitudes (an overflow gives ±Inf, never NaN; `fma`
/// forms the exact product).
fn ieee_class(x: &MpFloat) -> f64 {
    let one = if x.is_sign_negative() { -1.0 } else { 1.0 };
    if x.is_nan() {
        f64::NAN
    } else if x.is_infinite() {
        one * f64::INFINITY
    } else if x.is_zero() {
        one * 0.0
    } else {
        one
    }
}

#[test]
fn rns_never_panics_and_keeps_its_contracts() {
    let bases = rns_bases();
    for (bi, b) in bases.iter().enumerate() {
        let other = &bases[(bi + 1) % bases.len()];
        let values = nasty_rns(b);
        let p = b.precision() as i64;
        for x in &values {
            let cx = ieee_class(x);
            // Unary operations, scaling, conversions.
            assert_eq!(x.sqrt().unwrap().is_nan(), cx.sqrt().is_nan(), "√{x:?}");
            assert_eq!(x.neg().is_nan(), x.is_nan());
            assert!(!x.abs().is_sign_negative());
            for k in [i64::MIN, -(1 << 61), -1, 0, 1, 1 << 61, i64::MAX] {
                let y = x.mul_pow2(k);
                assert_eq!(y.is_nan(), x.is_nan(), "{x:?}·2^{k}");
                if x.is_finite() && !x.is_zero() {
                    let t = x.exponent() as i128 + p as i128 + k as i128;
                    assert_eq!(y.is_infinite(), t > EMAX as i128, "{x:?}·2^{k}");
                    assert_eq!(y.is_zero(), t < EMIN as i128, "{x:?}·2^{k}");
                }
            }
            assert_eq!(x.round_to(other).is_nan(), x.is_nan());
            let f = x.to_f64();
            assert_eq!(f.is_nan(), x.is_nan(), "{x:?}");
            assert_eq!(x.to_dd().hi.to_bits(), f.to_bits(), "to_dd of {x:?}");
            assert_eq!(x.to_qd().c[0].to_bits(), f.to_bits(), "to_qd of {x:?}");
            assert_eq!(x.to_limbs().is_some(), x.is_finite());
            if x.is_finite() && !x.is_zero() {
                // |x| ∈ [2^(t−1), 2^t): beyond f64 above t = 1024, inside below it.
                let t = x.exponent() + p;
                if t != 1024 {
                    assert_eq!(f.is_infinite(), t > 1024, "{x:?} → {f}");
                }
            }
            // Printing: bounded length (plain notation writes at most 4096 zeros from the
            // magnitude, then switches to exponent notation) and a round trip at the same
            // precision.
            let digits = (p as usize * 3) / 10 + 2;
            for (s, most) in [
                (x.to_string(), 4096 + digits + 8),
                (format!("{x:e}"), digits + 30),
            ] {
                assert!(s.len() <= most, "{} characters: {s}", s.len());
                let back = MpFloat::parse(b, &s).expect("the crate's own output parses");
                assert!(
                    back.identical(x) || (x.is_nan() && back.is_nan()),
                    "{x:?} printed as {s} parses to {back:?}"
                );
            }
            assert!(x.add(&MpFloat::zero(other, false)).is_err(), "bases differ");
            for y in &values {
                let cy = ieee_class(y);
                let r = [
                    (x.add(y).unwrap(), cx + cy, "+"),
                    (x.sub(y).unwrap(), cx - cy, "-"),
                    (x.mul(y).unwrap(), cx * cy, "×"),
                    (x.div(y).unwrap(), cx / cy, "÷"),
                    (x.fma(y, x).unwrap(), cx.mul_add(cy, cx), "fma"),
                ];
                for (got, want, op) in r {
                    assert_eq!(got.is_nan(), want.is_nan(), "{x:?} {op} {y:?} = {got:?}");
                }
                let c = x.partial_cmp(y).unwrap();
                assert_eq!(c.is_none(), x.is_nan() || y.is_nan());
                let _ = x.total_cmp(y).unwrap();
            }
        }
        mparray_contracts(b, &values);
    }
}

/// Two silent wrong answers the grid above found (issue 11), kept as named cases:
/// `from_u64_exp` on a basis of two moduli (`M < 2^63`) took `u64::MAX` modulo `M`, and a value
/// near `EMIN` (or `EMAX`) printed as `0`: its decimal exponent came from an `f64` estimate
/// tens of digits off, and a zero digit string was accepted.
#[test]
fn rns_regressions_found_by_the_grid() {
    let b = Basis::new(mpblas::rns::MIN_PRECISION).unwrap();
    assert_eq!(b.len(), 2, "the smallest basis has two moduli");
    let x = MpFloat::from_u64_exp(&b, false, u64::MAX, 0);
    assert_eq!(
        x.to_f64(),
        2f64.powi(64),
        "u64::MAX rounded to {} bits",
        b.precision()
    );
    let x = MpFloat::from_u64_exp(&b, true, u64::MAX, -3);
    assert_eq!(x.to_f64(), -(2f64.powi(61)));
    for b in rns_bases() {
        for (m, exp) in [(3, EMIN), (3, EMIN + 40), (5, EMAX - 70), (1, EMAX - 1)] {
            let x = MpFloat::from_u64_exp(&b, true, m, exp);
            assert!(!x.is_zero() && x.is_finite());
            for s in [x.to_string(), format!("{x:e}"), format!("{x:.3e}")] {
                assert!(
                    s.starts_with("-") && s[1..].starts_with(|c| ('1'..='9').contains(&c)),
                    "{s}"
                );
            }
            let back = MpFloat::parse(&b, &format!("{x:e}")).unwrap();
            assert!(back.identical(&x), "{x:?} → {x:e} → {back:?}");
        }
    }
}

/// `MpArray` holds the grid exactly, and every edit of its public fields to something the
/// crate could not have made is an error from `get`, `to_mpfloats` and `to_f64` (issue 11:
/// `exp[0] = i64::MAX` made `get(0)?.to_f64()` overflow, and `to_mpfloats` dropped elements
/// it could not read).
fn mparray_contracts(b: &Arc<Basis>, values: &[MpFloat]) {
    let a = MpArray::from_mpfloats(b, values).expect("one basis");
    let back = a.to_mpfloats().expect("unedited");
    assert_eq!(back.len(), values.len());
    for (x, y) in back.iter().zip(values) {
        assert!(x.identical(y), "{x:?} vs {y:?}");
    }
    let f = a.to_f64().expect("unedited");
    assert!(
        f.iter()
            .zip(values)
            .all(|(u, v)| u.to_bits() == v.to_f64().to_bits())
    );
    let n = b.len();
    let p = b.precision() as i64;
    let (m0, len) = (b.moduli()[0], a.len());
    let refused = |e: &MpArray, i: usize, what: &str| {
        assert!(e.get(i).is_err(), "{what} of element {i} was accepted");
        assert!(e.to_mpfloats().is_err(), "{what}: to_mpfloats");
        assert!(e.to_f64().is_err(), "{what}: to_f64");
        assert!(e.to_qd().is_err(), "{what}: to_qd");
    };
    for (i, x) in values.iter().enumerate() {
        type Edit = fn(&mut MpArray, usize, usize, u32, usize);
        let edits: [(&str, Edit); 6] = [
            ("exp = i64::MAX", |e, i, _, _, _| e.exp[i] = i64::MAX),
            ("exp = i64::MIN", |e, i, _, _, _| e.exp[i] = i64::MIN),
            ("class = 3", |e, i, _, _, _| e.class[i] = 3),
            ("sign = 2", |e, i, _, _, _| e.sign[i] = 2),
            ("residue = modulus", |e, i, n, m0, _| e.digits[i * n] = m0),
            ("eval.e + 1", |e, i, _, _, len| e.eval[len + i].e += 1),
        ];
        for (what, edit) in edits {
            let mut e = a.clone();
            edit(&mut e, i, n, m0, len);
            if what == "eval.e + 1" && !x.is_finite() {
                continue; // a special's evaluation is never read
            }
            if what == "eval.e + 1" && x.is_zero() {
                // zero's evaluation [0, 0] stays 0 under ldexp-like edits of e: change f.
                e.eval[len + i] = mpblas::rns::ExtF::new(0.5, 0);
            }
            refused(&e, i, what);
        }
        if x.is_finite() && !x.is_zero() {
            let mut e = a.clone();
            e.digits[i * n] = (e.digits[i * n] + 1) % m0; // another significand
            refused(&e, i, "a residue");
            let mut e = a.clone();
            e.eval[i].f = f64::NAN;
            refused(&e, i, "eval = NaN");
            // Exponents inside the range are values the crate makes: the scaled number.
            for t in [EMIN, EMAX] {
                let mut e = a.clone();
                e.exp[i] = t - p;
                let want = x.mul_pow2(t - p - x.exponent());
                assert!(
                    e.get(i).expect("in range").identical(&want),
                    "exp → {t} − p"
                );
                e.exp[i] = t - p + if t == EMAX { 1 } else { -1 };
                refused(&e, i, "exp out of the range");
            }
        } else {
            let mut e = a.clone();
            e.digits[i * n] = 1; // a zero or special with a nonzero significand
            if x.is_finite() {
                refused(&e, i, "zero with a residue");
            }
        }
    }
}

// ---- BLAS level 1 ----------------------------------------------------------------------------

use mpblas::Scalar;
use mpblas::blas::level1 as blas;
use mpblas::view::{VecMut, VecRef};
use std::num::FpCategory;

/// What IEEE arithmetic in the format says of a sum of `terms` (each the product of a pair,
/// `None` for a pair with a NaN or `0·∞`), given whether a finite partial sum can overflow:
/// `Some(true)` NaN, `Some(false)` not NaN, `None` when overflow makes it order-dependent.
fn sum_is_nan(terms: &[Option<f64>], may_overflow: bool) -> Option<bool> {
    if terms.iter().any(Option::is_none) {
        return Some(true);
    }
    let infs: Vec<f64> = terms
        .iter()
        .flatten()
        .copied()
        .filter(|t| t.is_infinite())
        .collect();
    if infs.iter().any(|&t| t > 0.0) && infs.iter().any(|&t| t < 0.0) {
        return Some(true);
    }
    if may_overflow { None } else { Some(false) }
}

/// The class stand-in of `x` (NaN, ±Inf, ±0, ±1), as [`ieee_class`] for any format.
fn class_of<T: Scalar>(x: &T) -> f64 {
    let one = if x.nearest_f64().is_sign_negative() {
        -1.0
    } else {
        1.0
    };
    match x.class() {
        FpCategory::Nan => f64::NAN,
        FpCategory::Infinite => one * f64::INFINITY,
        FpCategory::Zero => one * 0.0,
        _ => one,
    }
}

/// The term `x·y` as IEEE forms it for "is the sum NaN": `None` for NaN or `0·∞`, the signed
/// infinity of an infinite factor, else a finite stand-in.
fn term(x: f64, y: f64) -> Option<f64> {
    let t = x * y;
    if t.is_nan() { None } else { Some(t) }
}

/// Level-1 contracts on every vector of length 1 and 2 over `vals` (and `y` from `ys`):
/// NaN exactly where IEEE arithmetic in the format gives it (see [`sum_is_nan`]; a single
/// addition or product of finite values overflows to ±∞, never to NaN); `nrm2` NaN
/// only for a NaN, `+∞` for an infinity, never overflowing for finite input; `asum` NaN only
/// for a NaN; `scal` and `axpy` element by element; `iamax` the first NaN or the first largest.
/// `log2_mag` is `log2|x|` of a finite nonzero value and `limit` the `log2` of the overflow
/// threshold, for telling whether a finite sum may overflow.
fn level1_contracts<T: Scalar>(
    ctx: &T::Ctx,
    vals: &[T],
    ys: &[T],
    log2_mag: impl Fn(&T) -> f64,
    limit: f64,
) {
    let mag = |x: &T| {
        if matches!(x.class(), FpCategory::Normal | FpCategory::Subnormal) {
            log2_mag(x)
        } else {
            f64::NEG_INFINITY
        }
    };
    let is_nan = |x: &T| x.class() == FpCategory::Nan;
    let one = T::one_in(ctx);
    let mut vectors: Vec<Vec<T>> = vals.iter().map(|x| vec![x.clone()]).collect();
    for x in vals {
        for y in vals {
            vectors.push(vec![x.clone(), y.clone()]);
        }
    }
    let mut ys_vectors: Vec<Vec<T>> = ys.iter().map(|y| vec![y.clone()]).collect();
    for a in ys {
        for b in ys {
            ys_vectors.push(vec![a.clone(), b.clone()]);
        }
    }
    for x in &vectors {
        let n = x.len();
        let cx: Vec<f64> = x.iter().map(class_of).collect();
        let any_nan = x.iter().any(is_nan);
        let what = format!("{} {x:?}", T::FORMAT);
        // sum and asum. At most two terms: one addition of finite values, which IEEE
        // overflows to ±∞, never to NaN.
        let s = blas::sum(VecRef::contiguous(x)).unwrap();
        let want = sum_is_nan(&cx.iter().map(|&c| term(c, 1.0)).collect::<Vec<_>>(), false);
        assert_eq!(Some(is_nan(&s)), want, "sum of {what} = {s:?}");
        let a = blas::asum(VecRef::contiguous(x)).unwrap();
        assert_eq!(is_nan(&a), any_nan, "asum of {what} = {a:?}");
        assert!(
            any_nan || !a.nearest_f64().is_sign_negative(),
            "asum of {what} = {a:?}"
        );
        // nrm2: Blue's accumulators never overflow for finite input.
        let r = blas::nrm2(VecRef::contiguous(x)).unwrap();
        assert_eq!(is_nan(&r), any_nan, "nrm2 of {what} = {r:?}");
        if !any_nan && x.iter().any(|v| v.class() == FpCategory::Infinite) {
            assert_eq!(r.class(), FpCategory::Infinite, "nrm2 of {what} = {r:?}");
        }
        // iamax: the first NaN, else the first of largest magnitude.
        let i = blas::iamax(VecRef::contiguous(x)).unwrap().expect("n > 0");
        match x.iter().position(is_nan) {
            Some(first) => assert_eq!(i, first, "iamax of {what}"),
            None => {
                let m = x[i].abs_ref();
                assert!(x.iter().all(|v| v.abs_ref() <= m), "iamax of {what}");
                assert!(x[..i].iter().all(|v| v.abs_ref() < m), "iamax of {what}");
            }
        }
        // scal: one product per element.
        for alpha in [&vals[0], &one] {
            let mut z = x.clone();
            blas::scal(alpha, VecMut::contiguous(&mut z)).unwrap();
            for (k, zk) in z.iter().enumerate() {
                let want = (class_of(alpha) * cx[k]).is_nan();
                assert_eq!(is_nan(zk), want, "scal {alpha:?} · {what}");
            }
        }
        for y in ys_vectors.iter().filter(|y| y.len() == n) {
            let cy: Vec<f64> = y.iter().map(class_of).collect();
            let terms: Vec<Option<f64>> = cx.iter().zip(&cy).map(|(&a, &b)| term(a, b)).collect();
            let big = x
                .iter()
                .zip(y)
                .map(|(a, b)| mag(a) + mag(b))
                .fold(f64::NEG_INFINITY, f64::max)
                + 2.0
                >= limit;
            let d = blas::dot(VecRef::contiguous(x), VecRef::contiguous(y)).unwrap();
            // One term: IEEE overflows to ±∞, never to NaN, whatever the order.
            let want = sum_is_nan(&terms, big && n > 1);
            if let Some(w) = want {
                assert_eq!(is_nan(&d), w, "dot of {what} and {y:?} = {d:?}");
            }
            // axpy with α = 1: y_k + x_k, one sum of two terms per element.
            let mut z = y.clone();
            blas::axpy(&one, VecRef::contiguous(x), VecMut::contiguous(&mut z)).unwrap();
            for k in 0..n {
                let pair = [term(cx[k], 1.0), term(cy[k], 1.0)];
                let want = sum_is_nan(&pair, false);
                assert_eq!(
                    Some(is_nan(&z[k])),
                    want,
                    "axpy: {:?} + {:?} = {:?}",
                    x[k],
                    y[k],
                    z[k]
                );
            }
        }
    }
}

#[test]
fn level1_blas_never_panics_and_propagates_nan_as_ieee() {
    let f = nasty_f64();
    let ys: Vec<f64> = vec![
        0.0,
        -1.0,
        1e300,
        f64::MAX,
        5e-324,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    level1_contracts::<f64>(&(), &f, &ys, |x| x.abs().log2(), 1024.0);
    let d: Vec<Dd> = nasty_dd();
    let dys: Vec<Dd> = ys.iter().map(|&v| Dd::from(v)).collect();
    level1_contracts::<Dd>(&(), &d, &dys, |x| x.hi.abs().log2(), 1024.0);
    let q: Vec<Qd> = nasty_qd();
    let qys: Vec<Qd> = ys.iter().map(|&v| Qd::from(v)).collect();
    level1_contracts::<Qd>(&(), &q, &qys, |x| x.c[0].abs().log2(), 1024.0);
    for b in [Basis::new(53).unwrap(), Basis::new(212).unwrap()] {
        let mut v: Vec<MpFloat> = f.iter().map(|&x| MpFloat::from_f64(&b, x)).collect();
        for exp in [EMIN, -(1 << 40), 1 << 40, EMAX - 200] {
            v.push(MpFloat::from_u64_exp(&b, false, 3, exp));
            v.push(MpFloat::from_u64_exp(&b, true, u64::MAX, exp));
        }
        let mut ry: Vec<MpFloat> = ys.iter().map(|&x| MpFloat::from_f64(&b, x)).collect();
        ry.push(MpFloat::from_u64_exp(&b, true, 1, EMAX - 100));
        let p = b.precision() as f64;
        level1_contracts::<MpFloat>(&b, &v, &ry, |x| x.exponent() as f64 + p, EMAX as f64);
    }
}
