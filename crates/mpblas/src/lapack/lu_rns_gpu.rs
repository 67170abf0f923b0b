//! LU with partial pivoting in RNS multiple precision on the GPU ([`getrf`]), its solves
//! ([`getrs`]) and both ([`gesv`]) on [`DeviceMpArray`] storage with LAPACK-style arguments:
//! the CPU's [`lu`](super::lu) on [`MpFloat`](crate::rns::MpFloat) step for step, so the
//! factors, pivots and solutions are the CPU's bits (kernels of `lu_rns_gpu.cu`).
//!
//! **Order of the work** (the CPU's): for each column a pivot kernel (one block: the first row
//! of largest magnitude, compared exactly), the row swap across the matrix, the division below
//! the diagonal and the rank-1 update of the panel's remaining columns; per panel of
//! [`LU_BLOCK`] columns `U12 = L11⁻¹·A12` (a rank-1 launch per panel row) and the trailing
//! update `A22 ← A22 − L21·U12` with the CPU's [`gemm`](crate::blas::gemm) order (a thread per
//! entry: fused multiply-adds from `−0` in ascending `l`, then `(−1)·s + 1·a`). The solves are
//! column-oriented, a launch per step, so each row receives its terms in the CPU's order. Every
//! operation is correctly rounded (`rns.cuh`'s fused operations), so each has the CPU's result.
//!
//! **Cost.** `2n³/3` multiply-adds in the trailing updates, each an RNS operation on the
//! basis's residues; about `5n` launches, each as long as a few RNS operations in one thread
//! (the chain of a rounding: interval evaluations and base extensions), dominate for small `n`.

use super::lu::{LU_BLOCK, check_factor_shape, check_pivots};
use super::lu_gpu::{Pivots, check_order};
use crate::blas::blas_level2_rns_gpu::{BLAS_RNS_CUH, rns_arg, same_basis};
use crate::cuda::{Arg, Device, LaunchConfig, ModuleSource};
use crate::error::{Error, Result};
use crate::rns::array_gpu::{DeviceMpArray, RNS_CUH};
use crate::rns::{MpArray, MpFloat};
use crate::scalar::Scalar;
use crate::view::{MatLayout, Trans};

/// The entry points of `lu_rns_gpu.cu` (`tests/kernel_names.rs` checks them).
pub(crate) const KERNELS: &[&str] = &[
    "lu_rns_pivot",
    "lu_rns_swap",
    "lu_rns_divide",
    "lu_rns_eliminate",
    "lu_rns_update",
    "lu_rns_swaps",
];

/// The kernel module: source and entry points.
pub(crate) static MODULE: ModuleSource = ModuleSource {
    name: "lu_rns_gpu",
    source: include_str!("lu_rns_gpu.cu"),
    headers: &[&crate::eft::EFT_CUH, &RNS_CUH, &BLAS_RNS_CUH],
    kernels: KERNELS,
};

/// Threads of the pivot kernel (`LU_RNS_PIVOT_THREADS`).
const PIVOT_THREADS: u32 = 256;

/// Launches `kernel` over `work` items (grid-stride), nothing for none.
///
/// # Safety
/// As [`Device::launch`]: `a` matches the kernel's parameters in `lu_rns_gpu.cu` and every view
/// addresses elements inside its array for the counts given.
unsafe fn launch(dev: &Device, kernel: &'static str, work: usize, a: &[Arg]) -> Result<()> {
    if work == 0 {
        return Ok(());
    }
    // SAFETY: the caller's contract.
    unsafe { dev.launch(&MODULE, kernel, dev.grid_for(work), a) }
}

/// A column-major layout's view of `a`: element `(i, j)` at `offset + i·rs + j·cs`.
fn view(a: &DeviceMpArray, l: &MatLayout) -> Arg {
    rns_arg(a, l.offset, l.row_stride as isize, l.col_stride as isize)
}

