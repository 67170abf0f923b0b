//! The a-priori error bounds of the BLAS routines, as functions: the routines return them and
//! the MPFR tests assert exactly them.
//!
//! The model (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., §2.2, §3.1,
//! §4.2): each `+`, `−`, `×` of the format has relative error at most `ε` (the format's
//! [`op_error_bound_in`](crate::Scalar::op_error_bound_in)) in the normal range and adds at
//! most `η` ([`underflow_error_in`](crate::Scalar::underflow_error_in)) absolute below it. A
//! sum whose terms pass through at most `D` operations on the way to the result then has
//! `|ŝ − s| ≤ γ_D·Σ|t_i| + (ops)·η` with `γ_D = D·ε/(1 − D·ε)` (Higham (4.4) for any
//! summation tree).

use super::sum::Summation;

/// `γ_k = k·ε/(1 − k·ε)`, rounded up, or `+∞` once `k·ε ≥ 1/2` (no bound worth stating).
pub fn gamma(k: usize, eps: f64) -> f64 {
    let ke = k as f64 * eps;
    if ke >= 0.5 {
        return f64::INFINITY;
    }
    // Two roundings of ≤ 2^-53 each, covered by the factor 1 + 2^-50.
    ke / (1.0 - ke) * (1.0 + f64::powi(2.0, -50))
}

/// The largest number of operations any term of an `n`-term sum passes through on its way to
/// the result, for each [`Summation`] order (each tree is fixed by the indices alone, so the
/// depth is too).
///
/// - [`Summation::Recursive`]: `n − 1`.
/// - [`Summation::Pairwise`]: `⌈log2 n⌉` levels plus at most one more operation per set bit of
///   `n` when the leftover blocks are joined: `≤ 2⌈log2 n⌉`.
/// - [`Summation::Blocked`]: per pass over the data, `PER_LANE − 1` additions in a lane plus
///   `log2 LANES` tree levels (the first addition of each lane is onto `−0`, exact); passes until one
///   value is left.
pub fn summation_depth(order: Summation, n: usize) -> usize {
    if n <= 1 {
        return 0;
    }
    match order {
        Summation::Recursive => n - 1,
        Summation::Pairwise => {
            let levels = usize::BITS - (n - 1).leading_zeros();
            levels as usize + n.count_ones() as usize - 1
        }
        Summation::Blocked => {
            let per_pass = super::sum::PER_LANE - 1 + super::sum::LANES.trailing_zeros() as usize;
            let mut passes = 0;
            let mut m = n;
            while m > 1 {
                m = m.div_ceil(super::sum::CHUNK);
                passes += 1;
            }
            passes * per_pass
        }
    }
}

/// The bound on `|ŝ − s|` for a sum (or dot product, `products = true`, one more operation per
/// term) of `n` terms in order `order`, given an upper bound `abs_sum ≥ Σ|t_i|` of the terms'
/// magnitudes: `γ_{D(+1)}·abs_sum + 2n·η`, rounded up (plus the smallest subnormal, for
/// `γ·abs_sum` below the `f64` range). `+∞` if `abs_sum` is not finite.
pub fn sum_error_bound(
    order: Summation,
    n: usize,
    products: bool,
    abs_sum: f64,
    eps: f64,
    eta: f64,
) -> f64 {
    if !abs_sum.is_finite() {
        return f64::INFINITY;
    }
    let depth = summation_depth(order, n) + usize::from(products);
    let g = gamma(depth, eps);
    let tiny = tiny_if(g > 0.0 && abs_sum > 0.0);
    up(g * abs_sum + 2.0 * n as f64 * eta + tiny)
}

/// Terms per block of the compensated double-double dot product
/// ([`gemm_dd_compensated`](super::level3::gemm_dd_compensated)).
pub const COMPENSATED_BLOCK: usize = 32;

