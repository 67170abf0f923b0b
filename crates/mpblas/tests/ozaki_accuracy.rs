//! Accuracy of the Ozaki schemes against MPFR on the paper's inputs `(rand − 0.5)·exp(φ·randn)`:
//! every entry within the bound functions of `mpblas::ozaki::bounds`, scheme I with `f64`
//! slices (s ≥ 3) at least as accurate as plain `f64` GEMM, scheme II at DGEMM level with the
//! default moduli and more accurate with every extra pair of moduli.
//! Run with `--nocapture` to see the measured errors.

mod ozaki_common;

use mpblas::Trans;
use mpblas::exact::ExactDot;
use mpblas::ozaki::bounds::{self, U, VecStats};
use mpblas::ozaki::{
    Accumulate, Ozaki1Params, Ozaki2Mode, Ozaki2Params, OzakiGuard, Products, SliceGemm,
    ozaki1_gemm_blas, ozaki2, ozaki2_gemm_blas,
};
use ozaki_common::{Case, PREC, TRANS, case};
use rug::Float;

const PHIS: [f64; 3] = [0.1, 1.0, 2.0];

fn run1(cs: &Case, p: &Ozaki1Params) -> Vec<f64> {
    let mut c = cs.c();
    ozaki1_gemm_blas(
        cs.transa, cs.transb, cs.m, cs.n, cs.k, cs.alpha, &cs.a, cs.lda, &cs.b, cs.ldb, cs.beta,
        &mut c, cs.ldc, p,
    )
    .unwrap();
    c
}

fn run2(cs: &Case, p: &Ozaki2Params) -> Vec<f64> {
    let mut c = cs.c();
    ozaki2_gemm_blas(
        cs.transa, cs.transb, cs.m, cs.n, cs.k, cs.alpha, &cs.a, cs.lda, &cs.b, cs.ldb, cs.beta,
        &mut c, cs.ldc, p,
    )
    .unwrap();
    c
}

/// Every entry of `got` within `bound(i, j)`; returns the largest ratio error/bound.
fn check_entries(cs: &Case, got: &[f64], what: &str, bound: impl Fn(usize, usize) -> f64) -> f64 {
    let mut worst = 0.0f64;
    for j in 0..cs.n {
        for i in 0..cs.m {
            let e = cs.abs_err(got, i, j);
            let b = bound(i, j);
            assert!(
                e <= b,
                "{what}: entry ({i},{j}) error {e:e} > bound {b:e} (|c*| = {:e})",
                cs.out_abs(i, j)
            );
            worst = worst.max(e / b);
        }
    }
    worst
}

fn ozaki1_bound(cs: &Case, p: &Ozaki1Params) -> impl Fn(usize, usize) -> f64 {
    move |i, j| {
        let (mua, _) = cs.row_stats(i);
        let (mub, _) = cs.col_stats(j);
        bounds::ozaki1_entry_bound(
            p,
            cs.k,
            mua,
            mub,
            cs.ab_abs(i, j),
            cs.alpha,
            cs.beta_c0_abs(i, j),
            cs.out_abs(i, j),
        )
    }
}

fn ozaki2_bound(cs: &Case, p: Ozaki2Params) -> impl Fn(usize, usize) -> f64 {
    move |i, j| {
        let sa = VecStats::of(&cs.ar[i * cs.k..(i + 1) * cs.k]);
        let sb = VecStats::of(&cs.bc[j * cs.k..(j + 1) * cs.k]);
        bounds::ozaki2_entry_bound(
            &p,
            cs.k,
            &sa,
            &sb,
            cs.ab_abs(i, j),
            cs.alpha,
            cs.beta_c0_abs(i, j),
            cs.out_abs(i, j),
        )
        .unwrap()
    }
}

