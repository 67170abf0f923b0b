//! The driver layer: the only file that calls cudarc (the CUDA driver, NVRTC and cuBLAS,
//! all loaded at run time). Everything else in mpblas, the rest of the runtime included, goes
//! through the small set of types and functions here, so that:
//!
//! - a library that is missing turns into an [`Error`] before cudarc is asked for a symbol
//!   (cudarc panics on a missing library); every driver error carries the driver's own text;
//! - without the `cuda` feature, `sys_off.rs` provides the same items with uninhabited types
//!   and [`Error::CudaNotBuilt`], and every public function above this layer is compiled once
//!   for both builds (no twin of the public API).
//!
//! Memory is addressed by raw device addresses (`u64`) above this layer: mpblas enqueues all
//! work of a device on one stream, so cudarc's per-allocation event tracking (which orders
//! several streams) is not needed and is switched off.

use super::launch::{Arg, LaunchConfig};
use crate::error::{Error, Result};
use cudarc::cublas::CudaBlas;
use cudarc::cublas::sys as blas_sys;
use cudarc::cusolver::safe::DnHandle;
use cudarc::cusolver::sys as solver_sys;
use cudarc::driver::{
    CudaContext, CudaEvent, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr,
    DriverError, sys,
};
use cudarc::nvrtc::{result as nvrtc_result, sys as nvrtc_sys};
use std::ffi::{CStr, CString, c_int, c_void};
use std::sync::{Arc, OnceLock};

/// The oldest driver API version the bindings need (`cuDriverGetVersion` encoding: 13.0).
pub(crate) const REQUIRED_DRIVER_VERSION: i32 = 13000;

/// A driver error as text: its name and the driver's description.
fn driver_cause(e: &DriverError) -> String {
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

// ---- library probing ------------------------------------------------------------------------

/// True if the CUDA driver library (`libcuda`) can be loaded.
pub(crate) fn driver_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: `is_culib_present` only tries to open the library by its candidate names with
    // libloading and drops it again; it cannot panic.
    *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() })
}

/// True if cuBLAS (`libcublas`) can be loaded.
pub(crate) fn cublas_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: as for `driver_present`.
    *PRESENT.get_or_init(|| unsafe { blas_sys::is_culib_present() })
}

/// True if cuSOLVER (`libcusolver`) can be loaded.
pub(crate) fn cusolver_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: as for `driver_present`.
    *PRESENT.get_or_init(|| unsafe { solver_sys::is_culib_present() })
}

/// True if NVRTC (`libnvrtc`) can be loaded.
pub(crate) fn nvrtc_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: as for `driver_present`.
    *PRESENT.get_or_init(|| unsafe { nvrtc_sys::is_culib_present() })
}