/// `g` of the compensated double-double dot product of `n` terms: its result `ŝ` has
/// `|ŝ − Σ a_l·b_l| ≤ g·Σ|a_l||b_l| + 2n·η` (`η` the double-double underflow term).
///
/// The algorithm ([`gemm_dd_compensated`](super::level3::gemm_dd_compensated)), with
/// `u = 2^-53`, for normalised double-double operands (`|lo| ≤ u·|hi|`), per block of
/// `B` = [`COMPENSATED_BLOCK`] terms:
///
/// 1. `(p, q₀) = TwoProduct(a.hi, b.hi)`, `t = fma(a.hi, b.lo, q₀)`, `π = fma(a.lo, b.hi, t)`:
///    `|p + π − a·b| ≤ |a.lo·b.lo| + u|t| + u|π| ≤ 6.1·u²·|a·b|` (`|t| ≤ 2.001u|a.hi·b.hi|`,
///    `|π| ≤ 3.002u|a.hi·b.hi|`).
/// 2. `(s, q) = TwoSum(s, p)` (exact: `Σ p = s_B + Σ q`), `e ← e + (q + π)` in `f64`.
///    `|q_l| ≤ u|s_l|`, so `Σ|q_l| ≤ B·u·(1 + γ_B)·Σ|p|`, and the `f64` sum of the `2B` values
///    `q_l, π_l` (depth `B + 1`) errs by at most `γ_(B+1)·(Σ|q| + Σ|π|)
///    ≤ γ_(B+1)·(1.0002·B + 3.002)·u·Σ|a·b|` (Ogita, Rump, Oishi, SISC 26(6), 2005, the
///    analysis of Dot2, per block).
/// 3. The block's `(s, e)`, made a double-double by TwoSum (exact), is added to the running
///    double-double sum with the accurate addition (op bound `ε = 3u²`): over `⌈n/B⌉` blocks,
///    `γ^ε_(⌈n/B⌉)·Σ_blocks|v_b|`, `|v_b| ≤ 1.0001·Σ_block|a·b|`.
///
/// Hence `g = 6.1u² + γ_(B+1)·(1.0002·B + 3.002)·u + 1.0001·γ^(3u²)_(⌈n/B⌉)`, rounded up: about
/// `1160u² + 3u²·n/32`, against `γ_n`'s `8u²·n` of the recursive double-double sum (the
/// product and the accurate addition per term): the compensated sum is the more accurate from
/// `n ≈ 150` on, and costs about 13 `f64` operations per term instead of 33.
pub fn compensated_dot_gamma(n: usize) -> f64 {
    let u = f64::EPSILON / 2.0;
    let b = COMPENSATED_BLOCK as f64;
    let within = gamma(COMPENSATED_BLOCK + 1, u) * (1.0002 * b + 3.002) * u;
    let between = 1.0001 * gamma(n.div_ceil(COMPENSATED_BLOCK), 3.0 * u * u);
    up(6.1 * u * u + within + between)
}

/// The smallest subnormal where an error is possible, else 0: below the normal range `γ·|v|`
/// rounds down, or to 0 (an RNS value under 2^-1074), and one subnormal covers that.
pub(crate) fn tiny_if(possible: bool) -> f64 {
    if possible { f64::from_bits(1) } else { 0.0 }
}

/// `x` times `1 + 2^-50`: covers the few roundings made evaluating a bound formula in `f64`.
/// Keeps a nonzero bound nonzero (at least the smallest subnormal).
pub fn up(x: f64) -> f64 {
    if x == 0.0 {
        return 0.0;
    }
    (x * (1.0 + f64::powi(2.0, -50))).max(f64::from_bits(1))
}

/// A result with its a-priori absolute error bound: `|value − exact| ≤ error_bound`, where
/// `exact` is the routine's mathematical result on the given (rounded) inputs. The bound is an
/// `f64` rounded up: `+∞` when it does not fit (or the inputs hold NaN or ±∞, where no bound
/// holds), and never smaller than the smallest subnormal when the error can be nonzero.
#[derive(Clone, Debug, PartialEq)]
pub struct Bounded<T> {
    /// The computed result.
    pub value: T,
    /// The bound on its absolute error.
    pub error_bound: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depths_follow_the_trees() {
        assert_eq!(summation_depth(Summation::Recursive, 10), 9);
        assert_eq!(summation_depth(Summation::Pairwise, 8), 3);
        // 7 = 4 + 2 + 1: counted as three levels plus two joins (the true depth is 3).
        assert_eq!(summation_depth(Summation::Pairwise, 7), 5);
        assert_eq!(summation_depth(Summation::Blocked, 4096), 23);
        assert_eq!(summation_depth(Summation::Blocked, 4097), 46);
        assert_eq!(summation_depth(Summation::Blocked, 1), 0);
        assert!(gamma(3, 0.25).is_infinite());
        assert!(gamma(2, 2f64.powi(-53)) > 2.0 * 2f64.powi(-53));
    }
}
