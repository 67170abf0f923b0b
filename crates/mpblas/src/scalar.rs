//! [`Scalar`]: the one trait the linear algebra is generic over, implemented by every number
//! format of the library: `f64`, [`Dd`](crate::Dd), [`Qd`](crate::Qd) and
//! [`rns::MpFloat`](crate::rns::MpFloat).
//!
//! # Shape
//!
//! - **A context.** Making a value may need more than its type: an RNS number needs its basis
//!   (the precision is chosen at run time). [`Scalar::Ctx`] is `()` for the fixed formats and
//!   the `Arc<Basis>` for RNS; every constructor takes it (`T::zero_in(&ctx)`), and every
//!   value gives its own ([`Scalar::ctx`]), so a routine takes the context from its data.
//! - **`Clone`, not `Copy`**, and operations **by reference and in place**
//!   ([`Scalar::add_ref`], [`Scalar::add_product`], ...): an RNS number owns its residues, and
//!   a loop like `acc.add_product(&x[i], &y[i])` then reuses `acc`'s storage instead of
//!   allocating per element.
//! - **Names that clash with nothing.** A function generic over `T: Scalar +
//!   num_traits::Float` must compile, so no method here shares a name with `num_traits::Float`
//!   or its supertraits (`abs`, `sqrt`, `mul_add`, `recip`, `is_nan`, `zero`, `to_f64`, ...):
//!   the by-reference forms carry a `_ref` suffix, constructors an `_in` suffix (they take the
//!   context), and the classification is one [`Scalar::class`] returning `std`'s
//!   [`FpCategory`].
//! - **What BLAS and LAPACK need**: `+ − × ÷`, a fused or accumulated multiply-add, `√`,
//!   reciprocal, absolute value, comparisons (`PartialOrd`), conversions from `f64` and
//!   `usize`, and the safe-scaling constants of LAPACK's `dlamch` ([`Scalar::epsilon_in`],
//!   [`Scalar::min_positive_in`], [`Scalar::max_finite_in`]) with the format's unit roundoff
//!   and operation error bound, from which routines state their error bounds.
//!
//! The GPU word layout of a format is a separate trait,
//! [`DeviceScalar`](crate::cuda::DeviceScalar).
//!
//! ```
//! use mpblas::{Dd, Qd, Scalar};
//! use mpblas::rns::{Basis, MpFloat};
//!
//! /// `Σ x_i·y_i` in the format of the data, for any format.
//! fn dot<T: Scalar>(x: &[T], y: &[T]) -> Option<T> {
//!     let mut acc = T::zero_in(&x.first()?.ctx());
//!     for (a, b) in x.iter().zip(y) {
//!         acc.add_product(a, b);
//!     }
//!     Some(acc)
//! }
//!
//! let x = [0.1, 0.2, 0.3];
//! assert_eq!(dot(&x, &x), Some(0.1 * 0.1 + 0.2 * 0.2 + 0.3f64.mul_add(0.3, 0.0)));
//! let xd: Vec<Dd> = x.iter().map(|&v| Dd::from(v)).collect();
//! let xq: Vec<Qd> = x.iter().map(|&v| Qd::from(v)).collect();
//! let b = Basis::new(300).unwrap();
//! let xr: Vec<MpFloat> = x.iter().map(|&v| MpFloat::from_f64(&b, v)).collect();
//! // The sums of squares of three doubles are exact in 212 and 300 bits.
//! assert_eq!(dot(&xq, &xq).unwrap().to_dd(), dot(&xr, &xr).unwrap().to_dd());
//! assert!(dot(&xd, &xd).is_some());
//! ```

use std::fmt::Debug;
use std::num::FpCategory;

