//! Ozaki scheme II (Ozaki, Uchino, Imamura 2025), CPU reference of exactly what the GPU runs.
//!
//! Stages, over the packed layout of [`super`] (rows of `op(A)`, columns of `op(B)`):
//! 1. [`moduli`], [`Crt`]: `N` pairwise-coprime moduli `m_l ≤ 256` (deterministic: the greedy
//!    choice from 256 downwards), `P = Π m_l`, and the CRT weights split into `f64` words.
//! 2. [`scaling`]: a power of two `2^e_i` per row of A and `2^f_j` per column of B such that
//!    the integer matrices `A' = round(2^e·A)`, `B' = round(B·2^f)` satisfy
//!    `Σ_l |A'_il|·|B'_lj| < P/2·(1 − 2^-20)` for every `(i, j)` (proof at [`fits`]).
//!    Fast mode from the maxima and a 2-norm bound of each vector (Cauchy–Schwarz), accurate
//!    mode from an INT8 GEMM of 6-bit bounds.
//! 3. [`to_integers`]: `A'`, `B'` (integers held exactly in `f64`).
//! 4. [`residues`]: symmetric residues of `A'`, `B'` modulo each `m_l`, in `i8`.
//! 5. [`products_mod`]: `N` exact INT8 GEMMs (INT32 results), each reduced modulo `m_l` to `u8`.
//! 6. [`reconstruct`]: `C' = A'B'` from its residues, as a double-double (exact to ~2^-106).
//! 7. `C ← α·2^-(e_i+f_j)·C' + β·C` in double-double, rounded once.
//!
//! Every stage is deterministic and uses only exact integer steps, IEEE operations in a fixed
//! order, and double-double operations, so a GPU implementation of the same stages can be
//! checked against these functions bit for bit.
//!
//! **Accuracy.** [`super::bounds::ozaki2_ab_bound`]: the only errors are the roundings of
//! `2^e·A` and `B·2^f` to integers (at most 1/2 each) and the double-double reconstruction,
//! `|c − (AB)_ij| ≤ 2^-e_i·‖b_j‖₁/2 + 2^-f_j·‖a_i‖₁/2 + k·2^-(e_i+f_j)/4`. In fast mode
//! `2^-e_i ≈ ‖a_i‖₂/2^x` with `x ≈ (log2 P − 1)/2` ([`fast_x`]); in accurate mode
//! `2^-e_i ≤ μ_i·2^-q` with `q ≈ (log2 P − 1 − log2 k)/2` ([`fast_q`]) or better. Each extra
//! modulus adds about 3.9 bits to both, until the result is the correctly rounded-ish `f64` of
//! a double-double accurate product.

use super::split::{ceil_log2, ldexp, vec_max_abs};
use super::{
    OZAKI2_MODULI, Ozaki2Mode, Ozaki2Params, Ozaki2Report, OzakiGuard, Prepared, Recomputed,
    apply_patch, blas_views, gemm_cpu, guard_entry, prepare, update_dd,
};
use crate::dd::Dd;
use crate::eft::two_sum;
use crate::error::{Error, Result};
use crate::view::{MatMut, MatRef, Trans};

/// The first `count` moduli: greedily, from 256 downwards, every integer coprime to all those
/// already taken (256, 255, 253, 251, 247, 241, 239, 233, 229, 227, 223, 217, 211, 199, 197,
/// 193, 191, 181, 179, 173). All are ≤ 256, so symmetric residues fit in `i8`.
pub fn moduli(count: usize) -> Vec<u32> {
    fn gcd(mut a: u32, mut b: u32) -> u32 {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    }
    let mut out: Vec<u32> = Vec::with_capacity(count);
    let mut m = 256u32;
    while out.len() < count && m >= 2 {
        if out.iter().all(|&x| gcd(x, m) == 1) {
            out.push(m);
        }
        m -= 1;
    }
    out
}

/// Little-endian base-2^32 natural number, just what the CRT constants need.
#[derive(Clone, Debug)]
struct Nat(Vec<u32>);

impl Nat {
    fn one() -> Nat {
        Nat(vec![1])
    }
    fn mul_small(&mut self, x: u32) {
        let mut carry = 0u64;
        for d in &mut self.0 {
            let t = *d as u64 * x as u64 + carry;
            *d = t as u32;
            carry = t >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
    }
    fn bits(&self) -> u32 {
        let mut n = self.0.len();
        while n > 0 && self.0[n - 1] == 0 {
            n -= 1;
        }
        if n == 0 {
            return 0;
        }
        (n as u32) * 32 - self.0[n - 1].leading_zeros()
    }
    /// Bits `[lo, lo + len)` as an integer (`len ≤ 64`).
    fn bit_range(&self, lo: u32, len: u32) -> u64 {
        let mut v = 0u64;
        for b in 0..len {
            let pos = lo + b;
            let limb = (pos / 32) as usize;
            if limb < self.0.len() && (self.0[limb] >> (pos % 32)) & 1 == 1 {
                v |= 1 << b;
            }
        }
        v
    }
}

/// Bits per word of the split CRT constants: a sum of `N ≤ 20` products `r·w` with `r < 2^8`
/// and `w < 2^40` stays below `2^53`, so it is exact in `f64` in any order.
pub const CRT_WORD_BITS: u32 = 40;

/// The CRT constants for `N` moduli.
#[derive(Clone, Debug, PartialEq)]
pub struct Crt {
    /// The moduli.
    pub moduli: Vec<u32>,
    /// Bit length of `P = Π m_l`.
    pub p_bits: u32,
    /// `w_words[c][l]`: word `c` (most significant first) of the weight
    /// `w_l = (P/m_l)·((P/m_l)^-1 mod m_l)`, as `f64` (each an integer `< 2^40` times `2^E_c`).
    pub w_words: Vec<Vec<f64>>,
    /// The words of `P` on the same grid.
    pub p_words: Vec<f64>,
    /// `fl(1/P)` (computed from the rounded sum of `p_words`).
    pub p_inv: f64,
    /// A lower bound of `P/2·(1 − 2^-20)`: the integer product must stay below it.
    pub half_p_safe: f64,
}

impl Crt {
    /// The constants for `count` moduli ([`moduli`]).
    ///
    /// # Errors
    /// [`Error::OutOfRange`] if `count` is outside `8..=20`.
    pub fn new(count: usize) -> Result<Crt> {
        Crt::within(count, OZAKI2_MODULI)
    }

