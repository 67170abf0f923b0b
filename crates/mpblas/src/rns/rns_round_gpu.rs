//! Launcher of `rns_round_gpu.cu`: kernel 3 of the split RNS `+ − ×`, one thread per
//! element: exact sign of same-binade differences, rounding to `p` bits (nearest, ties to even)
//! by the exact power-of-two scaling, normalisation and interval evaluation.

use super::array_gpu::{DeviceMpArray, RNS_CUH};
use crate::cuda::{Device, ModuleSource, args};
use crate::error::Result;

/// The entry points of `rns_round_gpu.cu` (`tests/kernel_names.rs` checks each against
/// the source).
pub(crate) const KERNELS: &[&str] = &["rns_round_plan"];

/// The kernel module: source and entry points.
pub(crate) static MODULE: ModuleSource = ModuleSource {
    name: "rns_round_gpu",
    source: include_str!("rns_round_gpu.cu"),
    headers: &[&crate::eft::EFT_CUH, &RNS_CUH],
    kernels: KERNELS,
};

/// Round `out` in place following its plan (after kernels 1 and 2). The caller has checked
/// that `out.len() > 0` and that its basis fits the kernels ([`super::array_gpu::MAX_MODULI`]).
pub(crate) fn launch(dev: &Device, out: &mut DeviceMpArray) -> Result<()> {
    const KERNEL: &str = "rns_round_plan";
    let n = out.len();
    let a = args![
        out.tables(),
        out.digits.addr(),
        out.sign.addr(),
        out.exp.addr(),
        out.eval.addr(),
        out.class.addr(),
        out.buf.addr(),
        n
    ];
    // SAFETY: the arguments match rns_round_gpu.cu: the packed basis table of out's basis
    // (n ≤ RNS_MAX_N moduli, checked when out was allocated), out's digits (n·L u32), sign (L
    // u8), exp (L i64), eval (4L u64), class (L u8), its plan (4L u32, written by kernel 1 on
    // this stream) and L. The grid-stride loop guards every access with i < L in 64-bit
    // arithmetic; each thread touches only element i. The plan is a distinct allocation from
    // the arrays written.
    unsafe { dev.launch(&MODULE, KERNEL, dev.grid_for(n), a) }
}