/// `A = P·L·U` in place on the GPU for the `m × n` column-major matrix of leading dimension
/// `lda` in `a`: the CPU's [`getrf`](super::getrf) on the same values, bit for bit (factors and
/// pivots). `ipiv[j]` (0-based) is the row swapped with row `j` at step `j`; returns
/// `Ok(Some(j))` for the first exactly zero `U(j, j)` (LAPACK's `info = j + 1`; the
/// factorisation is complete).
///
/// ```no_run
/// # fn main() -> mpblas::Result<()> {
/// use mpblas::cuda::Device;
/// use mpblas::lapack::gpu::rns;
/// use mpblas::rns::gpu::DeviceMpArray;
/// use mpblas::rns::{Basis, MpArray, MpFloat};
/// let dev = Device::open(0)?;
/// let b = Basis::new(212)?;
/// // [2 1; 1 3] x = [3; 5]  →  x = [0.8; 1.4]
/// let a: Vec<MpFloat> = [2.0, 1.0, 1.0, 3.0].iter().map(|&v| MpFloat::from_f64(&b, v)).collect();
/// let x: Vec<MpFloat> = [3.0, 5.0].iter().map(|&v| MpFloat::from_f64(&b, v)).collect();
/// let mut da = DeviceMpArray::upload(&dev, &MpArray::from_mpfloats(&b, &a)?)?;
/// let mut dx = DeviceMpArray::upload(&dev, &MpArray::from_mpfloats(&b, &x)?)?;
/// let mut ipiv = [0; 2];
/// rns::gesv(&dev, 2, 1, &mut da, 2, &mut ipiv, &mut dx, 2)?;
/// let x = dx.download()?.to_mpfloats()?;
/// assert!((x[0].to_f64() - 0.8).abs() < 1e-16);
/// # Ok(())
/// # }
/// ```
///
/// # Errors
/// [`Error::LengthMismatch`] if `ipiv` holds fewer than `min(m, n)` entries;
/// [`Error::LeadingDim`], [`Error::ArrayTooShort`] for the matrix; [`Error::DeviceMismatch`];
/// [`Error::OutOfRange`] for an order beyond `u32`; [`Error::CudaLaunch`] if a kernel fails.
pub fn getrf(
    dev: &Device,
    m: usize,
    n: usize,
    a: &mut DeviceMpArray,
    lda: usize,
    ipiv: &mut [usize],
) -> Result<Option<usize>> {
    let steps = m.min(n);
    check_pivots(ipiv, steps)?;
    dev.check_on("a", a.ordinal())?;
    let layout = MatLayout::blas_arg(("a", "lda"), Trans::No, m, n, lda, a.len())?;
    check_order(m.max(n))?;
    if steps == 0 {
        return Ok(None);
    }
    let basis = a.basis().clone();
    let pivots = Pivots::new(dev, steps)?;
    let (piv, info) = (&pivots.piv, &pivots.info);
    let ones = [MpFloat::one_in(&basis).neg_ref(), MpFloat::one_in(&basis)];
    let scalars = DeviceMpArray::upload(dev, &MpArray::from_mpfloats(&basis, &ones)?)?;
    let tab = Arg::U64(a.tables());
    let ma = view(a, &layout);
    let mut j0 = 0;
    while j0 < steps {
        let jb = LU_BLOCK.min(steps - j0);
        for j in j0..j0 + jb {
            let step = [
                tab.clone(),
                ma.clone(),
                Arg::U64(m as u64),
                Arg::U64(j as u64),
            ];
            // SAFETY: lu_rns_pivot(tab, RnsArg a, u64 m, u64 j, unsigned* ipiv, unsigned* info),
            // one block: a is the checked m × n view (j < m), piv holds steps (> j) entries,
            // info one.
            unsafe {
                dev.launch(
                    &MODULE,
                    "lu_rns_pivot",
                    LaunchConfig::new((1, 1), PIVOT_THREADS),
                    &[&step[..], &[Arg::U64(piv.addr()), Arg::U64(info.addr())]].concat(),
                )?;
            }
            let swap = [
                tab.clone(),
                ma.clone(),
                Arg::U64(n as u64),
                Arg::U64(j as u64),
                Arg::U64(piv.addr()),
            ];
            // SAFETY: lu_rns_swap(tab, RnsArg a, u64 n, u64 j, const unsigned* ipiv): rows j
            // and ipiv[j] < m (written by the pivot kernel on this stream), columns 0..n.
            unsafe { launch(dev, "lu_rns_swap", n, &swap)? };
            let below_j = (j + 1, m);
            divide(dev, (&tab, &ma, &ma), j, below_j, (j, j + 1), true)?;
            eliminate(dev, (&tab, &ma, &ma), j, below_j, (j + 1, j0 + jb))?;
        }
        let (c0, rest) = (j0 + jb, n - (j0 + jb));
        if rest > 0 {
            // U12 = L11⁻¹·A12: row q of the panel eliminated from the panel's rows below it.
            for q in j0..c0 {
                eliminate(dev, (&tab, &ma, &ma), q, (q + 1, c0), (c0, n))?;
            }
            let below = m - c0;
            let update = [
                tab.clone(),
                ma.clone(),
                rns_arg(&scalars, 0, 1, 0),
                Arg::U64(j0 as u64),
                Arg::U64(jb as u64),
                Arg::U64(c0 as u64),
                Arg::U64(below as u64),
                Arg::U64(rest as u64),
            ];
            // SAFETY: lu_rns_update(tab, RnsArg a, RnsArg sc, u64 j0, u64 jb, u64 c0,
            // u64 below, u64 rest): rows and columns inside the view, sc holds two elements.
            unsafe { launch(dev, "lu_rns_update", below * rest, &update)? };
        }
        j0 += jb;
    }
    pivots.finish(dev, ipiv)
}

