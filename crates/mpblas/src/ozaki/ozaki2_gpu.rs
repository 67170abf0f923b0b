//! Scheme II on the GPU: the stages of [`crate::ozaki::ozaki2`] as kernels of
//! `ozaki_gpu.cu` plus cuBLAS INT8 GEMMs, planned once per call ([`DevicePlan`]) and run in
//! order on the device's stream. See [`super::ozaki_gpu`] for the stage table and the
//! workspace.

use super::ozaki_gpu::*;
use crate::blas::bounds::compensated_dot_gamma;
use crate::cuda::{
    Arg, Blas, Device, DeviceMatMut, DeviceMatRef, DeviceScalar, DeviceVec, GemmType, args, blocks,
};
use crate::dd::Dd;
use crate::dd::dd_gpu::DeviceDdVec;
use crate::error::{Error, Result};
use crate::ozaki::ozaki2::{Crt, Ozaki2Plan, norm_chunks};
use crate::ozaki::ozaki2_dd::{DdSchemeInput, GUARD_LOWER_MAX_K, dd_guard_tiny, dd_plan};
use crate::ozaki::ozaki2_qd::{qd_params, qd_plan};
use crate::ozaki::{OZAKI2_MODULI, Ozaki2Mode, Ozaki2Params, Ozaki2Report, OzakiGuard};
use crate::qd::Qd;
use crate::view::Trans;

/// The moduli the kernels hard-code (`OZ_MODULI_LIST` in `ozaki_gpu.cu`), which must be
/// [`crate::ozaki::ozaki2::moduli`]`(31)`; the tests below check both. DGEMM's scheme uses
/// the first [`F64_KERNEL_MODULI`] (`OZ_F64_MODULI`), the double-double scheme all.
pub(crate) const KERNEL_MODULI: [u32; 31] = [
    256, 255, 253, 251, 247, 241, 239, 233, 229, 227, 223, 217, 211, 199, 197, 193, 191, 181, 179,
    173, 167, 163, 157, 151, 149, 139, 137, 131, 127, 113, 109,
];

/// Moduli of `ozaki_crt_update` (DGEMM's scheme; `OZ_F64_MODULI`).
const F64_KERNEL_MODULI: usize = 20;

/// Largest number of 40-bit CRT words the reconstruction kernels take (`OZ_MAX_WORDS`).
const MAX_WORDS: usize = 6;
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
/// The CRT constants, passed by value to `ozaki_crt_update` (`struct OzCrt`).
#[derive(Clone, Copy)]
struct CrtArg {
    w: [[f64; KERNEL_MODULI.len()]; MAX_WORDS],
    p: [f64; MAX_WORDS],
    p_inv: f64,
    words: i32,
    nmod: i32,
}

