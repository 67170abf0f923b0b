//! GPU Ozaki GEMMs against the CPU reference.
//!
//! - `mpblas::ozaki::gpu::ozaki2_gemm_blas` returns the bits of `ozaki::ozaki2_gemm_blas` (NaN payloads aside) on odd
//!   sizes, both transposes, α/β (β = 0 with NaN in C), leading dimensions above the minimum,
//!   zero rows and columns, NaN and Inf rows and columns, rows spread over 2^±600, fast and
//!   accurate modes, 8, 14, 16 and 20 moduli, n up to 1024, and the column-blocked path.
//! - `cuda::ozaki2::product` (the double-double product) equals `ozaki2::product`.
//! - `mpblas::ozaki::gpu::ozaki2_gemm_dd` returns the bits (both words) and the report of
//!   `ozaki::ozaki2_gemm_dd`: 8, 20, 30 and 31 moduli, both modes, every transpose, α/β (β = 0
//!   with NaN in C), the guard's adversarial inputs (exponents over 2^±600 inside rows,
//!   cancelling columns, subnormals, NaN/Inf and zero rows), both guards, the column-blocked
//!   path and the quick returns.
//! - `mpblas::ozaki::gpu::ozaki1_split` equals `split::split` (f32 and f64 slices, remainders);
//!   `mpblas::ozaki::gpu::ozaki1_gemm_blas` agrees with the CPU to within the slice products' rounding.
//! - Argument errors and quick returns.
//!
//! Every test needs a GPU and is `#[ignore]`d; run them with `scripts/gpu-check.sh`.
#![cfg(feature = "cuda")]

use mpblas::Trans;
use mpblas::cuda::{self, Device, DeviceMatMut, DeviceMatRef, DeviceVec};
use mpblas::ozaki::{
    self, Accumulate, Ozaki1Params, Ozaki2Mode, Ozaki2Params, Products, SliceGemm, split,
};
use mpblas::view::{MatMut, MatRef};
use mpblas::{Dd, Error, Qd};
use mpblas_testdata::{SplitMix64, paper_matrix};

fn device() -> Device {
    match Device::open(0) {
        Ok(d) => {
            eprintln!("{}", d.info());
            d
        }
        Err(e) => panic!("these tests need a CUDA GPU, and none is usable: {e}"),
    }
}

fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// One GEMM problem with stored (not op) shapes and leading dimensions above the minimum.
struct Case {
    ta: Trans,
    tb: Trans,
    m: usize,
    n: usize,
    k: usize,
    lda: usize,
    ldb: usize,
    ldc: usize,
    a: Vec<f64>,
    b: Vec<f64>,
    c: Vec<f64>,
}

fn case(ta: Trans, tb: Trans, m: usize, n: usize, k: usize, phi: f64, seed: u64) -> Case {
    let (ar, ac) = if ta == Trans::No { (m, k) } else { (k, m) };
    let (br, bc) = if tb == Trans::No { (k, n) } else { (n, k) };
    let (lda, ldb, ldc) = (ar + 3, br + 1, m + 2);
    Case {
        ta,
        tb,
        m,
        n,
        k,
        lda,
        ldb,
        ldc,
        a: paper_matrix(lda, ac, phi, seed),
        b: paper_matrix(ldb, bc, phi, seed + 1),
        c: paper_matrix(ldc, n, 1.0, seed + 2),
    }
}

impl Case {
    fn a_at(&mut self, i: usize, l: usize) -> &mut f64 {
        match self.ta {
            Trans::No => &mut self.a[i + l * self.lda],
            Trans::Yes => &mut self.a[l + i * self.lda],
        }
    }
    fn b_at(&mut self, l: usize, j: usize) -> &mut f64 {
        match self.tb {
            Trans::No => &mut self.b[l + j * self.ldb],
            Trans::Yes => &mut self.b[j + l * self.ldb],
        }
    }
}

fn check_ozaki2(dev: &Device, cs: &Case, alpha: f64, beta: f64, p: &Ozaki2Params, what: &str) {
    let mut cpu_c = cs.c.clone();
    let cpu_report = ozaki::ozaki2_gemm_blas(
        cs.ta, cs.tb, cs.m, cs.n, cs.k, alpha, &cs.a, cs.lda, &cs.b, cs.ldb, beta, &mut cpu_c,
        cs.ldc, p,
    )
    .expect("cpu ozaki2");
    let a = dev.upload_f64(&cs.a).unwrap();
    let b = dev.upload_f64(&cs.b).unwrap();
    let mut c = dev.upload_f64(&cs.c).unwrap();
    let gpu_report = mpblas::ozaki::gpu::ozaki2_gemm_blas(
        dev, cs.ta, cs.tb, cs.m, cs.n, cs.k, alpha, &a, cs.lda, &b, cs.ldb, beta, &mut c, cs.ldc, p,
    )
    .expect("gpu ozaki2");
    assert_eq!(gpu_report, cpu_report, "{what}: reports differ");
    let gpu_c = c.download().unwrap();
    let mut bad = 0;
    for (idx, (g, h)) in gpu_c.iter().zip(&cpu_c).enumerate() {
        if !same(*g, *h) {
            if bad < 5 {
                eprintln!(
                    "{what}: c[{}, {}] gpu {g:e} cpu {h:e}",
                    idx % cs.ldc,
                    idx / cs.ldc
                );
            }
            bad += 1;
        }
    }
    assert_eq!(bad, 0, "{what}: {bad} entries differ");
    eprintln!(
        "{what}: {} entries identical (guard recomputed {}, non-finite {})",
        gpu_c.len(),
        cpu_report.guard_recomputed,
        cpu_report.non_finite_recomputed
    );
}

