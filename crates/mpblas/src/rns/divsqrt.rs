//! Division and square root, computed natively and correctly rounded (nearest).
//!
//! Both take a Newton approximation and then *prove* the rounding with exact residuals:
//!
//! - division: `y ≈ 1/b` by `y ← y + y(1 − b y)` from an `f64` seed, `q = a y`; the residual
//!   `r = a − b q` is computed by [`MpFloat::fma`], and is exact whenever `q` is a faithful
//!   rounding of `a/b` (Boldo and Daumas: the remainder of a faithful quotient is representable).
//!   `q` is the rounded quotient iff `|r| < |b|·ulp(q)/2` (an exact comparison); a faithful `q`
//!   that fails the test is replaced by its neighbour. Quotients of `p`-bit numbers are never
//!   midpoints, so there are no ties.
//! - square root: `t ≈ 1/√a` by `t ← t + t(1 − a t²)/2`, `s = a t`; with `s = S·2^E` and the
//!   exact residual `r = a − s²`, the midpoint test `a ≷ (s ± h)²` becomes the comparison of
//!   `r` with `±h(2s ± h)`, an integer times a power of two, decided exactly in RNS. Square
//!   roots are never midpoints either.

use crate::error::Result;
use crate::rns::basis::{Basis, add_mod, sub_mod};
use crate::rns::float::{Class, MpFloat, scale_up};
use crate::rns::interval::{bit_length, eval_unsigned, sign_of};
use std::cmp::Ordering;

impl MpFloat {
    /// `self / other`, correctly rounded (nearest).
    ///
    /// # Errors
    /// [`Error::BasisMismatch`](crate::Error::BasisMismatch) when the operands have different
    /// bases.
    pub fn div(&self, other: &MpFloat) -> Result<MpFloat> {
        self.check(other)?;
        let bs = &self.basis;
        let neg = self.neg ^ other.neg;
        match (self.class, other.class) {
            (Class::Nan, _) | (_, Class::Nan) => return Ok(MpFloat::nan(bs)),
            (Class::Infinite, Class::Infinite) => return Ok(MpFloat::nan(bs)),
            (Class::Infinite, _) => return Ok(MpFloat::infinity(bs, neg)),
            (_, Class::Infinite) => return Ok(MpFloat::zero(bs, neg)),
            _ => {}
        }
        match (self.is_zero(), other.is_zero()) {
            (true, true) => return Ok(MpFloat::nan(bs)),
            (false, true) => return Ok(MpFloat::infinity(bs, neg)),
            (true, false) => return Ok(MpFloat::zero(bs, neg)),
            _ => {}
        }
        // Divide the significands near exponent 0 and apply the exponent once at the end:
        // Newton's intermediates (1/b, b·y, a·y) of operands near the range limits would
        // otherwise leave the exponent range and turn a finite quotient into NaN. Scaling by a
        // power of two is exact, and the final one applies the range rule (±Inf or ±0), so
        // the result is still the correctly rounded quotient.
        let (ea, eb) = (self.exp, other.exp);
        let (a, b) = (self.abs().mul_pow2(-ea), other.abs().mul_pow2(-eb));
        let q = Self::div_positive(&a, &b)?.mul_pow2(ea - eb);
        Ok(if neg { q.neg() } else { q })
    }

    /// `a / b` for finite, positive, non-zero operands whose exponents are small.
    fn div_positive(a: &MpFloat, b: &MpFloat) -> Result<MpFloat> {
        let y = b.recip_approx()?;
        let mut q = a.mul(&y)?;
        for _ in 0..8 {
            if !q.is_finite() || q.is_zero() {
                break; // left the exponent range: the range rule already applied
            }
            let r = q.neg().fma(b, a)?; // a − b·q, exact when q is faithful
            if r.is_zero() {
                break;
            }
            let up = !r.neg; // v − q = r/b has the sign of r
            let pow2_down = !up && q.significand_is_pow2();
            // spacing of representable numbers on the side of v
            let gap_exp = if pow2_down { q.exp - 1 } else { q.exp };
            let gap = b.mul_pow2(gap_exp); // b·gap, exact
            if r.cmp_abs(&gap) != Ordering::Less {
                q = y.fma(&r, &q)?; // not faithful: Newton correction
                continue;
            }
            let half = b.mul_pow2(gap_exp - 1);
            if r.cmp_abs(&half) == Ordering::Greater {
                q = q.step(up, gap_exp)?;
            }
            break;
        }
        Ok(q)
    }

    /// `√self`, correctly rounded (nearest); `√(−0) = −0`, NaN for negative numbers.
    pub fn sqrt(&self) -> Result<MpFloat> {
        let bs = &self.basis;
        match self.class {
            Class::Nan => return Ok(MpFloat::nan(bs)),
            Class::Infinite => {
                return Ok(if self.neg {
                    MpFloat::nan(bs)
                } else {
                    self.clone()
                });
            }
            Class::Finite => {}
        }
        if self.is_zero() {
            return Ok(self.clone());
        }
        if self.neg {
            return Ok(MpFloat::nan(bs));
        }
        // As in `div`: take the root of a copy scaled near exponent 0 (by an even power of two,
        // so the root scales exactly by half of it), then scale back once.
        let k = self.exp & !1;
        let s = Self::sqrt_positive(&self.mul_pow2(-k))?;
        Ok(s.mul_pow2(k / 2))
    }

