//! The CUDA backend: devices, device arrays and element-wise kernels that return the same bits
//! as the CPU.
//!
//! CUDA is loaded at run time (the driver, NVRTC, and cuBLAS when a routine needs it), so this
//! module builds without any CUDA toolkit; without a driver or GPU every entry point returns an
//! [`Error`] and never panics.
//!
//! ```no_run
//! use mpblas::{Dd, cuda::{self, Device}};
//! # fn main() -> mpblas::Result<()> {
//! let dev = Device::open(0)?;
//! let x = dev.upload(&[Dd::from(1.0), Dd::from(2.0)])?;
//! let y = dev.upload(&[Dd::from(3.0), Dd::from(4.0)])?;
//! let mut z = dev.zeros::<Dd>(2)?;
//! cuda::dd::div(&dev, &x, &y, &mut z)?;
//! assert_eq!(z.download()?, vec![Dd::from(1.0) / Dd::from(3.0), Dd::from(0.5)]);
//! # Ok(())
//! # }
//! ```
//!
//! # Conventions
//!
//! - A [`Device`] owns one CUDA stream. Uploads, kernels and device-to-device copies are
//!   enqueued on it in call order and return before the GPU has finished; downloads wait.
//!   [`Device::synchronize`] waits for everything enqueued.
//! - Multi-word values are stored as structure of arrays ([`DeviceVec`]): one device array
//!   per word, so that a warp's loads are coalesced.
//! - Every operation checks that its operands live on its device and have matching lengths
//!   ([`Error::DeviceMismatch`], [`Error::LengthMismatch`]) before anything is enqueued.
//! - Kernels are compiled by NVRTC for the device's own architecture on first use, with the
//!   options of [`nvrtc::options`], and cached on disk ([`nvrtc`] says where).
//! - GPU results equal CPU results bit for bit (every word of every element), except that the
//!   payload and sign of a NaN are not specified (as in Rust itself).
//!
//! Set `MPBLAS_CUDA_SYNC=1` to synchronise after every kernel launch, so that a fault is
//! reported as an error of the kernel that caused it rather than of a later call.

mod array;
mod cublas;
pub mod dd_elementwise;
pub mod dd_func;
pub mod emulation;
#[cfg(test)]
mod func_tables;
pub mod nvrtc;
pub mod ozaki;
pub mod qd_elementwise;
pub mod qd_func;
mod rns_arith;
mod rns_array;
pub mod rns_digits;
pub mod rns_divsqrt;
pub mod rns_esi;
pub mod rns_round;

pub use ozaki::{dgemm, ozaki1_gemm, ozaki2_gemm};

pub use array::{DeviceDdVec, DeviceQdVec, DeviceScalar, DeviceVec};
pub use nvrtc::ModuleSource;

/// Double-double kernels: element-wise `+ − × ÷ √`, and `exp`, `ln`, `sin`, `cos`.
pub mod dd {
    pub use super::dd_elementwise::*;
    pub use super::dd_func::{cos, exp, ln, sin};
}
/// Quad-double kernels: element-wise `+ − × ÷ √`, and `exp`, `ln`, `sin`, `cos`.
pub mod qd {
    pub use super::qd_elementwise::*;
    pub use super::qd_func::{cos, exp, ln, sin};
}
/// RNS multiple precision on the GPU: [`DeviceMpArray`](rns::DeviceMpArray) (the host
/// [`MpArray`](crate::rns::MpArray) layout) and element-wise `+ − × ÷ √`, bitwise equal to the
/// CPU ([`crate::rns::MpFloat`]).
pub mod rns {
    pub use super::rns_arith::*;
    pub use super::rns_array::*;
}

use crate::error::{Error, Result};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaStream, DriverError, LaunchConfig, sys,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// The oldest driver API version the bindings need (`cuDriverGetVersion` encoding: 13.0).
pub const REQUIRED_DRIVER_VERSION: i32 = 13000;

/// Every kernel module of the library (for tests, cache warm-up and `mpblas info`).
pub fn modules() -> &'static [&'static ModuleSource] {
    static MODULES: [&ModuleSource; 9] = [
        &dd_elementwise::MODULE,
        &qd_elementwise::MODULE,
        &dd_func::MODULE,
        &qd_func::MODULE,
        &rns_esi::MODULE,
        &rns_digits::MODULE,
        &rns_round::MODULE,
        &rns_divsqrt::MODULE,
        &ozaki::MODULE,
    ];
    &MODULES
}

