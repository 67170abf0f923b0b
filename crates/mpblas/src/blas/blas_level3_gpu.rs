//! BLAS level 3 on the GPU (`blas_level3_gpu.cu`) for `f64`, [`Dd`](crate::Dd) and
//! [`Qd`](crate::Qd): `gemm` with the CPU's order, bits and bounds ([`level3`](super::level3)).
//!
//! One tiled kernel on the CUDA cores: a block per tile of `C` (64 × 64, quad-double 32 × 32),
//! 256 threads each holding a micro-tile of accumulators, tiles of `A` and `B` through shared
//! memory. Each entry walks `k` in order, as the CPU's, so the bits never depend on the tiling.
//! [`gemm_dd_compensated`] is the same kernel with the compensated double-double dot product
//! in place of the format's step (64 × 64 tiles of 4 × 4 per thread): 1.9-2.0 T dd-op/s on an
//! H100 against 0.8 T for the accurate recursive step.

use super::blas_level1_gpu::{BLAS_REDUCE_CUH, GpuFormat, from_words, kernel_of, scalar_arg};
use super::blas_level2_gpu::mat_arg;
use super::bounds::compensated_dot_gamma;
use super::level2::{RowBound, is_zero, unchanged_bound};
use super::level3::{gemm_shapes, recursive_dot_gamma};
use crate::cuda::{
    Arg, Device, DeviceMatMut, DeviceMatRef, DeviceScalar, Header, LaunchConfig, ModuleSource,
    ScratchBuffer, download_raw,
};
use crate::dd::Dd;
use crate::error::{Error, Result};
use std::sync::Mutex;

/// The entry points of `blas_level3_gpu.cu` (`tests/kernel_names.rs` checks each against it).
pub(crate) const KERNELS: &[&str] = &[
    "blas_f64_gemm",
    "blas_f64_gemm_abs",
    "blas_f64_gemm_beta_only",
    "blas_dd_gemm",
    "blas_dd_gemm_abs",
    "blas_dd_gemm_compensated",
    "blas_dd_gemm_compensated_abs",
    "blas_dd_gemm_beta_only",
    "blas_qd_gemm",
    "blas_qd_gemm_abs",
    "blas_qd_gemm_beta_only",
];

/// `blas_compensated.cuh`: the compensated double-double dot product (`CompensatedDot`'s
/// twin), shared with the double-double Ozaki scheme.
pub(crate) static BLAS_COMPENSATED_CUH: Header = Header {
    name: "blas_compensated.cuh",
    text: include_str!("blas_compensated.cuh"),
};

/// The kernel module: source and entry points.
pub(crate) static MODULE: ModuleSource = ModuleSource {
    name: "blas_level3_gpu",
    source: include_str!("blas_level3_gpu.cu"),
    headers: &[
        &crate::eft::EFT_CUH,
        &crate::dd::dd_gpu::DD_CUH,
        &crate::qd::qd_gpu::QD_CUH,
        &BLAS_REDUCE_CUH,
        &BLAS_COMPENSATED_CUH,
    ],
    kernels: KERNELS,
};

/// Threads per block of the tiled kernel (`GEMM_THREADS` in the kernel).
const THREADS: u32 = 256;

/// The sums of `|A||B|` for the bounds.
#[derive(Default)]
struct Workspace {
    sums: ScratchBuffer,
}

/// `C ← α·A·B + β·C` on the GPU for an `m × k` view `A` and a `k × n` view `B` (pass `a.t()`,
/// `b.t()` for transposes): the CPU's [`gemm`](super::level3::gemm), bit for bit, with its
/// conventions (`α = 0` or `k = 0` reads neither `A` nor `B`, `β = 0` does not read `C`,
/// reference BLAS's quick returns).
///
/// # Errors
/// [`Error::DeviceMismatch`], [`Error::LengthMismatch`] (the shapes), [`Error::OutOfRange`]
/// for more than 65,535 tiles of columns of `C` (2.1 million columns; 4.2 million for `f64` and
/// [`gemm_dd_compensated`]),
/// then the runtime's errors.
pub fn gemm<T: GpuFormat>(
    dev: &Device,
    alpha: T,
    a: DeviceMatRef<'_, T>,
    b: DeviceMatRef<'_, T>,
    beta: T,
    c: DeviceMatMut<'_, T>,
) -> Result<()> {
    gemm_run(dev, alpha, a, b, beta, c, false, Sum::Recursive).map(drop)
}

