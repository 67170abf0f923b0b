//! Shared by the RNS GPU tests (`rns_twin_host.rs`, `gpu_rns_bits.rs`): seeded full-precision
//! random RNS numbers, adversarial operand sets, and field-by-field comparison of arrays.
#![allow(dead_code)]

use mpblas::rns::{Basis, EMAX, EMIN, MpArray, MpFloat};
use std::sync::Arc;

/// SplitMix64 (Steele, Lea, Flood 2014).
pub struct Rng(mpblas_testdata::SplitMix64);

impl Rng {
    /// A generator seeded with `seed` (the shared SplitMix64).
    pub fn new(seed: u64) -> Self {
        Rng(mpblas_testdata::SplitMix64::new(seed))
    }
    pub fn next(&mut self) -> u64 {
        self.0.next_u64()
    }
    /// Uniform in `lo..=hi`.
    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % ((hi - lo + 1) as u64)) as i64
    }
}

/// A random `bits`-bit integer (top bit set) as little-endian `u64` limbs.
pub fn random_limbs(rng: &mut Rng, bits: u64) -> Vec<u64> {
    let nl = bits.div_ceil(64) as usize;
    let mut l: Vec<u64> = (0..nl).map(|_| rng.next()).collect();
    let top = bits - 64 * (nl as u64 - 1); // 1..=64
    if top < 64 {
        l[nl - 1] &= (1u64 << top) - 1;
    }
    l[nl - 1] |= 1u64 << (top - 1);
    l
}

/// A random number with a full `p`-bit significand, random sign and exponent `e` (of the
/// significand's last bit).
pub fn random_exp(b: &Arc<Basis>, rng: &mut Rng, e: i64) -> MpFloat {
    let p = b.precision() as u64;
    let neg = rng.next() & 1 == 1;
    MpFloat::from_limbs(b, neg, &random_limbs(rng, p), e)
}

/// A random number whose significand's last bit has exponent in `-spread..=spread` around
/// `-p` (so values near 1).
pub fn random(b: &Arc<Basis>, rng: &mut Rng, spread: i64) -> MpFloat {
    let p = b.precision() as i64;
    let e = rng.int(-p - spread, -p + spread);
    random_exp(b, rng, e)
}

/// `x` with its lower `keep_low` significand bits replaced by random ones (same sign and
/// exponent): a cancellation partner.
pub fn near(b: &Arc<Basis>, rng: &mut Rng, x: &MpFloat, keep_low: u64) -> MpFloat {
    let (neg, mut limbs, e) = x.to_limbs().expect("finite");
    for (k, l) in limbs.iter_mut().enumerate() {
        let lo = 64 * k as u64;
        if lo >= keep_low {
            break;
        }
        let nb = (keep_low - lo).min(64);
        let mask = if nb == 64 { u64::MAX } else { (1u64 << nb) - 1 };
        *l = (*l & !mask) | (rng.next() & mask);
    }
    MpFloat::from_limbs(b, neg, &limbs, e)
}

/// `2^k · v` as a number (`v` < 2^64).
pub fn int_exp(b: &Arc<Basis>, neg: bool, v: u64, e: i64) -> MpFloat {
    MpFloat::from_u64_exp(b, neg, v, e)
}

/// Special values and values at the ends of the exponent range.
pub fn specials(b: &Arc<Basis>) -> Vec<MpFloat> {
    let p = b.precision() as i64;
    let mut rng = Rng::new(99);
    let mut v = vec![
        MpFloat::zero(b, false),
        MpFloat::zero(b, true),
        MpFloat::infinity(b, false),
        MpFloat::infinity(b, true),
        MpFloat::nan(b),
        MpFloat::from_f64(b, 1.0),
        MpFloat::from_f64(b, -1.0),
        MpFloat::from_f64(b, 0.75),
        MpFloat::from_f64(b, 3.0),
        random_exp(b, &mut rng, EMAX - p),
        random_exp(b, &mut rng, EMAX - p - 1),
        random_exp(b, &mut rng, EMIN - p),
        random_exp(b, &mut rng, EMIN - p + 1),
        int_exp(b, false, 1, EMAX - 1),
        int_exp(b, true, 1, EMIN),
    ];
    v.push(random(b, &mut rng, 3));
    v.push(random(b, &mut rng, 3).mul_pow2(10_000));
    v.push(random(b, &mut rng, 3).mul_pow2(-10_000));
    v
}

