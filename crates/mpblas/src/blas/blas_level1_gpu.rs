//! BLAS level 1 on the GPU (`blas_level1_gpu.cu`) for `f64`, [`Dd`](crate::Dd) and
//! [`Qd`](crate::Qd): the same routines, orders and bits as the CPU ([`level1`](super::level1),
//! [`accurate`](super::accurate)).
//!
//! Every reduction runs whole on the device (no partial sums finished on the host: each pass of
//! the blocked order is the same kernel, on the partials of the pass before) and returns the
//! CPU's bits for any [`LaunchShape`]: the tree is fixed by the indices, the launch only
//! decides which block works on which chunk. Only the final value (one accumulator) is read
//! back, which waits for the work.
//!
//! # Errors
//!
//! [`Error::DeviceMismatch`] if an operand is on another device, [`Error::LengthMismatch`],
//! [`Error::OutOfRange`] for a launch shape of 0 or more than 1024 threads,
//! [`Error::CudaCompile`] / [`Error::CudaLaunch`] / [`Error::CudaDriver`] from the runtime.

use super::accurate::Pair;
use super::bounds::Bounded;
use super::level1::{Nrm2Acc, blue, blue_finish, bound_from_abs_sum, nrm2_bound};
use super::sum::{CHUNK, Summation};
use crate::cuda::{
    Arg, Device, DeviceScalar, DeviceVecMut, DeviceVecRef, Header, LaunchConfig, ModuleSource,
    ScratchBuffer, check_len, download_raw,
};
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use std::sync::Mutex;

/// The formats with BLAS kernels: `f64`, `Dd`, `Qd`.
pub trait GpuFormat: DeviceScalar + Scalar<Ctx = ()> {}
impl<T: DeviceScalar + Scalar<Ctx = ()>> GpuFormat for T {}

/// Threads per block and blocks of a launch. The results never depend on it (the tests run
/// several); the default is 256 threads and as many blocks as the work and the GPU hold. Up to
/// 256 threads every kernel runs; above, a kernel whose registers do not fit the block (the
/// quad-double reductions at 1024) returns [`Error::OutOfRange`] naming its limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchShape {
    /// Threads per block, 1 to 1024 (iamax uses at most 256).
    pub threads: u32,
    /// Blocks, or `None` for the default.
    pub blocks: Option<u32>,
}

impl Default for LaunchShape {
    fn default() -> Self {
        LaunchShape {
            threads: 256,
            blocks: None,
        }
    }
}

/// The entry points of `blas_level1_gpu.cu` (`tests/kernel_names.rs` checks each against it).
pub(crate) const KERNELS: &[&str] = &[
    "blas_f64_sum_blocked",
    "blas_f64_asum_blocked",
    "blas_f64_dot_blocked",
    "blas_f64_absdot_blocked",
    "blas_f64_nrm2_blocked",
    "blas_f64_join_blocked",
    "blas_f64_nrm2join_blocked",
    "blas_f64_sum_recursive",
    "blas_f64_dot_recursive",
    "blas_f64_sum_pairwise",
    "blas_f64_dot_pairwise",
    "blas_f64_join_pairwise",
    "blas_f64_finish_pairwise",
    "blas_f64_axpy",
    "blas_f64_scal",
    "blas_f64_rot",
    "blas_f64_iamax",
    "blas_f64_iamax_join",
    "blas_dd_sum_blocked",
    "blas_dd_asum_blocked",
    "blas_dd_dot_blocked",
    "blas_dd_absdot_blocked",
    "blas_dd_nrm2_blocked",
    "blas_dd_join_blocked",
    "blas_dd_nrm2join_blocked",
    "blas_dd_sum_recursive",
    "blas_dd_dot_recursive",
    "blas_dd_sum_pairwise",
    "blas_dd_dot_pairwise",
    "blas_dd_join_pairwise",
    "blas_dd_finish_pairwise",
    "blas_dd_axpy",
    "blas_dd_scal",
    "blas_dd_rot",
    "blas_dd_iamax",
    "blas_dd_iamax_join",
    "blas_qd_sum_blocked",
    "blas_qd_asum_blocked",
    "blas_qd_dot_blocked",
    "blas_qd_absdot_blocked",
    "blas_qd_nrm2_blocked",
    "blas_qd_nrm2tail_blocked",
    "blas_qd_join_blocked",
    "blas_qd_nrm2join_blocked",
    "blas_qd_sum_recursive",
    "blas_qd_dot_recursive",
    "blas_qd_sum_pairwise",
    "blas_qd_dot_pairwise",
    "blas_qd_join_pairwise",
    "blas_qd_finish_pairwise",
    "blas_qd_axpy",
    "blas_qd_scal",
    "blas_qd_rot",
    "blas_qd_iamax",
    "blas_qd_iamax_join",
    "blas_f64_sum2_blocked",
    "blas_f64_dot2_blocked",
    "blas_f64_pairjoin_blocked",
];

