//! Element-wise double-double kernels (`dd_gpu.cu`): `+ − × ÷` of two vectors
//! or of a vector and a scalar, and `√`.
//!
//! Each function computes `out[i] = op(x[i], y[i])` (or `op(x[i], s)`, or `√x[i]`) with exactly
//! the CPU algorithm of [`Dd`], so `out` holds the same bits as the CPU would produce (a NaN's
//! payload and sign aside). The work is enqueued on the device's stream; read `out` with
//! [`DeviceVec::download`](crate::cuda::DeviceVec::download), which waits for it.
//!
//! # Errors
//!
//! Every function returns [`Error::DeviceMismatch`](crate::Error::DeviceMismatch) if an operand
//! is on another device, [`Error::LengthMismatch`](crate::Error::LengthMismatch) if the lengths
//! differ (naming the argument and both lengths), [`Error::CudaCompile`](crate::Error::CudaCompile)
//! if the module fails to compile, and [`Error::CudaLaunch`](crate::Error::CudaLaunch) naming
//! the kernel if the launch fails.

use super::Dd;
use crate::cuda::{Device, DeviceScalar, DeviceVec, Header, ModuleSource, launch_map, sealed};
use crate::error::Result;

/// A vector of double-doubles on the GPU (two arrays: `hi`, `lo`).
pub type DeviceDdVec = DeviceVec<Dd>;

impl sealed::Sealed for Dd {}

impl DeviceScalar for Dd {
    const NAME: &'static str = "dd";
    const WORDS: usize = 2;
    fn to_words(self) -> [f64; 4] {
        [self.hi, self.lo, 0.0, 0.0]
    }
    fn from_words(w: &[f64; 4]) -> Self {
        Dd { hi: w[0], lo: w[1] }
    }
}

/// `dd.cuh`: the device twin of the double-double arithmetic (`arith.rs`).
pub(crate) static DD_CUH: Header = Header {
    name: "dd.cuh",
    text: include_str!("dd.cuh"),
};

/// The entry points of `dd_gpu.cu` that this file launches
/// (`tests/kernel_names.rs` checks each against the source).
pub(crate) const KERNELS: &[&str] = &[
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
    name: "dd_gpu",
    source: include_str!("dd_gpu.cu"),
    headers: &[&crate::eft::EFT_CUH, &DD_CUH],
    kernels: KERNELS,
};

/// `out[i] = x[i] + y[i]`: [`Dd::add_accurate`](crate::Dd::add_accurate).
///
/// # Errors
///
/// See the [module documentation](crate::dd::gpu).
pub fn add(dev: &Device, x: &DeviceDdVec, y: &DeviceDdVec, out: &mut DeviceDdVec) -> Result<()> {
    launch_map(dev, &MODULE, "dd_add_vv", x, Some(y), None, out)
}

/// `out[i] = x[i] + s`: [`Dd::add_accurate`](crate::Dd::add_accurate).
///
/// # Errors
///
/// See the [module documentation](crate::dd::gpu).
pub fn add_scalar(dev: &Device, x: &DeviceDdVec, s: Dd, out: &mut DeviceDdVec) -> Result<()> {
    launch_map(dev, &MODULE, "dd_add_vs", x, None, Some(s), out)
}

/// `out[i] = x[i] − y[i]`: `add_accurate` of `a` and `−b`.
///
/// # Errors
///
/// See the [module documentation](crate::dd::gpu).
pub fn sub(dev: &Device, x: &DeviceDdVec, y: &DeviceDdVec, out: &mut DeviceDdVec) -> Result<()> {
    launch_map(dev, &MODULE, "dd_sub_vv", x, Some(y), None, out)
}

/// `out[i] = x[i] − s`: `add_accurate` of `a` and `−b`.
///
/// # Errors
///
/// See the [module documentation](crate::dd::gpu).
pub fn sub_scalar(dev: &Device, x: &DeviceDdVec, s: Dd, out: &mut DeviceDdVec) -> Result<()> {
    launch_map(dev, &MODULE, "dd_sub_vs", x, None, Some(s), out)
}

/// `out[i] = x[i] × y[i]`: [`Dd::mul_accurate`](crate::Dd::mul_accurate).
///
/// # Errors
///
/// See the [module documentation](crate::dd::gpu).
pub fn mul(dev: &Device, x: &DeviceDdVec, y: &DeviceDdVec, out: &mut DeviceDdVec) -> Result<()> {
    launch_map(dev, &MODULE, "dd_mul_vv", x, Some(y), None, out)
}

/// `out[i] = x[i] × s`: [`Dd::mul_accurate`](crate::Dd::mul_accurate).
///
/// # Errors
///
/// See the [module documentation](crate::dd::gpu).
pub fn mul_scalar(dev: &Device, x: &DeviceDdVec, s: Dd, out: &mut DeviceDdVec) -> Result<()> {
    launch_map(dev, &MODULE, "dd_mul_vs", x, None, Some(s), out)
}

/// `out[i] = x[i] ÷ y[i]`: [`Dd::div_accurate`](crate::Dd::div_accurate).
///
/// # Errors
///
/// See the [module documentation](crate::dd::gpu).
pub fn div(dev: &Device, x: &DeviceDdVec, y: &DeviceDdVec, out: &mut DeviceDdVec) -> Result<()> {
    launch_map(dev, &MODULE, "dd_div_vv", x, Some(y), None, out)
}

/// `out[i] = x[i] ÷ s`: [`Dd::div_accurate`](crate::Dd::div_accurate).
///
/// # Errors
///
/// See the [module documentation](crate::dd::gpu).
pub fn div_scalar(dev: &Device, x: &DeviceDdVec, s: Dd, out: &mut DeviceDdVec) -> Result<()> {
    launch_map(dev, &MODULE, "dd_div_vs", x, None, Some(s), out)
}

/// `out[i] = √x[i]`: [`Dd::sqrt`](crate::Dd::sqrt).
///
/// # Errors
///
/// See the [module documentation](crate::dd::gpu).
pub fn sqrt(dev: &Device, x: &DeviceDdVec, out: &mut DeviceDdVec) -> Result<()> {
    launch_map(dev, &MODULE, "dd_sqrt_v", x, None, None, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    #[test]
    #[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
    fn operands_on_another_device_are_rejected() {
        let dev = Device::open(0).expect("a CUDA GPU");
        let here = dev.ordinal();
        let x = dev.upload(&[Dd::ONE; 4]).expect("upload");
        let mut y = dev.upload(&[Dd::ONE; 4]).expect("upload");
        let mut out = dev.zeros::<Dd>(4).expect("alloc");
        y.set_ordinal_for_tests(here + 1);
        let mism = |arg| Error::DeviceMismatch {
            arg,
            expected: here,
            got: here + 1,
        };
        assert_eq!(add(&dev, &x, &y, &mut out), Err(mism("y")));
        assert_eq!(sqrt(&dev, &y, &mut out), Err(mism("x")));
        assert_eq!(out.copy_from(&y), Err(mism("src")));
        y.set_ordinal_for_tests(here);
        out.set_ordinal_for_tests(here + 1);
        assert_eq!(mul_scalar(&dev, &x, Dd::ONE, &mut out), Err(mism("out")));
        out.set_ordinal_for_tests(here);
        add(&dev, &x, &y, &mut out).expect("add");
        assert_eq!(out.download().expect("download"), vec![Dd::from(2.0); 4]);
    }
}
