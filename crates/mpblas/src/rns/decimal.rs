//! Decimal strings for [`MpFloat`]: [`MpFloat::parse`] (correctly rounded to the basis
//! precision) and [`Display`](fmt::Display) / [`LowerExp`](fmt::LowerExp) /
//! [`UpperExp`](fmt::UpperExp) (shortest round-trip digits, or correctly rounded digits with a
//! precision), with the grammar, error kinds and layout of the `Dd`/`Qd` conversions.
//!
//! # Parsing
//!
//! The string denotes `v = D·10^E` exactly. Rounding `v` to `p` bits needs only
//! `q = ⌊v·2^s⌋` for a scale `s` that gives `q` at least `p + 3` bits, and whether `v·2^s` is an
//! integer: the binary integer `2q + [v·2^s ∉ ℤ]` then rounds (nearest, ties to even, in
//! [`MpFloat::from_limbs`]) exactly as `v` does, because every rounding boundary is an integer
//! at that scale.
//!
//! - Long significands are cut to `K` digits (about `0.3·p + 40`, doubled on demand): the value
//!   then lies strictly inside `(D_K, D_K + 1)·10^E'`, and if both ends give the same `q` the
//!   answer is `2q + 1`; otherwise more digits are taken.
//! - Moderate exponents are done exactly with big integers. Far exponents (where `v` can be
//!   neither representable nor a midpoint, so `v·2^s` is never an integer) use lower and upper
//!   bounds of `5^|E|` at a working precision that doubles until both bounds give the same `q`
//!   (Ziv's strategy). The exponent range of `MpFloat` (`2^±2^60`) is far wider than `f64`'s,
//!   so `1e1000000000000` is a finite number here.
//!
//! # Printing
//!
//! The strings that parse back to `x = X·2^e` are the decimals in the rounding interval
//! `(x − ulp/2, x + ulp/2)` (a quarter ulp below a power of two; closed when `X` is even).
//! Without a precision the shortest such decimal is printed (the fewest significant digits;
//! among those the one nearest `x`, ties to even), found by bisection on the power of ten with
//! exact big-integer arithmetic. With `{:.N}` / `{:.Ne}` the exact value is rounded half to even.
//! For numbers beyond about `10^±(20000 + 2.4·p)` exact arithmetic would be too large: there the
//! digits are correctly rounded through bounds of `5^k` as in parsing, and without a precision
//! `⌈p·log10 2⌉ + 1` significant digits are printed (trailing zeros removed) — enough to round
//! trip, but not always the shortest.

use crate::convert::bigint::BigUint;
use crate::convert::parse::{Scanned, digits_to_big, scan};
use crate::convert::print::{Decimal, Style, plain, scientific, write_padded};
use crate::error::{Error, Result};
use crate::rns::basis::Basis;
use crate::rns::float::{Class, MpFloat};
use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

/// Magnitude beyond which `D·10^E` certainly overflows or underflows (`|E + digits|` in
/// decimal digits): `3.3·4·10^17 > 2^60 = EMAX`.
const DEC_RANGE: i128 = 400_000_000_000_000_000;

/// Exponents of ten up to this (plus `4p`) are handled with exact big integers.
const EXACT_E: u64 = 4000;

impl MpFloat {
    /// The decimal string `s` correctly rounded to the precision of `basis` (nearest, ties to
    /// even). The grammar is `f64::from_str`'s (and `Dd`'s) after trimming surrounding
    /// whitespace: an optional sign, digits with an optional point, an optional `e`/`E`
    /// exponent, or `inf`/`infinity`/`nan` in any case. Values beyond the exponent range give
    /// ±∞ or ±0; digit strings of any length are accepted.
    ///
    /// # Errors
    /// [`Error::Parse`] with the same [`ParseErrorKind`](crate::ParseErrorKind)s as `Dd`
    /// (`format == "rns"`).
    ///
    /// ```
    /// use mpblas::rns::{Basis, MpFloat};
    /// let b = Basis::new(106).unwrap();
    /// let x = MpFloat::parse(&b, "0.1").unwrap();
    /// assert_eq!(x.to_string(), "0.1");
    /// assert!(MpFloat::parse(&b, "0x10").is_err());
    /// ```
    pub fn parse(basis: &Arc<Basis>, s: &str) -> Result<MpFloat> {
        let scanned =
            scan(s, "rns", usize::MAX, 1_000_000_000_000_000_000).map_err(Error::Parse)?;
        Ok(match scanned {
            Scanned::Inf(neg) => MpFloat::infinity(basis, neg),
            Scanned::Nan(_) => MpFloat::nan(basis),
            Scanned::Number(neg, digits, exp) => {
                let mut kept = digits.kept;
                let mut e10 = digits.shift + exp;
                while kept.last() == Some(&0) {
                    kept.pop();
                    e10 += 1;
                }
                round_decimal(basis, neg, &kept, e10)
            }
        })
    }
}

