//! BLAS level 2 on the GPU (`blas_level2_gpu.cu`) for `f64`, [`Dd`](crate::Dd) and
//! [`Qd`](crate::Qd): `gemv` and `ger` with the CPU's orders, bits and bounds
//! ([`level2`](super::level2)).
//!
//! `gemv` forms each row's dot product in the level-1 blocked order in two kernels: a first pass
//! computing nodes of the order's tree (for a column-major `A`, threads on consecutive rows, so
//! that a warp reads consecutive addresses; for a transposed one, threads on the lanes of each
//! row), and a finish kernel that joins them and updates `y`. Which nodes the first pass
//! computes (rows per block, the launch) never changes the tree, so the result is the CPU's for
//! any launch and storage.

use super::blas_level1_gpu::{
    BLAS_REDUCE_CUH, GpuFormat, LaunchShape, check_block_fits, check_shape, config_of, from_words,
    kernel_of, scalar_arg,
};
use super::level2::{RowBound, is_zero, unchanged_bound};
use super::sum::CHUNK;
use crate::cuda::{
    Arg, Device, DeviceMatMut, DeviceMatRef, DeviceScalar, DeviceVecMut, DeviceVecRef,
    LaunchConfig, ModuleSource, ScratchBuffer, check_len, download_raw,
};
use crate::error::{Error, Result};
use crate::view::MatLayout;
use std::sync::Mutex;

/// The entry points of `blas_level2_gpu.cu` (`tests/kernel_names.rs` checks each against it).
pub(crate) const KERNELS: &[&str] = &[
    "blas_f64_gemv_rows",
    "blas_f64_gemv_rows_abs",
    "blas_f64_gemv_lanes",
    "blas_f64_gemv_lanes_abs",
    "blas_f64_gemv_finish",
    "blas_f64_gemv_beta_only",
    "blas_f64_ger_scale",
    "blas_f64_ger_update",
    "blas_f64_gemv_rows_split",
    "blas_f64_gemv_rows_split_abs",
    "blas_dd_gemv_rows",
    "blas_dd_gemv_rows_abs",
    "blas_dd_gemv_lanes",
    "blas_dd_gemv_lanes_abs",
    "blas_dd_gemv_finish",
    "blas_dd_gemv_beta_only",
    "blas_dd_ger_scale",
    "blas_dd_ger_update",
    "blas_qd_gemv_rows",
    "blas_qd_gemv_rows_abs",
    "blas_qd_gemv_lanes",
    "blas_qd_gemv_lanes_abs",
    "blas_qd_gemv_finish",
    "blas_qd_gemv_beta_only",
    "blas_qd_ger_scale",
    "blas_qd_ger_update",
];

/// The kernel module: source and entry points.
pub(crate) static MODULE: ModuleSource = ModuleSource {
    name: "blas_level2_gpu",
    source: include_str!("blas_level2_gpu.cu"),
    headers: &[
        &crate::eft::EFT_CUH,
        &crate::dd::dd_gpu::DD_CUH,
        &crate::qd::qd_gpu::QD_CUH,
        &BLAS_REDUCE_CUH,
    ],
    kernels: KERNELS,
};

/// `blas_<format>_<what>`, as the `'static` name of the table.
fn kernel<T: DeviceScalar>(what: &str) -> Result<&'static str> {
    kernel_of::<T>(&MODULE, what)
}

/// The partials of the first pass, the sums of the bounds and `α·y` of `ger`.
#[derive(Default)]
struct Workspace {
    part: ScratchBuffer,
    small: ScratchBuffer,
}

fn with_workspace<R>(dev: &Device, f: impl FnOnce(&mut Workspace) -> Result<R>) -> Result<R> {
    let ws = dev.workspace("blas_level2", || Ok(Mutex::new(Workspace::default())))?;
    let mut guard = ws.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut guard)
}

