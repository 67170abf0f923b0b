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
use super::view::{DeviceMatMut, DeviceMatRef, blas_form, col_major_ld};
use crate::error::Result;
use crate::view::{Trans, check_gemm_args, check_product_shapes};

/// A GEMM on device views in cuBLAS's terms: dimensions, and each operand's address with its
/// transpose flag and leading dimension.
pub(crate) struct CublasGemm {
    pub dims: (usize, usize, usize),
    pub a: (bool, u64, usize),
    pub b: (bool, u64, usize),
    pub c: (u64, usize),
}

/// Checks a GEMM on device views (devices, shapes) and puts it in cuBLAS's terms; `None` when
/// `m = 0` or `n = 0` (nothing to do). A row-major `C` is handled as `Cᵀ = Bᵀ·Aᵀ`.
///
/// # Errors
/// [`Error::DeviceMismatch`](crate::Error::DeviceMismatch),
/// [`Error::LengthMismatch`](crate::Error::LengthMismatch) for shapes that do not agree,
/// [`Error::InvalidView`](crate::Error::InvalidView) for a view with no unit stride.
pub(crate) fn cublas_gemm(
    dev: &Device,
    a: DeviceMatRef<'_, f64>,
    b: DeviceMatRef<'_, f64>,
    c: &DeviceMatMut<'_, f64>,
) -> Result<Option<CublasGemm>> {
    dev.check_on("a", a.ordinal())?;
    dev.check_on("b", b.ordinal())?;
    dev.check_on("c", c.ordinal())?;
    let (m, n, k) = check_product_shapes(&a.layout(), &b.layout(), &c.layout())?;
    if m == 0 || n == 0 {
        return Ok(None);
    }
    let (a, b, cl, dims) = match c.layout().blas() {
        Some((Trans::No, _)) => (a, b, c.layout(), (m, n, k)),
        _ => (b.t(), a.t(), c.layout().t(), (n, m, k)),
    };
    let ldc = col_major_ld("c", &cl)?;
    let (ta, lda) = blas_form("a", &a.layout())?;
    let (tb, ldb) = blas_form("b", &b.layout())?;
    Ok(Some(CublasGemm {
        dims,
        a: (ta == Trans::Yes, a.word_addr(0), lda),
        b: (tb == Trans::Yes, b.word_addr(0), ldb),
        c: (c.word_addr(0), ldc),
    }))
}

/// `C ← α·A·B + β·C` by cuBLAS DGEMM on device views (`A` `m × k`, `B` `k × n`, `C` `m × n`,
/// each column-major or row-major: a transpose is a view). Enqueued on the device's stream.
///
/// # Errors
/// [`Error::DeviceMismatch`](crate::Error::DeviceMismatch),
/// [`Error::LengthMismatch`](crate::Error::LengthMismatch) (shapes),
/// [`Error::InvalidView`](crate::Error::InvalidView) (a view with no unit stride),
/// [`Error::CudaLibraryMissing`](crate::Error::CudaLibraryMissing),
/// [`Error::OutOfRange`](crate::Error::OutOfRange) (a dimension beyond `i32`),
/// [`Error::CudaLaunch`](crate::Error::CudaLaunch) if cuBLAS fails.
pub fn dgemm(
    dev: &Device,
    alpha: f64,
    a: DeviceMatRef<'_, f64>,
    b: DeviceMatRef<'_, f64>,
    beta: f64,
    c: DeviceMatMut<'_, f64>,
) -> Result<()> {
    let Some(g) = cublas_gemm(dev, a, b, &c)? else {
        return Ok(());
    };
    // SAFETY: the views were checked against their vectors (every element in range), all on
    // this device; C is a distinct allocation (`&mut`); cuBLAS's forms come from the views.
    unsafe {
        dev.blas()?.gemm_ex(
            GemmType::F64,
            g.a.0,
            g.b.0,
            g.dims,
            alpha,
            (g.a.1, g.a.2),
            (g.b.1, g.b.2),
            beta,
            g.c,
        )
    }
}

/// [`dgemm`] with the arguments of BLAS `dgemm` (column-major arrays, transpose flags,
/// leading dimensions; `m = 0` or `n = 0` returns at once).
///
/// # Errors
/// [`Error::LeadingDim`](crate::Error::LeadingDim),
/// [`Error::ArrayTooShort`](crate::Error::ArrayTooShort) under the BLAS names, then those of
/// [`dgemm`].
#[allow(clippy::too_many_arguments)]
pub fn dgemm_blas(
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
    let a = DeviceMatRef::from_blas(("a", "lda"), transa, m, k, a, lda)?;
    let b = DeviceMatRef::from_blas(("b", "ldb"), transb, k, n, b, ldb)?;
    let c = DeviceMatMut::from_blas(("c", "ldc"), m, n, c, ldc)?;
    dgemm(dev, alpha, a, b, beta, c)
}

/// `C ← α·op(A)·op(B) + β·C` by cuBLAS SGEMM (IEEE single precision, no TF32) on `f32`
/// buffers, with the arguments and checks of BLAS `sgemm`.
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
    check_gemm_args(
        transa,
        transb,
        m,
        n,
        k,
        a.len(),
        lda,
        b.len(),
        ldb,
        c.len(),
        ldc,
    )?;
    dev.check_on("a", a.ordinal())?;
    dev.check_on("b", b.ordinal())?;
    dev.check_on("c", c.ordinal())?;
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

// ---- level 1 --------------------------------------------------------------------------------------

