//! Fused RNS GEMV on the CPU: `y ← α·A·x + β·y` with every entry rounded once.
//!
//! The paper's GEMV (Algorithm 1 of the MPRES-BLAS paper, [`level2::gemv`](super::level2::gemv)
//! on [`MpFloat`]) rounds each product and each partial sum. The fused form computes
//! `d = fl(α·x)` as the paper does, then each `y_i = RN_p(Σ_j a_ij·d_j + β·y_i)`: the sum is
//! accumulated exactly in a wider basis of the same moduli and rounded once (nearest, ties to
//! even), terms below `2^-(p+4)` of a row's largest being dropped and charged to the bound
//! (the engine and its proof: `rns/accumulate.rs`). The result is the same bits for any
//! thread count and on the GPU ([`gpu::rns::gemv_fused`](super::gpu::rns::gemv_fused)),
//! and it is much more accurate than the paper's form: the bound is about
//! `2u·Σ_j|a_ij||α x_j|`, against `γ_(n+2)·(|α||A||x| + |β||y|)_i`.
//!
//! **Bounds** ([`gemv_fused_bounded`]) are extended-range floats ([`ExtF`], rounded up), because
//! `u = 2^-p` leaves the range of `f64` beyond 1074 bits: `|ŷ_i − y_i| ≤ bound[i]` against the
//! exact `α·(A x)_i + β·y_i`, `None` where the result is NaN or infinite.
//!
//! **Conventions** are those of [`level2::gemv`](super::level2::gemv): `α = 0` reads neither
//! `A` nor `x` (and gives `fl(β·y_i)`), `β = 0` does not read `y`, `m = 0`, `n = 0` or
//! `α = 0` with `β = 1` return at once; NaN and infinities propagate as in IEEE arithmetic
//! (an infinite product and one of the other sign give NaN; an exact zero sum is `+0` unless
//! every term is `−0`).

use super::level1::check_same_len;
use super::level2::{check_ctx, gemv_prologue, store_rows};
use crate::error::Result;
use crate::rns::accumulate::{Accumulator, Scan, Term, Window};
use crate::rns::basis::mul_mod;
use crate::rns::term_lanes::{TermScratch, prefetch_residues};
use crate::rns::{Basis, ExtF, MpFloat};
use crate::view::{MatMut, MatRef, VecMut, VecRef};
use rayon::prelude::*;
use std::sync::Arc;

/// `y ← α·A·x + β·y` for an `m × n` view `A` of [`MpFloat`] (pass `a.t()` for `Aᵀ`), each
/// entry rounded once (module docs).
///
/// ```
/// use mpblas::blas::rns::{gemv_fused, gemv_fused_bounded};
/// use mpblas::rns::{Basis, MpFloat};
/// use mpblas::view::{MatRef, VecMut, VecRef};
/// let b = Basis::new(106).unwrap();
/// let f = |v: f64| MpFloat::from_f64(&b, v);
/// // [[2^100, 1, −2^100]] · [1, 2^-10, 1] at 107 bits: the paper's order rounds 2^100 + 2^-10
/// // to 2^100 and returns 0; the exact sum keeps the middle term
/// let a = [f(2f64.powi(100)), f(1.0), f(-2f64.powi(100))];
/// let x = [f(1.0), f(2f64.powi(-10)), f(1.0)];
/// let mut y = [f(0.0)];
/// let a = MatRef::col_major(&a, 1, 3, 1).unwrap();
/// gemv_fused(&f(1.0), a, VecRef::contiguous(&x), &f(0.0), VecMut::contiguous(&mut y)).unwrap();
/// assert_eq!(y[0], f(2f64.powi(-10)));
/// // terms below 2^-(p+4) of the row's largest are dropped and charged to the bound: with
/// // 2^-200 in the middle the result is 0, within its (componentwise) bound
/// let x = [f(1.0), f(2f64.powi(-200)), f(1.0)];
/// let b = gemv_fused_bounded(&f(1.0), a, VecRef::contiguous(&x), &f(0.0), VecMut::contiguous(&mut y))
///     .unwrap();
/// assert!(y[0].is_zero() && b[0].unwrap().to_f64() >= 2f64.powi(-200));
/// ```
///
/// # Errors
/// [`Error::LengthMismatch`](crate::Error::LengthMismatch) (`x`, `y`),
/// [`Error::BasisMismatch`](crate::Error::BasisMismatch),
/// [`Error::OutOfRange`](crate::Error::OutOfRange) for more than `2^28` columns.
pub fn gemv_fused(
    alpha: &MpFloat,
    a: MatRef<'_, MpFloat>,
    x: VecRef<'_, MpFloat>,
    beta: &MpFloat,
    y: VecMut<'_, MpFloat>,
) -> Result<()> {
    gemv_fused_impl(alpha, a, x, beta, y, false).map(drop)
}

