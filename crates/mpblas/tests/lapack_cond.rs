//! Condition estimates (`lapack::gecon`) and per-solution error bounds (`lapack::solve_bounds`,
//! and the report of `lapack::gesv_refined`) against 512-bit MPFR references: the exact
//! condition numbers `‖A‖·‖A⁻¹‖` (1-norm and ∞-norm) from an MPFR inverse of the matrix each
//! format holds, and the exact solutions of the systems each format solves.
//!
//! - `gecon`: random matrices of orders 1..40, Hilbert matrices of orders 4..12 and matrices of
//!   prescribed condition (`U·diag(σ)·Vᵀ`, Householder `U`, `V`) in `f64`, `Dd` and `Qd`: the
//!   estimate `1/rcond` is at most the true `κ` (times `1 + δ`, `δ` the solves' error,
//!   `κ·n·γ_3n`, plus the `f64` rounding of the estimator; checked where `δ < 1/2`) and at
//!   least `κ/10`; singular factors give 0; NaN or `±∞` give an error; bad shapes are errors.
//! - `solve_bounds`: random and ill-conditioned systems solved by LU in `f64`, `Dd`, `Qd` and
//!   RNS and by refinement (`f64` factors): the true forward error is at most `forward_error`,
//!   and `backward_error` is a small multiple of the format's `u` (within
//!   `gamma(4n + 1, ε)`: the LU solve's `γ_3n` and the residual's `γ_(n+1)`).
//! - `gesv_refined`: its report carries the same numbers (refined and fallback paths), NaN
//!   with `error_bounds: false`.

use mpblas::blas::bounds::gamma;
use mpblas::lapack::{
    Norm, RefineParams, RefinePath, RefineReport, SolveBounds, gecon, gesv_refined, getrf, getrs,
    lange, solve_bounds,
};
use mpblas::rns::{Basis, MpFloat};
use mpblas::view::{MatMut, MatRef, Trans};
use mpblas::{Dd, Error, Qd, Scalar};
use mpblas_testdata::SplitMix64;
use rug::Float;
use std::cmp::Ordering;
use std::sync::Arc;

/// Bits of the references: far beyond every format and condition number here.
const PREC: u32 = 512;
/// `f64`'s unit roundoff: the estimator works in `f64`.
const U64: f64 = f64::EPSILON / 2.0;

fn fl(x: f64) -> Float {
    Float::with_val(PREC, x)
}

/// A format under test, with the conversions to and from the MPFR reference.
trait Format: Scalar {
    /// The value nearest (within the format's `u`) to `x`.
    fn of(x: &Float, ctx: &Self::Ctx) -> Self;
    /// The exact value.
    fn float(&self) -> Float;
}

/// The leading `f64` words of `x` (successive nearest roundings of the remainder).
fn words(x: &Float, count: usize) -> Vec<f64> {
    let mut rest = x.clone();
    (0..count)
        .map(|_| {
            let w = rest.to_f64();
            rest -= w;
            w
        })
        .collect()
}

impl Format for f64 {
    fn of(x: &Float, _: &()) -> f64 {
        x.to_f64()
    }
    fn float(&self) -> Float {
        fl(*self)
    }
}
impl Format for Dd {
    fn of(x: &Float, _: &()) -> Dd {
        let w = words(x, 2);
        Dd::new(w[0], w[1])
    }
    fn float(&self) -> Float {
        fl(self.hi) + self.lo
    }
}
impl Format for Qd {
    fn of(x: &Float, _: &()) -> Qd {
        let w = words(x, 4);
        Qd::new(w[0], w[1], w[2], w[3])
    }
    fn float(&self) -> Float {
        self.c.iter().fold(fl(0.0), |s, &w| s + w)
    }
}
impl Format for MpFloat {
    fn of(x: &Float, basis: &Arc<Basis>) -> MpFloat {
        MpFloat::from_rug(basis, x)
    }
    fn float(&self) -> Float {
        Float::with_val(PREC, self.to_rug())
    }
}

fn to_format<T: Format>(m: &[Float], ctx: &T::Ctx) -> Vec<T> {
    m.iter().map(|v| T::of(v, ctx)).collect()
}

fn to_float<T: Format>(m: &[T]) -> Vec<Float> {
    m.iter().map(Format::float).collect()
}

// ---- MPFR references -------------------------------------------------------------------------

