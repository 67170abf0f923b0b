//! Error-free transformations (EFTs): the exact building blocks of double-double and
//! quad-double arithmetic.
//!
//! Each function returns a pair `(s, e)` with `s = fl(op)` and `e` the exact rounding error,
//! so that `s + e` equals the exact result, provided no overflow occurs. They rely on IEEE-754
//! binary64 arithmetic in round-to-nearest-even (Rust's only mode) and, for [`two_prod`], on a
//! correctly rounded fused multiply-add (`f64::mul_add`, which is exact FMA on every target Rust
//! supports; on targets without a hardware FMA it is a correct software FMA).
//!
//! References: Knuth, TAOCP vol. 2 (TwoSum); Dekker 1971 (FastTwoSum, Split);
//! Hida, Li, Bailey, "Algorithms for quad-double precision floating point arithmetic", ARITH 2001
//! (ThreeSum and the renormalisations built on these).
//!
//! The CUDA twins (`eft.cuh`) keep the same names and stay bit-identical.
//!
//! # Speed without build flags
//!
//! Double-double and quad-double arithmetic is built on fused multiply-add. A crate compiled
//! for a CPU with FMA (`-C target-cpu=x86-64-v3` or `native`) gets the instruction inline. One
//! compiled for baseline x86-64 (every dependent crate by default) would get a library call
//! for each `f64::mul_add` and no inlining around it, about 6× slower for `Dd × Dd`; so the
//! arithmetic runs each operation (and the library's loops run their whole loop) inside
//! `with_fma`, which detects the instruction at run time (once; the answer is cached) and
//! runs the code compiled with FMA and AVX2. Hardware and software FMA are both correctly
//! rounded, so the bits are the same either way; nothing else in the arithmetic is contracted
//! into an FMA.

/// TwoSum (Knuth): `s = fl(a + b)`, `e = (a + b) - s` exactly, for any finite `a`, `b`.
///
/// Branch-free; 6 flops. If `a + b` overflows, `s` is ±Inf and `e` is NaN.
#[inline(always)]
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// FastTwoSum (Dekker): `s = fl(a + b)`, `e = (a + b) - s` exactly, **provided `|a| ≥ |b|`**
/// (or `a == 0`, or more generally the exponent of `a` is at least that of `b`).
///
/// 3 flops. The caller is responsible for the precondition; it is not checked.
#[inline(always)]
pub fn fast_two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let e = b - (s - a);
    (s, e)
}

/// TwoDiff: `s = fl(a - b)`, `e = (a - b) - s` exactly (TwoSum of `a` and `-b`).
#[inline(always)]
pub fn two_diff(a: f64, b: f64) -> (f64, f64) {
    let s = a - b;
    let bb = s - a;
    let e = (a - (s - bb)) - (b + bb);
    (s, e)
}

/// True when the CPU has the FMA and AVX2 instructions (cached by the standard library after
/// the first query).
#[cfg(all(target_arch = "x86_64", not(target_feature = "fma")))]
#[inline(always)]
fn fma_detected() -> bool {
    std::is_x86_feature_detected!("fma") && std::is_x86_feature_detected!("avx2")
}

/// Runs `f` compiled with the FMA and AVX2 features when the CPU has them (detected at run
/// time, once; no cost at all when this crate was compiled for such a CPU), so that the fused
/// multiply-adds inlined into `f` are one instruction instead of a library call. The result is
/// the same either way. Every `Dd`/`Qd` multiplication, division and square root runs inside
/// it; a loop of the library's own can run its whole body in one (with the operations' cores,
/// not the operators, which would each dispatch again).
#[inline(always)]
pub(crate) fn with_fma<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "fma")))]
    if fma_detected() {
        // SAFETY: the CPU has FMA and AVX2 (checked at run time just above).
        return unsafe { fma_context(f) };
    }
    f()
}

/// `f()` compiled with FMA and AVX2: closures (and the `#[inline]` functions they call) that
/// are inlined here get those features.
///
/// # Safety
/// The CPU must have FMA and AVX2.
#[cfg(all(target_arch = "x86_64", not(target_feature = "fma")))]
#[target_feature(enable = "avx2,fma")]
unsafe fn fma_context<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// TwoProd with FMA: `p = fl(a * b)`, `e = a * b - p` exactly, provided `a * b` neither
/// overflows nor underflows (the error of a product in the subnormal range is not representable).
#[inline(always)]
pub fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    let e = a.mul_add(b, -p);
    (p, e)
}