/// Issue 11: the componentwise guard flags and recomputes the same entries on the GPU as on
/// the CPU (same bits, same report), on inputs built to need it: every entry's exponent spread
/// over 2^±600 inside its row and column, one huge and one tiny entry per row, values near
/// overflow and underflow with subnormals, cancelling column pairs; and the fast normwise mode.
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn ozaki2_guard_equals_cpu() {
    let dev = device();
    let mut g = SplitMix64::new(0x11_0010);
    let val = |g: &mut SplitMix64, e: i32| {
        let s = if g.next_u64() & 1 == 0 { 1.0 } else { -1.0 };
        s * (1.0 + g.uniform()) * 2f64.powi(e)
    };
    for (kind, &(m, n, k)) in [
        (0, (40, 33, 100)),
        (1, (64, 70, 300)),
        (2, (31, 29, 64)),
        (3, (50, 50, 257)),
    ]
    .iter()
    .map(|(k, d)| (*k, d))
    {
        let mut cs = case(Trans::No, Trans::No, m, n, k, 1.0, 900 + kind as u64);
        for l in 0..k {
            for i in 0..m {
                let r = g.next_u64();
                *cs.a_at(i, l) = match kind {
                    0 => val(&mut g, (r % 1201) as i32 - 600),
                    1 if l == i % k => val(&mut g, 500),
                    1 if l == (i + 1) % k => val(&mut g, -500),
                    2 => match r % 4 {
                        0 => val(&mut g, 1000 + (r % 20) as i32),
                        1 => val(&mut g, -1000 - (r % 40) as i32),
                        2 => f64::from_bits(1 + r % 4096),
                        _ => val(&mut g, 0),
                    },
                    _ => *cs.a_at(i, l),
                };
            }
            for j in 0..n {
                let r = g.next_u64();
                *cs.b_at(l, j) = match kind {
                    0 => val(&mut g, (r % 1201) as i32 - 600),
                    2 => val(&mut g, -40 + (r % 8) as i32),
                    3 if j % 2 == 1 => -*cs.b_at(l, j - 1) * (1.0 + 2f64.powi(-45)),
                    _ => *cs.b_at(l, j),
                };
            }
        }
        for guard in [
            ozaki::OzakiGuard::Componentwise,
            ozaki::OzakiGuard::NormwiseFast,
        ] {
            for mode in [Ozaki2Mode::Fast, Ozaki2Mode::Accurate] {
                let p = Ozaki2Params {
                    guard,
                    ..p2(16, mode)
                };
                let what = format!("guard kind {kind} {m}x{n}x{k} {mode:?} {guard:?}");
                check_ozaki2(&dev, &cs, 1.0, 0.0, &p, &what);
                check_ozaki2(&dev, &cs, -0.5, 2.0, &p, &what);
            }
        }
    }
}

/// `ozaki2_gemm_dd` on the GPU against the CPU: both words of every entry of C (NaN payloads
/// aside) and the reports. C starts as `cs.c` with a low word, or NaN everywhere for `β = 0`.
fn check_ozaki2_dd(dev: &Device, cs: &Case, alpha: f64, beta: f64, p: &Ozaki2Params, what: &str) {
    check_ozaki2_dd_with(dev, cs, (&cs.a, &cs.b), alpha, beta, p, what);
}

/// Double-double operands from `cs`'s: `x + y·2^-56` with `y` another entry of the array.
fn dd_of(x: &[f64]) -> Vec<Dd> {
    let len = x.len();
    (0..len)
        .map(|i| Dd::from(x[i]).add_f64(x[(7 * i + 3) % len] * 2f64.powi(-56)))
        .collect()
}

/// [`check_ozaki2_dd`] on operands `ab` (`f64` or `Dd`) laid out as `cs`'s.
fn check_ozaki2_dd_with<T: mpblas::cuda::DeviceScalar + ozaki::DdSchemeInput>(
    dev: &Device,
    cs: &Case,
    (ha, hb): (&[T], &[T]),
    alpha: f64,
    beta: f64,
    p: &Ozaki2Params,
    what: &str,
) {
    let c0: Vec<Dd> =
        cs.c.iter()
            .map(|&x| {
                if beta == 0.0 {
                    Dd::from(f64::NAN)
                } else {
                    Dd::from(x).add_f64(x * 2f64.powi(-60))
                }
            })
            .collect();
    let mut cpu_c = c0.clone();
    let a = MatRef::from_blas(("a", "lda"), cs.ta, cs.m, cs.k, ha, cs.lda).unwrap();
    let b = MatRef::from_blas(("b", "ldb"), cs.tb, cs.k, cs.n, hb, cs.ldb).unwrap();
    let cv = MatMut::from_blas(("c", "ldc"), cs.m, cs.n, &mut cpu_c, cs.ldc).unwrap();
    let cpu_report = ozaki::ozaki2_gemm_dd(alpha, a, b, beta, cv, p).expect("cpu ozaki2_gemm_dd");
    let da = dev.upload(ha).unwrap();
    let db = dev.upload(hb).unwrap();
    let mut dc = dev.upload(&c0).unwrap();
    let gpu_report = {
        let a = DeviceMatRef::from_blas(("a", "lda"), cs.ta, cs.m, cs.k, &da, cs.lda).unwrap();
        let b = DeviceMatRef::from_blas(("b", "ldb"), cs.tb, cs.k, cs.n, &db, cs.ldb).unwrap();
        let c = DeviceMatMut::from_blas(("c", "ldc"), cs.m, cs.n, &mut dc, cs.ldc).unwrap();
        ozaki::gpu::ozaki2_gemm_dd(dev, alpha, a, b, beta, c, p).expect("gpu ozaki2_gemm_dd")
    };
    assert_eq!(gpu_report, cpu_report, "{what}: reports differ");
    let gpu_c = dc.download().unwrap();
    let mut bad = 0;
    for (idx, (g, h)) in gpu_c.iter().zip(&cpu_c).enumerate() {
        if !(same(g.hi, h.hi) && same(g.lo, h.lo)) {
            if bad < 5 {
                eprintln!(
                    "{what}: c[{}, {}] gpu ({:e}, {:e}) cpu ({:e}, {:e})",
                    idx % cs.ldc,
                    idx / cs.ldc,
                    g.hi,
                    g.lo,
                    h.hi,
                    h.lo
                );
            }
            bad += 1;
        }
    }
    assert_eq!(bad, 0, "{what}: {bad} entries differ");
    eprintln!(
        "{what}: {} entries identical (guard recomputed {}, non-finite {})",
        gpu_c.len(),
        cpu_report.guard_recomputed,
        cpu_report.non_finite_recomputed
    );
}