/// [`gemv_fused`], returning the bound of each entry (module docs).
///
/// # Errors
/// As [`gemv_fused`].
pub fn gemv_fused_bounded(
    alpha: &MpFloat,
    a: MatRef<'_, MpFloat>,
    x: VecRef<'_, MpFloat>,
    beta: &MpFloat,
    y: VecMut<'_, MpFloat>,
) -> Result<Vec<Option<ExtF>>> {
    gemv_fused_impl(alpha, a, x, beta, y, true)
}

/// An entry when `α = 0`: `fl(β·y)`, or `+0` without `y` (`β = 0`: `y` is not read), with
/// its one-rounding bound.
fn beta_times(base: &Arc<Basis>, beta: &MpFloat, y: Option<&MpFloat>) -> (MpFloat, Option<ExtF>) {
    let v = y.map_or_else(|| MpFloat::zero(base, false), |y| beta * y);
    let bound = one_rounding_bound(&v);
    (v, bound)
}

/// The bound of a value computed with at most one rounding from an exact value: `None` when
/// it is not finite, `0` when it is zero (exact), else `2^(e+1) ≥ 2^-p·|exact|`.
pub(crate) fn one_rounding_bound(v: &MpFloat) -> Option<ExtF> {
    if !v.is_finite() {
        None
    } else if v.is_zero() {
        Some(ExtF::ZERO)
    } else {
        Some(ExtF::new(1.0, v.exponent() + 1))
    }
}

fn gemv_fused_impl(
    alpha: &MpFloat,
    a: MatRef<'_, MpFloat>,
    x: VecRef<'_, MpFloat>,
    beta: &MpFloat,
    y: VecMut<'_, MpFloat>,
    with_bounds: bool,
) -> Result<Vec<Option<ExtF>>> {
    check_same_len("x", a.cols(), x.len())?;
    check_same_len("y", a.rows(), y.len())?;
    let (m, n) = (a.rows(), a.cols());
    let base = alpha.basis().clone();
    let unchanged = |v: &MpFloat| v.is_finite().then_some(ExtF::ZERO);
    let Some((alpha_zero, beta_zero)) = gemv_prologue(alpha, a, x, beta, y.rb())? else {
        return Ok(if with_bounds {
            y.rb().iter().map(unchanged).collect()
        } else {
            Vec::new()
        });
    };
    let yr = y.rb();
    let rows: Vec<(MpFloat, Option<ExtF>)> = if alpha_zero {
        (0..m)
            .into_par_iter()
            .map(|i| beta_times(&base, beta, yr.get(i).filter(|_| !beta_zero)))
            .collect()
    } else {
        let d: Vec<MpFloat> = (0..n)
            .into_par_iter()
            .map(|j| match x.get(j) {
                Some(xj) => alpha * xj,
                None => MpFloat::zero(&base, false),
            })
            .collect();
        let fused = FusedRows::new(&base, &d, (!beta_zero).then_some(beta))?;
        (0..m)
            .into_par_iter()
            .map(|i| {
                let row = a.row(i).unwrap_or_else(|| VecRef::contiguous(&[]));
                let by = if beta_zero { None } else { yr.get(i) };
                fused.row(row, by)
            })
            .collect()
    };
    Ok(store_rows(y, rows, with_bounds))
}

