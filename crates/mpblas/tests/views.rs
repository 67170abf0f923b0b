//! Matrix views as routine arguments: a transpose, a row-major output, a block of a larger
//! matrix and a foreign (ndarray, faer) view give the very bits of the equivalent BLAS-style
//! call, and bad views are errors. Run with `--features ndarray,faer` for the adapters.

use mpblas::ozaki::{Ozaki1Params, Ozaki2Params, ozaki1_gemm, ozaki2_gemm, ozaki2_gemm_blas};
use mpblas::view::{MatMut, MatRef};
use mpblas::{Error, Trans};
use mpblas_testdata::paper_matrix;

fn bits(x: &[f64]) -> Vec<u64> {
    x.iter().map(|v| v.to_bits()).collect()
}

/// `C ← 1.5·op(A)·op(B) − 0.5·C` by the BLAS-style entry, column-major C.
#[allow(clippy::too_many_arguments)]
fn blas_reference(
    transa: Trans,
    transb: Trans,
    (m, n, k): (usize, usize, usize),
    a: &[f64],
    lda: usize,
    b: &[f64],
    ldb: usize,
    c0: &[f64],
) -> Vec<f64> {
    let mut c = c0.to_vec();
    ozaki2_gemm_blas(
        transa,
        transb,
        m,
        n,
        k,
        1.5,
        a,
        lda,
        b,
        ldb,
        -0.5,
        &mut c,
        m,
        &Ozaki2Params::default(),
    )
    .unwrap();
    c
}

#[test]
fn transposed_views_equal_the_transpose_flags() {
    let (m, n, k) = (13, 9, 21);
    let at = paper_matrix(k, m, 2.0, 1); // A stored transposed: k × m
    let b = paper_matrix(k, n, 2.0, 2);
    let c0 = paper_matrix(m, n, 1.0, 3);
    let want = blas_reference(Trans::Yes, Trans::No, (m, n, k), &at, k, &b, k, &c0);
    let mut c = c0.clone();
    let a = MatRef::col_major(&at, k, m, k).unwrap().t();
    let bv = MatRef::col_major(&b, k, n, k).unwrap();
    ozaki2_gemm(
        1.5,
        a,
        bv,
        -0.5,
        MatMut::col_major(&mut c, m, n, m).unwrap(),
        &Ozaki2Params::default(),
    )
    .unwrap();
    assert_eq!(bits(&c), bits(&want));
}

#[test]
fn a_row_major_output_holds_the_same_entries() {
    let (m, n, k) = (7, 11, 30);
    let a = paper_matrix(m, k, 1.0, 4);
    let b = paper_matrix(k, n, 1.0, 5);
    let c0 = paper_matrix(m, n, 1.0, 6);
    let want = blas_reference(Trans::No, Trans::No, (m, n, k), &a, m, &b, k, &c0);
    // The same C stored row-major (ld = n + 2, padding untouched).
    let ld = n + 2;
    let mut c = vec![f64::NAN; m * ld];
    for i in 0..m {
        for j in 0..n {
            c[i * ld + j] = c0[i + j * m];
        }
    }
    ozaki2_gemm(
        1.5,
        MatRef::col_major(&a, m, k, m).unwrap(),
        MatRef::col_major(&b, k, n, k).unwrap(),
        -0.5,
        MatMut::row_major(&mut c, m, n, ld).unwrap(),
        &Ozaki2Params::default(),
    )
    .unwrap();
    for i in 0..m {
        for j in 0..n {
            assert_eq!(
                c[i * ld + j].to_bits(),
                want[i + j * m].to_bits(),
                "({i}, {j})"
            );
        }
        assert!(c[i * ld + n].is_nan() && c[i * ld + n + 1].is_nan());
    }
}

#[test]
fn a_block_of_a_larger_matrix_is_an_operand() {
    let (big_m, big_k) = (20, 40);
    let big = paper_matrix(big_m, big_k, 1.0, 7);
    let (m, n, k) = (6, 5, 17);
    let (r0, c0_) = (3, 11);
    // The block, copied out column-major, is the reference's A.
    let a: Vec<f64> = (0..k)
        .flat_map(|l| (0..m).map(move |i| (i, l)))
        .map(|(i, l)| big[(r0 + i) + (c0_ + l) * big_m])
        .collect();
    let b = paper_matrix(k, n, 1.0, 8);
    let c0 = paper_matrix(m, n, 1.0, 9);
    let want = blas_reference(Trans::No, Trans::No, (m, n, k), &a, m, &b, k, &c0);
    let block = MatRef::col_major(&big, big_m, big_k, big_m)
        .unwrap()
        .block(r0, c0_, m, k)
        .unwrap();
    let mut c = c0.clone();
    ozaki2_gemm(
        1.5,
        block,
        MatRef::col_major(&b, k, n, k).unwrap(),
        -0.5,
        MatMut::col_major(&mut c, m, n, m).unwrap(),
        &Ozaki2Params::default(),
    )
    .unwrap();
    assert_eq!(bits(&c), bits(&want));
}

