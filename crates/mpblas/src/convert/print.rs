//! Expansion → decimal string: shortest round-trip digits, or correctly rounded to a requested
//! precision, laid out like `f64`'s `Display` / `LowerExp` / `UpperExp`.
//!
//! # Shortest digits
//!
//! The strings that parse back to the words `w0, …, w_{N-1}` are exactly the decimals in
//! `J = ⋂_k (S_k + I(w_k))`, where `S_k = w0 + … + w_{k-1}` and `I(w)` is the set of reals that
//! round to `w` (an interval whose ends belong to it iff `w`'s last bit is even). `J` is an
//! interval with ends on the 2^-1076 grid, computed exactly. The shortest output uses the
//! largest power `10^p` with a multiple in `J` (a monotone property of `p`, found by bisection)
//! and, among those multiples, the one nearest the value (ties to even). No trial parsing.
//!
//! Parsing normalises ties (parse.rs `normalise`): a decimal just beyond the midpoint of an odd
//! `w_k` and its even neighbour has greedy words `(w_k, ±ulp/2, …)` that parsing rewrites to
//! `(neighbour, ∓ulp/2, …)`. So the decimals that parse to a normalised `x` are those of `J(x)`
//! and, at such a tie, of `J(twin)` for the twin words on the other side of the midpoint: two
//! adjacent intervals, joined before the search (either may be empty: for `(1, 2^-53, 2^-110)`
//! only the twin's is not). If both are empty (hand-built words that are nobody's expansion),
//! the exact decimal value is printed instead, which parses to the expansion of the same
//! number.

use super::bigint::BigUint;
use super::parse::GRID;
use std::cmp::Ordering;
use std::fmt::{self, Write as _};

/// Which `f64` formatting trait is being mirrored.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// `Display`: plain positional notation.
    Plain,
    /// `LowerExp` (`e`) or `UpperExp` (`E`): `d.ddd` then the exponent.
    Exp(char),
}

/// Formats the expansion `words` (most significant first) as `f64` formats one number.
pub(super) fn fmt_words(words: &[f64], f: &mut fmt::Formatter<'_>, style: Style) -> fmt::Result {
    if words.iter().any(|w| !w.is_finite()) {
        // NaN / ±Inf: the float sum has the right kind (Inf − Inf is NaN), and f64's own
        // formatting spells and pads it exactly as f64 does.
        let special: f64 = words.iter().sum();
        return match style {
            Style::Plain => fmt::Display::fmt(&special, f),
            Style::Exp('E') => fmt::UpperExp::fmt(&special, f),
            Style::Exp(_) => fmt::LowerExp::fmt(&special, f),
        };
    }
    let total = words
        .iter()
        .fold(SInt::zero(), |acc, &w| acc.add(&SInt::from_f64(w)));
    let neg = if total.mag.is_zero() {
        words.first().is_some_and(|w| w.is_sign_negative())
    } else {
        total.neg
    };
    let dec = if total.mag.is_zero() {
        Decimal::zero()
    } else if f.precision().is_some() {
        Decimal::exact(&total.mag)
    } else {
        shortest(words, &total).unwrap_or_else(|| Decimal::exact(&total.mag))
    };
    let body = match (style, f.precision()) {
        (Style::Plain, None) => {
            let frac = usize::try_from(-dec.pow).unwrap_or(0);
            plain(&dec, frac)
        }
        (Style::Plain, Some(prec)) => {
            let q = i64::try_from(prec).map_or(i64::MIN, |p| -p);
            plain(&dec.round_at(q), prec)
        }
        (Style::Exp(e), None) => {
            let n = dec.digits.len();
            scientific(&dec, n, e)
        }
        (Style::Exp(e), Some(prec)) => {
            let n = prec.saturating_add(1);
            scientific(&dec.round_to_significant(n), n, e)
        }
    };
    let sign = if neg {
        "-"
    } else if f.sign_plus() {
        "+"
    } else {
        ""
    };
    write_padded(f, sign, &body)
}

/// A signed big integer on the 2^-GRID grid (magnitude and sign; zero may carry either sign).
#[derive(Clone, Debug)]
struct SInt {
    neg: bool,
    mag: BigUint,
}

