//! GPU equals CPU for RNS arithmetic: every element of `mpblas::rns::gpu::{add, sub, mul, div, sqrt}`
//! has the CPU's representation ([`MpFloat`]: class, sign, exponent, residues and evaluation
//! bounds; the results are correctly rounded, so it is unique), on 2^20 seeded random elements
//! with full `p`-bit significands per operation at 106 and 424 bits and for `+ − ×` at 1696
//! bits (2^16 for `÷ √` at 1696 bits: the CPU reference there costs about a millisecond per
//! element), at 3393 bits (219 moduli, beyond the old limit of 128: 2^16 elements for `+ − ×`,
//! 2^10 for `÷ √`), and on adversarial sets (cancellation, exponents 10,000 apart and around
//! the rounding thresholds, exact ties, overflow and underflow, every pair of special values).
//! Also the argument checks (device, basis, length, basis size), transfers and empty arrays.
//!
//! Every test needs a GPU and is `#[ignore]`d; run them on the GPU machine with
//! `scripts/gpu-check.sh`. Without a GPU, a forced run fails (it never passes vacuously).
#![cfg(feature = "cuda")]

mod rns_common;

use mpblas::cuda::Device;
use mpblas::rns::gpu::{self, DeviceMpArray};
use mpblas::rns::{Basis, MpArray, MpFloat};
use mpblas::{Error, Result};
use rayon::prelude::*;
use rns_common::*;
use std::sync::Arc;

fn device() -> Device {
    match Device::open(0) {
        Ok(d) => {
            eprintln!("{}", d.info());
            d
        }
        Err(e) => panic!("these tests need a CUDA GPU, and none is usable: {e}"),
    }
}

type Gpu2 = fn(&Device, &DeviceMpArray, &DeviceMpArray, &mut DeviceMpArray) -> Result<()>;
type Cpu2 = fn(&MpFloat, &MpFloat) -> MpFloat;