/// A one-dimensional grid-stride launch of `kernel` over `work` items.
fn config_1d(
    dev: &Device,
    kernel: &'static str,
    work: usize,
    shape: LaunchShape,
) -> Result<LaunchConfig> {
    config_of(
        dev,
        &MODULE,
        kernel,
        work.div_ceil(shape.threads as usize),
        shape,
    )
}

/// Launches `kernel` of this module.
///
/// # Safety
/// `args` must match the kernel's C signature and every pointer in them address storage of
/// the size the kernel reads or writes for the given counts.
unsafe fn launch(
    dev: &Device,
    kernel: &'static str,
    cfg: LaunchConfig,
    args: &[Arg],
) -> Result<()> {
    // SAFETY: the caller's contract.
    unsafe { dev.launch(&MODULE, kernel, cfg, args) }
}

/// A matrix as the kernels' `MatArg`: word addresses of element (0, 0), row and column strides.
pub(crate) fn mat_arg(words: impl Fn(usize) -> u64, w: usize, rs: usize, cs: usize) -> Arg {
    let mut a = [0u64; 6];
    for (k, slot) in a.iter_mut().enumerate().take(w) {
        *slot = words(k);
    }
    a[4] = rs as u64;
    a[5] = cs as u64;
    Arg::Struct(Box::new(a))
}

/// True when each row of the view is contiguous and the rows are not adjacent (a transposed
/// column-major matrix): the kernels then put consecutive threads along a row.
fn rows_contiguous(layout: &MatLayout) -> bool {
    layout.col_stride == 1 && layout.row_stride != 1
}

/// The most columns of `op(A)` the GPU `gemv` takes: the finish kernel joins at most
/// [`CHUNK`] chunk results per row (two passes of the blocked order).
pub const GEMV_MAX_COLUMNS: usize = CHUNK * CHUNK;

/// How [`gemv_shaped`] is launched. The bits never depend on it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GemvShape {
    /// Threads and blocks of each kernel.
    pub launch: LaunchShape,
    /// Rows per block of the first pass over a column-major `A`: a power of two from 1 to 256
    /// (the block's threads, up to 256, split each row's 256 lanes among them; at most the
    /// threads), or `None` for 64, or fewer where 64 would leave SMs without work.
    pub rows_per_block: Option<u32>,
    /// The split rows pass (f64 over a column-major `A`; no effect elsewhere): 2, 4 or 8 lane
    /// groups a chunk, each in blocks of its own of 256 rows that read the same columns
    /// together, the `launch`'s blocks (its threads unused); not with `rows_per_block`.
    /// `None`: the launcher chooses (4 groups where they fill half the GPU's resident blocks;
    /// `MPBLAS_GEMV_SPLIT` = 0, 2, 4 or 8 overrides).
    pub split_groups: Option<u32>,
}

/// `y ← α·A·x + β·y` on the GPU for an `m × n` view `A` (pass `a.t()` for `Aᵀ`): the CPU's
/// [`gemv`](super::level2::gemv), bit for bit, with its conventions (`α = 0` does not read `A`
/// or `x`, `β = 0` does not read `y`, reference BLAS's quick returns).
///
/// # Errors
/// [`Error::DeviceMismatch`], [`Error::LengthMismatch`] (`x`, `y`), [`Error::OutOfRange`] for
/// more than [`GEMV_MAX_COLUMNS`] columns, then the runtime's errors.
pub fn gemv<T: GpuFormat>(
    dev: &Device,
    alpha: T,
    a: DeviceMatRef<'_, T>,
    x: DeviceVecRef<'_, T>,
    beta: T,
    y: DeviceVecMut<'_, T>,
) -> Result<()> {
    gemv_shaped(dev, alpha, a, x, beta, y, GemvShape::default())
}

/// [`gemv`] with a chosen launch (same bits).
///
/// # Errors
/// As [`gemv`], and [`Error::OutOfRange`] for a launch shape out of range (see
/// [`LaunchShape`]) or rows per block that are not a power of two up to 256.
pub fn gemv_shaped<T: GpuFormat>(
    dev: &Device,
    alpha: T,
    a: DeviceMatRef<'_, T>,
    x: DeviceVecRef<'_, T>,
    beta: T,
    y: DeviceVecMut<'_, T>,
    shape: GemvShape,
) -> Result<()> {
    gemv_run(dev, alpha, a, x, beta, y, shape, false).map(drop)
}

