//! BLAS level 3 on the CPU, for every [`Scalar`] format: `gemm`
//! (`C ← α·A·B + β·C`) over matrix views (a transpose is a view, [`MatRef::t`]), with a
//! BLAS-style entry for code ported from Fortran or C. The GPU twin
//! ([`gpu::gemm`](super::gpu::gemm)) returns the same bits and bounds for `f64`, `Dd` and `Qd`.
//!
//! **Order and reproducibility.** Entry `(i, j)` is `α·s_ij + β·c_ij` with
//! `s_ij = Σ_k a_ik·b_kj` summed recursively in `k` from `−0`, each step the format's
//! [`add_product`](Scalar::add_product) (for `Dd` a product and the accurate addition, for `Qd`
//! its one-renormalisation product-sum): the order of a tiled GPU kernel, in which each thread
//! walks `k` for its entries. The order is fixed by the indices, so the bits are the same for
//! any number of threads, any blocking and on the GPU. The CPU packs a panel of rows of `A`
//! and advances micro-tiles of [`MR`] rows × [`NR`] columns through `k` together, the rows of
//! a tile as lanes of [`add_product_lanes`](Scalar::add_product_lanes); tiles of [`MB`] × [`NB`]
//! entries run in parallel.
//!
//! **Error bound** ([`gemm_bounded`]): componentwise, per entry, as `gemv`'s with the
//! recursive sum's depth `k` (Higham (3.13) with the format's operation bound `ε`):
//!
//! `|ĉ_ij − c_ij| ≤ |α|·B_ij + γ_2·(|α|·(S_ij + B_ij) + |β||c_ij|) + 3η`,
//! `B_ij = γ_k·S_ij + 2kη`, `S_ij ≥ Σ_k|a_ik||b_kj|`
//!
//! (`S_ij` is the format's own recursive sum of `|a_ik||b_kj|`, widened by its bound). The
//! bound is relative to `(|A||B|)_ij`, not to `‖A‖‖B‖`: a small entry beside large ones keeps
//! its accuracy.
//!
//! **The compensated double-double GEMM** ([`gemm_dd_compensated`]): the same frame with each
//! `s_ij` summed by a compensated dot product (blocks of 32 terms of TwoSum and `f64` error
//! sums, joined with the accurate addition): 2.5 times fewer operations per term and, from
//! `k ≈ 150` on, a smaller bound ([`compensated_dot_gamma`]).
//!
//! **BLAS conventions.** As reference `?gemm`: `m = 0` or `n = 0`, or (`α = 0` or `k = 0`) with
//! `β = 1`, returns at once with `C` unchanged; `α = 0` or `k = 0` sets `C ← β·C` without
//! reading `A` or `B` (`+0` when `β = 0`); `β = 0` does not read `C` (NaN there does not
//! propagate). RNS operands must share one basis
//! ([`Error::BasisMismatch`](crate::Error::BasisMismatch)), checked once per call.

use super::bounds::{COMPENSATED_BLOCK, compensated_dot_gamma, gamma, summation_depth};
use super::level1::{check_same_len, neg_zero};
use super::level2::{RowBound, check_ctx, is_zero, scaled_entry, unchanged_bound};
use super::sum::Summation;
use crate::dd::Dd;
use crate::eft::{two_prod, two_sum};
use crate::error::Result;
use crate::scalar::Scalar;
use crate::view::{MatMut, MatRef, Trans};
use rayon::prelude::*;

/// Rows of a micro-tile: the lanes of one [`Scalar::add_product_lanes`] call.
pub const MR: usize = 8;
/// Columns of a micro-tile: `NR` lane groups advance through `k` together, each reading the
/// same packed rows of `A`.
pub const NR: usize = 4;
/// Rows per parallel task (a multiple of [`MR`]).
pub const MB: usize = 64;
/// Columns per parallel task.
pub const NB: usize = 64;

