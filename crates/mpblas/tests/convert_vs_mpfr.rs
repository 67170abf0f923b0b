//! Decimal conversion of `Dd` and `Qd` checked against MPFR (via `rug`).
//!
//! - parsing is the greedy correctly rounded expansion, bit for bit, on random strings, on
//!   strings at and next to rounding boundaries (ties), and on long strings where only a
//!   sticky digit far out decides;
//! - printing round-trips bit for bit (`{}` and `{:e}`), is shortest (neither neighbour with
//!   one digit less parses back), and with a precision matches MPFR's correctly rounded digits;
//! - flags, width and precision behave as for `f64`;
//! - junk is rejected with the right error and nothing panics.
//!
//! Conventions the oracle follows: zero words below the leading one are `+0.0` (MPFR's greedy
//! subtraction would carry the sign of a tiny negative remainder into a zero word).

// The shared oracle writes `!(err <= bound)` on purpose, so that a NaN error fails.
mod oracle;

use mpblas::{Dd, ParseErrorKind, Qd};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use rug::ops::Pow;
use rug::{Float, Integer, Rational};

/// Precision at which MPFR parses random short strings: far more than any rounding boundary
/// of a `Dd`/`Qd` word needs (they span at most 2100 bits).
const PARSE_PREC: u32 = 4000;

// ---------------------------------------------------------------------------------------------
// Oracles and helpers

/// MPFR's greedy expansion of the decimal `s`, parsed at `prec` bits: `w_k = RN(r_k)`,
/// `r_{k+1} = r_k − w_k` (exact at that precision).
fn mpfr_greedy<const N: usize>(s: &str, prec: u32) -> [f64; N] {
    let parsed = Float::parse(s).unwrap_or_else(|e| panic!("MPFR cannot parse {s:?}: {e}"));
    let mut r = Float::with_val(prec, parsed);
    let mut out = [0.0; N];
    for (k, w) in out.iter_mut().enumerate() {
        let x = r.to_f64();
        *w = if k > 0 && x == 0.0 { 0.0 } else { x };
        if !x.is_finite() {
            break;
        }
        r -= x;
    }
    canonical(out)
}

/// The words the parser returns for greedy words `w`: every pair normalised,
/// `RN(w_k + w_k+1) = w_k` (different from `w` only at a tie, where the odd word moves to its
/// even neighbour and the next word changes sign; issue 11), the form the formats' own
/// renormalisations leave. Pairs from the bottom until nothing moves.
fn canonical<const N: usize>(mut w: [f64; N]) -> [f64; N] {
    if !w.iter().all(|x| x.is_finite()) {
        return w;
    }
    loop {
        let mut moved = false;
        for k in (1..N).rev() {
            let s = w[k - 1] + w[k];
            if w[k] != 0.0 && s != w[k - 1] {
                let e = w[k] - (s - w[k - 1]);
                w[k - 1] = s;
                w[k] = e;
                moved = true;
            }
        }
        if !moved {
            return w;
        }
    }
}

/// The greedy expansion of an exact binary value (used to tell canonical expansions).
fn greedy_of_exact<const N: usize>(v: &Float) -> [f64; N] {
    let mut r = v.clone();
    let mut out = [0.0; N];
    for (k, w) in out.iter_mut().enumerate() {
        let x = r.to_f64();
        *w = if k > 0 && x == 0.0 { 0.0 } else { x };
        r -= x;
    }
    out
}

fn bits<const N: usize>(w: [f64; N]) -> [u64; N] {
    w.map(f64::to_bits)
}

fn dd_words(x: Dd) -> [f64; 2] {
    [x.hi, x.lo]
}

/// TwoSum (Knuth), for building normalised test values without the library's arithmetic.
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// Renormalises four words with bottom-up TwoSum sweeps until none changes anything: then
/// `c[i] == fl(c[i] + c[i+1])` for every i (the `Qd` invariant) and the sum is unchanged.
fn qd_renorm(mut c: [f64; 4]) -> Qd {
    for _ in 0..64 {
        let before = c;
        for i in (1..4).rev() {
            let (s, e) = two_sum(c[i - 1], c[i]);
            c[i - 1] = s;
            c[i] = e;
        }
        if bits(before) == bits(c) {
            break;
        }
    }
    Qd { c }
}

/// A random finite `f64` from raw bits, with the exponent field forced into `0..=2046`; one
/// in eight is a power of two (where the rounding interval below is half the one above).
fn finite_from_bits(b: u64) -> f64 {
    let exp = ((b >> 52) & 0x7ff) % 2047;
    let frac = if b & 7 == 0 { 0 } else { b & ((1 << 52) - 1) };
    f64::from_bits((b & (1 << 63)) | (exp << 52) | frac)
}

