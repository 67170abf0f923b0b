//! Trigonometric argument reduction shared by the double-double and quad-double functions:
//! `x = N·π/2 + r`, `|r| ≤ π/4`, for any finite expansion `x`, by the Payne–Hanek method in
//! exact fixed-point integer arithmetic.
//!
//! Method (Payne and Hanek, "Radian reduction for trigonometric functions", SIGNUM Newsletter
//! 18(1), 1983; see also Muller, *Elementary Functions*, 3rd ed., §11.4):
//!
//! 1. Each input word is split into its integer significand `m < 2^53` and exponent `e`
//!    (`w = ±m·2^e`). Its contribution to `x·2/π mod 4` only needs the bits of `2/π` from
//!    weight `2^(e−1)` downwards (higher bits give multiples of 4). That window is read from
//!    [`TWO_OVER_PI`] and multiplied by `m` exactly in `u64` limbs with `u128` products.
//! 2. The contributions are summed modulo 4 in a fixed-point accumulator with
//!    `64·(nf + 2)` fraction bits; the only error is the truncation of each window below
//!    its last limb, less than `2^(−64·nf − 75)` per word.
//! 3. `N = round(x·2/π)`; the signed fraction `f = x·2/π − N ∈ [−1/2, 1/2]` has `lz` leading
//!    zero bits. If `x` is close to a multiple of π/2, `lz` is large and the reduction is
//!    repeated with more fraction limbs `nf` (up to [`MAX_FRAC_LIMBS`]) until `f` is known to
//!    a relative `2^-236`.
//! 4. The top 320 bits of `|f|` times the top 320 bits of π/2 ([`PIO2`]) give `|r|` exactly up
//!    to a relative `2^-318`, and the product is rounded to a 4-word expansion greedily
//!    (each word the nearest `f64` to what is left, computed exactly on the integer), then
//!    checked to be normalised.
//!
//! # Accuracy
//!
//! Before the final rounding to four `f64`s, `r` is known to a relative error below
//! `2^-235`. Four normalised `f64` words cannot hold more than about 212 significant bits in
//! general, so the returned expansion has relative error at most
//! `2^-212·(1 + 2^-20)` ([`REM_PIO2_REL_ERR`] in units of `2^-212`): the greedy rounding
//! contributes `≤ 2^-212·(1 + 2^-53)^4` and everything before it `≤ 2^-235`. This holds
//! whenever `|r| ≥ 2^-860` (so that the fourth word is not subnormal) and the fraction `f` is
//! resolved within [`MAX_FRAC_LIMBS`] limbs, i.e. `|x·2/π − N| ≥ 2^-1690`. For a double-double
//! or quad-double close to `kπ/2`, `|r|` is typically around `2^-(61+53·(words−1))·|x|` or
//! larger (the closest binary64 approach to a multiple of π/2 is about `2^-61` relative), far
//! inside that range. If `f` is not resolved even at the maximum width, `r` is returned as
//! computed (absolute error below `2^-1920`).
//!
//! The module is self-contained (it uses only [`crate::eft`] and `std`) so that the
//! quad-double functions can share it.

use crate::eft::{fast_two_sum, sub_multiple_dd};

/// `trig_reduction.cuh`: the device twin of this module.
pub(crate) static TRIG_REDUCTION_CUH: crate::cuda::Header = crate::cuda::Header {
    name: "trig_reduction.cuh",
    text: include_str!("trig_reduction.cuh"),
};

/// `trig_reduction_tables.cuh`: its tables, generated from this module's (`device_tables`).
pub(crate) static TRIG_REDUCTION_TABLES_CUH: crate::cuda::Header = crate::cuda::Header {
    name: "trig_reduction_tables.cuh",
    text: include_str!("trig_reduction_tables.cuh"),
};

/// Relative error bound of [`rem_pio2`]'s `r`, in units of `2^-212` (see the module docs).
#[allow(dead_code)]
pub(crate) const REM_PIO2_REL_ERR: f64 = 1.000_001;