/// `blas_reduce.cuh`: the formats, reductions and blocked pass the BLAS kernel modules share.
pub(crate) static BLAS_REDUCE_CUH: Header = Header {
    name: "blas_reduce.cuh",
    text: include_str!("blas_reduce.cuh"),
};

/// The kernel module: source and entry points.
pub(crate) static MODULE: ModuleSource = ModuleSource {
    name: "blas_level1_gpu",
    source: include_str!("blas_level1_gpu.cu"),
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

/// `blas_<format>_<what>` in `module`'s table, as its `'static` name.
pub(super) fn kernel_of<T: DeviceScalar>(
    module: &'static ModuleSource,
    what: &str,
) -> Result<&'static str> {
    let name = format!("blas_{}_{what}", T::NAME);
    module
        .kernels
        .iter()
        .find(|k| **k == name)
        .copied()
        .ok_or(Error::CudaLaunch {
            kernel: module.name,
            cause: format!("no kernel {name}"),
        })
}

/// Ping-pong buffers for the partials, the pairwise leftovers and small results.
#[derive(Default)]
struct Workspace {
    a: ScratchBuffer,
    b: ScratchBuffer,
    small: ScratchBuffer,
}

fn with_workspace<R>(dev: &Device, f: impl FnOnce(&mut Workspace) -> Result<R>) -> Result<R> {
    let ws = dev.workspace("blas_level1", || Ok(Mutex::new(Workspace::default())))?;
    let mut guard = ws.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut guard)
}

pub(super) fn check_shape(shape: LaunchShape) -> Result<()> {
    if !(1..=1024).contains(&shape.threads) || shape.blocks == Some(0) {
        return Err(Error::OutOfRange {
            what: "threads per block (or blocks = 0)",
            got: shape.threads as usize,
            min: 1,
            max: 1024,
        });
    }
    Ok(())
}

/// [`Error::OutOfRange`] if `kernel` of `module` cannot run blocks of `threads` threads (its
/// registers do not fit; every kernel of the BLAS modules runs 256).
pub(super) fn check_block_fits(
    dev: &Device,
    module: &'static ModuleSource,
    kernel: &'static str,
    threads: u32,
) -> Result<()> {
    if threads > 256 {
        let max = dev.max_block(module, kernel)?;
        if threads > max {
            return Err(Error::OutOfRange {
                what: "threads per block (this kernel's registers)",
                got: threads as usize,
                min: 1,
                max: max as usize,
            });
        }
    }
    Ok(())
}

/// The grid for `work` independent items (chunks, elements) of `kernel`.
///
/// # Errors
/// [`Error::OutOfRange`] if the kernel cannot run blocks of `shape.threads` threads (the
/// quad-double kernels need more registers than 1024 threads have).
fn config(
    dev: &Device,
    kernel: &'static str,
    work: usize,
    shape: LaunchShape,
) -> Result<LaunchConfig> {
    config_of(dev, &MODULE, kernel, work, shape)
}

