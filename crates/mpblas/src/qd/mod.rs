//! Quad-double arithmetic: a value is the unevaluated sum of four `f64`s, `c[0] + c[1] + c[2]
//! + c[3]`, giving about 212 bits of significand with the exponent range of `f64`.
//!
//! # Invariant
//!
//! Every `Qd` produced by this crate is *normalised* (Hida, Li, Bailey 2001, renormalisation):
//! the components are non-overlapping and decreasing, `c[i] == fl(c[i] + c[i+1])`, so
//! `|c[i+1]| ≤ ulp(c[i])/2`. Special values keep the lower components zero: ±Inf and NaN live in
//! `c[0]`, and the sign of zero is the sign of `c[0]`.

/// A quad-double number: the unevaluated sum `c[0] + c[1] + c[2] + c[3]`.
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
    /// Unit roundoff, 2^-212: the unit in which every error bound of this module is stated.
    pub const UNIT_ROUNDOFF: f64 = crate::dd::pow2(-212);

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
}
