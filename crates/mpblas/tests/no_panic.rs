//! No public function of `Dd` or `Qd` panics, on any finite or non-finite input: every
//! operation, function, conversion and formatting path is run on a grid of nasty values
//! (specials, range limits, subnormals, words far apart) and every pair of them, and what they
//! return is checked where IEEE or the crate's own contracts say what it must be: `+ − × ÷`
//! are NaN exactly when the `f64` operation on the leading words is, every normalised finite
//! value prints in a form that parses back to its very words, and parsing returns normalised
//! words (`x + 0 == x`). Random inputs for the same properties: `tests/fuzz_public.rs`.
//!
//! Run it in a debug build too (`cargo test -p mpblas --test no_panic`) to catch integer
//! overflow, which release builds do not check.

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
