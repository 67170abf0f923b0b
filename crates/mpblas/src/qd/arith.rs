//! Quad-double renormalisation, + − × ÷ √, operator impls, ordering and conversions.
//!
//! As for [`Dd`](crate::Dd), each core routine computes the generic case branch-free and then
//! checks the result once ([`finish`]): if its leading word is not a finite non-zero number (an
//! input was ±Inf/NaN/±0, the result overflowed or cancelled exactly), the result is recomputed
//! from the leading words with plain `f64` semantics, so special values behave exactly as `f64`
//! users expect (`-0 + -0 = -0`, `x − x = +0`, `1/0 = Inf`, `Inf − Inf = NaN`, overflow to ±Inf).
//!
//! "HLB" is Hida, Li, Bailey, "Algorithms for quad-double precision floating point arithmetic",
//! ARITH 15, 2001. The bounds quoted are the constants of [`bounds`](super::bounds).

use super::Qd;
use crate::dd::Dd;
use crate::eft::{fast_two_sum, three_sum, three_sum2, two_prod, two_sum};
use std::cmp::Ordering;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

// ---- renormalisation and the special-value epilogue -----------------------------------------

/// Renormalisation of five words into a normalised quad-double (HLB Section 3, after Priest).
///
/// The bottom-up pass uses TwoSum rather than HLB's Quick-Two-Sum, so it is exact for inputs in
/// any magnitude order (the callers feed roughly ordered, overlapping words). The top-down pass
/// then emits the non-zero leading parts; once three are out, the rest is added into the fourth
/// word in `f64` (its rounding, at most about `ulp(c3)` ≤ `u·|c0|`, is the only error), and a
/// last Fast-Two-Sum pass from the top restores the invariant where an emitted word reached
/// half an ulp of the one above it.
/// The inputs must be finite (checked afterwards by [`finish`]).
#[inline(always)]
pub(super) fn renorm5(x0: f64, x1: f64, x2: f64, x3: f64, x4: f64) -> [f64; 4] {
    let (s, t4) = two_sum(x3, x4);
    let (s, t3) = two_sum(x2, s);
    let (s, t2) = two_sum(x1, s);
    let (t0, t1) = two_sum(x0, s);
    let t = [t0, t1, t2, t3, t4];

    let mut out = [0.0; 4];
    let mut k = 0;
    let mut s = t0;
    let mut i = 1;
    while i < 5 {
        let (hi, lo) = two_sum(s, t[i]);
        i += 1;
        if lo != 0.0 {
            out[k] = hi;
            k += 1;
            s = lo;
            if k == 3 {
                break;
            }
        } else {
            s = hi;
        }
    }
    // Fold whatever is left into the last word.
    while i < 5 {
        s += t[i];
        i += 1;
    }
    out[k] = s;
    // A word emitted above can still reach half an ulp of the one before it (at a binade
    // boundary, or after the f64 additions into the last word); one Fast-Two-Sum pass from the
    // top restores `c[i] == fl(c[i] + c[i+1])` without changing the sum.
    let (a, b) = fast_two_sum(out[0], out[1]);
    let (b, c) = fast_two_sum(b, out[2]);
    let (c, d) = fast_two_sum(c, out[3]);
    [a, b, c, d]
}

/// The special-value result of an operation whose `f64` analogue on the leading words is
/// `lead`: ±0, ±Inf and NaN are returned as such; a finite non-zero `lead` means either an exact
/// cancellation (computed leading word 0: IEEE gives +0 for `x − x`) or an overflow of the
/// quad-double computation that the leading-word operation escaped (the true result is ±Inf).
#[inline(never)]
#[cold]
fn special(lead: f64, computed: f64) -> Qd {
    if lead == 0.0 || !lead.is_finite() {
        Qd::from_f64(lead)
    } else if computed == 0.0 {
        Qd::ZERO
    } else {
        Qd::from_f64(f64::INFINITY.copysign(lead))
    }
}

/// True if `c` is a finite result with a non-zero leading word (the generic case).
#[inline(always)]
fn generic_ok(c: &[f64; 4]) -> bool {
    c[0] != 0.0 && c[0].is_finite() && (c[1] + c[2] + c[3]).is_finite()
}

/// Finish an operation: keep the generic result if it is finite with a non-zero leading word.
#[inline(always)]
pub(super) fn finish(c: [f64; 4], lead: impl FnOnce() -> f64) -> Qd {
    if generic_ok(&c) {
        Qd { c }
    } else {
        special(lead(), c[0])
    }
}

/// As [`finish`], for operations whose intermediates can overflow although the result does
/// not (operands within a rounding of `f64::MAX`): `half` recomputes the result at half scale
/// (exact: operands scaled by 1/2), which is then doubled back.
#[inline(always)]
fn finish_or_rescale(
    c: [f64; 4],
    lead: impl FnOnce() -> f64,
    half: impl FnOnce() -> [f64; 4],
) -> Qd {
    if generic_ok(&c) {
        Qd { c }
    } else {
        rescale(lead(), c[0], half)
    }
}

#[inline(never)]
#[cold]
fn rescale(lead: f64, computed: f64, half: impl FnOnce() -> [f64; 4]) -> Qd {
    // Also tried when `lead` overflowed: `a0·b0` can round above `f64::MAX` while the
    // quad-double result does not. Non-finite operands fail the half-scale check again.
    if lead != 0.0 && !lead.is_nan() && computed != 0.0 {
        let q = Qd { c: half() }.ldexp(1);
        if generic_ok(&q.c) {
            return q;
        }
    }
    special(lead, computed)
}

/// `Qd::new`: the exact sum of four finite words, renormalised.
#[inline]
pub(super) fn from_sum(c0: f64, c1: f64, c2: f64, c3: f64) -> Qd {
    let c = renorm5(c0, c1, c2, c3, 0.0);
    finish(c, || c0 + c1 + c2 + c3)
}

/// HLB's Double-Accumulate: adds `x` to the double-length accumulator `u + v` exactly and
/// returns `(s, u, v)` with `s + u + v` the new sum; `s` is non-zero only when the sum no longer
/// fits two words, and is then a finished leading word for the caller to emit.
#[inline(always)]
fn double_accumulate(u: f64, v: f64, x: f64) -> (f64, f64, f64) {
    let (s, v) = two_sum(v, x);
    let (s, u) = two_sum(u, s);
    match (u == 0.0, v == 0.0) {
        (true, true) => (0.0, 0.0, s),
        (true, false) => (0.0, s, v),
        (false, true) => (0.0, s, u),
        (false, false) => (s, u, v),
    }
}

impl Qd {
    // ---- addition ----------------------------------------------------------------------------

    /// `self + b`, IEEE-style (HLB Section 4.3, accurate addition): where the operands cancel
    /// by more than `2^-40`, the eight words are merged by decreasing magnitude and summed
    /// exactly with Double-Accumulate until four words are out, only the remaining tail
    /// rounded; elsewhere HLB's sloppy merge, which is then as accurate (see `add_ieee_raw`).
    /// Relative error ≤ [`bounds::ADD`](super::bounds::ADD)·u, also under cancellation. This is
    /// what `+` uses.
    #[inline]
    pub fn add_ieee(self, b: Qd) -> Qd {
        finish_or_rescale(
            add_ieee_raw(&self.c, &b.c),
            || self.c[0] + b.c[0],
            || add_ieee_raw(&half(&self.c), &half(&b.c)),
        )
    }