/// `±int(digits)·10^e10` rounded to `p` bits (`digits` without leading or trailing zeros).
fn round_decimal(basis: &Arc<Basis>, neg: bool, digits: &[u8], e10: i128) -> MpFloat {
    let nd = digits.len();
    if nd == 0 {
        return MpFloat::zero(basis, neg);
    }
    let top = e10 + nd as i128;
    if top > DEC_RANGE {
        return MpFloat::infinity(basis, neg);
    }
    if top < -DEC_RANGE {
        return MpFloat::zero(basis, neg);
    }
    let p = basis.precision as u64;
    let mut k = nd.min((p as usize * 3) / 10 + 40);
    loop {
        let d = digits_to_big(&digits[..k]);
        // dropped digits are not all zero (trailing zeros were removed)
        let sticky = k < nd;
        let e = (e10 + (nd - k) as i128) as i64;
        if let Some((q, exp)) = round_parts(p, &d, e, sticky) {
            return MpFloat::from_limbs(basis, neg, q.limbs(), exp);
        }
        debug_assert!(sticky, "an exact decimal always rounds");
        k = (2 * k).min(nd);
    }
}

/// `(2q + t, −s − 1)` with `q = ⌊v·2^s⌋` of at least `p + 3` bits and `t = [v·2^s ∉ ℤ]`, for
/// `v = d·10^e` (or `v` strictly inside `(d, d + 1)·10^e` when `sticky`); `None` when `sticky`
/// and the two ends disagree.
fn round_parts(p: u64, d: &BigUint, e: i64, sticky: bool) -> Option<(BigUint, i64)> {
    let ue = e.unsigned_abs();
    let dyadic_possible = e < 0 && (d.bit_len() as u64 + 64) as f64 >= 2.32 * ue as f64;
    if ue <= EXACT_E + 4 * p || dyadic_possible {
        return exact_parts(p, d, e, sticky);
    }
    // Far exponent: v·2^s is never an integer (its odd part exceeds 2^(p+5)).
    let dhi = if sticky {
        d.add(&BigUint::from_u64(1))
    } else {
        d.clone()
    };
    let mut w = p as usize + d.bit_len() + 200;
    loop {
        let (m, x, err) = pow5_bounds(ue, w);
        let mhi = m.add(&err);
        let (qlo, qhi, exp) = if e > 0 {
            let nlo = d.mul(&m);
            let nhi = dhi.mul(&mhi);
            let t = nlo.bit_len().saturating_sub(p as usize + 3);
            (nlo.shr(t), nhi.shr(t), x + e + t as i64)
        } else {
            let y = (p as usize + 4 + mhi.bit_len()).saturating_sub(d.bit_len());
            let qlo = d.shl(y).divrem(&mhi)?.0;
            let qhi = dhi.shl(y).divrem(&m)?.0;
            (qlo, qhi, -x + e - y as i64)
        };
        if qlo == qhi {
            let mut q = qlo.shl(1);
            q.add_small(1);
            return Some((q, exp - 1));
        }
        if sticky {
            return None;
        }
        if w > (1 << 22) {
            // Unreachable in practice (the bounds close in geometrically on a value that is not
            // a rounding boundary); keep the lower bound's rounding rather than loop forever.
            let mut q = qlo.shl(1);
            q.add_small(1);
            return Some((q, exp - 1));
        }
        w *= 2;
    }
}

