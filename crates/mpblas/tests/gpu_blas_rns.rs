//! GPU equals CPU for BLAS level 2 in RNS: `mpblas::blas::gpu::rns::{gemv, gemv_bounded, ger}`
//! return, field by field (class, sign, exponent, residues, evaluation bounds), the CPU's
//! [`level2`](mpblas::blas::level2) results on [`MpFloat`], and `gemv_bounded` the CPU's bounds
//! bit for bit: at 106, 424, 1696 and 3393 bits (219 moduli), no-transpose and transpose, shapes around the lane
//! (256) and chunk (4096) boundaries and one that needs a second pass, leading dimensions above
//! `m`, increments ±, random full-precision values spread over a wide exponent range with
//! cancelling partners in every row, special values (±0, ±∞, NaN, the ends of the exponent
//! range) and the special scalars (`α = 0`, `β = 0`, `β = 1`). Also the argument errors.
//!
//! Every test needs a GPU and is `#[ignore]`d; run them on the GPU machine with
//! `scripts/gpu-check.sh`. Without a GPU, a forced run fails (it never passes vacuously).
#![cfg(feature = "cuda")]

mod rns_common;

use mpblas::blas::gpu::rns;
use mpblas::blas::level2;
use mpblas::cuda::Device;
use mpblas::rns::gpu::DeviceMpArray;
use mpblas::rns::{Basis, MpArray, MpFloat};
use mpblas::view::{MatRef, VecMut, VecRef};
use mpblas::{Error, Trans};
use rns_common::*;
use std::sync::Arc;

fn device() -> Device {
    match Device::open(0) {
        Ok(d) => {
            eprintln!("{}", d.info());
            d
        }
        Err(e) => panic!("these tests need a CUDA GPU, and none is usable: {e}"),
    }
}

/// `len` random values: full significands, exponents spread by `spread` around 1, every fourth
/// the negated predecessor nudged in its last bits (cancellation inside every row and column),
/// and, with `specials`, a special value every 97 elements.
fn data(b: &Arc<Basis>, rng: &mut Rng, len: usize, spread: i64, specials: bool) -> Vec<MpFloat> {
    let sp = rns_common::specials(b);
    let mut v: Vec<MpFloat> = Vec::with_capacity(len);
    for k in 0..len {
        let x = if specials && k % 97 == 41 {
            sp[(k / 97) % sp.len()].clone()
        } else if k % 4 == 3 && v[k - 1].is_finite() && !v[k - 1].is_zero() {
            near(b, rng, &v[k - 1].neg(), 20)
        } else {
            random(b, rng, spread)
        };
        v.push(x);
    }
    v
}

fn upload(dev: &Device, b: &Arc<Basis>, v: &[MpFloat]) -> DeviceMpArray {
    DeviceMpArray::upload(dev, &MpArray::from_mpfloats(b, v).expect("basis")).expect("upload")
}

/// The CPU's and the GPU's returned bounds, bit for bit (`None` where the result is not finite).
fn assert_same_bounds(
    what: &str,
    cpu: &[Option<mpblas::rns::ExtF>],
    gpu: &[Option<mpblas::rns::ExtF>],
) {
    let key = |v: &[Option<mpblas::rns::ExtF>]| -> Vec<Option<(u64, i64)>> {
        v.iter().map(|o| o.map(|e| (e.f.to_bits(), e.e))).collect()
    };
    assert!(
        key(cpu) == key(gpu),
        "{what}: bounds differ\n cpu {cpu:?}\n gpu {gpu:?}"
    );
}

fn storage_len(n: usize, inc: isize) -> usize {
    if n == 0 {
        1
    } else {
        1 + (n - 1) * inc.unsigned_abs()
    }
}

struct Case {
    trans: Trans,
    m: usize,
    n: usize,
    lda: usize,
    incx: isize,
    incy: isize,
}

