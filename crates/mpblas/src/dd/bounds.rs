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