/// The CPU's [`gemm_dd_compensated`](super::level3::gemm_dd_compensated) on the GPU, bit for
/// bit: each entry's compensated double-double dot product (blocks of 32 terms of TwoSum and
/// `f64` error sums, joined with the accurate addition), about 13 `f64` operations per term
/// instead of [`gemm`]'s 33.
///
/// # Errors
/// As [`gemm`].
pub fn gemm_dd_compensated(
    dev: &Device,
    alpha: Dd,
    a: DeviceMatRef<'_, Dd>,
    b: DeviceMatRef<'_, Dd>,
    beta: Dd,
    c: DeviceMatMut<'_, Dd>,
) -> Result<()> {
    gemm_run(dev, alpha, a, b, beta, c, false, Sum::Compensated).map(drop)
}

/// [`gemm_dd_compensated`] with the CPU's componentwise bounds
/// ([`gemm_dd_compensated_bounded`](super::level3::gemm_dd_compensated_bounded)).
///
/// # Errors
/// As [`gemm`].
pub fn gemm_dd_compensated_bounded(
    dev: &Device,
    alpha: Dd,
    a: DeviceMatRef<'_, Dd>,
    b: DeviceMatRef<'_, Dd>,
    beta: Dd,
    c: DeviceMatMut<'_, Dd>,
) -> Result<Vec<f64>> {
    gemm_run(dev, alpha, a, b, beta, c, true, Sum::Compensated)
}

/// How each entry is summed: the format's recursive `add_product`, or the compensated
/// double-double dot product.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sum {
    Recursive,
    Compensated,
}

impl Sum {
    /// The tile of `C` a block computes, rows and columns (`GemmTile` and `CompensatedTile`
    /// in the kernel).
    fn tile<T: DeviceScalar>(self) -> (usize, usize) {
        match (self, T::WORDS) {
            (Sum::Compensated, _) => (64, 64),
            (Sum::Recursive, 1) => (64, 64),
            (Sum::Recursive, 2) => (32, 32),
            (Sum::Recursive, _) => (16, 32),
        }
    }

    /// The kernels of the sums and of the sums of `|A||B|` (without the format prefix).
    fn kernels(self) -> (&'static str, &'static str) {
        match self {
            Sum::Recursive => ("gemm", "gemm_abs"),
            Sum::Compensated => ("gemm_compensated", "gemm_compensated_abs"),
        }
    }

    /// `g` of the sums' bound, as on the CPU.
    fn gamma<T: GpuFormat>(self, k: usize) -> f64 {
        match self {
            Sum::Recursive => recursive_dot_gamma::<T>(&(), k),
            Sum::Compensated => compensated_dot_gamma(k),
        }
    }
}

/// [`gemm`] returning the CPU's componentwise bound of each entry
/// ([`gemm_bounded`](super::level3::gemm_bounded), column-major): the same values and bounds,
/// from `(|A||B|)_ij` summed on the device in the same order. It multiplies twice and reads `C`
/// back to the host.
///
/// # Errors
/// As [`gemm`].
pub fn gemm_bounded<T: GpuFormat>(
    dev: &Device,
    alpha: T,
    a: DeviceMatRef<'_, T>,
    b: DeviceMatRef<'_, T>,
    beta: T,
    c: DeviceMatMut<'_, T>,
) -> Result<Vec<f64>> {
    gemm_run(dev, alpha, a, b, beta, c, true, Sum::Recursive)
}

/// The entries of a device view, column-major.
fn download_mat<T: DeviceScalar>(c: &DeviceMatMut<'_, T>) -> Result<Vec<T>> {
    let (m, n) = (c.rows(), c.cols());
    let l = c.layout();
    let all = c.rb().vec().download()?;
    Ok((0..n)
        .flat_map(|j| (0..m).map(move |i| (i, j)))
        .map(|(i, j)| all[l.index(i, j)])
        .collect())
}

