//! Exact accumulation of RNS products, rounded once: the engine of the fused BLAS routines
//! (`blas::rns::gemv_fused`), shared by the CPU and, through its device twin in
//! `blas/blas_fused_rns_gpu.cu`, by the GPU.
//!
//! # Why
//!
//! The paper's GEMV rounds every product and every partial sum (`2n` roundings per entry,
//! bound `γ_(n+2)`), and each rounding is the expensive part of RNS arithmetic (interval
//! evaluation, exact scaling). But a sum of products of `p`-bit significands is an *integer*
//! once the terms are aligned to the smallest exponent, and integers add residue by residue,
//! with no rounding and in any order. What stops the paper from doing so is range: the
//! basis holds `2p + 2` bits, one product. Here the sum runs in a *wider basis* of the same
//! moduli sequence ([`Basis::with_len`]): the base basis's residues are its first ones, so only
//! the extra residues are computed (a base extension: of each operand `a_ij` on the GPU, of
//! each shift bucket's sum of products on the CPU), and the sum is rounded once, at the end, to
//! the working precision.
//!
//! # The window
//!
//! A term `t = a·d` of finite nonzero normalised operands has `|t| ∈ [2^(low+2p−2), 2^(low+2p))`
//! with `low = e_a + e_d`. Per sum: `T = max(low) + 2p`, `L = max(min(low), T − W − 2p)` with
//! `W = p + ⌈log2 nt⌉ + 6` (`nt` terms). Terms with `low ≥ L` enter exactly, scaled by
//! `2^(low−L)`; the others (below `2^(T−W)` each, together below `2^-(p+4)` of the largest
//! term) are dropped and charged to the bound. The sum is below `2^ub`,
//! `ub = T − L + ⌈log2 nt⌉`, so the wider basis needs `log2 M ≥ ub + 2`: two or three extra
//! moduli when a row's exponents span a few dozen binades, at most about `p/31 + 2` more.
//! Bases come in levels (`N + 2, N + 4, N + 8, …` moduli) so that a few serve every row.
//!
//! # Base extension
//!
//! For `X < 2^(p+1)` with residues `xᵢ` in the base basis (`N` moduli, product `M`):
//! `vᵢ = |xᵢ·wᵢ|_mᵢ`, `X = Σ vᵢ·Mᵢ − k·M` with `k = round(Σ vᵢ/mᵢ)` (exact: the sum is
//! `k + X/M` and `X/M < 2^-(p+1)`); `k` comes from `Σ ⌊vᵢ·μᵢ/2^32⌋` (`μᵢ = ⌊2^62/mᵢ⌋`), within
//! `1.5·N` units of `2^-30` of `2^30·(k + X/M)`. Then `|X|_m = |Σ vᵢ·|Mᵢ|_m − k·|M|_m|_m` for
//! every extra modulus `m`. The formula is linear, so neither device extends each term: the
//! CPU sums the products' `vᵢ` and `k` per shift bucket and extends each bucket once
//! (`rns/term_lanes.rs`); the GPU sums them, scaled by `2^(low − base)`, into one bucket per row
//! of the terms within 20 binades of the row's largest, extends that once, and extends the rare
//! term below it on its own (`blas/blas_fused_rns_gpu.cu`). The same residues either way.
//!
//! # Result and bound
//!
//! The value is `RN_p(Σ_kept t)`: the exact sum of the kept terms rounded once (nearest,
//! ties to even), the same bits whatever the order of the terms, the thread count or the
//! device. With `Q = Σ_t q_t`, `q_t = max(1, 2^(32 − (T − low − 2p)))` (so
//! `Σ|t| ≤ Q·2^(T−32)`, an exact integer), the returned bound on the error against
//! `Σ t` with the inputs' exact `α·x` is
//!
//! `2^(T−32−p) · (2Q + ⌊Q/2^20⌋ + 1 + D·2^26)`, `D = 1` when a term was dropped,
//!
//! covering the final rounding (`2^-p·Σ|t|`), the rounding of `d = fl(α·x)`
//! (`2^-p(1 + 2^(1−p))·Σ|t|`) and the dropped terms (`nt·2^(T−W)`).

