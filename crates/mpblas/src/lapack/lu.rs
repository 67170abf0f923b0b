//! LU factorisation with partial pivoting (`getrf`), the solves with its factors (`getrs`) and
//! both at once (`gesv`), on the CPU for every [`Scalar`] format, with LAPACK's conventions
//! (column-major views, a pivot vector, singularity reported, not an error, by `getrf`).
//!
//! **Algorithm** (LAPACK's `dgetrf`, right-looking, Golub & Van Loan §3.4): panels of
//! [`LU_BLOCK`] columns are factored column by column (the pivot is the first entry of largest
//! magnitude at or below the diagonal; its row is swapped with the diagonal's across the whole
//! matrix; the entries below are divided by the pivot; the panel's remaining columns are
//! updated), then the panel's rows of `U` right of it are solved with the panel's unit lower
//! triangle, and the trailing matrix is updated by one [`gemm`]
//! (`A22 ← A22 − L21·U12`, the level-3 order: the same bits for any thread count).
//!
//! **Accuracy.** The computed factors satisfy `P·A + ΔA = L̂·Û` with
//! `|ΔA| ≤ γ_n·|L̂||Û|` (Higham, *Accuracy and Stability of Numerical Algorithms*, Thm 9.3),
//! and a solve `(A + ΔA)·x̂ = b` with `|ΔA| ≤ γ_3n·|L̂||Û|` (Thm 9.4), `γ` with the format's
//! operation bound; partial pivoting keeps `|L̂| ≤ 1`, so the backward error is small unless
//! the growth factor is large (rare in practice, exponential in the worst case).

use crate::blas::level1::check_same_len;
use crate::blas::level2::{check_ctx, is_zero};
use crate::blas::level3::gemm;
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use crate::view::{MatMut, MatRef, Trans};
use rayon::prelude::*;

/// Columns per panel of the blocked factorisation.
pub const LU_BLOCK: usize = 32;

/// Swaps rows `r` and `s` of `a` in columns `cols`.
fn swap_rows<T: Scalar>(a: &mut MatMut<'_, T>, r: usize, s: usize, cols: std::ops::Range<usize>) {
    if r == s {
        return;
    }
    for c in cols {
        let x = a.at_mut(r, c).clone();
        let y = std::mem::replace(a.at_mut(s, c), x);
        *a.at_mut(r, c) = y;
    }
}