#[allow(clippy::too_many_arguments)]
fn gemm_run<T: GpuFormat>(
    dev: &Device,
    alpha: T,
    a: DeviceMatRef<'_, T>,
    b: DeviceMatRef<'_, T>,
    beta: T,
    c: DeviceMatMut<'_, T>,
    with_bounds: bool,
    sum: Sum,
) -> Result<Vec<f64>> {
    dev.check_on("a", a.ordinal())?;
    dev.check_on("b", b.ordinal())?;
    dev.check_on("c", c.ordinal())?;
    gemm_shapes(
        (a.rows(), a.cols()),
        (b.rows(), b.cols()),
        (c.rows(), c.cols()),
    )?;
    let (m, n, k) = (a.rows(), b.cols(), a.cols());
    let (tile_m, tile) = sum.tile::<T>();
    let (sums_kernel, abs_kernel) = sum.kernels();
    if n.div_ceil(tile) > 65_535 {
        return Err(Error::OutOfRange {
            what: "columns of C in a GPU gemm",
            got: n,
            min: 0,
            max: 65_535 * tile,
        });
    }
    let (product_absent, beta_zero) = (is_zero(&alpha) || k == 0, is_zero(&beta));
    let quick = m == 0 || n == 0 || (product_absent && beta == T::one_in(&()));
    let c_old: Vec<T> = if with_bounds {
        download_mat(&c)?
    } else {
        Vec::new()
    };
    if quick {
        return Ok(c_old.iter().map(unchanged_bound).collect());
    }
    let w = T::WORDS;
    let lc = c.layout();
    let mc = mat_arg(|q| c.word_addr(q), w, lc.row_stride, lc.col_stride);
    let mut abs_sums: Vec<T> = Vec::new();
    if product_absent {
        let kn = kernel_of::<T>(&MODULE, "gemm_beta_only")?;
        let args = [
            scalar_arg(beta),
            scalar_arg(T::zero_in(&())),
            Arg::I32(beta_zero as i32),
            mc,
            Arg::U64(m as u64),
            Arg::U64(n as u64),
        ];
        let resident = dev.resident_blocks(&MODULE, kn, THREADS)?;
        let blocks = (m * n).div_ceil(THREADS as usize).clamp(1, resident.max(1)) as u32;
        // SAFETY: C's mutable view was checked (m × n distinct elements in range).
        unsafe { dev.launch(&MODULE, kn, LaunchConfig::new((blocks, 1), THREADS), &args)? };
    } else {
        let (la, lb) = (a.layout(), b.layout());
        let ma = mat_arg(|q| a.word_addr(q), w, la.row_stride, la.col_stride);
        let mb = mat_arg(|q| b.word_addr(q), w, lb.row_stride, lb.col_stride);
        let grid = (
            m.div_ceil(tile_m).min(u32::MAX as usize) as u32,
            n.div_ceil(tile) as u32,
        );
        let cfg = LaunchConfig::new(grid, THREADS);
        let run = |what: &str, mode: i32, sout: u64| -> Result<()> {
            let kn = kernel_of::<T>(&MODULE, what)?;
            let args = [
                ma.clone(),
                mb.clone(),
                Arg::U64(m as u64),
                Arg::U64(n as u64),
                Arg::U64(k as u64),
                scalar_arg(alpha),
                scalar_arg(beta),
                mc.clone(),
                Arg::I32(mode),
                Arg::U64(sout),
            ];
            // SAFETY: the views of A (m × k), B (k × n) and C (m × n, distinct elements) were
            // checked against their vectors; mode 2 writes m·n sums of w words to `sout`
            // (word stride m·n) and nothing to C; C is a distinct allocation (`&mut`).
            unsafe { dev.launch(&MODULE, kn, cfg, &args) }
        };
        if with_bounds {
            let ws = dev.workspace("blas_level3", || Ok(Mutex::new(Workspace::default())))?;
            let mut guard = ws.lock().unwrap_or_else(|e| e.into_inner());
            let sums = guard.sums.get(dev, 8 * w * m * n)?;
            run(abs_kernel, 2, sums)?;
            let mut words = vec![0.0; w * m * n];
            // SAFETY: the kernel wrote m·n sums, word-major with stride m·n, at `sums`.
            unsafe { download_raw(dev, sums, &mut words)? };
            abs_sums = (0..m * n)
                .map(|e| {
                    let v: Vec<f64> = (0..w).map(|q| words[q * m * n + e]).collect();
                    from_words::<T>(&v)
                })
                .collect();
        }
        run(sums_kernel, if beta_zero { 1 } else { 0 }, 0)?;
    }
    if !with_bounds {
        return Ok(Vec::new());
    }
    let values = download_mat(&c)?;
    let zero = T::zero_in(&());
    let al = if product_absent { zero } else { alpha };
    let consts = RowBound::with_gamma(&al, beta_zero, k, sum.gamma::<T>(k));
    Ok((0..m * n)
        .map(|e| {
            let by = (!beta_zero).then(|| beta.mul_ref(&c_old[e]));
            consts.bound(&al, by.as_ref(), abs_sums.get(e), &values[e])
        })
        .collect())
}
