//! Ozaki-scheme GEMM on the GPU: the kernel module `ozaki_gpu.cu` and the launch code both
//! schemes share (operand vectors, workspace, quick returns, per-stage profile); the schemes
//! are `ozaki2_gpu.rs` ([`ozaki2_gemm`](super::gpu::ozaki2_gemm): INT8 tensor cores, CRT) and
//! `ozaki1_gpu.rs` ([`ozaki1_gemm`](super::gpu::ozaki1_gemm): `f32`/`f64` slices).
//!
//! Same views, checks, errors and results as the CPU functions of [`crate::ozaki`]: **scheme
//! II returns the CPU's bits** (every stage is a device twin of a CPU stage;
//! `tests/gpu_ozaki.rs` checks it, NaN payloads aside), and scheme I splits exactly as the CPU
//! does (its slice products come from cuBLAS, so inexact products may round differently).
//!
//! # Stages of scheme II and their memory traffic
//!
//! For `op(A)` `m × k`, `op(B)` `k × n`, `N` moduli (`kp` = `k` rounded up to 16):
//!
//! | stage | kernel | bytes |
//! |---|---|---|
//! | fast mode: maxima (NaN/Inf detection included) and 16-bit 2-norm bounds, one pass | `ozaki_vecstats_*` | `8(m+n)k` read |
//! | accurate mode: maxima | `ozaki_vecmax_*` | `8(m+n)k` read |
//! | exponents | `ozaki_exps_make` | `O(m+n)` |
//! | scale, round, residues mod every `m_l` (one pass) | `ozaki_residues_make` | `8(m+n)k` read, `N(m+n)kp` written |
//! | `N` INT8 GEMMs, TN | cuBLAS | `4Nmn` written |
//! | mod `m_l`, CRT, inverse scaling, `α`/`β` (one pass) | `ozaki_crt_update` | `4Nmn` read, `8mn` (+`8mn` for `β ≠ 0`) |
//!
//! Accurate mode adds the 6-bit bounds (`8(m+n)k` read, `(m+n)kp` written), one more INT8
//! GEMM and two passes over its `4mn` result.
//!
//! # Workspace
//!
//! The residues (`N(m+n)kp` bytes) and the INT32 products (`4N·m·nb` bytes) live in a
//! workspace kept on the [`Device`] between calls (grown when needed; freed by
//! [`Device::release_workspaces`]). When the products for all `n` columns do not fit in free
//! device memory, the product is computed in blocks of `nb` columns; if even 16 columns do not
//! fit, the call fails with [`Error::CudaOutOfMemory`] before anything is enqueued. `nb` is at
//! most 4096 by default (wider INT8 GEMMs ran at half speed on the H100, see
//! `DEFAULT_MAX_COLS`); `MPBLAS_OZAKI_MAX_COLS` sets another cap (the tests use it to exercise
//! the blocked path on small sizes).
//!
//! Everything is enqueued on the device's stream, with no host synchronisation.

use crate::cuda::{
    Arg, Blas, Device, DeviceMatMut, DeviceMatRef, DeviceScalar, DeviceVec, LaunchConfig,
    ModuleSource, ScratchBuffer, args, blocks, col_major_ld, memset,
};
use crate::dd::dd_gpu::DD_CUH;
use crate::error::Result;
use crate::view::{Trans, check_product_shapes};
use std::sync::Mutex;

/// The entry points of `ozaki_gpu.cu` (`tests/kernel_names.rs` checks them against the
/// source).
pub(crate) const KERNELS: &[&str] = &[
    "ozaki_vecmax_tcontig",
    "ozaki_vecmax_vcontig",
    "ozaki_vecstats_tcontig",
    "ozaki_vecstats_tiled",
    "ozaki_vecstats_combine",
    "ozaki_exps_make",
    "ozaki_guard_factors",
    "ozaki_zrow_max",
    "ozaki_acc_rows",
    "ozaki_zcol_max",
    "ozaki_acc_cols",
    "ozaki_residues_make",
    "ozaki_residues_make_wide",
    "ozaki_crt_update",
    "ozaki_crt_update_dd",
    "ozaki_guard_settle",
    "ozaki_scale_c_dd",
    "ozaki_exact_vecs",
    "ozaki_crt_update_qd",
    "ozaki_scale_c_qd",
    "ozaki_bad_merge",
    "ozaki_fold_mod",
    "ozaki_scale_c",
    "ozaki_pack_vecs",
    "ozaki_split_step",
    "ozaki_split_round",
    "ozaki_term_acc",
    "ozaki_term_finish",
];