/// A number format of the library; see the [module docs](self).
pub trait Scalar: Clone + Debug + PartialEq + PartialOrd + Send + Sync + 'static {
    /// What constructing a value needs besides its type: `()` for `f64`, `Dd`, `Qd`; the basis
    /// (`Arc<Basis>`) for RNS.
    type Ctx: Clone + Debug + Send + Sync;

    /// Short lowercase name of the format: `"f64"`, `"dd"`, `"qd"`, `"rns"`.
    const FORMAT: &'static str;

    /// The context this value was made in.
    fn ctx(&self) -> Self::Ctx;

    /// The unit roundoff `u` of the format in `ctx` (2^-53, 2^-106, 2^-212, 2^-p): error
    /// bounds are stated in it.
    fn unit_roundoff_in(ctx: &Self::Ctx) -> f64;

    /// A bound on the relative error of one `+`, `−` or `×` in the normal range, as an absolute
    /// number (`u` for `f64` and RNS, which round correctly; `5u` for double-double `×`). The
    /// constant BLAS error bounds are built from.
    fn op_error_bound_in(ctx: &Self::Ctx) -> f64;

    /// A bound on the absolute error one `+`, `−` or `×` adds when operands or result fall
    /// below the normal range, where the relative bound [`Scalar::op_error_bound_in`] no
    /// longer holds: `2^-1074` for `f64` (a subnormal ulp, covering the half-ulp rounding of a
    /// product; IEEE addition is exact there), `2^-1070` for the multi-word formats (whose lower words go subnormal first),
    /// 0 for RNS (whose exponent range has no gradual underflow before `2^EMIN`). Error bounds
    /// add it once per operation.
    fn underflow_error_in(ctx: &Self::Ctx) -> f64;

    /// `Ok` if this value belongs to `ctx` (always, for the fixed formats; for RNS, if its
    /// basis has the same moduli), else [`Error::BasisMismatch`](crate::Error::BasisMismatch).
    /// Routines check every element against their first operand's context once per call.
    fn check_ctx(&self, ctx: &Self::Ctx) -> crate::error::Result<()>;

    /// The context of a result computed from no data (the `+0` of an empty sum): `()` for the
    /// fixed formats; for RNS, the 53-bit basis (a zero is exact in every basis, and the
    /// operators widen it to the other operand's).
    fn ctx_for_empty() -> Self::Ctx;

    /// Zero.
    fn zero_in(ctx: &Self::Ctx) -> Self;

    /// One.
    fn one_in(ctx: &Self::Ctx) -> Self;

    /// The machine epsilon of LAPACK's `dlamch('E')`: the unit roundoff as a value of the
    /// format.
    fn epsilon_in(ctx: &Self::Ctx) -> Self;

    /// The smallest positive value at which the format keeps its full precision (LAPACK's
    /// safe minimum, `dlamch('S')`): `f64::MIN_POSITIVE`, `Dd::MIN_POSITIVE`, ...
    fn min_positive_in(ctx: &Self::Ctx) -> Self;

    /// The largest finite value.
    fn max_finite_in(ctx: &Self::Ctx) -> Self;

    /// The value nearest to `x` (exact for `f64`, `Dd`, `Qd`, and RNS of at least 53 bits).
    fn from_f64_in(ctx: &Self::Ctx, x: f64) -> Self;

    /// The value nearest to `n` (exact while `n` fits the format's precision: `n < 2^53` for
    /// `f64`, every `usize` for the others).
    fn from_usize_in(ctx: &Self::Ctx, n: usize) -> Self;

    /// The `f64` nearest to the value (for multi-word formats, the leading word).
    fn nearest_f64(&self) -> f64;

    /// Zero, normal, subnormal, infinite or NaN, as `f64::classify` (a multi-word value by
    /// its leading word; RNS numbers have no subnormals).
    fn class(&self) -> FpCategory;

    /// `self + rhs`, rounded as the format's `+`.
    fn add_ref(&self, rhs: &Self) -> Self;

    /// `self − rhs`.
    fn sub_ref(&self, rhs: &Self) -> Self;

    /// `self × rhs`.
    fn mul_ref(&self, rhs: &Self) -> Self;

    /// `self ÷ rhs`.
    fn div_ref(&self, rhs: &Self) -> Self;

    /// `−self` (exact).
    fn neg_ref(&self) -> Self;

    /// `|self|` (exact).
    fn abs_ref(&self) -> Self;

    /// `√self` (NaN for a negative value, as `f64::sqrt`).
    fn sqrt_ref(&self) -> Self;

    /// `1 ÷ self`.
    fn recip_ref(&self) -> Self;

    /// `self × b + c`, with one rounding where the format has a fused operation (`f64`, RNS)
    /// and as `×` then `+` otherwise.
    fn mul_add_ref(&self, b: &Self, c: &Self) -> Self;

    /// `self ← self + rhs`, in place.
    fn add_assign_ref(&mut self, rhs: &Self) {
        *self = self.add_ref(rhs);
    }

    /// `self ← self − rhs`, in place.
    fn sub_assign_ref(&mut self, rhs: &Self) {
        *self = self.sub_ref(rhs);
    }

    /// `self ← self × rhs`, in place.
    fn mul_assign_ref(&mut self, rhs: &Self) {
        *self = self.mul_ref(rhs);
    }

    /// `self ← self + rhs` as the step of a sum (the BLAS reductions use it): its error is
    /// at most [`Scalar::op_error_bound_in`]`·(|self| + |rhs|)` (normwise, the form a
    /// summation's `γ_n·Σ|t_i|` bound needs), not necessarily relative to the result. The
    /// format's `+` (relative, hence normwise too) unless the format has a cheaper addition
    /// with that bound: `Qd` uses [`Qd::add_sloppy`](crate::Qd::add_sloppy).
    fn add_assign_normwise(&mut self, rhs: &Self) {
        self.add_assign_ref(rhs);
    }

    /// `self ← self + a × b`, in place: the step of a dot product and of `axpy`, with error at
    /// most `γ_2·(|self| + |a·b|)` for the format's op bound (normwise, as
    /// [`Scalar::add_assign_normwise`]): one rounding for `f64` (FMA) and RNS, `×` then `+`
    /// for `Dd`, and for `Qd` [`Qd::add_product_sloppy`](crate::Qd::add_product_sloppy)
    /// (one renormalisation).
    fn add_product(&mut self, a: &Self, b: &Self) {
        *self = a.mul_add_ref(b, self);
    }

    /// `self ← self + a²`: the step of the norms, with the bound of [`Scalar::add_product`].
    /// [`Scalar::add_product`]`(a, a)` unless the format squares more cheaply: `Qd` uses
    /// [`Qd::add_square_sloppy`](crate::Qd::add_square_sloppy).
    fn add_square(&mut self, a: &Self) {
        self.add_product(a, a);
    }

    /// Whether the blocked summation order sums each lane with [`Scalar::lane_sum`] and
    /// [`Scalar::lane_dot`] (a wider accumulator, one rounding per lane) rather than step by
    /// step. `Qd` does; the others step.
    const LANE_SUMS: bool = false;

    /// The sum of one lane's `m` terms of the blocked order, from the empty accumulator, when
    /// [`Scalar::LANE_SUMS`]; `None` (then the reduction steps the terms one by one) when the
    /// result does not come out a finite, non-zero, normalised number (special values,
    /// overflow, deep cancellation) or the format has no lane sums. Error within
    /// [`Scalar::op_error_bound_in`]`·Σ|term|` (less than the steps' bound).
    fn lane_sum(_m: usize, _term: impl Fn(usize) -> Self) -> Option<Self> {
        None
    }

    /// `Σ a_j·b_j` over one lane's `m` pairs `term(j) = (a_j, b_j)`, as [`Scalar::lane_sum`].
    fn lane_dot(_m: usize, _term: impl Fn(usize) -> (Self, Self)) -> Option<Self> {
        None
    }

    /// `Σ a_j²` over `m` terms of one lane (the norms), as [`Scalar::lane_sum`].
    fn lane_squares(_m: usize, _term: impl Fn(usize) -> Self) -> Option<Self> {
        None
    }

    /// `acc[k] ← acc[k] + x[k]` ([`Scalar::add_assign_normwise`]) for each lane `k` of the
    /// blocked summation order; a format may evaluate several lanes at once, with the same bits.
    fn add_lanes(acc: &mut [Self], x: &[Self]) {
        for (a, v) in acc.iter_mut().zip(x) {
            a.add_assign_normwise(v);
        }
    }

    /// `acc[k] ← acc[k] + x[k]·y[k]` ([`Scalar::add_product`]) for each lane `k`, as
    /// [`Scalar::add_lanes`].
    fn add_product_lanes(acc: &mut [Self], x: &[Self], y: &[Self]) {
        for ((a, u), v) in acc.iter_mut().zip(x).zip(y) {
            a.add_product(u, v);
        }
    }
}