/// [`gemv`] returning the CPU's componentwise bound of each entry
/// ([`gemv_bounded`](super::level2::gemv_bounded)): the same values and the same bounds, from
/// `Σ_j|a_ij||x_j|` summed on the device in the same order. It reads `A` twice and `y` back to
/// the host.
///
/// # Errors
/// As [`gemv`].
pub fn gemv_bounded<T: GpuFormat>(
    dev: &Device,
    alpha: T,
    a: DeviceMatRef<'_, T>,
    x: DeviceVecRef<'_, T>,
    beta: T,
    y: DeviceVecMut<'_, T>,
) -> Result<Vec<f64>> {
    gemv_run(dev, alpha, a, x, beta, y, GemvShape::default(), true)
}

#[allow(clippy::too_many_arguments)]
fn gemv_run<T: GpuFormat>(
    dev: &Device,
    alpha: T,
    a: DeviceMatRef<'_, T>,
    x: DeviceVecRef<'_, T>,
    beta: T,
    mut y: DeviceVecMut<'_, T>,
    shape: GemvShape,
    with_bounds: bool,
) -> Result<Vec<f64>> {
    dev.check_on("a", a.ordinal())?;
    dev.check_on("x", x.ordinal())?;
    dev.check_on("y", y.ordinal())?;
    check_len("x", a.cols(), x.len())?;
    check_len("y", a.rows(), y.len())?;
    check_shape(shape.launch)?;
    let rows = match shape.rows_per_block {
        None => None,
        Some(r) if r.is_power_of_two() && r <= 256 => Some(r),
        Some(r) => {
            return Err(Error::OutOfRange {
                what: "rows per block (a power of two)",
                got: r as usize,
                min: 1,
                max: 256,
            });
        }
    };
    match (shape.split_groups, rows) {
        (None | Some(2 | 4 | 8), None) | (None, Some(_)) => {}
        (Some(g), None) => {
            return Err(Error::OutOfRange {
                what: "split rows pass lane groups (2, 4 or 8)",
                got: g as usize,
                min: 2,
                max: 8,
            });
        }
        (Some(_), Some(r)) => {
            return Err(Error::OutOfRange {
                what: "rows per block beside split groups (leave one None)",
                got: r as usize,
                min: 0,
                max: 0,
            });
        }
    }
    let (m, n) = (a.rows(), a.cols());
    if n > GEMV_MAX_COLUMNS {
        return Err(Error::OutOfRange {
            what: "columns of op(A) in a GPU gemv",
            got: n,
            min: 0,
            max: GEMV_MAX_COLUMNS,
        });
    }
    let (alpha_zero, beta_zero) = (is_zero(&alpha), is_zero(&beta));
    let quick = m == 0 || n == 0 || (alpha_zero && beta == T::one_in(&()));
    // The old y, for the bounds' |β·y_i| (and the finiteness of an unchanged y).
    let y_old: Vec<T> = if with_bounds {
        y.rb().download()?
    } else {
        Vec::new()
    };
    if quick {
        return Ok(y_old.iter().map(unchanged_bound).collect());
    }
    let ymode = if beta_zero { 1 } else { 0 };
    let mut abs_sums: Vec<T> = Vec::new();
    if alpha_zero {
        let k = kernel::<T>("gemv_beta_only")?;
        let args = [
            scalar_arg(beta),
            scalar_arg(T::zero_in(&())),
            Arg::I32(beta_zero as i32),
            y.arg(),
            Arg::U64(m as u64),
        ];
        // SAFETY: y holds m elements.
        unsafe { launch(dev, k, config_1d(dev, k, m, shape.launch)?, &args)? };
    } else {
        with_workspace(dev, |ws| {
            if with_bounds {
                let sums = ws.small.get(dev, 8 * T::WORDS * m)?;
                let tail = finish_tail((m, n), alpha, beta, y.arg(), 2, sums);
                first_and_finish(dev, ws, &a, &x, (m, n), shape, rows, true, tail)?;
                let mut words = vec![0.0; T::WORDS * m];
                // SAFETY: the finish kernel wrote m sums, word-major with stride m, at `sums`.
                unsafe { download_raw(dev, sums, &mut words)? };
                abs_sums = (0..m)
                    .map(|i| {
                        let w: Vec<f64> = (0..T::WORDS).map(|k| words[k * m + i]).collect();
                        from_words::<T>(&w)
                    })
                    .collect();
            }
            let tail = finish_tail((m, n), alpha, beta, y.arg(), ymode, 0);
            first_and_finish(dev, ws, &a, &x, (m, n), shape, rows, false, tail)
        })?;
    }
    if !with_bounds {
        return Ok(Vec::new());
    }
    let values = y.rb().download()?;
    let consts = RowBound::new(&alpha, beta_zero, n);
    Ok((0..m)
        .map(|i| {
            let by = (!beta_zero).then(|| beta.mul_ref(&y_old[i]));
            consts.bound(&alpha, by.as_ref(), abs_sums.get(i), &values[i])
        })
        .collect())
}