    /// The constants for `count` moduli within `(lo, hi)` (`hi ≤ 31`: the split weights' sums
    /// stay exact, `N·2^8·2^40 < 2^53`, and the quotient below `2^13`).
    ///
    /// # Errors
    /// [`Error::OutOfRange`] if `count` is outside `lo..=hi`.
    pub(crate) fn within(count: usize, (lo, hi): (usize, usize)) -> Result<Crt> {
        debug_assert!(hi <= 31);
        if !(lo..=hi).contains(&count) {
            return Err(Error::OutOfRange {
                what: "ozaki2 moduli",
                got: count,
                min: lo,
                max: hi,
            });
        }
        let ms = moduli(count);
        let mut p = Nat::one();
        for &m in &ms {
            p.mul_small(m);
        }
        let p_bits = p.bits();
        let words = p_bits.div_ceil(CRT_WORD_BITS);
        // Word c covers bits [E_c, E_c + 40) with E_c = p_bits − 40(c+1), the last one from 0.
        let grid = |c: u32| -> (u32, u32) {
            let top = p_bits - CRT_WORD_BITS * c;
            let lo = top.saturating_sub(CRT_WORD_BITS);
            (lo, top - lo)
        };
        let split = |x: &Nat| -> Vec<f64> {
            (0..words)
                .map(|c| {
                    let (lo, len) = grid(c);
                    ldexp(x.bit_range(lo, len) as f64, lo as i32)
                })
                .collect()
        };
        let mut w_words = vec![vec![0.0; count]; words as usize];
        for (l, &ml) in ms.iter().enumerate() {
            let mut pl = Nat::one();
            let mut pl_mod = 1u64;
            for (t, &mt) in ms.iter().enumerate() {
                if t != l {
                    pl.mul_small(mt);
                    pl_mod = pl_mod * mt as u64 % ml as u64;
                }
            }
            let inv = mod_inverse(pl_mod as i64, ml as i64);
            pl.mul_small(inv as u32);
            for (c, w) in split(&pl).into_iter().enumerate() {
                w_words[c][l] = w;
            }
        }
        let p_words = split(&p);
        let p_f: f64 = p_words.iter().sum();
        Ok(Crt {
            moduli: ms,
            p_bits,
            w_words,
            p_words,
            p_inv: 1.0 / p_f,
            half_p_safe: p_f * 0.5 * (1.0 - (-20f64).exp2()) * (1.0 - (-45f64).exp2()),
        })
    }
}

/// `x⁻¹ mod m` for coprime `x`, `m` (extended Euclid), in `[1, m)`.
fn mod_inverse(x: i64, m: i64) -> i64 {
    let (mut r0, mut r1) = (m, x.rem_euclid(m));
    let (mut t0, mut t1) = (0i64, 1i64);
    while r1 != 0 {
        let q = r0 / r1;
        (r0, r1) = (r1, r0 - q * r1);
        (t0, t1) = (t1, t0 - q * t1);
    }
    t0.rem_euclid(m)
}

/// Whether a bound `lhs` on `Σ_l |A'_il|·|B'_lj|` (computed in `f64` from at most four
/// nonnegative terms, hence within a factor `1 + 2^-50` of its exact value) certifies that the
/// integer product fits: `lhs·(1 + 2^-50) < P/2·(1 − 2^-20)`. The margin `2^-20` is what makes
/// the quotient in [`reconstruct`] exact.
///
/// Why the bounds used fit: with `|a| ≤ 2^(E_A−6)·Ā` (`Ā` the 6-bit bound, `E_A = ⌈log2 μ_A⌉`),
/// `x = e + E_A`, `y = f + E_B`, rounding to nearest gives `|A'| ≤ 2^e·|a| + 1/2`, so
/// `Σ|A'||B'| ≤ 2^(x+y−12)·(ĀB̄ᵀ)_ij + (k/2)·(2^x + 2^y) + k/4` (using `2^e·Σ|a| ≤ k·2^x`);
/// with `(ĀB̄ᵀ)_ij ≤ 64²·k` this gives [`fast_q`]. The fast mode's own condition is the
/// Cauchy–Schwarz one of [`fast_x`].
pub fn fits(lhs: f64, crt: &Crt) -> bool {
    lhs * (1.0 + (-50f64).exp2()) < crt.half_p_safe
}

/// The exponent `q` of the maxima-only scaling: the largest with `k·(2^2q + 2^q + 1/4)`
/// fitting ([`fits`]), i.e. every row of `A'` and column of `B'` gets `|·| ≤ 2^q`. The accurate
/// mode starts from it.
///
/// # Errors
/// [`Error::OutOfRange`] if the moduli count is outside `8..=20` or `k` is so large that no
/// `q ≥ 1` fits.
pub fn fast_q(moduli: usize, k: usize) -> Result<i32> {
    let crt = Crt::new(moduli)?;
    fast_q_crt(&crt, k)
}

fn fast_q_crt(crt: &Crt, k: usize) -> Result<i32> {
    let kf = k.max(1) as f64;
    largest_fitting(crt, k, |q| kf * (ldexp(1.0, 2 * q) + ldexp(1.0, q) + 0.25))
}

/// The largest exponent `q ≥ 1` whose bound `lhs(q)` (increasing in `q`) [`fits`]; an error
/// naming `k` when not even `q = 1` fits.
fn largest_fitting(crt: &Crt, k: usize, lhs: impl Fn(i32) -> f64) -> Result<i32> {
    if !fits(lhs(1), crt) {
        return Err(Error::OutOfRange {
            what: "k (inner dimension) for this number of moduli",
            got: k,
            min: 0,
            max: (crt.half_p_safe / 8.0).min(usize::MAX as f64) as usize,
        });
    }
    let mut q = 1;
    while fits(lhs(q + 1), crt) {
        q += 1;
    }
    Ok(q)
}

/// Bits of the quantised magnitudes behind the fast mode's 2-norm bound ([`norm_squares`]).
pub const NORM_BITS: i32 = 16;

/// Largest `k` scheme II takes: the fast mode's integer sums of squares ([`norm_squares`],
/// at most `k·2^32`) must fit in `u64`, and cuBLAS takes `i32` dimensions.
pub const MAX_K: usize = (1 << 31) - 1;

/// Length of the chunks of a vector that [`norm_squares`] quantises separately.
pub const NORM_CHUNK: usize = 128;

/// The fast mode's sum of squares per vector, an upper bound of `‖x_v‖₂²` in units of
/// `4^(⌈log2 μ_v⌉ − 16)` (`μ_v` the vector's largest `|x|`, `mu`; zero vectors give 0), built
/// so that one read of `x` gives it on the GPU (the device computes the maxima and these sums
/// in one pass, `ozaki_vecstats_*`):
/// - each chunk `c` of [`NORM_CHUNK`] entries is quantised against its own maximum `μ_c`:
///   `g_t = ⌈|x_t|·2^(16 − ⌈log2 μ_c⌉)⌉ ∈ [0, 2^16]` (at least 1 for `x_t ≠ 0`, so a value
///   that underflows in the scaling still counts), `S_c = Σ_t g_t²`;
/// - `S_v = Σ_c ⌈S_c / 4^(⌈log2 μ_v⌉ − ⌈log2 μ_c⌉)⌉`.
///
/// Since `g_t·2^(⌈log2 μ_c⌉ − ⌈log2 μ_v⌉) < |x_t|·2^(16 − ⌈log2 μ_v⌉) + 1`,
/// `√S_v ≤ 2^(16−⌈log2 μ_v⌉)·‖x_v‖₂ + √k + √(chunks)` (what
/// [`super::bounds::ozaki2_exponent_lower`] assumes), and `2^(⌈log2 μ⌉−16)·√S_v ≥ ‖x_v‖₂`.
/// Every step is exact integer arithmetic, so any order (the GPU's) gives the same bits.
pub fn norm_squares(x: &[f64], len: usize, count: usize, mu: &[f64]) -> Vec<u64> {
    quantised_power_sums(x, len, count, mu, 2)
}

/// The guard's 1-norm per vector, an upper bound of `‖x_v‖₁` in units of
/// `2^(⌈log2 μ_v⌉ − 16)`, built as [`norm_squares`] (same chunks, same quantisation, `g_t`
/// summed instead of squared, a chunk's sum shifted by `⌈log2 μ_v⌉ − ⌈log2 μ_c⌉` rounding up),
/// so that `2^(⌈log2 μ_v⌉ − 16)·S1_v ≥ ‖x_v‖₁`. Exact integer arithmetic: any order (the
/// GPU's) gives the same bits.
pub fn norm_abs_sums(x: &[f64], len: usize, count: usize, mu: &[f64]) -> Vec<u64> {
    quantised_power_sums(x, len, count, mu, 1)
}

/// The chunked, quantised sums of [`norm_squares`] (`power = 2`) and [`norm_abs_sums`]
/// (`power = 1`): per chunk `Σ g_t^power` against the chunk's own maximum, shifted to the
/// vector's scale by `power·(⌈log2 μ_v⌉ − ⌈log2 μ_c⌉)` bits rounding up, summed.
fn quantised_power_sums(x: &[f64], len: usize, count: usize, mu: &[f64], power: u32) -> Vec<u64> {
    (0..count)
        .map(|v| {
            if mu[v] == 0.0 {
                return 0;
            }
            let e_v = ceil_log2(mu[v]);
            x[v * len..(v + 1) * len]
                .chunks(NORM_CHUNK)
                .map(|chunk| {
                    let mu_c = chunk.iter().fold(0.0f64, |m, t| m.max(t.abs()));
                    if mu_c == 0.0 {
                        return 0;
                    }
                    let e_c = ceil_log2(mu_c);
                    let s_c: u64 = chunk
                        .iter()
                        .map(|&t| quantise_up(t, NORM_BITS - e_c).pow(power))
                        .sum();
                    shift_right_up(s_c, power as i32 * (e_v - e_c))
                })
                .sum()
        })
        .collect()
}

/// What the componentwise guard knows of one row of `op(A)` or column of `op(B)`: its scaling
/// exponent, its largest magnitude and its [`norm_abs_sums`] entry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GuardStats {
    /// The scaling exponent (`Scaling::ea` or `eb`).
    pub exp: i32,
    /// The largest magnitude `μ` (0 for a zero vector).
    pub mu: f64,
    /// The quantised 1-norm ([`norm_abs_sums`]).
    pub s1: u64,
}