impl SInt {
    fn zero() -> SInt {
        SInt {
            neg: false,
            mag: BigUint::zero(),
        }
    }

    fn from_big(neg: bool, mag: BigUint) -> SInt {
        SInt { neg, mag }
    }

    /// A finite `f64` on the grid (exact: the finest f64 spacing is 2^-1074 = 4 units).
    fn from_f64(w: f64) -> SInt {
        let (m, unit) = decompose(w);
        SInt::from_big(w.is_sign_negative(), BigUint::from_u64(m).shl(unit))
    }

    fn neg(&self) -> SInt {
        SInt::from_big(!self.neg, self.mag.clone())
    }

    fn add(&self, other: &SInt) -> SInt {
        if self.neg == other.neg {
            return SInt::from_big(self.neg, self.mag.add(&other.mag));
        }
        match self.mag.cmp(&other.mag) {
            Ordering::Less => SInt::from_big(
                other.neg,
                other.mag.checked_sub(&self.mag).unwrap_or_default(),
            ),
            _ => SInt::from_big(
                self.neg,
                self.mag.checked_sub(&other.mag).unwrap_or_default(),
            ),
        }
    }

    /// Numeric order (−0 == +0).
    fn cmp(&self, other: &SInt) -> Ordering {
        let sign = |x: &SInt| !x.mag.is_zero() && x.neg;
        match (sign(self), sign(other)) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.mag.cmp(&other.mag),
            (true, true) => other.mag.cmp(&self.mag),
        }
    }
}

/// `|w| = m · 2^(unit − GRID)` with `m` the integer significand (53 bits for normal `w`) and
/// `unit ≥ 2` the grid position of its last bit.
fn decompose(w: f64) -> (u64, usize) {
    let bits = w.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as usize;
    let frac = bits & ((1 << 52) - 1);
    if exp == 0 {
        (frac, 2)
    } else {
        (frac | (1 << 52), exp + 1)
    }
}

/// The reals that round to nearest-even to the finite `w`: `[lo, hi]` on the grid, and whether
/// the ends belong to it (they do iff `w`'s last significand bit is even).
fn rounding_interval(w: f64) -> (SInt, SInt, bool) {
    let (m, unit) = decompose(w);
    if m == 0 {
        // Zero is even: ±2^-1075 (2 grid units) still round to it.
        let two = BigUint::from_u64(2);
        return (
            SInt::from_big(true, two.clone()),
            SInt::from_big(false, two),
            true,
        );
    }
    let center = BigUint::from_u64(m).shl(unit);
    let half_up = BigUint::from_u64(1).shl(unit - 1);
    // Just above a power of two the spacing below is half the spacing above, except at the
    // smallest normal, whose lower neighbours are the subnormals with the same spacing.
    let half_down = if m == 1 << 52 && unit > 2 {
        BigUint::from_u64(1).shl(unit - 2)
    } else {
        half_up.clone()
    };
    let closed = m & 1 == 0;
    let lo = SInt::from_big(false, center.checked_sub(&half_down).unwrap_or_default());
    let hi = SInt::from_big(false, center.add(&half_up));
    if w.is_sign_negative() {
        (hi.neg(), lo.neg(), closed)
    } else {
        (lo, hi, closed)
    }
}

/// The words that the greedy parse gives just across a tie at level `k`: when `w_k+1` is exactly
/// half the spacing from `w_k` to its neighbour `w'` on `w_k+1`'s side, decimals just beyond that
/// midpoint give `(w', −w_k+1)` and the same words below, which the parser normalises back to
/// `words` (parse.rs `normalise`). `None` when level `k` is not a tie.
fn twin_at(words: &[f64], k: usize) -> Option<Vec<f64>> {
    let (a, b) = (words[k], *words.get(k + 1)?);
    if !super::parse::is_tie(a, b) {
        return None;
    }
    let mut twin = words.to_vec();
    twin[k] = a + 2.0 * b;
    twin[k + 1] = -b;
    Some(twin)
}

