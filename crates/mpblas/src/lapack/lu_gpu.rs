//! LU with partial pivoting on the GPU ([`getrf`]), its solves ([`getrs`]) and both ([`gesv`]):
//! the CPU's [`lu`](super::lu) step for step, so the factors, pivots and solutions are the
//! CPU's bits, for `f64`, [`Dd`](crate::Dd) and [`Qd`](crate::Qd) (kernels of `lu_gpu.cu`).
//!
//! **Order of the work.** Panels of [`LU_BLOCK`] columns: for each column a pivot kernel (one
//! block: the first row of largest magnitude, the row swap across the matrix, the division
//! below the diagonal) and a panel kernel (the rank-1 update of the panel's remaining columns);
//! then `U12 = L11⁻¹·A12` (a thread per column, rows in order) and the trailing update
//! `A22 ← A22 − L21·U12` by the GPU [`gemm`](crate::blas::gpu::gemm) (the CPU's `gemm`, bit for
//! bit). The solves are blocked by 32 rows: the diagonal block a thread per right-hand side,
//! the rows beyond it entry-parallel, each row's terms subtracted in the CPU's order
//! (ascending forward, descending backward).
//!
//! The work is the level-3 GEMM's (`2n³/3` of the trailing updates); the pivot kernels are
//! `n` single-block launches, latency-bound (a few microseconds each).

use super::lu::{LU_BLOCK, check_factor_shape, check_pivots};
use crate::blas::blas_level1_gpu::GpuFormat;
use crate::blas::blas_level2_gpu::mat_arg;
use crate::cuda::{
    Arg, Device, DeviceBuffer, DeviceMatMut, DeviceMatRef, DeviceScalar, LaunchConfig,
    ModuleSource, args, blocks, download_raw, memset,
};
use crate::error::{Error, Result};
use crate::view::{MatLayout, Trans};

/// The entry points of `lu_gpu.cu` (`tests/kernel_names.rs` checks them).
pub(crate) const KERNELS: &[&str] = &[
    "lu_copy_words",
    "lu_pivot_f64",
    "lu_panel_f64",
    "lu_trsm_f64",
    "lu_swaps_f64",
    "lu_trsv_f64",
    "lu_subst_f64",
    "lu_pivot_dd",
    "lu_panel_dd",
    "lu_trsm_dd",
    "lu_swaps_dd",
    "lu_trsv_dd",
    "lu_subst_dd",
    "lu_pivot_qd",
    "lu_panel_qd",
    "lu_trsm_qd",
    "lu_swaps_qd",
    "lu_trsv_qd",
    "lu_subst_qd",
];

/// The kernel module: source and entry points.
pub(crate) static MODULE: ModuleSource = ModuleSource {
    name: "lu_gpu",
    source: include_str!("lu_gpu.cu"),
    headers: &[
        &crate::eft::EFT_CUH,
        &crate::dd::dd_gpu::DD_CUH,
        &crate::qd::qd_gpu::QD_CUH,
        &crate::blas::blas_level1_gpu::BLAS_REDUCE_CUH,
    ],
    kernels: KERNELS,
};

/// Threads of the pivot kernel (`LU_PIVOT_THREADS`) and of the others' blocks.
const THREADS: u32 = 256;

/// Rows per diagonal block of the solves.
const SOLVE_BLOCK: usize = 32;

/// The kernel `lu_<what>_<format>`.
fn kernel<T: DeviceScalar>(what: &str) -> Result<&'static str> {
    let name = format!("lu_{what}_{}", T::NAME);
    KERNELS
        .iter()
        .find(|k| **k == name)
        .copied()
        .ok_or(Error::CudaLaunch {
            kernel: MODULE.name,
            cause: format!("no kernel {name}"),
        })
}

/// Launches `lu_<what>_<format>` with `cfg`.
///
/// # Safety
/// As [`Device::launch`]: `args` match the kernel's parameters in `lu_gpu.cu` and every
/// pointer addresses what its comment asks for.
unsafe fn launch<T: DeviceScalar>(
    dev: &Device,
    what: &str,
    cfg: LaunchConfig,
    a: &[Arg],
) -> Result<()> {
    // SAFETY: the caller's contract.
    unsafe { dev.launch(&MODULE, kernel::<T>(what)?, cfg, a) }
}

/// The `LuMat` argument of a view with word addresses `words` and layout `l`.
fn lu_mat<T: DeviceScalar>(words: impl Fn(usize) -> u64, l: &MatLayout) -> Arg {
    mat_arg(words, T::WORDS, l.row_stride, l.col_stride)
}

