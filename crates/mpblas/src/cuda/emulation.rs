//! cuBLAS's own FP64 emulation: DGEMM computed by cuBLAS with an Ozaki scheme on the INT8
//! tensor cores, as a comparison for [`crate::cuda::ozaki2_gemm`].
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
//! library lacks, so the emulation functions are looked up here, once per process, in the very
//! `libcublas` cudarc loaded (`cudarc::cublas::sys::culib`: same candidate names, same search
//! path). No library is [`Error::CudaLibraryMissing`]; a library without the functions (older
//! than 13.1) is [`Error::CudaFeatureMissing`].
//!
//! [`dgemm_emulated`] runs on a cuBLAS handle of its own, kept on the [`Device`] and bound to
//! its stream, so the handle the other routines share keeps its default math mode. Before each
//! call the handle gets math mode `CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH`, the strategy and the
//! mantissa control of the [`EmulationConfig`], and a workspace of ours sized by the docs'
//! bound (without one cuBLAS allocates its large workspace with `cudaMallocAsync` on every
//! call); the product is `cublasGemmEx` with compute type
//! `CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT`, the route of the docs' compute-type table and of
//! NVIDIA's emulation samples.

use super::cublas::dim;
use super::ozaki::dev_ptr;
use super::{Device, DeviceVec, cublas_present, driver_cause};
use crate::error::{Error, Result};
use crate::ozaki::Trans;
use cudarc::cublas::CudaBlas;
use cudarc::cublas::sys::{
    self, cublasComputeType_t, cublasGemmAlgo_t, cublasHandle_t, cublasMath_t, cublasOperation_t,
    cudaDataType,
};
use cudarc::driver::{CudaSlice, DriverError};
use std::ffi::{CStr, c_char, c_int, c_void};
use std::sync::{Arc, Mutex, OnceLock};

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

// ---- the functions cudarc does not bind ------------------------------------------------------

/// `cublasStatus_t f(cublasHandle_t, int)`: the emulation setters.
type SetIntFn = unsafe extern "C" fn(cublasHandle_t, c_int) -> RawStatus;
/// `cublasStatus_t f(cublasHandle_t, int*)`.
type IntPtrFn = unsafe extern "C" fn(cublasHandle_t, *mut c_int) -> RawStatus;
/// `const char* cublasGetStatusName(cublasStatus_t)`.
type StatusNameFn = unsafe extern "C" fn(RawStatus) -> *const c_char;
/// `cublasStatus_t` as the C `int` it is (0 = success), so that an unexpected value cannot be
/// an invalid Rust enum.
type RawStatus = c_int;

/// The emulation controls, all required.
struct Api {
    set_strategy: SetIntFn,
    set_mantissa_control: SetIntFn,
    set_max_mantissa_bits: SetIntFn,
    /// `cublasSetFixedPointEmulationMantissaBitCountPointer(handle, int* device_cell)`.
    set_bit_count_pointer: IntPtrFn,
}

/// `name` from the `libcublas` cudarc loaded, as a function pointer of type `F`.
///
/// # Safety
/// `F` must be the C prototype of `name` (an `unsafe extern "C" fn` with its parameter and
/// return types).
unsafe fn lookup<F: Copy>(name: &'static str) -> Result<F> {
    if !cublas_present() {
        return Err(Error::CudaLibraryMissing { library: "cublas" });
    }
    // SAFETY: culib() panics only when none of cudarc's candidate names loads, which
    // cublas_present() (the same candidates) has ruled out; it returns cudarc's own library,
    // loaded once per process and never unloaded, so the pointer below stays valid.
    let lib = unsafe { sys::culib() };
    // SAFETY: the caller's contract: `F` is the symbol's prototype.
    match unsafe { lib.get::<F>(name) } {
        Ok(f) => Ok(*f),
        Err(e) => Err(Error::CudaFeatureMissing {
            what: format!(
                "libcublas has no {name} (cuBLAS FP64 emulation needs the cuBLAS of CUDA 13.0 \
                 Update 2 or newer): {e}"
            ),
        }),
    }
}

