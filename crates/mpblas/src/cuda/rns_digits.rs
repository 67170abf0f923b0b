//! Launcher of `kernels/rns_digits.cu`: kernel 2 of the split RNS `+ − ×`, the residues of
//! the exact result with one thread per residue (coalesced on the element-by-element digits),
//! following the plan kernel 1 left in the output array's buffer.

use super::rns_array::DeviceMpArray;
use super::{Device, ModuleSource};
use crate::error::{Error, Result};

/// The entry points of `kernels/rns_digits.cu` (`tests/kernel_names.rs` checks each against
/// the source).
pub const KERNELS: &[&str] = &["rns_add_digits", "rns_mul_digits"];

/// The kernel module: source and entry points.
pub(crate) static MODULE: ModuleSource = ModuleSource {
    name: "rns_digits",
    source: include_str!("kernels/rns_digits.cu"),
    kernels: KERNELS,
};

/// Launch `kernel` (one of [`KERNELS`]) on the digits of `x`, `y` into `out`'s digits, after
/// kernel 1 wrote `out`'s plan. The caller has checked devices, bases and lengths, and that
/// `out.len() > 0`.
pub(crate) fn launch(
    dev: &Device,
    kernel: &'static str,
    x: &DeviceMpArray,
    y: &DeviceMpArray,
    out: &mut DeviceMpArray,
) -> Result<()> {
    use cudarc::driver::PushKernelArg;
    let f = dev.function(&MODULE, kernel)?;
    let len = out.len();
    let total = len
        .checked_mul(out.basis().len())
        .ok_or(Error::CudaLaunch {
            kernel,
            cause: "too many residues".to_string(),
        })?;
    let cfg = dev.grid_for(total);
    let (len64, total64) = (len as u64, total as u64);
    let tables = out.tables();
    let stream = dev.stream();
    let mut b = stream.launch_builder(&f);
    b.arg(&*tables).arg(&x.digits).arg(&y.digits).arg(&out.buf);
    // `out.buf` is only read here; pass it by shared reference before borrowing digits mutably.
    b.arg(&mut out.digits);
    b.arg(&len64).arg(&total64);
    // SAFETY: the arguments match kernels/rns_digits.cu: the packed basis table of the common
    // basis (n moduli), x's and y's digits (n·L u32 each), out's plan (4L u32, written by kernel
    // 1 earlier on this stream), out's digits (n·L u32), L and n·L. Every array holds at least
    // those counts (DeviceMpArray allocation; equal lengths and bases checked by the caller).
    // The grid-stride loop guards every access with t < n·L in 64-bit arithmetic; the element
    // index t / n is below L. out's digits are a distinct allocation from the inputs (`&mut`).
    let r = unsafe { b.launch(cfg) };
    dev.launched(kernel, r)
}
