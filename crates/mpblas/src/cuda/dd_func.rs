//! Element-wise double-double functions (`kernels/dd_func.cu`): `exp`, `ln`, `sin`, `cos`.
//!
//! Each function computes `out[i] = f(x[i])` with exactly the CPU algorithm of [`Dd`]
//! ([`Dd::exp`](crate::Dd::exp), [`Dd::ln`](crate::Dd::ln), [`Dd::sin`](crate::Dd::sin), [`Dd::cos`](crate::Dd::cos): the device code in `kernels/dd_func.cuh`
//! is an operation-by-operation twin of `dd/func`, including the Payne–Hanek reduction of
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
//! [`Dd`]: crate::Dd

use super::{Device, DeviceDdVec, ModuleSource, launch_map};
use crate::error::Result;

/// The entry points of `kernels/dd_func.cu` that this file launches (`tests/kernel_names.rs`
/// checks each against the source).
pub const KERNELS: &[&str] = &["dd_exp_v", "dd_ln_v", "dd_sin_v", "dd_cos_v"];

/// The kernel module: source and entry points.
pub(crate) static MODULE: ModuleSource = ModuleSource {
    name: "dd_func",
    source: include_str!("kernels/dd_func.cu"),
    kernels: KERNELS,
};

/// `out[i] = e^x[i]`: [`Dd::exp`](crate::Dd::exp)(crate::Dd::exp).
///
/// # Errors
///
/// See the [module documentation](self).
pub fn exp(dev: &Device, x: &DeviceDdVec, out: &mut DeviceDdVec) -> Result<()> {
    launch_map(dev, &MODULE, "dd_exp_v", x, None, None, out)
}

/// `out[i] = ln x[i]`: [`Dd::ln`](crate::Dd::ln)(crate::Dd::ln).
///
/// # Errors
///
/// See the [module documentation](self).
pub fn ln(dev: &Device, x: &DeviceDdVec, out: &mut DeviceDdVec) -> Result<()> {
    launch_map(dev, &MODULE, "dd_ln_v", x, None, None, out)
}

/// `out[i] = sin x[i]`: [`Dd::sin`](crate::Dd::sin)(crate::Dd::sin).
///
/// # Errors
///
/// See the [module documentation](self).
pub fn sin(dev: &Device, x: &DeviceDdVec, out: &mut DeviceDdVec) -> Result<()> {
    launch_map(dev, &MODULE, "dd_sin_v", x, None, None, out)
}

/// `out[i] = cos x[i]`: [`Dd::cos`](crate::Dd::cos)(crate::Dd::cos).
///
/// # Errors
///
/// See the [module documentation](self).
pub fn cos(dev: &Device, x: &DeviceDdVec, out: &mut DeviceDdVec) -> Result<()> {
    launch_map(dev, &MODULE, "dd_cos_v", x, None, None, out)
}