use crate::error::{Error, Result};
use crate::rns::basis::{Basis, add_mod, inv_mod, mul_mod, reduce62, sub_mod};
use crate::rns::extf::ExtF;
use crate::rns::float::{Class, MpFloat};
use crate::rns::interval::{Tail, sign_of};
use std::cmp::Ordering;
use std::sync::Arc;

/// `⌈log2 x⌉` for `x ≥ 1`.
pub(crate) fn ceil_log2(x: u64) -> u64 {
    64 - (x.max(1) - 1).leading_zeros() as u64
}

/// Largest number of terms of one sum (the bound's integer `Q < 2^62`).
pub(crate) const MAX_TERMS: usize = 1 << 28;

/// The class of one product `a·d`, by `MpFloat::mul`'s special-value rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Term {
    Nan,
    Inf { neg: bool },
    Zero { neg: bool },
    Finite { neg: bool, low: i64 },
}

impl Term {
    pub(crate) fn of(a: &MpFloat, d: &MpFloat) -> Term {
        let neg = a.neg ^ d.neg;
        match (a.class, d.class) {
            (Class::Nan, _) | (_, Class::Nan) => Term::Nan,
            (Class::Infinite, _) | (_, Class::Infinite) => {
                if a.is_zero() || d.is_zero() {
                    Term::Nan
                } else {
                    Term::Inf { neg }
                }
            }
            _ if a.is_zero() || d.is_zero() => Term::Zero { neg },
            _ => Term::Finite {
                neg,
                low: a.exp + d.exp,
            },
        }
    }
}

/// What the first pass over a sum's terms learns: special values, signs of zeros, and the
/// exponent range of the finite nonzero terms.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scan {
    pub nan: bool,
    pub pos_inf: bool,
    pub neg_inf: bool,
    /// A finite nonzero term, or a `+0` term (then an exact zero sum is `+0`).
    pub positive_or_nonzero: bool,
    pub nonzero: bool,
    /// `max(low)` and `min(low)` over the finite nonzero terms.
    pub low_max: i64,
    pub low_min: i64,
}

impl Default for Scan {
    fn default() -> Scan {
        Scan {
            nan: false,
            pos_inf: false,
            neg_inf: false,
            positive_or_nonzero: false,
            nonzero: false,
            low_max: i64::MIN,
            low_min: i64::MAX,
        }
    }
}

impl Scan {
    pub(crate) fn add(&mut self, t: Term) {
        match t {
            Term::Nan => self.nan = true,
            Term::Inf { neg } => {
                if neg {
                    self.neg_inf = true
                } else {
                    self.pos_inf = true
                }
            }
            Term::Zero { neg } => self.positive_or_nonzero |= !neg,
            Term::Finite { low, .. } => {
                self.positive_or_nonzero = true;
                self.nonzero = true;
                self.low_max = self.low_max.max(low);
                self.low_min = self.low_min.min(low);
            }
        }
    }

    /// The scan of two parts of one sum.
    pub(crate) fn merge(self, o: Scan) -> Scan {
        Scan {
            nan: self.nan || o.nan,
            pos_inf: self.pos_inf || o.pos_inf,
            neg_inf: self.neg_inf || o.neg_inf,
            positive_or_nonzero: self.positive_or_nonzero || o.positive_or_nonzero,
            nonzero: self.nonzero || o.nonzero,
            low_max: self.low_max.max(o.low_max),
            low_min: self.low_min.min(o.low_min),
        }
    }

    /// The result when it is not a finite nonzero sum: NaN, ±Inf, or a zero (`−0` only when
    /// every term is `−0`), with its bound (`0` for the exact zero, none otherwise).
    pub(crate) fn special(&self, base: &Arc<Basis>) -> Option<(MpFloat, Option<ExtF>)> {
        if self.nan || (self.pos_inf && self.neg_inf) {
            Some((MpFloat::nan(base), None))
        } else if self.pos_inf || self.neg_inf {
            Some((MpFloat::infinity(base, self.neg_inf), None))
        } else if !self.nonzero {
            Some((
                MpFloat::zero(base, !self.positive_or_nonzero),
                Some(ExtF::ZERO),
            ))
        } else {
            None
        }
    }
}

