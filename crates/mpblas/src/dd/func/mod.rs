//! Elementary functions on [`Dd`]: rounding, remainder, powers and roots, exponentials and
//! logarithms, trigonometric, inverse trigonometric and hyperbolic functions.
//!
//! Every function is an inherent method with the name of the `f64` method it mirrors, handles
//! ±0, ±Inf and NaN as that method does, and never panics. Each documents its relative error
//! bound in units of `u = 2^-106` (a constant in [`bounds`](super::bounds)); the bounds come
//! from a first-order error analysis of the algorithm using the JMP bounds of the basic
//! operations, rounded up with a margin, and `tests/dd_func_vs_mpfr.rs` asserts exactly those
//! constants against 2200-bit MPFR on random and adversarial arguments. Bounds hold for
//! arguments and results in the normal double-double range (magnitudes above `2^-969`); below
//! it the precision fades as for subnormal `f64`s.
//!
//! The table of methods and bounds is in the [`dd`](super) module docs.

mod expansion;
mod explog;
mod hyper;
mod round;
mod trig;

use super::Dd;

/// `(f, e)` with `|x| = f·2^e`, `f ∈ [0.5, 1)`, for finite non-zero `x` (subnormals included).
fn frexp(x: f64) -> (f64, i32) {
    let x = x.abs();
    let (x, bias) = if x < f64::MIN_POSITIVE {
        (x * 18_446_744_073_709_551_616.0, -64) // 2^64
    } else {
        (x, 0)
    };
    let e = ((x.to_bits() >> 52) & 0x7ff) as i32 - 1022;
    let f = f64::from_bits((x.to_bits() & !(0x7ffu64 << 52)) | (1022u64 << 52));
    (f, e + bias)
}

/// `x·2^n` by exact power-of-two products (one rounding only if the result is subnormal).
fn ldexp(x: f64, n: i32) -> f64 {
    let p = |e: i32| f64::from_bits(((e + 1023) as u64) << 52);
    if n > 1023 {
        // Overflow gives ±Inf, which further products keep.
        return ldexp(x * p(1023), n - 1023);
    }
    if n >= -1022 {
        return x * p(n);
    }
    if n >= -2044 {
        // x·2^(n+1022) = result·2^1022 is normal when the result is at least 2^-1074, so
        // only the last product rounds.
        return x * p(n + 1022) * p(-1022);
    }
    if x.abs() < 1.0 {
        return 0.0 * x;
    }
    // |x| ≥ 1: x·2^-1022 is normal, hence exact.
    ldexp(x * p(-1022), n + 1022)
}

/// `(hi, lo)` to a `Dd` (helper for the expansion conversions).
#[inline]
fn dd((hi, lo): (f64, f64)) -> Dd {
    Dd { hi, lo }
}
