//! The RNS basis: a set of pairwise-coprime moduli chosen at run time for a requested
//! precision, with every constant the algorithms need precomputed once.
//!
//! # Choice of moduli
//!
//! The moduli are the largest primes below 2^31, taken in decreasing order (primes are pairwise
//! coprime by construction, and "largest first" makes the set a deterministic function of its
//! size). All of them lie in (2^30, 2^31). Why that window and not (2^31, 2^32):
//!
//! - a residue is a `u32` and a product of two residues is below 2^62, so it fits a `u64` with
//!   two bits to spare; the sum of two residues is below 2^32, so modular addition stays in
//!   32-bit lanes (8 per AVX2 register, the lane width the GPU backend will use);
//! - Barrett reduction with the constant `μ = ⌊2^62/m⌋` then needs only 32×32→64-bit products
//!   (`(t >> 30)` and `μ` both fit 32 bits because `m > 2^30`), which x86 vectorises as
//!   `vpmuludq`, and its quotient is off by at most 2 (proof at `mul_mod`);
//! - the fixed-point reciprocals `⌊2^94/m⌋` of the interval evaluation fit a `u64`.
//!
//! The price is about 3 % more moduli than with 32-bit ones.
//!
//! # Precision
//!
//! With `M = ∏ mᵢ`, the precision is `p = ⌊log2 √M⌋ − 1` (the papers' definition), and
//! [`Basis::new`] takes the fewest moduli for which `p` is at least the requested precision; the
//! basis reports the precision it actually delivers ([`Basis::precision`]). Significands are
//! rounded to exactly `p` bits, so the unit roundoff is `u = 2^-p`, which is `< 4/√M`
//! (bound (6) of the papers): `p + 1 ≤ log2 √M < p + 2` gives `4/√M > 2^(2 − p − 2) = 2^-p`.
//! Products of two significands are below `2^(2p) ≤ M/4`, so multiplication is exact before
//! its rounding.

use crate::error::{Error, Result};
use crate::rns::extf::ExtF;
use std::sync::Arc;

/// Smallest precision (bits) a basis can be built for.
pub const MIN_PRECISION: u32 = 24;
/// Largest precision (bits) a basis can be built for. The bound keeps the absolute error of the
/// fixed-point interval evaluation (`n·2^-63` for `n` moduli) below `2^-50`.
pub const MAX_PRECISION: u32 = 32_768;

/// A set of pairwise-coprime moduli and its precomputed constants, shared by `Arc`: every
/// [`MpFloat`](crate::rns::MpFloat) holds one. [`Basis::new`] returns the one basis of each
/// moduli set (cached for the life of the process), so two requests for the same precision
/// give the same `Arc`, and bases compare equal exactly when their moduli are equal.
///
/// The strict operations of `MpFloat` (`add`, `mul`, ... returning `Result`) refuse operands of
/// different bases with [`Error::BasisMismatch`]; convert one with
/// [`MpFloat::round_to`](crate::rns::MpFloat::round_to), or use the operators, which compute in
/// the wider basis.
#[derive(Debug)]
pub struct Basis {
    /// The identity: the number of moduli, which determines the set ([`Basis::new`]).
    pub(crate) id: u64,
    pub(crate) precision: u32,
    pub(crate) m: Vec<u32>,
    /// Barrett constants `⌊2^62 / mᵢ⌋`.
    pub(crate) mu: Vec<u32>,
    /// CRT weights `wᵢ = |Mᵢ^-1|_mᵢ`, `Mᵢ = M/mᵢ`.
    pub(crate) w: Vec<u32>,
    /// `wᵢ · 2^k_norm mod mᵢ`: evaluates a `p`-bit significand scaled next to `M/4` in one pass.
    pub(crate) w_norm: Vec<u32>,
    /// High and low 32-bit halves of the fixed-point reciprocals `⌊2^94 / mᵢ⌋` (interval
    /// evaluation; split so that the weighted sums vectorise).
    pub(crate) recip_hi: Vec<u32>,
    pub(crate) recip_lo: Vec<u32>,
    /// High and low 32-bit halves of `Mᵢ mod 2^64` (exact low word of the CRT reconstruction).
    pub(crate) mi_low_hi: Vec<u32>,
    pub(crate) mi_low_lo: Vec<u32>,
    /// `M mod 2^64`.
    pub(crate) m_low: u64,
    /// `2^32 mod mᵢ` (reduces a `u64` modulo `mᵢ`).
    pub(crate) two32: Vec<u32>,
    /// `2^k mod mᵢ` for `k` in `0..64`, row `k` at `[k·n ..]`.
    pub(crate) pow2_lo: Vec<u32>,
    /// `2^(64 j) mod mᵢ` for `j` in `0..=hi_rows`, row `j` at `[j·n ..]`.
    pub(crate) pow2_hi: Vec<u32>,
    /// `2^-k mod mᵢ` for `k` in `0..=64`, row `k` at `[k·n ..]` (exact division by `2^k`).
    pub(crate) inv2: Vec<u32>,
    /// `2^(-64 j) mod mᵢ`, rows as `pow2_hi`.
    pub(crate) inv2_hi: Vec<u32>,
    /// Binary tables of the one-pass scaling (built on first use): see [`ScaleTables`].
    pub(crate) scale: std::sync::OnceLock<ScaleTables>,
    /// `⌊log2 M⌋`.
    pub(crate) log2m: u32,
    /// Bounds `M_lo ≤ M ≤ M_hi` as extended-range floats.
    pub(crate) m_ext: [ExtF; 2],
    /// `k_norm = log2m − 2 − p`: a `p`-bit significand times `2^k_norm` is below `M/4`.
    pub(crate) k_norm: u32,
}