#[test]
fn exact_dot_matches_mpfr() {
    let cs = case(Trans::No, Trans::No, 5, 4, 200, 2.0, 11, 1.0, 0.0);
    for j in 0..cs.n {
        for i in 0..cs.m {
            let mut f = Float::with_val(PREC, 0);
            let mut acc = ExactDot::new();
            for l in 0..cs.k {
                let (x, y) = (cs.ar[i * cs.k + l], cs.bc[j * cs.k + l]);
                f += Float::with_val(PREC, x) * y;
                acc.add_product(x, y);
            }
            let mut g = Float::with_val(PREC, 0);
            for t in acc.terms() {
                g += t;
            }
            assert_eq!(f, g);
            assert_eq!(acc.to_f64(), f.to_f64());
        }
    }
}

/// Scheme I: every combination of slices 2..=8, both product shapes, both slice arithmetics and
/// both accumulations, every transpose pair, φ ∈ {0.1, 1, 2}, odd sizes, padded leading
/// dimensions, α, β ∉ {0, 1}: every entry within `ozaki1_entry_bound`.
#[test]
fn ozaki1_every_entry_within_bound() {
    let sizes = [(23, 17, 128), (9, 31, 255), (1, 5, 7)];
    for (t, &(ta, tb)) in TRANS.iter().enumerate() {
        for (pi, &phi) in PHIS.iter().enumerate() {
            let (m, n, k) = sizes[(t + pi) % sizes.len()];
            let cs = case(
                ta,
                tb,
                m,
                n,
                k,
                phi,
                100 + 10 * t as u64 + pi as u64,
                -1.25,
                0.375,
            );
            for slices in 2..=8 {
                for products in [Products::Triangular, Products::Full] {
                    for slice_gemm in [SliceGemm::F32, SliceGemm::F64] {
                        for accumulate in [Accumulate::F64, Accumulate::Dd] {
                            let p = Ozaki1Params {
                                slices,
                                products,
                                slice_gemm,
                                accumulate,
                                guard: Default::default(),
                            };
                            let got = run1(&cs, &p);
                            check_entries(
                                &cs,
                                &got,
                                &format!("{p:?} {ta:?}{tb:?} φ={phi}"),
                                ozaki1_bound(&cs, &p),
                            );
                        }
                    }
                }
            }
        }
    }
}

/// Scheme I with `f64` slices and `s ≥ 3` is at least as accurate as plain `f64` GEMM (the
/// triple loop) in the paper's metric, and stays within its bound; with `f32` slices the error
/// falls with the number of slices as the bound does (the paper's Table 2 trend).
#[test]
fn ozaki1_f64_slices_beat_dgemm() {
    for &phi in &PHIS {
        let cs = case(Trans::No, Trans::Yes, 96, 80, 256, phi, 7, 0.75, -2.5);
        let naive = cs.max_rel(&cs.naive());
        println!("φ={phi}: naive f64 GEMM max rel err {naive:.3e}");
        for slices in 3..=5 {
            for accumulate in [Accumulate::F64, Accumulate::Dd] {
                let p = Ozaki1Params {
                    slices,
                    products: Products::Triangular,
                    slice_gemm: SliceGemm::F64,
                    accumulate,
                    guard: Default::default(),
                };
                let got = run1(&cs, &p);
                let r = check_entries(&cs, &got, "f64 slices", ozaki1_bound(&cs, &p));
                let e = cs.max_rel(&got);
                println!("  s={slices} {accumulate:?}: max rel err {e:.3e} (err/bound ≤ {r:.2e})");
                assert!(
                    e <= naive,
                    "s={slices} {accumulate:?}: {e:e} > naive {naive:e}"
                );
            }
        }
        let mut prev_bound = f64::INFINITY;
        for slices in 2..=8 {
            let p = Ozaki1Params {
                slices,
                products: Products::Triangular,
                slice_gemm: SliceGemm::F32,
                accumulate: Accumulate::F64,
                guard: Default::default(),
            };
            let got = run1(&cs, &p);
            check_entries(&cs, &got, "f32 slices", ozaki1_bound(&cs, &p));
            let (mua, _) = cs.row_stats(0);
            let (mub, _) = cs.col_stats(0);
            let b = bounds::ozaki1_ab_bound(&p, cs.k, mua, mub, 0.0);
            assert!(b < prev_bound, "bound must fall with s");
            prev_bound = b;
            println!("  f32 s={slices}: max rel err {:.3e}", cs.max_rel(&got));
        }
    }
}