/// Terms of the guard's second test: a lower bound of `(|A||B|)_ij` from the first
/// `GUARD_SAMPLE` products (or all `k` if fewer).
pub const GUARD_SAMPLE: usize = 64;

/// What the guard's bound needs of one row of `op(A)` or column of `op(B)`, made once per
/// vector ([`guard_factors`]) so that each entry costs a few multiplications: `p ≥ 2^-e` (the
/// inverse scaling) and `n1 ≥ ‖x‖₁`; both 0 for a zero vector.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GuardFactors {
    /// An upper bound of `2^-e`, `e` the vector's scaling exponent.
    pub p: f64,
    /// An upper bound of the vector's 1-norm (`2^(⌈log2 μ⌉−16)·S1`, [`norm_abs_sums`]).
    pub n1: f64,
}

/// [`GuardFactors`] of one vector: each value one `ldexp` of an exact integer, plus `2^-1074`
/// (which leaves a normal value unchanged and lifts one rounded down into the subnormal range,
/// or to zero, back above the true value); an overflow gives `+∞`, which the guard rejects.
/// The GPU's `ozaki_guard_factors` performs the same operations.
pub fn guard_factors(st: GuardStats) -> GuardFactors {
    if st.mu == 0.0 {
        return GuardFactors::default();
    }
    let tiny = ldexp(1.0, -1074);
    GuardFactors {
        p: ldexp(1.0, -st.exp) + tiny,
        n1: ldexp(st.s1 as f64, ceil_log2(st.mu) - NORM_BITS) + tiny,
    }
}

/// Stage 7 of the default mode (the componentwise guard, [`super::OzakiGuard`]), first part:
/// an upper bound `E` of the error of entry `s` (the reconstructed, unscaled product of row
/// `a` of `op(A)` and column `b` of `op(B)`).
///
/// The scheme's error (as [`super::bounds::ozaki2_ab_bound`], with this row's and column's
/// own exponents `e`, `f` and 1-norm bounds) is `½·2^-e·‖b‖₁ + ½·2^-f·‖a‖₁ + ¼·k·2^-(e+f)`
/// plus the reconstruction's `2^-100·(|s| + E)`, here from the vectors' [`GuardFactors`], the
/// sum inflated for its roundings (relative) and for underflowed products (absolute). A zero
/// row or column gives an exact zero: `E = 0`. Every operation is an IEEE operation in a fixed
/// order, so the GPU (`oz_guard_bound`) gets the same bits.
pub fn guard_bound(k: usize, s: Dd, a: GuardFactors, b: GuardFactors) -> f64 {
    if a.p == 0.0 || b.p == 0.0 {
        return 0.0;
    }
    let t1 = a.p * b.n1 * 0.5;
    let t2 = b.p * a.n1 * 0.5;
    let t3 = a.p * b.p * (k as f64 * 0.25);
    let e = (t1 + t2 + t3) * (1.0 + ldexp(1.0, -50)) + ldexp(1.0, -1072);
    e + (s.hi.abs() + e) * ldexp(1.0, -100)
}

/// Second part: `true` if the error bound `e` is certified against the target `g·lower + tiny`
/// given `lower ≤ (|A||B|)_ij`: `e ≤ g·lower + tiny`, evaluated with margins for its own
/// roundings. DGEMM's componentwise target is `g = ku` (`< γ_k`), `tiny = k·2^-1074`. NaN
/// never certifies.
pub fn certifies_against(g: f64, tiny: f64, e: f64, lower: f64) -> bool {
    e * (1.0 + ldexp(1.0, -50)) <= g * lower * (1.0 - ldexp(1.0, -50)) + tiny
}

/// Whether entry `s` needs recomputing ([`super::OzakiGuard::Componentwise`]): the error
/// bound `E` ([`guard_bound`]) must be certified ([`certifies_against`]) against one of two
/// lower bounds of `(|A||B|)_ij`: `|s| − E` (`≤ |(AB)_ij|`), tested as `E·(1 + ku) ≤ ku·|s|`;
/// or, only when that fails (an entry that cancels), `Σ_{l < S}|a_l||b_l|` over the first
/// `S = min(k, GUARD_SAMPLE)` terms (`sample(S)` computes it in index order; it is taken
/// down by `γ`-style margins for its rounding and underflow). A passing entry has
/// `|s − (AB)_ij| ≤ γ_k·(|A||B|)_ij + k·2^-1074`.
pub fn guard_fails(
    k: usize,
    s: Dd,
    a: GuardFactors,
    b: GuardFactors,
    sample: impl FnOnce(usize) -> f64,
) -> bool {
    guard_rejects(k, guard_bound(k, s, a, b), s.hi.abs(), sample)
}