/// `hi + lo − n·(p₀ + p₁ + p₂)` as a pair `(rh, rl)` (`rh = fl(rh + rl)`): the Cody–Waite step
/// (Cody and Waite, *Software Manual for the Elementary Functions*, 1980; with exact products by
/// FMA, Muller, *Elementary Functions*, 3rd ed., §11.2) shared by the `π/2` reduction of sin/cos
/// and the `ln 2` reduction of exp, for an integer `n` (the caller's `round(hi/C)`) and a
/// constant `C` split into words `p₀ + p₁ + p₂`. With `aᵢ + bᵢ = n·pᵢ` exact (TwoProd):
/// `d = hi − a₀` is taken as exact (each caller states why: Sterbenz, or `hi` and `a₀` in one
/// binade), the order-`2^-53` terms `lo − b₀ − a₁ = s + e₁ + e₂` are summed exactly (TwoSum),
/// the order-`2^-106` terms `e₁ + e₂ − b₁ − n·p₂` in `f64`, and `r = h + fl(e₃ + low)` with
/// `d + s = h + e₃`. The callers give the error bounds (`trig_reduction::cody_waite_dd`,
/// `dd::func::explog::reduce_ln2_dd`).
#[inline(always)]
pub(crate) fn sub_multiple_dd(hi: f64, lo: f64, n: f64, p: [f64; 3]) -> (f64, f64) {
    let (a0, b0) = two_prod(n, p[0]);
    let (a1, b1) = two_prod(n, p[1]);
    let d = hi - a0;
    let (s, e1) = two_sum(lo, -b0);
    let (s, e2) = two_sum(s, -a1);
    let low = ((e1 + e2) - b1) - n * p[2];
    let (h, e3) = two_sum(d, s);
    fast_two_sum(h, e3 + low)
}

/// Square with FMA: `p = fl(a²)`, `e = a² - p` exactly (same conditions as [`two_prod`]).
#[inline(always)]
pub fn two_sqr(a: f64) -> (f64, f64) {
    let p = a * a;
    let e = a.mul_add(a, -p);
    (p, e)
}

/// Splitting constant for Dekker's split of binary64: 2^27 + 1.
const SPLITTER: f64 = 134_217_729.0;
/// Above this magnitude `SPLITTER * a` could overflow; split a scaled copy instead.
const SPLIT_THRESHOLD: f64 = 6.696_928_794_914_17e299; // 2^996

/// Dekker's Split (Veltkamp): `a = hi + lo` exactly, with `hi` and `lo` each fitting in 26 bits
/// of significand (the sign of `lo` absorbs the 27th), so that products of halves are exact.
///
/// Not needed for [`two_prod`] (which uses FMA) but kept for FMA-free algorithms, for the
/// Ozaki-scheme splitting and for tests. Values above 2^996 are scaled to avoid overflow; the
/// few within a rounding of `f64::MAX` (where rounding `hi` up would overflow) are split by
/// truncation instead, which leaves 27 bits in `lo`.
#[inline]
pub fn split(a: f64) -> (f64, f64) {
    if a.abs() > SPLIT_THRESHOLD {
        let scaled = a * 3.725_290_298_461_914e-9; // 2^-28
        let t = SPLITTER * scaled;
        let hi = (t - (t - scaled)) * 268_435_456.0; // 2^28
        if hi.is_finite() {
            (hi, a - hi)
        } else {
            let hi = f64::from_bits(a.to_bits() & !((1u64 << 27) - 1));
            (hi, a - hi)
        }
    } else {
        let t = SPLITTER * a;
        let hi = t - (t - a);
        let lo = a - hi;
        (hi, lo)
    }
}

/// ThreeSum (Hida-Li-Bailey): `(s, e1, e2)` with `a + b + c = s + e1 + e2` exactly
/// (three TwoSums). `s = fl(fl(a + b) + c)` is the leading term only when no cancellation
/// occurs: `three_sum(1, 1e-17, -1)` gives `(0, 1e-17, 0)`. Callers renormalise afterwards.
#[inline(always)]
pub fn three_sum(a: f64, b: f64, c: f64) -> (f64, f64, f64) {
    let (t1, t2) = two_sum(a, b);
    let (s, t3) = two_sum(c, t1);
    let (e1, e2) = two_sum(t2, t3);
    (s, e1, e2)
}

/// ThreeSum2 (Hida-Li-Bailey): `s = fl(fl(a + b) + c)` and a single error term
/// `e ≈ a + b + c - s`, with the two low-order errors added in floating point (not exact).
#[inline(always)]
pub fn three_sum2(a: f64, b: f64, c: f64) -> (f64, f64) {
    let (t1, t2) = two_sum(a, b);
    let (s, t3) = two_sum(c, t1);
    (s, t2 + t3)
}