/// The alignment of one sum: terms with `low ≥ l` enter scaled by `2^(low − l)`; the sum is
/// below `2^ub` and is held in the wider basis of level `level`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Window {
    pub top: i64,
    pub l: i64,
    pub ub: u64,
    pub level: usize,
}

/// The extra residues of the base extension: for each extra modulus `m_l` (`l ≥ N`) the row
/// `|Mᵢ|_(m_l)` (`i < N`) and `|M|_(m_l)`.
#[derive(Debug)]
pub(crate) struct Extension {
    /// Moduli of the wide basis.
    pub k: usize,
    /// `(k − n) × n`, row `l − n` at `[(l − n)·n ..]`.
    pub mi: Vec<u32>,
    /// `|M|_(m_l)`, `k − n` entries.
    pub m: Vec<u32>,
}

impl Extension {
    fn new(base: &Basis, wide: &Basis) -> Extension {
        let (n, k) = (base.len(), wide.len());
        let mut mi = vec![0u32; (k - n) * n];
        let mut m = vec![0u32; k - n];
        for l in n..k {
            let (ml, mul) = (wide.m[l], wide.mu[l]);
            let mut prod = 1u32;
            for &mj in &base.m {
                prod = mul_mod(prod, mj % ml, ml, mul);
            }
            m[l - n] = prod;
            for i in 0..n {
                let inv = inv_mod(base.m[i] % ml, ml);
                mi[(l - n) * n + i] = mul_mod(prod, inv, ml, mul);
            }
        }
        Extension { k, mi, m }
    }
}

/// The base's moduli, Barrett constants and CRT weights as 64-bit lanes (for the vector terms
/// of `rns/term_lanes.rs`), padded with zeros to a multiple of eight (a padding lane computes
/// `0` from `0`).
#[derive(Debug)]
pub(crate) struct BaseLanes {
    /// `n` rounded up to a multiple of 8.
    pub n8: usize,
    pub m: Vec<u64>,
    pub mu: Vec<u64>,
    pub w: Vec<u64>,
}

impl BaseLanes {
    pub(crate) fn new(b: &Basis) -> BaseLanes {
        let n8 = b.len().next_multiple_of(8);
        let pad = |v: &[u32]| -> Vec<u64> {
            let mut p: Vec<u64> = v.iter().map(|&x| x as u64).collect();
            p.resize(n8, 0);
            p
        };
        BaseLanes {
            n8,
            m: pad(&b.m),
            mu: pad(&b.mu),
            w: pad(&b.w),
        }
    }
}

/// The per-call constants of exact accumulations of `nt`-term sums in one base basis.
#[derive(Debug)]
pub(crate) struct Accumulator {
    pub base: Arc<Basis>,
    pub nt: usize,
    /// The dropping window `W = p + ⌈log2 nt⌉ + 6`.
    pub w: i64,
    /// The wider bases, by level (increasing length; the last covers every sum).
    pub levels: Vec<Arc<Basis>>,
    pub ext: Arc<Extension>,
    /// The base's constants as padded 64-bit lanes (`rns/term_lanes.rs`).
    pub lanes: BaseLanes,
}

/// One `Extension` per (base length, wide length), kept for the life of the process.
fn extension(base: &Basis, wide: &Basis) -> Arc<Extension> {
    type Cache = std::sync::Mutex<std::collections::HashMap<(usize, usize), Arc<Extension>>>;
    static CACHE: std::sync::OnceLock<Cache> = std::sync::OnceLock::new();
    let mut cache = CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    cache
        .entry((base.len(), wide.len()))
        .or_insert_with(|| Arc::new(Extension::new(base, wide)))
        .clone()
}

