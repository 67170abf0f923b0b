//! Multiple-precision floating point in a residue number system (RNS), at a precision chosen
//! at run time: the number format of MPRES-BLAS (Isupov, Knyazkov, Kuvaev; format (5) of
//! the GEMV paper), computed natively on the CPU.
//!
//! A number is `x = (−1)^s · X · 2^e`: the integer significand `X` is held as its residues
//! `xᵢ = X mod mᵢ` for a [`Basis`] of pairwise-coprime moduli `m₁…mₙ` with product `M`, and the
//! *interval evaluation* `I(X/M)` ([`interval`]) is stored beside it so that comparison,
//! alignment and the rounding test need no conversion to binary. Additions and multiplications of
//! significands act on every residue independently (the loops vectorise); what is not modular
//! (magnitude, rounding) is done with the interval evaluation and an exact power-of-two scaling.
//!
//! | piece | where |
//! |---|---|
//! | moduli, precomputed constants, precision `p = ⌊log2 √M⌋ − 1` | [`basis`] |
//! | extended-range floats `f·2^e` with directed rounding | [`extf`] |
//! | interval evaluation, exact sign and bit length, exact scaling | [`interval`] |
//! | [`MpFloat`]: arithmetic, comparison, rounding, special values | [`float`], [`divsqrt`] |
//! | operators, `PartialEq`/`PartialOrd`, `FromStr`, the [`Scalar`](crate::Scalar) trait | `ops.rs` |
//! | conversions (`f64`, `Dd`, `Qd`, exact limbs, `rug`) | [`convert`] |
//! | decimal strings (parse, shortest and correctly rounded printing) | [`decimal`] |
//! | [`MpArray`]: structure-of-arrays storage (Table 2 of the paper) | [`mod@array`] |
//! | the same on the GPU, element-wise kernels | [`gpu`] (`*_gpu.rs` beside their `.cu`) |
//!
//! Accuracy: every operation is correctly rounded to `p` bits (nearest, ties to even), so
//! `fl(x∘y) = (x∘y)(1+δ)` with `|δ| < u = 2^-p < 4/√M` (bound (6) of the paper).
//!
//! Bases: [`Basis::new`]`(p)` gives the smallest basis of at least `p` bits (`Basis::new(106)`
//! has 107), one shared `Arc` per moduli set. The `Result` methods (`add`, `mul`, ...) refuse
//! numbers of different bases; the operators (`&x + &y`) compute in the wider one, and
//! [`MpFloat::round_to`] converts. Arithmetic in a loop reuses residue buffers from a
//! per-thread pool, so it does not allocate per operation.
//!
//! ```
//! use mpblas::rns::{Basis, MpFloat};
//! let b = Basis::new(212).unwrap();
//! let x = MpFloat::from_f64(&b, 0.1);
//! let y = MpFloat::from_f64(&b, 0.2);
//! let s = x.add(&y).unwrap();
//! // the sum of the two f64 inputs is exact at 212 bits: it differs from 0.30000000000000004
//! assert_eq!(s.to_f64(), 0.1 + 0.2);
//! assert!(s.sub(&s).unwrap().is_zero());
//! ```

// Residue loops index several parallel slices (residues, moduli, Barrett constants) by the
// modulus index on purpose: that is the shape LLVM vectorises and the CUDA kernels mirror.
#![allow(clippy::needless_range_loop)]

pub(crate) mod accumulate;
mod arith_gpu;
pub mod array;
pub(crate) mod array_gpu;
pub mod basis;
pub mod convert;
pub mod decimal;
pub mod divsqrt;
pub mod extf;
pub mod float;
pub mod interval;
mod ops;
mod pool;
pub(crate) mod rns_digits_gpu;
pub(crate) mod rns_divsqrt_gpu;
pub(crate) mod rns_esi_gpu;
pub(crate) mod rns_round_gpu;
pub(crate) mod term_lanes;

/// RNS multiple precision on the GPU: [`DeviceMpArray`](gpu::DeviceMpArray) (the host
/// [`MpArray`] layout) and element-wise `+ − × ÷ √`, bitwise equal to the CPU ([`MpFloat`]).
pub mod gpu {
    pub use super::arith_gpu::{add, div, mul, sqrt, sub};
    pub use super::array_gpu::{DeviceMpArray, MAX_MODULI, pack_basis};
}

pub use array::MpArray;
pub use basis::{Basis, MAX_PRECISION, MIN_PRECISION};
pub use extf::ExtF;
pub use float::{Class, EMAX, EMIN, MpFloat};
