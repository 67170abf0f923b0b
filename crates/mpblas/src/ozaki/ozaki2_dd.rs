//! Ozaki scheme II to double-double: the product of two `f64` matrices without DGEMM's rounding,
//! or of two double-double matrices, each entry of `A·B` accurate to about `2^-100` relative to
//! `(|A||B|)_ij`, returned as [`Dd`]. This is the CPU reference; `ozaki::gpu::ozaki2_gemm_dd`
//! (feature `cuda`) returns its bits on INT8 tensor cores (H100: 32 TFLOP/s at n = 8192 for
//! `f64` operands, 26 for double-double ones, against 1.97 T of the native double-double GEMM).
//!
//! Double-double operands ([`DdSchemeInput`] for [`Dd`], fast mode only): each row and column
//! is scaled from its leading words (one bit less per side), each element's integer is
//! `round(2^e·hi) + round(2^e·lo)` (residues added), the guard's bound counts the two roundings,
//! and its fallback entries are compensated dot products of the double-doubles themselves.
//!
//! The stages are scheme II's ([`ozaki2_gemm`](super::ozaki2_gemm)) with more moduli ([`OZAKI2_DD_MODULI`], default
//! [`OZAKI2_DD_DEFAULT_MODULI`] = 30, `P ≈ 2^227`): the fast mode then scales each row and
//! column to integers of about 113 bits, so every input within `2^-60` of its row's or
//! column's 2-norm is kept exactly (an `f64` times a power of two is an integer there; only
//! smaller ones are rounded), the INT8 products are exact, and the reconstruction gives the
//! integer product as a double-double. The residues of integers beyond `2^53` are exact
//! (`ozaki2::sym_residue`), and the CRT constants stay exact up to 31 moduli
//! (`ozaki2::CRT_WORD_BITS`).
//!
//! **Guarantee** (the default [`OzakiGuard::Componentwise`]): every entry `s` of the product has
//! `|s − (AB)_ij| ≤ g·(|A||B|)_ij + 2k·η` with `g =`
//! [`compensated_dot_gamma`]`(k)` (about `1160u² + 3u²·k/32`, `u = 2^-53`; `η` the
//! double-double underflow term), for every finite input. Each entry's scheme bound
//! (`ozaki2::guard_bound`) is tested against `g·(|s| − bound)` and, failing that, against `g` times
//! two lower bounds of `(|A||B|)_ij`: one INT8 product of 6-bit floors
//! `⌊|a_il|·2^(6 − ⌈log2 max_l|a_il|⌉)⌋` and the same of `B` (exact, one more INT8 GEMM; it keeps
//! every term within `2^-6` of its row's and column's largest, which the first test's cancelling
//! entries need at large `k`: with the sample alone, 0.7% of the entries of an 8192³ product of
//! random data spread over `2^±8` were recomputed), then the first 64 products; an entry no test
//! certifies (its row or column spans more exponents than the moduli carry, or it cancels) is
//! recomputed as the compensated double-double dot product of its row and column
//! ([`gemm_dd_compensated`](crate::blas::gemm_dd_compensated)'s, whose error that bound is),
//! and so are the entries of rows and columns holding NaN or ±∞ (IEEE results). The update
//! `α·s + β·c` is in double-double (`α·s` then `+ β·c`, accurate addition). The report counts
//! the recomputed entries.

use super::gemm_cpu::{I8_MAX_K, gemm_i8_i32_part};
use super::ozaki2::{
    GuardFactors, Ozaki2Plan, certifies_against, guard_bound, guard_rejects_against, guard_sample,
    guard_stats, magnitude_exponent, magnitude_floors, product_scaled,
};
use super::split::{ceil_log2, ldexp};
use super::{Ozaki2Mode, Ozaki2Params, Ozaki2Report, OzakiGuard, Recomputed, take_non_finite};
use crate::blas::bounds::compensated_dot_gamma;
use crate::blas::level3::CompensatedDot;
use crate::dd::Dd;
use crate::error::{Error, Result};
use crate::view::{MatMut, MatRef, check_product_shapes};