/// Scheme II: N ∈ {8, 11, 14, 17, 20}, both modes, all transposes, φ ∈ {0.1, 1, 2}: every
/// entry within `ozaki2_entry_bound`.
#[test]
fn ozaki2_every_entry_within_bound() {
    let sizes = [(33, 19, 256), (8, 41, 129), (3, 2, 1)];
    for (t, &(ta, tb)) in TRANS.iter().enumerate() {
        for (pi, &phi) in PHIS.iter().enumerate() {
            let (m, n, k) = sizes[(t + pi) % sizes.len()];
            let cs = case(
                ta,
                tb,
                m,
                n,
                k,
                phi,
                300 + 10 * t as u64 + pi as u64,
                1.5,
                -0.625,
            );
            for moduli in [8, 11, 14, 17, 20] {
                for mode in [Ozaki2Mode::Fast, Ozaki2Mode::Accurate] {
                    let p = Ozaki2Params {
                        moduli,
                        mode,
                        guard: Default::default(),
                    };
                    let got = run2(&cs, &p);
                    check_entries(
                        &cs,
                        &got,
                        &format!("{p:?} {ta:?}{tb:?} φ={phi}"),
                        ozaki2_bound(&cs, p),
                    );
                }
            }
        }
    }
}

/// The error of scheme II's double-double product `S` (before rounding to `f64`), normalised
/// by `(|A||B|)_ij`, falls strictly with every two extra moduli (each adds about 7.8 bits), from
/// below single precision at N = 8 to far below `f64` ("dd-like") at N = 20; the accurate mode
/// never gives a row or column fewer bits than the fast mode.
#[test]
fn ozaki2_more_moduli_more_accuracy() {
    for &phi in &PHIS {
        let cs = case(Trans::No, Trans::No, 64, 48, 200, phi, 21, 1.0, 0.0);
        let comp = |s: &[mpblas::Dd]| -> f64 {
            let mut w = 0.0f64;
            for j in 0..cs.n {
                for i in 0..cs.m {
                    let x = s[i + j * cs.m];
                    let d = (Float::with_val(PREC, x.hi) + x.lo) - &cs.ab[i + j * cs.m];
                    w = w.max(d.abs().to_f64() / cs.abs_ab(i, j));
                }
            }
            w
        };
        for mode in [Ozaki2Mode::Fast, Ozaki2Mode::Accurate] {
            let mut prev = f64::INFINITY;
            for moduli in (8..=20).step_by(2) {
                let p = Ozaki2Params {
                    moduli,
                    mode,
                    guard: Default::default(),
                };
                let plan = ozaki2::Ozaki2Plan::new(cs.k, &p).unwrap();
                let s = ozaki2::product(cs.m, cs.n, &cs.ar, &cs.bc, &plan).unwrap();
                let e = comp(&s);
                println!("φ={phi} {mode:?} N={moduli}: max |S − AB|/(|A||B|) = {e:.3e}");
                assert!(e < prev, "N={moduli}: {e:e} not below {prev:e}");
                prev = e;
                // Both modes give every row and column at least the bits of the maxima-only
                // scaling `q − ⌈log2 μ⌉`, less one bit for the fast mode's rounding of its
                // 2-norm bound up to a power of two; and exactly the exponents whose lower
                // bound `bounds::ozaki2_exponent_lower` promises.
                let (m, n, k) = (cs.m, cs.n, cs.k);
                let q = ozaki2::fast_q(moduli, k).unwrap();
                let sc = ozaki2::scaling(&plan, m, n, &cs.ar, &cs.bc).unwrap();
                let slack = i32::from(mode == Ozaki2Mode::Fast);
                for (e, v) in sc.ea.iter().zip(cs.ar.chunks(k)) {
                    let st = VecStats::of(v);
                    let mu_only = q - mpblas::ozaki::split::ceil_log2(st.max_abs);
                    assert!(*e >= mu_only - slack, "{mode:?} row: {e} < {mu_only}");
                    assert!(*e >= bounds::ozaki2_exponent_lower(&p, k, &st).unwrap());
                }
                for (f, v) in sc.eb.iter().zip(cs.bc.chunks(k)) {
                    let st = VecStats::of(v);
                    let mu_only = q - mpblas::ozaki::split::ceil_log2(st.max_abs);
                    assert!(*f >= mu_only - slack, "{mode:?} column: {f} < {mu_only}");
                    assert!(*f >= bounds::ozaki2_exponent_lower(&p, k, &st).unwrap());
                }
            }
            assert!(
                prev < U * U * (1u64 << 40) as f64,
                "N = 20 must be far below f64"
            );
        }
    }
}