/// `C ← α·A·B + β·C` for views `A` (`m × k`), `B` (`k × n`), `C` (`m × n`) of [`MpFloat`]
/// (pass `a.t()`, `b.t()` for transposes), each entry `RN_p(Σ_l a_il·fl(α b_lj) + β c_ij)`
/// rounded once as in [`gemv_fused`] (one fused GEMV per column of `B`, rows in parallel):
/// the same bits for any thread count. BLAS conventions: `m = 0` or `n = 0`, or `α = 0` or
/// `k = 0` with `β = 1`, return at once; `α = 0` or `k = 0` gives `fl(β·c_ij)` without reading
/// `A` or `B`; `β = 0` does not read `C`.
///
/// This first form forms each product `a_il·fl(α b_lj)` once per column of `B` (one fused GEMV
/// per column); a blocked form will give the same bits.
///
/// # Errors
/// [`Error::LengthMismatch`](crate::Error::LengthMismatch) for inner or outer dimensions that
/// do not agree, [`Error::BasisMismatch`](crate::Error::BasisMismatch),
/// [`Error::OutOfRange`](crate::Error::OutOfRange) for `k > 2^28`.
pub fn gemm_fused(
    alpha: &MpFloat,
    a: MatRef<'_, MpFloat>,
    b: MatRef<'_, MpFloat>,
    beta: &MpFloat,
    c: MatMut<'_, MpFloat>,
) -> Result<()> {
    gemm_fused_impl(alpha, a, b, beta, c, false).map(drop)
}

/// [`gemm_fused`] and the bound of each entry (column-major, `m·n` of them; `None` where the
/// entry is NaN or infinite), as [`gemv_fused_bounded`]'s.
///
/// # Errors
/// As [`gemm_fused`].
pub fn gemm_fused_bounded(
    alpha: &MpFloat,
    a: MatRef<'_, MpFloat>,
    b: MatRef<'_, MpFloat>,
    beta: &MpFloat,
    c: MatMut<'_, MpFloat>,
) -> Result<Vec<Option<ExtF>>> {
    gemm_fused_impl(alpha, a, b, beta, c, true)
}

fn gemm_fused_impl(
    alpha: &MpFloat,
    a: MatRef<'_, MpFloat>,
    b: MatRef<'_, MpFloat>,
    beta: &MpFloat,
    mut c: MatMut<'_, MpFloat>,
    with_bounds: bool,
) -> Result<Vec<Option<ExtF>>> {
    check_same_len("b (rows)", a.cols(), b.rows())?;
    check_same_len("c (rows)", a.rows(), c.rows())?;
    check_same_len("c (columns)", b.cols(), c.cols())?;
    let (m, n, k) = (a.rows(), b.cols(), a.cols());
    let base = alpha.basis().clone();
    let (alpha_zero, beta_zero) = (alpha.is_zero() || k == 0, beta.is_zero());
    let one = MpFloat::from_f64(&base, 1.0);
    let cols = |c: &MatMut<'_, MpFloat>| -> Vec<Option<ExtF>> {
        let c = c.rb();
        (0..n)
            .flat_map(|j| (0..m).map(move |i| (i, j)))
            .map(|(i, j)| {
                c.get(i, j)
                    .and_then(|v| v.is_finite().then_some(ExtF::ZERO))
            })
            .collect()
    };
    if m == 0 || n == 0 || (alpha_zero && beta.num_eq(&one)) {
        return Ok(if with_bounds { cols(&c) } else { Vec::new() });
    }
    check_ctx(&base, &[beta], &[], (!alpha_zero).then_some(a))?;
    if !alpha_zero {
        check_ctx(&base, &[], &[], Some(b))?;
    }
    if !beta_zero {
        check_ctx(&base, &[], &[], Some(c.rb()))?;
    }
    let mut bounds = Vec::with_capacity(if with_bounds { m * n } else { 0 });
    for j in 0..n {
        let cj: Vec<MpFloat> = (0..m)
            .map(|i| {
                c.rb()
                    .get(i, j)
                    .cloned()
                    .unwrap_or_else(|| MpFloat::zero(&base, false))
            })
            .collect();
        let rows: Vec<(MpFloat, Option<ExtF>)> = if alpha_zero {
            cj.par_iter()
                .map(|v| beta_times(&base, beta, (!beta_zero).then_some(v)))
                .collect()
        } else {
            let d: Vec<MpFloat> = (0..k)
                .into_par_iter()
                .map(|l| match b.get(l, j) {
                    Some(blj) => alpha * blj,
                    None => MpFloat::zero(&base, false),
                })
                .collect();
            let fused = FusedRows::new(&base, &d, (!beta_zero).then_some(beta))?;
            (0..m)
                .into_par_iter()
                .map(|i| {
                    let row = a.row(i).unwrap_or_else(|| VecRef::contiguous(&[]));
                    fused.row(row, (!beta_zero).then(|| &cj[i]))
                })
                .collect()
        };
        for (i, (v, bd)) in rows.into_iter().enumerate() {
            if let Some(slot) = c.get_mut(i, j) {
                *slot = v;
            }
            if with_bounds {
                bounds.push(bd);
            }
        }
    }
    Ok(bounds)
}

