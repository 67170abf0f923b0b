//! Interval evaluation `I(X/M)` of an RNS number (Isupov and Knyazkov 2018) and the exact
//! operations built on it: sign detection, bit length, and the low word `X mod 2^64`.
//!
//! # The evaluation
//!
//! By the Chinese remainder theorem, with `cᵢ = |xᵢ·wᵢ|_mᵢ`, `X/M = frac(Σ cᵢ/mᵢ)` (formula (4)
//! of the paper). Isupov and Knyazkov bound the sum from below and above with directed rounding
//! in floating point. Here the same sum is accumulated in 94-bit fixed point, which gives the
//! two directed roundings without any rounding mode: with `Fᵢ = ⌊2^94/mᵢ⌋`,
//!
//! ```text
//!   S = Σ cᵢ·Fᵢ  ≤  2^94 · Σ cᵢ/mᵢ  <  S + C,     C = Σ cᵢ < n·2^31,
//! ```
//!
//! exactly (integer arithmetic in `u128`). The width of the enclosure is `C·2^-94 < n·2^-63`.
//! Its fractional part is `X/M` when the integer part (the CRT rank `r`) is known; every caller
//! knows a window for `X/M` (`[0, 1/2)` for significands, `(−1/4, 1/4)` for signed differences),
//! and the error is far below the margin to the window's edges, so `r` is exact.
//!
//! # Refinement for small `X/M`
//!
//! A significand of `p` bits has `X/M ≈ 2^-(p+2)`: the absolute width `n·2^-63` says nothing about
//! it. As in the paper, the evaluation is refined by scaling: `X·2^k` is evaluated instead
//! (residues multiplied by `2^k`, folded into the weights `wᵢ·2^k`), with `k` chosen from the
//! previous upper bound so that `X·2^k` stays below `M/2`; each round gains about
//! `94 − 3 − log2 C ≥ 47` bits, and one round suffices when the caller knows the bit length
//! (every stored number: `k = k_norm`).
//!
//! # Exact low word
//!
//! With `r` exact, `X = Σ cᵢ·Mᵢ − r·M` is an integer identity, so `X mod 2^64` follows from the
//! precomputed `Mᵢ mod 2^64` and `M mod 2^64` in wrapping arithmetic. This is what makes the
//! power-of-two scaling (and hence rounding) exact.

use super::pool;
use crate::rns::basis::{
    Basis, add_mod, dot, mul_acc_rows, mul_mod, reduce_u64_parts, reduce62, sub_mod,
};
use crate::rns::extf::ExtF;
use std::cmp::Ordering;

const FRAC_BITS: u32 = 94;
const ONE: i128 = 1 << FRAC_BITS;

/// One CRT pass: the fixed-point enclosure of `Σ cᵢ/mᵢ` and the wrapped low word `Σ cᵢ·Mᵢ`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pass {
    s: u128,
    c: u64,
    low: u64,
}

/// Runs a pass with weights `wk` (`wᵢ·2^k mod mᵢ`), i.e. on `X·2^k mod M`.
pub(crate) fn crt_pass(b: &Basis, x: &[u32], wk: &[u32]) -> Pass {
    let mut c = pool::zeroed(b.len());
    let pass = crt_pass_c(b, x, wk, &mut c);
    pool::recycle(c);
    pass
}

/// [`crt_pass`] that leaves the CRT coefficients `cᵢ = |xᵢ·wkᵢ|_mᵢ` in `c`. Every loop is a
/// vertical operation or an exact split-product sum ([`dot`]), so all of it vectorises.
pub(crate) fn crt_pass_c(b: &Basis, x: &[u32], wk: &[u32], c: &mut [u32]) -> Pass {
    let n = b.len();
    for i in 0..n {
        c[i] = mul_mod(x[i], wk[i], b.m[i], b.mu[i]);
    }
    let s = (dot(c, &b.recip_hi) << 32) + dot(c, &b.recip_lo);
    let (mut cs, mut lo, mut hi) = (0u64, 0u64, 0u64);
    for i in 0..n {
        cs += c[i] as u64;
        lo = lo.wrapping_add(c[i] as u64 * b.mi_low_lo[i] as u64);
        hi = hi.wrapping_add(c[i] as u64 * b.mi_low_hi[i] as u64);
    }
    Pass {
        s,
        c: cs,
        low: lo.wrapping_add(hi << 32),
    }
}

