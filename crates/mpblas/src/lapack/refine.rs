//! Mixed-precision iterative refinement (Wilkinson; Moler 1967; Higham §12.1): solve `A·X = B`
//! in an extended format `T` (`Dd`, `Qd`, RNS) at nearly the cost of an `f64` solve.
//!
//! 1. Factor `fl64(A)` in `f64` ([`getrf`]) and solve for `X₀` in `f64`.
//! 2. Repeat: `R = B − A·X` in `T` (the level-3 [`gemm`], in `T`'s precision), solve
//!    `fl64(A)·D = fl64(R)` with the `f64` factors, `X ← X + D` in `T`.
//! 3. Stop when every column's correction is below `n·u_T` relative to the column
//!    (`‖d‖∞ ≤ n·u_T·‖x‖∞`), or when a correction fails to shrink by half: converged if the
//!    corrections had already fallen below `2^-26` (the floor is then the noise of `T`'s own
//!    residuals, about `κ(A)·n·u_T`: the accuracy `T`'s LU would give), not converged
//!    otherwise (the `f64` factors are too inaccurate: `κ(A)·2^-53` is not well below 1); or
//!    after `max_iterations`.
//!
//! Without convergence the solve falls back to the LU factorisation in `T` itself
//! ([`gesv`](super::gesv)), and the [`RefineReport`] says so (as cuSOLVER's `IRS` solvers and
//! LAPACK's `dsgesv` do). Each step converges linearly with rate about `κ(A)·2^-53`, so a `Dd`
//! solve with `κ = 10^8` takes about 4 steps, a `Qd` solve about 9.
//!
//! The report also carries, unless [`RefineParams::error_bounds`] is off, the reciprocal
//! condition estimate of the factors the solution came from ([`gecon`]) and the largest
//! backward error and forward error bound over the columns ([`solve_bounds`]): the `f64`
//! factors already made (not factored again) when refinement converged, `T`'s own when it fell
//! back.

use super::cond::{Norm, gecon, lange, solve_bounds};
use super::lu::{getrf, getrs};
use crate::blas::level1::check_same_len;
use crate::blas::level3::gemm;
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use crate::view::{MatMut, MatRef, Trans};

/// How [`gesv_refined`] reached its solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RefinePath {
    /// `f64` factors and refinement in `T` converged.
    Refined,
    /// Refinement did not converge (or `fl64(A)` was singular): the solution is `T`'s own LU
    /// solve ([`gesv`](super::gesv)).
    Fallback,
    /// Refinement did not converge and the fallback was switched off: `X` is the last iterate.
    NotConverged,
}

/// What [`gesv_refined`] did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RefineReport {
    /// The path taken.
    pub path: RefinePath,
    /// Refinement steps made (each a residual in `T` and an `f64` solve).
    pub iterations: usize,
    /// The last step's largest relative correction `max_c ‖d_c‖∞ / ‖x_c‖∞` (0 for `n = 0`).
    pub last_correction: f64,
    /// Whether `fl64(A)` had an exactly zero pivot.
    pub f64_singular: bool,
    /// The estimate of the reciprocal 1-norm condition number `1/κ₁(A)` ([`gecon`]) from the
    /// factors the solution came from: the `f64` factors of `fl64(A)` when refined (or not
    /// converged), `T`'s own after the fallback. NaN when not computed
    /// ([`RefineParams::error_bounds`] off, no right-hand side or `n = 0`, NaN or `±∞` in `A`,
    /// the GPU solver).
    pub rcond: f64,
    /// The largest componentwise backward error over the columns
    /// ([`SolveBounds::backward_error`](super::SolveBounds::backward_error)); NaN when not
    /// computed (as `rcond`).
    pub backward_error: f64,
    /// The largest forward error bound `‖x − x_true‖∞ / ‖x‖∞` over the columns, an
    /// estimate-based bound ([`SolveBounds::forward_error`](super::SolveBounds::forward_error));
    /// NaN when not computed (as `rcond`).
    pub forward_error: f64,
}

/// Parameters of [`gesv_refined`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RefineParams {
    /// Most refinement steps before falling back.
    pub max_iterations: usize,
    /// Fall back to `T`'s LU when refinement does not converge (otherwise `X` is the last
    /// iterate and the report says [`RefinePath::NotConverged`]).
    pub fallback: bool,
    /// Compute the report's `rcond`, `backward_error` and `forward_error` ([`gecon`] and
    /// [`solve_bounds`] with the factors already made: per right-hand side one residual in `T`
    /// and 2 to 11 solves with the factors, and 2 to 11 solves for `rcond`). Off: they are NaN.
    pub error_bounds: bool,
}

impl Default for RefineParams {
    fn default() -> Self {
        RefineParams {
            max_iterations: 30,
            fallback: true,
            error_bounds: true,
        }
    }
}

/// A relative correction below which a stagnating refinement has converged (to the noise of
/// `T`'s residuals): `2^-26`, far below what `f64` factors alone give.
const STAGNATION_FLOOR: f64 = 1.4901161193847656e-8;

