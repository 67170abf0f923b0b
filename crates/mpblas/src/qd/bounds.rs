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
/// `Qd ÷ Qd` ([`Qd::div_accurate`](super::Qd::div_accurate)): the first remainder
/// `a − q0·b` carries the product's error (≤ MUL_F64·u·|a|) and the subtraction's (≤ ADD·u of
/// a remainder `2^-52` smaller: negligible), which becomes ≤ 2.5u of the quotient; the later
/// remainders are `2^-52` smaller each; the final renormalisation ≤ 2u. Analysis 4.5u; stated
/// with a margin as 6u.
pub const DIV: f64 = 6.0;
/// `Qd ÷ f64` ([`Qd::div_f64`](super::Qd::div_f64)): the remainder products are exact, so only
/// the first subtraction's tail (≤ 3u of a remainder `2^-52·|a|`: negligible) and the final
/// renormalisation (≤ 2u) count; stated as 3u.
pub const DIV_F64: f64 = 3.0;
/// [`Qd::sqrt`](super::Qd::sqrt): after the Newton steps `x = (1+δ)/√a` with `|δ| ≲ 2^-203`;
/// Karp's step leaves `δ²` (negligible) plus the rounding of `y²` (MUL/2 after the halving and
/// the multiplication by `x ≈ 1/√a`), the final addition (ADD) and the correction product
/// (MUL·δ: negligible): 1.5u + 3u. Analysis 4.5u; stated with a margin as 6u.
pub const SQRT: f64 = 6.0;
/// The largest of the `+ − ×` bounds: the constant behind
/// [`Scalar::ARITH_ERROR_BOUND`](crate::Scalar::ARITH_ERROR_BOUND) for `Qd`.
pub const ARITH_MAX: f64 = if ADD > MUL { ADD } else { MUL };
/// [`Qd::add_sloppy`](super::Qd::add_sloppy) **for operands of the same sign only** (there is
/// no relative bound under cancellation): the pairwise TwoSums and the ThreeSum are exact; the
/// dropped parts are the `f64` sums of the order-3 carries (ThreeSum2 and the final carry
/// sum), each within a few units of `2^-53` of an order-3 term, i.e. ≲ 2u, plus the
/// renormalisation's 2u. Analysis 4u; stated as 5u.
pub const ADD_SLOPPY_SAME_SIGN: f64 = 5.0;