/// A driver error as text: its name and the driver's description.
pub(crate) fn driver_cause(e: &DriverError) -> String {
    let name = format!("{:?}", e.0);
    match e.error_string() {
        Ok(s) => format!("{name} ({})", s.to_string_lossy()),
        Err(_) => name,
    }
}

fn driver_err(op: &'static str) -> impl Fn(DriverError) -> Error {
    move |e| Error::CudaDriver {
        op,
        cause: driver_cause(&e),
    }
}

// ---- library probing --------------------------------------------------------------------------

/// True if the CUDA driver library (`libcuda`) can be loaded. Nothing else is checked.
pub fn driver_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: `is_culib_present` only tries to open the library by its candidate names with
    // libloading and drops it again; it cannot panic.
    *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() })
}

/// True if cuBLAS (`libcublas`) can be loaded.
pub fn cublas_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: as for `driver_present`.
    *PRESENT.get_or_init(|| unsafe { cudarc::cublas::sys::is_culib_present() })
}

/// The driver's CUDA version (13000 for 13.0), after checking that the driver loads, is
/// recent enough for the bindings, and initialises. Every other driver call comes after this
/// one, so none of them can hit a missing symbol (which would panic inside cudarc).
fn driver_version() -> Result<i32> {
    static PROBE: OnceLock<Result<i32>> = OnceLock::new();
    PROBE
        .get_or_init(|| {
            if !driver_present() {
                return Err(Error::CudaNoDriver {
                    detail: "libcuda.so could not be loaded (no NVIDIA driver installed, or \
                             not on the library path)"
                        .to_string(),
                });
            }
            let mut version = 0;
            // SAFETY: libcuda is present (checked above) and exports cuDriverGetVersion in
            // every version; it writes one int through a pointer to a live local.
            unsafe { sys::cuDriverGetVersion(&mut version) }
                .result()
                .map_err(|e| Error::CudaNoDriver {
                    detail: format!("cuDriverGetVersion failed: {}", driver_cause(&e)),
                })?;
            if version < REQUIRED_DRIVER_VERSION {
                return Err(Error::CudaDriverTooOld {
                    found: version,
                    required: REQUIRED_DRIVER_VERSION,
                });
            }
            Ok(version)
        })
        .clone()
}

/// The number of CUDA devices (0 if the driver works but sees no GPU).
pub fn device_count() -> Result<usize> {
    driver_version()?;
    match cudarc::driver::result::init() {
        Ok(()) => {}
        Err(DriverError(sys::CUresult::CUDA_ERROR_NO_DEVICE)) => return Ok(0),
        Err(e) => {
            return Err(Error::CudaNoDriver {
                detail: format!("cuInit failed: {}", driver_cause(&e)),
            });
        }
    }
    let n = cudarc::driver::result::device::get_count().map_err(driver_err("cuDeviceGetCount"))?;
    Ok(usize::try_from(n).unwrap_or(0))
}

// ---- device information -----------------------------------------------------------------------

/// What `mpblas info` shows about one GPU.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceInfo {
    /// The CUDA ordinal.
    pub ordinal: usize,
    /// The marketing name, e.g. `"NVIDIA H100 80GB HBM3"`.
    pub name: String,
    /// Compute capability `(major, minor)`, e.g. `(9, 0)`.
    pub compute_capability: (u32, u32),
    /// Total device memory in bytes.
    pub total_memory: usize,
    /// Number of streaming multiprocessors.
    pub multiprocessors: u32,
    /// The driver's CUDA version `(major, minor)`.
    pub driver_version: (i32, i32),
    /// NVRTC's version, or `None` if `libnvrtc` cannot be loaded.
    pub nvrtc_version: Option<(i32, i32)>,
    /// cuBLAS's version `(major, minor, patch)`, or `None` if `libcublas` cannot be loaded.
    pub cublas_version: Option<(i32, i32, i32)>,
}

impl DeviceInfo {
    /// The NVRTC architecture name of the device, e.g. `"sm_90"`.
    pub fn arch(&self) -> String {
        format!(
            "sm_{}{}",
            self.compute_capability.0, self.compute_capability.1
        )
    }
}