/// Fraction bits of `2/π`: bit `j` (weight `2^-j`, `j = 1..=3072`) is bit `64 − ((j − 1) mod 64)`
/// of limb `(j − 1)/64`, most significant first. Generated from MPFR at 4000 bits; the unit
/// test `two_over_pi_table_matches_mpfr` recomputes it with `rug` and compares every limb.
pub(crate) const TWO_OVER_PI: [u64; 48] = [
    0xa2f9836e4e441529,
    0xfc2757d1f534ddc0,
    0xdb6295993c439041,
    0xfe5163abdebbc561,
    0xb7246e3a424dd2e0,
    0x06492eea09d1921c,
    0xfe1deb1cb129a73e,
    0xe88235f52ebb4484,
    0xe99c7026b45f7e41,
    0x3991d639835339f4,
    0x9c845f8bbdf9283b,
    0x1ff897ffde05980f,
    0xef2f118b5a0a6d1f,
    0x6d367ecf27cb09b7,
    0x4f463f669e5fea2d,
    0x7527bac7ebe5f17b,
    0x3d0739f78a5292ea,
    0x6bfb5fb11f8d5d08,
    0x56033046fc7b6bab,
    0xf0cfbc209af4361d,
    0xa9e391615ee61b08,
    0x6599855f14a06840,
    0x8dffd8804d732731,
    0x06061556ca73a8c9,
    0x60e27bc08c6b47c4,
    0x19c367cddce8092a,
    0x8359c4768b961ca6,
    0xddaf44d15719053e,
    0xa5ff07053f7e33e8,
    0x32c2de4f98327dbb,
    0xc33d26ef6b1e5ef8,
    0x9f3a1f35caf27f1d,
    0x87f121907c7c246a,
    0xfa6ed5772d30433b,
    0x15c614b59d19c3c2,
    0xc4ad414d2c5d000c,
    0x467d862d71e39ac6,
    0x9b0062337cd2b497,
    0xa7b4d55537f63ed7,
    0x1810a3fc764d2a9d,
    0x64abd770f87c6357,
    0xb07ae715175649c0,
    0xd9d63b3884a7cb23,
    0x24778ad623545ab9,
    0x1f001b0af1dfce19,
    0xff319f6a1e666157,
    0x9947fbacd87f7eb7,
    0x652289e83260bfe6,
];

/// `⌊π/2 · 2^319⌋` as 5 little-endian limbs (top bit is bit 319). Checked against MPFR by the
/// unit test `pio2_table_matches_mpfr`.
pub(crate) const PIO2: [u64; 5] = [
    0x514a08798e3404dd,
    0x020bbea63b139b22,
    0x29024e088a67cc74,
    0xc4c6628b80dc1cd1,
    0xc90fdaa22168c234,
];

/// Fraction limbs used first (`64·3` bits: enough unless `x` is within `2^-28` of `kπ/2`).
pub(crate) const MIN_FRAC_LIMBS: usize = 3;
/// Largest number of fraction limbs tried; the table covers `971 + 64·(29 + 2) + 64` bits.
pub(crate) const MAX_FRAC_LIMBS: usize = 29;
/// Guard limbs kept below the `nf` fraction limbs, so that truncation stays below `2^(−64nf−75)`.
pub(crate) const GUARD: usize = 2;
/// Relative accuracy (in bits) that the fraction `f` must reach before it is used.
pub(crate) const TARGET_BITS: i64 = 236;
/// Accumulator length at the maximum width: fraction limbs, guard limbs, one integer limb.
const ACC_LEN: usize = MAX_FRAC_LIMBS + GUARD + 1;

/// `x = N·π/2 + r` for a finite non-overlapping expansion `x` (1, 2 or 4 words, most
/// significant first): returns `(N mod 4, r)` with `N = round(x·2/π)`, `|r| ≤ π/4`, and `r` a
/// normalised 4-word expansion (`r[i] == fl(r[i] + r[i+1])`) with relative error at most
/// `REM_PIO2_REL_ERR·2^-212` (see the module docs for the exact statement).
///
/// `|x| < fl(π/4)` (judged on the leading word) is returned unchanged as `(0, x)`. A
/// non-finite leading word gives `(0, [NaN, 0, 0, 0])`; an empty slice gives zero. Never panics.
pub(crate) fn rem_pio2(x: &[f64]) -> (i32, [f64; 4]) {
    let Some(&x0) = x.first() else {
        return (0, [0.0; 4]);
    };
    if !x0.is_finite() {
        return (0, [f64::NAN, 0.0, 0.0, 0.0]);
    }
    if x0.abs() < std::f64::consts::FRAC_PI_4 {
        let mut r = [0.0; 4];
        for (ri, &xi) in r.iter_mut().zip(x) {
            *ri = xi;
        }
        return (0, r);
    }
    let words = &x[..x.len().min(8)];
    // Words needing more than 2^3 error slots are not part of the contract; 8 is generous.
    let log2_words = 3;
    let mut nf = MIN_FRAC_LIMBS;
    loop {
        let (q, neg, mag, lz) = fraction(words, nf);
        let enough = lz <= 64 * nf as i64 + 75 - log2_words - TARGET_BITS;
        if enough || nf == MAX_FRAC_LIMBS {
            return (q, times_pio2(&mag[..nf + GUARD], lz, neg));
        }
        // Enough limbs for the observed leading zeros, plus one for safety.
        let need = (lz + TARGET_BITS + log2_words - 75 + 63) / 64 + 1;
        nf = (need.max(nf as i64 + 1) as usize).min(MAX_FRAC_LIMBS);
    }
}

