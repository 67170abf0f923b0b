//! Every `Err` path of the Ozaki entry points, the BLAS quick returns, all-zero rows and
//! columns, NaN/Inf propagation and extreme scales.

mod ozaki_common;

use mpblas::Error;
use mpblas::Trans;
use mpblas::ozaki::{
    Accumulate, Ozaki1Params, Ozaki2Mode, Ozaki2Params, Products, SliceGemm, bounds,
    ozaki1_gemm_blas, ozaki2_gemm_blas,
};
use mpblas_testdata::paper_matrix;

/// Calls scheme I (`which = 1`) or II (`which = 2`) with default-ish parameters.
#[allow(clippy::too_many_arguments)]
fn call(
    which: u8,
    ta: Trans,
    tb: Trans,
    m: usize,
    n: usize,
    k: usize,
    alpha: f64,
    a: &[f64],
    lda: usize,
    b: &[f64],
    ldb: usize,
    beta: f64,
    c: &mut [f64],
    ldc: usize,
) -> mpblas::Result<()> {
    if which == 1 {
        let p = Ozaki1Params {
            slices: 3,
            products: Products::Triangular,
            slice_gemm: SliceGemm::F64,
            accumulate: Accumulate::Dd,
            guard: Default::default(),
        };
        ozaki1_gemm_blas(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, &p).map(drop)
    } else {
        ozaki2_gemm_blas(
            ta,
            tb,
            m,
            n,
            k,
            alpha,
            a,
            lda,
            b,
            ldb,
            beta,
            c,
            ldc,
            &Ozaki2Params::default(),
        )
        .map(drop)
    }
}

