//! GPU equals CPU for the element-wise functions: `mpblas::dd::gpu::{exp, ln, sin, cos}` and
//! `mpblas::qd::gpu::{exp, ln, sin, cos}` return the CPU's bits (every word of every element; a NaN's
//! payload and sign aside) on 2^20 seeded random arguments per function and format spread over
//! each function's domain, plus adversarial sets: ±0, ±Inf, NaN, `exp` near its overflow and
//! underflow thresholds and near multiples of ln 2, `ln` near 1 and of subnormals, `sin`/`cos`
//! of 1e22, 1e300, `f64::MAX` and of arguments near multiples of π/2 (the inputs are those of
//! the host twin test, `tests/cuda_func_inputs/`). A mismatch reports how many elements differ
//! and the first one with its input.
//!
//! Every test needs a GPU and is `#[ignore]`d; run them on the GPU machine with
//! `scripts/gpu-check.sh`. Without a GPU a forced run fails (it never passes vacuously).
#![cfg(feature = "cuda")]

mod cuda_common;
mod cuda_func_inputs;

use cuda_common::*;
use cuda_func_inputs::*;
use mpblas::cuda::{Device, DeviceScalar, DeviceVec};
use mpblas::{Dd, Error, Qd, Result};
use rayon::prelude::*;

/// Random elements per function and format (adversarial ones come on top).
const N: usize = 1 << 20;

fn device() -> Device {
    match Device::open(0) {
        Ok(d) => {
            eprintln!("{}", d.info());
            d
        }
        Err(e) => panic!("these tests need a CUDA GPU, and none is usable: {e}"),
    }
}

type V<T> = fn(&Device, &DeviceVec<T>, &mut DeviceVec<T>) -> Result<()>;

/// Runs `gpu` on `xs` and compares with `cpu` element by element (CPU side in parallel).
fn check<T: FuncFormat + DeviceScalar + Send + Sync>(
    what: &str,
    gpu: V<T>,
    cpu: fn(T) -> T,
    xs: &[T],
) {
    let dev = device();
    let x = dev.upload(xs).expect("upload x");
    let mut z = dev.zeros::<T>(xs.len()).expect("alloc out");
    gpu(&dev, &x, &mut z).unwrap_or_else(|e| panic!("{what}: {e}"));
    let got = z.download().unwrap_or_else(|e| panic!("{what}: {e}"));
    let want: Vec<T> = xs.par_iter().map(|&a| cpu(a)).collect();
    assert!(xs.len() > N, "{what}: only {} inputs", xs.len());
    assert_bits(what, &got, &want, |i| format!("x = {}", words(xs[i])));
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn dd_exp_matches_cpu() {
    let xs: Vec<Dd> = exp_inputs(&mut Rng::new(101), N);
    check("dd exp", mpblas::dd::gpu::exp, |a| a.exp(), &xs);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn dd_ln_matches_cpu() {
    let xs: Vec<Dd> = ln_inputs(&mut Rng::new(102), N);
    check("dd ln", mpblas::dd::gpu::ln, |a| a.ln(), &xs);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn dd_sin_matches_cpu() {
    let xs: Vec<Dd> = trig_inputs(&mut Rng::new(103), N);
    check("dd sin", mpblas::dd::gpu::sin, |a| a.sin(), &xs);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn dd_cos_matches_cpu() {
    let xs: Vec<Dd> = trig_inputs(&mut Rng::new(104), N);
    check("dd cos", mpblas::dd::gpu::cos, |a| a.cos(), &xs);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn qd_exp_matches_cpu() {
    let xs: Vec<Qd> = exp_inputs(&mut Rng::new(111), N);
    check("qd exp", mpblas::qd::gpu::exp, |a| a.exp(), &xs);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn qd_ln_matches_cpu() {
    let xs: Vec<Qd> = ln_inputs(&mut Rng::new(112), N);
    check("qd ln", mpblas::qd::gpu::ln, |a| a.ln(), &xs);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn qd_sin_matches_cpu() {
    let xs: Vec<Qd> = trig_inputs(&mut Rng::new(113), N);
    check("qd sin", mpblas::qd::gpu::sin, |a| a.sin(), &xs);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn qd_cos_matches_cpu() {
    let xs: Vec<Qd> = trig_inputs(&mut Rng::new(114), N);
    check("qd cos", mpblas::qd::gpu::cos, |a| a.cos(), &xs);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn function_argument_errors_and_empty_vectors() {
    let dev = device();
    let mism = |arg: &'static str, expected, got| Error::LengthMismatch { arg, expected, got };
    let x = dev.upload(&[Dd::ONE; 5]).expect("upload");
    let mut out4 = dev.zeros::<Dd>(4).expect("alloc");
    for f in [
        mpblas::dd::gpu::exp,
        mpblas::dd::gpu::ln,
        mpblas::dd::gpu::sin,
        mpblas::dd::gpu::cos,
    ] {
        assert_eq!(f(&dev, &x, &mut out4), Err(mism("out", 5, 4)));
    }
    let q = dev.upload(&[Qd::ONE; 3]).expect("upload");
    let mut q2 = dev.zeros::<Qd>(2).expect("alloc");
    for f in [
        mpblas::qd::gpu::exp,
        mpblas::qd::gpu::ln,
        mpblas::qd::gpu::sin,
        mpblas::qd::gpu::cos,
    ] {
        assert_eq!(f(&dev, &q, &mut q2), Err(mism("out", 3, 2)));
    }
    let e = dev.upload::<Qd>(&[]).expect("empty");
    let mut e2 = dev.zeros::<Qd>(0).expect("empty");
    mpblas::qd::gpu::sin(&dev, &e, &mut e2).expect("empty sin");
    assert!(e2.download().expect("download").is_empty());
    // Nothing above poisoned the stream.
    let mut out5 = dev.zeros::<Dd>(5).expect("alloc");
    mpblas::dd::gpu::ln(&dev, &x, &mut out5).expect("ln");
    assert_eq!(out5.download().expect("download"), vec![Dd::ZERO; 5]);
}
