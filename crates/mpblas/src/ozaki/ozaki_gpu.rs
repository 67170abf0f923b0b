//! Ozaki-scheme GEMM on the GPU (`kernels/ozaki.cu` plus cuBLAS): [`ozaki2_gemm`] (INT8
//! tensor cores, CRT), [`ozaki1_gemm`] (`f32`/`f64` slices), and [`dgemm`] for comparison.
//!
//! Same arguments, checks, errors and results as the CPU functions of [`crate::ozaki`]:
//! **[`ozaki2_gemm`] returns the CPU's bits** (every stage is a device twin of a CPU stage;
//! `tests/gpu_ozaki.rs` checks it, NaN payloads aside), and [`ozaki1_gemm`] splits exactly as
//! the CPU does (its slice products come from cuBLAS, so inexact products may round
//! differently).
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

use crate::Dd;
use crate::cuda::{
    Arg, Blas, Device, DeviceMatMut, DeviceMatRef, DeviceVec, GemmType, LaunchConfig, ModuleSource,
    ScratchBuffer, args, blocks, check_len, col_major_ld, download_raw, memset,
};
use crate::dd::dd_gpu::{DD_CUH, DeviceDdVec};
use crate::error::{Error, Result};
use crate::ozaki::ozaki2::{Crt, fast_q, fast_x, norm_chunks};
use crate::ozaki::split::{self, Scaled, Split};
use crate::ozaki::{
    self as cpu, Accumulate, OZAKI2_MODULI, Ozaki1Params, Ozaki2Mode, Ozaki2Params, Products,
    SliceGemm,
};
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
    "ozaki_zrow_max",
    "ozaki_acc_rows",
    "ozaki_zcol_max",
    "ozaki_acc_cols",
    "ozaki_residues_make",
    "ozaki_crt_update",
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
    headers: &[&crate::eft::EFT_CUH, &DD_CUH],
    kernels: KERNELS,
};

/// The moduli the kernels hard-code (`OZ_MODULI_LIST` in `ozaki_gpu.cu`), which must be
/// [`crate::ozaki::ozaki2::moduli`]`(20)`; `tests/kernel_names.rs` checks both.
pub(crate) const KERNEL_MODULI: [u32; 20] = [
    256, 255, 253, 251, 247, 241, 239, 233, 229, 227, 223, 217, 211, 199, 197, 193, 191, 181, 179,
    173,
];

/// Largest number of 40-bit CRT words the reconstruction kernel takes.
const MAX_WORDS: usize = 4;
/// Inner-dimension chunk of one INT32-exact INT8 GEMM: a multiple of 16 not above
/// [`crate::ozaki::gemm_cpu::I8_MAX_K`].
const K_CHUNK: usize = 131_056;
/// Largest `k` of the accurate mode's bound GEMM (`64²·k < 2^31`).
const ACCURATE_MAX_K: usize = 524_287;
/// Default largest column block of the INT8 products. Measured on the H100 (cuBLAS 13.1,
/// n = 16384, 16 moduli): one 16384-column INT8 GEMM per modulus ran at about 780 TOPS,
/// blocks of 4096 or 8192 columns at about 1400 (whole call 206 → 123 ms); n = 8192 is not
/// slower with 4096-column blocks.
const DEFAULT_MAX_COLS: usize = 4096;
/// Device memory left free when sizing the workspace.
const MEMORY_MARGIN: usize = 512 << 20;

/// The CRT constants, passed by value to `ozaki_crt_update` (`struct OzCrt`).
#[derive(Clone, Copy)]
struct CrtArg {
    w: [[f64; 20]; MAX_WORDS],
    p: [f64; MAX_WORDS],
    p_inv: f64,
    words: i32,
    nmod: i32,
}

impl CrtArg {
    /// The bytes of `struct OzCrt` in kernels/ozaki_gpu.cu (`double w[4][20], p[4], p_inv;
    /// int words, nmod;`: 85 doubles, then the two ints in one little-endian word), as the
    /// kernel argument.
    fn arg(&self) -> Arg {
        let mut words: Vec<u64> = self.w.iter().flatten().map(|x| x.to_bits()).collect();
        words.extend(self.p.iter().map(|x| x.to_bits()));
        words.push(self.p_inv.to_bits());
        words.push(u64::from(self.words as u32) | (u64::from(self.nmod as u32) << 32));
        Arg::Struct(words.into_boxed_slice())
    }
}

/// Launches `kernel` of [`MODULE`] with `args`.
///
/// # Safety
/// As [`Device::launch`]: `args` must match the kernel's parameter list in
/// `ozaki_gpu.cu`, every pointer must address device memory of this device large enough for
/// the accesses the kernel's comment describes for the given sizes, outputs not overlapping
/// inputs (the kernels' `__restrict__`); `cfg` must be the launch shape the kernel's comment
/// asks for.
unsafe fn launch(
    dev: &Device,
    kernel: &'static str,
    cfg: LaunchConfig,
    args: &[Arg],
) -> Result<()> {
    // SAFETY: the caller's contract.
    unsafe { dev.launch(&MODULE, kernel, cfg, args) }
}

fn cfg(grid: (u32, u32), block: u32) -> LaunchConfig {
    LaunchConfig::new(grid, block)
}

fn memset0(dev: &Device, ptr: u64, bytes: usize) -> Result<()> {
    // SAFETY: `ptr` addresses at least `bytes` bytes of a workspace buffer of this device
    // (sized by `ScratchBuffer::get` for this call), written only by work on this stream.
    unsafe { memset(dev, ptr, 0, bytes) }
}

/// `C = op(A)·op(B)` exactly in INT32 from INT8 operands in the TN layout: `A` is `k × m`
/// column-major (`lda`), `B` is `k × n` (`ldb`), `C` is `m × n` (`ldc`). Exact while
/// `k·128² < 2^31`.
///
/// # Safety
/// `a` must address `lda·(m−1) + k` bytes, `b` `ldb·(n−1) + k` bytes, `c` `ldc·(n−1) + m`
/// `i32`s, all on the handle's device, `c` not overlapping `a` or `b`; for the tensor-core path
/// `k`, `lda`, `ldb`, `ldc` and the addresses are multiples of 16 (the callers use such).
#[allow(clippy::too_many_arguments)]
unsafe fn gemm_i8_tn(
    blas: &Blas,
    (m, n, k): (usize, usize, usize),
    (a, lda): (u64, usize),
    (b, ldb): (u64, usize),
    (c, ldc): (u64, usize),
) -> Result<()> {
    // SAFETY: the caller's contract.
    unsafe {
        blas.gemm_ex(
            GemmType::I8I32,
            true,
            false,
            (m, n, k),
            1.0,
            (a, lda),
            (b, ldb),
            0.0,
            (c, ldc),
        )
    }
}

