//! The LAPACK family on the GPU: `f64` LU solves by cuSOLVER ([`dgesv`]) and the
//! mixed-precision refinement of [`gesv_refined`](super::gesv_refined) for double-double and
//! quad-double systems ([`gesv_refined`]): cuSOLVER's `f64` factors of the leading words,
//! corrections `D = fl64(A)⁻¹·fl64(R)` added in the format, the CPU's stopping rule, and
//! residuals on tensor cores:
//!
//! - [`Dd`]: `R = B − A·X` recomputed at each step, a double-double GEMV per column for up to
//!   8 right-hand sides, else the double-double Ozaki scheme II with double-double operands
//!   ([`crate::ozaki::gpu::ozaki2_gemm_dd`]), within `compensated_dot_gamma(n)·(|A||X|)_ij`;
//! - [`Qd`]: `R ← R − A·D` updated at each step by the quad-double Ozaki scheme
//!   ([`crate::ozaki::gpu::ozaki2_gemm_qd`]), one product per word of `A` (`A = A₀ + A₁ + A₂ + A₃`,
//!   each `A_w·D` exact before its rounding to quad-double), so the residual of `X = Σ D`
//!   stays within a few `u·(|A||X|)` (`u = 2^-212`) however far `A·X` cancels `B`, at the
//!   cost of four INT8-scheme products per step instead of a quad-double GEMM (0.11 T op/s).
//!
//! The kernels of `lapack_gpu.cu` do the element-wise steps. The factors are cuSOLVER's, not
//! the CPU's `getrf`'s, so the iterates are not the CPU's bits; the accuracy is the same (the
//! tests check it against quad-double and 848-bit RNS solves).

use super::lu_gpu::{copy_words, strides};
use super::refine::{refine_shapes, relative_correction, step_outcome, worse};
use super::{RefineParams, RefinePath, RefineReport};
use crate::cuda::DeviceScalar;
use crate::cuda::{
    Arg, Device, DeviceMatMut, DeviceMatRef, DeviceVec, ModuleSource, ScratchBuffer, args,
    col_major_ld, download_raw, memset,
};
use crate::dd::Dd;
use crate::error::{Error, Result};
use crate::ozaki::ozaki2_gpu::ozaki2_gemm_qd_word;
use crate::ozaki::{gpu::ozaki2_gemm_dd, ozaki2_dd_params};
use crate::qd::Qd;
use crate::scalar::Scalar;
use std::sync::Mutex;

/// The entry points of `lapack_gpu.cu` (`tests/kernel_names.rs` checks them).
pub(crate) const KERNELS: &[&str] = &["lapack_lead_words", "lapack_add_correction"];

/// The kernel module: source and entry points.
pub(crate) static MODULE: ModuleSource = ModuleSource {
    name: "lapack_gpu",
    source: include_str!("lapack_gpu.cu"),
    headers: &[
        &crate::eft::EFT_CUH,
        &crate::dd::dd_gpu::DD_CUH,
        &crate::qd::qd_gpu::QD_CUH,
    ],
    kernels: KERNELS,
};

/// The buffers a solve keeps on the device between calls.
#[derive(Default)]
struct Workspace {
    ipiv: ScratchBuffer,
    info: ScratchBuffer,
    work: ScratchBuffer,
    colmax: ScratchBuffer,
}

/// cuSOLVER's `f64` LU of the `n × n` column-major matrix at `lu` (leading dimension `ld`), in
/// place, its pivots in `ws`; `Some(column)` of the first exactly zero pivot (0-based), like
/// [`getrf`](super::getrf).
fn factor(
    dev: &Device,
    ws: &mut Workspace,
    (lu, ld): (u64, usize),
    n: usize,
) -> Result<Option<usize>> {
    let solver = dev.solver()?;
    // SAFETY: lu holds ld·(n−1)+n doubles of this device (the caller's checked buffer).
    let lwork = unsafe { solver.dgetrf_work(n, (lu, ld))? };
    let work = ws.work.get(dev, 8 * lwork.max(1))?;
    let ipiv = ws.ipiv.get(dev, 4 * n)?;
    let info = ws.info.get(dev, 4)?;
    // SAFETY: work holds lwork doubles, ipiv n ints, info one int, lu as above, distinct.
    unsafe { solver.dgetrf(n, (lu, ld), work, ipiv, info)? };
    let mut got = [0i32; 1];
    // SAFETY: info holds one int written by dgetrf on this stream (the download waits).
    unsafe { download_raw(dev, info, &mut got)? };
    Ok((got[0] > 0).then(|| got[0] as usize - 1))
}