/// `A⁻¹·B` (`n × n`, `n × nrhs`, column-major) by Gaussian elimination with partial pivoting
/// at [`PREC`] bits.
fn mpfr_solve(a: &[Float], b: &[Float], n: usize, nrhs: usize) -> Vec<Float> {
    let (mut m, mut x) = (a.to_vec(), b.to_vec());
    for k in 0..n {
        let p = (k..n)
            .max_by(|&i, &j| {
                m[i + k * n]
                    .cmp_abs(&m[j + k * n])
                    .unwrap_or(Ordering::Equal)
            })
            .unwrap();
        for j in 0..n {
            m.swap(k + j * n, p + j * n);
        }
        for c in 0..nrhs {
            x.swap(k + c * n, p + c * n);
        }
        assert!(!m[k + k * n].is_zero(), "singular reference");
        for i in k + 1..n {
            let f = Float::with_val(PREC, &m[i + k * n] / &m[k + k * n]);
            for j in k + 1..n {
                let t = Float::with_val(PREC, &f * &m[k + j * n]);
                m[i + j * n] -= t;
            }
            for c in 0..nrhs {
                let t = Float::with_val(PREC, &f * &x[k + c * n]);
                x[i + c * n] -= t;
            }
        }
    }
    for c in 0..nrhs {
        for i in (0..n).rev() {
            for j in i + 1..n {
                let t = Float::with_val(PREC, &m[i + j * n] * &x[j + c * n]);
                x[i + c * n] -= t;
            }
            x[i + c * n] /= &m[i + i * n];
        }
    }
    x
}

/// `(‖M‖₁, ‖M‖∞)` of an `n × n` column-major matrix, exactly summed at [`PREC`] bits.
fn mpfr_norms(m: &[Float], n: usize) -> (Float, Float) {
    let sum =
        |idx: &dyn Fn(usize) -> usize| (0..n).fold(fl(0.0), |s, k| s + m[idx(k)].clone().abs());
    let one = (0..n)
        .map(|j| sum(&|i| i + j * n))
        .max_by(|x, y| x.partial_cmp(y).unwrap())
        .unwrap();
    let inf = (0..n)
        .map(|i| sum(&|j| i + j * n))
        .max_by(|x, y| x.partial_cmp(y).unwrap())
        .unwrap();
    (one, inf)
}

/// The exact `(κ₁, κ∞)` of `A` (the values the format holds).
fn true_conditions(a: &[Float], n: usize) -> [f64; 2] {
    let identity: Vec<Float> = (0..n * n)
        .map(|e| fl(if e % n == e / n { 1.0 } else { 0.0 }))
        .collect();
    let inv = mpfr_solve(a, &identity, n, n);
    let (a1, ai) = mpfr_norms(a, n);
    let (v1, vi) = mpfr_norms(&inv, n);
    [(a1 * v1).to_f64(), (ai * vi).to_f64()]
}

// ---- matrices ---------------------------------------------------------------------------------

fn random(n: usize, g: &mut SplitMix64) -> Vec<Float> {
    (0..n * n).map(|_| fl(g.range(-1.0, 1.0))).collect()
}

fn hilbert(n: usize) -> Vec<Float> {
    (0..n * n)
        .map(|e| Float::with_val(PREC, 1) / Float::with_val(PREC, e % n + e / n + 1))
        .collect()
}

/// `x ← H·x` on each column (`left`) or each row of `m` for `H = I − 2vvᵀ/(vᵀv)`.
fn reflect(m: &mut [Float], v: &[Float], n: usize, left: bool) {
    let vv = v
        .iter()
        .fold(fl(0.0), |s, x| s + Float::with_val(PREC, x * x));
    let at = |i: usize, j: usize| if left { i + j * n } else { j + i * n };
    for j in 0..n {
        let d = v.iter().enumerate().fold(fl(0.0), |s, (i, vi)| {
            s + Float::with_val(PREC, vi * &m[at(i, j)])
        });
        let f = Float::with_val(PREC, &d * 2u32) / &vv;
        for (i, vi) in v.iter().enumerate() {
            let t = Float::with_val(PREC, &f * vi);
            m[at(i, j)] -= t;
        }
    }
}