/// [`round_parts`] by exact rational arithmetic.
fn exact_parts(p: u64, d: &BigUint, e: i64, sticky: bool) -> Option<(BigUint, i64)> {
    let ue = u32::try_from(e.unsigned_abs()).ok()?;
    let pow = BigUint::pow(10, ue);
    let frac = |num: &BigUint| -> (BigUint, BigUint) {
        if e >= 0 {
            (num.mul(&pow), BigUint::from_u64(1))
        } else {
            (num.clone(), pow.clone())
        }
    };
    let (num, den) = frac(d);
    let s = p as i64 + 4 - (num.bit_len() as i64 - den.bit_len() as i64);
    let scaled = |num: BigUint, den: &BigUint| -> Option<(BigUint, bool)> {
        let (q, r) = if s >= 0 {
            num.shl(s as usize).divrem(den)?
        } else {
            num.divrem(&den.shl((-s) as usize))?
        };
        Some((q, !r.is_zero()))
    };
    let (q, inexact) = scaled(num, &den)?;
    if sticky {
        let (num_hi, _) = frac(&d.add(&BigUint::from_u64(1)));
        let (q_hi, inexact_hi) = scaled(num_hi, &den)?;
        let ok = q_hi == q || (!inexact_hi && q_hi == q.add(&BigUint::from_u64(1)));
        if !ok {
            return None;
        }
    }
    let mut q2 = q.shl(1);
    if inexact || sticky {
        q2.add_small(1);
    }
    Some((q2, -s - 1))
}

/// Bounds of `5^k`: `(m, x, err)` with `m·2^x ≤ 5^k ≤ (m + err)·2^x` and `m < 2^w`, by
/// square-and-multiply on truncated values (each step's truncation adds at most 2 units to
/// `err`; squaring doubles the relative error, so `w` must exceed the target precision by the
/// number of squarings plus a margin).
fn pow5_bounds(k: u64, w: usize) -> (BigUint, i64, BigUint) {
    let mut m = BigUint::from_u64(1);
    let mut x: i64 = 0;
    let mut err = BigUint::zero();
    let trunc = |m: &mut BigUint, x: &mut i64, err: &mut BigUint| {
        let bl = m.bit_len();
        if bl > w {
            let t = bl - w;
            *m = m.shr(t);
            *err = err.shr(t);
            err.add_small(2);
            *x += t as i64;
        }
    };
    for i in (0..64 - k.leading_zeros()).rev() {
        let e2 = m.mul(&err).shl(1).add(&err.mul(&err));
        m = m.mul(&m);
        err = e2;
        x *= 2;
        trunc(&mut m, &mut x, &mut err);
        if (k >> i) & 1 == 1 {
            m.mul_small(5);
            err.mul_small(5);
            trunc(&mut m, &mut x, &mut err);
        }
    }
    (m, x, err)
}

// ----- printing -----

/// `x = X·2^e` (finite, nonzero) for printing: the significand as a big integer and `e`.
fn parts(x: &MpFloat) -> (BigUint, i64) {
    let (_, limbs, e) = x.to_limbs().unwrap_or((false, vec![0], 0));
    (BigUint::from_limbs(&limbs), e)
}

/// `(num, den)` with `num/den = n·2^g / 10^j`.
fn ratio(n: &BigUint, g: i64, j: i64) -> (BigUint, BigUint) {
    let mut num = n.clone();
    let mut den = BigUint::from_u64(1);
    if g >= 0 {
        num = num.shl(g as usize);
    } else {
        den = den.shl((-g) as usize);
    }
    let pw = BigUint::pow(10, j.unsigned_abs() as u32);
    if j >= 0 {
        den = den.mul(&pw);
    } else {
        num = num.mul(&pw);
    }
    (num, den)
}

/// `n·2^g / 10^j` rounded to the nearest integer, ties to even.
fn round_ratio(n: &BigUint, g: i64, j: i64) -> BigUint {
    let (num, den) = ratio(n, g, j);
    let (mut q, r) = num.divrem(&den).unwrap_or_default();
    match r.shl(1).cmp(&den) {
        Ordering::Greater => q.add_small(1),
        Ordering::Equal if q.bit(0) => q.add_small(1),
        _ => {}
    }
    q
}

/// True when the exact big-integer route is affordable for `x = X·2^e`.
fn exact_ok(p: u64, e: i64) -> bool {
    e.unsigned_abs() <= 65_536 + 8 * p
}