/// `B ← A⁻¹·B` for [`factor`]'s factors at `lu` and the `n × nrhs` column-major `b`.
fn solve(
    dev: &Device,
    ws: &mut Workspace,
    (lu, ld): (u64, usize),
    (b, ldb): (u64, usize),
    (n, nrhs): (usize, usize),
) -> Result<()> {
    let solver = dev.solver()?;
    let ipiv = ws.ipiv.get(dev, 4 * n)?;
    let info = ws.info.get(dev, 4)?;
    // SAFETY: lu and ipiv as left by factor for order n, b holds ldb·(nrhs−1)+n doubles,
    // info one int.
    unsafe { solver.dgetrs((n, nrhs), (lu, ld), ipiv, (b, ldb), info) }
}

fn with_workspace<R>(dev: &Device, f: impl FnOnce(&mut Workspace) -> Result<R>) -> Result<R> {
    let ws = dev.workspace("lapack", || Ok(Mutex::new(Workspace::default())))?;
    let mut guard = ws.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut guard)
}

/// Launches `kernel` of [`MODULE`] on a 2-D grid over `m × n`.
///
/// # Safety
/// As [`Device::launch`]: `args` match the kernel's parameters in `lapack_gpu.cu` and every
/// pointer addresses what its comment asks for.
unsafe fn launch_2d(
    dev: &Device,
    kernel: &'static str,
    (m, n): (usize, usize),
    a: &[Arg],
) -> Result<()> {
    // SAFETY: the caller's contract.
    unsafe { dev.launch(&MODULE, kernel, dev.grid_2d(m, n), a) }
}

/// `X ← A⁻¹·B` in `f64` by cuSOLVER's LU with partial pivoting (`getrf` + `getrs`): `A`
/// (`n × n`) is overwritten by its factors and `B` (`n × nrhs`) by the solution; both
/// column-major.
///
/// # Errors
/// [`Error::LengthMismatch`] for shapes that do not agree; [`Error::InvalidView`] for a view
/// that is not column-major; [`Error::DeviceMismatch`]; [`Error::Singular`] for an exactly
/// zero pivot (LAPACK's `info`, 0-based); [`Error::CudaLibraryMissing`] without cuSOLVER;
/// [`Error::OutOfRange`] beyond cuSOLVER's `i32` sizes.
pub fn dgesv(dev: &Device, a: DeviceMatMut<'_, f64>, b: DeviceMatMut<'_, f64>) -> Result<()> {
    let n = a.rows();
    crate::cuda::check_len("a (columns)", n, a.cols())?;
    crate::cuda::check_len("b (rows)", n, b.rows())?;
    dev.check_on("a", a.ordinal())?;
    dev.check_on("b", b.ordinal())?;
    let (lda, ldb) = (
        col_major_ld("a", &a.layout())?,
        col_major_ld("b", &b.layout())?,
    );
    if n == 0 || b.cols() == 0 {
        return Ok(());
    }
    with_workspace(dev, |ws| {
        let pa = (a.word_addr(0), lda);
        if let Some(column) = factor(dev, ws, pa, n)? {
            return Err(Error::Singular { column });
        }
        solve(dev, ws, pa, (b.word_addr(0), ldb), (n, b.cols()))
    })
}

/// Right-hand sides up to which the double-double residual is a GEMV per column
/// (memory-bound: `A` read once per column) rather than the Ozaki scheme (whose residues of `A`
/// cost more than a few GEMVs). Measured on an H100 at n = 8192, one right-hand side: see
/// BENCHMARKS.md.
const GEMV_RESIDUAL_MAX_RHS: usize = 8;

/// The formats [`gesv_refined`] solves in on the GPU: [`Dd`] and [`Qd`] (sealed). Each brings
/// its residual step (module docs).
pub trait RefineOnDevice: DeviceScalar + Scalar<Ctx = ()> + sealed::Sealed {
    /// After the correction `d` (`n × nrhs` column-major `f64`) was added to `x`: `r` (`n ×
    /// nrhs` column-major, holding the previous residual) becomes `B − A·X`.
    #[doc(hidden)]
    fn next_residual(
        dev: &Device,
        ab: (DeviceMatRef<'_, Self>, DeviceMatRef<'_, Self>),
        x: DeviceMatRef<'_, Self>,
        d: DeviceMatRef<'_, f64>,
        r: &mut DeviceVec<Self>,
    ) -> Result<()>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::dd::Dd {}
    impl Sealed for crate::qd::Qd {}
}