/// A random word below `above`: typically `|w| ≲ 2^-53·|above|` (a full-precision lower word),
/// or exactly half an ulp of `above` (a tie), or a power of two, or anything far below down to
/// the subnormals, or 0.
fn lower_word(above: f64, r: u64, s: u64) -> f64 {
    let sign = if (r >> 40) & 1 == 1 { -1.0 } else { 1.0 };
    match r % 10 {
        0 => 0.0,
        1..=4 => {
            let u = (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
            above * f64::EPSILON * 0.5 * u
        }
        5 => sign * ulp(above).to_f64() * 0.5,
        6 => sign * ulp(above).to_f64() * 2f64.powi(-((s % 80) as i32)),
        _ => {
            let top = ((above.to_bits() >> 52) & 0x7ff).saturating_sub(54);
            let exp = if top == 0 { 0 } else { s % top };
            sign * f64::from_bits((exp << 52) | (s >> 12))
        }
    }
}

fn random_dd(v: [u64; 4]) -> Option<Dd> {
    let hi = finite_from_bits(v[0]);
    let x = Dd::new(hi, lower_word(hi, v[1], v[2]));
    x.is_finite().then_some(x)
}

fn random_qd(v: [u64; 8]) -> Option<Qd> {
    let c0 = finite_from_bits(v[0]);
    let c1 = lower_word(c0, v[1], v[2]);
    let c2 = lower_word(if c1 == 0.0 { c0 } else { c1 }, v[3], v[4]);
    let c3 = lower_word(if c2 == 0.0 { c0 } else { c2 }, v[5], v[6]);
    let x = qd_renorm([c0, c1, c2, c3]);
    x.c.iter().all(|w| w.is_finite()).then_some(x)
}

/// The exact decimal string of a dyadic MPFR value (`D e E`, no rounding).
fn exact_decimal(v: &Float) -> (Integer, i64) {
    let (int, exp) = v.to_integer_exp().expect("finite");
    if exp >= 0 {
        (int << exp.unsigned_abs(), 0)
    } else {
        (
            int * Integer::from(5).pow(exp.unsigned_abs()),
            i64::from(exp),
        )
    }
}

/// `ulp(w)`: the spacing of f64 just above `|w|` (2^-1074 for zero and subnormals).
fn ulp(w: f64) -> Float {
    let e = ((w.to_bits() >> 52) & 0x7ff) as i32;
    let last = if e == 0 { -1074 } else { e - 1075 };
    Float::with_val(64, 1) << last
}

/// Sign, significant digits and decimal exponent of the leading digit, from any of
/// `1.25e-7`, `-0.000125`, `125.5`, `1.2e+3` (ours and MPFR's layouts).
fn normalise(s: &str) -> (bool, String, i64) {
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let (mant, exp) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], s[i + 1..].parse::<i64>().expect("exponent")),
        None => (s, 0),
    };
    let point = mant.find('.').unwrap_or(mant.len()) as i64;
    let all: String = mant.chars().filter(|c| *c != '.').collect();
    let lead = all.find(|c: char| c != '0').unwrap_or(all.len());
    let digits = all[lead..].to_string();
    (neg, digits, exp + point - 1 - lead as i64)
}

// ---------------------------------------------------------------------------------------------
// (a) parsing is correctly rounded

fn decimal_string() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(0u8..10, 1..=60),
        any::<(bool, bool, bool, bool)>(),
        any::<u8>(),
        -330i32..=310,
    )
        .prop_map(|(digits, (neg, upper, plus, has_point), pos, exp)| {
            let mut s = String::new();
            if neg {
                s.push('-');
            }
            let digits: String = digits.iter().map(|d| char::from(b'0' + d)).collect();
            if has_point {
                let p = usize::from(pos) % (digits.len() + 1);
                s.push_str(&digits[..p]);
                s.push('.');
                s.push_str(&digits[p..]);
                if p == 0 && digits.len() == 1 && s.ends_with('.') {
                    s.push('0');
                }
            } else {
                s.push_str(&digits);
            }
            s.push(if upper { 'E' } else { 'e' });
            if plus && exp >= 0 {
                s.push('+');
            }
            s.push_str(&exp.to_string());
            s
        })
}

#[test]
fn parse_random_strings_matches_mpfr_greedy() {
    let mut runner = oracle::runner(12_000);
    let specials = std::cell::Cell::new([0u32; 3]); // zeros, infinities, subnormal words seen
    runner
        .run(&decimal_string(), |s| {
            let want2 = mpfr_greedy::<2>(&s, PARSE_PREC);
            let want4 = mpfr_greedy::<4>(&s, PARSE_PREC);
            let dd: Dd = s.parse().map_err(|e| TestCaseError::fail(format!("{e}")))?;
            let qd: Qd = s.parse().map_err(|e| TestCaseError::fail(format!("{e}")))?;
            prop_assert_eq!(bits(dd_words(dd)), bits(want2), "dd from {:?}", s);
            prop_assert_eq!(bits(qd.c), bits(want4), "qd from {:?}", s);
            // Whatever parsing returns prints back to itself, in no more digits than it came in.
            if dd.hi.is_finite() {
                let digits_in = normalise(&s).1.trim_end_matches('0').len().max(1);
                for out in [format!("{dd:e}"), format!("{qd:e}")] {
                    let n = normalise(&out).1.len();
                    prop_assert!(n <= digits_in, "{} printed back as {}", s, out);
                }
                let back: Dd = dd
                    .to_string()
                    .parse()
                    .map_err(|e| TestCaseError::fail(format!("{e}")))?;
                prop_assert_eq!(bits(dd_words(back)), bits(dd_words(dd)), "{}", s);
                let back: Qd = qd
                    .to_string()
                    .parse()
                    .map_err(|e| TestCaseError::fail(format!("{e}")))?;
                prop_assert_eq!(bits(back.c), bits(qd.c), "{}", s);
            }
            let mut seen = specials.get();
            seen[0] += u32::from(want2[0] == 0.0);
            seen[1] += u32::from(want2[0].is_infinite());
            seen[2] += u32::from(want4.iter().any(|w| w.is_subnormal()));
            specials.set(seen);
            Ok(())
        })
        .unwrap();
    let seen = specials.get();
    println!(
        "zeros {}, infinities {}, subnormal words {}",
        seen[0], seen[1], seen[2]
    );
    assert!(
        seen.iter().all(|&n| n > 10),
        "random strings miss the edges: {seen:?}"
    );
}