/// [`config`] for a kernel of `module`: `shape.blocks`, or as many blocks as `work` wants and
/// the GPU holds at once.
pub(super) fn config_of(
    dev: &Device,
    module: &'static ModuleSource,
    kernel: &'static str,
    work: usize,
    shape: LaunchShape,
) -> Result<LaunchConfig> {
    check_block_fits(dev, module, kernel, shape.threads)?;
    let blocks = match shape.blocks {
        Some(b) => b,
        None => {
            let resident = dev.resident_blocks(module, kernel, shape.threads)?;
            work.clamp(1, resident.max(1)).min(u32::MAX as usize) as u32
        }
    };
    Ok(LaunchConfig::new((blocks, 1), shape.threads))
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

/// Reads `words` doubles at `addr` (waits for the work before).
fn read_words(dev: &Device, addr: u64, words: usize) -> Result<Vec<f64>> {
    let mut out = vec![0.0; words];
    // SAFETY: the callers pass an address of at least `words` doubles of the workspace.
    unsafe { download_raw(dev, addr, &mut out)? };
    Ok(out)
}

/// The first pass of the blocked order: the kernel and its arguments before and after
/// `out, stride` (the data's vectors and `n` before; the nrm2 thresholds after).
struct FirstPass<'a> {
    kernel: &'static str,
    before: Vec<Arg>,
    after: &'a [Arg],
    /// A first pass that stops each chunk's tree at [`TAIL_NODES`] nodes, and the kernel that
    /// finishes them (`blocked_tail`).
    tail: Option<&'static str>,
}

/// The nodes per chunk of a first pass with a tail (`blocked_pass<K, NODES>`): the kernels'
/// `QD_NRM2_NODES` (`blas_level1_gpu.cu`), which both the quad-double nrm2 pass and its tail use
/// (a unit test reads the macro).
const TAIL_NODES: usize = 32;

/// The blocked order: the first pass over the data, then `join` passes over the partials
/// until one is left; returns its `acc_words` words.
fn blocked(
    dev: &Device,
    first: FirstPass<'_>,
    join: &'static str,
    n: usize,
    acc_words: usize,
    shape: LaunchShape,
) -> Result<Vec<f64>> {
    let m = n.div_ceil(CHUNK);
    // One lock for every pass: the partials must not be overwritten by another thread's
    // reduction on this device between the first pass and the joins.
    with_workspace(dev, |ws| {
        let cur = ws.a.get(dev, 8 * acc_words * m)?;
        let nodes = if first.tail.is_some() { TAIL_NODES } else { 1 };
        // With a tail, the nodes go to `b` and the tail writes the partials to `cur`. After
        // the nodes' words, a word per chunk for its flag (the split tree of
        // `blas_reduce.cuh`: whether the chunk's nodes carry the side accumulators).
        let first_out = if nodes > 1 {
            ws.b.get(dev, 8 * (acc_words * m * nodes + m))?
        } else {
            cur
        };
        let mut args = first.before;
        args.extend([Arg::U64(first_out), Arg::U64((m * nodes) as u64)]);
        args.extend(first.after.iter().cloned());
        // SAFETY: `before` holds the data's vectors and n (checked by the callers), `after`
        // the kernel's remaining scalars; `first_out` holds acc_words·m·nodes doubles, which
        // the kernel writes word-major with stride m·nodes (node t of chunk c at c·nodes + t),
        // and with nodes, m words of flags after them.
        unsafe {
            launch(
                dev,
                first.kernel,
                config(dev, first.kernel, m, shape)?,
                &args,
            )?
        };
        if let Some(tail) = first.tail {
            let a = [
                Arg::U64(first_out),
                Arg::U64((m * nodes) as u64),
                Arg::U64(n as u64),
                Arg::U64(cur),
                Arg::U64(m as u64),
            ];
            // A warp per chunk: blocks of eight whole warps whatever the first pass's shape
            // (the bits do not depend on it).
            let warps = LaunchShape {
                threads: 256,
                blocks: None,
            };
            let cfg = config(dev, tail, m.div_ceil(8), warps)?;
            // SAFETY: `first_out` holds the m·nodes nodes just written and the m chunks'
            // flags after them, `cur` room for m partials (stride m); the buffers are distinct.
            unsafe { launch(dev, tail, cfg, &a)? };
        }
        join_passes(dev, ws, join, (cur, m), acc_words, shape)
    })
}

