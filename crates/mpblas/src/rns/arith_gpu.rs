//! Element-wise RNS arithmetic on the GPU: `out[i] = x[i] ∘ y[i]` for `+ − × ÷` and
//! `out[i] = √x[i]`, each equal bit for bit to [`MpFloat`](crate::rns::MpFloat)'s CPU result
//! (class, sign, exponent, residues and evaluation bounds: the results are correctly rounded,
//! so the representation is unique).
//!
//! `+ − ×` run as the paper's three split kernels: `rns_esi_gpu.cu` (signs, exponents,
//! evaluations; one thread per element), `rns_digits_gpu.cu` (residues; one thread per residue)
//! and `rns_round_gpu.cu` (rounding; one thread per element). `÷ √` run one thread per element
//! (`rns_divsqrt_gpu.cu`).
//! Everything is enqueued on the device's stream; [`DeviceMpArray::download`] waits for it.
//!
//! # Errors
//!
//! Every function checks, before enqueuing anything, that each operand lives on `dev`
//! ([`Error::DeviceMismatch`](crate::Error::DeviceMismatch)), has the basis of `x`
//! ([`Error::BasisMismatch`](crate::Error::BasisMismatch)) and its length
//! ([`Error::LengthMismatch`](crate::Error::LengthMismatch)); then it can fail with
//! [`Error::CudaCompile`](crate::Error::CudaCompile) or
//! [`Error::CudaLaunch`](crate::Error::CudaLaunch) naming the kernel.

use super::array_gpu::DeviceMpArray;
use crate::cuda::Device;
use crate::error::Result;

fn check(
    dev: &Device,
    x: &DeviceMpArray,
    y: Option<&DeviceMpArray>,
    out: &DeviceMpArray,
) -> Result<()> {
    x.check_operand(dev, "x", x)?;
    if let Some(y) = y {
        y.check_operand(dev, "y", x)?;
    }
    out.check_operand(dev, "out", x)
}

fn split(
    dev: &Device,
    esi: &'static str,
    digits: &'static str,
    x: &DeviceMpArray,
    y: &DeviceMpArray,
    out: &mut DeviceMpArray,
) -> Result<()> {
    check(dev, x, Some(y), out)?;
    if out.is_empty() {
        return Ok(());
    }
    super::rns_esi_gpu::launch(dev, esi, x, y, out)?;
    super::rns_digits_gpu::launch(dev, digits, x, y, out)?;
    super::rns_round_gpu::launch(dev, out)
}

/// `out[i] = x[i] + y[i]`, correctly rounded ([`MpFloat::add`](crate::rns::MpFloat::add)).
///
/// # Errors
///
/// See the [module documentation](super::gpu).
pub fn add(
    dev: &Device,
    x: &DeviceMpArray,
    y: &DeviceMpArray,
    out: &mut DeviceMpArray,
) -> Result<()> {
    split(dev, "rns_add_esi", "rns_add_digits", x, y, out)
}

/// `out[i] = x[i] − y[i]`, correctly rounded ([`MpFloat::sub`](crate::rns::MpFloat::sub)).
///
/// # Errors
///
/// See the [module documentation](super::gpu).
pub fn sub(
    dev: &Device,
    x: &DeviceMpArray,
    y: &DeviceMpArray,
    out: &mut DeviceMpArray,
) -> Result<()> {
    split(dev, "rns_sub_esi", "rns_add_digits", x, y, out)
}

/// `out[i] = x[i] × y[i]`, correctly rounded ([`MpFloat::mul`](crate::rns::MpFloat::mul)).
///
/// # Errors
///
/// See the [module documentation](super::gpu).
pub fn mul(
    dev: &Device,
    x: &DeviceMpArray,
    y: &DeviceMpArray,
    out: &mut DeviceMpArray,
) -> Result<()> {
    split(dev, "rns_mul_esi", "rns_mul_digits", x, y, out)
}

/// `out[i] = x[i] ÷ y[i]`, correctly rounded ([`MpFloat::div`](crate::rns::MpFloat::div)).
///
/// # Errors
///
/// See the [module documentation](super::gpu).
pub fn div(
    dev: &Device,
    x: &DeviceMpArray,
    y: &DeviceMpArray,
    out: &mut DeviceMpArray,
) -> Result<()> {
    check(dev, x, Some(y), out)?;
    if out.is_empty() {
        return Ok(());
    }
    super::rns_divsqrt_gpu::launch(dev, x, Some(y), out)
}

/// `out[i] = √x[i]`, correctly rounded ([`MpFloat::sqrt`](crate::rns::MpFloat::sqrt)).
///
/// # Errors
///
/// See the [module documentation](super::gpu).
pub fn sqrt(dev: &Device, x: &DeviceMpArray, out: &mut DeviceMpArray) -> Result<()> {
    check(dev, x, None, out)?;
    if out.is_empty() {
        return Ok(());
    }
    super::rns_divsqrt_gpu::launch(dev, x, None, out)
}