/// The driver's CUDA version (13000 for 13.0), after checking that the driver loads and is
/// recent enough for the bindings. Every other driver call comes after this one, so none of
/// them can hit a missing symbol (which would panic inside cudarc).
pub(crate) fn driver_version() -> Result<i32> {
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
pub(crate) fn device_count() -> Result<usize> {
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

/// What the driver says about one device (no context is created).
pub(crate) struct RawDeviceInfo {
    pub name: String,
    pub compute_capability: (u32, u32),
    pub total_memory: usize,
    pub multiprocessors: u32,
}

/// The attributes of device `ordinal`, which must be below [`device_count`].
pub(crate) fn device_info(ordinal: usize) -> Result<RawDeviceInfo> {
    use cudarc::driver::result::device;
    use sys::CUdevice_attribute as A;
    let ordinal = i32::try_from(ordinal).map_err(|_| Error::CudaNoDevice {
        ordinal,
        count: device_count().unwrap_or(0),
    })?;
    let dev = device::get(ordinal).map_err(driver_err("cuDeviceGet"))?;
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
    Ok(RawDeviceInfo {
        name,
        compute_capability: (major.max(0) as u32, minor.max(0) as u32),
        total_memory: total,
        multiprocessors: sms.max(0) as u32,
    })
}

/// The cuBLAS version, if the library loads.
pub(crate) fn cublas_version() -> Option<(i32, i32, i32)> {
    use blas_sys::{cublasGetProperty, libraryPropertyType};
    if !cublas_present() {
        return None;
    }
    let get = |p| {
        let mut v = 0;
        // SAFETY: libcublas is present (checked above); cublasGetProperty needs no handle and
        // writes one int through a pointer to a live local.
        let status = unsafe { cublasGetProperty(p, &mut v) };
        (status == blas_sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS).then_some(v)
    };
    Some((
        get(libraryPropertyType::MAJOR_VERSION)?,
        get(libraryPropertyType::MINOR_VERSION)?,
        get(libraryPropertyType::PATCH_LEVEL)?,
    ))
}

// ---- NVRTC ------------------------------------------------------------------------------------

/// The NVRTC version `(major, minor)`, or [`Error::CudaLibraryMissing`] without `libnvrtc`.
pub(crate) fn nvrtc_version() -> Result<(i32, i32)> {
    if !nvrtc_present() {
        return Err(Error::CudaLibraryMissing { library: "nvrtc" });
    }
    let (mut major, mut minor) = (0, 0);
    // SAFETY: the library is present (checked above), and nvrtcVersion writes two ints through
    // the pointers, which point to live locals.
    let status = unsafe { nvrtc_sys::nvrtcVersion(&mut major, &mut minor) };
    status.result().map_err(|e| Error::CudaCompile {
        module: "(version query)",
        arch: String::new(),
        cause: format!("{:?}", e.0),
        log: String::new(),
    })?;
    Ok((major, minor))
}

/// Destroys an NVRTC program when dropped, so that every exit path releases it.
struct Program(nvrtc_sys::nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: the program was created by `create_program` and is destroyed only here.
        // A failure to destroy cannot be reported from a drop and only leaks host memory.
        let _ = unsafe { nvrtc_result::destroy_program(self.0) };
    }
}

/// Compiles the expanded source of `module` to a CUBIN for `arch` with `options`.
pub(crate) fn nvrtc_compile(
    module: &'static str,
    expanded: &str,
    arch: &str,
    options: &[String],
) -> Result<Vec<u8>> {
    if !nvrtc_present() {
        return Err(Error::CudaLibraryMissing { library: "nvrtc" });
    }
    let fail = |cause: String, log: String| Error::CudaCompile {
        module,
        arch: arch.to_string(),
        cause,
        log,
    };
    let src = CString::new(expanded)
        .map_err(|_| fail("source contains a NUL byte".into(), String::new()))?;
    let name = CString::new(format!("{module}.cu"))
        .map_err(|_| fail("module name contains a NUL byte".into(), String::new()))?;
    let prog = nvrtc_result::create_program(&src, Some(&name))
        .map(Program)
        .map_err(|e| fail(format!("nvrtcCreateProgram: {:?}", e.0), String::new()))?;
    // SAFETY: `prog` is a live program (created above, destroyed when `prog` drops); the
    // options are NUL-free ASCII strings (built by `nvrtc::options`).
    let compiled = unsafe { nvrtc_result::compile_program(prog.0, options) };
    if let Err(e) = compiled {
        // SAFETY: as above; the log is a NUL-terminated buffer owned by the returned Vec.
        let log = unsafe { nvrtc_result::get_program_log(prog.0) }
            .map(|raw| {
                let bytes: Vec<u8> = raw.iter().map(|&c| c as u8).collect();
                CStr::from_bytes_until_nul(&bytes)
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default()
            })
            .unwrap_or_default();
        return Err(fail(format!("{:?}", e.0), log));
    }
    let mut size = 0usize;
    // SAFETY: `prog` compiled successfully for a real architecture (`sm_XY`), so it holds a
    // CUBIN; the size is written through a pointer to a live local.
    unsafe { nvrtc_sys::nvrtcGetCUBINSize(prog.0, &mut size) }
        .result()
        .map_err(|e| fail(format!("nvrtcGetCUBINSize: {:?}", e.0), String::new()))?;
    let mut image = vec![0u8; size];
    // SAFETY: `image` has exactly the `size` bytes NVRTC asked for.
    unsafe { nvrtc_sys::nvrtcGetCUBIN(prog.0, image.as_mut_ptr().cast()) }
        .result()
        .map_err(|e| fail(format!("nvrtcGetCUBIN: {:?}", e.0), String::new()))?;
    if image.is_empty() {
        return Err(fail(
            format!("no CUBIN produced (is {arch} a real architecture?)"),
            String::new(),
        ));
    }
    Ok(image)
}

// ---- context, stream, memory, modules, launches ------------------------------------------------

/// A CUDA context with the one stream mpblas enqueues on.
pub(crate) struct Context {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    ordinal: usize,
}

/// A CUDA event recorded on a context's stream (timing enabled).
pub(crate) struct Event(CudaEvent);

/// A device allocation of `len` bytes at `addr`, freed (in stream order) when dropped.
pub(crate) struct Buffer {
    /// Held for its `Drop`, which frees the allocation in stream order.
    _owner: CudaSlice<u8>,
    addr: u64,
}

/// A loaded kernel module.
#[derive(Clone)]
pub(crate) struct Module(Arc<CudaModule>);

/// One entry point of a loaded module.
#[derive(Clone)]
pub(crate) struct Function(CudaFunction);

impl Context {
    /// A context and stream on device `ordinal`.
    pub(crate) fn open(ordinal: usize) -> Result<Context> {
        let ctx = CudaContext::new(ordinal).map_err(driver_err("context creation"))?;
        // SAFETY: every allocation, copy and launch of this context goes to the one stream
        // below, in program order, so the ordering cudarc's events provide across streams is
        // not needed; switching tracking off before the first allocation is what the method
        // requires.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream().map_err(driver_err("stream creation"))?;
        Ok(Context {
            ctx,
            stream,
            ordinal,
        })
    }

    /// Waits until everything enqueued on the stream has finished.
    pub(crate) fn synchronize(&self) -> Result<()> {
        self.stream.synchronize().map_err(driver_err("synchronize"))
    }

    /// Free and total device memory in bytes.
    pub(crate) fn mem_info(&self) -> Result<(usize, usize)> {
        self.ctx.mem_get_info().map_err(driver_err("memory query"))
    }

    /// An event recorded now on the stream.
    pub(crate) fn event(&self) -> Result<Event> {
        let e = self
            .ctx
            .new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(driver_err("event"))?;
        e.record(&self.stream).map_err(driver_err("event record"))?;
        Ok(Event(e))
    }

    /// `bytes` bytes of device memory (at least one: the driver refuses empty allocations),
    /// zeroed when `zeroed`.
    pub(crate) fn alloc(&self, bytes: usize, zeroed: bool) -> Result<Buffer> {
        let bytes = bytes.max(1);
        let oom = |e: DriverError| match e.0 {
            sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => Error::CudaOutOfMemory {
                ordinal: self.ordinal,
                bytes,
            },
            _ => driver_err("allocation")(e),
        };
        let slice = if zeroed {
            self.stream.alloc_zeros::<u8>(bytes).map_err(oom)?
        } else {
            // SAFETY: uninitialised device memory; callers write what they later read.
            unsafe { self.stream.alloc::<u8>(bytes) }.map_err(oom)?
        };
        let addr = slice.device_ptr(&self.stream).0;
        Ok(Buffer {
            _owner: slice,
            addr,
        })
    }

    /// Copies `src` to device address `dst` (enqueued; returns once `src` has been staged).
    ///
    /// # Safety
    /// `dst` must address at least `src.len()` bytes of a live allocation of this context.
    pub(crate) unsafe fn htod(&self, dst: u64, src: &[u8]) -> Result<()> {
        self.ctx.bind_to_thread().map_err(driver_err("upload"))?;
        // SAFETY: the caller's contract; a copy from pageable memory is staged before the call
        // returns, so `src` may be reused at once.
        unsafe { cudarc::driver::result::memcpy_htod_async(dst, src, self.stream.cu_stream()) }
            .map_err(driver_err("upload"))
    }

    /// Copies `dst.len()` bytes from device address `src` into `dst`, after everything
    /// enqueued before (waits).
    ///
    /// # Safety
    /// `src` must address at least `dst.len()` bytes of a live allocation of this context.
    pub(crate) unsafe fn dtoh(&self, dst: &mut [u8], src: u64) -> Result<()> {
        self.ctx.bind_to_thread().map_err(driver_err("download"))?;
        // SAFETY: the caller's contract; the stream is synchronised before `dst` is used.
        unsafe { cudarc::driver::result::memcpy_dtoh_async(dst, src, self.stream.cu_stream()) }
            .map_err(driver_err("download"))?;
        self.stream.synchronize().map_err(driver_err("download"))
    }

    /// Copies `bytes` bytes between device addresses (enqueued).
    ///
    /// # Safety
    /// Both ranges must lie in live allocations of this context and not overlap.
    pub(crate) unsafe fn dtod(&self, dst: u64, src: u64, bytes: usize) -> Result<()> {
        self.ctx
            .bind_to_thread()
            .map_err(driver_err("device copy"))?;
        // SAFETY: the caller's contract.
        unsafe {
            cudarc::driver::result::memcpy_dtod_async(dst, src, bytes, self.stream.cu_stream())
        }
        .map_err(driver_err("device copy"))
    }

    /// Sets `bytes` bytes at `dst` to `byte` (enqueued).
    ///
    /// # Safety
    /// `dst` must address at least `bytes` bytes of a live allocation of this context.
    pub(crate) unsafe fn memset(&self, dst: u64, byte: u8, bytes: usize) -> Result<()> {
        self.ctx.bind_to_thread().map_err(driver_err("memset"))?;
        // SAFETY: the caller's contract.
        unsafe {
            cudarc::driver::result::memset_d8_async(dst, byte, bytes, self.stream.cu_stream())
        }
        .map_err(driver_err("memset"))
    }

    /// Loads a CUBIN image into this context; the error is the driver's text.
    pub(crate) fn load_module(&self, image: &[u8]) -> std::result::Result<Module, String> {
        self.ctx
            .load_module(cudarc::nvrtc::Ptx::from_binary(image.to_vec()))
            .map(Module)
            .map_err(|e| driver_cause(&e))
    }

    /// Launches `f` with `args` on the stream; the error is the driver's text.
    ///
    /// # Safety
    /// `args` must match the kernel's parameter list in number and type, every address must
    /// point into live allocations of this context large enough for the kernel's accesses,
    /// and `cfg` must be a launch shape the kernel supports.
    ///
    /// `overlap_previous`: launched with programmatic stream serialization (sm_90 and later),
    /// so that its blocks may start while the previous kernel on the stream finishes; the
    /// kernel must then wait (`griddepcontrol.wait`) before it reads what that kernel writes.
    pub(crate) unsafe fn launch(
        &self,
        f: &Function,
        cfg: &LaunchConfig,
        args: &[Arg],
        overlap_previous: bool,
    ) -> std::result::Result<(), String> {
        self.ctx.bind_to_thread().map_err(|e| driver_cause(&e))?;
        // cuLaunchKernel reads each parameter through a pointer to its value, at the call.
        let mut params: Vec<*mut c_void> = args.iter().map(Arg::as_param).collect();
        if !overlap_previous {
            // SAFETY: the caller's contract; `params` points into `args`, alive for the call.
            return unsafe {
                cudarc::driver::result::launch_kernel(
                    f.0.cu_function(),
                    cfg.grid,
                    cfg.block,
                    cfg.shared_bytes,
                    self.stream.cu_stream(),
                    &mut params,
                )
            }
            .map_err(|e| driver_cause(&e));
        }
        // SAFETY: a plain C union; the attribute's value is its `int` member.
        let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
        attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        attr.value.programmaticStreamSerializationAllowed = 1;
        let config = sys::CUlaunchConfig {
            gridDimX: cfg.grid.0,
            gridDimY: cfg.grid.1,
            gridDimZ: cfg.grid.2,
            blockDimX: cfg.block.0,
            blockDimY: cfg.block.1,
            blockDimZ: cfg.block.2,
            sharedMemBytes: cfg.shared_bytes,
            hStream: self.stream.cu_stream(),
            attrs: &mut attr,
            numAttrs: 1,
        };
        // SAFETY: the caller's contract; `config` and `attr` live for the call, `params`
        // points into `args`.
        unsafe {
            sys::cuLaunchKernelEx(
                &config,
                f.0.cu_function(),
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        }
        .result()
        .map_err(|e| driver_cause(&e))
    }

    /// A new cuSOLVER dense handle bound to the stream.
    pub(crate) fn solver(&self) -> Result<Solver> {
        if !cusolver_present() {
            return Err(Error::CudaLibraryMissing {
                library: "cusolver",
            });
        }
        self.ctx
            .bind_to_thread()
            .map_err(driver_err("cuSOLVER context"))?;
        let inner = DnHandle::new(self.stream.clone()).map_err(|e| Error::CudaLaunch {
            kernel: "cusolverDnCreate",
            cause: format!("{e:?}"),
        })?;
        Ok(Solver {
            inner,
            ctx: self.ctx.clone(),
        })
    }

    /// A new cuBLAS handle bound to the stream, in the default math mode (no TF32).
    pub(crate) fn blas(&self) -> Result<Blas> {
        if !cublas_present() {
            return Err(Error::CudaLibraryMissing { library: "cublas" });
        }
        let inner = CudaBlas::new(self.stream.clone()).map_err(|e| Error::CudaLaunch {
            kernel: "cublasCreate",
            cause: format!("{e:?}"),
        })?;
        let blas = Blas {
            inner,
            ctx: self.ctx.clone(),
        };
        blas.set_math_mode(blas_sys::cublasMath_t::CUBLAS_DEFAULT_MATH)?;
        Ok(blas)
    }
}

impl Event {
    /// Milliseconds of GPU time from this event to `later` (waits for `later`).
    pub(crate) fn elapsed_ms(&self, later: &Event) -> Result<f32> {
        later
            .0
            .synchronize()
            .map_err(driver_err("event synchronize"))?;
        self.0
            .elapsed_ms(&later.0)
            .map_err(driver_err("event timing"))
    }
}

impl Buffer {
    /// The device address of the first byte.
    pub(crate) fn addr(&self) -> u64 {
        self.addr
    }
}

impl Module {
    /// The entry point `name`; the error is the driver's text.
    pub(crate) fn function(&self, name: &str) -> std::result::Result<Function, String> {
        self.0
            .load_function(name)
            .map(Function)
            .map_err(|e| driver_cause(&e))
    }
}

impl Function {
    /// How many blocks of `block` threads fit on one multiprocessor at once.
    pub(crate) fn blocks_per_sm(&self, block: u32) -> Result<usize> {
        self.0
            .occupancy_max_active_blocks_per_multiprocessor(block, 0, None)
            .map(|b| b as usize)
            .map_err(driver_err("cuOccupancyMaxActiveBlocksPerMultiprocessor"))
    }
}

// ---- cuBLAS -------------------------------------------------------------------------------------

/// A cuBLAS handle on a context's stream.
pub(crate) struct Blas {
    inner: CudaBlas,
    /// cuBLAS works in the calling thread's current context: each call binds this one first.
    ctx: Arc<CudaContext>,
}

/// A cuSOLVER dense handle on a device's stream: the `f64` LU of the solvers.
pub(crate) struct Solver {
    inner: DnHandle,
    /// cuSOLVER works in the calling thread's current context: each call binds this one first.
    ctx: Arc<CudaContext>,
}

fn solver_status(op: &'static str, s: solver_sys::cusolverStatus_t) -> Result<()> {
    if s == solver_sys::cusolverStatus_t::CUSOLVER_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(Error::CudaLaunch {
            kernel: op,
            cause: format!("{s:?}"),
        })
    }
}

impl Solver {
    fn bound_handle(&self) -> Result<solver_sys::cusolverDnHandle_t> {
        self.ctx
            .bind_to_thread()
            .map_err(driver_err("cuSOLVER context"))?;
        Ok(self.inner.cu())
    }

    /// Doubles of workspace `cusolverDnDgetrf` needs for an `n × n` matrix at `a` (`lda`).
    ///
    /// # Safety
    /// `a` addresses `lda·(n−1) + n` doubles of this device.
    pub(crate) unsafe fn dgetrf_work(&self, n: usize, (a, lda): (u64, usize)) -> Result<usize> {
        let h = self.bound_handle()?;
        let (n, lda) = (dim("n", n)?, dim("lda", lda)?);
        let mut lwork: c_int = 0;
        // SAFETY: the caller's contract; lwork is a host int.
        let s = unsafe {
            solver_sys::cusolverDnDgetrf_bufferSize(h, n, n, a as *mut f64, lda, &mut lwork)
        };
        solver_status("cusolverDnDgetrf_bufferSize", s)?;
        Ok(lwork.max(0) as usize)
    }

    /// `cusolverDnDgetrf`: the LU of the `n × n` matrix at `a` (`lda`) with partial pivoting,
    /// in place; 1-based pivots to `ipiv` (`n` ints), LAPACK's `info` to `info` (one int).
    ///
    /// # Safety
    /// `a` addresses `lda·(n−1) + n` doubles, `work` [`Solver::dgetrf_work`] doubles, `ipiv`
    /// `n` ints and `info` one int, all of this device, not overlapping.
    pub(crate) unsafe fn dgetrf(
        &self,
        n: usize,
        (a, lda): (u64, usize),
        work: u64,
        ipiv: u64,
        info: u64,
    ) -> Result<()> {
        let h = self.bound_handle()?;
        let (n, lda) = (dim("n", n)?, dim("lda", lda)?);
        // SAFETY: the caller's contract.
        let s = unsafe {
            solver_sys::cusolverDnDgetrf(
                h,
                n,
                n,
                a as *mut f64,
                lda,
                work as *mut f64,
                ipiv as *mut c_int,
                info as *mut c_int,
            )
        };
        solver_status("cusolverDnDgetrf", s)
    }

    /// `cusolverDnDgetrs` (no transpose): `B ← A⁻¹·B` from [`Solver::dgetrf`]'s factors.
    ///
    /// # Safety
    /// `a` and `ipiv` as left by `dgetrf` for order `n`, `b` addresses `ldb·(nrhs−1) + n`
    /// doubles, `info` one int, all of this device.
    pub(crate) unsafe fn dgetrs(
        &self,
        (n, nrhs): (usize, usize),
        (a, lda): (u64, usize),
        ipiv: u64,
        (b, ldb): (u64, usize),
        info: u64,
    ) -> Result<()> {
        let h = self.bound_handle()?;
        let (n, nrhs) = (dim("n", n)?, dim("nrhs", nrhs)?);
        let (lda, ldb) = (dim("lda", lda)?, dim("ldb", ldb)?);
        // SAFETY: the caller's contract.
        let s = unsafe {
            solver_sys::cusolverDnDgetrs(
                h,
                solver_sys::cublasOperation_t::CUBLAS_OP_N,
                n,
                nrhs,
                a as *const f64,
                lda,
                ipiv as *const c_int,
                b as *mut f64,
                ldb,
                info as *mut c_int,
            )
        };
        solver_status("cusolverDnDgetrs", s)
    }
}

fn blas_status(op: &'static str, s: blas_sys::cublasStatus_t) -> Result<()> {
    if s == blas_sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(Error::CudaLaunch {
            kernel: op,
            cause: format!("{s:?}"),
        })
    }
}