impl Scalar for f64 {
    type Ctx = ();
    const FORMAT: &'static str = "f64";

    #[inline]
    fn ctx(&self) {}
    #[inline]
    fn unit_roundoff_in(_: &()) -> f64 {
        f64::EPSILON / 2.0
    }
    #[inline]
    fn op_error_bound_in(_: &()) -> f64 {
        f64::EPSILON / 2.0
    }
    #[inline]
    fn underflow_error_in(_: &()) -> f64 {
        // Half a subnormal ulp, 2^-1075, is not an f64 (it would round to 0): one whole ulp.
        f64::from_bits(1)
    }
    #[inline]
    fn check_ctx(&self, _: &()) -> crate::error::Result<()> {
        Ok(())
    }
    #[inline]
    fn ctx_for_empty() {}
    #[inline]
    fn zero_in(_: &()) -> f64 {
        0.0
    }
    #[inline]
    fn one_in(_: &()) -> f64 {
        1.0
    }
    #[inline]
    fn epsilon_in(_: &()) -> f64 {
        f64::EPSILON / 2.0
    }
    #[inline]
    fn min_positive_in(_: &()) -> f64 {
        f64::MIN_POSITIVE
    }
    #[inline]
    fn max_finite_in(_: &()) -> f64 {
        f64::MAX
    }
    #[inline]
    fn from_f64_in(_: &(), x: f64) -> f64 {
        x
    }
    #[inline]
    fn from_usize_in(_: &(), n: usize) -> f64 {
        n as f64
    }
    #[inline]
    fn nearest_f64(&self) -> f64 {
        *self
    }
    #[inline]
    fn class(&self) -> FpCategory {
        self.classify()
    }
    #[inline]
    fn add_ref(&self, rhs: &f64) -> f64 {
        self + rhs
    }
    #[inline]
    fn sub_ref(&self, rhs: &f64) -> f64 {
        self - rhs
    }
    #[inline]
    fn mul_ref(&self, rhs: &f64) -> f64 {
        self * rhs
    }
    #[inline]
    fn div_ref(&self, rhs: &f64) -> f64 {
        self / rhs
    }
    #[inline]
    fn neg_ref(&self) -> f64 {
        -self
    }
    #[inline]
    fn abs_ref(&self) -> f64 {
        f64::abs(*self)
    }
    #[inline]
    fn sqrt_ref(&self) -> f64 {
        f64::sqrt(*self)
    }
    #[inline]
    fn recip_ref(&self) -> f64 {
        1.0 / self
    }
    #[inline]
    fn mul_add_ref(&self, b: &f64, c: &f64) -> f64 {
        f64::mul_add(*self, *b, *c)
    }
}