impl std::fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ver = |v: Option<String>| v.unwrap_or_else(|| "not found".to_string());
        write!(
            f,
            "GPU {}: {}, compute capability {}.{} ({}), {:.1} GiB, {} SMs, driver CUDA {}.{}, \
             NVRTC {}, cuBLAS {}",
            self.ordinal,
            self.name,
            self.compute_capability.0,
            self.compute_capability.1,
            self.arch(),
            self.total_memory as f64 / (1u64 << 30) as f64,
            self.multiprocessors,
            self.driver_version.0,
            self.driver_version.1,
            ver(self.nvrtc_version.map(|(a, b)| format!("{a}.{b}"))),
            ver(self.cublas_version.map(|(a, b, c)| format!("{a}.{b}.{c}"))),
        )
    }
}

/// The cuBLAS version, if the library loads.
fn cublas_version() -> Option<(i32, i32, i32)> {
    use cudarc::cublas::sys::{cublasGetProperty, libraryPropertyType};
    if !cublas_present() {
        return None;
    }
    let get = |p| {
        let mut v = 0;
        // SAFETY: libcublas is present (checked above); cublasGetProperty needs no handle and
        // writes one int through a pointer to a live local.
        let status = unsafe { cublasGetProperty(p, &mut v) };
        (status == cudarc::cublas::sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS).then_some(v)
    };
    Some((
        get(libraryPropertyType::MAJOR_VERSION)?,
        get(libraryPropertyType::MINOR_VERSION)?,
        get(libraryPropertyType::PATCH_LEVEL)?,
    ))
}

/// Information on the device `ordinal` (no context is created).
fn query_info(ordinal: usize) -> Result<DeviceInfo> {
    use cudarc::driver::result::device;
    use sys::CUdevice_attribute as A;
    let version = driver_version()?;
    let count = device_count()?;
    if ordinal >= count {
        return Err(Error::CudaNoDevice { ordinal, count });
    }
    let dev = device::get(ordinal as i32).map_err(driver_err("cuDeviceGet"))?;
    let name = device::get_name(dev).map_err(driver_err("cuDeviceGetName"))?;
    let attr = |a| {
        // SAFETY: `dev` is a valid device handle from cuDeviceGet; the attribute is read only.
        unsafe { device::get_attribute(dev, a) }.map_err(driver_err("cuDeviceGetAttribute"))
    };
    let major = attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
    let minor = attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
    let sms = attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
    // SAFETY: as above.
    let total = unsafe { device::total_mem(dev) }.map_err(driver_err("cuDeviceTotalMem"))?;
    Ok(DeviceInfo {
        ordinal,
        name,
        compute_capability: (major.max(0) as u32, minor.max(0) as u32),
        total_memory: total,
        multiprocessors: sms.max(0) as u32,
        driver_version: (version / 1000, (version % 1000) / 10),
        nvrtc_version: nvrtc::nvrtc_version().ok(),
        cublas_version: cublas_version(),
    })
}

/// Every CUDA device with its information (for `mpblas info`). An empty list means the driver
/// works but sees no GPU; an error says why there is no usable driver.
pub fn devices() -> Result<Vec<DeviceInfo>> {
    (0..device_count()?).map(query_info).collect()
}

// ---- the device ---------------------------------------------------------------------------------

/// An open GPU: a CUDA context, a stream, and the kernel modules loaded so far.
///
/// Cloning is cheap and shares all three (the clones enqueue on the same stream).
#[derive(Clone)]
pub struct Device {
    inner: Arc<Inner>,
}

struct Inner {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    info: DeviceInfo,
    arch: String,
    sync_launches: bool,
    /// The loaded modules' entry points, by kernel name.
    functions: Mutex<HashMap<&'static str, CudaFunction>>,
    /// The loaded modules, by module name (each is loaded once per device).
    modules: Mutex<HashMap<&'static str, Arc<CudaModule>>>,
    /// Device-resident constants (e.g. RNS basis tables), by (kind, identity).
    consts: Mutex<HashMap<(&'static str, u64), ConstEntry>>,
    /// Per-device objects kept between calls (cuBLAS handle, GEMM workspaces), by key.
    cache: Mutex<HashMap<&'static str, Arc<dyn std::any::Any + Send + Sync>>>,
}

type ConstEntry = Arc<dyn std::any::Any + Send + Sync>;

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device")
            .field("info", &self.inner.info)
            .finish_non_exhaustive()
    }
}