/// "FP64 accuracy" of scheme II, as `OZAKI2_DEFAULT_MODULI` documents it: with the default
/// moduli every entry meets DGEMM's own worst-case bound `γ_k·(|A||B|)_ij` (plus the rounding
/// of the `α`, `β` update), in both modes, for φ ≤ 2; and 14 moduli in fast mode do not at
/// φ = 2 (why the default is 16). Also every entry within scheme II's own bound.
#[test]
fn ozaki2_default_is_fp64_level() {
    for &phi in &PHIS {
        let cs = case(Trans::Yes, Trans::No, 80, 72, 256, phi, 5, -0.75, 1.5);
        let naive = cs.naive();
        let dgemm_bound = |i: usize, j: usize| {
            let s_err = bounds::naive_gemm_ab_bound(cs.k, cs.abs_ab(i, j) * (1.0 + 1e-12));
            bounds::update_bound(
                Accumulate::F64,
                cs.alpha,
                s_err,
                cs.ab_abs(i, j),
                cs.beta_c0_abs(i, j),
                cs.out_abs(i, j),
            )
        };
        // The naive loop itself meets it (a check of the check).
        check_entries(&cs, &naive, "naive f64", dgemm_bound);
        for mode in [Ozaki2Mode::Fast, Ozaki2Mode::Accurate] {
            let p = Ozaki2Params {
                mode,
                ..Ozaki2Params::default()
            };
            let got = run2(&cs, &p);
            check_entries(&cs, &got, "default", ozaki2_bound(&cs, p));
            let r = check_entries(&cs, &got, "default vs DGEMM bound", dgemm_bound);
            println!(
                "φ={phi} {mode:?} N={}: max rel {:.3e}, componentwise {:.2} u (err/DGEMM bound ≤ {r:.3}) | naive f64: max rel {:.3e}, componentwise {:.2} u",
                p.moduli,
                cs.max_rel(&got),
                cs.max_comp(&got) / U,
                cs.max_rel(&naive),
                cs.max_comp(&naive) / U,
            );
        }
        // Fewer moduli in fast mode, the scheme alone (no guard): 14 still meet the DGEMM
        // bound here (the Cauchy–Schwarz scaling gains about 6 bits per side at φ = 2 over the
        // maxima-only one, which missed it by 25×); 12 do not at φ = 2. The worst ratio is
        // printed for each. With the default guard every count meets it (checked below).
        for moduli in [12, 13, 14] {
            let p = Ozaki2Params {
                moduli,
                mode: Ozaki2Mode::Fast,
                guard: OzakiGuard::NormwiseFast,
            };
            let guarded = run2(
                &cs,
                &Ozaki2Params {
                    guard: OzakiGuard::Componentwise,
                    ..p
                },
            );
            check_entries(&cs, &guarded, "guarded", dgemm_bound);
            let got = run2(&cs, &p);
            let worst = (0..cs.n)
                .flat_map(|j| (0..cs.m).map(move |i| (i, j)))
                .map(|(i, j)| cs.abs_err(&got, i, j) / dgemm_bound(i, j))
                .fold(0.0f64, f64::max);
            println!("φ={phi} Fast N={moduli}: err/DGEMM bound up to {worst:.3}");
            if moduli == 14 {
                assert!(worst <= 1.0, "14 moduli miss the DGEMM bound at φ = {phi}");
            }
            if moduli == 12 && phi == 2.0 {
                assert!(
                    worst > 1.0,
                    "12 moduli unexpectedly meet the DGEMM bound at φ = 2"
                );
            }
        }
    }
}