/// J: the reals whose greedy expansion is `words` (intersection of each word's rounding
/// interval, shifted by the words above it), for positive words (`flip`: negate them first);
/// `None` if it is empty or the words are not normalised.
fn greedy_interval(words: &[f64], flip: bool) -> Option<Interval> {
    let mut sum = SInt::zero();
    let mut lo: Option<(SInt, bool)> = None;
    let mut hi: Option<(SInt, bool)> = None;
    for &w in words {
        let w = if flip { -w } else { w };
        let (a, b, closed) = rounding_interval(w);
        let (a, b) = (sum.add(&a), sum.add(&b));
        lo = Some(match lo {
            Some((l, c)) => match a.cmp(&l) {
                Ordering::Greater => (a, closed),
                Ordering::Equal => (l, c && closed),
                Ordering::Less => (l, c),
            },
            None => (a, closed),
        });
        hi = Some(match hi {
            Some((h, c)) => match b.cmp(&h) {
                Ordering::Less => (b, closed),
                Ordering::Equal => (h, c && closed),
                Ordering::Greater => (h, c),
            },
            None => (b, closed),
        });
        sum = sum.add(&SInt::from_f64(w));
    }
    let ((lo, lo_closed), (hi, hi_closed)) = (lo?, hi?);
    if lo.neg || lo.mag.is_zero() {
        // Only for words whose leading one disagrees in sign with their sum (not normalised).
        return None;
    }
    let empty = match lo.cmp(&hi) {
        Ordering::Greater => true,
        Ordering::Equal => !(lo_closed && hi_closed),
        Ordering::Less => false,
    };
    (!empty).then_some(Interval {
        lo: lo.mag,
        lo_closed,
        hi: hi.mag,
        hi_closed,
    })
}

/// The shortest decimal that parses back to `words` (the nearest to their sum among those), or
/// `None` if no decimal does (see the module docs). `total` is the exact non-zero sum of `words`.
/// The decimals that parse back are those of J(`words`) and, at a tie, of the twin's J on the
/// other side of the midpoint (the parser normalises the twin to `words`): adjacent intervals,
/// joined (either may be empty). (Ties at two levels at once, whose twins would combine, only
/// ever widen the set further: the decimal found still parses back, though a shorter one could
/// exist.)
fn shortest(words: &[f64], total: &SInt) -> Option<Decimal> {
    // Work with a positive value: rounding is symmetric, so J mirrors with the words.
    let flip = total.neg;
    // J(`words`) is empty for the normalised form of a tie whose decimals' greedy words are
    // the twin (1, 2^-53, 2^-110, 0 for quad-double): then the twin's J is the whole set.
    let mut j = greedy_interval(words, flip);
    for k in 0..words.len().saturating_sub(1) {
        if let Some(t) = twin_at(words, k).and_then(|w| greedy_interval(&w, flip)) {
            j = Some(match j {
                Some(j) => j.join(t),
                None => t,
            });
        }
    }
    let j = j?;

    // Bracket the answer from the sizes of J's width and of its top, then check the bracket
    // (the estimates use floating-point logarithms) and bisect.
    const LOG10_2: f64 = std::f64::consts::LOG10_2;
    let width = j.hi.checked_sub(&j.lo).unwrap_or_default();
    let est_lo = ((width.bit_len() as f64 - (GRID + 1) as f64) * LOG10_2).floor() as i64 - 1;
    let est_hi = ((j.hi.bit_len() as f64 - GRID as f64) * LOG10_2).ceil() as i64 + 1;
    // Every grid integer is a multiple of 10^-GRID (2^-GRID = 5^GRID / 10^GRID), so P_MIN works
    // for any non-empty J; J lies below 2^1024 < 10^309, so P_MAX never does.
    const P_MIN: i64 = -(GRID as i64);
    const P_MAX: i64 = 309;
    let mut p_ok = est_lo.clamp(P_MIN, P_MAX);
    if j.multiples(p_ok).is_none() {
        // J's ends are multiples of 2^-1075, so a non-empty J holds a grid integer, which is a
        // multiple of 10^-GRID: failing here means J is empty.
        p_ok = P_MIN;
        j.multiples(p_ok)?;
    }
    let mut p_bad = est_hi.min(P_MAX).max(p_ok + 1);
    if p_bad < P_MAX && j.multiples(p_bad).is_some() {
        p_bad = P_MAX;
    }
    while p_bad - p_ok > 1 {
        let mid = p_ok + (p_bad - p_ok) / 2;
        if j.multiples(mid).is_some() {
            p_ok = mid;
        } else {
            p_bad = mid;
        }
    }
    let (m_min, m_max) = j.multiples(p_ok)?;
    // The multiple of 10^p nearest the value, ties to even, moved into J if it fell outside.
    let (num, den) = over_pow10(&total.mag, p_ok);
    let (mut m, r) = num.divrem(&den)?;
    match r.shl(1).cmp(&den) {
        Ordering::Greater => m.add_small(1),
        Ordering::Equal if m.bit(0) => m.add_small(1),
        _ => {}
    }
    let m = m.max(m_min).min(m_max);
    Some(Decimal::from_int(&m, p_ok))
}

