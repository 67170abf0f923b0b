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

use super::cond::{estimate_one_norm, larger, rcond_from, weighted_inverse_norm};
use super::lu_gpu::{copy_words, strides};
use super::refine::{refine_shapes, relative_correction, step_outcome, worse};
use super::{RefineParams, RefinePath, RefineReport};
use crate::blas::bounds::{compensated_dot_gamma, gamma, up};
use crate::cuda::DeviceScalar;
use crate::cuda::{
    Arg, Device, DeviceMatMut, DeviceMatRef, DeviceVec, ModuleSource, ScratchBuffer, args,
    col_major_ld, download_raw, memset,
};
use crate::cuda::{DeviceBuffer, dgemm};
use crate::dd::Dd;
use crate::error::{Error, Result};
use crate::ozaki::ozaki2_gpu::ozaki2_gemm_qd_word;
use crate::ozaki::{gpu::ozaki2_gemm_dd, ozaki2_dd_params};
use crate::qd::Qd;
use crate::scalar::Scalar;
use crate::view::Trans;
use std::sync::Mutex;

/// The entry points of `lapack_gpu.cu` (`tests/kernel_names.rs` checks them).
pub(crate) const KERNELS: &[&str] = &[
    "lapack_lead_words",
    "lapack_add_correction",
    "lapack_colmax_abs",
    "lapack_solve_bounds",
];

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

/// `v ← op(A)⁻¹·v` for one host vector with [`factor`]'s factors at `lu` (order `n`, leading
/// dimension `n`) and its pivots `piv` (0-based, downloaded once): the row interchanges on the
/// host, two cuBLAS `trsv` on the device. For the error bounds' estimator, whose ~10 solves of
/// one vector through cuSOLVER's `getrs` were most of the bounds' cost (BENCHMARKS.md).
fn solve_vector(
    dev: &Device,
    (lu, n): (u64, usize),
    piv: &[usize],
    t: Trans,
    v: &mut [f64],
) -> Result<()> {
    let blas = dev.blas()?;
    if t == Trans::No {
        for (j, &p) in piv.iter().enumerate() {
            v.swap(j, p.min(n - 1));
        }
    }
    let buf = dev.upload_f64(v)?;
    let x = buf.word_addr(0);
    // (upper, transposed, unit diagonal): L·U·x = P·v, or Uᵀ·Lᵀ·w = v then x = Pᵀ·w.
    let order = match t {
        Trans::No => [(false, false, true), (true, false, false)],
        Trans::Yes => [(true, true, false), (false, true, true)],
    };
    for kind in order {
        // SAFETY: lu holds the n × n factors (leading dimension n) and buf n doubles, both of
        // this device, distinct.
        unsafe { blas.trsv(kind, n, (lu, n), x)? };
    }
    buf.copy_to_host(v)?;
    if t == Trans::Yes {
        for (j, &p) in piv.iter().enumerate().rev() {
            v.swap(j, p.min(n - 1));
        }
    }
    Ok(())
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

/// `out` (`m × n` column-major `f64`) ← the leading words of `src` (their magnitudes with
/// `absolute`); with `acc` nonzero (`m × n` column-major `f64`) also `acc ← acc + |lead|`,
/// rounded up.
fn lead_words(
    dev: &Device,
    src: (u64, u64, u64),
    (m, n): (usize, usize),
    out: u64,
    (absolute, acc): (bool, u64),
) -> Result<()> {
    // SAFETY: lapack_lead_words(const double* lead, u64 rs, u64 cs, u64 m, u64 n, double* out,
    // int absolute, double* acc): the leading word plane through its checked strides, out and
    // acc (null or) m·n doubles.
    unsafe {
        launch_2d(
            dev,
            "lapack_lead_words",
            (m, n),
            args![src.0, src.1, src.2, m, n, out, i32::from(absolute), acc],
        )
    }
}

/// The leading words of a device view, as [`lead_words`] takes them.
fn lead_of<T: DeviceScalar>(x: DeviceMatRef<'_, T>) -> (u64, u64, u64) {
    let (rs, cs) = strides(&x.layout());
    (x.word_addr(0), rs, cs)
}

/// What bounds the error of the residual `R̂` a refinement leaves for its final `X` (every
/// entry, `f64`, rounded up): `|R̂ − (B − A·X)| ≤ c1·(|A|·S) + c2·Q + cn·‖a_i‖₁·Σ_i S_ij + tiny`,
/// with `S = |X|` and `Q = |B|` for a residual computed afresh, or the running sums the
/// refinement kept (`running`: `S = Σ_k (|D_k| + xw·|X_k|)`, `Q = Σ_k |R_(k−1)|`).
#[derive(Clone, Copy, Debug)]
struct ResidualError<'a> {
    c1: f64,
    c2: f64,
    cn: f64,
    tiny: f64,
    running: Option<(&'a DeviceVec<f64>, &'a DeviceVec<f64>)>,
}