/// How many terms ahead the fused loops ask for a term's residues.
const PREFETCH_AHEAD: usize = 6;

/// Terms per task of [`dot_fused`].
const DOT_CHUNK: usize = 4096;

/// `RN_p(Σ_j x_j·y_j)`: the exact dot product of two RNS vectors rounded once (the engine of
/// [`gemv_fused`]; terms below `2^-(p+4)` of the largest are dropped and charged to the bound),
/// the same bits for any thread count: chunks of 4096 terms are summed in parallel into
/// residues, which add up in any order. The empty dot is `+0`; NaN and infinities propagate as
/// in IEEE arithmetic.
///
/// ```
/// use mpblas::blas::rns::dot_fused;
/// use mpblas::rns::{Basis, MpFloat};
/// use mpblas::view::VecRef;
/// let b = Basis::new(212).unwrap();
/// let f = |v: f64| MpFloat::from_f64(&b, v);
/// let x = [f(2f64.powi(200)), f(3.0), f(-2f64.powi(200))];
/// let y = [f(1.0), f(2f64.powi(-10)), f(1.0)];
/// let d = dot_fused(VecRef::contiguous(&x), VecRef::contiguous(&y)).unwrap();
/// assert_eq!(d, f(3.0 * 2f64.powi(-10)));
/// ```
///
/// # Errors
/// [`Error::LengthMismatch`](crate::Error::LengthMismatch),
/// [`Error::BasisMismatch`](crate::Error::BasisMismatch),
/// [`Error::OutOfRange`](crate::Error::OutOfRange) beyond `2^28` terms.
pub fn dot_fused(x: VecRef<'_, MpFloat>, y: VecRef<'_, MpFloat>) -> Result<MpFloat> {
    dot_fused_bounded(x, y).map(|(v, _)| v)
}

/// [`dot_fused`] and the bound on its error against the exact `Σ_j x_j·y_j` (an
/// extended-range float, `None` for a NaN or infinite result): about `u·Σ_j|x_j y_j|`.
///
/// # Errors
/// As [`dot_fused`].
pub fn dot_fused_bounded(
    x: VecRef<'_, MpFloat>,
    y: VecRef<'_, MpFloat>,
) -> Result<(MpFloat, Option<ExtF>)> {
    check_same_len("y", x.len(), y.len())?;
    let n = x.len();
    let Some(first) = x.get(0) else {
        let b = <MpFloat as crate::scalar::Scalar>::ctx_for_empty();
        return Ok((MpFloat::zero(&b, false), Some(ExtF::ZERO)));
    };
    let base = first.basis().clone();
    check_ctx(&base, &[], &[x, y], None)?;
    let acc = Accumulator::new(&base, n)?;
    let chunks = n.div_ceil(DOT_CHUNK);
    let range = |c: usize| c * DOT_CHUNK..((c + 1) * DOT_CHUNK).min(n);
    let pair = |j: usize| x.get(j).zip(y.get(j));
    let scan = (0..chunks)
        .into_par_iter()
        .map(|c| {
            let mut s = Scan::default();
            for (xj, yj) in range(c).filter_map(pair) {
                s.add(Term::of(xj, yj));
            }
            s
        })
        .reduce(Scan::default, Scan::merge);
    if let Some(special) = scan.special(&base) {
        return Ok(special);
    }
    let w = acc.window(scan.low_min, scan.low_max);
    let parts: Vec<(Vec<u32>, u64, bool)> = (0..chunks)
        .into_par_iter()
        .map(|c| {
            let mut sum = Summer::new(&acc, w, scan.low_max);
            for j in range(c) {
                let Some((xj, yj)) = pair(j) else { continue };
                if let Some((xa, ya)) = pair(j + PREFETCH_AHEAD) {
                    prefetch_residues(xa);
                    prefetch_residues(ya);
                }
                if let Term::Finite { neg, low } = Term::of(xj, yj) {
                    // the exact product (below M/4), its extension deferred to its bucket
                    sum.add(neg, low, xj.residues(), yj.residues());
                }
            }
            sum.finish()
        })
        .collect();
    let wide = &acc.levels[w.level];
    let mut s = vec![0u64; wide.len()];
    let (mut q, mut dropped) = (0u64, false);
    for (part, pq, pd) in &parts {
        for (t, &r) in s.iter_mut().zip(part) {
            *t += r as u64;
        }
        q += pq;
        dropped |= pd;
    }
    let s: Vec<u32> = s
        .iter()
        .zip(&wide.m)
        .map(|(&t, &m)| (t % m as u64) as u32)
        .collect();
    Ok(acc.rounded(&w, s, q, dropped))
}