/// `C ← α·A·B + β·C` for an `m × k` view `A` and a `k × n` view `B` (pass `a.t()`, `b.t()` for
/// transposes) into an `m × n` view `C`. See the [module docs](self) for the order, the
/// bound and the conventions.
///
/// # Errors
/// [`Error::LengthMismatch`](crate::Error::LengthMismatch) (the shapes),
/// [`Error::BasisMismatch`](crate::Error::BasisMismatch).
///
/// ```
/// use mpblas::blas::level3::gemm;
/// use mpblas::view::{MatMut, MatRef};
/// use mpblas::Dd;
/// // [1 2] · [1e-20  1]
/// // [3 4]   [1      1]
/// let a = [Dd::from(1.0), Dd::from(3.0), Dd::from(2.0), Dd::from(4.0)];
/// let b = [Dd::from(1e-20), Dd::from(1.0), Dd::from(1.0), Dd::from(1.0)];
/// let mut c = [Dd::from(0.0); 4];
/// let (a, b) = (MatRef::col_major(&a, 2, 2, 2).unwrap(), MatRef::col_major(&b, 2, 2, 2).unwrap());
/// gemm(&Dd::ONE, a, b, &Dd::ZERO, MatMut::col_major(&mut c, 2, 2, 2).unwrap()).unwrap();
/// assert_eq!(c[0], Dd::from(2.0) + Dd::from(1e-20));
/// assert_eq!(c[3], Dd::from(7.0));
/// ```
pub fn gemm<T: Scalar>(
    alpha: &T,
    a: MatRef<'_, T>,
    b: MatRef<'_, T>,
    beta: &T,
    c: MatMut<'_, T>,
) -> Result<()> {
    gemm_impl(alpha, a, b, beta, c, false).map(drop)
}

/// [`gemm`], returning beside the result the componentwise bound of each entry of `C`
/// (column-major, `m·n` of them; see the [module docs](self)): `|ĉ_ij − c_ij| ≤ bound`, `+∞`
/// where an input is not finite. It costs a second product (of `|A|` and `|B|`).
///
/// # Errors
/// As [`gemm`].
pub fn gemm_bounded<T: Scalar>(
    alpha: &T,
    a: MatRef<'_, T>,
    b: MatRef<'_, T>,
    beta: &T,
    c: MatMut<'_, T>,
) -> Result<Vec<f64>> {
    gemm_impl(alpha, a, b, beta, c, true)
}

/// The shapes every GEMM checks first (CPU and GPU): `(m, k)` of `op(A)`, `(k, n)` of `op(B)`,
/// `(m, n)` of `C`.
pub(crate) fn gemm_shapes(
    (m, k): (usize, usize),
    (kb, n): (usize, usize),
    (mc, nc): (usize, usize),
) -> Result<()> {
    check_same_len("b (rows)", k, kb)?;
    check_same_len("c (rows)", m, mc)?;
    check_same_len("c (columns)", n, nc)
}

fn gemm_impl<T: Scalar>(
    alpha: &T,
    a: MatRef<'_, T>,
    b: MatRef<'_, T>,
    beta: &T,
    c: MatMut<'_, T>,
    with_bounds: bool,
) -> Result<Vec<f64>> {
    let ctx = alpha.ctx();
    let g = recursive_dot_gamma::<T>(&ctx, a.cols());
    gemm_with(alpha, a, b, beta, c, with_bounds, g, |a, b, abs| {
        products(a, b, abs, &ctx)
    })
}

/// `g` of [`gemm`]'s sums (`|ŝ − s| ≤ g·Σ|t| + 2kη`): `γ_k` of the recursive order of `k`
/// products with the format's operation bound (CPU and GPU).
pub(crate) fn recursive_dot_gamma<T: Scalar>(ctx: &T::Ctx, k: usize) -> f64 {
    gamma(
        summation_depth(Summation::Recursive, k) + 1,
        T::op_error_bound_in(ctx),
    )
}