/// The emulation controls, looked up once per process.
fn api() -> Result<&'static Api> {
    static API: OnceLock<Result<Api>> = OnceLock::new();
    API.get_or_init(|| {
        // SAFETY: each type is the prototype in cublas_api.h of cuBLAS 13.1 (enums are C ints).
        unsafe {
            Ok(Api {
                set_strategy: lookup::<SetIntFn>("cublasSetEmulationStrategy")?,
                set_mantissa_control: lookup::<SetIntFn>(
                    "cublasSetFixedPointEmulationMantissaControl",
                )?,
                set_max_mantissa_bits: lookup::<SetIntFn>(
                    "cublasSetFixedPointEmulationMaxMantissaBitCount",
                )?,
                set_bit_count_pointer: lookup::<IntPtrFn>(
                    "cublasSetFixedPointEmulationMantissaBitCountPointer",
                )?,
            })
        }
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// The status as text: its name from `cublasGetStatusName` when available, and its number.
fn status_text(s: RawStatus) -> String {
    static NAME: OnceLock<Option<StatusNameFn>> = OnceLock::new();
    // SAFETY: `StatusNameFn` is the prototype of cublasGetStatusName.
    let f = *NAME.get_or_init(|| unsafe { lookup::<StatusNameFn>("cublasGetStatusName") }.ok());
    // SAFETY: cublasGetStatusName returns null or a static NUL-terminated string for any value.
    let p = f.map_or(std::ptr::null(), |f| unsafe { f(s) });
    if p.is_null() {
        format!("cuBLAS status {s}")
    } else {
        // SAFETY: non-null, NUL-terminated and static (above).
        let name = unsafe { CStr::from_ptr(p) }.to_string_lossy();
        format!("{name} ({s})")
    }
}

/// [`Error::CudaLaunch`] naming `op` unless `s` is `CUBLAS_STATUS_SUCCESS`.
fn check(op: &'static str, s: RawStatus) -> Result<()> {
    if s == 0 {
        Ok(())
    } else {
        Err(Error::CudaLaunch {
            kernel: op,
            cause: status_text(s),
        })
    }
}

/// The version `cublasGetVersion_v2` reports (`major·10000 + minor·100 + patch`).
fn version_number() -> Result<i32> {
    static GET: OnceLock<Result<IntPtrFn>> = OnceLock::new();
    // SAFETY: `IntPtrFn` is the prototype of cublasGetVersion_v2.
    let get = GET
        .get_or_init(|| unsafe { lookup::<IntPtrFn>("cublasGetVersion_v2") })
        .clone()?;
    let mut v = 0;
    // SAFETY: the docs allow a null handle here (2.4.3); one int is written to a live local.
    check("cublasGetVersion", unsafe {
        get(std::ptr::null_mut(), &mut v)
    })?;
    Ok(v)
}

// ---- the emulation handle ----------------------------------------------------------------------

/// The per-device state of [`dgemm_emulated`].
struct Emu {
    /// Declared first so that it is dropped first: cublasDestroy waits for the device, so the
    /// buffers below are idle when they are freed.
    blas: CudaBlas,
    /// Device cell registered with `cublasSetFixedPointEmulationMantissaBitCountPointer`.
    bits: CudaSlice<i32>,
    /// The workspace given to cuBLAS, grown on demand.
    workspace: Option<CudaSlice<u8>>,
}

fn driver(op: &'static str) -> impl Fn(DriverError) -> Error {
    move |e| Error::CudaDriver {
        op,
        cause: driver_cause(&e),
    }
}

/// Sets the bit-count cell to −1 (enqueued): cuBLAS overwrites it only when it emulates.
fn preset_bits(dev: &Device, bits: &CudaSlice<i32>) -> Result<()> {
    // SAFETY: `bits` is a live 4-byte allocation of this device, used only on this stream.
    unsafe {
        cudarc::driver::result::memset_d8_async(
            dev_ptr(dev, bits),
            0xff,
            4,
            dev.stream().cu_stream(),
        )
    }
    .map_err(driver("memset"))
}

fn state(dev: &Device, api: &Api) -> Result<Arc<Mutex<Emu>>> {
    dev.cached("cublas_emulation", || {
        let blas = CudaBlas::new(dev.stream().clone()).map_err(|e| Error::CudaLaunch {
            kernel: "cublasCreate",
            cause: format!("{e:?}"),
        })?;
        let bits = dev
            .stream()
            .alloc_zeros::<i32>(1)
            .map_err(driver("allocation"))?;
        preset_bits(dev, &bits)?;
        // SAFETY: the handle is live; the cell is a device int of this context that outlives
        // every use of the handle (field order of `Emu`).
        check(
            "cublasSetFixedPointEmulationMantissaBitCountPointer",
            unsafe {
                (api.set_bit_count_pointer)(*blas.handle(), dev_ptr(dev, &bits) as *mut c_int)
            },
        )?;
        Ok(Mutex::new(Emu {
            blas,
            bits,
            workspace: None,
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

impl Emu {
    /// A 256-byte aligned device address with at least `bytes` bytes behind it.
    fn workspace_at(&mut self, dev: &Device, bytes: usize) -> Result<u64> {
        let need = bytes.saturating_add(WORKSPACE_ALIGN);
        if self.workspace.as_ref().is_none_or(|w| w.len() < need) {
            // Free the old buffer first, so that both need not fit at once.
            self.workspace = None;
            // SAFETY: uninitialised device memory is fine for cuBLAS's scratch space.
            let w = unsafe { dev.stream().alloc::<u8>(need) }.map_err(|e| match e.0 {
                cudarc::driver::sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => Error::CudaOutOfMemory {
                    ordinal: dev.ordinal(),
                    bytes: need,
                },
                _ => driver("allocation")(e),
            })?;
            self.workspace = Some(w);
        }
        match &self.workspace {
            Some(w) => Ok(dev_ptr(dev, w).next_multiple_of(WORKSPACE_ALIGN as u64)),
            None => Err(Error::CudaOutOfMemory {
                ordinal: dev.ordinal(),
                bytes: need,
            }),
        }
    }
}

// ---- public functions ----------------------------------------------------------------------------

/// `C ← α·op(A)·op(B) + β·C` by cuBLAS's FP64 emulation (fixed-point Ozaki scheme on INT8
/// tensor cores), configured by `cfg`; arguments, checks and conventions as
/// [`crate::cuda::dgemm`] (column-major, BLAS argument order, `m = 0` or `n = 0`
/// returns at once). Enqueued on the device's stream.
///
/// Whether cuBLAS really emulated (it runs native DGEMM when dynamic control needs more bits
/// than its maximum, or under a non-eager strategy) can be read back with
/// [`last_mantissa_bits`].
///
/// # Errors
/// [`Error::OutOfRange`] for `cfg.mantissa_bits` outside [`EMULATION_MANTISSA_BITS`] or a
/// dimension beyond `i32`; [`Error::LeadingDim`], [`Error::ArrayTooShort`],
/// [`Error::DeviceMismatch`] as [`crate::cuda::dgemm`]; [`Error::CudaLibraryMissing`]
/// without cuBLAS; [`Error::CudaFeatureMissing`] when cuBLAS has no FP64 emulation (before
/// 13.1); [`Error::CudaOutOfMemory`] if the workspace does not fit; [`Error::CudaLaunch`] if a
/// cuBLAS call fails (the status name is in the cause).
#[allow(clippy::too_many_arguments)]
pub fn dgemm_emulated(
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
    cfg: &EmulationConfig,
) -> Result<()> {
    cfg.check()?;
    super::ozaki::check_gemm_call(dev, transa, transb, m, n, k, a, lda, b, ldb, c, ldc)?;
    if m == 0 || n == 0 {
        return Ok(());
    }
    let api = api()?;
    let dims = [
        dim("m", m)?,
        dim("n", n)?,
        dim("k", k)?,
        dim("lda", lda)?,
        dim("ldb", ldb)?,
        dim("ldc", ldc)?,
    ];
    // cuBLAS and the raw driver calls below use the calling thread's current context.
    dev.stream()
        .context()
        .bind_to_thread()
        .map_err(driver("context"))?;
    let state = state(dev, api)?;
    let mut emu = state.lock().unwrap_or_else(|e| e.into_inner());
    let h = *emu.blas.handle();
    // SAFETY: `h` is a live handle; the call only stores a setting in it (as the three below).
    check("cublasSetMathMode", unsafe {
        sys::cublasSetMathMode(h, cublasMath_t::CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH) as c_int
    })?;
    // SAFETY: as above.
    check("cublasSetEmulationStrategy", unsafe {
        (api.set_strategy)(h, cfg.strategy.raw())
    })?;
    // Dynamic control gets the documented default maximum (79 bits, as NVIDIA's dynamic
    // sample sets it) explicitly, so that a fixed count of an earlier call does not cap it.
    let (control, max_bits) = match cfg.mantissa_bits {
        None => (MANTISSA_DYNAMIC, DYNAMIC_MAX_BITS as c_int),
        Some(b) => (MANTISSA_FIXED, b as c_int),
    };
    // SAFETY: as above.
    check("cublasSetFixedPointEmulationMantissaControl", unsafe {
        (api.set_mantissa_control)(h, control)
    })?;
    // SAFETY: as above.
    check("cublasSetFixedPointEmulationMaxMantissaBitCount", unsafe {
        (api.set_max_mantissa_bits)(h, max_bits)
    })?;
    let bytes = workspace_bytes(m, n, k, cfg);
    let ws = emu.workspace_at(dev, bytes)?;
    // SAFETY: `ws` is 256-byte aligned with `bytes` bytes of a live allocation of this device
    // behind it, owned by `emu` (so it outlives the handle's use of it) and used only on this
    // stream.
    check("cublasSetWorkspace", unsafe {
        sys::cublasSetWorkspace_v2(h, ws as *mut c_void, bytes) as c_int
    })?;
    preset_bits(dev, &emu.bits)?;
    let op = |t| match t {
        Trans::No => cublasOperation_t::CUBLAS_OP_N,
        Trans::Yes => cublasOperation_t::CUBLAS_OP_T,
    };
    let pa = dev_ptr(dev, &a.words()[0]);
    let pb = dev_ptr(dev, &b.words()[0]);
    let pc = dev_ptr(dev, &c.words_mut()[0]);
    let [dm, dn, dk, dlda, dldb, dldc] = dims;
    let r64 = cudaDataType::CUDA_R_64F;
    // SAFETY: check_gemm_args proved that a, b and c hold the matrices their dimensions and
    // leading dimensions describe, all on this device (check_devices); c is a distinct
    // allocation (`&mut`); alpha and beta are host `f64`s (the handle's default pointer mode
    // is host; the scale type of this compute type is `f64`); the dimensions fit `int`.
    let s = unsafe {
        sys::cublasGemmEx(
            h,
            op(transa),
            op(transb),
            dm,
            dn,
            dk,
            &alpha as *const f64 as *const c_void,
            pa as *const c_void,
            r64,
            dlda,
            pb as *const c_void,
            r64,
            dldb,
            &beta as *const f64 as *const c_void,
            pc as *mut c_void,
            r64,
            dldc,
            cublasComputeType_t::CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT,
            cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
        )
    };
    check("cublasGemmEx (FP64 emulation)", s as c_int)
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
    let state = state(dev, api()?)?;
    let emu = state.lock().unwrap_or_else(|e| e.into_inner());
    let mut v = [0i32];
    dev.stream()
        .memcpy_dtoh(&emu.bits, &mut v[..])
        .map_err(driver("download"))?;
    dev.synchronize()?;
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
    let v = version_number()?;
    let cublas_version = (v / 10_000, (v / 100) % 100, v % 100);
    let unavailable = match api() {
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
        assert_eq!(
            cublasComputeType_t::CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT as u32,
            79
        );
        assert_eq!(cublasMath_t::CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH as u32, 8);
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
        match api() {
            Ok(_) => assert!(cublas_present()),
            Err(Error::CudaLibraryMissing { library: "cublas" }) => assert!(!cublas_present()),
            Err(Error::CudaFeatureMissing { what }) => assert!(what.contains("libcublas has no")),
            Err(e) => panic!("unexpected {e:?}"),
        }
        assert!(version_number().is_ok() || !cublas_present());
        assert!(status_text(7).contains('7'));
    }
}
