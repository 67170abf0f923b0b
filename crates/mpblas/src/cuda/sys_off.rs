//! The driver layer without the `cuda` feature: the items of `sys.rs` with uninhabited types,
//! so that no context, buffer, module or handle can exist, and probes that report nothing.
//! Everything above this file is the same code in both builds; [`Context::open`] returning
//! [`Error::CudaNotBuilt`] is what makes every GPU function of the library return it.

use super::launch::{Arg, LaunchConfig};
use crate::error::{Error, Result};
use std::ffi::c_int;

/// As in `sys.rs`.
pub(crate) const REQUIRED_DRIVER_VERSION: i32 = 13000;

pub(crate) fn driver_present() -> bool {
    false
}
pub(crate) fn cublas_present() -> bool {
    false
}
pub(crate) fn nvrtc_present() -> bool {
    false
}
pub(crate) fn driver_version() -> Result<i32> {
    Err(Error::CudaNotBuilt)
}
pub(crate) fn device_count() -> Result<usize> {
    Err(Error::CudaNotBuilt)
}

pub(crate) struct RawDeviceInfo {
    pub name: String,
    pub compute_capability: (u32, u32),
    pub total_memory: usize,
    pub multiprocessors: u32,
}

pub(crate) fn device_info(_ordinal: usize) -> Result<RawDeviceInfo> {
    Err(Error::CudaNotBuilt)
}
pub(crate) fn cublas_version() -> Option<(i32, i32, i32)> {
    None
}
pub(crate) fn nvrtc_version() -> Result<(i32, i32)> {
    Err(Error::CudaNotBuilt)
}
pub(crate) fn nvrtc_compile(
    _module: &'static str,
    _expanded: &str,
    _arch: &str,
    _options: &[String],
) -> Result<Vec<u8>> {
    Err(Error::CudaNotBuilt)
}
pub(crate) fn fp64_emulation_present() -> Result<()> {
    Err(Error::CudaNotBuilt)
}
pub(crate) fn cublas_version_number() -> Result<i32> {
    Err(Error::CudaNotBuilt)
}

/// No context exists without the feature.
pub(crate) enum Context {}
/// No event exists without the feature.
pub(crate) enum Event {}
/// No buffer exists without the feature.
pub(crate) enum Buffer {}
/// No module exists without the feature.
pub(crate) enum Module {}
/// No function exists without the feature.
pub(crate) enum Function {}
/// No cuBLAS handle exists without the feature.
pub(crate) enum Blas {}
/// No cuSOLVER handle exists without the feature.
pub(crate) enum Solver {}

impl Solver {
    pub(crate) unsafe fn dgetrf_work(&self, _n: usize, _a: (u64, usize)) -> Result<usize> {
        match *self {}
    }
    pub(crate) unsafe fn dgetrf(
        &self,
        _n: usize,
        _a: (u64, usize),
        _work: u64,
        _ipiv: u64,
        _info: u64,
    ) -> Result<()> {
        match *self {}
    }
    pub(crate) unsafe fn dgetrs(
        &self,
        _dims: (usize, usize),
        _a: (u64, usize),
        _ipiv: u64,
        _b: (u64, usize),
        _info: u64,
    ) -> Result<()> {
        match *self {}
    }
}

/// As in `sys.rs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GemmType {
    I8I32,
    F32,
    F64,
    F64Emulated,
}

impl Context {
    pub(crate) fn open(_ordinal: usize) -> Result<Context> {
        Err(Error::CudaNotBuilt)
    }
    pub(crate) fn synchronize(&self) -> Result<()> {
        match *self {}
    }
    pub(crate) fn mem_info(&self) -> Result<(usize, usize)> {
        match *self {}
    }
    pub(crate) fn event(&self) -> Result<Event> {
        match *self {}
    }
    pub(crate) fn alloc(&self, _bytes: usize, _zeroed: bool) -> Result<Buffer> {
        match *self {}
    }
    pub(crate) unsafe fn htod(&self, _dst: u64, _src: &[u8]) -> Result<()> {
        match *self {}
    }
    pub(crate) unsafe fn dtoh(&self, _dst: &mut [u8], _src: u64) -> Result<()> {
        match *self {}
    }
    pub(crate) unsafe fn dtod(&self, _dst: u64, _src: u64, _bytes: usize) -> Result<()> {
        match *self {}
    }
    pub(crate) unsafe fn memset(&self, _dst: u64, _byte: u8, _bytes: usize) -> Result<()> {
        match *self {}
    }
    pub(crate) fn load_module(&self, _image: &[u8]) -> std::result::Result<Module, String> {
        match *self {}
    }
    pub(crate) unsafe fn launch(
        &self,
        _f: &Function,
        _cfg: &LaunchConfig,
        _args: &[Arg],
        _overlap_previous: bool,
    ) -> std::result::Result<(), String> {
        match *self {}
    }
    pub(crate) fn blas(&self) -> Result<Blas> {
        match *self {}
    }
    pub(crate) fn solver(&self) -> Result<Solver> {
        match *self {}
    }
}

impl Event {
    pub(crate) fn elapsed_ms(&self, _later: &Event) -> Result<f32> {
        match *self {}
    }
}

impl Buffer {
    pub(crate) fn addr(&self) -> u64 {
        match *self {}
    }
}

impl Module {
    pub(crate) fn function(&self, _name: &str) -> std::result::Result<Function, String> {
        match *self {}
    }
}

impl Function {
    pub(crate) fn blocks_per_sm(&self, _block: u32) -> Result<usize> {
        match *self {}
    }
}

/// As the real module's `Level1`.
#[allow(dead_code)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Level1 {
    Dot,
    Axpy(f64),
    Nrm2,
    Asum,
}

impl Blas {
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn gemv(
        &self,
        _trans: bool,
        _dims: (usize, usize),
        _alpha: f64,
        _a: (u64, usize),
        _x: u64,
        _beta: f64,
        _y: u64,
    ) -> Result<()> {
        match *self {}
    }
    pub(crate) unsafe fn trsv(
        &self,
        _kind: (bool, bool, bool),
        _n: usize,
        _a: (u64, usize),
        _x: u64,
    ) -> Result<()> {
        match *self {}
    }
    pub(crate) unsafe fn ger(
        &self,
        _dims: (usize, usize),
        _alpha: f64,
        _x: u64,
        _y: u64,
        _a: (u64, usize),
    ) -> Result<()> {
        match *self {}
    }
}

impl Blas {
    pub(crate) unsafe fn level1(&self, _op: Level1, _n: usize, _x: u64, _y: u64) -> Result<f64> {
        match *self {}
    }
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn gemm_ex(
        &self,
        _ty: GemmType,
        _ta: bool,
        _tb: bool,
        _dims: (usize, usize, usize),
        _alpha: f64,
        _a: (u64, usize),
        _b: (u64, usize),
        _beta: f64,
        _c: (u64, usize),
    ) -> Result<()> {
        match *self {}
    }
    pub(crate) unsafe fn set_fp64_emulation(
        &self,
        _strategy: c_int,
        _control: c_int,
        _max_bits: c_int,
        _workspace: (u64, usize),
        _bit_cell: u64,
    ) -> Result<()> {
        match *self {}
    }
}
