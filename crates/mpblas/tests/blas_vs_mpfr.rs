//! BLAS level 1 on the CPU (`mpblas::blas`) against MPFR: the acceptance tests of the level-1
//! family.
//!
//! - **Bounds.** For `f64`, `Dd`, `Qd` and RNS (106 and 424 bits), `sum_bounded` and
//!   `dot_bounded` in all three [`Summation`] orders, `asum_bounded` and `nrm2_bounded` are
//!   within the bound they return of the exact result, formed by MPFR at a precision large
//!   enough to be exact (asserted: every MPFR sum here must be exact), on random full-precision
//!   data, heavy cancellation (the MPRES summation paper's dataset), exponents from `2^-1000`
//!   to `2^1000` in one vector, and subnormals, for lengths around every block boundary of the
//!   orders (256, 4096) and one of 100 000.
//! - **`nrm2` extremes**: no overflow near `f64::MAX`, no flush to zero for subnormal inputs,
//!   Blue's three accumulators mixed.
//! - **Specials**: NaN anywhere gives NaN, `+∞` with `−∞` gives NaN, an infinity alone gives it,
//!   a sum of `−0`s is `−0`, `asum`/`nrm2` give `+∞` or NaN, `iamax` finds the first NaN or else
//!   the first largest magnitude.
//! - **Reproducibility**: every reduction (and the `f64` accurate ones) gives the same bits in
//!   rayon pools of 1, 2, 3 and 8 threads.
//! - **Views and BLAS entries**: strided views (increments 2, −1, −3) give the bits of a packed
//!   copy; the `*_blas` entries; bad arguments are errors, never panics.
//! - **Element-wise**: `axpy`, `scal`, `rot` within their componentwise bounds.
//! - **`f64` accurate routines**: `sum_correctly_rounded`/`dot_correctly_rounded` equal MPFR's
//!   rounding of the exact result on random, ill-conditioned (Ogita–Rump–Oishi GenDot, condition
//!   up to 1e60) and extreme inputs; `sum2`/`dot2` within their bounds.

use mpblas::blas::bounds::gamma;
use mpblas::blas::level1::{
    asum_blas, axpy_blas, axpy_error_factor, dot_blas, iamax_blas, nrm2_blas, scal_blas,
};
use mpblas::blas::{self, Bounded, Summation, accurate};
use mpblas::rns::{Basis, MpFloat};
use mpblas::view::{VecMut, VecRef};
use mpblas::{Dd, Error, Qd, Scalar};
use mpblas_testdata::SplitMix64;
use rug::float::Round;
use rug::integer::Order;
use rug::ops::AddAssignRound;
use rug::{Float, Integer};
use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::num::FpCategory;
use std::sync::Arc;

mod rns_common;

/// The lengths of the bound tests: empty, tiny, and both sides of the blocked order's lane
/// count (256) and chunk (4096), and three chunks and a tail (a second pass).
const LENGTHS: [usize; 11] = [0, 1, 2, 3, 255, 256, 257, 4095, 4096, 4097, 3 * 4096 + 5];
/// The long vector: 25 chunks, so the blocked order runs in parallel and makes two passes.
const BIG: usize = 100_000;

// ---- formats: exact values, full-precision random values, bits --------------------------------

/// What the tests need of a format beyond [`Scalar`].
trait Fmt: Scalar {
    /// The exact value in MPFR (finite values; NaN and ±∞ map to themselves).
    fn exact(&self) -> Float;
    /// A value with leading part `lead` and random full-precision lower words or bits (the
    /// lower words of real data are not zero, and zeros would make an easier test).
    fn full(ctx: &Self::Ctx, g: &mut SplitMix64, lead: f64) -> Self;
    /// The words of the representation, to compare bits.
    fn words(&self) -> Vec<u64>;
    /// The sign bit (of the leading word).
    fn sign_bit(&self) -> bool;
}

impl Fmt for f64 {
    fn exact(&self) -> Float {
        Float::with_val(53, *self)
    }
    fn full(_: &(), _: &mut SplitMix64, lead: f64) -> f64 {
        lead
    }
    fn words(&self) -> Vec<u64> {
        vec![self.to_bits()]
    }
    fn sign_bit(&self) -> bool {
        self.is_sign_negative()
    }
}

impl Fmt for Dd {
    fn exact(&self) -> Float {
        exact_words(&[self.hi, self.lo])
    }
    fn full(_: &(), g: &mut SplitMix64, lead: f64) -> Dd {
        Dd {
            hi: lead,
            lo: g.word_below(lead),
        }
    }
    fn words(&self) -> Vec<u64> {
        vec![self.hi.to_bits(), self.lo.to_bits()]
    }
    fn sign_bit(&self) -> bool {
        self.hi.is_sign_negative()
    }
}

impl Fmt for Qd {
    fn exact(&self) -> Float {
        exact_words(&self.c)
    }
    fn full(_: &(), g: &mut SplitMix64, lead: f64) -> Qd {
        let mut c = [lead, 0.0, 0.0, 0.0];
        for i in 1..4 {
            c[i] = g.word_below(c[i - 1]);
        }
        Qd { c }
    }
    fn words(&self) -> Vec<u64> {
        self.c.iter().map(|w| w.to_bits()).collect()
    }
    fn sign_bit(&self) -> bool {
        self.c[0].is_sign_negative()
    }
}

impl Fmt for MpFloat {
    /// Through the exact significand (`to_limbs`), so that the test needs no `rug` feature.
    fn exact(&self) -> Float {
        let Some((neg, limbs, e)) = self.to_limbs() else {
            return Float::with_val(53, self.to_f64());
        };
        let int = Integer::from_digits(&limbs, Order::Lsf);
        let bits = int.significant_bits().max(1);
        let mut f = Float::with_val(bits, int);
        f <<= i32::try_from(e).expect("test values stay in MPFR's exponent range");
        if neg { -f } else { f }
    }
    /// A random `p`-bit significand with the sign and binary exponent of `lead`.
    fn full(b: &Arc<Basis>, g: &mut SplitMix64, lead: f64) -> MpFloat {
        if !lead.is_finite() || lead == 0.0 {
            return MpFloat::from_f64(b, lead);
        }
        let p = b.precision();
        let top = i64::from(lead.abs().log2().floor() as i32);
        let limbs = random_limbs(g, p);
        MpFloat::from_limbs(b, lead < 0.0, &limbs, top - i64::from(p) + 1)
    }
    fn words(&self) -> Vec<u64> {
        if self.is_nan() {
            return vec![u64::MAX];
        }
        let mut w = vec![
            u64::from(self.is_infinite()),
            u64::from(self.is_sign_negative()),
            self.exponent() as u64,
        ];
        w.extend(self.residues().iter().map(|&r| u64::from(r)));
        w
    }
    fn sign_bit(&self) -> bool {
        self.is_sign_negative()
    }
}

/// A random `bits`-bit integer with its top bit set, little-endian limbs.
fn random_limbs(g: &mut SplitMix64, bits: u32) -> Vec<u64> {
    let n = bits.div_ceil(64) as usize;
    let mut l: Vec<u64> = (0..n).map(|_| g.next_u64()).collect();
    let top = bits - 64 * (n as u32 - 1);
    if top < 64 {
        l[n - 1] &= (1 << top) - 1;
    }
    l[n - 1] |= 1 << (top - 1);
    l
}

fn value<T: Scalar>(ctx: &T::Ctx, v: f64) -> T {
    T::from_f64_in(ctx, v)
}

fn bits_of<T: Fmt>(xs: &[T]) -> Vec<Vec<u64>> {
    xs.iter().map(Fmt::words).collect()
}

// ---- MPFR: exact sums -------------------------------------------------------------------------

/// `Σ terms` exactly: at the precision that spans the terms' bits plus carries, checked exact.
fn exact_sum(terms: &[Float]) -> Float {
    let (mut hi, mut lo) = (i64::MIN, i64::MAX);
    for t in terms.iter().filter(|t| !t.is_zero()) {
        let e = i64::from(t.get_exp().expect("finite nonzero term"));
        hi = hi.max(e);
        lo = lo.min(e - i64::from(t.prec()));
    }
    if hi == i64::MIN {
        return Float::with_val(53, 0);
    }
    let carries = 2 + i64::from(usize::BITS - terms.len().leading_zeros());
    let prec = u32::try_from(hi - lo + carries).expect("precision fits");
    let (s, ord) = Float::with_val_round(prec, Float::sum(terms.iter()), Round::Nearest);
    assert_eq!(ord, Ordering::Equal, "the MPFR reference sum must be exact");
    s
}

fn exact_words(words: &[f64]) -> Float {
    let t: Vec<Float> = words.iter().map(|&w| Float::with_val(53, w)).collect();
    exact_sum(&t)
}

/// `a·b` exactly (the product of a `p`- and a `q`-bit number has at most `p + q` bits).
fn exact_product(a: &Float, b: &Float) -> Float {
    Float::with_val(a.prec() + b.prec(), a * b)
}

fn exact_all<T: Fmt>(x: &[T]) -> Vec<Float> {
    x.iter().map(Fmt::exact).collect()
}

/// `|got − want|` exactly.
fn abs_diff(got: &Float, want: &Float) -> Float {
    exact_sum(&[got.clone(), Float::with_val(want.prec(), -want)]).abs()
}

// ---- the bound check, and how tight the bounds are --------------------------------------------

thread_local! {
    /// The largest `error / bound` per routine in this test (each test runs on its own thread).
    static WORST: RefCell<BTreeMap<String, f64>> = const { RefCell::new(BTreeMap::new()) };
}

fn record(what: String, ratio: f64) {
    WORST.with(|w| {
        let mut w = w.borrow_mut();
        let e = w.entry(what).or_insert(0.0);
        *e = e.max(ratio);
    });
}

/// Prints how close to its bound each routine came in this test.
fn report(test: &str) {
    WORST.with(|w| {
        for (what, r) in std::mem::take(&mut *w.borrow_mut()) {
            eprintln!("{test}: {what}: largest error/bound {r:.3e}");
        }
    });
}

/// `|r.value − exact| ≤ r.error_bound`, with a finite value and a finite bound (a bound of `∞`
/// would hold for anything).
fn assert_within<T: Fmt>(what: &str, r: &Bounded<T>, exact: &Float, label: &str) {
    assert!(
        r.value.class() != FpCategory::Nan && r.value.class() != FpCategory::Infinite,
        "{label}: {what} gave {:?} for finite data with exact {exact:e}",
        r.value
    );
    assert!(
        r.error_bound.is_finite(),
        "{label}: {what} returned an infinite bound for finite data"
    );
    let err = abs_diff(&r.value.exact(), exact);
    assert!(
        err <= r.error_bound,
        "{label}: {what} = {:e}, exact {:.20e}: error {:.3e} above the bound {:.3e}",
        r.value.nearest_f64(),
        exact.to_f64(),
        err.to_f64(),
        r.error_bound
    );
    if r.error_bound > 0.0 {
        record(
            format!("{} {what}", T::FORMAT),
            err.to_f64() / r.error_bound,
        );
    }
}

// ---- inputs -----------------------------------------------------------------------------------

/// The input families of the bound tests.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// Full-precision values, magnitudes `2^±40`, random signs.
    Random,
    /// `v, tiny, …, −v` (the MPRES paper's `[10]*2047 + [1e-18]*2 + [−10]*2047` with random
    /// full-precision `v`): the exact sum is the tiny terms, every partial sum is large.
    Cancel,
    /// Magnitudes `2^-1000 … 2^1000` in one vector, `1e300` next to `1e-300`.
    Wide,
    /// Subnormals and the smallest normals.
    Subnormal,
}

const KINDS: [Kind; 4] = [Kind::Random, Kind::Cancel, Kind::Wide, Kind::Subnormal];

/// `±m·2^e`, full 52-bit fraction, for a normal exponent.
fn lead(g: &mut SplitMix64, e: i64) -> f64 {
    g.sign() * g.f64_exp(e as i32)
}

/// A full-precision value of magnitude in `[2^e, 2^(e+1))`, random sign.
fn full_at<T: Fmt>(ctx: &T::Ctx, g: &mut SplitMix64, e: i64) -> T {
    let l = lead(g, e);
    T::full(ctx, g, l)
}

/// A full-precision value with leading word uniform in `[lo, hi)`.
fn full_in<T: Fmt>(ctx: &T::Ctx, g: &mut SplitMix64, lo: f64, hi: f64) -> T {
    let l = g.range(lo, hi);
    T::full(ctx, g, l)
}

/// A random subnormal, random sign.
fn subnormal(g: &mut SplitMix64) -> f64 {
    g.sign() * f64::from_bits((g.next_u64() >> 12).max(1))
}

/// The binary exponent of a finite nonzero `f64`.
fn exponent(x: f64) -> i64 {
    x.abs().log2().floor() as i64
}

/// How many `v`s on each side of the tiny terms in a `Cancel` vector of `n`.
fn cancel_pairs(n: usize) -> usize {
    if n >= 4 {
        n / 2 - 1
    } else {
        n.saturating_sub(1) / 2
    }
}

/// The vector `x` of kind `kind`.
fn vector<T: Fmt>(ctx: &T::Ctx, kind: Kind, n: usize, g: &mut SplitMix64) -> Vec<T> {
    match kind {
        Kind::Random => (0..n)
            .map(|_| {
                let e = g.int(-40, 40);
                full_at::<T>(ctx, g, e)
            })
            .collect(),
        Kind::Cancel => {
            let k = cancel_pairs(n);
            let v: Vec<T> = (0..k)
                .map(|_| {
                    let e = g.int(0, 10);
                    full_at::<T>(ctx, g, e)
                })
                .collect();
            let mut x = v.clone();
            x.extend((0..n - 2 * k).map(|_| value(ctx, 1e-18)));
            x.extend(v.iter().map(Scalar::neg_ref));
            x
        }
        Kind::Wide => {
            let mut x: Vec<T> = (0..n)
                .map(|_| {
                    let e = g.int(-1000, 1000);
                    full_at::<T>(ctx, g, e)
                })
                .collect();
            for (i, v) in [1e300, 1e-300, -1e300].into_iter().enumerate().take(n) {
                x[i] = T::full(ctx, g, v);
            }
            x
        }
        Kind::Subnormal => (0..n)
            .map(|i| {
                if i % 2 == 0 {
                    value(ctx, subnormal(g))
                } else {
                    let e = g.int(-1022, -1010);
                    full_at::<T>(ctx, g, e)
                }
            })
            .collect(),
    }
}

/// A partner `y` for a dot product with `x` of kind `kind`: for `Cancel`, the products of the
/// two halves cancel exactly (`y` mirrors the `v`s, ones against the tiny terms); for `Wide`,
/// the products span `2^±1000`; for `Subnormal`, they fall below the normal range (some below
/// the subnormal one).
fn partner<T: Fmt>(ctx: &T::Ctx, kind: Kind, x: &[T], g: &mut SplitMix64) -> Vec<T> {
    let n = x.len();
    match kind {
        Kind::Random => vector(ctx, Kind::Random, n, g),
        Kind::Cancel => {
            let k = cancel_pairs(n);
            let w = vector::<T>(ctx, Kind::Random, k, g);
            let mut y = w.clone();
            y.extend((0..n - 2 * k).map(|_| value(ctx, 1.0)));
            y.extend(w);
            y
        }
        Kind::Wide => x
            .iter()
            .map(|v| {
                let target = g.int(-1000, 1000);
                let e = (target - exponent(v.nearest_f64())).clamp(-1020, 1020);
                full_at::<T>(ctx, g, e)
            })
            .collect(),
        Kind::Subnormal => (0..n)
            .map(|i| {
                let e = if i % 3 == 0 {
                    g.int(-60, -30)
                } else {
                    g.int(-1, 2)
                };
                full_at::<T>(ctx, g, e)
            })
            .collect(),
    }
}

/// The MPRES summation paper's first dataset.
fn paper_dataset<T: Scalar>(ctx: &T::Ctx) -> Vec<T> {
    let mut s = vec![value(ctx, 10.0); 2047];
    s.extend([value(ctx, 1e-18), value(ctx, 1e-18)]);
    s.extend(vec![value(ctx, -10.0); 2047]);
    s
}

// ---- 1. the reductions within their bounds ----------------------------------------------------

fn check_sum<T: Fmt>(x: &[T], xe: &[Float], label: &str) {
    let exact = exact_sum(xe);
    for order in Summation::ALL {
        let r = blas::sum_bounded(VecRef::contiguous(x), order).unwrap();
        assert_within(&format!("sum {}", order.name()), &r, &exact, label);
    }
}

fn check_dot<T: Fmt>(x: &[T], y: &[T], xe: &[Float], ye: &[Float], label: &str) {
    let p: Vec<Float> = xe
        .iter()
        .zip(ye)
        .map(|(a, b)| exact_product(a, b))
        .collect();
    let exact = exact_sum(&p);
    for order in Summation::ALL {
        let r = blas::dot_bounded(VecRef::contiguous(x), VecRef::contiguous(y), order).unwrap();
        assert_within(&format!("dot {}", order.name()), &r, &exact, label);
    }
}

fn check_asum<T: Fmt>(x: &[T], xe: &[Float], label: &str) {
    let abs: Vec<Float> = xe.iter().map(|v| v.clone().abs()).collect();
    let r = blas::level1::asum_bounded(VecRef::contiguous(x)).unwrap();
    assert_within("asum", &r, &exact_sum(&abs), label);
}

/// `√(Σ x_i²)` in MPFR: the sum of squares exact, the root to 4096 bits (its error is far
/// below any bound checked here).
fn exact_nrm2(xe: &[Float]) -> Float {
    let sq: Vec<Float> = xe.iter().map(|v| exact_product(v, v)).collect();
    let s = exact_sum(&sq);
    Float::with_val(s.prec().max(4096), s.sqrt_ref())
}

fn check_nrm2<T: Fmt>(x: &[T], xe: &[Float], label: &str) -> Bounded<T> {
    let r = blas::nrm2_bounded(VecRef::contiguous(x)).unwrap();
    assert_within("nrm2", &r, &exact_nrm2(xe), label);
    r
}

/// Every reduction of one input against MPFR.
fn check_reductions<T: Fmt>(ctx: &T::Ctx, kind: Kind, n: usize, seed: u64) {
    let mut g = SplitMix64::new(seed);
    let x = vector::<T>(ctx, kind, n, &mut g);
    let y = partner::<T>(ctx, kind, &x, &mut g);
    let (xe, ye) = (exact_all(&x), exact_all(&y));
    let label = format!("{} {kind:?} n = {n}", T::FORMAT);
    check_sum(&x, &xe, &label);
    check_dot(&x, &y, &xe, &ye, &label);
    check_asum(&x, &xe, &label);
    check_nrm2(&x, &xe, &label);
}

