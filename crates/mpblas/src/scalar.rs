//! The one trait every scalar format implements: `f64`, [`Dd`](crate::Dd), [`Qd`](crate::Qd).
//!
//! Routines (BLAS, solvers) are generic over it. It is deliberately small; formats whose
//! precision is chosen at run time (RNS) take a context argument instead of widening it.

use std::fmt::{Debug, Display};
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

/// What a scalar format must provide.
pub trait Scalar:
    Copy
    + Send
    + Sync
    + Default
    + Debug
    + Display
    + PartialEq
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
    + 'static
{
    /// Short lowercase name used in tables and kernel names: `"f64"`, `"dd"`, `"qd"`.
    const NAME: &'static str;
    /// Number of `f64` words in the representation (1, 2 or 4).
    const WORDS: usize;
    /// Unit roundoff `u` of the format: 2^-53, 2^-106, 2^-212. Error bounds are stated in it.
    const UNIT_ROUNDOFF: f64;
    /// A bound on the relative error of one `+`, `−` or `×` (in absolute terms, e.g. `5u` for
    /// double-double multiplication), for operands and results in the normal range.
    /// This is the constant BLAS error bounds use.
    const ARITH_ERROR_BOUND: f64;
    /// Zero.
    const ZERO: Self;
    /// One.
    const ONE: Self;

    /// The format's value nearest to `x` (exact for every finite `f64`).
    fn from_f64(x: f64) -> Self;
    /// The `f64` nearest to the value (the leading word for normalised multi-word formats).
    fn to_f64(self) -> f64;
    /// The words of the representation, most significant first (`WORDS` of them are used).
    fn words(self) -> [f64; 4];
    /// Absolute value.
    fn abs(self) -> Self;
    /// Square root (NaN for negative arguments, as `f64::sqrt`).
    fn sqrt(self) -> Self;
    /// `self * b` for a plain `f64` (cheaper and more accurate than converting `b` first).
    fn mul_f64(self, b: f64) -> Self;
    /// `self + b` for a plain `f64`.
    fn add_f64(self, b: f64) -> Self;
    /// True if neither infinite nor NaN.
    fn is_finite(self) -> bool;
    /// True if NaN.
    fn is_nan(self) -> bool;
}

impl Scalar for f64 {
    const NAME: &'static str = "f64";
    const WORDS: usize = 1;
    const UNIT_ROUNDOFF: f64 = f64::EPSILON / 2.0;
    const ARITH_ERROR_BOUND: f64 = f64::EPSILON / 2.0;
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;

    #[inline]
    fn from_f64(x: f64) -> Self {
        x
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline]
    fn words(self) -> [f64; 4] {
        [self, 0.0, 0.0, 0.0]
    }
    #[inline]
    fn abs(self) -> Self {
        f64::abs(self)
    }
    #[inline]
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
    #[inline]
    fn mul_f64(self, b: f64) -> Self {
        self * b
    }
    #[inline]
    fn add_f64(self, b: f64) -> Self {
        self + b
    }
    #[inline]
    fn is_finite(self) -> bool {
        f64::is_finite(self)
    }
    #[inline]
    fn is_nan(self) -> bool {
        f64::is_nan(self)
    }
}