/// `i32` for a cuBLAS dimension, or [`Error::OutOfRange`].
pub(crate) fn dim(what: &'static str, x: usize) -> Result<i32> {
    i32::try_from(x).map_err(|_| Error::OutOfRange {
        what,
        got: x,
        min: 0,
        max: i32::MAX as usize,
    })
}

fn op(t: bool) -> blas_sys::cublasOperation_t {
    if t {
        blas_sys::cublasOperation_t::CUBLAS_OP_T
    } else {
        blas_sys::cublasOperation_t::CUBLAS_OP_N
    }
}

/// The data types [`Blas::gemm_ex`] multiplies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GemmType {
    /// INT8 operands, INT32 results and scalars (exact).
    I8I32,
    /// `f32` operands, results and scalars (IEEE, no TF32).
    F32,
    /// `f64` operands, results and scalars.
    F64,
    /// `f64` operands and results computed by cuBLAS's fixed-point FP64 emulation.
    F64Emulated,
}

/// A cuBLAS level-1 call on `f64` vectors (the yardsticks of the BLAS benchmarks).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Level1 {
    /// `cublasDdot`: returns `x·y`.
    Dot,
    /// `cublasDaxpy`: `y ← α·x + y`, returns 0.
    Axpy(f64),
    /// `cublasDnrm2`: returns `‖x‖₂`.
    Nrm2,
    /// `cublasDasum`: returns `Σ|x_i|`.
    Asum,
}