/// [`crt_pass`] with the weights `wᵢ·2^k mod mᵢ` (precomputed for `k = 0` and `k_norm`,
/// else computed in a pooled buffer).
pub(crate) fn crt_pass_scaled(b: &Basis, x: &[u32], k: u64) -> Pass {
    if k == 0 {
        return crt_pass(b, x, &b.w);
    }
    if k == b.k_norm as u64 {
        return crt_pass(b, x, &b.w_norm);
    }
    let mut p = pool::zeroed(b.len());
    b.pow2_into(k, &mut p);
    for i in 0..b.len() {
        p[i] = mul_mod(p[i], b.w[i], b.m[i], b.mu[i]);
    }
    let pass = crt_pass(b, x, &p);
    pool::recycle(p);
    pass
}

impl Pass {
    /// The enclosure `[lo, hi]` (units `2^-94`) of the representative of `X/M` in the window
    /// `[lo_edge, lo_edge + 1)` (units of 1), and the rank `r`.
    fn window(&self, lo_edge_quarters: i128) -> (i128, i128, u128) {
        // r = ⌊S/2^94 − lo_edge⌋: the true value lies in [S, S + C]·2^-94 with C ≪ margin.
        let shift = -lo_edge_quarters * (ONE / 4);
        let r = ((self.s as i128 + shift) >> FRAC_BITS) as u128;
        let v = self.s as i128 - (r as i128) * ONE;
        (v, v + self.c as i128, r)
    }

    /// `X mod 2^64` for `X/M` in `[0, 1/2)` (requires the pass to have run with `k = 0`).
    pub(crate) fn low_word(&self, b: &Basis) -> u64 {
        let (_, _, r) = self.window(-1);
        self.low.wrapping_sub((r as u64).wrapping_mul(b.m_low))
    }
}

/// An enclosure of `X·2^k / M`: `[lo, hi]·2^-94` with `lo ≥ 2^82` (relative width `< 2^-39`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Eval {
    pub lo: u128,
    pub hi: u128,
    pub k: u64,
}

impl Eval {
    /// The bounds of `X/M` as extended-range floats (rounded outward).
    pub(crate) fn bounds(&self) -> [ExtF; 2] {
        let sh = -(FRAC_BITS as i64) - self.k as i64;
        [
            ExtF::from_u128_rd(self.lo, sh),
            ExtF::from_u128_ru(self.hi, sh),
        ]
    }

    /// Bounds of `X` itself (`X/M` times the bounds of `M`, rounded outward).
    pub(crate) fn x_bounds(&self, b: &Basis) -> [ExtF; 2] {
        let [lo, hi] = self.bounds();
        [lo.mul_rd(b.m_ext[0]), hi.mul_ru(b.m_ext[1])]
    }
}

/// True when every residue is zero, i.e. `X = 0` (exact).
pub(crate) fn is_zero(x: &[u32]) -> bool {
    x.iter().all(|&r| r == 0)
}