/// The buffers the Ozaki GEMMs keep on a device between calls.
#[derive(Default)]
struct Workspace {
    mua: ScratchBuffer,
    mub: ScratchBuffer,
    ea: ScratchBuffer,
    eb: ScratchBuffer,
    res_a: ScratchBuffer,
    res_b: ScratchBuffer,
    prod: ScratchBuffer,
    part: ScratchBuffer,
    z: ScratchBuffer,
    zrow: ScratchBuffer,
    xa: ScratchBuffer,
    yb: ScratchBuffer,
    wbits: ScratchBuffer,
    xmax: ScratchBuffer,
    sqa: ScratchBuffer,
    sqb: ScratchBuffer,
    chunks: ScratchBuffer,
    // scheme I
    pack_a: ScratchBuffer,
    pack_b: ScratchBuffer,
    mu_tmp: ScratchBuffer,
    slices_a: Vec<ScratchBuffer>,
    slices_b: Vec<ScratchBuffer>,
    rems_b: Vec<ScratchBuffer>,
    exps_a: Vec<ScratchBuffer>,
    exps_b: Vec<ScratchBuffer>,
    exps_rb: Vec<ScratchBuffer>,
    acc_hi: ScratchBuffer,
    acc_lo: ScratchBuffer,
    term: ScratchBuffer,
}

