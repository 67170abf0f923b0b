//! cuBLAS's own FP64 emulation: DGEMM computed by cuBLAS with an Ozaki scheme on the INT8
//! tensor cores, as a comparison for mpblas's Ozaki-II GEMM.
//!
//! Since CUDA 13.0 Update 2 (cuBLAS 13.1) cuBLAS can emulate double-precision GEMM in fixed
//! point: each row of A and column of B gets a shared power-of-two scale, the scaled mantissas
//! are cut into 8-bit slices (`⌈(bits + 1)/8⌉` slices for `bits` retained mantissa bits), the
//! slice products run as INT8 GEMMs with exact INT32 accumulation, and the weighted partial
//! products are summed in `f64` (Ozaki scheme I with integer slices). With *dynamic* mantissa
//! control cuBLAS picks the bit count at run time so that the result is at least as accurate as
//! native FP64, and runs native DGEMM when that would need more than its maximum (79 bits by
//! default); with *fixed* control it keeps the bits it is given, with no accuracy promise.
//!
//! Source: the cuBLAS documentation, section 1.5 "Floating Point Emulation" (algorithm,
//! supported architectures, defaults, workspace bound) and section 2.4 (the
//! `cublasSetEmulationStrategy` … `cublasSetFixedPointEmulation*` helpers),
//! <https://docs.nvidia.com/cuda/cublas/index.html#floating-point-emulation>; the prototypes and
//! enum values were read from the cuBLAS 13.1.0.3 headers.
//!
//! # How it is reached
//!
//! cudarc 0.19 does not bind the fixed-point controls, and its bindings panic on a symbol the
//! library lacks, so the driver layer (`sys.rs`) looks the emulation functions up, once per
//! process, in the very `libcublas` cudarc loaded (same candidate names, same search path). No
//! library is [`Error::CudaLibraryMissing`]; a library without the functions (older than 13.1)
//! is [`Error::CudaFeatureMissing`].
//!
//! [`dgemm_emulated`] runs on a cuBLAS handle of its own, kept on the [`Device`] and bound to
//! its stream, so the handle the other routines share keeps its default math mode. Before each
//! call the handle gets math mode `CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH`, the strategy and the
//! mantissa control of the [`EmulationConfig`], and a workspace of ours sized by the docs'
//! bound (without one cuBLAS allocates its large workspace with `cudaMallocAsync` on every
//! call); the product is `cublasGemmEx` with compute type
//! `CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT`, the route of the docs' compute-type table and of
//! NVIDIA's emulation samples.

use super::blas::cublas_gemm;
use super::device::Device;
use super::memory::{DeviceBuffer, ScratchBuffer, memset};
use super::sys::{self, GemmType};
use super::view::{DeviceMatMut, DeviceMatRef};
use crate::error::{Error, Result};
use std::ffi::c_int;
use std::sync::Mutex;

/// Smallest and largest fixed mantissa bit count [`dgemm_emulated`] accepts. cuBLAS does not
/// document its own range; 79 bits (10 slices) is its default ceiling under dynamic control.
pub const EMULATION_MANTISSA_BITS: (u32, u32) = (1, 79);

/// The most bits dynamic control may choose before cuBLAS runs native DGEMM (the documented
/// default maximum, set explicitly on every dynamic call and used to size the workspace).
const DYNAMIC_MAX_BITS: usize = 79;

/// `cudaEmulationMantissaControl` values.
const MANTISSA_DYNAMIC: c_int = 0;
const MANTISSA_FIXED: c_int = 1;

/// `cublasSetWorkspace` rejects addresses that are not multiples of this.
const WORKSPACE_ALIGN: usize = 256;

/// When cuBLAS may use the emulation (`cublasEmulationStrategy_t`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EmulationStrategy {
    /// Whenever possible (`CUBLAS_EMULATION_STRATEGY_EAGER`). The default here, so that a
    /// comparison measures the emulation rather than cuBLAS's choice.
    #[default]
    Eager,
    /// Only where cuBLAS expects a speed-up (`CUBLAS_EMULATION_STRATEGY_PERFORMANT`); it may run
    /// native DGEMM without saying so.
    Performant,
    /// cuBLAS's default (`CUBLAS_EMULATION_STRATEGY_DEFAULT`): performant, unless the
    /// environment variable `CUBLAS_EMULATION_STRATEGY` says otherwise.
    Library,
}

impl EmulationStrategy {
    fn raw(self) -> c_int {
        match self {
            EmulationStrategy::Library => 0,
            EmulationStrategy::Performant => 1,
            EmulationStrategy::Eager => 2,
        }
    }
}

