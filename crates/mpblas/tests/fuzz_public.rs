//! Fuzzing of the public API (issue 11, part 3): random and hostile arguments for the parsers
//! of every format, the arithmetic of `Dd` and `Qd`, the BLAS-style level-1 entries, the Ozaki
//! GEMMs' argument space, and RNS bases at random precisions. Each property says what must hold
//! besides "no panic" (proptest reports a panic as a failure, with the shrunk input).
//!
//! CI runs a bounded budget (256 cases per property, a few seconds). Long local runs:
//!
//! ```text
//! MPBLAS_FUZZ_CASES=200000 MPBLAS_FUZZ_SEED=7 cargo test --release -p mpblas --all-features --test fuzz_public
//! ```
//!
//! (a stable-Rust stand-in for `cargo fuzz`: same properties, a seed per run.)

use mpblas::blas::level1 as blas;
use mpblas::ozaki::{Ozaki1Params, Ozaki2Params, ozaki1_gemm_blas, ozaki2_gemm_blas};
use mpblas::rns::{Basis, MpFloat};
use mpblas::{Dd, Qd, Trans};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// The runner: `MPBLAS_FUZZ_CASES` cases (default 256), seeded by `MPBLAS_FUZZ_SEED`
/// (default 0: the same cases on every CI run).
fn runner() -> TestRunner {
    let env = |k: &str, d: u64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let config = Config {
        cases: env("MPBLAS_FUZZ_CASES", 256) as u32,
        failure_persistence: None,
        ..Config::default()
    };
    let mut seed = [0u8; 32];
    seed[..8].copy_from_slice(&env("MPBLAS_FUZZ_SEED", 0).to_le_bytes());
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed))
}

/// Any `f64`, with the specials, range ends and subnormals much more likely than uniform bits
/// would make them.
fn any_f64() -> impl Strategy<Value = f64> + Clone {
    prop_oneof![
        3 => any::<u64>().prop_map(f64::from_bits),
        2 => prop::sample::select(vec![
            0.0, -0.0, 1.0, -1.0, 0.5, f64::MAX, f64::MIN, f64::MIN_POSITIVE, 5e-324, -5e-324,
            f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e300, 1e-300, 2f64.powi(-53),
        ]),
        2 => -1e3f64..1e3,
        1 => (any::<i16>(), -1100i32..1100).prop_map(|(m, e)| f64::from(m) * 2f64.powi(e)),
    ]
}

/// Strings the number grammar accepts or nearly accepts, and plain junk.
fn number_text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[+-]?[0-9]{0,40}(\\.[0-9]{0,40})?([eE][+-]?[0-9]{1,22})?",
        1 => "[+-]?(inf|infinity|nan|INF|NaN|Infinity)",
        1 => "\\PC{0,20}",
        1 => "[ 0-9.eE+-]{0,30}",
    ]
}

/// Normalised `Dd`s: sums of two random `f64`s (the way users make them), and the specials.
fn any_dd() -> impl Strategy<Value = Dd> {
    (any_f64(), any_f64()).prop_map(|(a, b)| Dd::from(a) + Dd::from(b))
}

fn any_qd() -> impl Strategy<Value = Qd> {
    (any_dd(), any_dd()).prop_map(|(a, b)| Qd::from(a) + Qd::from(b))
}