/// The shortest decimal in the rounding interval of `x = X·2^e` (`X` of exactly `p` bits).
fn shortest(p: u64, xs: &BigUint, e: i64) -> Decimal {
    // Endpoints in units of 2^(e−2): 4X ± 2, or 4X − 1 below a power of two.
    let four_x = xs.shl(2);
    let pow2 = xs.bit_len() as u64 == p && xs.trailing_zeros() == Some(p as usize - 1);
    let lo = four_x
        .checked_sub(&BigUint::from_u64(if pow2 { 1 } else { 2 }))
        .unwrap_or_default();
    let hi = four_x.add(&BigUint::from_u64(2));
    let closed = !xs.bit(0);
    let g = e - 2;
    // Multiples m·10^j inside the interval: (m_min, m_max), or None.
    let multiples = |j: i64| -> Option<(BigUint, BigUint)> {
        let (num, den) = ratio(&lo, g, j);
        let (mut m_min, r) = num.divrem(&den)?;
        if !(r.is_zero() && closed) {
            m_min.add_small(1);
        }
        let (num, den) = ratio(&hi, g, j);
        let (q, r) = num.divrem(&den)?;
        let m_max = if r.is_zero() && !closed {
            q.checked_sub(&BigUint::from_u64(1))?
        } else {
            q
        };
        (m_min <= m_max).then_some((m_min, m_max))
    };
    const L2: f64 = std::f64::consts::LOG10_2;
    // The width is 4 (or 3) units of 2^(e−2); the top is below 2^(p+e+1).
    let mut j_ok = ((e as f64) * L2).floor() as i64 - 1;
    while multiples(j_ok).is_none() {
        j_ok -= 1;
    }
    let mut j_bad = (((p as i64 + e + 1) as f64) * L2).ceil() as i64 + 1;
    while multiples(j_bad).is_some() {
        j_bad += 4;
    }
    while j_bad - j_ok > 1 {
        let mid = j_ok + (j_bad - j_ok) / 2;
        if multiples(mid).is_some() {
            j_ok = mid;
        } else {
            j_bad = mid;
        }
    }
    let (m_min, m_max) = multiples(j_ok).unwrap_or_default();
    let m = round_ratio(xs, e, j_ok).max(m_min).min(m_max);
    Decimal::from_int(&m, j_ok)
}

/// `⌊log10 2 · 2^64⌋`: `log10 2` in fixed point, for estimates at far exponents, where an
/// `f64` product is off by tens (an exponent near `EMIN = −2^60` has an `f64` spacing of 256).
const LOG10_2_FIX64: i128 = 0x4D10_4D42_7DE7_FBCC;

/// `⌊t·log10 2 / 2⌋` for `|t| < 2^64`, or one more or less (the constant's truncation moves
/// `t·log10 2` by less than `|t|/2^64`, not an integer step): in integers, exact enough at
/// every exponent of the RNS range.
fn floor_half_log10_2_times(t: i128) -> i64 {
    ((t * LOG10_2_FIX64) >> 65) as i64
}

/// `⌊log10 x⌋` for `x = X·2^e` (exact: the estimate is checked against powers of ten), or
/// without `exact` an estimate within one (`⌊(p + e − 1/2)·log10 2⌋`, in integers:
/// [`round_significant`] corrects it by one digit position at a time).
fn floor_log10(p: u64, xs: &BigUint, e: i64, exact: bool) -> i64 {
    let est = floor_half_log10_2_times(2 * (p as i128 + e as i128) - 1);
    if !exact {
        return est;
    }
    let mut k = est;
    // x ≥ 10^k ⇔ X·2^e / 10^k ≥ 1
    let ge = |k: i64| {
        let (num, den) = ratio(xs, e, k);
        num >= den
    };
    while !ge(k) {
        k -= 1;
    }
    while ge(k + 1) {
        k += 1;
    }
    k
}

/// `x = X·2^e` rounded to a multiple of `10^j`, half to even: exactly, or (far exponents)
/// through bounds of `5^|j|` at increasing working precision.
fn round_at(p: u64, xs: &BigUint, e: i64, j: i64) -> BigUint {
    // x/10^j certainly below 1/2: 0, without the exact route's shift by 2^|e| (a tiny x
    // printed with a few decimals). In integers: log10 x < t·log10 2 < est + 2 (issue 11: the
    // f64 estimate was off by up to 39 at t near EMIN and made a nonzero x print as 0).
    let t = e as i128 + xs.bit_len() as i128;
    let est = floor_half_log10_2_times(2 * t);
    if (est as i128) - (j as i128) < -3 {
        return BigUint::from_u64(0);
    }
    if exact_ok(p, e) || j.unsigned_abs() <= EXACT_E {
        return round_ratio(xs, e, j);
    }
    // 2x/10^j = X·2^(e+1−j)/5^j; never a half-integer here (5^|j| ≫ X, 2^|e| ≫ 2^p).
    let uj = j.unsigned_abs();
    let mut w = 2 * p as usize + 256;
    loop {
        let (m, x, err) = pow5_bounds(uj, w);
        let mhi = m.add(&err);
        // bounds of t = 2x/10^j as floor(lo), floor(hi)
        let (tlo, thi) = if j > 0 {
            let sh = e + 1 - j - x;
            // ⌊X·2^(sh+y) / m'⌋ / 2^y with sh + y ≥ 64 (exact integer division, then floor)
            let y = (mhi.bit_len() as i64 + 64).max(64 - sh);
            let num = xs.shl((sh + y) as usize);
            let lo = num.divrem(&mhi).unwrap_or_default().0.shr(y as usize);
            let hi = num.divrem(&m).unwrap_or_default().0.shr(y as usize);
            (lo, hi)
        } else {
            let sh = e + 1 - j + x;
            let lo = xs.mul(&m);
            let hi = xs.mul(&mhi);
            if sh >= 0 {
                (lo.shl(sh as usize), hi.shl(sh as usize))
            } else {
                (lo.shr((-sh) as usize), hi.shr((-sh) as usize))
            }
        };
        if tlo == thi || w > (1 << 22) {
            // round(x/10^j) = ⌊(⌊2x/10^j⌋ + 1)/2⌋
            let mut t = tlo;
            t.add_small(1);
            return t.shr(1);
        }
        w *= 2;
    }
}