    /// `√a` for a finite, positive, non-zero `a` whose exponent is small.
    fn sqrt_positive(a: &MpFloat) -> Result<MpFloat> {
        let t = a.rsqrt_approx()?;
        let mut s = a.mul(&t)?;
        for _ in 0..8 {
            let r = s.neg().fma(&s, a)?; // a − s², exact when s is faithful
            if r.is_zero() {
                break;
            }
            let up = !r.neg;
            let pow2_down = !up && s.significand_is_pow2();
            let gap_exp = if pow2_down { s.exp - 1 } else { s.exp };
            // a − (s ± g)² = r ∓ g(2s ± g): faithful iff |r| < g(2s ± g) on v's side.
            if cmp_r_vs_offset(&r, &s, gap_exp, 0, up) != Ordering::Less {
                let half_t = t.mul_pow2(-1);
                s = half_t.fma(&r, &s)?; // s + r/(2s)
                continue;
            }
            if cmp_r_vs_offset(&r, &s, gap_exp, 1, up) == Ordering::Greater {
                s = s.step(up, gap_exp)?;
            }
            break;
        }
        Ok(s)
    }

    /// `self ± 2^e` (exact: the neighbour in the direction `up` of magnitude).
    fn step(&self, up: bool, e: i64) -> Result<MpFloat> {
        let one = MpFloat::from_u64_exp(&self.basis, !up, 1, e);
        self.add(&one)
    }

    /// `≈ 1/self` for finite nonzero `self`, to about `p + 4` bits (Newton from an `f64` seed).
    fn recip_approx(&self) -> Result<MpFloat> {
        let (f, e) = self.approx_f64_exp();
        let bs = &self.basis;
        let mut y = MpFloat::from_f64(bs, 1.0 / f).mul_pow2(-e);
        let one = MpFloat::from_f64(bs, 1.0);
        let mut bits = 36u32; // seed accuracy: enclosure width 2^-38 plus f64 rounding
        while bits < self.basis.precision + 4 {
            let err = self.neg().fma(&y, &one)?; // 1 − b·y
            y = y.fma(&err, &y)?;
            bits *= 2;
        }
        Ok(y)
    }

    /// `≈ 1/√self` for finite positive `self`.
    fn rsqrt_approx(&self) -> Result<MpFloat> {
        let (f, e) = self.approx_f64_exp();
        let bs = &self.basis;
        // self ≈ f·2^e; make the exponent even so the seed is exact in exponent.
        let (f, e) = if e % 2 != 0 { (f * 2.0, e - 1) } else { (f, e) };
        let mut t = MpFloat::from_f64(bs, 1.0 / f.sqrt()).mul_pow2(-e / 2);
        let one = MpFloat::from_f64(bs, 1.0);
        let mut bits = 36u32;
        while bits < self.basis.precision + 4 {
            let t2 = t.mul(&t)?;
            let err = self.neg().fma(&t2, &one)?; // 1 − a t²
            t = t.mul_pow2(-1).fma(&err, &t)?; // t + t·err/2
            bits *= 2;
        }
        Ok(t)
    }

    /// `(f, e)` with `|self| ≈ f·2^e` (`f ∈ [1/2, 1)`), from the interval evaluation.
    fn approx_f64_exp(&self) -> (f64, i64) {
        let x = self.eval[0].mul_rd(self.basis.m_ext[0]);
        (x.f, x.e + self.exp)
    }
}

/// Compares `|r|` with `g·(2s ± g)` where `g = 2^ge` (sign `+` when `up`), or with half of
/// the corresponding midpoint offset `h(2s ± h)`, `h = g/2`, when `half == 1`. All operands
/// are exact: `s = S·2^E`, so the offset is an integer `K = S·2^(E−gh+1) ± 1` times `2^(2gh)`.
fn cmp_r_vs_offset(r: &MpFloat, s: &MpFloat, ge: i64, half: i64, up: bool) -> Ordering {
    let b = &*s.basis;
    let n = b.len();
    let gh = ge - half;
    let j = (s.exp - gh + 1) as u64; // ≥ 1: g ≤ ulp(s)
    let mut k = s.res.clone();
    scale_up(b, &mut k, j);
    for i in 0..n {
        k[i] = if up {
            add_mod(k[i], 1, b.m[i])
        } else {
            sub_mod(k[i], 1, b.m[i])
        };
    }
    let kbits_max = b.precision as u64 + j + 1;
    cmp_int_scaled(b, &r.res, b.precision as u64, r.exp, &k, kbits_max, 2 * gh)
}

/// Compares `X·2^ex` with `Y·2^ey` exactly, where `X` has exactly `xbits` bits and
/// `Y < 2^ymax` (`ymax ≤ p + 66`): bit lengths decide different binades, otherwise the aligned
/// difference (a few bits wide) is signed exactly.
fn cmp_int_scaled(
    b: &Basis,
    x: &[u32],
    xbits: u64,
    ex: i64,
    y: &[u32],
    ymax: u64,
    ey: i64,
) -> Ordering {
    let Some(ev) = eval_unsigned(b, y, (b.log2m as u64 - 1).saturating_sub(ymax)) else {
        return Ordering::Greater;
    };
    let ybits = bit_length(b, y, &ev, ymax);
    let (tx, ty) = (ex + xbits as i64, ey + ybits as i64);
    if tx != ty {
        return tx.cmp(&ty);
    }
    let e0 = ex.min(ey);
    let (mut xs, mut ys) = (x.to_vec(), y.to_vec());
    scale_up(b, &mut xs, (ex - e0) as u64);
    scale_up(b, &mut ys, (ey - e0) as u64);
    let d: Vec<u32> = (0..b.len())
        .map(|i| sub_mod(xs[i], ys[i], b.m[i]))
        .collect();
    sign_of(b, &d, (tx - e0 - 1) as u64)
}