/// The double-double scheme: random operands at every transpose, moduli count and mode, the
/// BLAS scalars and quick returns, and the column-blocked path.
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn ozaki2_dd_equals_cpu_bit_for_bit() {
    let dev = device();
    let runs = [
        (Trans::No, Trans::No, 37, 41, 53, 1.0),
        (Trans::Yes, Trans::No, 70, 101, 300, 0.5),
        (Trans::No, Trans::Yes, 64, 48, 1000, 2.0),
        (Trans::Yes, Trans::Yes, 17, 130, 129, 4.0),
    ];
    for (i, &(ta, tb, m, n, k, phi)) in runs.iter().enumerate() {
        let cs = case(ta, tb, m, n, k, phi, 500 + i as u64);
        for nm in [8, 20, 30, 31] {
            for mode in [Ozaki2Mode::Fast, Ozaki2Mode::Accurate] {
                let p = p2(nm, mode);
                let what = format!("dd {ta:?}{tb:?} {m}x{n}x{k} phi {phi} N {nm} {mode:?}");
                check_ozaki2_dd(&dev, &cs, 1.0, 0.0, &p, &what);
                check_ozaki2_dd(&dev, &cs, 1.5, -0.5, &p, &what);
            }
        }
        let p = ozaki::ozaki2_dd_params();
        check_ozaki2_dd(&dev, &cs, 0.0, 2.0, &p, "dd quick return alpha 0");
        check_ozaki2_dd(&dev, &cs, 0.0, 0.0, &p, "dd quick return alpha 0 beta 0");
    }
    // SAFETY (of set_var in edition 2024): the GPU tests run with --test-threads=1 and no
    // other thread of this process reads the environment meanwhile.
    unsafe { std::env::set_var("MPBLAS_OZAKI_MAX_COLS", "32") };
    let cs = case(Trans::No, Trans::Yes, 70, 101, 90, 1.0, 11);
    check_ozaki2_dd(
        &dev,
        &cs,
        1.0,
        0.5,
        &ozaki::ozaki2_dd_params(),
        "dd blocked",
    );
    unsafe { std::env::remove_var("MPBLAS_OZAKI_MAX_COLS") };
    dev.release_workspaces().unwrap();
}

/// Double-double operands: random at every transpose, the α/β update, spread and adversarial
/// rows, a NaN second word, the column-blocked path; the accurate mode refused as on the CPU.
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn ozaki2_dd_of_double_double_operands_equals_cpu() {
    let dev = device();
    let runs = [
        (Trans::No, Trans::No, 37, 41, 53, 1.0),
        (Trans::Yes, Trans::No, 70, 101, 300, 0.5),
        (Trans::No, Trans::Yes, 64, 48, 1000, 2.0),
        (Trans::Yes, Trans::Yes, 17, 130, 129, 4.0),
    ];
    for (i, &(ta, tb, m, n, k, phi)) in runs.iter().enumerate() {
        let cs = case(ta, tb, m, n, k, phi, 700 + i as u64);
        let (a, b) = (dd_of(&cs.a), dd_of(&cs.b));
        for nm in [8, 20, 30, 31] {
            let p = p2(nm, Ozaki2Mode::Fast);
            let what = format!("dd operands {ta:?}{tb:?} {m}x{n}x{k} phi {phi} N {nm}");
            check_ozaki2_dd_with(&dev, &cs, (&a, &b), 1.0, 0.0, &p, &what);
            check_ozaki2_dd_with(&dev, &cs, (&a, &b), 1.5, -0.5, &p, &what);
        }
    }
    for kind in 0..6 {
        let cs = adversarial_case(kind);
        let (mut a, b) = (dd_of(&cs.a), dd_of(&cs.b));
        if kind == 4 {
            a[5].lo = f64::NAN;
        }
        let what = format!("dd operands guard kind {kind}");
        check_ozaki2_dd_with(
            &dev,
            &cs,
            (&a, &b),
            -0.5,
            2.0,
            &ozaki::ozaki2_dd_params(),
            &what,
        );
    }
    // SAFETY (of set_var in edition 2024): as in ozaki2_dd_equals_cpu_bit_for_bit.
    unsafe { std::env::set_var("MPBLAS_OZAKI_MAX_COLS", "32") };
    let cs = case(Trans::No, Trans::Yes, 70, 101, 90, 1.0, 12);
    let (a, b) = (dd_of(&cs.a), dd_of(&cs.b));
    check_ozaki2_dd_with(
        &dev,
        &cs,
        (&a, &b),
        1.0,
        0.5,
        &ozaki::ozaki2_dd_params(),
        "dd operands blocked",
    );
    unsafe { std::env::remove_var("MPBLAS_OZAKI_MAX_COLS") };
    let da = dev.upload(&a).unwrap();
    let db = dev.upload(&b).unwrap();
    let mut dc = dev.zeros::<Dd>(cs.m * cs.n).unwrap();
    let refused = ozaki::gpu::ozaki2_gemm_dd(
        &dev,
        1.0,
        DeviceMatRef::from_blas(("a", "lda"), cs.ta, cs.m, cs.k, &da, cs.lda).unwrap(),
        DeviceMatRef::from_blas(("b", "ldb"), cs.tb, cs.k, cs.n, &db, cs.ldb).unwrap(),
        0.0,
        DeviceMatMut::col_major(&mut dc, cs.m, cs.n, cs.m).unwrap(),
        &p2(30, Ozaki2Mode::Accurate),
    );
    assert!(
        matches!(refused, Err(Error::OutOfRange { .. })),
        "{refused:?}"
    );
    dev.release_workspaces().unwrap();
}