/// A positive interval on the 2^-GRID grid with open or closed ends.
struct Interval {
    lo: BigUint,
    lo_closed: bool,
    hi: BigUint,
    hi_closed: bool,
}

impl Interval {
    /// The union with `other` when the two touch or overlap (else `self`).
    fn join(self, other: Interval) -> Interval {
        if other.lo > self.hi || self.lo > other.hi {
            return self;
        }
        let (lo, lo_closed) = match other.lo.cmp(&self.lo) {
            Ordering::Less => (other.lo, other.lo_closed),
            Ordering::Equal => (self.lo, self.lo_closed || other.lo_closed),
            Ordering::Greater => (self.lo, self.lo_closed),
        };
        let (hi, hi_closed) = match other.hi.cmp(&self.hi) {
            Ordering::Greater => (other.hi, other.hi_closed),
            Ordering::Equal => (self.hi, self.hi_closed || other.hi_closed),
            Ordering::Less => (self.hi, self.hi_closed),
        };
        Interval {
            lo,
            lo_closed,
            hi,
            hi_closed,
        }
    }

    /// The least and greatest `m` with `m·10^p` in the interval, if there is one.
    fn multiples(&self, p: i64) -> Option<(BigUint, BigUint)> {
        let (num, den) = over_pow10(&self.lo, p);
        let (mut m_min, r) = num.divrem(&den)?;
        if !(r.is_zero() && self.lo_closed) {
            m_min.add_small(1);
        }
        let (num, den) = over_pow10(&self.hi, p);
        let (q, r) = num.divrem(&den)?;
        let m_max = if r.is_zero() && !self.hi_closed {
            q.checked_sub(&BigUint::from_u64(1))?
        } else {
            q
        };
        (m_min <= m_max).then_some((m_min, m_max))
    }
}

/// `(num, den)` with `num / den = z·2^-GRID / 10^p`, both integers. `|p| ≤ GRID + 1` here.
fn over_pow10(z: &BigUint, p: i64) -> (BigUint, BigUint) {
    let pow = BigUint::pow(10, u32::try_from(p.unsigned_abs()).unwrap_or(u32::MAX));
    if p >= 0 {
        (z.clone(), pow.shl(GRID))
    } else {
        (z.mul(&pow), BigUint::from_u64(1).shl(GRID))
    }
}

/// A non-negative decimal `int(digits) · 10^pow` (ASCII digits, no leading zeros except the
/// single digit of zero).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Decimal {
    /// ASCII digits, most significant first.
    pub(crate) digits: Vec<u8>,
    /// Power of ten of the last digit.
    pub(crate) pow: i64,
}

impl Decimal {
    pub(crate) fn zero() -> Decimal {
        Decimal {
            digits: vec![b'0'],
            pow: 0,
        }
    }

    /// `m · 10^pow` with trailing zeros of `m` moved into the exponent.
    pub(crate) fn from_int(m: &BigUint, pow: i64) -> Decimal {
        let mut d = Decimal {
            digits: m.to_decimal(),
            pow,
        };
        while d.digits.len() > 1 && d.digits.last() == Some(&b'0') {
            d.digits.pop();
            d.pow += 1;
        }
        d
    }