/// The two tests of [`guard_fails`] for an entry of magnitude `s_abs` with error bound `e`
/// (shared by both schemes): an infinite or NaN entry or bound is rejected (the scheme
/// overflowed where the plain dot product may not), `e = 0` passes.
pub fn guard_rejects(k: usize, e: f64, s_abs: f64, sample: impl FnOnce(usize) -> f64) -> bool {
    let kf = k as f64;
    guard_rejects_against(k, ldexp(kf, -53), ldexp(kf, -1074), e, s_abs, sample)
}

/// [`guard_rejects`] against the target `g·(|A||B|)_ij + tiny` (DGEMM's: `g = k·u`,
/// `tiny = k·2^-1074`; the double-double scheme's: `ozaki2_dd::guard_rejects_dd`).
pub(crate) fn guard_rejects_against(
    k: usize,
    g: f64,
    tiny: f64,
    e: f64,
    s_abs: f64,
    sample: impl FnOnce(usize) -> f64,
) -> bool {
    if !(e.is_finite() && s_abs.is_finite()) {
        return true;
    }
    if e == 0.0 {
        return false;
    }
    // |s − AB| ≤ e and e(1 + g) ≤ g|s| give e ≤ g(|s| − e) ≤ g|AB| ≤ g(|A||B|).
    if certifies_against(g, tiny, e + g * e, s_abs) {
        return false;
    }
    let terms = k.min(GUARD_SAMPLE);
    let l = sample(terms) * (1.0 - ldexp(1.0, -45)) - ldexp(terms as f64, -1074);
    !certifies_against(g, tiny, e, l)
}

/// `Σ_{l < terms} |a_l|·|b_l|` in index order (the guard's sampled lower bound; the GPU's
/// `oz_guard_sample` performs the same operations).
pub fn guard_sample(a: impl Fn(usize) -> f64, b: impl Fn(usize) -> f64, terms: usize) -> f64 {
    let mut s = 0.0;
    for l in 0..terms {
        s += a(l).abs() * b(l).abs();
    }
    s
}

/// Number of [`NORM_CHUNK`]-chunks of a vector of length `len`.
pub fn norm_chunks(len: usize) -> usize {
    len.div_ceil(NORM_CHUNK)
}

/// `⌈s / 2^sh⌉` for `sh ≥ 0` (1 for any `s ≥ 1` once `sh ≥ 64`).
fn shift_right_up(s: u64, sh: i32) -> u64 {
    if s == 0 || sh <= 0 {
        s
    } else if sh >= 64 {
        1
    } else {
        (s >> sh) + u64::from(s & ((1u64 << sh) - 1) != 0)
    }
}

/// `⌈|t|·2^e⌉`, at least 1 for `t ≠ 0` (the scaled value is ≤ 2^16, so exact when ≥ 1).
fn quantise_up(t: f64, e: i32) -> u64 {
    if t == 0.0 {
        0
    } else {
        (ldexp(t.abs(), e).ceil() as u64).max(1)
    }
}

/// An upper bound of `√s` in `f64`: the conversion and the square root each round by at most
/// a relative `2^-53`, and the factor `1 + 2^-50` covers both.
pub fn sqrt_up(s: u64) -> f64 {
    (s as f64).sqrt() * (1.0 + 4.0 * f64::EPSILON)
}

/// The fast-mode exponent `x`: the largest with `(2^x + √k/2)²` fitting ([`fits`]), so that
/// vectors with `‖A'_i‖₂, ‖B'_j‖₂ ≤ 2^x + √k/2` satisfy the CRT range by Cauchy–Schwarz.
///
/// # Errors
/// [`Error::OutOfRange`] if `k > MAX_K` or no `x ≥ 1` fits.
pub fn fast_x(crt: &Crt, k: usize) -> Result<i32> {
    if k > MAX_K {
        return Err(Error::OutOfRange {
            what: "k (inner dimension) of ozaki2",
            got: k,
            min: 0,
            max: MAX_K,
        });
    }
    let h = (k.max(1) as f64).sqrt() * 0.5 * (1.0 + (-50f64).exp2());
    largest_fitting(crt, k, |x| {
        let r = ldexp(1.0, x) + h;
        r * r
    })
}

/// The fast mode's exponent of one vector with largest magnitude `mu > 0` and sum of squares
/// `s` ([`norm_squares`]): `e = x + 16 − ⌈log2 μ⌉ − ⌈log2 √s⌉` (upper bound of the root), so
/// `2^e·‖x_v‖₂ ≤ 2^x`.
pub fn fast_exponent(x: i32, mu: f64, s: u64) -> i32 {
    x + NORM_BITS - ceil_log2(mu) - ceil_log2(sqrt_up(s))
}

/// What scheme II decides from `(k, params)` alone, before it reads a matrix: the moduli and
/// CRT constants, the maxima-only exponent `q` ([`fast_q`]) and the fast mode's `x`
/// ([`fast_x`]). Made once per call by [`Ozaki2Plan::new`] (which is also the parameter
/// check) and used by every later stage, on the CPU and by the GPU launcher alike.
#[derive(Clone, Debug)]
pub struct Ozaki2Plan {
    /// The moduli and reconstruction constants.
    pub crt: Crt,
    /// The scaling mode.
    pub mode: Ozaki2Mode,
    /// The inner dimension.
    pub k: usize,
    /// The maxima-only exponent (the accurate mode's starting point).
    pub q: i32,
    /// The fast mode's exponent of the 2-norm bounds.
    pub x: i32,
}

impl Ozaki2Plan {
    /// The plan for inner dimension `k`.
    ///
    /// # Errors
    /// [`Error::OutOfRange`] for a moduli count outside `8..=20` or a `k` too large for it.
    pub fn new(k: usize, params: &Ozaki2Params) -> Result<Ozaki2Plan> {
        Self::for_crt(k, params.mode, Crt::new(params.moduli)?)
    }

    /// The plan for inner dimension `k` on given CRT constants.
    ///
    /// # Errors
    /// [`Error::OutOfRange`] for a `k` too large for the moduli.
    pub(crate) fn for_crt(k: usize, mode: Ozaki2Mode, crt: Crt) -> Result<Ozaki2Plan> {
        let q = fast_q_crt(&crt, k)?;
        let x = fast_x(&crt, k)?;
        Ok(Ozaki2Plan { crt, mode, k, q, x })
    }
}

/// The scaling of scheme II: `A' = round(2^ea[i]·a_i·)`, `B' = round(b_·j·2^eb[j])`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scaling {
    /// Exponent per row of `op(A)`.
    pub ea: Vec<i32>,
    /// Exponent per column of `op(B)`.
    pub eb: Vec<i32>,
}

/// 6-bit upper bounds `Ā = ⌈|x|·2^(6 − ⌈log2 μ⌉)⌉ ∈ [0, 64]` of each vector (exact: a scaling by a
/// power of two and a ceiling), for the accurate mode.
pub fn magnitude_bounds(x: &[f64], len: usize, count: usize) -> Vec<i8> {
    magnitude_bytes(x, len, count, f64::ceil)
}