impl Blas {
    /// One cuBLAS level-1 call on `n` elements at `x` and `y` (unit increments); host pointer
    /// mode, so a result is read back (which waits for the call).
    ///
    /// # Safety
    /// `x` (and `y` for dot and axpy) must address `n` doubles on this handle's device.
    pub(crate) unsafe fn level1(&self, op: Level1, n: usize, x: u64, y: u64) -> Result<f64> {
        let h = self.bound_handle()?;
        let n = dim("n", n)?;
        let mut r = 0.0f64;
        let (xp, yp) = (x as *const f64, y as *mut f64);
        // SAFETY (all arms): the caller's contract; `r` and `alpha` are host scalars (the
        // handle's default pointer mode is host).
        let (what, s) = match op {
            Level1::Dot => ("cublasDdot", unsafe {
                blas_sys::cublasDdot_v2(h, n, xp, 1, yp, 1, &mut r)
            }),
            Level1::Axpy(alpha) => ("cublasDaxpy", unsafe {
                blas_sys::cublasDaxpy_v2(h, n, &alpha, xp, 1, yp, 1)
            }),
            Level1::Nrm2 => ("cublasDnrm2", unsafe {
                blas_sys::cublasDnrm2_v2(h, n, xp, 1, &mut r)
            }),
            Level1::Asum => ("cublasDasum", unsafe {
                blas_sys::cublasDasum_v2(h, n, xp, 1, &mut r)
            }),
        };
        blas_status(what, s)?;
        Ok(r)
    }
}