/// Every reduction on every kind and length, with `seeds` random draws of each.
fn reductions_for<T: Fmt>(ctx: &T::Ctx, lengths: &[usize], kinds: &[Kind], seeds: u64) {
    for (k, &kind) in kinds.iter().enumerate() {
        for &n in lengths {
            for s in 0..seeds {
                check_reductions::<T>(ctx, kind, n, (1000 * k + n) as u64 + (s << 32));
            }
        }
    }
    let paper = paper_dataset::<T>(ctx);
    check_sum(
        &paper,
        &exact_all(&paper),
        &format!("{} paper dataset", T::FORMAT),
    );
}

#[test]
fn f64_reductions_within_their_bounds() {
    reductions_for::<f64>(&(), &LENGTHS, &KINDS, 5);
    report("f64");
}

#[test]
fn dd_reductions_within_their_bounds() {
    reductions_for::<Dd>(&(), &LENGTHS, &KINDS, 5);
    report("dd");
}

#[test]
fn qd_reductions_within_their_bounds() {
    reductions_for::<Qd>(&(), &LENGTHS, &KINDS, 3);
    report("qd");
}

#[test]
fn rns_106_reductions_within_their_bounds() {
    reductions_for::<MpFloat>(&Basis::new(106).unwrap(), &LENGTHS, &KINDS, 1);
    report("rns 106");
}

#[test]
fn rns_424_reductions_within_their_bounds() {
    reductions_for::<MpFloat>(&Basis::new(424).unwrap(), &LENGTHS, &KINDS, 1);
    report("rns 424");
}

/// 100 000 elements: 25 chunks of the blocked order, run in parallel, two passes.
#[test]
fn long_vectors_within_their_bounds() {
    reductions_for::<f64>(&(), &[BIG], &KINDS, 1);
    reductions_for::<Dd>(&(), &[BIG], &KINDS, 1);
    reductions_for::<Qd>(&(), &[BIG], &KINDS, 1);
    reductions_for::<MpFloat>(&Basis::new(106).unwrap(), &[BIG], &[Kind::Wide], 1);
    report("long");
}

/// Values near `f64::MAX` with `Σ|x_i| < MAX/2`, so that no partial sum in any order overflows
/// (the bounds assume none does): the multi-word formats' error-free transformations must not
/// overflow inside. Dot products against `|y_i| ≤ 1`.
fn huge_values<T: Fmt>(ctx: &T::Ctx) {
    let mut g = SplitMix64::new(1023);
    for n in [1, 2, 3, 5, 8] {
        let top = f64::MAX / (2 * n) as f64;
        let x: Vec<T> = (0..n)
            .map(|_| {
                let v = g.sign() * g.range(0.5, 1.0) * top;
                T::full(ctx, &mut g, v)
            })
            .collect();
        let y: Vec<T> = (0..n)
            .map(|_| full_in::<T>(ctx, &mut g, -1.0, 1.0))
            .collect();
        let (xe, ye) = (exact_all(&x), exact_all(&y));
        let label = format!("{} huge n = {n}", T::FORMAT);
        check_sum(&x, &xe, &label);
        check_dot(&x, &y, &xe, &ye, &label);
        check_asum(&x, &xe, &label);
        check_nrm2(&x, &xe, &label);
    }
}

#[test]
fn huge_values_do_not_overflow_inside() {
    huge_values::<f64>(&());
    huge_values::<Dd>(&());
    huge_values::<Qd>(&());
    huge_values::<MpFloat>(&Basis::new(106).unwrap());
    report("huge");
}

/// RNS numbers below the `f64` range (`2^-3000 … 2^-2000`): the errors are far below the
/// smallest subnormal, and the `f64` bounds must still not round to 0.
#[test]
fn rns_values_below_the_f64_range_keep_a_nonzero_bound() {
    let b = Basis::new(106).unwrap();
    let mut g = SplitMix64::new(3000);
    for n in [1, 2, 3, 300, 5000] {
        let x: Vec<MpFloat> = (0..n)
            .map(|_| {
                let e = g.int(-1000, 0);
                full_at::<MpFloat>(&b, &mut g, e).mul_pow2(-2000)
            })
            .collect();
        let y = vector::<MpFloat>(&b, Kind::Random, n, &mut g);
        let (xe, ye) = (exact_all(&x), exact_all(&y));
        let label = format!("rns 2^-3000.. n = {n}");
        check_sum(&x, &xe, &label);
        check_dot(&x, &y, &xe, &ye, &label);
        check_asum(&x, &xe, &label);
        check_nrm2(&x, &xe, &label);
    }
}

// ---- 2. nrm2 at the ends of the range ---------------------------------------------------------

/// `nrm2` within its bound, finite, and with a bound below the result itself (a bound as
/// large as the norm would accept `0`).
fn check_nrm2_extreme<T: Fmt>(x: &[T], label: &str) {
    let xe = exact_all(x);
    let r = check_nrm2(x, &xe, label);
    let exact = exact_nrm2(&xe);
    // Relative 1e-6, or the format's underflow allowance `2n·η` and a few subnormal ulps
    // where the result itself cannot be closer.
    let eta = T::underflow_error_in(&x[0].ctx());
    let floor = 2.0 * x.len() as f64 * eta + 8.0 * f64::from_bits(1);
    let meaningful = (exact.to_f64() * 1e-6).max(floor);
    assert!(
        r.error_bound <= meaningful,
        "{label}: nrm2 = {:e}: the bound {:e} does not tell it from 0 (exact {exact:.6e})",
        r.value.nearest_f64(),
        r.error_bound
    );
}

fn nrm2_extremes_for<T: Fmt>(ctx: &T::Ctx) {
    let f = |vs: &[f64]| -> Vec<T> { vs.iter().map(|&v| value(ctx, v)).collect() };
    let mut cases: Vec<(&str, Vec<T>)> = vec![
        ("[1e300, 1e300]", f(&[1e300, 1e300])),
        ("[-1e300, 1e300, 3e299]", f(&[-1e300, 1e300, 3e299])),
        ("[MAX/2, MAX/2]", f(&[f64::MAX / 2.0, -f64::MAX / 2.0])),
        ("[MAX]", f(&[f64::MAX])),
        ("[1e-310, 1e-310]", f(&[1e-310, 1e-310])),
        ("[2^-1074; 3]", f(&[f64::from_bits(1); 3])),
        ("[1e-200, 3e-200]", f(&[1e-200, -3e-200])),
        ("big+med+sml", f(&[1e200, 1.0, 1e-200, -3e199])),
        ("med+sml", f(&[1e-200, 1e-300, 1.0, -2.5])),
        ("sml+med close", f(&[1e-155, 2e-155, 3e-154])),
    ];
    // The top of the format's own range, where it is the f64 one (RNS reaches 2^(2^60)).
    let max = T::max_finite_in(ctx);
    if max.nearest_f64().is_finite() {
        // Not the largest value itself: a root rounded up by an ulp leaves the range there
        // (Qd's `nrm2([Qd::MAX])` is `+∞`, the root being `2^-215` high, as IEEE rounding).
        let almost = max.mul_ref(&value(ctx, 1.0 - 2f64.powi(-20)));
        let (third, half) = (
            max.div_ref(&value(ctx, -3.0)),
            max.div_ref(&value(ctx, 2.0)),
        );
        cases.push(("[max·(1 − 2^-20)]", vec![almost]));
        cases.push(("[-max/3, max/2]", vec![third, half]));
    }
    for (name, x) in &cases {
        check_nrm2_extreme(x, &format!("{} {name}", T::FORMAT));
    }
    // Full-precision data across the whole range, and long runs of huge and tiny values.
    let mut g = SplitMix64::new(77);
    let mut wide: Vec<T> = (0..3000)
        .map(|_| {
            let e = g.int(-1020, 1010);
            full_at::<T>(ctx, &mut g, e)
        })
        .collect();
    wide.extend((0..500).map(|_| value(ctx, subnormal(&mut g))));
    check_nrm2_extreme(&wide, &format!("{} wide", T::FORMAT));
    // Around Blue's thresholds: tbig = 2^486; tsml = 2^-510 (f64), 2^-484 (Dd), 2^-430 (Qd).
    let ranges = [
        (1005, 1015),
        (-1022, -1000),
        (480, 490),
        (-520, -500),
        (-490, -480),
        (-435, -425),
    ];
    for e in ranges {
        let x: Vec<T> = (0..5000)
            .map(|_| {
                let k = g.int(e.0, e.1);
                full_at::<T>(ctx, &mut g, k)
            })
            .collect();
        check_nrm2_extreme(&x, &format!("{} 2^{e:?}", T::FORMAT));
    }
}

#[test]
fn nrm2_neither_overflows_nor_flushes_to_zero() {
    nrm2_extremes_for::<f64>(&());
    nrm2_extremes_for::<Dd>(&());
    nrm2_extremes_for::<Qd>(&());
    nrm2_extremes_for::<MpFloat>(&Basis::new(106).unwrap());
    // A sanity value: √2·1e300 and √2·1e-310, not ∞ and not 0.
    let r = blas::nrm2(VecRef::contiguous(&[1e300, 1e300])).unwrap();
    assert!((r / 1e300 - std::f64::consts::SQRT_2).abs() < 1e-15);
    let r = blas::nrm2(VecRef::contiguous(&[1e-310, 1e-310])).unwrap();
    assert!(
        (r / 1e-310 - std::f64::consts::SQRT_2).abs() < 1e-10,
        "{r:e}"
    );
    report("nrm2 extremes");
}

/// `n` products just under `2^-1075` (`2^-538 · (2 − 2^-51)·2^-538`): each rounds to 0 with an
/// error of nearly half a subnormal ulp, and the computed `Σ|x_i·y_i|` is 0 too, so only the
/// bound's underflow allowance `2n·η` can cover the error `≈ n·2^-1075`.
fn underflowing_products<T: Fmt>(ctx: &T::Ctx) {
    for n in [1, 2, 3, 1000, 5000] {
        let x = vec![value::<T>(ctx, pow2(-538)); n];
        let y = vec![value::<T>(ctx, (2.0 - pow2(-51)) * pow2(-538)); n];
        let label = format!("{} {n} products under 2^-1075", T::FORMAT);
        check_dot(&x, &y, &exact_all(&x), &exact_all(&y), &label);
    }
}

/// Fails for `f64` while `f64::underflow_error_in` (scalar.rs) evaluates `2^-1074 / 2`, which
/// rounds to 0 (ties to even), so that `f64` bounds carry no underflow allowance.
#[test]
fn bounds_cover_products_below_the_subnormal_range() {
    underflowing_products::<Dd>(&());
    underflowing_products::<Qd>(&());
    underflowing_products::<f64>(&());
}

// ---- 3. special values ------------------------------------------------------------------------

fn is_nan<T: Scalar>(v: &T) -> bool {
    v.class() == FpCategory::Nan
}

/// `v` is the infinity of sign `neg`.
fn is_inf<T: Fmt>(v: &T, neg: bool) -> bool {
    v.class() == FpCategory::Infinite && v.sign_bit() == neg
}

/// A vector of `n` full-precision values in `(−2, 2)` with `specials` at the given indices.
fn with_specials<T: Fmt>(ctx: &T::Ctx, n: usize, specials: &[(usize, f64)]) -> Vec<T> {
    let mut g = SplitMix64::new(n as u64);
    let mut x: Vec<T> = (0..n)
        .map(|_| full_in::<T>(ctx, &mut g, -2.0, 2.0))
        .collect();
    for &(i, v) in specials {
        x[i] = value(ctx, v);
    }
    x
}

/// The sum in every order, `dot` with a finite nonzero partner (ones: no `∞·0`), and `asum`
/// and `nrm2`: `expect_sum` is "nan", "+inf" or "-inf"; `asum`/`nrm2` must give NaN if
/// `nan_in_data`, else `+∞`.
fn check_special_sums<T: Fmt>(x: &[T], expect_sum: &str, nan_in_data: bool, label: &str) {
    let ctx = x[0].ctx();
    let ones = vec![value::<T>(&ctx, 1.0); x.len()];
    let ok = |v: &T| match expect_sum {
        "nan" => is_nan(v),
        "+inf" => is_inf(v, false),
        _ => is_inf(v, true),
    };
    for order in Summation::ALL {
        let s = blas::sum_bounded(VecRef::contiguous(x), order).unwrap();
        assert!(ok(&s.value), "{label}: sum {}: {:?}", order.name(), s.value);
        assert_eq!(s.error_bound, f64::INFINITY, "{label}: no bound holds");
        let d = blas::dot_bounded(VecRef::contiguous(x), VecRef::contiguous(&ones), order);
        let d = d.unwrap();
        assert!(ok(&d.value), "{label}: dot {}: {:?}", order.name(), d.value);
        assert_eq!(d.error_bound, f64::INFINITY);
    }
    for (name, r) in [
        (
            "asum",
            blas::level1::asum_bounded(VecRef::contiguous(x)).unwrap(),
        ),
        ("nrm2", blas::nrm2_bounded(VecRef::contiguous(x)).unwrap()),
    ] {
        let good = if nan_in_data {
            is_nan(&r.value)
        } else {
            is_inf(&r.value, false)
        };
        assert!(good, "{label}: {name}: {:?}", r.value);
        assert_eq!(r.error_bound, f64::INFINITY);
    }
}

fn specials_for<T: Fmt>(ctx: &T::Ctx) {
    let (nan, inf) = (f64::NAN, f64::INFINITY);
    let f = T::FORMAT;
    for n in [1, 2, 5, 4097, 3 * 4096 + 5] {
        let last = n - 1;
        let mid = n / 2;
        for at in [0, mid, last] {
            let x = with_specials::<T>(ctx, n, &[(at, nan)]);
            check_special_sums(&x, "nan", true, &format!("{f} n = {n}: NaN at {at}"));
            let x = with_specials::<T>(ctx, n, &[(at, inf)]);
            check_special_sums(&x, "+inf", false, &format!("{f} n = {n}: +inf at {at}"));
            let x = with_specials::<T>(ctx, n, &[(at, -inf)]);
            check_special_sums(&x, "-inf", false, &format!("{f} n = {n}: -inf at {at}"));
        }
        if n >= 2 {
            let x = with_specials::<T>(ctx, n, &[(0, inf), (last, -inf)]);
            check_special_sums(&x, "nan", false, &format!("{f} n = {n}: +inf and -inf"));
            let x = with_specials::<T>(ctx, n, &[(mid, inf), (last, nan)]);
            check_special_sums(&x, "nan", true, &format!("{f} n = {n}: inf then NaN"));
            let x = with_specials::<T>(ctx, n, &[(0, nan), (last, -inf)]);
            check_special_sums(&x, "nan", true, &format!("{f} n = {n}: NaN then -inf"));
        }
    }
    // ∞·0 is NaN, as IEEE.
    let x = [value::<T>(ctx, inf), value(ctx, 1.0)];
    let y = [value::<T>(ctx, 0.0), value(ctx, 1.0)];
    for order in Summation::ALL {
        let d = blas::dot_ordered(VecRef::contiguous(&x), VecRef::contiguous(&y), order);
        assert!(is_nan(&d.unwrap()), "{f}: inf·0 in dot");
    }
}

#[test]
fn specials_propagate_in_every_format() {
    specials_for::<f64>(&());
    specials_for::<Dd>(&());
    specials_for::<Qd>(&());
    specials_for::<MpFloat>(&Basis::new(106).unwrap());
}

/// A sum of `−0`s is `−0` in every order (the accumulators start at `−0`), and an empty sum is
/// `+0` with bound 0.
fn negative_zero_sums<T: Fmt>(ctx: &T::Ctx) {
    for n in [1, 2, 3, 256, 4097, 40_000] {
        let x = vec![value::<T>(ctx, -0.0); n];
        let ones = vec![value::<T>(ctx, 1.0); n];
        for order in Summation::ALL {
            let s = blas::sum_ordered(VecRef::contiguous(&x), order).unwrap();
            assert!(
                s.class() == FpCategory::Zero && s.sign_bit(),
                "{} n = {n}",
                T::FORMAT
            );
            // −0·1 = −0 too.
            let d = blas::dot_ordered(VecRef::contiguous(&x), VecRef::contiguous(&ones), order);
            let d = d.unwrap();
            assert!(
                d.class() == FpCategory::Zero && d.sign_bit(),
                "{} dot",
                T::FORMAT
            );
        }
        // |−0| = +0.
        let a = blas::asum(VecRef::contiguous(&x)).unwrap();
        assert!(a.class() == FpCategory::Zero && !a.sign_bit());
    }
    let empty: [T; 0] = [];
    for order in Summation::ALL {
        let s = blas::sum_bounded(VecRef::contiguous(&empty), order).unwrap();
        assert!(s.value.class() == FpCategory::Zero && !s.value.sign_bit());
        assert_eq!(s.error_bound, 0.0);
    }
    let r = blas::nrm2_bounded(VecRef::contiguous(&empty)).unwrap();
    assert!(r.value.class() == FpCategory::Zero && r.error_bound == 0.0);
    // The norm of zeros is +0.
    let zeros = [value::<T>(ctx, -0.0), value(ctx, 0.0), value(ctx, -0.0)];
    let r = blas::nrm2(VecRef::contiguous(&zeros)).unwrap();
    assert!(
        r.class() == FpCategory::Zero && !r.sign_bit(),
        "{} nrm2 of zeros",
        T::FORMAT
    );
}

#[test]
fn sums_of_negative_zeros_are_negative_zero() {
    negative_zero_sums::<f64>(&());
    negative_zero_sums::<Dd>(&());
    negative_zero_sums::<Qd>(&());
    negative_zero_sums::<MpFloat>(&Basis::new(106).unwrap());
}

fn iamax_of<T: Scalar>(x: &[T]) -> Option<usize> {
    blas::iamax(VecRef::contiguous(x)).unwrap()
}

fn iamax_for<T: Fmt>(ctx: &T::Ctx) {
    let f = |vs: &[f64]| -> Vec<T> { vs.iter().map(|&v| value(ctx, v)).collect() };
    let (nan, inf) = (f64::NAN, f64::INFINITY);
    assert_eq!(iamax_of::<T>(&[]), None);
    assert_eq!(
        iamax_of(&f(&[1.0, -3.0, 3.0, 2.0])),
        Some(1),
        "first of the largest"
    );
    assert_eq!(iamax_of(&f(&[1.0, nan, inf, nan])), Some(1), "first NaN");
    assert_eq!(iamax_of(&f(&[inf, 1.0, nan])), Some(2), "NaN beats inf");
    assert_eq!(iamax_of(&f(&[1.0, 2.0, -inf, inf])), Some(2));
    assert_eq!(iamax_of(&f(&[-0.0, 0.0])), Some(0));
    assert_eq!(iamax_of(&f(&[1e-310, -2e-310, 2e-310])), Some(1));
    // The lower words decide between equal leading words.
    let one = value::<T>(ctx, 1.0);
    let tiny = value::<T>(ctx, 2f64.powi(-80));
    let x = vec![
        one.clone(),
        one.add_ref(&tiny).neg_ref(),
        one.add_ref(&tiny),
        one,
    ];
    let expect = if T::FORMAT == "f64" { 0 } else { 1 };
    assert_eq!(iamax_of(&x), Some(expect), "{}", T::FORMAT);
    // A long vector (five chunks): the first of two equal largest magnitudes, then a NaN
    // between them.
    let mut long = f(&vec![0.5; 20_000]);
    long[13_000] = value(ctx, -7.0);
    long[19_999] = value(ctx, 7.0);
    assert_eq!(iamax_of(&long), Some(13_000));
    long[15_000] = value(ctx, nan);
    assert_eq!(iamax_of(&long), Some(15_000));
}