/// Words of one row's shift buckets (512 KiB) before it scales each term instead.
const BUCKET_WORDS: usize = 1 << 16;

/// One exact sum in progress (or a part of one: parts of the same window add up in any
/// order). Terms are summed per shift `s = low − L`, unscaled and with their base extension
/// deferred (`rns/term_lanes.rs`: the base residues of each product and the sums of its CRT
/// coefficients and rank), and each bucket is extended and scaled by `2^s` once at the end;
/// a sum whose shifts span too many buckets extends and scales each term instead (the same
/// integers either way).
struct Summer<'a> {
    acc: &'a Accumulator,
    w: Window,
    wide: &'a Basis,
    kw: usize,
    /// Words of one bucket (the deferred layout).
    words: usize,
    bucketed: bool,
    buckets: Vec<u64>,
    used: Vec<bool>,
    pw: Vec<u32>,
    /// One term's or bucket's wide residues.
    t: Vec<u32>,
    scratch: TermScratch,
    sum: Vec<u64>,
    q: u64,
    dropped: bool,
}

impl<'a> Summer<'a> {
    fn new(acc: &'a Accumulator, w: Window, low_max: i64) -> Summer<'a> {
        let wide = &*acc.levels[w.level];
        let (kw, words) = (wide.len(), acc.deferred_words());
        let span = (low_max - w.l).max(0) as usize + 1;
        let bucketed = span * words <= BUCKET_WORDS;
        Summer {
            acc,
            w,
            wide,
            kw,
            words,
            bucketed,
            buckets: vec![0u64; if bucketed { span * words } else { 0 }],
            used: vec![false; if bucketed { span } else { 0 }],
            pw: vec![0u32; kw],
            t: vec![0u32; kw],
            scratch: TermScratch::default(),
            sum: vec![0u64; kw],
            q: 0,
            dropped: false,
        }
    }

    /// The term `±x·y·2^low`, `x` and `y` the base residues of two `p`-bit significands.
    fn add(&mut self, neg: bool, low: i64, x: &[u32], y: &[u32]) {
        let (w, words) = (self.w, self.words);
        self.q += self.acc.weight(w.top, low);
        if low < w.l {
            self.dropped = true;
            return;
        }
        let s = (low - w.l) as usize;
        if self.bucketed {
            self.used[s] = true;
            let bucket = &mut self.buckets[s * words..(s + 1) * words];
            self.acc.add_product_deferred(x, y, neg, bucket);
        } else {
            self.acc.product_wide(x, y, &mut self.t, &mut self.scratch);
            self.add_scaled(s, neg);
        }
    }

    /// `sum += ±t·2^s` (`t`: the wide residues in `self.t`).
    fn add_scaled(&mut self, s: usize, neg: bool) {
        let wide = self.wide;
        wide.pow2_into(s as u64, &mut self.pw);
        for k in 0..self.kw {
            let (m, mu) = (wide.m[k], wide.mu[k]);
            let t = mul_mod(self.t[k], self.pw[k], m, mu);
            self.sum[k] += if neg { m - t } else { t } as u64;
        }
    }

    /// The sum's residues (reduced), `Q` and whether a term was dropped.
    fn finish(mut self) -> (Vec<u32>, u64, bool) {
        let (wide, words) = (self.wide, self.words);
        for s in 0..self.used.len() {
            if !self.used[s] {
                continue;
            }
            let bucket = &self.buckets[s * words..(s + 1) * words];
            self.acc.deferred_to_wide(bucket, &mut self.t);
            self.add_scaled(s, false);
        }
        let s = self
            .sum
            .iter()
            .zip(&wide.m)
            .map(|(&t, &m)| (t % m as u64) as u32)
            .collect();
        (s, self.q, self.dropped)
    }
}

/// The per-call state of the fused rows: the accumulator, `d = fl(α·x)` and `β`.
struct FusedRows<'a> {
    acc: Accumulator,
    d: &'a [MpFloat],
    beta: Option<&'a MpFloat>,
}