    /// `self + b`, sloppy (HLB's quad-double + quad-double: pairwise TwoSums, ThreeSum
    /// carries, one renormalisation), several times cheaper than [`Qd::add_ieee`]. Its bound
    /// is **normwise**: `|r − (a + b)| ≤` [`bounds::ADD_SLOPPY`](super::bounds::ADD_SLOPPY)`·u·(|a| + |b|)`,
    /// which is all a summation's `γ_n·Σ|t_i|` bound needs (the BLAS reductions of `Qd` use
    /// it), but under cancellation the result can lose its low words; with operands of one
    /// sign it is also relative ([`bounds::ADD_SLOPPY_SAME_SIGN`](super::bounds::ADD_SLOPPY_SAME_SIGN)).
    #[inline]
    pub fn add_sloppy(self, b: Qd) -> Qd {
        let (a, bb) = (&self.c, &b.c);
        finish_or_rescale(
            sloppy_merge(a, bb, 0.0),
            || a[0] + bb[0],
            || add_ieee_raw(&half(a), &half(bb)),
        )
    }

    /// `self + a·b` in one step: the product's words before renormalisation (the partial
    /// products of [`Qd::mul_accurate`], exact to order 3) merged into `self` by the sloppy
    /// addition, and one renormalisation. Normwise bound
    /// `|r − (self + a·b)| ≤` [`bounds::ADD_PRODUCT_SLOPPY`](super::bounds::ADD_PRODUCT_SLOPPY)`·u·(|self| + |a·b|)`:
    /// the step of the `Qd` dot products, norms and `axpy`. Where the generic result is not
    /// a finite non-zero number (special values, overflow, exact cancellation) it is
    /// `self + a × b` with the IEEE-style operations, so specials behave as IEEE.
    #[inline]
    pub fn add_product_sloppy(self, a: Qd, b: Qd) -> Qd {
        crate::eft::with_fma(
            #[inline(always)]
            || {
                let p = mul_terms(&a.c, &b.c);
                let c = sloppy_merge(&self.c, &[p[0], p[1], p[2], p[3]], p[4]);
                if generic_ok(&c) {
                    Qd { c }
                } else {
                    self.add_ieee(a.mul_accurate(b))
                }
            },
        )
    }

    /// `self + a²` in one step: [`Qd::add_product_sloppy`] for `b = a` with the square's
    /// partial products formed once (about 70 operations instead of 145 before the merge),
    /// the step of the `Qd` norms. Normwise bound
    /// `|r − (self + a²)| ≤` [`bounds::ADD_SQUARE_SLOPPY`](super::bounds::ADD_SQUARE_SLOPPY)`·u·(|self| + a²)`.
    /// Outside the generic case it is `self + a × a` with the IEEE-style operations, as
    /// [`Qd::add_product_sloppy`].
    #[inline]
    pub fn add_square_sloppy(self, a: Qd) -> Qd {
        crate::eft::with_fma(
            #[inline(always)]
            || {
                let p = sqr_terms(&a.c);
                let c = sloppy_merge(&self.c, &[p[0], p[1], p[2], p[3]], p[4]);
                if generic_ok(&c) {
                    Qd { c }
                } else {
                    self.add_ieee(a.mul_accurate(a))
                }
            },
        )
    }

    /// The sum of one lane's `m` terms `term(0), …, term(m − 1)` of the blocked summation
    /// order, accumulated in a [`LaneSum`] (one renormalisation per lane instead of one per
    /// term). `None` where the result does not come out a finite, non-zero, normalised number
    /// ([`LaneSum::finish`]: special values, overflow, deep cancellation): the caller then
    /// steps the terms one by one with [`Qd::add_sloppy`], whose fallbacks give IEEE
    /// behaviour.
    #[inline]
    pub(crate) fn lane_sum(m: usize, term: impl Fn(usize) -> Qd) -> Option<Qd> {
        let mut lane = LaneSum::EMPTY;
        for j in 0..m {
            lane.add(&term(j).c);
        }
        lane.finish()
    }

    /// `Σ_j a_j·b_j` over one lane's `m` pairs `term(j) = (a_j, b_j)`: [`Qd::lane_sum`] of the
    /// products' words before renormalisation (those of [`Qd::add_product_sloppy`]). `None`
    /// as [`Qd::lane_sum`] (the caller then steps with [`Qd::add_product_sloppy`]).
    #[inline]
    pub(crate) fn lane_dot(m: usize, term: impl Fn(usize) -> (Qd, Qd)) -> Option<Qd> {
        LaneSum::of_terms(m, |j| {
            let (a, b) = term(j);
            mul_terms(&a.c, &b.c)
        })
    }

    /// `Σ_j a_j²` over one lane's `m` terms: [`Qd::lane_sum`] of the squares' words before
    /// renormalisation (those of [`Qd::add_square_sloppy`]). `None` as [`Qd::lane_sum`].
    #[inline]
    pub(crate) fn lane_squares(m: usize, term: impl Fn(usize) -> Qd) -> Option<Qd> {
        LaneSum::of_terms(m, |j| sqr_terms(&term(j).c))
    }

    /// `self + b` for an `f64` `b`: TwoSum cascade through the four words (exact), then
    /// renormalisation; relative error ≤ [`bounds::ADD_F64`](super::bounds::ADD_F64)·u.
    #[inline]
    pub fn add_f64(self, b: f64) -> Qd {
        finish_or_rescale(
            add_f64_raw(&self.c, b),
            || self.c[0] + b,
            || add_f64_raw(&half(&self.c), 0.5 * b),
        )
    }

    /// `self + b` for a double-double `b` (the IEEE-style addition, bound
    /// [`bounds::ADD`](super::bounds::ADD)·u).
    #[inline]
    pub fn add_dd(self, b: Dd) -> Qd {
        self.add_ieee(Qd::from(b))
    }

    // ---- multiplication ----------------------------------------------------------------------

    /// `self × b`, accurate (HLB Section 4.4, with all terms of order up to `u` kept): the
    /// partial products `a_i·b_j` with `i + j ≤ 3` are formed exactly by TwoProd, each order is
    /// summed with TwoSum chains whose errors move to the next order, the order-`u` terms
    /// (`i + j = 4` and the carries) are added in `f64`, and five words are renormalised.
    /// Relative error ≤ [`bounds::MUL`](super::bounds::MUL)·u. This is what `×` uses.
    #[inline]
    pub fn mul_accurate(self, b: Qd) -> Qd {
        // The whole operation compiled with FMA when the CPU has it (crate::eft).
        crate::eft::with_fma(
            #[inline(always)]
            || {
                finish_or_rescale(
                    mul_raw(&self.c, &b.c),
                    || self.c[0] * b.c[0],
                    || mul_raw(&half(&self.c), &b.c),
                )
            },
        )
    }