/// The kernel module: source and entry points.
pub(crate) static MODULE: ModuleSource = ModuleSource {
    name: "ozaki_gpu",
    source: include_str!("ozaki_gpu.cu"),
    headers: &[
        &crate::eft::EFT_CUH,
        &DD_CUH,
        &crate::qd::qd_gpu::QD_CUH,
        &crate::blas::blas_level3_gpu::BLAS_COMPENSATED_CUH,
    ],
    kernels: KERNELS,
};

/// Device memory left free when sizing the workspace.
pub(super) const MEMORY_MARGIN: usize = 512 << 20;

/// Launches `kernel` of [`MODULE`] with `args`.
///
/// # Safety
/// As [`Device::launch`]: `args` must match the kernel's parameter list in
/// `ozaki_gpu.cu`, every pointer must address device memory of this device large enough for
/// the accesses the kernel's comment describes for the given sizes, outputs not overlapping
/// inputs (the kernels' `__restrict__`); `cfg` must be the launch shape the kernel's comment
/// asks for.
pub(super) unsafe fn launch(
    dev: &Device,
    kernel: &'static str,
    cfg: LaunchConfig,
    args: &[Arg],
) -> Result<()> {
    // SAFETY: the caller's contract.
    unsafe { dev.launch(&MODULE, kernel, cfg, args) }
}

pub(super) fn cfg(grid: (u32, u32), block: u32) -> LaunchConfig {
    LaunchConfig::new(grid, block)
}

pub(super) fn memset0(dev: &Device, ptr: u64, bytes: usize) -> Result<()> {
    // SAFETY: `ptr` addresses at least `bytes` bytes of a workspace buffer of this device
    // (sized by `ScratchBuffer::get` for this call), written only by work on this stream.
    unsafe { memset(dev, ptr, 0, bytes) }
}

/// The update kernels' two counters of recomputed entries (`[0]` by the guard, `[1]` in
/// non-finite rows and columns) followed by `m + n` u32 flags of the rows and columns with a
/// recomputed entry (`oz_count`), zeroed: their device address.
pub(super) fn zeroed_counts(
    dev: &Device,
    ws: &mut Workspace,
    (m, n): (usize, usize),
) -> Result<u64> {
    let bytes = 16 + 4 * (m + n);
    let counts = ws.counts.get(dev, bytes)?;
    memset0(dev, counts, bytes)?;
    Ok(counts)
}

/// What the kernels counted in [`zeroed_counts`]'s buffer for an `m × n` result (waits for the
/// work enqueued before): entries recomputed by the guard, entries of bad rows or columns, and
/// the rows and the columns flagged (`oz_count`).
pub(super) fn read_counts(dev: &Device, counts: u64, (m, n): (usize, usize)) -> Result<[usize; 4]> {
    let mut got = [0u64; 2];
    let mut flags = vec![0u32; m + n];
    // SAFETY: `counts` holds two u64 and then m + n u32 of the workspace (zeroed_counts for
    // (m, n)), written by the kernels enqueued before on this stream.
    unsafe {
        crate::cuda::download_raw(dev, counts, &mut got)?;
        crate::cuda::download_raw(dev, counts + 16, &mut flags)?;
    }
    let set = |f: &[u32]| f.iter().filter(|&&v| v != 0).count();
    Ok([
        got[0] as usize,
        got[1] as usize,
        set(&flags[..m]),
        set(&flags[m..]),
    ])
}