/// π/2 as a 4-word expansion, each word the nearest `f64` to what the words before it leave
/// (the unit test `pio2_words_match_mpfr` recomputes them); the rest is below `2^-217`.
pub(crate) const PIO2_WORDS: [f64; 4] = [
    f64::from_bits(0x3ff921fb54442d18),
    f64::from_bits(0x3c91a62633145c07),
    f64::from_bits(0xb91f1976b7ed8fbc),
    f64::from_bits(0x35b4cf98e804177d),
];

/// Arguments with `|x.hi| <` this (`2^20`) are first tried by [`rem_pio2_dd`]'s Cody–Waite step.
pub(crate) const CODY_WAITE_LIMIT: f64 = 1_048_576.0;

/// The Cody–Waite result is kept when `|r| ≥ 2^-40·|x.hi|` (`2^-40`); closer to a multiple of
/// π/2, its absolute error (below `2^-153.9·|x|`) would exceed `2^-113` of `r`.
pub(crate) const CODY_WAITE_MIN_RATIO: f64 = 9.094_947_017_729_282e-13;

/// `x = N·π/2 + r` for a finite double-double `x = hi + lo` (normalised), with `r` rounded to a
/// double-double: returns `(N mod 4, r.hi, r.lo)`.
///
/// For `fl(π/4) ≤ |hi| < 2^20` it first tries [`cody_waite_dd`] (a few exact products and sums,
/// no tables), which is kept when `|r| ≥ 2^-40·|hi|`; beyond `2^20`, and for the rare arguments
/// closer than that to a multiple of π/2, [`rem_pio2`] (Payne–Hanek) with `r` rounded to its
/// first two words. Either way the relative error of `r` is at most `1.005·2^-106`, and `|r| ≤ π/4 + 2^-31`
/// (the Cody–Waite `N` comes from `hi·2/π` in `f64`, so it can be off by one at a midpoint).
/// `|hi| < fl(π/4)` is returned as it is.
pub(crate) fn rem_pio2_dd(hi: f64, lo: f64) -> (i32, f64, f64) {
    let a = hi.abs();
    if (std::f64::consts::FRAC_PI_4..CODY_WAITE_LIMIT).contains(&a)
        && let Some(reduced) = cody_waite_dd(hi, lo)
    {
        return reduced;
    }
    let (q, r4) = rem_pio2(&[hi, lo]);
    let (rh, rl) = fast_two_sum(r4[0], r4[1]);
    (q, rh, rl)
}

/// Cody–Waite reduction of `hi + lo` (`|hi| < 2^20`) by the 4-word π/2 of [`PIO2_WORDS`] (Cody
/// and Waite, *Software Manual for the Elementary Functions*, 1980; with exact products by FMA,
/// as in Muller, *Elementary Functions*, 3rd ed., §11.2), or `None` when `|r| < 2^-40·|hi|`.
///
/// The step is [`sub_multiple_dd`]'s. With `N = round(hi·2/π)` (`|N| < 2^20`), `U = 2^-53`, and
/// `aₖ + bₖ = N·Pₖ` exact (TwoProd):
/// `d = hi − a₀` is exact (Sterbenz: `hi` and `a₀` are within a factor 2 for `N ≠ 0`), the
/// order-`U|x|` terms `lo − b₀ − a₁ = s + e₁ + e₂` are summed exactly, and the order-`U²|x|`
/// terms `e₁ + e₂ − b₁ − a₂` in `f64` (`low`, error `≤ 3·2^-156·|x|`); `b₂`, `N·P₃` and the
/// rest of π/2 are dropped (`≤ 2^-161·|x|`). Then `d + s = h + e₃` (TwoSum) and
/// `r ≈ h + fl(e₃ + low)`, whose rounding costs `≤ U·(U|h| + 2^-103|x|)`. In all
/// `|r̂ − r| ≤ 2^-106·|h| + 2^-153.9·|x|`, at most `1.005·2^-106·|r|` when `|r| ≥ 2^-40|x|`.
fn cody_waite_dd(hi: f64, lo: f64) -> Option<(i32, f64, f64)> {
    let n = (hi * std::f64::consts::FRAC_2_PI).round();
    let (rh, rl) = sub_multiple_dd(hi, lo, n, [PIO2_WORDS[0], PIO2_WORDS[1], PIO2_WORDS[2]]);
    // (Finite operands: the result is finite.)
    if rh.abs() < hi.abs() * CODY_WAITE_MIN_RATIO {
        return None;
    }
    // N mod 4 in 0..=3 (two's complement: also for negative N).
    Some((((n as i64) & 3) as i32, rh, rl))
}

