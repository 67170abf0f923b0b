//! Element-wise quad-double functions (`qd_func_gpu.cu`): `exp`, `ln`, `sin`, `cos`.
//!
//! Each function computes `out[i] = f(x[i])` with exactly the CPU algorithm of [`Qd`]
//! ([`Qd::exp`](crate::Qd::exp), [`Qd::ln`](crate::Qd::ln), [`Qd::sin`](crate::Qd::sin), [`Qd::cos`](crate::Qd::cos): the device code in `qd_func.cuh`
//! is an operation-by-operation twin of `qd/func.rs`, including the Payne–Hanek reduction of
//! `trig_reduction.rs` in `trig_reduction.cuh`), so `out` holds the same bits as the CPU would produce
//! for every input, special values and huge arguments included (a NaN's payload and sign aside).
//! The work is enqueued on the device's stream; read `out` with
//! [`DeviceVec::download`](crate::cuda::DeviceVec::download), which waits for it.
//!
//! # Errors
//!
//! Every function returns [`Error::DeviceMismatch`](crate::Error::DeviceMismatch) if an operand
//! is on another device, [`Error::LengthMismatch`](crate::Error::LengthMismatch) if `out`'s
//! length differs from `x`'s, [`Error::CudaCompile`](crate::Error::CudaCompile) if the module
//! fails to compile, and [`Error::CudaLaunch`](crate::Error::CudaLaunch) naming the kernel if
//! the launch fails.
//!
//! [`Qd`]: crate::Qd

use super::qd_gpu::{DeviceQdVec, QD_CUH};
use crate::cuda::{Device, Header, ModuleSource, launch_map};
use crate::error::Result;

/// The entry points of `qd_func_gpu.cu` that this file launches (`tests/kernel_names.rs`
/// checks each against the source).
pub(crate) const KERNELS: &[&str] = &["qd_exp_v", "qd_ln_v", "qd_sin_v", "qd_cos_v"];

/// The kernel module: source and entry points.
pub(crate) static MODULE: ModuleSource = ModuleSource {
    name: "qd_func_gpu",
    source: include_str!("qd_func_gpu.cu"),
    headers: &[
        &crate::eft::EFT_CUH,
        &crate::dd::dd_gpu::DD_CUH,
        &QD_CUH,
        &QD_FUNC_CUH,
        &QD_TABLES_CUH,
        &crate::trig_reduction::TRIG_REDUCTION_CUH,
        &crate::trig_reduction::TRIG_REDUCTION_TABLES_CUH,
    ],
    kernels: KERNELS,
};

/// `qd_func.cuh`: the device twin of the quad-double functions (`func.rs`).
pub(crate) static QD_FUNC_CUH: Header = Header {
    name: "qd_func.cuh",
    text: include_str!("qd_func.cuh"),
};

/// `qd_tables.cuh`: the function tables, generated from `consts.rs` and the series of
/// `func.rs` (`device_tables.rs`).
pub(crate) static QD_TABLES_CUH: Header = Header {
    name: "qd_tables.cuh",
    text: include_str!("qd_tables.cuh"),
};

/// `out[i] = e^x[i]`: [`Qd::exp`](crate::Qd::exp).
///
/// # Errors
///
/// See the [module documentation](crate::qd::gpu).
pub fn exp(dev: &Device, x: &DeviceQdVec, out: &mut DeviceQdVec) -> Result<()> {
    launch_map(dev, &MODULE, "qd_exp_v", x, None, None, out)
}

/// `out[i] = ln x[i]`: [`Qd::ln`](crate::Qd::ln).
///
/// # Errors
///
/// See the [module documentation](crate::qd::gpu).
pub fn ln(dev: &Device, x: &DeviceQdVec, out: &mut DeviceQdVec) -> Result<()> {
    launch_map(dev, &MODULE, "qd_ln_v", x, None, None, out)
}

/// `out[i] = sin x[i]`: [`Qd::sin`](crate::Qd::sin).
///
/// # Errors
///
/// See the [module documentation](crate::qd::gpu).
pub fn sin(dev: &Device, x: &DeviceQdVec, out: &mut DeviceQdVec) -> Result<()> {
    launch_map(dev, &MODULE, "qd_sin_v", x, None, None, out)
}

/// `out[i] = cos x[i]`: [`Qd::cos`](crate::Qd::cos).
///
/// # Errors
///
/// See the [module documentation](crate::qd::gpu).
pub fn cos(dev: &Device, x: &DeviceQdVec, out: &mut DeviceQdVec) -> Result<()> {
    launch_map(dev, &MODULE, "qd_cos_v", x, None, None, out)
}