/// The finish kernel's arguments after the chunk results: sizes, scalars, y, mode (0: y ← α·s +
/// β·y, 1: y ← α·s, 2: s to `sums`) and `sums`.
fn finish_tail<T: GpuFormat>(
    (m, n): (usize, usize),
    alpha: T,
    beta: T,
    y: Arg,
    mode: i32,
    sums: u64,
) -> Vec<Arg> {
    vec![
        Arg::U64(m as u64),
        Arg::U64(n as u64),
        scalar_arg(alpha),
        scalar_arg(beta),
        y,
        Arg::I32(mode),
        Arg::U64(sums),
    ]
}

/// Rows a block of the split rows pass (`gemv_rows_split`).
const SPLIT_ROWS: usize = 256;

/// The split rows pass (f64 only; `None`: the rows pass). H200, 16384 × 8192, N, % of
/// cublasDgemv in the same run (two rounds, alternated): rows pass 87-88%, split 2 groups
/// 76-77%, 4 groups 98%, 8 groups 96-98%. With few blocks it loses (8192 × 8192, 256 blocks:
/// 77-79% against 81-85%; 4096 × 4096: 30% against 73-75%); 16384 × 8192 (512 blocks of 660
/// resident) and 32768 × 8192 gain (97-98% against 87-88%). Double-double's split was 84-87%
/// against its rows pass's 85-86%, and 75-76% with its terms staged through shared memory.
///
/// The shape's groups if it has them; else, where the shape leaves rows and blocks to the
/// launcher, `MPBLAS_GEMV_SPLIT`'s (whatever the size), or by default 4 where its blocks
/// (`work(4)` of them) fill half of the GPU's `resident` ones.
fn split_groups(
    shape: GemvShape,
    rows: Option<u32>,
    work: impl Fn(usize) -> usize,
    resident: usize,
) -> Option<usize> {
    if let Some(g) = shape.split_groups {
        return Some(g as usize);
    }
    if rows.is_some() || shape.launch.blocks.is_some() {
        return None;
    }
    let asked = std::env::var("MPBLAS_GEMV_SPLIT")
        .ok()
        .and_then(|v| v.parse::<usize>().ok());
    let gb = asked.unwrap_or(if 2 * work(4) >= resident { 4 } else { 0 });
    matches!(gb, 2 | 4 | 8).then_some(gb)
}