impl<'a> ResidualError<'a> {
    /// A residual `B − A·X` computed afresh within `g·(|A||X| + |B|)` plus `ops` underflow
    /// errors of the format.
    fn fresh<T: RefineOnDevice>(g: f64, ops: usize) -> ResidualError<'a> {
        ResidualError {
            c1: g,
            c2: g,
            cn: 0.0,
            tiny: up(ops as f64 * T::underflow_error_in(&())),
            running: None,
        }
    }

    /// The double-double refinement's residual, afresh at each step: within
    /// `compensated_dot_gamma(n)·(|A||X|)` (the Ozaki scheme) plus the update's accurate
    /// addition (`2ε`), or `γ_(n+2)·(|A||X| + |B|)` (the GEMV for few right-hand sides); the
    /// larger of both.
    fn dd(n: usize) -> ResidualError<'a> {
        let eps = Dd::op_error_bound_in(&());
        let g = gamma(n + 3, eps).max(up(compensated_dot_gamma(n) + 2.0 * eps));
        Self::fresh::<Dd>(g, 2 * n + 6)
    }

    /// The quad-double refinement's residual `R_k = R_(k−1) − Σ_w A_w·D_k` after `steps` updates
    /// (`ozaki2_gemm_qd_word`, `u = 2^-212`): each word's product within
    /// `max(10, 4n)·u·(|A_w||D_k|) + 2^-270·‖a_w‖₂‖d_k‖₂` (exact conversion or quad-double sums
    /// of exact products) plus `8n + 4` subnormal units, its update (`add_ieee`, `3u`) within
    /// `3u` of `|R_(k−1)| + |A||D_k|`; `Σ_w |A_w| ≤ |A_hi|·(1 + 2^-51)`. The additions
    /// `X ← X + D_k` (`add_f64`, `2u·|X_k|`) move `X` away from `Σ D_k`, which `R` tracks: their
    /// share rides on `S` (`xw = 2.0001u / c1`).
    fn qd(
        n: usize,
        steps: usize,
        s: &'a DeviceVec<f64>,
        q: &'a DeviceVec<f64>,
    ) -> ResidualError<'a> {
        ResidualError {
            c1: qd_c1(n),
            c2: up(13.0 * Qd::UNIT_ROUNDOFF),
            cn: 2f64.powi(-269),
            tiny: up((36 * n + 16) as f64 * (steps + 1) as f64 * f64::from_bits(1)),
            running: Some((s, q)),
        }
    }
}

/// `c1` of [`ResidualError::qd`].
fn qd_c1(n: usize) -> f64 {
    let u = Qd::UNIT_ROUNDOFF;
    up((10.0f64.max(4.0 * n as f64) + 13.0) * u * (1.0 + 2f64.powi(-51)))
}

/// `xw` of [`ResidualError::qd`] for `n` (the share of `|X_k|` in the running sum `S`).
fn qd_drift_weight(n: usize) -> f64 {
    up(2.0001 * Qd::UNIT_ROUNDOFF / qd_c1(n))
}

/// `C ← |A_hi|·M` (`n × n` times `n × k`, all column-major `f64`) by cuBLAS DGEMM.
fn abs_product(
    dev: &Device,
    (abs_a, n): (&DeviceVec<f64>, usize),
    (m, k): (&DeviceVec<f64>, usize),
    c: &mut DeviceVec<f64>,
) -> Result<()> {
    dgemm(
        dev,
        1.0,
        DeviceMatRef::col_major(abs_a, n, n, n)?,
        DeviceMatRef::col_major(m, n, k, n)?,
        0.0,
        DeviceMatMut::col_major(c, n, k, n)?,
    )
}