/// How [`dgemm_emulated`] asks cuBLAS to emulate. The default is dynamic mantissa control
/// (FP64 accuracy or better, cuBLAS's promise) with the eager strategy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct EmulationConfig {
    /// `None`: dynamic mantissa control, cuBLAS chooses the bits for "the same or better
    /// accuracy" than FP64 (or runs native DGEMM). `Some(b)`: fixed control keeping `b`
    /// mantissa bits (`⌈(b + 1)/8⌉` INT8 slices), `b` in [`EMULATION_MANTISSA_BITS`]; no
    /// accuracy promise.
    pub mantissa_bits: Option<u32>,
    /// When cuBLAS may emulate.
    pub strategy: EmulationStrategy,
}

impl EmulationConfig {
    /// Fixed mantissa control with `bits` bits, eager strategy.
    pub fn fixed(bits: u32) -> Self {
        EmulationConfig {
            mantissa_bits: Some(bits),
            strategy: EmulationStrategy::Eager,
        }
    }

    /// [`Error::OutOfRange`] for a fixed bit count outside [`EMULATION_MANTISSA_BITS`].
    fn check(&self) -> Result<()> {
        let (lo, hi) = EMULATION_MANTISSA_BITS;
        match self.mantissa_bits {
            Some(b) if !(lo..=hi).contains(&b) => Err(Error::OutOfRange {
                what: "emulation mantissa bits",
                got: b as usize,
                min: lo as usize,
                max: hi as usize,
            }),
            _ => Ok(()),
        }
    }
}

// ---- the emulation handle ----------------------------------------------------------------------

/// The per-device state of [`dgemm_emulated`].
struct Emu {
    /// Declared first so that it is dropped first: cublasDestroy waits for the device, so the
    /// buffers below are idle when they are freed.
    blas: sys::Blas,
    /// Device cell registered with `cublasSetFixedPointEmulationMantissaBitCountPointer`.
    bits: DeviceBuffer<i32>,
    /// The workspace given to cuBLAS, grown on demand.
    workspace: ScratchBuffer,
}

fn state(dev: &Device) -> Result<std::sync::Arc<Mutex<Emu>>> {
    sys::fp64_emulation_present()?;
    dev.cached("cublas", "fp64-emulation", 0, || {
        Ok(Mutex::new(Emu {
            blas: dev.sys().blas()?,
            bits: DeviceBuffer::zeros(dev, 1)?,
            workspace: ScratchBuffer::default(),
        }))
    })
}

/// The cuBLAS docs' safe upper bound on the fixed-point workspace (1.5.2.4, "Fixed-Point
/// Workspace Requirements") for one real GEMM: the INT8 slices of A and B on padded shapes,
/// the INT32 accumulators of every split-k part, and for dynamic control the run-time
/// precision analysis, times 1.25, plus 128 MiB.
fn workspace_bytes(m: usize, n: usize, k: usize, cfg: &EmulationConfig) -> usize {
    let bits = cfg.mantissa_bits.map_or(DYNAMIC_MAX_BITS, |b| b as usize);
    let slices = (bits + 1).div_ceil(8);
    let pad = |x: usize, q: usize| x.div_ceil(q).saturating_mul(q);
    let (pm, pn, pk) = (pad(m, 1024), pad(n, 1024), pad(k, 128));
    let operands = pm
        .saturating_add(pn)
        .saturating_mul(pk)
        .saturating_mul(slices)
        .saturating_add(pm.saturating_add(pn).saturating_mul(4));
    let accumulators = pm
        .saturating_mul(pn)
        .saturating_mul(4 * slices)
        .min(1 << 32)
        .saturating_mul(k.div_ceil(8192));
    let analysis = if cfg.mantissa_bits.is_none() {
        let kb = k.div_ceil(64);
        m.saturating_mul(kb)
            .saturating_add(n.saturating_mul(kb))
            .saturating_add(m.saturating_mul(n))
            .saturating_mul(4)
    } else {
        0
    };
    let most = operands.saturating_add(accumulators).max(analysis);
    (most / 4).saturating_mul(5).saturating_add(128 << 20)
}

// ---- public functions ----------------------------------------------------------------------------

