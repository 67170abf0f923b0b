//! Relative error bounds of the quad-double operations, in units of `u = 2^-212`.
//!
//! These constants are the single source of truth: the docs quote them and the MPFR tests
//! (`tests/qd_arith_vs_mpfr.rs`, `tests/qd_func_vs_mpfr.rs`) assert against exactly them. They
//! hold for operands and results in the normal range (magnitudes in
//! [[`Qd::MIN_POSITIVE`](super::Qd::MIN_POSITIVE) = 2^-862, `f64::MAX`]).
//!
//! No tight published proofs exist for quad-double; each bound is a first-order analysis,
//! stated beside it, plus a margin. Two facts are used throughout. (1) A normalised expansion
//! has `|c[i+1]| ≤ 2^-53·|c[i]|`, so `|c[3]| ≤ 2^-159·|c[0]|` and rounding the fourth word
//! costs at most `2^-53·|c[3]| ≤ u·|c[0]|`; every routine ends with one renormalisation whose
//! only inexact step is that rounding (with up to two `f64` additions folded into the last
//! word: ≤ 2u). (2) Terms of order `2^-265` relative and below are neglected (they sum to far
//! less than 0.01u).

/// `Qd + Qd`, `Qd − Qd` ([`Qd::add_ieee`](super::Qd::add_ieee), also `Qd ± Dd`): the merge and
/// Double-Accumulate are exact until four words are out; the tail (terms below `ulp(c[3])`)
/// is added in `f64` (≤ 1u), then the renormalisation (≤ 2u). Analysis 3u; no margin needed
/// beyond it since both pieces are already worst cases.
pub const ADD: f64 = 3.0;
/// `Qd ± f64` ([`Qd::add_f64`](super::Qd::add_f64)): the TwoSum cascade is exact; only the
/// renormalisation rounds (≤ 2u).
pub const ADD_F64: f64 = 2.0;
/// `Qd × Qd` ([`Qd::mul_accurate`](super::Qd::mul_accurate), also `Qd × Dd`): the orders 0–3
/// are exact (TwoProd, TwoSum chains); the order-4 terms (at most about 16 of size ≤ u·|ab|
/// each, summed in `f64`) cost ≤ 16·2^-53 u, the neglected order-5 terms ≤ 3·2^-53 u, and the
/// renormalisation ≤ 2u. Analysis 2u + O(2^-49 u); stated with a margin as 3u.
pub const MUL: f64 = 3.0;
/// `Qd × f64` ([`Qd::mul_f64`](super::Qd::mul_f64)): exact products and TwoSum chains, `q3` and
/// three carries summed in `f64` (negligible), renormalisation ≤ 2u; stated as 2.5u.
pub const MUL_F64: f64 = 2.5;
/// `Qd ÷ Qd` ([`Qd::div_accurate`](super::Qd::div_accurate)): each remainder `r − q_k·b` merges
/// the product's unrounded words (exact to order 3) into `r` by the sloppy merge, together
/// below `2^-257·|a|` of error, negligible in the quotient; the final renormalisation ≤ 2u.
/// Analysis 2u (4.5u when the products were rounded first, as in HLB); stated with a margin
/// as 6u.
pub const DIV: f64 = 6.0;
/// `Qd ÷ f64` ([`Qd::div_f64`](super::Qd::div_f64)): the remainder products are exact, so only
/// the subtractions' sloppy merges (below `2^-260·|a|`: negligible) and the final
/// renormalisation (≤ 2u) count; stated as 3u.
pub const DIV_F64: f64 = 3.0;
/// [`Qd::sqrt`](super::Qd::sqrt): after the Newton steps (the first in `f64` operations on exact
/// products, `|δ₁| ≲ 2^-104`; the second in quad-double) `x = (1+δ)/√a` with `|δ| ≲ 2^-203`;
/// Karp's step leaves `δ²` (negligible) plus the rounding of `y²` (MUL/2 after the halving and
/// the multiplication by `x ≈ 1/√a`), the final addition (ADD) and the correction product
/// (MUL·δ: negligible): 1.5u + 3u. Analysis 4.5u; stated with a margin as 6u.
pub const SQRT: f64 = 6.0;
/// The largest of the `+ − ×` bounds: the constant behind
/// [`Scalar::op_error_bound_in`](crate::Scalar::op_error_bound_in) for `Qd`, in units of `u`.
pub const ARITH_MAX: f64 = if ADD > MUL { ADD } else { MUL };
/// [`Qd::add_sloppy`](super::Qd::add_sloppy), **normwise**: `|r − (a + b)| ≤ ADD_SLOPPY·u·(|a| + |b|)`
/// for any signs. The pairwise TwoSums and the carries down to order 3 are exact; the order-4
/// carries are summed in `f64` (roundings of order 5: below `2^-45·u·(|a| + |b|)`); the
/// renormalisation's fold into the fourth word rounds at most `2^-53` of an order-3 word of the
/// merged sum, whose words are bounded by `|a| + |b|` (not by the result, which can be far
/// smaller under cancellation): about 2u. Stated with a margin as 3u, so that it is not above
/// [`ARITH_MAX`] and the summation bounds built on `op_error_bound` hold for the sloppy steps.
pub const ADD_SLOPPY: f64 = 3.0;
/// [`Qd::add_sloppy`](super::Qd::add_sloppy) for operands of the same sign, relative to the
/// result (then `|a| + |b| = |a + b|`, so this is [`ADD_SLOPPY`] again).
pub const ADD_SLOPPY_SAME_SIGN: f64 = ADD_SLOPPY;
/// [`Qd::add_product_sloppy`](super::Qd::add_product_sloppy), **normwise**:
/// `|r − (c + a·b)| ≤ ADD_PRODUCT_SLOPPY·u·(|c| + |a·b|)`. The product's words are those of
/// [`MUL`] before its renormalisation (orders 0–3 exact, order 4 off by ≤ 19·2^-53·u·|ab|,
/// order 5 neglected: ≤ 3·2^-53·u·|ab|), then the sloppy merge as in [`ADD_SLOPPY`]: about 2u.
/// Stated as 3u, not above [`ARITH_MAX`].
pub const ADD_PRODUCT_SLOPPY: f64 = 3.0;
/// [`Qd::add_square_sloppy`](super::Qd::add_square_sloppy), **normwise**:
/// `|r − (c + a²)| ≤ ADD_SQUARE_SLOPPY·u·(|c| + a²)`. The square's words are those of
/// [`ADD_PRODUCT_SLOPPY`]'s product for `b = a` with the symmetric products formed once
/// (exact doublings): orders 0–3 exact, order 4 from fewer `f64` operations, then the same
/// sloppy merge: about 2u, stated as 3u.
pub const ADD_SQUARE_SLOPPY: f64 = 3.0;
/// The sum of one lane of the blocked summation order (at most 16 terms, `Scalar::lane_sum`
/// and `Scalar::lane_dot` of `Qd`), **normwise**: `|r − Σ t_j| ≤ LANE_SUM·u·Σ|t_j|` (for a dot
/// `t_j = a_j·b_j`). Words 0–3 of the lane accumulator are exact; its word 4 and the product
/// words' order-4 roundings are below `2^-25·u·Σ|t_j|`; the end rounds the last word of a
/// normalised result (≤ `u·|r|`; a lane that does not come out normalised is summed by the
/// steps instead, with their bounds). Analysis 1.01u; stated as 2u. The blocked order's bound
/// charges a lane `15·ARITH_MAX·u·Σ|t_j|`, so it holds unchanged.
pub const LANE_SUM: f64 = 2.0;
const _: () = assert!(
    ADD_SLOPPY <= ARITH_MAX && ADD_PRODUCT_SLOPPY <= ARITH_MAX && ADD_SQUARE_SLOPPY <= ARITH_MAX
);
const _: () = assert!(LANE_SUM <= 15.0 * ARITH_MAX);