/// The buffers the Ozaki GEMMs keep on a device between calls.
#[derive(Default)]
pub(super) struct Workspace {
    pub(super) mua: ScratchBuffer,
    pub(super) mub: ScratchBuffer,
    pub(super) ea: ScratchBuffer,
    pub(super) eb: ScratchBuffer,
    pub(super) res_a: ScratchBuffer,
    pub(super) res_b: ScratchBuffer,
    pub(super) prod: ScratchBuffer,
    pub(super) part: ScratchBuffer,
    pub(super) z: ScratchBuffer,
    pub(super) zrow: ScratchBuffer,
    pub(super) xa: ScratchBuffer,
    pub(super) yb: ScratchBuffer,
    pub(super) wbits: ScratchBuffer,
    pub(super) xmax: ScratchBuffer,
    pub(super) sqa: ScratchBuffer,
    pub(super) sqb: ScratchBuffer,
    pub(super) s1a: ScratchBuffer,
    pub(super) s1b: ScratchBuffer,
    pub(super) gfa: ScratchBuffer,
    pub(super) gfb: ScratchBuffer,
    pub(super) counts: ScratchBuffer,
    pub(super) chunks: ScratchBuffer,
    pub(super) lo_bits: ScratchBuffer,
    pub(super) floor_a: ScratchBuffer,
    pub(super) floor_b: ScratchBuffer,
    pub(super) zlow: ScratchBuffer,
    pub(super) pending: ScratchBuffer,
    pub(super) exact_a: ScratchBuffer,
    pub(super) exact_b: ScratchBuffer,
    // scheme I
    pub(super) pack_a: ScratchBuffer,
    pub(super) pack_b: ScratchBuffer,
    pub(super) mu_tmp: ScratchBuffer,
    pub(super) slices_a: Vec<ScratchBuffer>,
    pub(super) slices_b: Vec<ScratchBuffer>,
    pub(super) rems_b: Vec<ScratchBuffer>,
    pub(super) exps_a: Vec<ScratchBuffer>,
    pub(super) exps_b: Vec<ScratchBuffer>,
    pub(super) exps_rb: Vec<ScratchBuffer>,
    pub(super) acc_hi: ScratchBuffer,
    pub(super) acc_lo: ScratchBuffer,
    pub(super) term: ScratchBuffer,
}

impl Workspace {
    pub(super) fn held(&self) -> usize {
        let one = [
            &self.mua,
            &self.mub,
            &self.ea,
            &self.eb,
            &self.res_a,
            &self.res_b,
            &self.prod,
            &self.part,
            &self.z,
            &self.zrow,
            &self.xa,
            &self.yb,
            &self.wbits,
            &self.xmax,
            &self.sqa,
            &self.sqb,
            &self.s1a,
            &self.s1b,
            &self.gfa,
            &self.gfb,
            &self.counts,
            &self.chunks,
            &self.lo_bits,
            &self.floor_a,
            &self.floor_b,
            &self.zlow,
            &self.pending,
            &self.exact_a,
            &self.exact_b,
            &self.pack_a,
            &self.pack_b,
            &self.mu_tmp,
            &self.acc_hi,
            &self.acc_lo,
            &self.term,
        ];
        let many = [
            &self.slices_a,
            &self.slices_b,
            &self.rems_b,
            &self.exps_a,
            &self.exps_b,
            &self.exps_rb,
        ];
        one.iter().map(|b| b.capacity()).sum::<usize>()
            + many
                .iter()
                .flat_map(|v| v.iter())
                .map(|b| b.capacity())
                .sum::<usize>()
    }
}

pub(super) fn with_workspace<R>(
    dev: &Device,
    f: impl FnOnce(&mut Workspace) -> Result<R>,
) -> Result<R> {
    let ws = dev.workspace("ozaki", || Ok(Mutex::new(Workspace::default())))?;
    let mut guard = ws.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut guard)
}

/// One matrix operand seen as `count` vectors of length `len`: element `t` of vector `v` at
/// `ptr[v·sv + t·st]`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Vecs {
    pub(super) ptr: u64,
    pub(super) sv: u64,
    pub(super) st: u64,
    pub(super) count: usize,
}