/// The refined interval evaluation of `X ∈ [1, M/2)` (`None` for `X = 0`). `k0` must satisfy
/// `X·2^k0 < M/2` (a caller's bound on the bit length); the loop raises `k` until the lower
/// bound is at least `2^-12`.
pub(crate) fn eval_unsigned(b: &Basis, x: &[u32], k0: u64) -> Option<Eval> {
    if is_zero(x) {
        return None;
    }
    let mut k = k0;
    loop {
        let pass = crt_pass_scaled(b, x, k);
        let (v, hi, _) = pass.window(-1);
        let lo = v.max(0);
        if lo >= 1 << 82 {
            return Some(Eval {
                lo: lo as u128,
                hi: hi as u128,
                k,
            });
        }
        // hi < 2^84 here (else lo ≥ hi − C ≥ 2^82); X·2^(k+δ)/M ≤ hi·2^(δ−94) < 2^-3.
        let bl = 128 - (hi.max(1) as u128).leading_zeros() as u64;
        let delta = 91u64.saturating_sub(bl).max(1);
        if k + delta > b.pow2_limit() {
            // Unreachable for X ≥ 1 (X·2^k/M ≥ 2^k/M); return the honest wide enclosure.
            return Some(Eval {
                lo: lo as u128,
                hi: hi as u128,
                k,
            });
        }
        k += delta;
    }
}

/// The sign of a signed RNS value `D ∈ (−2^ub, 2^ub)` (residues of `D mod M`), exactly.
/// Requires `ub ≤ log2 M − 2`, so that `|D| < M/4`.
pub(crate) fn sign_of(b: &Basis, d: &[u32], ub: u64) -> Ordering {
    if is_zero(d) {
        return Ordering::Equal;
    }
    let mut k = (b.log2m as u64 - 2).saturating_sub(ub);
    loop {
        let pass = crt_pass_scaled(b, d, k);
        let (lo, hi, _) = pass.window(-2);
        if lo > 0 {
            return Ordering::Greater;
        }
        if hi < 0 {
            return Ordering::Less;
        }
        // |D·2^k/M| ≤ B·2^-94; scale so that the next value stays below 1/8 (inside the window).
        let bmax = lo.unsigned_abs().max(hi.unsigned_abs()).max(1);
        let bl = 128 - bmax.leading_zeros() as u64;
        let delta = 91u64.saturating_sub(bl).max(1);
        if k + delta > b.pow2_limit() {
            // Unreachable for D ≠ 0: |D|·2^k/M ≥ 2^(k − log2 M − 1) would exceed the window.
            debug_assert!(false, "sign_of did not converge");
            return Ordering::Equal;
        }
        k += delta;
    }
}

/// The exact bit length of `X ∈ [1, 2^max_bits)` (`max_bits ≤ log2 M − 1`) from its evaluation,
/// with an exact test against the power of two when the enclosure straddles one.
pub(crate) fn bit_length(b: &Basis, x: &[u32], ev: &Eval, max_bits: u64) -> u64 {
    let [xl, xh] = ev.x_bounds(b);
    let a = xl.floor_log2().max(0) as u64;
    let mut c = (xh.floor_log2().max(0) as u64).min(max_bits - 1);
    let (mut diff, mut p) = (pool::zeroed(b.len()), pool::zeroed(b.len()));
    let mut len = c + 1;
    while c > a {
        // Is X ≥ 2^c? Sign of X − 2^c, with |X − 2^c| < 2^c (X < 2^(c+1)).
        b.pow2_into(c, &mut p);
        for i in 0..b.len() {
            diff[i] = sub_mod(x[i], p[i], b.m[i]);
        }
        if sign_of(b, &diff, c) != Ordering::Less {
            break;
        }
        c -= 1;
        len = c + 1;
    }
    pool::recycle(diff);
    pool::recycle(p);
    len
}

/// What was dropped by a truncation: nothing, or a fraction strictly between 0 and 1 unit
/// of the kept value that was added to it (`Above`: exact = kept + f) or subtracted from it
/// (`Below`: exact = kept − f).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tail {
    Zero,
    Above,
    Below,
}