/// The bases built so far, by number of moduli. [`Basis::new`] takes the moduli as a prefix of
/// one fixed sequence of primes (the largest below 2^31, downwards), so the count determines
/// the set, and the cache gives every moduli set one `Arc` (and one identity for the GPU's
/// per-device tables).
fn cache() -> &'static std::sync::Mutex<std::collections::HashMap<usize, Arc<Basis>>> {
    static CACHE: std::sync::OnceLock<
        std::sync::Mutex<std::collections::HashMap<usize, Arc<Basis>>>,
    > = std::sync::OnceLock::new();
    CACHE.get_or_init(Default::default)
}

impl PartialEq for Basis {
    /// Equal moduli (the same set in the same order).
    fn eq(&self, other: &Basis) -> bool {
        self.m == other.m
    }
}
impl Eq for Basis {}

impl Basis {
    /// The basis with the fewest moduli whose precision `⌊log2 √M⌋ − 1` is at least
    /// `precision` bits. The precision you get is usually a little more than you ask for:
    ///
    /// ```
    /// use mpblas::rns::Basis;
    /// let b = Basis::new(106).unwrap();
    /// assert_eq!(b.precision(), 107); // 7 moduli give 107 bits, 6 would give fewer than 106
    /// assert_eq!(b.len(), 7);
    /// // The same moduli set is one basis: equal, and the very same `Arc`.
    /// let c = Basis::new(107).unwrap();
    /// assert!(std::sync::Arc::ptr_eq(&b, &c) && *b == *c);
    /// ```
    ///
    /// Bases are built once per moduli set and kept for the life of the process.
    ///
    /// # Errors
    /// [`Error::PrecisionOutOfRange`] unless `MIN_PRECISION ≤ precision ≤ MAX_PRECISION`.
    pub fn new(precision: u32) -> Result<Arc<Basis>> {
        if !(MIN_PRECISION..=MAX_PRECISION).contains(&precision) {
            return Err(Error::PrecisionOutOfRange {
                requested: precision,
                min: MIN_PRECISION,
                max: MAX_PRECISION,
            });
        }
        // ⌊log2 M / 2⌋ − 1 ≥ p  ⇔  log2 M ≥ 2p + 2; each modulus adds log2 mᵢ > 30 bits.
        let need = 2.0 * precision as f64 + 2.0;
        let mut count = 0;
        let mut bits = 0.0f64;
        let mut cand: u32 = (1 << 31) - 1;
        while bits < need + 1e-6 {
            if is_prime_u32(cand) {
                count += 1;
                bits += (cand as f64).log2();
            }
            cand -= 2;
        }
        Ok(Self::with_len(count))
    }