/// The lower bounds `⌊|x|·2^(6 − ⌈log2 μ⌉)⌋ ∈ [0, 64]` of [`magnitude_bounds`]'s form (the
/// double-double guard's lower bound of `(|A||B|)_ij`).
pub(crate) fn magnitude_floors(x: &[f64], len: usize, count: usize) -> Vec<i8> {
    magnitude_bytes(x, len, count, f64::floor)
}

/// `round(|x|·2^magnitude_exponent(μ))` of each vector (0 for a zero vector).
fn magnitude_bytes(x: &[f64], len: usize, count: usize, round: fn(f64) -> f64) -> Vec<i8> {
    let mu = vec_max_abs(x, len, count);
    let mut out = vec![0i8; len * count];
    for v in 0..count {
        if mu[v] == 0.0 {
            continue;
        }
        let e = magnitude_exponent(mu[v]);
        for t in 0..len {
            out[v * len + t] = round(ldexp(x[v * len + t].abs(), e)) as i8;
        }
    }
    out
}

/// `6 − ⌈log2 μ⌉`: the scaling that puts a vector of maximum `μ > 0` into `[0, 64]`.
pub(crate) fn magnitude_exponent(mu: f64) -> i32 {
    6 - ceil_log2(mu)
}

/// Inner-dimension chunk of the INT8 GEMMs (each chunk's INT32 sum is exact).
const K_CHUNK: usize = gemm_cpu::I8_MAX_K;

/// Stage 2: the scaling exponents (see [`fits`] for the condition they meet).
///
/// Fast (Cauchy–Schwarz, as the fast mode of Ozaki, Uchino, Imamura 2025, with a scale-invariant
/// per-vector exponent in the spirit of Uchino et al. 2026, "Improved scaling for fast mode of
/// Ozaki scheme II"): `e_i` from [`fast_exponent`] with the row's [`norm_squares`] and `x` from
/// [`fast_x`], likewise `f_j`. Then `‖A'_i‖₂ ≤ 2^e_i‖a_i‖₂ + √k/2 ≤ 2^x + √k/2` and
/// `Σ_l |A'_il||B'_lj| ≤ ‖A'_i‖₂‖B'_j‖₂ < P/2`. A row gets about `log2(√k·μ_i/‖a_i‖₂)` more bits
/// than from its maximum alone: about 1.3 bits at φ = 0.1, 4.8 at φ = 1 and 6 at φ = 2 on the
/// paper's inputs. Accurate: `Z = ĀB̄ᵀ` (INT8 GEMM of
/// [`magnitude_bounds`], summed over `k` chunks in `f64`, exact), then for each row the largest
/// `ε_i ≥ 0` such that `x_i = q + ε_i`, `y = q` fits for the row's largest `Z_ij`, then for each
/// column the largest `δ_j ≥ 0` such that `y_j = q + δ_j` fits against `max_i 2^ε_i·Z_ij` and
/// `max_i 2^x_i`. Zero rows and columns keep `ε = 0`. Finally `e_i = x_i − ⌈log2 μ_A,i⌉`.
///
/// # Errors
/// Those of [`fast_q`]; buffer errors of [`gemm_cpu::gemm_i8_i32_part`] cannot occur.
pub fn scaling(plan: &Ozaki2Plan, m: usize, n: usize, ap: &[f64], bp: &[f64]) -> Result<Scaling> {
    let (crt, k, q, x) = (&plan.crt, plan.k, plan.q, plan.x);
    let mua = vec_max_abs(ap, k, m);
    let mub = vec_max_abs(bp, k, n);
    if plan.mode == Ozaki2Mode::Fast {
        let exps = |v: &[f64], len: usize, mu: &[f64]| -> Vec<i32> {
            let s = norm_squares(v, len, mu.len(), mu);
            mu.iter()
                .zip(&s)
                .map(|(&u, &sv)| if u == 0.0 { 0 } else { fast_exponent(x, u, sv) })
                .collect()
        };
        return Ok(Scaling {
            ea: exps(ap, k, &mua),
            eb: exps(bp, k, &mub),
        });
    }
    let mut xa = vec![q; m];
    let mut yb = vec![q; n];
    let abar = magnitude_bounds(ap, k, m);
    let bbar = magnitude_bounds(bp, k, n);
    let mut z = vec![0.0f64; m * n];
    let mut zc = vec![0i32; m * n];
    let mut l0 = 0;
    while l0 < k {
        let l1 = (l0 + K_CHUNK).min(k);
        gemm_cpu::gemm_i8_i32_part(m, n, k, l0, l1, &abar, &bbar, &mut zc)?;
        for (d, s) in z.iter_mut().zip(&zc) {
            *d += *s as f64;
        }
        l0 = l1;
    }
    let kf = k as f64;
    let lhs = |x: i32, y: i32, zv: f64, xmax: i32| {
        ldexp(zv, x + y - 12) + 0.5 * kf * (ldexp(1.0, xmax) + ldexp(1.0, y)) + 0.25 * kf
    };
    for i in 0..m {
        if mua[i] == 0.0 {
            continue;
        }
        let zeta = (0..n).fold(0.0f64, |s, j| s.max(z[i + j * m]));
        let mut e = 0;
        while e < 64 && fits(lhs(q + e + 1, q, zeta, q + e + 1), crt) {
            e += 1;
        }
        xa[i] = q + e;
    }
    let xmax = xa.iter().copied().max().unwrap_or(q);
    for j in 0..n {
        if mub[j] == 0.0 {
            continue;
        }
        // max_i 2^(x_i − q)·Z_ij, exact (an integer times a power of two).
        let w = (0..m).fold(0.0f64, |s, i| s.max(ldexp(z[i + j * m], xa[i] - q)));
        let mut d = 0;
        while d < 64 && fits(lhs(q, q + d + 1, w, xmax), crt) {
            d += 1;
        }
        yb[j] = q + d;
    }
    let ea = (0..m)
        .map(|i| {
            if mua[i] == 0.0 {
                0
            } else {
                xa[i] - ceil_log2(mua[i])
            }
        })
        .collect();
    let eb = (0..n)
        .map(|j| {
            if mub[j] == 0.0 {
                0
            } else {
                yb[j] - ceil_log2(mub[j])
            }
        })
        .collect();
    Ok(Scaling { ea, eb })
}

/// Stage 3: `round_ties_even(x·2^e)` per vector, integers held exactly in `f64`.
pub fn to_integers(x: &[f64], len: usize, count: usize, exps: &[i32]) -> Vec<f64> {
    let mut out = vec![0.0; len * count];
    for v in 0..count {
        for t in 0..len {
            out[v * len + t] = ldexp(x[v * len + t], exps[v]).round_ties_even();
        }
    }
    out
}

