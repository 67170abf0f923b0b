//! The LAPACK family: dense linear systems. The CPU's LU factorisation with partial
//! pivoting and its solves ([`lu`]), for every [`Scalar`](crate::Scalar) format, blocked so
//! that most of the work is the level-3 [`gemm`](crate::blas::gemm), and mixed-precision
//! iterative refinement ([`refine`]): `f64` factors, residuals and corrections in the extended
//! format, with `T`'s own LU as the fallback. How good a solve is ([`cond`]): matrix norms, the
//! condition estimate from the factors (LAPACK's `gecon`, Hager–Higham's 1-norm estimator) and
//! per solution the componentwise backward error and a forward error bound (LAPACK's `gerfs`
//! bounds), which the refinement's report carries. On the GPU ([`gpu`]): cuSOLVER's `f64` solve
//! and the double-double and quad-double refinements on its factors, residuals by the Ozaki
//! schemes on INT8 tensor cores, and LU with partial pivoting in `f64`, `Dd`, `Qd` (the
//! CPU's bits; the refinements' fallback) and RNS ([`gpu::rns`], the CPU's bits).
//!
//! ```
//! use mpblas::lapack::gesv;
//! use mpblas::view::MatMut;
//! use mpblas::Dd;
//! // [2 1; 1 3] x = [3; 5]  →  x = [0.8; 1.4]
//! let mut a = [Dd::from(2.0), Dd::from(1.0), Dd::from(1.0), Dd::from(3.0)];
//! let mut b = [Dd::from(3.0), Dd::from(5.0)];
//! let mut ipiv = [0; 2];
//! gesv(
//!     MatMut::col_major(&mut a, 2, 2, 2).unwrap(),
//!     &mut ipiv,
//!     MatMut::col_major(&mut b, 2, 1, 2).unwrap(),
//! )
//! .unwrap();
//! assert!((b[0] - Dd::from(4.0) / Dd::from(5.0)).abs().hi < 1e-31);
//! assert!((b[1] - Dd::from(7.0) / Dd::from(5.0)).abs().hi < 1e-31);
//! ```

pub mod cond;
pub mod gauss_jordan;
pub(crate) mod lapack_gpu;
pub mod lu;
pub(crate) mod lu_gpu;
pub(crate) mod lu_rns_gpu;
pub mod refine;

/// The LAPACK family on the GPU (`lapack_gpu.rs` and its kernels `lapack_gpu.cu`): cuSOLVER's
/// `f64` solve and the double-double and quad-double refinements on its factors with
/// Ozaki-scheme residuals.
pub mod gpu {
    pub use super::lapack_gpu::{RefineOnDevice, dgesv, gesv_refined};
    pub use super::lu_gpu::{gesv, getrf, getrs};

    /// LU with partial pivoting in RNS multiple precision on the GPU
    /// ([`DeviceMpArray`](crate::rns::gpu::DeviceMpArray) storage, LAPACK-style arguments):
    /// the CPU's [`lu`](super::lu) on [`MpFloat`](crate::rns::MpFloat), bit for bit.
    pub mod rns {
        pub use super::super::lu_rns_gpu::{gesv, getrf, getrs};
    }
}

pub use cond::{Norm, SolveBounds, gecon, lange, solve_bounds};
pub use gauss_jordan::gesv_gauss_jordan;
pub use lu::{LU_BLOCK, gesv, getrf, getrs};
pub use refine::{RefineParams, RefinePath, RefineReport, gesv_refined};