/// `⌊X / 2^k⌋` for `X < M/2`, exactly, in one CRT pass. Returns the quotient's residues (in
/// place), the round bit (bit `k−1` of `X`), the sticky bit (any of bits `0..k−1`) and the
/// quotient's parity (bit `k`).
///
/// This is the papers' power-of-two scaling made exact. One pass gives the coefficients `cᵢ`
/// and the rank `r`, so that `X = Σ cᵢ·Mᵢ − r·M` is an integer identity; its low `k + 1` bits
/// `L = X mod 2^(k+1)` are computed in binary from the precomputed 32-bit limbs of `Mᵢ` and
/// `M` (one exact dot product per limb), and then `⌊X/2^k⌋ = (X − (L mod 2^k))·2^-k mod M`,
/// with the residues of `L mod 2^k` from those of `2^(32 l)` (one more dot product per limb and
/// modulus). Cost: `2·n·⌈(k+1)/32⌉` multiply-adds, all vectorisable, plus `O(n)`.
pub(crate) fn shift_right(b: &Basis, x: &mut [u32], k: u64) -> (bool, bool, bool) {
    if k == 0 {
        return (false, false, false);
    }
    let n = b.len();
    if k <= 63 {
        return shift_right_word(b, x, k);
    }
    let t = b.scale_tables();
    let nl = (k as usize + 1).div_ceil(32);
    debug_assert!(nl <= t.limbs);
    let mut c = pool::zeroed(n);
    let pass = crt_pass_c(b, x, &b.w, &mut c);
    let (_, _, r) = pass.window(-1);
    // L = X mod 2^(32·nl), limb by limb (two's complement carries through the − r·M term).
    let mut low = pool::zeroed(nl);
    let mut carry: i128 = 0;
    for l in 0..nl {
        let v = dot(&c, &t.mi_bin[l * n..(l + 1) * n]);
        let tt = carry + v as i128 - r as i128 * t.m_bin[l] as i128;
        low[l] = tt as u32;
        carry = tt >> 32;
    }
    let bit = |i: u64| (low[(i / 32) as usize] >> (i % 32)) & 1 == 1;
    let odd = bit(k);
    let round = bit(k - 1);
    let (wf, bf) = (((k - 1) / 32) as usize, ((k - 1) % 32) as u32);
    let sticky = low[..wf].iter().any(|&w| w != 0) || low[wf] & ((1u32 << bf) - 1) != 0;
    // R = L mod 2^k: clear bit k and above.
    let (wk, bk) = ((k / 32) as usize, (k % 32) as u32);
    low[wk] &= (1u32 << bk) - 1;
    let used = if bk == 0 { wk } else { wk + 1 };
    // Residues of R: Σ_l R_l·2^(32 l) mod mⱼ, accumulated exactly in split halves.
    let (mut acc_lo, mut acc_hi) = (pool::zeroed(n), pool::zeroed(n));
    mul_acc_rows(&low[..used], &t.pow32, &mut acc_lo, &mut acc_hi);
    let mut inv = pool::zeroed(n);
    b.inv_pow2_into(k, &mut inv);
    for j in 0..n {
        let (m, mu) = (b.m[j], b.mu[j]);
        // acc_hi, acc_lo < 2^(32 + log2 limbs) ≤ 2^62: Barrett-reducible.
        let h = reduce62(acc_hi[j], m, mu);
        let rres = add_mod(
            reduce62(h as u64 * b.two32[j] as u64, m, mu),
            reduce62(acc_lo[j], m, mu),
            m,
        );
        x[j] = mul_mod(sub_mod(x[j], rres, m), inv[j], m, mu);
    }
    for v in [c, low, inv] {
        pool::recycle(v);
    }
    pool::recycle(acc_lo);
    pool::recycle(acc_hi);
    (round, sticky, odd)
}

/// [`shift_right`] for `k ≤ 63`: the exact low word `X mod 2^64` of one pass suffices.
fn shift_right_word(b: &Basis, x: &mut [u32], k: u64) -> (bool, bool, bool) {
    let n = b.len();
    let pass = crt_pass(b, x, &b.w);
    let low = pass.low_word(b);
    let r = low & ((1u64 << k) - 1);
    let odd = (low >> k) & 1 == 1;
    let round = (r >> (k - 1)) & 1 == 1;
    let sticky = r & ((1u64 << (k - 1)) - 1) != 0;
    let (rh, rl) = ((r >> 32) as u32, r as u32);
    let inv = &b.inv2[k as usize * n..(k as usize + 1) * n];
    for i in 0..n {
        let rr = reduce_u64_parts(rh, rl, b.m[i], b.mu[i], b.two32[i]);
        x[i] = mul_mod(sub_mod(x[i], rr, b.m[i]), inv[i], b.m[i], b.mu[i]);
    }
    (round, sticky, odd)
}