impl Device {
    /// Open the GPU with CUDA ordinal `ordinal` (0 is the first).
    ///
    /// # Errors
    ///
    /// [`Error::CudaNoDriver`] without a loadable, working driver; [`Error::CudaDriverTooOld`]
    /// if the driver predates CUDA 13.0; [`Error::CudaNoDevice`] if there is no such GPU;
    /// [`Error::CudaLibraryMissing`] without NVRTC (every kernel needs it);
    /// [`Error::CudaDriver`] if the context or stream cannot be created.
    pub fn open(ordinal: usize) -> Result<Device> {
        let info = query_info(ordinal)?;
        if !nvrtc::nvrtc_present() {
            return Err(Error::CudaLibraryMissing { library: "nvrtc" });
        }
        let ctx = CudaContext::new(ordinal).map_err(driver_err("context creation"))?;
        let stream = ctx.new_stream().map_err(driver_err("stream creation"))?;
        let sync_launches = std::env::var_os("MPBLAS_CUDA_SYNC").is_some_and(|v| v != "0");
        Ok(Device {
            inner: Arc::new(Inner {
                arch: info.arch(),
                ctx,
                stream,
                info,
                sync_launches,
                functions: Mutex::new(HashMap::new()),
                modules: Mutex::new(HashMap::new()),
                consts: Mutex::new(HashMap::new()),
                cache: Mutex::new(HashMap::new()),
            }),
        })
    }

    /// The device's information.
    pub fn info(&self) -> &DeviceInfo {
        &self.inner.info
    }

    /// The CUDA ordinal.
    pub fn ordinal(&self) -> usize {
        self.inner.info.ordinal
    }

    /// The architecture kernels are compiled for, e.g. `"sm_90"`.
    pub fn arch(&self) -> &str {
        &self.inner.arch
    }

    /// Wait until everything enqueued on the device's stream has finished.
    ///
    /// # Errors
    ///
    /// [`Error::CudaDriver`] if an earlier kernel or copy failed on the device.
    pub fn synchronize(&self) -> Result<()> {
        self.inner
            .stream
            .synchronize()
            .map_err(driver_err("synchronize"))
    }

    /// Free and total device memory in bytes, as the driver reports them.
    ///
    /// # Errors
    ///
    /// [`Error::CudaDriver`] if the query fails.
    pub fn memory(&self) -> Result<(usize, usize)> {
        self.inner
            .ctx
            .mem_get_info()
            .map_err(driver_err("memory query"))
    }

    /// Run `work` (which enqueues on this device) between two CUDA events and return the GPU
    /// time between them in milliseconds. Waits for the work to finish.
    ///
    /// # Errors
    ///
    /// Whatever `work` returns, or [`Error::CudaDriver`] if an event call fails.
    pub fn time_ms(&self, work: impl FnOnce() -> Result<()>) -> Result<f32> {
        let flags = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
        let start = self
            .inner
            .ctx
            .new_event(flags)
            .map_err(driver_err("event"))?;
        let end = self
            .inner
            .ctx
            .new_event(flags)
            .map_err(driver_err("event"))?;
        start
            .record(&self.inner.stream)
            .map_err(driver_err("event record"))?;
        work()?;
        end.record(&self.inner.stream)
            .map_err(driver_err("event record"))?;
        start.elapsed_ms(&end).map_err(driver_err("event timing"))
    }

    /// Compile (or fetch from the cache) and load every kernel module now, rather than on
    /// first use; useful before timing.
    ///
    /// # Errors
    ///
    /// [`Error::CudaCompile`] with NVRTC's log, or [`Error::CudaLaunch`] if a module does not
    /// load.
    pub fn load_all_modules(&self) -> Result<()> {
        for m in modules() {
            self.module(m)?;
        }
        Ok(())
    }

    /// Drops the workspaces and handles that routines keep on this device between calls (the
    /// Ozaki GEMMs keep theirs, which can be gigabytes), after waiting for pending work.
    ///
    /// # Errors
    ///
    /// [`Error::CudaDriver`] if an earlier kernel or copy failed on the device.
    pub fn release_workspaces(&self) -> Result<()> {
        self.synchronize()?;
        self.inner
            .cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        Ok(())
    }

