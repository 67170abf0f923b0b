//! Mixed-precision iterative refinement (`lapack::gesv_refined`): `f64` factors with residuals
//! in `Dd` and `Qd` reach the extended format's accuracy for the conditioning — against a solve
//! in a wider format (Qd for Dd, 848-bit RNS for Qd) — on a random matrix and a Hilbert matrix
//! (κ ≈ 1.5e10); a Hilbert matrix of order 14 (κ ≈ 1e19, beyond `f64` factors) falls back to
//! the extended LU and says so; errors for bad shapes and singular matrices.

use mpblas::lapack::{RefineParams, RefinePath, gesv, gesv_refined};
use mpblas::rns::{Basis, MpFloat};
use mpblas::view::{MatMut, MatRef};
use mpblas::{Dd, Error, Qd, Scalar};
use mpblas_testdata::SplitMix64;

fn hilbert(n: usize) -> Vec<f64> {
    (0..n * n)
        .map(|e| 1.0 / ((e % n + e / n + 1) as f64))
        .collect()
}

fn random(n: usize, g: &mut SplitMix64) -> Vec<f64> {
    (0..n * n).map(|_| g.range(-1.0, 1.0)).collect()
}

/// `gesv` in `W` on the same values (converted exactly by `up`), as the reference.
fn reference<W: Scalar>(a: &[W], b: &[W], n: usize, nrhs: usize) -> Vec<W> {
    let (mut lu, mut x) = (a.to_vec(), b.to_vec());
    let mut ipiv = vec![0; n];
    gesv(
        MatMut::col_major(&mut lu, n, n, n).unwrap(),
        &mut ipiv,
        MatMut::col_major(&mut x, n, nrhs, n).unwrap(),
    )
    .unwrap();
    x
}

/// Refines in `T`, checks the path, and returns the largest `|x − x_ref|∞ / |x_ref|∞` per
/// column.
fn refine<T: Scalar>(a: &[T], b: &[T], n: usize, nrhs: usize) -> (Vec<T>, RefinePath, usize) {
    let mut x = b.to_vec();
    let r = gesv_refined(
        MatRef::col_major(a, n, n, n).unwrap(),
        MatRef::col_major(b, n, nrhs, n).unwrap(),
        MatMut::col_major(&mut x, n, nrhs, n).unwrap(),
        &RefineParams::default(),
    )
    .unwrap();
    eprintln!("{} n={n}: {r:?}", T::FORMAT);
    (x, r.path, r.iterations)
}

#[test]
fn dd_refinement_reaches_dd_accuracy() {
    let mut g = SplitMix64::new(3);
    for (a64, kappa, n) in [(random(40, &mut g), 1e3, 40), (hilbert(8), 1.6e10, 8)] {
        let nrhs = 2;
        let b64: Vec<f64> = (0..n * nrhs).map(|_| g.range(-1.0, 1.0)).collect();
        let a: Vec<Dd> = a64.iter().map(|&v| Dd::from(v)).collect();
        let b: Vec<Dd> = b64.iter().map(|&v| Dd::from(v)).collect();
        let (x, path, iters) = refine(&a, &b, n, nrhs);
        assert_eq!(path, RefinePath::Refined);
        assert!(iters <= 8, "{iters}");
        let aq: Vec<Qd> = a64.iter().map(|&v| Qd::from(v)).collect();
        let bq: Vec<Qd> = b64.iter().map(|&v| Qd::from(v)).collect();
        let xq = reference(&aq, &bq, n, nrhs);
        // The error of x against the Qd solve, in Qd, relative to |x|∞, per column.
        for c in 0..nrhs {
            let diff: Vec<f64> = (0..n)
                .map(|i| (Qd::from(x[i + c * n]) - xq[i + c * n]).nearest_f64())
                .collect();
            let xr: Vec<f64> = (0..n).map(|i| xq[i + c * n].nearest_f64()).collect();
            let err = diff.iter().map(|v| v.abs()).fold(0.0, f64::max)
                / xr.iter().map(|v| v.abs()).fold(0.0, f64::max);
            let tol = 100.0 * n as f64 * kappa * 2f64.powi(-104);
            eprintln!("dd n={n} col {c}: rel err {err:.2e} (tolerance {tol:.1e})");
            assert!(err <= tol, "dd n={n}: {err:e} > {tol:e}");
        }
    }
}