/// Smallest and largest moduli counts of the double-double scheme.
pub const OZAKI2_DD_MODULI: (usize, usize) = (8, 31);

/// Default moduli of the double-double scheme: 30 (`P ≈ 2^227`, integers of about 113 bits
/// per row and column at `k = 8192`).
pub const OZAKI2_DD_DEFAULT_MODULI: usize = 30;

/// The default parameters of [`ozaki2_gemm_dd`]: [`OZAKI2_DD_DEFAULT_MODULI`] moduli, fast
/// scaling, the componentwise guard.
pub fn ozaki2_dd_params() -> Ozaki2Params {
    Ozaki2Params {
        moduli: OZAKI2_DD_DEFAULT_MODULI,
        mode: Ozaki2Mode::Fast,
        guard: OzakiGuard::Componentwise,
    }
}

/// Whether entry bound `e` (of an entry of magnitude `s_abs`) is **not** certified against
/// `g·(|A||B|)_ij + 2k·η`, `g = compensated_dot_gamma(k)`: certified by `lower ≤ (|A||B|)_ij`
/// (the INT8 lower bound of the module docs, `−∞` when there is none), else
/// `ozaki2::guard_rejects`'s tests with the double-double target. NaN or infinite values never
/// certify.
pub fn guard_rejects_dd(
    k: usize,
    e: f64,
    s_abs: f64,
    lower: f64,
    sample: impl FnOnce(usize) -> f64,
) -> bool {
    let (g, tiny) = (compensated_dot_gamma(k), dd_guard_tiny(k));
    if e.is_finite() && s_abs.is_finite() && certifies_against(g, tiny, e, lower) {
        return false;
    }
    guard_rejects_against(k, g, tiny, e, s_abs, sample)
}

/// Largest `k` of [`GuardLower`] (`64²·k < 2^31`: one exact INT32 GEMM on the GPU); beyond
/// it the guard has the sampled lower bound only.
pub(crate) const GUARD_LOWER_MAX_K: usize = 524_287;

/// The guard's INT8 lower bound of `(|A||B|)_ij`: `Z = F_A·F_Bᵀ` for the 6-bit floors
/// (`ozaki2::magnitude_floors`) of the rows of `A` and the columns of `B`, exact, so that
/// `2^-(σ_i + τ_j)·Z_ij ≤ (|A||B|)_ij` with `σ_i = ozaki2::magnitude_exponent(μ_i)`.
struct GuardLower {
    z: Vec<i64>,
    sa: Vec<i32>,
    sb: Vec<i32>,
    m: usize,
}

impl GuardLower {
    /// The bound for packed rows `ap` (`m` of length `k`) and columns `bp` (`n`) with maxima
    /// `mua`, `mub`; `None` for `k >` [`GUARD_LOWER_MAX_K`].
    fn new(
        (ap, mua): (&[f64], &[f64]),
        (bp, mub): (&[f64], &[f64]),
        (m, n, k): (usize, usize, usize),
    ) -> Result<Option<GuardLower>> {
        if k > GUARD_LOWER_MAX_K {
            return Ok(None);
        }
        let fa = magnitude_floors(ap, k, m);
        let fb = magnitude_floors(bp, k, n);
        let mut z = vec![0i64; m * n];
        let mut part = vec![0i32; m * n];
        let mut l0 = 0;
        while l0 < k {
            let l1 = (l0 + I8_MAX_K).min(k);
            gemm_i8_i32_part(m, n, k, l0, l1, &fa, &fb, &mut part)?;
            z.iter_mut()
                .zip(&part)
                .for_each(|(s, &p)| *s += i64::from(p));
            l0 = l1;
        }
        let exps = |mu: &[f64]| -> Vec<i32> {
            mu.iter()
                .map(|&u| if u > 0.0 { magnitude_exponent(u) } else { 0 })
                .collect()
        };
        Ok(Some(GuardLower {
            z,
            sa: exps(mua),
            sb: exps(mub),
            m,
        }))
    }

