//! Launcher of `kernels/rns_divsqrt.cu`: RNS division and square root on the GPU, one thread
//! per element, correctly rounded (MPRES-BLAS can only do these on the host through MPFR).

use super::rns_array::DeviceMpArray;
use super::{Device, ModuleSource};
use crate::error::Result;

/// The entry points of `kernels/rns_divsqrt.cu` (`tests/kernel_names.rs` checks each against
/// the source).
pub const KERNELS: &[&str] = &["rns_div_vv", "rns_sqrt_v"];

/// The kernel module: source and entry points.
pub(crate) static MODULE: ModuleSource = ModuleSource {
    name: "rns_divsqrt",
    source: include_str!("kernels/rns_divsqrt.cu"),
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
    use cudarc::driver::PushKernelArg;
    let kernel = if y.is_some() {
        "rns_div_vv"
    } else {
        "rns_sqrt_v"
    };
    let f = dev.function(&MODULE, kernel)?;
    let n = out.len();
    let cfg = dev.grid_for(n);
    let n64 = n as u64;
    let tables = out.tables();
    let stream = dev.stream();
    let mut b = stream.launch_builder(&f);
    b.arg(&*tables);
    for a in std::iter::once(x).chain(y) {
        b.arg(&a.digits)
            .arg(&a.sign)
            .arg(&a.exp)
            .arg(&a.eval)
            .arg(&a.class);
    }
    b.arg(&mut out.digits)
        .arg(&mut out.sign)
        .arg(&mut out.exp)
        .arg(&mut out.eval)
        .arg(&mut out.class);
    b.arg(&n64);
    // SAFETY: the arguments match `rns_div_vv` (x and y) or `rns_sqrt_v` (x only) in
    // kernels/rns_divsqrt.cu: the packed basis table of the common basis (n ≤ RNS_MAX_N moduli,
    // checked at allocation), then digits (n·L u32), sign (L u8), exp (L i64), eval (4L u64)
    // and class (L u8) of each input and of out, then L. Every array holds at least those
    // counts (equal lengths and bases checked by the caller). The grid-stride loop guards every
    // access with i < L in 64-bit arithmetic. out's arrays are distinct allocations from the
    // inputs' (`&mut` borrow), as `__restrict__` says.
    let r = unsafe { b.launch(cfg) };
    dev.launched(kernel, r)
}