#[test]
fn qd_refinement_reaches_qd_accuracy() {
    let n = 8;
    let a64 = hilbert(n);
    let b64: Vec<f64> = (0..n).map(|i| 1.0 + i as f64).collect();
    let a: Vec<Qd> = a64.iter().map(|&v| Qd::from(v)).collect();
    let b: Vec<Qd> = b64.iter().map(|&v| Qd::from(v)).collect();
    let (x, path, _) = refine(&a, &b, n, 1);
    assert_eq!(path, RefinePath::Refined);
    let basis = Basis::new(848).unwrap();
    let am: Vec<MpFloat> = a64.iter().map(|&v| MpFloat::from_f64(&basis, v)).collect();
    let bm: Vec<MpFloat> = b64.iter().map(|&v| MpFloat::from_f64(&basis, v)).collect();
    let xm = reference(&am, &bm, n, 1);
    let xnorm = xm.iter().map(|v| v.to_f64().abs()).fold(0.0, f64::max);
    for i in 0..n {
        // x_i − xm_i in the 848-bit format (each Qd word exactly).
        let mut d = xm[i].clone().neg();
        for w in x[i].c {
            d = &d + &MpFloat::from_f64(&basis, w);
        }
        let err = d.to_f64().abs() / xnorm;
        let tol = 100.0 * n as f64 * 1.6e10 * 2f64.powi(-209);
        assert!(err <= tol, "qd x[{i}]: {err:e} > {tol:e}");
    }
}

#[test]
fn ill_conditioned_systems_fall_back_and_errors_are_reported() {
    let n = 14;
    let a: Vec<Dd> = hilbert(n).iter().map(|&v| Dd::from(v)).collect();
    let b: Vec<Dd> = (0..n).map(|i| Dd::from(i as f64 - 3.0)).collect();
    let (x, path, _) = refine(&a, &b, n, 1);
    assert_eq!(path, RefinePath::Fallback);
    let want = reference(&a, &b, n, 1);
    assert_eq!(x, want, "the fallback is Dd's gesv");
    // No fallback: the last iterate, NotConverged.
    let mut x = b.clone();
    let r = gesv_refined(
        MatRef::col_major(&a, n, n, n).unwrap(),
        MatRef::col_major(&b, n, 1, n).unwrap(),
        MatMut::col_major(&mut x, n, 1, n).unwrap(),
        &RefineParams {
            fallback: false,
            ..RefineParams::default()
        },
    )
    .unwrap();
    assert_eq!(r.path, RefinePath::NotConverged);
    // Singular A, bad shapes.
    let z = vec![Dd::ZERO; 4];
    let mut x = vec![Dd::ZERO; 2];
    let r = gesv_refined(
        MatRef::col_major(&z, 2, 2, 2).unwrap(),
        MatRef::col_major(&z[..2], 2, 1, 2).unwrap(),
        MatMut::col_major(&mut x, 2, 1, 2).unwrap(),
        &RefineParams::default(),
    );
    assert!(matches!(r, Err(Error::Singular { .. })), "{r:?}");
    let r = gesv_refined(
        MatRef::col_major(&z[..3], 3, 1, 3).unwrap(),
        MatRef::col_major(&z[..2], 2, 1, 2).unwrap(),
        MatMut::col_major(&mut x, 2, 1, 2).unwrap(),
        &RefineParams::default(),
    );
    assert!(matches!(r, Err(Error::LengthMismatch { .. })), "{r:?}");
}
