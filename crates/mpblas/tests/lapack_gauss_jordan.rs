//! Gauss–Jordan elimination (`lapack::gesv_gauss_jordan`, the QD paper's solver) in `f64`, `Dd`
//! and `Qd` against an 848-bit RNS solve of the same (exactly converted) system: within
//! `c·n·u·κ∞(A)` (the forward bound of Higham §14.4 with `κ∞` from `gecon` on the RNS factors)
//! on random matrices and Hilbert matrices; the same bits in pools of 1 and 4 threads; singular
//! matrices and bad shapes are errors.

use mpblas::lapack::{Norm, gecon, gesv, gesv_gauss_jordan, lange};
use mpblas::rns::{Basis, MpFloat};
use mpblas::view::{MatMut, MatRef};
use mpblas::{Dd, Error, Qd, Scalar};
use mpblas_testdata::SplitMix64;

/// The 848-bit values of `v` (exact).
fn mp(basis: &std::sync::Arc<Basis>, v: f64) -> MpFloat {
    MpFloat::from_f64(basis, v)
}

/// Gauss–Jordan in `T` of the `f64` system `(a, b)`: the largest `|x − x*|∞ / |x*|∞` against the
/// 848-bit RNS LU solution, and `κ∞(A)` estimated from the RNS factors.
fn gj_error<T: Scalar<Ctx = ()>>(
    a: &[f64],
    b: &[f64],
    n: usize,
    words: impl Fn(&T) -> Vec<f64>,
) -> (f64, f64) {
    let mut at: Vec<T> = a.iter().map(|&v| T::from_f64_in(&(), v)).collect();
    let mut x: Vec<T> = b.iter().map(|&v| T::from_f64_in(&(), v)).collect();
    gesv_gauss_jordan(
        MatMut::col_major(&mut at, n, n, n).unwrap(),
        MatMut::col_major(&mut x, n, 1, n).unwrap(),
    )
    .unwrap();
    let basis = Basis::new(848).unwrap();
    let am: Vec<MpFloat> = a.iter().map(|&v| mp(&basis, v)).collect();
    let mut lu = am.clone();
    let mut want: Vec<MpFloat> = b.iter().map(|&v| mp(&basis, v)).collect();
    let mut ipiv = vec![0; n];
    gesv(
        MatMut::col_major(&mut lu, n, n, n).unwrap(),
        &mut ipiv,
        MatMut::col_major(&mut want, n, 1, n).unwrap(),
    )
    .unwrap();
    let anorm = lange(Norm::Inf, MatRef::col_major(&am, n, n, n).unwrap());
    let rcond = gecon(
        Norm::Inf,
        MatRef::col_major(&lu, n, n, n).unwrap(),
        &ipiv,
        anorm,
    )
    .unwrap();
    let (mut e, mut s) = (0.0f64, 0.0f64);
    for i in 0..n {
        let mut d = want[i].clone().neg();
        for w in words(&x[i]) {
            d = &d + &mp(&basis, w);
        }
        e = e.max(d.to_f64().abs());
        s = s.max(want[i].to_f64().abs());
    }
    (e / s, 1.0 / rcond)
}

fn check_all(a: &[f64], b: &[f64], n: usize, what: &str) {
    let cases: [(&str, f64, (f64, f64)); 3] = [
        (
            "f64",
            2f64.powi(-53),
            gj_error::<f64>(a, b, n, |v| vec![*v]),
        ),
        (
            "dd",
            2f64.powi(-104),
            gj_error::<Dd>(a, b, n, |v| vec![v.hi, v.lo]),
        ),
        (
            "qd",
            2f64.powi(-209),
            gj_error::<Qd>(a, b, n, |v| v.c.to_vec()),
        ),
    ];
    for (fmt, u, (err, kappa)) in cases {
        let tol = 10.0 * n as f64 * u * kappa;
        assert!(
            err <= tol,
            "{what} {fmt}: error {err:e} above {tol:e} (κ∞ {kappa:.1e})"
        );
        eprintln!("{what} {fmt}: error {err:.1e}, bound {tol:.1e}");
    }
}

#[test]
fn gauss_jordan_is_forward_accurate_in_every_format() {
    let mut g = SplitMix64::new(0x6a);
    for n in [1, 7, 40] {
        let a: Vec<f64> = (0..n * n).map(|_| g.range(-1.0, 1.0)).collect();
        let b: Vec<f64> = (0..n).map(|_| g.range(-1.0, 1.0)).collect();
        check_all(&a, &b, n, &format!("random {n}"));
    }
    let n = 8;
    let h: Vec<f64> = (0..n * n)
        .map(|e| 1.0 / (e % n + e / n + 1) as f64)
        .collect();
    let b: Vec<f64> = (0..n).map(|i| 1.0 + i as f64).collect();
    check_all(&h, &b, n, "hilbert 8");
}

#[test]
fn same_bits_for_any_thread_count_and_errors() {
    let mut g = SplitMix64::new(0x6b);
    let n = 60;
    let a: Vec<Qd> = (0..n * n).map(|_| Qd::from(g.range(-1.0, 1.0))).collect();
    let b: Vec<Qd> = (0..2 * n).map(|_| Qd::from(g.range(-1.0, 1.0))).collect();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let (mut at, mut x) = (a.clone(), b.clone());
            gesv_gauss_jordan(
                MatMut::col_major(&mut at, n, n, n).unwrap(),
                MatMut::col_major(&mut x, n, 2, n).unwrap(),
            )
            .unwrap();
            x
        })
    };
    assert_eq!(run(1), run(4));
    // A zero column: Singular at it; shapes.
    let mut s: Vec<Dd> = (0..16).map(|_| Dd::from(g.range(-1.0, 1.0))).collect();
    for i in 0..4 {
        s[i + 4] = Dd::ZERO;
    }
    let mut x = vec![Dd::ONE; 4];
    let r = gesv_gauss_jordan(
        MatMut::col_major(&mut s, 4, 4, 4).unwrap(),
        MatMut::col_major(&mut x, 4, 1, 4).unwrap(),
    );
    assert!(matches!(r, Err(Error::Singular { column: 1 })), "{r:?}");
    let r = gesv_gauss_jordan(
        MatMut::col_major(&mut s[..12], 4, 3, 4).unwrap(),
        MatMut::col_major(&mut x, 4, 1, 4).unwrap(),
    );
    assert!(matches!(r, Err(Error::LengthMismatch { .. })), "{r:?}");
}