/// 64 bits of the fraction of 2/π starting at bit `j0` (weight `2^-j0`, the result's MSB).
/// Bits `j < 1` (the integer part, zero) and beyond the table read as 0.
#[inline]
fn two_over_pi_bits(j0: i64) -> u64 {
    let limb = |i: usize| TWO_OVER_PI.get(i).copied().unwrap_or(0);
    if j0 >= 1 {
        let off = (j0 - 1) as usize;
        let (i, s) = (off / 64, off % 64);
        if s == 0 {
            limb(i)
        } else {
            (limb(i) << s) | (limb(i + 1) >> (64 - s))
        }
    } else if j0 + 63 < 1 {
        0
    } else {
        two_over_pi_bits(1) >> (1 - j0)
    }
}

/// Splits a finite non-zero `f64` into `(m, e, negative)` with `|w| = m·2^e`, `m < 2^53`.
#[inline]
fn decompose(w: f64) -> (u64, i64, bool) {
    let bits = w.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1u64 << 52) - 1);
    let neg = bits >> 63 == 1;
    if biased == 0 {
        (frac, -1074, neg)
    } else {
        (frac | (1u64 << 52), biased - 1075, neg)
    }
}

/// `x·2/π mod 4` in fixed point with `nf + GUARD` fraction limbs, rounded to the nearest
/// integer: returns `(N mod 4, f < 0, |f| as little-endian limbs, leading zeros of |f|)`.
fn fraction(words: &[f64], nf: usize) -> (i32, bool, [u64; ACC_LEN], i64) {
    let nfrac = nf + GUARD;
    let len = nfrac + 1;
    let mut acc = [0u64; ACC_LEN];
    for &w in words {
        if w == 0.0 || !w.is_finite() {
            continue;
        }
        let (m, e, neg) = decompose(w);
        // |w·2/π| < 2^(e + 53): nothing reaches the accumulator's last limb.
        if e + 53 < -64 * nfrac as i64 {
            continue;
        }
        // m × (window of 2/π aligned with the accumulator), exact in u128 steps. The carry
        // out of the integer limb is a multiple of 2^64, hence of 4: dropped.
        let mut prod = [0u64; ACC_LEN];
        let mut carry: u128 = 0;
        for (k, p) in prod.iter_mut().enumerate().take(len) {
            let j0 = e + 64 * nfrac as i64 - 64 * k as i64 - 63;
            let t = two_over_pi_bits(j0) as u128 * m as u128 + carry;
            *p = t as u64;
            carry = t >> 64;
        }
        if neg {
            sub_assign(&mut acc[..len], &prod[..len]);
        } else {
            add_assign(&mut acc[..len], &prod[..len]);
        }
    }
    let int = acc[nfrac];
    let round_up = acc[nfrac - 1] >> 63 == 1;
    let mut mag = [0u64; ACC_LEN];
    mag[..nfrac].copy_from_slice(&acc[..nfrac]);
    let q = if round_up {
        // f = frac − 1 < 0: |f| = 2^(64·nfrac) − frac (two's complement of the fraction).
        negate(&mut mag[..nfrac]);
        (int.wrapping_add(1) & 3) as i32
    } else {
        (int & 3) as i32
    };
    let lz = leading_zeros(&mag[..nfrac]);
    (q, round_up, mag, lz)
}

/// `a += b` modulo `2^(64·len)` (little-endian limbs).
fn add_assign(a: &mut [u64], b: &[u64]) {
    let mut carry = false;
    for (x, &y) in a.iter_mut().zip(b) {
        let (s1, c1) = x.overflowing_add(y);
        let (s2, c2) = s1.overflowing_add(carry as u64);
        *x = s2;
        carry = c1 | c2;
    }
}

/// `a −= b` modulo `2^(64·len)` (little-endian limbs).
fn sub_assign(a: &mut [u64], b: &[u64]) {
    let mut borrow = false;
    for (x, &y) in a.iter_mut().zip(b) {
        let (s1, c1) = x.overflowing_sub(y);
        let (s2, c2) = s1.overflowing_sub(borrow as u64);
        *x = s2;
        borrow = c1 | c2;
    }
}

/// `a = −a` modulo `2^(64·len)`.
fn negate(a: &mut [u64]) {
    let mut carry = true;
    for x in a.iter_mut() {
        let (s, c) = (!*x).overflowing_add(carry as u64);
        *x = s;
        carry = c;
    }
}

/// Number of leading zero bits of a little-endian big integer (its full width if zero).
fn leading_zeros(a: &[u64]) -> i64 {
    let mut lz = 0i64;
    for &x in a.iter().rev() {
        if x != 0 {
            return lz + x.leading_zeros() as i64;
        }
        lz += 64;
    }
    lz
}

/// Bit `i` of a little-endian big integer (0 outside it).
#[inline]
fn bit(a: &[u64], i: i64) -> u64 {
    if i < 0 || i >= 64 * a.len() as i64 {
        0
    } else {
        (a[(i / 64) as usize] >> (i % 64)) & 1
    }
}