#[test]
fn parsers_never_panic_and_round_trip() {
    runner()
        .run(&(number_text(), 24u32..600), |(s, p)| {
            // Normalised: `x + 0` keeps the words (not for ±0, where IEEE makes −0 + 0 = +0).
            if let Ok(x) = s.parse::<Dd>()
                && x.hi.is_finite()
                && x.hi != 0.0
            {
                prop_assert_eq!((x + Dd::ZERO).hi.to_bits(), x.hi.to_bits(), "{:?}", s);
                prop_assert_eq!((x + Dd::ZERO).lo.to_bits(), x.lo.to_bits(), "{:?}", s);
                for t in [format!("{x}"), format!("{x:e}")] {
                    let y: Dd = t
                        .parse()
                        .map_err(|e| TestCaseError::fail(format!("{t}: {e}")))?;
                    prop_assert!(
                        y.hi.to_bits() == x.hi.to_bits() && y.lo.to_bits() == x.lo.to_bits(),
                        "{:?} → {}",
                        s,
                        t
                    );
                }
            }
            if let Ok(x) = s.parse::<Qd>()
                && x.c[0].is_finite()
                && x.c[0] != 0.0
            {
                let z = x + Qd::ZERO;
                prop_assert!(
                    z.c.iter()
                        .zip(&x.c)
                        .all(|(a, b)| a.to_bits() == b.to_bits()),
                    "{:?}",
                    s
                );
                let t = format!("{x:e}");
                let y: Qd = t
                    .parse()
                    .map_err(|e| TestCaseError::fail(format!("{t}: {e}")))?;
                prop_assert!(
                    y.c.iter()
                        .zip(&x.c)
                        .all(|(a, b)| a.to_bits() == b.to_bits()),
                    "{:?} → {}",
                    s,
                    t
                );
            }
            let b = Basis::new(p).map_err(|e| TestCaseError::fail(format!("{e}")))?;
            if let Ok(x) = MpFloat::parse(&b, &s)
                && x.is_finite()
            {
                let t = x.to_string();
                let y =
                    MpFloat::parse(&b, &t).map_err(|e| TestCaseError::fail(format!("{t}: {e}")))?;
                prop_assert!(y.identical(&x), "{:?} at {} bits → {}", s, p, t);
            }
            // The f64 grammar is the formats' grammar, after trimming surrounding whitespace
            // (which the formats accept and `f64::from_str` does not).
            let f = s.trim().parse::<f64>().is_ok();
            prop_assert_eq!(f, s.parse::<Dd>().is_ok(), "{:?}", s);
            prop_assert_eq!(f, s.parse::<Qd>().is_ok(), "{:?}", s);
            prop_assert_eq!(f, MpFloat::parse(&b, &s).is_ok(), "{:?}", s);
            Ok(())
        })
        .unwrap();
}

/// The arithmetic follows IEEE on the leading words for what is NaN: a Dd or Qd `+ − × ÷` is NaN
/// exactly when the `f64` operation on the leading words is (no NaN from finite operands that
/// `f64` would not give, and NaN and `∞ − ∞` propagate).
#[test]
fn dd_and_qd_arithmetic_is_nan_exactly_when_f64_is() {
    runner()
        .run(&(any_dd(), any_dd()), |(a, b)| {
            let (x, y) = (a.hi, b.hi);
            for (r, f) in [
                (a + b, x + y),
                (a - b, x - y),
                (a * b, x * y),
                (a / b, x / y),
            ] {
                prop_assert_eq!(r.hi.is_nan(), f.is_nan(), "{:?} {:?} → {:?}", a, b, r);
            }
            let (qa, qb) = (Qd::from(a), Qd::from(b));
            for (r, f) in [
                (qa + qb, x + y),
                (qa - qb, x - y),
                (qa * qb, x * y),
                (qa / qb, x / y),
            ] {
                prop_assert_eq!(r.c[0].is_nan(), f.is_nan(), "{:?} {:?} → {:?}", a, b, r);
            }
            Ok(())
        })
        .unwrap();
    runner()
        .run(&(any_qd(), any_qd()), |(a, b)| {
            let _ = (
                a + b,
                a - b,
                a * b,
                a / b,
                a.sqrt(),
                a.exp(),
                a.ln(),
                a.sin(),
                a.powi(7),
            );
            Ok(())
        })
        .unwrap();
}

