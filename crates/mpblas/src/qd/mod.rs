//! Quad-double arithmetic: a value is the unevaluated sum of four `f64`s,
//! `c[0] + c[1] + c[2] + c[3]`, giving about 212 bits of significand with the exponent range of
//! `f64`.
//!
//! # Invariant
//!
//! Every `Qd` produced by this crate is *normalised* (Hida, Li, Bailey 2001, renormalisation):
//! the components are non-overlapping and decreasing, `c[i] == fl(c[i] + c[i+1])`, so
//! `|c[i+1]| ≤ ulp(c[i])/2`. Special values keep the lower components zero: ±Inf and NaN live in
//! `c[0]`, and the sign of zero is the sign of `c[0]`. Build values with [`Qd::new`] (which
//! normalises) or the conversions.
//!
//! # Accuracy
//!
//! Error bounds are stated in units of `u = 2^-212` ([`Qd::UNIT_ROUNDOFF`]) and hold for
//! operands and results in the normal range: magnitudes between [`Qd::MIN_POSITIVE`] = 2^-862
//! (below it the fourth word would be subnormal) and `f64::MAX`. Below that range precision
//! fades gradually, as for `f64` subnormals. The algorithms are those of Hida, Li, Bailey,
//! "Algorithms for quad-double precision floating point arithmetic", ARITH 15, 2001 (HLB below).
//! Unlike double-double, no tight published proofs exist for quad-double; each bound in
//! [`bounds`] is derived by a first-order analysis stated beside it, with a margin, and the MPFR
//! tests (`tests/qd_arith_vs_mpfr.rs`, `tests/qd_func_vs_mpfr.rs`) assert exactly those constants.
//!
//! | operation | algorithm | relative error bound (units of u) |
//! |---|---|---|
//! | `Qd + Qd` (default, [`Qd::add_ieee`]) | HLB IEEE-style: merge by magnitude, double-accumulate | [`bounds::ADD`] |
//! | [`Qd::add_sloppy`] | HLB sloppy: pairwise TwoSum, ThreeSum | normwise: [`bounds::ADD_SLOPPY`] of `\|a\| + \|b\|` |
//! | [`Qd::add_product_sloppy`] (`c + a·b`) | product terms merged sloppily, one renormalisation | normwise: [`bounds::ADD_PRODUCT_SLOPPY`] of `\|c\| + \|ab\|` |
//! | [`Qd::add_square_sloppy`] (`c + a²`) | the square's terms (symmetric products once) merged sloppily | normwise: [`bounds::ADD_SQUARE_SLOPPY`] of `\|c\| + a²` |
//! | `Qd + f64`, `Qd + Dd` | TwoSum cascade / IEEE-style add | [`bounds::ADD_F64`], [`bounds::ADD`] |
//! | `Qd × Qd` ([`Qd::mul_accurate`]) | HLB accurate product, all terms to order u | [`bounds::MUL`] |
//! | `Qd × f64` | TwoProd per word, renormalise | [`bounds::MUL_F64`] |
//! | `Qd ÷ Qd` | HLB long division, five quotient words | [`bounds::DIV`] |
//! | `Qd ÷ f64` | long division | [`bounds::DIV_F64`] |
//! | [`Qd::sqrt`] | Newton on `1/√a`, Karp's last step | [`bounds::SQRT`] |
//!
//! The elementary functions (in `func`) list their bounds in [`bounds`] too.

mod arith;
pub mod bounds;
pub(crate) mod consts;
#[cfg(all(test, feature = "cuda"))]
mod device_tables;
mod func;
pub(crate) mod qd_func_gpu;
pub(crate) mod qd_gpu;

/// Quad-double kernels on the GPU: element-wise `+ − × ÷ √` and `exp`, `ln`, `sin`, `cos` on
/// [`DeviceVec<Qd>`](crate::cuda::DeviceVec), each returning the CPU's bits (the device
/// code is an operation-by-operation twin of this module's, `qd.cuh` and `qd_func.cuh`).
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
    pub use super::qd_func_gpu::{cos, exp, ln, sin};
    pub use super::qd_gpu::{
        DeviceQdVec, add, add_scalar, div, div_scalar, mul, mul_scalar, sqrt, sub, sub_scalar,
    };
}

/// A quad-double number: the unevaluated sum `c[0] + c[1] + c[2] + c[3]` (see the
/// [module docs](self)).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Qd {
    /// The components, most significant first.
    pub c: [f64; 4],
}

