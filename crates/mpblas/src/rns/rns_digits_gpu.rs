//! Launcher of `rns_digits_gpu.cu`: kernel 2 of the split RNS `+ − ×`, the residues of
//! the exact result with one thread per residue (coalesced on the element-by-element digits),
//! following the plan kernel 1 left in the output array's buffer.

use super::array_gpu::{DeviceMpArray, RNS_CUH};
use crate::cuda::{Device, ModuleSource, args};
use crate::error::{Error, Result};

/// The entry points of `rns_digits_gpu.cu` (`tests/kernel_names.rs` checks each against
/// the source).
pub(crate) const KERNELS: &[&str] = &["rns_add_digits", "rns_mul_digits"];

/// The kernel module: source and entry points.
pub(crate) static MODULE: ModuleSource = ModuleSource {
    name: "rns_digits_gpu",
    source: include_str!("rns_digits_gpu.cu"),
    headers: &[&crate::eft::EFT_CUH, &RNS_CUH],
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
    let len = out.len();
    let total = len
        .checked_mul(out.basis().len())
        .ok_or(Error::CudaLaunch {
            kernel,
            cause: "too many residues".to_string(),
        })?;
    let a = args![
        out.tables(),
        x.digits.addr(),
        y.digits.addr(),
        out.buf.addr(),
        out.digits.addr(),
        len,
        total
    ];
    // SAFETY: the arguments match rns_digits_gpu.cu: the packed basis table of the common
    // basis (n moduli), x's and y's digits (n·L u32 each), out's plan (4L u32, written by kernel
    // 1 earlier on this stream), out's digits (n·L u32), L and n·L. Every array holds at least
    // those counts (DeviceMpArray allocation; equal lengths and bases checked by the caller).
    // The grid-stride loop guards every access with t < n·L in 64-bit arithmetic; the element
    // index t / n is below L. out's digits are a distinct allocation from the inputs (`&mut`).
    unsafe { dev.launch(&MODULE, kernel, dev.grid_for(total), a) }
}