/// Strings exactly at a rounding boundary of some word (a tie), one unit of their last digit
/// either side, and the tie followed by a long run of zeros and a final 1 (beyond the 1500
/// digits the parser keeps exactly, so only the sticky digit breaks the tie).
#[test]
fn parse_ties_and_sticky_digits_match_mpfr() {
    fn check<const N: usize>(words: &[f64], k: usize, upper: bool) -> Result<(), TestCaseError> {
        let mut m = oracle::exact(&words[..k]);
        let half = ulp(words[k]) >> 1u32;
        m += words[k];
        if upper {
            m += &half;
        } else {
            m -= &half;
        }
        let (d, e) = exact_decimal(&m);
        let tie = format!("{d}e{e}");
        let above = format!("{}e{e}", Integer::from(&d + 1));
        let below = format!("{}e{e}", Integer::from(&d - 1));
        let sticky = format!("{d}{}1e{}", "0".repeat(1600), e - 1601);
        for s in [&tie, &above, &below, &sticky] {
            let prec = (s.len() as u32 * 4 + 256).max(PARSE_PREC);
            let want = mpfr_greedy::<N>(s, prec);
            // Parse, and check that what was parsed prints back to itself (these words sit
            // at the ends of their rounding intervals, where printing is most delicate).
            let fail = |e: mpblas::ParseError| TestCaseError::fail(format!("{e}"));
            let (got, back) = if N == 2 {
                let x: Dd = s.parse().map_err(fail)?;
                let y: Dd = format!("{x:e}").parse().map_err(fail)?;
                (vec![x.hi, x.lo], vec![y.hi, y.lo])
            } else {
                let x: Qd = s.parse().map_err(fail)?;
                let y: Qd = format!("{x:e}").parse().map_err(fail)?;
                (x.c.to_vec(), y.c.to_vec())
            };
            if got[0].is_finite() {
                let same = got
                    .iter()
                    .zip(&back)
                    .all(|(a, b)| a.to_bits() == b.to_bits());
                prop_assert!(same, "{:?} from {} printed back as {:?}", got, s, back);
            }
            let got: Vec<u64> = got.iter().map(|w| w.to_bits()).collect();
            prop_assert_eq!(
                got,
                bits(want).to_vec(),
                "word {} of {:?} from {}",
                k,
                words,
                s
            );
        }
        Ok(())
    }
    let mut runner = oracle::runner(1_500);
    runner
        .run(&any::<([u64; 8], u8)>(), |(v, sel)| {
            let k = usize::from(sel >> 1);
            let upper = sel & 1 == 1;
            if let Some(x) = random_dd([v[0], v[1], v[2], v[3]]) {
                check::<2>(&dd_words(x), k % 2, upper)?;
            }
            if let Some(x) = random_qd(v) {
                check::<4>(&x.c, k % 4, upper)?;
            }
            Ok(())
        })
        .unwrap();
}

// ---------------------------------------------------------------------------------------------
// (b) printing round-trips and is shortest

/// MPFR's correctly rounded (to nearest) `n`-significant-digit decimal of `v`, `n ≥ 2`.
fn mpfr_digits(v: &Float, n: usize) -> String {
    format!("{v:.n$e}")
}