/// Adversarial pairs for `+ −`: cancellation, exponents far apart (10,000 and around the
/// rounding thresholds p ± 3), exact ties (half an ulp, a quarter ulp below a power of two),
/// and every pair of special values.
pub fn addsub_pairs(b: &Arc<Basis>, seed: u64) -> (Vec<MpFloat>, Vec<MpFloat>) {
    let p = b.precision() as i64;
    let mut rng = Rng::new(seed);
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    let sp = specials(b);
    for x in &sp {
        for y in &sp {
            xs.push(x.clone());
            ys.push(y.clone());
        }
    }
    for _ in 0..40 {
        let x = random(b, &mut rng, 5);
        // cancellation: equal top bits, random low bits; and exact equality
        for keep in [1u64, 8, 40, (p / 2) as u64, (p - 2) as u64] {
            let y = near(b, &mut rng, &x, keep);
            xs.push(x.clone());
            ys.push(y.neg());
            xs.push(x.clone());
            ys.push(y);
        }
        xs.push(x.clone());
        ys.push(x.clone());
        xs.push(x.clone());
        ys.push(x.neg());
        // exponents far apart and around the thresholds
        let e = x.exponent();
        for d in [
            10_000i64,
            -10_000,
            p - 3,
            p - 1,
            p,
            p + 1,
            p + 2,
            p + 3,
            -p - 1,
            -p - 2,
        ] {
            let y = random_exp(b, &mut rng, e - d);
            xs.push(x.clone());
            ys.push(y.clone());
            xs.push(x.clone());
            ys.push(y.neg());
        }
        // ties: half an ulp of x, and a power of two minus a quarter of its ulp
        xs.push(x.clone());
        ys.push(int_exp(b, rng.next() & 1 == 1, 1, e - 1));
        xs.push(x.clone());
        ys.push(int_exp(b, rng.next() & 1 == 1, 3, e - 1));
        let pow = int_exp(b, false, 1, e + p - 1); // 2^(p−1)·2^e
        for (v, s) in [(1u64, e - 2), (3, e - 3), (1, e - 1), (1, e - 3)] {
            xs.push(pow.clone());
            ys.push(int_exp(b, true, v, s));
        }
        // a power of two minus a full-width operand p + 1 binades lower
        let y = random_exp(b, &mut rng, e - p - 1);
        xs.push(pow.clone());
        ys.push(if y.is_sign_negative() { y } else { y.neg() });
        xs.push(pow.clone());
        ys.push(int_exp(b, true, 1, e - 2).mul_pow2(0));
    }
    (xs, ys)
}

/// Adversarial pairs for `×`: ties (an odd significand times 3·2^(p−2)), powers of two,
/// overflow and underflow, and every pair of special values.
pub fn mul_pairs(b: &Arc<Basis>, seed: u64) -> (Vec<MpFloat>, Vec<MpFloat>) {
    let p = b.precision() as i64;
    let mut rng = Rng::new(seed);
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    let sp = specials(b);
    for x in &sp {
        for y in &sp {
            xs.push(x.clone());
            ys.push(y.clone());
        }
    }
    let three = int_exp(b, false, 3, 0); // 3·2^(p−2) after normalisation
    for _ in 0..60 {
        let x = random(b, &mut rng, 5);
        xs.push(x.clone());
        ys.push(three.clone());
        xs.push(x.clone());
        ys.push(int_exp(b, true, 1, rng.int(-100, 100)));
        xs.push(x.clone());
        ys.push(x.clone());
        let big = random_exp(b, &mut rng, EMAX / 2 - p + 1);
        xs.push(big.clone());
        ys.push(big.clone());
        let small = random_exp(b, &mut rng, EMIN / 2 - p);
        xs.push(small.clone());
        ys.push(small.clone());
    }
    (xs, ys)
}