impl Blas {
    /// The handle, with its context bound to this thread (every cuBLAS call needs both).
    fn bound_handle(&self) -> Result<blas_sys::cublasHandle_t> {
        self.ctx
            .bind_to_thread()
            .map_err(driver_err("cuBLAS context"))?;
        Ok(*self.inner.handle())
    }
}

impl Blas {
    /// `cublasDgemv`: `y ← α·op(A)·x + β·y`, `A` `m × n` column-major (`lda`), unit increments.
    ///
    /// # Safety
    /// `a` must address `lda·(n−1) + m` doubles, `x` and `y` the lengths `op(A)` gives them, all
    /// on this handle's device, `y` not overlapping `a` or `x`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn gemv(
        &self,
        trans: bool,
        (m, n): (usize, usize),
        alpha: f64,
        (a, lda): (u64, usize),
        x: u64,
        beta: f64,
        y: u64,
    ) -> Result<()> {
        let h = self.bound_handle()?;
        let (m, n, lda) = (dim("m", m)?, dim("n", n)?, dim("lda", lda)?);
        // SAFETY: the caller's contract; alpha and beta are host scalars (host pointer mode).
        let s = unsafe {
            blas_sys::cublasDgemv_v2(
                h,
                op(trans),
                m,
                n,
                &alpha,
                a as *const f64,
                lda,
                x as *const f64,
                1,
                &beta,
                y as *mut f64,
                1,
            )
        };
        blas_status("cublasDgemv", s)
    }

    /// `cublasDtrsv`: `x ← op(T)⁻¹·x` for the triangle of the `n × n` column-major `a` (`lda`)
    /// named by `upper`, with a unit diagonal (not read) when `unit`; unit increment.
    ///
    /// # Safety
    /// `a` must address `lda·(n−1) + n` doubles and `x` `n` doubles, both on this handle's
    /// device, not overlapping.
    pub(crate) unsafe fn trsv(
        &self,
        (upper, trans, unit): (bool, bool, bool),
        n: usize,
        (a, lda): (u64, usize),
        x: u64,
    ) -> Result<()> {
        let h = self.bound_handle()?;
        let (n, lda) = (dim("n", n)?, dim("lda", lda)?);
        let uplo = if upper {
            blas_sys::cublasFillMode_t::CUBLAS_FILL_MODE_UPPER
        } else {
            blas_sys::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER
        };
        let diag = if unit {
            blas_sys::cublasDiagType_t::CUBLAS_DIAG_UNIT
        } else {
            blas_sys::cublasDiagType_t::CUBLAS_DIAG_NON_UNIT
        };
        // SAFETY: the caller's contract.
        let s = unsafe {
            blas_sys::cublasDtrsv_v2(
                h,
                uplo,
                op(trans),
                diag,
                n,
                a as *const f64,
                lda,
                x as *mut f64,
                1,
            )
        };
        blas_status("cublasDtrsv", s)
    }

    /// `cublasDger`: `A ← α·x·yᵀ + A`, `A` `m × n` column-major (`lda`), unit increments.
    ///
    /// # Safety
    /// `x` must address `m` doubles, `y` `n`, `a` `lda·(n−1) + m`, all on this handle's device,
    /// `a` not overlapping `x` or `y`.
    pub(crate) unsafe fn ger(
        &self,
        (m, n): (usize, usize),
        alpha: f64,
        x: u64,
        y: u64,
        (a, lda): (u64, usize),
    ) -> Result<()> {
        let h = self.bound_handle()?;
        let (m, n, lda) = (dim("m", m)?, dim("n", n)?, dim("lda", lda)?);
        // SAFETY: the caller's contract; alpha is a host scalar.
        let s = unsafe {
            blas_sys::cublasDger_v2(
                h,
                m,
                n,
                &alpha,
                x as *const f64,
                1,
                y as *const f64,
                1,
                a as *mut f64,
                lda,
            )
        };
        blas_status("cublasDger", s)
    }
}

