//! Exact decimal conversion of [`Dd`] and [`Qd`]: parsing ([`FromStr`]) and printing
//! ([`Display`](fmt::Display), [`LowerExp`](fmt::LowerExp), [`UpperExp`](fmt::UpperExp)).
//!
//! Both directions are exact, by big-integer arithmetic on the dyadic values, and written once
//! for any number of words:
//!
//! - **Parsing** gives the *greedy correctly rounded expansion* of the decimal's exact value
//!   `v`: `w0 = RN(v)`, `w1 = RN(v − w0)`, …, each a round-to-nearest-even to `f64` with
//!   subnormals and overflow, **normalised at ties**: where `w_k` is odd and `w_k+1` exactly
//!   half its spacing back toward the even neighbour (so `fl(w_k + w_k+1) ≠ w_k`), the tie
//!   moves to the even word (`w_k` becomes that neighbour, `w_k+1` changes sign), exactly, the
//!   same value. Then `x + 0 == x` and `x × 1 == x` hold for every parsed value (except at the
//!   overflow edge, where the even neighbour would be infinite), and `w0` is `RN(v)` except at
//!   such a tie, where it is its neighbour. The grammar is `f64::from_str`'s, after trimming
//!   surrounding whitespace. Zero words below the leading one are `+0.0`. See [`parse`].
//! - **Printing without a precision** gives the shortest decimal that parses back to exactly
//!   the same words (so `x.to_string().parse()` returns `x` bit for bit, for every finite value
//!   that parsing can return, which includes every normalised `Dd` built by [`Dd::new`]).
//!   That can be long: `Dd::new(1.0, 1e-300)` needs about 300 digits. `Display` uses plain
//!   notation like `f64` (`1e300` prints 301 digits), `LowerExp` `d.ddde±N` (`1.5e-7`).
//! - **Printing with a precision** (`{:.10}`, `{:.5e}`) rounds the exact value half to even,
//!   as `f64` does. Width, fill, alignment, `+` and `0` flags behave as for `f64`; NaN and
//!   infinities are spelled as `f64` spells them.

pub(crate) mod bigint;
pub(crate) mod parse;
pub(crate) mod print;

use crate::{dd::Dd, error::ParseError, qd::Qd};
use print::Style;
use std::fmt;
use std::str::FromStr;

impl FromStr for Dd {
    type Err = ParseError;

    /// The double-double nearest the decimal `s` in the greedy sense: `hi` is the exact value
    /// of `s` correctly rounded to `f64` (nearest-even, with subnormals; ±Inf on overflow, then
    /// `lo = 0`) and `lo` is the exact rest correctly rounded, then normalised. Accepts
    /// `f64::from_str`'s syntax after trimming surrounding whitespace; a zero `lo` is `+0.0`.
    ///
    /// Normalised at a tie: a decimal just below the midpoint `hi + ulp(hi)/2`, with `hi` odd,
    /// would give `lo = ulp(hi)/2` (the rest rounds up to it) and `fl(hi + lo) ≠ hi`; the
    /// result is then `hi + ulp(hi)` (even) and `lo = −ulp(hi)/2`, the same value, so that
    /// `x + 0 == x` and `x × 1 == x` hold for it.
    ///
    /// At the top of the range, as IEEE 754 rounds: a decimal below `Dd::MAX + 2^916` (half
    /// the spacing of `Dd::MAX`'s last word) gives at most [`Dd::MAX`]; one at or above it gives
    /// +Inf (its tie has no finite even neighbour: the words would be `{f64::MAX, 2^970}`, not
    /// normalised). The same holds for negative decimals and [`Dd::MIN`].
    ///
    /// # Errors
    ///
    /// A [`ParseError`] whose [`kind`](ParseError::kind) says what was wrong, with
    /// `format == "dd"`.
    ///
    /// ```
    /// use mpblas::Dd;
    /// let x: Dd = "0.1".parse().unwrap();
    /// assert_eq!(x.hi, 0.1);
    /// assert_eq!(x.lo, -5.551115123125783e-18);
    /// assert!("0x10".parse::<Dd>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Dd, ParseError> {
        let [hi, lo] = parse::parse_words::<2>(s, "dd")?;
        Ok(Dd { hi, lo })
    }
}

impl FromStr for Qd {
    type Err = ParseError;

    /// The quad-double nearest the decimal `s` in the greedy sense: `c[0]` is the exact value
    /// of `s` correctly rounded to `f64`, and each further component the exact rest correctly
    /// rounded (nearest-even, with subnormals; ±Inf and zeros on overflow), then normalised at
    /// ties as [`Dd`]'s `from_str` (so that `x + 0 == x`). Syntax and zero signs as for
    /// [`Dd`]. At the top of the range: below `Qd::MAX + 2^808` (half the spacing of its last
    /// word) at most [`Qd::MAX`], at or above it ±Inf, as for [`Dd`].
    ///
    /// # Errors
    ///
    /// A [`ParseError`] whose [`kind`](ParseError::kind) says what was wrong, with
    /// `format == "qd"`.
    fn from_str(s: &str) -> Result<Qd, ParseError> {
        let c = parse::parse_words::<4>(s, "qd")?;
        Ok(Qd { c })
    }
}

impl fmt::Display for Dd {
    /// Plain notation, shortest round-trip digits or `{:.N}` correctly rounded.
    ///
    /// ```
    /// use mpblas::Dd;
    /// // A decimal's own double-double prints back as that decimal…
    /// let tenth: Dd = "0.1".parse().unwrap();
    /// assert_eq!(tenth.to_string(), "0.1");
    /// // …while the f64 nearest 0.1 (so lo = 0) needs every digit of its exact value.
    /// assert_eq!(
    ///     Dd::from(0.1).to_string(),
    ///     "0.1000000000000000055511151231257827021181583404541015625"
    /// );
    /// assert_eq!(format!("{:.3}", Dd::new(2.0, 1e-20)), "2.000");
    /// assert_eq!(format!("{:+.5e}", tenth), "+1.00000e-1");
    /// assert_eq!(format!("{:>8}", Dd::from(-2.5)), "    -2.5");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        print::fmt_words(&[self.hi, self.lo], f, Style::Plain)
    }
}

impl fmt::LowerExp for Dd {
    /// `d.ddde±N`, shortest round-trip digits or `{:.Ne}` correctly rounded.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        print::fmt_words(&[self.hi, self.lo], f, Style::Exp('e'))
    }
}

impl fmt::UpperExp for Dd {
    /// As [`LowerExp`](fmt::LowerExp) with `E`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        print::fmt_words(&[self.hi, self.lo], f, Style::Exp('E'))
    }
}

impl fmt::Display for Qd {
    /// Plain notation, shortest round-trip digits or `{:.N}` correctly rounded.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        print::fmt_words(&self.c, f, Style::Plain)
    }
}

impl fmt::LowerExp for Qd {
    /// `d.ddde±N`, shortest round-trip digits or `{:.Ne}` correctly rounded.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        print::fmt_words(&self.c, f, Style::Exp('e'))
    }
}

impl fmt::UpperExp for Qd {
    /// As [`LowerExp`](fmt::LowerExp) with `E`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        print::fmt_words(&self.c, f, Style::Exp('E'))
    }
}
