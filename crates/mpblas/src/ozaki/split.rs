//! Splitting of Ozaki scheme I: Algorithms 1 and 2 of Nanai and Fujimoto (the seed paper
//! `002`, after Ozaki, Ogita, Oishi, Rump 2012), generalised to `s` slices.
//!
//! The stage functions work on `count` contiguous vectors of length `len`: the rows of `op(A)`
//! and the columns of `op(B)` (see the layout note in [`super`]), so A and B share one code
//! path. For one vector `x` with `μ = max |x|`, with the slice precision of `p` bits
//! (`p = 24` for `f32` slices, `53` for `f64`) and inner dimension `n`,
//!
//! ```text
//! β = ⌈(p + log2 n)/2⌉,   σ = 2^(⌈log2 μ⌉ + β),   x⁽¹⁾ = fl((x + σ) − σ),   x − x⁽¹⁾ exact,
//! ```
//!
//! and the next slice is taken from the remainder `x − x⁽¹⁾` with its own `μ`. The last slice is
//! the remainder itself (rounded to `f32` for `f32` slices, which is where Algorithm 2's
//! `single(A − double(A⁽¹⁾))` loses bits).
//!
//! **One change from the paper, exact in effect:** each vector is scaled by `2^-⌈log2 μ⌉`
//! before the addition and subtraction of `σ` (so `σ = 2^β` in scaled units) and the slice is
//! stored as the scaled values with the exponent `⌈log2 μ⌉` kept per vector ([`Scaled`]).
//! Scaling by a power of two commutes with round-to-nearest, so the slices are the paper's
//! slices exactly, but `f32` slices no longer need the entries of A and B to lie in the `f32`
//! exponent range (the paper's assumption under Algorithm 2).
//!
//! **Why products of slices are exact.** A scaled slice `s` is the rounding of a value in
//! `[−1, 1]` to the grid of `fl(· + 2^β)`, whose spacing is `2^(β−p)` below `2^β` and
//! `2^(β+1−p)` above; so `s = N·2^(β−p)` with an integer `|N| ≤ 2^(p−β)`. A dot product of two
//! slice vectors of length `n` is `2^(2β−2p)` times a sum of `n` integers each at most
//! `2^(2p−2β)`, and every partial sum is an integer of magnitude at most `n·2^(2p−2β) ≤ 2^p`
//! because `2β ≥ p + log2 n`. Integers up to `2^p` are representable in a `p`-bit format, so
//! every partial sum is exact, in any order and with or without FMA: this is the paper's
//! inequality (5), and the unit tests check it, including that one bit more per slice breaks it.
//!
//! **How fast the remainders shrink.** With `y = x·2^-⌈log2 μ⌉` (so `|y| ≤ 1`),
//! `|y − s| ≤ u_p + 2^(β−p)` (the rounding of `y` to `p` bits, then half the grid spacing), so
//! the remainder's maximum is at most `ρ·μ` with `ρ = 2^(β+1−p) + 2u_p` (see
//! [`super::bounds::ozaki1_rho`]); the level-`l` operand is at most `(1+ρ)·ρ^(l−1)·μ`.

use super::SliceGemm;

/// A slice (or remainder) of `count` vectors of length `len`: entry `t` of vector `v` is
/// `values[v·len + t] · 2^exps[v]`. For `f32` slices every value is exactly representable as
/// an `f32`; all values lie in `[−1, 1]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Scaled {
    /// The scaled values, vector after vector.
    pub values: Vec<f64>,
    /// The power of two of each vector (`⌈log2 μ⌉` of the vector it was taken from; 0 for a
    /// zero vector).
    pub exps: Vec<i32>,
}