/// `lu_copy_words` of `src`'s words into the words `dst` (null beyond the format's) laid out with
/// strides `(ors, ocs)`.
pub(crate) fn copy_words<T: DeviceScalar>(
    dev: &Device,
    src: DeviceMatRef<'_, T>,
    dst: [u64; 4],
    (ors, ocs): (u64, u64),
) -> Result<()> {
    let (m, n) = (src.rows(), src.cols());
    let (rs, cs) = strides(&src.layout());
    let w = src.word_addrs();
    // SAFETY: lu_copy_words(const double* x0..x3, u64 rs, u64 cs, u64 m, u64 n, double* o0..o3,
    // u64 ors, u64 ocs, int words): src's words through its checked strides, dst's through
    // (ors, ocs), both addressing m x n elements of T::WORDS (1, 2 or 4) words.
    unsafe {
        dev.launch(
            &MODULE,
            "lu_copy_words",
            dev.grid_2d(m, n),
            args![
                w[0],
                w[1],
                w[2],
                w[3],
                rs,
                cs,
                m,
                n,
                dst[0],
                dst[1],
                dst[2],
                dst[3],
                ors,
                ocs,
                T::WORDS as i32
            ],
        )
    }
}

/// The element strides of a view's layout.
pub(super) fn strides(l: &MatLayout) -> (u64, u64) {
    (l.row_stride as u64, l.col_stride as u64)
}

/// The order limit of the LU kernels' 32-bit pivots.
///
/// # Errors
/// [`Error::OutOfRange`] beyond `u32::MAX − 1`.
pub(super) fn check_order(n: usize) -> Result<()> {
    if n > u32::MAX as usize - 1 {
        return Err(Error::OutOfRange {
            what: "order of a GPU LU",
            got: n,
            min: 0,
            max: u32::MAX as usize - 1,
        });
    }
    Ok(())
}

/// The device side of a factorisation's pivots: `ipiv` (one `u32` per step) and `info` (the
/// first zero pivot's step, `u32::MAX` for none), written by the pivot kernels.
pub(super) struct Pivots {
    pub(super) piv: DeviceBuffer<u32>,
    pub(super) info: DeviceBuffer<u32>,
}

impl Pivots {
    /// Buffers for `steps` pivots, `info` at `u32::MAX`.
    pub(super) fn new(dev: &Device, steps: usize) -> Result<Pivots> {
        let info = DeviceBuffer::<u32>::zeros(dev, 1)?;
        // SAFETY: info holds one u32 of this device; u32::MAX means no zero pivot yet.
        unsafe { memset(dev, info.addr(), 0xff, 4)? };
        Ok(Pivots {
            piv: DeviceBuffer::<u32>::zeros(dev, steps)?,
            info,
        })
    }

    /// The solves' pivots on the device as the kernels read them (`u32`; each is below the
    /// order `n`, by `check_factor_shape`).
    pub(super) fn upload(dev: &Device, ipiv: &[usize]) -> Result<DeviceBuffer<u32>> {
        let host: Vec<u32> = ipiv.iter().map(|&p| p as u32).collect();
        DeviceBuffer::<u32>::from_host(dev, &host)
    }

    /// The pivots into `ipiv` (its first `steps` entries) and `getrf`'s result: the first zero
    /// pivot's step, if any.
    pub(super) fn finish(&self, dev: &Device, ipiv: &mut [usize]) -> Result<Option<usize>> {
        let mut got = vec![0u32; self.piv.len()];
        // SAFETY: piv holds that many u32 written on this stream (the download waits for them).
        unsafe { download_raw(dev, self.piv.addr(), &mut got)? };
        for (slot, p) in ipiv.iter_mut().zip(got) {
            *slot = p as usize;
        }
        let mut first = [0u32; 1];
        // SAFETY: info holds one u32.
        unsafe { download_raw(dev, self.info.addr(), &mut first)? };
        Ok((first[0] != u32::MAX).then_some(first[0] as usize))
    }
}

