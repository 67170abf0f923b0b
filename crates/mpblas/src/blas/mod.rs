//! The BLAS family: level 1 and summation today, for every format on the CPU, with
//! reproducible orders and returned error bounds.
//!
//! - [`level1`]: `sum`, `asum`, `dot`, `nrm2`, `iamax`, `axpy`, `scal`, `rot` over strided
//!   views, generic over [`Scalar`](crate::Scalar) (`f64`, [`Dd`](crate::Dd),
//!   [`Qd`](crate::Qd), [`rns::MpFloat`](crate::rns::MpFloat)), and BLAS-style `*_blas` entries.
//! - [`mod@sum`]: the three summation orders of the MPRES summation paper (recursive, pairwise,
//!   blocked), each a tree fixed by the indices: the same bits for any thread count.
//! - [`accurate`]: for `f64` data, compensated `sum2`/`dot2` and correctly rounded sums and dot
//!   products.
//! - [`bounds`]: the error bounds the routines return and the tests assert.
//! - [`level2`]: `gemv` and `ger` over matrix views, with componentwise bounds.
//! - [`level3`]: `gemm` over matrix views, reproducible, with componentwise bounds.
//! - [`mod@rns`]: the fused RNS GEMV ([`rns_fused`]): exact accumulation, one rounding per entry.
//! - [`gpu`]: the same routines (levels 1 and 2) on the GPU for `f64`, `Dd` and `Qd`, the CPU's
//!   bits for any launch shape, every pass of every reduction on the device.
//!
//! ```
//! use mpblas::blas::{self, Summation};
//! use mpblas::view::VecRef;
//! use mpblas::Dd;
//!
//! // The first dataset of the MPRES summation paper: 2047 tens, two 1e-18, 2047 minus tens.
//! let mut s: Vec<Dd> = vec![Dd::from(10.0); 2047];
//! s.extend([Dd::from(1e-18); 2]);
//! s.extend(vec![Dd::from(-10.0); 2047]);
//! let r = blas::sum_bounded(VecRef::contiguous(&s), Summation::Pairwise).unwrap();
//! assert_eq!(r.value, Dd::from(1e-18) + Dd::from(1e-18));
//! assert!(r.error_bound < 1e-25);
//! ```

pub mod accurate;
pub(crate) mod blas_exact_gpu;
pub(crate) mod blas_fused_rns_gpu;
pub(crate) mod blas_level1_gpu;
pub(crate) mod blas_level2_gpu;
pub(crate) mod blas_level2_rns_gpu;
pub(crate) mod blas_level3_gpu;
pub mod bounds;
pub mod level1;
pub mod level2;
pub mod level3;
pub mod rns_fused;
pub mod sum;

/// RNS routines with no generic twin, each result rounded once from an exact accumulation
/// ([`rns_fused`]): [`gemv_fused`](rns::gemv_fused), [`dot_fused`](rns::dot_fused).
pub mod rns {
    pub use super::rns_fused::{
        dot_fused, dot_fused_bounded, gemm_fused, gemm_fused_bounded, gemv_fused,
        gemv_fused_bounded,
    };
}