/// One gemv case against the CPU, values and bounds, for the scalar pairs given.
fn gemv_case(dev: &Device, b: &Arc<Basis>, rng: &mut Rng, c: &Case, specials: bool) {
    let (lx, ly) = match c.trans {
        Trans::No => (c.n, c.m),
        Trans::Yes => (c.m, c.n),
    };
    let a = data(
        b,
        rng,
        c.lda * c.n.max(1),
        3 * b.precision() as i64,
        specials,
    );
    let x = data(b, rng, storage_len(lx, c.incx), 40, specials);
    let y = data(b, rng, storage_len(ly, c.incy), 40, false);
    let r = random(b, rng, 4);
    let one = MpFloat::from_f64(b, 1.0);
    let zero = MpFloat::zero(b, false);
    let scalars = [
        (r.clone(), random(b, rng, 4)),
        (one.clone(), zero.clone()),
        (r.clone(), one.clone()),
        (zero.clone(), r.clone()),
        (zero.clone(), zero.clone()),
        (zero.clone(), one.clone()),
    ];
    let da = upload(dev, b, &a);
    let dx = upload(dev, b, &x);
    for (alpha, beta) in &scalars {
        let what = format!(
            "{}-bit gemv {:?} m={} n={} lda={} incx={} incy={} alpha={:?} beta={:?}",
            b.precision(),
            c.trans,
            c.m,
            c.n,
            c.lda,
            c.incx,
            c.incy,
            alpha.to_f64(),
            beta.to_f64()
        );
        let mut want = y.clone();
        level2::gemv_blas(
            c.trans, c.m, c.n, alpha, &a, c.lda, &x, c.incx, beta, &mut want, c.incy,
        )
        .expect("cpu gemv");
        let mut dy = upload(dev, b, &y);
        rns::gemv(
            dev, c.trans, c.m, c.n, alpha, &da, c.lda, &dx, c.incx, beta, &mut dy, c.incy,
        )
        .expect("gpu gemv");
        let got = dy.download().expect("download");
        let want_arr = MpArray::from_mpfloats(b, &want).expect("basis");
        assert_same(&what, &got, &want_arr, |i| format!("y[{i}]"));

        // the bounds: the CPU's, bit for bit
        let ma = MatRef::from_blas(("a", "lda"), Trans::No, c.m, c.n, &a, c.lda).expect("a");
        let ma = if c.trans == Trans::Yes { ma.t() } else { ma };
        let vx = VecRef::from_blas("x", lx, &x, c.incx).expect("x");
        let mut want_b = y.clone();
        let vy = VecMut::from_blas("y", ly, &mut want_b, c.incy).expect("y");
        let cpu_bounds = level2::gemv_bounded(alpha, ma, vx, beta, vy).expect("cpu bounded");
        let mut dy = upload(dev, b, &y);
        let gpu_bounds = rns::gemv_bounded(
            dev, c.trans, c.m, c.n, alpha, &da, c.lda, &dx, c.incx, beta, &mut dy, c.incy,
        )
        .expect("gpu bounded");
        let same = cpu_bounds.len() == gpu_bounds.len()
            && cpu_bounds
                .iter()
                .zip(&gpu_bounds)
                .all(|(p, q)| p.to_bits() == q.to_bits());
        assert!(
            same,
            "{what}: bounds differ\n cpu {cpu_bounds:?}\n gpu {gpu_bounds:?}"
        );
        let got = dy.download().expect("download");
        assert_same(&format!("{what} (bounded)"), &got, &want_arr, |i| {
            format!("y[{i}]")
        });
    }
}

/// `gemv_fused_bounded` for case `c` on the CPU (host `a`, `x`, `y`) and the GPU (`da`, `dx`
/// their device copies, `y` uploaded): asserts the GPU's values field by field and its bounds bit
/// for bit against the CPU's, and returns the CPU's `y`.
#[allow(clippy::too_many_arguments)]
fn assert_fused_bounded_same(
    what: &str,
    dev: &Device,
    b: &Arc<Basis>,
    c: &Case,
    alpha: &MpFloat,
    (a, da): (&[MpFloat], &DeviceMpArray),
    (x, dx): (&[MpFloat], &DeviceMpArray),
    beta: &MpFloat,
    y: &[MpFloat],
) -> Vec<MpFloat> {
    let (lx, ly) = match c.trans {
        Trans::No => (c.n, c.m),
        Trans::Yes => (c.m, c.n),
    };
    let ma = MatRef::from_blas(("a", "lda"), Trans::No, c.m, c.n, a, c.lda).expect("a");
    let ma = if c.trans == Trans::Yes { ma.t() } else { ma };
    let vx = VecRef::from_blas("x", lx, x, c.incx).expect("x");
    let mut want = y.to_vec();
    let vy = VecMut::from_blas("y", ly, &mut want, c.incy).expect("y");
    let cpu_bounds =
        mpblas::blas::rns::gemv_fused_bounded(alpha, ma, vx, beta, vy).expect("cpu fused");
    let mut dy = upload(dev, b, y);
    let gpu_bounds = rns::gemv_fused_bounded(
        dev, c.trans, c.m, c.n, alpha, da, c.lda, dx, c.incx, beta, &mut dy, c.incy,
    )
    .expect("gpu fused bounded");
    assert_same_bounds(what, &cpu_bounds, &gpu_bounds);
    let want_arr = MpArray::from_mpfloats(b, &want).expect("basis");
    assert_same(
        &format!("{what} (bounded)"),
        &dy.download().expect("download"),
        &want_arr,
        |i| format!("y[{i}]"),
    );
    want
}