/// Launches `lu_rns_divide` (`x_ic ← x_ic / M_qq`, with `tail` = `skip_zero`: nothing when
/// `M_qq` is zero) or `lu_rns_eliminate` (`x_ic ← x_ic − M_iq·x_qc`, no `tail`) over rows
/// `r0..r1` and columns `c0..c1`; empty ranges launch nothing.
fn step_kernel(
    dev: &Device,
    kernel: &'static str,
    (tab, mat, x): (&Arg, &Arg, &Arg),
    q: usize,
    (r0, r1): (usize, usize),
    (c0, c1): (usize, usize),
    tail: &[Arg],
) -> Result<()> {
    if r1 <= r0 || c1 <= c0 {
        return Ok(());
    }
    let head = [
        tab.clone(),
        mat.clone(),
        x.clone(),
        Arg::U64(q as u64),
        Arg::U64(r0 as u64),
        Arg::U64(r1 as u64),
        Arg::U64(c0 as u64),
        Arg::U64(c1 as u64),
    ];
    // SAFETY: lu_rns_divide(tab, RnsArg mat, RnsArg x, u64 q, u64 r0, u64 r1, u64 c0, u64 c1,
    // int skip_zero) and lu_rns_eliminate (the same without skip_zero): the callers' ranges lie
    // inside the checked views, column q of mat and row q of x outside what is written (for
    // the division, (q, q) of mat).
    unsafe {
        launch(
            dev,
            kernel,
            (r1 - r0) * (c1 - c0),
            &[&head[..], tail].concat(),
        )
    }
}

/// `x_ic ← x_ic / M_qq` for rows `r0..r1`, columns `c0..c1` (nothing when `M_qq` is zero and
/// `skip_zero`).
fn divide(
    dev: &Device,
    args: (&Arg, &Arg, &Arg),
    q: usize,
    rows: (usize, usize),
    cols: (usize, usize),
    skip_zero: bool,
) -> Result<()> {
    let tail = [Arg::I32(i32::from(skip_zero))];
    step_kernel(dev, "lu_rns_divide", args, q, rows, cols, &tail)
}

/// `x_ic ← x_ic − M_iq·x_qc` for rows `r0..r1`, columns `c0..c1`.
fn eliminate(
    dev: &Device,
    args: (&Arg, &Arg, &Arg),
    q: usize,
    rows: (usize, usize),
    cols: (usize, usize),
) -> Result<()> {
    step_kernel(dev, "lu_rns_eliminate", args, q, rows, cols, &[])
}