/// `eft.cuh`: the device twin of this module (and the bit-level helpers every device header
/// shares), included by every kernel module.
pub(crate) static EFT_CUH: crate::cuda::Header = crate::cuda::Header {
    name: "eft.cuh",
    text: include_str!("eft.cuh"),
};

/// `2^e` for every `e`, exactly when it is representable: the normal powers `[-1022, 1023]`
/// from the bits, the subnormal ones `[-1074, -1023]` exactly too, `+0.0` below `2^-1074`
/// (`2^-1075` is a tie and rounds to even, that is to zero, as IEEE-754's `ldexp` does) and
/// `+Inf` above `2^1023`.
///
/// The in-range branch is the same bit construction as before this function was made total
/// (issue 11), so every caller in range gets the same bits; the device twins (`oz_pow2` in
/// `ozaki/ozaki_gpu.cu`, called only with normal exponents) therefore need no change.
#[inline(always)]
pub fn pow2(e: i32) -> f64 {
    if (-1022..=1023).contains(&e) {
        pow2_normal(e)
    } else {
        pow2_outside(e)
    }
}

/// `2^e` for a normal exponent, from the bits. Crate-internal: callers have already brought
/// `e` into `[-1022, 1023]`, so the hot loops (through [`ldexp`]) pay no range check.
#[inline(always)]
fn pow2_normal(e: i32) -> f64 {
    debug_assert!((-1022..=1023).contains(&e));
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// [`pow2`] outside the normal range, kept out of line so the in-range path stays small.
#[cold]
#[inline(never)]
fn pow2_outside(e: i32) -> f64 {
    if e > 1023 {
        f64::INFINITY
    } else if e >= -1074 {
        // A subnormal power of two is the single bit `e + 1074` of the significand field.
        f64::from_bits(1u64 << (e + 1074))
    } else {
        0.0
    }
}

/// `x · 2^e`, exact whenever the result is a normal number (done in steps that stay in range).
///
/// Zero, infinite and NaN `x` are returned as they are (their scaled value); they would
/// otherwise take up to `i32::MAX / 1022` steps, since they never reach the stopping tests.
/// Every other result is bit for bit what the step loop gives (and `oz_ldexp`, its device twin).
pub fn ldexp(mut x: f64, mut e: i32) -> f64 {
    while e > 1023 {
        x *= pow2_normal(1023);
        e -= 1023;
        if x == 0.0 || !x.is_finite() {
            return x;
        }
    }
    while e < -1022 {
        x *= pow2_normal(-1022);
        e += 1022;
        if x == 0.0 || !x.is_finite() {
            return x;
        }
    }
    x * pow2_normal(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Exactness is checked against MPFR in tests/eft_vs_mpfr.rs; these are quick sanity checks
    // on the cases where each EFT's error term is known in closed form.
    #[test]
    fn two_sum_recovers_lost_bits() {
        let (s, e) = two_sum(1.0, 1e-20);
        assert_eq!(s, 1.0);
        assert_eq!(e, 1e-20);
        let (s, e) = two_sum(1e-20, 1.0);
        assert_eq!((s, e), (1.0, 1e-20));
    }

    #[test]
    fn two_prod_is_exact_for_known_square() {
        // (1 + 2^-30)^2 = 1 + 2^-29 + 2^-60: the last term is the rounding error.
        let a = 1.0 + 2f64.powi(-30);
        let (p, e) = two_prod(a, a);
        assert_eq!(p, 1.0 + 2f64.powi(-29));
        assert_eq!(e, 2f64.powi(-60));
        assert_eq!(two_sqr(a), (p, e));
    }

    #[test]
    fn split_halves_fit_26_bits_and_sum_exactly() {
        for &a in &[1.0 / 3.0, -std::f64::consts::PI, 1e300, f64::MAX, 5e-324] {
            let (hi, lo) = split(a);
            assert_eq!(hi + lo, a, "split({a:e})");
            // Each half times itself must be exact: its TwoProd error is zero.
            if hi != 0.0 && hi.abs() < 1e150 {
                assert_eq!(two_prod(hi, hi).1, 0.0, "hi of {a:e} has more than 26 bits");
                assert_eq!(two_prod(lo, lo).1, 0.0, "lo of {a:e} has more than 26 bits");
            }
        }
    }

    #[test]
    fn three_sum_is_exact_on_cancelling_terms() {
        let (s, e1, e2) = three_sum(1.0, 1e-17, -1.0);
        assert_eq!((s, e1, e2), (0.0, 1e-17, 0.0));
        let (s, e1, e2) = three_sum(1.0, 2f64.powi(-53), 2f64.powi(-80));
        assert_eq!(s, 1.0);
        assert_eq!(e1 + e2, 2f64.powi(-53) + 2f64.powi(-80));
    }
}