#[test]
fn argument_errors() {
    let (m, n, k) = (4, 3, 5);
    let a = vec![1.0; 64];
    let b = vec![1.0; 64];
    let mut c = vec![0.0; 64];
    let no = Trans::No;
    let yes = Trans::Yes;
    for which in [1, 2] {
        let ld = |arg: &'static str, got, min| Err(Error::LeadingDim { arg, got, min });
        let short = |arg: &'static str, got, min| Err(Error::ArrayTooShort { arg, got, min });
        assert_eq!(
            call(which, no, no, m, n, k, 1.0, &a, 3, &b, 5, 0.0, &mut c, 4),
            ld("lda", 3, 4)
        );
        assert_eq!(
            call(which, yes, no, m, n, k, 1.0, &a, 4, &b, 5, 0.0, &mut c, 4),
            ld("lda", 4, 5)
        );
        assert_eq!(
            call(which, no, no, m, n, k, 1.0, &a, 4, &b, 4, 0.0, &mut c, 4),
            ld("ldb", 4, 5)
        );
        assert_eq!(
            call(which, no, yes, m, n, k, 1.0, &a, 4, &b, 2, 0.0, &mut c, 4),
            ld("ldb", 2, 3)
        );
        assert_eq!(
            call(which, no, no, m, n, k, 1.0, &a, 4, &b, 5, 0.0, &mut c, 3),
            ld("ldc", 3, 4)
        );
        // lda ≥ 1 even for an empty matrix.
        assert_eq!(
            call(which, no, no, 0, n, k, 1.0, &a, 0, &b, 5, 0.0, &mut c, 1),
            ld("lda", 0, 1)
        );
        // Too-short arrays: need ld·(cols − 1) + rows.
        assert_eq!(
            call(
                which,
                no,
                no,
                m,
                n,
                k,
                1.0,
                &a[..19],
                4,
                &b,
                5,
                0.0,
                &mut c,
                4
            ),
            short("a", 19, 20)
        );
        assert_eq!(
            call(
                which,
                yes,
                no,
                m,
                n,
                k,
                1.0,
                &a[..22],
                6,
                &b,
                5,
                0.0,
                &mut c,
                4
            ),
            short("a", 22, 23)
        );
        assert_eq!(
            call(
                which,
                no,
                no,
                m,
                n,
                k,
                1.0,
                &a,
                4,
                &b[..14],
                5,
                0.0,
                &mut c,
                4
            ),
            short("b", 14, 15)
        );
        assert_eq!(
            call(
                which,
                no,
                no,
                m,
                n,
                k,
                1.0,
                &a,
                4,
                &b,
                5,
                0.0,
                &mut c[..11],
                4
            ),
            short("c", 11, 12)
        );
        assert_eq!(
            call(
                which,
                no,
                no,
                m,
                n,
                k,
                1.0,
                &a,
                4,
                &b,
                5,
                0.0,
                &mut c[..13],
                5
            ),
            short("c", 13, 14)
        );
    }
    // Parameter ranges.
    let run1 = |slices, slice_gemm, k: usize, c: &mut [f64]| {
        let p = Ozaki1Params {
            slices,
            products: Products::Full,
            slice_gemm,
            accumulate: Accumulate::F64,
            guard: Default::default(),
        };
        ozaki1_gemm_blas(
            Trans::No,
            Trans::No,
            0,
            0,
            k,
            1.0,
            &[],
            1,
            &[],
            k.max(1),
            0.0,
            c,
            1,
            &p,
        )
    };
    for s in [0, 1, 9] {
        assert!(matches!(
            run1(s, SliceGemm::F64, 4, &mut c),
            Err(Error::OutOfRange { what: "ozaki1 slices", got, min: 2, max: 8 }) if got == s
        ));
    }
    assert!(run1(2, SliceGemm::F32, 1 << 22, &mut c).is_ok());
    assert!(matches!(
        run1(2, SliceGemm::F32, (1 << 22) + 1, &mut c),
        Err(Error::OutOfRange { max, .. }) if max == 1 << 22
    ));
    let run2 = |moduli, k: usize, c: &mut [f64]| {
        let p = Ozaki2Params {
            moduli,
            mode: Ozaki2Mode::Accurate,
            guard: Default::default(),
        };
        ozaki2_gemm_blas(
            Trans::No,
            Trans::No,
            0,
            0,
            k,
            1.0,
            &[],
            1,
            &[],
            k.max(1),
            0.0,
            c,
            1,
            &p,
        )
    };
    for nm in [0, 7, 21] {
        assert!(matches!(
            run2(nm, 4, &mut c),
            Err(Error::OutOfRange { what: "ozaki2 moduli", got, min: 8, max: 20 }) if got == nm
        ));
    }
    assert!(matches!(
        run2(8, 1 << 60, &mut c),
        Err(Error::OutOfRange {
            what: "k (inner dimension) for this number of moduli",
            ..
        })
    ));
}

#[test]
fn quick_returns_follow_blas() {
    let (m, n, k) = (3, 2, 4);
    let mut a = vec![1.0; m * k];
    a[5] = f64::NAN;
    let b = vec![2.0; k * n];
    for which in [1, 2] {
        // m = 0 or n = 0: C untouched.
        let mut c = vec![7.0; m * n];
        call(
            which,
            Trans::No,
            Trans::No,
            0,
            n,
            k,
            1.0,
            &a,
            1,
            &b,
            k,
            0.0,
            &mut c,
            1,
        )
        .unwrap();
        call(
            which,
            Trans::No,
            Trans::No,
            m,
            0,
            k,
            1.0,
            &a,
            m,
            &b,
            k,
            0.0,
            &mut c,
            m,
        )
        .unwrap();
        assert!(c.iter().all(|&x| x == 7.0));
        // α = 0: A (with its NaN) not read, C = β·C.
        call(
            which,
            Trans::No,
            Trans::No,
            m,
            n,
            k,
            0.0,
            &a,
            m,
            &b,
            k,
            0.5,
            &mut c,
            m,
        )
        .unwrap();
        assert!(c.iter().all(|&x| x == 3.5));
        // k = 0: C = β·C; β = 0 overwrites NaN.
        let mut c = vec![f64::NAN; m * n];
        call(
            which,
            Trans::No,
            Trans::No,
            m,
            n,
            0,
            1.0,
            &a,
            m,
            &b,
            1,
            0.0,
            &mut c,
            m,
        )
        .unwrap();
        assert!(c.iter().all(|&x| x == 0.0));
        // β = 0 with NaN in C and a real product: C is not read.
        let a2 = vec![1.0; m * k];
        let mut c = vec![f64::NAN; m * n];
        call(
            which,
            Trans::No,
            Trans::No,
            m,
            n,
            k,
            1.0,
            &a2,
            m,
            &b,
            k,
            0.0,
            &mut c,
            m,
        )
        .unwrap();
        assert!(c.iter().all(|&x| x == 8.0), "{c:?}");
    }
}