/// The first pass (rows or lanes, by `A`'s storage) of `Σ_j a_ij·x_j` (or of `|a_ij|·|x_j|`),
/// then the finish kernel on the chunk results and `tail` ([`finish_tail`]).
#[allow(clippy::too_many_arguments)]
fn first_and_finish<T: GpuFormat>(
    dev: &Device,
    ws: &mut Workspace,
    a: &DeviceMatRef<'_, T>,
    x: &DeviceVecRef<'_, T>,
    (m, n): (usize, usize),
    shape: GemvShape,
    rows: Option<u32>,
    abs: bool,
    tail: Vec<Arg>,
) -> Result<()> {
    let w = T::WORDS;
    let layout = a.layout();
    let chunks = n.div_ceil(CHUNK);
    let ma = mat_arg(|k| a.word_addr(k), w, layout.row_stride, layout.col_stride);
    let suffix = if abs { "_abs" } else { "" };
    // Threads on lanes when each row is contiguous and the rows are not; else on rows.
    let lanes = rows_contiguous(&layout) && m > 1;
    // The split pass only where its blocks fill the GPU: below that, the rows pass picks rows
    // per block to fill it.
    let mut split = None;
    if !lanes && w == 1 {
        let k = kernel::<T>(&format!("gemv_rows_split{suffix}"))?;
        let resident = dev.resident_blocks(&MODULE, k, SPLIT_ROWS as u32)?;
        let work = |gb: usize| m.div_ceil(SPLIT_ROWS) * chunks * gb;
        split = split_groups(shape, rows, work, resident).map(|gb| (k, gb, work(gb), resident));
    }
    // the finish's groups a chunk (1: the rows pass's one value a chunk)
    let groups = split.map_or(1, |(_, gb, ..)| gb);
    let results = m * chunks * groups;
    let part = ws.part.get(dev, 8 * w * results)?;
    let threads = shape.launch.threads;
    let strides = if lanes {
        let k = kernel::<T>(&format!("gemv_lanes{suffix}"))?;
        check_block_fits(dev, &MODULE, k, threads)?;
        let (gx, gy) = match shape.launch.blocks {
            Some(b) => (1, b.min(65_535)),
            // At most four blocks along the row, a block taking chunks c, c + gx, … in turn.
            None => (chunks.div_ceil(2).min(4) as u32, m.min(65_535) as u32),
        };
        let args = [
            ma,
            x.arg(),
            Arg::U64(m as u64),
            Arg::U64(n as u64),
            Arg::U64(part),
            Arg::U64(results as u64),
        ];
        // SAFETY: A's view was checked against its vector (m × n elements in range), x holds n
        // elements; `part` holds m·chunks results of w words (word stride m·chunks), row i's
        // at i·chunks.
        unsafe { launch(dev, k, LaunchConfig::new((gx, gy), threads), &args)? };
        (1u64, chunks as u64)
    } else {
        // The rows pass or its split form: the same arguments but the fifth (rows per block,
        // or the split's groups a chunk).
        let (k, threads, blocks, fifth) = if let Some((k, gb, work, resident)) = split {
            let threads = SPLIT_ROWS as u32;
            check_block_fits(dev, &MODULE, k, threads)?;
            let blocks = shape
                .launch
                .blocks
                .map_or(work.min(resident), |b| b as usize);
            (k, threads, blocks as u32, gb as u32)
        } else {
            let k = kernel::<T>(&format!("gemv_rows{suffix}"))?;
            check_block_fits(dev, &MODULE, k, threads)?;
            // 64 rows per block (a warp reads 32 consecutive elements of a column), fewer where
            // that leaves SMs idle; at least four, so that a warp reads whole 32-byte sectors.
            // H100, 16384 × 8192: f64 and double-double run as fast at 64 rows as at 32,
            // quad-double 2-3% faster (fewer groups, fewer tree levels in shared memory).
            let resident = dev.resident_blocks(&MODULE, k, threads)?;
            let tiles = |r: usize| m.div_ceil(r) * chunks;
            let r = rows.map_or_else(
                || {
                    [64usize, 32, 16, 8]
                        .into_iter()
                        .find(|&r| tiles(r) >= resident)
                        .unwrap_or(4)
                },
                |r| r as usize,
            );
            // No more rows than threads (each row needs one; the bits do not change).
            let r = r.min(1 << (threads.min(256).ilog2()));
            let blocks = shape.launch.blocks.unwrap_or_else(|| {
                tiles(r).clamp(1, resident.max(1)).min(u32::MAX as usize) as u32
            });
            (k, threads, blocks, r as u32)
        };
        let args = [
            ma,
            x.arg(),
            Arg::U64(m as u64),
            Arg::U64(n as u64),
            Arg::U32(fifth),
            Arg::U64(part),
            Arg::U64(results as u64),
        ];
        // SAFETY: as above; chunk c of row i at `part + c·m + i` (word stride m·chunks), or
        // with the split's gb groups, group g's node at `part + (c·gb + g)·m + i` (word stride
        // m·chunks·gb).
        unsafe { launch(dev, k, LaunchConfig::new((blocks, 1), threads), &args)? };
        (m as u64, 1u64)
    };
    let pa = Arg::Struct(Box::new([
        part,
        results as u64,
        strides.0,
        strides.1,
        groups as u64,
    ]));
    let k = kernel::<T>("gemv_finish")?;
    let args: Vec<Arg> = std::iter::once(pa).chain(tail).collect();
    // SAFETY: the chunk results just written (layout `pa`), y (or the sums) holds m elements,
    // the finish reads at most CHUNK chunk results per row (n ≤ GEMV_MAX_COLUMNS, checked).
    unsafe { launch(dev, k, config_1d(dev, k, m, shape.launch)?, &args) }
}