/// A BLAS vector argument is valid when the increment is non-zero (the crate refuses 0 even
/// for `n = 0`, as documented at `VecRef::from_blas`) and the slice holds `1 + (n − 1)·|inc|`
/// elements (none for `n = 0`; with no overflow).
fn blas_vec_ok(n: usize, len: usize, inc: isize) -> bool {
    inc != 0
        && (n == 0
            || (n - 1)
                .checked_mul(inc.unsigned_abs())
                .and_then(|s| s.checked_add(1))
                .is_some_and(|need| need <= len))
}

#[test]
fn level1_blas_entries_answer_every_argument() {
    let n = prop_oneof![4 => 0usize..12, 1 => Just(usize::MAX / 2), 1 => Just(usize::MAX)];
    let inc = prop_oneof![4 => -4isize..5, 1 => Just(isize::MIN), 1 => Just(isize::MAX)];
    let vals = prop::collection::vec(any_f64(), 0..30);
    runner()
        .run(
            &(n, inc.clone(), inc, vals.clone(), vals),
            |(n, incx, incy, x, y)| {
                let (okx, oky) = (blas_vec_ok(n, x.len(), incx), blas_vec_ok(n, y.len(), incy));
                prop_assert_eq!(blas::dot_blas(n, &x, incx, &y, incy).is_ok(), okx && oky);
                prop_assert_eq!(blas::asum_blas(n, &x, incx).is_ok(), okx);
                prop_assert_eq!(blas::nrm2_blas(n, &x, incx).is_ok(), okx);
                let mut z = y.clone();
                prop_assert_eq!(
                    blas::axpy_blas(n, &0.5, &x, incx, &mut z, incy).is_ok(),
                    okx && oky
                );
                let mut z = x.clone();
                prop_assert_eq!(blas::scal_blas(n, &2.0, &mut z, incx).is_ok(), okx);
                let _ = blas::iamax_blas(n, &x, incx);
                let xd: Vec<Dd> = x.iter().map(|&v| Dd::from(v)).collect();
                let yd: Vec<Dd> = y.iter().map(|&v| Dd::from(v)).collect();
                prop_assert_eq!(blas::dot_blas(n, &xd, incx, &yd, incy).is_ok(), okx && oky);
                Ok(())
            },
        )
        .unwrap();
}

