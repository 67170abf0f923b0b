//! Decimal string → greedy correctly rounded expansion of `N` words.
//!
//! # Method
//!
//! The string denotes the exact rational `v = D·10^E`. Every word of every expansion, and
//! every rounding boundary between expansions (a sum of words plus half a gap of the next
//! word), is an integer multiple of 2^-1075. So it suffices to know `v` on the grid 2^-1076
//! with one extra "sticky" bit: `Y = 2⌊v·2^1075⌋ + [v·2^1075 is not an integer]`. `Y` compares
//! with every boundary (an even multiple of 2^-1076) exactly as `v` does, and stays so after
//! subtracting words (multiples of 4 grid units). The greedy expansion is then integer work on
//! `Y`: round to 53 bits (or to the subnormal grid) to nearest-even, subtract, repeat.
//!
//! # Long inputs
//!
//! A boundary `m` lies below 2^1025 and is a multiple of 2^-1075, so it has at most 309 integer
//! and 1075 fraction digits: at most 1384 significant digits. If the input has more than
//! [`MAX_DIGITS`] = 1500 significant digits, the first 1500 form `D` and the rest only say
//! whether `v` is strictly above `D·10^E`. No boundary can lie strictly between `D·10^E` and
//! `(D+1)·10^E` (it would need more than 1384 digits), so `v` may be replaced by
//! `D·10^E + ε`. (For `f64` alone 768 digits suffice; two or more words need the larger bound
//! because the low word may sit near 2^-1074 while the high one sits near 2^1023.)

use super::bigint::BigUint;
use crate::error::{ParseError, ParseErrorKind};

/// The binary point of the fixed-point grid: a grid integer `Y` stands for `Y·2^-GRID`.
pub(super) const GRID: usize = 1076;

/// Significant digits kept exactly; the rest only contribute a sticky bit (see module docs).
const MAX_DIGITS: usize = 1500;

/// Parses `s` as the greedy correctly rounded `N`-word expansion of the decimal it denotes:
/// `w0 = RN(v)`, `w1 = RN(v − w0)`, …, each a round-to-nearest-even to `f64` with subnormals
/// and overflow (an overflowing `w0` gives ±Inf and zeros below it), then [`normalise`]d at
/// ties (a decimal at or beyond the midpoint above the format's `MAX` gives ±Inf too).
///
/// Accepts what `f64::from_str` accepts (sign, digits with an optional point, an optional
/// `e`/`E` exponent with sign, `inf`/`infinity`/`nan` in any case), after trimming surrounding
/// whitespace. Words below the leading one that are zero are `+0.0`; the sign of a zero value
/// is the sign of `w0`. `format` names the target type in errors (`"dd"`, `"qd"`).
///
/// # Errors
///
/// [`ParseError`] with kind [`ParseErrorKind::Empty`], [`ParseErrorKind::NoDigits`],
/// [`ParseErrorKind::InvalidDigit`] or [`ParseErrorKind::InvalidExponent`].
pub(crate) fn parse_words<const N: usize>(
    s: &str,
    format: &'static str,
) -> Result<[f64; N], ParseError> {
    Ok(match scan(s, format, MAX_DIGITS, 1_000_000_000_000_000)? {
        Scanned::Inf(neg) => leading::<N>(if neg { -f64::INFINITY } else { f64::INFINITY }),
        Scanned::Nan(neg) => leading::<N>(if neg { -f64::NAN } else { f64::NAN }),
        Scanned::Number(neg, digits, exp) => normalise(digits.into_words::<N>(neg, exp)),
    })
}

/// Whether `b` is exactly half the spacing from `a` to its neighbouring double on `b`'s side:
/// a tie of `a + b`, where round to nearest even may leave `a`.
pub(super) fn is_tie(a: f64, b: f64) -> bool {
    if b == 0.0 || !a.is_finite() {
        return false;
    }
    let neighbour = if b > 0.0 { a.next_up() } else { a.next_down() };
    // Adjacent doubles: the difference is exact, and so is 2b.
    neighbour.is_finite() && neighbour - a == 2.0 * b
}