    /// All the digits of `z·2^-GRID` (a finite decimal: `2^-k = 5^k / 10^k`).
    fn exact(z: &BigUint) -> Decimal {
        let tz = z.trailing_zeros().unwrap_or(0);
        let odd = z.shr(tz);
        if tz >= GRID {
            Decimal::from_int(&odd.shl(tz - GRID), 0)
        } else {
            let k = GRID - tz;
            let five = BigUint::pow(5, k as u32);
            Decimal::from_int(&odd.mul(&five), -(k as i64))
        }
    }

    fn is_zero(&self) -> bool {
        self.digits.iter().all(|&d| d == b'0')
    }

    /// Rounded to a multiple of `10^q`, half to even. Already a multiple: returned as is
    /// (then `pow` may stay below `q`; the layout pads with zeros).
    fn round_at(&self, q: i64) -> Decimal {
        if q <= self.pow {
            return self.clone();
        }
        let len = self.digits.len();
        let drop = usize::try_from(q.saturating_sub(self.pow)).unwrap_or(usize::MAX);
        let (kept, first, rest) = if drop > len {
            // The value is below 10^(q-1): far under half a unit.
            (&[][..], b'0', &[][..])
        } else {
            let (kept, dropped) = self.digits.split_at(len - drop);
            match dropped.split_first() {
                Some((&first, rest)) => (kept, first, rest),
                None => (kept, b'0', &[][..]),
            }
        };
        let rest_nonzero = rest.iter().any(|&d| d != b'0');
        let last_odd = kept.last().is_some_and(|&d| (d - b'0') & 1 == 1);
        let up = first > b'5' || (first == b'5' && (rest_nonzero || last_odd));
        let mut digits = kept.to_vec();
        if up {
            // Increment with carry; a carry out of the top adds a leading 1.
            let mut carried = true;
            for d in digits.iter_mut().rev() {
                if *d == b'9' {
                    *d = b'0';
                } else {
                    *d += 1;
                    carried = false;
                    break;
                }
            }
            if carried {
                digits.insert(0, b'1');
            }
        }
        if digits.is_empty() {
            digits.push(b'0');
        }
        Decimal { digits, pow: q }
    }

    /// Rounded to `n ≥ 1` significant digits, half to even (zero stays zero).
    fn round_to_significant(&self, n: usize) -> Decimal {
        if self.is_zero() {
            return Decimal::zero();
        }
        let n = i64::try_from(n).unwrap_or(i64::MAX);
        let len = self.digits.len() as i64;
        let mut r = self.round_at((self.pow + len).saturating_sub(n));
        if r.digits.len() as i64 > n {
            // 99…9 rounded up to 100…0: one digit too many, all trailing ones zero.
            r.digits.pop();
            r.pow += 1;
        }
        r
    }
}

/// A piece of output: literal text, or a run of zeros (which may be long: `{:.100000}`).
pub(crate) enum Piece {
    Text(String),
    Zeros(usize),
}

fn body_len(body: &[Piece]) -> usize {
    body.iter().fold(0usize, |acc, p| {
        acc.saturating_add(match p {
            Piece::Text(t) => t.len(),
            Piece::Zeros(n) => *n,
        })
    })
}

/// Positional notation with exactly `frac` digits after the point (none and no point if 0).
/// Needs `dec.pow ≥ -frac`.
pub(crate) fn plain(dec: &Decimal, frac: usize) -> Vec<Piece> {
    let digits = String::from_utf8_lossy(&dec.digits).into_owned();
    let n = digits.len();
    let mut out = Vec::new();
    let shown_frac;
    if dec.pow >= 0 {
        out.push(Piece::Text(digits));
        out.push(Piece::Zeros(usize::try_from(dec.pow).unwrap_or(0)));
        shown_frac = 0;
        if frac > 0 {
            out.push(Piece::Text(".".into()));
        }
    } else {
        let k = usize::try_from(dec.pow.unsigned_abs()).unwrap_or(usize::MAX);
        if n > k {
            let (int, fr) = digits.split_at(n - k);
            out.push(Piece::Text(format!("{int}.{fr}")));
        } else {
            out.push(Piece::Text("0.".into()));
            out.push(Piece::Zeros(k - n));
            out.push(Piece::Text(digits));
        }
        shown_frac = k;
    }
    out.push(Piece::Zeros(frac.saturating_sub(shown_frac)));
    out
}