impl Qd {
    /// Zero.
    pub const ZERO: Qd = Qd { c: [0.0; 4] };
    /// One.
    pub const ONE: Qd = Qd {
        c: [1.0, 0.0, 0.0, 0.0],
    };
    /// Not a number.
    pub const NAN: Qd = Qd {
        c: [f64::NAN, 0.0, 0.0, 0.0],
    };
    /// Positive infinity.
    pub const INFINITY: Qd = Qd {
        c: [f64::INFINITY, 0.0, 0.0, 0.0],
    };
    /// Negative infinity.
    pub const NEG_INFINITY: Qd = Qd {
        c: [f64::NEG_INFINITY, 0.0, 0.0, 0.0],
    };
    /// 2^-209, the QD library's "machine epsilon" for quad-double (the gap between 1 and the
    /// next quad-double with a full 212-bit significand is smaller; the unit roundoff in which
    /// bounds are stated is `EPSILON / 8 = 2^-212`, [`Qd::UNIT_ROUNDOFF`]).
    pub const EPSILON: Qd = Qd {
        c: [1.215_432_671_457_254_2e-63, 0.0, 0.0, 0.0],
    };
    /// Unit roundoff, 2^-212 exactly: the unit in which every error bound of this module is
    /// stated.
    pub const UNIT_ROUNDOFF: f64 = 1.519_290_839_321_567_8e-64;
    /// The largest finite quad-double: `f64::MAX` followed by the largest words that keep the
    /// expansion normalised, `2^970(1 − 2^-53)`, `2^916(1 − 2^-53)`, `2^862(1 − 2^-53)`.
    pub const MAX: Qd = Qd {
        c: [
            f64::MAX,
            9.979_201_547_673_598e291,
            5.539_569_662_801_112_6e275,
            3.075_078_893_078_405e259,
        ],
    };
    /// The most negative finite quad-double, `−MAX`.
    pub const MIN: Qd = Qd {
        c: [
            -f64::MAX,
            -9.979_201_547_673_598e291,
            -5.539_569_662_801_112_6e275,
            -3.075_078_893_078_405e259,
        ],
    };
    /// The smallest positive value at which the full precision and the error bounds still hold,
    /// 2^-862 (below it the fourth word could be subnormal). Smaller values exist, down to
    /// 2^-1074, with gradually less precision.
    pub const MIN_POSITIVE: Qd = Qd {
        c: [3.251_949_087_390_464_6e-260, 0.0, 0.0, 0.0],
    };

    /// `c0 + c1 + c2 + c3` normalised, for any four finite `f64`s (in any order of magnitude);
    /// the result is the exact sum rounded to a quad-double (error below `u` relative).
    /// A non-finite input gives the `f64` sum of the four.
    #[inline]
    pub fn new(c0: f64, c1: f64, c2: f64, c3: f64) -> Qd {
        arith::from_sum(c0, c1, c2, c3)
    }

    /// The quad-double equal to `x` (exact).
    #[inline]
    pub const fn from_f64(x: f64) -> Qd {
        Qd {
            c: [x, 0.0, 0.0, 0.0],
        }
    }

    /// The nearest `f64` (the leading component).
    #[inline]
    pub const fn to_f64(self) -> f64 {
        self.c[0]
    }

    /// The nearest double-double: the two leading components, renormalised (the third word is
    /// folded into the second so that the result is the rounding of `self` to 106 bits, up to
    /// a tie).
    #[inline]
    pub fn to_dd(self) -> crate::dd::Dd {
        if !self.c[0].is_finite() {
            return crate::dd::Dd::from_f64(self.c[0]);
        }
        crate::dd::Dd::new(self.c[0], self.c[1] + (self.c[2] + self.c[3]))
    }

    /// True if NaN.
    #[inline]
    pub fn is_nan(self) -> bool {
        self.c[0].is_nan()
    }
    /// True if ±Inf.
    #[inline]
    pub fn is_infinite(self) -> bool {
        self.c[0].is_infinite()
    }
    /// True if neither infinite nor NaN.
    #[inline]
    pub fn is_finite(self) -> bool {
        self.c[0].is_finite()
    }
    /// True if ±0.
    #[inline]
    pub fn is_zero(self) -> bool {
        self.c[0] == 0.0
    }
    /// True if finite, non-zero and at least [`Qd::MIN_POSITIVE`] in magnitude.
    #[inline]
    pub fn is_normal(self) -> bool {
        self.c[0].is_finite() && self.c[0].abs() >= Qd::MIN_POSITIVE.c[0]
    }
    /// True for +0, positive values and +Inf (and NaNs with the sign bit clear), as `f64`.
    #[inline]
    pub fn is_sign_positive(self) -> bool {
        self.c[0].is_sign_positive()
    }
    /// True for −0, negative values and −Inf (and NaNs with the sign bit set), as `f64`.
    #[inline]
    pub fn is_sign_negative(self) -> bool {
        self.c[0].is_sign_negative()
    }
}

// The summation steps are the sloppy ones: their normwise bounds (ADD_SLOPPY,
// ADD_PRODUCT_SLOPPY) are within ARITH_MAX, which the BLAS bounds use.
crate::scalar::fixed_format_scalar!(
    Qd,
    "qd",
    bounds::ARITH_MAX,
    |x: &Qd| x.c[0],
    steps = (Qd::add_sloppy, Qd::add_product_sloppy),
    square = Qd::add_square_sloppy,
    lane_sums = (Qd::lane_sum, Qd::lane_dot, Qd::lane_squares)
);