    /// The basis of the first `count` moduli of the fixed sequence ([`Basis::new`] takes the
    /// fewest that reach a precision): a basis of more moduli extends a smaller one, so a
    /// number's residues in the smaller basis are the first residues of the same number in the
    /// larger (what the exact accumulations of `blas::rns` use to widen a sum's range).
    pub(crate) fn with_len(count: usize) -> Arc<Basis> {
        // A poisoned lock only means a panic elsewhere while holding it; the map is whole.
        let mut cache = cache().lock().unwrap_or_else(|e| e.into_inner());
        cache
            .entry(count)
            .or_insert_with(|| {
                let mut moduli = Vec::with_capacity(count);
                let mut cand: u32 = (1 << 31) - 1;
                while moduli.len() < count {
                    if is_prime_u32(cand) {
                        moduli.push(cand);
                    }
                    cand -= 2;
                }
                Arc::new(Self::from_moduli(moduli))
            })
            .clone()
    }

    /// Computes every constant for the given primes (all in (2^30, 2^31), distinct).
    fn from_moduli(m: Vec<u32>) -> Basis {
        let n = m.len();
        let mu: Vec<u32> = m
            .iter()
            .map(|&mi| ((1u64 << 62) / mi as u64) as u32)
            .collect();
        // M as little-endian u64 limbs (exact bit length and leading bits).
        let mut big = vec![1u64];
        for &mi in &m {
            let mut carry = 0u128;
            for limb in big.iter_mut() {
                let t = *limb as u128 * mi as u128 + carry;
                *limb = t as u64;
                carry = t >> 64;
            }
            if carry != 0 {
                big.push(carry as u64);
            }
        }
        let top = *big.last().unwrap_or(&1);
        let bitlen = 64 * (big.len() as u32 - 1) + (64 - top.leading_zeros());
        let log2m = bitlen - 1;
        let precision = log2m / 2 - 1;
        let m_ext = m_bounds(&big, bitlen);
        let m_low = big[0];
        // Mᵢ mod 2^64 = M · mᵢ^-1 mod 2^64 (mᵢ odd, so invertible modulo 2^64).
        let mi_low: Vec<u64> = m
            .iter()
            .map(|&mi| m_low.wrapping_mul(inv_mod_2_64(mi as u64)))
            .collect();
        // wᵢ = (∏_{j≠i} mⱼ)^-1 mod mᵢ: O(n²) modular products, done once.
        let w: Vec<u32> = (0..n)
            .map(|i| {
                let (mi, mui) = (m[i], mu[i]);
                let mut prod = 1u32;
                for (j, &mj) in m.iter().enumerate() {
                    if j != i {
                        prod = mul_mod(prod, mj % mi, mi, mui);
                    }
                }
                inv_mod(prod, mi)
            })
            .collect();
        let two32: Vec<u32> = m
            .iter()
            .map(|&mi| ((1u64 << 32) % mi as u64) as u32)
            .collect();
        let mut pow2_lo = vec![0u32; 64 * n];
        for (i, (&mi, &mui)) in m.iter().zip(&mu).enumerate() {
            let mut v = 1u32;
            for k in 0..64 {
                pow2_lo[k * n + i] = v;
                v = mul_mod(v, 2, mi, mui);
            }
        }
        let hi_rows = (log2m as usize + 64) / 64 + 2;
        let mut pow2_hi = vec![0u32; hi_rows * n];
        for (i, (&mi, &mui)) in m.iter().zip(&mu).enumerate() {
            let step = mul_mod(pow2_lo[63 * n + i], 2, mi, mui); // 2^64 mod mᵢ
            let mut v = 1u32;
            for j in 0..hi_rows {
                pow2_hi[j * n + i] = v;
                v = mul_mod(v, step, mi, mui);
            }
        }
        let mut inv2 = vec![0u32; 65 * n];
        for (i, &mi) in m.iter().enumerate() {
            let half = mi / 2 + 1; // 2^-1 mod mᵢ for odd mᵢ
            let mut v = 1u32;
            for k in 0..=64 {
                inv2[k * n + i] = v;
                v = mul_mod(v, half, mi, mu[i]);
            }
        }
        let mut inv2_hi = vec![0u32; hi_rows * n];
        for i in 0..n {
            let step = mul_mod(inv2[63 * n + i], inv2[n + i], m[i], mu[i]); // 2^-64 mod mᵢ
            let mut v = 1u32;
            for j in 0..hi_rows {
                inv2_hi[j * n + i] = v;
                v = mul_mod(v, step, m[i], mu[i]);
            }
        }
        let k_norm = log2m - 2 - precision;
        let recip94: Vec<u64> = m
            .iter()
            .map(|&mi| ((1u128 << 94) / mi as u128) as u64)
            .collect();
        let recip_hi = recip94.iter().map(|&r| (r >> 32) as u32).collect();
        let recip_lo = recip94.iter().map(|&r| r as u32).collect();
        let mi_low_hi = mi_low.iter().map(|&r| (r >> 32) as u32).collect();
        let mi_low_lo = mi_low.iter().map(|&r| r as u32).collect();
        let mut b = Basis {
            id: n as u64,
            precision,
            m,
            mu,
            w,
            w_norm: Vec::new(),
            recip_hi,
            recip_lo,
            mi_low_hi,
            mi_low_lo,
            m_low,
            two32,
            pow2_lo,
            pow2_hi,
            inv2,
            inv2_hi,
            scale: std::sync::OnceLock::new(),
            log2m,
            m_ext,
            k_norm,
        };
        let p2 = b.pow2(k_norm as u64);
        b.w_norm = (0..n)
            .map(|i| mul_mod(b.w[i], p2[i], b.m[i], b.mu[i]))
            .collect();
        b
    }