/// The Ozaki GEMMs with BLAS arguments: `Err` exactly for invalid shapes (leading dimensions
/// below `max(1, rows)`, arrays too short), never a panic, on any values.
#[test]
fn ozaki_gemm_argument_space() {
    let dim = prop_oneof![6 => 0usize..5, 1 => Just(1usize << 40), 1 => Just(usize::MAX)];
    let ld = prop_oneof![6 => 0usize..7, 1 => Just(usize::MAX)];
    let trans = prop::sample::select(vec![Trans::No, Trans::Yes]);
    let vals = prop::collection::vec(any_f64(), 0..40);
    let args = (
        (trans.clone(), trans, dim.clone(), dim.clone(), dim),
        (ld.clone(), ld.clone(), ld),
        (vals.clone(), vals.clone(), vals),
        (any_f64(), any_f64()),
    );
    runner()
        .run(
            &args,
            |((ta, tb, m, n, k), (lda, ldb, ldc), (a, b, c), (alpha, beta))| {
                // Column-major storage of an r × c operand with leading dimension ld.
                let fits = |rows: usize, cols: usize, ld: usize, len: usize| {
                    ld >= rows.max(1)
                        && (rows == 0
                            || cols == 0
                            || (cols - 1)
                                .checked_mul(ld)
                                .and_then(|s| s.checked_add(rows))
                                .is_some_and(|need| need <= len))
                };
                let (ar, ac) = if ta == Trans::No { (m, k) } else { (k, m) };
                let (br, bc) = if tb == Trans::No { (k, n) } else { (n, k) };
                let valid = fits(ar, ac, lda, a.len())
                    && fits(br, bc, ldb, b.len())
                    && fits(m, n, ldc, c.len());
                let mut c1 = c.clone();
                let r1 = ozaki1_gemm_blas(
                    ta,
                    tb,
                    m,
                    n,
                    k,
                    alpha,
                    &a,
                    lda,
                    &b,
                    ldb,
                    beta,
                    &mut c1,
                    ldc,
                    &Ozaki1Params::default(),
                );
                let mut c2 = c.clone();
                let r2 = ozaki2_gemm_blas(
                    ta,
                    tb,
                    m,
                    n,
                    k,
                    alpha,
                    &a,
                    lda,
                    &b,
                    ldb,
                    beta,
                    &mut c2,
                    ldc,
                    &Ozaki2Params::default(),
                );
                // The BLAS-3 gemm (f64 and Dd, and the compensated Dd one on the same views):
                // Err exactly for invalid shapes.
                let mut c3 = c.clone();
                let r3 = mpblas::blas::level3::gemm_blas(
                    ta, tb, m, n, k, &alpha, &a, lda, &b, ldb, &beta, &mut c3, ldc,
                );
                prop_assert_eq!(r3.is_ok(), valid, "gemm {:?}", r3);
                let dd = |x: &[f64]| x.iter().map(|&v| Dd::from(v)).collect::<Vec<Dd>>();
                let (ad, bd, mut cd) = (dd(&a), dd(&b), dd(&c));
                let (al, be) = (Dd::from(alpha), Dd::from(beta));
                let r4 = mpblas::blas::level3::gemm_blas(
                    ta, tb, m, n, k, &al, &ad, lda, &bd, ldb, &be, &mut cd, ldc,
                );
                prop_assert_eq!(r4.is_ok(), valid, "dd gemm {:?}", r4);
                if valid {
                    let mut cd = dd(&c);
                    let r5 = mpblas::blas::gemm_dd_compensated(
                        &al,
                        mpblas::view::MatRef::from_blas(("a", "lda"), ta, m, k, &ad, lda).unwrap(),
                        mpblas::view::MatRef::from_blas(("b", "ldb"), tb, k, n, &bd, ldb).unwrap(),
                        &be,
                        mpblas::view::MatMut::from_blas(("c", "ldc"), m, n, &mut cd, ldc).unwrap(),
                    );
                    prop_assert!(r5.is_ok(), "compensated {:?}", r5);
                }
                // Valid shapes may still be refused (k beyond what the method carries); invalid
                // ones always are.
                prop_assert!(valid || r1.is_err(), "scheme I accepted invalid arguments");
                prop_assert!(valid || r2.is_err(), "scheme II accepted invalid arguments");
                if valid && m.max(n).max(k) <= 8 {
                    prop_assert!(r1.is_ok() && r2.is_ok(), "{:?} {:?}", r1, r2);
                }
                Ok(())
            },
        )
        .unwrap();
}

/// The BLAS level-2 entries (`gemv_blas`, `ger_blas`): `Err` exactly for invalid arguments
/// (leading dimension below `max(1, m)`, short arrays, zero increments), on any values.
#[test]
fn level2_blas_entries_answer_every_argument() {
    use mpblas::blas::level2::{gemv_blas, ger_blas};
    let dim = prop_oneof![6 => 0usize..5, 1 => Just(1usize << 40), 1 => Just(usize::MAX)];
    let ld = prop_oneof![6 => 0usize..7, 1 => Just(usize::MAX)];
    let inc = prop_oneof![4 => -3isize..4, 1 => Just(isize::MIN)];
    let trans = prop::sample::select(vec![Trans::No, Trans::Yes]);
    let vals = prop::collection::vec(any_f64(), 0..30);
    let args = (
        (trans, dim.clone(), dim, ld),
        (inc.clone(), inc),
        (vals.clone(), vals.clone(), vals),
    );
    runner()
        .run(&args, |((t, m, n, lda), (incx, incy), (a, x, y))| {
            let mat_ok = lda >= m.max(1)
                && (m == 0
                    || n == 0
                    || (n - 1)
                        .checked_mul(lda)
                        .and_then(|s| s.checked_add(m))
                        .is_some_and(|need| need <= a.len()));
            let (lx, ly) = if t == Trans::No { (n, m) } else { (m, n) };
            let ok = mat_ok && blas_vec_ok(lx, x.len(), incx) && blas_vec_ok(ly, y.len(), incy);
            let mut yy = y.clone();
            let r = gemv_blas(t, m, n, &1.5, &a, lda, &x, incx, &0.5, &mut yy, incy);
            prop_assert_eq!(r.is_ok(), ok, "gemv {:?}", r);
            let ok = mat_ok && blas_vec_ok(m, x.len(), incx) && blas_vec_ok(n, y.len(), incy);
            let mut aa = a.clone();
            let r = ger_blas(m, n, &1.5, &x, incx, &y, incy, &mut aa, lda);
            prop_assert_eq!(r.is_ok(), ok, "ger {:?}", r);
            Ok(())
        })
        .unwrap();
}