// ---- elementary functions (qd/func.rs) ------------------------------------------------------
//
// Common pieces of the analyses: a Horner series `q = c_0 + w·(c_1 + w·(…))` whose terms
// decrease by a factor `ρ = |w·c_{n+1}/c_n| ≤ 1/2` costs `(ADD + MUL)·(1 + ρ + ρ² + …)`
// relative to `q`; the coefficients (`1/n!`, `1/(2j+1)` by `÷ f64`) are off by at most
// `n·DIV_F64` relative, weighted by their term's size; the argument reduction of the
// trigonometric functions costs 1u relative (`trig_reduction::REM_PIO2_REL_ERR`).

/// [`Qd::exp`](super::Qd::exp): reduction `r = x − k·ln 2` (two roundings on `|r| ≤ 0.35`:
/// 2·ADD·0.35 = 2.1u absolute, i.e. relative in the result), `r' = r − j/64` (ADD_F64 on
/// `|r'| ≤ 1/128`: 0.02u absolute), the series `p'` for `e^r' − 1` (≤ 13u relative to
/// `|p'| ≤ 0.0079`: 0.1u of `e^r'`), the table word `E_j` (≤ 1u; `E_0 = 1` exact), `E_j·p'`
/// (MUL on `|p'| ≤ 0.008`: 0.03u) and `E_j + E_j·p'` (ADD). Analysis 6.3u; stated as 16u (the
/// bound before the table, kept).
pub const EXP: f64 = 16.0;
/// [`Qd::exp2`](super::Qd::exp2): `f·ln 2` (MUL plus the constant's 1u, relative to
/// `|f ln2| ≤ 0.35`), the series as in [`EXP`] and `1 + p`: about 12u; stated as 16u.
pub const EXP2: f64 = 16.0;
/// [`Qd::exp_m1`](super::Qd::exp_m1): for `|x| < 1` the series `x·Σ x^(n−1)/n!` (ρ ≤ 1/2:
/// (ADD + MUL)·2 + MUL = 15u); beyond, `exp(x) − 1` amplifies EXP by at most
/// `e/(e − 1) ≈ 1.58`, plus ADD_F64: 27.3u. Stated as 30u.
pub const EXP_M1: f64 = 30.0;
/// [`Qd::ln`](super::Qd::ln): `z = (m − 1)/(m + 1)` (ADD_F64 + ADD_F64 + DIV = 10u), the
/// series `2z·Σ z^(2j)/(2j+1)` (ρ ≤ 0.01: ADD + MUL·1.02 + MUL ≈ 9.2u), so ≤ 19.2u on
/// `ln m`; `e·ln 2 + ln m` weights that by at most 0.71 and `e·ln 2` (MUL_F64 + 1u) by at most
/// 1.71, plus ADD: 13.7 + 6 + 3 = 22.7u. Stated as 25u.
pub const LN: f64 = 25.0;
/// [`Qd::log2`](super::Qd::log2): `ln m·log₂e` (19.2u + MUL + 1u) weighted by at most 0.71,
/// plus ADD_F64 for `+ e`: 18.5u. Stated as 25u.
pub const LOG2: f64 = 25.0;
/// [`Qd::log10`](super::Qd::log10): LN + MUL + 1u (the constant) = 29u; stated as 30u.
pub const LOG10: f64 = 30.0;
/// [`Qd::ln_1p`](super::Qd::ln_1p): near 0, `z = x/(2 + x)` (ADD_F64 + DIV) and the series
/// (9.2u): 17.2u; elsewhere `ln(1 + x)` with `1 + x` rounded (ADD_F64, i.e. 2u absolute on a
/// logarithm ≥ 0.34 in magnitude: 5.9u) plus LN: 30.9u. Stated as 32u.
pub const LN_1P: f64 = 32.0;
/// [`Qd::sin`](super::Qd::sin): reduction 1u, `w = r²` (MUL, weighted by `w/6 / q ≤ 0.12`),
/// the series `Σ (−w)^j/(2j+1)!` (ρ ≤ 0.03: ADD + 0.12·(ADD + MUL) ≈ 3.8u), the product
/// `r·q` (MUL): 8.2u. Stated as 10u.
pub const SIN: f64 = 10.0;
/// [`Qd::cos`](super::Qd::cos): reduction (weighted by `r·tan r ≤ 0.79`), `w = r²` and the
/// inner series weighted by `(w/2)/cos r ≤ 0.44`, the outer ADD: 0.8 + 0.44·(MUL + ADD + MUL)
/// plus ADD ≈ 7.8u. Stated as 10u.
pub const COS: f64 = 10.0;
/// [`Qd::tan`](super::Qd::tan): SIN + COS + DIV = 26u.
pub const TAN: f64 = 26.0;
/// [`Qd::atan2`](super::Qd::atan2) and [`Qd::atan`](super::Qd::atan): at the last Newton step
/// the correction is `−(x·sin z − y·cos z)/(x·cos z + y·sin z)`; the errors of `sin z`, `cos z`
/// (SIN, COS) and of the two products (MUL each) enter the numerator as absolute errors
/// ≤ (SIN + COS + 2·MUL)·u·|sin z cos z|·r, and the denominator is ≈ r, so `z` gains
/// ≤ 26u·|sin z cos z| ≤ 26u·|z| absolute; plus the final addition (ADD) and the cubic
/// convergence remainder (`2^-400`): 29u. Stated as 32u.
pub const ATAN2: f64 = 32.0;
/// [`Qd::asin`](super::Qd::asin): ATAN2 plus the error of `√((1−x)(1+x))` (2·ADD_F64 + MUL
/// halved, + SQRT = 9.5u), which moves the angle by at most that times `|sin z cos z| ≤ |z|`:
/// 41.5u. Stated as 44u.
pub const ASIN: f64 = 44.0;
/// [`Qd::acos`](super::Qd::acos): as [`ASIN`], the square root now the first argument: 44u.
pub const ACOS: f64 = 44.0;
/// [`Qd::sinh`](super::Qd::sinh): for `|x| < 1`, EXP_M1's series (15u) carried through
/// `m(m + 2)/(2(m + 1))` with weight ≤ 1, plus ADD_F64 + MUL + ADD_F64 + DIV = 13u: 28u;
/// for `|x| ≥ 1`, `(e − 1/e)/2` with EXP (and DIV for `1/e`) amplified by `coth 1 ≈ 1.31`,
/// plus ADD: 1.31·22 + 3 = 31.8u; near overflow 2·EXP + MUL = 35u. Stated as 40u.
pub const SINH: f64 = 40.0;
/// [`Qd::cosh`](super::Qd::cosh): EXP (both terms carry the same relative error, 1/e through
/// DIV), + DIV + ADD: 16 + 6 + 3 = 25u. Stated as 35u (near overflow 2·EXP + MUL = 35u).
pub const COSH: f64 = 35.0;
/// [`Qd::tanh`](super::Qd::tanh): `m/(m + 2)` with `m` from EXP_M1 (weighted by
/// `2/(m + 2) ≤ 1`), + ADD_F64 + DIV: 38u. Stated as 40u.
pub const TANH: f64 = 40.0;
/// [`Qd::asinh`](super::Qd::asinh): the argument of `ln_1p` (all terms positive: MUL + ADD_F64
/// plus SQRT + ADD_F64 + DIV + ADD ≤ 19u), weighted by `t/((1 + t)·ln(1 + t)) ≤ 1`, + LN_1P:
/// 51u; above `10^36`, LN + ADD: 28u. Stated as 52u.
pub const ASINH: f64 = 52.0;
/// [`Qd::acosh`](super::Qd::acosh): `t = x − 1` (ADD_F64), `√(t(t + 2))` (ADD_F64 + MUL, halved,
/// plus SQRT = 8.5u), their sum (ADD): ≤ 13.5u on the argument of `ln_1p`, + LN_1P: 45.5u.
/// Stated as 48u.
pub const ACOSH: f64 = 48.0;
/// [`Qd::atanh`](super::Qd::atanh): `2|x|/(1 − |x|)` (ADD_F64 + DIV = 8u) weighted by ≤ 1,
/// plus LN_1P: 40u. Stated as 42u.
pub const ATANH: f64 = 42.0;
/// [`Qd::cbrt`](super::Qd::cbrt): in the last Newton step the residual `y³ − m` carries the
/// errors of `y²·y` (2·MUL relative to `m`), which become `2·MUL/3 = 2u` on the root; the
/// final subtraction (ADD) and the quadratic remainder (≈ `2^-400`): 5u. Stated as 8u.
pub const CBRT: f64 = 8.0;
/// [`Qd::hypot`](super::Qd::hypot): `a² + b²` (MUL + ADD, terms positive), halved by the root,
/// plus SQRT: 9u. Stated as 10u.
pub const HYPOT: f64 = 10.0;
/// `Qd % Qd` ([`Rem`](std::ops::Rem)), an **absolute** bound in units of `u·|a|`, for
/// `|a/b| < 2^200`: `n·b` (MUL, relative to `|n·b| ≤ |a|(1 + 2^-200)`) and the subtraction
/// (ADD relative to `|r| ≤ |a|`), and one correction (ADD): 9u·|a|. Stated as 10.
pub const REM: f64 = 10.0;

/// [`Qd::powi`](super::Qd::powi): any product chain for `x^n` has relative error at most
/// `(|n| − 1)·MUL·u` to first order (each product's rounding is raised to the power it still
/// has to reach, and those powers sum to at most `|n| − 1`); a negative `n` adds the final
/// reciprocal (DIV). Returns the bound in units of u.
pub fn powi(n: i32) -> f64 {
    let m = n.unsigned_abs() as f64;
    let chain = (m - 1.0).max(0.0) * MUL;
    if n < 0 { chain + DIV } else { chain }
}

/// [`Qd::pow`](super::Qd::pow) for a result with `t = y·ln|x|`: `exp` of `t` computed with
/// relative error ≤ (LN + MUL)·u, i.e. absolute error (LN + MUL)·u·|t|, which `exp` turns into
/// relative error, plus EXP. Returns the bound in units of u (≤ 21,000u for `|t| ≤ 745`).
pub fn pow(t: f64) -> f64 {
    EXP + (LN + MUL) * t.abs()
}