/// `C ← α·A·B + β·C` by cuBLAS's FP64 emulation (fixed-point Ozaki scheme on INT8 tensor
/// cores), configured by `cfg`; views, checks and conventions as [`crate::cuda::dgemm`].
/// Enqueued on the device's stream.
///
/// Whether cuBLAS really emulated (it runs native DGEMM when dynamic control needs more bits
/// than its maximum, or under a non-eager strategy) can be read back with
/// [`last_mantissa_bits`].
///
/// # Errors
/// [`Error::OutOfRange`] for `cfg.mantissa_bits` outside [`EMULATION_MANTISSA_BITS`] or a
/// dimension beyond `i32`; [`Error::DeviceMismatch`], [`Error::LengthMismatch`],
/// [`Error::InvalidView`] as [`crate::cuda::dgemm`]; [`Error::CudaLibraryMissing`]
/// without cuBLAS; [`Error::CudaFeatureMissing`] when cuBLAS has no FP64 emulation (before
/// 13.1); [`Error::CudaOutOfMemory`] if the workspace does not fit; [`Error::CudaLaunch`] if a
/// cuBLAS call fails (the status name is in the cause).
pub fn dgemm_emulated(
    dev: &Device,
    alpha: f64,
    a: DeviceMatRef<'_, f64>,
    b: DeviceMatRef<'_, f64>,
    beta: f64,
    c: DeviceMatMut<'_, f64>,
    cfg: &EmulationConfig,
) -> Result<()> {
    cfg.check()?;
    let Some(g) = cublas_gemm(dev, a, b, &c)? else {
        return Ok(());
    };
    let (m, n, k) = g.dims;
    let state = state(dev)?;
    let mut emu = state.lock().unwrap_or_else(|e| e.into_inner());
    // Dynamic control gets the documented default maximum (79 bits, as NVIDIA's dynamic
    // sample sets it) explicitly, so that a fixed count of an earlier call does not cap it.
    let (control, max_bits) = match cfg.mantissa_bits {
        None => (MANTISSA_DYNAMIC, DYNAMIC_MAX_BITS as c_int),
        Some(b) => (MANTISSA_FIXED, b as c_int),
    };
    let bytes = workspace_bytes(m, n, k, cfg);
    // A workspace of our own, 256-byte aligned (without one cuBLAS allocates its large
    // workspace on every call).
    let ws = emu
        .workspace
        .get(dev, bytes.saturating_add(WORKSPACE_ALIGN))?
        .next_multiple_of(WORKSPACE_ALIGN as u64);
    let cell = emu.bits.addr();
    // SAFETY: `ws` has `bytes` bytes of a live allocation of this device behind it and `cell`
    // is a device int, both owned by `emu` (so they outlive the handle's use of them: the
    // handle is dropped first) and used only on this stream.
    unsafe {
        emu.blas
            .set_fp64_emulation(cfg.strategy.raw(), control, max_bits, (ws, bytes), cell)?;
        // −1 in the cell: cuBLAS overwrites it only when it emulates.
        memset(dev, cell, 0xff, 4)?;
    }
    // SAFETY: the views were checked against their vectors, all on this device; C is a
    // distinct allocation (`&mut`); cuBLAS's forms come from the views.
    unsafe {
        emu.blas.gemm_ex(
            GemmType::F64Emulated,
            g.a.0,
            g.b.0,
            g.dims,
            alpha,
            (g.a.1, g.a.2),
            (g.b.1, g.b.2),
            beta,
            g.c,
        )
    }
}

/// The mantissa bits cuBLAS kept in the last [`dgemm_emulated`] on `dev`, or `None` when that
/// call ran native DGEMM (or none has run). Waits for the device.
///
/// cuBLAS writes the count to the device cell registered with
/// `cublasSetFixedPointEmulationMantissaBitCountPointer`; the cell is set to −1 before each
/// call, so −1 afterwards means no emulated kernel wrote it. The docs name the setter but not
/// this contract: treat the answer as a diagnostic, not a guarantee.
///
/// # Errors
/// Those of [`dgemm_emulated`]'s set-up; [`Error::CudaDriver`] if the read fails.
pub fn last_mantissa_bits(dev: &Device) -> Result<Option<u32>> {
    let state = state(dev)?;
    let emu = state.lock().unwrap_or_else(|e| e.into_inner());
    let v = emu.bits.to_vec()?;
    Ok(u32::try_from(v[0]).ok().filter(|&b| b > 0))
}

/// Whether cuBLAS can emulate FP64 GEMM on a device (for `mpblas info`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmulationInfo {
    /// cuBLAS's version `(major, minor, patch)` from `cublasGetVersion_v2`.
    pub cublas_version: (i32, i32, i32),
    /// `None` when every emulation function was found and the device's architecture is one
    /// the cuBLAS docs list for FP64 emulation; otherwise why not.
    pub unavailable: Option<String>,
}

impl EmulationInfo {
    /// True when [`EmulationInfo::unavailable`] is `None`.
    pub fn available(&self) -> bool {
        self.unavailable.is_none()
    }
}