/// The [`Scalar`] implementation of a fixed multi-word format from its inherent methods:
/// `$t` with constants `ZERO`, `ONE`, `UNIT_ROUNDOFF`, `MIN_POSITIVE`, `MAX`, the
/// operators, and `abs`, `sqrt`, `recip`, `mul_f64`-free arithmetic; `$lead` reads the leading
/// word; `$bound` is the operation error bound in units of `u`; `steps = (add, add_product)`
/// are the summation steps ([`Scalar::add_assign_normwise`], [`Scalar::add_product`]) as
/// functions of values; `square = f` (optional) is [`Scalar::add_square`] as a function of
/// values; `lanes = m` names a module whose `add_lanes`/`add_product_lanes`
/// replace the trait's per-lane loops (same bits); `lane_sums = (sum, dot, squares)` are
/// [`Scalar::lane_sum`], [`Scalar::lane_dot`] and [`Scalar::lane_squares`] (and set
/// [`Scalar::LANE_SUMS`]).
macro_rules! fixed_format_scalar {
    ($t:ty, $name:literal, $bound:expr, $lead:expr, steps = ($add:expr, $add_product:expr)
     $(, square = $add_square:expr)? $(, lanes = $lanes:ident)?
     $(, lane_sums = ($lane_sum:expr, $lane_dot:expr, $lane_squares:expr))?) => {
        impl $crate::scalar::Scalar for $t {
            type Ctx = ();
            const FORMAT: &'static str = $name;

            #[inline]
            fn ctx(&self) {}
            #[inline]
            fn unit_roundoff_in(_: &()) -> f64 {
                <$t>::UNIT_ROUNDOFF
            }
            #[inline]
            fn op_error_bound_in(_: &()) -> f64 {
                $bound * <$t>::UNIT_ROUNDOFF
            }
            #[inline]
            fn underflow_error_in(_: &()) -> f64 {
                // 2^-1070: sixteen subnormal ulps, for the lower words.
                f64::from_bits(16)
            }
            #[inline]
            fn check_ctx(&self, _: &()) -> $crate::error::Result<()> {
                Ok(())
            }
            #[inline]
            fn ctx_for_empty() {}
            #[inline]
            fn zero_in(_: &()) -> $t {
                <$t>::ZERO
            }
            #[inline]
            fn one_in(_: &()) -> $t {
                <$t>::ONE
            }
            #[inline]
            fn epsilon_in(_: &()) -> $t {
                <$t>::from_f64(<$t>::UNIT_ROUNDOFF)
            }
            #[inline]
            fn min_positive_in(_: &()) -> $t {
                <$t>::MIN_POSITIVE
            }
            #[inline]
            fn max_finite_in(_: &()) -> $t {
                <$t>::MAX
            }
            #[inline]
            fn from_f64_in(_: &(), x: f64) -> $t {
                <$t>::from_f64(x)
            }
            #[inline]
            fn from_usize_in(_: &(), n: usize) -> $t {
                <$t>::from(n as u64)
            }
            #[inline]
            fn nearest_f64(&self) -> f64 {
                $lead(self)
            }
            #[inline]
            fn class(&self) -> std::num::FpCategory {
                $lead(self).classify()
            }
            #[inline]
            fn add_ref(&self, rhs: &$t) -> $t {
                *self + *rhs
            }
            #[inline]
            fn sub_ref(&self, rhs: &$t) -> $t {
                *self - *rhs
            }
            #[inline]
            fn mul_ref(&self, rhs: &$t) -> $t {
                *self * *rhs
            }
            #[inline]
            fn div_ref(&self, rhs: &$t) -> $t {
                *self / *rhs
            }
            #[inline]
            fn neg_ref(&self) -> $t {
                -*self
            }
            #[inline]
            fn abs_ref(&self) -> $t {
                <$t>::abs(*self)
            }
            #[inline]
            fn sqrt_ref(&self) -> $t {
                <$t>::sqrt(*self)
            }
            #[inline]
            fn recip_ref(&self) -> $t {
                <$t>::recip(*self)
            }
            #[inline]
            fn mul_add_ref(&self, b: &$t, c: &$t) -> $t {
                *self * *b + *c
            }
            #[inline]
            fn add_assign_ref(&mut self, rhs: &$t) {
                *self += *rhs;
            }
            #[inline]
            fn add_assign_normwise(&mut self, rhs: &$t) {
                *self = ($add)(*self, *rhs);
            }
            #[inline]
            fn add_product(&mut self, a: &$t, b: &$t) {
                *self = ($add_product)(*self, *a, *b);
            }
            $(
                #[inline]
                fn add_square(&mut self, a: &$t) {
                    *self = ($add_square)(*self, *a);
                }
            )?
            $(
                #[inline]
                fn add_lanes(acc: &mut [$t], x: &[$t]) {
                    $lanes::add_lanes(acc, x)
                }
                #[inline]
                fn add_product_lanes(acc: &mut [$t], x: &[$t], y: &[$t]) {
                    $lanes::add_product_lanes(acc, x, y)
                }
            )?
            $(
                const LANE_SUMS: bool = true;
                #[inline]
                fn lane_sum(m: usize, term: impl Fn(usize) -> $t) -> Option<$t> {
                    ($lane_sum)(m, term)
                }
                #[inline]
                fn lane_dot(m: usize, term: impl Fn(usize) -> ($t, $t)) -> Option<$t> {
                    ($lane_dot)(m, term)
                }
                #[inline]
                fn lane_squares(m: usize, term: impl Fn(usize) -> $t) -> Option<$t> {
                    ($lane_squares)(m, term)
                }
            )?
        }
    };
}
pub(crate) use fixed_format_scalar;