    /// `self × b` for an `f64` `b`: TwoProd of each word, the products and errors summed by
    /// order, renormalised; relative error ≤ [`bounds::MUL_F64`](super::bounds::MUL_F64)·u.
    #[inline]
    pub fn mul_f64(self, b: f64) -> Qd {
        // The whole operation compiled with FMA when the CPU has it (crate::eft).
        crate::eft::with_fma(
            #[inline(always)]
            || {
                finish_or_rescale(
                    mul_f64_raw(&self.c, b),
                    || self.c[0] * b,
                    || mul_f64_raw(&half(&self.c), b),
                )
            },
        )
    }

    /// `self × b` for a double-double `b` (the accurate product with `b`'s lower words zero,
    /// bound [`bounds::MUL`](super::bounds::MUL)·u).
    #[inline]
    pub fn mul_dd(self, b: Dd) -> Qd {
        self.mul_accurate(Qd::from(b))
    }

    /// `self²` (the accurate product with both operands equal; bound
    /// [`bounds::MUL`](super::bounds::MUL)·u).
    #[inline]
    pub fn sqr(self) -> Qd {
        self.mul_accurate(self)
    }

    // ---- division ----------------------------------------------------------------------------

    /// `self ÷ b`: HLB Section 4.5 long division. Five quotient words `q_k = r_k[0] / b[0]` are
    /// formed, each followed by the exact-as-possible remainder update `r ← r − q_k·b`, and the
    /// five words are renormalised. Relative error ≤ [`bounds::DIV`](super::bounds::DIV)·u.
    #[inline]
    pub fn div_accurate(self, b: Qd) -> Qd {
        // The whole operation compiled with FMA when the CPU has it (crate::eft).
        crate::eft::with_fma(
            #[inline(always)]
            || {
                finish_or_rescale(
                    div_raw(&self.c, &b.c),
                    || self.c[0] / b.c[0],
                    || div_raw(&half(&self.c), &b.c),
                )
            },
        )
    }

    /// `self ÷ b` for an `f64` `b`: long division as [`Qd::div_accurate`], with exact
    /// remainder products (TwoProd); relative error ≤
    /// [`bounds::DIV_F64`](super::bounds::DIV_F64)·u.
    #[inline]
    pub fn div_f64(self, b: f64) -> Qd {
        // The whole operation compiled with FMA when the CPU has it (crate::eft).
        crate::eft::with_fma(
            #[inline(always)]
            || {
                finish_or_rescale(
                    div_f64_raw(&self.c, b),
                    || self.c[0] / b,
                    || div_f64_raw(&half(&self.c), b),
                )
            },
        )
    }

    /// `self ÷ b` for a double-double `b` (bound [`bounds::DIV`](super::bounds::DIV)·u).
    #[inline]
    pub fn div_dd(self, b: Dd) -> Qd {
        self.div_accurate(Qd::from(b))
    }

    /// `1 ÷ self` (the long division of one by `self`, bound [`bounds::DIV`](super::bounds::DIV)·u).
    #[inline]
    pub fn recip(self) -> Qd {
        Qd::ONE.div_accurate(self)
    }

    // ---- square root -------------------------------------------------------------------------

    /// Square root (HLB Section 4.6): two Newton steps `x ← x + x·(1/2 − (a/2)·x²)` on
    /// `x ≈ 1/√a` from the `f64` estimate (53 → 104 bits in `f64` operations on exact products,
    /// → ~205 bits in quad-double), then Karp's step
    /// `y = a·x`, `√a ≈ y + x·(a − y²)/2`, which squares the remaining error. The argument is
    /// first scaled by an even power of two so that no intermediate over- or underflows.
    /// Relative error ≤ [`bounds::SQRT`](super::bounds::SQRT)·u. NaN for negative arguments,
    /// `sqrt(−0) = −0`, `sqrt(+Inf) = +Inf`, as `f64::sqrt`.
    pub fn sqrt(self) -> Qd {
        // The whole operation compiled with FMA when the CPU has it (crate::eft).
        crate::eft::with_fma(
            #[inline(always)]
            || {
                let a0 = self.c[0];
                if !(a0 > 0.0 && a0.is_finite()) {
                    return Qd::from_f64(a0.sqrt());
                }
                // a = m·2^(2k) with m in [0.5, 2): exact scaling.
                let k = exponent(a0).div_euclid(2);
                let m = self.ldexp(-2 * k);
                let half_m = m.ldexp(-1);
                let x0 = 1.0 / m.c[0].sqrt();
                // The first Newton step (53 → about 104 bits) in f64 operations on exact
                // products: r = 1/2 − (m/2)·x0² with x0² exact and m/2 to two words (1/2 − p
                // is exact: p ≈ 1/2), then x0 + x0·r.
                let (s, e) = two_prod(x0, x0);
                let (p, pe) = two_prod(half_m.c[0], s);
                let r = ((0.5 - p) - pe) - (half_m.c[0] * e + half_m.c[1] * s);
                let (x1, x1_lo) = fast_two_sum(x0, x0 * r);
                let mut x = Qd {
                    c: [x1, x1_lo, 0.0, 0.0],
                };
                // The second in quad-double (about 104 → 205 bits).
                let r = (-half_m * x.sqr()).add_f64(0.5);
                x = x + x * r;
                let y = m * x;
                // m − y² cancels by design (sloppy merge: its error, below 2^-260·m, costs
                // 2^-261 of the root after the factor x/2 ≈ 1/(2√m)).
                let y = y + (x * m.add_sloppy(-y.sqr())).ldexp(-1);
                y.ldexp(k)
            },
        )
    }

    // ---- exact helpers -----------------------------------------------------------------------

    /// Absolute value (exact).
    #[inline]
    pub fn abs(self) -> Qd {
        if self.c[0].is_sign_negative() {
            -self
        } else {
            self
        }
    }

    /// Multiply by 2^`n` exactly (barring overflow or underflow of a word), for any `n`.
    #[inline]
    pub fn ldexp(self, n: i32) -> Qd {
        if (-1022..=1023).contains(&n) {
            let s = pow2(n);
            Qd {
                c: [self.c[0] * s, self.c[1] * s, self.c[2] * s, self.c[3] * s],
            }
        } else {
            // Two or more exact steps so that 2^n itself never overflows or underflows; the
            // count is capped (beyond ±2200 every finite value saturates anyway).
            let n = n.clamp(-2200, 2200);
            let half = n / 2;
            self.ldexp(half).ldexp(n - half)
        }
    }

    /// The IEEE total order of `f64::total_cmp` extended to quad-doubles:
    /// −NaN < −Inf < negative values < −0 < +0 < positive values < +Inf < +NaN, comparing the
    /// words in turn. Values equal in value but with a differently signed zero lower word
    /// compare equal.
    #[inline]
    pub fn total_cmp(&self, other: &Qd) -> Ordering {
        self.c[0]
            .total_cmp(&other.c[0])
            .then_with(|| (self.c[1] + 0.0).total_cmp(&(other.c[1] + 0.0)))
            .then_with(|| (self.c[2] + 0.0).total_cmp(&(other.c[2] + 0.0)))
            .then_with(|| (self.c[3] + 0.0).total_cmp(&(other.c[3] + 0.0)))
    }