#[test]
fn iamax_finds_the_first_nan_else_the_first_largest() {
    iamax_for::<f64>(&());
    iamax_for::<Dd>(&());
    iamax_for::<Qd>(&());
    iamax_for::<MpFloat>(&Basis::new(106).unwrap());
}

// ---- 4. reproducibility across thread counts --------------------------------------------------

/// Runs `f` in rayon pools of 1, 2, 3 and 8 threads and asserts equal results.
fn same_in_every_pool<R: PartialEq + std::fmt::Debug + Send>(what: &str, f: impl Fn() -> R + Sync) {
    let mut first: Option<R> = None;
    for k in [1, 2, 3, 8] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(k)
            .build()
            .unwrap();
        let r = pool.install(&f);
        match &first {
            None => first = Some(r),
            Some(f0) => assert!(r == *f0, "{what}: {k} threads give other bits"),
        }
    }
}

/// The bits of every generic reduction of `x` (and `x·y`) in every order.
fn all_reductions<T: Fmt>(x: &[T], y: &[T]) -> Vec<Vec<u64>> {
    let (xv, yv) = (VecRef::contiguous(x), VecRef::contiguous(y));
    let mut out = Vec::new();
    for order in Summation::ALL {
        let s = blas::sum_bounded(xv, order).unwrap();
        let d = blas::dot_bounded(xv, yv, order).unwrap();
        out.extend([s.value.words(), d.value.words()]);
        out.push(vec![s.error_bound.to_bits(), d.error_bound.to_bits()]);
    }
    let a = blas::level1::asum_bounded(xv).unwrap();
    let r = blas::nrm2_bounded(xv).unwrap();
    out.extend([a.value.words(), r.value.words()]);
    out.push(vec![a.error_bound.to_bits(), r.error_bound.to_bits()]);
    out.push(vec![blas::iamax(xv).unwrap().unwrap_or(usize::MAX) as u64]);
    out
}

fn reproducible<T: Fmt>(ctx: &T::Ctx, n: usize) {
    for kind in [Kind::Random, Kind::Wide] {
        let mut g = SplitMix64::new(n as u64);
        let x = vector::<T>(ctx, kind, n, &mut g);
        let y = partner::<T>(ctx, kind, &x, &mut g);
        let what = format!("{} {kind:?} n = {n}", T::FORMAT);
        same_in_every_pool(&what, || all_reductions(&x, &y));
    }
}

#[test]
fn reductions_give_the_same_bits_for_any_thread_count() {
    reproducible::<f64>(&(), 300_000);
    reproducible::<f64>(&(), 50_001);
    reproducible::<Dd>(&(), 200_000);
    reproducible::<Qd>(&(), 70_000);
    reproducible::<MpFloat>(&Basis::new(106).unwrap(), 40_000);
}

#[test]
fn accurate_routines_give_the_same_bits_for_any_thread_count() {
    for (n, seed) in [(300_000, 1), (50_000, 2), (123_457, 3)] {
        let mut g = SplitMix64::new(seed);
        let x = vector::<f64>(&(), Kind::Wide, n, &mut g);
        let y = partner::<f64>(&(), Kind::Wide, &x, &mut g);
        let (xv, yv) = (VecRef::contiguous(&x), VecRef::contiguous(&y));
        same_in_every_pool("f64 accurate", || {
            let s2 = accurate::sum2_bounded(xv).unwrap();
            let d2 = accurate::dot2_bounded(xv, yv).unwrap();
            [
                s2.value,
                s2.error_bound,
                d2.value,
                d2.error_bound,
                accurate::sum_correctly_rounded(xv).unwrap(),
                accurate::dot_correctly_rounded(xv, yv).unwrap(),
            ]
            .map(f64::to_bits)
        });
    }
}

// ---- 5. strided views, BLAS entries, errors ---------------------------------------------------

/// Where element `i` of a BLAS vector of `n` elements with increment `inc` lies in storage.
fn position(i: usize, n: usize, inc: isize) -> usize {
    let step = inc.unsigned_abs();
    if inc > 0 {
        i * step
    } else {
        (n - 1 - i) * step
    }
}

fn random_data<T: Fmt>(ctx: &T::Ctx, len: usize, seed: u64) -> Vec<T> {
    vector(ctx, Kind::Random, len, &mut SplitMix64::new(seed))
}

/// The reductions on views with increments `incx`, `incy` give the bits of the same
/// reductions on packed copies in element order.
fn strided_reductions<T: Fmt>(ctx: &T::Ctx, n: usize, incx: isize, incy: isize) {
    let lenx = (n - 1) * incx.unsigned_abs() + 1;
    let leny = (n - 1) * incy.unsigned_abs() + 1;
    let xd = random_data::<T>(ctx, lenx, 1);
    let yd = random_data::<T>(ctx, leny, 2);
    let xv = VecRef::from_blas("x", n, &xd, incx).unwrap();
    let yv = VecRef::from_blas("y", n, &yd, incy).unwrap();
    let xp: Vec<T> = xv.iter().cloned().collect();
    let yp: Vec<T> = yv.iter().cloned().collect();
    for i in [0, n / 2, n - 1] {
        assert_eq!(xp[i].words(), xd[position(i, n, incx)].words());
    }
    let (xc, yc) = (VecRef::contiguous(&xp), VecRef::contiguous(&yp));
    let label = format!("{} n = {n}, incx = {incx}, incy = {incy}", T::FORMAT);
    for order in Summation::ALL {
        let (a, b) = (blas::sum_bounded(xv, order), blas::sum_bounded(xc, order));
        let (a, b) = (a.unwrap(), b.unwrap());
        assert_eq!(a.value.words(), b.value.words(), "{label}: sum");
        assert_eq!(a.error_bound, b.error_bound, "{label}: sum bound");
        let a = blas::dot_ordered(xv, yv, order).unwrap();
        let b = blas::dot_ordered(xc, yc, order).unwrap();
        assert_eq!(a.words(), b.words(), "{label}: dot");
    }
    let eq = |a: T, b: T, what: &str| assert_eq!(a.words(), b.words(), "{label}: {what}");
    eq(blas::asum(xv).unwrap(), blas::asum(xc).unwrap(), "asum");
    eq(blas::nrm2(xv).unwrap(), blas::nrm2(xc).unwrap(), "nrm2");
    assert_eq!(blas::iamax(xv).unwrap(), blas::iamax(xc).unwrap());
}

/// `axpy`, `scal`, `rot` on strided views write the bits of the packed computation to the
/// view's elements and leave the storage between them untouched.
fn strided_updates<T: Fmt>(ctx: &T::Ctx, n: usize, incx: isize, incy: isize) {
    let lenx = (n - 1) * incx.unsigned_abs() + 1;
    let leny = (n - 1) * incy.unsigned_abs() + 1;
    let xd = random_data::<T>(ctx, lenx, 3);
    let yd = random_data::<T>(ctx, leny, 4);
    let alpha = T::full(ctx, &mut SplitMix64::new(5), 0.75);
    let (c, s) = (value::<T>(ctx, 0.6), value::<T>(ctx, 0.8));
    let pack = |d: &[T], inc: isize| -> Vec<T> {
        (0..n).map(|i| d[position(i, n, inc)].clone()).collect()
    };
    // Compares a strided result with the packed one, and the gaps with the original storage.
    let same = |got: &[T], packed: &[T], orig: &[T], inc: isize, what: &str| {
        let mut touched = vec![false; got.len()];
        for (i, p) in packed.iter().enumerate() {
            let at = position(i, n, inc);
            touched[at] = true;
            assert_eq!(got[at].words(), p.words(), "{what} inc {inc}: element {i}");
        }
        for (k, t) in touched.iter().enumerate() {
            if !t {
                assert_eq!(got[k].words(), orig[k].words(), "{what} inc {inc}: gap {k}");
            }
        }
    };
    let (xp, yp) = (pack(&xd, incx), pack(&yd, incy));
    // axpy
    let mut y = yd.clone();
    let mut ypk = yp.clone();
    let xv = VecRef::from_blas("x", n, &xd, incx).unwrap();
    blas::axpy(&alpha, xv, VecMut::from_blas("y", n, &mut y, incy).unwrap()).unwrap();
    blas::axpy(
        &alpha,
        VecRef::contiguous(&xp),
        VecMut::contiguous(&mut ypk),
    )
    .unwrap();
    same(&y, &ypk, &yd, incy, "axpy");
    // scal
    let mut x = xd.clone();
    let mut xpk = xp.clone();
    blas::scal(&alpha, VecMut::from_blas("x", n, &mut x, incx).unwrap()).unwrap();
    blas::scal(&alpha, VecMut::contiguous(&mut xpk)).unwrap();
    same(&x, &xpk, &xd, incx, "scal");
    // rot
    let (mut x, mut y) = (xd.clone(), yd.clone());
    let (mut xpk, mut ypk) = (xp, yp);
    let xm = VecMut::from_blas("x", n, &mut x, incx).unwrap();
    let ym = VecMut::from_blas("y", n, &mut y, incy).unwrap();
    blas::rot(xm, ym, &c, &s).unwrap();
    let (xm, ym) = (VecMut::contiguous(&mut xpk), VecMut::contiguous(&mut ypk));
    blas::rot(xm, ym, &c, &s).unwrap();
    same(&x, &xpk, &xd, incx, "rot x");
    same(&y, &ypk, &yd, incy, "rot y");
}

fn strided_for<T: Fmt>(ctx: &T::Ctx) {
    for (incx, incy) in [(2, -1), (-1, 3), (-3, 1), (2, 2), (-3, -2)] {
        for n in [1, 7, 5000] {
            strided_reductions::<T>(ctx, n, incx, incy);
            strided_updates::<T>(ctx, n, incx, incy);
        }
    }
}

#[test]
fn strided_views_give_the_bits_of_packed_copies() {
    strided_for::<f64>(&());
    strided_for::<Dd>(&());
    strided_for::<Qd>(&());
    strided_for::<MpFloat>(&Basis::new(106).unwrap());
}

/// The BLAS-style entries on small hand-checked cases (exact in `f64`), and the same bits as
/// the view routines in `Dd`.
#[test]
fn blas_entries_follow_reference_blas() {
    let x: Vec<f64> = (1..=9).map(f64::from).collect(); // incx = 2: 1, 3, 5, 7, 9
    let y = [1.0, 1.0, 1.0, 1.0, 2.0]; // incy = −1: 2, 1, 1, 1, 1
    assert_eq!(
        dot_blas(5, &x, 2, &y, -1).unwrap(),
        2.0 + 3.0 + 5.0 + 7.0 + 9.0
    );
    assert_eq!(dot_blas(0, &x, 2, &y, -1).unwrap(), 0.0);
    assert_eq!(asum_blas(3, &[-1.0, 9.0, 2.0, 9.0, -3.0], 2).unwrap(), 6.0);
    assert_eq!(nrm2_blas(2, &[3.0, 9.0, 9.0, -4.0], -3).unwrap(), 5.0);
    assert_eq!(
        iamax_blas(4, &[1.0, -5.0, 5.0, 0.0], 1).unwrap(),
        2,
        "1-based"
    );
    assert_eq!(iamax_blas(3, &[1.0, 0.0, -2.0, 0.0, 2.0], 2).unwrap(), 2);
    assert_eq!(iamax_blas::<f64>(0, &[], 1).unwrap(), 0);
    // Reference BLAS returns 0 for incx ≤ 0.
    assert_eq!(iamax_blas(2, &[1.0, 2.0], -1).unwrap(), 0);
    assert_eq!(iamax_blas(2, &[1.0, 2.0], 0).unwrap(), 0);
    let mut yy = [1.0, 10.0, 2.0, 20.0, 3.0];
    axpy_blas(3, &2.0, &[1.0, 2.0, 3.0], -1, &mut yy, 2).unwrap();
    assert_eq!(yy, [7.0, 10.0, 6.0, 20.0, 5.0]);
    let mut xs = [1.0, 10.0, 2.0];
    scal_blas(2, &-3.0, &mut xs, -2).unwrap();
    assert_eq!(xs, [-3.0, 10.0, -6.0]);
    // Dd: the entries are the view routines.
    let xd = random_data::<Dd>(&(), 9, 11);
    let yd = random_data::<Dd>(&(), 5, 12);
    let xv = VecRef::from_blas("x", 5, &xd, -2).unwrap();
    let yv = VecRef::from_blas("y", 5, &yd, 1).unwrap();
    let d = dot_blas(5, &xd, -2, &yd, 1).unwrap();
    assert_eq!(d.words(), blas::dot(xv, yv).unwrap().words());
    assert_eq!(
        nrm2_blas(5, &xd, -2).unwrap().words(),
        blas::nrm2(xv).unwrap().words()
    );
    assert_eq!(
        asum_blas(5, &xd, -2).unwrap().words(),
        blas::asum(xv).unwrap().words()
    );
    assert_eq!(
        iamax_blas(5, &xd, 2).unwrap(),
        blas::iamax(VecRef::from_blas("x", 5, &xd, 2).unwrap())
            .unwrap()
            .unwrap()
            + 1
    );
}

fn is_invalid_view<R>(r: mpblas::Result<R>) -> bool {
    matches!(r, Err(Error::InvalidView { .. }))
}

fn is_too_short<R>(r: mpblas::Result<R>) -> bool {
    matches!(r, Err(Error::ArrayTooShort { .. }))
}

fn is_length_mismatch<R>(r: mpblas::Result<R>) -> bool {
    matches!(r, Err(Error::LengthMismatch { .. }))
}

fn is_basis_mismatch<R>(r: mpblas::Result<R>) -> bool {
    matches!(r, Err(Error::BasisMismatch { .. }))
}

#[test]
fn bad_increments_and_short_arrays_are_errors() {
    let x = [1.0, 2.0, 3.0, 4.0, 5.0];
    let mut y = [1.0; 5];
    assert!(is_invalid_view(VecRef::from_blas("x", 3, &x, 0)));
    assert!(is_invalid_view(VecMut::from_blas("y", 3, &mut y, 0)));
    assert!(is_invalid_view(dot_blas(3, &x, 0, &x, 1)));
    assert!(is_invalid_view(dot_blas(3, &x, 1, &x, 0)));
    assert!(is_invalid_view(axpy_blas(3, &1.0, &x, 0, &mut y, 1)));
    assert!(is_invalid_view(axpy_blas(3, &1.0, &x, 1, &mut y, 0)));
    assert!(is_invalid_view(nrm2_blas(3, &x, 0)));
    assert!(is_invalid_view(asum_blas(3, &x, 0)));
    assert!(is_invalid_view(scal_blas(3, &2.0, &mut y, 0)));
    // 1 + (n − 1)·|inc| elements are needed.
    assert!(is_too_short(VecRef::from_blas("x", 3, &x, 3)));
    assert!(is_too_short(VecRef::from_blas("x", 3, &x, -3)));
    assert!(is_too_short(VecRef::from_blas("x", 6, &x, 1)));
    assert!(is_too_short(dot_blas(4, &x, 2, &x, 1)));
    assert!(is_too_short(axpy_blas(6, &1.0, &x, 1, &mut y, 1)));
    assert!(is_too_short(nrm2_blas(3, &x, 3)));
    assert!(is_too_short(asum_blas(3, &x, -3)));
    assert!(is_too_short(scal_blas(2, &2.0, &mut y, 5)));
    assert!(is_too_short(iamax_blas(3, &x, 3)));
    assert!(is_too_short(VecRef::from_blas(
        "x",
        usize::MAX,
        &x,
        isize::MAX
    )));
    assert_eq!(y, [1.0; 5], "failed calls write nothing");
}

#[test]
fn length_mismatches_are_errors() {
    let x = [1.0, 2.0, 3.0];
    let z = [1.0, 2.0];
    let (xv, zv) = (VecRef::contiguous(&x), VecRef::contiguous(&z));
    assert!(is_length_mismatch(blas::dot(xv, zv)));
    for order in Summation::ALL {
        assert!(is_length_mismatch(blas::dot_bounded(xv, zv, order)));
    }
    assert!(is_length_mismatch(accurate::dot2(xv, zv)));
    assert!(is_length_mismatch(accurate::dot2_bounded(xv, zv)));
    assert!(is_length_mismatch(accurate::dot_correctly_rounded(xv, zv)));
    let mut y = [5.0, 6.0];
    assert!(is_length_mismatch(blas::axpy(
        &2.0,
        xv,
        VecMut::contiguous(&mut y)
    )));
    let mut xm = x;
    let (a, b) = (VecMut::contiguous(&mut xm), VecMut::contiguous(&mut y));
    assert!(is_length_mismatch(blas::rot(a, b, &0.6, &0.8)));
    assert_eq!(
        (xm, y),
        ([1.0, 2.0, 3.0], [5.0, 6.0]),
        "failed calls write nothing"
    );
}