/// The residue of an integer-valued `f64` modulo `m ≤ 256`, symmetric: in `[−m/2, m/2)`,
/// so it fits in `i8`. Exact for every integer-valued finite `f64`.
pub fn sym_residue(v: f64, m: u32) -> i8 {
    let mm = m as i64;
    let r = if v.abs() < 9_223_372_036_854_775_808.0 {
        (v as i64).rem_euclid(mm)
    } else if v.abs() < 1.7014118346046923e38 {
        // |v| < 2^127 (the double-double scheme's integers): exact in i128.
        (v as i128).rem_euclid(mm as i128) as i64
    } else {
        // v = ±mant·2^sh with sh ≥ 11: (mant mod m)·(2^sh mod m) mod m.
        let bits = v.to_bits();
        let exp = ((bits >> 52) & 0x7ff) as i64 - 1075;
        let mant = ((bits & ((1u64 << 52) - 1)) | (1u64 << 52)) as i64;
        let mut p2 = 1i64;
        for _ in 0..exp {
            p2 = p2 * 2 % mm;
        }
        let r = mant % mm * p2 % mm;
        if v < 0.0 { (mm - r) % mm } else { r }
    };
    (if 2 * r >= mm { r - mm } else { r }) as i8
}

/// The symmetric residue (as [`sym_residue`]) of `x + y` for symmetric residues `x`, `y`
/// modulo `m`.
pub(crate) fn sym_residue_sum(x: i8, y: i8, m: u32) -> i8 {
    let mm = m as i32;
    let r = (x as i32 + y as i32).rem_euclid(mm);
    (if 2 * r >= mm { r - mm } else { r }) as i8
}

/// Stage 4: the symmetric residues of integer matrix `x` modulo `m`.
pub fn residues(x: &[f64], m: u32) -> Vec<i8> {
    x.iter().map(|&v| sym_residue(v, m)).collect()
}

/// Stage 5: `(A'_l·B'_lᵀ) mod m_l ∈ [0, m_l)` for residue matrices `a` (`m × k` rows) and `b`
/// (`n` columns of length `k`), `m × n` column-major. The INT8 GEMMs run over chunks of at most
/// [`gemm_cpu::I8_MAX_K`] and their INT32 sums are reduced between chunks.
///
/// # Errors
/// Buffer-length errors of [`gemm_cpu::gemm_i8_i32_part`].
pub fn products_mod(
    m: usize,
    n: usize,
    k: usize,
    a: &[i8],
    b: &[i8],
    modulus: u32,
) -> Result<Vec<u8>> {
    let mm = modulus as i64;
    let mut acc = vec![0i64; m * n];
    let mut c = vec![0i32; m * n];
    let mut l0 = 0;
    while l0 < k {
        let l1 = (l0 + K_CHUNK).min(k);
        gemm_cpu::gemm_i8_i32_part(m, n, k, l0, l1, a, b, &mut c)?;
        for (d, s) in acc.iter_mut().zip(&c) {
            *d = (*d + *s as i64).rem_euclid(mm);
        }
        l0 = l1;
    }
    Ok(acc.into_iter().map(|x| x as u8).collect())
}

/// Stage 6: `C' = Σ_l r_l·w_l mod P` in the symmetric range, for each entry, as a
/// double-double. `res[l]` holds the residues modulo `crt.moduli[l]`.
///
/// Exactness: `Y_c = Σ_l r_l·w_l^(c)` is exact in `f64` ([`CRT_WORD_BITS`]). The quotient
/// `t = round(Σ r_l w_l / P)` is taken as `round(Y_0·(1/P) + Y_1·(1/P))`, within `2^-38` of
/// `y/P`, and `y/P` is at least `2^-21` away from a half-integer because `|C'| < P/2·(1 − 2^-20)`
/// ([`fits`]); so `t` is exact. `t < 2^13`, so `t·P^(c)` and `D_c = Y_c − t·P^(c)` are exact,
/// and `C' = Σ_c D_c` is summed as `two_sum(D_0, D_1)` followed by `Dd + f64` for the rest
/// (relative error ≤ 2u² each).
pub fn reconstruct(crt: &Crt, res: &[Vec<u8>]) -> Vec<Dd> {
    let count = res.first().map_or(0, |r| r.len());
    let mut d = vec![0.0f64; crt.w_words.len()];
    (0..count)
        .map(|idx| {
            crt_exact_words(crt, res, idx, &mut d);
            let (h, l) = two_sum(d[0], d[1]);
            let mut s = Dd { hi: h, lo: l };
            for &dc in &d[2..] {
                s = s.add_f64(dc);
            }
            s
        })
        .collect()
}

/// The exact words `D_c = Y_c − t·P^(c)` of entry `idx` of [`reconstruct`] (`d` holds one per
/// CRT word): `C' = Σ_c D_c` exactly.
pub(crate) fn crt_exact_words(crt: &Crt, res: &[Vec<u8>], idx: usize, d: &mut [f64]) {
    for (c, dc) in d.iter_mut().enumerate() {
        let mut s = 0.0;
        for (l, r) in res.iter().enumerate() {
            s += r[idx] as f64 * crt.w_words[c][l];
        }
        *dc = s;
    }
    let t = (d[0] * crt.p_inv + d[1] * crt.p_inv).round();
    for (dc, pc) in d.iter_mut().zip(&crt.p_words) {
        *dc -= t * pc;
    }
}

/// Stages 2–6 on packed operands: the `m × n` column-major double-doubles `2^-(e_i+f_j)·C'`,
/// i.e. `op(A)·op(B)` to within [`super::bounds::ozaki2_ab_bound`].
///
/// # Errors
/// Those of [`Crt::new`], [`scaling`], [`products_mod`].
#[cfg_attr(not(feature = "unstable-internals"), allow(dead_code))]
pub fn product(m: usize, n: usize, ap: &[f64], bp: &[f64], plan: &Ozaki2Plan) -> Result<Vec<Dd>> {
    product_scaled(m, n, (ap, None), (bp, None), plan).map(|(c, _)| c)
}

/// [`product`] and the scaling it used.
///
/// With second words `alo`, `blo` (double-double operands, `ozaki2_dd`), the scaling is the
/// leading words' and each operand's integer is `round(2^e·hi) + round(2^e·lo)`, its residues
/// [`sym_residue_sum`]s.
pub(crate) fn product_scaled(
    m: usize,
    n: usize,
    (ap, alo): (&[f64], Option<&[f64]>),
    (bp, blo): (&[f64], Option<&[f64]>),
    plan: &Ozaki2Plan,
) -> Result<(Vec<Dd>, Scaling)> {
    let (res, sc) = residue_products(m, n, (ap, alo), (bp, blo), plan)?;
    let mut c = reconstruct(&plan.crt, &res);
    for j in 0..n {
        for i in 0..m {
            let x = &mut c[i + j * m];
            *x = x.ldexp(-(sc.ea[i] + sc.eb[j]));
        }
    }
    Ok((c, sc))
}

