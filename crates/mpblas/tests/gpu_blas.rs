//! GPU equals CPU for BLAS levels 1 and 2: every reduction (sum and dot in the three summation orders,
//! asum, nrm2, iamax, and f64 sum2/dot2) and every element-wise routine (axpy, scal, rot) of
//! `mpblas::blas::gpu` returns the CPU's bits, for f64, Dd and Qd, for lengths around the
//! chunk and lane boundaries, positive and negative increments, and several launch shapes
//! (the reproducibility claim: the bits never depend on the grid or the block size), on
//! random full-precision data, on cancelling data and on adversarial sets (±0, ±∞, NaN,
//! 2^±1000, subnormals, the largest values); and gemv (values and bounds) and ger for every
//! matrix layout (column-major, transposed, strided, a repeated row), increments ±, the special
//! scalars and several launches and rows per block.
//!
//! Every test needs a GPU and is `#[ignore]`d, so `cargo test` lists them as ignored; run them
//! on the GPU machine with `scripts/gpu-check.sh`. Without a GPU, a forced run fails (it never
//! passes vacuously).
#![cfg(feature = "cuda")]

mod cuda_common;

use cuda_common::*;
use mpblas::blas::gpu::{self, GemvShape, GpuFormat, LaunchShape};
use mpblas::blas::{self, Summation};
use mpblas::cuda::{
    self, Device, DeviceMatMut, DeviceMatRef, DeviceScalar, DeviceVec, DeviceVecMut, DeviceVecRef,
};
use mpblas::rns::{Basis, MpFloat};
use mpblas::view::{MatLayout, MatMut, MatRef, Trans, VecMut, VecRef};
use mpblas::{Dd, Error, Qd};

fn device() -> Device {
    match Device::open(0) {
        Ok(d) => {
            eprintln!("{}", d.info());
            d
        }
        Err(e) => panic!("these tests need a CUDA GPU, and none is usable: {e}"),
    }
}

/// Lengths around the lane (256) and chunk (4096) boundaries, and two passes' worth.
const LENGTHS: &[usize] = &[1, 2, 3, 255, 256, 257, 4095, 4096, 4097, 70_001];
/// The big length of the blocked order: three passes.
const BIG: usize = (1 << 24) + 4099;
/// Increments: unit, strided, and walking down from the end.
const INCS: &[isize] = &[1, 3, -2];

fn shapes() -> Vec<LaunchShape> {
    let s = |threads, blocks| LaunchShape { threads, blocks };
    vec![
        LaunchShape::default(),
        s(32, Some(1)),
        s(50, Some(7)),
        s(1024, Some(3)),
        s(256, Some(1000)),
        s(96, None),
    ]
}

/// Data for the tests: random full-precision values of spread exponents with cancelling
/// partners, and the adversarial set of each format.
trait Gen: GpuFormat + Copy + std::fmt::Debug {
    fn random_vec(rng: &mut Rng, n: usize) -> Vec<Self>;
    fn specials() -> Vec<Self>;
}

impl Gen for f64 {
    fn random_vec(rng: &mut Rng, n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| {
                // Every eighth element cancels its predecessor's leading bits.
                let e = rng.exponent(30);
                let x = rng.f64_exp(e);
                if i % 8 == 7 {
                    -x * (1.0 + 2f64.powi(-40))
                } else {
                    x
                }
            })
            .collect()
    }
    fn specials() -> Vec<f64> {
        let p = |e: i32| 2f64.powi(e);
        vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            p(1000),
            -p(1000),
            p(-1000),
            f64::MAX,
            -f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            p(600),
            p(-600),
        ]
    }
}

macro_rules! gen_multiword {
    ($t:ty) => {
        impl Gen for $t {
            fn random_vec(rng: &mut Rng, n: usize) -> Vec<$t> {
                let xs: Vec<$t> = randoms(rng, n, 30);
                let ys = partners(rng, &xs, 30);
                xs.iter()
                    .zip(&ys)
                    .enumerate()
                    .map(|(i, (&x, &y))| if i % 2 == 0 { x } else { y })
                    .collect()
            }
            fn specials() -> Vec<$t> {
                <$t as Format>::adversarial()
            }
        }
    };
}
gen_multiword!(Dd);
gen_multiword!(Qd);

fn same<T: DeviceScalar>(what: &str, gpu: T, cpu: T) {
    assert_bits(what, &[gpu], &[cpu], |_| String::new());
}

/// The storage for `n` elements at increment `inc`, filled from `data` cyclically.
fn storage<T: Copy>(data: &[T], n: usize, inc: isize) -> Vec<T> {
    let len = if n == 0 {
        0
    } else {
        1 + (n - 1) * inc.unsigned_abs()
    };
    (0..len).map(|i| data[i % data.len()]).collect()
}