/// The double-double scheme's guard and fallback entries on the GPU: the inputs of
/// `ozaki2_guard_equals_cpu` and `ozaki2_special_rows_equal_cpu`, both guards.
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn ozaki2_dd_guard_and_specials_equal_cpu() {
    let dev = device();
    for kind in 0..6 {
        let cs = adversarial_case(kind);
        for guard in [
            ozaki::OzakiGuard::Componentwise,
            ozaki::OzakiGuard::NormwiseFast,
        ] {
            for (nm, mode) in [
                (30, Ozaki2Mode::Fast),
                (20, Ozaki2Mode::Accurate),
                (8, Ozaki2Mode::Fast),
            ] {
                let p = Ozaki2Params {
                    guard,
                    ..p2(nm, mode)
                };
                let what = format!("dd guard kind {kind} N {nm} {mode:?} {guard:?}");
                check_ozaki2_dd(&dev, &cs, 1.0, 0.0, &p, &what);
                check_ozaki2_dd(&dev, &cs, -0.5, 2.0, &p, &what);
            }
        }
    }
}

/// The quad-double scheme (`ozaki2_gemm_qd`) on `cs`: the GPU's report and all four words of
/// every entry equal the CPU's.
fn check_ozaki2_qd(dev: &Device, cs: &Case, alpha: f64, beta: f64, what: &str) {
    let c0: Vec<Qd> =
        cs.c.iter()
            .map(|&x| {
                if beta == 0.0 {
                    Qd::from(f64::NAN)
                } else {
                    Qd::from(x)
                        .add_f64(x * 2f64.powi(-60))
                        .add_f64(x * 2f64.powi(-130))
                }
            })
            .collect();
    let mut cpu_c = c0.clone();
    let a = MatRef::from_blas(("a", "lda"), cs.ta, cs.m, cs.k, &cs.a, cs.lda).unwrap();
    let b = MatRef::from_blas(("b", "ldb"), cs.tb, cs.k, cs.n, &cs.b, cs.ldb).unwrap();
    let cv = MatMut::from_blas(("c", "ldc"), cs.m, cs.n, &mut cpu_c, cs.ldc).unwrap();
    let cpu_report = ozaki::ozaki2_gemm_qd(alpha, a, b, beta, cv).expect("cpu ozaki2_gemm_qd");
    let da = dev.upload_f64(&cs.a).unwrap();
    let db = dev.upload_f64(&cs.b).unwrap();
    let mut dc = dev.upload(&c0).unwrap();
    let gpu_report = {
        let a = DeviceMatRef::from_blas(("a", "lda"), cs.ta, cs.m, cs.k, &da, cs.lda).unwrap();
        let b = DeviceMatRef::from_blas(("b", "ldb"), cs.tb, cs.k, cs.n, &db, cs.ldb).unwrap();
        let c = DeviceMatMut::from_blas(("c", "ldc"), cs.m, cs.n, &mut dc, cs.ldc).unwrap();
        ozaki::gpu::ozaki2_gemm_qd(dev, alpha, a, b, beta, c).expect("gpu ozaki2_gemm_qd")
    };
    assert_eq!(gpu_report, cpu_report, "{what}: reports differ");
    let gpu_c = dc.download().unwrap();
    let differ = |g: &Qd, h: &Qd| (0..4).any(|w| !same(g.c[w], h.c[w]));
    let bad: Vec<usize> = (0..gpu_c.len())
        .filter(|&i| differ(&gpu_c[i], &cpu_c[i]))
        .collect();
    for &idx in bad.iter().take(5) {
        eprintln!(
            "{what}: c[{}, {}] gpu {:?} cpu {:?}",
            idx % cs.ldc,
            idx / cs.ldc,
            gpu_c[idx].c,
            cpu_c[idx].c
        );
    }
    assert!(bad.is_empty(), "{what}: {} entries differ", bad.len());
    eprintln!(
        "{what}: {} entries identical (inexact rows/columns recomputed {}, non-finite {})",
        gpu_c.len(),
        cpu_report.guard_recomputed,
        cpu_report.non_finite_recomputed
    );
}

/// The quad-double scheme: random operands at every transpose, the α/β update (β = 1
/// cancelling, as in refinement's residuals), the quick returns, the adversarial inputs (rows
/// that do not convert exactly, NaN/Inf, subnormals), the column-blocked path.
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn ozaki2_qd_equals_cpu_bit_for_bit() {
    let dev = device();
    let runs = [
        (Trans::No, Trans::No, 37, 41, 53, 1.0),
        (Trans::Yes, Trans::No, 70, 101, 300, 0.5),
        (Trans::No, Trans::Yes, 64, 48, 1000, 2.0),
        (Trans::Yes, Trans::Yes, 17, 130, 129, 4.0),
    ];
    for (i, &(ta, tb, m, n, k, phi)) in runs.iter().enumerate() {
        let cs = case(ta, tb, m, n, k, phi, 700 + i as u64);
        let what = format!("qd {ta:?}{tb:?} {m}x{n}x{k} phi {phi}");
        for (alpha, beta) in [(1.0, 0.0), (1.5, -0.5), (-1.0, 1.0), (0.0, 2.0), (0.0, 0.0)] {
            check_ozaki2_qd(
                &dev,
                &cs,
                alpha,
                beta,
                &format!("{what} a {alpha} b {beta}"),
            );
        }
    }
    for kind in 0..6 {
        let cs = adversarial_case(kind);
        check_ozaki2_qd(&dev, &cs, 1.0, 0.0, &format!("qd adversarial {kind}"));
        check_ozaki2_qd(
            &dev,
            &cs,
            -0.5,
            2.0,
            &format!("qd adversarial {kind} update"),
        );
    }
    // SAFETY (of set_var in edition 2024): the GPU tests run with --test-threads=1 and no
    // other thread of this process reads the environment meanwhile.
    unsafe { std::env::set_var("MPBLAS_OZAKI_MAX_COLS", "32") };
    let cs = case(Trans::No, Trans::Yes, 70, 101, 90, 1.0, 12);
    check_ozaki2_qd(&dev, &cs, 1.0, 0.5, "qd blocked");
    unsafe { std::env::remove_var("MPBLAS_OZAKI_MAX_COLS") };
    dev.release_workspaces().unwrap();
}