/// One cuBLAS level-1 call on whole device vectors, after the device and length checks.
fn level1(
    dev: &Device,
    op: super::Level1,
    x: &DeviceVec<f64>,
    y: Option<&DeviceVec<f64>>,
) -> Result<f64> {
    dev.check_on("x", x.ordinal())?;
    if let Some(y) = y {
        dev.check_on("y", y.ordinal())?;
        super::check_len("y", x.len(), y.len())?;
    }
    if x.is_empty() {
        return Ok(0.0);
    }
    let blas = dev.blas()?;
    let y_addr = y.map_or(0, |y| y.word_addr(0));
    // SAFETY: x (and y) hold x.len() doubles on this device.
    unsafe { blas.level1(op, x.len(), x.word_addr(0), y_addr) }
}

/// `x·y` by `cublasDdot` (cuBLAS's summation order; not reproducible across GPUs).
///
/// # Errors
/// [`Error::DeviceMismatch`](crate::Error::DeviceMismatch),
/// [`Error::LengthMismatch`](crate::Error::LengthMismatch),
/// [`Error::CudaLibraryMissing`](crate::Error::CudaLibraryMissing), or the call's error.
pub fn ddot(dev: &Device, x: &DeviceVec<f64>, y: &DeviceVec<f64>) -> Result<f64> {
    level1(dev, super::Level1::Dot, x, Some(y))
}

/// `y ← α·x + y` by `cublasDaxpy`.
///
/// # Errors
/// As [`ddot`].
pub fn daxpy(dev: &Device, alpha: f64, x: &DeviceVec<f64>, y: &mut DeviceVec<f64>) -> Result<()> {
    level1(dev, super::Level1::Axpy(alpha), x, Some(y)).map(|_| ())
}

/// `‖x‖₂` by `cublasDnrm2`.
///
/// # Errors
/// As [`ddot`].
pub fn dnrm2(dev: &Device, x: &DeviceVec<f64>) -> Result<f64> {
    level1(dev, super::Level1::Nrm2, x, None)
}

/// `Σ|x_i|` by `cublasDasum`.
///
/// # Errors
/// As [`ddot`].
pub fn dasum(dev: &Device, x: &DeviceVec<f64>) -> Result<f64> {
    level1(dev, super::Level1::Asum, x, None)
}

// ---- level 2 --------------------------------------------------------------------------------------

/// `y ← α·op(A)·x + β·y` by `cublasDgemv` with the arguments of BLAS `dgemv` (column-major
/// `A` of `m × n`, leading dimension `lda`, unit increments; cuBLAS's summation order, not
/// reproducible across GPUs): the yardstick of the GEMV benchmarks.
///
/// # Errors
/// [`Error::LeadingDim`](crate::Error::LeadingDim),
/// [`Error::ArrayTooShort`](crate::Error::ArrayTooShort),
/// [`Error::LengthMismatch`](crate::Error::LengthMismatch) (`x`, `y`), then as [`ddot`].
#[allow(clippy::too_many_arguments)]
pub fn dgemv(
    dev: &Device,
    trans: Trans,
    m: usize,
    n: usize,
    alpha: f64,
    a: &DeviceVec<f64>,
    lda: usize,
    x: &DeviceVec<f64>,
    beta: f64,
    y: &mut DeviceVec<f64>,
) -> Result<()> {
    let view = DeviceMatRef::from_blas(("a", "lda"), Trans::No, m, n, a, lda)?;
    let (lx, ly) = match trans {
        Trans::No => (n, m),
        Trans::Yes => (m, n),
    };
    for (name, v) in [("x", x.ordinal()), ("y", y.ordinal())] {
        dev.check_on(name, v)?;
    }
    dev.check_on("a", view.ordinal())?;
    super::check_len("x", lx, x.len())?;
    super::check_len("y", ly, y.len())?;
    if m == 0 || n == 0 {
        return Ok(());
    }
    // SAFETY: the view was checked against `a` (every element in range), x and y hold the
    // lengths op(A) gives them, all on this device; y is a distinct allocation (`&mut`).
    unsafe {
        dev.blas()?.gemv(
            trans == Trans::Yes,
            (m, n),
            alpha,
            (view.word_addr(0), lda),
            x.word_addr(0),
            beta,
            y.word_addr(0),
        )
    }
}

/// `A ← α·x·yᵀ + A` by `cublasDger` with the arguments of BLAS `dger` (unit increments).
///
/// # Errors
/// As [`dgemv`].
#[allow(clippy::too_many_arguments)]
pub fn dger(
    dev: &Device,
    m: usize,
    n: usize,
    alpha: f64,
    x: &DeviceVec<f64>,
    y: &DeviceVec<f64>,
    a: &mut DeviceVec<f64>,
    lda: usize,
) -> Result<()> {
    for (name, v) in [("x", x.ordinal()), ("y", y.ordinal()), ("a", a.ordinal())] {
        dev.check_on(name, v)?;
    }
    super::check_len("x", m, x.len())?;
    super::check_len("y", n, y.len())?;
    let view = DeviceMatMut::from_blas(("a", "lda"), m, n, a, lda)?;
    if m == 0 || n == 0 {
        return Ok(());
    }
    // SAFETY: as dgemv; `a` is a distinct allocation (`&mut`).
    unsafe {
        dev.blas()?.ger(
            (m, n),
            alpha,
            x.word_addr(0),
            y.word_addr(0),
            (view.word_addr(0), lda),
        )
    }
}
