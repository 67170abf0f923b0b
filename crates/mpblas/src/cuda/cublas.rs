//! The one file that touches raw cuBLAS handles: INT8 GEMM (`cublasGemmEx`, INT32 results),
//! SGEMM and DGEMM, each returning a [`Result`].
//!
//! One handle per [`Device`], created on first use, bound to the device's stream and kept in
//! the device's cache; its math mode is `CUBLAS_DEFAULT_MATH` (no TF32, so SGEMM is IEEE
//! single precision as scheme I needs). cuBLAS is probed with `is_culib_present` first: a
//! missing library is [`Error::CudaLibraryMissing`], never a panic inside cudarc.
//!
//! The GEMM functions take raw device addresses (the Ozaki stages address slabs inside larger
//! workspaces) and are `unsafe`: the caller guarantees that each address points to an
//! allocation of this device holding the matrix its dimensions and leading dimension describe.

use super::{Device, cublas_present};
use crate::error::{Error, Result};
use cudarc::cublas::CudaBlas;
use cudarc::cublas::sys::{
    self, cublasComputeType_t, cublasGemmAlgo_t, cublasMath_t, cublasOperation_t, cublasStatus_t,
    cudaDataType,
};
use std::ffi::c_void;
use std::sync::Arc;

/// A cuBLAS handle on a device's stream.
pub(crate) struct Blas {
    inner: CudaBlas,
}

fn status(op: &'static str, s: cublasStatus_t) -> Result<()> {
    if s == cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(Error::CudaLaunch {
            kernel: op,
            cause: format!("{s:?}"),
        })
    }
}

/// `i32` for a cuBLAS dimension, or [`Error::OutOfRange`].
pub(crate) fn dim(what: &'static str, x: usize) -> Result<i32> {
    i32::try_from(x).map_err(|_| Error::OutOfRange {
        what,
        got: x,
        min: 0,
        max: i32::MAX as usize,
    })
}

/// The device's cuBLAS handle (created on first use).
///
/// # Errors
/// [`Error::CudaLibraryMissing`] without `libcublas`; [`Error::CudaLaunch`] if the handle
/// cannot be created or configured.
pub(crate) fn blas(dev: &Device) -> Result<Arc<Blas>> {
    if !cublas_present() {
        return Err(Error::CudaLibraryMissing { library: "cublas" });
    }
    dev.cached("cublas", || {
        let inner = CudaBlas::new(dev.stream().clone()).map_err(|e| Error::CudaLaunch {
            kernel: "cublasCreate",
            cause: format!("{e:?}"),
        })?;
        // SAFETY: the handle is live (just created); the call only sets a mode flag on it.
        let s =
            unsafe { sys::cublasSetMathMode(*inner.handle(), cublasMath_t::CUBLAS_DEFAULT_MATH) };
        status("cublasSetMathMode", s)?;
        Ok(Blas { inner })
    })
}

fn op(t: bool) -> cublasOperation_t {
    if t {
        cublasOperation_t::CUBLAS_OP_T
    } else {
        cublasOperation_t::CUBLAS_OP_N
    }
}

impl Blas {
    /// `C = op(A)·op(B)` exactly in INT32 from INT8 operands in the TN layout: `A` is `k × m`
    /// column-major (`lda`), `B` is `k × n` column-major (`ldb`), `C` is `m × n` (`ldc`).
    /// Exact while `k·128² < 2^31`.
    ///
    /// # Safety
    /// `a` must address `lda·(m−1) + k` bytes, `b` `ldb·(n−1) + k` bytes, `c` `ldc·(n−1) + m`
    /// `i32`s, all on this handle's device, `c` not overlapping `a` or `b`; `lda`, `ldb` ≥ `k`,
    /// `ldc` ≥ `m`. For the tensor-core path `k`, `lda`, `ldb`, `ldc` should be multiples of 4
    /// and the addresses 16-byte aligned (the callers use multiples of 16).
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn gemm_i8_tn(
        &self,
        m: usize,
        n: usize,
        k: usize,
        a: u64,
        lda: usize,
        b: u64,
        ldb: usize,
        c: u64,
        ldc: usize,
    ) -> Result<()> {
        let one: i32 = 1;
        let zero: i32 = 0;
        // SAFETY: the caller's contract above; alpha and beta are host scalars (the handle's
        // default pointer mode is host) of the compute type's scale type (INT32).
        let s = unsafe {
            sys::cublasGemmEx(
                *self.inner.handle(),
                cublasOperation_t::CUBLAS_OP_T,
                cublasOperation_t::CUBLAS_OP_N,
                dim("m", m)?,
                dim("n", n)?,
                dim("k", k)?,
                &one as *const i32 as *const c_void,
                a as *const c_void,
                cudaDataType::CUDA_R_8I,
                dim("lda", lda)?,
                b as *const c_void,
                cudaDataType::CUDA_R_8I,
                dim("ldb", ldb)?,
                &zero as *const i32 as *const c_void,
                c as *mut c_void,
                cudaDataType::CUDA_R_32I,
                dim("ldc", ldc)?,
                cublasComputeType_t::CUBLAS_COMPUTE_32I,
                cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
            )
        };
        status("cublasGemmEx(INT8, TN)", s)
    }

    /// `C = alpha·op(A)·op(B) + beta·C` in `f32` (IEEE, no TF32), column-major BLAS arguments.
    ///
    /// # Safety
    /// As for [`Blas::dgemm`], with `f32` elements.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn sgemm(
        &self,
        ta: bool,
        tb: bool,
        m: usize,
        n: usize,
        k: usize,
        alpha: f32,
        a: u64,
        lda: usize,
        b: u64,
        ldb: usize,
        beta: f32,
        c: u64,
        ldc: usize,
    ) -> Result<()> {
        // SAFETY: the caller's contract; alpha and beta are host scalars.
        let s = unsafe {
            sys::cublasSgemm_v2(
                *self.inner.handle(),
                op(ta),
                op(tb),
                dim("m", m)?,
                dim("n", n)?,
                dim("k", k)?,
                &alpha,
                a as *const f32,
                dim("lda", lda)?,
                b as *const f32,
                dim("ldb", ldb)?,
                &beta,
                c as *mut f32,
                dim("ldc", ldc)?,
            )
        };
        status("cublasSgemm", s)
    }

    /// `C = alpha·op(A)·op(B) + beta·C` in `f64`, column-major BLAS arguments.
    ///
    /// # Safety
    /// `a` must address the `op(A)` storage its dimensions and `lda` describe (`lda·(cols−1) +
    /// rows` elements), likewise `b`, and `c` `ldc·(n−1) + m` elements, all on this handle's
    /// device, `c` not overlapping `a` or `b`, leading dimensions at least the row counts.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn dgemm(
        &self,
        ta: bool,
        tb: bool,
        m: usize,
        n: usize,
        k: usize,
        alpha: f64,
        a: u64,
        lda: usize,
        b: u64,
        ldb: usize,
        beta: f64,
        c: u64,
        ldc: usize,
    ) -> Result<()> {
        // SAFETY: the caller's contract; alpha and beta are host scalars.
        let s = unsafe {
            sys::cublasDgemm_v2(
                *self.inner.handle(),
                op(ta),
                op(tb),
                dim("m", m)?,
                dim("n", n)?,
                dim("k", k)?,
                &alpha,
                a as *const f64,
                dim("lda", lda)?,
                b as *const f64,
                dim("ldb", ldb)?,
                &beta,
                c as *mut f64,
                dim("ldc", ldc)?,
            )
        };
        status("cublasDgemm", s)
    }
}