/// The greedy words rewritten so that every pair is normalised, `RN(w_k + w_k+1) = w_k`, as
/// the formats' own renormalisations leave them (`x + 0 == x` relies on it). The greedy words
/// of a decimal are that already except at a tie: the decimal just beyond the midpoint of two
/// doubles gives `w_k` odd and `w_k+1` exactly half its spacing back toward the even neighbour
/// (issue 11: `1.000000000000000333066907387546962127089500427246093749999999` gave
/// `lo = ulp(hi)/2` with an odd `hi`), and FastTwoSum moves the tie to the even word, exactly
/// (the same value). Passes from the bottom until nothing moves.
///
/// # The overflow edge
///
/// A tie that reaches the top pair with `w0 = ±f64::MAX` (odd) and `w1 = ±2^970` (half its
/// spacing) cannot move: its even neighbour is `±2^1024`. The decimal then lies at or beyond
/// the midpoint between the format's largest value ([`Dd::MAX`](crate::Dd::MAX),
/// [`Qd::MAX`](crate::Qd::MAX), whose last word is odd) and the next value of the same
/// spacing, which has no finite words; so, as IEEE 754 rounds to nearest ("a result at least
/// `MAX + ulp/2` in magnitude rounds to infinity", ties included), the result is ±Inf with
/// zeros below, as when `w0` itself overflows. Decimals below that midpoint give the greedy
/// words of `MAX` or less, normalised already (issue 11: `"1.797693134862315807937289714053034e308"`
/// gave `{f64::MAX, 2^970}`, above `Dd::MAX`, so that `d + Dd::ZERO` was +Inf).
pub(crate) fn normalise<const N: usize>(mut w: [f64; N]) -> [f64; N] {
    if !w.iter().all(|x| x.is_finite()) {
        return w;
    }
    let w = loop {
        let mut moved = false;
        for k in (1..N).rev() {
            if !is_tie(w[k - 1], w[k]) {
                continue;
            }
            let (s, e) = crate::eft::fast_two_sum(w[k - 1], w[k]);
            if s != w[k - 1] {
                w[k - 1] = s;
                w[k] = e;
                moved = true;
            }
        }
        if !moved {
            break w;
        }
    };
    // Half the spacing of f64::MAX: 2^970.
    let edge = f64::from_bits((970 + 1023) << 52);
    if N > 1 && w[0].abs() == f64::MAX && w[1] == edge.copysign(w[0]) {
        return leading::<N>(f64::INFINITY.copysign(w[0]));
    }
    w
}

/// What [`scan`] read: `±inf`, `±nan`, or a sign, the significand's digits and the exponent.
pub(crate) enum Scanned {
    /// An infinity (`true`: negative).
    Inf(bool),
    /// A NaN (`true`: written with a minus sign).
    Nan(bool),
    /// `(negative, significand digits, exponent after e/E)`.
    Number(bool, Digits, i128),
}