/// `x` rounded to `n ≥ 1` significant digits.
fn round_significant(p: u64, xs: &BigUint, e: i64, n: u64) -> Decimal {
    let exact = exact_ok(p, e);
    let mut k = floor_log10(p, xs, e, exact);
    loop {
        let j = k + 1 - n as i64;
        let m = round_at(p, xs, e, j);
        let ten_n = BigUint::pow(10, n as u32);
        let ten_n1 = BigUint::pow(10, n as u32 - 1);
        if m == ten_n {
            return Decimal::from_int(&BigUint::from_u64(1), j + n as i64);
        }
        if m > ten_n {
            k += 1;
        } else if m < ten_n1 && !exact {
            // k was estimated too large (zero included: x is nonzero, so m ≥ 10^(n−1) once
            // k is right; accepting m = 0 printed a nonzero x as "0", issue 11).
            k -= 1;
        } else {
            return Decimal::from_int(&m, j);
        }
    }
}

/// For far exponents: the correctly rounded `n`-digit decimal with the fewest digits `n` that
/// parses back to `x` (bisection on `n`; `⌈p·log10 2⌉ + 1` digits always round trip).
fn shortest_far(x: &MpFloat, xs: &BigUint, e: i64) -> Decimal {
    let p = x.basis.precision as u64;
    let round_trips = |d: &Decimal| {
        let text = format!("{}e{}", String::from_utf8_lossy(&d.digits), d.pow);
        MpFloat::parse(&x.basis, &text).is_ok_and(|y| y.exp == x.exp && y.res == x.res)
    };
    let mut hi = (p as f64 * std::f64::consts::LOG10_2).ceil() as u64 + 1;
    let mut best = round_significant(p, xs, e, hi);
    let mut lo = 0; // no digits: never round trips
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        let d = round_significant(p, xs, e, mid);
        if round_trips(&d) {
            hi = mid;
            best = d;
        } else {
            lo = mid;
        }
    }
    best
}

/// Plain notation writes at most this many zeros that come from the magnitude alone (beyond
/// it, [`Display`](fmt::Display) switches to scientific notation): an `f64`, `Dd` or `Qd`
/// never needs more than about 330, and an `MpFloat` of `10^(10^17)` would need `10^17`.
const PLAIN_MAX_EXP10: f64 = 4096.0;

/// `log10 x` for `x = X·2^e` with `X` of `bits` bits, within 0.31 while `e + bits` is exact
/// in `f64` (below `2^53`): `(e + bits)·log10 2` (`2^(e+bits−1) ≤ x < 2^(e+bits)`). Only for
/// comparing with ±[`PLAIN_MAX_EXP10`], which far exponents miss by far; callers keep a
/// margin of 2. Digit positions use [`floor_half_log10_2_times`].
fn log10_estimate(bits: usize, e: i64) -> f64 {
    (e as f64 + bits as f64) * std::f64::consts::LOG10_2
}

/// Whether plain notation of `x = X·2^e` (`X` of `bits` bits) would write more than
/// [`PLAIN_MAX_EXP10`] zeros before (huge) or, without a precision, after (tiny) its digits.
fn plain_too_wide(bits: usize, e: i64, fixed_decimals: bool) -> bool {
    let log10 = log10_estimate(bits, e);
    log10 > PLAIN_MAX_EXP10 + 2.0 || (!fixed_decimals && log10 < -(PLAIN_MAX_EXP10 + 2.0))
}