/// Every reduction on `x` (and `y`) at length `n`, increment `inc`, in every shape, against
/// the CPU.
fn check_reductions<T: Gen>(
    dev: &Device,
    xs: &[T],
    ys: &[T],
    n: usize,
    inc: isize,
    orders: &[Summation],
) {
    let hx = storage(xs, n, inc);
    let hy = storage(ys, n, -inc);
    let dx: DeviceVec<T> = dev.upload(&hx).expect("upload x");
    let dy: DeviceVec<T> = dev.upload(&hy).expect("upload y");
    let cx = VecRef::from_blas("x", n, &hx, inc).expect("x");
    let cy = VecRef::from_blas("y", n, &hy, -inc).expect("y");
    let gx = DeviceVecRef::from_blas("x", n, &dx, inc).expect("x");
    let gy = DeviceVecRef::from_blas("y", n, &dy, -inc).expect("y");
    let tag = |op: &str| format!("{} {op} n={n} inc={inc}", T::NAME);
    for &order in orders {
        let cpu_sum = blas::sum_ordered(cx, order).expect("cpu sum");
        let cpu_dot = blas::dot_ordered(cx, cy, order).expect("cpu dot");
        let shapes = if order == Summation::Recursive {
            vec![LaunchShape::default()]
        } else {
            shapes()
        };
        for shape in shapes {
            let what = |op: &str| format!("{} {} {shape:?}", tag(op), order.name());
            same(
                &what("sum"),
                gpu::sum_shaped(dev, gx, order, shape).expect("sum"),
                cpu_sum,
            );
            match gpu::dot_shaped(dev, gx, gy, order, shape) {
                Err(Error::OutOfRange { max, .. }) if too_big::<T>(shape, max) => {}
                r => same(&what("dot"), r.expect("dot"), cpu_dot),
            }
        }
    }
    // The bounded forms: the same value and the same bound on both devices.
    for &order in orders {
        let c = blas::sum_bounded(cx, order).expect("cpu sum_bounded");
        let g = gpu::sum_bounded(dev, gx, order).expect("sum_bounded");
        same(&tag("sum_bounded"), g.value, c.value);
        assert!(
            same_bits(g.error_bound, c.error_bound),
            "{}: bound {} vs {}",
            tag("sum_bounded"),
            g.error_bound,
            c.error_bound
        );
        let c = blas::dot_bounded(cx, cy, order).expect("cpu dot_bounded");
        let g = gpu::dot_bounded(dev, gx, gy, order).expect("dot_bounded");
        same(&tag("dot_bounded"), g.value, c.value);
        assert!(
            same_bits(g.error_bound, c.error_bound),
            "{}: bound {} vs {}",
            tag("dot_bounded"),
            g.error_bound,
            c.error_bound
        );
    }
    let (c, g) = (
        blas::level1::asum_bounded(cx).unwrap(),
        gpu::asum_bounded(dev, gx).unwrap(),
    );
    assert!(
        same_bits(g.error_bound, c.error_bound),
        "{}",
        tag("asum_bounded")
    );
    let (c, g) = (
        blas::nrm2_bounded(cx).unwrap(),
        gpu::nrm2_bounded(dev, gx).unwrap(),
    );
    assert!(
        same_bits(g.error_bound, c.error_bound),
        "{}",
        tag("nrm2_bounded")
    );
    let cpu_asum = blas::asum(cx).expect("asum");
    let cpu_nrm2 = blas::nrm2(cx).expect("nrm2");
    let cpu_iamax = blas::iamax(cx).expect("iamax");
    for shape in shapes() {
        let what = |op: &str| format!("{} {shape:?}", tag(op));
        same(
            &what("asum"),
            gpu::asum(dev, gx, shape).expect("asum"),
            cpu_asum,
        );
        match gpu::nrm2(dev, gx, shape) {
            Err(Error::OutOfRange { max, .. }) if too_big::<T>(shape, max) => {}
            r => same(&what("nrm2"), r.expect("nrm2"), cpu_nrm2),
        }
        assert_eq!(
            gpu::iamax(dev, gx, shape).expect("iamax"),
            cpu_iamax,
            "{}",
            what("iamax")
        );
    }
}

/// A launch refused for its block size is right only for the quad-double kernels (whose
/// registers do not fit 1024 threads) and only above 256 threads.
fn too_big<T: DeviceScalar>(shape: LaunchShape, max: usize) -> bool {
    assert!(
        T::WORDS == 4 && shape.threads > 256 && (shape.threads as usize) > max,
        "{} refused {shape:?} (max {max})",
        T::NAME
    );
    eprintln!(
        "{} refuses {shape:?}: at most {max} threads, as documented",
        T::NAME
    );
    true
}

