//! Issue 15: Ozaki scheme II to quad-double (`ozaki2_gemm_qd`), `f64` operands, `Qd` result,
//! against exact products ([`ExactDot`]): entries of exactly converted rows and columns within
//! `10u·|(AB)_ij| + 2^-270·‖a_i‖‖b_j‖` (`u = 2^-212`: the exact product rounded once), the others
//! (rows spread over `2^±300`) recomputed and within `4k·u·(|A||B|)_ij + 8k·2^-1074`; the
//! residual use (`β = 1` cancelling `AB`); NaN and ±∞ rows as IEEE says; the quick returns.

use mpblas::exact::ExactDot;
use mpblas::ozaki::{Ozaki2Report, ozaki2_gemm_qd};
use mpblas::view::{MatMut, MatRef};
use mpblas::{Error, Qd};
use mpblas_testdata::SplitMix64;

const U: f64 = 1.5192908393215678e-64; // 2^-212

/// `C = α·A·B + β·C0` (column-major, `A` m × k, `B` k × n).
fn run(
    (m, n, k): (usize, usize, usize),
    (alpha, beta): (f64, f64),
    a: &[f64],
    b: &[f64],
    c0: &[Qd],
) -> (Vec<Qd>, Ozaki2Report) {
    let mut c = c0.to_vec();
    let r = ozaki2_gemm_qd(
        alpha,
        MatRef::col_major(a, m, k, m.max(1)).unwrap(),
        MatRef::col_major(b, k, n, k.max(1)).unwrap(),
        beta,
        MatMut::col_major(&mut c, m, n, m.max(1)).unwrap(),
    )
    .expect("ozaki2_gemm_qd");
    (c, r)
}

/// For each entry of `C = A·B + β·C0`: `(error, |exact|, (|A||B|)_ij, ‖a_i‖‖b_j‖)`.
fn errors(
    (m, n, k): (usize, usize, usize),
    a: &[f64],
    b: &[f64],
    (beta, c0): (f64, &[Qd]),
    c: &[Qd],
) -> Vec<(f64, f64, f64, f64)> {
    let mut out = Vec::new();
    for j in 0..n {
        for i in 0..m {
            let mut exact = ExactDot::new();
            let (mut abs, mut na, mut nb) = (0.0f64, 0.0f64, 0.0f64);
            for l in 0..k {
                let (x, y) = (a[i + l * m], b[l + j * k]);
                exact.add_product(x, y);
                abs += (x * y).abs();
                na += x * x;
                nb += y * y;
            }
            if beta != 0.0 {
                for w in c0[i + j * m].c {
                    exact.add_product(beta, w);
                }
            }
            let value = exact.to_f64().abs();
            for w in c[i + j * m].c {
                exact.add(-w);
            }
            let norms = (na.sqrt() * nb.sqrt()) * (1.0 + 1e-12);
            out.push((exact.to_f64().abs(), value, abs * (1.0 + 1e-12), norms));
        }
    }
    out
}

fn uniform(g: &mut SplitMix64, len: usize) -> Vec<f64> {
    (0..len).map(|_| g.range(-1.0, 1.0)).collect()
}

#[test]
fn uniform_data_is_exact_before_the_rounding() {
    let mut g = SplitMix64::new(15);
    for (m, n, k) in [(9, 8, 300), (5, 4, 2400), (3, 3, 1)] {
        let (a, b) = (uniform(&mut g, m * k), uniform(&mut g, k * n));
        let c0 = vec![Qd::ZERO; m * n];
        let (c, r) = run((m, n, k), (1.0, 0.0), &a, &b, &c0);
        assert_eq!((r.entries, r.guard_recomputed), (m * n, 0), "{m}x{n}x{k}");
        let mut worst = 0.0f64;
        for (err, value, _, norms) in errors((m, n, k), &a, &b, (0.0, &c0), &c) {
            let bound = 10.0 * U * value + 2f64.powi(-270) * norms;
            assert!(err <= bound, "{m}x{n}x{k}: {err:e} > {bound:e}");
            worst = worst.max(err / (U * value));
        }
        println!("{m}x{n}x{k}: error up to {worst:.2}u of |AB|");
    }
}

