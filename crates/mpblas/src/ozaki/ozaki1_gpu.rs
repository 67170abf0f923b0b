//! Scheme I on the GPU: the splits of [`crate::ozaki::split`] as kernels of `ozaki_gpu.cu`
//! (bit for bit the CPU's), the slice products by cuBLAS SGEMM or DGEMM, summed in the order
//! of [`crate::ozaki::ozaki1::terms`].

use super::ozaki_gpu::*;
use crate::cuda::{
    Device, DeviceMatMut, DeviceMatRef, DeviceVec, GemmType, ScratchBuffer, args, blocks,
};
use crate::error::{Error, Result};
use crate::ozaki::split;
use crate::ozaki::{
    self as cpu, Accumulate, Ozaki1Params, Ozaki1Report, OzakiGuard, Products, SliceGemm,
};
use crate::view::Trans;

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

/// `C ← α·A·B + β·C` by Ozaki scheme I on the GPU: the splits of
/// [`crate::ozaki::ozaki1_gemm`] (identical to the CPU's), slice products by cuBLAS SGEMM or
/// DGEMM (default math mode, no TF32), summed in the order of `crate::ozaki::ozaki1::terms`;
/// views as [`ozaki2_gemm`](super::gpu::ozaki2_gemm).
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
) -> Result<Ozaki1Report> {
    cpu::ozaki1::check_params(a.cols(), params)?;
    let mut report = Ozaki1Report {
        slices: params.slices,
        guard: params.guard,
        ..Ozaki1Report::default()
    };
    let Some(Update {
        blas,
        va,
        vb,
        dims: (m, n, k),
        pc,
        ldc,
        ..
    }) = prepare_update(dev, alpha, a, b, beta, &c)?
    else {
        return Ok(report);
    };
    let guarded = params.guard == OzakiGuard::Componentwise;
    let (k1, k2) = cpu::ozaki1::guard_coefficients(params, k);
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
        let counts = zeroed_counts(dev, ws, (m, n))?;
        // SAFETY: ozaki_term_finish(const double* acc_hi, const double* acc_lo, int dd, u64 m,
        // u64 n, double alpha, double beta, double* c, u64 ldc, const u64* mua,
        // const u64* mub, const double* a, u64 asv, u64 ast, const double* b, u64 bsv,
        // u64 bst, u64 k, int guard, double k1, double k2, unsigned long long* counts), 2-D
        // launch: accumulators m·n doubles, c ldc·(n−1)+m doubles, mua m, mub n, a and b the
        // user's operands (check_gemm_args), counts two u64.
        unsafe {
            launch(
                dev,
                "ozaki_term_finish",
                dev.grid_2d(m, n),
                args![
                    acc_hi,
                    acc_lo,
                    dd,
                    m,
                    n,
                    alpha,
                    beta,
                    pc[0],
                    ldc,
                    mua,
                    mub,
                    va.ptr,
                    va.sv,
                    va.st,
                    vb.ptr,
                    vb.sv,
                    vb.st,
                    k,
                    i32::from(guarded),
                    k1,
                    k2,
                    counts
                ],
            )?
        };
        let [by_guard, non_finite, rows, cols] = read_counts(dev, counts, (m, n))?;
        report.entries = m * n;
        report.guard_recomputed = by_guard;
        report.non_finite_recomputed = non_finite;
        (report.rows_recomputed, report.cols_recomputed) = (rows, cols);
        Ok(report)
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
) -> Result<Ozaki1Report> {
    let (a, b, c) = blas_views(transa, transb, (m, n, k), (a, lda), (b, ldb), (c, ldc))?;
    ozaki1_gemm(dev, alpha, a, b, beta, c, params)
}

/// The split stage alone, downloaded (the `unstable-internals` feature: stage-by-stage tests).
#[cfg(feature = "unstable-internals")]
pub(super) mod stage {
    use super::*;
    use crate::cuda::{check_len, download_raw};
    use crate::ozaki::split::{Scaled, Split};

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
    /// the GPU twin of [`split::split`], for stage-by-stage checks (`unstable-internals` only).
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
}