/// `U·diag(σ)·Vᵀ` of order `n` with `σ_i = κ^(−i/(n−1))` (2-norm condition `κ`), `U` and `V`
/// products of three random Householder reflectors.
fn conditioned(n: usize, kappa: f64, g: &mut SplitMix64) -> Vec<Float> {
    let mut a = vec![fl(0.0); n * n];
    for i in 0..n {
        let t = i as f64 / (n - 1).max(1) as f64;
        a[i + i * n] = (fl(kappa).ln() * -t).exp();
    }
    for left in [true, false] {
        for _ in 0..3 {
            let v: Vec<Float> = (0..n).map(|_| fl(g.range(-1.0, 1.0))).collect();
            reflect(&mut a, &v, n, left);
        }
    }
    a
}

// ---- solves -----------------------------------------------------------------------------------

/// `getrf` of a copy: `(lu, ipiv)`, asserting a nonsingular `U`.
fn factor<T: Scalar>(a: &[T], n: usize) -> (Vec<T>, Vec<usize>) {
    let mut lu = a.to_vec();
    let mut ipiv = vec![0; n];
    let info = getrf(MatMut::col_major(&mut lu, n, n, n).unwrap(), &mut ipiv).unwrap();
    assert_eq!(info, None);
    (lu, ipiv)
}

/// `X = A⁻¹·B` with the factors.
fn lu_solve<T: Scalar>(f: &(Vec<T>, Vec<usize>), b: &[T], n: usize, nrhs: usize) -> Vec<T> {
    let mut x = b.to_vec();
    getrs(
        Trans::No,
        MatRef::col_major(&f.0, n, n, n).unwrap(),
        &f.1,
        MatMut::col_major(&mut x, n, nrhs, n).unwrap(),
    )
    .unwrap();
    x
}

fn refine<T: Scalar>(
    a: &[T],
    b: &[T],
    n: usize,
    nrhs: usize,
    params: &RefineParams,
) -> (Vec<T>, RefineReport) {
    let mut x = b.to_vec();
    let r = gesv_refined(
        MatRef::col_major(a, n, n, n).unwrap(),
        MatRef::col_major(b, n, nrhs, n).unwrap(),
        MatMut::col_major(&mut x, n, nrhs, n).unwrap(),
        params,
    )
    .unwrap();
    (x, r)
}

// ---- gecon ------------------------------------------------------------------------------------

/// The extremes of `estimate / true` seen.
struct Ratios {
    label: &'static str,
    low: f64,
    high: f64,
    exact: usize,
    count: usize,
    unchecked_high: usize,
}

impl Ratios {
    fn new(label: &'static str) -> Self {
        Ratios {
            label,
            low: f64::INFINITY,
            high: 0.0,
            exact: 0,
            count: 0,
            unchecked_high: 0,
        }
    }
    fn print(&self) {
        eprintln!(
            "{}: {} estimates, est/true in [{:.3}, {:.6}], {} within 1e-6 of the truth, upper \
             bound unchecked for {} (delta >= 1/2)",
            self.label, self.count, self.low, self.high, self.exact, self.unchecked_high
        );
    }
}

/// Checks `1/gecon` of `A` (rounded into `T`, factored in `T`) against the exact `κ₁`, `κ∞`.
fn check_gecon<T: Format>(m: &[Float], n: usize, ctx: &T::Ctx, ratios: &mut Ratios) {
    let a: Vec<T> = to_format(m, ctx);
    let kappa = true_conditions(&to_float(&a), n);
    let (lu, ipiv) = factor(&a, n);
    let av = MatRef::col_major(&a, n, n, n).unwrap();
    let luv = MatRef::col_major(&lu, n, n, n).unwrap();
    let eps = T::op_error_bound_in(ctx);
    for (norm, want) in [Norm::One, Norm::Inf].into_iter().zip(kappa) {
        let rcond = gecon(norm, luv, &ipiv, lange(norm, av)).unwrap();
        let ratio = (1.0 / rcond) / want;
        // The solves' relative error (Higham Thm 9.4 with growth ≤ n), the f64 rounding of
        // the solves' vectors, of ‖A‖ and of the estimator's sums.
        let delta = want * n as f64 * gamma(3 * n, eps) + gamma(2 * n + 4, U64);
        if delta < 0.5 {
            assert!(
                ratio <= 1.0 + 2.0 * delta,
                "{} n={n} {norm:?}: est {:e} above true {want:e}",
                T::FORMAT,
                1.0 / rcond
            );
        } else {
            ratios.unchecked_high += 1;
        }
        assert!(
            ratio >= 0.1,
            "{} n={n} {norm:?}: est {:e} below true {want:e} / 10",
            T::FORMAT,
            1.0 / rcond
        );
        ratios.low = ratios.low.min(ratio);
        ratios.high = ratios.high.max(ratio);
        ratios.exact += usize::from((ratio - 1.0).abs() < 1e-6);
        ratios.count += 1;
    }
}