/// The result of splitting `count` vectors into `s` slices.
#[derive(Clone, Debug, PartialEq)]
pub struct Split {
    /// `s` slices; `slices[s−1]` is the last remainder (rounded to the slice precision).
    /// In exact arithmetic `Σ slices = x`, exactly for `f64` slices.
    pub slices: Vec<Scaled>,
    /// When requested: `remainders[l]` is `x − Σ_{i<l} slices[i]` (so `remainders[0] = x`),
    /// scaled by its own maxima and rounded to the slice precision; `remainders[s−1]` equals
    /// `slices[s−1]`. Empty when not requested.
    pub remainders: Vec<Scaled>,
}

/// Bits of the slice precision: 24 for `f32`, 53 for `f64`.
pub fn precision_bits(prec: SliceGemm) -> u32 {
    match prec {
        SliceGemm::F32 => 24,
        SliceGemm::F64 => 53,
    }
}

/// The paper's `β = ⌈(p + log2 n)/2⌉` for a `p`-bit slice precision and inner dimension `n`,
/// computed exactly in integers as the least `β` with `2^(2β−p) ≥ n`.
pub fn beta(p: u32, n: usize) -> u32 {
    let mut b = p.div_ceil(2);
    // 2^(2b − p) ≥ n, with 2b − p ≥ 0 from the start value; n ≤ 2^64 ends the loop by b = p/2 + 33.
    while ((2 * b - p) as u64) < 64 && (1u128 << (2 * b - p)) < n as u128 {
        b += 1;
    }
    b
}

pub use crate::eft::{ldexp, pow2};

/// `⌈log2 μ⌉` for a finite `μ > 0` (exact, from the bits); 0 for `μ = 0`.
pub fn ceil_log2(mu: f64) -> i32 {
    if mu == 0.0 || !mu.is_finite() {
        return 0;
    }
    let bits = mu.abs().to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    if exp == 0 {
        // Subnormal: μ = frac · 2^-1074.
        let lz = 63 - frac.leading_zeros() as i32; // floor(log2 frac)
        let pow = frac.is_power_of_two();
        return lz - 1074 + i32::from(!pow);
    }
    let e = exp - 1023;
    if frac == 0 { e } else { e + 1 }
}

/// The largest `|x|` of each of `count` vectors of length `len` stored one after another (the
/// per-row maxima of `op(A)` or per-column maxima of `op(B)`). `x` must hold `count·len`
/// finite values.
pub fn vec_max_abs(x: &[f64], len: usize, count: usize) -> Vec<f64> {
    (0..count)
        .map(|v| {
            x[v * len..(v + 1) * len]
                .iter()
                .fold(0.0f64, |m, &t| m.max(t.abs()))
        })
        .collect()
}

/// Takes one slice off `rem` (in place: `rem` becomes the next remainder, exactly) for
/// `β = beta`; returns the slice. Algorithm 1 lines 5, 9, 10 (Algorithm 2 lines 9, 10 for
/// `f32`), on the scaled vector.
pub fn extract_slice(
    rem: &mut [f64],
    len: usize,
    count: usize,
    beta: u32,
    prec: SliceGemm,
) -> Scaled {
    let mu = vec_max_abs(rem, len, count);
    let mut values = vec![0.0; count * len];
    let mut exps = vec![0; count];
    for v in 0..count {
        let e = ceil_log2(mu[v]);
        exps[v] = e;
        if mu[v] == 0.0 {
            continue;
        }
        let x = &mut rem[v * len..(v + 1) * len];
        let out = &mut values[v * len..(v + 1) * len];
        for (xi, oi) in x.iter_mut().zip(out.iter_mut()) {
            let y = ldexp(*xi, -e);
            let s = match prec {
                SliceGemm::F64 => {
                    let sigma = pow2(beta as i32);
                    (y + sigma) - sigma
                }
                SliceGemm::F32 => {
                    let sigma = pow2(beta as i32) as f32;
                    let y32 = y as f32;
                    ((y32 + sigma) - sigma) as f64
                }
            };
            *oi = s;
            // Exact: s·2^e is the rounding of x to a grid above ulp(x) (or 0).
            *xi -= ldexp(s, e);
        }
    }
    Scaled { values, exps }
}