    /// The smaller of two values; if one is NaN the other is returned (as `f64::min`).
    #[inline]
    pub fn min(self, other: Qd) -> Qd {
        if self.is_nan() || other < self {
            other
        } else {
            self
        }
    }

    /// The larger of two values; if one is NaN the other is returned (as `f64::max`).
    #[inline]
    pub fn max(self, other: Qd) -> Qd {
        if self.is_nan() || other > self {
            other
        } else {
            self
        }
    }

    /// `self` restricted to `[lo, hi]` (NaN stays NaN). Returns `self` unchanged if the bounds
    /// are NaN or `lo > hi`, rather than panicking as `f64::clamp` does.
    #[inline]
    pub fn clamp(self, lo: Qd, hi: Qd) -> Qd {
        if matches!(lo.partial_cmp(&hi), None | Some(Ordering::Greater)) {
            self
        } else if self < lo {
            lo
        } else if self > hi {
            hi
        } else {
            self
        }
    }

    /// −1, +1 (for ±0 too, following the sign bit as `f64::signum`), or NaN.
    #[inline]
    pub fn signum(self) -> Qd {
        Qd::from_f64(self.c[0].signum())
    }

    /// `|self|` with the sign of `sign` (its sign bit, as `f64::copysign`).
    #[inline]
    pub fn copysign(self, sign: Qd) -> Qd {
        if self.c[0].is_sign_negative() != sign.c[0].is_sign_negative() {
            -self
        } else {
            self
        }
    }
}

// ---- unchecked cores (shared with the functions; callers `finish`) ---------------------------

/// [`add_ieee_raw`] takes the sloppy merge when `|a₀ + b₀| ≥ 2^-40·(|a₀| + |b₀|)` (this value).
const SLOPPY_ENOUGH: f64 = f64::from_bits(0x3d70000000000000);

/// The IEEE-style sum of two expansions, unchecked (see [`Qd::add_ieee`]): the sloppy merge
/// where the operands do not cancel by more than `2^-40`, else the exact merge of
/// [`merge_add_raw`].
///
/// Why the sloppy merge is enough there: its errors before the renormalisation are below
/// `2^-261·(|a| + |b|)` (the order-4 carries summed in `f64`, [`bounds::ADD_SLOPPY`](super::bounds::ADD_SLOPPY)),
/// the renormalisation costs `≤ 2u` of the result (with the cancellation limited to `2^-40`,
/// the TwoSum errors it folds into the last word are below `2^-119` of the result, where
/// [`bounds::ADD_SLOPPY`](super::bounds::ADD_SLOPPY) must allow for words of order `|a| + |b|`), and
/// `|a + b| ≥ 2^-40.001·(|a| + |b|)` when
/// `fl(|a₀ + b₀|) ≥ 2^-40·fl(|a₀| + |b₀|)`; in all `≤ 2.002u` relative, within
/// [`bounds::ADD`](super::bounds::ADD). NaN fails the test (exact merge, as before); infinities
/// and zeros pass it and are settled by the callers' special-value check.
#[inline]
pub(super) fn add_ieee_raw(a: &[f64; 4], b: &[f64; 4]) -> [f64; 4] {
    if (a[0] + b[0]).abs() >= (a[0].abs() + b[0].abs()) * SLOPPY_ENOUGH {
        return sloppy_merge(a, b, 0.0);
    }
    merge_add_raw(a, b)
}

/// HLB's accurate sum of two expansions, unchecked: the eight words merged by decreasing
/// magnitude and accumulated exactly until four words are out (relative error `≤ 3u` under any
/// cancellation).
#[inline]
fn merge_add_raw(a: &[f64; 4], b: &[f64; 4]) -> [f64; 4] {
    // Merge the two (individually magnitude-sorted) expansions by decreasing magnitude, ties
    // to `a` first. Branch-free: the comparisons depend on the data and would be mispredicted
    // about half the time; an exhausted side's key is −1, below every magnitude.
    let key = |x: &[f64; 4]| [x[0].abs(), x[1].abs(), x[2].abs(), x[3].abs(), -1.0];
    let (ka, kb) = (key(a), key(b));
    let (pa, pb) = ([a[0], a[1], a[2], a[3], 0.0], [b[0], b[1], b[2], b[3], 0.0]);
    let mut m = [0.0; 8];
    let (mut i, mut j) = (0, 0);
    for slot in m.iter_mut() {
        // (NaN keys compare false: a NaN word of `a` waits until `b` is exhausted, as before.)
        let take_a = (j >= 4) | ((i < 4) & (ka[i] >= kb[j]));
        *slot = std::hint::select_unpredictable(take_a, pa[i], pb[j]);
        i += usize::from(take_a);
        j += usize::from(!take_a);
    }
    // Accumulate exactly until four words are out.
    let (mut u, mut v) = fast_two_sum(m[0], m[1]);
    let mut out = [0.0; 4];
    let mut k = 0;
    let mut idx = 2;
    while idx < 8 && k < 4 {
        let (s, nu, nv) = double_accumulate(u, v, m[idx]);
        idx += 1;
        u = nu;
        v = nv;
        if s != 0.0 {
            out[k] = s;
            k += 1;
        }
    }
    // The remaining terms are below ulp of the fourth word: plain f64 sum.
    let mut rest = 0.0;
    while idx < 8 {
        rest += m[idx];
        idx += 1;
    }
    match k {
        4 => renorm5(out[0], out[1], out[2], out[3], u + (v + rest)),
        3 => renorm5(out[0], out[1], out[2], u, v + rest),
        2 => renorm5(out[0], out[1], u, v, rest),
        1 => renorm5(out[0], u, v, rest, 0.0),
        _ => renorm5(u, v, rest, 0.0, 0.0),
    }
}

/// `a + b` for an `f64` `b`, unchecked (see [`Qd::add_f64`]).
#[inline(always)]
pub(super) fn add_f64_raw(a: &[f64; 4], b: f64) -> [f64; 4] {
    let (c0, e) = two_sum(a[0], b);
    let (c1, e) = two_sum(a[1], e);
    let (c2, e) = two_sum(a[2], e);
    let (c3, e) = two_sum(a[3], e);
    renorm5(c0, c1, c2, c3, e)
}

/// `a × b` for an `f64` `b`, unchecked (see [`Qd::mul_f64`]).
#[inline(always)]
pub(super) fn mul_f64_raw(a: &[f64; 4], b: f64) -> [f64; 4] {
    let [p0, s1, s2, s3, s4] = mul_f64_terms(a, b);
    renorm5(p0, s1, s2, s3, s4)
}