/// `count` random numbers (in parallel, seeded per chunk).
fn randoms(b: &Arc<Basis>, seed: u64, count: usize, spread: i64) -> Vec<MpFloat> {
    const CHUNK: usize = 4096;
    (0..count.div_ceil(CHUNK))
        .into_par_iter()
        .flat_map_iter(|c| {
            let mut rng = Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(c as u64));
            let len = CHUNK.min(count - c * CHUNK);
            (0..len)
                .map(|_| random(b, &mut rng, spread))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn check2(
    dev: &Device,
    what: &str,
    gpu: Gpu2,
    cpu: Cpu2,
    b: &Arc<Basis>,
    xs: &[MpFloat],
    ys: &[MpFloat],
) {
    let t = std::time::Instant::now();
    let xa = MpArray::from_mpfloats(b, xs).expect("basis");
    let ya = MpArray::from_mpfloats(b, ys).expect("basis");
    let x = DeviceMpArray::upload(dev, &xa).expect("upload x");
    let y = DeviceMpArray::upload(dev, &ya).expect("upload y");
    let mut z = DeviceMpArray::zeros(dev, b, xs.len()).expect("alloc out");
    gpu(dev, &x, &y, &mut z).unwrap_or_else(|e| panic!("{what}: {e}"));
    let got = z.download().unwrap_or_else(|e| panic!("{what}: {e}"));
    let want: Vec<MpFloat> = xs.par_iter().zip(ys).map(|(a, c)| cpu(a, c)).collect();
    let want = MpArray::from_mpfloats(b, &want).expect("basis");
    assert_same(
        &format!("{what} at {} bits", b.precision()),
        &got,
        &want,
        |i| format!("x = {:?}, y = {:?}", xs[i], ys[i]),
    );
    eprintln!(
        "{what} at {} bits: {} elements identical ({:.1} s)",
        b.precision(),
        xs.len(),
        t.elapsed().as_secs_f64()
    );
}

fn check_sqrt(dev: &Device, what: &str, b: &Arc<Basis>, xs: &[MpFloat]) {
    let xa = MpArray::from_mpfloats(b, xs).expect("basis");
    let x = DeviceMpArray::upload(dev, &xa).expect("upload x");
    let mut z = DeviceMpArray::zeros(dev, b, xs.len()).expect("alloc out");
    gpu::sqrt(dev, &x, &mut z).unwrap_or_else(|e| panic!("{what}: {e}"));
    let got = z.download().unwrap_or_else(|e| panic!("{what}: {e}"));
    let want: Vec<MpFloat> = xs.par_iter().map(sqrt_ref).collect();
    let want = MpArray::from_mpfloats(b, &want).expect("basis");
    assert_same(
        &format!("{what} at {} bits", b.precision()),
        &got,
        &want,
        |i| format!("x = {:?}", xs[i]),
    );
    eprintln!(
        "{what} at {} bits: {} elements identical",
        b.precision(),
        xs.len()
    );
}

fn cpu_add(a: &MpFloat, c: &MpFloat) -> MpFloat {
    a.add(c).expect("basis")
}
fn cpu_sub(a: &MpFloat, c: &MpFloat) -> MpFloat {
    a.sub(c).expect("basis")
}
fn cpu_mul(a: &MpFloat, c: &MpFloat) -> MpFloat {
    a.mul(c).expect("basis")
}

fn all_ops_at(p: u32, random_divsqrt: usize) {
    all_ops_n(p, 1 << 20, random_divsqrt);
}

fn all_ops_n(p: u32, n: usize, random_divsqrt: usize) {
    let dev = device();
    let b = Basis::new(p).expect("basis");
    let s = p as u64;
    // random, exponents within ±8 binades (the exact-alignment path) ...
    let xs = randoms(&b, s, n, 8);
    let ys = randoms(&b, s + 1, n, 8);
    check2(&dev, "add random", gpu::add, cpu_add, &b, &xs, &ys);
    check2(&dev, "sub random", gpu::sub, cpu_sub, &b, &xs, &ys);
    check2(&dev, "mul random", gpu::mul, cpu_mul, &b, &xs, &ys);
    // ... and within ±3p binades (far operands too)
    let ws = randoms(&b, s + 2, n / 4, 3 * p as i64);
    check2(&dev, "add wide", gpu::add, cpu_add, &b, &xs[..n / 4], &ws);
    check2(&dev, "sub wide", gpu::sub, cpu_sub, &b, &ws, &ys[..n / 4]);
    check2(
        &dev,
        "div random",
        gpu::div,
        div_ref,
        &b,
        &xs[..random_divsqrt],
        &ys[..random_divsqrt],
    );
    let pos: Vec<MpFloat> = xs[..random_divsqrt].iter().map(MpFloat::abs).collect();
    check_sqrt(&dev, "sqrt random", &b, &pos);
    // adversarial sets
    let (ax, ay) = addsub_pairs(&b, s + 3);
    check2(&dev, "add adversarial", gpu::add, cpu_add, &b, &ax, &ay);
    check2(&dev, "sub adversarial", gpu::sub, cpu_sub, &b, &ax, &ay);
    let (mx, my) = mul_pairs(&b, s + 4);
    check2(&dev, "mul adversarial", gpu::mul, cpu_mul, &b, &mx, &my);
    let (dx, dy) = div_pairs(&b, s + 5);
    check2(&dev, "div adversarial", gpu::div, div_ref, &b, &dx, &dy);
    check_sqrt(&dev, "sqrt adversarial", &b, &sqrt_inputs(&b, s + 6));
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn rns_106_bits_gpu_equals_cpu() {
    all_ops_at(106, 1 << 20);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn rns_424_bits_gpu_equals_cpu() {
    all_ops_at(424, 1 << 20);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn rns_1696_bits_gpu_equals_cpu() {
    all_ops_at(1696, 1 << 16);
}

/// Beyond the old limit of 128 moduli: 3393 bits take 219.
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn rns_3393_bits_gpu_equals_cpu() {
    all_ops_n(3393, 1 << 16, 1 << 10);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn rns_transfers_round_trip() {
    let dev = device();
    let b = Basis::new(212).expect("basis");
    let xs = randoms(&b, 7, 1000, 100);
    let a = MpArray::from_mpfloats(&b, &xs).expect("basis");
    let d = DeviceMpArray::upload(&dev, &a).expect("upload");
    let back = d.download().expect("download");
    assert_same("round trip", &back, &a, |i| format!("{:?}", xs[i]));
    // copy_from_host into an existing array, then an operation queued after it sees it
    let mut d2 = DeviceMpArray::zeros(&dev, &b, 1000).expect("zeros");
    d2.copy_from_host(&a).expect("copy");
    let mut z = DeviceMpArray::zeros(&dev, &b, 1000).expect("zeros");
    gpu::add(&dev, &d, &d2, &mut z).expect("add");
    let want: Vec<MpFloat> = xs.iter().map(|x| x.add(x).expect("basis")).collect();
    let want = MpArray::from_mpfloats(&b, &want).expect("basis");
    assert_same("x + x", &z.download().expect("download"), &want, |i| {
        format!("{:?}", xs[i])
    });
    // empty arrays
    let e = DeviceMpArray::upload(&dev, &MpArray::zeros(&b, 0).unwrap()).expect("empty");
    let mut ez = DeviceMpArray::zeros(&dev, &b, 0).expect("empty");
    gpu::mul(&dev, &e, &e, &mut ez).expect("empty mul");
    gpu::sqrt(&dev, &e, &mut ez).expect("empty sqrt");
    assert!(ez.download().expect("download").is_empty());
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn rns_argument_errors() {
    let dev = device();
    let here = dev.ordinal();
    let b = Basis::new(106).expect("basis");
    // Equal moduli now mean the same (cached) basis; a different precision is
    // what mismatches.
    let b2 = Basis::new(200).expect("basis");
    let x = DeviceMpArray::zeros(&dev, &b, 8).expect("zeros");
    let short = DeviceMpArray::zeros(&dev, &b, 7).expect("zeros");
    let other = DeviceMpArray::zeros(&dev, &b2, 8).expect("zeros");
    let mut out = DeviceMpArray::zeros(&dev, &b, 8).expect("zeros");
    assert_eq!(
        gpu::add(&dev, &x, &short, &mut out),
        Err(Error::LengthMismatch {
            arg: "y",
            expected: 8,
            got: 7
        })
    );
    assert!(matches!(
        gpu::mul(&dev, &x, &other, &mut out),
        Err(Error::BasisMismatch { .. })
    ));
    let mut out_short = DeviceMpArray::zeros(&dev, &b, 7).expect("zeros");
    assert_eq!(
        gpu::sqrt(&dev, &x, &mut out_short),
        Err(Error::LengthMismatch {
            arg: "out",
            expected: 8,
            got: 7
        })
    );
    let mut away = DeviceMpArray::zeros(&dev, &b, 8).expect("zeros");
    away.set_ordinal_for_tests(here + 1);
    assert_eq!(
        gpu::div(&dev, &x, &away, &mut out),
        Err(Error::DeviceMismatch {
            arg: "y",
            expected: here,
            got: here + 1
        })
    );
    // host-side checks of transfers
    let mut wrong = MpArray::zeros(&b2, 8).unwrap();
    assert!(matches!(
        x.copy_to_host(&mut wrong),
        Err(Error::BasisMismatch { .. })
    ));
    assert!(matches!(
        out.copy_from_host(&MpArray::zeros(&b, 9).unwrap()),
        Err(Error::LengthMismatch { .. })
    ));
    // a basis beyond the kernels' local arrays is refused, not run
    let huge = Basis::new(4000).expect("basis"); // 259 moduli
    assert!(matches!(
        DeviceMpArray::zeros(&dev, &huge, 4),
        Err(Error::OutOfRange { .. })
    ));
}
