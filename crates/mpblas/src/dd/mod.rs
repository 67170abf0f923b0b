//! Double-double arithmetic: a value is the unevaluated sum of two `f64`s, `hi + lo`,
//! giving a 106-bit significand with the exponent range of `f64`.
//!
//! # Invariant
//!
//! Every `Dd` produced by this crate is *normalised*: `hi == fl(hi + lo)` (round to nearest),
//! hence `|lo| ≤ ulp(hi)/2`. Special values keep `lo == 0`: ±Inf and NaN live in `hi`, and the
//! sign of zero is the sign of `hi`. The fields are public so that device layouts and FFI can
//! read them; build values with [`Dd::new`] (which normalises) or the conversions.
//!
//! # Accuracy
//!
//! Error bounds are stated in units of `u² = 2^-106` and hold for operands and results in the
//! normal range (magnitudes between [`Dd::MIN_POSITIVE`] ≈ 2.0e-292 and `f64::MAX`). Below that,
//! the low word becomes subnormal and precision fades gradually, as for `f64` subnormals: the
//! absolute error stays below about 2^-1074 per operation. The arithmetic algorithms and their
//! proven bounds are from Joldes, Muller, Popescu, "Tight and rigorous error bounds for basic
//! building blocks of double-word arithmetic", ACM TOMS 44(2), 2017 (JMP below).
//!
//! | operation | algorithm | relative error bound |
//! |---|---|---|
//! | `Dd + Dd` (default, [`Dd::add_accurate`]) | JMP Alg. 6 (AccurateDWPlusDW) | 3u² + 13u³ |
//! | [`Dd::add_sloppy`] | JMP Alg. 5 (SloppyDWPlusDW) | none under cancellation (absolute 2u·\|a\|+\|b\|·u²) |
//! | `Dd + f64` | JMP Alg. 4 (DWPlusFP) | 2u² |
//! | `Dd × Dd` | JMP Alg. 12 (DWTimesDW3, FMA) | 5u² |
//! | `Dd × f64` | JMP Alg. 9 (DWTimesFP3, FMA) | 2u² |
//! | `Dd ÷ Dd` | JMP Alg. 17 (DWDivDW3) | 9.8u² |
//! | `Dd ÷ f64` | JMP Alg. 15 (DWDivFP3) | 3u² |
//! | [`Dd::sqrt`] | Lefèvre, Louvet, Muller, Picot, Rideau 2023 (SQRTDWtoDW) | 25/8 u² |
//!
//! Each bound is also a constant in [`bounds`] and the MPFR tests (`tests/dd_vs_mpfr.rs`) check
//! against exactly those constants.
//!
//! # Elementary functions
//!
//! Inherent methods with the names of the `f64` methods they mirror (special values as those
//! methods; none panics). Bounds are relative, in units of `u² = 2^-106`, constants in
//! [`bounds`], from a first-order analysis of each algorithm with the bounds above, and are
//! asserted against MPFR by `tests/dd_func_vs_mpfr.rs`. They hold for arguments and results
//! in the normal range.
//!
//! | function | method | bound |
//! |---|---|---|
//! | `floor ceil round round_ties_even trunc fract` | on the words | exact |
//! | `%` ([`Dd::fmod`]) | long division on an exact expansion | exact if representable, else [`bounds::REM`] |
//! | [`Dd::cbrt`] | Newton step, exact residual | [`bounds::CBRT`] |
//! | [`Dd::exp`], [`Dd::exp2`] | exact `k·ln 2` reduction, Tang table of `expm1(j/64)`, Taylor | [`bounds::EXP`] |
//! | [`Dd::exp_m1`] | same kernel without cancellation | [`bounds::EXP_M1`] |
//! | [`Dd::ln`], [`Dd::log2`], [`Dd::log10`], [`Dd::ln_1p`] | table of `−ln r_i` (triple-double), series, exact assembly | [`bounds::LN`] |
//! | [`Dd::log`] | `ln x / ln b` | [`bounds::LOG`] |
//! | [`Dd::pow`], [`Dd::powf`] | `exp(y·ln x)` with `y·ln x` exact to `2^-120` | [`bounds::POW`] |
//! | [`Dd::powi`] | `×`, `÷` or `pow` | [`bounds::POWI`] |
//! | [`Dd::sin`], [`Dd::cos`], [`Dd::sin_cos`] | Payne–Hanek reduction, Taylor on `\|r\| ≤ π/4` | [`bounds::SIN_COS`] |
//! | [`Dd::tan`] | `sin / cos` | [`bounds::TAN`] |
//! | [`Dd::atan`], [`Dd::atan2`] | first-octant Newton step with exact rotation | [`bounds::ATAN`], [`bounds::ATAN2`] |
//! | [`Dd::asin`], [`Dd::acos`] | `atan2(x, √((1−x)(1+x)))` | [`bounds::ASIN`], [`bounds::ACOS`] |
//! | [`Dd::sinh`], [`Dd::cosh`], [`Dd::tanh`] | from `exp` / `exp_m1` | [`bounds::SINH`], [`bounds::COSH`], [`bounds::TANH`] |
//! | [`Dd::asinh`], [`Dd::acosh`], [`Dd::atanh`] | logarithms of exact expansions | [`bounds::ASINH`], [`bounds::ACOSH`], [`bounds::ATANH`] |
//! | [`Dd::hypot`] | exact squares of scaled operands, one `sqrt` | [`bounds::HYPOT`] |
//!
//! Constants (`Dd::PI`, `Dd::LN_2`, … as in `std::f64::consts`) are correctly rounded
//! double-doubles.