/// The five words of `a × b` for an `f64` `b` before renormalisation, by order of `2^-53`:
/// `fl(a0·b)`, orders 1–3 exact (TwoProd, TwoSum chains), the order-4 terms summed in `f64`.
#[inline(always)]
fn mul_f64_terms(a: &[f64; 4], b: f64) -> [f64; 5] {
    let (p0, q0) = two_prod(a[0], b);
    let (p1, q1) = two_prod(a[1], b);
    let (p2, q2) = two_prod(a[2], b);
    let (p3, q3) = two_prod(a[3], b);
    // Order 1: p1, q0. Order 2: p2, q1 and the carry. Order 3: p3, q2 and carries.
    let (s1, x1) = two_sum(p1, q0);
    let (s2, x2) = two_sum(p2, q1);
    let (s2, x3) = two_sum(s2, x1);
    let (s3, y1) = two_sum(p3, q2);
    let (s3, y2) = two_sum(s3, x2);
    let (s3, y3) = two_sum(s3, x3);
    let s4 = q3 + (y1 + y2 + y3);
    [p0, s1, s2, s3, s4]
}

/// The accurate product, unchecked (see [`Qd::mul_accurate`]).
#[inline(always)]
pub(super) fn mul_raw(a: &[f64; 4], b: &[f64; 4]) -> [f64; 4] {
    let [p0, s1, s2, s3, s4] = mul_terms(a, b);
    renorm5(p0, s1, s2, s3, s4)
}

/// The accumulator of one lane of the blocked summation order (at most 16 terms, the order's
/// `PER_LANE`): five words `w_0..w_4`, word `k` taking the order-`k` word of each term, **not
/// renormalised between terms**. Words 0–3 add by TwoSum, each error carried exactly into the
/// word below (`1 + 2 + 3 + 4` TwoSums: the cost of the sloppy merge without its
/// renormalisation, about 60 of a step's 125 operations); word 4 sums the order-4 words and
/// carries in `f64`; [`LaneSum::finish`] ends the lane once.
///
/// **Error.** With `P = Σ_j Σ_k |p_jk|` (the terms' words, `≤ (1 + 2^-50)·Σ|t_j|`),
/// `u = 2^-53` and `m ≤ 16`: word 0 stays below `1.01·P`, so the TwoSum errors it sends down
/// sum to `≤ 16.2u·P`; with the order-1 words (`≤ 3.1u·P` for products and squares, `≤ u·P`
/// for normalised terms) word 1 stays below `20u·P`, and its 32 errors sum to `≤ 640u²·P`;
/// word 2 below `660u²·P` (48 errors, `≤ 31,700u³·P`); word 3 below `32,100u³·P` (64 errors,
/// `≤ 2^21 u⁴·P`). Words 0–3 are exact, so the only roundings before the end are word 4's at
/// most 80 `f64` additions on values below `2^21.1 u⁴·P`: `≤ 2^-25 u⁴·P`. The end rounds once,
/// by at most `2^-212` of the result, or hands the lane to the steps. A lane's sum is
/// therefore within `1.01·2^-212·P` of the terms' sum (the product and square words' own
/// errors, those of [`Qd::add_product_sloppy`], `≤ 0.01·2^-212` relative, on top), stated as
/// [`bounds::LANE_SUM`](super::bounds::LANE_SUM): far inside the `15·ADD_SLOPPY·u·P` that the
/// blocked order's bound allows a lane's 15 additions (the BLAS `summation_depth`), so the
/// bounds are unchanged.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LaneSum {
    w: [f64; 5],
}

impl LaneSum {
    /// No terms yet.
    pub(crate) const EMPTY: LaneSum = LaneSum { w: [-0.0; 5] };

    /// Words 0–3 of a term into words 0–3 (TwoSums, errors carried down exactly); returns the
    /// sum of the four errors leaving word 3, for word 4.
    #[inline(always)]
    fn cascade(&mut self, p: &[f64; 4]) -> f64 {
        let [a0, a1, a2, a3, _] = self.w;
        let (a0, e0) = two_sum(a0, p[0]);
        let (a1, e1) = two_sum(a1, p[1]);
        let (a1, f1) = two_sum(a1, e0);
        let (a2, e2) = two_sum(a2, p[2]);
        let (a2, f2) = two_sum(a2, e1);
        let (a2, g2) = two_sum(a2, f1);
        let (a3, e3) = two_sum(a3, p[3]);
        let (a3, f3) = two_sum(a3, e2);
        let (a3, g3) = two_sum(a3, f2);
        let (a3, h3) = two_sum(a3, g2);
        self.w[..4].copy_from_slice(&[a0, a1, a2, a3]);
        (e3 + f3) + (g3 + h3)
    }

    /// `+ x` for a quad-double `x`.
    #[inline(always)]
    pub(crate) fn add(&mut self, x: &[f64; 4]) {
        let carry = self.cascade(x);
        self.w[4] += carry;
    }

    /// `+` the five words of a product ([`mul_terms`], [`sqr_terms`]).
    #[inline(always)]
    pub(crate) fn add_terms(&mut self, p: &[f64; 5]) {
        let carry = self.cascade(&[p[0], p[1], p[2], p[3]]);
        self.w[4] += p[4] + carry;
    }

    /// The lane of `m` products or squares given by their five words (`words(j)`, formed with
    /// FMA: [`mul_terms`], [`sqr_terms`]), ended by [`LaneSum::finish`].
    #[inline(always)]
    fn of_terms(m: usize, words: impl Fn(usize) -> [f64; 5]) -> Option<Qd> {
        crate::eft::with_fma(
            #[inline(always)]
            || {
                let mut lane = LaneSum::EMPTY;
                for j in 0..m {
                    lane.add_terms(&words(j));
                }
                lane.finish()
            },
        )
    }

    /// The sum as a quad-double, if it comes out normalised and is a finite non-zero number.
    ///
    /// A TwoSum pass from the bottom and one from the top (exact) leave four words whose sum
    /// is the words' sum but for the rounding of the last, `c3 = fl(l + t4)`. [`renorm5`]'s
    /// Fast-Two-Sums would need the words in order of magnitude, which the lane's words
    /// need not be when the lane's terms cancel (a word 1 or 2 then as large as the sum); so
    /// the result is checked instead: normalised (`c[i] == fl(c[i] + c[i+1])`, so `|c3| ≤
    /// u³·|c0|`), its error is that one rounding, `≤ 2^-53·|c3| ≤ 2^-212·|c0|`. Otherwise
    /// (a lane that cancels to about `2^-50` of its terms, or special values) `None`, and the
    /// terms are stepped one by one.
    #[inline(always)]
    pub(crate) fn finish(&self) -> Option<Qd> {
        let [x0, x1, x2, x3, x4] = self.w;
        let (s, t4) = two_sum(x3, x4);
        let (s, t3) = two_sum(x2, s);
        let (s, t2) = two_sum(x1, s);
        let (t0, t1) = two_sum(x0, s);
        let (c0, l) = two_sum(t0, t1);
        let (c1, l) = two_sum(l, t2);
        let (c2, l) = two_sum(l, t3);
        let c3 = l + t4;
        let c = [c0, c1, c2, c3];
        let normalised = c0 + c1 == c0 && c1 + c2 == c1 && c2 + c3 == c2;
        (normalised && generic_ok(&c)).then_some(Qd { c })
    }
}

