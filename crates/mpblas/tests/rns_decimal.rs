//! Decimal strings for RNS `MpFloat` against MPFR: parsing is compared bit for bit with MPFR's
//! correctly rounded parse at the same precision, printing must round trip (and print the
//! shortest digits), and junk is refused with the same error kinds as `Dd`.

use mpblas::rns::{Basis, MpFloat};
use mpblas::{Dd, Error};
use rug::ops::Pow;
use rug::{Float, Integer, Rational};

fn splitmix(s: &mut u64) -> u64 {
    *s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A random decimal string: sign, digits (sometimes very long), a point, an exponent.
fn random_decimal(s: &mut u64, p: u32) -> String {
    let r = splitmix(s);
    let nd = match r % 8 {
        0 => 1 + (splitmix(s) % 5) as usize,
        1 => p as usize + (splitmix(s) % (2 * p as u64)) as usize, // beyond the kept digits
        _ => 1 + (splitmix(s) % (p as u64 / 3 + 25)) as usize,
    };
    let mut out = String::new();
    match (r >> 8) % 3 {
        0 => out.push('-'),
        1 => out.push('+'),
        _ => {}
    }
    let point = (splitmix(s) % (nd as u64 + 2)) as usize;
    for i in 0..nd {
        if i == point {
            out.push('.');
        }
        let d = (splitmix(s) % 10) as u8;
        out.push((b'0' + d) as char);
    }
    if !(r >> 16).is_multiple_of(4) {
        let span = match (r >> 20) % 6 {
            0 => 4000,
            1 => 20_000, // beyond the exact path: bounds of 5^k
            _ => 340,
        };
        let e = (splitmix(s) % (2 * span + 1)) as i64 - span as i64;
        out.push(if (r >> 24) & 1 == 1 { 'e' } else { 'E' });
        out.push_str(&e.to_string());
    }
    out
}

/// A decimal that is exactly a rounding midpoint at precision p: N·2^-k with N odd of p+1 bits,
/// written as the digits of N·5^k with the point k places from the right.
fn midpoint_decimal(s: &mut u64, p: u32) -> String {
    let mut n = Integer::from(1);
    for _ in 0..p.div_ceil(64) {
        n = (n << 64) + splitmix(s);
    }
    n.keep_bits_mut(p);
    n.set_bit(p, true);
    n.set_bit(0, true);
    let k = (splitmix(s) % 200) as u32;
    let scaled = n * Integer::from(5).pow(k);
    let digits = scaled.to_string();
    if k == 0 {
        return digits;
    }
    let k = k as usize;
    if digits.len() > k {
        format!(
            "{}.{}",
            &digits[..digits.len() - k],
            &digits[digits.len() - k..]
        )
    } else {
        format!("0.{}{}", "0".repeat(k - digits.len()), digits)
    }
}

/// `|f|` correctly rounded to `n` significant decimal digits (half to even), by exact rational
/// arithmetic: `(digits, e)` with `|f| ≈ 0.digits · 10^e`.
fn round_digits(f: &Float, n: usize) -> (String, i32) {
    let (int, exp) = f.to_integer_exp().unwrap();
    let mut x = Rational::from(int.abs());
    if exp >= 0 {
        x <<= exp as u32;
    } else {
        x >>= (-exp) as u32;
    }
    let ten = |k: i32| {
        if k >= 0 {
            Rational::from(Integer::from(10).pow(k as u32))
        } else {
            Rational::from((Integer::from(1), Integer::from(10).pow((-k) as u32)))
        }
    };
    // e with 10^(e-1) ≤ x < 10^e
    let mut e = (f.get_exp().unwrap() as f64 * std::f64::consts::LOG10_2).floor() as i32;
    while x >= ten(e) {
        e += 1;
    }
    while x < ten(e - 1) {
        e -= 1;
    }
    loop {
        let y: Rational = &x / ten(e - n as i32);
        let (frac, fl) = y.fract_floor(Integer::new());
        let twice_frac = frac * 2u32;
        let up = twice_frac > 1 || (twice_frac == 1 && fl.is_odd());
        let m = if up { fl + 1u32 } else { fl };
        let d = m.to_string();
        if d.len() > n {
            e += 1;
            continue;
        }
        return (d, e);
    }
}

fn same(a: &Float, b: &Float) -> bool {
    a == b && a.is_sign_negative() == b.is_sign_negative()
}

#[test]
fn parse_matches_mpfr() {
    for req in [53, 106, 424, 1696] {
        let b = Basis::new(req).unwrap();
        let p = b.precision();
        let mut s = 0x5eed_0000 + req as u64;
        let mut n = 0;
        for i in 0..2400 {
            let text = if i % 6 == 5 {
                midpoint_decimal(&mut s, p)
            } else {
                random_decimal(&mut s, p)
            };
            let got = MpFloat::parse(&b, &text).unwrap_or_else(|e| panic!("{text}: {e}"));
            let want = Float::with_val(p, Float::parse(&text).unwrap());
            assert!(
                same(&got.to_rug(), &want),
                "p = {p}: {text}\n got {}\nwant {}",
                got.to_rug(),
                want
            );
            n += 1;
        }
        assert!(n >= 2000);
    }
}

#[test]
fn print_round_trips_and_is_shortest() {
    for req in [53, 106, 424, 1696] {
        let b = Basis::new(req).unwrap();
        let p = b.precision();
        let mut s = 0xabc0_0000 + req as u64;
        for i in 0..2000 {
            let mut f = Float::with_val(p, 0);
            for _ in 0..p.div_ceil(64) {
                f = (f << 64u32) + splitmix(&mut s);
            }
            let span = if i % 4 == 0 { 3000 } else { 200 };
            let e = (splitmix(&mut s) % (2 * span + 1)) as i32 - span as i32 - p as i32;
            if i % 3 == 0 {
                // short values: few significant bits
                f = Float::with_val(p, (f >> (p as i32)).to_f32());
            }
            let mut f = f << e;
            if splitmix(&mut s) & 1 == 1 {
                f = -f;
            }
            let x = MpFloat::from_rug(&b, &f);
            for text in [x.to_string(), format!("{x:e}"), format!("{x:E}")] {
                let y = MpFloat::parse(&b, &text).unwrap();
                assert!(x.identical(&y), "p = {p}: {f} printed as {text}");
                // MPFR agrees that the string denotes x
                let want = Float::with_val(p, Float::parse(&text).unwrap());
                assert!(same(&want, &f), "p = {p}: {text}");
            }
            // shortest: one digit fewer (correctly rounded by MPFR) never round trips
            let sci = format!("{x:e}");
            let mant = sci.split('e').next().unwrap();
            let nsig = mant.chars().filter(|c| c.is_ascii_digit()).count();
            if nsig > 1 {
                let (d, ex) = round_digits(&f, nsig - 1);
                let neg = f.is_sign_negative();
                let text = format!("{}0.{}e{}", if neg { "-" } else { "" }, d, ex);
                let back = MpFloat::parse(&b, &text).unwrap();
                assert!(
                    !x.identical(&back),
                    "p = {p}: {sci} is not the shortest ({text})"
                );
            }
        }
    }
}

#[test]
fn precision_formats_match_mpfr_rounding() {
    let b = Basis::new(212).unwrap();
    let p = b.precision();
    let mut s = 77u64;
    for _ in 0..500 {
        let mut f = Float::with_val(p, 0);
        for _ in 0..p.div_ceil(64) {
            f = (f << 64u32) + splitmix(&mut s);
        }
        let e = (splitmix(&mut s) % 400) as i32 - 200 - p as i32;
        let f = f << e;
        let x = MpFloat::from_rug(&b, &f);
        let n = 1 + (splitmix(&mut s) % 40) as usize;
        let (d, ex) = round_digits(&f, n);
        let ex = ex - 1;
        let want = format!("{}.{}e{}", &d[..1], &d[1..], ex);
        let want = if n == 1 {
            format!("{}e{}", &d[..1], ex)
        } else {
            want
        };
        assert_eq!(format!("{:.*e}", n - 1, x), want);
    }
    let x = MpFloat::parse(&b, "-2.5").unwrap();
    let v = -2.5f64;
    assert_eq!(
        format!("{x}|{x:.0}|{x:+09.3}|{x:<8}|{x:^9.1e}|{x:*>7E}|{x:010e}"),
        format!("{v}|{v:.0}|{v:+09.3}|{v:<8}|{v:^9.1e}|{v:*>7E}|{v:010e}")
    );
    assert_eq!(format!("{:.0}", MpFloat::parse(&b, "3.5").unwrap()), "4");
    assert_eq!(
        format!("{}", MpFloat::parse(&b, "1e30").unwrap()),
        "1000000000000000000000000000000"
    );
    assert_eq!(
        format!("{:e}", MpFloat::parse(&b, "0.000123").unwrap()),
        "1.23e-4"
    );
    assert_eq!(format!("{}", MpFloat::parse(&b, "-0").unwrap()), "-0");
    assert_eq!(format!("{:5}", MpFloat::parse(&b, "inf").unwrap()), "  inf");
    assert_eq!(
        format!("{}", MpFloat::parse(&b, "-infinity").unwrap()),
        "-inf"
    );
    assert_eq!(format!("{}", MpFloat::parse(&b, "NaN").unwrap()), "NaN");
}

#[test]
fn junk_is_refused_like_dd() {
    let b = Basis::new(106).unwrap();
    for junk in [
        "",
        "  ",
        "abc",
        "1e",
        "1e+",
        "--1",
        "1.2.3",
        "0x10",
        "1 2",
        "e5",
        ".",
        "+",
        "-",
        "nanx",
        "inff",
        "1e5.0",
        "1_000",
        "١",
        "1e99999999999999999999999999999999999999x",
        ".e1",
    ] {
        let kind = match MpFloat::parse(&b, junk) {
            Err(Error::Parse(e)) => e.kind,
            other => panic!("{junk:?} gave {other:?}"),
        };
        let dd_kind = junk.parse::<Dd>().unwrap_err().kind;
        assert_eq!(kind, dd_kind, "{junk:?}");
    }
}

#[test]
fn absurd_exponents_and_long_strings() {
    let b = Basis::new(106).unwrap();
    let p = b.precision();
    let inf = MpFloat::parse(&b, "1e99999999999999999999999999").unwrap();
    assert!(inf.is_infinite() && !inf.is_sign_negative());
    let z = MpFloat::parse(&b, "-1e-99999999999999999999999999").unwrap();
    assert!(z.is_zero() && z.is_sign_negative());
    // Far beyond f64 and MPFR, but inside MpFloat's range: finite, and consistent.
    let big = MpFloat::parse(&b, "1e1000000000000").unwrap();
    assert!(big.is_finite() && !big.is_zero());
    let t = big.exponent() + p as i64;
    assert_eq!(t, (1e12 * std::f64::consts::LOG2_10).floor() as i64 + 1);
    let same_value = MpFloat::parse(&b, "0.0010e1000000000003").unwrap();
    assert!(big.identical(&same_value));
    assert_eq!(format!("{big:e}"), "1e1000000000000");
    let tiny = MpFloat::parse(&b, "-3.25e-777777777777").unwrap();
    assert_eq!(format!("{tiny:e}"), "-3.25e-777777777777");
    assert_eq!(format!("{tiny:.3e}"), "-3.250e-777777777777");
    // Long digit strings: 1 + 10^-200000 rounds to 1; a midpoint plus a far digit rounds up.
    let long = format!("1.{}1", "0".repeat(200_000));
    assert!(
        MpFloat::parse(&b, &long)
            .unwrap()
            .identical(&MpFloat::from_f64(&b, 1.0))
    );
    let mut s = 99u64;
    let mid = midpoint_decimal(&mut s, p);
    let mid_text = if mid.contains('.') {
        mid.clone()
    } else {
        format!("{mid}.")
    };
    for tail in ["", "0000000000000000000000000000000000000001"] {
        let text = format!("{mid_text}{}{tail}", "0".repeat(30_000));
        let got = MpFloat::parse(&b, &text).unwrap();
        let want = Float::with_val(p, Float::parse(&text).unwrap());
        assert!(same(&got.to_rug(), &want), "{tail}");
    }
    let digits: String = (0..20_000)
        .map(|i| {
            if i == 0 {
                '7'
            } else {
                (b'0' + (splitmix(&mut s) % 10) as u8) as char
            }
        })
        .collect();
    let text = format!("{digits}e-19990");
    let got = MpFloat::parse(&b, &text).unwrap();
    assert!(same(
        &got.to_rug(),
        &Float::with_val(p, Float::parse(&text).unwrap())
    ));
}

/// Issue 11: plain notation of a far number wrote (or allocated) one digit per power of ten —
/// `to_string()` of 2^(2^40) aborted on a 6 GiB allocation, `1e300000000000000000` never
/// finished, `{:.3}` of a far tiny number overflowed a shift. Beyond 4,096 zeros `Display`
/// switches to scientific notation with the shortest round-trip digits; everything here runs in
/// milliseconds and parses back.
#[test]
fn display_of_far_numbers_is_short_and_round_trips() {
    let b = Basis::new(106).unwrap();
    let round_trips = |x: &MpFloat, text: &str| {
        let y = MpFloat::parse(&b, text).unwrap();
        assert!(y.identical(x), "{text}");
    };
    for (input, plain, fixed3) in [
        (
            "1e300000000000000000",
            "1e300000000000000000",
            "1e300000000000000000",
        ),
        (
            "-1.5e-300000000000000000",
            "-1.5e-300000000000000000",
            "-0.000",
        ),
        ("2.5e100000000", "2.5e100000000", "2.5e100000000"),
        ("1e5000", "1e5000", "1e5000"),
        ("7e-5000", "7e-5000", "0.000"),
        ("1e-4000", &format!("0.{}1", "0".repeat(3999)), "0.000"),
    ] {
        let x = MpFloat::parse(&b, input).unwrap();
        assert_eq!(x.to_string(), plain, "{input}");
        assert_eq!(format!("{x:.3}"), fixed3, "{input}");
        round_trips(&x, &x.to_string());
    }
    // Up to about 10^4096 plain notation is kept, as f64 would print it.
    let x = MpFloat::parse(&b, "1e4000").unwrap();
    assert_eq!(x.to_string(), format!("1{}", "0".repeat(4000)));
    // Powers of two far outside any decimal library's range.
    for k in [20, 40, 59] {
        let x = MpFloat::from_u64_exp(&b, false, 3, 1i64 << k);
        let s = x.to_string();
        assert!(s.len() < 80 && s.contains('e'), "{s}");
        round_trips(&x, &s);
        let t = format!("{x:.5}");
        assert!(t.len() < 80, "{t}");
        let tiny = MpFloat::from_u64_exp(&b, true, 3, -(1i64 << k));
        let s = tiny.to_string();
        assert!(
            s.len() < 80 && s.starts_with('-') && s.contains("e-"),
            "{s}"
        );
        round_trips(&tiny, &s);
        assert_eq!(format!("{tiny:.5}"), "-0.00000");
    }
}