/// The 64 bits `top, top−1, …, top−63` of a little-endian big integer (`top` is the MSB of
/// the result); bits outside the integer read as 0.
fn bits_below(a: &[u64], top: i64) -> u64 {
    let lo = top - 63;
    let get = |i: i64| -> u64 {
        if i < 0 || i >= a.len() as i64 {
            0
        } else {
            a[i as usize]
        }
    };
    let (i, s) = (lo.div_euclid(64), lo.rem_euclid(64));
    if s == 0 {
        get(i)
    } else {
        (get(i) >> s) | (get(i + 1) << (64 - s))
    }
}

/// `r = ±|f|·π/2` where `|f| = mag·2^(−64·len)` has `lz` leading zeros, as a normalised
/// 4-word expansion.
fn times_pio2(mag: &[u64], lz: i64, neg: bool) -> [f64; 4] {
    let width = 64 * mag.len() as i64;
    if lz >= width {
        return [0.0; 4];
    }
    let top = width - 1 - lz;
    // The 320 bits of |f| from its leading one: |f| ≈ m5·2^(top − 319 − width).
    let mut m5 = [0u64; 5];
    for (k, limb) in m5.iter_mut().enumerate() {
        *limb = bits_below(mag, top - 64 * (4 - k as i64));
    }
    let mut prod = [0u64; 10];
    for (i, &a) in m5.iter().enumerate() {
        let mut carry: u128 = 0;
        for (j, &b) in PIO2.iter().enumerate() {
            let t = a as u128 * b as u128 + prod[i + j] as u128 + carry;
            prod[i + j] = t as u64;
            carry = t >> 64;
        }
        prod[i + 5] = carry as u64;
    }
    // |r| ≈ prod·2^(top − 319 − width − 319).
    to_expansion(&mut prod, top - 638 - width, neg)
}

/// Rounds `±p·2^scale` (p a little-endian big integer, destroyed) to a normalised 4-word
/// expansion by greedy round-to-nearest on the integer, which is exact at every step.
fn to_expansion(p: &mut [u64], scale: i64, neg: bool) -> [f64; 4] {
    let mut out = [0.0f64; 4];
    let mut neg = neg;
    for w in out.iter_mut() {
        let lz = leading_zeros(p);
        let width = 64 * p.len() as i64;
        if lz >= width {
            break;
        }
        let tb = width - 1 - lz;
        let sh = (tb - 52).max(0);
        let mut mant = bits_below(p, tb) >> (63 - (tb - sh));
        let round = bit(p, sh - 1) == 1;
        let sticky = (0..sh - 1).any(|i| bit(p, i) == 1);
        // Keep only the bits below the chunk: p = p mod 2^sh.
        for (k, limb) in p.iter_mut().enumerate() {
            let lo = 64 * k as i64;
            if lo >= sh {
                *limb = 0;
            } else if lo + 64 > sh {
                *limb &= (1u64 << (sh - lo)) - 1;
            }
        }
        let value_sign = neg;
        if round && (sticky || mant & 1 == 1) {
            // Rounded up: what is left is 2^sh − p, of the opposite sign.
            mant += 1;
            negate(p);
            add_pow2(p, sh);
            neg = !neg;
        }
        let v = ldexp_int(mant, sh + scale);
        *w = if value_sign { -v } else { v };
    }
    renormalise(out)
}

/// `a += 2^s` modulo `2^(64·len)` (`s ≥ 0`).
fn add_pow2(a: &mut [u64], s: i64) {
    let mut i = (s / 64) as usize;
    let mut add = 1u64 << (s % 64);
    while i < a.len() && add != 0 {
        let (v, c) = a[i].overflowing_add(add);
        a[i] = v;
        add = c as u64;
        i += 1;
    }
}

/// `m·2^k` for an integer `m < 2^54`, rounded once (subnormal results included).
fn ldexp_int(m: u64, k: i64) -> f64 {
    let x = m as f64; // exact: m < 2^54
    let pow2 = |e: i64| f64::from_bits(((e + 1023) as u64) << 52);
    if k > 1023 {
        f64::INFINITY // unreachable for |r| ≤ π/4
    } else if k >= -1022 {
        x * pow2(k)
    } else if k >= -2044 {
        // x·2^(k+1022) ≥ 2^-1022 is exact and normal; the second product rounds once.
        x * pow2(k + 1022) * pow2(-1022)
    } else {
        0.0
    }
}

/// Makes sure every word is `fl(word + next)`: greedy rounding already gives this except in
/// rare double-tie cases, which a FastTwoSum sweep (exact) repairs.
fn renormalise(mut w: [f64; 4]) -> [f64; 4] {
    for _ in 0..4 {
        let mut changed = false;
        for i in 0..3 {
            let (s, e) = fast_two_sum(w[i], w[i + 1]);
            if s != w[i] || e != w[i + 1] {
                changed = true;
            }
            w[i] = s;
            w[i + 1] = e;
        }
        if !changed {
            break;
        }
    }
    w
}

