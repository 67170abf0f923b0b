//! Launcher of `kernels/rns_esi.cu`: kernel 1 of the split RNS `+ − ×` (exponents, signs and
//! interval evaluations, one thread per element), which writes the plan into the output
//! array's buffer. Called by [`rns::add`](super::rns::add), [`rns::sub`](super::rns::sub) and
//! [`rns::mul`](super::rns::mul).

use super::rns_array::DeviceMpArray;
use super::{Device, ModuleSource};
use crate::error::Result;

/// The entry points of `kernels/rns_esi.cu` (`tests/kernel_names.rs` checks each against the
/// source).
pub const KERNELS: &[&str] = &["rns_add_esi", "rns_sub_esi", "rns_mul_esi"];

/// The kernel module: source and entry points.
pub(crate) static MODULE: ModuleSource = ModuleSource {
    name: "rns_esi",
    source: include_str!("kernels/rns_esi.cu"),
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
    use cudarc::driver::PushKernelArg;
    let f = dev.function(&MODULE, kernel)?;
    let n = out.len();
    let cfg = dev.grid_for(n);
    let n64 = n as u64;
    let tables = out.tables();
    let stream = dev.stream();
    let mut b = stream.launch_builder(&f);
    b.arg(&*tables);
    b.arg(&x.sign).arg(&x.exp).arg(&x.eval).arg(&x.class);
    b.arg(&y.sign).arg(&y.exp).arg(&y.eval).arg(&y.class);
    b.arg(&mut out.sign)
        .arg(&mut out.exp)
        .arg(&mut out.eval)
        .arg(&mut out.class);
    b.arg(&mut out.buf);
    b.arg(&n64);
    // SAFETY: the arguments match `RNS_ESI_PARAMS` in kernels/rns_esi.cu: the packed basis table
    // (`pack_basis` layout, from the device cache, for the operands' common basis), then sign
    // (u8), exp (i64), eval (u64, 4 words per element) and class (u8) of x, of y and of out,
    // then out's buffer (u32, 4 words per element) and n = L. Every array holds at least its
    // per-element count times L entries (DeviceMpArray allocation; lengths checked equal by the
    // caller). The grid-stride loop guards every access with i < n in 64-bit arithmetic. out's
    // arrays are distinct allocations from x's and y's (`&mut` borrow), as `__restrict__` says.
    let r = unsafe { b.launch(cfg) };
    dev.launched(kernel, r)
}
