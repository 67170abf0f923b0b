//! The LAPACK family on the GPU against the CPU:
//!
//! - `lapack::gpu::gesv_refined` (double-double, cuSOLVER's `f64` factors, GEMV or Ozaki-scheme
//!   residuals) reaches double-double accuracy on random systems (against a quad-double solve
//!   on the CPU), through strided views, with several right-hand sides; a Hilbert matrix of
//!   order 14 falls back to the CPU's double-double LU (its bits); singular systems are
//!   errors; shapes are checked.
//! - the same in quad-double (residuals updated by the quad-double Ozaki scheme, one product per
//!   word of `A`) reaches quad-double accuracy: random systems against the CPU's quad-double
//!   refinement, a Hilbert matrix of order 8 against an 848-bit RNS solve, a transposed `A`;
//!   Hilbert 14 falls back to the CPU's quad-double LU (its bits).
//! - `lapack::gpu::{getrf, getrs, gesv}` (our LU on the GPU) give the CPU's factors, pivots and
//!   solutions bit for bit in `f64`, `Dd` and `Qd`: square and rectangular, several panels,
//!   transposed storage, both transposes of the solve, a singular matrix's `info`, NaN entries.
//! - `lapack::gpu::rns::{getrf, getrs, gesv}` give the CPU's RNS factors, pivots and solutions
//!   in every field (class, sign, exponent, residues, evaluation bounds) at 106 and 424 bits:
//!   square and rectangular, several panels, a zero column, NaN and infinities, ties in the
//!   pivot search; `gesv` solves a 212-bit system to the format's accuracy, reports
//!   singularity and refuses bad arguments.
//! - `lapack::gpu::dgesv` (cuSOLVER `getrf` + `getrs`) solves in `f64`, reports singularity.
//!
//! Every test needs a GPU and is `#[ignore]`d; run them with `scripts/gpu-check.sh`.
#![cfg(feature = "cuda")]

mod rns_common;

use mpblas::Trans;
use mpblas::cuda::{Device, DeviceMatMut, DeviceMatRef, DeviceScalar};
use mpblas::lapack::{self, RefineParams, RefinePath};
use mpblas::rns::gpu::DeviceMpArray;
use mpblas::rns::{Basis, MpArray, MpFloat};
use mpblas::view::{MatLayout, MatMut, MatRef};
use mpblas::{Dd, Error, Qd, Scalar};
use mpblas_testdata::SplitMix64;
use rns_common::{Rng, assert_same, near, random};
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

/// Full double-double values: uniform leading words in [−1, 1], random second words.
fn dd_random(g: &mut SplitMix64, len: usize) -> Vec<Dd> {
    (0..len)
        .map(|_| {
            let hi = g.range(-1.0, 1.0);
            Dd::from(hi).add_f64(hi * g.range(-1.0, 1.0) * 2f64.powi(-54))
        })
        .collect()
}

/// The CPU's quad-double refined solution of the same (exactly converted) system.
fn qd_reference(a: &[Dd], b: &[Dd], n: usize, nrhs: usize) -> Vec<Qd> {
    let aq: Vec<Qd> = a.iter().map(|v| Qd::from(v.hi) + Qd::from(v.lo)).collect();
    let bq: Vec<Qd> = b.iter().map(|v| Qd::from(v.hi) + Qd::from(v.lo)).collect();
    let mut x = bq.clone();
    lapack::gesv_refined(
        MatRef::col_major(&aq, n, n, n).unwrap(),
        MatRef::col_major(&bq, n, nrhs, n).unwrap(),
        MatMut::col_major(&mut x, n, nrhs, n).unwrap(),
        &RefineParams::default(),
    )
    .unwrap();
    x
}

/// Largest `‖x − x*‖∞ / ‖x*‖∞` over the columns.
fn rel_error(x: &[Dd], want: &[Qd], n: usize, nrhs: usize) -> f64 {
    (0..nrhs)
        .map(|c| {
            let (mut e, mut s) = (0.0f64, 0.0f64);
            for i in 0..n {
                let w = want[i + c * n];
                let d = Qd::from(x[i + c * n].hi) + Qd::from(x[i + c * n].lo) - w;
                e = e.max(d.abs().nearest_f64());
                s = s.max(w.abs().nearest_f64());
            }
            e / s
        })
        .fold(0.0, f64::max)
}