/// Stages 2–5 of [`product_scaled`]: the scaling and, per modulus, the products' residues
/// (`m × n` column-major), ready for the reconstruction.
pub(crate) fn residue_products(
    m: usize,
    n: usize,
    (ap, alo): (&[f64], Option<&[f64]>),
    (bp, blo): (&[f64], Option<&[f64]>),
    plan: &Ozaki2Plan,
) -> Result<(Vec<Vec<u8>>, Scaling)> {
    let (crt, k) = (&plan.crt, plan.k);
    let sc = scaling(plan, m, n, ap, bp)?;
    let ai = to_integers(ap, k, m, &sc.ea);
    let bi = to_integers(bp, k, n, &sc.eb);
    let ai_lo = alo.map(|x| to_integers(x, k, m, &sc.ea));
    let bi_lo = blo.map(|x| to_integers(x, k, n, &sc.eb));
    let res_of = |hi: &[f64], lo: &Option<Vec<f64>>, ml: u32| -> Vec<i8> {
        match lo {
            None => residues(hi, ml),
            Some(lo) => hi
                .iter()
                .zip(lo)
                .map(|(&h, &l)| sym_residue_sum(sym_residue(h, ml), sym_residue(l, ml), ml))
                .collect(),
        }
    };
    let mut res = Vec::with_capacity(crt.moduli.len());
    for &ml in &crt.moduli {
        let ar = res_of(&ai, &ai_lo, ml);
        let br = res_of(&bi, &bi_lo, ml);
        res.push(products_mod(m, n, k, &ar, &br, ml)?);
    }
    Ok((res, sc))
}

/// The guard's statistics of `count` packed vectors of length `len` with scaling exponents
/// `exps`.
pub(crate) fn guard_stats(
    x: &[f64],
    len: usize,
    count: usize,
    exps: &[i32],
) -> Vec<(f64, GuardFactors)> {
    let mu = vec_max_abs(x, len, count);
    let s1 = norm_abs_sums(x, len, count, &mu);
    (0..count)
        .map(|v| {
            let st = GuardStats {
                exp: exps[v],
                mu: mu[v],
                s1: s1[v],
            };
            (mu[v], guard_factors(st))
        })
        .collect()
}

/// Checks the parameters of scheme II for inner dimension `k`.
///
/// # Errors
/// [`Error::OutOfRange`] for a moduli count outside `8..=20` or a `k` too large for it.
pub fn check_params(k: usize, params: &Ozaki2Params) -> Result<()> {
    Ozaki2Plan::new(k, params).map(|_| ())
}

/// `C ← α·A·B + β·C` by Ozaki scheme II on INT8 products, for views `A` (`m × k`), `B`
/// (`k × n`) and `C` (`m × n`) of any strides (a transpose is a view: [`MatRef::t`]). BLAS
/// conventions for the quick returns and `β = 0` ([`super`]).
///
/// Accuracy. With the default [`OzakiGuard::Componentwise`](super::OzakiGuard), every entry of
/// the product `A·B` meets DGEMM's componentwise bound `γ_k·(|A||B|)_ij + k·2^-1074` for every
/// finite input (entries the scheme cannot certify are recomputed plainly, see
/// `guard_fails`), and the update `α·s + β·c` adds its own rounding. With
/// [`OzakiGuard::NormwiseFast`](super::OzakiGuard) each entry's error is bounded only by
/// [`super::bounds::ozaki2_entry_bound`] (row and column norms); see
/// [`super::OZAKI2_DEFAULT_MODULI`] for the default moduli's accuracy. The returned
/// [`Ozaki2Report`] says what was done.
///
/// # Errors
/// [`Error::LengthMismatch`] if the shapes do not agree; [`Error::OutOfRange`] (moduli count
/// outside `8..=20`, `k` too large for the moduli).
pub fn ozaki2_gemm(
    alpha: f64,
    a: MatRef<'_, f64>,
    b: MatRef<'_, f64>,
    beta: f64,
    mut c: MatMut<'_, f64>,
    params: &Ozaki2Params,
) -> Result<Ozaki2Report> {
    let plan = Ozaki2Plan::new(a.cols(), params)?;
    let mut report = Ozaki2Report::started(params);
    let Some(Prepared {
        dims: (m, n, k),
        ap,
        bp,
        patch,
    }) = prepare(alpha, a, b, beta, &mut c)?
    else {
        return Ok(report);
    };
    let (s, sc) = product_scaled(m, n, (&ap, None), (&bp, None), &plan)?;
    let guarded = params.guard == OzakiGuard::Componentwise;
    let (ga, gb) = if guarded {
        (
            guard_stats(&ap, k, m, &sc.ea),
            guard_stats(&bp, k, n, &sc.eb),
        )
    } else {
        (Vec::new(), Vec::new())
    };
    let mut recomputed = 0;
    let mut touched = Recomputed::new(m, n);
    for j in 0..n {
        for i in 0..m {
            let sij = s[i + j * m];
            let sample = |terms| guard_sample(|l| *a.at(i, l), |l| *b.at(l, j), terms);
            if guarded && guard_fails(k, sij, ga[i].1, gb[j].1, sample) {
                let sigma = (ceil_log2(ga[i].0), ceil_log2(gb[j].0));
                let v = guard_entry(alpha, a, b, beta, c.rb(), (i, j), sigma);
                *c.at_mut(i, j) = v;
                recomputed += 1;
                touched.mark((i, j));
                continue;
            }
            let cij = c.at_mut(i, j);
            *cij = update_dd(sij, alpha, beta, *cij);
        }
    }
    // The non-finite patch overrides: its rows and columns were zeroed, so their entries
    // passed the guard as exact zeros and are not counted twice.
    apply_patch(&mut c, &patch);
    patch.iter().for_each(|&(ij, _)| touched.mark(ij));
    report.entries = m * n;
    report.guard_recomputed = recomputed;
    report.non_finite_recomputed = patch.len();
    (report.rows_recomputed, report.cols_recomputed) = touched.counts();
    Ok(report)
}