/// The join passes of the blocked order on the `m` partials at `cur`, in the workspace's
/// buffer `a`.
fn join_passes(
    dev: &Device,
    ws: &mut Workspace,
    join: &'static str,
    (mut cur, mut m): (u64, usize),
    acc_words: usize,
    shape: LaunchShape,
) -> Result<Vec<f64>> {
    let (mut spare, mut held) = (&mut ws.b, &mut ws.a);
    while m > 1 {
        let next = m.div_ceil(CHUNK);
        let out = spare.get(dev, 8 * acc_words * next)?;
        let a = [
            Arg::U64(cur),
            Arg::U64(m as u64),
            Arg::U64(m as u64),
            Arg::U64(out),
            Arg::U64(next as u64),
        ];
        // SAFETY: `cur` holds m partials of acc_words words (stride m), `out` room for
        // `next` (stride next); the two buffers are distinct.
        unsafe { launch(dev, join, config(dev, join, next, shape)?, &a)? };
        std::mem::swap(&mut spare, &mut held);
        cur = out;
        m = next;
    }
    read_words(dev, cur, acc_words)
}

/// The recursive order on one GPU thread.
fn recursive(
    dev: &Device,
    kernel: &'static str,
    mut args: Vec<Arg>,
    words: usize,
) -> Result<Vec<f64>> {
    with_workspace(dev, |ws| {
        let out = ws.small.get(dev, 8 * words)?;
        args.push(Arg::U64(out));
        // SAFETY: the data's vectors and n (checked by the caller), then room for one
        // accumulator.
        unsafe { launch(dev, kernel, LaunchConfig::new((1, 1), 1), &args)? };
        read_words(dev, out, words)
    })
}