#[test]
fn gecon_estimates_random_matrices() {
    let mut g = SplitMix64::new(11);
    let mut r = [
        Ratios::new("random f64"),
        Ratios::new("random dd"),
        Ratios::new("random qd"),
    ];
    for n in 1..=40 {
        let m = random(n, &mut g);
        check_gecon::<f64>(&m, n, &(), &mut r[0]);
        check_gecon::<Dd>(&m, n, &(), &mut r[1]);
        if n % 3 == 1 {
            check_gecon::<Qd>(&m, n, &(), &mut r[2]);
        }
    }
    r.iter().for_each(Ratios::print);
}

#[test]
fn gecon_estimates_ill_conditioned_matrices() {
    let mut r = [
        Ratios::new("hilbert f64"),
        Ratios::new("hilbert dd"),
        Ratios::new("hilbert qd"),
        Ratios::new("prescribed f64"),
        Ratios::new("prescribed dd"),
        Ratios::new("prescribed qd"),
    ];
    for n in 4..=12 {
        let m = hilbert(n);
        check_gecon::<f64>(&m, n, &(), &mut r[0]);
        check_gecon::<Dd>(&m, n, &(), &mut r[1]);
        check_gecon::<Qd>(&m, n, &(), &mut r[2]);
    }
    let mut g = SplitMix64::new(5);
    let n = 20;
    for kappa in [1e2, 1e6, 1e10, 1e13] {
        check_gecon::<f64>(&conditioned(n, kappa, &mut g), n, &(), &mut r[3]);
    }
    for kappa in [1e10, 1e20, 1e28] {
        check_gecon::<Dd>(&conditioned(n, kappa, &mut g), n, &(), &mut r[4]);
    }
    for kappa in [1e20, 1e40, 1e56] {
        check_gecon::<Qd>(&conditioned(n, kappa, &mut g), n, &(), &mut r[5]);
    }
    r.iter().for_each(Ratios::print);
}

