//! # mpblas: multiple- and extended-precision linear algebra
//!
//! Scientists whose problems break double precision (ill-conditioned systems, long sums,
//! semidefinite programming, orbit and quantum simulation, verified computing) get one library
//! of accurate number formats and the linear algebra on top of them.
//!
//! ## Formats
//!
//! | type | significand | unit roundoff `u` | what it is |
//! |---|---|---|---|
//! | `f64` | 53 bits | 2^-53 | IEEE binary64 |
//! | [`Dd`] | 106 bits | 2^-106 | double-double: unevaluated sum of two `f64` |
//! | [`Qd`] | 212 bits | 2^-212 | quad-double: unevaluated sum of four `f64` |
//!
//! Every format implements [`Scalar`], the one trait the linear algebra is generic over.
//! Every arithmetic routine documents its error bound in units of `u`; the bounds live in
//! code ([`dd::bounds`]) and the MPFR-checked tests assert exactly those constants.
//!
//! ```
//! use mpblas::Dd;
//! // 0.1 + 0.2 in double-double carries the rounding errors of the two f64 inputs exactly.
//! let s = Dd::from(0.1) + Dd::from(0.2);
//! assert_eq!(s.hi, 0.30000000000000004);
//! assert!(s.lo != 0.0);
//! ```
//!
//! ## The house: floors
//!
//! Each module imports only from its own floor or below (never up), and the imports have no
//! cycle; `tests/floors.rs` reads the `crate::` paths of every source file and enforces both
//! with this very table.
//!
//! | floor | modules | what |
//! |---|---|---|
//! | 0 | `error` | the one error type |
//! | 1 | `view`, `cuda` | matrix and vector views; the GPU runtime (devices, memory, NVRTC, launches, cuBLAS), which knows no format and no algorithm |
//! | 2 | `eft`, `scalar`, `trig_reduction` | error-free transformations, the scalar traits, the argument reduction the functions share |
//! | 3 | `dd`, `qd`, `convert`, `num`, `exact`, `rns` | the number formats, each with its GPU kernels beside its CPU code |
//! | 4 | `ozaki`, `blas`, `lapack` | algorithm families, each one folder with its CPU code, GPU launchers and kernels |
//! | top | `lib.rs` | re-exports and [`kernel_modules`], the list of every GPU module |
//!
//! ## Features
//!
//! - `cuda` (default): the GPU runtime [`cuda`] and every GPU routine. CUDA is loaded at run
//!   time, so building needs no CUDA toolkit; without a driver or GPU its functions return
//!   errors. Without the feature the same API exists (one declaration of each function) and
//!   [`cuda::Device::open`] returns [`Error::CudaNotBuilt`].
//! - `ndarray`, `faer`: views of their matrices as [`view::MatRef`] / [`view::MatMut`].
//! - `rug`: conversions between [`rns::MpFloat`] and MPFR's `rug::Float`.

#![warn(missing_docs)]

pub mod blas;
mod convert;
pub mod cuda;
pub mod dd;
pub mod eft;
pub mod error;
pub mod exact;
pub mod lapack;
mod num;
pub mod ozaki;
pub mod qd;
pub mod rns;
pub mod scalar;
mod trig_reduction;
pub mod view;

pub use dd::Dd;
pub use error::{Error, ParseError, ParseErrorKind, Result};
pub use qd::Qd;
pub use scalar::Scalar;
pub use view::Trans;

/// Every GPU kernel module of the library, for warming the compile cache
/// ([`cuda::Device::load_modules`]), `mpblas info` and the tests that check each module's
/// kernel names against its source. The list lives here, at the top floor, because the
/// runtime below must not know the formats and families that own the modules.
pub fn kernel_modules() -> &'static [&'static cuda::ModuleSource] {
    static MODULES: [&cuda::ModuleSource; 18] = [
        &dd::dd_gpu::MODULE,
        &dd::dd_func_gpu::MODULE,
        &qd::qd_gpu::MODULE,
        &qd::qd_func_gpu::MODULE,
        &rns::rns_esi_gpu::MODULE,
        &rns::rns_digits_gpu::MODULE,
        &rns::rns_round_gpu::MODULE,
        &rns::rns_divsqrt_gpu::MODULE,
        &ozaki::ozaki_gpu::MODULE,
        &blas::blas_level1_gpu::MODULE,
        &blas::blas_level2_gpu::MODULE,
        &blas::blas_level3_gpu::MODULE,
        &blas::blas_level2_rns_gpu::MODULE,
        &blas::blas_exact_gpu::MODULE,
        &blas::blas_fused_rns_gpu::MODULE,
        &lapack::lapack_gpu::MODULE,
        &lapack::lu_gpu::MODULE,
        &lapack::lu_rns_gpu::MODULE,
    ];
    &MODULES
}

/// The README's examples, compiled and run as doctests so that it cannot go stale.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
