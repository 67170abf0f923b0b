//! GPU equals CPU: every element-wise kernel returns the CPU's bits (every word of every
//! element; a NaN's payload and sign aside, which Rust leaves unspecified too), on 2^20 seeded
//! random elements per operation with full-precision lower words, and on adversarial sets
//! (±0, ±Inf, NaN, cancellation, 2^±1000, subnormal results, the largest values). Also the
//! argument errors, out-of-memory, and 10,000 allocate-free cycles without leaking.
//!
//! Every test needs a GPU and is `#[ignore]`d, so `cargo test` lists them as ignored; run them
//! on the GPU machine with `scripts/gpu-check.sh`. Without a GPU, a forced run fails (it never
//! passes vacuously).
#![cfg(feature = "cuda")]

mod cuda_common;

use cuda_common::*;
use mpblas::cuda::{Device, DeviceScalar, DeviceVec};
use mpblas::{Dd, Error, Qd, Result};

/// Random elements per operation.
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

type Vv<T> = fn(&Device, &DeviceVec<T>, &DeviceVec<T>, &mut DeviceVec<T>) -> Result<()>;
type Vs<T> = fn(&Device, &DeviceVec<T>, T, &mut DeviceVec<T>) -> Result<()>;
type V<T> = fn(&Device, &DeviceVec<T>, &mut DeviceVec<T>) -> Result<()>;

fn check_vv<T: Format + DeviceScalar>(
    dev: &Device,
    what: &str,
    gpu: Vv<T>,
    cpu: fn(T, T) -> T,
    xs: &[T],
    ys: &[T],
) {
    let x = dev.upload(xs).expect("upload x");
    let y = dev.upload(ys).expect("upload y");
    let mut z = dev.zeros::<T>(xs.len()).expect("alloc out");
    gpu(dev, &x, &y, &mut z).unwrap_or_else(|e| panic!("{what}: {e}"));
    let got = z.download().expect("download");
    let want: Vec<T> = xs.iter().zip(ys).map(|(&a, &b)| cpu(a, b)).collect();
    assert_bits(what, &got, &want, |i| {
        format!("x = {}, y = {}", words(xs[i]), words(ys[i]))
    });
}

fn check_vs<T: Format + DeviceScalar>(
    dev: &Device,
    what: &str,
    gpu: Vs<T>,
    cpu: fn(T, T) -> T,
    xs: &[T],
    s: T,
) {
    let x = dev.upload(xs).expect("upload x");
    let mut z = dev.zeros::<T>(xs.len()).expect("alloc out");
    gpu(dev, &x, s, &mut z).unwrap_or_else(|e| panic!("{what}: {e}"));
    let got = z.download().expect("download");
    let want: Vec<T> = xs.iter().map(|&a| cpu(a, s)).collect();
    assert_bits(what, &got, &want, |i| {
        format!("x = {}, s = {}", words(xs[i]), words(s))
    });
}

fn check_v<T: Format + DeviceScalar>(
    dev: &Device,
    what: &str,
    gpu: V<T>,
    cpu: fn(T) -> T,
    xs: &[T],
) {
    let x = dev.upload(xs).expect("upload x");
    let mut z = dev.zeros::<T>(xs.len()).expect("alloc out");
    gpu(dev, &x, &mut z).unwrap_or_else(|e| panic!("{what}: {e}"));
    let got = z.download().expect("download");
    let want: Vec<T> = xs.iter().map(|&a| cpu(a)).collect();
    assert_bits(what, &got, &want, |i| format!("x = {}", words(xs[i])));
}

/// A binary operation: random vector-vector (with cancelling partners), random vector-scalar
/// (with several scalars), and every adversarial pair both ways.
fn binary<T: Format + DeviceScalar>(
    name: &str,
    vv: Vv<T>,
    vs: Vs<T>,
    cpu: fn(T, T) -> T,
    seed: u64,
    wide: i32,
) {
    let dev = device();
    let mut rng = Rng::new(seed);
    let xs: Vec<T> = randoms(&mut rng, N, wide);
    let ys = partners(&mut rng, &xs, wide);
    check_vv(&dev, &format!("{name} vv random"), vv, cpu, &xs, &ys);
    for k in 0..4 {
        let e = rng.int(-20, 20);
        let s = T::random(&mut rng, e);
        let part = &xs[k * N / 4..(k + 1) * N / 4];
        check_vs(&dev, &format!("{name} vs random ({k})"), vs, cpu, part, s);
    }
    let (ax, ay) = all_pairs::<T>();
    check_vv(&dev, &format!("{name} vv adversarial"), vv, cpu, &ax, &ay);
    let adv = T::adversarial();
    let mut xs_adv = adv.clone();
    xs_adv.extend(randoms::<T>(&mut rng, 256, 1000));
    for &s in &adv {
        check_vs(
            &dev,
            &format!("{name} vs adversarial s = {}", words(s)),
            vs,
            cpu,
            &xs_adv,
            s,
        );
    }
}