    /// `2^-(σ_i + τ_j)·Z_ij` less the smallest subnormal (the scaling is exact unless it
    /// underflows, where it rounds by at most half that); for double-double operands
    /// (`words = 2`, floors of the leading words, each within `1 + 2u` of `|hi + lo|`) times
    /// `1 − 2^-50`.
    fn at(&self, i: usize, j: usize, words: usize) -> f64 {
        let z =
            ldexp(self.z[i + j * self.m] as f64, -(self.sa[i] + self.sb[j])) - f64::from_bits(1);
        if words == 2 {
            z * (1.0 - (-50f64).exp2())
        } else {
            z
        }
    }
}

/// The absolute term of the double-double guard's target: `2k·η`, `η = 16·2^-1074` (the
/// double-double underflow term).
pub(crate) fn dd_guard_tiny(k: usize) -> f64 {
    2.0 * k as f64 * f64::from_bits(16)
}

/// The operand formats of the double-double scheme: `f64` and [`Dd`] (sealed). A double-double
/// operand's integer is `round(2^e·hi) + round(2^e·lo)` with the scaling of its leading words.
pub trait DdSchemeInput: Copy + Send + Sync + sealed::Sealed + 'static {
    /// Words per element: 1 or 2.
    const WORDS: usize;
    /// The leading word.
    fn hi(self) -> f64;
    /// The second word (0 for `f64`).
    fn lo(self) -> f64;
    /// The value as a double-double (`Dd::from` for `f64`).
    fn to_dd(self) -> Dd;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f64 {}
    impl Sealed for crate::dd::Dd {}
}

impl DdSchemeInput for f64 {
    const WORDS: usize = 1;
    fn hi(self) -> f64 {
        self
    }
    fn lo(self) -> f64 {
        0.0
    }
    fn to_dd(self) -> Dd {
        Dd::from(self)
    }
}

impl DdSchemeInput for Dd {
    const WORDS: usize = 2;
    fn hi(self) -> f64 {
        self.hi
    }
    fn lo(self) -> f64 {
        self.lo
    }
    fn to_dd(self) -> Dd {
        self
    }
}

/// The guard's factors for double-double operands: each integer carries two roundings (at most
/// one unit instead of half), so `p` doubles, and the 1-norm of `hi + lo` is within `1 + u` of
/// the leading words' (`n1·(1 + 2^-50)` rounds to at least `n1·(1 + 2^-51)`).
pub(crate) fn widen_for_dd_inputs(f: GuardFactors) -> GuardFactors {
    GuardFactors {
        p: f.p * 2.0,
        n1: f.n1 * (1.0 + (-50f64).exp2()),
    }
}

/// The compensated double-double dot product of row `i` of `A` and column `j` of `B`; if it is
/// not finite although every term is (a partial sum overflowed), the same on the row scaled by
/// `2^-σa` and the column by `2^-σb` (exact; `σ` from the leading words' maxima), scaled back.
fn fallback_entry<T: DdSchemeInput>(
    a: MatRef<'_, T>,
    b: MatRef<'_, T>,
    (i, j): (usize, usize),
) -> Dd {
    let k = a.cols();
    let dot = |sa: i32, sb: i32| {
        let mut acc = CompensatedDot::new();
        for l in 0..k {
            let x = a.at(i, l).to_dd().ldexp(-sa);
            let y = b.at(l, j).to_dd().ldexp(-sb);
            acc.step(x, y);
            if CompensatedDot::ends_block(l, k) {
                acc.flush();
            }
        }
        acc.value()
    };
    let s = dot(0, 0);
    let finite = |x: &T| x.hi().is_finite() && x.lo().is_finite();
    let finite_terms = (0..k).all(|l| finite(a.at(i, l)) && finite(b.at(l, j)));
    if s.hi.is_finite() || !finite_terms {
        return s;
    }
    let max = |v: &mut dyn Iterator<Item = f64>| v.fold(0.0f64, |m, x| m.max(x.abs()));
    let sa = ceil_log2(max(&mut (0..k).map(|l| a.at(i, l).hi())).max(f64::MIN_POSITIVE));
    let sb = ceil_log2(max(&mut (0..k).map(|l| b.at(l, j).hi())).max(f64::MIN_POSITIVE));
    dot(sa, sb).ldexp(sa + sb)
}