/// The interval evaluation `I(X/M) = [lo, hi]` of an arbitrary RNS integer `X ∈ [0, M)` given
/// by its residues: `lo ≤ X/M ≤ hi`, both rounded outward, with relative width below `2^-38`
/// for every `X ≠ 0` (the refinement handles small `X/M`, and `X/M` close to 1 is
/// evaluated through `M − X`).
///
/// # Errors
/// [`Error::OutOfBounds`](crate::Error::OutOfBounds) when `x` does not have one residue per
/// modulus, or a residue is not reduced.
pub fn evaluate(b: &Basis, x: &[u32]) -> crate::error::Result<[ExtF; 2]> {
    if x.len() != b.len() {
        return Err(crate::error::Error::OutOfBounds {
            what: "residues of an RNS number",
            got: x.len(),
            len: b.len(),
        });
    }
    if let Some(i) = (0..x.len()).find(|&i| x[i] >= b.m[i]) {
        return Err(crate::error::Error::OutOfBounds {
            what: "residue (must be below its modulus)",
            got: x[i] as usize,
            len: b.m[i] as usize,
        });
    }
    if is_zero(x) {
        return Ok([ExtF::ZERO; 2]);
    }
    let pass = crt_pass(b, x, &b.w);
    let (fl, fh) = (pass.s >> FRAC_BITS, (pass.s + pass.c as u128) >> FRAC_BITS);
    if fl == fh {
        let lo = pass.s - (fl << FRAC_BITS);
        let hi = lo + pass.c as u128;
        if lo >= 1 << 82 {
            return Ok(Eval { lo, hi, k: 0 }.bounds());
        }
        // X/M < 2^-11 (so X < M/2): refine from the upper bound.
        let bl = 128 - hi.leading_zeros() as u64;
        let ev = eval_unsigned(b, x, 91u64.saturating_sub(bl));
        return Ok(ev.map_or([ExtF::ZERO; 2], |e| e.bounds()));
    }
    // An integer lies in the enclosure: X/M is within n·2^-63 of 0 or of 1. Which one is the
    // sign of X read as a signed residue number, |X| < 2^(log2 M − 49).
    let ub = b.log2m as u64 - 49;
    if sign_of(b, x, ub) == Ordering::Greater {
        let ev = eval_unsigned(b, x, 47);
        return Ok(ev.map_or([ExtF::ZERO; 2], |e| e.bounds()));
    }
    let d: Vec<u32> = (0..b.len()).map(|i| sub_mod(0, x[i], b.m[i])).collect();
    let [dlo, dhi] = eval_unsigned(b, &d, 47).map_or([ExtF::ZERO; 2], |e| e.bounds());
    Ok([one_minus(dhi, false), one_minus(dlo, true)])
}

/// `1 − d` for `0 ≤ d < 2^-40`, rounded down or up (TwoSum gives the exact error).
fn one_minus(d: ExtF, up: bool) -> ExtF {
    let df = d.to_f64(); // exact: d has a 53-bit fraction and a moderate exponent, or flushes
    // A flushed d (< 2^-1100) only matters for rounding down: 1 − d < 1 ⇒ next_down(1).
    let (s, err) = crate::eft::two_sum(1.0, -df);
    let s = if up && err > 0.0 {
        crate::rns::extf::next_up(s)
    } else if !up && (err < 0.0 || (df == 0.0 && !d.is_zero())) {
        crate::rns::extf::next_down(s)
    } else {
        s
    };
    ExtF::new(s, 0)
}