impl<'a> FusedRows<'a> {
    fn new(base: &Arc<Basis>, d: &'a [MpFloat], beta: Option<&'a MpFloat>) -> Result<Self> {
        let acc = Accumulator::new(base, d.len() + beta.is_some() as usize)?;
        Ok(FusedRows { acc, d, beta })
    }

    /// One entry: `RN_p(Σ_j a_j·d_j + β·y_i)` and its bound.
    fn row(&self, a: VecRef<'_, MpFloat>, y: Option<&MpFloat>) -> (MpFloat, Option<ExtF>) {
        let acc = &self.acc;
        let by = self.beta.zip(y);
        let mut scan = Scan::default();
        for (aj, dj) in a.iter().zip(self.d) {
            scan.add(Term::of(aj, dj));
        }
        if let Some((b, yi)) = by {
            scan.add(Term::of(b, yi));
        }
        if let Some(special) = scan.special(&acc.base) {
            return special;
        }
        let w = acc.window(scan.low_min, scan.low_max);
        let mut sum = Summer::new(acc, w, scan.low_max);
        for (j, (aj, dj)) in a.iter().zip(self.d).enumerate() {
            if let Some(ahead) = a.get(j + PREFETCH_AHEAD) {
                prefetch_residues(ahead);
            }
            if let Term::Finite { neg, low } = Term::of(aj, dj) {
                sum.add(neg, low, aj.residues(), dj.residues());
            }
        }
        if let Some((b, yi)) = by
            && let Term::Finite { neg, low } = Term::of(b, yi)
        {
            sum.add(neg, low, b.residues(), yi.residues());
        }
        let (s, q, dropped) = sum.finish();
        acc.rounded(&w, s, q, dropped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sum whose terms scale one by one gives the residues of the same sum bucketed (the
    /// deferred extension per bucket): random significands with shifts across the window,
    /// both signs, every precision's level.
    #[test]
    fn scaled_terms_and_buckets_give_the_same_sum() {
        let mut rng = mpblas_testdata::SplitMix64::new(5);
        for p in [106u32, 424, 1696] {
            let base = Basis::new(p).unwrap();
            let acc = Accumulator::new(&base, 64).unwrap();
            let xs: Vec<MpFloat> = (0..64)
                .map(|_| {
                    let v = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
                    let e = (rng.next_u64() % 200) as i32 - 100;
                    MpFloat::from_f64(&base, v * 2f64.powi(e))
                })
                .collect();
            let (mut low_min, mut low_max) = (i64::MAX, i64::MIN);
            let terms: Vec<(bool, i64, usize)> = (0..64)
                .filter_map(|j| match Term::of(&xs[j], &xs[(j * 7 + 3) % 64]) {
                    Term::Finite { neg, low } => {
                        low_min = low_min.min(low);
                        low_max = low_max.max(low);
                        Some((neg, low, j))
                    }
                    _ => None,
                })
                .collect();
            let w = acc.window(low_min, low_max);
            let (mut bucketed, mut scaled) =
                (Summer::new(&acc, w, low_max), Summer::new(&acc, w, low_max));
            // both ways whatever the span
            let span = (low_max - w.l).max(0) as usize + 1;
            bucketed.buckets = vec![0u64; span * bucketed.words];
            bucketed.used = vec![false; span];
            bucketed.bucketed = true;
            scaled.bucketed = false;
            for &(neg, low, j) in &terms {
                let (x, y) = (xs[j].residues(), xs[(j * 7 + 3) % 64].residues());
                bucketed.add(neg, low, x, y);
                scaled.add(neg, low, x, y);
            }
            assert_eq!(bucketed.finish(), scaled.finish(), "{p} bits");
        }
    }
}