#[cfg(test)]
mod tests {
    //! Checked against MPFR (`rug`, a dev-dependency): the tables bit for bit, and `rem_pio2`
    //! on random, near-multiple and huge arguments in 1-, 2- and 4-word form.
    use super::*;
    use rug::float::Constant;
    use rug::{Float, Integer};

    const PREC: u32 = 3600;

    fn exact(words: &[f64]) -> Float {
        let mut s = Float::with_val(PREC, 0);
        for &w in words {
            s += w;
        }
        s
    }

    /// Greedy round-to-nearest expansion of `v` in `n` words.
    fn expansion(v: &Float, n: usize) -> Vec<f64> {
        let mut rest = v.clone();
        let mut out = Vec::new();
        for _ in 0..n {
            let w = rest.to_f64();
            out.push(w);
            rest -= w;
        }
        out
    }

    fn pio2() -> Float {
        Float::with_val(PREC, Constant::Pi) / 2u32
    }

    /// Small deterministic generator (xorshift64*), so the unit tests need no extra crates.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn unit(&mut self) -> f64 {
            (self.next() >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// Checks one argument; returns the error in units of 2^-212.
    fn check(x: &[f64]) -> f64 {
        let (q, r) = rem_pio2(x);
        for i in 0..3 {
            assert_eq!(r[i], r[i] + r[i + 1], "not normalised: {r:?} for {x:?}");
        }
        let xv = exact(x);
        let p = pio2();
        let n = Float::with_val(PREC, &xv / &p).round();
        let want = Float::with_val(PREC, &xv - Float::with_val(PREC, &n * &p));
        let n_int: Integer = n.to_integer().unwrap();
        let want_q = n_int.mod_u(4) as i32;
        if x[0].abs() < std::f64::consts::FRAC_PI_4 {
            assert_eq!(q, 0);
            assert_eq!(&r[..x.len()], x);
            return 0.0;
        }
        assert_eq!(q, want_q, "quadrant of {x:?}");
        let got = exact(&r);
        let err = Float::with_val(PREC, &got - &want).abs() / want.abs();
        let units = err.to_f64() * 2f64.powi(212);
        assert!(
            units <= REM_PIO2_REL_ERR,
            "rem_pio2({x:?}): error {units} units of 2^-212, r = {r:?}"
        );
        units
    }

    #[test]
    fn two_over_pi_table_matches_mpfr() {
        let t = Float::with_val(PREC, 2u32) / Float::with_val(PREC, Constant::Pi);
        let scaled: Integer = (t << 3072u32).floor().to_integer().unwrap();
        for (i, &limb) in TWO_OVER_PI.iter().enumerate() {
            let shift = 64 * (47 - i) as u32;
            let want = Integer::from(&scaled >> shift)
                .keep_bits(64)
                .to_u64()
                .unwrap();
            assert_eq!(limb, want, "limb {i}");
        }
    }

    #[test]
    fn pio2_table_matches_mpfr() {
        let scaled: Integer = (pio2() << 319u32).floor().to_integer().unwrap();
        for (i, &limb) in PIO2.iter().enumerate() {
            let want = Integer::from(&scaled >> (64 * i as u32))
                .keep_bits(64)
                .to_u64()
                .unwrap();
            assert_eq!(limb, want, "limb {i}");
        }
        assert_eq!(Integer::from(&scaled >> 320u32), 0);
    }

    #[test]
    fn pio2_words_match_mpfr() {
        assert_eq!(PIO2_WORDS.to_vec(), expansion(&pio2(), 4));
        let rest = Float::with_val(PREC, &pio2() - exact(&PIO2_WORDS));
        assert!(rest.abs() < Float::with_val(PREC, 2f64.powi(-217)));
    }

    /// `rem_pio2_dd` against MPFR: relative error of `r` within `1.005·2^-106`, the quadrant
    /// that of its `N` (exact `round` except where Cody–Waite's `N` is off by one at a
    /// midpoint, where `|r| ≤ π/4 + 2^-31` instead). Returns the error in units of `2^-106`.
    fn check_dd(hi: f64, lo: f64) -> f64 {
        let (q, rh, rl) = rem_pio2_dd(hi, lo);
        let (xv, p) = (exact(&[hi, lo]), pio2());
        if hi.abs() < std::f64::consts::FRAC_PI_4 {
            assert_eq!((q, rh, rl), (0, hi, lo));
            return 0.0;
        }
        assert_eq!(rh, rh + rl, "r not normalised for {hi:e} + {lo:e}");
        // N from the result itself: (x − r)/(π/2) must be an integer with N mod 4 = q.
        let got = exact(&[rh, rl]);
        let n = Float::with_val(PREC, Float::with_val(PREC, &xv - &got) / &p).round();
        let want = Float::with_val(PREC, &xv - Float::with_val(PREC, &n * &p));
        let n_int: Integer = n.to_integer().unwrap();
        assert_eq!(q, n_int.mod_u(4) as i32, "quadrant of {hi:e} + {lo:e}");
        assert!(
            want.clone().abs()
                <= Float::with_val(PREC, std::f64::consts::FRAC_PI_4 + 2f64.powi(-31)),
            "|r| too large for {hi:e} + {lo:e}"
        );
        let err = Float::with_val(PREC, &got - &want).abs() / want.abs();
        let units = err.to_f64() * 2f64.powi(106);
        assert!(
            units <= 1.005,
            "rem_pio2_dd({hi:e} + {lo:e}): error {units} units of 2^-106"
        );
        units
    }

    #[test]
    fn double_double_reduction_both_paths() {
        let mut rng = Rng(0x51_7cc1_b727_220a);
        let p = pio2();
        let mut worst = 0.0f64;
        let (mut fast, mut slow) = (0, 0);
        for i in 0..20000 {
            let (hi, lo) = if i % 2 == 0 {
                // Random magnitudes from 2^-1 to 2^24 (both sides of the 2^20 limit).
                let e = -1.0 + rng.unit() * 25.0;
                let sign = if rng.next() & 1 == 0 { 1.0 } else { -1.0 };
                let hi = sign * (1.0 + rng.unit()) * 2f64.powf(e.floor());
                let ulp = f64::from_bits(hi.abs().to_bits() + 1) - hi.abs();
                (hi, (rng.unit() - 0.5) * ulp * 0.999)
            } else {
                // Close to k·π/2 for k up to 2^21: the double-double nearest, nudged by a few
                // units of its low word, so that |r| goes down to about 2^-106·|x|.
                let k = (rng.next() >> (43 + rng.next() % 20)) + 1;
                let v = Float::with_val(PREC, &p * k);
                let w = expansion(&v, 2);
                let nudge = (rng.next() % 9) as f64 - 4.0;
                let ulp_lo = f64::from_bits(w[1].abs().to_bits() + 1) - w[1].abs();
                let lo = w[1] + nudge * ulp_lo * (1u64 << (rng.next() % 40)) as f64;
                let (hi, lo) = crate::eft::fast_two_sum(w[0], lo);
                if rng.next() & 1 == 0 {
                    (hi, lo)
                } else {
                    (-hi, -lo)
                }
            };
            if (std::f64::consts::FRAC_PI_4..CODY_WAITE_LIMIT).contains(&hi.abs()) {
                if cody_waite_dd(hi, lo).is_some() {
                    fast += 1
                } else {
                    slow += 1
                }
            }
            worst = worst.max(check_dd(hi, lo));
        }
        // Both branches below the limit were exercised.
        assert!(fast > 1000 && slow > 100, "fast {fast}, slow {slow}");
        assert!(worst > 0.25, "worst {worst}");
        eprintln!("fast {fast}, slow {slow}, worst {worst} units of 2^-106");
    }

    #[test]
    fn random_magnitudes_one_two_four_words() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut worst = 0.0f64;
        for i in 0..3000 {
            let e = -10.0 + rng.unit() * 1033.0;
            let sign = if rng.next() & 1 == 0 { 1.0 } else { -1.0 };
            let hi = sign * (1.0 + rng.unit()) * 2f64.powf(e.floor()).min(f64::MAX / 2.0);
            let hi = if hi.is_finite() { hi } else { f64::MAX };
            // Random lower words below half an ulp of the previous one.
            let mut words = vec![hi];
            for _ in 0..[0, 1, 3][i % 3] {
                let prev = *words.last().unwrap();
                let ulp = f64::from_bits(prev.abs().to_bits() + 1) - prev.abs();
                let w = (rng.unit() - 0.5) * ulp * 0.999;
                words.push(w);
            }
            worst = worst.max(check(&words));
        }
        assert!(worst > 0.0);
    }