mod arith;
pub mod bounds;
pub(crate) mod consts;
pub(crate) mod dd_func_gpu;
pub(crate) mod dd_gpu;
#[cfg(all(test, feature = "cuda"))]
mod device_tables;
mod func;
mod lanes;

/// Double-double kernels on the GPU: element-wise `+ − × ÷ √` and `exp`, `ln`, `sin`, `cos` on
/// [`DeviceVec<Dd>`](crate::cuda::DeviceVec), each returning the CPU's bits (the device
/// code is an operation-by-operation twin of this module's, `dd.cuh` and `dd_func.cuh`).
///
/// Each function computes `out[i] = op(x[i], y[i])` (or `op(x[i], s)`, or `f(x[i])`) with
/// exactly the CPU algorithm, so `out` holds the same bits as the CPU would produce (a NaN's
/// payload and sign aside). The work is enqueued on the device's stream; read `out` with
/// [`DeviceVec::download`](crate::cuda::DeviceVec::download), which waits for it.
///
/// # Errors
///
/// Every function returns [`Error::DeviceMismatch`](crate::Error::DeviceMismatch) if an
/// operand is on another device, [`Error::LengthMismatch`](crate::Error::LengthMismatch) if
/// the lengths differ (naming the argument and both lengths),
/// [`Error::CudaCompile`](crate::Error::CudaCompile) if the module fails to compile, and
/// [`Error::CudaLaunch`](crate::Error::CudaLaunch) naming the kernel if the launch fails.
pub mod gpu {
    pub use super::dd_func_gpu::{cos, exp, ln, sin};
    pub use super::dd_gpu::{
        DeviceDdVec, add, add_scalar, div, div_scalar, mul, mul_scalar, sqrt, sub, sub_scalar,
    };
}

/// 2^e for a normal exponent `e`, exactly, in const context.
pub(crate) const fn pow2(e: i32) -> f64 {
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// 2^970·(1 − 2^-53): the largest `lo` with `fl(f64::MAX + lo) == f64::MAX` (half an ulp of
/// `f64::MAX` is 2^970; a tie would round up to infinity).
const MAX_LO: f64 = f64::from_bits((((970 + 1023) as u64) << 52) - 1);

/// A double-double number: the unevaluated sum `hi + lo` (see the [module docs](self)).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Dd {
    /// The leading word: the value rounded to the nearest `f64`.
    pub hi: f64,
    /// The trailing word: the rounding error of `hi`, `|lo| ≤ ulp(hi)/2`.
    pub lo: f64,
}