/// Adversarial pairs for `÷`: exact quotients, x/x, powers of two, overflow, specials.
pub fn div_pairs(b: &Arc<Basis>, seed: u64) -> (Vec<MpFloat>, Vec<MpFloat>) {
    let p = b.precision() as i64;
    let mut rng = Rng::new(seed);
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    let sp = specials(b);
    for x in &sp {
        for y in &sp {
            xs.push(x.clone());
            ys.push(y.clone());
        }
    }
    for _ in 0..40 {
        let x = random(b, &mut rng, 5);
        let y = random(b, &mut rng, 5);
        xs.push(x.clone());
        ys.push(x.clone());
        xs.push(x.clone());
        ys.push(int_exp(b, true, 1, rng.int(-50, 50)));
        xs.push(x.clone());
        ys.push(int_exp(b, false, 3, 0));
        let prod = x.mul(&int_exp(b, false, 5, 0)).expect("same basis");
        xs.push(prod);
        ys.push(int_exp(b, false, 5, 0));
        xs.push(random_exp(b, &mut rng, EMAX - p - 5));
        ys.push(y.mul_pow2(-1000));
        xs.push(random_exp(b, &mut rng, EMIN - p + 5));
        ys.push(y.mul_pow2(1000));
    }
    (xs, ys)
}

/// Adversarial inputs for `√`: perfect squares, powers of two (even and odd exponents),
/// negative numbers, specials.
pub fn sqrt_inputs(b: &Arc<Basis>, seed: u64) -> Vec<MpFloat> {
    let mut rng = Rng::new(seed);
    let mut v = specials(b);
    for k in -5..5 {
        v.push(int_exp(b, false, 1, k));
        v.push(int_exp(b, false, 9, k));
        v.push(int_exp(b, false, 2, 2 * k));
    }
    for _ in 0..40 {
        let x = random(b, &mut rng, 5).abs();
        let small = MpFloat::from_f64(b, (rng.next() >> 40) as f64 + 1.0);
        v.push(small.mul(&small).expect("same basis"));
        v.push(x.mul(&x).expect("same basis"));
        v.push(x.neg());
    }
    v
}

/// The positions where two arrays differ in any field, with a description of the first.
pub fn diff(got: &MpArray, want: &MpArray) -> (usize, Option<String>) {
    assert_eq!(got.len(), want.len(), "lengths");
    let n = want.basis().len();
    let mut count = 0;
    let mut first = None;
    for i in 0..want.len() {
        let same = got.class[i] == want.class[i]
            && got.sign[i] == want.sign[i]
            && got.exp[i] == want.exp[i]
            && got.digits[i * n..(i + 1) * n] == want.digits[i * n..(i + 1) * n]
            && [i, want.len() + i].iter().all(|&k| {
                got.eval[k].f.to_bits() == want.eval[k].f.to_bits()
                    && got.eval[k].e == want.eval[k].e
            });
        if !same {
            count += 1;
            if first.is_none() {
                first = Some(format!(
                    "element {i}: got class {} sign {} exp {} eval [{:?}, {:?}] digits[..3] {:?}; \
                     want class {} sign {} exp {} eval [{:?}, {:?}] digits[..3] {:?}",
                    got.class[i],
                    got.sign[i],
                    got.exp[i],
                    got.eval[i],
                    got.eval[got.len() + i],
                    &got.digits[i * n..i * n + 3.min(n)],
                    want.class[i],
                    want.sign[i],
                    want.exp[i],
                    want.eval[i],
                    want.eval[want.len() + i],
                    &want.digits[i * n..i * n + 3.min(n)],
                ));
            }
        }
    }
    (count, first)
}

/// Panics with the first difference unless the arrays are identical in every field.
pub fn assert_same(what: &str, got: &MpArray, want: &MpArray, inputs: impl Fn(usize) -> String) {
    let (count, first) = diff(got, want);
    if count > 0 {
        let first = first.unwrap_or_default();
        let idx: usize = first
            .trim_start_matches("element ")
            .split(':')
            .next()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        panic!(
            "{what}: {count} of {} elements differ; first: {first}\n  inputs: {}",
            want.len(),
            inputs(idx)
        );
    }
}

/// The correctly rounded `x / y`: the CPU's [`MpFloat::div`], except that operands with
/// exponents beyond `±EMAX/4` are first scaled to exponent 0 (exact) and the quotient scaled
/// back (exact, then the range rule). The CPU's Newton iteration overflows its intermediates
/// there and returns NaN for such finite operands, which is not the correctly rounded result.
pub fn div_ref(x: &MpFloat, y: &MpFloat) -> MpFloat {
    let r = x.div(y).expect("same basis");
    let plain = !(x.is_finite() && y.is_finite()) || x.is_zero() || y.is_zero();
    let (ex, ey) = (x.exponent(), y.exponent());
    if plain || (ex.abs() < EMAX / 4 && ey.abs() < EMAX / 4) {
        return r;
    }
    let q = x.mul_pow2(-ex).div(&y.mul_pow2(-ey)).expect("same basis");
    q.mul_pow2(ex - ey)
}