/// `A = P·L·U` in place on the GPU for an `m × n` view (any strides): the CPU's
/// [`getrf`](super::getrf), bit for bit (factors and pivots). `ipiv[j]` (0-based) is the row
/// swapped with row `j` at step `j`; returns `Ok(Some(j))` for the first exactly zero `U(j, j)`
/// (LAPACK's `info = j + 1`; the factorisation is complete).
///
/// # Errors
/// [`Error::LengthMismatch`] if `ipiv` holds fewer than `min(m, n)` entries;
/// [`Error::DeviceMismatch`]; [`Error::OutOfRange`] for dimensions beyond `u32` or a GEMM
/// wider than the GPU gemm takes; [`Error::CudaLaunch`] if a kernel fails.
pub fn getrf<T: GpuFormat>(
    dev: &Device,
    mut a: DeviceMatMut<'_, T>,
    ipiv: &mut [usize],
) -> Result<Option<usize>> {
    let (m, n) = (a.rows(), a.cols());
    let steps = m.min(n);
    check_pivots(ipiv, steps)?;
    dev.check_on("a", a.ordinal())?;
    check_order(m.max(n))?;
    if steps == 0 {
        return Ok(None);
    }
    let pivots = Pivots::new(dev, steps)?;
    let (piv, info) = (&pivots.piv, &pivots.info);
    let l21 = dev.zeros::<T>(m * LU_BLOCK)?;
    let u12 = dev.zeros::<T>(LU_BLOCK * n)?;
    let (minus_one, one) = (T::one_in(&()).neg_ref(), T::one_in(&()));
    let mut j0 = 0;
    while j0 < steps {
        let jb = LU_BLOCK.min(steps - j0);
        let la = a.layout();
        let ma = lu_mat::<T>(|k| a.word_addr(k), &la);
        for j in j0..j0 + jb {
            // SAFETY: lu_pivot_<f>(LuMat a, u64 m, u64 n, u64 j, unsigned* ipiv, unsigned* info),
            // one block of LU_PIVOT_THREADS: a is the checked m × n view, piv holds steps
            // (> j) entries, info one.
            unsafe {
                launch::<T>(
                    dev,
                    "pivot",
                    LaunchConfig::new((1, 1), THREADS),
                    args![ma.clone(), m, n, j, piv.addr(), info.addr()],
                )?
            };
            if j + 1 < j0 + jb && j + 1 < m {
                // SAFETY: lu_panel_<f>(LuMat a, u64 m, u64 j, u64 c_end), 2-D grid: rows
                // j+1..m and columns j+1..c_end ≤ n of the view.
                unsafe {
                    launch::<T>(
                        dev,
                        "panel",
                        dev.grid_2d(m - j - 1, j0 + jb - j - 1),
                        args![ma.clone(), m, j, j0 + jb],
                    )?
                };
            }
        }
        let (c0, rest) = (j0 + jb, n - (j0 + jb));
        if rest > 0 {
            // SAFETY: lu_trsm_<f>(LuMat a, u64 j0, u64 jb, u64 c0, u64 n), any 1-D grid: rows
            // j0..j0+jb and columns c0..n of the view.
            unsafe {
                launch::<T>(
                    dev,
                    "trsm",
                    LaunchConfig::new((blocks(rest, THREADS as usize, 65_535), 1), THREADS),
                    args![ma.clone(), j0, jb, c0, n],
                )?
            };
            let below = m - c0;
            if below > 0 {
                // Copies of L21 and U12 (the CPU's too), then A22 ← A22 − L21·U12.
                let src = a.rb();
                copy_words(
                    dev,
                    src.block(c0, j0, below, jb)?,
                    l21.word_addrs(),
                    (1, below as u64),
                )?;
                copy_words(
                    dev,
                    src.block(j0, c0, jb, rest)?,
                    u12.word_addrs(),
                    (1, jb as u64),
                )?;
                crate::blas::gpu::gemm(
                    dev,
                    minus_one,
                    DeviceMatRef::col_major(&l21, below, jb, below)?,
                    DeviceMatRef::col_major(&u12, jb, rest, jb)?,
                    one,
                    a.rb_mut().block(c0, c0, below, rest)?,
                )?;
            }
        }
        j0 += jb;
    }
    pivots.finish(dev, ipiv)
}

/// One triangular solve of [`getrs`]: `mat` the triangle (as a view of element `(i, q)`),
/// `backward` descending, `divide` by the diagonal.
fn triangular<T: GpuFormat>(
    dev: &Device,
    (mat, b): (&Arg, &Arg),
    (n, nrhs): (usize, usize),
    backward: bool,
    divide: bool,
) -> Result<()> {
    let nb = n.div_ceil(SOLVE_BLOCK);
    for s in 0..nb {
        let blk = if backward { nb - 1 - s } else { s };
        let (b0, b1) = (blk * SOLVE_BLOCK, ((blk + 1) * SOLVE_BLOCK).min(n));
        // SAFETY: lu_trsv_<f>(LuMat mat, LuMat b, u64 b0, u64 b1, u64 nrhs, int backward,
        // int divide), any 1-D grid: mat n × n, b n × nrhs (checked views), b1 ≤ n.
        unsafe {
            launch::<T>(
                dev,
                "trsv",
                LaunchConfig::new((blocks(nrhs, THREADS as usize, 65_535), 1), THREADS),
                args![
                    mat.clone(),
                    b.clone(),
                    b0,
                    b1,
                    nrhs,
                    i32::from(backward),
                    i32::from(divide)
                ],
            )?
        };
        let (r0, r1) = if backward { (0, b0) } else { (b1, n) };
        if r1 > r0 {
            // SAFETY: lu_subst_<f>(LuMat mat, LuMat b, u64 b0, u64 b1, u64 r0, u64 r1,
            // u64 nrhs, int backward), 2-D grid (rows r0..r1, columns of b).
            unsafe {
                launch::<T>(
                    dev,
                    "subst",
                    dev.grid_2d(r1 - r0, nrhs),
                    args![
                        mat.clone(),
                        b.clone(),
                        b0,
                        b1,
                        r0,
                        r1,
                        nrhs,
                        i32::from(backward)
                    ],
                )?
            };
        }
    }
    Ok(())
}