#[test]
fn gecon_conventions_and_errors() {
    // [1 2; 2 4]: the second pivot is exactly 4·(1 − 0.5·... ) = 0.
    let singular = [1.0, 2.0, 2.0, 4.0];
    let (mut lu, mut ipiv) = (singular.to_vec(), vec![0; 2]);
    let info = getrf(MatMut::col_major(&mut lu, 2, 2, 2).unwrap(), &mut ipiv).unwrap();
    assert_eq!(info, Some(1));
    let luv = MatRef::col_major(&lu, 2, 2, 2).unwrap();
    for norm in [Norm::One, Norm::Inf] {
        assert_eq!(gecon(norm, luv, &ipiv, 6.0), Ok(0.0));
    }
    let sd: Vec<Qd> = singular.iter().map(|&v| Qd::from(v)).collect();
    let (mut luq, mut ipq) = (sd.clone(), vec![0; 2]);
    getrf(MatMut::col_major(&mut luq, 2, 2, 2).unwrap(), &mut ipq).unwrap();
    let luqv = MatRef::col_major(&luq, 2, 2, 2).unwrap();
    assert_eq!(gecon(Norm::One, luqv, &ipq, 6.0), Ok(0.0));
    // anorm = 0, n = 0.
    let eye = [1.0, 0.0, 0.0, 1.0];
    let eyev = MatRef::col_major(&eye, 2, 2, 2).unwrap();
    assert_eq!(gecon(Norm::One, eyev, &[0, 1], 0.0), Ok(0.0));
    assert_eq!(gecon(Norm::One, eyev, &[0, 1], 1.0), Ok(1.0));
    let empty: [f64; 0] = [];
    let ev = MatRef::col_major(&empty, 0, 0, 1).unwrap();
    assert_eq!(gecon(Norm::Inf, ev, &[], 0.0), Ok(1.0));
    // NaN and infinities.
    for bad in [f64::NAN, f64::INFINITY, -1.0] {
        let r = gecon(Norm::One, eyev, &[0, 1], bad);
        assert!(
            matches!(r, Err(Error::InvalidNumber { arg: "anorm", .. })),
            "{r:?}"
        );
    }
    for bad in [f64::NAN, f64::NEG_INFINITY] {
        let m = [1.0, bad, 0.0, 1.0];
        let r = gecon(
            Norm::One,
            MatRef::col_major(&m, 2, 2, 2).unwrap(),
            &[0, 1],
            1.0,
        );
        assert!(
            matches!(r, Err(Error::InvalidNumber { arg: "lu", .. })),
            "{r:?}"
        );
        let md: Vec<Dd> = m.iter().map(|&v| Dd::from(v)).collect();
        let r = gecon(
            Norm::Inf,
            MatRef::col_major(&md, 2, 2, 2).unwrap(),
            &[0, 1],
            1.0,
        );
        assert!(matches!(r, Err(Error::InvalidNumber { .. })), "{r:?}");
    }
    assert!(
        lange(
            Norm::One,
            MatRef::col_major(&[1.0, f64::NAN], 2, 1, 2).unwrap()
        )
        .is_nan()
    );
    // Shapes and pivots.
    let wide = [1.0; 6];
    let r = gecon(
        Norm::One,
        MatRef::col_major(&wide, 2, 3, 2).unwrap(),
        &[0, 1],
        1.0,
    );
    assert!(matches!(r, Err(Error::LengthMismatch { .. })), "{r:?}");
    let r = gecon(Norm::One, eyev, &[0], 1.0);
    assert!(
        matches!(r, Err(Error::LengthMismatch { arg: "ipiv", .. })),
        "{r:?}"
    );
    let r = gecon(Norm::One, eyev, &[0, 5], 1.0);
    assert!(matches!(r, Err(Error::OutOfRange { .. })), "{r:?}");
    // lange of a rectangular matrix: [1 −2 3; −4 5 −6] → ‖·‖₁ = 9, ‖·‖∞ = 15.
    let m = [1.0, -4.0, -2.0, 5.0, 3.0, -6.0];
    let mv = MatRef::col_major(&m, 2, 3, 2).unwrap();
    assert_eq!((lange(Norm::One, mv), lange(Norm::Inf, mv)), (9.0, 15.0));
    assert_eq!(lange(Norm::One, ev), 0.0);
}

// ---- solve_bounds -----------------------------------------------------------------------------

/// The worst numbers a family of solves showed.
struct Seen {
    label: String,
    worst_true: f64,
    worst_ferr: f64,
    /// Smallest and largest `forward_error / true error`.
    over: (f64, f64),
    worst_berr_units: f64,
}

/// Checks the bounds of `X` (in `T`) solving `A·X = B` with the factors `(lu, ipiv)` (in `F`):
/// the true forward error (against MPFR) at most `forward_error`, `backward_error` within
/// `berr_tol`. Returns the bounds and what was seen.
#[allow(clippy::too_many_arguments)]
fn check_bounds<T: Format, F: Scalar>(
    label: &str,
    (a, b, x): (&[T], &[T], &[T]),
    (lu, ipiv): (&[F], &[usize]),
    n: usize,
    nrhs: usize,
    berr_tol: f64,
) -> (Vec<SolveBounds>, Seen) {
    let bounds = solve_bounds(
        MatRef::col_major(a, n, n, n).unwrap(),
        MatRef::col_major(lu, n, n, n).unwrap(),
        ipiv,
        MatRef::col_major(b, n, nrhs, n).unwrap(),
        MatRef::col_major(x, n, nrhs, n).unwrap(),
    )
    .unwrap();
    assert_eq!(bounds.len(), nrhs);
    let want = mpfr_solve(&to_float(a), &to_float(b), n, nrhs);
    let u = T::unit_roundoff_in(&a[0].ctx());
    let mut seen = Seen {
        label: label.to_string(),
        worst_true: 0.0,
        worst_ferr: 0.0,
        over: (f64::INFINITY, 0.0),
        worst_berr_units: 0.0,
    };
    for (c, bd) in bounds.iter().enumerate() {
        let col = c * n..(c + 1) * n;
        let xf = to_float(&x[col.clone()]);
        let err = xf
            .iter()
            .zip(&want[col])
            .map(|(xi, wi)| Float::with_val(PREC, xi - wi).abs().to_f64())
            .fold(0.0, f64::max);
        let xn = xf.iter().map(|v| v.to_f64().abs()).fold(0.0, f64::max);
        let true_err = err / xn;
        assert!(
            true_err <= bd.forward_error,
            "{label} col {c}: true error {true_err:e} above the bound {:e}",
            bd.forward_error
        );
        assert!(
            bd.backward_error <= berr_tol,
            "{label} col {c}: backward error {:e} = {:.1} u above {berr_tol:e}",
            bd.backward_error,
            bd.backward_error / u
        );
        seen.worst_true = seen.worst_true.max(true_err);
        seen.worst_ferr = seen.worst_ferr.max(bd.forward_error);
        let over = bd.forward_error / true_err;
        seen.over = (seen.over.0.min(over), seen.over.1.max(over));
        seen.worst_berr_units = seen.worst_berr_units.max(bd.backward_error / u);
    }
    eprintln!(
        "{}: true error <= {:.2e}, forward_error <= {:.2e} (ferr/true in [{:.1}, {:.1e}]), \
         backward error <= {:.2} u",
        seen.label,
        seen.worst_true,
        seen.worst_ferr,
        seen.over.0,
        seen.over.1,
        seen.worst_berr_units
    );
    (bounds, seen)
}

