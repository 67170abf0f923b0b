//! Element-wise quad-double kernels (`kernels/qd_elementwise.cu`): `+ − × ÷` of two vectors
//! or of a vector and a scalar, and `√`.
//!
//! Each function computes `out[i] = op(x[i], y[i])` (or `op(x[i], s)`, or `√x[i]`) with exactly
//! the CPU algorithm of [`Qd`], so `out` holds the same bits as the CPU would produce (a NaN's
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

use super::{Device, DeviceQdVec, ModuleSource, launch_map};
use crate::Qd;
use crate::error::Result;

/// The entry points of `kernels/qd_elementwise.cu` that this file launches
/// (`tests/kernel_names.rs` checks each against the source).
pub const KERNELS: &[&str] = &[
    "qd_add_vv",
    "qd_add_vs",
    "qd_sub_vv",
    "qd_sub_vs",
    "qd_mul_vv",
    "qd_mul_vs",
    "qd_div_vv",
    "qd_div_vs",
    "qd_sqrt_v",
];

/// The kernel module: source and entry points.
pub(crate) static MODULE: ModuleSource = ModuleSource {
    name: "qd_elementwise",
    source: include_str!("kernels/qd_elementwise.cu"),
    kernels: KERNELS,
};

/// `out[i] = x[i] + y[i]`: [`Qd::add_ieee`](crate::Qd::add_ieee).
///
/// # Errors
///
/// See the [module documentation](self).
pub fn add(dev: &Device, x: &DeviceQdVec, y: &DeviceQdVec, out: &mut DeviceQdVec) -> Result<()> {
    launch_map(dev, &MODULE, "qd_add_vv", x, Some(y), None, out)
}

/// `out[i] = x[i] + s`: [`Qd::add_ieee`](crate::Qd::add_ieee).
///
/// # Errors
///
/// See the [module documentation](self).
pub fn add_scalar(dev: &Device, x: &DeviceQdVec, s: Qd, out: &mut DeviceQdVec) -> Result<()> {
    launch_map(dev, &MODULE, "qd_add_vs", x, None, Some(s), out)
}

/// `out[i] = x[i] − y[i]`: `add_ieee` of `a` and `−b`.
///
/// # Errors
///
/// See the [module documentation](self).
pub fn sub(dev: &Device, x: &DeviceQdVec, y: &DeviceQdVec, out: &mut DeviceQdVec) -> Result<()> {
    launch_map(dev, &MODULE, "qd_sub_vv", x, Some(y), None, out)
}

/// `out[i] = x[i] − s`: `add_ieee` of `a` and `−b`.
///
/// # Errors
///
/// See the [module documentation](self).
pub fn sub_scalar(dev: &Device, x: &DeviceQdVec, s: Qd, out: &mut DeviceQdVec) -> Result<()> {
    launch_map(dev, &MODULE, "qd_sub_vs", x, None, Some(s), out)
}

/// `out[i] = x[i] × y[i]`: [`Qd::mul_accurate`](crate::Qd::mul_accurate).
///
/// # Errors
///
/// See the [module documentation](self).
pub fn mul(dev: &Device, x: &DeviceQdVec, y: &DeviceQdVec, out: &mut DeviceQdVec) -> Result<()> {
    launch_map(dev, &MODULE, "qd_mul_vv", x, Some(y), None, out)
}

/// `out[i] = x[i] × s`: [`Qd::mul_accurate`](crate::Qd::mul_accurate).
///
/// # Errors
///
/// See the [module documentation](self).
pub fn mul_scalar(dev: &Device, x: &DeviceQdVec, s: Qd, out: &mut DeviceQdVec) -> Result<()> {
    launch_map(dev, &MODULE, "qd_mul_vs", x, None, Some(s), out)
}

/// `out[i] = x[i] ÷ y[i]`: [`Qd::div_accurate`](crate::Qd::div_accurate).
///
/// # Errors
///
/// See the [module documentation](self).
pub fn div(dev: &Device, x: &DeviceQdVec, y: &DeviceQdVec, out: &mut DeviceQdVec) -> Result<()> {
    launch_map(dev, &MODULE, "qd_div_vv", x, Some(y), None, out)
}

/// `out[i] = x[i] ÷ s`: [`Qd::div_accurate`](crate::Qd::div_accurate).
///
/// # Errors
///
/// See the [module documentation](self).
pub fn div_scalar(dev: &Device, x: &DeviceQdVec, s: Qd, out: &mut DeviceQdVec) -> Result<()> {
    launch_map(dev, &MODULE, "qd_div_vs", x, None, Some(s), out)
}

/// `out[i] = √x[i]`: [`Qd::sqrt`](crate::Qd::sqrt).
///
/// # Errors
///
/// See the [module documentation](self).
pub fn sqrt(dev: &Device, x: &DeviceQdVec, out: &mut DeviceQdVec) -> Result<()> {
    launch_map(dev, &MODULE, "qd_sqrt_v", x, None, None, out)
}