/// RNS bases at any requested precision: `Ok` exactly in the documented range, and the
/// arithmetic and conversions of the numbers built on them never panic.
#[test]
fn rns_at_random_precisions() {
    let p = prop_oneof![4 => 0u32..3000, 1 => 3000u32..40000, 1 => Just(u32::MAX)];
    runner()
        .run(&(p, any_f64(), any_f64()), |(p, x, y)| {
            let ok = (mpblas::rns::MIN_PRECISION..=mpblas::rns::MAX_PRECISION).contains(&p);
            let b = Basis::new(p);
            prop_assert_eq!(b.is_ok(), ok, "{}", p);
            if let Ok(b) = b
                && p <= 3000
            {
                let (u, v) = (MpFloat::from_f64(&b, x), MpFloat::from_f64(&b, y));
                let _ = (
                    u.add(&v),
                    u.sub(&v),
                    u.mul(&v),
                    u.div(&v),
                    u.sqrt(),
                    u.fma(&v, &u),
                );
                let _ = (u.to_f64(), u.to_string(), format!("{u:e}"));
                if x.is_finite() && p >= 53 {
                    prop_assert_eq!(u.to_f64().to_bits(), x.to_bits(), "{} at {} bits", x, p);
                }
            }
            Ok(())
        })
        .unwrap();
}

/// The fused RNS routines on any values (NaN, infinities, subnormals, the ends of the range)
/// at random precisions: never a panic, and `dot_fused` is `gemv_fused` of one row, bit for
/// bit, with a bound exactly when the result is finite.
#[test]
fn rns_fused_routines_take_any_values() {
    use mpblas::blas::rns::{dot_fused_bounded, gemv_fused_bounded};
    use mpblas::view::{MatRef, VecMut, VecRef};
    let case = (
        24u32..700,
        proptest::collection::vec((any_f64(), any_f64()), 0..40),
    );
    runner()
        .run(&case, |(p, pairs)| {
            let b = Basis::new(p).expect("precision in range");
            let x: Vec<MpFloat> = pairs
                .iter()
                .map(|&(v, _)| MpFloat::from_f64(&b, v))
                .collect();
            let y: Vec<MpFloat> = pairs
                .iter()
                .map(|&(_, v)| MpFloat::from_f64(&b, v))
                .collect();
            let (d, bound) =
                dot_fused_bounded(VecRef::contiguous(&x), VecRef::contiguous(&y)).expect("dot");
            prop_assert_eq!(bound.is_some(), d.is_finite());
            if !x.is_empty() {
                let mut out = vec![MpFloat::from_f64(&b, 0.0)];
                let one = MpFloat::from_f64(&b, 1.0);
                let zero = MpFloat::from_f64(&b, 0.0);
                let bounds = gemv_fused_bounded(
                    &one,
                    MatRef::col_major(&x, 1, x.len(), 1).expect("view"),
                    VecRef::contiguous(&y),
                    &zero,
                    VecMut::contiguous(&mut out),
                )
                .expect("gemv");
                prop_assert!(out[0].identical(&d), "{:?} vs {:?}", out[0], d);
                prop_assert_eq!(
                    bounds[0].map(|e| (e.f.to_bits(), e.e)),
                    bound.map(|e| (e.f.to_bits(), e.e))
                );
            }
            Ok(())
        })
        .unwrap();
}

