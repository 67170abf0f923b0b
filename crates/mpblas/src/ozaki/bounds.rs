//! Error bounds of the Ozaki schemes, per entry of C. The tests assert exactly these
//! functions; nothing here is tuned to measurements.
//!
//! Notation: `u = 2^-53`, `u_p = 2^-p` for the slice precision, `γ_n(u) = n·u/(1 − n·u)`,
//! `μ_A = max_l |a_il|` (row `i` of `op(A)`), `μ_B = max_l |b_lj|` (column `j` of `op(B)`),
//! `M = k·μ_A·μ_B ≥ (|A||B|)_ij`. Every bound assumes no overflow and no underflow in the
//! scaled quantities, as the papers do.

use super::ozaki1::terms;
use super::split::{beta, ceil_log2, precision_bits};
use super::{Accumulate, Ozaki1Params, Ozaki2Mode, Ozaki2Params};
use crate::dd::Dd;
use crate::dd::bounds as ddb;
use crate::error::Result;

/// Unit roundoff of `f64`, `2^-53`.
pub const U: f64 = 1.0 / 9_007_199_254_740_992.0;

/// `γ_n(u) = n·u/(1 − n·u)` (infinite when `n·u ≥ 1`).
pub fn gamma(n: f64, u: f64) -> f64 {
    let nu = n * u;
    if nu >= 1.0 {
        f64::INFINITY
    } else {
        nu / (1.0 - nu)
    }
}

/// The classical bound of a plain `f64` dot product of length `k` in any order:
/// `|ĉ − c| ≤ γ_k·(|A||B|)_ij` (Higham, Accuracy and Stability, §3.1).
pub fn naive_gemm_ab_bound(k: usize, abs_ab: f64) -> f64 {
    gamma(k as f64, U) * abs_ab
}

/// `ρ = 2^(β+1−p) + 2·u_p`: one slice extraction leaves a remainder of at most `ρ·μ` (the
/// split of scheme I). `+∞` (no bound) for parameters [`super::ozaki1_check_params`] refuses.
pub fn ozaki1_rho(params: &Ozaki1Params, k: usize) -> f64 {
    if super::ozaki1_check_params(k, params).is_err() {
        return f64::INFINITY;
    }
    let p = precision_bits(params.slice_gemm);
    let b = beta(p, k);
    (b as f64 + 1.0 - p as f64).exp2() + 2.0 * (-(p as f64)).exp2()
}

/// Bound on `|S − (AB)_ij|` for scheme I's sum `S` of slice products (before `α`, `β`), given
/// `ab_abs = |(AB)_ij|`; `+∞` (no bound) for parameters [`super::ozaki1_check_params`]
/// refuses.
///
/// Derivation. The operand of level `l` is at most `(1+ρ)·ρ^(l−1)·μ`, so term `t` (levels
/// `l_t`, `m_t`) is at most `W_t = (1+ρ)²·ρ^(l_t+m_t−2)·M`. The decomposition is exact except
/// for the rounding of remainders to the slice precision; products of two extracted slices are
/// exact (the split of scheme I); any other product has error at most `γ_(k+2)(u_p)·W_t` (the GEMM's
/// `γ_k` plus the rounding of both operands). Recursive summation of the `T` terms, largest
/// first, adds at most `γ_T(u)·(|c| + E_prod + Σ_(t≥2) W_t)` in `f64` (every partial sum is
/// within the tail `Σ_(t≥2) W_t` of the result), or `2T·u²` times the same in double-double
/// (`Dd + f64` has relative error ≤ 2u²).
pub fn ozaki1_ab_bound(params: &Ozaki1Params, k: usize, mu_a: f64, mu_b: f64, ab_abs: f64) -> f64 {
    if super::ozaki1_check_params(k, params).is_err() {
        return f64::INFINITY;
    }
    let p = precision_bits(params.slice_gemm);
    let up = (-(p as f64)).exp2();
    let rho = ozaki1_rho(params, k);
    let big_m = k as f64 * mu_a * mu_b;
    let list = terms(params.slices, params.products);
    let g = gamma(k as f64 + 2.0, up);
    let mut e_prod = 0.0;
    let mut rest = 0.0;
    for (idx, t) in list.iter().enumerate() {
        let w = (1.0 + rho).powi(2) * rho.powi((t.a_level + t.b_level) as i32 - 2) * big_m;
        if !t.exact {
            e_prod += g * w;
        }
        if idx > 0 {
            rest += w * (1.0 + g);
        }
    }
    let tn = list.len() as f64;
    let e_acc = match params.accumulate {
        Accumulate::F64 => gamma(tn, U),
        Accumulate::Dd => gamma(tn * ddb::ADD_F64, Dd::UNIT_ROUNDOFF),
    } * (ab_abs + e_prod + rest);
    (e_prod + e_acc) * (1.0 + 4.0 * U)
}