/// RNS elements of two bases in one call are an error in every routine, found before anything
/// is written.
#[test]
fn mixed_rns_bases_are_errors() {
    let (b1, b2) = (Basis::new(106).unwrap(), Basis::new(212).unwrap());
    let good: Vec<MpFloat> = (1..=6)
        .map(|i| MpFloat::from_f64(&b1, f64::from(i)))
        .collect();
    let mut bad = good.clone();
    bad[4] = MpFloat::from_f64(&b2, 5.0);
    let (gv, bv) = (VecRef::contiguous(&good), VecRef::contiguous(&bad));
    assert!(is_basis_mismatch(blas::sum(bv)));
    for order in Summation::ALL {
        assert!(is_basis_mismatch(blas::sum_bounded(bv, order)));
        assert!(is_basis_mismatch(blas::dot_bounded(gv, bv, order)));
        assert!(is_basis_mismatch(blas::dot_bounded(bv, gv, order)));
    }
    assert!(is_basis_mismatch(blas::asum(bv)));
    assert!(is_basis_mismatch(blas::nrm2(bv)));
    assert!(is_basis_mismatch(blas::iamax(bv)));
    assert!(is_basis_mismatch(dot_blas(6, &good, 1, &bad, -1)));
    assert!(is_basis_mismatch(nrm2_blas(3, &bad, 2)));
    assert!(is_basis_mismatch(iamax_blas(6, &bad, 1)));
    let (one1, one2) = (MpFloat::from_f64(&b1, 1.0), MpFloat::from_f64(&b2, 1.0));
    let mut y = good.clone();
    assert!(is_basis_mismatch(blas::axpy(
        &one2,
        gv,
        VecMut::contiguous(&mut y)
    )));
    assert!(is_basis_mismatch(blas::axpy(
        &one1,
        bv,
        VecMut::contiguous(&mut y)
    )));
    assert!(is_basis_mismatch(blas::scal(
        &one2,
        VecMut::contiguous(&mut y)
    )));
    let mut b = bad.clone();
    assert!(is_basis_mismatch(blas::scal(
        &one1,
        VecMut::contiguous(&mut b)
    )));
    let mut x = good.clone();
    let (xm, ym) = (VecMut::contiguous(&mut x), VecMut::contiguous(&mut y));
    assert!(is_basis_mismatch(blas::rot(xm, ym, &one1, &one2)));
    let (xm, bm) = (VecMut::contiguous(&mut x), VecMut::contiguous(&mut b));
    assert!(is_basis_mismatch(blas::rot(xm, bm, &one1, &one1)));
    assert_eq!(bits_of(&y), bits_of(&good), "failed calls write nothing");
    assert_eq!(bits_of(&x), bits_of(&good));
    assert_eq!(bits_of(&b), bits_of(&bad));
}

// ---- 6. element-wise routines -----------------------------------------------------------------

/// `|got − exact| ≤ bound`, all three as MPFR numbers.
fn assert_elementwise(got: &Float, exact: &Float, bound: &Float, what: &str) {
    let err = abs_diff(got, exact);
    assert!(
        err <= *bound,
        "{what}: {got:e} vs exact {exact:e}: error {:.3e} above {:.3e}",
        err.to_f64(),
        bound.to_f64()
    );
    if *bound > 0.0 {
        record(
            what.split(':').next().unwrap_or(what).into(),
            (err / bound).to_f64(),
        );
    }
}

/// `factor·(|a| + |b|)` in MPFR.
fn componentwise(factor: f64, a: &Float, b: &Float) -> Float {
    let s = exact_sum(&[a.clone().abs(), b.clone().abs()]);
    Float::with_val(s.prec() + 53, s * factor)
}

/// Data for the element-wise tests: magnitudes `2^±40` or `2^±400` (products stay in the
/// normal range of every format, where the componentwise bounds are stated).
fn elementwise_data<T: Fmt>(ctx: &T::Ctx, n: usize, spread: i64, g: &mut SplitMix64) -> Vec<T> {
    (0..n)
        .map(|_| {
            let e = g.int(-spread, spread);
            full_at::<T>(ctx, g, e)
        })
        .collect()
}

fn check_axpy<T: Fmt>(alpha: &T, x: &[T], y0: &[T], label: &str) {
    let mut y = y0.to_vec();
    blas::axpy(alpha, VecRef::contiguous(x), VecMut::contiguous(&mut y)).unwrap();
    let factor = axpy_error_factor::<T>(&alpha.ctx());
    let ae = alpha.exact();
    for i in 0..x.len() {
        let ax = exact_product(&ae, &x[i].exact());
        let y0e = y0[i].exact();
        let exact = exact_sum(&[ax.clone(), y0e.clone()]);
        let bound = componentwise(factor, &ax, &y0e);
        let what = format!("{} axpy: {label} i = {i}", T::FORMAT);
        assert_elementwise(&y[i].exact(), &exact, &bound, &what);
    }
}

fn check_scal<T: Fmt>(alpha: &T, x0: &[T], label: &str) {
    let mut x = x0.to_vec();
    blas::scal(alpha, VecMut::contiguous(&mut x)).unwrap();
    let eps = T::op_error_bound_in(&alpha.ctx());
    for i in 0..x.len() {
        let exact = exact_product(&alpha.exact(), &x0[i].exact());
        let bound = componentwise(eps, &exact, &Float::new(53));
        let what = format!("{} scal: {label} i = {i}", T::FORMAT);
        assert_elementwise(&x[i].exact(), &exact, &bound, &what);
    }
}

fn check_rot<T: Fmt>(c: &T, s: &T, x0: &[T], y0: &[T], label: &str) {
    let (mut x, mut y) = (x0.to_vec(), y0.to_vec());
    blas::rot(VecMut::contiguous(&mut x), VecMut::contiguous(&mut y), c, s).unwrap();
    let g2 = gamma(2, T::op_error_bound_in(&c.ctx()));
    let (ce, se) = (c.exact(), s.exact());
    for i in 0..x.len() {
        let (xe, ye) = (x0[i].exact(), y0[i].exact());
        let (cx, sy) = (exact_product(&ce, &xe), exact_product(&se, &ye));
        let (cy, sx) = (exact_product(&ce, &ye), exact_product(&se, &xe));
        let msx = Float::with_val(sx.prec(), -&sx);
        let what = format!("{} rot: {label} i = {i}", T::FORMAT);
        let (xw, yw) = (
            exact_sum(&[cx.clone(), sy.clone()]),
            exact_sum(&[cy.clone(), msx]),
        );
        assert_elementwise(&x[i].exact(), &xw, &componentwise(g2, &cx, &sy), &what);
        assert_elementwise(&y[i].exact(), &yw, &componentwise(g2, &cy, &sx), &what);
    }
}

fn elementwise_for<T: Fmt>(ctx: &T::Ctx) {
    let mut g = SplitMix64::new(31);
    for (spread, n) in [(40, 1000), (400, 1000)] {
        let label = format!("2^±{spread}");
        let x = elementwise_data::<T>(ctx, n, spread, &mut g);
        let y = elementwise_data::<T>(ctx, n, spread, &mut g);
        let alpha = full_at::<T>(ctx, &mut g, -3);
        check_axpy(&alpha, &x, &y, &label);
        check_scal(&alpha, &x, &label);
        let c = full_in::<T>(ctx, &mut g, -1.0, 1.0);
        let s = full_in::<T>(ctx, &mut g, -1.0, 1.0);
        check_rot(&c, &s, &x, &y, &label);
        // Cancellation: y = −fl(α·x), so α·x + y is the rounding error of the product.
        let minus_ax: Vec<T> = x.iter().map(|v| alpha.mul_ref(v).neg_ref()).collect();
        check_axpy(&alpha, &x, &minus_ax, &format!("{label} cancelling"));
        // A rotation that cancels: s·y = −c·x to rounding.
        let y2: Vec<T> = x
            .iter()
            .map(|v| c.mul_ref(v).div_ref(&s).neg_ref())
            .collect();
        check_rot(&c, &s, &x, &y2, &format!("{label} cancelling"));
    }
}

#[test]
fn elementwise_routines_within_their_componentwise_bounds() {
    elementwise_for::<f64>(&());
    elementwise_for::<Dd>(&());
    elementwise_for::<Qd>(&());
    elementwise_for::<MpFloat>(&Basis::new(106).unwrap());
    elementwise_for::<MpFloat>(&Basis::new(424).unwrap());
    report("element-wise");
}

/// `α = 0` leaves `y` untouched, as reference BLAS: NaN and `∞` in `x` included.
fn axpy_zero_alpha<T: Fmt>(ctx: &T::Ctx) {
    let x: Vec<T> = [f64::NAN, f64::INFINITY, 1.0, -0.0]
        .iter()
        .map(|&v| value(ctx, v))
        .collect();
    let y0 = random_data::<T>(ctx, 4, 9);
    for zero in [0.0, -0.0] {
        let mut y = y0.clone();
        let a = value::<T>(ctx, zero);
        blas::axpy(&a, VecRef::contiguous(&x), VecMut::contiguous(&mut y)).unwrap();
        assert_eq!(bits_of(&y), bits_of(&y0), "{} α = {zero}", T::FORMAT);
    }
}

#[test]
fn axpy_with_zero_alpha_leaves_y_untouched() {
    axpy_zero_alpha::<f64>(&());
    axpy_zero_alpha::<Dd>(&());
    axpy_zero_alpha::<Qd>(&());
    axpy_zero_alpha::<MpFloat>(&Basis::new(106).unwrap());
}

// ---- 7. f64 accurate routines -----------------------------------------------------------------

/// MPFR's rounding to nearest of the exact `Σ x_i·y_i`, with IEEE's sign for an exact zero
/// (`−0` only when every product is `−0`).
fn correctly_rounded(x: &[f64], y: &[f64]) -> f64 {
    let p: Vec<Float> = x
        .iter()
        .zip(y)
        .map(|(&a, &b)| exact_product(&Float::with_val(53, a), &Float::with_val(53, b)))
        .collect();
    let s = exact_sum(&p);
    if s.is_zero() {
        let all_neg_zero = x
            .iter()
            .zip(y)
            .all(|(a, b)| (*a == 0.0 || *b == 0.0) && a.is_sign_negative() != b.is_sign_negative());
        return if all_neg_zero && !x.is_empty() {
            -0.0
        } else {
            0.0
        };
    }
    s.to_f64()
}

/// The correctly rounded routines give MPFR's bits (the sum on `x` alone, the dot product on
/// `x·y`); `sum2`/`dot2` are within their bounds where the result is finite.
fn check_accurate(x: &[f64], y: &[f64], label: &str) {
    let (xv, yv) = (VecRef::contiguous(x), VecRef::contiguous(y));
    let want = correctly_rounded(x, y);
    let got = accurate::dot_correctly_rounded(xv, yv).unwrap();
    assert_eq!(
        got.to_bits(),
        want.to_bits(),
        "{label}: dot {got:e} != {want:e}"
    );
    let ones = vec![1.0; x.len()];
    let want_sum = correctly_rounded(x, &ones);
    let got = accurate::sum_correctly_rounded(xv).unwrap();
    assert_eq!(
        got.to_bits(),
        want_sum.to_bits(),
        "{label}: sum {got:e} != {want_sum:e}"
    );
    let (xe, ye) = (exact_all(x), exact_all(y));
    let products: Vec<Float> = xe
        .iter()
        .zip(&ye)
        .map(|(a, b)| exact_product(a, b))
        .collect();
    check_compensated(
        "dot2",
        &accurate::dot2_bounded(xv, yv).unwrap(),
        &products,
        label,
    );
    check_compensated("sum2", &accurate::sum2_bounded(xv).unwrap(), &xe, label);
    // The same exact values rounded once to RNS precisions: MPFR's rounding of the exact sum.
    for p in [30, 106, 424] {
        let basis = Basis::new(p).unwrap();
        let cases = [
            (
                "dot",
                accurate::dot_correctly_rounded_to(&basis, xv, yv),
                &products,
            ),
            ("sum", accurate::sum_correctly_rounded_to(&basis, xv), &xe),
        ];
        for (what, got, terms) in cases {
            let got = got.unwrap();
            let want = Float::with_val(basis.precision(), exact_sum(terms));
            if want.is_zero() {
                assert!(got.is_zero(), "{label}: {what} to {p} bits is not zero");
            } else {
                assert_eq!(got.exact(), want, "{label}: {what} to {p} bits");
            }
        }
    }
}

/// `sum2`/`dot2` within their bound where the result is finite. An infinite bound is accepted
/// only when `Σ|t_i|` nears the top of the range: the routines return `+∞` for a bound that
/// does not fit, and theirs passes through `Σ|t_i|/(1 − γ)`.
fn check_compensated(what: &str, r: &Bounded<f64>, terms: &[Float], label: &str) {
    if !r.value.is_finite() {
        return;
    }
    let abs: Vec<Float> = terms.iter().map(|t| t.clone().abs()).collect();
    if r.error_bound.is_infinite() && exact_sum(&abs) >= f64::MAX / 2.0 {
        return;
    }
    assert_within(what, r, &exact_sum(terms), label);
}