/// `d.ddd` with `n` significant digits (zero-padded) then `e` and the exponent.
pub(crate) fn scientific(dec: &Decimal, n: usize, e: char) -> Vec<Piece> {
    let digits = String::from_utf8_lossy(&dec.digits).into_owned();
    let exp = if dec.is_zero() {
        0
    } else {
        dec.pow + digits.len() as i64 - 1
    };
    let mut out = Vec::new();
    let (first, rest) = digits.split_at(1.min(digits.len()));
    out.push(Piece::Text(first.to_string()));
    if n > 1 {
        out.push(Piece::Text(format!(".{rest}")));
        out.push(Piece::Zeros(n.saturating_sub(digits.len())));
    }
    out.push(Piece::Text(format!("{e}{exp}")));
    out
}

/// Writes `sign` and `body` honouring width, fill, alignment and the `0` flag as `f64` does
/// (numbers align right by default; `0` pads between the sign and the digits).
pub(crate) fn write_padded(f: &mut fmt::Formatter<'_>, sign: &str, body: &[Piece]) -> fmt::Result {
    let len = body_len(body).saturating_add(sign.len());
    let pad = f.width().map_or(0, |w| w.saturating_sub(len));
    let write_body = |f: &mut fmt::Formatter<'_>| -> fmt::Result {
        for p in body {
            match p {
                Piece::Text(t) => f.write_str(t)?,
                Piece::Zeros(n) => write_zeros(f, *n)?,
            }
        }
        Ok(())
    };
    if f.sign_aware_zero_pad() {
        f.write_str(sign)?;
        write_zeros(f, pad)?;
        return write_body(f);
    }
    let (pre, post) = match f.align() {
        Some(fmt::Alignment::Left) => (0, pad),
        Some(fmt::Alignment::Center) => (pad / 2, pad - pad / 2),
        _ => (pad, 0),
    };
    let fill = f.fill();
    for _ in 0..pre {
        f.write_char(fill)?;
    }
    f.write_str(sign)?;
    write_body(f)?;
    for _ in 0..post {
        f.write_char(fill)?;
    }
    Ok(())
}

fn write_zeros(f: &mut fmt::Formatter<'_>, mut n: usize) -> fmt::Result {
    const ZEROS: &str = "0000000000000000000000000000000000000000000000000000000000000000";
    while n > 0 {
        let k = n.min(ZEROS.len());
        f.write_str(&ZEROS[..k])?;
        n -= k;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str, pow: i64) -> Decimal {
        Decimal {
            digits: s.as_bytes().to_vec(),
            pow,
        }
    }

    #[test]
    fn rounding_of_digit_strings() {
        assert_eq!(dec("125", -2).round_at(-1), dec("12", -1));
        assert_eq!(dec("135", -2).round_at(-1), dec("14", -1));
        assert_eq!(dec("1251", -3).round_at(-1), dec("13", -1));
        assert_eq!(dec("999", -3).round_at(-2), dec("100", -2));
        assert_eq!(dec("5", -1).round_at(0), dec("0", 0));
        assert_eq!(dec("51", -2).round_at(0), dec("1", 0));
        assert_eq!(dec("5", -3).round_at(0), dec("0", 0));
        assert_eq!(dec("999", 0).round_to_significant(2), dec("10", 2));
        assert_eq!(dec("12", 5).round_to_significant(4), dec("12", 5));
    }

    #[test]
    fn intervals_of_words() {
        // 1.0 is a power of two: the interval below is half the one above, closed ends.
        let (lo, hi, closed) = rounding_interval(1.0);
        let one = BigUint::from_u64(1).shl(GRID);
        assert!(closed);
        assert_eq!(lo.mag, one.checked_sub(&one.shr(54)).unwrap_or_default());
        assert_eq!(hi.mag, one.add(&one.shr(53)));
        let (lo, hi, closed) = rounding_interval(-f64::from_bits(1));
        assert!(!closed && lo.neg && hi.neg);
        assert_eq!((lo.mag.to_u64(), hi.mag.to_u64()), (Some(6), Some(2)));
    }
}