/// The five words of `a × b` before renormalisation, by order of `2^-53`: `fl(a0·b0)`, then
/// orders 1–3 exact (TwoProd, TwoSum chains), then the order-4 terms summed in `f64`.
#[inline(always)]
fn mul_terms(a: &[f64; 4], b: &[f64; 4]) -> [f64; 5] {
    let (p00, q00) = two_prod(a[0], b[0]);
    let (p01, q01) = two_prod(a[0], b[1]);
    let (p10, q10) = two_prod(a[1], b[0]);
    let (p02, q02) = two_prod(a[0], b[2]);
    let (p11, q11) = two_prod(a[1], b[1]);
    let (p20, q20) = two_prod(a[2], b[0]);
    let (p03, q03) = two_prod(a[0], b[3]);
    let (p12, q12) = two_prod(a[1], b[2]);
    let (p21, q21) = two_prod(a[2], b[1]);
    let (p30, q30) = two_prod(a[3], b[0]);

    // Order 1 (exact): s1 + e1 + f1 = p01 + p10 + q00.
    let (s1, e1, f1) = three_sum(p01, p10, q00);
    // Order 2: TwoSum chain; its errors x_k are order-3 terms.
    let (s2, x1) = two_sum(p02, p11);
    let (s2, x2) = two_sum(s2, p20);
    let (s2, x3) = two_sum(s2, q01);
    let (s2, x4) = two_sum(s2, q10);
    let (s2, x5) = two_sum(s2, e1);
    // Order 3: TwoSum chain; its errors y_k are order-4 terms.
    let (s3, y1) = two_sum(p03, p12);
    let (s3, y2) = two_sum(s3, p21);
    let (s3, y3) = two_sum(s3, p30);
    let (s3, y4) = two_sum(s3, q02);
    let (s3, y5) = two_sum(s3, q11);
    let (s3, y6) = two_sum(s3, q20);
    let (s3, y7) = two_sum(s3, f1);
    let (s3, y8) = two_sum(s3, x1 + x2);
    let (s3, y9) = two_sum(s3, x3 + x4 + x5);
    // Order 4 in f64: the remaining products, the order-3 product errors, the carries.
    let p4 = a[1].mul_add(b[3], a[2].mul_add(b[2], a[3] * b[1]));
    let q4 = (q03 + q12) + (q21 + q30);
    let y = ((y1 + y2) + (y3 + y4)) + ((y5 + y6) + (y7 + y8 + y9));
    let s4 = p4 + q4 + y;
    [p00, s1, s2, s3, s4]
}

/// The five words of `a²` before renormalisation, as [`mul_terms`] for `b = a` with the
/// symmetric partial products formed once: `2·a_i·a_j` is `TwoProd(2a_i, a_j)`, exact (a
/// doubling commutes with rounding away from overflow, where the caller's check catches
/// `2a_0 = ∞`). Order 1 is then a single TwoSum, order 2 a chain of four terms instead of
/// six, order 3 of seven instead of eleven: 6 TwoProds instead of 10, and about half the
/// operations, with the same structure of errors (orders 0–3 exact up to the same kind of
/// `f64` folds of order-3 carries, order 4 in `f64`).
#[inline(always)]
fn sqr_terms(a: &[f64; 4]) -> [f64; 5] {
    let (d0, d1) = (2.0 * a[0], 2.0 * a[1]);
    let (p00, q00) = two_prod(a[0], a[0]);
    let (p01, q01) = two_prod(d0, a[1]);
    let (p02, q02) = two_prod(d0, a[2]);
    let (p11, q11) = two_prod(a[1], a[1]);
    let (p03, q03) = two_prod(d0, a[3]);
    let (p12, q12) = two_prod(d1, a[2]);

    // Order 1 (exact): s1 + e1 = 2·a0·a1 + q00.
    let (s1, e1) = two_sum(p01, q00);
    // Order 2: 2·a0·a2 + a1² + the order-1 carries; the chain's errors are order 3.
    let (s2, x1) = two_sum(p02, p11);
    let (s2, x2) = two_sum(s2, q01);
    let (s2, x3) = two_sum(s2, e1);
    // Order 3: 2·a0·a3 + 2·a1·a2 + the order-2 carries; the chain's errors are order 4.
    let (s3, y1) = two_sum(p03, p12);
    let (s3, y2) = two_sum(s3, q02);
    let (s3, y3) = two_sum(s3, q11);
    let (s3, y4) = two_sum(s3, x1 + x2 + x3);
    // Order 4 in f64: 2·a1·a3 + a2², the order-3 product errors, the carries.
    let p4 = d1.mul_add(a[3], a[2] * a[2]);
    let q4 = q03 + q12;
    let y = (y1 + y2) + (y3 + y4);
    let s4 = p4 + q4 + y;
    [p00, s1, s2, s3, s4]
}

/// HLB's sloppy sum of two normalised expansions, unchecked: the words of equal order are
/// added by TwoSums, their errors carried one order down exactly (TwoSum, ThreeSum) up to
/// order 3; the order-4 pieces (with `extra`, an order-4 term of `b`) are summed in `f64`;
/// one renormalisation. Only the order-4 roundings (order 5, negligible) and the
/// renormalisation's rounding are errors.
#[inline(always)]
fn sloppy_merge(a: &[f64; 4], b: &[f64; 4], extra: f64) -> [f64; 4] {
    let (s0, t0) = two_sum(a[0], b[0]);
    let (s1, t1) = two_sum(a[1], b[1]);
    let (s2, t2) = two_sum(a[2], b[2]);
    let (s3, t3) = two_sum(a[3], b[3]);
    let (s1, t0) = two_sum(s1, t0);
    let (s2, t0, t1) = three_sum(s2, t0, t1);
    let (s3, t0) = three_sum2(s3, t0, t2);
    let t0 = t0 + t1 + t3 + extra;
    renorm5(s0, s1, s2, s3, t0)
}

/// `r − q·b` for `f64` `q`, `b`, with the product exact (TwoProd), unchecked; the sloppy
/// merge, as in [`sub_prod`].
#[inline(always)]
fn sub_f64_prod(r: &[f64; 4], q: f64, b: f64) -> [f64; 4] {
    let (p, e) = two_prod(q, b);
    sloppy_merge(r, &[-p, -e, 0.0, 0.0], 0.0)
}

/// Long division by an `f64`, unchecked (see [`Qd::div_f64`]).
#[inline]
pub(super) fn div_f64_raw(a: &[f64; 4], b: f64) -> [f64; 4] {
    let q0 = a[0] / b;
    let r = sub_f64_prod(a, q0, b);
    let q1 = r[0] / b;
    let r = sub_f64_prod(&r, q1, b);
    let q2 = r[0] / b;
    let r = sub_f64_prod(&r, q2, b);
    let q3 = r[0] / b;
    let r = sub_f64_prod(&r, q3, b);
    let q4 = r[0] / b;
    renorm5(q0, q1, q2, q3, q4)
}

/// The words halved (exact in the range where rescaling is used).
#[inline(always)]
fn half(a: &[f64; 4]) -> [f64; 4] {
    [0.5 * a[0], 0.5 * a[1], 0.5 * a[2], 0.5 * a[3]]
}