#[test]
fn the_residual_of_a_rounded_product_is_exact() {
    // C0 = −fl_qd(AB), then AB + C0: the rounding error of the first product, which the second
    // must find to its own accuracy although AB and C0 cancel to 2^-212.
    let mut g = SplitMix64::new(16);
    let (m, n, k) = (6, 5, 700);
    let (a, b) = (uniform(&mut g, m * k), uniform(&mut g, k * n));
    let (c1, _) = run((m, n, k), (-1.0, 0.0), &a, &b, &vec![Qd::ZERO; m * n]);
    let (c, r) = run((m, n, k), (1.0, 1.0), &a, &b, &c1);
    assert_eq!(r.guard_recomputed, 0);
    for (err, value, _, norms) in errors((m, n, k), &a, &b, (1.0, &c1), &c) {
        assert!(
            value <= 12.0 * U * norms * k as f64,
            "the residual {value:e} is not tiny"
        );
        assert!(err <= 10.0 * U * value + 2f64.powi(-270) * norms, "{err:e}");
    }
}

#[test]
fn spread_rows_are_recomputed_within_their_bound() {
    let mut g = SplitMix64::new(17);
    let (m, n, k) = (7, 6, 200);
    let spread = |g: &mut SplitMix64, len: usize| -> Vec<f64> {
        (0..len)
            .map(|_| g.range(-1.0, 1.0) * 2f64.powi(g.int(-300, 300) as i32))
            .collect()
    };
    let (a, b) = (spread(&mut g, m * k), spread(&mut g, k * n));
    let c0 = uniform(&mut g, m * n)
        .into_iter()
        .map(Qd::from)
        .collect::<Vec<_>>();
    for (alpha, beta) in [(1.0, 0.0), (-0.5, 3.0)] {
        let (c, r) = run((m, n, k), (alpha, beta), &a, &b, &c0);
        assert!(r.guard_recomputed > 0, "spread rows cannot convert exactly");
        let scaled: Vec<f64> = a.iter().map(|x| x * alpha).collect();
        for (idx, (err, _, abs, _)) in errors((m, n, k), &scaled, &b, (beta, &c0), &c)
            .into_iter()
            .enumerate()
        {
            let bound = 4.0 * (k + 4) as f64 * U * abs + 8.0 * k as f64 * f64::from_bits(1);
            assert!(
                err <= bound,
                "{idx} {alpha} {beta}: {err:e} > {bound:e} {:?}",
                c[idx]
            );
        }
    }
}

#[test]
fn specials_and_quick_returns() {
    let inf = f64::INFINITY;
    // Row 0 holds +inf, row 1 NaN; column 0 of B is finite.
    let a = [inf, f64::NAN, 1.0, 1.0, 1.0, 1.0];
    let b = [1.0, 2.0, 3.0];
    let (c, r) = run((2, 1, 3), (1.0, 0.0), &a, &b, &[Qd::ZERO; 2]);
    assert_eq!(r.non_finite_recomputed, 2);
    assert_eq!(c[0].c[0], inf);
    assert!(c[1].c[0].is_nan());
    // alpha = 0: C ← βC without reading A or B; beta = 0 does not read C.
    let nan = [f64::NAN; 6];
    let c0 = [Qd::from(2.0), Qd::from(-1.0)];
    let (c, r) = run((2, 1, 3), (0.0, 0.5), &nan, &b, &c0);
    assert_eq!((c[0].c[0], c[1].c[0], r.entries), (1.0, -0.5, 0));
    let (c, _) = run(
        (2, 1, 3),
        (1.0, 0.0),
        &[1.0; 6],
        &b,
        &[Qd::from(f64::NAN); 2],
    );
    assert_eq!((c[0].c[0], c[1].c[0]), (6.0, 6.0));
    let (c, _) = run((2, 1, 0), (1.0, 0.0), &[], &[], &[Qd::from(f64::NAN); 2]);
    assert_eq!(c[0].c, [0.0; 4]);
    // Shapes that do not agree.
    let mut c = [Qd::ZERO; 2];
    let err = ozaki2_gemm_qd(
        1.0,
        MatRef::col_major(&a, 2, 3, 2).unwrap(),
        MatRef::col_major(&b, 2, 1, 2).unwrap(),
        0.0,
        MatMut::col_major(&mut c, 2, 1, 2).unwrap(),
    );
    assert!(matches!(err, Err(Error::LengthMismatch { .. })), "{err:?}");
}
