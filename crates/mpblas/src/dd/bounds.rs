//! Proven relative error bounds of the double-double operations, in units of `u² = 2^-106`.
//!
//! These constants are the single source of truth: the docs quote them and the MPFR tests
//! assert against them. They hold for operands and results in the normal range (see the
//! [module docs](super)). The small `O(u³)` terms of the published bounds are folded in by
//! rounding the constant up (`u ≈ 1.1e-16`, so `13u³` adds less than `1e-14` units).
//! "JMP" is Joldes, Muller, Popescu, ACM TOMS 44(2), 2017.

/// `Dd + Dd`, `Dd − Dd`: JMP Algorithm 6 (AccurateDWPlusDW), `3u² + 13u³`.
pub const ADD: f64 = 3.000_000_000_001;
/// `Dd + f64`, `Dd − f64`, `f64 + Dd`: JMP Algorithm 4 (DWPlusFP), `2u²`.
pub const ADD_F64: f64 = 2.0;
/// `Dd × Dd`: JMP Algorithm 12 (DWTimesDW3), `5u²` (Muller and Rideau later proved `4u²`).
pub const MUL: f64 = 5.0;
/// `Dd × f64`: JMP Algorithm 9 (DWTimesFP3), `2u²`.
pub const MUL_F64: f64 = 2.0;
/// `Dd ÷ Dd`: JMP Algorithm 17 (DWDivDW3), `9.8u²`.
pub const DIV: f64 = 9.8;
/// `Dd ÷ f64`: JMP Algorithm 15 (DWDivFP3), `3u²`.
pub const DIV_F64: f64 = 3.0;
/// `sqrt(Dd)`: SQRTDWtoDW of Lefèvre, Louvet, Muller, Picot, Rideau (ACM TOMS 2023), `25/8 u²`.
pub const SQRT: f64 = 3.125;

// ---- elementary functions (`dd::func`) ------------------------------------------------------
//
// Each constant is a first-order bound from the algorithm's error analysis with the JMP bounds
// above (written as "a + b·c" for the contributions), rounded up with a small margin. They hold
// for arguments and results in the normal range; see each function's docs for its domain.

/// `exp`, `exp2`: reduced argument `r` to `≤ 0.4u` absolute (`k·ln2` exact, one rounding), `expm1(r)` table
/// kernel `≤ 5.5u` (Taylor `≤ 3.6u`) weighted by `|w|/e^r ≤ 0.6`, `1 + w` (`2u`): `≈ 5.7u`.
pub const EXP: f64 = 8.0;
/// `exp_m1`: kernel `5.5u` for `|x| ≤ 0.34`; otherwise `2^k·w + (2^k − 1)` with the
/// cancellation of `k = 1` amplifying `w` by up to 2: `2·5.5 + 3 ≈ 14u`.
pub const EXP_M1: f64 = 16.0;
/// `ln`, `log2`, `log10`, `ln_1p`: assembly exact to `2^-122` absolute (`ln`: to `2^-143`
/// relative, by weight) before one rounding (`≈ 1.01u`), and the base-change product `≤ 2^-150`.
pub const LN: f64 = 1.5;
/// `log(base)`: two logarithms and a division: `1.5 + 1.5 + 9.8`.
pub const LOG: f64 = 13.0;
/// `pow`, `powf`: `y·ln x` exact to `2^-120·(1 + |y ln x|/700)`, reduction `≤ 0.4u`, the `exp`
/// kernel `≈ 5.7u`.
pub const POW: f64 = 8.0;
/// `powi`: `×` (5u) for `n = 2`, `÷` (9.8u) for `n = −1`, [`POW`] otherwise.
pub const POWI: f64 = 9.8;
/// `cbrt`: exact residual, correction to `2^-150`, final `y₀ + δ` rounding (`≤ 2u`).
pub const CBRT: f64 = 2.5;
/// `sin`, `cos`: reduced argument `≤ 1.005u` (relative; Cody–Waite or Payne–Hanek), kernel: `cos` `1 − t·p` with `t·p/cos ≤ 0.42`
/// times `≈ 15u`, plus `2u`; `sin` `≈ 6.6u`.
pub const SIN_COS: f64 = 10.0;
/// `tan`: `sin/cos`, `10 + 10 + 9.8`.
pub const TAN: f64 = 30.0;
/// `atan`: Newton step, `(ε_sin + ε_cos)·sin2θ/2θ ≤ 4.2 + 5.6`, `+ 2u`, octant unfold
/// `π/2 − θ` (`3.5u`).
pub const ATAN: f64 = 18.0;
/// `atan2`: [`ATAN`] plus the unfold `π − θ` (`3.5u`).
pub const ATAN2: f64 = 22.0;
/// `asin`: [`ATAN`] plus the error of `√((1−x)(1+x))` (`≤ 6.6u`), passed on with factor ≤ 1.
pub const ASIN: f64 = 25.0;
/// `acos`: [`ATAN2`] plus `6.6u`.
pub const ACOS: f64 = 29.0;
/// `sinh`: `1.16·ε_expm1 + 7.7u` below 1 (`ε_expm1 ≤ 14u`), `≈ 12u` above.
pub const SINH: f64 = 26.0;
/// `cosh`: `(5.6e + 15.4/e)/(e + 1/e) + 3 ≤ 13.5u`.
pub const COSH: f64 = 15.0;
/// `tanh`: `ε_expm1·2/(E+2) + 2 + 9.8 ≤ 26u`.
pub const TANH: f64 = 28.0;
/// `asinh`: error of the exact-sum's rounded term (`≤ 3.6u` after weighting), logarithm
/// condition `≤ 1`, `+ LN`.
pub const ASINH: f64 = 8.0;
/// `acosh`: `√(t(t+2))` (`≤ 6.6u`), condition `≤ 1`, `+ LN`.
pub const ACOSH: f64 = 10.0;
/// `atanh`: two logarithms kept exact, one rounding, `× 0.5` exact.
pub const ATANH: f64 = 1.5;
/// `hypot`: exact squares, one expansion rounding (`1.01u`, halved by the root), `sqrt` `3.125u`.
pub const HYPOT: f64 = 4.0;
/// `%` when the exact remainder is not representable: one rounding of an expansion.
pub const REM: f64 = 1.5;