    /// The precision `p = ⌊log2 √M⌋ − 1` in bits: significands are rounded to `p` bits.
    pub fn precision(&self) -> u32 {
        self.precision
    }

    /// The number of moduli `n`.
    pub fn len(&self) -> usize {
        self.m.len()
    }

    /// Always false: a basis has at least two moduli.
    pub fn is_empty(&self) -> bool {
        self.m.is_empty()
    }

    /// The moduli, largest first.
    pub fn moduli(&self) -> &[u32] {
        &self.m
    }

    /// `⌊log2 M⌋`, the size of the dynamic range in bits.
    pub fn log2_m(&self) -> u32 {
        self.log2m
    }

    /// The unit roundoff `u = 2^-p` (as an `f64`; it underflows to 0 beyond `p = 1074`, use
    /// [`Basis::unit_roundoff_log2`] there).
    pub fn unit_roundoff(&self) -> f64 {
        (-(self.precision as f64)).exp2()
    }

    /// `log2 u = −p`.
    pub fn unit_roundoff_log2(&self) -> i64 {
        -(self.precision as i64)
    }

    /// The papers' bound `4/√M` as `log2`, rounded down: `u = 2^-p` is strictly smaller.
    pub fn paper_bound_log2(&self) -> f64 {
        2.0 - self.m_ext[1].log2_approx() / 2.0
    }

    /// Residues of `2^k` for any `k ≥ 0` below `64·(rows of pow2_hi)` (two table lookups and one
    /// modular product per modulus).
    pub(crate) fn pow2(&self, k: u64) -> Vec<u32> {
        let mut out = vec![0u32; self.len()];
        self.pow2_into(k, &mut out);
        out
    }

    /// [`Basis::pow2`] into a caller's buffer.
    pub(crate) fn pow2_into(&self, k: u64, out: &mut [u32]) {
        let n = self.len();
        let (j, r) = ((k / 64) as usize, (k % 64) as usize);
        debug_assert!(j * n < self.pow2_hi.len());
        let hi = &self.pow2_hi[j * n..(j + 1) * n];
        let lo = &self.pow2_lo[r * n..(r + 1) * n];
        for i in 0..n {
            out[i] = mul_mod(hi[i], lo[i], self.m[i], self.mu[i]);
        }
    }

    /// Residues of `2^-k` (`k` below [`Basis::pow2_limit`]).
    pub(crate) fn inv_pow2_into(&self, k: u64, out: &mut [u32]) {
        let n = self.len();
        let (j, r) = ((k / 64) as usize, (k % 64) as usize);
        let hi = &self.inv2_hi[j * n..(j + 1) * n];
        let lo = &self.inv2[r * n..(r + 1) * n];
        for i in 0..n {
            out[i] = mul_mod(hi[i], lo[i], self.m[i], self.mu[i]);
        }
    }

    /// The binary tables of the one-pass scaling, built on first use (`O(n²)` words).
    pub(crate) fn scale_tables(&self) -> &ScaleTables {
        self.scale.get_or_init(|| ScaleTables::new(self))
    }