/// Long division, unchecked (see [`Qd::div_accurate`]).
#[inline]
pub(super) fn div_raw(a: &[f64; 4], b: &[f64; 4]) -> [f64; 4] {
    let q0 = a[0] / b[0];
    let r = sub_prod(a, q0, b);
    let q1 = r[0] / b[0];
    let r = sub_prod(&r, q1, b);
    let q2 = r[0] / b[0];
    let r = sub_prod(&r, q2, b);
    let q3 = r[0] / b[0];
    let r = sub_prod(&r, q3, b);
    let q4 = r[0] / b[0];
    renorm5(q0, q1, q2, q3, q4)
}

/// `r − q·b` for an `f64` `q`, unchecked: the remainder step of the long divisions, the
/// product's words unrounded (exact to order 3) merged into `r` by the sloppy merge. `q·b`
/// cancels `r`'s leading word by design, which would send [`add_ieee_raw`] down its exact
/// merge every time; the sloppy merge is enough here, since what the quotient needs is the
/// remainder's error against `|a|` (the dividend), not against the remainder itself: below
/// `2^-258·(|r| + |q·b|)`, `2^-45u` of the quotient (see [`bounds::DIV`](super::bounds::DIV)).
#[inline(always)]
fn sub_prod(r: &[f64; 4], q: f64, b: &[f64; 4]) -> [f64; 4] {
    let [p0, p1, p2, p3, p4] = mul_f64_terms(b, -q);
    sloppy_merge(r, &[p0, p1, p2, p3], p4)
}

/// 2^n for n in the normal exponent range, built from the bits.
#[inline(always)]
pub(super) fn pow2(n: i32) -> f64 {
    let n = n.clamp(-1022, 1023);
    f64::from_bits(((n + 1023) as u64) << 52)
}

/// The binary exponent `e` of a finite non-zero `x`, `2^e ≤ |x| < 2^(e+1)` (also for
/// subnormals); 0 for zero and non-finite values.
#[inline]
pub(super) fn exponent(x: f64) -> i32 {
    if x == 0.0 || !x.is_finite() {
        return 0;
    }
    let bits = x.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i32;
    if e == 0 {
        // Subnormal: normalise by 2^64 first.
        exponent(x * 18_446_744_073_709_551_616.0) - 64
    } else {
        e - 1023
    }
}

// ---- operators -------------------------------------------------------------------------------

impl Neg for Qd {
    type Output = Qd;
    #[inline]
    fn neg(self) -> Qd {
        Qd {
            c: [-self.c[0], -self.c[1], -self.c[2], -self.c[3]],
        }
    }
}

/// `a + b` is [`Qd::add_ieee`] (the IEEE-style accurate addition), not the sloppy one.
impl Add for Qd {
    type Output = Qd;
    #[inline]
    fn add(self, b: Qd) -> Qd {
        self.add_ieee(b)
    }
}
/// `a − b` is [`Qd::add_ieee`] of `a` and `−b`.
impl Sub for Qd {
    type Output = Qd;
    #[inline]
    fn sub(self, b: Qd) -> Qd {
        self.add_ieee(-b)
    }
}
/// `a × b` is [`Qd::mul_accurate`].
impl Mul for Qd {
    type Output = Qd;
    #[inline]
    fn mul(self, b: Qd) -> Qd {
        self.mul_accurate(b)
    }
}
/// `a ÷ b` is [`Qd::div_accurate`].
impl Div for Qd {
    type Output = Qd;
    #[inline]
    fn div(self, b: Qd) -> Qd {
        self.div_accurate(b)
    }
}

/// Operators with an `f64` or `Dd` on either side; each uses the mixed routine named.
macro_rules! mixed_ops {
    ($t:ty, $add:ident, $mul:ident, $div:ident, $conv:expr) => {
        /// `Qd + x` ([`Qd::add_f64`] / [`Qd::add_dd`]).
        impl Add<$t> for Qd {
            type Output = Qd;
            #[inline]
            fn add(self, b: $t) -> Qd {
                self.$add(b)
            }
        }
        /// `Qd − x` (the mixed addition of `−x`).
        impl Sub<$t> for Qd {
            type Output = Qd;
            #[inline]
            fn sub(self, b: $t) -> Qd {
                self.$add(-b)
            }
        }
        /// `Qd × x` ([`Qd::mul_f64`] / [`Qd::mul_dd`]).
        impl Mul<$t> for Qd {
            type Output = Qd;
            #[inline]
            fn mul(self, b: $t) -> Qd {
                self.$mul(b)
            }
        }
        /// `Qd ÷ x` ([`Qd::div_f64`] / [`Qd::div_dd`]).
        impl Div<$t> for Qd {
            type Output = Qd;
            #[inline]
            fn div(self, b: $t) -> Qd {
                self.$div(b)
            }
        }
        /// `x + Qd` (the mixed addition).
        impl Add<Qd> for $t {
            type Output = Qd;
            #[inline]
            fn add(self, b: Qd) -> Qd {
                b.$add(self)
            }
        }
        /// `x − Qd` (the mixed addition to `−Qd`).
        impl Sub<Qd> for $t {
            type Output = Qd;
            #[inline]
            fn sub(self, b: Qd) -> Qd {
                (-b).$add(self)
            }
        }
        /// `x × Qd` (the mixed product).
        impl Mul<Qd> for $t {
            type Output = Qd;
            #[inline]
            fn mul(self, b: Qd) -> Qd {
                b.$mul(self)
            }
        }
        /// `x ÷ Qd` (the quad-double division of `x` converted exactly).
        impl Div<Qd> for $t {
            type Output = Qd;
            #[inline]
            fn div(self, b: Qd) -> Qd {
                let conv: fn($t) -> Qd = $conv;
                conv(self).div_accurate(b)
            }
        }
    };
}
mixed_ops!(f64, add_f64, mul_f64, div_f64, Qd::from_f64);
mixed_ops!(Dd, add_dd, mul_dd, div_dd, Qd::from);

macro_rules! assign_ops {
    ($($tr:ident $m:ident $op:tt $rhs:ty;)*) => {$(
        impl $tr<$rhs> for Qd {
            #[inline]
            fn $m(&mut self, b: $rhs) {
                *self = *self $op b;
            }
        }
    )*};
}
assign_ops! {
    AddAssign add_assign + Qd; SubAssign sub_assign - Qd; MulAssign mul_assign * Qd;
    DivAssign div_assign / Qd;
    AddAssign add_assign + f64; SubAssign sub_assign - f64; MulAssign mul_assign * f64;
    DivAssign div_assign / f64;
    AddAssign add_assign + Dd; SubAssign sub_assign - Dd; MulAssign mul_assign * Dd;
    DivAssign div_assign / Dd;
}

// ---- comparisons -----------------------------------------------------------------------------

/// Equality of values: all words equal (so `+0 == −0` and `NaN != NaN`, as `f64`).
impl PartialEq for Qd {
    #[inline]
    fn eq(&self, other: &Qd) -> bool {
        self.c[0] == other.c[0]
            && self.c[1] == other.c[1]
            && self.c[2] == other.c[2]
            && self.c[3] == other.c[3]
    }
}

