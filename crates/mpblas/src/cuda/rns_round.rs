//! Launcher of `kernels/rns_round.cu`: kernel 3 of the split RNS `+ − ×`, one thread per
//! element: exact sign of same-binade differences, rounding to `p` bits (nearest, ties to even)
//! by the exact power-of-two scaling, normalisation and interval evaluation.

use super::rns_array::DeviceMpArray;
use super::{Device, ModuleSource};
use crate::error::Result;

/// The entry points of `kernels/rns_round.cu` (`tests/kernel_names.rs` checks each against
/// the source).
pub const KERNELS: &[&str] = &["rns_round_plan"];

/// The kernel module: source and entry points.
pub(crate) static MODULE: ModuleSource = ModuleSource {
    name: "rns_round",
    source: include_str!("kernels/rns_round.cu"),
    kernels: KERNELS,
};

/// Round `out` in place following its plan (after kernels 1 and 2). The caller has checked
/// that `out.len() > 0` and that its basis fits the kernels ([`super::rns::MAX_MODULI`]).
pub(crate) fn launch(dev: &Device, out: &mut DeviceMpArray) -> Result<()> {
    use cudarc::driver::PushKernelArg;
    const KERNEL: &str = "rns_round_plan";
    let f = dev.function(&MODULE, KERNEL)?;
    let n = out.len();
    let cfg = dev.grid_for(n);
    let n64 = n as u64;
    let tables = out.tables();
    let stream = dev.stream();
    let mut b = stream.launch_builder(&f);
    b.arg(&*tables);
    b.arg(&mut out.digits)
        .arg(&mut out.sign)
        .arg(&mut out.exp)
        .arg(&mut out.eval)
        .arg(&mut out.class);
    b.arg(&out.buf);
    b.arg(&n64);
    // SAFETY: the arguments match kernels/rns_round.cu: the packed basis table of out's basis
    // (n ≤ RNS_MAX_N moduli, checked when out was allocated), out's digits (n·L u32), sign (L
    // u8), exp (L i64), eval (4L u64), class (L u8), its plan (4L u32, written by kernel 1 on
    // this stream) and L. The grid-stride loop guards every access with i < L in 64-bit
    // arithmetic; each thread touches only element i. The plan is a distinct allocation from
    // the arrays written.
    let r = unsafe { b.launch(cfg) };
    dev.launched(KERNEL, r)
}
