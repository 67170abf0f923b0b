//! Launcher of `rns_divsqrt_gpu.cu`: RNS division and square root on the GPU, one thread
//! per element, correctly rounded (MPRES-BLAS can only do these on the host through MPFR).

use super::array_gpu::{DeviceMpArray, RNS_CUH};
use crate::cuda::{Device, ModuleSource, args};
use crate::error::Result;

/// The entry points of `rns_divsqrt_gpu.cu` (`tests/kernel_names.rs` checks each against
/// the source).
pub(crate) const KERNELS: &[&str] = &["rns_div_vv", "rns_sqrt_v"];

/// The kernel module: source and entry points.
pub(crate) static MODULE: ModuleSource = ModuleSource {
    name: "rns_divsqrt_gpu",
    source: include_str!("rns_divsqrt_gpu.cu"),
    headers: &[&crate::eft::EFT_CUH, &RNS_CUH],
    kernels: KERNELS,
};

/// `out = x / y` (with `y`) or `out = √x` (without). The caller has checked devices, bases and
/// lengths, and that `out.len() > 0`.
pub(crate) fn launch(
    dev: &Device,
    x: &DeviceMpArray,
    y: Option<&DeviceMpArray>,
    out: &mut DeviceMpArray,
) -> Result<()> {
    let kernel = if y.is_some() {
        "rns_div_vv"
    } else {
        "rns_sqrt_v"
    };
    let n = out.len();
    let mut a = vec![crate::cuda::Arg::U64(out.tables())];
    for v in std::iter::once(x).chain(y).chain(std::iter::once(&*out)) {
        a.extend_from_slice(args![
            v.digits.addr(),
            v.sign.addr(),
            v.exp.addr(),
            v.eval.addr(),
            v.class.addr()
        ]);
    }
    a.push(crate::cuda::Arg::U64(n as u64));
    // SAFETY: the arguments match `rns_div_vv` (x and y) or `rns_sqrt_v` (x only) in
    // rns_divsqrt_gpu.cu: the packed basis table of the common basis (n ≤ RNS_MAX_N moduli,
    // checked at allocation), then digits (n·L u32), sign (L u8), exp (L i64), eval (4L u64)
    // and class (L u8) of each input and of out, then L. Every array holds at least those
    // counts (equal lengths and bases checked by the caller). The grid-stride loop guards every
    // access with i < L in 64-bit arithmetic. out's arrays are distinct allocations from the
    // inputs' (`&mut` borrow), as `__restrict__` says.
    unsafe { dev.launch(&MODULE, kernel, dev.grid_for(n), &a) }
}