/// The pairwise order: the leaf level over the data, join levels until one block is left, the
/// leftover blocks joined by one thread.
fn pairwise<T: GpuFormat>(
    dev: &Device,
    leaf: (&'static str, Vec<Arg>),
    n: usize,
    shape: LaunchShape,
) -> Result<Vec<f64>> {
    let w = T::WORDS;
    with_workspace(dev, |ws| {
        let left = ws.small.get(dev, 8 * w * 64 + 8 * w)?;
        let result = left + 8 * (w * 64) as u64;
        let mut m = n / 2;
        let mut mask = (n & 1) as u64;
        let mut cur = ws.a.get(dev, 8 * w * m.max(1))?;
        let mut args = leaf.1;
        args.extend([Arg::U64(cur), Arg::U64(m as u64), Arg::U64(left)]);
        // SAFETY: the data's vectors and n; `cur` room for n/2 blocks (stride n/2), `left`
        // for 64 leftovers (stride 64).
        unsafe {
            launch(
                dev,
                leaf.0,
                config(dev, leaf.0, m.div_ceil(256), shape)?,
                &args,
            )?
        };
        let join = kernel::<T>("join_pairwise")?;
        let (mut spare, mut held) = (&mut ws.b, &mut ws.a);
        let mut level = 1u32;
        while m > 1 {
            let next = m / 2;
            mask |= ((m & 1) as u64) << level;
            let out = spare.get(dev, 8 * w * next)?;
            let a = [
                Arg::U64(cur),
                Arg::U64(m as u64),
                Arg::U64(m as u64),
                Arg::U64(out),
                Arg::U64(next as u64),
                Arg::U64(left),
                Arg::U32(level),
            ];
            // SAFETY: m blocks at `cur` (stride m), room for m/2 at `out`, leftover slot
            // `level` < 64 (m < 2^64).
            unsafe { launch(dev, join, config(dev, join, next.div_ceil(256), shape)?, &a)? };
            std::mem::swap(&mut spare, &mut held);
            cur = out;
            m = next;
            level += 1;
        }
        let finish = kernel::<T>("finish_pairwise")?;
        let a = [
            Arg::U64(cur),
            Arg::U64(left),
            Arg::U64(mask),
            Arg::U64(result),
        ];
        // SAFETY: one block at `cur`, the leftovers `mask` names at `left`, room for one
        // result.
        unsafe { launch(dev, finish, LaunchConfig::new((1, 1), 1), &a)? };
        read_words(dev, result, w)
    })
}

pub(super) fn from_words<T: DeviceScalar>(w: &[f64]) -> T {
    let mut a = [0.0; 4];
    a[..T::WORDS].copy_from_slice(&w[..T::WORDS]);
    T::from_words(&a)
}

/// A reduction of `x` (and `y`) named `what` (`sum`, `dot`) in `order`.
fn reduce<T: GpuFormat>(
    dev: &Device,
    what: &str,
    data: Vec<Arg>,
    n: usize,
    order: Summation,
    shape: LaunchShape,
) -> Result<T> {
    check_shape(shape)?;
    if n == 0 {
        return Ok(T::zero_in(&()));
    }
    let mut data = data;
    data.push(Arg::U64(n as u64));
    let words = match order {
        Summation::Blocked => {
            let first = FirstPass {
                kernel: kernel::<T>(&format!("{what}_blocked"))?,
                before: data,
                after: &[],
                tail: None,
            };
            blocked(dev, first, kernel::<T>("join_blocked")?, n, T::WORDS, shape)?
        }
        Summation::Recursive => recursive(
            dev,
            kernel::<T>(&format!("{what}_recursive"))?,
            data,
            T::WORDS,
        )?,
        Summation::Pairwise if n == 1 => {
            // One leaf, −0 ⊕ t_0: the recursive kernel makes exactly that.
            recursive(
                dev,
                kernel::<T>(&format!("{what}_recursive"))?,
                data,
                T::WORDS,
            )?
        }
        Summation::Pairwise => pairwise::<T>(
            dev,
            (kernel::<T>(&format!("{what}_pairwise"))?, data),
            n,
            shape,
        )?,
    };
    Ok(from_words(&words))
}

/// `Σ x_i` in `order`: the CPU's [`sum_ordered`](super::sum_ordered), bit for bit.
///
/// # Errors
/// See the [module docs](crate::blas::gpu).
pub fn sum<T: GpuFormat>(dev: &Device, x: DeviceVecRef<'_, T>, order: Summation) -> Result<T> {
    sum_shaped(dev, x, order, LaunchShape::default())
}

/// [`sum`] with a chosen launch shape (same bits).
///
/// # Errors
/// See the [module docs](crate::blas::gpu).
pub fn sum_shaped<T: GpuFormat>(
    dev: &Device,
    x: DeviceVecRef<'_, T>,
    order: Summation,
    shape: LaunchShape,
) -> Result<T> {
    dev.check_on("x", x.ordinal())?;
    reduce::<T>(dev, "sum", vec![x.arg()], x.len(), order, shape)
}

/// `Σ x_i·y_i` in `order`: the CPU's [`dot_ordered`](super::dot_ordered), bit for bit.
///
/// # Errors
/// See the [module docs](crate::blas::gpu).
pub fn dot<T: GpuFormat>(
    dev: &Device,
    x: DeviceVecRef<'_, T>,
    y: DeviceVecRef<'_, T>,
    order: Summation,
) -> Result<T> {
    dot_shaped(dev, x, y, order, LaunchShape::default())
}

/// [`dot`] with a chosen launch shape (same bits).
///
/// # Errors
/// See the [module docs](crate::blas::gpu).
pub fn dot_shaped<T: GpuFormat>(
    dev: &Device,
    x: DeviceVecRef<'_, T>,
    y: DeviceVecRef<'_, T>,
    order: Summation,
    shape: LaunchShape,
) -> Result<T> {
    dev.check_on("x", x.ordinal())?;
    dev.check_on("y", y.ordinal())?;
    check_len("y", x.len(), y.len())?;
    reduce::<T>(dev, "dot", vec![x.arg(), y.arg()], x.len(), order, shape)
}

/// `Σ |x_i|` (blocked): the CPU's [`asum`](super::asum), bit for bit.
///
/// # Errors
/// See the [module docs](crate::blas::gpu).
pub fn asum<T: GpuFormat>(dev: &Device, x: DeviceVecRef<'_, T>, shape: LaunchShape) -> Result<T> {
    dev.check_on("x", x.ordinal())?;
    reduce::<T>(
        dev,
        "asum",
        vec![x.arg()],
        x.len(),
        Summation::Blocked,
        shape,
    )
}

/// `‖x‖₂` without overflow or harmful underflow (Blue's three accumulators, blocked): the
/// CPU's [`nrm2`](super::nrm2), bit for bit (the three accumulators are combined on the host
/// by the CPU's own code).
///
/// # Errors
/// See the [module docs](crate::blas::gpu).
pub fn nrm2<T: GpuFormat>(dev: &Device, x: DeviceVecRef<'_, T>, shape: LaunchShape) -> Result<T> {
    dev.check_on("x", x.ordinal())?;
    check_shape(shape)?;
    let n = x.len();
    if n == 0 {
        return Ok(T::zero_in(&()));
    }
    let b = blue::<T>(&());
    let p2 = |e| crate::eft::ldexp(1.0, e);
    let (tsml, tbig, plain) = match &b {
        Some(b) => (b.tsml, b.tbig, 0),
        None => (0.0, 0.0, 1),
    };
    let tail = [
        Arg::F64(tsml),
        Arg::F64(tbig),
        Arg::F64(p2(537)),
        Arg::F64(p2(-538)),
        Arg::I32(plain),
    ];
    let first = FirstPass {
        kernel: kernel::<T>("nrm2_blocked")?,
        before: vec![x.arg(), Arg::U64(n as u64)],
        after: &tail,
        // The quad-double first pass stops its trees at TAIL_NODES nodes (the kernel says why).
        tail: if T::WORDS == 4 {
            Some(kernel::<T>("nrm2tail_blocked")?)
        } else {
            None
        },
    };
    let join = kernel::<T>("nrm2join_blocked")?;
    let words = blocked(dev, first, join, n, 3 * T::WORDS, shape)?;
    let w = T::WORDS;
    let acc = Nrm2Acc {
        sml: from_words::<T>(&words[..w]),
        med: from_words::<T>(&words[w..2 * w]),
        big: from_words::<T>(&words[2 * w..]),
    };
    Ok(blue_finish(&acc, b.as_ref(), &()).abs_ref())
}

/// The index (0-based) of the first NaN, else of the first element of largest magnitude, as
/// the CPU's [`iamax`](super::iamax); `None` for `n = 0`.
///
/// # Errors
/// See the [module docs](crate::blas::gpu).
pub fn iamax<T: GpuFormat>(
    dev: &Device,
    x: DeviceVecRef<'_, T>,
    shape: LaunchShape,
) -> Result<Option<usize>> {
    dev.check_on("x", x.ordinal())?;
    check_shape(shape)?;
    let n = x.len();
    if n == 0 {
        return Ok(None);
    }
    let threads = shape.threads.min(256);
    let first = kernel::<T>("iamax")?;
    let join = kernel::<T>("iamax_join")?;
    let cfg = config(
        dev,
        first,
        n.div_ceil(threads as usize),
        LaunchShape { threads, ..shape },
    )?;
    let blocks = cfg.grid.0 as usize;
    with_workspace(dev, |ws| {
        let idx = ws.a.get(dev, 8 * blocks)?;
        let nan = ws.b.get(dev, 8 * blocks)?;
        let vals = ws.small.get(dev, 8 * T::WORDS * blocks + 8)?;
        let out = vals + 8 * (T::WORDS * blocks) as u64;
        let a = [
            x.arg(),
            Arg::U64(n as u64),
            Arg::U64(idx),
            Arg::U64(nan),
            Arg::U64(vals),
        ];
        // SAFETY: x holds n elements; each block writes its slot of `idx`, `nan` (u64) and
        // `vals` (WORDS doubles, stride = blocks); at most 256 threads (the shared array).
        unsafe { launch(dev, first, cfg, &a)? };
        let b = [
            Arg::U64(idx),
            Arg::U64(nan),
            Arg::U64(vals),
            Arg::U64(blocks as u64),
            Arg::U64(out),
        ];
        // SAFETY: the `blocks` candidates written above; one u64 of room at `out`.
        unsafe { launch(dev, join, LaunchConfig::new((1, 1), 1), &b)? };
        let mut r = [0u64; 1];
        // SAFETY: one u64 at `out`.
        unsafe { download_raw(dev, out, &mut r)? };
        Ok(usize::try_from(r[0]).ok())
    })
}

/// The words of a scalar as the kernels' `ScalArg`.
pub(super) fn scalar_arg<T: DeviceScalar>(s: T) -> Arg {
    Arg::Struct(Box::new(s.to_words().map(f64::to_bits)))
}

fn elementwise_config(
    dev: &Device,
    kernel: &'static str,
    n: usize,
    shape: LaunchShape,
) -> Result<LaunchConfig> {
    config(dev, kernel, n.div_ceil(shape.threads as usize), shape)
}

/// `y ← α·x + y`: the CPU's [`axpy`](super::axpy), bit for bit (`α = 0` leaves `y` alone).
///
/// # Errors
/// See the [module docs](crate::blas::gpu).
pub fn axpy<T: GpuFormat>(
    dev: &Device,
    alpha: T,
    x: DeviceVecRef<'_, T>,
    mut y: DeviceVecMut<'_, T>,
) -> Result<()> {
    dev.check_on("x", x.ordinal())?;
    dev.check_on("y", y.ordinal())?;
    check_len("y", x.len(), y.len())?;
    let n = x.len();
    if n == 0 || alpha.class() == std::num::FpCategory::Zero {
        return Ok(());
    }
    let k = kernel::<T>("axpy")?;
    let a = [scalar_arg(alpha), x.arg(), y.arg(), Arg::U64(n as u64)];
    // SAFETY: x and y hold n elements each; y is a distinct mutable view (borrowed mutably).
    unsafe {
        launch(
            dev,
            k,
            elementwise_config(dev, k, n, LaunchShape::default())?,
            &a,
        )
    }
}

/// `x ← α·x`: the CPU's [`scal`](super::scal), bit for bit.
///
/// # Errors
/// See the [module docs](crate::blas::gpu).
pub fn scal<T: GpuFormat>(dev: &Device, alpha: T, mut x: DeviceVecMut<'_, T>) -> Result<()> {
    dev.check_on("x", x.ordinal())?;
    let n = x.len();
    if n == 0 {
        return Ok(());
    }
    let k = kernel::<T>("scal")?;
    let a = [scalar_arg(alpha), x.arg(), Arg::U64(n as u64)];
    // SAFETY: x holds n elements.
    unsafe {
        launch(
            dev,
            k,
            elementwise_config(dev, k, n, LaunchShape::default())?,
            &a,
        )
    }
}

/// The plane rotation: the CPU's [`rot`](super::rot), bit for bit.
///
/// # Errors
/// See the [module docs](crate::blas::gpu).
pub fn rot<T: GpuFormat>(
    dev: &Device,
    mut x: DeviceVecMut<'_, T>,
    mut y: DeviceVecMut<'_, T>,
    c: T,
    s: T,
) -> Result<()> {
    dev.check_on("x", x.ordinal())?;
    dev.check_on("y", y.ordinal())?;
    check_len("y", x.len(), y.len())?;
    let n = x.len();
    if n == 0 {
        return Ok(());
    }
    let k = kernel::<T>("rot")?;
    let a = [
        x.arg(),
        y.arg(),
        Arg::U64(n as u64),
        scalar_arg(c),
        scalar_arg(s),
    ];
    // SAFETY: x and y hold n elements each and are distinct vectors (two &mut borrows).
    unsafe {
        launch(
            dev,
            k,
            elementwise_config(dev, k, n, LaunchShape::default())?,
            &a,
        )
    }
}

/// `Σ x_i` of `f64`s as if in twice the working precision: the CPU's
/// [`sum2`](super::sum2), bit for bit.
///
/// # Errors
/// See the [module docs](crate::blas::gpu).
pub fn sum2(dev: &Device, x: DeviceVecRef<'_, f64>, shape: LaunchShape) -> Result<f64> {
    dev.check_on("x", x.ordinal())?;
    let before = vec![x.arg(), Arg::U64(x.len() as u64)];
    pair_reduce(dev, "blas_f64_sum2_blocked", before, x.len(), shape)
}

/// `Σ x_i·y_i` of `f64`s as if in twice the working precision: the CPU's
/// [`dot2`](super::dot2), bit for bit.
///
/// # Errors
/// See the [module docs](crate::blas::gpu).
pub fn dot2(
    dev: &Device,
    x: DeviceVecRef<'_, f64>,
    y: DeviceVecRef<'_, f64>,
    shape: LaunchShape,
) -> Result<f64> {
    dev.check_on("x", x.ordinal())?;
    dev.check_on("y", y.ordinal())?;
    check_len("y", x.len(), y.len())?;
    let before = vec![x.arg(), y.arg(), Arg::U64(x.len() as u64)];
    pair_reduce(dev, "blas_f64_dot2_blocked", before, x.len(), shape)
}

fn pair_reduce(
    dev: &Device,
    kernel: &'static str,
    before: Vec<Arg>,
    n: usize,
    shape: LaunchShape,
) -> Result<f64> {
    check_shape(shape)?;
    if n == 0 {
        return Ok(0.0);
    }
    let first = FirstPass {
        kernel,
        before,
        after: &[],
        tail: None,
    };
    let w = blocked(dev, first, "blas_f64_pairjoin_blocked", n, 2, shape)?;
    Ok(Pair {
        p: w[0],
        sigma: w[1],
    }
    .finish())
}

// ---- with error bounds ---------------------------------------------------------------------------

/// [`sum`] with the CPU's bound ([`sum_bounded`](super::sum_bounded)): the same value and the
/// same bound, from `Σ|x_i|` summed on the device in the blocked order.
///
/// # Errors
/// See the [module docs](crate::blas::gpu).
pub fn sum_bounded<T: GpuFormat>(
    dev: &Device,
    x: DeviceVecRef<'_, T>,
    order: Summation,
) -> Result<Bounded<T>> {
    let value = sum(dev, x, order)?;
    let abs = asum(dev, x, LaunchShape::default())?;
    let error_bound = bound_from_abs_sum(&abs, &(), order, x.len(), false);
    Ok(Bounded { value, error_bound })
}

/// [`dot`] with the CPU's bound ([`dot_bounded`](super::dot_bounded)).
///
/// # Errors
/// See the [module docs](crate::blas::gpu).
pub fn dot_bounded<T: GpuFormat>(
    dev: &Device,
    x: DeviceVecRef<'_, T>,
    y: DeviceVecRef<'_, T>,
    order: Summation,
) -> Result<Bounded<T>> {
    let value = dot(dev, x, y, order)?;
    let abs = reduce::<T>(
        dev,
        "absdot",
        vec![x.arg(), y.arg()],
        x.len(),
        Summation::Blocked,
        LaunchShape::default(),
    )?;
    let error_bound = bound_from_abs_sum(&abs, &(), order, x.len(), true);
    Ok(Bounded { value, error_bound })
}

/// [`asum`] with the CPU's bound ([`asum_bounded`](super::level1::asum_bounded)).
///
/// # Errors
/// See the [module docs](crate::blas::gpu).
pub fn asum_bounded<T: GpuFormat>(dev: &Device, x: DeviceVecRef<'_, T>) -> Result<Bounded<T>> {
    let value = asum(dev, x, LaunchShape::default())?;
    let error_bound = bound_from_abs_sum(&value, &(), Summation::Blocked, x.len(), false);
    Ok(Bounded { value, error_bound })
}

/// [`nrm2`] with the CPU's bound ([`nrm2_bounded`](super::nrm2_bounded)).
///
/// # Errors
/// See the [module docs](crate::blas::gpu).
pub fn nrm2_bounded<T: GpuFormat>(dev: &Device, x: DeviceVecRef<'_, T>) -> Result<Bounded<T>> {
    let value = nrm2(dev, x, LaunchShape::default())?;
    let error_bound = nrm2_bound(&value, &(), x.len());
    Ok(Bounded { value, error_bound })
}

#[cfg(test)]
mod tests {
    /// The launcher sizes the nodes' buffer by `TAIL_NODES`; the quad-double nrm2 pass and its
    /// tail stop and start their trees at the kernels' `QD_NRM2_NODES`. They must agree.
    #[test]
    fn tail_nodes_equal_the_kernels_macro() {
        let macro_value = super::MODULE
            .source
            .lines()
            .find_map(|l| l.strip_prefix("#define QD_NRM2_NODES "))
            .map(|v| v.trim().parse::<usize>());
        assert_eq!(macro_value, Some(Ok(super::TAIL_NODES)));
    }
}
