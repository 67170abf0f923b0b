//! The terms of an exact accumulation ([`Accumulator`], `rns/accumulate.rs`) on the CPU: the
//! products `t = x·y` of two `p`-bit significands (the fused dot's `x_j·y_j`, the fused GEMV's
//! `a_ij·d_j`), summed per shift bucket with their base extension *deferred*.
//!
//! # Why deferred
//!
//! A product below `M/4` extends to an extra modulus `m_l` as
//! `|X|_(m_l) = |Σᵢ vᵢ·|Mᵢ|_(m_l) − k·|M|_(m_l)|_(m_l)` with `vᵢ = |xᵢ yᵢ wᵢ|_(mᵢ)` and its rank `k`
//! (module docs of `accumulate.rs`), and `X = Σᵢ vᵢ·Mᵢ − k·M` holds over the integers. So a
//! bucket's sum `S = Σ_t ±X_t` is `Σᵢ Vᵢ·Mᵢ − K·M` with `Vᵢ = Σ_t ±v_(t,i)` and `K = Σ_t ±k_t`:
//! a bucket keeps the base residues' sums, the `Vᵢ` and `K` (the *deferred layout*,
//! [`Accumulator::deferred_words`]), and the extra residues are formed once per bucket
//! ([`Accumulator::deferred_to_wide`]) instead of once per term. A term then costs its base
//! moduli only: two modular products, the rank's fixed-point sum and three additions per
//! modulus, which run on eight moduli per AVX-512 register (`vpmuludq` for the 32 × 32 → 64-bit
//! products, `vpminuq` for the Barrett reduction's conditional subtractions) where the CPU has
//! it. On one Zen 4 core at 424 bits, the per-term extension's scalar loops alone took 136 ns a
//! term, and the whole dot about 160 ns a term in cache (MPFR's fused multiply-add: about 90
//! ns); the deferred form's dot takes about 45 ns.
//!
//! The residues are the same integers modulo each modulus as the per-term extension's
//! ([`Accumulator::product_wide`], kept for sums whose shifts span too many buckets), so the
//! rounded sums are the same bits; the unit tests check both layouts against each other and
//! the vector path against the scalar one word for word.

use super::accumulate::Accumulator;
use super::basis::{Basis, add_mod, mul_mod, reduce62, sub_mod};
use super::float::MpFloat;

/// Scratch of one thread's terms (reused from term to term).
#[derive(Debug, Default)]
pub(crate) struct TermScratch {
    prod: Vec<u32>,
    v: Vec<u32>,
}

impl Accumulator {
    /// Words of one bucket in the deferred layout: the `n` base residues' sums and the `n`
    /// sums `Vᵢ` (two's complement), each padded to a multiple of eight words, then `K` (two's
    /// complement).
    pub(crate) fn deferred_words(&self) -> usize {
        2 * self.lanes.n8 + 1
    }

    /// Adds `±x·y` (base residues of two `p`-bit significands) to a bucket in the deferred
    /// layout.
    pub(crate) fn add_product_deferred(&self, x: &[u32], y: &[u32], neg: bool, out: &mut [u64]) {
        #[cfg(target_arch = "x86_64")]
        if avx512() {
            // SAFETY: the CPU has AVX-512F, DQ and VL (checked just above).
            return unsafe { self.product_deferred_avx512(x, y, neg, out) };
        }
        self.product_deferred_scalar(x, y, neg, out)
    }

    /// [`add_product_deferred`](Accumulator::add_product_deferred), one modulus at a time.
    fn product_deferred_scalar(&self, x: &[u32], y: &[u32], neg: bool, out: &mut [u64]) {
        let b = &*self.base;
        let (n, n8) = (b.len(), self.lanes.n8);
        let (base, rest) = out[..2 * n8 + 1].split_at_mut(n8);
        let (vs, ks) = rest.split_at_mut(n8);
        let mut frac = 0u64;
        for i in 0..n {
            let (m, mu) = (b.m[i], b.mu[i]);
            let t = mul_mod(x[i], y[i], m, mu);
            let v = mul_mod(t, b.w[i], m, mu);
            frac += (v as u64 * mu as u64) >> 32;
            base[i] += if neg { m - t } else { t } as u64;
            vs[i] = signed_add(vs[i], v as u64, neg);
        }
        ks[0] = signed_add(ks[0], product_rank(frac, n), neg);
    }