/// The backward error a backward-stable LU solve keeps (and a converged refinement): the
/// solve's `γ_3n` (Higham Thm 9.4) and the residual's `γ_(n+1)`.
fn berr_tol<T: Scalar>(ctx: &T::Ctx, n: usize) -> f64 {
    gamma(4 * n + 1, T::op_error_bound_in(ctx))
}

/// `A·X = B` in `T` solved by `T`'s LU and by refinement; checks both sets of bounds and the
/// refinement's report. `ill` for systems too ill-conditioned for a backward error claim
/// beyond the LU's own.
fn solve_family<T: Format>(label: &str, m: &[Float], n: usize, nrhs: usize, ctx: &T::Ctx) {
    let mut g = SplitMix64::new(n as u64);
    let bm: Vec<Float> = (0..n * nrhs).map(|_| fl(g.range(-1.0, 1.0))).collect();
    let a: Vec<T> = to_format(m, ctx);
    let b: Vec<T> = to_format(&bm, ctx);
    let tol = berr_tol::<T>(ctx, n);
    // T's own LU.
    let f = factor(&a, n);
    let x = lu_solve(&f, &b, n, nrhs);
    check_bounds(
        &format!("{label} {} LU", T::FORMAT),
        (&a, &b, &x),
        (&f.0, &f.1),
        n,
        nrhs,
        tol,
    );
    // Refinement: its report against solve_bounds with the f64 factors of fl64(A).
    let (x, report) = refine(&a, &b, n, nrhs, &RefineParams::default());
    if report.path != RefinePath::Refined {
        eprintln!("{label} {}: refinement {:?}", T::FORMAT, report.path);
        return;
    }
    let a64: Vec<f64> = a.iter().map(Scalar::nearest_f64).collect();
    let f64s = factor(&a64, n);
    let (bounds, _) = check_bounds(
        &format!("{label} {} refined", T::FORMAT),
        (&a, &b, &x),
        (&f64s.0, &f64s.1),
        n,
        nrhs,
        tol,
    );
    let worst = |f: fn(&SolveBounds) -> f64| bounds.iter().map(f).fold(0.0, f64::max);
    assert_eq!(report.backward_error, worst(|s| s.backward_error));
    assert_eq!(report.forward_error, worst(|s| s.forward_error));
    let rcond = gecon(
        Norm::One,
        MatRef::col_major(&f64s.0, n, n, n).unwrap(),
        &f64s.1,
        lange(Norm::One, MatRef::col_major(&a, n, n, n).unwrap()),
    )
    .unwrap();
    assert_eq!(report.rcond, rcond);
}

#[test]
fn forward_error_bounds_hold_for_random_systems() {
    let mut g = SplitMix64::new(21);
    let n = 30;
    let m = random(n, &mut g);
    solve_family::<f64>("random", &m, n, 3, &());
    solve_family::<Dd>("random", &m, n, 3, &());
    solve_family::<Qd>("random", &m, n, 2, &());
    let basis = Basis::new(212).unwrap();
    solve_family::<MpFloat>("random", &random(12, &mut g), 12, 1, &basis);
}