impl Blas {
    fn set_math_mode(&self, mode: blas_sys::cublasMath_t) -> Result<()> {
        // SAFETY: the handle is live; the call only sets a mode flag on it.
        let s = unsafe { blas_sys::cublasSetMathMode(*self.inner.handle(), mode) };
        blas_status("cublasSetMathMode", s)
    }

    /// `C = α·op(A)·op(B) + β·C` by `cublasGemmEx` in the arithmetic `ty`, column-major BLAS
    /// arguments; `alpha` and `beta` are host scalars of the type's scale type, passed as
    /// `f64` and converted (exactly: the callers pass 0, 1 or an `f32`/`f64` value of that
    /// type).
    ///
    /// # Safety
    /// `a` must address the `op(A)` storage its dimensions and `lda` describe (`lda·(cols−1) +
    /// rows` elements of the type), likewise `b`, and `c` `ldc·(n−1) + m` elements, all on this
    /// handle's device, `c` not overlapping `a` or `b`, leading dimensions at least the row
    /// counts. For INT8 the tensor-core path wants `k`, the leading dimensions and addresses
    /// multiples of 16 (the callers use multiples of 16).
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn gemm_ex(
        &self,
        ty: GemmType,
        ta: bool,
        tb: bool,
        (m, n, k): (usize, usize, usize),
        alpha: f64,
        (a, lda): (u64, usize),
        (b, ldb): (u64, usize),
        beta: f64,
        (c, ldc): (u64, usize),
    ) -> Result<()> {
        use blas_sys::{cublasComputeType_t as C, cudaDataType as D};
        let h = self.bound_handle()?;
        let (m, n, k) = (dim("m", m)?, dim("n", n)?, dim("k", k)?);
        let (lda, ldb, ldc) = (dim("lda", lda)?, dim("ldb", ldb)?, dim("ldc", ldc)?);
        // SAFETY (all arms): the caller's contract; alpha and beta point to host scalars of the
        // compute type's scale type (the handle's default pointer mode is host).
        let (what, s) = match ty {
            // The classic entry points for f32 and f64, so that "cuBLAS SGEMM/DGEMM" in a
            // benchmark is exactly what those names mean.
            GemmType::F32 => {
                let (af, bf) = (alpha as f32, beta as f32);
                let s = unsafe {
                    blas_sys::cublasSgemm_v2(
                        h,
                        op(ta),
                        op(tb),
                        m,
                        n,
                        k,
                        &af,
                        a as *const f32,
                        lda,
                        b as *const f32,
                        ldb,
                        &bf,
                        c as *mut f32,
                        ldc,
                    )
                };
                ("cublasSgemm", s)
            }
            GemmType::F64 => {
                let s = unsafe {
                    blas_sys::cublasDgemm_v2(
                        h,
                        op(ta),
                        op(tb),
                        m,
                        n,
                        k,
                        &alpha,
                        a as *const f64,
                        lda,
                        b as *const f64,
                        ldb,
                        &beta,
                        c as *mut f64,
                        ldc,
                    )
                };
                ("cublasDgemm", s)
            }
            GemmType::I8I32 | GemmType::F64Emulated => {
                let (ai, bi) = (alpha as i32, beta as i32);
                let (data, out, compute, scale, what): (_, _, _, [*const c_void; 2], _) =
                    if ty == GemmType::I8I32 {
                        (
                            D::CUDA_R_8I,
                            D::CUDA_R_32I,
                            C::CUBLAS_COMPUTE_32I,
                            [(&ai as *const i32).cast(), (&bi as *const i32).cast()],
                            "cublasGemmEx(INT8)",
                        )
                    } else {
                        (
                            D::CUDA_R_64F,
                            D::CUDA_R_64F,
                            C::CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT,
                            [(&alpha as *const f64).cast(), (&beta as *const f64).cast()],
                            "cublasGemmEx(FP64 emulation)",
                        )
                    };
                let s = unsafe {
                    blas_sys::cublasGemmEx(
                        h,
                        op(ta),
                        op(tb),
                        m,
                        n,
                        k,
                        scale[0],
                        a as *const c_void,
                        data,
                        lda,
                        b as *const c_void,
                        data,
                        ldb,
                        scale[1],
                        c as *mut c_void,
                        out,
                        ldc,
                        compute,
                        blas_sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
                    )
                };
                (what, s)
            }
        };
        blas_status(what, s)
    }