    /// The first `out.len()` residues (at most the widest level's) of a bucket's sum from its
    /// deferred layout.
    pub(crate) fn deferred_to_wide(&self, bucket: &[u64], out: &mut [u32]) {
        let b = &*self.base;
        let n = b.len();
        let wide = self.levels.last().expect("at least one level");
        for (i, r) in out[..n].iter_mut().enumerate() {
            *r = (bucket[i] % b.m[i] as u64) as u32;
        }
        let n8 = self.lanes.n8;
        let (vs, k) = (&bucket[n8..n8 + n], bucket[2 * n8]);
        for (l, r) in out[n..].iter_mut().enumerate() {
            let g = n + l;
            let (m, mu) = (wide.m[g], wide.mu[g]);
            let row = &self.ext.mi[l * n..(l + 1) * n];
            // Σ |Vᵢ|_m·|Mᵢ|_m as 32-bit halves of the products (each below 2^62)
            let (mut lo, mut hi) = (0u64, 0u64);
            for (&v, &c) in vs.iter().zip(row) {
                let p = signed_mod(v, m, mu) as u64 * c as u64;
                lo += p & 0xffff_ffff;
                hi += p >> 32;
            }
            let s = add_mod(
                mul_mod(reduce62(hi, m, mu), wide.two32[g], m, mu),
                reduce62(lo, m, mu),
                m,
            );
            *r = sub_mod(s, mul_mod(signed_mod(k, m, mu), self.ext.m[l], m, mu), m);
        }
    }

    /// The residues of `x·y` in the first `out.len()` moduli of the widest level (the product
    /// extended on its own: for sums that scale every term).
    pub(crate) fn product_wide(&self, x: &[u32], y: &[u32], out: &mut [u32], s: &mut TermScratch) {
        let b = &*self.base;
        s.prod.clear();
        s.prod
            .extend((0..b.len()).map(|i| mul_mod(x[i], y[i], b.m[i], b.mu[i])));
        self.extend_product(&s.prod, out, &mut s.v);
    }

    /// [`add_product_deferred`](Accumulator::add_product_deferred) on eight moduli per register.
    ///
    /// # Safety
    /// The CPU must have AVX-512F, DQ and VL.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl")]
    unsafe fn product_deferred_avx512(&self, x: &[u32], y: &[u32], neg: bool, out: &mut [u64]) {
        use std::arch::x86_64::*;
        let (n, lanes) = (self.base.len(), &self.lanes);
        let n8 = lanes.n8;
        assert!(x.len() >= n && y.len() >= n && out.len() > 2 * n8);
        /// `reduce62` on eight lanes: the same operations, the same result in `[0, m)`.
        #[inline]
        #[target_feature(enable = "avx512f,avx512dq,avx512vl")]
        fn reduce8(t: __m512i, m: __m512i, mu: __m512i) -> __m512i {
            let q = _mm512_srli_epi64::<32>(_mm512_mul_epu32(_mm512_srli_epi64::<30>(t), mu));
            let r = _mm512_sub_epi64(t, _mm512_mul_epu32(q, m));
            let r = _mm512_min_epu64(r, _mm512_sub_epi64(r, m));
            _mm512_min_epu64(r, _mm512_sub_epi64(r, m))
        }
        let mut frac = _mm512_setzero_si512();
        for c in (0..n8).step_by(8) {
            let mask: __mmask8 = if c + 8 <= n {
                0xff
            } else {
                (1u8 << (n - c)) - 1
            };
            // SAFETY: the lanes of `mask` are below n, inside x and y (asserted above); the
            // lane tables hold n8 words, the bucket 2·n8 + 1. A padding lane reads m = μ = w
            // = x = y = 0 and adds 0 to its (zero) words.
            unsafe {
                let m = _mm512_loadu_epi64(lanes.m.as_ptr().add(c).cast());
                let mu = _mm512_loadu_epi64(lanes.mu.as_ptr().add(c).cast());
                let w = _mm512_loadu_epi64(lanes.w.as_ptr().add(c).cast());
                let xa =
                    _mm512_cvtepu32_epi64(_mm256_maskz_loadu_epi32(mask, x.as_ptr().add(c).cast()));
                let ya =
                    _mm512_cvtepu32_epi64(_mm256_maskz_loadu_epi32(mask, y.as_ptr().add(c).cast()));
                let t = reduce8(_mm512_mul_epu32(xa, ya), m, mu);
                let v = reduce8(_mm512_mul_epu32(t, w), m, mu);
                frac = _mm512_add_epi64(frac, _mm512_srli_epi64::<32>(_mm512_mul_epu32(v, mu)));
                let pb = out.as_mut_ptr().add(c).cast::<i64>();
                let pv = out.as_mut_ptr().add(n8 + c).cast::<i64>();
                let (ob, ov) = (_mm512_loadu_epi64(pb), _mm512_loadu_epi64(pv));
                let (nb, nv) = if neg {
                    (
                        _mm512_add_epi64(ob, _mm512_sub_epi64(m, t)),
                        _mm512_sub_epi64(ov, v),
                    )
                } else {
                    (_mm512_add_epi64(ob, t), _mm512_add_epi64(ov, v))
                };
                _mm512_storeu_epi64(pb, nb);
                _mm512_storeu_epi64(pv, nv);
            }
        }
        let frac = _mm512_reduce_add_epi64(frac) as u64;
        out[2 * n8] = signed_add(out[2 * n8], product_rank(frac, n), neg);
    }
}