impl RefineOnDevice for Dd {
    /// `R = B − A·X` afresh: a GEMV per column (each entry a recursive dd sum, within about
    /// `(n+2)·u²·(|A||x|)_i`) for few right-hand sides, otherwise the Ozaki scheme (within
    /// `compensated_dot_gamma(n)·(|A||X|)_ij`).
    fn next_residual(
        dev: &Device,
        (a, b): (DeviceMatRef<'_, Dd>, DeviceMatRef<'_, Dd>),
        x: DeviceMatRef<'_, Dd>,
        _d: DeviceMatRef<'_, f64>,
        r: &mut DeviceVec<Dd>,
    ) -> Result<()> {
        let (n, nrhs) = (a.rows(), x.cols());
        copy_words(dev, b, r.word_addrs(), (1, n as u64))?;
        let mut rv = DeviceMatMut::col_major(r, n, nrhs, n)?;
        if nrhs <= GEMV_RESIDUAL_MAX_RHS {
            for j in 0..nrhs {
                crate::blas::gpu::gemv(dev, -Dd::ONE, a, x.col(j)?, Dd::ONE, rv.col_mut(j)?)?;
            }
            return Ok(());
        }
        ozaki2_gemm_dd(dev, -1.0, a, x, 1.0, rv, &ozaki2_dd_params()).map(|_| ())
    }
}

impl RefineOnDevice for Qd {
    /// `R ← R − Σ_w A_w·D`, each word's product exact before its rounding to quad-double.
    fn next_residual(
        dev: &Device,
        (a, _b): (DeviceMatRef<'_, Qd>, DeviceMatRef<'_, Qd>),
        _x: DeviceMatRef<'_, Qd>,
        d: DeviceMatRef<'_, f64>,
        r: &mut DeviceVec<Qd>,
    ) -> Result<()> {
        let (n, nrhs) = (a.rows(), d.cols());
        for w in 0..4 {
            let rv = DeviceMatMut::col_major(r, n, nrhs, n)?;
            ozaki2_gemm_qd_word(dev, -1.0, (a, w), d, 1.0, rv)?;
        }
        Ok(())
    }
}

/// `out` (`m × n` column-major `f64`) ← the leading words of `src`.
fn lead_words(dev: &Device, src: (u64, u64, u64), (m, n): (usize, usize), out: u64) -> Result<()> {
    // SAFETY: lapack_lead_words(const double* lead, u64 rs, u64 cs, u64 m, u64 n, double* out): the
    // leading word plane through its checked strides, out m·n doubles.
    unsafe {
        launch_2d(
            dev,
            "lapack_lead_words",
            (m, n),
            args![src.0, src.1, src.2, m, n, out],
        )
    }
}