fn reductions_for<T: Gen>(seed: u64) {
    let dev = device();
    let mut rng = Rng::new(seed);
    let xs = T::random_vec(&mut rng, 80_000);
    let ys = T::random_vec(&mut rng, 80_000);
    for &n in LENGTHS {
        for &inc in INCS {
            check_reductions(&dev, &xs, &ys, n, inc, &Summation::ALL);
        }
    }
    let bx = T::random_vec(&mut rng, BIG);
    let by = T::random_vec(&mut rng, BIG);
    check_reductions(
        &dev,
        &bx,
        &by,
        BIG,
        1,
        &[Summation::Blocked, Summation::Pairwise],
    );
    // Specials: every special at every position class, cycled through a vector.
    let sp = T::specials();
    let mut mixed = Vec::new();
    for (k, &s) in sp.iter().enumerate() {
        mixed.extend(xs[..37 + k].iter().copied());
        mixed.push(s);
    }
    for &n in &[sp.len(), mixed.len(), 5000] {
        check_reductions(
            &dev,
            &mixed,
            &mixed[3..],
            n.min(mixed.len() - 3),
            1,
            &Summation::ALL,
        );
    }
    // Only the specials, each alone and in pairs (−0 + −0, ∞ − ∞, NaN …).
    for (i, &a) in sp.iter().enumerate() {
        for &b in &sp[i..] {
            check_reductions(&dev, &[a, b], &[b, a], 2, 1, &Summation::ALL);
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn f64_reductions_equal_the_cpu_in_every_shape() {
    reductions_for::<f64>(1);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn dd_reductions_equal_the_cpu_in_every_shape() {
    reductions_for::<Dd>(2);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn qd_reductions_equal_the_cpu_in_every_shape() {
    reductions_for::<Qd>(3);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn compensated_f64_sums_equal_the_cpu() {
    let dev = device();
    let mut rng = Rng::new(4);
    let xs = f64::random_vec(&mut rng, BIG);
    let ys = f64::random_vec(&mut rng, BIG);
    for &n in LENGTHS.iter().chain(&[BIG]) {
        for &inc in INCS {
            if n == BIG && inc != 1 {
                continue;
            }
            let hx = storage(&xs, n, inc);
            let hy = storage(&ys, n, inc);
            let dx = dev.upload(&hx).expect("upload");
            let dy = dev.upload(&hy).expect("upload");
            let cx = VecRef::from_blas("x", n, &hx, inc).expect("x");
            let cy = VecRef::from_blas("y", n, &hy, inc).expect("y");
            let gx = DeviceVecRef::from_blas("x", n, &dx, inc).expect("x");
            let gy = DeviceVecRef::from_blas("y", n, &dy, inc).expect("y");
            let s2 = blas::sum2(cx).expect("sum2");
            let d2 = blas::dot2(cx, cy).expect("dot2");
            for shape in shapes() {
                let w = format!("n={n} inc={inc} {shape:?}");
                same(
                    &format!("sum2 {w}"),
                    gpu::sum2(&dev, gx, shape).expect("sum2"),
                    s2,
                );
                same(
                    &format!("dot2 {w}"),
                    gpu::dot2(&dev, gx, gy, shape).expect("dot2"),
                    d2,
                );
            }
        }
    }
    let sp = f64::specials();
    for &a in &sp {
        for &b in &sp {
            let (hx, hy) = ([a, b, 1.0], [b, 1.0, a]);
            let (dx, dy) = (dev.upload(&hx).expect("up"), dev.upload(&hy).expect("up"));
            let (cx, cy) = (VecRef::contiguous(&hx), VecRef::contiguous(&hy));
            let (gx, gy) = (DeviceVecRef::contiguous(&dx), DeviceVecRef::contiguous(&dy));
            let w = format!("{a:e} {b:e}");
            same(
                &format!("sum2 {w}"),
                gpu::sum2(&dev, gx, LaunchShape::default()).unwrap(),
                blas::sum2(cx).unwrap(),
            );
            same(
                &format!("dot2 {w}"),
                gpu::dot2(&dev, gx, gy, LaunchShape::default()).unwrap(),
                blas::dot2(cx, cy).unwrap(),
            );
        }
    }
}

/// Values of every exponent from the subnormals to 2^1000, each followed now and then by a
/// near-negation, so that the exact sum keeps bits across the whole range: the expansions
/// spill, and huge terms and under- or overflowing products take the integer path.
fn wide_range(rng: &mut Rng, n: usize, lo: i32, hi: i32) -> Vec<f64> {
    let mut v = Vec::with_capacity(n);
    while v.len() < n {
        let e = rng.int(lo, hi);
        let x = if e < -1022 {
            f64::from_bits(rng.next() % (1 << 52)) * if rng.one_in(2) { -1.0 } else { 1.0 }
        } else {
            rng.f64_exp(e)
        };
        v.push(x);
        if rng.one_in(3) && v.len() < n {
            v.push(-x * (1.0 - 2f64.powi(-rng.int(1, 52))));
        }
    }
    v
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn correctly_rounded_f64_sums_equal_the_cpu() {
    let dev = device();
    let mut rng = Rng::new(5);
    let bases = [Basis::new(106).unwrap(), Basis::new(424).unwrap()];
    // Equal values, or both NaN, with the same sign of zero.
    let same_mp = |a: &MpFloat, b: &MpFloat| {
        (a.is_nan() && b.is_nan()) || (a == b && a.is_sign_negative() == b.is_sign_negative())
    };
    let check = |what: &str, hx: &[f64], hy: &[f64], inc: isize, shapes: &[LaunchShape]| {
        let n = if hx.is_empty() {
            0
        } else {
            (hx.len() - 1) / inc.unsigned_abs() + 1
        };
        let (dx, dy) = (dev.upload(hx).expect("up"), dev.upload(hy).expect("up"));
        let cx = VecRef::from_blas("x", n, hx, inc).expect("x");
        let cy = VecRef::from_blas("y", n, hy, inc).expect("y");
        let gx = DeviceVecRef::from_blas("x", n, &dx, inc).expect("x");
        let gy = DeviceVecRef::from_blas("y", n, &dy, inc).expect("y");
        let s = blas::sum_correctly_rounded(cx).expect("sum");
        let d = blas::dot_correctly_rounded(cx, cy).expect("dot");
        for basis in &bases {
            let p = basis.precision();
            let w = format!("{what} n={n} inc={inc} to {p} bits");
            let (shape, last) = (shapes[0], shapes[shapes.len() - 1]);
            let got = gpu::sum_correctly_rounded_to(&dev, basis, gx, shape).expect("sum");
            let want = blas::sum_correctly_rounded_to(basis, cx).expect("sum");
            assert!(same_mp(&got, &want), "sum {w}: {got:?} != {want:?}");
            let got = gpu::dot_correctly_rounded_to(&dev, basis, gx, gy, last).expect("dot");
            let want = blas::dot_correctly_rounded_to(basis, cx, cy).expect("dot");
            assert!(same_mp(&got, &want), "dot {w}: {got:?} != {want:?}");
        }
        for &shape in shapes {
            let w = format!("{what} n={n} inc={inc} {shape:?}");
            same(
                &format!("sum {w}"),
                gpu::sum_correctly_rounded(&dev, gx, shape).expect("sum"),
                s,
            );
            same(
                &format!("dot {w}"),
                gpu::dot_correctly_rounded(&dev, gx, gy, shape).expect("dot"),
                d,
            );
        }
    };
    let all = shapes();
    let one = [LaunchShape::default()];
    // Random cancelling data, and the whole exponent range, at every length and increment.
    let xs = f64::random_vec(&mut rng, BIG);
    let ys = f64::random_vec(&mut rng, BIG);
    let ws = wide_range(&mut rng, 70_001 * 3, -1074, 1000);
    let vs = wide_range(&mut rng, 70_001 * 3, -1074, 1000);
    for &n in LENGTHS {
        for &inc in INCS {
            check(
                "random",
                &storage(&xs, n, inc),
                &storage(&ys, n, inc),
                inc,
                &all,
            );
            check(
                "wide",
                &storage(&ws, n, inc),
                &storage(&vs, n, inc),
                inc,
                &all,
            );
        }
    }
    check("random big", &xs, &ys, 1, &all);
    // Products below the subnormals and above the overflow threshold, cancelling to a
    // representable result.
    let tiny = wide_range(&mut rng, 20_000, -1074, -400);
    let huge = wide_range(&mut rng, 20_000, 400, 1023);
    check("tiny products", &tiny, &tiny, 1, &all);
    check("huge products", &huge, &huge, 1, &all);
    check("mixed products", &tiny, &huge, 1, &all);
    // Hand-made cases: the paper's dataset #1, ties to even (normal and subnormal), overflow
    // in the middle, a result that overflows, exact zeros and their signs.
    let p = |e: i32| 2f64.powi(e);
    let mut s1 = vec![10.0; 2047];
    s1.extend([1e-18, 1e-18]);
    s1.extend(vec![-10.0; 2047]);
    let cases: Vec<(Vec<f64>, Vec<f64>)> = vec![
        (s1.clone(), vec![1.0; s1.len()]),
        (vec![1.0, p(-53)], vec![1.0, 1.0]),
        (vec![1.0, p(-53), p(-300)], vec![1.0, 1.0, 1.0]),
        (vec![1.0 + p(-52), p(-53)], vec![1.0, 1.0]),
        (vec![5e-324, 5e-324, 3.0 * 5e-324], vec![0.5, 0.5, 0.5]),
        (vec![f64::MAX, f64::MAX, -f64::MAX], vec![1.0, 1.0, 1.0]),
        (vec![f64::MAX, f64::MAX], vec![1.0, 1.0]),
        (vec![p(1000), p(-1000)], vec![p(1000), p(-1000)]),
        (vec![-0.0, -0.0], vec![1.0, 1.0]),
        (vec![-0.0, 0.0], vec![-1.0, 1.0]),
        (vec![1.0, -1.0], vec![1.0, 1.0]),
        (vec![p(600), 1.0, -p(600)], vec![p(600), p(-1074), p(600)]),
    ];
    for (k, (hx, hy)) in cases.iter().enumerate() {
        check(&format!("case {k}"), hx, hy, 1, &all);
    }
    let sp = f64::specials();
    for &a in &sp {
        for &b in &sp {
            check(&format!("{a:e} {b:e}"), &[a, b, 1.0], &[b, 1.0, a], 1, &one);
        }
    }
    check("empty", &[], &[], 1, &one);
}

fn elementwise_for<T: Gen>(seed: u64) {
    let dev = device();
    let mut rng = Rng::new(seed);
    let xs = T::random_vec(&mut rng, 80_000);
    let mut ys = T::random_vec(&mut rng, 80_000);
    // Specials among the data, so that they meet every scalar.
    for (k, s) in T::specials().into_iter().enumerate() {
        ys[11 * k + 5] = s;
    }
    let scalars: Vec<T> = T::random_vec(&mut rng, 3)
        .into_iter()
        .chain(T::specials())
        .collect();
    for &n in &[1usize, 255, 4097, 70_001] {
        for &inc in INCS {
            let hx = storage(&xs, n, inc);
            let hy0 = storage(&ys, n, -inc);
            let dx = dev.upload(&hx).expect("upload x");
            for (k, &alpha) in scalars.iter().enumerate() {
                let beta = scalars[(k + 1) % scalars.len()];
                let tag = format!("{} n={n} inc={inc} alpha={alpha:?}", T::NAME);
                // axpy
                let mut hy = hy0.clone();
                blas::axpy(
                    &alpha,
                    VecRef::from_blas("x", n, &hx, inc).unwrap(),
                    VecMut::from_blas("y", n, &mut hy, -inc).unwrap(),
                )
                .expect("cpu axpy");
                let mut dy = dev.upload(&hy0).expect("upload y");
                gpu::axpy(
                    &dev,
                    alpha,
                    DeviceVecRef::from_blas("x", n, &dx, inc).unwrap(),
                    DeviceVecMut::from_blas("y", n, &mut dy, -inc).unwrap(),
                )
                .expect("axpy");
                assert_bits(&format!("axpy {tag}"), &dy.download().unwrap(), &hy, |_| {
                    String::new()
                });
                // scal
                let mut hy = hy0.clone();
                blas::scal(&alpha, VecMut::from_blas("x", n, &mut hy, -inc).unwrap())
                    .expect("cpu scal");
                let mut dy = dev.upload(&hy0).expect("upload y");
                gpu::scal(
                    &dev,
                    alpha,
                    DeviceVecMut::from_blas("x", n, &mut dy, -inc).unwrap(),
                )
                .expect("scal");
                assert_bits(&format!("scal {tag}"), &dy.download().unwrap(), &hy, |_| {
                    String::new()
                });
                // rot
                let (mut cx, mut cy) = (hx.clone(), hy0.clone());
                blas::rot(
                    VecMut::from_blas("x", n, &mut cx, inc).unwrap(),
                    VecMut::from_blas("y", n, &mut cy, -inc).unwrap(),
                    &alpha,
                    &beta,
                )
                .expect("cpu rot");
                let (mut gx, mut gy) = (dev.upload(&hx).unwrap(), dev.upload(&hy0).unwrap());
                gpu::rot(
                    &dev,
                    DeviceVecMut::from_blas("x", n, &mut gx, inc).unwrap(),
                    DeviceVecMut::from_blas("y", n, &mut gy, -inc).unwrap(),
                    alpha,
                    beta,
                )
                .expect("rot");
                assert_bits(
                    &format!("rot x {tag}"),
                    &gx.download().unwrap(),
                    &cx,
                    |_| String::new(),
                );
                assert_bits(
                    &format!("rot y {tag}"),
                    &gy.download().unwrap(),
                    &cy,
                    |_| String::new(),
                );
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn f64_elementwise_equals_the_cpu() {
    elementwise_for::<f64>(5);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn dd_elementwise_equals_the_cpu() {
    elementwise_for::<Dd>(6);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn qd_elementwise_equals_the_cpu() {
    elementwise_for::<Qd>(7);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn bad_arguments_are_errors() {
    let dev = device();
    let x = dev.upload(&[1.0f64; 10]).unwrap();
    let mut y = dev.upload(&[1.0f64; 9]).unwrap();
    let gx = DeviceVecRef::contiguous(&x);
    assert!(matches!(
        gpu::dot(&dev, gx, DeviceVecRef::contiguous(&y), Summation::Blocked),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        DeviceVecRef::from_blas("x", 10, &x, 0),
        Err(Error::InvalidView { .. })
    ));
    assert!(matches!(
        DeviceVecRef::from_blas("x", 6, &x, 2),
        Err(Error::ArrayTooShort { .. })
    ));
    let zero = LaunchShape {
        threads: 0,
        blocks: None,
    };
    assert!(matches!(
        gpu::sum_shaped(&dev, gx, Summation::Blocked, zero),
        Err(Error::OutOfRange { .. })
    ));
    let huge = LaunchShape {
        threads: 2048,
        blocks: None,
    };
    assert!(matches!(
        gpu::asum(&dev, gx, huge),
        Err(Error::OutOfRange { .. })
    ));
    assert!(matches!(
        gpu::axpy(&dev, 2.0, gx, DeviceVecMut::contiguous(&mut y)),
        Err(Error::LengthMismatch { .. })
    ));
    y.set_ordinal_for_tests(dev.ordinal() + 1);
    let y9 = DeviceVecRef::from_blas("y", 9, &y, 1).unwrap();
    let x9 = DeviceVecRef::from_blas("x", 9, &x, 1).unwrap();
    assert!(matches!(
        gpu::dot(&dev, x9, y9, Summation::Blocked),
        Err(Error::DeviceMismatch { .. })
    ));
    // Empty vectors: +0, no launch.
    let e = dev.zeros::<f64>(0).unwrap();
    let ge = DeviceVecRef::contiguous(&e);
    assert!(gpu::sum(&dev, ge, Summation::Pairwise).unwrap().to_bits() == 0);
    assert_eq!(gpu::iamax(&dev, ge, LaunchShape::default()).unwrap(), None);
}

// ---- level 2 --------------------------------------------------------------------------------------

/// A matrix layout of the level-2 tests: column-major with padding (the rows kernel), its
/// transpose (the lanes kernel), both strides above 1, and a repeated row (stride 0).
fn layouts(m: usize, n: usize) -> Vec<(&'static str, MatLayout, usize)> {
    let col = MatLayout::col_major(m, n, m + 3);
    let t = MatLayout::col_major(n, m, n + 1).t();
    let strided = MatLayout {
        rows: m,
        cols: n,
        row_stride: 2,
        col_stride: 2 * m + 1,
        offset: 1,
    };
    let repeated = MatLayout {
        rows: m,
        cols: n,
        row_stride: 0,
        col_stride: 1,
        offset: 0,
    };
    let len = |l: &MatLayout| {
        l.offset + (l.rows.max(1) - 1) * l.row_stride + (l.cols.max(1) - 1) * l.col_stride + 1
    };
    [
        ("col-major", col),
        ("transposed", t),
        ("strided", strided),
        ("repeated row", repeated),
    ]
    .into_iter()
    .map(|(name, l)| (name, l, len(&l)))
    .collect()
}

fn gemv_shapes() -> Vec<GemvShape> {
    let s = |threads, blocks, rows_per_block| GemvShape {
        launch: LaunchShape { threads, blocks },
        rows_per_block,
        split_groups: None,
    };
    let split = |groups, blocks| GemvShape {
        launch: LaunchShape {
            threads: 256,
            blocks,
        },
        rows_per_block: None,
        split_groups: Some(groups),
    };
    vec![
        GemvShape::default(),
        s(32, Some(1), Some(32)),
        s(96, Some(7), Some(16)),
        s(256, None, Some(1)),
        s(256, None, Some(256)),
        s(128, Some(5), Some(128)),
        s(512, Some(40), Some(8)),
        s(16, Some(3), Some(32)),
        split(2, None),
        split(4, Some(1)),
        split(8, Some(3)),
    ]
}

/// A level-2 shape with the specials inside full chunks, where the rows and lanes passes step
/// batches of loaded terms (the other shapes with specials are shorter than a chunk).
const SPECIALS_IN_FULL_CHUNKS: (usize, usize) = (3, 2 * 4096 + 5);

/// gemv and ger on the GPU against the CPU, bit for bit (values and gemv's bounds), for every
/// layout, increments ±, the special scalars (α = 0, β = 0, β = 1) and several launches.
fn level2_for<T: Gen>(seed: u64) {
    let dev = device();
    let mut rng = Rng::new(seed);
    let sizes: &[(usize, usize)] = &[
        (1, 1),
        (3, 2),
        (37, 300),
        (300, 37),
        (129, 4097),
        (1000, 1000),
        (5, 3 * 4096 + 7),
        // full tiles of 256 rows (the split pass's blocks) and two full chunks beside a partial one
        (256, 2 * 4096 + 33),
        SPECIALS_IN_FULL_CHUNKS,
    ];
    let pool = T::random_vec(&mut rng, 40_000);
    let specials = T::specials();
    let zero = T::zero_in(&());
    let one = T::one_in(&());
    let r = T::random_vec(&mut rng, 2);
    let scalars = [
        (r[0], r[1]),
        (zero, one),
        (zero, r[1]),
        (r[0], zero),
        (zero, zero),
    ];
    for (si, &(m, n)) in sizes.iter().enumerate() {
        for (name, layout, len) in layouts(m, n) {
            let mut ha: Vec<T> = (0..len).map(|i| pool[(i * 7 + si) % pool.len()]).collect();
            // Specials in some entries (not in the big cases: one NaN would hide the rest).
            if m * n < 20_000 || (m, n) == SPECIALS_IN_FULL_CHUNKS {
                for (k, s) in specials.iter().enumerate() {
                    let at = (13 * k + 5) % len;
                    ha[at] = *s;
                }
            }
            let da = dev.upload(&ha).expect("upload a");
            let ca = MatRef::with_strides(
                &ha[layout.offset..],
                m,
                n,
                layout.row_stride,
                layout.col_stride,
            )
            .expect("cpu view");
            let ga = DeviceMatRef::new("a", &da, layout).expect("gpu view");
            for &inc in &[1isize, -2] {
                let hx = storage(&pool[si..], n, inc);
                let hy0 = storage(&pool[si + 11..], m, -inc);
                let dx = dev.upload(&hx).expect("upload x");
                let gx = DeviceVecRef::from_blas("x", n, &dx, inc).unwrap();
                let cx = VecRef::from_blas("x", n, &hx, inc).unwrap();
                for (k, &(alpha, beta)) in scalars.iter().enumerate() {
                    let tag = format!("{} {m}x{n} {name} inc={inc} scalars#{k}", T::NAME);
                    let mut cy = hy0.clone();
                    let cb = blas::gemv_bounded(
                        &alpha,
                        ca,
                        cx,
                        &beta,
                        VecMut::from_blas("y", m, &mut cy, -inc).unwrap(),
                    )
                    .expect("cpu gemv");
                    let shapes = if k == 0 {
                        gemv_shapes()
                    } else {
                        vec![GemvShape::default()]
                    };
                    for shape in shapes {
                        let mut dy = dev.upload(&hy0).expect("upload y");
                        match gpu::gemv_shaped(
                            &dev,
                            alpha,
                            ga,
                            gx,
                            beta,
                            DeviceVecMut::from_blas("y", m, &mut dy, -inc).unwrap(),
                            shape,
                        ) {
                            Err(Error::OutOfRange { max, .. })
                                if too_big::<T>(shape.launch, max) =>
                            {
                                continue;
                            }
                            r => r.expect("gemv"),
                        }
                        assert_bits(
                            &format!("gemv {tag} {shape:?}"),
                            &dy.download().unwrap(),
                            &cy,
                            |_| String::new(),
                        );
                    }
                    let mut dy = dev.upload(&hy0).expect("upload y");
                    let gb = gpu::gemv_bounded(
                        &dev,
                        alpha,
                        ga,
                        gx,
                        beta,
                        DeviceVecMut::from_blas("y", m, &mut dy, -inc).unwrap(),
                    )
                    .expect("gemv_bounded");
                    assert_bits(
                        &format!("gemv_bounded {tag}"),
                        &dy.download().unwrap(),
                        &cy,
                        |_| String::new(),
                    );
                    assert_bits(&format!("gemv bounds {tag}"), &gb, &cb, |_| String::new());
                }
                // ger on the layouts a mutable view allows (no repeated row).
                if layout.row_stride == 0 {
                    continue;
                }
                let hyn = storage(&pool[si + 3..], n, inc);
                let dyn_ = dev.upload(&hyn).expect("upload y");
                let hxm = storage(&pool[si + 5..], m, -inc);
                let dxm = dev.upload(&hxm).expect("upload x");
                for &alpha in &[r[0], zero, specials[specials.len() / 2]] {
                    let tag = format!("ger {} {m}x{n} {name} inc={inc} alpha={alpha:?}", T::NAME);
                    let mut ch = ha.clone();
                    blas::level2::ger(
                        &alpha,
                        VecRef::from_blas("x", m, &hxm, -inc).unwrap(),
                        VecRef::from_blas("y", n, &hyn, inc).unwrap(),
                        MatMut::with_strides(
                            &mut ch[layout.offset..],
                            m,
                            n,
                            layout.row_stride,
                            layout.col_stride,
                        )
                        .expect("cpu view"),
                    )
                    .expect("cpu ger");
                    let mut dh = dev.upload(&ha).expect("upload a");
                    gpu::ger(
                        &dev,
                        alpha,
                        DeviceVecRef::from_blas("x", m, &dxm, -inc).unwrap(),
                        DeviceVecRef::from_blas("y", n, &dyn_, inc).unwrap(),
                        DeviceMatMut::new("a", &mut dh, layout).expect("gpu view"),
                    )
                    .expect("ger");
                    assert_bits(&tag, &dh.download().unwrap(), &ch, |_| String::new());
                }
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn f64_gemv_and_ger_equal_the_cpu() {
    level2_for::<f64>(21);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn dd_gemv_and_ger_equal_the_cpu() {
    level2_for::<Dd>(22);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn qd_gemv_and_ger_equal_the_cpu() {
    level2_for::<Qd>(23);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn level2_bad_arguments_are_errors() {
    let dev = device();
    let a = dev.upload(&[1.0f64; 12]).unwrap();
    let x = dev.upload(&[1.0f64; 4]).unwrap();
    let mut y = dev.upload(&[1.0f64; 3]).unwrap();
    let ga = DeviceMatRef::col_major(&a, 3, 4, 3).unwrap();
    let gx = DeviceVecRef::contiguous(&x);
    let bad_shapes = [0u32, 3, 512]
        .map(|r| GemvShape {
            rows_per_block: Some(r),
            ..GemvShape::default()
        })
        .into_iter()
        .chain([0u32, 3, 16].map(|g| GemvShape {
            split_groups: Some(g),
            ..GemvShape::default()
        }))
        .chain([GemvShape {
            rows_per_block: Some(64),
            split_groups: Some(4),
            ..GemvShape::default()
        }]);
    for shape in bad_shapes {
        assert!(matches!(
            gpu::gemv_shaped(
                &dev,
                1.0,
                ga,
                gx,
                0.0,
                DeviceVecMut::contiguous(&mut y),
                shape
            ),
            Err(Error::OutOfRange { .. })
        ));
    }
    // x of the wrong length (Aᵀ wants 3).
    assert!(matches!(
        gpu::gemv(&dev, 1.0, ga.t(), gx, 0.0, DeviceVecMut::contiguous(&mut y)),
        Err(Error::LengthMismatch { .. })
    ));
    let mut b = dev.upload(&[1.0f64; 12]).unwrap();
    assert!(matches!(
        gpu::ger(
            &dev,
            1.0,
            gx,
            DeviceVecRef::contiguous(&x),
            DeviceMatMut::col_major(&mut b, 3, 4, 3).unwrap(),
        ),
        Err(Error::LengthMismatch { .. })
    ));
    // The yardsticks' argument checks.
    assert!(matches!(
        cuda::dgemv(&dev, Trans::No, 3, 4, 1.0, &a, 2, &x, 0.0, &mut y),
        Err(Error::LeadingDim { .. })
    ));
}

/// gemm on the GPU against the CPU, bit for bit (values and bounds), for sizes across the tile
/// edges, every layout of `A` and `B` (column-major, transposed, strided, a repeated row), `C`
/// column-major and transposed, and the special scalars (α = 0, β = 0, β = 1); specials inside
/// the small cases.
fn level3_for<T: Gen>(seed: u64) {
    let sizes: &[(usize, usize, usize)] = &[
        (1, 1, 1),
        (3, 2, 5),
        (65, 63, 17),
        (33, 31, 40),
        (130, 70, 300),
        (64, 129, 0),
    ];
    level3_with::<T>(
        seed,
        sizes,
        &|alpha, a, b, beta, c| blas::level3::gemm_bounded(alpha, a, b, beta, c),
        &|dev, alpha, a, b, beta, c, bounded| {
            if bounded {
                gpu::gemm_bounded(dev, alpha, a, b, beta, c)
            } else {
                gpu::gemm(dev, alpha, a, b, beta, c).map(|()| Vec::new())
            }
        },
    );
}

/// A CPU GEMM with bounds, under test.
type CpuGemm<T> =
    dyn Fn(&T, MatRef<'_, T>, MatRef<'_, T>, &T, MatMut<'_, T>) -> mpblas::Result<Vec<f64>>;
/// Its GPU twin (`bounded`: with bounds, else an empty vector).
type GpuGemm<T> = dyn Fn(
    &Device,
    T,
    DeviceMatRef<'_, T>,
    DeviceMatRef<'_, T>,
    T,
    DeviceMatMut<'_, T>,
    bool,
) -> mpblas::Result<Vec<f64>>;

/// [`level3_for`] for any GEMM pair.
fn level3_with<T: Gen>(
    seed: u64,
    sizes: &[(usize, usize, usize)],
    cpu_gemm: &CpuGemm<T>,
    gpu_gemm: &GpuGemm<T>,
) {
    let dev = device();
    let mut rng = Rng::new(seed);
    let pool = T::random_vec(&mut rng, 40_000);
    let specials = T::specials();
    let zero = T::zero_in(&());
    let one = T::one_in(&());
    let r = T::random_vec(&mut rng, 2);
    let scalars = [
        (r[0], r[1]),
        (zero, one),
        (zero, r[1]),
        (r[0], zero),
        (one, one),
    ];
    for (si, &(m, n, k)) in sizes.iter().enumerate() {
        let la = layouts(m, k);
        let lb = layouts(k, n);
        for (li, ((an, al, alen), (bn, bl, blen))) in la.iter().zip(lb.iter().rev()).enumerate() {
            let mut ha: Vec<T> = (0..*alen)
                .map(|i| pool[(i * 7 + si) % pool.len()])
                .collect();
            let hb: Vec<T> = (0..*blen)
                .map(|i| pool[(i * 5 + si + 3) % pool.len()])
                .collect();
            if m * k < 200 && li == 0 {
                for (q, s) in specials.iter().enumerate() {
                    let at = (13 * q + 5) % *alen;
                    ha[at] = *s;
                }
            }
            let (da, db) = (dev.upload(&ha).unwrap(), dev.upload(&hb).unwrap());
            let ca = MatRef::with_strides(&ha[al.offset..], m, k, al.row_stride, al.col_stride)
                .expect("cpu view a");
            let cb = MatRef::with_strides(&hb[bl.offset..], k, n, bl.row_stride, bl.col_stride)
                .expect("cpu view b");
            let ga = DeviceMatRef::new("a", &da, *al).expect("gpu view a");
            let gb = DeviceMatRef::new("b", &db, *bl).expect("gpu view b");
            let transposed_c = li % 2 == 1;
            let lc = if transposed_c {
                MatLayout::col_major(n, m, n + 2).t()
            } else {
                MatLayout::col_major(m, n, m + 1)
            };
            let clen = (m.max(1) - 1) * lc.row_stride + (n.max(1) - 1) * lc.col_stride + 1;
            let hc0: Vec<T> = (0..clen)
                .map(|i| pool[(i * 3 + si + 9) % pool.len()])
                .collect();
            for (q, &(alpha, beta)) in scalars.iter().enumerate() {
                let tag = format!(
                    "gemm {} {m}x{n}x{k} a {an} b {bn} c^T={transposed_c} scalars#{q}",
                    T::NAME
                );
                let mut hc = hc0.clone();
                let cbounds = cpu_gemm(
                    &alpha,
                    ca,
                    cb,
                    &beta,
                    MatMut::with_strides(&mut hc, m, n, lc.row_stride, lc.col_stride).unwrap(),
                )
                .expect("cpu gemm");
                let mut dc = dev.upload(&hc0).unwrap();
                gpu_gemm(
                    &dev,
                    alpha,
                    ga,
                    gb,
                    beta,
                    DeviceMatMut::new("c", &mut dc, lc).unwrap(),
                    false,
                )
                .expect("gemm");
                assert_bits(&tag, &dc.download().unwrap(), &hc, |_| String::new());
                let mut dc = dev.upload(&hc0).unwrap();
                let gbounds = gpu_gemm(
                    &dev,
                    alpha,
                    ga,
                    gb,
                    beta,
                    DeviceMatMut::new("c", &mut dc, lc).unwrap(),
                    true,
                )
                .expect("gemm_bounded");
                assert_bits(
                    &format!("{tag} (bounded)"),
                    &dc.download().unwrap(),
                    &hc,
                    |_| String::new(),
                );
                assert_bits(&format!("{tag} bounds"), &gbounds, &cbounds, |_| {
                    String::new()
                });
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn f64_gemm_equals_the_cpu() {
    level3_for::<f64>(31);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn dd_gemm_equals_the_cpu() {
    level3_for::<Dd>(32);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn qd_gemm_equals_the_cpu() {
    level3_for::<Qd>(33);
}

/// The compensated double-double GEMM: `k` across the blocks of 32 (and the tiles of 16).
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn dd_gemm_compensated_equals_the_cpu() {
    let sizes: &[(usize, usize, usize)] = &[
        (1, 1, 1),
        (3, 2, 31),
        (65, 63, 32),
        (33, 31, 33),
        (40, 9, 48),
        (130, 70, 300),
        (64, 129, 0),
    ];
    level3_with::<Dd>(
        34,
        sizes,
        &|alpha, a, b, beta, c| blas::level3::gemm_dd_compensated_bounded(alpha, a, b, beta, c),
        &|dev, alpha, a, b, beta, c, bounded| {
            if bounded {
                gpu::gemm_dd_compensated_bounded(dev, alpha, a, b, beta, c)
            } else {
                gpu::gemm_dd_compensated(dev, alpha, a, b, beta, c).map(|()| Vec::new())
            }
        },
    );
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn gemm_bad_arguments_are_errors() {
    let dev = device();
    let a = dev.upload(&[1.0f64; 12]).unwrap();
    let mut c = dev.upload(&[1.0f64; 16]).unwrap();
    let ga = DeviceMatRef::col_major(&a, 3, 4, 3).unwrap();
    // B must have 4 rows.
    assert!(matches!(
        gpu::gemm(
            &dev,
            1.0,
            ga,
            ga,
            0.0,
            DeviceMatMut::col_major(&mut c, 3, 4, 3).unwrap()
        ),
        Err(Error::LengthMismatch { .. })
    ));
    // C must be 3 × 3.
    assert!(matches!(
        gpu::gemm(
            &dev,
            1.0,
            ga,
            ga.t(),
            0.0,
            DeviceMatMut::col_major(&mut c, 3, 4, 3).unwrap()
        ),
        Err(Error::LengthMismatch { .. })
    ));
    gpu::gemm(
        &dev,
        1.0,
        ga,
        ga.t(),
        0.0,
        DeviceMatMut::col_major(&mut c, 3, 3, 3).unwrap(),
    )
    .expect("3 x 4 times 4 x 3");
    assert_eq!(c.download().unwrap()[..9], [4.0; 9]);
}