/// The GEMM frame every order shares: checks, quick returns, `C ← α·S + β·C` and the bounds,
/// with `sums(A, B, abs)` giving every `s_ij` (or `Σ|a_il||b_lj|`), column-major, computed
/// with `|ŝ − s| ≤ g·Σ|a_il||b_lj| + 2kη`.
#[allow(clippy::too_many_arguments)]
fn gemm_with<T: Scalar>(
    alpha: &T,
    a: MatRef<'_, T>,
    b: MatRef<'_, T>,
    beta: &T,
    mut c: MatMut<'_, T>,
    with_bounds: bool,
    g: f64,
    sums: impl Fn(MatRef<'_, T>, MatRef<'_, T>, bool) -> Vec<T>,
) -> Result<Vec<f64>> {
    gemm_shapes(
        (a.rows(), a.cols()),
        (b.rows(), b.cols()),
        (c.rows(), c.cols()),
    )?;
    let (m, n, k) = (a.rows(), b.cols(), a.cols());
    let ctx = alpha.ctx();
    let (product_absent, beta_zero) = (is_zero(alpha) || k == 0, is_zero(beta));
    let unchanged = |c: &MatMut<'_, T>| -> Vec<f64> {
        let c = c.rb();
        (0..n)
            .flat_map(|j| (0..m).map(move |i| (i, j)))
            .map(|(i, j)| unchanged_bound(c.at(i, j)))
            .collect()
    };
    if m == 0 || n == 0 || (product_absent && *beta == T::one_in(&ctx)) {
        return Ok(if with_bounds {
            unchanged(&c)
        } else {
            Vec::new()
        });
    }
    check_ctx(&ctx, &[beta], &[], (!beta_zero).then_some(c.rb()))?;
    if !product_absent {
        check_ctx(&ctx, &[], &[], Some(a))?;
        check_ctx(&ctx, &[], &[], Some(b))?;
    }
    let (sums, abs_sums) = if product_absent {
        (Vec::new(), Vec::new())
    } else {
        let s = sums(a, b, false);
        let abs = if with_bounds {
            sums(a, b, true)
        } else {
            Vec::new()
        };
        (s, abs)
    };
    // gemv's componentwise bound with the sums' g; without a product (α = 0 or k = 0) the
    // bound of β·c alone, as for α = 0.
    let zero = T::zero_in(&ctx);
    let al = if product_absent { &zero } else { alpha };
    let consts = RowBound::with_gamma(al, beta_zero, k, g);
    let mut bounds = Vec::with_capacity(if with_bounds { m * n } else { 0 });
    for j in 0..n {
        for i in 0..m {
            let cij = c.at_mut(i, j);
            let by = (!beta_zero).then(|| beta.mul_ref(cij));
            let value = scaled_entry(alpha, sums.get(j * m + i), by.as_ref(), &ctx);
            if with_bounds {
                bounds.push(consts.bound(al, by.as_ref(), abs_sums.get(j * m + i), &value));
            }
            *cij = value;
        }
    }
    Ok(bounds)
}

/// The rows `first..first + rows` of `A` (of `|A|` when `abs`), packed by `k` then row:
/// element `(first + r, l)` at `l·MB + r`, rows beyond the block as 0 (computed, never stored).
fn pack_rows<T: Scalar>(
    a: MatRef<'_, T>,
    first: usize,
    rows: usize,
    abs: bool,
    zero: &T,
) -> Vec<T> {
    let k = a.cols();
    let mut p = Vec::with_capacity(k * MB);
    for l in 0..k {
        for r in 0..MB {
            p.push(if r < rows {
                let v = a.at(first + r, l);
                if abs { v.abs_ref() } else { v.clone() }
            } else {
                zero.clone()
            });
        }
    }
    p
}

/// Every `s_ij = Σ_l a_il·b_lj` (or `Σ_l |a_il||b_lj|`), recursive in `l` from `−0`, as a
/// column-major `m × n` array.
fn products<T: Scalar>(a: MatRef<'_, T>, b: MatRef<'_, T>, abs: bool, ctx: &T::Ctx) -> Vec<T> {
    let (m, n, k) = (a.rows(), b.cols(), a.cols());
    let zero = T::zero_in(ctx);
    let start = neg_zero(ctx);
    let row_blocks = m.div_ceil(MB);
    let col_blocks = n.div_ceil(NB);
    let panels: Vec<Vec<T>> = (0..row_blocks)
        .into_par_iter()
        .map(|ib| pack_rows(a, ib * MB, MB.min(m - ib * MB), abs, &zero))
        .collect();
    let tiles: Vec<(usize, usize, Vec<T>)> = (0..row_blocks * col_blocks)
        .into_par_iter()
        .map(|t| {
            let (ib, jb) = (t % row_blocks, t / row_blocks);
            let (i0, j0) = (ib * MB, jb * NB);
            let (rows, cols) = (MB.min(m - i0), NB.min(n - j0));
            let s = tile(&panels[ib], b, j0, cols, k, rows, abs, &start);
            (i0, j0, s)
        })
        .collect();
    let mut out = vec![zero; m * n];
    for (i0, j0, s) in tiles {
        let rows = MB.min(m - i0);
        for (jj, col) in s.chunks(MB).enumerate() {
            let dst = (j0 + jj) * m + i0;
            out[dst..dst + rows].clone_from_slice(&col[..rows]);
        }
    }
    out
}

