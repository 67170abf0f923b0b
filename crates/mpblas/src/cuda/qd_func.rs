//! Element-wise quad-double functions (`kernels/qd_func.cu`): `exp`, `ln`, `sin`, `cos`.
//!
//! Each function computes `out[i] = f(x[i])` with exactly the CPU algorithm of [`Qd`]
//! ([`Qd::exp`](crate::Qd::exp), [`Qd::ln`](crate::Qd::ln), [`Qd::sin`](crate::Qd::sin), [`Qd::cos`](crate::Qd::cos): the device code in `kernels/qd_func.cuh`
//! is an operation-by-operation twin of `qd/func.rs`, including the Payne–Hanek reduction of
//! `reduce.rs` in `kernels/reduce.cuh`), so `out` holds the same bits as the CPU would produce
//! for every input, special values and huge arguments included (a NaN's payload and sign aside).
//! The work is enqueued on the device's stream; read `out` with
//! [`DeviceVec::download`](super::DeviceVec::download), which waits for it.
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

use super::{Device, DeviceQdVec, ModuleSource, launch_map};
use crate::error::Result;

/// The entry points of `kernels/qd_func.cu` that this file launches (`tests/kernel_names.rs`
/// checks each against the source).
pub const KERNELS: &[&str] = &["qd_exp_v", "qd_ln_v", "qd_sin_v", "qd_cos_v"];

/// The kernel module: source and entry points.
pub(crate) static MODULE: ModuleSource = ModuleSource {
    name: "qd_func",
    source: include_str!("kernels/qd_func.cu"),
    kernels: KERNELS,
};

/// `out[i] = e^x[i]`: [`Qd::exp`](crate::Qd::exp)(crate::Qd::exp).
///
/// # Errors
///
/// See the [module documentation](self).
pub fn exp(dev: &Device, x: &DeviceQdVec, out: &mut DeviceQdVec) -> Result<()> {
    launch_map(dev, &MODULE, "qd_exp_v", x, None, None, out)
}

/// `out[i] = ln x[i]`: [`Qd::ln`](crate::Qd::ln)(crate::Qd::ln).
///
/// # Errors
///
/// See the [module documentation](self).
pub fn ln(dev: &Device, x: &DeviceQdVec, out: &mut DeviceQdVec) -> Result<()> {
    launch_map(dev, &MODULE, "qd_ln_v", x, None, None, out)
}

/// `out[i] = sin x[i]`: [`Qd::sin`](crate::Qd::sin)(crate::Qd::sin).
///
/// # Errors
///
/// See the [module documentation](self).
pub fn sin(dev: &Device, x: &DeviceQdVec, out: &mut DeviceQdVec) -> Result<()> {
    launch_map(dev, &MODULE, "qd_sin_v", x, None, None, out)
}

/// `out[i] = cos x[i]`: [`Qd::cos`](crate::Qd::cos)(crate::Qd::cos).
///
/// # Errors
///
/// See the [module documentation](self).
pub fn cos(dev: &Device, x: &DeviceQdVec, out: &mut DeviceQdVec) -> Result<()> {
    launch_map(dev, &MODULE, "qd_cos_v", x, None, None, out)
}