impl Accumulator {
    /// The constants for sums of `nt ≥ 1` terms.
    ///
    /// # Errors
    /// [`Error::OutOfRange`] for more than [`MAX_TERMS`] terms.
    pub(crate) fn new(base: &Arc<Basis>, nt: usize) -> Result<Accumulator> {
        if nt > MAX_TERMS {
            return Err(Error::OutOfRange {
                what: "terms of one exactly accumulated sum",
                got: nt,
                min: 1,
                max: MAX_TERMS,
            });
        }
        let p = base.precision as i64;
        let lg = ceil_log2(nt as u64) as i64;
        let w = p + lg + 6;
        // The widest sum: T − L ≤ W + 2p.
        let worst = (w + 2 * p + lg) as u64 + 2;
        let n = base.len();
        let mut levels = Vec::new();
        let mut extra = 2;
        loop {
            let b = Basis::with_len(n + extra);
            let done = b.log2m as u64 >= worst;
            levels.push(b);
            if done {
                break;
            }
            extra *= 2;
        }
        // Trim the last level to the fewest moduli that cover the worst case.
        if levels.len() > 1 {
            let lo = levels[levels.len() - 2].len();
            let mut k = levels[levels.len() - 1].len();
            while k - 1 > lo && Basis::with_len(k - 1).log2m as u64 >= worst {
                k -= 1;
            }
            let last = levels.len() - 1;
            levels[last] = Basis::with_len(k);
        }
        let ext = extension(base, levels.last().expect("at least one level"));
        Ok(Accumulator {
            base: base.clone(),
            nt,
            w,
            levels,
            ext,
            lanes: BaseLanes::new(base),
        })
    }

    /// Moduli of the widest level.
    pub(crate) fn max_len(&self) -> usize {
        self.ext.k
    }

    /// The window of a sum whose finite nonzero terms span `low ∈ [low_min, low_max]`.
    pub(crate) fn window(&self, low_min: i64, low_max: i64) -> Window {
        let p2 = 2 * self.base.precision as i64;
        let top = low_max + p2;
        let l = low_min.max(top - self.w - p2);
        let ub = (top - l) as u64 + ceil_log2(self.nt as u64);
        let level = self
            .levels
            .iter()
            .position(|b| b.log2m as u64 >= ub + 2)
            .unwrap_or(self.levels.len() - 1);
        Window { top, l, ub, level }
    }

    /// The residues of a `p`-bit significand `x` (base basis) in the first `out.len()` moduli
    /// of the widest level (base extension, module docs); `v` is scratch. Dispatched to an
    /// AVX2 build of the same loops where the CPU has it, as `basis::dot`. The CPU's fused
    /// routines extend products only (`rns/term_lanes.rs`); this is the GPU kernels' step
    /// (`blas_fused_rns_gpu.cu`), kept as their reference and tested below.
    #[cfg(test)]
    pub(crate) fn extend(&self, x: &[u32], out: &mut [u32], v: &mut Vec<u32>) {
        self.extend_any(x, out, v, false)
    }

    /// [`extend`](Accumulator::extend) of a product of two `p`-bit significands, `X < 2^(2p) ≤
    /// M/4` (its residues are the products of theirs): `X/M < 1/4` is no longer negligible, so
    /// the rank is the floor of the fixed-point sum raised by twice its error, `⌊(F + 3n)/2^30⌋`
    /// (the sum `2^30·(k + X/M)` is underestimated by at most `1.5n` units).
    pub(crate) fn extend_product(&self, x: &[u32], out: &mut [u32], v: &mut Vec<u32>) {
        self.extend_any(x, out, v, true)
    }

    fn extend_any(&self, x: &[u32], out: &mut [u32], v: &mut Vec<u32>, product: bool) {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            unsafe { self.extend_avx2(x, out, v, product) };
            return;
        }
        self.extend_generic(x, out, v, product)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn extend_avx2(&self, x: &[u32], out: &mut [u32], v: &mut Vec<u32>, product: bool) {
        self.extend_generic(x, out, v, product)
    }