    /// Largest power of two whose residues [`Basis::pow2`] can produce.
    pub(crate) fn pow2_limit(&self) -> u64 {
        64 * (self.pow2_hi.len() / self.len()) as u64 - 1
    }

    /// Residues of a `u64`.
    pub(crate) fn residues_u64(&self, v: u64, out: &mut [u32]) {
        let (hi, lo) = ((v >> 32) as u32, v as u32);
        for i in 0..self.len() {
            out[i] = reduce_u64_parts(hi, lo, self.m[i], self.mu[i], self.two32[i]);
        }
    }

    /// True when `self` and `other` are the same basis: the same moduli (bases come from one
    /// cache, so this compares their identities, the moduli count).
    pub fn same(&self, other: &Basis) -> bool {
        self.id == other.id
    }
}

/// Tables for the exact power-of-two scaling in one CRT pass ([`crate::rns::interval::shift_right`]).
///
/// With `cᵢ = |xᵢ·wᵢ|_mᵢ` and the rank `r`, `X = Σ cᵢ·Mᵢ − r·M` exactly, so the low `K` bits of
/// `X` follow from the low 32-bit limbs of every `Mᵢ` and of `M` (dot products over `i`, one per
/// limb), and the residues of a `K`-bit binary integer from the residues of `2^(32 l)`.
#[derive(Debug)]
pub(crate) struct ScaleTables {
    /// Number of 32-bit limbs kept (enough for `M`).
    pub limbs: usize,
    /// Limb `l` of `Mᵢ` at `[l·n + i]`.
    pub mi_bin: Vec<u32>,
    /// Limb `l` of `M`.
    pub m_bin: Vec<u32>,
    /// `2^(32 l) mod mⱼ` at `[l·n + j]`.
    pub pow32: Vec<u32>,
}

impl ScaleTables {
    fn new(b: &Basis) -> ScaleTables {
        let n = b.len();
        // M as little-endian u32 limbs.
        let mut big: Vec<u32> = vec![1];
        for &mi in &b.m {
            let mut carry = 0u64;
            for limb in big.iter_mut() {
                let t = *limb as u64 * mi as u64 + carry;
                *limb = t as u32;
                carry = t >> 32;
            }
            if carry != 0 {
                big.push(carry as u32);
            }
        }
        let limbs = big.len() + 1;
        big.resize(limbs, 0);
        let mut mi_bin = vec![0u32; limbs * n];
        for (i, &mi) in b.m.iter().enumerate() {
            // Mᵢ = M / mᵢ (exact), limb by limb from the top.
            let mut rem = 0u64;
            for l in (0..limbs).rev() {
                let cur = rem << 32 | big[l] as u64;
                mi_bin[l * n + i] = (cur / mi as u64) as u32;
                rem = cur % mi as u64;
            }
            debug_assert_eq!(rem, 0);
        }
        let mut pow32 = vec![0u32; limbs * n];
        for j in 0..n {
            let mut v = 1u32;
            for l in 0..limbs {
                pow32[l * n + j] = v;
                v = mul_mod(v, b.two32[j], b.m[j], b.mu[j]);
            }
        }
        ScaleTables {
            limbs,
            mi_bin,
            m_bin: big,
            pow32,
        }
    }
}

/// `Σ aᵢ·bᵢ` exactly, for `u32` vectors of equal length below `2^32` (vectorisable: the 64-bit
/// products are split into 32-bit halves summed separately).
/// Dispatches to an AVX2 build of the same loop where the CPU has it (the crate is compiled
/// for baseline x86-64, whose SSE2 has half the lanes).
#[inline]
pub(crate) fn dot(a: &[u32], b: &[u32]) -> u128 {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        return unsafe { dot_avx2(a, b) };
    }
    dot_generic(a, b)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn dot_avx2(a: &[u32], b: &[u32]) -> u128 {
    dot_generic(a, b)
}

#[inline(always)]
fn dot_generic(a: &[u32], b: &[u32]) -> u128 {
    let (mut lo, mut hi) = (0u64, 0u64);
    for (&x, &y) in a.iter().zip(b) {
        let p = x as u64 * y as u64;
        lo += p & 0xffff_ffff;
        hi += p >> 32;
    }
    ((hi as u128) << 32) + lo as u128
}