impl std::fmt::Display for EmulationInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (a, b, c) = self.cublas_version;
        match &self.unavailable {
            None => write!(f, "available (cuBLAS {a}.{b}.{c})"),
            Some(why) => write!(f, "not available: {why} (cuBLAS {a}.{b}.{c})"),
        }
    }
}

/// cuBLAS's version and whether it can emulate FP64 GEMM on `dev`. Creates no handle.
///
/// # Errors
/// [`Error::CudaLibraryMissing`] without cuBLAS; [`Error::CudaFeatureMissing`] or
/// [`Error::CudaLaunch`] if its version cannot be read.
pub fn emulation_info(dev: &Device) -> Result<EmulationInfo> {
    let v = sys::cublas_version_number()?;
    let cublas_version = (v / 10_000, (v / 100) % 100, v % 100);
    let unavailable = match sys::fp64_emulation_present() {
        Ok(_) => {
            // "Fixed-Point | FP64 | 8.x, 9.0, 10.0, 11.0, 12.x" (docs 1.5, support table).
            let cc = dev.info().compute_capability;
            let listed = matches!(cc, (8, _) | (9, 0) | (10, 0) | (11, 0) | (12, _));
            (!listed).then(|| {
                format!(
                    "compute capability {}.{} is not among those cuBLAS lists for FP64 \
                     emulation (8.x, 9.0, 10.0, 11.0, 12.x)",
                    cc.0, cc.1
                )
            })
        }
        Err(Error::CudaFeatureMissing { what }) => Some(what),
        Err(e) => return Err(e),
    };
    Ok(EmulationInfo {
        cublas_version,
        unavailable,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_range_is_checked() {
        assert_eq!(EmulationConfig::default().check(), Ok(()));
        assert_eq!(
            EmulationConfig::default().strategy,
            EmulationStrategy::Eager
        );
        for b in [1, 55, 79] {
            assert_eq!(EmulationConfig::fixed(b).check(), Ok(()));
        }
        for b in [0, 80, u32::MAX] {
            assert!(matches!(
                EmulationConfig::fixed(b).check(),
                Err(Error::OutOfRange {
                    min: 1,
                    max: 79,
                    ..
                })
            ));
        }
    }

    #[test]
    fn strategy_values_match_the_header() {
        assert_eq!(EmulationStrategy::Library.raw(), 0);
        assert_eq!(EmulationStrategy::Performant.raw(), 1);
        assert_eq!(EmulationStrategy::Eager.raw(), 2);
    }

    #[test]
    fn workspace_bound_follows_the_docs() {
        let mib = 128 << 20;
        // Fixed 55 bits = 7 slices; 1000 × 1000 × 1000 pads to 1024 × 1024 × 1024:
        // operands 2·1024²·7 + 4·2048, accumulators 4·1024²·7, one split-k part.
        let ops = 2 * 1024 * 1024 * 7 + 4 * 2048;
        let acc = 4 * 1024 * 1024 * 7;
        let fixed = EmulationConfig::fixed(55);
        assert_eq!(
            workspace_bytes(1000, 1000, 1000, &fixed),
            (ops + acc) / 4 * 5 + mib
        );
        // Dynamic: 79 bits = 10 slices; the run-time analysis is smaller here.
        let dynamic = EmulationConfig::default();
        let ops = 2 * 1024 * 1024 * 10 + 4 * 2048;
        let acc = 4 * 1024 * 1024 * 10;
        assert_eq!(
            workspace_bytes(1000, 1000, 1000, &dynamic),
            (ops + acc) / 4 * 5 + mib
        );
        // n = 16384: the accumulators cap at 4 GiB per split-k part, two parts.
        let big = workspace_bytes(16384, 16384, 16384, &dynamic);
        let want = 2 * 16384 * 16384 * 10 + 4 * 32768 + (2usize << 32);
        assert_eq!(big, want / 4 * 5 + mib);
        // Huge sizes saturate instead of overflowing.
        assert!(workspace_bytes(usize::MAX, usize::MAX, usize::MAX, &dynamic) > 0);
    }

    #[test]
    fn lookup_is_an_error_not_a_panic() {
        // Without libcublas (the usual build machine) every lookup is an error; with it,
        // the emulation symbols exist or their absence is a CudaFeatureMissing.
        let present = sys::cublas_present();
        match sys::fp64_emulation_present() {
            Ok(()) => assert!(present),
            Err(Error::CudaLibraryMissing { library: "cublas" }) => assert!(!present),
            Err(Error::CudaNotBuilt) => assert!(!present),
            Err(Error::CudaFeatureMissing { what }) => assert!(what.contains("libcublas has no")),
            Err(e) => panic!("unexpected {e:?}"),
        }
        assert!(sys::cublas_version_number().is_ok() || !present);
    }
}