/// The LU routines on any small matrix (NaN, ±∞, huge, tiny, zeros): never a panic; `gesv`
/// either solves or reports `Singular`, and `getrf`'s pivots are always valid for `getrs`.
#[test]
fn lapack_routines_take_any_values() {
    use mpblas::lapack::{
        Norm, RefineParams, gecon, gesv, gesv_refined, getrf, getrs, lange, solve_bounds,
    };
    use mpblas::view::{MatMut, MatRef};
    let vals = prop::collection::vec(any_f64(), 0..20);
    runner()
        .run(&(0usize..4, vals.clone(), vals), |(n, a, b)| {
            let need = n * n;
            if a.len() < need || b.len() < n {
                return Ok(());
            }
            let mut lu = a[..need].to_vec();
            let mut ipiv = vec![0usize; n];
            let info = getrf(
                MatMut::col_major(&mut lu, n, n, n.max(1)).unwrap(),
                &mut ipiv,
            );
            prop_assert!(info.is_ok());
            prop_assert!(
                ipiv.iter()
                    .enumerate()
                    .all(|(j, &p)| p >= j && p < n.max(1))
            );
            let mut x = b[..n].to_vec();
            let r = getrs(
                Trans::Yes,
                MatRef::col_major(&lu, n, n, n.max(1)).unwrap(),
                &ipiv,
                MatMut::col_major(&mut x, n, 1, n.max(1)).unwrap(),
            );
            prop_assert!(r.is_ok(), "{:?}", r);
            // The condition estimate refuses non-finite factors or norms (an error, never a
            // panic); the error bounds take anything.
            let luv = MatRef::col_major(&lu, n, n, n.max(1)).unwrap();
            let av = MatRef::col_major(&a[..need], n, n, n.max(1)).unwrap();
            for norm in [Norm::One, Norm::Inf] {
                let r = gecon(norm, luv, &ipiv, lange(norm, av));
                prop_assert!(
                    matches!(r, Ok(v) if (0.0..=1.0).contains(&v) || n == 0)
                        || matches!(r, Err(mpblas::Error::InvalidNumber { .. })),
                    "{:?}",
                    r
                );
            }
            let r = solve_bounds(
                av,
                luv,
                &ipiv,
                MatRef::col_major(&b[..n], n, 1, n.max(1)).unwrap(),
                MatRef::col_major(&x, n, 1, n.max(1)).unwrap(),
            );
            prop_assert!(r.is_ok(), "{:?}", r);
            let ad: Vec<Dd> = a[..need].iter().map(|&v| Dd::from(v)).collect();
            let bd: Vec<Dd> = b[..n].iter().map(|&v| Dd::from(v)).collect();
            let (mut a2, mut x2) = (ad.clone(), bd.clone());
            let r = gesv(
                MatMut::col_major(&mut a2, n, n, n.max(1)).unwrap(),
                &mut ipiv,
                MatMut::col_major(&mut x2, n, 1, n.max(1)).unwrap(),
            );
            prop_assert!(
                r.is_ok() || matches!(r, Err(mpblas::Error::Singular { .. })),
                "{:?}",
                r
            );
            let mut x3 = bd.clone();
            let r = gesv_refined(
                MatRef::col_major(&ad, n, n, n.max(1)).unwrap(),
                MatRef::col_major(&bd, n, 1, n.max(1)).unwrap(),
                MatMut::col_major(&mut x3, n, 1, n.max(1)).unwrap(),
                &RefineParams::default(),
            );
            prop_assert!(
                r.is_ok() || matches!(r, Err(mpblas::Error::Singular { .. })),
                "{:?}",
                r
            );
            Ok(())
        })
        .unwrap();
}