/// `2^e` for a normal exponent.
fn pow2(e: i32) -> f64 {
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// Ogita, Rump, Oishi, "Accurate sum and dot product" (2005), Algorithm 6.1 (GenDot): `x`, `y`
/// of length `n ≥ 6` whose dot product has condition number about `cond`: the first half
/// random with exponents up to `log2(cond)/2`, the second half chosen so that the running
/// exact dot product cancels down to `2^0`, then shuffled.
fn gen_dot(n: usize, cond: f64, g: &mut SplitMix64) -> (Vec<f64>, Vec<f64>) {
    let n2 = n / 2;
    let b = cond.log2();
    let mut e: Vec<i32> = (0..n2)
        .map(|_| (g.uniform() * b / 2.0).round() as i32)
        .collect();
    e[0] = (b / 2.0).round() as i32 + 1;
    e[n2 - 1] = 0;
    let mut x: Vec<f64> = e.iter().map(|&k| g.range(-1.0, 1.0) * pow2(k)).collect();
    let mut y: Vec<f64> = e.iter().map(|&k| g.range(-1.0, 1.0) * pow2(k)).collect();
    // The running dot product, exact (its terms lie within 2^±(b+4) and have 106 bits).
    let mut acc = Float::with_val(4096, 0);
    for (a, c) in x.iter().zip(&y) {
        assert_eq!(
            acc.add_assign_round(
                Float::with_val(106, a * Float::with_val(53, *c)),
                Round::Nearest
            ),
            Ordering::Equal
        );
    }
    for i in n2..n {
        let t = (i - n2) as f64 / (n - n2 - 1).max(1) as f64;
        let k = (b / 2.0 * (1.0 - t)).round() as i32;
        let xi = g.range(-1.0, 1.0) * pow2(k);
        let yi = (g.range(-1.0, 1.0) * pow2(k) - acc.to_f64()) / xi;
        let prod = Float::with_val(106, Float::with_val(53, xi) * yi);
        assert_eq!(acc.add_assign_round(prod, Round::Nearest), Ordering::Equal);
        x.push(xi);
        y.push(yi);
    }
    for i in (1..n).rev() {
        let j = g.int(0, i as i64) as usize;
        x.swap(i, j);
        y.swap(i, j);
    }
    (x, y)
}

/// `2·Σ|x_i·y_i| / |Σ x_i·y_i|`.
fn condition(x: &[f64], y: &[f64]) -> f64 {
    let p: Vec<Float> = x
        .iter()
        .zip(y)
        .map(|(&a, &b)| Float::with_val(106, Float::with_val(53, a) * b))
        .collect();
    let abs: Vec<Float> = p.iter().map(|v| v.clone().abs()).collect();
    (exact_sum(&abs) * 2u32 / exact_sum(&p).abs()).to_f64()
}

/// The sum form of a dot product: `x_i·y_i = h_i + r_i` exactly (TwoProd), `2n` terms with the
/// same exact sum and condition number.
fn two_prod_terms(x: &[f64], y: &[f64]) -> Vec<f64> {
    x.iter()
        .zip(y)
        .flat_map(|(&a, &b)| {
            let h = a * b;
            [h, a.mul_add(b, -h)]
        })
        .collect()
}

#[test]
fn correctly_rounded_on_ill_conditioned_dots() {
    let mut g = SplitMix64::new(2005);
    for n in [6, 100, 1000, 20_000] {
        for cond in [1e10, 1e20, 1e30, 1e40, 1e50, 1e60] {
            let (x, y) = gen_dot(n, cond, &mut g);
            let c = condition(&x, &y);
            assert!(
                c > cond * 1e-6,
                "the generator reaches its condition: {c:e} for {cond:e}"
            );
            let label = format!("GenDot n = {n}, cond {c:.1e}");
            check_accurate(&x, &y, &label);
            // The same value as a sum of 2n terms.
            let s = two_prod_terms(&x, &y);
            check_accurate(&s, &vec![1.0; s.len()], &format!("{label} as a sum"));
            // The generic f64 routines on the same data, within their (large) bounds.
            for order in Summation::ALL {
                let r = blas::sum_bounded(VecRef::contiguous(&s), order).unwrap();
                assert_within(
                    &format!("sum {}", order.name()),
                    &r,
                    &exact_sum(&exact_all(&s)),
                    &label,
                );
            }
        }
    }
    report("ill-conditioned");
}

#[test]
fn correctly_rounded_on_random_data() {
    let mut g = SplitMix64::new(7);
    for n in [0, 1, 2, 3, 1000, 100_000] {
        // Magnitudes near 1, then the whole range with subnormals (products may overflow or
        // fall below the subnormal range: the correctly rounded forms must not care).
        let x = vector::<f64>(&(), Kind::Random, n, &mut g);
        let y = partner::<f64>(&(), Kind::Random, &x, &mut g);
        check_accurate(&x, &y, &format!("random n = {n}"));
        let x: Vec<f64> = (0..n).map(|_| full_range(&mut g)).collect();
        let y: Vec<f64> = (0..n).map(|_| full_range(&mut g)).collect();
        check_accurate(&x, &y, &format!("full range n = {n}"));
        let x = vector::<f64>(&(), Kind::Subnormal, n, &mut g);
        let y = partner::<f64>(&(), Kind::Subnormal, &x, &mut g);
        check_accurate(&x, &y, &format!("subnormal n = {n}"));
    }
    report("random accurate");
}

/// Any finite `f64`: a random exponent over the whole range, subnormals included.
fn full_range(g: &mut SplitMix64) -> f64 {
    let e = g.int(-1075, 1023);
    if e < -1022 { subnormal(g) } else { lead(g, e) }
}

#[test]
fn correctly_rounded_at_the_extremes() {
    let max = f64::MAX;
    let tiny = f64::from_bits(1); // 2^-1074
    let one_up = 1.0 + f64::EPSILON;
    let cases: Vec<(&str, Vec<f64>, Vec<f64>)> = vec![
        // Products that overflow in IEEE, exact sum finite.
        (
            "overflowing products",
            vec![max, max, 1.0],
            vec![2.0, -2.0, 3.0],
        ),
        ("max·1.5 − max", vec![max, max], vec![1.5, -1.0]),
        (
            "1e300² − 1e300² + 1e-300²",
            vec![1e300, 1e300, 1e-300],
            vec![1e300, -1e300, 1e-300],
        ),
        (
            "2^1000·2^1000 − …",
            vec![pow2(1000), pow2(1000), 1.0],
            vec![pow2(1000), -pow2(1000), pow2(-1074 + 53)],
        ),
        // Results that round to ±∞ (a tie at MAX + ulp/2 goes to the even 2^1024) or just not.
        ("MAX + half ulp", vec![max, pow2(970)], vec![1.0, 1.0]),
        ("−MAX − half ulp", vec![-max, -pow2(970)], vec![1.0, 1.0]),
        (
            "MAX + below half ulp",
            vec![max, pow2(970) * (1.0 - f64::EPSILON)],
            vec![1.0, 1.0],
        ),
        ("MAX·(1 + 2^-53)", vec![max, max], vec![1.0, pow2(-53)]),
        ("2^1000·2^24", vec![pow2(1000)], vec![pow2(24)]),
        ("MAX·2 − MAX", vec![max, -max], vec![2.0, 1.0]),
        // Results in the subnormal range, with ties.
        ("2^-1075 (tie to 0)", vec![pow2(-600)], vec![pow2(-475)]),
        ("−2^-1075 (tie to −0)", vec![-pow2(-600)], vec![pow2(-475)]),
        (
            "3·2^-1075 (tie to 2·2^-1074)",
            vec![pow2(-600)],
            vec![3.0 * pow2(-475)],
        ),
        (
            "2^-1075 + 2^-1200",
            vec![pow2(-600), pow2(-600)],
            vec![pow2(-475), pow2(-600)],
        ),
        (
            "1 + 5·2^-1074 − 1",
            vec![1.0, 5.0 * tiny, -1.0],
            vec![1.0; 3],
        ),
        (
            "subnormal products",
            vec![3.0 * tiny, pow2(-540), -tiny],
            vec![0.75, pow2(-534), 1.0],
        ),
        // Exact ties in the normal range, and just above them.
        ("1 + 2^-53 (tie to 1)", vec![1.0, pow2(-53)], vec![1.0; 2]),
        (
            "1 + 2^-52 + 2^-53 (tie up)",
            vec![one_up, pow2(-53)],
            vec![1.0; 2],
        ),
        (
            "1 + 2^-53 + 2^-1074",
            vec![1.0, pow2(-53), tiny],
            vec![1.0; 3],
        ),
        (
            "1e300 + 1 + 2^-53 − 1e300",
            vec![1e300, 1.0, pow2(-53), -1e300],
            vec![1.0; 4],
        ),
        ("(1 + 2^-52)²", vec![one_up], vec![one_up]),
        (
            "tie in a product sum",
            vec![pow2(500), 1.0, -pow2(500)],
            vec![pow2(500), pow2(-53), pow2(500)],
        ),
        // Zeros.
        ("1 − 1 = +0", vec![1.0, -1.0], vec![1.0; 2]),
        ("−0 + −0 = −0", vec![-0.0, -0.0], vec![1.0; 2]),
        ("−0 + 0 = +0", vec![-0.0, 0.0], vec![1.0; 2]),
        ("−1·0 = −0", vec![-1.0], vec![0.0]),
        ("empty", vec![], vec![]),
    ];
    for (name, x, y) in &cases {
        check_accurate(x, y, name);
    }
    // The specials of the accurate routines.
    let cr = |x: &[f64], y: &[f64]| {
        accurate::dot_correctly_rounded(VecRef::contiguous(x), VecRef::contiguous(y)).unwrap()
    };
    assert!(cr(&[1.0, f64::NAN], &[1.0, 1.0]).is_nan());
    assert!(cr(&[f64::INFINITY, f64::NEG_INFINITY], &[1.0, 1.0]).is_nan());
    assert!(cr(&[f64::INFINITY, 0.0], &[0.0, 1.0]).is_nan());
    assert_eq!(cr(&[f64::INFINITY, max], &[1.0, max]), f64::INFINITY);
    assert_eq!(cr(&[f64::INFINITY, 1.0], &[-1.0, 1.0]), f64::NEG_INFINITY);
    report("extremes");
}

// ---- level 2: gemv and ger ---------------------------------------------------------------------

/// `y ← α·op(A)·x + β·y` against MPFR within the returned componentwise bounds, both
/// transposes, strided `y`, rows of every kind (cancellation inside a row, exponents across
/// `2^±1000` inside a row, subnormals), `β = 0` (`y` not read: NaN there stays out) and
/// `α = 0` (`A` not read).
fn gemv_for<T: Fmt>(ctx: &T::Ctx, seeds: u64) {
    use mpblas::blas::level2::{gemv_blas, gemv_bounded};
    use mpblas::view::{MatRef, Trans};
    for seed in 0..seeds {
        let mut g = SplitMix64::new(0x9e37 + seed);
        for &(m, n) in &[(1, 1), (3, 7), (9, 4), (17, 300)] {
            for kind in KINDS {
                // Row i of A (m × n, column-major, lda = m + 2) of `kind`, x its partner.
                let lda = m + 2;
                let mut a = vec![value::<T>(ctx, 0.0); lda * n];
                let x0 = vector::<T>(ctx, Kind::Random, n, &mut g);
                let x;
                // Row 0 of `kind`, x its partner (products in range, cancelling for `Cancel`);
                // row i a multiple ±2^k of row 0 (the same spread and cancellation).
                let row0 = vector::<T>(ctx, kind, n, &mut g);
                x = partner::<T>(ctx, kind, &row0, &mut g);
                for i in 0..m {
                    let k = g.int(-8, 8) as i32;
                    let s = value::<T>(
                        ctx,
                        if g.next_u64() & 1 == 0 { 1.0 } else { -1.0 } * 2f64.powi(k),
                    );
                    for (j, v) in row0.iter().enumerate() {
                        a[i + j * lda] = if i == 0 { v.clone() } else { v.mul_ref(&s) };
                    }
                }
                let alpha = full_at::<T>(ctx, &mut g, 1);
                for beta_zero in [false, true] {
                    let beta = if beta_zero {
                        value(ctx, 0.0)
                    } else {
                        full_at::<T>(ctx, &mut g, -2)
                    };
                    let y0: Vec<T> = (0..2 * m)
                        .map(|k| {
                            if beta_zero && k % 2 == 0 {
                                value(ctx, f64::NAN)
                            } else {
                                full_at::<T>(ctx, &mut g, 3)
                            }
                        })
                        .collect();
                    let mut y = y0.clone();
                    let av = MatRef::col_major(&a, m, n, lda).unwrap();
                    let bounds = gemv_bounded(
                        &alpha,
                        av,
                        VecRef::contiguous(&x),
                        &beta,
                        VecMut::from_blas("y", m, &mut y, 2).unwrap(),
                    )
                    .unwrap();
                    let (ae, be) = (alpha.exact(), beta.exact());
                    for i in 0..m {
                        let mut terms: Vec<Float> = (0..n)
                            .map(|j| {
                                exact_product(
                                    &ae,
                                    &exact_product(&a[i + j * lda].exact(), &x[j].exact()),
                                )
                            })
                            .collect();
                        if !beta_zero {
                            terms.push(exact_product(&be, &y0[2 * i].exact()));
                        }
                        let want = exact_sum(&terms);
                        let r = Bounded {
                            value: y[2 * i].clone(),
                            error_bound: bounds[i],
                        };
                        assert_within(
                            "gemv",
                            &r,
                            &want,
                            &format!("{} {kind:?} {m}x{n} beta0={beta_zero} row {i}", T::FORMAT),
                        );
                        // y's other elements are untouched.
                        assert_eq!(y[2 * i + 1].words(), y0[2 * i + 1].words());
                    }
                    // The BLAS entry, transposed, on the same array: y = Aᵀ·z, z of m elements.
                    // z_i = ±2^k, |k| ≤ 8: the column sums stay in range for every kind.
                    let z: Vec<T> = (0..m)
                        .map(|_| {
                            let k = g.int(-8, 8) as i32;
                            value(
                                ctx,
                                if g.next_u64() & 1 == 0 { 1.0 } else { -1.0 } * 2f64.powi(k),
                            )
                        })
                        .collect();
                    let mut w = vec![value::<T>(ctx, 0.0); n];
                    gemv_blas(
                        Trans::Yes,
                        m,
                        n,
                        &alpha,
                        &a,
                        lda,
                        &z,
                        1,
                        &value(ctx, 0.0),
                        &mut w,
                        -1,
                    )
                    .unwrap();
                    let mut w2 = vec![value::<T>(ctx, 0.0); n];
                    let bounds = gemv_bounded(
                        &alpha,
                        av.t(),
                        VecRef::contiguous(&z),
                        &value(ctx, 0.0),
                        VecMut::contiguous(&mut w2),
                    )
                    .unwrap();
                    for j in 0..n {
                        // incy = −1: element j of y is w[n − 1 − j].
                        assert_eq!(
                            w[n - 1 - j].words(),
                            w2[j].words(),
                            "the BLAS entry is the view call"
                        );
                        let terms: Vec<Float> = (0..m)
                            .map(|i| {
                                exact_product(
                                    &ae,
                                    &exact_product(&a[i + j * lda].exact(), &z[i].exact()),
                                )
                            })
                            .collect();
                        let r = Bounded {
                            value: w2[j].clone(),
                            error_bound: bounds[j],
                        };
                        assert_within(
                            "gemv T",
                            &r,
                            &exact_sum(&terms),
                            &format!("{} {kind:?} {m}x{n} col {j}", T::FORMAT),
                        );
                    }
                }
                // α = 0 reads neither A nor x (NaN there does not propagate): y = β·y.
                let nan_a = vec![value::<T>(ctx, f64::NAN); m * n];
                let beta = full_at::<T>(ctx, &mut g, 0);
                let y0 = vector::<T>(ctx, Kind::Random, m, &mut g);
                let mut y = y0.clone();
                let bounds = gemv_bounded(
                    &value(ctx, 0.0),
                    MatRef::col_major(&nan_a, m, n, m).unwrap(),
                    VecRef::contiguous(&x0),
                    &beta,
                    VecMut::contiguous(&mut y),
                )
                .unwrap();
                for i in 0..m {
                    let r = Bounded {
                        value: y[i].clone(),
                        error_bound: bounds[i],
                    };
                    assert_within(
                        "gemv alpha=0",
                        &r,
                        &exact_product(&beta.exact(), &y0[i].exact()),
                        T::FORMAT,
                    );
                }
            }
        }
    }
}

/// `A ← α·x·yᵀ + A` against MPFR within [`ger_error_bound`], and the BLAS entry.
fn ger_for<T: Fmt>(ctx: &T::Ctx) {
    use mpblas::blas::level2::{ger, ger_blas, ger_error_bound};
    use mpblas::view::MatMut;
    let mut g = SplitMix64::new(77);
    let (m, n) = (5, 6);
    for kind in KINDS {
        let x = vector::<T>(ctx, kind, m, &mut g);
        let y = vector::<T>(ctx, kind, n, &mut g);
        let a0 = vector::<T>(ctx, kind, m * n, &mut g);
        let alpha = full_at::<T>(ctx, &mut g, 0);
        let mut a = a0.clone();
        ger(
            &alpha,
            VecRef::contiguous(&x),
            VecRef::contiguous(&y),
            MatMut::col_major(&mut a, m, n, m).unwrap(),
        )
        .unwrap();
        let mut b = a0.clone();
        ger_blas(m, n, &alpha, &x, 1, &y, 1, &mut b, m).unwrap();
        assert_eq!(bits_of(&a), bits_of(&b));
        let (eps, eta) = (T::op_error_bound_in(ctx), T::underflow_error_in(ctx));
        for j in 0..n {
            for i in 0..m {
                let axy =
                    exact_product(&alpha.exact(), &exact_product(&x[i].exact(), &y[j].exact()));
                let want = exact_sum(&[a0[i + j * m].exact(), axy.clone()]);
                let up = |f: &Float| f.to_f64().abs() * (1.0 + 1e-15) + f64::from_bits(1);
                let bound = ger_error_bound(
                    eps,
                    eta,
                    up(&a0[i + j * m].exact()),
                    up(&axy),
                    up(&x[i].exact()),
                );
                let r = Bounded {
                    value: a[i + j * m].clone(),
                    error_bound: bound,
                };
                if a0[i + j * m].nearest_f64().abs() < 1e300 && axy.to_f64().abs() < 1e300 {
                    assert_within(
                        "ger",
                        &r,
                        &want,
                        &format!("{} {kind:?} ({i}, {j})", T::FORMAT),
                    );
                }
            }
        }
    }
}

#[test]
fn gemv_and_ger_within_their_bounds() {
    gemv_for::<f64>(&(), 2);
    gemv_for::<Dd>(&(), 2);
    gemv_for::<Qd>(&(), 1);
    gemv_for::<MpFloat>(&Basis::new(106).unwrap(), 1);
    ger_for::<f64>(&());
    ger_for::<Dd>(&());
    ger_for::<Qd>(&());
    ger_for::<MpFloat>(&Basis::new(106).unwrap());
    report("gemv/ger");
}

/// Bad arguments are errors: lengths, leading dimensions, zero increments, short arrays, RNS
/// bases; and the same bits for any thread count.
#[test]
fn gemv_bad_arguments_and_thread_counts() {
    use mpblas::blas::level2::{gemv, gemv_blas, ger_blas};
    use mpblas::view::{MatRef, Trans};
    let a = vec![1.0f64; 12];
    let x = [1.0f64; 4];
    let mut y = [0.0f64; 4];
    assert!(matches!(
        gemv(
            &1.0,
            MatRef::col_major(&a, 3, 4, 3).unwrap(),
            VecRef::contiguous(&x[..3]),
            &0.0,
            VecMut::contiguous(&mut y[..3])
        ),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        gemv_blas(Trans::No, 3, 4, &1.0, &a, 2, &x, 1, &0.0, &mut y, 1),
        Err(Error::LeadingDim { .. })
    ));
    assert!(matches!(
        gemv_blas(Trans::No, 3, 4, &1.0, &a, 3, &x, 0, &0.0, &mut y, 1),
        Err(Error::InvalidView { .. })
    ));
    assert!(matches!(
        gemv_blas(Trans::No, 4, 4, &1.0, &a, 4, &x, 1, &0.0, &mut y, 1),
        Err(Error::ArrayTooShort { .. })
    ));
    assert!(
        gemv_blas(
            Trans::No,
            usize::MAX,
            2,
            &1.0,
            &a,
            usize::MAX,
            &x,
            1,
            &0.0,
            &mut y,
            1
        )
        .is_err()
    );
    let mut a2 = a.clone();
    assert!(ger_blas(3, 4, &1.0, &x, 1, &x, -1, &mut a2, 2).is_err());
    // RNS operands of two bases.
    let (b1, b2) = (Basis::new(106).unwrap(), Basis::new(212).unwrap());
    let ar: Vec<MpFloat> = (0..4).map(|_| MpFloat::from_f64(&b1, 1.0)).collect();
    let xr = vec![MpFloat::from_f64(&b2, 1.0); 2];
    let mut yr = vec![MpFloat::from_f64(&b1, 1.0); 2];
    let one = MpFloat::from_f64(&b1, 1.0);
    assert!(matches!(
        gemv(
            &one,
            MatRef::col_major(&ar, 2, 2, 2).unwrap(),
            VecRef::contiguous(&xr),
            &one,
            VecMut::contiguous(&mut yr)
        ),
        Err(Error::BasisMismatch { .. })
    ));
    // Same bits with 1, 2 and 3 threads (rows in parallel, each in a fixed order).
    let mut g = SplitMix64::new(5);
    let (m, n) = (37, 5000);
    let a: Vec<Dd> = (0..m * n).map(|_| full_at::<Dd>(&(), &mut g, 0)).collect();
    let x: Vec<Dd> = (0..n).map(|_| full_at::<Dd>(&(), &mut g, 0)).collect();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut y = vec![Dd::ZERO; m];
        pool.install(|| {
            gemv(
                &Dd::ONE,
                MatRef::col_major(&a, m, n, m).unwrap(),
                VecRef::contiguous(&x),
                &Dd::ZERO,
                VecMut::contiguous(&mut y),
            )
            .unwrap()
        });
        bits_of(&y)
    };
    let one_thread = run(1);
    assert_eq!(run(2), one_thread);
    assert_eq!(run(3), one_thread);
    // Column-major A (blocks of rows stepping through columns) and the same matrix stored by
    // rows (one row at a time): the same bits and bounds, for 1 to 70 rows (partial blocks)
    // and lengths across the chunk size (two passes).
    for &(m, n) in &[(1, 3), (33, 4097), (70, 300), (5, 9000)] {
        let a: Vec<Dd> = (0..m * n).map(|_| full_at::<Dd>(&(), &mut g, 0)).collect();
        let x: Vec<Dd> = (0..n).map(|_| full_at::<Dd>(&(), &mut g, 0)).collect();
        let at: Vec<Dd> = (0..n * m).map(|k| a[(k % n) * m + k / n]).collect(); // row-major copy
        let (mut y1, mut y2) = (vec![Dd::ONE; m], vec![Dd::ONE; m]);
        let alpha = full_at::<Dd>(&(), &mut g, 0);
        let b1 = mpblas::blas::gemv_bounded(
            &alpha,
            MatRef::col_major(&a, m, n, m).unwrap(),
            VecRef::contiguous(&x),
            &Dd::ONE,
            VecMut::contiguous(&mut y1),
        )
        .unwrap();
        let b2 = mpblas::blas::gemv_bounded(
            &alpha,
            MatRef::row_major(&at, m, n, n).unwrap(),
            VecRef::contiguous(&x),
            &Dd::ONE,
            VecMut::contiguous(&mut y2),
        )
        .unwrap();
        assert_eq!(bits_of(&y1), bits_of(&y2), "{m} x {n}");
        assert_eq!(b1, b2, "{m} x {n}");
    }
}

/// NaN and ±∞ in A, x or y propagate as IEEE arithmetic does, row by row: a NaN in row i of A
/// or anywhere in x makes y_i NaN (x: every row), `+∞` meeting `−∞` in a row gives NaN, an
/// infinite term alone gives ±∞; the other rows keep finite values with finite bounds.
fn gemv_specials_for<T: Fmt>(ctx: &T::Ctx) {
    use mpblas::blas::level2::gemv_bounded;
    use mpblas::view::MatRef;
    let (m, n) = (4, 3);
    let one = value::<T>(ctx, 1.0);
    let mut a = vec![one.clone(); m * n];
    a[1] = value(ctx, f64::NAN); // row 1
    a[2] = value(ctx, f64::INFINITY); // row 2: +inf and -inf
    a[2 + m] = value(ctx, f64::NEG_INFINITY);
    a[3] = value(ctx, f64::INFINITY); // row 3: +inf alone
    let x = vec![one.clone(); n];
    let mut y = vec![one.clone(); m];
    let b = gemv_bounded(
        &one,
        MatRef::col_major(&a, m, n, m).unwrap(),
        VecRef::contiguous(&x),
        &one,
        VecMut::contiguous(&mut y),
    )
    .unwrap();
    assert_eq!(y[0].nearest_f64(), 4.0, "{}", T::FORMAT);
    assert!(b[0].is_finite());
    assert!(is_nan(&y[1]) && is_nan(&y[2]), "{}", T::FORMAT);
    assert!(is_inf(&y[3], false), "{}", T::FORMAT);
    assert!(b[1..].iter().all(|v| v.is_infinite()));
    // A NaN in x reaches every row.
    let mut xn = x.clone();
    xn[1] = value(ctx, f64::NAN);
    let clean = vec![one.clone(); m * n];
    let mut y = vec![one.clone(); m];
    gemv_bounded(
        &one,
        MatRef::col_major(&clean, m, n, m).unwrap(),
        VecRef::contiguous(&xn),
        &one,
        VecMut::contiguous(&mut y),
    )
    .unwrap();
    assert!(y.iter().all(is_nan), "{}", T::FORMAT);
}