/// Inputs that need the guard: 0 exponents over 2^±600 inside rows and columns; 1 one huge
/// and one tiny entry per row; 2 values near overflow and underflow with subnormals;
/// 3 cancelling column pairs; 4 zero, NaN, Inf, far-scaled and subnormal rows and columns;
/// 5 values spread over 2^±8 at k = 4096 (certified by the INT8 lower bound).
fn adversarial_case(kind: u64) -> Case {
    let (m, n, k) = [
        (40, 33, 100),
        (64, 70, 300),
        (31, 29, 64),
        (50, 50, 257),
        (37, 41, 53),
        (48, 40, 4096),
    ][kind as usize];
    let mut g = SplitMix64::new(0x11_0020 + kind);
    let val = |g: &mut SplitMix64, e: i32| {
        let s = if g.next_u64() & 1 == 0 { 1.0 } else { -1.0 };
        s * (1.0 + g.uniform()) * 2f64.powi(e)
    };
    let mut cs = case(Trans::No, Trans::Yes, m, n, k, 1.0, 950 + kind);
    if kind == 4 {
        for l in 0..k {
            *cs.a_at(3, l) = 0.0;
            *cs.b_at(l, 5) = 0.0;
            *cs.a_at(4, l) *= 2f64.powi(600);
            *cs.a_at(6, l) *= 2f64.powi(-600);
            *cs.b_at(l, 7) *= 2f64.powi(-700);
            *cs.b_at(l, 8) *= 2f64.powi(500);
            *cs.a_at(12, l) = f64::from_bits(1 + l as u64);
        }
        *cs.a_at(9, 11) = f64::NAN;
        *cs.a_at(10, 0) = f64::INFINITY;
        *cs.b_at(2, 12) = f64::NEG_INFINITY;
        *cs.b_at(k - 1, 13) = f64::NAN;
        return cs;
    }
    for l in 0..k {
        for i in 0..m {
            let r = g.next_u64();
            *cs.a_at(i, l) = match kind {
                0 => val(&mut g, (r % 1201) as i32 - 600),
                5 => val(&mut g, (r % 17) as i32 - 8),
                1 if l == i % k => val(&mut g, 500),
                1 if l == (i + 1) % k => val(&mut g, -500),
                2 => match r % 4 {
                    0 => val(&mut g, 1000 + (r % 20) as i32),
                    1 => val(&mut g, -1000 - (r % 40) as i32),
                    2 => f64::from_bits(1 + r % 4096),
                    _ => val(&mut g, 0),
                },
                _ => *cs.a_at(i, l),
            };
        }
        for j in 0..n {
            let r = g.next_u64();
            *cs.b_at(l, j) = match kind {
                0 => val(&mut g, (r % 1201) as i32 - 600),
                5 => val(&mut g, (r % 17) as i32 - 8),
                2 => val(&mut g, -40 + (r % 8) as i32),
                3 if j % 2 == 1 => -*cs.b_at(l, j - 1) * (1.0 + 2f64.powi(-45)),
                _ => *cs.b_at(l, j),
            };
        }
    }
    cs
}

/// transa, transb, m, n, k, φ, α, β, moduli, mode.
type Run = (
    Trans,
    Trans,
    usize,
    usize,
    usize,
    f64,
    f64,
    f64,
    usize,
    Ozaki2Mode,
);