/// `(n, nrhs)` of a refinement call after checking the shapes `(rows, cols)` of `A`
/// (`n × n`), `B` and `X` (`n × nrhs`).
pub(crate) fn refine_shapes(
    (ar, ac): (usize, usize),
    (br, bc): (usize, usize),
    (xr, xc): (usize, usize),
) -> Result<(usize, usize)> {
    check_same_len("a (columns)", ar, ac)?;
    check_same_len("b (rows)", ar, br)?;
    check_same_len("x (rows)", ar, xr)?;
    check_same_len("x (columns)", bc, xc)?;
    Ok((ar, bc))
}

impl RefineReport {
    /// A call's report before its first step: refined, nothing done yet, no condition
    /// estimate or error bounds (NaN).
    pub(crate) fn start() -> RefineReport {
        RefineReport {
            path: RefinePath::Refined,
            iterations: 0,
            last_correction: 0.0,
            f64_singular: false,
            rcond: f64::NAN,
            backward_error: f64::NAN,
            forward_error: f64::NAN,
        }
    }

    /// Fills `rcond`, `backward_error` and `forward_error` for the solution `X` of `A·X = B`
    /// from the factors `lu`, `ipiv` (of `A` in `F`) it came from. `rcond` stays NaN for NaN
    /// or `±∞` in `A` or the factors ([`gecon`] refuses them; the solve itself does not).
    fn add_error_bounds<T: Scalar, F: Scalar>(
        &mut self,
        (a, b, x): (MatRef<'_, T>, MatRef<'_, T>, MatRef<'_, T>),
        lu: MatRef<'_, F>,
        ipiv: &[usize],
    ) -> Result<()> {
        self.rcond = match gecon(Norm::One, lu, ipiv, lange(Norm::One, a)) {
            Err(Error::InvalidNumber { .. }) => f64::NAN,
            r => r?,
        };
        let bounds = solve_bounds(a, lu, ipiv, b, x)?;
        self.backward_error = bounds.iter().map(|s| s.backward_error).fold(0.0, worse);
        self.forward_error = bounds.iter().map(|s| s.forward_error).fold(0.0, worse);
        Ok(())
    }
}

/// `T`'s LU factors of `A` (`n × n`, `n ≥ 1`; unchanged), column-major, and the pivots, as
/// [`gesv`](super::gesv) makes them.
///
/// # Errors
/// [`Error::Singular`] for an exactly zero pivot, then [`getrf`]'s.
fn lu_of_copy<T: Scalar>(a: MatRef<'_, T>) -> Result<(Vec<T>, Vec<usize>)> {
    let n = a.rows();
    let mut lu = a.to_col_major();
    let mut ipiv = vec![0; n];
    if let Some(column) = getrf(MatMut::col_major(&mut lu, n, n, n)?, &mut ipiv)? {
        return Err(Error::Singular { column });
    }
    Ok((lu, ipiv))
}

/// `A⁻¹·B` (column-major) with the factors of [`lu_of_copy`].
fn solve_with<T: Scalar>((lu, ipiv): &(Vec<T>, Vec<usize>), b: MatRef<'_, T>) -> Result<Vec<T>> {
    let (n, nrhs) = (b.rows(), b.cols());
    let mut sol = b.to_col_major();
    getrs(
        Trans::No,
        MatRef::col_major(lu, n, n, n)?,
        ipiv,
        MatMut::col_major(&mut sol, n, nrhs, n)?,
    )?;
    Ok(sol)
}

/// `‖d‖∞ / ‖x‖∞` of one column's correction (0 for a zero correction).
pub(crate) fn relative_correction(dn: f64, xn: f64) -> f64 {
    if dn == 0.0 { 0.0 } else { dn / xn }
}

/// The larger of two relative corrections, NaN winning.
pub(crate) fn worse(worst: f64, rel: f64) -> f64 {
    if rel.is_nan() || rel > worst {
        rel
    } else {
        worst
    }
}

/// Whether refinement stops after a step whose largest relative correction is `worst` (the
/// previous step's: `previous`), for order `n` and the format's `u`: `Some(true)` converged
/// (`worst ≤ n·u`, or stagnation after the corrections had shrunk below 2^-26: the format's own
/// rounding in the residual is the floor, about κ·n·u), `Some(false)` failed (stagnation before
/// that: the `f64` factors are too inaccurate; NaN counts as no progress), `None` go on.
pub(crate) fn step_outcome(worst: f64, previous: f64, u: f64, n: usize) -> Option<bool> {
    if worst <= u * n as f64 {
        return Some(true);
    }
    let shrank = worst <= 0.5 * previous;
    (!shrank).then_some(previous <= STAGNATION_FLOOR)
}

/// `max |v|` as an `f64`.
fn norm_inf<T: Scalar>(v: impl Iterator<Item = T>) -> f64 {
    v.map(|x| x.nearest_f64().abs())
        .fold(0.0, |m, x| if x > m || x.is_nan() { x } else { m })
}

/// Solves `A·X = B` (`A` `n × n`, `B` and `X` `n × nrhs`) in `T` by `f64` factors and
/// refinement in `T` (see the [module docs](self)); `A` and `B` are not changed. With the
/// default parameters the result is `T`'s own accuracy for the conditioning (the fallback to
/// [`gesv`](super::gesv) in `T` covers matrices too ill-conditioned for `f64` factors), and the
/// report carries the condition estimate and error bounds of the solution.
///
/// # Errors
/// [`Error::LengthMismatch`] for shapes that do not agree, [`Error::Singular`] when the
/// fallback meets an exactly singular `A` (or, with `fallback = false`, when `fl64(A)` is
/// singular), [`Error::BasisMismatch`] for RNS operands of different bases.
pub fn gesv_refined<T: Scalar>(
    a: MatRef<'_, T>,
    b: MatRef<'_, T>,
    mut x: MatMut<'_, T>,
    params: &RefineParams,
) -> Result<RefineReport> {
    let (n, nrhs) = refine_shapes(
        (a.rows(), a.cols()),
        (b.rows(), b.cols()),
        (x.rows(), x.cols()),
    )?;
    let mut report = RefineReport::start();
    if n == 0 || nrhs == 0 {
        return Ok(report);
    }
    let ctx = a.at(0, 0).ctx();
    let u = T::unit_roundoff_in(&ctx);
    // T's own LU solve, written into X, with its bounds.
    let fallback = |x: &mut MatMut<'_, T>, report: &mut RefineReport| -> Result<()> {
        let factors = lu_of_copy(a)?;
        let sol = solve_with(&factors, b)?;
        for c in 0..nrhs {
            for i in 0..n {
                *x.at_mut(i, c) = sol[i + c * n].clone();
            }
        }
        report.path = RefinePath::Fallback;
        if params.error_bounds {
            let lu = MatRef::col_major(&factors.0, n, n, n)?;
            report.add_error_bounds((a, b, x.rb()), lu, &factors.1)?;
        }
        Ok(())
    };
    // The f64 factors.
    let mut lu64: Vec<f64> = a.to_col_major().iter().map(Scalar::nearest_f64).collect();
    let mut ipiv = vec![0; n];
    if let Some(column) = getrf(MatMut::col_major(&mut lu64, n, n, n)?, &mut ipiv)? {
        report.f64_singular = true;
        if !params.fallback {
            return Err(Error::Singular { column });
        }
        fallback(&mut x, &mut report)?;
        return Ok(report);
    }
    let lu64 = MatRef::col_major(&lu64, n, n, n)?;
    let solve64 = |rhs: Vec<f64>| -> Result<Vec<f64>> {
        let mut d = rhs;
        getrs(
            Trans::No,
            lu64,
            &ipiv,
            MatMut::col_major(&mut d, n, nrhs, n)?,
        )?;
        Ok(d)
    };
    // X₀ from the f64 solve.
    let b64: Vec<f64> = b.to_col_major().iter().map(Scalar::nearest_f64).collect();
    let x0 = solve64(b64)?;
    for c in 0..nrhs {
        for i in 0..n {
            *x.at_mut(i, c) = T::from_f64_in(&ctx, x0[i + c * n]);
        }
    }
    let (one, minus_one) = (T::one_in(&ctx), T::one_in(&ctx).neg_ref());
    let mut previous = f64::INFINITY;
    let mut converged = false;
    while report.iterations < params.max_iterations {
        // R = B − A·X in T.
        let mut r = b.to_col_major();
        gemm(
            &minus_one,
            a,
            x.rb(),
            &one,
            MatMut::col_major(&mut r, n, nrhs, n)?,
        )?;
        let d = solve64(r.iter().map(Scalar::nearest_f64).collect())?;
        let mut worst = 0.0f64;
        for c in 0..nrhs {
            for i in 0..n {
                let v = x.at_mut(i, c).add_ref(&T::from_f64_in(&ctx, d[i + c * n]));
                *x.at_mut(i, c) = v;
            }
            let dn = norm_inf(d[c * n..(c + 1) * n].iter().copied());
            let xn = norm_inf((0..n).map(|i| x.rb().at(i, c).clone()));
            worst = worse(worst, relative_correction(dn, xn));
        }
        report.iterations += 1;
        report.last_correction = worst;
        if let Some(done) = step_outcome(worst, previous, u, n) {
            converged = done;
            break;
        }
        previous = worst;
    }
    if !converged && params.fallback {
        fallback(&mut x, &mut report)?;
        return Ok(report);
    }
    if !converged {
        report.path = RefinePath::NotConverged;
    }
    if params.error_bounds {
        // The f64 factors already made: no second factorisation.
        report.add_error_bounds((a, b, x.rb()), lu64, &ipiv)?;
    }
    Ok(report)
}