    /// Switches the handle to cuBLAS's fixed-point FP64 emulation with `strategy`
    /// (`cublasEmulationStrategy_t`), mantissa `control` (0 dynamic, 1 fixed), `max_bits`, the
    /// workspace at `workspace` (`bytes` bytes, 256-byte aligned) and the bit-count cell at
    /// `bit_cell` (a device `int`).
    ///
    /// # Safety
    /// `workspace` and `bit_cell` must stay valid allocations of this handle's context while the
    /// handle is used.
    pub(crate) unsafe fn set_fp64_emulation(
        &self,
        strategy: c_int,
        control: c_int,
        max_bits: c_int,
        (workspace, bytes): (u64, usize),
        bit_cell: u64,
    ) -> Result<()> {
        let api = emulation_api()?;
        let h = self.bound_handle()?;
        self.set_math_mode(blas_sys::cublasMath_t::CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH)?;
        // SAFETY: `h` is a live handle; these calls store settings in it; the pointers are the
        // caller's (valid for the handle's use).
        unsafe {
            emu_check(
                "cublasSetEmulationStrategy",
                (api.set_strategy)(h, strategy),
            )?;
            emu_check(
                "cublasSetFixedPointEmulationMantissaControl",
                (api.set_mantissa_control)(h, control),
            )?;
            emu_check(
                "cublasSetFixedPointEmulationMaxMantissaBitCount",
                (api.set_max_mantissa_bits)(h, max_bits),
            )?;
            emu_check(
                "cublasSetFixedPointEmulationMantissaBitCountPointer",
                (api.set_bit_count_pointer)(h, bit_cell as *mut c_int),
            )?;
            emu_check(
                "cublasSetWorkspace",
                blas_sys::cublasSetWorkspace_v2(h, workspace as *mut c_void, bytes) as c_int,
            )
        }
    }
}