/// The GPU's double-double refinement of `A·X = B` (column-major), with its report.
fn dd_gpu_solve(
    dev: &Device,
    a: &[Dd],
    b: &[Dd],
    (n, nrhs): (usize, usize),
) -> (Vec<Dd>, mpblas::lapack::RefineReport) {
    let (da, db) = (dev.upload(a).unwrap(), dev.upload(b).unwrap());
    let mut dx = dev.zeros::<Dd>(n * nrhs).unwrap();
    let r = lapack::gpu::gesv_refined(
        dev,
        DeviceMatRef::col_major(&da, n, n, n).unwrap(),
        DeviceMatRef::col_major(&db, n, nrhs, n).unwrap(),
        DeviceMatMut::col_major(&mut dx, n, nrhs, n).unwrap(),
        &RefineParams::default(),
    )
    .unwrap();
    (dx.download().unwrap(), r)
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn dd_refinement_reaches_dd_accuracy() {
    let dev = device();
    let mut g = SplitMix64::new(0x15_0001);
    // Up to 8 right-hand sides the residual is a GEMV per column, beyond it the Ozaki scheme.
    for (n, nrhs) in [(1, 1), (37, 3), (300, 5), (700, 2), (200, 12), (513, 40)] {
        let a = dd_random(&mut g, n * n);
        let b = dd_random(&mut g, n * nrhs);
        let (x, r) = dd_gpu_solve(&dev, &a, &b, (n, nrhs));
        let err = rel_error(&x, &qd_reference(&a, &b, n, nrhs), n, nrhs);
        eprintln!("n {n}, nrhs {nrhs}: {r:?}, error {err:.2e}");
        assert_eq!(r.path, RefinePath::Refined);
        assert!(err < 1e-27, "n {n}: error {err:e}");
    }
}

/// A transposed (row-major) `A`, a `B` with a leading dimension above `n`, an `X` inside a
/// larger array: the same solution as the column-major call.
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn strided_views_solve_the_same_system() {
    let dev = device();
    let mut g = SplitMix64::new(0x15_0002);
    let (n, nrhs) = (50, 3);
    let a = dd_random(&mut g, n * n);
    let b = dd_random(&mut g, n * nrhs);
    // Aᵀ stored column-major is A row-major.
    let at: Vec<Dd> = (0..n * n).map(|e| a[(e / n) + (e % n) * n]).collect();
    let ldb = n + 5;
    let mut bw = vec![Dd::from(f64::NAN); ldb * nrhs];
    for c in 0..nrhs {
        bw[c * ldb..c * ldb + n].copy_from_slice(&b[c * n..(c + 1) * n]);
    }
    let (da, db) = (dev.upload(&at).unwrap(), dev.upload(&bw).unwrap());
    let ldx = n + 2;
    let mut dx = dev.upload(&vec![Dd::from(7.0); ldx * nrhs]).unwrap();
    let layout = MatLayout {
        rows: n,
        cols: n,
        row_stride: n,
        col_stride: 1,
        offset: 0,
    };
    let r = lapack::gpu::gesv_refined(
        &dev,
        DeviceMatRef::new("a", &da, layout).unwrap(),
        DeviceMatRef::col_major(&db, n, nrhs, ldb).unwrap(),
        DeviceMatMut::col_major(&mut dx, n, nrhs, ldx).unwrap(),
        &RefineParams::default(),
    )
    .unwrap();
    assert_eq!(r.path, RefinePath::Refined);
    let xw = dx.download().unwrap();
    let x: Vec<Dd> = (0..n * nrhs).map(|e| xw[e % n + (e / n) * ldx]).collect();
    assert!(xw[n].hi == 7.0 && xw[n + 1].hi == 7.0, "padding untouched");
    let err = rel_error(&x, &qd_reference(&a, &b, n, nrhs), n, nrhs);
    assert!(err < 1e-28, "error {err:e}");
}

/// Full quad-double values: uniform leading words in [−1, 1], random lower words.
fn qd_random(g: &mut SplitMix64, len: usize) -> Vec<Qd> {
    (0..len)
        .map(|_| {
            let hi = g.range(-1.0, 1.0);
            (1..4).fold(Qd::from(hi), |q, w| {
                q.add_f64(hi * g.range(-1.0, 1.0) * 2f64.powi(-54 * w))
            })
        })
        .collect()
}

/// The GPU's quad-double refinement of `A·X = B` (`A` through `layout`), with its report.
fn qd_gpu_solve(
    dev: &Device,
    (a, layout): (&[Qd], MatLayout),
    b: &[Qd],
    (n, nrhs): (usize, usize),
) -> (Vec<Qd>, mpblas::lapack::RefineReport) {
    let (da, db) = (dev.upload(a).unwrap(), dev.upload(b).unwrap());
    let mut dx = dev.zeros::<Qd>(n * nrhs).unwrap();
    let r = lapack::gpu::gesv_refined(
        dev,
        DeviceMatRef::new("a", &da, layout).unwrap(),
        DeviceMatRef::col_major(&db, n, nrhs, n).unwrap(),
        DeviceMatMut::col_major(&mut dx, n, nrhs, n).unwrap(),
        &RefineParams::default(),
    )
    .unwrap();
    (dx.download().unwrap(), r)
}

fn col_major_layout(n: usize) -> MatLayout {
    MatLayout {
        rows: n,
        cols: n,
        row_stride: 1,
        col_stride: n,
        offset: 0,
    }
}

/// Largest `‖x − x*‖∞ / ‖x*‖∞` over the columns, in quad-double.
fn qd_rel_error(x: &[Qd], want: &[Qd], n: usize, nrhs: usize) -> f64 {
    (0..nrhs)
        .map(|c| {
            let col = |v: &[Qd], i: usize| v[i + c * n];
            let e = (0..n).fold(0.0f64, |m, i| {
                m.max((col(x, i) - col(want, i)).abs().nearest_f64())
            });
            let s = (0..n).fold(0.0f64, |m, i| m.max(col(want, i).abs().nearest_f64()));
            e / s
        })
        .fold(0.0, f64::max)
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn qd_refinement_reaches_qd_accuracy() {
    let dev = device();
    let mut g = SplitMix64::new(0x15_0004);
    for (n, nrhs) in [(1, 1), (37, 3), (150, 12), (300, 5)] {
        let a = qd_random(&mut g, n * n);
        let b = qd_random(&mut g, n * nrhs);
        let (x, r) = qd_gpu_solve(&dev, (&a, col_major_layout(n)), &b, (n, nrhs));
        let mut want = b.clone();
        lapack::gesv_refined(
            MatRef::col_major(&a, n, n, n).unwrap(),
            MatRef::col_major(&b, n, nrhs, n).unwrap(),
            MatMut::col_major(&mut want, n, nrhs, n).unwrap(),
            &RefineParams::default(),
        )
        .unwrap();
        let err = qd_rel_error(&x, &want, n, nrhs);
        eprintln!("qd n {n}, nrhs {nrhs}: {r:?}, difference from the CPU's {err:.2e}");
        assert_eq!(r.path, RefinePath::Refined);
        assert!(err < 1e-58, "n {n}: {err:e}");
    }
    // A transposed A: the same system, the same accuracy.
    let n = 60;
    let a = qd_random(&mut g, n * n);
    let b = qd_random(&mut g, 2 * n);
    let at: Vec<Qd> = (0..n * n).map(|e| a[(e / n) + (e % n) * n]).collect();
    let rows = MatLayout {
        row_stride: n,
        col_stride: 1,
        ..col_major_layout(n)
    };
    let (x1, _) = qd_gpu_solve(&dev, (&a, col_major_layout(n)), &b, (n, 2));
    let (x2, _) = qd_gpu_solve(&dev, (&at, rows), &b, (n, 2));
    assert_eq!(x1, x2, "the transposed storage gives the same bits");
    // Hilbert 8 (κ ≈ 1.6e10) against an 848-bit RNS solve.
    let n = 8;
    let h: Vec<f64> = (0..n * n)
        .map(|e| 1.0 / (e % n + e / n + 1) as f64)
        .collect();
    let hq: Vec<Qd> = h.iter().map(|&v| Qd::from(v)).collect();
    let bq: Vec<Qd> = (0..n).map(|i| Qd::from(1.0 + i as f64)).collect();
    let (x, r) = qd_gpu_solve(&dev, (&hq, col_major_layout(n)), &bq, (n, 1));
    assert_eq!(r.path, RefinePath::Refined);
    let basis = Basis::new(848).unwrap();
    let mut am: Vec<MpFloat> = h.iter().map(|&v| MpFloat::from_f64(&basis, v)).collect();
    let mut xm: Vec<MpFloat> = (0..n)
        .map(|i| MpFloat::from_f64(&basis, 1.0 + i as f64))
        .collect();
    let mut ipiv = vec![0; n];
    lapack::gesv(
        MatMut::col_major(&mut am, n, n, n).unwrap(),
        &mut ipiv,
        MatMut::col_major(&mut xm, n, 1, n).unwrap(),
    )
    .unwrap();
    let xnorm = xm.iter().map(|v| v.to_f64().abs()).fold(0.0, f64::max);
    for i in 0..n {
        let mut d = xm[i].clone().neg();
        for w in x[i].c {
            d = &d + &MpFloat::from_f64(&basis, w);
        }
        let err = d.to_f64().abs() / xnorm;
        let tol = 100.0 * n as f64 * 1.6e10 * 2f64.powi(-209);
        assert!(err <= tol, "qd hilbert x[{i}]: {err:e} > {tol:e}");
    }
    eprintln!("qd hilbert 8: {r:?}");
}

/// Hilbert 14 in quad-double: f64 factors cannot refine (κ ≈ 1e19); the fallback is the CPU's
/// quad-double LU, bit for bit.
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn qd_ill_conditioned_falls_back_to_the_cpu_lu() {
    let dev = device();
    let n = 14;
    let a: Vec<Qd> = (0..n * n)
        .map(|e| Qd::ONE / Qd::from((e % n + e / n + 1) as f64))
        .collect();
    let b: Vec<Qd> = (0..n).map(|i| Qd::from(i as f64 - 3.0)).collect();
    let (x, r) = qd_gpu_solve(&dev, (&a, col_major_layout(n)), &b, (n, 1));
    assert_eq!(r.path, RefinePath::Fallback, "{r:?}");
    let (mut lu, mut want) = (a.clone(), b.clone());
    let mut ipiv = vec![0; n];
    lapack::gesv(
        MatMut::col_major(&mut lu, n, n, n).unwrap(),
        &mut ipiv,
        MatMut::col_major(&mut want, n, 1, n).unwrap(),
    )
    .unwrap();
    assert_eq!(x, want, "the fallback is the CPU's gesv");
}

/// Same bits, NaN payloads aside.
fn same_bits<T: DeviceScalar>(x: &[T], y: &[T]) -> bool {
    x.len() == y.len()
        && x.iter().zip(y).all(|(a, b)| {
            let (a, b) = (a.to_words(), b.to_words());
            (0..4).all(|k| a[k].to_bits() == b[k].to_bits() || (a[k].is_nan() && b[k].is_nan()))
        })
}

/// GPU getrf/getrs of `a` (`m × n`, stored with leading dimension `ld`, transposed when
/// `trans_store`) against the CPU's, bit for bit; then both solves with 3 right-hand sides.
fn check_lu<T: mpblas::blas::gpu::GpuFormat + Copy>(
    dev: &Device,
    random: impl Fn(&mut SplitMix64) -> T,
    (m, n): (usize, usize),
    seed: u64,
    edit: impl Fn(&mut [T], usize),
    what: &str,
) {
    let mut g = SplitMix64::new(seed);
    let ld = m + 3;
    let mut a: Vec<T> = (0..ld * n).map(|_| random(&mut g)).collect();
    edit(&mut a, ld);
    let steps = m.min(n);
    let mut cpu = a.clone();
    let mut cpu_piv = vec![0; steps];
    let cpu_info =
        lapack::getrf(MatMut::col_major(&mut cpu, m, n, ld).unwrap(), &mut cpu_piv).unwrap();
    let mut da = dev.upload(&a).unwrap();
    let mut gpu_piv = vec![0; steps];
    let gpu_info = lapack::gpu::getrf(
        dev,
        DeviceMatMut::col_major(&mut da, m, n, ld).unwrap(),
        &mut gpu_piv,
    )
    .unwrap();
    assert_eq!(gpu_info, cpu_info, "{what}: info");
    assert_eq!(gpu_piv, cpu_piv, "{what}: pivots");
    let gpu = da.download().unwrap();
    let bad = (0..ld * n)
        .filter(|&e| e % ld < m && !same_bits(&gpu[e..e + 1], &cpu[e..e + 1]))
        .count();
    assert_eq!(bad, 0, "{what}: {bad} entries of the factors differ");
    if m != n || cpu_info.is_some() {
        eprintln!("{what}: factors identical (info {cpu_info:?})");
        return;
    }
    for trans in [Trans::No, Trans::Yes] {
        let b: Vec<T> = (0..n * 3).map(|_| random(&mut g)).collect();
        let mut xc = b.clone();
        lapack::getrs(
            trans,
            MatRef::col_major(&cpu, n, n, ld).unwrap(),
            &cpu_piv,
            MatMut::col_major(&mut xc, n, 3, n).unwrap(),
        )
        .unwrap();
        let mut db = dev.upload(&b).unwrap();
        lapack::gpu::getrs(
            dev,
            trans,
            DeviceMatRef::col_major(&da, n, n, ld).unwrap(),
            &gpu_piv,
            DeviceMatMut::col_major(&mut db, n, 3, n).unwrap(),
        )
        .unwrap();
        assert!(
            same_bits(&db.download().unwrap(), &xc),
            "{what}: getrs {trans:?} differs"
        );
    }
    eprintln!("{what}: factors and both solves identical");
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn lu_equals_cpu_bit_for_bit() {
    let dev = device();
    let f = |g: &mut SplitMix64| g.range(-1.0, 1.0);
    let d = |g: &mut SplitMix64| dd_random(g, 1)[0];
    let q = |g: &mut SplitMix64| qd_random(g, 1)[0];
    let none = |_: &mut [f64], _: usize| {};
    for (m, n) in [(1, 1), (5, 5), (70, 70), (100, 37), (37, 100), (129, 129)] {
        check_lu(&dev, f, (m, n), 1 + m as u64, none, &format!("f64 {m}x{n}"));
        check_lu(
            &dev,
            d,
            (m, n),
            2 + m as u64,
            |_: &mut [Dd], _| {},
            &format!("dd {m}x{n}"),
        );
        check_lu(
            &dev,
            q,
            (m, n),
            3 + m as u64,
            |_: &mut [Qd], _| {},
            &format!("qd {m}x{n}"),
        );
    }
    // A zero column (info = its index, the factorisation finished), a NaN entry, ties.
    let zero_col = |a: &mut [Dd], ld: usize| {
        for i in 0..40 {
            a[i + 7 * ld] = Dd::ZERO;
        }
    };
    check_lu(&dev, d, (40, 40), 9, zero_col, "dd zero column");
    check_lu(
        &dev,
        d,
        (40, 40),
        10,
        |a: &mut [Dd], ld| a[3 + 5 * ld] = Dd::from(f64::NAN),
        "dd NaN",
    );
    check_lu(
        &dev,
        f,
        (40, 40),
        11,
        |a: &mut [f64], ld| {
            for i in 0..40 {
                a[i + 2 * ld] = if i % 3 == 0 { -0.5 } else { 0.5 };
            }
        },
        "f64 ties",
    );
    // Transposed storage and gesv's errors.
    let n = 50;
    let mut g = SplitMix64::new(12);
    let a = qd_random(&mut g, n * n);
    let layout = MatLayout {
        rows: n,
        cols: n,
        row_stride: n,
        col_stride: 1,
        offset: 0,
    };
    let mut at = a.clone();
    let mut piv = vec![0; n];
    let mut cpu = a.clone();
    lapack::getrf(
        MatMut::with_strides(&mut cpu, n, n, n, 1).unwrap(),
        &mut piv,
    )
    .unwrap();
    let mut dat = dev.upload(&at).unwrap();
    let mut gpiv = vec![0; n];
    lapack::gpu::getrf(
        &dev,
        DeviceMatMut::new("a", &mut dat, layout).unwrap(),
        &mut gpiv,
    )
    .unwrap();
    assert_eq!(gpiv, piv);
    at = dat.download().unwrap();
    assert!(same_bits(&at, &cpu), "transposed storage");
    let mut z = dev.zeros::<Dd>(16).unwrap();
    let mut zb = dev.zeros::<Dd>(4).unwrap();
    let r = lapack::gpu::gesv(
        &dev,
        DeviceMatMut::col_major(&mut z, 4, 4, 4).unwrap(),
        &mut [0; 4],
        DeviceMatMut::col_major(&mut zb, 4, 1, 4).unwrap(),
    );
    assert!(matches!(r, Err(Error::Singular { column: 0 })), "{r:?}");
    let r = lapack::gpu::getrf(
        &dev,
        DeviceMatMut::col_major(&mut z, 4, 4, 4).unwrap(),
        &mut [0; 3],
    );
    assert!(matches!(r, Err(Error::LengthMismatch { .. })), "{r:?}");
}

fn hilbert(n: usize) -> Vec<Dd> {
    (0..n * n)
        .map(|e| Dd::ONE / Dd::from((e % n + e / n + 1) as f64))
        .collect()
}

/// Hilbert 14 (κ ≈ 1e19): f64 factors cannot refine; the fallback is the CPU's double-double
/// LU, bit for bit. Singular systems: errors.
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn ill_conditioned_falls_back_and_singular_is_an_error() {
    let dev = device();
    let n = 14;
    let a = hilbert(n);
    let b: Vec<Dd> = (0..n).map(|i| Dd::from(i as f64 - 3.0)).collect();
    let (da, db) = (dev.upload(&a).unwrap(), dev.upload(&b).unwrap());
    let mut dx = dev.zeros::<Dd>(n).unwrap();
    let r = lapack::gpu::gesv_refined(
        &dev,
        DeviceMatRef::col_major(&da, n, n, n).unwrap(),
        DeviceMatRef::col_major(&db, n, 1, n).unwrap(),
        DeviceMatMut::col_major(&mut dx, n, 1, n).unwrap(),
        &RefineParams::default(),
    )
    .unwrap();
    assert_eq!(r.path, RefinePath::Fallback, "{r:?}");
    let (mut lu, mut want) = (a.clone(), b.clone());
    let mut ipiv = vec![0; n];
    lapack::gesv(
        MatMut::col_major(&mut lu, n, n, n).unwrap(),
        &mut ipiv,
        MatMut::col_major(&mut want, n, 1, n).unwrap(),
    )
    .unwrap();
    assert_eq!(
        dx.download().unwrap(),
        want,
        "the fallback is the CPU's gesv"
    );
    // A zero column: f64 singular; without the fallback an error, with it the LU's error.
    let mut s = dd_random(&mut SplitMix64::new(5), 16);
    for i in 0..4 {
        s[i + 2 * 4] = Dd::ZERO;
    }
    let ds = dev.upload(&s).unwrap();
    let db = dev.upload(&b[..4]).unwrap();
    let mut dx = dev.zeros::<Dd>(4).unwrap();
    for fallback in [false, true] {
        let r = lapack::gpu::gesv_refined(
            &dev,
            DeviceMatRef::col_major(&ds, 4, 4, 4).unwrap(),
            DeviceMatRef::col_major(&db, 4, 1, 4).unwrap(),
            DeviceMatMut::col_major(&mut dx, 4, 1, 4).unwrap(),
            &RefineParams {
                fallback,
                ..RefineParams::default()
            },
        );
        assert!(matches!(r, Err(Error::Singular { column: 2 })), "{r:?}");
    }
    // Shapes.
    let r = lapack::gpu::gesv_refined(
        &dev,
        DeviceMatRef::col_major(&ds, 4, 3, 4).unwrap(),
        DeviceMatRef::col_major(&db, 4, 1, 4).unwrap(),
        DeviceMatMut::col_major(&mut dx, 4, 1, 4).unwrap(),
        &RefineParams::default(),
    );
    assert!(matches!(r, Err(Error::LengthMismatch { .. })), "{r:?}");
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn dgesv_solves_and_reports_singularity() {
    let dev = device();
    let mut g = SplitMix64::new(0x15_0003);
    let (n, nrhs) = (200, 4);
    let a: Vec<f64> = (0..n * n).map(|_| g.range(-1.0, 1.0)).collect();
    let b: Vec<f64> = (0..n * nrhs).map(|_| g.range(-1.0, 1.0)).collect();
    let mut da = dev.upload(&a).unwrap();
    let mut db = dev.upload(&b).unwrap();
    lapack::gpu::dgesv(
        &dev,
        DeviceMatMut::col_major(&mut da, n, n, n).unwrap(),
        DeviceMatMut::col_major(&mut db, n, nrhs, n).unwrap(),
    )
    .unwrap();
    let x = db.download().unwrap();
    for c in 0..nrhs {
        let (mut res, mut scale) = (0.0f64, 0.0f64);
        for i in 0..n {
            let (mut s, mut t) = (-b[i + c * n], b[i + c * n].abs());
            for j in 0..n {
                s += a[i + j * n] * x[j + c * n];
                t += (a[i + j * n] * x[j + c * n]).abs();
            }
            res = res.max(s.abs());
            scale = scale.max(t);
        }
        assert!(res <= 1e-12 * scale, "column {c}: residual {res:e}");
    }
    let mut z = dev.upload(&[0.0; 9]).unwrap();
    let mut rhs = dev.upload(&[1.0, 2.0, 3.0]).unwrap();
    let r = lapack::gpu::dgesv(
        &dev,
        DeviceMatMut::col_major(&mut z, 3, 3, 3).unwrap(),
        DeviceMatMut::col_major(&mut rhs, 3, 1, 3).unwrap(),
    );
    assert!(matches!(r, Err(Error::Singular { column: 0 })), "{r:?}");
}

/// The CPU's refinement of the same system (for its report's bounds).
fn cpu_refined<T: Scalar<Ctx = ()> + Clone>(
    a: &[T],
    b: &[T],
    (n, nrhs): (usize, usize),
) -> (Vec<T>, mpblas::lapack::RefineReport) {
    let mut x = b.to_vec();
    let r = lapack::gesv_refined(
        MatRef::col_major(a, n, n, n).unwrap(),
        MatRef::col_major(b, n, nrhs, n).unwrap(),
        MatMut::col_major(&mut x, n, nrhs, n).unwrap(),
        &RefineParams::default(),
    )
    .unwrap();
    (x, r)
}

/// The GPU report's condition estimate and error bounds against the CPU's for the same system,
/// and the forward bound against the true error (`true_error`, or, where the reference is
/// itself approximate, the difference from it less the CPU's own bound).
fn check_bounds(
    what: &str,
    gpu: &mpblas::lapack::RefineReport,
    cpu: &mpblas::lapack::RefineReport,
    true_error: f64,
) {
    eprintln!(
        "{what}: gpu rcond {:.3e} berr {:.2e} ferr {:.2e} | cpu rcond {:.3e} berr {:.2e} ferr {:.2e} | true {true_error:.2e}",
        gpu.rcond,
        gpu.backward_error,
        gpu.forward_error,
        cpu.rcond,
        cpu.backward_error,
        cpu.forward_error
    );
    assert_eq!(gpu.path, cpu.path, "{what}");
    let ratio = gpu.rcond / cpu.rcond;
    assert!(
        (0.5..=2.0).contains(&ratio),
        "{what}: rcond {} vs {}",
        gpu.rcond,
        cpu.rcond
    );
    assert!(
        gpu.backward_error.is_finite() && gpu.backward_error >= 0.0,
        "{what}"
    );
    assert!(
        gpu.backward_error <= 100.0 * cpu.backward_error.max(f64::MIN_POSITIVE) + 1e-300,
        "{what}: backward error {} vs the CPU's {}",
        gpu.backward_error,
        cpu.backward_error
    );
    assert!(
        gpu.forward_error >= true_error,
        "{what}: bound {} < error {true_error}",
        gpu.forward_error
    );
    assert!(
        gpu.forward_error <= 1e4 * cpu.forward_error,
        "{what}: bound {} far above the CPU's {}",
        gpu.forward_error,
        cpu.forward_error
    );
}

/// `rcond`, `backward_error` and `forward_error` of the GPU refinements (refined and fallback
/// paths, double-double and quad-double): finite, near the CPU's for the same system, and the
/// forward bound above the true error.
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn refinement_bounds_hold_and_match_the_cpu() {
    let dev = device();
    let mut g = SplitMix64::new(0x15_0009);
    // Double-double: the GEMV residual (3 right-hand sides), the Ozaki residual (12), Hilbert
    // 10 (κ ≈ 1.6e13, refined) and 14 (the fallback).
    let mut cases: Vec<(String, Vec<Dd>, usize, usize)> = Vec::new();
    for (n, nrhs) in [(60, 3), (200, 12)] {
        cases.push((
            format!("dd random {n}x{nrhs}"),
            dd_random(&mut g, n * n),
            n,
            nrhs,
        ));
    }
    cases.push(("dd hilbert 10".into(), hilbert(10), 10, 2));
    cases.push(("dd hilbert 14".into(), hilbert(14), 14, 1));
    for (what, a, n, nrhs) in cases {
        let b = dd_random(&mut g, n * nrhs);
        let (x, r) = dd_gpu_solve(&dev, &a, &b, (n, nrhs));
        let (_, cpu) = cpu_refined(&a, &b, (n, nrhs));
        // The quad-double reference is exact to far below these errors.
        let err = rel_error(&x, &qd_reference(&a, &b, n, nrhs), n, nrhs);
        check_bounds(&what, &r, &cpu, err);
    }
    // Quad-double: random systems, Hilbert 8 (refined) and 14 (the fallback).
    let mut cases: Vec<(String, Vec<Qd>, usize, usize)> = Vec::new();
    for (n, nrhs) in [(37, 3), (150, 12)] {
        cases.push((
            format!("qd random {n}x{nrhs}"),
            qd_random(&mut g, n * n),
            n,
            nrhs,
        ));
    }
    for n in [8, 14] {
        let h = (0..n * n)
            .map(|e| Qd::ONE / Qd::from((e % n + e / n + 1) as f64))
            .collect();
        cases.push((format!("qd hilbert {n}"), h, n, 1));
    }
    for (what, a, n, nrhs) in cases {
        let b = qd_random(&mut g, n * nrhs);
        let (x, r) = qd_gpu_solve(&dev, (&a, col_major_layout(n)), &b, (n, nrhs));
        let (want, cpu) = cpu_refined(&a, &b, (n, nrhs));
        // The CPU's solution is as approximate as the GPU's: the GPU's error is at least the
        // difference less the CPU's own bound.
        let diff = qd_rel_error(&x, &want, n, nrhs);
        check_bounds(&what, &r, &cpu, diff - cpu.forward_error);
    }
}

/// `len` RNS values for the LU tests: full significands, exponents spread over `±spread`
/// around 1, every fifth the negated predecessor nudged in its last 20 bits (cancellation in
/// the updates).
fn rns_data(b: &Arc<Basis>, rng: &mut Rng, len: usize, spread: i64) -> Vec<MpFloat> {
    let mut v: Vec<MpFloat> = Vec::with_capacity(len);
    for k in 0..len {
        v.push(if k % 5 == 4 {
            near(b, rng, &v[k - 1].neg(), 20)
        } else {
            random(b, rng, spread)
        });
    }
    v
}

fn rns_upload(dev: &Device, b: &Arc<Basis>, v: &[MpFloat]) -> DeviceMpArray {
    DeviceMpArray::upload(dev, &MpArray::from_mpfloats(b, v).unwrap()).unwrap()
}

/// The RNS GPU getrf of `a` (`m × n`, leading dimension `m + 3`) against the CPU's, every field
/// of every element; square and regular: both solves with 3 right-hand sides (`ldb = n + 1`).
fn check_rns_lu(dev: &Device, b: &Arc<Basis>, (m, n): (usize, usize), a: Vec<MpFloat>, what: &str) {
    let ld = m + 3;
    let steps = m.min(n);
    let mut cpu = a.clone();
    let mut cpu_piv = vec![0; steps];
    let cpu_info =
        lapack::getrf(MatMut::col_major(&mut cpu, m, n, ld).unwrap(), &mut cpu_piv).unwrap();
    let mut da = rns_upload(dev, b, &a);
    let mut gpu_piv = vec![0; steps];
    let gpu_info = lapack::gpu::rns::getrf(dev, m, n, &mut da, ld, &mut gpu_piv).unwrap();
    assert_eq!(gpu_info, cpu_info, "{what}: info");
    assert_eq!(gpu_piv, cpu_piv, "{what}: pivots");
    let want = MpArray::from_mpfloats(b, &cpu).unwrap();
    assert_same(
        &format!("{what}: factors"),
        &da.download().unwrap(),
        &want,
        |e| format!("a({}, {}) = {:?}", e % ld, e / ld, a[e]),
    );
    if m != n || cpu_info.is_some() {
        eprintln!("{what}: factors identical (info {cpu_info:?})");
        return;
    }
    let mut rng = Rng::new(m as u64 * 31 + 7);
    let ldb = n + 1;
    for trans in [Trans::No, Trans::Yes] {
        let rhs = rns_data(b, &mut rng, ldb * 3, 8);
        let mut xc = rhs.clone();
        lapack::getrs(
            trans,
            MatRef::col_major(&cpu, n, n, ld).unwrap(),
            &cpu_piv,
            MatMut::col_major(&mut xc, n, 3, ldb).unwrap(),
        )
        .unwrap();
        let mut db = rns_upload(dev, b, &rhs);
        lapack::gpu::rns::getrs(dev, trans, n, 3, &da, ld, &gpu_piv, &mut db, ldb).unwrap();
        assert_same(
            &format!("{what}: getrs {trans:?}"),
            &db.download().unwrap(),
            &MpArray::from_mpfloats(b, &xc).unwrap(),
            |e| format!("x({}, {})", e % ldb, e / ldb),
        );
    }
    eprintln!("{what}: factors and both solves identical");
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn rns_lu_equals_cpu_bit_for_bit() {
    let dev = device();
    for bits in [106, 424] {
        let b = Basis::new(bits).unwrap();
        let mut rng = Rng::new(bits as u64);
        for (m, n) in [(1, 1), (5, 5), (40, 40), (70, 33), (33, 70), (97, 97)] {
            let a = rns_data(&b, &mut rng, (m + 3) * n, 30);
            check_rns_lu(&dev, &b, (m, n), a, &format!("{bits}-bit {m}x{n}"));
        }
        // Special entries: a zero column (info), NaN and infinities (propagation), equal
        // magnitudes (the first row wins), exact zeros below the diagonal.
        let (m, n, ld) = (40, 40, 43);
        let base = rns_data(&b, &mut rng, ld * n, 30);
        let mut zero_col = base.clone();
        for i in 0..m {
            zero_col[5 * ld + i] = MpFloat::zero(&b, i % 2 == 0);
        }
        check_rns_lu(
            &dev,
            &b,
            (m, n),
            zero_col,
            &format!("{bits}-bit zero column"),
        );
        let mut specials = base.clone();
        specials[3 * ld + 10] = MpFloat::nan(&b);
        specials[3 * ld + 3] = MpFloat::nan(&b);
        specials[7 * ld + 20] = MpFloat::infinity(&b, true);
        specials[33 * ld + 35] = MpFloat::infinity(&b, false);
        check_rns_lu(
            &dev,
            &b,
            (m, n),
            specials,
            &format!("{bits}-bit NaN and Inf"),
        );
        let mut ties = base;
        for i in 0..m {
            let v = MpFloat::from_f64(&b, if i % 3 == 0 { 2.0 } else { -2.0 });
            ties[i] = v.clone();
            ties[ld + i] = if i % 4 == 1 {
                v
            } else {
                MpFloat::zero(&b, false)
            };
        }
        check_rns_lu(&dev, &b, (m, n), ties, &format!("{bits}-bit ties"));
    }
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn rns_gesv_solves_and_checks_its_arguments() {
    let dev = device();
    let b = Basis::new(212).unwrap();
    let n = 50;
    // A well-conditioned system with a known solution x = (1, 2, ..., n): the GPU's solution
    // equals the CPU's gesv and is accurate to the format.
    let mut rng = Rng::new(5);
    let mut a = rns_data(&b, &mut rng, n * n, 2);
    for i in 0..n {
        a[i * n + i] = a[i * n + i].add_ref(&MpFloat::from_f64(&b, n as f64));
    }
    let x: Vec<MpFloat> = (0..n)
        .map(|i| MpFloat::from_f64(&b, 1.0 + i as f64))
        .collect();
    let mut rhs = vec![MpFloat::zero(&b, false); n];
    mpblas::blas::level2::gemv(
        &MpFloat::one_in(&b),
        MatRef::col_major(&a, n, n, n).unwrap(),
        mpblas::view::VecRef::contiguous(&x),
        &MpFloat::zero_in(&b),
        mpblas::view::VecMut::contiguous(&mut rhs),
    )
    .unwrap();
    let (mut ca, mut cx, mut cpiv) = (a.clone(), rhs.clone(), vec![0; n]);
    lapack::gesv(
        MatMut::col_major(&mut ca, n, n, n).unwrap(),
        &mut cpiv,
        MatMut::col_major(&mut cx, n, 1, n).unwrap(),
    )
    .unwrap();
    let (mut da, mut dx, mut piv) = (
        rns_upload(&dev, &b, &a),
        rns_upload(&dev, &b, &rhs),
        vec![0; n],
    );
    lapack::gpu::rns::gesv(&dev, n, 1, &mut da, n, &mut piv, &mut dx, n).unwrap();
    let got = dx.download().unwrap();
    assert_same(
        "gesv",
        &got,
        &MpArray::from_mpfloats(&b, &cx).unwrap(),
        |i| format!("x[{i}]"),
    );
    let got = got.to_mpfloats().unwrap();
    for (i, (g, w)) in got.iter().zip(&x).enumerate() {
        let rel = g.sub_ref(w).abs().to_f64() / w.to_f64();
        assert!(rel < 1e-55, "x[{i}]: relative error {rel:e}");
    }
    // Singular: an error carrying the column, b untouched.
    let mut sing = a.clone();
    for i in 0..n {
        sing[7 * n + i] = MpFloat::zero(&b, false);
    }
    let (mut da, mut dx) = (rns_upload(&dev, &b, &sing), rns_upload(&dev, &b, &rhs));
    let e = lapack::gpu::rns::gesv(&dev, n, 1, &mut da, n, &mut piv, &mut dx, n);
    assert!(matches!(e, Err(Error::Singular { column: 7 })), "{e:?}");
    assert_same(
        "untouched b",
        &dx.download().unwrap(),
        &MpArray::from_mpfloats(&b, &rhs).unwrap(),
        |i| format!("b[{i}]"),
    );
    // Argument errors, before anything runs.
    let other = Basis::new(106).unwrap();
    let mut wrong = rns_upload(&dev, &other, &vec![MpFloat::zero(&other, false); n]);
    let mut da = rns_upload(&dev, &b, &a);
    let e = lapack::gpu::rns::gesv(&dev, n, 1, &mut da, n, &mut piv, &mut wrong, n);
    assert!(matches!(e, Err(Error::BasisMismatch { .. })), "{e:?}");
    let e = lapack::gpu::rns::getrf(&dev, n, n, &mut da, n - 1, &mut piv);
    assert!(matches!(e, Err(Error::LeadingDim { .. })), "{e:?}");
    let e = lapack::gpu::rns::getrf(&dev, n, n, &mut da, n, &mut piv[..3]);
    assert!(matches!(e, Err(Error::LengthMismatch { .. })), "{e:?}");
    let e = lapack::gpu::rns::getrf(&dev, n + 1, n, &mut da, n + 1, &mut piv);
    assert!(matches!(e, Err(Error::ArrayTooShort { .. })), "{e:?}");
    let mut bad_piv = piv.clone();
    bad_piv[0] = n;
    let e = lapack::gpu::rns::getrs(&dev, Trans::No, n, 1, &da, n, &bad_piv, &mut dx, n);
    assert!(matches!(e, Err(Error::OutOfRange { .. })), "{e:?}");
    assert_eq!(
        lapack::gpu::rns::getrf(&dev, 0, 5, &mut da, 1, &mut []).unwrap(),
        None
    );
}