/// `x` scaled by its own per-vector maxima and rounded to the slice precision (exact for `f64`).
pub fn round_scaled(x: &[f64], len: usize, count: usize, prec: SliceGemm) -> Scaled {
    let mu = vec_max_abs(x, len, count);
    let exps: Vec<i32> = mu.iter().map(|&m| ceil_log2(m)).collect();
    let mut values = vec![0.0; count * len];
    for v in 0..count {
        for t in 0..len {
            let y = ldexp(x[v * len + t], -exps[v]);
            values[v * len + t] = match prec {
                SliceGemm::F64 => y,
                SliceGemm::F32 => y as f32 as f64,
            };
        }
    }
    Scaled { values, exps }
}

/// Splits `count` vectors of length `len` (finite values) into `slices ≥ 1` slices with the
/// paper's `β` for inner dimension `len`; with `keep_remainders`, also returns every
/// intermediate remainder (the triangular product shape needs those of B).
pub fn split(
    x: &[f64],
    len: usize,
    count: usize,
    slices: usize,
    prec: SliceGemm,
    keep_remainders: bool,
) -> Split {
    let b = beta(precision_bits(prec), len);
    let mut rem = x[..len * count].to_vec();
    let mut out = Vec::with_capacity(slices);
    let mut rems = Vec::new();
    for _ in 0..slices.saturating_sub(1) {
        if keep_remainders {
            rems.push(round_scaled(&rem, len, count, prec));
        }
        out.push(extract_slice(&mut rem, len, count, b, prec));
    }
    let last = round_scaled(&rem, len, count, prec);
    if keep_remainders {
        rems.push(last.clone());
    }
    out.push(last);
    Split {
        slices: out,
        remainders: rems,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng(s: &mut u64) -> f64 {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        (*s >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    }

    #[test]
    fn beta_matches_formula() {
        assert_eq!(beta(24, 1024), 17); // ⌈(24 + 10)/2⌉
        assert_eq!(beta(24, 1000), 17); // ⌈(24 + 9.97)/2⌉
        assert_eq!(beta(24, 1), 12);
        assert_eq!(beta(24, 2), 13); // ⌈25/2⌉
        assert_eq!(beta(53, 256), 31); // ⌈61/2⌉
        assert_eq!(beta(53, 257), 31); // ⌈(53 + 8.006)/2⌉ = ⌈30.5⌉
        assert_eq!(beta(53, 2048), 32);
        for n in 1..5000usize {
            for p in [24u32, 53] {
                let b = beta(p, n);
                let want = ((p as f64 + (n as f64).log2()) / 2.0).ceil() as u32;
                assert_eq!(b, want, "p={p} n={n}");
            }
        }
    }

    #[test]
    fn ceil_log2_exact() {
        assert_eq!(ceil_log2(1.0), 0);
        assert_eq!(ceil_log2(1.5), 1);
        assert_eq!(ceil_log2(0.5), -1);
        assert_eq!(ceil_log2(0.75), 0);
        assert_eq!(ceil_log2(f64::from_bits(1)), -1074);
        assert_eq!(ceil_log2(f64::from_bits(3)), -1072);
        assert_eq!(ceil_log2(f64::MAX), 1024);
    }

    /// Σ slices = x exactly (f64 slices, summed from the largest: every partial sum is a
    /// truncation of x to a coarser grid, hence representable), and for f32 slices every
    /// value is an f32 and the sum misses only the rounding of the last remainder.
    #[test]
    fn slices_sum_to_input() {
        let mut s = 0x1234_5678u64;
        for &(len, count) in &[(1usize, 3usize), (7, 5), (128, 9), (256, 2)] {
            let x: Vec<f64> = (0..len * count)
                .map(|i| rng(&mut s) * (((i * 37) % 23) as f64 - 11.0).exp2())
                .collect();
            for slices in 2..=8 {
                let sp = split(&x, len, count, slices, SliceGemm::F64, true);
                assert_eq!(sp.slices.len(), slices);
                assert_eq!(sp.remainders.len(), slices);
                for v in 0..count {
                    for t in 0..len {
                        let mut acc = 0.0;
                        for sl in &sp.slices {
                            acc += ldexp(sl.values[v * len + t], sl.exps[v]);
                        }
                        assert_eq!(acc, x[v * len + t]);
                        let r0 = &sp.remainders[0];
                        assert_eq!(ldexp(r0.values[v * len + t], r0.exps[v]), x[v * len + t]);
                    }
                }
                let sp = split(&x, len, count, slices, SliceGemm::F32, false);
                let mu = vec_max_abs(&x, len, count);
                let b = beta(24, len);
                let rho = (b as f64 + 1.0 - 24.0).exp2() + 2.0 * (-24f64).exp2();
                for v in 0..count {
                    for t in 0..len {
                        let mut acc = 0.0;
                        for sl in &sp.slices {
                            let val = sl.values[v * len + t];
                            assert_eq!(val as f32 as f64, val);
                            assert!(val.abs() <= 1.0);
                            acc += ldexp(val, sl.exps[v]);
                        }
                        // Only the last remainder (≤ ρ^(s−1)·μ) was rounded to f32.
                        let tol = (-24f64).exp2() * rho.powi(slices as i32 - 1) * mu[v] * 1.01;
                        assert!((acc - x[v * len + t]).abs() <= tol);
                    }
                }
            }
        }
    }

    /// The paper's claim (inequality (5)): products of two (non-remainder) slices accumulate
    /// without rounding error in the slice precision, for random and for worst-case vectors;
    /// and one bit more per slice (β − 1) breaks it on the worst case.
    #[test]
    fn slice_products_are_exact_and_beta_is_tight() {
        let mut s = 99u64;
        for &(len, prec) in &[
            (128usize, SliceGemm::F32),
            (256, SliceGemm::F32),
            (255, SliceGemm::F32),
            (256, SliceGemm::F64),
            (129, SliceGemm::F64),
        ] {
            let count = 6;
            let x: Vec<f64> = (0..len * count)
                .map(|i| rng(&mut s) * ((i % 13) as f64).exp2())
                .collect();
            let sp = split(&x, len, count, 4, prec, false);
            for sa in &sp.slices[..3] {
                for sb in &sp.slices[..3] {
                    for va in 0..count {
                        for vb in 0..count {
                            let a = &sa.values[va * len..(va + 1) * len];
                            let b = &sb.values[vb * len..(vb + 1) * len];
                            // Exact value: each product is exact in f64 (≤ 2(p−β+1) ≤ 53
                            // bits) and the sum of integers in units of 2^(2β−2p) is too.
                            let exact: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
                            let got = match prec {
                                SliceGemm::F32 => {
                                    let mut acc = 0f32;
                                    for (x, y) in a.iter().zip(b) {
                                        acc = (*x as f32).mul_add(*y as f32, acc);
                                    }
                                    acc as f64
                                }
                                SliceGemm::F64 => {
                                    let mut acc = 0f64;
                                    for (x, y) in a.iter().rev().zip(b.iter().rev()) {
                                        acc += x * y;
                                    }
                                    acc
                                }
                            };
                            assert_eq!(got, exact);
                        }
                    }
                }
            }
        }
        // Worst case: every entry is the largest slice value 1 − 2^(β−p) (all bits set).
        for len in [64usize, 100, 256] {
            let p = 24;
            let b = beta(p, len);
            let top = 1.0 - (b as f64 - p as f64).exp2();
            let mut acc = 0f32;
            for _ in 0..len {
                acc += (top as f32) * (top as f32);
            }
            assert_eq!(acc as f64, len as f64 * top * top, "β = {b} must be exact");
            let top1 = 1.0 - (b as f64 - 1.0 - p as f64).exp2();
            let mut acc1 = 0f32;
            for _ in 0..len {
                acc1 += (top1 as f32) * (top1 as f32);
            }
            assert_ne!(acc1 as f64, len as f64 * top1 * top1, "β − 1 must round");
        }
    }
}