impl CrtArg {
    /// The bytes of `struct OzCrt` in ozaki_gpu.cu (`double w[6][31], p[6], p_inv; int words,
    /// nmod;`: 193 doubles, then the two ints in one little-endian word), as the kernel
    /// argument.
    fn arg(&self) -> Arg {
        let mut words: Vec<u64> = self.w.iter().flatten().map(|x| x.to_bits()).collect();
        words.extend(self.p.iter().map(|x| x.to_bits()));
        words.push(self.p_inv.to_bits());
        words.push(u64::from(self.words as u32) | (u64::from(self.nmod as u32) << 32));
        Arg::Struct(words.into_boxed_slice())
    }
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

/// Bytes of the per-chunk records of [`vecstats`] for `count` vectors of length `len`.
fn chunk_record_bytes(count: usize, len: usize) -> usize {
    24 * count * norm_chunks(len)
}

/// The fast mode's and the guard's statistics in one read of `x`: `mubits[v]` as [`vecmax`]
/// gives it, `sq[v]` = `ozaki2::norm_squares` and `s1[v]` = `ozaki2::norm_abs_sums`, through
/// per-chunk records in `chunks` ([`chunk_record_bytes`]).
fn vecstats(
    dev: &Device,
    x: Vecs,
    len: usize,
    mubits: u64,
    chunks: u64,
    (sq, s1): (u64, u64),
) -> Result<()> {
    let nch = norm_chunks(len);
    let rec = (8 * x.count * nch) as u64;
    let (cm, cs, c1) = (chunks, chunks + rec, chunks + 2 * rec);
    memset0(dev, mubits, 8 * x.count)?;
    if x.st == 1 {
        let kernel = "ozaki_vecstats_tcontig";
        let grid = blocks(x.count * nch, 8, dev.resident_blocks(&MODULE, kernel, 256)?);
        // SAFETY: ozaki_vecstats_tcontig(const double* x, u64 sv, u64 count, u64 len, u64 nch,
        // u64* mubits, u64* cm, u64* cs, u64* c1), block 256, any grid: x addresses
        // x[v·sv + t] for v < count, t < len (check_gemm_args), mubits holds count u64, cm, cs
        // and c1 count·nch each (chunk_record_bytes).
        unsafe {
            launch(
                dev,
                kernel,
                cfg((grid, 1), 256),
                args![x.ptr, x.sv, x.count, len, nch, mubits, cm, cs, c1],
            )?
        };
    } else {
        let kernel = "ozaki_vecstats_tiled";
        let tiles = nch * x.count.div_ceil(32);
        let grid = blocks(tiles, 1, dev.resident_blocks(&MODULE, kernel, 256)?);
        // SAFETY: ozaki_vecstats_tiled(const double* x, u64 sv, u64 st, u64 count, u64 len,
        // u64 nch, u64* mubits, u64* cm, u64* cs, u64* c1), block 256, any grid: as above with
        // x[v·sv + t·st].
        unsafe {
            launch(
                dev,
                kernel,
                cfg((grid, 1), 256),
                args![x.ptr, x.sv, x.st, x.count, len, nch, mubits, cm, cs, c1],
            )?
        };
    }
    let grid = blocks(x.count, 8, 65_535);
    // SAFETY: ozaki_vecstats_combine(const u64* mubits, const u64* cm, const u64* cs,
    // const u64* c1, u64 count, u64 nch, u64* sq, u64* s1), block 256, any grid: the records
    // written above, sq and s1 hold count u64 each.
    unsafe {
        launch(
            dev,
            "ozaki_vecstats_combine",
            cfg((grid, 1), 256),
            args![mubits, cm, cs, c1, x.count, nch, sq, s1],
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

/// The guard's per-vector factors (`ozaki2::guard_factors`) as `(p, n1)` pairs at `out`.
fn guard_factors(
    dev: &Device,
    exps: u64,
    mubits: u64,
    s1: u64,
    count: usize,
    out: u64,
) -> Result<()> {
    let c = cfg((blocks(count, 256, 4096), 1), 256);
    // SAFETY: ozaki_guard_factors(const int* exps, const u64* mubits, const u64* s1, u64 count,
    // double* out): exps, mubits, s1 hold count entries, out 2·count doubles.
    unsafe {
        launch(
            dev,
            "ozaki_guard_factors",
            c,
            args![exps, mubits, s1, count, out],
        )
    }
}

/// `ozaki_residues_make` (`_wide` for the double-double scheme's integers beyond `2^64`)
/// over the padded `countp × lenp` range of `x`.
#[allow(clippy::too_many_arguments)]
fn residues(
    dev: &Device,
    x: Vecs,
    len: usize,
    (countp, lenp): (usize, usize),
    mubits: u64,
    exps: u64,
    nmod: usize,
    (mode, wide): (i32, bool),
    out: u64,
) -> Result<()> {
    let kernel = if wide {
        "ozaki_residues_make_wide"
    } else {
        "ozaki_residues_make"
    };
    let tiles = lenp.div_ceil(128) * countp.div_ceil(32);
    let grid = blocks(tiles, 1, dev.resident_blocks(&MODULE, kernel, 256)?);
    let c = cfg((grid, 1), 256);
    let slab = countp * lenp;
    // SAFETY: ozaki_residues_make{,_wide}(const double* x, u64 sv, u64 st, u64 count, u64 len,
    // u64 countp, u64 lenp, const u64* mubits, const int* exps, int nmod, int mode,
    // signed char* out, u64 slab), block 256, any grid: x as for vecmax, mubits and exps hold
    // count entries, out holds nmod slabs of countp·lenp bytes (1 slab in mode 1), lenp and
    // slab are multiples of 16.
    unsafe {
        launch(
            dev,
            kernel,
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
#[derive(Clone, Copy)]
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
    /// `C ← α·AB + β·C` with `C` in double-double (words at `hi`, `lo`), the guard's target
    /// `g·(|A||B|)_ij + tiny` (`ozaki2_dd`); `ab_lo`: the second words of double-double
    /// operands (same strides as the leading words).
    UpdateDd {
        alpha: f64,
        beta: f64,
        hi: u64,
        lo: u64,
        ldc: usize,
        g: f64,
        tiny: f64,
        ab_lo: Option<(u64, u64)>,
    },
    /// `C ← α·AB + β·C` with `C` in quad-double (words at `c`), the product exact before its
    /// rounding where rows and columns convert exactly (`ozaki2_qd`).
    UpdateQd {
        alpha: f64,
        beta: f64,
        c: [u64; 4],
        ldc: usize,
    },
}

/// `ozaki_exact_vecs`: `out[v]` = 1 when every element of vector `v` of `x` times
/// `2^exps[v]` is an integer (`ozaki2_qd::exact_vectors`).
fn exact_vecs(dev: &Device, x: Vecs, len: usize, exps: u64, out: u64) -> Result<()> {
    let threads = if x.st == 1 { 32 * x.count } else { x.count };
    let c = cfg((blocks(threads, 256, 65_535), 1), 256);
    // SAFETY: ozaki_exact_vecs(const double* x, u64 sv, u64 st, u64 count, u64 len,
    // const int* exps, int* flags), block 256, any grid: x addresses count vectors of len
    // elements (strides sv, st), exps and flags hold count ints.
    unsafe {
        launch(
            dev,
            "ozaki_exact_vecs",
            c,
            args![x.ptr, x.sv, x.st, x.count, len, exps, out],
        )
    }
}

fn crt_arg(crt: &Crt) -> Result<CrtArg> {
    let words = crt.w_words.len();
    if !(2..=MAX_WORDS).contains(&words) || crt.moduli.len() > KERNEL_MODULI.len() {
        return Err(Error::OutOfRange {
            what: "ozaki2 CRT words",
            got: words,
            min: 2,
            max: MAX_WORDS,
        });
    }
    let mut w = [[0.0; KERNEL_MODULI.len()]; MAX_WORDS];
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

/// Everything a scheme II call on the device decides before it enqueues anything: the
/// algorithm's plan (moduli, CRT constants, exponents; the same [`Ozaki2Plan`] the CPU path
/// uses) and the device layout (padded sizes, workspace sizes, column blocks of the products).
/// Made once per call by [`DevicePlan::new`]; the stages only read it.
struct DevicePlan {
    plan: Ozaki2Plan,
    m: usize,
    n: usize,
    /// `k` and `m` rounded up to 16: the INT8 tensor-core layout of the residues.
    kp: usize,
    mp: usize,
    accurate: bool,
    /// Whether the componentwise guard runs (update mode with [`OzakiGuard::Componentwise`]).
    guarded: bool,
    /// The double-double scheme (wide residues, up to 31 moduli, `ozaki_crt_update_dd`).
    dd: bool,
    /// Whether the double-double guard has its INT8 lower bound (`ozaki2_dd::GuardLower`):
    /// the floors of A and B (`(mp + n)·kp` bytes) and their product per column block.
    lower: bool,
    /// Whether `k` needs several INT32-exact INT8 GEMMs per product (folded modulo `m_l`).
    chunked: bool,
    res_a_bytes: usize,
    res_b_bytes: usize,
    chunk_bytes: usize,
    /// Columns per block of the INT32 products (all of `n` when they fit).
    nb: usize,
    /// The CRT constants as the reconstruction kernel's argument.
    crt: Arg,
}

impl DevicePlan {
    /// The plan of an `m × n × k` product (`k = plan.k`) on `dev`, whose workspace holds `held`
    /// bytes now. Fails before anything is enqueued.
    fn new(
        dev: &Device,
        held: usize,
        m: usize,
        n: usize,
        plan: Ozaki2Plan,
        (guarded, dd): (bool, bool),
    ) -> Result<DevicePlan> {
        let k = plan.k;
        let nmod = plan.crt.moduli.len();
        let max = if dd {
            KERNEL_MODULI.len()
        } else {
            F64_KERNEL_MODULI
        };
        if nmod > max || plan.crt.moduli[..] != KERNEL_MODULI[..nmod] {
            return Err(Error::OutOfRange {
                what: "ozaki2 moduli (kernel table out of date)",
                got: nmod,
                min: OZAKI2_MODULI.0,
                max,
            });
        }
        let accurate = plan.mode == Ozaki2Mode::Accurate;
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
        let chunk_bytes = if accurate && !guarded {
            0
        } else {
            chunk_record_bytes(m.max(n), k)
        };
        let lower = dd && guarded && k <= GUARD_LOWER_MAX_K;
        let floor_bytes = if lower { (mp + n) * kp } else { 0 };
        let fixed =
            res_a_bytes + res_b_bytes + acc_bytes + chunk_bytes + floor_bytes + 48 * (m + n) + 16;
        // The f64 scheme's flags of deferred entries (ozaki_crt_update's `pending`): one bit
        // per entry, in 32-bit words.
        let per_col =
            4 * mp * (nmod + usize::from(chunked) + usize::from(lower)) + 4 * m.div_ceil(32);
        let nb = plan_cols(dev, held, fixed, per_col, n)?;
        let crt = crt_arg(&plan.crt)?.arg();
        Ok(DevicePlan {
            plan,
            m,
            n,
            kp,
            mp,
            accurate,
            guarded,
            dd,
            lower,
            chunked,
            res_a_bytes,
            res_b_bytes,
            chunk_bytes,
            nb,
            crt,
        })
    }
}

/// Stages 1–7 of scheme II on the device, following `dp` (arguments already checked,
/// `m, n, k ≥ 1`).
///
/// Returns what the update recomputed ([`read_counts`]: entries by the guard, entries in
/// non-finite rows or columns, rows and columns with either; read back from the device, which
/// waits for the work; zeros for the product output).
fn ozaki2_device(
    dev: &Device,
    ws: &mut Workspace,
    blas: &Blas,
    (va, vb): (Vecs, Vecs),
    dp: &DevicePlan,
    out: Output,
) -> Result<[usize; 4]> {
    let DevicePlan {
        plan,
        m,
        n,
        kp,
        mp,
        accurate,
        guarded,
        dd,
        lower,
        chunked,
        res_a_bytes,
        res_b_bytes,
        chunk_bytes,
        nb,
        crt: crt_a,
    } = dp;
    let lower = *lower;
    let lo = match out {
        Output::UpdateDd { ab_lo, .. } => ab_lo,
        _ => None,
    };
    let (m, n, kp, mp, nb, k) = (*m, *n, *kp, *mp, *nb, plan.k);
    let (accurate, guarded, chunked, dd) = (*accurate, *guarded, *chunked, *dd);
    let (res_a_bytes, res_b_bytes, chunk_bytes) = (*res_a_bytes, *res_b_bytes, *chunk_bytes);
    let (crt, q) = (&plan.crt, plan.q);
    let nmod = crt.moduli.len();

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
        residues(dev, va, k, (mp, kp), mua, 0, 1, (1, false), ra)?;
        residues(dev, vb, k, (n, kp), mub, 0, 1, (1, false), rb)?;
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
    }
    // The fast mode's 2-norm bounds and the guard's 1-norm bounds (in accurate mode only for
    // the guard: one more read of A and B; the maxima come out the same).
    let s1a = ws.s1a.get(dev, 8 * m)?;
    let s1b = ws.s1b.get(dev, 8 * n)?;
    if !accurate || guarded {
        let sqa = ws.sqa.get(dev, 8 * m)?;
        let sqb = ws.sqb.get(dev, 8 * n)?;
        let chunks = ws.chunks.get(dev, chunk_bytes)?;
        vecstats(dev, va, k, mua, chunks, (sqa, s1a))?;
        vecstats(dev, vb, k, mub, chunks, (sqb, s1b))?;
        if let Some((alo, blo)) = lo {
            // A double-double vector with a non-finite second word is bad too.
            let bits = ws.lo_bits.get(dev, 8 * m.max(n))?;
            for (v, mu) in [
                (Vecs { ptr: alo, ..va }, mua),
                (Vecs { ptr: blo, ..vb }, mub),
            ] {
                vecmax(dev, v, k, bits)?;
                let c = cfg((blocks(v.count, 256, 4096), 1), 256);
                // SAFETY: ozaki_bad_merge(u64* mubits, const u64* lo_bits, u64 count), any
                // launch: mu and bits hold v.count u64 each.
                unsafe { launch(dev, "ozaki_bad_merge", c, args![mu, bits, v.count])? };
            }
        }
        if !accurate {
            exps_make(dev, mua, m, plan.x, 0, sqa, ea)?;
            exps_make(dev, mub, n, plan.x, 0, sqb, eb)?;
        }
    }
    let gfa = ws.gfa.get(dev, 16 * m)?;
    let gfb = ws.gfb.get(dev, 16 * n)?;
    if guarded {
        guard_factors(dev, ea, mua, s1a, m, gfa)?;
        guard_factors(dev, eb, mub, s1b, n, gfb)?;
    }
    prof.mark(dev, "exponents");

    let ra = ws.res_a.get(dev, res_a_bytes)?;
    let rb = ws.res_b.get(dev, res_b_bytes)?;
    residues(dev, va, k, (mp, kp), mua, ea, nmod, (0, dd), ra)?;
    residues(dev, vb, k, (n, kp), mub, eb, nmod, (0, dd), rb)?;
    if let Some((alo, blo)) = lo {
        residues(
            dev,
            Vecs { ptr: alo, ..va },
            k,
            (mp, kp),
            mua,
            ea,
            nmod,
            (3, true),
            ra,
        )?;
        residues(
            dev,
            Vecs { ptr: blo, ..vb },
            k,
            (n, kp),
            mub,
            eb,
            nmod,
            (3, true),
            rb,
        )?;
    }
    // The double-double guard's 6-bit floors (ozaki2::magnitude_floors).
    let (fa, fb) = if lower {
        let fa = ws.floor_a.get(dev, mp * kp)?;
        let fb = ws.floor_b.get(dev, n * kp)?;
        residues(dev, va, k, (mp, kp), mua, 0, 1, (2, false), fa)?;
        residues(dev, vb, k, (n, kp), mub, 0, 1, (2, false), fb)?;
        (fa, fb)
    } else {
        (0, 0)
    };
    let zlow = if lower {
        ws.zlow.get(dev, 4 * mp * nb)?
    } else {
        0
    };
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
    // ozaki_crt_update's (alpha, beta, c, ldc, mode, out_hi, out_lo); None for the
    // double-double update, which has its own kernel.
    let f64_out = match out {
        Output::Update {
            alpha,
            beta,
            c,
            ldc,
        } => Some((alpha, beta, c, ldc, 0i32, 0u64, 0u64)),
        Output::Product { hi, lo } => Some((1.0, 0.0, 0, m, 1, hi, lo)),
        Output::UpdateDd { .. } | Output::UpdateQd { .. } => None,
    };
    // ozaki_crt_update's flags for ozaki_guard_settle (mode 0).
    let ldw = m.div_ceil(32);
    let pending = if let Output::Update { .. } = out {
        ws.pending.get(dev, 4 * ldw * nb)?
    } else {
        0
    };
    // The quad-double scheme's flags of exactly converted rows and columns.
    let exact = if let Output::UpdateQd { .. } = out {
        let fa = ws.exact_a.get(dev, 4 * m)?;
        let fb = ws.exact_b.get(dev, 4 * n)?;
        exact_vecs(dev, va, k, ea, fa)?;
        exact_vecs(dev, vb, k, eb, fb)?;
        (fa, fb)
    } else {
        (0, 0)
    };
    let counts = zeroed_counts(dev, ws, (m, n))?;
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
        if lower {
            // SAFETY: fa holds mp rows of kp bytes, fb n columns of kp bytes (columns
            // j0..j0+nbt used), zlow mp·nb ints; exact in INT32 as 64²·kp < 2^31
            // (GUARD_LOWER_MAX_K).
            unsafe {
                gemm_i8_tn(
                    blas,
                    (mp, nbt, kp),
                    (fa, kp),
                    (fb + (j0 * kp) as u64, kp),
                    (zlow, mp),
                )?
            };
        }
        prof.mark(dev, "int8 gemms");
        let c2 = dev.grid_2d(m, nbt);
        if let Output::UpdateQd {
            alpha,
            beta,
            c,
            ldc,
        } = out
        {
            // SAFETY: ozaki_crt_update_qd(const int* prod, u64 ldp, u64 slab, u64 m, u64 nb,
            // u64 j0, OzCrt crt, const int* ea, const int* eb, const u64* mua, const u64* mub,
            // const int* exact_a, const int* exact_b, double alpha, double beta, double* c0,
            // double* c1, double* c2, double* c3, u64 ldc, const double* a, u64 asv, u64 ast,
            // const double* b, u64 bsv, u64 bst, u64 k, unsigned long long* counts), 2-D
            // launch: as ozaki_crt_update's mode 0 below, with each of C's four words holding
            // ldc·(n−1)+m doubles and the flags m and n ints.
            unsafe {
                launch(
                    dev,
                    "ozaki_crt_update_qd",
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
                        exact.0,
                        exact.1,
                        alpha,
                        beta,
                        c[0],
                        c[1],
                        c[2],
                        c[3],
                        ldc,
                        va.ptr,
                        va.sv,
                        va.st,
                        vb.ptr,
                        vb.sv,
                        vb.st,
                        k,
                        counts
                    ],
                )?
            };
        } else if let Output::UpdateDd {
            alpha,
            beta,
            hi,
            lo,
            ldc,
            g,
            tiny,
            ab_lo,
        } = out
        {
            let (a_lo, b_lo) = ab_lo.unwrap_or((0, 0));
            // SAFETY: ozaki_crt_update_dd(const int* prod, u64 ldp, u64 slab, u64 m, u64 nb,
            // u64 j0, OzCrt crt, const int* ea, const int* eb, const u64* mua, const u64* mub,
            // double alpha, double beta, double* c_hi, double* c_lo, u64 ldc, const double* a,
            // u64 asv, u64 ast, const double* b, u64 bsv, u64 bst, const double* a_lo,
            // const double* b_lo, u64 k, int guard, double g,
            // double tiny, const double* gfa, const double* gfb, const int* zlow, u64 ldz,
            // unsigned long long* counts), 2-D launch: as ozaki_crt_update's mode 0 below,
            // with both words of C holding ldc·(n−1)+m doubles, zlow null or mp·nbt ints
            // (leading dimension mp), a_lo and b_lo null or the second words of A and B.
            unsafe {
                launch(
                    dev,
                    "ozaki_crt_update_dd",
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
                        hi,
                        lo,
                        ldc,
                        va.ptr,
                        va.sv,
                        va.st,
                        vb.ptr,
                        vb.sv,
                        vb.st,
                        a_lo,
                        b_lo,
                        k,
                        i32::from(guarded),
                        g,
                        tiny,
                        gfa,
                        gfb,
                        zlow,
                        mp,
                        counts
                    ],
                )?
            };
        } else if let Some((alpha, beta, c, ldc, mode, hi, lo)) = f64_out {
            // ozaki_crt_update's arguments, ozaki_guard_settle's too.
            let crt_args = args![
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
                k,
                i32::from(guarded),
                gfa,
                gfb,
                pending,
                ldw,
                counts
            ];
            // SAFETY: ozaki_crt_update(const int* prod, u64 ldp, u64 slab, u64 m, u64 nb, u64 j0,
            // OzCrt crt, const int* ea, const int* eb, const u64* mua, const u64* mub,
            // double alpha, double beta, double* c, u64 ldc, int mode, double* out_hi,
            // double* out_lo, const double* a, u64 asv, u64 ast, const double* b, u64 bsv,
            // u64 bst, u64 k, int guard, const double* gfa, const double* gfb, unsigned*
            // pending, u64 ldw, unsigned long long* counts), 2-D launch (grid_2d_rows: block
            // 256, so every warp is whole): prod holds nmod slabs of slab = mp·nb ints with leading
            // dimension mp; ea, mua hold m entries, eb, mub n; gfa 2m doubles and gfb 2n
            // (guard_factors, read only when guarded); in mode 0 c holds ldc·(n−1)+m doubles and
            // pending ldw·nb words (ldw = ⌈m/32⌉); in mode 1 out_hi, out_lo hold m·n doubles.
            unsafe { launch(dev, "ozaki_crt_update", dev.grid_2d_rows(m, nbt), crt_args)? };
            if pending != 0 {
                let settle = cfg((blocks(ldw * nbt, 256, 4096), 1), 256);
                // SAFETY: ozaki_guard_settle takes ozaki_crt_update's parameters (above), any
                // launch: pending as ozaki_crt_update wrote it (ldw·nbt words), the products of
                // this column block still in place.
                unsafe { launch(dev, "ozaki_guard_settle", settle, crt_args)? };
            }
        }
        prof.mark(dev, "crt");
        j0 += nbt;
    }
    prof.report(&format!("ozaki2 {m}x{n}x{k} N={nmod} {:?}", plan.mode));
    if matches!(out, Output::Product { .. }) {
        Ok([0; 4])
    } else {
        read_counts(dev, counts, (m, n))
    }
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
) -> Result<Ozaki2Report> {
    let plan = Ozaki2Plan::new(a.cols(), params)?;
    update_call(
        dev,
        (alpha, beta),
        ((a, 0), b),
        &c,
        (plan, params, Scheme::F64),
        |up| Output::Update {
            alpha,
            beta,
            c: up.pc[0],
            ldc: up.ldc,
        },
    )
}

/// The scheme of an update call: DGEMM's (`f64` result), the double-double one, or the
/// quad-double one (whose exactness flags take the place of the componentwise guard).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scheme {
    F64,
    Dd,
    Qd,
}

/// The body [`ozaki2_gemm`], [`ozaki2_gemm_dd`] and [`ozaki2_gemm_qd`] share once they have
/// their plan: the report, the checks and quick returns of `prepare_update`, `A`'s rows read
/// from its word `a_word`, the output `out` makes from the checked update, the device stages of
/// `scheme`, the recomputed counts.
fn update_call<SA: DeviceScalar, SB: DeviceScalar, T: DeviceScalar>(
    dev: &Device,
    (alpha, beta): (f64, f64),
    ((a, a_word), b): ((DeviceMatRef<'_, SA>, usize), DeviceMatRef<'_, SB>),
    c: &DeviceMatMut<'_, T>,
    (plan, params, scheme): (Ozaki2Plan, &Ozaki2Params, Scheme),
    out: impl FnOnce(&Update) -> Output,
) -> Result<Ozaki2Report> {
    let mut report = Ozaki2Report::started(params);
    let a_word = a.word_addr(a_word);
    let Some(mut up) = prepare_update(dev, alpha, a, b, beta, c)? else {
        return Ok(report);
    };
    up.va.ptr = a_word;
    let out = out(&up);
    let (m, n, _) = up.dims;
    let guarded = params.guard == OzakiGuard::Componentwise && scheme != Scheme::Qd;
    let dd = scheme != Scheme::F64;
    let [by_guard, non_finite, rows, cols] = with_workspace(dev, |ws| {
        let dp = DevicePlan::new(dev, ws.held(), m, n, plan, (guarded, dd))?;
        ozaki2_device(dev, ws, &up.blas, (up.va, up.vb), &dp, out)
    })?;
    report.entries = m * n;
    report.guard_recomputed = by_guard;
    report.non_finite_recomputed = non_finite;
    (report.rows_recomputed, report.cols_recomputed) = (rows, cols);
    Ok(report)
}

/// `C ← α·A·B + β·C` with `A`, `B` in `f64` or double-double and `C` in double-double by
/// Ozaki scheme II with up to 31 moduli on INT8 tensor cores: the GPU twin of
/// [`crate::ozaki::ozaki2_gemm_dd`], bit for bit (same guarantee: each entry within
/// [`compensated_dot_gamma`]`(k)·(|A||B|)_ij` under the default guard; the entries it cannot
/// certify, and those of NaN/Inf rows and columns, recomputed on the device as compensated
/// double-double dot products; the report counts them). Pass
/// [`crate::ozaki::ozaki2_dd_params`] for the default 30 moduli. Views and BLAS conventions
/// as [`ozaki2_gemm`].
///
/// The work is that of [`ozaki2_gemm`] with `N` = 30: `N` INT8 GEMMs of `m × n × k`, and
/// `N(m+n)k` bytes of residues and `4N·m·nb` of products in the workspace.
///
/// # Errors
/// As [`ozaki2_gemm`], with the moduli range [`crate::ozaki::OZAKI2_DD_MODULI`].
pub fn ozaki2_gemm_dd<T: DeviceScalar + DdSchemeInput>(
    dev: &Device,
    alpha: f64,
    a: DeviceMatRef<'_, T>,
    b: DeviceMatRef<'_, T>,
    beta: f64,
    c: DeviceMatMut<'_, Dd>,
    params: &Ozaki2Params,
) -> Result<Ozaki2Report> {
    let plan = dd_plan::<T>(a.cols(), params)?;
    let ab_lo = (<T as DeviceScalar>::WORDS == 2).then(|| (a.word_addr(1), b.word_addr(1)));
    update_call(
        dev,
        (alpha, beta),
        ((a, 0), b),
        &c,
        (plan, params, Scheme::Dd),
        |up| {
            let k = up.dims.2;
            Output::UpdateDd {
                alpha,
                beta,
                hi: up.pc[0],
                lo: up.pc[1],
                ldc: up.ldc,
                g: compensated_dot_gamma(k),
                tiny: dd_guard_tiny(k),
                ab_lo,
            }
        },
    )
}

/// `C ← α·A·B + β·C` with `A`, `B` in `f64` and `C` in quad-double by Ozaki scheme II with 31
/// moduli on INT8 tensor cores, the product exact before its rounding wherever the rows and
/// columns convert exactly: the GPU twin of [`crate::ozaki::ozaki2_gemm_qd`], bit for bit (same
/// guarantee; the other entries, and those of NaN/Inf rows and columns, recomputed on the
/// device as quad-double sums of exact products; the report counts them). Views and BLAS
/// conventions as [`ozaki2_gemm`]. The work is that of [`ozaki2_gemm_dd`] with 31 moduli.
///
/// # Errors
/// As [`ozaki2_gemm`].
pub fn ozaki2_gemm_qd(
    dev: &Device,
    alpha: f64,
    a: DeviceMatRef<'_, f64>,
    b: DeviceMatRef<'_, f64>,
    beta: f64,
    c: DeviceMatMut<'_, Qd>,
) -> Result<Ozaki2Report> {
    ozaki2_gemm_qd_word(dev, alpha, (a, 0), b, beta, c)
}

/// [`ozaki2_gemm_qd`] with `A` word `word` of a multi-word matrix (the words of a quad-double
/// `A` one at a time, for `lapack::gpu::gesv_refined_qd`'s residuals).
pub(crate) fn ozaki2_gemm_qd_word<S: DeviceScalar>(
    dev: &Device,
    alpha: f64,
    (a, word): (DeviceMatRef<'_, S>, usize),
    b: DeviceMatRef<'_, f64>,
    beta: f64,
    c: DeviceMatMut<'_, Qd>,
) -> Result<Ozaki2Report> {
    if word >= S::WORDS {
        return Err(Error::OutOfRange {
            what: "word of a",
            got: word,
            min: 0,
            max: S::WORDS - 1,
        });
    }
    let plan = qd_plan(a.cols())?;
    update_call(
        dev,
        (alpha, beta),
        ((a, word), b),
        &c,
        (plan, &qd_params(), Scheme::Qd),
        |up| Output::UpdateQd {
            alpha,
            beta,
            c: up.pc,
            ldc: up.ldc,
        },
    )
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
) -> Result<Ozaki2Report> {
    let (a, b, c) = blas_views(transa, transb, (m, n, k), (a, lda), (b, ldb), (c, ldc))?;
    ozaki2_gemm(dev, alpha, a, b, beta, c, params)
}

/// `A·B` by scheme II as an `m × n` column-major double-double array: the GPU twin of
/// `crate::ozaki::ozaki2::product` (bit for bit, after the CPU's packing and zeroing of
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
    let plan = Ozaki2Plan::new(k, params)?;
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
        let dp = DevicePlan::new(dev, ws.held(), m, n, plan, (false, false))?;
        ozaki2_device(dev, ws, &blas, (va, vb), &dp, Output::Product { hi, lo })
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ozaki::OZAKI2_DD_MODULI;

    #[test]
    fn kernel_moduli_match_the_cpu() {
        assert_eq!(crate::ozaki::ozaki2::moduli(31), KERNEL_MODULI.to_vec());
        assert!(
            MODULE
                .source
                .contains(&format!("#define OZ_F64_MODULI {F64_KERNEL_MODULI}"))
        );
        assert!(
            MODULE
                .source
                .contains(&format!("#define OZ_MAX_MODULI {}", KERNEL_MODULI.len()))
        );
        assert!(
            MODULE
                .source
                .contains(&format!("#define OZ_MAX_WORDS {MAX_WORDS}"))
        );
        assert_eq!(OZAKI2_MODULI.1, F64_KERNEL_MODULI);
        assert_eq!(OZAKI2_DD_MODULI.1, KERNEL_MODULI.len());
        let src = MODULE.source;
        for (l, m) in KERNEL_MODULI.iter().enumerate() {
            assert!(src.contains(&format!("X({l}, {m})")), "modulus {l} = {m}");
        }
    }

    #[test]
    fn crt_words_fit_the_kernel() {
        for nmod in OZAKI2_MODULI.0..=OZAKI2_DD_MODULI.1 {
            let crt = Crt::within(nmod, OZAKI2_DD_MODULI).unwrap();
            let a = crt_arg(&crt).unwrap();
            assert_eq!(a.nmod as usize, nmod);
            assert!(a.words as usize <= MAX_WORDS);
        }
        // struct OzCrt: 186 + 6 + 1 doubles, then two ints in one word.
        let crt = Crt::new(16).unwrap();
        match crt_arg(&crt).unwrap().arg() {
            Arg::Struct(words) => {
                assert_eq!(words.len(), 186 + 6 + 1 + 1);
                assert_eq!(words[193], 16u64 << 32 | crt.w_words.len() as u64);
            }
            other => panic!("{other:?}"),
        }
    }
}
