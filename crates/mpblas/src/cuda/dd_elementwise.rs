//! Element-wise double-double kernels (`kernels/dd_elementwise.cu`): `+ − × ÷` of two vectors
//! or of a vector and a scalar, and `√`.
//!
//! Each function computes `out[i] = op(x[i], y[i])` (or `op(x[i], s)`, or `√x[i]`) with exactly
//! the CPU algorithm of [`Dd`], so `out` holds the same bits as the CPU would produce (a NaN's
//! payload and sign aside). The work is enqueued on the device's stream; read `out` with
//! [`DeviceVec::download`](super::DeviceVec::download), which waits for it.
//!
//! # Errors
//!
//! Every function returns [`Error::DeviceMismatch`](crate::Error::DeviceMismatch) if an operand
//! is on another device, [`Error::LengthMismatch`](crate::Error::LengthMismatch) if the lengths
//! differ (naming the argument and both lengths), [`Error::CudaCompile`](crate::Error::CudaCompile)
//! if the module fails to compile, and [`Error::CudaLaunch`](crate::Error::CudaLaunch) naming
//! the kernel if the launch fails.

use super::{Device, DeviceDdVec, ModuleSource, launch_map};
use crate::Dd;
use crate::error::Result;

/// The entry points of `kernels/dd_elementwise.cu` that this file launches
/// (`tests/kernel_names.rs` checks each against the source).
pub const KERNELS: &[&str] = &[
    "dd_add_vv",
    "dd_add_vs",
    "dd_sub_vv",
    "dd_sub_vs",
    "dd_mul_vv",
    "dd_mul_vs",
    "dd_div_vv",
    "dd_div_vs",
    "dd_sqrt_v",
];

/// The kernel module: source and entry points.
pub(crate) static MODULE: ModuleSource = ModuleSource {
    name: "dd_elementwise",
    source: include_str!("kernels/dd_elementwise.cu"),
    kernels: KERNELS,
};

/// `out[i] = x[i] + y[i]`: [`Dd::add_accurate`](crate::Dd::add_accurate).
///
/// # Errors
///
/// See the [module documentation](self).
pub fn add(dev: &Device, x: &DeviceDdVec, y: &DeviceDdVec, out: &mut DeviceDdVec) -> Result<()> {
    launch_map(dev, &MODULE, "dd_add_vv", x, Some(y), None, out)
}

/// `out[i] = x[i] + s`: [`Dd::add_accurate`](crate::Dd::add_accurate).
///
/// # Errors
///
/// See the [module documentation](self).
pub fn add_scalar(dev: &Device, x: &DeviceDdVec, s: Dd, out: &mut DeviceDdVec) -> Result<()> {
    launch_map(dev, &MODULE, "dd_add_vs", x, None, Some(s), out)
}

/// `out[i] = x[i] − y[i]`: `add_accurate` of `a` and `−b`.
///
/// # Errors
///
/// See the [module documentation](self).
pub fn sub(dev: &Device, x: &DeviceDdVec, y: &DeviceDdVec, out: &mut DeviceDdVec) -> Result<()> {
    launch_map(dev, &MODULE, "dd_sub_vv", x, Some(y), None, out)
}

/// `out[i] = x[i] − s`: `add_accurate` of `a` and `−b`.
///
/// # Errors
///
/// See the [module documentation](self).
pub fn sub_scalar(dev: &Device, x: &DeviceDdVec, s: Dd, out: &mut DeviceDdVec) -> Result<()> {
    launch_map(dev, &MODULE, "dd_sub_vs", x, None, Some(s), out)
}

/// `out[i] = x[i] × y[i]`: [`Dd::mul_accurate`](crate::Dd::mul_accurate).
///
/// # Errors
///
/// See the [module documentation](self).
pub fn mul(dev: &Device, x: &DeviceDdVec, y: &DeviceDdVec, out: &mut DeviceDdVec) -> Result<()> {
    launch_map(dev, &MODULE, "dd_mul_vv", x, Some(y), None, out)
}

/// `out[i] = x[i] × s`: [`Dd::mul_accurate`](crate::Dd::mul_accurate).
///
/// # Errors
///
/// See the [module documentation](self).
pub fn mul_scalar(dev: &Device, x: &DeviceDdVec, s: Dd, out: &mut DeviceDdVec) -> Result<()> {
    launch_map(dev, &MODULE, "dd_mul_vs", x, None, Some(s), out)
}

/// `out[i] = x[i] ÷ y[i]`: [`Dd::div_accurate`](crate::Dd::div_accurate).
///
/// # Errors
///
/// See the [module documentation](self).
pub fn div(dev: &Device, x: &DeviceDdVec, y: &DeviceDdVec, out: &mut DeviceDdVec) -> Result<()> {
    launch_map(dev, &MODULE, "dd_div_vv", x, Some(y), None, out)
}

/// `out[i] = x[i] ÷ s`: [`Dd::div_accurate`](crate::Dd::div_accurate).
///
/// # Errors
///
/// See the [module documentation](self).
pub fn div_scalar(dev: &Device, x: &DeviceDdVec, s: Dd, out: &mut DeviceDdVec) -> Result<()> {
    launch_map(dev, &MODULE, "dd_div_vs", x, None, Some(s), out)
}

/// `out[i] = √x[i]`: [`Dd::sqrt`](crate::Dd::sqrt).
///
/// # Errors
///
/// See the [module documentation](self).
pub fn sqrt(dev: &Device, x: &DeviceDdVec, out: &mut DeviceDdVec) -> Result<()> {
    launch_map(dev, &MODULE, "dd_sqrt_v", x, None, None, out)
}