/// One fused-gemv case against the CPU's `blas::rns::gemv_fused_bounded`: values field by
/// field and bounds bit for bit, for the same scalar pairs as `gemv_case`.
fn fused_case(dev: &Device, b: &Arc<Basis>, rng: &mut Rng, c: &Case, specials: bool, spread: i64) {
    let (lx, ly) = match c.trans {
        Trans::No => (c.n, c.m),
        Trans::Yes => (c.m, c.n),
    };
    let a = data(b, rng, c.lda * c.n.max(1), spread, specials);
    let mut x = data(b, rng, storage_len(lx, c.incx), 40, specials);
    for (k, v) in x.iter_mut().enumerate() {
        if k % 3 == 1 && v.is_finite() {
            *v = exact_product_partner(b, rng, k / 3);
        }
    }
    let y = data(b, rng, storage_len(ly, c.incy), 40, false);
    let r = random(b, rng, 4);
    let one = MpFloat::from_f64(b, 1.0);
    let zero = MpFloat::zero(b, false);
    // α = ±2^k takes the prep's scaling path (d_j = x_j·2^k, no rounding), at the ends of the
    // exponent range too (α = 2^(2^60 − 1) and 2^(−2^60): the d_j of the larger x_j overflow to
    // ±Inf, of the smaller ones underflow to ±0)
    let pow2 = |k: i64| one.mul_pow2(k);
    let scalars = [
        (r.clone(), random(b, rng, 4)),
        (one.clone(), zero.clone()),
        (r.clone(), one.clone()),
        (zero.clone(), r.clone()),
        (zero.clone(), one.clone()),
        (pow2(37).neg(), r.clone()),
        (pow2((1 << 60) - 1), zero.clone()),
        (pow2(-(1 << 60)).neg(), r.clone()),
        // α = ±m·2^e with m odd of at most 53 bits: the prep's exact-product path for the x_j
        // above (fused_exact_product_warp)
        (MpFloat::from_f64(b, 1.5), r.clone()),
        (MpFloat::from_f64(b, -0.1), zero.clone()),
        (MpFloat::from_f64(b, 0.0875), one.clone()),
        // short odd parts beyond the double range: the same path; near the top of the range
        // the larger products overflow to ±Inf there (its range rule)
        (MpFloat::from_f64(b, 1.5).mul_pow2(3000), r.clone()),
        (MpFloat::from_f64(b, -0.1).mul_pow2(-5000), zero.clone()),
        (
            MpFloat::from_f64(b, 1.5).mul_pow2((1 << 60) - 4),
            zero.clone(),
        ),
    ];
    let da = upload(dev, b, &a);
    let dx = upload(dev, b, &x);
    for (alpha, beta) in &scalars {
        let what = format!(
            "{}-bit gemv_fused {:?} m={} n={} lda={} incx={} incy={} spread={spread} alpha={:?} beta={:?}",
            b.precision(),
            c.trans,
            c.m,
            c.n,
            c.lda,
            c.incx,
            c.incy,
            alpha.to_f64(),
            beta.to_f64()
        );
        // the bounded call first (it asserts the values and bounds), then the plain one
        let want =
            assert_fused_bounded_same(&what, dev, b, c, alpha, (&a, &da), (&x, &dx), beta, &y);
        let want_arr = MpArray::from_mpfloats(b, &want).expect("basis");
        let mut dy = upload(dev, b, &y);
        rns::gemv_fused(
            dev, c.trans, c.m, c.n, alpha, &da, c.lda, &dx, c.incx, beta, &mut dy, c.incy,
        )
        .expect("gpu fused");
        assert_same(&what, &dy.download().expect("download"), &want_arr, |i| {
            format!("y[{i}]")
        });
    }
}