/// `acc[j] += Σ_l v_l·rows[l·n + j]` exactly, in split 32-bit halves (`acc_lo`, `acc_hi`),
/// dispatched to AVX2 like [`dot`].
#[inline]
pub(crate) fn mul_acc_rows(v: &[u32], rows: &[u32], acc_lo: &mut [u64], acc_hi: &mut [u64]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        unsafe { mul_acc_rows_avx2(v, rows, acc_lo, acc_hi) };
        return;
    }
    mul_acc_rows_generic(v, rows, acc_lo, acc_hi)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn mul_acc_rows_avx2(v: &[u32], rows: &[u32], acc_lo: &mut [u64], acc_hi: &mut [u64]) {
    mul_acc_rows_generic(v, rows, acc_lo, acc_hi)
}

#[inline(always)]
fn mul_acc_rows_generic(v: &[u32], rows: &[u32], acc_lo: &mut [u64], acc_hi: &mut [u64]) {
    let n = acc_lo.len();
    for (l, &vl) in v.iter().enumerate() {
        if vl == 0 {
            continue;
        }
        let row = &rows[l * n..(l + 1) * n];
        for ((lo, hi), &r) in acc_lo.iter_mut().zip(acc_hi.iter_mut()).zip(row) {
            let p = vl as u64 * r as u64;
            *lo += p & 0xffff_ffff;
            *hi += p >> 32;
        }
    }
}

/// Bounds on `M` from its leading 64 bits: `M_lo` truncates, `M_hi` adds one unit of the
/// 64th bit (then both are rounded outward to 53 bits by [`ExtF::from_u128_rd`]/`_ru`).
fn m_bounds(big: &[u64], bitlen: u32) -> [ExtF; 2] {
    // Leading 128 bits of M (or all of M when shorter), shifted so that M = lead·2^sh + rest.
    let nl = big.len();
    let (lead, sh): (u128, i64) = if nl >= 2 {
        let a = (big[nl - 1] as u128) << 64 | big[nl - 2] as u128;
        (a, 64 * (nl as i64 - 2))
    } else {
        (big[0] as u128, 0)
    };
    let rest_nonzero = big[..nl.saturating_sub(2)].iter().any(|&l| l != 0);
    let lo = ExtF::from_u128_rd(lead, sh);
    let hi = ExtF::from_u128_ru(lead + rest_nonzero as u128, sh);
    debug_assert_eq!(lo.floor_log2(), bitlen as i64 - 1);
    [lo, hi]
}

/// `a·b mod m` for `a, b < m`, `2^30 < m < 2^31`, `mu = ⌊2^62/m⌋` (Barrett).
///
/// With `t = a·b < 2^62`, `q = ⌊⌊t/2^30⌋·μ / 2^32⌋` satisfies `t/m − 3 < q ≤ t/m`: the two
/// floors and `μ > 2^62/m − 1` each lose less than one unit of `t/m` (the losses are
/// `t/2^62 < 1` and `2^30/m < 1`). Hence `t − q·m < 3m` and two conditional subtractions
/// finish. Written with 32-bit operands widened to `u64` so that it vectorises.
#[inline(always)]
pub(crate) fn mul_mod(a: u32, b: u32, m: u32, mu: u32) -> u32 {
    reduce62(a as u64 * b as u64, m, mu)
}

/// `t mod m` for `t < 2^62` (see [`mul_mod`]).
#[inline(always)]
pub(crate) fn reduce62(t: u64, m: u32, mu: u32) -> u32 {
    let q = (((t >> 30) as u32 as u64) * mu as u64) >> 32;
    let r = t.wrapping_sub((q as u32 as u64) * m as u64);
    let r = r.min(r.wrapping_sub(m as u64));
    r.min(r.wrapping_sub(m as u64)) as u32
}

/// `(a + b) mod m` for `a, b < m < 2^31` (the sum fits a `u32`).
#[inline(always)]
pub(crate) fn add_mod(a: u32, b: u32, m: u32) -> u32 {
    let s = a + b;
    s.min(s.wrapping_sub(m))
}

/// `(a − b) mod m` for `a, b < m < 2^31`.
#[inline(always)]
pub(crate) fn sub_mod(a: u32, b: u32, m: u32) -> u32 {
    let d = a.wrapping_sub(b);
    d.min(d.wrapping_add(m))
}

