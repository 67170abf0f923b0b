//! [`Device`]: an open GPU (context, stream, device information) and its one per-device cache,
//! which holds everything kept between calls: loaded modules and their entry points, uploaded
//! constants (an RNS basis's tables), library handles (cuBLAS) and workspaces.

use super::launch::{Arg, LaunchConfig};
use super::nvrtc::{self, ModuleSource};
use super::sys;
use crate::error::{Error, Result};
use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The oldest driver API version the bindings need (`cuDriverGetVersion` encoding: 13.0).
pub const REQUIRED_DRIVER_VERSION: i32 = sys::REQUIRED_DRIVER_VERSION;

/// True if the CUDA driver library (`libcuda`) can be loaded (always false without the `cuda`
/// feature). Nothing else is checked.
pub fn driver_present() -> bool {
    sys::driver_present()
}

/// True if cuBLAS (`libcublas`) can be loaded (always false without the `cuda` feature).
pub fn cublas_present() -> bool {
    sys::cublas_present()
}

/// The number of CUDA devices (0 if the driver works but sees no GPU).
///
/// # Errors
/// [`Error::CudaNoDriver`] or [`Error::CudaDriverTooOld`] without a usable driver;
/// [`Error::CudaNotBuilt`] without the `cuda` feature.
pub fn device_count() -> Result<usize> {
    sys::device_count()
}

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

/// Information on the device `ordinal` (no context is created).
fn query_info(ordinal: usize) -> Result<DeviceInfo> {
    let version = sys::driver_version()?;
    let count = device_count()?;
    if ordinal >= count {
        return Err(Error::CudaNoDevice { ordinal, count });
    }
    let raw = sys::device_info(ordinal)?;
    Ok(DeviceInfo {
        ordinal,
        name: raw.name,
        compute_capability: raw.compute_capability,
        total_memory: raw.total_memory,
        multiprocessors: raw.multiprocessors,
        driver_version: (version / 1000, (version % 1000) / 10),
        nvrtc_version: sys::nvrtc_version().ok(),
        cublas_version: sys::cublas_version(),
    })
}

/// Every CUDA device with its information (for `mpblas info`). An empty list means the driver
/// works but sees no GPU.
///
/// # Errors
/// As [`device_count`].
pub fn devices() -> Result<Vec<DeviceInfo>> {
    (0..device_count()?).map(query_info).collect()
}

// ---- the device ---------------------------------------------------------------------------------

/// An open GPU: a CUDA context, the stream everything is enqueued on, and the per-device cache.
///
/// Cloning is cheap and shares all three (the clones enqueue on the same stream).
///
/// Without the `cuda` feature [`Device::open`] returns [`Error::CudaNotBuilt`], so no `Device`
/// exists and every GPU function of the library is unreachable but compiled and documented.
#[derive(Clone)]
pub struct Device {
    inner: Arc<Inner>,
}

struct Inner {
    sys: Arc<sys::Context>,
    info: DeviceInfo,
    arch: String,
    sync_launches: bool,
    /// Everything kept on this device between calls, by key.
    cache: Mutex<HashMap<CacheKey, CacheEntry>>,
}

/// A key of the per-device cache: a kind (`"module"`, `"rns-basis"`, `"cublas"`,
/// `"workspace"`, or a module's name for its entry points), a name and a number, so that each
/// user picks keys that cannot collide with another's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct CacheKey {
    kind: &'static str,
    name: &'static str,
    id: u64,
}