/// `A = P·L·U` in place for an `m × n` view `A`: `L` (unit lower, below the diagonal) and `U`
/// (upper) overwrite `A`; `ipiv[j]` (0-based) is the row swapped with row `j` at step `j`, for
/// `j < min(m, n)`. Returns `Ok(None)`, or `Ok(Some(j))` when `U(j, j)` is exactly zero for a
/// first `j` (the factorisation is complete, but `U` is singular: LAPACK's `info = j + 1`).
/// NaN and infinities propagate through the arithmetic (a NaN pivot column is not chosen over
/// a finite one unless it comes first).
///
/// # Errors
/// [`Error::LengthMismatch`] if `ipiv` holds fewer than `min(m, n)` entries;
/// [`Error::BasisMismatch`] for RNS entries of different bases.
pub fn getrf<T: Scalar>(mut a: MatMut<'_, T>, ipiv: &mut [usize]) -> Result<Option<usize>> {
    let (m, n) = (a.rows(), a.cols());
    let steps = m.min(n);
    check_pivots(ipiv, steps)?;
    if steps == 0 {
        return Ok(None);
    }
    let ctx = a.at_mut(0, 0).ctx();
    check_ctx(&ctx, &[], &[], Some(a.rb()))?;
    let mut singular = None;
    let mut j0 = 0;
    while j0 < steps {
        let jb = LU_BLOCK.min(steps - j0);
        // The panel, column by column (ipiv[j] set at step j).
        #[allow(clippy::needless_range_loop)]
        for j in j0..j0 + jb {
            let mut p = j;
            let mut best = a.at_mut(j, j).abs_ref();
            for i in j + 1..m {
                let v = a.at_mut(i, j).abs_ref();
                if v > best {
                    best = v;
                    p = i;
                }
            }
            ipiv[j] = p;
            swap_rows(&mut a, j, p, 0..n);
            let pivot = a.at_mut(j, j).clone();
            if is_zero(&pivot) {
                singular.get_or_insert(j);
            } else {
                for i in j + 1..m {
                    let v = a.at_mut(i, j).div_ref(&pivot);
                    *a.at_mut(i, j) = v;
                }
            }
            for c in j + 1..j0 + jb {
                let u = a.at_mut(j, c).clone();
                for i in j + 1..m {
                    let l = a.at_mut(i, j).clone();
                    let v = a.at_mut(i, c).sub_ref(&l.mul_ref(&u));
                    *a.at_mut(i, c) = v;
                }
            }
        }
        let (c0, rest) = (j0 + jb, n - (j0 + jb));
        if rest > 0 {
            // U12 = L11⁻¹·A12 (unit lower, forward substitution).
            for c in c0..n {
                for r in j0..j0 + jb {
                    let mut v = a.at_mut(r, c).clone();
                    for q in j0..r {
                        let l = a.at_mut(r, q).clone();
                        v = v.sub_ref(&l.mul_ref(a.at_mut(q, c)));
                    }
                    *a.at_mut(r, c) = v;
                }
            }
            // A22 ← A22 − L21·U12 (copies of L21 and U12, A22 in place).
            let below = m - c0;
            if below > 0 {
                let l21: Vec<T> = (j0..c0)
                    .flat_map(|q| (c0..m).map(move |i| (i, q)))
                    .map(|(i, q)| a.at_mut(i, q).clone())
                    .collect();
                let u12: Vec<T> = (c0..n)
                    .flat_map(|c| (j0..c0).map(move |r| (r, c)))
                    .map(|(r, c)| a.at_mut(r, c).clone())
                    .collect();
                let minus_one = T::one_in(&ctx).neg_ref();
                let one = T::one_in(&ctx);
                gemm(
                    &minus_one,
                    MatRef::col_major(&l21, below, jb, below)?,
                    MatRef::col_major(&u12, jb, rest, jb)?,
                    &one,
                    a.rb_mut().block(c0, c0, below, rest)?,
                )?;
            }
        }
        j0 += jb;
    }
    Ok(singular)
}

/// `ipiv` holds at least the `steps = min(m, n)` pivots of a factorisation.
///
/// # Errors
/// [`Error::LengthMismatch`] otherwise.
pub(crate) fn check_pivots(ipiv: &[usize], steps: usize) -> Result<()> {
    if ipiv.len() < steps {
        return Err(Error::LengthMismatch {
            arg: "ipiv",
            expected: steps,
            got: ipiv.len(),
        });
    }
    Ok(())
}

/// Solves `op(A)·X = B` in place (`B` becomes `X`, `n × nrhs`) with the factors of
/// [`getrf`] (`lu`, `n × n`) and its pivots: `P·L·U·X = B` for [`Trans::No`], `Uᵀ·Lᵀ·Pᵀ·X = B`
/// for [`Trans::Yes`]. Columns of `B` are solved in parallel, each in a fixed order (the same
/// bits for any thread count). A zero on `U`'s diagonal gives infinities or NaN, as LAPACK's
/// `dgetrs` does ([`gesv`] refuses such a matrix).
///
/// # Errors
/// [`Error::LengthMismatch`] (`lu` not square, `B`'s rows, `ipiv` shorter than `n`),
/// [`Error::OutOfRange`] (a pivot outside `j..n`), [`Error::BasisMismatch`].
pub fn getrs<T: Scalar>(
    trans: Trans,
    lu: MatRef<'_, T>,
    ipiv: &[usize],
    mut b: MatMut<'_, T>,
) -> Result<()> {
    let n = check_factors(lu, ipiv)?;
    check_same_len("b (rows)", n, b.rows())?;
    let nrhs = b.cols();
    if n == 0 || nrhs == 0 {
        return Ok(());
    }
    // n ≥ 1 here: element (0, 0) gives the context.
    let ctx = lu.at(0, 0).ctx();
    check_ctx(&ctx, &[], &[], Some(lu))?;
    check_ctx(&ctx, &[], &[], Some(b.rb()))?;
    let cols: Vec<Vec<T>> = (0..nrhs)
        .map(|c| (0..n).map(|i| b.rb().at(i, c).clone()).collect())
        .collect();
    let solved: Vec<Vec<T>> = cols
        .into_par_iter()
        .map(|mut x| {
            solve_column(trans, lu, &ipiv[..n], &mut x);
            x
        })
        .collect();
    for (c, x) in solved.into_iter().enumerate() {
        for (i, v) in x.into_iter().enumerate() {
            *b.at_mut(i, c) = v;
        }
    }
    Ok(())
}