/// Fills the report's `rcond`, `backward_error` and `forward_error` for the solution `X` of
/// `A·X = B` on the GPU, given the computed residual `r` (`n × nrhs` column-major, in `T`), what
/// bounds its error (`err`) and solves with factors of `A` (`inverse`: `v ← op(A)⁻¹·v` for an
/// `n`-vector). As the CPU's [`solve_bounds`](super::solve_bounds) and [`gecon`](super::gecon)
/// (the same estimator and formulas), except that `|A||X| + |B|` and `‖A‖₁` come from the
/// leading words by `f64` DGEMMs (rounded up for the bound), and `forward_error` is one
/// estimate for all columns: `‖ |A⁻¹|·w̃ ‖∞` with `w̃_i = max_j w_ij / ‖x_j‖∞` bounds every
/// column's `‖ |A⁻¹|·w_j ‖∞ / ‖x_j‖∞` (`|A⁻¹| ≥ 0`), so it is at least the CPU's worst column.
fn add_error_bounds<T: RefineOnDevice>(
    dev: &Device,
    report: &mut RefineReport,
    (a, b, x): (
        DeviceMatRef<'_, T>,
        DeviceMatRef<'_, T>,
        DeviceMatRef<'_, T>,
    ),
    r: &DeviceVec<T>,
    err: ResidualError<'_>,
    mut inverse: impl FnMut(Trans, &mut [f64]) -> Result<()>,
) -> Result<()> {
    let (n, nrhs) = (a.rows(), x.cols());
    let abs_a = dev.zeros::<f64>(n * n)?;
    lead_words(dev, lead_of(a), (n, n), abs_a.word_addr(0), (true, 0))?;
    let abs_x = dev.zeros::<f64>(n * nrhs)?;
    lead_words(dev, lead_of(x), (n, nrhs), abs_x.word_addr(0), (true, 0))?;
    let mut p = dev.zeros::<f64>(n * nrhs)?;
    abs_product(dev, (&abs_a, n), (&abs_x, nrhs), &mut p)?;
    drop(abs_x);
    // |A_hi|·S of the running sum (else S = |X|: the product above).
    let running = match err.running {
        Some((s, q)) => {
            let mut ds = dev.zeros::<f64>(n * nrhs)?;
            abs_product(dev, (&abs_a, n), (s, nrhs), &mut ds)?;
            Some((ds, s, q))
        }
        None => None,
    };
    let ones = dev.upload_f64(&vec![1.0; n])?;
    // Column sums of |A_hi| (‖A‖₁), row sums (the normwise term) and S's column sums.
    let mut col_a = dev.zeros::<f64>(n)?;
    dgemm(
        dev,
        1.0,
        DeviceMatRef::col_major(&abs_a, n, n, n)?.t(),
        DeviceMatRef::col_major(&ones, n, 1, n)?,
        0.0,
        DeviceMatMut::col_major(&mut col_a, n, 1, n)?,
    )?;
    let mut row_a = dev.zeros::<f64>(n)?;
    let mut col_s = dev.zeros::<f64>(nrhs)?;
    if let Some((_, s, _)) = running {
        abs_product(dev, (&abs_a, n), (&ones, 1), &mut row_a)?;
        dgemm(
            dev,
            1.0,
            DeviceMatRef::col_major(s, n, nrhs, n)?.t(),
            DeviceMatRef::col_major(&ones, n, 1, n)?,
            0.0,
            DeviceMatMut::col_major(&mut col_s, nrhs, 1, nrhs)?,
        )?;
    }
    drop(abs_a);
    // ‖x_j‖∞ as bits, then the bounds kernel.
    let xnorm = DeviceBuffer::<u64>::zeros(dev, nrhs)?;
    let (xl, xrs, xcs) = lead_of(x);
    // SAFETY: lapack_colmax_abs(const double* lead, u64 rs, u64 cs, u64 m, u64 n, u64* colmax):
    // x's leading words through its checked strides, xnorm nrhs zeroed u64.
    unsafe {
        launch_2d(
            dev,
            "lapack_colmax_abs",
            (n, nrhs),
            args![xl, xrs, xcs, n, nrhs, xnorm.addr()],
        )?
    };
    let berr = DeviceBuffer::<u64>::zeros(dev, 1)?;
    let wt = DeviceBuffer::<u64>::zeros(dev, n)?;
    let (bl, brs, bcs) = lead_of(b);
    let (ds, (q, qrs, qcs)) = match &running {
        Some((ds, _, q)) => (ds.word_addr(0), (q.word_addr(0), 1, n as u64)),
        None => (p.word_addr(0), (bl, brs, bcs)),
    };
    // DGEMM's rounding (γ_n for sums of non-negative terms, any order) and the second words
    // left out of |A_hi| and |X_hi| (each within 2^-52 of the magnitude).
    let dg = (n + 4) as f64 * f64::EPSILON;
    // SAFETY: lapack_solve_bounds(const double* r, const double* p, const double* b, u64 brs,
    // u64 bcs, const double* ds, const double* q, u64 qrs, u64 qcs, const double* rowsum,
    // const double* colsum, const u64* xnorm, u64 m, u64 n, double dg, double c1, double c2,
    // double cn, double tiny, u64* berr, u64* wt): r's leading words, p and ds n·nrhs doubles,
    // b and q through checked strides, rowsum n, colsum nrhs, xnorm nrhs, berr one and wt n
    // zeroed u64.
    unsafe {
        launch_2d(
            dev,
            "lapack_solve_bounds",
            (n, nrhs),
            args![
                r.word_addr(0),
                p.word_addr(0),
                bl,
                brs,
                bcs,
                ds,
                q,
                qrs,
                qcs,
                row_a.word_addr(0),
                col_s.word_addr(0),
                xnorm.addr(),
                n,
                nrhs,
                dg,
                err.c1,
                err.c2,
                err.cn,
                err.tiny,
                berr.addr(),
                wt.addr()
            ],
        )?
    };
    report.backward_error = f64::from_bits(berr.to_vec()?[0]);
    let w: Vec<f64> = wt.to_vec()?.into_iter().map(f64::from_bits).collect();
    report.forward_error = if w.iter().any(|v| v.is_nan()) {
        f64::NAN
    } else if w.iter().any(|v| v.is_infinite()) {
        f64::INFINITY
    } else if w.iter().all(|&v| v == 0.0) {
        0.0
    } else {
        weighted_inverse_norm(&w, &mut inverse)?
    };
    let anorm = col_a.download()?.into_iter().fold(0.0, larger);
    report.rcond = if !anorm.is_finite() {
        f64::NAN
    } else if anorm == 0.0 {
        0.0
    } else {
        rcond_from(anorm, estimate_one_norm(n, &mut inverse)?)
    };
    Ok(())
}