    #[inline(always)]
    fn extend_generic(&self, x: &[u32], out: &mut [u32], v: &mut Vec<u32>, product: bool) {
        let b = &*self.base;
        let n = b.len();
        out[..n].copy_from_slice(x);
        v.clear();
        v.extend(
            x.iter()
                .zip(&b.w)
                .zip(b.m.iter().zip(&b.mu))
                .map(|((&xi, &wi), (&m, &mu))| mul_mod(xi, wi, m, mu)),
        );
        let frac: u64 = v
            .iter()
            .zip(&b.mu)
            .map(|(&vi, &mu)| (vi as u64 * mu as u64) >> 32)
            .sum();
        // at most n, below every modulus
        let k = if product {
            (frac + 3 * n as u64) >> 30
        } else {
            (frac + (1 << 29)) >> 30
        } as u32;
        let wide = self.levels.last().expect("at least one level");
        for (l, r) in out[n..].iter_mut().enumerate() {
            let g = n + l;
            let (m, mu) = (wide.m[g], wide.mu[g]);
            let (mut lo, mut hi) = (0u64, 0u64);
            for (&vi, &ci) in v.iter().zip(&self.ext.mi[l * n..(l + 1) * n]) {
                let p = vi as u64 * ci as u64;
                lo += p & 0xffff_ffff;
                hi += p >> 32;
            }
            // Σ vᵢ·|Mᵢ|_m = hi·2^32 + lo with hi, lo below 2^62
            let s = add_mod(
                mul_mod(reduce62(hi, m, mu), wide.two32[g], m, mu),
                reduce62(lo, m, mu),
                m,
            );
            *r = sub_mod(s, mul_mod(k, self.ext.m[l], m, mu), m);
        }
    }

    /// The result of a sum: `S` rounded ([`round`](Accumulator::round)) and its bound from `Q`
    /// and whether a term was dropped (none when the result overflowed).
    pub(crate) fn rounded(
        &self,
        w: &Window,
        s: Vec<u32>,
        q: u64,
        dropped: bool,
    ) -> (MpFloat, Option<ExtF>) {
        let value = self.round(w, s);
        let bound = value.is_finite().then(|| self.bound(w.top, q, dropped));
        (value, bound)
    }

    /// Rounds the signed sum `S` (residues in the window's level, `|S| < 2^ub`) times `2^l`
    /// to the base precision. An exact zero of a sum with nonzero terms is `+0`.
    pub(crate) fn round(&self, w: &Window, mut s: Vec<u32>) -> MpFloat {
        let wide = &self.levels[w.level];
        let neg = match sign_of(wide, &s, w.ub) {
            Ordering::Equal => return MpFloat::zero(&self.base, false),
            Ordering::Less => {
                for (r, &m) in s.iter_mut().zip(&wide.m) {
                    *r = sub_mod(0, *r, m);
                }
                true
            }
            Ordering::Greater => false,
        };
        MpFloat::finish_from(wide, &self.base, neg, s, w.l, Tail::Zero, w.ub)
    }

    /// `q_t` of a term (module docs).
    pub(crate) fn weight(&self, top: i64, low: i64) -> u64 {
        let delta = top - low - 2 * self.base.precision as i64;
        if delta > 32 { 1 } else { 1u64 << (32 - delta) }
    }

    /// The error bound of a sum (module docs) from `Q` and whether a term was dropped.
    pub(crate) fn bound(&self, top: i64, q: u64, dropped: bool) -> ExtF {
        let b = 2 * q as u128 + (q >> 20) as u128 + 1 + if dropped { 1 << 26 } else { 0 };
        ExtF::from_u128_ru(b, top - 32 - self.base.precision as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The extension of a small integer `X` (rank rounded, as for a significand) and of the same `X` as a
    /// product (rank from below) both give the residues of `X` itself on every extra modulus
    /// (integers `X < 2^128`, far below `M`, reduced directly).
    #[test]
    fn the_two_extensions_agree() {
        let mut rng = mpblas_testdata::SplitMix64::new(9);
        for p in [106u32, 424, 1696] {
            let base = Basis::new(p).unwrap();
            let acc = Accumulator::new(&base, 100).unwrap();
            let wide = acc.levels.last().unwrap().clone();
            let k = acc.max_len();
            for t in 0..50 {
                let x = (((rng.next_u64() as u128) << 64) | rng.next_u64() as u128) >> (t % 120);
                let of =
                    |m: &[u32]| -> Vec<u32> { m.iter().map(|&m| (x % m as u128) as u32).collect() };
                let (mut a, mut b, mut s) = (vec![0u32; k], vec![0u32; k], Vec::new());
                acc.extend(&of(&base.m), &mut a, &mut s);
                acc.extend_product(&of(&base.m), &mut b, &mut s);
                let want = of(&wide.m[..k]);
                assert_eq!(a, want, "{p} bits, X = {x}");
                assert_eq!(b, want, "{p} bits, X = {x}");
            }
        }
    }
}