/// Bound on the final entry `ĉ = α·S + β·c₀` given a bound `s_err` on `|S − (AB)_ij|`:
/// `ab_abs = |(AB)_ij|`, `beta_c0_abs = |β·c₀|` (0 when `β = 0`), `out_abs = |α·(AB)_ij + β·c₀|`.
/// In `f64`: `fl(fl(α·S) + fl(β·c₀))`. In double-double: `S·α` (≤ 2u²), `+ β·c₀` formed exactly
/// by `two_prod` (accurate addition, ≤ 3u²), then rounded to `f64` (≤ u).
pub fn update_bound(
    acc: Accumulate,
    alpha: f64,
    s_err: f64,
    ab_abs: f64,
    beta_c0_abs: f64,
    out_abs: f64,
) -> f64 {
    let a = alpha.abs();
    let mag = a * (ab_abs + s_err) + beta_c0_abs;
    match acc {
        Accumulate::F64 => (a * s_err + gamma(2.0, U) * mag) * (1.0 + U),
        Accumulate::Dd => {
            let pre = a * s_err + (ddb::MUL_F64 + ddb::ADD + 1.0) * Dd::UNIT_ROUNDOFF * mag;
            (pre + U * (out_abs + pre)) * (1.0 + U)
        }
    }
}

/// The whole per-entry bound of [`super::ozaki1_gemm`]:
/// [`update_bound`]`(`[`ozaki1_ab_bound`]`)`.
#[allow(clippy::too_many_arguments)]
pub fn ozaki1_entry_bound(
    params: &Ozaki1Params,
    k: usize,
    mu_a: f64,
    mu_b: f64,
    ab_abs: f64,
    alpha: f64,
    beta_c0_abs: f64,
    out_abs: f64,
) -> f64 {
    let s_err = ozaki1_ab_bound(params, k, mu_a, mu_b, ab_abs);
    update_bound(
        params.accumulate,
        alpha,
        s_err,
        ab_abs,
        beta_c0_abs,
        out_abs,
    )
}

/// What scheme II's bound needs of one row of `op(A)` or column of `op(B)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VecStats {
    /// `max_l |x_l|`.
    pub max_abs: f64,
    /// `Σ_l |x_l|` (in `f64`, any order).
    pub norm1: f64,
    /// `(Σ_l x_l²)^½` (in `f64`, any order).
    pub norm2: f64,
}

impl VecStats {
    /// The statistics of `x`.
    pub fn of(x: &[f64]) -> VecStats {
        VecStats {
            max_abs: x.iter().fold(0.0f64, |m, t| m.max(t.abs())),
            norm1: x.iter().map(|t| t.abs()).sum(),
            norm2: x.iter().map(|t| t * t).sum::<f64>().sqrt(),
        }
    }
}