impl Dd {
    /// Zero.
    pub const ZERO: Dd = Dd { hi: 0.0, lo: 0.0 };
    /// One.
    pub const ONE: Dd = Dd { hi: 1.0, lo: 0.0 };
    /// Not a number.
    pub const NAN: Dd = Dd {
        hi: f64::NAN,
        lo: 0.0,
    };
    /// Positive infinity.
    pub const INFINITY: Dd = Dd {
        hi: f64::INFINITY,
        lo: 0.0,
    };
    /// Negative infinity.
    pub const NEG_INFINITY: Dd = Dd {
        hi: f64::NEG_INFINITY,
        lo: 0.0,
    };
    /// The gap between 1 and the next double-double with a full 106-bit significand,
    /// 2^-104 (the QD library's convention; the unit roundoff is `EPSILON / 4 = 2^-106`).
    pub const EPSILON: Dd = Dd {
        hi: pow2(-104),
        lo: 0.0,
    };
    /// Unit roundoff, 2^-106: the unit in which every error bound of this module is stated.
    pub const UNIT_ROUNDOFF: f64 = pow2(-106);
    /// The largest finite double-double: `f64::MAX + 2^970·(1 − 2^-53)`.
    pub const MAX: Dd = Dd {
        hi: f64::MAX,
        lo: MAX_LO,
    };
    /// The most negative finite double-double.
    pub const MIN: Dd = Dd {
        hi: -f64::MAX,
        lo: -MAX_LO,
    };
    /// The smallest positive value at which the full 106-bit precision is still available,
    /// 2^-969 (below it `lo` would be subnormal). Smaller values exist, down to 2^-1074,
    /// with gradually less precision.
    pub const MIN_POSITIVE: Dd = Dd {
        hi: pow2(-969),
        lo: 0.0,
    };

    /// `hi + lo` normalised (exact: TwoSum), for any two finite `f64`s.
    #[inline]
    pub fn new(hi: f64, lo: f64) -> Dd {
        let (s, e) = crate::eft::two_sum(hi, lo);
        if s.is_finite() {
            Dd { hi: s, lo: e }
        } else {
            Dd { hi: s, lo: 0.0 }
        }
    }

    /// The double-double equal to `x` (exact).
    #[inline]
    pub const fn from_f64(x: f64) -> Dd {
        Dd { hi: x, lo: 0.0 }
    }

    /// The nearest `f64` (the leading word).
    #[inline]
    pub const fn to_f64(self) -> f64 {
        self.hi
    }

    /// The exact product `a × b` of two `f64`s as a double-double (TwoProd), when it neither
    /// overflows nor underflows.
    #[inline]
    pub fn mul_f64_f64(a: f64, b: f64) -> Dd {
        let (p, e) = crate::eft::two_prod(a, b);
        if p.is_finite() {
            Dd { hi: p, lo: e }
        } else {
            Dd { hi: p, lo: 0.0 }
        }
    }

    /// The exact sum `a + b` of two `f64`s as a double-double (TwoSum).
    #[inline]
    pub fn add_f64_f64(a: f64, b: f64) -> Dd {
        Dd::new(a, b)
    }

    /// True if NaN.
    #[inline]
    pub fn is_nan(self) -> bool {
        self.hi.is_nan()
    }
    /// True if ±Inf.
    #[inline]
    pub fn is_infinite(self) -> bool {
        self.hi.is_infinite()
    }
    /// True if neither infinite nor NaN.
    #[inline]
    pub fn is_finite(self) -> bool {
        self.hi.is_finite()
    }
    /// True if ±0.
    #[inline]
    pub fn is_zero(self) -> bool {
        self.hi == 0.0
    }
    /// True for +0, positive values and +Inf (and NaNs with the sign bit clear), as `f64`.
    #[inline]
    pub fn is_sign_positive(self) -> bool {
        self.hi.is_sign_positive()
    }
    /// True for −0, negative values and −Inf (and NaNs with the sign bit set), as `f64`.
    #[inline]
    pub fn is_sign_negative(self) -> bool {
        self.hi.is_sign_negative()
    }
}

crate::scalar::fixed_format_scalar!(
    Dd,
    "dd",
    bounds::MUL,
    |x: &Dd| x.hi,
    steps = (|a: Dd, b: Dd| a + b, |c: Dd, a: Dd, b: Dd| c + a * b),
    lanes = lanes
);