/// Solves `A·X = B` (`A` `n × n`, `B` and `X` `n × nrhs`, [`Dd`] or [`Qd`], any strides) on
/// the GPU by `f64` factors and refinement in the format: the GPU form of
/// [`gesv_refined`](super::gesv_refined) (module docs for the residuals). `A` and `B` are not
/// changed. The fallback for systems too ill-conditioned for `f64` factors (and for an
/// `fl64(A)` with a zero pivot) is the format's LU on the GPU
/// ([`gesv`](super::lu_gpu::gesv): the CPU's [`gesv`](super::gesv) bit for bit), reported as
/// [`RefinePath::Fallback`]. The report's `rcond`, `backward_error` and `forward_error` are not
/// computed on the GPU yet: they are NaN whatever [`RefineParams::error_bounds`] says
/// ([`gecon`](super::gecon) and [`solve_bounds`](super::solve_bounds) on the CPU give them).
///
/// # Errors
/// [`Error::LengthMismatch`] for shapes that do not agree; [`Error::DeviceMismatch`];
/// [`Error::Singular`] when the fallback meets an exactly singular `A` (or, with
/// `fallback = false`, when `fl64(A)` is singular); [`Error::CudaLibraryMissing`] without
/// cuSOLVER or cuBLAS; the Ozaki residuals' errors.
pub fn gesv_refined<T: RefineOnDevice>(
    dev: &Device,
    a: DeviceMatRef<'_, T>,
    b: DeviceMatRef<'_, T>,
    mut x: DeviceMatMut<'_, T>,
    params: &RefineParams,
) -> Result<RefineReport> {
    let (n, nrhs) = refine_shapes(
        (a.rows(), a.cols()),
        (b.rows(), b.cols()),
        (x.rows(), x.cols()),
    )?;
    dev.check_on("a", a.ordinal())?;
    dev.check_on("b", b.ordinal())?;
    dev.check_on("x", x.ordinal())?;
    let mut report = RefineReport::start();
    if n == 0 || nrhs == 0 {
        return Ok(report);
    }
    let u = T::unit_roundoff_in(&());
    let (ars, acs) = strides(&a.layout());
    let (xrs, xcs) = strides(&x.layout());
    let lu = dev.zeros::<f64>(n * n)?;
    let rhs = dev.zeros::<f64>(n * nrhs)?;
    let mut r = dev.zeros::<T>(n * nrhs)?;
    lead_words(dev, (a.word_addr(0), ars, acs), (n, n), lu.word_addr(0))?;
    let singular = with_workspace(dev, |ws| factor(dev, ws, (lu.word_addr(0), n), n))?;
    if let Some(column) = singular {
        report.f64_singular = true;
        if !params.fallback {
            return Err(Error::Singular { column });
        }
        return fallback_lu(dev, (a, b), &mut x, report);
    }
    // R = B, then: D = fl64(A)⁻¹·fl64(R), X ← X + D (X₀ = D, no iteration counted), the
    // stopping rule, R ← B − A·X.
    copy_words(dev, b, r.word_addrs(), (1, n as u64))?;
    let xw = x.word_addrs();
    let mut previous = f64::INFINITY;
    let mut converged = false;
    let mut first = true;
    loop {
        lead_words(
            dev,
            (r.word_addr(0), 1, n as u64),
            (n, nrhs),
            rhs.word_addr(0),
        )?;
        let maxima = with_workspace(dev, |ws| {
            solve(
                dev,
                ws,
                (lu.word_addr(0), n),
                (rhs.word_addr(0), n),
                (n, nrhs),
            )?;
            let colmax = ws.colmax.get(dev, 16 * nrhs)?;
            // SAFETY: colmax holds 2·nrhs u64 of the workspace, written only on this stream.
            unsafe { memset(dev, colmax, 0, 16 * nrhs)? };
            // SAFETY: lapack_add_correction(double* x0..x3, u64 rs, u64 cs, u64 m, u64 n,
            // const double* d, int init, int words, u64* colmax): x's words through its checked
            // (injective) strides, rhs n·nrhs doubles, colmax 2·nrhs u64.
            unsafe {
                launch_2d(
                    dev,
                    "lapack_add_correction",
                    (n, nrhs),
                    args![
                        xw[0],
                        xw[1],
                        xw[2],
                        xw[3],
                        xrs,
                        xcs,
                        n,
                        nrhs,
                        rhs.word_addr(0),
                        i32::from(first),
                        T::WORDS as i32,
                        colmax
                    ],
                )?
            };
            let mut bits = vec![0u64; 2 * nrhs];
            // SAFETY: colmax holds 2·nrhs u64 written above on this stream.
            unsafe { download_raw(dev, colmax, &mut bits)? };
            Ok(bits)
        })?;
        if !first {
            let worst = (0..nrhs).fold(0.0f64, |w, c| {
                let (dn, xn) = (
                    f64::from_bits(maxima[2 * c]),
                    f64::from_bits(maxima[2 * c + 1]),
                );
                worse(w, relative_correction(dn, xn))
            });
            report.iterations += 1;
            report.last_correction = worst;
            if let Some(done) = step_outcome(worst, previous, u, n) {
                converged = done;
                break;
            }
            previous = worst;
        }
        first = false;
        if report.iterations >= params.max_iterations {
            break;
        }
        let d = DeviceMatRef::col_major(&rhs, n, nrhs, n)?;
        T::next_residual(dev, (a, b), x.rb(), d, &mut r)?;
    }
    if !converged && params.fallback {
        return fallback_lu(dev, (a, b), &mut x, report);
    }
    if !converged {
        report.path = RefinePath::NotConverged;
    }
    Ok(report)
}

/// The fallback: the format's LU on the GPU ([`gesv`](super::lu_gpu::gesv), the CPU's
/// [`gesv`](super::gesv) bit for bit) of column-major copies of `A` and `B`, the solution written
/// into `X`.
fn fallback_lu<T: RefineOnDevice>(
    dev: &Device,
    (a, b): (DeviceMatRef<'_, T>, DeviceMatRef<'_, T>),
    x: &mut DeviceMatMut<'_, T>,
    mut report: RefineReport,
) -> Result<RefineReport> {
    let (n, nrhs) = (a.rows(), b.cols());
    let mut lu = dev.zeros::<T>(n * n)?;
    let mut sol = dev.zeros::<T>(n * nrhs)?;
    copy_words(dev, a, lu.word_addrs(), (1, n as u64))?;
    copy_words(dev, b, sol.word_addrs(), (1, n as u64))?;
    let mut ipiv = vec![0; n];
    super::lu_gpu::gesv(
        dev,
        DeviceMatMut::col_major(&mut lu, n, n, n)?,
        &mut ipiv,
        DeviceMatMut::col_major(&mut sol, n, nrhs, n)?,
    )?;
    let xw = x.word_addrs();
    copy_words(
        dev,
        DeviceMatRef::col_major(&sol, n, nrhs, n)?,
        xw,
        strides(&x.layout()),
    )?;
    report.path = RefinePath::Fallback;
    Ok(report)
}