/// Neither (n−1)-digit neighbour of `x` (below, above) parses back to `words`. `J` (the
/// strings that parse back) is an interval around `x`, so if any (n−1)-digit decimal were in
/// it, one of these two would be too. The neighbours are among the nearest (n−1)-digit
/// decimal `r` and `r ± 1` unit in its last place; all three are tried. Then, among the n-digit
/// decimals that parse back, the output is the nearest to `x` (exact rational comparison).
fn assert_shortest<const N: usize>(
    words: [f64; N],
    out: &str,
    parse: impl Fn(&str) -> [f64; N],
) -> Result<(), TestCaseError> {
    let (neg, digits, exp) = normalise(out);
    let n = digits.len();
    let sign = if neg { "-" } else { "" };
    let exact = oracle::exact(&words);
    if n > 2 {
        let (_, near, near_exp) = normalise(&mpfr_digits(&exact, n - 1));
        let near: Integer = near.parse().expect("digits");
        for m in [
            Integer::from(&near - 1),
            near.clone(),
            Integer::from(&near + 1),
        ] {
            let s = format!("{sign}{m}e{}", near_exp - (n as i64 - 2));
            prop_assert_ne!(
                bits(parse(&s)),
                bits(words),
                "{} is not shortest: {} parses back too",
                out,
                s
            );
        }
    }
    let x = exact.to_rational().expect("finite");
    let last = exp - (n as i64 - 1);
    let value = |m: &Integer| {
        let p = Rational::from(Integer::from(10).pow(last.unsigned_abs() as u32));
        let m = Rational::from(if neg { Integer::from(-m) } else { m.clone() });
        if last >= 0 { m * p } else { m / p }
    };
    let m: Integer = digits.parse().expect("digits");
    let dist = (value(&m) - &x).abs();
    for other in [Integer::from(&m - 1), Integer::from(&m + 1)] {
        let s = format!("{sign}{other}e{last}");
        if bits(parse(&s)) == bits(words) {
            let d = (value(&other) - &x).abs();
            prop_assert!(d >= dist, "{} is nearer to {:?} than {}", s, words, out);
        }
    }
    Ok(())
}

#[test]
fn dd_round_trips_and_is_shortest() {
    let mut runner = oracle::runner(10_000);
    let max_len = std::cell::Cell::new(0);
    let zeros = [
        Dd::ZERO,
        Dd::new(-0.0, 0.0),
        Dd::from_f64(-0.0),
        Dd::MAX,
        Dd::MIN,
    ];
    let parse = |s: &str| dd_words(s.parse::<Dd>().expect("own output parses"));
    for x in zeros {
        for s in [format!("{x}"), format!("{x:e}"), format!("{x:E}")] {
            assert_eq!(bits(parse(&s)), bits(dd_words(x)), "{s}");
        }
    }
    runner
        .run(&any::<[u64; 4]>(), |v| {
            let Some(x) = random_dd(v) else {
                return Ok(());
            };
            let w = dd_words(x);
            for s in [format!("{x}"), format!("{x:e}"), format!("{x:E}")] {
                prop_assert_eq!(bits(parse(&s)), bits(w), "{:?} printed as {}", x, s);
                max_len.set(max_len.get().max(s.len()));
            }
            assert_shortest(w, &format!("{x:e}"), parse)
        })
        .unwrap();
    println!("longest dd output: {} characters", max_len.get());
}

#[test]
fn qd_round_trips_and_is_shortest() {
    let mut runner = oracle::runner(10_000);
    let non_canonical = std::cell::Cell::new(0);
    let parse = |s: &str| s.parse::<Qd>().expect("own output parses").c;
    runner
        .run(&any::<[u64; 8]>(), |v| {
            let Some(x) = random_qd(v) else {
                return Ok(());
            };
            let canonical = bits(greedy_of_exact::<4>(&oracle::exact(&x.c))) == bits(x.c);
            for s in [format!("{x}"), format!("{x:e}")] {
                let back = parse(&s);
                if canonical {
                    prop_assert_eq!(bits(back), bits(x.c), "{:?} printed as {}", x, s);
                } else if bits(back) != bits(x.c) {
                    // The words are not the greedy expansion of their sum. If no string
                    // parses to them either, the exact value is printed and must survive.
                    non_canonical.set(non_canonical.get() + 1);
                    prop_assert_eq!(oracle::exact(&back), oracle::exact(&x.c), "{}", s);
                }
            }
            if canonical {
                assert_shortest(x.c, &format!("{x:e}"), parse)?;
            }
            Ok(())
        })
        .unwrap();
    println!(
        "qd outputs of words that are nobody's greedy expansion: {}",
        non_canonical.get()
    );
}

/// Short decimals (`7e46`, `25e-300`) are often exactly at an end of the rounding interval of
/// the last word: `5^k` odd makes `m·10^k` a tie. Such a decimal must print back as itself (or
/// shorter), and the neighbours one ulp of the last word away, whose interval excludes that end,
/// must still round-trip: this exercises the open/closed ends of `J`.
#[test]
fn short_decimals_and_their_neighbours_round_trip() {
    fn check<const N: usize>(
        s: &str,
        parse: impl Fn(&str) -> [f64; N],
        show: impl Fn([f64; N]) -> (String, String),
    ) -> Result<(), TestCaseError> {
        let x = parse(s);
        if !x[0].is_finite() {
            return Ok(());
        }
        let (plain, exp) = show(x);
        prop_assert!(
            normalise(&exp).1.len() <= normalise(s).1.len(),
            "{} printed as {}",
            s,
            exp
        );
        prop_assert_eq!(bits(parse(&plain)), bits(x));
        for step in [f64::next_up, f64::next_down] {
            let mut y = x;
            y[N - 1] = step(y[N - 1]);
            if bits(greedy_of_exact::<N>(&oracle::exact(&y))) != bits(y) {
                continue;
            }
            let (plain, exp) = show(y);
            prop_assert_eq!(bits(parse(&plain)), bits(y), "{:?} printed as {}", y, plain);
            prop_assert_eq!(bits(parse(&exp)), bits(y), "{:?} printed as {}", y, exp);
        }
        Ok(())
    }
    let mut runner = oracle::runner(4_000);
    runner
        .run(&(1u32..1000, -330i32..310), |(m, e)| {
            let s = format!("{m}e{e}");
            check::<2>(
                &s,
                |t| dd_words(t.parse::<Dd>().expect("parses")),
                |[hi, lo]| (format!("{}", Dd { hi, lo }), format!("{:e}", Dd { hi, lo })),
            )?;
            check::<4>(
                &s,
                |t| t.parse::<Qd>().expect("parses").c,
                |c| (format!("{}", Qd { c }), format!("{:e}", Qd { c })),
            )
        })
        .unwrap();
}