// ---- the cuBLAS functions cudarc does not bind (FP64 emulation) ----------------------------------

/// `cublasStatus_t` as the C `int` it is (0 = success), so that an unexpected value cannot be
/// an invalid Rust enum.
type RawStatus = c_int;
/// `cublasStatus_t f(cublasHandle_t, int)`: the emulation setters.
type SetIntFn = unsafe extern "C" fn(blas_sys::cublasHandle_t, c_int) -> RawStatus;
/// `cublasStatus_t f(cublasHandle_t, int*)`.
type IntPtrFn = unsafe extern "C" fn(blas_sys::cublasHandle_t, *mut c_int) -> RawStatus;
/// `const char* cublasGetStatusName(cublasStatus_t)`.
type StatusNameFn = unsafe extern "C" fn(RawStatus) -> *const std::ffi::c_char;

/// The emulation controls, all required.
struct EmulationApi {
    set_strategy: SetIntFn,
    set_mantissa_control: SetIntFn,
    set_max_mantissa_bits: SetIntFn,
    set_bit_count_pointer: IntPtrFn,
}

/// `name` from the `libcublas` cudarc loaded, as a function pointer of type `F`.
///
/// # Safety
/// `F` must be the C prototype of `name`.
unsafe fn lookup<F: Copy>(name: &'static str) -> Result<F> {
    if !cublas_present() {
        return Err(Error::CudaLibraryMissing { library: "cublas" });
    }
    // SAFETY: culib() panics only when none of cudarc's candidate names loads, which
    // cublas_present() (the same candidates) has ruled out; it returns cudarc's own library,
    // loaded once per process and never unloaded, so the pointer stays valid.
    let lib = unsafe { blas_sys::culib() };
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

/// The emulation controls, looked up once per process: `Ok` when this cuBLAS has them.
fn emulation_api() -> Result<&'static EmulationApi> {
    static API: OnceLock<Result<EmulationApi>> = OnceLock::new();
    API.get_or_init(|| {
        // SAFETY: each type is the prototype in cublas_api.h of cuBLAS 13.1 (enums are C ints).
        unsafe {
            Ok(EmulationApi {
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

/// `Ok` when the loaded cuBLAS has the FP64 emulation controls.
pub(crate) fn fp64_emulation_present() -> Result<()> {
    emulation_api().map(|_| ())
}

/// The status as text: its name from `cublasGetStatusName` when available, and its number.
pub(crate) fn cublas_status_text(s: c_int) -> String {
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

fn emu_check(op: &'static str, s: RawStatus) -> Result<()> {
    if s == 0 {
        Ok(())
    } else {
        Err(Error::CudaLaunch {
            kernel: op,
            cause: cublas_status_text(s),
        })
    }
}

/// The version `cublasGetVersion_v2` reports (`major·10000 + minor·100 + patch`).
pub(crate) fn cublas_version_number() -> Result<i32> {
    static GET: OnceLock<Result<IntPtrFn>> = OnceLock::new();
    // SAFETY: `IntPtrFn` is the prototype of cublasGetVersion_v2.
    let get = GET
        .get_or_init(|| unsafe { lookup::<IntPtrFn>("cublasGetVersion_v2") })
        .clone()?;
    let mut v = 0;
    // SAFETY: the docs allow a null handle here (2.4.3); one int is written to a live local.
    emu_check("cublasGetVersion", unsafe {
        get(std::ptr::null_mut(), &mut v)
    })?;
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emulation_enums_match_the_header() {
        assert_eq!(
            blas_sys::cublasComputeType_t::CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT as u32,
            79
        );
        assert_eq!(
            blas_sys::cublasMath_t::CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH as u32,
            8
        );
    }

    #[test]
    fn status_text_names_the_number() {
        assert!(cublas_status_text(7).contains('7'));
    }
}