/// `(hi·2^32 + lo) mod m` given `two32 = 2^32 mod m`.
#[inline(always)]
pub(crate) fn reduce_u64_parts(hi: u32, lo: u32, m: u32, mu: u32, two32: u32) -> u32 {
    // hi, lo < 2^32 < 4m: at most three subtractions bring each below m.
    let (mut h, mut l) = (hi, lo);
    while h >= m {
        h -= m;
    }
    while l >= m {
        l -= m;
    }
    add_mod(reduce62(h as u64 * two32 as u64, m, mu), l, m)
}

/// `a^-1 mod m` for `gcd(a, m) = 1` (extended Euclid).
pub(crate) fn inv_mod(a: u32, m: u32) -> u32 {
    let (mut t, mut new_t) = (0i64, 1i64);
    let (mut r, mut new_r) = (m as i64, a as i64);
    while new_r != 0 {
        let q = r / new_r;
        (t, new_t) = (new_t, t - q * new_t);
        (r, new_r) = (new_r, r - q * new_r);
    }
    if t < 0 {
        t += m as i64;
    }
    t as u32
}

/// `a^-1 mod 2^64` for odd `a` (Newton: each step doubles the correct low bits).
fn inv_mod_2_64(a: u64) -> u64 {
    let mut x = a; // correct to 3 bits for odd a
    for _ in 0..5 {
        x = x.wrapping_mul(2u64.wrapping_sub(a.wrapping_mul(x)));
    }
    x
}

/// Deterministic Miller–Rabin for 32-bit integers (bases 2, 7, 61 suffice below 4 759 123 141).
pub(crate) fn is_prime_u32(n: u32) -> bool {
    if n < 2 {
        return false;
    }
    for p in [2u32, 3, 5, 7, 11, 13, 61] {
        if n.is_multiple_of(p) {
            return n == p;
        }
    }
    let n64 = n as u64;
    let (mut d, mut s) = (n64 - 1, 0);
    while d.is_multiple_of(2) {
        d /= 2;
        s += 1;
    }
    let pow = |mut b: u64, mut e: u64| {
        let mut r = 1u64;
        b %= n64;
        while e > 0 {
            if e & 1 == 1 {
                r = r * b % n64;
            }
            b = b * b % n64;
            e >>= 1;
        }
        r
    };
    'bases: for a in [2u64, 7, 61] {
        let mut x = pow(a, d);
        if x == 1 || x == n64 - 1 {
            continue;
        }
        for _ in 1..s {
            x = x * x % n64;
            if x == n64 - 1 {
                continue 'bases;
            }
        }
        return false;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn barrett_matches_u64_remainder() {
        let m = [(1u32 << 31) - 1, (1 << 30) + 3, 2_000_000_011];
        let mut s = 0x1234_5678_9abc_def0u64;
        for &mi in &m {
            let mu = ((1u64 << 62) / mi as u64) as u32;
            for _ in 0..100_000 {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                let (a, b) = ((s as u32) % mi, ((s >> 32) as u32) % mi);
                assert_eq!(
                    mul_mod(a, b, mi, mu) as u64,
                    a as u64 * b as u64 % mi as u64
                );
                let two32 = ((1u64 << 32) % mi as u64) as u32;
                assert_eq!(
                    reduce_u64_parts((s >> 32) as u32, s as u32, mi, mu, two32) as u64,
                    s % mi as u64
                );
            }
            for (a, b) in [(mi - 1, mi - 1), (0, mi - 1), (1, 1)] {
                assert_eq!(
                    mul_mod(a, b, mi, mu) as u64,
                    a as u64 * b as u64 % mi as u64
                );
            }
        }
    }

    #[test]
    fn primes_and_precisions() {
        assert!(is_prime_u32(2_147_483_647));
        assert!(!is_prime_u32(2_147_483_649u64 as u32));
        for p in [24, 53, 106, 1000, 3392] {
            let b = Basis::new(p).unwrap();
            assert!(b.precision() >= p);
            assert!(b.m.iter().all(|&m| m > 1 << 30 && m < 1 << 31));
            // fewest moduli: dropping one would fall short
            let bits: f64 = b.m[..b.len() - 1].iter().map(|&m| (m as f64).log2()).sum();
            assert!(bits < 2.0 * p as f64 + 2.0);
        }
        assert!(Basis::new(23).is_err());
        assert!(Basis::new(MAX_PRECISION + 1).is_err());
    }
}