/// Ordering of values (lexicographic on normalised words; `None` if either is NaN).
impl PartialOrd for Qd {
    #[inline]
    fn partial_cmp(&self, other: &Qd) -> Option<Ordering> {
        for i in 0..4 {
            match self.c[i].partial_cmp(&other.c[i])? {
                Ordering::Equal => {}
                ord => return Some(ord),
            }
        }
        Some(Ordering::Equal)
    }
}

impl PartialEq<f64> for Qd {
    #[inline]
    fn eq(&self, other: &f64) -> bool {
        *self == Qd::from_f64(*other)
    }
}
impl PartialOrd<f64> for Qd {
    #[inline]
    fn partial_cmp(&self, other: &f64) -> Option<Ordering> {
        self.partial_cmp(&Qd::from_f64(*other))
    }
}
impl PartialEq<Qd> for f64 {
    #[inline]
    fn eq(&self, other: &Qd) -> bool {
        Qd::from_f64(*self) == *other
    }
}
impl PartialOrd<Qd> for f64 {
    #[inline]
    fn partial_cmp(&self, other: &Qd) -> Option<Ordering> {
        Qd::from_f64(*self).partial_cmp(other)
    }
}

// ---- conversions -----------------------------------------------------------------------------

impl From<f64> for Qd {
    #[inline]
    fn from(x: f64) -> Qd {
        Qd::from_f64(x)
    }
}
impl From<f32> for Qd {
    #[inline]
    fn from(x: f32) -> Qd {
        Qd::from_f64(x as f64)
    }
}
impl From<i32> for Qd {
    #[inline]
    fn from(x: i32) -> Qd {
        Qd::from_f64(x as f64)
    }
}
impl From<u32> for Qd {
    #[inline]
    fn from(x: u32) -> Qd {
        Qd::from_f64(x as f64)
    }
}
/// Exact: a 64-bit integer fits in two words (the split of `Dd`'s conversion).
impl From<i64> for Qd {
    #[inline]
    fn from(x: i64) -> Qd {
        Qd::from(Dd::from(x))
    }
}
/// Exact: a 64-bit integer fits in two words (the split of `Dd`'s conversion).
impl From<u64> for Qd {
    #[inline]
    fn from(x: u64) -> Qd {
        Qd::from(Dd::from(x))
    }
}
impl From<Dd> for Qd {
    #[inline]
    fn from(x: Dd) -> Qd {
        if x.hi.is_finite() {
            Qd {
                c: [x.hi, x.lo, 0.0, 0.0],
            }
        } else {
            Qd::from_f64(x.hi)
        }
    }
}
// No `From<Qd>` for `f64` or `Dd`: `From` is for lossless conversions, and both round. Use
// [`Qd::to_f64`] and [`Qd::to_dd`].

impl std::iter::Sum for Qd {
    fn sum<I: Iterator<Item = Qd>>(iter: I) -> Qd {
        iter.fold(Qd::ZERO, |a, b| a + b)
    }
}
impl<'a> std::iter::Sum<&'a Qd> for Qd {
    fn sum<I: Iterator<Item = &'a Qd>>(iter: I) -> Qd {
        iter.fold(Qd::ZERO, |a, b| a + *b)
    }
}
impl std::iter::Product for Qd {
    fn product<I: Iterator<Item = Qd>>(iter: I) -> Qd {
        iter.fold(Qd::ONE, |a, b| a * b)
    }
}
impl<'a> std::iter::Product<&'a Qd> for Qd {
    fn product<I: Iterator<Item = &'a Qd>>(iter: I) -> Qd {
        iter.fold(Qd::ONE, |a, b| a * *b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `qd.cuh` hard-codes the device's copy of [`SLOPPY_ENOUGH`] (the header has no tables
    /// include): it must be this very constant, or the GPU's `+` would leave the CPU's bits.
    #[test]
    fn the_device_threshold_is_sloppy_enough() {
        let literal = format!("__longlong_as_double(0x{:016x}LL)", SLOPPY_ENOUGH.to_bits());
        let cuh = include_str!("qd.cuh");
        let at = cuh
            .find("MP_DEV Qd add_ieee_raw(")
            .expect("add_ieee_raw in qd.cuh");
        let body = &cuh[at..at + cuh[at..].find("\n}").expect("its end")];
        assert!(
            body.contains(&literal),
            "qd.cuh's add_ieee_raw does not use {literal}"
        );
    }

    #[test]
    fn special_values_follow_f64() {
        let cases = [
            0.0,
            -0.0,
            1.5,
            -2.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        for &a in &cases {
            for &b in &cases {
                let (x, y) = (Qd::from(a), Qd::from(b));
                let check = |got: Qd, want: f64, op: &str| {
                    assert!(
                        got.c[0].to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                        "{a} {op} {b}: got {got:?}, f64 gives {want}"
                    );
                    if want == 0.0 || !want.is_finite() {
                        assert_eq!(got.c[1..], [0.0; 3], "{a} {op} {b}: lower words not 0");
                    }
                };
                check(x + y, a + b, "+");
                check(x - y, a - b, "-");
                check(x.add_sloppy(y), a + b, "+sloppy");
                check(x * y, a * b, "*");
                check(x / y, a / b, "/");
                check(x + b, a + b, "+f64");
                check(x * b, a * b, "*f64");
                check(x / b, a / b, "/f64");
            }
            check_sqrt(a);
        }
        fn check_sqrt(a: f64) {
            let got = Qd::from(a).sqrt();
            let want = a.sqrt();
            assert!(got.c[0].to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()));
        }
    }

    #[test]
    fn cancellation_gives_positive_zero() {
        let a = Qd::new(1.0, 1e-20, 1e-40, 1e-60);
        let z = a - a;
        assert_eq!(z.c[0].to_bits(), 0.0f64.to_bits());
        assert_eq!(z.c[1..], [0.0; 3]);
    }

    #[test]
    fn overflow_goes_to_infinity() {
        assert_eq!((Qd::MAX + Qd::MAX).c[0], f64::INFINITY);
        assert_eq!((Qd::MAX * 2.0).c[0], f64::INFINITY);
        assert_eq!((Qd::MIN * Qd::from(3.0)).c[0], f64::NEG_INFINITY);
        assert_eq!((Qd::MAX / 0.5).c[0], f64::INFINITY);
    }

    #[test]
    fn exact_integers_round_trip() {
        for x in [i64::MAX, i64::MIN, 1 << 60, -(1 << 53) - 1, 12345] {
            let d = Qd::from(x);
            assert_eq!(d.c[0] as i128 + d.c[1] as i128, x as i128);
        }
        let d = Qd::from(u64::MAX);
        assert_eq!(d.c[0] as i128 + d.c[1] as i128, u64::MAX as i128);
    }

    #[test]
    fn exponent_matches_log2() {
        for (x, e) in [
            (1.0, 0),
            (0.75, -1),
            (3.0, 1),
            (5e-324, -1074),
            (f64::MAX, 1023),
        ] {
            assert_eq!(exponent(x), e, "{x:e}");
        }
    }
}