/// An x_j for the prep's exact-product path (α = `±m 2^e`, `m` odd of `t <= 53` bits; `α·x_j`
/// exact in `p` bits when `x_j`'s significand is a multiple of `2^t`), by `kind`:
/// - a random double (the path);
/// - a double whose significand times 1.5's or 0.1's lies at a relative 0, 2^-52, 2^-45, 2^-39,
///   2^-36, 2^-33 or 2^-30 (either side) from the product's binade edge (the path's exact bit
///   length, or its fallback where x_j's evaluation cannot tell the side);
/// - a `p`-bit significand with exactly one trailing zero (a multiple of `2^(t-1)` but not of
///   `2^t` for α = 1.5: the fallback);
/// - a `p`-bit significand whose low 53 bits are zero (the path for every double α).
fn exact_product_partner(b: &Arc<Basis>, rng: &mut Rng, kind: usize) -> MpFloat {
    let neg = rng.next() & 1 == 1;
    let sign = if neg { -1.0 } else { 1.0 };
    let scale = 2f64.powi(rng.int(-40, 40) as i32);
    let edge = [0, -52, -45, -39, -36, -33, -30][rng.int(0, 6) as usize];
    let delta = if edge == 0 {
        0.0
    } else {
        sign * 2f64.powi(edge)
    };
    match kind % 5 {
        0 => {
            let u = (rng.next() >> 11) as f64 * 2f64.powi(-53);
            MpFloat::from_f64(b, sign * scale * (0.5 + u))
        }
        // 1.5 · 4/3 = 2 and 1.6 · 1.25 = 2 (0.1 = 1.6 · 2^-4): the edge of the product's binade
        1 => MpFloat::from_f64(b, sign * scale * (4.0 / 3.0) * (1.0 + delta)),
        2 => MpFloat::from_f64(b, sign * scale * 1.25 * (1.0 + delta)),
        k => {
            let p = b.precision() as u64;
            let mut limbs = random_limbs(rng, p);
            // kind 3: exactly one trailing zero; kind 4: the low 53 bits zero, a significand
            // far longer than a double's that still takes the path for every double α
            limbs[0] = if k == 3 {
                (limbs[0] & !3) | 2
            } else {
                limbs[0] & !((1 << 53) - 1)
            };
            let e = -(p as i64);
            MpFloat::from_limbs(b, neg, &limbs, rng.int(e - 40, e + 40))
        }
    }
}

