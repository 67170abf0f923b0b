//! Element-wise double-double functions (`dd_func_gpu.cu`): `exp`, `ln`, `sin`, `cos`.
//!
//! Each function computes `out[i] = f(x[i])` with exactly the CPU algorithm of [`Dd`]
//! ([`Dd::exp`](crate::Dd::exp), [`Dd::ln`](crate::Dd::ln), [`Dd::sin`](crate::Dd::sin), [`Dd::cos`](crate::Dd::cos): the device code in `dd_func.cuh`
//! is an operation-by-operation twin of `dd/func`, including the Payne–Hanek reduction of
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
//! [`Dd`]: crate::Dd

use super::dd_gpu::{DD_CUH, DeviceDdVec};
use crate::cuda::{Device, Header, ModuleSource, launch_map};
use crate::error::Result;

/// The entry points of `dd_func_gpu.cu` that this file launches (`tests/kernel_names.rs`
/// checks each against the source).
pub(crate) const KERNELS: &[&str] = &["dd_exp_v", "dd_ln_v", "dd_sin_v", "dd_cos_v"];

/// The kernel module: source and entry points.
pub(crate) static MODULE: ModuleSource = ModuleSource {
    name: "dd_func_gpu",
    source: include_str!("dd_func_gpu.cu"),
    headers: &[
        &crate::eft::EFT_CUH,
        &DD_CUH,
        &DD_FUNC_CUH,
        &DD_TABLES_CUH,
        &crate::trig_reduction::TRIG_REDUCTION_CUH,
        &crate::trig_reduction::TRIG_REDUCTION_TABLES_CUH,
    ],
    kernels: KERNELS,
};

/// `dd_func.cuh`: the device twin of the double-double functions (`func/`).
pub(crate) static DD_FUNC_CUH: Header = Header {
    name: "dd_func.cuh",
    text: include_str!("dd_func.cuh"),
};

/// `dd_tables.cuh`: the function tables, generated from `consts.rs` (`device_tables.rs`).
pub(crate) static DD_TABLES_CUH: Header = Header {
    name: "dd_tables.cuh",
    text: include_str!("dd_tables.cuh"),
};

/// `out[i] = e^x[i]`: [`Dd::exp`](crate::Dd::exp).
///
/// # Errors
///
/// See the [module documentation](crate::dd::gpu).
pub fn exp(dev: &Device, x: &DeviceDdVec, out: &mut DeviceDdVec) -> Result<()> {
    launch_map(dev, &MODULE, "dd_exp_v", x, None, None, out)
}

/// `out[i] = ln x[i]`: [`Dd::ln`](crate::Dd::ln).
///
/// # Errors
///
/// See the [module documentation](crate::dd::gpu).
pub fn ln(dev: &Device, x: &DeviceDdVec, out: &mut DeviceDdVec) -> Result<()> {
    launch_map(dev, &MODULE, "dd_ln_v", x, None, None, out)
}

/// `out[i] = sin x[i]`: [`Dd::sin`](crate::Dd::sin).
///
/// # Errors
///
/// See the [module documentation](crate::dd::gpu).
pub fn sin(dev: &Device, x: &DeviceDdVec, out: &mut DeviceDdVec) -> Result<()> {
    launch_map(dev, &MODULE, "dd_sin_v", x, None, None, out)
}

/// `out[i] = cos x[i]`: [`Dd::cos`](crate::Dd::cos).
///
/// # Errors
///
/// See the [module documentation](crate::dd::gpu).
pub fn cos(dev: &Device, x: &DeviceDdVec, out: &mut DeviceDdVec) -> Result<()> {
    launch_map(dev, &MODULE, "dd_cos_v", x, None, None, out)
}