/// Solves `op(A)·X = B` in place on the GPU with the factors and pivots of [`getrf`]: the
/// CPU's [`getrs`](super::getrs), bit for bit. `lu` `n × n` and `B` `n × nrhs`, any strides.
///
/// # Errors
/// [`Error::LengthMismatch`], [`Error::OutOfRange`] (a pivot outside `j..n`) as the CPU's;
/// [`Error::DeviceMismatch`]; [`Error::CudaLaunch`].
pub fn getrs<T: GpuFormat>(
    dev: &Device,
    trans: Trans,
    lu: DeviceMatRef<'_, T>,
    ipiv: &[usize],
    b: DeviceMatMut<'_, T>,
) -> Result<()> {
    let n = lu.rows();
    check_factor_shape((lu.rows(), lu.cols()), ipiv)?;
    crate::blas::level1::check_same_len("b (rows)", n, b.rows())?;
    dev.check_on("lu", lu.ordinal())?;
    dev.check_on("b", b.ordinal())?;
    let nrhs = b.cols();
    if n == 0 || nrhs == 0 {
        return Ok(());
    }
    let piv = Pivots::upload(dev, &ipiv[..n])?;
    let (ll, lb) = (lu.layout(), b.layout());
    let m_lu = lu_mat::<T>(|k| lu.word_addr(k), &ll);
    let m_lut = lu_mat::<T>(|k| lu.word_addr(k), &ll.t());
    let mb = lu_mat::<T>(|k| b.word_addr(k), &lb);
    let swaps = |reverse: bool| -> Result<()> {
        // SAFETY: lu_swaps_<f>(LuMat b, u64 n, u64 nrhs, const unsigned* ipiv, int reverse),
        // any 1-D grid: b n × nrhs, piv n entries in j..n (check_factors).
        unsafe {
            launch::<T>(
                dev,
                "swaps",
                LaunchConfig::new((blocks(nrhs, THREADS as usize, 65_535), 1), THREADS),
                args![mb.clone(), n, nrhs, piv.addr(), i32::from(reverse)],
            )
        }
    };
    match trans {
        Trans::No => {
            swaps(false)?;
            triangular::<T>(dev, (&m_lu, &mb), (n, nrhs), false, false)?;
            triangular::<T>(dev, (&m_lu, &mb), (n, nrhs), true, true)
        }
        Trans::Yes => {
            triangular::<T>(dev, (&m_lut, &mb), (n, nrhs), false, true)?;
            triangular::<T>(dev, (&m_lut, &mb), (n, nrhs), true, false)?;
            swaps(true)
        }
    }
}

/// Solves `A·X = B` on the GPU (`A` `n × n`, `B` `n × nrhs`): [`getrf`] then [`getrs`], the
/// CPU's [`gesv`](super::gesv) bit for bit. `A` holds the factors afterwards, `B` the solution.
///
/// # Errors
/// [`Error::Singular`] when `U` has an exactly zero diagonal entry (`B` untouched); those of
/// [`getrf`] and [`getrs`].
pub fn gesv<T: GpuFormat>(
    dev: &Device,
    mut a: DeviceMatMut<'_, T>,
    ipiv: &mut [usize],
    b: DeviceMatMut<'_, T>,
) -> Result<()> {
    crate::blas::level1::check_same_len("a (columns)", a.rows(), a.cols())?;
    crate::blas::level1::check_same_len("b (rows)", a.rows(), b.rows())?;
    if let Some(column) = getrf(dev, a.rb_mut(), ipiv)? {
        return Err(Error::Singular { column });
    }
    getrs(dev, Trans::No, a.rb(), ipiv, b)
}