fn p2(moduli: usize, mode: Ozaki2Mode) -> Ozaki2Params {
    Ozaki2Params {
        moduli,
        mode,
        guard: Default::default(),
    }
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn ozaki2_equals_cpu_bit_for_bit() {
    let dev = device();
    use Ozaki2Mode::{Accurate, Fast};
    use Trans::{No, Yes};
    let runs: &[Run] = &[
        (No, No, 1, 1, 1, 1.0, 1.0, 0.0, 16, Fast),
        (No, No, 7, 5, 3, 1.0, -2.0, 0.5, 16, Fast),
        (Yes, No, 33, 17, 129, 1.0, 1.0, 0.0, 16, Accurate),
        (No, Yes, 65, 31, 200, 2.0, 0.75, 1.0, 14, Fast),
        (Yes, Yes, 100, 64, 1000, 0.5, -1.5, 0.25, 14, Accurate),
        (No, No, 255, 257, 300, 1.0, 1.0, 0.0, 8, Fast),
        (No, No, 129, 130, 77, 2.0, 1.0, -1.0, 20, Fast),
        (Yes, No, 129, 130, 77, 2.0, 1.0, 0.0, 20, Accurate),
        (No, No, 1024, 1024, 1024, 1.0, 1.0, 0.0, 16, Fast),
        (No, No, 1024, 1024, 1024, 2.0, 1.0, 0.0, 16, Accurate),
        (Yes, No, 1000, 1023, 1021, 1.0, -1.0, 2.0, 14, Fast),
    ];
    for (r, &(ta, tb, m, n, k, phi, alpha, beta, nm, mode)) in runs.iter().enumerate() {
        let mut cs = case(ta, tb, m, n, k, phi, 100 + r as u64);
        if beta == 0.0 && m > 1 {
            cs.c[0] = f64::NAN; // must be overwritten, not read
        }
        let what = format!("{ta:?}{tb:?} {m}x{n}x{k} phi {phi} N {nm} {mode:?} a {alpha} b {beta}");
        check_ozaki2(&dev, &cs, alpha, beta, &p2(nm, mode), &what);
    }
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn ozaki2_special_rows_equal_cpu() {
    let dev = device();
    for (ta, tb, mode) in [
        (Trans::No, Trans::No, Ozaki2Mode::Fast),
        (Trans::Yes, Trans::Yes, Ozaki2Mode::Accurate),
    ] {
        let (m, n, k) = (37, 41, 53);
        let mut cs = case(ta, tb, m, n, k, 2.0, 7);
        for l in 0..k {
            *cs.a_at(3, l) = 0.0; // zero row
            *cs.b_at(l, 5) = 0.0; // zero column
            // Rows spread far apart: exponents of e_i near the range ends.
            *cs.a_at(4, l) *= 2f64.powi(600);
            *cs.a_at(6, l) *= 2f64.powi(-600);
            *cs.b_at(l, 7) *= 2f64.powi(-700);
            *cs.b_at(l, 8) *= 2f64.powi(500);
        }
        *cs.a_at(9, 11) = f64::NAN;
        *cs.a_at(10, 0) = f64::INFINITY;
        *cs.b_at(2, 12) = f64::NEG_INFINITY;
        *cs.b_at(k - 1, 13) = f64::NAN;
        // A subnormal maximum.
        for l in 0..k {
            *cs.a_at(12, l) = f64::from_bits(1 + l as u64);
        }
        for nm in [8, 16, 20] {
            let what = format!("special {ta:?}{tb:?} N {nm} {mode:?}");
            check_ozaki2(&dev, &cs, 1.5, 0.5, &p2(nm, mode), &what);
            check_ozaki2(&dev, &cs, 1.0, 0.0, &p2(nm, mode), &what);
        }
        // All-zero operand.
        let mut z = case(ta, tb, 9, 10, 11, 1.0, 8);
        z.a.iter_mut().for_each(|x| *x = 0.0);
        check_ozaki2(&dev, &z, 1.0, 1.0, &p2(16, mode), "zero A");
    }
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn ozaki2_column_blocks_equal_cpu() {
    let dev = device();
    // SAFETY (of set_var in edition 2024): the GPU tests run with --test-threads=1 and no
    // other thread of this process reads the environment meanwhile.
    unsafe { std::env::set_var("MPBLAS_OZAKI_MAX_COLS", "32") };
    let cs = case(Trans::No, Trans::Yes, 70, 101, 90, 1.0, 11);
    check_ozaki2(
        &dev,
        &cs,
        1.0,
        0.5,
        &p2(16, Ozaki2Mode::Fast),
        "blocked fast",
    );
    check_ozaki2(
        &dev,
        &cs,
        1.0,
        0.5,
        &p2(14, Ozaki2Mode::Accurate),
        "blocked accurate",
    );
    unsafe { std::env::remove_var("MPBLAS_OZAKI_MAX_COLS") };
    dev.release_workspaces().unwrap();
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn ozaki2_product_equals_cpu() {
    let dev = device();
    let (m, n, k) = (50, 60, 70);
    let a = paper_matrix(m, k, 1.0, 3);
    let b = paper_matrix(k, n, 1.0, 4);
    for p in [p2(20, Ozaki2Mode::Accurate), p2(16, Ozaki2Mode::Fast)] {
        // op(A) packed by rows, the layout of the CPU stages.
        let ap: Vec<f64> = (0..m * k).map(|t| a[t / k + (t % k) * m]).collect();
        let plan = ozaki::ozaki2::Ozaki2Plan::new(k, &p).unwrap();
        let cpu = ozaki::ozaki2::product(m, n, &ap, &b, &plan).unwrap();
        let ad = dev.upload_f64(&a).unwrap();
        let bd = dev.upload_f64(&b).unwrap();
        let gpu = mpblas::ozaki::gpu::ozaki2_product(
            &dev,
            DeviceMatRef::col_major(&ad, m, k, m).unwrap(),
            DeviceMatRef::col_major(&bd, k, n, k).unwrap(),
            &p,
        )
        .unwrap()
        .download()
        .unwrap();
        for (g, c) in gpu.iter().zip(&cpu) {
            assert!(same(g.hi, c.hi) && same(g.lo, c.lo), "{g:?} vs {c:?}");
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn ozaki1_splits_equal_cpu() {
    let dev = device();
    let mut g = SplitMix64::new(5);
    for &(len, count) in &[(1usize, 3usize), (7, 5), (129, 9), (1000, 33)] {
        let x: Vec<f64> = (0..len * count)
            .map(|i| (g.uniform() - 0.5) * ((i % 37) as f64 - 18.0).exp2())
            .collect();
        for prec in [SliceGemm::F32, SliceGemm::F64] {
            for slices in [2, 3, 6] {
                for keep in [false, true] {
                    let cpu = split::split(&x, len, count, slices, prec, keep);
                    let gpu =
                        mpblas::ozaki::gpu::ozaki1_split(&dev, &x, len, count, slices, prec, keep)
                            .unwrap();
                    assert_eq!(gpu.slices.len(), cpu.slices.len());
                    assert_eq!(gpu.remainders.len(), cpu.remainders.len());
                    for (s, t) in gpu
                        .slices
                        .iter()
                        .chain(&gpu.remainders)
                        .zip(cpu.slices.iter().chain(&cpu.remainders))
                    {
                        assert_eq!(s.exps, t.exps, "{len}x{count} {prec:?} s {slices}");
                        assert!(
                            s.values
                                .iter()
                                .zip(&t.values)
                                .all(|(a, b)| a.to_bits() == b.to_bits()),
                            "{len}x{count} {prec:?} s {slices} keep {keep}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn ozaki1_agrees_with_cpu() {
    let dev = device();
    for (ta, tb) in [
        (Trans::No, Trans::No),
        (Trans::Yes, Trans::No),
        (Trans::No, Trans::Yes),
    ] {
        let mut cs = case(ta, tb, 67, 45, 129, 1.0, 21);
        *cs.a_at(3, 4) = f64::NAN;
        let absab = |i: usize, j: usize, cs: &mut Case| -> f64 {
            (0..cs.k)
                .map(|l| (*cs.a_at(i, l) * *cs.b_at(l, j)).abs())
                .sum()
        };
        for (s, prec, acc, tol) in [
            (3, SliceGemm::F32, Accumulate::F64, 2f64.powi(-30)),
            (6, SliceGemm::F32, Accumulate::Dd, 2f64.powi(-50)),
            (3, SliceGemm::F64, Accumulate::F64, 2f64.powi(-50)),
        ] {
            let p = Ozaki1Params {
                slices: s,
                products: Products::Triangular,
                slice_gemm: prec,
                accumulate: acc,
                guard: ozaki::OzakiGuard::NormwiseFast, // the schemes themselves; the guard is tested below
            };
            let mut cpu_c = cs.c.clone();
            ozaki::ozaki1_gemm_blas(
                cs.ta, cs.tb, cs.m, cs.n, cs.k, 1.0, &cs.a, cs.lda, &cs.b, cs.ldb, 0.5, &mut cpu_c,
                cs.ldc, &p,
            )
            .unwrap();
            let a = dev.upload_f64(&cs.a).unwrap();
            let b = dev.upload_f64(&cs.b).unwrap();
            let mut c = dev.upload_f64(&cs.c).unwrap();
            mpblas::ozaki::gpu::ozaki1_gemm_blas(
                &dev, cs.ta, cs.tb, cs.m, cs.n, cs.k, 1.0, &a, cs.lda, &b, cs.ldb, 0.5, &mut c,
                cs.ldc, &p,
            )
            .unwrap();
            let gpu_c = c.download().unwrap();
            for j in 0..cs.n {
                for i in 0..cs.m {
                    let idx = i + j * cs.ldc;
                    let (g, h) = (gpu_c[idx], cpu_c[idx]);
                    if i == 3 {
                        assert!(same(g, h), "NaN row: {g} vs {h}");
                        continue;
                    }
                    let scale = absab(i, j, &mut cs) + 0.5 * cs.c[idx].abs();
                    assert!(
                        (g - h).abs() <= tol * scale,
                        "{p:?} ({i},{j}): {g:e} vs {h:e}"
                    );
                }
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn errors_and_quick_returns() {
    let dev = device();
    let a = dev.upload_f64(&[1.0; 12]).unwrap();
    let b = dev.upload_f64(&[1.0; 12]).unwrap();
    let mut c = dev.upload_f64(&[3.0; 12]).unwrap();
    let p = Ozaki2Params::default();
    let r = mpblas::ozaki::gpu::ozaki2_gemm_blas(
        &dev,
        Trans::No,
        Trans::No,
        3,
        3,
        3,
        1.0,
        &a,
        2,
        &b,
        3,
        0.0,
        &mut c,
        3,
        &p,
    );
    assert!(
        matches!(r, Err(Error::LeadingDim { arg: "lda", .. })),
        "{r:?}"
    );
    let r = mpblas::ozaki::gpu::ozaki2_gemm_blas(
        &dev,
        Trans::No,
        Trans::No,
        4,
        4,
        4,
        1.0,
        &a,
        4,
        &b,
        4,
        0.0,
        &mut c,
        4,
        &p,
    );
    assert!(
        matches!(r, Err(Error::ArrayTooShort { arg: "a", .. })),
        "{r:?}"
    );
    for nm in [7, 21] {
        let r = mpblas::ozaki::gpu::ozaki2_gemm_blas(
            &dev,
            Trans::No,
            Trans::No,
            3,
            3,
            3,
            1.0,
            &a,
            3,
            &b,
            3,
            0.0,
            &mut c,
            3,
            &p2(nm, Ozaki2Mode::Fast),
        );
        assert!(matches!(r, Err(Error::OutOfRange { .. })), "{r:?}");
    }
    let p1 = Ozaki1Params {
        slices: 9,
        ..Ozaki1Params::default()
    };
    let r = mpblas::ozaki::gpu::ozaki1_gemm_blas(
        &dev,
        Trans::No,
        Trans::No,
        3,
        3,
        3,
        1.0,
        &a,
        3,
        &b,
        3,
        0.0,
        &mut c,
        3,
        &p1,
    );
    assert!(matches!(r, Err(Error::OutOfRange { .. })), "{r:?}");
    // alpha = 0: C = beta C; k = 0 likewise; m = 0: nothing.
    mpblas::ozaki::gpu::ozaki2_gemm_blas(
        &dev,
        Trans::No,
        Trans::No,
        3,
        3,
        3,
        0.0,
        &a,
        3,
        &b,
        3,
        2.0,
        &mut c,
        3,
        &p,
    )
    .unwrap();
    assert_eq!(c.download().unwrap()[..9], [6.0; 9]);
    mpblas::ozaki::gpu::ozaki2_gemm_blas(
        &dev,
        Trans::No,
        Trans::No,
        3,
        3,
        0,
        1.0,
        &a,
        3,
        &b,
        1,
        0.0,
        &mut c,
        3,
        &p,
    )
    .unwrap();
    assert_eq!(c.download().unwrap()[..9], [0.0; 9]);
    assert_eq!(c.download().unwrap()[9..], [3.0; 3]);
    mpblas::ozaki::gpu::ozaki2_gemm_blas(
        &dev,
        Trans::No,
        Trans::No,
        0,
        3,
        3,
        1.0,
        &a,
        1,
        &b,
        3,
        0.0,
        &mut c,
        1,
        &p,
    )
    .unwrap();
    // DGEMM agrees with a plain CPU product on small integers (exact).
    let mut c = dev.upload_f64(&[0.0; 9]).unwrap();
    let av: Vec<f64> = (0..9).map(|x| x as f64).collect();
    let ad = dev.upload_f64(&av).unwrap();
    cuda::dgemm_blas(
        &dev,
        Trans::Yes,
        Trans::No,
        3,
        3,
        3,
        1.0,
        &ad,
        3,
        &ad,
        3,
        0.0,
        &mut c,
        3,
    )
    .unwrap();
    let got = c.download().unwrap();
    for j in 0..3 {
        for i in 0..3 {
            let want: f64 = (0..3).map(|l| av[l + i * 3] * av[l + j * 3]).sum();
            assert_eq!(got[i + j * 3], want);
        }
    }
    let _ = Dd::ZERO;
    let _: Option<DeviceVec<f64>> = None;
}

/// Device views: a block of a larger matrix, a transposed operand and an offset output give
/// the bits of the CPU call on the same views; a row-major output is refused by name.
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn device_views_equal_cpu_views() {
    use mpblas::cuda::DeviceMatMut;
    use mpblas::view::{MatMut, MatRef};
    let dev = device();
    let (big_m, big_k) = (40, 70);
    let big = paper_matrix(big_m, big_k, 2.0, 11);
    let (m, n, k) = (17, 13, 33);
    let bt = paper_matrix(n, k, 2.0, 12); // B stored transposed
    let c0 = paper_matrix(m + 5, n, 1.0, 13); // C is rows 5.. of a taller matrix
    let p = Ozaki2Params::default();
    let mut want = c0.clone();
    ozaki::ozaki2_gemm(
        0.75,
        MatRef::col_major(&big, big_m, big_k, big_m)
            .unwrap()
            .block(4, 9, m, k)
            .unwrap(),
        MatRef::col_major(&bt, n, k, n).unwrap().t(),
        2.0,
        MatMut::col_major(&mut want, m + 5, n, m + 5)
            .unwrap()
            .block(5, 0, m, n)
            .unwrap(),
        &p,
    )
    .unwrap();
    let (bigd, btd) = (dev.upload_f64(&big).unwrap(), dev.upload_f64(&bt).unwrap());
    let mut cd = dev.upload_f64(&c0).unwrap();
    mpblas::ozaki::gpu::ozaki2_gemm(
        &dev,
        0.75,
        DeviceMatRef::col_major(&bigd, big_m, big_k, big_m)
            .unwrap()
            .block(4, 9, m, k)
            .unwrap(),
        DeviceMatRef::col_major(&btd, n, k, n).unwrap().t(),
        2.0,
        DeviceMatMut::col_major(&mut cd, m + 5, n, m + 5)
            .unwrap()
            .block(5, 0, m, n)
            .unwrap(),
        &p,
    )
    .unwrap();
    let got = cd.download().unwrap();
    for (g, w) in got.iter().zip(&want) {
        assert!(same(*g, *w), "{g} vs {w}");
    }
    // C must be column-major on the GPU: a transposed output is an error, C untouched.
    let r = mpblas::ozaki::gpu::ozaki2_gemm(
        &dev,
        1.0,
        DeviceMatRef::col_major(&btd, n, k, n).unwrap(),
        DeviceMatRef::col_major(&btd, n, k, n).unwrap().t(),
        0.0,
        DeviceMatMut::col_major(&mut cd, n, n, n).unwrap().t(),
        &p,
    );
    assert!(
        matches!(r, Err(Error::InvalidView { arg: "c", .. })),
        "{r:?}"
    );
}

/// Issue 11: scheme I on the GPU under its default guard meets DGEMM's componentwise bound
/// (against exact products) on inputs spread over 2^±600 inside rows and columns, near
/// overflow, and on the reproducers, for the paper's `f32` slices and for `f64`
/// slices; its report counts what it recomputed.
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn ozaki1_guard_meets_the_dgemm_bound() {
    use mpblas::exact::ExactDot;
    let dev = device();
    let mut g = SplitMix64::new(0x11_0020);
    let val = |g: &mut SplitMix64, e: i32| {
        let s = if g.next_u64() & 1 == 0 { 1.0 } else { -1.0 };
        s * (1.0 + g.uniform()) * 2f64.powi(e)
    };
    let f64_slices = Ozaki1Params {
        slices: 4,
        products: Products::Triangular,
        slice_gemm: SliceGemm::F64,
        accumulate: Accumulate::Dd,
        guard: ozaki::OzakiGuard::Componentwise,
    };
    let u = f64::EPSILON / 2.0;
    for kind in 0..3 {
        let (m, n, k) = (21, 19, 90);
        let a: Vec<f64> = (0..m * k)
            .map(|_| {
                let r = g.next_u64();
                match kind {
                    0 => val(&mut g, (r % 1201) as i32 - 600),
                    1 => val(&mut g, 1000 + (r % 20) as i32),
                    _ => val(&mut g, (r % 10) as i32),
                }
            })
            .collect();
        let b: Vec<f64> = (0..k * n)
            .map(|_| {
                let r = g.next_u64();
                match kind {
                    0 => val(&mut g, (r % 1201) as i32 - 600),
                    1 => val(&mut g, -1030 + (r % 20) as i32),
                    _ => val(&mut g, (r % 10) as i32),
                }
            })
            .collect();
        let ad = dev.upload_f64(&a).unwrap();
        let bd = dev.upload_f64(&b).unwrap();
        for p in [Ozaki1Params::default(), f64_slices] {
            let mut cd = dev.upload_f64(&vec![0.0; m * n]).unwrap();
            let rep = mpblas::ozaki::gpu::ozaki1_gemm_blas(
                &dev,
                Trans::No,
                Trans::No,
                m,
                n,
                k,
                1.0,
                &ad,
                m,
                &bd,
                k,
                0.0,
                &mut cd,
                m,
                &p,
            )
            .expect("gpu ozaki1");
            let c = cd.download().unwrap();
            assert_eq!(rep.entries, m * n);
            let kf = (k + 1) as f64;
            let gamma = kf * u / (1.0 - kf * u);
            for j in 0..n {
                for i in 0..m {
                    let mut exact = ExactDot::new();
                    let mut abs = ExactDot::new();
                    for l in 0..k {
                        exact.add_product(a[i + l * m], b[l + j * k]);
                        abs.add_product(a[i + l * m].abs(), b[l + j * k].abs());
                    }
                    if !exact.to_f64().is_finite() {
                        continue;
                    }
                    let got = c[i + j * m];
                    let mut d = exact.clone();
                    d.add(-got);
                    let err = d.to_f64().abs();
                    let bound = gamma * abs.to_f64() * (1.0 + 4.0 * u) + kf * f64::from_bits(1);
                    assert!(
                        got.is_finite() && err <= bound,
                        "kind {kind} {:?}: ({i},{j}) = {got:e}, error {err:e} > {bound:e}",
                        p.slice_gemm
                    );
                }
            }
            eprintln!(
                "scheme I guard kind {kind} {:?}: recomputed {} of {}",
                p.slice_gemm,
                rep.guard_recomputed,
                m * n
            );
        }
    }
    // the reproducers
    for (a, b, want) in [
        ([1e300, 1.0], [1e-300, 1e300], 1e300),
        ([1e20, 1.0], [1e-20, 1e20], 1e20 + 1.0),
    ] {
        let ad = dev.upload_f64(&a).unwrap();
        let bd = dev.upload_f64(&b).unwrap();
        let mut cd = dev.upload_f64(&[0.0]).unwrap();
        mpblas::ozaki::gpu::ozaki1_gemm_blas(
            &dev,
            Trans::No,
            Trans::No,
            1,
            1,
            2,
            1.0,
            &ad,
            1,
            &bd,
            2,
            0.0,
            &mut cd,
            1,
            &Ozaki1Params::default(),
        )
        .unwrap();
        assert_eq!(cd.download().unwrap()[0], want);
    }
}