#[test]
fn zero_rows_and_columns() {
    let (m, n, k) = (6, 5, 37);
    let mut a = paper_matrix(m, k, 1.0, 1);
    let mut b = paper_matrix(k, n, 1.0, 2);
    for l in 0..k {
        a[2 + l * m] = 0.0; // row 2 of A
        b[l + 3 * k] = 0.0; // column 3 of B
    }
    let zero_a = vec![0.0; m * k];
    for which in [1, 2] {
        let mut c = vec![1.0; m * n];
        call(
            which,
            Trans::No,
            Trans::No,
            m,
            n,
            k,
            2.0,
            &a,
            m,
            &b,
            k,
            0.0,
            &mut c,
            m,
        )
        .unwrap();
        for j in 0..n {
            for i in 0..m {
                if i == 2 || j == 3 {
                    assert_eq!(c[i + j * m], 0.0);
                } else {
                    let want: f64 = 2.0 * (0..k).map(|l| a[i + l * m] * b[l + j * k]).sum::<f64>();
                    assert!((c[i + j * m] - want).abs() <= 1e-12 * want.abs().max(1.0));
                }
            }
        }
        let mut c = vec![1.0; m * n];
        call(
            which,
            Trans::No,
            Trans::No,
            m,
            n,
            k,
            2.0,
            &zero_a,
            m,
            &b,
            k,
            -1.0,
            &mut c,
            m,
        )
        .unwrap();
        assert!(c.iter().all(|&x| x == -1.0));
    }
}

#[test]
fn nan_and_inf_propagate_like_dgemm() {
    let (m, n, k) = (7, 6, 19);
    let mut a = paper_matrix(m, k, 1.0, 3);
    let mut b = paper_matrix(k, n, 1.0, 4);
    let c0 = paper_matrix(m, n, 1.0, 5);
    a[2 + 5 * m] = f64::NAN; // row 2
    a[4 + m] = f64::INFINITY; // row 4
    b[3 + 5 * k] = f64::NEG_INFINITY; // column 5
    let (alpha, beta) = (1.5, -0.25);
    let mut clean_a = a.clone();
    let mut clean_b = b.clone();
    for l in 0..k {
        clean_a[2 + l * m] = 0.0;
        clean_a[4 + l * m] = 0.0;
        clean_b[l + 5 * k] = 0.0;
    }
    for which in [1, 2] {
        let mut c = c0.clone();
        call(
            which,
            Trans::No,
            Trans::No,
            m,
            n,
            k,
            alpha,
            &a,
            m,
            &b,
            k,
            beta,
            &mut c,
            m,
        )
        .unwrap();
        let mut clean = c0.clone();
        call(
            which,
            Trans::No,
            Trans::No,
            m,
            n,
            k,
            alpha,
            &clean_a,
            m,
            &clean_b,
            k,
            beta,
            &mut clean,
            m,
        )
        .unwrap();
        for j in 0..n {
            for i in 0..m {
                let got = c[i + j * m];
                if i == 2 || i == 4 || j == 5 {
                    let s: f64 = (0..k).map(|l| a[i + l * m] * b[l + j * k]).sum();
                    let want = alpha * s + beta * c0[i + j * m];
                    assert!(
                        got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                        "({i},{j}): {got} vs {want}"
                    );
                    assert!(!got.is_finite());
                } else {
                    assert_eq!(got.to_bits(), clean[i + j * m].to_bits());
                }
            }
        }
    }
}