#[test]
fn forward_error_bounds_hold_for_ill_conditioned_systems() {
    let mut g = SplitMix64::new(8);
    let n = 20;
    for kappa in [1e6, 1e12] {
        let m = conditioned(n, kappa, &mut g);
        solve_family::<f64>(&format!("kappa {kappa:.0e}"), &m, n, 2, &());
        solve_family::<Dd>(&format!("kappa {kappa:.0e}"), &m, n, 2, &());
        solve_family::<Qd>(&format!("kappa {kappa:.0e}"), &m, n, 1, &());
    }
    // Beyond f64 factors: T's LU only (the refinement falls back, below).
    let m = conditioned(n, 1e25, &mut g);
    solve_family::<Dd>("kappa 1e25", &m, n, 2, &());
    let m = conditioned(n, 1e50, &mut g);
    solve_family::<Qd>("kappa 1e50", &m, n, 1, &());
    for k in [8, 10] {
        solve_family::<Dd>(&format!("hilbert {k}"), &hilbert(k), k, 2, &());
    }
}

#[test]
fn refinement_reports_its_bounds() {
    // Refined: finite, small; 1/rcond near the true κ₁.
    let n = 10;
    let m = hilbert(n);
    let a: Vec<Dd> = to_format(&m, &());
    let b: Vec<Dd> = (0..n).map(|i| Dd::from(i as f64 + 1.0)).collect();
    let (_, r) = refine(&a, &b, n, 1, &RefineParams::default());
    eprintln!("hilbert 10 dd refined: {r:?}");
    assert_eq!(r.path, RefinePath::Refined);
    let [k1, _] = true_conditions(&to_float(&a), n);
    let ratio = (1.0 / r.rcond) / k1;
    assert!((0.1..=1.01).contains(&ratio), "1/rcond / κ₁ = {ratio}");
    assert!(r.backward_error <= berr_tol::<Dd>(&(), n), "{r:?}");
    assert!(
        r.forward_error.is_finite() && r.forward_error < 1e-10,
        "{r:?}"
    );
    // Fallback: Dd's own factors (κ ≈ 1e19 is beyond f64's), the bounds still hold.
    let n = 14;
    let m = hilbert(n);
    let a: Vec<Dd> = to_format(&m, &());
    let b: Vec<Dd> = (0..n).map(|i| Dd::from(i as f64 - 3.0)).collect();
    let (x, r) = refine(&a, &b, n, 1, &RefineParams::default());
    eprintln!("hilbert 14 dd fallback: {r:?}");
    assert_eq!(r.path, RefinePath::Fallback);
    let [k1, _] = true_conditions(&to_float(&a), n);
    let ratio = (1.0 / r.rcond) / k1;
    assert!((0.1..=1.01).contains(&ratio), "1/rcond / κ₁ = {ratio}");
    let want = mpfr_solve(&to_float(&a), &to_float(&b), n, 1);
    let xf = to_float(&x);
    let err = xf
        .iter()
        .zip(&want)
        .map(|(xi, wi)| Float::with_val(PREC, xi - wi).abs().to_f64())
        .fold(0.0, f64::max)
        / xf.iter().map(|v| v.to_f64().abs()).fold(0.0, f64::max);
    eprintln!(
        "  true error {err:.2e}, forward_error {:.2e}",
        r.forward_error
    );
    assert!(
        err <= r.forward_error && r.forward_error < 1e-6,
        "{err:e} {r:?}"
    );
    // Switched off: NaN, the solution unchanged.
    let off = RefineParams {
        error_bounds: false,
        ..RefineParams::default()
    };
    let (x_off, r) = refine(&a, &b, n, 1, &off);
    assert!(r.rcond.is_nan() && r.backward_error.is_nan() && r.forward_error.is_nan());
    assert_eq!(x_off, x);
    // Empty systems compute nothing.
    let (_, r) = refine::<Dd>(&a, &b[..0], n, 0, &RefineParams::default());
    assert!(r.rcond.is_nan());
}