/// Solves `A·X = B` (`A` `n × n`, `B` and `X` `n × nrhs`, [`Dd`] or [`Qd`], any strides) on
/// the GPU by `f64` factors and refinement in the format: the GPU form of
/// [`gesv_refined`](super::gesv_refined) (module docs for the residuals). `A` and `B` are not
/// changed. The fallback for systems too ill-conditioned for `f64` factors (and for an
/// `fl64(A)` with a zero pivot) is the format's LU on the GPU
/// ([`gesv`](super::lu_gpu::gesv): the CPU's [`gesv`](super::gesv) bit for bit), reported as
/// [`RefinePath::Fallback`]. With [`RefineParams::error_bounds`] (the default) the report's
/// `rcond`, `backward_error` and `forward_error` are computed on the GPU after one more
/// residual (see `add_error_bounds` in the source: the CPU's formulas, `|A||X| + |B|` from the
/// leading words, one forward bound for all columns, at least the CPU's worst column's).
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
    lead_words(
        dev,
        (a.word_addr(0), ars, acs),
        (n, n),
        lu.word_addr(0),
        (false, 0),
    )?;
    let singular = with_workspace(dev, |ws| factor(dev, ws, (lu.word_addr(0), n), n))?;
    if let Some(column) = singular {
        report.f64_singular = true;
        if !params.fallback {
            return Err(Error::Singular { column });
        }
        return fallback_lu(dev, (a, b), &mut x, report, params);
    }
    // The quad-double residual's running sums for the error bound (ResidualError::qd).
    let running = if params.error_bounds && T::WORDS == 4 {
        Some((dev.zeros::<f64>(n * nrhs)?, dev.zeros::<f64>(n * nrhs)?))
    } else {
        None
    };
    let (s_acc, q_acc) = running
        .as_ref()
        .map_or((0, 0), |(s, q)| (s.word_addr(0), q.word_addr(0)));
    let drift = if running.is_some() {
        qd_drift_weight(n)
    } else {
        0.0
    };
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
            (false, q_acc),
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
            // const double* d, int init, int words, u64* colmax, double* acc, double xw): x's
            // words through its checked (injective) strides, rhs n·nrhs doubles, colmax 2·nrhs
            // u64, acc null or n·nrhs doubles.
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
                        colmax,
                        s_acc,
                        drift
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
        return fallback_lu(dev, (a, b), &mut x, report, params);
    }
    if !converged {
        report.path = RefinePath::NotConverged;
    }
    if params.error_bounds {
        // The residual of the final X (the loop stopped after its last correction).
        let d = DeviceMatRef::col_major(&rhs, n, nrhs, n)?;
        T::next_residual(dev, (a, b), x.rb(), d, &mut r)?;
        let err = match &running {
            Some((s, q)) => ResidualError::qd(n, report.iterations + 2, s, q),
            None => ResidualError::dd(n),
        };
        let piv = with_workspace(dev, |ws| {
            let mut got = vec![0i32; n];
            let ipiv = ws.ipiv.get(dev, 4 * n)?;
            // SAFETY: ipiv holds the n pivots dgetrf wrote (1-based) on this stream.
            unsafe { download_raw(dev, ipiv, &mut got)? };
            Ok(got
                .iter()
                .map(|&p| (p.max(1) - 1) as usize)
                .collect::<Vec<_>>())
        })?;
        let inverse = |t: Trans, v: &mut [f64]| solve_vector(dev, (lu.word_addr(0), n), &piv, t, v);
        add_error_bounds(dev, &mut report, (a, b, x.rb()), &r, err, inverse)?;
    }
    Ok(report)
}