fn unary<T: Format + DeviceScalar>(name: &str, v: V<T>, cpu: fn(T) -> T, seed: u64) {
    let dev = device();
    let mut rng = Rng::new(seed);
    let xs: Vec<T> = randoms::<T>(&mut rng, N, 1000)
        .into_iter()
        .map(|x| if x.lead() < 0.0 { -x } else { x })
        .collect();
    check_v(&dev, &format!("{name} random"), v, cpu, &xs);
    let mut adv = T::adversarial();
    adv.extend(randoms::<T>(&mut rng, 256, 1000));
    check_v(&dev, &format!("{name} adversarial"), v, cpu, &adv);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn dd_add_matches_cpu() {
    binary::<Dd>(
        "dd add",
        mpblas::dd::gpu::add,
        mpblas::dd::gpu::add_scalar,
        |a, b| a + b,
        1,
        1000,
    );
}
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn dd_sub_matches_cpu() {
    binary::<Dd>(
        "dd sub",
        mpblas::dd::gpu::sub,
        mpblas::dd::gpu::sub_scalar,
        |a, b| a - b,
        2,
        1000,
    );
}
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn dd_mul_matches_cpu() {
    binary::<Dd>(
        "dd mul",
        mpblas::dd::gpu::mul,
        mpblas::dd::gpu::mul_scalar,
        |a, b| a * b,
        3,
        600,
    );
}
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn dd_div_matches_cpu() {
    binary::<Dd>(
        "dd div",
        mpblas::dd::gpu::div,
        mpblas::dd::gpu::div_scalar,
        |a, b| a / b,
        4,
        600,
    );
}
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn dd_sqrt_matches_cpu() {
    unary::<Dd>("dd sqrt", mpblas::dd::gpu::sqrt, |a| a.sqrt(), 5);
}
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn qd_add_matches_cpu() {
    binary::<Qd>(
        "qd add",
        mpblas::qd::gpu::add,
        mpblas::qd::gpu::add_scalar,
        |a, b| a + b,
        11,
        1000,
    );
}
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn qd_sub_matches_cpu() {
    binary::<Qd>(
        "qd sub",
        mpblas::qd::gpu::sub,
        mpblas::qd::gpu::sub_scalar,
        |a, b| a - b,
        12,
        1000,
    );
}
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn qd_mul_matches_cpu() {
    binary::<Qd>(
        "qd mul",
        mpblas::qd::gpu::mul,
        mpblas::qd::gpu::mul_scalar,
        |a, b| a * b,
        13,
        600,
    );
}
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn qd_div_matches_cpu() {
    binary::<Qd>(
        "qd div",
        mpblas::qd::gpu::div,
        mpblas::qd::gpu::div_scalar,
        |a, b| a / b,
        14,
        600,
    );
}
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn qd_sqrt_matches_cpu() {
    unary::<Qd>("qd sqrt", mpblas::qd::gpu::sqrt, |a| a.sqrt(), 15);
}

// ---- arguments, memory, streams ---------------------------------------------------------------

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn length_mismatches_are_errors_naming_the_argument() {
    let dev = device();
    let x = dev.upload(&[Dd::ONE; 5]).expect("upload");
    let y4 = dev.upload(&[Dd::ONE; 4]).expect("upload");
    let mut out5 = dev.zeros::<Dd>(5).expect("alloc");
    let mut out6 = dev.zeros::<Dd>(6).expect("alloc");
    let mism = |arg: &'static str, expected, got| Error::LengthMismatch { arg, expected, got };
    assert_eq!(
        mpblas::dd::gpu::add(&dev, &x, &y4, &mut out5),
        Err(mism("y", 5, 4))
    );
    assert_eq!(
        mpblas::dd::gpu::div(&dev, &x, &x, &mut out6),
        Err(mism("out", 5, 6))
    );
    assert_eq!(
        mpblas::dd::gpu::mul_scalar(&dev, &x, Dd::ONE, &mut out6),
        Err(mism("out", 5, 6))
    );
    assert_eq!(
        mpblas::dd::gpu::sqrt(&dev, &y4, &mut out5),
        Err(mism("out", 4, 5))
    );
    let q = dev.upload(&[Qd::ONE; 3]).expect("upload");
    let mut q2 = dev.zeros::<Qd>(2).expect("alloc");
    assert_eq!(
        mpblas::qd::gpu::sub(&dev, &q, &q, &mut q2),
        Err(mism("out", 3, 2))
    );
    // Host copies are checked too.
    let mut host = vec![Dd::ZERO; 4];
    assert_eq!(x.copy_to_host(&mut host), Err(mism("dst", 5, 4)));
    let mut x2 = dev.zeros::<Dd>(5).expect("alloc");
    assert_eq!(x2.copy_from_host(&host), Err(mism("src", 5, 4)));
    assert_eq!(x2.copy_from(&y4), Err(mism("src", 5, 4)));
    // Empty vectors are fine.
    let e = dev.upload::<Dd>(&[]).expect("empty");
    let mut e2 = dev.zeros::<Dd>(0).expect("empty");
    mpblas::dd::gpu::add(&dev, &e, &e, &mut e2).expect("empty add");
    assert!(e2.download().expect("download").is_empty());
    // Nothing above poisoned the stream.
    mpblas::dd::gpu::add(&dev, &x, &x, &mut out5).expect("add");
    assert_eq!(out5.download().expect("download"), vec![Dd::from(2.0); 5]);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn out_of_memory_is_an_error() {
    let dev = device();
    let (_, total) = dev.memory().expect("memory");
    // Four words per element: four times the device memory.
    match dev.zeros::<Qd>(total / 8) {
        Err(Error::CudaOutOfMemory { bytes, .. }) => assert!(bytes >= total),
        other => panic!("expected CudaOutOfMemory, got {other:?}"),
    }
    // The device is still usable.
    let x = dev.upload(&[Qd::ONE; 3]).expect("upload after OOM");
    assert_eq!(x.download().expect("download"), vec![Qd::ONE; 3]);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn ten_thousand_allocate_free_cycles_do_not_leak() {
    let dev = device();
    let n = 1 << 20; // 16 MiB per cycle
    let one = dev.upload(&vec![Dd::ONE; n]).expect("upload");
    let mut out = dev.zeros::<Dd>(n).expect("alloc");
    mpblas::dd::gpu::add(&dev, &one, &one, &mut out).expect("warm-up");
    drop(out);
    dev.synchronize().expect("sync");
    let (free0, _) = dev.memory().expect("memory");
    for i in 0..10_000 {
        let mut v = dev.zeros::<Dd>(n).expect("alloc");
        if i % 1000 == 0 {
            mpblas::dd::gpu::add(&dev, &one, &one, &mut v).expect("add");
        }
    }
    dev.synchronize().expect("sync");
    let (free1, _) = dev.memory().expect("memory");
    eprintln!("free before {free0} bytes, after {free1} bytes");
    // A leak would lose 16 MiB per cycle (160 GB in all); allow for allocator slack.
    assert!(
        free1 + (64 << 20) >= free0,
        "free memory shrank from {free0} to {free1} bytes"
    );
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn chained_async_ops_and_two_handles_on_one_gpu() {
    let dev = device();
    let other = Device::open(0).expect("second handle");
    let mut rng = Rng::new(99);
    let xs: Vec<Qd> = randoms(&mut rng, 4096, 100);
    let ys: Vec<Qd> = randoms(&mut rng, 4096, 100);
    let x = dev.upload(&xs).expect("upload");
    let y = other.upload(&ys).expect("upload");
    let mut t = dev.zeros::<Qd>(xs.len()).expect("alloc");
    let mut u = other.zeros::<Qd>(xs.len()).expect("alloc");
    // (x * y + x) / y, enqueued without waiting, across the two handles' streams.
    mpblas::qd::gpu::mul(&dev, &x, &y, &mut t).expect("mul");
    mpblas::qd::gpu::add(&other, &t, &x, &mut u).expect("add");
    mpblas::qd::gpu::div(&dev, &u, &y, &mut t).expect("div");
    let got = t.download().expect("download");
    let want: Vec<Qd> = xs.iter().zip(&ys).map(|(&a, &b)| (a * b + a) / b).collect();
    assert_bits("qd chain", &got, &want, |i| {
        format!("x = {}, y = {}", words(xs[i]), words(ys[i]))
    });
    // Device-to-device copy.
    let mut c = dev.zeros::<Qd>(xs.len()).expect("alloc");
    c.copy_from(&x).expect("copy");
    assert_bits("qd copy", &c.download().expect("download"), &xs, |_| {
        String::new()
    });
}