/// Solves `op(A)·X = B` in place on the GPU (`B` becomes `X`) with the factors and pivots of
/// [`getrf`]: `lu` the `n × n` factors (leading dimension `lda`), `B` `n × nrhs` (leading
/// dimension `ldb`). The CPU's [`getrs`](super::getrs) on the same values, bit for bit.
///
/// # Errors
/// [`Error::LengthMismatch`] (`ipiv` shorter than `n`), [`Error::OutOfRange`] (a pivot outside
/// `j..n`) as the CPU's; [`Error::LeadingDim`], [`Error::ArrayTooShort`];
/// [`Error::BasisMismatch`] unless `lu` and `b` share a basis; [`Error::DeviceMismatch`];
/// [`Error::CudaLaunch`].
#[allow(clippy::too_many_arguments)]
pub fn getrs(
    dev: &Device,
    trans: Trans,
    n: usize,
    nrhs: usize,
    lu: &DeviceMpArray,
    lda: usize,
    ipiv: &[usize],
    b: &mut DeviceMpArray,
    ldb: usize,
) -> Result<()> {
    check_factor_shape((n, n), ipiv)?;
    dev.check_on("lu", lu.ordinal())?;
    dev.check_on("b", b.ordinal())?;
    same_basis(lu.basis(), b.basis())?;
    let ll = MatLayout::blas_arg(("lu", "lda"), Trans::No, n, n, lda, lu.len())?;
    let lb = MatLayout::blas_arg(("b", "ldb"), Trans::No, n, nrhs, ldb, b.len())?;
    check_order(n)?;
    if n == 0 || nrhs == 0 {
        return Ok(());
    }
    let piv = Pivots::upload(dev, &ipiv[..n])?;
    let tab = Arg::U64(lu.tables());
    let (m_lu, m_lut, mb) = (view(lu, &ll), view(lu, &ll.t()), view(b, &lb));
    let swaps = |reverse: bool| -> Result<()> {
        let a = [
            tab.clone(),
            mb.clone(),
            Arg::U64(n as u64),
            Arg::U64(nrhs as u64),
            Arg::U64(piv.addr()),
            Arg::I32(i32::from(reverse)),
        ];
        // SAFETY: lu_rns_swaps(tab, RnsArg x, u64 n, u64 nrhs, const unsigned* ipiv,
        // int reverse): x n × nrhs, piv n entries in j..n (check_factor_shape).
        unsafe { launch(dev, "lu_rns_swaps", nrhs, &a) }
    };
    // Column-oriented substitutions, a launch per step: each row's terms in the CPU's order
    // (ascending forward, descending backward), the division after its last term.
    let cols = (0, nrhs);
    let sweep = |mat: &Arg, backward: bool, unit: bool| -> Result<()> {
        for s in 0..n {
            let q = if backward { n - 1 - s } else { s };
            if !unit {
                divide(dev, (&tab, mat, &mb), q, (q, q + 1), cols, false)?;
            }
            let rows = if backward { (0, q) } else { (q + 1, n) };
            eliminate(dev, (&tab, mat, &mb), q, rows, cols)?;
        }
        Ok(())
    };
    match trans {
        Trans::No => {
            swaps(false)?;
            sweep(&m_lu, false, true)?;
            sweep(&m_lu, true, false)
        }
        Trans::Yes => {
            sweep(&m_lut, false, false)?;
            sweep(&m_lut, true, true)?;
            swaps(true)
        }
    }
}

/// Solves `A·X = B` on the GPU (`A` `n × n`, `B` `n × nrhs`, column-major with leading
/// dimensions `lda`, `ldb`): [`getrf`] then [`getrs`], the CPU's [`gesv`](super::gesv) bit for
/// bit. `a` holds the factors afterwards, `b` the solution, `ipiv` the pivots.
///
/// # Errors
/// [`Error::Singular`] when `U` has an exactly zero diagonal entry (`b` untouched);
/// [`Error::BasisMismatch`] before anything runs; those of [`getrf`] and [`getrs`].
#[allow(clippy::too_many_arguments)]
pub fn gesv(
    dev: &Device,
    n: usize,
    nrhs: usize,
    a: &mut DeviceMpArray,
    lda: usize,
    ipiv: &mut [usize],
    b: &mut DeviceMpArray,
    ldb: usize,
) -> Result<()> {
    same_basis(a.basis(), b.basis())?;
    MatLayout::blas_arg(("b", "ldb"), Trans::No, n, nrhs, ldb, b.len())?;
    if let Some(column) = getrf(dev, n, n, a, lda, ipiv)? {
        return Err(Error::Singular { column });
    }
    getrs(dev, Trans::No, n, nrhs, a, lda, ipiv, b, ldb)
}