impl Workspace {
    fn held(&self) -> usize {
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
            &self.chunks,
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

fn with_workspace<R>(dev: &Device, f: impl FnOnce(&mut Workspace) -> Result<R>) -> Result<R> {
    let ws = dev.workspace("ozaki", || Ok(Mutex::new(Workspace::default())))?;
    let mut guard = ws.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut guard)
}

/// One matrix operand seen as `count` vectors of length `len`: element `t` of vector `v` at
/// `ptr[v·sv + t·st]`.
#[derive(Clone, Copy, Debug)]
struct Vecs {
    ptr: u64,
    sv: u64,
    st: u64,
    count: usize,
}

/// The rows of a view (`rows` vectors of length `cols`).
fn rows_of(a: &DeviceMatRef<'_, f64>) -> Vecs {
    let l = a.layout();
    Vecs {
        ptr: a.word_addr(0),
        sv: l.row_stride as u64,
        st: l.col_stride as u64,
        count: l.rows,
    }
}

/// The columns of a view (`cols` vectors of length `rows`).
fn cols_of(b: &DeviceMatRef<'_, f64>) -> Vecs {
    rows_of(&b.t())
}

/// `out[v]` = bits of the largest `|x_vt|` (at least those of +Inf for a vector with NaN/Inf):
/// `ozaki_vecmax_tcontig` (one warp per vector) when the vectors are contiguous, else
/// `ozaki_vecmax_vcontig` (one thread per vector), both with `blockIdx.y` over ranges of `t`.
fn vecmax(dev: &Device, x: Vecs, len: usize, out: u64) -> Result<()> {
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

/// The fast mode's statistics in one read of `x`: `mubits[v]` as [`vecmax`] gives it and
/// `sq[v]` = [`cpu::ozaki2::norm_squares`], through per-chunk records in `chunks`
/// (`16·count·norm_chunks(len)` bytes).
fn vecstats(dev: &Device, x: Vecs, len: usize, mubits: u64, chunks: u64, sq: u64) -> Result<()> {
    let nch = norm_chunks(len);
    let (cm, cs) = (chunks, chunks + (8 * x.count * nch) as u64);
    memset0(dev, mubits, 8 * x.count)?;
    if x.st == 1 {
        let kernel = "ozaki_vecstats_tcontig";
        let grid = blocks(x.count * nch, 8, dev.resident_blocks(&MODULE, kernel, 256)?);
        // SAFETY: ozaki_vecstats_tcontig(const double* x, u64 sv, u64 count, u64 len, u64 nch,
        // u64* mubits, u64* cm, u64* cs), block 256, any grid: x addresses x[v·sv + t] for
        // v < count, t < len (check_gemm_args), mubits holds count u64, cm and cs count·nch.
        unsafe {
            launch(
                dev,
                kernel,
                cfg((grid, 1), 256),
                args![x.ptr, x.sv, x.count, len, nch, mubits, cm, cs],
            )?
        };
    } else {
        let kernel = "ozaki_vecstats_tiled";
        let tiles = nch * x.count.div_ceil(32);
        let grid = blocks(tiles, 1, dev.resident_blocks(&MODULE, kernel, 256)?);
        // SAFETY: ozaki_vecstats_tiled(const double* x, u64 sv, u64 st, u64 count, u64 len,
        // u64 nch, u64* mubits, u64* cm, u64* cs), block 256, any grid: as above with
        // x[v·sv + t·st].
        unsafe {
            launch(
                dev,
                kernel,
                cfg((grid, 1), 256),
                args![x.ptr, x.sv, x.st, x.count, len, nch, mubits, cm, cs],
            )?
        };
    }
    let grid = blocks(x.count, 8, 65_535);
    // SAFETY: ozaki_vecstats_combine(const u64* mubits, const u64* cm, const u64* cs,
    // u64 count, u64 nch, u64* sq), block 256, any grid: the records written above, sq holds
    // count u64.
    unsafe {
        launch(
            dev,
            "ozaki_vecstats_combine",
            cfg((grid, 1), 256),
            args![mubits, cm, cs, x.count, nch, sq],
        )
    }
}

/// `exps[v]` for each mode: `sq` non-null is the fast mode (`q` is then `fast_x`), `xv`
/// non-null the accurate mode.
fn exps_make(
    dev: &Device,
    mubits: u64,
    count: usize,
    q: i32,
    xv: u64,
    sq: u64,
    exps: u64,
) -> Result<()> {
    let c = cfg((blocks(count, 256, 4096), 1), 256);
    // SAFETY: ozaki_exps_make(const u64* mubits, u64 count, int q, const int* xv,
    // const u64* sq, int* exps): mubits holds count u64, xv is null or holds count ints, sq is
    // null or holds count u64, exps holds count ints.
    unsafe {
        launch(
            dev,
            "ozaki_exps_make",
            c,
            args![mubits, count, q, xv, sq, exps],
        )
    }
}

/// `ozaki_residues_make` over the padded `countp × lenp` range of `x`.
#[allow(clippy::too_many_arguments)]
fn residues(
    dev: &Device,
    x: Vecs,
    len: usize,
    countp: usize,
    lenp: usize,
    mubits: u64,
    exps: u64,
    nmod: usize,
    mode: i32,
    out: u64,
) -> Result<()> {
    let tiles = lenp.div_ceil(128) * countp.div_ceil(32);
    let c = cfg(
        (
            blocks(
                tiles,
                1,
                dev.resident_blocks(&MODULE, "ozaki_residues_make", 256)?,
            ),
            1,
        ),
        256,
    );
    let slab = countp * lenp;
    // SAFETY: ozaki_residues_make(const double* x, u64 sv, u64 st, u64 count, u64 len,
    // u64 countp, u64 lenp, const u64* mubits, const int* exps, int nmod, int mode,
    // signed char* out, u64 slab), block 256, any grid: x as for vecmax, mubits and exps hold
    // count entries, out holds nmod slabs of countp·lenp bytes (1 slab in mode 1), lenp and
    // slab are multiples of 16.
    unsafe {
        launch(
            dev,
            "ozaki_residues_make",
            c,
            args![
                x.ptr,
                x.sv,
                x.st,
                x.count,
                len,
                countp,
                lenp,
                mubits,
                exps,
                nmod as i32,
                mode,
                out,
                slab
            ],
        )
    }
}

fn round16(x: usize) -> usize {
    x.div_ceil(16) * 16
}

/// What the reconstruction kernel writes.
enum Output {
    /// `C ← α·AB + β·C`.
    Update {
        alpha: f64,
        beta: f64,
        c: u64,
        ldc: usize,
    },
    /// The double-double product, `m × n` (`hi`, `lo`).
    Product { hi: u64, lo: u64 },
}

fn crt_arg(crt: &Crt) -> Result<CrtArg> {
    let words = crt.w_words.len();
    if !(2..=MAX_WORDS).contains(&words) || crt.moduli.len() > 20 {
        return Err(Error::OutOfRange {
            what: "ozaki2 CRT words",
            got: words,
            min: 2,
            max: MAX_WORDS,
        });
    }
    let mut w = [[0.0; 20]; MAX_WORDS];
    let mut p = [0.0; MAX_WORDS];
    for c in 0..words {
        w[c][..crt.moduli.len()].copy_from_slice(&crt.w_words[c]);
        p[c] = crt.p_words[c];
    }
    Ok(CrtArg {
        w,
        p,
        p_inv: crt.p_inv,
        words: words as i32,
        nmod: crt.moduli.len() as i32,
    })
}

/// Columns per block of the product, from free memory (see the module documentation).
fn plan_cols(dev: &Device, held: usize, fixed: usize, per_col: usize, n: usize) -> Result<usize> {
    let cap = std::env::var("MPBLAS_OZAKI_MAX_COLS")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .filter(|&c| c > 0)
        .unwrap_or(DEFAULT_MAX_COLS);
    let (free, _) = dev.memory()?;
    let avail = (free + held).saturating_sub(MEMORY_MARGIN);
    let fit = avail.saturating_sub(fixed) / per_col.max(1);
    let nb = n.min(cap).min(fit);
    let nb = if nb >= n { n } else { (nb / 16) * 16 };
    if nb == 0 {
        return Err(Error::CudaOutOfMemory {
            ordinal: dev.ordinal(),
            bytes: fixed + per_col * n.min(16),
        });
    }
    Ok(nb)
}

/// Per-stage GPU times, when `MPBLAS_OZAKI_PROFILE` is set (then each call synchronises once
/// at its end and prints the times to stderr; otherwise nothing is recorded).
struct Prof {
    events: Vec<(&'static str, crate::cuda::Event)>,
    on: bool,
}

impl Prof {
    fn new(dev: &Device) -> Prof {
        let on = std::env::var_os("MPBLAS_OZAKI_PROFILE").is_some_and(|v| v != "0");
        let mut p = Prof {
            events: Vec::new(),
            on,
        };
        p.mark(dev, "start");
        p
    }
    fn mark(&mut self, dev: &Device, what: &'static str) {
        if !self.on {
            return;
        }
        if let Ok(e) = dev.event() {
            self.events.push((what, e));
        }
    }
    fn report(&self, what: &str) {
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

/// Stages 1–7 of scheme II on the device (arguments already checked, `m, n, k ≥ 1`).
#[allow(clippy::too_many_arguments)]
fn ozaki2_device(
    dev: &Device,
    ws: &mut Workspace,
    blas: &Blas,
    va: Vecs,
    vb: Vecs,
    k: usize,
    params: &Ozaki2Params,
    out: Output,
) -> Result<()> {
    let (m, n) = (va.count, vb.count);
    let crt = Crt::new(params.moduli)?;
    let q = fast_q(params.moduli, k)?;
    let nmod = crt.moduli.len();
    if crt.moduli[..] != KERNEL_MODULI[..nmod] {
        return Err(Error::OutOfRange {
            what: "ozaki2 moduli (kernel table out of date)",
            got: nmod,
            min: OZAKI2_MODULI.0,
            max: OZAKI2_MODULI.1,
        });
    }
    let accurate = params.mode == Ozaki2Mode::Accurate;
    if accurate && k > ACCURATE_MAX_K {
        return Err(Error::OutOfRange {
            what: "k (inner dimension) of accurate-mode ozaki2 on the GPU",
            got: k,
            min: 0,
            max: ACCURATE_MAX_K,
        });
    }
    let kp = round16(k);
    let mp = round16(m);
    let chunked = kp > K_CHUNK;
    // Sizes (bytes) of everything but the products, then the products per column.
    let res_a_bytes = nmod * mp * kp;
    let res_b_bytes = nmod * n * kp;
    let acc_bytes = if accurate {
        mp * kp.max(n * 4) + n * kp + 16 * (m + n)
    } else {
        0
    };
    let chunk_bytes = if accurate {
        0
    } else {
        16 * m.max(n) * norm_chunks(k)
    };
    let fixed = res_a_bytes + res_b_bytes + acc_bytes + chunk_bytes + 32 * (m + n);
    let per_col = 4 * mp * (nmod + usize::from(chunked));
    let held = ws.held();
    let nb = plan_cols(dev, held, fixed, per_col, n)?;

    let mut prof = Prof::new(dev);
    let mua = ws.mua.get(dev, 8 * m)?;
    let mub = ws.mub.get(dev, 8 * n)?;
    let ea = ws.ea.get(dev, 4 * m)?;
    let eb = ws.eb.get(dev, 4 * n)?;
    if accurate {
        vecmax(dev, va, k, mua)?;
        vecmax(dev, vb, k, mub)?;
        prof.mark(dev, "maxima");
    }

    if accurate {
        let fitf = 1.0 + (-50f64).exp2();
        let kf = k as f64;
        let hps = crt.half_p_safe;
        // The 6-bit bounds go where the residues will (slab 0 of each), then Z = ĀB̄ᵀ.
        let ra = ws.res_a.get(dev, res_a_bytes)?;
        let rb = ws.res_b.get(dev, res_b_bytes)?;
        residues(dev, va, k, mp, kp, mua, 0, 1, 1, ra)?;
        residues(dev, vb, k, n, kp, mub, 0, 1, 1, rb)?;
        let z = ws.z.get(dev, 4 * mp * n)?;
        // SAFETY: ra holds mp rows of kp bytes, rb n columns of kp bytes, z mp·n ints.
        unsafe { gemm_i8_tn(blas, (mp, n, kp), (ra, kp), (rb, kp), (z, mp))? };
        let zrow = ws.zrow.get(dev, 4 * m)?;
        let xa = ws.xa.get(dev, 4 * m)?;
        let yb = ws.yb.get(dev, 4 * n)?;
        let wbits = ws.wbits.get(dev, 8 * n)?;
        let xmax = ws.xmax.get(dev, 4)?;
        memset0(dev, zrow, 4 * m)?;
        memset0(dev, wbits, 8 * n)?;
        memset0(dev, xmax, 4)?;
        let c = cfg(
            (blocks(m, 256, u32::MAX as usize), blocks(n, 64, 65_535)),
            256,
        );
        // SAFETY: ozaki_zrow_max(const int* z, u64 ldz, u64 m, u64 n, int* zrow), block 256,
        // grid (ceil(m/256), chunks): z holds ldz·n ints (ldz = mp ≥ m), zrow m ints.
        unsafe { launch(dev, "ozaki_zrow_max", c, args![z, mp, m, n, zrow])? };
        let c = cfg((blocks(m, 256, 4096), 1), 256);
        // SAFETY: ozaki_acc_rows(const int* zrow, const u64* mubits, u64 m, int q, double kf,
        // double fitf, double hps, int* xa, int* xmax): zrow, mubits, xa hold m entries, xmax 1.
        unsafe {
            launch(
                dev,
                "ozaki_acc_rows",
                c,
                args![zrow, mua, m, q, kf, fitf, hps, xa, xmax],
            )?
        };
        let c = cfg(
            (n.min(u32::MAX as usize) as u32, blocks(m, 2048, 65_535)),
            256,
        );
        // SAFETY: ozaki_zcol_max(const int* z, u64 ldz, u64 m, u64 n, const int* xa, int q,
        // u64* wbits), block 256 (its shared reduction assumes it), grid (n, chunks): z as
        // above, xa m ints, wbits n u64.
        unsafe { launch(dev, "ozaki_zcol_max", c, args![z, mp, m, n, xa, q, wbits])? };
        let c = cfg((blocks(n, 256, 4096), 1), 256);
        // SAFETY: ozaki_acc_cols(const u64* wbits, const u64* mubits, u64 n, int q, double kf,
        // double fitf, double hps, const int* xmax, int* yb): n entries each, xmax 1.
        unsafe {
            launch(
                dev,
                "ozaki_acc_cols",
                c,
                args![wbits, mub, n, q, kf, fitf, hps, xmax, yb],
            )?
        };
        exps_make(dev, mua, m, q, xa, 0, ea)?;
        exps_make(dev, mub, n, q, yb, 0, eb)?;
    } else {
        let x = fast_x(&crt, k)?;
        let sqa = ws.sqa.get(dev, 8 * m)?;
        let sqb = ws.sqb.get(dev, 8 * n)?;
        let chunks = ws.chunks.get(dev, chunk_bytes)?;
        vecstats(dev, va, k, mua, chunks, sqa)?;
        vecstats(dev, vb, k, mub, chunks, sqb)?;
        exps_make(dev, mua, m, x, 0, sqa, ea)?;
        exps_make(dev, mub, n, x, 0, sqb, eb)?;
    }
    prof.mark(dev, "exponents");

    let ra = ws.res_a.get(dev, res_a_bytes)?;
    let rb = ws.res_b.get(dev, res_b_bytes)?;
    residues(dev, va, k, mp, kp, mua, ea, nmod, 0, ra)?;
    residues(dev, vb, k, n, kp, mub, eb, nmod, 0, rb)?;
    prof.mark(dev, "residues");
    let slab_a = mp * kp;
    let slab_b = n * kp;
    let slab_p = mp * nb;
    let prod = ws.prod.get(dev, 4 * nmod * slab_p)?;
    let part = if chunked {
        ws.part.get(dev, 4 * slab_p)?
    } else {
        0
    };
    let crt_a = crt_arg(&crt)?.arg();
    let (alpha, beta, c, ldc, mode, hi, lo) = match out {
        Output::Update {
            alpha,
            beta,
            c,
            ldc,
        } => (alpha, beta, c, ldc, 0i32, 0u64, 0u64),
        Output::Product { hi, lo } => (1.0, 0.0, 0, m, 1, hi, lo),
    };
    let mut j0 = 0;
    while j0 < n {
        let nbt = nb.min(n - j0);
        for (l, &ml) in crt.moduli.iter().enumerate() {
            let pl = prod + (4 * l * slab_p) as u64;
            let mut k0 = 0;
            while k0 < kp {
                let k1 = (k0 + K_CHUNK).min(kp);
                let dst = if k0 == 0 { pl } else { part };
                // SAFETY: A slab l holds mp rows of kp bytes (columns k0..k1 of each), B slab l
                // holds n columns of kp bytes (columns j0..j0+nbt, rows k0..k1), dst holds
                // mp·nb ints; all offsets are multiples of 16 bytes.
                unsafe {
                    gemm_i8_tn(
                        blas,
                        (mp, nbt, k1 - k0),
                        (ra + (l * slab_a + k0) as u64, kp),
                        (rb + (l * slab_b + j0 * kp + k0) as u64, kp),
                        (dst, mp),
                    )?
                };
                if k0 > 0 {
                    let c = cfg((blocks(mp * nbt, 256, 4096), 1), 256);
                    // SAFETY: ozaki_fold_mod(int* acc, const int* part, u64 count, int modulus):
                    // pl and part hold mp·nbt ≤ mp·nb ints each, distinct buffers.
                    unsafe {
                        launch(
                            dev,
                            "ozaki_fold_mod",
                            c,
                            args![pl, part, mp * nbt, ml as i32],
                        )?
                    };
                }
                k0 = k1;
            }
        }
        prof.mark(dev, "int8 gemms");
        let c2 = dev.grid_2d(m, nbt);
        // SAFETY: ozaki_crt_update(const int* prod, u64 ldp, u64 slab, u64 m, u64 nb, u64 j0,
        // OzCrt crt, const int* ea, const int* eb, const u64* mua, const u64* mub,
        // double alpha, double beta, double* c, u64 ldc, int mode, double* out_hi,
        // double* out_lo, const double* a, u64 asv, u64 ast, const double* b, u64 bsv,
        // u64 bst, u64 k), 2-D launch (cfg_2d): prod holds nmod slabs of slab = mp·nb ints
        // with leading dimension mp; ea, mua hold m entries, eb, mub n; in mode 0 c holds
        // ldc·(n−1)+m doubles and a, b address op(A), op(B) (read only for bad vectors); in
        // mode 1 out_hi, out_lo hold m·n doubles.
        unsafe {
            launch(
                dev,
                "ozaki_crt_update",
                c2,
                args![
                    prod,
                    mp,
                    slab_p,
                    m,
                    nbt,
                    j0,
                    crt_a.clone(),
                    ea,
                    eb,
                    mua,
                    mub,
                    alpha,
                    beta,
                    c,
                    ldc,
                    mode,
                    hi,
                    lo,
                    va.ptr,
                    va.sv,
                    va.st,
                    vb.ptr,
                    vb.sv,
                    vb.st,
                    k
                ],
            )?
        };
        prof.mark(dev, "crt");
        j0 += nbt;
    }
    prof.report(&format!("ozaki2 {m}x{n}x{k} N={nmod} {:?}", params.mode));
    Ok(())
}

/// The BLAS quick returns on the device; `true` if the call is finished.
#[allow(clippy::too_many_arguments)]
fn quick_return(
    dev: &Device,
    m: usize,
    n: usize,
    k: usize,
    alpha: f64,
    beta: f64,
    c: u64,
    ldc: usize,
) -> Result<bool> {
    if m == 0 || n == 0 {
        return Ok(true);
    }
    if alpha == 0.0 || k == 0 {
        if beta != 1.0 {
            // SAFETY: ozaki_scale_c(double* c, u64 m, u64 n, u64 ldc, double beta), 2-D launch:
            // c holds ldc·(n−1)+m doubles (check_gemm_args).
            unsafe {
                launch(
                    dev,
                    "ozaki_scale_c",
                    dev.grid_2d(m, n),
                    args![c, m, n, ldc, beta],
                )?
            };
        }
        return Ok(true);
    }
    Ok(false)
}

/// An update call `C ← α·A·B + β·C` that passed its checks and has work to do: the cuBLAS
/// handle, the rows of `A` and columns of `B`, `(m, n, k)`, and C's address and leading
/// dimension.
struct Update {
    blas: std::sync::Arc<Blas>,
    va: Vecs,
    vb: Vecs,
    dims: (usize, usize, usize),
    pc: u64,
    ldc: usize,
}

/// The prologue `ozaki1_gemm` and `ozaki2_gemm` share after checking their own parameters:
/// device and shape checks, C column-major, the quick returns (`None`: C is already final),
/// the cuBLAS handle and the operand vectors.
fn prepare_update(
    dev: &Device,
    alpha: f64,
    a: DeviceMatRef<'_, f64>,
    b: DeviceMatRef<'_, f64>,
    beta: f64,
    c: &DeviceMatMut<'_, f64>,
) -> Result<Option<Update>> {
    dev.check_on("a", a.ordinal())?;
    dev.check_on("b", b.ordinal())?;
    dev.check_on("c", c.ordinal())?;
    let (m, n, k) = check_product_shapes(&a.layout(), &b.layout(), &c.layout())?;
    let ldc = col_major_ld("c", &c.layout())?;
    let pc = c.word_addr(0);
    if quick_return(dev, m, n, k, alpha, beta, pc, ldc)? {
        return Ok(None);
    }
    Ok(Some(Update {
        blas: dev.blas()?,
        va: rows_of(&a),
        vb: cols_of(&b),
        dims: (m, n, k),
        pc,
        ldc,
    }))
}

/// `C ← α·A·B + β·C` by Ozaki scheme II on INT8 tensor cores: the GPU twin of
/// [`crate::ozaki::ozaki2_gemm`], bit for bit, on device views (`A`, `B` of any strides, `C`
/// column-major; BLAS conventions of [`crate::ozaki`]; NaN/Inf rows and columns handled as
/// there).
///
/// # Errors
/// Those of the CPU function ([`Error::LengthMismatch`], [`Error::OutOfRange`]);
/// [`Error::DeviceMismatch`]; [`Error::InvalidView`] for a `C` that is not column-major;
/// [`Error::CudaLibraryMissing`] without cuBLAS; [`Error::CudaOutOfMemory`] when even a
/// 16-column block of the product does not fit (nothing is enqueued then);
/// [`Error::OutOfRange`] for accurate mode with `k > 524287` or a dimension beyond cuBLAS's
/// `i32`; [`Error::CudaLaunch`] if a kernel or cuBLAS call fails.
pub fn ozaki2_gemm(
    dev: &Device,
    alpha: f64,
    a: DeviceMatRef<'_, f64>,
    b: DeviceMatRef<'_, f64>,
    beta: f64,
    c: DeviceMatMut<'_, f64>,
    params: &Ozaki2Params,
) -> Result<()> {
    cpu::ozaki2::check_params(a.cols(), params)?;
    let Some(Update {
        blas,
        va,
        vb,
        dims: (_, _, k),
        pc,
        ldc,
    }) = prepare_update(dev, alpha, a, b, beta, &c)?
    else {
        return Ok(());
    };
    let out = Output::Update {
        alpha,
        beta,
        c: pc,
        ldc,
    };
    with_workspace(dev, |ws| {
        ozaki2_device(dev, ws, &blas, va, vb, k, params, out)
    })
}

/// [`ozaki2_gemm`] with the arguments of BLAS `dgemm` on device vectors.
///
/// # Errors
/// [`Error::LeadingDim`], [`Error::ArrayTooShort`] under the BLAS names, then those of
/// [`ozaki2_gemm`].
#[allow(clippy::too_many_arguments)]
pub fn ozaki2_gemm_blas(
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
    params: &Ozaki2Params,
) -> Result<()> {
    let (a, b, c) = blas_views(transa, transb, (m, n, k), (a, lda), (b, ldb), (c, ldc))?;
    ozaki2_gemm(dev, alpha, a, b, beta, c, params)
}

/// The device views of a BLAS-style GEMM call, checked under the BLAS names.
#[allow(clippy::type_complexity)]
fn blas_views<'a>(
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

/// `A·B` by scheme II as an `m × n` column-major double-double array: the GPU twin of
/// [`crate::ozaki::ozaki2::product`] (bit for bit, after the CPU's packing and zeroing of
/// non-finite rows and columns). With 20 moduli in fast mode this is the reference the
/// benchmark and the GPU reproduction use (fast rather than accurate: at φ = 2 the fast mode's
/// 2-norm scaling keeps more bits, see `bench/results/h100-sxm-80gb/ozaki-notes.md`).
///
/// # Errors
/// As [`ozaki2_gemm`].
pub fn ozaki2_product(
    dev: &Device,
    a: DeviceMatRef<'_, f64>,
    b: DeviceMatRef<'_, f64>,
    params: &Ozaki2Params,
) -> Result<DeviceDdVec> {
    let (m, k, n) = (a.rows(), a.cols(), b.cols());
    cpu::ozaki2::check_params(k, params)?;
    if b.rows() != k {
        return Err(Error::LengthMismatch {
            arg: "b (rows)",
            expected: k,
            got: b.rows(),
        });
    }
    dev.check_on("a", a.ordinal())?;
    dev.check_on("b", b.ordinal())?;
    let out = dev.zeros::<Dd>(m * n)?;
    if m == 0 || n == 0 || k == 0 {
        return Ok(out);
    }
    let blas = dev.blas()?;
    let va = rows_of(&a);
    let vb = cols_of(&b);
    let hi = out.word_addr(0);
    let lo = out.word_addr(1);
    with_workspace(dev, |ws| {
        ozaki2_device(
            dev,
            ws,
            &blas,
            va,
            vb,
            k,
            params,
            Output::Product { hi, lo },
        )
    })?;
    Ok(out)
}

// ---- scheme I ------------------------------------------------------------------------------------

/// A device split: slice `i` at `slices[i]` (f32 or f64 values, `count × len`), its exponents
/// at `exps[i]`; with remainders, remainder `r` at `rems[r]` with exponents `rem_exps[r]`.
struct DevSplit {
    slices: Vec<u64>,
    exps: Vec<u64>,
    rems: Vec<u64>,
    rem_exps: Vec<u64>,
}

fn grow(v: &mut Vec<ScratchBuffer>, n: usize) {
    while v.len() < n {
        v.push(ScratchBuffer::default());
    }
}

/// [`split::split`] on the device, on packed rows `rem` (`count × len`, overwritten by the
/// last remainder).
#[allow(clippy::too_many_arguments)]
fn split_device(
    dev: &Device,
    mu_tmp: u64,
    rem: u64,
    len: usize,
    count: usize,
    slices: usize,
    prec: SliceGemm,
    slice_bufs: &mut [ScratchBuffer],
    exp_bufs: &mut [ScratchBuffer],
    rem_bufs: Option<(&mut [ScratchBuffer], &mut [ScratchBuffer])>,
) -> Result<DevSplit> {
    let f32s = i32::from(prec == SliceGemm::F32);
    let esize = if prec == SliceGemm::F32 { 4 } else { 8 };
    let beta = split::beta(split::precision_bits(prec), len) as i32;
    let total = count * len;
    let c = cfg((blocks(total, 256, 65_535), 1), 256);
    let packed = Vecs {
        ptr: rem,
        sv: len as u64,
        st: 1,
        count,
    };
    let mut out = DevSplit {
        slices: Vec::new(),
        exps: Vec::new(),
        rems: Vec::new(),
        rem_exps: Vec::new(),
    };
    let (mut rb, mut re) = match rem_bufs {
        Some((r, e)) => (Some(r), Some(e)),
        None => (None, None),
    };
    let round = |dst: u64, exps: u64| -> Result<()> {
        let (s32, s64) = if f32s == 1 { (dst, 0) } else { (0, dst) };
        // SAFETY: ozaki_split_round(const double* rem, u64 count, u64 len,
        // const u64* mubits, int f32, float* s32, double* s64, int* exps): rem holds
        // count·len doubles, the non-null output count·len elements, exps count ints.
        unsafe {
            launch(
                dev,
                "ozaki_split_round",
                c,
                args![rem, count, len, mu_tmp, f32s, s32, s64, exps],
            )
        }
    };
    for i in 0..slices.saturating_sub(1) {
        vecmax(dev, packed, len, mu_tmp)?;
        if let (Some(r), Some(e)) = (rb.as_deref_mut(), re.as_deref_mut()) {
            let dst = r[i].get(dev, esize * total)?;
            let ex = e[i].get(dev, 4 * count)?;
            round(dst, ex)?;
            out.rems.push(dst);
            out.rem_exps.push(ex);
        }
        let dst = slice_bufs[i].get(dev, esize * total)?;
        let ex = exp_bufs[i].get(dev, 4 * count)?;
        let (s32, s64) = if f32s == 1 { (dst, 0) } else { (0, dst) };
        // SAFETY: ozaki_split_step(double* rem, u64 count, u64 len, const u64* mubits,
        // int beta, int f32, float* s32, double* s64, int* exps): as for ozaki_split_round,
        // rem read and written in place element by element.
        unsafe {
            launch(
                dev,
                "ozaki_split_step",
                c,
                args![rem, count, len, mu_tmp, beta, f32s, s32, s64, ex],
            )?
        };
        out.slices.push(dst);
        out.exps.push(ex);
    }
    vecmax(dev, packed, len, mu_tmp)?;
    let last = slices - 1;
    let dst = slice_bufs[last].get(dev, esize * total)?;
    let ex = exp_bufs[last].get(dev, 4 * count)?;
    round(dst, ex)?;
    out.slices.push(dst);
    out.exps.push(ex);
    if rb.is_some() {
        out.rems.push(dst);
        out.rem_exps.push(ex);
    }
    Ok(out)
}

/// Packs `x` into rows (`count × len`), zeroing vectors with NaN/Inf (`mubits` from vecmax).
fn pack(dev: &Device, x: Vecs, len: usize, mubits: u64, out: u64) -> Result<()> {
    let tiles = len.div_ceil(128) * x.count.div_ceil(32);
    let sms = dev.info().multiprocessors.max(1) as usize;
    let c = cfg((blocks(tiles, 1, sms * 8), 1), 256);
    // SAFETY: ozaki_pack_vecs(const double* x, u64 sv, u64 st, u64 count, u64 len,
    // const u64* mubits, double* out), block 256, any grid: x as for vecmax, mubits count
    // u64, out count·len doubles.
    unsafe {
        launch(
            dev,
            "ozaki_pack_vecs",
            c,
            args![x.ptr, x.sv, x.st, x.count, len, mubits, out],
        )
    }
}

/// Downloads `count·len` slice values and `count` exponents.
fn download_scaled(
    dev: &Device,
    vals: u64,
    exps: u64,
    count: usize,
    len: usize,
    prec: SliceGemm,
) -> Result<Scaled> {
    let total = count * len;
    let mut values = vec![0.0f64; total];
    // SAFETY: `vals` addresses `total` elements of the slice precision and `exps` `count`
    // ints in workspace buffers of this device, written by the kernels enqueued before.
    unsafe {
        match prec {
            SliceGemm::F32 => {
                let mut v32 = vec![0.0f32; total];
                download_raw(dev, vals, &mut v32)?;
                for (d, s) in values.iter_mut().zip(&v32) {
                    *d = f64::from(*s);
                }
            }
            SliceGemm::F64 => download_raw(dev, vals, &mut values)?,
        }
        let mut ex = vec![0i32; count];
        download_raw(dev, exps, &mut ex)?;
        Ok(Scaled { values, exps: ex })
    }
}

/// The device split of `count` packed vectors of length `len` (finite values), downloaded:
/// the GPU twin of [`split::split`], for stage-by-stage checks.
///
/// # Errors
/// [`Error::LengthMismatch`] if `x` does not hold `count·len` values; driver, compile and
/// launch errors.
pub fn ozaki1_split(
    dev: &Device,
    x: &[f64],
    len: usize,
    count: usize,
    slices: usize,
    prec: SliceGemm,
    keep_remainders: bool,
) -> Result<Split> {
    check_len("x", count * len, x.len())?;
    let (lo, hi) = cpu::OZAKI1_SLICES;
    if !(lo..=hi).contains(&slices) {
        return Err(Error::OutOfRange {
            what: "ozaki1 slices",
            got: slices,
            min: lo,
            max: hi,
        });
    }
    if count * len == 0 {
        return Ok(split::split(x, len, count, slices, prec, keep_remainders));
    }
    let xd = dev.upload_f64(x)?;
    with_workspace(dev, |ws| {
        let rem = ws.pack_a.get(dev, 8 * count * len)?;
        let mu = ws.mu_tmp.get(dev, 8 * count)?;
        let src = xd.word_addr(0);
        let v = Vecs {
            ptr: src,
            sv: len as u64,
            st: 1,
            count,
        };
        vecmax(dev, v, len, mu)?;
        pack(dev, v, len, mu, rem)?;
        grow(&mut ws.slices_a, slices);
        grow(&mut ws.exps_a, slices);
        grow(&mut ws.rems_b, slices);
        grow(&mut ws.exps_rb, slices);
        let rems = if keep_remainders {
            Some((&mut ws.rems_b[..], &mut ws.exps_rb[..]))
        } else {
            None
        };
        let sp = split_device(
            dev,
            mu,
            rem,
            len,
            count,
            slices,
            prec,
            &mut ws.slices_a,
            &mut ws.exps_a,
            rems,
        )?;
        let get = |v: &[u64], e: &[u64]| -> Result<Vec<Scaled>> {
            v.iter()
                .zip(e)
                .map(|(&p, &q)| download_scaled(dev, p, q, count, len, prec))
                .collect()
        };
        Ok(Split {
            slices: get(&sp.slices, &sp.exps)?,
            remainders: get(&sp.rems, &sp.rem_exps)?,
        })
    })
}

/// `C ← α·A·B + β·C` by Ozaki scheme I on the GPU: the splits of
/// [`crate::ozaki::ozaki1_gemm`] (identical to the CPU's), slice products by cuBLAS SGEMM or
/// DGEMM (default math mode, no TF32), summed in the order of [`crate::ozaki::ozaki1::terms`];
/// views as [`ozaki2_gemm`].
///
/// # Errors
/// Those of the CPU function; [`Error::DeviceMismatch`]; [`Error::InvalidView`];
/// [`Error::CudaLibraryMissing`]; [`Error::CudaOutOfMemory`]; [`Error::CudaLaunch`].
pub fn ozaki1_gemm(
    dev: &Device,
    alpha: f64,
    a: DeviceMatRef<'_, f64>,
    b: DeviceMatRef<'_, f64>,
    beta: f64,
    c: DeviceMatMut<'_, f64>,
    params: &Ozaki1Params,
) -> Result<()> {
    cpu::ozaki1::check_params(a.cols(), params)?;
    let Some(Update {
        blas,
        va,
        vb,
        dims: (m, n, k),
        pc,
        ldc,
    }) = prepare_update(dev, alpha, a, b, beta, &c)?
    else {
        return Ok(());
    };
    let s = params.slices;
    let prec = params.slice_gemm;
    let esize = if prec == SliceGemm::F32 { 4 } else { 8 };
    let tri = params.products == Products::Triangular;
    // Everything is allocated up front; refuse before enqueueing if it cannot fit.
    let need = 8 * k * (m + n)
        + esize * k * (s * m + s * n + if tri { s * n } else { 0 })
        + m * n * (16 + esize)
        + 32 * (m + n);
    with_workspace(dev, |ws| {
        let (free, _) = dev.memory()?;
        if need > (free + ws.held()).saturating_sub(MEMORY_MARGIN) {
            return Err(Error::CudaOutOfMemory {
                ordinal: dev.ordinal(),
                bytes: need,
            });
        }
        let mua = ws.mua.get(dev, 8 * m)?;
        let mub = ws.mub.get(dev, 8 * n)?;
        vecmax(dev, va, k, mua)?;
        vecmax(dev, vb, k, mub)?;
        let pa = ws.pack_a.get(dev, 8 * m * k)?;
        let pb = ws.pack_b.get(dev, 8 * n * k)?;
        pack(dev, va, k, mua, pa)?;
        pack(dev, vb, k, mub, pb)?;
        let mu = ws.mu_tmp.get(dev, 8 * m.max(n))?;
        grow(&mut ws.slices_a, s);
        grow(&mut ws.exps_a, s);
        grow(&mut ws.slices_b, s);
        grow(&mut ws.exps_b, s);
        grow(&mut ws.rems_b, s);
        grow(&mut ws.exps_rb, s);
        let sa = split_device(
            dev,
            mu,
            pa,
            k,
            m,
            s,
            prec,
            &mut ws.slices_a,
            &mut ws.exps_a,
            None,
        )?;
        let rems = if tri {
            Some((&mut ws.rems_b[..], &mut ws.exps_rb[..]))
        } else {
            None
        };
        let sb = split_device(
            dev,
            mu,
            pb,
            k,
            n,
            s,
            prec,
            &mut ws.slices_b,
            &mut ws.exps_b,
            rems,
        )?;
        let acc_hi = ws.acc_hi.get(dev, 8 * m * n)?;
        let acc_lo = ws.acc_lo.get(dev, 8 * m * n)?;
        memset0(dev, acc_hi, 8 * m * n)?;
        memset0(dev, acc_lo, 8 * m * n)?;
        let term = ws.term.get(dev, esize * m * n)?;
        let dd = i32::from(params.accumulate == Accumulate::Dd);
        for t in cpu::ozaki1::terms(s, params.products) {
            let (bp, be) = match t.b {
                cpu::ozaki1::BOperand::Slice(j) => (sb.slices[j], sb.exps[j]),
                cpu::ozaki1::BOperand::Remainder(r) => match (sb.rems.get(r), sb.rem_exps.get(r)) {
                    (Some(&p), Some(&e)) => (p, e),
                    _ => {
                        return Err(Error::OutOfRange {
                            what: "remainder index of B",
                            got: r,
                            min: 0,
                            max: sb.rems.len().saturating_sub(1),
                        });
                    }
                },
            };
            let ap = sa.slices[t.a];
            let ae = sa.exps[t.a];
            // SAFETY: the slices hold count·k elements of the slice precision, k × count
            // column-major (lda = ldb = k); term holds m·n elements.
            unsafe {
                match prec {
                    SliceGemm::F32 => blas.gemm_ex(
                        GemmType::F32,
                        true,
                        false,
                        (m, n, k),
                        1.0,
                        (ap, k),
                        (bp, k),
                        0.0,
                        (term, m),
                    )?,
                    SliceGemm::F64 => blas.gemm_ex(
                        GemmType::F64,
                        true,
                        false,
                        (m, n, k),
                        1.0,
                        (ap, k),
                        (bp, k),
                        0.0,
                        (term, m),
                    )?,
                }
            };
            let (p32, p64) = if prec == SliceGemm::F32 {
                (term, 0)
            } else {
                (0, term)
            };
            // SAFETY: ozaki_term_acc(const float* p32, const double* p64, u64 m, u64 n,
            // const int* ea, const int* eb, int dd, double* acc_hi, double* acc_lo), 2-D
            // launch: the non-null product holds m·n elements, ea m ints, eb n ints, the
            // accumulators m·n doubles.
            unsafe {
                launch(
                    dev,
                    "ozaki_term_acc",
                    dev.grid_2d(m, n),
                    args![p32, p64, m, n, ae, be, dd, acc_hi, acc_lo],
                )?
            };
        }
        // SAFETY: ozaki_term_finish(const double* acc_hi, const double* acc_lo, int dd, u64 m,
        // u64 n, double alpha, double beta, double* c, u64 ldc, const u64* mua,
        // const u64* mub, const double* a, u64 asv, u64 ast, const double* b, u64 bsv,
        // u64 bst, u64 k), 2-D launch: accumulators m·n doubles, c ldc·(n−1)+m doubles,
        // mua m, mub n, a and b the user's operands (check_gemm_args).
        unsafe {
            launch(
                dev,
                "ozaki_term_finish",
                dev.grid_2d(m, n),
                args![
                    acc_hi, acc_lo, dd, m, n, alpha, beta, pc, ldc, mua, mub, va.ptr, va.sv, va.st,
                    vb.ptr, vb.sv, vb.st, k
                ],
            )
        }
    })
}

/// [`ozaki1_gemm`] with the arguments of BLAS `dgemm` on device vectors.
///
/// # Errors
/// [`Error::LeadingDim`], [`Error::ArrayTooShort`] under the BLAS names, then those of
/// [`ozaki1_gemm`].
#[allow(clippy::too_many_arguments)]
pub fn ozaki1_gemm_blas(
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
    params: &Ozaki1Params,
) -> Result<()> {
    let (a, b, c) = blas_views(transa, transb, (m, n, k), (a, lda), (b, ldb), (c, ldc))?;
    ozaki1_gemm(dev, alpha, a, b, beta, c, params)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_moduli_match_the_cpu() {
        assert_eq!(cpu::ozaki2::moduli(20), KERNEL_MODULI.to_vec());
        let src = MODULE.source;
        for (l, m) in KERNEL_MODULI.iter().enumerate() {
            assert!(src.contains(&format!("X({l}, {m})")), "modulus {l} = {m}");
        }
    }

    #[test]
    fn crt_words_fit_the_kernel() {
        for nmod in OZAKI2_MODULI.0..=OZAKI2_MODULI.1 {
            let crt = Crt::new(nmod).unwrap();
            let a = crt_arg(&crt).unwrap();
            assert_eq!(a.nmod as usize, nmod);
            assert!(a.words as usize <= MAX_WORDS);
        }
        // struct OzCrt: 80 + 4 + 1 doubles, then two ints in one word.
        let crt = Crt::new(16).unwrap();
        match crt_arg(&crt).unwrap().arg() {
            Arg::Struct(words) => {
                assert_eq!(words.len(), 80 + 4 + 1 + 1);
                assert_eq!(words[85], 16u64 << 32 | crt.w_words.len() as u64);
            }
            other => panic!("{other:?}"),
        }
    }
}