#[test]
fn non_greedy_words_print_their_exact_value() {
    // Normalised pairwise (1 + 2^-53 ties to 1) but the sum rounds up: no string's greedy
    // expansion is these words, but that of their twin (1 + 2^-52, −2^-53, 2^-110) is.
    let x = Qd {
        c: [1.0, 2f64.powi(-53), 2f64.powi(-110), 0.0],
    };
    // Since issue 11 the parser returns that very form (what the quad-double arithmetic leaves:
    // pairwise normalised, the tie of 1 + 2^-53 on the even word), so it prints and parses back
    // to itself.
    let back: Qd = x.to_string().parse().unwrap();
    assert_eq!(oracle::exact(&back.c), oracle::exact(&x.c));
    assert_eq!(bits(back.c), bits(x.c));
    assert_eq!(bits((x + Qd::ZERO).c), bits(x.c));
    // A hand-built, non-normalised Dd.
    let y = Dd { hi: 1.0, lo: 1.0 };
    assert_eq!(y.to_string(), "2");
}

#[test]
fn documented_examples() {
    // A low word far below the high one needs every digit down to it.
    let x = Dd::new(1.0, 1e-300);
    let s = x.to_string();
    assert!(s.len() > 300 && s.starts_with("1.000000"), "{s}");
    assert_eq!(
        s.parse::<Dd>().map(dd_words).map(bits),
        Ok(bits(dd_words(x)))
    );
    // f64 values as Dd pin lo = 0, so their exact value is the shortest string: 1e300 prints
    // as its 301-digit integer, exactly what f64 prints with precision 0.
    assert_eq!(format!("{}", Dd::from(1e300)), format!("{:.0}", 1e300));
    assert_eq!(format!("{}", Dd::from(0.1)), format!("{:.55}", 0.1));
    assert_eq!(format!("{:e}", Dd::from(0.5)), "5e-1");
    assert_eq!(format!("{}", Dd::from(-0.0)), "-0");
    assert_eq!(format!("{:e}", Dd::ZERO), "0e0");
    // The exact value of the f64 nearest 1.5e-7 has 68 significant digits.
    assert_eq!(
        format!("{:E}", Dd::from(-1.5e-7)),
        format!("{:.67E}", -1.5e-7)
    );
    // A decimal's own greedy expansion prints back as that decimal.
    let tenth: Dd = "0.1".parse().unwrap();
    assert_eq!(tenth.to_string(), "0.1");
    assert_eq!(format!("{tenth:e}"), "1e-1");
    let third: Qd = format!("0.{}", "3".repeat(70)).parse().unwrap();
    let s = third.to_string();
    assert!(s.len() <= 72 && s.len() > 60, "{s}");
    assert_eq!(bits(s.parse::<Qd>().unwrap().c), bits(third.c));
}

// ---------------------------------------------------------------------------------------------
// (c) correctly rounded output at a given precision