/// One task's tile: columns `j0..j0 + cols` of `B` against a packed panel of `A`, returned by
/// columns of [`MB`] values (rows beyond the panel's are junk, never stored).
#[allow(clippy::too_many_arguments)]
fn tile<T: Scalar>(
    panel: &[T],
    b: MatRef<'_, T>,
    j0: usize,
    cols: usize,
    k: usize,
    rows: usize,
    abs: bool,
    start: &T,
) -> Vec<T> {
    let mut s = vec![start.clone(); cols * MB];
    let lane_groups = rows.div_ceil(MR);
    let mut bcast: Vec<T> = vec![start.clone(); NR * MR];
    for jt in (0..cols).step_by(NR) {
        let nr = NR.min(cols - jt);
        for g in 0..lane_groups {
            // The accumulators of an MR × nr micro-tile, column by column.
            let mut acc: Vec<T> = vec![start.clone(); nr * MR];
            for l in 0..k {
                let al = &panel[l * MB + g * MR..l * MB + g * MR + MR];
                for jj in 0..nr {
                    let v = b.at(l, j0 + jt + jj);
                    let bl = if abs { v.abs_ref() } else { v.clone() };
                    let lanes = &mut bcast[jj * MR..jj * MR + MR];
                    for x in lanes.iter_mut() {
                        x.clone_from(&bl);
                    }
                    T::add_product_lanes(&mut acc[jj * MR..jj * MR + MR], al, lanes);
                }
            }
            for jj in 0..nr {
                let dst = (jt + jj) * MB + g * MR;
                s[dst..dst + MR].clone_from_slice(&acc[jj * MR..jj * MR + MR]);
            }
        }
    }
    s
}

/// `C ← α·A·B + β·C` in double-double with each `s_ij` summed by the **compensated** dot
/// product: per block of [`COMPENSATED_BLOCK`] = 32 terms (fixed by the index), the leading
/// words' products added by TwoSum into one `f64` while their errors and the cross products
/// gather in a second, then the block's sum added to a double-double total with the accurate
/// addition. About 13 `f64` operations per term instead of [`gemm`]'s 33, and, from `k ≈ 150`
/// on, a smaller bound: `|ŝ_ij − s_ij| ≤ g·Σ_l|a_il||b_lj| + 2kη` with
/// `g =` [`compensated_dot_gamma`]`(k)` (about `1160u² + 3u²·k/32`, `u = 2^-53`; the recursive
/// sum's is about `8u²·k`). The rest (`α`, `β`, conventions, componentwise bound of `C`) is
/// [`gemm`]'s; the GPU twin ([`gpu::gemm_dd_compensated`](super::gpu::gemm_dd_compensated))
/// returns the same bits.
///
/// Special values: a NaN in a row or column, `∞ − ∞` or `0·∞` gives NaN, an infinite term or
/// an overflowing sum ±∞ (a block whose leading sum is not finite is passed on alone); zeros
/// keep IEEE's signs (a sum of `−0` products is `−0`).
///
/// # Errors
/// As [`gemm`].
pub fn gemm_dd_compensated(
    alpha: &Dd,
    a: MatRef<'_, Dd>,
    b: MatRef<'_, Dd>,
    beta: &Dd,
    c: MatMut<'_, Dd>,
) -> Result<()> {
    gemm_dd_compensated_impl(alpha, a, b, beta, c, false).map(drop)
}

/// [`gemm_dd_compensated`] and the componentwise bound of each entry of `C` (column-major),
/// as [`gemm_bounded`] with the compensated sum's `g`.
///
/// # Errors
/// As [`gemm`].
pub fn gemm_dd_compensated_bounded(
    alpha: &Dd,
    a: MatRef<'_, Dd>,
    b: MatRef<'_, Dd>,
    beta: &Dd,
    c: MatMut<'_, Dd>,
) -> Result<Vec<f64>> {
    gemm_dd_compensated_impl(alpha, a, b, beta, c, true)
}

fn gemm_dd_compensated_impl(
    alpha: &Dd,
    a: MatRef<'_, Dd>,
    b: MatRef<'_, Dd>,
    beta: &Dd,
    c: MatMut<'_, Dd>,
    with_bounds: bool,
) -> Result<Vec<f64>> {
    let g = compensated_dot_gamma(a.cols());
    gemm_with(alpha, a, b, beta, c, with_bounds, g, compensated_products)
}

/// The state of one compensated double-double dot product (see [`gemm_dd_compensated`]): the
/// double-double total of the finished blocks, and the current block's `f64` sum of leading
/// products and `f64` sum of errors.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CompensatedDot {
    total: Dd,
    s: f64,
    e: f64,
}

impl CompensatedDot {
    pub(crate) fn new() -> Self {
        CompensatedDot {
            total: -Dd::ZERO,
            s: -0.0,
            e: 0.0,
        }
    }