#[test]
fn solve_bounds_edges_and_errors() {
    let a = [2.0, 1.0, 1.0, 3.0];
    let x = [0.0; 2];
    let b = [0.0; 2];
    let v = |d: &'static [f64], r, c| MatRef::col_major(d, r, c, r.max(1)).unwrap();
    let (lu, ipiv) = factor(&a, 2);
    let luv = MatRef::col_major(&lu, 2, 2, 2).unwrap();
    let av = MatRef::col_major(&a, 2, 2, 2).unwrap();
    // b = 0, x = 0: exact, both bounds 0.
    let zero = solve_bounds(av, luv, &ipiv, v(&[0.0; 2], 2, 1), v(&[0.0; 2], 2, 1)).unwrap();
    assert_eq!(
        zero,
        vec![SolveBounds {
            backward_error: 0.0,
            forward_error: 0.0
        }]
    );
    // x = 0 for b ≠ 0: backward error 1 (nothing of b is explained), forward error ∞.
    let r = solve_bounds(av, luv, &ipiv, v(&[1.0, 1.0], 2, 1), v(&[0.0; 2], 2, 1)).unwrap();
    assert_eq!(r[0].backward_error, 1.0);
    assert_eq!(r[0].forward_error, f64::INFINITY);
    // NaN in x: no finite bound.
    let r = solve_bounds(
        av,
        luv,
        &ipiv,
        v(&[1.0, 1.0], 2, 1),
        v(&[f64::NAN, 1.0], 2, 1),
    )
    .unwrap();
    assert!(
        !r[0].backward_error.is_finite() && !r[0].forward_error.is_finite(),
        "{r:?}"
    );
    // Exactly singular factors: no forward bound.
    let s = [1.0, 2.0, 2.0, 4.0];
    let mut ls = s.to_vec();
    let mut ps = vec![0; 2];
    getrf(MatMut::col_major(&mut ls, 2, 2, 2).unwrap(), &mut ps).unwrap();
    let r = solve_bounds(
        MatRef::col_major(&s, 2, 2, 2).unwrap(),
        MatRef::col_major(&ls, 2, 2, 2).unwrap(),
        &ps,
        v(&[1.0, 2.0], 2, 1),
        v(&[1.0, 0.0], 2, 1),
    )
    .unwrap();
    assert_eq!(r[0].forward_error, f64::INFINITY);
    assert_eq!(r[0].backward_error, 0.0);
    // n = 0 and no right-hand side.
    let e: [f64; 0] = [];
    let ev = MatRef::col_major(&e, 0, 0, 1).unwrap();
    let r = solve_bounds(ev, ev, &[], v(&[], 0, 3), v(&[], 0, 3)).unwrap();
    assert_eq!(r.len(), 3);
    assert!(
        r.iter()
            .all(|s| s.backward_error == 0.0 && s.forward_error == 0.0)
    );
    let r = solve_bounds(av, luv, &ipiv, v(&[], 2, 0), v(&[], 2, 0)).unwrap();
    assert!(r.is_empty());
    // Shapes.
    let bv = MatRef::col_major(&b, 2, 1, 2).unwrap();
    let xv = MatRef::col_major(&x, 2, 1, 2).unwrap();
    let wide = [1.0; 6];
    let wv = MatRef::col_major(&wide, 2, 3, 2).unwrap();
    let big = [1.0; 9];
    let bigv = MatRef::col_major(&big, 3, 3, 3).unwrap();
    let cases = [
        solve_bounds(wv, luv, &ipiv, bv, xv),
        solve_bounds(av, wv, &ipiv, bv, xv),
        solve_bounds(av, bigv, &[0, 1, 2], bv, xv),
        solve_bounds(av, luv, &ipiv[..1], bv, xv),
        solve_bounds(av, luv, &ipiv, wv.block(0, 0, 1, 1).unwrap(), xv),
        solve_bounds(av, luv, &ipiv, bv, wv),
    ];
    for r in cases {
        assert!(matches!(r, Err(Error::LengthMismatch { .. })), "{r:?}");
    }
    let r = solve_bounds(av, luv, &[1, 0], bv, xv);
    assert!(matches!(r, Err(Error::OutOfRange { .. })), "{r:?}");
    // RNS operands of different bases.
    let (b1, b2) = (Basis::new(106).unwrap(), Basis::new(212).unwrap());
    let ar: Vec<MpFloat> = a.iter().map(|&v| MpFloat::from_f64(&b1, v)).collect();
    let xr: Vec<MpFloat> = x.iter().map(|&v| MpFloat::from_f64(&b2, v)).collect();
    let r = solve_bounds(
        MatRef::col_major(&ar, 2, 2, 2).unwrap(),
        luv,
        &ipiv,
        MatRef::col_major(&ar[..2], 2, 1, 2).unwrap(),
        MatRef::col_major(&xr, 2, 1, 2).unwrap(),
    );
    assert!(matches!(r, Err(Error::BasisMismatch { .. })), "{r:?}");
}
