//! `num-traits` implementations for [`Dd`] and [`Qd`], so generic numeric code written against
//! `num_traits::Float` works with the extended formats.
//!
//! Every method forwards to the inherent method of the same name (which documents its error
//! bound). The few that have no inherent twin are documented here.

use crate::{dd::Dd, qd::Qd};
use num_traits::{Float, FromPrimitive, Num, NumCast, One, ToPrimitive, Zero};
use std::num::FpCategory;

macro_rules! impl_num_traits {
    ($t:ident, $name:literal, $lead:expr, $words:expr) => {
        impl Zero for $t {
            #[inline]
            fn zero() -> Self {
                $t::ZERO
            }
            #[inline]
            fn is_zero(&self) -> bool {
                $lead(*self) == 0.0
            }
        }

        impl One for $t {
            #[inline]
            fn one() -> Self {
                $t::ONE
            }
        }

        /// `%` is the remainder with the sign of the dividend (as `f64`). `from_str_radix`
        /// accepts radix 10 only; any other radix is an `InvalidDigit` error.
        impl Num for $t {
            type FromStrRadixErr = crate::error::ParseError;
            fn from_str_radix(s: &str, radix: u32) -> Result<Self, Self::FromStrRadixErr> {
                if radix != 10 {
                    return Err(crate::error::ParseError::new(
                        $name,
                        s,
                        crate::error::ParseErrorKind::InvalidDigit,
                    ));
                }
                s.parse()
            }
        }

        /// Integer conversions truncate toward zero and are exact whenever the integer part
        /// fits the target type (unlike `f64`, all 64 bits of an `i64`/`u64` are kept);
        /// out-of-range values and NaN give `None`.
        impl ToPrimitive for $t {
            fn to_i64(&self) -> Option<i64> {
                self.to_i128().and_then(|v| i64::try_from(v).ok())
            }
            fn to_u64(&self) -> Option<u64> {
                self.to_i128().and_then(|v| u64::try_from(v).ok())
            }
            fn to_i128(&self) -> Option<i128> {
                if !self.is_finite() {
                    return None;
                }
                let t = self.trunc();
                // Every word of an integer-valued expansion above 2^-1 is an integer; words
                // beyond 2^127 cannot fit, and i128 overflow is caught by checked_add.
                let mut acc: i128 = 0;
                for w in $words(t) {
                    if w.abs() >= 1.7e38 {
                        return None;
                    }
                    acc = acc.checked_add(w as i128)?;
                }
                Some(acc)
            }
            fn to_u128(&self) -> Option<u128> {
                self.to_i128().and_then(|v| u128::try_from(v).ok())
            }
            fn to_f64(&self) -> Option<f64> {
                Some($lead(*self))
            }
            fn to_f32(&self) -> Option<f32> {
                Some($lead(*self) as f32)
            }
        }

        impl FromPrimitive for $t {
            fn from_i64(n: i64) -> Option<Self> {
                Some(<$t as From<_>>::from(n))
            }
            fn from_u64(n: u64) -> Option<Self> {
                Some(<$t as From<_>>::from(n))
            }
            fn from_f64(n: f64) -> Option<Self> {
                Some($t::from_f64(n))
            }
            fn from_f32(n: f32) -> Option<Self> {
                Some($t::from_f64(n as f64))
            }
        }

        impl NumCast for $t {
            /// Integral values go through the exact `i64`/`u64` conversions (so a large `i64`
            /// keeps all its bits); everything else through `f64`.
            fn from<T: ToPrimitive>(n: T) -> Option<Self> {
                let f = n.to_f64()?;
                if f.fract() == 0.0 {
                    if let Some(i) = n.to_i64() {
                        return Some(<$t as From<i64>>::from(i));
                    }
                    if let Some(u) = n.to_u64() {
                        return Some(<$t as From<u64>>::from(u));
                    }
                }
                Some($t::from_f64(f))
            }
        }

        impl Float for $t {
            fn nan() -> Self {
                $t::NAN
            }
            fn infinity() -> Self {
                $t::INFINITY
            }
            fn neg_infinity() -> Self {
                $t::NEG_INFINITY
            }
            fn neg_zero() -> Self {
                -$t::ZERO
            }
            fn min_value() -> Self {
                $t::MIN
            }
            /// The smallest positive value with full precision (see `MIN_POSITIVE`).
            fn min_positive_value() -> Self {
                $t::MIN_POSITIVE
            }
            fn max_value() -> Self {
                $t::MAX
            }
            fn epsilon() -> Self {
                $t::EPSILON
            }
            fn is_nan(self) -> bool {
                $t::is_nan(self)
            }
            fn is_infinite(self) -> bool {
                $t::is_infinite(self)
            }
            fn is_finite(self) -> bool {
                $t::is_finite(self)
            }
            /// Normal means the full precision is available: `|x| ≥ MIN_POSITIVE`.
            fn is_normal(self) -> bool {
                self.classify() == FpCategory::Normal
            }
            fn classify(self) -> FpCategory {
                let x = $lead(self);
                match x.classify() {
                    FpCategory::Normal if x.abs() < $lead($t::MIN_POSITIVE) => {
                        FpCategory::Subnormal
                    }
                    c => c,
                }
            }
            fn floor(self) -> Self {
                $t::floor(self)
            }
            fn ceil(self) -> Self {
                $t::ceil(self)
            }
            fn round(self) -> Self {
                $t::round(self)
            }
            fn trunc(self) -> Self {
                $t::trunc(self)
            }
            fn fract(self) -> Self {
                $t::fract(self)
            }
            fn abs(self) -> Self {
                $t::abs(self)
            }
            fn signum(self) -> Self {
                $t::signum(self)
            }
            fn is_sign_positive(self) -> bool {
                $t::is_sign_positive(self)
            }
            fn is_sign_negative(self) -> bool {
                $t::is_sign_negative(self)
            }
            /// `self * a + b` with two roundings of this format (no fused variant exists for
            /// multi-word formats; the error is at most that of `×` plus that of `+`).
            fn mul_add(self, a: Self, b: Self) -> Self {
                self * a + b
            }
            fn recip(self) -> Self {
                $t::recip(self)
            }
            fn powi(self, n: i32) -> Self {
                $t::powi(self, n)
            }
            fn powf(self, n: Self) -> Self {
                $t::pow(self, n)
            }
            fn sqrt(self) -> Self {
                $t::sqrt(self)
            }
            fn exp(self) -> Self {
                $t::exp(self)
            }
            fn exp2(self) -> Self {
                $t::exp2(self)
            }
            fn ln(self) -> Self {
                $t::ln(self)
            }
            fn log(self, base: Self) -> Self {
                $t::ln(self) / $t::ln(base)
            }
            fn log2(self) -> Self {
                $t::log2(self)
            }
            fn log10(self) -> Self {
                $t::log10(self)
            }
            fn max(self, other: Self) -> Self {
                $t::max(self, other)
            }
            fn min(self, other: Self) -> Self {
                $t::min(self, other)
            }
            /// `max(self − other, 0)` (deprecated in `f64`, kept for the trait).
            fn abs_sub(self, other: Self) -> Self {
                if self <= other {
                    $t::ZERO
                } else {
                    self - other
                }
            }
            fn cbrt(self) -> Self {
                $t::cbrt(self)
            }
            fn hypot(self, other: Self) -> Self {
                $t::hypot(self, other)
            }
            fn sin(self) -> Self {
                $t::sin(self)
            }
            fn cos(self) -> Self {
                $t::cos(self)
            }
            fn tan(self) -> Self {
                $t::tan(self)
            }
            fn asin(self) -> Self {
                $t::asin(self)
            }
            fn acos(self) -> Self {
                $t::acos(self)
            }
            fn atan(self) -> Self {
                $t::atan(self)
            }
            fn atan2(self, other: Self) -> Self {
                $t::atan2(self, other)
            }
            fn sin_cos(self) -> (Self, Self) {
                $t::sin_cos(self)
            }
            fn exp_m1(self) -> Self {
                $t::exp_m1(self)
            }
            fn ln_1p(self) -> Self {
                $t::ln_1p(self)
            }
            fn sinh(self) -> Self {
                $t::sinh(self)
            }
            fn cosh(self) -> Self {
                $t::cosh(self)
            }
            fn tanh(self) -> Self {
                $t::tanh(self)
            }
            fn asinh(self) -> Self {
                $t::asinh(self)
            }
            fn acosh(self) -> Self {
                $t::acosh(self)
            }
            fn atanh(self) -> Self {
                $t::atanh(self)
            }
            /// Decodes the leading word only (as `f64::integer_decode` would): the trait's
            /// return type cannot hold more than 64 bits of significand.
            fn integer_decode(self) -> (u64, i16, i8) {
                Float::integer_decode($lead(self))
            }
            fn to_degrees(self) -> Self {
                self * (180.0 / $t::PI)
            }
            fn to_radians(self) -> Self {
                self * ($t::PI / 180.0)
            }
            fn copysign(self, sign: Self) -> Self {
                $t::copysign(self, sign)
            }
        }
    };
}

impl_num_traits!(Dd, "dd", |x: Dd| x.hi, |x: Dd| [x.hi, x.lo]);
impl_num_traits!(Qd, "qd", |x: Qd| x.c[0], |x: Qd| x.c);