/// Asks the cache for the residues of `x` (a hint: no effect on any value). A slice of
/// [`MpFloat`]s keeps each one's residues in its own heap buffer, whose addresses the hardware
/// prefetcher cannot guess; the fused loops ask for the term a few steps ahead.
#[inline(always)]
pub(crate) fn prefetch_residues(x: &MpFloat) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let r = x.residues();
        let p = r.as_ptr().cast::<i8>();
        for off in (0..4 * r.len()).step_by(64) {
            // SAFETY: the address is inside the buffer, and a prefetch never faults.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.add(off)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// The rank `k` of a product below `M/4` from `Σ ⌊vᵢ·μᵢ/2^32⌋` (`Accumulator::extend_product`).
#[inline(always)]
fn product_rank(frac: u64, n: usize) -> u64 {
    (frac + 3 * n as u64) >> 30
}

/// `c0 = M·2^(−2·k_norm)` of `base`, rounded up (in [2, 8): ⌊log2 M⌋ is 2p + 2 or 2p + 3). The
/// GPU sums (`fused_unit_rank`) approximate a product's `P/M` as `ua·dd·c0`, with `ua`, `dd` its
/// factors' `X·2^k_norm/M` from their evaluations' upper bounds; the launcher ships this value
/// and the CPU twin test checks the approximation with it.
pub(crate) fn unit_rank_c0(base: &Basis) -> f64 {
    let m_up = base.m_ext[1];
    m_up.f * 2f64.powi((m_up.e - 2 * base.k_norm as i64) as i32)
}

/// `s ± v` in two's complement.
#[inline(always)]
fn signed_add(s: u64, v: u64, neg: bool) -> u64 {
    if neg {
        s.wrapping_sub(v)
    } else {
        s.wrapping_add(v)
    }
}

/// `v mod m` in `[0, m)` for `v` a two's complement integer of magnitude below `2^62` (the
/// sums `Vᵢ < 2^31·2^28` and `K`).
#[inline(always)]
fn signed_mod(v: u64, m: u32, mu: u32) -> u32 {
    let v = v as i64;
    let r = reduce62(v.unsigned_abs(), m, mu);
    if v < 0 && r != 0 { m - r } else { r }
}

/// True when the CPU has AVX-512F, DQ and VL (a cached CPUID query).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn avx512() -> bool {
    std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512dq")
        && std::is_x86_feature_detected!("avx512vl")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rns::Basis;

    /// Random base residues with the extremes 0 and m − 1 mixed in.
    fn residues(b: &Basis, rng: &mut mpblas_testdata::SplitMix64) -> Vec<u32> {
        b.m.iter()
            .map(|&m| match rng.next_u64() % 8 {
                0 => 0,
                1 => m - 1,
                _ => (rng.next_u64() % m as u64) as u32,
            })
            .collect()
    }

    /// The GPU sums' rank of a unit (`blas_fused_rns_gpu.cu`, `fused_unit_rank`): a unit's
    /// `K = Σ sp_t·k_t` is `F − X/M` rounded to nearest, with `F = Σ Vᵢ/mᵢ` from the unit's
    /// `Vᵢ = Σ sp_t·v_(t,i)` (quotients and remainders, by the GPU's approximate reciprocal) and
    /// `X/M` approximated by the terms' `sp·ua·dd` in double (`ua`, `dd`: the factors'
    /// `X·2^k_norm/M` from their evaluations' upper bounds, `dd` times `c0 = M·2^(−2·k_norm)`),
    /// here summed one after the other. Checked against the exact ranks (`product_rank`) on the
    /// worst units the GPU makes: 2^11 terms (`FUSED_BUCKET_TERMS`) at the bucket's top scale
    /// 2^19 with all-ones significands and one sign, and on random ones (scales 1 to 2^19, both
    /// signs, random significands).
    #[test]
    fn a_units_rank_follows_from_its_sums_and_the_evaluations() {
        let mut rng = mpblas_testdata::SplitMix64::new(77);
        for bits in [53u32, 106, 212, 424, 848, 1696] {
            let base = std::sync::Arc::new(Basis::new(bits).unwrap());
            let (n, p, kn) = (base.len(), base.precision, base.k_norm as i64);
            let c0 = unit_rank_c0(&base);
            let scaled = |x: &MpFloat| x.eval[1].f * 2f64.powi((x.eval[1].e + kn) as i32);
            let limbs = (p as usize).div_ceil(64);
            let significand = |rng: &mut mpblas_testdata::SplitMix64, ones: bool| {
                let mut l: Vec<u64> = (0..limbs)
                    .map(|_| if ones { u64::MAX } else { rng.next_u64() })
                    .collect();
                let top = p as usize - 64 * (limbs - 1);
                l[limbs - 1] &= u64::MAX >> (64 - top);
                l[limbs - 1] |= 1 << (top - 1);
                MpFloat::from_limbs(&base, false, &l, 0)
            };
            for case in 0..4 {
                let worst = case < 2;
                let terms = if worst {
                    2048
                } else {
                    1 + (rng.next_u64() % 2048) as usize
                };
                let (mut vs, mut k, mut xs) = (vec![0i64; n], 0i64, 0f64);
                for _ in 0..terms {
                    let (a, d) = (significand(&mut rng, worst), significand(&mut rng, worst));
                    let s = if worst { 19 } else { rng.next_u64() % 20 };
                    let neg = if worst {
                        case == 1
                    } else {
                        rng.next_u64().is_multiple_of(2)
                    };
                    let sp = if neg { -(1i64 << s) } else { 1i64 << s };
                    let mut frac = 0u64;
                    for i in 0..n {
                        let (m, mu) = (base.m[i], base.mu[i]);
                        let v = mul_mod(mul_mod(a.res[i], d.res[i], m, mu), base.w[i], m, mu);
                        frac += (v as u64 * mu as u64) >> 32;
                        vs[i] += sp * v as i64;
                    }
                    k += sp * product_rank(frac, n) as i64;
                    xs += scaled(&a) * (scaled(&d) * c0) * sp as f64;
                }
                let (mut fi, mut ff) = (0i64, 0f64);
                for (i, &v) in vs.iter().enumerate() {
                    assert!(v.unsigned_abs() < 1 << 61, "{bits} bits: V_i out of range");
                    let m = base.m[i] as i64;
                    // the GPU's quotient and fraction (fused_unit_rank): 1/m from the float
                    // reciprocal (rcp.approx: here one float ulp off each way, and 2^11 ulps,
                    // 2^-12, to show the margin) and two Newton steps
                    let md = m as f64;
                    let (mut q0, mut f0) = (0i64, 0f64);
                    for ulp in [-2048i32, -1, 1, 2048] {
                        let x0 =
                            f32::from_bits(((1.0 / m as f32).to_bits() as i32 + ulp) as u32) as f64;
                        let x1 = x0.mul_add((-md).mul_add(x0, 1.0), x0);
                        let inv = x1.mul_add((-md).mul_add(x1, 1.0), x1);
                        let q = (v as f64 * inv).floor() as i64;
                        let r = v - q * m;
                        // one off at most: the fix-up moves q by one and r by m
                        let (q, r) = if r < 0 {
                            (q - 1, r + m)
                        } else if r >= m {
                            (q + 1, r - m)
                        } else {
                            (q, r)
                        };
                        assert_eq!((q, r), (v.div_euclid(m), v.rem_euclid(m)), "{bits} bits");
                        (q0, f0) = (q, r as f64 * inv);
                    }
                    fi += q0;
                    ff += f0;
                }
                let approx = ff - xs;
                let got = fi + approx.round_ties_even() as i64;
                assert_eq!(got, k, "{bits} bits, case {case}, {terms} terms");
                // F − X/M is an integer: the approximation's distance to it is within the bound
                // fused_unit_rank states (2^-13; the worst units here miss by 2^-17.5 at most)
                let miss = (approx - approx.round_ties_even()).abs();
                assert!(miss < 2f64.powi(-13), "{bits} bits, case {case}: {miss}");
            }
        }
    }

    /// A bucket of random terms in the deferred layout gives, at every level width, the
    /// residues of the sum of the terms extended one by one; the vector path (where the CPU
    /// has AVX-512) leaves the same words as the scalar one.
    #[test]
    fn deferred_buckets_are_the_sums_of_extended_terms() {
        #[cfg(target_arch = "x86_64")]
        if !avx512() {
            eprintln!("SKIPPED (vector half): this CPU has no AVX-512; the scalar path is checked");
        }
        let mut rng = mpblas_testdata::SplitMix64::new(31);
        for p in [53u32, 106, 212, 424, 848] {
            let base = Basis::new(p).unwrap();
            let n = base.len();
            let acc = Accumulator::new(&base, 1000).unwrap();
            let (kmax, words) = (acc.max_len(), acc.deferred_words());
            let wide = acc.levels.last().unwrap().clone();
            for trial in 0..40 {
                let terms = 1 + trial % 17;
                let mut bucket = vec![0u64; words];
                let mut vector = vec![0u64; words];
                let mut want = vec![0u64; kmax];
                let mut s = TermScratch::default();
                let mut t = vec![0u32; kmax];
                for _ in 0..terms {
                    let (x, y) = (residues(&base, &mut rng), residues(&base, &mut rng));
                    let neg = rng.next_u64().is_multiple_of(3);
                    acc.product_deferred_scalar(&x, &y, neg, &mut bucket);
                    #[cfg(target_arch = "x86_64")]
                    if avx512() {
                        // SAFETY: avx512() checked just above.
                        unsafe { acc.product_deferred_avx512(&x, &y, neg, &mut vector) };
                    }
                    acc.product_wide(&x, &y, &mut t, &mut s);
                    for k in 0..kmax {
                        want[k] += if neg { wide.m[k] - t[k] } else { t[k] } as u64;
                    }
                }
                #[cfg(target_arch = "x86_64")]
                if avx512() {
                    assert_eq!(vector, bucket, "{p} bits, {terms} terms: vector words");
                }
                for kw in n..=kmax {
                    let mut got = vec![0u32; kw];
                    acc.deferred_to_wide(&bucket, &mut got);
                    let want: Vec<u32> = (0..kw)
                        .map(|k| (want[k] % wide.m[k] as u64) as u32)
                        .collect();
                    assert_eq!(got, want, "{p} bits, {terms} terms, {kw} moduli");
                }
            }
        }
    }
}