    /// The cached object under `key`, made by `init` on first use.
    pub(crate) fn cached<T: std::any::Any + Send + Sync>(
        &self,
        key: &'static str,
        init: impl FnOnce() -> Result<T>,
    ) -> Result<Arc<T>> {
        let mut cache = self.inner.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(x) = cache.get(key)
            && let Ok(t) = x.clone().downcast::<T>()
        {
            return Ok(t);
        }
        let t = Arc::new(init()?);
        cache.insert(key, t.clone());
        Ok(t)
    }

    pub(crate) fn stream(&self) -> &Arc<CudaStream> {
        &self.inner.stream
    }

    /// The device constant `(kind, id)`, made by `make` on first use and kept for the life of
    /// the device (so that, e.g., an RNS basis's tables are uploaded once per device).
    pub(crate) fn cached_const<T: Send + Sync + 'static>(
        &self,
        kind: &'static str,
        id: u64,
        make: impl FnOnce() -> Result<T>,
    ) -> Result<Arc<T>> {
        let mut consts = self.inner.consts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = consts
            .get(&(kind, id))
            .and_then(|v| v.clone().downcast::<T>().ok())
        {
            return Ok(v);
        }
        let v = Arc::new(make()?);
        consts.insert((kind, id), v.clone());
        Ok(v)
    }

    /// The module, loaded into this device's context (compiled on first use).
    fn module(&self, source: &'static ModuleSource) -> Result<Arc<CudaModule>> {
        let mut modules = self.inner.modules.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = modules.get(source.name) {
            return Ok(m.clone());
        }
        let load = |img: &[u8]| {
            self.inner
                .ctx
                .load_module(cudarc::nvrtc::Ptx::from_binary(img.to_vec()))
        };
        let (img, origin) = nvrtc::image(source, &self.inner.arch, false)?;
        let module = match load(&img) {
            Ok(m) => m,
            // A cached image the driver rejects (damaged file, driver change): compile afresh.
            Err(_) if origin == nvrtc::Origin::Cached => {
                let (img, _) = nvrtc::image(source, &self.inner.arch, true)?;
                load(&img).map_err(|e| nvrtc::load_error(source.name, &e))?
            }
            Err(e) => return Err(nvrtc::load_error(source.name, &e)),
        };
        modules.insert(source.name, module.clone());
        Ok(module)
    }

    /// The entry point `kernel` of `source`, which must be listed in its `kernels` table.
    pub(crate) fn function(
        &self,
        source: &'static ModuleSource,
        kernel: &'static str,
    ) -> Result<CudaFunction> {
        if let Some(f) = self
            .inner
            .functions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(kernel)
        {
            return Ok(f.clone());
        }
        debug_assert!(source.kernels.contains(&kernel), "{kernel} not in KERNELS");
        let module = self.module(source)?;
        let f = module
            .load_function(kernel)
            .map_err(|e| Error::CudaLaunch {
                kernel,
                cause: format!("entry point not found: {}", driver_cause(&e)),
            })?;
        self.inner
            .functions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(kernel, f.clone());
        Ok(f)
    }

    /// A one-dimensional launch for `n` elements of a grid-stride kernel: 256 threads per
    /// block, at most 16 blocks per SM (the loop covers the rest).
    pub(crate) fn grid_for(&self, n: usize) -> LaunchConfig {
        const THREADS: u32 = 256;
        let max_blocks = (self.inner.info.multiprocessors.max(1) as usize) * 16;
        let blocks = n.div_ceil(THREADS as usize).clamp(1, max_blocks);
        LaunchConfig {
            grid_dim: (blocks as u32, 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        }
    }

    /// Turn a launch result into an mpblas result naming the kernel (and, with
    /// `MPBLAS_CUDA_SYNC`, wait so that faults are attributed to it).
    pub(crate) fn launched<T>(
        &self,
        kernel: &'static str,
        r: std::result::Result<T, DriverError>,
    ) -> Result<()> {
        r.map_err(|e| Error::CudaLaunch {
            kernel,
            cause: driver_cause(&e),
        })?;
        if self.inner.sync_launches {
            self.inner
                .stream
                .synchronize()
                .map_err(|e| Error::CudaLaunch {
                    kernel,
                    cause: driver_cause(&e),
                })?;
        }
        Ok(())
    }

    /// [`Error::DeviceMismatch`] unless `got` is this device's ordinal.
    pub(crate) fn check_on(&self, arg: &'static str, got: usize) -> Result<()> {
        if got == self.ordinal() {
            Ok(())
        } else {
            Err(Error::DeviceMismatch {
                arg,
                expected: self.ordinal(),
                got,
            })
        }
    }
}