/// Entries of A near 2^-600 and of B near 2^500 (outside the f32 range): the per-row scaling
/// keeps f32 slices exact, so the result stays within the bound of an unscaled problem.
#[test]
fn extreme_scales() {
    let cs = ozaki_common::case(Trans::No, Trans::No, 9, 7, 64, 1.0, 17, 1.0, 0.0);
    let sa = (-600f64).exp2();
    let sb = 500f64.exp2();
    let a: Vec<f64> = cs.a.iter().map(|x| x * sa).collect();
    let b: Vec<f64> = cs.b.iter().map(|x| x * sb).collect();
    for slice_gemm in [SliceGemm::F32, SliceGemm::F64] {
        let p = Ozaki1Params {
            slices: 4,
            products: Products::Triangular,
            slice_gemm,
            accumulate: Accumulate::F64,
            guard: Default::default(),
        };
        let mut c = cs.c();
        ozaki1_gemm_blas(
            cs.transa, cs.transb, cs.m, cs.n, cs.k, 1.0, &a, cs.lda, &b, cs.ldb, 0.0, &mut c,
            cs.ldc, &p,
        )
        .unwrap();
        for j in 0..cs.n {
            for i in 0..cs.m {
                let got = c[i + j * cs.ldc] / (sa * sb); // exact rescaling
                let (mua, _) = cs.row_stats(i);
                let (mub, _) = cs.col_stats(j);
                let bound = bounds::ozaki1_entry_bound(
                    &p,
                    cs.k,
                    mua,
                    mub,
                    cs.ab_abs(i, j),
                    1.0,
                    0.0,
                    cs.out_abs(i, j),
                );
                let mut gc = cs.c();
                gc[i + j * cs.ldc] = got;
                assert!(cs.abs_err(&gc, i, j) <= bound, "{slice_gemm:?} ({i},{j})");
            }
        }
    }
    let mut c = cs.c();
    ozaki2_gemm_blas(
        cs.transa,
        cs.transb,
        cs.m,
        cs.n,
        cs.k,
        1.0,
        &a,
        cs.lda,
        &b,
        cs.ldb,
        0.0,
        &mut c,
        cs.ldc,
        &Ozaki2Params::default(),
    )
    .unwrap();
    let mut c1 = cs.c();
    ozaki2_gemm_blas(
        cs.transa,
        cs.transb,
        cs.m,
        cs.n,
        cs.k,
        1.0,
        &cs.a,
        cs.lda,
        &cs.b,
        cs.ldb,
        0.0,
        &mut c1,
        cs.ldc,
        &Ozaki2Params::default(),
    )
    .unwrap();
    for j in 0..cs.n {
        for i in 0..cs.m {
            // Scheme II is scale-invariant under powers of two: the same bits, rescaled.
            assert_eq!(c[i + j * cs.ldc], c1[i + j * cs.ldc] * (sa * sb));
        }
    }
}