/// The rows of a view (`rows` vectors of length `cols`; the leading words of a multi-word
/// format).
pub(super) fn rows_of<T: DeviceScalar>(a: &DeviceMatRef<'_, T>) -> Vecs {
    let l = a.layout();
    Vecs {
        ptr: a.word_addr(0),
        sv: l.row_stride as u64,
        st: l.col_stride as u64,
        count: l.rows,
    }
}

/// The columns of a view (`cols` vectors of length `rows`).
pub(super) fn cols_of<T: DeviceScalar>(b: &DeviceMatRef<'_, T>) -> Vecs {
    rows_of(&b.t())
}

/// `out[v]` = bits of the largest `|x_vt|` (at least those of +Inf for a vector with NaN/Inf):
/// `ozaki_vecmax_tcontig` (one warp per vector) when the vectors are contiguous, else
/// `ozaki_vecmax_vcontig` (one thread per vector), both with `blockIdx.y` over ranges of `t`.
pub(super) fn vecmax(dev: &Device, x: Vecs, len: usize, out: u64) -> Result<()> {
    memset0(dev, out, 8 * x.count)?;
    let (kernel, grid, stride) = if x.st == 1 {
        ("ozaki_vecmax_tcontig", (8, 1024), x.sv)
    } else {
        ("ozaki_vecmax_vcontig", (256, 64), x.st)
    };
    let grid = (
        blocks(x.count, grid.0, u32::MAX as usize),
        blocks(len, grid.1, 65_535),
    );
    // SAFETY: ozaki_vecmax_{t,v}contig(const double* x, u64 stride, u64 count, u64 len,
    // u64* out), with the launch shapes they ask for (block 256; grid (ceil(count/8), chunks)
    // for tcontig, (ceil(count/256), chunks) for vcontig); x addresses x[v·sv + t·st] for
    // v < count, t < len (the operand checks of check_gemm_args), out holds count u64.
    unsafe {
        launch(
            dev,
            kernel,
            cfg(grid, 256),
            args![x.ptr, stride, x.count, len, out],
        )
    }
}