    #[test]
    fn near_multiples_of_pio2() {
        let p = pio2();
        let mut rng = Rng(42);
        let mut ks: Vec<Integer> = (1..200u64).map(Integer::from).collect();
        for b in [20u32, 50, 53, 60, 100, 300, 600, 1000] {
            for _ in 0..20 {
                let k = Integer::from(rng.next() >> 1) << (b.saturating_sub(63));
                ks.push(k + 1);
            }
        }
        let (mut worst, mut tiniest) = (0.0f64, 0i32);
        for k in ks {
            let v = Float::with_val(PREC, &p * &k);
            if v.to_f64().is_infinite() {
                continue;
            }
            for n in [1usize, 2, 4] {
                let x = expansion(&v, n);
                worst = worst.max(check(&x));
                let r = rem_pio2(&x).1[0];
                tiniest = tiniest.min(r.abs().log2() as i32 - x[0].abs().log2() as i32);
                // Nudge the last word by one ulp either way.
                let mut y = x.clone();
                let last = y[n - 1];
                y[n - 1] = f64::from_bits(last.to_bits() + 1);
                worst = worst.max(check(&y));
            }
        }
        println!("near multiples: worst {worst} units of 2^-212; smallest |r|/|x| 2^{tiniest}");
        assert!(tiniest < -200, "the adaptive widening was not exercised");
    }