/// Issue 11: the Ozaki stages over raw slices (`pack_rows`, `split::split`, `ozaki2::product`,
/// `moduli(usize::MAX)`, `sym_residue(1.0, 0)`, ...) panicked on short or absurd arguments. They
/// are crate-private now (public only with the `unstable-internals` feature); what stays public
/// answers every argument with a value or an `Err`, never a panic.
#[test]
fn what_stays_public_never_panics() {
    use mpblas::ozaki::{gemm_cpu, ozaki1_check_params, ozaki2_check_params};
    let odd = [
        0.0,
        -0.0,
        1.0,
        f64::NAN,
        f64::INFINITY,
        -f64::INFINITY,
        f64::MAX,
        5e-324,
    ];
    let ks = [0, 1, 7, usize::MAX / 2, usize::MAX];
    for slices in [0, 1, 3, 9, 1000, usize::MAX] {
        for slice_gemm in [SliceGemm::F32, SliceGemm::F64] {
            for products in [Products::Triangular, Products::Full] {
                let p = Ozaki1Params {
                    slices,
                    products,
                    slice_gemm,
                    accumulate: Accumulate::Dd,
                    guard: Default::default(),
                };
                for &k in &ks {
                    let ok = ozaki1_check_params(k, &p).is_ok();
                    assert!(!ok || (2..=8).contains(&slices), "{slices} {k}");
                    if !ok {
                        // No bound for parameters the GEMM refuses.
                        assert_eq!(bounds::ozaki1_rho(&p, k), f64::INFINITY);
                        assert_eq!(bounds::ozaki1_ab_bound(&p, k, 1.0, 1.0, 1.0), f64::INFINITY);
                        assert_eq!(
                            bounds::ozaki1_entry_bound(&p, k, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0),
                            f64::INFINITY
                        );
                    }
                    for &v in &odd {
                        let _ = bounds::ozaki1_rho(&p, k);
                        let _ = bounds::ozaki1_ab_bound(&p, k, v, v, v);
                        let _ = bounds::ozaki1_entry_bound(&p, k, v, v, v, v, v, v);
                    }
                }
            }
        }
    }
    for moduli in [0, 7, 8, 16, 20, 21, 1000, usize::MAX] {
        for mode in [Ozaki2Mode::Fast, Ozaki2Mode::Accurate] {
            let p = Ozaki2Params {
                moduli,
                mode,
                guard: Default::default(),
            };
            for &k in &ks {
                let ok = ozaki2_check_params(k, &p).is_ok();
                assert!(!ok || (8..=20).contains(&moduli), "{moduli} {k}");
                for &v in &odd {
                    let st = bounds::VecStats::of(&[v, 1.0]);
                    let _ = bounds::ozaki2_exponent_lower(&p, k, &st);
                    let _ = bounds::ozaki2_ab_bound(&p, k, &st, &st, v);
                    let _ = bounds::ozaki2_entry_bound(&p, k, &st, &st, v, v, v, v);
                }
            }
        }
    }
    for &v in &odd {
        for acc in [Accumulate::F64, Accumulate::Dd] {
            let _ = bounds::update_bound(acc, v, v, v, v, v);
        }
        let _ = bounds::gamma(v, v);
        for &k in &ks {
            let _ = bounds::naive_gemm_ab_bound(k, v);
        }
    }
    // The plain GEMMs of the stages: short buffers and overflowing dimensions are errors.
    let (a, b) = ([1.0f64; 4], [1.0f64; 4]);
    let mut c = [0.0f64; 4];
    for (m, n, k) in [
        (2, 2, 2),
        (3, 2, 2),
        (usize::MAX, 2, 2),
        (2, 2, usize::MAX),
        (1 << 40, 1 << 40, 1),
    ] {
        // checked_mul: usize::MAX · 2 overflowed here under overflow checks (the checked
        // profile), in the test itself.
        let fits = m.checked_mul(n).is_some_and(|mn| mn <= 4)
            && m.saturating_mul(k) <= 4
            && n.saturating_mul(k) <= 4;
        assert_eq!(
            gemm_cpu::gemm_f64(m, n, k, &a, &b, &mut c).is_ok(),
            fits,
            "{m} {n} {k}"
        );
        let (a32, b32, mut c32) = ([1.0f32; 4], [1.0f32; 4], [0.0f32; 4]);
        assert_eq!(
            gemm_cpu::gemm_f32(m, n, k, &a32, &b32, &mut c32).is_ok(),
            fits
        );
        let (a8, b8, mut c8) = ([1i8; 4], [1i8; 4], [0i32; 4]);
        assert_eq!(
            gemm_cpu::gemm_i8_i32(m, n, k, &a8, &b8, &mut c8).is_ok(),
            fits
        );
        assert!(gemm_cpu::gemm_i8_i32_part(m, n, k, 3, 1, &a8, &b8, &mut c8).is_err());
    }
}