/// [`Error::LengthMismatch`] unless `got == expected`.
pub(crate) fn check_len(arg: &'static str, expected: usize, got: usize) -> Result<()> {
    if got == expected {
        Ok(())
    } else {
        Err(Error::LengthMismatch { arg, expected, got })
    }
}

/// Launch an element-wise kernel of the shape shared by the dd and qd modules:
/// `kernel(<x words>, [<y words> | <scalar words>], <out words>, u64 n)`, where each vector
/// contributes `T::WORDS` word pointers and a scalar `T::WORDS` doubles, most significant first.
/// `y` and `scalar` are mutually exclusive (both `None` for a unary kernel).
pub(crate) fn launch_map<T: DeviceScalar>(
    dev: &Device,
    source: &'static ModuleSource,
    kernel: &'static str,
    x: &DeviceVec<T>,
    y: Option<&DeviceVec<T>>,
    scalar: Option<T>,
    out: &mut DeviceVec<T>,
) -> Result<()> {
    use cudarc::driver::PushKernelArg;
    dev.check_on("x", x.ordinal())?;
    if let Some(y) = y {
        dev.check_on("y", y.ordinal())?;
    }
    dev.check_on("out", out.ordinal())?;
    let n = x.len();
    if let Some(y) = y {
        check_len("y", n, y.len())?;
    }
    check_len("out", n, out.len())?;
    if n == 0 {
        return Ok(());
    }
    let f = dev.function(source, kernel)?;
    let cfg = dev.grid_for(n);
    let n64 = n as u64;
    let s = scalar.map(|s| s.words());
    let stream = dev.stream();
    let mut b = stream.launch_builder(&f);
    for w in x.words() {
        b.arg(w);
    }
    if let Some(y) = y {
        for w in y.words() {
            b.arg(w);
        }
    }
    if let Some(s) = &s {
        for w in &s[..T::WORDS] {
            b.arg(w);
        }
    }
    for w in out.words_mut() {
        b.arg(w);
    }
    b.arg(&n64);
    // SAFETY: the arguments match the kernels' shared signature in kernels/<module>.cu:
    // `T::WORDS` `const double*` for x, then either `T::WORDS` `const double*` for y or
    // `T::WORDS` `double` scalar words (or neither, for a unary kernel), then `T::WORDS`
    // `double*` for out, then `unsigned long long n`; `kernel` is one of those entry points
    // (its module's KERNELS table, checked against the source by tests/kernel_names.rs).
    // Every word array of x, y and out holds at least n doubles (lengths checked above, and
    // a DeviceVec allocates `len` doubles per word). The kernel's grid-stride loop guards
    // every access with `i < n` in 64-bit arithmetic. out's arrays are distinct allocations
    // from x's and y's (`&mut` borrow), matching the `__restrict__` qualifiers.
    let r = unsafe { b.launch(cfg) };
    dev.launched(kernel, r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Dd;

    #[test]
    #[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
    fn operands_on_another_device_are_rejected() {
        let dev = Device::open(0).expect("a CUDA GPU");
        let here = dev.ordinal();
        let x = dev.upload(&[Dd::ONE; 4]).expect("upload");
        let mut y = dev.upload(&[Dd::ONE; 4]).expect("upload");
        let mut out = dev.zeros::<Dd>(4).expect("alloc");
        y.set_ordinal(here + 1);
        let mism = |arg| Error::DeviceMismatch {
            arg,
            expected: here,
            got: here + 1,
        };
        assert_eq!(dd::add(&dev, &x, &y, &mut out), Err(mism("y")));
        assert_eq!(dd::sqrt(&dev, &y, &mut out), Err(mism("x")));
        assert_eq!(out.copy_from(&y), Err(mism("src")));
        y.set_ordinal(here);
        out.set_ordinal(here + 1);
        assert_eq!(
            dd::mul_scalar(&dev, &x, Dd::ONE, &mut out),
            Err(mism("out"))
        );
        out.set_ordinal(here);
        dd::add(&dev, &x, &y, &mut out).expect("add");
        assert_eq!(out.download().expect("download"), vec![Dd::from(2.0); 4]);
    }
}