/// The grammar of [`parse_words`]: trims, reads the sign, `inf`/`infinity`/`nan`, digits with
/// an optional point and an optional exponent. At most `max_digits` significant digits are
/// kept (the rest make the sticky flag), and the exponent saturates at `±max_exp`.
pub(crate) fn scan(
    s: &str,
    format: &'static str,
    max_digits: usize,
    max_exp: i128,
) -> Result<Scanned, ParseError> {
    let err = |kind| ParseError::new(format, s, kind);
    let t = s.trim().as_bytes();
    let (neg, rest) = match t.split_first() {
        None => return Err(err(ParseErrorKind::Empty)),
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        Some(_) => (false, t),
    };
    if rest.eq_ignore_ascii_case(b"inf") || rest.eq_ignore_ascii_case(b"infinity") {
        return Ok(Scanned::Inf(neg));
    }
    if rest.eq_ignore_ascii_case(b"nan") {
        return Ok(Scanned::Nan(neg));
    }

    let mut digits = Digits {
        cap: max_digits,
        ..Digits::default()
    };
    let mut i = 0;
    while let Some(&c) = rest.get(i).filter(|c| c.is_ascii_digit()) {
        digits.push_integer(c - b'0');
        i += 1;
    }
    if rest.get(i) == Some(&b'.') {
        i += 1;
        while let Some(&c) = rest.get(i).filter(|c| c.is_ascii_digit()) {
            digits.push_fraction(c - b'0');
            i += 1;
        }
    }
    if digits.seen == 0 {
        return Err(err(match rest.get(i) {
            None | Some(b'e' | b'E') => ParseErrorKind::NoDigits,
            Some(_) => ParseErrorKind::InvalidDigit,
        }));
    }
    // Exponents beyond the cap cannot matter (the value is ±Inf or ±0 long before), so the
    // exponent saturates there instead of overflowing.
    let mut exp: i128 = 0;
    match rest.get(i) {
        None => {}
        Some(b'e' | b'E') => {
            i += 1;
            let exp_neg = match rest.get(i) {
                Some(b'-') => {
                    i += 1;
                    true
                }
                Some(b'+') => {
                    i += 1;
                    false
                }
                _ => false,
            };
            let start = i;
            while let Some(&c) = rest.get(i).filter(|c| c.is_ascii_digit()) {
                exp = (exp * 10 + i128::from(c - b'0')).min(max_exp);
                i += 1;
            }
            if i == start || i != rest.len() {
                return Err(err(ParseErrorKind::InvalidExponent));
            }
            if exp_neg {
                exp = -exp;
            }
        }
        Some(_) => return Err(err(ParseErrorKind::InvalidDigit)),
    }
    Ok(Scanned::Number(neg, digits, exp))
}

/// `[x, 0, 0, …]`: the expansion of a special value or of a value whose lower words vanish.
fn leading<const N: usize>(x: f64) -> [f64; N] {
    let mut w = [0.0; N];
    if let Some(w0) = w.first_mut() {
        *w0 = x;
    }
    w
}

/// The significant digits of a decimal significand as they are read, with the bookkeeping
/// that turns "digits and a point" into `D · 10^shift`.
#[derive(Default)]
pub(crate) struct Digits {
    /// Significant digits kept (values 0–9), leading zeros skipped, at most `cap`.
    pub(crate) kept: Vec<u8>,
    /// True if a non-zero digit was dropped after `kept` filled up.
    pub(crate) sticky: bool,
    /// The value read so far is `int(kept) · 10^shift` (plus the sticky part).
    pub(crate) shift: i128,
    /// Number of digit characters seen, including zeros (0 means "no significand").
    seen: usize,
    /// Most significant digits kept ([`MAX_DIGITS`] for the `f64` word formats).
    cap: usize,
}

impl Digits {
    fn push_integer(&mut self, d: u8) {
        self.seen += 1;
        if self.kept.is_empty() && d == 0 {
            // A leading zero of the integer part changes nothing.
        } else if self.kept.len() < self.cap {
            self.kept.push(d);
        } else {
            // A dropped integer digit still scales what was kept by 10.
            self.sticky |= d != 0;
            self.shift += 1;
        }
    }

    fn push_fraction(&mut self, d: u8) {
        self.seen += 1;
        if self.kept.is_empty() && d == 0 {
            self.shift -= 1;
        } else if self.kept.len() < self.cap {
            self.kept.push(d);
            self.shift -= 1;
        } else {
            self.sticky |= d != 0;
        }
    }