/// The correctly rounded `√x`: the CPU's [`MpFloat::sqrt`], except beyond `±EMAX/4` (see
/// [`div_ref`]), where `x` is scaled by an even power of two first.
pub fn sqrt_ref(x: &MpFloat) -> MpFloat {
    let r = x.sqrt().expect("sqrt");
    let ex = x.exponent();
    if !x.is_finite() || x.is_zero() || x.is_sign_negative() || ex.abs() < EMAX / 4 {
        return r;
    }
    let h = ex.div_euclid(2);
    x.mul_pow2(-2 * h).sqrt().expect("sqrt").mul_pow2(h)
}

/// A fused GEMV (`x = 1`, `α = 1`, `β = 0`) whose rows' exact sums sit on the rounding's
/// edges: `a` is `m × n` column-major (each row's terms, then zeros), `exact` each row's
/// correctly rounded sum.
pub struct FusedEdges {
    pub a: Vec<MpFloat>,
    pub m: usize,
    pub n: usize,
    pub exact: Vec<MpFloat>,
}

impl FusedEdges {
    /// Every `y[i]` is `exact[i]`, field by field.
    pub fn assert_exact(&self, y: &[MpFloat], what: &str) {
        for (i, (got, exact)) in y.iter().zip(&self.exact).enumerate() {
            assert!(
                got.identical(exact),
                "{what}, row {i}: {:?}, not {:?}",
                got.to_f64(),
                exact.to_f64()
            );
        }
    }
}

/// The rows of [`FusedEdges`] at `b`'s precision `p`: ties to even, down and up; a tie and a
/// plain round-up that carry into the next binade (`2 − 2^-p` → 2); the same negated; an exact
/// zero (`+0`); sums of fewer than `p` bits.
pub fn fused_rounding_edges(b: &Arc<Basis>) -> FusedEdges {
    let p = b.precision() as i64;
    let f = |v: f64| MpFloat::from_f64(b, v);
    let pow2 = |k: i64| f(1.0).mul_pow2(k);
    let one_ulp = &f(1.0) + &pow2(1 - p);
    let rows: Vec<(Vec<MpFloat>, MpFloat)> = vec![
        // 1 + 2^-p: a tie, to the even 1
        (vec![f(1.0), pow2(-p)], f(1.0)),
        // (1 + 2^(1-p)) + 2^-p: a tie, to the even 1 + 2^(2-p)
        (vec![one_ulp.clone(), pow2(-p)], &f(1.0) + &pow2(2 - p)),
        // 2 - 2^-p: a tie above the all-ones significand, to 2
        (vec![f(2.0), pow2(-p).neg()], f(2.0)),
        // 2 - 3·2^(-p-2): above half, up to 2
        (vec![f(2.0), pow2(-p - 1).neg(), pow2(-p - 2).neg()], f(2.0)),
        // the same four negated
        (vec![f(-1.0), pow2(-p).neg()], f(-1.0)),
        (
            vec![one_ulp.neg(), pow2(-p).neg()],
            (&f(1.0) + &pow2(2 - p)).neg(),
        ),
        (vec![f(-2.0), pow2(-p)], f(-2.0)),
        (vec![f(-2.0), pow2(-p - 1), pow2(-p - 2)], f(-2.0)),
        // an exact zero: +0
        (vec![f(1.0), f(-1.0)], f(0.0)),
        // fewer than p bits: 3 - 1, and the one bit left by cancellation
        (vec![f(3.0), f(-1.0)], f(2.0)),
        (vec![one_ulp.clone(), f(-1.0)], pow2(1 - p)),
        (vec![one_ulp.neg(), f(1.0)], pow2(1 - p).neg()),
    ];
    let (m, n) = (rows.len(), 3);
    let mut a = vec![f(0.0); m * n];
    for (i, (terms, _)) in rows.iter().enumerate() {
        for (j, t) in terms.iter().enumerate() {
            a[i + j * m] = t.clone();
        }
    }
    let exact = rows.into_iter().map(|(_, e)| e).collect();
    FusedEdges { a, m, n, exact }
}
