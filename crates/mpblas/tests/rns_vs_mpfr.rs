//! RNS MpFloat + − × fma against MPFR: at each precision, every result equals MPFR's correctly
//! rounded one (RNDN) at the basis precision p, and its relative error |δ| is below the unit
//! roundoff u = 2^-p < 4/√M (bound (6) of the papers), measured against a 2p+64-bit reference.
//! Random cases (≥ 2,000 per op and precision) plus adversarial ones.

mod oracle;

use mpblas::rns::{Basis, MpFloat};
use oracle::runner;
use proptest::prelude::*;
use rug::{Float, Integer};
use std::sync::Arc;

const PRECISIONS: [u32; 7] = [53, 106, 212, 424, 848, 1696, 3392];

fn splitmix(s: &mut u64) -> u64 {
    *s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A p-bit value from a seed: random bits, or structured patterns (long runs of ones or zeros)
/// that put results on and next to rounding boundaries; value in [2^(e-1), 2^e).
fn value(p: u32, seed: u64, e: i32, neg: bool) -> Float {
    let mut s = seed;
    let kind = splitmix(&mut s) % 4;
    let mut int = Integer::from(1) << (p - 1);
    match kind {
        0 | 1 => {
            let words = p.div_ceil(64);
            let mut r = Integer::new();
            for _ in 0..words {
                r = (r << 64) + splitmix(&mut s);
            }
            r.keep_bits_mut(p - 1);
            int += r;
        }
        2 => {
            // 1 0000…0 xxxx (a few random low bits)
            int += splitmix(&mut s) & 0xff;
        }
        _ => {
            // 1111…1 with a random low run cleared
            int = (Integer::from(1) << p) - 1;
            int -= splitmix(&mut s) % 4;
        }
    }
    let mut f = Float::with_val(p, int) << (e - p as i32);
    if neg {
        f = -f;
    }
    f
}

/// Relative error of `got` versus the exact `want`, in units of u = 2^-p: `(|δ|/u, |δ| < u)`,
/// the comparison done exactly (the f64 report rounds u/(1+u) up to 1).
fn delta_units(got: &Float, want: &Float, p: u32) -> (f64, bool) {
    if !want.is_finite() {
        return (
            0.0,
            got.is_nan() == want.is_nan() && got == want || got.is_nan() && want.is_nan(),
        );
    }
    if want.is_zero() {
        return if got.is_zero() {
            (0.0, true)
        } else {
            (f64::INFINITY, false)
        };
    }
    let prec = want.prec().max(got.prec()) + 64;
    let d = Float::with_val(prec, got - want).abs();
    let bound = Float::with_val(prec, want.clone().abs() >> p as i32);
    let below = d < bound;
    let rel = Float::with_val(64, &d / &bound);
    (rel.to_f64(), below)
}

struct Ctx {
    b: Arc<Basis>,
    p: u32,
}

impl Ctx {
    fn new(req: u32) -> Ctx {
        let b = Basis::new(req).unwrap();
        let p = b.precision();
        assert!(p >= req);
        Ctx { b, p }
    }
    fn mp(&self, f: &Float) -> MpFloat {
        let x = mpblas::rns::MpFloat::from_rug(&self.b, f);
        assert_eq!(&x.to_rug(), f, "round trip");
        x
    }
}

#[derive(Clone, Copy, Debug)]
enum OpKind {
    Add,
    Sub,
    Mul,
    Fma,
    Div,
    Sqrt,
}

/// Checks one operation: bitwise equal to MPFR RNDN at p, and |δ| < u against a wide reference.
fn check_op(ctx: &Ctx, op: OpKind, a: &Float, b: &Float, c: &Float) -> Result<f64, String> {
    let p = ctx.p;
    let (x, y, z) = (ctx.mp(a), ctx.mp(b), ctx.mp(c));
    let got = MpFloat::to_rug(
        &match op {
            OpKind::Add => x.add(&y),
            OpKind::Sub => x.sub(&y),
            OpKind::Mul => x.mul(&y),
            OpKind::Fma => x.fma(&y, &z),
            OpKind::Div => x.div(&y),
            OpKind::Sqrt => x.abs().sqrt(),
        }
        .map_err(|e| e.to_string())?,
    );
    // exact reference: sums need p + exponent gap bits, products 2p, fma 3p + gap.
    let gap = (a.get_exp().unwrap_or(0) - b.get_exp().unwrap_or(0)).unsigned_abs()
        + (a.get_exp().unwrap_or(0) + b.get_exp().unwrap_or(0) - c.get_exp().unwrap_or(0))
            .unsigned_abs();
    let wide = 3 * p + gap + 64;
    let (exact, rn) = match op {
        OpKind::Add => (Float::with_val(wide, a + b), Float::with_val(p, a + b)),
        OpKind::Sub => (Float::with_val(wide, a - b), Float::with_val(p, a - b)),
        OpKind::Mul => (Float::with_val(wide, a * b), Float::with_val(p, a * b)),
        OpKind::Fma => {
            let e = Float::with_val(wide, a.mul_add_ref(b, c));
            let r = Float::with_val(p, a.mul_add_ref(b, c));
            (e, r)
        }
        OpKind::Div => (Float::with_val(wide, a / b), Float::with_val(p, a / b)),
        OpKind::Sqrt => {
            let aa = Float::with_val(a.prec(), a.abs_ref());
            (
                Float::with_val(wide, aa.sqrt_ref()),
                Float::with_val(p, aa.sqrt_ref()),
            )
        }
    };
    if got != rn || got.is_sign_negative() != rn.is_sign_negative() {
        return Err(format!("{op:?}: got {got:e}, MPFR {rn:e}"));
    }
    let (d, below) = delta_units(&got, &exact, p);
    if !below {
        return Err(format!(
            "{op:?}: |δ|/u = {d} got={got:e} exact={exact:e} prec {} {}",
            got.prec(),
            exact.prec()
        ));
    }
    Ok(d)
}

fn random_cases(req: u32, op: OpKind, cases: u32, exp_span: i32) -> f64 {
    let ctx = Ctx::new(req);
    let worst = std::cell::Cell::new(0.0f64);
    let strat = (
        any::<u64>(),
        any::<u64>(),
        any::<u64>(),
        -exp_span..exp_span,
        -exp_span..exp_span,
        -exp_span..exp_span,
        any::<u8>(),
    );
    runner(cases)
        .run(&strat, |(sa, sb, sc, ea, eb, ec, signs)| {
            let p = ctx.p;
            let a = value(p, sa, ea, signs & 1 != 0);
            let mut b = value(p, sb, eb, signs & 2 != 0);
            if signs & 12 == 0 {
                // near-cancellation: b = −a·(1 + tiny) or b = −a + few ulps
                let k = (sb % 200) as i32;
                b = Float::with_val(p, (Float::with_val(p, &a) >> (p as i32 - k)) - &a);
            }
            let c = value(p, sc, ec, signs & 16 != 0);
            let d = check_op(&ctx, op, &a, &b, &c)
                .map_err(|e| TestCaseError::fail(format!("p={p} a={a:e} b={b:e} c={c:e}: {e}")))?;
            worst.set(worst.get().max(d));
            Ok(())
        })
        .unwrap();
    worst.get()
}

fn cases_for(req: u32) -> u32 {
    if req >= 1696 { 2000 } else { 2500 }
}

#[test]
fn add_sub_mul_fma_random_all_precisions() {
    for req in PRECISIONS {
        for op in [
            OpKind::Add,
            OpKind::Sub,
            OpKind::Mul,
            OpKind::Fma,
            OpKind::Div,
            OpKind::Sqrt,
        ] {
            let w = random_cases(req, op, cases_for(req), 80);
            println!("p≥{req:>4} {op:?}: max |δ|/u = {w:.4}");
        }
    }
}

#[test]
fn far_exponents_and_cancellation() {
    for req in [53u32, 424, 3392] {
        let ctx = Ctx::new(req);
        let p = ctx.p;
        let mut s = 7u64;
        for i in 0..200 {
            let a = value(p, splitmix(&mut s), 5000, i % 2 == 0);
            let b = value(p, splitmix(&mut s), -5000, i % 3 == 0);
            let c = value(p, splitmix(&mut s), 0, i % 5 == 0);
            for op in [
                OpKind::Add,
                OpKind::Sub,
                OpKind::Mul,
                OpKind::Fma,
                OpKind::Div,
            ] {
                check_op(&ctx, op, &a, &b, &c).unwrap();
                check_op(&ctx, op, &b, &a, &c).unwrap();
                check_op(&ctx, op, &c, &b, &a).unwrap();
            }
            // catastrophic cancellation: a − (a ± 1 ulp), a − a, fma(a, b, −ab rounded)
            let ulp = Float::with_val(p, &a) >> (p as i32 - 1);
            let a2 = Float::with_val(p, &a + &ulp);
            check_op(&ctx, OpKind::Sub, &a, &a2, &c).unwrap();
            let z = ctx.mp(&a).sub(&ctx.mp(&a)).unwrap();
            assert!(z.is_zero() && !z.is_sign_negative(), "x − x must be +0");
            let ab = Float::with_val(p, &a * &c);
            check_op(&ctx, OpKind::Fma, &a, &c, &(-ab)).unwrap();
        }
    }
}

#[test]
fn ties_round_to_even() {
    for req in [53u32, 212, 1696] {
        let ctx = Ctx::new(req);
        let p = ctx.p as i32;
        let one = Float::with_val(ctx.p, 1);
        let half_ulp = Float::with_val(ctx.p, 1) >> p; // 2^-p: exactly half an ulp of 1
        let odd = Float::with_val(ctx.p, 1) + (Float::with_val(ctx.p, 1) >> (p - 1));
        for (a, b) in [(&one, &half_ulp), (&odd, &half_ulp)] {
            for op in [OpKind::Add, OpKind::Sub] {
                check_op(&ctx, op, a, b, &one).unwrap();
            }
        }
        // products on a tie: (2^k + 1)² style significands
        for k in [p / 2, p / 2 + 1, p - 1] {
            let x = (Float::with_val(ctx.p, 1) << k) + 1u32;
            check_op(&ctx, OpKind::Mul, &x, &x, &one).unwrap();
            let y = (Float::with_val(ctx.p, 1) << k) - 1u32;
            check_op(&ctx, OpKind::Mul, &x, &y, &one).unwrap();
        }
    }
}

#[test]
fn special_values_and_range() {
    let b = Basis::new(106).unwrap();
    let f = |x: f64| MpFloat::from_f64(&b, x);
    let inf = MpFloat::infinity(&b, false);
    let nan = MpFloat::nan(&b);
    assert!(inf.sub(&inf).unwrap().is_nan());
    assert!(inf.mul(&f(0.0)).unwrap().is_nan());
    assert!(nan.add(&f(1.0)).unwrap().is_nan());
    assert!(f(1.0).add(&inf).unwrap().is_infinite());
    assert!(f(-0.0).add(&f(-0.0)).unwrap().is_sign_negative());
    assert!(!f(-0.0).add(&f(0.0)).unwrap().is_sign_negative());
    assert!(f(-2.0).mul(&f(0.0)).unwrap().is_sign_negative());
    assert_eq!(f(1.5).partial_cmp(&nan).unwrap(), None);
    // range: t = e + p ∈ [EMIN, EMAX]
    let big = f(1.5).mul_pow2(mpblas::rns::EMAX - 2);
    assert!(big.is_finite());
    let sq = big.mul(&big).unwrap();
    assert!(sq.is_infinite() && !sq.is_sign_negative());
    assert!(big.add(&big).unwrap().is_finite()); // 3·2^(EMAX−2) < 2^EMAX
    let tiny = f(-1.5).mul_pow2(mpblas::rns::EMIN + 2);
    let sq = tiny.mul(&tiny).unwrap();
    assert!(sq.is_zero() && !sq.is_sign_negative());
    let t3 = tiny.mul(&f(1.0 / 16.0)).unwrap();
    assert!(t3.is_zero() && t3.is_sign_negative());
    // different bases are an error, not a number (a second request for 106 bits is the same
    // basis, cached: another precision is another basis)
    assert!(
        f(1.0)
            .add(&MpFloat::from_f64(&Basis::new(106).unwrap(), 1.0))
            .is_ok()
    );
    let b2 = Basis::new(200).unwrap();
    assert!(f(1.0).add(&MpFloat::from_f64(&b2, 1.0)).is_err());
}

#[test]
fn f64_and_dd_round_trips() {
    let mut s = 99u64;
    for req in [24u32, 53, 106, 212] {
        let b = Basis::new(req).unwrap();
        for _ in 0..3000 {
            let x = f64::from_bits(splitmix(&mut s));
            if !x.is_finite() {
                continue;
            }
            let m = MpFloat::from_f64(&b, x);
            let want = Float::with_val(b.precision(), x).to_f64();
            assert_eq!(m.to_f64().to_bits(), want.to_bits(), "{x:e}");
            let y = f64::from_bits(splitmix(&mut s) >> 2) * 1e-300;
            let d = mpblas::Dd::add_f64_f64(x.min(1e300), y);
            let md = MpFloat::from_dd(&b, d);
            let exact = Float::with_val(2200, d.hi) + d.lo;
            assert_eq!(md.to_rug(), Float::with_val(b.precision(), &exact));
            if md.to_rug() == exact && d.hi.abs() > 1e-290 {
                let back = md.to_dd();
                assert_eq!((back.hi, back.lo), (d.hi, d.lo));
            }
        }
    }
}