/// The fallback: the format's LU on the GPU ([`gesv`](super::lu_gpu::gesv), the CPU's
/// [`gesv`](super::gesv) bit for bit) of column-major copies of `A` and `B`, the solution written
/// into `X`; with `params.error_bounds`, the bounds from the residual `B − A·X` by the format's
/// GEMM ([`gemm`](crate::blas::gpu::gemm): within `γ_(n+3)·(|A||X| + |B|)`) and solves with
/// the format's factors.
fn fallback_lu<T: RefineOnDevice>(
    dev: &Device,
    (a, b): (DeviceMatRef<'_, T>, DeviceMatRef<'_, T>),
    x: &mut DeviceMatMut<'_, T>,
    mut report: RefineReport,
    params: &RefineParams,
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
    if params.error_bounds {
        let mut r = dev.zeros::<T>(n * nrhs)?;
        copy_words(dev, b, r.word_addrs(), (1, n as u64))?;
        let one = T::one_in(&());
        crate::blas::gpu::gemm(
            dev,
            one.neg_ref(),
            a,
            x.rb(),
            one,
            DeviceMatMut::col_major(&mut r, n, nrhs, n)?,
        )?;
        let g = gamma(n + 3, T::op_error_bound_in(&()));
        let lu = DeviceMatRef::col_major(&lu, n, n, n)?;
        let inverse = |t: Trans, v: &mut [f64]| -> Result<()> {
            let host: Vec<T> = v.iter().map(|&e| T::from_f64_in(&(), e)).collect();
            let mut y = dev.upload(&host)?;
            super::lu_gpu::getrs(dev, t, lu, &ipiv, DeviceMatMut::col_major(&mut y, n, 1, n)?)?;
            for (e, f) in v.iter_mut().zip(y.download()?) {
                *e = f.nearest_f64();
            }
            Ok(())
        };
        let err = ResidualError::fresh::<T>(g, 2 * n + 6);
        add_error_bounds(dev, &mut report, (a, b, x.rb()), &r, err, inverse)?;
    }
    Ok(report)
}