/// The leading and (for double-double operands) second words of `op(A)`'s rows, packed as
/// `pack_rows`; the vectors holding a non-finite word zeroed in both, and their marks.
pub(crate) fn pack_words<T: DdSchemeInput>(
    a: MatRef<'_, T>,
) -> (Vec<f64>, Option<Vec<f64>>, Vec<bool>) {
    let (count, len) = (a.rows(), a.cols());
    let word = |w: fn(T) -> f64| -> Vec<f64> {
        let mut out = Vec::with_capacity(count * len);
        for i in 0..count {
            out.extend((0..len).map(|l| w(*a.at(i, l))));
        }
        out
    };
    let mut hi = word(T::hi);
    if T::WORDS == 1 {
        let bad = take_non_finite(&mut hi, len, count);
        return (hi, None, bad);
    }
    let mut lo = word(T::lo);
    let bad_hi = take_non_finite(&mut hi, len, count);
    let bad_lo = take_non_finite(&mut lo, len, count);
    let bad: Vec<bool> = bad_hi.iter().zip(&bad_lo).map(|(x, y)| x | y).collect();
    for (v, _) in bad.iter().enumerate().filter(|(_, b)| **b) {
        hi[v * len..(v + 1) * len].fill(0.0);
        lo[v * len..(v + 1) * len].fill(0.0);
    }
    (hi, Some(lo), bad)
}

/// The plan of the double-double scheme for `T` operands: the moduli within
/// [`OZAKI2_DD_MODULI`]; for double-double operands the fast mode only, one bit less per side
/// (the second words add up to `2^e·‖lo‖₂ + √k/2` to each integer vector's 2-norm).
pub(crate) fn dd_plan<T: DdSchemeInput>(k: usize, params: &Ozaki2Params) -> Result<Ozaki2Plan> {
    let crt = super::ozaki2::Crt::within(params.moduli, OZAKI2_DD_MODULI)?;
    let mut plan = Ozaki2Plan::for_crt(k, params.mode, crt)?;
    if T::WORDS == 2 {
        if params.mode != Ozaki2Mode::Fast {
            return Err(Error::OutOfRange {
                what: "ozaki2 mode for double-double operands (only Fast, 0, is offered)",
                got: 1,
                min: 0,
                max: 0,
            });
        }
        plan.x -= 1;
    }
    Ok(plan)
}

/// `α·s + β·c` in double-double (`c` not read when `β = 0`).
fn update(s: Dd, alpha: f64, beta: f64, c: Dd) -> Dd {
    let t = s.mul_f64(alpha);
    if beta == 0.0 {
        t
    } else {
        t.add_accurate(c.mul_f64(beta))
    }
}