#[test]
fn precision_output_matches_mpfr_rounding() {
    let mut runner = oracle::runner(6_000);
    runner
        .run(&any::<[u64; 8]>(), |v| {
            let mut cases: Vec<(String, String, Float)> = Vec::new();
            if let Some(x) = random_dd([v[0], v[1], v[2], v[3]]) {
                cases.push((
                    format!("{x:.20e}"),
                    format!("{x:.33E}"),
                    oracle::exact(&dd_words(x)),
                ));
            }
            if let Some(x) = random_qd(v) {
                cases.push((
                    format!("{x:.20e}"),
                    format!("{x:.66E}"),
                    oracle::exact(&x.c),
                ));
            }
            for (short, long, exact) in cases {
                for (got, n) in [(short, 21), (long, 0)] {
                    let n = if n == 0 { normalise(&got).1.len() } else { n };
                    let want = mpfr_digits(&exact, n);
                    let (gn, gd, ge) = normalise(&got);
                    let (wn, wd, we) = normalise(&want);
                    if exact.is_zero() {
                        prop_assert!(gd.is_empty(), "zero printed as {}", got);
                        continue;
                    }
                    prop_assert_eq!((gn, &gd, ge), (wn, &wd, we), "{} vs MPFR {}", got, want);
                    prop_assert_eq!(gd.len(), n);
                }
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn fixed_precision_matches_mpfr_rounding() {
    // {:.30} on values of moderate size: compare with round-half-even(x · 10^30) from MPFR.
    let mut runner = oracle::runner(3_000);
    runner
        .run(
            &(any::<[u64; 4]>(), -40i32..40, 0usize..45),
            |(v, e, prec)| {
                let hi = f64::from_bits((v[0] >> 12) | (1023u64 << 52)) * 2f64.powi(e * 3);
                let hi = if v[3] & 1 == 1 { -hi } else { hi };
                let x = Dd::new(hi, lower_word(hi, v[1], v[2]));
                let got = format!("{x:.prec$}");
                let scaled = oracle::exact(&dd_words(x)) * Integer::from(10).pow(prec as u32);
                let int = Float::with_val(oracle::EXACT_PREC + 200, scaled).round_even();
                let int = int.to_integer().expect("finite");
                let neg = got.starts_with('-');
                let digits: String = got.chars().filter(|c| c.is_ascii_digit()).collect();
                let frac_len = got.split('.').nth(1).map_or(0, str::len);
                prop_assert_eq!(frac_len, prec, "{}", got);
                let want = int.abs().to_string();
                prop_assert_eq!(
                    digits.trim_start_matches('0'),
                    want.trim_start_matches('0'),
                    "{:?} printed {}",
                    x,
                    got
                );
                prop_assert_eq!(neg, x.hi < 0.0, "sign of {}", got);
                Ok(())
            },
        )
        .unwrap();
}

/// With a precision, `Dd::from(x)` prints exactly as `x` does (both are correctly rounded from
/// the same exact value), for every flag, width and alignment; specials always do.
#[test]
fn flags_width_and_specials_mirror_f64() {
    let values = [
        0.0,
        -0.0,
        1.0,
        -1.5,
        0.125,
        2.5,
        -9.999,
        1e300,
        -1e-300,
        f64::MAX,
        f64::MIN_POSITIVE,
        -5e-324,
        123456.789,
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    macro_rules! same {
        ($x:expr, $($fmt:literal),*) => {$(
            assert_eq!(format!($fmt, Dd::from($x)), format!($fmt, $x), "format {} of {}", $fmt, $x);
            assert_eq!(format!($fmt, Qd::from_f64($x)), format!($fmt, $x), "format {} of {}", $fmt, $x);
        )*};
    }
    for x in values {
        same!(
            x,
            "{:.3}",
            "{:+.0}",
            "{:>20.5}",
            "{:<20.5e}",
            "{:^21.2E}",
            "{:*^30.4}"
        );
        same!(
            x,
            "{:020.3}",
            "{:+020.3e}",
            "{:.0e}",
            "{:.25}",
            "{:.40e}",
            "{:-<9.1}"
        );
        same!(x, "{:.0}", "{:.400}", "{:.60e}");
        if !x.is_finite() {
            same!(x, "{}", "{:e}", "{:E}", "{:>8}", "{:+}", "{:08}", "{:<6}");
        }
    }
    // Without a precision the digits differ from f64's (more are needed to pin the low word),
    // but signs, padding and layout follow the same rules.
    assert_eq!(format!("{:+}", Dd::from(2.0)), "+2");
    assert_eq!(format!("{:>6}", Dd::from(-2.0)), "    -2");
    assert_eq!(format!("{:06}", Dd::from(-2.0)), "-00002");
    assert_eq!(format!("{:^7e}", Dd::from(0.25)), "2.5e-1 ");
    assert_eq!(format!("{:^8e}", Dd::from(0.25)), " 2.5e-1 ");
    assert_eq!(format!("{:_<6}", Dd::from(0.5)), "0.5___");
}

// ---------------------------------------------------------------------------------------------
// (d) junk and extremes: errors or the right value, never a panic

#[test]
fn junk_is_rejected_with_the_right_kind() {
    use ParseErrorKind::*;
    let cases: &[(&str, ParseErrorKind)] = &[
        ("", Empty),
        (" ", Empty),
        ("\t\n", Empty),
        ("1e", InvalidExponent),
        ("1e+", InvalidExponent),
        ("1e5x", InvalidExponent),
        ("1e1.5", InvalidExponent),
        ("e5", NoDigits),
        (".", NoDigits),
        ("+", NoDigits),
        ("-.e1", NoDigits),
        ("--1", InvalidDigit),
        ("+-1", InvalidDigit),
        ("1.2.3", InvalidDigit),
        ("0x10", InvalidDigit),
        ("1_000", InvalidDigit),
        ("nan1", InvalidDigit),
        ("infinit", InvalidDigit),
        ("inf inity", InvalidDigit),
        ("1 2", InvalidDigit),
        ("١٢", InvalidDigit),
        ("1١", InvalidDigit),
        ("½", InvalidDigit),
    ];
    for &(s, kind) in cases {
        let e = s.parse::<Dd>().expect_err(s);
        assert_eq!((e.kind, e.format), (kind, "dd"), "{s:?}");
        assert!(s.parse::<f64>().is_err(), "f64 accepts {s:?}");
        let e = s.parse::<Qd>().expect_err(s);
        assert_eq!((e.kind, e.format), (kind, "qd"), "{s:?}");
        assert!(!e.to_string().is_empty());
    }
    // The error keeps a short copy of the input.
    let long = "x".repeat(10_000);
    assert!(long.parse::<Dd>().unwrap_err().input.len() <= 64);
}

#[test]
fn accepted_forms_match_f64() {
    for s in [
        "1.",
        ".5",
        "1.e5",
        "+inf",
        "-Infinity",
        "NaN",
        "+nan",
        "inFINITY",
        "1E+5",
        "  7 ",
        "-0",
        "+0.0e-999",
        "00012.50",
        "0.000",
        "5e-324",
        "2.4703282292062328e-324",
        "2.4703282292062327e-324",
        "1.7976931348623158e308",
        "1.7976931348623159e308",
    ] {
        let want = s.trim().parse::<f64>().unwrap();
        let d: Dd = s.parse().unwrap();
        let q: Qd = s.parse().unwrap();
        if want.is_nan() {
            assert!(d.hi.is_nan() && q.c[0].is_nan(), "{s:?}");
            assert_eq!(d.hi.is_sign_negative(), want.is_sign_negative());
        } else {
            assert_eq!(d.hi.to_bits(), want.to_bits(), "{s:?}");
            assert_eq!(q.c[0].to_bits(), want.to_bits(), "{s:?}");
        }
    }
    let z: Dd = "-0".parse().unwrap();
    assert_eq!((z.hi.to_bits(), z.lo.to_bits()), ((-0.0f64).to_bits(), 0));
}

#[test]
fn extreme_inputs_do_not_panic() {
    let inf: Dd = "1e99999999999999999999".parse().unwrap();
    assert_eq!((inf.hi, inf.lo), (f64::INFINITY, 0.0));
    let z: Qd = "-1e-99999999999".parse().unwrap();
    assert_eq!(z.c[0].to_bits(), (-0.0f64).to_bits());
    assert_eq!(&z.c[1..], &[0.0; 3]);
    let z: Dd = "0e99999999999999999999999999".parse().unwrap();
    assert_eq!(z.hi.to_bits(), 0);
    let tiny_digits_big_exp = format!("0.{}1e99999", "0".repeat(99_990));
    assert_eq!(tiny_digits_big_exp.parse::<Dd>().unwrap().hi, 1e8);

    // 100,000 digits: π-like pseudo-random digits, compared with MPFR on the first 2000 plus
    // a sticky 1 (the parser keeps 1500 and only the sticky part of the rest matters).
    let mut state = 12345u64;
    let mut digits = String::with_capacity(100_000);
    for _ in 0..100_000 {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        digits.push(char::from(b'0' + ((state >> 33) % 10) as u8));
    }
    let long = format!("0.{digits}");
    let x: Qd = long.parse().unwrap();
    let want = mpfr_greedy::<4>(&format!("0.{}1", &digits[..2000]), 8_000);
    assert_eq!(bits(x.c), bits(want));
    let x: Dd = format!("-{digits}e-100000").parse().unwrap();
    assert_eq!(bits(dd_words(-x)), bits(mpfr_greedy::<2>(&long, 8_000)));
    let huge: Dd = format!("{digits}e308").parse().unwrap();
    assert_eq!(huge.hi, f64::INFINITY);

    // Exponent arithmetic near the saturation point and absurd precisions/widths.
    for s in [
        "1e-1000000000000000",
        "1e1000000000000000",
        "9e-324",
        "-2e-324",
        "1e+0000000000",
    ] {
        let x: Dd = s.parse().unwrap();
        assert_eq!(x.hi, s.parse::<f64>().unwrap(), "{s}");
    }
    assert_eq!(format!("{:>1$}", Dd::ONE, 3), "  1");
    assert_eq!(format!("{:.1$e}", Qd::ONE, 3), "1.000e0");
}

/// Random strings over the characters numbers are made of: accepted exactly when `f64` accepts
/// them (after trimming), with the leading word equal to `f64`'s value, bit for bit.
#[test]
fn grammar_and_leading_word_match_f64() {
    let mut runner = oracle::runner(20_000);
    runner
        .run(&"[ +\\-0-9.eE_infatyINFATY]{0,24}", |s| {
            let want = s.trim().parse::<f64>();
            let dd = s.parse::<Dd>();
            let qd = s.parse::<Qd>();
            prop_assert_eq!(dd.is_ok(), want.is_ok(), "{:?}: {:?}", s, dd);
            prop_assert_eq!(qd.is_ok(), want.is_ok(), "{:?}", s);
            if let (Ok(w), Ok(d), Ok(q)) = (want, dd, qd)
                && !w.is_nan()
            {
                prop_assert_eq!(d.hi.to_bits(), w.to_bits(), "{:?}", s);
                prop_assert_eq!(q.c[0].to_bits(), w.to_bits(), "{:?}", s);
            }
            Ok(())
        })
        .unwrap();
}

/// Arbitrary bit patterns as words (not normalised, mixed signs, NaN and Inf anywhere) under
/// every layout: never a panic, and finite values print as something that parses.
#[test]
fn arbitrary_words_never_panic() {
    let mut runner = oracle::runner(3_000);
    runner
        .run(&(any::<[u64; 4]>(), 0usize..50), |(v, prec)| {
            let q = Qd {
                c: v.map(f64::from_bits),
            };
            let d = Dd {
                hi: q.c[0],
                lo: q.c[1],
            };
            let outs = [
                format!("{q}"),
                format!("{q:e}"),
                format!("{q:.prec$}"),
                format!("{q:+.prec$E}"),
                format!("{d}"),
                format!("{d:>30e}"),
                format!("{d:^+0.prec$}"),
                format!("{d:.prec$e}"),
            ];
            if q.c.iter().all(|w| w.is_finite()) {
                for s in &outs {
                    prop_assert!(s.parse::<Qd>().is_ok(), "{}", s);
                }
            }
            Ok(())
        })
        .unwrap();
}

/// Whether a string parses back to the value printed.
type ParsesBack<'a> = dyn Fn(&str) -> bool + 'a;

/// Issue 11: a decimal just beyond the midpoint of two doubles parsed to greedy words whose sum
/// rounds back to the other double (`lo = ulp(hi)/2` with `hi` odd), so `d + 0 != d` and
/// `d × 1 != d`. Every parse is canonical now, at ties too, and printing still round trips in
/// the fewest digits: near each tie (both parities, both directions, at a power of two, Dd and
/// Qd) the decimals just below, at and above the midpoint parse to canonical words, and the
/// printed string of each parses back and has no shorter neighbour that does.
#[test]
fn parses_at_ties_are_canonical_and_print_shortest() {
    let issue: Dd = "1.000000000000000333066907387546962127089500427246093749999999"
        .parse()
        .unwrap();
    assert_eq!(bits(dd_words(issue + Dd::ZERO)), bits(dd_words(issue)));
    assert_eq!(bits(dd_words(issue * Dd::ONE)), bits(dd_words(issue)));
    assert_eq!(issue.hi + issue.lo, issue.hi, "{issue:?}");
    let mut seed = 0x7135u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        seed >> 11
    };
    let mut starts = vec![1.0, 2.0, 0.75, f64::MIN_POSITIVE, 1e300, 3.0e-310];
    for _ in 0..200 {
        let m = (next() | 1) as f64; // 53-bit odd significand
        starts.push(m * 2f64.powi((next() % 200) as i32 - 100));
        starts.push((m + 1.0) * 2f64.powi((next() % 200) as i32 - 100));
    }
    let exact = |w: &[f64]| {
        let mut v = Float::with_val(2300, 0);
        for &x in w {
            v += x;
        }
        v
    };
    for &h in &starts {
        for up in [true, false] {
            let nb = if up { h.next_up() } else { h.next_down() };
            let mid = (exact(&[h]) + exact(&[nb])) / 2u32;
            let tiny = Float::with_val(2300, Float::i_exp(1, mid.get_exp().unwrap_or(0) - 400));
            for v in [mid.clone() - &tiny, mid.clone(), mid.clone() + &tiny] {
                let (m, e10) = exact_decimal(&v);
                let text = format!("{m}e{e10}");
                let dd: Dd = text.parse().unwrap();
                let qd: Qd = text.parse().unwrap();
                // Canonical: the greedy expansion of its own value, which + 0 and × 1 keep.
                assert_eq!(bits(dd_words(dd)), bits(canonical(dd_words(dd))), "{text}");
                assert_eq!(bits(qd.c), bits(canonical(qd.c)), "{text}");
                assert_eq!(bits(dd_words(dd + Dd::ZERO)), bits(dd_words(dd)), "{text}");
                assert_eq!(bits(dd_words(dd * Dd::ONE)), bits(dd_words(dd)), "{text}");
                assert_eq!(bits((qd + Qd::ZERO).c), bits(qd.c), "{text}");
                // Printed in the fewest digits that parse back.
                let dd_back = |t: &str| {
                    t.parse::<Dd>()
                        .is_ok_and(|b| bits(dd_words(b)) == bits(dd_words(dd)))
                };
                let qd_back = |t: &str| t.parse::<Qd>().is_ok_and(|b| bits(b.c) == bits(qd.c));
                let checks: [(String, &ParsesBack); 2] =
                    [(format!("{dd:e}"), &dd_back), (format!("{qd:e}"), &qd_back)];
                for (printed, back_ok) in checks {
                    assert!(back_ok(&printed), "{text} printed as {printed}");
                    let (neg, digits, e) = normalise(&printed);
                    if digits.len() > 1 {
                        let shorter = &digits[..digits.len() - 1];
                        let below = Integer::from_str_radix(shorter, 10).unwrap();
                        for m in [below.clone(), below + 1u32] {
                            let t = format!(
                                "{}{}e{}",
                                if neg { "-" } else { "" },
                                m,
                                e - shorter.len() as i64 + 1
                            );
                            assert!(!back_ok(&t), "{h:e} {up}: {t} is shorter than {printed}");
                        }
                    }
                }
            }
        }
    }
}