/// BLAS levels 1, 2 and 3 on the GPU for `f64`, [`Dd`](crate::Dd) and [`Qd`](crate::Qd): the
/// same routines, orders, bits and error bounds as the CPU ([`level1`], [`accurate`],
/// [`level2`], [`level3`]).
///
/// Every reduction runs whole on the device (no partial sums finished on the host: each pass of
/// the blocked order is the same kernel, on the partials of the pass before) and returns the
/// CPU's bits for any [`LaunchShape`](gpu::LaunchShape): the tree is fixed by the indices,
/// the launch only decides which block works on which chunk. Only the final value (one
/// accumulator) is read back, which waits for the work.
///
/// [`sum_correctly_rounded`](gpu::sum_correctly_rounded) and
/// [`dot_correctly_rounded`](gpu::dot_correctly_rounded) return the exact result rounded once
/// (unique, hence the CPU's bits for any launch) in one pass: each thread sums into a
/// three-word expansion of TwoSums and spills what it cannot hold exactly into a fixed-point
/// accumulator of its block (Collange, Defour, Graillat, Iakymchuk, Parallel Computing 49,
/// 2015).
///
/// [`gemv`](gpu::gemv) forms each row's dot product in the level-1 blocked order in two kernels:
/// a first pass computing nodes of the order's tree (for a column-major `A` threads on
/// consecutive rows, so that a warp reads consecutive addresses; for a transposed one threads
/// on the lanes of each row) and a finish kernel that joins them and updates `y`;
/// [`gemv_bounded`](gpu::gemv_bounded) returns the CPU's bounds. [`ger`](gpu::ger) forms each
/// entry as the CPU does. [`gemm`](gpu::gemm) is one tiled kernel on the CUDA cores, each
/// entry walking `k` in the CPU's order; [`gemm_dd_compensated`](gpu::gemm_dd_compensated) the
/// same with the compensated double-double dot product.
///
/// # Errors
///
/// [`Error::DeviceMismatch`](crate::Error::DeviceMismatch) if an operand is on another device,
/// [`Error::LengthMismatch`](crate::Error::LengthMismatch),
/// [`Error::OutOfRange`](crate::Error::OutOfRange) for a launch shape of 0 or more than 1024
/// threads (or more than a kernel's registers allow),
/// [`Error::CudaCompile`](crate::Error::CudaCompile) /
/// [`Error::CudaLaunch`](crate::Error::CudaLaunch) /
/// [`Error::CudaDriver`](crate::Error::CudaDriver) from the runtime.
pub mod gpu {
    pub use super::blas_exact_gpu::{
        dot_correctly_rounded, dot_correctly_rounded_to, sum_correctly_rounded,
        sum_correctly_rounded_to,
    };
    pub use super::blas_level1_gpu::{
        GpuFormat, LaunchShape, asum, asum_bounded, axpy, dot, dot_bounded, dot_shaped, dot2,
        iamax, nrm2, nrm2_bounded, rot, scal, sum, sum_bounded, sum_shaped, sum2,
    };
    pub use super::blas_level2_gpu::{
        GEMV_MAX_COLUMNS, GemvShape, gemv, gemv_bounded, gemv_shaped, ger,
    };
    pub use super::blas_level3_gpu::{
        gemm, gemm_bounded, gemm_dd_compensated, gemm_dd_compensated_bounded,
    };

    /// BLAS level 2 in RNS multiple precision on the GPU, on
    /// [`DeviceMpArray`](crate::rns::gpu::DeviceMpArray) storage with BLAS-style arguments:
    /// the bits and bounds of the CPU's [`level2`](crate::blas::level2) routines on
    /// [`MpFloat`](crate::rns::MpFloat), for any launch. Each thread runs the CPU's own
    /// algorithms on operands in local memory (one node of the blocked order's tree per
    /// thread). `gemm_fused` runs the fused GEMV once per column of `op(B)`, as the CPU's
    /// [`rns::gemm_fused`](crate::blas::rns::gemm_fused) does, with its bits and bounds.
    /// `gemv_fused` is the GPU twin of the CPU's
    /// [`rns::gemv_fused`](crate::blas::rns::gemv_fused): each entry summed exactly and rounded
    /// once, the CPU's bits and bounds, 6-14x faster than `gemv` at 106-1696 bits.
    ///
    /// ```no_run
    /// use mpblas::blas::gpu::rns;
    /// use mpblas::cuda::Device;
    /// use mpblas::rns::gpu::DeviceMpArray;
    /// use mpblas::rns::{Basis, MpArray, MpFloat};
    /// use mpblas::Trans;
    /// # fn main() -> mpblas::Result<()> {
    /// let dev = Device::open(0)?;
    /// let b = Basis::new(424)?;
    /// let (m, n) = (3, 2);
    /// let a = DeviceMpArray::upload(&dev, &MpArray::from_f64(&b, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]))?;
    /// let x = DeviceMpArray::upload(&dev, &MpArray::from_f64(&b, &[1.0, 0.5]))?;
    /// let mut y = DeviceMpArray::zeros(&dev, &b, m)?;
    /// let (one, zero) = (MpFloat::from_f64(&b, 1.0), MpFloat::from_f64(&b, 0.0));
    /// rns::gemv(&dev, Trans::No, m, n, &one, &a, m, &x, 1, &zero, &mut y, 1)?;
    /// assert_eq!(y.download()?.to_f64()?, [3.0, 4.5, 6.0]);
    /// # Ok(())
    /// # }
    /// ```
    pub mod rns {
        pub use super::super::blas_fused_rns_gpu::{
            dot_fused, gemm_fused, gemm_fused_bounded, gemv_fused, gemv_fused_bounded,
        };
        pub use super::super::blas_level2_rns_gpu::{gemv, gemv_bounded, ger};
    }
}

pub use accurate::{
    dot_correctly_rounded, dot_correctly_rounded_to, dot2, sum_correctly_rounded,
    sum_correctly_rounded_to, sum2,
};
pub use bounds::Bounded;
pub use level1::{
    asum, axpy, dot, dot_bounded, dot_ordered, iamax, nrm2, nrm2_bounded, rot, scal, sum,
    sum_bounded, sum_ordered,
};
pub use level2::{gemv, gemv_bounded, ger};
pub use level3::{gemm, gemm_bounded, gemm_dd_compensated, gemm_dd_compensated_bounded};
pub use sum::Summation;