/// `C ← α·A·B + β·C` with `A` (`m × k`) and `B` (`k × n`) in `f64` or [`Dd`] and `C` in
/// double-double:
/// the product by scheme II with [`OZAKI2_DD_DEFAULT_MODULI`] moduli (pass
/// [`ozaki2_dd_params`], or another count in [`OZAKI2_DD_MODULI`]), each entry within
/// `compensated_dot_gamma(k)·(|A||B|)_ij` under the default guard (see the [module
/// docs](self)). BLAS conventions: `m = 0` or `n = 0`, or (`α = 0` or `k = 0`) with `β = 1`,
/// returns at once; `α = 0` or `k = 0` gives `C ← β·C` (`+0` for `β = 0`); `β = 0` does not
/// read `C`.
///
/// ```
/// use mpblas::ozaki::{ozaki2_dd_params, ozaki2_gemm_dd};
/// use mpblas::view::{MatMut, MatRef};
/// use mpblas::Dd;
/// // [1e20, 1] · [1e-20, 1e20]ᵀ = 1 + 1e20 (DGEMM: 1e20).
/// let (a, b) = ([1e20, 1.0], [1e-20, 1e20]);
/// let mut c = [Dd::ZERO];
/// let a = MatRef::col_major(&a, 1, 2, 1).unwrap();
/// let b = MatRef::col_major(&b, 2, 1, 2).unwrap();
/// let c_view = MatMut::col_major(&mut c, 1, 1, 1).unwrap();
/// ozaki2_gemm_dd(1.0, a, b, 0.0, c_view, &ozaki2_dd_params()).unwrap();
/// let exact = Dd::from(1e20) * Dd::from(1e-20) + Dd::from(1e20);
/// assert!((c[0] - exact).abs().hi <= 1e-10);
/// ```
///
/// # Errors
/// [`Error::LengthMismatch`] for shapes that do not agree;
/// [`Error::OutOfRange`] for a moduli count outside
/// [`OZAKI2_DD_MODULI`], a `k` too large for it, or the accurate mode with double-double
/// operands.
pub fn ozaki2_gemm_dd<T: DdSchemeInput>(
    alpha: f64,
    a: MatRef<'_, T>,
    b: MatRef<'_, T>,
    beta: f64,
    mut c: MatMut<'_, Dd>,
    params: &Ozaki2Params,
) -> Result<Ozaki2Report> {
    let (m, n, k) = check_product_shapes(&a.layout(), &b.layout(), &c.layout())?;
    let plan = dd_plan::<T>(k, params)?;
    let mut report = Ozaki2Report::started(params);
    if m == 0 || n == 0 {
        return Ok(report);
    }
    if alpha == 0.0 || k == 0 {
        if beta != 1.0 {
            for j in 0..n {
                for i in 0..m {
                    let cij = c.at_mut(i, j);
                    *cij = if beta == 0.0 {
                        Dd::ZERO
                    } else {
                        cij.mul_f64(beta)
                    };
                }
            }
        }
        return Ok(report);
    }
    let (ap, alo, bad_a) = pack_words(a);
    let (bp, blo, bad_b) = pack_words(b.t());
    let (s, sc) = product_scaled(m, n, (&ap, alo.as_deref()), (&bp, blo.as_deref()), &plan)?;
    let guarded = params.guard == OzakiGuard::Componentwise;
    let stats = |x: &[f64], count: usize, exps: &[i32]| -> Vec<(f64, GuardFactors)> {
        let mut st = guard_stats(x, k, count, exps);
        if T::WORDS == 2 {
            st.iter_mut().for_each(|s| s.1 = widen_for_dd_inputs(s.1));
        }
        st
    };
    let (ga, gb) = if guarded {
        (stats(&ap, m, &sc.ea), stats(&bp, n, &sc.eb))
    } else {
        (Vec::new(), Vec::new())
    };
    let lower = if guarded {
        let mua: Vec<f64> = ga.iter().map(|g| g.0).collect();
        let mub: Vec<f64> = gb.iter().map(|g| g.0).collect();
        GuardLower::new((&ap, &mua), (&bp, &mub), (m, n, k))?
    } else {
        None
    };
    let (mut recomputed, mut non_finite) = (0, 0);
    let mut touched = Recomputed::new(m, n);
    for j in 0..n {
        for i in 0..m {
            let sij = s[i + j * m];
            let value = if bad_a[i] || bad_b[j] {
                non_finite += 1;
                touched.mark((i, j));
                fallback_entry(a, b, (i, j))
            } else if guarded && {
                let e = guard_bound(k, sij, ga[i].1, gb[j].1);
                let sample = |terms| guard_sample(|l| a.at(i, l).hi(), |l| b.at(l, j).hi(), terms);
                let low = lower
                    .as_ref()
                    .map_or(f64::NEG_INFINITY, |l| l.at(i, j, T::WORDS));
                guard_rejects_dd(k, e, sij.hi.abs(), low, sample)
            } {
                recomputed += 1;
                touched.mark((i, j));
                fallback_entry(a, b, (i, j))
            } else {
                sij
            };
            let cij = c.at_mut(i, j);
            *cij = update(value, alpha, beta, *cij);
        }
    }
    report.entries = m * n;
    report.guard_recomputed = recomputed;
    report.non_finite_recomputed = non_finite;
    (report.rows_recomputed, report.cols_recomputed) = touched.counts();
    Ok(report)
}
