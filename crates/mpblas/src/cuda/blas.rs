//! cuBLAS GEMMs on device arrays, with the BLAS argument checks of [`crate::view`]: cuBLAS's
//! own [`dgemm`] and [`sgemm`] (the yardsticks every mpblas GEMM is measured against) and, in
//! [`super::emulation`], cuBLAS's FP64 emulation.
//!
//! The device's cuBLAS handle ([`Device::blas`](super::Device)) is created on first use, bound
//! to the device's stream and kept in the device's cache, in the default math mode (no TF32:
//! SGEMM is IEEE single precision).

use super::device::Device;
use super::memory::{DeviceBuffer, DeviceVec};
use super::sys::GemmType;
use crate::error::Result;
use crate::view::{Trans, check_gemm_args};

/// The BLAS argument checks of a GEMM call on device arrays of `a_len`, `b_len`, `c_len`
/// elements, and that all three live on `dev` (ordinals `on`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn check_gemm_call(
    dev: &Device,
    transa: Trans,
    transb: Trans,
    (m, n, k): (usize, usize, usize),
    (a_len, lda): (usize, usize),
    (b_len, ldb): (usize, usize),
    (c_len, ldc): (usize, usize),
    on: [usize; 3],
) -> Result<()> {
    check_gemm_args(transa, transb, m, n, k, a_len, lda, b_len, ldb, c_len, ldc)?;
    dev.check_on("a", on[0])?;
    dev.check_on("b", on[1])?;
    dev.check_on("c", on[2])
}

/// `C ← α·op(A)·op(B) + β·C` by cuBLAS DGEMM: column-major, BLAS argument order and checks
/// ([`crate::view`]); `m = 0` or `n = 0` returns at once. Enqueued on the device's stream.
///
/// # Errors
/// [`Error::LeadingDim`](crate::Error::LeadingDim),
/// [`Error::ArrayTooShort`](crate::Error::ArrayTooShort),
/// [`Error::DeviceMismatch`](crate::Error::DeviceMismatch),
/// [`Error::CudaLibraryMissing`](crate::Error::CudaLibraryMissing),
/// [`Error::OutOfRange`](crate::Error::OutOfRange) (a dimension beyond `i32`),
/// [`Error::CudaLaunch`](crate::Error::CudaLaunch) if cuBLAS fails.
#[allow(clippy::too_many_arguments)]
pub fn dgemm(
    dev: &Device,
    transa: Trans,
    transb: Trans,
    m: usize,
    n: usize,
    k: usize,
    alpha: f64,
    a: &DeviceVec<f64>,
    lda: usize,
    b: &DeviceVec<f64>,
    ldb: usize,
    beta: f64,
    c: &mut DeviceVec<f64>,
    ldc: usize,
) -> Result<()> {
    check_gemm_call(
        dev,
        transa,
        transb,
        (m, n, k),
        (a.len(), lda),
        (b.len(), ldb),
        (c.len(), ldc),
        [a.ordinal(), b.ordinal(), c.ordinal()],
    )?;
    if m == 0 || n == 0 {
        return Ok(());
    }
    // SAFETY: check_gemm_args proved that a, b, c hold the matrices their dimensions and
    // leading dimensions describe, all on this device; c is a distinct allocation (`&mut`).
    unsafe {
        dev.blas()?.gemm_ex(
            GemmType::F64,
            transa == Trans::Yes,
            transb == Trans::Yes,
            (m, n, k),
            alpha,
            (a.word_addr(0), lda),
            (b.word_addr(0), ldb),
            beta,
            (c.word_addr(0), ldc),
        )
    }
}

/// `C ← α·op(A)·op(B) + β·C` by cuBLAS SGEMM (IEEE single precision, no TF32), with the
/// checks and conventions of [`dgemm`].
///
/// # Errors
/// As [`dgemm`].
#[allow(clippy::too_many_arguments)]
pub fn sgemm(
    dev: &Device,
    transa: Trans,
    transb: Trans,
    m: usize,
    n: usize,
    k: usize,
    alpha: f32,
    a: &DeviceBuffer<f32>,
    lda: usize,
    b: &DeviceBuffer<f32>,
    ldb: usize,
    beta: f32,
    c: &mut DeviceBuffer<f32>,
    ldc: usize,
) -> Result<()> {
    check_gemm_call(
        dev,
        transa,
        transb,
        (m, n, k),
        (a.len(), lda),
        (b.len(), ldb),
        (c.len(), ldc),
        [a.ordinal(), b.ordinal(), c.ordinal()],
    )?;
    if m == 0 || n == 0 {
        return Ok(());
    }
    // SAFETY: as in `dgemm`, with `f32` elements.
    unsafe {
        dev.blas()?.gemm_ex(
            GemmType::F32,
            transa == Trans::Yes,
            transb == Trans::Yes,
            (m, n, k),
            f64::from(alpha),
            (a.addr(), lda),
            (b.addr(), ldb),
            f64::from(beta),
            (c.addr(), ldc),
        )
    }
}