/// [`ozaki2_gemm`] with the arguments of BLAS `dgemm` (column-major arrays, transpose flags,
/// leading dimensions), for code ported from Fortran or C.
///
/// # Errors
/// [`Error::LeadingDim`] (`lda`, `ldb`, `ldc` too small), [`Error::ArrayTooShort`] (`a`,
/// `b`, `c` too short), then those of [`ozaki2_gemm`].
#[allow(clippy::too_many_arguments)]
pub fn ozaki2_gemm_blas(
    transa: Trans,
    transb: Trans,
    m: usize,
    n: usize,
    k: usize,
    alpha: f64,
    a: &[f64],
    lda: usize,
    b: &[f64],
    ldb: usize,
    beta: f64,
    c: &mut [f64],
    ldc: usize,
    params: &Ozaki2Params,
) -> Result<Ozaki2Report> {
    let (a, b, c) = blas_views(transa, transb, m, n, k, a, lda, b, ldb, c, ldc)?;
    ozaki2_gemm(alpha, a, b, beta, c, params)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `norm_abs_sums` bounds the 1-norm from above (exactly summed), and not by much more than
    /// the quantisation (`k` units of `2^(⌈log2 μ⌉−16)`), on vectors whose chunks sit at very
    /// different scales, down to subnormals, with zero chunks.
    #[test]
    fn norm_abs_sums_bound_the_one_norm() {
        let mut g = mpblas_testdata::SplitMix64::new(11);
        for case in 0..200 {
            let len = 1 + (g.next_u64() % 700) as usize;
            let x: Vec<f64> = (0..len)
                .map(|t| {
                    let e = match case % 3 {
                        0 => ((t / NORM_CHUNK) as i32 * 37 + case) % 90 - 60,
                        1 => -1060 + (t % 20) as i32,
                        _ => (g.next_u64() % 400) as i32 - 200,
                    };
                    if case % 5 == 0 && (t / NORM_CHUNK) % 2 == 1 {
                        0.0
                    } else {
                        (g.uniform() - 0.5) * ldexp(1.0, e)
                    }
                })
                .collect();
            let mu = x.iter().fold(0.0f64, |m, t| m.max(t.abs()));
            let s1 = norm_abs_sums(&x, len, 1, &[mu])[0];
            if mu == 0.0 {
                assert_eq!(s1, 0);
                continue;
            }
            let mut exact = crate::exact::ExactDot::new();
            for &t in &x {
                exact.add(t.abs());
            }
            // ‖x‖₁ ≤ 2^(⌈log2 μ⌉−16)·S1, compared exactly with both sides scaled by 2^60 (the
            // unit itself can be below the subnormals): unit·S1 − ‖x‖₁ ≥ 0
            let unit = ldexp(1.0, ceil_log2(mu) - NORM_BITS + 60);
            let mut d = crate::exact::ExactDot::new();
            d.add_product(unit, s1 as f64);
            for &t in &x {
                d.add_product(-t.abs(), ldexp(1.0, 60));
            }
            assert!(
                d.to_f64() >= 0.0,
                "case {case}: S1 below the 1-norm ({:e})",
                exact.to_f64()
            );
            assert!(
                d.to_f64() <= unit * (len as f64 + norm_chunks(len) as f64),
                "case {case}: S1 too loose"
            );
        }
    }

    /// `norm_squares` against exact arithmetic (MPFR): `4^(⌈log2 μ⌉−16)·S ≥ ‖x‖₂²` and
    /// `√S ≤ 2^(16−⌈log2 μ⌉)‖x‖₂ + √k + √chunks` (the bound `ozaki2_exponent_lower` uses), on
    /// vectors whose chunks sit at very different scales (down to subnormals), with zero chunks
    /// and a short last chunk. Also that a coarser quantisation (one chunk per vector) is never
    /// tighter by more than the rounding.
    #[test]
    fn norm_squares_bounds_the_two_norm() {
        use rug::Float;
        let mut g = mpblas_testdata::SplitMix64::new(7);
        for case in 0..200 {
            let len = 1 + (g.next_u64() % 700) as usize;
            let x: Vec<f64> = (0..len)
                .map(|t| {
                    let chunk_scale = ((t / NORM_CHUNK) as i32 * 37 + case) % 90 - 60;
                    let e = match case % 4 {
                        0 => chunk_scale,
                        1 => chunk_scale * 17,
                        2 => -1060 + (t % 20) as i32,
                        _ => (g.next_u64() % 200) as i32 - 100,
                    };
                    if case % 5 == 0 && (t / NORM_CHUNK) % 2 == 1 {
                        0.0
                    } else if case % 3 == 0 {
                        // Exact powers of two: no slack in the per-entry rounding, so only
                        // the chunk sums' rounding up keeps S above the norm.
                        if t % 7 == 0 { -ldexp(1.0, e) } else { 0.0 }
                    } else {
                        (g.uniform() - 0.5) * ldexp(1.0, e)
                    }
                })
                .collect();
            let mu = x.iter().fold(0.0f64, |m, t| m.max(t.abs()));
            let s = norm_squares(&x, len, 1, &[mu])[0];
            if mu == 0.0 {
                assert_eq!(s, 0);
                continue;
            }
            let e = ceil_log2(mu);
            let mut n2 = Float::with_val(4096, 0);
            for &t in &x {
                n2 += Float::with_val(4096, t) * Float::with_val(4096, t);
            }
            // ‖x‖₂² in units of 4^(e−16), exactly.
            let scaled = n2.clone() << (2 * (NORM_BITS - e));
            assert!(
                Float::with_val(4096, s) >= scaled,
                "case {case}: S too small"
            );
            let root = scaled.sqrt()
                + Float::with_val(64, len as f64).sqrt()
                + Float::with_val(64, norm_chunks(len) as f64).sqrt();
            assert!(
                Float::with_val(4096, s).sqrt() <= root,
                "case {case}: S above the bound"
            );
        }
    }

    #[test]
    fn shift_right_up_is_the_ceiling() {
        assert_eq!(shift_right_up(0, 5), 0);
        assert_eq!(shift_right_up(8, 3), 1);
        assert_eq!(shift_right_up(9, 3), 2);
        assert_eq!(shift_right_up(9, 0), 9);
        assert_eq!(shift_right_up(u64::MAX, 63), 2);
        assert_eq!(shift_right_up(1, 64), 1);
        assert_eq!(shift_right_up(1 << 40, 4000), 1);
    }

    #[test]
    fn moduli_are_pairwise_coprime_and_deterministic() {
        let ms = moduli(20);
        assert_eq!(
            ms,
            vec![
                256, 255, 253, 251, 247, 241, 239, 233, 229, 227, 223, 217, 211, 199, 197, 193,
                191, 181, 179, 173
            ]
        );
    }

    #[test]
    fn crt_weights_are_idempotents() {
        for count in [8, 14, 20] {
            let crt = Crt::new(count).unwrap();
            // w_l ≡ 1 (mod m_l) and ≡ 0 (mod m_t), checked word by word with sym_residue.
            for (l, _) in crt.moduli.iter().enumerate() {
                for (t, &mt) in crt.moduli.iter().enumerate() {
                    let r: i64 = crt
                        .w_words
                        .iter()
                        .map(|w| sym_residue(w[l], mt) as i64)
                        .sum::<i64>()
                        .rem_euclid(mt as i64);
                    assert_eq!(r, i64::from(l == t), "count {count} l {l} t {t}");
                }
            }
            assert!(crt.p_words.iter().all(|&w| w == w.round()));
        }
    }

    #[test]
    fn residues_exact_for_large_integers() {
        for &v in &[
            0.0,
            1.0,
            -1.0,
            255.0,
            -128.0,
            9.007_199_254_740_993e15,
            -(2f64.powi(80)) * 3.0,
        ] {
            for m in [256u32, 255, 173] {
                let r = sym_residue(v, m) as i128;
                let vi = v as i128;
                assert_eq!((vi - r).rem_euclid(m as i128), 0, "v {v} m {m}");
                assert!(2 * r >= -(m as i128) && 2 * r < m as i128);
            }
        }
    }

    #[test]
    fn reconstruct_recovers_signed_integers() {
        let crt = Crt::new(8).unwrap();
        let vals: Vec<i128> = vec![0, 1, -1, 123_456_789, -(1i128 << 61), (1i128 << 61) - 7];
        let res: Vec<Vec<u8>> = crt
            .moduli
            .iter()
            .map(|&m| {
                vals.iter()
                    .map(|&v| v.rem_euclid(m as i128) as u8)
                    .collect()
            })
            .collect();
        let got = reconstruct(&crt, &res);
        for (g, &v) in got.iter().zip(&vals) {
            assert_eq!(g.hi as i128 + g.lo as i128, v);
        }
    }
}