/// `A ← α·x·yᵀ + A` on the GPU for an `m × n` view `A`: the CPU's
/// [`ger`](super::level2::ger), bit for bit (`a_ij + x_i·(α·y_j)`, columns with `y_j = 0` left
/// alone, `α = 0` returns at once).
///
/// # Errors
/// [`Error::DeviceMismatch`], [`Error::LengthMismatch`] (`x`, `y`), then the runtime's errors.
pub fn ger<T: GpuFormat>(
    dev: &Device,
    alpha: T,
    x: DeviceVecRef<'_, T>,
    y: DeviceVecRef<'_, T>,
    a: DeviceMatMut<'_, T>,
) -> Result<()> {
    dev.check_on("a", a.ordinal())?;
    dev.check_on("x", x.ordinal())?;
    dev.check_on("y", y.ordinal())?;
    check_len("x", a.rows(), x.len())?;
    check_len("y", a.cols(), y.len())?;
    let (m, n) = (a.rows(), a.cols());
    if m == 0 || n == 0 || is_zero(&alpha) {
        return Ok(());
    }
    let layout = a.layout();
    let rows_fast = !rows_contiguous(&layout);
    let shape = LaunchShape::default();
    with_workspace(dev, |ws| {
        let t = ws.small.get(dev, 8 * T::WORDS * n)?;
        let k = kernel::<T>("ger_scale")?;
        let args = [scalar_arg(alpha), y.arg(), Arg::U64(n as u64), Arg::U64(t)];
        // SAFETY: y holds n elements; `t` room for n of WORDS words (stride n).
        unsafe { launch(dev, k, config_1d(dev, k, n, shape)?, &args)? };
        let k = kernel::<T>("ger_update")?;
        let ma = mat_arg(
            |k| a.word_addr(k),
            T::WORDS,
            layout.row_stride,
            layout.col_stride,
        );
        let args = [
            ma,
            x.arg(),
            y.arg(),
            Arg::U64(t),
            Arg::U64(m as u64),
            Arg::U64(n as u64),
            Arg::I32(rows_fast as i32),
        ];
        // SAFETY: A's mutable view was checked (elements in range, pairwise distinct), x holds m
        // elements, y and t n; A is a distinct allocation (`&mut`) from x and y.
        unsafe { launch(dev, k, config_1d(dev, k, m * n, shape)?, &args) }
    })
}