struct CacheEntry {
    value: Arc<dyn Any + Send + Sync>,
    /// Dropped by [`Device::release_workspaces`] (large scratch buffers); otherwise kept for
    /// the life of the device (modules, constants, handles).
    workspace: bool,
}

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
    /// [`Error::CudaNotBuilt`] without the `cuda` feature; [`Error::CudaNoDriver`] without a
    /// loadable, working driver; [`Error::CudaDriverTooOld`] if the driver predates CUDA 13.0;
    /// [`Error::CudaNoDevice`] if there is no such GPU; [`Error::CudaLibraryMissing`] without
    /// NVRTC (every kernel needs it); [`Error::CudaDriver`] if the context or stream cannot be
    /// created.
    pub fn open(ordinal: usize) -> Result<Device> {
        let info = query_info(ordinal)?;
        if !nvrtc::nvrtc_present() {
            return Err(Error::CudaLibraryMissing { library: "nvrtc" });
        }
        let sys = Arc::new(sys::Context::open(ordinal)?);
        let sync_launches = std::env::var_os("MPBLAS_CUDA_SYNC").is_some_and(|v| v != "0");
        Ok(Device {
            inner: Arc::new(Inner {
                arch: info.arch(),
                sys,
                info,
                sync_launches,
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
        self.inner.sys.synchronize()
    }

    /// Free and total device memory in bytes, as the driver reports them.
    ///
    /// # Errors
    ///
    /// [`Error::CudaDriver`] if the query fails.
    pub fn memory(&self) -> Result<(usize, usize)> {
        self.inner.sys.mem_info()
    }

    /// Run `work` (which enqueues on this device) between two CUDA events and return the GPU
    /// time between them in milliseconds. Waits for the work to finish.
    ///
    /// # Errors
    ///
    /// Whatever `work` returns, or [`Error::CudaDriver`] if an event call fails.
    pub fn time_ms(&self, work: impl FnOnce() -> Result<()>) -> Result<f32> {
        let start = self.inner.sys.event()?;
        work()?;
        let end = self.inner.sys.event()?;
        start.elapsed_ms(&end)
    }

    /// Compile (or fetch from the cache) and load `modules` now rather than on first use;
    /// useful before timing. [`crate::kernel_modules`] lists every module of the library.
    ///
    /// # Errors
    ///
    /// [`Error::CudaCompile`] with NVRTC's log, or [`Error::CudaLaunch`] if a module does not
    /// load.
    pub fn load_modules(&self, modules: &[&'static ModuleSource]) -> Result<()> {
        for m in modules {
            self.module(m)?;
        }
        Ok(())
    }

    /// Drops the workspaces that routines keep on this device between calls (the Ozaki GEMMs
    /// keep theirs, which can be gigabytes), after waiting for pending work. Modules, uploaded
    /// constants and library handles stay.
    ///
    /// # Errors
    ///
    /// [`Error::CudaDriver`] if an earlier kernel or copy failed on the device.
    pub fn release_workspaces(&self) -> Result<()> {
        self.synchronize()?;
        self.lock_cache().retain(|_, e| !e.workspace);
        Ok(())
    }

    fn lock_cache(&self) -> std::sync::MutexGuard<'_, HashMap<CacheKey, CacheEntry>> {
        // A poisoned lock only means another thread panicked while holding it; the map holds
        // whole entries only.
        self.inner.cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn cached_entry<T: Any + Send + Sync>(
        &self,
        key: CacheKey,
        workspace: bool,
        init: impl FnOnce() -> Result<T>,
    ) -> Result<Arc<T>> {
        if let Some(e) = self.lock_cache().get(&key)
            && let Ok(t) = e.value.clone().downcast::<T>()
        {
            return Ok(t);
        }
        // `init` may itself use the cache (a module load for a constant's kernel), so the lock
        // is not held while it runs; a racing thread's value is replaced, which is harmless.
        let t = Arc::new(init()?);
        let value: Arc<dyn Any + Send + Sync> = t.clone();
        self.lock_cache()
            .insert(key, CacheEntry { value, workspace });
        Ok(t)
    }

    /// The object under `(kind, name, id)`, made by `init` on first use and kept for the life
    /// of the device (constants, handles).
    pub(crate) fn cached<T: Any + Send + Sync>(
        &self,
        kind: &'static str,
        name: &'static str,
        id: u64,
        init: impl FnOnce() -> Result<T>,
    ) -> Result<Arc<T>> {
        self.cached_entry(CacheKey { kind, name, id }, false, init)
    }

    /// A workspace under `name`, made by `init` on first use and dropped by
    /// [`Device::release_workspaces`].
    pub(crate) fn workspace<T: Any + Send + Sync>(
        &self,
        name: &'static str,
        init: impl FnOnce() -> Result<T>,
    ) -> Result<Arc<T>> {
        self.cached_entry(
            CacheKey {
                kind: "workspace",
                name,
                id: 0,
            },
            true,
            init,
        )
    }

    /// The driver context (memory and copies for the runtime's buffers).
    pub(crate) fn sys(&self) -> &Arc<sys::Context> {
        &self.inner.sys
    }

    /// The module, loaded into this device's context (compiled on first use).
    fn module(&self, source: &'static ModuleSource) -> Result<Arc<sys::Module>> {
        self.cached("module", source.name, 0, || {
            let load = |img: &[u8]| {
                self.inner
                    .sys
                    .load_module(img)
                    .map_err(|cause| Error::CudaLaunch {
                        kernel: source.name,
                        cause: format!("loading the module failed: {cause}"),
                    })
            };
            let (img, origin) = nvrtc::image(source, &self.inner.arch, false)?;
            match load(&img) {
                Ok(m) => Ok(m),
                // A cached image the driver rejects (damaged file, driver change): compile
                // afresh.
                Err(_) if origin == nvrtc::Origin::Cached => {
                    let (img, _) = nvrtc::image(source, &self.inner.arch, true)?;
                    load(&img)
                }
                Err(e) => Err(e),
            }
        })
    }

    /// The entry point `kernel` of `source`, which must be listed in its `kernels` table.
    pub(crate) fn function(
        &self,
        source: &'static ModuleSource,
        kernel: &'static str,
    ) -> Result<Arc<sys::Function>> {
        // Keyed by module and kernel: two modules may define an entry point of the same name
        // (kernels shared through a header).
        self.cached(source.name, kernel, 0, || {
            if !source.kernels.contains(&kernel) {
                return Err(Error::CudaLaunch {
                    kernel,
                    cause: format!("not in the KERNELS table of module {}", source.name),
                });
            }
            self.module(source)?
                .function(kernel)
                .map_err(|cause| Error::CudaLaunch {
                    kernel,
                    cause: format!("entry point not found: {cause}"),
                })
        })
    }

    /// Launches `kernel` of `source` with `args` on the device's stream (with
    /// `MPBLAS_CUDA_SYNC` set, waits so that a fault is reported as this kernel's error).
    ///
    /// # Safety
    /// `args` must match the kernel's parameter list in `source` in number and type ([`Arg`]
    /// `U64` for every pointer and `unsigned long long`, `I32` for `int`, ...); every address
    /// must point to device memory of this device large enough for the accesses the kernel
    /// makes for the given sizes, outputs not overlapping inputs where the kernel says
    /// `__restrict__`; `cfg` must be a launch shape the kernel supports.
    pub(crate) unsafe fn launch(
        &self,
        source: &'static ModuleSource,
        kernel: &'static str,
        cfg: LaunchConfig,
        args: &[Arg],
    ) -> Result<()> {
        // SAFETY: the caller's contract.
        unsafe { self.launch_dependent(source, kernel, cfg, args, false) }
    }

    /// [`launch`](Device::launch), or with `overlap_previous` (on compute capability 9.0 and
    /// later; a plain launch before) a launch that may start while the previous kernel on the
    /// stream finishes (programmatic dependent launch): its blocks take the SMs that kernel's
    /// blocks leave and run what comes before their `griddepcontrol.wait`, which returns once
    /// that kernel has completed and its writes are visible. The previous kernel can let them
    /// in early with `griddepcontrol.launch_dependents`.
    ///
    /// # Safety
    /// As [`launch`](Device::launch); with `overlap_previous`, the kernel reads nothing that
    /// the previous kernel writes, and writes nothing that it reads, before its
    /// `griddepcontrol.wait`.
    pub(crate) unsafe fn launch_dependent(
        &self,
        source: &'static ModuleSource,
        kernel: &'static str,
        cfg: LaunchConfig,
        args: &[Arg],
        overlap_previous: bool,
    ) -> Result<()> {
        let overlap = overlap_previous && self.inner.info.compute_capability.0 >= 9;
        let f = self.function(source, kernel)?;
        let failed = |cause| Error::CudaLaunch { kernel, cause };
        // SAFETY: the caller's contract.
        unsafe { self.inner.sys.launch(&f, &cfg, args, overlap) }.map_err(failed)?;
        if self.inner.sync_launches {
            self.synchronize().map_err(|e| failed(e.to_string()))?;
        }
        Ok(())
    }

    /// How many blocks of `block` threads of `kernel` the whole GPU holds at once. A
    /// grid-stride kernel launched with exactly this many blocks has no second, partial wave.
    /// Cached per kernel and block size (an occupancy query is a driver call, and launchers such
    /// as the `f64` gemv's ask on every call); the key's top bit keeps it apart from
    /// [`function`](Device::function)'s entry for the same kernel.
    pub(crate) fn resident_blocks(
        &self,
        source: &'static ModuleSource,
        kernel: &'static str,
        block: u32,
    ) -> Result<usize> {
        let per_sm = self.cached(source.name, kernel, 1 << 63 | u64::from(block), || {
            self.function(source, kernel)?.blocks_per_sm(block)
        })?;
        Ok((*per_sm).max(1) * self.inner.info.multiprocessors.max(1) as usize)
    }

    /// The largest block (a multiple of 32 threads, at most 1024) that `kernel` can run with:
    /// its registers and shared memory fit one SM.
    pub(crate) fn max_block(
        &self,
        source: &'static ModuleSource,
        kernel: &'static str,
    ) -> Result<u32> {
        let f = self.function(source, kernel)?;
        let mut block = 1024;
        while block > 32 && f.blocks_per_sm(block)? == 0 {
            block -= 32;
        }
        Ok(block)
    }

    /// A one-dimensional launch for `n` elements of a grid-stride kernel: 256 threads per
    /// block, at most 16 blocks per SM (the loop covers the rest).
    pub(crate) fn grid_for(&self, n: usize) -> LaunchConfig {
        self.grid_for_blocks_of(n, 256)
    }

    /// [`grid_for`](Device::grid_for) with `block` threads per block: at most the same 4096
    /// threads per SM.
    pub(crate) fn grid_for_blocks_of(&self, n: usize, block: usize) -> LaunchConfig {
        let max_blocks = (self.inner.info.multiprocessors.max(1) as usize) * 4096 / block.max(1);
        LaunchConfig::new(
            (super::launch::blocks(n, block, max_blocks), 1),
            block as u32,
        )
    }

    /// A 2-D launch over an `m × n` column-major range: `blockIdx.y` over columns (at most
    /// 65535 at a time), `blockIdx.x` over rows in chunks of 256, with enough blocks to fill
    /// the GPU.
    pub(crate) fn grid_2d(&self, m: usize, n: usize) -> LaunchConfig {
        let sms = self.inner.info.multiprocessors.max(1) as usize;
        let gy = n.clamp(1, 65_535);
        let gx = m.div_ceil(256).clamp(1, (sms * 16).div_ceil(gy).max(1) * 4);
        LaunchConfig::new((gx as u32, gy as u32), 256)
    }

    /// A 2-D launch over an `m × n` column-major range for kernels whose threads keep one
    /// row's values over several columns: `blockIdx.x` over rows in chunks of 256 (one chunk
    /// each where the grid allows), `blockIdx.y` over columns, about 32 blocks per SM in all
    /// (each thread then takes about `n·⌈m/256⌉/(32·SMs)` columns).
    pub(crate) fn grid_2d_rows(&self, m: usize, n: usize) -> LaunchConfig {
        let sms = self.inner.info.multiprocessors.max(1) as usize;
        let gx = m.div_ceil(256).clamp(1, 65_535);
        let gy = (sms * 32).div_ceil(gx).clamp(1, n.clamp(1, 65_535));
        LaunchConfig::new((gx as u32, gy as u32), 256)
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

    /// GPU time between marks, for per-stage profiles.
    pub(crate) fn event(&self) -> Result<sys::Event> {
        self.inner.sys.event()
    }

    /// The device's cuBLAS handle (created on first use, default math mode, on the stream).
    ///
    /// # Errors
    /// [`Error::CudaLibraryMissing`] without `libcublas`; [`Error::CudaLaunch`] if the handle
    /// cannot be created or configured.
    pub(crate) fn blas(&self) -> Result<Arc<sys::Blas>> {
        if !sys::cublas_present() {
            return Err(Error::CudaLibraryMissing { library: "cublas" });
        }
        self.cached("cublas", "default", 0, || self.inner.sys.blas())
    }

    /// The device's cuSOLVER dense handle (made on first use, bound to its stream).
    pub(crate) fn solver(&self) -> Result<Arc<sys::Solver>> {
        self.cached("cusolver", "default", 0, || self.inner.sys.solver())
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