    #[test]
    fn huge_and_special_arguments() {
        for &x in &[
            f64::MAX,
            -f64::MAX,
            1e22,
            1e300,
            2f64.powi(1023),
            std::f64::consts::FRAC_PI_4,
        ] {
            check(&[x]);
            check(&[x, 0.0]);
        }
        // Tiny trailing components, subnormal ones included.
        check(&[1e300, 1e-300]);
        check(&[3.0, 5e-324]);
        check(&[f64::MAX, 9.9e291, 1e275, -1e258]);
        check(&[std::f64::consts::FRAC_PI_4, 3.061_616_997_868_383e-17]);
        assert_eq!(rem_pio2(&[]), (0, [0.0; 4]));
        assert!(rem_pio2(&[f64::NAN]).1[0].is_nan());
        assert!(rem_pio2(&[f64::INFINITY, 0.0]).1[0].is_nan());
        assert_eq!(rem_pio2(&[-0.0]).1[0].to_bits(), (-0.0f64).to_bits());
    }
}

/// The device tables of `trig_reduction.cuh` (and the `f64` constants the function kernels
/// share), rendered from this module's Rust tables.
#[cfg(all(test, feature = "cuda"))]
mod device_tables {
    use super::{
        CODY_WAITE_LIMIT, CODY_WAITE_MIN_RATIO, GUARD, MAX_FRAC_LIMBS, MIN_FRAC_LIMBS, PIO2,
        PIO2_WORDS, TARGET_BITS, TWO_OVER_PI,
    };
    use crate::cuda::tables::{check_generated, f64_macro, header_start, u64_table};
    use std::fmt::Write;

    const GENERATOR: &str = "trig_reduction::device_tables";

    fn render() -> String {
        let mut o = header_start(GENERATOR, "MPBLAS_TRIG_REDUCTION_TABLES_CUH");
        let _ = writeln!(
            o,
            "// ---- scalar constants (std::f64::consts) of the function kernels ----"
        );
        f64_macro(&mut o, "MPF_LN_2", std::f64::consts::LN_2);
        f64_macro(&mut o, "MPF_FRAC_1_SQRT_2", std::f64::consts::FRAC_1_SQRT_2);
        f64_macro(&mut o, "MPF_SQRT_2", std::f64::consts::SQRT_2);
        f64_macro(&mut o, "MPF_FRAC_PI_4", std::f64::consts::FRAC_PI_4);
        f64_macro(&mut o, "MPF_FRAC_2_PI", std::f64::consts::FRAC_2_PI);
        o.push('\n');
        let _ = writeln!(
            o,
            "// ---- trig_reduction.rs (Cody-Waite, double-double) ----"
        );
        f64_macro(&mut o, "MPR_CODY_WAITE_LIMIT", CODY_WAITE_LIMIT);
        f64_macro(&mut o, "MPR_CODY_WAITE_MIN_RATIO", CODY_WAITE_MIN_RATIO);
        for (k, w) in PIO2_WORDS.iter().enumerate() {
            f64_macro(&mut o, &format!("MPR_PIO2_W{k}"), *w);
        }
        o.push('\n');
        let _ = writeln!(o, "// ---- trig_reduction.rs (Payne-Hanek) ----");
        let _ = writeln!(o, "#define MPR_MIN_FRAC_LIMBS {MIN_FRAC_LIMBS}");
        let _ = writeln!(o, "#define MPR_MAX_FRAC_LIMBS {MAX_FRAC_LIMBS}");
        let _ = writeln!(o, "#define MPR_GUARD {GUARD}");
        let _ = writeln!(o, "#define MPR_TARGET_BITS {TARGET_BITS}");
        let _ = writeln!(o, "#define MPR_TWO_OVER_PI_LEN {}\n", TWO_OVER_PI.len());
        u64_table(
            &mut o,
            "TWO_OVER_PI: fraction bits of 2/pi, most significant limb first.",
            "MPR_TWO_OVER_PI",
            &TWO_OVER_PI,
        );
        u64_table(
            &mut o,
            "PIO2: floor(pi/2 * 2^319), little-endian limbs.",
            "MPR_PIO2",
            &PIO2,
        );
        o.push_str("#endif\n");
        o
    }

    #[test]
    fn header_is_up_to_date() {
        check_generated(
            "trig_reduction_tables.cuh",
            include_str!("trig_reduction_tables.cuh"),
            &render(),
            GENERATOR,
        );
    }
}