/// The shortest round-trip digits of `x = X·2^e`: exactly, or through bounds for far exponents.
fn shortest_digits(x: &MpFloat, p: u64, xs: &BigUint, e: i64) -> Decimal {
    if exact_ok(p, e) {
        shortest(p, xs, e)
    } else {
        shortest_far(x, xs, e)
    }
}

/// Formats `x` as `f64` formats one number in `style`.
fn fmt_mp(x: &MpFloat, f: &mut fmt::Formatter<'_>, style: Style) -> fmt::Result {
    if x.class != Class::Finite {
        let special = if x.is_nan() {
            f64::NAN
        } else if x.neg {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
        return match style {
            Style::Plain => fmt::Display::fmt(&special, f),
            Style::Exp('E') => fmt::UpperExp::fmt(&special, f),
            Style::Exp(_) => fmt::LowerExp::fmt(&special, f),
        };
    }
    let p = x.basis.precision as u64;
    let dec = if x.is_zero() {
        Decimal::zero()
    } else {
        let (xs, e) = parts(x);
        if style == Style::Plain && plain_too_wide(xs.bit_len(), e, f.precision().is_some()) {
            // Scientific notation with the digits plain notation would have shown: the
            // shortest round trip (a fixed number of decimals would all be zeros of the
            // integer part).
            return fmt_body(x, f, Style::Exp('e'), None, shortest_digits(x, p, &xs, e));
        }
        match (style, f.precision()) {
            (_, None) => shortest_digits(x, p, &xs, e),
            (Style::Plain, Some(prec)) => {
                let j = -(i64::try_from(prec).unwrap_or(i64::MAX / 4));
                let m = round_at(p, &xs, e, j);
                Decimal {
                    digits: m.to_decimal(),
                    pow: j,
                }
            }
            (Style::Exp(_), Some(prec)) => {
                let n = u64::try_from(prec)
                    .unwrap_or(u64::MAX / 4)
                    .saturating_add(1);
                round_significant(p, &xs, e, n)
            }
        }
    };
    fmt_body(x, f, style, f.precision(), dec)
}

/// Lays out `dec` (the digits of `x`) in `style` with `precision`, sign and padding.
fn fmt_body(
    x: &MpFloat,
    f: &mut fmt::Formatter<'_>,
    style: Style,
    precision: Option<usize>,
    dec: Decimal,
) -> fmt::Result {
    let body = match (style, precision) {
        (Style::Plain, None) => plain(&dec, usize::try_from(-dec.pow).unwrap_or(0)),
        (Style::Plain, Some(prec)) => plain(&dec, prec),
        (Style::Exp(c), None) => scientific(&dec, dec.digits.len(), c),
        (Style::Exp(c), Some(prec)) => scientific(&dec, prec.saturating_add(1), c),
    };
    let sign = if x.neg {
        "-"
    } else if f.sign_plus() {
        "+"
    } else {
        ""
    };
    write_padded(f, sign, &body)
}

impl fmt::Display for MpFloat {
    /// Plain notation: the shortest decimal that parses back to the same value, or with
    /// `{:.N}` the value correctly rounded to `N` decimals (half to even). Width, fill,
    /// alignment, `+` and `0` behave as for `f64`. Numbers whose plain form would need more than
    /// 4,096 zeros from their magnitude alone (beyond about `10^4096`, or below `10^-4096`
    /// without a precision) are printed in scientific notation instead (`1e5000`, with the
    /// shortest round-trip digits; for a value beyond `10^4096` a precision `{:.N}` is then
    /// ignored, its decimals being zeros of the integer part), as `f64` never needs to: an
    /// `MpFloat` reaches `10^(10^17)`.
    ///
    /// ```
    /// use mpblas::rns::{Basis, MpFloat};
    /// let b = Basis::new(53).unwrap();
    /// let x = MpFloat::from_f64(&b, 2.5);
    /// assert_eq!(format!("{x} {x:.0} {x:+08.2} {x:e}"), "2.5 2 +0002.50 2.5e0");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_mp(self, f, Style::Plain)
    }
}

impl fmt::LowerExp for MpFloat {
    /// `d.ddde±N`: shortest round-trip digits, or `{:.Ne}` correctly rounded to `N + 1`
    /// significant digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_mp(self, f, Style::Exp('e'))
    }
}

impl fmt::UpperExp for MpFloat {
    /// As [`LowerExp`](fmt::LowerExp) with `E`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_mp(self, f, Style::Exp('E'))
    }
}