#[test]
fn gemv_specials_propagate() {
    gemv_specials_for::<f64>(&());
    gemv_specials_for::<Dd>(&());
    gemv_specials_for::<Qd>(&());
    gemv_specials_for::<MpFloat>(&Basis::new(106).unwrap());
}

/// Review findings: a zero stride in a read-only view, an RNS α below the f64 range, α = 0
/// with NaN in y, n = 0, and ger's zero y_j.
#[test]
fn gemv_edge_cases() {
    use mpblas::blas::level2::{gemv, gemv_bounded, ger};
    use mpblas::view::{MatMut, MatRef};
    // A zero column stride repeats an element: row(1) of [[1, 1, 1], [2, 2, 2]].
    let d = [1.0f64, 2.0, 3.0, 4.0];
    let v = MatRef::with_strides(&d[..2], 2, 3, 1, 0).unwrap();
    let row: Vec<f64> = v.row(1).unwrap().iter().copied().collect();
    assert_eq!(row, [2.0, 2.0, 2.0]);
    let mut y = [0.0f64; 2];
    gemv(
        &1.0,
        MatRef::with_strides(&d[..1], 2, 3, 0, 0).unwrap(),
        VecRef::contiguous(&[1.0; 3]),
        &0.0,
        VecMut::contiguous(&mut y),
    )
    .unwrap();
    assert_eq!(y, [3.0, 3.0]);
    // RNS: α below the f64 range, the result inside it: a nonzero bound that holds.
    let b = Basis::new(53).unwrap();
    let third = |e: i64| {
        MpFloat::parse(&b, "1")
            .unwrap()
            .div(&MpFloat::from_f64(&b, 3.0))
            .unwrap()
            .mul(&MpFloat::from_u64_exp(&b, false, 1, e))
            .unwrap()
    };
    let (alpha, a, x) = (third(-2000), [third(1000)], [MpFloat::from_f64(&b, 1.0)]);
    let mut y = [MpFloat::from_f64(&b, 0.0)];
    let bound = gemv_bounded(
        &alpha,
        MatRef::col_major(&a, 1, 1, 1).unwrap(),
        VecRef::contiguous(&x),
        &MpFloat::from_f64(&b, 0.0),
        VecMut::contiguous(&mut y),
    )
    .unwrap();
    let exact = exact_product(&alpha.exact(), &a[0].exact());
    let r = Bounded {
        value: y[0].clone(),
        error_bound: bound[0],
    };
    assert!(bound[0] > 0.0);
    assert_within("gemv tiny alpha", &r, &exact, "rns 53");
    // α = 0, β = 2, y = NaN: NaN with an infinite bound; α = 0, β = 1: y unchanged.
    let mut y = [f64::NAN, 1.0];
    let nb = gemv_bounded(
        &0.0,
        MatRef::col_major(&d, 2, 2, 2).unwrap(),
        VecRef::contiguous(&[1.0; 2]),
        &2.0,
        VecMut::contiguous(&mut y),
    )
    .unwrap();
    assert!(y[0].is_nan() && nb[0].is_infinite() && y[1] == 2.0 && nb[1].is_finite());
    let mut y = [f64::NAN, 5.0];
    let nb = gemv_bounded(
        &0.0,
        MatRef::col_major(&d, 2, 2, 2).unwrap(),
        VecRef::contiguous(&[1.0; 2]),
        &1.0,
        VecMut::contiguous(&mut y),
    )
    .unwrap();
    assert!(y[0].is_nan() && y[1] == 5.0 && nb[0].is_infinite() && nb[1] == 0.0);
    // n = 0: y unchanged (reference BLAS's quick return), even with β = 2.
    let mut y = [3.0f64];
    gemv(
        &1.0,
        MatRef::col_major(&d[..0], 1, 0, 1).unwrap(),
        VecRef::contiguous(&[]),
        &2.0,
        VecMut::contiguous(&mut y),
    )
    .unwrap();
    assert_eq!(y, [3.0]);
    // ger skips y_j = 0: an infinite x_i does not make NaN there.
    let mut a = [1.0f64, 2.0, 3.0, 4.0];
    ger(
        &1.0,
        VecRef::contiguous(&[f64::INFINITY, 1.0]),
        VecRef::contiguous(&[0.0, 1.0]),
        MatMut::col_major(&mut a, 2, 2, 2).unwrap(),
    )
    .unwrap();
    assert_eq!(a[..2], [1.0, 2.0]);
    assert!(a[2].is_infinite() && a[3] == 5.0);
}

// ---- the fused RNS GEMV ----------------------------------------------------------------------

/// `|got − want| ≤ bound` for an extended-range bound (`f·2^e`).
fn assert_within_ext(got: &MpFloat, bound: mpblas::rns::ExtF, want: &Float, label: &str) {
    assert!(got.is_finite(), "{label}: finite result expected");
    let err = abs_diff(&got.exact(), want);
    let mut b = Float::with_val(64, bound.f);
    b <<= i32::try_from(bound.e).expect("bound exponent in MPFR's range");
    assert!(err <= b, "{label}: error {err:e} above the bound {b:e}");
    if !b.is_zero() {
        record(
            label.split(' ').next().unwrap_or("").to_string(),
            (err / b).to_f64(),
        );
    }
}

/// `RN_p(v)`: MPFR's rounding of an exact value to `p` bits, as the fused form should give it.
fn rounded_to(v: &Float, p: u32) -> Float {
    Float::with_val_round(p, v, Round::Nearest).0
}

/// [`blas::rns::gemv_fused`] against MPFR: within its bound on every kind of row (both
/// transposes, `β = 0` and not, `α = 0`), and, where no term falls out of the window, equal
/// to MPFR's correctly rounded `Σ_j a_ij·fl(α x_j) + β y_i`; NaN/∞ propagate; the same bits
/// as the paper's order would give are not expected (one rounding instead of `2n`).
fn gemv_fused_for(b: &Arc<Basis>, seeds: u64) {
    use mpblas::blas::rns::gemv_fused_bounded;
    use mpblas::view::MatRef;
    let p = b.precision();
    for seed in 0..seeds {
        let mut g = SplitMix64::new(0x5eed + seed);
        for &(m, n) in &[(1, 1), (3, 7), (9, 4), (17, 300)] {
            for kind in KINDS {
                let lda = m + 1;
                let mut a = vec![value::<MpFloat>(b, 0.0); lda * n];
                let row0 = vector::<MpFloat>(b, kind, n, &mut g);
                let x = partner::<MpFloat>(b, kind, &row0, &mut g);
                for i in 0..m {
                    let k = g.int(-8, 8) as i32;
                    let s = value::<MpFloat>(b, g.sign() * 2f64.powi(k));
                    for (j, v) in row0.iter().enumerate() {
                        a[i + j * lda] = if i == 0 { v.clone() } else { v * &s };
                    }
                }
                let alpha = full_at::<MpFloat>(b, &mut g, 1);
                for beta_zero in [false, true] {
                    let beta = if beta_zero {
                        value(b, 0.0)
                    } else {
                        full_at::<MpFloat>(b, &mut g, -2)
                    };
                    let y0: Vec<MpFloat> = (0..m)
                        .map(|_| {
                            if beta_zero {
                                value(b, f64::NAN)
                            } else {
                                full_at::<MpFloat>(b, &mut g, 3)
                            }
                        })
                        .collect();
                    for trans in [false, true] {
                        let av = MatRef::col_major(&a, m, n, lda).unwrap();
                        let (av, len_x, len_y) = if trans { (av.t(), m, n) } else { (av, n, m) };
                        let xv: Vec<MpFloat> = if trans {
                            (0..m)
                                .map(|_| {
                                    let e = g.int(-8, 8);
                                    full_at::<MpFloat>(b, &mut g, e)
                                })
                                .collect()
                        } else {
                            x.clone()
                        };
                        assert_eq!(xv.len(), len_x);
                        let y_in: Vec<MpFloat> = (0..len_y)
                            .map(|i| y0.get(i).cloned().unwrap_or_else(|| value(b, 0.0)))
                            .collect();
                        let mut y = y_in.clone();
                        let bounds = gemv_fused_bounded(
                            &alpha,
                            av,
                            VecRef::contiguous(&xv),
                            &beta,
                            VecMut::contiguous(&mut y),
                        )
                        .unwrap();
                        let d: Vec<MpFloat> = xv.iter().map(|v| &alpha * v).collect();
                        for i in 0..len_y {
                            let row: Vec<&MpFloat> =
                                (0..len_x).map(|j| av.get(i, j).unwrap()).collect();
                            let mut terms: Vec<Float> = row
                                .iter()
                                .zip(&xv)
                                .map(|(aij, xj)| {
                                    exact_product(
                                        &alpha.exact(),
                                        &exact_product(&aij.exact(), &xj.exact()),
                                    )
                                })
                                .collect();
                            let mut with_d: Vec<Float> = row
                                .iter()
                                .zip(&d)
                                .map(|(aij, dj)| exact_product(&aij.exact(), &dj.exact()))
                                .collect();
                            if !beta_zero {
                                let by = exact_product(&beta.exact(), &y_in[i].exact());
                                terms.push(by.clone());
                                with_d.push(by);
                            }
                            let label = format!(
                                "gemv_fused {p}b {kind:?} {m}x{n} trans={trans} beta0={beta_zero} row {i}"
                            );
                            let want = exact_sum(&terms);
                            let bound = bounds[i].expect("finite inputs have a bound");
                            assert_within_ext(&y[i], bound, &want, &label);
                            if matches!(kind, Kind::Random | Kind::Cancel) {
                                let rn = rounded_to(&exact_sum(&with_d), p);
                                assert_eq!(y[i].exact(), rn, "{label}: not RN(Σ a·d + βy)");
                            }
                        }
                    }
                }
            }
        }
    }
}

/// [`blas::rns::gemv_fused`] on rows whose exact sums sit on the rounding's edges
/// (`rns_common::fused_rounding_edges`: ties to even both ways, carries into the next binade,
/// negated, an exact zero, sums shorter than `p` bits): each the correctly rounded sum, exactly
/// (the GPU's test, `gpu_blas_rns`, runs the same rows against this).
#[test]
fn rns_gemv_fused_rounds_the_edges_to_nearest_even() {
    use mpblas::view::MatRef;
    for bits in [106, 424, 1696] {
        let b = Basis::new(bits).unwrap();
        let e = rns_common::fused_rounding_edges(&b);
        let (m, n) = (e.m, e.n);
        let (zero, one) = (MpFloat::from_f64(&b, 0.0), MpFloat::from_f64(&b, 1.0));
        let x = vec![one.clone(); n];
        let mut y = vec![zero.clone(); m];
        blas::rns::gemv_fused(
            &one,
            MatRef::col_major(&e.a, m, n, m).unwrap(),
            VecRef::contiguous(&x),
            &zero,
            VecMut::contiguous(&mut y),
        )
        .unwrap();
        e.assert_exact(&y, &format!("{bits} bits"));
    }
}

#[test]
fn rns_gemv_fused_within_its_bound_and_rounded_once() {
    for bits in [106, 424, 1696] {
        gemv_fused_for(&Basis::new(bits).unwrap(), 1);
    }
    report("rns_gemv_fused");
}

/// NaN/∞ propagation, signed zeros, `α = 0` (A and x not read), quick returns and bad arguments
/// of the fused GEMV.
#[test]
fn rns_gemv_fused_specials_and_arguments() {
    use mpblas::blas::rns::{gemv_fused, gemv_fused_bounded};
    use mpblas::view::MatRef;
    let b = Basis::new(106).unwrap();
    let f = |v: f64| MpFloat::from_f64(&b, v);
    let run = |a: &[f64],
               x: &[f64],
               beta: f64,
               y: &[f64]|
     -> (Vec<MpFloat>, Vec<Option<mpblas::rns::ExtF>>) {
        let a: Vec<MpFloat> = a.iter().map(|&v| f(v)).collect();
        let x: Vec<MpFloat> = x.iter().map(|&v| f(v)).collect();
        let mut y: Vec<MpFloat> = y.iter().map(|&v| f(v)).collect();
        let m = y.len();
        let bounds = gemv_fused_bounded(
            &f(1.0),
            MatRef::col_major(&a, m, x.len(), m.max(1)).unwrap(),
            VecRef::contiguous(&x),
            &f(beta),
            VecMut::contiguous(&mut y),
        )
        .unwrap();
        (y, bounds)
    };
    let inf = f64::INFINITY;
    // rows [NaN, 1], [∞, −∞], [∞, 1], [1, 2] times [1, 1]: NaN, NaN, +∞, 3
    let (y, bd) = run(
        &[f64::NAN, inf, inf, 1.0, 1.0, -inf, 1.0, 2.0],
        &[1.0, 1.0],
        0.0,
        &[0.0; 4],
    );
    assert!(y[0].is_nan() && bd[0].is_none());
    assert!(y[1].is_nan(), "+inf - inf");
    assert!(y[2].is_infinite() && !y[2].is_sign_negative() && bd[2].is_none());
    assert!(y[3].num_eq(&f(3.0)));
    // ∞·0 is NaN
    let (y, _) = run(&[1.0, inf], &[1.0, 0.0], 0.0, &[0.0]);
    assert!(y[0].is_nan(), "inf * 0");
    // signed zeros: all −0 terms give −0; +0 with −0 gives +0; exact cancellation gives +0
    let (y, _) = run(&[-0.0, 0.0, 1.0], &[1.0], -1.0, &[0.0, 0.0, 1.0]);
    assert!(
        y[0].is_zero() && y[0].is_sign_negative(),
        "-0*1 + -1*0 = -0"
    );
    assert!(y[1].is_zero() && !y[1].is_sign_negative());
    assert!(y[2].is_zero() && !y[2].is_sign_negative(), "1 - 1 = +0");
    // α = 0 reads neither A nor x; y = β·y
    let nan = vec![f(f64::NAN); 4];
    let mut y = vec![f(3.0), f(-5.0)];
    gemv_fused(
        &f(0.0),
        MatRef::col_major(&nan, 2, 2, 2).unwrap(),
        VecRef::contiguous(&nan[..2]),
        &f(0.5),
        VecMut::contiguous(&mut y),
    )
    .unwrap();
    assert!(y[0].num_eq(&f(1.5)) && y[1].num_eq(&f(-2.5)));
    // β = 0 does not read y
    let (y, _) = run(&[2.0], &[3.0], 0.0, &[f64::NAN]);
    assert!(y[0].num_eq(&f(6.0)));
    // bad arguments are errors
    let a = vec![f(1.0); 4];
    let mut y = vec![f(0.0); 3];
    assert!(matches!(
        gemv_fused(
            &f(1.0),
            MatRef::col_major(&a, 2, 2, 2).unwrap(),
            VecRef::contiguous(&a[..2]),
            &f(0.0),
            VecMut::contiguous(&mut y),
        ),
        Err(Error::LengthMismatch { .. })
    ));
    // the same bits in pools of 1, 2, 3 and 8 threads (sums of residues have no order)
    let mut g = SplitMix64::new(41);
    let (m, n) = (37, 300);
    let big: Vec<MpFloat> = (0..m * n)
        .map(|_| {
            let e = g.int(-60, 60);
            full_at::<MpFloat>(&b, &mut g, e)
        })
        .collect();
    let xs: Vec<MpFloat> = (0..n).map(|_| full_at::<MpFloat>(&b, &mut g, 0)).collect();
    let ys: Vec<MpFloat> = (0..m).map(|_| full_at::<MpFloat>(&b, &mut g, 0)).collect();
    let runs: Vec<Vec<Vec<u64>>> = [1, 2, 3, 8]
        .iter()
        .map(|&t| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap();
            pool.install(|| {
                let mut y = ys.clone();
                gemv_fused(
                    &f(1.5),
                    MatRef::col_major(&big, m, n, m).unwrap(),
                    VecRef::contiguous(&xs),
                    &f(-0.5),
                    VecMut::contiguous(&mut y),
                )
                .unwrap();
                bits_of(&y)
            })
        })
        .collect();
    assert!(runs.windows(2).all(|w| w[0] == w[1]), "thread counts");
    let other = Basis::new(212).unwrap();
    let x2 = vec![MpFloat::from_f64(&other, 1.0); 2];
    let mut y = vec![f(0.0); 2];
    assert!(matches!(
        gemv_fused(
            &f(1.0),
            MatRef::col_major(&a, 2, 2, 2).unwrap(),
            VecRef::contiguous(&x2),
            &f(0.0),
            VecMut::contiguous(&mut y),
        ),
        Err(Error::BasisMismatch { .. })
    ));
}

/// [`blas::rns::dot_fused`] against MPFR: within its bound on every kind of vector and length
/// (around the 4096-term tasks), equal to MPFR's rounding of the exact dot where no term
/// leaves the window, the same bits in pools of 1, 2 and 3 threads; specials propagate.
#[test]
fn rns_dot_fused_within_its_bound_and_rounded_once() {
    use mpblas::blas::rns::{dot_fused, dot_fused_bounded};
    for bits in [106, 424, 1696] {
        let b = Basis::new(bits).unwrap();
        let p = b.precision();
        let mut g = SplitMix64::new(0xd07 + u64::from(bits));
        for n in [1, 7, 4095, 4097, 20_000] {
            for kind in KINDS {
                let x = vector::<MpFloat>(&b, kind, n, &mut g);
                let y = partner::<MpFloat>(&b, kind, &x, &mut g);
                let (v, bound) =
                    dot_fused_bounded(VecRef::contiguous(&x), VecRef::contiguous(&y)).unwrap();
                let terms: Vec<Float> = x
                    .iter()
                    .zip(&y)
                    .map(|(a, c)| exact_product(&a.exact(), &c.exact()))
                    .collect();
                let want = exact_sum(&terms);
                let label = format!("dot_fused {p}b {kind:?} n={n}");
                assert_within_ext(&v, bound.expect("finite"), &want, &label);
                if matches!(kind, Kind::Random | Kind::Cancel) {
                    assert_eq!(v.exact(), rounded_to(&want, p), "{label}: not RN(Σ x·y)");
                }
                if n == 20_000 && matches!(kind, Kind::Random) {
                    for t in [1, 2, 3] {
                        let pool = rayon::ThreadPoolBuilder::new()
                            .num_threads(t)
                            .build()
                            .unwrap();
                        let w = pool
                            .install(|| dot_fused(VecRef::contiguous(&x), VecRef::contiguous(&y)))
                            .unwrap();
                        assert_eq!(
                            bits_of(&[w]),
                            bits_of(std::slice::from_ref(&v)),
                            "{label}: {t} threads"
                        );
                    }
                }
            }
        }
        // specials and the empty dot
        let f = |v: f64| MpFloat::from_f64(&b, v);
        let inf = f64::INFINITY;
        let d = |x: &[f64], y: &[f64]| {
            let x: Vec<MpFloat> = x.iter().map(|&v| f(v)).collect();
            let y: Vec<MpFloat> = y.iter().map(|&v| f(v)).collect();
            dot_fused(VecRef::contiguous(&x), VecRef::contiguous(&y)).unwrap()
        };
        assert!(d(&[1.0, f64::NAN], &[1.0, 1.0]).is_nan());
        assert!(d(&[inf, 1.0], &[0.0, 1.0]).is_nan());
        assert!(d(&[inf, -inf], &[1.0, 1.0]).is_nan());
        assert!(d(&[inf, 1.0], &[1.0, 1.0]).is_infinite());
        assert!(d(&[-0.0], &[1.0]).is_sign_negative());
        assert!(d(&[], &[]).is_zero());
    }
    report("rns_dot_fused");
}