/// The fused gemv at `bits`: the shapes of `gemv_at`, narrow and wide exponent spreads (one
/// level of wide basis, or the widest, with dropped terms), and a 1000 x 1000 launch.
fn fused_at(dev: &Device, bits: u32, big: bool) {
    let b = Basis::new(bits).expect("basis");
    let mut rng = Rng::new(900 + bits as u64);
    let case = |trans, m, n, lda, incx, incy| Case {
        trans,
        m,
        n,
        lda,
        incx,
        incy,
    };
    let mut cases = vec![
        case(Trans::No, 1, 1, 1, 1, 1),
        case(Trans::No, 37, 300, 40, 1, 1),
        case(Trans::Yes, 300, 37, 301, -2, 3),
        case(Trans::No, 5, 257, 5, 3, -1),
        case(Trans::Yes, 4097, 3, 4100, 1, -2),
        case(Trans::No, 0, 5, 1, 1, 1),
        // Aᵀx with enough rows for the warp's groups to take rows (from g = 4 with 7 slots)
        case(Trans::Yes, 160, 130, 161, 1, 2),
    ];
    if big {
        cases.push(case(Trans::No, 1000, 1000, 1000, 1, 1));
        cases.push(case(Trans::Yes, 1000, 1000, 1000, 1, 1));
    }
    for (k, c) in cases.iter().enumerate() {
        for spread in [20, 3 * bits as i64] {
            fused_case(dev, &b, &mut rng, c, k % 2 == 1, spread);
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn rns_gemv_fused_equals_the_cpu_106() {
    fused_at(&device(), 106, true);
}

/// The prep's exact products (`fused_exact_product_warp`: α's odd part of at most 53 bits,
/// x_j's significand a multiple of `2^bits`) at 106 and 848 bits, both transposes, in small
/// calls: also the short case for the sanitizers.
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn rns_gemv_fused_exact_products_equal_the_cpu() {
    let dev = device();
    for bits in [106, 848] {
        let b = Basis::new(bits).expect("basis");
        let mut rng = Rng::new(700 + bits as u64);
        for (trans, m, n, lda, incx, incy) in [
            (Trans::No, 37, 60, 40, 1, 1),
            (Trans::Yes, 60, 37, 61, -2, 3),
        ] {
            let c = Case {
                trans,
                m,
                n,
                lda,
                incx,
                incy,
            };
            fused_case(&dev, &b, &mut rng, &c, false, 20);
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn rns_gemv_fused_equals_the_cpu_212_424_and_1696() {
    // the sums' groups (8 base moduli a lane): 2 lanes a term at 212 bits (14 base moduli), 4
    // at 424 (28), 16 at 1696 (110); the wide spreads take the path of a term below its row's
    // bucket
    fused_at(&device(), 212, false);
    fused_at(&device(), 424, false);
    fused_at(&device(), 1696, false);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn rns_gemv_fused_equals_the_cpu_in_every_sums_kernel() {
    // the sums kernels in the forms 106-1696 bits do not take: 7 slots a lane whose loads or
    // copies compare each slot with nb (4, 10, 20, 42, 91 base moduli) and 8 slots (8, 15, 30,
    // 59, 117); the launcher's test each_sums_kernel_has_a_precision_that_takes_it names them
    for bits in [53, 120, 150, 230, 300, 460, 640, 900, 1400, 1800] {
        fused_at(&device(), bits, false);
    }
}

/// Terms kept below their row's bucket (20 binades or more below its largest, inside its window),
/// which the sums leave to the finish: row i of op(A) holds i mod 9 of them, 25 to 64 binades
/// down. A row where no lane's unit of the sums met more than two, with at most 8 in all, takes
/// the finish's list (at N and g = 1 a lane's unit is a row's 300 columns: rows with 1 or 2); the
/// others take its scan of the row. At 106, 212, 424
/// and 848 bits (the sums' g = 1, 2, 4 and 8), both transposes, α = 1.5 and 1, β = 0 and random:
/// the CPU's bits and bounds.
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn rns_gemv_fused_terms_below_the_bucket_equal_the_cpu() {
    let dev = device();
    for bits in [106, 212, 424, 848] {
        let b = Basis::new(bits).expect("basis");
        let mut rng = Rng::new(1300 + bits as u64);
        let p = b.precision() as i64;
        for trans in [Trans::No, Trans::Yes] {
            // op(A) is ly x lx; A itself m x n, column-major, lda = m
            let (ly, lx) = (40usize, 300usize);
            let (m, n) = match trans {
                Trans::No => (ly, lx),
                Trans::Yes => (lx, ly),
            };
            let mut a: Vec<MpFloat> = (0..m * n).map(|_| random(&b, &mut rng, 2)).collect();
            for i in 0..ly {
                let count = i % 9;
                for k in 0..count {
                    // spaced columns, and in row 7 two adjacent ones
                    let j = if i == 7 && k == 1 {
                        8
                    } else {
                        (i * 13 + k * 37 + 7) % lx
                    };
                    let down = 25 + ((i * 7 + k * 11) % 40) as i64;
                    let (r, c) = match trans {
                        Trans::No => (i, j),
                        Trans::Yes => (j, i),
                    };
                    a[r + c * m] = random_exp(&b, &mut rng, -p - down);
                }
            }
            let x: Vec<MpFloat> = (0..lx).map(|_| random(&b, &mut rng, 1)).collect();
            let y: Vec<MpFloat> = (0..ly).map(|_| random(&b, &mut rng, 1)).collect();
            let (da, dx) = (upload(&dev, &b, &a), upload(&dev, &b, &x));
            let f = |v: f64| MpFloat::from_f64(&b, v);
            let c = Case {
                trans,
                m,
                n,
                lda: m,
                incx: 1,
                incy: 1,
            };
            for (alpha, beta) in [(f(1.5), f(0.0)), (f(1.0), random(&b, &mut rng, 1))] {
                let what = format!(
                    "{bits}-bit gemv_fused {trans:?}, terms below the bucket, alpha={:?} beta={:?}",
                    alpha.to_f64(),
                    beta.to_f64()
                );
                assert_fused_bounded_same(
                    &what,
                    &dev,
                    &b,
                    &c,
                    &alpha,
                    (&a, &da),
                    (&x, &dx),
                    &beta,
                    &y,
                );
            }
        }
    }
}

/// Rows whose exact sums sit on the rounding's edges (`rns_common::fused_rounding_edges`: ties
/// to even both ways, carries into the next binade, negated, an exact zero, sums shorter than
/// `p` bits), at 106 and 424 bits (the prep and finish kernels that round from binary limbs) and
/// 1696 (the CRT passes): the CPU gives the exact values named there, the GPU the CPU's bits and
/// bounds.
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn rns_gemv_fused_rounding_edges_equal_the_cpu() {
    let dev = device();
    for bits in [106, 424, 1696] {
        let b = Basis::new(bits).expect("basis");
        let f = |v: f64| MpFloat::from_f64(&b, v);
        let e = fused_rounding_edges(&b);
        let (a, m, n) = (&e.a, e.m, e.n);
        let x = vec![f(1.0); n];
        let y = vec![f(0.0); m];
        let (one, zero) = (f(1.0), f(0.0));
        let c = Case {
            trans: Trans::No,
            m,
            n,
            lda: m,
            incx: 1,
            incy: 1,
        };
        let (da, dx) = (upload(&dev, &b, a), upload(&dev, &b, &x));
        let what = format!("{bits}-bit gemv_fused on the rounding's edges");
        let want =
            assert_fused_bounded_same(&what, &dev, &b, &c, &one, (a, &da), (&x, &dx), &zero, &y);
        e.assert_exact(&want, &format!("{bits} bits, the CPU"));
    }
}

/// Above about 2600 bits the wide basis exceeds the kernels' 256 moduli: an error, not a
/// wrong answer.
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn rns_gemv_fused_refuses_precisions_beyond_its_wide_basis() {
    let dev = device();
    let b = Basis::new(3393).expect("basis");
    let v = vec![MpFloat::from_f64(&b, 1.0); 4];
    let (da, dx) = (upload(&dev, &b, &v), upload(&dev, &b, &v[..2]));
    let mut dy = upload(&dev, &b, &v[..2]);
    let one = MpFloat::from_f64(&b, 1.0);
    let r = rns::gemv_fused(
        &dev,
        Trans::No,
        2,
        2,
        &one,
        &da,
        2,
        &dx,
        1,
        &one,
        &mut dy,
        1,
    );
    assert!(matches!(r, Err(Error::OutOfRange { .. })), "{r:?}");
}

fn gemv_at(dev: &Device, bits: u32, big: bool) {
    let b = Basis::new(bits).expect("basis");
    let mut rng = Rng::new(700 + bits as u64);
    let mut cases = vec![
        Case {
            trans: Trans::No,
            m: 1,
            n: 1,
            lda: 1,
            incx: 1,
            incy: 1,
        },
        Case {
            trans: Trans::No,
            m: 37,
            n: 300,
            lda: 40,
            incx: 1,
            incy: 1,
        },
        Case {
            trans: Trans::Yes,
            m: 300,
            n: 37,
            lda: 301,
            incx: -2,
            incy: 3,
        },
        Case {
            trans: Trans::No,
            m: 5,
            n: 257,
            lda: 5,
            incx: 3,
            incy: -1,
        },
        Case {
            trans: Trans::Yes,
            m: 4097,
            n: 3,
            lda: 4100,
            incx: 1,
            incy: -2,
        },
        Case {
            trans: Trans::No,
            m: 0,
            n: 5,
            lda: 1,
            incx: 1,
            incy: 1,
        },
        Case {
            trans: Trans::Yes,
            m: 4,
            n: 0,
            lda: 4,
            incx: 1,
            incy: 1,
        },
    ];
    if big {
        // 18 chunks: a second pass over the chunk results
        cases.push(Case {
            trans: Trans::No,
            m: 2,
            n: 70_001,
            lda: 2,
            incx: 1,
            incy: 1,
        });
        cases.push(Case {
            trans: Trans::Yes,
            m: 70_001,
            n: 1,
            lda: 70_001,
            incx: -1,
            incy: 1,
        });
    }
    for (k, c) in cases.iter().enumerate() {
        gemv_case(dev, &b, &mut rng, c, k % 2 == 1);
    }
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn rns_gemv_equals_the_cpu_106() {
    gemv_at(&device(), 106, true);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn rns_gemv_equals_the_cpu_424() {
    gemv_at(&device(), 424, false);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn rns_gemv_equals_the_cpu_1696() {
    gemv_at(&device(), 1696, false);
}

/// Beyond the old limit of 128 moduli of the GPU kernels: 219 moduli.
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn rns_gemv_equals_the_cpu_3393() {
    gemv_at(&device(), 3393, false);
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn rns_ger_equals_the_cpu() {
    let dev = device();
    for bits in [106, 424, 1696] {
        let b = Basis::new(bits).expect("basis");
        let mut rng = Rng::new(800 + bits as u64);
        for (m, n, lda, incx, incy, specials) in [
            (1, 1, 1, 1, 1, false),
            (33, 17, 35, 1, -2, true),
            (300, 5, 300, -1, 1, false),
            (3, 260, 4, 2, 1, true),
        ] {
            let a = data(&b, &mut rng, lda * n, 2 * b.precision() as i64, specials);
            let x = data(&b, &mut rng, storage_len(m, incx), 40, specials);
            let mut y = data(&b, &mut rng, storage_len(n, incy), 40, specials);
            // a zero y_j leaves its column alone (even against an infinite x_i)
            y[0] = MpFloat::zero(&b, true);
            for alpha in [random(&b, &mut rng, 4), MpFloat::zero(&b, false)] {
                let mut want = a.clone();
                level2::ger_blas(m, n, &alpha, &x, incx, &y, incy, &mut want, lda).expect("cpu");
                let mut da = upload(&dev, &b, &a);
                let (dx, dy) = (upload(&dev, &b, &x), upload(&dev, &b, &y));
                rns::ger(&dev, m, n, &alpha, &dx, incx, &dy, incy, &mut da, lda).expect("gpu ger");
                let got = da.download().expect("download");
                let want = MpArray::from_mpfloats(&b, &want).expect("basis");
                let what = format!("{bits}-bit ger m={m} n={n} lda={lda} incx={incx} incy={incy}");
                assert_same(&what, &got, &want, |i| format!("a[{i}]"));
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn rns_level2_bad_arguments_are_errors() {
    let dev = device();
    let b = Basis::new(106).expect("basis");
    let c = Basis::new(212).expect("basis");
    let one = MpFloat::from_f64(&b, 1.0);
    let a = DeviceMpArray::zeros(&dev, &b, 12).expect("a");
    let x = DeviceMpArray::zeros(&dev, &b, 4).expect("x");
    let xc = DeviceMpArray::zeros(&dev, &c, 4).expect("x");
    let mut y = DeviceMpArray::zeros(&dev, &b, 3).expect("y");
    let gemv = |a: &DeviceMpArray, lda, x: &DeviceMpArray, incx, y: &mut DeviceMpArray, incy| {
        rns::gemv(&dev, Trans::No, 3, 4, &one, a, lda, x, incx, &one, y, incy)
    };
    assert!(matches!(
        gemv(&a, 2, &x, 1, &mut y, 1),
        Err(Error::LeadingDim { .. })
    ));
    assert!(matches!(
        gemv(&a, 4, &x, 1, &mut y, 1),
        Err(Error::ArrayTooShort { .. })
    ));
    assert!(matches!(
        gemv(&a, 3, &x, 0, &mut y, 1),
        Err(Error::InvalidView { .. })
    ));
    assert!(matches!(
        gemv(&a, 3, &x, 1, &mut y, 0),
        Err(Error::InvalidView { .. })
    ));
    assert!(matches!(
        gemv(&a, 3, &x, 2, &mut y, 1),
        Err(Error::ArrayTooShort { .. })
    ));
    assert!(matches!(
        gemv(&a, 3, &xc, 1, &mut y, 1),
        Err(Error::BasisMismatch { .. })
    ));
    let other = MpFloat::from_f64(&c, 1.0);
    assert!(matches!(
        rns::gemv(&dev, Trans::No, 3, 4, &other, &a, 3, &x, 1, &one, &mut y, 1),
        Err(Error::BasisMismatch { .. })
    ));
    let mut a2 = DeviceMpArray::zeros(&dev, &b, 12).expect("a");
    assert!(matches!(
        rns::ger(&dev, 3, 4, &one, &x, 1, &x, 1, &mut a2, 4),
        Err(Error::ArrayTooShort { .. })
    ));
    assert!(matches!(
        rns::ger(&dev, 3, 4, &one, &x, 1, &xc, 1, &mut a2, 3),
        Err(Error::BasisMismatch { .. })
    ));
    let mut moved = DeviceMpArray::zeros(&dev, &b, 3).expect("y");
    moved.set_ordinal_for_tests(7);
    assert!(matches!(
        gemv(&a, 3, &x, 1, &mut moved, 1),
        Err(Error::DeviceMismatch { .. })
    ));
}

/// `blas::gpu::rns::dot_fused` equals the CPU's `blas::rns::dot_fused` field by field, for every
/// sign of the increments, specials included; an increment of 0 is an error.
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn rns_dot_fused_equals_the_cpu() {
    let dev = device();
    for bits in [106, 424] {
        let b = Basis::new(bits).expect("basis");
        let mut rng = Rng::new(1200 + bits as u64);
        for n in [0usize, 1, 1000, 5000] {
            for (incx, incy) in [(1isize, 1isize), (2, -1), (-1, 3), (-2, -2)] {
                for specials in [false, true] {
                    let x = data(&b, &mut rng, storage_len(n, incx), 60, specials);
                    let y = data(&b, &mut rng, storage_len(n, incy), 60, specials);
                    let cpu = mpblas::blas::rns::dot_fused(
                        VecRef::from_blas("x", n, &x, incx).expect("x"),
                        VecRef::from_blas("y", n, &y, incy).expect("y"),
                    )
                    .expect("cpu dot");
                    let (dx, dy) = (upload(&dev, &b, &x), upload(&dev, &b, &y));
                    let gpu = rns::dot_fused(&dev, n, &dx, incx, &dy, incy).expect("gpu dot");
                    if n == 0 {
                        // +0 on both (the CPU's empty views carry no basis; the GPU keeps x's)
                        assert!(gpu.is_zero() && !gpu.is_sign_negative() && cpu.is_zero());
                        assert!(gpu.basis().same(&b));
                        continue;
                    }
                    assert!(
                        gpu.identical(&cpu),
                        "{bits}-bit dot_fused n={n} incx={incx} incy={incy} specials={specials}: gpu {gpu:?} cpu {cpu:?}"
                    );
                }
            }
        }
        let v = upload(&dev, &b, &[MpFloat::from_f64(&b, 1.0)]);
        assert!(matches!(
            rns::dot_fused(&dev, 1, &v, 0, &v, 1),
            Err(Error::InvalidView { .. })
        ));
    }
}

/// `gemm_fused` on the GPU against the CPU's `rns::gemm_fused`, values and bounds, at 106 and
/// 424 bits: every pair of transposes, leading dimensions above the rows, `k` of 0, 1 and 70,
/// specials inside the data, and the special scalars.
#[test]
#[ignore = "needs a CUDA GPU: run scripts/gpu-check.sh"]
fn rns_gemm_fused_equals_the_cpu() {
    use mpblas::view::MatMut;
    let dev = device();
    let mut rng = Rng::new(77);
    for bits in [106u32, 424] {
        let b = Basis::new(bits).expect("basis");
        let one = MpFloat::from_f64(&b, 1.0);
        let zero = MpFloat::zero(&b, false);
        for &(m, n, k) in &[(3usize, 2usize, 1usize), (5, 4, 70), (4, 3, 0), (33, 5, 17)] {
            for (ta, tb) in [
                (Trans::No, Trans::No),
                (Trans::Yes, Trans::No),
                (Trans::No, Trans::Yes),
                (Trans::Yes, Trans::Yes),
            ] {
                let (ar, ac) = if ta == Trans::No { (m, k) } else { (k, m) };
                let (br, bc) = if tb == Trans::No { (k, n) } else { (n, k) };
                let (lda, ldb, ldc) = (ar.max(1) + 1, br.max(1) + 2, m + 1);
                let a = data(&b, &mut rng, lda * ac.max(1), 40, m * k < 100);
                let bm = data(&b, &mut rng, ldb * bc.max(1), 40, false);
                let c0 = data(&b, &mut rng, ldc * n, 40, false);
                let r = random(&b, &mut rng, 4);
                let scalars = [
                    (r.clone(), random(&b, &mut rng, 4)),
                    (r.clone(), zero.clone()),
                    (zero.clone(), r.clone()),
                    (zero.clone(), one.clone()),
                ];
                let (da, db) = (upload(&dev, &b, &a), upload(&dev, &b, &bm));
                for (alpha, beta) in &scalars {
                    let what = format!(
                        "{bits}-bit gemm_fused {ta:?}{tb:?} {m}x{n}x{k} alpha={:?} beta={:?}",
                        alpha.to_f64(),
                        beta.to_f64()
                    );
                    let va = MatRef::from_blas(("a", "lda"), ta, m, k, &a, lda).expect("a");
                    let vb = MatRef::from_blas(("b", "ldb"), tb, k, n, &bm, ldb).expect("b");
                    let mut want = c0.clone();
                    let vc = MatMut::from_blas(("c", "ldc"), m, n, &mut want, ldc).expect("c");
                    let cpu_bounds = mpblas::blas::rns::gemm_fused_bounded(alpha, va, vb, beta, vc)
                        .expect("cpu gemm_fused");
                    let want_arr = MpArray::from_mpfloats(&b, &want).expect("basis");
                    let mut dc = upload(&dev, &b, &c0);
                    rns::gemm_fused(
                        &dev,
                        ta,
                        tb,
                        (m, n, k),
                        alpha,
                        (&da, lda),
                        (&db, ldb),
                        beta,
                        (&mut dc, ldc),
                    )
                    .expect("gpu gemm_fused");
                    assert_same(&what, &dc.download().expect("download"), &want_arr, |i| {
                        format!("c[{i}]")
                    });
                    let mut dc = upload(&dev, &b, &c0);
                    let gpu_bounds = rns::gemm_fused_bounded(
                        &dev,
                        ta,
                        tb,
                        (m, n, k),
                        alpha,
                        (&da, lda),
                        (&db, ldb),
                        beta,
                        (&mut dc, ldc),
                    )
                    .expect("gpu gemm_fused bounded");
                    assert_same_bounds(&what, &cpu_bounds, &gpu_bounds);
                }
            }
        }
    }
}
