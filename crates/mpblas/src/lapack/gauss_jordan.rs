//! Gauss–Jordan elimination with partial pivoting ([`gesv_gauss_jordan`]): the QD paper's GPU
//! solver (§6.2: `A` reduced to the identity while the same row operations turn `B` into `X`),
//! for its reproduction and for every [`Scalar`] format.
//!
//! **Algorithm** (Higham, *Accuracy and Stability of Numerical Algorithms*, §14.4): for each
//! column `j`, the pivot is the first entry of largest magnitude at or below the diagonal; its
//! row is swapped with row `j` (in `A`'s columns `j..n` and in `B`); row `j` is divided by the
//! pivot; then every other row `i` subtracts `a_ij` times row `j`. The rows are independent
//! within a step, so they run in parallel, each in a fixed order: the same bits for any thread
//! count. Work: `n³` operations on `A` and `2n²·nrhs` on `B` (LU's `2n³/3 + 2n²·nrhs`).
//!
//! **Accuracy.** Gauss–Jordan elimination with partial pivoting is forward stable but not
//! backward stable (Higham, Thm 14.5 and §14.4): the computed `x̂` satisfies
//! `|x − x̂| ≤ c·n·u·|A⁻¹||A||x|` to first order (`c` a small constant, `u` the format's unit
//! roundoff), the error LU's solve has in the worst case; its residual can be larger than LU's.
//! Prefer [`gesv`](super::gesv) unless the Gauss–Jordan order itself is wanted.

use crate::blas::level1::check_same_len;
use crate::blas::level2::{check_ctx, is_zero};
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use crate::view::MatMut;
use rayon::prelude::*;

/// The row of column `j`'s pivot: the first `i ≥ j` of largest `|r_i[j]|` (`>`: NaN never
/// wins), as [`getrf`](super::getrf) chooses it.
fn pivot_row<T: Scalar>(rows: &[Vec<T>], j: usize) -> usize {
    let mut p = j;
    let mut best = rows[j][j].abs_ref();
    for (i, row) in rows.iter().enumerate().skip(j + 1) {
        let v = row[j].abs_ref();
        if v > best {
            best = v;
            p = i;
        }
    }
    p
}

/// Solves `A·X = B` (`A` `n × n`, `B` `n × nrhs`) by Gauss–Jordan elimination with partial
/// pivoting: `B` becomes `X`, `A` is overwritten (its reduced form). See the
/// [module docs](self) for the order and the error bound.
///
/// # Errors
/// [`Error::LengthMismatch`] (`A` not square, `B`'s rows); [`Error::Singular`] at the first
/// exactly zero pivot (`B` is then partly reduced); [`Error::BasisMismatch`] for RNS entries
/// of different bases.
pub fn gesv_gauss_jordan<T: Scalar>(mut a: MatMut<'_, T>, mut b: MatMut<'_, T>) -> Result<()> {
    let n = a.rows();
    check_same_len("a (columns)", n, a.cols())?;
    check_same_len("b (rows)", n, b.rows())?;
    let nrhs = b.cols();
    if n == 0 {
        return Ok(());
    }
    let ctx = a.at_mut(0, 0).ctx();
    check_ctx(&ctx, &[], &[], Some(a.rb()))?;
    if nrhs > 0 {
        check_ctx(&ctx, &[], &[], Some(b.rb()))?;
    }
    // Rows as owned vectors ([A's columns | B's columns]), so that a step's rows update in
    // parallel; written back at the end.
    let width = n + nrhs;
    let mut rows: Vec<Vec<T>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|c| a.rb().at(i, c).clone())
                .chain((0..nrhs).map(|c| b.rb().at(i, c).clone()))
                .collect()
        })
        .collect();
    for j in 0..n {
        let p = pivot_row(&rows, j);
        rows.swap(j, p);
        let pivot = rows[j][j].clone();
        if is_zero(&pivot) {
            return Err(Error::Singular { column: j });
        }
        let pivot_row: Vec<T> = {
            let r = &mut rows[j];
            for v in r.iter_mut().skip(j + 1) {
                *v = v.div_ref(&pivot);
            }
            r[j] = T::one_in(&ctx);
            r.clone()
        };
        rows.par_iter_mut().enumerate().for_each(|(i, r)| {
            if i == j {
                return;
            }
            let f = r[j].clone();
            for c in j + 1..width {
                r[c] = r[c].sub_ref(&f.mul_ref(&pivot_row[c]));
            }
            r[j] = T::zero_in(&ctx);
        });
    }
    for (i, r) in rows.into_iter().enumerate() {
        for (c, v) in r.into_iter().enumerate() {
            if c < n {
                *a.at_mut(i, c) = v;
            } else {
                *b.at_mut(i, c - n) = v;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_small_system() {
        // [0 2; 1 1] x = [2; 3] needs the row swap: x = [2; 1].
        let mut a = [0.0, 1.0, 2.0, 1.0];
        let mut b = [2.0, 3.0];
        gesv_gauss_jordan(
            MatMut::col_major(&mut a, 2, 2, 2).unwrap(),
            MatMut::col_major(&mut b, 2, 1, 2).unwrap(),
        )
        .unwrap();
        assert_eq!(b, [2.0, 1.0]);
    }
}