/// [`blas::rns::gemm_fused`] against MPFR: every entry within its bound and, on random data,
/// MPFR's `RN_p(Σ_l a_il·fl(α b_lj) + β c_ij)`, for each transpose of `A` and `B`, `β` zero or
/// not; `α = 0` reads neither `A` nor `B`; dimension errors; the same bits in pools of 1 and 3.
#[test]
fn rns_gemm_fused_within_its_bound_and_rounded_once() {
    use mpblas::blas::rns::{gemm_fused, gemm_fused_bounded};
    use mpblas::view::{MatMut, MatRef};
    for bits in [106, 424] {
        let b = Basis::new(bits).unwrap();
        let p = b.precision();
        let mut g = SplitMix64::new(0x9e + u64::from(bits));
        for &(m, k, n) in &[(1, 1, 1), (3, 5, 4), (17, 40, 9)] {
            for kind in KINDS {
                let av = vector::<MpFloat>(&b, kind, m * k, &mut g);
                let bv = partner::<MpFloat>(&b, kind, &av[..k.min(av.len())], &mut g);
                // B: k x n, its columns the partner vector scaled by ±2^e
                let bm: Vec<MpFloat> = (0..n)
                    .flat_map(|_| {
                        let s = MpFloat::from_f64(&b, g.sign() * 2f64.powi(g.int(-4, 4) as i32));
                        bv.iter().map(move |v| v * &s).collect::<Vec<_>>()
                    })
                    .collect();
                let alpha = full_at::<MpFloat>(&b, &mut g, 0);
                for beta_zero in [false, true] {
                    let beta = if beta_zero {
                        value(&b, 0.0)
                    } else {
                        full_at::<MpFloat>(&b, &mut g, -1)
                    };
                    let c0: Vec<MpFloat> = (0..m * n)
                        .map(|_| full_at::<MpFloat>(&b, &mut g, 2))
                        .collect();
                    for (ta, tb) in [(false, false), (true, false), (false, true), (true, true)] {
                        // store op(A) transposed where asked: A^T as a k x m column-major array
                        let a_store: Vec<MpFloat> = if ta {
                            (0..m)
                                .flat_map(|i| (0..k).map(move |l| (i, l)))
                                .map(|(i, l)| av[i + l * m].clone())
                                .collect()
                        } else {
                            av.clone()
                        };
                        let b_store: Vec<MpFloat> = if tb {
                            (0..k)
                                .flat_map(|l| (0..n).map(move |j| (l, j)))
                                .map(|(l, j)| bm[l + j * k].clone())
                                .collect()
                        } else {
                            bm.clone()
                        };
                        let a_view = if ta {
                            MatRef::col_major(&a_store, k, m, k).unwrap().t()
                        } else {
                            MatRef::col_major(&a_store, m, k, m).unwrap()
                        };
                        let b_view = if tb {
                            MatRef::col_major(&b_store, n, k, n).unwrap().t()
                        } else {
                            MatRef::col_major(&b_store, k, n, k).unwrap()
                        };
                        let mut c = c0.clone();
                        let bounds = gemm_fused_bounded(
                            &alpha,
                            a_view,
                            b_view,
                            &beta,
                            MatMut::col_major(&mut c, m, n, m).unwrap(),
                        )
                        .unwrap();
                        for j in 0..n {
                            for i in 0..m {
                                let mut terms: Vec<Float> = (0..k)
                                    .map(|l| {
                                        exact_product(
                                            &alpha.exact(),
                                            &exact_product(
                                                &av[i + l * m].exact(),
                                                &bm[l + j * k].exact(),
                                            ),
                                        )
                                    })
                                    .collect();
                                let mut with_d: Vec<Float> = (0..k)
                                    .map(|l| {
                                        exact_product(
                                            &av[i + l * m].exact(),
                                            &(&alpha * &bm[l + j * k]).exact(),
                                        )
                                    })
                                    .collect();
                                if !beta_zero {
                                    let bc = exact_product(&beta.exact(), &c0[i + j * m].exact());
                                    terms.push(bc.clone());
                                    with_d.push(bc);
                                }
                                let label = format!(
                                    "gemm_fused {p}b {kind:?} {m}x{k}x{n} ta={ta} tb={tb} beta0={beta_zero} ({i},{j})"
                                );
                                assert_within_ext(
                                    &c[i + j * m],
                                    bounds[i + j * m].expect("finite"),
                                    &exact_sum(&terms),
                                    &label,
                                );
                                if matches!(kind, Kind::Random) {
                                    assert_eq!(
                                        c[i + j * m].exact(),
                                        rounded_to(&exact_sum(&with_d), p),
                                        "{label}"
                                    );
                                }
                            }
                        }
                        if m == 17 && !ta && !tb && matches!(kind, Kind::Random) {
                            for t in [1, 3] {
                                let pool = rayon::ThreadPoolBuilder::new()
                                    .num_threads(t)
                                    .build()
                                    .unwrap();
                                let mut c2 = c0.clone();
                                pool.install(|| {
                                    gemm_fused(
                                        &alpha,
                                        a_view,
                                        b_view,
                                        &beta,
                                        MatMut::col_major(&mut c2, m, n, m).unwrap(),
                                    )
                                })
                                .unwrap();
                                assert_eq!(bits_of(&c2), bits_of(&c), "{t} threads");
                            }
                        }
                    }
                }
            }
        }
        // α = 0 reads neither A nor B: C = β·C; dimension errors
        let nan = vec![value::<MpFloat>(&b, f64::NAN); 6];
        let mut c = vec![value::<MpFloat>(&b, 3.0); 4];
        gemm_fused(
            &value(&b, 0.0),
            MatRef::col_major(&nan, 2, 3, 2).unwrap(),
            MatRef::col_major(&nan, 3, 2, 3).unwrap(),
            &value(&b, 0.5),
            MatMut::col_major(&mut c, 2, 2, 2).unwrap(),
        )
        .unwrap();
        assert!(c.iter().all(|v| v.num_eq(&value(&b, 1.5))));
        let r = gemm_fused(
            &value(&b, 1.0),
            MatRef::col_major(&nan, 2, 3, 2).unwrap(),
            MatRef::col_major(&nan, 2, 3, 2).unwrap(),
            &value(&b, 0.0),
            MatMut::col_major(&mut c, 2, 2, 2).unwrap(),
        );
        assert!(matches!(r, Err(Error::LengthMismatch { .. })), "{r:?}");
    }
    report("rns_gemm_fused");
}

/// Beyond 1074 bits `u = 2^-p` is 0 in `f64`: the generic routines' `f64` bounds must still
/// hold (they take `u` rounded up to the smallest subnormal), here on products near 2^1000
/// whose rounding errors (near 2^-696) are far above 2^-1074.
#[test]
fn rns_bounds_beyond_f64_precision_still_hold() {
    let b = Basis::new(1696).unwrap();
    let mut g = SplitMix64::new(1696);
    let x: Vec<MpFloat> = (0..64)
        .map(|_| full_at::<MpFloat>(&b, &mut g, 500))
        .collect();
    let y: Vec<MpFloat> = (0..64)
        .map(|_| full_at::<MpFloat>(&b, &mut g, 500))
        .collect();
    let r = blas::dot_bounded(
        VecRef::contiguous(&x),
        VecRef::contiguous(&y),
        Summation::Recursive,
    )
    .unwrap();
    assert!(r.error_bound > 0.0);
    let terms: Vec<Float> = x
        .iter()
        .zip(&y)
        .map(|(a, c)| exact_product(&a.exact(), &c.exact()))
        .collect();
    let err = abs_diff(&r.value.exact(), &exact_sum(&terms));
    assert!(
        err <= r.error_bound,
        "error {err:e} above the bound {:e}",
        r.error_bound
    );
}

// ---- level 3: gemm ----------------------------------------------------------------------------

/// A random `±2^k`, `−8 ≤ k ≤ 0`: scaling a row or column by it keeps its spread and
/// cancellation (and `Wide` values near the top of the range finite).
fn pow2_sign<T: Fmt>(ctx: &T::Ctx, g: &mut SplitMix64) -> T {
    let k = g.int(-8, 0) as i32;
    value(
        ctx,
        if g.next_u64() & 1 == 0 { 1.0 } else { -1.0 } * 2f64.powi(k),
    )
}

/// `C ← α·op(A)·op(B) + β·C` against MPFR within the returned componentwise bounds: rows of
/// `A` of every kind (row 0 of `kind`, the others `±2^k` times it), columns of `B` its partner
/// times `±2^k` (so every entry cancels, spreads over `2^±1000` or meets subnormals as the
/// kind says), sizes across the micro-tile and task edges, both transposes through the BLAS
/// entry (the same bits as the views), `β = 0` (NaN in `C` not read) and `α = 0` (NaN in `A`
/// and `B` not read).
fn gemm_for<T: Fmt>(ctx: &T::Ctx, sizes: &[(usize, usize, usize)], seed: u64) {
    gemm_with::<T>(
        "gemm",
        ctx,
        sizes,
        seed,
        &|alpha, a, b, beta, c| mpblas::blas::level3::gemm_bounded(alpha, a, b, beta, c),
        true,
    );
}

/// A bounded GEMM under test.
type GemmBounded<T> = dyn Fn(
    &T,
    mpblas::view::MatRef<'_, T>,
    mpblas::view::MatRef<'_, T>,
    &T,
    mpblas::view::MatMut<'_, T>,
) -> mpblas::Result<Vec<f64>>;

/// [`gemm_for`] for any bounded GEMM `gemm` (named `what`); `blas_entry`: also check that
/// `gemm_blas` on transposed storage gives the same bits.
fn gemm_with<T: Fmt>(
    what: &str,
    ctx: &T::Ctx,
    sizes: &[(usize, usize, usize)],
    seed: u64,
    gemm_bounded: &GemmBounded<T>,
    blas_entry: bool,
) {
    use mpblas::blas::level3::gemm_blas;
    use mpblas::view::{MatMut, MatRef, Trans};
    let mut g = SplitMix64::new(0x3e33 + seed);
    for &(m, n, k) in sizes {
        for kind in KINDS {
            let row0 = vector::<T>(ctx, kind, k, &mut g);
            let col0 = partner::<T>(ctx, kind, &row0, &mut g);
            let lda = m + 1;
            let mut a = vec![value::<T>(ctx, 0.0); lda * k];
            for i in 0..m {
                let s = pow2_sign::<T>(ctx, &mut g);
                for (l, v) in row0.iter().enumerate() {
                    a[i + l * lda] = if i == 0 { v.clone() } else { v.mul_ref(&s) };
                }
            }
            let mut b = vec![value::<T>(ctx, 0.0); k * n];
            for j in 0..n {
                let s = pow2_sign::<T>(ctx, &mut g);
                for (l, v) in col0.iter().enumerate() {
                    b[l + j * k] = v.mul_ref(&s);
                }
            }
            let alpha = full_at::<T>(ctx, &mut g, 0);
            for beta_zero in [false, true] {
                let beta = if beta_zero {
                    value(ctx, 0.0)
                } else {
                    full_at::<T>(ctx, &mut g, -3)
                };
                let c0: Vec<T> = (0..m * n)
                    .map(|_| {
                        if beta_zero {
                            value(ctx, f64::NAN)
                        } else {
                            full_at::<T>(ctx, &mut g, 2)
                        }
                    })
                    .collect();
                let mut c = c0.clone();
                let bounds = gemm_bounded(
                    &alpha,
                    MatRef::col_major(&a, m, k, lda).unwrap(),
                    MatRef::col_major(&b, k, n, k).unwrap(),
                    &beta,
                    MatMut::col_major(&mut c, m, n, m).unwrap(),
                )
                .unwrap();
                let (ae, be) = (alpha.exact(), beta.exact());
                let (ax, bx) = (exact_all(&a), exact_all(&b));
                for j in 0..n {
                    for i in 0..m {
                        let mut terms: Vec<Float> = (0..k)
                            .map(|l| {
                                exact_product(&ae, &exact_product(&ax[i + l * lda], &bx[l + j * k]))
                            })
                            .collect();
                        if !beta_zero {
                            terms.push(exact_product(&be, &c0[i + j * m].exact()));
                        }
                        let r = Bounded {
                            value: c[i + j * m].clone(),
                            error_bound: bounds[i + j * m],
                        };
                        assert_within(
                            what,
                            &r,
                            &exact_sum(&terms),
                            &format!(
                                "{} {kind:?} {m}x{n}x{k} beta0={beta_zero} ({i}, {j})",
                                T::FORMAT
                            ),
                        );
                    }
                }
                if !blas_entry {
                    continue;
                }
                // Both transposes through the BLAS entry: Aᵀ stored k × m, Bᵀ stored n × k.
                let at: Vec<T> = (0..m * k)
                    .map(|q| a[(q / k) + (q % k) * lda].clone())
                    .collect();
                let bt: Vec<T> = (0..k * n)
                    .map(|q| b[(q / n) + (q % n) * k].clone())
                    .collect();
                let mut c2 = c0.clone();
                gemm_blas(
                    Trans::Yes,
                    Trans::Yes,
                    m,
                    n,
                    k,
                    &alpha,
                    &at,
                    k.max(1),
                    &bt,
                    n.max(1),
                    &beta,
                    &mut c2,
                    m,
                )
                .unwrap();
                assert_eq!(bits_of(&c2), bits_of(&c), "{} transposed", T::FORMAT);
            }
            // α = 0 reads neither A nor B: C = β·C.
            let nan = vec![value::<T>(ctx, f64::NAN); (m * k).max(k * n).max(1)];
            let beta = full_at::<T>(ctx, &mut g, 0);
            let c0 = vector::<T>(ctx, Kind::Random, m * n, &mut g);
            let mut c = c0.clone();
            let bounds = gemm_bounded(
                &value(ctx, 0.0),
                MatRef::col_major(&nan, m, k, m).unwrap(),
                MatRef::col_major(&nan, k, n, k.max(1)).unwrap(),
                &beta,
                MatMut::col_major(&mut c, m, n, m).unwrap(),
            )
            .unwrap();
            for q in 0..m * n {
                let r = Bounded {
                    value: c[q].clone(),
                    error_bound: bounds[q],
                };
                assert_within(
                    &format!("{what} alpha=0"),
                    &r,
                    &exact_product(&beta.exact(), &c0[q].exact()),
                    T::FORMAT,
                );
            }
        }
    }
}

#[test]
fn gemm_within_its_bounds() {
    let small = [(1, 1, 1), (3, 5, 7), (9, 4, 13)];
    gemm_for::<f64>(&(), &[small[0], small[1], small[2], (70, 67, 21)], 1);
    gemm_for::<Dd>(&(), &[small[0], small[1], small[2], (70, 67, 21)], 2);
    gemm_for::<Qd>(&(), &[small[0], small[1], small[2], (17, 9, 11)], 3);
    gemm_for::<MpFloat>(&Basis::new(106).unwrap(), &small, 4);
    gemm_for::<MpFloat>(&Basis::new(424).unwrap(), &small[..2], 5);
    report("gemm");
}

/// The compensated double-double GEMM against MPFR within its bounds: `k` across the block of
/// 32 (31, 32, 33, 100, 300), every kind of input; and the same bits for any thread count.
#[test]
fn gemm_dd_compensated_within_its_bounds() {
    use mpblas::blas::level3::{gemm_dd_compensated, gemm_dd_compensated_bounded};
    use mpblas::view::{MatMut, MatRef};
    let sizes = [
        (1, 1, 1),
        (3, 5, 31),
        (9, 4, 32),
        (7, 6, 33),
        (70, 67, 100),
        (5, 3, 300),
    ];
    gemm_with::<Dd>(
        "gemm_dd_compensated",
        &(),
        &sizes,
        6,
        &|alpha, a, b, beta, c| gemm_dd_compensated_bounded(alpha, a, b, beta, c),
        false,
    );
    report("gemm_dd_compensated");
    let mut g = SplitMix64::new(10);
    let (m, n, k) = (131, 9, 250);
    let a: Vec<Dd> = (0..m * k).map(|_| full_at::<Dd>(&(), &mut g, 0)).collect();
    let b: Vec<Dd> = (0..k * n).map(|_| full_at::<Dd>(&(), &mut g, 0)).collect();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut c = vec![Dd::ONE; m * n];
        pool.install(|| {
            gemm_dd_compensated(
                &Dd::ONE,
                MatRef::col_major(&a, m, k, m).unwrap(),
                MatRef::col_major(&b, k, n, k).unwrap(),
                &Dd::ONE,
                MatMut::col_major(&mut c, m, n, m).unwrap(),
            )
            .unwrap()
        });
        bits_of(&c)
    };
    assert_eq!(run(1), run(3));
}