/// The order `n` of [`getrf`]'s factors of a square matrix, after checking what every solve
/// with them needs: `lu` square, `ipiv` at least `n` long, each pivot `ipiv[j]` in `j..n`.
///
/// # Errors
/// [`Error::LengthMismatch`] (`lu` not square, `ipiv` too short), [`Error::OutOfRange`] (a
/// pivot).
pub(crate) fn check_factors<T>(lu: MatRef<'_, T>, ipiv: &[usize]) -> Result<usize> {
    check_factor_shape((lu.rows(), lu.cols()), ipiv)
}

/// [`check_factors`] on the shape `(rows, cols)` of the factors (device views too).
pub(crate) fn check_factor_shape((rows, cols): (usize, usize), ipiv: &[usize]) -> Result<usize> {
    let n = rows;
    check_same_len("lu (columns)", n, cols)?;
    if ipiv.len() < n {
        return Err(Error::LengthMismatch {
            arg: "ipiv",
            expected: n,
            got: ipiv.len(),
        });
    }
    for (j, &p) in ipiv[..n].iter().enumerate() {
        if p < j || p >= n {
            return Err(Error::OutOfRange {
                what: "pivot index ipiv[j] (must be in j..n)",
                got: p,
                min: j,
                max: n.saturating_sub(1),
            });
        }
    }
    Ok(n)
}

/// One right-hand side of [`getrs`].
fn solve_column<T: Scalar>(trans: Trans, lu: MatRef<'_, T>, ipiv: &[usize], x: &mut [T]) {
    let n = x.len();
    match trans {
        Trans::No => {
            for (j, &p) in ipiv.iter().enumerate() {
                x.swap(j, p);
            }
            // L·y = P·b (unit lower), then U·x = y.
            for i in 0..n {
                for q in 0..i {
                    x[i] = x[i].sub_ref(&lu.at(i, q).mul_ref(&x[q]));
                }
            }
            // Each row's terms in descending q: the column-oriented order in which the GPU's
            // blocked substitution (lu_gpu.rs) subtracts them, so that both give these bits.
            for i in (0..n).rev() {
                for q in (i + 1..n).rev() {
                    x[i] = x[i].sub_ref(&lu.at(i, q).mul_ref(&x[q]));
                }
                x[i] = x[i].div_ref(lu.at(i, i));
            }
        }
        Trans::Yes => {
            // Uᵀ·z = b (lower), Lᵀ·w = z (unit upper), then x = P·w (swaps in reverse).
            for i in 0..n {
                for q in 0..i {
                    x[i] = x[i].sub_ref(&lu.at(q, i).mul_ref(&x[q]));
                }
                x[i] = x[i].div_ref(lu.at(i, i));
            }
            for i in (0..n).rev() {
                for q in (i + 1..n).rev() {
                    x[i] = x[i].sub_ref(&lu.at(q, i).mul_ref(&x[q]));
                }
            }
            for (j, &p) in ipiv.iter().enumerate().rev() {
                x.swap(j, p);
            }
        }
    }
}

/// Solves `A·X = B` (`A` `n × n`, `B` `n × nrhs`): [`getrf`] then [`getrs`]. `A` holds the
/// factors afterwards, `B` the solution, `ipiv` the pivots.
///
/// # Errors
/// [`Error::Singular`] when `U` has an exactly zero diagonal entry (`B` untouched); then
/// those of [`getrf`] and [`getrs`] (`A` not square: [`Error::LengthMismatch`]).
pub fn gesv<T: Scalar>(mut a: MatMut<'_, T>, ipiv: &mut [usize], b: MatMut<'_, T>) -> Result<()> {
    check_same_len("a (columns)", a.rows(), a.cols())?;
    check_same_len("b (rows)", a.rows(), b.rows())?;
    if let Some(column) = getrf(a.rb_mut(), ipiv)? {
        return Err(Error::Singular { column });
    }
    getrs(Trans::No, a.rb(), ipiv, b)
}
