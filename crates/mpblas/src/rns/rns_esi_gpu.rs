//! Launcher of `rns_esi_gpu.cu`: kernel 1 of the split RNS `+ − ×` (exponents, signs and
//! interval evaluations, one thread per element), which writes the plan into the output
//! array's buffer. Called by [`gpu::add`](super::gpu::add), [`gpu::sub`](super::gpu::sub) and
//! [`gpu::mul`](super::gpu::mul).

use super::array_gpu::{DeviceMpArray, RNS_CUH};
use crate::cuda::{Device, ModuleSource, args};
use crate::error::Result;

/// The entry points of `rns_esi_gpu.cu` (`tests/kernel_names.rs` checks each against the
/// source).
pub(crate) const KERNELS: &[&str] = &["rns_add_esi", "rns_sub_esi", "rns_mul_esi"];

/// The kernel module: source and entry points.
pub(crate) static MODULE: ModuleSource = ModuleSource {
    name: "rns_esi_gpu",
    source: include_str!("rns_esi_gpu.cu"),
    headers: &[&crate::eft::EFT_CUH, &RNS_CUH],
    kernels: KERNELS,
};

/// Launch `kernel` (one of [`KERNELS`]) on `x`, `y` into `out` (whose buffer receives the plan).
/// The caller has checked devices, bases and lengths, and that `out.len() > 0`.
pub(crate) fn launch(
    dev: &Device,
    kernel: &'static str,
    x: &DeviceMpArray,
    y: &DeviceMpArray,
    out: &mut DeviceMpArray,
) -> Result<()> {
    let n = out.len();
    let a = args![
        out.tables(),
        x.sign.addr(),
        x.exp.addr(),
        x.eval.addr(),
        x.class.addr(),
        y.sign.addr(),
        y.exp.addr(),
        y.eval.addr(),
        y.class.addr(),
        out.sign.addr(),
        out.exp.addr(),
        out.eval.addr(),
        out.class.addr(),
        out.buf.addr(),
        n
    ];
    // SAFETY: the arguments match `RNS_ESI_PARAMS` in rns_esi_gpu.cu: the packed basis table
    // (`pack_basis` layout, from the device cache, for the operands' common basis), then sign
    // (u8), exp (i64), eval (u64, 4 words per element) and class (u8) of x, of y and of out,
    // then out's buffer (u32, 4 words per element) and n = L. Every array holds at least its
    // per-element count times L entries (DeviceMpArray allocation; lengths checked equal by the
    // caller). The grid-stride loop guards every access with i < n in 64-bit arithmetic. out's
    // arrays are distinct allocations from x's and y's (`&mut` borrow), as `__restrict__` says.
    unsafe { dev.launch(&MODULE, kernel, dev.grid_for(n), a) }
}