    /// One term `a·b`: TwoProduct of the leading words and the two cross products into `π`,
    /// TwoSum into `s`, `e ← e + (q + π)` (the low words' product is left out: at most
    /// `u²·|a·b|`).
    #[inline(always)]
    pub(crate) fn step(&mut self, a: Dd, b: Dd) {
        let (p, q0) = two_prod(a.hi, b.hi);
        let t = a.hi.mul_add(b.lo, q0);
        let pi = a.lo.mul_add(b.hi, t);
        let (s, q) = two_sum(self.s, p);
        self.s = s;
        self.e += q + pi;
    }

    /// Ends a block: `(s, e)` as a double-double (TwoSum; `s` alone when it is not finite or
    /// `e` is zero, which keeps IEEE's infinities and signed zeros) added to the total.
    #[inline(always)]
    pub(crate) fn flush(&mut self) {
        // The words as they are (Dd::new would renormalise, and turn −0 into +0).
        let v = if !self.s.is_finite() || self.e == 0.0 {
            Dd {
                hi: self.s,
                lo: 0.0,
            }
        } else {
            let (hi, lo) = two_sum(self.s, self.e);
            Dd { hi, lo }
        };
        self.total = self.total.add_accurate(v);
        self.s = -0.0;
        self.e = 0.0;
    }

    /// Whether term `l` (0-based) of `k` ends a block.
    #[inline(always)]
    pub(crate) fn ends_block(l: usize, k: usize) -> bool {
        (l + 1).is_multiple_of(COMPENSATED_BLOCK) || l + 1 == k
    }

    pub(crate) fn value(&self) -> Dd {
        self.total
    }
}

/// Every compensated `s_ij` (or of `|A|`, `|B|`), column-major: row panels packed as for
/// [`products`], [`MB`] rows of a panel advancing through `l` together for one column.
fn compensated_products(a: MatRef<'_, Dd>, b: MatRef<'_, Dd>, abs: bool) -> Vec<Dd> {
    let (m, n, k) = (a.rows(), b.cols(), a.cols());
    let row_blocks = m.div_ceil(MB);
    let panels: Vec<Vec<Dd>> = (0..row_blocks)
        .into_par_iter()
        .map(|ib| pack_rows(a, ib * MB, MB.min(m - ib * MB), abs, &Dd::ZERO))
        .collect();
    let cols: Vec<Vec<Dd>> = (0..n)
        .into_par_iter()
        .map(|j| {
            let mut col = Vec::with_capacity(m);
            for (ib, panel) in panels.iter().enumerate() {
                let rows = MB.min(m - ib * MB);
                let mut acc = [CompensatedDot::new(); MB];
                for l in 0..k {
                    let v = *b.at(l, j);
                    let bl = if abs { v.abs() } else { v };
                    for (r, st) in acc[..rows].iter_mut().enumerate() {
                        st.step(panel[l * MB + r], bl);
                    }
                    if CompensatedDot::ends_block(l, k) {
                        acc[..rows].iter_mut().for_each(CompensatedDot::flush);
                    }
                }
                col.extend(acc[..rows].iter().map(CompensatedDot::value));
            }
            col
        })
        .collect();
    cols.concat()
}

/// BLAS `?gemm`: `C ← α·op(A)·op(B) + β·C` with `op(A)` `m × k`, `op(B)` `k × n`, `C`
/// `m × n`, each a column-major array with its leading dimension (`A` is `m × k` when not
/// transposed, `k × m` when transposed; likewise `B`).
///
/// # Errors
/// [`Error::LeadingDim`](crate::Error::LeadingDim) (`lda`, `ldb`, `ldc`),
/// [`Error::ArrayTooShort`](crate::Error::ArrayTooShort), then those of [`gemm`].
#[allow(clippy::too_many_arguments)]
pub fn gemm_blas<T: Scalar>(
    transa: Trans,
    transb: Trans,
    m: usize,
    n: usize,
    k: usize,
    alpha: &T,
    a: &[T],
    lda: usize,
    b: &[T],
    ldb: usize,
    beta: &T,
    c: &mut [T],
    ldc: usize,
) -> Result<()> {
    let a = MatRef::from_blas(("a", "lda"), transa, m, k, a, lda)?;
    let b = MatRef::from_blas(("b", "ldb"), transb, k, n, b, ldb)?;
    let c = MatMut::from_blas(("c", "ldc"), m, n, c, ldc)?;
    gemm(alpha, a, b, beta, c)
}