    /// The greedy expansion of `±int(kept)·10^(shift + exp)` (plus the sticky part).
    fn into_words<const N: usize>(mut self, neg: bool, exp: i128) -> [f64; N] {
        let signed = |x: f64| if neg { -x } else { x };
        let mut e10 = self.shift + exp;
        if !self.sticky {
            // Exact trailing zeros only make D longer; with a sticky bit they must stay, since
            // the "no boundary inside (D, D+1)·10^E" argument needs all MAX_DIGITS digits.
            while self.kept.last() == Some(&0) {
                self.kept.pop();
                e10 += 1;
            }
        }
        if self.kept.is_empty() {
            return leading::<N>(signed(0.0));
        }
        // v lies in [10^(e10+n-1), 10^(e10+n)).
        let n = self.kept.len() as i128;
        if e10 + n > 309 {
            // v ≥ 10^309 > f64::MAX + ulp/2: w0 overflows.
            return leading::<N>(signed(f64::INFINITY));
        }
        if e10 + n <= -324 {
            // v < 10^-324 < 2^-1075: every word rounds to zero.
            return leading::<N>(signed(0.0));
        }
        let d = digits_to_big(&self.kept);
        // e10 now lies in [-324 - MAX_DIGITS, 309]: the conversions below cannot fail.
        let mag = u32::try_from(e10.unsigned_abs()).unwrap_or(0);
        let (floor, exact) = if e10 >= 0 {
            (d.mul(&BigUint::pow(10, mag)).shl(GRID - 1), true)
        } else {
            let num = d.shl(GRID - 1);
            let den = BigUint::pow(10, mag);
            let (q, r) = num.divrem(&den).unwrap_or_default();
            (q, r.is_zero())
        };
        let mut y = floor.shl(1);
        if !exact || self.sticky {
            y.add_small(1);
        }
        greedy::<N>(neg, y)
    }
}

/// The integer whose decimal digits (values 0–9, most significant first) are `digits`.
pub(crate) fn digits_to_big(digits: &[u8]) -> BigUint {
    let mut x = BigUint::zero();
    for chunk in digits.chunks(19) {
        let v = chunk.iter().fold(0u64, |acc, &d| acc * 10 + u64::from(d));
        x.mul_small(10u64.pow(chunk.len() as u32));
        x.add_small(v);
    }
    x
}

/// The greedy expansion of `±y·2^-GRID`, `y` a grid integer whose lowest bit may be sticky
/// (see the module docs): `N` successive round-to-nearest-even steps.
pub(super) fn greedy<const N: usize>(neg: bool, y: BigUint) -> [f64; N] {
    let mut out = [0.0; N];
    let mut r = y;
    let mut r_neg = neg;
    for (k, w) in out.iter_mut().enumerate() {
        // The word's last bit sits at grid position s: 53 significant bits, but never finer
        // than the subnormal spacing 2^-1074 = 4 grid units.
        let s = r.bit_len().saturating_sub(53).max(2);
        let mut q = r.shr(s).to_u64().unwrap_or(0);
        let half = r.bit(s - 1);
        let above_half = half && r.trailing_zeros().is_some_and(|tz| tz < s - 1);
        let up = half && (above_half || q & 1 == 1);
        if up {
            q += 1;
        }
        if q == 0 {
            // |remainder| ≤ 2^-1075: this word and all below it are zero. Only the leading
            // word carries the sign of a zero.
            if k == 0 && r_neg {
                *w = -0.0;
            }
            break;
        }
        let mag = scaled(q, s as i64 - GRID as i64);
        *w = if r_neg { -mag } else { mag };
        if mag.is_infinite() {
            // Overflow of the leading word (lower words are far below f64::MAX).
            break;
        }
        r = if up {
            r_neg = !r_neg;
            BigUint::from_u64(q)
                .shl(s)
                .checked_sub(&r)
                .unwrap_or_default()
        } else {
            r.low_bits(s)
        };
    }
    out
}

/// `q·2^e` as an `f64`, for `0 < q ≤ 2^53` and `q·2^e` representable (normal or subnormal), or
/// ±Inf above `f64::MAX`.
fn scaled(q: u64, e: i64) -> f64 {
    let n = i64::from(64 - q.leading_zeros());
    let top = e + n - 1; // exponent of the leading bit
    if top > 1023 {
        return f64::INFINITY;
    }
    if top >= -1022 {
        let m = if n <= 53 {
            q << (53 - n)
        } else {
            q >> (n - 53)
        };
        f64::from_bits(((top + 1023) as u64) << 52 | (m & ((1 << 52) - 1)))
    } else {
        // Subnormal: the callers' q is already on the 2^-1074 grid, e + 1074 ≥ 0.
        let sh = (e + 1074).clamp(0, 63);
        f64::from_bits(q << sh)
    }
}