/// The compensated GEMM's special values: NaN, ±∞ (alone: ±∞; against each other: NaN),
/// overflow to ±∞, and signed zeros as IEEE (a sum of −0 products is −0).
#[test]
fn gemm_dd_compensated_specials() {
    use mpblas::blas::level3::gemm_dd_compensated_bounded;
    use mpblas::view::{MatMut, MatRef};
    let run = |a: &[f64], b: &[f64]| -> (Dd, f64) {
        let k = a.len();
        let a: Vec<Dd> = a.iter().map(|&v| Dd::from(v)).collect();
        let b: Vec<Dd> = b.iter().map(|&v| Dd::from(v)).collect();
        let mut c = [Dd::ZERO];
        let bound = gemm_dd_compensated_bounded(
            &Dd::ONE,
            MatRef::col_major(&a, 1, k, 1).unwrap(),
            MatRef::col_major(&b, k, 1, k).unwrap(),
            &Dd::ZERO,
            MatMut::col_major(&mut c, 1, 1, 1).unwrap(),
        )
        .unwrap();
        (c[0], bound[0])
    };
    let inf = f64::INFINITY;
    let (v, bd) = run(&[1.0, inf, 2.0], &[1.0, 1.0, 1.0]);
    assert_eq!((v.hi, bd), (inf, inf));
    let (v, _) = run(&[1.0, inf, -inf], &[1.0, 1.0, 1.0]);
    assert!(v.hi.is_nan());
    let (v, _) = run(&[0.0, inf], &[inf, 1.0]);
    assert!(v.hi.is_nan());
    let (v, _) = run(&[1.0, f64::NAN], &[1.0, 1.0]);
    assert!(v.hi.is_nan());
    // Overflow of the sum in one block, and across blocks.
    let (v, _) = run(&[f64::MAX, f64::MAX], &[1.0, 1.0]);
    assert_eq!(v.hi, inf);
    let mut a = vec![0.0; 64];
    a[0] = f64::MAX;
    a[40] = f64::MAX;
    let (v, _) = run(&a, &vec![1.0; 64]);
    assert_eq!(v.hi, inf);
    // Signed zeros: −0 products give −0 (over two blocks too); +0 and −0 give +0.
    let (v, _) = run(&vec![-0.0; 40], &vec![1.0; 40]);
    assert!(v.hi == 0.0 && v.hi.is_sign_negative(), "{v:?}");
    let (v, _) = run(&[-0.0, 0.0], &[1.0, 1.0]);
    assert!(v.hi == 0.0 && v.hi.is_sign_positive());
    // Exact cancellation: +0.
    let (v, _) = run(&[3.0, -3.0], &[0.1, 0.1]);
    assert!(v.hi == 0.0 && v.hi.is_sign_positive(), "{v:?}");
}

/// Bad arguments are errors; `k = 0` is `C ← β·C`; the same bits for any thread count and for
/// a row-major `C`.
#[test]
fn gemm_arguments_edges_and_thread_counts() {
    use mpblas::blas::level3::{gemm, gemm_blas};
    use mpblas::view::{MatMut, MatRef, Trans};
    let a = vec![1.0f64; 12];
    let mut c = vec![0.0f64; 16];
    assert!(matches!(
        gemm(
            &1.0,
            MatRef::col_major(&a, 3, 4, 3).unwrap(),
            MatRef::col_major(&a, 3, 4, 3).unwrap(),
            &0.0,
            MatMut::col_major(&mut c, 3, 4, 3).unwrap()
        ),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        gemm_blas(
            Trans::No,
            Trans::No,
            3,
            4,
            4,
            &1.0,
            &a,
            2,
            &a,
            4,
            &0.0,
            &mut c,
            3
        ),
        Err(Error::LeadingDim { .. })
    ));
    assert!(matches!(
        gemm_blas(
            Trans::No,
            Trans::No,
            4,
            4,
            4,
            &1.0,
            &a,
            4,
            &a,
            4,
            &0.0,
            &mut c,
            4
        ),
        Err(Error::ArrayTooShort { .. })
    ));
    assert!(
        gemm_blas(
            Trans::No,
            Trans::No,
            usize::MAX,
            2,
            2,
            &1.0,
            &a,
            usize::MAX,
            &a,
            2,
            &0.0,
            &mut c,
            usize::MAX
        )
        .is_err()
    );
    // k = 0: C ← β·C, +0 for β = 0 (reference dgemm), unchanged for β = 1.
    let mut c = vec![f64::NAN, 3.0];
    gemm_blas(
        Trans::No,
        Trans::No,
        1,
        2,
        0,
        &2.0,
        &[],
        1,
        &[],
        1,
        &0.0,
        &mut c,
        1,
    )
    .unwrap();
    assert_eq!(c.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), [0, 0]);
    let mut c = vec![f64::NAN, 3.0];
    gemm_blas(
        Trans::No,
        Trans::No,
        1,
        2,
        0,
        &2.0,
        &[],
        1,
        &[],
        1,
        &1.0,
        &mut c,
        1,
    )
    .unwrap();
    assert!(c[0].is_nan() && c[1] == 3.0);
    // RNS operands of two bases.
    let (b1, b2) = (Basis::new(106).unwrap(), Basis::new(212).unwrap());
    let ar: Vec<MpFloat> = (0..4).map(|_| MpFloat::from_f64(&b1, 1.0)).collect();
    let br: Vec<MpFloat> = (0..4).map(|_| MpFloat::from_f64(&b2, 1.0)).collect();
    let mut cr = ar.clone();
    let one = MpFloat::from_f64(&b1, 1.0);
    assert!(matches!(
        gemm(
            &one,
            MatRef::col_major(&ar, 2, 2, 2).unwrap(),
            MatRef::col_major(&br, 2, 2, 2).unwrap(),
            &one,
            MatMut::col_major(&mut cr, 2, 2, 2).unwrap()
        ),
        Err(Error::BasisMismatch { .. })
    ));
    // Same bits with 1, 2 and 3 threads, and into a row-major C.
    let mut g = SplitMix64::new(9);
    let (m, n, k) = (131, 70, 150);
    let a: Vec<Dd> = (0..m * k).map(|_| full_at::<Dd>(&(), &mut g, 0)).collect();
    let b: Vec<Dd> = (0..k * n).map(|_| full_at::<Dd>(&(), &mut g, 0)).collect();
    let run = |threads: usize, row_major: bool| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut c = vec![Dd::ONE; m * n];
        pool.install(|| {
            let cv = if row_major {
                MatMut::row_major(&mut c, m, n, n).unwrap()
            } else {
                MatMut::col_major(&mut c, m, n, m).unwrap()
            };
            gemm(
                &Dd::ONE,
                MatRef::col_major(&a, m, k, m).unwrap(),
                MatRef::col_major(&b, k, n, k).unwrap(),
                &Dd::ONE,
                cv,
            )
            .unwrap()
        });
        if row_major {
            (0..m * n).map(|q| c[(q % m) * n + q / m]).collect()
        } else {
            c
        }
    };
    let one_thread = bits_of(&run(1, false));
    assert_eq!(bits_of(&run(2, false)), one_thread);
    assert_eq!(bits_of(&run(3, true)), one_thread);
}

/// NaN and ±∞ in `A`, `B` or `C` reach exactly the entries IEEE arithmetic would: a NaN in row
/// `i` of `A` makes row `i` of `C` NaN, `+∞·x + (−∞)·y` gives NaN, `∞` alone gives `∞`, and the
/// bound of an entry that is not finite is `+∞`.
#[test]
fn gemm_specials_propagate() {
    use mpblas::blas::level3::gemm_bounded;
    use mpblas::view::{MatMut, MatRef};
    let (m, n, k) = (3, 3, 2);
    // A = [[NaN, 1], [inf, 1], [1, 1]], B = [[1, 1, 1], [1, -inf, 1]] (column-major).
    let a = [f64::NAN, f64::INFINITY, 1.0, 1.0, 1.0, 1.0].map(Dd::from);
    let b = [1.0, 1.0, 1.0, f64::NEG_INFINITY, 1.0, 1.0].map(Dd::from);
    let mut c = [Dd::ZERO; 9];
    let bounds = gemm_bounded(
        &Dd::ONE,
        MatRef::col_major(&a, m, k, m).unwrap(),
        MatRef::col_major(&b, k, n, k).unwrap(),
        &Dd::ZERO,
        MatMut::col_major(&mut c, m, n, m).unwrap(),
    )
    .unwrap();
    let hi: Vec<f64> = c.iter().map(|v| v.hi).collect();
    // Row 0: NaN everywhere. Row 1: inf + 1 = inf, inf - inf = NaN, inf. Row 2: 2, -inf, 2.
    assert!(hi[0].is_nan() && hi[3].is_nan() && hi[6].is_nan());
    assert_eq!((hi[1], hi[7]), (f64::INFINITY, f64::INFINITY));
    assert!(hi[4].is_nan());
    assert_eq!((hi[2], hi[5], hi[8]), (2.0, f64::NEG_INFINITY, 2.0));
    for (q, bd) in bounds.iter().enumerate() {
        assert_eq!(bd.is_finite(), hi[q].is_finite(), "entry {q}");
    }
}

// ---- lapack: LU and solves -------------------------------------------------------------------

/// `Σ_l |x_l|·|y_l|` exactly, as an upper `f64` (for the right-hand sides of the LU bounds).
fn exact_abs_dot(terms: &[(Float, Float)]) -> f64 {
    let t: Vec<Float> = terms
        .iter()
        .map(|(x, y)| {
            exact_product(
                &Float::with_val(x.prec(), x.abs_ref()),
                &Float::with_val(y.prec(), y.abs_ref()),
            )
        })
        .collect();
    exact_sum(&t).to_f64() * (1.0 + 1e-15) + f64::from_bits(1)
}

/// `getrf` against MPFR: `P·A = L̂·Û + ΔA` with `|ΔA| ≤ γ_n·|L̂||Û|` (Higham Thm 9.3), entry
/// by entry, exactly; then `getrs` (both transposes) and `gesv`: `|b − op(A)·x̂| ≤
/// γ_3n·(|L̂||Û|)|x̂|` (Thm 9.4) for each right-hand side.
fn lu_for<T: Fmt>(ctx: &T::Ctx, sizes: &[(usize, usize)], seed: u64) {
    use mpblas::blas::bounds::gamma;
    use mpblas::lapack::{gesv, getrf, getrs};
    use mpblas::view::{MatMut, MatRef, Trans};
    let mut g = SplitMix64::new(0x1a + seed);
    let eps = T::op_error_bound_in(ctx);
    for &(m, n) in sizes {
        let a0: Vec<T> = (0..m * n)
            .map(|_| {
                let e = g.int(-3, 3);
                full_at::<T>(ctx, &mut g, e)
            })
            .collect();
        let mut lu = a0.clone();
        let mut ipiv = vec![0usize; m.min(n)];
        let info = getrf(
            MatMut::col_major(&mut lu, m, n, m.max(1)).unwrap(),
            &mut ipiv,
        )
        .unwrap();
        assert_eq!(info, None, "{} {m}x{n}", T::FORMAT);
        // P·A: the rows of A swapped as ipiv says.
        let mut pa: Vec<Float> = exact_all(&a0);
        for (j, &p) in ipiv.iter().enumerate() {
            for c in 0..n {
                pa.swap(j + c * m, p + c * m);
            }
        }
        let lux = exact_all(&lu);
        let one = Float::with_val(53, 1);
        let l_at = |i: usize, q: usize| -> Float {
            if i == q {
                one.clone()
            } else {
                lux[i + q * m].clone()
            }
        };
        let g_n = gamma(n.max(m), eps);
        for j in 0..n {
            for i in 0..m {
                let terms: Vec<(Float, Float)> = (0..=i.min(j).min(m.min(n) - 1))
                    .map(|q| (l_at(i, q), lux[q + j * m].clone()))
                    .collect();
                let prods: Vec<Float> = terms.iter().map(|(x, y)| exact_product(x, y)).collect();
                let err = abs_diff(&exact_sum(&prods), &pa[i + j * m]).to_f64();
                let bound = g_n * exact_abs_dot(&terms) + 1e-300;
                assert!(
                    err <= bound,
                    "{} getrf {m}x{n} ({i}, {j}): |PA − LU| = {err:e} above {bound:e}",
                    T::FORMAT
                );
            }
        }
        if m != n {
            continue;
        }
        // Solves, three right-hand sides, both transposes, and gesv.
        let nrhs = 3;
        let b0: Vec<T> = (0..n * nrhs)
            .map(|_| full_at::<T>(ctx, &mut g, 0))
            .collect();
        let g3 = gamma(3 * n, eps);
        for trans in [Trans::No, Trans::Yes] {
            let mut x = b0.clone();
            getrs(
                trans,
                MatRef::col_major(&lu, n, n, n).unwrap(),
                &ipiv,
                MatMut::col_major(&mut x, n, nrhs, n).unwrap(),
            )
            .unwrap();
            // (|L||U|) (of P·A) for the bound, applied to |x̂| in the matching order.
            let lu_abs = |i: usize, j: usize| -> f64 {
                let terms: Vec<(Float, Float)> = (0..=i.min(j))
                    .map(|q| (l_at(i, q), lux[q + j * m].clone()))
                    .collect();
                exact_abs_dot(&terms)
            };
            // Row r of op(A) in P·A terms: No: (P·A)(π(r), ·) with π the row's place after
            // the swaps; Yes: column r of A = column r of P·A permuted.
            let mut perm: Vec<usize> = (0..n).collect();
            for (j, &p) in ipiv.iter().enumerate() {
                perm.swap(j, p);
            }
            // perm[i] = original row now at place i.
            let place: Vec<usize> = {
                let mut pl = vec![0; n];
                for (i, &r) in perm.iter().enumerate() {
                    pl[r] = i;
                }
                pl
            };
            let xe = exact_all(&x);
            let a0e = exact_all(&a0);
            for c in 0..nrhs {
                for r in 0..n {
                    let mut terms: Vec<Float> = (0..n)
                        .map(|q| {
                            let arq = if trans == Trans::No {
                                &a0e[r + q * n]
                            } else {
                                &a0e[q + r * n]
                            };
                            exact_product(arq, &xe[q + c * n])
                        })
                        .collect();
                    terms.push(Float::with_val(
                        b0[r + c * n].exact().prec(),
                        -b0[r + c * n].exact(),
                    ));
                    let res = exact_sum(&terms).to_f64().abs();
                    let bound: f64 = (0..n)
                        .map(|q| {
                            let w = if trans == Trans::No {
                                lu_abs(place[r], q)
                            } else {
                                lu_abs(place[q], r)
                            };
                            w * x[q + c * n].nearest_f64().abs() * (1.0 + 1e-15)
                        })
                        .sum::<f64>()
                        * g3
                        + 1e-300;
                    assert!(
                        res <= bound,
                        "{} getrs {trans:?} n={n} rhs {c} row {r}: residual {res:e} above {bound:e}",
                        T::FORMAT
                    );
                }
            }
        }
        let (mut a1, mut x1) = (a0.clone(), b0.clone());
        let mut ipiv1 = vec![0usize; n];
        gesv(
            MatMut::col_major(&mut a1, n, n, n).unwrap(),
            &mut ipiv1,
            MatMut::col_major(&mut x1, n, nrhs, n).unwrap(),
        )
        .unwrap();
        let mut x2 = b0.clone();
        getrs(
            Trans::No,
            MatRef::col_major(&lu, n, n, n).unwrap(),
            &ipiv,
            MatMut::col_major(&mut x2, n, nrhs, n).unwrap(),
        )
        .unwrap();
        assert_eq!(bits_of(&x1), bits_of(&x2), "gesv = getrf + getrs");
    }
}

#[test]
fn lu_factors_and_solves_within_their_bounds() {
    let sizes = [(1, 1), (5, 5), (40, 40), (70, 70), (9, 4), (4, 9), (37, 66)];
    lu_for::<f64>(&(), &sizes, 1);
    lu_for::<Dd>(&(), &sizes, 2);
    lu_for::<Qd>(&(), &sizes[..5], 3);
    lu_for::<MpFloat>(&Basis::new(212).unwrap(), &sizes[..3], 4);
}

/// Singular matrices, bad arguments, and the same bits for any thread count.
#[test]
fn lu_edges_errors_and_thread_counts() {
    use mpblas::lapack::{gesv, getrf, getrs};
    use mpblas::view::{MatMut, MatRef, Trans};
    // Column 1 is twice column 0: U(1, 1) = 0 exactly.
    let mut a = vec![1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 1.0, 0.0, 1.0];
    let mut ipiv = [0usize; 3];
    let info = getrf(MatMut::col_major(&mut a, 3, 3, 3).unwrap(), &mut ipiv).unwrap();
    assert_eq!(info, Some(1));
    let mut a = vec![1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 1.0, 0.0, 1.0];
    let mut b = vec![1.0, 2.0, 3.0];
    let r = gesv(
        MatMut::col_major(&mut a, 3, 3, 3).unwrap(),
        &mut ipiv,
        MatMut::col_major(&mut b, 3, 1, 3).unwrap(),
    );
    assert!(matches!(r, Err(Error::Singular { column: 1 })), "{r:?}");
    assert_eq!(b, [1.0, 2.0, 3.0], "b untouched");
    // Bad arguments.
    let mut a = vec![1.0; 6];
    assert!(matches!(
        getrf(
            MatMut::col_major(&mut a, 2, 3, 2).unwrap(),
            &mut [0usize; 1]
        ),
        Err(Error::LengthMismatch { .. })
    ));
    let mut b = vec![1.0; 2];
    assert!(matches!(
        gesv(
            MatMut::col_major(&mut a, 2, 3, 2).unwrap(),
            &mut [0usize; 3],
            MatMut::col_major(&mut b, 2, 1, 2).unwrap()
        ),
        Err(Error::LengthMismatch { .. })
    ));
    let lu = vec![2.0, 0.5, 1.0, 3.0];
    for bad in [[1usize, 0], [0, 2], [3, 1]] {
        let mut b = vec![1.0; 2];
        let r = getrs(
            Trans::No,
            MatRef::col_major(&lu, 2, 2, 2).unwrap(),
            &bad,
            MatMut::col_major(&mut b, 2, 1, 2).unwrap(),
        );
        assert!(matches!(r, Err(Error::OutOfRange { .. })), "{bad:?}: {r:?}");
    }
    // Empty systems.
    assert_eq!(
        getrf(
            MatMut::col_major(&mut [] as &mut [f64], 0, 0, 1).unwrap(),
            &mut []
        )
        .unwrap(),
        None
    );
    // RNS entries of two bases.
    let (b1, b2) = (Basis::new(106).unwrap(), Basis::new(212).unwrap());
    let mut ar = vec![MpFloat::from_f64(&b1, 1.0), MpFloat::from_f64(&b2, 2.0)];
    assert!(matches!(
        getrf(
            MatMut::col_major(&mut ar, 2, 1, 2).unwrap(),
            &mut [0usize; 1]
        ),
        Err(Error::BasisMismatch { .. })
    ));
    // Same bits with 1 and 3 threads (the trailing updates are gemm).
    let mut g = SplitMix64::new(12);
    let n = 100;
    let a0: Vec<Dd> = (0..n * n).map(|_| full_at::<Dd>(&(), &mut g, 0)).collect();
    let b0: Vec<Dd> = (0..n * 4).map(|_| full_at::<Dd>(&(), &mut g, 0)).collect();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let (mut a, mut b) = (a0.clone(), b0.clone());
        let mut ipiv = vec![0usize; n];
        pool.install(|| {
            gesv(
                MatMut::col_major(&mut a, n, n, n).unwrap(),
                &mut ipiv,
                MatMut::col_major(&mut b, n, 4, n).unwrap(),
            )
            .unwrap()
        });
        (bits_of(&a), bits_of(&b), ipiv)
    };
    assert_eq!(run(1), run(3));
}