/// A lower bound of scheme II's scaling exponent `e` of a vector with statistics `st`, for
/// inner dimension `k`. Accurate mode: `e ≥ q − ⌈log2 μ⌉` (`super::ozaki2::fast_q`). Fast
/// mode: `e = x + 16 − ⌈log2 μ⌉ − ⌈log2 R⌉` (`super::ozaki2::fast_exponent`) with
/// `R ≤ √S(1 + 2^-49)` and `√S ≤ 2^(16−⌈log2 μ⌉)·‖x‖₂ + √k + √c`, `c` the number of chunks
/// (`super::ozaki2::norm_squares`: each rescaled `g_l` exceeds `|x_l|·2^(16−⌈log2 μ⌉)` by
/// less than 1, and each chunk's rounding up adds less than 1 to `S`); `‖x‖₂` is inflated by
/// `1 + γ_k(u)` for its own rounding and the whole by `1 + 2^-48`.
///
/// # Errors
/// Those of `super::ozaki2::fast_q` and `super::ozaki2::fast_x`.
pub fn ozaki2_exponent_lower(params: &Ozaki2Params, k: usize, st: &VecStats) -> Result<i32> {
    use super::ozaki2::{Crt, NORM_BITS, fast_q, fast_x, norm_chunks};
    let e_mu = ceil_log2(st.max_abs);
    match params.mode {
        Ozaki2Mode::Accurate => Ok(fast_q(params.moduli, k)? - e_mu),
        Ozaki2Mode::Fast => {
            let x = fast_x(&Crt::new(params.moduli)?, k)?;
            let infl = 1.0 + gamma(k as f64, U);
            let slack = (k as f64).sqrt() + (norm_chunks(k) as f64).sqrt();
            let r = (super::split::ldexp(st.norm2 * infl, NORM_BITS - e_mu)
                + slack * (1.0 + 4.0 * U))
                * (1.0 + (-48f64).exp2());
            Ok(x + NORM_BITS - e_mu - ceil_log2(r))
        }
    }
}

/// Bound on `|S − (AB)_ij|` for scheme II before `α`, `β`, given the statistics of row `i` of
/// `op(A)` and column `j` of `op(B)` and `ab_abs = |(AB)_ij|`.
///
/// Derivation. Row `i` is scaled by `2^e_i` with `e_i` at least [`ozaki2_exponent_lower`]
/// and rounded to the nearest integer (error ≤ 1/2 per entry), and likewise column `j` by
/// `2^f_j`. The integer product is exact (CRT range), so
/// `2^(e+f)·S − 2^(e+f)·(AB)_ij = δ_A·B' + 2^e·A·δ_B` with `|δ| ≤ 1/2` and
/// `|B'| ≤ 2^f·|B| + 1/2`, giving
/// `|S − (AB)_ij| ≤ ½·2^-e·‖b_j‖₁ + ½·2^-f·‖a_i‖₁ + ¼·k·2^-(e+f)`.
/// The reconstruction to a double-double adds at most `4u²·|S|`. 1-norms may be computed in
/// `f64` in any order: they are inflated by `1 + γ_k(u)` here.
///
/// # Errors
/// Those of [`ozaki2_exponent_lower`] (moduli count out of range, `k` too large).
pub fn ozaki2_ab_bound(
    params: &Ozaki2Params,
    k: usize,
    a: &VecStats,
    b: &VecStats,
    ab_abs: f64,
) -> Result<f64> {
    let infl = 1.0 + gamma(k as f64, U);
    let inv_e = (-ozaki2_exponent_lower(params, k, a)? as f64).exp2();
    let inv_f = (-ozaki2_exponent_lower(params, k, b)? as f64).exp2();
    let e_ab = 0.5 * inv_e * b.norm1 * infl
        + 0.5 * inv_f * a.norm1 * infl
        + 0.25 * k as f64 * inv_e * inv_f;
    Ok((e_ab + 4.0 * Dd::UNIT_ROUNDOFF * (ab_abs + e_ab)) * (1.0 + 4.0 * U))
}

/// The whole per-entry bound of [`super::ozaki2_gemm`] (its update is in double-double).
///
/// # Errors
/// Those of [`ozaki2_ab_bound`].
#[allow(clippy::too_many_arguments)]
pub fn ozaki2_entry_bound(
    params: &Ozaki2Params,
    k: usize,
    a: &VecStats,
    b: &VecStats,
    ab_abs: f64,
    alpha: f64,
    beta_c0_abs: f64,
    out_abs: f64,
) -> Result<f64> {
    let s_err = ozaki2_ab_bound(params, k, a, b, ab_abs)?;
    Ok(update_bound(
        Accumulate::Dd,
        alpha,
        s_err,
        ab_abs,
        beta_c0_abs,
        out_abs,
    ))
}