#[test]
fn shapes_that_do_not_agree_are_errors() {
    let a = [1.0; 12];
    let b = [1.0; 12];
    let mut c = [0.0; 12];
    let av = MatRef::col_major(&a, 3, 4, 3).unwrap();
    let bv = MatRef::col_major(&b, 3, 4, 3).unwrap(); // 3 rows, A has 4 columns
    let r = ozaki1_gemm(
        1.0,
        av,
        bv,
        0.0,
        MatMut::col_major(&mut c, 3, 4, 3).unwrap(),
        &Ozaki1Params::default(),
    );
    assert!(
        matches!(
            r,
            Err(Error::LengthMismatch {
                arg: "b (rows)",
                expected: 4,
                got: 3
            })
        ),
        "{r:?}"
    );
    let bv = MatRef::col_major(&b, 4, 3, 4).unwrap();
    let r = ozaki2_gemm(
        1.0,
        av,
        bv,
        0.0,
        MatMut::col_major(&mut c, 3, 4, 3).unwrap(),
        &Ozaki2Params::default(),
    );
    assert!(
        matches!(
            r,
            Err(Error::LengthMismatch {
                arg: "c (columns)",
                expected: 3,
                got: 4
            })
        ),
        "{r:?}"
    );
    assert_eq!(c, [0.0; 12], "C untouched by errors");
}

#[cfg(feature = "ndarray")]
#[test]
fn ndarray_views_are_operands() {
    use ndarray::{Array2, ShapeBuilder};
    let (m, n, k) = (8, 6, 15);
    let a = paper_matrix(m, k, 1.0, 10);
    let b = paper_matrix(k, n, 1.0, 11);
    let c0 = paper_matrix(m, n, 1.0, 12);
    let want = blas_reference(Trans::No, Trans::No, (m, n, k), &a, m, &b, k, &c0);
    // A in Fortran order, B in C order, C in C order: three layouts in one call.
    let an = Array2::from_shape_vec((m, k).f(), a).unwrap();
    let bn = Array2::from_shape_fn((k, n), |(l, j)| b[l + j * k]);
    let mut cn = Array2::from_shape_fn((m, n), |(i, j)| c0[i + j * m]);
    ozaki2_gemm(
        1.5,
        MatRef::try_from(an.view()).unwrap(),
        MatRef::try_from(bn.view()).unwrap(),
        -0.5,
        MatMut::try_from(cn.view_mut()).unwrap(),
        &Ozaki2Params::default(),
    )
    .unwrap();
    for ((i, j), x) in cn.indexed_iter() {
        assert_eq!(x.to_bits(), want[i + j * m].to_bits());
    }
    // Negative strides are refused, not misread.
    let flipped = an.slice(ndarray::s![..;-1, ..]);
    assert!(matches!(
        MatRef::try_from(flipped),
        Err(Error::InvalidView { .. })
    ));
    // A vector with a negative stride is a BLAS negative increment.
    let v = ndarray::arr1(&[1.0, 2.0, 3.0]);
    let x = mpblas::view::VecRef::from(v.slice(ndarray::s![..;-1]));
    assert_eq!(x.iter().copied().collect::<Vec<_>>(), vec![3.0, 2.0, 1.0]);
}

#[cfg(feature = "faer")]
#[test]
fn faer_views_are_operands() {
    let (m, n, k) = (5, 7, 12);
    let a = paper_matrix(m, k, 1.0, 13);
    let b = paper_matrix(k, n, 1.0, 14);
    let c0 = paper_matrix(m, n, 1.0, 15);
    let want = blas_reference(Trans::No, Trans::No, (m, n, k), &a, m, &b, k, &c0);
    let af = faer::Mat::from_fn(m, k, |i, l| a[i + l * m]);
    let bf = faer::Mat::from_fn(k, n, |l, j| b[l + j * k]);
    let mut cf = faer::Mat::from_fn(m, n, |i, j| c0[i + j * m]);
    ozaki2_gemm(
        1.5,
        MatRef::try_from(af.as_ref()).unwrap(),
        MatRef::try_from(bf.as_ref().transpose().transpose()).unwrap(),
        -0.5,
        MatMut::try_from(cf.as_mut()).unwrap(),
        &Ozaki2Params::default(),
    )
    .unwrap();
    for j in 0..n {
        for i in 0..m {
            assert_eq!(cf[(i, j)].to_bits(), want[i + j * m].to_bits());
        }
    }
    // A transposed faer view is a transposed operand.
    let at = faer::Mat::from_fn(k, m, |l, i| a[i + l * m]);
    let mut c = c0.clone();
    ozaki2_gemm(
        1.5,
        MatRef::try_from(at.as_ref().transpose()).unwrap(),
        MatRef::col_major(&b, k, n, k).unwrap(),
        -0.5,
        MatMut::col_major(&mut c, m, n, m).unwrap(),
        &Ozaki2Params::default(),
    )
    .unwrap();
    assert_eq!(bits(&c), bits(&want));
}