/// Per-stage GPU times, when `MPBLAS_OZAKI_PROFILE` is set (then each call synchronises once
/// at its end and prints the times to stderr; otherwise nothing is recorded).
pub(super) struct Prof {
    events: Vec<(&'static str, crate::cuda::Event)>,
    on: bool,
}

impl Prof {
    pub(super) fn new(dev: &Device) -> Prof {
        let on = std::env::var_os("MPBLAS_OZAKI_PROFILE").is_some_and(|v| v != "0");
        let mut p = Prof {
            events: Vec::new(),
            on,
        };
        p.mark(dev, "start");
        p
    }
    pub(super) fn mark(&mut self, dev: &Device, what: &'static str) {
        if !self.on {
            return;
        }
        if let Ok(e) = dev.event() {
            self.events.push((what, e));
        }
    }
    pub(super) fn report(&self, what: &str) {
        if !self.on || self.events.len() < 2 {
            return;
        }
        let mut line = format!("[ozaki profile] {what}:");
        for w in self.events.windows(2) {
            if let Ok(ms) = w[0].1.elapsed_ms(&w[1].1) {
                line += &format!(" {} {:.3} ms,", w[1].0, ms);
            }
        }
        if let (Some(a), Some(b)) = (self.events.first(), self.events.last())
            && let Ok(ms) = a.1.elapsed_ms(&b.1)
        {
            line += &format!(" total {ms:.3} ms");
        }
        eprintln!("{line}");
    }
}

/// The BLAS quick returns on the device for `C` in `f64` (`c.1 = 0`) or double-double (`c`
/// = the addresses of the two words); `true` if the call is finished.
#[allow(clippy::too_many_arguments)]
pub(super) fn quick_return(
    dev: &Device,
    (m, n, k): (usize, usize, usize),
    alpha: f64,
    beta: f64,
    (c, words): ([u64; 4], usize),
    ldc: usize,
) -> Result<bool> {
    if m == 0 || n == 0 {
        return Ok(true);
    }
    if alpha == 0.0 || k == 0 {
        if beta != 1.0 {
            let g = dev.grid_2d(m, n);
            match words {
                // SAFETY: ozaki_scale_c(double* c, u64 m, u64 n, u64 ldc, double beta), 2-D
                // launch: c holds ldc·(n−1)+m doubles (check_product_shapes, col_major_ld).
                1 => unsafe { launch(dev, "ozaki_scale_c", g, args![c[0], m, n, ldc, beta])? },
                // SAFETY: ozaki_scale_c_dd(double* c_hi, double* c_lo, u64 m, u64 n, u64 ldc,
                // double beta), 2-D launch: both words hold ldc·(n−1)+m doubles.
                2 => unsafe {
                    launch(
                        dev,
                        "ozaki_scale_c_dd",
                        g,
                        args![c[0], c[1], m, n, ldc, beta],
                    )?
                },
                // SAFETY: ozaki_scale_c_qd(double* c0, double* c1, double* c2, double* c3,
                // u64 m, u64 n, u64 ldc, double beta), 2-D launch: each word holds
                // ldc·(n−1)+m doubles.
                _ => unsafe {
                    launch(
                        dev,
                        "ozaki_scale_c_qd",
                        g,
                        args![c[0], c[1], c[2], c[3], m, n, ldc, beta],
                    )?
                },
            }
        }
        return Ok(true);
    }
    Ok(false)
}

/// An update call `C ← α·A·B + β·C` that passed its checks and has work to do: the cuBLAS
/// handle, the rows of `A` and columns of `B`, `(m, n, k)`, and the addresses of C's words
/// (`pc[w]` for `w` below its format's word count, else 0) and its leading dimension.
pub(super) struct Update {
    pub(super) blas: std::sync::Arc<Blas>,
    pub(super) va: Vecs,
    pub(super) vb: Vecs,
    pub(super) dims: (usize, usize, usize),
    pub(super) pc: [u64; 4],
    pub(super) ldc: usize,
}

/// The prologue the Ozaki GEMMs share after checking their own parameters: device and shape
/// checks, C column-major (`f64` or double-double), the quick returns (`None`: C is already
/// final), the cuBLAS handle and the operand vectors.
pub(super) fn prepare_update<SA: DeviceScalar, SB: DeviceScalar, T: DeviceScalar>(
    dev: &Device,
    alpha: f64,
    a: DeviceMatRef<'_, SA>,
    b: DeviceMatRef<'_, SB>,
    beta: f64,
    c: &DeviceMatMut<'_, T>,
) -> Result<Option<Update>> {
    debug_assert!(matches!(T::WORDS, 1 | 2 | 4));
    dev.check_on("a", a.ordinal())?;
    dev.check_on("b", b.ordinal())?;
    dev.check_on("c", c.ordinal())?;
    let dims = check_product_shapes(&a.layout(), &b.layout(), &c.layout())?;
    let ldc = col_major_ld("c", &c.layout())?;
    let pc = c.word_addrs();
    if quick_return(dev, dims, alpha, beta, (pc, T::WORDS), ldc)? {
        return Ok(None);
    }
    Ok(Some(Update {
        blas: dev.blas()?,
        va: rows_of(&a),
        vb: cols_of(&b),
        dims,
        pc,
        ldc,
    }))
}

/// The device views of a BLAS-style GEMM call, checked under the BLAS names.
#[allow(clippy::type_complexity)]
pub(super) fn blas_views<'a>(
    transa: Trans,
    transb: Trans,
    (m, n, k): (usize, usize, usize),
    (a, lda): (&'a DeviceVec<f64>, usize),
    (b, ldb): (&'a DeviceVec<f64>, usize),
    (c, ldc): (&'a mut DeviceVec<f64>, usize),
) -> Result<(
    DeviceMatRef<'a, f64>,
    DeviceMatRef<'a, f64>,
    DeviceMatMut<'a, f64>,
)> {
    let a = DeviceMatRef::from_blas(("a", "lda"), transa, m, k, a, lda)?;
    let b = DeviceMatRef::from_blas(("b", "ldb"), transb, k, n, b, ldb)?;
    let c = DeviceMatMut::from_blas(("c", "ldc"), m, n, c, ldc)?;
    Ok((a, b, c))
}
